#!/usr/bin/env python3
"""gen_blind24 -- synthetic failed / healthy distributed GPU training jobs, as their
logs come out of log-aggregation and observability stacks (Loki, Kibana/Elasticsearch,
Datadog, Splunk, CloudWatch, Cloud Logging, Fluent Bit, Vector, journald).

Written blind: without reading the diagnosis tool's code, rules, tests or corpus.
Standard library only.  Deterministic for a given --seed.

    python3 gen_blind24.py --out DIR --n 60 --seed S
"""
import argparse
import csv
import io
import json
import os
import random
import sys
from datetime import datetime, timedelta, timezone

UTC = timezone.utc

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill",
          "crash_signal", "preemption", "hang", "data_loader_stall",
          "collective_mismatch", "straggler", "unknown"]

LAYOUTS = ["loki_logcli", "kibana_csv", "es_ndjson", "datadog_csv", "splunk_export",
           "cloudwatch_logs", "gcloud_logging", "fluentbit_s3", "vector_ndjson",
           "journald_json"]

LAYOUT_STACKS = {
    "loki_logcli": ["onprem", "onprem", "gke"],
    "kibana_csv": ["onprem", "eks"],
    "es_ndjson": ["onprem", "onprem", "eks"],
    "datadog_csv": ["eks", "onprem"],
    "splunk_export": ["slurm"],
    "cloudwatch_logs": ["eks"],
    "gcloud_logging": ["gke"],
    "fluentbit_s3": ["onprem", "eks"],
    "vector_ndjson": ["onprem", "gke"],
    "journald_json": ["baremetal"],
}

DRAIN_CAUSES = ("gpu_hardware", "ecc_memory", "nvlink", "network")

MAX_RUN_BYTES = 900 * 1024


# --------------------------------------------------------------------------- utils
def wchoice(rng, pairs):
    tot = sum(w for _, w in pairs)
    x = rng.uniform(0, tot)
    acc = 0.0
    for v, w in pairs:
        acc += w
        if x <= acc:
            return v
    return pairs[-1][0]


def hexs(rng, n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def alnum(rng, n):
    return "".join(rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(n))


def iso_z(t, digits=3):
    base = t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S")
    frac = f"{t.microsecond:06d}"
    if digits == 0:
        return base + "Z"
    if digits <= 6:
        return base + "." + frac[:digits] + "Z"
    return base + "." + frac + "0" * (digits - 6) + "Z"


def iso_off(t, off_min, digits=3):
    lt = t + timedelta(minutes=off_min)
    sign = "+" if off_min >= 0 else "-"
    o = abs(off_min)
    frac = f"{lt.microsecond:06d}"[:digits]
    s = lt.strftime("%Y-%m-%dT%H:%M:%S")
    if digits:
        s += "." + frac
    return s + f"{sign}{o // 60:02d}:{o % 60:02d}"


def pylog_ts(t):
    return t.strftime("%Y-%m-%d %H:%M:%S,") + f"{t.microsecond // 1000:03d}"


def syslog_ts(t):
    return t.strftime("%b") + f" {t.day:2d} " + t.strftime("%H:%M:%S")


def klog_ts(t, level):
    return f"{level}{t.month:02d}{t.day:02d} {t.strftime('%H:%M:%S')}.{t.microsecond:06d}"


def vtuple(s):
    p = s.split(".")
    return int(p[0]), int(p[1])


# --------------------------------------------------------------------------- job model
TORCH_STACKS = [
    # torch, nccl, cuda, python
    ("2.0.1", "2.18.1", "11.8", "3.10"),
    ("2.1.2", "2.18.1", "12.1", "3.10"),
    ("2.1.2", "2.18.3", "12.1", "3.10"),
    ("2.2.2", "2.19.3", "12.1", "3.10"),
    ("2.3.1", "2.20.5", "12.1", "3.10"),
    ("2.4.1", "2.20.5", "12.4", "3.11"),
    ("2.5.1", "2.21.5", "12.4", "3.11"),
    ("2.6.0", "2.21.5", "12.6", "3.11"),
    ("2.6.0", "2.23.4", "12.6", "3.12"),
    ("2.7.1", "2.26.2", "12.8", "3.12"),
    ("2.8.0", "2.27.3", "12.8", "3.12"),
    ("2.9.0", "2.27.5", "12.8", "3.12"),
]

GPUS = {
    "h100": ("NVIDIA H100 80GB HBM3", 79.11, True, ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"]),
    "h200": ("NVIDIA H200", 139.81, True, ["19", "3b", "4c", "5d", "9b", "bb", "cb", "db"]),
    "a100": ("NVIDIA A100-SXM4-80GB", 79.15, True, ["07", "0f", "47", "4e", "87", "90", "b7", "bd"]),
    "a100_40": ("NVIDIA A100-SXM4-40GB", 39.39, True, ["07", "0f", "47", "4e", "87", "90", "b7", "bd"]),
    "a3": ("NVIDIA H100 80GB HBM3", 79.11, True, ["04", "05", "0a", "0b", "84", "85", "8a", "8b"]),
    "l40s": ("NVIDIA L40S", 44.52, False, ["01", "21", "41", "61", "81", "a1", "c1", "e1"]),
    "a10g": ("NVIDIA A10G", 22.09, False, ["16", "17", "18", "19", "1a", "1b", "1c", "1d"]),
}

PG_LINES = {  # version -> (timeout, exc_detected, timeout_at, some_failed, take_down, wd_terminated, desync)
    (2, 0): (475, None, None, 489, 495, 915, 988),
    (2, 1): (475, None, None, 489, 495, 916, 988),
    (2, 2): (523, None, None, 537, 543, 1182, 1196),
    (2, 3): (607, 1664, None, 621, 627, 1515, 1592),
    (2, 4): (607, 1664, None, 621, 627, 1515, 1592),
    (2, 5): (616, 1785, 1834, 630, 636, 1601, 1937),
    (2, 6): (616, 1785, 1834, 630, 636, 1601, 1937),
    (2, 7): (632, 2017, 2068, 684, 690, 1901, 2268),
    (2, 8): (632, 2025, 2076, 684, 690, 1909, 2276),
    (2, 9): (635, 2031, 2082, 687, 693, 1913, 2281),
}

ELASTIC_LINES = {  # version -> (api.py failed, api.py sigterm, agent death signal, agent finished)
    (2, 0): (673, 730, 850, 906), (2, 1): (779, 836, 850, 906),
    (2, 2): (816, 864, 727, 906), (2, 3): (826, 875, 727, 906),
    (2, 4): (869, 897, 719, 906), (2, 5): (869, 897, 719, 906),
    (2, 6): (874, 908, 719, 906), (2, 7): (882, 908, 719, 906),
    (2, 8): (882, 908, 719, 906), (2, 9): (884, 910, 719, 906),
}

OPS = ["ALLREDUCE", "_REDUCE_SCATTER_BASE", "_ALLGATHER_BASE", "ALLREDUCE", "BROADCAST"]


class Node:
    pass


class Job:
    pass


def make_hostnames(rng, stack, nnodes, jobname):
    nodes = []
    used = []
    if stack == "gke":
        cluster = rng.choice(["ml-prod", "llm-train", "research-a3", "gen-ai-prod"])
        pool = rng.choice(["a3-highgpu-8g", "a3-mega-pool", "gpu-pool-a3", "a3u-pool"])
        ph = hexs(rng, 8)
        jobset = rng.random() < 0.6
    elif stack == "eks":
        region = rng.choice(["us-west-2", "us-east-2", "eu-west-1"])
    elif stack == "onprem":
        pre = rng.choice(["gpu-node-", "hgx-", "k8s-gpu-", "dgx-h100-", "gn", "worker-gpu-"])
        dom = rng.choice(["", "", ".dc1.internal", ".k8s.lab.example.net"])
    else:
        pre = rng.choice(["gpu", "dgx", "hpc-gpu-", "node", "g"])
        dom = rng.choice([".cluster.local", ".hpc.example.org", ".ib.cluster"])
    width = 3 if nnodes < 400 else 4
    for i in range(nnodes):
        n = Node()
        n.idx = i
        while True:
            num = rng.randint(1, 480)
            if num not in used:
                used.append(num)
                break
        a, b, c = rng.randint(0, 63), rng.randint(0, 255), rng.randint(2, 254)
        n.ip = f"10.{a}.{b}.{c}"
        n.aliases = []
        if stack == "gke":
            n.host = f"gke-{cluster}-{pool}-{ph}-{alnum(rng, 4)}"
            n.cluster = cluster
            if jobset:
                n.pod_host = f"{jobname}-workers-0-{i}"
                n.pod = f"{n.pod_host}-{alnum(rng, 5)}"
            else:
                n.pod = n.pod_host = (f"{jobname}-master-0" if i == 0 else f"{jobname}-worker-{i - 1}")
            n.aliases = [n.pod, n.pod_host, n.ip]
        elif stack == "eks":
            n.host = f"ip-10-{a}-{b}-{c}.{region}.compute.internal"
            n.instance = "i-0" + hexs(rng, 16)
            n.pod = n.pod_host = (f"{jobname}-master-0" if i == 0 else f"{jobname}-worker-{i - 1}")
            n.aliases = [f"ip-10-{a}-{b}-{c}", n.instance, n.pod, n.ip]
        elif stack == "onprem":
            short = f"{pre}{num:0{width}d}"
            n.host = short + dom
            n.pod = n.pod_host = (f"{jobname}-master-0" if i == 0 else f"{jobname}-worker-{i - 1}")
            n.aliases = [n.pod, n.ip] + ([short] if dom else [])
        else:
            short = f"{pre}{num:0{width}d}"
            n.host = short
            n.fqdn = short + dom
            n.pod = n.pod_host = short
            n.aliases = [n.fqdn, n.ip]
        nodes.append(n)
    return nodes


def build_job(rng, layout, cause, healthy):
    j = Job()
    j.layout = layout
    j.stack = rng.choice(LAYOUT_STACKS[layout])
    ts = rng.choice(TORCH_STACKS)
    j.torch, j.nccl, j.cuda, j.py = ts
    j.tv = vtuple(j.torch)
    j.ncclv = tuple(int(x) for x in j.nccl.split("."))
    # world size
    W = wchoice(rng, [(2, 1), (4, 2), (8, 3), (16, 3), (32, 3), (64, 3), (128, 2), (256, 2), (512, 1)])
    if cause in ("network", "preemption") and W < 4:
        W = 16
    if cause == "straggler" and W < 8:
        W = 8
    # gpu kind
    if j.stack == "gke":
        kind = "a3"
    elif j.stack == "eks":
        kind = wchoice(rng, [("h100", 3), ("a100", 3), ("a10g", 1), ("l40s", 1)])
    else:
        kind = wchoice(rng, [("h100", 4), ("a100", 3), ("a100_40", 1), ("h200", 1), ("l40s", 1)])
    if cause == "nvlink" and not GPUS[kind][2]:
        kind = "h100" if j.stack != "gke" else "a3"
    j.gpu_kind = kind
    j.gpu_name, j.gpu_cap, j.nvlink, j.buses = GPUS[kind]
    if W <= 8:
        gpn = rng.choice([g for g in (1, 2, 4, 8) if g <= W])
        if W == 8 and rng.random() < 0.6:
            gpn = 8
    else:
        gpn = 8 if rng.random() < 0.85 else 4
    if cause == "nvlink" and gpn < 4:
        gpn = min(8, W) if W >= 4 else 2
        if W < 4:
            W, gpn = 8, 8
    if cause in ("network",) and W // gpn < 2:
        gpn = max(1, W // 2)
    j.W, j.gpn = W, gpn
    j.nnodes = W // gpn
    # naming
    j.jobname = rng.choice(["llama3-8b-sft", "pretrain-7b", "moe-16x1b", "gpt-neox-20b", "vit-h14",
                            "mistral-ft", "llm-pt", "t5-xxl-dist", "qwen-14b-cpt", "diffusion-xl",
                            "codegen-6b", "rlhf-ppo-13b", "bert-large-mlm", "olmo-1b-repro"])
    j.jobname += "-" + alnum(rng, 4) if rng.random() < 0.5 else ""
    j.namespace = rng.choice(["ml-training", "llm", "research", "team-nlp", "default", "kubeflow-user"])
    j.container = rng.choice(["pytorch", "pytorch", "trainer", "main"])
    j.nodes = make_hostnames(rng, j.stack, j.nnodes, j.jobname)
    # networking
    if j.nnodes == 1:
        j.net = "none"
    elif j.stack == "gke":
        j.net = "roce"
    elif j.stack == "eks":
        j.net = "efa" if kind in ("h100", "a100") else "socket"
    else:
        j.net = wchoice(rng, [("ib", 5), ("roce", 2), ("socket", 1)])
    # launcher / prefixes
    if j.stack == "slurm":
        j.launcher = "srun" if rng.random() < 0.5 else "srun_torchrun"
    else:
        j.launcher = "torchrun"
    if j.launcher == "srun":
        j.prefix = "srun" if rng.random() < 0.7 else "none"
    elif j.launcher == "srun_torchrun":
        j.prefix = "srunnode" if rng.random() < 0.6 else wchoice(rng, [("none", 1), ("tee", 1)])
    else:
        j.prefix = wchoice(rng, [("none", 5), ("tee", 3)])
    j.rank_pfx = j.tv >= (2, 3)            # "[rankN]:" on C++ logs and tracebacks
    j.fw = wchoice(rng, [("megatron", 3), ("hf", 3), ("lightning", 2), ("custom", 3), ("deepspeed", 2)])
    if j.fw == "deepspeed" and j.launcher == "torchrun" and rng.random() < 0.6:
        j.launcher = "deepspeed"          # per-node `deepspeed --no_ssh` launcher (launch.py)
        j.prefix = "none"
    j.nccl_info = rng.random() < 0.6
    j.timeout_ms = rng.choice([600000, 600000, 1800000, 1200000])
    j.desync = j.tv >= (2, 2) and rng.random() < 0.25
    j.dist_detail = rng.random() < 0.15
    j.site = (f"/usr/local/lib/python{j.py}/dist-packages" if rng.random() < 0.55
              else f"/opt/conda/lib/python{j.py}/site-packages")
    j.elastic_path = "torch/" if rng.random() < 0.6 else "site-packages/torch/"
    j.pybin = "/usr/bin/python3" if j.site.startswith("/usr") else "/opt/conda/bin/python3.11"
    j.script = rng.choice(["/workspace/train.py", "/app/pretrain_gpt.py", "train.py", "/opt/ml/code/run_clm.py",
                           "/workspace/src/trainer/main.py"])
    j.comm_id = "0x" + hexs(rng, 16)
    j.proc_name = "pt_main_thread" if j.tv >= (2, 1) and rng.random() < 0.6 else "python3"
    j.driver = rng.choice(["535.183.01", "550.90.07", "550.127.05", "560.35.03", "570.124.06", "535.161.08"])
    # clocks: per node timezone and skew
    base_tz = rng.choice([0, 0, 0, 60, -300, -420, -480, 480, 330])
    j.op_tz = rng.choice([0, -480, -300, 60, 120, 540])
    for n in j.nodes:
        n.tz = base_tz
        n.skew = rng.gauss(0, 0.4)
        n.uptime0 = rng.uniform(3600 * 5, 3600 * 24 * 40)
        n.agent_pid = rng.randint(8, 60000)
        base = n.agent_pid + rng.randint(20, 80)
        n.pids = [base + k * rng.randint(1, 3) + k for k in range(gpn)]
        n.boot_id = hexs(rng, 32)
        n.machine_id = hexs(rng, 32)
    j.big_skew_node = None
    if j.nnodes > 1 and rng.random() < 0.15:
        bn = rng.randrange(j.nnodes)
        j.nodes[bn].skew = rng.choice([-1, 1]) * rng.uniform(20, 75)
        j.big_skew_node = bn
    # time
    day = datetime(2026, 1, 12, tzinfo=UTC) + timedelta(days=rng.randint(0, 48))
    j.t0 = day + timedelta(seconds=rng.randint(0, 86400 - 1))
    return j


def node_of(j, r):
    return j.nodes[r // j.gpn]


def lr_of(j, r):
    return r % j.gpn


def pid_of(j, r):
    return node_of(j, r).pids[lr_of(j, r)]


def local_t(n, t):
    return t + timedelta(seconds=n.skew, minutes=n.tz)


# --------------------------------------------------------------------------- simulation
class Sim:
    """Collects the true timeline of lines written by processes and the kernel."""

    def __init__(self, rng, j, shown):
        self.rng = rng
        self.j = j
        self.shown = shown            # list of node indices that appear in the export
        self.no_app = []              # shown nodes whose container/job output is missing (only node logs)
        self.evs = []
        self.g = 0
        self.notes = []

    def vis(self, node):
        return node is None or node in self.shown

    def vis_app(self, node):
        return node is None or (node in self.shown and node not in self.no_app)

    def add(self, t, node, text, src="app", stream="stderr", prio=2, tags=None, ident=None,
            pid=None, container=None):
        if not self.vis(node):
            return
        if src in ("app", "agent") and not self.vis_app(node):
            return
        self.g += 1
        tags = list(tags or [])
        for k, ln in enumerate(text.split("\n")):
            self.evs.append({"t": t + timedelta(microseconds=7 * k), "node": node, "src": src,
                             "stream": stream, "text": ln, "grp": self.g, "prio": prio,
                             "tags": tags, "ident": ident, "pid": pid,
                             "container": container or (self.j.container if src in ("app", "agent") else None)})

    # ---- identity helpers
    def pfx(self, r):
        j = self.j
        if j.prefix == "tee":
            return f"[default{lr_of(j, r)}]:"
        if j.prefix == "srun":
            return f"{r}: "
        if j.prefix == "srunnode":
            return f"{r // j.gpn}: "
        return ""

    def ident_tags(self, r, explicit):
        j = self.j
        n = r // j.gpn
        tags = [f"N{n}"]
        if explicit or j.prefix == "srun":
            tags.append(f"R{r}")
        if j.prefix == "tee":
            tags.append(f"L{n}:{lr_of(j, r)}")
        return tags

    def app(self, t, r, text, prio=2, ev=False, stream="stderr", rank_prefixed=False, tags=None,
            explicit=False):
        """A line (or lines) written by the worker process of global rank r."""
        j = self.j
        p = self.pfx(r)
        rp = f"[rank{r}]: " if (rank_prefixed and j.rank_pfx) else ""
        lines = [p + rp + ln for ln in text.split("\n")]
        tg = list(tags or [])
        if ev:
            tg += ["EV"] + self.ident_tags(r, explicit or bool(rp))
        self.add(t, r // j.gpn, "\n".join(lines), "app", stream, prio, tg, pid=pid_of(j, r))

    def c10d(self, t, r, level, line, msg, prio=1, ev=False, tags=None):
        j = self.j
        lt = local_t(node_of(j, r), t)
        if j.tv >= (2, 3):
            ns = self.rng.randint(0, 999)
            h = f"[rank{r}]:[{level}{lt.month}{lt.day:02d} {lt.strftime('%H:%M:%S')}.{lt.microsecond:06d}{ns:03d} ProcessGroupNCCL.cpp:{line}] "
        elif j.tv >= (2, 2):
            h = f"[rank{r}]:[{level} ProcessGroupNCCL.cpp:{line}] "
        else:
            h = f"[{level} ProcessGroupNCCL.cpp:{line}] "
        msg_lines = msg.split("\n")
        text = "\n".join([h + msg_lines[0]] + msg_lines[1:])
        tg = list(tags or [])
        if ev:
            tg += ["EV"] + self.ident_tags(r, True)
        self.add(t, r // j.gpn, "\n".join(self.pfx(r) + x for x in text.split("\n")), "app", "stderr",
                 prio, tg, pid=pid_of(j, r))

    def wdterm(self, r):
        if self.j.tv >= (2, 3):
            return f"{self.pgp(r)} Process group watchdog thread terminated with exception:"
        return f"[Rank {r}] NCCL watchdog thread terminated with exception:"

    def pgp(self, r):
        j = self.j
        if j.tv >= (2, 5):
            return f"[PG ID 0 PG GUID 0(default_pg) Rank {r}]"
        if j.tv >= (2, 4):
            return f"[PG 0 (default_pg) Rank {r}]"
        if j.tv >= (2, 3):
            return f"[PG 0 Rank {r}]"
        return f"[Rank {r}]"

    def nccl(self, t, r, msg, warn=None, prio=2, ev=False, tid_off=None, tags=None, blank=True):
        j = self.j
        n = node_of(j, r)
        pid = pid_of(j, r)
        tid = pid if tid_off is None else pid + tid_off
        lr = lr_of(j, r)
        if warn:
            text = f"{n.pod_host}:{pid}:{tid} [{lr}] {warn} NCCL WARN {msg}"
        else:
            text = f"{n.pod_host}:{pid}:{tid} [{lr}] NCCL INFO {msg}"
        tg = list(tags or [])
        if ev:
            tg += ["EV", f"N{n.idx}", f"P{n.idx}:{pid}", f"L{n.idx}:{lr}"]
        if warn and blank:
            self.add(t - timedelta(microseconds=3), n.idx, self.pfx(r) + "", "app", "stderr", prio, [], pid=pid)
        self.add(t, n.idx, self.pfx(r) + text, "app", "stderr", prio, tg, pid=pid)

    def agent(self, t, node, level, mod, line, msg, prio=1, tags=None):
        """torchrun (elastic agent) log line on node."""
        j = self.j
        n = j.nodes[node]
        lt = local_t(n, t)
        LV = {"E": "ERROR", "W": "WARNING", "I": "INFO"}[level]
        dotted = {"mp": "multiprocessing.api", "agent": "agent.server.api", "run": "run",
                  "err": "multiprocessing.errors.error_handler"}[mod]
        path = {"mp": "distributed/elastic/multiprocessing/api.py", "agent": "distributed/elastic/agent/server/api.py",
                "run": "distributed/run.py", "err": "distributed/elastic/multiprocessing/errors/error_handler.py"}[mod]
        if j.tv >= (2, 4):
            h = (f"{level}{lt.month:02d}{lt.day:02d} {lt.strftime('%H:%M:%S')}.{lt.microsecond // 1000:03d}000 "
                 f"{n.agent_pid} {j.elastic_path}{path}:{line}] ")
        elif j.tv >= (2, 2):
            mname = "torch.distributed.run" if mod == "run" else f"torch.distributed.elastic.{dotted}"
            h = f"[{pylog_ts(lt)}] {mname}: [{LV}] "
        else:
            mname = "torch.distributed.run" if mod == "run" else f"torch.distributed.elastic.{dotted}"
            h = f"{LV}:{mname}:"
        lines = msg.split("\n")
        text = "\n".join([h + lines[0]] + lines[1:])
        pf = f"{node}: " if j.prefix == "srunnode" else ""
        self.add(t, node, "\n".join(pf + x for x in text.split("\n")), "agent", "stderr", prio, tags,
                 pid=n.agent_pid)

    def kernel(self, t, node, msg, prio=1, tags=None, level=3):
        n = self.j.nodes[node]
        up = n.uptime0 + (t - self.j.t0).total_seconds()
        if not self.vis(node):
            return
        self.g += 1
        for k, ln in enumerate(msg.split("\n")):
            self.evs.append({"t": t + timedelta(microseconds=11 * k), "node": node, "src": "kernel",
                             "stream": None, "text": ln, "grp": self.g, "prio": prio,
                             "tags": list(tags or []), "ident": "kernel", "pid": None, "container": None,
                             "uptime": up + 0.000011 * k, "level": level})

    def svc(self, t, node, ident, text, pid=None, prio=2, tags=None, container=None, stream="stderr"):
        """A node-level service (kubelet, slurmd, device plugin, systemd)."""
        self.add(t, node, text, "svc", stream, prio, tags, ident=ident, pid=pid, container=container)

    def launcher(self, t, text, prio=1, tags=None):
        """Job-level output written by srun / slurmstepd into the job's output file (node 0)."""
        self.add(t, 0, text, "launcher", "stderr", prio, tags, ident="srun")


# --------------------------------------------------------------------------- message families
def py_frames(j, rng, kind):
    site = j.site
    scr = j.script
    fr = [(scr, rng.randint(380, 720), "<module>", "main()" if rng.random() < 0.7 else "main(args)")]
    fr.append((scr, rng.randint(200, 370), "main", "trainer.train()" if j.fw == "hf" else "train(cfg, model, loader, optimizer)"))
    if kind == "fwd":
        fr.append((scr, rng.randint(90, 190), "train", "loss = model(**batch).loss" if j.fw == "hf" else "loss = model(batch)"))
        fr.append((f"{site}/torch/nn/modules/module.py", 1736 if j.tv >= (2, 5) else 1518, "_wrapped_call_impl",
                   "return self._call_impl(*args, **kwargs)"))
        fr.append((f"{site}/torch/nn/modules/module.py", 1747 if j.tv >= (2, 5) else 1527, "_call_impl",
                   "return forward_call(*args, **kwargs)"))
    elif kind == "bwd":
        fr.append((scr, rng.randint(90, 190), "train", "loss.backward()"))
        fr.append((f"{site}/torch/_tensor.py", 581 if j.tv >= (2, 4) else 522, "backward",
                   "torch.autograd.backward("))
        fr.append((f"{site}/torch/autograd/__init__.py", 347 if j.tv >= (2, 4) else 266, "backward",
                   "_engine_run_backward("))
        fr.append((f"{site}/torch/autograd/graph.py", 825, "_engine_run_backward",
                   "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"))
    elif kind == "data":
        fr.append((scr, rng.randint(90, 190), "train", "for step, batch in enumerate(loader):"))
        fr.append((f"{site}/torch/utils/data/dataloader.py", 701 if j.tv >= (2, 4) else 630, "__next__",
                   "data = self._next_data()"))
    elif kind == "opt":
        fr.append((scr, rng.randint(90, 190), "train", "optimizer.step()"))
        fr.append((f"{site}/torch/optim/optimizer.py", 487 if j.tv >= (2, 4) else 373, "wrapper",
                   "out = func(*args, **kwargs)"))
    elif kind == "allreduce":
        fr.append((scr, rng.randint(90, 190), "train", "dist.all_reduce(loss_t, op=dist.ReduceOp.AVG)"))
        fr.append((f"{site}/torch/distributed/c10d_logger.py", 81 if j.tv >= (2, 4) else 72, "wrapper",
                   "return func(*args, **kwargs)"))
        fr.append((f"{site}/torch/distributed/distributed_c10d.py", 2501 if j.tv >= (2, 4) else 2050, "all_reduce",
                   "work = group.allreduce([tensor], opts)"))
    out = ["Traceback (most recent call last):"]
    for f, ln, fn, code in fr:
        out.append(f'  File "{f}", line {ln}, in {fn}')
        out.append(f"    {code}")
    return out


def cuda_err_tail(msg):
    return [f"RuntimeError: CUDA error: {msg}",
            "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
            "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
            "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", ""]


def cpp_frames(j, rng, where, n=6):
    lib = f"{j.site}/torch/lib"
    second = "c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >)"
    if "checkForNCCLErrors" in where:
        second = "c10d::ProcessGroupNCCL::checkForNCCLErrorsInternal(std::shared_ptr<c10d::NCCLComm>&)"
    elif "c10_cuda_check" in where:
        second = "c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool)"
    syms = [("c10::Error::Error(c10::SourceLocation, std::string)", "libc10.so"),
            (second, "libtorch_cuda.so" if "c10_cuda" not in where else "libc10_cuda.so"),
            ("c10d::ProcessGroupNCCL::watchdogHandler()", "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::ncclCommWatchdog()", "libtorch_cuda.so"),
            ("<unknown function>", "libstdc++.so.6"),
            ("<unknown function>", "libc.so.6"),
            ("clone", "libc.so.6")]
    bases = {}
    out = [f"Exception raised from {where} (most recent call first):"]
    for k, (s, l) in enumerate(syms[:n]):
        if l not in bases:
            bases[l] = rng.randint(0x7f0000000000, 0x7fffff000000) & ~0xfff
        path = f"{lib}/{l}" if l.startswith("libt") or l.startswith("libc10") else f"/lib/x86_64-linux-gnu/{l}"
        out.append(f"frame #{k}: {s} + 0x{rng.randint(0x20, 0x3ff):x} (0x{bases[l] + rng.randint(0x10000, 0x3ffffff):x} in {path})")
    return out


def oom_message(j, rng, lr, tried_gib):
    cap = j.gpu_cap
    free = rng.uniform(0.05, min(tried_gib * 0.8, 1.9))
    inuse = cap - free - rng.uniform(0.3, 0.6)
    alloc = inuse - rng.uniform(0.5, 3.5)
    resv = inuse - alloc - rng.uniform(0.0, 0.4)
    if j.tv >= (2, 2):
        cls = "torch.OutOfMemoryError" if j.tv >= (2, 5) else "torch.cuda.OutOfMemoryError"
        return (f"{cls}: CUDA out of memory. Tried to allocate {tried_gib:.2f} GiB. GPU {lr} has a total capacity of "
                f"{cap:.2f} GiB of which {free * 1024:.2f} MiB is free. Process {rng.randint(1000, 99999)} has {inuse:.2f} GiB memory in use. "
                f"Of the allocated memory {alloc:.2f} GiB is allocated by PyTorch, and {max(resv, 0.01) * 1024:.2f} MiB is reserved by "
                f"PyTorch but unallocated. If reserved but unallocated memory is large try setting "
                f"PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
                f"Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")
    return (f"torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate {tried_gib:.2f} GiB (GPU {lr}; {cap:.2f} GiB "
            f"total capacity; {alloc:.2f} GiB already allocated; {free * 1024:.2f} MiB free; {alloc + resv:.2f} GiB reserved in total "
            f"by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  "
            f"See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF")


def nccl_init_lines(sim, t, r):
    """NCCL_DEBUG=INFO chatter of one rank at communicator init; returns nothing."""
    j, rng = sim.j, sim.rng
    n = node_of(j, r)
    lr = lr_of(j, r)
    pid = pid_of(j, r)
    bus = j.buses[lr % len(j.buses)]
    t = t + timedelta(milliseconds=rng.randint(0, 400))
    maps = [f"MAPP{n.idx}:{pid}={r}", f"MAPB{n.idx}:{bus}={r}", f"MAPL{n.idx}:{lr}={r}"]
    if r == 0:
        sim.nccl(t, r, f"NCCL version {j.nccl}+cuda{j.cuda}", prio=2)
    sim.nccl(t, r, f"cudaDriverVersion {12000 + rng.choice([20, 40, 60, 80])}", prio=2)
    sim.nccl(t, r, f"Bootstrap : Using eth0:{n.ip}<0>", prio=2)
    if j.net == "ib" or j.net == "roce":
        lay = "IB" if j.net == "ib" else "RoCE"
        devs = " ".join(f"[{k}]mlx5_{k}:1/{lay}" for k in range(min(8, max(1, j.gpn))))
        if j.ncclv < (2, 19, 0):
            sim.nccl(t, r, "NET/Plugin : Plugin load (libnccl-net.so) returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory", prio=2)
        else:
            sim.nccl(t, r, "NET/Plugin: No plugin found (libnccl-net.so)", prio=2)
        sim.nccl(t, r, f"NET/IB : Using {devs} ; OOB eth0:{n.ip}<0>", prio=2)
        sim.nccl(t, r, "Using network IB", prio=2)
    elif j.net == "efa":
        sim.nccl(t, r, "NET/OFI Initializing aws-ofi-nccl 1.11.0-aws", prio=2)
        sim.nccl(t, r, f"NET/OFI Selected Provider is efa (found {4 if j.gpu_kind == 'a100' else 32} nics)", prio=2)
        sim.nccl(t, r, "Using network Libfabric", prio=2)
    else:
        sim.nccl(t, r, f"NET/Socket : Using [0]eth0:{n.ip}<0>", prio=2)
        sim.nccl(t, r, "Using network Socket", prio=2)
    cm = "0x" + hexs(rng, 12)
    t2 = t + timedelta(milliseconds=rng.randint(200, 900))
    tid = rng.randint(40, 900)
    sim.nccl(t2, r, f"comm {cm} rank {r} nranks {j.W} cudaDev {lr} nvmlDev {lr} busId {bus}000 commId {j.comm_id} - Init START",
             prio=2, tid_off=tid)
    if j.ncclv >= (2, 20, 0):
        sim.nccl(t2, r, f"comm {cm} rank {r} nRanks {j.W} nNodes {j.nnodes} localRanks {j.gpn} localRank {lr} MNNVL 0",
                 prio=2, tid_off=tid)
    nxt = (r + 1) % j.W
    via = "P2P/IPC" if (nxt // j.gpn == r // j.gpn and j.nvlink) else ("P2P/CUMEM" if nxt // j.gpn == r // j.gpn else
                                                                         ("NET/IB/0/GDRDMA" if j.net in ("ib", "roce") else "NET/Socket/0"))
    for ch in range(2):
        sim.nccl(t2, r, f"Channel {ch:02d}/0 : {r}[{lr}] -> {nxt}[{lr_of(j, nxt)}] via {via}", prio=2, tid_off=tid)
    sim.nccl(t2, r, "Connected all rings", prio=2, tid_off=tid)
    sim.nccl(t2, r, "Connected all trees", prio=2, tid_off=tid)
    t3 = t2 + timedelta(milliseconds=rng.randint(100, 2000))
    sim.nccl(t3, r, f"comm {cm} rank {r} nranks {j.W} cudaDev {lr} nvmlDev {lr} busId {bus}000 commId {j.comm_id} - Init COMPLETE",
             prio=1, tid_off=tid, tags=maps)
    if j.ncclv >= (2, 23, 0):
        sim.nccl(t3, r, f"Init timings - ncclCommInitRank: rank {r} nranks {j.W} total {rng.uniform(0.6, 9):.2f} (kernels "
                        f"{rng.uniform(0.1, 0.4):.2f}, alloc {rng.uniform(0.01, 0.2):.2f}, bootstrap {rng.uniform(0.05, 5):.2f}, "
                        f"allgathers {rng.uniform(0.0, 0.1):.2f}, topo {rng.uniform(0.05, 0.3):.2f}, graphs 0.01, connections "
                        f"{rng.uniform(0.05, 0.9):.2f}, rest 0.00)", prio=2, tid_off=tid)


# --------------------------------------------------------------------------- noise
def giant_config_line(j, rng):
    n = rng.randint(300, 1100)
    shards = [f"s3://corpus-{j.jobname[:6]}/tokenized/v3/shard-{k:05d}.bin" for k in range(n)]
    cfg = {"model": {"hidden_size": rng.choice([2048, 4096, 5120, 8192]), "num_layers": rng.choice([24, 32, 40, 80]),
                     "num_attention_heads": rng.choice([16, 32, 40, 64]), "seq_length": rng.choice([2048, 4096, 8192])},
           "optim": {"lr": 3e-4, "betas": [0.9, 0.95], "weight_decay": 0.1, "warmup_steps": 2000},
           "parallel": {"tp": rng.choice([1, 2, 4, 8]), "pp": rng.choice([1, 2, 4]), "dp": "auto", "zero_stage": rng.choice([0, 1, 3])},
           "data": {"train_files": shards, "num_workers": rng.choice([2, 4, 8]), "prefetch_factor": 2},
           "world_size": j.W}
    return "Training config: " + json.dumps(cfg, separators=(",", ":"))


def startup(sim, t0):
    j, rng = sim.j, sim.rng
    j.rdzv_info = j.tv < (2, 2) or rng.random() < 0.3
    for ni in sim.shown:
        n = j.nodes[ni]
        ta = t0 + timedelta(seconds=rng.uniform(0, 6))
        if j.launcher == "deepspeed":
            ds_startup(sim, ta + timedelta(seconds=rng.uniform(1, 5)), ni)
        if j.launcher in ("torchrun", "srun_torchrun"):
            if j.tv >= (2, 2):
                for m in ["", "*****************************************",
                          "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your "
                          "system being overloaded, please further tune the variable for optimal performance in your "
                          "application as needed. ", "*****************************************"]:
                    sim.agent(ta, ni, "W", "run", 793 if j.tv >= (2, 4) else 757, m, prio=2)
            else:
                sim.agent(ta, ni, "W", "run", 0, "\n*****************************************\nSetting OMP_NUM_THREADS "
                          "environment variable for each process to be 1 in default, to avoid your system being overloaded, "
                          "please further tune the variable for optimal performance in your application as needed. \n"
                          "*****************************************", prio=2)
            if j.rdzv_info:
                tb = ta + timedelta(seconds=rng.uniform(2, 40))
                ranks = list(range(ni * j.gpn, (ni + 1) * j.gpn))
                body = ("[default] Rendezvous complete for workers. Result:\n"
                        "  restart_count=0\n"
                        f"  master_addr={j.nodes[0].pod_host}\n"
                        "  master_port=29500\n"
                        f"  group_rank={ni}\n"
                        f"  group_world_size={j.nnodes}\n"
                        f"  local_ranks={list(range(j.gpn))}\n"
                        f"  role_ranks={ranks}\n"
                        f"  global_ranks={ranks}\n"
                        f"  role_world_sizes={[j.W] * j.gpn}\n"
                        f"  global_world_sizes={[j.W] * j.gpn}\n")
                tags = [f"MAPL{ni}:{k}={ni * j.gpn + k}" for k in range(j.gpn)]
                sim.agent(tb, ni, "I", "agent", 0 if j.tv < (2, 2) else 1306, body, prio=1, tags=tags)
        # per-rank
        for lr in range(j.gpn):
            r = ni * j.gpn + lr
            tr = t0 + timedelta(seconds=rng.uniform(20, 70))
            if j.rank_hello:
                sim.app(tr, r, f"[rank{r}] init_process_group done: local_rank={lr} world_size={j.W} device=cuda:{lr} "
                               f"host={n.pod_host}", prio=1, stream="stdout", tags=[f"MAPL{ni}:{lr}={r}"])
            if j.tv >= (2, 4) and rng.random() < 0.5:
                sim.c10d(tr, r, "W", rng.choice([4115, 4166, 4561]),
                         f"{sim.pgp(r).replace(' (default_pg)', '').replace('0(default_pg)', '0')}  using GPU {lr} to perform barrier "
                         "as devices used by this process are currently unknown. This can potentially cause a hang if this rank "
                         "to GPU mapping is incorrect.Specify device_ids in barrier() to force use of a particular device,or call "
                         "init_process_group() with a device_id.", prio=2)
            if j.nccl_info:
                nccl_init_lines(sim, tr + timedelta(seconds=rng.uniform(1, 8)), r)
            if rng.random() < 0.45:
                sim.app(tr + timedelta(seconds=rng.uniform(10, 30)), r,
                        f"{j.site}/torch/utils/checkpoint.py:{464 if j.tv < (2, 4) else 295}: UserWarning: torch.utils.checkpoint: "
                        "the use_reentrant parameter should be passed explicitly. In version 2.5 we will raise an exception if "
                        "use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the "
                        "current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
                        "differences between the two variants.\n  return fn(*args, **kwargs)", prio=2)
    # rank 0 banners
    t = t0 + timedelta(seconds=rng.uniform(75, 110))
    sim.app(t, 0, f"Loading tokenizer and dataset index ({rng.randint(300, 4000)} shards)", prio=2, stream="stdout")
    sim.app(t + timedelta(seconds=2), 0, giant_config_line(j, rng), prio=1, stream="stdout", tags=["GIANT"])
    sim.app(t + timedelta(seconds=5), 0, f"Number of parameters: {rng.uniform(0.3, 70):.2f}B  (trainable: 100.00%)", prio=2,
            stream="stdout")
    if j.tv >= (2, 4) and rng.random() < 0.5:
        sim.app(t + timedelta(seconds=9), 0, f"{j.script}:{rng.randint(100, 300)}: FutureWarning: `torch.cuda.amp.autocast(args...)` "
                "is deprecated. Please use `torch.amp.autocast('cuda', args...)` instead.\n  with torch.cuda.amp.autocast(dtype=torch.bfloat16):",
                prio=2)


def step_line(j, rng, t_local, step, st, loss, r):
    fw = j.fw
    lr_ = 3e-4 * min(1.0, step / 2000.0) + 1e-6
    if fw == "megatron":
        return (f" [{t_local.strftime('%Y-%m-%d %H:%M:%S')}] iteration {step:>8d}/{j.total_steps:>8d} | consumed samples: "
                f"{step * j.gbs:>12d} | elapsed time per iteration (ms): {st * 1000:.1f} | throughput per GPU (TFLOP/s/GPU): "
                f"{j.tflops / st * j.step_time:.1f} | learning rate: {lr_:.6E} | global batch size: {j.gbs:>5d} | lm loss: {loss:.6E} | "
                f"loss scale: 1.0 | grad norm: {rng.uniform(0.6, 1.6):.3f} | number of skipped iterations:   0 | number of nan "
                f"iterations:   0 |")
    if fw == "hf":
        ep = step / j.total_steps * 3
        return f"{{'loss': {loss:.4f}, 'grad_norm': {rng.uniform(0.4, 2.2):.4f}, 'learning_rate': {lr_ / 10:.4e}, 'epoch': {ep:.2f}}}"
    if fw == "lightning":
        pct = int(100 * (step % 3000) / 3000)
        return (f"Epoch {step // 3000}:  {pct:2d}%|{'█' * (pct // 10)}{' ' * (10 - pct // 10)}| {step % 3000}/3000 "
                f"[{(step % 3000) * st / 60:02.0f}:{int(step * st) % 60:02d}<{(3000 - step % 3000) * st / 60:02.0f}:00, "
                f"{st:.2f}s/it, v_num=0, train_loss={loss:.3f}]")
    if fw == "deepspeed":
        return (f"[{pylog_ts(t_local)}] [INFO] [logging.py:128:log_dist] [Rank 0] step={step}, skipped={j.ds_skipped}, "
                f"lr=[{lr_:.8f}], mom=[(0.9, 0.95)]")
    base = (f"{pylog_ts(t_local)} INFO [train.py:214] [rank{r}] step {step}/{j.total_steps} loss={loss:.4f} lr={lr_:.2e} "
            f"grad_norm={rng.uniform(0.4, 2.2):.2f} tok/s/gpu={int(j.tok_s / st * j.step_time)} step_time={st:.3f}s")
    if j.ansi:
        base = (f"\x1b[32m{pylog_ts(t_local)}\x1b[0m \x1b[1mINFO\x1b[0m [train.py:214] [rank{r}] step {step}/{j.total_steps} "
                f"loss=\x1b[36m{loss:.4f}\x1b[0m lr={lr_:.2e} step_time={st:.3f}s")
    return base


def training(sim, t_a, t_b, st_fn=None, loss_spike_at=None):
    """Periodic step lines from the logging rank between t_a and t_b."""
    j, rng = sim.j, sim.rng
    logger = j.W - 1 if j.fw == "megatron" else 0
    n = node_of(j, logger)
    t = max(t_a, j.t_train0)
    while t < t_b:
        st = st_fn(t) if st_fn else j.step_time
        step = int((t - j.t_train0).total_seconds() / j.step_time) + 1
        loss = 2.1 + 6.0 / (1 + step / 400.0) + rng.gauss(0, 0.03)
        if loss_spike_at and abs((t - loss_spike_at).total_seconds()) < st * j.log_every:
            loss *= 3.7
        sim.app(t, logger, step_line(j, rng, local_t(n, t), step, st, loss, logger), prio=2, stream="stdout")
        if j.fw == "deepspeed" and rng.random() < 0.5:
            sim.app(t, logger, f"[{pylog_ts(local_t(n, t))}] [INFO] [timer.py:264:stop] epoch=0/micro_step={step}/global_step="
                               f"{step}, RunningAvgSamplesPerSec={j.gbs / st:.2f}, CurrSamplesPerSec={j.gbs / st * rng.uniform(0.97, 1.03):.2f}, "
                               f"MemAllocated={j.gpu_cap * 0.4:.2f}GB, MaxMemAllocated={j.gpu_cap * 0.8:.2f}GB", prio=2, stream="stdout")
        if j.fw == "hf" and rng.random() < 0.6:
            pct = int(100 * step / j.total_steps)
            sim.app(t, logger, f"{pct:3d}%|{'█' * (pct // 10)}{' ' * (10 - pct // 10)}| {step}/{j.total_steps} "
                               f"[{int(step * st) // 3600}:{int(step * st) % 3600 // 60:02d}:{int(step * st) % 60:02d}<"
                               f"{int((j.total_steps - step) * st) // 3600}:{int((j.total_steps - step) * st) % 3600 // 60:02d}:00, "
                               f"{st:.2f}s/it]", prio=2, stream="stderr")
        if step // j.ckpt_every != (step + int(j.log_every)) // j.ckpt_every and rng.random() < 0.8:
            sim.app(t + timedelta(seconds=1), 0, f"Saving checkpoint at step {step} to /checkpoints/{j.jobname}/step_{step:07d}",
                    prio=2, stream="stdout")
            sim.app(t + timedelta(seconds=rng.uniform(20, 90)), 0,
                    f"Checkpoint saved in {rng.uniform(18, 85):.1f}s ({rng.uniform(20, 400):.1f} GB)", prio=2, stream="stdout")
        t += timedelta(seconds=st * j.log_every * rng.uniform(0.98, 1.02))


def decoys(sim, t_a, t_b, avoid_nodes, healthy=False):
    """Alarming-but-benign lines."""
    j, rng = sim.j, sim.rng
    notes = []
    cands = [n for n in sim.shown if n not in avoid_nodes] or list(sim.shown)
    span = max(60.0, (t_b - t_a).total_seconds())
    # benign old Xid on another node
    if rng.random() < (0.7 if healthy else 0.4) and (healthy or len(sim.shown) > 1):
        dn = rng.choice(cands)
        tt = t_a + timedelta(seconds=rng.uniform(0, span * 0.4))
        bus = rng.choice(j.buses)
        kind = rng.choice(["13", "63", "31old", "43"])
        if kind == "13":
            msg = (f"NVRM: Xid (PCI:0000:{bus}:00): 13, pid={rng.randint(100000, 400000)}, name=dcgmproftester12, Graphics SM Warp "
                   f"Exception on (GPC 3, TPC 1, SM 0): Out Of Range Address")
        elif kind == "63":
            msg = (f"NVRM: Xid (PCI:0000:{bus}:00): 63, pid='<unknown>', name=<unknown>, Row Remapper: New row "
                   f"(0x{hexs(rng, 12)}) marked for remapping, reset gpu to activate.")
        elif kind == "43":
            msg = f"NVRM: Xid (PCI:0000:{bus}:00): 43, pid={rng.randint(100000, 400000)}, name=python, Ch 0000000{rng.randint(1, 9)}"
        else:
            msg = (f"NVRM: Xid (PCI:0000:{bus}:00): 31, pid={rng.randint(100000, 400000)}, name=nvidia-smi, Ch 00000002, intr "
                   f"10000000. MMU Fault: ENGINE CE3 HUBCLIENT_CE1 faulted @ 0x0_00000000. Fault is of type "
                   f"FAULT_PDE ACCESS_TYPE_VIRT_READ")
        sim.kernel(tt, dn, msg, prio=1, tags=["DECOY"])
        notes.append(f"decoy: benign Xid {kind[:2]} on {j.nodes[dn].host} (pid not in job)")
    # handled exception on rank 0
    if rng.random() < (0.7 if healthy else 0.45):
        tt = t_a + timedelta(seconds=rng.uniform(0, span * 0.7))
        sim.app(tt, 0, "\n".join([
            "Traceback (most recent call last):",
            f'  File "{j.site}/urllib3/connectionpool.py", line 536, in _make_request',
            "    response = conn.getresponse()",
            f'  File "{j.site}/urllib3/connection.py", line 507, in getresponse',
            "    httplib_response = super().getresponse()",
            "TimeoutError: The read operation timed out",
            "",
            f"WARNING:checkpoint_uploader:upload of step checkpoint shard 3/16 failed (ReadTimeoutError), retrying in 30s (attempt 1/5)"]),
            prio=2)
        notes.append("decoy: handled upload exception on rank 0")
    if rng.random() < 0.35:
        r = rng.choice([x for ni in sim.shown for x in range(ni * j.gpn, (ni + 1) * j.gpn)])
        if sim.vis(r // j.gpn) and r // j.gpn not in avoid_nodes:
            tt = t_a + timedelta(seconds=rng.uniform(0, span * 0.6))
            sim.app(tt, r, "\n".join([
                "Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7f" + hexs(rng, 10) + ">",
                "Traceback (most recent call last):",
                f'  File "{j.site}/torch/utils/data/dataloader.py", line {1604 if j.tv >= (2, 4) else 1479}, in __del__',
                "    self._shutdown_workers()",
                f'  File "{j.site}/torch/utils/data/dataloader.py", line {1568 if j.tv >= (2, 4) else 1443}, in _shutdown_workers',
                "    if self._persistent_workers or self._workers_status[worker_id]:",
                "AttributeError: '_MultiProcessingDataLoaderIter' object has no attribute '_workers_status'"]), prio=2)
            notes.append(f"decoy: 'Exception ignored' dataloader __del__ traceback on rank {r}")
    # benign NCCL WARN
    if j.net in ("ib", "roce") and rng.random() < 0.4:
        r = rng.choice([x for ni in sim.shown for x in range(ni * j.gpn, (ni + 1) * j.gpn)])
        if r // j.gpn not in avoid_nodes:
            sim.nccl(t_a + timedelta(seconds=rng.uniform(0, span * 0.5)), r, "NET/IB : Got async event : GID table change",
                     warn="transport/net_ib.cc:93" if j.ncclv < (2, 20, 0) else "transport/net_ib.cc:146", prio=2)
            notes.append("decoy: benign NCCL WARN GID table change")
    if j.fw == "deepspeed" and rng.random() < 0.6:
        sim.app(t_a + timedelta(seconds=rng.uniform(0, span * 0.5)), 0,
                f"[{pylog_ts(local_t(j.nodes[0], t_a))}] [INFO] [loss_scaler.py:190:update_scale] [deepspeed] OVERFLOW! Rank 0 "
                f"Skipping step. Attempted loss scale: 65536, but hysteresis is 2. Reducing hysteresis to 1", prio=2, stream="stdout")
    if j.stack in ("onprem", "eks", "gke") and rng.random() < 0.3:
        dn = rng.choice(cands)
        sim.svc(t_a + timedelta(seconds=rng.uniform(0, span)), dn, "kubelet",
                f'{klog_ts(local_t(j.nodes[dn], t_a), "E")}    {rng.randint(1500, 3000)} prober.go:104] "Probe errored" err="rpc error: '
                f'code = Unknown desc = deadline exceeded" probeType="Readiness" pod="kube-system/nvidia-dcgm-exporter-{alnum(rng, 5)}"',
                prio=2)
    return notes


# --------------------------------------------------------------------------- failure plumbing
SIGNAMES = {-6: ("6", "SIGABRT"), -9: ("9", "SIGKILL"), -11: ("11", "SIGSEGV"), -7: ("7", "SIGBUS"), -15: ("15", "SIGTERM")}


def torchrun_traceback(j):
    tr = "/usr/local/bin/torchrun" if j.site.startswith("/usr") else "/opt/conda/bin/torchrun"
    s = j.site
    car = j.py >= "3.11"
    vt = j.tv
    wrap = 355 if vt >= (2, 4) else 346
    mainl, runl = {(2, 0): (794, 785), (2, 1): (806, 797), (2, 2): (812, 803), (2, 3): (879, 870)}.get(vt, (919, 910))
    calll, la = (138, 269) if vt >= (2, 4) else (134, 250)
    out = ["Traceback (most recent call last):", f'  File "{tr}", line 8, in <module>', "    sys.exit(main())"]
    if car:
        out.append("             ^^^^^^")
    out += [f'  File "{s}/torch/distributed/elastic/multiprocessing/errors/__init__.py", line {wrap}, in wrapper',
            "    return f(*args, **kwargs)"]
    if car:
        out.append("           ^^^^^^^^^^^^^^^^^^")
    out += [f'  File "{s}/torch/distributed/run.py", line {mainl}, in main', "    run(args)",
            f'  File "{s}/torch/distributed/run.py", line {runl}, in run', "    elastic_launch(",
            f'  File "{s}/torch/distributed/launcher/api.py", line {calll}, in __call__',
            "    return launch_agent(self._config, self._entrypoint, list(args))"]
    if car:
        out.append("           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^")
    out += [f'  File "{s}/torch/distributed/launcher/api.py", line {la}, in launch_agent', "    raise ChildFailedError("]
    return out


def failure_entry(j, n, t, r, ec):
    lt = local_t(n, t)
    pid = pid_of(j, r)
    lines = [f"  time      : {lt.strftime('%Y-%m-%d_%H:%M:%S')}", f"  host      : {n.pod_host}",
             f"  rank      : {r} (local_rank: {lr_of(j, r)})", f"  exitcode  : {ec} (pid: {pid})",
             "  error_file: <N/A>"]
    if ec < 0 and ec in SIGNAMES:
        num, nm = SIGNAMES[ec]
        lines.append(f"  traceback : Signal {num} ({nm}) received by PID {pid}")
    else:
        lines.append("  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
    return lines


def ds_log(sim, t, node, level, line, func, msg, prio=1, tags=None):
    j = sim.j
    n = j.nodes[node]
    lt = local_t(n, t)
    sim.add(t, node, f"[{pylog_ts(lt)}] [{level}] [launch.py:{line}:{func}] {msg}", "agent", "stderr", prio, tags, pid=n.agent_pid)


def ds_cmd(j, lr):
    return f"['{j.pybin}', '-u', '{j.script}', '--local_rank={lr}', '--deepspeed_config', 'ds_config.json']"


def ds_startup(sim, t, ni):
    j = sim.j
    n = j.nodes[ni]
    hosts = [x.pod_host for x in j.nodes]
    wid = "{" + ", ".join(f"'{h}': {list(range(j.gpn))}" for h in hosts) + "}"
    grm = "{" + ", ".join(f"'{h}': {list(range(k * j.gpn, (k + 1) * j.gpn))}" for k, h in enumerate(hosts)) + "}"
    ds_log(sim, t, ni, "INFO", 146, "main", f"WORLD INFO DICT: {wid}", prio=2)
    ds_log(sim, t, ni, "INFO", 152, "main", f"nnodes={j.nnodes}, num_local_procs={j.gpn}, node_rank={ni}", prio=1,
           tags=[f"MAPL{ni}:{k}={ni * j.gpn + k}" for k in range(j.gpn)])
    ds_log(sim, t, ni, "INFO", 163, "main", f"global_rank_mapping=defaultdict(<class 'list'>, {grm})", prio=1,
           tags=[f"MAPL{x}:{k}={x * j.gpn + k}" for x in sim.shown for k in range(j.gpn)])
    ds_log(sim, t, ni, "INFO", 164, "main", f"dist_world_size={j.W}", prio=2)
    ds_log(sim, t, ni, "INFO", 168, "main", f"Setting CUDA_VISIBLE_DEVICES={','.join(str(k) for k in range(j.gpn))}", prio=2)
    for k in range(j.gpn):
        ds_log(sim, t + timedelta(milliseconds=5 * k), ni, "INFO", 256, "main",
               f"process {n.pids[k]} spawned with command: {ds_cmd(j, k)}", prio=1, tags=[f"MAPP{ni}:{n.pids[k]}={ni * j.gpn + k}"])


def launcher_killed(sim, tt, ni, prio=1, tags=None):
    """The node's launcher receives SIGTERM (pod deletion, scancel, node shutdown) and stops its workers."""
    j, rng = sim.j, sim.rng
    n = j.nodes[ni]
    if j.launcher == "srun":
        return
    if j.launcher == "deepspeed":
        ds_log(sim, tt, ni, "INFO", 334, "sigkill_handler", "Main process received SIGTERM, exiting", prio=prio, tags=tags)
        for lr in range(j.gpn):
            ds_log(sim, tt + timedelta(microseconds=300 * lr), ni, "INFO", 316, "sigkill_handler", f"Killing subprocess {n.pids[lr]}", prio=2)
        return
    fl = ELASTIC_LINES[j.tv if j.tv in ELASTIC_LINES else (2, 6)]
    sim.agent(tt, ni, "W", "agent", fl[2], "Received 15 death signal, shutting down workers", prio=prio, tags=tags)
    for lr in range(j.gpn):
        sim.agent(tt + timedelta(microseconds=300 * lr), ni, "W", "mp", fl[1], f"Sending process {n.pids[lr]} closing signal SIGTERM", prio=2)
    sim.add(tt + timedelta(seconds=rng.uniform(1, 5)), ni, "\n".join(
        (f"{ni}: " if j.prefix == "srunnode" else "") + x for x in torchrun_traceback(j)[:-2] + [
            "torch.distributed.elastic.multiprocessing.api.SignalException: Process "
            f"{n.agent_pid} got signal: 15"]), "agent", "stderr", 1, pid=n.agent_pid)


def agent_report(sim, t, node, fails, culprit=None, sigterm=True):
    """torchrun on `node` notices failed workers: fails = [(rank, exitcode, t_exit)], first is root cause."""
    j, rng = sim.j, sim.rng
    if j.launcher == "srun":
        return
    n = j.nodes[node]
    if j.launcher == "deepspeed":
        r0, ec0, _ = fails[0]
        is_c = (r0 == culprit)
        tt = t
        for lr in range(j.gpn):
            r = node * j.gpn + lr
            if r == r0:
                continue
            ds_log(sim, tt, node, "INFO", 316, "sigkill_handler", f"Killing subprocess {n.pids[lr]}", prio=1,
                   tags=(["EV", "ABS", f"P{node}:{n.pids[lr]}", f"N{node}"] if r == culprit and sim.hang_mode else None))
            tt += timedelta(microseconds=rng.randint(200, 900))
        ds_log(sim, tt + timedelta(milliseconds=3), node, "ERROR", 325, "sigkill_handler",
               f"{ds_cmd(j, lr_of(j, r0))} exits with return code = {ec0}", prio=0 if is_c else 1,
               tags=(["EV", f"N{node}", f"L{node}:{lr_of(j, r0)}"] if is_c else None))
        return tt
    fl = ELASTIC_LINES[j.tv if j.tv in ELASTIC_LINES else (2, 6)]
    failed_ranks = [f[0] for f in fails]
    tt = t
    if sigterm:
        for lr in range(j.gpn):
            r = node * j.gpn + lr
            if r in failed_ranks:
                continue
            sim.agent(tt, node, "W", "mp", fl[1], f"Sending process {n.pids[lr]} closing signal SIGTERM", prio=1,
                      tags=(["EV", "ABS", f"P{node}:{n.pids[lr]}", f"N{node}"] if r == culprit and sim.hang_mode else None))
            tt += timedelta(microseconds=rng.randint(200, 900))
    r0, ec0, t0 = fails[0]
    tt += timedelta(seconds=rng.uniform(0.5, 4.0))
    is_c = (r0 == culprit)
    sim.agent(tt, node, "E", "mp", fl[0], f"failed (exitcode: {ec0}) local_rank: {lr_of(j, r0)} (pid: {pid_of(j, r0)}) of binary: {j.pybin}",
              prio=0 if is_c else 1, tags=(["EV", f"N{node}", f"P{node}:{pid_of(j, r0)}", f"L{node}:{lr_of(j, r0)}"] if is_c else None))
    tb = torchrun_traceback(j)
    block = ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "=" * 60,
             f"{os.path.basename(j.script)} FAILED", "-" * 60, "Failures:"]
    if len(fails) == 1:
        block.append("  <NO_OTHER_FAILURES>")
    else:
        for k, (r, ec, te) in enumerate(fails[1:], start=1):
            block.append(f"[{k}]:")
            block += failure_entry(j, n, te, r, ec)
    block += ["-" * 60, "Root Cause (first observed failure):", "[0]:"] + failure_entry(j, n, t0, r0, ec0) + ["=" * 60]
    pf = f"{node}: " if j.prefix == "srunnode" else ""
    tg = ["EV", f"N{node}", f"R{r0}"] if is_c else []
    sim.add(tt + timedelta(milliseconds=2), node, "\n".join(pf + x for x in tb + block), "agent", "stderr",
            0 if is_c else 1, tg, pid=n.agent_pid)
    return tt


def srun_report(sim, t, r, how):
    j = sim.j
    n = node_of(j, r)
    jid = j.slurm_jobid
    if j.launcher == "srun":
        sim.launcher(t, f"srun: error: {n.host}: task {r}: {how}", prio=0 if r == sim.culprit else 1,
                     tags=(["EV", f"R{r}", f"N{n.idx}"] if r == sim.culprit else None))
    else:
        sim.launcher(t, f"srun: error: {n.host}: task {n.idx}: {how}", prio=1,
                     tags=(["EV", f"N{n.idx}"] if r == sim.culprit else None))
    sim.launcher(t + timedelta(milliseconds=30), "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
    for ni in sim.shown:
        nn = j.nodes[ni]
        tt = t + timedelta(seconds=sim.rng.uniform(0.2, 2))
        msg = f"slurmstepd: error: *** STEP {jid}.0 ON {nn.host} CANCELLED AT {local_t(nn, tt).strftime('%Y-%m-%dT%H:%M:%S')} ***"
        sim.launcher(tt, msg, prio=1)


def worker_exit(sim, t_exit, culprit, ec, how):
    """Culprit worker exited; the launcher notices."""
    j = sim.j
    node = culprit // j.gpn
    if j.launcher in ("torchrun", "srun_torchrun", "deepspeed"):
        agent_report(sim, t_exit + timedelta(seconds=sim.rng.uniform(0.2, 1.5)), node, [(culprit, ec, t_exit)], culprit)
    if j.launcher in ("srun", "srun_torchrun"):
        srun_report(sim, t_exit + timedelta(seconds=sim.rng.uniform(1, 6)), culprit, how)


def abort_lines(sim, t, r, what, where="checkTimeout"):
    j, rng = sim.j, sim.rng
    lines = cpp_frames(j, rng, f"{where} at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:{PG_LINES[j.tv][0]}",
                       rng.randint(4, 7))
    lines += ["", "terminate called after throwing an instance of 'c10::DistBackendError'" if j.tv >= (2, 2)
              else "terminate called after throwing an instance of 'std::runtime_error'", f"  what():  {what}"]
    lines += cpp_frames(j, rng, f"{where} at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:{PG_LINES[j.tv][0]}",
                        rng.randint(3, 5))
    sim.app(t, r, "\n".join(lines), prio=1)


def watchdog_block(sim, t, r, seq, op, numel, tmo_ms, full=True, ev=False, last_enq=None, last_done=None):
    j, rng = sim.j, sim.rng
    L = PG_LINES[j.tv]
    ran = tmo_ms + rng.randint(5, 400)
    work = f"WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={numel}, NumelOut={numel}, Timeout(ms)={tmo_ms})" if j.tv >= (2, 1) \
        else f"WorkNCCL(SeqNum={seq}, OpType={op}, Timeout(ms)={tmo_ms})"
    head = f"[Rank {r}] Watchdog caught collective operation timeout: {work} ran for {ran} milliseconds before timing out."
    tg = [f"TO{r}"]
    sim.c10d(t, r, "E", L[0], head, prio=0 if ev else 1, ev=ev, tags=tg)
    if not full:
        return head
    le = last_enq if last_enq is not None else seq + rng.randint(0, 3)
    ld = last_done if last_done is not None else seq - 1
    if L[1]:
        sim.c10d(t, r, "E", L[1], f"{sim.pgp(r)} Exception (either an error or timeout) detected by watchdog at work: {seq}, "
                                  f"last enqueued NCCL work: {le}, last completed NCCL work: {ld}.", prio=1, tags=tg)
    if L[2]:
        sim.c10d(t, r, "E", L[2], f"{sim.pgp(r)} Timeout at NCCL work: {seq}, last enqueued NCCL work: {le}, last completed NCCL "
                                  f"work: {ld}.", prio=1, tags=tg)
    sim.c10d(t, r, "E", L[3], f"[Rank {r}] Some NCCL operations have failed or timed out. Due to the asynchronous nature of "
                              "CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.", prio=1)
    sim.c10d(t, r, "E", L[4], f"[Rank {r}] To avoid data inconsistency, we are taking the entire process down.", prio=1)
    what = f"{sim.wdterm(r)} {head}"
    t2 = t + timedelta(milliseconds=rng.randint(1, 40))
    sim.c10d(t2, r, "E", L[5], what, prio=1)
    return what


def peer_error_lines(sim, t, r, culprit_node, flavor="dead"):
    """Lines a healthy rank prints when its peer (on culprit_node) died or its network went away."""
    j, rng = sim.j, sim.rng
    cn = j.nodes[culprit_node]
    me = node_of(j, r)
    port = rng.randint(32768, 60999)
    if j.net in ("ib", "roce"):
        st = 12 if flavor == "net" or rng.random() < 0.6 else 5
        if j.ncclv >= (2, 19, 0):
            msg = (f"NET/IB : Got completion from peer {cn.ip}<{port}> with status={st} opcode=0 len=0 vendor err "
                   f"{129 if st == 12 else 249} (Recv) localGid ::ffff:{me.ip} remoteGids::ffff:{cn.ip}")
        else:
            msg = f"NET/IB : Got completion from peer {cn.ip}<{port}> with error {st}, opcode 0, len 0, vendor err {129 if st == 12 else 249} (Recv)"
        sim.nccl(t, r, msg, warn=f"transport/net_ib.cc:{rng.choice([1696, 1720, 2234])}", prio=1, tid_off=rng.randint(90, 300))
        last = msg
    elif j.net == "efa":
        msg = "NET/OFI Request completed with error. RC: 21. Error: unknown error"
        sim.nccl(t, r, msg, warn=f"process_completions:{rng.randint(1580, 1700)}", prio=1, tid_off=rng.randint(90, 300))
        last = msg
    else:
        if j.ncclv >= (2, 19, 0):
            msg = f"socketProgress: Connection closed by remote peer {cn.pod_host}<{port}>"
            sim.nccl(t, r, msg, warn="misc/socket.cc:50", prio=1, tid_off=rng.randint(90, 300))
        else:
            msg = f"Net : Connection closed by remote peer {cn.pod_host}<{port}>"
            sim.nccl(t, r, msg, warn="misc/socket.cc:538", prio=1, tid_off=rng.randint(90, 300))
        last = msg
    tid = rng.randint(90, 300)
    sim.nccl(t, r, "transport/net.cc:1302 -> 6", prio=2, tid_off=tid)
    sim.nccl(t, r, "proxy.cc:698 -> 6", prio=2, tid_off=tid)
    sim.nccl(t, r, "proxy.cc:878 -> 6 [Progress Thread]", prio=2, tid_off=tid)
    return last


def remote_error_exit(sim, t, r, last, ev=False):
    j = sim.j
    L = PG_LINES[j.tv]
    what = (f"{sim.wdterm(r)} NCCL error: remote process exited or there was "
            f"a network error, NCCL version {j.nccl}\nncclRemoteError: A call failed possibly due to a network error or a remote "
            f"process exiting prematurely.\nLast error:\n{last}")
    sim.c10d(t, r, "E", L[5], what, prio=0 if ev else 1, ev=ev)
    abort_lines(sim, t + timedelta(milliseconds=5), r, what.split("\n")[0], where="checkForNCCLErrors")


def collateral(sim, t_fail, culprit_node, modes, seq, op, numel, skip_ranks=(), net_flavor="dead"):
    """Other shown nodes react to the failure.  modes: dict node->mode."""
    j, rng = sim.j, sim.rng
    t_last = t_fail
    for ni in sim.shown:
        if ni == culprit_node or ni not in modes:
            continue
        mode = modes[ni]
        ranks = [ni * j.gpn + k for k in range(j.gpn) if ni * j.gpn + k not in skip_ranks]
        if not ranks:
            continue
        if mode == "remote" and j.net != "none":
            k = rng.randint(1, min(3, len(ranks)))
            first = None
            for r in rng.sample(ranks, k):
                tt = t_fail + timedelta(seconds=rng.uniform(0.3, 25))
                last = peer_error_lines(sim, tt, r, culprit_node, net_flavor)
                remote_error_exit(sim, tt + timedelta(milliseconds=rng.randint(5, 900)), r, last)
                if first is None or tt < first[1]:
                    first = (r, tt)
            te = first[1] + timedelta(seconds=rng.uniform(0.5, 3))
            agent_report(sim, te, ni, [(first[0], -6, first[1])])
            t_last = max(t_last, te)
        elif mode == "killed":
            tt = t_fail + timedelta(seconds=rng.uniform(6, 80))
            n = j.nodes[ni]
            if j.stack in ("onprem", "eks", "gke"):
                sim.svc(tt - timedelta(seconds=0.3), ni, "kubelet",
                        f'{klog_ts(local_t(n, tt), "I")}    {rng.randint(1500, 3000)} kuberuntime_container.go:{rng.choice([770, 779, 808])}] '
                        f'"Killing container with a grace period" pod="{j.namespace}/{n.pod}" podUID="{hexs(rng, 8)}-{hexs(rng, 4)}-'
                        f'{hexs(rng, 4)}-{hexs(rng, 4)}-{hexs(rng, 12)}" containerName="{j.container}" containerID="containerd://'
                        f'{hexs(rng, 64)}" gracePeriod=30', prio=2)
            launcher_killed(sim, tt, ni)
            t_last = max(t_last, tt)
        else:  # timeout
            tmo = j.timeout_ms
            base = t_fail + timedelta(milliseconds=tmo + rng.randint(50, 3000))
            first = None
            for r in ranks:
                tt = base + timedelta(milliseconds=rng.randint(0, 900))
                what = watchdog_block(sim, tt, r, seq, op, numel, tmo, full=(rng.random() < 0.7 or r == ranks[0]))
                if first is None or tt < first[1]:
                    first = (r, tt, what)
            abort_lines(sim, first[1] + timedelta(milliseconds=rng.randint(5, 60)), first[0], first[2])
            te = first[1] + timedelta(seconds=rng.uniform(1, 4))
            agent_report(sim, te, ni, [(first[0], -6, first[1])])
            t_last = max(t_last, te)
    return t_last


def choose_modes(sim, culprit_node, weights):
    rng = sim.rng
    main = wchoice(rng, weights)
    modes = {}
    for ni in sim.shown:
        if ni == culprit_node:
            continue
        modes[ni] = main if rng.random() < 0.8 else wchoice(rng, weights)
    return main, modes


# --------------------------------------------------------------------------- causes
def seq_at(j, t):
    return max(5, int((t - j.t_train0).total_seconds() / j.step_time * j.colls_per_step))


def finish(sim, cul, t_exit, ec, how, weights=None, net_flavor="dead"):
    j, rng = sim.j, sim.rng
    worker_exit(sim, t_exit, cul, ec, how)
    if weights is None:
        weights = [("remote", 3), ("timeout", 3), ("killed", 2)] if j.net != "none" else [("timeout", 3), ("killed", 2)]
    main, modes = choose_modes(sim, cul // j.gpn, weights)
    sim.notes.append(f"collateral: {main} on other nodes")
    t_end = collateral(sim, t_exit, cul // j.gpn, modes, seq_at(j, t_exit), rng.choice(OPS), rng.choice([262144, 1048576, 65536000, 4194304]),
                       net_flavor=net_flavor)
    return max(t_end, t_exit + timedelta(seconds=5))


def xid_line(j, n, bus, code, pid, rest):
    if pid is None:
        return f"NVRM: Xid (PCI:0000:{bus}:00): {code}, pid='<unknown>', name=<unknown>, {rest}"
    return f"NVRM: Xid (PCI:0000:{bus}:00): {code}, pid={pid}, name={j.proc_name}, {rest}"


def cuda_failure_exit(sim, t, cul, err, style):
    """Culprit dies because of a CUDA error; style py (traceback, exit 1) or wd (watchdog abort, -6)."""
    j, rng = sim.j, sim.rng
    if style == "py":
        lines = py_frames(j, rng, rng.choice(["fwd", "bwd", "opt"])) + cuda_err_tail(err)
        sim.app(t, cul, "\n".join(lines), prio=0, ev=True, rank_prefixed=True)
        return 1
    L = PG_LINES[j.tv]
    what = f"{sim.wdterm(cul)} CUDA error: {err}"
    body = "\n".join([what] + cuda_err_tail(err)[1:-1] + [""] + cpp_frames(
        j, rng, "c10_cuda_check_implementation at /pytorch/c10/cuda/CUDAException.cpp:43", 5))
    sim.c10d(t, cul, "E", L[5], body, prio=0, ev=True)
    sim.app(t + timedelta(milliseconds=3), cul, "terminate called after throwing an instance of 'c10::DistBackendError'\n"
            f"  what():  {what}", prio=1)
    return -6


def c_gpu_hardware(sim, cul, t):
    j, rng = sim.j, sim.rng
    n, lr, pid = node_of(j, cul), lr_of(j, cul), pid_of(j, cul)
    bus = j.buses[lr]
    uuid = f"GPU-{hexs(rng, 8)}-{hexs(rng, 4)}-{hexs(rng, 4)}-{hexs(rng, 4)}-{hexs(rng, 12)}"
    var = rng.choice(["xid79", "xid79", "xid119"])
    tags = ["EV", f"N{n.idx}", f"B{n.idx}:{bus}"]
    if var == "xid79":
        sim.kernel(t, n.idx, f"NVRM: GPU at PCI:0000:{bus}:00: {uuid}", prio=0, tags=tags)
        if j.driver >= "550":
            sim.kernel(t, n.idx, xid_line(j, n, bus, 79, None, "GPU has fallen off the bus."), prio=0, tags=tags)
        else:
            sim.kernel(t, n.idx, f"NVRM: Xid (PCI:0000:{bus}:00): 79, pid=0, GPU has fallen off the bus.", prio=0, tags=tags)
        sim.kernel(t + timedelta(milliseconds=2), n.idx, f"NVRM: GPU 0000:{bus}:00.0: GPU has fallen off the bus.", prio=0, tags=tags)
        err = rng.choice(["unspecified launch failure", "unknown error"])
        sim.notes.append(f"Xid 79 (fallen off the bus) on {n.host} GPU {lr} (PCI {bus})")
    else:
        for k in range(rng.randint(1, 3)):
            sim.kernel(t + timedelta(seconds=6 * k), n.idx, xid_line(j, n, bus, 119, pid,
                       f"Timeout after 6s of waiting for RPC response from GPU{lr} GSP! Expected function 76 (GSP_RM_CONTROL) "
                       f"(0x20800a4c 0x4)."), prio=0, tags=tags + [f"P{n.idx}:{pid}"])
        err = "unspecified launch failure"
        t = t + timedelta(seconds=6)
        sim.notes.append(f"Xid 119 (GSP RPC timeout) on {n.host} GPU {lr} (PCI {bus})")
    if j.stack in ("onprem", "eks", "gke"):
        sim.svc(t + timedelta(seconds=rng.uniform(1, 5)), n.idx, "nvidia-device-plugin",
                f"{klog_ts(local_t(n, t), 'I')}       1 health.go:{rng.choice([151, 189, 216])}] XidCriticalError: Xid="
                f"{79 if var == 'xid79' else 119} on Device={uuid}; marking device as unhealthy.", prio=1,
                container="nvidia-device-plugin-ctr", tags=["EV", f"N{n.idx}"])
    te = t + timedelta(seconds=rng.uniform(0.3, 4))
    ec = cuda_failure_exit(sim, te, cul, err, rng.choice(["py", "wd"]))
    return {"t_train_end": t, "t_end": finish(sim, cul, te, ec, "Exited with exit code 1" if ec == 1 else "Aborted (core dumped)"),
            "need_kernel": True}


def c_ecc_memory(sim, cul, t):
    j, rng = sim.j, sim.rng
    n, lr, pid = node_of(j, cul), lr_of(j, cul), pid_of(j, cul)
    bus = j.buses[lr]
    tags = ["EV", f"N{n.idx}", f"B{n.idx}:{bus}", f"P{n.idx}:{pid}"]
    var = rng.choice(["48", "94", "95"])
    if var == "48":
        sim.kernel(t, n.idx, xid_line(j, n, bus, 48, pid, f"An uncorrectable double bit error (DBE) has been detected on GPU in the "
                                                           f"framebuffer at partition {rng.randint(0, 11)}, subpartition {rng.randint(0, 1)}."),
                   prio=0, tags=tags)
        sim.kernel(t + timedelta(milliseconds=40), n.idx, xid_line(j, n, bus, 63, pid, f"Row Remapper: New row (0x{hexs(rng, 12)}) "
                                                                                         "marked for remapping, reset gpu to activate."),
                   prio=1, tags=tags)
    elif var == "94":
        sim.kernel(t, n.idx, xid_line(j, n, bus, 94, pid, "Contained: SM (0x1). RST: No, D-RST: No"), prio=0, tags=tags)
    else:
        sim.kernel(t, n.idx, xid_line(j, n, bus, 95, pid, "Uncontained: FBHUB. RST: Yes, D-RST: No"), prio=0, tags=tags)
    sim.notes.append(f"Xid {var} (ECC) on {n.host} GPU {lr} (PCI {bus}), pid {pid}")
    te = t + timedelta(seconds=rng.uniform(0.05, 2))
    ec = cuda_failure_exit(sim, te, cul, "uncorrectable ECC error encountered", rng.choice(["py", "wd", "py"]))
    return {"t_train_end": t, "t_end": finish(sim, cul, te, ec, "Exited with exit code 1" if ec == 1 else "Aborted (core dumped)"),
            "need_kernel": True}


def c_nvlink(sim, cul, t):
    j, rng = sim.j, sim.rng
    n, lr, pid = node_of(j, cul), lr_of(j, cul), pid_of(j, cul)
    bus = j.buses[lr]
    link = rng.randint(0, 17)
    tags = ["EV", f"N{n.idx}", f"B{n.idx}:{bus}", f"P{n.idx}:{pid}"]
    sim.kernel(t, n.idx, xid_line(j, n, bus, 74, pid, f"NVLink: fatal error detected on link {link}(0x0, 0x0, 0x{rng.choice(['10000', '20000', '80000', '100'])}, "
                                                      "0x0, 0x0, 0x0, 0x0)"), prio=0, tags=tags)
    err = "uncorrectable NVLink error detected during the execution"
    sim.nccl(t + timedelta(milliseconds=rng.randint(50, 700)), cul, f"Cuda failure '{err}'", warn="enqueue.cc:1556" if j.ncclv >= (2, 20, 0)
             else "enqueue.cc:1402", prio=0, ev=True)
    others = [x for x in range(n.idx * j.gpn, (n.idx + 1) * j.gpn) if x != cul]
    peers = rng.sample(others, min(len(others), rng.randint(1, 3)))
    for k, p in enumerate(peers):
        tp = t + timedelta(seconds=rng.uniform(0.8, 4))
        sim.kernel(tp, n.idx, xid_line(j, n, j.buses[lr_of(j, p)], 45, pid_of(j, p), f"Ch 0000000{rng.randint(1, 9)}"), prio=1)
        sim.nccl(tp + timedelta(milliseconds=30), p, f"Cuda failure '{err}'", warn="enqueue.cc:1556" if j.ncclv >= (2, 20, 0)
                 else "enqueue.cc:1402", prio=1)
    sim.notes.append(f"Xid 74 NVLink fatal on {n.host} GPU {lr} link {link}; Xid 45 + NVLink CUDA errors on local peers {peers} (collateral)")
    te = t + timedelta(seconds=rng.uniform(0.5, 2))
    ec = cuda_failure_exit(sim, te, cul, err, "wd")
    return {"t_train_end": t, "t_end": finish(sim, cul, te, ec, "Aborted (core dumped)"), "need_kernel": True}


def c_network(sim, cul, t):
    j, rng = sim.j, sim.rng
    n, lr, pid = node_of(j, cul), lr_of(j, cul), pid_of(j, cul)
    nicbus = rng.choice(["0c", "1a", "2b", "41", "5e", "9c", "a8", "d4"])
    tagsN = ["EV", f"N{n.idx}"]
    if j.net == "ib":
        sim.kernel(t, n.idx, f"mlx5_core 0000:{nicbus}:00.0 mlx5_{lr}: Port: 1 Link DOWN", prio=0, tags=tagsN)
    elif j.net == "roce":
        sim.kernel(t, n.idx, f"mlx5_core 0000:{nicbus}:00.0 enp{int(nicbus, 16)}s0np0: Link down", prio=0, tags=tagsN)
    elif j.net == "efa":
        sim.kernel(t, n.idx, f"ena 0000:00:06.0 eth1: Keep alive watchdog timeout.", prio=0, tags=tagsN)
        sim.kernel(t + timedelta(milliseconds=3), n.idx, "ena 0000:00:06.0 eth1: Trigger reset is on", prio=0, tags=tagsN)
    else:
        sim.kernel(t, n.idx, f"mlx5_core 0000:{nicbus}:00.0 eth1: Link down", prio=0, tags=tagsN)
    if rng.random() < 0.4 and j.net in ("ib", "roce"):
        sim.kernel(t + timedelta(seconds=rng.uniform(3, 40)), n.idx,
                   f"mlx5_core 0000:{nicbus}:00.0 mlx5_{lr}: Port: 1 Link ACTIVE" if j.net == "ib"
                   else f"mlx5_core 0000:{nicbus}:00.0 enp{int(nicbus, 16)}s0np0: Link up", prio=1)
        sim.notes.append("link flapped back up afterwards")
    tt = t + timedelta(seconds=rng.uniform(0.5, 8))
    port = rng.randint(32768, 60999)
    peer = (cul + j.gpn) % j.W
    pn = node_of(j, peer)
    if j.net in ("ib", "roce"):
        sim.nccl(tt, cul, "NET/IB : Got async event : port error", warn="transport/net_ib.cc:93" if j.ncclv < (2, 20, 0)
                 else "transport/net_ib.cc:146", prio=0, ev=True, tid_off=rng.randint(50, 90))
        if j.ncclv >= (2, 19, 0):
            last = (f"NET/IB : Got completion from peer {pn.ip}<{port}> with status=12 opcode=0 len=0 vendor err 129 (Send) "
                    f"localGid ::ffff:{n.ip} remoteGids::ffff:{pn.ip}")
        else:
            last = f"NET/IB : Got completion from peer {pn.ip}<{port}> with error 12, opcode 0, len 0, vendor err 129 (Send)"
        sim.nccl(tt + timedelta(seconds=rng.uniform(5, 20)), cul, last, warn="transport/net_ib.cc:1720", prio=0, ev=True,
                 tid_off=rng.randint(100, 300))
    elif j.net == "efa":
        last = f"NET/OFI Request completed with error. RC: 21. Error: unknown error. Completed length: 0, Request: dev {lr}"
        sim.nccl(tt, cul, last, warn=f"process_completions:{rng.randint(1580, 1700)}", prio=0, ev=True, tid_off=rng.randint(100, 300))
    else:
        last = f"socketProgress: Call to recv from {pn.ip}<{port}> failed : Connection timed out" if j.ncclv >= (2, 19, 0) \
            else f"Net : Call to recv from {pn.ip}<{port}> failed : Connection timed out"
        sim.nccl(tt, cul, last, warn="misc/socket.cc:50" if j.ncclv >= (2, 19, 0) else "misc/socket.cc:518", prio=0, ev=True,
                 tid_off=rng.randint(100, 300))
    te = tt + timedelta(seconds=rng.uniform(20, 40))
    remote_error_exit(sim, te, cul, last, ev=True)
    sim.notes.append(f"NIC/link failure on {n.host} ({j.net}); local rank {lr} first to report; peers blame {n.ip}")
    t_end = finish(sim, cul, te + timedelta(milliseconds=50), -6, "Aborted (core dumped)",
                   weights=[("remote", 5), ("timeout", 1), ("killed", 1)], net_flavor="net")
    return {"t_train_end": t, "t_end": t_end, "need_kernel": True}


def c_cuda_oom(sim, cul, t):
    j, rng = sim.j, sim.rng
    lr = lr_of(j, cul)
    lines = py_frames(j, rng, rng.choice(["fwd", "bwd", "bwd"]))
    lines.append(oom_message(j, rng, lr, rng.choice([0.5, 1.0, 1.95, 2.0, 3.5, 8.0, 16.0, 0.25])))
    sim.app(t, cul, "\n".join(lines), prio=0, ev=True, rank_prefixed=True)
    if rng.random() < 0.35 and j.gpn > 1:
        other = (cul // j.gpn) * j.gpn + (lr + 1) % j.gpn
        t2 = t + timedelta(seconds=rng.uniform(0.4, 3))
        sim.app(t2, other, "\n".join(py_frames(j, rng, "bwd") + [oom_message(j, rng, lr_of(j, other), rng.choice([1.0, 2.0]))]),
                prio=1, rank_prefixed=True)
        sim.notes.append(f"second OOM on rank {other} {(t2 - t).total_seconds():.1f}s later (same node)")
    te = t + timedelta(seconds=rng.uniform(0.5, 3))
    return {"t_train_end": t, "t_end": finish(sim, cul, te, 1, "Exited with exit code 1")}


def c_illegal_memory_access(sim, cul, t):
    j, rng = sim.j, sim.rng
    n, lr, pid = node_of(j, cul), lr_of(j, cul), pid_of(j, cul)
    if rng.random() < 0.6:
        sim.kernel(t - timedelta(milliseconds=rng.randint(5, 200)), n.idx,
                   xid_line(j, n, j.buses[lr], 31, pid, f"Ch 0000000{rng.randint(2, 9)}, intr 00000000. MMU Fault: ENGINE GRAPHICS "
                                                        f"GPCCLIENT_T1_{rng.randint(0, 7)} faulted @ 0x7f{hexs(rng, 2)}_{hexs(rng, 8)}. Fault is of type "
                                                        "FAULT_PDE ACCESS_TYPE_VIRT_READ"),
                   prio=0, tags=["EV", f"N{n.idx}", f"P{n.idx}:{pid}", f"B{n.idx}:{j.buses[lr]}"])
        sim.notes.append("Xid 31 MMU fault (application bug, not hardware) for the culprit pid")
    ec = cuda_failure_exit(sim, t, cul, "an illegal memory access was encountered", rng.choice(["py", "wd"]))
    return {"t_train_end": t, "t_end": finish(sim, cul, t + timedelta(seconds=rng.uniform(0.2, 2)), ec,
                                              "Exited with exit code 1" if ec == 1 else "Aborted (core dumped)")}


def c_python_exception(sim, cul, t):
    j, rng = sim.j, sim.rng
    var = rng.choice(["key", "fnf", "value_long", "shape", "assert", "zerodiv"])
    if var == "key":
        lines = py_frames(j, rng, "data") + [f'  File "{j.site}/torch/utils/data/_utils/fetch.py", line 55, in fetch',
                                             "    return self.collate_fn(data)", f'  File "/workspace/data/collate.py", line 41, in __call__',
                                             '    attn = torch.stack([b["attention_mask"] for b in batch])',
                                             "KeyError: 'attention_mask'"]
    elif var == "fnf":
        lines = py_frames(j, rng, "data") + ['  File "/workspace/data/shards.py", line 88, in _open_shard',
                                             "    return np.memmap(path, dtype=np.uint16, mode=\"r\")",
                                             f"FileNotFoundError: [Errno 2] No such file or directory: '/data/tokenized/v3/shard-{rng.randint(0, 9999):05d}.bin'"]
    elif var == "value_long":
        vals = ", ".join(str(rng.randint(0, 50000)) for _ in range(rng.randint(3500, 6000)))
        lines = py_frames(j, rng, "fwd") + ['  File "/workspace/model/loss.py", line 27, in forward',
                                            "    raise ValueError(f\"Expected input batch_size ({logits.size(0)}) to match target batch_size ({labels.size(0)}). labels={labels}\")",
                                            f"ValueError: Expected input batch_size (8192) to match target batch_size (8191). labels=tensor([{vals}])"]
        sim.notes.append("exception message is one very long line (may be truncated by the pipeline)")
    elif var == "shape":
        lines = py_frames(j, rng, "fwd") + [f'  File "{j.site}/torch/nn/modules/linear.py", line 125, in forward',
                                            "    return F.linear(input, self.weight, self.bias)",
                                            "RuntimeError: mat1 and mat2 shapes cannot be multiplied (8192x4096 and 5120x4096)"]
    elif var == "assert":
        lines = py_frames(j, rng, "opt")[:5] + [f'  File "{j.script}", line {rng.randint(100, 200)}, in train',
                                               "    assert torch.isfinite(loss), f\"non-finite loss at step {step}\"",
                                               f"AssertionError: non-finite loss at step {seq_at(j, t) // j.colls_per_step}"]
    else:
        lines = py_frames(j, rng, "opt")[:5] + ['  File "/workspace/utils/schedule.py", line 19, in lr_lambda',
                                               "    return min(1.0, step / warmup) * (1 - (step - warmup) / decay_steps)",
                                               "ZeroDivisionError: division by zero"]
    sim.app(t, cul, "\n".join(lines), prio=0, ev=True, rank_prefixed=True)
    sim.notes.append(f"python exception variant {var}")
    return {"t_train_end": t, "t_end": finish(sim, cul, t + timedelta(seconds=rng.uniform(0.3, 2)), 1, "Exited with exit code 1")}


def c_host_oom_kill(sim, cul, t):
    j, rng = sim.j, sim.rng
    n, lr, pid = node_of(j, cul), lr_of(j, cul), pid_of(j, cul)
    worker = rng.random() < 0.4
    kpid = pid + rng.randint(100, 900) if worker else pid
    cg = j.stack in ("onprem", "eks", "gke")
    cid = hexs(rng, 64)
    lines = [f"{j.proc_name} invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj="
             f"{-997 if not cg else 0}",
             f"CPU: {rng.randint(0, 191)} PID: {kpid} Comm: {j.proc_name} Tainted: P           OE      5.15.0-{rng.randint(90, 130)}-generic "
             f"#{rng.randint(100, 140)}-Ubuntu"]
    if cg:
        lines.append(f"oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=cri-containerd-{cid}.scope,mems_allowed=0-1,"
                     f"oom_memcg=/kubepods.slice/kubepods-pod{hexs(rng, 8)}.slice,task_memcg=/kubepods.slice/kubepods-pod"
                     f"{hexs(rng, 8)}.slice/cri-containerd-{cid}.scope,task={j.proc_name},pid={kpid},uid=0")
        kill = "Memory cgroup out of memory: Killed process"
    else:
        lines.append(f"oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg="
                     f"/system.slice/docker-{cid[:12]}.scope,task={j.proc_name},pid={kpid},uid=1000")
        kill = "Out of memory: Killed process"
    anon = rng.randint(60_000_000, 900_000_000)
    lines.append(f"{kill} {kpid} ({j.proc_name}) total-vm:{anon + rng.randint(10**7, 9 * 10**7)}kB, anon-rss:{anon}kB, file-rss:"
                 f"{rng.randint(10**5, 10**6)}kB, shmem-rss:{rng.randint(0, 10**6)}kB, UID:0 pgtables:{rng.randint(10**5, 9 * 10**5)}kB "
                 f"oom_score_adj:0")
    sim.kernel(t, n.idx, "\n".join(lines), prio=0, tags=["EV", f"N{n.idx}", f"P{n.idx}:{kpid}"])
    sim.kernel(t + timedelta(milliseconds=rng.randint(100, 900)), n.idx,
               f"oom_reaper: reaped process {kpid} ({j.proc_name}), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB", prio=1,
               tags=["EV", f"N{n.idx}", f"P{n.idx}:{kpid}"])
    if worker:
        te = t + timedelta(seconds=rng.uniform(0.5, 5))
        lines = py_frames(j, rng, "data") + [
            f'  File "{j.site}/torch/utils/data/dataloader.py", line {1308 if j.tv >= (2, 4) else 1284}, in _next_data',
            "    idx, data = self._get_data()",
            f'  File "{j.site}/torch/utils/data/dataloader.py", line {1133 if j.tv >= (2, 4) else 1120}, in _try_get_data',
            f"    raise RuntimeError(f'DataLoader worker (pid(s) {{pids_str}}) exited unexpectedly') from e",
            f"RuntimeError: DataLoader worker (pid {kpid}) is killed by signal: Killed. "]
        sim.app(te, cul, "\n".join(lines), prio=0, ev=True, rank_prefixed=True)
        sim.notes.append(f"host OOM killer killed a DataLoader worker (pid {kpid}) of rank {cul}")
        return {"t_train_end": t, "t_end": finish(sim, cul, te + timedelta(seconds=0.5), 1, "Exited with exit code 1"), "need_kernel": True}
    sim.notes.append(f"host OOM killer killed the rank {cul} process (pid {kpid}) on {n.host}")
    return {"t_train_end": t, "t_end": finish(sim, cul, t + timedelta(seconds=0.2), -9, "Killed"), "need_kernel": True}


def c_crash_signal(sim, cul, t):
    j, rng = sim.j, sim.rng
    n, lr, pid = node_of(j, cul), lr_of(j, cul), pid_of(j, cul)
    var = rng.choice(["segv", "segv", "abrt", "bus"])
    if var == "segv":
        if rng.random() < 0.65:
            th = "0x00007f" + hexs(rng, 8)
            sim.app(t, cul, "\n".join(["Fatal Python error: Segmentation fault", "",
                                       f"Thread 0x00007f{hexs(rng, 8)} (most recent call first):",
                                       f'  File "/usr/lib/python{j.py}/threading.py", line 331, in wait',
                                       f'  File "/usr/lib/python{j.py}/threading.py", line 629, in wait',
                                       f'  File "{j.site}/tqdm/_monitor.py", line 60, in run', "",
                                       f"Current thread {th} (most recent call first):",
                                       f'  File "{j.site}/torch/autograd/graph.py", line 825 in _engine_run_backward',
                                       f'  File "{j.site}/torch/autograd/__init__.py", line 347 in backward',
                                       f'  File "{j.site}/torch/_tensor.py", line 581 in backward',
                                       f'  File "{j.script}", line {rng.randint(100, 200)} in train', "",
                                       "Extension modules: numpy.core._multiarray_umath, torch._C, torch._C._fft, torch._C._linalg, "
                                       "torch._C._nn, torch._C._sparse, torch._C._special, yaml._yaml (total: 27)"]),
                    prio=0, ev=True)
        lib = rng.choice(["libtorch_cuda.so", "libnccl.so.2", "libc10.so", "libcudnn_engines_precompiled.so.9"])
        sim.kernel(t, n.idx, f"{j.proc_name}[{pid}]: segfault at {rng.choice(['0', '8', '18', hexs(rng, 12)])} ip 00007f{hexs(rng, 10)} "
                             f"sp 00007ff{hexs(rng, 9)} error {rng.choice([4, 6])} in {lib}[7f{hexs(rng, 6)}000+{hexs(rng, 7)}]"
                             + (f" likely on CPU {rng.randint(0, 191)} (core {rng.randint(0, 47)}, socket {rng.randint(0, 1)})" if rng.random() < 0.5 else ""),
                   prio=0, tags=["EV", f"N{n.idx}", f"P{n.idx}:{pid}"])
        ec, how = -11, "Segmentation fault (core dumped)"
    elif var == "abrt":
        msg = rng.choice(["free(): invalid pointer", "double free or corruption (!prev)",
                          "terminate called after throwing an instance of 'std::bad_alloc'\n  what():  std::bad_alloc",
                          "malloc(): unaligned tcache chunk detected"])
        sim.app(t, cul, msg, prio=0, ev=True)
        ec, how = -6, "Aborted (core dumped)"
    else:
        sim.kernel(t, n.idx, f"{j.proc_name}[{pid}]: bus error at 00007f{hexs(rng, 10)} ip 00007f{hexs(rng, 10)} sp 00007ff{hexs(rng, 9)} "
                             "error 6", prio=0, tags=["EV", f"N{n.idx}", f"P{n.idx}:{pid}"]) if rng.random() < 0.5 else None
        ec, how = -7, "Bus error (core dumped)"
    sim.notes.append(f"worker killed by signal ({var}) rank {cul}")
    return {"t_train_end": t, "t_end": finish(sim, cul, t + timedelta(seconds=0.1), ec, how), "need_kernel": var == "segv"}


def c_preemption(sim, cul, t):
    j, rng = sim.j, sim.rng
    n = node_of(j, cul)
    fl = ELASTIC_LINES[j.tv if j.tv in ELASTIC_LINES else (2, 6)]
    res = {"t_train_end": t, "rank": None, "need_kernel": True}
    if j.stack in ("slurm", "baremetal"):
        # job-level preemption by the scheduler
        h0 = j.nodes[0]
        msg = (f"slurmstepd: error: *** JOB {j.slurm_jobid} ON {h0.host} CANCELLED AT "
               f"{local_t(h0, t).strftime('%Y-%m-%dT%H:%M:%S')} DUE TO PREEMPTION ***")
        if j.stack == "slurm":
            sim.launcher(t, msg, prio=0, tags=["EV"])
        for ni in sim.shown:
            nn = j.nodes[ni]
            sim.svc(t + timedelta(milliseconds=rng.randint(5, 400)), ni, "slurmstepd", msg.replace("slurmstepd: ", ""),
                    pid=rng.randint(2000, 90000), prio=0, tags=["EV"])
            launcher_killed(sim, t + timedelta(seconds=rng.uniform(0.1, 1.5)), ni)
        if j.stack == "slurm":
            sim.launcher(t + timedelta(seconds=1), "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
            sim.launcher(t + timedelta(seconds=2), f"srun: got SIGCONT")
            sim.launcher(t + timedelta(seconds=2.1), "srun: forcing job termination")
        res["node"] = None
        res["t_end"] = t + timedelta(seconds=rng.uniform(5, 35))
        sim.notes.append(f"SLURM job-level preemption (job {j.slurm_jobid}); no culprit node")
        return res
    lt = local_t(n, t)
    kpid = rng.randint(1500, 3000)
    if j.stack == "gke":
        sim.svc(t - timedelta(seconds=1), n.idx, "systemd-logind", "Power key pressed short.", pid=rng.randint(600, 1200), prio=0,
                tags=["EV", f"N{n.idx}"])
        sim.svc(t - timedelta(seconds=0.8), n.idx, "systemd-logind", "Powering off...", pid=rng.randint(600, 1200), prio=0,
                tags=["EV", f"N{n.idx}"])
        sim.notes.append(f"GCE spot/preemptible VM {n.host} reclaimed (ACPI power button)")
    elif j.stack == "eks":
        sim.svc(t - timedelta(seconds=40), n.idx, "aws-node-termination-handler",
                f"{(t - timedelta(seconds=40)).strftime('%Y/%m/%d %H:%M:%S')} INF Adding new event to the event store "
                f"event={{\"EndTime\":\"0001-01-01T00:00:00Z\",\"Description\":\"Spot ITN received. Instance will be interrupted at "
                f"{iso_z(t + timedelta(seconds=80), 0)} \\n\",\"Kind\":\"SPOT_ITN\",\"NodeName\":\"{n.host}\",\"InstanceID\":\"{n.instance}\"}}",
                prio=0, container="aws-node-termination-handler", tags=["EV", f"N{n.idx}"])
        sim.svc(t - timedelta(seconds=39), n.idx, "aws-node-termination-handler",
                f"{(t - timedelta(seconds=39)).strftime('%Y/%m/%d %H:%M:%S')} INF Requesting instance drain event-id=spot-itn-"
                f"{hexs(rng, 32)} instance-id={n.instance} kind=SPOT_ITN node-name={n.host}", prio=0,
                container="aws-node-termination-handler", tags=["EV", f"N{n.idx}"])
        sim.notes.append(f"EC2 spot interruption of {n.host} ({n.instance})")
    else:
        sim.svc(t - timedelta(seconds=2), n.idx, "kubelet",
                f'{klog_ts(local_t(n, t - timedelta(seconds=2)), "I")}    {kpid} nodeshutdown_manager_linux.go:{rng.choice([265, 321])}] "Shutdown manager detected new '
                f'shutdown event, isNodeShuttingDownNow" event=true', prio=0, tags=["EV", f"N{n.idx}"])
        sim.notes.append(f"node {n.host} shut down for maintenance/preemption (graceful node shutdown)")
    sim.svc(t - timedelta(seconds=1.5), n.idx, "kubelet",
            f'{klog_ts(local_t(n, t - timedelta(seconds=1.5)), "I")}    {kpid} nodeshutdown_manager_linux.go:{rng.choice([375, 393])}] "Shutdown manager killing pod with '
            f'gracePeriod" pod="{j.namespace}/{n.pod}" gracePeriod=30', prio=0, tags=["EV", f"N{n.idx}"])
    tt = t + timedelta(seconds=rng.uniform(0.2, 2))
    launcher_killed(sim, tt, n.idx, prio=0, tags=["EV", f"N{n.idx}"])
    main, modes = choose_modes(sim, n.idx, [("remote", 3), ("timeout", 2), ("killed", 1)])
    res["t_end"] = collateral(sim, tt + timedelta(seconds=2), n.idx, modes, seq_at(j, t), rng.choice(OPS), 1048576)
    res["t_end"] = max(res["t_end"], tt + timedelta(seconds=30))
    return res


def c_hang(sim, cul, t):
    j, rng = sim.j, sim.rng
    n, lr = node_of(j, cul), lr_of(j, cul)
    sim.hang_mode = True
    seq = seq_at(j, t)
    op = rng.choice(OPS)
    numel = rng.choice([1, 262144, 1048576, 65536000])
    tmo = j.timeout_ms
    styles = []
    if j.desync or (j.tv >= (2, 2) and rng.random() < 0.35):
        styles.append("desync")
    if rng.random() < 0.35:
        styles.append("faulthandler")
    if not styles and (j.nnodes > 4 or j.gpn == 1 or rng.random() < 0.4):
        styles.append("faulthandler" if j.tv < (2, 2) else "desync")
    if rng.random() < 0.3 and cul != 0:
        # the culprit logs that it entered something and never comes back
        sim.app(t - timedelta(seconds=rng.uniform(0.2, 3)), cul, f"[rank{cul}] step {seq // j.colls_per_step}: running extra "
                f"eval/ckpt hook on this rank", prio=1, stream="stdout", explicit=True)
    if "faulthandler" in styles:
        tf = t + timedelta(milliseconds=tmo - rng.randint(30000, 120000))
        sim.app(tf, cul, "\n".join([f"Timeout (0:{max(1, tmo // 60000 - 1):02d}:00)!",
                                    f"Thread 0x00007f{hexs(rng, 8)} (most recent call first):",
                                    f'  File "/usr/lib/python{j.py}/threading.py", line 331 in wait',
                                    f'  File "{j.site}/torch/utils/data/_utils/pin_memory.py", line 52 in do_one_step', "",
                                    f"Thread 0x00007f{hexs(rng, 8)} (most recent call first):",
                                    f'  File "/workspace/utils/ckpt_async.py", line 73 in _wait_for_upload',
                                    f'  File "/workspace/utils/ckpt_async.py", line 58 in maybe_flush',
                                    f'  File "{j.script}", line {rng.randint(150, 260)} in train',
                                    f'  File "{j.script}", line {rng.randint(300, 380)} in main',
                                    f'  File "{j.script}", line {rng.randint(390, 420)} in <module>']),
                prio=0, ev=True)
        sim.notes.append("faulthandler.dump_traceback_later output from the hung rank")
    # others time out
    t_to = t + timedelta(milliseconds=tmo + rng.randint(100, 2500))
    first_by_node = {}
    for ni in sim.shown:
        for k in range(j.gpn):
            r = ni * j.gpn + k
            if r == cul:
                continue
            tt = t_to + timedelta(milliseconds=rng.randint(0, 1500))
            what = watchdog_block(sim, tt, r, seq, op, numel, tmo, full=(rng.random() < 0.6 or k == 0), last_enq=seq, last_done=seq - 1)
            if ni not in first_by_node or tt < first_by_node[ni][1]:
                first_by_node[ni] = (r, tt, what)
    if "desync" in styles:
        r0 = 0 if 0 != cul else 1
        tt = t_to + timedelta(milliseconds=rng.randint(100, 600))
        started = [x for x in range(j.W) if x != cul]
        if len(started) > 12:
            st = f"[{started[0]}, {started[1]}, {started[2]}, ..., {started[-1]}] started {op}"
        else:
            st = f"{started} started {op}"
        body = "\n".join([f"Rank {r0}", f"         - [{r0}] Timeout at collective: {op}, #{seq}",
                          "         - To our best knowledge, the lagging/dead/mismatched ranks that caused the desync are:",
                          f"             [{cul}] finished collective #{seq - 1}, but didn't join collective #{seq} (count from 1)",
                          "         - Snapshot of ranks' latest states:", f"           #{seq - 1} finished ranks:",
                          f"             [{cul}] finished {op}", f"           #{seq} started ranks:", f"             {st}"])
        sim.c10d(tt, r0, "E", PG_LINES[j.tv][6], body, prio=0, tags=["EV", f"R{cul}"])
        sim.notes.append("desync debug report names the lagging rank")
    t_end = t_to
    for ni, (r, tt, what) in sorted(first_by_node.items()):
        abort_lines(sim, tt + timedelta(milliseconds=rng.randint(5, 80)), r, what)
        te = tt + timedelta(seconds=rng.uniform(1, 4))
        agent_report(sim, te, ni, [(r, -6, tt)], culprit=cul)
        t_end = max(t_end, te)
    if j.launcher in ("srun", "srun_torchrun"):
        r, tt, _ = sorted(first_by_node.values(), key=lambda x: x[1])[0]
        srun_report(sim, tt + timedelta(seconds=3), r, "Aborted (core dumped)")
    sim.notes.append(f"rank {cul} stopped making progress silently; every other rank timed out (SeqNum {seq}); styles={styles}")
    return {"t_train_end": t, "t_end": t_end, "hang_styles": styles}


def c_data_loader_stall(sim, cul, t):
    j, rng = sim.j, sim.rng
    n, lr = node_of(j, cul), lr_of(j, cul)
    tmo = j.timeout_ms / 1000
    dl_to = rng.choice([None, None, 120, 300, 600])
    if dl_to is not None and dl_to >= tmo:
        dl_to = int(tmo / 3)
    warn = rng.random() < 0.7
    kern = rng.random() < 0.7
    seq = seq_at(j, t)
    if warn:
        for k in range(1, 4 if dl_to is None else max(2, int(dl_to // 60))):
            tw = t + timedelta(seconds=60 * k)
            if dl_to is not None and 60 * k >= dl_to:
                break
            sim.app(tw, cul, f"{pylog_ts(local_t(n, tw))} WARNING [data.py:142] [rank{cul}] still waiting for batch from DataLoader "
                             f"after {60 * k:.1f}s (prefetch queue empty, {j.num_workers} workers alive)", prio=0, ev=True, explicit=True,
                    stream="stdout")
    if kern:
        srv = rng.choice(["10.40.0.15", "fsx-prod.dc1.internal", "nfs01"])
        sim.kernel(t + timedelta(seconds=rng.uniform(5, 30)), n.idx, f"nfs: server {srv} not responding, still trying", prio=0,
                   tags=["EV", f"N{n.idx}"])
        wpid = pid_of(j, cul) + rng.randint(100, 900)
        sim.kernel(t + timedelta(seconds=rng.uniform(125, 200)), n.idx,
                   f"INFO: task {j.proc_name}:{wpid} blocked for more than 122 seconds.\n      Tainted: P           OE      "
                   f"5.15.0-{rng.randint(90, 130)}-generic #{rng.randint(100, 140)}-Ubuntu\n"
                   '"echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.', prio=0, tags=["EV", f"N{n.idx}"])
        sim.notes.append(f"kernel: NFS server not responding + hung task on {n.host}")
    if dl_to is not None:
        te = t + timedelta(seconds=dl_to + rng.uniform(0, 2))
        lines = py_frames(j, rng, "data") + [
            f'  File "{j.site}/torch/utils/data/dataloader.py", line {1295 if j.tv >= (2, 4) else 1284}, in _next_data',
            "    idx, data = self._get_data()",
            f'  File "{j.site}/torch/utils/data/dataloader.py", line {1251 if j.tv >= (2, 4) else 1240}, in _get_data',
            "    success, data = self._try_get_data(self._timeout)",
            f'  File "{j.site}/torch/utils/data/dataloader.py", line {1145 if j.tv >= (2, 4) else 1133}, in _try_get_data',
            "    raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e",
            f"RuntimeError: DataLoader timed out after {dl_to} seconds"]
        sim.app(te, cul, "\n".join(lines), prio=0, ev=True, rank_prefixed=True)
        sim.notes.append(f"DataLoader(timeout={dl_to}) fired on rank {cul}")
        return {"t_train_end": t, "t_end": finish(sim, cul, te + timedelta(seconds=0.5), 1, "Exited with exit code 1")}
    # no dataloader timeout: the others' NCCL watchdog fires first
    sim.hang_mode = True
    t_to = t + timedelta(milliseconds=j.timeout_ms + rng.randint(100, 2500))
    op = rng.choice(OPS)
    first_by_node = {}
    for ni in sim.shown:
        for k in range(j.gpn):
            r = ni * j.gpn + k
            if r == cul:
                continue
            tt = t_to + timedelta(milliseconds=rng.randint(0, 1500))
            what = watchdog_block(sim, tt, r, seq, op, 262144, j.timeout_ms, full=(rng.random() < 0.5 or k == 0),
                                  last_enq=seq, last_done=seq - 1)
            if ni not in first_by_node or tt < first_by_node[ni][1]:
                first_by_node[ni] = (r, tt, what)
    t_end = t_to
    for ni, (r, tt, what) in sorted(first_by_node.items()):
        abort_lines(sim, tt + timedelta(milliseconds=20), r, what)
        te = tt + timedelta(seconds=rng.uniform(1, 4))
        agent_report(sim, te, ni, [(r, -6, tt)], culprit=cul)
        t_end = max(t_end, te)
    if not warn and not kern:
        sim.app(t_to - timedelta(seconds=30), cul, f"[rank{cul}] data wait {j.timeout_ms / 1000 - 30:.0f}s at step "
                f"{seq // j.colls_per_step}", prio=0, ev=True, explicit=True, stream="stdout")
    sim.notes.append(f"rank {cul} input pipeline stalled; others hit the NCCL watchdog")
    return {"t_train_end": t, "t_end": t_end}


def c_collective_mismatch(sim, cul, t):
    j, rng = sim.j, sim.rng
    seq = seq_at(j, t)
    dt = rng.choice(["BFloat16", "Float"])
    norm_op, odd_op = rng.choice([("ALLREDUCE", "BROADCAST"), ("ALLREDUCE", "_ALLGATHER_BASE"), ("_REDUCE_SCATTER_BASE", "ALLREDUCE"),
                                  ("ALLREDUCE", "ALLREDUCE")])
    norm_shape = rng.choice(["[262144]", "[51123456]", "[1024, 4096]"])
    odd_shape = rng.choice(["[1]", "[195812480]", "[1024, 4095]"]) if norm_op != odd_op or True else norm_shape
    topt = "TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))"

    def fp(op, shape):
        return f"CollectiveFingerPrint(SequenceNumber={seq}, OpType={op}, TensorShape={shape}, TensorDtypes={dt}, TensorDeviceTypes={topt})"

    diff = []
    if norm_op != odd_op:
        diff.append(f"  Op type: {odd_op}vs {norm_op}")
    diff.append(f"  Tensor Tensor shapes: {odd_shape.strip('[]')}vs {norm_shape.strip('[]')}")
    if j.dist_detail or rng.random() < 0.5:
        reporters = [r for ni in sim.shown for r in range(ni * j.gpn, (ni + 1) * j.gpn)]
        rep = [cul] + rng.sample([r for r in reporters if r != cul], min(len(reporters) - 1, rng.randint(1, 4)))
        other0 = 0 if cul != 0 else 1
        t_last = t
        rep_t = {}
        for r in rep:
            tt = t + timedelta(milliseconds=rng.randint(0, 1500))
            rep_t[r] = tt
            if r == cul:
                msg = f"RuntimeError: Detected mismatch between collectives on ranks. Rank {cul} is running collective: {fp(odd_op, odd_shape)}, but Rank {other0} is running collective: {fp(norm_op, norm_shape)}.Collectives differ in the following aspects: " + " ".join(diff)
            else:
                msg = f"RuntimeError: Detected mismatch between collectives on ranks. Rank {r} is running collective: {fp(norm_op, norm_shape)}, but Rank {cul} is running collective: {fp(odd_op, odd_shape)}.Collectives differ in the following aspects: " + " ".join(diff).replace(f"{odd_op}vs {norm_op}", f"{norm_op}vs {odd_op}")
            sim.app(tt, r, "\n".join(py_frames(j, rng, "allreduce") + [msg]), prio=0, ev=True, rank_prefixed=True,
                    tags=[f"MM{r}"])
            t_last = max(t_last, tt)
        sim.mm_style = "detail"
        sim.notes.append(f"TORCH_DISTRIBUTED_DEBUG=DETAIL mismatch reports from ranks {sorted(rep)}; odd rank {cul} ran {odd_op} {odd_shape}")
        rep_nodes = sorted(set(r // j.gpn for r in rep))
        t_end = t_last
        for ni in rep_nodes:
            rs = sorted([r for r in rep if r // j.gpn == ni], key=lambda x: rep_t[x])
            te = rep_t[rs[0]] + timedelta(seconds=rng.uniform(0.3, 2.5))
            agent_report(sim, te, ni, [(x, 1, rep_t[x]) for x in rs], culprit=cul)
            t_end = max(t_end, te)
        if j.launcher in ("srun", "srun_torchrun"):
            srun_report(sim, rep_t[cul] + timedelta(seconds=2), cul, "Exited with exit code 1")
        modes = {ni: rng.choice(["killed", "remote"]) for ni in sim.shown if ni not in rep_nodes}
        t_end = max(t_end, collateral(sim, t_last + timedelta(seconds=1), cul // j.gpn, modes, seq, norm_op, 262144))
        return {"t_train_end": t, "t_end": t_end + timedelta(seconds=3)}
    # no debug: timeout with a different op on the culprit
    sim.mm_style = "timeout"
    sim.hang_mode = False
    t_to = t + timedelta(milliseconds=j.timeout_ms + rng.randint(100, 2000))
    first_by_node = {}
    for ni in sim.shown:
        for k in range(j.gpn):
            r = ni * j.gpn + k
            tt = t_to + timedelta(milliseconds=rng.randint(0, 1200))
            if r == cul:
                what = watchdog_block(sim, tt, r, seq, odd_op if odd_op != norm_op else norm_op, 1 if odd_shape == "[1]" else 4194303,
                                      j.timeout_ms, full=True, ev=True)
            else:
                what = watchdog_block(sim, tt, r, seq, norm_op, 262144, j.timeout_ms, full=(rng.random() < 0.5 or k == 0))
            if ni not in first_by_node or tt < first_by_node[ni][1]:
                first_by_node[ni] = (r, tt, what)
    t_end = t_to
    for ni, (r, tt, what) in sorted(first_by_node.items()):
        abort_lines(sim, tt + timedelta(milliseconds=20), r, what)
        te = tt + timedelta(seconds=rng.uniform(1, 4))
        agent_report(sim, te, ni, [(r, -6, tt)])
        t_end = max(t_end, te)
    sim.notes.append(f"no debug mode: all ranks time out at SeqNum {seq}; rank {cul}'s WorkNCCL has a different OpType/Numel")
    return {"t_train_end": t, "t_end": t_end}


def c_straggler(sim, cul, t):
    j, rng = sim.j, sim.rng
    n = node_of(j, cul)
    slow = rng.uniform(1.35, 2.6)
    comp = j.step_time * rng.uniform(0.6, 0.8)
    outcome = rng.choice(["finish", "killed", "killed"])
    t_stop = t + timedelta(minutes=rng.uniform(25, 90))
    st_fn = lambda tt: j.step_time if tt < t else comp * slow + (j.step_time - comp) * 0.6
    # per-rank timing lines from sampled ranks
    ranks = sorted(set([cul] + [r for ni in sim.shown for r in range(ni * j.gpn, (ni + 1) * j.gpn)]))
    if len(ranks) > 24:
        ranks = sorted(set([cul] + rng.sample(ranks, 23)))
    every = max(60.0, (t_stop - t).total_seconds() / 14)
    tt = t - timedelta(seconds=every * 3)
    while tt < t_stop:
        step = int((tt - j.t_train0).total_seconds() / j.step_time)
        for r in ranks:
            is_slow = (r == cul and tt >= t)
            st = st_fn(tt)
            fb = comp * (slow if is_slow else 1.0) * rng.uniform(0.97, 1.03)
            wait = max(1.0, (st - fb) * 1000 * rng.uniform(0.9, 1.1) - (j.step_time - comp) * 400)
            line = (f"[rank{r}] timing step {step}: fwd_bwd={fb * 1000:.1f}ms comm_wait={wait:.1f}ms data={rng.uniform(2, 9):.1f}ms "
                    f"step={st * 1000:.1f}ms")
            sim.app(tt + timedelta(milliseconds=rng.randint(0, 300)), r, line, prio=(0 if is_slow else 2), ev=is_slow, explicit=True,
                    stream="stdout")
        tt += timedelta(seconds=every)
    if rng.random() < 0.45:
        tr = t + timedelta(minutes=rng.uniform(8, 20))
        worst = [cul] + rng.sample([x for x in range(j.W) if x != cul], min(4, j.W - 1))
        lines = ["GPU relative performance:", f" Worst performing 5/{j.W} ranks:"]
        for k, r in enumerate(worst):
            lines.append(f"  Rank={r} Node={node_of(j, r).pod_host} Score={(1 / slow if k == 0 else rng.uniform(0.93, 0.99)):.2f}")
        lines.append(f" Best performing 5/{j.W} ranks:")
        for r in rng.sample([x for x in range(j.W) if x not in worst], min(5, max(0, j.W - 5))):
            lines.append(f"  Rank={r} Node={node_of(j, r).pod_host} Score=1.00")
        sim.app(tr, 0, "\n".join(lines), prio=0, tags=["EV", f"R{cul}", f"N{cul // j.gpn}"], stream="stdout")
        sim.notes.append("straggler detector report present")
    sim.notes.append(f"rank {cul} on {n.host} computes {slow:.2f}x slower from {iso_z(t, 0)}; outcome={outcome}")
    if outcome == "finish":
        te = t_stop
        sim.app(te, 0, f"Training completed. Total time {(te - j.t_train0).total_seconds() / 3600:.2f}h "
                       f"(expected {(te - j.t_train0).total_seconds() / 3600 / 1.4:.2f}h)", prio=1, stream="stdout", tags=["EV"])
        healthy_exit(sim, te)
        return {"t_train_end": t_stop, "t_end": te + timedelta(seconds=20), "st_fn": st_fn}
    # operator kills the slow job
    te = t_stop
    for ni in sim.shown:
        launcher_killed(sim, te + timedelta(seconds=rng.uniform(0, 3)), ni)
    if j.launcher in ("srun", "srun_torchrun"):
        sim.launcher(te, "srun: interrupt (one more within 1 sec to abort)")
        sim.launcher(te + timedelta(seconds=0.5), "srun: forcing job termination")
    return {"t_train_end": t_stop, "t_end": te + timedelta(seconds=10), "st_fn": st_fn}


def c_unknown(sim, cul, t):
    j, rng = sim.j, sim.rng
    var = rng.choice(["alltimeout", "alltimeout", "vanish"])
    res = {"t_train_end": t, "rank": None, "node": None}
    if var == "vanish":
        sim.notes.append("all pods/tasks disappeared without any error line (external kill, no reason in the logs)")
        res["t_end"] = t + timedelta(seconds=rng.uniform(1, 20))
        return res
    seq = seq_at(j, t)
    op = rng.choice(OPS)
    t_to = t + timedelta(milliseconds=j.timeout_ms + rng.randint(100, 2000))
    first_by_node = {}
    for ni in sim.shown:
        for k in range(j.gpn):
            r = ni * j.gpn + k
            tt = t_to + timedelta(milliseconds=rng.randint(0, 1500))
            what = watchdog_block(sim, tt, r, seq, op, 262144, j.timeout_ms, full=(rng.random() < 0.5 or k == 0), last_enq=seq,
                                  last_done=seq - 1)
            if ni not in first_by_node or tt < first_by_node[ni][1]:
                first_by_node[ni] = (r, tt, what)
    t_end = t_to
    for ni, (r, tt, what) in sorted(first_by_node.items()):
        abort_lines(sim, tt + timedelta(milliseconds=20), r, what)
        te = tt + timedelta(seconds=rng.uniform(1, 4))
        agent_report(sim, te, ni, [(r, -6, tt)])
        t_end = max(t_end, te)
    sim.notes.append(f"every visible rank timed out at SeqNum {seq} (no desync report, no kernel/hardware evidence)")
    res["t_end"] = t_end
    return res


def healthy_exit(sim, te):
    j, rng = sim.j, sim.rng
    for ni in sim.shown:
        for k in range(j.gpn):
            r = ni * j.gpn + k
            if j.tv >= (2, 4) and rng.random() < 0.7:
                sim.c10d(te + timedelta(seconds=rng.uniform(1, 8)), r, "W", rng.choice([1250, 1262, 1476]),
                         "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal "
                         "program exit, the application should call destroy_process_group to ensure that any pending NCCL operations "
                         "have finished in this process. In rare cases this process can exit before this point and block the progress "
                         "of another member of the process group. This constraint has always been present,  but this warning has only "
                         "recently been added. For more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown "
                         "(function operator())", prio=2)
        if j.launcher == "deepspeed":
            for lr in range(j.gpn):
                ds_log(sim, te + timedelta(seconds=rng.uniform(9, 15)), ni, "INFO", 351, "main",
                       f"Process {j.nodes[ni].pids[lr]} exits successfully.", prio=2)
        elif j.rdzv_info and j.launcher != "srun":
            sim.agent(te + timedelta(seconds=rng.uniform(9, 15)), ni, "I", "agent", ELASTIC_LINES.get(j.tv, (0, 0, 0, 906))[3],
                      "[default] worker group successfully finished. Waiting 300 seconds for other agents to finish.", prio=2)


def c_healthy(sim, cul, t):
    j, rng = sim.j, sim.rng
    te = t
    if rng.random() < 0.5 and j.nnodes > 1:
        # a transient NCCL/network warning that recovered
        r = rng.choice([x for ni in sim.shown for x in range(ni * j.gpn, (ni + 1) * j.gpn)])
        sim.nccl(te - timedelta(minutes=rng.uniform(5, 30)), r, "NET/IB : Got async event : GID table change" if j.net in ("ib", "roce")
                 else f"NCCL_SOCKET_IFNAME set by environment to eth0", warn="transport/net_ib.cc:146" if j.net in ("ib", "roce") else None,
                 prio=2)
    if rng.random() < 0.4:
        sim.app(te - timedelta(minutes=rng.uniform(3, 20)), 0, f"WARNING:root:grad norm is inf at step "
                f"{int((te - j.t_train0).total_seconds() / j.step_time) - 77}, skipping optimizer step", prio=2)
    sim.app(te, 0, f"Training completed. Saving final checkpoint to /checkpoints/{j.jobname}/final", prio=1, stream="stdout",
            tags=["EV"])
    sim.app(te + timedelta(seconds=rng.uniform(30, 80)), 0, "Final checkpoint saved. Exiting.", prio=1, stream="stdout")
    healthy_exit(sim, te + timedelta(seconds=80))
    return {"t_train_end": te, "t_end": te + timedelta(seconds=100), "rank": None, "node": None}


CAUSE_FN = {"gpu_hardware": c_gpu_hardware, "ecc_memory": c_ecc_memory, "nvlink": c_nvlink, "network": c_network,
            "cuda_oom": c_cuda_oom, "illegal_memory_access": c_illegal_memory_access, "python_exception": c_python_exception,
            "host_oom_kill": c_host_oom_kill, "crash_signal": c_crash_signal, "preemption": c_preemption, "hang": c_hang,
            "data_loader_stall": c_data_loader_stall, "collective_mismatch": c_collective_mismatch, "straggler": c_straggler,
            "unknown": c_unknown, None: c_healthy}


# --------------------------------------------------------------------------- rendering helpers
def ansi_text(s, mode):
    if "\x1b" not in s:
        return s
    return s.replace("\x1b", "\\u001b") if mode == "u" else s


def split_long(evs, limit, mark_partial=False):
    """Container runtimes split lines longer than `limit` bytes into several log records."""
    out = []
    for e in evs:
        tx = e["text"]
        if e["src"] in ("app", "agent") and len(tx.encode()) > limit:
            chunks = [tx[k:k + limit] for k in range(0, len(tx), limit)]
            for i, c in enumerate(chunks):
                d = dict(e)
                d["text"] = c
                d["partial"] = i < len(chunks) - 1
                d["to"] = e["to"] + timedelta(microseconds=i)
                d["tags"] = e["tags"] + ["SPLIT"]
                out.append(d)
        else:
            out.append(e)
    return out


def dup_chunk(evs, rng, p):
    """Forwarder retry: one contiguous chunk of one node's records shipped twice."""
    if not evs or rng.random() >= p:
        return evs, None
    nodes = sorted(set(e["node"] for e in evs if e["node"] is not None))
    if not nodes:
        return evs, None
    nd = rng.choice(nodes)
    idx = [k for k, e in enumerate(evs) if e["node"] == nd]
    if len(idx) < 10:
        return evs, None
    a = rng.randrange(0, len(idx) - 5)
    ln = rng.randint(5, min(200, len(idx) - a))
    chosen = idx[a:a + ln]
    extra = [dict(evs[k], dup=True) for k in chosen]
    ins = chosen[-1] + 1
    out = evs[:ins] + extra + evs[ins:]
    return out, f"forwarder retry duplicated {ln} records from one node"


def order_key(e):
    return (e["to"], e["grp"], e["t"])


def newest_first(evs, rng, shuffle_ties=False):
    s = sorted(evs, key=order_key, reverse=True)
    if not shuffle_ties:
        return s
    out, k = [], 0
    while k < len(s):
        m = k
        ms = s[k]["to"].replace(microsecond=s[k]["to"].microsecond // 1000 * 1000)
        while m < len(s) and s[m]["to"].replace(microsecond=s[m]["to"].microsecond // 1000 * 1000) == ms:
            m += 1
        blk = s[k:m]
        if len(blk) > 1 and rng.random() < 0.5:
            rng.shuffle(blk)
        out += blk
        k = m
    return out


def short(h):
    return h.split(".")[0]


def syslog_line(j, e, with_uptime):
    n = j.nodes[e["node"]]
    lt = local_t(n, e["t"])
    if e["src"] == "kernel":
        up = f"[{e['uptime']:12.6f}] " if with_uptime else ""
        return f"{syslog_ts(lt)} {short(n.host)} kernel: {up}{e['text']}"
    return f"{syslog_ts(lt)} {short(n.host)} {e['ident']}[{e['pid'] or 1234}]: {e['text']}"


def k8s_meta(j, e, rng_cache):
    """pod/container/namespace for a container record."""
    n = j.nodes[e["node"]]
    if e["src"] in ("app", "agent"):
        return n.pod, j.namespace, j.container
    c = e.get("container")
    key = (e["node"], c)
    if key not in rng_cache:
        rng_cache[key] = alnum(random.Random(f"{n.host}|{c}"), 5)
    if c == "nvidia-device-plugin-ctr":
        return f"nvidia-device-plugin-daemonset-{rng_cache[key]}", "gpu-operator", c
    if c == "aws-node-termination-handler":
        return f"aws-node-termination-handler-{rng_cache[key]}", "kube-system", c
    return None, None, None


def cid_for(j, n):
    return hashlib_hex(f"{j.jobname}|{n.host}|cid", 64)


def hashlib_hex(s, n):
    r = random.Random(s)
    return hexs(r, n)


# --------------------------------------------------------------------------- layouts
def r_loki(sim, evs, rng, ctx):
    j = sim.j
    notes = []
    direction = "backward" if rng.random() < 0.7 else "forward"
    mode = "default" if rng.random() < 0.75 else "jsonl"
    tz_local = rng.random() < 0.35
    tz = j.op_tz if tz_local else 0
    limit = rng.choice([5000, 10000, 20000, 30000])
    quiet = rng.random() < 0.4
    split_files = ctx["node_logs"]
    evs = split_long(evs, 16384)
    train, nodes_ = [], []
    cache = {}
    for e in evs:
        n = j.nodes[e["node"]]
        if e["src"] in ("app", "agent"):
            lab = {"container": j.container, "job": f"{j.namespace}/{j.jobname}", "namespace": j.namespace, "node_name": n.host,
                   "pod": n.pod, "stream": e["stream"]}
            train.append((e, lab))
        elif e["src"] == "svc" and e.get("container"):
            pod, ns, c = k8s_meta(j, e, cache)
            train.append((e, {"container": c, "job": f"{ns}/{c}", "namespace": ns, "node_name": n.host, "pod": pod, "stream": "stderr"}))
        elif e["src"] == "kernel":
            nodes_.append((e, {"host": n.host, "job": "systemd-journal", "syslog_identifier": "kernel", "transport": "kernel"}))
        else:
            nodes_.append((e, {"host": n.host, "job": "systemd-journal", "syslog_identifier": e["ident"], "unit": f"{e['ident']}.service"}))
    if not split_files:
        nodes_ = []

    def emit(items, query, fname):
        items = sorted(items, key=lambda x: order_key(x[0]), reverse=(direction == "backward"))
        if direction == "backward" and len(items) > limit:
            items = items[:limit]
            notes.append(f"{fname}: hit --limit {limit}, oldest lines missing")
        used = [x[0] for x in items]
        lines = []
        end = max((x[0]["to"] for x in items), default=j.t0) + timedelta(minutes=5)
        start = min((x[0]["to"] for x in items), default=j.t0) - timedelta(minutes=5)
        if not quiet:
            lines.append(f"http://loki-gateway.monitoring.svc.cluster.local/loki/api/v1/query_range?direction={direction.upper()}"
                         f"&end={int(end.timestamp() * 1e9)}&limit={limit}&query={query.replace(' ', '+')}&start={int(start.timestamp() * 1e9)}")
        if mode == "default":
            keys = sorted(set(k for _, lab in items for k in lab))
            common = {}
            for k in keys:
                vals = set(lab.get(k) for _, lab in items)
                if len(vals) == 1 and None not in vals:
                    common[k] = vals.pop()
            if not quiet:
                lines.append("Common labels: {" + ", ".join(f'{k}="{v}"' for k, v in sorted(common.items())) + "}")
            labs = ["{" + ", ".join(f'{k}="{v}"' for k, v in sorted(lab.items()) if k not in common) + "}" for _, lab in items]
            width = max((len(x) for x in labs), default=0)
            for (e, lab), ls in zip(items, labs):
                ts = iso_off(e["to"], tz, 0) if tz_local else iso_z(e["to"], 0)
                lines.append(f"{ts} {ls.ljust(width)} {ansi_text(e['text'], ctx['ansi']).strip()}")
        else:
            for e, lab in items:
                ts = iso_off(e["to"], tz, 6) if tz_local else iso_z(e["to"], 9)
                lines.append(json.dumps({"labels": lab, "line": e["text"], "timestamp": ts}, ensure_ascii=False))
        return lines, used

    files = {}
    used = []
    q1 = f'{{namespace="{j.namespace}", pod=~"{j.jobname}-.*"}}'
    if any(lab.get("namespace") != j.namespace for _, lab in train):
        q1 = f'{{node_name=~"{"|".join(short(j.nodes[i].host) for i in sim.shown[:3])}.*"}}'
    ext = "log" if mode == "default" else "jsonl"
    ln, u = emit(train, q1, "train")
    files[f"loki_{j.jobname}.{ext}"] = "\n".join(ln) + "\n"
    used += u
    if nodes_:
        q2 = '{job="systemd-journal"} |~ "NVRM|Xid|mlx5|oom|segfault|Link|nfs|hung|slurm|kubelet|logind"'
        nodes_ = [x for x in nodes_ if any(w in x[0]["text"] for w in ("NVRM", "Xid", "mlx5", "oom", "Out of memory", "segfault", "Link",
                                                                        "nfs", "blocked", "ena ", "Shutdown", "Power", "Killing", "CANCELLED",
                                                                        "Probe", "bus error", "Tainted", "echo 0", "invoked", "Memory cgroup",
                                                                        "CPU:", "oom_reaper", "Kill"))]
        ln, u = emit(nodes_, q2, "nodes")
        files[f"loki_node_journal.{ext}"] = "\n".join(ln) + "\n"
        used += u
    desc = (f"logcli query --{'forward' if direction == 'forward' else 'backward (default)'} -o {mode} --timezone="
            f"{'Local' if tz_local else 'UTC'} --limit {limit}")
    return files, used, notes + [desc], None


KIBANA_MON = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def kibana_ts(t, off):
    lt = t + timedelta(minutes=off)
    return f"{KIBANA_MON[lt.month - 1]} {lt.day}, {lt.year} @ {lt.strftime('%H:%M:%S')}.{lt.microsecond // 1000:03d}"


def r_kibana(sim, evs, rng, ctx):
    j = sim.j
    notes = []
    off = j.op_tz if rng.random() < 0.4 else 0
    esc_formula = rng.random() < 0.6
    evs = split_long(evs, 16384)
    evs = sorted(evs, key=order_key)
    evs, dn = dup_chunk(evs, rng, 0.35)
    if dn:
        notes.append(dn)
    if not ctx["node_logs"]:
        evs = [e for e in evs if e["src"] in ("app", "agent") or e.get("container")]
    evs = newest_first(evs, rng, shuffle_ties=True)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["@timestamp", "host.name", "kubernetes.pod.name", "kubernetes.container.name", "log.file.path", "message"])
    cache = {}
    for e in evs:
        n = j.nodes[e["node"]]
        if e["src"] in ("app", "agent") or e.get("container"):
            pod, ns, c = k8s_meta(j, e, cache)
            path = f"/var/log/containers/{pod}_{ns}_{c}-{cid_for(j, n)}.log"
            msg = e["text"]
        elif e["src"] == "kernel":
            pod, c, path = "", "", "/var/log/kern.log"
            msg = syslog_line(j, e, True)
        else:
            pod, c, path = "", "", "/var/log/syslog"
            msg = syslog_line(j, e, False)
        msg = ansi_text(msg, ctx["ansi"])
        if esc_formula and msg[:1] in ("=", "+", "-", "@"):
            msg = "'" + msg
        w.writerow([kibana_ts(e["to"], off), n.host, pod, c, path, msg])
    return ({"discover_export.csv": buf.getvalue()}, evs,
            notes + [f"Kibana Discover CSV export, sorted @timestamp desc, dates shown in {'browser tz UTC%+d' % (off // 60) if off else 'UTC'}"
                     + (", formula values escaped with a leading '" if esc_formula else "")], None)


def r_es(sim, evs, rng, ctx):
    j = sim.j
    notes = []
    dump = rng.random() < 0.5
    evs = split_long(evs, 16384)
    if not ctx["node_logs"]:
        evs = [e for e in evs if e["src"] in ("app", "agent") or e.get("container")]
    batch = {}
    for e in evs:
        nd = e["node"]
        if nd not in batch:
            batch[nd] = rng.uniform(1, 6)
    keyed = []
    for e in evs:
        b = batch[e["node"]]
        ing = datetime.fromtimestamp((int(e["to"].timestamp() / b) + 1) * b, UTC) + timedelta(milliseconds=(e["node"] or 0) * 37)
        keyed.append((ing, e))
    keyed.sort(key=lambda x: (x[0], order_key(x[1])))
    evs = [dict(e, ing=i) for i, e in keyed]
    evs, dn = dup_chunk(evs, rng, 0.3)
    if dn:
        notes.append(dn)
    out = []
    cache = {}
    day = evs[0]["to"].strftime("%Y.%m.%d") if evs else "2026.01.01"
    for k, e in enumerate(evs):
        n = j.nodes[e["node"]]
        src = {"@timestamp": iso_z(e["to"], 3), "message": e["text"], "host": {"name": n.host, "hostname": short(n.host)},
               "agent": {"type": "filebeat", "version": "8.13.4"}, "ecs": {"version": "8.0.0"},
               "event": {"ingested": iso_z(e.get("ing", e["to"]), 6)}}
        if e["src"] in ("app", "agent") or e.get("container"):
            pod, ns, c = k8s_meta(j, e, cache)
            src["stream"] = e["stream"] or "stderr"
            src["kubernetes"] = {"node": {"name": n.host}, "pod": {"name": pod, "ip": n.ip}, "namespace": ns,
                                 "container": {"name": c}, "labels": {"training_kubeflow_org/job-name": j.jobname}}
            src["log"] = {"file": {"path": f"/var/log/containers/{pod}_{ns}_{c}-{cid_for(j, n)}.log"}, "offset": 1000 + k * 151}
            src["data_stream"] = {"type": "logs", "dataset": "kubernetes.container_logs", "namespace": "default"}
            idx = f".ds-logs-kubernetes.container_logs-default-{day}-000001"
        else:
            src["log"] = {"file": {"path": "/var/log/kern.log" if e["src"] == "kernel" else "/var/log/syslog"}, "offset": 50000 + k * 97}
            src["process"] = {"name": "kernel" if e["src"] == "kernel" else e["ident"]}
            if e["src"] == "kernel":
                src["message"] = f"[{e['uptime']:12.6f}] {e['text']}"
            src["data_stream"] = {"type": "logs", "dataset": "system.syslog", "namespace": "default"}
            idx = f".ds-logs-system.syslog-default-{day}-000001"
        if dump:
            out.append(json.dumps({"_index": idx, "_id": alnum(rng, 20), "_score": 1, "_source": src}, ensure_ascii=True))
        else:
            out.append(json.dumps(src, ensure_ascii=True))
    return ({"elasticsearch_export.ndjson": "\n".join(out) + "\n"}, evs,
            notes + [("elasticdump" if dump else "scroll-export of _source") + " in index (ingest) order, not time order"], None)


def r_datadog(sim, evs, rng, ctx):
    j = sim.j
    notes = []
    status_col = rng.random() < 0.5
    multiline = rng.random() < 0.4
    use_iid = j.stack == "eks" and rng.random() < 0.4
    limit = rng.choice([5000, 10000, 100000])
    service = j.jobname.split("-")[0] + "-train"
    if not ctx["node_logs"]:
        evs = [e for e in evs if e["src"] in ("app", "agent") or e.get("container")]
    evs = sorted(evs, key=order_key)
    evs, dn = dup_chunk(evs, rng, 0.3)
    if dn:
        notes.append(dn)
    rows = []
    if multiline:
        grouped = []
        for e in evs:
            if (grouped and grouped[-1][0]["grp"] == e["grp"] and e["src"] in ("app", "agent")
                    and bool(e.get("dup")) == bool(grouped[-1][0].get("dup"))):
                grouped[-1].append(e)
            else:
                grouped.append([e])
        notes.append("agent auto_multi_line_detection on: tracebacks arrive as one event")
    else:
        grouped = [[e] for e in evs]
    for g in grouped:
        e = g[0]
        n = j.nodes[e["node"]]
        host = n.instance if use_iid else n.host
        msg = "\n".join(x["text"] for x in g)
        if e["src"] in ("app", "agent"):
            svc_ = service
            st = "error" if e["stream"] == "stderr" else "info"
        elif e["src"] == "kernel":
            svc_ = "kernel"
            st = "error" if e.get("level", 6) <= 3 else "warn"
        else:
            svc_ = e["ident"] if not e.get("container") else e["container"].replace("-ctr", "")
            st = "info"
        row = [iso_z(e["to"], 3), host, svc_] + ([st] if status_col else []) + [ansi_text(msg, ctx["ansi"])]
        rows.append((e, row, g))
    rows.sort(key=lambda x: order_key(x[0]), reverse=True)
    if len(rows) > limit:
        rows = rows[:limit]
        notes.append(f"export capped at {limit} rows")
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_ALL)
    w.writerow(["Date", "Host", "Service"] + (["Status"] if status_col else []) + ["Message"])
    used = []
    for e, row, g in rows:
        w.writerow(row)
        used += g
    host_override = {i: n.instance for i, n in enumerate(j.nodes)} if use_iid else None
    return {"datadog_logs_export.csv": buf.getvalue()}, used, notes + ["Datadog Log Explorer CSV export, newest first"], host_override


SPLUNK_DATE = __import__("re").compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}|[EWI]\d{3,4} \d{2}:\d{2}:\d{2}|"
                                        r"^\w{3} +\d+ \d{2}:\d{2}:\d{2}")


def r_splunk(sim, evs, rng, ctx):
    j = sim.j
    notes = []
    fmt = "csv" if rng.random() < 0.6 else "json"
    merge = rng.random() < 0.3
    off = j.op_tz if rng.random() < 0.6 else 0
    fwd = j.nodes[0].host if rng.random() < 0.5 else "slurm-login01"
    user = rng.choice(["jdoe", "mlops", "kchen", "svc-train"])
    src_out = f"/lustre/scratch/{user}/runs/{j.jobname}/slurm-{j.slurm_jobid}.out"
    sevs = sorted(evs, key=order_key)

    def build(merge):
        events = []  # [first_event, raw, host, source, sourcetype, members]
        cur = None
        for e in sevs:
            if e["src"] in ("app", "agent", "launcher"):
                raw = e["text"]
                starts = (not merge) or bool(SPLUNK_DATE.search(raw[:60]))
                if cur is not None and not starts and len(cur[5]) < 256:
                    cur[5].append(e)
                    cur[1] += "\n" + raw
                    continue
                cur = [e, raw, fwd, src_out, "slurm_job_output", [e]]
                events.append(cur)
            else:
                n = j.nodes[e["node"]]
                if e["src"] == "kernel":
                    events.append([e, syslog_line(j, e, False), short(n.host), "/var/log/messages", "syslog", [e]])
                else:
                    src = "/var/log/slurm/slurmd.log" if e["ident"] and e["ident"].startswith("slurm") else "/var/log/messages"
                    events.append([e, syslog_line(j, e, False), short(n.host), src, "syslog", [e]])
        trunc = 0
        lost = 0
        for ev in events:
            if len(ev[1]) > 10000:
                ev[1] = ev[1][:10000]
                trunc += 1
                kept, acc = [], 0
                for m in ev[5]:
                    if acc >= 10000:
                        lost += int("EV" in m["tags"])
                        continue
                    if acc + len(m["text"]) <= 10000:
                        kept.append(m)
                    else:
                        kept.append(dict(m, tags=[t for t in m["tags"] if t != "EV"]))
                        lost += int("EV" in m["tags"])
                    acc += len(m["text"]) + 1
                ev[5] = kept
        return events, trunc, lost

    events, trunc, lost = build(merge)
    if merge and lost:
        merge = False
        events, trunc, lost = build(False)
    if trunc:
        notes.append(f"{trunc} events truncated at TRUNCATE=10000 bytes")
    events.sort(key=lambda x: order_key(x[0]), reverse=True)
    used = [m for ev in events for m in ev[5]]
    idx = rng.choice(["hpc", "main", "slurm_jobs"])
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_ALL)
        w.writerow(["_raw", "_time", "host", "index", "linecount", "source", "sourcetype", "splunk_server"])
        for ev in events:
            w.writerow([ansi_text(ev[1], ctx["ansi"]), iso_off(ev[0]["to"], off, 3), ev[2], idx, str(ev[1].count("\n") + 1), ev[3], ev[4], "idx01"])
        files = {"splunk_search_export.csv": buf.getvalue()}
    else:
        lines = []
        for k, ev in enumerate(events):
            lines.append(json.dumps({"preview": False, "offset": k, "result": {
                "_raw": ev[1], "_time": iso_off(ev[0]["to"], off, 3), "host": ev[2], "index": idx,
                "linecount": str(ev[1].count("\n") + 1), "source": ev[3], "sourcetype": ev[4], "splunk_server": "idx01"}}))
        files = {"splunk_search_export.json": "\n".join(lines) + "\n"}
    notes.append(f"Splunk {fmt} export, newest first, _time in UTC{off // 60:+d}, job output indexed from host {fwd}"
                 + (", line-merging on" if merge else ""))
    return files, used, notes, {i: short(n.host) for i, n in enumerate(j.nodes)}


def r_cloudwatch(sim, evs, rng, ctx):
    j = sim.j
    notes = []
    variant = "tail" if rng.random() < 0.5 else "insights"
    cluster = rng.choice(["ml-eks-prod", "training-eks", "gpu-cluster-1"])
    acct = str(rng.randint(10**11, 10**12 - 1))
    evs = split_long(evs, 16384)
    if not ctx["node_logs"]:
        evs = [e for e in evs if e["src"] in ("app", "agent") or e.get("container")]
    cache = {}
    rows = []
    for e in evs:
        n = j.nodes[e["node"]]
        if e["src"] in ("app", "agent") or e.get("container"):
            pod, ns, c = k8s_meta(j, e, cache)
            stream = f"{n.host}-application.var.log.containers.{pod}_{ns}_{c}-{cid_for(j, n)}.log"
            group = f"/aws/containerinsights/{cluster}/application"
            rec = {"time": iso_z(e["to"], 9), "stream": e["stream"] or "stderr", "_p": "P" if e.get("partial") else "F", "log": e["text"],
                   "kubernetes": {"pod_name": pod, "namespace_name": ns, "host": n.host, "container_name": c,
                                  "docker_id": cid_for(j, n), "container_image": "nvcr.io/nvidia/pytorch:24.05-py3"}}
        elif e["src"] == "kernel":
            stream = f"{n.host}.dmesg"
            group = f"/aws/containerinsights/{cluster}/host"
            rec = {"host": n.host, "ident": "kernel", "message": e["text"]}
        else:
            stream = f"{n.host}-{e['ident']}.service"
            group = f"/aws/containerinsights/{cluster}/dataplane"
            rec = {"hostname": n.host, "systemd_unit": f"{e['ident']}.service", "message": e["text"]}
        rows.append((e, group, stream, json.dumps(rec, ensure_ascii=True, separators=(",", ":"))))
    files = {}
    if variant == "tail":
        rows.sort(key=lambda x: order_key(x[0]))
        groups = sorted(set(r[1] for r in rows))
        for g in groups:
            lines = [f"{e['to'].strftime('%Y-%m-%dT%H:%M:%S')}.{e['to'].microsecond // 1000:03d}000+00:00 {s} {m}"
                     for e, gg, s, m in rows if gg == g]
            files[f"aws_logs_tail_{g.rsplit('/', 1)[1]}.txt"] = "\n".join(lines) + "\n"
        used = [r[0] for r in rows]
        notes.append("aws logs tail --format detailed, one file per log group, ascending")
    else:
        rows.sort(key=lambda x: order_key(x[0]), reverse=True)
        if len(rows) > 10000:
            rows = rows[:10000]
            notes.append("Logs Insights result capped at 10000 rows")
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["@timestamp", "@logStream", "@log", "@message"])
        for e, g, s, m in rows:
            w.writerow([e["to"].strftime("%Y-%m-%d %H:%M:%S.") + f"{e['to'].microsecond // 1000:03d}", s, f"{acct}:{g}", m])
        files["logs-insights-results.csv"] = buf.getvalue()
        used = [r[0] for r in rows]
        notes.append("CloudWatch Logs Insights CSV (fields @timestamp, @logStream, @log, @message | sort @timestamp desc)")
    return files, used, notes, None


def r_gcloud(sim, evs, rng, ctx):
    j = sim.j
    notes = []
    fmt = "json" if rng.random() < 0.6 else "yaml"
    proj = rng.choice(["ml-prod-4411", "llm-research", "acme-ai-train"])
    loc = rng.choice(["us-central1-a", "us-east5-b", "europe-west4-a"])
    cluster = getattr(j.nodes[0], "cluster", rng.choice(["a3-training", "ml-prod-gke", "gke-llm"]))
    if not ctx["node_logs"]:
        evs = [e for e in evs if e["src"] in ("app", "agent") or e.get("container")]
    evs = newest_first(evs, rng)
    entries = []
    cache = {}
    for e in evs:
        n = j.nodes[e["node"]]
        ent = {"insertId": alnum(rng, 16), "receiveTimestamp": iso_z(e["to"] + timedelta(seconds=rng.uniform(0.5, 4)), 9),
               "timestamp": iso_z(e["to"], 9)}
        if e["src"] in ("app", "agent") or e.get("container"):
            pod, ns, c = k8s_meta(j, e, cache)
            if "-workers-0-" in (pod or ""):
                ent["labels"] = {"compute.googleapis.com/resource_name": n.host, "k8s-pod/jobset_sigs_k8s_io/jobset-name": j.jobname}
            elif pod:
                ent["labels"] = {"compute.googleapis.com/resource_name": n.host, "k8s-pod/training_kubeflow_org/job-name": j.jobname}
            else:
                ent["labels"] = {"compute.googleapis.com/resource_name": n.host}
            ent["logName"] = f"projects/{proj}/logs/{e['stream'] or 'stderr'}"
            ent["resource"] = {"labels": {"cluster_name": cluster, "container_name": c, "location": loc, "namespace_name": ns,
                                          "pod_name": pod, "project_id": proj}, "type": "k8s_container"}
            ent["severity"] = "ERROR" if e["stream"] == "stderr" else "INFO"
        else:
            ent["labels"] = {}
            ent["logName"] = f"projects/{proj}/logs/{'kernel' if e['src'] == 'kernel' else e['ident']}"
            ent["resource"] = {"labels": {"cluster_name": cluster, "location": loc, "node_name": n.host, "project_id": proj},
                               "type": "k8s_node"}
            ent["severity"] = "DEFAULT" if e["src"] == "kernel" else "INFO"
        ent["textPayload"] = e["text"]
        entries.append(dict(sorted(ent.items())))
    if fmt == "json":
        txt = json.dumps(entries, indent=2, ensure_ascii=True) + "\n"
        files = {"gcloud_logging_read.json": txt}
    else:
        out = []
        for k, ent in enumerate(entries):
            if k:
                out.append("---")
            out += yaml_lines(ent, 0)
        files = {"gcloud_logging_read.yaml": "\n".join(out) + "\n"}
    notes.append(f"gcloud logging read --format={fmt} (newest first), project {proj}")
    return files, evs, notes, None


def yaml_scalar(v):
    if isinstance(v, str):
        if v == "" or any(c in v for c in ":#{}[]&*!|>'\"%@`,\\\n\x1b") or v.strip() != v or v[:1] in "-?" or v.lower() in ("true", "false", "null", "yes", "no"):
            return json.dumps(v, ensure_ascii=True)
        if v[:1].isdigit():
            return "'" + v + "'"
        return v
    return json.dumps(v)


def yaml_lines(d, ind):
    out = []
    for k, v in d.items():
        if isinstance(v, dict):
            if not v:
                out.append(" " * ind + f"{k}: {{}}")
            else:
                out.append(" " * ind + f"{k}:")
                out += yaml_lines(v, ind + 2)
        else:
            out.append(" " * ind + f"{k}: {yaml_scalar(v)}")
    return out


def r_fluentbit(sim, evs, rng, ctx):
    j = sim.j
    notes = []
    files = {}
    used = []
    skip_long = rng.random() < 0.6
    docker_fmt = rng.random() < 0.3
    cache = {}
    for ni in sim.shown:
        n = j.nodes[ni]
        mine = sorted([e for e in evs if e["node"] == ni], key=order_key)
        if not ctx["node_logs"]:
            mine = [e for e in mine if e["src"] in ("app", "agent") or e.get("container")]
        mine, dn = dup_chunk(mine, rng, 0.3)
        if dn:
            notes.append(f"{n.host}: {dn}")
        lines = []
        seqno = rng.randint(10**5, 10**6)
        warned = False
        for e in mine:
            ts = e["to"].timestamp()
            if e["src"] in ("app", "agent") or e.get("container"):
                if skip_long and len(e["text"]) > 32768:
                    if not warned:
                        lines.append(json.dumps({"date": round(ts, 6), "log": f"[{e['to'].strftime('%Y/%m/%d %H:%M:%S')}] [ warn] "
                                                 f"[input:tail:tail.0] file=/var/log/containers/{n.pod}_{j.namespace}_{j.container}-"
                                                 f"{cid_for(j, n)}.log have long lines. Skipping long lines.",
                                                 "kubernetes": {"pod_name": f"fluent-bit-{alnum(rng, 5)}", "namespace_name": "logging",
                                                                "container_name": "fluent-bit", "host": n.host}}))
                        warned = True
                        notes.append(f"{n.host}: a >32KB line was skipped by Fluent Bit (Skip_Long_Lines On)")
                    continue
                pod, ns, c = k8s_meta(j, e, cache)
                rec = {"date": round(ts, 6), "time": iso_z(e["to"], 9), "stream": e["stream"] or "stderr"}
                if docker_fmt:
                    rec["log"] = e["text"] + "\n"
                else:
                    rec["_p"] = "F"
                    rec["log"] = e["text"]
                rec["kubernetes"] = {"pod_name": pod, "namespace_name": ns, "pod_id": hashlib_hex(pod, 8) + "-" + hashlib_hex(pod + "x", 4),
                                     "labels": {"job-name": j.jobname}, "host": n.host, "container_name": c,
                                     "docker_id": cid_for(j, n), "container_image": "registry.local/ml/train:2026.01"}
            elif e["src"] == "kernel":
                seqno += 1
                up = e["uptime"]
                rec = {"date": round(ts, 6), "priority": e.get("level", 6), "sequence": seqno, "sec": int(up),
                       "usec": int((up - int(up)) * 1e6), "msg": e["text"], "hostname": n.host}
            else:
                rec = {"date": round(ts, 6), "_HOSTNAME": n.host, "SYSLOG_IDENTIFIER": e["ident"], "_SYSTEMD_UNIT": f"{e['ident']}.service",
                       "PRIORITY": "6", "MESSAGE": e["text"]}
            lines.append(json.dumps(rec, ensure_ascii=True, separators=(",", ":")))
            used.append(e)
        files[f"fluent-bit/{n.host}/{j.t0.strftime('%Y/%m/%d')}/{j.namespace}-{short(n.host)}.jsonl"] = "\n".join(lines) + "\n"
    notes.append("Fluent Bit S3 output, one object per node (tail + kmsg + systemd inputs)")
    return files, used, notes, None


def r_vector(sim, evs, rng, ctx):
    j = sim.j
    notes = []
    cache = {}
    if not ctx["node_logs"]:
        evs = [e for e in evs if e["src"] in ("app", "agent") or e.get("container")]
    per = {}
    for e in evs:
        per.setdefault(e["node"], []).append(e)
    batches = []
    for nd in sorted(per):
        lst = sorted(per[nd], key=order_key)
        k = 0
        while k < len(lst):
            ln = rng.randint(20, 120)
            b = lst[k:k + ln]
            arr = b[-1]["to"] + timedelta(seconds=rng.uniform(0.5, 8))
            batches.append((arr, nd, b))
            k += ln
    batches.sort(key=lambda x: (x[0], x[1]))
    ordered = [e for _, _, b in batches for e in b]
    ordered, dn = dup_chunk(ordered, rng, 0.35)
    if dn:
        notes.append(dn)
    out = []
    for e in ordered:
        n = j.nodes[e["node"]]
        if e["src"] in ("app", "agent") or e.get("container"):
            pod, ns, c = k8s_meta(j, e, cache)
            rec = {"file": f"/var/log/pods/{ns}_{pod}_{hashlib_hex(pod, 8)}/{c}/0.log",
                   "kubernetes": {"container_name": c, "pod_name": pod, "pod_namespace": ns, "pod_node_name": n.host,
                                  "pod_ip": n.ip, "pod_labels": {"job-name": j.jobname}},
                   "message": e["text"], "source_type": "kubernetes_logs", "stream": e["stream"] or "stderr",
                   "timestamp": iso_z(e["to"], 9)}
        else:
            rec = {"host": n.host, "message": e["text"], "source_type": "journald",
                   "SYSLOG_IDENTIFIER": "kernel" if e["src"] == "kernel" else e["ident"],
                   "_TRANSPORT": "kernel" if e["src"] == "kernel" else "stdout",
                   "PRIORITY": str(e.get("level", 6)), "_BOOT_ID": n.boot_id, "timestamp": iso_z(e["to"], 6)}
        out.append(json.dumps(rec, ensure_ascii=True, separators=(",", ":")))
    notes.append("Vector aggregator file sink: batches per node in arrival order (not time order)")
    return {"vector-aggregator-export.ndjson": "\n".join(out) + "\n"}, ordered, notes, None


def r_journald(sim, evs, rng, ctx):
    j = sim.j
    notes = []
    files = {}
    used = []
    docker = rng.random() < 0.5
    reverse = rng.random() < 0.25
    unit = rng.choice(["llm-train.service", "torchrun@main.service", "train-job.service"])
    for ni in sim.shown:
        n = j.nodes[ni]
        mine = sorted([e for e in evs if e["node"] == ni], key=order_key)
        expanded = []
        for e in mine:
            if e["src"] in ("app", "agent", "launcher") and len(e["text"]) > 49152 - 1:
                tx = e["text"]
                for k in range(0, len(tx), 49151):
                    expanded.append(dict(e, text=tx[k:k + 49151], partial=(k + 49151 < len(tx)), tags=e["tags"] + ["SPLIT"]))
            else:
                expanded.append(e)
        if reverse:
            expanded = expanded[::-1]
        lines = []
        dpid = n.agent_pid - rng.randint(5, 40)
        cname = f"{j.jobname}-{short(n.host)}"
        cid = cid_for(j, n)
        for k, e in enumerate(expanded):
            rt = int(e["to"].timestamp() * 1e6)
            mono = int((n.uptime0 + (e["t"] - j.t0).total_seconds()) * 1e6)
            d = {"__CURSOR": f"s={n.boot_id};i={k + 400000:x};b={n.boot_id};m={mono:x};t={rt:x};x={hashlib_hex(str(rt) + str(k), 16)}",
                 "__REALTIME_TIMESTAMP": str(rt), "__MONOTONIC_TIMESTAMP": str(mono), "_BOOT_ID": n.boot_id,
                 "_MACHINE_ID": n.machine_id, "_HOSTNAME": n.host}
            if e["src"] == "kernel":
                d.update({"_TRANSPORT": "kernel", "SYSLOG_FACILITY": "0", "SYSLOG_IDENTIFIER": "kernel", "PRIORITY": str(e.get("level", 6)),
                          "_SOURCE_MONOTONIC_TIMESTAMP": str(int(e["uptime"] * 1e6))})
            elif e["src"] == "svc":
                d.update({"_TRANSPORT": "syslog", "SYSLOG_IDENTIFIER": e["ident"], "_PID": str(e["pid"] or 1234), "PRIORITY": "3",
                          "_COMM": e["ident"][:15]})
            elif docker:
                d.update({"_TRANSPORT": "journal", "_PID": str(dpid), "_COMM": "dockerd", "_SYSTEMD_UNIT": "docker.service",
                          "CONTAINER_NAME": cname, "CONTAINER_ID": cid[:12], "CONTAINER_ID_FULL": cid, "CONTAINER_TAG": cid[:12],
                          "SYSLOG_IDENTIFIER": cid[:12], "IMAGE_NAME": "nvcr.io/nvidia/pytorch:24.07-py3",
                          "PRIORITY": "3" if e["stream"] == "stderr" else "6"})
                if e.get("partial"):
                    d["CONTAINER_PARTIAL_MESSAGE"] = "true"
            else:
                d.update({"_TRANSPORT": "stdout", "_PID": str(n.agent_pid), "_COMM": {"srun": "python3", "deepspeed": "deepspeed"}.get(j.launcher, "torchrun"),
                          "_SYSTEMD_UNIT": unit, "SYSLOG_IDENTIFIER": "deepspeed" if j.launcher == "deepspeed" else "torchrun", "_STREAM_ID": hashlib_hex(n.host + unit, 32),
                          "PRIORITY": "6", "SYSLOG_FACILITY": "3", "_UID": "1000", "_GID": "1000"})
            m = e["text"]
            if "\x1b" in m:
                d["MESSAGE"] = list(m.encode("utf-8"))
            else:
                d["MESSAGE"] = m
            lines.append(json.dumps(d, ensure_ascii=False, separators=(",", ":")))
            used.append(e)
        files[f"journal-{short(n.host)}.json"] = "\n".join(lines) + "\n"
    notes.append(f"journalctl -o json{' -r (newest first)' if reverse else ''} --since/--until on each node; app via "
                 f"{'docker journald log driver' if docker else 'systemd unit ' + unit}")
    return files, used, notes, None


RENDER = {"loki_logcli": r_loki, "kibana_csv": r_kibana, "es_ndjson": r_es, "datadog_csv": r_datadog, "splunk_export": r_splunk,
          "cloudwatch_logs": r_cloudwatch, "gcloud_logging": r_gcloud, "fluentbit_s3": r_fluentbit, "vector_ndjson": r_vector,
          "journald_json": r_journald}


# --------------------------------------------------------------------------- run assembly
def choose_shown(j, rng, cause, cul):
    N = j.nnodes
    cn = cul // j.gpn
    if N <= 4:
        return list(range(N))
    k = rng.randint(3, 6)
    s = [0]
    if cause not in ("unknown", "hang") or (cause == "hang" and rng.random() < 0.8) or (cause == "unknown" and rng.random() < 0.5):
        s.append(cn)
    if j.fw == "megatron":
        s.append(N - 1)
    while len(set(s)) < k:
        s.append(rng.randrange(N))
    return sorted(set(s))


def rank_inferable(used, cause, cul, sim):
    if cul is None or cause in (None, "unknown", "preemption"):
        return False
    maps = {}
    for e in used:
        for tg in e["tags"]:
            if tg.startswith("MAP"):
                k, v = tg[3:].split("=")
                maps[k] = int(v)
    direct = False
    abs_ok = False
    for e in used:
        tg = e["tags"]
        if "EV" not in tg:
            continue
        if "ABS" in tg:
            for x in tg:
                if x.startswith("P") and maps.get(x) == cul:
                    abs_ok = True
            continue
        if f"R{cul}" in tg:
            direct = True
        for x in tg:
            if x[:1] in ("L", "P", "B") and maps.get(x) == cul:
                direct = True
    j = sim.j
    to_ranks = set()
    for e in used:
        for x in e["tags"]:
            if x.startswith("TO"):
                to_ranks.add(int(x[2:]))
    if cause == "collective_mismatch":
        if sim.mm_style == "detail":
            reps = set(x for e in used for x in e["tags"] if x.startswith("MM"))
            return len(reps) >= 2
        return direct and len(to_ranks - {cul}) >= 1
    if direct:
        return True
    if sim.hang_mode and cul not in to_ranks and len(to_ranks) == j.W - 1:
        return True          # every other rank's watchdog line is visible: the silent one is found by elimination
    if abs_ok:
        cn = cul // j.gpn
        same = [r for r in to_ranks if r // j.gpn == cn and r != cul]
        return len(same) >= max(1, (j.gpn - 1) // 2)
    return False


def write_readme_note(j, rng, layout, files, cause, t_fail):
    if rng.random() > 0.65:
        return None
    op = rng.choice(["alice", "bwang", "oncall", "mlops-bot", "kp"])
    when = iso_off(t_fail, j.op_tz, 0)
    base = {
        "loki_logcli": f"exported from Loki with logcli (query on namespace {j.namespace}, pods {j.jobname}-*), plus node journal where we had it",
        "kibana_csv": "Kibana Discover -> Share -> CSV report. index pattern logs-*, filtered on the job's pods + kern.log of the same hosts",
        "es_ndjson": "dumped from Elasticsearch (filebeat indices) for the job's pods and their hosts",
        "datadog_csv": f"Datadog Log Explorer export, query service:{j.jobname.split('-')[0]}-train OR source:kernel",
        "splunk_export": f"Splunk search: index=hpc (source=*slurm-{j.slurm_jobid}.out OR sourcetype=syslog host=<job nodes>)",
        "cloudwatch_logs": "pulled from CloudWatch (Container Insights log groups)",
        "gcloud_logging": "gcloud logging read for the jobset pods (+ node logs)",
        "fluentbit_s3": "copied from the fluent-bit S3 bucket, one object per node",
        "vector_ndjson": "grep of the vector aggregator's file sink for this job",
        "journald_json": "journalctl -o json on each node we still had access to",
    }[layout]
    msgs = [f"{base}.", f"job {j.jobname}, {j.W} GPUs ({j.nnodes} nodes x {j.gpn}), torch {j.torch}.",
            f"noticed around {when} ({'healthy run for comparison' if cause is None else 'job dead / stuck'})."]
    if j.nnodes > len(files) and layout in ("fluentbit_s3", "journald_json"):
        msgs.append("only some nodes attached, the rest had already been recycled.")
    if rng.random() < 0.4:
        msgs.append("times in the export are UTC; the app prints local time.")
    if rng.random() < 0.3:
        msgs.append(f"-- {op}")
    return "\n".join(msgs) + "\n"


def gen_run(seed, idx, layout, cause):
    rng = random.Random(f"blind24|{seed}|{idx}|{layout}|{cause}")
    healthy = cause is None
    j = build_job(rng, layout, cause, healthy)
    j.step_time = round(rng.uniform(0.35, 6.0), 3)
    j.log_every = max(1, int(round(rng.uniform(15, 90) / j.step_time)))
    j.total_steps = rng.choice([20000, 50000, 100000, 250000, 500000])
    j.gbs = rng.choice([128, 256, 512, 1024, 2048])
    j.tflops = rng.uniform(150, 520)
    j.tok_s = rng.uniform(2000, 12000)
    j.ckpt_every = max(50, int(rng.uniform(1800, 3600) / j.step_time))
    j.ansi = (j.fw == "custom" and rng.random() < 0.5)
    j.rank_hello = rng.random() < 0.3
    j.ds_skipped = rng.randint(0, 40)
    j.colls_per_step = rng.choice([1, 2, 4, 24, 96])
    j.num_workers = rng.choice([2, 4, 8])
    j.slurm_jobid = rng.randint(1000000, 9999999)
    j.t_train0 = j.t0 + timedelta(seconds=rng.uniform(90, 300))
    whole = rng.random() < 0.35
    if cause is None:
        t_fail = j.t_train0 + timedelta(minutes=rng.uniform(15, 60 if whole else 240))
    else:
        t_fail = j.t_train0 + timedelta(minutes=rng.uniform(8, 70 if whole else 360))
    cul = 0 if rng.random() < 0.12 else rng.randrange(j.W)
    if cause == "straggler" and cul == 0:
        cul = rng.randrange(1, j.W)
    shown = choose_shown(j, rng, cause, cul)
    sim = Sim(rng, j, shown)
    sim.culprit = cul
    sim.hang_mode = False
    sim.mm_style = None
    if (cause in ("gpu_hardware", "ecc_memory", "nvlink", "network", "host_oom_kill") and j.stack in ("onprem", "eks", "gke")
            and j.nnodes > 1 and (cul // j.gpn) in shown and rng.random() < 0.22):
        sim.no_app = [cul // j.gpn]
        sim.notes.append(f"container logs of the culprit pod are missing from the export (pod already gone); only its node logs")
    startup(sim, j.t0)
    res = CAUSE_FN[cause](sim, cul, t_fail)
    rank = res.get("rank", cul)
    if "node" in res:
        node_idx = None if res["node"] is None else res["node"]
    else:
        node_idx = cul // j.gpn
    if cause == "preemption" and "node" not in res:
        node_idx = cul // j.gpn
    if cause is None or cause == "unknown":
        rank, node_idx = None, None
    ws = j.t0 - timedelta(seconds=30) if whole else max(j.t0 - timedelta(seconds=30), t_fail - timedelta(minutes=rng.uniform(6, 70)))
    if cause == "straggler":
        ws = min(ws, t_fail - timedelta(minutes=rng.uniform(5, 20)))
    we = res["t_end"] + timedelta(seconds=rng.uniform(20, 360))
    training(sim, max(ws - timedelta(minutes=1), j.t_train0), res["t_train_end"], st_fn=res.get("st_fn"))
    sim.notes += decoys(sim, ws, res["t_train_end"], [node_idx] if node_idx is not None else [], healthy=healthy)
    # observation times
    jit = {}
    for e in sim.evs:
        if e["grp"] not in jit:
            jit[e["grp"]] = random.Random(f"{seed}|{idx}|{e['grp']}").randint(0, 180)
        n = j.nodes[e["node"]] if e["node"] is not None else j.nodes[0]
        e["to"] = e["t"] + timedelta(seconds=n.skew, microseconds=jit[e["grp"]])
    evs = [e for e in sim.evs if ws <= e["to"] <= we]
    evs.sort(key=order_key)
    ctx = {"node_logs": res.get("need_kernel", False) or rng.random() < 0.6, "ansi": "u" if rng.random() < 0.7 else "raw"}
    if cause in ("host_oom_kill", "data_loader_stall", "preemption") or cause in DRAIN_CAUSES:
        ctx["node_logs"] = True if cause != "data_loader_stall" else ctx["node_logs"]
    if j.stack == "slurm" and cause == "preemption":
        ctx["node_logs"] = True
    # render, thinning noise until the folder fits
    attempt = 0
    cur = evs
    while True:
        rrng = random.Random(f"{seed}|{idx}|render")
        files, used, rnotes, host_override = RENDER[layout](sim, cur, rrng, ctx)
        size = sum(len(v.encode()) for v in files.values())
        if size <= MAX_RUN_BYTES or attempt > 12:
            break
        attempt += 1
        trng = random.Random(f"{seed}|{idx}|thin|{attempt}")
        frac = min(0.9, 1 - MAX_RUN_BYTES / size + 0.08)
        if attempt <= 8:
            cur = [e for e in cur if e["prio"] < 2 or trng.random() > frac]
        else:
            cur = [e for e in cur if e["prio"] < 1 or any(t.startswith("MAP") or t == "GIANT" for t in e["tags"]) or trng.random() > frac]
    if attempt:
        rnotes.append(f"noise thinned ({attempt} passes) to keep the bundle under 1 MB")
    note = write_readme_note(j, rng, layout, files, cause, t_fail)
    if note:
        files[rng.choice(["README.txt", "NOTES.md", "export_info.txt"])] = note
    # truth
    inferable = rank_inferable(used, cause, rank, sim) if rank is not None else False
    node_name, aliases = None, []
    if node_idx is not None:
        n = j.nodes[node_idx]
        node_name = host_override[node_idx] if host_override else n.host
        aliases = [a for a in ([n.host] + n.aliases + ([n.instance] if hasattr(n, "instance") else []) +
                               ([getattr(n, "fqdn")] if hasattr(n, "fqdn") else [])) if a != node_name]
        seen = []
        for a in aliases:
            if a not in seen:
                seen.append(a)
        aliases = seen
    if node_name is not None:
        blob = "".join(files.values())
        if node_name not in blob:
            for a in aliases:
                if a in blob:
                    aliases = [node_name] + [x for x in aliases if x != a]
                    node_name = a
                    break
            else:
                sim.notes.append("culprit node never appears in the export")
    drain = bool(cause in DRAIN_CAUSES and node_name is not None)
    notes = [f"world_size={j.W} ({j.nnodes} nodes x {j.gpn} GPU, {j.gpu_name}), torch {j.torch}, NCCL {j.nccl}, net={j.net}, "
             f"launcher={j.launcher}, framework={j.fw}, stack={j.stack}",
             f"nodes in export: {len(shown)}/{j.nnodes}"]
    if cause:
        notes.append(f"injected {cause}" + (f" on rank {rank} ({node_name})" if rank is not None else (f" on {node_name}" if node_name else "")))
    else:
        notes.append("healthy run (finishes), with alarming-looking noise")
    notes += sim.notes + rnotes
    if j.big_skew_node is not None:
        notes.append(f"clock skew {j.nodes[j.big_skew_node].skew:+.0f}s on {j.nodes[j.big_skew_node].host}")
    if j.nodes[0].tz:
        notes.append(f"app timestamps in node-local time UTC{j.nodes[0].tz / 60:+g}")
    truth = {"cause": cause, "healthy": healthy, "rank": rank, "node": node_name, "drain": drain,
             "rank_inferable": bool(inferable), "node_aliases": aliases, "layout": layout, "notes": "; ".join(notes)}
    return files, truth


def deal(seed, n):
    rng = random.Random(f"blind24-plan|{seed}")
    order = list(CAUSES)
    rng.shuffle(order)
    plan = []
    lay_seq = []
    ci = 0
    for i in range(n):
        if len(lay_seq) == 0:
            blk = list(LAYOUTS)
            rng.shuffle(blk)
            lay_seq = blk
        lay = lay_seq.pop(0)
        if i % 7 == 3:
            cause = None
        else:
            cause = order[ci % len(order)]
            ci += 1
        plan.append((i, lay, cause))
    return plan


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    ap.add_argument("--grid", action="store_true", help="one run per (layout, cause|healthy) pair instead of the dealt plan")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    counts = {}
    plan = deal(a.seed, a.n)
    if a.grid:
        plan = [(k, lay, c) for k, (lay, c) in enumerate((lay, c) for lay in LAYOUTS for c in CAUSES + [None])]
    for i, lay, cause in plan:
        files, truth = gen_run(a.seed, i, lay, cause)
        d = os.path.join(a.out, f"run-{i:03d}-{lay}")
        os.makedirs(d, exist_ok=True)
        for name in sorted(files):
            p = os.path.join(d, name)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w", encoding="utf-8", newline="") as f:
                f.write(files[name])
        with open(os.path.join(d, "truth.json"), "w", encoding="utf-8") as f:
            json.dump(truth, f, indent=2, sort_keys=True)
            f.write("\n")
        k = cause or "healthy"
        counts[k] = counts.get(k, 0) + 1
    print(json.dumps({k: counts[k] for k in sorted(counts)}, indent=1))


if __name__ == "__main__":
    main()
