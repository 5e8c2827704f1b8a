#!/usr/bin/env python3
"""gen_blind13.py - synthetic distributed-GPU-training failure logs (blind set 13).

Layouts: gha_ci, notebook, pyxis_slurm, windows_export, elastic_restarts.
Usage: python3 gen_blind13.py --out DIR --n 60 --seed S
Python 3.11 standard library only. Same seed and n -> identical bytes.
"""
import argparse
import datetime as dtm
import io
import json
import os
import random
import zipfile

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill",
          "crash_signal", "preemption", "hang", "data_loader_stall",
          "collective_mismatch", "straggler", "unknown"]
DRAIN = {"gpu_hardware", "ecc_memory", "nvlink", "network"}
LAYOUTS = ["gha_ci", "notebook", "pyxis_slurm", "windows_export", "elastic_restarts"]
LAYOUT_CAUSES = {
    "gha_ci": [c for c in CAUSES if c != "network"],
    "notebook": [c for c in CAUSES if c not in ("network", "preemption")],
    "pyxis_slurm": list(CAUSES),
    "windows_export": list(CAUSES),
    "elastic_restarts": list(CAUSES),
}
MAX_BYTES = 1_000_000
UTC = dtm.timezone.utc
BUS_IDS = ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"]
BUS_IDS2 = ["1b", "43", "52", "61", "9d", "c3", "d1", "df"]
NIC_BUS = ["0c", "0d", "3d", "4e", "8c", "9e", "bc", "cd"]
OPS = ["ALLREDUCE", "ALLREDUCE", "ALLREDUCE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE", "BROADCAST"]


# ----------------------------------------------------------------------------
# small helpers
# ----------------------------------------------------------------------------
def hexaddr(rng, n=12):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def gsize(x):
    return "%.2f GiB" % x


class Job:
    """Static description of one job: hosts, ranks, times, software era."""

    def __init__(self, rng, layout, world_choices, gpn_choices):
        self.rng = rng
        self.layout = layout
        gpn = rng.choice(gpn_choices)
        world = rng.choice([w for w in world_choices if w % gpn == 0 or w < gpn])
        if world < gpn:
            gpn = world
        self.world = world
        self.gpn = gpn
        self.nnodes = world // gpn
        self.era = rng.choice(["new", "new", "mid", "old"])  # torch log era
        self.nccl = {"new": rng.choice(["2.21.5", "2.23.4", "2.26.2"]),
                     "mid": rng.choice(["2.19.3", "2.20.5"]),
                     "old": rng.choice(["2.14.3", "2.18.1"])}[self.era]
        self.torch = {"new": rng.choice(["2.5.1", "2.6.0", "2.7.1"]),
                      "mid": rng.choice(["2.2.2", "2.3.1"]),
                      "old": rng.choice(["2.0.1", "2.1.2"])}[self.era]
        self.gpu_model = rng.choice(["NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB", "NVIDIA H200"])
        self.cap = {"NVIDIA H100 80GB HBM3": 79.11, "NVIDIA A100-SXM4-80GB": 79.15, "NVIDIA H200": 139.81}[self.gpu_model]
        y = rng.choice([2025, 2026])
        self.t0 = dtm.datetime(y, rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23),
                               rng.randint(0, 59), rng.randint(0, 59), rng.randint(0, 999999), tzinfo=UTC)
        self.ktz = dtm.timezone(dtm.timedelta(minutes=rng.choice([0, 0, -300, -360, 60, 120, 480, 330])))
        self.ltz = rng.choice([UTC, self.ktz])  # tz of python-level timestamps
        self.kstyle = rng.choice(["dmesg", "dmesgT", "syslog", "journal", "journal_iso", "kmsg"])
        self.jobid = rng.randint(100000, 9999999)
        self.master_port = rng.choice([29500, 29400, 6000, 12355, 25001])
        self.hosts = self._hosts()
        self.pids = [rng.randint(3000, 4000000) for _ in range(world)]
        self.agent_pids = [rng.randint(3000, 4000000) for _ in range(self.nnodes)]
        self.bus = rng.choice([BUS_IDS, BUS_IDS2])
        self.boot = [self.t0 - dtm.timedelta(seconds=rng.randint(3600 * 5, 3600 * 24 * 40), microseconds=rng.randint(0, 999999)) for _ in range(self.nnodes)]
        self.kseq = [rng.randint(1000, 90000) for _ in range(self.nnodes)]
        self.seq0 = rng.randint(50, 90000)
        self.numel = rng.choice([1048576, 33554432, 268435456, 126877696, 61440000])
        self.timeout_ms = rng.choice([600000, 600000, 600000, 1800000, 900000])
        self.pg_style = {"new": rng.choice(["[PG ID 0 PG GUID 0(default_pg) Rank %d]", "[PG ID 1 PG GUID 1 Rank %d]"]),
                         "mid": "[PG 0 Rank %d]", "old": "[Rank %d]"}[self.era]

    def _hosts(self):
        r = self.rng
        form = r.choice(["short", "fqdn", "ipname", "dgx", "pool"])
        base = r.randint(1, 300)
        out = []
        sub = r.randint(0, 200)
        oct2 = r.randint(1, 250)
        for i in range(self.nnodes):
            n = base + i
            ip = "10.%d.%d.%d" % (oct2, sub + (n // 250), (n % 250) + 2)
            if form == "short":
                short = "gpu-%s%02d" % (r.choice("abcd") if i == 0 else out[0]["short"][4], n % 100) if False else "gpu%03d" % n
            elif form == "dgx":
                short = "dgx-h100-%03d" % n
            elif form == "pool":
                short = "pool%d-%04d" % (sub % 7 + 1, n)
            elif form == "ipname":
                short = "ip-" + ip.replace(".", "-")
            else:
                short = "hgx-%s%02d" % ("abcdefgh"[(n // 20) % 8], n % 20)
            dom = r.choice(["cluster.internal", "hpc.example.org", "ec2.internal", "ml.corp.example.com"])
            if i > 0:
                dom = out[0]["domain"]
            fqdn = short + "." + dom
            out.append({"short": short, "fqdn": fqdn, "ip": ip, "domain": dom,
                        "log": fqdn if form == "fqdn" else short})
        return out

    def node_of(self, rank):
        return rank // self.gpn

    def local(self, rank):
        return rank % self.gpn

    def host(self, rank):
        return self.hosts[self.node_of(rank)]["log"]

    # --- time formatting ------------------------------------------------
    def glog_ts(self, t, lvl):
        lt = t.astimezone(self.ltz)
        return "%s%s %s.%09d" % (lvl, lt.strftime("%m%d"), lt.strftime("%H:%M:%S"), lt.microsecond * 1000 + self.rng.randint(0, 999))

    def glog(self, t, rank, lvl, fname, line, msg):
        if self.era == "new":
            return "[rank%d]:[%s %s:%d] %s" % (rank, self.glog_ts(t, lvl), fname, line, msg)
        if self.era == "mid":
            return "[rank%d]:[%s %s:%d] %s" % (rank, lvl, fname, line, msg)
        return "[%s %s:%d] %s" % (lvl, fname, line, msg)

    def pyts(self, t):
        lt = t.astimezone(self.ltz)
        return lt.strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (lt.microsecond // 1000)

    def klines(self, node, items):
        """items: list of (t, msg, prio) -> list of rendered kernel lines (sorted)."""
        out = []
        host = self.hosts[node]["log"]
        for t, msg, prio in sorted(items, key=lambda x: x[0]):
            lt = t.astimezone(self.ktz)
            up = (t - self.boot[node]).total_seconds()
            if up < 0:
                up = 1.0 + self.rng.random()
            st = self.kstyle
            if st == "dmesg":
                out.append("[%5d.%06d] %s" % (int(up), int((up % 1) * 1e6), msg))
            elif st == "dmesgT":
                out.append("[%s %s %2d %s %d] %s" % (lt.strftime("%a"), lt.strftime("%b"), lt.day, lt.strftime("%H:%M:%S"), lt.year, msg))
            elif st == "syslog":
                out.append("%s %2d %s %s kernel: %s" % (lt.strftime("%b"), lt.day, lt.strftime("%H:%M:%S"), host, msg))
            elif st == "journal":
                out.append("%s %s kernel: %s" % (lt.strftime("%b %d %H:%M:%S"), host, msg))
            elif st == "journal_iso":
                off = lt.strftime("%z")
                out.append("%s%s:%s %s kernel: %s" % (lt.strftime("%Y-%m-%dT%H:%M:%S.%f"), off[:3], off[3:], host, msg))
            else:
                self.kseq[node] += self.rng.randint(1, 4)
                out.append("%d,%d,%d,-;%s" % (prio, self.kseq[node], int(up * 1e6), msg))
        return out


# ----------------------------------------------------------------------------
# Scenario: per-rank events, kernel events, agent (torchrun) events, truth
# ----------------------------------------------------------------------------
class Scenario:
    def __init__(self, job, cause, rng, variant_pick=None, ranks_override=None):
        self.job = job
        self.cause = cause
        self.rng = rng
        self.ev = {}            # rank -> list of (t, text)
        self.kern = {}          # node -> list of (t, msg, prio)
        self.exit = {}          # rank -> (t, code) code int or None(still running)
        self.truth_rank = None
        self.truth_node = None
        self.inferable = True
        self.notes = []
        self.jobwide = False
        self.sched = {"state": "FAILED", "exit": "1:0", "reason": "NonZeroExitCode", "msg": []}
        self.final_t = None
        self.still_running = False
        self.ci_cancel = None
        w = job.world
        self.f = rng.randrange(w)
        self.tf = job.t0 + dtm.timedelta(seconds=rng.randint(900, 60000))
        self.seq = job.seq0 + rng.randint(1000, 90000)
        self.hidden = (cause in ("hang", "collective_mismatch") and job.world > 16 and job.layout in ("pyxis_slurm", "windows_export") and rng.random() < 0.4)
        self.sample = self._sample()

    def _sample(self):
        j = self.job
        if j.world <= 16:
            return list(range(j.world))
        node = j.node_of(self.f)
        s = {0, self.f}
        for r in range(node * j.gpn, node * j.gpn + j.gpn):
            s.add(r)
        for r in self.rng.sample(range(j.world), min(j.world, 7)):
            s.add(r)
        s.add(j.world - 1)
        if self.hidden:
            s = {r for r in s if j.node_of(r) != node} or {0 if node else j.world - 1}
        return sorted(s)

    def add(self, rank, t, text):
        self.ev.setdefault(rank, []).append((t, text))

    def kadd(self, node, t, msg, prio=4):
        self.kern.setdefault(node, []).append((t, msg, prio))


def T(t, s):
    return t + dtm.timedelta(seconds=s)


def glog_pg(job, r):
    return job.pg_style % r


def watchdog_timeout(sc, r, t, op="ALLREDUCE", seq=None, numel=None, last_done=None):
    j = sc.job
    seq = sc.seq if seq is None else seq
    numel = j.numel if numel is None else numel
    ran = j.timeout_ms + sc.rng.randint(3, 95)
    pg = glog_pg(j, r)
    work = "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d) ran for %d milliseconds before timing out." % (
        seq, op, numel, numel if op == "ALLREDUCE" else numel * (1 if op != "_ALLGATHER_BASE" else j.world), j.timeout_ms, ran)
    ld = seq - 1 if last_done is None else last_done
    L = []
    L.append(j.glog(t, r, "E", "ProcessGroupNCCL.cpp", {"new": 632, "mid": 563, "old": 455}[j.era],
                    "%s Watchdog caught collective operation timeout: %s" % (pg, work)))
    if j.era == "new":
        L.append(j.glog(T(t, 0.001), r, "E", "ProcessGroupNCCL.cpp", 2271,
                        "%s failure detected by watchdog at work sequence id: %d PG status: last enqueued work: %d, last completed work: %d" % (pg, seq, seq, ld)))
        L.append(j.glog(T(t, 0.001), r, "E", "ProcessGroupNCCL.cpp", 670,
                        "Stack trace of the failed collective not found, potentially because FlightRecorder is disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value."))
    elif j.era == "mid":
        L.append(j.glog(T(t, 0.001), r, "E", "ProcessGroupNCCL.cpp", 1537,
                        "%s Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pg, seq, seq, ld)))
    L.append(j.glog(T(t, 0.002), r, "E", "ProcessGroupNCCL.cpp", 577,
                    "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % r))
    L.append(j.glog(T(t, 0.002), r, "E", "ProcessGroupNCCL.cpp", 583,
                    "[Rank %d] To avoid data inconsistency, we are taking the entire process down." % r))
    what = "Process group watchdog thread terminated with exception" if j.era == "new" else "NCCL watchdog thread terminated with exception"
    L.append(j.glog(T(t, 0.003), r, "E", "ProcessGroupNCCL.cpp", 1664, "%s %s: [Rank %d] Watchdog caught collective operation timeout: %s" % (pg, what, r, work)))
    L.append("terminate called after throwing an instance of '%s'" % ("c10::DistBackendError" if j.era != "old" else "std::runtime_error"))
    L.append("  what():  %s %s: [Rank %d] Watchdog caught collective operation timeout: %s" % (pg, what, r, work))
    L.append("Exception raised from checkTimeout at /opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % sc.rng.choice([609, 630, 688]))
    L += cpp_frames(sc.rng, 4)
    sc.add(r, t, "\n".join(L))
    sc.exit[r] = (T(t, sc.rng.uniform(0.5, 16.0)), -6)


def cpp_frames(rng, n):
    libs = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x%x", "libc10.so"),
            ("c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x%x", "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x%x", "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x%x", "libtorch_cuda.so"),
            ("<unknown function> + 0x%x", "libstdc++.so.6"),
            ("<unknown function> + 0x%x", "libc.so.6")]
    out = []
    for i in range(n):
        f, lib = libs[min(i, len(libs) - 1)]
        path = "/usr/local/lib/python3.10/dist-packages/torch/lib/" + lib if "torch" in lib or "c10" in lib else "/usr/lib/x86_64-linux-gnu/" + lib
        out.append("frame #%d: %s (0x%s in %s)" % (i, f % rng.randint(0x40, 0x2000), "7f" + hexaddr(rng, 10), path))
    return out


def remote_error(sc, r, t, peer_rank, kind=None):
    j = sc.job
    pg = glog_pg(j, r)
    kind = kind or sc.rng.choice(["remote", "remote", "system"])
    peer = j.hosts[j.node_of(peer_rank)]
    port = sc.rng.randint(32768, 60999)
    if sc.rng.random() < 0.5:
        last = "socketProgress: Connection closed by remote peer %s<%d>" % (peer["log"], port)
    else:
        last = ib_completion(sc, peer["ip"], port, status=sc.rng.choice([5, 12]))
    if kind == "remote":
        head = "NCCL error: remote process exited or there was a network error, NCCL version %s" % j.nccl
        det = "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely."
    else:
        head = "NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % j.nccl
        det = "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. "
    what = "Process group watchdog thread terminated with exception" if j.era == "new" else "NCCL watchdog thread terminated with exception"
    L = [j.glog(t, r, "E", "ProcessGroupNCCL.cpp", 1664, "%s %s: %s" % (pg, what, head)), det, "Last error:", last,
         "Exception raised from checkForNCCLErrorsInternal at /opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % sc.rng.choice([2027, 1863])]
    L += cpp_frames(sc.rng, 3)
    L.append("terminate called after throwing an instance of '%s'" % ("c10::DistBackendError" if j.era != "old" else "std::runtime_error"))
    sc.add(r, t, "\n".join(L))
    sc.exit[r] = (T(t, sc.rng.uniform(0.2, 3.0)), -6)


def ib_completion(sc, ip, port, status=12):
    j = sc.job
    v = sc.rng.choice([129, 244, 249, 0])
    if j.nccl.startswith(("2.14", "2.18", "2.19")):
        return "NET/IB : Got completion from peer %s<%d> with error %d, opcode %d, len %d, vendor err %d" % (ip, port, status, sc.rng.choice([0, 1, 129]), 0, v)
    if j.nccl.startswith(("2.20", "2.21", "2.23")):
        return "NET/IB : Got completion from peer %s<%d> with status=%d opcode=%d len=%d vendor err %d (%s)" % (ip, port, status, sc.rng.choice([0, 1, 129]), 0, v, sc.rng.choice(["Send", "Recv"]))
    return "NET/IB: Got completion from peer %s<%d> with status=%d opcode=%d len=%d vendor err %d (%s) hca mlx5_%d" % (ip, port, status, sc.rng.choice([0, 1, 129]), 0, v, sc.rng.choice(["Send", "Recv"]), sc.rng.randint(0, 7))


def nccl_prefix(sc, r, t):
    j = sc.job
    h = j.host(r)
    base = "%s:%d:%d [%d]" % (h, j.pids[r], j.pids[r] + sc.rng.randint(20, 900), j.local(r))
    if j.nccl >= "2.26":
        lt = t.astimezone(j.ltz)
        base = "[%s] " % lt.strftime("%Y-%m-%d %H:%M:%S") + base
    return base


def nccl_warn(sc, r, t, src, msg):
    return "%s %s NCCL WARN %s" % (nccl_prefix(sc, r, t), src, msg)


def nccl_info(sc, r, t, msg):
    h = sc.job.host(r)
    return "%s:%d:%d [%d] NCCL INFO %s" % (h, sc.job.pids[r], sc.job.pids[r] + 7, sc.job.local(r), msg)


def py_tb(frames, exc):
    L = ["Traceback (most recent call last):"]
    for f, ln, fn, src in frames:
        L.append('  File "%s", line %d, in %s' % (f, ln, fn))
        L.append("    " + src)
    L.append(exc)
    return L


TRAIN_FRAMES = [("/workspace/train.py", 412, "<module>", "main(cfg)"),
                ("/workspace/train.py", 371, "main", "loss = train_step(model, batch, optimizer)"),
                ("/workspace/train.py", 233, "train_step", "loss.backward()")]


# ----------------------------------------------------------------------------
# common phases
# ----------------------------------------------------------------------------
def normal_phase(sc, end_t, slow_rank=None):
    j, rng = sc.job, sc.rng
    total = rng.choice([20000, 50000, 100000, 250000])
    step_s = rng.uniform(0.35, 4.0)
    sc.step_s = step_s
    for r in sc.sample:
        t = T(j.t0, rng.uniform(2, 9))
        if j.era != "old" or rng.random() < 0.5:
            sc.add(r, t, "[W socket.cpp:%d] [c10d] The client socket has failed to connect to [%s]:%d (errno: 99 - Cannot assign requested address)." % (rng.choice([464, 697]), j.hosts[0]["log"], j.master_port) if rng.random() < 0.15 else
                   "Initializing torch.distributed: rank=%d local_rank=%d world_size=%d backend=nccl" % (r, j.local(r), j.world))
        if sc.nccl_debug:
            sc.add(r, T(t, 3), nccl_info(sc, r, t, "NCCL version %s+cuda12.%d" % (j.nccl, rng.choice([1, 2, 4, 6]))) if r == 0 else
                   nccl_info(sc, r, t, "cudaDriverVersion 12%02d0" % rng.choice([20, 40, 60, 80])))
            sc.add(r, T(t, 5), nccl_info(sc, r, t, "ncclCommInitRank comm 0x%s rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId 0x%s - Init COMPLETE" % (
                hexaddr(rng, 8), r, j.world, j.local(r), j.local(r), j.bus[j.local(r) % 8], hexaddr(rng, 16))))
    # progress lines (rank 0 and a couple of others), decimated to keep files small
    s0 = rng.randint(0, total // 3)
    span = (end_t - j.t0).total_seconds()
    nlines = rng.randint(25, 70)
    printers = [0] + ([r for r in sc.sample if r != 0][:2] if rng.random() < 0.4 else [])
    sc.last_step = s0
    for k in range(nlines):
        frac = (k + 1) / (nlines + 1)
        t = T(j.t0, 40 + frac * (span - 45))
        step = s0 + int(frac * span / step_s)
        sc.last_step = step
        loss = 3.2 * (0.6 + 0.4 / (1 + step / 3000.0)) + rng.uniform(-0.05, 0.05)
        st = step_s * rng.uniform(0.97, 1.04)
        if slow_rank is not None and frac > 0.3:
            st *= 1.0 + min(2.5, 3.0 * (frac - 0.3))
        for r in printers:
            if sc.step_style == 0:
                txt = "[%s] step %d/%d | loss %.4f | lr %.3e | grad_norm %.3f | %.1f ms/step | tok/s %d" % (
                    j.pyts(t), step, total, loss, 3e-4, rng.uniform(0.2, 1.6), st * 1000, int(2.6e5 * j.world / st / 64))
            elif sc.step_style == 1:
                txt = " iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | learning rate: %.6E | lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f |" % (
                    step, total, step * 512, st * 1000, 3e-4, loss, rng.uniform(0.2, 1.6))
            else:
                txt = "INFO %s train.py:188 epoch=%d step=%d loss=%.4f throughput=%.1f samples/s" % (j.pyts(t), step // 5000, step, loss, 512 / st)
            sc.add(r, t, txt)
        if slow_rank is not None and k % 3 == 0:
            for r in sorted(set([slow_rank] + sc.sample[:3])):
                if r not in sc.sample:
                    continue
                comp = step_s * 0.7 * rng.uniform(0.95, 1.05) * (2.4 if (r == slow_rank and frac > 0.3) else 1.0)
                sc.add(r, T(t, 0.01), "[%s][rank %d] step %d timing: data %.3fs fwd_bwd %.3fs optim %.3fs allreduce_wait %.3fs" % (
                    j.pyts(t), r, step, rng.uniform(0.002, 0.02), comp, 0.05 * step_s,
                    0.02 if r == slow_rank else max(0.01, (comp * 0 + step_s * 0.7 * 1.4) * (frac > 0.3))))


def decoys(sc):
    """Add decoy lines: old Xid, recovered link flap, warning storms, benign teardown."""
    j, rng = sc.job, sc.rng
    kinds = rng.sample(["oldxid", "flap", "warn", "warn2", "teardown", "aer"], rng.randint(2, 4))
    for k in kinds:
        node = rng.randrange(j.nnodes)
        if k == "oldxid":
            t = j.t0 - dtm.timedelta(days=rng.randint(2, 9), seconds=rng.randint(0, 80000))
            bus = j.bus[rng.randrange(8)]
            x = rng.choice([13, 31, 43, 79, 63])
            if x == 79:
                m = "NVRM: Xid (PCI:0000:%s:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." % bus
            elif x == 63:
                m = "NVRM: Xid (PCI:0000:%s:00): 63, pid='<unknown>', name=<unknown>, Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % (bus, rng.randint(1 << 28, 1 << 34))
            elif x == 31:
                m = "NVRM: Xid (PCI:0000:%s:00): 31, pid=%d, name=python3, channel 0x%08x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC%d GPCCLIENT_T1_%d faulted @ 0x%s_%s. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (
                    bus, rng.randint(3000, 900000), rng.randint(2, 40), rng.randint(0, 7), rng.randint(0, 15), hexaddr(rng, 4), hexaddr(rng, 8))
            else:
                m = "NVRM: Xid (PCI:0000:%s:00): %d, pid=%d, name=python, Ch %08x" % (bus, x, rng.randint(3000, 900000), rng.randint(8, 64))
            sc.kadd(node, t, m, 3)
            sc.notes.append("decoy old Xid %d on %s %s days before job" % (x, j.hosts[node]["log"], (j.t0 - t).days))
        elif k == "flap":
            t = T(j.t0, rng.randint(300, max(400, int((sc.tf - j.t0).total_seconds()) - 600)) + rng.random())
            nic = NIC_BUS[rng.randrange(8)]
            dev = rng.choice(["ibp%ss0" % nic, "ens%df0np0" % rng.randint(1, 9)])
            sc.kadd(node, t, "mlx5_core 0000:%s:00.0 %s: Link down" % (nic, dev), 6)
            sc.kadd(node, T(t, rng.uniform(1.5, 6)), "mlx5_core 0000:%s:00.0 %s: Link up" % (nic, dev), 6)
            sc.notes.append("decoy recovered link flap on %s" % j.hosts[node]["log"])
        elif k in ("warn", "warn2"):
            msgs = ["/usr/local/lib/python3.10/dist-packages/torch/utils/checkpoint.py:%d: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.5 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants." % rng.choice([92, 1399]),
                    "/workspace/train.py:%d: FutureWarning: `torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', args...)` instead." % rng.randint(100, 300),
                    "/usr/local/lib/python3.10/dist-packages/torch/autograd/graph.py:%d: UserWarning: Grad strides do not match bucket view strides. This may indicate grad was not created according to the gradient layout contract, or that the param's strides changed since DDP was constructed.  This is not an error, but may impair performance." % rng.choice([744, 825])]
            m = rng.choice(msgs)
            for r in sc.sample[: rng.randint(2, len(sc.sample))]:
                for q in range(rng.randint(1, 4)):
                    sc.add(r, T(j.t0, 20 + q * rng.uniform(30, 300)), m + "\n  return fn(*args, **kwargs)" if q == 0 else m)
            sc.notes.append("decoy UserWarning storm")
        elif k == "teardown":
            sc.benign_teardown = True
        elif k == "aer":
            t = T(j.t0, rng.randint(100, 2000) + rng.random())
            sc.kadd(node, t, "pcieport 0000:%s:01.0: AER: Corrected error received: 0000:%s:00.0" % (rng.choice(["17", "38", "97"]), NIC_BUS[rng.randrange(8)]), 4)
            sc.kadd(node, T(t, 0.0001), "mlx5_core 0000:%s:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)" % NIC_BUS[rng.randrange(8)], 4)
            sc.notes.append("decoy corrected AER on %s" % j.hosts[node]["log"])


def fr_text(sc):
    """torchfrtrace-style summary when the job had the flight recorder on (paraphrased layout)."""
    j = sc.job
    if not (getattr(sc, "fr_missing", False) or getattr(sc, "fr_culprit", None)):
        return None
    L = ["$ torchfrtrace /lustre/fr_dumps/%d --prefix nccl_trace_rank_" % j.jobid,
         "Not all ranks joining collective %d at entry %d" % (sc.seq - j.seq0, sc.seq - j.seq0 + 3),
         "internal record id: %d" % (sc.seq - j.seq0 + 3), "group info: 0:default_pg", "collective: nccl:all_reduce"]
    if getattr(sc, "fr_culprit", None):
        op = {"BROADCAST": "nccl:broadcast", "_ALLGATHER_BASE": "nccl:_allgather_base", "ALLREDUCE": "nccl:all_reduce"}[sc.fr_culprit[0]]
        L += ["missing ranks: set()", "input sizes: [[%d]]" % j.numel, "output sizes: [[%d]]" % j.numel, "world size: %d" % j.world,
              "expected ranks: {%s}" % (", ".join(str(x) for x in range(min(j.world, 8))) + (", ..." if j.world > 8 else "")),
              "collective state: scheduled",
              "error msg: Culprit rank %d; Error type: %s, %s" % (sc.f, "COLLECTIVE_TYPE_MISMATCH" if op != "nccl:all_reduce" else "SIZE_OR_SYNTAX_MISMATCH",
                                                                  ("Expected collective type: 'nccl:all_reduce' does not match found collective type: '%s'" % op) if op != "nccl:all_reduce" else
                                                                  ("Expected input sizes: '[[%d]]' does not match found input sizes: '[[%d]]'" % (j.numel, j.numel // 2)))]
    else:
        L += ["missing ranks: {%d}" % sc.f, "input sizes: [[%d]]" % j.numel, "output sizes: [[%d]]" % j.numel, "world size: %d" % j.world,
              "collective state: scheduled"]
    L.append("collective stack trace:")
    L.append(" all_reduce at /usr/local/lib/python3.10/dist-packages/torch/distributed/distributed_c10d.py:2501")
    L.append(" _reduce_grads at /workspace/train.py:241")
    return "\n".join(L) + "\n"


def benign_teardown_line(sc, r, t):
    j = sc.job
    return j.glog(t, r, "W", "ProcessGroupNCCL.cpp", 1250,
                  "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only recently been added since NCCL has started to block on abort. (function operator())")


def pci_line(sc, node, t, bus):
    sc.kadd(node, T(t, -0.03), "NVRM: GPU at PCI:0000:%s:00: GPU-%s-%s-%s-%s-%s" % (bus, hexaddr(sc.rng, 8), hexaddr(sc.rng, 4), hexaddr(sc.rng, 4), hexaddr(sc.rng, 4), hexaddr(sc.rng, 12)), 4)
    sc.kadd(node, T(t, -0.029), "NVRM: GPU Board Serial Number: %d" % sc.rng.randint(1320000000000, 1660000000000), 4)


def cascade_after_death(sc, dead, t_dead):
    """Other ranks react to `dead` exiting at t_dead: same-node siblings get SIGTERM from the agent,
    a few direct peers see ncclRemoteError, the rest hit the watchdog timeout."""
    j, rng = sc.job, sc.rng
    dn = j.node_of(dead)
    mode = rng.choice(["timeout", "timeout", "remote"])
    for r in range(j.world):
        if r == dead or r in sc.exit:
            continue
        if j.node_of(r) == dn:
            # agent kills siblings
            sc.exit[r] = (T(t_dead, rng.uniform(0.3, 2.5)), -15)
            continue
        if mode == "remote" and rng.random() < 0.6:
            t = T(t_dead, rng.uniform(0.4, 25))
            if r in sc.sample:
                remote_error(sc, r, t, dead)
            else:
                sc.exit[r] = (T(t, 1), -6)
        else:
            t = T(t_dead, j.timeout_ms / 1000.0 - rng.uniform(0, 40) + rng.uniform(0, 3))
            if r in sc.sample:
                watchdog_timeout(sc, r, t)
            else:
                sc.exit[r] = (T(t, rng.uniform(0.5, 9)), -6)
    # same-node siblings that were in the middle of a collective may log proxy lines
    for r in sc.sample:
        if j.node_of(r) == dn and r != dead and sc.nccl_debug and rng.random() < 0.6:
            sc.add(r, T(t_dead, 0.2), nccl_warn(sc, r, T(t_dead, 0.2), "proxy.cc:%d" % rng.choice([1496, 1543]),
                                                  "[Service thread] Connection closed by localRank %d" % j.local(dead)).replace("NCCL WARN", "NCCL INFO"))


def finalize_exits(sc):
    if getattr(sc, "benign_teardown", False):
        for r in sc.sample:
            if r in sc.exit and sc.exit[r][1] in (-15, 0):
                sc.add(r, T(sc.exit[r][0], -0.05), benign_teardown_line(sc, r, sc.exit[r][0]))
    ts = [v[0] for v in sc.exit.values()]
    sc.final_t = max(ts) if ts else T(sc.tf, 60)


# ----------------------------------------------------------------------------
# cause builders
# ----------------------------------------------------------------------------
def build_cause(sc, cause):
    j, rng = sc.job, sc.rng
    f, tf = sc.f, sc.tf
    fn = j.node_of(f)
    lr = j.local(f)
    bus = j.bus[lr % 8]
    sc.truth_rank, sc.truth_node = f, j.host(f)
    cuda_follow = ["CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
                   "For debugging consider passing CUDA_LAUNCH_BLOCKING=1"]
    if j.era != "old":
        cuda_follow.append("Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.")
    exc_cls = "torch.AcceleratorError" if j.torch >= "2.8" else "RuntimeError"

    def die_with(text_lines, code, dt=0.0):
        sc.add(f, T(tf, dt), "\n".join(text_lines))
        sc.exit[f] = (T(tf, dt + rng.uniform(0.1, 2)), code)
        cascade_after_death(sc, f, sc.exit[f][0])

    if cause == "gpu_hardware":
        x = rng.choice([79, 79, 119, 62])
        pci_line(sc, fn, tf, bus)
        if x == 79:
            if rng.random() < 0.5:
                sc.kadd(fn, T(tf, -0.5), "pcieport 0000:%s:01.0: AER: Uncorrected (Fatal) error received: 0000:%s:00.0" % (rng.choice(["15", "36", "95"]), bus), 3)
            sc.kadd(fn, tf, "NVRM: Xid (PCI:0000:%s:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." % bus, 3)
            sc.kadd(fn, T(tf, 0.001), "NVRM: GPU 0000:%s:00.0: GPU has fallen off the bus." % bus, 3)
            sc.kadd(fn, T(tf, 0.4), "NVRM: nvGpuOpsReportFatalError: uvm encountered global fatal error 0x60, requiring os reboot to recover.", 3)
            err = "unspecified launch failure"
        elif x == 119:
            sc.kadd(fn, tf, "NVRM: Xid (PCI:0000:%s:00): 119, pid=%d, name=python3, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x20802a02 0x8)." % (bus, j.pids[f], lr), 3)
            sc.kadd(fn, T(tf, 6), "NVRM: Xid (PCI:0000:%s:00): 119, pid=%d, name=python3, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 103 (GSP_RM_ALLOC) (0x2081 0x4)." % (bus, j.pids[f], lr), 3)
            err = "unspecified launch failure"
        else:
            sc.kadd(fn, tf, "NVRM: Xid (PCI:0000:%s:00): 62, pid='<unknown>', name=<unknown>, %s" % (bus, rng.choice(["0000(0000) 00000000 00000000", "PMU halt"])), 3)
            err = "unspecified launch failure"
        sc.kadd(fn, T(tf, 1.0), "NVRM: Xid (PCI:0000:%s:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)" % bus, 3) if x != 119 and rng.random() < 0.5 else None
        sc.notes.append("injected Xid %d on %s local GPU %d (PCI %s)" % (x, j.host(f), lr, bus))
        L = [nccl_warn(sc, f, T(tf, 0.8), "enqueue.cc:%d" % rng.choice([1529, 1741]), "Cuda failure '%s'" % err)] if sc.nccl_debug else []
        L += py_tb(TRAIN_FRAMES, "%s: CUDA error: %s" % (exc_cls, err)) + cuda_follow
        die_with(L, 1, 0.9)
    elif cause == "ecc_memory":
        x = rng.choice([48, 48, 94, 95])
        pci_line(sc, fn, tf, bus)
        pa = rng.randint(1 << 28, 1 << 34)
        if x == 48:
            sc.kadd(fn, tf, "NVRM: Xid (PCI:0000:%s:00): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at physAddr 0x%x partition %d, subpartition %d." % (bus, pa, rng.randint(0, 23), rng.randint(0, 3)), 3)
            sc.kadd(fn, T(tf, 0.01), "NVRM: Xid (PCI:0000:%s:00): 63, pid=%d, name=python3, Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % (bus, j.pids[f], pa), 4)
            sc.kadd(fn, T(tf, 0.02), "NVRM: Xid (PCI:0000:%s:00): 94, pid=%d, name=python3, Contained: SM (0x1). RST: No, D-RST: No" % (bus, j.pids[f]), 3)
        elif x == 94:
            sc.kadd(fn, tf, "NVRM: Xid (PCI:0000:%s:00): 94, pid=%d, name=python3, Contained: CE User Channel (0x9). RST: No, D-RST: No" % (bus, j.pids[f]), 3)
        else:
            sc.kadd(fn, tf, "NVRM: Xid (PCI:0000:%s:00): 95, pid=%d, name=python3, Uncontained: LTC TAG (0x2, 0x1). RST: Yes, D-RST: No" % (bus, j.pids[f]), 3)
        sc.notes.append("injected Xid %d (uncorrectable ECC) on %s local GPU %d" % (x, j.host(f), lr))
        L = py_tb(TRAIN_FRAMES, "%s: CUDA error: uncorrectable ECC error encountered" % exc_cls) + cuda_follow
        die_with(L, 1, 0.3)
    elif cause == "nvlink":
        pci_line(sc, fn, tf, bus)
        link = rng.randint(0, 17)
        sc.kadd(fn, tf, "NVRM: Xid (PCI:0000:%s:00): 74, pid=%d, name=python3, NVLink: fatal error detected on link %d(0x0, 0x0, 0x%x, 0x0, 0x0, 0x0, 0x0)" % (bus, j.pids[f], link, rng.choice([0x10000, 0x20000, 0x100])), 3)
        if rng.random() < 0.5:
            sc.kadd(fn, T(tf, 0.2), "NVRM: Xid (PCI:0000:%s:00): 74, pid=%d, name=python3, NVLink: fatal error detected on link %d(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)" % (bus, j.pids[f], (link + 1) % 18), 3)
        sc.notes.append("injected Xid 74 on %s local GPU %d link %d" % (j.host(f), lr, link))
        L = [nccl_warn(sc, f, T(tf, 0.3), "enqueue.cc:1529", "Cuda failure 'uncorrectable NVLink error detected during the execution'")] if sc.nccl_debug else []
        L += py_tb(TRAIN_FRAMES, "%s: CUDA error: uncorrectable NVLink error detected during the execution" % exc_cls) + cuda_follow
        die_with(L, 1, 0.4)
    elif cause == "network":
        nic = NIC_BUS[lr % 8]
        dev = rng.choice(["ibp%ss0" % nic, "ibs%d" % (lr + 1)]) if rng.random() < 0.6 else "ens%df%dnp%d" % (lr + 1, 0, 0)
        sc.kadd(fn, T(tf, -rng.uniform(2, 20)), "mlx5_core 0000:%s:00.0 %s: Link down" % (nic, dev), 6)
        if rng.random() < 0.5:
            sc.kadd(fn, T(tf, -rng.uniform(20, 40)), "mlx5_core 0000:%s:00.0: Port module event[error]: module %d, Cable error, High power budget exceeded (2)" % (nic, lr), 3)
        sc.notes.append("injected NIC link down %s on %s (rank %d's rail)" % (dev, j.host(f), f))
        peer = (f + j.gpn) % j.world
        L = [nccl_warn(sc, f, tf, "transport/net_ib.cc:%d" % rng.choice([1696, 1789, 2135]), ib_completion(sc, j.hosts[j.node_of(peer)]["ip"], rng.randint(32768, 60999), 12))]
        L.append(nccl_warn(sc, f, T(tf, 0.001), "proxy.cc:%d" % rng.choice([1523, 1698]), "[Service thread] Error encountered progressing operation=Connect, res=3, closing connection"))
        sc.add(f, tf, "\n".join(L))
        remote_error(sc, f, T(tf, rng.uniform(0.5, 3)), peer, kind="system")
        # peers on other nodes see errors naming the faulty node's IP
        cascade_after_death(sc, f, sc.exit[f][0])
    elif cause == "cuda_oom":
        tried = rng.choice([1.5, 2.0, 3.91, 8.0, 12.25, 20.0])
        free = rng.uniform(0.1, min(tried, 3) - 0.05)
        inuse = j.cap - free - rng.uniform(0.3, 1.0)
        alloc = inuse - rng.uniform(1.0, 6.0)
        reserved = inuse - alloc - 0.5
        if j.era == "old":
            msg = "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate %s (GPU %d; %s total capacity; %s already allocated; %s free; %s reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF" % (
                gsize(tried), lr, gsize(j.cap), gsize(alloc), gsize(free), gsize(inuse))
        else:
            msg = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %s. GPU %d has a total capacity of %s of which %s is free. Including non-PyTorch memory, this process has %s memory in use. Of the allocated memory %s is allocated by PyTorch, and %s is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)" % (
                gsize(tried), lr, gsize(j.cap), gsize(free), gsize(inuse), gsize(alloc), gsize(max(0.1, reserved)))
            if j.era == "mid":
                msg = msg.replace("torch.OutOfMemoryError", "torch.cuda.OutOfMemoryError")
        fr = TRAIN_FRAMES[:2] + [("/workspace/model.py", 188, "forward", "attn = torch.softmax(scores, dim=-1)")]
        sc.notes.append("injected CUDA OOM on rank %d" % f)
        die_with(py_tb(fr, msg), 1)
    elif cause == "illegal_memory_access":
        v = rng.choice(["ima", "assert", "ima"])
        if v == "assert":
            L = []
            for th in range(rng.randint(2, 5)):
                L.append("/opt/pytorch/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [%d,0,0], thread: [%d,0,0] Assertion `-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"` failed." % (rng.randint(0, 900), 32 * th + rng.randint(0, 31)))
            L += py_tb(TRAIN_FRAMES[:2] + [("/workspace/model.py", 97, "forward", "x = self.embed(tokens)")], "%s: CUDA error: device-side assert triggered" % exc_cls) + cuda_follow
            if rng.random() < 0.5:
                sc.kadd(fn, T(tf, -0.01), "NVRM: Xid (PCI:0000:%s:00): 43, pid=%d, name=python3, Ch %08x" % (bus, j.pids[f], rng.randint(8, 64)), 4)
            sc.notes.append("injected device-side assert on rank %d" % f)
        else:
            pci_line(sc, fn, tf, bus)
            if rng.random() < 0.7:
                sc.kadd(fn, T(tf, -0.01), "NVRM: Xid (PCI:0000:%s:00): 31, pid=%d, name=python3, channel 0x%08x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC%d GPCCLIENT_T1_%d faulted @ 0x%s_%s. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE" % (
                    bus, j.pids[f], rng.randint(2, 40), rng.randint(0, 7), rng.randint(0, 15), hexaddr(rng, 4), hexaddr(rng, 8)), 4)
            else:
                g, tp = rng.randint(0, 7), rng.randint(0, 8)
                sc.kadd(fn, T(tf, -0.011), "NVRM: Xid (PCI:0000:%s:00): 13, pid=%d, name=python3, Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (bus, j.pids[f], g, tp, rng.randint(0, 1)), 4)
                sc.kadd(fn, T(tf, -0.01), "NVRM: Xid (PCI:0000:%s:00): 13, pid=%d, name=python3, Graphics Exception: ESR 0x%x=0x%x 0x%x=0x%x 0x%x=0x%x 0x%x=0x%x" % (bus, j.pids[f], 0x50c000 + rng.randint(0, 0xfff), rng.randint(1, 0xffff), 0x50c050, 0, 0x50c054, 0, 0x50c058, rng.randint(0, 0xff)), 4)
            L = py_tb(TRAIN_FRAMES[:2] + [("/workspace/kernels/fused_rope.py", 61, "forward", "_rope_kernel[grid](q, k, cos, sin, BLOCK=128)")],
                      "%s: CUDA error: an illegal memory access was encountered" % exc_cls) + cuda_follow
            sc.notes.append("injected illegal memory access (Xid 31/13, pid-tagged) on rank %d" % f)
        die_with(L, 1)
    elif cause == "python_exception":
        if rng.random() < 0.35:
            sc.jobwide = True
            sc.truth_rank = sc.truth_node = None
            msg = rng.choice([
                "FileNotFoundError: [Errno 2] No such file or directory: '/lustre/ckpt/run%d/step_%d/model_optim_rng.pt'" % (rng.randint(1, 99), rng.randint(1, 90) * 1000),
                "ValueError: global_batch_size (%d) is not divisible by micro_batch_size (%d) * data_parallel_size (%d)" % (1000, 6, j.world),
                "KeyError: 'tokenizer_path'",
                "omegaconf.errors.ConfigAttributeError: Key 'warmup_steps' is not in struct\n    full_key: optim.sched.warmup_steps\n    object_type=dict"])
            t = T(j.t0, rng.uniform(15, 60))
            for r in range(j.world):
                tt = T(t, rng.uniform(0, 2))
                if r in sc.sample:
                    sc.add(r, tt, "\n".join(py_tb([("/workspace/train.py", 412, "<module>", "main(cfg)"), ("/workspace/train.py", 298, "main", "state = load_config_and_state(cfg)")], msg)))
                sc.exit[r] = (T(tt, 0.3), 1)
            sc.tf = t
            sc.notes.append("injected job-wide config error on every rank")
        else:
            msg = rng.choice([
                "KeyError: 'input_ids'",
                "ValueError: Expected input batch_size (%d) to match target batch_size (%d)." % (8, 7),
                "RuntimeError: stack expects each tensor to be equal size, but got [2048] at entry 0 and [1771] at entry 5",
                "json.decoder.JSONDecodeError: Unterminated string starting at: line 1 column %d (char %d)" % (rng.randint(10, 900), rng.randint(10, 900)),
                "AssertionError: shard 0%d of dataset has 0 samples" % rng.randint(10, 99)])
            fr = [("/workspace/train.py", 412, "<module>", "main(cfg)"), ("/workspace/train.py", 352, "main", "batch = next(train_iter)"),
                  ("/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py", 701, "__next__", "data = self._next_data()"),
                  ("/workspace/data/packed.py", 144, "__getitem__", "return self._decode(rec)")]
            sc.notes.append("injected uncaught exception on rank %d" % f)
            die_with(py_tb(fr, msg), 1)
    elif cause == "host_oom_kill":
        cg = rng.random() < 0.5
        rss = rng.randint(60, 400) * 1024 * 1024
        sc.kadd(fn, T(tf, -0.05), "python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0", 4)
        if cg:
            sc.kadd(fn, T(tf, -0.01), "memory: usage %dkB, limit %dkB, failcnt %d" % (rss + 900000, rss + 900000, rng.randint(1, 900)), 4)
        sc.kadd(fn, tf, "%s: Killed process %d (python3) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (
            "Memory cgroup out of memory" if cg else "Out of memory", j.pids[f], rss + rng.randint(10 ** 7, 10 ** 8), rss, rng.randint(10 ** 5, 10 ** 6), rng.randint(10 ** 4, 10 ** 6), rng.randint(1000, 60000), rng.randint(1000, 900000)), 3)
        sc.kadd(fn, T(tf, 0.6), "oom_reaper: reaped process %d (python3), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB" % j.pids[f], 6)
        sc.exit[f] = (T(tf, 0.01), -9)
        sc.oom_event = True
        sc.notes.append("injected %s OOM kill of rank %d pid %d" % ("cgroup" if cg else "global", f, j.pids[f]))
        cascade_after_death(sc, f, T(tf, 0.01))
    elif cause == "crash_signal":
        sig = rng.choice(["SEGV", "SEGV", "BUS", "ABRT"])
        if sig == "SEGV":
            L = ["Fatal Python error: Segmentation fault", "", "Thread 0x%s (most recent call first):" % ("00007f" + hexaddr(rng, 10)),
                 '  File "/usr/lib/python3.10/threading.py", line 324 in wait', '  File "/usr/lib/python3.10/threading.py", line 607 in wait', "",
                 "Current thread 0x%s (most recent call first):" % ("00007f" + hexaddr(rng, 10)),
                 '  File "/workspace/data/tokenizer_ext.py", line 58 in encode_batch',
                 '  File "/workspace/train.py", line 352 in main', '  File "/workspace/train.py", line 412 in <module>']
            sc.kadd(fn, T(tf, 0.001), "python3[%d]: segfault at %x ip 00007f%s sp 00007ff%s error %d in libtok_fast.so[7f%s+%x]%s" % (
                j.pids[f], rng.choice([0, 8, 0x18]), hexaddr(rng, 10), hexaddr(rng, 9), rng.choice([4, 6]), hexaddr(rng, 10), rng.randint(0x10000, 0x900000),
                " likely on CPU %d (core %d, socket %d)" % (rng.randint(0, 191), rng.randint(0, 95), rng.randint(0, 1)) if rng.random() < 0.5 else ""), 6)
            code = -11
        elif sig == "BUS":
            L = ["Fatal Python error: Bus error", "", "Current thread 0x%s (most recent call first):" % ("00007f" + hexaddr(rng, 10)),
                 '  File "/usr/local/lib/python3.10/dist-packages/torch/storage.py", line 1018 in _new_shared_filename_cpu',
                 '  File "/workspace/train.py", line 352 in main']
            code = -7
        else:
            L = ["terminate called after throwing an instance of 'std::bad_alloc'", "  what():  std::bad_alloc"]
            code = -6
        sc.notes.append("injected SIG%s in rank %d (no hardware evidence)" % (sig, f))
        die_with(L, code)
    elif cause == "preemption":
        sc.jobwide = True
        sc.truth_rank = sc.truth_node = None
        why = rng.choice(["PREEMPTION", "PREEMPTION", "TIME LIMIT"])
        sc.preempt_why = why
        t = tf
        for r in range(j.world):
            tt = T(t, rng.uniform(0.05, 1.5))
            if r in sc.sample and rng.random() < 0.6:
                sc.add(r, tt, "[%s] Received SIGTERM, attempting to save checkpoint before exit" % j.pyts(tt) if rng.random() < 0.5 else benign_teardown_line(sc, r, tt))
            sc.exit[r] = (T(tt, rng.uniform(0.5, 10)), -15)
        sc.sched = {"state": "PREEMPTED" if why == "PREEMPTION" else "TIMEOUT", "exit": "0:15" if why == "PREEMPTION" else "0:0",
                    "reason": "Preempted" if why == "PREEMPTION" else "TimeLimit", "msg": []}
        sc.notes.append("injected scheduler %s (SIGTERM to whole job)" % why.lower())
    elif cause in ("hang", "collective_mismatch"):
        # rank f does not join collective seq (hang) or joins a different op (mismatch)
        op_other = rng.choice(["BROADCAST", "_ALLGATHER_BASE", "ALLREDUCE"])
        for r in range(j.world):
            if r == f:
                continue
            t = T(tf, j.timeout_ms / 1000.0 + rng.uniform(0.0, 3.0))
            if r in sc.sample:
                watchdog_timeout(sc, r, t)
            else:
                sc.exit[r] = (T(t, rng.uniform(0.5, 9)), -6)
        if cause == "hang":
            v = rng.choice(["pyspy", "dumpsig", "silent"])
            if v == "dumpsig" and j.era != "new":
                v = "pyspy"
            if j.era == "new" and rng.random() < 0.5:
                sc.fr_missing = True
            if f in sc.sample and v == "dumpsig" and j.era == "new":
                t = T(tf, j.timeout_ms / 1000.0 + 1.2)
                sc.add(f, t, j.glog(t, f, "E", "ProcessGroupNCCL.cpp", 1401, "%s Received a dump signal due to a collective timeout from rank %d and we will try our best to dump the debug info. Last enqueued NCCL work: %d, last completed NCCL work: %d.This is most likely caused by incorrect usages of collectives, e.g., wrong sizes used across ranks, the order of collectives is not same for all ranks or the scheduled collective, for some reason, didn't run. Additionally, this can be caused by GIL deadlock or other reasons such as network errors or bugs in the communications library (e.g. NCCL), etc. " % (
                    glog_pg(j, f), 0 if f != 0 else 1, sc.seq - 1, sc.seq - 1)))
            elif f in sc.sample and v == "pyspy":
                t = T(tf, rng.uniform(200, 500))
                sc.add(f, t, "\n".join(["Timeout (0:05:00)!", "Thread 0x%s (most recent call first):" % ("00007f" + hexaddr(rng, 10)),
                                        '  File "/workspace/ckpt/async_saver.py", line 77 in _wait_for_lock',
                                        '  File "/workspace/ckpt/async_saver.py", line 51 in save',
                                        '  File "/workspace/train.py", line 381 in main', '  File "/workspace/train.py", line 412 in <module>']))
            elif f not in sc.sample or v == "silent":
                if f not in sc.sample and not getattr(sc, "fr_missing", False):
                    sc.inferable = False
                    sc.notes.append("hung rank's output not attached and no flight-recorder analysis: rank not inferable")
            sc.exit[f] = (T(tf, j.timeout_ms / 1000.0 + rng.uniform(3, 15)), -15)
            if f in sc.sample and v == "silent" and not getattr(sc, "fr_missing", False):
                # only the absence of a timeout marks it; the last-completed seq differs
                sc.add(f, T(tf, -5), "[%s] rank %d entering checkpoint barrier" % (j.pyts(T(tf, -5)), f))
            sc.notes.append("injected hang of rank %d before collective SeqNum=%d (variant %s)" % (f, sc.seq, v))
        else:
            v = rng.choice(["timeout", "detail", "fr"])
            if v == "detail" and j.era != "old":
                for r in list(sc.ev.keys()):
                    sc.ev[r] = [e for e in sc.ev[r] if "Watchdog caught" not in e[1]]
                msg = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%d], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))), but Rank %d is running collective: CollectiveFingerPrint(SequenceNumber=%d, OpType=ALLREDUCE, TensorShape=[%d], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))." % (
                    f, sc.seq // 3, op_other if op_other != "ALLREDUCE" else "ALLREDUCE", j.numel // 2 if op_other == "ALLREDUCE" else j.numel, 0 if f != 0 else 1, sc.seq // 3, j.numel)
                tt = T(tf, 0.5)
                sc.exit = {}
                for r in range(j.world):
                    if r in sc.sample:
                        sc.add(r, tt, "\n".join(py_tb(TRAIN_FRAMES[:2] + [("/usr/local/lib/python3.10/dist-packages/torch/distributed/c10d_logger.py", 83, "wrapper", "return func(*args, **kwargs)")], msg)))
                    sc.exit[r] = (T(tt, rng.uniform(0.1, 2)), 1)
                sc.notes.append("TORCH_DISTRIBUTED_DEBUG=DETAIL mismatch report naming rank %d" % f)
            else:
                t = T(tf, j.timeout_ms / 1000.0 + rng.uniform(0.0, 2.0))
                if f in sc.sample:
                    watchdog_timeout(sc, f, t, op=op_other if op_other != "ALLREDUCE" else "ALLREDUCE",
                                     numel=(j.numel // 2 if op_other == "ALLREDUCE" else j.numel))
                else:
                    sc.exit[f] = (T(t, 2), -6)
                if v == "fr" or (f not in sc.sample and rng.random() < 0.5):
                    sc.fr_culprit = (op_other,)
                elif f not in sc.sample:
                    sc.inferable = False
                    sc.notes.append("culprit rank's output not attached and no flight-recorder analysis: rank not inferable")
            sc.notes.append("injected collective mismatch: rank %d issued %s at SeqNum %d" % (f, op_other, sc.seq))
    elif cause == "data_loader_stall":
        jw = rng.random() < 0.3
        if jw:
            sc.jobwide = True
            sc.truth_rank = sc.truth_node = None
            fs = rng.choice(["nfs", "lustre"])
            for n in range(j.nnodes):
                t = T(tf, rng.uniform(0, 20))
                if fs == "nfs":
                    sc.kadd(n, t, "nfs: server nas%02d not responding, still trying" % rng.randint(1, 4), 4)
                else:
                    sc.kadd(n, t, "Lustre: %d:0:(client.c:2340:ptlrpc_expire_one_request()) @@@ Request sent has timed out for slow reply: [sent %d/real %d]  req@%s x%d/t0(0) o4->scratch-OST00%02x-osc-%s@10.%d.0.%d@o2ib:6/4 lens 488/448 e 0 to 1 dl %d ref 2 fl Rpc:X/0/ffffffff rc 0/-1" % (
                        rng.randint(1000, 90000), int(t.timestamp()) - 100, int(t.timestamp()) - 100, "ffff" + hexaddr(rng, 12), rng.randint(10 ** 15, 10 ** 16), rng.randint(0, 255), "ffff" + hexaddr(rng, 12), rng.randint(1, 9), rng.randint(2, 200), int(t.timestamp()) + 5), 4)
                sc.kadd(n, T(t, 123), "INFO: task python3:%d blocked for more than 120 seconds." % j.pids[n * j.gpn], 3)
                sc.kadd(n, T(t, 123.001), '"echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.', 3)
            to = rng.choice([600, 900, 1200])
            for r in range(j.world):
                tt = T(tf, to + rng.uniform(0, 30))
                if r in sc.sample:
                    sc.add(r, tt, "\n".join(py_tb([("/workspace/train.py", 352, "main", "batch = next(train_iter)"),
                                                   ("/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py", 1295, "_get_data", "success, data = self._try_get_data()"),
                                                   ("/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py", 1146, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {timeout} seconds') from e")],
                                                  "RuntimeError: DataLoader timed out after %d seconds" % to)))
                sc.exit[r] = (T(tt, 0.5), 1)
            sc.notes.append("injected shared-filesystem (%s) stall on all nodes" % fs)
        else:
            to = rng.choice([120, 300, 300, 450])
            for k in range(3):
                tt = T(tf, -60 + 25 * k)
                sc.add(f, tt, "[%s] WARNING rank %d: waited %.1fs for next batch (prefetch queue empty, %d/%d workers alive)" % (j.pyts(tt), f, 8.0 * (k + 1) ** 2, rng.randint(1, 3), 8))
            L = py_tb([("/workspace/train.py", 352, "main", "batch = next(train_iter)"),
                       ("/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py", 1295, "_get_data", "success, data = self._try_get_data()"),
                       ("/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py", 1146, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {timeout} seconds') from e")],
                      "RuntimeError: DataLoader timed out after %d seconds" % to)
            sc.notes.append("injected DataLoader stall on rank %d (timeout=%ds)" % (f, to))
            die_with(L, 1, float(to))
    elif cause == "straggler":
        sc.still_running = True
        sc.sched = {"state": "RUNNING", "exit": "0:0", "reason": "None", "msg": []}
        sc.notes.append("injected persistent straggler rank %d (fwd_bwd ~2.4x)" % f)
        if rng.random() < 0.5:
            sc.kadd(fn, T(tf, -1000), "NVRM: GPU at PCI:0000:%s:00: clocks event reason HW_SLOWDOWN asserted" % bus if False else
                    "mce: [Hardware Error]: Machine check events logged" if False else
                    "perf: interrupt took too long (%d > %d), lowering kernel.perf_event_max_sample_rate to %d" % (rng.randint(2600, 9000), 2500, rng.randint(20000, 79000)), 4)
        # no exits: job still running at end of logs
    elif cause == "unknown":
        sc.truth_rank = sc.truth_node = None
        sc.inferable = False
        v = rng.choice(["silent_exit", "truncated", "exit255"])
        sc.unknown_variant = v
        if v == "silent_exit":
            sc.exit[f] = (tf, 1)
            cascade_after_death(sc, f, tf)
        elif v == "exit255":
            sc.exit[f] = (tf, 255)
            cascade_after_death(sc, f, tf)
        else:
            for r in range(j.world):
                sc.exit[r] = (T(tf, rng.uniform(0, 4)), 1)
        sc.notes.append("unknown: rank %d exited (%s) with no error text in any attached log" % (f, v))
    if sc.truth_rank is None:
        sc.inferable = False


# ----------------------------------------------------------------------------
# build a full scenario (healthy or failing) independent of layout rendering
# ----------------------------------------------------------------------------
def make_scenario(rng, job, cause):
    sc = Scenario(job, cause, rng)
    sc.nccl_debug = rng.random() < 0.55
    sc.step_style = rng.randrange(3)
    sc.benign_teardown = False
    decoys(sc)
    if cause is None:
        sc.tf = T(job.t0, rng.randint(900, 30000))
        normal_phase(sc, sc.tf)
        for r in range(job.world):
            sc.exit[r] = (T(sc.tf, rng.uniform(5, 20)), 0)
        for r in sc.sample:
            if rng.random() < 0.5:
                sc.add(r, T(sc.tf, 1), "[%s] Training finished. Saving final checkpoint to /ckpt/final" % job.pyts(T(sc.tf, 1)) if r == 0 else "[%s] rank %d done" % (job.pyts(T(sc.tf, 1)), r))
        sc.sched = {"state": "COMPLETED", "exit": "0:0", "reason": "None", "msg": []}
        sc.truth_rank = sc.truth_node = None
        sc.inferable = False
        sc.notes.append("healthy run")
        finalize_exits(sc)
        return sc
    normal_phase(sc, sc.tf, slow_rank=sc.f if cause == "straggler" else None)
    build_cause(sc, cause)
    finalize_exits(sc)
    if cause == "straggler":
        sc.final_t = T(sc.tf, rng.randint(60, 600))
    return sc


# ----------------------------------------------------------------------------
# torchrun agent rendering (per node)
# ----------------------------------------------------------------------------
SIGNAME = {-6: "SIGABRT", -9: "SIGKILL", -11: "SIGSEGV", -7: "SIGBUS", -15: "SIGTERM"}


def agent_lines(sc, node, style="new", entry="train.py", attempt=None):
    """torchrun agent output for one node at the end of an attempt. Returns list of (t, line)."""
    j, rng = sc.job, sc.rng
    out = []
    ranks = list(range(node * j.gpn, node * j.gpn + j.gpn))
    ex = [(sc.exit[r][0], r, sc.exit[r][1]) for r in ranks if r in sc.exit]
    if not ex:
        return out
    ex.sort()
    if all(c == 0 for _, _, c in ex):
        t = ex[-1][0]
        out.append((t, agent_fmt(j, t, "I", "torch/distributed/elastic/agent/server/api.py", 879, "[default] worker group successfully finished. Waiting 300 seconds for other agents to finish.", style)))
        out.append((T(t, 0.01), agent_fmt(j, t, "I", "torch/distributed/elastic/agent/server/api.py", 932, "Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish", style)))
        return out
    if getattr(sc, "preempt_why", None) and all(c == -15 for _, _, c in ex):
        t = ex[0][0]
        t = T(t, -0.5)
        out.append((t, agent_fmt(j, t, "W", "torch/distributed/elastic/agent/server/api.py", 704, "Received Signals.SIGTERM death signal, shutting down workers", style, node)))
        for _, r, _ in ex:
            out.append((T(t, 0.01), agent_fmt(j, t, "W", "torch/distributed/elastic/multiprocessing/api.py", 897, "Sending process %d closing signal SIGTERM" % j.pids[r], style, node)))
        out.append((T(t, 2), "Traceback (most recent call last):\n  File \"/usr/local/bin/torchrun\", line 8, in <module>\n    sys.exit(main())\n  File \"/usr/local/lib/python3.10/dist-packages/torch/distributed/elastic/multiprocessing/api.py\", line 84, in _terminate_process_handler\n    raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)\ntorch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % j.agent_pids[node]))
        return out
    failed = [e for e in ex if e[2] != -15 and e[2] != 0]
    if not failed:
        failed = [ex[0]]
    first = failed[0]
    tnote = T(first[0], rng.uniform(0.05, 1.5))
    out.append((tnote, agent_fmt(j, tnote, "E", "torch/distributed/elastic/multiprocessing/api.py", 869,
                                 "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: /usr/bin/python3" % (first[2], j.local(first[1]), j.pids[first[1]]), style, node)))
    for _, r, c in ex:
        if c == -15:
            out.append((T(tnote, 0.01), agent_fmt(j, T(tnote, 0.01), "W", "torch/distributed/elastic/multiprocessing/api.py", 897, "Sending process %d closing signal SIGTERM" % j.pids[r], style, node)))
    if attempt is not None:
        return out
    other = [e for e in failed[1:] if (e[0] - first[0]).total_seconds() < 3]
    block = ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "=" * 60, "%s FAILED" % entry, "-" * 60, "Failures:"]

    def ent(i, e):
        t, r, c = e
        lt = t.astimezone(j.ltz)
        L = ["[%d]:" % i, "  time      : %s" % lt.strftime("%Y-%m-%d_%H:%M:%S"), "  host      : %s" % j.hosts[node]["log"],
             "  rank      : %d (local_rank: %d)" % (r, j.local(r)), "  exitcode  : %d (pid: %d)" % (c, j.pids[r]), "  error_file: <N/A>"]
        if c < 0:
            L.append("  traceback : Signal %d (%s) received by PID %d" % (-c, SIGNAME.get(c, "SIG?"), j.pids[r]))
        else:
            L.append("  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
        return L
    if other:
        for i, e in enumerate(other):
            block += ent(i + 1, e)
    else:
        block.append("  <NO_OTHER_FAILURES>")
    block += ["-" * 60, "Root Cause (first observed failure):"] + ent(0, first) + ["=" * 60]
    tb = ["Traceback (most recent call last):", '  File "/usr/local/bin/torchrun", line 8, in <module>', "    sys.exit(main())",
          '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/launcher/api.py", line 263, in launch_agent', "    raise ChildFailedError("]
    out.append((T(tnote, 1.0), "\n".join(tb + block)))
    return out


def agent_fmt(j, t, lvl, path, ln, msg, style, node=0):
    lt = t.astimezone(j.ltz)
    if style == "new":
        return "%s%s %s %d %s:%d] %s" % (lvl, lt.strftime("%m%d %H:%M:%S.%f"), "", 0, path, ln, msg) if False else \
            "%s%s %d %s:%d] %s" % (lvl, lt.strftime("%m%d %H:%M:%S.%f"), j.agent_pids[node], path, ln, msg)
    name = {"I": "INFO", "W": "WARNING", "E": "ERROR"}[lvl]
    mod = path.replace("/", ".").replace(".py", "")
    return "[%s] %s: [%s] %s" % (lt.strftime("%Y-%m-%d %H:%M:%S,") + "%03d" % (lt.microsecond // 1000), mod, name, msg)


def agent_start_lines(sc, node, style, restart_count=0):
    j = sc.job
    t = T(j.t0, -3)
    if j.era == "new" or j.era == "mid":
        m = ("\n*****************************************\nSetting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. \n*****************************************")
        return [(t, agent_fmt(j, t, "W", "torch/distributed/run.py", 793, m, style))]
    return []


# ----------------------------------------------------------------------------
# rendering utilities
# ----------------------------------------------------------------------------
def rank_lines(sc, r):
    evs = sorted(sc.ev.get(r, []), key=lambda e: e[0])
    out = []
    for t, txt in evs:
        for ln in txt.split("\n"):
            out.append((t, ln))
    return out


def kernel_nodes(sc):
    j = sc.job
    if not hasattr(sc, "_knodes"):
        nodes = sorted(sc.kern.keys())
        # people also attach one or two other nodes' kernel logs, so a file's presence is no hint
        r2 = random.Random(j.jobid * 7 + sc.f)
        nodes += r2.sample(range(j.nnodes), min(j.nnodes, r2.randint(1, 2)))
        sc._knodes = sorted(set(nodes))
    return sc._knodes


def boiler_kernel(sc, node):
    """Benign kernel lines around the job so files don't hold only the fault."""
    j, rng = sc.job, sc.rng
    L = []
    for k in range(rng.randint(2, 6)):
        t = T(j.t0, rng.uniform(-3000, (sc.final_t - j.t0).total_seconds()))
        L.append((t, rng.choice(["nvidia-nvswitch%d: open (major=%d)" % (rng.randint(0, 3), rng.randint(500, 511)),
                                 "IPv6: ADDRCONF(NETDEV_CHANGE): ib%d: link becomes ready" % rng.randint(0, 7),
                                 "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  %s" % rng.choice(["550.90.07", "535.183.01", "570.124.06"]),
                                 "docker0: port 1(veth%s) entered forwarding state" % hexaddr(rng, 7),
                                 "nvidia-peermem: module verification failed: signature and/or required key missing - tainting kernel" if False else
                                 "EXT4-fs (nvme0n1p1): mounted filesystem with ordered data mode. Quota mode: none."]), 6))
    return L


def all_kernel(sc, node):
    return sc.job.klines(node, sc.kern.get(node, []) + boiler_kernel(sc, node))


def wfile(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(path, "wb") as fh:
        fh.write(data)


def run_size(d):
    tot = 0
    for root, _, files in os.walk(d):
        for f in files:
            tot += os.path.getsize(os.path.join(root, f))
    return tot


# ----------------------------------------------------------------------------
# Layout 1: GitHub Actions self-hosted GPU CI
# ----------------------------------------------------------------------------
def gha_ts(t, rng):
    t = t.astimezone(UTC)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%07dZ" % (t.microsecond * 10 + t.microsecond % 7)


def render_gha(sc, d):
    j, rng = sc.job, sc.rng
    h = j.hosts[0]
    runner = "gh-%s-runner-%02d" % (j.gpu_model.split()[1].lower().split("-")[0], rng.randint(1, 40))
    sc.aliases = [h["fqdn"] if h["log"] != h["fqdn"] else h["short"], h["ip"], runner]
    lines = []
    t = T(j.t0, -40)

    def gl(tt, s):
        for ln in s.split("\n"):
            lines.append((tt, ln))
    gl(t, "Current runner version: '2.3%02d.0'" % rng.randint(10, 29))
    gl(t, "Runner name: '%s'" % runner)
    gl(t, "Runner group name: 'gpu-selfhosted'")
    gl(t, "Machine name: '%s'" % h["short"])
    gl(T(t, 0.1), "##[group]GITHUB_TOKEN Permissions\nContents: read\nMetadata: read\n##[endgroup]")
    gl(T(t, 2), "##[group]Run actions/checkout@v4\nwith:\n  fetch-depth: 1\n##[endgroup]")
    gl(T(t, 8), "##[group]Run nvidia-smi -L\n\x1b[36;1mnvidia-smi -L\x1b[0m\nshell: /usr/bin/bash -e {0}\n##[endgroup]")
    for g in range(j.gpn):
        gl(T(t, 9), "GPU %d: %s (UUID: GPU-%s-%s-%s-%s-%s)" % (g, j.gpu_model, hexaddr(rng, 8), hexaddr(rng, 4), hexaddr(rng, 4), hexaddr(rng, 4), hexaddr(rng, 12)))
    cmd = "torchrun --standalone --nproc-per-node=%d --tee 3 tests/distributed/test_train_smoke.py --steps %d" % (j.gpn, rng.choice([200, 500, 2000]))
    gl(T(t, 12), "##[group]Run %s\n\x1b[36;1m%s\x1b[0m\nshell: /usr/bin/bash -e {0}\nenv:\n  NCCL_DEBUG: %s\n  TORCH_NCCL_ASYNC_ERROR_HANDLING: 1\n##[endgroup]" % (cmd, cmd, "INFO" if sc.nccl_debug else "WARN"))
    body = []
    for tt, ln in agent_start_lines(sc, 0, "new" if j.era == "new" else "old"):
        body.append((tt, ln))
    for r in range(j.world):
        for tt, ln in rank_lines(sc, r):
            pre = "[default%d]:" % j.local(r)
            if ln.startswith("[rank"):
                body.append((tt, pre + ln))
            elif ln.startswith(("Traceback", "  File", "    ", "RuntimeError", "torch.", "ValueError", "KeyError", "CUDA kernel", "For debugging", "Compile with", "FileNotFound", "json.", "Assertion", "omegaconf", "  full_key", "  object_type")) and j.era != "old":
                body.append((tt, pre + "[rank%d]: " % r + ln if False else pre + "[rank%d]:" % r + ln))
            else:
                body.append((tt, pre + ln))
    if not sc.still_running:
        for tt, ln in agent_lines(sc, 0, "new" if j.era == "new" else "old", entry="tests/distributed/test_train_smoke.py"):
            body.append((tt, ln))
    body.sort(key=lambda e: e[0])
    for tt, ln in body:
        gl(tt, ln)
    end = sc.final_t
    status_fail = sc.cause is not None and sc.cause != "straggler"
    if sc.cause == "preemption":
        if getattr(sc, "preempt_why", "") == "TIME LIMIT":
            gl(T(end, -8), "##[error]The job running on runner %s has exceeded the maximum execution time of %d minutes." % (runner, rng.choice([60, 120, 360])))
        else:
            gl(T(end, -8), "##[error]The runner has received a shutdown signal. This can happen when the runner service is stopped, or a manually started runner is canceled.")
        gl(T(end, -7), "##[error]The operation was canceled.")
    elif sc.cause == "straggler":
        gl(T(end, 1), "##[warning]tests/distributed/test_train_smoke.py: step time regression: %.0f%% slower than baseline" % rng.uniform(60, 180))
    elif status_fail:
        gl(T(end, 2), "##[error]Process completed with exit code 1.")
    # kernel log step (always; the CI collects dmesg on failure, and on success for perf jobs)
    kl = all_kernel(sc, 0)
    gl(T(end, 3), "##[group]Run sudo dmesg %s | tail -n 200\n\x1b[36;1msudo dmesg | tail -n 200\x1b[0m\nshell: /usr/bin/bash -e {0}\n##[endgroup]" % ("-T" if j.kstyle == "dmesgT" else ""))
    for ln in kl:
        gl(T(end, 4), ln)
    fr = fr_text(sc)
    if fr:
        gl(T(end, 5), "##[group]Run torchfrtrace $RUNNER_TEMP/fr\n##[endgroup]")
        for ln in fr.splitlines()[1:]:
            gl(T(end, 5.5), ln)
    gl(T(end, 6), "Post job cleanup.")
    gl(T(end, 7), "Cleaning up orphan processes")
    out_l = []
    prev = None
    for tt, ln in lines:
        if prev is not None and tt <= prev:
            tt = prev + dtm.timedelta(microseconds=rng.randint(1, 40))
        prev = tt
        out_l.append("%s %s\n" % (gha_ts(tt, rng), ln))
    text = "".join(out_l)
    wfile(os.path.join(d, "ci-job-log.txt"), text)
    # GitHub's "download log archive": per-step files in a zip-like folder
    steps = text.split("##[group]Run ")
    wfile(os.path.join(d, "logs_%d" % rng.randint(10 ** 9, 10 ** 10), "gpu-tests", "1_Set up job.txt"), steps[0])
    if len(steps) > 3:
        wfile(os.path.join(d, "logs_%d" % 0, "gpu-tests", "4_Run torchrun.txt"), "##[group]Run " + steps[3]) if False else None
    sc.files_note = "ci-job-log.txt (all steps), per-step 1_Set up job.txt"


# ----------------------------------------------------------------------------
# Layout 2: notebook cell output
# ----------------------------------------------------------------------------
def render_notebook(sc, d):
    j, rng = sc.job, sc.rng
    h = j.hosts[0]
    pod = "jupyter-%s-%s" % (rng.choice(["alice", "bkumar", "mlteam", "jchen"]), hexaddr(rng, 5))
    sc.aliases = [h["fqdn"] if h["log"] != h["fqdn"] else h["short"], h["ip"], pod]
    launcher = rng.choice(["accelerate_old", "accelerate_elastic", "mp_spawn"])
    cell = []
    R = "\x1b[0;31m"
    G = "\x1b[0;32m"
    N = "\x1b[0m"
    cell.append("In [%d]: " % rng.randint(7, 60) + ("notebook_launcher(training_function, args=(cfg,), num_processes=%d)" % j.gpn if launcher != "mp_spawn" else "mp.spawn(train_worker, args=(cfg,), nprocs=%d, join=True)" % j.gpn))
    if launcher != "mp_spawn":
        cell.append("Launching training on %d GPUs." % j.gpn)
    # tqdm progress bar redrawn with \r on rank 0
    total = rng.choice([500, 1000, 3125, 9375])
    nstep = int(total * rng.uniform(0.1, 0.9))
    pb = []
    for k in range(0, nstep, max(1, nstep // 40)):
        pct = int(100 * k / total)
        bar = "\u2588" * (pct // 10) + " " * (10 - pct // 10)
        pb.append("epoch 0: %3d%%|%s| %d/%d [%02d:%02d<%02d:%02d, %.2fit/s, loss=%.3f]" % (pct, bar, k, total, k // 60 % 60, k % 60, (total - k) // 60 % 60, (total - k) % 60, rng.uniform(1, 4), 3 - 1.5 * k / total))
    # python-level prints from children appear in the cell (fork); C++ stderr goes to the server terminal
    py_lines, cpp_lines = [], []
    for r in range(j.world):
        for tt, ln in rank_lines(sc, r):
            is_cpp = ln.startswith(("[rank", "[E ", "[W ", "terminate", "  what()", "Exception raised", "frame #", "ncclRemote", "ncclSystem", "Last error", "NET/", "socketProgress")) or " NCCL " in ln or ln.startswith("Fatal Python") or ln.startswith("Current thread") or ln.startswith("Thread 0x") or (ln.startswith("  File") and " in " in ln and ", line" not in ln) or ln == "" or ln.startswith("/opt/pytorch") or ln.startswith("Timeout (")
            (cpp_lines if is_cpp else py_lines).append((tt, r, ln))
    py_lines.sort(key=lambda e: e[0])
    cpp_lines.sort(key=lambda e: e[0])
    body = "\r".join(pb) + "\n"
    tb_lines = []
    for tt, r, ln in py_lines:
        if ln.startswith(("Traceback", "  File", "    ")) or ln.split(":")[0].endswith(("Error", "Exception")) or ln.startswith(("CUDA kernel", "For debugging", "Compile with", "  full_key", "  object_type")):
            tb_lines.append((r, ln))
        elif "UserWarning" in ln or "FutureWarning" in ln:
            body += R + ln + N + "\n" if False else ln + "\n"
        else:
            body += ln + "\n"
    cell_out = "\n".join(cell) + "\n" + body
    # The launcher's exception in IPython format
    dead = sorted([(v[0], r, v[1]) for r, v in sc.exit.items() if v[1] not in (0, -15)])
    if sc.still_running:
        cell_out += "\r".join(pb[-3:]) + "\n" + "%s[W %s] rank %d slow: this cell is still running%s\n" % (G, j.pyts(sc.final_t), 0, N) if False else "\r".join(pb[-3:]) + "\n"
    elif sc.cause is None:
        cell_out += "Training finished in %d min.\n" % rng.randint(10, 300)
    elif dead:
        t0_, r0, c0 = dead[0]
        exc_r = [x for x in dead if x[2] > 0]
        cell_out += R + "-" * 75 + N + "\n"
        if launcher == "accelerate_elastic":
            ename = "ChildFailedError"
        elif exc_r and exc_r[0][0] <= t0_ + dtm.timedelta(seconds=1):
            ename = "ProcessRaisedException"
        else:
            ename = "ProcessExitedException"
        cell_out += "%s%-42sTraceback (most recent call last)%s\n" % (R, ename, N)
        cell_out += "Cell %sIn[%d], line %d%s\n" % (G, rng.randint(7, 60), 1, N)
        cell_out += "%s----> 1%s notebook_launcher(training_function, args%s=%s(cfg,), num_processes%s=%s%d)\n" % (G, N, R, N, R, N, j.gpn) if launcher != "mp_spawn" else \
            "%s----> 1%s mp%s.%sspawn(train_worker, args%s=%s(cfg,), nprocs%s=%s%d, join%s=%s%sTrue%s)\n" % (G, N, R, N, R, N, R, N, j.gpn, R, N, G, N)
        if launcher != "mp_spawn":
            cell_out += "\nFile %s/usr/local/lib/python3.10/dist-packages/accelerate/launchers.py:%d%s, in %snotebook_launcher%s(function, args, num_processes, mixed_precision, use_port, master_addr, node_rank, num_nodes, rdzv_backend, rdzv_endpoint, rdzv_conf, rdzv_id, max_restarts, monitor_interval, log_line_prefix_template)\n" % (G, rng.choice([245, 252, 260]), N, G, N)
            cell_out += "    %d             launch_config = LaunchConfig(\n" % 240 if False else "%s--> %d%s             %s(config\u001b[38;5;241m=\u001b[39mlaunch_config, entrypoint\u001b[38;5;241m=\u001b[39mfunction)(\u001b[38;5;241m*\u001b[39margs)\n" % (G, rng.choice([245, 252]), N, "elastic_launch" if launcher == "accelerate_elastic" else "start_processes")
        cell_out += "\nFile %s/usr/local/lib/python3.10/dist-packages/torch/multiprocessing/spawn.py:%d%s, in %sProcessContext.join%s(self, timeout)\n" % (G, rng.choice([158, 170, 215]), N, G, N) if launcher != "accelerate_elastic" else \
            "\nFile %s/usr/local/lib/python3.10/dist-packages/torch/distributed/launcher/api.py:%d%s, in %slaunch_agent%s(config, entrypoint, args)\n" % (G, 263, N, G, N)
        if ename == "ProcessRaisedException":
            er = exc_r[0][1]
            msg = "\n\n-- Process %d terminated with the following error:\n" % j.local(er)
            tbl = [ln for r, ln in tb_lines if r == er]
            tbl = [ln for ln in tbl if not ln.startswith("Traceback")]
            msg += "Traceback (most recent call last):\n  File \"/usr/local/lib/python3.10/dist-packages/torch/multiprocessing/spawn.py\", line 90, in _wrap\n    fn(i, *args)\n" + "\n".join(tbl[:40])
            cell_out += "%sProcessRaisedException%s: %s\n" % (R, N, msg)
        elif ename == "ProcessExitedException":
            sig = SIGNAME.get(c0, None)
            if sig:
                cell_out += "%sProcessExitedException%s: process %d terminated with signal %s\n" % (R, N, j.local(r0), sig)
            else:
                cell_out += "%sProcessExitedException%s: process %d terminated with exit code %d\n" % (R, N, j.local(r0), c0)
            for r, ln in tb_lines[:60]:
                pass
            if tb_lines:
                # child tracebacks are printed above the launcher exception, uncoloured
                cell_out = cell_out.replace(R + "-" * 75, "\n".join(ln for _, ln in tb_lines[:60]) + "\n" + R + "-" * 75, 1)
        else:
            block = [ln for tt, ln in agent_lines(sc, 0, "new")]
            cb = [b for b in block if "ChildFailedError" in b]
            if tb_lines:
                cell_out = cell_out.replace(R + "-" * 75, "\n".join(ln for _, ln in tb_lines[:60]) + "\n" + R + "-" * 75, 1)
            if cb:
                cell_out += "%sChildFailedError%s: \n" % (R, N) + cb[0].split("ChildFailedError: \n", 1)[1] + "\n"
    wfile(os.path.join(d, "cell_output.txt"), cell_out)
    # jupyter server terminal (where children's C++ stderr lands)
    term = []
    t = T(j.t0, -60)
    term.append("[I %s ServerApp] Jupyter Server 2.%d.%d is running at:" % (T(t, -600).astimezone(j.ltz).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3], rng.randint(10, 15), rng.randint(0, 5)))
    term.append("[I %s ServerApp] http://%s:8888/lab?token=..." % (T(t, -600).astimezone(j.ltz).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3], h["log"]))
    term.append("[I %s ServerApp] Kernel started: %s" % (t.astimezone(j.ltz).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3], "%s-%s-%s-%s-%s" % (hexaddr(rng, 8), hexaddr(rng, 4), hexaddr(rng, 4), hexaddr(rng, 4), hexaddr(rng, 12))))
    for tt, r, ln in cpp_lines:
        term.append(ln)
    if sc.cause is not None and not sc.still_running:
        t2 = T(sc.final_t, 3)
        term.append("[I %s ServerApp] Saving file at /work/%s.ipynb" % (t2.astimezone(j.ltz).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3], rng.choice(["finetune", "train_ddp", "pretrain-v3"])))
    wfile(os.path.join(d, "jupyter_server_terminal.log"), "\n".join(term) + "\n")
    if sc.kern or rng.random() < 0.5:
        wfile(os.path.join(d, "dmesg_%s.txt" % h["short"]), "\n".join(all_kernel(sc, 0)) + "\n")
    sc.files_note = "cell_output.txt (ANSI, \\r progress), jupyter_server_terminal.log, optional dmesg"


# ----------------------------------------------------------------------------
# Layout 3: Slurm + pyxis/enroot, per-task files %x-%j-%t.out, sacct, scontrol
# ----------------------------------------------------------------------------
def nodelist(names):
    # compress pool1-0012..0015 style when possible
    import re
    m = [re.match(r"^(.*?)(\d+)$", n) for n in names]
    if all(m) and len(set(x.group(1) for x in m)) == 1:
        pre = m[0].group(1)
        w = len(m[0].group(2))
        nums = [int(x.group(2)) for x in m]
        parts = []
        s = p = nums[0]
        for n in nums[1:] + [None]:
            if n is not None and n == p + 1:
                p = n
                continue
            parts.append(("%0*d" % (w, s)) if s == p else ("%0*d-%0*d" % (w, s, w, p)))
            if n is not None:
                s = p = n
        return "%s[%s]" % (pre, ",".join(parts)) if len(nums) > 1 else names[0]
    return ",".join(names)


def tlimit(rt, rng, exact):
    secs = int(rt.total_seconds())
    if exact:
        secs = int(round(secs / 60.0)) * 60
    else:
        secs = (secs // 3600 + rng.choice([2, 6, 12, 24])) * 3600
    dd, rem = divmod(secs, 86400)
    return "%s%02d:%02d:%02d" % ("%d-" % dd if dd else "", rem // 3600, rem // 60 % 60, rem % 60)


def render_pyxis(sc, d):
    j, rng = sc.job, sc.rng
    name = rng.choice(["llm-pretrain", "gpt-moe", "vit-h", "sft-70b"])
    image = rng.choice(["nvcr.io#nvidia/pytorch:24.07-py3", "nvcr.io#nvidia/pytorch:25.01-py3", "/lustre/images/nemo-25.04.sqsh"])
    hosts = [h["short"] for h in j.hosts]
    for h in j.hosts:
        h["log"] = h["short"]  # slurm spells short names
    if sc.truth_node is not None:
        sc.truth_node = j.host(sc.f)
    fh = j.hosts[j.node_of(sc.f)]
    sc.aliases = [fh["fqdn"], fh["ip"]]
    # batch output
    B = []
    t = T(j.t0, -30)
    B.append("+ srun --container-image=%s --container-mounts=/lustre:/lustre --ntasks-per-node=%d --output=%%x-%%j-%%t.out python /workspace/train.py --config cfg/%s.yaml" % (image, j.gpn, name))
    if not image.startswith("/"):
        B.append("pyxis: importing docker image: %s" % image)
        B.append("pyxis: imported docker image: %s" % image)
    else:
        B.append("pyxis: importing squashfs image: %s" % image if False else "")
    ex = sorted([(v[0], r, v[1]) for r, v in sc.exit.items()])
    bad = [e for e in ex if e[2] not in (0,)]
    end = sc.final_t
    state = sc.sched["state"]
    if sc.cause is None:
        state, exitc = "COMPLETED", "0:0"
    elif sc.still_running:
        state, exitc = "RUNNING", "0:0"
    else:
        exitc = sc.sched["exit"]
    if sc.cause == "preemption":
        why = sc.preempt_why
        for n in range(j.nnodes)[: min(j.nnodes, 6)]:
            B.append("slurmstepd: error: *** %s %d ON %s CANCELLED AT %s DUE TO %s ***" % ("STEP" if n else "JOB", j.jobid, hosts[n] if n == 0 else hosts[n], sc.tf.astimezone(j.ktz).strftime("%Y-%m-%dT%H:%M:%S"), why) if n == 0 else
                     "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO %s ***" % (j.jobid, hosts[n], sc.tf.astimezone(j.ktz).strftime("%Y-%m-%dT%H:%M:%S"), why))
        B.append("srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
    elif bad and not sc.still_running:
        first = bad[0]
        # srun error summary, grouped per node
        if getattr(sc, "oom_event", False):
            B.append("slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % j.jobid)
        B.append("srun: error: %s: task %d: %s" % (j.host(first[1]), first[1], {1: "Exited with exit code 1", -6: "Aborted (core dumped)", -9: "Out Of Memory" if getattr(sc, "oom_event", False) else "Killed", -11: "Segmentation fault (core dumped)", -7: "Bus error (core dumped)", 255: "Exited with exit code 255"}.get(first[2], "Exited with exit code %d" % first[2])))
        B.append("srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
        for n in range(j.nnodes)[:8]:
            B.append("slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (j.jobid, hosts[n], T(first[0], rng.uniform(1, 4)).astimezone(j.ktz).strftime("%Y-%m-%dT%H:%M:%S")))
        groups = {}
        for tt, r, c in ex:
            if r == first[1]:
                continue
            key = (j.node_of(r), c)
            groups.setdefault(key, []).append(r)
        for (n, c), rs in sorted(groups.items())[:12]:
            rs = sorted(rs)
            rr = "%d-%d" % (rs[0], rs[-1]) if len(rs) > 1 else "%d" % rs[0]
            B.append("srun: error: %s: task%s %s: %s" % (hosts[n], "s" if len(rs) > 1 else "", rr, {1: "Exited with exit code 1", -6: "Aborted (core dumped)", -15: "Terminated", -9: "Killed"}.get(c, "Exited with exit code %d" % (c if c > 0 else 128 - c))))
    wfile(os.path.join(d, "slurm-%d.out" % j.jobid), "\n".join(x for x in B if x) + "\n")
    # per-task files (sample only)
    for r in sc.sample:
        L = []
        for tt, ln in rank_lines(sc, r):
            L.append(ln)
        if r in sc.exit and sc.exit[r][1] == -15 and sc.cause != "preemption" and rng.random() < 0.4:
            L.append("slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (j.jobid, j.host(r), sc.exit[r][0].astimezone(j.ktz).strftime("%Y-%m-%dT%H:%M:%S")))
        wfile(os.path.join(d, "%s-%d-%d.out" % (name, j.jobid, r)), "\n".join(L) + "\n")
    # kernel logs for nodes with kernel events
    for n in kernel_nodes(sc):
        wfile(os.path.join(d, "kern-%s.log" % hosts[n]), "\n".join(all_kernel(sc, n)) + "\n")
    # sacct + scontrol pasted into one file
    jn = (name[:10] if len(name) <= 10 else name[:9] + "+")
    acc = rng.choice(["ml-res", "llm", "vision"])
    S = ["$ sacct -j %d --format=JobID,JobName,Partition,Account,AllocCPUS,State,ExitCode" % j.jobid,
         "JobID           JobName  Partition    Account  AllocCPUS      State ExitCode ",
         "------------ ---------- ---------- ---------- ---------- ---------- -------- "]
    cpus = j.nnodes * rng.choice([96, 112, 128])
    stepstate = {"COMPLETED": "COMPLETED", "RUNNING": "RUNNING", "PREEMPTED": "CANCELLED", "TIMEOUT": "CANCELLED"}.get(state, "FAILED")
    stepexit = "0:0" if stepstate in ("COMPLETED", "RUNNING") else ("0:15" if stepstate == "CANCELLED" else "1:0")
    if getattr(sc, "oom_event", False):
        stepstate, stepexit = "OUT_OF_MEM+", "0:125"
        if state == "FAILED":
            state, exitc = "OUT_OF_ME+", "0:125"
    rows = [("%d" % j.jobid, jn, "batch", acc, cpus, state, exitc), ("%d.batch" % j.jobid, "batch", "", acc, cpus // j.nnodes, "CANCELLED" if state in ("PREEMPTED", "TIMEOUT") else ("RUNNING" if state == "RUNNING" else ("COMPLETED" if state == "COMPLETED" else "FAILED")), "0:15" if state in ("PREEMPTED", "TIMEOUT") else ("0:0" if state in ("COMPLETED", "RUNNING") else "1:0")),
            ("%d.extern" % j.jobid, "extern", "", acc, cpus, "RUNNING" if state == "RUNNING" else "COMPLETED", "0:0"), ("%d.0" % j.jobid, "python", "", acc, cpus, stepstate, stepexit)]
    for a in rows:
        jid = a[0] if len(a[0]) <= 12 else a[0][:11] + "+"
        S.append("%-12s %10s %10s %10s %10d %10s %8s " % (jid, a[1], a[2], a[3], a[4], a[5], a[6]))
    lt = j.t0.astimezone(j.ktz)
    et = end.astimezone(j.ktz)
    rt = end - j.t0
    rts = "%s%02d:%02d:%02d" % ("%d-" % rt.days if rt.days else "", rt.seconds // 3600, rt.seconds // 60 % 60, rt.seconds % 60)
    reason = "None" if state in ("COMPLETED", "RUNNING") else sc.sched.get("reason", "NonZeroExitCode")
    if reason == "NonZeroExitCode" and getattr(sc, "oom_event", False):
        reason = "OutOfMemory"
    S += ["", "$ scontrol show job %d" % j.jobid,
          "JobId=%d JobName=%s" % (j.jobid, name),
          "   UserId=%s(%d) GroupId=%s(%d) MCS_label=N/A" % (rng.choice(["alice", "bkumar", "svc-train"]), 1000 + rng.randint(1, 900), acc, 2000 + rng.randint(1, 90)),
          "   Priority=%d Nice=0 Account=%s QOS=%s" % (rng.randint(1000, 99999), acc, rng.choice(["normal", "high", "preemptible"])),
          "   JobState=%s Reason=%s Dependency=(null)" % (state.replace("OUT_OF_ME+", "OUT_OF_MEMORY"), reason),
          "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=%s" % exitc,
          "   RunTime=%s TimeLimit=%s TimeMin=N/A" % (rts, tlimit(rt, rng, getattr(sc, "preempt_why", "") == "TIME LIMIT")),
          "   SubmitTime=%s EligibleTime=%s" % (T(j.t0, -900).astimezone(j.ktz).strftime("%Y-%m-%dT%H:%M:%S"), T(j.t0, -900).astimezone(j.ktz).strftime("%Y-%m-%dT%H:%M:%S")),
          "   StartTime=%s EndTime=%s Deadline=N/A" % (lt.strftime("%Y-%m-%dT%H:%M:%S"), "Unknown" if state == "RUNNING" else et.strftime("%Y-%m-%dT%H:%M:%S")),
          "   Partition=batch AllocNode:Sid=login%02d:%d" % (rng.randint(1, 4), rng.randint(1000, 99999)),
          "   NodeList=%s" % nodelist(hosts),
          "   BatchHost=%s" % hosts[0],
          "   NumNodes=%d NumCPUs=%d NumTasks=%d CPUs/Task=%d ReqB:S:C:T=0:0:*:*" % (j.nnodes, cpus, j.world, cpus // j.world if cpus >= j.world else 1),
          "   TRES=cpu=%d,mem=%dG,node=%d,billing=%d,gres/gpu=%d" % (cpus, j.nnodes * 1800, j.nnodes, cpus, j.world),
          "   Command=/home/%s/%s.sbatch" % (rng.choice(["alice", "bkumar"]), name),
          "   StdOut=/lustre/logs/%%x-%%j-%%t.out" if False else "   StdOut=/lustre/logs/slurm-%d.out" % j.jobid]
    wfile(os.path.join(d, "sacct_scontrol.txt"), "\n".join(S) + "\n")
    fr = fr_text(sc)
    if fr:
        wfile(os.path.join(d, "fr_trace_analysis.txt"), fr)
    sc.files_note = "slurm-<jobid>.out, <name>-<jobid>-<task>.out (sampled tasks), kern-<node>.log, sacct_scontrol.txt"


# ----------------------------------------------------------------------------
# Layout 4: Windows-originated export (CRLF, UTF-16, cp1252, BOM, re-extracted zip)
# ----------------------------------------------------------------------------
def render_windows(sc, d):
    j, rng = sc.job, sc.rng
    fnode = j.node_of(sc.f) if sc.truth_node is not None else rng.randrange(j.nnodes)
    nodes = sorted(set([0, fnode] + rng.sample(range(j.nnodes), min(j.nnodes, 2))))
    if sc.hidden:
        nodes = [n for n in nodes if n != fnode] or [(fnode + 1) % j.nnodes]
    fh = j.hosts[fnode]
    sc.aliases = [x for x in [fh["short"] if fh["log"] != fh["short"] else fh["fqdn"], fh["ip"]]]
    encs = ["crlf", "utf16", "bom8", "cp1252"]
    rng.shuffle(encs)
    files = {}
    for i, n in enumerate(nodes):
        L = []
        for tt, ln in agent_start_lines(sc, n, "new" if j.era == "new" else "old"):
            L.append((tt, ln))
        for r in range(n * j.gpn, n * j.gpn + j.gpn):
            if r not in sc.sample:
                continue
            for tt, ln in rank_lines(sc, r):
                L.append((tt, "[default%d]:%s" % (j.local(r), ln)))
        if not sc.still_running:
            L += agent_lines(sc, n, "new" if j.era == "new" else "old")
        L.sort(key=lambda e: e[0])
        text = "\n".join(x[1] for x in L) + "\n"
        h = j.hosts[n]
        nm = rng.choice(["%s.log" % h["short"].upper(), "Copy of %s_console.log" % h["short"], "%s_console (1).log" % h["short"], "%s~%d.LOG" % (h["short"][:6].upper(), i + 1)])
        files[nm] = (text, encs[i % len(encs)])
    for n in kernel_nodes(sc):
        h = j.hosts[n]
        nm = "dmesg-%s[1].txt" % h["short"]
        files[nm] = ("\n".join(all_kernel(sc, n)) + "\n", "bom8" if rng.random() < 0.6 else "crlf")
    # scheduler summary typed by a human in Notepad (cp1252 with an en dash)
    ex = sorted([(v[0], r, v[1]) for r, v in sc.exit.items()])
    note = ["Job %d \u2013 %d nodes x %d GPUs (%s)" % (j.jobid, j.nnodes, j.gpn, j.gpu_model),
            "Collected by ops from the cluster share, zipped on a Windows laptop.",
            "Only the consoles above were attached.",
            "NodeList=%s (%d tasks per node, block distribution)" % (nodelist([h["short"] for h in j.hosts]), j.gpn)]
    if sc.cause == "preemption":
        note.append("Scheduler: slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO %s ***" % (j.jobid, j.hosts[0]["short"], sc.tf.astimezone(j.ktz).strftime("%Y-%m-%dT%H:%M:%S"), sc.preempt_why))
    elif sc.cause is None:
        note.append("Scheduler: State=COMPLETED ExitCode=0:0")
    elif sc.still_running:
        note.append("Scheduler: State=RUNNING (job still going, throughput low)")
    else:
        note.append("Scheduler: State=FAILED ExitCode=1:0")
    files["README \u2013 notes.txt"] = ("\n".join(note) + "\n", "cp1252")
    fr = fr_text(sc)
    if fr:
        files["fr_trace output.txt"] = (fr, "crlf")
    base = rng.choice(["logs_%d (2)" % j.jobid, "job%d_logs" % j.jobid, "Downloads/logs"])
    zpath = None
    zipped = rng.random() < 0.4
    for nm, (text, enc) in files.items():
        if enc == "utf16":
            data = text.replace("\n", "\r\n").encode("utf-16")
        elif enc == "bom8":
            data = b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode("utf-8")
        elif enc == "cp1252":
            data = text.replace("\n", "\r\n").encode("cp1252", errors="replace")
        else:
            data = text.replace("\n", "\r\n").encode("utf-8")
        wfile(os.path.join(d, base, nm), data)
    if zipped:
        # also keep the original zip as downloaded (deterministic timestamps)
        bio = io.BytesIO()
        with zipfile.ZipFile(bio, "w", zipfile.ZIP_DEFLATED) as z:
            for nm in sorted(files):
                zi = zipfile.ZipInfo(nm.replace(" ", "_"), date_time=(2026, 1, 2, 3, 4, 6))
                z.writestr(zi, files[nm][0].replace("\n", "\r\n").encode("utf-8"))
        wfile(os.path.join(d, "logs.zip"), bio.getvalue())
    sc.files_note = "console files in mixed encodings (CRLF, UTF-16LE BOM, UTF-8 BOM, cp1252), dmesg-*.txt, notes"


# ----------------------------------------------------------------------------
# Layout 5: torchrun elastic with --max-restarts (attempt_N dirs)
# ----------------------------------------------------------------------------
def render_elastic(sc, d, attempts, truth_sc=None):
    """attempts: list of Scenario objects (same job), last one may be success."""
    j, rng = sc.job, sc.rng
    run_id = "%s%d" % (rng.choice(["job", "pretrain-", "none"]) if False else "tr", j.jobid)
    maxr = max(len(attempts) - 1, rng.choice([2, 3, 5]))
    truth_sc = truth_sc or sc
    fnodes = [j.node_of(a.f) for a in attempts if a.cause is not None and a.truth_node is not None]
    fnode = j.node_of(truth_sc.f) if truth_sc.truth_node is not None else 0
    show_nodes = sorted(set([0, fnode] + fnodes + rng.sample(range(j.nnodes), min(j.nnodes, 2))))
    if truth_sc.hidden:
        show_nodes = [n for n in show_nodes if n != fnode] or [(fnode + 1) % j.nnodes]
    fh = j.hosts[fnode]
    sc.aliases = [fh["fqdn"] if fh["log"] != fh["fqdn"] else fh["short"], fh["ip"]]
    for n in show_nodes:
        h = j.hosts[n]
        A = []
        style = "new" if j.era == "new" else "old"
        A.append(agent_fmt(j, T(j.t0, -5), "I", "torch/distributed/launcher/api.py", 188, "Starting elastic_operator with launch configs:\n  entrypoint       : train.py\n  min_nodes        : %d\n  max_nodes        : %d\n  nproc_per_node   : %d\n  run_id           : %s\n  rdzv_backend     : c10d\n  rdzv_endpoint    : %s:%d\n  rdzv_configs     : {'timeout': 900}\n  max_restarts     : %d\n  monitor_interval : 0.1\n  log_dir          : /scratch/elastic_logs\n  metrics_cfg      : {}\n" % (
            j.nnodes, j.nnodes, j.gpn, run_id, j.hosts[0]["log"], j.master_port, maxr), style, n))
        for ai, a in enumerate(attempts):
            ta = a.job.t0
            A.append(agent_fmt(j, ta, "I", "torch/distributed/elastic/agent/server/api.py", 525, "[default] Rendezvous complete for workers. Result:\n  restart_count=%d\n  master_addr=%s\n  master_port=%d\n  group_rank=%d\n  group_world_size=%d\n  local_ranks=%s\n  role_ranks=%s\n  global_ranks=%s\n  role_world_sizes=%s\n  global_world_sizes=%s\n" % (
                ai, j.hosts[0]["log"], j.master_port, n, j.nnodes, list(range(j.gpn)), list(range(n * j.gpn, n * j.gpn + j.gpn)), list(range(n * j.gpn, n * j.gpn + j.gpn)), [j.world] * j.gpn, [j.world] * j.gpn), style, n))
            A.append(agent_fmt(j, ta, "I", "torch/distributed/elastic/agent/server/api.py", 533, "[default] Starting worker group", style, n))
            for lr in range(j.gpn):
                A.append(agent_fmt(j, ta, "I", "torch/distributed/elastic/multiprocessing/api.py", 263, "Setting worker%d reply file to: /tmp/torchelastic_%s/%s_%s/attempt_%d/%d/error.json" % (lr, hexaddr(rng, 8), run_id, hexaddr(rng, 8), ai, lr), style, n))
            if a.still_running:
                continue
            last = ai == len(attempts) - 1
            al = agent_lines(a, n, style, attempt=None if last else ai)
            for tt, ln in al:
                A.append(ln)
            ex = [a.exit[r][1] for r in range(n * j.gpn, n * j.gpn + j.gpn) if r in a.exit]
            if not last:
                tt = T(a.final_t, 1)
                A.append(agent_fmt(j, tt, "I", "torch/distributed/elastic/agent/server/api.py", 889, "[default] Worker group FAILED. %d/%d attempts left; will restart worker group" % (maxr - ai, maxr), style, n))
                A.append(agent_fmt(j, tt, "I", "torch/distributed/elastic/agent/server/api.py", 699, "[default] Stopping worker group", style, n))
                A.append(agent_fmt(j, tt, "I", "torch/distributed/elastic/agent/server/api.py", 677, "[default] Rendezvous'ing worker group", style, n))
        wfile(os.path.join(d, "agent-%s.log" % h["log"]), "\n".join(A) + "\n")
        # per-rank stdout/stderr under attempt_N/<local_rank>/
        for ai, a in enumerate(attempts):
            for r in range(n * j.gpn, n * j.gpn + j.gpn):
                if r not in a.sample:
                    continue
                out, err = [], []
                for tt, ln in rank_lines(a, r):
                    if ln.startswith(("[rank", "[E", "[W", "terminate", "  what()", "Exception raised", "frame #", "Traceback", "  File", "    ", "ncclRemote", "ncclSystem", "Last error", "NET/", "socketProgress", "Fatal Python", "Current thread", "Thread 0x", "CUDA kernel", "For debugging", "Compile with", "/")) or " NCCL " in ln or ":" in ln.split(" ")[0] and ln.split(":")[0].endswith(("Error", "Exception")):
                        err.append(ln)
                    else:
                        out.append(ln)
                base = os.path.join(d, "elastic_logs", "%s_%s" % (run_id, h["short"]), "attempt_%d" % ai, "%d" % j.local(r))
                wfile(os.path.join(base, "stdout.log"), "\n".join(out) + ("\n" if out else ""))
                wfile(os.path.join(base, "stderr.log"), "\n".join(err) + ("\n" if err else ""))
                if r in a.exit and a.exit[r][1] == 1 and err and any(e.startswith("Traceback") for e in err):
                    tb = "\n".join(err[-25:])
                    wfile(os.path.join(base, "error.json"), json.dumps({"message": {"message": err[-1][:300], "extraInfo": {"py_callstack": tb, "timestamp": str(int(a.exit[r][0].timestamp()))}}}, indent=2) + "\n")
    for n in sorted(set(sum([kernel_nodes(a) for a in attempts], []))):
        items = []
        for a in attempts:
            items += a.kern.get(n, [])
        wfile(os.path.join(d, "kernel-%s.log" % j.hosts[n]["log"]), "\n".join(j.klines(n, items + boiler_kernel(sc, n))) + "\n")
    frs = [fr_text(a) for a in attempts]
    for ai, fr in enumerate(frs):
        if fr:
            wfile(os.path.join(d, "fr_trace_attempt_%d.txt" % ai), fr)
    sc.files_note = "agent-<host>.log (all attempts), elastic_logs/<run>/attempt_N/<local_rank>/{stdout,stderr}.log[,error.json], kernel-<host>.log"


# ----------------------------------------------------------------------------
# job construction per layout
# ----------------------------------------------------------------------------
WORLD_MULTI = [8, 16, 16, 32, 64, 128, 256, 512]


def make_job(rng, layout):
    if layout in ("gha_ci", "notebook"):
        return Job(rng, layout, [2, 4, 8, 8, 4], [8])
    if layout == "pyxis_slurm":
        return Job(rng, layout, WORLD_MULTI, [8, 8, 4])
    if layout == "windows_export":
        return Job(rng, layout, [4, 8, 16, 32, 64, 128, 256], [4, 8])
    return Job(rng, layout, [2, 8, 16, 32, 64, 256], [2, 8, 8, 4])


def clone_job_later(rng, job, gap_s):
    j2 = Job.__new__(Job)
    j2.__dict__.update(job.__dict__)
    j2.t0 = T(job.t0, gap_s)
    j2.pids = [rng.randint(3000, 4000000) for _ in range(job.world)]
    j2.seq0 = rng.randint(50, 9000)
    return j2


def generate_run(idx, cause, layout, seed, outdir):
    rng = random.Random(seed * 1000003 + idx * 7919 + 17)
    job = make_job(rng, layout)
    while cause == "network" and job.nnodes < 2:
        job = make_job(rng, layout)
    d = os.path.join(outdir, "run-%03d-%s" % (idx, layout))
    extra_notes = []
    if layout == "elastic_restarts":
        # attempt plan
        plans = []
        if cause is None:
            plans = [None]
        else:
            mode = rng.choice(["fail_then_ok", "fail_then_ok", "same_twice", "final_differs"])
            if cause == "straggler":
                mode = "single"
            if cause == "preemption" and mode != "final_differs":
                mode = "single"
            if mode == "single":
                plans = [cause]
            elif mode == "fail_then_ok":
                plans = [cause, None]
            elif mode == "same_twice":
                plans = [cause, cause]
            else:
                first = rng.choice([c for c in ["cuda_oom", "python_exception", "crash_signal", "illegal_memory_access", "network"] if c != cause and (c != "network" or job.nnodes > 1)])
                plans = [first, cause]
            extra_notes.append("attempt plan: %s (mode %s)" % (" -> ".join(str(p or "success") for p in plans), mode))
        attempts = []
        jj = job
        truth_sc = None
        for ai, p in enumerate(plans):
            if ai > 0:
                jj = clone_job_later(rng, job, (attempts[-1].final_t - job.t0).total_seconds() + rng.uniform(20, 90))
            a = make_scenario(rng, jj, p)
            if p is not None and p == "preemption" and ai < len(plans) - 1:
                pass
            attempts.append(a)
        # truth: first attempt's fault unless final attempt failed differently
        if cause is None:
            truth_sc = attempts[0]
        elif len(plans) >= 2 and plans[-1] is not None and plans[-1] != plans[0]:
            truth_sc = attempts[-1]
            extra_notes.append("truth = final attempt (%d) fault, attempt 0 failed with %s" % (len(plans) - 1, plans[0]))
        else:
            truth_sc = attempts[0]
            if len(plans) > 1:
                extra_notes.append("truth = attempt 0 fault; final attempt %s" % ("succeeded" if plans[-1] is None else "repeated the same cause"))
        sc = truth_sc
        render_elastic(attempts[0], d, attempts, truth_sc)
        sc.aliases = attempts[0].aliases
        sc.files_note = attempts[0].files_note
        for a in attempts:
            if a is not sc:
                extra_notes += ["other attempt: " + n for n in a.notes if n.startswith("injected")]
    else:
        sc = make_scenario(rng, job, cause)
        {"gha_ci": render_gha, "notebook": render_notebook, "pyxis_slurm": render_pyxis, "windows_export": render_windows}[layout](sc, d)
    truth_node = sc.truth_node
    if truth_node is not None:
        truth_node = sc.job.host(sc.f)
    c = sc.cause
    aliases = [a for a in getattr(sc, "aliases", []) if a and a != truth_node] if truth_node else []
    truth = {
        "cause": c,
        "healthy": c is None,
        "rank": sc.truth_rank,
        "node": truth_node,
        "drain": bool(c in DRAIN and truth_node is not None),
        "rank_inferable": bool(sc.inferable and sc.truth_rank is not None),
        "node_aliases": aliases,
        "layout": layout,
        "notes": "world=%d (%d nodes x %d), torch %s / NCCL %s, kernel fmt %s; %s; files: %s" % (
            sc.job.world, sc.job.nnodes, sc.job.gpn, sc.job.torch, sc.job.nccl, sc.job.kstyle,
            "; ".join(sc.notes + extra_notes), getattr(sc, "files_note", "")),
    }
    wfile(os.path.join(d, "truth.json"), json.dumps(truth, indent=2, sort_keys=False) + "\n")
    sz = run_size(d)
    if sz > MAX_BYTES:
        raise SystemExit("run %s is %d bytes (> cap)" % (d, sz))
    return truth


def plan(n, seed):
    rng = random.Random(seed * 31 + 5)
    causes = list(CAUSES)
    rng.shuffle(causes)
    seq = []
    ci = 0
    for i in range(n):
        if i % 7 == 6:
            seq.append(None)
        else:
            seq.append(causes[ci % len(causes)])
            ci += 1
    used = {l: 0 for l in LAYOUTS}
    out = []
    for c in seq:
        ok = [l for l in LAYOUTS if c is None or c in LAYOUT_CAUSES[l]]
        m = min(used[l] for l in ok)
        cand = [l for l in ok if used[l] == m]
        l = rng.choice(cand)
        used[l] += 1
        out.append((c, l))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for i, (c, l) in enumerate(plan(a.n, a.seed)):
        generate_run(i, c, l, a.seed, a.out)


if __name__ == "__main__":
    main()
