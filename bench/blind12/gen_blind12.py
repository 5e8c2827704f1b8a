#!/usr/bin/env python3
"""gen_blind12.py - synthetic distributed-GPU-training failure logs (blind set 12).

Layouts: cloud-jsonl (GKE Cloud Logging / CloudWatch export), journald (journalctl -u trainer + -k),
orchestrator-task (Airflow / Argo task log wrapping torchrun), k8s-lws (LeaderWorkerSet kubectl logs
--prefix + describe), step-records (Metaflow / Flyte step log with rank/host logging fields).

Python 3.11 standard library only. Deterministic for a given --seed and --n.
"""
import argparse
import datetime as dt
import json
import os
import random

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom", "illegal_memory_access",
          "python_exception", "host_oom_kill", "crash_signal", "preemption", "hang",
          "data_loader_stall", "collective_mismatch", "straggler", "unknown"]
LAYOUTS = ["cloud-jsonl", "journald", "orchestrator-task", "k8s-lws", "step-records"]
# every layout can express every cause (each has a kernel/node channel and a scheduler channel)
COMPAT = {l: set(CAUSES) for l in LAYOUTS}
HW_DRAIN = {"gpu_hardware", "ecc_memory", "nvlink", "network"}
UTC = dt.timezone.utc
MAX_RUN_BYTES = 1_000_000


# ----------------------------------------------------------------------------- helpers
class Ev:
    __slots__ = ("t", "kind", "key", "text", "lvl")

    def __init__(self, t, kind, key, text, lvl="INFO"):
        self.t, self.kind, self.key, self.text, self.lvl = t, kind, key, text, lvl


def hexid(rng, n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def alnum(rng, n):
    return "".join(rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(n))


PCI_BUSES = ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"]
PCI_BUSES_B = ["0f", "34", "48", "4d", "87", "90", "b7", "bd"]
IB_DEVS = ["mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"]
IB_PCI = ["0c", "2b", "3b", "5c", "9b", "ac", "bb", "dc"]


class Run:
    """All facts of one synthetic job; events are layout-independent trainer/kernel/agent text."""

    def __init__(self, rng, idx, cause, layout):
        self.rng, self.idx, self.cause, self.layout = rng, idx, cause, layout
        r = rng
        gpn = r.choice([8, 8, 8, 4, 2]) if layout != "k8s-lws" else r.choice([8, 8, 4])
        world = r.choice([2, 4, 8, 16, 16, 32, 64, 64, 128, 256, 512])
        if cause == "network" and world <= gpn:
            world = gpn * r.choice([2, 4, 8])
        if world < gpn:
            gpn = world
        self.gpn, self.world = gpn, world
        self.nnodes = world // gpn
        self.era = r.choice(["old", "mid", "new", "new"])
        self.cuda = r.choice(["12.1", "12.2", "12.4", "12.8"])
        self.nccl = {"old": r.choice(["2.18.1", "2.19.3"]), "mid": r.choice(["2.20.5", "2.21.5"]),
                     "new": r.choice(["2.21.5", "2.26.2", "2.27.3"])}[self.era]
        self.torch = {"old": "2.1.2", "mid": r.choice(["2.3.1", "2.3.0"]),
                      "new": r.choice(["2.5.1", "2.6.0", "2.7.1"])}[self.era]
        self.tzh = r.choice([0, 0, -7, -5, 1, 2, 8, 9, 5.5])
        self.tz = dt.timezone(dt.timedelta(hours=self.tzh))
        self.tzname = {0: "UTC", 9: "JST", 1: "CET", 2: "EET", 8: "CST", -7: "PDT", -5: "EST", 5.5: "IST"}[self.tzh]
        day = dt.datetime(2026, r.randint(1, 10), r.randint(1, 27), r.randint(0, 23), r.randint(0, 59),
                          r.randint(0, 59), r.randint(0, 999) * 1000, tzinfo=UTC)
        self.t0 = day
        self.jobid = r.randint(100000, 9999999)
        self.model = r.choice(["llama3-8b", "gpt-neox-20b", "mixtral-8x7b", "llama2-70b", "t5-xl", "qwen2-7b",
                               "dit-xl", "bert-large"])
        self.step_s = round(r.uniform(0.6, 4.5), 2)
        self.log_every = r.choice([1, 5, 10, 10, 20, 50])
        self.seq_per_step = r.choice([3, 4, 6, 9])
        self.events = []
        self.attachments = {}
        self.pids = {}
        self.notes = []
        self.decoys = []
        self.make_hosts()
        self.tee = r.random() < 0.5  # torchrun --tee 3 console prefix [defaultN]:
        self.gpu_model = r.choice(["NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB", "NVIDIA H200"])
        self.pci = r.choice([PCI_BUSES, PCI_BUSES_B])
        self.entry = r.choice(["train.py", "pretrain_gpt.py", "main.py", "run_clm.py", "trainer/launch.py"])
        self.pybin = r.choice(["/usr/bin/python3", "/opt/conda/bin/python3.11", "/usr/local/bin/python"])
        self.site = r.choice(["/usr/local/lib/python3.10/dist-packages", "/opt/conda/lib/python3.11/site-packages",
                              "/usr/lib/python3/dist-packages"])

    # ---------------------------------------------------------------- host naming
    def make_hosts(self):
        r = self.rng
        L = self.layout
        self.hosts = []
        form = r.randint(0, 3)
        base_ip = "10.%d.%d." % (r.randint(0, 250), r.randint(0, 250))
        clus = r.choice(["a3mega", "train", "mlp", "gpu-prod", "llm"])
        pool_hash = hexid(r, 8)
        js = r.choice(["pretrain", "llm-train", "sft-run", "trainer"]) + "-" + alnum(r, 4)
        self.jobname = js
        start = r.randint(1, 200)
        for i in range(self.nnodes):
            ip = base_ip + str(10 + i * 3 % 240 + (i // 80))
            h = {"ip": ip}
            if L == "cloud-jsonl" or L == "k8s-lws":
                kind = r.choice(["gke", "eks", "aks"] if L == "k8s-lws" else ["gke", "eks"]) if i == 0 else self.hosts[0]["kind"]
                h["kind"] = kind
                if kind == "gke":
                    node = "gke-%s-a3-pool-%s-%s" % (clus, pool_hash, alnum(r, 4))
                    fq = node + ".c.ml-proj-%s.internal" % pool_hash[:4]
                elif kind == "eks":
                    node = "ip-" + ip.replace(".", "-") + ".us-west-2.compute.internal"
                    fq = node
                else:
                    node = "aks-gpupool-%s-vmss%06x" % (pool_hash[:8], i + 10)
                    fq = node
                if L == "k8s-lws":
                    pod = "%s-0" % js if i == 0 else "%s-0-%d" % (js, i)
                else:
                    pod = "%s-workers-0-%d-%s" % (js, i, alnum(r, 5))
                h.update(name=node, short=node.split(".")[0], fqdn=fq, pod=pod)
            else:
                n = start + i
                if form == 0:
                    short = "gpu-%s%02d" % (r.choice("abc") if i == 0 else self.hosts[0]["short"][4], n % 100)
                    short = "gpu-%s%03d" % ("a", n)
                    fq = short + ".cluster.local"
                elif form == 1:
                    short = "node%04d" % n
                    fq = short + ".hpc.example.org"
                elif form == 2:
                    short = "ip-" + ip.replace(".", "-")
                    fq = short + ".ec2.internal"
                else:
                    short = "dgx-h100-%02d" % (n % 100)
                    fq = short + ".dc2.corp.net"
                pod = None
                if L == "step-records":
                    pod = "%s-n0-%d" % (js[:12] + hexid(r, 6), i) if self.rng.random() < 0.5 else None
                h.update(name=short, short=short, fqdn=fq, pod=pod)
            self.hosts.append(h)
        # ensure unique names
        seen = set()
        for i, h in enumerate(self.hosts):
            if h["name"] in seen:
                h["name"] = h["short"] = h["name"] + "x%d" % i
            seen.add(h["name"])

    def node_of(self, rank):
        return rank // self.gpn

    def local(self, rank):
        return rank % self.gpn

    def pid(self, rank):
        if rank not in self.pids:
            self.pids[rank] = 1000 + self.rng.randint(2000, 3_900_000) // 7 * 7 + self.local(rank)
        return self.pids[rank]

    def agent_pid(self, node):
        return 900 + node * 17 + self.jobid % 1000

    # ---------------------------------------------------------------- event adders
    def rank(self, t, r, text, lvl="INFO"):
        self.events.append(Ev(t, "rank", r, text, lvl))

    def kern(self, t, node, text, lvl="WARN"):
        self.events.append(Ev(t, "kern", node, text, lvl))

    def agent(self, t, node, text, lvl="INFO"):
        self.events.append(Ev(t, "agent", node, text, lvl))

    def sched(self, t, text, lvl="INFO", node=None):
        self.events.append(Ev(t, "sched", node, text, lvl))

    # glog-style timestamp used by torch >= 2.4 (host local time, no offset)
    def glog(self, t, L="E"):
        lt = t.astimezone(self.tz)
        return "%s%02d%02d %s.%06d%03d" % (L, lt.month, lt.day, lt.strftime("%H:%M:%S"), lt.microsecond,
                                           self.rng.randint(0, 999))

    def tprefix(self, t, r, L="E", cpp="ProcessGroupNCCL.cpp", line=1537):
        if self.era == "old":
            return "[%s %s:%d] " % (L, cpp, line)
        if self.era == "mid":
            return "[rank%d]:[%s %s:%d] " % (r, L, cpp, line)
        return "[rank%d]:[%s %s:%d] " % (r, self.glog(t, L), cpp, line)

    def pgp(self, r):
        if self.era == "old":
            return "[Rank %d]" % r
        if self.era == "mid":
            return "[PG 0 Rank %d]" % r
        return "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % r

    def py_prefix(self, r):
        # torch >= 2.4 prefixes uncaught-exception lines with [rankN]:
        return "[rank%d]: " % r if self.era == "new" else ""


# ----------------------------------------------------------------------------- text blocks
def nccl_line(run, t, r, body, warn=True, src="transport/net_ib.cc:1696"):
    h = run.hosts[run.node_of(r)]
    ts = ""
    if run.era == "new" and run.nccl >= "2.26" and warn:
        ts = t.astimezone(run.tz).strftime("[%Y-%m-%d %H:%M:%S] ")
    hn = h["pod"] if (run.layout in ("k8s-lws", "cloud-jsonl") and h.get("pod")) else h["short"]
    if warn:
        return "%s%s:%d:%d [%d] %s NCCL WARN %s" % (ts, hn, run.pid(r), run.pid(r) + 311, run.local(r), src, body)
    return "%s:%d:%d [%d] NCCL INFO %s" % (hn, run.pid(r), run.pid(r) + 301, run.local(r), body)


def wd_timeout(run, t, r, seq, op, numel, ran_ms, last_done=None, fr_off=None):
    """Watchdog timeout text of rank r (multi-line), era-specific wording."""
    rng = run.rng
    pg = run.pgp(r)
    last_done = seq - 1 if last_done is None else last_done
    core = ("%s Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, "
            "NumelOut=%d, Timeout(ms)=600000) ran for %d milliseconds before timing out."
            % ("[Rank %d]" % r, seq, op, numel, numel, ran_ms))
    out = []
    if run.era == "old":
        out.append(run.tprefix(t, r, "E", line=475) + core)
        out.append(run.tprefix(t, r, "E", line=489) + "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.")
        out.append(run.tprefix(t, r, "E", line=495) + "To avoid data inconsistency, we are taking the entire process down.")
        out.append(run.tprefix(t, r, "E", line=916) + "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, core))
        out.append("terminate called after throwing an instance of 'std::runtime_error'")
        out.append("  what():  [Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, core))
    else:
        inner = pg + " " + core.split("] ", 1)[1] if run.era == "new" else core
        out.append(run.tprefix(t, r, "E", line=563 if run.era == "mid" else 632) + inner)
        if run.era == "mid":
            out.append(run.tprefix(t, r, "E", line=1537) + "%s Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pg, seq, seq, last_done))
        else:
            out.append(run.tprefix(t, r, "E", line=2271) + "%s failure detected by watchdog at work sequence id: %d PG status: last enqueued work: %d, last completed work: %d" % (pg, seq, seq, last_done))
            if fr_off if fr_off is not None else run.torch < "2.7":
                out.append(run.tprefix(t, r, "E", line=670) + "Stack trace of the failed collective not found, potentially because FlightRecorder is disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value.")
        out.append(run.tprefix(t, r, "E", line=577 if run.era == "mid" else 684) + "%s To avoid data inconsistency, we are taking the entire process down." % pg)
        out.append(run.tprefix(t, r, "E", line=1414 if run.era == "mid" else 1950) + "%s Process group watchdog thread terminated with exception: %s" % (pg, inner))
        out.append("terminate called after throwing an instance of 'c10::DistBackendError'")
        out.append("  what():  %s Process group watchdog thread terminated with exception: %s" % (pg, inner))
        out.append("Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % (635 if run.era == "new" else 565))
        base = 0x7f0000000000 + rng.randint(0, 0xffffffff) * 0x1000
        frames = ["c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2",
                  "c10d::ProcessGroupNCCL::watchdogHandler() + 0x233", "c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d"]
        libs = ["libc10.so", "libtorch_cuda.so", "libtorch_cuda.so", "libtorch_cuda.so"]
        for i, (f, lb) in enumerate(zip(frames, libs)):
            out.append("frame #%d: %s (0x%x in %s/torch/lib/%s)" % (i, f, base + i * 0x3a1f0, run.site, lb))
        out.append("frame #4: <unknown function> + 0xdc253 (0x%x in /lib/x86_64-linux-gnu/libstdc++.so.6)" % (base + 0x9dc253))
        out.append("frame #5: <unknown function> + 0x94ac3 (0x%x in /lib/x86_64-linux-gnu/libc.so.6)" % (base + 0x1294ac3))
    return "\n".join(out)


def remote_err(run, t, r, peer_rank, ib=True):
    ph = run.hosts[run.node_of(peer_rank)]
    if ib:
        port = run.rng.randint(32000, 60000)
        if run.nccl < "2.20":
            last = "NET/IB : Got completion from peer %s<%d> with error 5, opcode 0, len 0, vendor err 249" % (ph["ip"], port)
        elif run.nccl < "2.24":
            last = "NET/IB : Got completion from peer %s<%d> with status=5 opcode=0 len=0 vendor err 249 (Recv)" % (ph["ip"], port)
        else:
            last = "NET/IB: Got completion from peer %s<%d> with status=5 opcode=0 len=0 vendor err 249 (Recv) hca %s" % (ph["ip"], port, IB_DEVS[run.local(r)])
    else:
        last = "socketProgress: Connection closed by remote peer %s<%d>" % (ph["short"], run.rng.randint(32000, 60000))
    pg = run.pgp(r)
    lead = "NCCL watchdog thread terminated with exception" if run.era == "old" else "Process group watchdog thread terminated with exception"
    txt = [run.tprefix(t, r, "E", line=1895 if run.era == "new" else 916) + "%s %s: NCCL error: remote process exited or there was a network error, NCCL version %s" % (pg, lead, run.nccl),
           "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
           "Last error:", last,
           "terminate called after throwing an instance of '%s'" % ("std::runtime_error" if run.era == "old" else "c10::DistBackendError"),
           "  what():  %s %s: NCCL error: remote process exited or there was a network error, NCCL version %s" % (pg, lead, run.nccl)]
    return nccl_line(run, t, r, last, src="transport/net_ib.cc:1696" if ib else "misc/socket.cc:49") + "\n" + "\n".join(txt)


def py_traceback(run, r, frames, exc_line):
    p = run.py_prefix(r)
    out = [p + "Traceback (most recent call last):"]
    for f, ln, fn, code in frames:
        out.append(p + '  File "%s", line %d, in %s' % (f, ln, fn))
        out.append(p + "    " + code)
    for l in exc_line.split("\n"):
        out.append(p + l)
    return "\n".join(out)


def train_frames(run, last):
    e = "/workspace/" + run.entry
    base = [(e, run.rng.randint(300, 900), "<module>", "main(cfg)"),
            (e, run.rng.randint(120, 290), "main", "trainer.fit()"),
            ("/workspace/trainer/loop.py", run.rng.randint(80, 400), "fit", "loss = self.train_step(batch)")]
    return base + last


def cuda_err_tb(run, r, msg, dsa=True):
    cls = "torch.AcceleratorError" if run.torch >= "2.8" else "RuntimeError"
    fr = train_frames(run, [("/workspace/trainer/loop.py", 212, "train_step", "loss.backward()"),
                            (run.site + "/torch/_tensor.py", 581, "backward", "torch.autograd.backward("),
                            (run.site + "/torch/autograd/graph.py", 825, "_engine_run_backward",
                             "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")])
    lines = "%s: CUDA error: %s\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1" % (cls, msg)
    if dsa:
        lines += "\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n"
    return py_traceback(run, r, fr, lines)


# ----------------------------------------------------------------------------- timeline building
def build(run):
    rng = run.rng
    W = run.world
    t = run.t0
    train_min = rng.uniform(8, 240)
    run.t_fail = run.t0 + dt.timedelta(minutes=train_min)
    cause = run.cause
    # culprit
    if cause in (None, "preemption") or (cause == "python_exception" and rng.random() < 0.35) \
            or (cause == "data_loader_stall" and rng.random() < 0.45) or cause == "unknown":
        run.culprit = None
    else:
        run.culprit = rng.randrange(W) if W > 1 else 0
        if W > 2 and run.culprit == 0 and rng.random() < 0.7:
            run.culprit = rng.randrange(1, W)
    c = run.culprit
    # which ranks are visible
    if W <= 16:
        shown = list(range(W))
    else:
        pool = {0, W - 1}
        if c is not None:
            cn = run.node_of(c)
            pool.add(c)
            for l in rng.sample(range(run.gpn), min(run.gpn, 3)):
                pool.add(cn * run.gpn + l)
        while len(pool) < min(W, rng.choice([8, 12, 16])):
            pool.add(rng.randrange(W))
        shown = sorted(pool)
    run.shown = shown
    run.shown_nodes = sorted({run.node_of(x) for x in shown})
    # ---- startup
    for r in shown:
        ts = run.t0 + dt.timedelta(seconds=rng.uniform(5, 40))
        if r == 0 or rng.random() < 0.3:
            run.rank(ts, r, nccl_line(run, ts, r, "NCCL version %s+cuda%s" % (run.nccl, run.cuda), warn=False))
        bus = run.pci[run.local(r)]
        run.rank(ts + dt.timedelta(seconds=1.2), r, nccl_line(run, ts, r, "ncclCommInitRank comm 0x%s rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId 0x%s - Init COMPLETE" % (hexid(rng, 8), r, W, run.local(r), run.local(r), bus.lstrip("0"), hexid(rng, 16)), warn=False))
    if rng.random() < 0.6:  # UserWarning storm decoy
        wtxt = rng.choice([
            "%s/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.4 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants." % run.site,
            "%s/torch/_utils.py:831: UserWarning: TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class. This should only matter to you if you are using storages directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()" % run.site,
            "%s/torch/distributed/fsdp/_state_dict_utils.py:773: UserWarning: When using ``NO_SHARD`` for ``ShardingStrategy``, full_state_dict will be returned." % run.site])
        for r in shown[: rng.randint(2, 6)]:
            for k in range(rng.randint(2, 5)):
                run.rank(run.t0 + dt.timedelta(seconds=50 + k * 7 + r * 0.01), r, wtxt + "\n  warnings.warn(", "WARN")
        run.decoys.append("UserWarning storm")
    # ---- training steps
    step0 = rng.choice([0, 0, 1000, 12000, 45000])
    straggler = c if cause == "straggler" else None
    slow = rng.uniform(1.7, 3.2)
    n_steps = int(train_min * 60 / (run.step_s * (slow if straggler is not None else 1.0)))
    interval = max(run.log_every, n_steps // 140 + 1)
    run.last_step = step0
    per_rank = straggler is not None or rng.random() < 0.3
    k = 0
    for s in range(step0 + interval, step0 + n_steps, interval):
        k += 1
        ts = run.t0 + dt.timedelta(seconds=60 + (s - step0) * run.step_s * (slow if straggler is not None else 1.0))
        if ts >= run.t_fail:
            break
        run.last_step = s
        st = run.step_s * (slow if straggler is not None else 1.0) * rng.uniform(0.97, 1.04)
        loss = 2.2 + 6.0 / (1 + (s - step0) / 400.0) + rng.uniform(-0.05, 0.05)
        tps = int(run.gpn * 3900 / st * rng.uniform(0.95, 1.05))
        run.rank(ts, 0, "step %d | loss %.4f | lr %.3e | grad_norm %.3f | step_time %.2fs | tokens/s/gpu %d" % (s, loss, 3e-4, rng.uniform(0.2, 1.4), st, tps // run.gpn))
        if per_rank and (k % 4 == 0):
            for r in shown:
                comp = run.step_s * 0.62 * rng.uniform(0.96, 1.05)
                if r == straggler:
                    comp *= slow * 1.35
                wait = max(0.01, st - comp)
                run.rank(ts + dt.timedelta(milliseconds=r % 97), r, "[timing] rank=%d step=%d fwd_bwd=%.3fs allreduce_wait=%.3fs dataloader=%.3fs" % (r, s, comp, wait, rng.uniform(0.002, 0.02)), "DEBUG" if r != straggler else "INFO")
        if s % (interval * 20) == 0 and rng.random() < 0.5:
            run.rank(ts + dt.timedelta(seconds=2), 0, "Saved checkpoint to /checkpoints/%s/step_%d (%.1f s)" % (run.model, s, rng.uniform(8, 60)))
    run.seq = (run.last_step - step0) * run.seq_per_step + rng.randint(3, 40)
    # ---- decoys on kernel side (nodes that have kernel channels)
    add_kernel_decoys(run)
    # ---- the fault
    if cause is None:
        healthy_end(run)
    else:
        FAULTS[cause](run)
    run.events.sort(key=lambda e: (e.t, e.kind, e.key if isinstance(e.key, int) else -1))


def add_kernel_decoys(run):
    rng = run.rng
    nodes = run.shown_nodes
    if rng.random() < 0.55:
        n = rng.choice(nodes)
        days = rng.uniform(2, 9)
        t = run.t0 - dt.timedelta(days=days)
        code, body = rng.choice([(13, "pid=%d, name=python3, Graphics SM Warp Exception on (GPC 4, TPC 1, SM 0): Out Of Range Address" % rng.randint(3000, 90000)),
                                 (31, "pid=%d, name=pt_main_thread, channel 0x00000012, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC2 GPCCLIENT_T1_3 faulted @ 0x7f12_a4000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % rng.randint(3000, 90000)),
                                 (63, "pid=%d, name=python, Row Remapper: New row (0x0000000062a1c4e0) marked for remapping, reset gpu to activate." % rng.randint(3000, 90000)),
                                 (43, "pid=%d, name=python3, Ch 00000020, engmask 00000101" % rng.randint(3000, 90000))])
        run.kern(t, n, "NVRM: Xid (PCI:0000:%s:00): %d, %s" % (rng.choice(run.pci), code, body))
        run.decoys.append("old Xid %d on %s %.1f days before" % (code, run.hosts[n]["name"], days))
    if rng.random() < 0.5:
        n = rng.choice(nodes)
        t = run.t0 + dt.timedelta(minutes=rng.uniform(1, 6))
        i = rng.randrange(len(IB_DEVS))
        ifn = "ibp%ds0" % int(IB_PCI[i], 16)
        run.kern(t, n, "mlx5_core 0000:%s:00.0 %s: Link down" % (IB_PCI[i], ifn))
        run.kern(t + dt.timedelta(seconds=rng.uniform(2, 9)), n, "mlx5_core 0000:%s:00.0 %s: Link up" % (IB_PCI[i], ifn), "INFO")
        run.decoys.append("recovered IB link flap on %s" % run.hosts[n]["name"])
    if rng.random() < 0.3:
        n = rng.choice(nodes)
        t = run.t0 - dt.timedelta(hours=rng.uniform(3, 30))
        run.kern(t, n, "pcieport 0000:%s:01.0: AER: Corrected error received: 0000:%s:00.0" % (rng.choice(["00", "80", "16"]), rng.choice(run.pci)), "INFO")
        run.decoys.append("old corrected PCIe AER")


# ----------------------------------------------------------------------------- cascade helpers
def ops(run):
    return run.rng.choice([("ALLREDUCE", run.rng.choice([1, 2, 4]) * 2 ** run.rng.randint(20, 27)),
                           ("_ALLGATHER_BASE", 2 ** run.rng.randint(22, 28)),
                           ("_REDUCE_SCATTER_BASE", 2 ** run.rng.randint(22, 28)),
                           ("ALLREDUCE", 1), ("BROADCAST", 2 ** run.rng.randint(6, 20))])


def agent_fail(run, t, node, failures, root_idx=0):
    """torchrun summary on node; failures = list of (rank, exitcode). First failure by time is root cause."""
    rng = run.rng
    host = run.hosts[node]
    hname = host["pod"] if run.layout in ("k8s-lws", "cloud-jsonl") else rng.choice([host["short"], host["fqdn"]]) if run.layout != "step-records" else host["fqdn"]
    run.summary_host = getattr(run, "summary_host", {})
    run.summary_host[node] = hname
    lt = t.astimezone(run.tz)
    r0, ec0 = failures[root_idx]
    # agent log lines
    if run.era == "old":
        pref = "[%s] torch.distributed.elastic.multiprocessing.api: [ERROR] " % lt.strftime("%Y-%m-%d %H:%M:%S,%f")[:-3]
        wpref = "[%s] torch.distributed.elastic.multiprocessing.api: [WARNING] " % lt.strftime("%Y-%m-%d %H:%M:%S,%f")[:-3]
    else:
        pref = "%s %d torch/distributed/elastic/multiprocessing/api.py:869] " % (run.glog(t, "E"), run.agent_pid(node))
        wpref = "%s %d torch/distributed/elastic/multiprocessing/api.py:897] " % (run.glog(t - dt.timedelta(seconds=1), "W"), run.agent_pid(node))
    failed_ranks = {f[0] for f in failures}
    sib = [node * run.gpn + l for l in range(run.gpn) if node * run.gpn + l not in failed_ranks]
    lines = []
    for s in sib[:8]:
        lines.append(wpref + "Sending process %d closing signal SIGTERM" % run.pid(s))
    lines.append(pref + "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (ec0, run.local(r0), run.pid(r0), run.pybin))
    run.agent(t, node, "\n".join(lines), "ERROR")
    sigs = {-6: "SIGABRT", -9: "SIGKILL", -11: "SIGSEGV", -7: "SIGBUS", -15: "SIGTERM"}

    def block(i, r, ec, tt):
        b = ["[%d]:" % i, "  time      : %s" % tt.astimezone(run.tz).strftime("%Y-%m-%d_%H:%M:%S"),
             "  host      : %s" % hname, "  rank      : %d (local_rank: %d)" % (r, run.local(r))]
        if ec < 0:
            b.append("  exitcode  : %d (pid: %d)" % (ec, run.pid(r)))
            b.append("  error_file: <N/A>")
            b.append("  traceback : Signal %d (%s) received by PID %d" % (-ec, sigs.get(ec, "SIG"), run.pid(r)))
        else:
            b.append("  exitcode  : %d (pid: %d)" % (ec, run.pid(r)))
            b.append("  error_file: <N/A>")
            b.append("  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
        return b

    out = ["Traceback (most recent call last):", '  File "/usr/local/bin/torchrun", line 8, in <module>', "    sys.exit(main())",
           '  File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper' % run.site,
           "    return f(*args, **kwargs)",
           '  File "%s/torch/distributed/run.py", line 143, in __call__' % run.site,
           "    return launch_agent(self._config, self._entrypoint, list(args))",
           '  File "%s/torch/distributed/launcher/api.py", line 277, in launch_agent' % run.site,
           "    raise ChildFailedError(",
           "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
           "=" * 60, "%s FAILED" % run.entry.split("/")[-1], "-" * 60, "Failures:"]
    others = [f for j, f in enumerate(failures) if j != root_idx]
    if not others:
        out.append("  <NO_OTHER_FAILURES>")
    for i, (r, ec) in enumerate(others[:6]):
        out += block(i + 1, r, ec, t)
    out += ["-" * 60, "Root Cause (first observed failure):"] + block(0, r0, ec0, t - dt.timedelta(seconds=1)) + ["=" * 60]
    run.agent(t + dt.timedelta(milliseconds=400), node, "\n".join(out), "ERROR")


def cascade(run, t_exit, culprit, c_exit, mode=None, peers_mode=None, seq=None):
    """Culprit process exited (or stopped) at t_exit. Other ranks fail; agents summarise."""
    rng = run.rng
    cn = run.node_of(culprit) if culprit is not None else None
    op, numel = ops(run)
    seq = run.seq if seq is None else seq
    peers_mode = peers_mode or rng.choice(["remote", "timeout", "mixed"])
    run.notes.append("peers=%s" % peers_mode)
    exit_t = {}
    ecode = {}
    last_coll = t_exit - dt.timedelta(seconds=rng.uniform(0.2, 3))
    for r in run.shown:
        if r == culprit:
            continue
        n = run.node_of(r)
        if n == cn and c_exit is not None:
            continue  # siblings get SIGTERM from their agent
        pm = peers_mode if peers_mode != "mixed" else rng.choice(["remote", "timeout"])
        if pm == "remote":
            tt = t_exit + dt.timedelta(seconds=rng.uniform(0.5, 25))
            run.rank(tt, r, remote_err(run, tt, r, culprit if culprit is not None else rng.randrange(run.world), ib=rng.random() < 0.7), "ERROR")
        else:
            ran = 600000 + rng.randint(3, 90)
            tt = last_coll + dt.timedelta(milliseconds=ran + rng.randint(0, 900))
            run.rank(tt, r, wd_timeout(run, tt, r, seq, op, numel, ran), "ERROR")
        exit_t[r] = tt + dt.timedelta(seconds=rng.uniform(0.5, 3))
        ecode[r] = -6
    # non-shown ranks on shown nodes also die -6 at similar times (summaries only)
    for n in run.shown_nodes:
        ranks = [n * run.gpn + l for l in range(run.gpn)]
        if n == cn and c_exit is not None:
            tt = t_exit + dt.timedelta(seconds=rng.uniform(0.3, 2.5))
            fails = [(culprit, c_exit)]
            agent_fail(run, tt, n, fails)
            for s in ranks:
                if s != culprit:
                    exit_t[s] = tt
                    ecode[s] = -15
            continue
        known = [exit_t[s] for s in ranks if s in exit_t]
        if known:
            dflt = lambda: min(known) + dt.timedelta(seconds=rng.uniform(0, 2))
        else:
            dflt = lambda: (t_exit + dt.timedelta(seconds=rng.uniform(1, 30))) if peers_mode == "remote" else (last_coll + dt.timedelta(milliseconds=600000 + rng.randint(500, 3000)))
        fl = sorted([(exit_t[s] if s in exit_t else dflt(), s) for s in ranks])
        tt = fl[0][0] + dt.timedelta(seconds=rng.uniform(0.3, 2))
        fails = [(s, -6) for _, s in fl[: rng.randint(1, min(3, len(fl)))]]
        agent_fail(run, tt, n, fails)
        for s in ranks:
            exit_t.setdefault(s, tt)
    run.t_end = max(exit_t.values(), default=t_exit) + dt.timedelta(seconds=rng.uniform(2, 20))
    run.exit_t = exit_t
    return op, numel, seq


def teardown_warn(run, t, r):
    if run.era == "old":
        return None
    return run.tprefix(t, r, "W", cpp="ProcessGroupNCCL.cpp", line=1250) + "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only been added since PyTorch 2.4 (function operator())"


def healthy_end(run):
    rng = run.rng
    t = run.t_fail
    run.rank(t, 0, "Training complete: %d steps, final loss %.4f" % (run.last_step, rng.uniform(1.6, 2.4)))
    run.rank(t + dt.timedelta(seconds=3), 0, "Saved checkpoint to /checkpoints/%s/final" % run.model)
    for r in run.shown:
        w = teardown_warn(run, t + dt.timedelta(seconds=5), r)
        if w and rng.random() < 0.6:
            run.rank(t + dt.timedelta(seconds=5 + r * 0.001), r, w, "WARN")
    if rng.random() < 0.4:
        r = rng.choice(run.shown)
        run.rank(t + dt.timedelta(seconds=5.5), r, nccl_line(run, t, r, "[Service thread] Connection closed by localRank %d" % rng.randrange(run.gpn), warn=False))
        run.decoys.append("benign NCCL teardown")
    for n in run.shown_nodes:
        lt = (t + dt.timedelta(seconds=8)).astimezone(run.tz)
        if run.era == "old":
            run.agent(t + dt.timedelta(seconds=8), n, "[%s] torch.distributed.elastic.agent.server.api: [INFO] [default] worker group successfully finished. Waiting 300 seconds for other agents to finish." % lt.strftime("%Y-%m-%d %H:%M:%S,%f")[:-3])
        else:
            run.agent(t + dt.timedelta(seconds=8), n, "%s %d torch/distributed/elastic/agent/server/api.py:711] [default] worker group successfully finished. Waiting 300 seconds for other agents to finish." % (run.glog(t + dt.timedelta(seconds=8), "I"), run.agent_pid(n)))
    run.exit_code = 0
    run.t_end = t + dt.timedelta(seconds=12)
    run.final = ("completed", 0)


# ----------------------------------------------------------------------------- faults
def f_gpu_hardware(run):
    rng, c = run.rng, run.culprit
    cn, l = run.node_of(c), run.local(c)
    bus = run.pci[l]
    tf = run.t_fail
    kind = rng.choice([79, 79, 119, 62])
    run.kern(tf - dt.timedelta(seconds=0.4), cn, "NVRM: GPU at PCI:0000:%s:00: GPU-%s-%s-%s-%s-%s" % (bus, hexid(rng, 8), hexid(rng, 4), hexid(rng, 4), hexid(rng, 4), hexid(rng, 12)), "INFO")
    if kind == 79:
        run.kern(tf - dt.timedelta(seconds=0.3), cn, "pcieport 0000:%s:01.0: AER: Uncorrected (Fatal) error received: 0000:%s:00.0" % (rng.choice(["15", "97", "d7"]), bus), "ERR")
        run.kern(tf, cn, "NVRM: Xid (PCI:0000:%s:00): 79, GPU has fallen off the bus." % bus, "ERR")
        run.kern(tf + dt.timedelta(milliseconds=2), cn, "NVRM: GPU 0000:%s:00.0: GPU has fallen off the bus." % bus, "ERR")
        if rng.random() < 0.5:
            run.kern(tf + dt.timedelta(milliseconds=60), cn, "NVRM: Xid (PCI:0000:%s:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)" % bus, "ERR")
        msg = "unspecified launch failure"
    elif kind == 119:
        run.kern(tf, cn, "NVRM: Xid (PCI:0000:%s:00): 119, pid=%d, name=python3, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x20803039 0x8)." % (bus, run.pid(c), l), "ERR")
        run.kern(tf + dt.timedelta(seconds=6), cn, "NVRM: Xid (PCI:0000:%s:00): 119, pid=%d, name=python3, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 10 (FREE) (0xa55a00b0 0x0)." % (bus, run.pid(c), l), "ERR")
        msg = "unspecified launch failure"
    else:
        run.kern(tf, cn, "NVRM: Xid (PCI:0000:%s:00): 62, pid='<unknown>', name=<unknown>, %s" % (bus, "0000(0000) 00000000 00000000"), "ERR")
        msg = "unspecified launch failure"
    run.notes.append("injected Xid %d on %s GPU%d (PCI %s)" % (kind, run.hosts[cn]["name"], l, bus))
    if rng.random() < 0.55:
        # culprit errors out
        te = tf + dt.timedelta(seconds=rng.uniform(0.5, 20))
        run.rank(te, c, cuda_err_tb(run, c, msg), "ERROR")
        cascade(run, te + dt.timedelta(seconds=1), c, 1)
    else:
        # culprit wedges; everyone times out including culprit eventually never; siblings on node abort
        run.notes.append("culprit wedged, no traceback")
        cascade(run, tf, c, None, peers_mode="timeout")
    sched_fail(run, node_fail=(kind == 79 and rng.random() < 0.5))


def f_ecc(run):
    rng, c = run.rng, run.culprit
    cn, l = run.node_of(c), run.local(c)
    bus = run.pci[l]
    tf = run.t_fail
    addr = rng.randint(0x10000000, 0x7fffffff)
    v = rng.choice(["48", "94", "95"])
    if v == "48":
        run.kern(tf, cn, "NVRM: Xid (PCI:0000:%s:00): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at physAddr 0x%x partition %d, subpartition %d." % (bus, addr, rng.randint(0, 23), rng.randint(0, 3)), "ERR")
        run.kern(tf + dt.timedelta(milliseconds=40), cn, "NVRM: Xid (PCI:0000:%s:00): 63, pid='<unknown>', name=<unknown>, Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % (bus, addr), "WARN")
        run.kern(tf + dt.timedelta(milliseconds=80), cn, "NVRM: Xid (PCI:0000:%s:00): 94, pid=%d, name=python3, Contained: SM (0x1). RST: No, D-RST: No" % (bus, run.pid(c)), "ERR")
    elif v == "94":
        run.kern(tf, cn, "NVRM: Xid (PCI:0000:%s:00): 94, pid=%d, name=python3, Contained: SM (0x1). RST: No, D-RST: No" % (bus, run.pid(c)), "ERR")
    else:
        run.kern(tf, cn, "NVRM: Xid (PCI:0000:%s:00): 95, pid=%d, name=python3, Uncontained: LTC TAG (0x2, 0x1). RST: Yes, D-RST: No" % (bus, run.pid(c)), "ERR")
    run.notes.append("injected Xid %s (ECC) on %s GPU%d" % (v, run.hosts[cn]["name"], l))
    te = tf + dt.timedelta(seconds=rng.uniform(0.2, 4))
    if rng.random() < 0.7:
        run.rank(te, c, cuda_err_tb(run, c, "uncorrectable ECC error encountered"), "ERROR")
        cascade(run, te + dt.timedelta(seconds=1), c, 1)
    else:
        run.rank(te, c, nccl_line(run, te, c, "Cuda failure 'uncorrectable ECC error encountered'", src="enqueue.cc:1556") + "\n" + run.tprefix(te, c, "E", line=1895) + "%s Process group watchdog thread terminated with exception: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s\nncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\nCuda failure 'uncorrectable ECC error encountered'" % (run.pgp(c), run.nccl), "ERROR")
        cascade(run, te + dt.timedelta(seconds=1), c, -6)
    sched_fail(run)


def f_nvlink(run):
    rng, c = run.rng, run.culprit
    cn, l = run.node_of(c), run.local(c)
    bus = run.pci[l]
    tf = run.t_fail
    link = rng.randint(0, 17)
    regs = "(0x%08x 0x%08x 0x%08x 0x%08x 0x%08x 0x%08x)" % tuple(rng.randint(0, 0xffffff) for _ in range(6))
    run.kern(tf, cn, "NVRM: Xid (PCI:0000:%s:00): 74, pid=%d, name=python3, NVLink: fatal error detected on link %d%s" % (bus, run.pid(c), link, "" if rng.random() < 0.5 else " " + regs), "ERR")
    if rng.random() < 0.5:
        run.kern(tf + dt.timedelta(milliseconds=12), cn, "NVRM: Xid (PCI:0000:%s:00): 74, pid=%d, name=python3, NVLink: fatal error detected on link %d" % (bus, run.pid(c), (link + 1) % 18), "ERR")
    run.notes.append("injected Xid 74 link %d on %s GPU%d" % (link, run.hosts[cn]["name"], l))
    te = tf + dt.timedelta(seconds=rng.uniform(0.3, 6))
    run.rank(te, c, cuda_err_tb(run, c, "uncorrectable NVLink error detected during the execution"), "ERROR")
    cascade(run, te + dt.timedelta(seconds=1), c, 1)
    sched_fail(run)


def f_network(run):
    rng, c = run.rng, run.culprit
    cn, l = run.node_of(c), run.local(c)
    tf = run.t_fail
    dev = IB_DEVS[l]
    ifn = "ibp%ds0" % int(IB_PCI[l], 16)
    peer = (c + run.gpn) % run.world if run.world > run.gpn else (c + 1) % run.world
    ph = run.hosts[run.node_of(peer)]
    run.kern(tf - dt.timedelta(seconds=rng.uniform(1, 8)), cn, "mlx5_core 0000:%s:00.0 %s: Link down" % (IB_PCI[l], ifn), "ERR")
    if rng.random() < 0.5:
        run.kern(tf - dt.timedelta(seconds=0.5), cn, "mlx5_core 0000:%s:00.0: mlx5_port_module_event:%d:(pid 0): Port module event[error]: module 0, Cable error, Bus stuck (I2C or data shorted)" % (IB_PCI[l], rng.choice([1155, 1163])), "ERR")
    port = rng.randint(32000, 60000)
    if run.nccl < "2.20":
        w = "NET/IB : Got completion from peer %s<%d> with error 12, opcode 0, len 0, vendor err 129" % (ph["ip"], port)
    elif run.nccl < "2.24":
        w = "NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Send) localGid fe80::%s remoteGid fe80::%s" % (ph["ip"], port, hexid(rng, 4), hexid(rng, 4))
    else:
        w = "NET/IB: Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Send) localGid fe80::%s remoteGid fe80::%s hca %s" % (ph["ip"], port, hexid(rng, 4), hexid(rng, 4), dev)
    te = tf + dt.timedelta(seconds=rng.uniform(20, 40))
    body = nccl_line(run, te, c, w) + "\n" + run.tprefix(te, c, "E", line=1895) + "%s %s: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version %s\nncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. \nLast error:\n%s" % (run.pgp(c), "NCCL watchdog thread terminated with exception" if run.era == "old" else "Process group watchdog thread terminated with exception", run.nccl, w)
    run.rank(te, c, body, "ERROR")
    run.notes.append("injected IB link down %s/%s on %s (rank %d)" % (dev, ifn, run.hosts[cn]["name"], c))
    cascade(run, te + dt.timedelta(seconds=1), c, -6, peers_mode="remote")
    sched_fail(run)


def f_cuda_oom(run):
    rng, c = run.rng, run.culprit
    tf = run.t_fail
    tot = {"NVIDIA H100 80GB HBM3": 79.11, "NVIDIA A100-SXM4-80GB": 79.15, "NVIDIA H200": 139.8}[run.gpu_model]
    alloc = rng.choice([1.0, 2.0, 3.5, 7.83, 12.0, 20.0])
    free = rng.uniform(0.05, alloc * 0.8)
    inuse = tot - free
    if run.era == "old":
        m = "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacty of %.2f GiB of which %.2f MiB is free. Process %d has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF" % (alloc, run.local(c), tot, free * 1024, run.pid(c), inuse, inuse - 1.3, rng.uniform(100, 900))
    else:
        m = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of %.2f GiB of which %.2f MiB is free. Including non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)" % (alloc, run.local(c), tot, free * 1024, inuse, inuse - 1.3, rng.uniform(100, 900))
    fr = train_frames(run, [("/workspace/trainer/loop.py", 198, "train_step", "logits = self.model(**batch)"),
                            (run.site + "/torch/nn/modules/module.py", 1751, "_call_impl", "return forward_call(*args, **kwargs)"),
                            ("/workspace/models/attention.py", 144, "forward", "attn = torch.softmax(scores.float(), dim=-1).to(q.dtype)")])
    run.rank(tf, c, py_traceback(run, c, fr, m), "ERROR")
    run.notes.append("injected CUDA OOM on rank %d (long-sequence batch)" % c)
    cascade(run, tf + dt.timedelta(seconds=1.5), c, 1)
    sched_fail(run)


def f_ima(run):
    rng, c = run.rng, run.culprit
    cn, l = run.node_of(c), run.local(c)
    tf = run.t_fail
    if rng.random() < 0.5:
        run.kern(tf - dt.timedelta(milliseconds=3), cn, "NVRM: Xid (PCI:0000:%s:00): 31, pid=%d, name=python3, channel 0x%08x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC%d GPCCLIENT_T1_%d faulted @ 0x%x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE" % (run.pci[l], run.pid(c), rng.randint(8, 64), rng.randint(0, 7), rng.randint(0, 15), rng.randint(0x7f00, 0x7fff), rng.randint(0, 0xfffff) << 12), "ERR")
        run.rank(tf, c, cuda_err_tb(run, c, "an illegal memory access was encountered"), "ERROR")
        run.notes.append("injected illegal memory access (Xid 31) on rank %d" % c)
    else:
        asserts = []
        for k in range(rng.randint(2, 6)):
            asserts.append("../aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [%d,0,0], thread: [%d,0,0] Assertion `-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"` failed." % (rng.randint(0, 4000), rng.randint(0, 127)))
        run.rank(tf - dt.timedelta(milliseconds=5), c, "\n".join(asserts), "ERROR")
        run.rank(tf, c, cuda_err_tb(run, c, "device-side assert triggered"), "ERROR")
        run.notes.append("injected device-side assert on rank %d" % c)
    cascade(run, tf + dt.timedelta(seconds=1), c, 1)
    sched_fail(run)


def f_python(run):
    rng, c = run.rng, run.culprit
    tf = run.t_fail
    if c is None:
        # config error on every rank, at startup
        tf = run.t0 + dt.timedelta(seconds=rng.uniform(45, 90))
        run.events = [e for e in run.events if e.t < tf]
        run.last_step = 0
        m = rng.choice(["ValueError: global_batch_size (1024) must be divisible by micro_batch_size (3) * data_parallel_size (%d)" % (run.world // 2 or 1),
                        "KeyError: 'optimizer.lr_scheduler.warmup_steps'",
                        "FileNotFoundError: [Errno 2] No such file or directory: '/mnt/datasets/%s/tokenizer.model'" % run.model,
                        "omegaconf.errors.ConfigAttributeError: Key 'tensor_model_parallel_size' is not in struct\n    full_key: model.tensor_model_parallel_size\n    object_type=dict"])
        fr = train_frames(run, [("/workspace/trainer/config.py", 77, "validate", "raise ValueError(msg)" if m.startswith("Value") else "cfg = load(cfg_path)")])[:2] + [("/workspace/trainer/config.py", 77, "build", "return validate(cfg)")]
        for r in run.shown:
            run.rank(tf + dt.timedelta(milliseconds=rng.randint(0, 900)), r, py_traceback(run, r, fr, m), "ERROR")
        for n in run.shown_nodes:
            ranks = [n * run.gpn + x for x in range(run.gpn)]
            agent_fail(run, tf + dt.timedelta(seconds=rng.uniform(1, 3)), n, [(x, 1) for x in ranks[:min(4, len(ranks))]], 0)
        run.t_end = tf + dt.timedelta(seconds=5)
        run.notes.append("injected config error on every rank at startup (job-wide)")
        sched_fail(run)
        return
    m = rng.choice([
        "FileNotFoundError: [Errno 2] No such file or directory: '/mnt/data/shards/train-%05d-of-04096.arrow'" % rng.randint(0, 4095),
        "ValueError: Expected input batch_size (%d) to match target batch_size (%d)." % (16, 15),
        "AssertionError: loss is NaN at step %d" % (run.last_step + 1),
        "KeyError: 'input_ids'",
        "ZeroDivisionError: division by zero",
        "json.decoder.JSONDecodeError: Expecting ',' delimiter: line 1 column %d (char %d)" % (rng.randint(100, 900), rng.randint(1000, 90000))])
    fr = train_frames(run, [("/workspace/trainer/data.py", 311, "__getitem__", "sample = self._read(idx)")])
    run.rank(tf, c, py_traceback(run, c, fr, m), "ERROR")
    run.notes.append("injected uncaught %s on rank %d" % (m.split(":")[0], c))
    cascade(run, tf + dt.timedelta(seconds=1), c, 1)
    sched_fail(run)


def f_host_oom(run):
    rng, c = run.rng, run.culprit
    cn = run.node_of(c)
    tf = run.t_fail
    pid = run.pid(c)
    cg = rng.random() < 0.5 or run.layout == "k8s-lws"
    avm = rng.randint(180, 900) * 1024 * 1024
    rss = rng.randint(60, 400) * 1024 * 1024
    run.kern(tf - dt.timedelta(milliseconds=30), cn, "pt_data_worker invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0", "WARN")
    if cg:
        run.kern(tf, cn, "Memory cgroup out of memory: Killed process %d (python3) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:0 pgtables:%dkB oom_score_adj:0" % (pid, avm, rss, rng.randint(100000, 900000), rng.randint(1000, 4000000), rng.randint(20000, 300000)), "ERR")
    else:
        run.kern(tf, cn, "Out of memory: Killed process %d (python3) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:1000 pgtables:%dkB oom_score_adj:0" % (pid, avm, rss, rng.randint(100000, 900000), rng.randint(1000, 4000000), rng.randint(20000, 300000)), "ERR")
    run.kern(tf + dt.timedelta(milliseconds=600), cn, "oom_reaper: reaped process %d (python3), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB" % pid, "INFO")
    # rank shows its pid at startup so the kill can be tied to a rank
    run.rank_inferable_oom = rng.random() < 0.75
    if run.rank_inferable_oom:
        run.rank(run.t0 + dt.timedelta(seconds=44), c, "[rank %d] local_rank=%d pid=%d host=%s dataloader workers=%d" % (c, run.local(c), pid, run.hosts[cn]["short"], rng.choice([8, 12, 16])))
    run.notes.append("injected %s OOM kill of rank %d (pid %d) on %s" % ("cgroup" if cg else "global", c, pid, run.hosts[cn]["name"]))
    run.oom_cg = cg
    cascade(run, tf + dt.timedelta(seconds=1), c, -9)
    sched_fail(run, oom=True)


def f_crash(run):
    rng, c = run.rng, run.culprit
    cn = run.node_of(c)
    tf = run.t_fail
    kind = rng.choice(["segv", "segv", "bus", "abrt"])
    p = run.py_prefix(c)
    if kind == "segv":
        lib = rng.choice(["libflash_attn_2_cuda.so", "_C.cpython-310-x86_64-linux-gnu.so", "libtorch_cpu.so", "libarrow.so.1500"])
        run.rank(tf, c, "Fatal Python error: Segmentation fault\n\nThread 0x%012x (most recent call first):\n  File \"/workspace/trainer/loop.py\", line 188 in train_step\n  File \"/workspace/trainer/loop.py\", line 96 in fit\n  File \"/workspace/%s\", line 241 in main\n\nExtension modules: numpy.core._multiarray_umath, torch._C, torch._C._fft, torch._C._linalg (total: 48)" % (rng.randint(0x7f0000000000, 0x7fffffffffff), run.entry), "ERROR")
        run.kern(tf + dt.timedelta(milliseconds=5), cn, "python3[%d]: segfault at %x ip %012x sp %012x error 4 in %s[%x+%x] likely on CPU %d (core %d, socket %d)" % (run.pid(c), rng.choice([0, 8, 0x18]), rng.randint(0x7f0000000000, 0x7fffffffffff), rng.randint(0x7ff000000000, 0x7fffffffffff), lib, rng.randint(0x7f0000000000, 0x7fffffffffff) & ~0xfff, rng.randint(0x100000, 0x4000000), rng.randint(0, 95), rng.randint(0, 47), rng.randint(0, 1)), "INFO")
        ec = -11
    elif kind == "bus":
        run.rank(tf, c, "Fatal Python error: Bus error\n\nThread 0x%012x (most recent call first):\n  File \"%s/torch/storage.py\", line 1183 in _share_filename_cpu_\n  File \"/workspace/trainer/loop.py\", line 161 in train_step" % (rng.randint(0x7f0000000000, 0x7fffffffffff), run.site), "ERROR")
        ec = -7
    else:
        run.rank(tf, c, "%s\n%sAborted (core dumped)" % (rng.choice(["double free or corruption (!prev)", "free(): invalid pointer", "corrupted size vs. prev_size"]), ""), "ERROR")
        ec = -6
    run.notes.append("injected %s on rank %d (exit %d)" % (kind, c, ec))
    cascade(run, tf + dt.timedelta(seconds=1), c, ec)
    sched_fail(run)


def f_preempt(run):
    rng = run.rng
    tf = run.t_fail
    for r in run.shown:
        pass
    for n in run.shown_nodes:
        tt = tf + dt.timedelta(seconds=rng.uniform(0.1, 2))
        if run.era == "old":
            run.agent(tt, n, "[%s] torch.distributed.elastic.agent.server.api: [INFO] Received Signals.SIGTERM death signal, shutting down workers" % tt.astimezone(run.tz).strftime("%Y-%m-%d %H:%M:%S,%f")[:-3], "WARN")
        else:
            run.agent(tt, n, "%s %d torch/distributed/elastic/agent/server/api.py:704] Received Signals.SIGTERM death signal, shutting down workers" % (run.glog(tt, "W"), run.agent_pid(n)), "WARN")
        for l in range(min(run.gpn, 8)):
            s = n * run.gpn + l
            run.agent(tt + dt.timedelta(milliseconds=5 * l), n, ("%s %d torch/distributed/elastic/multiprocessing/api.py:897] " % (run.glog(tt, "W"), run.agent_pid(n)) if run.era != "old" else "WARNING:torch.distributed.elastic.multiprocessing.api:") + "Sending process %d closing signal SIGTERM" % run.pid(s), "WARN")
        run.agent(tt + dt.timedelta(seconds=3), n, "Traceback (most recent call last):\n  File \"/usr/local/bin/torchrun\", line 8, in <module>\n    sys.exit(main())\n  File \"%s/torch/distributed/elastic/agent/server/api.py\", line 866, in _invoke_run\n    time.sleep(monitor_interval)\n  File \"%s/torch/distributed/elastic/multiprocessing/api.py\", line 84, in _terminate_process_handler\n    raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)\ntorch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % (run.site, run.site, run.agent_pid(n)), "ERROR")
    run.t_end = tf + dt.timedelta(seconds=rng.uniform(8, 30))
    run.notes.append("injected whole-job preemption (SIGTERM to every node)")
    sched_preempt(run)


def f_hang(run):
    rng, c = run.rng, run.culprit
    tf = run.t_fail
    seq = run.seq
    # culprit stops (e.g., python-level deadlock) before enqueuing seq
    evid = rng.random() < 0.7
    run.rank_inferable_hang = evid
    op, numel = ops(run)
    last_coll = tf
    for r in run.shown:
        if r == c:
            continue
        ran = 600000 + rng.randint(3, 90)
        tt = last_coll + dt.timedelta(milliseconds=ran + rng.randint(0, 800))
        run.rank(tt, r, wd_timeout(run, tt, r, seq, op, numel, ran), "ERROR")
    t2 = tf + dt.timedelta(milliseconds=600000 + rng.randint(1000, 3000))
    if evid:
        if run.era == "new":
            run.rank(t2, c, run.tprefix(t2, c, "E", line=1410) + "%s Received a dump signal due to a collective timeout from rank %d and we will try our best to dump the debug info. Last enqueued NCCL work: %d, last completed NCCL work: %d.This is most likely caused by incorrect usages of collectives, e.g., wrong sizes used across ranks, the order of collectives is not same for all ranks or the scheduled collective, for some reason, didn't run. Additionally, this can be caused by GIL deadlock or other reasons such as network errors or bugs in the communications library (e.g. NCCL), etc." % (run.pgp(c), (c + 1) % run.world, seq - 1, seq - 1), "ERROR")
        else:
            # a py-spy dump pasted by the operator
            run.attachments["py-spy-dump-%s-pid%d.txt" % (run.hosts[run.node_of(c)]["short"], run.pid(c))] = ("$ py-spy dump --pid %d\n" % run.pid(c)) + ("Process %d: %s -u /workspace/%s\nPython v3.10.12 (/usr/bin/python3.10)\n\nThread %d (idle): \"MainThread\"\n    wait (threading.py:320)\n    get (queue.py:171)\n    _next_metrics (/workspace/trainer/metrics.py:88)\n    train_step (/workspace/trainer/loop.py:231)\n    fit (/workspace/trainer/loop.py:96)\n    main (/workspace/%s:241)\n" % (run.pid(c), run.pybin, run.entry, run.pid(c), run.entry))
        run.notes.append("hang: culprit rank %d never enqueued SeqNum=%d (evidence: %s)" % (c, seq, "dump-signal line" if run.era == "new" else "py-spy dump"))
    else:
        run.notes.append("hang: culprit rank %d silent; only absence of its timeout" % c)
    # agents
    cn = run.node_of(c)
    for n in run.shown_nodes:
        ranks = [n * run.gpn + x for x in range(run.gpn) if n * run.gpn + x != c]
        if not ranks:
            continue
        tt = tf + dt.timedelta(milliseconds=601000 + rng.randint(500, 4000))
        agent_fail(run, tt, n, [(x, -6) for x in ranks[: rng.randint(1, min(3, len(ranks)))]])
    run.t_end = tf + dt.timedelta(seconds=612)
    sched_fail(run)


def f_dl_stall(run):
    rng, c = run.rng, run.culprit
    tf = run.t_fail
    if c is None:
        srv = rng.choice(["fsx-0a1b.fsx.us-west-2.amazonaws.com", "nfs01", "10.20.0.5", "weka-fe-3"])
        for n in run.shown_nodes:
            run.kern(tf + dt.timedelta(seconds=rng.uniform(0, 20)), n, "nfs: server %s not responding, still trying" % srv if "fsx" not in srv else "Lustre: 3921:0:(client.c:2295:ptlrpc_expire_one_request()) @@@ Request sent has timed out for slow reply: [sent %d] req@%s x%d/t0(0) o4->fsx-OST0003-osc-%s@%s@tcp:6/4 lens 488/448 e 0 to 1 dl %d ref 2 fl Rpc:XQr/2/ffffffff rc 0/-1" % (int(tf.timestamp()), hexid(rng, 16), rng.randint(10**15, 10**16), hexid(rng, 16), run.hosts[0]["ip"], int(tf.timestamp()) + 7), "WARN")
            run.kern(tf + dt.timedelta(seconds=rng.uniform(121, 130)), n, "INFO: task pt_data_worker:%d blocked for more than 120 seconds." % rng.randint(10000, 99999), "ERR")
        for r in run.shown:
            tt = tf + dt.timedelta(seconds=1800 + rng.uniform(0, 5))
            run.rank(tt, r, py_traceback(run, r, train_frames(run, [(run.site + "/torch/utils/data/dataloader.py", 1133, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e")]), "RuntimeError: DataLoader timed out after 1800 seconds"), "ERROR")
        run.rank(tf + dt.timedelta(seconds=300), 0, "[W] no training step completed in 300 s (last step %d)" % run.last_step, "WARN")
        run.notes.append("injected shared-FS stall (%s) on all nodes (job-wide)" % srv)
        for n in run.shown_nodes:
            ranks = [n * run.gpn + x for x in range(run.gpn)]
            agent_fail(run, tf + dt.timedelta(seconds=1803 + rng.uniform(0, 3)), n, [(x, 1) for x in ranks[:min(3, len(ranks))]])
        run.t_end = tf + dt.timedelta(seconds=1810)
        sched_fail(run)
        return
    cn = run.node_of(c)
    for k in range(3):
        run.rank(tf - dt.timedelta(seconds=600 - k * 200), c, "WARNING data: batch fetch on rank %d took %.1fs (s3 prefetch queue empty, %d/%d workers busy)" % (c, rng.uniform(40, 200), rng.randint(6, 8), 8), "WARN")
    tt = tf + dt.timedelta(seconds=rng.choice([180, 300, 420]))
    run.rank(tt, c, py_traceback(run, c, train_frames(run, [(run.site + "/torch/utils/data/dataloader.py", 1133, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e")]), "RuntimeError: DataLoader timed out after %d seconds" % int((tt - tf).total_seconds())), "ERROR")
    run.notes.append("injected DataLoader stall on rank %d (its data fetch)" % c)
    cascade(run, tt + dt.timedelta(seconds=1), c, 1)
    sched_fail(run)


def f_mismatch(run):
    rng, c = run.rng, run.culprit
    tf = run.t_fail
    seq = run.seq
    other = 0 if c != 0 else 1
    fp = "CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%d], TensorDtypes=%s, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))"
    variant = rng.choice(["detail", "timeout"])
    if variant == "detail":
        a = fp % (seq, "ALLREDUCE", 1, "Float")
        b = fp % (seq, "BROADCAST", 1, "Long")
        m = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects: \t Op type: ALLREDUCEvs BROADCAST  Tensor Tensor dtypes: Floatvs Long" % (c, a, other, b)
        fr = train_frames(run, [("/workspace/trainer/loop.py", 240, "train_step", "dist.all_reduce(self._skip_flag)"),
                                (run.site + "/torch/distributed/c10d_logger.py", 81, "wrapper", "return func(*args, **kwargs)"),
                                (run.site + "/torch/distributed/distributed_c10d.py", 2806, "all_reduce", "work = group.allreduce([tensor], opts)")])
        run.rank(tf, c, py_traceback(run, c, fr, m), "ERROR")
        for r in [x for x in run.shown if x != c][: rng.randint(1, 3)]:
            m2 = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects: \t Op type: BROADCASTvs ALLREDUCE  Tensor Tensor dtypes: Longvs Float" % (r, b, c, a)
            run.rank(tf + dt.timedelta(milliseconds=rng.randint(1, 300)), r, py_traceback(run, r, fr, m2), "ERROR")
        run.notes.append("injected collective mismatch: rank %d ALLREDUCE vs others BROADCAST (TORCH_DISTRIBUTED_DEBUG=DETAIL)" % c)
        cascade(run, tf + dt.timedelta(seconds=1), c, 1)
    else:
        # culprit enqueued a different op; everyone times out; culprit's watchdog shows different OpType/numel
        op, numel = "ALLREDUCE", 2 ** rng.randint(20, 26)
        for r in run.shown:
            ran = 600000 + rng.randint(3, 90)
            tt = tf + dt.timedelta(milliseconds=ran + rng.randint(0, 900))
            if r == c:
                run.rank(tt, r, wd_timeout(run, tt, r, seq, "_ALLGATHER_BASE", numel * 4, ran), "ERROR")
            else:
                run.rank(tt, r, wd_timeout(run, tt, r, seq, op, numel, ran), "ERROR")
        if rng.random() < 0.6:
            fr = "Not all ranks joining collective %d at entry %d\ninternal record id: %d\ngroup info: 0:default_pg\ncollective: nccl:all_reduce\nmissing ranks: {}\ninput sizes: [[%d]]\noutput sizes: [[%d]]\nexpected ranks: %d\ncollective state: scheduled\nerror msg: Culprit rank %d; Error type: COLLECTIVE_TYPE_MISMATCH, Expected collective type: 'nccl:all_reduce' does not match found collective type: 'nccl:_allgather_base'" % (seq, seq - 1, seq + 7, numel, numel, run.world, c)
            run.attachments["fr_trace_analysis.txt"] = "$ torchfrtrace /tmp/nccl_trace_rank_ -j\n" + fr + "\n"
        run.notes.append("injected collective mismatch: rank %d _ALLGATHER_BASE vs ALLREDUCE, all time out" % c)
        for n in run.shown_nodes:
            ranks = [n * run.gpn + x for x in range(run.gpn)]
            agent_fail(run, tf + dt.timedelta(milliseconds=602500 + rng.randint(0, 3000)), n, [(x, -6) for x in ranks[:min(2, len(ranks))]])
        run.t_end = tf + dt.timedelta(seconds=610)
    sched_fail(run)


def f_straggler(run):
    rng, c = run.rng, run.culprit
    tf = run.t_fail
    run.notes.append("injected straggler rank %d (fwd_bwd x%.1f); job still running or finished slowly" % (c, 2.0))
    if rng.random() < 0.5:
        cn = run.node_of(c)
        if rng.random() < 0.5:
            run.kern(run.t0 + dt.timedelta(minutes=3), cn, "mlx5_core 0000:%s:00.0: mlx5_pcie_event:299:(pid %d): PCIe slot advertised sufficient power (27W)." % (IB_PCI[run.local(c)], rng.randint(100, 900)), "INFO")
    # finishes
    run.rank(tf, 0, "step %d | throughput below target: %.1f%% of expected tokens/s" % (run.last_step, rng.uniform(35, 60)), "WARN")
    run.t_end = tf + dt.timedelta(seconds=2)
    run.final = ("running", None)


def f_unknown(run):
    rng = run.rng
    tf = run.t_fail
    # a rank on some node exits 1 with no captured stderr; others are torn down
    n = rng.choice(run.shown_nodes)
    r = n * run.gpn + rng.randrange(run.gpn)
    run.notes.append("unknown: rank %d exited 1 with no output captured" % r)
    cascade(run, tf, r, 1)
    sched_fail(run)


FAULTS = {"gpu_hardware": f_gpu_hardware, "ecc_memory": f_ecc, "nvlink": f_nvlink, "network": f_network,
          "cuda_oom": f_cuda_oom, "illegal_memory_access": f_ima, "python_exception": f_python,
          "host_oom_kill": f_host_oom, "crash_signal": f_crash, "preemption": f_preempt, "hang": f_hang,
          "data_loader_stall": f_dl_stall, "collective_mismatch": f_mismatch, "straggler": f_straggler,
          "unknown": f_unknown}


def sched_fail(run, node_fail=False, oom=False):
    run.final = ("failed", 1)
    run.node_fail = node_fail
    run.oom_final = oom


def sched_preempt(run):
    run.final = ("preempted", 143)


# ----------------------------------------------------------------------------- layout renderers
def iso(t, ms=3):
    s = t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")
    return s[: 20 + ms] + "Z" if ms < 6 else s + "Z"


def rank_lines(run, e):
    """Expand an event text to lines with optional torchrun console prefix."""
    lines = e.text.split("\n")
    if e.kind == "rank" and run.tee:
        return ["[default%d]:%s" % (run.local(e.key), l) for l in lines]
    return lines


def kern_time_str(run, t, node, style):
    boot = run.t0 - dt.timedelta(days=run.rng.uniform(10, 60)) if not hasattr(run, "_boot") else run._boot
    run._boot = boot
    up = (t - boot).total_seconds()
    if style == "dmesg":
        return "[%12.6f] " % up
    if style == "dmesgT":
        return t.astimezone(run.tz).strftime("[%a %b %d %H:%M:%S %Y] ")
    return ""


def render_cloud_jsonl(run, out):
    rng = run.rng
    flav = "gke" if run.hosts[0]["kind"] == "gke" else rng.choice(["cloudwatch", "gke"]) if run.hosts[0]["kind"] == "eks" else "gke"
    if run.hosts[0]["kind"] == "eks":
        flav = "cloudwatch"
    proj = "ml-proj-" + hexid(rng, 4)
    rows = []
    cont = rng.choice(["pytorch", "trainer", "main"])
    for e in run.events:
        if e.kind in ("rank", "agent"):
            node = run.node_of(e.key) if e.kind == "rank" else e.key
            if node not in run.shown_nodes:
                continue
            h = run.hosts[node]
            lines = rank_lines(run, e) if e.kind == "rank" else e.text.split("\n")
            for j, l in enumerate(lines):
                t = e.t + dt.timedelta(microseconds=j * 7)
                stream = "stderr" if e.lvl in ("ERROR", "WARN") or e.kind == "agent" else "stdout"
                if flav == "gke":
                    rows.append((t, {"insertId": hexid(rng, 14), "labels": {"compute.googleapis.com/resource_name": h["name"], "k8s-pod/jobset_sigs_k8s_io/jobset-name": run.jobname, "k8s-pod/batch_kubernetes_io/job-completion-index": str(node)},
                                     "logName": "projects/%s/logs/%s" % (proj, stream), "receiveTimestamp": iso(t + dt.timedelta(seconds=rng.uniform(0.5, 3)), 9),
                                     "resource": {"labels": {"cluster_name": "train-cluster", "container_name": cont, "location": "us-central1", "namespace_name": "default", "pod_name": h["pod"], "project_id": proj}, "type": "k8s_container"},
                                     "severity": "ERROR" if stream == "stderr" else "INFO", "textPayload": l, "timestamp": iso(t, 9)}))
                else:
                    msg = l if rng.random() < 0.999 else l
                    rows.append((t, {"@timestamp": t.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3], "@message": json.dumps({"log": l, "stream": stream, "kubernetes": {"pod_name": h["pod"], "namespace_name": "training", "host": h["name"], "container_name": cont}}),
                                     "@logStream": "%s-application.var.log.containers.%s_training_%s-%s.log" % (h["name"], h["pod"], cont, hexid(rng, 12) if False else run.jobname), "@log": "123456789012:/aws/containerinsights/train-eks/application"}))
        elif e.kind == "kern":
            h = run.hosts[e.key]
            if flav == "gke":
                rows.append((e.t, {"insertId": hexid(rng, 14), "logName": "projects/%s/logs/kernel" % proj, "resource": {"labels": {"node_name": h["name"], "location": "us-central1-a", "cluster_name": "train-cluster", "project_id": proj}, "type": "k8s_node"},
                                   "severity": "ERROR" if e.lvl == "ERR" else "WARNING" if e.lvl == "WARN" else "INFO", "textPayload": e.text, "timestamp": iso(e.t, 9)}))
            else:
                rows.append((e.t, {"@timestamp": e.t.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3], "@message": "%s %s kernel: %s" % (e.t.astimezone(UTC).strftime("%b %d %H:%M:%S"), h["name"].split(".")[0], e.text),
                                   "@logStream": "%s.host.dmesg" % h["name"], "@log": "123456789012:/aws/containerinsights/train-eks/host"}))
    # scheduler / k8s events
    tend = run.t_end
    st = run.final[0]
    if flav == "gke":
        msg = {"failed": "Pod failed; JobSet %s failed: jobset failed due to job %s-workers-0 failing" % (run.jobname, run.jobname),
               "preempted": "Node %s: Preemption notice received: instance is being preempted (spot VM)" % run.hosts[0]["name"],
               "completed": "JobSet %s completed" % run.jobname, "running": None}[st]
    else:
        msg = {"failed": "PyTorchJob %s is failed because 1 Worker replica(s) failed." % run.jobname,
               "preempted": "EC2 Spot Instance interruption notice for instances of node group gpu-spot; pods of %s terminated (reason: Terminated, exit code 143)" % run.jobname,
               "completed": "PyTorchJob %s is successfully completed." % run.jobname, "running": None}[st]
    if run.cause == "preemption":
        for n in run.shown_nodes:
            h = run.hosts[n]
            t = run.t_fail - dt.timedelta(seconds=25)
            if flav == "gke":
                rows.append((t, {"insertId": hexid(rng, 14), "logName": "projects/%s/logs/events" % proj, "resource": {"labels": {"node_name": h["name"], "cluster_name": "train-cluster", "project_id": proj}, "type": "k8s_node"}, "severity": "WARNING",
                                 "jsonPayload": {"reason": "PreemptScheduled" if n else "Preempting", "message": "Node is about to be preempted; terminating pods", "involvedObject": {"kind": "Node", "name": h["name"]}}, "timestamp": iso(t, 9)}))
            else:
                rows.append((t, {"@timestamp": t.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3], "@message": "Spot interruption: Received termination notice for %s, draining node (2 minute warning)" % h["name"], "@logStream": "aws-node-termination-handler", "@log": "123456789012:/aws/containerinsights/train-eks/application"}))
    if run.cause == "host_oom_kill" and flav == "gke":
        h = run.hosts[run.node_of(run.culprit)]
        t = run.t_fail + dt.timedelta(seconds=1)
        rows.append((t, {"insertId": hexid(rng, 14), "logName": "projects/%s/logs/events" % proj, "resource": {"labels": {"node_name": h["name"], "cluster_name": "train-cluster", "project_id": proj}, "type": "k8s_node"}, "severity": "WARNING",
                         "jsonPayload": {"reason": "OOMKilling", "message": "Memory cgroup out of memory: Killed process %d (python3)" % run.pid(run.culprit), "source": {"component": "kernel-monitor", "host": h["name"]}}, "timestamp": iso(t, 9)}))
    if msg:
        if flav == "gke":
            rows.append((tend, {"insertId": hexid(rng, 14), "logName": "projects/%s/logs/events" % proj, "resource": {"labels": {"cluster_name": "train-cluster", "namespace_name": "default", "project_id": proj}, "type": "k8s_cluster"}, "severity": "WARNING" if st != "completed" else "INFO",
                                "jsonPayload": {"reason": "FailedJobs" if st == "failed" else "Completed" if st == "completed" else "Preempted", "message": msg, "involvedObject": {"kind": "JobSet", "name": run.jobname}}, "timestamp": iso(tend, 9)}))
        else:
            rows.append((tend, {"@timestamp": tend.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3], "@message": msg, "@logStream": "kubeflow-training-operator", "@log": "123456789012:/aws/containerinsights/train-eks/application"}))
    rows.sort(key=lambda x: x[0])
    fn = "cloud-logging-export.jsonl" if flav == "gke" else "cloudwatch-insights-export.jsonl"
    with open(os.path.join(out, fn), "w") as f:
        for _, o in rows:
            f.write(json.dumps(o) + "\n")
    run.node_spelling = "name"
    run.flavor = flav
    return [fn]


def render_journald(run, out):
    rng = run.rng
    colon = rng.random() < 0.5
    unit = rng.choice(["trainer", "trainer", "llm-train"])
    files = []

    def ts(t):
        lt = t.astimezone(run.tz)
        s = lt.strftime("%Y-%m-%dT%H:%M:%S%z")
        if colon:
            s = s[:-2] + ":" + s[-2:]
        return s
    nodes = run.shown_nodes
    for n in nodes:
        h = run.hosts[n]
        mpid = run.agent_pid(n) + 100000
        L = []
        L.append("$ journalctl -u %s -o short-iso --since \"%s\"" % (unit, run.t0.astimezone(run.tz).strftime("%Y-%m-%d %H:%M")))
        L.append("-- Logs begin at %s, end at %s. --" % (run.t0.astimezone(run.tz).strftime("%a %Y-%m-%d %H:%M:%S ") + run.tzname, (run.t_end + dt.timedelta(hours=1)).astimezone(run.tz).strftime("%a %Y-%m-%d %H:%M:%S ") + run.tzname) if rng.random() < 0.5 else "-- Boot %s --" % hexid(rng, 32))
        U = []

        def put(t, line):
            U.append((t, len(U), line))
        put(run.t0 - dt.timedelta(seconds=3), "%s %s systemd[1]: Started %s.service - %s pretraining (rank group %d)." % (ts(run.t0 - dt.timedelta(seconds=3)), h["short"], unit, run.model, n))
        for e in run.events:
            if e.kind == "rank" and run.node_of(e.key) == n:
                lines = rank_lines(run, e)
            elif e.kind == "agent" and e.key == n:
                lines = e.text.split("\n")
            else:
                continue
            for l in lines:
                if l == "":
                    continue
                put(e.t, "%s %s torchrun[%d]: %s" % (ts(e.t), h["short"], mpid, l))
        te = run.t_end + dt.timedelta(seconds=rng.uniform(0.5, 3))
        st = run.final[0]
        oom_here = run.cause == "host_oom_kill" and n == run.node_of(run.culprit)
        sysd = "%s %s systemd[1]: %s.service: "
        if st == "failed":
            if oom_here and rng.random() < 0.6:
                t1 = run.t_fail + dt.timedelta(seconds=0.2)
                put(t1, sysd % (ts(t1), h["short"], unit) + "A process of this unit has been killed by the OOM killer.")
            put(te, sysd % (ts(te), h["short"], unit) + "Main process exited, code=exited, status=1/FAILURE")
            put(te, sysd % (ts(te), h["short"], unit) + "Failed with result '%s'." % ("oom-kill" if oom_here else "exit-code"))
        elif st == "preempted":
            t1 = run.t_fail - dt.timedelta(seconds=1)
            put(t1, "%s %s systemd-logind[1187]: The system will power off now!" % (ts(t1), h["short"]))
            put(run.t_fail, "%s %s systemd[1]: Stopping %s.service - %s pretraining (rank group %d)..." % (ts(run.t_fail), h["short"], unit, run.model, n))
            put(te, sysd % (ts(te), h["short"], unit) + "Deactivated successfully.")
            put(te, "%s %s systemd[1]: Stopped %s.service - %s pretraining (rank group %d)." % (ts(te), h["short"], unit, run.model, n))
        elif st == "completed":
            put(te, sysd % (ts(te), h["short"], unit) + "Deactivated successfully.")
        if st != "running":
            put(te, sysd % (ts(te), h["short"], unit) + "Consumed %dh %dmin %.3fs CPU time." % (rng.randint(10, 900), rng.randint(0, 59), rng.uniform(0, 60)))
        U.sort(key=lambda x: (x[0], x[1]))
        L += [x[2] for x in U]
        # kernel
        L.append("")
        L.append("$ journalctl -k -o short-iso --since \"-10d\"")
        kev = [e for e in run.events if e.kind == "kern" and e.key == n]
        if run.cause == "preemption":
            kev = kev + [Ev(run.t_fail + dt.timedelta(seconds=rng.uniform(20, 28)), "kern", n, "reboot: Power down", "INFO")]
        if not kev:
            L.append("%s %s kernel: mlx5_core 0000:%s:00.0: mlx5_fw_tracer_handle_traces:740:(pid %d): FWTracer: Events were lost" % (ts(run.t0 - dt.timedelta(hours=2)), h["short"], IB_PCI[0], rng.randint(100, 999)))
        for e in kev:
            L.append("%s %s kernel: %s" % (ts(e.t), h["short"], e.text))
        fn = "%s.journal.txt" % h["short"]
        with open(os.path.join(out, fn), "w") as f:
            f.write("\n".join(x for x in L if x is not None) + "\n")
        files.append(fn)
    run.node_spelling = "short"
    return files


def render_orch(run, out):
    rng = run.rng
    flav = rng.choice(["airflow", "airflow", "argo"])
    files = []
    lines = []
    newfmt = rng.random() < 0.5
    tzname = run.tzname

    def apre(t, src="subprocess.py:93", lvl="INFO"):
        lt = t.astimezone(run.tz)
        if newfmt:
            s = lt.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + lt.strftime("%z")
            return "[%s] {%s} %s - " % (s, src, lvl)
        return "[%s %s] {%s} %s - " % (lt.strftime("%Y-%m-%d, %H:%M:%S"), tzname, src, lvl)
    multi = run.nnodes > 1
    dag = rng.choice(["llm_pretrain", "nightly_finetune", "train_%s" % run.model.replace("-", "_")])
    if flav == "airflow":
        t = run.t0 - dt.timedelta(seconds=20)
        lines.append(apre(t, "taskinstance.py:1979") + "Dependencies all met for dep_context=non-requeueable deps ti=<TaskInstance: %s.pretrain scheduled__%s [queued]>" % (dag, run.t0.strftime("%Y-%m-%dT%H:00:00+00:00")))
        lines.append(apre(t, "taskinstance.py:2193") + "Starting attempt 1 of 3")
        cmd = ("srun --label --nodes=%d --ntasks-per-node=1 torchrun --nnodes=%d --nproc-per-node=%d --rdzv-backend=c10d --rdzv-endpoint=%s:29500 %s --config cfg/%s.yaml" % (run.nnodes, run.nnodes, run.gpn, run.hosts[0]["short"], run.entry, run.model)) if multi else "torchrun --standalone --nproc-per-node=%d %s --config cfg/%s.yaml" % (run.gpn, run.entry, run.model)
        lines.append(apre(t, "subprocess.py:63") + "Tmp dir root location: /tmp")
        lines.append(apre(t, "subprocess.py:75") + "Running command: ['/usr/bin/bash', '-c', '%s']" % cmd)
        lines.append(apre(t, "subprocess.py:86") + "Output:")
        if multi:
            lines.append(apre(t + dt.timedelta(seconds=2), "subprocess.py:93") + "srun: job %d queued and waiting for resources" % run.jobid)
            lines.append(apre(t + dt.timedelta(seconds=14), "subprocess.py:93") + "srun: job %d has been allocated resources" % run.jobid)
    else:
        wf = "%s-%s" % (dag.replace("_", "-"), alnum(rng, 5))
        run.wf = wf
    podnames = {}
    for n in run.shown_nodes:
        podnames[n] = "%s-worker-%d" % (getattr(run, "wf", "wf"), rng.randint(10**9, 4 * 10**9))
    for e in run.events:
        if e.kind == "rank":
            n = run.node_of(e.key)
            ls = rank_lines(run, e)
        elif e.kind == "agent":
            n = e.key
            ls = e.text.split("\n")
        else:
            continue
        if n not in run.shown_nodes:
            continue
        for l in ls:
            if flav == "airflow":
                lines.append(apre(e.t) + (("%d: " % n) if multi else "") + l)
            else:
                lines.append("%s: %s" % (podnames[n], l))
    st = run.final[0]
    te = run.t_end
    if flav == "airflow":
        if st == "failed" or st == "preempted":
            if multi:
                for n in run.shown_nodes[:4]:
                    lines.append(apre(te) + "srun: error: %s: task %d: Exited with exit code 1" % (run.hosts[n]["short"], n))
                if run.cause == "preemption":
                    lines.append(apre(run.t_fail) + "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (run.jobid, run.hosts[0]["short"], run.t_fail.astimezone(run.tz).strftime("%Y-%m-%dT%H:%M:%S")))
                elif run.cause == "host_oom_kill":
                    lines.append(apre(te) + "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % run.jobid)
                elif getattr(run, "node_fail", False):
                    lines.append(apre(te) + "srun: error: Node failure on %s" % run.hosts[run.node_of(run.culprit)]["short"])
            elif run.cause == "preemption":
                lines.append(apre(run.t_fail - dt.timedelta(seconds=1), "local_task_job_runner.py:302", "WARNING") + "State of this instance has been externally set to up_for_retry. Terminating instance.")
                lines.append(apre(run.t_fail, "process_utils.py:131") + "Sending Signals.SIGTERM to group %d. PIDs of all processes in the group: [%d, %d]" % (run.jobid % 90000, run.jobid % 90000, run.agent_pid(0)))
            rc = 143 if st == "preempted" else 1
            lines.append(apre(te + dt.timedelta(seconds=1), "subprocess.py:97") + "Command exited with return code %d" % rc)
            lines.append(apre(te + dt.timedelta(seconds=1), "taskinstance.py:2698", "ERROR") + "Task failed with exception")
            lines.append("Traceback (most recent call last):")
            lines.append('  File "/home/airflow/.local/lib/python3.11/site-packages/airflow/operators/bash.py", line 243, in execute')
            lines.append("    raise AirflowException(")
            lines.append("airflow.exceptions.AirflowException: Bash command failed. The command returned a non-zero exit code %d." % rc)
            lines.append(apre(te + dt.timedelta(seconds=1), "taskinstance.py:1138") + "Marking task as UP_FOR_RETRY. dag_id=%s, task_id=pretrain, run_id=scheduled__%s, execution_date=%s, start_date=%s, end_date=%s" % (dag, run.t0.strftime("%Y-%m-%dT%H:00:00+00:00"), run.t0.strftime("%Y%m%dT%H0000"), run.t0.strftime("%Y%m%dT%H%M%S"), te.strftime("%Y%m%dT%H%M%S")))
            lines.append(apre(te + dt.timedelta(seconds=2), "local_task_job_runner.py:240") + "Task exited with return code 1")
        elif st == "completed":
            lines.append(apre(te, "subprocess.py:97") + "Command exited with return code 0")
            lines.append(apre(te, "taskinstance.py:1138") + "Marking task as SUCCESS. dag_id=%s, task_id=pretrain" % dag)
        fn = "dag_id=%s__run_id=scheduled__%s__task_id=pretrain__attempt=1.log" % (dag, run.t0.strftime("%Y-%m-%dT%H-00-00"))
    else:
        fn = "argo-logs-%s.txt" % run.wf
        ag = ["Name:                %s" % run.wf, "Namespace:           ml", "ServiceAccount:      argo-workflow",
              "Status:              %s" % {"failed": "Failed", "preempted": "Failed", "completed": "Succeeded", "running": "Running"}[st]]
        if st == "failed":
            ag.append("Message:             child '%s' failed" % podnames[run.node_of(run.culprit) if run.culprit is not None else run.shown_nodes[0]])
        elif st == "preempted":
            ag.append("Message:             pod deleted during operation (node preempted)")
        ag += ["Created:             %s" % run.t0.astimezone(run.tz).strftime("%a %b %d %H:%M:%S %z %Y"), "", "STEP                 TEMPLATE   PODNAME   DURATION  MESSAGE"]
        for n in run.shown_nodes:
            mark = "✔" if st == "completed" else "◷" if st == "running" else "✖"
            msg = ""
            if st == "preempted":
                msg = "pod deleted"
            elif st == "failed":
                msg = "Error (exit code %d)" % (137 if run.cause == "host_oom_kill" and run.culprit is not None and n == run.node_of(run.culprit) else 1)
                if run.cause == "host_oom_kill" and run.culprit is not None and n == run.node_of(run.culprit) and rng.random() < 0.5:
                    msg = "OOMKilled (exit code 137)"
            ag.append(" %s worker(%d)     torchrun   %s  %dm      %s" % (mark, n, podnames[n], int((run.t_end - run.t0).total_seconds() // 60), msg))
        with open(os.path.join(out, "argo-get.txt"), "w") as f:
            f.write("\n".join(ag) + "\n")
        files.append("argo-get.txt")
    with open(os.path.join(out, fn), "w") as f:
        f.write("\n".join(lines) + "\n")
    files.append(fn)
    files += attach_dmesg(run, out)
    run.flavor = flav
    run.node_spelling = "short"
    return files


def attach_dmesg(run, out, style=None):
    """People attach `dmesg -T` / `dmesg` from nodes whose kernel logs matter."""
    rng = run.rng
    files = []
    knodes = sorted({e.key for e in run.events if e.kind == "kern"})
    if run.culprit is not None and run.node_of(run.culprit) not in knodes and rng.random() < 0.5:
        knodes.append(run.node_of(run.culprit))
    for n in knodes[:4]:
        st = style or rng.choice(["dmesg", "dmesgT"])
        h = run.hosts[n]
        L = []
        for e in sorted([e for e in run.events if e.kind == "kern" and e.key == n], key=lambda e: e.t):
            L.append(kern_time_str(run, e.t, n, st) + e.text)
        if not L:
            L.append(kern_time_str(run, run.t0, n, st) + "nvidia-nvlink: Nvlink Core is being initialized, major device number 511")
        fn = "dmesg-%s.txt" % h["short"]
        with open(os.path.join(out, fn), "w") as f:
            f.write("\n".join(L) + "\n")
        files.append(fn)
    return files


def render_k8s(run, out):
    rng = run.rng
    ts_on = rng.random() < 0.5
    lws = run.jobname
    files = []
    L = []
    for n in run.shown_nodes:
        h = run.hosts[n]
        cont = "leader" if n == 0 else "worker"
        for e in run.events:
            if e.kind == "rank" and run.node_of(e.key) == n:
                ls = rank_lines(run, e)
            elif e.kind == "agent" and e.key == n:
                ls = e.text.split("\n")
            else:
                continue
            for l in ls:
                L.append("[pod/%s/%s] %s%s" % (h["pod"], cont, (iso(e.t, 9) + " ") if ts_on else "", l))
        if rng.random() < 0.3:
            L.append("[pod/%s/log-shipper] %slevel=info msg=\"flushed 512 records\"" % (h["pod"], (iso(run.t_end, 9) + " ") if ts_on else ""))
    with open(os.path.join(out, "kubectl-logs-all-containers.txt"), "w") as f:
        f.write("$ kubectl logs -l leaderworkerset.sigs.k8s.io/name=%s --all-containers --prefix%s --max-log-requests 64\n" % (lws, " --timestamps" if ts_on else ""))
        f.write("\n".join(L) + "\n")
    files.append("kubectl-logs-all-containers.txt")
    # describe pods: culprit pod (or first) + one other
    st = run.final[0]
    dnodes = []
    if run.culprit is not None:
        dnodes.append(run.node_of(run.culprit))
    for n in run.shown_nodes:
        if n not in dnodes and len(dnodes) < 2:
            dnodes.append(n)
    D = []
    for n in dnodes:
        h = run.hosts[n]
        cn = run.culprit is not None and n == run.node_of(run.culprit)
        reason, code = "Error", 1
        if run.cause == "host_oom_kill" and cn:
            reason, code = "OOMKilled", 137
        elif st == "preempted":
            reason, code = "Error", 143
        elif st == "completed":
            reason, code = "Completed", 0
        elif run.cause in ("crash_signal",) and cn:
            reason, code = "Error", 128 + -(-11 if "segv" in " ".join(run.notes) else -7 if "bus" in " ".join(run.notes) else -6)
        D.append("$ kubectl describe pod %s" % h["pod"])
        D += ["Name:             %s" % h["pod"], "Namespace:        default", "Priority:         0",
              "Node:             %s/%s" % (h["name"], h["ip"]),
              "Start Time:       %s" % run.t0.astimezone(UTC).strftime("%a, %d %b %Y %H:%M:%S +0000"),
              "Labels:           leaderworkerset.sigs.k8s.io/name=%s" % lws,
              "                  leaderworkerset.sigs.k8s.io/worker-index=%d" % n,
              "Status:           %s" % ("Running" if st == "running" else "Succeeded" if st == "completed" else "Failed"),
              "IP:               10.%d.%d.%d" % (rng.randint(64, 127), rng.randint(0, 255), rng.randint(2, 250))]
        if st == "preempted" and rng.random() < 0.5:
            D += ["Reason:           Evicted" if False else "Reason:           Terminated", "Message:          Pod was terminated in response to imminent node shutdown."]
        D += ["Containers:", "  %s:" % ("leader" if n == 0 else "worker"), "    Image:          nvcr.io/nvidia/pytorch:24.%02d-py3" % rng.randint(1, 12)]
        if st == "running":
            D += ["    State:          Running", "      Started:      %s" % run.t0.strftime("%a, %d %b %Y %H:%M:%S +0000")]
        else:
            D += ["    State:          Terminated", "      Reason:       %s" % reason, "      Exit Code:    %d" % code,
                  "      Started:      %s" % run.t0.strftime("%a, %d %b %Y %H:%M:%S +0000"),
                  "      Finished:     %s" % run.t_end.strftime("%a, %d %b %Y %H:%M:%S +0000")]
        D += ["    Limits:", "      memory:          %dGi" % rng.choice([512, 900, 1600]), "      nvidia.com/gpu:  %d" % run.gpn, "Events:",
              "  Type     Reason     Age    From               Message", "  ----     ------     ----   ----               -------"]
        D.append("  Normal   Scheduled  %dm    default-scheduler  Successfully assigned default/%s to %s" % (int((run.t_end - run.t0).total_seconds() // 60) + 3, h["pod"], h["name"]))
        D.append("  Normal   Started    %dm    kubelet            Started container %s" % (int((run.t_end - run.t0).total_seconds() // 60) + 2, "leader" if n == 0 else "worker"))
        if st == "preempted":
            D.append("  Warning  NodeNotReady  2m  node-controller    Node is not ready")
            D.append("  Normal   Killing    2m     kubelet            Stopping container %s" % ("leader" if n == 0 else "worker"))
        if cn and run.cause == "gpu_hardware" and rng.random() < 0.6:
            D.append("  Warning  NodeNotReady  1m  node-controller    Node is not ready")
        if cn and run.cause == "host_oom_kill":
            D.append("  Warning  OOMKilling  %dm   kernel-monitor     Memory cgroup out of memory: Killed process %d (python3)" % (1, run.pid(run.culprit)))
        if st == "failed" and not cn and rng.random() < 0.4:
            D.append("  Normal   Killing    1m     kubelet            Stopping container %s" % ("leader" if n == 0 else "worker"))
        D.append("")
    with open(os.path.join(out, "kubectl-describe-pods.txt"), "w") as f:
        f.write("\n".join(D) + "\n")
    files.append("kubectl-describe-pods.txt")
    # node dmesg via kubectl debug
    for fnm in attach_dmesg(run, out, style="dmesgT"):
        new = fnm.replace("dmesg-", "node-debug-dmesg-")
        os.rename(os.path.join(out, fnm), os.path.join(out, new))
        with open(os.path.join(out, new)) as f:
            body = f.read()
        with open(os.path.join(out, new), "w") as f:
            f.write("$ kubectl debug node/%s -it --image=ubuntu -- chroot /host dmesg -T\n" % new[len("node-debug-dmesg-"):-4] + body)
        files.append(new)
    run.node_spelling = "name"
    return files


def render_step(run, out):
    rng = run.rng
    flav = rng.choice(["metaflow", "flyte"])
    files = []
    fq = rng.random() < 0.4
    runid = rng.randint(1000, 99999)
    for n in run.shown_nodes:
        h = run.hosts[n]
        hostf = h["fqdn"] if fq else h["short"]
        L = []
        task = 100 + n
        for e in run.events:
            if e.kind == "rank" and run.node_of(e.key) == n:
                r = e.key
                if e.text.startswith(("step ", "[timing]", "Saved", "Training", "WARNING data", "[W]", "[rank ")):
                    lt = e.t.astimezone(run.tz)
                    rec = "%s,%03d %-5s [host=%s rank=%d/%d local_rank=%d] trainer: %s" % (lt.strftime("%Y-%m-%d %H:%M:%S"), lt.microsecond // 1000, "WARNING" if e.lvl == "WARN" else e.lvl if e.lvl != "DEBUG" else "INFO", hostf, r, run.world, run.local(r), e.text)
                    ls = [rec]
                else:
                    ls = rank_lines(run, e)
            elif e.kind == "agent" and e.key == n:
                ls = e.text.split("\n")
            else:
                continue
            for l in ls:
                if flav == "metaflow":
                    lt = e.t.astimezone(run.tz)
                    L.append("%s.%03d [%d/train/%d (pid %d)] %s" % (lt.strftime("%Y-%m-%d %H:%M:%S"), lt.microsecond // 1000, runid, task, run.agent_pid(n), l))
                else:
                    L.append(l)
        st = run.final[0]
        if flav == "metaflow":
            lt = run.t_end.astimezone(run.tz)
            tail = "%s.%03d [%d/train/%d (pid %d)] " % (lt.strftime("%Y-%m-%d %H:%M:%S"), lt.microsecond // 1000, runid, task, run.agent_pid(n))
            if st == "failed":
                L.append(tail + "Task failed.")
            elif st == "preempted":
                L.append(tail + "Kubernetes pod %s-train-%d was terminated: node preempted (spot reclaim), exit code 143" % (run.jobname, task))
                L.append(tail + "Task failed.")
            elif st == "completed":
                L.append(tail + "Task finished successfully.")
        fn = ("metaflow-%d-train-%d.log" if flav == "metaflow" else "flyte-%d-n0-worker-%d.log") % (runid, task if flav == "metaflow" else n)
        with open(os.path.join(out, fn), "w") as f:
            f.write("\n".join(L) + "\n")
        files.append(fn)
    if flav == "flyte" and run.final[0] != "running":
        st = run.final[0]
        err = {"failed": "[%d/%d] currentAttempt done. Last Error: USER::Pod failed. No message received from kubernetes.\n[%s] terminated with exit code (%d). Reason [Error]. Message: \n" % (1, 3, run.hosts[run.node_of(run.culprit)]["pod"] or run.hosts[run.node_of(run.culprit)]["short"] if run.culprit is not None else run.hosts[0]["short"], 137 if run.cause == "host_oom_kill" else 1),
               "preempted": "[1/3] currentAttempt done. Last Error: SYSTEM::Pod was terminated in response to imminent node shutdown (node preempted).\n",
               "completed": "SUCCEEDED\n"}[st]
        with open(os.path.join(out, "flyte-execution-status.txt"), "w") as f:
            f.write(err)
        files.append("flyte-execution-status.txt")
    files += attach_dmesg(run, out)
    run.flavor = flav
    run.node_spelling = "fqdn" if fq else "short"
    return files


RENDER = {"cloud-jsonl": render_cloud_jsonl, "journald": render_journald, "orchestrator-task": render_orch,
          "k8s-lws": render_k8s, "step-records": render_step}


# ----------------------------------------------------------------------------- truth
def truth(run):
    c = run.cause
    healthy = c is None
    rank = run.culprit if c not in (None, "unknown", "preemption") else None
    node = None
    aliases = []
    if rank is not None:
        h = run.hosts[run.node_of(rank)]
        sp = getattr(run, "node_spelling", "short")
        node = h[sp] if h.get(sp) else h["name"]
        al = [h["short"], h["fqdn"], h["name"], h["ip"]]
        if h.get("pod"):
            al.append(h["pod"])
        sh = getattr(run, "summary_host", {}).get(run.node_of(rank))
        if sh:
            al.append(sh)
        seen = []
        for a in al:
            if a and a != node and a not in seen:
                seen.append(a)
        aliases = seen
    inferable = rank is not None
    if c == "hang" and not getattr(run, "rank_inferable_hang", True):
        inferable = False
    if c == "host_oom_kill" and not getattr(run, "rank_inferable_oom", True):
        # pid only in kernel; torchrun summary still names the rank with exitcode -9 -> inferable
        inferable = True
    if rank is None:
        inferable = False
    notes = "world=%d (%d nodes x %d), torch %s / NCCL %s, tz %+g, shown ranks %d/%d; %s; decoys: %s; layout flavor %s" % (
        run.world, run.nnodes, run.gpn, run.torch, run.nccl, run.tzh, len(run.shown), run.world,
        "; ".join(run.notes) if run.notes else "healthy run", ", ".join(run.decoys) or "none", getattr(run, "flavor", "-"))
    return {"cause": c, "healthy": healthy, "rank": rank, "node": node,
            "drain": bool(c in HW_DRAIN and node is not None), "rank_inferable": inferable,
            "node_aliases": aliases, "layout": run.layout, "notes": notes}


# ----------------------------------------------------------------------------- plan & main
def plan(n, seed):
    rng = random.Random("plan-%d" % seed)
    causes = []
    cyc = []
    for i in range(n):
        if i % 7 == 3:
            causes.append(None)
            continue
        if not cyc:
            cyc = CAUSES[:]
            rng.shuffle(cyc)
        causes.append(cyc.pop())
    layouts = []
    blk = []
    for i in range(n):
        if not blk:
            blk = LAYOUTS[:]
            rng.shuffle(blk)
        # pick the first layout in the block that can express the cause
        for j, l in enumerate(blk):
            if causes[i] is None or causes[i] in COMPAT[l]:
                layouts.append(blk.pop(j))
                break
    return list(zip(causes, layouts))


def dir_size(d):
    return sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))


def gen_one(out_root, seed, i, cause, layout):
    for attempt in range(6):
        rng = random.Random("run-%d-%d-%d" % (seed, i, attempt))
        run = Run(rng, i, cause, layout)
        build(run)
        d = os.path.join(out_root, "run-%03d-%s" % (i, layout))
        if os.path.isdir(d):
            for f in os.listdir(d):
                os.remove(os.path.join(d, f))
        else:
            os.makedirs(d)
        RENDER[layout](run, d)
        for fn, txt in sorted(run.attachments.items()):
            with open(os.path.join(d, fn), "w") as f:
                f.write(txt)
        tr = truth(run)
        with open(os.path.join(d, "truth.json"), "w") as f:
            json.dump(tr, f, indent=2)
            f.write("\n")
        if dir_size(d) < MAX_RUN_BYTES:
            return tr
    raise SystemExit("run %d exceeds size cap" % i)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    counts = {}
    for i, (cause, layout) in enumerate(plan(a.n, a.seed)):
        tr = gen_one(a.out, a.seed, i, cause, layout)
        k = cause or "healthy"
        counts[k] = counts.get(k, 0) + 1
    print(json.dumps(counts, sort_keys=True))


if __name__ == "__main__":
    main()
