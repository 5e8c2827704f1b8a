#!/usr/bin/env python3
"""blind43 - synthetic log bundles of failed / healthy pipeline-parallel and
point-to-point (send/recv, batch_isend_irecv, KV-cache transfer) GPU jobs.

Written blind (no access to the diagnosis tool).  Standard library only.

    python3 gen_blind43.py --out DIR --n 60 --seed 1
"""
import argparse
import datetime as _dt
import json
import os
import random
import sys

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill",
          "crash_signal", "preemption", "hang", "data_loader_stall",
          "collective_mismatch", "straggler", "unknown"]

LAYOUTS = {
    "megatron-slurm": list(CAUSES),
    "deepspeed-pdsh": list(CAUSES),
    "titan-torchrun": list(CAUSES),
    "pippy-k8s": list(CAUSES),
    "issue-paste": list(CAUSES),
    "vllm-disagg": [c for c in CAUSES if c != "data_loader_stall"],
}
LAYOUT_ORDER = ["megatron-slurm", "deepspeed-pdsh", "titan-torchrun",
                "pippy-k8s", "issue-paste", "vllm-disagg"]

MON = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
       "Nov", "Dec"]
DOW = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]


# --------------------------------------------------------------------------
# time helpers
# --------------------------------------------------------------------------
def dtm(t):
    return _dt.datetime.fromtimestamp(t, _dt.timezone.utc).replace(tzinfo=None)


def f_iso(t):           # 2025-01-10 10:23:45
    return dtm(t).strftime("%Y-%m-%d %H:%M:%S")


def f_iso_ms(t):        # 2025-01-10 10:23:45,123
    d = dtm(t)
    return d.strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (d.microsecond // 1000)


def f_glog(t, ns=True):  # 0110 10:23:45.123456789
    d = dtm(t)
    frac = "%06d" % d.microsecond
    if ns:
        frac += "%03d" % (int(t * 1e9) % 1000)
    return d.strftime("%m%d %H:%M:%S.") + frac


def f_slurm(t):         # 2025-01-10T10:23:45
    return dtm(t).strftime("%Y-%m-%dT%H:%M:%S")


def f_dmesg_T(t):       # Fri Jan 10 10:23:45 2025
    d = dtm(t)
    return "%s %s %2d %s %d" % (DOW[d.weekday()], MON[d.month - 1], d.day,
                                d.strftime("%H:%M:%S"), d.year)


def f_syslog(t):        # Jan 10 10:23:45
    d = dtm(t)
    return "%s %2d %s" % (MON[d.month - 1], d.day, d.strftime("%H:%M:%S"))


def f_vllm(t):          # 01-10 10:23:45
    return dtm(t).strftime("%m-%d %H:%M:%S")


def f_elastic(t):       # 2025-01-10_10:23:45
    return dtm(t).strftime("%Y-%m-%d_%H:%M:%S")


# --------------------------------------------------------------------------
# the job model
# --------------------------------------------------------------------------
class Job:
    """Topology + clocks + collected output of one simulated run."""

    def __init__(self, rng, layout, cause, healthy):
        self.rng = rng
        self.layout = layout
        self.cause = cause
        self.healthy = healthy
        r = rng
        self.t0 = 1704067200 + r.randint(0, 420 * 86400) + r.random()
        tv = r.choice([("2.1.2", "old", "2.18.6"), ("2.3.1", "new", "2.20.5"),
                       ("2.4.1", "new", "2.20.5"), ("2.5.1", "new", "2.21.5"),
                       ("2.6.0", "new", "2.21.5")])
        self.torch_ver, self.cstyle, self.nccl_ver = tv
        self.cuda_ver = r.choice(["12.1", "12.4", "12.6"])
        self.py = r.choice(["3.10", "3.11"])
        self.site = ("/usr/local/lib/python%s/dist-packages" % self.py
                     if r.random() < 0.6 else
                     "/opt/conda/envs/train/lib/python%s/site-packages" % self.py)
        self.timeout_s = r.choice([600, 600, 600, 1800, 1200, 300])
        self.lines = {}        # rank -> [(t, stream, text)]
        self.agent = {}        # node -> [(t, text)]
        self.kernel = {}       # node -> [(t, text)]
        self.exit = {}         # rank -> (t, code)  code<0 => signal
        self.files = {}        # relpath -> text
        self.notes = []
        self.initiator = None
        self.init = None
        self.end_t = self.t0 + 3600
        self.wd_info = {}
        self.nccl_ranks = []
        self.pyspy_ranks = []
        self.hang_kind = None
        self.truth_rank = None
        self.truth_node = None
        self.nodefail = {}
        self.global_kill = None
        self.gpu_name = r.choice(["NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB",
                                  "NVIDIA H100 80GB HBM3", "NVIDIA H200"])
        self.mem_gib = {"NVIDIA H100 80GB HBM3": 79.11, "NVIDIA A100-SXM4-80GB": 79.15,
                        "NVIDIA H200": 139.81}[self.gpu_name]

    # topology ------------------------------------------------------------
    def set_topology(self, hosts, gpn, pp, tp, dp, order):
        """order: 'megatron' (tp fastest, then dp, pp outermost) or
        'pipe_data' (dp fastest, pp outermost, tp=1)"""
        self.hosts = hosts
        self.gpn = gpn
        self.pp, self.tp, self.dp = pp, tp, dp
        self.world = pp * tp * dp
        assert self.world == len(hosts) * gpn, (self.world, len(hosts), gpn)
        self.order = order
        r = self.rng
        busids = ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"] if r.random() < 0.5 else \
                 ["19", "3b", "4c", "5d", "9b", "bb", "cb", "db"]
        self.busid = busids[:gpn] if gpn <= 8 else busids
        self.ip = {}
        base = r.randint(1, 200)
        sub = r.choice(["10.12", "172.16", "10.200", "192.168"])
        for i, h in enumerate(hosts):
            self.ip[h] = "%s.%d.%d" % (sub, base + i // 250, (r.randint(2, 40) * 4 + i) % 254 + 1)
        self.skew = {}
        for i, h in enumerate(hosts):
            s = r.uniform(-2.5, 2.5)
            if r.random() < 0.12:
                s += r.choice([-1, 1]) * r.uniform(20, 140)
            self.skew[h] = 0.0 if i == 0 else s
        self.boot = {h: self.t0 - r.uniform(2e5, 4e6) for h in hosts}
        self.pid = {}
        for i, h in enumerate(hosts):
            p0 = r.randint(3000, 250000)
            for lr in range(gpn):
                self.pid[i * gpn + lr] = p0 + lr * r.choice([1, 1, 2, 7])
        self.agent_pid = {h: r.randint(1000, 3000) for h in hosts}
        self.nics = r.choice([["mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"],
                              ["mlx5_%d" % i for i in range(8)],
                              ["mlx5_ib%d" % i for i in range(8)]])
        self.netdev = r.choice(["ibp%ss0" % b for b in ["12", "24", "75", "134"]] +
                               ["enp%ds0np0" % b for b in [12, 24, 75]])
        self.fabric = r.choice(["IB", "IB", "IB", "RoCE", "Socket"])

    def node_of(self, rank):
        return self.hosts[rank // self.gpn]

    def local(self, rank):
        return rank % self.gpn

    def coords(self, rank):
        if self.order == "megatron":
            tp = rank % self.tp
            dp = (rank // self.tp) % self.dp
            pp = rank // (self.tp * self.dp)
        else:
            tp = 0
            dp = rank % self.dp
            pp = rank // self.dp
        return pp, dp, tp

    def rank_of(self, pp, dp, tp):
        if self.order == "megatron":
            return pp * self.tp * self.dp + dp * self.tp + tp
        return pp * self.dp + dp

    def stage(self, rank):
        return self.coords(rank)[0]

    def next_rank(self, rank):
        pp, dp, tp = self.coords(rank)
        return self.rank_of(pp + 1, dp, tp) if pp + 1 < self.pp else None

    def prev_rank(self, rank):
        pp, dp, tp = self.coords(rank)
        return self.rank_of(pp - 1, dp, tp) if pp > 0 else None

    def ranks_of_node(self, host):
        i = self.hosts.index(host)
        return list(range(i * self.gpn, (i + 1) * self.gpn))

    def pci(self, rank):
        return "0000:%s:00" % self.busid[self.local(rank)]

    # clocks --------------------------------------------------------------
    def lt(self, t, host):
        return t + self.skew.get(host, 0.0)

    # output collection ----------------------------------------------------
    def out(self, rank, t, text, stream="out"):
        self.lines.setdefault(rank, []).append((t, stream, text))

    def err(self, rank, t, text):
        self.out(rank, t, text, "err")

    def ag(self, host, t, text):
        self.agent.setdefault(host, []).append((t, text))

    def kmsg(self, host, t, text):
        self.kernel.setdefault(host, []).append((t, text))

    def alive(self, rank, t):
        e = self.exit.get(rank)
        return e is None or e[0] > t

    def set_exit(self, rank, t, code):
        if rank not in self.exit or self.exit[rank][0] > t:
            self.exit[rank] = (t, code)


# --------------------------------------------------------------------------
# message blocks shared by the layouts
# --------------------------------------------------------------------------
def cpp_prefix(job, rank, t, sev, src):
    host = job.node_of(rank) if rank is not None and rank < job.world else job.hosts[0]
    if job.cstyle == "old":
        return "[%s %s] " % (sev, src)
    return "[rank%d]:[%s%s %s] " % (rank, sev, f_glog(job.lt(t, host)), src)


def nccl_prefix(job, rank, tid=None):
    host = job.node_of(rank)
    if tid is None:
        tid = job.pid[rank] + 37
    return "%s:%d:%d [%d] " % (host, job.pid[rank], tid, job.local(rank))


def nccl_init_lines(job, rank, t, comm_ranks=None, p2p_peers=()):
    """NCCL_DEBUG=INFO output of one rank: version banner, init, P2P/net setup."""
    r = job.rng
    p = nccl_prefix(job, rank)
    lr = job.local(rank)
    host = job.node_of(rank)
    out = []
    if rank % job.gpn == 0:
        out.append(p + "NCCL INFO Bootstrap : Using %s:%s<0>" % (
            "eth0" if job.fabric != "Socket" else "ens3", job.ip[host]))
        out.append(p + "NCCL INFO NET/Plugin: No plugin found (libnccl-net.so)")
        out.append(p + "NCCL INFO NET/Plugin: Plugin load returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory : when loading libnccl-net.so")
        out.append(p + "NCCL INFO cudaDriverVersion %d" % r.choice([12020, 12040, 12060]))
        if rank == 0:
            out.append(p + "NCCL INFO NCCL version %s+cuda%s" % (job.nccl_ver, job.cuda_ver))
    if job.fabric == "Socket":
        out.append(p + "NCCL INFO NET/IB : No device found.")
        out.append(p + "NCCL INFO NET/Socket : Using [0]eth0:%s<0>" % job.ip[host])
        out.append(p + "NCCL INFO Using network Socket")
    else:
        kind = "RoCE" if job.fabric == "RoCE" else "IB"
        devs = " ".join("[%d]%s:1/%s" % (i, n, kind) for i, n in enumerate(job.nics[:4]))
        out.append(p + "NCCL INFO NET/IB : Using %s [RO]; OOB eth0:%s<0>" % (devs, job.ip[host]))
        out.append(p + "NCCL INFO Using network IB")
    n = len(comm_ranks) if comm_ranks else job.world
    grank = comm_ranks.index(rank) if comm_ranks else rank
    commid = "0x%016x" % r.getrandbits(64)
    comm = "0x%x" % r.randint(0x55d000000000, 0x55dfffffffff)
    out.append(p + "NCCL INFO ncclCommInitRank comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId %s - Init START"
               % (comm, grank, n, lr, lr, job.busid[lr], commid))
    out.append(p + "NCCL INFO Setting affinity for GPU %d to %s" % (lr, r.choice(["ffffffff,00000000,ffffffff", "ff,ffff0000,00000000", "ffffffff,ffffffff"])))
    out.append(p + "NCCL INFO comm %s rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL 0" % (
        comm, grank, n, max(1, n // job.gpn), min(n, job.gpn), lr))
    out.append(p + "NCCL INFO Channel 00/%02d :    0   1   2   3" % r.choice([16, 24, 32]))
    out.append(p + "NCCL INFO Trees [0] %d/-1/-1->%d->%d [1] %d/-1/-1->%d->%d" % (
        (grank + 1) % n, grank, grank - 1 if grank else -1, (grank + 1) % n, grank, grank - 1 if grank else -1))
    out.append(p + "NCCL INFO P2P Chunksize set to 524288")
    for peer, direction in p2p_peers:
        via_net = job.node_of(peer) != host
        for ch in range(r.choice([1, 2, 2, 4])):
            if direction == "send":
                a, b = rank, peer
            else:
                a, b = peer, rank
            if via_net:
                tr = "NET/Socket/0" if job.fabric == "Socket" else "NET/IB/%d/GDRDMA" % (lr // 2)
                out.append(p + "NCCL INFO Channel %02d/1 : %d[%d] -> %d[%d] [%s] via %s" % (
                    ch, a, job.local(a), b, job.local(b), "send" if direction == "send" else "receive", tr))
            else:
                tr = r.choice(["P2P/IPC", "P2P/CUMEM/read", "P2P/IPC/read"])
                out.append(p + "NCCL INFO Channel %02d/1 : %d[%d] -> %d[%d] via %s" % (
                    ch, a, job.local(a), b, job.local(b), tr))
    out.append(p + "NCCL INFO Connected all rings")
    out.append(p + "NCCL INFO Connected all trees")
    out.append(p + "NCCL INFO threadThresholds 8/8/64 | 256/8/64 | 512 | 512")
    out.append(p + "NCCL INFO %d coll channels, 0 collnet channels, 0 nvls channels, %d p2p channels, %d p2p channels per peer" % (
        r.choice([16, 24, 32]), r.choice([32, 64]), r.choice([1, 2, 4])))
    out.append(p + "NCCL INFO ncclCommInitRank comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId %s - Init COMPLETE"
               % (comm, grank, n, lr, lr, job.busid[lr], commid))
    for i, ln in enumerate(out):
        job.out(rank, t + i * 0.002, ln)
    return t + len(out) * 0.002


def p2p_connect_lines(job, rank, t, peer, direction):
    """lazy P2P connection lines printed at the first send/recv."""
    r = job.rng
    p = nccl_prefix(job, rank, job.pid[rank] + 61)
    host = job.node_of(rank)
    lines = []
    for ch in range(r.choice([1, 2])):
        a, b = (rank, peer) if direction == "send" else (peer, rank)
        if job.node_of(peer) != host:
            tr = "NET/Socket/0" if job.fabric == "Socket" else "NET/IB/%d/GDRDMA" % (job.local(rank) // 2)
            lines.append(p + "NCCL INFO Channel %02d/1 : %d[%d] -> %d[%d] [%s] via %s" % (
                ch, a, job.local(a), b, job.local(b), "send" if direction == "send" else "receive", tr))
        else:
            lines.append(p + "NCCL INFO Channel %02d/1 : %d[%d] -> %d[%d] via P2P/IPC" % (
                ch, a, job.local(a), b, job.local(b)))
    for i, ln in enumerate(lines):
        job.out(rank, t + i * 0.001, ln)


def watchdog_block(job, rank, t, seq, optype, numel_in, numel_out, pg=None,
                   ran_extra=None, stack=True, last_enq=None):
    """Lines printed by ProcessGroupNCCL when a work item times out, then abort."""
    r = job.rng
    to = job.timeout_s * 1000
    ran = to + (ran_extra if ran_extra is not None else r.randint(3, 900))
    pg_id, pg_name, grank = pg if pg else (0, "default_pg", rank)
    work = "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (
        seq, optype, numel_in, numel_out, to)
    L = []
    if job.cstyle == "old":
        L.append(cpp_prefix(job, rank, t, "E", "ProcessGroupNCCL.cpp:475") +
                 "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (grank, work, ran))
        L.append(cpp_prefix(job, rank, t, "E", "ProcessGroupNCCL.cpp:489") +
                 "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.")
        L.append(cpp_prefix(job, rank, t, "E", "ProcessGroupNCCL.cpp:495") +
                 "To avoid data inconsistency, we are taking the entire process down.")
        L.append(cpp_prefix(job, rank, t, "E", "ProcessGroupNCCL.cpp:916") +
                 "[Rank %d] NCCL watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (grank, grank, work, ran))
        what = "[Rank %d] NCCL watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (grank, grank, work, ran)
        exc = "std::runtime_error"
    else:
        pgs = "[PG ID %d PG GUID %d(%s) Rank %d]" % (pg_id, pg_id, pg_name, grank)
        L.append(cpp_prefix(job, rank, t, "E", "ProcessGroupNCCL.cpp:616") +
                 "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (grank, work, ran))
        le = last_enq if last_enq is not None else seq
        L.append(cpp_prefix(job, rank, t + 0.0003, "E", "ProcessGroupNCCL.cpp:1785") +
                 "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pgs, seq, le, seq - 1))
        if r.random() < 0.6:
            L.append(cpp_prefix(job, rank, t + 0.0004, "E", "ProcessGroupNCCL.cpp:1834") +
                     "%s Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pgs, seq, le, seq - 1))
        L.append(cpp_prefix(job, rank, t + 0.0005, "E", "ProcessGroupNCCL.cpp:630") +
                 "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % grank)
        L.append(cpp_prefix(job, rank, t + 0.0006, "E", "ProcessGroupNCCL.cpp:636") +
                 "[Rank %d] To avoid data inconsistency, we are taking the entire process down." % grank)
        if r.random() < 0.5:
            L.append(cpp_prefix(job, rank, t + 0.001, "E", "ProcessGroupNCCL.cpp:1595") +
                     "%s Process group watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (pgs, grank, work, ran))
        what = "%s Process group watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (pgs, grank, work, ran)
        exc = "c10::DistBackendError"
    for ln in L:
        job.err(rank, t, ln)
    if stack:
        job.err(rank, t + 0.002, cxx_stack(job, "checkTimeout") +
                "\nterminate called after throwing an instance of '%s'\n  what():  %s" % (exc, what))
    job.set_exit(rank, t + r.uniform(0.05, 1.5), -6)


def cxx_stack(job, where):
    r = job.rng
    lib = job.site + "/torch/lib/"
    fr = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "libc10.so"),
          ("c10d::ProcessGroupNCCL::WorkNCCL::%s(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2" % where, "libtorch_cuda.so"),
          ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x233", "libtorch_cuda.so"),
          ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", "libtorch_cuda.so"),
          ("<unknown function> + 0xdc253", "libstdc++.so.6"),
          ("<unknown function> + 0x94ac3", "libc.so.6"),
          ("<unknown function> + 0x126850", "libc.so.6")]
    s = ["Exception raised from %s at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % (where, r.choice([565, 618, 632]))]
    for i, (fn, so) in enumerate(fr):
        path = (lib + so) if so.startswith("lib") and "torch" in so or so == "libc10.so" else "/lib/x86_64-linux-gnu/" + so
        s.append("frame #%d: %s (0x7f%010x in %s)" % (i, fn, r.getrandbits(36), path))
    return "\n".join(s) + "\n"


def ib_error_text(job, rank, peer, direction):
    r = job.rng
    host, phost = job.node_of(rank), job.node_of(peer)
    port = r.randint(30000, 60999)
    hca = job.nics[job.local(rank) // 2 % len(job.nics)]
    if job.fabric == "Socket":
        return r.choice([
            "socketProgressOpt: Call to recv from %s<%d> failed : Connection reset by peer" % (job.ip[phost], port),
            "socketProgress: Connection closed by remote peer %s<%d>" % (phost, port)])
    if job.nccl_ver >= "2.19":
        return ("NET/IB : Got completion from peer %s<%d> with status=transport retry counter exceeded(12) opcode=%d len=0 vendor err 129 (%s) localGid ::ffff:%s remoteGids ::ffff:%s hca %s"
                % (job.ip[phost], port, 0 if direction == "send" else 128, "Send" if direction == "send" else "Recv",
                   job.ip[host], job.ip[phost], hca))
    return ("NET/IB : Got completion from peer %s<%d> with error 12, opcode %d, len 0, vendor err 129 (%s)"
            % (job.ip[phost], port, 0 if direction == "send" else 128, "Send" if direction == "send" else "Recv"))


def remote_error_block(job, rank, t, peer, direction, pg=None):
    """NCCL async error on a rank whose p2p peer vanished (process exit or NIC)."""
    r = job.rng
    p = nccl_prefix(job, rank, job.pid[rank] + r.choice([97, 112, 230]))
    msg = ib_error_text(job, rank, peer, direction)
    src = "misc/socket.cc:%d" % r.choice([50, 484, 558]) if job.fabric == "Socket" else "transport/net_ib.cc:%d" % r.choice([1696, 2037, 2263])
    job.err(rank, t, "\n" + p + "%s NCCL WARN %s" % (src, msg))
    job.err(rank, t + 0.001, p + "NCCL INFO transport/net.cc:%d -> 6" % r.choice([1175, 1302]))
    job.err(rank, t + 0.001, p + "NCCL INFO proxy.cc:%d -> 6" % r.choice([694, 863]))
    job.err(rank, t + 0.002, p + "NCCL INFO proxy.cc:%d -> 6 [Progress Thread]" % r.choice([878, 1045]))
    pg_id, pg_name, grank = pg if pg else (0, "default_pg", rank)
    errtxt = ("NCCL error: remote process exited or there was a network error, NCCL version %s\n"
              "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\n"
              "Last error:\n%s" % (job.nccl_ver, msg))
    if job.cstyle == "old":
        job.err(rank, t + 0.3, cpp_prefix(job, rank, t + 0.3, "E", "ProcessGroupNCCL.cpp:916") +
                "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (grank, errtxt))
    else:
        job.err(rank, t + 0.3, cpp_prefix(job, rank, t + 0.3, "E", "ProcessGroupNCCL.cpp:1595") +
                "[PG ID %d PG GUID %d(%s) Rank %d] Process group watchdog thread terminated with exception: %s" % (pg_id, pg_id, pg_name, grank, errtxt))
    job.err(rank, t + 0.31, cxx_stack(job, "checkForNCCLErrors") +
            "\nterminate called after throwing an instance of 'c10::DistBackendError'\n  what():  %s" % errtxt.split("\n")[0])
    job.set_exit(rank, t + r.uniform(0.3, 2.0), -6)


def py_tb(job, frames, exc_line, rank_prefix=None):
    """frames: list of (file, line, func, code)."""
    s = ["Traceback (most recent call last):"]
    for f, ln, fn, code in frames:
        s.append('  File "%s", line %d, in %s' % (f, ln, fn))
        if code:
            s.append("    " + code)
    s.extend(exc_line.split("\n"))
    if rank_prefix:
        s = [rank_prefix + x for x in s]
    return "\n".join(s)


OOM_TXT = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {req} GiB. GPU {lr} has a total capacity of {tot:.2f} GiB of which {free} MiB is free. "
           "Including non-PyTorch memory, this process has {used:.2f} GiB memory in use. Of the allocated memory {alloc:.2f} GiB is allocated by PyTorch, and {res:.2f} MiB is reserved by PyTorch but unallocated. "
           "If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")
OOM_TXT_OLD = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate {req} GiB (GPU {lr}; {tot:.2f} GiB total capacity; {alloc:.2f} GiB already allocated; {free} MiB free; {used:.2f} GiB reserved in total by PyTorch) "
               "If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF")


def oom_text(job, rank):
    r = job.rng
    tot = job.mem_gib
    alloc = tot - r.uniform(2.5, 6)
    d = dict(req="%.2f" % r.choice([1.0, 1.96, 2.0, 3.91, 4.0, 7.81]), lr=job.local(rank), tot=tot,
             free=r.randint(100, 900), used=tot - 0.4, alloc=alloc, res=r.uniform(80, 1900))
    return (OOM_TXT_OLD if job.cstyle == "old" else OOM_TXT).format(**d)


CUDA_TAIL = ("\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
             "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
             "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n")


def dmesg_line(job, host, t, text, style):
    lt = job.lt(t, host)
    if style == "raw":
        return "[%12.6f] %s" % (lt - job.boot[host], text)
    if style == "T":
        return "[%s] %s" % (f_dmesg_T(lt), text)
    return "%s %s kernel: %s" % (f_syslog(lt), host, text)


def render_kernel(job, host, style, noise=True):
    r = job.rng
    ev = list(job.kernel.get(host, []))
    if noise:
        tt = job.t0 - r.uniform(100, 3000)
        for i in range(r.randint(3, 8)):
            tt += r.uniform(30, 900)
            ev.append((tt, r.choice([
                "IPv6: ADDRCONF(NETDEV_CHANGE): veth%x: link becomes ready" % r.getrandbits(24),
                "nvidia-nvswitch0: open (major=510)",
                "audit: type=1400 audit(%d.%03d:%d): apparmor=\"DENIED\" operation=\"open\" profile=\"snap.lxd\" name=\"/proc/%d/mounts\"" % (int(tt), r.randint(0, 999), r.randint(100, 999), r.randint(1000, 9999)),
                "NFSD: Using UMH upcall client tracking operations.",
                "nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid context, skipping further processing",
                "Lustre: lustre-OST0004-osc-ffff9c2a3c5e1000: Connection restored to 10.20.0.14@o2ib (at 10.20.0.14@o2ib)",
                "EXT4-fs (nvme0n1p1): mounted filesystem with ordered data mode. Quota mode: none.",
                "docker0: port 1(veth%x) entered forwarding state" % r.getrandbits(20),
                "mlx5_core 0000:%s:00.0: mlx5_pcie_event:299:(pid %d): PCIe slot advertised sufficient power (75W)." % (r.choice(job.busid), r.randint(100, 900)),
            ])))
    ev.sort(key=lambda x: x[0])
    return "\n".join(dmesg_line(job, host, t, x, style) for t, x in ev) + "\n"


# --------------------------------------------------------------------------
# framework profiles (what the training scripts print / where they block)
# --------------------------------------------------------------------------
class FW:
    def __init__(self, job, name):
        self.job, self.name = job, name
        r = job.rng
        if name == "megatron":
            self.root = r.choice(["/workspace/Megatron-LM", "/opt/megatron-lm", "/lustre/fsw/llm/users/%s/Megatron-LM" % r.choice(["jdoe", "akumar", "mli"])])
            self.script = "pretrain_gpt.py"
            self.optype = "COALESCED" if r.random() < 0.65 else "RECV"
            self.sched = r.choice(["1F1B", "interleaved 1F1B"])
        elif name == "deepspeed":
            self.root = r.choice(["/home/ubuntu/llm-train", "/workspace/gpt-neox", "/mnt/code/ds_pipe"])
            self.script = r.choice(["train.py", "train_pipe.py"])
            self.optype = "RECV"
            self.sched = "TrainSchedule (1F1B)"
        elif name == "titan":
            self.root = "/workspace/torchtitan"
            self.script = "torchtitan/train.py"
            self.optype = "COALESCED"
            self.sched = r.choice(["1F1B", "Interleaved1F1B", "ZBVZeroBubble", "GPipe", "InterleavedZeroBubble"])
        elif name == "pippy":
            self.root = r.choice(["/app", "/workspace/pp-train"])
            self.script = r.choice(["pp_train.py", "train_pipeline.py"])
            self.optype = "COALESCED"
            self.sched = r.choice(["ScheduleGPipe", "Schedule1F1B", "ScheduleInterleaved1F1B", "ScheduleInterleavedZeroBubble"])
        else:  # custom
            self.root = r.choice(["/home/%s/mp_proj" % r.choice(["alex", "wei", "sam"]), "/data/exp/pipe"])
            self.script = r.choice(["train_mp.py", "pipe_train.py", "run_stage.py"])
            self.optype = r.choice(["RECV", "SEND"])
            self.sched = "manual send/recv"

    def f(self, rel):
        return self.root + "/" + rel

    def tf(self, rel):
        return self.job.site + "/" + rel

    def base_frames(self):
        j = self.job
        if self.name == "megatron":
            return [(self.f("pretrain_gpt.py"), 265, "<module>", "pretrain("),
                    (self.f("megatron/training/training.py"), 360, "pretrain", "iteration, num_floating_point_operations_so_far = train("),
                    (self.f("megatron/training/training.py"), 1268, "train", "train_step(forward_step_func,"),
                    (self.f("megatron/training/training.py"), 730, "train_step", "losses_reduced = forward_backward_func("),
                    (self.f("megatron/core/pipeline_parallel/schedules.py"),
                     1322 if self.sched == "1F1B" else 878,
                     "forward_backward_pipelining_without_interleaving" if self.sched == "1F1B" else "forward_backward_pipelining_with_interleaving",
                     "output_tensor, num_tokens = forward_step(" if self.sched == "1F1B" else "output_tensor = forward_step_helper(")]
        if self.name == "deepspeed":
            return [(self.f(self.script), 212, "<module>", "main()"),
                    (self.f(self.script), 188, "main", "loss = engine.train_batch(data_iter=train_iter)"),
                    (self.tf("deepspeed/runtime/pipe/engine.py"), 388, "train_batch", "self._exec_schedule(sched)"),
                    (self.tf("deepspeed/runtime/pipe/engine.py"), 1434, "_exec_schedule", "self._exec_instr(**cmd.kwargs)")]
        if self.name == "titan":
            return [(self.f("torchtitan/train.py"), 579, "<module>", "trainer.train()"),
                    (self.tf("torch/distributed/elastic/multiprocessing/errors/__init__.py"), 355, "wrapper", "return f(*args, **kwargs)"),
                    (self.f("torchtitan/train.py"), 491, "train", "self.train_step(data_iterator)"),
                    (self.f("torchtitan/train.py"), 419, "train_step", "loss = self.forward_backward_step(input_dict, labels)"),
                    (self.f("torchtitan/train.py"), 363, "forward_backward_step", "self.pp_schedule.step("),
                    (self.tf("torch/distributed/pipelining/schedules.py"), 1404, "step", "self._step_microbatches(args_split, kwargs_split, targets_split, losses)")]
        if self.name == "pippy":
            return [(self.f(self.script), 171, "<module>", "main()"),
                    (self.f(self.script), 143, "main", "out = schedule.step(x, target=y, losses=losses)" if True else ""),
                    (self.tf("torch/distributed/pipelining/schedules.py"), 1404, "step", "self._step_microbatches(args_split, kwargs_split, targets_split, losses)")]
        return [(self.f(self.script), 133, "<module>", "train(args)"),
                (self.f(self.script), 98, "train", "x = stage.forward_step(step)")]

    def p2p_frames(self, recv=True):
        if self.name == "megatron":
            return self.base_frames() + [
                (self.f("megatron/core/pipeline_parallel/schedules.py"), 1296, "forward_backward_pipelining_without_interleaving",
                 "input_tensor = recv_forward(recv_tensor_shapes, config)" if recv else "send_forward(output_tensor, send_tensor_shapes, config)"),
                (self.f("megatron/core/pipeline_parallel/p2p_communication.py"), 422, "recv_forward" if recv else "send_forward", "input_tensor, _, _ = _communicate(" if recv else "_communicate("),
                (self.f("megatron/core/pipeline_parallel/p2p_communication.py"), 365, "_communicate", "reqs = p2p_func("),
                (self.f("megatron/core/pipeline_parallel/p2p_communication.py"), 168, "_batched_p2p_ops", "reqs = torch.distributed.batch_isend_irecv(ops)")]
        if self.name == "deepspeed":
            return self.base_frames() + [
                (self.tf("deepspeed/runtime/pipe/engine.py"), 1112 if recv else 1041, "_exec_recv_activations" if recv else "_exec_send_activations",
                 "p2p.recv(buffer, self.prev_stage)" if recv else "p2p.send(outputs, self.next_stage)"),
                (self.tf("deepspeed/runtime/pipe/p2p.py"), 82 if recv else 62, "recv" if recv else "send",
                 "return dist.recv(tensor, src_rank)" if recv else "return dist.send(tensor, dest_rank)")]
        if self.name in ("titan", "pippy"):
            return self.base_frames() + [
                (self.tf("torch/distributed/pipelining/schedules.py"), 1289, "_step_microbatches", "_wait_batch_p2p(fwd_recv_ops.pop(fwd_mb_index))" if recv else "ops = stage.get_fwd_send_ops(fwd_mb_index)"),
                (self.tf("torch/distributed/pipelining/schedules.py"), 128, "_wait_batch_p2p", "work.wait()")]
        return self.base_frames() + [
            (self.f("stage.py"), 57, "forward_step", "dist.recv(self.buf_in, src=self.prev_rank)" if recv else "dist.send(out, dst=self.next_rank)"),
            (self.tf("torch/distributed/c10d_logger.py"), 83, "wrapper", "return func(*args, **kwargs)"),
            (self.tf("torch/distributed/distributed_c10d.py"), 2246 if recv else 2192, "recv" if recv else "send",
             "pg.recv([tensor], group_src_rank, tag).wait()" if recv else "default_pg.send([tensor], dst, tag).wait()")]

    def compute_frames(self, last_stage=False):
        if self.name == "megatron":
            fr = self.base_frames() + [
                (self.f("megatron/core/pipeline_parallel/schedules.py"), 275, "forward_step", "output_tensor, loss_func = forward_step_func(data_iterator, model)"),
                (self.f("pretrain_gpt.py"), 204, "forward_step", "output_tensor = model(tokens, position_ids, attention_mask,"),
                (self.tf("torch/nn/modules/module.py"), 1736, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
                (self.f("megatron/core/models/gpt/gpt_model.py"), 249, "forward", "hidden_states = self.decoder("),
                (self.f("megatron/core/transformer/transformer_block.py"), 480, "forward", "hidden_states, context = layer("),
                (self.f("megatron/core/transformer/transformer_layer.py"), 393, "forward", "mlp_output_with_bias = self.mlp(pre_mlp_layernorm_output)")]
            return fr
        if self.name == "deepspeed":
            return self.base_frames() + [
                (self.tf("deepspeed/runtime/pipe/engine.py"), 798, "_exec_forward_pass", "outputs = super().forward(inputs)"),
                (self.tf("deepspeed/runtime/engine.py"), 1899, "forward", "loss = self.module(*inputs, **kwargs)"),
                (self.tf("deepspeed/runtime/pipe/module.py"), 364, "forward", "x = exec_range_func(start_idx, end_idx)(*x)"),
                (self.tf("deepspeed/runtime/pipe/module.py"), 343, "exec_func", "inputs = layer(inputs)"),
                (self.f("model/blocks.py"), 118, "forward", "h = self.mlp(self.ln_2(x))")]
        if self.name in ("titan", "pippy"):
            return self.base_frames() + [
                (self.tf("torch/distributed/pipelining/schedules.py"), 1321, "_step_microbatches", "output = stage.forward_one_chunk(fwd_mb_index, arg_mbs[fwd_mb_index], kwarg_mbs[fwd_mb_index])"),
                (self.tf("torch/distributed/pipelining/stage.py"), 629, "forward_one_chunk", "output = self.forward_maybe_with_nosync(*composite_args, **composite_kwargs)"),
                (self.tf("torch/distributed/pipelining/stage.py"), 492, "forward_maybe_with_nosync", "out_val = self.submod(*args, **kwargs)"),
                (self.tf("torch/nn/modules/module.py"), 1747, "_call_impl", "return forward_call(*args, **kwargs)"),
                ((self.f("torchtitan/models/llama3/model/model.py") if self.name == "titan" else self.f("model.py")), 482, "forward", "h = layer(h, self.freqs_cis)")]
        return self.base_frames() + [
            (self.f("stage.py"), 49, "forward_step", "out = self.block(x)"),
            (self.tf("torch/nn/modules/module.py"), 1747, "_call_impl", "return forward_call(*args, **kwargs)"),
            (self.f("model.py"), 77, "forward", "x = x + self.attn(self.ln1(x))")]

    def loss_frames(self):
        if self.name == "megatron":
            return self.base_frames() + [
                (self.f("megatron/core/pipeline_parallel/schedules.py"), 275, "forward_step", "output_tensor, loss_func = forward_step_func(data_iterator, model)"),
                (self.f("pretrain_gpt.py"), 204, "forward_step", "output_tensor = model(tokens, position_ids, attention_mask,"),
                (self.f("megatron/core/models/gpt/gpt_model.py"), 301, "forward", "loss = self.compute_language_model_loss(labels, logits)"),
                (self.f("megatron/core/models/common/language_module/language_module.py"), 41, "compute_language_model_loss", "loss = tensor_parallel.vocab_parallel_cross_entropy(logits.float(), labels)")]
        return self.compute_frames()[:-1] + [(self.f("loss.py") if self.name != "titan" else self.f("torchtitan/components/loss.py"), 23, "cross_entropy_loss",
                                               "return torch.nn.functional.cross_entropy(pred.flatten(0, 1).float(), labels.flatten(0, 1))")]

    def data_frames(self):
        if self.name == "megatron":
            return self.base_frames() + [
                (self.f("megatron/core/pipeline_parallel/schedules.py"), 275, "forward_step", "output_tensor, loss_func = forward_step_func(data_iterator, model)"),
                (self.f("pretrain_gpt.py"), 190, "forward_step", "tokens, labels, loss_mask, attention_mask, position_ids = get_batch("),
                (self.f("pretrain_gpt.py"), 92, "get_batch", "batch = get_batch_on_this_tp_rank(data_iterator)"),
                (self.f("megatron/training/utils.py"), 299, "get_batch_on_this_tp_rank", "data = next(data_iterator)")]
        if self.name == "deepspeed":
            return self.base_frames() + [
                (self.tf("deepspeed/runtime/pipe/engine.py"), 902, "_exec_load_micro_batch", "batch = self._next_batch()"),
                (self.tf("deepspeed/runtime/pipe/engine.py"), 630, "_next_batch", "batch = next(self.data_iterator)")]
        if self.name == "titan":
            return [(self.f("torchtitan/train.py"), 579, "<module>", "trainer.train()"),
                    (self.f("torchtitan/train.py"), 488, "train", "batch = self.next_batch(data_iterator)"),
                    (self.f("torchtitan/train.py"), 330, "next_batch", "batch = next(data_iterator)")]
        return self.base_frames()[:2] + [(self.f(self.script), 139, "main", "x, y = next(loader_iter)")]

    def dl_frames(self):
        return self.data_frames() + [
            (self.tf("torch/utils/data/dataloader.py"), 701, "__next__", "data = self._next_data()"),
            (self.tf("torch/utils/data/dataloader.py"), 1448, "_next_data", "idx, data = self._get_data()"),
            (self.tf("torch/utils/data/dataloader.py"), 1412, "_get_data", "success, data = self._try_get_data()"),
            (self.tf("torch/utils/data/dataloader.py"), 1243, "_try_get_data", "data = self._data_queue.get(timeout=timeout)")]

    def progress_ranks(self):
        j = self.job
        if self.name == "megatron":
            return [j.world - 1]
        if self.name == "pippy":
            return [j.rank_of(s, 0, 0) for s in range(j.pp)]
        if self.name == "titan":
            return [0, j.world - 1] if j.rng.random() < 0.3 else [0]
        return [0]

    def progress_line(self, rank, step, total, t, st, loss, slow=1.0):
        j = self.job
        r = j.rng
        if self.name == "megatron":
            return (" [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | learning rate: %.6E | global batch size: %5d | lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f | number of skipped iterations:   0 | number of nan iterations:   0 |"
                    % (f_iso(j.lt(t, j.node_of(rank))), step, total, step * self.gbs, st * 1000, 3e-4 * min(1.0, step / 2000.0), self.gbs, loss, r.uniform(0.2, 1.6)))
        if self.name == "deepspeed":
            return "steps: %d loss: %.4f iter time (s): %.3f samples/sec: %.3f" % (step, loss, st, self.gbs / st)
        if self.name == "titan":
            mem = r.uniform(40, 60)
            return ("[rank%d]:[titan] %s - root - INFO - step: %2d  loss: %7.4f  grad_norm: %7.4f  memory: %5.2fGiB(%.2f%%)  tps: %s  tflops: %.2f  mfu: %.2f%%"
                    % (rank, f_iso_ms(j.lt(t, j.node_of(rank))), step, loss if rank == j.world - 1 or r.random() < 0.5 else -1.0, r.uniform(0.3, 2.0), mem, mem / j.mem_gib * 100,
                       format(int(self.tps / slow), ","), 380 / slow, 38.4 / slow))
        if self.name == "pippy":
            s = j.stage(rank)
            return "%s INFO [stage %d/%d] step %d | %s | fwd+bwd %.0f ms | p2p wait %.0f ms" % (
                f_iso_ms(j.lt(t, j.node_of(rank))), s, j.pp, step, ("loss %.4f" % loss) if s == j.pp - 1 else "loss n/a", st * 1000 * 0.6 * (slow if s == getattr(self, "slow_stage", -1) else 1.0),
                st * 1000 * 0.4 * (0.2 if s == getattr(self, "slow_stage", -1) else 1.0))
        return "[rank %d] %s step %d loss %.4f (%.2f s/it)" % (rank, f_iso(j.lt(t, j.node_of(rank))), step, loss, st)


# --------------------------------------------------------------------------
# training-job simulation (shared by the training layouts)
# --------------------------------------------------------------------------
PY_WARNINGS = [
    "{site}/torch/_utils.py:{n}: UserWarning: TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class. This should only matter to you if you are using storages directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()\n  return self.fget.__get__(instance, owner)()",
    "{site}/transformers/utils/generic.py:441: FutureWarning: `torch.utils._pytree._register_pytree_node` is deprecated. Please use `torch.utils._pytree.register_pytree_node` instead.\n  _torch_pytree._register_pytree_node(",
    "{site}/torch/utils/checkpoint.py:{n}: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.5 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True.\n  return fn(*args, **kwargs)",
    "{site}/torch/autograd/graph.py:{n}: UserWarning: c10d::broadcast_: an autograd kernel was not registered to the Autograd key(s) but we are trying to backprop through it. This may lead to silently incorrect behavior.\n  return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass",
    "{site}/apex/normalization/fused_layer_norm.py:{n}: FutureWarning: `torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use `torch.amp.custom_fwd(args..., device_type='cuda')` instead.\n  def forward(ctx, input, weight, bias, normalized_shape, eps, memory_efficient=False):",
]


def sim_training(job, fw, opt):
    r = job.rng
    cause = job.cause
    t = job.t0
    # ---- launcher banner --------------------------------------------------
    for h in job.hosts:
        if opt["launcher"] == "torchrun":
            if job.cstyle == "old":
                job.ag(h, t + r.uniform(0, 2), "WARNING:torch.distributed.run:\n*****************************************\nSetting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. \n*****************************************")
            else:
                job.ag(h, t + r.uniform(0, 2), "W%s %d torch/distributed/run.py:793] \nW%s %d torch/distributed/run.py:793] *****************************************\nW%s %d torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. \nW%s %d torch/distributed/run.py:793] *****************************************"
                       % tuple(x for _ in range(4) for x in (f_glog(job.lt(t, h), False), job.agent_pid[h])))
    t += r.uniform(5, 25)
    # ---- per-rank startup ------------------------------------------------------
    nccl_ranks = list(range(job.world)) if opt["nccl_info"] else []
    if opt["nccl_info"] and job.world > 16 and r.random() < 0.5:
        nccl_ranks = [x for x in range(job.world) if job.local(x) in (0, job.gpn - 1)]
    for rk in range(job.world):
        tt = t + r.uniform(0, 3)
        if r.random() < 0.35:
            pool = PY_WARNINGS
            w = r.choice(pool).format(site=job.site, n=r.randint(60, 2900), s=job.stage(rk))
            job.err(rk, tt, w)
        if job.cstyle == "new" and r.random() < 0.3:
            job.err(rk, tt + 1, cpp_prefix(job, rk, tt + 1, "W", "ProcessGroupNCCL.cpp:4115") + "[PG ID 0 PG GUID 0 Rank %d]  using GPU %d to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect.Specify device_ids in barrier() to force use of a particular device,or call init_process_group() with a device_id." % (rk, job.local(rk)))
        if rk in nccl_ranks:
            peers = []
            if job.next_rank(rk) is not None:
                peers.append((job.next_rank(rk), "send"))
            if job.prev_rank(rk) is not None:
                peers.append((job.prev_rank(rk), "recv"))
            nccl_init_lines(job, rk, tt + 2, None, peers if r.random() < 0.6 else [])
    t += r.uniform(8, 40)
    fw_startup(job, fw, t)
    t += r.uniform(20, 120)
    # ---- training steps ----------------------------------------------------
    st = r.uniform(0.8, 6.0)
    fw.gbs = r.choice([256, 512, 1024, 1536])
    fw.tps = r.randint(2500, 9000)
    total = r.choice([5000, 10000, 20000, 100000, 500000])
    log_int = r.choice([1, 1, 5, 10, 10, 50])
    if job.healthy:
        total = log_int * r.randint(40, 120)
        n_logs = total // log_int
    else:
        n_logs = r.randint(8, 140)
    if cause == "hang" and opt.get("silent"):
        n_logs = r.choice([0, 0, 1, 2])
    first_p2p_t = t + st * 0.5
    if opt["nccl_info"]:
        for rk in nccl_ranks:
            if job.next_rank(rk) is not None and r.random() < 0.5:
                p2p_connect_lines(job, rk, first_p2p_t + r.uniform(0, 0.5), job.next_rank(rk), "send")
            if job.prev_rank(rk) is not None and r.random() < 0.5:
                p2p_connect_lines(job, rk, first_p2p_t + r.uniform(0, 0.5), job.prev_rank(rk), "recv")
    slow = 1.0
    slow_from = None
    if cause == "straggler":
        slow_from = r.randint(2, max(3, n_logs // 3))
        slow = r.uniform(1.6, 3.2)
        fw.slow_stage = job.pp - 1 if r.random() < 0.6 else r.randint(0, job.pp - 1)
    loss = r.uniform(9.5, 11.0)
    step = 0
    for i in range(n_logs):
        cur = st * (slow if slow_from is not None and i >= slow_from else 1.0) * r.uniform(0.97, 1.04)
        t += cur * log_int
        step += log_int
        loss = max(1.6, loss * r.uniform(0.985, 0.999) + r.uniform(-0.02, 0.03))
        for pr in fw.progress_ranks():
            job.out(pr, t + r.uniform(0, 0.05), fw.progress_line(pr, step, total, t, cur, loss,
                                                                  slow if slow_from is not None and i >= slow_from else 1.0))
        if fw.name == "megatron" and i == 0:
            job.out(job.world - 1, t + 0.1, "[Rank %d] (after %d iterations) memory (MB) | allocated: %.1f | max allocated: %.1f | reserved: %.1f | max reserved: %.1f"
                    % (job.world - 1, step, r.uniform(2e4, 4e4), r.uniform(4e4, 6e4), r.uniform(6e4, 7e4), r.uniform(6e4, 7e4)))
        if fw.name == "deepspeed" and r.random() < 0.1:
            job.out(0, t + 0.2, "[%s] [INFO] [logging.py:128:log_dist] [Rank 0] step=%d, skipped=0, lr=[%.10f], mom=[(0.9, 0.95)]" % (f_iso_ms(job.lt(t, job.hosts[0])), step, 3e-4 * min(1, step / 1000)))
        if r.random() < 0.04 and fw.name == "megatron":
            job.out(0, t + 1, "saving checkpoint at iteration %7d to %s/checkpoints in torch_dist format" % (step, fw.root))
            job.out(0, t + r.uniform(20, 90), "  successfully saved checkpoint from iteration %7d to %s/checkpoints [ t 1/%d, p 1/%d ]" % (step, fw.root, job.tp, job.pp))
    fw.step, fw.st, fw.t_last = step, st * slow, t
    if job.healthy or cause == "straggler":
        finish(job, fw, opt, t, ok=job.healthy)
        return
    inject_failure(job, fw, opt, t + r.uniform(0.2, 1.0) * st * log_int)


def fw_startup(job, fw, t):
    r = job.rng
    j = job
    if fw.name == "megatron":
        L = ["using world size: %d, data-parallel size: %d, context-parallel size: 1, hierarchical context-parallel sizes: None, tensor-model-parallel size: %d, encoder-tensor-model-parallel size: 0, pipeline-model-parallel size: %d, encoder-pipeline-model-parallel size: 0" % (j.world, j.dp, j.tp, j.pp),
             "WARNING: Setting args.overlap_p2p_comm and args.align_param_gather to False since non-interleaved schedule does not support overlapping p2p communication and aligned param AG" if fw.sched == "1F1B" else "setting number of microbatches to constant %d" % r.choice([64, 128, 256]),
             "> initializing torch distributed ...",
             "> initialized tensor model parallel with size %d" % j.tp,
             "> initialized pipeline model parallel with size %d" % j.pp,
             "> setting random seeds to 1234 ...",
             "> compiling dataset index builder ...",
             "make: Entering directory '%s/megatron/core/datasets'" % fw.root,
             "make: Nothing to be done for 'default'.",
             ">>> done with dataset index builder. Compilation time: 0.061 seconds",
             "> compiling and loading fused kernels ...",
             ">>> done with compiling and loading fused kernels. Compilation time: 3.412 seconds",
             "time to initialize megatron (seconds): %.3f" % r.uniform(20, 90),
             "[after megatron is initialized] datetime: %s " % f_iso(j.lt(t, j.hosts[0])),
             "building GPT model ..."]
        for i, x in enumerate(L):
            job.out(0, t + i * 0.3, x)
        for s in range(j.pp):
            rk = j.rank_of(s, 0, 0)
            job.out(rk, t + 5 + s * 0.01, " > number of parameters on (tensor, pipeline) model parallel rank (0, %d): %d" % (s, r.randint(800_000_000, 2_400_000_000)))
        job.out(0, t + 9, "> learning rate decay style: cosine")
        job.out(0, t + 10, "[after model, optimizer, and learning rate scheduler are built] datetime: %s " % f_iso(j.lt(t + 10, j.hosts[0])))
        job.out(0, t + 25, "[after dataloaders are built] datetime: %s " % f_iso(j.lt(t + 25, j.hosts[0])))
        job.out(0, t + 25.1, "done with setup ...")
        job.out(0, t + 25.2, "training ...")
        job.out(0, t + 25.3, "[before the start of training step] datetime: %s " % f_iso(j.lt(t + 25, j.hosts[0])))
    elif fw.name == "deepspeed":
        job.out(0, t, "[%s] [INFO] [comm.py:652:init_distributed] cdb=None" % f_iso_ms(j.lt(t, j.hosts[0])))
        job.out(0, t + 0.1, "[%s] [INFO] [comm.py:683:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl" % f_iso_ms(j.lt(t, j.hosts[0])))
        job.out(0, t + 2, "SEED_LAYERS=False BASE_SEED=1234 SEED_FN=None")
        topo = ", ".join("ProcessCoord(pipe=%d, data=%d): %d" % (j.coords(x)[0], j.coords(x)[1], x) for x in range(min(j.world, 8)))
        job.out(0, t + 2.1, "Using topology: {%s%s}" % (topo, ", ..." if j.world > 8 else ""))
        layers = r.choice([32, 40, 48])
        per = layers // j.pp
        job.out(0, t + 2.2, "[%s] [INFO] [module.py:396:_partition_layers] Partitioning pipeline stages with method parameters" % f_iso_ms(j.lt(t, j.hosts[0])))
        for s in range(j.pp):
            job.out(0, t + 2.3, "stage=%d layers=%d" % (s, per + (2 if s in (0, j.pp - 1) else 0)))
        for s in range(j.pp):
            rk = j.rank_of(s, 0, 0)
            job.out(rk, t + 5, "[%s] [INFO] [engine.py:%d:__init__] CONFIG: micro_batches=%d micro_batch_size=%d" % (f_iso_ms(j.lt(t + 5, j.node_of(rk))), 180, r.choice([8, 16, 32]), r.choice([1, 2, 4])))
            job.out(rk, t + 5.1, "[%s] [INFO] [engine.py:%d:__init__] is_pipe_partitioned= False is_grad_partitioned= False" % (f_iso_ms(j.lt(t + 5, j.node_of(rk))), 239))
            job.out(rk, t + 5.2, "[%s] [INFO] [engine.py:%d:__init__] RANK=%d STAGE=%d LAYERS=%d [%d, %d) STAGE_PARAMS=%d (%.3fM) TOTAL_PARAMS=%d (%.3fM) UNIQUE_PARAMS=%d (%.3fM)"
                    % (f_iso_ms(j.lt(t + 5, j.node_of(rk))), 159, rk, s, per, s * per, (s + 1) * per, 1e9, 1000.0, 4e9, 4000.0, 4e9, 4000.0))
    elif fw.name == "titan":
        for rk in fw.progress_ranks():
            h = j.node_of(rk)
            P = "[rank%d]:[titan] %s - root - INFO - " % (rk, f_iso_ms(j.lt(t, h)))
            job.out(rk, t, P + "Starting job: Llama 3 %s training" % r.choice(["8B", "70B", "405B"]))
            job.out(rk, t + 0.5, P + "Building 2-D device mesh with ['pp', 'dp_shard'], [%d, %d]" % (j.pp, j.world // j.pp))
            job.out(rk, t + 1, P + "[GC] Initial GC collection. 0.00 seconds.")
            job.out(rk, t + 3, P + "PP rank %d is building stage_idx %d with modules %s" % (j.stage(rk), j.stage(rk), "['tok_embeddings', 'layers.0', 'layers.1', 'layers.2', 'layers.3']" if j.stage(rk) == 0 else "['layers.28', 'layers.29', 'layers.30', 'layers.31', 'norm', 'output']"))
            job.out(rk, t + 4, P + "Using pipeline schedule %s with %d microbatches and %d stages." % (fw.sched, r.choice([8, 16, 32]), j.pp * (2 if "Interleaved" in fw.sched or "ZBV" in fw.sched else 1)))
            job.out(rk, t + 5, P + "Applied FSDP to the model")
            job.out(rk, t + 6, P + "CUDA memory usage for model: %.2fGiB(%.2f%%)" % (r.uniform(5, 15), r.uniform(5, 15)))
            job.out(rk, t + 7, P + "Trainer is initialized with local batch size 8, global batch size %d, gradient accumulation steps 1, sequence length 8192, total steps %d (warmup 200)." % (8 * j.world // j.pp, 3000))
            job.out(rk, t + 8, P + "Training starts at step 1.")
    elif fw.name == "pippy":
        for s in range(j.pp):
            rk = j.rank_of(s, 0, 0)
            job.out(rk, t, "%s INFO [stage %d/%d] built PipelineStage(stage_index=%d, num_stages=%d) on cuda:%d, params=%.1fM" % (
                f_iso_ms(j.lt(t, j.node_of(rk))), s, j.pp, s, j.pp, j.local(rk), r.uniform(200, 900)))
            job.out(rk, t + 1, "%s INFO [stage %d/%d] schedule=%s n_microbatches=%d" % (f_iso_ms(j.lt(t + 1, j.node_of(rk))), s, j.pp, fw.sched, r.choice([8, 16, 32])))
    else:
        for rk in range(j.world):
            job.out(rk, t + r.uniform(0, 1), "[rank %d] stage %d ready: prev=%s next=%s" % (rk, j.stage(rk), j.prev_rank(rk), j.next_rank(rk)))


def rank_prefix(job, rank):
    return "" if job.cstyle == "old" else "[rank%d]: " % rank


def emit_tb(job, rank, t, frames, exc):
    job.err(rank, t, py_tb(job, frames, exc, rank_prefix(job, rank)))


def pick(job, stage=None, cross=False):
    r = job.rng
    s = r.randrange(job.pp) if stage is None else stage
    return job.rank_of(s, r.randrange(job.dp), r.randrange(job.tp))


def crossing_pairs(job):
    out = []
    for x in range(job.world):
        n = job.next_rank(x)
        if n is not None and job.node_of(n) != job.node_of(x):
            out.append((x, n))
    return out


def inject_failure(job, fw, opt, tf):
    r = job.rng
    c = job.cause
    init = None
    mode = "exit"
    code = 1
    truth_rank = True
    truth_node = True
    job.pyspy_ranks = []
    host_of = job.node_of
    pidn = job.pid
    ks = []  # (t, text) kernel lines for the initiator's host

    def kern(t, s):
        ks.append((t, s))

    if c == "gpu_hardware":
        init = pick(job)
        h = host_of(init)
        v = r.choice(["79", "79", "119", "62"])
        pci = job.pci(init)
        if v == "79":
            kern(tf, "NVRM: GPU at PCI:%s: GPU-%08x-%04x-%04x-%04x-%012x" % (pci, r.getrandbits(32), r.getrandbits(16), r.getrandbits(16), r.getrandbits(16), r.getrandbits(48)))
            kern(tf, "NVRM: GPU Board Serial Number: %d" % r.randint(1320000000000, 1659999999999))
            kern(tf, "NVRM: Xid (PCI:%s): 79, pid=%d, name=python, GPU has fallen off the bus." % (pci, pidn[init]))
            kern(tf + 0.001, "NVRM: GPU %s.0: GPU has fallen off the bus." % pci)
            kern(tf + 0.002, "NVRM: A GPU crash dump has been created. If possible, please run\nNVRM: nvidia-bug-report.sh as root to collect this data before\nNVRM: the NVIDIA kernel module is unloaded.")
            err = r.choice(["unspecified launch failure", "unknown error"])
            mode = "exit" if r.random() < 0.7 else "hang"
            job.notes_h = "Xid 79 (GPU fell off the bus) on %s GPU %d" % (h, job.local(init))
        elif v == "119":
            kern(tf, "NVRM: Xid (PCI:%s): 119, pid=%d, name=python, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a4c 0x4)." % (pci, pidn[init], job.local(init)))
            kern(tf + 0.01, "NVRM: GPU%d GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x0000000020800a4c 0x0000000000000004." % job.local(init))
            kern(tf + 0.02, "NVRM: GPU%d RPC history (CPU -> GSP):" % job.local(init))
            kern(tf + 6.1, "NVRM: Xid (PCI:%s): 119, pid=%d, name=python, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 10 (FREE) (0xa55a00f0 0x0)." % (pci, pidn[init], job.local(init)))
            err = "unknown error"
            mode = "hang" if r.random() < 0.6 else "exit"
            job.notes_h = "Xid 119 GSP RPC timeout on %s GPU %d" % (h, job.local(init))
        else:
            kern(tf, "NVRM: Xid (PCI:%s): 62, pid=%d, name=python, %08x %08x %08x %08x %08x %08x %08x %08x" % ((pci, pidn[init]) + tuple(r.getrandbits(32) for _ in range(8))))
            err = "unspecified launch failure"
            mode = "exit"
            job.notes_h = "Xid 62 (internal micro-controller halt) on %s GPU %d" % (h, job.local(init))
        if mode == "exit":
            p = nccl_prefix(job, init, pidn[init] + 211)
            job.err(init, tf + 0.5, p + "enqueue.cc:%d NCCL WARN Cuda failure '%s'" % (r.choice([1523, 1901]), err))
            emit_tb(job, init, tf + 0.6, fw.compute_frames(), "RuntimeError: CUDA error: %s%s" % (err, CUDA_TAIL.rstrip()))
        else:
            truth_rank = init in job.nccl_ranks  # busId -> rank only via NCCL INFO lines
        job.note = job.notes_h + (" ; rank %d then died with CUDA error" % init if mode == "exit" else " ; the process hung on the dead GPU, peers timed out")
    elif c == "ecc_memory":
        init = pick(job)
        pci = job.pci(init)
        v = r.choice(["48", "94", "95"])
        if v == "48":
            kern(tf, "NVRM: Xid (PCI:%s): 48, pid=%d, name=python, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (pci, pidn[init], r.randint(0, 7), r.randint(0, 1)))
            kern(tf + 0.2, "NVRM: Xid (PCI:%s): 63, pid='<unknown>', name=<unknown>, Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % (pci, r.getrandbits(28)))
        elif v == "94":
            kern(tf, "NVRM: Xid (PCI:%s): 94, pid=%d, name=python, Contained: SM (0x1). RST: No, D-RST: No" % (pci, pidn[init]))
        else:
            kern(tf, "NVRM: Xid (PCI:%s): 95, pid=%d, name=python, Uncontained: LTC TAG (0x2,0x0). RST: Yes, D-RST: No" % (pci, pidn[init]))
        emit_tb(job, init, tf + 0.3, fw.compute_frames(), "RuntimeError: CUDA error: uncorrectable ECC error encountered%s" % CUDA_TAIL.rstrip())
        job.note = "Xid %s uncorrectable ECC on %s GPU %d (rank %d), rank crashed" % (v, host_of(init), job.local(init), init)
    elif c == "nvlink":
        init = pick(job)
        pci = job.pci(init)
        link = r.randint(0, 17)
        kern(tf, "NVRM: Xid (PCI:%s): 74, pid=%d, name=python, NVLink: fatal error detected on link %d(0x0, 0x0, 0x0, 0x0, 0x%x, 0x0, 0x0)" % (pci, pidn[init], link, r.choice([0x10000, 0x20000, 0x100])))
        if r.random() < 0.5:
            kern(tf + 0.01, "nvidia-nvswitch%d: SXid (PCI:0000:%02x:00.0): 20034, Fatal, Link %d LTSSM Fault Up" % (r.randint(0, 3), r.choice([0x86, 0x87, 0x88, 0x89]), r.randint(0, 63)))
        p = nccl_prefix(job, init, pidn[init] + 211)
        job.err(init, tf + 0.4, p + "enqueue.cc:%d NCCL WARN Cuda failure 'uncorrectable NVLink error was detected during the execution'" % r.choice([1523, 1901]))
        if r.random() < 0.6:
            emit_tb(job, init, tf + 0.5, fw.compute_frames(), "RuntimeError: CUDA error: uncorrectable NVLink error was detected during the execution%s" % CUDA_TAIL.rstrip())
        else:
            job.err(init, tf + 0.5, cpp_prefix(job, init, tf + 0.5, "E", "ProcessGroupNCCL.cpp:1595") + "[PG ID 0 PG GUID 0(default_pg) Rank %d] Process group watchdog thread terminated with exception: CUDA error: uncorrectable NVLink error was detected during the execution" % init)
            code = -6
        job.note = "Xid 74 NVLink fatal error on %s GPU %d link %d (rank %d)" % (host_of(init), job.local(init), link, init)
    elif c == "network":
        pairs = crossing_pairs(job)
        a, b = r.choice(pairs)
        bad = r.choice([a, b])
        h = host_of(bad)
        nic = job.nics[job.local(bad) // 2 % len(job.nics)]
        pcin = "0000:%02x:00.0" % r.choice([0x0c, 0x18, 0x2b, 0x45, 0x8d, 0xa5])
        if job.fabric == "Socket":
            kern(tf - 2, "%s: Link is Down" % r.choice(["ena 0000:00:06.0 eth0", "ice 0000:31:00.0 ens2f0"]))
        else:
            kern(tf - 3, "mlx5_core %s: mlx5_port_module_event:1165:(pid 0): Port module event[error]: module %d, Cable error, %s" % (pcin, r.randint(0, 7), r.choice(["Bus stuck (I2C or data shorted)", "High Temperature", "Unsupported cable"])))
            kern(tf - 2.9, "mlx5_core %s %s: Link down" % (pcin, job.netdev))
            kern(tf - 2.8, "infiniband %s: ib_query_port failed (-110)" % nic if r.random() < 0.3 else "%s: port 1 state changed to DOWN" % nic)
        init = None
        truth_rank = False
        mode = "net"
        job.net_pair = (a, b)
        job.net_node = h
        job.note = "NIC/link down on %s (%s) broke the stage boundary %d->%d between %s and %s" % (h, nic, a, b, host_of(a), host_of(b))
    elif c == "cuda_oom":
        init = pick(job, 0 if r.random() < 0.6 else job.pp - 1)
        fr = fw.loss_frames() if job.stage(init) == job.pp - 1 else fw.compute_frames()
        emit_tb(job, init, tf, fr, oom_text(job, init))
        job.note = "CUDA OOM on rank %d (pipeline stage %d)" % (init, job.stage(init))
    elif c == "illegal_memory_access":
        v = r.choice(["ima", "ima_wd", "assert"])
        if v == "assert":
            init = pick(job, job.pp - 1)
            lines = []
            for k in range(r.randint(3, 12)):
                lines.append("../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [%d,0,0] Assertion `t >= 0 && t < n_classes` failed." % r.randint(0, 1023))
            job.err(init, tf, "\n".join(lines))
            emit_tb(job, init, tf + 0.2, fw.loss_frames(), "RuntimeError: CUDA error: device-side assert triggered%s" % CUDA_TAIL.rstrip())
            job.note = "device-side assert (label out of range) in the loss on last-stage rank %d" % init
        else:
            init = pick(job)
            if r.random() < 0.5:
                kern(tf, "NVRM: Xid (PCI:%s): 31, pid=%d, name=python, Ch 0000000%d, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_%d faulted @ 0x7f%02x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ"
                     % (job.pci(init), pidn[init], r.randint(1, 9), r.randint(0, 15), r.randint(0, 255), r.getrandbits(32)))
            if v == "ima":
                emit_tb(job, init, tf + 0.1, fw.compute_frames(), "RuntimeError: CUDA error: an illegal memory access was encountered%s" % CUDA_TAIL.rstrip())
            else:
                job.err(init, tf + 0.1, cpp_prefix(job, init, tf + 0.1, "E", "ProcessGroupNCCL.cpp:1595") + "[PG ID 0 PG GUID 0(default_pg) Rank %d] Process group watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered%s" % (init, CUDA_TAIL.rstrip()))
                job.err(init, tf + 0.11, cxx_stack(job, "finishedGPUExecutionInternal") + "\nterminate called after throwing an instance of 'c10::DistBackendError'\n  what():  CUDA error: an illegal memory access was encountered")
                code = -6
            job.note = "illegal memory access on rank %d (stage %d)" % (init, job.stage(init))
    elif c == "python_exception":
        v = r.choice(["nan", "file", "key", "disk", "assert"])
        if v == "file":
            init = pick(job, 0)
            emit_tb(job, init, tf, fw.data_frames() + [(fw.f("data/indexed_dataset.py"), 412, "__getitem__", "with open(self._bin_path(shard), 'rb') as f:")],
                    "FileNotFoundError: [Errno 2] No such file or directory: '/data/tokenized/train/shard-%05d.bin'" % r.randint(0, 4000))
        elif v == "key":
            init = pick(job, 0)
            emit_tb(job, init, tf, fw.data_frames() + [(fw.f("data/collate.py"), 37, "collate", "mask = torch.stack([s['attention_mask'] for s in samples])")], "KeyError: 'attention_mask'")
        elif v == "disk":
            init = 0
            emit_tb(job, init, tf, fw.base_frames()[:2] + [(fw.f("checkpointing.py") if fw.name != "megatron" else fw.f("megatron/training/checkpointing.py"), 388, "save_checkpoint", "torch.save(state_dict, checkpoint_name)"),
                                                        (job.site + "/torch/serialization.py", 850, "save", "with _open_zipfile_writer(f) as opened_zipfile:")],
                    "RuntimeError: [enforce fail at inline_container.cc:603] . unexpected pos 3145728704 vs 3145728598")
            job.err(init, tf - 0.1, "OSError: [Errno 28] No space left on device")
        elif v == "assert":
            init = pick(job)
            emit_tb(job, init, tf, fw.compute_frames()[:-1] + [(fw.f("model/rope.py"), 58, "apply_rotary", "assert x.size(1) <= self.max_seq_len, f\"seq {x.size(1)} > {self.max_seq_len}\"")],
                    "AssertionError: seq %d > %d" % (r.choice([8193, 16384]), 8192))
        else:
            init = pick(job, job.pp - 1)
            emit_tb(job, init, tf, fw.base_frames()[:3] + [(fw.f("utils/guards.py"), 21, "check_finite", "raise ValueError(f\"loss is {loss.item()} at step {step}\")")],
                    "ValueError: loss is nan at step %d" % (fw.step + 1))
        job.note = "uncaught Python exception (%s) on rank %d (stage %d)" % ({"nan": "ValueError on NaN loss", "file": "FileNotFoundError reading a data shard", "key": "KeyError in batch collation", "disk": "checkpoint write failed, disk full", "assert": "AssertionError in the model"}[v], init, job.stage(init))
    elif c == "host_oom_kill":
        init = pick(job, 0 if r.random() < 0.5 else None)
        h = host_of(init)
        cg = r.random() < 0.4
        kern(tf - 0.2, "python invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0")
        kern(tf - 0.2, "CPU: %d PID: %d Comm: python Tainted: P           OE     5.15.0-%d-generic #%d-Ubuntu" % (r.randint(0, 95), pidn[init] + r.randint(5, 60), r.randint(80, 130), r.randint(80, 140)))
        if cg:
            kern(tf - 0.1, "memory: usage %dkB, limit %dkB, failcnt %d" % (1887436800 // 2, 1887436800 // 2, r.randint(1, 900)))
            kern(tf, "Memory cgroup out of memory: Killed process %d (python) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0"
                 % (pidn[init], r.randint(2e8, 4e8), r.randint(1.2e8, 2.2e8), r.randint(1e5, 9e5), r.randint(1e6, 9e6), r.randint(1000, 60000), r.randint(3e5, 9e5)))
        else:
            kern(tf, "Out of memory: Killed process %d (python) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0"
                 % (pidn[init], r.randint(2e8, 4e8), r.randint(1.2e8, 2.2e8), r.randint(1e5, 9e5), r.randint(1e6, 9e6), r.randint(1000, 60000), r.randint(3e5, 9e5)))
        kern(tf + 0.5, "oom_reaper: reaped process %d (python), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB" % pidn[init])
        code = -9
        job.oom_host = h
        job.note = "kernel OOM killer killed rank %d (pid %d) on %s" % (init, pidn[init], h)
    elif c == "crash_signal":
        init = pick(job)
        if r.random() < 0.6:
            fr = fw.compute_frames()
            s = ["Fatal Python error: Segmentation fault", "",
                 "Thread 0x%016x (most recent call first):" % r.getrandbits(47),
                 '  File "/usr/lib/python%s/threading.py", line 324 in wait' % job.py,
                 '  File "/usr/lib/python%s/threading.py", line 1009 in _bootstrap' % job.py, "",
                 "Current thread 0x%016x (most recent call first):" % r.getrandbits(47)]
            for f, ln, fn, _ in reversed(fr):
                s.append('  File "%s", line %d in %s' % (f, ln, fn))
            s += ["", "Extension modules: numpy.core._multiarray_umath, torch._C, torch._C._fft, torch._C._linalg, torch._C._nested, torch._C._nn, torch._C._sparse, torch._C._special, %s (total: %d)" % (r.choice(["apex_C, fused_layer_norm_cuda", "transformer_engine_torch", "flash_attn_2_cuda"]), r.randint(30, 90))]
            job.err(init, tf, "\n".join(s))
            code = -11
            job.note = "segfault (SIGSEGV) in rank %d" % init
        else:
            job.err(init, tf, r.choice(["free(): corrupted unsorted chunks", "double free or corruption (!prev)", "malloc(): unaligned tcache chunk detected"]))
            code = -6
            job.note = "glibc heap corruption abort (SIGABRT) in rank %d" % init
    elif c == "preemption":
        mode = "preempt"
        init = None
        truth_rank = False
        job.note = "job preempted / cancelled by the scheduler; all ranks got SIGTERM"
    elif c == "hang":
        if opt.get("silent"):
            mode = "silent"
            init = None
            truth_rank = truth_node = False
            job.note = "job hung right after NCCL/P2P setup with no error anywhere; nothing tells which rank stopped"
        else:
            init = pick(job)
            mode = "hang"
            job.pyspy_ranks = [init]
            job.hang_kind = r.choice(["lock", "loop", "gpu"])
            job.note = "rank %d (stage %d) stopped making progress (%s); its pipeline peers waited in p2p and hit the watchdog" % (init, job.stage(init), job.hang_kind)
    elif c == "data_loader_stall":
        init = pick(job, 0)
        h = host_of(init)
        if r.random() < 0.5:
            mode = "hang"
            job.hang_kind = "data"
            job.pyspy_ranks = [init]
            if r.random() < 0.7:
                srv = r.choice(["nfs01", "10.30.0.5", "fs-data"])
                kern(tf + 30, "nfs: server %s not responding, still trying" % srv)
                kern(tf + 190, "INFO: task pt_data_worker:%d blocked for more than 120 seconds." % (pidn[init] + 40))
            job.note = "rank %d (stage 0, the only stage that reads data) blocked in the DataLoader; downstream stages waited in RECV" % init
        else:
            emit_tb(job, init, tf + job.timeout_s * 0.5, fw.dl_frames()[:-1] + [(job.site + "/torch/utils/data/dataloader.py", 1256, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e")],
                    "RuntimeError: DataLoader timed out after %d seconds" % r.choice([120, 300, 600]))
            tf = tf + job.timeout_s * 0.5
            job.note = "DataLoader on stage-0 rank %d timed out" % init
    elif c == "collective_mismatch":
        v = r.choice(["shape", "sendsend", "numel"]) if fw.name in ("titan", "pippy") else r.choice(["sendsend", "numel", "numel"])
        if v == "shape":
            s = r.randint(1, job.pp - 1)
            init = pick(job, s)
            emit_tb(job, init, tf, fw.base_frames() + [
                (job.site + "/torch/distributed/pipelining/schedules.py", 1315, "_step_microbatches", "stage._validate_fwd_input(arg_mbs[fwd_mb_index], kwarg_mbs[fwd_mb_index])"),
                (job.site + "/torch/distributed/pipelining/stage.py", 1112, "_validate_fwd_input", "validate_tensors_metadata("),
                (job.site + "/torch/distributed/pipelining/_utils.py", 105, "validate_tensors_metadata", "validate_tensor_metadata(")],
                "torch.distributed.pipelining._utils.PipeliningShapeError: Stage %d forward inputs: value 0 has a shape mismatch: expected torch.Size([%d, %d, %d]) actual torch.Size([%d, %d, %d])"
                % (s, 2, 8192, 4096, 2, 4096, 4096))
            job.note = "stage %d (rank %d) received an activation whose shape differs from the configured one (send/recv shape mismatch)" % (s, init)
        else:
            a, b = r.choice([(x, job.next_rank(x)) for x in range(job.world) if job.next_rank(x) is not None])
            mode = "mismatch"
            job.mm = (v, a, b)
            init = None
            truth_rank = truth_node = False
            job.note = ("adjacent stages rank %d and rank %d both issued SEND to each other (send/recv order mismatch) and deadlocked" % (a, b) if v == "sendsend"
                        else "rank %d sent a tensor of a different size than rank %d posted for RECV (shape/numel mismatch); both waited until the watchdog" % (a, b))
    elif c == "unknown":
        init = pick(job)
        mode = "exit"
        code = r.choice([1, 1, -9])
        truth_rank = truth_node = False
        job.hide_node = host_of(init) if (opt.get("can_hide") and r.random() < 0.5) else None
        job.note = "rank %d exited (code %d) without any message%s" % (init, code, "; its node's logs are missing" if job.hide_node else "")
    if ks:
        for tt, s in ks:
            job.kmsg(host_of(init) if init is not None else job.net_node, tt, s)
    job.init = init
    job.truth_rank = init if (init is not None and truth_rank) else None
    job.truth_node = (host_of(init) if init is not None else getattr(job, "net_node", None)) if truth_node else None
    if c == "network":
        job.truth_node = job.net_node
    propagate(job, fw, opt, init, tf, mode, code)


def pg_for(job, fw, kind):
    names = {"megatron": {"pp": "PIPELINE_MODEL_PARALLEL_GROUP", "tp": "TENSOR_MODEL_PARALLEL_GROUP", "dp": "DATA_PARALLEL_GROUP"},
             "titan": {"pp": "mesh_pp", "tp": "mesh_tp", "dp": "mesh_dp_shard"},
             "pippy": {"pp": "default_pg", "tp": "tp", "dp": "dp"},
             "deepspeed": {"pp": "undefined", "tp": "undefined", "dp": "undefined"},
             "custom": {"pp": "default_pg", "tp": "default_pg", "dp": "default_pg"}}[fw.name]
    ids = {"pp": 3 if fw.name == "megatron" else 1, "tp": 1, "dp": 2}
    if fw.name in ("custom",):
        ids = {"pp": 0, "tp": 0, "dp": 0}
    return ids[kind], names[kind]


def blocked_op(job, fw, x, cs):
    pp, dp, tp = job.coords(x)
    r = job.rng
    act = fw.act_numel
    if pp == cs and job.tp > 1:
        return ("ALLREDUCE", None, act, "tp", tp)
    if pp > cs:
        op = fw.optype if fw.optype != "SEND" else "RECV"
        return (op, job.prev_rank(x), act, "pp", pp)
    if pp < cs:
        op = fw.optype if fw.optype != "SEND" else "RECV"
        return (op, job.next_rank(x), act, "pp", pp)
    op = "_REDUCE_SCATTER_BASE" if fw.name in ("titan", "megatron") else "ALLREDUCE"
    if fw.name == "titan" and r.random() < 0.5:
        op = "_ALLGATHER_BASE"
    return (op, None, fw.grad_numel, "dp", dp)


def propagate(job, fw, opt, init, tf, mode, code):
    r = job.rng
    T = job.timeout_s
    fw.act_numel = r.choice([8192, 4096, 2048]) * r.choice([1, 2, 4]) * r.choice([4096, 5120, 8192]) // job.tp
    fw.grad_numel = r.randint(50_000_000, 900_000_000)
    base_seq = {"pp": r.randint(200, 90000), "tp": r.randint(1000, 900000), "dp": r.randint(100, 20000)}
    nat = {}
    job.wd_info = {}
    dead = []
    t_dead = tf
    if mode == "exit":
        t_dead = tf + (0.0 if code == -9 else r.uniform(0.4, 3.0))
        nat[init] = (t_dead, "own", code)
        dead = [init]
        cs = job.stage(init)
    elif mode == "preempt":
        scope = opt.get("preempt_scope", "job")
        if scope == "node":
            vh = r.choice(job.hosts[1:])
            job.preempt_node = vh
            job.truth_node = vh
            dead = job.ranks_of_node(vh)
            for x in dead:
                nat[x] = (tf + r.uniform(0.05, 0.8), "own", -15)
            t_dead = tf + 0.8
            cs = min(job.stage(x) for x in dead)
        else:
            job.preempt_all_t = tf
            cs = None
    elif mode == "net":
        a, b = job.net_pair
        ta = tf + r.uniform(14, 40)
        nat[a] = (ta, "remote", (b, "send"))
        nat[b] = (ta + r.uniform(-3, 3), "remote", (a, "recv"))
        cs = job.stage(a)
    elif mode == "mismatch":
        v, a, b = job.mm
        cs = job.stage(b)
    else:
        cs = job.stage(init) if init is not None else None
    if cs is not None:
        for x in range(job.world):
            if x in nat or x in dead or (mode == "hang" and x == init):
                continue
            op, peer, numel, g, grank = blocked_op(job, fw, x, cs)
            dist = abs(job.stage(x) - cs)
            tw = tf + T + r.uniform(0.02, 4.0) + dist * fw.st * 0.3
            if mode == "mismatch" and x in (job.mm[1], job.mm[2]):
                v, a, b = job.mm
                if v == "sendsend":
                    op, peer = ("SEND", b if x == a else a)
                    numel = fw.act_numel
                else:
                    op, peer = ("SEND", b) if x == a else ("RECV", a)
                    numel = fw.act_numel if x == b else fw.act_numel * r.choice([2, 3]) // 4 * 2 // 2 + fw.act_numel // 2
                g, grank = "pp", job.stage(x)
                tw = tf + T + r.uniform(0.02, 1.0)
            if mode in ("exit", "preempt") and peer is not None and peer in dead and job.node_of(peer) != job.node_of(x) and r.random() < 0.65:
                tr = t_dead + (r.uniform(0.3, 3) if job.fabric == "Socket" else r.uniform(12, 40))
                nat[x] = (tr, "remote", (peer, "recv" if job.stage(x) > job.stage(peer) else "send"))
                continue
            seq = base_seq[g] + (fw.step if g != "pp" else fw.step * 2)
            nat[x] = (tw, "wd", (seq, op, numel, g, grank, peer))
    # ---- node level teardown -------------------------------------------------
    job.nodefail = {}
    kill = {}
    for h in job.hosts:
        evs = sorted((nat[x][0], x) for x in job.ranks_of_node(h) if x in nat)
        if evs:
            kill[h] = evs[0][0] + r.uniform(0.1, 1.5)
    gk = None
    if mode == "preempt" and cs is None:
        gk = tf
    elif opt.get("kill_on_bad_exit") and kill:
        gk = min(kill.values()) + r.uniform(2, 8)
    elif not kill and opt.get("end_cancel"):
        gk = tf + r.uniform(1500, 6000)
        job.user_cancel = gk
    job.global_kill = gk
    for h in job.hosts:
        kt = kill.get(h)
        sig = None
        if gk is not None and (kt is None or kt > gk):
            kt = gk + r.uniform(0.05, 0.6)
            sig = kt
        rec = {"failures": [], "kill_t": kt, "signal_t": sig, "term": []}
        for x in job.ranks_of_node(h):
            n = nat.get(x)
            if n is not None and (kt is None or n[0] <= kt + 0.02):
                realize(job, fw, x, n)
                rec["failures"].append((job.exit[x][0], x, job.exit[x][1]))
            elif kt is not None:
                job.set_exit(x, kt + r.uniform(0.01, 0.3), -15)
                rec["term"].append(x)
        rec["failures"].sort()
        if kt is not None:
            rec["end"] = kt + r.uniform(0.5, 6.0)
        job.nodefail[h] = rec
    job.end_t = max([rec.get("end", tf) for rec in job.nodefail.values()] + [tf])


def realize(job, fw, x, n):
    t, kind, arg = n
    r = job.rng
    if kind == "own":
        job.set_exit(x, t, arg)
    elif kind == "remote":
        peer, d = arg
        pid, pname = pg_for(job, fw, "pp")
        remote_error_block(job, x, t, peer, d, (pid, pname, job.stage(x)))
    else:
        seq, op, numel, g, grank, peer = arg
        pid, pname = pg_for(job, fw, g)
        numel_out = numel if op not in ("_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE") else (numel * 8 if op == "_ALLGATHER_BASE" else numel // 8)
        watchdog_block(job, x, t, seq, op, numel, numel_out, (pid, pname, grank), stack=r.random() < 0.7,
                       last_enq=seq + r.choice([0, 0, 1, 2]))
        job.wd_info[x] = (op, peer, numel, seq, t - job.timeout_s)


def finish(job, fw, opt, t, ok):
    r = job.rng
    job.nodefail = {}
    job.global_kill = None
    if ok:
        if fw.name == "megatron":
            job.out(0, t + 1, "[after training is done] datetime: %s " % f_iso(job.lt(t + 1, job.hosts[0])))
            job.out(0, t + 2, "saving checkpoint at iteration %7d to %s/checkpoints in torch_dist format" % (fw.step, fw.root))
            job.out(0, t + 40, "  successfully saved checkpoint from iteration %7d to %s/checkpoints [ t 1/%d, p 1/%d ]" % (fw.step, fw.root, job.tp, job.pp))
        elif fw.name == "titan":
            job.out(0, t + 1, "[rank0]:[titan] %s - root - INFO - Sleeping 2 seconds for other ranks to complete" % f_iso_ms(job.lt(t + 1, job.hosts[0])))
            job.out(0, t + 3, "[rank0]:[titan] %s - root - INFO - Training completed" % f_iso_ms(job.lt(t + 3, job.hosts[0])))
        elif fw.name == "deepspeed":
            job.out(0, t + 1, "[%s] [INFO] [engine.py:3478:_save_zero_checkpoint] zero checkpoint saved ./checkpoints/global_step%d/zero_pp_rank_0_mp_rank_00_optim_states.pt" % (f_iso_ms(job.lt(t, job.hosts[0])), fw.step))
        else:
            for s in range(job.pp):
                job.out(job.rank_of(s, 0, 0), t + 1, "done. stage %d finished %d steps" % (s, fw.step))
        for x in range(job.world):
            if job.cstyle == "new" and job.torch_ver >= "2.4" and r.random() < 0.5:
                job.err(x, t + 5, cpp_prefix(job, x, t + 5, "W", "ProcessGroupNCCL.cpp:1250") + "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only been added since PyTorch 2.4 (function operator())")
            job.set_exit(x, t + r.uniform(6, 12), 0)
        job.end_t = t + 14
        job.completed = True
        return
    # straggler: slow, then the operator cancels the job (or pastes while it runs)
    s = fw.slow_stage
    job.slow_rank = job.rank_of(s, r.randrange(job.dp), r.randrange(job.tp))
    job.note = "pipeline stage %d (rank %d on %s) ran persistently slower (throttled GPU), stretching every iteration" % (s, job.slow_rank, job.node_of(job.slow_rank))
    job.truth_node = job.node_of(job.slow_rank)
    job.truth_rank = None
    if opt.get("end_cancel"):
        gk = t + r.uniform(60, 900)
        job.user_cancel = gk
        job.global_kill = gk
        for h in job.hosts:
            for x in job.ranks_of_node(h):
                job.set_exit(x, gk + r.uniform(0.1, 0.5), -15)
            job.nodefail[h] = {"failures": [], "kill_t": gk, "signal_t": gk, "term": job.ranks_of_node(h), "end": gk + 2}
        job.end_t = gk + 3
    else:
        job.end_t = t + 1


def nvsmi_q(job, host, slow_local=None):
    r = job.rng
    out = ["==============NVSMI LOG==============", "",
           "Timestamp                                 : %s" % f_dmesg_T(job.lt(job.end_t, host)),
           "Driver Version                            : %s" % r.choice(["535.161.08", "550.54.15", "550.90.07"]),
           "CUDA Version                              : %s" % job.cuda_ver, "",
           "Attached GPUs                             : %d" % job.gpn]
    for i in range(job.gpn):
        slow = i == slow_local
        out += ["GPU 00000000:%s:00.0" % job.busid[i].upper(),
                "    Product Name                          : %s" % job.gpu_name,
                "    Performance State                     : P0",
                "    Clocks Event Reasons",
                "        Idle                              : Not Active",
                "        Applications Clocks Setting       : Not Active",
                "        SW Power Cap                      : %s" % ("Active" if (not slow and r.random() < 0.3) else "Not Active"),
                "        HW Slowdown                       : %s" % ("Active" if slow else "Not Active"),
                "            HW Thermal Slowdown           : %s" % ("Active" if slow else "Not Active"),
                "            HW Power Brake Slowdown       : Not Active",
                "        Sync Boost                        : Not Active",
                "        SW Thermal Slowdown               : %s" % ("Active" if slow else "Not Active"),
                "    Temperature",
                "        GPU Current Temp                  : %d C" % (r.randint(88, 93) if slow else r.randint(45, 68)),
                "        GPU Shutdown Temp                 : 92 C",
                "        GPU Slowdown Temp                 : 89 C",
                "    Clocks",
                "        Graphics                          : %d MHz" % (r.randint(700, 1100) if slow else r.randint(1755, 1980)),
                "        SM                                : %d MHz" % (r.randint(700, 1100) if slow else r.randint(1755, 1980)),
                ""]
    return "\n".join(out) + "\n"


def pyspy_dump(job, fw, x, kind):
    r = job.rng
    def short(p):
        return p.replace(job.site + "/", "")
    if kind == "lock":
        fr = fw.base_frames()[:3] + [(fw.f("utils/async_ckpt.py"), 141, "maybe_finalize", "with self._lock:"),
                                     ("/usr/lib/python%s/threading.py" % job.py, 168, "acquire", "")]
    elif kind == "loop":
        fr = fw.compute_frames()[:-2] + [(fw.f("model/moe_router.py"), 212, "_rebalance", "while not torch.all(counts <= cap):")]
    elif kind == "gpu":
        fr = fw.base_frames()[:4] + [(job.site + "/torch/cuda/__init__.py", 954, "synchronize", "return torch._C._cuda_synchronize()")]
    elif kind == "data":
        fr = fw.dl_frames() + [("/usr/lib/python%s/multiprocessing/queues.py" % job.py, 113, "get", ""),
                               ("/usr/lib/python%s/multiprocessing/connection.py" % job.py, 257, "poll", ""),
                               ("/usr/lib/python%s/multiprocessing/connection.py" % job.py, 424, "_poll", ""),
                               ("/usr/lib/python%s/multiprocessing/connection.py" % job.py, 931, "wait", ""),
                               ("/usr/lib/python%s/selectors.py" % job.py, 416, "select", "")]
    else:  # waiting peer
        fr = fw.p2p_frames(recv=True)[:5] + [(job.site + "/torch/_tensor.py" if fw.name != "megatron" else fw.f("megatron/core/pipeline_parallel/schedules.py"), 1402, "item" if fw.name != "megatron" else "forward_backward_pipelining_without_interleaving", "")]
    pid = job.pid[x]
    out = ["Process %d: /usr/bin/python3 -u %s/%s" % (pid, fw.root, fw.script),
           "Python v%s.%d (/usr/bin/python%s)" % (job.py, r.randint(4, 14), job.py), "",
           'Thread %d (%s): "MainThread"' % (pid, "active" if kind in ("loop", "gpu") else "idle")]
    for f, ln, fn, _ in reversed(fr):
        out.append("    %s (%s:%d)" % (fn, short(f), ln))
    out += ['Thread %d (idle): "Thread-2 (_pin_memory_loop)"' % (pid + 41),
            "    select (selectors.py:416)", "    wait (multiprocessing/connection.py:931)",
            "    _pin_memory_loop (torch/utils/data/_utils/pin_memory.py:55)",
            "    run (threading.py:953)", "    _bootstrap_inner (threading.py:1016)", "    _bootstrap (threading.py:973)"]
    if kind == "lock":
        out += ['Thread %d (active): "ckpt-writer"' % (pid + 77),
                "    write (%s)" % "torch/serialization.py:%d" % r.randint(600, 900),
                "    _save (torch/serialization.py:%d)" % r.randint(860, 900),
                "    _write_shard (%s/utils/async_ckpt.py:88)" % fw.root,
                "    run (threading.py:953)"]
    return "\n".join(out) + "\n"


def fr_dump(job, fw, x):
    """Flight-recorder style JSON dump (what TORCH_NCCL_DUMP_ON_TIMEOUT leaves behind)."""
    r = job.rng
    info = job.wd_info.get(x)
    ents = []
    t_ns = int((job.t0 + 3600) * 1e9)
    nxt, prv = job.next_rank(x), job.prev_rank(x)
    seq0 = info[3] - 6 if info else r.randint(100, 9000)
    pp_gid, pp_name = pg_for(job, fw, "pp")
    for k in range(6):
        peer_send, peer_recv = nxt, prv
        for kind, peer in (("recv", peer_recv), ("send", peer_send)):
            if peer is None:
                continue
            name = "nccl:%s %d%s%d" % (kind, x, "<-" if kind == "recv" else "->", peer)
            ents.append({"record_id": len(ents), "pg_id": pp_gid, "process_group": [str(pp_gid), pp_name],
                         "collective_seq_id": 0, "p2p_seq_id": seq0 + k, "op_id": seq0 + k,
                         "profiling_name": name, "time_created_ns": t_ns + k * 10**9,
                         "input_sizes": [[fw.act_numel]], "input_dtypes": ["BFloat16"],
                         "output_sizes": [[fw.act_numel]], "output_dtypes": ["BFloat16"],
                         "state": "completed", "time_discovered_started_ns": t_ns + k * 10**9 + 1000,
                         "time_discovered_completed_ns": t_ns + k * 10**9 + 900000, "retired": True,
                         "timeout_ms": job.timeout_s * 1000, "is_p2p": True})
    if info:
        op, peer, numel, seq, ts = info
        if peer is not None and op in ("SEND", "RECV", "COALESCED"):
            kind = "send" if op == "SEND" else ("recv" if op == "RECV" else ("recv" if job.stage(x) > job.stage(peer) else "send"))
            name = "nccl:%s %d%s%d" % (kind, x, "<-" if kind == "recv" else "->", peer)
            if op == "COALESCED":
                name = "nccl:coalesced"
            ents.append({"record_id": len(ents), "pg_id": pp_gid, "process_group": [str(pp_gid), pp_name],
                         "collective_seq_id": 0, "p2p_seq_id": seq, "op_id": seq,
                         "profiling_name": name, "time_created_ns": int(ts * 1e9),
                         "input_sizes": [[numel]], "input_dtypes": ["BFloat16"], "output_sizes": [[numel]], "output_dtypes": ["BFloat16"],
                         "state": "started", "time_discovered_started_ns": int(ts * 1e9) + 2000,
                         "time_discovered_completed_ns": None, "retired": False,
                         "timeout_ms": job.timeout_s * 1000, "is_p2p": True,
                         "frames": [{"name": fn, "filename": f, "line": ln} for f, ln, fn, _ in reversed(fw.p2p_frames(kind == "recv")[-4:])]})
        else:
            ents.append({"record_id": len(ents), "pg_id": 2, "process_group": ["2", pg_for(job, fw, "dp")[1]],
                         "collective_seq_id": seq, "p2p_seq_id": 0, "op_id": seq, "profiling_name": "nccl:%s" % op.strip("_").lower(),
                         "time_created_ns": int(ts * 1e9), "input_sizes": [[numel]], "output_sizes": [[numel]],
                         "state": "started", "retired": False, "timeout_ms": job.timeout_s * 1000, "is_p2p": False})
    d = {"version": "2.4", "pg_config": {str(pp_gid): {"name": str(pp_gid), "desc": pp_name, "ranks": str([job.rank_of(s, job.coords(x)[1], job.coords(x)[2]) for s in range(job.pp)])}},
         "pg_status": {str(pp_gid): {"last_enqueued_collective": -1, "last_started_collective": -1, "last_completed_collective": -1}},
         "rank": x, "entries": ents}
    return json.dumps(d, indent=1)


# --------------------------------------------------------------------------
# launcher (agent) output
# --------------------------------------------------------------------------
def sig_name(code):
    return {-6: "SIGABRT", -9: "SIGKILL", -11: "SIGSEGV", -15: "SIGTERM", -7: "SIGBUS"}.get(code, "SIG%d" % -code)


def torchrun_lines(job, fw, h, node_rank):
    """(t, text) produced by the torchrun agent of one node."""
    r = job.rng
    out = []
    rec = job.nodefail.get(h)
    new = job.cstyle == "new"
    ap = job.agent_pid[h]

    def L(t, sev, src, msg):
        if new:
            return "%s%s %d %s] %s" % (sev[0], f_glog(job.lt(t, h), False), ap, src, msg)
        lvl = {"W": "WARNING", "E": "ERROR", "I": "INFO"}[sev[0]]
        mod = src.split(".py")[0].replace("/", ".")
        return "%s:%s:%s" % (lvl, mod, msg)
    if getattr(job, "completed", False):
        t = max(job.exit[x][0] for x in job.ranks_of_node(h)) + 0.5
        out.append((t, L(t, "I", "torch/distributed/elastic/agent/server/api.py:879", "[default] worker group successfully finished. Waiting 300 seconds for other agents to finish.")))
        out.append((t + 0.2, L(t + 0.2, "I", "torch/distributed/elastic/agent/server/api.py:932", "Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish")))
        out.append((t + 1, L(t + 1, "I", "torch/distributed/elastic/agent/server/api.py:946", "Done waiting for other agents. Elapsed: %.4f seconds" % r.uniform(0.05, 9))))
        return out
    if not rec or rec.get("kill_t") is None:
        return out
    kt = rec["kill_t"]
    site = job.site
    if rec["failures"]:
        for x in rec["term"]:
            out.append((kt, L(kt, "W", "torch/distributed/elastic/multiprocessing/api.py:897", "Sending process %d closing signal SIGTERM" % job.pid[x])))
        t1, x1, c1 = rec["failures"][0]
        te = kt + r.uniform(0.2, 2)
        out.append((te, L(te, "E", "torch/distributed/elastic/multiprocessing/api.py:869", "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: /usr/bin/python3" % (c1, job.local(x1), job.pid[x1]))))
        tb = ["Traceback (most recent call last):",
              '  File "/usr/local/bin/torchrun", line 8, in <module>', "    sys.exit(main())",
              '  File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper' % site, "    return f(*args, **kwargs)",
              '  File "%s/torch/distributed/run.py", line 919, in main' % site, "    run(args)",
              '  File "%s/torch/distributed/run.py", line 910, in run' % site, "    elastic_launch(",
              '  File "%s/torch/distributed/launcher/api.py", line 138, in __call__' % site, "    return launch_agent(self._config, self._entrypoint, list(args))",
              '  File "%s/torch/distributed/launcher/api.py", line 269, in launch_agent' % site, "    raise ChildFailedError(",
              "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
              "============================================================",
              "%s FAILED" % fw.script, "------------------------------------------------------------", "Failures:"]

        def entry(i, t, x, c):
            tbx = ("Signal %d (%s) received by PID %d" % (-c, sig_name(c), job.pid[x])) if c < 0 else "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
            return ["[%d]:" % i, "  time      : %s" % f_elastic(job.lt(t, h)), "  host      : %s" % h,
                    "  rank      : %d (local_rank: %d)" % (x, job.local(x)), "  exitcode  : %d (pid: %d)" % (c, job.pid[x]),
                    "  error_file: <N/A>", "  traceback : %s" % tbx]
        others = rec["failures"][1:]
        if not others:
            tb.append("  <NO_OTHER_FAILURES>")
        for i, (t, x, c) in enumerate(others):
            tb += entry(i + 1, t, x, c)
        tb += ["------------------------------------------------------------", "Root Cause (first observed failure):"]
        tb += entry(0, t1, x1, c1)
        tb.append("============================================================")
        out.append((te + 0.01, "\n".join(tb)))
    elif rec.get("signal_t") is not None:
        ts = rec["signal_t"]
        out.append((ts, L(ts, "W", "torch/distributed/elastic/agent/server/api.py:704", "Received Signals.SIGTERM death signal, shutting down workers")))
        for x in job.ranks_of_node(h):
            out.append((ts + 0.01, L(ts + 0.01, "W", "torch/distributed/elastic/multiprocessing/api.py:897", "Sending process %d closing signal SIGTERM" % job.pid[x])))
        tb = ["Traceback (most recent call last):",
              '  File "/usr/local/bin/torchrun", line 8, in <module>', "    sys.exit(main())",
              '  File "%s/torch/distributed/run.py", line 910, in run' % site, "    elastic_launch(",
              '  File "%s/torch/distributed/launcher/api.py", line 260, in launch_agent' % site, "    result = agent.run()",
              '  File "%s/torch/distributed/elastic/agent/server/api.py", line 696, in run' % site, "    result = self._invoke_run(role)",
              '  File "%s/torch/distributed/elastic/agent/server/api.py", line 855, in _invoke_run' % site, "    time.sleep(monitor_interval)",
              '  File "%s/torch/distributed/elastic/multiprocessing/api.py", line 84, in _terminate_process_handler' % site,
              '    raise SignalException(f"Process {os.getpid()} got signal: {sigval}", sigval=sigval)',
              "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % ap]
        out.append((ts + r.uniform(1, 30), "\n".join(tb)))
    return out


def ds_launch_lines(job, fw, h):
    r = job.rng
    out = []
    rec = job.nodefail.get(h)
    D = lambda t, lvl, src, m: "[%s] [%s] [%s] %s" % (f_iso_ms(job.lt(t, h)), lvl, src, m)
    if getattr(job, "completed", False):
        for x in job.ranks_of_node(h):
            t = job.exit[x][0] + 0.3
            out.append((t, D(t, "INFO", "launch.py:351:main", "Process %d exits successfully." % job.pid[x])))
        return out
    if not rec or rec.get("kill_t") is None:
        return out
    kt = rec["kill_t"]
    if rec["failures"]:
        for x in job.ranks_of_node(h):
            out.append((kt, D(kt, "INFO", "launch.py:319:sigkill_handler", "Killing subprocess %d" % job.pid[x])))
        t1, x1, c1 = rec["failures"][0]
        out.append((kt + 0.5, D(kt + 0.5, "ERROR", "launch.py:325:sigkill_handler", "['/usr/bin/python', '-u', '%s', '--local_rank=%d', '--deepspeed', '--deepspeed_config', 'ds_config.json'] exits with return code = %d" % (fw.script, job.local(x1), c1))))
    elif rec.get("signal_t") is not None:
        for x in job.ranks_of_node(h):
            out.append((kt, D(kt, "INFO", "launch.py:319:sigkill_handler", "Killing subprocess %d" % job.pid[x])))
    return out


# --------------------------------------------------------------------------
# helpers used by several layouts
# --------------------------------------------------------------------------
def rank_stream(job, x, prefix="", upto=None):
    """(t, text) of one rank, cut at its exit."""
    ex = job.exit.get(x)
    lim = ex[0] + 0.001 if ex else (upto if upto is not None else 1e18)
    out = []
    for t, s, text in job.lines.get(x, []):
        if t <= lim:
            if prefix:
                text = "\n".join(prefix + ln for ln in text.split("\n"))
            out.append((t, text))
    return out


def merge(items):
    items = sorted(items, key=lambda x: x[0])
    return "\n".join(x[1] for x in items) + "\n"


def noise_lines(job, host, t0, t1, n):
    r = job.rng
    out = []
    for _ in range(n):
        t = r.uniform(t0, t1)
        out.append((t, r.choice([
            "wandb: WARNING Step only supports monotonically increasing values, use define_metric to set a custom x axis. For details see: https://wandb.me/define-metric",
            "wandb: Network error (ConnectionError), entering retry loop.",
            "%s/torch/nn/modules/module.py:1747: FutureWarning: `torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', args...)` instead." % job.site,
            "[W socket.cpp:697] [c10d] The client socket has failed to connect to [%s]:29500 (errno: 99 - Cannot assign requested address)." % job.hosts[0],
            "NCCL WARN NET/IB : Got async event : port active",
            "Token indices sequence length is longer than the specified maximum sequence length for this model (9012 > 8192). Running this sequence through the model will result in indexing errors",
        ])))
    return out


def attach_kernel(job, files, prefix, hosts, style=None):
    r = job.rng
    for h in hosts:
        st = style or r.choice(["raw", "T", "syslog"])
        name = {"raw": "dmesg_%s.txt", "T": "dmesg-T_%s.log", "syslog": "kern_%s.log"}[st] % h
        files[prefix + name] = render_kernel(job, h, st)


def kernel_hosts(job):
    hs = [h for h in job.hosts if job.kernel.get(h)]
    return hs


# --------------------------------------------------------------------------
# layouts
# --------------------------------------------------------------------------
def base_opts(job):
    r = job.rng
    return {"launcher": "torchrun", "nccl_info": r.random() < 0.75, "kill_on_bad_exit": False,
            "end_cancel": False, "silent": job.cause == "hang" and r.random() < 0.4}


def hang_artifacts(job, fw, files, prefix, namefmt):
    r = job.rng
    if job.cause in ("hang", "data_loader_stall") and getattr(job, "hang_kind", None) and job.init is not None:
        files[prefix + namefmt.format(host=job.node_of(job.init), rank=job.init)] = pyspy_dump(job, fw, job.init, job.hang_kind)
    if job.init is not None and job.cause in ("hang", "data_loader_stall", "gpu_hardware") or job.cause == "collective_mismatch":
        peers = [x for x in (job.next_rank(job.init), job.prev_rank(job.init)) if x is not None] if job.init is not None else list(job.mm[1:]) if hasattr(job, "mm") else []
        for x in peers[:2]:
            if x in job.wd_info or r.random() < 0.5:
                files[prefix + namefmt.format(host=job.node_of(x), rank=x)] = pyspy_dump(job, fw, x, "peer")


def lay_megatron(job):
    r = job.rng
    nn = r.choice([2, 4, 4, 8])
    gpn = 8
    tp = r.choice([8, 4, 2]) if nn > 2 else r.choice([4, 2])
    world = nn * gpn
    pp_opts = [p for p in (2, 4, 8) if world % (tp * p) == 0 and tp * p > gpn - 1]
    pp = r.choice(pp_opts) if pp_opts else 2
    dp = world // (tp * pp)
    pre = r.choice(["gpu-a100-", "dgx-h100-", "nid00", "node"])
    start = r.randint(1, 300)
    hosts = ["%s%03d" % (pre, start + i) for i in range(nn)]
    job.set_topology(hosts, gpn, pp, tp, dp, "megatron")
    fw = FW(job, "megatron")
    opt = base_opts(job)
    opt["kill_on_bad_exit"] = r.random() < 0.5
    opt["end_cancel"] = True
    job.nccl_ranks = list(range(job.world)) if opt["nccl_info"] else []
    if job.cause == "preemption":
        job.preempt_reason = r.choice(["PREEMPTION", "TIME LIMIT"])
    sim_training(job, fw, opt)
    jid = r.randint(100000, 9999999)
    files = {}
    items = []
    lab = r.random() < 0.4
    for i, h in enumerate(hosts):
        pf = ("%d: " % i) if lab else ""
        for x in job.ranks_of_node(h):
            items += [(t, "\n".join(pf + l for l in s.split("\n"))) for t, s in rank_stream(job, x)]
        items += [(t, "\n".join(pf + l for l in s.split("\n"))) for t, s in torchrun_lines(job, fw, h, i)]
    items += noise_lines(job, hosts[0], job.t0, job.end_t, r.randint(2, 10))
    hdr = [(job.t0 - 5, "MASTER_ADDR=%s MASTER_PORT=6000 NNODES=%d GPUS_PER_NODE=%d" % (hosts[0], nn, gpn)),
           (job.t0 - 4, "+ srun --container-image=nvcr.io/nvidia/pytorch:24.%02d-py3 torchrun --nnodes %d --nproc_per_node %d --rdzv_backend c10d --rdzv_endpoint %s:6000 %s/pretrain_gpt.py --tensor-model-parallel-size %d --pipeline-model-parallel-size %d --num-layers 80 --hidden-size 8192 --seq-length 4096 --micro-batch-size 1 --global-batch-size %d --bf16 --use-distributed-optimizer --log-interval 10%s"
            % (r.randint(1, 12), nn, gpn, hosts[0], fw.root, tp, pp, fw.gbs if hasattr(fw, "gbs") else 512, " --overlap-p2p-communication" if fw.optype != "COALESCED" else ""))]
    items += hdr
    gk = job.global_kill
    if job.cause == "preemption":
        t = job.preempt_all_t
        for h in hosts:
            items.append((t + 0.01, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO %s ***" % (jid, h, f_slurm(job.lt(t, h)), job.preempt_reason)))
        if job.preempt_reason == "PREEMPTION":
            job.truth_node = None
    elif getattr(job, "user_cancel", None):
        t = job.user_cancel
        items.append((t + 0.01, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s ***" % (jid, hosts[0], f_slurm(job.lt(t, hosts[0])))))
    elif gk is not None and opt["kill_on_bad_exit"]:
        first = min((rec["failures"][0][0], h) for h, rec in job.nodefail.items() if rec["failures"])
        items.append((gk - 1, "srun: error: %s: task %d: Exited with exit code 1" % (first[1], hosts.index(first[1]))))
        items.append((gk - 0.9, "srun: Terminating StepId=%d.0" % jid))
        for h in hosts:
            if h != first[1]:
                items.append((gk + 0.05, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (jid, h, f_slurm(job.lt(gk, h)))))
        items.append((gk + 1, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
    if not getattr(job, "completed", False) and job.nodefail:
        for h, rec in job.nodefail.items():
            if rec.get("end"):
                items.append((rec["end"] + 30, "srun: error: %s: task %d: %s" % (h, hosts.index(h), "Exited with exit code 1" if rec["failures"] else "Terminated")))
    if job.cause == "host_oom_kill":
        items.append((job.end_t + 31, "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % jid))
    files["slurm-%d.out" % jid] = merge(items)
    kh = kernel_hosts(job)
    if kh:
        extra = [h for h in hosts if h not in kh]
        attach_kernel(job, files, "", kh + ([r.choice(extra)] if extra and r.random() < 0.5 else []))
    if job.cause == "straggler":
        files["nvidia-smi-q_%s.txt" % job.node_of(job.slow_rank)] = nvsmi_q(job, job.node_of(job.slow_rank), job.local(job.slow_rank))
    hang_artifacts(job, fw, files, "pyspy/", "{host}_rank{rank}.txt")
    if job.cause == "hang" and opt["silent"]:
        job.truth_rank = job.truth_node = None
    files["sacct.txt"] = sacct(job, jid)
    return files


def sacct(job, jid):
    r = job.rng
    if getattr(job, "completed", False):
        st, ec = "COMPLETED", "0:0"
    elif job.cause == "preemption":
        st, ec = ("PREEMPTED" if getattr(job, "preempt_reason", "") == "PREEMPTION" else "TIMEOUT"), "0:15"
    elif getattr(job, "user_cancel", None):
        st, ec = "CANCELLED by %d" % r.randint(1000, 60000), "0:15"
    elif job.cause == "host_oom_kill":
        st, ec = "OUT_OF_MEMORY", "0:125"
    else:
        st, ec = "FAILED", "1:0"
    el = int(job.end_t - job.t0)
    return ("JobID           JobName  Partition      State ExitCode    Elapsed        NodeList\n"
            "------------ ---------- ---------- ---------- -------- ---------- ---------------\n"
            "%-12d %10s %10s %10s %8s %10s %15s\n" % (jid, "gpt-pp", "batch", st.split()[0], ec, "%02d:%02d:%02d" % (el // 3600, el % 3600 // 60, el % 60), job.hosts[0] + ",..."))


def lay_deepspeed(job):
    r = job.rng
    nn = r.choice([2, 2, 3, 4])
    gpn = 8
    world = nn * gpn
    pp = r.choice([p for p in (2, 4, 8) if world % p == 0])
    dp = world // pp
    hosts = ["worker-%d" % i for i in range(nn)]
    job.set_topology(hosts, gpn, pp, 1, dp, "pipe_data")
    job.timeout_s = r.choice([1800, 1800, 600])
    fw = FW(job, "deepspeed")
    opt = base_opts(job)
    opt["launcher"] = "deepspeed"
    job.nccl_ranks = list(range(job.world)) if opt["nccl_info"] else []
    if job.cause == "preemption":
        opt["preempt_scope"] = "node"
    sim_training(job, fw, opt)
    files = {}
    items = []
    t = job.t0 - 3
    D = lambda t, lvl, src, m: "[%s] [%s] [%s] %s" % (f_iso_ms(job.lt(t, hosts[0])), lvl, src, m)
    items.append((t, D(t, "INFO", "runner.py:463:main", "Using IP address of %s for node %s" % (job.ip[hosts[0]], hosts[0]))))
    items.append((t + 0.1, D(t, "INFO", "multinode_runner.py:80:get_cmd", "Running on the following workers: %s" % ",".join(hosts))))
    items.append((t + 0.2, D(t, "INFO", "runner.py:568:main", "cmd = pdsh -S -f 1024 -w %s export NCCL_DEBUG=%s; export PYTHONPATH=%s;  cd %s; /usr/bin/python -u -m deepspeed.launcher.launch --world_info=eyJ3b3JrZXItMCI6IFswLCAxLCAyLCAzLCA0LCA1LCA2LCA3XX0= --node_rank=%%n --master_addr=%s --master_port=29500 %s --deepspeed_config ds_config.json --pipe-parallel-size %d"
                                % (",".join(hosts), "INFO" if opt["nccl_info"] else "WARN", fw.root, fw.root, job.ip[hosts[0]], fw.script, pp))))
    victim = getattr(job, "preempt_node", None)
    for i, h in enumerate(hosts):
        pf = "%s: " % h
        tt = job.t0 - 1
        items.append((tt, pf + "[%s] [INFO] [launch.py:146:main] WORLD INFO DICT: {%s}" % (f_iso_ms(job.lt(tt, h)), ", ".join("'%s': [0, 1, 2, 3, 4, 5, 6, 7]" % x for x in hosts))))
        items.append((tt, pf + "[%s] [INFO] [launch.py:163:main] dist_world_size=%d" % (f_iso_ms(job.lt(tt, h)), world)))
        items.append((tt, pf + "[%s] [INFO] [launch.py:165:main] Setting CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7" % f_iso_ms(job.lt(tt, h))))
        for x in job.ranks_of_node(h):
            items.append((tt + 0.1, pf + "[%s] [INFO] [launch.py:253:main] process %d spawned with command: ['/usr/bin/python', '-u', '%s', '--local_rank=%d', '--deepspeed_config', 'ds_config.json']" % (f_iso_ms(job.lt(tt, h)), job.pid[x], fw.script, job.local(x))))
        for x in job.ranks_of_node(h):
            if h == victim:
                items += [(t2, pf + s) for t2, s in rank_stream(job, x) if t2 < job.exit[x][0] - 0.01]
            else:
                items += [(t2, "\n".join(pf + l for l in s.split("\n"))) for t2, s in rank_stream(job, x)]
        if h != victim:
            items += [(t2, pf + s) for t2, s in ds_launch_lines(job, fw, h)]
    for h, rec in job.nodefail.items():
        if rec.get("failures") and h != victim:
            items.append((rec["end"] + 0.5, "pdsh@%s: %s: ssh exited with exit code %d" % (hosts[0], h, abs(rec["failures"][0][2]) if rec["failures"][0][2] > 0 else 128 - rec["failures"][0][2])))
    if victim:
        tv = min(job.exit[x][0] for x in job.ranks_of_node(victim))
        items.append((tv + 5, "%s: Connection to %s closed by remote host." % (victim, victim)))
        items.append((tv + 5.1, "pdsh@%s: %s: ssh exited with exit code 255" % (hosts[0], victim)))
        files["instance_events.txt"] = ("%sZ  %s  instance-action: terminate  (EC2 Spot Instance interruption notice, 2 minute warning)\n%sZ  %s  state: shutting-down\n"
                                        % (f_slurm(tv - 118), victim, f_slurm(tv), victim))
    items += noise_lines(job, hosts[0], job.t0, job.end_t, r.randint(1, 6))
    files["train.log"] = merge(items)
    files["hostfile"] = "".join("%s slots=8\n" % h for h in hosts)
    files["ds_config.json"] = json.dumps({"train_batch_size": fw.gbs, "train_micro_batch_size_per_gpu": r.choice([1, 2, 4]),
                                          "gradient_accumulation_steps": r.choice([8, 16, 32]), "bf16": {"enabled": True},
                                          "pipeline": {"activation_checkpoint_interval": 1}, "steps_per_print": 10,
                                          "wall_clock_breakdown": False}, indent=2) + "\n"
    kh = kernel_hosts(job)
    if kh:
        attach_kernel(job, files, "syslogs/", kh)
    if job.cause == "straggler":
        files["nvidia-smi-q_%s.txt" % job.node_of(job.slow_rank)] = nvsmi_q(job, job.node_of(job.slow_rank), job.local(job.slow_rank))
    hang_artifacts(job, fw, files, "", "py-spy_{host}_rank{rank}.txt")
    if job.cause == "hang" and opt["silent"]:
        job.truth_rank = job.truth_node = None
    return files


def lay_titan(job):
    r = job.rng
    nn = r.choice([2, 2, 4])
    gpn = 8
    world = nn * gpn
    pp = r.choice([p for p in (2, 4, 8) if p <= world // 2 and p >= nn])
    dp = world // pp
    if r.random() < 0.5:
        hosts = ["ip-10-%d-%d-%d" % (r.randint(0, 3), r.randint(0, 255), r.randint(1, 254)) for _ in range(nn)]
    else:
        hosts = ["a3mega-%s-%d" % (r.choice(["vm", "node"]), r.randint(100, 999)) for _ in range(nn)]
    job.set_topology(hosts, gpn, pp, 1, dp, "pipe_data")
    fw = FW(job, "titan")
    opt = base_opts(job)
    opt["can_hide"] = True
    opt["end_cancel"] = True
    job.nccl_ranks = list(range(job.world)) if opt["nccl_info"] else []
    sim_training(job, fw, opt)
    files = {}
    runid = "%d_%s" % (r.randint(100, 99999), "".join(r.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(8)))
    tee = r.random() < 0.7
    hide = getattr(job, "hide_node", None)
    for i, h in enumerate(hosts):
        if h == hide:
            continue
        items = []
        for x in job.ranks_of_node(h):
            pf = "[default%d]:" % job.local(x) if tee else ""
            items += [(t, "\n".join(pf + l for l in s.split("\n"))) for t, s in rank_stream(job, x)]
            if tee is False:
                files["%s/%s/attempt_0/%d/stderr.log" % (h, runid, job.local(x))] = merge([(t, s) for t, s in rank_stream(job, x)]) if job.lines.get(x) else ""
            ex = job.exit.get(x)
            if ex and ex[1] == 1 and any("Traceback" in s for _, st, s in job.lines.get(x, []) if st == "err"):
                tbtxt = [s for _, st, s in job.lines[x] if "Traceback" in s][-1]
                files["%s/%s/attempt_0/%d/error.json" % (h, runid, job.local(x))] = json.dumps({"message": {"message": tbtxt.strip().split("\n")[-1].replace("[rank%d]: " % x, ""), "extraInfo": {"py_callstack": tbtxt, "timestamp": str(int(ex[0]))}}}, indent=2) + "\n"
        items += torchrun_lines(job, fw, h, i)
        items += noise_lines(job, h, job.t0, job.end_t, r.randint(0, 4))
        files["%s/torchrun_console.log" % h] = merge(items)
    if getattr(job, "wd_info", None) and r.random() < 0.8:
        for x in sorted(job.wd_info)[: r.randint(2, 8)]:
            if job.node_of(x) != hide:
                files["fr_traces/nccl_trace_rank_%d.json" % x] = fr_dump(job, fw, x)
        if job.init is not None and job.cause in ("hang", "data_loader_stall") and r.random() < 0.7:
            job.wd_info.setdefault(job.init, None) if False else None
            files["fr_traces/nccl_trace_rank_%d.json" % job.init] = fr_dump(job, fw, job.init)
    kh = [h for h in kernel_hosts(job) if h != hide]
    if kh:
        attach_kernel(job, files, "node_logs/", kh)
    if job.cause == "preemption":
        files["scheduler_events.txt"] = "%s  job %s  state=PREEMPTED reason=\"preempted by higher priority job (qos=high)\"\n" % (f_slurm(job.preempt_all_t), runid)
    if getattr(job, "user_cancel", None):
        files["scheduler_events.txt"] = "%s  job %s  state=CANCELLED reason=\"cancelled by user\"\n" % (f_slurm(job.user_cancel), runid)
    if job.cause == "straggler":
        files["node_logs/nvidia-smi-q_%s.txt" % job.node_of(job.slow_rank)] = nvsmi_q(job, job.node_of(job.slow_rank), job.local(job.slow_rank))
    hang_artifacts(job, fw, files, "pyspy/", "{host}_rank{rank}.txt")
    if job.cause == "hang" and opt["silent"]:
        job.truth_rank = job.truth_node = None
    if hide:
        job.truth_rank = job.truth_node = None
    return files


def lay_pippy(job):
    r = job.rng
    nn = r.choice([2, 2, 4])
    gpn = r.choice([4, 8])
    world = nn * gpn
    pp = r.choice([p for p in (2, 4, 8, 16) if world % p == 0 and p >= nn and p <= world])
    dp = world // pp
    jn = r.choice(["llm-pp", "pp-train", "gpt-pipe"]) + "-%s" % "".join(r.choice("abcdef0123456789") for _ in range(5))
    hosts = ["%s-master-0" % jn] + ["%s-worker-%d" % (jn, i) for i in range(nn - 1)]
    job.set_topology(hosts, gpn, pp, 1, dp, "pipe_data")
    fw = FW(job, "pippy")
    opt = base_opts(job)
    opt["can_hide"] = True
    job.nccl_ranks = list(range(job.world)) if opt["nccl_info"] else []
    if job.cause == "preemption":
        opt["preempt_scope"] = "node"
    sim_training(job, fw, opt)
    files = {}
    knodes = {h: "gke-%s-a3-pool-%s-%s" % (r.choice(["prod", "ml"]), "".join(r.choice("0123456789abcdef") for _ in range(8)), "".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(4))) for h in hosts}
    hide = getattr(job, "hide_node", None)
    for i, h in enumerate(hosts):
        if h == hide:
            continue
        items = []
        for x in job.ranks_of_node(h):
            items += rank_stream(job, x)
        items += torchrun_lines(job, fw, h, i)
        files["pods/%s.log" % h] = merge(items)
    desc, ev = [], []
    for h in hosts:
        rec = job.nodefail.get(h) or {}
        fails = rec.get("failures") or []
        if getattr(job, "completed", False):
            state = "Terminated\n      Reason:       Completed\n      Exit Code:    0"
        elif rec.get("kill_t") is None:
            state = "Running\n      Started:      %s" % f_slurm(job.t0)
        elif h == getattr(job, "preempt_node", None):
            state = "Terminated\n      Reason:       Error\n      Exit Code:    143"
        else:
            state = "Terminated\n      Reason:       Error\n      Exit Code:    1"
        desc.append("Name:             %s\nNamespace:        training\nNode:             %s/%s\nContainers:\n  pytorch:\n    Image:          us-docker.pkg.dev/ml/train/pp:%s\n    State:          %s\n    Limits:\n      memory:          %dGi\n      nvidia.com/gpu:  %d\n"
                    % (h, knodes[h], job.ip[h], job.torch_ver, state, r.choice([640, 900, 1200]), job.gpn))
    if job.cause == "host_oom_kill":
        ev.append("%s   Warning   OOMKilling   node/%s   Memory cgroup out of memory: Killed process %d (python) total-vm:%dkB, anon-rss:%dkB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:%dkB oom_score_adj:%d"
                  % (f_slurm(job.exit[job.init][0]), knodes[job.node_of(job.init)], job.pid[job.init], r.randint(2e8, 4e8), r.randint(1.2e8, 2e8), r.randint(3e5, 9e5), r.choice([-997, 999, 0])))
        job.kernel.pop(job.node_of(job.init), None)
    if job.cause == "preemption":
        v = job.preempt_node
        tv = min(job.exit[x][0] for x in job.ranks_of_node(v))
        kind = r.choice(["spot", "evict"])
        if kind == "spot":
            ev.append("%s   Warning   NodeShutdown   node/%s   Node is shutting down: preempted (spot VM reclaimed by Compute Engine)" % (f_slurm(tv - 25), knodes[v]))
            ev.append("%s   Normal    Killing   pod/%s   Stopping container pytorch" % (f_slurm(tv - 1), v))
        else:
            ev.append("%s   Warning   Evicted   pod/%s   The node was low on resource: ephemeral-storage. Threshold quantity: 10Gi, available: 8123456Ki." % (f_slurm(tv - 2), v))
            ev.append("%s   Normal    Killing   pod/%s   Stopping container pytorch" % (f_slurm(tv - 1), v))
    for h in hosts:
        ev.append("%s   Normal    Started   pod/%s   Started container pytorch" % (f_slurm(job.t0 - 20), h))
    ev.append("%s   Normal    SuccessfulCreatePod   pytorchjob/%s   Created pod: %s" % (f_slurm(job.t0 - 40), hosts[0].rsplit("-master", 1)[0], hosts[0]))
    ev.sort()
    files["kubectl_describe_pods.txt"] = "\n".join(desc)
    files["kubectl_get_events.txt"] = "LAST SEEN             TYPE      REASON   OBJECT   MESSAGE\n" + "\n".join(ev) + "\n"
    kh = [h for h in kernel_hosts(job) if h != hide]
    for h in kh:
        files["node-dmesg/%s.txt" % knodes[h]] = render_kernel(job, h, "T")
    if job.cause == "straggler":
        job.truth_rank = job.slow_rank if job.dp == 1 else None
        files["nvidia-smi_%s.txt" % job.node_of(job.slow_rank)] = nvsmi_q(job, job.node_of(job.slow_rank), job.local(job.slow_rank))
    hang_artifacts(job, fw, files, "debug/", "py-spy-dump-{host}-rank{rank}.txt")
    if job.cause == "hang" and opt["silent"]:
        job.truth_rank = job.truth_node = None
    if hide:
        job.truth_rank = job.truth_node = None
    return files


def trim(text, head, tail, r):
    ls = text.rstrip("\n").split("\n")
    if len(ls) <= head + tail + 5:
        return "\n".join(ls)
    return "\n".join(ls[:head] + [r.choice(["...", "[... trimmed ...]", "<snip>", "..."])] + ls[-tail:])


def lay_paste(job):
    r = job.rng
    two = job.cause in ("network",) or (job.cause == "unknown" and r.random() < 0.5)
    nn = 2 if two else 1
    gpn = r.choice([2, 4, 4, 8]) if not two else r.choice([1, 2, 4])
    world = nn * gpn
    hosts = [r.choice(["gpu-box", "dl-server", "node", "worker"]) + str(i + r.randint(1, 9)) for i in range(nn)]
    if len(set(hosts)) < nn:
        hosts = ["%s-%d" % (hosts[0], i) for i in range(nn)]
    job.set_topology(hosts, gpn, world, 1, 1, "pipe_data")
    if job.fabric == "RoCE" and r.random() < 0.5:
        job.fabric = "Socket"
    job.timeout_s = r.choice([600, 1800, 120, 300])
    fw = FW(job, "custom")
    opt = base_opts(job)
    opt["can_hide"] = True
    opt["nccl_info"] = r.random() < 0.8
    if job.cause == "hang":
        opt["silent"] = r.random() < 0.7
    if job.cause == "network" and world < 2:
        pass
    job.nccl_ranks = list(range(job.world)) if opt["nccl_info"] else []
    sim_training(job, fw, opt)
    items = []
    for x in job.ranks_of_node(hosts[0]):
        items += rank_stream(job, x)
    items += torchrun_lines(job, fw, hosts[0], 0)
    main = merge(items)
    if job.cause == "hang" and opt["silent"]:
        main = main.rstrip("\n")
        body = trim(main, 30, 40, r)
    else:
        body = trim(main, r.randint(10, 30), r.randint(40, 90), r)
    parts = ["### 🐛 Describe the bug", "",
             r.choice(["I'm training a model split across GPUs with plain `dist.send`/`dist.recv` between stages (manual pipeline).",
                       "Custom model-parallel code: each GPU holds a slice of layers and passes activations with send/recv.",
                       "We implemented a simple GPipe-style schedule with torch.distributed p2p ops."]),
             r.choice(["It ran for a while and then failed, log below (trimmed).", "Here is the output:", "Full log is huge, pasting the relevant part."]), "",
             "```python", "# stage loop (simplified)", "for step in range(steps):",
             "    if rank > 0:", "        dist.recv(buf_in, src=rank - 1)", "    out = block(buf_in if rank > 0 else next(loader))",
             "    if rank < world - 1:", "        dist.send(out, dst=rank + 1)", "```", "",
             "Launched with `torchrun --nproc_per_node %d%s %s`" % (gpn, " --nnodes 2 --rdzv_endpoint %s:29400" % hosts[0] if two else "", fw.script), "",
             "Output%s:" % (" on %s" % hosts[0] if two else ""), "```", body, "```"]
    if two:
        items = []
        for x in job.ranks_of_node(hosts[1]):
            items += rank_stream(job, x)
        items += torchrun_lines(job, fw, hosts[1], 1)
        other = merge(items)
        if job.cause == "unknown" and getattr(job, "hide_node", None) == hosts[1]:
            parts += ["", "(I don't have the log from %s anymore, the node was recycled)" % hosts[1]]
        else:
            parts += ["", "and on %s:" % hosts[1], "```", trim(other, 5, r.randint(20, 50), r), "```"]
            if getattr(job, "hide_node", None) == hosts[0]:
                job.hide_node = None
    if job.cause == "hang" and opt["silent"]:
        parts += ["", r.choice(["It just sits there forever after this. No error, no timeout (I waited 2h). nvidia-smi shows 100% util on all GPUs.",
                                "Hangs here. Nothing printed afterwards, had to Ctrl-C.", "No error at all, the process is just stuck. Any idea?"])]
    kh = kernel_hosts(job)
    if kh and job.cause != "unknown":
        h = kh[0]
        parts += ["", "`sudo dmesg -T | tail` on %s:" % h, "```", trim(render_kernel(job, h, "T", noise=r.random() < 0.5), 3, 12, r), "```"]
    if job.cause == "straggler":
        parts += ["", "Training is ~2-3x slower than expected after a few minutes. `nvidia-smi -q -d PERFORMANCE,TEMPERATURE,CLOCK` on %s:" % job.node_of(job.slow_rank), "```",
                  trim(nvsmi_q(job, job.node_of(job.slow_rank), job.local(job.slow_rank)), 6, 200, r), "```"]
        job.truth_rank = None
    if job.cause in ("hang", "data_loader_stall") and getattr(job, "hang_kind", None) and job.init is not None and r.random() < 0.8:
        parts += ["", "py-spy dump of rank %d (pid %d) while stuck:" % (job.init, job.pid[job.init]), "```", pyspy_dump(job, fw, job.init, job.hang_kind).rstrip(), "```"]
    elif job.cause in ("hang", "data_loader_stall") and job.init is not None:
        # no stack of the stuck rank: only its peers' timeouts remain
        if not (job.init in [x for x in job.ranks_of_node(hosts[0])]):
            job.truth_rank = None
    parts += ["", "### Versions", "", "```", "PyTorch version: %s+cu%s" % (job.torch_ver, job.cuda_ver.replace(".", "")), "Is debug build: False",
              "CUDA used to build PyTorch: %s" % job.cuda_ver, "OS: Ubuntu 22.04.4 LTS (x86_64)", "Python version: %s.12 (main) [GCC 11.4.0] (64-bit runtime)" % job.py,
              "GPU models and configuration:"] + ["GPU %d: %s" % (i, job.gpu_name) for i in range(gpn)] + ["", "Versions of relevant libraries:", "[pip3] torch==%s" % job.torch_ver, "[pip3] nvidia-nccl-cu12==%s" % job.nccl_ver, "```"]
    if job.cause == "hang" and opt["silent"]:
        job.truth_rank = job.truth_node = None
    if getattr(job, "hide_node", None):
        job.truth_rank = job.truth_node = None
    if job.cause == "network" and not kh:
        job.truth_node = None
    return {"issue.md": "\n".join(parts) + "\n"}


# --------------------------------------------------------------------------
# vLLM disaggregated prefill/decode with NCCL KV-cache transfer
# --------------------------------------------------------------------------
def lay_vllm(job):
    r = job.rng
    c = job.cause
    tp = r.choice([1, 2, 4]) if c != "nvlink" else r.choice([2, 4])
    hp = "gpu-%s-%02d" % (r.choice(["inf", "serve"]), r.randint(1, 40))
    hd = "gpu-%s-%02d" % (r.choice(["inf", "serve"]), r.randint(41, 80))
    job.set_topology([hp, hd], tp, 2, tp, 1, "megatron")
    files = {}
    ver = r.choice(["0.7.3", "0.8.2", "0.8.5"])
    model = r.choice(["meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen2.5-32B-Instruct", "meta-llama/Llama-3.3-70B-Instruct"])
    kvport = r.randint(14000, 15999)
    L = {hp: [], hd: []}
    proxy = []
    pids = {hp: r.randint(1000, 90000), hd: r.randint(1000, 90000)}

    def V(h, t, lvl, src, msg):
        L[h].append((t, "%s %s [%s] %s" % (lvl, f_vllm(job.lt(t, h)), src, msg) if ver >= "0.8" else "%s %s %s %s" % (lvl, f_vllm(job.lt(t, h)), src, msg)))
    t = job.t0
    for h, role, krank, port in ((hp, "kv_producer", 0, 8100), (hd, "kv_consumer", 1, 8200)):
        V(h, t, "INFO", "__init__.py:239", "Automatically detected platform cuda.")
        V(h, t + 1, "INFO", "api_server.py:1043", "vLLM API server version %s" % ver)
        V(h, t + 1.1, "INFO", "api_server.py:1044", "args: Namespace(model='%s', tensor_parallel_size=%d, port=%d, max_model_len=%d, gpu_memory_utilization=0.8, kv_transfer_config=KVTransferConfig(kv_connector='PyNcclConnector', kv_role='%s', kv_rank=%d, kv_parallel_size=2, kv_ip='%s', kv_port=%d), ...)"
          % (model, tp, port, r.choice([8192, 16384, 32768]), role, krank, job.ip[hp], kvport))
        V(h, t + 5, "INFO", "config.py:689", "This model supports multiple tasks: {'generate', 'embed', 'reward', 'score', 'classify'}. Defaulting to 'generate'.")
        if tp > 1:
            V(h, t + 8, "INFO", "multiproc_worker_utils.py:124", "Worker ready; awaiting tasks")
        V(h, t + 9, "INFO", "pynccl.py:69", "vLLM is using nccl==%s" % job.nccl_ver)
        V(h, t + 9.5, "WARNING", "custom_all_reduce.py:136", "Custom allreduce is disabled because it's not supported on more than two PCIe-only GPUs. To silence this warning, specify disable_custom_all_reduce=True explicitly.") if tp > 2 and r.random() < 0.4 else None
        V(h, t + 10, "INFO", "simple_connector.py:82", "Initializing PyNcclConfig under kv_transfer_config kv_connector='PyNcclConnector' kv_buffer_device='cuda' kv_buffer_size=1000000000.0 kv_role='%s' kv_rank=%d kv_parallel_size=2 kv_ip='%s' kv_port=%d" % (role, krank, job.ip[hp], kvport))
        V(h, t + 11, "INFO", "parallel_state.py:958", "rank 0 in world size %d is assigned as DP rank 0, PP rank 0, TP rank 0" % tp)
        V(h, t + 30, "INFO", "loader.py:447", "Loading weights took %.2f seconds" % r.uniform(10, 90))
        V(h, t + 31, "INFO", "model_runner.py:1115", "Model loading took %.4f GiB and %.6f seconds" % (r.uniform(15, 70), r.uniform(12, 95)))
        V(h, t + 40, "INFO", "executor_base.py:111", "# cuda blocks: %d, # CPU blocks: %d" % (r.randint(8000, 40000), 2048))
        V(h, t + 41, "INFO", "executor_base.py:116", "Maximum concurrency for 8192 tokens per request: %.2fx" % r.uniform(20, 90))
        V(h, t + 60, "INFO", "api_server.py:1090", "Starting vLLM API server on http://0.0.0.0:%d" % port)
        L[h].append((t + 61, "INFO:     Started server process [%d]" % pids[h]))
        L[h].append((t + 61.1, "INFO:     Waiting for application startup."))
        L[h].append((t + 61.2, "INFO:     Application startup complete."))
        L[h].append((t + 61.3, "INFO:     Uvicorn running on http://0.0.0.0:%d (Press CTRL+C to quit)" % port))
    # NCCL p2p setup between producer and consumer
    for h, rk in ((hp, 0), (hd, 1)):
        p = "%s:%d:%d [0] " % (h, pids[h], pids[h] + 51)
        L[h].append((t + 70, p + "NCCL INFO Channel 00/1 : 0[0] -> 1[0] [%s] via NET/%s/0%s" % ("send" if rk == 0 else "receive", "Socket" if job.fabric == "Socket" else "IB", "" if job.fabric == "Socket" else "/GDRDMA")))
        L[h].append((t + 70.1, p + "NCCL INFO ncclCommInitRank comm 0x%x rank %d nranks 2 cudaDev 0 nvmlDev 0 busId %s000 commId 0x%016x - Init COMPLETE" % (r.getrandbits(44), rk, job.busid[0], r.getrandbits(64))))
    t += 80
    n = r.randint(20, 90)
    ttft = r.uniform(0.15, 0.6)
    slow_from = r.randint(5, n // 2) if c == "straggler" else None
    cli = "10.%d.%d.%d" % (r.randint(0, 9), r.randint(0, 255), r.randint(2, 250))
    for i in range(n):
        t += r.uniform(2, 12)
        k = ttft * (r.uniform(3, 6) if slow_from is not None and i >= slow_from else 1) * r.uniform(0.8, 1.3)
        L[hp].append((t, "INFO:     %s:%d - \"POST /v1/completions HTTP/1.1\" 200 OK" % (job.ip[hd] if False else "127.0.0.1", r.randint(30000, 60000))))
        L[hd].append((t + k, "INFO:     127.0.0.1:%d - \"POST /v1/completions HTTP/1.1\" 200 OK" % r.randint(30000, 60000)))
        if i % 5 == 0:
            for h in (hp, hd):
                V(h, t + 0.2, "INFO", "metrics.py:489", "Avg prompt throughput: %.1f tokens/s, Avg generation throughput: %.1f tokens/s, Running: %d reqs, Swapped: 0 reqs, Pending: %d reqs, GPU KV cache usage: %.1f%%, CPU KV cache usage: 0.0%%."
                  % (r.uniform(500, 20000) if h == hp else 0.0, r.uniform(1, 50) if h == hp else r.uniform(100, 3000), r.randint(0, 40), r.randint(0, 5) if slow_from is None or i < slow_from else r.randint(20, 90), r.uniform(1, 60)))
        proxy.append((t + k + 2, "%s - - [%s +0000] \"POST /v1/completions HTTP/1.1\" 200 %d \"-\" \"python-requests/2.32.3\" ttft=%.3fs" % (cli, dtm(job.lt(t, hp)).strftime("%d/%b/%Y:%H:%M:%S"), r.randint(400, 9000), k)))
    tf = t + r.uniform(1, 5)
    job.end_t = tf + 900
    init_h = None
    culprit = r.choice([hp, hd])
    eng_tb = lambda h, exc: [(tf + 0.1, "ERROR %s [engine.py:160] %s" % (f_vllm(job.lt(tf, h)), exc.split("\n")[-1])),
                             (tf + 0.11, py_tb(job, [("%s/vllm/engine/multiprocessing/engine.py" % job.site, 158, "start", "self.run_engine_loop()"),
                                                     ("%s/vllm/engine/multiprocessing/engine.py" % job.site, 221, "run_engine_loop", "request_outputs = self.engine_step()"),
                                                     ("%s/vllm/engine/llm_engine.py" % job.site, 1386, "step", "outputs = self.model_executor.execute_model("),
                                                     ("%s/vllm/worker/model_runner.py" % job.site, 1742, "execute_model", "get_kv_transfer_group().send_kv_caches_and_hidden_states(" if h == hp else "get_kv_transfer_group().recv_kv_caches_and_hidden_states(")], exc)),
                             (tf + 0.5, "CRITICAL %s [launcher.py:116] MQLLMEngine is already dead, terminating server process" % f_vllm(job.lt(tf, h))),
                             (tf + 0.6, "INFO:     127.0.0.1:%d - \"POST /v1/completions HTTP/1.1\" 500 Internal Server Error" % r.randint(30000, 60000)),
                             (tf + 0.7, "INFO:     Shutting down"), (tf + 0.9, "INFO:     Finished server process [%d]" % pids[h])]
    peer_err = lambda h, dt: [(tf + dt, "%s:%d:%d [0] %s NCCL WARN %s" % (h, pids[h], pids[h] + 77, "misc/socket.cc:50" if job.fabric == "Socket" else "transport/net_ib.cc:2263",
                                                                          ib_error_text(job, 0 if h == hp else 1, 1 if h == hp else 0, "send" if h == hp else "recv"))),
                              (tf + dt + 0.2, "ERROR %s [pynccl_pipe.py:%d] %s" % (f_vllm(job.lt(tf + dt, h)), 241 if h == hp else 262,
                                                                                   "Encountering exception in KV sending thread" if h == hp else "Encountering exception in KV receiving thread")),
                              (tf + dt + 0.3, "RuntimeError: NCCL error: remote process exited or there was a network error")]
    proxy_err = lambda dt, what: proxy.append((tf + dt, "ERROR:disagg_proxy:request to %s failed: %s" % ("http://%s:8200/v1/completions" % job.ip[hd], what)))
    note = ""
    job.truth_rank = None
    if c in ("gpu_hardware", "ecc_memory", "nvlink", "illegal_memory_access"):
        init_h = culprit
        pci = "0000:%s:00" % job.busid[0]
        xid = {"gpu_hardware": "79, pid=%d, name=python3, GPU has fallen off the bus." % pids[init_h],
               "ecc_memory": "48, pid=%d, name=python3, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 3, subpartition 0." % pids[init_h],
               "nvlink": "74, pid=%d, name=python3, NVLink: fatal error detected on link 4(0x0, 0x0, 0x0, 0x0, 0x10000, 0x0, 0x0)" % pids[init_h],
               "illegal_memory_access": "31, pid=%d, name=python3, Ch 00000008, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_2 faulted @ 0x7f12_a0000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % pids[init_h]}[c]
        if c != "illegal_memory_access" or r.random() < 0.5:
            job.kmsg(init_h, tf - 0.2, "NVRM: Xid (PCI:%s): %s" % (pci, xid))
        msg = {"gpu_hardware": "unspecified launch failure", "ecc_memory": "uncorrectable ECC error encountered",
               "nvlink": "uncorrectable NVLink error was detected during the execution", "illegal_memory_access": "an illegal memory access was encountered"}[c]
        L[init_h] += eng_tb(init_h, "RuntimeError: CUDA error: %s%s" % (msg, CUDA_TAIL.rstrip()))
        other = hd if init_h == hp else hp
        L[other] += peer_err(other, r.uniform(1, 30))
        proxy_err(1, "500 Internal Server Error")
        note = "%s on the %s instance (%s)" % (c, "prefill" if init_h == hp else "decode", init_h)
    elif c == "network":
        init_h = culprit
        job.kmsg(init_h, tf - 2, "mlx5_core 0000:18:00.0 %s: Link down" % job.netdev)
        for h in (hp, hd):
            L[h] += peer_err(h, r.uniform(15, 35))
        proxy_err(40, "ServerDisconnectedError()")
        note = "NIC link down on %s broke the prefill->decode KV transfer" % init_h
    elif c == "cuda_oom":
        init_h = hd
        L[hd] += eng_tb(hd, oom_text(job, 1 * tp))
        proxy_err(1, "500 Internal Server Error")
        note = "decode instance ran out of GPU memory while allocating the KV receive buffer"
    elif c == "python_exception":
        init_h = culprit
        L[init_h] += eng_tb(init_h, r.choice(["AssertionError: Expected 32 layers of KV caches, got 0", "KeyError: 'input_tokens'", "ValueError: too many values to unpack (expected 3)"]))
        proxy_err(1, "500 Internal Server Error")
        note = "uncaught exception in the %s engine" % ("prefill" if init_h == hp else "decode")
    elif c == "host_oom_kill":
        init_h = culprit
        job.kmsg(init_h, tf, "Out of memory: Killed process %d (python3) total-vm:%dkB, anon-rss:%dkB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:%dkB oom_score_adj:0" % (pids[init_h], r.randint(3e8, 5e8), r.randint(2e8, 3e8), r.randint(4e5, 9e5)))
        L[init_h].append((tf + 0.1, "Killed"))
        proxy_err(0.5, "ClientConnectorError: Cannot connect to host %s:%d ssl:default [Connect call failed ('%s', %d)]" % (job.ip[init_h], 8100 if init_h == hp else 8200, job.ip[init_h], 8100 if init_h == hp else 8200))
        note = "host OOM killer killed the %s server" % ("prefill" if init_h == hp else "decode")
    elif c == "crash_signal":
        init_h = culprit
        L[init_h].append((tf, "Fatal Python error: Segmentation fault\n\nCurrent thread 0x%016x (most recent call first):\n  File \"%s/vllm/distributed/kv_transfer/kv_lookup_buffer/simple_buffer.py\", line 188 in drop_select\n  File \"%s/vllm/distributed/kv_transfer/kv_connector/simple_connector.py\", line 254 in recv_kv_caches_and_hidden_states" % (r.getrandbits(47), job.site, job.site)))
        other = hd if init_h == hp else hp
        L[other] += peer_err(other, r.uniform(1, 20))
        proxy_err(1, "ServerDisconnectedError()")
        note = "segfault in the %s process" % ("prefill" if init_h == hp else "decode")
    elif c == "preemption":
        init_h = culprit
        L[init_h] += [(tf, "INFO %s [launcher.py:74] Shutting down FastAPI HTTP server." % f_vllm(job.lt(tf, init_h))), (tf + 0.2, "INFO:     Shutting down"),
                      (tf + 0.3, "INFO:     Waiting for application shutdown."), (tf + 0.4, "INFO:     Application shutdown complete.")]
        files["k8s_events.txt"] = "%s   Warning   NodeShutdown   node/%s   Node is shutting down: spot VM preempted\n" % (f_slurm(tf - 20), init_h)
        other = hd if init_h == hp else hp
        L[other] += peer_err(other, r.uniform(5, 30))
        note = "spot preemption of %s" % init_h
    elif c == "hang":
        silent = r.random() < 0.5
        proxy_err(300, "TimeoutError()")
        proxy_err(600, "TimeoutError()")
        if silent:
            note = "KV transfer stalled with no error anywhere; decode waits in drop_select, prefill shows nothing"
        else:
            init_h = hp
            files["py-spy_prefill_%s.txt" % hp] = ("Process %d: python3 -m vllm.entrypoints.openai.api_server --model %s\nPython v%s.12 (/usr/bin/python3)\n\nThread %d (idle): \"MainThread\"\n    select (selectors.py:468)\n    _run_once (asyncio/base_events.py:1898)\nThread %d (idle): \"Thread-4 (send_kv)\"\n    acquire (threading.py:168)\n    wait (threading.py:320)\n    _send_impl (vllm/distributed/kv_transfer/kv_pipe/pynccl_pipe.py:203)\n    send_tensor (vllm/distributed/kv_transfer/kv_pipe/pynccl_pipe.py:250)\n    insert (vllm/distributed/kv_transfer/kv_lookup_buffer/simple_buffer.py:231)\n"
                                                   % (pids[hp], model, job.py, pids[hp], pids[hp] + 31))
            files["py-spy_decode_%s.txt" % hd] = ("Process %d: python3 -m vllm.entrypoints.openai.api_server --model %s\nPython v%s.12 (/usr/bin/python3)\n\nThread %d (active): \"MainThread\"\n    recv_tensor (vllm/distributed/kv_transfer/kv_pipe/pynccl_pipe.py:272)\n    drop_select (vllm/distributed/kv_transfer/kv_lookup_buffer/simple_buffer.py:188)\n    recv_kv_caches_and_hidden_states (vllm/distributed/kv_transfer/kv_connector/simple_connector.py:254)\n"
                                                  % (pids[hd], model, job.py, pids[hd]))
            note = "the prefill worker's KV send thread deadlocked; decode waits in drop_select forever"
    elif c == "collective_mismatch":
        L[hd].append((tf + 3, "WARNING %s [simple_connector.py:304] [rank0]: Failed to receive all KVs and hidden states, redo model forwarding." % f_vllm(job.lt(tf, hd))))
        L[hd] += eng_tb(hd, "RuntimeError: shape '[%d, 2, %d, 8, 128]' is invalid for input of size %d" % (r.randint(100, 900), 32, r.randint(10**6, 10**8)))
        proxy_err(2, "500 Internal Server Error")
        note = "prefill (tp=%d) and decode were configured differently, KV tensors sent by the producer did not match what the consumer expected" % tp
    elif c == "straggler":
        init_h = hp
        files["nvidia-smi-q_%s.txt" % hp] = nvsmi_q(job, hp, 0)
        note = "prefill GPU throttled; TTFT grew several-fold"
    elif c == "unknown":
        init_h = None
        L[culprit].append((tf, "ERROR %s [engine.py:160] Engine loop has died" % f_vllm(job.lt(tf, culprit))))
        proxy_err(0.5, "ServerDisconnectedError()")
        note = "one instance died without saying why"
    job.end_t = tf + 900
    files["prefill.log"] = merge([x for x in L[hp] if x])
    files["decode.log"] = merge([x for x in L[hd] if x])
    proxy.insert(0, (job.t0 + 62, "INFO:disagg_proxy:prefill=http://%s:8100 decode=http://%s:8200" % (job.ip[hp], job.ip[hd])))
    files["proxy.log"] = merge(proxy)
    for h in kernel_hosts(job):
        files["dmesg_%s.txt" % h] = render_kernel(job, h, r.choice(["raw", "T"]))
    job.truth_node = init_h if (c not in ("unknown",) and init_h) else None
    if c == "hang" and init_h is None:
        job.truth_node = None
    job.note = note
    return files


LAYOUT_FN = {"megatron-slurm": lay_megatron, "deepspeed-pdsh": lay_deepspeed, "titan-torchrun": lay_titan,
             "pippy-k8s": lay_pippy, "issue-paste": lay_paste, "vllm-disagg": lay_vllm}


def make_run(seed, i, layout, cause, healthy):
    rng = random.Random("blind43:%s:%d:%s:%s" % (seed, i, layout, cause))
    job = Job(rng, layout, cause, healthy)
    job.note = ""
    if healthy and layout == "vllm-disagg":
        layout = job.layout = "titan-torchrun"
    files = LAYOUT_FN[layout](job)
    if healthy:
        truth = {"healthy": True, "cause": None, "initiator": None, "layout": layout,
                 "notes": "run completed normally; harmless warnings only (NCCL plugin/net fallbacks, deprecation warnings, process-group destructor warning)"}
    else:
        rk = getattr(job, "truth_rank", None)
        nd = getattr(job, "truth_node", None)
        if rk is not None:
            nd = job.node_of(rk)
        truth = {"healthy": False, "cause": cause,
                 "initiator": ({"rank": rk, "node": nd} if (rk is not None or nd is not None) else None),
                 "layout": layout, "notes": job.note}
    return layout, files, truth


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args()
    rng = random.Random("blind43-plan:%s" % a.seed)
    order = list(CAUSES)
    rng.shuffle(order)
    use = {k: 0 for k in LAYOUT_ORDER}
    cu = {}
    counts = {}
    k = 0
    hl = 0
    for i in range(a.n):
        healthy = i % 7 == 3
        if healthy:
            cause = None
            cands = [l for l in LAYOUT_ORDER if l != "vllm-disagg"]
            layout = cands[hl % len(cands)]
            hl += 1
        else:
            cause = order[k % len(order)]
            k += 1
            cands = [l for l in LAYOUT_ORDER if cause in LAYOUTS[l]]
            m = min((cu.get((cause, l), 0), use[l]) for l in cands)
            best = [l for l in cands if (cu.get((cause, l), 0), use[l]) == m]
            layout = rng.choice(best)
            use[layout] += 1
            cu[(cause, layout)] = cu.get((cause, layout), 0) + 1
        layout, files, truth = make_run(a.seed, i, layout, cause or "healthy", healthy)
        d = os.path.join(a.out, "run-%03d-%s" % (i, layout))
        os.makedirs(d, exist_ok=True)
        for rel, txt in sorted(files.items()):
            p = os.path.join(d, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w", encoding="utf-8") as f:
                f.write(txt)
        with open(os.path.join(d, "truth.json"), "w") as f:
            json.dump(truth, f, indent=2)
            f.write("\n")
        key = truth["cause"] or "healthy"
        counts[key] = counts.get(key, 0) + 1
    print(json.dumps(dict(sorted(counts.items())), indent=1))


if __name__ == "__main__":
    main()
