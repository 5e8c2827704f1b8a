#!/usr/bin/env python3
"""blind48 -- synthetic log bundles of distributed GPU training jobs, captured
*while still being written* (live tails, rotation, full disks, interleaved
consoles, block-buffered stdout, missing nodes, duplicated copies).

Written blind (see README.md).  Standard library only.

usage: python3 gen_blind48.py --out DIR --n 60 --seed S
"""
import argparse
import datetime as _dt
import gzip
import io
import json
import os
import random
import sys

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill",
          "crash_signal", "preemption", "hang", "data_loader_stall",
          "collective_mismatch", "straggler", "unknown"]

LAYOUTS = ["partial_rank_logs", "rotated_node_log", "disk_full",
           "interleaved_console", "buffered_stdout", "missing_node",
           "duplicated_copies", "live_snapshot"]

LAYOUT_CAUSES = {
    "partial_rank_logs": list(CAUSES),
    "rotated_node_log": list(CAUSES),
    "disk_full": list(CAUSES),
    "interleaved_console": list(CAUSES),
    "buffered_stdout": list(CAUSES),
    "missing_node": ["host_oom_kill", "preemption", "hang", "unknown",
                     "crash_signal"],
    "duplicated_copies": list(CAUSES),
    "live_snapshot": ["straggler", "hang", "data_loader_stall",
                      "collective_mismatch", "cuda_oom", "python_exception"],
}

SIGNAMES = {6: "SIGABRT", 9: "SIGKILL", 11: "SIGSEGV", 15: "SIGTERM", 7: "SIGBUS"}
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
          "Nov", "Dec"]


# --------------------------------------------------------------------------
# line model
# --------------------------------------------------------------------------
class L:
    """One line of output.  t is the true time; text already carries the
    (skewed) timestamp of the machine that printed it."""
    __slots__ = ("t", "node", "rank", "st", "text", "ev", "nr", "nn", "nl", "id")

    def __init__(self, t, node, rank, st, text, ev=False, nr=False, nn=False,
                 nl=True):
        self.t, self.node, self.rank, self.st, self.text = t, node, rank, st, text
        self.ev, self.nr, self.nn, self.nl = ev, nr, nn, nl
        self.id = 0


def utc(t):
    return _dt.datetime.fromtimestamp(t, _dt.timezone.utc)


class Job:
    def __init__(self, rng, idx, cause, layout, healthy):
        self.rng = rng
        self.idx = idx
        self.cause = cause
        self.layout = layout
        self.healthy = healthy
        r = rng
        if layout in ("missing_node",):
            self.nnodes = r.choice([2, 3, 4, 4, 8])
        elif cause in ("network",) or layout == "interleaved_console":
            self.nnodes = r.choice([2, 2, 4, 4])
        elif layout in ("rotated_node_log", "buffered_stdout"):
            self.nnodes = r.choice([1, 1, 2, 2, 4])
        else:
            self.nnodes = r.choice([1, 2, 2, 4, 4])
        self.gpn = r.choice([4, 8, 8, 8]) if self.nnodes <= 4 else r.choice([4, 8])
        if self.nnodes >= 8:
            self.gpn = 4
        self.world = self.nnodes * self.gpn
        style = r.randrange(5)
        base = r.randrange(1, 60)
        hosts, ips = [], []
        sub = r.randrange(0, 200)
        for i in range(self.nnodes):
            n = base + i * r.choice([1, 1, 1, 2])
            ip = "10.%d.%d.%d" % (r.choice([0, 1, 10, 64]), sub, 10 + n)
            if style == 0:
                h = "gpu-node-%03d" % n
            elif style == 1:
                h = "ip-" + ip.replace(".", "-")
            elif style == 2:
                h = "dgx%02d" % n
            elif style == 3:
                h = "a3mega-%s-%d" % (r.choice(["a", "b"]), n)
            else:
                h = "hpc-g%04d" % (n + 1000)
            hosts.append(h)
            ips.append(ip)
        self.hosts, self.ips = hosts, ips
        self.skew = [0.0] + [r.choice([-1, 1]) * r.uniform(0.05, 9.0)
                             for _ in range(self.nnodes - 1)]
        self.uptime0 = [r.uniform(3600, 40 * 86400) for _ in range(self.nnodes)]
        self.t0 = 1704067200 + r.randrange(0, 520 * 86400) + r.random()
        self.tv = r.choice([(2, 1, 2), (2, 2, 2), (2, 3, 1), (2, 4, 1), (2, 5, 1)])
        self.nccl = {(2, 1, 2): "2.18.1", (2, 2, 2): "2.19.3", (2, 3, 1): "2.20.5",
                     (2, 4, 1): "2.20.5", (2, 5, 1): "2.21.5"}[self.tv]
        self.pyver = r.choice(["3.10", "3.10", "3.11"])
        self.site = r.choice(["/usr/local/lib/python%s/dist-packages",
                              "/opt/conda/lib/python%s/site-packages",
                              "/home/%s/.venv/lib/python%%s/site-packages" %
                              r.choice(["mlops", "jdoe", "train"])]) % self.pyver
        self.pybin = r.choice(["/usr/bin/python3", "/opt/conda/bin/python",
                               "/usr/bin/python"])
        self.script = r.choice(["train.py", "pretrain_gpt.py", "main.py",
                                "finetune.py", "run_clm.py"])
        self.workdir = r.choice(["/workspace", "/home/jdoe/proj", "/mnt/code/llm",
                                 "/opt/train"])
        self.launcher = "srun" if layout == "interleaved_console" and r.random() < 0.6 \
            else "torchrun"
        self.slurm = self.launcher == "srun" or layout in ("interleaved_console",
                                                          "missing_node") or r.random() < 0.4
        self.jobid = r.randrange(100000, 9999999)
        self.pids = {}
        self.agent_pid = []
        for n in range(self.nnodes):
            bp = r.randrange(3000, 400000)
            self.agent_pid.append(bp)
            for lr in range(self.gpn):
                self.pids[n * self.gpn + lr] = bp + 7 + lr * r.randrange(1, 4)
        self.nccl_debug = r.random() < 0.55
        self.ib = r.random() < 0.7
        self.timeout_ms = r.choice([600000, 1800000, 1800000, 300000])
        self.log_every = r.choice([1, 5, 10, 10, 20, 50])
        self.dt = r.uniform(0.35, 3.2)
        self.total_steps = r.choice([5000, 10000, 20000, 50000, 100000])
        self.log_stream = r.choice(["out", "err"])
        self.tqdm = r.random() < 0.3
        self.bus = sorted(r.sample(["07", "0f", "47", "4e", "87", "90", "b7", "bd",
                                    "1b", "29", "3b", "5d", "9a", "ab", "c3", "d8"],
                                   self.gpn))
        self.lines = []
        self.exits = {}          # rank -> (t, code, why)
        self.alive_end = set()
        self.init_rank = None
        self.init_node = None
        self.notes = []
        self.cap = [None] * self.nnodes
        self.shown_rank = False
        self.shown_node = False
        self.seq = r.randrange(2000, 90000)
        self.model = r.choice(["llama-7b", "gpt-1.3b", "mistral-7b", "vit-h14",
                               "t5-3b", "llama2-13b"])
        self.lr0 = r.choice([3e-4, 1.5e-4, 1e-4, 6e-4])

    # ---------------------------------------------------------------- helpers
    def node_of(self, rank):
        return rank // self.gpn

    def lt(self, node, t):
        return utc(t + self.skew[node])

    def add(self, t, node, rank, st, text, **kw):
        ln = L(t, node, rank, st, text, **kw)
        self.lines.append(ln)
        return ln

    def addm(self, t, node, rank, st, block, step=0.0, **kw):
        for i, tx in enumerate(block.split("\n")):
            self.add(t + i * step, node, rank, st, tx, **kw)

    def ts_log(self, node, t):
        d = self.lt(node, t)
        return d.strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (d.microsecond // 1000)

    def glog(self, node, t, sev):
        d = self.lt(node, t)
        return "%s%s %s.%06d" % (sev, d.strftime("%m%d"), d.strftime("%H:%M:%S"),
                                 d.microsecond)

    def c10(self, node, rank, t, sev, where, msg):
        if self.tv >= (2, 4):
            return "[rank%d]:[%s000 %s] %s" % (rank, self.glog(node, t, sev), where, msg)
        if self.tv >= (2, 2):
            return "[rank%d]:[%s %s] %s" % (rank, sev, where, msg)
        return "[%s %s] %s" % (sev, where, msg)

    def nccl_pfx(self, rank, tid=None):
        n = self.node_of(rank)
        p = self.pids[rank]
        return "%s:%d:%d [%d]" % (self.hosts[n], p, tid or p, rank % self.gpn)

    def agent(self, node, t, sev, msg, mod="api"):
        if self.tv >= (2, 4):
            path = {"api": "torch/distributed/elastic/multiprocessing/api.py:%d" %
                    self.rng.choice([869, 897]),
                    "run": "torch/distributed/run.py:793",
                    "agent": "torch/distributed/elastic/agent/server/api.py:704"}[mod]
            return "%s %d %s] %s" % (self.glog(node, t, sev[0]), self.agent_pid[node],
                                     path, msg)
        modname = {"api": "torch.distributed.elastic.multiprocessing.api",
                   "run": "torch.distributed.run",
                   "agent": "torch.distributed.elastic.agent.server.api"}[mod]
        return "[%s] %s: [%s] %s" % (self.ts_log(node, t), modname, sev, msg)

    def kern(self, node, t, msg, fmt):
        up = self.uptime0[node] + (t - self.t0)
        if fmt == "dmesg":
            return "[%12.6f] %s" % (up, msg)
        d = self.lt(node, t)
        if fmt == "journal":
            return "%s %s kernel: %s" % (d.strftime("%b %d %H:%M:%S"), self.hosts[node], msg)
        return "%s %2d %s %s kernel: [%12.6f] %s" % (MONTHS[d.month - 1], d.day,
                                                   d.strftime("%H:%M:%S"),
                                                   self.hosts[node], up, msg)

    def pyfile(self, mod):
        return "%s/%s" % (self.site, mod)


# --------------------------------------------------------------------------
# common text blocks
# --------------------------------------------------------------------------
def frames_cpp(job, r, what):
    lib = job.site + "/torch/lib/"
    out = []
    syms = [("c10::Error::Error(c10::SourceLocation, std::string)", "libc10.so"),
            ("c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&)", "libc10.so"),
            (what, "libtorch_cuda.so"),
            ("<unknown function>", "libstdc++.so.6"),
            ("<unknown function>", "libc.so.6"),
            ("clone", "libc.so.6")]
    for i, (s, l) in enumerate(syms[: r.randrange(3, 7)]):
        base = r.randrange(0x7f0000000000, 0x7fffffffffff)
        path = (lib + l) if ("c10" in l or "torch" in l) else "/lib/x86_64-linux-gnu/" + l
        out.append("frame #%d: %s + 0x%x (0x%x in %s)" % (i, s, r.randrange(0x20, 0x900),
                                                       base, path))
    return "\n".join(out)


def py_tb(job, r, frames, exc):
    lines = ["Traceback (most recent call last):"]
    for f, ln, fn, code in frames:
        lines.append('  File "%s", line %d, in %s' % (f, ln, fn))
        if code:
            lines.append("    " + code)
    lines.append(exc)
    return "\n".join(lines)


def user_frames(job, r, inner):
    wd = job.workdir
    fr = [("%s/%s" % (wd, job.script), r.randrange(300, 900), "<module>", "main()"),
          ("%s/%s" % (wd, job.script), r.randrange(100, 300), "main", "trainer.fit()"),
          ("%s/trainer.py" % wd, r.randrange(80, 600), "fit",
           "loss = self.train_step(batch)")]
    return fr + inner


def watchdog_block(job, rank, t, seq, op, numel, last_enq, last_comp, ran_ms):
    n = job.node_of(rank)
    r = job.rng
    wd = ("WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d) "
          "ran for %d milliseconds before timing out." % (seq, op, numel, numel,
                                                          job.timeout_ms, ran_ms))
    out = []
    out.append(job.c10(n, rank, t, "E", "ProcessGroupNCCL.cpp:%d" % r.choice([563, 607, 616]),
                       "[Rank %d] Watchdog caught collective operation timeout: %s" % (rank, wd)))
    if job.tv >= (2, 2):
        out.append(job.c10(n, rank, t + 0.001, "E", "ProcessGroupNCCL.cpp:1537",
                           "[PG 0 Rank %d] Timeout at NCCL work: %d, last enqueued NCCL work: %d, "
                           "last completed NCCL work: %d." % (rank, seq, last_enq, last_comp)))
    out.append(job.c10(n, rank, t + 0.002, "E", "ProcessGroupNCCL.cpp:577",
                       "[Rank %d] Some NCCL operations have failed or timed out. Due to the "
                       "asynchronous nature of CUDA kernels, subsequent GPU operations might "
                       "run on corrupted/incomplete data." % rank))
    out.append(job.c10(n, rank, t + 0.002, "E", "ProcessGroupNCCL.cpp:583",
                       "[Rank %d] To avoid data inconsistency, we are taking the entire process down." % rank))
    msg = "[PG 0 Rank %d] Process group watchdog thread terminated with exception: [Rank %d] " \
          "Watchdog caught collective operation timeout: %s" % (rank, rank, wd)
    out.append(job.c10(n, rank, t + 0.003, "E", "ProcessGroupNCCL.cpp:1414", msg))
    out.append("terminate called after throwing an instance of 'c10::DistBackendError'")
    out.append("  what():  " + msg)
    out.append("Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/"
               "ProcessGroupNCCL.cpp:%d (most recent call first):" % r.choice([565, 609, 618]))
    out.append(frames_cpp(job, r, "c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >)"))
    out.append("")
    return out


def remote_err_block(job, rank, t, peer):
    n = job.node_of(rank)
    r = job.rng
    pn = job.ips[peer] if peer is not None else job.ips[(n + 1) % job.nnodes]
    if job.ib:
        last = ("NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 "
                "vendor err 129 (Send) localGid ::ffff:%s remoteGids::ffff:%s" %
                (pn, r.randrange(30000, 60000), job.ips[n], pn))
    else:
        last = "socketProgress: Connection closed by remote peer %s<%d>" % (
            job.hosts[peer] if peer is not None else pn, r.randrange(30000, 60000))
    out = []
    pf = job.nccl_pfx(rank, job.pids[rank] + r.randrange(40, 900))
    if job.ib:
        out.append("%s transport/net_ib.cc:%d NCCL WARN %s" % (pf, r.choice([1696, 1736, 2038]), last))
        out.append("%s NCCL INFO transport/net.cc:%d -> 6" % (pf, r.choice([1134, 1187])))
    else:
        out.append("%s misc/socket.cc:%d NCCL WARN %s" % (pf, r.choice([47, 49, 581]), last))
        out.append("%s NCCL INFO misc/socket.cc:%d -> 6" % (pf, r.choice([752, 768])))
    out.append("%s NCCL INFO proxy.cc:%d -> 6" % (pf, r.choice([694, 1495])))
    msg = ("[PG 0 Rank %d] NCCL watchdog thread terminated with exception: NCCL error: remote "
           "process exited or there was a network error, NCCL version %s" % (rank, job.nccl))
    out.append(job.c10(n, rank, t + 0.01, "E", "ProcessGroupNCCL.cpp:1316", msg))
    out.append("ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.")
    out.append("Last error:")
    out.append(last)
    out.append("terminate called after throwing an instance of 'c10::DistBackendError'")
    out.append("  what():  " + msg)
    out.append("ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.")
    out.append("Last error:")
    out.append(last)
    out.append("Exception raised from checkForNCCLErrorsInternal at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1781 (most recent call first):")
    out.append(frames_cpp(job, r, "c10d::ProcessGroupNCCL::checkForNCCLErrors(std::shared_ptr<c10d::NCCLComm>&)"))
    return out


def tcpstore_warn(job, rank, t):
    n = job.node_of(rank)
    return job.c10(n, rank, t, "W", "ProcessGroupNCCL.cpp:1183",
                   '[PG 0 Rank %d] Failed to check the "should dump" flag on TCPStore, '
                   '(maybe TCPStore server has shut down too early), with error: '
                   'Connection reset by peer' % rank)


# --------------------------------------------------------------------------
# startup + training
# --------------------------------------------------------------------------
def gen_startup(job):
    r = job.rng
    t = job.t0
    for n in range(job.nnodes):
        tn = t + r.uniform(0, 3)
        if job.launcher == "torchrun":
            if job.tv >= (2, 4):
                job.add(tn, n, None, "agent", job.agent(n, tn, "W", "", "run"))
                job.lines[-1].text = job.lines[-1].text.rstrip()
            else:
                job.add(tn, n, None, "agent", "WARNING:torch.distributed.run:")
            job.add(tn, n, None, "agent", "*****************************************")
            job.add(tn, n, None, "agent", "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ")
            job.add(tn, n, None, "agent", "*****************************************")
    for rank in range(job.world):
        n = job.node_of(rank)
        lr = rank % job.gpn
        ts = t + 4 + r.uniform(0, 6)
        if r.random() < 0.5:
            job.add(ts, n, rank, "err", "%s/transformers/utils/generic.py:441: FutureWarning: "
                    "`torch.utils._pytree._register_pytree_node` is deprecated. Please use "
                    "`torch.utils._pytree.register_pytree_node` instead." % job.site)
            job.add(ts, n, rank, "err", "  _torch_pytree._register_pytree_node(")
        if job.nccl_debug:
            pf = job.nccl_pfx(rank)
            if rank == 0:
                job.add(ts + 5, n, rank, "out", "%s NCCL INFO Bootstrap : Using %s:%s<0>" %
                        (pf, "eth0", job.ips[n]))
                job.add(ts + 5, n, rank, "out", "%s NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation" % pf)
                job.add(ts + 5, n, rank, "out", "%s NCCL INFO cudaDriverVersion %d" % (pf, r.choice([12020, 12040, 12060])))
                job.add(ts + 5, n, rank, "out", "NCCL version %s+cuda12.%d" % (job.nccl, r.choice([1, 2, 4])))
            if job.ib:
                job.add(ts + 6, n, rank, "out", "%s NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB ; OOB eth0:%s<0>" % (pf, job.ips[n]))
                job.add(ts + 6, n, rank, "out", "%s NCCL INFO Using network IB" % pf)
            else:
                job.add(ts + 6, n, rank, "out", "%s NCCL INFO NET/Socket : Using [0]eth0:%s<0>" % (pf, job.ips[n]))
                job.add(ts + 6, n, rank, "out", "%s NCCL INFO Using network Socket" % pf)
            job.add(ts + 7, n, rank, "out", "%s NCCL INFO comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId 0x%x - Init COMPLETE" %
                    (pf, r.randrange(0x55000000, 0x56ffffff), rank, job.world, lr, lr,
                     job.bus[lr], job.jobid * 7919 & 0xffffffffffff))
        if rank == 0:
            job.add(ts + 8, n, rank, job.log_stream, "%s INFO [%s:%d] model %s: %.2fB params, world_size=%d, grad_accum=%d" %
                    (job.ts_log(n, ts + 8), job.script, r.randrange(80, 200), job.model,
                     r.uniform(1, 13), job.world, r.choice([1, 2, 4, 8])))
        if r.random() < 0.35:
            job.add(ts + 9, n, rank, "err", "%s/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.4 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants." % job.site)
            job.add(ts + 9, n, rank, "err", "  warnings.warn(")
    job.t_train = t + 25 + r.uniform(0, 40)


def step_line(job, step, t, loss, st_time, rank=0):
    n = job.node_of(rank)
    r = job.rng
    return ("%s INFO [%s:%d] step %d/%d | loss %.4f | lr %.3e | grad_norm %.3f | "
            "%.1f ms/step | tok/s %d" % (job.ts_log(n, t), job.script, 412, step,
                                         job.total_steps, loss, job.lr0 * min(1, step / 2000.0),
                                         r.uniform(0.2, 1.6), st_time * 1000,
                                         int(job.world * 4096 * 4 / st_time)))


def tq(sec):
    if sec >= 3600:
        return "%d:%02d:%02d" % (sec // 3600, sec % 3600 // 60, sec % 60)
    return "%02d:%02d" % (sec // 60, sec % 60)


def gen_training(job, s_from, s_to, slow_rank=None, slow_from=None, slow_fac=1.0,
                 per_rank_timing=False, data_rank=None, data_from=None):
    """Rank-0 loss lines every log_every steps; other ranks occasional lines."""
    r = job.rng
    t = job.t_train + (s_from - 1) * job.dt
    for step in range(s_from, s_to + 1):
        slow = slow_rank is not None and step >= slow_from
        st = job.dt * (slow_fac if slow else 1.0) * r.uniform(0.97, 1.04)
        t += st
        if step % job.log_every == 0:
            loss = 2.0 + 8.0 / (1 + step / 400.0) + r.uniform(-0.05, 0.05)
            job.add(t, 0, 0, job.log_stream, step_line(job, step, t, loss, st))
            if job.tqdm and step % (job.log_every * 2) == 0:
                pct = int(100 * step / job.total_steps)
                bar = ("\u2588" * (pct // 10)).ljust(10)
                el = int(t - job.t_train)
                rem = int((job.total_steps - step) * st)
                job.add(t, 0, 0, "err", "\r%3d%%|%s| %d/%d [%s<%s, %5.2fit/s]" %
                        (pct, bar, step, job.total_steps, tq(el), tq(rem), 1.0 / st), nl=False)
            if per_rank_timing and step % (job.log_every * 2) == 0:
                for rk in range(job.world):
                    n = job.node_of(rk)
                    if rk == slow_rank and slow:
                        comp = st * r.uniform(0.9, 0.97)
                        wait = st - comp
                    else:
                        comp = job.dt * r.uniform(0.80, 0.9)
                        wait = st - comp
                    job.add(t + r.uniform(0, 0.05), n, rk, job.log_stream,
                            "%s INFO [timing] rank %d step %d fwd_bwd=%.0fms allreduce_wait=%.0fms data=%.0fms" %
                            (job.ts_log(n, t), rk, step, comp * 1000, wait * 1000,
                             r.uniform(1, 9)),
                            ev=(rk == slow_rank and slow), nr=True)
        if data_rank is not None and step >= data_from and step % job.log_every == 0:
            n = job.node_of(data_rank)
            job.add(t, n, data_rank, job.log_stream,
                    "%s WARNING [data.py:%d] rank %d: waited %.1fs for next batch (prefetch queue empty)" %
                    (job.ts_log(n, t), 233, data_rank, r.uniform(4, 40) * (step - data_from + 1)),
                    ev=True, nr=True)
        if step % max(job.log_every * 25, 200) == 0 and step > 0:
            # checkpoint
            job.add(t + 0.2, 0, 0, job.log_stream, "%s INFO [checkpoint.py:88] saving checkpoint to /ckpt/%s/step_%07d" %
                    (job.ts_log(0, t), job.model, step))
            t += r.uniform(5, 30)
            job.add(t, 0, 0, job.log_stream, "%s INFO [checkpoint.py:97] checkpoint saved (%.1f s)" %
                    (job.ts_log(0, t), r.uniform(5, 30)))
        if step % max(job.log_every * 40, 400) == 0:
            for rk in r.sample(range(job.world), min(3, job.world)):
                n = job.node_of(rk)
                job.add(t + r.uniform(0, 1), n, rk, "err",
                        "%s/torch/utils/data/dataloader.py:558: UserWarning: This DataLoader will create 16 worker processes in total. Our suggested max number of worker in current system is 12, which is smaller than what this DataLoader is going to create." % job.site)
    return t


def gen_noise_kernel(job, t_from, t_to):
    r = job.rng
    msgs = ["perf: interrupt took too long (%d > %d), lowering kernel.perf_event_max_sample_rate to %d",
            "nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid context, skipping further processing",
            "audit: type=1400 audit(%d.%03d:%d): apparmor=\"DENIED\" operation=\"open\" profile=\"snap.lxd.activate\" name=\"/proc/%d/mounts\"",
            "systemd-journald[%d]: Under memory pressure, flushing caches.",
            "IPv6: ADDRCONF(NETDEV_CHANGE): veth%x: link becomes ready",
            "docker0: port 1(veth%x) entered forwarding state"]
    for n in range(job.nnodes):
        for _ in range(r.randrange(3, 10)):
            t = r.uniform(t_from, t_to)
            m = r.choice(msgs)
            if "%d > %d" in m:
                a = r.randrange(2500, 4000)
                m = m % (a, a - 3, r.randrange(40000, 80000))
            elif "audit(" in m:
                m = m % (int(t), r.randrange(1000), r.randrange(100, 999), r.randrange(1000, 99999))
            elif "journald" in m:
                m = m % r.randrange(300, 900)
            elif "%" in m:
                m = m % r.randrange(0x1000000, 0xfffffff)
            job.add(t, n, None, "kern", m)


# --------------------------------------------------------------------------
# incident scenarios
# --------------------------------------------------------------------------
def kfmt(job):
    return job.kfmt


def xid_line(job, rank, num, tail):
    lr = job_lr = rank % job.gpn
    return "NVRM: Xid (PCI:0000:%s:00): %d, pid=%d, name=%s, %s" % (
        job.bus[lr], num, job.pids[rank], job.rng.choice(["python3", "python", "pt_main_thread"]), tail)


def app_cuda_terminate(job, rank, t, err, where="c10_cuda_check_implementation"):
    n = job.node_of(rank)
    r = job.rng
    pf = job.nccl_pfx(rank, job.pids[rank] + r.randrange(40, 900))
    out = []
    if r.random() < 0.6:
        out.append("%s enqueue.cc:%d NCCL WARN Cuda failure '%s'" % (pf, r.choice([1434, 1561]), err))
    msg = "CUDA error: %s" % err
    out.append(job.c10(n, rank, t, "E", "ProcessGroupNCCL.cpp:1316",
                       "[PG 0 Rank %d] Process group watchdog thread terminated with exception: %s" % (rank, msg)))
    out.append("CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.")
    out.append("For debugging consider passing CUDA_LAUNCH_BLOCKING=1")
    out.append("Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.")
    out.append("")
    out.append("Exception raised from %s at ../c10/cuda/CUDAException.cpp:43 (most recent call first):" % where)
    out.append(frames_cpp(job, r, "c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool)"))
    out.append("")
    out.append("terminate called after throwing an instance of 'c10::DistBackendError'")
    out.append("  what():  [PG 0 Rank %d] Process group watchdog thread terminated with exception: %s" % (rank, msg))
    return out


def app_cuda_python(job, rank, err):
    r = job.rng
    inner = [(job.pyfile("torch/_tensor.py"), 522, "backward",
              "torch.autograd.backward("),
             (job.pyfile("torch/autograd/graph.py"), 768, "_engine_run_backward",
              "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")]
    if r.random() < 0.5:
        inner = [("%s/trainer.py" % job.workdir, r.randrange(100, 500), "train_step",
                  "loss_val = loss.item()")]
    tb = py_tb(job, r, user_frames(job, r, inner), "RuntimeError: CUDA error: %s" % err)
    tb += "\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n"
    return tb.split("\n")


def put(job, rank, t, lines, st="err", ev=True, step=0.0005):
    n = job.node_of(rank)
    for i, tx in enumerate(lines):
        nr = tx.startswith("[rank%d]" % rank) or ("[Rank %d]" % rank) in tx
        nn = tx.startswith(job.hosts[n] + ":")
        job.add(t + i * step, n, rank, st, tx, ev=ev, nr=nr, nn=nn)


def kput(job, node, t, msgs, ev=True):
    for i, m in enumerate(msgs):
        job.add(t + i * 0.00002, node, None, "kern", m, ev=ev, nn=ev)


def pick_init(job):
    r = job.rng
    rank = r.randrange(job.world)
    if job.layout == "buffered_stdout" and r.random() < 0.5:
        rank = 0
    elif r.random() < 0.25 and job.world > 1:
        rank = r.randrange(1, job.world)
    job.init_rank = rank
    job.init_node = job.node_of(rank)
    return rank, job.init_node


def incident_step(job):
    return job.log_every * job.rng.randrange(35, 140)


def sc_gpu_hardware(job):
    r = job.rng
    rk, n = pick_init(job)
    s = incident_step(job)
    t = gen_training(job, 1, s)
    kind = r.choice([79, 79, 119, 62])
    lr = rk % job.gpn
    if kind == 79:
        k = [xid_line(job, rk, 79, "GPU has fallen off the bus."),
             "NVRM: GPU 0000:%s:00.0: GPU has fallen off the bus." % job.bus[lr],
             "NVRM: GPU 0000:%s:00.0: GPU serial number is %d." % (job.bus[lr], r.randrange(10**12, 10**13)),
             "NVRM: A GPU crash dump has been created. If possible, please run",
             "NVRM: nvidia-bug-report.sh as root to collect this data before",
             "NVRM: the NVIDIA kernel module is unloaded."]
        err = "unknown error"
    elif kind == 119:
        k = [xid_line(job, rk, 119, "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x20802a02 0x8)." % lr),
             "NVRM: GPU%d GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x0000000020802a02 0x0000000000000008." % lr,
             "NVRM: GPU%d RPC history (CPU -> GSP):" % lr,
             xid_line(job, rk, 119, "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 10 (FREE) (0x5c000007 0x0)." % lr)]
        err = "unspecified launch failure"
    else:
        k = [xid_line(job, rk, 62, "0000feb0 0000c8b4 00000000 00000000"),
             "NVRM: GPU at PCI:0000:%s:00: GPU-%08x-%04x-%04x-%04x-%012x" % (job.bus[lr], r.getrandbits(32), r.getrandbits(16), r.getrandbits(16), r.getrandbits(16), r.getrandbits(48)),
             "NVRM: GPU Board Serial Number: %d" % r.randrange(10**12, 10**13),
             "NVRM: Xid (PCI:0000:%s:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)" % job.bus[lr]]
        err = "unspecified launch failure"
    kput(job, n, t + 0.3, k)
    job.notes.append("Xid %d on %s GPU%d (rank %d)" % (kind, job.hosts[n], lr, rk))
    if r.random() < 0.55:
        put(job, rk, t + r.uniform(0.5, 4), app_cuda_terminate(job, rk, t + 2, err))
        job.exits[rk] = (t + 5, -6, "cuda error")
        return dict(t_break=t, mode=r.choice(["timeout", "remote"]), stuck=set(), op="ALLREDUCE")
    job.notes.append("rank %d stuck on dead GPU, peers time out" % rk)
    return dict(t_break=t, mode="timeout", stuck={rk}, op="ALLREDUCE", unkillable={rk})


def sc_ecc_memory(job):
    r = job.rng
    rk, n = pick_init(job)
    t = gen_training(job, 1, incident_step(job))
    lr = rk % job.gpn
    k = [xid_line(job, rk, 48, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (r.randrange(12), r.randrange(2)))]
    if r.random() < 0.6:
        k.append(xid_line(job, rk, 63, "Row Remapping: New row (0x%08x) Marked for Remapping, reset gpu to activate." % r.getrandbits(28)))
    else:
        k.append(xid_line(job, rk, 64, "Row Remapping: Failure in remapping a row (0x%08x). Reset gpu to retry." % r.getrandbits(28)))
    kput(job, n, t + 0.1, k)
    err = "uncorrectable ECC error encountered"
    if r.random() < 0.5:
        put(job, rk, t + 0.5, app_cuda_python(job, rk, err))
        job.exits[rk] = (t + 1.5, 1, "python")
    else:
        put(job, rk, t + 0.5, app_cuda_terminate(job, rk, t + 0.5, err))
        job.exits[rk] = (t + 1.2, -6, "abort")
    job.notes.append("uncorrectable ECC (Xid 48) on %s GPU%d, rank %d died" % (job.hosts[n], lr, rk))
    return dict(t_break=t, mode=r.choice(["timeout", "remote"]), stuck=set(), op="ALLREDUCE")


def sc_nvlink(job):
    r = job.rng
    rk, n = pick_init(job)
    t = gen_training(job, 1, incident_step(job))
    lr = rk % job.gpn
    other = n * job.gpn + (lr + 1) % job.gpn
    link = r.randrange(0, 18)
    k = [xid_line(job, rk, 74, "NVLink: fatal error detected on link %d(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)" % link)]
    if r.random() < 0.5:
        k.append("nvidia-nvswitch%d: SXid (PCI:0000:%s:00.0): 20034, Fatal, Link %d LTSSM Fault Up" %
                 (r.randrange(4), r.choice(["c3", "c4", "c5", "c6"]), r.randrange(0, 64)))
    k.append(xid_line(job, rk, 74, "NVLink: fatal error detected on link %d(0x0, 0x0, 0x0, 0x200, 0x0, 0x0, 0x0)" % ((link + 1) % 18)))
    kput(job, n, t + 0.05, k)
    pf = job.nccl_pfx(rk, job.pids[rk] + r.randrange(40, 900))
    lines = ["%s transport/p2p.cc:%d NCCL WARN Cuda failure 'an illegal memory access was encountered'" % (pf, r.choice([275, 689])),
             "%s NCCL INFO transport/p2p.cc:%d -> 1" % (pf, 691)]
    lines += app_cuda_terminate(job, rk, t + 0.8, "an illegal memory access was encountered")
    put(job, rk, t + 0.7, lines)
    job.exits[rk] = (t + 1.4, -6, "abort")
    job.notes.append("NVLink Xid 74 on %s GPU%d link %d; rank %d aborted" % (job.hosts[n], lr, link, rk))
    return dict(t_break=t, mode="timeout", stuck=set(), op="ALLREDUCE")


def sc_network(job):
    r = job.rng
    n = r.randrange(job.nnodes)
    job.init_node = n
    job.init_rank = None
    t = gen_training(job, 1, incident_step(job))
    dev = r.choice(["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"])
    pci = r.choice(["0c", "1a", "45", "86", "c1"])
    if job.ib:
        k = ["mlx5_core 0000:%s:00.0: mlx5_port_module_event:1151:(pid 0): Port module event[error]: module 0, Cable error, Bad cable" % pci,
             "mlx5_core 0000:%s:00.0 ib%d: Link down" % (pci, r.randrange(4)),
             "infiniband %s: ib_mad_recv_done: could not post MAD" % dev if r.random() < 0.3 else
             "mlx5_core 0000:%s:00.0: mlx5_fw_tracer_handle_traces:757:(pid %d): FWTracer: Link down" % (pci, r.randrange(100, 999))]
    else:
        k = ["mlx5_core 0000:%s:00.0 enp%ds0np0: Link down" % (pci, int(pci, 16)),
             "bonding: bond0: link status definitely down for interface enp%ds0np0, disabling it" % int(pci, 16)]
    kput(job, n, t - r.uniform(0.2, 2), k)
    others = [x for x in range(job.nnodes) if x != n]
    # local ranks of n see errors first
    for lr in range(job.gpn):
        rk = n * job.gpn + lr
        peer = r.choice(others) if others else None
        tt = t + r.uniform(0.5, 8)
        put(job, rk, tt, remote_err_block(job, rk, tt, peer))
        job.exits[rk] = (tt + 0.6, -6, "net")
    job.notes.append("NIC/link failure on %s; its ranks and peers get NCCL network errors" % job.hosts[n])
    return dict(t_break=t, mode="remote", stuck=set(), op="ALLREDUCE", remote_peer=n)


def oom_text(job, rk):
    r = job.rng
    tot = r.choice([79.15, 79.33, 39.39, 139.81, 93.0])
    free = r.uniform(0.05, 1.2)
    alloc = tot - free - r.uniform(0.5, 3)
    req = r.choice(["1.95 GiB", "512.00 MiB", "3.91 GiB", "784.00 MiB", "10.00 GiB"])
    cls = "torch.OutOfMemoryError" if job.tv >= (2, 5) else "torch.cuda.OutOfMemoryError"
    return ("%s: CUDA out of memory. Tried to allocate %s. GPU %d has a total capacity of %.2f GiB of which "
            "%.2f MiB is free. Including non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated "
            "memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. If reserved "
            "but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid "
            "fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
            % (cls, req, rk % job.gpn, tot, free * 1024, tot - free, alloc, r.uniform(0.3, 2.5)))


def sc_cuda_oom(job):
    r = job.rng
    rk, n = pick_init(job)
    t = gen_training(job, 1, incident_step(job))
    inner = [("%s/model.py" % job.workdir, r.randrange(50, 400), "forward",
              "attn = torch.softmax(scores.float(), dim=-1).to(q.dtype)"),
             (job.pyfile("torch/nn/modules/module.py"), 1541, "_call_impl",
              "return forward_call(*args, **kwargs)")]
    if r.random() < 0.5:
        inner = [(job.pyfile("torch/nn/modules/module.py"), 1532, "_wrapped_call_impl",
                  "return self._call_impl(*args, **kwargs)")] + inner
    tb = py_tb(job, r, user_frames(job, r, inner), oom_text(job, rk))
    if job.tv >= (2, 2) and r.random() < 0.5:
        tb = "\n".join("[rank%d]: %s" % (rk, x) for x in tb.split("\n"))
    put(job, rk, t + 0.1, tb.split("\n"))
    job.exits[rk] = (t + 1.0, 1, "python")
    job.notes.append("CUDA OOM on rank %d (%s)" % (rk, job.hosts[n]))
    return dict(t_break=t, mode=r.choice(["timeout", "remote"]), stuck=set(), op="ALLREDUCE")


def sc_illegal_memory_access(job):
    r = job.rng
    rk, n = pick_init(job)
    t = gen_training(job, 1, incident_step(job))
    lr = rk % job.gpn
    if r.random() < 0.5:
        lines = []
        for i in range(r.randrange(3, 12)):
            lines.append("../aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [%d,0,0], thread: [%d,0,0] Assertion `-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"` failed." % (r.randrange(0, 600), r.randrange(0, 128)))
        put(job, rk, t, lines, step=0.00001)
        put(job, rk, t + 0.2, app_cuda_python(job, rk, "device-side assert triggered"))
        kput(job, n, t + 0.1, [xid_line(job, rk, 43, "Ch %08x" % r.randrange(8, 64))], ev=True)
        job.exits[rk] = (t + 0.8, 1, "python")
        job.notes.append("device-side assert (index out of bounds) on rank %d" % rk)
    else:
        kput(job, n, t + 0.05, [xid_line(job, rk, r.choice([13, 31]), "MMU Fault: ENGINE GRAPHICS GPC%d GPCCLIENT_T1_%d faulted @ 0x7f%x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (r.randrange(8), r.randrange(16), r.randrange(16, 255), r.getrandbits(32)))])
        put(job, rk, t + 0.4, app_cuda_terminate(job, rk, t + 0.4, "an illegal memory access was encountered"))
        job.exits[rk] = (t + 0.9, -6, "abort")
        job.notes.append("illegal memory access on rank %d" % rk)
    return dict(t_break=t, mode=r.choice(["timeout", "remote"]), stuck=set(), op="ALLREDUCE")


def sc_python_exception(job):
    r = job.rng
    if job.layout == "disk_full":
        rk = 0
        job.init_rank, job.init_node = 0, 0
        n = 0
    else:
        rk, n = pick_init(job)
    t = gen_training(job, 1, incident_step(job))
    if job.layout == "disk_full":
        inner = [("%s/checkpoint.py" % job.workdir, 91, "save", "torch.save(state, path)"),
                 (job.pyfile("torch/serialization.py"), 628, "save",
                  "_save(obj, opened_zipfile, pickle_module, pickle_protocol, _disable_byteorder_record)"),
                 (job.pyfile("torch/serialization.py"), 862, "_save",
                  "zip_file.write_record(name, storage, num_bytes)")]
        exc = "RuntimeError: [enforce fail at inline_container.cc:603] . unexpected pos 2311717248 vs 2311717136" \
            if r.random() < 0.4 else "OSError: [Errno 28] No space left on device"
        job.notes.append("rank 0 crashed writing checkpoint: disk full")
    else:
        variants = [
            ([("%s/data.py" % job.workdir, 140, "__getitem__", "ids = sample['input_ids']")], "KeyError: 'input_ids'"),
            ([(job.pyfile("torch/utils/data/_utils/collate.py"), 141, "collate",
               "return torch.stack(batch, 0, out=out)")],
             "RuntimeError: stack expects each tensor to be equal size, but got [3, 224, 224] at entry 0 and [1, 224, 224] at entry %d" % r.randrange(1, 31)),
            ([("%s/data.py" % job.workdir, 77, "_open_shard", "with open(path, 'rb') as f:")],
             "FileNotFoundError: [Errno 2] No such file or directory: '/data/shards/train-%05d-of-01024.bin'" % r.randrange(1024)),
            ([("%s/trainer.py" % job.workdir, 311, "train_step", "assert torch.isfinite(loss), f'non-finite loss {loss}'")],
             "AssertionError: non-finite loss nan"),
            ([("%s/model.py" % job.workdir, 208, "forward", "x = x.view(b, t, self.n_head, c // self.n_head)")],
             "RuntimeError: shape '[4, 2048, 32, 128]' is invalid for input of size 33030144"),
        ]
        inner, exc = r.choice(variants)
        job.notes.append("uncaught %s on rank %d" % (exc.split(":")[0], rk))
    tb = py_tb(job, r, user_frames(job, r, inner), exc)
    put(job, rk, t + 0.05, tb.split("\n"))
    job.exits[rk] = (t + 0.7, 1, "python")
    job.py_exc = exc
    return dict(t_break=t, mode=r.choice(["timeout", "remote"]), stuck=set(), op="ALLREDUCE")


def sc_host_oom_kill(job):
    r = job.rng
    rk, n = pick_init(job)
    t = gen_training(job, 1, incident_step(job))
    worker = r.random() < 0.45
    victim = job.pids[rk] + r.randrange(100, 3000) if worker else job.pids[rk]
    comm = "pt_data_worker" if worker else r.choice(["python3", "python"])
    tot = r.randrange(180, 900) * 1024 * 1024
    k = ["%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0" % r.choice(["python3", "pt_data_worker", "sshd"]),
         "CPU: %d PID: %d Comm: python3 Tainted: P           OE     5.15.0-%d-generic #%d-Ubuntu" % (r.randrange(96), job.pids[rk] + 5, r.randrange(80, 120), r.randrange(80, 130)),
         "Mem-Info:",
         "active_anon:%d inactive_anon:%d isolated_anon:0" % (r.randrange(10**7, 9 * 10**7), r.randrange(10**5, 10**6)),
         "oom-kill:constraint=CONSTRAINT_%s,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/slurm/uid_1000/job_%d/step_0,task=%s,pid=%d,uid=1000" % (r.choice(["NONE", "MEMCG"]), job.jobid, comm, victim),
         "Out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:1000 pgtables:%dkB oom_score_adj:0" % (victim, comm, tot + r.randrange(10**7), tot // 2, r.randrange(10**5, 10**6), r.randrange(10**6, 10**7), r.randrange(10**4, 10**5))]
    kput(job, n, t, k)
    if job.slurm:
        job.add(t + r.uniform(1, 3), n, None, "slurm",
                "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % job.jobid, ev=True)
        job.slurm_oom = True
    if worker:
        inner = [(job.pyfile("torch/utils/data/dataloader.py"), 1133, "_try_get_data",
                  "data = self._data_queue.get(timeout=timeout)"),
                 (job.pyfile("torch/utils/data/_utils/signal_handling.py"), 66, "handler",
                  "_error_if_any_worker_fails()")]
        tb = py_tb(job, r, user_frames(job, r, inner),
                   "RuntimeError: DataLoader worker (pid %d) is killed by signal: Killed. " % victim)
        put(job, rk, t + 0.4, ["ERROR: Unexpected segmentation fault encountered in worker." if False else
                               "Traceback (most recent call last):"] + tb.split("\n")[1:])
        job.exits[rk] = (t + 1.0, 1, "python")
        job.notes.append("host OOM killer killed a dataloader worker of rank %d on %s" % (rk, job.hosts[n]))
    else:
        job.exits[rk] = (t + 0.01, -9, "oom")
        job.notes.append("host OOM killer killed rank %d on %s" % (rk, job.hosts[n]))
    return dict(t_break=t, mode=r.choice(["timeout", "remote"]), stuck=set(), op="ALLREDUCE")


def sc_crash_signal(job):
    r = job.rng
    rk, n = pick_init(job)
    t = gen_training(job, 1, incident_step(job))
    v = r.choice(["segv", "segv", "abrt", "bus"])
    if v == "segv":
        if r.random() < 0.6:
            lines = ["Fatal Python error: Segmentation fault", "",
                     "Thread 0x%016x (most recent call first):" % r.getrandbits(48),
                     '  File "%s", line 324 in wait' % "/usr/lib/python%s/threading.py" % job.pyver,
                     '  File "%s", line 622 in wait' % "/usr/lib/python%s/threading.py" % job.pyver, "",
                     "Current thread 0x%016x (most recent call first):" % r.getrandbits(48),
                     '  File "%s/ext/fused_ops.py", line 57 in forward' % job.workdir,
                     '  File "%s", line 1541 in _call_impl' % job.pyfile("torch/nn/modules/module.py"),
                     '  File "%s/model.py", line 233 in forward' % job.workdir,
                     '  File "%s/%s", line 118 in main' % (job.workdir, job.script), ""]
            put(job, rk, t, lines)
        if r.random() < 0.6:
            kput(job, n, t + 0.01, ["python3[%d]: segfault at %x ip %016x sp %016x error 4 in fused_ops.cpython-%s-x86_64-linux-gnu.so[%x+%x]" %
                                    (job.pids[rk], r.choice([0, 8, 0x18]), r.getrandbits(47), r.getrandbits(47), job.pyver.replace(".", ""), r.getrandbits(44), r.randrange(0x10000, 0x90000))])
        code = -11
    elif v == "abrt":
        put(job, rk, t, [r.choice(["double free or corruption (!prev)", "free(): invalid pointer",
                                   "malloc(): unsorted double linked list corrupted"])])
        code = -6
    else:
        put(job, rk, t, ["Bus error (core dumped)"] if r.random() < 0.3 else [])
        code = -7
    job.exits[rk] = (t + 0.02, code, "signal")
    job.notes.append("rank %d died with %s (no hardware evidence)" % (rk, SIGNAMES[-code]))
    return dict(t_break=t, mode=r.choice(["timeout", "remote"]), stuck=set(), op="ALLREDUCE")


def sc_preemption(job):
    r = job.rng
    job.init_rank = job.init_node = None
    t = gen_training(job, 1, incident_step(job))
    v = r.choice(["time", "preempt", "spot"]) if job.slurm else "spot"
    job.preempt = v
    if v in ("time", "preempt"):
        d = job.lt(0, t)
        job.add(t, 0, None, "slurm", "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO %s ***" %
                (job.jobid, job.hosts[0], d.strftime("%Y-%m-%dT%H:%M:%S"),
                 "TIME LIMIT" if v == "time" else "PREEMPTION"), ev=True)
        job.notes.append("slurm cancelled job due to %s" % ("time limit" if v == "time" else "preemption"))
    else:
        for n in range(job.nnodes):
            job.add(t - 28 + r.uniform(0, 1), n, None, "syslog",
                    "%s google_guest_agent[%d]: ERROR instance preempted: GCE maintenance event or spot reclaim, shutting down in 30s" % (job.hosts[n], r.randrange(900, 2000))
                    if r.random() < 0.5 else
                    "%s systemd-logind[%d]: The system will power off now!" % (job.hosts[n], r.randrange(900, 2000)), ev=True)
        job.add(t + 0.3, 0, 0, job.log_stream, "%s WARNING [%s:57] received SIGTERM, attempting emergency checkpoint" % (job.ts_log(0, t), job.script), ev=True)
        job.notes.append("spot/preemptible VMs reclaimed; SIGTERM to the whole job")
    return dict(t_break=t, mode="sigterm_all", stuck=set(), op="ALLREDUCE")


def pyspy_dump(job, rk, kind):
    r = job.rng
    pid = job.pids[rk]
    out = ["Process %d: %s -u %s/%s --config configs/%s.yaml" % (pid, job.pybin, job.workdir, job.script, job.model),
           "Python v%s.%d (%s)" % (job.pyver, r.randrange(4, 14), job.pybin), ""]
    out.append("Thread %d (%s): \"MainThread\"" % (pid, "idle" if kind != "busy" else "active"))
    if kind == "data":
        out += ["    select (selectors.py:416)", "    wait (multiprocessing/connection.py:947)",
                "    _poll (multiprocessing/connection.py:440)", "    poll (multiprocessing/connection.py:257)",
                "    get (multiprocessing/queues.py:113)", "    _try_get_data (torch/utils/data/dataloader.py:1133)",
                "    _get_data (torch/utils/data/dataloader.py:1294)", "    _next_data (torch/utils/data/dataloader.py:1328)",
                "    __next__ (torch/utils/data/dataloader.py:631)", "    fit (trainer.py:%d)" % r.randrange(100, 400)]
    elif kind == "hang":
        out += ["    wait (threading.py:320)", "    get (queue.py:171)", "    flush (metrics_logger.py:88)",
                "    log_metrics (trainer.py:%d)" % r.randrange(400, 600), "    fit (trainer.py:%d)" % r.randrange(100, 400)]
    elif kind == "coll":
        out += ["    all_gather_into_tensor (torch/distributed/distributed_c10d.py:2948)",
                "    wrapper (torch/distributed/c10d_logger.py:75)",
                "    gather_metrics (trainer.py:%d)" % r.randrange(300, 500), "    fit (trainer.py:%d)" % r.randrange(100, 400)]
    else:
        out += ["    synchronize (torch/cuda/__init__.py:792)", "    all_reduce (torch/distributed/distributed_c10d.py:2219)",
                "    wrapper (torch/distributed/c10d_logger.py:75)",
                "    reduce_grads (trainer.py:%d)" % r.randrange(200, 300), "    fit (trainer.py:%d)" % r.randrange(100, 400)]
    out += ["    main (%s:%d)" % (job.script, r.randrange(300, 700)), "    <module> (%s:%d)" % (job.script, r.randrange(700, 900)), ""]
    out.append("Thread %d (idle): \"Thread-3 (_pin_memory_loop)\"" % (pid + 61))
    out += ["    wait (threading.py:324)", "    get (queue.py:180)", "    _pin_memory_loop (torch/utils/data/_utils/pin_memory.py:49)", ""]
    return out


def sc_hang(job):
    r = job.rng
    rk, n = pick_init(job)
    t = gen_training(job, 1, incident_step(job))
    job.notes.append("rank %d stopped progressing (blocked in host code); others wait in the collective" % rk)
    return dict(t_break=t, mode="timeout", stuck={rk}, op="ALLREDUCE", desync=r.random() < 0.55,
                pyspy="hang")


def sc_data_loader_stall(job):
    r = job.rng
    rk, n = pick_init(job)
    s = incident_step(job)
    t = gen_training(job, 1, s, data_rank=rk, data_from=s - job.log_every * r.randrange(1, 4))
    if r.random() < 0.6:
        srv = r.choice(["nas01", "fsx-data", "10.%d.0.5" % r.randrange(200), "lustre-oss3"])
        kput(job, n, t - r.uniform(30, 200), ["nfs: server %s not responding, still trying" % srv] * r.randrange(1, 4))
        job.nfs = srv
    if r.random() < 0.35:
        inner = [(job.pyfile("torch/utils/data/dataloader.py"), 631, "__next__", "data = self._next_data()"),
                 (job.pyfile("torch/utils/data/dataloader.py"), 1328, "_next_data", "idx, data = self._get_data()"),
                 (job.pyfile("torch/utils/data/dataloader.py"), 1284, "_get_data", "success, data = self._try_get_data()"),
                 (job.pyfile("torch/utils/data/dataloader.py"), 1145, "_try_get_data",
                  "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e")]
        to = r.choice([300, 600, 900])
        tb = py_tb(job, r, user_frames(job, r, inner), "RuntimeError: DataLoader timed out after %d seconds" % to)
        put(job, rk, t + to, tb.split("\n"))
        job.exits[rk] = (t + to + 0.5, 1, "python")
        job.notes.append("rank %d starved waiting on data; DataLoader timeout" % rk)
        return dict(t_break=t, mode="timeout", stuck=set(), op="ALLREDUCE", pyspy="data")
    job.notes.append("rank %d stuck waiting for data (I/O); others time out in the collective" % rk)
    return dict(t_break=t, mode="timeout", stuck={rk}, op="ALLREDUCE", pyspy="data")


def fingerprint(job, seq, op, shape):
    return ("CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%s], TensorDtypes=BFloat16, "
            "TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), "
            "requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))" % (seq, op, shape))


def sc_collective_mismatch(job):
    r = job.rng
    rk, n = pick_init(job)
    if rk == 0 and job.world > 1:
        rk = r.randrange(1, job.world)
        job.init_rank, job.init_node = rk, job.node_of(rk)
    t = gen_training(job, 1, incident_step(job))
    seq = job.seq
    job.notes.append("rank %d issued a different collective (rank-dependent branch)" % rk)
    if job.layout != "live_snapshot" and r.random() < 0.45:
        # TORCH_DISTRIBUTED_DEBUG=DETAIL
        fp0 = fingerprint(job, seq, "ALLREDUCE", "%d" % r.choice([1, 4, 1024]))
        fpx = fingerprint(job, seq, "ALLGATHER", "%d, %d" % (job.world, r.choice([1, 8])))
        for k in range(job.world):
            tk = t + r.uniform(0.05, 2)
            if k == rk:
                msg = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank 0 is running collective: %s." % (k, fpx, fp0)
            else:
                msg = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s." % (k, fp0, rk, fpx)
            inner = [("%s/trainer.py" % job.workdir, 288, "reduce_metrics", "dist.all_reduce(t)" if k != rk else "dist.all_gather_into_tensor(out, t)"),
                     (job.pyfile("torch/distributed/c10d_logger.py"), 75, "wrapper", "return func(*args, **kwargs)")]
            if k == rk or k == 0 or r.random() < 0.5:
                put(job, k, tk, py_tb(job, r, user_frames(job, r, inner), msg).split("\n"), ev=(k == rk))
                job.lines[-1].ev = True
                job.lines[-1].nr = True
                job.exits[k] = (tk + 0.3, 1, "python")
        return dict(t_break=t, mode="timeout", stuck=set(), op="ALLREDUCE")
    return dict(t_break=t, mode="timeout", stuck=set(), op="ALLREDUCE", odd=rk, pyspy="coll")


def sc_straggler(job):
    r = job.rng
    rk, n = pick_init(job)
    s = incident_step(job)
    slow_from = max(job.log_every * 4, s // 3)
    fac = r.uniform(1.5, 2.6)
    t = gen_training(job, 1, s, slow_rank=rk, slow_from=slow_from, slow_fac=fac, per_rank_timing=True)
    job.notes.append("rank %d (%s) ~%.1fx slower from step %d; job keeps running" % (rk, job.hosts[n], fac, slow_from))
    return dict(t_break=None, mode="none", stuck=set(), t_last=t)


def sc_unknown(job):
    r = job.rng
    rk, n = pick_init(job)
    t = gen_training(job, 1, incident_step(job))
    code = r.choice([1, 1, -9, 255])
    job.exits[rk] = (t, code, "unknown")
    job.notes.append("rank %d exited (code %d) without printing anything" % (rk, code))
    return dict(t_break=t, mode=r.choice(["timeout", "remote"]), stuck=set(), op="ALLREDUCE")


def sc_healthy(job):
    t = gen_training(job, 1, incident_step(job))
    r = job.rng
    for _ in range(r.randrange(1, 4)):
        tt = r.uniform(job.t_train, t)
        v = r.randrange(4)
        if v == 0:
            job.add(tt, 0, 0, "err", "wandb: Network error (ConnectionError), entering retry loop.")
        elif v == 1:
            job.add(tt, 0, 0, job.log_stream, "%s WARNING [grad_scaler] Gradient overflow. Skipping step, loss scaler 0 reducing loss scale to %d" % (job.ts_log(0, tt), r.choice([32768, 16384, 65536])))
        elif v == 2:
            rk = r.randrange(job.world)
            job.add(job.t0 + 3, job.node_of(rk), rk, "err", "[W socket.cpp:464] [c10d] The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use).")
        else:
            rk = r.randrange(job.world)
            job.add(job.t0 + 9, job.node_of(rk), rk, "err", job.c10(job.node_of(rk), rk, job.t0 + 9, "W", "ProcessGroupNCCL.cpp:4115", "[PG 0 Rank %d]  using GPU %d to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect.Specify device_ids in barrier() to force use of a particular device,or call init_process_group() with a device_id." % (rk, rk % job.gpn)))
    job.notes.append("healthy: job still training when logs were captured")
    return dict(t_break=None, mode="none", stuck=set(), t_last=t)


SCEN = {c: globals()["sc_" + c] for c in CAUSES}


# --------------------------------------------------------------------------
# collateral damage: watchdogs, remote errors, launcher reactions
# --------------------------------------------------------------------------
def summary_block(job, n, t, failures, root):
    """torchrun ChildFailedError block. failures: list of (rank, t, code)."""
    r = job.rng
    site = job.site
    out = ["Traceback (most recent call last):",
           '  File "%s", line 8, in <module>' % ("/usr/local/bin/torchrun" if "local" in site else "/opt/conda/bin/torchrun"),
           "    sys.exit(main())",
           '  File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 347, in wrapper' % site,
           "    return f(*args, **kwargs)",
           '  File "%s/torch/distributed/run.py", line 812, in main' % site,
           "    run(args)",
           '  File "%s/torch/distributed/run.py", line 803, in run' % site,
           "    elastic_launch(",
           '  File "%s/torch/distributed/launcher/api.py", line 135, in __call__' % site,
           "    return launch_agent(self._config, self._entrypoint, list(args))",
           '  File "%s/torch/distributed/launcher/api.py", line 268, in launch_agent' % site,
           "    raise ChildFailedError(",
           "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
           "=" * 60, "%s FAILED" % job.script, "-" * 60, "Failures:"]

    def ent(i, rk, tt, code):
        d = job.lt(n, tt)
        if code < 0:
            tbk = "Signal %d (%s) received by PID %d" % (-code, SIGNAMES.get(-code, "SIG?"), job.pids[rk])
        else:
            tbk = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
        return ["[%d]:" % i, "  time      : %s" % d.strftime("%Y-%m-%d_%H:%M:%S"),
                "  host      : %s" % job.hosts[n], "  rank      : %d (local_rank: %d)" % (rk, rk % job.gpn),
                "  exitcode  : %d (pid: %d)" % (code, job.pids[rk]), "  error_file: <N/A>",
                "  traceback : %s" % tbk]
    rest = [f for f in failures if f[0] != root[0]]
    if not rest:
        out.append("  <NO_OTHER_FAILURES>")
    for i, f in enumerate(rest):
        out += ent(i + 1, *f)
    out += ["-" * 60, "Root Cause (first observed failure):"] + ent(0, *root) + ["=" * 60]
    return out


def srun_task_word(code):
    if code > 0:
        return "Exited with exit code %d" % code
    return {-6: "Aborted (core dumped)", -9: "Killed", -11: "Segmentation fault (core dumped)",
            -7: "Bus error (core dumped)", -15: "Terminated"}.get(code, "Killed")


def ranges(xs):
    out = []
    i = 0
    while i < len(xs):
        j = i
        while j + 1 < len(xs) and xs[j + 1] == xs[j] + 1:
            j += 1
        out.append(str(xs[i]) if i == j else "%d-%d" % (xs[i], xs[j]))
        i = j + 1
    return ",".join(out)


def finish(job, sc):
    r = job.rng
    W = job.world
    mode = sc["mode"]
    job.unkillable = sc.get("unkillable", set())
    if mode == "none":
        job.t_end = sc["t_last"]
        job.alive = set(range(W))
        return
    tb = sc["t_break"]
    seq = job.seq
    numel = r.choice([262144000, 131072000, 65536000, 1048576, 50331648])
    stuck = sc.get("stuck", set())
    odd = sc.get("odd")
    died_nodes = sorted({job.node_of(k) for k in job.exits})
    if sc.get("remote_peer") is not None:
        died_nodes = [sc["remote_peer"]]
    cand = {}   # rank -> (t, code, lines)
    if mode != "sigterm_all":
        for rk in range(W):
            if rk in job.exits or rk in stuck:
                continue
            n = job.node_of(rk)
            if mode == "remote" and died_nodes and n not in died_nodes:
                peer = r.choice(died_nodes)
                tt = tb + r.uniform(1, 40)
                cand[rk] = (tt + 0.5, -6, remote_err_block(job, rk, tt, peer), tt)
            else:
                tt = tb + job.timeout_ms / 1000.0 + r.uniform(0.01, 3.0)
                op, nm = ("ALLGATHER", numel // job.world) if rk == odd else ("ALLREDUCE", numel)
                ran = job.timeout_ms + int((tt - tb - job.timeout_ms / 1000.0) * 1000) + r.randrange(1, 90)
                lines = watchdog_block(job, rk, tt, seq, op, nm, seq, seq - 1, ran)
                if sc.get("desync") and rk == 0 and stuck:
                    lines.insert(2, job.c10(0, 0, tt, "E", "ProcessGroupNCCL.cpp:1577",
                                            "[PG 0 Rank 0] Desync debug report: To our best knowledge, ranks [%s] are the lagging ranks that caused this timeout. They never joined any collectives" %
                                            ", ".join(str(x) for x in sorted(stuck))))
                cand[rk] = (tt + 0.4, -6, lines, tt)
    job.alive = set()
    tkill = float("inf")
    kill_on_bad = job.slurm and r.random() < 0.8
    if mode == "sigterm_all":
        tkill = tb + r.uniform(0.05, 1.0)
    if job.launcher == "srun":
        # one task per rank, no torchrun agent
        allex = {}
        for rk in range(W):
            if rk in job.exits:
                allex[rk] = job.exits[rk][:2]
            elif rk in cand:
                allex[rk] = (cand[rk][0], cand[rk][1])
        first = min(allex.values(), key=lambda x: x[0])[0] if allex else float("inf")
        tk = min(tkill, first + r.uniform(0.2, 1.5) if kill_on_bad else float("inf"))
        final = {}
        for rk in range(W):
            if rk in allex and allex[rk][0] <= tk:
                final[rk] = allex[rk]
                if rk in cand:
                    put(job, rk, cand[rk][3], cand[rk][2], ev=False)
            elif tk < float("inf"):
                final[rk] = (tk + r.uniform(0.05, 1.0), -15)
            else:
                job.alive.add(rk)
        for rk in sorted(final, key=lambda k: final[k][0]):
            tt, code = final[rk]
            n = job.node_of(rk)
            if code == -15:
                continue
            is_init = rk == job.init_rank and rk in job.exits
            w = srun_task_word(code)
            if getattr(job, "slurm_oom", False) and is_init and code == -9:
                w = "Out Of Memory"
            job.add(tt + 0.05, 0, None, "slurm", "srun: error: %s: task %d: %s" % (job.hosts[n], rk, w),
                    ev=is_init, nr=is_init, nn=is_init)
        if tk < float("inf"):
            job.add(tk, 0, None, "slurm", "srun: Job step aborted: Waiting up to 32 seconds for job step to finish." if mode == "sigterm_all" else "srun: Terminating StepId=%d.0" % job.jobid)
            for n in range(job.nnodes):
                if mode != "sigterm_all":
                    job.add(tk + 0.2, n, None, "slurm", "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" %
                            (job.jobid, job.hosts[n], job.lt(n, tk).strftime("%Y-%m-%dT%H:%M:%S")))
                term = [rk for rk in range(n * job.gpn, (n + 1) * job.gpn) if final.get(rk, (0, 0))[1] == -15]
                if term:
                    job.add(tk + 1.2, 0, None, "slurm", "srun: error: %s: task%s %s: Terminated" %
                            (job.hosts[n], "s" if len(term) > 1 else "", ranges(term)))
            job.add(tk + 1.3, 0, None, "slurm", "srun: Force Terminated StepId=%d.0" % job.jobid)
        job.final = final
        job.t_end = max([v[0] for v in final.values()] + [tb + 1]) + 2
        return

    # ---- torchrun agents
    nodeinfo = []
    for n in range(job.nnodes):
        loc = range(n * job.gpn, (n + 1) * job.gpn)
        se = {}
        for rk in loc:
            if rk in job.exits:
                se[rk] = job.exits[rk][:2]
            elif rk in cand:
                se[rk] = (cand[rk][0], cand[rk][1])
        tf = min([v[0] for v in se.values()] + [float("inf")])
        nodeinfo.append((tf, n, se))
    nodeinfo.sort()
    final = {}
    agent_end = {}
    for tf, n, se in nodeinfo:
        loc = list(range(n * job.gpn, (n + 1) * job.gpn))
        if tf < tkill and tf < float("inf"):
            chk = tf + (r.uniform(0.05, 0.6) if job.tv >= (2, 2) else r.uniform(0.3, 5.0))
            fails = sorted([(rk, v[0], v[1]) for rk, v in se.items() if v[0] <= chk], key=lambda x: x[1])
            for rk, _, _ in fails:
                if rk in cand:
                    put(job, rk, cand[rk][3], cand[rk][2], ev=False)
                final[rk] = se[rk]
            tend = chk
            for rk in loc:
                if rk in final:
                    continue
                job.add(chk + 0.001 * (rk % job.gpn), n, None, "agent",
                        job.agent(n, chk, "WARNING", "Sending process %d closing signal SIGTERM" % job.pids[rk]))
                if rk in job.unkillable:
                    job.add(chk + 30, n, None, "agent", job.agent(n, chk + 30, "WARNING",
                            "Unable to shutdown process %d via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL" % job.pids[rk]))
                    final[rk] = (chk + 30.1, -9)
                else:
                    final[rk] = (chk + r.uniform(0.05, 2.0), -15)
                tend = max(tend, final[rk][0])
            root = fails[0]
            job.add(tend + 0.05, n, None, "agent", job.agent(n, tend + 0.05, "ERROR",
                    "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" %
                    (root[2], root[0] % job.gpn, job.pids[root[0]], job.pybin)))
            is_init = root[0] == job.init_rank and root[0] in job.exits
            for i, tx in enumerate(summary_block(job, n, tend + 0.1, fails, root)):
                ln = job.add(tend + 0.1 + i * 1e-5, n, None, "agent", tx)
                if is_init and (("rank      : %d " % root[0]) in tx):
                    ln.ev = ln.nr = ln.nn = True
            agent_end[n] = tend + 0.12
            if job.slurm and job.nnodes > 1:
                job.add(tend + 0.3, 0, None, "slurm", "srun: error: %s: task %d: Exited with exit code 1" % (job.hosts[n], n))
                if kill_on_bad and tkill == float("inf"):
                    tkill = tend + r.uniform(0.3, 1.5)
                    job.add(tkill, 0, None, "slurm", "srun: Terminating StepId=%d.0" % job.jobid)
        elif tkill < float("inf"):
            tk = tkill + r.uniform(0.01, 0.3)
            for rk, v in se.items():
                if v[0] <= tk:
                    if rk in cand:
                        put(job, rk, cand[rk][3], cand[rk][2], ev=False)
                    final[rk] = v
            if mode != "sigterm_all":
                job.add(tk, n, None, "slurm", "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" %
                        (job.jobid, job.hosts[n], job.lt(n, tk).strftime("%Y-%m-%dT%H:%M:%S")))
            job.add(tk + 0.01, n, None, "agent", job.agent(n, tk + 0.01, "WARNING",
                    "Received Signals.SIGTERM death signal, shutting down workers", "agent"))
            tend = tk
            for rk in loc:
                if rk in final:
                    continue
                job.add(tk + 0.02, n, None, "agent", job.agent(n, tk + 0.02, "WARNING",
                        "Sending process %d closing signal SIGTERM" % job.pids[rk]))
                final[rk] = (tk + r.uniform(0.05, 2.0), -15)
                tend = max(tend, final[rk][0])
            tb_lines = ["Traceback (most recent call last):",
                        '  File "%s/torch/distributed/elastic/agent/server/api.py", line 680, in run' % job.site,
                        "    result = self._invoke_run(role)",
                        '  File "%s/torch/distributed/elastic/agent/server/api.py", line 835, in _invoke_run' % job.site,
                        "    time.sleep(monitor_interval)",
                        '  File "%s/torch/distributed/elastic/multiprocessing/api.py", line 79, in _terminate_process_handler' % job.site,
                        "    raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)",
                        "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % job.agent_pid[n]]
            for i, tx in enumerate(tb_lines):
                job.add(tend + 0.05 + i * 1e-5, n, None, "agent", tx)
            agent_end[n] = tend + 0.06
            if job.slurm and job.nnodes > 1 and n != 0:
                job.add(tend + 0.3, 0, None, "slurm", "srun: error: %s: task %d: Exited with exit code 1" % (job.hosts[n], n))
        else:
            for rk in loc:
                job.alive.add(rk)
    # TCPStore host gone -> survivors complain
    if 0 in agent_end:
        for rk in range(W):
            if rk in final and final[rk][0] > agent_end[0] + 0.5 and job.node_of(rk) != 0:
                job.add(agent_end[0] + r.uniform(0.3, final[rk][0] - agent_end[0]), job.node_of(rk), rk, "err",
                        tcpstore_warn(job, rk, agent_end[0] + 1))
            elif rk in job.alive and job.node_of(rk) != 0:
                job.add(agent_end[0] + r.uniform(0.3, 5), job.node_of(rk), rk, "err", tcpstore_warn(job, rk, agent_end[0] + 1))
    if getattr(job, "slurm_oom", False) and job.init_node is not None:
        job.add(max(agent_end.values() or [tb]) + 0.5, 0, None, "slurm", "srun: error: %s: task %d: Out Of Memory" %
                (job.hosts[job.init_node], job.init_node), ev=True, nn=True)
    job.final = final
    job.t_end = max([v[0] for v in final.values()] + list(agent_end.values()) + [tb + 1]) + 2


# --------------------------------------------------------------------------
# rendering helpers
# --------------------------------------------------------------------------
class Bundle:
    def __init__(self, job):
        self.job = job
        self.files = {}      # path -> bytes
        self.shown = []      # (line, level)

    def put(self, path, data):
        if isinstance(data, str):
            data = data.encode("utf-8")
        self.files[path] = data


def prep(job):
    """drop lines a dead process could not have printed; sort; number."""
    fin = getattr(job, "final", {})
    keep = []
    for ln in job.lines:
        if ln.rank is not None and ln.rank in fin and ln.t > fin[ln.rank][0] + 0.5:
            continue
        keep.append(ln)
    keep.sort(key=lambda x: x.t)
    for i, ln in enumerate(keep):
        ln.id = i
    job.lines = keep


def fmt_line(job, ln, prefix):
    if ln.st == "kern":
        return job.kern(ln.node, ln.t, ln.text, job.kfmt)
    if ln.st == "syslog":
        d = job.lt(ln.node, ln.t)
        return "%s %s" % (d.strftime("%b %d %H:%M:%S"), ln.text)
    if prefix and ln.rank is not None:
        lr = ln.rank % job.gpn
        p = "[default%d]:" % lr if prefix == "default" else "%d: " % ln.rank
        if ln.text.startswith("\r"):
            return "\r" + p + ln.text[1:]
        return p + ln.text
    return ln.text


def render(b, lines, level, prefix=None, cap=None, cut_open=False, mark=True):
    job = b.job
    out = []
    nxt = None
    for ln in lines:
        if cap is not None and ln.t > cap:
            nxt = ln
            break
        out.append(fmt_line(job, ln, prefix) + ("\n" if ln.nl else ""))
        if mark:
            b.shown.append((ln, level))
    if cut_open and nxt is not None:
        tx = fmt_line(job, nxt, prefix)
        if len(tx) > 3:
            out.append(tx[: job.rng.randrange(1, len(tx) - 1)])
        elif out and out[-1].endswith("\n"):
            out[-1] = out[-1][:-1]
    return "".join(out)


def sel(job, node=None, rank=None, sts=None):
    res = []
    for ln in job.lines:
        if node is not None and ln.node != node:
            continue
        if rank is not None and ln.rank != rank:
            continue
        if sts is not None and ln.st not in sts:
            continue
        res.append(ln)
    return res


def ev_time(job):
    ts = [ln.t for ln in job.lines if ln.ev]
    return max(ts) if ts else None


def live_cap(job, sc):
    """a capture moment during the incident, after the cause is visible."""
    r = job.rng
    te = ev_time(job)
    lo = (te if te is not None else job.t_train) + 0.5
    hi = job.t_end + 5
    if hi <= lo:
        return hi
    return r.uniform(lo, hi)


def kern_lines(job, n):
    return sel(job, node=n, sts=("kern",))


def kern_name(job, n):
    if job.kfmt == "dmesg":
        return "dmesg-%s.txt" % job.hosts[n]
    if job.kfmt == "journal":
        return "journalctl-k-%s.log" % job.hosts[n]
    return "%s/kern.log" % job.hosts[n]


def attach_kernel(b, which):
    job = b.job
    for n in which:
        kl = kern_lines(job, n)
        if job.kfmt == "dmesg":
            kl = [x for x in kl]
        b.put(kern_name(job, n), render(b, kl, "node"))


def kernel_nodes(job, extra=1):
    r = job.rng
    ns = sorted({ln.node for ln in job.lines if ln.st in ("kern", "syslog") and ln.ev})
    others = [n for n in range(job.nnodes) if n not in ns]
    r.shuffle(others)
    return sorted(ns + others[:extra])


def slurm_out(b, cap=None, cut_open=False, include=("slurm",), level="job"):
    job = b.job
    return render(b, sel(job, sts=include), level, cap=cap, cut_open=cut_open)


def node_console(job, n, with_agent=True):
    sts = ("out", "err", "agent") if with_agent else ("out", "err")
    return sel(job, node=n, sts=sts)


# --------------------------------------------------------------------------
# layouts
# --------------------------------------------------------------------------
def lay_partial_rank_logs(b, sc):
    """torchrun --log-dir --redirects 3: per-rank stdout.log/stderr.log,
    grabbed while some ranks were still writing."""
    job, r = b.job, b.job.rng
    cap = live_cap(job, sc) if r.random() < 0.75 else job.t_end + 30
    runid = "%s_%s" % (r.choice(["none", "job%d" % job.jobid, "%x" % r.getrandbits(40)]), "".join(r.choice("abcdefghijklmnopqrstuvwxyz0123456789_") for _ in range(8)))
    skew_cap = [cap + r.uniform(0, 20) for _ in range(job.nnodes)]   # rsync'd one after another
    for n in range(job.nnodes):
        h = job.hosts[n]
        for lr in range(job.gpn):
            rk = n * job.gpn + lr
            for st, fn in (("out", "stdout.log"), ("err", "stderr.log")):
                lines = sel(job, rank=rk, sts=(st,))
                b.put("torchrun_logs/%s/%s/attempt_0/%d/%s" % (h, runid, lr, fn),
                      render(b, lines, "rank", cap=skew_cap[n], cut_open=True))
        b.put("torchrun_logs/%s/launcher.log" % h,
              render(b, sel(job, node=n, sts=("agent",)), "node", cap=skew_cap[n], cut_open=True))
    if job.slurm:
        b.put("slurm-%d.out" % job.jobid, slurm_out(b, cap=cap + 20, cut_open=True))
    attach_kernel(b, kernel_nodes(job, 0 if r.random() < 0.5 else 1))


def rotate(b, text, base, r, lose=True):
    """logrotate copytruncate: split text into base.2.gz, base.1, base."""
    lines = text.splitlines(keepends=True)
    if len(lines) < 30:
        b.put(base, "".join(lines))
        return
    # put the last rotation near the end so the incident straddles it
    c2 = r.randrange(len(lines) // 4, len(lines) // 2)
    c1 = r.randrange(max(c2 + 5, len(lines) - 60), len(lines) - 3)
    old, mid, cur = lines[:c2], lines[c2:c1], lines[c1:]
    if lose:   # copytruncate loses what was written between copy and truncate
        mid = mid[: len(mid) - r.randrange(0, 3)] if len(mid) > 5 else mid
        cur = cur[r.randrange(0, 2):]
    buf = io.BytesIO()
    with gzip.GzipFile(filename=os.path.basename(base) + ".2", mode="wb", fileobj=buf, mtime=0) as g:
        g.write("".join(old).encode("utf-8"))
    b.put(base + ".2.gz", buf.getvalue())
    b.put(base + ".1", "".join(mid))
    b.put(base, "".join(cur))


def lay_rotated_node_log(b, sc):
    job, r = b.job, b.job.rng
    live = job.alive or r.random() < 0.4
    cap = live_cap(job, sc) if live else job.t_end + 30
    prefix = r.choice([None, "default"])
    lvl = "rank" if prefix else "node"
    heavy = r.randrange(job.nnodes) if job.init_node is None else (job.init_node if r.random() < 0.7 else 0)
    for n in range(job.nnodes):
        text = render(b, node_console(job, n), lvl, prefix=prefix, cap=cap, cut_open=True)
        d = "logs/%s/" % job.hosts[n] if job.nnodes > 1 else "logs/"
        if n == heavy or n == 0:
            rotate(b, text, d + "train.log", r)
        else:
            b.put(d + "train.log", text)
    for n in kernel_nodes(job, 1):
        kt = render(b, kern_lines(job, n), "node")
        if job.kfmt == "kernlog" and kt.count("\n") > 8 and r.random() < 0.5:
            ls = kt.splitlines(keepends=True)
            k = r.randrange(2, len(ls) - 2)
            b.put("%s/kern.log.1" % job.hosts[n], "".join(ls[:k]))
            b.put("%s/kern.log" % job.hosts[n], "".join(ls[k:]))
        else:
            b.put(kern_name(job, n), kt)


def lay_disk_full(b, sc):
    job, r = b.job, b.job.rng
    prefix = r.choice([None, "default", "default"])
    lvl = "rank" if prefix else "node"
    victim = r.randrange(job.nnodes)
    # the disk fills after the cause is visible on the initiator's node
    te = ev_time(job) or job.t_train
    t_full = r.uniform(job.t_train + 60, job.t_end) if victim != job.init_node else r.uniform(te + 0.2, job.t_end + 1)
    if job.cause == "python_exception":
        t_full = min(t_full, job.exits.get(0, (job.t_end,))[0] + 0.3)
        t_full = max(t_full, te + 0.1)
    where = r.choice(["/shared/logs", "/scratch/%s/logs" % r.choice(["jdoe", "mlops"]), "/fsx/runs/logs"])
    live = bool(job.alive)
    cap = live_cap(job, sc) if live else job.t_end + 20
    for n in range(job.nnodes):
        lines = node_console(job, n)
        if n == victim:
            full = render(b, [x for x in lines if x.t <= t_full], lvl, prefix=prefix, mark=False).encode("utf-8")
            cut = (len(full) // 4096) * 4096
            if n == job.init_node:
                # keep the initiator's own evidence: the fill happened after it
                acc = 0
                for x in lines:
                    if x.t > t_full:
                        break
                    acc += len((fmt_line(job, x, prefix) + ("\n" if x.nl else "")).encode("utf-8"))
                    if x.ev:
                        cut = max(cut, min(len(full), -(-acc // 4096) * 4096))
            if cut == 0:
                cut = len(full)
            data = full[:cut]
            # mark what survived
            surv = data.decode("utf-8", "ignore")
            acc = 0
            for x in lines:
                if x.t > t_full:
                    break
                s = fmt_line(job, x, prefix) + ("\n" if x.nl else "")
                acc += len(s.encode("utf-8"))
                if acc > cut:
                    break
                b.shown.append((x, lvl))
            b.put("%s/%s.log" % (where.strip("/").replace("/", "_"), job.hosts[n]), data)
        else:
            b.put("%s/%s.log" % (where.strip("/").replace("/", "_"), job.hosts[n]),
                  render(b, lines, lvl, prefix=prefix, cap=cap, cut_open=live))
    # the complaint about the full disk lands in another log
    msg = "tee: %s/%s.log: No space left on device" % (where, job.hosts[victim])
    job.add(t_full, victim, None, "slurm", msg)
    if job.cause != "python_exception":
        job.add(t_full + r.uniform(1, 50), 0, 0, job.log_stream,
                "%s WARNING [checkpoint.py:102] could not write metrics.jsonl: [Errno 28] No space left on device" % job.ts_log(0, t_full + 1))
    job.lines.sort(key=lambda x: x.t)
    b.put("slurm-%d.out" % job.jobid if job.slurm else "launcher_console.txt",
          render(b, sel(job, sts=("slurm",)), "job", cap=cap, cut_open=live))
    b.put("df_h.txt", "Filesystem                     Size  Used Avail Use%% Mounted on\n%-30s %4s %5s %5s %4s %s\n" %
          (r.choice(["fs01:/export/shared", "10.0.5.2@tcp:/lustre", "overlay"]), "20T", "20T", "0", "100%", where.rsplit("/", 1)[0]))
    attach_kernel(b, kernel_nodes(job, 0))


def splice_lines(job, texts, srcs):
    """merge concurrent writers: occasionally a line is cut and another
    writer's line (never the same process) lands in the middle of it."""
    r = job.rng
    out = []
    i = 0
    while i < len(texts):
        a = texts[i]
        if i + 1 < len(texts) and srcs[i] != srcs[i + 1] and r.random() < 0.12 and len(a) > 20:
            k = r.randrange(5, len(a) - 5)
            out.append(a[:k] + texts[i + 1])
            out.append(a[k:])
            i += 2
            continue
        out.append(a)
        i += 1
    return out


def lay_interleaved_console(b, sc):
    """srun without --label: every rank's stdout/stderr in one slurm-JOBID.out."""
    job, r = b.job, b.job.rng
    live = bool(job.alive) or r.random() < 0.3
    cap = live_cap(job, sc) if live else job.t_end + 10
    lines = [x for x in job.lines if x.st in ("out", "err", "agent", "slurm") and x.t <= cap]
    # arrival order at the srun host: jitter by network delay, not skew
    delay = [0.0] + [r.uniform(0.0005, 0.02) for _ in range(job.nnodes - 1)]
    arr = sorted(lines, key=lambda x: (x.t + delay[x.node], x.id))
    texts = []
    for x in arr:
        texts.append(fmt_line(job, x, None) + ("\n" if x.nl else ""))
        b.shown.append((x, "job"))
    srcs = [(x.node, x.rank, x.st) for x in arr]
    texts = splice_lines(job, [t.rstrip("\n") for t in texts], srcs)
    body = "\n".join(texts) + "\n"
    if live:
        body = body[:-r.randrange(2, 40)] if len(body) > 50 else body
    head = "".join([
        "+ export MASTER_ADDR=%s\n" % job.hosts[0],
        "+ MASTER_PORT=%d\n" % r.choice([29500, 12355, 6000]),
        "+ srun --kill-on-bad-exit=1 %s\n" % ("python -u %s --config configs/%s.yaml" % (job.script, job.model) if job.launcher == "srun" else "torchrun --nnodes=%d --nproc_per_node=%d --rdzv_backend=c10d --rdzv_endpoint=%s:29500 %s" % (job.nnodes, job.gpn, job.hosts[0], job.script)),
    ])
    b.put("slurm-%d.out" % job.jobid, head + body)
    if r.random() < 0.6:
        attach_kernel(b, kernel_nodes(job, 0))


def lay_buffered_stdout(b, sc):
    """python train.py > job.log 2>&1 without -u: stdout is block buffered
    (8 KiB), stderr is not; signals lose the unflushed buffer."""
    job, r = b.job, b.job.rng
    live = bool(job.alive) or r.random() < 0.2
    cap = live_cap(job, sc) if live else job.t_end + 10
    BUF = 8192
    fin = getattr(job, "final", {})
    for n in range(job.nnodes):
        bufs = {}
        pend = {}
        chunks = []
        evs = []
        for x in node_console(job, n):
            evs.append((x.t, 0, x))
        for rk in range(n * job.gpn, (n + 1) * job.gpn):
            if rk in fin:
                evs.append((fin[rk][0], 1, rk))
        evs.sort(key=lambda e: (e[0], e[1]))
        for t, kind, x in evs:
            if t > cap:
                break
            if kind == 1:
                rk = x
                if fin[rk][1] >= 0 and bufs.get(rk):
                    chunks.append(bufs[rk])
                    for y in pend.get(rk, []):
                        b.shown.append((y, "node"))
                bufs[rk] = ""
                pend[rk] = []
                continue
            s = fmt_line(job, x, None) + ("\n" if x.nl else "")
            if x.st == "out" and x.rank is not None:
                bufs[x.rank] = bufs.get(x.rank, "") + s
                pend.setdefault(x.rank, []).append(x)
                while len(bufs[x.rank].encode("utf-8")) >= BUF:
                    raw = bufs[x.rank].encode("utf-8")
                    chunks.append(raw[:BUF].decode("utf-8", "ignore"))
                    bufs[x.rank] = raw[BUF:].decode("utf-8", "ignore")
                    for y in pend[x.rank]:
                        b.shown.append((y, "node"))
                    pend[x.rank] = []
            else:
                chunks.append(s)
                b.shown.append((x, "node"))
        body = "".join(chunks)
        if live and body.endswith("\n") and r.random() < 0.5:
            body = body[:-1]
        d = "%s/" % job.hosts[n] if job.nnodes > 1 else ""
        b.put(d + "job.log", body)
    if job.slurm:
        b.put("slurm-%d.out" % job.jobid, slurm_out(b, cap=cap))
    attach_kernel(b, kernel_nodes(job, 0 if r.random() < 0.6 else 1))


def lay_missing_node(b, sc):
    job, r = b.job, b.job.rng
    gone = job.init_node if job.init_node is not None else r.randrange(1, job.nnodes)
    job.gone = gone
    prefix = r.choice([None, "default"])
    lvl = "rank" if prefix else "node"
    for n in range(job.nnodes):
        if n == gone:
            continue
        b.put("logs/%s.log" % job.hosts[n], render(b, node_console(job, n), lvl, prefix=prefix, cap=job.t_end + 10))
    b.put("slurm-%d.out" % job.jobid, slurm_out(b))
    # sacct view
    st = {"host_oom_kill": ("OUT_OF_ME+", "0:125"), "preemption": ("PREEMPTED" if getattr(job, "preempt", "") == "preempt" else "TIMEOUT", "0:0"),
          "unknown": ("FAILED", "1:0"), "hang": ("FAILED", "1:0"), "crash_signal": ("FAILED", "11:0" if job.launcher == "srun" else "1:0"),
          "network": ("FAILED", "1:0")}.get(job.cause, ("FAILED", "1:0"))
    rows = ["JobID           JobName  Partition    Account  AllocCPUS      State ExitCode ",
            "------------ ---------- ---------- ---------- ---------- ---------- -------- ",
            "%-12d %10s %10s %10s %10d %10s %8s " % (job.jobid, "train", "gpu", "ml-res", job.nnodes * 96, st[0] if st[0] != "OUT_OF_ME+" else "FAILED", "1:0" if st[0] not in ("TIMEOUT", "PREEMPTED") else "0:0"),
            "%-12s %10s %10s %10s %10d %10s %8s " % ("%d.batch" % job.jobid, "batch", "", "ml-res", 96, "FAILED" if st[0] not in ("TIMEOUT", "PREEMPTED") else "CANCELLED", "1:0" if st[0] not in ("TIMEOUT", "PREEMPTED") else "0:15"),
            "%-12s %10s %10s %10s %10d %10s %8s " % ("%d.0" % job.jobid, "torchrun" if job.launcher == "torchrun" else "python", "", "ml-res", job.nnodes * 96, st[0], st[1])]
    if r.random() < 0.7:
        b.put("sacct.txt", "\n".join(rows) + "\n")
    attach_kernel(b, [n for n in kernel_nodes(job, 1) if n != gone])
    b.put("NOTE.txt", "%s was rebooted/reimaged by the time we looked; its local logs are gone.\n" % job.hosts[gone])


def lay_duplicated_copies(b, sc):
    job, r = b.job, b.job.rng
    live = bool(job.alive) or r.random() < 0.3
    cap = live_cap(job, sc) if live else job.t_end + 10
    prefix = r.choice(["default", None])
    lvl = "rank" if prefix else "node"
    names = []
    for n in range(job.nnodes):
        p = "%s.log" % job.hosts[n]
        b.put(p, render(b, node_console(job, n), lvl, prefix=prefix, cap=cap, cut_open=live))
        names.append(p)
    if job.slurm:
        b.put("slurm-%d.out" % job.jobid, slurm_out(b, cap=cap))
        names.append("slurm-%d.out" % job.jobid)
    # duplicates: an identical copy, and an earlier snapshot under another name
    src = r.choice(names[:max(1, job.nnodes)])
    base = src.rsplit(".", 1)[0]
    b.put(r.choice(["%s (1).log" % base, "copy_of_%s" % src, "attachments/%s" % src]), b.files[src])
    src2 = "%s.log" % job.hosts[job.init_node if job.init_node is not None else 0]
    data = b.files[src2]
    if len(data) > 200:
        k = r.randrange(len(data) // 3, len(data) - 50)
        b.put(r.choice(["%s.log.snapshot" % src2[:-4], "%s_earlier.txt" % src2[:-4], "old/%s" % src2]), data[:k])
    if r.random() < 0.5:
        b.put("rank0_train.log", render(b, sel(job, rank=0, sts=(job.log_stream,)), "rank", cap=cap, cut_open=live))
        b.put("rank0_train (copy).log", b.files["rank0_train.log"])
    attach_kernel(b, kernel_nodes(job, 0))


def lay_live_snapshot(b, sc):
    """captured while the job was still running / stuck, before any timeout."""
    job, r = b.job, b.job.rng
    tb = sc.get("t_break")
    if tb is None:
        mt = max(x.t for x in job.lines if x.st != "kern")
        cap = r.uniform(mt - 4 * job.dt, mt)
    else:
        te = max([x.t for x in job.lines if x.ev and x.t < tb + job.timeout_ms / 1000.0 - 5] + [tb])
        lo = max(tb + 60, te + 1)
        hi = tb + job.timeout_ms / 1000.0 - 5
        cap = r.uniform(lo, max(lo + 1, hi))
    prefix = r.choice([None, "default"])
    lvl = "rank" if prefix else "node"
    for n in range(job.nnodes):
        b.put("%s/console.log" % job.hosts[n] if job.nnodes > 1 else "console.log",
              render(b, node_console(job, n), lvl, prefix=prefix, cap=cap + r.uniform(0, 3), cut_open=True))
    kind = sc.get("pyspy")
    if kind and tb is not None:
        ini = job.init_rank
        ranks = sorted({ini} | set(r.sample(range(job.world), min(2, job.world))))
        for rk in ranks:
            if rk in getattr(job, "final", {}) and job.final[rk][0] < cap:
                continue
            k = kind if rk == ini else "wait"
            if rk != ini and kind == "coll":
                k = "wait"
            dump = pyspy_dump(job, rk, k)
            ln = L(cap, job.node_of(rk), rk, "pyspy", "", ev=(rk == ini), nr=True)
            b.shown.append((ln, "rank"))
            b.put("pyspy/%s-rank%d.txt" % (job.hosts[job.node_of(rk)], rk), "\n".join(dump) + "\n")
    attach_kernel(b, [n for n in kernel_nodes(job, 0) if kern_lines(job, n)])
    b.put("captured_at.txt", "snapshot taken %s UTC while job %d was %s\n" %
          (utc(cap).strftime("%Y-%m-%d %H:%M:%S"), job.jobid, "RUNNING"))


LAYOUT_FN = {k: globals()["lay_" + k] for k in LAYOUTS}


# --------------------------------------------------------------------------
# truth + driver
# --------------------------------------------------------------------------
def initiator(b):
    job = b.job
    if job.healthy or (job.init_rank is None and job.init_node is None):
        return None
    evs = [(ln, lvl) for ln, lvl in b.shown if ln.ev]
    rk = job.init_rank is not None and any(lvl == "rank" or ln.nr for ln, lvl in evs)
    nd = rk or any(lvl in ("rank", "node") or ln.nn for ln, lvl in evs)
    if job.nnodes == 1 and evs:
        nd = True
    if job.layout == "missing_node" and job.init_node is not None and \
            job.cause in ("host_oom_kill", "unknown", "crash_signal"):
        # the peers' view (srun/sacct/desync report/NOTE) names the lost host
        nd = nd or any(ln.st == "slurm" and job.hosts[job.init_node] in ln.text for ln, _ in b.shown)
    if not rk and not nd:
        return None
    return {"rank": job.init_rank if rk else None,
            "node": job.hosts[job.init_node] if nd and job.init_node is not None else None}


def build(seed, i, cause, layout):
    rng = random.Random("blind48|%s|%d|%s|%s" % (seed, i, cause, layout))
    healthy = cause is None
    job = Job(rng, i, cause, layout, healthy)
    job.kfmt = rng.choice(["dmesg", "kernlog", "journal"])
    if layout == "buffered_stdout":
        job.log_stream = "out"
    if layout == "missing_node" and cause == "crash_signal":
        job.launcher = "srun"
        job.slurm = True
    if layout == "live_snapshot":
        job.timeout_ms = max(job.timeout_ms, 600000)
    gen_startup(job)
    sc = SCEN[cause](job) if cause else sc_healthy(job)
    finish(job, sc)
    gen_noise_kernel(job, job.t0, job.t_end)
    prep(job)
    b = Bundle(job)
    LAYOUT_FN[layout](b, sc)
    truth = {"healthy": healthy, "cause": cause, "initiator": initiator(b), "layout": layout,
             "notes": "; ".join(job.notes) + " | %d node(s) x %d GPU, launcher=%s, torch %s" %
             (job.nnodes, job.gpn, job.launcher, ".".join(map(str, job.tv)))}
    if layout == "missing_node":
        truth["notes"] += " | logs of %s missing" % job.hosts[job.gone]
    return b, truth


def plan(n, seed):
    rng = random.Random("blind48-plan|%s" % seed)
    order = list(CAUSES)
    rng.shuffle(order)
    comp = {c: [l for l in LAYOUTS if c in LAYOUT_CAUSES[l]] for c in CAUSES}
    off = {c: rng.randrange(len(comp[c])) for c in CAUSES}
    hl = ["live_snapshot", "rotated_node_log", "partial_rank_logs", "duplicated_copies",
          "live_snapshot", "interleaved_console", "buffered_stdout", "disk_full"]
    hoff = rng.randrange(len(hl))
    seen = {c: 0 for c in CAUSES}
    out = []
    k = h = 0
    for i in range(n):
        if i % 7 == 3:
            out.append((None, hl[(h + hoff) % len(hl)]))
            h += 1
            continue
        c = order[k % len(order)]
        k += 1
        lay = comp[c][(seen[c] + off[c]) % len(comp[c])]
        seen[c] += 1
        out.append((c, lay))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    counts = {}
    for i, (cause, layout) in enumerate(plan(a.n, a.seed)):
        b, truth = build(a.seed, i, cause, layout)
        d = os.path.join(a.out, "run-%03d-%s" % (i, layout))
        os.makedirs(d, exist_ok=True)
        for p in sorted(b.files):
            fp = os.path.join(d, p)
            os.makedirs(os.path.dirname(fp), exist_ok=True)
            with open(fp, "wb") as f:
                f.write(b.files[p])
        with open(os.path.join(d, "truth.json"), "w") as f:
            json.dump(truth, f, indent=2)
            f.write("\n")
        key = cause or "healthy"
        counts[key] = counts.get(key, 0) + 1
    print(json.dumps({k: counts[k] for k in sorted(counts)}, indent=1))


if __name__ == "__main__":
    main()
