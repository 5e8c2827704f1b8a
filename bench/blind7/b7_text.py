"""Text builders: NCCL set-up output, PyTorch/c10d messages, Python tracebacks,
torchrun summaries, kernel messages.  Formats follow PyTorch 2.1-2.6, NCCL 2.18-2.23,
Linux 5.15/6.x kernels and NVIDIA 525-560 drivers as printed in real job logs."""
from b7_core import ts_glog, ts_py, ts_torchrun_dir, ts_plain

PYLIB = {
    "conda": "/opt/conda/lib/python3.10/site-packages",
    "ngc": "/usr/local/lib/python3.10/dist-packages",
    "venv": "/home/{user}/venvs/train/lib/python3.11/site-packages",
    "uv": "/fsx/{user}/.venv/lib/python3.12/site-packages",
}


def hexaddr(rng, lo=0x7f0000000000, hi=0x7fffffffffff):
    return "0x%x" % rng.randrange(lo, hi)


# ---------------------------------------------------------------------------------------
# NCCL
# ---------------------------------------------------------------------------------------
def nccl_init_lines(job, r, detail):
    """NCCL_DEBUG=INFO output of one rank while creating the default communicator.
    detail: 0 none, 1 short (INIT only), 2 full (with channel connections)."""
    rng = job.rng
    n = job.node(r)
    l = job.local[r]
    G = job.gpn
    W = job.world
    pm = job.nccl_prefix(r, "main")
    pi = job.nccl_prefix(r, "init")
    out = []
    if detail <= 0:
        return out
    gpu = job.gpu
    comm = job.comm_addr[r]
    bus = gpu["bus"][l] + "000"
    if l == 0 or detail >= 2:
        out.append("%s NCCL INFO Bootstrap : Using %s:%s<0>" % (pm, n.iface, n.ip))
    if job.net == "ofi":
        out.append("%s NCCL INFO NET/Plugin: Loaded net plugin Libfabric (v8)" % pm)
    else:
        out.append("%s NCCL INFO NET/Plugin: No plugin found (libnccl-net.so)" % pm)
        out.append("%s NCCL INFO NET/Plugin: Plugin load returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory : when loading libnccl-net.so" % pm)
        out.append("%s NCCL INFO NET/Plugin: Using internal network plugin." % pm)
    out.append("%s NCCL INFO cudaDriverVersion %s" % (pm, job.cuda_driver_ver))
    if r == 0:
        out.append("%s NCCL INFO NCCL version %s+cuda%s" % (pm, job.nccl_ver, job.torch_cuda))
    if job.net == "ib":
        devs = " ".join("[%d]mlx5_%d:1/%s" % (i, d, job.ib_link) for i, d in enumerate(job.hca_ids))
        out.append("%s NCCL INFO NET/IB : Using %s ; OOB %s:%s<0>" % (pi, devs, n.iface, n.ip))
        out.append("%s NCCL INFO Using non-device net plugin version 0" % pi)
        out.append("%s NCCL INFO Using network IB" % pi)
    elif job.net == "ofi":
        out.append("%s NCCL INFO NET/OFI Initializing aws-ofi-nccl 1.11.0-aws" % pi)
        out.append("%s NCCL INFO NET/OFI Using Libfabric version 1.21" % pi)
        out.append("%s NCCL INFO NET/OFI Using CUDA driver version %s with runtime %s" % (pi, job.cuda_driver_ver, job.cuda_driver_ver))
        out.append("%s NCCL INFO NET/OFI Configuring AWS-specific options" % pi)
        out.append("%s NCCL INFO NET/OFI Selected Provider is efa (found 32 nics)" % pi)
        out.append("%s NCCL INFO Using network Libfabric" % pi)
    else:
        out.append("%s NCCL INFO NET/IB : No device found." % pi)
        out.append("%s NCCL INFO NET/Socket : Using [0]%s:%s<0>" % (pi, n.iface, n.ip))
        out.append("%s NCCL INFO Using network Socket" % pi)
    out.append("%s NCCL INFO ncclCommInitRank comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId %s - Init START"
               % (pi, comm, r, W, l, l, bus, job.comm_id))
    if detail >= 2:
        out.append("%s NCCL INFO Setting affinity for GPU %d to %s" % (pi, l, job.affinity[l % len(job.affinity)]))
        if gpu["nvls"]:
            out.append("%s NCCL INFO NVLS multicast support is available on dev %d" % (pi, l))
        out.append("%s NCCL INFO comm %s rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL 0"
                   % (pi, comm, r, W, len(job.nodes), G, l))
    if job.nccl_warn_realpath and l == 0 and detail >= 1:
        out.append("%s misc/utils.cc:99 NCCL WARN Could not find real path of /sys/class/pci_bus/0000:%s/../../0000:%s:00.0"
                   % (pi, job.realpath_bus, job.realpath_bus))
    if detail >= 2:
        nch = job.nch
        nxt = r + 1 if (l + 1) < G else None
        prv = r - 1 if l > 0 else None
        kids = []
        if l == 0:
            ni = n.idx
            c1 = (2 * ni + 1)
            c2 = (2 * ni + 2)
            kids = [c * G for c in (c1, c2) if c < len(job.nodes)]
            par = ((ni - 1) // 2) * G if ni > 0 else -1
            tree = "%s/-1/-1->%d->%d" % ("/".join(str(k) for k in kids) or "-1", r, par)
        else:
            tree = "%d/-1/-1->%d->%d" % (r + 1 if l + 1 < G else -1, r, r - 1)
        segs = " ".join("[%d] %s" % (c, tree) for c in range(min(nch, 4)))
        out.append("%s NCCL INFO Trees %s" % (pi, segs))
        out.append("%s NCCL INFO P2P Chunksize set to 131072" % pi)
        if r == 0:
            ring = " ".join("%4d" % x for x in range(W))
            for c in range(nch):
                out.append("%s NCCL INFO Channel %02d/%02d : %s" % (pi, c, nch, ring))
        for c in range(nch):
            if nxt is not None:
                via = "P2P/CUMEM/read" if job.p2p_cumem else "P2P/IPC/read"
                if job.p2p_disabled:
                    via = "SHM/direct/direct"
                out.append("%s NCCL INFO Channel %02d/0 : %d[%d] -> %d[%d] via %s" % (pi, c, r, l, nxt, l + 1, via))
            elif len(job.nodes) > 1:
                nn = (n.idx + 1) % len(job.nodes)
                dst = nn * G
                nic = job.hca_ids[(c + l) % len(job.hca_ids)] if job.net == "ib" else 0
                tr = {"ib": "NET/IB/%d/GDRDMA" % (c % max(1, len(job.hca_ids))), "ofi": "NET/Libfabric/%d/GDRDMA" % (c % 4),
                      "socket": "NET/Socket/0"}[job.net]
                out.append("%s NCCL INFO Channel %02d/0 : %d[%d] -> %d[0] [send] via %s" % (pi, c, r, l, dst, tr))
                del nic
            if prv is None and len(job.nodes) > 1:
                pn = (n.idx - 1) % len(job.nodes)
                src = pn * G + G - 1
                tr = {"ib": "NET/IB/%d/GDRDMA" % (c % max(1, len(job.hca_ids))), "ofi": "NET/Libfabric/%d/GDRDMA" % (c % 4),
                      "socket": "NET/Socket/0"}[job.net]
                out.append("%s NCCL INFO Channel %02d/0 : %d[%d] -> %d[%d] [receive] via %s" % (pi, c, src, G - 1, r, l, tr))
        out.append("%s NCCL INFO Connected all rings" % pi)
        out.append("%s NCCL INFO Connected all trees" % pi)
        if gpu["nvls"] and G == 8:
            out.append("%s NCCL INFO NVLS comm %s headRank %d nHeads %d buffSize 4194304 memSize 2097152 nvlsPerRankSize 201326592 nvlsTotalSize 1610612736"
                       % (pi, comm, l, G))
            out.append("%s NCCL INFO Connected NVLS tree" % pi)
        out.append("%s NCCL INFO threadThresholds 8/8/64 | %d/8/64 | 512 | 512" % (pi, 8 * W))
        out.append("%s NCCL INFO %d coll channels, %d collnet channels, %d nvls channels, %d p2p channels, %d p2p channels per peer"
                   % (pi, nch, 0, 16 if gpu["nvls"] else 0, nch, 2 if W > 64 else 32 // max(1, G // 2)))
        out.append("%s NCCL INFO CC Off, Multi-GPU CC Off, workFifoBytes 1048576" % pi)
        out.append("%s NCCL INFO TUNER/Plugin: Plugin load returned 2 : libnccl-tuner.so: cannot open shared object file: No such file or directory : when loading libnccl-tuner.so" % pi)
        out.append("%s NCCL INFO TUNER/Plugin: Using internal tuner plugin." % pi)
    out.append("%s NCCL INFO ncclCommInitRank comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId %s - Init COMPLETE"
               % (pi, comm, r, W, l, l, bus, job.comm_id))
    if detail >= 2:
        tot = 0.4 + rng.random() * 3 + W / 200.0
        out.append("%s NCCL INFO Init timings - ncclCommInitRank: rank %d nranks %d total %.2f (kernels %.2f, alloc %.2f, bootstrap %.2f, allgathers %.2f, topo %.2f, graphs %.2f, connections %.2f, rest %.2f)"
                   % (pi, r, W, tot, 0.15, 0.02, tot * 0.4, 0.03, tot * 0.2, 0.01, tot * 0.3, 0.02))
    return out


def nccl_subcomm_lines(job, r, k, size, rank_in):
    pi = job.nccl_prefix(r, "init")
    comm = "0x%x" % (0x55e000000000 + (job.rng.randrange(1 << 32) << 4))
    cid = "0x%016x" % job.rng.randrange(1 << 64)
    return ["%s NCCL INFO ncclCommInitRank comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId %s - Init COMPLETE"
            % (pi, comm, rank_in, size, job.local[r], job.local[r], job.gpu["bus"][job.local[r]], cid)]


# ---------------------------------------------------------------------------------------
# C++ frame dumps
# ---------------------------------------------------------------------------------------
def cpp_frames(job, kind, r=None):
    rng = job.rng
    lib = job.pylib + "/torch/lib"
    if kind == "watchdog":
        fr = [
            ("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "libc10.so"),
            ("c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2", "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x233", "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", "libtorch_cuda.so"),
            ("<unknown function> + 0xdc253", "/lib/x86_64-linux-gnu/libstdc++.so.6"),
            ("<unknown function> + 0x94ac3", "/lib/x86_64-linux-gnu/libc.so.6"),
            ("<unknown function> + 0x126850", "/lib/x86_64-linux-gnu/libc.so.6"),
        ]
    elif kind == "ncclerr":
        fr = [
            ("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "libc10.so"),
            ("c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException() + 0x7f", "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x1f8", "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", "libtorch_cuda.so"),
            ("<unknown function> + 0xdc253", "/lib/x86_64-linux-gnu/libstdc++.so.6"),
            ("<unknown function> + 0x94ac3", "/lib/x86_64-linux-gnu/libc.so.6"),
            ("<unknown function> + 0x126850", "/lib/x86_64-linux-gnu/libc.so.6"),
        ]
    else:  # cuda check
        fr = [
            ("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "libc10.so"),
            ("c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64", "libc10.so"),
            ("c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118", "libc10_cuda.so"),
            ("c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x56", "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::WorkNCCL::isCompleted() + 0xa0", "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x1da", "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", "libtorch_cuda.so"),
            ("<unknown function> + 0xdc253", "/lib/x86_64-linux-gnu/libstdc++.so.6"),
            ("<unknown function> + 0x94ac3", "/lib/x86_64-linux-gnu/libc.so.6"),
            ("<unknown function> + 0x126850", "/lib/x86_64-linux-gnu/libc.so.6"),
        ]
    out = []
    for i, (fn, so) in enumerate(fr):
        path = so if so.startswith("/") else lib + "/" + so
        off = (sum(ord(c) for c in fn) * 7919 + len(fn) * 104729) % 0x1800000 + 0x100000
        if "+ 0x" in fn and "<unknown" in fn:
            off = int(fn.split("+ 0x")[1], 16)
        out.append("frame #%d: %s (%s in %s)" % (i, fn, job.addr(r if r is not None else -1, so, off) if r is not None else hexaddr(rng), path))
    return out


# ---------------------------------------------------------------------------------------
# c10d watchdog / NCCL error texts
# ---------------------------------------------------------------------------------------
def watchdog_timeout_block(job, r, t, seq, op, numel, ran_ms, last_enq, last_done, dump=True, terminate=True):
    """Lines printed by ProcessGroupNCCL's watchdog on a collective timeout (stderr)."""
    v = job.torch_minor
    to_ms = job.pg_timeout * 1000
    work = "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (seq, op, numel, numel * (job.world if op == "_ALLGATHER_BASE" else 1), to_ms)
    L = []
    pg = job.pg(r)
    if v <= 1:
        L.append(job.c10(r, t, "E", "ProcessGroupNCCL.cpp:475", "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (r, work, ran_ms)))
        L.append(job.c10(r, t, "E", "ProcessGroupNCCL.cpp:489", "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data."))
        L.append(job.c10(r, t, "E", "ProcessGroupNCCL.cpp:495", "To avoid data inconsistency, we are taking the entire process down."))
        L.append(job.c10(r, t, "E", "ProcessGroupNCCL.cpp:916", "[Rank %d] NCCL watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (r, r, work, ran_ms)))
        L.append("terminate called after throwing an instance of 'std::runtime_error'")
        L.append("  what():  [Rank %d] NCCL watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (r, r, work, ran_ms))
        return L
    src_to = {3: 1182, 4: 616, 5: 632, 6: 632}.get(v, 632)
    L.append(job.c10(r, t, "E", "ProcessGroupNCCL.cpp:%d" % src_to, "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (r, work, ran_ms)))
    if v >= 5:
        L.append(job.c10(r, t, "E", "ProcessGroupNCCL.cpp:2271", "%s failure detected by watchdog at work sequence id: %d PG status: last enqueued work: %d, last completed work: %d" % (pg, seq, last_enq, last_done)))
        L.append(job.c10(r, t, "E", "ProcessGroupNCCL.cpp:670", "Stack trace of the failed collective not found, potentially because FlightRecorder is disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value."))
    else:
        L.append(job.c10(r, t, "E", "ProcessGroupNCCL.cpp:1664", "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pg, seq, last_enq, last_done)))
    if dump and v >= 4:
        L.append(job.c10(r, t + 0.001, "E", "ProcessGroupNCCL.cpp:1870", "%s Received a dump signal due to a collective timeout from this local rank and we will try our best to dump the debug info. Last enqueued NCCL work: %d, last completed NCCL work: %d.This is most likely caused by incorrect usages of collectives, e.g., wrong sizes used across ranks, the order of collectives is not same for all ranks or the scheduled collective, for some reason, didn't run. Additionally, this can be caused by GIL deadlock or other reasons such as network errors or bugs in the communications library (e.g. NCCL), etc. " % (pg, last_enq, last_done)))
        L.append(job.c10(r, t + 0.002, "E", "ProcessGroupNCCL.cpp:1536", "%s ProcessGroupNCCL preparing to dump debug info. Include stack trace: 1" % pg))
    L.append(job.c10(r, t + 0.003, "E", "ProcessGroupNCCL.cpp:%d" % (src_to + 14), "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % r))
    L.append(job.c10(r, t + 0.003, "E", "ProcessGroupNCCL.cpp:%d" % (src_to + 20), "[Rank %d] To avoid data inconsistency, we are taking the entire process down." % r))
    if terminate:
        msg = "%s Process group watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (pg, r, work, ran_ms)
        L.append(job.c10(r, t + 0.004, "E", "ProcessGroupNCCL.cpp:1595", msg))
        L.append("Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % (src_to + 2))
        L.extend(cpp_frames(job, "watchdog", r))
        L.append("")
        L.append("terminate called after throwing an instance of 'c10::DistBackendError'")
        L.append("  what():  " + msg)
        L.append("Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % (src_to + 2))
        L.extend(cpp_frames(job, "watchdog", r))
        L.append("")
        L.append("Exception raised from ncclCommWatchdog at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1601 (most recent call first):")
        L.append("frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (%s in %s/torch/lib/libc10.so)" % (job.addr(r, "libc10.so", 0x3a446), job.pylib))
        L.append("frame #1: <unknown function> + 0xe5aa84 (%s in %s/torch/lib/libtorch_cuda.so)" % (job.addr(r, "libtorch_cuda.so", 0xe5aa84), job.pylib))
        L.append("frame #2: <unknown function> + 0xdc253 (%s in /lib/x86_64-linux-gnu/libstdc++.so.6)" % job.addr(r, "/lib/x86_64-linux-gnu/libstdc++.so.6", 0xdc253))
        L.append("frame #3: <unknown function> + 0x94ac3 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % job.addr(r, "/lib/x86_64-linux-gnu/libc.so.6", 0x94ac3))
        L.append("frame #4: <unknown function> + 0x126850 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % job.addr(r, "/lib/x86_64-linux-gnu/libc.so.6", 0x126850))
        L.append("")
    return L


def dump_signal_from_other(job, r, t, src_rank, last_enq, last_done):
    pg = job.pg(r)
    L = []
    if job.torch_minor >= 4:
        L.append(job.c10(r, t, "E", "ProcessGroupNCCL.cpp:1806", "%s Observed flight recorder dump signal from another rank via TCPStore." % pg))
        L.append(job.c10(r, t + 0.0005, "E", "ProcessGroupNCCL.cpp:1870", "%s Received a dump signal due to a collective timeout from  rank %d and we will try our best to dump the debug info. Last enqueued NCCL work: %d, last completed NCCL work: %d.This is most likely caused by incorrect usages of collectives, e.g., wrong sizes used across ranks, the order of collectives is not same for all ranks or the scheduled collective, for some reason, didn't run. Additionally, this can be caused by GIL deadlock or other reasons such as network errors or bugs in the communications library (e.g. NCCL), etc. " % (pg, src_rank, last_enq, last_done)))
        L.append(job.c10(r, t + 0.001, "E", "ProcessGroupNCCL.cpp:1536", "%s ProcessGroupNCCL preparing to dump debug info. Include stack trace: 1" % pg))
    return L


def heartbeat_kill(job, r, t):
    pg = job.pg(r)
    return [job.c10(r, t, "F", "ProcessGroupNCCL.cpp:1224", "%s %s Terminating the process after attempting to dump debug info, due to collective timeout or exception." % (pg, pg))]


def nccl_remote_error_block(job, r, t, last_error, kind="remote"):
    """watchdog detects an async NCCL error (remote exit / network) -> abort"""
    v = job.torch_minor
    pg = job.pg(r)
    nv = job.nccl_ver
    if kind == "remote":
        head = "NCCL error: remote process exited or there was a network error, NCCL version %s\nncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\nLast error:\n%s" % (nv, last_error)
    elif kind == "system":
        head = "NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version %s\nncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. \nLast error:\n%s" % (nv, last_error)
    else:
        head = "NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s\nncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\n%s" % (nv, last_error)
    L = []
    if v <= 1:
        L.append(job.c10(r, t, "E", "ProcessGroupNCCL.cpp:916", "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, head)))
        L.append("terminate called after throwing an instance of 'c10::DistBackendError'")
        L.append("  what():  [Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, head))
        return L
    L.append(job.c10(r, t, "E", "ProcessGroupNCCL.cpp:1595", "%s Process group watchdog thread terminated with exception: %s" % (pg, head)))
    L.append("Exception raised from checkForNCCLErrorsInternal at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2027 (most recent call first):")
    L.extend(cpp_frames(job, "ncclerr", r))
    L.append("")
    L.append("terminate called after throwing an instance of 'c10::DistBackendError'")
    L.append("  what():  %s Process group watchdog thread terminated with exception: %s" % (pg, head))
    L.append("Exception raised from checkForNCCLErrorsInternal at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2027 (most recent call first):")
    L.extend(cpp_frames(job, "ncclerr", r))
    L.append("")
    return L


def cuda_error_watchdog_block(job, r, t, err_text):
    """CUDA error surfaced by the watchdog while polling a work's CUDA event."""
    pg = job.pg(r)
    body = ("CUDA error: %s\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
            "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n" % err_text)
    L = []
    L.append(job.c10(r, t, "E", "ProcessGroupNCCL.cpp:1595", "%s Process group watchdog thread terminated with exception: %s" % (pg, body)))
    L.append("Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):")
    L.extend(cpp_frames(job, "cuda", r))
    L.append("")
    L.append("terminate called after throwing an instance of 'c10::DistBackendError'")
    L.append("  what():  %s Process group watchdog thread terminated with exception: %s" % (pg, body))
    L.append("Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):")
    L.extend(cpp_frames(job, "cuda", r))
    L.append("")
    return L


# ---------------------------------------------------------------------------------------
# Python tracebacks
# ---------------------------------------------------------------------------------------
def py_tb(job, r, frames, exc_lines, chained=None):
    """frames: list of (file, line, func, code)."""
    p = job.tb_prefix(r)
    out = []
    if chained:
        out.extend(chained)
        out.append(p + "")
        out.append(p + "The above exception was the direct cause of the following exception:")
        out.append(p + "")
    out.append(p + "Traceback (most recent call last):")
    for f, ln, fn, code in frames:
        out.append(p + '  File "%s", line %d, in %s' % (f, ln, fn))
        if code:
            out.append(p + "    " + code)
    for e in exc_lines:
        out.append(p + e)
    return out


def lib(job, rel):
    return job.pylib + "/" + rel


def frames_train_entry(job):
    """frames from the script entry to the trainer's step (depends on trainer)."""
    tr = job.trainer
    w = job.workdir
    if tr == "megatron":
        return [(w + "/pretrain_gpt.py", 335, "<module>", "pretrain("),
                (w + "/megatron/training/training.py", 386, "pretrain", "iteration, num_floating_point_operations_so_far = train("),
                (w + "/megatron/training/training.py", 1439, "train", "train_step(forward_step_func,"),
                (w + "/megatron/training/training.py", 754, "train_step", "losses_reduced = forward_backward_func(")]
    if tr == "deepspeed":
        return [(w + "/train.py", 412, "<module>", "main()"),
                (w + "/train.py", 371, "main", "loss = train_step(engine, batch)"),
                (w + "/train.py", 208, "train_step", "engine.backward(loss)")]
    if tr == "hf":
        return [(w + "/run_clm.py", 655, "<module>", "main()"),
                (w + "/run_clm.py", 603, "main", "train_result = trainer.train(resume_from_checkpoint=checkpoint)"),
                (lib(job, "transformers/trainer.py"), 2123, "train", "return inner_training_loop("),
                (lib(job, "transformers/trainer.py"), 2481, "_inner_training_loop", "tr_loss_step = self.training_step(model, inputs, num_items_in_batch)")]
    if tr == "titan":
        return [(w + "/torchtitan/train.py", 569, "<module>", "trainer.train()"),
                (lib(job, "torch/distributed/elastic/multiprocessing/errors/__init__.py"), 355, "wrapper", "return f(*args, **kwargs)"),
                (w + "/torchtitan/train.py", 489, "train", "self.train_step(data_iterator)"),
                (w + "/torchtitan/train.py", 411, "train_step", "loss = self.forward_backward_step(input_dict, labels)")]
    if tr == "composer":
        return [(w + "/train.py", 402, "<module>", "main(cfg)"),
                (w + "/train.py", 389, "main", "trainer.fit()"),
                (lib(job, "composer/trainer/trainer.py"), 2311, "fit", "self._train_loop()"),
                (lib(job, "composer/trainer/trainer.py"), 2543, "_train_loop", "total_loss_dict = self._train_batch(use_grad_scaling)")]
    if tr == "mmengine":
        return [(w + "/tools/train.py", 104, "<module>", "main()"),
                (w + "/tools/train.py", 100, "main", "runner.train()"),
                (lib(job, "mmengine/runner/runner.py"), 1777, "train", "model = self.train_loop.run()  # type: ignore"),
                (lib(job, "mmengine/runner/loops.py"), 287, "run", "self.run_iter(data_batch)")]
    if tr == "fairseq":
        return [(lib(job, "fairseq_cli/train.py"), 574, "cli_main", "distributed_utils.call_main(cfg, main)"),
                (lib(job, "fairseq/distributed/utils.py"), 344, "distributed_main", "main(cfg, **kwargs)"),
                (lib(job, "fairseq_cli/train.py"), 205, "main", "valid_losses, should_stop = train(cfg, trainer, task, epoch_itr)"),
                (lib(job, "fairseq_cli/train.py"), 331, "train", "log_output = trainer.train_step(samples)")]
    if tr == "timm":
        return [(w + "/train.py", 1300, "<module>", "main()"),
                (w + "/train.py", 960, "main", "train_metrics = train_one_epoch("),
                (w + "/train.py", 1098, "train_one_epoch", "_backward(loss)")]
    if tr == "nemo":
        return [(w + "/examples/nlp/language_modeling/megatron_gpt_pretraining.py", 40, "main", "trainer.fit(model)"),
                (lib(job, "lightning/pytorch/trainer/trainer.py"), 538, "fit", "call._call_and_handle_interrupt("),
                (lib(job, "lightning/pytorch/trainer/call.py"), 46, "_call_and_handle_interrupt", "return trainer.strategy.launcher.launch(trainer_fn, *args, trainer=trainer, **kwargs)"),
                (lib(job, "lightning/pytorch/loops/fit_loop.py"), 205, "run", "self.advance()"),
                (lib(job, "lightning/pytorch/loops/training_epoch_loop.py"), 250, "advance", "batch_output = self.automatic_optimization.run(trainer.optimizers[0], batch_idx, kwargs)")]
    return [(w + "/train.py", 611, "<module>", "main(args)"),
            (w + "/train.py", 540, "main", "loss = train_step(model, optimizer, batch, step)"),
            (w + "/train.py", 322, "train_step", "loss.backward()")]


def frames_allreduce(job):
    return [(lib(job, "torch/distributed/c10d_logger.py"), 83, "wrapper", "return func(*args, **kwargs)"),
            (lib(job, "torch/distributed/distributed_c10d.py"), 2501, "all_reduce", "work = group.allreduce([tensor], opts)")]


def frames_dataloader(job):
    return [(lib(job, "torch/utils/data/dataloader.py"), 701, "__next__", "data = self._next_data()"),
            (lib(job, "torch/utils/data/dataloader.py"), 1448, "_next_data", "idx, data = self._get_data()"),
            (lib(job, "torch/utils/data/dataloader.py"), 1402, "_get_data", "success, data = self._try_get_data()"),
            (lib(job, "torch/utils/data/dataloader.py"), 1256, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e")]


# ---------------------------------------------------------------------------------------
# torchrun (elastic agent) output
# ---------------------------------------------------------------------------------------
def agent_line(job, node, t, lvl, src, msg):
    v = job.torch_minor
    lname = {"W": "WARNING", "E": "ERROR", "I": "INFO"}[lvl]
    mod = src.split(":")[0].replace("/", ".").replace(".py", "")
    if v <= 1:
        return "%s:%s:%s" % (lname, mod, msg)
    if v <= 3:
        return "[%s] %s: [%s] %s" % (ts_py(job.clk(node, t)), mod, lname, msg)
    return "%s %d %s] %s" % (ts_glog(job.clk(node, t), lvl, 6)[:-3] + "000", node.agent_pid, job.agent_src_prefix + src, msg)


def torchrun_failure(job, node, t, failures, binary, script):
    """failures: list of dict(rank, local, pid, code, sig, t) sorted by time; first is root cause."""
    L = []
    root = failures[0]
    L.append(agent_line(job, node, t, "E", "torch/distributed/elastic/multiprocessing/api.py:869",
                        "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (root["code"], root["local"], root["pid"], binary)))
    L.append("Traceback (most recent call last):")
    L.append('  File "%s", line 8, in <module>' % job.torchrun_bin)
    L.append("    sys.exit(main())")
    L.append('  File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper' % job.pylib)
    L.append("    return f(*args, **kwargs)")
    L.append('  File "%s/torch/distributed/run.py", line 919, in main' % job.pylib)
    L.append("    run(args)")
    L.append('  File "%s/torch/distributed/run.py", line 910, in run' % job.pylib)
    L.append("    elastic_launch(")
    L.append('  File "%s/torch/distributed/launcher/api.py", line 138, in __call__' % job.pylib)
    L.append("    return launch_agent(self._config, self._entrypoint, list(args))")
    L.append('  File "%s/torch/distributed/launcher/api.py", line 269, in launch_agent' % job.pylib)
    L.append("    raise ChildFailedError(")
    L.append("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ")
    L.append("=" * 60)
    L.append("%s FAILED" % script)
    L.append("-" * 60)
    L.append("Failures:")
    if len(failures) == 1:
        L.append("  <NO_OTHER_FAILURES>")
    else:
        for i, f in enumerate(failures[1:], 1):
            L.extend(_failure_entry(job, node, f, i))
    L.append("-" * 60)
    L.append("Root Cause (first observed failure):")
    L.extend(_failure_entry(job, node, root, 0))
    L.append("=" * 60)
    return L


def _failure_entry(job, node, f, i):
    sig_names = {6: "SIGABRT", 9: "SIGKILL", 11: "SIGSEGV", 15: "SIGTERM", 7: "SIGBUS"}
    L = ["[%d]:" % i,
         "  time      : %s" % ts_torchrun_dir(job.clk(node, f["t"])),
         "  host      : %s" % node.name,
         "  rank      : %d (local_rank: %d)" % (f["rank"], f["local"]),
         "  exitcode  : %d (pid: %d)" % (f["code"], f["pid"]),
         "  error_file: <N/A>"]
    if f["code"] < 0:
        s = -f["code"]
        L.append("  traceback : Signal %d (%s) received by PID %d" % (s, sig_names.get(s, "SIG%d" % s), f["pid"]))
    else:
        L.append("  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
    return L


# ---------------------------------------------------------------------------------------
# kernel messages
# ---------------------------------------------------------------------------------------
def xid(job, node, l, code, pid, pname, rest):
    bus = job.gpu["bus"][l]
    if pid is None:
        return "NVRM: Xid (PCI:0000:%s:00): %d, pid='<unknown>', name=<unknown>, %s" % (bus, code, rest)
    return "NVRM: Xid (PCI:0000:%s:00): %d, pid=%d, name=%s, %s" % (bus, code, pid, pname, rest)


def oom_killer_lines(job, node, victim_pid, comm, anon_kb, cgroup=None, trigger_comm="pt_data_worker"):
    rng = job.rng
    L = []
    if cgroup:
        L.append("%s invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0" % trigger_comm)
    else:
        L.append("%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0" % trigger_comm)
    L.append("CPU: %d PID: %d Comm: %s Tainted: P           OE      %s #%d-Ubuntu" % (rng.randrange(128), victim_pid + rng.randint(1, 90), trigger_comm, job.kernel_ver, rng.randint(60, 130)))
    L.append("Hardware name: %s" % job.hw_name)
    L.append("Call Trace:")
    L.append(" <TASK>")
    for fn in ["dump_stack_lvl+0x48/0x70", "dump_header+0x4a/0x240", "oom_kill_process+0xf9/0x190", "out_of_memory+0x256/0x540",
               ("mem_cgroup_out_of_memory+0x13b/0x170" if cgroup else "__alloc_pages_slowpath.constprop.0+0xc3c/0xd70"),
               ("try_charge_memcg+0x7b1/0x8a0" if cgroup else "__alloc_pages+0x2b9/0x2e0"),
               "handle_mm_fault+0xa2/0x370", "do_user_addr_fault+0x1ad/0x650", "exc_page_fault+0x77/0x170", "asm_exc_page_fault+0x27/0x30"]:
        L.append(" " + fn)
    L.append(" </TASK>")
    if cgroup:
        L.append("memory: usage %dkB, limit %dkB, failcnt %d" % (anon_kb + 512000, anon_kb + 512000, rng.randint(1, 40)))
        L.append("oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=%s,mems_allowed=0-1,oom_memcg=%s,task_memcg=%s,task=%s,pid=%d,uid=%d"
                 % (cgroup.split("/")[-1], cgroup.rsplit("/", 1)[0], cgroup, comm, victim_pid, job.uid))
        L.append("Memory cgroup out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0"
                 % (victim_pid, comm, anon_kb * 2 + 40000000, anon_kb, rng.randint(100000, 900000), rng.randint(8000, 9000000), job.uid, anon_kb // 480))
    else:
        L.append("Mem-Info:")
        L.append("active_anon:%d inactive_anon:%d isolated_anon:0" % (rng.randint(1, 90000), anon_kb // 4 * 3))
        L.append(" active_file:%d inactive_file:%d isolated_file:0" % (rng.randint(100, 9000), rng.randint(100, 9000)))
        L.append("oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/user.slice/user-%d.slice/session-%d.scope,task=%s,pid=%d,uid=%d"
                 % (job.uid, rng.randint(2, 900), comm, victim_pid, job.uid))
        L.append("Out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0"
                 % (victim_pid, comm, anon_kb * 2 + 40000000, anon_kb, rng.randint(100000, 900000), rng.randint(8000, 9000000), job.uid, anon_kb // 480))
    L.append("oom_reaper: reaped process %d (%s), now anon-rss:0kB, file-rss:%dkB, shmem-rss:0kB" % (victim_pid, comm, rng.randint(1000, 90000)))
    return L


def kernel_noise(rng, job, node):
    """one harmless kernel line"""
    c = rng.random()
    if c < 0.15:
        return "perf: interrupt took too long (%d > %d), lowering kernel.perf_event_max_sample_rate to %d" % (rng.randint(2501, 9000), 2500, rng.choice([79750, 63750, 50000, 39750]))
    if c < 0.25:
        return "hrtimer: interrupt took %d ns" % rng.randint(20000, 900000)
    if c < 0.45:
        return "systemd-journald[%d]: Data hash table of /var/log/journal/%032x/system.journal has a fill level at 75.0 (%d of %d items, 25165824 file size, %d bytes per hash table item), suggesting rotation." % (rng.randint(500, 3000), rng.randrange(1 << 128), rng.randint(100000, 200000), 174762, 143)
    if c < 0.55:
        return "EDAC skx MC%d: 1 CE memory read error on CPU_SrcID#%d_MC#%d_Chan#%d_DIMM#0 (channel:%d slot:0 page:0x%x offset:0x%x grain:32 syndrome:0x0 - err_code:0x0000:0x009f socket:%d imc:%d rank:%d bg:%d ba:%d row:0x%x col:0x%x)" % (
            rng.randint(0, 3), rng.randint(0, 1), rng.randint(0, 3), rng.randint(0, 1), rng.randint(0, 1), rng.randrange(1 << 24), rng.randrange(4096), rng.randint(0, 1), rng.randint(0, 3), rng.randint(0, 1), rng.randint(0, 3), rng.randint(0, 3), rng.randrange(1 << 17), rng.randrange(1024))
    if c < 0.7:
        return "audit: type=1400 audit(%d.%03d:%d): apparmor=\"DENIED\" operation=\"open\" class=\"file\" profile=\"snap.lxd.daemon\" name=\"/proc/%d/mounts\" pid=%d comm=\"lxd\" requested_mask=\"r\" denied_mask=\"r\" fsuid=0 ouid=0" % (int(job.t0), rng.randint(0, 999), rng.randint(100, 9999), rng.randint(100, 9999), rng.randint(100, 9999))
    if c < 0.8:
        return "IPv4: martian source 10.%d.%d.%d from 10.%d.%d.%d, on dev %s" % (rng.randint(0, 255), rng.randint(0, 255), rng.randint(1, 254), rng.randint(0, 255), rng.randint(0, 255), rng.randint(1, 254), node.iface)
    if c < 0.9:
        return "nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid context, skipping further processing"
    return "workqueue: drm_fb_helper_damage_work hogged CPU for >10000us 4 times, consider switching to WQ_UNBOUND"
