#!/usr/bin/env python3
"""gen_blind41.py -- synthetic log bundles for distributed GPU training jobs that
fail (or nearly fail) in their FIRST MINUTES: rendezvous, container/driver,
NCCL init, model loading, first forward/backward, GPUs bad from the start.

Written blind (no access to the diagnosis tool, its rules, tests or corpus).
Standard library only.  Deterministic per --seed.

    python3 gen_blind41.py --out DIR --n 60 --seed 1
"""
import argparse
import datetime as dt
import heapq
import json
import os
import random
import sys

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill",
          "crash_signal", "preemption", "hang", "data_loader_stall",
          "collective_mismatch", "straggler", "unknown"]
LAYOUTS = ["slurm", "slurm_tasks", "torchrun_nodes", "k8s_pytorchjob", "sagemaker"]
INF = float("inf")

# torch version -> (nccl version, log style family)
TORCH = {
    "2.0.1": ("2.14.3", "v20"),
    "2.1.2": ("2.18.1", "v21"),
    "2.2.2": ("2.19.3", "v22"),
    "2.3.1": ("2.20.5", "v22"),
    "2.4.1": ("2.20.5", "v24"),
    "2.5.1": ("2.21.5", "v24"),
}
RUNPY_LINES = {"2.0.1": (794, 785, 134, 250), "2.1.2": (806, 797, 134, 264),
               "2.2.2": (812, 803, 135, 268), "2.3.1": (879, 870, 132, 263),
               "2.4.1": (919, 910, 138, 269), "2.5.1": (919, 910, 138, 260)}
# watchdog source line numbers per version (timeout, some-ops, take-down, terminated, check)
WD_LINES = {"2.0.1": (828, 455, 460, 0, 0), "2.1.2": (475, 489, 495, 916, 477),
            "2.2.2": (523, 537, 543, 1182, 525), "2.3.1": (563, 577, 583, 1414, 565),
            "2.4.1": (607, 621, 627, 1515, 609), "2.5.1": (616, 630, 636, 1595, 618)}

BUS_A100 = ["07", "0f", "47", "4e", "87", "90", "b7", "bd"]
BUS_H100 = ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"]
IB_BUS = ["0c", "1f", "48", "5c", "8c", "9f", "c8", "dc"]

SIGNAMES = {-6: "SIGABRT", -9: "SIGKILL", -11: "SIGSEGV", -7: "SIGBUS", -15: "SIGTERM", -2: "SIGINT"}
SIGNUM = {-6: 6, -9: 9, -11: 11, -7: 7, -15: 15, -2: 2}


def hx(rng, n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def rank_ranges(ranks):
    """[0,1,2,5,6] -> '0-2,5-6' (srun style)."""
    ranks = sorted(ranks)
    out, i = [], 0
    while i < len(ranks):
        j = i
        while j + 1 < len(ranks) and ranks[j + 1] == ranks[j] + 1:
            j += 1
        out.append(str(ranks[i]) if i == j else "%d-%d" % (ranks[i], ranks[j]))
        i = j + 1
    return ",".join(out)


class Coll:
    __slots__ = ("seq", "op", "nin", "nout", "enter", "done", "phase")

    def __init__(self, seq, op, nin, nout, phase):
        self.seq, self.op, self.nin, self.nout, self.phase = seq, op, nin, nout, phase
        self.enter = {}
        self.done = 0.0


class RankSt:
    __slots__ = ("r", "node", "local", "pid", "stop_t", "exit_t", "exit_code", "self_exit",
                 "block", "wd", "hung", "exit_kind", "store_err")

    def __init__(self, r, node, local, pid):
        self.r, self.node, self.local, self.pid = r, node, local, pid
        self.stop_t = INF       # normal output stops here
        self.exit_t = INF
        self.exit_code = None
        self.self_exit = None   # (t, code)
        self.block = None       # Coll the rank is stuck in
        self.wd = True          # watchdog fires on its block
        self.hung = False
        self.exit_kind = None
        self.store_err = False


class Run:
    def __init__(self, idx, seed, layout, cause, healthy):
        self.idx, self.seed, self.layout, self.cause, self.healthy = idx, seed, layout, cause, healthy
        self.rng = random.Random("blind41|%s|%d|%s|%s" % (seed, idx, layout, cause))
        self.ev = []          # (t, order, channel, node, rank, text, key)
        self.order = 0
        self.files = {}       # extra files name -> text
        self.notes = []
        self.initiator = None
        self.variant = ""
        self.kernel = {}      # node -> list of (t, text)
        self.agent_done = {}
        self.job_end = None
        self.end_reason = None

    # ------------------------------------------------------------------ emit
    def emit(self, t, ch, node, text, rank=None, key=False):
        self.order += 1
        self.ev.append((t, self.order, ch, node, rank, text, key))

    def w(self, r, t, text, key=False):
        """worker (rank) output"""
        self.emit(t, "w", self.ranks[r].node, text, r, key)

    def a(self, node, t, text, key=False):
        """launcher (torchrun agent / toolkit) output on a node"""
        self.emit(t, "a", node, text, None, key)

    def s(self, t, text, node=0, key=False):
        """scheduler / srun / job-level output"""
        self.emit(t, "s", node, text, None, key)

    def kmsg(self, node, t, text):
        self.kernel.setdefault(node, []).append((t, text))

    # ------------------------------------------------------------------ time
    def wall(self, node, t):
        return self.t0 + dt.timedelta(seconds=t + self.skew[node])

    def ts_py(self, node, t):
        d = self.wall(node, t)
        return d.strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (d.microsecond // 1000)

    def ts_glog(self, node, t, lvl):
        d = self.wall(node, t)
        return "%s%s %s.%06d" % (lvl, d.strftime("%m%d"), d.strftime("%H:%M:%S"), d.microsecond)

    def ts_glog9(self, node, t, lvl):
        d = self.wall(node, t)
        return "%s%s %s.%06d%03d" % (lvl, d.strftime("%m%d"), d.strftime("%H:%M:%S"), d.microsecond,
                                     (int(t * 1e6) * 7) % 1000)

    def ts_iso(self, node, t, frac=0):
        d = self.wall(node, t)
        s = d.strftime("%Y-%m-%dT%H:%M:%S")
        if frac:
            s += ".%06d" % d.microsecond
        return s

    def ts_childfail(self, node, t):
        return self.wall(node, t).strftime("%Y-%m-%d_%H:%M:%S")

    # ------------------------------------------------------------------ setup
    def setup(self):
        rng = self.rng
        L = self.layout
        self.torch = rng.choice(list(TORCH))
        if L == "sagemaker" and self.torch == "2.0.1":
            self.torch = "2.1.2"
        self.nccl, self.style = TORCH[self.torch]
        self.cuda = {"2.0.1": "11.8", "2.1.2": "12.1", "2.2.2": "12.1", "2.3.1": "12.1",
                     "2.4.1": "12.4", "2.5.1": "12.4"}[self.torch]
        self.h100 = rng.random() < 0.55
        self.gpu_name = "NVIDIA H100 80GB HBM3" if self.h100 else "NVIDIA A100-SXM4-80GB"
        self.bus = BUS_H100 if self.h100 else BUS_A100
        self.driver = rng.choice(["535.183.01", "550.54.15", "550.90.07", "535.161.08", "560.35.03"])
        self.n_nodes = rng.choice([2, 2, 3, 4, 4, 4])
        self.gpn = 8 if (rng.random() < 0.85 or L == "sagemaker") else 4
        self.framework = rng.choice(["hf", "hf", "megatron", "custom", "custom"])
        self.variant_hints_early()
        self.world = self.n_nodes * self.gpn
        self.pyver = rng.choice(["3.10", "3.10", "3.11"])
        if L == "sagemaker":
            self.site = "/opt/conda/lib/python%s/site-packages" % self.pyver
            self.pybin = "/opt/conda/bin/python%s" % self.pyver
            self.torchrun_path = ("/opt/conda/bin/torchrun", 33, True)
        elif rng.random() < 0.55:
            self.site = "/usr/local/lib/python%s/dist-packages" % self.pyver
            self.pybin = "/usr/bin/python"
            self.torchrun_path = ("/usr/local/bin/torchrun", 8, False)
        else:
            env = rng.choice(["/opt/conda", "/home/%s/miniconda3/envs/train" % rng.choice(["mli", "jdoe", "svc-ml", "akumar"])])
            self.site = "%s/lib/python%s/site-packages" % (env, self.pyver)
            self.pybin = "%s/bin/python" % env
            self.torchrun_path = ("%s/bin/torchrun" % env, 33, True)
        self.timeout_ms = rng.choice([600000, 1800000, 1800000, 600000, 900000])
        self.nccl_debug = rng.random() < 0.55 and self.world <= 32
        self.tee_prefix = rng.random() < 0.25 and L in ("slurm", "torchrun_nodes", "k8s_pytorchjob")
        self.srun_label = L == "slurm" and rng.random() < 0.4
        self.record = rng.random() < 0.3
        self.script = {"hf": rng.choice(["train.py", "sft.py", "run_clm.py", "finetune.py"]),
                       "megatron": "pretrain_gpt.py",
                       "custom": rng.choice(["train.py", "main.py", "pretrain.py", "train_llm.py"])}[self.framework]
        self.workdir = rng.choice(["/workspace", "/fsx/%s/llm" % rng.choice(["mli", "team-pt", "jdoe"]),
                                   "/home/%s/code/llm-train" % rng.choice(["mli", "akumar"]), "/app", "/lustre/proj/llm"])
        self.model = rng.choice(["Meta-Llama-3-8B", "Llama-2-13b-hf", "Mistral-7B-v0.1", "Meta-Llama-3-70B",
                                 "Qwen2-7B", "llama2-34b-custom", "gpt-neox-20b"])
        self.big_model = any(x in self.model for x in ("70B", "34b", "20b"))
        self.ckpt_dir = rng.choice(["/fsx/models/", "/mnt/ckpt/", "/lustre/shared/models/", "/data/hf/"]) + self.model
        self.n_shards = rng.choice([4, 6, 15, 30]) if self.big_model else rng.choice([2, 3, 4])
        self.t0 = dt.datetime(2024, 1, 8, 6, 0, 0) + dt.timedelta(
            days=rng.randint(0, 560), seconds=rng.randint(0, 86000))
        self.jobid = rng.randint(100000, 9999999)
        self.port = rng.choice([29500, 29500, 29400, 6000, 23456, 12355, 29501]) if L != "sagemaker" else 7777
        if L == "k8s_pytorchjob":
            self.port = 23456
        self.dp_tp_pp()
        self.hosts_and_net()
        # clock skew between nodes (node 0 is the reference for nothing in particular)
        self.skew = []
        for n in range(self.n_nodes):
            sk = rng.gauss(0, 1.2)
            if rng.random() < 0.12:
                sk += rng.choice([-1, 1]) * rng.uniform(20, 140)   # badly synced node
            self.skew.append(sk)
        self.ranks = []
        self.agent_pid = []
        self.pid_off = []
        container = L in ("k8s_pytorchjob", "sagemaker")
        for n in range(self.n_nodes):
            base_pid = rng.choice([1, 7, rng.randint(20, 90)]) if container else rng.randint(2000, 180000)
            self.agent_pid.append(base_pid)
            self.pid_off.append(rng.randint(20000, 3000000) if container else 0)
            pid = base_pid + rng.randint(8, 60 if container else 12)
            for l in range(self.gpn):
                self.ranks.append(RankSt(n * self.gpn + l, n, l, pid))
                pid += rng.randint(1, 4)
        self.boot = [rng.uniform(3600 * 2, 3600 * 24 * 40) for _ in range(self.n_nodes)]
        self.kernel_fmt = rng.choice(["raw", "T", "journal"])
        if L == "slurm_tasks":
            self.tee_prefix = False

    def variant_hints_early(self):
        v = self.variant
        if v == "py_pp_shape":
            self.framework = "megatron"
        if v in ("py_ordinal", "nv_fm", "nv_xid74", "py_pp_shape"):
            self.gpn = 8
        if v in ("st_rank", "st_node") and self.framework == "megatron" and self.rng.random() < 0.5:
            self.framework = "custom"

    def dp_tp_pp(self):
        rng = self.rng
        if self.framework == "megatron":
            self.tp = min(self.gpn, rng.choice([2, 4, 8]))
            self.pp = rng.choice([2, self.n_nodes]) if self.n_nodes >= 2 else 1
            if self.variant == "py_pp_shape":
                self.tp = min(self.tp, 4)
                self.pp = 2
            while (self.world // self.tp) % self.pp:
                self.pp = 1
            self.dp = self.world // (self.tp * self.pp)
        else:
            self.tp, self.pp, self.dp = 1, 1, self.world

    def hosts_and_net(self):
        rng = self.rng
        L = self.layout
        n = self.n_nodes
        if L in ("slurm", "slurm_tasks"):
            pre = rng.choice(["hgx-h100-", "dgx", "gpu-a100-", "node", "gpu-st-p5-48xlarge-", "cn"])
            start = rng.randint(1, 180)
            width = 3 if pre not in ("gpu-st-p5-48xlarge-",) else 1
            self.hosts = ["%s%0*d" % (pre, width, start + i) for i in range(n)]
            self.pods = list(self.hosts)
        elif L == "torchrun_nodes":
            st = rng.choice(["ip", "gpu-node", "worker", "a3-vm"])
            if st == "ip":
                base = rng.randint(10, 250)
                self.hosts = ["ip-10-0-%d-%d" % (rng.randint(0, 60), base + 3 * i) for i in range(n)]
            elif st == "a3-vm":
                self.hosts = ["a3-train-%s-%d" % (hx(rng, 4), i) for i in range(n)]
            else:
                b0 = rng.randint(1, 40)
                self.hosts = ["%s-%02d" % (st, b0 + i) for i in range(n)]
            self.pods = list(self.hosts)
        elif L == "k8s_pytorchjob":
            self.kjob = rng.choice(["llama-sft", "pt-llm-7b", "mistral-ft", "ptjob-run", "llm-pretrain"]) + "-" + hx(rng, 5)
            self.pods = ["%s-master-0" % self.kjob] + ["%s-worker-%d" % (self.kjob, i) for i in range(n - 1)]
            pool = rng.choice(["gke-train-a3-highgpu-8g-pool-%s" % hx(rng, 8), "ip-10-2-%d" % rng.randint(0, 99),
                               "aks-ndh100v5-%d-vmss" % rng.randint(10000000, 99999999)])
            if pool.startswith("ip-"):
                self.k8snodes = ["%s-%d.ec2.internal" % (pool, rng.randint(2, 250)) for _ in range(n)]
            elif pool.startswith("aks"):
                self.k8snodes = ["%s%06d" % (pool, rng.randint(0, 40)) for _ in range(n)]
            else:
                self.k8snodes = ["%s-%s" % (pool, hx(rng, 4)) for _ in range(n)]
            self.hosts = list(self.pods)
            self.ns = rng.choice(["default", "ml-train", "research", "kubeflow-user"])
        else:
            self.hosts = ["algo-%d" % (i + 1) for i in range(n)]
            self.pods = list(self.hosts)
            self.smjob = "%s-%s" % (rng.choice(["llama-ft", "pytorch-training", "hf-sft", "pt-llm"]),
                                    self.t0.strftime("%Y-%m-%d-%H-%M-%S-") + "%03d" % rng.randint(0, 999))
        self.ifname = rng.choice(["eth0", "ens5", "bond0", "enp86s0f0", "ibp12s0"]) if L != "k8s_pytorchjob" else "eth0"
        if L == "sagemaker":
            self.ifname = "eth0"
        sub = rng.randint(0, 200)
        b2 = rng.choice([0, 1, 2, 10, 42])
        self.ips = ["10.%d.%d.%d" % (b2, sub + (i * 7) // 250, rng.randint(2, 250)) for i in range(n)]
        for i, h in enumerate(self.hosts):
            if h.startswith("ip-10-"):
                self.ips[i] = h[3:].replace("-", ".")
        if L == "torchrun_nodes":
            self.node_log_pat = rng.choice(["node{n}.log", "{h}.log", "train_node{n}.log", "logs/{h}_rank{n}.txt"])
        self.net = "IB" if L != "sagemaker" else "OFI"
        if L == "k8s_pytorchjob" and rng.random() < 0.3:
            self.net = "Socket"
        self.master = self.hosts[0]

    # ------------------------------------------------------------------ timeline
    def plan(self):
        rng = self.rng
        L = self.layout
        n = self.n_nodes
        if L == "k8s_pytorchjob":
            launch = [rng.uniform(0, 15)] + [rng.uniform(0, 75) for _ in range(n - 1)]
        elif L == "sagemaker":
            launch = [rng.uniform(0, 6) for _ in range(n)]
        else:
            launch = [rng.uniform(0, 2.5) for _ in range(n)]
        T = self.T = {"launch": launch}
        T["rdzv"] = max(launch) + rng.uniform(0.8, 4.0)
        T["ws"], T["imp"], T["init"] = {}, {}, {}
        for rk in self.ranks:
            T["ws"][rk.r] = T["rdzv"] + rng.uniform(0.2, 1.2) + 0.05 * rk.local
            T["imp"][rk.r] = T["ws"][rk.r] + rng.uniform(7, 22)
            T["init"][rk.r] = T["imp"][rk.r] + rng.uniform(0.1, 2.0)
        self.colls = []
        c1 = self.add_coll("ALLREDUCE", 1, 1, "init")
        for r in range(self.world):
            c1.enter[r] = T["init"][r]
        c1.done = max(c1.enter.values()) + rng.uniform(2.0, 11.0)
        T["nccl_done"] = c1.done
        # model load
        base = rng.uniform(90, 420) if self.big_model else rng.uniform(18, 95)
        self.load_node = [base * rng.uniform(0.85, 1.15) for _ in range(n)]
        T["load_start"], T["load_end"] = {}, {}
        for rk in self.ranks:
            T["load_start"][rk.r] = c1.done + rng.uniform(0.2, 2.5)
            T["load_end"][rk.r] = T["load_start"][rk.r] + self.load_node[rk.node] * rng.uniform(0.97, 1.03)
        self.T_load_extra = 0.0
        c2 = self.add_coll("BROADCAST" if self.framework != "megatron" else "ALLREDUCE",
                           self.params_per_rank(), self.params_per_rank(), "post_load")
        for r in range(self.world):
            c2.enter[r] = T["load_end"][r]
        c2.done = max(c2.enter.values()) + rng.uniform(0.5, 4)
        T["data"] = {}
        dd = rng.uniform(3, 40)
        for r in range(self.world):
            T["data"][r] = c2.done + dd * (1.0 if r == 0 else rng.uniform(0.05, 0.3))
        c3 = self.add_coll("ALLREDUCE", 1, 1, "post_data")
        for r in range(self.world):
            c3.enter[r] = T["data"][r]
        c3.done = max(c3.enter.values()) + rng.uniform(0.1, 0.6)
        # training steps
        self.step_time = rng.uniform(1.2, 9.0)
        self.first_step_extra = rng.uniform(8, 45)
        self.per_step = rng.choice([1, 2, 4, 9, 26])
        self.rank_speed = [rng.uniform(0.97, 1.03) for _ in range(self.world)]
        self.n_steps = rng.randint(60, 140)
        self.log_every = rng.choice([1, 5, 10, 10, 20])
        self.step_colls = []
        self.step_op = {"hf": rng.choice(["ALLREDUCE", "_REDUCE_SCATTER_BASE"]), "custom": "ALLREDUCE",
                        "megatron": "_REDUCE_SCATTER_BASE" if rng.random() < 0.5 else "ALLREDUCE"}[self.framework]
        self.steps_planned = False

    def model_params(self):
        return {"Meta-Llama-3-8B": 8030261248, "Llama-2-13b-hf": 13015864320, "Mistral-7B-v0.1": 7241732096,
                "Meta-Llama-3-70B": 70553706496, "Qwen2-7B": 7615616512, "llama2-34b-custom": 33743970304,
                "gpt-neox-20b": 20554567680}[self.model]

    def params_per_rank(self):
        base = {"Meta-Llama-3-8B": 8030261248, "Llama-2-13b-hf": 13015864320, "Mistral-7B-v0.1": 7241732096,
                "Meta-Llama-3-70B": 70553706496, "Qwen2-7B": 7615616512, "llama2-34b-custom": 33743970304,
                "gpt-neox-20b": 20554567680}[self.model]
        if self.framework == "megatron":
            return base // (self.tp * self.pp * 8)
        if self.step_op_guess() == "fsdp":
            return base // self.world
        return min(base, 262668288)

    def step_op_guess(self):
        return "fsdp" if self.big_model else "ddp"

    def add_coll(self, op, nin, nout, phase):
        c = Coll(len(self.colls) + 1 if not self.colls else self.colls[-1].seq + 1, op, nin, nout, phase)
        self.colls.append(c)
        return c

    def plan_steps(self):
        """collectives of the training steps; called after scenarios tweak speeds"""
        if self.steps_planned:
            return
        self.steps_planned = True
        rng = self.rng
        prev = self.colls[2].done + 0.5
        numel = self.params_per_rank() // max(1, self.per_step) if self.step_op == "ALLREDUCE" else \
            self.params_per_rank() * (self.world if self.framework != "megatron" else self.dp) // max(1, self.per_step)
        numel = max(numel, 1024)
        seq = self.colls[-1].seq
        self.step_start = []
        for k in range(1, self.n_steps + 1):
            seq += self.per_step
            if self.step_op != "ALLREDUCE":
                numel = (numel // self.world) * self.world
            c = Coll(seq, self.step_op, numel,
                     numel if self.step_op == "ALLREDUCE" else max(1, numel // self.world), "step%d" % k)
            self.step_start.append(prev)
            extra = self.first_step_extra if k == 1 else 0.0
            for r in range(self.world):
                c.enter[r] = prev + (self.step_time * self.rank_speed[r] + extra) * rng.uniform(0.985, 1.015)
            c.done = max(c.enter.values()) + self.step_time * 0.06
            self.colls.append(c)
            self.step_colls.append(c)
            prev = c.done + 0.02

    def next_coll(self, r, t):
        for c in self.colls:
            if c.enter.get(r, INF) >= t:
                return c
        return None

    def coll_by_phase(self, ph):
        for c in self.colls:
            if c.phase == ph:
                return c
        return None

    # ------------------------------------------------------------------ noise text
    def nccl_pfx(self, r, tid=False):
        rk = self.ranks[r]
        t = rk.pid + (self.lno("tid%d" % r, 60, 400) if tid else 0)
        return "%s:%d:%d [%d]" % (self.hosts[rk.node], rk.pid, t, rk.local)

    def busid(self, local):
        return "%s000" % self.bus[local].lstrip("0") if self.bus[local] != "0f" else "f000"

    def pci(self, local):
        return "0000:%s:00" % self.bus[local]

    def nccl_init_lines(self, r):
        rng = self.rng
        rk = self.ranks[r]
        P = self.nccl_pfx(r)
        out = []
        ifn, ip = self.ifname, self.ips[rk.node]
        out.append("%s NCCL INFO Bootstrap : Using %s:%s<0>" % (P, ifn, ip))
        if self.layout == "sagemaker":
            out.append("%s NCCL INFO NET/Plugin: Using aws-ofi-nccl %s" % (P, rng.choice(["1.7.3-aws", "1.7.4-aws", "1.9.1-aws"])))
            out.append("%s NCCL INFO NET/OFI Using Libfabric version 1.19" % P)
            out.append("%s NCCL INFO NET/OFI Selected Provider is efa (found 4 nics)" % P)
        else:
            out.append("%s NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation" % P)
        out.append("%s NCCL INFO cudaDriverVersion %s" % (P, {"11.8": "12020", "12.1": "12020", "12.4": "12040"}[self.cuda]))
        if r == 0:
            out.append("%s NCCL INFO NCCL version %s+cuda%s" % (P, self.nccl, self.cuda))
        Pt = self.nccl_pfx(r, tid=True)
        if self.net == "IB":
            devs = " ".join("[%d]mlx5_%d:1/%s" % (i, i, "IB" if self.layout != "k8s_pytorchjob" else "RoCE") for i in range(4 if self.gpn == 4 else 8))
            out.append("%s NCCL INFO NET/IB : Using %s ; OOB %s:%s<0>" % (P, devs, ifn, ip))
            out.append("%s NCCL INFO Using network IB" % P)
        elif self.net == "Socket":
            out.append("%s NCCL INFO NET/IB : No device found." % P)
            out.append("%s NCCL INFO NET/Socket : Using [0]%s:%s<0>" % (P, ifn, ip))
            out.append("%s NCCL INFO Using network Socket" % P)
        else:
            out.append("%s NCCL INFO Using network AWS Libfabric" % P)
        cid = self.comm_id
        addr = "0x%s" % hx(rng, 10)
        out.append("%s NCCL INFO comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId 0x%s - Init START" % (
            Pt, addr, r, self.world, rk.local, rk.local, self.busid(rk.local), cid))
        out.append("%s NCCL INFO Setting affinity for GPU %d to %s" % (Pt, rk.local, rng.choice(["ffffffff,00000000,ffffffff", "ff,ffffff00,00000000", "ffff0000,0000ffff"])))
        if self.h100 and self.nccl >= "2.18":
            out.append("%s NCCL INFO NVLS multicast support is available on dev %d" % (Pt, rk.local))
        if rk.local == 0 or rng.random() < 0.3:
            out.append("%s NCCL INFO Trees [0] %d/-1/-1->%d->-1 [1] -1/-1/-1->%d->%d" % (Pt, (r + 1) % self.world, r, r, (r - 1) % self.world))
        out.append("%s NCCL INFO P2P Chunksize set to 524288" % Pt)
        out.append("%s NCCL INFO Connected all rings" % Pt)
        out.append("%s NCCL INFO Connected all trees" % Pt)
        out.append("%s NCCL INFO %d coll channels, %d collnet channels, %d nvls channels, %d p2p channels, %d p2p channels per peer" % (
            Pt, 32 if self.h100 else 16, 0, 16 if self.h100 else 0, 32, 2))
        out.append("%s NCCL INFO comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId 0x%s - Init COMPLETE" % (
            Pt, addr, r, self.world, rk.local, rk.local, self.busid(rk.local), cid))
        return out

    def import_warnings(self):
        rng = self.rng
        S = self.site
        pool = [
            "%s/torch/_utils.py:831: UserWarning: TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class. This should only matter to you if you are using storages directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()\n  return self.fget.__get__(instance, owner)()" % S,
            "%s/transformers/utils/generic.py:441: FutureWarning: `torch.utils._pytree._register_pytree_node` is deprecated. Please use `torch.utils._pytree.register_pytree_node` instead.\n  _torch_pytree._register_pytree_node(" % S,
            "%s/requests/__init__.py:102: RequestsDependencyWarning: urllib3 (1.26.18) or chardet (5.2.0)/charset_normalizer (2.0.12) doesn't match a supported version!\n  warnings.warn(\"urllib3 ({}) or chardet ({})/charset_normalizer ({}) doesn't match a supported \"" % S,
        ]
        if self.framework == "megatron":
            pool.append("Zarr-based strategies will not be registered because of missing packages")
            pool.append("%s/apex/transformer/functional/fused_rope.py:50: UserWarning: fused_rotary_positional_embedding is deprecated\n  warnings.warn(" % S)
        if self.torch >= "2.4":
            pool.append("%s/flash_attn/ops/triton/layer_norm.py:958: FutureWarning: `torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use `torch.amp.custom_fwd(args..., device_type='cuda')` instead.\n  def forward(" % S)
        if self.framework == "hf":
            pool.append("%s/accelerate/accelerator.py:432: FutureWarning: Passing the following arguments to `Accelerator` is deprecated and will be removed in version 1.0 of Accelerate: dict_keys(['dispatch_batches', 'split_batches']). Please pass an `accelerate.DataLoaderConfiguration` instead: \ndataloader_config = DataLoaderConfiguration(dispatch_batches=None, split_batches=False)\n  warnings.warn(" % S)
        k = rng.randint(1, min(3, len(pool)))
        return rng.sample(pool, k)

    def tqdm_line(self, label, total, dur, r_unit="s/it", width=10):
        parts = []
        steps = sorted(set([0] + [max(1, int(total * f)) for f in (0.25, 0.5, 0.75)] + [total]))
        for i in steps:
            frac = i / total
            el = dur * frac
            filled = int(width * frac)
            bar = "\u2588" * filled + (" " * (width - filled))
            rate = (el / i) if i else 0
            rem = (total - i) * (dur / total)
            if i == 0:
                parts.append("%s:   0%%|%s| 0/%d [00:00<?, ?it/s]" % (label, bar, total))
            else:
                parts.append("%s: %3d%%|%s| %d/%d [%s<%s, %5.2f%s]" % (
                    label, int(frac * 100), bar, i, total, mmss(el), mmss(rem), rate, r_unit))
        return "\r".join(parts)

    # ------------------------------------------------------------------ normal output
    def gen_normal(self):
        rng = self.rng
        T = self.T
        self.comm_id = hx(rng, 16)
        warns = self.import_warnings()
        fw = self.framework
        seq_len = rng.choice([2048, 4096, 8192])
        self.seq_len = seq_len
        gbs = rng.choice([256, 512, 1024, 2048])
        self.gbs = gbs
        mbs = rng.choice([1, 2, 4])
        self.mbs = mbs
        n_examples = rng.randint(200000, 9000000)
        self.total_steps = rng.randint(1200, 60000)
        c1 = self.colls[0]
        # per rank startup
        for rk in self.ranks:
            r = rk.r
            tw = T["ws"][r] + (T["imp"][r] - T["ws"][r]) * rng.uniform(0.15, 0.6)
            for i, wtxt in enumerate(warns):
                self.emit(tw + i * 0.01, "wn", rk.node, wtxt, r)
            if self.torch >= "2.2" and self.nccl_async_env:
                self.emit(T["init"][r] - 0.05, "wn", rk.node,
                          "[W Utils.hpp:133] Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated; use TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function getCvarInt)"
                          if self.torch < "2.4" else
                          "[W%s Utils.hpp:135] Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated; use TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function operator())" % self.ts_glog9(rk.node, T["init"][r], "")[0:],
                          r)
            if self.no_ipv6 and self.style != "v20":
                self.emit(T["init"][r] - 0.02, "wn", rk.node,
                          "[W socket.cpp:697] [c10d] The client socket cannot be initialized to connect to [%s]:%d (errno: 97 - Address family not supported by protocol)." % (self.master, self.port)
                          if self.style != "v24" else
                          "[W%s socket.cpp:752] [c10d] The client socket cannot be initialized to connect to [%s]:%d (errno: 97 - Address family not supported by protocol)." % (self.ts_glog9(rk.node, T["init"][r], "")[0:], self.master, self.port), r)
            if fw == "hf" and self.accel_state:
                self.emit(T["init"][r] + 0.1, "wn", rk.node,
                          "Distributed environment: MULTI_GPU  Backend: nccl\nNum processes: %d\nProcess index: %d\nLocal process index: %d\nDevice: cuda:%d\n\nMixed precision type: bf16\n" % (self.world, r, rk.local, rk.local), r)
            if fw == "custom":
                self.emit(T["init"][r] + 0.05, "wn", rk.node, self.clog(rk.node, T["init"][r] + 0.05, r,
                          "rank %d/%d (local_rank %d) on %s -> cuda:%d (%s)" % (r, self.world, rk.local, self.hosts[rk.node], rk.local, self.gpu_name)), r)
            if self.nccl_debug:
                lines = self.nccl_init_lines(r)
                t = c1.enter[r]
                span = c1.done - t
                for i, ln in enumerate(lines):
                    self.emit(t + span * (i + 1) / (len(lines) + 1), "wn", rk.node, ln, r)
        # rank-0 / framework specific
        r0 = 0
        n0 = 0
        if fw == "megatron":
            t = T["imp"][0] - 0.4
            args = ["accumulate_allreduce_grads_in_fp32 .............. True", "bf16 ............................................ True",
                    "data_path ....................................... ['/lustre/data/%s_text_document']" % rng.choice(["slimpajama", "pile", "redpajama_v2"]),
                    "global_batch_size ............................... %d" % gbs, "micro_batch_size ................................ %d" % mbs,
                    "pipeline_model_parallel_size .................... %d" % self.pp, "seq_length ...................................... %d" % seq_len,
                    "tensor_model_parallel_size ...................... %d" % self.tp, "use_distributed_optimizer ....................... True",
                    "world_size ...................................... %d" % self.world]
            self.emit(t, "wn", n0, "using world size: %d, data-parallel size: %d, context-parallel size: 1, tensor-model-parallel size: %d, pipeline-model-parallel size: %d " % (self.world, self.dp, self.tp, self.pp), r0)
            self.emit(t + 0.01, "wn", n0, "------------------------ arguments ------------------------\n  " + "\n  ".join(args) + "\n-------------------- end of arguments ---------------------", r0)
            self.emit(t + 0.02, "wn", n0, "setting number of micro-batches to constant %d" % (gbs // (mbs * self.dp)), r0)
            self.emit(t + 0.03, "wn", n0, "> building Llama2Tokenizer tokenizer ...\n > padded vocab (size: 32000) with 0 dummy tokens (new size: 32000)", r0)
            self.emit(t + 0.04, "wn", n0, "> initializing torch distributed ...", r0)
            tc = c1.done + 0.1
            self.emit(tc, "wn", n0, "> initialized tensor model parallel with size %d\n> initialized pipeline model parallel with size %d\n> setting random seeds to 1234 ...\n> compiling dataset index builder ...\nmake: Entering directory '%s/Megatron-LM/megatron/core/datasets'\nmake: Nothing to be done for 'default'.\nmake: Leaving directory '%s/Megatron-LM/megatron/core/datasets'\n>>> done with dataset index builder. Compilation time: 0.%03d seconds\n> compiling and loading fused kernels ...\n>>> done with compiling and loading fused kernels. Compilation time: %.3f seconds" % (self.tp, self.pp, self.self_wd(), self.self_wd(), rng.randint(40, 90), rng.uniform(1.5, 9)), r0)
            tl = T["load_start"][0]
            self.emit(tl - 0.2, "wn", n0, "time to initialize megatron (seconds): %.3f\n[after megatron is initialized] datetime: %s \nbuilding GPT model ..." % (tl - T["ws"][0], self.wall(n0, tl).strftime("%Y-%m-%d %H:%M:%S")), r0)
            for rk in self.ranks:
                tpr, ppr, dpr = self.mp_coords(rk.r)
                if dpr == 0:
                    self.emit(T["load_start"][rk.r] + 0.3, "wn", rk.node, " > number of parameters on (tensor, pipeline) model parallel rank (%d, %d): %d" % (tpr, ppr, self.params_per_rank() * 8 + rng.randint(0, 99999)), rk.r)
            self.emit(T["load_start"][0] + 1, "wn", n0, " loading checkpoint from %s at iteration %d" % (self.ckpt_dir, self.resume_iter), r0)
            self.emit(T["load_end"][0], "wn", n0, " successfully loaded checkpoint from %s [ t %d/%d, p %d/%d ] at iteration %d" % (self.ckpt_dir, 1, self.tp, 1, self.pp, self.resume_iter), r0)
            c2 = self.colls[1]
            self.emit(c2.done + 0.1, "wn", n0, "(min, max) time across ranks (ms):\n    load-checkpoint ................................: (%.2f, %.2f)\n[after model, optimizer, and learning rate scheduler are built] datetime: %s \n> building train, validation, and test datasets ...\n > datasets target sizes (minimum size):\n    train:      %d\n    validation: %d\n    test:       %d" % (
                min(self.load_node) * 1000, max(self.load_node) * 1000, self.wall(n0, c2.done).strftime("%Y-%m-%d %H:%M:%S"), gbs * self.total_steps, gbs * 100, gbs * 10), r0)
            c3 = self.colls[2]
            self.emit(c3.done + 0.05, "wn", n0, "[after dataloaders are built] datetime: %s \ndone with setup ...\n(min, max) time across ranks (ms):\n    model-and-optimizer-setup ......................: (%.2f, %.2f)\n    train/valid/test-data-iterators-setup ..........: (%.2f, %.2f)\ntraining ...\n[before the start of training step] datetime: %s " % (
                self.wall(n0, c3.done).strftime("%Y-%m-%d %H:%M:%S"), min(self.load_node) * 1000 + 400, max(self.load_node) * 1000 + 900,
                (c3.done - c2.done) * 600, (c3.done - c2.done) * 1000, self.wall(n0, c3.done).strftime("%Y-%m-%d %H:%M:%S")), r0)
        elif fw == "hf":
            tl = T["load_start"][0]
            self.emit(tl - 0.5, "wn", n0, "[INFO|configuration_utils.py:731] %s >> loading configuration file %s/config.json" % (self.ts_py(n0, tl - 0.5), self.ckpt_dir), r0)
            self.emit(tl - 0.4, "wn", n0, "[INFO|modeling_utils.py:3474] %s >> loading weights file %s/model.safetensors.index.json" % (self.ts_py(n0, tl - 0.4), self.ckpt_dir), r0)
            for rk in self.ranks:
                d = T["load_end"][rk.r] - T["load_start"][rk.r]
                self.emit(T["load_end"][rk.r] - 0.01, "wn", rk.node, self.tqdm_line("Loading checkpoint shards", self.n_shards, d), rk.r)
            c2 = self.colls[1]
            if rng.random() < 0.6:
                for rk in self.ranks:
                    if rk.local == 0 or rng.random() < 0.2:
                        self.emit(c2.done + 0.3, "wn", rk.node, "Special tokens have been added in the vocabulary, make sure the associated word embeddings are fine-tuned or trained.", rk.r)
            c3 = self.colls[2]
            tt = c3.done + 0.05
            self.emit(tt, "wn", n0, "[INFO|trainer.py:2078] %s >> ***** Running training *****\n[INFO|trainer.py:2079] %s >>   Num examples = %s\n[INFO|trainer.py:2080] %s >>   Num Epochs = 1\n[INFO|trainer.py:2081] %s >>   Instantaneous batch size per device = %d\n[INFO|trainer.py:2084] %s >>   Total train batch size (w. parallel, distributed & accumulation) = %d\n[INFO|trainer.py:2085] %s >>   Gradient Accumulation steps = %d\n[INFO|trainer.py:2086] %s >>   Total optimization steps = %s\n[INFO|trainer.py:2087] %s >>   Number of trainable parameters = %s" % (
                self.ts_py(n0, tt), self.ts_py(n0, tt), "{:,}".format(n_examples), self.ts_py(n0, tt), self.ts_py(n0, tt), mbs, self.ts_py(n0, tt), gbs,
                self.ts_py(n0, tt), max(1, gbs // (mbs * self.world)), self.ts_py(n0, tt), "{:,}".format(self.total_steps), self.ts_py(n0, tt),
                "{:,}".format(self.model_params())), r0)
        else:
            tl = T["load_start"][0]
            self.emit(tl, "wn", n0, self.clog(n0, tl, 0, "loading checkpoint from %s (%d shards, %s)" % (self.ckpt_dir, self.n_shards, rng.choice(["safetensors", "torch.load", "dcp"]))), r0)
            for rk in self.ranks:
                te = T["load_end"][rk.r]
                if rk.local == 0 or rng.random() < 0.5:
                    self.emit(te + 0.01, "wn", rk.node, self.clog(rk.node, te, rk.r, "rank %d: weights loaded in %.1fs" % (rk.r, te - T["load_start"][rk.r])), rk.r)
            c3 = self.colls[2]
            self.emit(c3.done, "wn", n0, self.clog(n0, c3.done, 0, "dataset ready: %s sequences x %d tokens, global batch %d, %d steps" % ("{:,}".format(n_examples), seq_len, gbs, self.total_steps)), r0)

    def self_wd(self):
        return self.workdir

    def mp_coords(self, r):
        tp = r % self.tp
        pp = r // (self.world // self.pp) if self.pp > 1 else 0
        dp = (r % (self.world // self.pp)) // self.tp
        return tp, pp, dp

    def clog(self, node, t, r, msg, lvl="INFO"):
        if self.clog_fmt == 0:
            return "%s - %s - train - [rank %d] %s" % (self.ts_py(node, t), lvl, r, msg)
        return "[%s][%s][rank%d] %s" % (self.wall(node, t).strftime("%Y-%m-%d %H:%M:%S"), lvl, r, msg)

    def gen_steps(self):
        """step log lines (printing rank depends on framework)"""
        rng = self.rng
        fw = self.framework
        pr = self.world - 1 if fw == "megatron" else 0
        node = self.ranks[pr].node
        loss0 = rng.uniform(10.6, 11.2) if fw == "megatron" or rng.random() < 0.3 else rng.uniform(1.4, 2.6)
        self.loss0 = loss0
        for k, c in enumerate(self.step_colls, start=1):
            t = c.done + 0.01
            if not (k <= 3 or k % self.log_every == 0):
                continue
            st = (c.done - self.step_start[k - 1])
            loss = loss0 * (0.985 ** k) + rng.uniform(-0.03, 0.03) * loss0
            lr = 3e-4 * min(1.0, k / 2000.0)
            gn = rng.uniform(0.8, 4.0) if k > 5 else rng.uniform(5, 30)
            if fw == "megatron":
                self.emit(t, "wn", node, " [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | throughput per GPU (TFLOP/s/GPU): %.1f | learning rate: %.6E | global batch size: %5d | lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f | number of skipped iterations:   0 | number of nan iterations:   0 |" % (
                    self.wall(node, t).strftime("%Y-%m-%d %H:%M:%S"), self.resume_iter + k, self.total_steps, (self.resume_iter + k) * self.gbs,
                    st * 1000, rng.uniform(150, 420) / max(1.0, st / self.step_time), lr, self.gbs, loss, gn), pr)
                if k == 1:
                    for rk in self.ranks:
                        tpr, ppr, dpr = self.mp_coords(rk.r)
                        if dpr == 0 and tpr == 0:
                            self.emit(t + 0.02, "wn", rk.node, "[Rank %d] (after 1 iterations) memory (MB) | allocated: %.2f | max allocated: %.2f | reserved: %.2f | max reserved: %.2f" % (
                                rk.r, rng.uniform(15000, 30000), rng.uniform(40000, 66000), rng.uniform(60000, 70000), rng.uniform(66000, 72000)), rk.r)
            elif fw == "hf":
                el = t - self.step_start[0]
                tot = self.total_steps
                rem = (tot - k) * st
                self.emit(t, "wn", node, "%3d%%|%s| %d/%d [%s<%s, %5.2fs/it]" % (int(100 * k / tot), " " * 10, k, tot, hhmmss(el), hhmmss(rem), st), pr)
                if k % max(self.log_every, 1) == 0 or k == 1:
                    self.emit(t + 0.01, "wn", node, "{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %s, 'epoch': %.2f}" % (loss, gn, repr(lr), k / self.total_steps), pr)
            else:
                self.emit(t, "wn", node, self.clog(node, t, pr, "step %5d | loss %.4f | lr %.2e | grad_norm %.3f | %.2f s/it | %s tok/s/gpu" % (
                    k, loss, lr, gn, st, "{:,}".format(int(self.gbs * self.seq_len / max(st, 0.1) / self.world)))), pr)


def mmss(s):
    s = int(max(0, s))
    if s >= 3600:
        return "%d:%02d:%02d" % (s // 3600, (s % 3600) // 60, s % 60)
    return "%02d:%02d" % (s // 60, s % 60)


def hhmmss(s):
    s = int(max(0, s))
    return "%d:%02d:%02d" % (s // 3600, (s % 3600) // 60, s % 60) if s >= 3600 else "%02d:%02d" % (s // 60, s % 60)


# ====================================================================== text builders
def pytb(frames, exc):
    out = ["Traceback (most recent call last):"]
    for f in frames:
        out.append('  File "%s", line %d, in %s' % (f[0], f[1], f[2]))
        if len(f) > 3 and f[3]:
            out.append("    " + f[3])
    out.append(exc)
    return "\n".join(out)


class Texts:
    """mixin: message builders that depend on the run's versions/paths"""

    # ---- agent logging
    def glog_agent(self):
        return self.torch >= "2.3"

    def alog(self, node, t, lvl, mod, msg, line=0):
        """torchrun (elastic agent) log line in the version's format"""
        L = {"W": "WARNING", "E": "ERROR", "I": "INFO"}[lvl]
        if self.style == "v20":
            return "%s:%s:%s" % (L, mod, msg)
        if not self.glog_agent():
            return "[%s] %s: [%s] %s" % (self.ts_py(node, t), mod, L, msg)
        path = mod.replace(".", "/") + ".py"
        return "%s %d %s:%d] %s" % (self.ts_glog(node, t, lvl), self.agent_pid[node], path, line or 100, msg)

    def omp_banner(self, node, t):
        msg = ["", "*****************************************",
               "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
               "*****************************************"]
        if self.style == "v20":
            return "WARNING:torch.distributed.run:\n" + "\n".join(msg[1:])
        return "\n".join(self.alog(node, t, "W", "torch.distributed.run", m, 793) for m in msg)

    def torchrun_head_frames(self):
        tr, ln, conda = self.torchrun_path
        S = self.site
        a, b, c, d = RUNPY_LINES[self.torch]
        fr = []
        if conda:
            fr.append((tr, ln, "<module>", "sys.exit(load_entry_point('torch==%s', 'console_scripts', 'torchrun')())" % self.torch))
        else:
            fr.append((tr, ln, "<module>", "sys.exit(main())"))
        fr.append((S + "/torch/distributed/elastic/multiprocessing/errors/__init__.py", 346 if self.torch < "2.4" else 355, "wrapper", "return f(*args, **kwargs)"))
        fr.append((S + "/torch/distributed/run.py", a, "main", "run(args)"))
        fr.append((S + "/torch/distributed/run.py", b, "run", "elastic_launch("))
        fr.append((S + "/torch/distributed/launcher/api.py", c, "__call__", "return launch_agent(self._config, self._entrypoint, list(args))"))
        return fr, d

    def child_failed_text(self, node, t, fails):
        """fails: list of (t, rank, code, tbtext or None); first = root cause"""
        fr, d = self.torchrun_head_frames()
        fr = fr + [(self.site + "/torch/distributed/launcher/api.py", d, "launch_agent", "raise ChildFailedError(")]
        head = pytb(fr, "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ")
        root = fails[0]
        others = fails[1:]

        def block(i, f):
            ft, r, code, tbt = f
            rk = self.ranks[r]
            if code < 0:
                tb = "Signal %d (%s) received by PID %d" % (SIGNUM[code], SIGNAMES[code], rk.pid)
                ef = "<N/A>"
            elif tbt and self.record:
                ef = "/tmp/torchelastic_%s/%s_%s/attempt_0/%d/error.json" % (self.te_dir, self.rdzv_id_short, hx(self.rng, 8), rk.local)
                tb = "\n".join(["Traceback (most recent call last):"] + ["    " + x for x in tbt.split("\n")[1:]])
                tb = tb.replace("Traceback (most recent call last):\n", "Traceback (most recent call last):\n", 1)
            else:
                ef = "<N/A>"
                tb = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
            return ("[%d]:\n  time      : %s\n  host      : %s\n  rank      : %d (local_rank: %d)\n  exitcode  : %d (pid: %d)\n  error_file: %s\n  traceback : %s" % (
                i, self.ts_childfail(node, ft), self.hosts[node], r, rk.local, code, rk.pid, ef, tb))
        sep = "============================================================"
        parts = [sep, "%s FAILED" % self.script, "------------------------------------------------------------", "Failures:"]
        if others:
            for i, f in enumerate(others, start=1):
                parts.append(block(i, f))
        else:
            parts.append("  <NO_OTHER_FAILURES>")
        parts.append("------------------------------------------------------------")
        parts.append("Root Cause (first observed failure):")
        parts.append(block(0, root))
        parts.append(sep)
        return head + "\n" + "\n".join(parts)

    def signal_exc_text(self, node, sig):
        fr, d = self.torchrun_head_frames()
        S = self.site
        fr = fr + [(S + "/torch/distributed/launcher/api.py", d - 19, "launch_agent", "result = agent.run()"),
                   (S + "/torch/distributed/elastic/metrics/api.py", 129 if self.torch < "2.4" else 123, "wrapper", "result = f(*args, **kwargs)"),
                   (S + "/torch/distributed/elastic/agent/server/api.py", 723 if self.torch < "2.3" else 696, "run", "result = self._invoke_run(role)"),
                   (S + "/torch/distributed/elastic/agent/server/api.py", 864 if self.torch < "2.3" else 855, "_invoke_run", "time.sleep(monitor_interval)"),
                   (S + "/torch/distributed/elastic/multiprocessing/api.py", 62 if self.torch < "2.3" else 84, "_terminate_process_handler", "raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)")]
        return pytb(fr, "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: %d" % (self.agent_pid[node], sig))

    # ---- c10d / nccl messages on workers
    def c10_pfx(self, r, node, t, lvl, src, line):
        """[rank3]:[E ProcessGroupNCCL.cpp:563] style prefix"""
        if self.torch == "2.0.1":
            return "[%s %s:%d]" % (lvl, src, line)
        if self.torch == "2.1.2":
            return "[%s %s:%d]" % (lvl, src, line)
        if self.torch < "2.4":
            return "[rank%d]:[%s %s:%d]" % (r, lvl, src, line)
        return "[rank%d]:[%s %s:%d]" % (r, self.ts_glog9(node, t, lvl), src, line)

    def cpp_frames(self, kind, r=0):
        S = self.site + "/torch/lib"
        rng = self.rng
        bases = {}

        def a(lib="x", off=0):
            if lib not in bases:
                br = random.Random("lib|%s|%d|%d|%s" % (self.seed, self.idx, r, lib))
                bases[lib] = br.randint(0x7f0000000000, 0x7ffff0000000) & ~0xfff
            return "0x%x" % (bases[lib] + off)
        e0 = 0x96 if self.torch >= "2.2" else 0x57
        if kind == "wd":
            fr = ["c10::Error::Error(c10::SourceLocation, std::string) + 0x%x (%s in %s/libc10.so)" % (e0, a("c10", 0x9d446 + e0), S),
                  "c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 (%s in %s/libtorch_cuda.so)" % (a("tc", 0x1060772), S),
                  "c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 (%s in %s/libtorch_cuda.so)" % (a("tc", 0x10671b3), S),
                  "c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d (%s in %s/libtorch_cuda.so)" % (a("tc", 0x1068b9d), S)]
        elif kind == "cuda":
            fr = ["c10::Error::Error(c10::SourceLocation, std::string) + 0x%x (%s in %s/libc10.so)" % (e0, a("c10", 0x9d446 + e0), S),
                  "c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64 (%s in %s/libc10.so)" % (a("c10", 0x4fa64), S),
                  "c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118 (%s in %s/libc10_cuda.so)" % (a("c10c", 0x1ee18), S),
                  "c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x56 (%s in %s/libtorch_cuda.so)" % (a("tc", 0x105e3a6), S),
                  "c10d::ProcessGroupNCCL::WorkNCCL::isCompleted() + 0xa0 (%s in %s/libtorch_cuda.so)" % (a("tc", 0x1063580), S),
                  "c10d::ProcessGroupNCCL::watchdogHandler() + 0x1da (%s in %s/libtorch_cuda.so)" % (a("tc", 0x106715a), S),
                  "c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d (%s in %s/libtorch_cuda.so)" % (a("tc", 0x1068b9d), S)]
        else:
            fr = ["c10::Error::Error(c10::SourceLocation, std::string) + 0x%x (%s in %s/libc10.so)" % (e0, a("c10", 0x9d446 + e0), S),
                  "<unknown function> + 0x%x (%s in %s/libtorch_cuda.so)" % (0x106a2f0, a("tc", 0x106a2f0), S),
                  "c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 (%s in %s/libtorch_cuda.so)" % (a("tc", 0x10671b3), S),
                  "c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d (%s in %s/libtorch_cuda.so)" % (a("tc", 0x1068b9d), S)]
        fr += ["<unknown function> + 0xdc253 (%s in /lib/x86_64-linux-gnu/libstdc++.so.6)" % a("stdc", 0xdc253),
               "<unknown function> + 0x94ac3 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % a("libc", 0x94ac3),
               "<unknown function> + 0x126850 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % a("libc", 0x126850)]
        return "\n".join("frame #%d: %s" % (i, f) for i, f in enumerate(fr)) + "\n"

    def work_str(self, c, ran_ms):
        if self.torch == "2.0.1":
            return "WorkNCCL(SeqNum=%d, OpType=%s, Timeout(ms)=%d) ran for %d milliseconds before timing out." % (c.seq, c.op, self.timeout_ms, ran_ms)
        return "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d) ran for %d milliseconds before timing out." % (
            c.seq, c.op, c.nin, c.nout, self.timeout_ms, ran_ms)

    def watchdog_text(self, r, t, c, desync=None):
        node = self.ranks[r].node
        ran = self.timeout_ms + self.rng.randint(3, 900)
        l1, l2, l3, l4, l5 = WD_LINES[self.torch]
        W = self.work_str(c, ran)
        P = lambda lvl, ln: self.c10_pfx(r, node, t, lvl, "ProcessGroupNCCL.cpp", ln)
        out = ["%s [Rank %d] Watchdog caught collective operation timeout: %s" % (P("E", l1), r, W)]
        pg = "PG 0 Rank %d" % r if self.torch < "2.4" else ("PG 0 (default_pg) Rank %d" % r if self.torch == "2.4.1" else "PG ID 0 PG GUID 0(default_pg) Rank %d" % r)
        if self.torch >= "2.3":
            last = c.seq - 1
            if self.torch >= "2.4":
                out.append("%s [%s] Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (P("E", 1664), pg, c.seq, c.seq, last))
            out.append("%s [%s] Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (P("E", 1537 if self.torch < "2.4" else 1709), pg, c.seq, c.seq, last))
        if desync:
            out.append("%s [%s] %s" % (P("E", 1580 if self.torch < "2.4" else 1750), pg, desync))
        rk_tag = "[Rank %d] " % r if self.torch >= "2.4" else ""
        out.append("%s %sSome NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % (P("E", l2), rk_tag))
        out.append("%s %sTo avoid data inconsistency, we are taking the entire process down." % (P("E", l3), rk_tag))
        msg = "[Rank %d] Watchdog caught collective operation timeout: %s" % (r, W)
        if self.torch == "2.0.1":
            out.append("terminate called after throwing an instance of 'std::runtime_error'\n  what():  %s" % msg)
            return "\n".join(out)
        if self.torch == "2.1.2":
            out.append("%s [Rank %d] NCCL watchdog thread terminated with exception: %s" % (P("E", l4), r, msg))
            out.append("Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):\n%s" % (l5, self.cpp_frames("wd", r)))
            out.append("terminate called after throwing an instance of 'std::runtime_error'\n  what():  [Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, msg))
            return "\n".join(out)
        term = "[%s] Process group watchdog thread terminated with exception: %s" % (pg, msg) if self.torch >= "2.3" else \
            "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, msg)
        out.append("%s %s" % (P("E", l4), term))
        fr = self.cpp_frames("wd", r)
        out.append("Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):\n%s" % (l5, fr))
        out.append("terminate called after throwing an instance of 'c10::DistBackendError'\n  what():  %s\nException raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):\n%s" % (term, l5, fr))
        return "\n".join(out)

    def watchdog_cuda_err_text(self, r, t, err):
        """watchdog thread of a rank whose GPU hit an async CUDA error -> SIGABRT"""
        node = self.ranks[r].node
        P = self.c10_pfx(r, node, t, "E", "ProcessGroupNCCL.cpp", 1182 if self.torch < "2.4" else 1515)
        msg = "CUDA error: %s\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1.\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n" % err
        fr = self.cpp_frames("cuda", r)
        if self.torch < "2.2":
            return "terminate called after throwing an instance of 'c10::Error'\n  what():  %s\nException raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:44 (most recent call first):\n%s" % (msg, fr)
        pg = "PG 0 Rank %d" % r if self.torch < "2.4" else "PG 0 (default_pg) Rank %d" % r
        return ("%s [%s] Process group watchdog thread terminated with exception: %s\nException raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):\n%s\n"
                "terminate called after throwing an instance of 'c10::DistBackendError'\n  what():  [%s] Process group watchdog thread terminated with exception: %s\nException raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):\n%s") % (
            P, pg, msg, fr, pg, msg, fr)

    def nccl_error_head(self, kind, detail):
        """torch.distributed.DistBackendError: NCCL error in: ... """
        src = "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp" if self.layout != "sagemaker" else "/opt/conda/conda-bld/pytorch_1708025847130/work/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp"
        ln = {"2.0.1": 1275, "2.1.2": 1331, "2.2.2": 1691, "2.3.1": 1970, "2.4.1": 2006, "2.5.1": 2027}[self.torch]
        names = {"system": ("unhandled system error", "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. "),
                 "cuda": ("unhandled cuda error", "ncclUnhandledCudaError: Call to CUDA function failed."),
                 "internal": ("internal error", "ncclInternalError: Internal check failed."),
                 "invalid": ("invalid usage", "ncclInvalidUsage: This usually reflects invalid usage of NCCL library."),
                 "remote": ("remote process exited or there was a network error", "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.")}
        a, b = names[kind]
        cls = "torch.distributed.DistBackendError" if self.torch >= "2.1" else "RuntimeError"
        hint = " (run with NCCL_DEBUG=INFO for details)" if kind != "invalid" else " (run with NCCL_DEBUG=WARN for details)"
        if self.torch == "2.0.1":
            hint = ""
        return "%s: NCCL error in: %s:%d, %s%s, NCCL version %s\n%s\nLast error:\n%s" % (cls, src, ln, a, hint, self.nccl, b, detail)

    def cuda_err(self, err, blocking_hint=True):
        s = "RuntimeError: CUDA error: %s" % err
        if blocking_hint:
            s += "\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1."
            if self.torch >= "2.1":
                s += "\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n"
        return s

    def pg_not_destroyed(self, r, t):
        if self.torch < "2.4":
            return None
        node = self.ranks[r].node
        return "%s Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only been added since PyTorch 2.4 (function operator())" % (
            self.c10_pfx(r, node, t, "W", "ProcessGroupNCCL.cpp", 1168 if self.torch == "2.4.1" else 1250))

    # ---- frames of the user script at various points
    def frames(self, where):
        wd = self.workdir
        S = self.site
        scr = "%s/%s" % (wd, self.script)
        fw = self.framework
        fr = [(scr, self.lno("mod", 300, 700), "<module>", "main()" if fw != "megatron" else "pretrain(")]
        if fw == "megatron":
            mt = "%s/Megatron-LM/megatron/training/training.py" % wd
            if where in ("init", "cuda_init"):
                fr += [(mt, 239, "pretrain", "initialize_megatron("), ("%s/Megatron-LM/megatron/training/initialize.py" % wd, 74, "initialize_megatron", "finish_mpu_init()"),
                       ("%s/Megatron-LM/megatron/training/initialize.py" % wd, 54, "finish_mpu_init", "_initialize_distributed(get_embedding_ranks, get_position_embedding_ranks)"),
                       ("%s/Megatron-LM/megatron/training/initialize.py" % wd, 276, "_initialize_distributed", "torch.cuda.set_device(device)" if where == "cuda_init" else "torch.distributed.init_process_group(")]
            elif where == "load":
                fr += [(mt, 298, "pretrain", "model, optimizer, opt_param_scheduler = setup_model_and_optimizer("),
                       (mt, 586, "setup_model_and_optimizer", "args.iteration, args.num_floating_point_operations_so_far = load_checkpoint("),
                       ("%s/Megatron-LM/megatron/training/checkpointing.py" % wd, 1094, "load_checkpoint", "state_dict, checkpoint_name, release = _load_base_checkpoint(")]
            elif where == "barrier":
                fr += [(mt, 239, "pretrain", "initialize_megatron("), ("%s/Megatron-LM/megatron/training/initialize.py" % wd, 106, "initialize_megatron", "_compile_dependencies()"),
                       ("%s/Megatron-LM/megatron/training/initialize.py" % wd, 156, "_compile_dependencies", "torch.distributed.barrier()")]
            elif where == "data":
                fr += [(mt, 360, "pretrain", "iteration, num_floating_point_operations_so_far = train("),
                       (mt, 1184, "train", "train_step(forward_step_func,"), (mt, 628, "train_step", "losses_reduced = forward_backward_func("),
                       ("%s/Megatron-LM/megatron/core/pipeline_parallel/schedules.py" % wd, 1276, "forward_backward_pipelining_without_interleaving", "output_tensor = forward_step("),
                       ("%s/Megatron-LM/megatron/core/pipeline_parallel/schedules.py" % wd, 192, "forward_step", "output_tensor, loss_func = forward_step_func(data_iterator, model)"),
                       (scr, 165, "forward_step", "tokens, labels, loss_mask, attention_mask, position_ids = get_batch("), (scr, 102, "get_batch", "batch = get_batch_on_this_tp_rank(data_iterator)")]
            else:
                fr += [(mt, 360, "pretrain", "iteration, num_floating_point_operations_so_far = train("),
                       (mt, 1184, "train", "train_step(forward_step_func,"), (mt, 628, "train_step", "losses_reduced = forward_backward_func("),
                       ("%s/Megatron-LM/megatron/core/pipeline_parallel/schedules.py" % wd, 1276, "forward_backward_pipelining_without_interleaving", "output_tensor = forward_step("),
                       ("%s/Megatron-LM/megatron/core/pipeline_parallel/schedules.py" % wd, 192, "forward_step", "output_tensor, loss_func = forward_step_func(data_iterator, model)"),
                       (scr, 171, "forward_step", "output_tensor = model(tokens, position_ids, attention_mask,")]
            return fr
        if fw == "hf":
            fr += [(scr, self.lno("main" + where, 200, 299), "main", "trainer.train()" if where not in ("init", "cuda_init", "load", "tok") else
                    {"init": "training_args = parser.parse_args_into_dataclasses()[0]", "cuda_init": "training_args = parser.parse_args_into_dataclasses()[0]",
                     "load": "model = AutoModelForCausalLM.from_pretrained(", "tok": "tokenizer = AutoTokenizer.from_pretrained("}[where])]
            if where in ("step", "data", "barrier"):
                fr += [(S + "/transformers/trainer.py", 1859 if self.torch < "2.4" else 2052, "train", "return inner_training_loop("),
                       (S + "/transformers/trainer.py", 2203 if self.torch < "2.4" else 2388, "_inner_training_loop", "tr_loss_step = self.training_step(model, inputs)" if where == "step" else "for step, inputs in enumerate(epoch_iterator):")]
                if where == "step":
                    fr += [(S + "/transformers/trainer.py", 3138 if self.torch < "2.4" else 3485, "training_step", "loss = self.compute_loss(model, inputs)"),
                           (S + "/transformers/trainer.py", 3161 if self.torch < "2.4" else 3532, "compute_loss", "outputs = model(**inputs)")]
                elif where == "data":
                    fr += [(S + "/accelerate/data_loader.py", 454, "__iter__", "current_batch = next(dataloader_iter)")]
            elif where in ("init", "cuda_init"):
                fr += [("<string>", 132, "__init__", None), (S + "/transformers/training_args.py", 1551, "__post_init__", "and (self.device.type != \"cuda\")"),
                       (S + "/transformers/training_args.py", 2027, "device", "return self._setup_devices"),
                       (S + "/transformers/utils/generic.py", 63, "__get__", "cached = self.fget(obj)"),
                       (S + "/transformers/training_args.py", 1963, "_setup_devices", "self.distributed_state = PartialState(timeout=timedelta(seconds=self.ddp_timeout))"),
                       (S + "/accelerate/state.py", 212 if where == "init" else 240, "__init__", "torch.distributed.init_process_group(backend=self.backend, **kwargs)" if where == "init" else "torch.cuda.set_device(self.device)")]
            elif where == "load":
                fr += [(S + "/transformers/models/auto/auto_factory.py", 563, "from_pretrained", "return model_class.from_pretrained("),
                       (S + "/transformers/modeling_utils.py", 3754, "from_pretrained", ") = cls._load_pretrained_model(")]
            elif where == "tok":
                fr += [(S + "/transformers/models/auto/tokenization_auto.py", 817, "from_pretrained", "config = AutoConfig.from_pretrained("),
                       (S + "/transformers/models/auto/configuration_auto.py", 928, "from_pretrained", "config_dict, unused_kwargs = PretrainedConfig.get_config_dict(pretrained_model_name_or_path, **kwargs)"),
                       (S + "/transformers/configuration_utils.py", 631, "get_config_dict", "config_dict, kwargs = cls._get_config_dict(pretrained_model_name_or_path, **kwargs)"),
                       (S + "/transformers/configuration_utils.py", 686, "_get_config_dict", "resolved_config_file = cached_file("),
                       (S + "/transformers/utils/hub.py", 385, "cached_file", "resolved_file = hf_hub_download(")]
            return fr
        # custom
        fr += [(scr, self.lno("main" + where, 380, 520), "main", {"init": "setup_distributed()", "cuda_init": "setup_distributed()", "load": "model = build_model(cfg, device)",
                                                         "barrier": "dist.barrier()", "data": "train(cfg, model, optimizer, train_loader)", "step": "train(cfg, model, optimizer, train_loader)",
                                                         "tok": "tokenizer = load_tokenizer(cfg)"}[where])]
        if where == "init":
            fr += [(scr, 61, "setup_distributed", "dist.init_process_group(backend=\"nccl\", timeout=timedelta(seconds=%d))" % (self.timeout_ms // 1000))]
        elif where == "cuda_init":
            fr += [(scr, 58, "setup_distributed", "torch.cuda.set_device(local_rank)")]
        elif where == "load":
            fr += [(scr, 131, "build_model", "state = load_sharded_state_dict(cfg.ckpt_dir)"), ("%s/llm/checkpoint.py" % wd, 47, "load_sharded_state_dict", "sd.update(load_file(path, device=\"cpu\"))")]
        elif where == "data":
            fr += [(scr, 233, "train", "for step, batch in enumerate(loader, start=start_step):"),
                   (S + "/torch/utils/data/dataloader.py", 631 if self.torch < "2.4" else 701, "__next__", "data = self._next_data()")]
        elif where == "step":
            fr += [(scr, 241, "train", "loss = model(batch[\"input_ids\"], labels=batch[\"labels\"]).loss" if self.rng.random() < 0.6 else "loss.backward()")]
        return fr

    def lno(self, key, a, b):
        if not hasattr(self, "_lno"):
            self._lno = {}
        if key not in self._lno:
            self._lno[key] = random.Random("ln|%s|%d|%s" % (self.seed, self.idx, key)).randint(a, b)
        return self._lno[key]

    def module_call_frames(self):
        S = self.site
        if self.torch >= "2.2":
            return [(S + "/torch/nn/modules/module.py", 1511 if self.torch < "2.4" else 1553, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
                    (S + "/torch/nn/modules/module.py", 1520 if self.torch < "2.4" else 1562, "_call_impl", "return forward_call(*args, **kwargs)")]
        return [(S + "/torch/nn/modules/module.py", 1501, "_call_impl", "return forward_call(*args, **kwargs)")]

    def c10d_frames(self, fn):
        S = self.site
        fr = []
        if self.torch >= "2.1":
            fr.append((S + "/torch/distributed/c10d_logger.py", 47 if self.torch < "2.3" else 75, "wrapper", "return func(*args, **kwargs)"))
        fr.append((S + "/torch/distributed/distributed_c10d.py", {"barrier": 3696, "broadcast": 1910, "all_reduce": 2050, "init_process_group": 1177}[fn] + (0 if self.torch < "2.3" else 400),
                   fn, {"barrier": "work = default_pg.barrier(opts=opts)", "broadcast": "work = default_pg.broadcast([tensor], opts)",
                        "all_reduce": "work = group.allreduce([tensor], opts)", "init_process_group": "default_pg, _ = _new_process_group_helper("}[fn]))
        return fr


# ====================================================================== engine
class Engine:
    def init_engine(self):
        rng = self.rng
        L = self.layout
        self.kill_on_bad_exit = L in ("slurm", "slurm_tasks") and rng.random() < 0.7
        self.k8s_clean = rng.choice(["Running", "Running", "None"])
        self.k8s_deleted = []
        self.agent_state = ["run"] * self.n_nodes
        self.poll_sched = [False] * self.n_nodes
        self.agent_end = [INF] * self.n_nodes
        self.node_fail_t = [None] * self.n_nodes
        self.job_failed_t = None
        self.cancelling = False
        self.ext = []
        self.rank_tb = {}
        self.pod_status = {}
        self.k8s_events = []
        self.sm_fail = None
        self.store_down_done = False
        self.srun_done_nodes = []
        self.agent_rdzv_fail = {}     # node -> (t, text) agent failed before starting workers
        self.no_workers = False
        self.exit_ok = False          # healthy completion

    def push(self, t, kind, data):
        self._cnt += 1
        heapq.heappush(self._h, (t, self._cnt, kind, data))

    def resolve(self):
        rng = self.rng
        self._h, self._cnt = [], 0
        for rk in self.ranks:
            if rk.self_exit:
                self.push(rk.self_exit[0], "exit", (rk.r, rk.self_exit[1]))
            if rk.block is not None and rk.wd:
                self.push(rk.block.enter[rk.r] + self.timeout_ms / 1000.0 + rng.uniform(0.05, 2.5), "wd", rk.r)
        for t, kind, data in self.ext:
            self.push(t, kind, data)
        guard = 0
        while self._h and guard < 100000:
            guard += 1
            t, _, kind, data = heapq.heappop(self._h)
            getattr(self, "on_" + kind)(t, data)
        # anything never ended -> user interrupt / job kill (hang without watchdog)
        alive = [rk for rk in self.ranks if rk.exit_t == INF]
        if alive and not self.healthy and self.cause not in ("straggler",) and not self.open_ended:
            last = max([e[0] for e in self.ev] + [0])
            tu = last + rng.uniform(900, 2400)
            self.user_kill(tu)
            while self._h:
                t, _, kind, data = heapq.heappop(self._h)
                getattr(self, "on_" + kind)(t, data)

    def user_kill(self, t):
        L = self.layout
        self.notes.append("job sat idle until the user cancelled it")
        if L in ("slurm", "slurm_tasks"):
            self.push(t, "extkill", ("user", None))
        elif L == "k8s_pytorchjob":
            self.push(t, "extkill", ("delete", None))
        elif L == "sagemaker":
            self.push(t, "extkill", ("stop", None))
        else:
            self.push(t, "extkill", ("ctrlc", None))

    # ---------------------------------------------------------------- handlers
    def on_exit(self, t, data):
        r, code = data
        rk = self.ranks[r]
        if rk.exit_t < INF:
            return
        rk.exit_t, rk.exit_code = t, code
        if code == 1 and t > self.colls[0].done:
            s = self.pg_not_destroyed(r, t - 0.01)
            if s and self.rng.random() < 0.8:
                self.w(r, t - 0.01, s)
        if self.layout == "slurm_tasks":
            if not self.cancelling:
                self.s(t + self.rng.uniform(0.05, 0.6), "srun: error: %s: task %d: %s" % (self.hosts[rk.node], r, task_desc(code)), rk.node, key=True)
                if self.kill_on_bad_exit and code != 0:
                    self.cancelling = True
                    self.push(t + self.rng.uniform(0.2, 1.2), "kill_tasks", None)
            if r == 0 and not self.store_down_done:
                self.push(t + 0.05, "store_down", None)
            return
        node = rk.node
        if self.agent_state[node] == "run" and not self.poll_sched[node]:
            self.poll_sched[node] = True
            lo, hi = (0.05, 1.0) if self.torch >= "2.3" else (0.3, 5.0)
            self.push(t + self.rng.uniform(lo, hi), "agent_poll", node)

    def on_wd(self, t, r):
        rk = self.ranks[r]
        if rk.exit_t <= t:
            return
        desync = self.desync.get(r) if hasattr(self, "desync") else None
        self.w(r, t, self.watchdog_text(r, t, rk.block, desync), key=True)
        self.push(t + self.rng.uniform(0.2, 1.8), "exit", (r, -6))

    def kill_local(self, node, t, sig=-15):
        """agent SIGTERMs its live workers; returns time all are gone"""
        rng = self.rng
        tend = t
        lines = []
        for rk in self.ranks:
            if rk.node != node or rk.exit_t <= t:
                continue
            lines.append(self.alog(node, t + 0.00023 * len(lines), "W", "torch.distributed.elastic.multiprocessing.api", "Sending process %d closing signal SIGTERM" % rk.pid, 897))
            if rk.hung and rng.random() < 0.5:
                te = t + 30 + rng.uniform(0, 0.5)
                rk.exit_t, rk.exit_code = te, -9
                self.a(node, te, self.alog(node, te, "W", "torch.distributed.elastic.multiprocessing.api",
                                           "Unable to shutdown process %d via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL" % rk.pid, 904))
            else:
                te = t + rng.uniform(0.01, 0.8)
                rk.exit_t, rk.exit_code = te, -15
            tend = max(tend, te)
        if lines:
            self.a(node, t, "\n".join(lines))
        return tend

    def on_agent_poll(self, t, node):
        if self.agent_state[node] != "run":
            return
        fails = sorted([rk for rk in self.ranks if rk.node == node and rk.exit_t <= t and rk.exit_code not in (0, None)],
                       key=lambda x: x.exit_t)
        if not fails:
            return
        self.agent_state[node] = "stopping"
        tend = self.kill_local(node, t)
        root = fails[0]
        te = tend + self.rng.uniform(0.05, 0.6)
        self.a(node, te, self.alog(node, te, "E", "torch.distributed.elastic.multiprocessing.api",
                                   "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (root.exit_code, root.local, root.pid, self.pybin), 869), key=True)
        self.push(te + self.rng.uniform(0.05, 0.5), "agent_exit", (node, [(rk.exit_t, rk.r, rk.exit_code) for rk in fails]))

    def on_agent_exit(self, t, data):
        node, fails = data
        self.agent_state[node] = "done"
        self.agent_end[node] = t
        flist = [(ft, r, code, self.rank_tb.get(r)) for (ft, r, code) in fails]
        self.a(node, t, self.child_failed_text(node, t, flist), key=True)
        self.after_node_failed(t, node)
        if node == 0 and not self.store_down_done:
            self.push(t + 0.1, "store_down", None)

    def after_node_failed(self, t, node, code=1):
        rng = self.rng
        L = self.layout
        self.node_fail_t[node] = t
        if L == "slurm":
            self.s(t + rng.uniform(0.1, 0.8), "srun: error: %s: task %d: Exited with exit code %d" % (self.hosts[node], node, code), node, key=True)
            if self.kill_on_bad_exit and not self.cancelling:
                self.cancelling = True
                tk = t + rng.uniform(0.3, 1.3)
                self.s(tk, "srun: launch/slurm: _step_signal: Terminating StepId=%d.0" % self.jobid if self.rng.random() < 0.6 else
                       "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
                for n2 in range(self.n_nodes):
                    if self.agent_state[n2] == "run":
                        self.s(tk + rng.uniform(0.01, 0.4), "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (self.jobid, self.hosts[n2], self.ts_iso(n2, tk)), n2)
                        self.push(tk + rng.uniform(0.02, 0.5), "kill_node", (n2, -15))
        elif L == "k8s_pytorchjob":
            self.pod_status[node] = ("Failed", "Error", code, t)
            if self.job_failed_t is None:
                tj = t + rng.uniform(0.5, 4)
                self.job_failed_t = tj
                rtype = "Master" if node == 0 else "Worker"
                self.k8s_events.append((tj, "Normal", "PyTorchJobFailed", "pytorchjob-controller",
                                        "PyTorchJob %s is failed because 1 %s replica(s) failed." % (self.kjob, rtype)))
                for n2 in range(self.n_nodes):
                    if self.agent_state[n2] == "run" and self.k8s_clean == "Running":
                        self.k8s_deleted.append(n2)
                        tk = tj + rng.uniform(0.3, 3)
                        self.k8s_events.append((tk, "Normal", "SuccessfulDeletePod", "pytorchjob-controller", "Deleted pod: %s" % self.pods[n2]))
                        self.push(tk + 0.05, "kill_node", (n2, -15))
        elif L == "sagemaker":
            if self.sm_fail is None:
                self.sm_fail = (t, node)
                for n2 in range(self.n_nodes):
                    if self.agent_state[n2] == "run":
                        self.push(t + rng.uniform(4, 35), "kill_node", (n2, -15))
            self.sm_report_failure(node, t, code)

    def on_kill_node(self, t, data):
        node, sig = data
        if self.agent_state[node] != "run":
            return
        self.agent_state[node] = "stopping"
        sname = {-15: "SIGTERM", -2: "SIGINT", -1: "SIGHUP"}[sig]
        if self.style == "v20":
            self.a(node, t, "WARNING:torch.distributed.elastic.agent.server.api:Received %d death signal, shutting down workers" % SIGNUM.get(sig, 15))
        else:
            self.a(node, t, self.alog(node, t, "W", "torch.distributed.elastic.agent.server.api", "Received Signals.%s death signal, shutting down workers" % sname, 704))
        tend = self.kill_local(node, t + 0.001)
        te = tend + self.rng.uniform(0.1, 1.2)
        self.a(node, te, self.signal_exc_text(node, SIGNUM.get(sig, 15)))
        self.agent_state[node] = "done"
        self.agent_end[node] = te
        if self.layout == "k8s_pytorchjob":
            self.pod_status.setdefault(node, ("Failed", "Error", 1 if sig != -9 else 137, te))
            if node in getattr(self, "k8s_ext", []):
                self.after_node_failed(te, node)
        if self.layout == "sagemaker" and not getattr(self, "sm_stopped", False):
            self.sm_report_failure(node, te, 1, killed=True)
        if node == 0 and not self.store_down_done:
            self.push(te + 0.1, "store_down", None)

    def on_kill_tasks(self, t, data):
        rng = self.rng
        self.s(t, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
        per_node = {}
        for rk in self.ranks:
            if rk.exit_t > t:
                te = t + rng.uniform(0.05, 0.8)
                rk.exit_t, rk.exit_code = te, -15
                per_node.setdefault(rk.node, []).append(rk.r)
        why = getattr(self, "cancel_why", "")
        for n in sorted(per_node):
            self.s(t + rng.uniform(0.01, 0.3), "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s%s ***" % (self.jobid, self.hosts[n], self.ts_iso(n, t), why), n)
        tt = t + rng.uniform(1, 3)
        for n in sorted(per_node):
            self.s(tt + 0.01 * n, "srun: error: %s: task%s %s: Terminated" % (self.hosts[n], "s" if len(per_node[n]) > 1 else "", rank_ranges(per_node[n])), n)
        if 0 in [r for v in per_node.values() for r in v] and not self.store_down_done:
            self.store_down_done = True

    def on_store_down(self, t, data):
        if self.store_down_done:
            return
        self.store_down_done = True
        if self.torch < "2.3":
            return
        rng = self.rng
        for rk in self.ranks:
            if rk.exit_t > t + 3 and rk.r not in self.no_heartbeat_ranks():
                for k in range(rng.choice([1, 1, 2])):
                    tt = t + rng.uniform(0.5, 6) + 60 * k
                    if tt >= rk.exit_t:
                        break
                    err = rng.choice(["Connection reset by peer", "Broken pipe", "Connection reset by peer"])
                    if self.torch >= "2.4":
                        err2 = "Failed to recv, got 0 bytes. Connection was likely closed. Did the remote server shutdown or crash?" if rng.random() < 0.4 else err
                    else:
                        err2 = err
                    pg = "PG 0 Rank %d" % rk.r if self.torch < "2.4" else "PG ID 0 PG GUID 0(default_pg) Rank %d" % rk.r
                    self.w(rk.r, tt, "%s [%s] Failed to check the \"should dump\" flag on TCPStore, (maybe TCPStore server has shut down too early), with error: %s" % (
                        self.c10_pfx(rk.r, rk.node, tt, "W", "ProcessGroupNCCL.cpp", 1272 if self.torch < "2.4" else 1662), pg, err2))

    def no_heartbeat_ranks(self):
        return []

    def on_extkill(self, t, data):
        kind, extra = data
        rng = self.rng
        L = self.layout
        self.cancelling = True
        if L in ("slurm", "slurm_tasks"):
            why = {"preempt": " DUE TO PREEMPTION", "timelimit": " DUE TO TIME LIMIT", "user": ""}[kind]
            self.cancel_why = why
            self.s(t, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s%s ***" % (self.jobid, self.hosts[0], self.ts_iso(0, t), why), 0, key=True)
            if L == "slurm":
                for n in range(self.n_nodes):
                    self.s(t + rng.uniform(0.0, 0.3), "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s%s ***" % (self.jobid, self.hosts[n], self.ts_iso(n, t), why), n, key=True)
            if L == "slurm":
                for n in range(self.n_nodes):
                    self.push(t + rng.uniform(0.02, 0.4), "kill_node", (n, -15))
            else:
                self.cancelling = False
                self.push(t + 0.05, "kill_tasks", None)
                self.cancelling = True
        elif L == "k8s_pytorchjob":
            self.k8s_ext = getattr(self, "k8s_ext", [])
            for n in range(self.n_nodes):
                if extra is None or n in extra:
                    if extra is not None:
                        self.k8s_ext.append(n)
                    self.push(t + rng.uniform(0.0, 2.0), "kill_node", (n, -15))
        elif L == "sagemaker":
            self.sm_stopped = True
            for n in range(self.n_nodes):
                self.push(t + rng.uniform(0.0, 3.0), "kill_node", (n, -15))
        else:
            for n in range(self.n_nodes):
                if extra is None or n in extra:
                    self.push(t + rng.uniform(0.0, 2.0), "kill_node", (n, -2 if kind == "ctrlc" else -15))


def task_desc(code):
    return {1: "Exited with exit code 1", -6: "Aborted", -11: "Segmentation fault", -7: "Bus error",
            -9: "Killed", -15: "Terminated", 2: "Exited with exit code 2"}.get(code, "Exited with exit code %d" % code)


# ====================================================================== node-side artifacts
class Artifacts:
    def uuid(self, node, local):
        rng = random.Random("uuid|%s|%d|%d|%d" % (self.seed, self.idx, node, local))
        return "GPU-%s-%s-%s-%s-%s" % (hx(rng, 8), hx(rng, 4), hx(rng, 4), hx(rng, 4), hx(rng, 12))

    def serial(self, node, local):
        rng = random.Random("ser|%s|%d|%d|%d" % (self.seed, self.idx, node, local))
        return "%d" % rng.randint(1320000000000, 1659999999999)

    def nvsmi_table(self, node, t, bad=None, lost=None, procs=None, temps=None, clocks_note=False):
        rng = self.rng
        d = self.wall(node, t)
        cudav = {"535": "12.2", "550": "12.4", "560": "12.6"}[self.driver[:3]]
        out = [d.strftime("%a %b %d %H:%M:%S %Y") + "       "]
        if lost is not None:
            out.insert(0, "Unable to determine the device handle for GPU0000:%s:00.0: Unknown Error" % self.bus[lost].upper())
        out.append("+---------------------------------------------------------------------------------------+")
        out.append("| NVIDIA-SMI %-22s Driver Version: %-12s CUDA Version: %-8s|" % (self.driver, self.driver, cudav))
        out.append("|-----------------------------------------+----------------------+----------------------+")
        out.append("| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |")
        out.append("| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |")
        out.append("|                                         |                      |               MIG M. |")
        out.append("|=========================================+======================+======================|")
        name = "NVIDIA H100 80GB HBM3" if self.h100 else "NVIDIA A100-SXM4-80GB"
        tot = 81559 if self.h100 else 81920
        cap = 700 if self.h100 else 400
        for l in range(self.gpn):
            if l == lost:
                continue
            busid = "00000000:%s:00.0" % self.bus[l].upper()
            used = 0
            if procs:
                used = sum(p[2] for p in procs if p[0] == l)
            if l == bad:
                out.append("| %3d  %-26s  On  | %s Off |                 ERR! |" % (l, name, busid))
                out.append("| N/A   ERR!  P0            ERR! / %4dW |  %6dMiB / %5dMiB |    ERR!      Default |" % (cap, used, tot))
            else:
                tmp = (temps or {}).get(l, rng.randint(28, 41))
                out.append("| %3d  %-26s  On  | %s Off |                    0 |" % (l, name, busid))
                out.append("| N/A   %2dC    P0            %3dW / %4dW |  %6dMiB / %5dMiB |  %5d%%      Default |" % (
                    tmp, rng.randint(60, 95) if not used else rng.randint(110, 300), cap, used + (4 if not used else 0), tot, 0 if not used else rng.randint(0, 100)))
            out.append("|                                         |                      |             Disabled |")
            out.append("+-----------------------------------------+----------------------+----------------------+")
        out.append("")
        out.append("+---------------------------------------------------------------------------------------+")
        out.append("| Processes:                                                                            |")
        out.append("|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |")
        out.append("|        ID   ID                                                             Usage      |")
        out.append("|=======================================================================================|")
        if procs:
            for (l, pid, mib, pname) in procs:
                out.append("|  %3d   N/A  N/A  %8d      C   %-38s %7dMiB |" % (l, pid, pname[:38], mib))
        else:
            out.append("|  No running processes found                                                           |")
        out.append("+---------------------------------------------------------------------------------------+")
        return "\n".join(out) + "\n"

    def hpid(self, rk):
        return rk.pid + self.pid_off[rk.node]

    def kline(self, node, t, text):
        up = self.boot[node] + t
        if self.kernel_fmt == "raw":
            return "[%12.6f] %s" % (up, text)
        d = self.wall(node, t)
        if self.kernel_fmt == "T":
            return "[%s] %s" % (d.strftime("%a %b %d %H:%M:%S %Y"), text)
        return "%s %s kernel: %s" % (d.strftime("%b %d %H:%M:%S"), self.kern_host(node), text)

    def kern_host(self, node):
        if self.layout == "k8s_pytorchjob":
            return self.k8snodes[node]
        return self.hosts[node]

    def kernel_noise(self, node, t0, t1, n):
        for _ in range(n):
            self.kmsg(node, self.rng.uniform(t0, t1), self.kernel_noise_line())

    def kernel_noise_line(self):
        rng = self.rng
        pool = ["IPv6: ADDRCONF(NETDEV_CHANGE): veth%s: link becomes ready" % hx(rng, 7),
                "docker0: port %d(veth%s) entered forwarding state" % (rng.randint(1, 9), hx(rng, 7)),
                "eth0: renamed from veth%s" % hx(rng, 7),
                "nvidia-nvswitch%d: open (major=%d)" % (rng.randint(0, 3), 508),
                "audit: type=1400 audit(%d.%03d:%d): apparmor=\"STATUS\" operation=\"profile_replace\" profile=\"unconfined\" name=\"cri-containerd.apparmor.d\" pid=%d comm=\"apparmor_parser\"" % (
                    1700000000 + rng.randint(0, 9999999), rng.randint(0, 999), rng.randint(100, 999), rng.randint(1000, 99999)),
                "NFSD: Using UMH upcall client tracking operations.",
                "mlx5_core 0000:%s:00.0: mlx5_fw_tracer_handle_traces:741:(pid %d): FWTracer: Events were lost" % (rng.choice(IB_BUS), rng.randint(100, 9999)),
                "systemd-journald[%d]: Data hash table of /var/log/journal/%s/system.journal has a fill level at 75.0 (8535 of 11377 items, 6553600 file size, 767 bytes per hash table item), suggesting rotation." % (rng.randint(400, 900), hx(rng, 32)),
                "overlayfs: upperdir is in-use as upperdir/workdir of another mount, accessing files from both mounts will result in undefined behavior.",
                "perf: interrupt took too long (%d > %d), lowering kernel.perf_event_max_sample_rate to %d" % (rng.randint(2500, 9000), rng.randint(2400, 2500), rng.choice([79750, 63750, 50000])),
                "IPv6: ADDRCONF(NETDEV_UP): cali%s: link is not ready" % hx(rng, 11),
                "nvidia_uvm: module uses symbols from proprietary module nvidia, inheriting taint."]
        return rng.choice(pool)

    def xid(self, node, local, code, pid, msg, name="python"):
        if pid is None:
            return "NVRM: Xid (PCI:%s): %d, %s" % (self.pci(local), code, msg)
        if self.driver >= "550":
            return "NVRM: Xid (PCI:%s): %d, pid=%s, name=%s, %s" % (self.pci(local), code, pid, name, msg)
        return "NVRM: Xid (PCI:%s): %d, pid=%s, %s" % (self.pci(local), code, pid, msg)

    def gpu_ident(self, node, local):
        return ["NVRM: GPU at PCI:%s: %s" % (self.pci(local), self.uuid(node, local)),
                "NVRM: GPU Board Serial Number: %s" % self.serial(node, local)]

    def want_kernel(self, node):
        self.kernel_nodes = getattr(self, "kernel_nodes", [])
        if node not in self.kernel_nodes:
            self.kernel_nodes.append(node)


# ====================================================================== scenarios
class Scen:
    # ---------------------------------------------------------------- helpers
    def pick_node(self, not0=False):
        lo = 1 if (not0 and self.n_nodes > 1) else 0
        return self.rng.randint(lo, self.n_nodes - 1)

    def rk(self, node, local):
        return node * self.gpn + local

    def coll_after(self, r, tf):
        for c in self.colls:
            if c.enter.get(r, INF) >= tf:
                return c
        return None

    def die(self, r, t, text=None, code=1, delay=(0.2, 2.0)):
        rk = self.ranks[r]
        rk.stop_t = min(rk.stop_t, t)
        if text:
            self.w(r, t, text, key=True)
            if code == 1 and text.startswith("Traceback"):
                self.rank_tb[r] = text
        rk.self_exit = (t + self.rng.uniform(*delay), code)

    def hang(self, r, t, wd=False, c=None):
        rk = self.ranks[r]
        rk.stop_t = min(rk.stop_t, t)
        rk.hung = True
        if wd and c is not None:
            rk.block, rk.wd = c, True

    def block_others(self, missing_r, tf, exclude=()):
        """every rank not already stopped blocks in the first collective missing_r never reaches"""
        c = self.coll_after(missing_r, tf)
        if c is None:
            return None
        if c.seq == 1:
            self.block_init(c, exclude)
            return c
        for rk in self.ranks:
            if rk.r in exclude or rk.r == missing_r or rk.stop_t < INF:
                continue
            rk.block = c
            rk.stop_t = c.enter[rk.r] + 0.0005
        return c

    def block_init(self, c, exclude=()):
        """a rank never reached NCCL communicator init: v2.0 store barrier times out, newer ones hang"""
        rng = self.rng
        present = [rk for rk in self.ranks if rk.r not in exclude and rk.stop_t == INF]
        missing = self.world - len(present)
        for rk in present:
            ti = self.T["init"][rk.r]
            rk.stop_t = c.enter[rk.r] + 0.0005 if self.style != "v20" else ti + 0.0005
            rk.hung = False
            rk.wd = False
            rk.block = None
            if self.style == "v20":
                self.w(rk.r, ti, "INFO:torch.distributed.distributed_c10d:Added key: store_based_barrier_key:1 to store for rank: %d" % rk.r)
                to = self.timeout_ms // 1000
                for k in (10, 20):
                    self.w(rk.r, ti + k, "INFO:torch.distributed.distributed_c10d:Waiting in store based barrier to initialize process group for rank: %d, key: store_based_barrier_key:1 (world_size=%d, worker_count=%d, timeout=%s)" % (
                        rk.r, self.world, len(present), str(dt.timedelta(seconds=to))))
                tb = pytb(self.frames("init") + [(self.site + "/torch/distributed/distributed_c10d.py", 932, "init_process_group", "_store_based_barrier(rank, store, timeout)"),
                                                 (self.site + "/torch/distributed/distributed_c10d.py", 469, "_store_based_barrier", "raise RuntimeError(")],
                          "RuntimeError: Timed out initializing process group in store based barrier on rank: %d, for key: store_based_barrier_key:1 (world_size=%d, worker_count=%d, timeout=%s)" % (
                              rk.r, self.world, len(present), str(dt.timedelta(seconds=to))))
                te = ti + to + rng.uniform(0.1, 1.5)
                self.w(rk.r, te, tb, key=True)
                self.rank_tb[rk.r] = tb
                rk.self_exit = (te + rng.uniform(0.1, 1), 1)
            else:
                rk.hung = True

    def wd_cuda_abort(self, r, t, err):
        """python exception then watchdog abort race: returns exit code"""
        if self.rng.random() < 0.55:
            self.w(r, t + 0.05, self.watchdog_cuda_err_text(r, t + 0.05, err), key=True)
            return -6
        return 1

    def set_init(self, rank=None, node=None):
        self.initiator = {"rank": rank, "node": (self.hosts[node] if node is not None else None)}

    def step_coll(self, k):
        self.plan_steps()
        return self.step_colls[k - 1]

    def add_file(self, name, text):
        self.files[name] = text

    def nvsmi_name(self, node):
        if self.layout == "k8s_pytorchjob":
            return "node_%s_nvidia-smi.txt" % self.k8snodes[node]
        return "nvidia-smi_%s.txt" % self.hosts[node]

    def tb_step(self, r, tail, exc, extra_frames=None):
        fr = self.frames("step")
        if self.framework != "megatron" and self.rng.random() < 0.7:
            fr += self.module_call_frames()
        fr += extra_frames or []
        fr += tail
        return pytb(fr, exc)

    # ================================================================ gpu_hardware
    def sc_gh_xid79(self):
        rng = self.rng
        N = self.pick_node()
        L = rng.randrange(self.gpn)
        r = self.rk(N, L)
        rk = self.ranks[r]
        phase = rng.choice(["load", "step"])
        if phase == "load":
            tf = self.T["load_start"][r] + (self.T["load_end"][r] - self.T["load_start"][r]) * rng.uniform(0.3, 0.95)
            err = "unknown error"
        else:
            c = self.step_coll(rng.choice([1, 1, 2, 3]))
            tf = c.enter[r] - self.step_time * rng.uniform(0.2, 0.8)
            err = "unspecified launch failure"
        self.want_kernel(N)
        self.kmsg(N, tf, self.xid(N, L, 79, self.hpid(rk), "GPU has fallen off the bus."))
        self.kmsg(N, tf + 0.0001, "NVRM: GPU %s.0: GPU has fallen off the bus." % self.pci(L))
        for x in self.gpu_ident(N, L):
            self.kmsg(N, tf + 0.0002, x)
        self.kmsg(N, tf + 0.0003, "NVRM: A GPU crash dump has been created. If possible, please run\nNVRM: nvidia-bug-report.sh as root to collect this data before\nNVRM: the NVIDIA kernel module is unloaded.")
        errors = rng.random() < 0.6 or not self.nccl_debug
        if errors:
            if phase == "load":
                tb = pytb(self.frames("load") + [(self.site + "/torch/nn/modules/module.py", 1160, "to", "return self._apply(convert)"),
                                                 (self.site + "/torch/nn/modules/module.py", 833, "_apply", "param_applied = fn(param)"),
                                                 (self.site + "/torch/nn/modules/module.py", 1158, "convert", "return t.to(device, dtype if t.is_floating_point() or t.is_complex() else None, non_blocking)")],
                          self.cuda_err(err))
            else:
                tb = self.tb_step(r, [], self.cuda_err(err))
            self.die(r, tf + rng.uniform(0.5, 3), tb, code=1)
            if phase == "step" and rng.random() < 0.6:
                self.w(r, tf + 0.3, self.watchdog_cuda_err_text(r, tf + 0.3, err), key=True)
                self.ranks[r].self_exit = (tf + rng.uniform(0.35, 0.6), -6)
            self.set_init(r, N)
        else:
            c = self.coll_after(r, tf)
            self.hang(r, tf, wd=(phase == "step"), c=c)
            self.set_init(r, N)
        self.block_others(r, tf)
        if self.layout != "sagemaker":
            self.add_file(self.nvsmi_name(N), "$ nvidia-smi\n" + self.nvsmi_table(N, tf + rng.uniform(1800, 7200), lost=L))
        else:
            self.sm_secondary.append(("Training", "Repairing training cluster due to hardware failure"))
        self.notes.append("GPU %d (PCI %s) on %s fell off the bus (Xid 79) during %s; rank %d %s" % (
            L, self.pci(L), self.hosts[N], "model load" if phase == "load" else "the first steps", r, "raised a CUDA error" if errors else "hung"))

    def sc_gh_reset(self):
        rng = self.rng
        N = self.pick_node()
        L = rng.randrange(self.gpn)
        r = self.rk(N, L)
        rk = self.ranks[r]
        self.want_kernel(N)
        tprev = -rng.uniform(3600 * 3, 3600 * 40)
        oldpid = rng.randint(2000, 400000)
        kind = rng.choice(["79", "95", "119"])
        if kind == "79":
            self.kmsg(N, tprev, self.xid(N, L, 79, oldpid, "GPU has fallen off the bus."))
            self.kmsg(N, tprev + 0.001, "NVRM: GPU %s.0: GPU has fallen off the bus." % self.pci(L))
        elif kind == "95":
            self.kmsg(N, tprev, self.xid(N, L, 95, oldpid, "Uncontained: FBHUB. RST: Yes, D-RST: No"))
        else:
            for k in range(3):
                self.kmsg(N, tprev + 6 * k, self.xid(N, L, 119, oldpid, "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a4c 0x4)." % L, name="nv-hostengine"))
        for x in self.gpu_ident(N, L):
            self.kmsg(N, tprev + 20, x)
        if self.driver >= "550" and rng.random() < 0.6:
            self.kmsg(N, tprev + 21, "NVRM: Xid (PCI:%s): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)" % self.pci(L))
        tf = self.T["imp"][r] + rng.uniform(0.2, 1.5)
        err = rng.choice(["CUDA-capable device(s) is/are busy or unavailable", "unknown error"])
        tb = pytb(self.frames("cuda_init") + [(self.site + "/torch/cuda/__init__.py", 404 if self.torch < "2.4" else 478, "set_device", "torch._C._cuda_setDevice(device)")],
                  self.cuda_err(err))
        self.die(r, tf, tb, code=1)
        self.block_others(r, tf)
        self.set_init(r, N)
        self.add_file(self.nvsmi_name(N), "$ nvidia-smi\n" + self.nvsmi_table(N, tf + rng.uniform(600, 5400), bad=L))
        self.notes.append("GPU %d on %s was already in a bad state (earlier Xid %s, reset required) before the job started; rank %d failed at CUDA init" % (L, self.hosts[N], kind, r))

    def sc_gh_gsp(self):
        rng = self.rng
        N = self.pick_node()
        L = rng.randrange(self.gpn)
        r = self.rk(N, L)
        rk = self.ranks[r]
        c1 = self.colls[0]
        tf = c1.enter[r] + rng.uniform(0.5, 3)
        self.want_kernel(N)
        for k in range(rng.randint(2, 4)):
            self.kmsg(N, tf + 6 * k, self.xid(N, L, 119, self.hpid(rk), "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x%s 0x%x)." % (L, rng.choice(["20800a4c", "2080014b", "20802a02"]), rng.choice([4, 5, 8, 0x608]))))
        self.kmsg(N, tf + 30, "NVRM: Rate limiting GSP RPC error prints for GPU at PCI:%s (printing 1 of every 30).  The GPU likely needs to be reset." % self.pci(L))
        for x in self.gpu_ident(N, L):
            self.kmsg(N, tf + 0.001, x)
        P = self.nccl_pfx(r, tid=True)
        cf = "Cuda failure 999 'unknown error'" if self.nccl >= "2.19" else "Cuda failure 'unknown error'"
        self.w(r, tf + 31, "\n%s NCCL WARN %s\n%s NCCL INFO init.cc:%d -> 1\n%s NCCL INFO init.cc:%d -> 1" % (P, cf, P, rng.randint(380, 1400), P, rng.randint(1400, 1800)), key=True)
        tb = pytb(self.frames("barrier") + self.c10d_frames("barrier"), self.nccl_error_head("cuda", cf))
        self.die(r, tf + 31.5, tb, code=1)
        self.block_init(c1, exclude=(r,)) if self.style != "v20" else self.block_others(r, c1.enter[r] + 0.01)
        self.set_init(r, N)
        self.notes.append("GSP firmware RPC timeouts (Xid 119) on GPU %d of %s during NCCL init; rank %d's communicator init failed with a CUDA error" % (L, self.hosts[N], r))

    # ================================================================ ecc_memory
    def sc_ecc_pending(self):
        rng = self.rng
        N = self.pick_node()
        L = rng.randrange(self.gpn)
        r = self.rk(N, L)
        rk = self.ranks[r]
        self.want_kernel(N)
        tprev = -rng.uniform(3600, 3600 * 30)
        addr = "0x%010x" % rng.randint(0x100000000, 0xfffffffff)
        self.kmsg(N, tprev, self.xid(N, L, 48, "'<unknown>'", "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at physAddr %s partition %d, subpartition %d." % (addr, rng.randint(0, 15), rng.randint(0, 3)), name="<unknown>"))
        self.kmsg(N, tprev + 0.02, self.xid(N, L, 63, "'<unknown>'", "Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % int(addr, 16), name="<unknown>"))
        c = self.step_coll(1)
        tf = c.enter[r] - self.step_time * rng.uniform(0.3, 0.9) - self.first_step_extra * rng.uniform(0, 0.5)
        addr2 = "0x%010x" % rng.randint(0x100000000, 0xfffffffff)
        self.kmsg(N, tf, self.xid(N, L, 48, self.hpid(rk), "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at physAddr %s partition %d, subpartition %d." % (addr2, rng.randint(0, 15), rng.randint(0, 3))))
        if rng.random() < 0.5:
            self.kmsg(N, tf + 0.02, self.xid(N, L, 94, self.hpid(rk), "Contained: SM (0x1). RST: No, D-RST: No"))
        else:
            self.kmsg(N, tf + 0.02, self.xid(N, L, 63, self.hpid(rk), "Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % int(addr2, 16)))
        err = "uncorrectable ECC error encountered"
        tb = self.tb_step(r, [], self.cuda_err(err))
        self.die(r, tf + rng.uniform(0.1, 1.0), tb)
        if rng.random() < 0.6:
            self.w(r, tf + 0.2, self.watchdog_cuda_err_text(r, tf + 0.2, err), key=True)
            rk.self_exit = (tf + 0.3, -6)
        self.block_others(r, tf)
        self.set_init(r, N)
        q = ["$ nvidia-smi -q -d ROW_REMAPPER -i %d" % L, "", "==============NVSMI LOG==============", "",
             "Timestamp                                 : %s" % self.wall(N, tf + 3600).strftime("%a %b %d %H:%M:%S %Y"),
             "Driver Version                            : %s" % self.driver, "CUDA Version                              : %s" % {"535": "12.2", "550": "12.4", "560": "12.6"}[self.driver[:3]], "",
             "Attached GPUs                             : %d" % self.gpn, "GPU 00000000:%s:00.0" % self.bus[L].upper(),
             "    Remapped Rows", "        Correctable Error                 : 0", "        Uncorrectable Error               : %d" % rng.randint(1, 3),
             "        Pending                           : Yes", "        Remapping Failure Occurred        : No", "        Bank Remap Availability Histogram",
             "            Max                           : %d bank(s)" % rng.choice([639, 2559]), "            High                          : 1 bank(s)",
             "            Partial                       : 0 bank(s)", "            Low                           : 0 bank(s)", "            None                          : 0 bank(s)", ""]
        if self.layout != "sagemaker":
            self.add_file("nvidia-smi-q_%s_gpu%d.txt" % (self.kern_host(N), L), "\n".join(q))
        self.notes.append("GPU %d on %s had a pending row remap (uncorrectable ECC from an earlier job, GPU never reset); rank %d hit 'uncorrectable ECC error encountered' at step 1" % (L, self.hosts[N], r))

    def sc_ecc_load(self):
        rng = self.rng
        N = self.pick_node()
        L = rng.randrange(self.gpn)
        r = self.rk(N, L)
        rk = self.ranks[r]
        tf = self.T["load_start"][r] + (self.T["load_end"][r] - self.T["load_start"][r]) * rng.uniform(0.5, 0.98)
        self.want_kernel(N)
        addr = "0x%010x" % rng.randint(0x100000000, 0xfffffffff)
        self.kmsg(N, tf, self.xid(N, L, 48, self.hpid(rk), "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at physAddr %s partition %d, subpartition %d." % (addr, rng.randint(0, 15), rng.randint(0, 3))))
        self.kmsg(N, tf + 0.01, self.xid(N, L, 63, self.hpid(rk), "Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % int(addr, 16)))
        for x in self.gpu_ident(N, L):
            self.kmsg(N, tf + 0.012, x)
        tb = pytb(self.frames("load") + [(self.site + "/torch/nn/modules/module.py", 1160 if self.torch < "2.4" else 1174, "to", "return self._apply(convert)"),
                                         (self.site + "/torch/nn/modules/module.py", 810, "_apply", "module._apply(fn)"),
                                         (self.site + "/torch/nn/modules/module.py", 833, "_apply", "param_applied = fn(param)"),
                                         (self.site + "/torch/nn/modules/module.py", 1158, "convert", "return t.to(device, dtype if t.is_floating_point() or t.is_complex() else None, non_blocking)")],
                  self.cuda_err("uncorrectable ECC error encountered"))
        self.die(r, tf + rng.uniform(0.05, 0.5), tb)
        self.block_others(r, tf)
        self.set_init(r, N)
        if self.layout != "sagemaker":
            q = ["$ nvidia-smi -q -d ECC -i %d | sed -n '/ECC Errors/,/Aggregate/p'" % L, "    ECC Errors", "        Volatile",
                 "            SRAM Correctable              : 0", "            SRAM Uncorrectable Parity     : 0", "            SRAM Uncorrectable SEC-DED    : 0",
                 "            DRAM Correctable              : %d" % rng.randint(0, 4), "            DRAM Uncorrectable            : %d" % rng.randint(1, 2), "        Aggregate", ""]
            self.add_file("ecc_%s.txt" % self.kern_host(N), "\n".join(q))
        self.notes.append("double-bit ECC error (Xid 48) on GPU %d of %s while rank %d copied weights to the GPU" % (L, self.hosts[N], r))

    # ================================================================ nvlink
    def sc_nv_fm(self):
        rng = self.rng
        N = self.pick_node()
        self.want_kernel(N)
        fmv = self.driver[:4] + rng.choice(["161.08", "129.03", "104.05", "54.14"])
        tboot = -rng.uniform(600, 7200)
        self.syslog_extra = getattr(self, "syslog_extra", {})
        self.syslog_extra.setdefault(N, []).extend([
            (tboot, "systemd[1]: Starting NVIDIA fabric manager service..."),
            (tboot + 0.4, "nv-fabricmanager[%d]: fabric manager NVIDIA GPU driver interface version %s don't match with driver version %s. Please update with matching NVIDIA driver package." % (rng.randint(1500, 4000), fmv, self.driver)),
            (tboot + 0.5, "systemd[1]: nvidia-fabricmanager.service: Control process exited, code=exited, status=1/FAILURE"),
            (tboot + 0.5, "systemd[1]: nvidia-fabricmanager.service: Failed with result 'exit-code'."),
            (tboot + 0.5, "systemd[1]: Failed to start NVIDIA fabric manager service.")])
        w = "%s/torch/cuda/__init__.py:%d: UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 802: system not yet initialized (Triggered internally at ../c10/cuda/CUDAFunctions.cpp:108.)\n  return torch._C._cuda_getDeviceCount() > 0" % (self.site, 128 if self.torch < "2.4" else 129)
        first = None
        for l in range(self.gpn):
            r = self.rk(N, l)
            tf = self.T["imp"][r] + rng.uniform(0.1, 1.0)
            self.w(r, tf - 0.3, w)
            tb = pytb(self.frames("cuda_init") + [(self.site + "/torch/cuda/__init__.py", 404 if self.torch < "2.4" else 478, "set_device", "torch._C._cuda_setDevice(device)"),
                                                  (self.site + "/torch/cuda/__init__.py", 302 if self.torch < "2.4" else 319, "_lazy_init", "torch._C._cuda_init()")],
                      "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 802: system not yet initialized")
            self.die(r, tf, tb)
            if first is None or tf < first[0]:
                first = (tf, r)
        self.block_others(first[1], first[0], exclude=[self.rk(N, l) for l in range(self.gpn)])
        self.set_init(None, N)
        self.notes.append("nvidia-fabricmanager failed to start on %s (version mismatch after a driver update); every CUDA init on that node returned 802 'system not yet initialized'" % self.hosts[N])

    def sc_nv_xid74(self):
        rng = self.rng
        N = self.pick_node()
        L = rng.randrange(self.gpn)
        r = self.rk(N, L)
        rk = self.ranks[r]
        k = rng.choice([1, 1, 2])
        c = self.step_coll(k) if rng.random() < 0.7 else self.colls[1]
        tf = c.enter[r] + rng.uniform(0.05, 0.5)
        self.want_kernel(N)
        link = rng.randint(0, 17 if self.h100 else 11)
        self.kmsg(N, tf, self.xid(N, L, 74, self.hpid(rk), "NVLink: fatal error detected on link %d(0x0, 0x0, 0x%x, 0x0, 0x0, 0x0, 0x0)" % (link, rng.choice([0x10000, 0x20000, 0x100000]))))
        for x in self.gpu_ident(N, L):
            self.kmsg(N, tf + 0.001, x)
        if rng.random() < 0.5:
            self.kmsg(N, tf + 0.002, "nvidia-nvswitch%d: SXid (PCI:0000:%s:00.0): 20034, Fatal, Link %d LTSSM Fault Up" % (rng.randint(0, 3), rng.choice(["c5", "c6", "c7", "c8", "86", "87"]), rng.randint(0, 63)))
            self.kmsg(N, tf + 0.003, "nvidia-nvswitch%d: SXid (PCI:0000:%s:00.0): 20034, Severity 1 Engine instance %d Sub-engine instance 00" % (rng.randint(0, 3), rng.choice(["c5", "c6", "c7", "c8"]), rng.randint(0, 63)))
        err = "uncorrectable NVLink error detected during the execution"
        self.w(r, tf + 0.4, self.watchdog_cuda_err_text(r, tf + 0.4, err), key=True)
        self.die(r, tf + 0.4, None, code=-6, delay=(0.05, 0.3))
        # a peer on the same node sharing the NVLink may also fail a bit later
        if rng.random() < 0.4:
            l2 = (L + 1) % self.gpn
            r2 = self.rk(N, l2)
            self.w(r2, tf + 1.2, self.watchdog_cuda_err_text(r2, tf + 1.2, err), key=True)
            self.die(r2, tf + 1.2, None, code=-6, delay=(0.05, 0.3))
        self.block_others(r, tf)
        self.set_init(r, N)
        if self.layout != "sagemaker":
            lines = ["$ nvidia-smi nvlink -s -i %d" % L, "GPU %d: %s (UUID: %s)" % (L, self.gpu_name, self.uuid(N, L))]
            for i in range(18 if self.h100 else 12):
                lines.append("\t Link %d: %s" % (i, "<inactive>" if i == link else ("26.562 GB/s" if self.h100 else "25 GB/s")))
            self.add_file("nvlink_%s.txt" % self.kern_host(N), "\n".join(lines) + "\n")
        self.notes.append("fatal NVLink error (Xid 74, link %d) on GPU %d of %s; rank %d aborted with 'uncorrectable NVLink error'" % (link, L, self.hosts[N], r))

    # ================================================================ network
    def ib_dev(self, L):
        return "mlx5_%d" % (L if self.gpn == 8 else L * 2)

    def sc_net_ib(self):
        rng = self.rng
        N = self.pick_node()
        L = rng.randrange(self.gpn)
        ibb = IB_BUS[L]
        c = self.step_coll(1) if rng.random() < 0.6 else self.colls[1]
        tdown = min(c.enter.values()) - rng.uniform(5, 60)
        self.want_kernel(N)
        if self.net == "IB":
            self.kmsg(N, tdown, "mlx5_core 0000:%s:00.0: Port module event: module %d, Cable unplugged" % (ibb, L) if rng.random() < 0.5 else
                      "mlx5_core 0000:%s:00.0: mlx5_port_module_event:1157:(pid 0): Port module event[error]: module %d, Cable error, Bus stuck (I2C or data shorted)" % (ibb, L))
            self.kmsg(N, tdown + 0.01, "mlx5_core 0000:%s:00.0 ibp%ss0: Link down" % (ibb, int(ibb, 16)))
        else:
            self.kmsg(N, tdown, "mlx5_core 0000:%s:00.0 ens%df%dnp0: Link down" % (ibb, rng.randint(1, 9), 0))
        # ranks using that NIC / ring neighbours report IB errors
        victims = [self.rk(N, l) for l in range(self.gpn)]
        for n2 in range(self.n_nodes):
            if n2 != N:
                victims += [self.rk(n2, l) for l in rng.sample(range(self.gpn), rng.randint(1, max(1, self.gpn // 2)))]
        port = rng.randint(32768, 60999)
        first = None
        for r in victims:
            rk = self.ranks[r]
            te = c.enter[r] + rng.uniform(18, 80)
            peer = self.ips[N] if rk.node != N else self.ips[(N + 1) % self.n_nodes]
            P = self.nccl_pfx(r, tid=True)
            if self.nccl >= "2.19":
                wl = "NET/IB : Got completion from peer %s<%d> with status=12 opcode=%d len=0 vendor err 129 (%s) localGid ::ffff:%s remoteGids::ffff:%s" % (
                    peer, port + rng.randint(0, 99), rng.choice([0, 1]), rng.choice(["Send", "Recv"]), self.ips[rk.node], peer)
            else:
                wl = "NET/IB : Got completion from peer %s<%d> with error 12, opcode %d, len 0, vendor err 129" % (peer, port + rng.randint(0, 99), rng.choice([0, 1]))
            txt = "\n%s NCCL WARN %s\n%s NCCL INFO transport/net.cc:%d -> 6\n%s NCCL INFO proxy.cc:%d -> 6" % (P, wl, P, rng.choice([1134, 1295, 1338]), P, rng.choice([828, 1150, 1543]))
            self.w(r, te - 0.5, txt, key=(rk.node == N))
            kind = "remote" if self.nccl >= "2.14" else "system"
            err = self.nccl_error_head(kind, wl).split(": ", 1)[1]
            node_ = rk.node
            pg = "PG 0 Rank %d" % r if self.torch < "2.4" else "PG 0 (default_pg) Rank %d" % r
            if self.torch >= "2.2":
                head = "%s [%s] Process group watchdog thread terminated with exception: %s" % (self.c10_pfx(r, node_, te, "E", "ProcessGroupNCCL.cpp", 1414 if self.torch < "2.4" else 1515), pg, err)
                self.w(r, te, head + "\nException raised from checkForNCCLErrorsInternal at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1723 (most recent call first):\n" + self.cpp_frames("x", r) +
                       "\nterminate called after throwing an instance of 'c10::DistBackendError'\n  what():  [%s] Process group watchdog thread terminated with exception: %s" % (pg, err), key=True)
            else:
                self.w(r, te, "%s [Rank %d] NCCL watchdog thread terminated with exception: %s\nterminate called after throwing an instance of 'std::runtime_error'\n  what():  [Rank %d] NCCL watchdog thread terminated with exception: %s" % (
                    self.c10_pfx(r, node_, te, "E", "ProcessGroupNCCL.cpp", 916), r, err, r, err), key=True)
            rk.stop_t = min(rk.stop_t, c.enter[r] + 0.001)
            rk.self_exit = (te + rng.uniform(0.05, 0.5), -6)
            if first is None or te < first[0]:
                first = (te, r)
        self.block_others(victims[0], c.enter[victims[0]] - 0.001, exclude=victims)
        self.set_init(None, N)
        if self.layout not in ("sagemaker",):
            ib = ["CA '%s'" % self.ib_dev(L), "\tCA type: MT4129", "\tNumber of ports: 1", "\tFirmware version: 28.39.1002", "\tHardware version: 0",
                  "\tNode GUID: 0x%s" % hx(rng, 16), "\tSystem image GUID: 0x%s" % hx(rng, 16), "\tPort 1:", "\t\tState: Down", "\t\tPhysical state: Polling",
                  "\t\tRate: 10", "\t\tBase lid: 65535", "\t\tLMC: 0", "\t\tSM lid: 0", "\t\tCapability mask: 0xa751e848", "\t\tPort GUID: 0x%s" % hx(rng, 16), "\t\tLink layer: InfiniBand"]
            if rng.random() < 0.7:
                self.add_file("ibstat_%s.txt" % self.kern_host(N), "$ ibstat %s\n" % self.ib_dev(L) + "\n".join(ib) + "\n")
        self.notes.append("IB port %s on %s went down right before the first collective traffic; ranks talking through it hit IB retry-exceeded (error 12) and aborted" % (self.ib_dev(L), self.hosts[N]))

    def sc_net_rdzv(self):
        """node N cannot reach the rendezvous endpoint (its link/bond is down)"""
        rng = self.rng
        N = self.pick_node(not0=True)
        self.want_kernel(N)
        tl = self.T["launch"][N]
        dev = rng.choice(["bond0", "ens1f0np0", "eth0", "enp86s0f0"])
        self.kmsg(N, tl - rng.uniform(20, 400), "mlx5_core 0000:%s:00.0 %s: Link down" % (rng.choice(IB_BUS), dev if dev != "bond0" else "ens1f0np0"))
        if dev == "bond0":
            self.kmsg(N, tl - 10, "bond0: (slave ens1f0np0): link status definitely down, disabling slave")
            self.kmsg(N, tl - 9.9, "bond0: now running without any active interface!")
        self.no_workers = True
        self.open_ended = False
        if self.layout == "slurm_tasks":
            # no torchrun: ranks on N fail connecting to MASTER_ADDR, rank 0's TCPStore waits for clients
            to = self.timeout_ms // 1000
            for l in range(self.gpn):
                r = self.rk(N, l)
                ti = self.T["init"][r]
                self.w(r, ti + 0.1, "[W socket.cpp:%d] [c10d] The client socket has failed to connect to [%s]:%d (errno: 113 - No route to host)." % (601 if self.torch < "2.4" else 752, self.master, self.port))
                tb = pytb(self.frames("init") + self.c10d_frames("init_process_group")[:-1] +
                          [(self.site + "/torch/distributed/distributed_c10d.py", 1305, "init_process_group", "store, rank, world_size = next(rendezvous_iterator)"),
                           (self.site + "/torch/distributed/rendezvous.py", 246, "_env_rendezvous_handler", "store = _create_c10d_store(master_addr, master_port, rank, world_size, timeout, use_libuv)"),
                           (self.site + "/torch/distributed/rendezvous.py", 174, "_create_c10d_store", "return TCPStore(")],
                          "torch.distributed.DistNetworkError: The client socket has timed out after %ds while trying to connect to (%s, %d)." % (to, self.master, self.port))
                self.die(r, ti + to + rng.uniform(0.1, 2), tb)
            for rk in self.ranks:
                if rk.node == N:
                    continue
                rk.stop_t = self.T["init"][rk.r] + 0.001
                rk.hung = True
                if rk.r == 0:
                    tb = pytb(self.frames("init") + [(self.site + "/torch/distributed/rendezvous.py", 174, "_create_c10d_store", "return TCPStore(")],
                              "torch.distributed.DistStoreError: Timed out after %d seconds waiting for clients. %d/%d clients joined." % (to + 1, self.world - self.gpn, self.world))
                    self.die(0, self.T["init"][0] + to + 1, tb)
            self.set_init(None, N)
            self.notes.append("%s lost its data-network link before the job; its ranks could not reach MASTER_ADDR %s" % (self.hosts[N], self.master))
            return
        self.agent_level = True
        tconn = self.T["rdzv"] - 2
        for k in range(rng.randint(3, 8)):
            tt = tl + 0.5 + 8 * k
            self.a(N, tt, "[W socket.cpp:%d] [c10d] The client socket has failed to connect to [%s]:%d (errno: 113 - No route to host)." % (601 if self.torch < "2.4" else 752, self.master, self.port) if self.style != "v24" else
                   "[W%s socket.cpp:752] [c10d] The client socket has failed to connect to [%s]:%d (errno: 113 - No route to host)." % (self.ts_glog9(N, tt, ""), self.master, self.port))
        tto = tl + 60 + rng.uniform(0, 1)
        S = self.site
        fr, d = self.torchrun_head_frames()
        inner = pytb([(S + "/torch/distributed/elastic/rendezvous/c10d_rendezvous_backend.py", 156 if self.torch < "2.4" else 159, "_create_tcp_store", "store = TCPStore(")],
                     "torch.distributed.DistNetworkError: The client socket has timed out after 60s while trying to connect to (%s, %d)." % (self.master, self.port))
        outer = pytb(fr + [(S + "/torch/distributed/launcher/api.py", d - 21, "launch_agent", "rdzv_handler=rdzv_registry.get_rendezvous_handler(rdzv_parameters),"),
                           (S + "/torch/distributed/elastic/rendezvous/registry.py", 66, "get_rendezvous_handler", "return handler_registry.create_handler(params)"),
                           (S + "/torch/distributed/elastic/rendezvous/api.py", 263, "create_handler", "handler = creator(params)"),
                           (S + "/torch/distributed/elastic/rendezvous/registry.py", 36, "_create_c10d_handler", "backend, store = create_backend(params)"),
                           (S + "/torch/distributed/elastic/rendezvous/c10d_rendezvous_backend.py", 250, "create_backend", "store = _create_tcp_store(params)"),
                           (S + "/torch/distributed/elastic/rendezvous/c10d_rendezvous_backend.py", 182, "_create_tcp_store", "raise RendezvousConnectionError(")],
                     "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has failed. See inner exception for details.")
        self.agent_fail(N, tto, inner + "\n\nThe above exception was the direct cause of the following exception:\n\n" + outer)
        jt = rng.choice([600, 900])
        for n in range(self.n_nodes):
            if n == N:
                continue
            self.agent_fail(n, self.T["launch"][n] + jt + rng.uniform(0.5, 3), self.rdzv_timeout_tb(n))
        self.set_init(None, N)
        self.notes.append("%s lost its frontend link (kernel: Link down); its torchrun could not reach the c10d rendezvous on %s:%d (No route to host), the other agents timed out waiting" % (self.hosts[N], self.master, self.port))

    def rdzv_timeout_tb(self, node):
        S = self.site
        fr, d = self.torchrun_head_frames()
        api = S + "/torch/distributed/elastic/agent/server/api.py"
        met = S + "/torch/distributed/elastic/metrics/api.py"
        return pytb(fr + [(S + "/torch/distributed/launcher/api.py", d - 9, "launch_agent", "result = agent.run()"),
                          (met, 129 if self.torch < "2.4" else 123, "wrapper", "result = f(*args, **kwargs)"),
                          (api, 723 if self.torch < "2.3" else 680, "run", "result = self._invoke_run(role)"),
                          (api, 858 if self.torch < "2.3" else 829, "_invoke_run", "self._initialize_workers(self._worker_group)"),
                          (met, 129 if self.torch < "2.4" else 123, "wrapper", "result = f(*args, **kwargs)"),
                          (api, 692 if self.torch < "2.3" else 652, "_initialize_workers", "self._rendezvous(worker_group)"),
                          (met, 129 if self.torch < "2.4" else 123, "wrapper", "result = f(*args, **kwargs)"),
                          (api, 546 if self.torch < "2.3" else 489, "_rendezvous", "rdzv_info = spec.rdzv_handler.next_rendezvous()"),
                          (S + "/torch/distributed/elastic/rendezvous/dynamic_rendezvous.py", 1066 if self.torch < "2.3" else 1125, "next_rendezvous", "self._op_executor.run(join_op, deadline)"),
                          (S + "/torch/distributed/elastic/rendezvous/dynamic_rendezvous.py", 648 if self.torch < "2.3" else 660, "run", "raise RendezvousTimeoutError")],
                    "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError")

    def agent_fail(self, node, t, text):
        self.agent_rdzv_fail[node] = (t, text)

    def sc_net_sock(self):
        rng = self.rng
        N = self.pick_node(not0=self.n_nodes > 2)
        c1 = self.colls[0]
        port = rng.randint(33000, 60000)
        why = rng.choice(["Software caused connection abort", "Connection timed out", "No route to host"])
        first = None
        for rk in self.ranks:
            r = rk.r
            if rk.node == N:
                peer = self.ips[0 if N != 0 else 1]
            else:
                peer = self.ips[N]
            t = c1.enter[r] + rng.uniform(2, 25 if why == "Connection timed out" else 6)
            P = self.nccl_pfx(r, tid=True)
            if rk.node != N and rng.random() < 0.45:
                # only ranks with a direct ring/tree edge to N are hit
                continue
            detail = "socketStartConnect: Connect to %s<%d> failed : %s" % (peer, port + rng.randint(0, 40), why)
            self.w(r, t - 0.2, "\n%s NCCL WARN socketStartConnect: Connect to %s<%d> failed : %s\n%s NCCL INFO misc/socket.cc:%d -> 2\n%s NCCL INFO transport/net_socket.cc:%d -> 2" % (
                P, peer, port, why, P, rng.choice([567, 621]), P, rng.choice([334, 491])), key=(rk.node == N))
            tb = pytb(self.frames("barrier") + self.c10d_frames("barrier"), self.nccl_error_head("system", detail))
            self.die(r, t, tb)
            if first is None or t < first[0]:
                first = (t, r)
        for rk in self.ranks:
            if rk.stop_t == INF:
                rk.stop_t = c1.enter[rk.r] + 0.001
                rk.hung = True
        self.set_init(None, N)
        self.notes.append("connections to/from %s (%s) failed during NCCL bootstrap/transport setup (%s); every communicator edge touching that node failed" % (self.hosts[N], self.ips[N], why))

    # ================================================================ cuda_oom
    def oom_text(self, local, req, free_mb, this_gb, other=None):
        tot = 79.11 if self.h100 else 79.15
        alloc = this_gb - self.rng.uniform(1.0, 5.0)
        resv = self.rng.uniform(0.2, 3.5)
        cls = "torch.OutOfMemoryError" if self.torch >= "2.5" else "torch.cuda.OutOfMemoryError"
        if self.torch < "2.2":
            return "%s: CUDA out of memory. Tried to allocate %s (GPU %d; %.2f GiB total capacity; %.2f GiB already allocated; %s free; %.2f GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF" % (
                cls, req, local, tot, alloc, fmt_mib(free_mb), alloc + resv)
        procs = ""
        if other:
            procs = "Process %d has %.2f GiB memory in use. " % (other[0], other[1])
        return "%s: CUDA out of memory. Tried to allocate %s. GPU %d has a total capacity of %.2f GiB of which %s is free. %sIncluding non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)" % (
            cls, req, local, tot, fmt_mib(free_mb), procs, this_gb, alloc, resv)

    def sc_oom_stale(self):
        rng = self.rng
        N = self.pick_node()
        L = rng.randrange(self.gpn)
        r = self.rk(N, L)
        c = self.step_coll(1)
        tf = c.enter[r] - rng.uniform(0.3, 0.9) * (self.step_time + self.first_step_extra)
        other_pid = rng.randint(3000, 400000)
        other_gb = rng.uniform(14, 40)
        this = 79.1 - other_gb - rng.uniform(0.1, 0.6)
        req = rng.choice(["1.96 GiB", "3.91 GiB", "1002.00 MiB", "7.83 GiB", "2.00 GiB"])
        exc = self.oom_text(L, req, rng.uniform(80, 900), this, other=(other_pid, other_gb))
        extra = []
        if self.framework == "megatron" or rng.random() < 0.5:
            extra = [(self.site + "/torch/_tensor.py", 522 if self.torch < "2.4" else 581, "backward", "torch.autograd.backward("),
                     (self.site + "/torch/autograd/__init__.py", 266 if self.torch < "2.4" else 347, "backward", "_engine_run_backward(" if self.torch >= "2.3" else "Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")]
        tb = self.tb_step(r, extra, exc)
        self.die(r, tf, tb)
        self.block_others(r, tf)
        self.set_init(r, N)
        if self.layout != "sagemaker":
            procs = [(l, self.ranks[self.rk(N, l)].pid, rng.randint(60000, 78000), self.pybin) for l in range(self.gpn) if l != L]
            procs.append((L, other_pid, int(other_gb * 1024), rng.choice(["python", "/usr/bin/python3", "python3 -m vllm.entrypoints.openai.api_server", "jupyter-lab"])))
            procs.sort()
            if rng.random() < 0.7:
                self.add_file(self.nvsmi_name(N), "$ nvidia-smi   # taken by the user right after the crash\n" + self.nvsmi_table(N, tf + rng.uniform(5, 60), procs=procs))
        self.notes.append("a leftover process (pid %d, %.1f GiB) from an earlier job still held GPU %d on %s; rank %d ran out of GPU memory in the first step" % (other_pid, other_gb, L, self.hosts[N], r))

    def sc_oom_stage(self):
        """all ranks of one pipeline stage / one node OOM at step 1 (activation memory underestimated)"""
        rng = self.rng
        if self.framework == "megatron" and self.pp > 1:
            stage = self.pp - 1 if rng.random() < 0.5 else 0
            members = [r for r in range(self.world) if self.mp_coords(r)[1] == stage]
            what = "pipeline stage %d" % stage
        else:
            N = self.pick_node()
            members = [self.rk(N, l) for l in range(self.gpn)]
            what = "node %s" % self.hosts[N]
        c = self.step_coll(1)
        tbase = min(c.enter[r] for r in members) - rng.uniform(0.4, 0.9) * (self.step_time + self.first_step_extra)
        first = None
        req = rng.choice(["3.91 GiB", "7.81 GiB", "1.95 GiB", "15.62 GiB"])
        for r in members:
            tf = tbase + rng.uniform(0, 1.5)
            tb = self.tb_step(r, [], self.oom_text(self.ranks[r].local, req, rng.uniform(100, 1500), rng.uniform(74, 78.6)))
            self.die(r, tf, tb)
            if first is None or tf < first[0]:
                first = (tf, r)
        self.block_others(first[1], first[0], exclude=members)
        nodes = sorted(set(self.ranks[r].node for r in members))
        self.set_init(None, nodes[0] if len(nodes) == 1 else None)
        self.notes.append("all ranks of %s ran out of GPU memory in the first forward/backward (micro-batch too large for that stage)" % what)

    def sc_oom_nccl(self):
        rng = self.rng
        N = self.pick_node()
        L = rng.randrange(self.gpn)
        r = self.rk(N, L)
        c1 = self.colls[0]
        tf = c1.enter[r] + rng.uniform(0.3, 2)
        P = self.nccl_pfx(r, tid=True)
        cf = "Cuda failure 2 'out of memory'" if self.nccl >= "2.19" else "Cuda failure 'out of memory'"
        self.w(r, tf - 0.05, "\n%s NCCL WARN %s\n%s NCCL INFO include/alloc.h:%d -> 1\n%s NCCL INFO channel.cc:%d -> 1\n%s NCCL INFO init.cc:%d -> 1" % (
            P, cf, P, rng.choice([103, 125, 246]), P, rng.choice([38, 41, 57]), P, rng.choice([398, 1177, 1285])), key=True)
        tb = pytb(self.frames("barrier") + self.c10d_frames("barrier"), self.nccl_error_head("cuda", cf))
        self.die(r, tf, tb)
        if self.style == "v20":
            self.block_others(r, tf)
        else:
            self.block_init(c1, exclude=(r,))
        self.set_init(r, N)
        other_pid = rng.randint(3000, 400000)
        if self.layout != "sagemaker" and rng.random() < 0.8:
            procs = [(L, other_pid, rng.randint(78500, 80900), "python")]
            self.add_file(self.nvsmi_name(N), "$ nvidia-smi\n" + self.nvsmi_table(N, tf + rng.uniform(60, 900), procs=procs))
        self.notes.append("GPU %d on %s was nearly full (another process held its memory); NCCL could not allocate its buffers on rank %d during communicator init" % (L, self.hosts[N], r))

    # ================================================================ illegal memory access
    def sc_ima_assert(self):
        rng = self.rng
        N = self.pick_node()
        L = rng.randrange(self.gpn)
        r = self.rk(N, L)
        c = self.step_coll(1)
        tf = c.enter[r] - rng.uniform(0.4, 0.9) * (self.step_time + self.first_step_extra)
        kind = rng.choice(["index", "ce"])
        lines = []
        for _ in range(rng.randint(6, 40)):
            if kind == "index":
                lines.append("../aten/src/ATen/native/cuda/Indexing.cu:1290: indexSelectLargeIndex: block: [%d,0,0], thread: [%d,0,0] Assertion `srcIndex < srcSelectDimSize` failed." % (rng.randint(0, 2047), rng.randint(0, 127)))
            else:
                lines.append("../aten/src/ATen/native/cuda/NLLLoss2d.cu:104: nll_loss2d_forward_kernel: block: [%d,0,0], thread: [%d,0,0] Assertion `t >= 0 && t < n_classes` failed." % (rng.randint(0, 4096), rng.randint(0, 1023)))
        self.w(r, tf, "\n".join(lines), key=True)
        err = "device-side assert triggered"
        tb = self.tb_step(r, [], self.cuda_err(err))
        self.die(r, tf + 0.3, tb)
        code = self.wd_cuda_abort(r, tf + 0.35, err)
        if code == -6:
            self.ranks[r].self_exit = (tf + 0.5, -6)
        self.block_others(r, tf)
        self.set_init(r, N)
        self.notes.append("device-side assert (%s) on rank %d in the first forward: a batch contained a token id outside the embedding / label range" % ("index out of bounds" if kind == "index" else "target out of range", r))

    def sc_ima_kernel(self):
        rng = self.rng
        N = self.pick_node()
        L = rng.randrange(self.gpn)
        r = self.rk(N, L)
        rk = self.ranks[r]
        c = self.step_coll(rng.choice([1, 1, 2]))
        tf = c.enter[r] - rng.uniform(0.2, 0.8) * self.step_time
        self.want_kernel(N)
        if rng.random() < 0.6:
            self.kmsg(N, tf, self.xid(N, L, 31, self.hpid(rk), "channel 0x%08x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC%d GPCCLIENT_T1_%d faulted @ 0x7f%02x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (
                rng.randint(8, 40), rng.randint(0, 7), rng.randint(0, 15), rng.randint(0, 255), rng.randint(0, 0xffffffff))))
        else:
            self.kmsg(N, tf, self.xid(N, L, 13, self.hpid(rk), "Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (rng.randint(0, 7), rng.randint(0, 8), rng.randint(0, 1))))
            self.kmsg(N, tf + 0.0001, self.xid(N, L, 13, self.hpid(rk), "Graphics Exception: ESR 0x%x=0x%x 0x%x=0x%x 0x%x=0x%x 0x%x=0x%x" % (0x50e648 + rng.randint(0, 8) * 0x800, 0x102000e, 0x50e650, 0x20, 0x50e644, 0xd3eff2, 0x50e64c, 0x17f)))
            self.kmsg(N, tf + 0.0002, self.xid(N, L, 43, self.hpid(rk), "Ch %08x" % rng.randint(8, 64)))
        ker = rng.choice([("%s/kernels/fused_rope.py" % self.workdir, 88, "forward", "rope_cuda.fwd(q, k, cos, sin, out_q, out_k)"),
                          ("%s/csrc_ext/fused_xentropy.py" % self.workdir, 51, "forward", "losses, max_log_sum_exp = xentropy_cuda.forward(logits, labels, smoothing)"),
                          (self.site + "/flash_attn/flash_attn_interface.py", 51, "_flash_attn_varlen_forward", "out, q, k, v, out_padded, softmax_lse, S_dmask, rng_state = flash_attn_cuda.varlen_fwd(")])
        err = "an illegal memory access was encountered"
        tb = self.tb_step(r, [ker], self.cuda_err(err))
        self.die(r, tf + 0.2, tb)
        if self.wd_cuda_abort(r, tf + 0.25, err) == -6:
            rk.self_exit = (tf + 0.4, -6)
        self.block_others(r, tf)
        self.set_init(r, N)
        self.notes.append("illegal memory access in a custom CUDA kernel (%s) on rank %d at the first steps" % (os.path.basename(ker[0]), r))

    # ================================================================ python_exception
    def sc_py_ckpt(self):
        rng = self.rng
        N = self.pick_node()
        shard = rng.randint(1, self.n_shards)
        local_dir = rng.choice(["/local_nvme/models/", "/scratch/local/ckpt/", "/tmp/model_cache/"]) + self.model
        self.ckpt_dir = local_dir
        fname = "%s/model-%05d-of-%05d.safetensors" % (local_dir, shard, self.n_shards)
        only0 = self.framework == "custom" and rng.random() < 0.5
        members = [self.rk(N, 0)] if only0 else [self.rk(N, l) for l in range(self.gpn)]
        first = None
        for r in members:
            tf = self.T["load_start"][r] + (self.T["load_end"][r] - self.T["load_start"][r]) * (shard - 0.5) / self.n_shards * rng.uniform(0.95, 1.05)
            if self.framework == "hf":
                exc = "FileNotFoundError: No such file or directory: \"%s\"" % fname
                fr = self.frames("load") + [(self.site + "/transformers/modeling_utils.py", 4091, "_load_pretrained_model", "state_dict = load_state_dict(shard_file, is_quantized=is_quantized)"),
                                            (self.site + "/transformers/modeling_utils.py", 503, "load_state_dict", "with safe_open(checkpoint_file, framework=\"pt\") as f:")]
            else:
                exc = "FileNotFoundError: [Errno 2] No such file or directory: '%s'" % fname
                fr = self.frames("load") + [(self.site + "/safetensors/torch.py", 311, "load_file", "with safe_open(filename, framework=\"pt\", device=device) as f:")]
            tb = pytb(fr, exc)
            self.die(r, tf, tb)
            if first is None or tf < first[0]:
                first = (tf, r)
        if only0:
            for l in range(1, self.gpn):
                pass
        self.block_others(first[1], first[0], exclude=members)
        self.set_init(members[0] if only0 else None, N)
        self.notes.append("checkpoint shard %d was missing from the node-local model cache on %s (staging copy incomplete); %s raised FileNotFoundError during load" % (
            shard, self.hosts[N], "its local rank 0" if only0 else "all its ranks"))

    def sc_py_hf429(self):
        rng = self.rng
        N = self.pick_node()
        repo = {"Meta-Llama-3-8B": "meta-llama/Meta-Llama-3-8B", "Llama-2-13b-hf": "meta-llama/Llama-2-13b-hf", "Mistral-7B-v0.1": "mistralai/Mistral-7B-v0.1",
                "Meta-Llama-3-70B": "meta-llama/Meta-Llama-3-70B", "Qwen2-7B": "Qwen/Qwen2-7B", "llama2-34b-custom": "codellama/CodeLlama-34b-hf",
                "gpt-neox-20b": "EleutherAI/gpt-neox-20b"}[self.model]
        self.framework_tok_repo = repo
        members = [self.rk(N, l) for l in range(self.gpn)]
        fails = rng.sample(members, rng.randint(max(1, len(members) // 3), len(members)))
        first = None
        fname = rng.choice(["tokenizer_config.json", "config.json", "tokenizer.json"])
        url = "https://huggingface.co/%s/resolve/main/%s" % (repo, fname)
        mod = "huggingface_hub.utils._errors" if self.torch < "2.4" else "huggingface_hub.errors"
        for r in members:
            t0 = self.T["imp"][r] + rng.uniform(1, 4)
            nretry = 5 if r in fails else rng.randint(1, 3)
            tt = t0
            for k in range(1, nretry + 1):
                self.w(r, tt, "HTTP Error 429 thrown while requesting HEAD %s\nRetrying in %ds [Retry %d/5]." % (url, 2 ** (k - 1), k))
                tt += 2 ** (k - 1) + rng.uniform(0.1, 0.4)
            if r in fails:
                fr = self.frames("tok") + [(self.site + "/huggingface_hub/utils/_validators.py", 114, "_inner_fn", "return fn(*args, **kwargs)"),
                                           (self.site + "/huggingface_hub/file_download.py", 1221, "hf_hub_download", "return _hf_hub_download_to_cache_dir("),
                                           (self.site + "/huggingface_hub/file_download.py", 1282, "_hf_hub_download_to_cache_dir", "(url_to_download, etag, commit_hash, expected_size, head_call_error) = _get_metadata_or_catch_error("),
                                           (self.site + "/huggingface_hub/utils/_http.py", 406, "hf_raise_for_status", "raise _format(HfHubHTTPError, str(e), response) from e")]
                tb = pytb(fr, "%s.HfHubHTTPError: 429 Client Error: Too Many Requests for url: %s" % (mod, url))
                self.die(r, tt, tb)
                if first is None or tt < first[0]:
                    first = (tt, r)
        self.block_others(first[1], first[0], exclude=fails)
        self.set_init(None, N)
        self.notes.append("%s had a cold Hugging Face cache; %d of its ranks were rate-limited (HTTP 429) fetching %s and gave up after 5 retries" % (self.hosts[N], len(fails), fname))

    def sc_py_pp_shape(self):
        rng = self.rng
        stage = rng.randint(1, self.pp - 1)
        members = [r for r in range(self.world) if self.mp_coords(r)[1] == stage]
        c = self.step_coll(1)
        tb_base = min(c.enter[r] for r in members) - rng.uniform(0.5, 0.9) * (self.step_time + self.first_step_extra)
        a, b = self.seq_len, self.seq_len * 2
        exc = rng.choice(["RuntimeError: The size of tensor a (%d) must match the size of tensor b (%d) at non-singleton dimension 0" % (a, b),
                          "RuntimeError: shape '[%d, %d, %d, %d]' is invalid for input of size %d" % (a, self.mbs, 32 // max(1, self.tp), 128, a * self.mbs * 4096),
                          "RuntimeError: mat1 and mat2 shapes cannot be multiplied (%dx5120 and 4096x%d)" % (a * self.mbs, 12288 // max(1, self.tp))])
        first = None
        for r in members:
            tf = tb_base + rng.uniform(0, 0.8)
            tb = self.tb_step(r, [("%s/Megatron-LM/megatron/core/transformer/transformer_block.py" % self.workdir, 383, "forward", "hidden_states, context = layer("),
                                  ("%s/Megatron-LM/megatron/core/transformer/transformer_layer.py" % self.workdir, 178, "forward", "attention_output_with_bias = self.self_attention("),
                                  ("%s/Megatron-LM/megatron/core/transformer/attention.py" % self.workdir, 291, "forward", "query = apply_rotary_pos_emb(")], exc)
            self.die(r, tf, tb)
            if first is None or tf < first[0]:
                first = (tf, r)
        # others are stuck in pipeline p2p
        p2p = Coll(self.colls[2].seq + 1, "RECV", a * self.mbs * 4096 // self.tp, a * self.mbs * 4096 // self.tp, "p2p")
        for rk in self.ranks:
            if rk.r in members:
                continue
            p2p_r = Coll(p2p.seq, "SEND" if self.mp_coords(rk.r)[1] < stage else "RECV", p2p.nin, p2p.nout, "p2p")
            p2p_r.enter = dict(c.enter)
            p2p_r.enter[rk.r] = tb_base + rng.uniform(0.1, 3)
            rk.block = p2p_r
            rk.stop_t = p2p_r.enter[rk.r]
        nodes = sorted(set(self.ranks[r].node for r in members))
        self.set_init(None, nodes[0] if len(nodes) == 1 else None)
        self.notes.append("pipeline stage %d raised a shape mismatch in its first forward (its ranks picked up a different --seq-length); the other stages waited in p2p send/recv" % stage)

    def sc_py_port(self):
        rng = self.rng
        self.no_workers = True
        self.open_ended = False
        old = rng.randint(2000, 300000)
        bind = "The server socket has failed to listen on any local network address. The server socket has failed to bind to [::]:%d (errno: 98 - Address already in use). The server socket has failed to bind to 0.0.0.0:%d (errno: 98 - Address already in use)." % (self.port, self.port)
        if self.layout == "slurm_tasks":
            t = self.T["init"][0] + 0.05
            tb = pytb(self.frames("init") + [(self.site + "/torch/distributed/rendezvous.py", 174, "_create_c10d_store", "return TCPStore(")],
                      "torch.distributed.DistNetworkError: %s" % bind)
            self.die(0, t, tb)
            to = self.timeout_ms // 1000
            for rk in self.ranks[1:]:
                rk.stop_t = self.T["init"][rk.r]
                rk.hung = True
            self.set_init(0, 0)
            self.notes.append("MASTER_PORT %d on %s was still held by a stale process from an earlier run; rank 0 could not start the TCPStore" % (self.port, self.hosts[0]))
            return
        self.agent_level = True
        S = self.site
        fr, d = self.torchrun_head_frames()
        t0 = self.T["launch"][0] + rng.uniform(0.3, 1.0)
        inner = pytb([(S + "/torch/distributed/elastic/rendezvous/c10d_rendezvous_backend.py", 156 if self.torch < "2.4" else 159, "_create_tcp_store", "store = TCPStore(")],
                     "torch.distributed.DistNetworkError: %s" % bind)
        outer = pytb(fr + [(S + "/torch/distributed/launcher/api.py", d - 21, "launch_agent", "rdzv_handler=rdzv_registry.get_rendezvous_handler(rdzv_parameters),"),
                           (S + "/torch/distributed/elastic/rendezvous/registry.py", 36, "_create_c10d_handler", "backend, store = create_backend(params)"),
                           (S + "/torch/distributed/elastic/rendezvous/c10d_rendezvous_backend.py", 250, "create_backend", "store = _create_tcp_store(params)"),
                           (S + "/torch/distributed/elastic/rendezvous/c10d_rendezvous_backend.py", 182, "_create_tcp_store", "raise RendezvousConnectionError(")],
                     "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has failed. See inner exception for details.")
        self.agent_fail(0, t0, inner + "\n\nThe above exception was the direct cause of the following exception:\n\n" + outer)
        jt = rng.choice([600, 900])
        for n in range(1, self.n_nodes):
            self.agent_fail(n, self.T["launch"][n] + jt + rng.uniform(0.5, 3), self.rdzv_timeout_tb(n))
        self.set_init(None, 0)
        self.notes.append("port %d on %s was still bound by a stale torchrun from a previous job (pid %d); the new agent could not host the c10d store, the others joined the stale store and timed out" % (self.port, self.hosts[0], old))

    def sc_py_dupgpu(self):
        rng = self.rng
        c1 = self.colls[0]
        for rk in self.ranks:
            r = rk.r
            t = c1.enter[r] + rng.uniform(0.3, 2)
            other = rk.node * self.gpn if rk.local else rk.node * self.gpn + 1
            detail = "Duplicate GPU detected : rank %d and rank %d both on CUDA device %s" % (r, other, self.busid(0))
            P = self.nccl_pfx(r, tid=True)
            self.w(r, t - 0.01, "\n%s init.cc:%d NCCL WARN %s" % (P, rng.choice([497, 871, 1052]), detail))
            tb = pytb(self.frames("barrier") + self.c10d_frames("barrier"), self.nccl_error_head("invalid", detail))
            self.die(r, t, tb)
        self.set_init(None, None)
        self.notes.append("every rank selected cuda:0 (the script never called torch.cuda.set_device(LOCAL_RANK)); NCCL rejected duplicate GPUs on every node")

    def sc_py_ordinal(self):
        rng = self.rng
        N = self.pick_node()
        vis = rng.choice(["0,1,2,3", "4,5,6,7", "0,1,2,3"])
        members = [self.rk(N, l) for l in range(4, self.gpn)]
        first = None
        for r in members:
            tf = self.T["imp"][r] + rng.uniform(0.1, 1.0)
            tb = pytb(self.frames("cuda_init") + [(self.site + "/torch/cuda/__init__.py", 404 if self.torch < "2.4" else 478, "set_device", "torch._C._cuda_setDevice(device)")],
                      self.cuda_err("invalid device ordinal"))
            self.die(r, tf, tb)
            if first is None or tf < first[0]:
                first = (tf, r)
        for l in range(self.gpn):
            r = self.rk(N, l)
            if l < 4 and self.framework == "custom":
                self.w(r, self.T["init"][r] + 0.02, self.clog(N, self.T["init"][r], r, "CUDA_VISIBLE_DEVICES=%s torch.cuda.device_count()=4" % vis))
        self.block_others(first[1], first[0], exclude=members)
        self.set_init(None, N)
        self.visible_devices_note = (N, vis)
        self.notes.append("%s exposed only 4 GPUs to the job (CUDA_VISIBLE_DEVICES=%s left by the node prolog) while nproc_per_node=%d; local ranks 4-7 failed with 'invalid device ordinal'" % (self.hosts[N], vis, self.gpn))

    def sc_py_nnodes(self):
        rng = self.rng
        self.no_workers = True
        self.open_ended = False
        self.nnodes_cfg = self.n_nodes + rng.choice([1, 1, 2])
        if self.layout == "slurm_tasks":
            ws = self.world + self.gpn
            self.world_cfg = ws
            to = self.timeout_ms // 1000
            tb = pytb(self.frames("init") + [(self.site + "/torch/distributed/rendezvous.py", 174, "_create_c10d_store", "return TCPStore(")],
                      "torch.distributed.DistStoreError: Timed out after %d seconds waiting for clients. %d/%d clients joined." % (to + 1, self.world, ws))
            self.die(0, self.T["init"][0] + to + 1, tb)
            for rk in self.ranks[1:]:
                rk.stop_t = self.T["init"][rk.r]
                rk.hung = True
            self.set_init(None, None)
            self.notes.append("the script exported WORLD_SIZE=%d while the allocation had %d tasks; rank 0's store waited for clients that never existed" % (ws, self.world))
            return
        self.agent_level = True
        jt = rng.choice([600, 900])
        for n in range(self.n_nodes):
            self.agent_fail(n, self.T["launch"][n] + jt + rng.uniform(0.5, 3), self.rdzv_timeout_tb(n))
        self.set_init(None, None)
        self.notes.append("torchrun was started with --nnodes=%d but only %d nodes were allocated; the rendezvous never completed" % (self.nnodes_cfg, self.n_nodes))

    # ================================================================ host_oom_kill
    def sc_hok(self):
        rng = self.rng
        N = self.pick_node()
        members = [self.rk(N, l) for l in range(self.gpn)]
        victim = rng.choice(members)
        rk = self.ranks[victim]
        tf = self.T["load_start"][victim] + (self.T["load_end"][victim] - self.T["load_start"][victim]) * rng.uniform(0.5, 0.95)
        self.want_kernel(N)
        cg = self.layout in ("slurm", "slurm_tasks", "k8s_pytorchjob") and rng.random() < 0.7
        rss = rng.randint(80, 240) * 1024 * 1024
        self.kmsg(N, tf - 0.01, "python invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0")
        self.kmsg(N, tf - 0.009, "CPU: %d PID: %d Comm: python Not tainted 5.15.0-%d-generic #%d-Ubuntu" % (rng.randint(0, 191), self.hpid(self.ranks[rng.choice(members)]), rng.randint(88, 125), rng.randint(98, 135)))
        if cg:
            self.kmsg(N, tf - 0.005, "memory: usage %dkB, limit %dkB, failcnt %d" % (rss * self.gpn // 8 * 8, rss * self.gpn // 8 * 8, rng.randint(1, 4000)))
            self.kmsg(N, tf, "Memory cgroup out of memory: Killed process %d (python) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (
                self.hpid(rk), rss + rng.randint(20, 60) * 1024 * 1024, rss, rng.randint(100000, 900000), rng.randint(1000, 90000), rng.choice([0, 1000, 10042]), rng.randint(200000, 600000)))
        else:
            self.kmsg(N, tf, "Out of memory: Killed process %d (python) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (
                self.hpid(rk), rss + rng.randint(20, 60) * 1024 * 1024, rss, rng.randint(100000, 900000), rng.randint(1000, 90000), rng.choice([0, 1000, 10042]), rng.randint(200000, 600000)))
        self.kmsg(N, tf + 0.4, "oom_reaper: reaped process %d (python), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB" % self.hpid(rk))
        if self.layout == "k8s_pytorchjob" and rng.random() < 0.5:
            # cgroup v2 memory.oom.group: the whole container is killed
            self.k8s_oom_group = True
            self.kmsg(N, tf + 0.001, "Tasks in /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice/cri-containerd-%s.scope are going to be killed due to memory.oom.group set" % (
                hx(rng, 8) + "_" + hx(rng, 4), hx(rng, 64)))
            for r in members + [None]:
                if r == victim:
                    continue
                pid = self.hpid(self.ranks[r]) if r is not None else self.agent_pid[N] + self.pid_off[N]
                self.kmsg(N, tf + 0.002, "Memory cgroup out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:%d" % (
                    pid, "python" if r is not None else "torchrun", rng.randint(20, 60) * 1024 * 1024, rng.randint(2, 150) * 1024 * 1024, rng.randint(100000, 900000), rng.randint(1000, 90000), 0, rng.randint(20000, 400000), rng.choice([-997, 1000, 0])))
            for r in members:
                self.ranks[r].stop_t = min(self.ranks[r].stop_t, tf)
                self.ranks[r].self_exit = (tf + 0.01, -9)
            self.agent_oom_killed = (N, tf + 0.02)
            self.block_others(victim, tf, exclude=members)
            self.set_init(None, N)
            self.notes.append("each rank on %s materialised the full checkpoint in host RAM; the container hit its memory limit and was OOMKilled as a whole" % self.hosts[N])
            return
        self.die(victim, tf, None, code=-9, delay=(0.0, 0.01))
        self.block_others(victim, tf)
        if self.layout in ("slurm", "slurm_tasks"):
            self.slurm_oom = (N, tf + rng.uniform(1, 10))
        self.set_init(victim, N)
        self.notes.append("all %d ranks on %s loaded the full checkpoint into host memory at once; the kernel OOM killer killed rank %d (pid %d)" % (self.gpn, self.hosts[N], victim, rk.pid))

    # ================================================================ crash_signal
    def sc_cs_segv(self):
        rng = self.rng
        N = self.pick_node()
        L = rng.randrange(self.gpn)
        r = self.rk(N, L)
        rk = self.ranks[r]
        when = rng.choice(["import", "step"])
        if when == "import":
            tf = self.T["imp"][r] - rng.uniform(0.5, 3)
        else:
            tf = self.step_coll(1).enter[r] - rng.uniform(0.3, 0.8) * (self.step_time + self.first_step_extra)
        lib = rng.choice(["libnccl-net.so", "apex_C.cpython-310-x86_64-linux-gnu.so", "flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so", "libcudnn_ops_infer.so.8", "libgomp-a34b3233.so.1"])
        self.want_kernel(N)
        ip = rng.randint(0x7f0000000000, 0x7fffffffffff)
        base = (ip - rng.randint(0x1000, 0x90000)) & ~0xfff
        self.kmsg(N, tf, "python[%d]: segfault at %x ip %016x sp %016x error %d in %s[%x+%x]" % (
            self.hpid(rk), rng.choice([0, 8, 0x18, rng.randint(0x1000, 0xffffff)]), ip, (ip - rng.randint(0x10000000, 0x7fffffff)) & ~0xf, rng.choice([4, 6]), lib, base, rng.randint(0x10000, 0x400000)))
        if rng.random() < 0.5:
            self.kmsg(N, tf + 0.0001, "Code: %s <%s> %s" % (" ".join(hx(rng, 2) for _ in range(20)), hx(rng, 2), " ".join(hx(rng, 2) for _ in range(10))))
        if rng.random() < 0.5:
            if when == "import":
                stack = '  File "%s/flash_attn/__init__.py", line 3 in <module>\n  File "<frozen importlib._bootstrap>", line 241 in _call_with_frames_removed\n  File "%s/%s", line 21 in <module>' % (self.site, self.workdir, self.script)
            else:
                stack = '  File "%s/torch/nn/modules/module.py", line 1520 in _call_impl\n  File "%s/%s", line 241 in train\n  File "%s/%s", line 480 in main\n  File "%s/%s", line 512 in <module>' % (
                    self.site, self.workdir, self.script, self.workdir, self.script, self.workdir, self.script)
            self.w(r, tf, "Fatal Python error: Segmentation fault\n\nThread 0x%016x (most recent call first):\n%s\n" % (rng.randint(0x7f0000000000, 0x7fffffffffff), stack), key=True)
        self.die(r, tf, None, code=-11, delay=(0.01, 0.1))
        self.block_others(r, tf)
        self.set_init(r, N)
        self.notes.append("rank %d on %s segfaulted in native code (%s) %s" % (r, self.hosts[N], lib, "while importing" if when == "import" else "in the first step"))

    def sc_cs_sigbus(self):
        rng = self.rng
        N = self.pick_node()
        members = [self.rk(N, l) for l in range(self.gpn)]
        c = self.step_coll(1)
        first = None
        for r in members:
            if rng.random() < 0.3 and r != members[0]:
                continue
            tf = self.colls[2].done + rng.uniform(2, 12)
            wpid = self.ranks[r].pid + rng.randint(200, 900)
            self.w(r, tf - 0.5, "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).\n", key=True)
            fr = self.frames("data") + [(self.site + "/torch/utils/data/dataloader.py", 1328 if self.torch < "2.4" else 1448, "_next_data", "idx, data = self._get_data()"),
                                        (self.site + "/torch/utils/data/dataloader.py", 1294 if self.torch < "2.4" else 1412, "_get_data", "success, data = self._try_get_data()"),
                                        (self.site + "/torch/utils/data/dataloader.py", 1145 if self.torch < "2.4" else 1256, "_try_get_data", "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e")]
            inner = pytb([(self.site + "/torch/utils/data/dataloader.py", 1132 if self.torch < "2.4" else 1243, "_try_get_data", "data = self._data_queue.get(timeout=timeout)"),
                          ("/usr/lib/python%s/multiprocessing/queues.py" % self.pyver, 113, "get", "if not self._poll(timeout):"),
                          ("/usr/lib/python%s/multiprocessing/connection.py" % self.pyver, 257, "poll", "return self._poll(timeout)"),
                          ("/usr/lib/python%s/multiprocessing/connection.py" % self.pyver, 440, "_poll", "r = wait([self], timeout)"),
                          (self.site + "/torch/utils/data/_utils/signal_handling.py", 66, "handler", "_error_if_any_worker_fails()")],
                         "RuntimeError: DataLoader worker (pid %d) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit." % wpid)
            tb = inner + "\n\nThe above exception was the direct cause of the following exception:\n\n" + pytb(fr, "RuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly" % wpid)
            self.die(r, tf, tb)
            if first is None or tf < first[0]:
                first = (tf, r)
        self.block_others(first[1], first[0], exclude=[r for r in members if self.ranks[r].self_exit])
        self.set_init(None, N)
        self.shm_small_node = N
        self.notes.append("/dev/shm on %s was only 64M (container default); DataLoader workers died with SIGBUS on the first batches" % self.hosts[N])

    def sc_cs_abort(self):
        rng = self.rng
        N = self.pick_node()
        L = rng.randrange(self.gpn)
        r = self.rk(N, L)
        c = self.coll_after(r, self.T["load_end"][r] - 1) if rng.random() < 0.5 else self.step_coll(1)
        tf = c.enter[r] - rng.uniform(0.1, 0.6) * max(1.0, self.step_time)
        msg = rng.choice(["double free or corruption (!prev)", "free(): invalid pointer", "malloc(): unaligned tcache chunk detected",
                          "corrupted size vs. prev_size", "munmap_chunk(): invalid pointer"])
        self.w(r, tf, msg, key=True)
        self.die(r, tf, None, code=-6, delay=(0.01, 0.05))
        self.block_others(r, tf)
        self.set_init(r, N)
        self.notes.append("glibc heap corruption abort ('%s') on rank %d, no Python traceback, no hardware events" % (msg, r))

    # ================================================================ preemption
    def sc_pre_slurm(self):
        rng = self.rng
        kind = rng.choice(["preempt", "preempt", "timelimit"])
        if kind == "timelimit":
            lim = rng.choice([5, 10, 10, 15])
            tk = lim * 60 + rng.uniform(0.5, 28)
            self.time_limit = lim
        else:
            tk = rng.choice([self.T["load_start"][0] + rng.uniform(5, 60), self.step_coll(rng.randint(1, 8)).enter[0] + rng.uniform(-2, 2)])
        self.ext.append((tk, "extkill", (kind, None)))
        for rk in self.ranks:
            rk.stop_t = min(rk.stop_t, tk + 0.05)
        self.set_init(None, None)
        self.notes.append("the job was %s by Slurm %.0f s after start" % ("preempted" if kind == "preempt" else "cancelled at its (too short) time limit", tk))

    def sc_pre_node(self):
        """one node reclaimed (spot / maintenance); k8s and torchrun_nodes"""
        rng = self.rng
        N = self.pick_node()
        tk = rng.choice([self.T["load_start"][N] + rng.uniform(10, 80), self.step_coll(rng.randint(1, 6)).enter[self.rk(N, 0)] + rng.uniform(-3, 1)])
        self.preempt_node = (N, tk)
        if self.layout == "k8s_pytorchjob":
            self.ext.append((tk, "extkill", ("node", [N])))
            self.k8s_events.append((tk - 1.5, "Warning", "NodeShutdown", "kubelet", "Shutting down node %s: terminating pods (imminent node shutdown)" % self.k8snodes[N], "node/" + self.k8snodes[N]))
        else:
            self.want_kernel(N)
            self.syslog_extra = getattr(self, "syslog_extra", {})
            self.syslog_extra.setdefault(N, []).extend([
                (tk - 0.6, "systemd-logind[%d]: Power key pressed." % rng.randint(700, 1500)),
                (tk - 0.5, "systemd-logind[%d]: Powering Off..." % rng.randint(700, 1500)),
                (tk - 0.4, "systemd-logind[%d]: System is powering down." % rng.randint(700, 1500)),
                (tk - 0.3, "google_guest_agent[%d]: Shutdown request received; running shutdown script." % rng.randint(900, 3000)) if rng.random() < 0.5 else
                (tk - 0.3, "systemd[1]: Stopping Session %d of User %s..." % (rng.randint(2, 40), rng.choice(["ubuntu", "mli", "ml"])))])
            self.ext.append((tk, "extkill", ("node", [N])))
        local = [self.rk(N, l) for l in range(self.gpn)]
        for r in local:
            self.ranks[r].stop_t = min(self.ranks[r].stop_t, tk)
        rep = local[0]
        self.block_others(rep, tk, exclude=local)
        self.set_init(None, N)
        self.notes.append("%s was reclaimed (spot/preemptible VM) %.0f s into the job; its workers received SIGTERM, the rest lost their peers" % (self.hosts[N], tk))

    def sc_pre_sm(self):
        rng = self.rng
        tk = self.T["load_start"][0] + rng.uniform(40, 200)
        self.big_model = True
        self.sm_maxrt = True
        self.ext.append((tk, "extkill", ("stop", None)))
        for rk in self.ranks:
            rk.stop_t = min(rk.stop_t, tk + 0.05)
        self.set_init(None, None)
        self.notes.append("the SageMaker job reached MaxRuntimeInSeconds while the model was still loading and was stopped (SIGTERM to all hosts)")

    # ================================================================ hang
    def sc_hang_marker(self):
        rng = self.rng
        N = self.pick_node(not0=True)
        r = self.rk(N, 0)
        marker = rng.choice(["/tmp/tok_cache/train.done", "/tmp/data_index/.ready", "/dev/shm/packed/READY"])
        c3 = self.colls[2]
        tf = c3.enter[r] - rng.uniform(0.5, 2)
        self.hang(r, tf)
        node = N
        for k in range(int(self.timeout_ms / 1000 / 60) + 3):
            tt = tf + 60 * k + rng.uniform(0, 1)
            txt = "waiting for %s (written by rank 0 after tokenization) ... %ds" % (marker, 60 * k)
            self.w(r, tt, self.clog(node, tt, r, txt) if self.framework == "custom" else "[rank%d] %s" % (r, txt), key=(k < 2))
        self.block_others(r, tf)
        self.desync = {}
        if rng.random() < 0.35 and self.torch >= "2.2":
            others = [x for x in range(self.world) if x != r]
            msg = ("\n\t - To our best knowledge, the lagging/dead/mismatched ranks that caused the desync are:\n\t   - [%d] finished collective #%d, but didn't join collective #%d (count from 1)\n\t - Snapshot of ranks' latest states:\n\t   #%d finished ranks:\n\t     [%d] finished %s\n\t   #%d started ranks:\n\t     [%s] started ALLREDUCE" % (
                r, c3.seq - 1, c3.seq, c3.seq - 1, r, self.colls[1].op, c3.seq, ", ".join(str(x) for x in others)))
            for x in others:
                if rng.random() < 0.5 or x == 0:
                    self.desync[x] = msg
        self.set_init(r, N)
        self.notes.append("rank %d (local rank 0 of %s) polled for a marker file that rank 0 wrote to its own node-local /tmp; it never appeared there, everyone else sat in the post-data barrier until the NCCL timeout" % (r, self.hosts[N]))

    def sc_hang_compile(self):
        rng = self.rng
        N = self.pick_node()
        L = rng.randrange(self.gpn)
        r = self.rk(N, L)
        rk = self.ranks[r]
        lockdir = rng.choice(["/fsx/cache/torchinductor_%s" % rng.choice(["mli", "svc-ml"]), "/home/%s/.triton/cache" % rng.choice(["mli", "akumar"]),
                              "/lustre/proj/llm/.cache/torch_extensions/py310_cu121/fused_adam"])
        if "torch_extensions" in lockdir:
            tf = self.colls[2].enter[r] - rng.uniform(0.5, 3)
        else:
            tf = self.step_coll(1).enter[r] - self.first_step_extra * rng.uniform(0.3, 0.9)
        self.hang(r, tf)
        self.block_others(r, tf)
        if "torch_extensions" in lockdir:
            stack = ["wait (torch/utils/file_baton.py:42)", "_jit_compile (torch/utils/cpp_extension.py:1576)", "load (torch/utils/cpp_extension.py:1312)",
                     "builder (%s/ops/fused_adam.py:27)" % os.path.basename(self.workdir), "__init__ (optim/fused_adam.py:66)", "build_optimizer (%s:212)" % self.script, "main (%s:455)" % self.script, "<module> (%s:530)" % self.script]
        else:
            stack = ["acquire (filelock/_api.py:344)", "__enter__ (filelock/_api.py:376)", "write_atomic (torch/_inductor/codecache.py:411)" if "inductor" in lockdir else "put (triton/runtime/cache.py:120)",
                     "compile (triton/compiler/compiler.py:281)", "_bench (torch/_inductor/runtime/triton_heuristics.py:567)", "autotune_to_one_config (torch/_inductor/runtime/triton_heuristics.py:640)",
                     "run (torch/_inductor/runtime/triton_heuristics.py:670)", "call (/tmp/torchinductor_root/%s/c%s.py:1202)" % (hx(rng, 2), hx(rng, 40)),
                     "_fn (torch/_dynamo/eval_frame.py:451)", "forward (%s/model.py:312)" % self.workdir, "_call_impl (torch/nn/modules/module.py:1520)", "train (%s:241)" % self.script, "main (%s:480)" % self.script, "<module> (%s:512)" % self.script]
        dump = ["Process %d: %s -u %s %s" % (rk.pid, self.pybin, self.script, self.script_args()),
                "Python v%s.%d (%s%s)" % (self.pyver, rng.randint(4, 14), "/usr/bin/python", self.pyver), "",
                "Thread %d (idle): \"MainThread\"" % rk.pid] + ["    " + x for x in stack] + [
                "Thread %d (idle): \"Thread-1\"" % (rk.pid + rng.randint(100, 300)), "    wait (threading.py:324)", "    wait (threading.py:607)", "    run (tqdm/_monitor.py:60)",
                "    _bootstrap_inner (threading.py:1016)", "    _bootstrap (threading.py:973)",
                "Thread %d (idle): \"Thread-4 (_pin_memory_loop)\"" % (rk.pid + rng.randint(301, 600)), "    select (selectors.py:416)", "    wait (multiprocessing/connection.py:931)",
                "    _poll (multiprocessing/connection.py:424)", "    poll (multiprocessing/connection.py:257)", "    get (multiprocessing/queues.py:113)",
                "    do_one_step (torch/utils/data/_utils/pin_memory.py:31)", "    _pin_memory_loop (torch/utils/data/_utils/pin_memory.py:54)", "    run (threading.py:953)", ""]
        tdump = tf + rng.uniform(300, self.timeout_ms / 1000 - 60)
        self.add_file("py-spy_%s_pid%d.txt" % (self.kern_host(N) if self.layout != "sagemaker" else self.hosts[N], rk.pid),
                      "# py-spy dump --pid %d   (taken %s)\n" % (rk.pid, self.wall(N, tdump).strftime("%Y-%m-%d %H:%M:%S")) + "\n".join(dump))
        self.set_init(r, N)
        self.notes.append("rank %d on %s blocked forever on a stale file lock in the shared compile cache (%s) during the first step; the others waited in the first gradient collective" % (r, self.hosts[N], lockdir))

    # ================================================================ data_loader_stall
    def sc_dls_nfs(self):
        rng = self.rng
        N = self.pick_node()
        members = [self.rk(N, l) for l in range(self.gpn)]
        c = self.step_coll(1)
        tf = self.colls[2].done + rng.uniform(0.5, 3)
        server = rng.choice(["fs01", "nfs-data-2", "10.10.4.20", "filer03"])
        self.want_kernel(N)
        self.kmsg(N, tf - rng.uniform(1, 20), "nfs: server %s not responding, still trying" % server)
        for k in range(rng.randint(1, 3)):
            self.kmsg(N, tf + 40 * k + rng.uniform(0, 30), "nfs: server %s not responding, still trying" % server)
        wpid = self.hpid(self.ranks[members[0]]) + rng.randint(100, 900)
        self.kmsg(N, tf + 123, "INFO: task pt_data_worker:%d blocked for more than 122 seconds.\n      Not tainted 5.15.0-%d-generic #%d-Ubuntu\n\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.\ntask:pt_data_worker  state:D stack:0     pid:%d   ppid:%d    flags:0x00004002\nCall Trace:\n <TASK>\n __schedule+0x2cd/0x890\n schedule+0x69/0x110\n rpc_wait_bit_killable+0x2c/0xb0 [sunrpc]\n __wait_on_bit+0x42/0x110\n out_of_line_wait_on_bit+0x8c/0xb0\n __rpc_execute+0x14b/0x4b0 [sunrpc]\n rpc_execute+0x9a/0xd0 [sunrpc]\n rpc_run_task+0x149/0x190 [sunrpc]\n nfs4_call_sync_sequence+0x6f/0xa0 [nfsv4]\n _nfs4_proc_open+0x1ad/0x230 [nfsv4]\n nfs4_do_open+0x2d7/0xa60 [nfsv4]\n nfs4_atomic_open+0xf2/0x100 [nfsv4]\n nfs_atomic_open+0x1e6/0x6a0 [nfs]\n path_openat+0x5c5/0x10a0\n do_filp_open+0xb2/0x160\n do_sys_openat2+0x9f/0x160\n __x64_sys_openat+0x55/0x90\n do_syscall_64+0x59/0xc0\n entry_SYSCALL_64_after_hwframe+0x6e/0xd8\n </TASK>" % (
            wpid, rng.randint(88, 125), rng.randint(98, 135), wpid, self.hpid(self.ranks[members[0]])))
        for r in members:
            self.hang(r, tf + rng.uniform(0, 2))
        rep = members[0]
        self.block_others(rep, tf, exclude=members)
        self.set_init(None, N)
        self.notes.append("the NFS server %s stopped answering %s's first data reads; its DataLoader workers sat in D state, the other nodes timed out in the first gradient all-reduce" % (server, self.hosts[N]))

    def sc_dls_timeout(self):
        rng = self.rng
        N = self.pick_node()
        L = rng.randrange(self.gpn)
        r = self.rk(N, L)
        dlt = rng.choice([120, 300, 600])
        if dlt >= self.timeout_ms / 1000:
            self.timeout_ms = 1800000
        tf0 = self.colls[2].done + rng.uniform(0.5, 2)
        self.hang(r, tf0)
        src = rng.choice(["s3://%s/tokenized/%s/shard-%05d.tar" % (rng.choice(["ml-datasets-prod", "llm-corpus"]), rng.choice(["slimpajama", "fineweb"]), rng.randint(0, 9999)),
                          "/mnt/datasets/webtext/shard-%05d.arrow" % rng.randint(0, 9999)])
        for k in range(rng.randint(2, 5)):
            tt = tf0 + 30 * (k + 1) + rng.uniform(0, 5)
            self.w(r, tt, "[rank%d] %s: read timed out after 30s, retrying (attempt %d/10)" % (r, src, k + 1))
        tf = tf0 + dlt + rng.uniform(0.1, 1)
        fr = self.frames("data") + [(self.site + "/torch/utils/data/dataloader.py", 1328 if self.torch < "2.4" else 1448, "_next_data", "idx, data = self._get_data()"),
                                    (self.site + "/torch/utils/data/dataloader.py", 1284 if self.torch < "2.4" else 1402, "_get_data", "success, data = self._try_get_data()"),
                                    (self.site + "/torch/utils/data/dataloader.py", 1145 if self.torch < "2.4" else 1256, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {timeout} seconds') from e")]
        inner = pytb([(self.site + "/torch/utils/data/dataloader.py", 1132 if self.torch < "2.4" else 1243, "_try_get_data", "data = self._data_queue.get(timeout=timeout)"),
                      ("/usr/lib/python%s/multiprocessing/queues.py" % self.pyver, 114, "get", "raise Empty")], "_queue.Empty")
        tb = inner + "\n\nThe above exception was the direct cause of the following exception:\n\n" + pytb(fr, "RuntimeError: DataLoader timed out after %d seconds" % dlt)
        self.ranks[r].hung = False
        self.w(r, tf, tb, key=True)
        self.rank_tb[r] = tb
        self.ranks[r].self_exit = (tf + rng.uniform(0.2, 1.5), 1)
        self.block_others(r, tf0)
        self.set_init(r, N)
        self.notes.append("rank %d's DataLoader never produced its first batch (reads of %s kept timing out); it raised 'DataLoader timed out' after %d s while the others waited in the first all-reduce" % (r, src, dlt))

    # ================================================================ collective_mismatch
    def fp(self, seq, op, shape, dtype):
        return "CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%s], TensorDtypes=%s, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))" % (
            seq, op, shape, dtype)

    def sc_cm_detail(self):
        rng = self.rng
        N = self.pick_node()
        c2 = self.colls[1]
        seq = c2.seq
        odd = [self.rk(N, l) for l in range(self.gpn)]
        self.git = (rng.choice(["3f2a9c1", "a81d0e7", "5be4f02"]), rng.choice(["7b1e0d4", "c09a3f8", "e44d912"]))
        for rk in self.ranks:
            r = rk.r
            t = c2.enter[r] + rng.uniform(0.05, 1.5)
            mine = ("BROADCAST", "1", "Long") if r in odd else ("ALLREDUCE", "1", "Float")
            ref_r = 0 if r != 0 else odd[0]
            ref = ("BROADCAST", "1", "Long") if ref_r in odd else ("ALLREDUCE", "1", "Float")
            if mine == ref:
                ref_r = odd[0] if r not in odd else (0 if 0 not in odd else self.rk((N + 1) % self.n_nodes, 0))
                ref = ("BROADCAST", "1", "Long") if ref_r in odd else ("ALLREDUCE", "1", "Float")
            msg = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects: \t Op type: %svs %s  Tensor Tensor dtypes: %svs %s" % (
                r, self.fp(seq, mine[0], mine[1], mine[2]), ref_r, self.fp(seq, ref[0], ref[1], ref[2]), mine[0], ref[0], mine[2], ref[2])
            fn = "broadcast" if r in odd else "all_reduce"
            scr = self.workdir + "/" + self.script
            tb = pytb([(scr, self.lno("mod", 300, 700), "<module>", "main()"), (scr, self.lno("mainresume", 380, 520), "main", "start_step = sync_resume_state(cfg, model)"),
                       (scr, 148, "sync_resume_state", "dist.%s(t, %s)" % (fn, "src=0" if fn == "broadcast" else "op=dist.ReduceOp.MAX"))] + self.c10d_frames(fn), msg)
            self.die(r, t, tb)
        self.set_init(None, N)
        self.mismatch_node = N
        self.notes.append("%s ran an older build of the training code (commit %s vs %s) that issued a BROADCAST where the others issued an ALLREDUCE; TORCH_DISTRIBUTED_DEBUG=DETAIL caught it" % (self.hosts[N], self.git[1], self.git[0]))

    def sc_cm_wd(self):
        rng = self.rng
        c3 = self.colls[2]
        seq = c3.seq + 1
        r0 = 0
        big = self.params_per_rank() // rng.choice([64, 128, 256])
        cb = Coll(seq, "BROADCAST", 1, 1, "resume")
        ca = Coll(seq, "ALLREDUCE", big, big, "resume")
        tstart = c3.done + rng.uniform(0.2, 2)
        for rk in self.ranks:
            cc = cb if rk.r == r0 else ca
            cc.enter[rk.r] = tstart + rng.uniform(0, 1.5)
            rk.block = cc
            rk.stop_t = cc.enter[rk.r] + 0.001
        cb.enter.update({k: v for k, v in ca.enter.items()})
        ca.enter.update({k: v for k, v in cb.enter.items()})
        self.set_init(r0, 0)
        self.notes.append("on resume, rank 0 alone broadcast the restored step counter (BROADCAST, 1 element) while every other rank entered the loss-scaler ALLREDUCE (%d elements) with the same sequence number; all ranks hung until the watchdog" % big)

    # ================================================================ straggler
    def pre_st_node(self):
        rng = self.rng
        self.st_node = self.pick_node()
        self.st_factor = rng.uniform(1.5, 2.4)
        for l in range(self.gpn):
            self.rank_speed[self.rk(self.st_node, l)] *= self.st_factor

    def pre_st_rank(self):
        rng = self.rng
        self.st_node = self.pick_node()
        self.st_local = rng.randrange(self.gpn)
        self.st_factor = rng.uniform(1.4, 2.2)
        self.rank_speed[self.rk(self.st_node, self.st_local)] *= self.st_factor

    def straggler_common(self, slow_ranks):
        rng = self.rng
        self.plan_steps()
        # per-rank timing hook output every k steps
        every = rng.choice([5, 10, 10, 20])
        for k, c in enumerate(self.step_colls, start=1):
            if k % every and k != 2:
                continue
            start = self.step_start[k - 1]
            mx = max(c.enter.values())
            for rk in self.ranks:
                comp = c.enter[rk.r] - start
                wait = mx - c.enter[rk.r] + self.step_time * rng.uniform(0.03, 0.08)
                if rk.local == 0 or rk.r in slow_ranks or rng.random() < 0.25:
                    self.emit(c.done + 0.02, "wn", rk.node, "[timing] step=%d rank=%d host=%s fwd_bwd=%.3fs grad_sync_wait=%.3fs data=%.3fs" % (
                        k, rk.r, self.hosts[rk.node], comp * 0.93, wait, comp * 0.02 + rng.uniform(0.001, 0.02)), rk.r)
        if self.framework == "megatron":
            for k, c in enumerate(self.step_colls, start=1):
                if k % self.log_every == 0:
                    mins = min(c.enter[r] for r in range(self.world)) - self.step_start[k - 1]
                    maxs = max(c.enter[r] for r in range(self.world)) - self.step_start[k - 1]
                    self.emit(c.done + 0.03, "wn", self.ranks[0].node, "(min, max) time across ranks (ms):\n    forward-backward ...............................: (%.2f, %.2f)\n    optimizer ......................................: (%.2f, %.2f)" % (
                        mins * 1000, maxs * 1000, rng.uniform(20, 60), rng.uniform(60, 140)), 0)
        # job ends: user cancels after watching it crawl
        tcancel = self.step_colls[min(len(self.step_colls) - 1, rng.randint(25, 60))].done + rng.uniform(5, 60)
        L = self.layout
        self.ext.append((tcancel, "extkill", ({"slurm": "user", "slurm_tasks": "user", "k8s_pytorchjob": "delete", "sagemaker": "stop", "torchrun_nodes": "ctrlc"}[L], None)))
        for rk in self.ranks:
            rk.stop_t = min(rk.stop_t, tcancel)

    def sc_st_node(self):
        rng = self.rng
        N = self.st_node
        slow = [self.rk(N, l) for l in range(self.gpn)]
        self.straggler_common(slow)
        t = self.step_colls[10].done
        if self.layout != "sagemaker":
            reason = rng.choice(["thermal", "power"])
            q = ["$ nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons'  # on %s" % self.kern_host(N)]
            for l in range(self.gpn):
                q += ["GPU 00000000:%s:00.0" % self.bus[l].upper(), "    Clocks Event Reasons" if self.driver >= "535" else "    Clocks Throttle Reasons",
                      "        Idle                              : Not Active", "        Applications Clocks Setting       : Not Active",
                      "        SW Power Cap                      : %s" % ("Active" if reason == "power" else "Not Active"),
                      "        HW Slowdown                       : Active",
                      "            HW Thermal Slowdown           : %s" % ("Active" if reason == "thermal" else "Not Active"),
                      "            HW Power Brake Slowdown       : %s" % ("Active" if reason == "power" else "Not Active"),
                      "        Sync Boost                        : Not Active", "        SW Thermal Slowdown               : %s" % ("Active" if reason == "thermal" else "Not Active"),
                      "        Display Clock Setting             : Not Active"]
            self.add_file("perf_%s.txt" % self.kern_host(N), "\n".join(q) + "\n")
            dm = ["# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk", "# Idx      W      C      C      %      %      %      %      %      %    MHz    MHz"]
            for _ in range(3):
                for l in range(self.gpn):
                    dm.append("    %d    %3d     %2d     %2d    %3d     %2d      0      0      0      0   %4d   %4d" % (
                        l, rng.randint(280, 420) if reason == "power" else rng.randint(350, 600), rng.randint(84, 92) if reason == "thermal" else rng.randint(55, 70),
                        rng.randint(70, 95), rng.randint(95, 100), rng.randint(20, 45), 2619 if self.h100 else 1593, rng.randint(900, 1250)))
            self.add_file("dmon_%s.txt" % self.kern_host(N), "$ nvidia-smi dmon -s pucm -c 3\n" + "\n".join(dm) + "\n")
        self.set_init(None, N)
        self.notes.append("all GPUs of %s were clock-throttled (HW slowdown) from the start; every step ran at ~%.1fx and the user cancelled the run" % (self.hosts[N], self.st_factor))

    def sc_st_rank(self):
        rng = self.rng
        N, L = self.st_node, self.st_local
        r = self.rk(N, L)
        self.straggler_common([r])
        if self.layout != "sagemaker" and rng.random() < 0.8:
            q = ["$ nvidia-smi -q -i %d -d PCIE,PERFORMANCE   # on %s" % (L, self.kern_host(N)), "GPU 00000000:%s:00.0" % self.bus[L].upper(),
                 "    PCI", "        GPU Link Info", "            PCIe Generation", "                Max                       : %d" % (5 if self.h100 else 4),
                 "                Current                   : %d" % (5 if self.h100 else 4), "            Link Width", "                Max                       : 16x",
                 "                Current                   : 16x",
                 "    Clocks Event Reasons", "        Idle                              : Not Active", "        SW Power Cap                      : Not Active",
                 "        HW Slowdown                       : Active", "            HW Thermal Slowdown           : Not Active",
                 "            HW Power Brake Slowdown       : Active", "        SW Thermal Slowdown               : Not Active"]
            self.add_file("gpu%d_%s.txt" % (L, self.kern_host(N)), "\n".join(q) + "\n")
        self.set_init(r, N)
        self.notes.append("GPU %d on %s (rank %d) was held in HW power-brake slowdown; it was ~%.1fx slower in every step and everyone else waited for it" % (L, self.hosts[N], r, self.st_factor))

    # ================================================================ unknown
    def sc_unk_silent(self):
        rng = self.rng
        N = self.pick_node()
        L = rng.randrange(self.gpn)
        r = self.rk(N, L)
        c = rng.choice([self.colls[1], self.colls[2], self.step_coll(1)])
        tf = c.enter[r] - rng.uniform(1, 10)
        self.die(r, tf, None, code=1, delay=(0.0, 0.2))
        self.block_others(r, tf)
        self.set_init(r, N)
        self.notes.append("rank %d on %s exited with status 1 without printing anything (its own log went to a file that is not in the bundle)" % (r, self.hosts[N]))

    def sc_unk_k8s(self):
        rng = self.rng
        N = self.pick_node(not0=True)
        tf = rng.choice([self.T["load_start"][self.rk(N, 0)] + rng.uniform(5, 60), self.step_coll(1).enter[self.rk(N, 0)] - 2])
        code = rng.choice([1, 137, 139])
        self.k8s_lost_logs = (N, code, tf)
        local = [self.rk(N, l) for l in range(self.gpn)]
        for r in local:
            self.ranks[r].stop_t = min(self.ranks[r].stop_t, tf)
            self.ranks[r].self_exit = (tf + 0.02, -9)
        self.agent_oom_killed = (N, tf + 0.03)
        self.block_others(local[0], tf, exclude=local)
        self.set_init(None, N)
        self.notes.append("pod %s terminated with exit code %d (reason Error, not OOMKilled); its container log was lost with the pod, no node logs were attached" % (self.pods[N], code))

    def sc_unk_trunc(self):
        self.sc_unk_silent()
        self.trunc_head = True
        self.initiator = None
        self.notes.append("the bundle only has the tail of the job output")


def fmt_mib(mb):
    if mb >= 1024:
        return "%.2f GiB" % (mb / 1024.0)
    return "%.2f MiB" % mb


# ====================================================================== healthy runs, launcher lines
class Life:
    def misc(self):
        rng = self.rng
        self.nccl_async_env = rng.random() < 0.5
        self.no_ipv6 = rng.random() < 0.35
        self.accel_state = rng.random() < 0.5
        self.clog_fmt = rng.randint(0, 1)
        self.resume_iter = rng.choice([0, 0, 1000, 2500, 12000])
        self.te_dir = hx(rng, 8)
        self.rdzv_id_short = rng.choice(["none", "%d" % self.jobid, "job-%s" % hx(rng, 6)])
        self.sm_secondary = []
        self.open_ended = False
        self.agent_level = False
        self.rdzv = rng.choice(["c10d", "c10d", "static"]) if self.layout != "sagemaker" else "static"
        self.debug_detail = False

    def variant_hints(self):
        v = self.variant
        rng = self.rng
        if v == "py_pp_shape":
            self.framework = "megatron"
            if self.n_nodes < 2:
                self.n_nodes = 2
        if v in ("py_ordinal", "nv_fm", "nv_xid74"):
            self.gpn = 8
        if v == "cm_detail":
            self.debug_detail = True
        if v in ("net_rdzv", "py_port", "py_nnodes") and self.layout != "slurm_tasks":
            self.rdzv = "c10d"
        if v in ("oom_stage",) and self.framework == "megatron" and self.n_nodes < 2:
            self.n_nodes = 2
        self.world = self.n_nodes * self.gpn

    def launcher_lines(self):
        rng = self.rng
        L = self.layout
        for n in range(self.n_nodes):
            t = self.T["launch"][n]
            if L == "slurm_tasks":
                continue
            if L == "sagemaker":
                self.sm_banner(n, t - rng.uniform(15, 40))
            if L == "torchrun_nodes" and rng.random() < 0.5:
                self.a(n, t - 0.3, "+ " + self.torchrun_cmd(n))
            if L == "k8s_pytorchjob":
                self.a(n, t - 0.2, "[entrypoint] %s starting torchrun on node %s (pod %s, node_rank=%d, nnodes=%d, nproc_per_node=%d)" % (
                    self.wall(n, t).strftime("%Y-%m-%dT%H:%M:%SZ"), self.k8snodes[n], self.pods[n], n, getattr(self, "nnodes_cfg", self.n_nodes), self.gpn))
            if self.rdzv == "c10d" and L != "sagemaker" and rng.random() < 0.3:
                self.a(n, t + 0.01, "master_addr is only used for static rdzv_backend and when rdzv_endpoint is not specified.")
            if self.gpn > 1:
                self.a(n, t + 0.02, self.omp_banner(n, t + 0.02))
            if n == 0 and self.no_ipv6 and self.style != "v20":
                self.a(n, t + 0.05, "[W socket.cpp:464] [c10d] The server socket cannot be initialized on [::]:%d (errno: 97 - Address family not supported by protocol)." % self.port
                       if self.style != "v24" else "[W%s socket.cpp:%d] [c10d] The server socket cannot be initialized on [::]:%d (errno: 97 - Address family not supported by protocol)." % (self.ts_glog9(n, t + 0.05, ""), 464, self.port))

    def torchrun_cmd(self, n):
        nn = getattr(self, "nnodes_cfg", self.n_nodes)
        if self.rdzv == "c10d":
            return "torchrun --nnodes=%d --nproc_per_node=%d --rdzv_id=%s --rdzv_backend=c10d --rdzv_endpoint=%s:%d %s%s %s" % (
                nn, self.gpn, self.rdzv_id_short, self.master, self.port, "--tee 3 " if self.tee_prefix else "", self.script, self.script_args())
        return "torchrun --nnodes=%d --nproc_per_node=%d --node_rank=%d --master_addr=%s --master_port=%d %s%s %s" % (
            nn, self.gpn, n, self.master, self.port, "--tee 3 " if self.tee_prefix else "", self.script, self.script_args())

    def script_args(self):
        if getattr(self, "_sargs", None) is None:
            self._sargs = self._script_args()
        return self._sargs

    def _script_args(self):
        if self.framework == "megatron":
            return "--tensor-model-parallel-size %d --pipeline-model-parallel-size %d --seq-length %d --micro-batch-size %d --global-batch-size %d --bf16 --load %s" % (
                self.tp, self.pp, self.seq_len, self.mbs, self.gbs, self.ckpt_dir)
        if self.framework == "hf":
            return "--model_name_or_path %s --bf16 True --per_device_train_batch_size %d --gradient_accumulation_steps %d --ddp_timeout %d --output_dir /fsx/out/run-%s" % (
                self.ckpt_dir, self.mbs, max(1, self.gbs // (self.mbs * self.world)), self.timeout_ms // 1000, hx(self.rng, 4))
        return "--config configs/%s.yaml" % self.rng.choice(["pretrain_8b", "sft_v3", "llama70b_cont", "base"])

    # ---------------------------------------------------------------- healthy
    def healthy_scenario(self):
        rng = self.rng
        extras = rng.sample(["rdzv_retry", "nccl_retry", "hf429", "slow_nfs", "old_xid", "warn", "ecc_ok", "slow_start"], rng.randint(2, 4))
        self.variant = "healthy:" + "+".join(extras)
        L = self.layout
        for e in extras:
            if e == "rdzv_retry" and L != "slurm_tasks":
                for n in range(1, self.n_nodes):
                    t = self.T["launch"][n]
                    for k in range(rng.randint(2, 6)):
                        tt = t + 1 + 5 * k
                        if tt > self.T["rdzv"] - 0.5:
                            break
                        if L == "k8s_pytorchjob":
                            msg = "[W socket.cpp:%d] [c10d] The IPv6 network addresses of (%s, %d) cannot be retrieved (gai error: -2 - Name or service not known)." % (217 if self.torch < "2.4" else 251, self.master, self.port)
                        else:
                            msg = "[W socket.cpp:%d] [c10d] The client socket has failed to connect to [%s]:%d (errno: 111 - Connection refused)." % (601 if self.torch < "2.4" else 752, self.master, self.port)
                        self.a(n, tt, msg)
                if L == "k8s_pytorchjob":
                    self.T["launch"][0] = max(self.T["launch"][0], 0)
                self.notes.append("workers retried the rendezvous endpoint until the master came up")
            elif e == "nccl_retry" and self.nccl_debug:
                for rk in rng.sample(self.ranks, min(len(self.ranks), rng.randint(2, 6))):
                    t = self.colls[0].enter[rk.r] + 0.3
                    P = self.nccl_pfx(rk.r, tid=True)
                    self.emit(t, "wn", rk.node, "%s NCCL INFO Call to connect returned Connection refused, retrying" % P, rk.r)
                    self.emit(t + 0.1, "wn", rk.node, "%s NCCL INFO Call to connect returned Connection refused, retrying" % P, rk.r)
                self.notes.append("NCCL bootstrap retried a few connects")
            elif e == "hf429":
                N = self.pick_node()
                url = "https://huggingface.co/%s/resolve/main/tokenizer_config.json" % rng.choice(["meta-llama/Meta-Llama-3-8B", "mistralai/Mistral-7B-v0.1", "Qwen/Qwen2-7B"])
                for l in rng.sample(range(self.gpn), rng.randint(1, self.gpn)):
                    r = self.rk(N, l)
                    t0 = self.T["imp"][r] + rng.uniform(0.5, 3)
                    for k in range(1, rng.randint(2, 3)):
                        self.emit(t0 + 2 ** k, "wn", N, "HTTP Error 429 thrown while requesting HEAD %s\nRetrying in %ds [Retry %d/5]." % (url, 2 ** (k - 1), k), r)
                self.notes.append("some ranks on %s were rate-limited by the Hub but succeeded on retry" % self.hosts[N])
            elif e == "slow_nfs" and L != "sagemaker":
                N = self.pick_node()
                self.want_kernel(N)
                t = self.T["load_start"][self.rk(N, 0)] + 5
                srv = rng.choice(["fs01", "nfs-ckpt", "10.10.4.20"])
                self.kmsg(N, t, "nfs: server %s not responding, still trying" % srv)
                self.kmsg(N, t + rng.uniform(20, 140), "nfs: server %s OK" % srv)
                self.notes.append("NFS hiccup on %s during checkpoint load, recovered" % self.hosts[N])
            elif e == "old_xid" and L != "sagemaker":
                N = self.pick_node()
                self.want_kernel(N)
                L_ = rng.randrange(self.gpn)
                tp = -rng.uniform(3600 * 5, 3600 * 24 * 6)
                code = rng.choice([13, 31, 43, 45])
                msg = {13: "Graphics SM Warp Exception on (GPC 2, TPC 4, SM 0): Out Of Range Address", 31: "channel 0x00000019, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC3 GPCCLIENT_T1_1 faulted @ 0x7f4c_2e000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ",
                       43: "Ch 00000018", 45: "Ch 00000010"}[code]
                self.kmsg(N, tp, self.xid(N, L_, code, rng.randint(2000, 400000), msg, name=rng.choice(["python3", "python", "pt_main_thread"])))
                self.notes.append("dmesg on %s shows an old application Xid %d from a previous user's job" % (self.hosts[N], code))
            elif e == "warn":
                for rk in self.ranks:
                    c = self.step_colls[0]
                    self.emit(self.step_start[0] + 2 + rk.local * 0.01, "wn", rk.node, "%s/torch/utils/checkpoint.py:%d: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.5 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants.\n  return fn(*args, **kwargs)" % (self.site, 464 if self.torch < "2.4" else 1399), rk.r)
                    if self.framework != "megatron" and rng.random() < 0.5:
                        self.emit(c.enter[rk.r] + 0.5, "wn", rk.node, "%s Warning: find_unused_parameters=True was specified in DDP constructor, but did not find any unused parameters in the forward pass. This flag results in an extra traversal of the autograd graph every iteration,  which can adversely affect performance. If your model indeed never has any unused parameters in the forward pass, consider turning this flag off. Note that this warning may be a false positive if your model has flow control causing later iterations to have unused parameters. (function operator())" % (
                            self.c10_pfx(rk.r, rk.node, c.enter[rk.r], "W", "reducer.cpp", 1389)), rk.r)
            elif e == "ecc_ok" and L != "sagemaker":
                N = self.pick_node()
                L_ = rng.randrange(self.gpn)
                q = ["$ nvidia-smi -q -d ECC,ROW_REMAPPER -i %d" % L_, "GPU 00000000:%s:00.0" % self.bus[L_].upper(), "    ECC Mode", "        Current                           : Enabled",
                     "        Pending                           : Enabled", "    ECC Errors", "        Volatile", "            SRAM Correctable              : %d" % rng.randint(1, 9),
                     "            SRAM Uncorrectable Parity     : 0", "            SRAM Uncorrectable SEC-DED    : 0", "            DRAM Correctable              : %d" % rng.randint(0, 30),
                     "            DRAM Uncorrectable            : 0", "    Remapped Rows", "        Correctable Error                 : %d" % rng.randint(1, 3),
                     "        Uncorrectable Error               : 0", "        Pending                           : No", "        Remapping Failure Occurred        : No", ""]
                self.add_file("ecc_%s_gpu%d.txt" % (self.kern_host(N), L_), "\n".join(q))
                self.notes.append("a few correctable ECC errors / remapped rows on one GPU, nothing pending")
            elif e == "slow_start":
                self.notes.append("model load took a long time but finished well within the timeout")
        # healthy end
        if rng.random() < 0.55:
            self.open_ended = True
            self.notes.append("bundle taken while the job was still training")
        else:
            self.complete_ok()

    def complete_ok(self):
        rng = self.rng
        last = self.step_colls[-1]
        te = last.done + rng.uniform(2, 30)
        pr = self.world - 1 if self.framework == "megatron" else 0
        node = self.ranks[pr].node
        if self.framework == "hf":
            self.emit(te - 1, "wn", node, "{'train_runtime': %.4f, 'train_samples_per_second': %.3f, 'train_steps_per_second': %.3f, 'train_loss': %.6f, 'epoch': %.2f}" % (
                te - self.step_start[0], self.gbs * self.n_steps / (te - self.step_start[0]), self.n_steps / (te - self.step_start[0]), self.loss0 * 0.6, 1.0), pr)
        else:
            self.emit(te - 1, "wn", node, (self.clog(node, te - 1, pr, "reached max_steps=%d, saving checkpoint and exiting" % self.n_steps)
                                           if self.framework == "custom" else "[after training is done] datetime: %s " % self.wall(node, te).strftime("%Y-%m-%d %H:%M:%S")), pr)
        self.total_steps = self.n_steps
        for rk in self.ranks:
            rk.exit_t = te + rng.uniform(0, 3)
            rk.exit_code = 0
        self.exit_ok = True
        self.ok_t = te + 4

    def sm_banner(self, n, t):
        rng = self.rng
        host = self.hosts[n]
        ts = lambda x: self.ts_py(n, x)
        env = {"additional_framework_parameters": {"sagemaker_torch_distributed_enabled": True, "sagemaker_instance_type": "ml.p4d.24xlarge" if not self.h100 else "ml.p5.48xlarge"},
               "channel_input_dirs": {"train": "/opt/ml/input/data/train"}, "current_host": host, "current_instance_group": "homogeneousCluster",
               "framework_module": "sagemaker_pytorch_container.training:main", "hosts": self.hosts, "is_master": n == 0, "job_name": self.smjob,
               "master_hostname": "algo-1", "module_name": self.script.replace(".py", ""), "network_interface_name": "eth0", "num_gpus": self.gpn, "num_cpus": 96,
               "user_entry_point": self.script}
        lines = ["%s sagemaker-training-toolkit INFO     Imported framework sagemaker_pytorch_container.training" % ts(t),
                 "%s sagemaker-training-toolkit INFO     No Neurons detected (normal if no neurons installed)" % ts(t + 0.01),
                 "%s sagemaker_pytorch_container.training INFO     Block until all host DNS lookups succeed." % ts(t + 0.05),
                 "%s sagemaker_pytorch_container.training INFO     Invoking TorchDistributed..." % ts(t + 2.1),
                 "%s sagemaker_pytorch_container.training INFO     Invoking user training script." % ts(t + 2.1),
                 "%s sagemaker-training-toolkit INFO     Invoking user script" % ts(t + 9),
                 "", "Training Env:", "", json.dumps(env, indent=4), "", "Environment variables:", "",
                 "SM_HOSTS=%s" % json.dumps(self.hosts).replace(" ", ""), "SM_CURRENT_HOST=%s" % host, "SM_NUM_GPUS=%d" % self.gpn,
                 "SM_USER_ENTRY_POINT=%s" % self.script, "", "Invoking script with the following command:", "",
                 "torchrun --nnodes %d --nproc_per_node %d --master_addr algo-1 --master_port 7777 --node_rank %d %s %s" % (self.n_nodes, self.gpn, n, self.script, self.script_args()), ""]
        self.a(n, t, "\n".join(lines))

    def sm_report_failure(self, node, t, code, killed=False):
        ts = self.ts_py(node, t + 0.5)
        if killed and self.sm_fail is not None and self.sm_fail[1] != node and self.rng.random() < 0.5:
            return
        # error message = tail of the last traceback on this node, or the ChildFailedError
        last = None
        for e in sorted(self.ev, key=lambda x: (x[0], x[1])):
            if e[3] == node and e[2] in ("w", "a") and e[0] <= t + 0.01 and ("Error" in e[5] or "error" in e[5]):
                last = e[5]
        msg = (last or "").strip().split("\n")
        msg = "\n ".join(msg[-12:])
        cmd = "torchrun --nnodes %d --nproc_per_node %d --master_addr algo-1 --master_port 7777 --node_rank %d %s %s" % (self.n_nodes, self.gpn, node, self.script, self.script_args())
        text = "%s sagemaker-training-toolkit INFO     Waiting for the process to finish and give a return code.\n%s sagemaker-training-toolkit INFO     Done waiting for a return code. Received %d from exiting process.\n%s sagemaker-training-toolkit ERROR    Reporting training FAILURE\n%s sagemaker-training-toolkit ERROR    ExecuteUserScriptError:\nExitCode %d\nErrorMessage \"%s\"\nCommand \"%s\", exit code: %d" % (
            ts, ts, code, ts, ts, code, msg, cmd, code)
        self.a(node, t + 0.5, text, key=True)
        if self.sm_fail and self.sm_fail[1] == node and not hasattr(self, "sm_reason"):
            self.sm_reason = "AlgorithmError: ExecuteUserScriptError:\nExitCode %d\nErrorMessage \"%s\"\nCommand \"%s\", exit code: %d" % (code, msg, cmd, code)


# ====================================================================== extra engine handlers
class Engine2:
    def on_agent_rdzv_fail(self, t, node):
        if self.agent_state[node] != "run":
            return
        txt = self.agent_rdzv_fail[node][1]
        self.a(node, t, txt, key=True)
        self.agent_state[node] = "done"
        self.agent_end[node] = t + 0.01
        self.after_node_failed(t + 0.05, node)

    def on_container_killed(self, t, data):
        node, reason, code = data
        if self.agent_state[node] == "done":
            return
        self.agent_state[node] = "done"
        self.agent_end[node] = t
        for rk in self.ranks:
            if rk.node == node and rk.exit_t > t:
                rk.exit_t, rk.exit_code = t, -9
        self.pod_status[node] = ("Failed", reason, code, t)
        self.node_fail_t[node] = t
        if self.layout == "k8s_pytorchjob":
            rt = "Master" if node == 0 else "Worker"
            if self.job_failed_t is None:
                tj = t + self.rng.uniform(0.5, 4)
                self.job_failed_t = tj
                self.k8s_events.append((tj, "Normal", "PyTorchJobFailed", "pytorchjob-controller", "PyTorchJob %s is failed because 1 %s replica(s) failed." % (self.kjob, rt)))
                for n2 in range(self.n_nodes):
                    if self.agent_state[n2] == "run" and self.k8s_clean == "Running":
                        self.k8s_deleted.append(n2)
                        tk = tj + self.rng.uniform(0.3, 3)
                        self.k8s_events.append((tk, "Normal", "SuccessfulDeletePod", "pytorchjob-controller", "Deleted pod: %s" % self.pods[n2]))
                        self.push(tk + 0.05, "kill_node", (n2, -15))

    def on_slurm_msg(self, t, data):
        self.s(t, data[1], data[0], key=True)


# ====================================================================== rendering
class Render:
    def keep(self, e):
        t, _, ch, node, r, text, key = e
        if self.snap_t is not None and t > self.snap_t:
            return False
        if ch == "wn":
            if self.agent_level and self.layout != "slurm_tasks":
                return False
            rk = self.ranks[r]
            return t < rk.stop_t and t < rk.exit_t
        if ch == "w":
            return t <= self.ranks[r].exit_t + 0.5
        if ch == "a":
            return t <= self.agent_end[node] + 0.5
        return True

    def prefix_lines(self, text, pfx):
        if not pfx:
            return text
        return "\n".join(pfx + ln for ln in text.split("\n"))

    def line_prefix(self, e):
        t, _, ch, node, r, text, key = e
        p = ""
        if self.layout == "k8s_pytorchjob" and self.k8s_ts_on:
            p += self.wall(node, t).strftime("%Y-%m-%dT%H:%M:%S") + ".%09dZ " % (int(self.wall(node, t).microsecond * 1000 + (e[1] * 37) % 1000))
        if self.srun_label and ch in ("w", "wn", "a"):
            p += "%d: " % node
        if self.tee_prefix and ch in ("w", "wn"):
            p += "[default%d]:" % self.ranks[r].local
        return p

    def assemble(self, evs):
        out = []
        for e in sorted(evs, key=lambda x: (x[0], x[1])):
            p = self.line_prefix(e)
            out.append(self.prefix_lines(e[5], p))
        return "\n".join(out) + ("\n" if out else "")

    def kernel_since(self, node):
        ts = [t for (t, x) in self.kernel.get(node, [])] + [t for (t, x) in getattr(self, "syslog_extra", {}).get(node, [])] + [-5400.0]
        return self.wall(node, min(ts) - self.rng.uniform(60, 1800)).strftime("%Y-%m-%d %H:%M")

    def kernel_text(self, node, t_end):
        rng = self.rng
        evs = list(self.kernel.get(node, []))
        base = [(t, x) for (t, x) in evs]
        self.kernel[node] = []
        t0 = min([t for (t, x) in base] + [-5000.0])
        self.kernel_noise(node, t0, max(60.0, t_end), rng.randint(3, 9))
        noise = self.kernel[node]
        self.kernel[node] = evs
        allk = sorted(base + noise, key=lambda x: x[0])
        allk = [x for x in allk if x[0] <= t_end + 600]
        lines = []
        for t, x in allk:
            for i, ln in enumerate(x.split("\n")):
                lines.append(self.kline(node, t, ln))
        return "\n".join(lines) + "\n"

    def syslog_text(self, node, items):
        out = []
        for t, x in sorted(items, key=lambda y: y[0]):
            out.append("%s %s %s" % (self.wall(node, t).strftime("%b %d %H:%M:%S"), self.kern_host(node), x))
        return "\n".join(out) + "\n"

    def render(self, outdir):
        rng = self.rng
        L = self.layout
        os.makedirs(outdir, exist_ok=True)
        evs = [e for e in self.ev if self.keep(e)]
        t_end = max([e[0] for e in evs] + [0.0])
        self.t_end = t_end
        files = {}
        if L == "slurm":
            name = rng.choice(["slurm-%d.out" % self.jobid, "%s-%d.out" % (self.jobname, self.jobid)])
            files[name] = self.slurm_header() + self.assemble(evs)
        elif L == "slurm_tasks":
            main = [e for e in evs if e[2] == "s"]
            files["logs/%s-%d.out" % (self.jobname, self.jobid)] = self.slurm_header() + self.assemble(main)
            for rk in self.ranks:
                mine = [e for e in evs if e[2] in ("w", "wn") and e[4] == rk.r]
                files["logs/%s-%d-%d.out" % (self.jobname, self.jobid, rk.r)] = self.assemble(mine)
        elif L == "torchrun_nodes":
            pat = self.node_log_pat
            for n in range(self.n_nodes):
                mine = [e for e in evs if e[3] == n and e[2] != "s"]
                files[pat.format(n=n, h=self.hosts[n])] = self.assemble(mine)
        elif L == "k8s_pytorchjob":
            for n in range(self.n_nodes):
                mine = [e for e in evs if e[3] == n and e[2] != "s"]
                lost = getattr(self, "k8s_lost_logs", None)
                if lost and lost[0] == n:
                    files["%s.log" % self.pods[n]] = "unable to retrieve container logs for containerd://%s\n" % hx(rng, 64)
                    continue
                files["%s.log" % self.pods[n]] = self.assemble(mine)
            files.update(self.k8s_describe(t_end))
        else:
            for n in range(self.n_nodes):
                mine = [e for e in evs if e[3] == n and e[2] != "s"]
                epoch = int((self.t0 - dt.datetime(1970, 1, 1)).total_seconds()) + n * 3
                files["%s/algo-%d-%d.log" % (self.smjob, n + 1, epoch)] = self.assemble(mine)
            files["describe-training-job.json"] = self.sm_describe(t_end)
        # node level logs
        for node in getattr(self, "kernel_nodes", []):
            if L == "sagemaker":
                continue
            since = self.kernel_since(node)
            kt = self.kernel_text(node, t_end)
            h = self.kern_host(node)
            if self.kernel_fmt == "journal":
                items = [(t, "kernel: " + x) for (t, x) in []]
                ktxt = kt
                extra = getattr(self, "syslog_extra", {}).get(node, [])
                if extra:
                    kl = kt.rstrip("\n").split("\n") + [l for l in self.syslog_text(node, extra).rstrip("\n").split("\n")]
                    ktxt = "\n".join(sorted(kl, key=lambda s: s[:15])) + "\n" if False else kt + self.syslog_text(node, extra)
                files[("node_%s_journal.txt" if L == "k8s_pytorchjob" else "journalctl_%s.txt") % h] = "$ journalctl -k --since \"%s\"\n" % since + ktxt if not getattr(self, "syslog_extra", {}).get(node) else "$ journalctl --since \"%s\"\n" % since + ktxt
            else:
                files[("node_%s_dmesg.txt" if L == "k8s_pytorchjob" else "dmesg_%s.txt") % h] = ("$ dmesg -T\n" if self.kernel_fmt == "T" else "$ dmesg\n") + kt
                extra = getattr(self, "syslog_extra", {}).get(node, [])
                if extra:
                    files["syslog_%s.txt" % h] = self.syslog_text(node, extra)
        for k, v in self.files.items():
            files[k] = v
        if L in ("slurm", "slurm_tasks") and rng.random() < 0.45:
            files["sacct.txt"] = self.sacct(t_end)
        if L in ("slurm", "slurm_tasks", "torchrun_nodes") and rng.random() < 0.35:
            files["launch.sh" if L == "torchrun_nodes" else "submit.sbatch"] = self.submit_script()
        # trimming like a user would do
        files = self.trim(files)
        for name, text in files.items():
            p = os.path.join(outdir, name)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w", encoding="utf-8") as f:
                f.write(text)

    def trim(self, files):
        rng = self.rng
        out = {}
        for name, text in files.items():
            lines = text.split("\n")
            if getattr(self, "trunc_head", False) and name.endswith(".out") and len(lines) > 60:
                keep = rng.randint(25, 50)
                lines = lines[-keep:]
                text = "\n".join(lines)
            elif len(lines) > 300 and rng.random() < 0.45:
                # a user pasting the file elides a long run of NCCL INFO / progress noise
                keys = ("Error", "error", "WARN ", "Xid", "FAILED", "Traceback", "exitcode", "Signal", "CANCELLED",
                        "Killed", "imeout", "Watchdog", "srun", "slurmstepd", "Exception")
                best, cur, start = (0, 0), 0, 0
                for i, x in enumerate(lines):
                    if any(k in x for k in keys):
                        cur = 0
                        continue
                    if cur == 0:
                        start = i
                    cur += 1
                    if cur > best[1] - best[0]:
                        best = (start, start + cur)
                a, b = best
                if b - a >= 120:
                    a += rng.randint(5, 15)
                    b -= rng.randint(5, 15)
                    text = "\n".join(lines[:a] + [rng.choice(["[... %d lines removed ...]", "...", "<snip %d lines>", "(... %d lines of NCCL INFO omitted ...)"]).replace("%d", str(b - a))] + lines[b:])
            out[name] = text
        return out

    def slurm_header(self):
        rng = self.rng
        nl = self.nodelist()
        hdr = []
        if rng.random() < 0.7:
            hdr.append("START TIME: %s" % self.wall(0, -3).strftime("%a %b %d %H:%M:%S UTC %Y"))
            hdr.append("SLURM_JOB_ID=%d SLURM_JOB_NODELIST=%s SLURM_NNODES=%d" % (self.jobid, nl, self.n_nodes))
            hdr.append("MASTER_ADDR=%s MASTER_PORT=%d WORLD_SIZE=%d" % (self.master, self.port, getattr(self, "world_cfg", self.world)))
        if rng.random() < 0.25:
            hdr.append("slurmstepd: error: couldn't chdir to `%s': No such file or directory: going to /tmp instead" % rng.choice(["/home/mli/llm", "/nfs/home/jdoe/runs"]))
        if self.layout == "slurm" and rng.random() < 0.5:
            hdr.append("+ srun %s--kill-on-bad-exit=%d bash -c '%s'" % ("--label " if self.srun_label else "", 1 if self.kill_on_bad_exit else 0, self.torchrun_cmd(0).replace("--node_rank=0", "--node_rank=$SLURM_NODEID")))
        if getattr(self, "git", None):
            pass
        return "\n".join(hdr) + ("\n" if hdr else "")

    def nodelist(self):
        h = self.hosts
        pre = h[0].rstrip("0123456789")
        nums = [x[len(pre):] for x in h]
        if all(x.startswith(pre) for x in h) and all(n.isdigit() for n in nums) and len(h) > 1:
            return "%s[%s-%s]" % (pre, nums[0], nums[-1])
        return ",".join(h)

    def sacct(self, t_end):
        if self.healthy and self.open_ended:
            st, ec = "RUNNING", "0:0"
        elif self.healthy:
            st, ec = "COMPLETED", "0:0"
        elif self.cause == "preemption" and self.layout in ("slurm", "slurm_tasks"):
            st, ec = ("PREEMPTED" if "preempt" in " ".join(self.notes) else "TIMEOUT"), "0:0"
        elif self.cause == "straggler" or "cancelled" in " ".join(self.notes):
            st, ec = "CANCELLED by %d" % self.rng.randint(1000, 60000), "0:0"
        elif getattr(self, "slurm_oom", None):
            st, ec = "OUT_OF_MEMORY", "0:125"
        else:
            st, ec = "FAILED", "1:0"
        el = str(dt.timedelta(seconds=int(max(1, t_end))))
        if len(el) < 8:
            el = "0" + el
        def tr(x, w):
            return x if len(x) <= w else x[:w - 1] + "+"
        rows = ["JobID           JobName  Partition      State ExitCode    Elapsed        NodeList ",
                "------------ ---------- ---------- ---------- -------- ---------- --------------- ",
                "%-12s %10s %10s %10s %8s %10s %15s " % (self.jobid, tr(self.jobname, 10), self.partition, tr(st, 10), ec, el, tr(self.nodelist(), 15)),
                "%-12s %10s %10s %10s %8s %10s %15s " % (tr("%d.batch" % self.jobid, 12), "batch", "", tr(st, 10), ec, el, tr(self.hosts[0], 15)),
                "%-12s %10s %10s %10s %8s %10s %15s " % ("%d.0" % self.jobid, "torchrun" if self.layout == "slurm" else "python", "", tr(st, 10), ec, el, tr(self.nodelist(), 15))]
        return "$ sacct -j %d --format=JobID,JobName,Partition,State,ExitCode,Elapsed,NodeList\n" % self.jobid + "\n".join(rows) + "\n"

    def submit_script(self):
        L = self.layout
        lines = ["#!/bin/bash"]
        if L == "torchrun_nodes":
            lines += ["# run on every node with NODE_RANK set", "export NCCL_DEBUG=%s" % ("INFO" if self.nccl_debug else "WARN"),
                      "export NCCL_SOCKET_IFNAME=%s" % self.ifname, self.torchrun_cmd(0).replace("--node_rank=0", "--node_rank=$NODE_RANK") + " 2>&1 | tee %s" % (
                          self.node_log_pat.replace("{n}", "${NODE_RANK}").replace("{h}", "$(hostname)"))]
            return "\n".join(lines) + "\n"
        lines += ["#SBATCH --job-name=%s" % self.jobname, "#SBATCH --nodes=%d" % self.n_nodes, "#SBATCH --gres=gpu:%d" % self.gpn,
                  "#SBATCH --ntasks-per-node=%d" % (1 if L == "slurm" else self.gpn), "#SBATCH --cpus-per-task=%d" % (96 if L == "slurm" else 12),
                  "#SBATCH --partition=%s" % self.partition, "#SBATCH --time=%s" % ("00:%02d:00" % self.time_limit if getattr(self, "time_limit", None) else "48:00:00"),
                  "#SBATCH --output=logs/%x-%j.out", "", "export MASTER_ADDR=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n 1)", "export MASTER_PORT=%d" % self.port,
                  "export NCCL_DEBUG=%s" % ("INFO" if self.nccl_debug else "WARN")]
        if self.debug_detail:
            lines.append("export TORCH_DISTRIBUTED_DEBUG=DETAIL")
        if L == "slurm":
            lines.append("srun %s--kill-on-bad-exit=%d bash -c '%s'" % ("--label " if self.srun_label else "", 1 if self.kill_on_bad_exit else 0,
                                                                       self.torchrun_cmd(0).replace("--node_rank=0", "--node_rank=$SLURM_NODEID")))
        else:
            lines.append("export WORLD_SIZE=%d" % getattr(self, "world_cfg", self.world))
            lines.append("srun --kill-on-bad-exit=%d --output=logs/%%x-%%j-%%t.out bash -c 'RANK=$SLURM_PROCID LOCAL_RANK=$SLURM_LOCALID python -u %s %s'" % (1 if self.kill_on_bad_exit else 0, self.script, self.script_args()))
        return "\n".join(lines) + "\n"

    # ---------------------------------------------------------------- kubernetes
    def k8s_ts(self, t):
        return self.wall(0, t).strftime("%Y-%m-%dT%H:%M:%SZ")

    def k8s_age(self, t, now):
        s = int(max(0, now - t))
        if s < 120:
            return "%ds" % s
        if s < 7200:
            return "%dm" % (s // 60)
        return "%dh" % (s // 3600)

    def k8s_describe(self, t_end):
        rng = self.rng
        files = {}
        now = t_end + rng.uniform(60, 1800)
        ev = [(-rng.uniform(10, 30), "Normal", "SuccessfulCreatePod", "pytorchjob-controller", "Created pod: %s" % p) for p in self.pods]
        ev += [(-rng.uniform(9, 29), "Normal", "SuccessfulCreateService", "pytorchjob-controller", "Created service: %s" % self.pods[0])]
        ev += self.k8s_events
        failed = self.job_failed_t is not None
        if self.healthy and not self.open_ended:
            ev.append((t_end + 2, "Normal", "PyTorchJobSucceeded", "pytorchjob-controller", "PyTorchJob %s is successfully completed." % self.kjob))
        nworkers = self.n_nodes - 1
        conds = [("Created", "PyTorchJobCreated", "PyTorchJob %s is created." % self.kjob, "True", -25),
                 ("Running", "PyTorchJobRunning", "PyTorchJob %s is running." % self.kjob, "False" if (failed or (self.healthy and not self.open_ended)) else "True", max(self.T["launch"]))]
        if failed:
            msg = [e for e in self.k8s_events if e[2] == "PyTorchJobFailed"][0][4]
            conds.append(("Failed", "PyTorchJobFailed", msg, "True", self.job_failed_t))
        elif self.healthy and not self.open_ended:
            conds.append(("Succeeded", "PyTorchJobSucceeded", "PyTorchJob %s is successfully completed." % self.kjob, "True", t_end + 2))
        img = "%s/llm-train:%s" % (rng.choice(["us-docker.pkg.dev/ml-prod/train", "123456789012.dkr.ecr.us-west-2.amazonaws.com", "nvcr.io/nvidia/pytorch"]), rng.choice(["2024.05.1", "v0.9.3", "24.03-py3", "latest"]))
        self.k8s_img = img
        d = ["Name:         %s" % self.kjob, "Namespace:    %s" % self.ns, "Labels:       <none>", "Annotations:  <none>", "API Version:  kubeflow.org/v1", "Kind:         PyTorchJob",
             "Metadata:", "  Creation Timestamp:  %s" % self.k8s_ts(-25), "  Generation:          1", "  Resource Version:    %d" % rng.randint(1000000, 99999999), "  UID:                 %s-%s-%s-%s-%s" % (hx(rng, 8), hx(rng, 4), hx(rng, 4), hx(rng, 4), hx(rng, 12)),
             "Spec:", "  Pytorch Replica Specs:", "    Master:", "      Replicas:        1", "      Restart Policy:  Never", "      Template:", "        Spec:", "          Containers:",
             "            Image:  %s" % img, "            Name:   pytorch", "            Resources:", "              Limits:", "                nvidia.com/gpu:  %d" % self.gpn,
             "    Worker:", "      Replicas:        %d" % nworkers, "      Restart Policy:  Never", "  Run Policy:", "    Clean Pod Policy:  %s" % self.k8s_clean, "    Suspend:           false", "Status:"]
        if failed or (self.healthy and not self.open_ended):
            d.append("  Completion Time:  %s" % self.k8s_ts(conds[-1][4]))
        d.append("  Conditions:")
        for (ty, rs, msg, stt, tt) in conds:
            d += ["    Last Transition Time:  %s" % self.k8s_ts(tt), "    Last Update Time:      %s" % self.k8s_ts(tt), "    Message:               %s" % msg,
                  "    Reason:                %s" % rs, "    Status:                %s" % stt, "    Type:                  %s" % ty]
        d += ["  Replica Statuses:", "    Master:"]
        def cnt(nodes):
            f = sum(1 for n in nodes if self.pod_status.get(n, ("",))[0] == "Failed")
            a = sum(1 for n in nodes if n not in self.pod_status) if not (self.healthy and not self.open_ended) else 0
            s_ = len(nodes) if (self.healthy and not self.open_ended) else 0
            return f, a, s_
        for role, nodes in (("Master", [0]), ("Worker", list(range(1, self.n_nodes)))):
            if role == "Worker":
                d.append("    Worker:")
            f, a, s_ = cnt(nodes)
            if a:
                d.append("      Active:  %d" % a)
            if f:
                d.append("      Failed:  %d" % f)
            if s_:
                d.append("      Succeeded:  %d" % s_)
        d += ["  Start Time:  %s" % self.k8s_ts(-24), "Events:", "  Type     Reason                   Age                 From                   Message",
              "  ----     ------                   ----                ----                   -------"]
        for e in sorted(ev, key=lambda x: x[0]):
            (t, ty, rs, fr, msg) = e[:5]
            if rs in ("NodeShutdown",):
                continue
            d.append("  %-8s %-24s %-19s %-22s %s" % (ty, rs, self.k8s_age(t, now), fr, msg))
        files["describe_pytorchjob.txt"] = "$ kubectl describe pytorchjob %s -n %s\n" % (self.kjob, self.ns) + "\n".join(d) + "\n"
        # pods that ended badly
        for n in range(self.n_nodes):
            st = self.pod_status.get(n)
            if not st or n in self.k8s_deleted:
                continue
            if self.node_fail_t[n] is None and not (getattr(self, "preempt_node", None) and self.preempt_node[0] == n) and rng.random() < 0.5:
                continue
            files["describe_pod_%s.txt" % self.pods[n]] = self.k8s_pod(n, st, now, img)
        gp = ["NAME%s READY   STATUS      RESTARTS   AGE   IP             NODE%s NOMINATED NODE   READINESS GATES" % (" " * (len(self.pods[0]) - 1), " " * (len(self.k8snodes[0]) - 1))]
        for n in range(self.n_nodes):
            if n in self.k8s_deleted:
                continue
            st = self.pod_status.get(n)
            if st:
                stt = {"OOMKilled": "OOMKilled", "Error": "Error"}.get(st[1], "Error")
                rdy = "0/1"
            elif self.healthy and not self.open_ended:
                stt, rdy = "Completed", "0/1"
            else:
                stt, rdy = "Running", "1/1"
            gp.append("%s    %s     %-11s 0          %-5s %-14s %s   <none>           <none>" % (self.pods[n], rdy, stt, self.k8s_age(-30, now), self.ips[n], self.k8snodes[n]))
        files["get_pods.txt"] = "$ kubectl get pods -n %s -l training.kubeflow.org/job-name=%s -o wide\n" % (self.ns, self.kjob) + "\n".join(gp) + "\n"
        if self.k8s_pull_event:
            pass
        evl = ["LAST SEEN   TYPE      REASON                 OBJECT                                 MESSAGE"]
        allev = sorted([(e if len(e) == 6 else e + ("pytorchjob/%s" % self.kjob if e[3] == "pytorchjob-controller" else "node/%s" % self.k8snodes[0],)) for e in ev] + self.pod_events(), key=lambda x: x[0])
        for (t, ty, rs, fr, msg, obj) in allev:
            evl.append("%-11s %-9s %-22s %-38s %s" % (self.k8s_age(t, now), ty, rs, obj[:38], msg))
        if rng.random() < 0.5:
            files["events.txt"] = "$ kubectl get events -n %s --sort-by=.lastTimestamp\n" % self.ns + "\n".join(evl) + "\n"
        return files

    def pod_events(self):
        rng = self.rng
        out = []
        for n in range(self.n_nodes):
            t = self.T["launch"][n]
            out.append((t - rng.uniform(20, 80), "Normal", "Scheduled", "default-scheduler", "Successfully assigned %s/%s to %s" % (self.ns, self.pods[n], self.k8snodes[n]), "pod/" + self.pods[n]))
            out.append((t - rng.uniform(6, 15), "Normal", "Pulled", "kubelet", "Container image \"%s\" already present on machine" % self.k8s_img, "pod/" + self.pods[n]))
            out.append((t - rng.uniform(1, 5), "Normal", "Started", "kubelet", "Started container pytorch", "pod/" + self.pods[n]))
            st = self.pod_status.get(n)
            if st and st[1] == "OOMKilled":
                out.append((st[3] + 1, "Warning", "OOMKilling", "kubelet", "Memory cgroup out of memory: Killed process (python)", "node/" + self.k8snodes[n]))
        return out

    def k8s_pod(self, n, st, now, img):
        rng = self.rng
        phase, reason, code, tfin = st
        pre = getattr(self, "preempt_node", None)
        node_ip = "10.%d.%d.%d" % (rng.randint(0, 255), rng.randint(0, 255), rng.randint(2, 250))
        d = ["Name:             %s" % self.pods[n], "Namespace:        %s" % self.ns, "Priority:         0", "Service Account:  default",
             "Node:             %s/%s" % (self.k8snodes[n], node_ip), "Start Time:       %s" % self.wall(n, self.T["launch"][n] - 30).strftime("%a, %d %b %Y %H:%M:%S +0000"),
             "Labels:           training.kubeflow.org/job-name=%s" % self.kjob, "                  training.kubeflow.org/operator-name=pytorchjob-controller",
             "                  training.kubeflow.org/replica-index=%d" % (0 if n == 0 else n - 1), "                  training.kubeflow.org/replica-type=%s" % ("master" if n == 0 else "worker")]
        if pre and pre[0] == n:
            d += ["Status:           Failed", "Reason:           Terminated", "Message:          Pod was terminated in response to imminent node shutdown."]
        else:
            d += ["Status:           %s" % phase]
        d += ["IP:               %s" % self.ips[n], "Controlled By:    PyTorchJob/%s" % self.kjob, "Containers:", "  pytorch:",
              "    Container ID:  containerd://%s" % hx(rng, 64), "    Image:         %s" % img,
              "    Image ID:      %s@sha256:%s" % (img.split(":")[0], (hx(rng, 64) if getattr(self, "mismatch_node", None) == n else hx(random.Random("img%s%d" % (self.seed, self.idx)), 64))),
              "    Port:          23456/TCP", "    Host Port:     0/TCP", "    State:          Terminated", "      Reason:       %s" % reason, "      Exit Code:    %d" % code,
              "      Started:      %s" % self.wall(n, self.T["launch"][n] - 1).strftime("%a, %d %b %Y %H:%M:%S +0000"),
              "      Finished:     %s" % self.wall(n, tfin).strftime("%a, %d %b %Y %H:%M:%S +0000"), "    Ready:          False", "    Restart Count:  0",
              "    Limits:", "      memory:          %dGi" % rng.choice([800, 1000, 1500]), "      nvidia.com/gpu:  %d" % self.gpn,
              "    Requests:", "      cpu:             %d" % rng.choice([90, 180]), "      memory:          %dGi" % rng.choice([800, 1000]), "      nvidia.com/gpu:  %d" % self.gpn,
              "    Environment:", "      PYTHONUNBUFFERED:  1", "      NCCL_DEBUG:        %s" % ("INFO" if self.nccl_debug else "WARN"),
              "      MASTER_PORT:       23456", "      MASTER_ADDR:       %s" % self.pods[0], "      WORLD_SIZE:        %d" % self.n_nodes, "      RANK:              %d" % n,
              "    Mounts:", "      /dev/shm from dshm (rw)" if getattr(self, "shm_small_node", None) is None else "      /fsx from fsx (rw)",
              "Conditions:", "  Type              Status", "  Initialized       True ", "  Ready             False ", "  ContainersReady   False ", "  PodScheduled      True ",
              "QoS Class:                   Burstable", "Events:"]
        evs = []
        if pre and pre[0] == n:
            evs.append("  Warning  NodeShutdown  %s  kubelet  Pod was terminated in response to imminent node shutdown." % self.k8s_age(pre[1], now))
        if not evs:
            d.append("  <none>")
        else:
            d += ["  Type     Reason        Age   From     Message", "  ----     ------        ----  ----     -------"] + evs
        return "$ kubectl describe pod %s -n %s\n" % (self.pods[n], self.ns) + "\n".join(d) + "\n"

    # ---------------------------------------------------------------- sagemaker
    def sm_describe(self, t_end):
        rng = self.rng
        iso = lambda t: self.wall(0, t).strftime("%Y-%m-%dT%H:%M:%S.") + "%03d000+00:00" % (self.wall(0, t).microsecond // 1000)
        status = "Completed" if (self.healthy and not self.open_ended) else ("InProgress" if self.open_ended else "Failed")
        sec = status
        if getattr(self, "sm_maxrt", False):
            status, sec = "Stopped", "MaxRuntimeExceeded"
        elif self.cause == "straggler" or (not self.healthy and getattr(self, "user_stopped", False)):
            status, sec = "Stopped", "Stopped"
        trans = [{"Status": "Starting", "StartTime": iso(-600), "EndTime": iso(-240), "StatusMessage": "Preparing the instances for training"},
                 {"Status": "Downloading", "StartTime": iso(-240), "EndTime": iso(-60), "StatusMessage": "Downloading input data"},
                 {"Status": "Training", "StartTime": iso(-60), "StatusMessage": "Training image download completed. Training in progress."}]
        if status != "InProgress":
            trans[-1]["EndTime"] = iso(t_end)
            if sec == "MaxRuntimeExceeded":
                trans.append({"Status": "MaxRuntimeExceeded", "StartTime": iso(t_end), "EndTime": iso(t_end + 30), "StatusMessage": "Job stopped because max runtime was exceeded."})
            elif status == "Stopped":
                trans.append({"Status": "Stopping", "StartTime": iso(t_end - 10), "EndTime": iso(t_end + 20), "StatusMessage": "Stopping the training job"})
                trans.append({"Status": "Stopped", "StartTime": iso(t_end + 20), "EndTime": iso(t_end + 30), "StatusMessage": "Training job stopped"})
            elif status == "Failed":
                trans.append({"Status": "Failed", "StartTime": iso(t_end), "EndTime": iso(t_end), "StatusMessage": "Training job failed"})
            else:
                trans.append({"Status": "Uploading", "StartTime": iso(t_end), "EndTime": iso(t_end + 40), "StatusMessage": "Uploading generated training model"})
                trans.append({"Status": "Completed", "StartTime": iso(t_end + 40), "EndTime": iso(t_end + 40), "StatusMessage": "Training job completed"})
        d = {"TrainingJobName": self.smjob,
             "TrainingJobArn": "arn:aws:sagemaker:us-west-2:%d:training-job/%s" % (rng.randint(100000000000, 999999999999), self.smjob),
             "ModelArtifacts": {"S3ModelArtifacts": "s3://sagemaker-us-west-2-xxxx/%s/output/model.tar.gz" % self.smjob},
             "TrainingJobStatus": status, "SecondaryStatus": sec,
             "HyperParameters": {"sagemaker_program": "\"%s\"" % self.script, "sagemaker_torch_distributed_enabled": "true"},
             "AlgorithmSpecification": {"TrainingImage": "763104351884.dkr.ecr.us-west-2.amazonaws.com/pytorch-training:%s-gpu-py310-cu%s-ubuntu20.04-sagemaker" % (self.torch[:3] + ".0", self.cuda.replace(".", "")),
                                        "TrainingInputMode": "File", "EnableSageMakerMetricsTimeSeries": True},
             "ResourceConfig": {"InstanceType": "ml.p5.48xlarge" if self.h100 else "ml.p4d.24xlarge", "InstanceCount": self.n_nodes, "VolumeSizeInGB": 500},
             "StoppingCondition": {"MaxRuntimeInSeconds": int(t_end) + 20 if sec == "MaxRuntimeExceeded" else 432000},
             "CreationTime": iso(-700), "TrainingStartTime": iso(-600), "SecondaryStatusTransitions": trans}
        if status != "InProgress":
            d["TrainingEndTime"] = iso(t_end + 30)
        if status == "Failed":
            d["FailureReason"] = getattr(self, "sm_reason", "AlgorithmError: ExecuteUserScriptError:\nExitCode 1\nErrorMessage \"\"\nCommand \"torchrun ...\", exit code: 1")
        return json.dumps(d, indent=4) + "\n"


# ====================================================================== job assembly
ALL = ["slurm", "slurm_tasks", "torchrun_nodes", "k8s_pytorchjob", "sagemaker"]
NOSM = ["slurm", "slurm_tasks", "torchrun_nodes", "k8s_pytorchjob"]
VARIANTS = {
    "gpu_hardware": [("gh_xid79", NOSM), ("gh_reset", NOSM), ("gh_gsp", NOSM)],
    "ecc_memory": [("ecc_pending", ALL), ("ecc_load", ALL)],
    "nvlink": [("nv_fm", ALL), ("nv_xid74", ALL)],
    "network": [("net_ib", NOSM), ("net_rdzv", NOSM), ("net_sock", ["k8s_pytorchjob", "sagemaker", "torchrun_nodes", "slurm"])],
    "cuda_oom": [("oom_stale", ALL), ("oom_stage", ALL), ("oom_nccl", ALL)],
    "illegal_memory_access": [("ima_assert", ALL), ("ima_kernel", ALL)],
    "python_exception": [("py_ckpt", ALL), ("py_hf429", ALL), ("py_pp_shape", ALL), ("py_port", ["slurm", "slurm_tasks", "torchrun_nodes"]),
                         ("py_dupgpu", ALL), ("py_ordinal", NOSM), ("py_nnodes", NOSM)],
    "host_oom_kill": [("hok", NOSM)],
    "crash_signal": [("cs_segv", ALL), ("cs_sigbus", ALL), ("cs_abort", ALL)],
    "preemption": [("pre_slurm", ["slurm", "slurm_tasks"]), ("pre_node", ["k8s_pytorchjob", "torchrun_nodes"]), ("pre_sm", ["sagemaker"])],
    "hang": [("hang_marker", ALL), ("hang_compile", NOSM)],
    "data_loader_stall": [("dls_nfs", NOSM), ("dls_timeout", ALL)],
    "collective_mismatch": [("cm_detail", ALL), ("cm_wd", ALL)],
    "straggler": [("st_node", ALL), ("st_rank", ALL)],
    "unknown": [("unk_silent", ALL), ("unk_k8s", ["k8s_pytorchjob"]), ("unk_trunc", ["slurm"])],
}


def layouts_for(cause):
    s = []
    for _, lays in VARIANTS[cause]:
        for l in lays:
            if l not in s:
                s.append(l)
    return [l for l in LAYOUTS if l in s]


class Job(Run, Texts, Engine, Engine2, Artifacts, Scen, Life, Render):
    def build(self, outdir):
        rng = self.rng
        self.setup()
        self.misc()
        self.variant_hints()
        self.jobname = rng.choice(["llm-pt", "sft-llama", "train", "pretrain-8b", "ft-mistral", "cpt"])
        self.partition = rng.choice(["gpu", "h100", "a100", "batch", "ml"])
        self.k8s_tsflag = self.layout == "k8s_pytorchjob" and rng.random() < 0.4
        self.k8s_ts_on = self.k8s_tsflag
        self.k8s_pull_event = False
        self.plan()
        self.init_engine()
        pre = getattr(self, "pre_" + self.variant, None) if not self.healthy else None
        if pre:
            pre()
        self.plan_steps()
        self.gen_normal()
        self.gen_steps()
        if self.debug_detail:
            for rk in self.ranks:
                if rk.local == 0:
                    g = self.git[1] if rk.node == getattr(self, "mismatch_node_pre", -1) else None
        if self.healthy:
            self.healthy_scenario()
        else:
            if self.variant == "cm_detail":
                pass
            getattr(self, "sc_" + self.variant)()
            if self.variant == "cm_detail":
                for rk in self.ranks:
                    if rk.local == 0:
                        tt = self.T["ws"][rk.r] + 1
                        self.emit(tt, "wn", rk.node, self.clog(rk.node, tt, rk.r, "code version: git commit %s (%s)" % (
                            self.git[1] if rk.node == self.mismatch_node else self.git[0], self.workdir)), rk.r)
        if self.agent_level and self.layout != "slurm_tasks":
            for rk in self.ranks:
                rk.stop_t = -1
                rk.exit_t = -1
        self.launcher_lines()
        for node, (t, txt) in sorted(self.agent_rdzv_fail.items()):
            self.ext.append((t, "agent_rdzv_fail", node))
        if getattr(self, "agent_oom_killed", None):
            N, t = self.agent_oom_killed
            if getattr(self, "k8s_lost_logs", None):
                self.ext.append((t, "container_killed", (N, "Error", self.k8s_lost_logs[1])))
            else:
                self.ext.append((t, "container_killed", (N, "OOMKilled", 137)))
        if getattr(self, "slurm_oom", None):
            N, t = self.slurm_oom
            self.ext.append((t, "slurm_msg", (N, "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.%s. Some of the step tasks have been OOM Killed." % (self.jobid, "0" if rng.random() < 0.8 else "batch"))))
            if self.layout == "slurm_tasks":
                victim = [rk for rk in self.ranks if rk.self_exit and rk.self_exit[1] == -9]
        self.snap_t = None
        if self.healthy and self.open_ended:
            k = rng.randint(min(15, len(self.step_colls) - 1), len(self.step_colls) - 1)
            self.snap_t = self.step_colls[k].done + rng.uniform(0.5, 20)
        self.resolve()
        if self.healthy and not self.open_ended and self.layout == "sagemaker":
            for n in range(self.n_nodes):
                ts = self.ts_py(n, self.ok_t)
                self.a(n, self.ok_t, "%s sagemaker-training-toolkit INFO     Waiting for the process to finish and give a return code.\n%s sagemaker-training-toolkit INFO     Done waiting for a return code. Received 0 from exiting process.\n%s sagemaker-training-toolkit INFO     Reporting training SUCCESS" % (ts, ts, ts))
        self.render(outdir)
        init = self.initiator
        if init is not None and init.get("rank") is None and init.get("node") is None:
            init = None
        truth = {"healthy": bool(self.healthy), "cause": None if self.healthy else self.cause,
                 "initiator": None if self.healthy else init, "layout": self.layout,
                 "notes": ("; ".join(self.notes) + " [variant: %s; torch %s, NCCL %s, %d nodes x %d GPUs]" % (
                     self.variant, self.torch, self.nccl, self.n_nodes, self.gpn)).strip()}
        with open(os.path.join(outdir, "truth.json"), "w") as f:
            json.dump(truth, f, indent=2)
            f.write("\n")
        return truth


def main(argv=None):
    ap = argparse.ArgumentParser(description="blind41: first-minutes failure bundles")
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    args = ap.parse_args(argv)
    seed = str(args.seed)
    srng = random.Random("blind41-order|" + seed)
    order = list(CAUSES)
    srng.shuffle(order)
    lay_order = {c: layouts_for(c) for c in CAUSES}
    for c in CAUSES:
        srng.shuffle(lay_order[c])
    lay_shift = {c: srng.randrange(len(lay_order[c])) for c in CAUSES}
    var_shift = {c: srng.randrange(50) for c in CAUSES}
    healthy_layouts = list(LAYOUTS)
    srng.shuffle(healthy_layouts)
    seen = {c: 0 for c in CAUSES}
    var_used = {}
    counts = {}
    os.makedirs(args.out, exist_ok=True)
    k = 0
    h = 0
    for i in range(args.n):
        healthy = (i % 7 == 3)
        if healthy:
            cause = None
            layout = healthy_layouts[h % len(healthy_layouts)]
            h += 1
            variant = "healthy"
        else:
            cause = order[k % len(order)]
            k += 1
            j = seen[cause]
            seen[cause] += 1
            lays = lay_order[cause]
            layout = lays[(j + lay_shift[cause]) % len(lays)]
            opts = [v for v, ls in VARIANTS[cause] if layout in ls]
            srng.shuffle(opts)
            opts.sort(key=lambda v: var_used.get(v, 0))
            variant = opts[0]
            var_used[variant] = var_used.get(variant, 0) + 1
        job = Job(i, seed, layout, cause or "healthy", healthy)
        job.variant = variant
        d = os.path.join(args.out, "run-%03d-%s" % (i, layout))
        job.build(d)
        key = "healthy" if healthy else cause
        counts[key] = counts.get(key, 0) + 1
    out = {c: counts.get(c, 0) for c in CAUSES}
    out["healthy"] = counts.get("healthy", 0)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
