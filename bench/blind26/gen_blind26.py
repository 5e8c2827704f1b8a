#!/usr/bin/env python3
"""blind26: synthetic LONG JOB HISTORIES of distributed GPU training runs.

Each run folder holds the files a person would attach for a multi-day
pre-training / fine-tuning job that was restarted several times (torchrun
elastic restarts, Slurm requeues, Kubernetes container restarts, a bash
retry wrapper around the DeepSpeed launcher).  Earlier attempts carry their
own, already handled failures; truth.json describes the LAST attempt.

Written from general knowledge of what torch / NCCL / launchers / kernels /
schedulers print, without reading the diagnosis tool's code.

usage: python3 gen_blind26.py --out DIR --n 60 --seed S
Standard library only; deterministic for a given seed.
"""
import argparse
import json
import os
import random
import re
import sys
from datetime import datetime, timedelta

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill",
          "crash_signal", "preemption", "hang", "data_loader_stall",
          "collective_mismatch", "straggler", "unknown"]
LAYOUTS = ["elastic-hostlogs", "slurm-requeue", "slurm-onefile",
           "k8s-restarts", "ds-wrapper"]
SLURM_LAYOUTS = ("slurm-requeue", "slurm-onefile")

# old (already handled) incidents of earlier attempts -> the cause family they belong to
OLD_KINDS = {
    "old_nic": "network",          # NIC / cable flap on one node, node drained afterwards
    "old_transient": "unknown",    # fabric blip, everything timed out, auto-restarted on same nodes
    "old_oom": "cuda_oom",         # fixed by lowering the micro batch size
    "old_xid": "gpu_hardware",     # Xid 79 on a node since replaced
    "old_ecc": "ecc_memory",       # Xid 48 on a node since replaced
    "old_preempt": "preemption",
    "old_timelimit": "timelimit",  # slurm only
    "old_hostoom": "host_oom_kill",  # fixed by lowering dataloader workers
    "old_badshard": "python_exception",  # corrupt shard, blacklisted afterwards
    "old_segv": "crash_signal",    # fixed by pinning a library
}

TORCH_VERSIONS = [(2, 1, 2), (2, 2, 2), (2, 3, 1), (2, 4, 1), (2, 5, 1), (2, 6, 0), (2, 7, 1), (2, 8, 0)]
NCCL_FOR = {(2, 1): "2.18.1", (2, 2): "2.19.3", (2, 3): "2.20.5", (2, 4): "2.20.5",
            (2, 5): "2.21.5", (2, 6): "2.21.5", (2, 7): "2.26.2", (2, 8): "2.27.3"}
CUDA_FOR = {(2, 1): "12.1", (2, 2): "12.1", (2, 3): "12.1", (2, 4): "12.4",
            (2, 5): "12.4", (2, 6): "12.4", (2, 7): "12.6", (2, 8): "12.8"}
# ProcessGroupNCCL.cpp line numbers per torch minor (timeout, exc, enq, some, avoid, wdterm, checkTimeout)
PGN = {
    (2, 1): dict(timeout=475, exc=0, enq=0, some=489, avoid=495, wdterm=916, ct=477, remote=1287),
    (2, 2): dict(timeout=563, exc=0, enq=0, some=577, avoid=583, wdterm=1182, ct=565, remote=1970),
    (2, 3): dict(timeout=563, exc=0, enq=1537, some=577, avoid=583, wdterm=1414, ct=565, remote=2006),
    (2, 4): dict(timeout=607, exc=1664, enq=1709, some=621, avoid=627, wdterm=1595, ct=609, remote=2006),
    (2, 5): dict(timeout=616, exc=1785, enq=1834, some=630, avoid=636, wdterm=1601, ct=618, remote=2027),
    (2, 6): dict(timeout=616, exc=1785, enq=1834, some=630, avoid=636, wdterm=1601, ct=618, remote=2027),
    (2, 7): dict(timeout=632, exc=2017, enq=2066, some=684, avoid=690, wdterm=1898, ct=635, remote=2305),
    (2, 8): dict(timeout=632, exc=2017, enq=2066, some=684, avoid=690, wdterm=1898, ct=635, remote=2305),
}

GPU_MODELS = {
    "H100": dict(bus=["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"], mem="79.11", tflops=(380, 470), name="NVIDIA H100 80GB HBM3"),
    "A100": dict(bus=["07", "0f", "47", "4e", "87", "90", "b7", "bd"], mem="79.15", tflops=(150, 190), name="NVIDIA A100-SXM4-80GB"),
    "H200": dict(bus=["19", "3b", "4c", "5d", "9b", "bb", "cb", "db"], mem="139.72", tflops=(400, 500), name="NVIDIA H200"),
}

TV_DATES = {(2, 1): ((2023, 11, 1), (2024, 4, 30)), (2, 2): ((2024, 2, 1), (2024, 7, 31)), (2, 3): ((2024, 5, 1), (2024, 10, 31)),
            (2, 4): ((2024, 8, 1), (2025, 1, 31)), (2, 5): ((2024, 11, 1), (2025, 4, 30)), (2, 6): ((2025, 2, 1), (2025, 6, 30)),
            (2, 7): ((2025, 5, 1), (2025, 9, 30)), (2, 8): ((2025, 8, 10), (2025, 11, 20))}
TZS = [("UTC", 0), ("PDT", -7), ("PST", -8), ("CEST", 2), ("CET", 1), ("CST", 8), ("EDT", -4), ("KST", 9)]

MODELS = [("llama-7b", 6.7), ("llama-13b", 13.0), ("gpt-20b", 20.6), ("llama3-8b-sft", 8.0),
          ("mixtral-8x7b-ft", 46.7), ("llm-34b", 34.4), ("gpt-1.3b", 1.3), ("vit-g-14", 1.8),
          ("t5-xxl-ft", 11.0), ("llama-70b", 70.0)]

WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

SIGNAMES = {6: "SIGABRT", 9: "SIGKILL", 11: "SIGSEGV", 15: "SIGTERM", 7: "SIGBUS"}
SRUN_SIG = {6: "Aborted (core dumped)", 9: "Killed", 11: "Segmentation fault (core dumped)",
            15: "Terminated", 7: "Bus error (core dumped)"}


def fmt_dur(sec):
    sec = int(sec)
    h, m = divmod(sec // 60, 60)
    if h >= 24:
        return "%dd%02dh%02dm" % (h // 24, h % 24, m)
    return "%dh%02dm" % (h, m)


def slurm_elapsed(sec):
    sec = int(sec)
    d, rem = divmod(sec, 86400)
    h, rem = divmod(rem, 3600)
    m, s = divmod(rem, 60)
    if d:
        return "%d-%02d:%02d:%02d" % (d, h, m, s)
    return "%02d:%02d:%02d" % (h, m, s)


def compress_nodelist(hosts):
    """gpu-a012,gpu-a013,gpu-a015 -> gpu-a[012-013,015] (slurm style)."""
    groups = {}
    order = []
    plain = []
    for h in hosts:
        m = re.match(r"^(.*?)(\d+)$", h)
        if not m:
            plain.append(h)
            continue
        key = (m.group(1), len(m.group(2)))
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(int(m.group(2)))
    out = []
    for key in order:
        pre, width = key
        nums = sorted(groups[key])
        if len(nums) == 1:
            out.append("%s%0*d" % (pre, width, nums[0]))
            continue
        rngs = []
        s = p = nums[0]
        for n in nums[1:]:
            if n == p + 1:
                p = n
                continue
            rngs.append((s, p))
            s = p = n
        rngs.append((s, p))
        parts = []
        for a, b in rngs:
            parts.append("%0*d" % (width, a) if a == b else "%0*d-%0*d" % (width, a, width, b))
        out.append("%s[%s]" % (pre, ",".join(parts)))
    return ",".join(out + plain)


def ranges_str(nums):
    nums = sorted(nums)
    if not nums:
        return ""
    rngs = []
    s = p = nums[0]
    for n in nums[1:]:
        if n == p + 1:
            p = n
            continue
        rngs.append((s, p))
        s = p = n
    rngs.append((s, p))
    return ",".join(str(a) if a == b else "%d-%d" % (a, b) for a, b in rngs)


class Attempt:
    def __init__(self, idx):
        self.idx = idx
        self.events = []
        self.exits = {}          # rank -> (ts, code)   code<0 == signal
        self.kind = None         # 'final' or OLD_KINDS key
        self.cause = None
        self.culprit = None      # global rank
        self.culprit_node = None  # node index
        self.variant = ""
        self.success = False
        self.end = None
        self.first_bad = None    # (ts, rank)
        self.sched_reason = None  # PREEMPTION / TIME LIMIT / NODE_FAIL / None
        self.fix_notes = []
        self.kill_all_at = None
        self.agent_signal = None  # (ts, node_idx or None) SIGTERM to agents (preemption)
        self.trim_note = None
        self.kernel = []          # (ts, host, text)
        self.health = []          # (host, text) wrapper/admin health check results
        self.drained = []         # (host, reason)
        self.py_spy = None


# ---------------------------------------------------------------------------------------------
class Job:
    def __init__(self, seed, idx, layout, cause):
        self.seed = seed
        self.idx = idx
        self.layout = layout
        self.cause = cause
        self.healthy = cause is None
        self.rng = random.Random("blind26|%s|%d|%s|%s" % (seed, idx, layout, cause))
        self.notes = []
        self.truth_rank = None
        self.truth_node = None
        self.rank_inferable = False
        self.decoys = []
        self.plan_world()
        self.plan_versions()
        self.plan_cluster()
        self.plan_attempts()

    # ----------------------------------------------------------------------------- planning
    def plan_world(self):
        r = self.rng
        lay = self.layout
        choices = [2, 4, 8, 16, 16, 32, 32, 64, 64, 128, 256, 512]
        if lay == "k8s-restarts":
            choices = [8, 16, 16, 32, 32, 64, 64, 128, 256]
        if lay == "ds-wrapper":
            choices = [16, 16, 32, 32, 64, 64, 128, 256, 512]
        if lay == "elastic-hostlogs":
            choices = [8, 16, 16, 32, 32, 64, 64, 128, 256, 512]
        w = r.choice(choices)
        # causes that need more than one node
        if self.cause == "network" and w <= 8:
            w = r.choice([16, 32, 64])
        self.world = w
        if w <= 8:
            self.gpn = w
        else:
            self.gpn = 8
        self.nnodes = w // self.gpn
        if self.nnodes == 1 and self.cause in ("preemption",) and lay == "k8s-restarts":
            pass

    def plan_versions(self):
        r = self.rng
        tv = r.choice(TORCH_VERSIONS)
        self.tv = tv[:2]
        self.torch_full = "%d.%d.%d" % tv
        self.nccl = NCCL_FOR[self.tv]
        self.cuda = CUDA_FOR[self.tv]
        self.gpu = r.choice(["H100", "H100", "A100", "H200"]) if self.tv >= (2, 3) else r.choice(["A100", "A100", "H100"])
        self.gpuinfo = GPU_MODELS[self.gpu]
        self.pyver = r.choice(["3.10", "3.10", "3.11"])
        self.sitepk = r.choice(["/usr/local/lib/python%s/dist-packages" % self.pyver,
                                "/opt/conda/lib/python%s/site-packages" % self.pyver])
        if self.layout == "ds-wrapper":
            self.framework = r.choice(["ds", "ds", "hf"])
        else:
            self.framework = r.choice(["megatron", "custom", "custom", "hf"])
        self.model, self.params_b = r.choice(MODELS)
        self.precision = r.choice(["bf16", "bf16", "bf16", "fp16"])
        self.timeout_ms = r.choice([600000, 1800000, 1800000, 900000, 3600000])
        self.nccl_debug = r.choice(["INFO", "WARN", "WARN"]) if self.world <= 64 else r.choice(["WARN", "WARN", "INFO"])
        self.desync_debug = self.tv >= (2, 2) and r.random() < 0.4
        self.dist_debug_detail = r.random() < 0.3
        self.tz_name, self.tz_off = r.choice(TZS)
        # process clocks: containers are usually UTC; bare-metal python logs local time
        if self.layout == "k8s-restarts":
            self.proc_off = 0
        elif self.layout in SLURM_LAYOUTS:
            self.proc_off = r.choice([0, self.tz_off])   # pyxis/enroot container -> UTC
        else:
            self.proc_off = r.choice([0, self.tz_off, self.tz_off])
        self.script = r.choice(["/workspace/train.py", "/opt/llm/pretrain_gpt.py", "/home/svc-ml/src/train_lm.py",
                                "/mnt/code/%s/train.py" % self.model.split("-")[0], "/workspace/finetune.py"])
        if self.framework == "megatron":
            self.script = r.choice(["/workspace/Megatron-LM/pretrain_gpt.py", "/opt/megatron/pretrain_gpt.py"])
        self.script_name = os.path.basename(self.script)
        self.ckpt_dir = r.choice(["/lustre/fsw/llm/ckpt/%s" % self.model, "/checkpoints/%s-run%d" % (self.model, r.randint(3, 40)),
                                  "/mnt/weka/ckpt/%s" % self.model, "gs://ml-ckpt-bucket/%s/run-%d" % (self.model, r.randint(1, 9))])
        self.run_name = "%s-%s" % (self.model, r.choice(["pt", "sft", "cpt", "v2", "dense"]))
        self.log_every = r.choice([10, 10, 50, 100, 100])
        self.ckpt_every = r.choice([500, 1000, 1000, 2000, 2500])
        base = max(0.35, 0.05 * self.params_b * 2048 / max(self.world, 8) ** 0.5) * r.uniform(0.6, 1.3)
        self.step_time = round(min(base, 9.0), 3)
        self.total_steps = r.choice([100000, 150000, 250000, 300000, 500000])
        self.micro_bs = r.choice([2, 4, 4, 8])
        self.grad_accum = r.choice([1, 2, 4, 8])
        self.num_workers = r.choice([6, 8, 10, 12])

    def plan_cluster(self):
        r = self.rng
        lay = self.layout
        npool = self.nnodes + 10
        self.ip = {}
        self.aliases = {}
        hosts = []
        if lay in SLURM_LAYOUTS:
            pre, width = r.choice([("gpu-a", 3), ("dgx", 3), ("hgx-b", 3), ("gn", 4), ("node-h100-", 2), ("cn", 3)])
            if self.gpu == "A100" and pre == "node-h100-":
                pre = "node-a100-"
            start = r.randint(1, 200)
            nums = sorted(r.sample(range(start, start + npool * 2), npool))
            hosts = ["%s%0*d" % (pre, width, n) for n in nums]
            dom = r.choice(["", ".cluster.local", ".hpc.internal"])
            a, b = r.randint(1, 250), r.randint(0, 40)
            for i, h in enumerate(hosts):
                self.ip[h] = "10.%d.%d.%d" % (a, b + (i // 200), 10 + i % 200)
                self.aliases[h] = [h + dom] if dom else []
        elif lay == "elastic-hostlogs":
            style = r.choice(["aws", "plain"])
            a = r.randint(0, 3)
            used = set()
            for i in range(npool):
                while True:
                    b, c = r.randint(0, 255), r.randint(2, 254)
                    if (b, c) not in used:
                        used.add((b, c))
                        break
                ipaddr = "10.%d.%d.%d" % (a, b, c)
                if style == "aws":
                    h = "ip-%s" % ipaddr.replace(".", "-")
                else:
                    h = None
                hosts.append((h, ipaddr))
            if style == "plain":
                pre = r.choice(["trn-", "h100-node-", "gpu-node-", "train"])
                nums = sorted(r.sample(range(1, npool * 3), npool))
                hosts = [("%s%02d" % (pre, n), ip) for n, (_, ip) in zip(nums, hosts)]
            out = []
            for h, ipaddr in hosts:
                self.ip[h] = ipaddr
                self.aliases[h] = [ipaddr] + ([h + ".ec2.internal"] if style == "aws" else [])
                out.append(h)
            hosts = out
        elif lay == "k8s-restarts":
            flavor = r.choice(["gke", "eks", "aks"])
            self.k8s_flavor = flavor
            self.k8s_ns = r.choice(["training", "ml-train", "llm", "research"])
            self.k8s_job = r.choice(["llama-pt", "pretrain", "sft-run", "gpt-train", "cpt-job"]) + "-" + "".join(r.choice("abcdefghjkmnpqrstuvwxyz0123456789") for _ in range(4))
            hexid = "%08x" % r.getrandbits(32)
            for i in range(npool):
                if flavor == "gke":
                    h = "gke-%s-a3-pool-%s-%s" % (r.choice(["ml", "trn", "prod"]), hexid, "".join(r.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(4)))
                    ipaddr = "10.128.%d.%d" % (r.randint(0, 15), r.randint(2, 250))
                elif flavor == "eks":
                    ipaddr = "10.0.%d.%d" % (r.randint(16, 200), r.randint(2, 250))
                    h = "ip-%s.ec2.internal" % ipaddr.replace(".", "-")
                else:
                    h = "aks-ndh100-%08d-vmss%06x" % (r.randint(10000000, 99999999) // 1, i + 3)
                    ipaddr = "10.224.0.%d" % (4 + i)
                self.ip[h] = ipaddr
                self.aliases[h] = [ipaddr]
                hosts.append(h)
            self.pod_names = ["%s-master-0" % self.k8s_job] + ["%s-worker-%d" % (self.k8s_job, i) for i in range(self.nnodes - 1)]
            self.pod_ip = {p: "10.%d.%d.%d" % (r.randint(40, 90), r.randint(0, 255), r.randint(2, 250)) for p in self.pod_names}
        else:  # ds-wrapper
            pre = r.choice(["gpu-b", "worker-", "lambda-h100-", "node"])
            nums = sorted(r.sample(range(0, npool * 3), npool))
            hosts = ["%s%02d" % (pre, n) for n in nums]
            a = r.randint(1, 250)
            for i, h in enumerate(hosts):
                self.ip[h] = "192.168.%d.%d" % (a, 11 + i)
                self.aliases[h] = [self.ip[h]]
        self.pool = hosts
        self.skew = {}
        for h in hosts:
            self.skew[h] = r.uniform(-1.5, 1.5)
        # one host with a badly skewed clock (decoy)
        bad = r.choice(hosts)
        self.skew[bad] = r.choice([-1, 1]) * r.uniform(20, 95)
        self.skewed_host = bad

    def plan_attempts(self):
        r = self.rng
        lay = self.layout
        n = r.choice([2, 3, 3, 4, 4, 5, 6])
        if lay == "k8s-restarts":
            n = r.choice([2, 3, 3, 4, 5])
        finalc = self.cause
        old_opts = [k for k, c in sorted(OLD_KINDS.items()) if c != finalc]
        if lay not in SLURM_LAYOUTS:
            old_opts = [k for k in old_opts if k != "old_timelimit"]
        if lay == "slurm-onefile":
            # the whole allocation would end: not retryable inside one sbatch script
            old_opts = [k for k in old_opts if k not in ("old_timelimit", "old_preempt")]
        if self.nnodes == 1:
            old_opts = [k for k in old_opts if k not in ("old_nic", "old_transient")]
        # hosts for first attempt
        spare = list(self.pool)
        first_hosts = spare[:self.nnodes]
        if lay in SLURM_LAYOUTS:
            first_hosts = sorted(first_hosts)
        self.attempts = []
        lo, hi = TV_DATES[self.tv]
        d0 = datetime(*lo)
        span = (datetime(*hi) - d0).total_seconds()
        start = d0 + timedelta(seconds=r.uniform(0, span))
        start = start.replace(microsecond=0)
        start += timedelta(microseconds=r.randint(0, 999999))
        excluded = []
        cur_hosts = list(first_hosts)
        step = 0 if r.random() < 0.5 else r.choice([2000, 12000, 30000, 41000])
        micro_bs, workers = self.micro_bs, self.num_workers
        self.jobid = r.randint(180000, 9800000)
        self.time_limit_h = r.choice([24, 24, 48, 72]) if lay in SLURM_LAYOUTS else None
        jobid = self.jobid
        launch = 0
        restart = 0
        prev_kind = None
        for i in range(n):
            a = Attempt(i)
            a.n_total = n
            final = (i == n - 1)
            a.kind = "final" if final else r.choice(old_opts)
            a.cause = finalc if final else OLD_KINDS[a.kind]
            if prev_kind in ("old_transient",) or (prev_kind == "old_preempt" and lay == "elastic-hostlogs" and r.random() < 0.3):
                restart += 1
            else:
                if i > 0:
                    launch += 1
                restart = 0
            a.launch, a.restart = launch, restart
            a.hosts = list(cur_hosts)
            a.start = start
            a.step0 = step
            a.micro_bs, a.workers = micro_bs, workers
            a.jobid = jobid
            a.stepno = i
            # duration of the attempt
            a.init_s = r.uniform(60, 420) + (self.params_b * r.uniform(1, 4))
            limit_s = self.time_limit_h * 3600 - a.init_s - 200 if self.time_limit_h else None
            if final and self.healthy:
                dur_steps = r.randint(2000, 30000)
                if limit_s:
                    dur_steps = min(dur_steps, int(limit_s / self.step_time))
                self.total_steps = ((step + dur_steps) // 1000 + 1) * 1000
                dur_steps = self.total_steps - step
                if limit_s and dur_steps * self.step_time > limit_s:
                    self.total_steps -= 1000
                    dur_steps = self.total_steps - step
            else:
                hours = r.choice([0.4, 1.5, 3, 7, 11, 16, 22, 30, 41])
                if a.kind == "old_oom" or (final and finalc == "cuda_oom" and r.random() < 0.3):
                    hours = r.choice([0.2, 0.5, 2, 6])
                dur_steps = max(60, int(hours * 3600 / self.step_time))
                if limit_s:
                    dur_steps = min(dur_steps, int(limit_s * r.uniform(0.7, 0.98) / self.step_time))
                if a.kind == "old_timelimit" or (final and finalc == "straggler" and lay in SLURM_LAYOUTS):
                    dur_steps = int((self.time_limit_h * 3600 - a.init_s + r.uniform(0, 20)) / self.step_time)
            a.step_end = step + dur_steps
            t_end_train = start + timedelta(seconds=a.init_s + dur_steps * self.step_time)
            a.t_fail = t_end_train
            self.attempts.append(a)
            # ------ what changes for the next attempt
            if final:
                break
            gap_min = {"old_nic": r.uniform(30, 600), "old_xid": r.uniform(40, 900), "old_ecc": r.uniform(40, 900),
                       "old_oom": r.uniform(10, 300), "old_preempt": r.uniform(3, 240), "old_timelimit": r.uniform(1, 30),
                       "old_hostoom": r.uniform(20, 400), "old_badshard": r.uniform(30, 800), "old_segv": r.uniform(60, 1500),
                       "old_transient": r.uniform(0.3, 2)}[a.kind]
            if lay == "slurm-requeue" and a.kind in ("old_preempt", "old_timelimit", "old_nic", "old_xid", "old_ecc"):
                gap_min = min(gap_min, r.uniform(1, 40))
            a.sleep_s = r.choice([60, 120, 300])
            if lay in ("slurm-onefile", "ds-wrapper"):
                gap_min = a.sleep_s / 60.0 + r.uniform(0.3, 1.5)
            if lay == "k8s-restarts":
                gap_min = r.uniform(3, 15) if a.kind in ("old_nic", "old_xid", "old_ecc", "old_preempt") else r.uniform(0.2, 5)
            start = t_end_train + timedelta(minutes=gap_min + 2)
            last_ckpt = (a.step_end // self.ckpt_every) * self.ckpt_every
            if a.kind == "old_timelimit" or (a.kind == "old_preempt" and r.random() < 0.5):
                # graceful save on SIGTERM/USR1
                last_ckpt = a.step_end
                a.saved_on_signal = True
            step = max(last_ckpt, a.step0)
            a.resume_next = step
            if a.kind in ("old_nic", "old_xid", "old_ecc"):
                bad_idx = r.randrange(len(cur_hosts))
                if lay == "ds-wrapper" and len(cur_hosts) > 1:
                    bad_idx = r.randrange(1, len(cur_hosts))
                a.old_bad_node = bad_idx
                bad = cur_hosts[bad_idx]
                excluded.append(bad)
                repl = [h for h in self.pool if h not in cur_hosts and h not in excluded][0]
                nh = list(cur_hosts)
                nh[bad_idx] = repl
                if lay in SLURM_LAYOUTS:
                    nh = sorted(nh)
                cur_hosts = nh
                a.replaced = (bad, repl)
            elif a.kind == "old_preempt" and lay in ("k8s-restarts", "elastic-hostlogs", "ds-wrapper") and self.nnodes > 1:
                bad_idx = r.randrange(1 if lay == "ds-wrapper" else 0, len(cur_hosts))
                a.old_bad_node = bad_idx
                bad = cur_hosts[bad_idx]
                excluded.append(bad)
                repl = [h for h in self.pool if h not in cur_hosts and h not in excluded][0]
                nh = list(cur_hosts)
                nh[bad_idx] = repl
                cur_hosts = nh
                a.replaced = (bad, repl)
            elif a.kind in ("old_preempt", "old_timelimit") and lay == "slurm-requeue" and r.random() < 0.6:
                # requeued job lands on a partly different allocation
                k = r.randint(1, max(1, len(cur_hosts) // 3))
                nh = list(cur_hosts)
                for _ in range(k):
                    j = r.randrange(len(nh))
                    cands = [h for h in self.pool if h not in nh and h not in excluded]
                    nh[j] = cands[r.randrange(len(cands))]
                cur_hosts = sorted(nh)
            if a.kind == "old_oom":
                micro_bs = max(1, micro_bs // 2)
                a.fix_notes.append("micro_batch_size %d -> %d (grad accumulation doubled, global batch unchanged)" % (a.micro_bs, micro_bs))
            if a.kind == "old_hostoom":
                workers = max(2, workers // 2)
                a.fix_notes.append("dataloader num_workers %d -> %d" % (a.workers, workers))
            if lay == "slurm-requeue" and a.kind in ("old_oom", "old_badshard", "old_segv", "old_hostoom") and r.random() < 0.7:
                jobid += r.randint(50, 4000)    # resubmitted as a new job
            if lay == "elastic-hostlogs" and self.nnodes > 1 and r.random() < 0.5:
                # rendezvous hands out group ranks in join order: mapping changes between launches
                if a.kind != "old_transient":
                    cur_hosts = list(cur_hosts)
                    r.shuffle(cur_hosts)
            prev_kind = a.kind
        self.excluded = excluded

    # ----------------------------------------------------------------------------- helpers
    def host_of(self, a, rank):
        return a.hosts[rank // self.gpn]

    def nccl_host(self, a, node_idx):
        """hostname as gethostname() inside the process (pod name on k8s)."""
        if self.layout == "k8s-restarts":
            return self.pod_names[node_idx]
        return a.hosts[node_idx]

    def pid_of(self, a, rank):
        if not hasattr(a, "pids"):
            a.pids = {}
            a.agent_pid = {}
            prev = self.attempts[a.idx - 1] if a.idx > 0 else None
            same_launch = prev is not None and getattr(a, "restart", 0) > 0 and prev.hosts == a.hosts and hasattr(prev, "agent_pid")
            for ni in range(self.nnodes):
                base = self.rng.randint(1000, 3000000) if self.layout != "k8s-restarts" else self.rng.randint(40, 300)
                a.agent_pid[ni] = base
                if same_launch:
                    a.agent_pid[ni] = prev.agent_pid[ni]
                    base = max(prev.pids[ni * self.gpn + l] for l in range(self.gpn)) + self.rng.randint(200, 5000)
                cur = base + self.rng.randint(5, 12)
                for l in range(self.gpn):
                    a.pids[ni * self.gpn + l] = cur
                    cur += self.rng.randint(2, 5)
        return a.pids[rank]

    def kpid(self, a, rank):
        """pid as the kernel (host pid namespace) reports it."""
        if self.layout != "k8s-restarts":
            return self.pid_of(a, rank)
        if not hasattr(a, "kpids"):
            a.kpids = {}
        if rank not in a.kpids:
            a.kpids[rank] = 1000000 + (self.pid_of(a, rank) * 7919 + a.idx * 104729 + rank * 31) % 3000000
        return a.kpids[rank]

    def ptime(self, ts, host):
        return ts + timedelta(seconds=self.skew.get(host, 0.0), hours=self.proc_off)

    def pylog(self, ts, host):
        t = self.ptime(ts, host)
        return t.strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (t.microsecond // 1000)

    def loc(self, ts):
        return ts + timedelta(hours=self.tz_off)

    def dmesg_T(self, ts):
        t = self.loc(ts)
        return "[%s %s %2d %s %d]" % (WEEKDAYS[t.weekday()], MONTHS[t.month - 1], t.day, t.strftime("%H:%M:%S"), t.year)

    def date_cmd(self, ts):
        t = self.loc(ts)
        return "%s %s %2d %s %s %d" % (WEEKDAYS[t.weekday()], MONTHS[t.month - 1], t.day, t.strftime("%H:%M:%S"), self.tz_name, t.year)

    def slurm_ts(self, ts):
        return self.loc(ts).strftime("%Y-%m-%dT%H:%M:%S")

    def glog(self, ts, host, lvl, pid, src):
        t = self.ptime(ts, host)
        return "%s%s %s.%06d %d %s] " % (lvl, t.strftime("%m%d"), t.strftime("%H:%M:%S"), t.microsecond, pid, src)

    def c10(self, rank, ts, host, lvl, src):
        v = self.tv
        if v < (2, 3):
            return "[%s %s] " % (lvl, src)
        if v < (2, 4):
            return "[rank%d]:[%s %s] " % (rank, lvl, src)
        t = self.ptime(ts, host)
        ns = t.microsecond * 1000 + (rank * 7919 + t.second * 131) % 1000
        return "[rank%d]:[%s%s %s.%09d %s] " % (rank, lvl, t.strftime("%m%d"), t.strftime("%H:%M:%S"), ns, src)

    def pgtag(self, rank):
        if self.tv < (2, 3):
            return "[Rank %d]" % rank
        if self.tv < (2, 5):
            return "[PG 0 (default_pg) Rank %d]" % rank if self.tv >= (2, 4) else "[PG 0 Rank %d]" % rank
        return "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % rank

    def pyprefix(self, rank):
        return "[rank%d]: " % rank if self.tv >= (2, 3) else ""

    def tlib(self, lib):
        return "%s/torch/lib/%s" % (self.sitepk, lib)

    def hexaddr(self, base):
        return "0x%x" % (base + self.rng.randint(0, 0xfffff))

    def nccl_pfx(self, a, rank, tid_off=60):
        ni = rank // self.gpn
        pid = self.pid_of(a, rank)
        tid = pid if tid_off == 0 else pid + tid_off + (rank % 7) * 3
        return "%s:%d:%d [%d]" % (self.nccl_host(a, ni), pid, tid, rank % self.gpn)

    def bus(self, local):
        return self.gpuinfo["bus"][local % 8]

    # ----------------------------------------------------------------------------- events
    def ev(self, a, ts, stream, text):
        a.events.append((ts, len(a.events), stream, text))

    def rank_ev(self, a, ts, rank, text):
        self.ev(a, ts, ("r", rank), text)


    def proc_ip(self, a, node_idx):
        if self.layout == "k8s-restarts":
            return self.pod_ip[self.pod_names[node_idx]]
        return self.ip[a.hosts[node_idx]]

    def srcpath(self):
        if not hasattr(self, "_srcpath"):
            if self.sitepk.startswith("/usr/local") and self.rng.random() < 0.5:
                self._srcpath = "/opt/pytorch/pytorch/torch/csrc/distributed/c10d/"
            elif self.tv >= (2, 5):
                self._srcpath = "/pytorch/torch/csrc/distributed/c10d/"
            else:
                self._srcpath = "../torch/csrc/distributed/c10d/"
        return self._srcpath


# =============================================================================================
# culprits / visibility
# =============================================================================================
def plan_culprits(J):
    r = J.rng
    W, gpn = J.world, J.gpn
    for a in J.attempts:
        c = a.cause
        final = a.kind == "final"
        bad = getattr(a, "old_bad_node", None)
        if final and J.healthy:
            continue
        if c in ("unknown", "timelimit"):
            continue
        if c == "preemption":
            if J.layout in SLURM_LAYOUTS:
                continue
            if J.nnodes > 1 or J.layout == "k8s-restarts":
                a.culprit_node = bad if bad is not None else r.randrange(1 if (J.layout == "ds-wrapper" and J.nnodes > 1) else 0, J.nnodes)
            continue
        if c == "network":
            if final and J.nnodes >= 4 and r.random() < 0.15:
                a.variant = "fabric"
                continue
            ni = bad if bad is not None else r.randrange(J.nnodes)
            a.culprit_node = ni
            a.nic = r.randrange(gpn)
            a.culprit = ni * gpn + a.nic
            continue
        if bad is not None:
            a.culprit_node = bad
            a.culprit = bad * gpn + r.randrange(gpn)
        else:
            rk = 0 if (r.random() < 0.08 and c in ("python_exception", "host_oom_kill", "cuda_oom")) else r.randrange(W)
            a.culprit = rk
            a.culprit_node = rk // gpn


def plan_visibility(J):
    r = J.rng
    W, gpn = J.world, J.gpn
    fin = J.attempts[-1]
    J.log_rank = W - 1 if J.framework == "megatron" else 0
    if J.layout == "elastic-hostlogs":
        shown = []
        cap = 6
        def add(h):
            if h not in shown:
                shown.append(h)
        add(fin.hosts[0])
        add(fin.hosts[J.log_rank // gpn])
        if fin.culprit_node is not None:
            if r.random() < (0.75 if J.cause == "hang" else 0.88):
                add(fin.hosts[fin.culprit_node])
        for a in J.attempts[:-1]:
            if a.culprit_node is not None and r.random() < 0.5:
                add(a.hosts[a.culprit_node])
        if J.nnodes <= 4:
            for a in J.attempts:
                for h in a.hosts:
                    add(h)
        else:
            others = [h for h in fin.hosts if h not in shown]
            r.shuffle(others)
            for h in others[:max(0, r.randint(2, cap) - len(shown))]:
                add(h)
        J.shown_hosts = shown
    elif J.layout == "k8s-restarts":
        shown = [0]
        if fin.culprit_node is not None and r.random() < (0.75 if J.cause == "hang" else 0.88):
            if fin.culprit_node not in shown:
                shown.append(fin.culprit_node)
        if J.nnodes <= 4:
            shown = list(range(J.nnodes))
        else:
            others = [i for i in range(J.nnodes) if i not in shown]
            r.shuffle(others)
            shown += others[:r.randint(1, 4)]
        J.shown_pods = sorted(shown)
    for a in J.attempts:
        if J.layout == "elastic-hostlogs":
            nodes = [i for i, h in enumerate(a.hosts) if h in J.shown_hosts]
            a.vis = [rk for rk in range(W) if rk // gpn in nodes]
        elif J.layout == "k8s-restarts":
            a.vis = [rk for rk in range(W) if rk // gpn in J.shown_pods]
        elif W <= 32:
            a.vis = list(range(W))
        else:
            nodes = {0, J.log_rank // gpn}
            if a.culprit_node is not None:
                nodes.add(a.culprit_node)
            extra = [i for i in range(J.nnodes) if i not in nodes]
            r.shuffle(extra)
            for i in extra[:r.randint(1, 2)]:
                nodes.add(i)
            vis = set(rk for rk in range(W) if rk // gpn in nodes)
            if a.culprit is not None:
                vis.add(a.culprit)
            for rk in r.sample(range(W), 6):
                vis.add(rk)
            a.vis = sorted(vis)
        a.vis_set = set(a.vis)
        fulln = [ni for ni in range(J.nnodes) if all((ni * gpn + l) in a.vis_set for l in range(gpn))]
        a.full_vis = [rk for rk in a.vis if rk // gpn in fulln]


# =============================================================================================
# text builders
# =============================================================================================
def tb_text(J, rank, frames, exc, prefix=True):
    pre = J.pyprefix(rank) if prefix else ""
    out = [pre + "Traceback (most recent call last):"]
    for f, ln, fn, code in frames:
        out.append(pre + '  File "%s", line %d, in %s' % (f, ln, fn))
        if code:
            out.append(pre + "    " + code)
    for e in exc.split("\n"):
        out.append(pre + e)
    return "\n".join(out)


def fr_main(J, inner):
    s = J.script
    fr = []
    if J.layout in ("elastic-hostlogs", "k8s-restarts") and J.rng.random() < 0.5:
        fr.append((s, 702, "<module>", "main()"))
        fr.append(("%s/torch/distributed/elastic/multiprocessing/errors/__init__.py" % J.sitepk, 355, "wrapper", "return f(*args, **kwargs)"))
        fr.append((s, 688, "main", "train(args)"))
    else:
        fr.append((s, 702, "<module>", "main()"))
        fr.append((s, 688, "main", "train(args)"))
    if inner and inner[0][2] == "train_step":
        fr.append((s, 584, "train", "loss = train_step(model, batch, optimizer, step)"))
    if J.framework == "megatron":
        fr = [(s, 237, "<module>", "pretrain("),
              ("/workspace/Megatron-LM/megatron/training/training.py", 360, "pretrain", "iteration, num_floating_point_operations_so_far = train("),
              ("/workspace/Megatron-LM/megatron/training/training.py", 1262, "train", "train_step(forward_step_func,"),
              ("/workspace/Megatron-LM/megatron/training/training.py", 730, "train_step", "losses_reduced = forward_backward_func(")]
    return fr + inner


def fr_fwd(J):
    t = "%s/torch/nn/modules/module.py" % J.sitepk
    return [(J.script if J.framework != "megatron" else "/workspace/Megatron-LM/megatron/core/pipeline_parallel/schedules.py",
             412 if J.framework != "megatron" else 274, "train_step" if J.framework != "megatron" else "forward_step",
             "loss = model(batch['input_ids'], labels=batch['labels'])" if J.framework != "megatron" else "output_tensor, loss_func = forward_step_func(data_iterator, model)"),
            (t, 1736, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
            (t, 1747, "_call_impl", "return forward_call(*args, **kwargs)")]


def fr_bwd(J):
    sp = J.sitepk
    return [(J.script, 431, "train_step", "loss.backward()"),
            ("%s/torch/_tensor.py" % sp, 581, "backward", "torch.autograd.backward("),
            ("%s/torch/autograd/__init__.py" % sp, 347, "backward", "_engine_run_backward("),
            ("%s/torch/autograd/graph.py" % sp, 825, "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")]


def fr_dl(J):
    d = "%s/torch/utils/data/dataloader.py" % J.sitepk
    return [(J.script, 398, "train", "batch = next(train_iter)"),
            (d, 701, "__next__", "data = self._next_data()"),
            (d, 1448, "_next_data", "idx, data = self._get_data()")]


def fr_coll(J, fn="all_reduce"):
    sp = J.sitepk
    return [(J.script, 455, "train_step", "dist.all_reduce(loss_sum, op=dist.ReduceOp.SUM)" if fn == "all_reduce" else "dist.broadcast(flag, src=0)"),
            ("%s/torch/distributed/c10d_logger.py" % sp, 83, "wrapper", "return func(*args, **kwargs)"),
            ("%s/torch/distributed/distributed_c10d.py" % sp, 2501 if fn == "all_reduce" else 2422, fn,
             "work = group.allreduce([tensor], opts)" if fn == "all_reduce" else "work = group.broadcast([tensor], opts)")]


CUDA_TAIL = ("CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
             "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
             "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n")


def cpp_frames(J, kind):
    libc10 = J.tlib("libc10.so")
    lcu = J.tlib("libtorch_cuda.so")
    r = J.rng
    base = 0x7f0000000000 + r.randint(0, 0xfffffff) * 0x1000
    def a(off):
        return "0x%x" % (base + off)
    if kind == "timeout":
        fr = ["frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (%s in %s)" % (a(0x12f86), libc10),
              "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 (%s in %s)" % (a(0x180f8f2), lcu),
              "frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 (%s in %s)" % (a(0x1816333), lcu),
              "frame #3: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d (%s in %s)" % (a(0x181871c), lcu)]
    else:
        fr = ["frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (%s in %s)" % (a(0x12f86), libc10),
              "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException() + 0x7b (%s in %s)" % (a(0x17fe64b), lcu),
              "frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x650 (%s in %s)" % (a(0x1800590), lcu),
              "frame #3: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d (%s in %s)" % (a(0x18016ed), lcu)]
    fr += ["frame #4: <unknown function> + 0xdc253 (%s in /lib/x86_64-linux-gnu/libstdc++.so.6)" % a(0x4c6b0253),
           "frame #5: <unknown function> + 0x94ac3 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % a(0x5d572ac3),
           "frame #6: <unknown function> + 0x126850 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % a(0x5d604850)]
    return fr


def pgn_line(J, rank, ts, host, lvl, key):
    return J.c10(rank, ts, host, lvl, "ProcessGroupNCCL.cpp:%d" % PGN[J.tv][key])


def work_str(J, seq, op, numel, numel_out=None):
    if J.tv < (2, 2):
        return "WorkNCCL(SeqNum=%d, OpType=%s, Timeout(ms)=%d)" % (seq, op, J.timeout_ms)
    return "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (
        seq, op, numel, numel if numel_out is None else numel_out, J.timeout_ms)


def wd_term_tag(J, rank):
    if J.tv < (2, 3):
        return "[Rank %d] NCCL watchdog thread terminated with exception: " % rank
    return "%s Process group watchdog thread terminated with exception: " % J.pgtag(rank)


def watchdog_timeout_text(J, a, rank, ts, seq, op, numel, full, desync=None, numel_out=None):
    host = J.host_of(a, rank)
    ran = J.timeout_ms + J.rng.randint(8, 900)
    msg = "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (
        rank, work_str(J, seq, op, numel, numel_out), ran)
    L = []
    L.append(pgn_line(J, rank, ts, host, "E", "timeout") + msg)
    last_enq = seq + J.rng.choice([0, 1, 2])
    if J.tv >= (2, 4):
        L.append(pgn_line(J, rank, ts, host, "E", "exc") + "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (J.pgtag(rank), seq, last_enq, seq - 1))
    if J.tv >= (2, 3):
        L.append(pgn_line(J, rank, ts, host, "E", "enq") + "%s Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (J.pgtag(rank), seq, last_enq, seq - 1))
    rk = "[Rank %d] " % rank if J.tv >= (2, 2) else ""
    if desync:
        L.append(pgn_line(J, rank, ts, host, "E", "timeout") + desync.replace("{rank}", str(rank)))
    L.append(pgn_line(J, rank, ts, host, "E", "some") + rk + "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.")
    L.append(pgn_line(J, rank, ts, host, "E", "avoid") + rk + "To avoid data inconsistency, we are taking the entire process down.")
    term = wd_term_tag(J, rank) + msg
    L.append(pgn_line(J, rank, ts, host, "E", "wdterm") + term)
    if full:
        L.append("Exception raised from checkTimeout at %sProcessGroupNCCL.cpp:%d (most recent call first):" % (J.srcpath(), PGN[J.tv]["ct"]))
        L += cpp_frames(J, "timeout")
        L.append("")
        L.append("terminate called after throwing an instance of '%s'" % ("std::runtime_error" if J.tv < (2, 2) else "c10::DistBackendError"))
        L.append("  what():  " + term)
        L.append("Exception raised from checkTimeout at %sProcessGroupNCCL.cpp:%d (most recent call first):" % (J.srcpath(), PGN[J.tv]["ct"]))
        L += cpp_frames(J, "timeout")[:2]
        L.append("")
    else:
        L.append("terminate called after throwing an instance of '%s'" % ("std::runtime_error" if J.tv < (2, 2) else "c10::DistBackendError"))
        L.append("  what():  " + term)
    return "\n".join(L)


def remote_error_text(J, a, rank, ts, lasterr, full):
    host = J.host_of(a, rank)
    err = ("NCCL error: remote process exited or there was a network error, NCCL version %s\n"
           "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\n"
           "Last error:\n%s" % (J.nccl, lasterr))
    L = [pgn_line(J, rank, ts, host, "E", "wdterm") + wd_term_tag(J, rank) + err]
    if full:
        L.append("Exception raised from checkForNCCLErrorsInternal at %sNCCLUtils.cpp:%d (most recent call first):" % (J.srcpath(), 275 if J.tv >= (2, 4) else 174))
        L += cpp_frames(J, "error")
    L.append("")
    L.append("terminate called after throwing an instance of 'c10::DistBackendError'")
    L.append("  what():  " + wd_term_tag(J, rank) + err.split("\n")[0])
    return "\n".join(L)


def ib_completion(J, a, rank, peer_ip, opcode=0, sendrecv="Recv"):
    local_ip = J.proc_ip(a, rank // J.gpn)
    port = J.rng.randint(32768, 60999)
    nv = tuple(int(x) for x in J.nccl.split(".")[:2])
    line = "NET/IB : Got completion from peer %s<%d> with status=12 opcode=%d len=0 vendor err 129 (%s)" % (peer_ip, port, opcode, sendrecv)
    if nv >= (2, 19):
        line += " localGid ::ffff:%s remoteGids::ffff:%s" % (local_ip, peer_ip)
    if nv >= (2, 21):
        line += " hca mlx5_%d" % (rank % J.gpn)
    src = "transport/net_ib.cc:%d" % {(2, 18): 1295, (2, 19): 1430, (2, 20): 1696, (2, 21): 1696, (2, 26): 2284, (2, 27): 2332}.get(nv, 1696)
    return src, line


def nccl_line(J, a, rank, src, level, msg, tid_off=60):
    if src:
        return "%s %s NCCL %s %s" % (J.nccl_pfx(a, rank, tid_off), src, level, msg)
    return "%s NCCL %s %s" % (J.nccl_pfx(a, rank, tid_off), level, msg)


# =============================================================================================
# attempt content: init, training, success
# =============================================================================================
def tqdm_bar(n, total, elapsed, rate):
    pct = int(100 * n / max(total, 1))
    filled = 10 * n / max(total, 1)
    full = int(filled)
    parts = " ▏▎▍▌▋▊▉"
    bar = "█" * full
    if full < 10:
        bar += parts[int((filled - full) * 8)] if int((filled - full) * 8) else " "
        bar += " " * (10 - len(bar))
    rem = (total - n) * rate
    def hms(s):
        s = int(s)
        return "%d:%02d:%02d" % (s // 3600, (s % 3600) // 60, s % 60)
    return "%3d%%|%s| %d/%d [%s<%s, %5.2fs/it]" % (pct, bar, n, total, hms(elapsed), hms(rem), rate)


def loss_at(J, s):
    import math
    return 1.72 + 2.7 * math.exp(-s / 21000.0) + 0.03 * math.sin(s / 977.0)


def lr_at(J, s):
    import math
    peak = 3e-4 if J.params_b < 20 else 1.5e-4
    warm = 2000
    if s < warm:
        return peak * s / warm
    return peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, s / float(J.total_steps)))))


def global_batch(J):
    return J.micro_bs * J.grad_accum * J.world


def emit_init(J, a):
    r = J.rng
    t = a.start + timedelta(seconds=r.uniform(8, 25))
    lr0 = J.log_rank
    h0 = J.host_of(a, 0)
    resume = a.step0 > 0
    gb = global_batch(J)
    ga = gb // (a.micro_bs * J.world)
    tp = min(8, J.gpn) if J.framework == "megatron" and J.params_b >= 13 else 1
    dp = J.world // tp
    # benign startup warnings from some ranks
    for rk in a.vis[:min(len(a.vis), 4)]:
        if rk == 0 or r.random() < 0.5:
            continue
        hh = J.host_of(a, rk)
        master = J.nccl_host(a, 0)
        J.rank_ev(a, t - timedelta(seconds=r.uniform(1, 6)), rk,
                  "[W socket.cpp:%d] [c10d] The client socket has failed to connect to [%s]:29500 (errno: 111 - Connection refused)." % (697 if J.tv >= (2, 3) else 601, master))
    if J.nccl_debug == "INFO":
        nccl_init(J, a, t + timedelta(seconds=r.uniform(20, 60)))
    if getattr(J, "print_rank_map", None) is None:
        J.print_rank_map = r.random() < 0.5
    if J.print_rank_map:
        for rk in a.full_vis:
            ni = rk // J.gpn
            J.rank_ev(a, t + timedelta(seconds=1 + rk * 0.001), rk,
                      "| distributed init (rank %d): env://, host %s, local_rank %d, pid %d" % (rk, J.nccl_host(a, ni), rk % J.gpn, J.pid_of(a, rk)))
    fw = J.framework
    L = []
    if fw == "megatron":
        L += ["using world size: %d, data-parallel size: %d, context-parallel size: 1, tensor-model-parallel size: %d, pipeline-model-parallel size: 1" % (J.world, dp, tp),
              "> initializing torch distributed ...",
              "> initialized tensor model parallel with size %d" % tp,
              "> initialized pipeline model parallel with size 1",
              "> setting random seeds to 1234 ...",
              "time to initialize megatron (seconds): %.3f" % r.uniform(20, 90),
              "[after megatron is initialized] datetime: %s " % J.ptime(t, h0).strftime("%Y-%m-%d %H:%M:%S"),
              " > number of parameters on (tensor, pipeline) model parallel rank (0, 0): %d" % int(J.params_b * 1e9 / tp)]
        if resume:
            L += [" loading checkpoint from %s at iteration %d" % (J.ckpt_dir, a.step0),
                  " checkpoint version 3.0",
                  "  successfully loaded checkpoint from %s [ t 0/%d, p 0/1 ] at iteration %d" % (J.ckpt_dir, tp, a.step0),
                  "(min, max) time across ranks (ms):",
                  "    load-checkpoint ................................: (%.2f, %.2f)" % (r.uniform(30000, 90000), r.uniform(90000, 120000))]
        L += ["[after model, optimizer, and learning rate scheduler are built] datetime: %s " % J.ptime(t + timedelta(seconds=90), h0).strftime("%Y-%m-%d %H:%M:%S"),
              "> building train, validation, and test datasets ...",
              " > micro batch size: %d, global batch size: %d" % (a.micro_bs, gb),
              "done with setup ...",
              "training ...",
              "[before the start of training step] datetime: %s " % J.ptime(t + timedelta(seconds=130), h0).strftime("%Y-%m-%d %H:%M:%S")]
    elif fw == "custom":
        p = lambda tt, lvl, mod, m: "%s | %s | %s | %s" % (J.pylog(tt, h0), lvl, mod, m)
        L += [p(t, "INFO", "train", "world_size=%d nodes=%d micro_batch=%d grad_accum=%d global_batch=%d precision=%s num_workers=%d" % (J.world, J.nnodes, a.micro_bs, ga, gb, J.precision, a.workers)),
              p(t, "INFO", "train", "torch %s, cuda %s, nccl %s, TORCH_NCCL_ASYNC_ERROR_HANDLING=1, NCCL timeout %ds" % (J.torch_full, J.cuda, J.nccl, J.timeout_ms // 1000))]
        if resume:
            L += [p(t + timedelta(seconds=2), "INFO", "ckpt", "Resuming from checkpoint step %d (%s/step_%08d)" % (a.step0, J.ckpt_dir, a.step0)),
                  p(t + timedelta(seconds=80), "INFO", "ckpt", "checkpoint loaded in %.1fs" % r.uniform(40, 190)),
                  p(t + timedelta(seconds=81), "INFO", "data", "fast-forwarding data loader by %d samples" % (a.step0 * gb))]
        else:
            L += [p(t + timedelta(seconds=2), "INFO", "ckpt", "no checkpoint found in %s, starting from scratch" % J.ckpt_dir)]
    elif fw == "hf":
        L += ["***** Running training *****",
              "  Num examples = {:,}".format(J.total_steps * gb // 3),
              "  Num Epochs = 3",
              "  Instantaneous batch size per device = %d" % a.micro_bs,
              "  Total train batch size (w. parallel, distributed & accumulation) = %d" % gb,
              "  Gradient Accumulation steps = %d" % ga,
              "  Total optimization steps = {:,}".format(J.total_steps),
              "  Number of trainable parameters = {:,}".format(int(J.params_b * 1e9))]
        if resume:
            L += ["  Continuing training from checkpoint, will skip to saved global_step",
                  "  Continuing training from epoch %d" % (a.step0 * 3 // J.total_steps),
                  "  Continuing training from global step %d" % a.step0,
                  "Resuming from checkpoint step %d (%s/checkpoint-%d)" % (a.step0, J.ckpt_dir, a.step0)]
    else:  # ds
        p = lambda tt, src, m: "[%s] [INFO] [%s] %s" % (J.pylog(tt, h0), src, m)
        L += [p(t, "logging.py:96:log_dist", "[Rank 0] DeepSpeed info: version=%s, git-hash=unknown, git-branch=unknown" % r.choice(["0.14.4", "0.15.1", "0.16.2", "0.13.5"])),
              p(t, "logging.py:96:log_dist", "[Rank 0] Creating %s ZeRO stage %d optimizer" % ("torch.bfloat16" if J.precision == "bf16" else "torch.float16", r.choice([1, 2, 3]))),
              p(t, "config.py:1000:print", "  train_micro_batch_size_per_gpu  %d" % a.micro_bs),
              p(t, "config.py:1000:print", "  gradient_accumulation_steps .. %d" % ga)]
        if resume:
            L += [p(t + timedelta(seconds=40), "torch_checkpoint_engine.py:27:load", "[Torch] Loading checkpoint from %s/global_step%d/mp_rank_00_model_states.pt..." % (J.ckpt_dir, a.step0)),
                  p(t + timedelta(seconds=95), "engine.py:3101:_get_all_zero_checkpoint_state_dicts", "successfully read %d ZeRO state_dicts for rank 0" % J.world),
                  "Resuming from checkpoint step %d" % a.step0]
    if a.idx > 0:
        prev = J.attempts[a.idx - 1]
        for fx in prev.fix_notes:
            L.append(("%s | WARNING | config | " % J.pylog(t, h0) if fw == "custom" else "WARNING: ") + "override from launcher: " + fx)
        if prev.kind == "old_badshard":
            L.append(("%s | WARNING | data | " % J.pylog(t, h0) if fw == "custom" else "WARNING: ") + "skipping 1 blacklisted shard(s) from %s: %s" % (J.data_blacklist_file(), prev.bad_shard))
    for i, line in enumerate(L):
        J.rank_ev(a, t + timedelta(seconds=0.3 * i), 0 if not line.startswith(" [") else lr0, line)
    a.t_train0 = t + timedelta(seconds=a.init_s - 25)


def nccl_init(J, a, t):
    r = J.rng
    nv = J.nccl
    comm = "0x%016x" % r.getrandbits(64)
    nics = " ".join("[%d]mlx5_%d:1/IB" % (i, i) for i in range(min(8, max(J.gpn, 1))))
    rk0 = 0
    J.rank_ev(a, t, rk0, "%s NCCL INFO NCCL version %s+cuda%s" % (J.nccl_pfx(a, 0, 0), nv, J.cuda))
    shown = [rk for rk in a.full_vis if rk % J.gpn == 0 or J.world <= 16][:40]
    for rk in shown:
        ni = rk // J.gpn
        l = rk % J.gpn
        ip = J.proc_ip(a, ni)
        tt = t + timedelta(seconds=r.uniform(0.1, 3.0))
        lines = [nccl_line(J, a, rk, "", "INFO", "cudaDriverVersion %d" % (12040 if J.cuda < "12.6" else 12080), 0),
                 nccl_line(J, a, rk, "", "INFO", "Bootstrap : Using eth0:%s<0>" % ip, 0)]
        if J.nnodes > 1:
            lines.append(nccl_line(J, a, rk, "", "INFO", "NET/IB : Using %s ; OOB eth0:%s<0>" % (nics, ip)))
            lines.append(nccl_line(J, a, rk, "", "INFO", "Using network IB"))
        lines.append(nccl_line(J, a, rk, "", "INFO", "comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId %s - Init START" % (0x55d000000000 + rk * 4096 + 0x1e0, rk, J.world, l, l, J.bus(l), comm)))
        lines.append(nccl_line(J, a, rk, "", "INFO", "ncclCommInitRank comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId %s - Init COMPLETE" % (0x55d000000000 + rk * 4096 + 0x1e0, rk, J.world, l, l, J.bus(l), comm)))
        J.rank_ev(a, tt, rk, "\n".join(lines))


def emit_training(J, a, t_stop, straggler=None, until_step=None):
    """step lines of the logging rank from a.step0 until t_stop. returns last printed step."""
    r = J.rng
    lr_rank = J.log_rank
    host = J.host_of(a, lr_rank)
    st = J.step_time * (1.0 if straggler is None else r.uniform(1.25, 1.6))
    t0 = a.t_train0
    total_s = (t_stop - t0).total_seconds()
    nsteps = max(1, int(total_s / st))
    budget = max(40, 1300 // max(1, len(J.attempts)))
    if J.layout in SLURM_LAYOUTS or J.layout == "ds-wrapper":
        budget = max(40, 1000 // max(1, len(J.attempts)))
    every = J.log_every
    while nsteps // every > budget:
        every *= 10 if every < 100 else 2
    a.print_every = every
    s = ((a.step0 // every) + 1) * every
    last = a.step0
    last_ts = t0
    skipped = 0
    nans = 0
    elapsed0 = 0.0
    spikes = set(r.sample(range(max(1, nsteps // every)), min(2, max(1, nsteps // every)))) if r.random() < 0.6 else set()
    k = 0
    straggle_every = max(1, (nsteps // every) // 25)
    gb = global_batch(J)
    tfl = r.uniform(*J.gpuinfo["tflops"])
    t_cur = t0 + timedelta(seconds=(s - a.step0) * st)
    while True:
        ts = t_cur
        if ts >= t_stop or s > a.step0 + nsteps or (until_step is not None and s > until_step):
            break
        loss = loss_at(J, s) + r.gauss(0, 0.015)
        gn = abs(r.gauss(0.32, 0.06))
        ms = st * 1000 * r.uniform(0.97, 1.03)
        note = None
        if k in spikes:
            loss *= r.uniform(1.4, 2.3)
            gn = r.uniform(12, 90)
            note = "spike"
        if J.precision == "fp16" and r.random() < 0.04:
            skipped += 1
            note = "skip"
        if J.precision == "bf16" and r.random() < 0.012:
            nans += 1
            note = "nan"
        line = step_line(J, a, s, ts, host, loss, gn, ms, skipped, nans, gb, tfl, elapsed0 + (ts - t0).total_seconds())
        J.rank_ev(a, ts, lr_rank, line)
        if note == "skip":
            if J.framework == "ds":
                J.rank_ev(a, ts - timedelta(seconds=st / 2), lr_rank, "[%s] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: %d, reducing to %d" % (J.pylog(ts, host), 65536, 32768))
            elif J.framework != "megatron":
                J.rank_ev(a, ts - timedelta(seconds=st / 2), lr_rank, "overflow, skipping step %d (loss scale 65536.0 -> 32768.0)" % (s - r.randint(1, every)))
        elif note == "nan" and J.framework != "megatron":
            J.rank_ev(a, ts - timedelta(seconds=st / 2), lr_rank, "%s | WARNING | trainer | nan/inf loss detected at step %d on 1 rank(s); batch skipped (nan guard %d/20)" % (J.pylog(ts, host), s - r.randint(1, every), nans))
        elif note == "spike" and J.framework in ("custom", "ds"):
            J.rank_ev(a, ts + timedelta(seconds=0.01), lr_rank, "%s | WARNING | trainer | loss spike at step %d: %.3f (ema %.3f), grad norm %.2f clipped to 1.0" % (J.pylog(ts, host), s, loss, loss_at(J, s), gn))
        # checkpoint saves
        if (s // J.ckpt_every) != ((s - every) // J.ckpt_every) and s > a.step0 + every:
            cs = (s // J.ckpt_every) * J.ckpt_every
            ck_t = ts - timedelta(seconds=(s - cs) * st)
            emit_ckpt(J, a, cs, ck_t)
        if straggler is not None and k % straggle_every == 0:
            emit_straggler(J, a, s, ts, straggler)
        if r.random() < 0.01 and J.framework != "hf":
            J.rank_ev(a, ts + timedelta(seconds=3), 0, "wandb: Network error (ReadTimeout), entering retry loop.")
        if r.random() < 0.006 and a.vis:
            rk = r.choice(a.vis)
            if J.nnodes > 1:
                J.rank_ev(a, ts + timedelta(seconds=r.uniform(0, st)), rk, nccl_line(J, a, rk, "transport/net_ib.cc:%d" % 101, "WARN", "NET/IB : %smlx5_%d:1 Got async event : GID table change" % ("", rk % J.gpn), 3))
        last = s
        last_ts = ts
        s += every
        k += 1
        t_cur = ts + timedelta(seconds=every * st * r.uniform(0.985, 1.015))
    a.last_step = last
    a.last_step_ts = last_ts if last > a.step0 else t0
    a.eff_step_time = st
    return last


def step_line(J, a, s, ts, host, loss, gn, ms, skipped, nans, gb, tfl, elapsed):
    fw = J.framework
    lr = lr_at(J, s)
    if fw == "megatron":
        t = J.ptime(ts, host)
        return (" [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | throughput per GPU (TFLOP/s/GPU): %.1f | "
                "learning rate: %.6E | global batch size: %5d | lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f | number of skipped iterations: %3d | number of nan iterations: %3d |"
                % (t.strftime("%Y-%m-%d %H:%M:%S"), s, J.total_steps, s * gb, ms, tfl * J.step_time * 1000 / ms, lr, gb, loss, gn, min(skipped, 999), nans))
    if fw == "custom":
        toks = gb * 4096 / (ms / 1000.0) / 1000.0
        return "%s | INFO | trainer | step %d | loss %.4f | lr %.3e | gnorm %.3f | %.1fk tok/s | %.2f s/step" % (J.pylog(ts, host), s, loss, lr, gn, toks, ms / 1000.0)
    if fw == "hf":
        ep = 3.0 * s / J.total_steps
        return "{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %.3e, 'epoch': %.2f}\n%s" % (
            loss, gn, lr, ep, tqdm_bar(s, J.total_steps, elapsed, ms / 1000.0))
    # ds
    sps = gb / (ms / 1000.0)
    return ("[%s] [INFO] [logging.py:96:log_dist] [Rank 0] step=%d, skipped=%d, lr=[%.6e], mom=[(0.9, 0.95)]\n"
            "[%s] [INFO] [timer.py:260:stop] epoch=0/micro_step=%d/global_step=%d, RunningAvgSamplesPerSec=%.2f, CurrSamplesPerSec=%.2f, MemAllocated=%.1fGB, MaxMemAllocated=%.1fGB\n"
            "steps: %d loss: %.4f iter time (s): %.3f samples/sec: %.3f"
            % (J.pylog(ts, host), s, skipped, lr, J.pylog(ts, host), s * J.grad_accum, s, sps * 0.99, sps, 31.2, 61.7, s, loss, ms / 1000.0, sps))


def emit_ckpt(J, a, cs, t):
    r = J.rng
    host = J.host_of(a, 0)
    dur = r.uniform(20, 140) if r.random() > 0.05 else r.uniform(420, 900)
    fw = J.framework
    if fw == "megatron":
        lines = ["saving checkpoint at iteration %8d to %s in torch_dist format" % (cs, J.ckpt_dir),
                 "  successfully saved checkpoint from iteration %8d to %s [ t 1/1, p 1/1 ]" % (cs, J.ckpt_dir),
                 "(min, max) time across ranks (ms):",
                 "    save-checkpoint ................................: (%.2f, %.2f)" % (dur * 1000 * 0.98, dur * 1000)]
        J.rank_ev(a, t, 0, lines[0])
        J.rank_ev(a, t + timedelta(seconds=dur), 0, "\n".join(lines[1:]))
    elif fw == "custom":
        J.rank_ev(a, t, 0, "%s | INFO | ckpt | saving checkpoint step %d -> %s/step_%08d" % (J.pylog(t, host), cs, J.ckpt_dir, cs))
        lvl = "WARNING" if dur > 300 else "INFO"
        J.rank_ev(a, t + timedelta(seconds=dur), 0, "%s | %s | ckpt | checkpoint step %d saved in %.1fs%s" % (J.pylog(t + timedelta(seconds=dur), host), lvl, cs, dur, " (slow: > 300s)" if dur > 300 else ""))
    elif fw == "hf":
        J.rank_ev(a, t + timedelta(seconds=dur), 0, "Saving model checkpoint to %s/checkpoint-%d" % (J.ckpt_dir, cs))
    else:
        J.rank_ev(a, t, 0, "[%s] [INFO] [logging.py:96:log_dist] [Rank 0] [Torch] Checkpoint global_step%d is about to be saved!" % (J.pylog(t, host), cs))
        J.rank_ev(a, t + timedelta(seconds=dur), 0, "[%s] [INFO] [engine.py:3536:_save_zero_checkpoint] zero checkpoint saved %s/global_step%d/zero_pp_rank_0_mp_rank_00_optim_states.pt" % (J.pylog(t + timedelta(seconds=dur), host), J.ckpt_dir, cs))
        J.rank_ev(a, t + timedelta(seconds=dur + 0.5), 0, "[%s] [INFO] [torch_checkpoint_engine.py:43:commit] [Torch] Checkpoint global_step%d is ready now!" % (J.pylog(t + timedelta(seconds=dur), host), cs))


def emit_straggler(J, a, s, ts, slow):
    r = J.rng
    host = J.host_of(a, J.log_rank)
    base = J.step_time * 1000
    slow_ms = base * r.uniform(1.3, 1.6)
    if J.framework == "megatron":
        fast = r.choice([x for x in range(J.world) if x != slow])
        J.rank_ev(a, ts + timedelta(seconds=0.01), J.log_rank,
                  " [%s] | MnRtt/Rnk: %.2fms/%d | MxRtt/Rnk: %.2fms/%d | MnPwr/Rnk: %dW/%d | MxPwr/Rnk: %dW/%d | MnTmp/Rnk: %dC/%d | MxTmp/Rnk: %dC/%d | MnUtl/Rnk: %d%%/%d | MxUtl/Rnk: %d%%/%d | MnClk/Rnk: %dMHz/%d | MxClk/Rnk: %dMHz/%d | MnDRtt/Rnk: %.2fms/%d | MxDRtt/Rnk: %.2fms/%d | MnEtpt/Rnk: %.2fTF/%d | MxEtpt/Rnk: %.2fTF/%d"
                  % (J.ptime(ts, host).strftime("%Y-%m-%d %H:%M:%S"), base * 0.98, fast, slow_ms, slow, r.randint(410, 520), slow, r.randint(640, 700), fast,
                     r.randint(38, 45), fast, r.randint(84, 92), slow, r.randint(93, 97), slow, 100, fast, r.randint(1100, 1350), slow, 1980, fast,
                     r.uniform(0.5, 2), fast, r.uniform(3, 9), r.choice(range(J.world)), r.uniform(250, 300), slow, r.uniform(390, 420), fast))
        return
    others = sorted(r.sample([x for x in range(J.world) if x != slow], min(3, J.world - 1)))
    parts = ["%d=%.2f" % (slow, slow_ms / 1000.0)] + ["%d=%.2f" % (o, base * r.uniform(1.0, 1.03) / 1000.0) for o in others]
    if J.framework == "custom":
        J.rank_ev(a, ts + timedelta(seconds=0.01), 0, "%s | INFO | timers | step %d fwd+bwd per rank (s): min %.2f median %.2f max %.2f | slowest: %s"
                  % (J.pylog(ts, host), s, base * 0.97 / 1000, base / 1000, slow_ms / 1000, " ".join(parts)))
    else:
        # per-rank timer lines from the slow rank and two others, printed by every rank in the job
        for rk in [slow] + others[:2]:
            if rk not in a.vis_set:
                continue
            wait = r.uniform(0.002, 0.02) if rk == slow else (slow_ms - base) / 1000.0 * r.uniform(0.9, 1.0)
            comp = slow_ms / 1000.0 if rk == slow else base / 1000.0 * r.uniform(0.97, 1.01)
            J.rank_ev(a, ts + timedelta(seconds=0.02), rk, "[rank %d] step %d timers: data %.3fs fwd+bwd %.3fs allreduce-wait %.3fs optimizer %.3fs"
                      % (rk, s, r.uniform(0.002, 0.01), comp, wait, r.uniform(0.03, 0.06)))


# =============================================================================================
# failures
# =============================================================================================
def xid_pfx(J, local):
    return "NVRM: Xid (PCI:0000:%s:00)" % J.bus(local)


def xid_proc(J, a, rank):
    if J.driver >= "550" and J.rng.random() < 0.4:
        return "pid='<unknown>', name=<unknown>"
    return "pid=%d, name=python%s" % (J.kpid(a, rank), "3" if J.rng.random() < 0.3 else "")


def kern(J, a, ts, host, text):
    a.kernel.append((ts, host, text))


def set_exit(a, rank, ts, code):
    a.exits[rank] = (ts, code)


def cuda_err_text(J, rank, what, where="bwd"):
    fr = fr_main(J, fr_bwd(J) if where == "bwd" else fr_fwd(J))
    return tb_text(J, rank, fr, "RuntimeError: CUDA error: %s\n%s" % (what, CUDA_TAIL.rstrip("\n")))


def watchdog_cuda_text(J, a, rank, ts, what):
    host = J.host_of(a, rank)
    msg = "CUDA error: %s\n%s" % (what, CUDA_TAIL)
    L = [pgn_line(J, rank, ts, host, "E", "wdterm") + wd_term_tag(J, rank) + msg,
         "Exception raised from c10_cuda_check_implementation at %s:43 (most recent call first):" % ("../c10/cuda/CUDAException.cpp" if J.tv < (2, 5) else "/pytorch/c10/cuda/CUDAException.cpp")]
    L += cpp_frames(J, "error")[:3]
    L += ["", "terminate called after throwing an instance of 'c10::DistBackendError'",
          "  what():  " + wd_term_tag(J, rank) + "CUDA error: %s" % what]
    return "\n".join(L)


def collateral_text(J, a, rk, ts, kind, full, lasterr=None, desync=None, op=None, numel=None):
    if kind == "timeout":
        return watchdog_timeout_text(J, a, rk, ts, a.seq, op or J.coll_op, numel or J.coll_numel, full, desync)
    if kind == "remote_py":
        err = ("torch.distributed.DistBackendError: NCCL error in: %sProcessGroupNCCL.cpp:%d, remote process exited or there was a network error, NCCL version %s\n"
               "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\nLast error:\n%s" % (J.srcpath(), PGN[J.tv]["remote"], J.nccl, lasterr))
        return tb_text(J, rk, fr_main(J, fr_coll(J)), err)
    return remote_error_text(J, a, rk, ts, lasterr, full)


def peer_lasterr(J, a, rk, dead_node, net=False):
    """what NCCL prints as last error on rank rk when a process on dead_node went away."""
    r = J.rng
    if dead_node is None:
        dead_node = r.randrange(J.nnodes)
    pip = J.proc_ip(a, dead_node)
    if J.nnodes > 1 and (net or r.random() < 0.6):
        src, line = ib_completion(J, a, rk, pip, opcode=r.choice([0, 1, 128]), sendrecv=r.choice(["Recv", "Send"]))
        return line, (src, line)
    port = r.randint(32768, 60999)
    nv = tuple(int(x) for x in J.nccl.split(".")[:2])
    if nv >= (2, 19):
        line = "socketProgressOpt: Call to recv from %s<%d> failed : Connection reset by peer" % (pip, port)
        return line, ("misc/socket.cc:%d" % 617, "socketProgressOpt: Call to recv from %s<%d> failed : Connection reset by peer" % (pip, port))
    line = "Net : Connection closed by remote peer %s<%d>" % (J.nccl_host(a, dead_node), port)
    return line, ("misc/socket.cc:538", line)


def cascade(J, a, t_coll, mode, first_ts=None, dead_node=None, p_remote=0.55, net=False, skip=(), desync=None, op=None, numel=None, timeout_extra=0.0):
    r = J.rng
    W, gpn = J.world, J.gpn
    tmo = J.timeout_ms / 1000.0 + timeout_extra
    slurm = J.layout in SLURM_LAYOUTS
    plan = {}
    cul = a.culprit
    for rk in range(W):
        if rk in a.exits or rk in skip:
            continue
        ni = rk // gpn
        if mode == "dead":
            if dead_node is not None and ni == dead_node and not slurm:
                continue
            if J.nnodes > 1 and r.random() < p_remote and not (dead_node is not None and ni == dead_node):
                plan[rk] = (first_ts + timedelta(seconds=r.uniform(0.3, 20)), "remote")
            elif dead_node is not None and ni == dead_node and r.random() < 0.5:
                plan[rk] = (first_ts + timedelta(seconds=r.uniform(0.2, 3)), "remote")
            else:
                plan[rk] = (t_coll + timedelta(seconds=tmo + r.uniform(0.05, 2.5)), "timeout")
        else:
            if mode == "hang" and rk == cul:
                continue
            plan[rk] = (t_coll + timedelta(seconds=tmo + r.uniform(0.05, 1.2)), "timeout")
    node_first = {}
    for rk, (ts, kind) in plan.items():
        ni = rk // gpn
        if ni not in node_first or ts < node_first[ni]:
            node_first[ni] = ts
    for rk, (ts, code) in a.exits.items():
        ni = rk // gpn
        if code != -15 and (ni not in node_first or ts < node_first[ni]):
            node_first[ni] = ts
    cands = [ts for ts, _ in plan.values()] + [ts for ts, c in a.exits.values() if c != -15]
    first_bad = min(cands) if cands else t_coll
    kill_at = None
    if slurm:
        kill_at = first_bad + timedelta(seconds=r.uniform(1.5, 32))
        a.kill_all_at = kill_at
    nfull = 0
    for rk in sorted(plan):
        ts, kind = plan[rk]
        ni = rk // gpn
        if kill_at is not None and ts > kill_at:
            set_exit(a, rk, kill_at + timedelta(seconds=r.uniform(0, 0.4)), -15)
            continue
        if ts > node_first[ni] + timedelta(seconds=2.0):
            set_exit(a, rk, node_first[ni] + timedelta(seconds=r.uniform(0.3, 1.8)), -15)
            continue
        code = -6
        if rk in a.vis_set:
            full = nfull < 3
            nfull += 1 if full else 0
            if kind == "remote":
                lasterr, warn = peer_lasterr(J, a, rk, dead_node, net)
                J.rank_ev(a, ts - timedelta(seconds=r.uniform(0.05, 0.6)), rk, nccl_line(J, a, rk, warn[0], "WARN", warn[1], 3))
                if r.random() < 0.2:
                    kind = "remote_py"
                    code = 1
                J.rank_ev(a, ts, rk, collateral_text(J, a, rk, ts, kind, full, lasterr=lasterr))
            else:
                d = None
                if desync and (not getattr(a, "desync_shown", False) or r.random() < 0.1):
                    d = desync
                    a.desync_shown = True
                J.rank_ev(a, ts, rk, collateral_text(J, a, rk, ts, "timeout", full, desync=d, op=op, numel=numel))
        set_exit(a, rk, ts + timedelta(seconds=r.uniform(0.1, 0.9)), code)
    # everybody else: SIGTERM from the local launcher / srun
    for rk in range(W):
        if rk in a.exits:
            continue
        ni = rk // gpn
        if kill_at is not None:
            set_exit(a, rk, kill_at + timedelta(seconds=r.uniform(0, 0.4)), -15)
        elif ni in node_first:
            set_exit(a, rk, node_first[ni] + timedelta(seconds=r.uniform(0.3, 1.8)), -15)
        else:
            set_exit(a, rk, first_bad + timedelta(seconds=r.uniform(2, 30)), -15)
    a.first_bad_ts = first_bad
    if J.world > len(a.vis) and J.layout in ("slurm-requeue", "slurm-onefile", "ds-wrapper"):
        a.trim_note = (first_bad + timedelta(seconds=3), sum(1 for rk in plan if rk not in a.vis_set))


def new_driver(J):
    return J.driver >= "550"


# ---- individual causes --------------------------------------------------------------------
def f_gpu_hardware(J, a, t0):
    r = J.rng
    rk = a.culprit
    ni, l = rk // J.gpn, rk % J.gpn
    host = a.hosts[ni]
    a.variant = a.variant or (r.choice(["xid79", "xid79", "xid119"]) if J.gpu != "A100" else "xid79")
    pci = J.bus(l)
    uuid = "GPU-%08x-%04x-%04x-%04x-%012x" % (r.getrandbits(32), r.getrandbits(16), r.getrandbits(16), r.getrandbits(16), r.getrandbits(48))
    if a.variant == "xid79":
        kern(J, a, t0 - timedelta(seconds=0.4), host, "%s: 79, %s, GPU has fallen off the bus." % (xid_pfx(J, l), xid_proc(J, a, rk)))
        kern(J, a, t0 - timedelta(seconds=0.4), host, "NVRM: GPU 0000:%s:00.0: GPU has fallen off the bus." % pci)
        kern(J, a, t0 - timedelta(seconds=0.39), host, "NVRM: GPU at PCI:0000:%s:00: %s" % (pci, uuid))
        kern(J, a, t0 - timedelta(seconds=0.39), host, "NVRM: GPU Board Serial Number: %d" % r.randint(1650000000000, 1659999999999))
        if new_driver(J):
            kern(J, a, t0 - timedelta(seconds=0.38), host, "%s: 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)" % xid_pfx(J, l))
        J.rank_ev(a, t0 + timedelta(seconds=0.3), rk, nccl_line(J, a, rk, "enqueue.cc:%d" % r.choice([1556, 1942, 2171]), "WARN", "Cuda failure 'unknown error'", 0))
        J.rank_ev(a, t0 + timedelta(seconds=0.6), rk, cuda_err_text(J, rk, "unknown error"))
        set_exit(a, rk, t0 + timedelta(seconds=1.5), 1)
        a.health.append((host, "nvidia-smi: Unable to determine the device handle for GPU0000:%s:00.0: Unknown Error" % pci.upper()))
        a.drained.append((host, "Xid 79 GPU fell off bus"))
    else:
        kern(J, a, t0 - timedelta(seconds=6), host, "%s: 119, pid=%d, name=python, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a4c 0x4)." % (xid_pfx(J, l), J.kpid(a, rk), l))
        kern(J, a, t0 + timedelta(seconds=r.uniform(5, 40)), host, "%s: 119, pid=%d, name=python, Timeout after 45s of waiting for RPC response from GPU%d GSP! Expected function 10 (FREE) (0xa55a00e0 0x0)." % (xid_pfx(J, l), J.kpid(a, rk), l))
        te = t0 + timedelta(seconds=r.uniform(20, 70))
        J.rank_ev(a, te, rk, watchdog_cuda_text(J, a, rk, te, "unspecified launch failure"))
        set_exit(a, rk, te + timedelta(seconds=0.5), -6)
        a.health.append((host, "nvidia-smi: GPU 0000:%s:00.0: Unable to communicate with GPU (GSP RPC timeout), a reboot is required" % pci.upper()))
        a.drained.append((host, "Xid 119 GSP timeout"))
    cascade(J, a, t0, "dead", first_ts=a.exits[rk][0], dead_node=ni)


def f_ecc_memory(J, a, t0):
    r = J.rng
    rk = a.culprit
    ni, l = rk // J.gpn, rk % J.gpn
    host = a.hosts[ni]
    kern(J, a, t0 - timedelta(seconds=0.2), host, "%s: 48, %s, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (xid_pfx(J, l), xid_proc(J, a, rk), r.randint(0, 11), r.randint(0, 1)))
    if J.gpu != "A100" and r.random() < 0.6:
        kern(J, a, t0 - timedelta(seconds=0.19), host, "%s: 95, %s, Uncontained: FBHUB. RST: Yes, D-RST: No" % (xid_pfx(J, l), xid_proc(J, a, rk)))
    kern(J, a, t0 + timedelta(seconds=0.5), host, "%s: 63, %s, Row Remapper: New row (0x%08x) marked for remapping, reset gpu to activate." % (xid_pfx(J, l), xid_proc(J, a, rk), r.getrandbits(24)))
    if r.random() < 0.5:
        J.rank_ev(a, t0 + timedelta(seconds=0.4), rk, cuda_err_text(J, rk, "uncorrectable ECC error encountered", r.choice(["fwd", "bwd"])))
        set_exit(a, rk, t0 + timedelta(seconds=1.2), 1)
    else:
        J.rank_ev(a, t0 + timedelta(seconds=0.4), rk, watchdog_cuda_text(J, a, rk, t0 + timedelta(seconds=0.4), "uncorrectable ECC error encountered"))
        set_exit(a, rk, t0 + timedelta(seconds=0.9), -6)
    a.health.append((host, "GPU 0000:%s:00.0: Volatile DBE 1, Aggregate DBE 3, Remapped Rows Pending: Yes" % J.bus(l).upper()))
    a.drained.append((host, "Xid 48 DBE GPU%d" % l))
    cascade(J, a, t0, "dead", first_ts=a.exits[rk][0], dead_node=ni)


def f_nvlink(J, a, t0):
    r = J.rng
    rk = a.culprit
    ni, l = rk // J.gpn, rk % J.gpn
    host = a.hosts[ni]
    link = r.randint(0, 17)
    kern(J, a, t0 - timedelta(seconds=0.3), host, "%s: 74, %s, NVLink: fatal error detected on link %d(0x0, 0x0, 0x%x, 0x0, 0x0, 0x0, 0x0)" % (xid_pfx(J, l), xid_proc(J, a, rk), link, r.choice([0x10000, 0x20000, 0x100])))
    if J.gpu != "A100":
        kern(J, a, t0 - timedelta(seconds=0.29), host, "nvidia-nvswitch%d: SXid (PCI:0000:%s:00.0): 20034, Fatal, Link %d LTSSM Fault Up" % (r.randint(0, 3), r.choice(["05", "06", "07", "08"]), r.randint(0, 63)))
        kern(J, a, t0 - timedelta(seconds=0.28), host, "nvidia-nvswitch%d: SXid (PCI:0000:%s:00.0): 20034, Severity 1 Engine instance %d Sub-engine instance 00" % (r.randint(0, 3), r.choice(["05", "06", "07", "08"]), r.randint(0, 63)))
    if r.random() < 0.5:
        J.rank_ev(a, t0 + timedelta(seconds=0.2), rk, nccl_line(J, a, rk, "proxy.cc:%d" % r.choice([1519, 1689]), "WARN", "Cuda failure 'unspecified launch failure'", 3))
        J.rank_ev(a, t0 + timedelta(seconds=0.4), rk, watchdog_cuda_text(J, a, rk, t0 + timedelta(seconds=0.4), "unspecified launch failure"))
        set_exit(a, rk, t0 + timedelta(seconds=0.8), -6)
    else:
        J.rank_ev(a, t0 + timedelta(seconds=0.4), rk, cuda_err_text(J, rk, "unspecified launch failure"))
        set_exit(a, rk, t0 + timedelta(seconds=1.0), 1)
    a.health.append((host, "nvidia-smi nvlink --status -i %d: Link %d: <inactive>" % (l, link)))
    a.drained.append((host, "Xid 74 NVLink GPU%d link %d" % (l, link)))
    cascade(J, a, t0, "dead", first_ts=a.exits[rk][0], dead_node=ni)


def f_network(J, a, t0):
    r = J.rng
    if a.variant == "fabric":
        # several nodes lose connectivity at once (leaf switch reboot); nothing points to one host
        for ni in range(J.nnodes):
            pass
        cascade(J, a, t0, "dead", first_ts=t0, dead_node=None, p_remote=0.85, net=True)
        a.health.append(("(fabric)", "ibdiagnet: 14 links with LinkDowned counter > 0 on leaf switch IB-L%02d" % r.randint(1, 24)))
        return
    rk = a.culprit
    ni = rk // J.gpn
    host = a.hosts[ni]
    nic = a.nic
    nicbus = r.choice(["0c", "1f", "4b", "5e", "8d", "9f", "c4", "d6"])
    kern(J, a, t0 - timedelta(seconds=1.2), host, "mlx5_core 0000:%s:00.0: Port module event: module %d, Cable unplugged" % (nicbus, nic))
    kern(J, a, t0 + timedelta(seconds=r.uniform(4, 30)), host, "mlx5_core 0000:%s:00.0: Port module event: module %d, Cable plugged" % (nicbus, nic))
    if r.random() < 0.5:
        kern(J, a, t0 + timedelta(seconds=r.uniform(40, 90)), host, "mlx5_core 0000:%s:00.0: Port module event: module %d, Cable unplugged" % (nicbus, nic))
    te = t0 + timedelta(seconds=r.uniform(0.5, 6))
    J.rank_ev(a, t0 - timedelta(seconds=1.0), rk, nccl_line(J, a, rk, "transport/net_ib.cc:%d" % 101, "WARN", "NET/IB : mlx5_%d:1 Got async event : port error" % nic, 5))
    peer = r.choice([x for x in range(J.nnodes) if x != ni])
    src, line = ib_completion(J, a, rk, J.proc_ip(a, peer), 0, "Send")
    J.rank_ev(a, te - timedelta(seconds=0.3), rk, nccl_line(J, a, rk, src, "WARN", line, 3))
    J.rank_ev(a, te, rk, collateral_text(J, a, rk, te, "remote", True, lasterr=line))
    set_exit(a, rk, te + timedelta(seconds=0.4), -6)
    a.health.append((host, "ibstat mlx5_%d: State: Down, Physical state: Polling (link flapped %d times in 5 min)" % (nic, r.randint(3, 9))))
    a.drained.append((host, "IB link flapping mlx5_%d" % nic))
    cascade(J, a, t0, "dead", first_ts=t0 + timedelta(seconds=0.2), dead_node=ni, p_remote=0.8, net=True)


def oom_text(J, a, rank):
    r = J.rng
    l = rank % J.gpn
    tot = float(J.gpuinfo["mem"])
    ask = r.choice([1.0, 1.5, 2.0, 2.5, 3.91, 5.0, 7.82])
    free = r.uniform(0.2, ask * 0.8)
    inuse = tot - free
    alloc = inuse - r.uniform(1.5, 6)
    resv = inuse - alloc - r.uniform(0.3, 1.0)
    cls = "torch.OutOfMemoryError" if J.tv >= (2, 5) else "torch.cuda.OutOfMemoryError"
    if J.tv < (2, 2):
        msg = ("%s: CUDA out of memory. Tried to allocate %.2f GiB (GPU %d; %.2f GiB total capacity; %.2f GiB already allocated; %.2f GiB free; %.2f GiB reserved in total by PyTorch) "
               "If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF"
               % (cls, ask, l, tot, alloc, free, alloc + resv))
    else:
        msg = ("%s: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of %.2f GiB of which %.2f GiB is free. Including non-PyTorch memory, this process has %.2f GiB memory in use. "
               "Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  "
               "See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
               % (cls, ask, l, tot, free, inuse, alloc, resv))
    return tb_text(J, rank, fr_main(J, r.choice([fr_fwd(J), fr_bwd(J)])), msg)


def f_cuda_oom(J, a, t0):
    rk = a.culprit
    J.rank_ev(a, t0, rk, oom_text(J, a, rk))
    set_exit(a, rk, t0 + timedelta(seconds=J.rng.uniform(0.5, 3)), 1)
    cascade(J, a, t0, "dead", first_ts=a.exits[rk][0], dead_node=rk // J.gpn)


def f_illegal_memory_access(J, a, t0):
    r = J.rng
    rk = a.culprit
    ni, l = rk // J.gpn, rk % J.gpn
    host = a.hosts[ni]
    if r.random() < 0.6:
        kern(J, a, t0 - timedelta(seconds=0.1), host, "%s: 31, pid=%d, name=python, Ch 00000010, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC%d GPCCLIENT_T1_%d faulted @ 0x7f%02x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ"
             % (xid_pfx(J, l), J.kpid(a, rk), r.randint(0, 7), r.randint(0, 15), r.randint(0, 255), r.getrandbits(32) & 0xfffff000))
    if r.random() < 0.5:
        J.rank_ev(a, t0, rk, cuda_err_text(J, rk, "an illegal memory access was encountered", r.choice(["fwd", "bwd"])))
        set_exit(a, rk, t0 + timedelta(seconds=1), 1)
    else:
        J.rank_ev(a, t0, rk, watchdog_cuda_text(J, a, rk, t0, "an illegal memory access was encountered"))
        set_exit(a, rk, t0 + timedelta(seconds=0.5), -6)
    cascade(J, a, t0, "dead", first_ts=a.exits[rk][0], dead_node=ni)


def py_exc_variant(J, a, rk):
    r = J.rng
    v = a.variant or r.choice(["keyerror", "shape", "fnf", "assert", "collate", "nospace"])
    a.variant = v
    if v == "nospace":
        a.culprit = 0
        rk = 0
    if v == "keyerror":
        fr = fr_main(J, fr_dl(J)[:1] + [("%s/data/packed_dataset.py" % os.path.dirname(J.script), 144, "__getitem__", "ids = sample['input_ids']")])
        return rk, tb_text(J, rk, fr, "KeyError: 'input_ids'")
    if v == "shape":
        n = r.choice([2048, 4096, 8192])
        return rk, tb_text(J, rk, fr_main(J, fr_fwd(J) + [("%s/model/loss.py" % os.path.dirname(J.script), 57, "forward", "return F.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1))")]),
                           "ValueError: Expected input batch_size (%d) to match target batch_size (%d)." % (n * a.micro_bs, n * a.micro_bs - 1))
    if v == "fnf":
        return rk, tb_text(J, rk, fr_main(J, fr_dl(J)[:1] + [("%s/data/shards.py" % os.path.dirname(J.script), 88, "open_shard", "return np.memmap(path, dtype=np.uint16, mode='r')")]),
                           "FileNotFoundError: [Errno 2] No such file or directory: '/data/tokenized/%s/shard_%06d.bin'" % (J.model.split("-")[0], r.randint(1000, 9000)))
    if v == "assert":
        return rk, tb_text(J, rk, fr_main(J, fr_fwd(J) + [("%s/model/rope.py" % os.path.dirname(J.script), 71, "forward", "assert seq_len <= self.max_seq_len, f\"sequence length {seq_len} exceeds max_position_embeddings {self.max_seq_len}\"")]),
                           "AssertionError: sequence length %d exceeds max_position_embeddings %d" % (8193, 8192))
    if v == "collate":
        d = "%s/torch/utils/data" % J.sitepk
        exc = ("RuntimeError: Caught RuntimeError in DataLoader worker process %d.\nOriginal Traceback (most recent call last):\n"
               '  File "%s/_utils/worker.py", line 351, in _worker_loop\n    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]\n'
               '  File "%s/_utils/fetch.py", line 55, in fetch\n    return self.collate_fn(data)\n'
               '  File "%s/_utils/collate.py", line 398, in default_collate\n    return collate(batch, collate_fn_map=default_collate_fn_map)\n'
               "RuntimeError: stack expects each tensor to be equal size, but got [2049] at entry 0 and [1873] at entry 3\n"
               % (r.randint(0, a.workers - 1), d, d, d))
        return rk, tb_text(J, rk, fr_main(J, fr_dl(J) + [("%s/torch/utils/data/dataloader.py" % J.sitepk, 1500, "_process_data", "data.reraise()"),
                                                      ("%s/torch/_utils.py" % J.sitepk, 733, "reraise", "raise exception")]), exc.rstrip("\n"))
    # nospace: rank 0 checkpoint save
    return rk, tb_text(J, rk, fr_main(J, [(J.script, 520, "save_checkpoint", "torch.save(state, tmp_path)"),
                                        ("%s/torch/serialization.py" % J.sitepk, 849, "save", "with _open_zipfile_writer(f) as opened_zipfile:"),
                                        ("%s/torch/serialization.py" % J.sitepk, 690, "__exit__", "self.file_like.write_end_of_file()")]),
                       "RuntimeError: [enforce fail at inline_container.cc:603] . unexpected pos 11534336512 vs 11534336400\n\nDuring handling of the above exception, another exception occurred:\n\nOSError: [Errno 28] No space left on device")


def f_python_exception(J, a, t0):
    rk, text = py_exc_variant(J, a, a.culprit)
    a.culprit_node = rk // J.gpn
    J.rank_ev(a, t0, rk, text)
    set_exit(a, rk, t0 + timedelta(seconds=J.rng.uniform(0.5, 4)), 1)
    cascade(J, a, t0, "dead", first_ts=a.exits[rk][0], dead_node=rk // J.gpn)


def f_old_badshard(J, a, t0):
    r = J.rng
    rk = a.culprit
    shard = "shard_%06d.bin" % r.randint(100, 9000)
    a.bad_shard = shard
    text = tb_text(J, rk, fr_main(J, fr_dl(J)[:1] + [("%s/data/shards.py" % os.path.dirname(J.script), 97, "read_sample", "arr = arr.reshape(-1, self.seq_len + 1)")]),
                   "ValueError: cannot reshape array of size %d into shape (%d)" % (r.randint(10 ** 6, 10 ** 7), 2049))
    J.rank_ev(a, t0, rk, text)
    set_exit(a, rk, t0 + timedelta(seconds=r.uniform(0.5, 4)), 1)
    cascade(J, a, t0, "dead", first_ts=a.exits[rk][0], dead_node=rk // J.gpn)


def f_host_oom_kill(J, a, t0):
    r = J.rng
    rk = a.culprit
    ni = rk // J.gpn
    host = a.hosts[ni]
    variant = a.variant or r.choice(["rank", "rank", "worker"])
    a.variant = variant
    pid = J.kpid(a, rk)
    victim = pid if variant == "rank" else pid + r.randint(200, 900)
    slurm = J.layout in SLURM_LAYOUTS
    memcg = slurm or J.layout == "k8s-restarts"
    kern(J, a, t0 - timedelta(seconds=0.05), host, "%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0" % ("python" if r.random() < 0.5 else "pt_data_worker"))
    if slurm:
        cg = "/slurm/uid_%d/job_%d" % (J.uid, a.jobid)
        kern(J, a, t0, host, "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0-1,oom_memcg=%s,task_memcg=%s/step_%d/task_%d,task=python,pid=%d,uid=%d" % (cg, cg, a.stepno if J.layout == "slurm-onefile" else 0, rk % J.gpn, victim, J.uid))
    elif memcg:
        kern(J, a, t0, host, "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=cri-containerd-%012x.scope,mems_allowed=0-1,oom_memcg=/kubepods.slice/kubepods-pod%08x.slice,task_memcg=/kubepods.slice/kubepods-pod%08x.slice/cri-containerd-%012x.scope,task=python,pid=%d,uid=0" % (r.getrandbits(48), r.getrandbits(32), r.getrandbits(32), r.getrandbits(48), victim))
    rss = r.randint(160, 420) * 1024 * 1024
    kern(J, a, t0 + timedelta(seconds=0.01), host, "%s: Killed process %d (python) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0"
         % ("Memory cgroup out of memory" if memcg else "Out of memory", victim, rss + r.randint(10 ** 7, 9 * 10 ** 7), rss, r.randint(10 ** 5, 9 * 10 ** 5), r.randint(10 ** 6, 4 * 10 ** 7), J.uid if slurm else 0, r.randint(300000, 900000)))
    if variant == "rank":
        set_exit(a, rk, t0 + timedelta(seconds=0.05), -9)
    else:
        wpid = J.pid_of(a, rk) + (victim - pid)
        txt = tb_text(J, rk, fr_main(J, fr_dl(J) + [("%s/torch/utils/data/dataloader.py" % J.sitepk, 1294, "_try_get_data", "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e")]),
                      "RuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly" % wpid)
        J.rank_ev(a, t0 + timedelta(seconds=0.02), rk, J.pyprefix(rk) + "ERROR: DataLoader worker (pid %d) is killed by signal: Killed. " % wpid)
        J.rank_ev(a, t0 + timedelta(seconds=0.5), rk, txt)
        set_exit(a, rk, t0 + timedelta(seconds=1.2), 1)
    a.oom_event = True
    cascade(J, a, t0, "dead", first_ts=a.exits[rk][0], dead_node=ni)


def f_crash_signal(J, a, t0):
    r = J.rng
    rk = a.culprit
    ni = rk // J.gpn
    host = a.hosts[ni]
    pid = J.kpid(a, rk)
    v = a.variant or r.choice(["segv", "segv", "segv", "abort"])
    a.variant = v
    sp = J.sitepk
    if v == "segv":
        lib = r.choice(["libtransformer_engine.so", "flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so", "libnccl.so.2", "libc10.so", "_C.cpython-310-x86_64-linux-gnu.so"])
        kern(J, a, t0 + timedelta(seconds=0.01), host, "python[%d]: segfault at %x ip 00007f%010x sp 00007ffc%08x error %d in %s[7f%05x00000+%x]%s"
             % (pid, r.choice([0, 8, 0x18, 0x7f3a00000010]), r.getrandbits(36), r.getrandbits(32), r.choice([4, 6, 14]), lib, r.getrandbits(24), r.choice([0x1e00000, 0x2c4000, 0x43b000]),
                " likely on CPU %d (core %d, socket %d)" % (r.randint(0, 111), r.randint(0, 55), r.randint(0, 1)) if r.random() < 0.5 else ""))
        th = ["Fatal Python error: Segmentation fault", "",
              "Thread 0x00007f%08x (most recent call first):" % r.getrandbits(32),
              '  File "/usr/lib/python%s/threading.py", line 324 in wait' % J.pyver,
              '  File "/usr/lib/python%s/threading.py", line 607 in wait' % J.pyver,
              '  File "%s/tqdm/_monitor.py", line 60 in run' % sp, "",
              "Current thread 0x00007f%08x (most recent call first):" % r.getrandbits(32),
              '  File "%s/torch/autograd/graph.py", line 825 in _engine_run_backward' % sp,
              '  File "%s/torch/autograd/__init__.py", line 347 in backward' % sp,
              '  File "%s/torch/_tensor.py", line 581 in backward' % sp,
              '  File "%s", line 431 in train_step' % J.script,
              '  File "%s", line 688 in main' % J.script,
              '  File "%s", line 702 in <module>' % J.script, "",
              "Extension modules: numpy.core._multiarray_umath, numpy.core._multiarray_tests, torch._C, torch._C._fft, torch._C._linalg, torch._C._nested, torch._C._nn, torch._C._sparse, torch._C._special (total: 41)"]
        J.rank_ev(a, t0, rk, "\n".join(th))
        set_exit(a, rk, t0 + timedelta(seconds=0.05), -11)
    else:
        J.rank_ev(a, t0, rk, "terminate called after throwing an instance of 'std::bad_alloc'\n  what():  std::bad_alloc\nFatal Python error: Aborted\n\nCurrent thread 0x00007f%08x (most recent call first):\n  File \"%s/data/tokenizer_cache.py\", line 212 in _grow\n  File \"%s\", line 398 in train" % (r.getrandbits(32), os.path.dirname(J.script), J.script))
        set_exit(a, rk, t0 + timedelta(seconds=0.05), -6)
    cascade(J, a, t0, "dead", first_ts=a.exits[rk][0], dead_node=ni)


def f_preemption(J, a, t0):
    r = J.rng
    if J.layout in SLURM_LAYOUTS:
        a.sched_reason = "PREEMPTION"
        for rk in range(J.world):
            set_exit(a, rk, t0 + timedelta(seconds=r.uniform(0.2, 1.5)), -15)
        if r.random() < 0.6:
            J.rank_ev(a, t0 + timedelta(seconds=0.3), 0, "%s | WARNING | signals | received SIGTERM; trying to save an emergency checkpoint before exit" % J.pylog(t0, a.hosts[0]) if J.framework == "custom" else "Received SIGTERM: attempting emergency checkpoint at iteration %d" % (a.last_step + 1))
        a.first_bad_ts = t0
        return
    ni = a.culprit_node if a.culprit_node is not None else 0
    host = a.hosts[ni]
    a.agent_signal = (t0, ni)
    a.preempt_notice = t0 - timedelta(seconds=r.choice([30, 30, 120]))
    for l in range(J.gpn):
        set_exit(a, ni * J.gpn + l, t0 + timedelta(seconds=r.uniform(0.1, 1.0)), -15)
    a.first_bad_ts = t0
    if J.nnodes > 1:
        cascade(J, a, t0, "dead", first_ts=t0 + timedelta(seconds=1), dead_node=ni)


def hang_desync(J, a, cul, seq):
    others = [x for x in range(J.world) if x != cul]
    return ("[Rank {rank}] Timeout at collective: %s, #%d\n"
            " - To our best knowledge, the lagging/dead/mismatched ranks that caused the desync are:\n"
            "   - [%d] finished collective #%d, but didn't join collective #%d (count from 1)\n"
            " - Snapshot of ranks' latest states:\n"
            "   %s joined but didn't finish collective #%d (count from 1)\n"
            "   [%d] finished collective #%d, but didn't join collective #%d (count from 1)"
            % (J.coll_op, seq, cul, seq - 1, seq, "[" + ranges_str(others).replace(",", ", ") + "]", seq, cul, seq - 1, seq))


def f_hang(J, a, t0):
    r = J.rng
    cul = a.culprit
    desync = hang_desync(J, a, cul, a.seq) if J.desync_debug else None
    a.variant = r.choice(["nfs_write", "deadlock", "cuda_sync"])
    cascade(J, a, t0 + timedelta(seconds=r.uniform(0.5, 3)), "hang", desync=desync)
    if r.random() < 0.35:
        a.py_spy = cul


def f_data_loader_stall(J, a, t0):
    r = J.rng
    cul = a.culprit
    ni = cul // J.gpn
    host = a.hosts[ni]
    v = a.variant or r.choice(["dl_timeout", "nfs"])
    a.variant = v
    mount = r.choice(["fs-data01:/export/datasets", "10.%d.0.5:/datasets" % r.randint(1, 50), "lustre-mds02@o2ib:/scratch"])
    if v == "dl_timeout":
        dlt = r.choice([120, 300, 600])
        if dlt * 1000 >= J.timeout_ms:
            dlt = J.timeout_ms // 2000
        for k in range(1, 4):
            J.rank_ev(a, t0 + timedelta(seconds=dlt * k / 4.0), cul, "%s | WARNING | data | rank %d waited %.0fs for next batch (prefetch queue empty, %d workers)" % (J.pylog(t0 + timedelta(seconds=dlt * k / 4.0), host), cul, dlt * k / 4.0, a.workers))
        if "lustre" not in mount:
            kern(J, a, t0 + timedelta(seconds=5), host, "nfs: server %s not responding, still trying" % mount.split(":")[0])
        te = t0 + timedelta(seconds=dlt)
        txt = tb_text(J, cul, fr_main(J, fr_dl(J) + [("%s/torch/utils/data/dataloader.py" % J.sitepk, 1424, "_get_data", "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds')")]),
                      "RuntimeError: DataLoader timed out after %d seconds" % dlt)
        J.rank_ev(a, te, cul, txt)
        set_exit(a, cul, te + timedelta(seconds=1), 1)
        cascade(J, a, t0, "dead", first_ts=a.exits[cul][0], dead_node=ni, p_remote=0.7, timeout_extra=0)
    else:
        for k in range(3):
            kern(J, a, t0 + timedelta(seconds=20 + 180 * k), host, "nfs: server %s not responding, still trying" % mount.split(":")[0])
        kern(J, a, t0 + timedelta(seconds=300), host, "INFO: task pt_data_worker:%d blocked for more than 122 seconds." % (J.kpid(a, cul) + r.randint(100, 600)))
        kern(J, a, t0 + timedelta(seconds=300.01), host, "      Tainted: P           OE     5.15.0-%d-generic #%d-Ubuntu" % (r.randint(80, 130), r.randint(80, 140)))
        kern(J, a, t0 + timedelta(seconds=300.02), host, '"echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.')
        for k in range(1, 4):
            J.rank_ev(a, t0 + timedelta(seconds=150 * k), cul, "%s | WARNING | data | rank %d waited %.0fs for next batch (prefetch queue empty, %d workers)" % (J.pylog(t0 + timedelta(seconds=150 * k), host), cul, 150.0 * k, a.workers))
        desync = hang_desync(J, a, cul, a.seq) if J.desync_debug else None
        cascade(J, a, t0 + timedelta(seconds=r.uniform(0.5, 3)), "hang", desync=desync)


def f_collective_mismatch(J, a, t0):
    r = J.rng
    cul = a.culprit
    if J.dist_debug_detail:
        a.variant = "detail"
        shp = J.coll_numel
        def fp(op, shape, dt="Float"):
            return ("CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%s], TensorDtypes=%s, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))"
                    % (a.seq, op, shape, dt))
        for rk in range(J.world):
            ts = t0 + timedelta(seconds=r.uniform(0.05, 0.8))
            if rk == cul:
                other = 0 if cul != 0 else 1
                msg = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects: \t Op type: BROADCASTvs %s\t Tensor Tensor shapes: 1vs %d" % (cul, fp("BROADCAST", "1", "Long"), other, fp(J.coll_op, str(shp)), J.coll_op, shp)
            else:
                msg = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects: \t Op type: %svs BROADCAST\t Tensor Tensor shapes: %dvs 1" % (rk, fp(J.coll_op, str(shp)), cul, fp("BROADCAST", "1", "Long"), J.coll_op, shp)
            if rk in a.vis_set:
                fr = fr_main(J, fr_coll(J, "broadcast" if rk == cul else "all_reduce"))
                J.rank_ev(a, ts, rk, tb_text(J, rk, fr, msg))
            set_exit(a, rk, ts + timedelta(seconds=r.uniform(0.3, 2)), 1)
        a.first_bad_ts = min(ts for ts, _ in a.exits.values())
        if J.layout in SLURM_LAYOUTS:
            a.kill_all_at = a.first_bad_ts + timedelta(seconds=r.uniform(1, 10))
        return
    a.variant = "timeout"
    ts = t0 + timedelta(seconds=J.timeout_ms / 1000.0 + r.uniform(0.1, 2))
    host = J.host_of(a, cul)
    if cul in a.vis_set:
        J.rank_ev(a, ts, cul, watchdog_timeout_text(J, a, cul, ts, a.seq, "BROADCAST", 1, True))
    set_exit(a, cul, ts + timedelta(seconds=0.5), -6)
    cascade(J, a, t0, "timeout_all")


def f_unknown(J, a, t0):
    cascade(J, a, t0, "timeout_all")


def f_timelimit(J, a, t0):
    r = J.rng
    a.sched_reason = "TIME LIMIT"
    for rk in range(J.world):
        set_exit(a, rk, t0 + timedelta(seconds=r.uniform(0.3, 2)), -15)
    J.rank_ev(a, t0 - timedelta(seconds=120), 0, "caught signal SIGUSR1 (job time limit in 120s): saving checkpoint at step %d and exiting for requeue" % a.last_step)
    a.first_bad_ts = t0


def f_straggler_end(J, a, t0):
    r = J.rng
    a.variant = a.variant or r.choice(["finished", "cancelled", "cancelled"])
    if a.variant == "finished":
        emit_success(J, a, t0)
        return
    if J.layout in SLURM_LAYOUTS:
        a.sched_reason = "TIME LIMIT"
    else:
        a.user_cancel = t0
    for rk in range(J.world):
        set_exit(a, rk, t0 + timedelta(seconds=r.uniform(0.3, 2)), -15)
    a.first_bad_ts = t0


def emit_success(J, a, t0):
    r = J.rng
    h0 = J.host_of(a, 0)
    a.success = True
    cs = a.last_step
    if J.framework == "megatron":
        J.rank_ev(a, t0, J.log_rank, "[after training is done] datetime: %s " % J.ptime(t0, h0).strftime("%Y-%m-%d %H:%M:%S"))
        J.rank_ev(a, t0 + timedelta(seconds=1), 0, "saving checkpoint at iteration %8d to %s in torch_dist format\n  successfully saved checkpoint from iteration %8d to %s [ t 1/1, p 1/1 ]" % (cs, J.ckpt_dir, cs, J.ckpt_dir))
    elif J.framework == "custom":
        J.rank_ev(a, t0, 0, "%s | INFO | trainer | reached max_steps=%d, saving final checkpoint" % (J.pylog(t0, h0), J.total_steps))
        J.rank_ev(a, t0 + timedelta(seconds=60), 0, "%s | INFO | trainer | training finished: %d steps, final loss %.4f" % (J.pylog(t0 + timedelta(seconds=60), h0), cs, loss_at(J, cs)))
    elif J.framework == "hf":
        J.rank_ev(a, t0, 0, "\n\nTraining completed. Do not forget to share your model on huggingface.co/models =)\n\n")
        J.rank_ev(a, t0 + timedelta(seconds=1), 0, "{'train_runtime': %.4f, 'train_samples_per_second': %.3f, 'train_steps_per_second': %.3f, 'train_loss': %.6f, 'epoch': 3.0}" % ((t0 - a.start).total_seconds(), r.uniform(100, 900), 1.0 / J.step_time, loss_at(J, cs) + 0.2))
    else:
        J.rank_ev(a, t0, 0, "[%s] [INFO] [logging.py:96:log_dist] [Rank 0] [Torch] Checkpoint global_step%d is ready now!" % (J.pylog(t0, h0), cs))
        J.rank_ev(a, t0 + timedelta(seconds=1), 0, "training done: %d steps" % cs)
    # alarming-but-benign exit warnings
    for rk in a.vis[:min(len(a.vis), 6)]:
        if J.tv >= (2, 4) and r.random() < 0.6:
            J.rank_ev(a, t0 + timedelta(seconds=70), rk, J.c10(rk, t0 + timedelta(seconds=70), J.host_of(a, rk), "W", "ProcessGroupNCCL.cpp:%d" % 1250) +
                      "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only recently been added since we have always done this. (function operator())")
    for rk in range(J.world):
        set_exit(a, rk, t0 + timedelta(seconds=r.uniform(71, 90)), 0)
    a.first_bad_ts = None


FAIL = {
    "gpu_hardware": f_gpu_hardware, "ecc_memory": f_ecc_memory, "nvlink": f_nvlink, "network": f_network,
    "cuda_oom": f_cuda_oom, "illegal_memory_access": f_illegal_memory_access, "python_exception": f_python_exception,
    "host_oom_kill": f_host_oom_kill, "crash_signal": f_crash_signal, "preemption": f_preemption, "hang": f_hang,
    "data_loader_stall": f_data_loader_stall, "collective_mismatch": f_collective_mismatch, "unknown": f_unknown,
    "timelimit": f_timelimit,
}


# =============================================================================================
# attempt driver + decoys
# =============================================================================================
def emit_attempt(J, a):
    r = J.rng
    emit_init(J, a)
    final = a.kind == "final"
    if final and J.healthy:
        emit_training(J, a, a.t_fail + timedelta(hours=2), until_step=J.total_steps)
        emit_success(J, a, a.last_step_ts + timedelta(seconds=r.uniform(3, 20)))
    else:
        straggler = a.culprit if (final and J.cause == "straggler") else None
        emit_training(J, a, a.t_fail, straggler=straggler)
        t0 = a.last_step_ts + timedelta(seconds=a.eff_step_time * r.uniform(0.2, 0.95))
        a.t0 = t0
        a.seq = J.seq_base + (a.last_step + 1 - a.step0) * J.cps + r.randint(0, J.cps - 1)
        if a.kind == "old_badshard":
            f_old_badshard(J, a, t0)
        elif a.cause == "straggler":
            f_straggler_end(J, a, t0)
        else:
            FAIL[a.cause](J, a, t0)
    a.end = max(ts for ts, _ in a.exits.values()) + timedelta(seconds=r.uniform(1, 6))
    strong = final and J.healthy
    if strong or r.random() < 0.3:
        emit_alarms(J, a, strong)
    # handled exception decoy: a traceback that did not kill the job
    if (strong or r.random() < 0.35) and a.last_step > a.step0 + 10:
        frac = r.uniform(0.2, 0.8)
        tt = a.t_train0 + (a.last_step_ts - a.t_train0) * frac
        hs = a.step0 + int((a.last_step - a.step0) * frac) // 10 * 10
        txt = ("WARNING: eval/upload hook failed at step %d, continuing training:\n" % hs +
               tb_text(J, 0, [(J.script, 466, "run_hooks", "hook(step, metrics)"),
                              ("%s/hooks/upload.py" % os.path.dirname(J.script), 41, "__call__", "self.client.upload_file(path, self.bucket, key)"),
                              ("%s/botocore/client.py" % J.sitepk, 565, "_api_call", "return self._make_api_call(operation_name, kwargs)")],
                      "botocore.exceptions.EndpointConnectionError: Could not connect to the endpoint URL: \"https://s3.us-west-2.amazonaws.com/ml-artifacts/%s/eval_%d.json\"" % (J.run_name, hs), prefix=False))
        J.rank_ev(a, tt, 0, txt)
        J.decoys.append("handled exception (upload hook) in attempt %d" % (a.idx + 1))


def emit_alarms(J, a, strong):
    """benign but alarming events inside an attempt (healthy runs get several)."""
    r = J.rng
    span = (a.last_step_ts - a.t_train0).total_seconds()
    if span < 600:
        return
    def when():
        return a.t_train0 + timedelta(seconds=r.uniform(0.1, 0.9) * span)
    kinds = ["flap", "xid", "barrier", "slowckpt"]
    r.shuffle(kinds)
    for k in kinds[:(3 if strong else 1)]:
        if k == "flap" and J.nnodes > 1:
            rk = r.choice(a.vis)
            ni, l = rk // J.gpn, rk % J.gpn
            t = when()
            J.rank_ev(a, t, rk, nccl_line(J, a, rk, "transport/net_ib.cc:%d" % 101, "WARN", "NET/IB : mlx5_%d:1 Got async event : port error" % l, 5))
            J.rank_ev(a, t + timedelta(seconds=r.uniform(3, 25)), rk, nccl_line(J, a, rk, "transport/net_ib.cc:%d" % 101, "WARN", "NET/IB : mlx5_%d:1 Got async event : port active" % l, 5))
            kern(J, a, t - timedelta(seconds=0.5), a.hosts[ni], "mlx5_core 0000:%s:00.0: Port module event: module %d, Cable unplugged" % (r.choice(["0c", "1f", "4b", "5e"]), l))
            kern(J, a, t + timedelta(seconds=2), a.hosts[ni], "mlx5_core 0000:%s:00.0: Port module event: module %d, Cable plugged" % (r.choice(["0c", "1f", "4b", "5e"]), l))
            J.decoys.append("recovered IB port flap on %s in attempt %d" % (a.hosts[ni], a.idx + 1))
        elif k == "xid":
            ni = r.randrange(J.nnodes)
            if a.culprit_node is not None and J.nnodes > 1:
                ni = r.choice([x for x in range(J.nnodes) if x != a.culprit_node])
            l = r.randrange(J.gpn)
            kern(J, a, when(), a.hosts[ni], "%s: 63, pid=%d, name=python, Row Remapper: New row (0x%08x) marked for remapping, reset gpu to activate." % (xid_pfx(J, l), J.pid_of(a, ni * J.gpn + l), r.getrandbits(24)))
            J.decoys.append("benign Xid 63 on %s in attempt %d" % (a.hosts[ni], a.idx + 1))
        elif k == "barrier" and J.tv >= (2, 3):
            for rk in a.vis[:min(len(a.vis), 8)]:
                t = a.t_train0 - timedelta(seconds=r.uniform(5, 20))
                J.rank_ev(a, t, rk, J.c10(rk, t, J.host_of(a, rk), "W", "ProcessGroupNCCL.cpp:%d" % 4561) +
                          "%s using GPU %d to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect. Specify device_ids in barrier() to force use of a particular device, or call init_process_group() with a device_id." % (J.pgtag(rk), rk % J.gpn))
        else:
            t = when()
            J.rank_ev(a, t, 0, "%s | WARNING | watchdog | no step completed for %ds (checkpoint save in progress), heartbeat still alive" % (J.pylog(t, a.hosts[0]), r.randint(300, 900)))


def add_kernel_decoys(J):
    r = J.rng
    fin = J.attempts[-1]
    # benign/old Xids on hosts that are not the final culprit
    cands = [h for h in fin.hosts if fin.culprit_node is None or h != fin.hosts[fin.culprit_node]]
    if not cands:
        return
    h = r.choice(cands)
    a0 = J.attempts[0]
    l = r.randrange(J.gpn)
    t = a0.start - timedelta(days=r.randint(1, 9), seconds=r.randint(0, 80000))
    kind = r.choice(["xid63", "xid92", "xid43", "xid13"])
    if kind == "xid63":
        txt = "%s: 63, pid=%d, name=python, Row Remapper: New row (0x%08x) marked for remapping, reset gpu to activate." % (xid_pfx(J, l), r.randint(1000, 90000), r.getrandbits(24))
    elif kind == "xid92":
        txt = "%s: 92, pid=%d, name=python, High single-bit ECC error rate" % (xid_pfx(J, l), r.randint(1000, 90000))
    elif kind == "xid43":
        # processes of an earlier attempt were killed: GPU stopped processing (benign)
        prev = J.attempts[-2] if len(J.attempts) > 1 else a0
        t = (prev.end or prev.start) + timedelta(seconds=r.uniform(0.1, 2))
        txt = "%s: 43, pid=%d, name=python, Ch 00000008" % (xid_pfx(J, l), r.randint(1000, 90000))
    else:
        txt = "%s: 13, pid=%d, name=python, Graphics SM Warp Exception on (GPC 3, TPC 1, SM 0): Out Of Range Address" % (xid_pfx(J, l), r.randint(1000, 90000))
        t = a0.start - timedelta(days=r.randint(10, 20))
    a0.kernel.append((t, h, txt))
    J.decoys.append("benign/old %s on %s" % (kind, h))
    if r.random() < 0.5:
        h2 = r.choice(cands)
        a0.kernel.append((a0.start + timedelta(seconds=r.uniform(100, 5000)), h2, "mlx5_core 0000:%s:00.0: mlx5_pcie_event:301:(pid %d): PCIe slot advertised sufficient power (75W)." % (r.choice(["0c", "4b"]), r.randint(100, 900))))


def boot_noise(J, host, t):
    r = J.rng
    return [(t, host, "nvidia-nvlink: Nvlink Core is being initialized, major device number %d" % r.randint(230, 511)),
            (t + timedelta(seconds=0.5), host, "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  %s  %s" % (J.driver, r.choice(["Tue Mar 19 22:41:58 UTC 2024", "Wed Jun  5 19:52:22 UTC 2024", "Thu Nov 14 18:01:22 UTC 2024"]))),
            (t + timedelta(seconds=2.5), host, "nvidia_uvm: module uses symbols nvUvmInterfaceDisableAccessCntr from proprietary module nvidia, inheriting taint."),
            (t + timedelta(seconds=9), host, "mlx5_core 0000:%s:00.0: E-Switch: Total vports 2, per vport: max uc(128) max mc(2048)" % r.choice(["0c", "4b"])),
            (t + timedelta(seconds=15), host, "IPv6: ADDRCONF(NETDEV_CHANGE): ib0: link becomes ready")]


# =============================================================================================
# rendering helpers
# =============================================================================================
def sorted_events(a, pred):
    return sorted([e for e in a.events if pred(e[2])], key=lambda e: (e[0], e[1]))


def exc_last_line(J, a, rk):
    """last line of the last python traceback printed by rank rk (for torchrun error summaries)."""
    best = None
    for ts, seq, st, text in a.events:
        if st == ("r", rk) and "Traceback (most recent call last)" in text:
            best = text
    if not best:
        return None
    lines = [l for l in best.split("\n") if l.strip()]
    pre = J.pyprefix(rk)
    return [l[len(pre):] if pre and l.startswith(pre) else l for l in lines]


def code_desc_srun(code, oom=False):
    if code == -9 and oom:
        return "Out Of Memory"
    if code < 0:
        return SRUN_SIG.get(-code, "Killed")
    return "Exited with exit code %d" % code


def group_tasks(J, a, ranks_codes, oom_ranks=()):
    """srun-style error lines grouped per node and description."""
    out = []
    per = {}
    for rk, (ts, code) in sorted(ranks_codes, key=lambda x: (x[1][0], x[0])):
        host = J.host_of(a, rk)
        desc = code_desc_srun(code, rk in oom_ranks)
        lst = per.setdefault((host, desc), [])
        if lst and (ts - lst[-1][-1][0]).total_seconds() <= 1.0:
            lst[-1].append((ts, rk))
        else:
            lst.append([(ts, rk)])
    groups = []
    for (host, desc), lsts in per.items():
        for g in lsts:
            groups.append((min(t for t, _ in g), host, desc, g))
    groups.sort(key=lambda x: (x[0], x[1]))
    for ts, host, desc, lst in groups:
        rks = sorted(rk for _, rk in lst)
        if len(rks) == 1:
            out.append((ts, "srun: error: %s: task %d: %s" % (host, rks[0], desc)))
        else:
            out.append((ts, "srun: error: %s: tasks %s: %s" % (host, ranges_str(rks), desc)))
    return out


def trim_line(n):
    return "[... %s lines from %s trimmed when attaching ...]" % ("{:,}".format(max(n, 1) * 14), "other ranks")


# =============================================================================================
# layout: slurm (requeue files / one file with a retry loop)
# =============================================================================================
def slurm_step_lines(J, a, stepname, batch_host):
    """scheduler / srun lines produced at the end of one srun step."""
    r = J.rng
    out = []
    if a.success:
        return out
    ts_kill = a.kill_all_at
    if a.sched_reason:
        t = a.t0
        reason = a.sched_reason
        out.append((t, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO %s ***" % (a.jobid, batch_host, J.slurm_ts(t), reason)))
        out.append((t + timedelta(seconds=0.1), "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
        out.append((t + timedelta(seconds=0.2), "slurmstepd: error: *** STEP %s ON %s CANCELLED AT %s DUE TO %s ***" % (stepname, batch_host, J.slurm_ts(t), reason)))
        term = [(rk, v) for rk, v in a.exits.items() if v[1] == -15]
        out += [(t + timedelta(seconds=2), l) for _, l in group_tasks(J, a, term)]
        return out
    bad = sorted([(v[0], rk, v[1]) for rk, v in a.exits.items() if v[1] not in (-15, 0)])
    if not bad:
        return out
    first_ts = bad[0][0]
    if ts_kill is None:
        ts_kill = first_ts + timedelta(seconds=r.uniform(1, 5))
    oom_ranks = set()
    if getattr(a, "oom_event", False) and a.culprit is not None and a.exits.get(a.culprit, (0, 0))[1] == -9:
        oom_ranks.add(a.culprit)
        ch = J.host_of(a, a.culprit)
        out.append((first_ts - timedelta(seconds=0.01), "slurmstepd: error: Detected 1 oom_kill event in StepId=%s. Some of the step tasks have been OOM Killed." % stepname))
    early = [(rk, (ts, code)) for ts, rk, code in bad if ts <= ts_kill]
    out += group_tasks(J, a, early, oom_ranks)
    out.append((first_ts + timedelta(seconds=0.05), ("srun: Terminating StepId=%s" % stepname) if J.slurm_new else ("srun: Terminating job step %s" % stepname)))
    out.append((ts_kill, "slurmstepd: error: *** STEP %s ON %s CANCELLED AT %s ***" % (stepname, batch_host, J.slurm_ts(ts_kill))))
    out.append((ts_kill + timedelta(seconds=0.01), "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
    late = [(rk, v) for rk, v in a.exits.items() if v[1] == -15 or (v[1] not in (0,) and v[0] > ts_kill)]
    late = [(rk, (max(v[0], ts_kill + timedelta(seconds=1)), -15 if v[0] > ts_kill else v[1])) for rk, v in late]
    out += group_tasks(J, a, late)
    return out


def slurm_body(J, a, stepname, batch_host):
    width = len(str(J.world - 1))
    out = []
    for ts, seq, st, text in sorted_events(a, lambda s: s[0] == "r"):
        rk = st[1]
        pre = "%*d: " % (width, rk)
        for line in text.split("\n"):
            out.append((ts, seq, pre + line))
    for ts, line in slurm_step_lines(J, a, stepname, batch_host):
        out.append((ts, 10 ** 7, line))
    if a.trim_note:
        out.append((a.trim_note[0], 10 ** 7 - 1, trim_line(a.trim_note[1])))
    out.sort(key=lambda x: (x[0], x[1]))
    return [l for _, _, l in out]


def sacct_text(J):
    r = J.rng
    rows = []
    name = J.run_name[:10]
    for i, a in enumerate(J.attempts):
        nxt = J.attempts[i + 1] if i + 1 < len(J.attempts) else None
        if a.success:
            st, ec = "COMPLETED", "0:0"
        elif a.sched_reason == "PREEMPTION":
            st, ec = "PREEMPTED", "0:15"
        elif a.sched_reason == "TIME LIMIT":
            st, ec = "TIMEOUT", "0:15"
        elif nxt is not None and nxt.jobid == a.jobid:
            st, ec = "REQUEUED", "1:0"
        else:
            st, ec = "FAILED", "1:0"
        el = (a.end - a.start).total_seconds()
        nm = J.run_name if len(J.run_name) <= 10 else J.run_name[:9] + "+"
        rows.append("%-12s %-10s %-9s %-10s %8s %19s %19s %12s %12s %s" % (a.jobid, nm, J.partition, st, ec,
                                                                     J.slurm_ts(a.start), J.slurm_ts(a.end), slurm_elapsed(el), slurm_elapsed(J.time_limit_h * 3600), compress_nodelist(a.hosts)))
    hdr = ("%-12s %-10s %-9s %-10s %8s %19s %19s %12s %12s %s\n" % ("JobID", "JobName", "Partition", "State", "ExitCode", "Start", "End", "Elapsed", "Timelimit", "NodeList") +
           "%s %s %s %s %s %s %s %s %s %s\n" % ("-" * 12, "-" * 10, "-" * 9, "-" * 10, "-" * 8, "-" * 19, "-" * 19, "-" * 12, "-" * 12, "-" * 24))
    jobs = " ".join(str(j) for j in sorted(set(a.jobid for a in J.attempts)))
    return "$ sacct -j %s --duplicates -X --format=JobID,JobName,Partition,State,ExitCode,Start,End,Elapsed,Timelimit,NodeList%%60\n" % jobs.replace(" ", ",") + hdr + "\n".join(rows) + "\n"


def sinfo_text(J):
    r = J.rng
    rows = []
    for a in J.attempts:
        for host, reason in a.drained:
            rows.append((a.end + timedelta(minutes=r.uniform(2, 40)), reason, r.choice(["root", "slurm", "nhc"]), host))
    t_last = J.attempts[-1].end
    for _ in range(r.randint(1, 3)):
        h = r.choice([x for x in J.pool if all(x != rr[3] for rr in rows)] or J.pool)
        rows.append((t_last - timedelta(days=r.uniform(0.5, 20)), r.choice(["reboot for kernel upd", "bad DIMM B3", "BMC unreachable", "waiting for RMA", "HCA fw update"]), "root", h))
    rows.sort()
    out = ["$ sinfo -R", "%-20s %-9s %-19s %s" % ("REASON", "USER", "TIMESTAMP", "NODELIST")]
    for ts, reason, user, host in rows:
        out.append("%-20s %-9s %-19s %s" % (reason[:20], user, J.slurm_ts(ts), host))
    return "\n".join(out) + "\n"


def dmesg_text(J, host, with_boot=True):
    ev = []
    for a in J.attempts:
        for ts, h, txt in a.kernel:
            if h == host:
                ev.append((ts, txt))
    if with_boot:
        first = min([t for t, _ in ev] + [J.attempts[0].start]) - timedelta(days=J.rng.randint(2, 30))
        ev += [(t, txt) for t, h, txt in boot_noise(J, host, first)]
    ev.sort()
    return "\n".join("%s %s" % (J.dmesg_T(t), txt) for t, txt in ev) + "\n"


def render_slurm_requeue(J):
    r = J.rng
    files = {}
    cnt = {}
    for a in J.attempts:
        rc = cnt.get(a.jobid, 0)
        cnt[a.jobid] = rc + 1
        a.restart_count_slurm = rc
        nodelist = compress_nodelist(a.hosts)
        bh = a.hosts[0]
        L = ["+ date", J.date_cmd(a.start - timedelta(seconds=5)),
             "SLURM_JOB_ID=%d SLURM_JOB_NAME=%s SLURM_RESTART_COUNT=%d SLURM_NNODES=%d SLURM_JOB_NODELIST=%s" % (a.jobid, J.run_name, rc, J.nnodes, nodelist),
             "MASTER_ADDR=%s MASTER_PORT=29500 WORLD_SIZE=%d NCCL_DEBUG=%s%s" % (bh, J.world, J.nccl_debug, " TORCH_NCCL_DESYNC_DEBUG=1" if J.desync_debug else "")]
        if a.step0 > 0:
            L.append("found checkpoint: %s/latest -> step %d" % (J.ckpt_dir, a.step0))
        L.append("+ srun -l --kill-on-bad-exit=1 --ntasks-per-node=%d --cpu-bind=none python -u %s --config configs/%s.yaml%s" % (J.gpn, J.script, J.model, " --resume" if a.step0 else ""))
        L += slurm_body(J, a, "%d.0" % a.jobid, bh)
        nxt = J.attempts[a.idx + 1] if a.idx + 1 < len(J.attempts) else None
        if not a.sched_reason:
            rc_s = 0 if a.success else 1
            L.append("+ rc=%d" % rc_s)
            L.append("srun finished with exit code %d at %s" % (rc_s, J.date_cmd(a.end)))
            if nxt is not None and nxt.jobid == a.jobid:
                L.append("+ scontrol requeue %d" % a.jobid)
        fn = "slurm-%d_%d.out" % (a.jobid, rc)
        files[fn] = "\n".join(L) + "\n"
    files["sacct.txt"] = sacct_text(J)
    fin = J.attempts[-1]
    if any(a.drained for a in J.attempts) and r.random() < 0.6:
        files["sinfo-R.txt"] = sinfo_text(J)
    add_admin_dmesg(J, files)
    return files


def add_admin_dmesg(J, files):
    r = J.rng
    fin = J.attempts[-1]
    if fin.culprit_node is not None and any(h == fin.hosts[fin.culprit_node] for _, h, _ in fin.kernel) and r.random() < 0.45:
        h = fin.hosts[fin.culprit_node]
        files["dmesg-%s.txt" % h] = "$ sudo dmesg -T | tail -n 200   (collected by on-call on %s)\n" % h + dmesg_text(J, h)
    for a in J.attempts[:1]:
        for ts, h, txt in a.kernel:
            if ("dmesg-%s.txt" % h) not in files and r.random() < 0.35:
                files["dmesg-%s.txt" % h] = "$ sudo dmesg -T | tail -n 200   (collected by on-call on %s)\n" % h + dmesg_text(J, h)


def render_slurm_onefile(J):
    r = J.rng
    alloc = sorted(set(h for a in J.attempts for h in a.hosts))
    spare = len(alloc) - J.nnodes
    fin = J.attempts[-1]
    maxa = r.choice([len(J.attempts), len(J.attempts), 5, 10])
    maxa = max(maxa, len(J.attempts))
    a0 = J.attempts[0]
    L = ["Job %d (%s) started on %s at %s" % (J.jobid, J.run_name, alloc[0], J.date_cmd(a0.start - timedelta(seconds=30))),
         "SLURM_JOB_NODELIST=%s (%d nodes, %d spare)" % (compress_nodelist(alloc), len(alloc), spare),
         "MAX_ATTEMPTS=%d CKPT_DIR=%s NCCL_DEBUG=%s TORCH_NCCL_ASYNC_ERROR_HANDLING=1%s" % (maxa, J.ckpt_dir, J.nccl_debug, " TORCH_NCCL_DESYNC_DEBUG=1" if J.desync_debug else "")]
    excluded = []
    for a in J.attempts:
        ex = [h for h in alloc if h not in a.hosts]
        L.append("")
        L.append("==== attempt %d/%d  %s ====" % (a.idx + 1, maxa, J.date_cmd(a.start - timedelta(seconds=3))))
        if ex:
            L.append("excluding nodes: %s" % ",".join(ex))
        if a.step0:
            L.append("resume: %s/latest -> step_%08d" % (J.ckpt_dir, a.step0))
        L.append("+ srun -l --kill-on-bad-exit=1 -N %d --ntasks-per-node=%d%s python -u %s%s" % (J.nnodes, J.gpn, (" --exclude=%s" % compress_nodelist(ex)) if ex else "", J.script, " --resume" if a.step0 else ""))
        L += slurm_body(J, a, "%d.%d" % (J.jobid, a.idx), alloc[0])
        if a.sched_reason:
            break
        rc = 0 if a.success else 1
        L.append("srun exit code %d after %s (%s)" % (rc, fmt_dur((a.end - a.start).total_seconds()), J.date_cmd(a.end)))
        if a.success:
            L.append("training finished, exiting loop")
            break
        if a.health:
            L.append("+ srun -N %d --ntasks-per-node=1 /opt/scripts/gpu_health.sh" % len(a.hosts))
            for h in a.hosts:
                bad = [t for hh, t in a.health if hh == h]
                L.append("%s: %s" % (h, ("FAIL " + bad[0]) if bad else "OK (%d GPUs, ib up)" % J.gpn))
        if a.kind != "final":
            nxt = J.attempts[a.idx + 1]
            newly = [h for h in a.hosts if h not in nxt.hosts]
            if newly:
                L.append("marking unhealthy: %s (will not be used again in this allocation)" % ",".join(newly))
            for fx in a.fix_notes:
                L.append("applying fix from runbook: %s" % fx)
            L.append("sleeping %ds before next attempt" % a.sleep_s)
        else:
            L.append("attempt %d/%d failed; %s" % (a.idx + 1, maxa, "giving up (max attempts reached)" if a.idx + 1 >= maxa else "giving up: same failure signature twice / operator stopped retries"))
    files = {"slurm-%d.out" % J.jobid: "\n".join(L) + "\n"}
    if r.random() < 0.5:
        files["sacct.txt"] = ("$ sacct -j %d --format=JobID,JobName%%20,State,ExitCode,Elapsed,NodeList%%40\n" % J.jobid +
                              "%-14s %-20s %-10s %8s %12s %s\n" % ("JobID", "JobName", "State", "ExitCode", "Elapsed", "NodeList") +
                              "\n".join("%-14s %-20s %-10s %8s %12s %s" % ("%d.%d" % (J.jobid, a.idx), "python", "COMPLETED" if a.success else ("CANCELLED" if a.sched_reason else "FAILED"),
                                                                         "0:0" if a.success else ("0:15" if a.sched_reason else "1:0"), slurm_elapsed((a.end - a.start).total_seconds()), compress_nodelist(a.hosts))
                                        for a in J.attempts) + "\n")
    if any(a.drained for a in J.attempts) and r.random() < 0.5:
        files["sinfo-R.txt"] = sinfo_text(J)
    add_admin_dmesg(J, files)
    return files


# =============================================================================================
# layout: bash retry wrapper around the DeepSpeed launcher (pdsh)
# =============================================================================================
def ssh_code(code):
    return code & 0xff if code >= 0 else (256 + code) & 0xff


def render_ds_wrapper(J):
    r = J.rng
    maxa = max(len(J.attempts), r.choice([5, 8, 10]))
    head = J.attempts[0].hosts[0]
    off = J.tz_off
    def wts(t):
        lt = J.loc(t)
        return lt.strftime("%Y-%m-%dT%H:%M:%S") + ("%+03d:00" % off if off else "+00:00")
    L = []
    for a in J.attempts:
        hosts = a.hosts
        mh = hosts[0]
        L.append("[run.sh %s] attempt %d/%d: %d hosts (%s)" % (wts(a.start - timedelta(seconds=4)), a.idx + 1, maxa, len(hosts), " ".join(hosts) if len(hosts) <= 16 else " ".join(hosts[:8]) + " ... " + " ".join(hosts[-2:])))
        if a.idx > 0:
            prev = J.attempts[a.idx - 1]
            if getattr(prev, "replaced", None):
                L.append("[run.sh %s] hostfile regenerated: %s removed, %s added" % (wts(a.start - timedelta(seconds=3)), prev.replaced[0], prev.replaced[1]))
            for fx in prev.fix_notes:
                L.append("[run.sh %s] applying override: %s" % (wts(a.start - timedelta(seconds=3)), fx))
        if a.step0:
            L.append("[run.sh %s] resuming from %s/latest (global_step%d)" % (wts(a.start - timedelta(seconds=2)), J.ckpt_dir, a.step0))
        t = a.start
        h0 = mh
        p = lambda tt, src, m, lvl="INFO": "[%s] [%s] [%s] %s" % (J.pylog(tt, h0), lvl, src, m)
        L.append(p(t, "runner.py:463:main", "Using IP address of %s for node %s" % (J.ip[mh], mh)))
        L.append(p(t, "multinode_runner.py:80:get_cmd", "Running on the following workers: %s" % ",".join(hosts)))
        L.append(p(t, "runner.py:568:main", "cmd = pdsh -S -f 1024 -w %s export NCCL_DEBUG=%s; export PYTHONPATH=/work;%s  cd /work; /usr/bin/python -u -m deepspeed.launcher.launch --world_info=%s --node_rank=%%n --master_addr=%s --master_port=29500 %s --deepspeed ds_config.json%s"
                   % (",".join(hosts), J.nccl_debug, " export TORCH_NCCL_DESYNC_DEBUG=1;" if J.desync_debug else "", "eyJ" + "".join(r.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") for _ in range(40)) + "fQ==", J.ip[mh], os.path.basename(J.script), " --resume" if a.step0 else "")))
        ev = []
        # launch.py header per node (only some nodes are kept for large jobs)
        shown_nodes = sorted(set(rk // J.gpn for rk in a.vis))
        wi = "{" + ", ".join("'%s': [%s]" % (h, ", ".join(str(x) for x in range(J.gpn))) for h in hosts[:4]) + (", ...}" if len(hosts) > 4 else "}")
        for ni in shown_nodes:
            h = hosts[ni]
            tt = t + timedelta(seconds=r.uniform(1, 3))
            q = lambda src, m, lvl="INFO": "%s: [%s] [%s] [%s] %s" % (h, J.pylog(tt, h), lvl, src, m)
            J.pid_of(a, 0)
            hdr = [q("launch.py:146:main", "WORLD INFO DICT: %s" % wi),
                   q("launch.py:152:main", "nnodes=%d, num_local_procs=%d, node_rank=%d" % (J.nnodes, J.gpn, ni)),
                   q("launch.py:163:main", "global_rank_mapping=defaultdict(<class 'list'>, {%s})" % ", ".join("'%s': [%s]" % (hh, ", ".join(str(j * J.gpn + x) for x in range(J.gpn))) for j, hh in enumerate(hosts) if j in (ni, 0) or len(hosts) <= 4)),
                   q("launch.py:164:main", "dist_world_size=%d" % J.world),
                   q("launch.py:168:main", "Setting CUDA_VISIBLE_DEVICES=%s" % ",".join(str(x) for x in range(J.gpn)))]
            for l in range(J.gpn):
                hdr.append(q("launch.py:256:main", "process %d spawned with command: ['/usr/bin/python', '-u', '%s', '--local_rank=%d', '--deepspeed', 'ds_config.json'%s]" % (J.pid_of(a, ni * J.gpn + l), os.path.basename(J.script), l, ", '--resume'" if a.step0 else "")))
            ev.append((tt, -1, "\n".join(hdr)))
        if len(shown_nodes) < J.nnodes:
            ev.append((t + timedelta(seconds=3.5), -1, "[... launcher output of %d other nodes trimmed ...]" % (J.nnodes - len(shown_nodes))))
        for ts, seq, st, text in sorted_events(a, lambda s: s[0] == "r"):
            h = J.host_of(a, st[1])
            ev.append((ts, seq, "\n".join("%s: %s" % (h, line) for line in text.split("\n"))))
        if a.trim_note:
            ev.append((a.trim_note[0], 10 ** 7, trim_line(a.trim_note[1])))
        # launcher reaction per node
        node_exit = {}
        for rk, (ts, code) in a.exits.items():
            node_exit.setdefault(rk // J.gpn, []).append((ts, rk, code))
        pre_gone = None
        if a.agent_signal:
            tsig, pni = a.agent_signal
            ph = hosts[pni]
            ev.append((a.preempt_notice, -1, "[spot-watch %s] %s: instance-action: {\"action\": \"terminate\", \"time\": \"%s\"}" % (wts(a.preempt_notice), ph, (tsig).strftime("%Y-%m-%dT%H:%M:%SZ"))))
            ev.append((tsig + timedelta(seconds=2), -1, "%s: Connection to %s closed by remote host." % (ph, ph)))
            ev.append((tsig + timedelta(seconds=2.1), -1, "pdsh@%s: %s: ssh exited with exit code 255" % (head, ph)))
            pre_gone = pni
        for ni in sorted(node_exit):
            if ni == pre_gone:
                continue
            lst = sorted(node_exit[ni])
            h = hosts[ni]
            if a.success:
                if ni in shown_nodes:
                    for ts, rk, code in lst:
                        ev.append((ts, 10 ** 6, "%s: [%s] [INFO] [launch.py:351:main] Process %d exits successfully." % (h, J.pylog(ts, h), J.pid_of(a, rk))))
                continue
            bad = [x for x in lst if x[2] != -15]
            if not bad:
                first = lst[0]
            else:
                first = bad[0]
            ts, rk, code = first
            if ni in shown_nodes or ni == (a.culprit_node if a.culprit_node is not None else -1) or bad and rk == a.culprit:
                txt = []
                for l in range(J.gpn):
                    txt.append("%s: [%s] [INFO] [launch.py:319:sigkill_handler] Killing subprocess %d" % (h, J.pylog(ts, h), J.pid_of(a, ni * J.gpn + l)))
                txt.append("%s: [%s] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python', '-u', '%s', '--local_rank=%d', '--deepspeed', 'ds_config.json'%s] exits with return code = %d"
                           % (h, J.pylog(ts, h), os.path.basename(J.script), rk % J.gpn, ", '--resume'" if a.step0 else "", code))
                ev.append((ts + timedelta(seconds=0.2), 10 ** 6, "\n".join(txt)))
            ev.append((ts + timedelta(seconds=0.5), 10 ** 6 + 1, "pdsh@%s: %s: ssh exited with exit code %d" % (head, h, ssh_code(code))))
        ev.sort(key=lambda e: (e[0], e[1]))
        L += [x[2] for x in ev]
        rc = 0 if a.success else 1
        dur = fmt_dur((a.end - a.start).total_seconds())
        L.append("[run.sh %s] deepspeed exited with code %d after %s (steps %d -> %d)" % (wts(a.end + timedelta(seconds=3)), rc, dur, a.step0, a.last_step))
        if a.success:
            L.append("[run.sh %s] training complete" % wts(a.end + timedelta(seconds=4)))
            break
        # post-failure health check using dmesg on every host
        L.append("[run.sh %s] health check: pdsh -w %s 'nvidia-smi -L | wc -l; sudo dmesg -T | grep -E \"NVRM: Xid|mlx5_core|Out of memory|segfault|nfs:\" | tail -n 3'" % (wts(a.end + timedelta(seconds=5)), compress_nodelist(hosts) if len(hosts) > 6 else ",".join(hosts)))
        hk = {}
        for ts, h, txt in a.kernel + [k for aa in J.attempts[:a.idx] for k in aa.kernel]:
            if h in hosts and ts <= a.end + timedelta(seconds=5):
                hk.setdefault(h, []).append((ts, txt))
        for h in hosts:
            if a.agent_signal and h == hosts[a.agent_signal[1]]:
                L.append("%s: ssh: connect to host %s port 22: No route to host" % (h, h))
                continue
            hb = [t for hh, t in a.health if hh == h]
            ngpu = J.gpn - (1 if hb and "device handle" in hb[0] else 0)
            L.append("%s: %d" % (h, ngpu))
            for ts, txt in sorted(hk.get(h, []))[-3:]:
                if re.search(r"NVRM: Xid|mlx5_core|Out of memory|segfault|nfs:", txt):
                    L.append("%s: %s %s" % (h, J.dmesg_T(ts), txt))
        if a.kind == "final":
            if a.idx + 1 >= maxa:
                L.append("[run.sh %s] giving up after %d attempts" % (wts(a.end + timedelta(seconds=30)), a.idx + 1))
            else:
                L.append("[run.sh %s] sleeping 300s before attempt %d/%d" % (wts(a.end + timedelta(seconds=30)), a.idx + 2, maxa))
        else:
            if getattr(a, "replaced", None):
                L.append("[run.sh %s] excluding %s from hostfile (health check / spot reclaim)" % (wts(a.end + timedelta(seconds=40)), a.replaced[0]))
            L.append("[run.sh %s] sleeping %ds before retry" % (wts(a.end + timedelta(seconds=41)), a.sleep_s))
        L.append("")
    files = {"run.log": "\n".join(L) + "\n"}
    files["hostfile"] = "\n".join("%s slots=%d" % (h, J.gpn) for h in J.attempts[-1].hosts) + "\n"
    return files


# =============================================================================================
# layout: torchrun elastic, one console log per host (tee -a across launches)
# =============================================================================================
EL_LINES = {"run": 793, "launcher": 188, "lea": 230, "api_start": 857, "api_rdzv": 677, "api_done": 525, "api_sw": 685,
            "api_fail": 889, "api_stop": 699, "mp_send": 897, "mp_failed": 869, "api_sig": 915, "api_ok": 904, "api_wait": 924}


def el_line(J, a, ts, host, lvl, mod, key, msg):
    pid = a.agent_pid.get(a.hosts.index(host), 1000) if hasattr(a, "agent_pid") else 1000
    if J.tv >= (2, 4):
        return J.glog(ts, host, lvl[0], pid, mod.replace(".", "/") + ".py:%d" % EL_LINES[key]) + msg
    if J.tv >= (2, 2):
        return "[%s] %s: [%s] %s" % (J.pylog(ts, host), mod, lvl, msg)
    return "%s:%s:%s" % (lvl, mod, msg)


def signal_tb(J, agent_pid):
    sp = J.sitepk
    return "\n".join([
        "Traceback (most recent call last):",
        '  File "/usr/local/bin/torchrun", line 8, in <module>',
        "    sys.exit(main())",
        '  File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper' % sp,
        "    return f(*args, **kwargs)",
        '  File "%s/torch/distributed/run.py", line 919, in main' % sp,
        "    run(args)",
        '  File "%s/torch/distributed/run.py", line 910, in run' % sp,
        "    elastic_launch(",
        '  File "%s/torch/distributed/launcher/api.py", line 138, in __call__' % sp,
        "    return launch_agent(self._config, self._entrypoint, list(args))",
        '  File "%s/torch/distributed/launcher/api.py", line 260, in launch_agent' % sp,
        "    result = agent.run()",
        '  File "%s/torch/distributed/elastic/metrics/api.py", line 137, in wrapper' % sp,
        "    result = f(*args, **kwargs)",
        '  File "%s/torch/distributed/elastic/agent/server/api.py", line 696, in run' % sp,
        "    result = self._invoke_run(role)",
        '  File "%s/torch/distributed/elastic/agent/server/api.py", line 855, in _invoke_run' % sp,
        "    time.sleep(monitor_interval)",
        '  File "%s/torch/distributed/elastic/multiprocessing/api.py", line 84, in _terminate_process_handler' % sp,
        '    raise SignalException(f"Process {os.getpid()} got signal: {sigval}", sigval=sigval)',
        "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % agent_pid])


def failure_summary(J, a, host, ni, failed, root, fq=None):
    """ChildFailedError block of torchrun."""
    sp = J.sitepk
    if fq is None:
        fq = host
        for al in J.aliases.get(host, []):
            if "." in al and not re.match(r"^\d+\.", al):
                fq = al
    L = ["Traceback (most recent call last):",
         '  File "/usr/local/bin/torchrun", line 8, in <module>',
         "    sys.exit(main())",
         '  File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper' % sp,
         "    return f(*args, **kwargs)",
         '  File "%s/torch/distributed/run.py", line 919, in main' % sp,
         "    run(args)",
         '  File "%s/torch/distributed/run.py", line 910, in run' % sp,
         "    elastic_launch(",
         '  File "%s/torch/distributed/launcher/api.py", line 138, in __call__' % sp,
         "    return launch_agent(self._config, self._entrypoint, list(args))",
         '  File "%s/torch/distributed/launcher/api.py", line 269, in launch_agent' % sp,
         "    raise ChildFailedError(",
         "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
         "============================================================",
         "%s FAILED" % J.script,
         "------------------------------------------------------------",
         "Failures:"]
    def block(i, rk, ts, code):
        t = J.ptime(ts, host)
        out = ["[%d]:" % i,
               "  time      : %s" % t.strftime("%Y-%m-%d_%H:%M:%S"),
               "  host      : %s" % fq,
               "  rank      : %d (local_rank: %d)" % (rk, rk % J.gpn),
               "  exitcode  : %d (pid: %d)" % (code, J.pid_of(a, rk))]
        if code < 0:
            out += ["  error_file: <N/A>", "  traceback : Signal %d (%s) received by PID %d" % (-code, SIGNAMES.get(-code, "SIG%d" % -code), J.pid_of(a, rk))]
        else:
            exc = exc_last_line(J, a, rk) if J.record else None
            if exc:
                out.append("  error_file: /tmp/torchelastic_%s/%s_%s/attempt_%d/%d/error.json" % (J.el_tmp, J.run_name, J.el_tmp2, a.restart, rk % J.gpn))
                out.append("  traceback : " + exc[0])
                for l in exc[1:][-6:]:
                    out.append("    " + l)
            else:
                out += ["  error_file: <N/A>", "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"]
        return out
    others = [x for x in failed if x[1] != root[1]]
    if not others:
        L.append("  <NO_OTHER_FAILURES>")
    else:
        for i, (ts, rk, code) in enumerate(others, 1):
            L += block(i, rk, ts, code)
    L += ["------------------------------------------------------------", "Root Cause (first observed failure):"]
    L += block(0, root[1], root[0], root[2])
    L.append("============================================================")
    return "\n".join(L)


def render_elastic(J):
    r = J.rng
    files = {}
    launches = {}
    for a in J.attempts:
        launches.setdefault(a.launch, []).append(a)
    info = J.agent_info
    mods = dict(run="torch.distributed.run", launcher="torch.distributed.launcher.api", lea="torch.distributed.elastic.agent.server.local_elastic_agent",
                api="torch.distributed.elastic.agent.server.api", mp="torch.distributed.elastic.multiprocessing.api")
    for host in J.shown_hosts:
        out = []
        for a in J.attempts:
            if host not in a.hosts:
                continue
            J.pid_of(a, 0)
            ni = a.hosts.index(host)
            la = launches[a.launch]
            maxr = len(la) - 1 + (1 if (a.launch == J.attempts[-1].launch and J.healthy) else 0)
            t = a.start - timedelta(seconds=r.uniform(5, 20))
            ev = []
            E = lambda ts, lvl, m, key, msg: ev.append((ts, -2, el_line(J, a, ts, host, lvl, mods[m], key, msg)))
            if a.restart == 0:
                ev.append((t - timedelta(seconds=1), -3, "+ torchrun --nnodes=%d --nproc-per-node=%d --max-restarts=%d --rdzv-backend=c10d --rdzv-endpoint=%s:29400 --rdzv-id=%s --tee 3 %s%s"
                           % (J.nnodes, J.gpn, maxr, a.hosts[0], J.run_name, J.script, " --resume" if a.step0 else "")))
                E(t, "WARNING", "run", "run", "")
                E(t, "WARNING", "run", "run", "*****************************************")
                E(t, "WARNING", "run", "run", "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ")
                E(t, "WARNING", "run", "run", "*****************************************")
                if info:
                    E(t, "INFO", "launcher", "launcher", "Starting elastic_operator with launch configs:\n  entrypoint       : %s\n  min_nodes        : %d\n  max_nodes        : %d\n  nproc_per_node   : %d\n  run_id           : %s\n  rdzv_backend     : c10d\n  rdzv_endpoint    : %s:29400\n  rdzv_configs     : {'timeout': 900}\n  max_restarts     : %d\n  monitor_interval : %s\n  log_dir          : /tmp/torchelastic_%s\n  metrics_cfg      : {}\n"
                      % (J.script, J.nnodes, J.nnodes, J.gpn, J.run_name, a.hosts[0], maxr, "0.1" if J.tv >= (2, 2) else "5", J.el_tmp))
                    E(t, "INFO", "api", "api_start", "[default] starting workers for entrypoint: python")
            else:
                prev = J.attempts[a.idx - 1]
                if info:
                    E(t, "INFO", "api", "api_fail", "[default] Worker group FAILED. %d/%d attempts left; will restart worker group" % (maxr - a.restart + 1, maxr))
                    E(t, "INFO", "api", "api_stop", "[default] Stopping worker group")
            if info:
                E(t + timedelta(seconds=0.1), "INFO", "api", "api_rdzv", "[default] Rendezvous'ing worker group")
                gr = list(range(ni * J.gpn, (ni + 1) * J.gpn))
                E(t + timedelta(seconds=r.uniform(2, 40)), "INFO", "api", "api_done",
                  "[default] Rendezvous complete for workers. Result:\n  restart_count=%d\n  master_addr=%s\n  master_port=%d\n  group_rank=%d\n  group_world_size=%d\n  local_ranks=%s\n  role_ranks=%s\n  global_ranks=%s\n  role_world_sizes=%s\n  global_world_sizes=%s\n"
                  % (a.restart, a.hosts[0], r.randint(30000, 60000), ni, J.nnodes, list(range(J.gpn)), gr, gr, [J.world] * J.gpn, [J.world] * J.gpn))
                E(t + timedelta(seconds=41), "INFO", "api", "api_sw", "[default] Starting worker group")
            # spot watcher (preemption)
            if a.agent_signal and a.agent_signal[1] == ni:
                ev.append((a.preempt_notice, -1, "[spot-watch] %s instance-action: {\"action\": \"terminate\", \"time\": \"%s\"}" % (a.preempt_notice.strftime("%Y-%m-%dT%H:%M:%SZ"), a.agent_signal[0].strftime("%Y-%m-%dT%H:%M:%SZ"))))
            # worker output
            for ts, seq, st, text in sorted_events(a, lambda s: s[0] == "r"):
                rk = st[1]
                if rk // J.gpn != ni:
                    continue
                pre = "[default%d]:" % (rk % J.gpn)
                ev.append((ts, seq, "\n".join(pre + line for line in text.split("\n"))))
            # agent reaction
            local = sorted((v[0], rk, v[1]) for rk, v in a.exits.items() if rk // J.gpn == ni)
            if a.success:
                tt = max(x[0] for x in local)
                if info:
                    E(tt + timedelta(seconds=0.5), "INFO", "api", "api_ok", "[default] worker group successfully finished. Waiting 300 seconds for other agents to finish.")
                    E(tt + timedelta(seconds=0.6), "INFO", "api", "api_wait", "Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish")
                    E(tt + timedelta(seconds=r.uniform(1, 9)), "INFO", "api", "api_wait", "Done waiting for other agents. Elapsed: %.10f seconds" % r.uniform(0.5, 8))
            elif a.agent_signal and a.agent_signal[1] == ni:
                ts0 = a.agent_signal[0]
                E(ts0, "WARNING", "api", "api_sig", "Received Signals.SIGTERM death signal, shutting down workers")
                for ts, rk, code in sorted(local, key=lambda x: x[1]):
                    E(ts0 + timedelta(seconds=0.01), "WARNING", "mp", "mp_send", "Sending process %d closing signal SIGTERM" % J.pid_of(a, rk))
                ev.append((ts0 + timedelta(seconds=2), 10 ** 6, signal_tb(J, a.agent_pid[ni])))
            elif getattr(a, "user_cancel", None):
                ts0 = a.user_cancel
                E(ts0, "WARNING", "api", "api_sig", "Received Signals.SIGTERM death signal, shutting down workers")
                for ts, rk, code in sorted(local, key=lambda x: x[1]):
                    E(ts0 + timedelta(seconds=0.01), "WARNING", "mp", "mp_send", "Sending process %d closing signal SIGTERM" % J.pid_of(a, rk))
            else:
                bad = [x for x in local if x[2] != -15]
                if bad:
                    first = bad[0]
                    failed = [x for x in bad if x[0] <= first[0] + timedelta(seconds=2.0)]
                    tt = first[0] + timedelta(seconds=0.05)
                    for ts, rk, code in failed:
                        E(tt, "ERROR", "mp", "mp_failed", "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (code, rk % J.gpn, J.pid_of(a, rk), "/usr/bin/python" if J.sitepk.startswith("/usr") else "/opt/conda/bin/python"))
                    for ts, rk, code in sorted(local, key=lambda x: x[1]):
                        if (ts, rk, code) not in failed:
                            E(tt + timedelta(seconds=0.01), "WARNING", "mp", "mp_send", "Sending process %d closing signal SIGTERM" % J.pid_of(a, rk))
                    last_in_launch = a is la[-1]
                    if last_in_launch:
                        ev.append((tt + timedelta(seconds=r.uniform(1, 30)), 10 ** 6, failure_summary(J, a, host, ni, failed, first)))
                else:
                    # this node's workers were stopped because the rendezvous/others failed
                    tt = local[0][0] if local else a.end
                    for ts, rk, code in local:
                        E(tt + timedelta(seconds=0.01), "WARNING", "mp", "mp_send", "Sending process %d closing signal SIGTERM" % J.pid_of(a, rk))
            ev.sort(key=lambda e: (e[0], e[1]))
            out += [x[2] for x in ev]
        files["logs/%s.log" % host] = "\n".join(out) + "\n"
    # dmesg attachments
    fin = J.attempts[-1]
    kh = sorted(set(h for a in J.attempts for _, h, _ in a.kernel), key=lambda h: J.pool.index(h))
    for h in kh:
        final_has = any(hh == h for _, hh, _ in fin.kernel)
        if (final_has and r.random() < 0.75) or (not final_has and r.random() < 0.45):
            files["dmesg-%s.txt" % h] = dmesg_text(J, h)
    return files


# =============================================================================================
# layout: Kubernetes PyTorchJob, container restarts (kubectl logs / --previous / describe / events)
# =============================================================================================
def k8s_time(t):
    return "%s, %02d %s %d %s +0000" % (WEEKDAYS[t.weekday()], t.day, MONTHS[t.month - 1], t.year, t.strftime("%H:%M:%S"))


def k8s_age(now, t):
    s = (now - t).total_seconds()
    if s < 120:
        return "%ds" % s
    if s < 3600 * 2:
        return "%dm" % (s // 60)
    if s < 86400 * 2:
        return "%dh" % (s // 3600)
    return "%dd" % (s // 86400)


def k8s_pod_log(J, a, i):
    r = J.rng
    node = a.hosts[i]
    pod = J.pod_names[i]
    J.pid_of(a, 0)
    ev = []
    mods = dict(run="torch.distributed.run", api="torch.distributed.elastic.agent.server.api", mp="torch.distributed.elastic.multiprocessing.api")
    E = lambda ts, lvl, m, key, msg: ev.append((ts, -2, el_line(J, a, ts, node, lvl, mods[m], key, msg)))
    t = a.start - timedelta(seconds=r.uniform(3, 10))
    E(t, "WARNING", "run", "run", "")
    E(t, "WARNING", "run", "run", "*****************************************")
    E(t, "WARNING", "run", "run", "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ")
    E(t, "WARNING", "run", "run", "*****************************************")
    for ts, seq, st, text in sorted_events(a, lambda s: s[0] == "r"):
        if st[1] // J.gpn == i:
            ev.append((ts, seq, text))
    local = sorted((v[0], rk, v[1]) for rk, v in a.exits.items() if rk // J.gpn == i)
    if a.agent_signal and a.agent_signal[1] == i:
        ts0 = a.agent_signal[0]
        E(ts0, "WARNING", "api", "api_sig", "Received Signals.SIGTERM death signal, shutting down workers")
        for ts, rk, code in sorted(local, key=lambda x: x[1]):
            E(ts0 + timedelta(seconds=0.01), "WARNING", "mp", "mp_send", "Sending process %d closing signal SIGTERM" % J.pid_of(a, rk))
        ev.append((ts0 + timedelta(seconds=2), 10 ** 6, signal_tb(J, a.agent_pid[i])))
        a_code = 143
    elif getattr(a, "user_cancel", None):
        E(a.user_cancel, "WARNING", "api", "api_sig", "Received Signals.SIGTERM death signal, shutting down workers")
        a_code = 143
    elif a.success:
        a_code = 0
    else:
        bad = [x for x in local if x[2] != -15]
        a_code = 1
        if bad:
            first = bad[0]
            failed = [x for x in bad if x[0] <= first[0] + timedelta(seconds=2.0)]
            tt = first[0] + timedelta(seconds=0.05)
            for ts, rk, code in failed:
                E(tt, "ERROR", "mp", "mp_failed", "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (code, rk % J.gpn, J.pid_of(a, rk), "/usr/bin/python"))
            for x in sorted(local, key=lambda x: x[1]):
                if x not in failed:
                    E(tt + timedelta(seconds=0.01), "WARNING", "mp", "mp_send", "Sending process %d closing signal SIGTERM" % J.pid_of(a, x[1]))
            ev.append((tt + timedelta(seconds=r.uniform(1, 5)), 10 ** 6, failure_summary(J, a, node, i, failed, first, fq=pod)))
    ev.sort(key=lambda e: (e[0], e[1]))
    end = max([x[0] for x in local] + [a.start]) + timedelta(seconds=r.uniform(2, 8))
    return "\n".join(x[2] for x in ev) + "\n", a_code, end


def render_k8s(J):
    r = J.rng
    files = {}
    ns, job = J.k8s_ns, J.k8s_job
    fin = J.attempts[-1]
    # container incarnations per pod
    inc = {}
    for i in range(J.nnodes):
        hist = []
        for a in J.attempts:
            if hist and hist[-1][0] == a.hosts[i]:
                hist[-1][1].append(a)
            else:
                hist.append((a.hosts[i], [a]))
        inc[i] = hist
    logs = {}
    for a in J.attempts[-2:]:
        for i in range(J.nnodes):
            logs[(a.idx, i)] = k8s_pod_log(J, a, i)
    now = max(v[2] for k, v in logs.items() if k[0] == fin.idx) + timedelta(minutes=r.uniform(4, 50))
    reason_of = {}
    for i in J.shown_pods:
        pod = J.pod_names[i]
        txt, code, end = logs[(fin.idx, i)]
        files["pods/%s.log" % pod] = "$ kubectl logs -n %s %s\n" % (ns, pod) + txt
        node, atts = inc[i][-1]
        if len(atts) >= 2 and (fin.idx - 1, i) in logs:
            files["pods/%s.previous.log" % pod] = "$ kubectl logs -n %s %s --previous\n" % (ns, pod) + logs[(fin.idx - 1, i)][0]
        else:
            files["pods/%s.previous.log" % pod] = "$ kubectl logs -n %s %s --previous\nError from server (BadRequest): previous terminated container \"pytorch\" in pod \"%s\" not found\n" % (ns, pod, pod)
    # kubectl get pods -o wide
    nw = max(len(h) for h in fin.hosts) + 1
    rows = ["%-*s READY   STATUS      RESTARTS        AGE   IP            %-*s NOMINATED NODE   READINESS GATES" % (len(J.pod_names[-1]) + 1, "NAME", nw, "NODE")]
    for i in range(J.nnodes):
        node, atts = inc[i][-1]
        txt, code, end = logs[(fin.idx, i)]
        restarts = len(atts) - 1
        st = "Completed" if code == 0 else "Error"
        if J.cause == "preemption" and fin.agent_signal and fin.agent_signal[1] == i:
            st = "Terminated"
        age = k8s_age(now, atts[0].start)
        rs = "%d (%s ago)" % (restarts, k8s_age(now, atts[-1].start)) if restarts else "0"
        rows.append("%-*s 0/1     %-11s %-15s %-5s %-13s %-*s <none>           <none>" % (len(J.pod_names[-1]) + 1, J.pod_names[i], st, rs, age, J.pod_ip[J.pod_names[i]], nw, node))
    files["get-pods-wide.txt"] = "$ kubectl get pods -n %s -l training.kubeflow.org/job-name=%s -o wide\n" % (ns, job) + "\n".join(rows) + "\n"
    # describe for master + final culprit pod (+ maybe one more)
    dpods = [0]
    if fin.culprit_node is not None and fin.culprit_node in J.shown_pods and fin.culprit_node not in dpods:
        dpods.append(fin.culprit_node)
    if J.nnodes > 2 and r.random() < 0.5:
        x = r.choice([i for i in J.shown_pods])
        if x not in dpods:
            dpods.append(x)
    for i in dpods:
        files["describe-%s.txt" % J.pod_names[i]] = k8s_describe(J, i, inc, logs, now)
    files["events.txt"] = k8s_events(J, inc, logs, now)
    kh = sorted(set(h for _, h, _ in fin.kernel), key=lambda h: J.pool.index(h))
    for h in kh:
        if r.random() < 0.6:
            files["node-%s-dmesg.txt" % h] = "$ kubectl debug node/%s -it --image=ubuntu -- chroot /host dmesg -T | tail -n 100\n" % h + dmesg_text(J, h)
    return files


def k8s_describe(J, i, inc, logs, now):
    r = J.rng
    fin = J.attempts[-1]
    pod = J.pod_names[i]
    node, atts = inc[i][-1]
    txt, code, end = logs[(fin.idx, i)]
    rtype = "master" if i == 0 else "worker"
    idx = 0 if i == 0 else i - 1
    status = "Succeeded" if code == 0 else "Failed"
    L = ["Name:             %s" % pod, "Namespace:        %s" % J.k8s_ns, "Priority:         %d" % r.choice([0, 1000]),
         "Service Account:  default", "Node:             %s/%s" % (node, J.ip[node]),
         "Start Time:       %s" % k8s_time(atts[0].start - timedelta(seconds=40)),
         "Labels:           training.kubeflow.org/job-name=%s" % J.k8s_job,
         "                  training.kubeflow.org/operator-name=pytorchjob-controller",
         "                  training.kubeflow.org/replica-index=%d" % idx,
         "                  training.kubeflow.org/replica-type=%s" % rtype,
         "Annotations:      <none>", "Status:           %s" % status]
    if J.cause == "preemption" and fin.agent_signal and fin.agent_signal[1] == i:
        L += ["Reason:           Terminated", "Message:          Pod was terminated in response to imminent node shutdown."]
    L += ["IP:               %s" % J.pod_ip[pod], "Controlled By:    PyTorchJob/%s" % J.k8s_job, "Containers:", "  pytorch:",
          "    Container ID:  containerd://%064x" % r.getrandbits(256),
          "    Image:         nvcr.io/nvidia/pytorch:%s-py3" % {(2, 1): "23.10", (2, 2): "24.01", (2, 3): "24.04", (2, 4): "24.07", (2, 5): "24.10", (2, 6): "25.01", (2, 7): "25.04", (2, 8): "25.06"}[J.tv],
          "    Port:          23456/TCP", "    Command:", "      torchrun", "    Args:",
          "      --nnodes=%d" % J.nnodes, "      --nproc-per-node=%d" % J.gpn, "      --max-restarts=0", "      %s" % J.script]
    def term(reason, code_, st, fi):
        return ["      Reason:       %s" % reason, "      Exit Code:    %d" % code_, "      Started:      %s" % k8s_time(st), "      Finished:     %s" % k8s_time(fi)]
    reason = "Completed" if code == 0 else "Error"
    L += ["    State:          Terminated"] + term(reason, code, atts[-1].start - timedelta(seconds=5), end)
    if len(atts) >= 2:
        pa = atts[-2]
        ptxt, pcode, pend = logs.get((pa.idx, i), (None, 1, pa.end))
        L += ["    Last State:     Terminated"] + term("Completed" if pcode == 0 else "Error", pcode, pa.start - timedelta(seconds=5), pend)
    L += ["    Ready:          False", "    Restart Count:  %d" % (len(atts) - 1),
          "    Limits:", "      nvidia.com/gpu:  %d" % J.gpn, "      rdma/ib:         %d" % J.gpn,
          "    Requests:", "      cpu:             %d" % r.choice([96, 180, 200]), "      memory:          %dGi" % r.choice([1200, 1600, 1800]), "      nvidia.com/gpu:  %d" % J.gpn,
          "    Environment:", "      NCCL_DEBUG:                      %s" % J.nccl_debug, "      TORCH_NCCL_ASYNC_ERROR_HANDLING: 1",
          "      PET_NNODES:                      %d" % J.nnodes, "      PET_NODE_RANK:                   %d" % i, "      MASTER_ADDR:                     %s" % J.pod_names[0]]
    if J.desync_debug:
        L.append("      TORCH_NCCL_DESYNC_DEBUG:         1")
    L += ["Conditions:", "  Type              Status", "  Initialized       True ", "  Ready             False ", "  ContainersReady   False ", "  PodScheduled      True ",
          "QoS Class:                   Burstable", "Tolerations:                 nvidia.com/gpu:NoSchedule op=Exists", "Events:"]
    evs = [e for e in k8s_event_list(J, inc, logs, now) if e[3] == "pod/%s" % pod]
    if not evs:
        L.append("  <none>")
    else:
        L += ["  Type     Reason     Age                From     Message", "  ----     ------     ----               ----     -------"]
        for t, typ, reason_, obj, src, msg in evs:
            L.append("  %-8s %-10s %-18s %-8s %s" % (typ, reason_, k8s_age(now, t), src, msg))
    return "\n".join(L) + "\n"


def k8s_event_list(J, inc, logs, now):
    """events still retained (default event TTL is 1h)."""
    if hasattr(J, "_k8s_events"):
        return J._k8s_events
    r = J.rng
    fin = J.attempts[-1]
    ev = []
    for a in J.attempts[-2:]:
        for i in range(J.nnodes):
            if (a.idx, i) not in logs:
                continue
            pod = J.pod_names[i]
            txt, code, end = logs[(a.idx, i)]
            if a.idx > 0:
                ev.append((a.start - timedelta(seconds=6), "Normal", "Pulled", "pod/%s" % pod, "kubelet", "Container image \"nvcr.io/nvidia/pytorch\" already present on machine"))
                ev.append((a.start - timedelta(seconds=5), "Normal", "Created", "pod/%s" % pod, "kubelet", "Created container pytorch"))
                ev.append((a.start - timedelta(seconds=5), "Normal", "Started", "pod/%s" % pod, "kubelet", "Started container pytorch"))
            if code not in (0,) and a is not fin:
                ev.append((end + timedelta(seconds=2), "Warning", "BackOff", "pod/%s" % pod, "kubelet", "Back-off restarting failed container pytorch in pod %s_%s(%08x-%04x)" % (pod, J.k8s_ns, r.getrandbits(32), r.getrandbits(16))))
        if a.agent_signal:
            pi = a.agent_signal[1]
            ev.append((a.agent_signal[0], "Normal", "Killing", "pod/%s" % J.pod_names[pi], "kubelet", "Stopping container pytorch"))
            ev.append((a.agent_signal[0] + timedelta(seconds=r.uniform(40, 90)), "Normal", "NodeNotReady", "node/%s" % a.hosts[pi], "node-controller", "Node %s status is now: NodeNotReady" % a.hosts[pi]))
        if getattr(a, "oom_event", False) and a.culprit is not None:
            kt = [k for k in a.kernel if "Killed process" in k[2]]
            if kt:
                ev.append((kt[0][0], "Warning", "OOMKilling", "node/%s" % a.hosts[a.culprit_node], "kernel-monitor", kt[0][2]))
        if a is not fin and a.kind != "old_transient":
            ev.append((a.end + timedelta(seconds=3), "Normal", "PyTorchJobRestarting", "pytorchjob/%s" % J.k8s_job, "pytorchjob-controller", "PyTorchJob %s is restarting because %d %s replica(s) failed." % (J.k8s_job, 1, "Worker" if (a.culprit_node or 0) > 0 else "Master")))
    if not fin.success:
        ev.append((fin.end + timedelta(seconds=4), "Warning", "PyTorchJobFailed", "pytorchjob/%s" % J.k8s_job, "pytorchjob-controller", "PyTorchJob %s is failed because %d %s replica(s) failed." % (J.k8s_job, 1, "Worker" if (fin.culprit_node or 0) > 0 else "Master")))
    else:
        ev.append((fin.end + timedelta(seconds=4), "Normal", "PyTorchJobSucceeded", "pytorchjob/%s" % J.k8s_job, "pytorchjob-controller", "PyTorchJob %s is successfully completed." % J.k8s_job))
    ev = [e for e in ev if (now - e[0]).total_seconds() <= 3600 * r.choice([1, 1, 3])]
    ev.sort(key=lambda e: e[0])
    J._k8s_events = ev
    return ev


def k8s_events(J, inc, logs, now):
    ev = k8s_event_list(J, inc, logs, now)
    L = ["$ kubectl get events -n %s --sort-by=.lastTimestamp" % J.k8s_ns, "%-10s %-8s %-22s %-45s %s" % ("LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE")]
    for t, typ, reason, obj, src, msg in ev:
        L.append("%-10s %-8s %-22s %-45s %s" % (k8s_age(now, t), typ, reason, obj, msg))
    if len(L) == 2:
        L.append("No resources found in %s namespace." % J.k8s_ns)
    return "\n".join(L) + "\n"


# =============================================================================================
# extras, truth, driver
# =============================================================================================
def py_spy_file(J, a):
    r = J.rng
    cul = a.culprit
    ni = cul // J.gpn
    host = J.nccl_host(a, ni)
    sp = J.sitepk
    L = ["# py-spy dump --locals for every training process on %s, taken %s while the job was stuck" % (host, J.date_cmd(a.t0 + timedelta(seconds=r.uniform(120, J.timeout_ms / 1000.0 * 0.8))))]
    for l in range(J.gpn):
        rk = ni * J.gpn + l
        pid = J.pid_of(a, rk)
        L += ["", "Process %d: /usr/bin/python -u %s" % (pid, J.script), "Python v%s.%d (/usr/bin/python%s)" % (J.pyver, r.randint(4, 14), J.pyver), ""]
        L.append('Thread %d (idle): "MainThread"' % pid)
        if rk == cul:
            stuck = {"nfs_write": [("write", "%s/utils/metrics.py" % os.path.dirname(J.script), 88), ("flush_metrics", "%s/utils/metrics.py" % os.path.dirname(J.script), 71)],
                     "deadlock": [("acquire", "%s/filelock/_api.py" % sp, 332), ("__enter__", "%s/filelock/_api.py" % sp, 376), ("maybe_download", "%s/data/cache.py" % os.path.dirname(J.script), 52)],
                     "cuda_sync": [("synchronize", "%s/torch/cuda/__init__.py" % sp, 954), ("log_memory", "%s/utils/profiling.py" % os.path.dirname(J.script), 33)]}.get(a.variant or "deadlock")
            for fn, f, ln in stuck:
                L.append("    %s (%s:%d)" % (fn, f, ln))
        else:
            L.append("    wait (%s/torch/distributed/distributed_c10d.py:%d)" % (sp, 2501))
            L.append("    all_reduce (%s/torch/distributed/distributed_c10d.py:%d)" % (sp, 2501))
        L.append("    train_step (%s:%d)" % (J.script, 431))
        L += ["        Arguments:", "            model: <DistributedDataParallel at 0x7f%010x>" % r.getrandbits(36), "        Locals:", "            rank: %d" % rk, "            step: %d" % (a.last_step + 1)]
        L.append("    train (%s:%d)" % (J.script, 688))
        L.append("    <module> (%s:%d)" % (J.script, 702))
    return "\n".join(L) + "\n"


def plan_misc(J):
    r = J.rng
    y = J.attempts[0].start.year + (J.attempts[0].start.month - 1) / 12.0
    if y < 2024.25:
        J.driver = r.choice(["535.104.12", "535.129.03", "535.154.05"])
    elif y < 2025.0:
        J.driver = r.choice(["535.161.08", "535.183.01", "550.54.15", "550.90.07"])
    else:
        J.driver = r.choice(["550.127.05", "550.144.03", "560.35.03", "570.124.06", "570.133.20"])
    J.uid = r.randint(1001, 60000)
    J.coll_op = r.choice(["ALLREDUCE", "ALLREDUCE", "_REDUCE_SCATTER_BASE", "_ALLGATHER_BASE"])
    J.coll_numel = r.choice([6553600, 13107200, 26214400, 1048576, 262144000, 544997376, 68124672])
    J.cps = r.choice([3, 8, 12, 48, 160])
    J.seq_base = r.randint(5, 40)
    J.agent_info = r.random() < 0.7
    J.partition = r.choice(["gpu", "batch", "h100", "a100-long", "train"])
    J.slurm_new = r.random() < 0.6
    J.data_blacklist_file = lambda: "/data/tokenized/blacklist.txt"
    J.record = r.random() < 0.6
    J.el_tmp = "".join(r.choice("abcdefghijklmnopqrstuvwxyz0123456789_") for _ in range(8))
    J.el_tmp2 = "".join(r.choice("abcdefghijklmnopqrstuvwxyz0123456789_") for _ in range(8))


def compute_truth(J):
    fin = J.attempts[-1]
    c = J.cause
    W = J.world
    if J.healthy:
        rank = node = None
        inf = False
    else:
        rank = fin.culprit if c not in ("preemption", "unknown") else None
        if c == "network" and fin.variant == "fabric":
            rank = None
        node = fin.hosts[fin.culprit_node] if (fin.culprit_node is not None and not (c == "network" and fin.variant == "fabric")) else None
        if c in ("unknown",):
            node = None
        vis = rank is not None and rank in fin.vis_set
        if rank is None:
            inf = False
        elif c == "hang":
            inf = bool(getattr(fin, "desync_shown", False)) or (fin.py_spy is not None) or len(fin.vis) == W
        elif c == "data_loader_stall" and fin.variant == "nfs":
            inf = vis
        elif c == "collective_mismatch" and fin.variant == "detail":
            inf = len(fin.vis) > 0
        elif c == "straggler":
            inf = J.framework in ("megatron", "custom") or vis
        elif c == "host_oom_kill":
            inf = (rank // J.gpn) in set(x // J.gpn for x in fin.vis)
        else:
            inf = vis
    drain = (c in ("gpu_hardware", "ecc_memory", "nvlink")) or (c == "network" and node is not None)
    aliases = []
    if node is not None:
        aliases = list(J.aliases.get(node, []))
        if J.layout == "k8s-restarts":
            aliases.append(J.pod_names[fin.culprit_node])
    return {"cause": c, "healthy": J.healthy, "rank": rank, "node": node, "drain": bool(drain),
            "rank_inferable": bool(inf), "node_aliases": aliases, "layout": J.layout}


def describe_notes(J, truth):
    parts = ["world size %d (%d node(s) x %d GPU %s), torch %s / NCCL %s, framework %s, NCCL_DEBUG=%s%s, %d attempts" % (
        J.world, J.nnodes, J.gpn, J.gpu, J.torch_full, J.nccl, J.framework, J.nccl_debug, ", desync debug on" if J.desync_debug else "", len(J.attempts))]
    for a in J.attempts:
        if a.kind == "final":
            continue
        who = ""
        if a.culprit is not None:
            who = " rank %d on %s" % (a.culprit, a.hosts[a.culprit // J.gpn])
        elif a.culprit_node is not None:
            who = " on %s" % a.hosts[a.culprit_node]
        extra = ""
        if getattr(a, "replaced", None):
            extra = " -> %s replaced by %s" % a.replaced
        parts.append("attempt %d (steps %d-%d): handled %s%s%s" % (a.idx + 1, a.step0, a.last_step, a.kind, who, extra))
    fin = J.attempts[-1]
    if J.healthy:
        parts.append("final attempt %d completes (steps %d-%d) despite warnings" % (fin.idx + 1, fin.step0, fin.last_step))
    else:
        parts.append("final attempt %d: %s%s at rank %s node %s" % (fin.idx + 1, J.cause, (" (" + fin.variant + ")") if fin.variant else "", truth["rank"], truth["node"]))
    if J.decoys:
        parts.append("decoys: " + "; ".join(J.decoys))
    parts.append("clock skew decoy host %s; proc clock UTC%+d vs local %s" % (J.skewed_host, J.proc_off, J.tz_name))
    return ". ".join(parts)


RENDER = {"elastic-hostlogs": render_elastic, "slurm-requeue": render_slurm_requeue, "slurm-onefile": render_slurm_onefile,
          "k8s-restarts": render_k8s, "ds-wrapper": render_ds_wrapper}


def build_run(seed, idx, layout, cause):
    J = Job(seed, idx, layout, cause)
    plan_misc(J)
    plan_culprits(J)
    plan_visibility(J)
    for a in J.attempts:
        emit_attempt(J, a)
    add_kernel_decoys(J)
    files = RENDER[layout](J)
    fin = J.attempts[-1]
    if fin.py_spy is not None:
        files["py-spy-%s.txt" % J.nccl_host(fin, fin.culprit // J.gpn)] = py_spy_file(J, fin)
    truth = compute_truth(J)
    truth["notes"] = describe_notes(J, truth)
    return files, truth


def plan_runs(seed, n):
    rng = random.Random("blind26-plan|%s" % seed)
    order = list(CAUSES)
    rng.shuffle(order)
    lays = []
    while len(lays) < n:
        blk = list(LAYOUTS)
        rng.shuffle(blk)
        lays += blk
    plan = []
    k = 0
    for i in range(n):
        if i % 7 == 3:
            c = None
        else:
            c = order[k % len(order)]
            k += 1
        plan.append((i, lays[i], c))
    return plan


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    counts = {"healthy": 0}
    for c in CAUSES:
        counts[c] = 0
    for i, layout, cause in plan_runs(args.seed, args.n):
        files, truth = build_run(args.seed, i, layout, cause)
        d = os.path.join(args.out, "run-%03d-%s" % (i, layout))
        os.makedirs(d, exist_ok=True)
        for name in sorted(files):
            p = os.path.join(d, name)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w", encoding="utf-8") as f:
                f.write(files[name])
        with open(os.path.join(d, "truth.json"), "w", encoding="utf-8") as f:
            json.dump(truth, f, indent=2)
            f.write("\n")
        counts["healthy" if cause is None else cause] += 1
    print(json.dumps(counts))


if __name__ == "__main__":
    main()
