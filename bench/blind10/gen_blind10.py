#!/usr/bin/env python3
"""gen_blind10.py - synthetic failure-log generator (blind set 10).

Layouts: Kubeflow MPIJob read with `kubectl logs --timestamps`, Volcano/Run:ai
jobs read with `kubectl logs --prefix` plus `kubectl get events -o wide`,
SkyPilot multi-node run.log, Determined AI trial logs, DeepSpeed pdsh launcher
with per-host output.

Usage: python3 gen_blind10.py --out DIR --n 60 --seed S
Standard library only; same --seed/--n give identical bytes.
"""
import argparse
import base64
import json
import os
import random
from datetime import datetime, timedelta, timezone

CAUSES = [
    "gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
    "illegal_memory_access", "python_exception", "host_oom_kill",
    "crash_signal", "preemption", "hang", "data_loader_stall",
    "collective_mismatch", "straggler", "unknown",
]
DRAIN_CAUSES = {"gpu_hardware", "ecc_memory", "nvlink", "network"}
LAYOUTS = ["kf_mpijob", "volcano_prefix", "skypilot_runlog",
           "determined_trial", "deepspeed_pdsh"]
# every layout here can express every cause (kernel logs are attached
# the way people attach them: `kubectl debug node`, ssh + dmesg, journalctl)
CAN = {lay: set(CAUSES) for lay in LAYOUTS}

H100_BUS = ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"]
A100_BUS = ["07", "0f", "47", "4e", "87", "90", "b7", "bd"]
TZS = [(0, 0), (-7, 0), (-5, 0), (1, 0), (8, 0), (5, 30), (9, 0), (-4, 0), (2, 0)]
NCCL_VERS = ["2.18.6", "2.19.3", "2.20.5", "2.21.5", "2.23.4", "2.26.2", "2.27.3"]


def hexs(rng, n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def alnum(rng, n):
    return "".join(rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(n))


def ns9(t):
    return "%06d%03d" % (t.microsecond, (t.microsecond * 7 + t.second) % 1000)


def rfc3339nano(t):
    u = t.astimezone(timezone.utc)
    return u.strftime("%Y-%m-%dT%H:%M:%S.") + ns9(u) + "Z"


class Node:
    def __init__(self, idx):
        self.idx = idx
        self.host = ""      # name the training / launcher logs use
        self.short = ""     # kernel-log hostname
        self.fqdn = ""
        self.ip = ""
        self.pod = None     # pod name (k8s layouts)
        self.k8s = None     # k8s node name
        self.label = None   # skypilot label head/workerN
        self.cid = None     # determined container id
        self.truth = ""     # spelling used in truth.json


class Job:
    def __init__(self, rng, layout, cause, idx):
        self.rng = rng
        self.layout = layout
        self.cause = cause
        self.idx = idx
        self.ev = []
        self.n = 0
        self.notes = []
        self.decoys = []
        self.flag_seen = False

    # ------------------------------------------------------------ events
    def add(self, t, kind, who, text, stream="err", flag=False):
        """kind: rank|agent|kern|sched|launcher; who: rank or node index."""
        for ln in text.split("\n"):
            self.ev.append((t, self.n, kind, who, stream, ln, flag))
            self.n += 1

    def node_of(self, r):
        return r // self.gpn

    def local(self, r):
        return r % self.gpn

    def lt(self, t):
        return t.astimezone(self.tz)

    def hpid(self, r):
        """pid as the host kernel sees it (differs inside containers)"""
        return self.pids[r] + self.pidns_off


# ---------------------------------------------------------------- naming
def make_nodes(job):
    rng = job.rng
    lay = job.layout
    nodes = [Node(i) for i in range(job.nnodes)]
    subnet = rng.choice(["10.0", "10.42", "172.31", "10.128", "192.168", "10.20"])
    third = rng.randint(0, 40)
    ips = []
    used = set()
    for i in range(job.nnodes):
        while True:
            ip = "%s.%d.%d" % (subnet, third + (i // 200), rng.randint(2, 250))
            if ip not in used:
                used.add(ip)
                break
        ips.append(ip)
    style = rng.choice(["gpu-node", "dgx", "hgx", "a3", "nodeNN", "rack"])
    base = rng.randint(1, 60)
    domain = rng.choice(["cluster.local", "hpc.example.net", "ml.corp.internal",
                         "c.train-prod.internal", "ec2.internal", "lab.example.org"])

    def phys(i):
        k = base + i
        if style == "gpu-node":
            return "gpu-node-%03d" % k
        if style == "dgx":
            return "dgx-%s%02d" % (rng.choice("abcd"), k % 100)
        if style == "hgx":
            return "hgx-r%02d-u%02d" % (k // 4 + 1, (k % 4) * 4 + 3)
        if style == "a3":
            return "a3-highgpu-8g-%d" % k
        if style == "nodeNN":
            return "node%d" % k
        return "rk%02d-gpu%02d" % (k // 8 + 1, k % 8 + 1)

    job.jobname = rng.choice(["llama-ft", "gpt-pretrain", "moe-sft", "vit-h14", "t5-xl",
                              "mixtral-dpo", "bert-mlm", "diffusion-xl", "llm-70b"]) + "-" + alnum(rng, 4)
    job.ns = rng.choice(["ml-train", "team-nlp", "research", "runai-team-a", "default", "llm"])
    for i, nd in enumerate(nodes):
        nd.ip = ips[i]
        if lay in ("kf_mpijob", "volcano_prefix"):
            kst = rng.choice(["gke", "plain", "eks"]) if i == 0 else job._kst
            job._kst = kst
            if kst == "gke":
                if i == 0:
                    job._pool = "gke-%s-a3-pool-%s" % (rng.choice(["prod", "train", "ml"]), hexs(rng, 8))
                nd.k8s = "%s-%s" % (job._pool, alnum(rng, 4))
                nd.short = nd.k8s
                nd.fqdn = nd.k8s + ".c.train-prod.internal"
            elif kst == "eks":
                nd.k8s = "ip-%s.ec2.internal" % nd.ip.replace(".", "-")
                nd.short = "ip-" + nd.ip.replace(".", "-")
                nd.fqdn = nd.k8s
            else:
                nd.k8s = phys(i)
                nd.short = nd.k8s
                nd.fqdn = nd.k8s + "." + domain
            if lay == "kf_mpijob":
                nd.pod = "%s-worker-%d" % (job.jobname, i)
            else:
                if job.volc_master and i == 0:
                    nd.pod = "%s-master-0" % job.jobname
                else:
                    nd.pod = "%s-worker-%d" % (job.jobname, i - (1 if job.volc_master else 0))
            nd.host = nd.pod
            nd.truth = nd.k8s
        elif lay == "skypilot_runlog":
            cloud = job.sky_cloud
            if cloud == "aws":
                nd.short = "ip-" + nd.ip.replace(".", "-")
                nd.fqdn = nd.short + ".ec2.internal"
            elif cloud == "gcp":
                nd.short = "%s-%s-%s-%s-compute" % (job.jobname, job._skyh, "head" if i == 0 else "worker", alnum(rng, 5))
                nd.fqdn = nd.short + ".us-central1-a.c.sky-proj.internal"
            else:
                nd.short = "%s-%s-%s" % (job.jobname, job._skyh, "head" if i == 0 else "worker%d" % i)
                nd.fqdn = nd.short + ".default.svc.cluster.local"
            nd.host = nd.short
            nd.label = "head" if i == 0 else "worker%d" % i
            nd.truth = nd.short
        elif lay == "determined_trial":
            nd.short = phys(i)
            nd.fqdn = nd.short + "." + domain
            nd.host = nd.short
            nd.cid = hexs(rng, 8)
            nd.truth = nd.short
        else:  # deepspeed_pdsh
            nd.short = phys(i)
            nd.fqdn = nd.short + "." + domain
            nd.host = nd.ip if job.ds_ip_hostfile else nd.short
            nd.truth = nd.host
    return nodes


def aliases(job, nd):
    out = []
    for a in (nd.host, nd.short, nd.fqdn, nd.ip, nd.pod, nd.k8s,
              (job.sky_name + "-" + nd.label) if nd.label and nd.label != "head" else (job.sky_name if nd.label else None),
              nd.label):
        if a and a != nd.truth and a not in out:
            out.append(a)
    return out


# ------------------------------------------------------------ torch lines
def glog(job, r, t, lvl="E", ln=None):
    t = job.lt(t)
    if ln is None:
        ln = job.pg_line
    if job.era == "2.5":
        return "[rank%d]:[%s%s %s.%s ProcessGroupNCCL.cpp:%d] " % (
            r, lvl, t.strftime("%m%d"), t.strftime("%H:%M:%S"), ns9(t), ln)
    if job.era == "2.3":
        return "[rank%d]:[%s ProcessGroupNCCL.cpp:%d] " % (r, lvl, ln)
    return "[%s ProcessGroupNCCL.cpp:%d] " % (lvl, ln)


def lpfx(job, r):
    if job.era == "2.5":
        return "[PG ID 0 PG GUID 0(default_pg) Rank %d] " % r
    if job.era == "2.3":
        return "[PG 0 Rank %d] " % r
    return "[Rank %d] " % r


def cpp_frames(job, where):
    lib = job.sitepk + "/torch/lib/"
    fr = [
        "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x%x (0x7f%s in %slibc10.so)" % (job.rng.randint(0x40, 0x9f), hexs(job.rng, 10), lib),
        "frame #1: %s + 0x%x (0x7f%s in %slibtorch_cuda.so)" % (where, job.rng.randint(0x100, 0x2ff), hexs(job.rng, 10), lib),
        "frame #2: <unknown function> + 0x%x (0x7f%s in /lib/x86_64-linux-gnu/libstdc++.so.6)" % (job.rng.randint(0xd0000, 0xeffff), hexs(job.rng, 10)),
        "frame #3: <unknown function> + 0x94ac3 (0x7f%s in /lib/x86_64-linux-gnu/libc.so.6)" % hexs(job.rng, 10),
        "frame #4: <unknown function> + 0x126850 (0x7f%s in /lib/x86_64-linux-gnu/libc.so.6)" % hexs(job.rng, 10),
    ]
    return "\n".join(fr)


def workstr(job, seq, op=None, numel=None):
    op = op or job.op
    numel = numel or job.numel
    return "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (
        seq, op, numel, numel, job.pg_timeout)


def watchdog_timeout_lines(job, r, t, seq, ran_ms, op=None, numel=None, enq=None, done=None):
    """emit the watchdog-timeout + abort block of rank r at time t"""
    P = glog(job, r, t)
    LP = lpfx(job, r)
    w = workstr(job, seq, op, numel)
    enq = seq if enq is None else enq
    done = seq - 1 if done is None else done
    msg = "%sWatchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (LP, w, ran_ms)
    out = [P + msg]
    if job.era == "2.5":
        out.append(glog(job, r, t, ln=job.pg_line + 7) + "%sfailure detected by watchdog at work sequence id: %d PG status: last enqueued work: %d, last completed work: %d" % (LP, seq, enq, done))
        if not job.fr_on:
            out.append(glog(job, r, t, ln=job.pg_line + 11) + "%sStack trace of the failed collective not found, potentially because FlightRecorder is disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value." % LP)
    else:
        out.append(glog(job, r, t, ln=job.pg_line - 40) + "%sTimeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (LP, seq, enq, done))
    out.append(glog(job, r, t, ln=job.pg_line + 30) + "%sSome NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % LP)
    out.append(glog(job, r, t, ln=job.pg_line + 36) + "%sTo avoid data inconsistency, we are taking the entire process down." % LP)
    if job.era == "2.1":
        out.append("terminate called after throwing an instance of 'std::runtime_error'")
        out.append("  what():  NCCL watchdog thread terminated with exception: " + msg)
    else:
        out.append("terminate called after throwing an instance of 'c10::DistBackendError'")
        out.append("  what():  %sProcess group watchdog thread terminated with exception: %s" % (LP, msg))
    out.append("Exception raised from checkTimeout at /opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % (job.pg_line - 2))
    out.append(cpp_frames(job, "c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >)"))
    return "\n".join(out)


def nccl_host(job, r):
    nd = job.nodes[job.node_of(r)]
    return nd.pod or nd.short


def nccl_warn(job, r, t, src, func, msg):
    nd = job.nodes[job.node_of(r)]
    host = nccl_host(job, r)
    pid = job.pids[r]
    tid = pid + 37 + job.local(r)
    pre = ""
    if job.nccl_ts:
        pre = "[%s] " % job.lt(t).strftime("%Y-%m-%d %H:%M:%S")
    if job.nccl_new:
        return "%s%s:%d:%d [%d] %s (%s) NCCL WARN %s" % (pre, host, pid, tid, job.local(r), src, func, msg)
    return "%s%s:%d:%d [%d] %s NCCL WARN %s" % (pre, host, pid, tid, job.local(r), src, msg)


def remote_error_lines(job, r, t, last_error):
    P = glog(job, r, t)
    LP = lpfx(job, r)
    head = "NCCL error: remote process exited or there was a network error, NCCL version %s" % job.nccl_ver
    out = []
    if job.era == "2.1":
        out.append(P + "%sNCCL watchdog thread terminated with exception: %s" % (LP, head))
    else:
        out.append(P + "%sProcess group watchdog thread terminated with exception: %s" % (LP, head))
    out += ["ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
            "Last error:", last_error]
    if job.era == "2.1":
        out.append("terminate called after throwing an instance of 'std::runtime_error'")
        out.append("  what():  NCCL watchdog thread terminated with exception: " + head)
    else:
        out.append("terminate called after throwing an instance of 'c10::DistBackendError'")
        out.append("  what():  %sProcess group watchdog thread terminated with exception: %s" % (LP, head))
    out += ["ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
            "Last error:", last_error]
    out.append("Exception raised from checkForNCCLErrorsInternal at /opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % (job.pg_line + 420))
    out.append(cpp_frames(job, "c10d::ProcessGroupNCCL::checkForNCCLErrorsInternal(std::shared_ptr<c10d::NCCLComm>&)"))
    return "\n".join(out)


def py_tb(job, r, frames, exc):
    """python traceback; with [rankN]: prefix on torch>=2.3"""
    lines = ["Traceback (most recent call last):"]
    for f, ln, fn, src in frames:
        lines.append('  File "%s", line %d, in %s' % (f, ln, fn))
        lines.append("    " + src)
    lines += exc.split("\n")
    if job.era in ("2.3", "2.5"):
        return "\n".join("[rank%d]: %s" % (r, x) for x in lines)
    return "\n".join(lines)


def train_frames(job, deep=True):
    s = job.script
    fr = [("/workspace/%s" % s, 412, "<module>", "main(cfg)"),
          ("/workspace/%s" % s, 371, "main", "loss = train_step(model, batch, optimizer)"),
          ("/workspace/%s" % s, 228, "train_step", "loss.backward()" if job.rng.random() < 0.5 else "out = model(**batch)")]
    if deep:
        fr.append(("%s/torch/_tensor.py" % job.sitepk, 581, "backward", "torch.autograd.backward("))
        fr.append(("%s/torch/autograd/graph.py" % job.sitepk, 825, "_engine_run_backward",
                   "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"))
    return fr


def fmt_gib(x):
    return "%.2f GiB" % x


# ------------------------------------------------------------ kernel lines
def kern_line(job, nd, t, msg):
    f = job.kfmt
    if f == "dmesg":
        up = (t - job.boot[nd.idx]).total_seconds()
        return "[%12.6f] %s" % (up, msg)
    if f == "dmesgT":
        lt = job.lt(t)
        return "[%s] %s" % (lt.strftime("%a %b ") + ("%2d" % lt.day) + lt.strftime(" %H:%M:%S %Y"), msg)
    if f == "journal":
        return "%s %s kernel: %s" % (job.lt(t).strftime("%b %d %H:%M:%S"), nd.short, msg)
    if f == "journal_iso":
        return "%s %s kernel: %s" % (job.lt(t).strftime("%Y-%m-%dT%H:%M:%S%z"), nd.short, msg)
    # kmsg
    up = int((t - job.boot[nd.idx]).total_seconds() * 1e6)
    job._kseq = getattr(job, "_kseq", 4000) + 1
    pri = 3 if ("Xid" in msg or "Killed process" in msg or "error" in msg.lower()) else 6
    return "%d,%d,%d,-;%s" % (pri, job._kseq, up, msg)


# ------------------------------------------------------------ job setup
def setup_job(job):
    rng = job.rng
    lay = job.layout
    cause = job.cause
    gpn = rng.choice([8, 8, 8, 4, 2]) if lay != "determined_trial" else rng.choice([8, 8, 4, 2, 1])
    # nodes: spread world sizes 2..512
    pick = rng.random()
    if pick < 0.25:
        nnodes = 1
    elif pick < 0.6:
        nnodes = rng.choice([2, 2, 3, 4])
    elif pick < 0.85:
        nnodes = rng.choice([6, 8, 12, 16])
    else:
        nnodes = rng.choice([24, 32, 48, 64])
    if (cause == "network" or lay == "deepspeed_pdsh") and nnodes < 2:
        nnodes = rng.choice([2, 4, 8])
    if nnodes == 1 and gpn == 1:
        gpn = 2
    job.gpn = gpn
    job.nnodes = nnodes
    job.world = gpn * nnodes
    job.volc_master = rng.random() < 0.6
    job.sky_cloud = rng.choice(["aws", "gcp", "k8s"])
    job._skyh = hexs(rng, 4)
    job.sky_name = None
    job.ds_ip_hostfile = rng.random() < 0.35
    job.nodes = make_nodes(job)
    if lay == "skypilot_runlog":
        job.sky_name = job.jobname
    oh, om = rng.choice(TZS)
    job.tz = timezone(timedelta(hours=oh, minutes=(om if oh >= 0 else -om)))
    job.tzabbr = {(0, 0): "UTC", (-7, 0): "PDT", (-5, 0): "CDT", (1, 0): "CET", (8, 0): "CST", (5, 30): "IST",
                  (9, 0): "JST", (-4, 0): "EDT", (2, 0): "CEST"}[(oh, om)]
    job.era = rng.choice(["2.1", "2.3", "2.5", "2.5"])
    job.pg_line = {"2.1": 475, "2.3": 1537, "2.5": rng.choice([632, 665, 684])}[job.era]
    job.nccl_ver = rng.choice(NCCL_VERS)
    job.nccl_new = job.nccl_ver >= "2.26"
    job.nccl_ts = job.nccl_new and rng.random() < 0.7
    job.nccl_info = rng.random() < 0.5
    job.ib_line = rng.choice([1402, 1696, 2045, 587, 612])
    job.fr_on = job.era == "2.5" and rng.random() < 0.5
    job.pg_timeout = rng.choice([600000, 600000, 600000, 1800000]) if job.era != "2.1" else 1800000
    job.py = rng.choice(["3.10", "3.11", "3.12"])
    job.sitepk = rng.choice(["/usr/local/lib/python%s/dist-packages", "/opt/conda/lib/python%s/site-packages",
                             "/home/%s/.venv/lib/python%%s/site-packages" % rng.choice(["ml", "train", "svc"])]) % job.py
    job.script = rng.choice(["train.py", "pretrain_gpt.py", "finetune.py", "run_clm.py", "main.py"])
    job.op = rng.choice(["ALLREDUCE", "ALLREDUCE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE", "ALLGATHER", "BROADCAST"])
    job.numel = rng.choice([1, 8, 262144, 1048576, 16777216, 52428800, 131072000])
    job.bus = rng.choice([H100_BUS, A100_BUS])
    job.gpu_mem = 79.11 if job.bus is H100_BUS else rng.choice([79.15, 39.39])
    job.gpu_name = "NVIDIA H100 80GB HBM3" if job.bus is H100_BUS else ("NVIDIA A100-SXM4-80GB" if job.gpu_mem > 60 else "NVIDIA A100-SXM4-40GB")
    # times
    y = rng.choice([2024, 2025, 2026])
    job.t0 = datetime(y, rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59),
                      rng.randint(0, 59), rng.randint(0, 999999), tzinfo=timezone.utc)
    job.boot = [job.t0 - timedelta(days=rng.randint(2, 30), seconds=rng.randint(0, 80000)) for _ in job.nodes]
    job.kfmt = rng.choice(["dmesg", "dmesgT", "journal", "journal_iso", "kmsg"])
    # pids
    job.pids = []
    job.agent_pid = []
    container = lay in ("kf_mpijob", "volcano_prefix", "determined_trial") or (lay == "skypilot_runlog" and job.sky_cloud == "k8s")
    job.pidns_off = rng.randint(200000, 3000000) if container else 0
    for nd in job.nodes:
        b = rng.randint(18, 300) if container else rng.randint(1200, 3900000)
        job.agent_pid.append(b)
        p = b + rng.randint(2, 6)
        for l in range(gpn):
            job.pids.append(p)
            p += rng.randint(1, 9)
    job.agent_tid = rng.choice([139871, 140234, 140021, 139655]) * 1000 + rng.randint(100, 999)
    job.step_time = rng.uniform(0.35, 6.0)
    job.peak_lr = rng.choice([1e-4, 2e-4, 3e-4, 6e-4, 1.5e-5, 2e-5])
    job.lr_total = rng.choice([50000, 100000, 250000, 500000])
    job.start_step = rng.choice([0, 0, 0, rng.randint(1000, 90000)])
    job.t_train = job.t0 + timedelta(seconds=rng.uniform(40, 300))
    job.tf = job.t_train + timedelta(seconds=rng.uniform(600, 5 * 3600))
    job.step_at_tf = job.start_step + int((job.tf - job.t_train).total_seconds() / job.step_time)
    job.seq = 7 + int((job.tf - job.t_train).total_seconds() / job.step_time) * rng.choice([1, 2, 3])


def choose_culprit(job):
    rng = job.rng
    r = rng.randrange(job.world)
    if rng.random() < 0.25:
        r = 0 if rng.random() < 0.3 else job.world - 1
    return r


def choose_visible(job, culprit, force_culprit=None):
    rng = job.rng
    W = job.world
    if W <= 16:
        return list(range(W))
    cap = rng.choice([8, 10, 12, 16])
    vis = {0}
    show_c = culprit is not None and (force_culprit if force_culprit is not None else rng.random() < 0.75)
    if show_c:
        vis.add(culprit)
        n = job.node_of(culprit)
        for _ in range(2):
            vis.add(n * job.gpn + rng.randrange(job.gpn))
    while len(vis) < cap:
        cand = rng.randrange(W)
        if culprit is not None and not show_c and cand == culprit:
            continue
        vis.add(cand)
    return sorted(vis)


# ------------------------------------------------------------ cascade engine
INF = None


def watchdog_cands(job, exclude=(), base=None):
    rng = job.rng
    base = base or job.tf
    c = {}
    for r in range(job.world):
        if r in exclude:
            continue
        enq = base + timedelta(seconds=rng.uniform(0.0, 2.5))
        ran = job.pg_timeout + rng.randint(8, 950)
        c[r] = (enq + timedelta(milliseconds=ran), -6, "watchdog", ran)
    return c


def resolve(job, cand):
    """cand: r -> (t, code, kind, extra). Applies per-node sibling kills and
    the layout's gang teardown. Returns ends r -> [t, code, kind, extra] and
    node exit info."""
    rng = job.rng
    fill = watchdog_cands(job, exclude=set(cand) | ({job.culprit} if job.culprit is not None else set()))
    ends = {r: list(v) for r, v in cand.items()}
    for r, v in fill.items():
        ends[r] = list(v)
    lay = job.layout
    # per node sibling kill (torchrun / launch.py); mpirun has no per-node agent
    node_fail = {}
    for n in range(job.nnodes):
        rs = [r for r in range(n * job.gpn, (n + 1) * job.gpn) if r in ends and ends[r][1] != 0]
        if not rs:
            continue
        first = min(rs, key=lambda r: (ends[r][0], r))
        tn = ends[first][0]
        node_fail[n] = (tn, first)
        if lay == "kf_mpijob":
            continue
        for r in range(n * job.gpn, (n + 1) * job.gpn):
            if r == first:
                continue
            kill = tn + timedelta(seconds=rng.uniform(0.15, 1.4))
            if r not in ends or ends[r][0] > kill:
                ends[r] = [kill, -15, "sibling", None]
    # gang teardown
    node_exit = {}
    for n, (tn, first) in node_fail.items():
        last = max(ends[r][0] for r in range(n * job.gpn, (n + 1) * job.gpn) if r in ends)
        node_exit[n] = last + timedelta(seconds=rng.uniform(0.3, 1.5)) if lay != "kf_mpijob" else tn
    gang = None
    if node_exit and lay != "deepspeed_pdsh":
        g0 = min(node_exit.values())
        delay = {"kf_mpijob": (0.2, 1.5), "volcano_prefix": (2.0, 12.0), "skypilot_runlog": (1.0, 4.0),
                 "determined_trial": (1.0, 6.0)}[lay]
        gang = g0 + timedelta(seconds=rng.uniform(*delay))
        for r in range(job.world):
            if r not in ends or ends[r][0] > gang:
                ends[r] = [gang + timedelta(milliseconds=rng.randint(5, 900)), -15, "gang", None]
    for r in range(job.world):
        if r not in ends:
            ends[r] = [max(v[0] for v in ends.values()) + timedelta(seconds=1), -15, "sibling", None]
    job.gang_t = gang
    job.node_fail = node_fail
    job.node_exit = node_exit
    return ends


def agent_ts(job, t, lvl):
    lt = job.lt(t)
    if job.era == "2.1":
        return {"W": "WARNING", "E": "ERROR", "I": "INFO"}[lvl] + ":"
    return "%s%s %s.%06d %d " % (lvl, lt.strftime("%m%d"), lt.strftime("%H:%M:%S"), lt.microsecond, job.agent_tid)


def agent_line(job, t, lvl, module_file, msg):
    if job.era == "2.1":
        mod = module_file.replace("/", ".").replace(".py", "").split(":")[0]
        return "%s%s:%s" % (agent_ts(job, t, lvl), mod, msg)
    return "%s%s] %s" % (agent_ts(job, t, lvl), module_file, msg)


SIGNAMES = {-6: "SIGABRT", -9: "SIGKILL", -11: "SIGSEGV", -7: "SIGBUS", -15: "SIGTERM"}


def failure_block(job, idx, r, t, code):
    nd = job.nodes[job.node_of(r)]
    pid = job.pids[r]
    lt = job.lt(t)
    out = ["[%d]:" % idx,
           "  time      : %s" % lt.strftime("%Y-%m-%d_%H:%M:%S"),
           "  host      : %s" % (nd.host if job.layout != "deepspeed_pdsh" else nd.short),
           "  rank      : %d (local_rank: %d)" % (r, job.local(r)),
           "  exitcode  : %d (pid: %d)" % (code, pid),
           "  error_file: <N/A>"]
    if code < 0:
        out.append("  traceback : Signal %d (%s) received by PID %d" % (-code, SIGNAMES.get(code, "SIG"), pid))
    else:
        out.append("  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
    return out


def torchrun_agent_emit(job, ends):
    """torchrun agent lines per node (volcano, skypilot, determined)."""
    sp = job.sitepk
    for n in range(job.nnodes):
        rs = list(range(n * job.gpn, (n + 1) * job.gpn))
        fails = [r for r in rs if ends[r][1] not in (0, -15)]
        if n in job.node_fail and ends[job.node_fail[n][1]][2] != "gang":
            tn, first = job.node_fail[n]
            for r in rs:
                if ends[r][2] == "sibling":
                    job.add(tn + timedelta(milliseconds=40 + 3 * job.local(r)), "agent", n,
                            agent_line(job, tn, "W", "torch/distributed/elastic/multiprocessing/api.py:897",
                                       "Sending process %d closing signal SIGTERM" % job.pids[r]))
            te = job.node_exit[n] - timedelta(milliseconds=300)
            job.add(te, "agent", n, agent_line(job, te, "E", "torch/distributed/elastic/multiprocessing/api.py:869",
                    "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (
                        ends[first][1], job.local(first), job.pids[first], job.pybin)), flag=(first == job.culprit))
            tb = ["Traceback (most recent call last):",
                  '  File "%s", line 8, in <module>' % job.torchrun_bin, "    sys.exit(main())",
                  '  File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper' % sp,
                  "    return f(*args, **kwargs)",
                  '  File "%s/torch/distributed/run.py", line 919, in main' % sp, "    run(args)",
                  '  File "%s/torch/distributed/run.py", line 910, in run' % sp, "    elastic_launch(",
                  '  File "%s/torch/distributed/launcher/api.py", line 138, in __call__' % sp,
                  "    return launch_agent(self._config, self._entrypoint, list(args))",
                  '  File "%s/torch/distributed/launcher/api.py", line 269, in launch_agent' % sp,
                  "    raise ChildFailedError(",
                  "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
                  "============================================================",
                  "%s FAILED" % job.script,
                  "------------------------------------------------------------",
                  "Failures:"]
            others = sorted([r for r in fails if r != first], key=lambda r: (ends[r][0], r))
            if not others:
                tb.append("  <NO_OTHER_FAILURES>")
            for i, r in enumerate(others):
                tb += failure_block(job, i + 1, r, ends[r][0], ends[r][1])
            tb += ["------------------------------------------------------------",
                   "Root Cause (first observed failure):"]
            tb += failure_block(job, 0, first, ends[first][0], ends[first][1])
            tb.append("============================================================")
            job.add(job.node_exit[n], "agent", n, "\n".join(tb), flag=(first == job.culprit))
        elif job.gang_t is not None and all(ends[r][2] == "gang" for r in rs):
            tg = job.gang_t
            job.add(tg, "agent", n, agent_line(job, tg, "W", "torch/distributed/elastic/agent/server/api.py:704",
                                             "Received Signals.SIGTERM death signal, shutting down workers"))
            for r in rs:
                job.add(tg + timedelta(milliseconds=2), "agent", n,
                        agent_line(job, tg, "W", "torch/distributed/elastic/multiprocessing/api.py:897",
                                   "Sending process %d closing signal SIGTERM" % job.pids[r]))
            job.add(tg + timedelta(milliseconds=600), "agent", n, "\n".join([
                "Traceback (most recent call last):",
                '  File "%s", line 8, in <module>' % job.torchrun_bin, "    sys.exit(main())",
                '  File "%s/torch/distributed/launcher/api.py", line 260, in launch_agent' % sp,
                "    result = agent.run()",
                '  File "%s/torch/distributed/elastic/multiprocessing/api.py", line 84, in _terminate_process_handler' % sp,
                "    raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)",
                "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % job.agent_pid[n]]))


def deepspeed_agent_emit(job, ends):
    for n in range(job.nnodes):
        rs = list(range(n * job.gpn, (n + 1) * job.gpn))
        if n not in job.node_fail:
            continue
        tn, first = job.node_fail[n]
        ts = tn + timedelta(milliseconds=job.rng.randint(100, 900))
        for r in rs:
            job.add(ts, "agent", n, ds_line(job, ts, "INFO", "launch.py:%d:sigkill_handler" % job.ds_sk,
                                              "Killing subprocess %d" % job.pids[r]))
        te = job.node_exit[n]
        cmd = "['%s', '-u', '%s', '--local_rank=%d'%s] exits with return code = %d" % (
            job.pybin, job.script, job.local(first), job.ds_args, ends[first][1])
        job.add(te, "agent", n, ds_line(job, te, "ERROR", "launch.py:%d:sigkill_handler" % (job.ds_sk + 6), cmd),
                flag=(first == job.culprit))


def ds_line(job, t, lvl, where, msg):
    lt = job.lt(t)
    return "[%s,%03d] [%s] [%s] %s" % (lt.strftime("%Y-%m-%d %H:%M:%S"), lt.microsecond // 1000, lvl, where, msg)


def emit_collateral(job, ends, culprit_host=None):
    """lines for visible non-culprit ranks."""
    for r in job.visible:
        if r == job.culprit:
            continue
        t, code, kind, extra = ends[r]
        if kind == "watchdog":
            job.add(t, "rank", r, watchdog_timeout_lines(job, r, t, job.seq, extra))
        elif kind == "remote":
            le = extra
            if job.nccl_info or job.rng.random() < 0.5:
                if le.startswith("NET/IB"):
                    src, fn = ib_src(job), "ncclIbTest"
                else:
                    src, fn = "misc/socket.cc:%d" % job.rng.choice([49, 54, 61]), "socketProgress"
                job.add(t - timedelta(milliseconds=30), "rank", r, "\n" + nccl_warn(job, r, t, src, fn, le))
            job.add(t, "rank", r, remote_error_lines(job, r, t, le))


def pick_visible(job, culprit, show_culprit=None):
    rng = job.rng
    if show_culprit is None:
        show_culprit = rng.random() < 0.75
    if job.layout == "kf_mpijob":
        if job.world <= 16:
            return list(range(job.world)), True
        cap = rng.choice([10, 12, 16])
        vis = {0}
        if culprit is not None and show_culprit:
            vis.add(culprit)
        while len(vis) < cap:
            c = rng.randrange(job.world)
            if culprit is not None and not show_culprit and c == culprit:
                continue
            vis.add(c)
        return sorted(vis), (culprit is None or culprit in vis)
    if job.nnodes <= 4:
        return list(range(job.world)), True
    cap = rng.choice([3, 4, 5, 6])
    nodes = {0}
    cn = job.node_of(culprit) if culprit is not None else None
    if cn is not None and show_culprit:
        nodes.add(cn)
    while len(nodes) < cap:
        c = rng.randrange(job.nnodes)
        if cn is not None and not show_culprit and c == cn:
            continue
        nodes.add(c)
    vis = [r for n in sorted(nodes) for r in range(n * job.gpn, (n + 1) * job.gpn)]
    return vis, (culprit is None or culprit in vis)


# ------------------------------------------------------------ background
WARNINGS = [
    "%s/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.4 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants.\n  return fn(*args, **kwargs)",
    "%s/torch/nn/parallel/distributed.py:1279: UserWarning: The check_reduction argument is deprecated.\n  warnings.warn(",
    "%s/torch/_dynamo/eval_frame.py:632: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly.\n  return fn(*args, **kwargs)",
    "%s/torch/distributed/fsdp/_state_dict_utils.py:773: FutureWarning: FSDP.state_dict_type() and FSDP.set_state_dict_type() are being deprecated. Please use APIs, get_state_dict() and set_state_dict(), which can support different parallelisms, FSDP1, FSDP2, DDP.\n  warnings.warn(",
    "%s/transformers/tokenization_utils_base.py:1601: FutureWarning: `clean_up_tokenization_spaces` was not set. It will be set to `True` by default. This behavior will be depracted in transformers v4.45, and will be then set to `False` by default.\n  warnings.warn(",
]


def background(job, t_end, healthy_end=False, step_stop=None):
    rng = job.rng
    vis = job.visible
    # agent start lines
    for n in job.vis_nodes:
        t = job.t0 + timedelta(seconds=rng.uniform(1, 6))
        if job.layout == "deepspeed_pdsh":
            ds_launch_start(job, n, t)
        elif job.layout != "kf_mpijob" and job.era != "2.1" and job.gpn > 1:
            job.add(t, "agent", n, agent_line(job, t, "W", "torch/distributed/run.py:793", "") + "\n*****************************************\nSetting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. \n*****************************************")
    # NCCL init
    ti = job.t0 + timedelta(seconds=rng.uniform(20, 40))
    commid = hexs(rng, 16)
    for r in vis:
        nd = job.nodes[job.node_of(r)]
        l = job.local(r)
        pid = job.pids[r]
        if job.nccl_info:
            if r == 0:
                job.add(ti, "rank", r, "%s:%d:%d [0] NCCL INFO NCCL version %s+cuda12.%d" % (nccl_host(job, r), pid, pid, job.nccl_ver, rng.randint(1, 8)), "out")
            busid = job.bus[l % 8].lstrip("0") + "000"
            flag = job.cause in ("gpu_hardware", "ecc_memory", "nvlink") and r == job.culprit and job.hw_map_flag
            job.add(ti + timedelta(milliseconds=rng.randint(100, 900)), "rank", r,
                    "%s:%d:%d [%d] NCCL INFO ncclCommInitRank comm 0x%s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId 0x%s - Init COMPLETE" % (
                        nccl_host(job, r), pid, pid + 91, l, hexs(rng, 8), r, job.world, l, l, busid, commid), "out", flag=flag)
        elif r == 0 or rng.random() < 0.15:
            job.add(ti, "rank", r, "[rank%d] initialized process group: backend=nccl world_size=%d local_rank=%d device=cuda:%d" % (r, job.world, l, l), "out")
    # warnings storm
    if "warn_storm" in job.decoys:
        w = rng.choice(WARNINGS) % job.sitepk
        storm = [r for r in vis if rng.random() < 0.6] or [vis[0]]
        reps = rng.randint(6, 30)
        for i in range(reps):
            tt = job.t_train + timedelta(seconds=job.step_time * i)
            for r in storm[:24]:
                job.add(tt + timedelta(milliseconds=rng.randint(0, 400)), "rank", r, w)
    # step lines by rank 0
    stop = step_stop or t_end
    total = int((stop - job.t_train).total_seconds() / job.step_time)
    every = max(1, total // rng.randint(50, 110))
    for nice in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000):
        if nice >= every:
            every = nice
            break
    loss = rng.uniform(2.0, 7.0)
    s = 0
    tt = job.t_train
    while True:
        s += every
        st = job.step_time
        if getattr(job, "strag_onset", None) is not None and tt >= job.strag_onset:
            st = job.step_time * job.strag_slow
        tt = tt + timedelta(seconds=every * st * rng.uniform(0.985, 1.015))
        if tt >= stop:
            break
        loss = max(0.6, loss * rng.uniform(0.985, 1.002))
        job.add(tt, "rank", 0, step_line(job, tt, job.start_step + s, loss, st), "out")
    job.last_step = job.start_step + s - every
    if healthy_end:
        te = t_end
        job.add(te - timedelta(seconds=8), "rank", 0, step_line(job, te - timedelta(seconds=8), job.last_step + every, loss, job.step_time) + "\nSaving checkpoint to /checkpoints/%s/step_%d" % (job.jobname, job.last_step + every), "out")
        job.add(te - timedelta(seconds=1), "rank", 0, "Training complete. Total steps: %d" % (job.last_step + every), "out")
        if job.era == "2.5" and rng.random() < 0.7:
            for r in vis[:24]:
                job.add(te + timedelta(milliseconds=rng.randint(0, 800)), "rank", r, "[rank%d]:[W%s %s.%s ProcessGroupNCCL.cpp:1250] Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only recently been added since PyTorch 2.4 (function operator())" % (r, job.lt(te).strftime("%m%d"), job.lt(te).strftime("%H:%M:%S"), ns9(te)))
            job.decoys.append("teardown_warn")


def lr_at(job, step):
    import math
    peak = job.peak_lr
    w = 2000
    if step < w:
        return peak * (step + 1) / w
    return peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, (step - w) / job.lr_total))))


def step_line(job, t, step, loss, st):
    rng = job.rng
    if job.layout == "deepspeed_pdsh":
        lt = job.lt(t)
        return "[%s,%03d] [INFO] [logging.py:128:log_dist] [Rank 0] step=%d, skipped=0, lr=[%.6e], mom=[(0.9, 0.95)]\nsteps: %d loss: %.4f iter time (s): %.3f samples/sec: %.3f" % (
            lt.strftime("%Y-%m-%d %H:%M:%S"), lt.microsecond // 1000, step, lr_at(job, step), step, loss, st * rng.uniform(0.97, 1.03), job.world * 4 / st)
    if job.layout == "determined_trial":
        return "INFO: [%d] determined.core._train: report_training_metrics(steps_completed=%d, metrics={'loss': %.4f, 'lr': %.3e})" % (job.pids[0], step, loss, lr_at(job, step))
    lt = job.lt(t)
    return "%s,%03d - INFO - step %d | loss %.4f | lr %.3e | grad_norm %.3f | %.2f s/it" % (
        lt.strftime("%Y-%m-%d %H:%M:%S"), lt.microsecond // 1000, step, loss, lr_at(job, step), rng.uniform(0.2, 1.8), st * rng.uniform(0.97, 1.03))


def ds_launch_start(job, n, t):
    nd = job.nodes[n]
    world_info = {x.host: list(range(job.gpn)) for x in job.nodes}
    grm = {}
    for x in job.nodes:
        grm[x.host] = list(range(x.idx * job.gpn, (x.idx + 1) * job.gpn))
    lines = [
        ds_line(job, t, "INFO", "launch.py:139:main", "0 NCCL_SOCKET_IFNAME=%s" % job.ifname),
        ds_line(job, t, "INFO", "launch.py:146:main", "WORLD INFO DICT: %s" % json.dumps(world_info).replace('"', "'")),
        ds_line(job, t, "INFO", "launch.py:152:main", "nnodes=%d, num_local_procs=%d, node_rank=%d" % (job.nnodes, job.gpn, n)),
        ds_line(job, t, "INFO", "launch.py:163:main", "global_rank_mapping=defaultdict(<class 'list'>, %s)" % json.dumps(grm).replace('"', "'")),
        ds_line(job, t, "INFO", "launch.py:164:main", "dist_world_size=%d" % job.world),
        ds_line(job, t, "INFO", "launch.py:168:main", "Setting CUDA_VISIBLE_DEVICES=%s" % ",".join(str(i) for i in range(job.gpn))),
    ]
    if len(lines[1]) > 3000:  # huge worlds: the launcher prints it anyway, keep it short here
        lines[1] = lines[1][:3000] + "...}"
        lines[3] = lines[3][:3000] + "...})"
    for l in range(job.gpn):
        r = n * job.gpn + l
        lines.append(ds_line(job, t, "INFO", "launch.py:256:main", "process %d spawned with command: ['%s', '-u', '%s', '--local_rank=%d'%s]" % (job.pids[r], job.pybin, job.script, l, job.ds_args)))
    job.add(t, "agent", n, "\n".join(lines), flag=False)
    job.spawn_lines = True


# ------------------------------------------------------------ causes
def kadd(job, n, t, msg, flag=False):
    job.add(t, "kern", n, msg, flag=flag)
    job.kern_nodes.add(n)


def pci(job, r):
    return "0000:%s:00" % job.bus[job.local(r) % 8]


def uuid(rng):
    return "GPU-%s-%s-%s-%s-%s" % (hexs(rng, 8), hexs(rng, 4), hexs(rng, 4), hexs(rng, 4), hexs(rng, 12))


def xid(job, r, code, body, pid=None, name="python3"):
    if pid is None:
        return "NVRM: Xid (PCI:%s): %d, pid='<unknown>', name=<unknown>, %s" % (pci(job, r), code, body)
    if pid == "none":
        return "NVRM: Xid (PCI:%s): %d, %s" % (pci(job, r), code, body)
    return "NVRM: Xid (PCI:%s): %d, pid=%d, name=%s, %s" % (pci(job, r), code, pid, name, body)


def cuda_err_watchdog(job, r, t, err):
    P = glog(job, r, t)
    LP = lpfx(job, r)
    body = ["CUDA error: %s" % err,
            "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
            "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
            "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
            "",
            "Exception raised from c10_cuda_check_implementation at /opt/pytorch/pytorch/c10/cuda/CUDAException.cpp:43 (most recent call first):",
            cpp_frames(job, "c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool)")]
    wd = "Process group watchdog thread" if job.era != "2.1" else "NCCL watchdog thread"
    out = [P + "%s%s terminated with exception: " % (LP, wd) + body[0]] + body[1:]
    out.append("terminate called after throwing an instance of '%s'" % ("c10::DistBackendError" if job.era != "2.1" else "c10::Error"))
    out.append("  what():  %s%s terminated with exception: CUDA error: %s" % (LP, wd, err))
    out += body[1:5]
    return "\n".join(out)


def cuda_err_main(job, r, err, cls=None):
    cls = cls or ("torch.AcceleratorError" if job.era == "2.5" and job.rng.random() < 0.4 else "RuntimeError")
    exc = "%s: CUDA error: %s\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n" % (cls, err)
    return py_tb(job, r, train_frames(job), exc)


def c_gpu_hardware(job):
    rng = job.rng
    c = job.culprit
    n = job.node_of(c)
    tf = job.tf
    v = rng.choice(["79", "79", "119", "62"])
    job.notes.append("Xid %s on %s (local GPU %d)" % (v, pci(job, c), job.local(c)))
    pid = job.hpid(c)
    if rng.random() < 0.6:
        kadd(job, n, tf - timedelta(milliseconds=rng.randint(5, 400)), "NVRM: GPU at PCI:%s: %s" % (pci(job, c), uuid(rng)))
        kadd(job, n, tf - timedelta(milliseconds=rng.randint(1, 4)), "NVRM: GPU Board Serial Number: %d" % rng.randint(1320000000000, 1659999999999))
    if v == "79":
        if rng.random() < 0.5:
            rp = "%02x" % max(0, int(job.bus[job.local(c) % 8], 16) - 1)
            kadd(job, n, tf - timedelta(milliseconds=rng.randint(20, 900)), "pcieport 0000:%s:01.0: AER: Uncorrected (Fatal) error received: %s.0" % (rp, pci(job, c)))
            kadd(job, n, tf - timedelta(milliseconds=rng.randint(1, 19)), "pcieport 0000:%s:01.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, (Receiver ID)" % rp)
        kadd(job, n, tf, xid(job, c, 79, "GPU has fallen off the bus.", pid=rng.choice([None, "none"])))
        kadd(job, n, tf + timedelta(milliseconds=2), "NVRM: GPU %s.0: GPU has fallen off the bus." % pci(job, c))
        if rng.random() < 0.5:
            kadd(job, n, tf + timedelta(milliseconds=60), "NVRM: nvGpuOpsReportFatalError: uvm encountered global fatal error 0x60, requiring os reboot to recover.")
        err = rng.choice(["unspecified launch failure", "unknown error"])
    elif v == "119":
        gi = job.local(c)
        for k in range(rng.randint(1, 3)):
            fn = rng.choice(["76 (GSP_RM_CONTROL) (0x20800a4c 0x4)", "103 (GSP_RM_ALLOC) (0x2081 0x4)", "10 (FREE) (0x0 0x0)"])
            kadd(job, n, tf + timedelta(seconds=6 * k), xid(job, c, 119, "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function %s." % (gi, fn), pid=pid, name=rng.choice(["python3", "pt_main_thread"])))
        kadd(job, n, tf + timedelta(milliseconds=5), "NVRM: GPU%d GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x0000000020800a4c 0x0000000000000004." % gi)
        err = "unspecified launch failure"
    else:
        kadd(job, n, tf, xid(job, c, 62, "Internal micro-controller halt (PMU halt) 0x%08x" % rng.randint(0, 0xffff), pid=pid))
        kadd(job, n, tf + timedelta(milliseconds=40), "NVRM: Xid (PCI:%s): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)" % pci(job, c))
        err = "unknown error"
    if rng.random() < 0.7:
        td = tf + timedelta(seconds=rng.uniform(0.3, 9))
        job.add(td, "rank", job.culprit, cuda_err_watchdog(job, c, td, err), flag=True)
        cand = {c: (td, -6, "culprit", None)}
        add_remote(job, cand, td, c, prob=0.4)
        job.notes.append("culprit aborts with CUDA error '%s'" % err)
    else:
        cand = watchdog_cands(job, exclude=(c,))
        job.notes.append("culprit hung in driver, no own error line; only kernel + busId mapping name it")
    return cand


def add_remote(job, cand, td, c, prob=0.5, last_error=None):
    rng = job.rng
    if rng.random() >= prob:
        return
    cn = job.node_of(c)
    chost = job.nodes[cn]
    for r in range(job.world):
        if r in cand or job.node_of(r) == cn:
            continue
        if rng.random() < 0.5:
            le = last_error or "socketProgress: Connection closed by remote peer %s<%d>" % (
                chost.host if rng.random() < 0.5 else chost.ip, rng.randint(33000, 60999))
            cand[r] = (td + timedelta(seconds=rng.uniform(0.2, 3.5)), -6, "remote", le)
    job.notes.append("peers see ncclRemoteError")


def c_ecc(job):
    rng = job.rng
    c = job.culprit
    n = job.node_of(c)
    tf = job.tf
    pid = job.hpid(c)
    addr = rng.randint(0x1000000, 0x7fffffff)
    seq = rng.choice(["48", "48+63", "94", "95", "48+63+94"])
    t = tf
    if "48" in seq:
        kadd(job, n, t, xid(job, c, 48, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at physAddr 0x%x partition %d, subpartition %d." % (addr, rng.randint(0, 31), rng.randint(0, 3)), pid=rng.choice([None, pid])))
        t += timedelta(milliseconds=rng.randint(3, 50))
    if "63" in seq:
        kadd(job, n, t, xid(job, c, 63, "Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % addr, pid=pid))
        t += timedelta(milliseconds=rng.randint(3, 50))
    if "94" in seq:
        kadd(job, n, t, xid(job, c, 94, "Contained: SM (0x1). RST: No, D-RST: No", pid=pid))
    if "95" in seq:
        kadd(job, n, t, xid(job, c, 95, "Uncontained: LTC TAG (0x2, 0x1). RST: Yes, D-RST: No", pid=pid))
    if rng.random() < 0.5:
        kadd(job, n, t + timedelta(milliseconds=30), "NVRM: Xid (PCI:%s): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)" % pci(job, c))
    job.notes.append("Xid %s on %s" % (seq, pci(job, c)))
    td = tf + timedelta(seconds=rng.uniform(0.05, 3))
    if rng.random() < 0.5:
        job.add(td, "rank", c, cuda_err_main(job, c, "uncorrectable ECC error encountered"), flag=True)
        code = 1
    else:
        job.add(td, "rank", c, cuda_err_watchdog(job, c, td, "uncorrectable ECC error encountered"), flag=True)
        code = -6
    cand = {c: (td, code, "culprit", None)}
    add_remote(job, cand, td, c, 0.4)
    return cand


def c_nvlink(job):
    rng = job.rng
    c = job.culprit
    n = job.node_of(c)
    tf = job.tf
    link = rng.randint(0, 17)
    kadd(job, n, tf, xid(job, c, 74, "NVLink: fatal error detected on link %d(0x0, 0x0, 0x%x, 0x0, 0x0, 0x0, 0x0)" % (link, rng.choice([0x10000, 0x20000, 0x100])), pid=job.hpid(c)))
    if job.gpn > 1 and rng.random() < 0.5:
        peer = job.node_of(c) * job.gpn + (job.local(c) + rng.randint(1, job.gpn - 1)) % job.gpn
        kadd(job, n, tf + timedelta(milliseconds=rng.randint(20, 300)), xid(job, peer, 74, "NVLink: fatal error detected on link %d(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)" % rng.randint(0, 17), pid=job.hpid(peer)))
        job.notes.append("sympathetic Xid 74 on peer GPU %s later" % pci(job, peer))
    if rng.random() < 0.5:
        kadd(job, n, tf + timedelta(milliseconds=500), "NVRM: Xid (PCI:%s): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)" % pci(job, c))
    job.notes.append("Xid 74 link %d on %s" % (link, pci(job, c)))
    td = tf + timedelta(seconds=rng.uniform(0.05, 2))
    if rng.random() < 0.5:
        exc = ("torch.distributed.DistBackendError: NCCL error in: /opt/pytorch/pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:317, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s\n"
               "ncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\nCuda failure 'uncorrectable NVLink error detected during the execution'") % job.nccl_ver
        txt = ""
        if job.nccl_info or rng.random() < 0.5:
            txt = nccl_warn(job, c, td, "enqueue.cc:1580", "ncclLaunchKernel", "Cuda failure 'uncorrectable NVLink error detected during the execution'") + "\n"
        job.add(td, "rank", c, txt + py_tb(job, c, train_frames(job)[:3] + [("%s/torch/distributed/distributed_c10d.py" % job.sitepk, 2501, "all_reduce", "work = group.allreduce([tensor], opts)")], exc), flag=True)
        code = 1
    else:
        job.add(td, "rank", c, cuda_err_watchdog(job, c, td, "uncorrectable NVLink error detected during the execution"), flag=True)
        code = -6
    cand = {c: (td, code, "culprit", None)}
    add_remote(job, cand, td, c, 0.4)
    return cand


def ib_src(job):
    if job.nccl_ver >= "2.23":
        return "transport/net_ib/p2p.cc:%d" % job.ib_line
    return "transport/net_ib.cc:%d" % job.ib_line


def ib_wc(job, peer_ip, status_num, hca):
    port = job.rng.randint(33000, 60999)
    names = {12: ("IBV_WC_RETRY_EXC_ERR", "IBV_WC_SEND"), 5: ("IBV_WC_WR_FLUSH_ERR", "IBV_WC_RDMA_WRITE")}
    v = job.nccl_ver
    if v < "2.20":
        return "NET/IB : Got completion from peer %s<%d> with error %d, opcode %d, len %d, vendor err %d" % (peer_ip, port, status_num, job.rng.choice([0, 1]), 0, job.rng.choice([129, 244]))
    if v < "2.24":
        return "NET/IB : Got completion from peer %s<%d> with status=%d opcode=%d len=%d vendor err %d (%s)" % (peer_ip, port, status_num, 0, 0, job.rng.choice([129, 244]), "Send")
    if v < "2.28":
        return "NET/IB: Got completion from peer %s<%d> with status=%d opcode=%d len=%d vendor err %d (%s) hca %s" % (peer_ip, port, status_num, 0, 0, job.rng.choice([129, 244]), "Send", hca)
    s, o = names[status_num]
    return "NET/IB: Got completion from peer %s<%d> with status=%s(%d) opcode=%s(0) vendor_err=%d hca %s" % (peer_ip, port, s, status_num, o, job.rng.choice([129, 244]), hca)


def c_network(job):
    rng = job.rng
    c = job.culprit
    n = job.node_of(c)
    nd = job.nodes[n]
    tf = job.tf
    hca = "mlx5_%d" % rng.randint(0, 7)
    nicbus = rng.choice(["0c", "1a", "41", "5e", "a6", "c1", "d8"])
    if rng.random() < 0.7:
        iface = "ibp%ds0" % int(nicbus, 16)
        kadd(job, n, tf - timedelta(seconds=rng.uniform(0.5, 20)), "mlx5_core 0000:%s:00.0 %s: Link down" % (nicbus, iface))
        if rng.random() < 0.5:
            kadd(job, n, tf - timedelta(seconds=rng.uniform(0.1, 0.4)), "mlx5_core 0000:%s:00.0: mlx5_port_module_event:1153:(pid 0): Port module event[error]: module %d, Cable error, Bus stuck (I2C or data shorted)" % (nicbus, rng.randint(0, 7)))
        # culprit on bad node reports first
        oth = [x for x in job.nodes if x.idx != n]
        peer = rng.choice(oth)
        td = tf + timedelta(seconds=rng.uniform(0.5, 8))
        le = ib_wc(job, peer.ip, 12, hca)
        job.add(td - timedelta(milliseconds=20), "rank", c, "\n" + nccl_warn(job, c, td, ib_src(job), "ncclIbTest", le), flag=True)
        job.add(td, "rank", c, remote_error_lines(job, c, td, le), flag=True)
        cand = {c: (td, -6, "culprit", None)}
        # local siblings on the bad node that also use the NIC
        for r in range(n * job.gpn, (n + 1) * job.gpn):
            if r != c and rng.random() < 0.5:
                cand[r] = (td + timedelta(seconds=rng.uniform(0.2, 6)), -6, "remote", ib_wc(job, rng.choice(oth).ip, 12, hca))
        # peers on other nodes name the bad node's IP
        for r in range(job.world):
            if job.node_of(r) != n and r not in cand and rng.random() < 0.35:
                cand[r] = (td + timedelta(seconds=rng.uniform(0.5, 12)), -6, "remote", ib_wc(job, nd.ip, rng.choice([12, 5]), "mlx5_%d" % rng.randint(0, 7)))
        job.notes.append("IB link down on %s; first WC error from rank %d" % (nd.truth, c))
    else:
        iface = rng.choice(["ens1f0np0", "eth0", "enp94s0f1", "bond0"])
        kadd(job, n, tf, "%s 0000:%s:00.0 %s: NIC Link is Down" % (rng.choice(["ice", "i40e"]), nicbus, iface))
        job.notes.append("socket transport; NIC %s down on %s; every rank times out, rank not nameable" % (iface, nd.truth))
        cand = watchdog_cands(job)
        job.rank_unknowable = True
    return cand


def c_cuda_oom(job):
    rng = job.rng
    c = job.culprit
    tf = job.tf
    l = job.local(c)
    tot = job.gpu_mem
    tried = rng.choice([0.5, 1.0, 2.0, 3.91, 7.82, 15.6, 448.0 / 1024])
    free = rng.uniform(0.05, min(tried, 1.5) * 0.9)
    inuse = tot - free
    alloc = inuse * rng.uniform(0.80, 0.95)
    resv = inuse - alloc - rng.uniform(0.3, 0.9)
    if tried < 1:
        tr = "%.2f MiB" % (tried * 1024)
    else:
        tr = fmt_gib(tried)
    if job.era == "2.1":
        msg = "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate %s. GPU %d has a total capacty of %s of which %s is free. Process %d has %s memory in use. Of the allocated memory %s is allocated by PyTorch, and %s is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF" % (
            tr, l, fmt_gib(tot), "%.2f MiB" % (free * 1024), job.pids[c], fmt_gib(inuse), fmt_gib(alloc), "%.2f MiB" % (max(resv, 0.1) * 1024))
    else:
        msg = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %s. GPU %d has a total capacity of %s of which %s is free. Including non-PyTorch memory, this process has %s memory in use. Of the allocated memory %s is allocated by PyTorch, and %s is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)" % (
            tr, l, fmt_gib(tot), "%.2f MiB" % (free * 1024), fmt_gib(inuse), fmt_gib(alloc), "%.2f MiB" % (max(resv, 0.1) * 1024))
    fr = train_frames(job, deep=False) + [("%s/torch/nn/modules/module.py" % job.sitepk, 1747, "_call_impl", "return forward_call(*args, **kwargs)"),
                                            ("/workspace/model.py", rng.randint(90, 400), "forward", rng.choice(["attn = torch.matmul(q, k.transpose(-2, -1)) * self.scale", "logits = self.lm_head(hidden_states).float()", "x = self.act(self.fc1(x))"]))]
    job.add(tf, "rank", c, py_tb(job, c, fr, msg), flag=True)
    cand = {c: (tf + timedelta(seconds=rng.uniform(0.5, 3)), 1, "culprit", None)}
    job.notes.append("CUDA OOM on local GPU %d" % l)
    if rng.random() < 0.3 and job.world > 2:
        c2 = rng.choice([r for r in range(job.world) if r != c])
        t2 = tf + timedelta(seconds=rng.uniform(1.5, 6))
        job.add(t2, "rank", c2, py_tb(job, c2, fr, msg.replace("GPU %d " % l, "GPU %d " % job.local(c2))))
        cand[c2] = (t2 + timedelta(seconds=1), 1, "oom2", None)
        job.notes.append("second OOM on rank %d %.1fs later" % (c2, (t2 - tf).total_seconds()))
    add_remote(job, cand, tf, c, 0.3)
    return cand


def c_illegal(job):
    rng = job.rng
    c = job.culprit
    n = job.node_of(c)
    tf = job.tf
    v = rng.choice(["ima", "ima", "assert", "xid13"])
    pid = job.hpid(c)
    nm = rng.choice(["python3", "pt_main_thread", "python"])
    if v == "ima":
        if rng.random() < 0.8:
            kadd(job, n, tf, xid(job, c, 31, "channel 0x%08x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC%d GPCCLIENT_T1_%d faulted @ 0x%s_%s000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_%s" % (
                rng.randint(2, 40), rng.randint(0, 7), rng.randint(0, 15), hexs(rng, 4), hexs(rng, 5), rng.choice(["READ", "WRITE"])), pid=pid, name=nm))
        err = "an illegal memory access was encountered"
        pre = ""
    elif v == "xid13":
        kadd(job, n, tf, xid(job, c, 13, "Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (rng.randint(0, 7), rng.randint(0, 8), rng.randint(0, 1)), pid=pid, name=nm))
        kadd(job, n, tf, xid(job, c, 13, "Graphics Exception: ESR 0x%06x=0x%x 0x%06x=0x0 0x%06x=0x%x 0x%06x=0x%x" % (rng.randint(0x500000, 0x5fffff), rng.randint(0, 0xffff), rng.randint(0x500000, 0x5fffff), rng.randint(0x500000, 0x5fffff), rng.randint(0, 0xffff), rng.randint(0x500000, 0x5fffff), rng.randint(0, 0xff)), pid=pid, name=nm))
        err = "an illegal memory access was encountered"
        pre = ""
    else:
        blk = rng.randint(0, 4000)
        pre = "\n".join("/opt/pytorch/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [%d,0,0], thread: [%d,0,0] Assertion `-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"` failed." % (blk, th) for th in range(rng.choice([32, 64]), rng.choice([32, 64]) + rng.randint(4, 12))) + "\n"
        err = "device-side assert triggered"
        if rng.random() < 0.4:
            kadd(job, n, tf + timedelta(milliseconds=50), xid(job, c, 43, "Ch 000000%02x, engmask 00000101" % rng.randint(8, 60), pid=pid, name=nm))
    job.notes.append("illegal access variant %s" % v)
    td = tf + timedelta(seconds=rng.uniform(0.01, 1.5))
    if rng.random() < 0.5:
        job.add(td, "rank", c, pre + cuda_err_main(job, c, err), flag=True)
        code = 1
    else:
        job.add(td, "rank", c, pre + cuda_err_watchdog(job, c, td, err), flag=True)
        code = -6
    cand = {c: (td + timedelta(seconds=0.4), code, "culprit", None)}
    add_remote(job, cand, td, c, 0.4)
    return cand


SINGLE_EXC = [
    ([("/workspace/data/collate.py", 57, "__call__", "attn = [ex['attention_mask'] for ex in batch]")], "KeyError: 'attention_mask'"),
    ([("/workspace/model.py", 212, "forward", "loss = F.cross_entropy(logits.view(-1, V), labels.view(-1))"),
      ("%s/torch/nn/functional.py", 3479, "cross_entropy", "return torch._C._nn.cross_entropy_loss(")], "ValueError: Expected input batch_size (12) to match target batch_size (16)."),
    ([("/workspace/data/packing.py", 88, "pack", "assert len(ids) <= self.max_len, f'sequence length {len(ids)} exceeds max_position_embeddings {self.max_len}'")], "AssertionError: sequence length 8193 exceeds max_position_embeddings 8192"),
    ([("/workspace/data/shards.py", 131, "_open", "return pq.ParquetFile(path)"),
      ("%s/pyarrow/parquet/core.py", 317, "__init__", "source = filesystem.open_input_file(source)")], "FileNotFoundError: [Errno 2] Failed to open local file '/data/shards/train-00417-of-01024.parquet'. Detail: [errno 2] No such file or directory"),
    ([("/workspace/utils/metrics.py", 44, "update", "self.tokens_per_sec = self.tokens / (now - self.t_last)")], "ZeroDivisionError: float division by zero"),
    ([("/workspace/data/jsonl.py", 29, "__getitem__", "return json.loads(self.lines[idx])"),
      ("/usr/lib/python3.10/json/decoder.py", 355, "raw_decode", "raise JSONDecodeError(\"Expecting value\", s, err.value) from None")], "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)"),
]
WIDE_EXC = [
    ([("/workspace/model.py", 61, "__init__", "self.attn = LlamaAttention(cfg, use_flash_attn=cfg.flash)")], "TypeError: LlamaAttention.__init__() got an unexpected keyword argument 'use_flash_attn'"),
    ([("/workspace/%s", 18, "<module>", "from flash_attn import flash_attn_func")], "ModuleNotFoundError: No module named 'flash_attn'"),
    ([("/workspace/config.py", 77, "load", "sched_cfg = cfg.optim.scheduler.warmup_steps")], "omegaconf.errors.ConfigAttributeError: Key 'warmup_steps' is not in struct\n    full_key: optim.scheduler.warmup_steps\n    object_type=dict"),
    ([("/workspace/train_utils.py", 140, "load_checkpoint", "state = torch.load(path, map_location='cpu')")], "FileNotFoundError: [Errno 2] No such file or directory: '/checkpoints/run-17/step_48000/model.pt'"),
]


def c_python_exc(job):
    rng = job.rng
    if job.jobwide:
        fr, exc = rng.choice(WIDE_EXC)
        fr = [(f % job.script if "%s" in f else f, a, b, cc) for f, a, b, cc in fr]
        base = job.t0 + timedelta(seconds=rng.uniform(25, 70))
        cand = {}
        for r in range(job.world):
            t = base + timedelta(seconds=rng.uniform(0, 2.5))
            if r in job.visible:
                job.add(t, "rank", r, py_tb(job, r, [("/workspace/%s" % job.script, 412, "<module>", "main(cfg)")] + fr, exc))
            cand[r] = (t + timedelta(seconds=0.3), 1, "culprit", None)
        job.notes.append("config error on every rank at startup: %s" % exc.split("\n")[0])
        job.tf = base
        return cand
    c = job.culprit
    fr, exc = rng.choice(SINGLE_EXC)
    fr = [(f % job.sitepk if "%s" in f else f, a, b, cc) for f, a, b, cc in fr]
    tf = job.tf
    job.add(tf, "rank", c, py_tb(job, c, train_frames(job, deep=False)[:2] + fr, exc), flag=True)
    job.notes.append("uncaught %s" % exc.split(":")[0])
    cand = {c: (tf + timedelta(seconds=rng.uniform(0.3, 2)), 1, "culprit", None)}
    add_remote(job, cand, tf, c, 0.3)
    return cand


def c_host_oom(job):
    rng = job.rng
    c = job.culprit
    n = job.node_of(c)
    tf = job.tf
    cg = job.layout in ("kf_mpijob", "volcano_prefix", "determined_trial") or rng.random() < 0.3
    worker = rng.random() < 0.4
    pid = job.pids[c]
    if worker:
        kpid = pid + rng.randint(40, 900)
        comm = "pt_data_worker" if job.era == "2.5" else "python3"
    else:
        kpid = pid
        comm = rng.choice(["python3", "pt_main_thread", "python"])
    trig = rng.choice([comm, "python3", "pt_main_thread"])
    kadd(job, n, tf - timedelta(milliseconds=rng.randint(2, 40)), "%s invoked oom-killer: gfp_mask=0x%s(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0" % (trig, rng.choice(["140cca", "100cca", "1100cca"])))
    if cg:
        kadd(job, n, tf - timedelta(milliseconds=1), "Memory cgroup stats for /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice/cri-containerd-%s.scope:" % (hexs(rng, 8), hexs(rng, 16)))
    vm = rng.randint(60, 400) * 1048576
    rss = rng.randint(20, 180) * 1048576
    line = "%s: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:%d" % (
        "Memory cgroup out of memory" if cg else "Out of memory", kpid + job.pidns_off, comm, vm, rss, rng.randint(100000, 900000), rng.randint(0, 40000000), rng.choice([0, 1000]), rng.randint(50000, 400000), rng.choice([0, 900, 1000]))
    kadd(job, n, tf, line)
    kadd(job, n, tf + timedelta(milliseconds=rng.randint(50, 900)), "oom_reaper: reaped process %d (%s), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB" % (kpid + job.pidns_off, comm))
    job.oom_line = line
    job.notes.append("%s OOM kill of %s pid %d" % ("cgroup" if cg else "global", "dataloader worker" if worker else "rank", kpid))
    if worker:
        t = tf + timedelta(seconds=rng.uniform(0.5, 5))
        exc = "RuntimeError: DataLoader worker (pid %d) is killed by signal: Killed. " % kpid
        fr = train_frames(job, deep=False)[:2] + [
            ("/workspace/%s" % job.script, 301, "train_epoch", "for step, batch in enumerate(loader):"),
            ("%s/torch/utils/data/dataloader.py" % job.sitepk, 701, "__next__", "data = self._next_data()"),
            ("%s/torch/utils/data/dataloader.py" % job.sitepk, 1448, "_next_data", "idx, data = self._get_data()"),
            ("%s/torch/utils/data/dataloader.py" % job.sitepk, 1133, "_try_get_data", "raise RuntimeError(f\"DataLoader worker (pid(s) {pids_str}) exited unexpectedly\") from e")]
        job.add(t, "rank", c, py_tb(job, c, fr, exc), flag=True)
        return {c: (t + timedelta(seconds=0.5), 1, "culprit", None)}
    cand = {c: (tf + timedelta(milliseconds=rng.randint(5, 200)), -9, "culprit", None)}
    add_remote(job, cand, tf, c, 0.5)
    return cand


def c_crash(job):
    rng = job.rng
    c = job.culprit
    n = job.node_of(c)
    tf = job.tf
    v = rng.choice(["segv", "segv", "bus", "abrt"])
    sp = job.sitepk
    if v == "segv":
        out = ["Fatal Python error: Segmentation fault", "",
               "Thread 0x00007f%s (most recent call first):" % hexs(rng, 10),
               '  File "/usr/lib/python%s/threading.py", line 331 in wait' % job.py,
               '  File "/usr/lib/python%s/threading.py", line 629 in wait' % job.py,
               '  File "%s/tqdm/_monitor.py", line 60 in run' % sp, "",
               "Current thread 0x00007f%s (most recent call first):" % hexs(rng, 10),
               '  File "%s/%s" line %d in forward' % ("/workspace/kernels", rng.choice(["fused_rope.py", "custom_ops.py", "moe_dispatch.py"]), rng.randint(40, 300)),
               '  File "%s/torch/nn/modules/module.py", line 1747 in _call_impl' % sp,
               '  File "/workspace/model.py", line %d in forward' % rng.randint(100, 400),
               '  File "/workspace/%s", line 228 in train_step' % job.script, "",
               "Extension modules: numpy.core._multiarray_umath, torch._C, torch._C._fft, yaml._yaml (total: 47)"]
        code = -11
        if rng.random() < 0.6:
            kadd(job, n, tf, "%s[%d]: segfault at %x ip 00007f%s sp 00007ffd%s error %d in %s[7f%s+%x]" % (
                rng.choice(["pt_main_thread", "python3"]), job.hpid(c), rng.choice([0, 8, 0x18, 0x40]), hexs(rng, 10), hexs(rng, 8), rng.choice([4, 6]),
                rng.choice(["libcustom_ops.so", "libtorch_cpu.so", "_C.cpython-310-x86_64-linux-gnu.so"]), hexs(rng, 6) + "000", rng.randint(0x100000, 0x2000000)))
    elif v == "bus":
        out = ["Fatal Python error: Bus error", "",
               "Current thread 0x00007f%s (most recent call first):" % hexs(rng, 10),
               '  File "%s/torch/storage.py", line 440 in _load_from_bytes' % sp,
               '  File "/workspace/data/mmap_dataset.py", line %d in __getitem__' % rng.randint(40, 200),
               '  File "/workspace/%s", line 301 in train_epoch' % job.script]
        code = -7
    else:
        out = [rng.choice(["double free or corruption (!prev)", "free(): invalid next size (fast)", "malloc(): corrupted top size"]),
               "Fatal Python error: Aborted", "",
               "Current thread 0x00007f%s (most recent call first):" % hexs(rng, 10),
               '  File "/workspace/kernels/custom_ops.py", line %d in backward' % rng.randint(40, 300),
               '  File "%s/torch/autograd/function.py", line 306 in apply' % sp]
        code = -6
    job.notes.append("native crash %s" % v)
    job.add(tf, "rank", c, "\n".join(out), flag=True)
    cand = {c: (tf + timedelta(milliseconds=rng.randint(10, 300)), code, "culprit", None)}
    add_remote(job, cand, tf, c, 0.5)
    return cand


def c_preemption(job):
    rng = job.rng
    tf = job.tf
    cand = {}
    for r in range(job.world):
        cand[r] = (tf + timedelta(milliseconds=rng.randint(200, 3000)), -15, "gang", None)
    job.gang_t = tf
    job.notes.append("job-wide SIGTERM (%s)" % job.preempt_kind)
    return cand


def c_hang(job):
    rng = job.rng
    c = job.culprit
    n = job.node_of(c)
    tf = job.tf
    v = rng.choice(["fr_dump", "pyspy", "frtrace", "none", "heartbeat"])
    if v == "fr_dump" and job.era != "2.5":
        v = "pyspy"
    if v == "frtrace" and not job.fr_on:
        v = "pyspy"
    job.notes.append("hang evidence=%s" % v)
    cand = watchdog_cands(job, exclude=(c,))
    first = min(cand.values(), key=lambda x: x[0])[0]
    if v == "heartbeat":
        tt = tf + timedelta(seconds=480 + rng.uniform(0, 30))
        P = glog(job, c, tt, "F", job.pg_line + 700)
        job.add(tt, "rank", c, P + lpfx(job, c) + "ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued collectives. This typically indicates a NCCL/CUDA API (e.g., CudaEvent.query/synchronize) hang blocking the watchdog, and could be triggered by another thread holding the GIL inside a CUDA api (for example, CudaEventDestroy), or other deadlock-prone behaviors.If you suspect the watchdog is not actually stuck and a longer timeout would help, you can either increase the timeout (TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC) to a larger value or disable the heartbeat monitor (TORCH_NCCL_ENABLE_MONITORING=0).If either of aforementioned helps, feel free to file an issue to PyTorch about the short timeout or false positive abort; otherwise, please attempt to debug the hang. ", flag=True)
        cand[c] = (tt + timedelta(seconds=rng.uniform(1, 15)), -6, "culprit", None)
    elif v == "fr_dump":
        tt = first + timedelta(seconds=rng.uniform(0.5, 2))
        P = glog(job, c, tt, "E", job.pg_line + 680)
        job.add(tt, "rank", c, P + lpfx(job, c) + "Observed flight recorder dump signal from another rank via TCPStore.\n" +
                P + lpfx(job, c) + "Received a dump signal due to a collective timeout from rank %d and we will try our best to dump the debug info. Last enqueued NCCL work: %d, last completed NCCL work: %d.This is most likely caused by incorrect usages of collectives, e.g., wrong sizes used across ranks, the order of collectives is not same for all ranks or the scheduled collective, for some reason, didn't run. Additionally, this can be caused by GIL deadlock or other reasons such as network errors or bugs in the communications library (e.g. NCCL), etc. " % (
                    min(k for k in cand if k != c), job.seq - 1, job.seq - 1), flag=True)
    elif v == "pyspy":
        job.extra_files["py-spy-dump-rank%d.txt" % c] = pyspy(job, c, "hang")
        job.extra_flag = True
    elif v == "frtrace":
        job.extra_files["fr_trace_analysis.txt"] = frtrace(job, c, "missing")
        job.extra_flag = True
    else:
        job.rank_unknowable = True
    if rng.random() < 0.5:
        job.step_note_hang = True
    return cand


def pyspy(job, c, kind):
    rng = job.rng
    pid = job.pids[c]
    sp = job.sitepk
    hdr = ["Process %d: %s -u /workspace/%s --config configs/%s.yaml" % (pid, job.pybin, job.script, job.jobname.split("-")[0]),
           "Python v%s.%d (%s)" % (job.py, rng.randint(4, 14), job.pybin), ""]
    if kind == "hang":
        stack = rng.choice([
            ["    _acquire_restore (threading.py:286)", "    wait (threading.py:320)", "    wait (threading.py:607)",
             "    save_async (/workspace/ckpt/async_saver.py:97)", "    maybe_checkpoint (/workspace/%s:355)" % job.script],
            ["    synchronize (%s/torch/cuda/__init__.py:954)" % sp, "    log_memory (/workspace/utils/mem.py:31)", "    train_step (/workspace/%s:240)" % job.script],
            ["    acquire (/workspace/utils/filelock.py:61)", "    write_metrics (/workspace/utils/logger.py:118)", "    train_step (/workspace/%s:262)" % job.script]])
    else:
        stack = ["    wait (threading.py:324)", "    get (queue.py:180)",
                 "    _try_get_data (%s/torch/utils/data/dataloader.py:1133)" % sp,
                 "    _get_data (%s/torch/utils/data/dataloader.py:1294)" % sp,
                 "    _next_data (%s/torch/utils/data/dataloader.py:1448)" % sp,
                 "    __next__ (%s/torch/utils/data/dataloader.py:701)" % sp,
                 "    train_epoch (/workspace/%s:301)" % job.script]
    body = ['Thread %d (idle): "MainThread"' % pid] + stack + ["    main (/workspace/%s:371)" % job.script, "    <module> (/workspace/%s:412)" % job.script, "",
            'Thread %d (idle): "Thread-2 (_pin_memory_loop)"' % (pid + 41), "    select (selectors.py:415)", "    wait (multiprocessing/connection.py:947)", ""]
    note = "# py-spy dump --pid %d taken on %s at %s (rank %d, local_rank %d)\n" % (pid, job.nodes[job.node_of(c)].host, job.lt(job.tf + timedelta(seconds=400)).strftime("%Y-%m-%d %H:%M:%S%z"), c, job.local(c))
    return note + "\n".join(hdr + body) + "\n"


def frtrace(job, c, kind, op2=None):
    W = job.world
    exp = "[%s]" % ", ".join(str(i) for i in range(min(W, 16))) + (" ... %d more" % (W - 16) if W > 16 else "")
    out = ["$ torchfrtrace /tmp/fr_dumps --prefix nccl_trace_rank_",
           "loaded %d files in %.2fs" % (W, job.rng.uniform(0.5, 40)),
           "Not all ranks joining collective %d at entry %d" % (job.seq, job.rng.randint(100, 1999)),
           "internal record id: %d" % job.rng.randint(1000, 90000),
           "group info: 0:default_pg",
           "collective: nccl:%s" % job.op.lower().strip("_").replace("allreduce", "all_reduce").replace("allgather_base", "_allgather_base"),
           ]
    if kind == "missing":
        out += ["missing ranks: {%d}" % c,
                "input sizes: [[%d]]" % job.numel, "output sizes: [[%d]]" % job.numel,
                "world size: %d" % W, "expected ranks: %s" % exp, "collective state: scheduled"]
    else:
        out += ["input sizes: [[%d]]" % job.numel, "output sizes: [[%d]]" % job.numel,
                "world size: %d" % W, "expected ranks: %s" % exp, "collective state: scheduled",
                "error msg: Culprit rank %d; Error type: COLLECTIVE_TYPE_MISMATCH, Expected collective type: 'nccl:all_reduce' does not match found collective type: 'nccl:%s'" % (c, op2)]
    out.append("collective stack trace:")
    out.append("all_reduce at %s/torch/distributed/distributed_c10d.py:2501" % job.sitepk)
    return "\n".join(out) + "\n"


def c_dl_stall(job):
    rng = job.rng
    tf = job.tf
    sp = job.sitepk
    if job.jobwide:
        fs = rng.choice(["nfs", "lustre", "hung"])
        srv = rng.choice(["nfs-store-01", "10.3.0.12", "fsx-prod"])
        for n in job.vis_nodes:
            t = tf + timedelta(seconds=rng.uniform(5, 60))
            if fs == "nfs":
                kadd(job, n, t, "nfs: server %s not responding, still trying" % srv)
            elif fs == "lustre":
                kadd(job, n, t, "Lustre: %d:0:(client.c:2295:ptlrpc_expire_one_request()) @@@ Request sent has timed out for slow reply: [sent %d/real 0]  req@%s x%d/t0(0) o400->lustre-OST0007-osc-ffff%s@10.3.0.%d@o2ib:28/4 lens 224/224 e 0 to 1 dl %d ref 2 fl Rpc:XNQr/0/ffffffff rc 0/-1" % (
                    rng.randint(1000, 99999), rng.randint(10 ** 9, 2 * 10 ** 9), hexs(rng, 16), rng.randint(10 ** 12, 10 ** 13), hexs(rng, 12), rng.randint(2, 60), rng.randint(10 ** 9, 2 * 10 ** 9)))
            if fs == "hung" or rng.random() < 0.5:
                tp = job.pids[n * job.gpn] + rng.randint(40, 400)
                kadd(job, n, t + timedelta(seconds=120), "INFO: task %s:%d blocked for more than 120 seconds.\n      Tainted: P           OE      %s #1\n\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message." % (
                    rng.choice(["pt_data_worker", "python3"]), tp, rng.choice(["5.15.0-105-generic", "6.8.0-45-generic", "5.14.0-427.el9.x86_64"])))
        to = rng.choice([600, 1200, 1800])
        cand = {}
        for r in range(job.world):
            t = tf + timedelta(seconds=to + rng.uniform(0, 20))
            if r in job.visible:
                job.add(t, "rank", r, py_tb(job, r, train_frames(job, deep=False)[:2] + [
                    ("/workspace/%s" % job.script, 301, "train_epoch", "for step, batch in enumerate(loader):"),
                    ("%s/torch/utils/data/dataloader.py" % sp, 701, "__next__", "data = self._next_data()"),
                    ("%s/torch/utils/data/dataloader.py" % sp, 1448, "_next_data", "idx, data = self._get_data()"),
                    ("%s/torch/utils/data/dataloader.py" % sp, 1294, "_get_data", "success, data = self._try_get_data(self._timeout)"),
                    ("%s/torch/utils/data/dataloader.py" % sp, 1145, "_try_get_data", "raise RuntimeError(f\"DataLoader timed out after {timeout} seconds\") from e")],
                    "RuntimeError: DataLoader timed out after %d seconds" % to))
            cand[r] = (t + timedelta(seconds=0.5), 1, "culprit", None)
        job.notes.append("shared FS stall (%s); every rank's DataLoader timed out after %ds" % (fs, to))
        return cand
    c = job.culprit
    v = rng.choice(["timeout", "pyspy", "pyspy", "slowread"])
    job.notes.append("single-rank dataloader stall evidence=%s" % v)
    if v == "timeout":
        to = rng.choice([120, 300, 300, 450])
        t = tf + timedelta(seconds=to)
        job.add(t, "rank", c, py_tb(job, c, train_frames(job, deep=False)[:2] + [
            ("/workspace/%s" % job.script, 301, "train_epoch", "for step, batch in enumerate(loader):"),
            ("%s/torch/utils/data/dataloader.py" % sp, 701, "__next__", "data = self._next_data()"),
            ("%s/torch/utils/data/dataloader.py" % sp, 1448, "_next_data", "idx, data = self._get_data()"),
            ("%s/torch/utils/data/dataloader.py" % sp, 1145, "_try_get_data", "raise RuntimeError(f\"DataLoader timed out after {timeout} seconds\") from e")],
            "RuntimeError: DataLoader timed out after %d seconds" % to), flag=True)
        cand = {c: (t + timedelta(seconds=0.6), 1, "culprit", None)}
        add_remote(job, cand, t, c, 0.3)
        return cand
    cand = watchdog_cands(job, exclude=(c,))
    if v == "pyspy":
        job.extra_files["py-spy-dump-rank%d.txt" % c] = pyspy(job, c, "dl")
        job.extra_flag = True
    else:
        shard = "/data/shards/train-%05d-of-01024.%s" % (rng.randint(0, 1023), rng.choice(["parquet", "arrow", "tar"]))
        tw = tf - timedelta(seconds=rng.uniform(60, 200))
        lt = job.lt(tw)
        job.add(tw, "rank", c, "%s,%03d - WARNING - data.streaming - slow read: %s took %.1fs (> 60s), retrying (attempt 1/5)" % (
            lt.strftime("%Y-%m-%d %H:%M:%S"), lt.microsecond // 1000, shard, rng.uniform(61, 190)), flag=True)
    return cand


def c_mismatch(job):
    rng = job.rng
    c = job.culprit
    tf = job.tf
    op2 = rng.choice([o for o in ["BROADCAST", "ALLGATHER", "ALLREDUCE", "_REDUCE_SCATTER_BASE"] if o != job.op])
    v = rng.choice(["detail", "timeout", "timeout", "frtrace"])
    if v == "frtrace" and not job.fr_on:
        v = "timeout"
    job.notes.append("rank %d calls %s while others call %s (evidence=%s)" % (c, op2, job.op, v))
    if v == "detail":
        fp = "CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%d], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))"
        cand = {}
        for r in range(job.world):
            t = tf + timedelta(seconds=rng.uniform(0.01, 1.0))
            if r == c:
                other = 0 if c != 0 else 1
                msg = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s." % (
                    c, fp % (job.seq, op2, job.numel), other, fp % (job.seq, job.op, job.numel))
            else:
                msg = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s." % (
                    r, fp % (job.seq, job.op, job.numel), c, fp % (job.seq, op2, job.numel))
            if r in job.visible:
                job.add(t, "rank", r, py_tb(job, r, train_frames(job, deep=False)[:3] + [
                    ("%s/torch/distributed/c10d_logger.py" % job.sitepk, 83, "wrapper", "return func(*args, **kwargs)"),
                    ("%s/torch/distributed/distributed_c10d.py" % job.sitepk, 2501, "all_reduce", "work = group.allreduce([tensor], opts)")], msg), flag=True)
            cand[r] = (t + timedelta(seconds=0.4), 1, "culprit" if r == c else "mm", None)
        job.notes.append("TORCH_DISTRIBUTED_DEBUG=DETAIL")
        return cand
    cand = watchdog_cands(job)
    t, code, kind, ran = cand[c]
    if c in job.visible:
        job.add(t, "rank", c, watchdog_timeout_lines(job, c, t, job.seq, ran, op=op2, numel=rng.choice([job.numel // 2 + 1, job.numel * 2, 1])), flag=True)
    cand[c] = (t, code, "culprit", ran)
    if v == "frtrace":
        job.extra_files["fr_trace_analysis.txt"] = frtrace(job, c, "mismatch", op2.lower().strip("_").replace("allreduce", "all_reduce").replace("allgather", "all_gather"))
        job.extra_flag = True
    return cand


def c_straggler(job):
    rng = job.rng
    c = job.culprit
    slow = rng.uniform(1.35, 2.4)
    base = job.step_time * rng.uniform(0.55, 0.75)
    t = job.tf
    every = rng.choice([50, 100, 200])
    vis = job.visible[:32]
    k = 0
    tt = job.t_train + timedelta(seconds=job.step_time * every)
    onset = job.t_train + (job.tf - job.t_train) * rng.uniform(0.0, 0.5)
    job.strag_onset = onset
    job.strag_slow = slow
    while tt < job.t_end and k < 40:
        step = job.start_step + every * (k + 1)
        for r in vis:
            s = slow if (r == c and tt >= onset) else 1.0
            comp = base * s * rng.uniform(0.97, 1.03)
            wait = max(0.002, base * (slow if tt >= onset else 1.0) - comp + rng.uniform(0.001, 0.02) * base)
            job.add(tt + timedelta(milliseconds=rng.randint(0, 300)), "rank", r,
                    "[rank %d] step %d timings(ms): fwd_bwd=%.1f optimizer=%.1f allreduce_wait=%.1f data=%.1f" % (
                        r, step, comp * 1000, base * 40 * rng.uniform(0.9, 1.1), wait * 1000, rng.uniform(0.5, 4.0)), "out",
                    flag=(r == c and tt >= onset))
        k += 1
        tt += timedelta(seconds=job.step_time * every * (slow if tt >= onset else 1.0))
    if rng.random() < 0.4:
        n = job.node_of(c)
        snap = ["# nvidia-smi -q -d PERFORMANCE (taken on %s)" % job.nodes[n].host, "", "==============NVSMI LOG==============", ""]
        for l in range(job.gpn):
            snap += ["GPU 00000000:%s:00.0" % job.bus[l % 8].upper(), "    Performance",
                     "        Clocks Event Reasons",
                     "            Idle                              : Not Active",
                     "            Applications Clocks Setting       : Not Active",
                     "            SW Power Cap                      : Not Active",
                     "            HW Slowdown                       : Not Active",
                     "                HW Thermal Slowdown           : Not Active",
                     "                HW Power Brake Slowdown       : Not Active",
                     "            Sync Boost                        : Not Active",
                     "            SW Thermal Slowdown               : %s" % ("Active" if l == job.local(c) else "Not Active"),
                     "            Display Clock Setting             : Not Active", ""]
        job.extra_files["nvidia-smi-%s.txt" % job.nodes[n].host.replace("/", "_")] = "\n".join(snap) + "\n"
        job.notes.append("SW thermal slowdown on local GPU %d" % job.local(c))
        job.extra_flag = True
    job.notes.append("rank %d %.2fx slower from %s" % (c, slow, job.lt(onset).strftime("%H:%M")))
    return None


def c_unknown(job):
    rng = job.rng
    c = job.culprit
    tf = job.tf
    code = rng.choice([1, 1, 255])
    job.notes.append("rank %d exits %d with no message (cause not in logs)" % (c, code))
    cand = {c: (tf, code, "culprit", None)}
    add_remote(job, cand, tf, c, 0.5)
    return cand


CAUSE_FN = {
    "gpu_hardware": c_gpu_hardware, "ecc_memory": c_ecc, "nvlink": c_nvlink, "network": c_network,
    "cuda_oom": c_cuda_oom, "illegal_memory_access": c_illegal, "python_exception": c_python_exc,
    "host_oom_kill": c_host_oom, "crash_signal": c_crash, "preemption": c_preemption, "hang": c_hang,
    "data_loader_stall": c_dl_stall, "collective_mismatch": c_mismatch, "straggler": c_straggler,
    "unknown": c_unknown,
}


# ------------------------------------------------------------ decoys
OLD_XIDS = [
    (13, "Graphics SM Warp Exception on (GPC 3, TPC 1, SM 0): Out Of Range Address"),
    (31, "channel 0x00000009, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC2 GPCCLIENT_T1_4 faulted @ 0x7f3a_1c000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ"),
    (43, "Ch 00000020, engmask 00000101"),
    (63, "Row Remapper: New row (0x00000000a7d11c40) marked for remapping, reset gpu to activate."),
    (48, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at physAddr 0x2c41f7e0 partition 12, subpartition 1."),
    (74, "NVLink: fatal error detected on link 7(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)"),
    (79, "GPU has fallen off the bus."),
    (94, "Contained: SM (0x1). RST: No, D-RST: No"),
]


def add_decoys(job):
    rng = job.rng
    pool = ["old_xid", "link_flap", "warn_storm", "oom_other", "barrier_warn", "old_xid"]
    k = rng.choice([1, 2, 2, 3])
    picks = []
    while len(picks) < k:
        d = rng.choice(pool)
        if d not in picks:
            picks.append(d)
    job.decoys += picks
    vn = job.vis_nodes
    hwc = job.cause in DRAIN_CAUSES
    cn = job.node_of(job.culprit) if job.culprit is not None else None
    for d in picks:
        if d == "old_xid":
            cands = [n for n in vn if not (hwc and n == cn)] or vn
            n = rng.choice(cands)
            code, body = rng.choice(OLD_XIDS)
            if code == 79 and job.kfmt in ("dmesg", "kmsg", "dmesgT"):
                code, body = OLD_XIDS[3]
            span = (job.t0 - job.boot[n]).total_seconds()
            t = job.boot[n] + timedelta(seconds=span * rng.uniform(0.05, 0.6))
            r = n * job.gpn + rng.randrange(job.gpn)
            pid = rng.randint(3000, 4000000)
            msg = "NVRM: Xid (PCI:%s): %d, pid=%d, name=%s, %s" % (pci(job, r), code, pid, rng.choice(["python3", "dcgmi", "nvidia-smi", "python"]), body)
            if code == 79:
                msg = "NVRM: Xid (PCI:%s): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." % pci(job, r)
            kadd(job, n, t, msg)
            if code == 79:
                job.add(t + timedelta(hours=rng.uniform(2, 30)), "kern", n, "-- Boot %s --" % hexs(rng, 32))
            job.notes.append("decoy: old Xid %d on %s %.1f days before" % (code, job.nodes[n].truth, (job.tf - t).total_seconds() / 86400))
        elif d == "link_flap":
            n = rng.choice(vn)
            t = job.t0 + (job.tf - job.t0) * rng.uniform(0.05, 0.7)
            if t > job.tf - timedelta(minutes=20):
                t = job.t0 - timedelta(hours=rng.uniform(1, 30))
            nb = rng.choice(["0c", "1a", "41", "a6", "c1"])
            kadd(job, n, t, "mlx5_core 0000:%s:00.0 ibp%ds0: Link down" % (nb, int(nb, 16)))
            kadd(job, n, t + timedelta(seconds=rng.uniform(1.5, 9)), "mlx5_core 0000:%s:00.0 ibp%ds0: Link up" % (nb, int(nb, 16)))
            job.notes.append("decoy: recovered link flap on %s" % job.nodes[n].truth)
        elif d == "oom_other":
            n = rng.choice(vn)
            t = job.t0 - timedelta(hours=rng.uniform(3, 90))
            if t < job.boot[n]:
                t = job.boot[n] + timedelta(minutes=30)
            comm = rng.choice(["jupyter-lab", "node_exporter", "python3", "tensorboard"])
            p = rng.randint(3000, 4000000)
            kadd(job, n, t, "%s: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:0kB, UID:1000 pgtables:%dkB oom_score_adj:0" % (
                rng.choice(["Out of memory", "Memory cgroup out of memory"]), p, comm, rng.randint(10 ** 6, 10 ** 8), rng.randint(10 ** 6, 6 * 10 ** 7), rng.randint(1000, 90000), rng.randint(1000, 90000)))
            job.notes.append("decoy: old unrelated OOM kill (%s) on %s" % (comm, job.nodes[n].truth))
        elif d == "barrier_warn":
            ti = job.t0 + timedelta(seconds=rng.uniform(41, 60))
            for r in job.visible[:32]:
                if job.era == "2.5":
                    txt = "[rank%d]:[W%s %s.%s ProcessGroupNCCL.cpp:4561] [PG ID 0 PG GUID 0 Rank %d]  using GPU %d to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect. Specify device_ids in barrier() to force use of a particular device, or call init_process_group() with a device_id." % (
                        r, job.lt(ti).strftime("%m%d"), job.lt(ti).strftime("%H:%M:%S"), ns9(ti), r, job.local(r))
                elif job.nccl_info:
                    txt = "%s:%d:%d [%d] NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin." % (nccl_host(job, r), job.pids[r], job.pids[r], job.local(r))
                else:
                    txt = "%s/torch/distributed/distributed_c10d.py:4807: UserWarning: No device id is provided via `init_process_group` or `barrier `. Using the current device set by the user. \n  warnings.warn(  # warn only once" % job.sitepk
                job.add(ti + timedelta(milliseconds=rng.randint(0, 900)), "rank", r, txt)
            job.notes.append("decoy: benign init/barrier warnings")
        elif d == "warn_storm":
            job.notes.append("decoy: UserWarning storm")


# ------------------------------------------------------------ rendering helpers
def human_dur(sec):
    s = int(sec)
    if s < 120:
        return "%ds" % max(s, 1)
    m = s // 60
    if m < 10:
        return "%dm%ds" % (m, s % 60) if s % 60 else "%dm" % m
    if m < 180:
        return "%dm" % m
    h = m // 60
    if h < 8:
        return "%dh%dm" % (h, m % 60) if m % 60 else "%dh" % h
    if h < 48:
        return "%dh" % h
    if h < 24 * 8:
        return "%dd%dh" % (h // 24, h % 24) if h % 24 else "%dd" % (h // 24)
    return "%dd" % (h // 24)


def table(rows):
    w = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    out = []
    for r in rows:
        out.append("   ".join(str(x).ljust(w[i]) for i, x in enumerate(r)).rstrip())
    return "\n".join(out)


def sorted_events(job, kinds=None):
    ev = [e for e in job.ev if kinds is None or e[2] in kinds]
    ev.sort(key=lambda e: (e[0], e[1]))
    return ev


def rank_visible(job, e):
    return e[2] != "rank" or e[3] in job.visible_set


def mark_seen(job, e):
    if e[6]:
        job.flag_seen = True


def tee(job, r, line):
    if job.tee:
        return "[default%d]:%s" % (job.local(r), line)
    return line


def kernel_files(job, namer):
    files = {}
    for n in sorted(job.kern_nodes):
        nd = job.nodes[n]
        lines = []
        if job.kfmt in ("journal", "journal_iso"):
            first = min(e[0] for e in job.ev if e[2] == "kern" and e[3] == n)
            lines.append("-- Logs begin at %s %s, end at %s %s. --" % (job.lt(first - timedelta(days=1)).strftime("%a %Y-%m-%d %H:%M:%S"), job.tzabbr,
                                                                       job.lt(job.t_end + timedelta(minutes=5)).strftime("%a %Y-%m-%d %H:%M:%S"), job.tzabbr))
        for e in sorted_events(job, ("kern",)):
            if e[3] != n:
                continue
            if e[5].startswith("-- Boot"):
                if job.kfmt in ("journal", "journal_iso"):
                    lines.append(e[5])
                continue
            mark_seen(job, e)
            lines.append(kern_line(job, nd, e[0], e[5]))
        files[namer(nd)] = "\n".join(lines) + "\n"
    return files


SIGTXT = {6: "Aborted", 9: "Killed", 11: "Segmentation fault", 7: "Bus error", 15: "Terminated"}


def first_failure(job):
    fs = [(v[0], r, v[1]) for r, v in job.ends.items() if v[1] != 0 and v[2] not in ("gang", "sibling")]
    if not fs:
        fs = [(v[0], r, v[1]) for r, v in job.ends.items() if v[1] != 0]
    return min(fs) if fs else None


def k8s_events(job, pods_nodes, capture, extra):
    rng = job.rng
    rows = [("LAST SEEN", "TYPE", "REASON", "OBJECT", "SUBOBJECT", "SOURCE", "MESSAGE", "FIRST SEEN", "COUNT", "NAME")]
    evs = []
    for pod, nd in pods_nodes:
        t = job.t0 - timedelta(seconds=rng.uniform(20, 90))
        evs.append((t, "Normal", "Scheduled", "pod/" + pod, "", job.k8s_sched, "Successfully assigned %s/%s to %s" % (job.ns, pod, nd.k8s), 1))
        evs.append((t + timedelta(seconds=2), "Normal", "Pulled", "pod/" + pod, "spec.containers{%s}" % job.container, "kubelet, " + nd.k8s, 'Container image "%s" already present on machine' % job.image, 1))
        evs.append((t + timedelta(seconds=3), "Normal", "Created", "pod/" + pod, "spec.containers{%s}" % job.container, "kubelet, " + nd.k8s, "Created container %s" % job.container, 1))
        evs.append((t + timedelta(seconds=4), "Normal", "Started", "pod/" + pod, "spec.containers{%s}" % job.container, "kubelet, " + nd.k8s, "Started container %s" % job.container, 1))
    evs += extra
    evs = [e for e in evs if capture - e[0] < timedelta(hours=1) or e[2] not in ("Scheduled", "Pulled", "Created", "Started")]
    evs.sort(key=lambda e: (e[0], e[3]))
    if not evs:
        return "No resources found in %s namespace.\n" % job.ns
    for e in evs:
        t, ty, rs, ob, sub, src, msg, cnt = e
        rows.append((human_dur((capture - t).total_seconds()), ty, rs, ob, sub, src, msg, human_dur((capture - t).total_seconds() + (cnt - 1) * 30), cnt,
                     "%s.%s" % (ob.split("/", 1)[1], hexs(rng, 16))))
    return table(rows) + "\n"


def k8s_extra_events(job, pods_of_node):
    """scheduler / kubelet / node-problem-detector events for the fault."""
    rng = job.rng
    ex = []
    if job.cause == "preemption":
        for n in range(min(job.nnodes, 12)):
            pod = pods_of_node(n)
            nd = job.nodes[n]
            if job.preempt_kind == "kueue":
                pass
            else:
                ex.append((job.tf - timedelta(seconds=1), "Normal", "Preempted", "pod/" + pod, "", job.k8s_sched, "Preempted by pod %s on node %s" % (
                    "%s-%s-%s-%s-%s" % (hexs(rng, 8), hexs(rng, 4), hexs(rng, 4), hexs(rng, 4), hexs(rng, 12)), nd.k8s), 1))
            ex.append((job.tf, "Normal", "Killing", "pod/" + pod, "spec.containers{%s}" % job.container, "kubelet, " + nd.k8s, "Stopping container %s" % job.container, 1))
        if job.preempt_kind == "kueue":
            ex.append((job.tf - timedelta(seconds=2), "Normal", "Preempted", "workload/%s-%s" % (job.layout == "kf_mpijob" and "mpijob-" + job.jobname or "job-" + job.jobname, hexs(rng, 5)), "",
                       "kueue-admission", "Preempted to accommodate a workload (UID: %s-%s-%s-%s-%s) due to prioritization in the ClusterQueue" % (hexs(rng, 8), hexs(rng, 4), hexs(rng, 4), hexs(rng, 4), hexs(rng, 12)), 1))
    elif job.gang_t is not None:
        ff = first_failure(job)
        for n in range(job.nnodes):
            if n not in job.vis_nodes and n != job.node_of(ff[1]):
                continue
            pod = pods_of_node(n)
            nd = job.nodes[n]
            if job.layout == "volcano_prefix" and n != job.node_of(ff[1]):
                ex.append((job.gang_t, "Normal", "Killing", "pod/" + pod, "spec.containers{%s}" % job.container, "kubelet, " + nd.k8s, "Stopping container %s" % job.container, 1))
        if job.layout == "volcano_prefix":
            fp = pods_of_node(job.node_of(ff[1]))
            ex.append((job.gang_t - timedelta(seconds=1), "Warning", "PodFailed", "job/" + job.jobname, "", "vc-controller-manager",
                       "Pod %s/%s failed, execute policy AbortJob (event PodFailed)" % (job.ns, fp), 1))
    if job.cause == "host_oom_kill" and job.oom_line:
        n = job.node_of(job.culprit)
        nd = job.nodes[n]
        ex.append((job.tf, "Warning", "OOMKilling", "node/" + nd.k8s, "", "kernel-monitor, " + nd.k8s, job.oom_line, 1))
    if job.cause == "network" and not job.rank_unknowable:
        pass
    return ex


def render_mpijob(job):
    rng = job.rng
    files = {}
    L = []
    launcher = "%s-launcher-%s" % (job.jobname, alnum(rng, 5))
    t = job.t0 + timedelta(seconds=rng.uniform(3, 9))
    for n in job.vis_nodes[:16]:
        nd = job.nodes[n]
        L.append((t, "Warning: Permanently added '%s.%s-worker.%s.svc' (ED25519) to the list of known hosts." % (nd.pod, job.jobname, job.ns)))
        t += timedelta(milliseconds=rng.randint(5, 80))
    for e in sorted_events(job, ("rank",)):
        if e[3] not in job.visible_set:
            continue
        mark_seen(job, e)
        L.append((e[0] + timedelta(microseconds=50 + (e[0].microsecond * 31 + e[3]) % 2900), "[1,%d]<%s>:%s" % (e[3], "stdout" if e[4] == "out" else "stderr", e[5])))
    ff = first_failure(job) if job.ends else None
    sep = "-" * 74
    if job.cause == "preemption":
        tp = job.tf
        L.append((tp, "mpirun: Forwarding signal 15 to job"))
        r0 = min(job.ends, key=lambda r: (job.ends[r][0], r))
        nd = job.nodes[job.node_of(r0)]
        L.append((job.ends[r0][0] + timedelta(milliseconds=300), "\n".join([sep, "mpirun noticed that process rank %d with PID %d on node %s exited on signal 15 (Terminated)." % (r0, job.pids[r0], nd.pod), sep])))
    elif ff is not None and job.cause != "straggler":
        tt, r, code = ff
        nd = job.nodes[job.node_of(r)]
        blk = [sep, "Primary job  terminated normally, but 1 process returned", "a non-zero exit code. Per user-direction, the job has been aborted.", sep]
        if code < 0:
            blk += [sep, "mpirun noticed that process rank %d with PID %d on node %s exited on signal %d (%s)." % (r, job.pids[r], nd.pod, -code, SIGTXT.get(-code, "Unknown signal")), sep]
        else:
            blk += [sep, "mpirun detected that one or more processes exited with non-zero status, thus causing", "the job to be terminated. The first process to do so was:", "",
                    "  Process name: [[%d,1],%d]" % (job.mpi_jobid, r), "  Exit code:    %d" % code, sep]
        L.append((job.gang_t or tt, "\n".join(blk)))
        if r == job.culprit:
            job.flag_seen = True
    L.sort(key=lambda x: x[0])
    out = []
    for t, txt in L:
        for ln in txt.split("\n"):
            out.append("%s %s" % (rfc3339nano(t), ln))
    files["kubectl-logs-timestamps-%s.txt" % launcher] = "\n".join(out) + "\n"
    # worker pods: sshd only
    for n in job.vis_nodes[:rng.choice([1, 2, 3])]:
        nd = job.nodes[n]
        lip = "10.%d.%d.%d" % (rng.randint(0, 255), rng.randint(0, 255), rng.randint(2, 250))
        port = rng.randint(33000, 60000)
        w = [(job.t0 - timedelta(seconds=20), "Server listening on 0.0.0.0 port 22."),
             (job.t0 - timedelta(seconds=20), "Server listening on :: port 22."),
             (job.t0 + timedelta(seconds=4), "Accepted publickey for mpiuser from %s port %d ssh2: ED25519 SHA256:%s" % (lip, port, base64.b64encode(bytes(rng.randrange(256) for _ in range(32))).decode().rstrip("="))),
             ]
        if job.gang_t is not None:
            w.append((job.gang_t + timedelta(seconds=1), "Received disconnect from %s port %d:11: disconnected by user" % (lip, port)))
            w.append((job.gang_t + timedelta(seconds=1), "Disconnected from user mpiuser %s port %d" % (lip, port)))
        files["kubectl-logs-timestamps-%s.txt" % nd.pod] = "\n".join("%s %s" % (rfc3339nano(t), x) for t, x in w) + "\n"
    # pods
    cap = job.capture
    rows = [("NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE", "READINESS GATES")]
    lst = "Error" if job.final_status == "failed" else ("Running" if job.final_status == "running" else "Completed")
    rows.append((launcher, "0/1" if lst != "Running" else "1/1", lst, 0, human_dur((cap - job.t0).total_seconds()), "10.%d.%d.%d" % (rng.randint(0, 255), rng.randint(0, 255), rng.randint(2, 250)), job.nodes[0].k8s, "<none>", "<none>"))
    for n in range(job.nnodes):
        nd = job.nodes[n]
        rows.append((nd.pod, "1/1" if lst != "Completed" else "0/1", "Running" if lst != "Completed" else "Completed", 0, human_dur((cap - job.t0).total_seconds() + 30), "10.%d.%d.%d" % (rng.randint(0, 255), rng.randint(0, 255), rng.randint(2, 250)), nd.k8s, "<none>", "<none>"))
    files["kubectl-get-pods-o-wide.txt"] = table(rows[:40]) + "\n"
    pn = [("%s" % job.nodes[n].pod, job.nodes[n]) for n in job.vis_nodes[:6]]
    files["kubectl-get-events-o-wide.txt"] = k8s_events(job, pn, cap, k8s_extra_events(job, lambda n: job.nodes[n].pod))
    files.update(kernel_files(job, lambda nd: "node-%s-dmesg.txt" % nd.k8s))
    return files


def render_volcano(job):
    rng = job.rng
    files = {}
    pods = sorted(job.vis_nodes, key=lambda n: job.nodes[n].pod)
    out = []
    for n in pods:
        nd = job.nodes[n]
        pre = "[pod/%s/%s] " % (nd.pod, job.container)
        for e in sorted_events(job, ("rank", "agent")):
            if e[2] == "rank" and (e[3] not in job.visible_set or job.node_of(e[3]) != n):
                continue
            if e[2] == "agent" and e[3] != n:
                continue
            mark_seen(job, e)
            txt = tee(job, e[3], e[5]) if e[2] == "rank" else e[5]
            if job.k8s_ts:
                out.append(pre + rfc3339nano(e[0]) + " " + txt)
            else:
                out.append(pre + txt)
    files["kubectl-logs-prefix.txt"] = "\n".join(out) + "\n"
    cap = job.capture
    rows = [("NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE", "READINESS GATES")]
    for n in sorted(range(job.nnodes), key=lambda n: job.nodes[n].pod)[:40]:
        nd = job.nodes[n]
        if job.final_status == "running":
            st, rd = "Running", "1/1"
        elif job.final_status == "ok":
            st, rd = "Completed", "0/1"
        else:
            st, rd = "Error", "0/1"
        rows.append((nd.pod, rd, st, 0, human_dur((cap - job.t0).total_seconds() + 20), nd.ip, nd.k8s, "<none>", "<none>"))
    files["kubectl-get-pods-o-wide.txt"] = table(rows) + "\n"
    pn = [(job.nodes[n].pod, job.nodes[n]) for n in pods[:6]]
    files["kubectl-get-events-o-wide.txt"] = k8s_events(job, pn, cap, k8s_extra_events(job, lambda n: job.nodes[n].pod))
    files.update(kernel_files(job, lambda nd: "node-%s-dmesg.txt" % nd.k8s))
    return files


def sky_ts(job, t):
    lt = job.lt(t)
    return lt.strftime("%m-%d %H:%M:%S")


def render_skypilot(job):
    rng = job.rng
    files = {}
    head = ["├── Waiting for task resources on %d node%s." % (job.nnodes, "s" if job.nnodes > 1 else ""),
            "└── Job started. Streaming logs... (Ctrl-C to exit log streaming; job will not be killed)"]
    raypid = {n: rng.randint(1500, 90000) for n in range(job.nnodes)}
    out = []
    for e in sorted_events(job, ("rank", "agent")):
        n = job.node_of(e[3]) if e[2] == "rank" else e[3]
        if n not in job.vis_set_nodes:
            continue
        if e[2] == "rank" and e[3] not in job.visible_set:
            continue
        mark_seen(job, e)
        nd = job.nodes[n]
        if n == 0:
            pre = "(head, rank=0, pid=%d) " % raypid[n]
        else:
            pre = "(%s, rank=%d, pid=%d, ip=%s) " % (nd.label, n, raypid[n], nd.ip)
        txt = tee(job, e[3], e[5]) if e[2] == "rank" else e[5]
        out.append(pre + txt)
    tail = []
    if job.final_status == "failed" and job.cause != "preemption":
        codes = []
        for n in range(job.nnodes):
            rs = range(n * job.gpn, (n + 1) * job.gpn)
            if all(job.ends[r][2] == "gang" for r in rs):
                codes.append(137)
            else:
                codes.append(1)
        msg = "ERROR: Job %d failed with return code list: %s" % (job.sky_jobid, "[" + ", ".join(str(c) for c in codes) + "]")
        if job.sky_new and 137 in codes and codes.count(1) == 1:
            msg += " (A worker failed with return code 1, SkyPilot cleaned up the processes on other nodes with return code 137)"
        tail = [msg, "✓ Job finished (status: FAILED)."]
    elif job.final_status == "ok":
        tail = ["✓ Job finished (status: SUCCEEDED)."]
    files["run.log"] = "\n".join(head + out + tail) + "\n"
    if job.cause == "preemption":
        c = []
        t = job.tf - timedelta(seconds=rng.uniform(20, 50))
        cp = rng.randint(2000, 40000)
        while t < job.tf + timedelta(seconds=30):
            c += ["(%s, pid=%d) I %s controller.py:131] === Checking the job status... ===" % (job.sky_name, cp, sky_ts(job, t)),
                  "(%s, pid=%d) I %s controller.py:133] Job status: JobStatus.RUNNING" % (job.sky_name, cp, sky_ts(job, t + timedelta(seconds=2))),
                  "(%s, pid=%d) I %s controller.py:138] ==================================" % (job.sky_name, cp, sky_ts(job, t + timedelta(seconds=2)))]
            t += timedelta(seconds=20)
        c.append("(%s, pid=%d) I %s controller.py:545] Cluster is preempted or failed%s. Recovering..." % (job.sky_name, cp, sky_ts(job, job.tf + timedelta(seconds=35)), rng.choice(["", " (status: STOPPED)", " (status: INIT)"])))
        c.append("(%s, pid=%d) I %s controller.py:663] Starting recovery for task 0, it is currently RUNNING" % (job.sky_name, cp, sky_ts(job, job.tf + timedelta(seconds=35))))
        files["sky-jobs-logs-controller.txt"] = "\n".join(c) + "\n"
    files.update(kernel_files(job, lambda nd: "dmesg-%s.txt" % (nd.label)))
    return files


def render_determined(job):
    rng = job.rng
    files = {}
    out = []

    def ts(t):
        u = t.astimezone(timezone.utc)
        return "[" + u.strftime("%Y-%m-%dT%H:%M:%S.") + "%06dZ]" % u.microsecond
    blank = " " * 8
    m = [(job.t0 - timedelta(seconds=30), blank, "INFO: Scheduling Trial %d (Experiment %d) at position (0, 0, %d)" % (job.tid, job.eid, rng.randint(1, 9))),
         (job.t0 - timedelta(seconds=12), blank, "INFO: Trial %d (Experiment %d) was assigned to an agent" % (job.tid, job.eid))]
    for n in job.vis_nodes:
        nd = job.nodes[n]
        m.append((job.t0 - timedelta(seconds=10), nd.cid, "INFO: image already found, skipping pull phase: %s" % job.image))
        m.append((job.t0 - timedelta(seconds=9), nd.cid, "INFO: copying files to container: /run/determined"))
        m.append((job.t0 - timedelta(seconds=2), nd.cid, "INFO: Resources for Trial %d (Experiment %d) have started" % (job.tid, job.eid)))
        m.append((job.t0, nd.cid, "INFO: [%d] determined.launch.torch_distributed: torch distributed launching with: ['python3', '-m', 'torch.distributed.run', '--nnodes', '%d', '--nproc_per_node', '%d', '--master_addr', '%s', '--master_port', '29400', '--node_rank', '%d', '--', 'python3', '-m', 'determined.launch.wrap_rank', 'RANK', '--', 'python3', '%s']" % (
            rng.randint(8, 30), job.nnodes, job.gpn, job.nodes[0].ip, n, job.script)))
    for e in sorted_events(job, ("rank", "agent")):
        n = job.node_of(e[3]) if e[2] == "rank" else e[3]
        if n not in job.vis_set_nodes or (e[2] == "rank" and e[3] not in job.visible_set):
            continue
        mark_seen(job, e)
        cid = job.nodes[n].cid
        if e[2] == "rank":
            m.append((e[0], cid + " [rank=%d]" % e[3], e[5]))
        else:
            m.append((e[0], cid, e[5]))
    if job.final_status == "failed":
        worst = None
        for n in job.vis_nodes:
            rs = range(n * job.gpn, (n + 1) * job.gpn)
            code = 137 if all(job.ends[r][2] == "gang" for r in rs) else 1
            tt = job.node_exit.get(n, job.gang_t or job.tf) + timedelta(seconds=1)
            if job.cause == "preemption":
                code = 143
            m.append((tt, job.nodes[n].cid, "INFO: container failed with non-zero exit code: container failed with non-zero exit code: %d (exit code %d)" % (code, code)))
            if worst is None or tt < worst[0]:
                worst = (tt, code)
        if job.cause == "preemption":
            m.append((job.tf - timedelta(seconds=1), blank, "INFO: Trial %d (Experiment %d) is being preempted by the scheduler for higher-priority experiment %d" % (job.tid, job.eid, job.eid + rng.randint(1, 40))))
            m.append((job.tf + timedelta(seconds=8), blank, "ERROR: Trial %d (Experiment %d) was terminated: allocation stopped early after all resources exited: resources failed with non-zero exit code: container failed with non-zero exit code: 143 (exit code 143)" % (job.tid, job.eid)))
        else:
            m.append((worst[0] + timedelta(seconds=2), blank, "ERROR: Trial %d (Experiment %d) was terminated: allocation failed: resources failed with non-zero exit code: container failed with non-zero exit code: %d (exit code %d)" % (job.tid, job.eid, 1, 1)))
    elif job.final_status == "ok":
        for n in job.vis_nodes:
            m.append((job.t_end + timedelta(seconds=2), job.nodes[n].cid, "INFO: container exited successfully with a zero exit code"))
        m.append((job.t_end + timedelta(seconds=4), blank, "INFO: Trial %d (Experiment %d) was terminated: allocation stopped after resources exited successfully with a zero exit code" % (job.tid, job.eid)))
    m.sort(key=lambda x: x[0])
    for t, who, txt in m:
        out.append("%s %s || %s" % (ts(t), who, txt))
    files["trial_%d_logs.txt" % job.tid] = "\n".join(out) + "\n"
    rows = [("CONTAINER", "AGENT", "ADDRESS", "SLOTS")]
    for n in job.vis_nodes:
        nd = job.nodes[n]
        rows.append((nd.cid, nd.short, nd.ip, job.gpn))
    files["allocation.txt"] = "# det task list / allocation view (container -> agent), copied from the WebUI\n" + table(rows) + "\n"
    files.update(kernel_files(job, lambda nd: "kernel-%s.log" % nd.short))
    return files


def render_deepspeed(job):
    rng = job.rng
    files = {}
    h0 = job.nodes[0]
    hosts = ",".join(nd.host for nd in job.nodes)
    wi = base64.urlsafe_b64encode(json.dumps({nd.host: list(range(job.gpn)) for nd in job.nodes}).encode()).decode()
    t = job.t0
    run = [ds_line(job, t, "INFO", "runner.py:463:main", "Using IP address of %s for node %s" % (h0.ip, h0.host if not job.ds_ip_hostfile else h0.short)),
           ds_line(job, t, "INFO", "multinode_runner.py:80:get_cmd", "Running on the following workers: %s" % hosts),
           ds_line(job, t, "INFO", "runner.py:568:main", "cmd = pdsh -S -f 1024 -w %s export PYTHONPATH=/workspace; export NCCL_SOCKET_IFNAME=%s; export NCCL_IB_HCA=mlx5;  cd /workspace; %s -u -m deepspeed.launcher.launch --world_info=%s --node_rank=%%n --master_addr=%s --master_port=29500 %s%s" % (
               hosts, job.ifname, job.pybin, wi[:4000], h0.ip, job.script, job.ds_args.replace("'", "").replace(",", ""))),
           ]
    if job.cause == "preemption":
        run.append("slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO %s ***" % (job.slurm_id, h0.short, job.lt(job.tf).strftime("%Y-%m-%dT%H:%M:%S"), job.preempt_kind))
    elif job.final_status == "failed":
        for n in sorted(job.node_exit, key=lambda n: job.node_exit[n]):
            rs = range(n * job.gpn, (n + 1) * job.gpn)
            first = job.node_fail[n][1]
            code = job.ends[first][1]
            rc = code if code >= 0 else 256 + code
            run.append("pdsh@%s: %s: ssh exited with exit code %d" % (h0.short, job.nodes[n].host, rc))
    files["runner.log"] = "\n".join(run) + "\n"
    for n in job.vis_nodes:
        nd = job.nodes[n]
        out = []
        for e in sorted_events(job, ("rank", "agent")):
            if e[2] == "rank" and (e[3] not in job.visible_set or job.node_of(e[3]) != n):
                continue
            if e[2] == "agent" and e[3] != n:
                continue
            mark_seen(job, e)
            out.append("%s: %s" % (nd.host, e[5]))
        files["pdsh-%s.log" % nd.host] = "\n".join(out) + "\n"
    files["hostfile"] = "\n".join("%s slots=%d" % (nd.host, job.gpn) for nd in job.nodes) + "\n"
    files.update(kernel_files(job, lambda nd: "dmesg-%s.txt" % nd.short))
    return files


RENDER = {"kf_mpijob": render_mpijob, "volcano_prefix": render_volcano, "skypilot_runlog": render_skypilot,
          "determined_trial": render_determined, "deepspeed_pdsh": render_deepspeed}


# ------------------------------------------------------------ one run
def gen_run(seed, i, cause, layout):
    rng = random.Random("blind10|%d|%d|%s|%s" % (seed, i, cause, layout))
    job = Job(rng, layout, cause, i)
    job.jobwide = False
    job.extra_files = {}
    job.extra_flag = False
    job.rank_unknowable = False
    job.kern_nodes = set()
    job.oom_line = None
    job.hw_map_flag = True
    job.gang_t = None
    job.node_fail = {}
    job.node_exit = {}
    job.ends = {}
    setup_job(job)
    job.pybin = rng.choice(["/usr/bin/python3", "/opt/conda/bin/python", "/usr/bin/python", "/opt/venv/bin/python3"])
    job.torchrun_bin = rng.choice(["/usr/local/bin/torchrun", "/opt/conda/bin/torchrun", "/opt/venv/bin/torchrun"])
    job.tee = layout in ("volcano_prefix", "skypilot_runlog") and rng.random() < 0.4
    job.k8s_ts = rng.random() < 0.35
    job.container = rng.choice(["pytorch", "trainer", "main"])
    job.image = rng.choice(["nvcr.io/nvidia/pytorch:24.05-py3", "nvcr.io/nvidia/pytorch:25.01-py3", "registry.example.com/ml/train:%s" % hexs(rng, 7),
                            "determinedai/pytorch-ngc:0.36.0" if layout == "determined_trial" else "ghcr.io/acme/llm-train:v%d.%d" % (rng.randint(1, 4), rng.randint(0, 20))])
    job.k8s_sched = "volcano" if layout == "volcano_prefix" and rng.random() < 0.6 else "default-scheduler"
    job.ifname = rng.choice(["eth0", "ens5", "bond0", "enp86s0f0", "ib0"])
    job.ds_args = rng.choice([", '--deepspeed', '--deepspeed_config', 'ds_config.json'", ", '--deepspeed', 'configs/ds_zero3.json', '--bf16'", ", '--config', 'cfg/%s.yaml', '--deepspeed'" % job.jobname])
    job.ds_sk = rng.choice([315, 318, 321, 428])
    job.mpi_jobid = rng.randint(10000, 65000)
    job.sky_jobid = rng.randint(1, 60)
    job.sky_new = rng.random() < 0.5
    job.tid = rng.randint(10, 9000)
    job.eid = max(1, job.tid - rng.randint(1, 9))
    job.slurm_id = rng.randint(100000, 9999999)
    job.preempt_kind = {"kf_mpijob": rng.choice(["scheduler", "kueue"]), "volcano_prefix": rng.choice(["scheduler", "kueue"]),
                        "skypilot_runlog": "spot", "determined_trial": "priority",
                        "deepspeed_pdsh": rng.choice(["TIME LIMIT", "PREEMPTION"])}[layout]
    healthy = cause is None
    if cause == "python_exception":
        job.jobwide = rng.random() < 0.35
    if cause == "data_loader_stall":
        job.jobwide = rng.random() < 0.45
    if healthy or cause == "preemption" or job.jobwide:
        job.culprit = None
    else:
        job.culprit = choose_culprit(job)
    job.visible, cvis = pick_visible(job, job.culprit)
    job.visible_set = set(job.visible)
    job.vis_nodes = sorted(set(job.node_of(r) for r in job.visible))
    job.vis_set_nodes = set(job.vis_nodes)
    add_decoys(job)
    if healthy:
        job.t_end = job.tf
        job.ends = {r: (job.tf + timedelta(milliseconds=rng.randint(0, 2500)), 0, "ok", None) for r in range(job.world)}
        job.final_status = "ok"
        background(job, job.tf, healthy_end=True)
        job.notes.insert(0, "healthy run, completes normally")
    elif cause == "straggler":
        job.t_end = job.tf
        c_straggler(job)
        job.final_status = "running"
        background(job, job.tf)
    else:
        cand = CAUSE_FN[cause](job)
        if cause == "preemption":
            job.ends = {r: list(v) for r, v in cand.items()}
            job.gang_t = job.tf
            job.node_exit = {n: job.tf + timedelta(seconds=rng.uniform(2, 6)) for n in range(job.nnodes)}
        else:
            job.ends = resolve(job, cand)
        job.final_status = "failed"
        job.t_end = max(v[0] for v in job.ends.values())
        if cause != "preemption":
            emit_collateral(job, job.ends)
        if layout in ("volcano_prefix", "skypilot_runlog", "determined_trial"):
            torchrun_agent_emit(job, job.ends)
        elif layout == "deepspeed_pdsh":
            if cause == "preemption":
                for n in job.vis_nodes:
                    ts = job.tf + timedelta(milliseconds=rng.randint(50, 900))
                    for r in range(n * job.gpn, (n + 1) * job.gpn):
                        job.add(ts, "agent", n, ds_line(job, ts, "INFO", "launch.py:%d:sigkill_handler" % job.ds_sk, "Killing subprocess %d" % job.pids[r]))
                    te = ts + timedelta(seconds=rng.uniform(1, 30))
                    job.add(te, "agent", n, ds_line(job, te, "ERROR", "launch.py:%d:sigkill_handler" % (job.ds_sk + 6),
                                                    "['%s', '-u', '%s', '--local_rank=0'%s] exits with return code = -15" % (job.pybin, job.script, job.ds_args)))
            else:
                deepspeed_agent_emit(job, job.ends)
        stop = job.tf if not job.jobwide or cause == "data_loader_stall" else job.tf
        if cause == "python_exception" and job.jobwide:
            stop = job.t0 + timedelta(seconds=20)
            job.t_train = stop + timedelta(seconds=3600)  # no training steps reached
        background(job, job.t_end, step_stop=stop)
    job.capture = job.t_end + timedelta(minutes=rng.uniform(2, 90))
    files = RENDER[layout](job)
    for k, v in job.extra_files.items():
        files[k] = v
    # truth
    c = job.culprit
    if healthy:
        rank = node = None
        inferable = False
        al = []
    elif cause in ("preemption", "unknown") or job.jobwide:
        rank = node = None
        inferable = False
        al = []
    else:
        rank = c
        nd = job.nodes[job.node_of(c)]
        node = nd.truth
        al = aliases(job, nd)
        inferable = (job.flag_seen or job.extra_flag) and not job.rank_unknowable
    notes = "world=%d (%d nodes x %d gpus), %s; injected %s; decoys %s; visible ranks %d of %d%s" % (
        job.world, job.nnodes, job.gpn, "torch %s-era, NCCL %s, kernel fmt %s, tz %s" % (job.era, job.nccl_ver, job.kfmt, job.tz.tzname(None)),
        "; ".join(job.notes) if job.notes else "-", ", ".join(job.decoys) if job.decoys else "none", len(job.visible), job.world,
        "" if (c is None or c in job.visible_set) else " (culprit rank not in attached output)")
    truth = {"cause": cause, "healthy": healthy, "rank": rank, "node": node,
             "drain": bool(cause in DRAIN_CAUSES and node is not None),
             "rank_inferable": bool(inferable), "node_aliases": al, "layout": layout, "notes": notes}
    return files, truth


def cap_files(files, limit=990000):
    tot = sum(len(v.encode()) for v in files.values())
    while tot > limit:
        big = max(files, key=lambda k: (len(files[k]), k))
        lines = files[big].split("\n")
        keep = max(50, len(lines) // 2)
        half = keep // 2
        cut = len(lines) - keep
        files[big] = "\n".join(lines[:half] + ["... [%d lines omitted when the log was attached] ..." % cut] + lines[-half:])
        tot = sum(len(v.encode()) for v in files.values())
    return files


def plan(n, seed):
    rng = random.Random("blind10-plan|%d" % seed)
    order = CAUSES[:]
    rng.shuffle(order)
    causes = []
    k = 0
    for i in range(n):
        if i % 7 == 3:
            causes.append(None)
        else:
            if k and k % len(order) == 0:
                rng.shuffle(order)
            causes.append(order[k % len(order)])
            k += 1
    runs = []
    count = {l: 0 for l in LAYOUTS}
    for i, cz in enumerate(causes):
        ok = [l for l in LAYOUTS if cz is None or cz in CAN[l]]
        m = min(count[l] for l in ok)
        best = [l for l in ok if count[l] == m]
        lay = rng.choice(best)
        count[lay] += 1
        runs.append((cz, lay))
    return runs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for i, (cz, lay) in enumerate(plan(a.n, a.seed)):
        files, truth = gen_run(a.seed, i, cz, lay)
        files = cap_files(files)
        d = os.path.join(a.out, "run-%03d-%s" % (i + 1, lay))
        os.makedirs(d, exist_ok=True)
        for name in sorted(files):
            with open(os.path.join(d, name), "w", encoding="utf-8", newline="\n") as f:
                f.write(files[name])
        with open(os.path.join(d, "truth.json"), "w", encoding="utf-8", newline="\n") as f:
            f.write(json.dumps(truth, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
