"""Message builders: torch c10d / ProcessGroupNCCL, NCCL, Python tracebacks,
torch elastic, kernel (NVRM, mlx5, OOM killer), nvidia-smi / DCGM dumps.
"""
from __future__ import annotations

from b4_common import pickn, Run, ts_glog, ts_elastic, ts_elastic_fail, ts_py, hexid

# ProcessGroupNCCL.cpp line numbers (roughly per release; they move every release)
PGL = {
    (2, 5): dict(wd=616, exc=1785, tmo=1834, some=630, avoid=636, term=1595, first=1622, recv=1664, prep=1533, fatal=1554,
                 hb=1743, obs=1366, chk=1294, destroy=1250, store=1659, ckerr=2027, checkto=618),
    (2, 6): dict(wd=632, exc=2168, tmo=2201, some=646, avoid=652, term=1906, first=2113, recv=2140, prep=1548, fatal=1569,
                 hb=1773, obs=1391, chk=1332, destroy=1451, store=1703, ckerr=2101, checkto=634),
    (2, 7): dict(wd=685, exc=2252, tmo=2285, some=699, avoid=705, term=1928, first=2197, recv=2224, prep=1577, fatal=1599,
                 hb=1801, obs=1412, chk=1361, destroy=1479, store=1733, ckerr=2183, checkto=687),
    (2, 8): dict(wd=759, exc=2329, tmo=2362, some=773, avoid=779, term=2003, first=2271, recv=2300, prep=1638, fatal=1660,
                 hb=1865, obs=1470, chk=1419, destroy=1522, store=1787, ckerr=2260, checkto=761),
    (2, 9): dict(wd=801, exc=2385, tmo=2418, some=815, avoid=821, term=2054, first=2331, recv=2358, prep=1682, fatal=1704,
                 hb=1911, obs=1509, chk=1460, destroy=1566, store=1829, ckerr=2316, checkto=803),
}

LIBS = {
    "c10": "libc10.so", "tc": "libtorch_cuda.so", "tcpu": "libtorch_cpu.so",
}


def site(run: Run) -> str:
    return run.meta.setdefault("site", "/usr/local/lib/python%s/dist-packages" % run.py)


def pgl(run: Run) -> dict:
    return PGL.get(run.tv(), PGL[(2, 6)])


def c10(run: Run, r: int, t: float, lvl: str, src: str, msg: str, prefix: bool = True) -> str:
    node = run.ranks[r].node
    stamp = ts_glog(run.e(t, node), lvl, ns=True)
    p = "[rank%d]:" % r if prefix else ""
    return "%s[%s %s] %s" % (p, stamp, src, msg)


def pgtag(r: int, pg: int = 0, name: str = "default_pg", guid: int | None = None) -> str:
    return "[PG ID %d PG GUID %d(%s) Rank %d]" % (pg, pg if guid is None else guid, name, r)


def addr(rng) -> str:
    return "0x7f%010x" % rng.randint(0x1000000000, 0xffffffffff)


def cpp_frames(run: Run, kind: str) -> list:
    rng = run.rng
    tl = "%s/torch/lib/" % site(run)
    if kind == "timeout":
        fr = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "c10"),
              ("c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2", "tc"),
              ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x233", "tc"),
              ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", "tc")]
    elif kind == "ncclerr":
        fr = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "c10"),
              ("c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException() + 0x98", "tc"),
              ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x1f7", "tc"),
              ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", "tc")]
    elif kind == "cuda":
        fr = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "c10"),
              ("c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64", "c10"),
              ("c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118", "c10cuda"),
              ("c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x56", "tc"),
              ("c10d::ProcessGroupNCCL::WorkNCCL::isCompleted() + 0xa0", "tc"),
              ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x1d0", "tc"),
              ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", "tc")]
    else:
        fr = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "c10")]
    out = []
    for i, (fn, lib) in enumerate(fr):
        libn = {"c10": "libc10.so", "tc": "libtorch_cuda.so", "c10cuda": "libc10_cuda.so"}[lib]
        out.append("frame #%d: %s (%s in %s%s)" % (i, fn, addr(rng), tl, libn))
    n = len(out)
    out.append("frame #%d: <unknown function> + 0x%x (%s in /lib/x86_64-linux-gnu/libstdc++.so.6)" % (n, rng.choice([0xdc253, 0xd6df4, 0xecdb4]), addr(rng)))
    out.append("frame #%d: <unknown function> + 0x%x (%s in /lib/x86_64-linux-gnu/libc.so.6)" % (n + 1, rng.choice([0x94ac3, 0x9ca94]), addr(rng)))
    out.append("frame #%d: <unknown function> + 0x%x (%s in /lib/x86_64-linux-gnu/libc.so.6)" % (n + 2, rng.choice([0x126850, 0x129c3c]), addr(rng)))
    return out


def workstr(seq, op, nin, nout, tmo_ms) -> str:
    return "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (seq, op, nin, nout, tmo_ms)


def src_tree(run: Run) -> str:
    return run.meta.setdefault("srctree", run.rng.choice(["/pytorch/torch/csrc/distributed/c10d", "../torch/csrc/distributed/c10d",
                                                         "/opt/pytorch/pytorch/torch/csrc/distributed/c10d"]))


# ------------------------------------------------------------------ torch PG
def watchdog_timeout(run: Run, r: int, t: float, seq: int, op: str, nin: int, nout: int,
                     last_enq: int, last_comp: int, style: str = "auto", pg=(0, "default_pg")):
    """Emit the watchdog timeout cascade for rank r at time t. Returns exit time."""
    L = pgl(run)
    rng = run.rng
    tmo = run.pg_timeout * 1000
    ran = tmo + rng.randint(3, 95)
    tag = pgtag(r, pg[0], pg[1])
    w = workstr(seq, op, nin, nout, tmo)
    em = lambda dt_, lvl, line, msg: run.emit(r, t + dt_, c10(run, r, t + dt_, lvl, "ProcessGroupNCCL.cpp:%d" % line, msg))
    em(0, "E", L["wd"], "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (r, w, ran))
    em(0.0003, "E", L["exc"], "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (tag, seq, last_enq, last_comp))
    em(0.0004, "E", L["tmo"], "%s Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (tag, seq, last_enq, last_comp))
    em(0.0005, "E", L["some"], "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % r)
    em(0.0006, "E", L["avoid"], "[Rank %d] To avoid data inconsistency, we are taking the entire process down." % r)
    if style == "auto":
        style = rng.choice(["dump", "throw", "dump"])
    if style == "dump":
        em(0.001, "E", L["first"], "%s First PG on this rank to signal dumping." % tag)
        em(0.002, "E", L["recv"], "%s Received a dump signal due to a collective timeout from this local rank and we will try our best to dump the debug info. Last enqueued NCCL work: %d, last completed NCCL work: %d.This is most likely caused by incorrect usages of collectives, e.g., wrong sizes used across ranks, the order of collectives is not same for all ranks or the scheduled collective, for some reason, didn't run. Additionally, this can be caused by GIL deadlock or other reasons such as network errors or bugs in the communications library (e.g. NCCL), etc. " % (tag, last_enq, last_comp))
        em(0.003, "E", L["prep"], "%s ProcessGroupNCCL preparing to dump debug info. Include stack trace: 1" % tag)
        em(0.9, "I", L["prep"] + 12, "%s ProcessGroupNCCL dumping nccl trace to %s%d" % (tag, run.meta.get("fr_prefix", "/tmp/nccl_trace_rank_"), r))
        te = t + rng.uniform(1.5, 9.0)
        run.emit(r, te, c10(run, r, te, "F", "ProcessGroupNCCL.cpp:%d" % L["fatal"], "%s %s Terminating the process after attempting to dump debug info, due to collective timeout or exception." % (tag, tag)))
        return te
    # throw style
    em(0.001, "E", L["term"], "%s Process group watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (tag, r, w, ran))
    lines = ["Exception raised from checkTimeout at %s/ProcessGroupNCCL.cpp:%d (most recent call first):" % (src_tree(run), L["checkto"])]
    lines += cpp_frames(run, "timeout")
    lines += ["", "terminate called after throwing an instance of 'c10::DistBackendError'",
              "  what():  %s Process group watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (tag, r, w, ran),
              "Exception raised from checkTimeout at %s/ProcessGroupNCCL.cpp:%d (most recent call first):" % (src_tree(run), L["checkto"])]
    lines += cpp_frames(run, "timeout")
    lines += ["Exception raised from ncclCommWatchdog at %s/ProcessGroupNCCL.cpp:%d (most recent call first):" % (src_tree(run), L["term"] + 4)]
    lines += cpp_frames(run, "none")
    lines += [""]
    run.emit(r, t + 0.002, "\n".join(lines))
    return t + 0.01


def nccl_async_error(run: Run, r: int, t: float, seq: int, last_enq: int, last_comp: int,
                     err: str, last_error: str, pg=(0, "default_pg")):
    """Watchdog noticing an async NCCL error (remote error, system error, cuda error)."""
    L = pgl(run)
    tag = pgtag(r, pg[0], pg[1])
    head = {
        "remote": "NCCL error: remote process exited or there was a network error, NCCL version %s\nncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely." % run.nccl,
        "system": "NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version %s\nncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. " % run.nccl,
        "cuda": "NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s\nncclUnhandledCudaError: Call to CUDA function failed." % run.nccl,
        "internal": "NCCL error: internal error - please report this issue to the NCCL developers, NCCL version %s\nncclInternalError: Internal check failed." % run.nccl,
    }[err]
    full = head + ("\nLast error:\n%s" % last_error if last_error else "")
    em = lambda dt_, lvl, line, msg: run.emit(r, t + dt_, c10(run, r, t + dt_, lvl, "ProcessGroupNCCL.cpp:%d" % line, msg))
    em(0, "E", L["exc"], "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (tag, seq, last_enq, last_comp))
    em(0.0002, "E", L["some"], "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % r)
    em(0.0003, "E", L["avoid"], "[Rank %d] To avoid data inconsistency, we are taking the entire process down." % r)
    em(0.0005, "E", L["term"], "%s Process group watchdog thread terminated with exception: %s" % (tag, full))
    lines = ["Exception raised from checkForNCCLErrorsInternal at %s/ProcessGroupNCCL.cpp:%d (most recent call first):" % (src_tree(run), L["ckerr"])]
    lines += cpp_frames(run, "ncclerr")
    lines += ["", "terminate called after throwing an instance of 'c10::DistBackendError'",
              "  what():  %s Process group watchdog thread terminated with exception: %s" % (tag, full),
              "Exception raised from checkForNCCLErrorsInternal at %s/ProcessGroupNCCL.cpp:%d (most recent call first):" % (src_tree(run), L["ckerr"])]
    lines += cpp_frames(run, "ncclerr")
    lines += [""]
    run.emit(r, t + 0.001, "\n".join(lines))
    return t + 0.02


def watchdog_cuda_error(run: Run, r: int, t: float, cuda_msg: str, pg=(0, "default_pg")):
    """Watchdog thread hitting a CUDA error when querying events (illegal address, ECC, ...)."""
    L = pgl(run)
    tag = pgtag(r, pg[0], pg[1])
    msg = ("CUDA error: %s\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
           "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n" % cuda_msg)
    run.emit(r, t, c10(run, r, t, "E", "ProcessGroupNCCL.cpp:%d" % L["term"], "%s Process group watchdog thread terminated with exception: %s" % (tag, msg)))
    lines = ["Exception raised from c10_cuda_check_implementation at /pytorch/c10/cuda/CUDAException.cpp:43 (most recent call first):"]
    lines += cpp_frames(run, "cuda")
    lines += ["", "terminate called after throwing an instance of 'c10::DistBackendError'",
              "  what():  %s Process group watchdog thread terminated with exception: %s" % (tag, msg)]
    lines += ["Exception raised from c10_cuda_check_implementation at /pytorch/c10/cuda/CUDAException.cpp:43 (most recent call first):"]
    lines += cpp_frames(run, "cuda")
    lines += [""]
    run.emit(r, t + 0.001, "\n".join(lines))
    return t + 0.02


def heartbeat_stuck(run: Run, r: int, t: float, secs: int = 480, pg=(0, "default_pg")):
    L = pgl(run)
    tag = pgtag(r, pg[0], pg[1])
    run.emit(r, t, c10(run, r, t, "E", "ProcessGroupNCCL.cpp:%d" % L["hb"],
                       "%s ProcessGroupNCCL's watchdog got stuck for %d seconds without making progress in monitoring enqueued collectives. This typically indicates a NCCL/CUDA API (e.g., CudaEventDestroy) hang blocking the watchdog, and could be triggered by another thread holding the GIL inside a CUDA api (for example, CudaEventDestroy), or other deadlock-prone behaviors.If you suspect the watchdog is not actually stuck and a longer timeout would help, you can either increase the timeout (TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC) to a larger value or disable the heartbeat monitor (TORCH_NCCL_ENABLE_MONITORING=0).If either of aforementioned helps, feel free to file an issue to PyTorch about the short timeout or false positive abort; otherwise, please attempt to debug the hang. " % (tag, secs)))
    run.emit(r, t + 0.0002, c10(run, r, t + 0.0002, "E", "ProcessGroupNCCL.cpp:%d" % L["prep"], "%s ProcessGroupNCCL preparing to dump debug info. Include stack trace: 1" % tag))
    te = t + 480 if run.rng.random() < 0.5 else t + run.rng.uniform(5, 60)
    run.emit(r, te, c10(run, r, te, "F", "ProcessGroupNCCL.cpp:%d" % L["fatal"], "%s %s Terminating the process after attempting to dump debug info, due to ProcessGroupNCCL watchdog hang." % (tag, tag)))
    return te


def dump_signal_from_other(run: Run, r: int, t: float, from_rank: int, last_enq: int, last_comp: int, pg=(0, "default_pg"), kill: bool = True):
    L = pgl(run)
    tag = pgtag(r, pg[0], pg[1])
    run.emit(r, t, c10(run, r, t, "E", "ProcessGroupNCCL.cpp:%d" % L["obs"], "%s Observed flight recorder dump signal from another rank via TCPStore." % tag))
    run.emit(r, t + 0.001, c10(run, r, t + 0.001, "E", "ProcessGroupNCCL.cpp:%d" % L["recv"],
                               "%s Received a dump signal due to a collective timeout from  rank %d and we will try our best to dump the debug info. Last enqueued NCCL work: %d, last completed NCCL work: %d.This is most likely caused by incorrect usages of collectives, e.g., wrong sizes used across ranks, the order of collectives is not same for all ranks or the scheduled collective, for some reason, didn't run. Additionally, this can be caused by GIL deadlock or other reasons such as network errors or bugs in the communications library (e.g. NCCL), etc. " % (tag, from_rank, last_enq, last_comp)))
    run.emit(r, t + 0.002, c10(run, r, t + 0.002, "E", "ProcessGroupNCCL.cpp:%d" % L["prep"], "%s ProcessGroupNCCL preparing to dump debug info. Include stack trace: 1" % tag))
    if kill:
        te = t + run.rng.uniform(2, 9)
        run.emit(r, te, c10(run, r, te, "F", "ProcessGroupNCCL.cpp:%d" % L["fatal"], "%s %s Terminating the process after attempting to dump debug info, due to collective timeout or exception." % (tag, tag)))
        return te
    return None


def tcpstore_noise(run: Run, r: int, t: float, master: str, port: int = 29500):
    L = pgl(run)
    rng = run.rng
    node = run.ranks[r].node
    err = rng.choice(["Connection reset by peer", "failed to recv, got 0 bytes", "Broken pipe"])
    fd = rng.randint(40, 200)
    run.emit(r, t, c10(run, r, t, "W", "TCPStore.cpp:%d" % pickn(run, [106, 125, 141]),
                       "[c10d] recvValue failed on SocketImpl(fd=%d, addr=[%s]:%d, remote=[%s]:%d): %s" % (fd, node.host, rng.randint(33000, 60000), master, port, err)))
    run.emit(r, t + 0.0001, "Exception raised from recvBytes at /pytorch/torch/csrc/distributed/c10d/Utils.hpp:%d (most recent call first):" % pickn(run, [653, 670, 678]))
    run.emit(r, t + 0.0002, "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (%s in %s/torch/lib/libc10.so)" % (addr(rng), site(run)))
    run.emit(r, t + 0.0003, "frame #1: <unknown function> + 0x5d0f8be (%s in %s/torch/lib/libtorch_cpu.so)" % (addr(rng), site(run)))
    run.emit(r, t + 0.0004, "frame #2: c10d::TCPStore::check(std::vector<std::string, std::allocator<std::string> > const&) + 0x2a9 (%s in %s/torch/lib/libtorch_cpu.so)" % (addr(rng), site(run)))
    run.emit(r, t + 0.0005, "frame #3: c10d::ProcessGroupNCCL::heartbeatMonitor() + 0x379 (%s in %s/torch/lib/libtorch_cuda.so)" % (addr(rng), site(run)))
    run.emit(r, t + 0.0006, "")
    run.emit(r, t + 0.001, c10(run, r, t + 0.001, "W", "ProcessGroupNCCL.cpp:%d" % L["store"],
                               "%s Failed to check the \"should dump\" flag on TCPStore, (maybe TCPStore server has shut down too early), with error: %s" % (pgtag(r), err)))


def destroy_warning(run: Run, r: int, t: float):
    L = pgl(run)
    run.emit(r, t, c10(run, r, t, "W", "ProcessGroupNCCL.cpp:%d" % L["destroy"],
                       "Warning: WARNING: destroy_process_group() was not called before program exit, which can leak resources. For more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())"))


# ------------------------------------------------------------------ NCCL
def npfx(run: Run, r: int, tid: int | None = None) -> str:
    rk = run.ranks[r]
    return "%s:%d:%d [%d]" % (rk.node.host.split(".")[0] if run.meta.get("nccl_short", False) else rk.node.host,
                              rk.pid, tid if tid is not None else rk.pid, rk.local)


def nccl_tid(run: Run, r: int, k: int) -> int:
    return run.ranks[r].pid + 40 + 13 * k


def busid(pci: str) -> str:
    # '0000:18:00' -> '18000'
    b = pci.split(":")[1]
    return b.lstrip("0") + "000" if b.strip("0") else "0"


def nccl_init_info(run: Run, r: int, t: float, nnodes: int, commid: str, full: bool = True):
    rng = run.rng
    rk = run.ranks[r]
    nd = rk.node
    p0 = npfx(run, r)
    tid = nccl_tid(run, r, 1)
    p1 = npfx(run, r, tid)
    out = []
    out.append("%s NCCL INFO Bootstrap: Using %s:%s<0>" % (p0, nd.eth, nd.ip))
    if run.meta.get("net_plugin") == "ofi":
        out.append("%s NCCL INFO NET/OFI Initializing aws-ofi-nccl 1.13.2-aws" % p0)
        out.append("%s NCCL INFO NET/OFI Using Libfabric version 1.22" % p0)
        out.append("%s NCCL INFO NET/OFI Selected provider is efa, fabric is efa-direct (found 4 nics)" % p0)
    else:
        out.append("%s NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal net plugin." % p0)
    out.append("%s NCCL INFO cudaDriverVersion %d" % (p0, int(float(run.cuda) * 1000)))
    if rk.local == 0 and r == 0:
        out.append("NCCL version %s+cuda%s" % (run.nccl, run.cuda))
    if run.meta.get("net_plugin") != "ofi":
        ibs = " ".join("[%d]%s:1/%s" % (i, x, run.meta.get("ibtype", "IB")) for i, x in enumerate(nd.ib_ifs))
        out.append("%s NCCL INFO NET/IB : Using %s ; OOB %s:%s<0>" % (p1, ibs, nd.eth, nd.ip))
        out.append("%s NCCL INFO Using network IB" % p1)
    else:
        out.append("%s NCCL INFO Using network Libfabric" % p1)
    out.append("%s NCCL INFO ncclCommInitRankConfig comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId 0x%s - Init START"
               % (p1, rng.randint(0x55d000000000, 0x55dfffffffff), r, run.world, rk.local, rk.local, busid(nd.pci[rk.local]), commid))
    if full:
        out.append("%s NCCL INFO Setting affinity for GPU %d to %s" % (p1, rk.local, rng.choice(["ffffffff,00000000,ffffffff", "ff,ffffffff,00000000,00ffffff", "0fff,fff00000"])))
        if run.gpn == 8 and rng.random() < 0.6:
            out.append("%s NCCL INFO NVLS multicast support is available on dev %d (NVLS_NCHANNELS 16)" % (p1, rk.local))
        out.append("%s NCCL INFO comm 0x%x rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL 0"
                   % (p1, rng.randint(0x55d000000000, 0x55dfffffffff), r, run.world, nnodes, run.gpn, rk.local))
        if r == 0:
            nch = rng.choice([16, 24, 32])
            order = list(range(run.world))
            for c in range(min(nch, 4 if run.world > 32 else nch)):
                out.append("%s NCCL INFO Channel %02d/%02d : %s" % (p1, c, nch, " ".join("%3d" % x for x in order[:min(64, len(order))])))
        out.append("%s NCCL INFO Trees [0] %d/-1/-1->%d->%d [1] %d/-1/-1->%d->%d" % (p1, (r + 1) % run.world, r, (r - 1) % run.world, (r + 1) % run.world, r, (r - 1) % run.world))
        out.append("%s NCCL INFO P2P Chunksize set to 131072" % p1)
        for c in range(2):
            nxt = (r + 1) % run.world
            if run.ranks[nxt].node is nd:
                out.append("%s NCCL INFO Channel %02d/0 : %d[%d] -> %d[%d] via P2P/CUMEM/read" % (p1, c, r, rk.local, nxt, run.ranks[nxt].local))
            else:
                out.append("%s NCCL INFO Channel %02d/0 : %d[%d] -> %d[%d] [send] via NET/%s/%d/GDRDMA" % (p1, c, r, rk.local, nxt, run.ranks[nxt].local, "OFI" if run.meta.get("net_plugin") == "ofi" else "IB", c % len(nd.ib_ifs)))
        out.append("%s NCCL INFO Connected all rings, use ring PXN 0 GDR 1" % p1)
        out.append("%s NCCL INFO Connected all trees" % p1)
        out.append("%s NCCL INFO threadThresholds 8/8/64 | 128/8/64 | 512 | 512" % p1)
        out.append("%s NCCL INFO 32 coll channels, 32 collnet channels, 16 nvls channels, 32 p2p channels, 32 p2p channels per peer" % p1)
    out.append("%s NCCL INFO ncclCommInitRankConfig comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId 0x%s - Init COMPLETE"
               % (p1, rng.randint(0x55d000000000, 0x55dfffffffff), r, run.world, rk.local, rk.local, busid(nd.pci[rk.local]), commid))
    if full:
        out.append("%s NCCL INFO Init timings - ncclCommInitRankConfig: rank %d nranks %d total %.2f (kernels 0.15, alloc 0.%02d, bootstrap 0.%02d, allgathers 0.01, topo 0.2%d, graphs 0.01, connections 0.%02d, rest 0.03)"
                   % (p1, r, run.world, rng.uniform(0.8, 6.0), rng.randint(10, 90), rng.randint(1, 60), rng.randint(0, 9), rng.randint(5, 80)))
    for i, ln in enumerate(out):
        run.emit(r, t + i * 0.0007, ln, "out")


def ib_completion_error(run: Run, r: int, t: float, peer_ip: str, local_ip: str, hca: str, status: int = 12, vendor: int = 129, opcode: int = 0, dirn: str = "Recv"):
    rng = run.rng
    tid = nccl_tid(run, r, 3)
    p = npfx(run, r, tid)
    src = "transport/net_ib.cc:%d" % pickn(run, [1696, 2267, 2357]) if run.nv() >= (2, 23) else "transport/net_ib.cc:1696"
    if run.meta.get("ibtype") == "RoCE":
        lg, rg = "::ffff:%s" % local_ip, "::ffff:%s" % peer_ip
    else:
        lg, rg = "fe80::%s" % ":".join(hexid(rng, 4) for _ in range(4)), "fe80::%s" % ":".join(hexid(rng, 4) for _ in range(4))
    msg = "NET/IB : Got completion from peer %s<%d> with status=%d opcode=%d len=%d vendor err %d (%s) localGid %s remoteGids%s hca %s" % (
        peer_ip, rng.randint(33000, 62000), status, opcode, 0, vendor, dirn, lg, rg, hca)
    run.emit(r, t, "%s %s NCCL WARN %s" % (p, src, msg), "out")
    run.emit(r, t + 0.0001, "%s NCCL INFO transport/net.cc:%d -> 6" % (p, pickn(run, [1302, 1349, 1425])), "out")
    run.emit(r, t + 0.0002, "%s NCCL INFO proxy.cc:%d -> 6" % (p, pickn(run, [698, 731, 797])), "out")
    run.emit(r, t + 0.0003, "%s NCCL INFO proxy.cc:%d -> 6 [Progress Thread]" % (p, pickn(run, [878, 911, 963])), "out")
    run.emit(r, t + 0.0004, "", "out")
    return msg


def socket_closed(run: Run, r: int, t: float, peer: str):
    rng = run.rng
    p = npfx(run, r, nccl_tid(run, r, 2))
    msg = "socketProgress: Connection closed by remote peer %s<%d>" % (peer, rng.randint(33000, 62000))
    run.emit(r, t, "%s misc/socket.cc:%d NCCL WARN %s" % (p, rng.choice([64, 750, 808]), msg), "out")
    run.emit(r, t + 0.0001, "%s NCCL INFO misc/socket.cc:%d -> 6" % (p, pickn(run, [752, 812, 830])), "out")
    run.emit(r, t + 0.0002, "%s NCCL INFO transport/net_socket.cc:%d -> 6" % (p, pickn(run, [474, 492])), "out")
    run.emit(r, t + 0.0003, "%s NCCL INFO transport/net.cc:%d -> 6" % (p, pickn(run, [1302, 1425])), "out")
    run.emit(r, t + 0.0004, "%s NCCL INFO proxy.cc:%d -> 6 [Progress Thread]" % (p, pickn(run, [878, 911])), "out")
    return msg


def ofi_error(run: Run, r: int, t: float):
    rng = run.rng
    p = npfx(run, r, nccl_tid(run, r, 3))
    msg = "NET/OFI Request %s completed with error. RC: %d. Error: %s. Completed length: 0, Request: { dev: %d, size: 0, state: CREATED, type: RECV }" % (
        "0x%x" % rng.randint(0x7f0000000000, 0x7fffffffffff), rng.choice([5, 15, 110]), rng.choice(["Input/output error", "Connection refused", "Connection timed out"]), rng.randint(0, 3))
    run.emit(r, t, "%s nccl_net_ofi_rdma.cpp:%d NCCL WARN %s" % (p, pickn(run, [1479, 1630, 2005]), msg), "out")
    run.emit(r, t + 0.0001, "%s NCCL INFO transport/net.cc:1302 -> 6" % p, "out")
    return msg


# ------------------------------------------------------------------ python tracebacks
def traceback(run: Run, r: int, t: float, frames: list, exc: str, prefix: str | None = None, stream: str = "err",
              chained: list | None = None):
    """frames: list of (file, line, func, code). exc: final line(s)."""
    rng = run.rng
    lines = []

    def block(frs, ex):
        b = ["Traceback (most recent call last):"]
        for (f, ln, fn, code) in frs:
            b.append('  File "%s", line %d, in %s' % (f, ln, fn))
            if code:
                b.append("    " + code)
                if run.py in ("3.11", "3.12") and rng.random() < 0.45 and "(" in code:
                    stripped = code
                    start = stripped.find("=") + 2 if " = " in stripped else 0
                    if start >= len(stripped):
                        start = 0
                    b.append("    " + " " * start + "^" * max(1, len(stripped) - start))
        b.extend(ex.split("\n"))
        return b

    if chained:
        for (frs, ex, how) in chained:
            lines += block(frs, ex)
            lines += ["", how, ""]
    lines += block(frames, exc)
    if prefix is None:
        prefix = "[rank%d]: " % r if run.meta.get("rank_prefix_tb") else ""
    for i, ln in enumerate(lines):
        run.emit(r, t + i * 0.00005, prefix + ln, stream)


def sp(run: Run, rel: str) -> str:
    return "%s/%s" % (site(run), rel)


# ------------------------------------------------------------------ torch elastic
def elastic_lines(run: Run, node, t: float, lvl: str, src: str, msg: str, pid: int) -> str:
    tv = run.tv()
    if tv >= (2, 4):
        return "%s %d %s] %s" % (ts_elastic(run.e(t, node), lvl), pid, src, msg)
    lvlname = {"I": "INFO", "W": "WARNING", "E": "ERROR"}[lvl]
    return "[%s] %s: [%s] %s" % (ts_py(run.e(t, node)), src.split(".py")[0].replace("/", ".").replace("torch.", "torch.", 1), lvlname, msg)


def elastic_failure_block(run: Run, node, t: float, script: str, root: dict, others: list) -> list:
    """root/others: dict(time, host, rank, local, exitcode, pid, tb)"""
    s = site(run)
    out = ["Traceback (most recent call last):",
           '  File "/usr/local/bin/torchrun", line 8, in <module>',
           "    sys.exit(main())"]
    if run.py in ("3.11", "3.12"):
        out.append("             ^^^^^^")
    out += ['  File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper' % s,
            "    return f(*args, **kwargs)"]
    if run.py in ("3.11", "3.12"):
        out.append("           ^^^^^^^^^^^^^^^^^^")
    out += ['  File "%s/torch/distributed/run.py", line %d, in main' % (s, {(2, 5): 919, (2, 6): 918, (2, 7): 892, (2, 8): 901, (2, 9): 936}.get(run.tv(), 919)),
            "    run(args)",
            '  File "%s/torch/distributed/run.py", line %d, in run' % (s, {(2, 5): 910, (2, 6): 909, (2, 7): 883, (2, 8): 892, (2, 9): 927}.get(run.tv(), 910)),
            "    elastic_launch(",
            '  File "%s/torch/distributed/launcher/api.py", line %d, in __call__' % (s, {(2, 5): 138, (2, 6): 138, (2, 7): 139, (2, 8): 143}.get(run.tv(), 143)),
            "    return launch_agent(self._config, self._entrypoint, list(args))"]
    if run.py in ("3.11", "3.12"):
        out.append("           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^")
    out += ['  File "%s/torch/distributed/launcher/api.py", line %d, in launch_agent' % (s, {(2, 5): 269, (2, 6): 270, (2, 7): 270, (2, 8): 284}.get(run.tv(), 284)),
            "    raise ChildFailedError(",
            "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
            "============================================================",
            "%s FAILED" % script,
            "------------------------------------------------------------",
            "Failures:"]

    def ent(i, d):
        return ["[%d]:" % i,
                "  time      : %s" % ts_elastic_fail(run.e(d["time"], node)),
                "  host      : %s" % d["host"],
                "  rank      : %d (local_rank: %d)" % (d["rank"], d["local"]),
                "  exitcode  : %d (pid: %d)" % (d["exitcode"], d["pid"]),
                "  error_file: %s" % d.get("error_file", "<N/A>"),
                "  traceback : %s" % d.get("tb", "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")]
    if not others:
        out.append("  <NO_OTHER_FAILURES>")
    for i, d in enumerate(others):
        out += ent(i + 1, d)
    out += ["------------------------------------------------------------", "Root Cause (first observed failure):"]
    out += ent(0, root)
    out.append("============================================================")
    return out


SIGNAMES = {6: "SIGABRT", 9: "SIGKILL", 11: "SIGSEGV", 7: "SIGBUS", 15: "SIGTERM", 1: "SIGHUP", 2: "SIGINT", 4: "SIGILL"}


# ------------------------------------------------------------------ kernel / NVRM
def xid(pci: str, code: int, pid, name, text: str) -> str:
    if pid is None:
        return "NVRM: Xid (PCI:%s): %d, %s" % (pci, code, text)
    return "NVRM: Xid (PCI:%s): %d, pid=%s, name=%s, %s" % (pci, code, pid, name, text)


def gpu_uuid(rng) -> str:
    return "GPU-%s-%s-%s-%s-%s" % (hexid(rng, 8), hexid(rng, 4), hexid(rng, 4), hexid(rng, 4), hexid(rng, 12))


def oom_kill_block(run: Run, node, t: float, victim_pid: int, victim_comm: str, cgroup: str, task_cg: str,
                   pids: list, constraint: str = "CONSTRAINT_MEMCG", uid: int = 41003, limit_kb: int | None = None):
    rng = run.rng
    kv = run.meta.setdefault("kver", rng.choice(["5.15.0-119-generic #129-Ubuntu", "5.15.0-125-generic #135-Ubuntu", "6.8.0-49-generic #49~22.04.1-Ubuntu",
                                                "4.18.0-513.24.1.el8_9.x86_64 #1", "5.14.0-427.37.1.el9_4.x86_64 #1", "6.1.0-27-amd64 #1 Debian 6.1.115-1"]))
    hw = run.meta.setdefault("hwname", rng.choice(["Supermicro SYS-821GE-TNHR/X13DEG-OAD, BIOS 2.1 04/12/2024", "NVIDIA DGXH100/DGXH100, BIOS 1.5.0 01/24/2024",
                                                  "Dell Inc. PowerEdge XE9680/0M1TJX, BIOS 2.2.7 03/15/2024", "Amazon EC2 p5.48xlarge/, BIOS 1.0 10/16/2017",
                                                  "Google Google Compute Engine/Google Compute Engine, BIOS Google 05/02/2024"]))
    lim = limit_kb or pickn(run, [1056964608, 2113929216, 1932735283, 503316480])
    cpu = rng.randint(0, 191)
    L = []
    L.append("%s invoked oom-killer: gfp_mask=0x%s(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0" % (victim_comm, rng.choice(["140cca", "140dca", "1100cca"])))
    L.append("CPU: %d PID: %d Comm: %s Tainted: P           OE     %s" % (cpu, victim_pid + rng.randint(1, 30), victim_comm, kv))
    L.append("Hardware name: %s" % hw)
    L.append("Call Trace:")
    L.append(" <TASK>")
    for fn in ["dump_stack_lvl+0x4a/0x63", "dump_header+0x4a/0x1f4", "oom_kill_process.cold+0xb/0x10", "out_of_memory+0x106/0x2e0",
               "mem_cgroup_out_of_memory+0x13f/0x160" if constraint == "CONSTRAINT_MEMCG" else "__alloc_pages_slowpath.constprop.0+0xccc/0xdb0",
               "try_charge_memcg+0x6d3/0x7a0" if constraint == "CONSTRAINT_MEMCG" else "__alloc_pages+0x311/0x330",
               "charge_memcg+0x45/0xb0", "__mem_cgroup_charge+0x2d/0x90", "do_anonymous_page+0x111/0x3b0", "__handle_mm_fault+0x8aa/0x960",
               "handle_mm_fault+0xd8/0x2c0", "do_user_addr_fault+0x1c9/0x670", "exc_page_fault+0x77/0x170", "asm_exc_page_fault+0x27/0x30"]:
        L.append(" %s" % fn)
    L.append("RIP: 0033:0x%x" % rng.randint(0x7f0000000000, 0x7fffffffffff))
    L.append(" </TASK>")
    if constraint == "CONSTRAINT_MEMCG":
        L.append("memory: usage %dkB, limit %dkB, failcnt %d" % (lim, lim, rng.randint(1, 900000)))
        L.append("swap: usage 0kB, limit 9007199254740988kB, failcnt 0")
        L.append("Memory cgroup stats for %s:" % cgroup)
        L.append("anon %d" % (lim * 1024 - rng.randint(10 ** 8, 10 ** 9)))
        L.append("file %d" % rng.randint(10 ** 7, 10 ** 9))
        L.append("kernel %d" % rng.randint(10 ** 8, 10 ** 9))
        L.append("shmem %d" % rng.randint(10 ** 6, 10 ** 9))
    else:
        L.append("Mem-Info:")
        L.append("active_anon:%d inactive_anon:%d isolated_anon:0" % (rng.randint(10 ** 6, 10 ** 8), rng.randint(10 ** 6, 10 ** 8)))
        L.append(" active_file:%d inactive_file:%d isolated_file:0" % (rng.randint(100, 9000), rng.randint(100, 9000)))
    L.append("Tasks state (memory values in pages):")
    L.append("[  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name")
    for (p, comm, rss) in pids:
        L.append("[%7d] %5d %7d %8d %8d %14d %8d %13d %s" % (p, uid, p, rss * 3 + rng.randint(10 ** 5, 10 ** 6), rss, rss * 8 + 4096, 0, 0, comm))
    vict_rss = max(r_ for (p, c, r_) in pids if p == victim_pid) if any(p == victim_pid for (p, c, r_) in pids) else rng.randint(10 ** 7, 3 * 10 ** 7)
    L.append("oom-kill:constraint=%s,nodemask=(null),cpuset=%s,mems_allowed=0-1,oom_memcg=%s,task_memcg=%s,task=%s,pid=%d,uid=%d"
             % (constraint, "/" if cgroup == "/" else (cgroup.rsplit("/", 1)[-1] if cgroup.startswith("/slurm") else "/"), cgroup, task_cg, victim_comm, victim_pid, uid))
    L.append("%s: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0"
             % ("Memory cgroup out of memory" if constraint == "CONSTRAINT_MEMCG" else "Out of memory", victim_pid, victim_comm,
                vict_rss * 4 * 3, vict_rss * 4, rng.randint(100000, 900000), rng.randint(0, 4000000), uid, vict_rss // 40))
    for i, ln in enumerate(L):
        run.kern(node, t + i * 0.000003, ln)
    return t + 0.6


def segfault_line(run: Run, comm: str, pid: int, lib: str, cpu: int) -> str:
    rng = run.rng
    base = rng.randint(0x7f0000000000, 0x7ffff0000000) & ~0xfff
    ip = base + rng.randint(0x1000, 0x300000)
    return "%s[%d]: segfault at %x ip %016x sp %016x error %d in %s[%x+%x] likely on CPU %d (core %d, socket %d)" % (
        comm, pid, rng.choice([0, 8, 0x10, rng.randint(0x1000, 0xfffffff)]), ip, rng.randint(0x7ffc00000000, 0x7ffff0000000), rng.choice([4, 6, 14]),
        lib, base, rng.randint(0x400000, 0x4000000), cpu, cpu % 48, cpu // 96)


def mlx_pci(node, i: int) -> str:
    seeds = ["0000:0c:00.0", "0000:2a:00.0", "0000:41:00.0", "0000:58:00.0", "0000:86:00.0", "0000:a5:00.0", "0000:bd:00.0", "0000:d5:00.0"]
    return seeds[i % len(seeds)]


# ------------------------------------------------------------------ nvidia-smi / dcgm
def nvsmi_table(run: Run, node, t: float, bad: dict | None = None) -> str:
    """nvidia-smi default table. bad: {local_idx: 'lost'|'err'|'reset'}"""
    from b4_common import ts_ctime
    rng = run.rng
    bad = bad or {}
    gname = run.meta.setdefault("gpuname", rng.choice(["NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB", "NVIDIA H200", "NVIDIA B200"]))
    mem = {"NVIDIA H100 80GB HBM3": 81559, "NVIDIA A100-SXM4-80GB": 81920, "NVIDIA H200": 143771, "NVIDIA B200": 183359,
           "Tesla V100-SXM2-16GB": 16384, "Tesla V100-SXM2-32GB": 32768}[gname]
    out = [ts_ctime(run.e(t, node)),
           "+-----------------------------------------------------------------------------------------+",
           "| NVIDIA-SMI %-10s             Driver Version: %-10s     CUDA Version: %-5s    |" % (run.driver, run.driver, run.meta.get("driver_cuda", run.cuda)),
           "|-----------------------------------------+------------------------+----------------------+",
           "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |",
           "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |",
           "|                                         |                        |               MIG M. |",
           "|=========================================+========================+======================|"]
    for g in range(node.gpus):
        bus = "%s.0" % node.pci[g].upper().replace("0000:", "00000000:")
        st = bad.get(g)
        if st == "lost":
            out.append("|   %d  %-20s     On  |   %s Off |                  ERR! |" % (g, gname[:20], bus))
            out.append("|ERR!  ERR!  ERR!               ERR! / ERR! |     ERR!  /  %6dMiB |    ERR!      Default |" % mem)
        else:
            ecc = "2" if st == "ecc" else "0"
            temp = rng.randint(33, 46) if st != "hot" else rng.randint(86, 92)
            out.append("|   %d  %-20s     On  |   %s Off |                    %s |" % (g, gname[:20], bus, ecc.rjust(1)))
            out.append("| N/A   %2dC    P0             %3dW /  700W |       1MiB /  %6dMiB |      0%%      Default |" % (temp, rng.randint(68, 120), mem))
        out.append("|                                         |                        |             Disabled |")
        out.append("+-----------------------------------------+------------------------+----------------------+")
    return "\n".join(out) + "\n"
