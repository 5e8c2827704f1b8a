"""blind59 line builders: NCCL, PyTorch ProcessGroupNCCL, Python tracebacks, torchrun,
Slurm and kernel lines, each in the wording of the version the job runs."""
import calendar
import datetime as dt
from b59_core import mk_rng, sec, glog, glog_us, pylog, elastic_ts, slurm_ts, busid_to_pci

# ================================================================ NCCL
def nhost(job, r):
    """NCCL prints gethostname() cut at the first dot."""
    return job.hostname(job.node(r)).split(".")[0]


def ninfo(job, r, msg, tid=None):
    return "%s:%d:%d [%d] NCCL INFO %s" % (nhost(job, r), job.pids[r], tid or job.pids[r], job.lrank(r), msg)


def nwarn(job, r, d, loc, msg, func=None, tid=None):
    ts = "[%s] " % sec(d) if job.nv >= (2, 26, 0) else ""
    if job.nv >= (2, 28, 0) and func:
        loc = "%s (%s)" % (loc, func)
    return "%s%s:%d:%d [%d] %s NCCL WARN %s" % (ts, nhost(job, r), job.pids[r], tid or job.tid(r, 3),
                                                job.lrank(r), loc, msg)


def net_name(job):
    return {"ib": "IB", "roce": "IB", "efa": "Libfabric" if job.nv >= (2, 20, 0) else "AWS Libfabric",
            "socket": "Socket"}[job.transport]


def comm_ptr(job, r):
    return "0x%x" % (0x55d0c0000000 + (job.pids[r] * 4096 + r * 512) % 0xfffffff0)


def init_lines(job, r, R, chan_lines=3):
    """NCCL_DEBUG=INFO startup lines of one rank; returns (lines, busid_line_index)."""
    h = job.node(r)
    lr = job.lrank(r)
    out = []
    sp = " " if job.nv < (2, 23, 0) else ""
    if r == 0:
        out.append(ninfo(job, r, "NCCL version %s+cuda%s" % (job.nccl_ver(), job.cuda)))
    out.append(ninfo(job, r, "Bootstrap%s: Using %s:%s<0>" % (sp, job.oob, job.ip[h])))
    if job.transport == "efa":
        out.append(ninfo(job, r, "NET/Plugin: Loaded net plugin NCCL OFI (v%d)" % (8 if job.nv >= (2, 20, 0) else 6)))
        JR = mk_rng("ofi", job.nodes[0])
        out.append(ninfo(job, r, "NET/OFI Initializing aws-ofi-nccl %s" % JR.pick(["1.9.1-aws", "1.11.0-aws", "1.13.2-aws", "1.14.0"])))
        out.append(ninfo(job, r, "NET/OFI Using Libfabric version %s" % JR.pick(["1.21", "1.22", "2.1"])))
        out.append(ninfo(job, r, "NET/OFI Selected Provider is efa (found %d nics)" % len(job.hcas)))
    elif job.nv >= (2, 20, 0):
        out.append(ninfo(job, r, "NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin."))
    else:
        out.append(ninfo(job, r, "NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation"))
    out.append(ninfo(job, r, "cudaDriverVersion %s" % {"12.1": "12020", "12.4": "12040", "12.6": "12060",
                                                       "12.8": "12080", "13.0": "13000"}[job.cuda]))
    if job.transport in ("ib", "roce"):
        lay = "IB" if job.transport == "ib" else "RoCE"
        devs = " ".join("[%d]%s:1/%s" % (i, d, lay) for i, d in enumerate(job.hcas))
        out.append(ninfo(job, r, "NET/IB : Using %s ; OOB %s:%s<0>" % (devs, job.oob, job.ip[h])))
        out.append(ninfo(job, r, "Using network IB"))
    elif job.transport == "efa":
        out.append(ninfo(job, r, "Using network %s" % net_name(job)))
    else:
        out.append(ninfo(job, r, "NET/Socket : Using [0]%s:%s<0>" % (job.oob, job.ip[h])))
        out.append(ninfo(job, r, "Using network Socket"))
    cp = comm_ptr(job, r)
    if job.nv >= (2, 19, 0):
        fn = "ncclCommInitRankConfig" if job.nv >= (2, 23, 0) else "ncclCommInitRank"
        start = "%s comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId %s - Init START" % (
            fn, cp, r, job.world, lr, lr, job.busids[lr], job.commid)
    else:
        start = "comm %s rank %d nranks %d cudaDev %d busId %s - Init START" % (cp, r, job.world, lr, job.busids[lr])
    bidx = len(out)
    out.append(ninfo(job, r, start))
    if job.transport in ("ib", "roce") and job.nv >= (2, 19, 0):
        out.append(ninfo(job, r, "NET/IB : GPU Direct RDMA Enabled for HCA %d '%s'" % (lr % len(job.hcas), job.hca_of(lr))))
    peer_n = (r + job.gpn) % job.world
    prev_n = (r - job.gpn) % job.world
    via = {"ib": "NET/IB/%d/GDRDMA", "roce": "NET/IB/%d/GDRDMA", "efa": "NET/%s/%%d/GDRDMA" % net_name(job),
           "socket": "NET/Socket/%d"}[job.transport]
    p2p = "P2P/CUMEM/read" if job.nv >= (2, 19, 0) else "P2P/IPC/read"
    for c in range(chan_lines):
        if job.world > job.gpn and c % 2 == 0:
            out.append(ninfo(job, r, "Channel %02d/0 : %d[%d] -> %d[%d] [send] via %s" % (
                c, r, lr, peer_n, job.lrank(peer_n), via % (lr % max(1, job.gpn)))))
            out.append(ninfo(job, r, "Channel %02d/0 : %d[%d] -> %d[%d] [receive] via %s" % (
                c, prev_n, job.lrank(prev_n), r, lr, via % (lr % max(1, job.gpn)))))
        elif job.gpn > 1:
            nxt = (lr + 1) % job.gpn
            out.append(ninfo(job, r, "Channel %02d/0 : %d[%d] -> %d[%d] via %s" % (
                c, r, lr, r - lr + nxt, nxt, p2p)))
    out.append(ninfo(job, r, "Connected all rings"))
    out.append(ninfo(job, r, "Connected all trees"))
    out.append(ninfo(job, r, start.replace("Init START", "Init COMPLETE")))
    if job.nv >= (2, 23, 0):
        out.append(ninfo(job, r, "Init timings - %s: rank %d nranks %d total %.2f (kernels 0.%02d, alloc 0.%02d, bootstrap %.2f, allgathers 0.01, topo 0.06, graphs 0.00, connections 0.%02d, rest 0.01)" % (
            "ncclCommInitRankConfig", r, job.world, 0.6 + (r % 7) * 0.11, 15 + r % 9, 40 + r % 30, 0.05 + (r % 5) * 0.03, 10 + r % 40)))
    return out, bidx


def ib_completion(job, r, d, peer_h, status, opcode, vendor, remote_lr, kind="Send"):
    """NET/IB completion error as printed by the job's NCCL version."""
    h = job.node(r)
    lr = job.lrank(r)
    peer = "%s<%d>" % (job.ip[peer_h], 40000 + (hash_i(peer_h, r) % 20000))
    lg, rg = job.gid(h, lr), job.gid(peer_h, remote_lr)
    hca = job.hca_of(lr)
    v = job.nv
    if v < (2, 20, 0):
        msg = "NET/IB : Got completion from peer %s with error %d, opcode %d, len %d, vendor err %d" % (
            peer, status, opcode, 0 if status == 12 else 32764, vendor)
        loc = "transport/net_ib.cc:%d" % (1696 if v >= (2, 18, 0) else 1295)
    elif v < (2, 24, 0):
        msg = "NET/IB : Got completion from peer %s with status=%d opcode=%d len=%d vendor err %d (%s) localGid %s remoteGids%s" % (
            peer, status, opcode, 0, vendor, kind, lg, rg)
        loc = "transport/net_ib.cc:%d" % (2055 if v >= (2, 21, 0) else 1978)
    elif v < (2, 28, 0):
        msg = "NET/IB: Got completion from peer %s with status=%d opcode=%d len=%u vendor err %u (%s) localGid %s remoteGids %s hca %s" % (
            peer, status, opcode, 0, vendor, kind, lg, rg, hca)
        loc = "transport/net_ib/p2p.cc:%d" % (1324 if v >= (2, 27, 0) else 1268)
    else:
        sname = {12: "IBV_WC_RETRY_EXC_ERR", 5: "IBV_WC_WR_FLUSH_ERR", 13: "IBV_WC_RNR_RETRY_EXC_ERR",
                 10: "IBV_WC_REM_ACCESS_ERR", 4: "IBV_WC_LOC_PROT_ERR"}.get(status, "IBV_WC_GENERAL_ERR")
        oname = {0: "IBV_WC_SEND", 1: "IBV_WC_RDMA_WRITE", 128: "IBV_WC_RECV", 129: "IBV_WC_RECV_RDMA_WITH_IMM"}.get(opcode, "IBV_WC_SEND")
        msg = "NET/IB: Got completion from peer %s with status=%s(%d) opcode=%s(%d) vendor_err=%u (%s) localGid %s remoteGids %s hca %s" % (
            peer, sname, status, oname, opcode, vendor, kind, lg, rg, hca)
        loc = "transport/net_ib/p2p.cc:1391"
    return nwarn(job, r, d, loc, msg, func="ncclIbTest", tid=job.tid(r, 9))


def net_followups(job, r):
    t = job.tid(r, 9)
    return [ninfo(job, r, "transport/net.cc:%d -> 6" % (1298 if job.nv >= (2, 21, 0) else 1154), tid=t),
            ninfo(job, r, "proxy.cc:%d -> 6" % (694 if job.nv >= (2, 21, 0) else 679), tid=t),
            ninfo(job, r, "proxy.cc:%d -> 6 [Progress Thread]" % (874 if job.nv >= (2, 21, 0) else 859), tid=t)]


def hash_i(*parts):
    x = 7
    for p in parts:
        for ch in str(p):
            x = (x * 131 + ord(ch)) % 1000003
    return x


def socket_closed(job, r, d, peer_h):
    peer = "%s<%d>" % (job.hostname(peer_h).split(".")[0] if job.nv >= (2, 23, 0) else job.ip[peer_h], 30000 + hash_i(peer_h, r) % 30000)
    return nwarn(job, r, d, "misc/socket.cc:%d" % (49 if job.nv >= (2, 20, 0) else 47),
                 "socketProgress: Connection closed by remote peer %s" % peer, func="socketProgress", tid=job.tid(r, 9))


def socket_recv_fail(job, r, d, peer_h, err="Connection reset by peer"):
    peer = "%s<%d>" % (job.ip[peer_h], 30000 + hash_i(peer_h, r, 2) % 30000)
    return nwarn(job, r, d, "misc/socket.cc:%d" % 538, "socketProgressOpt: Call to recv from %s failed : %s" % (peer, err),
                 func="socketProgressOpt", tid=job.tid(r, 9))


def socket_connect_fail(job, r, d, peer_h, err="No route to host"):
    peer = "%s<%d>" % (job.ip[peer_h], 30000 + hash_i(peer_h, r, 5) % 30000)
    return nwarn(job, r, d, "misc/socket.cc:%d" % (484 if job.nv >= (2, 20, 0) else 466),
                 "socketStartConnect: Connect to %s failed : %s" % (peer, err), func="socketStartConnect", tid=job.tid(r, 2))


def service_closed(job, r, lr_dead):
    return ninfo(job, r, "[Service thread] Connection closed by localRank %d" % lr_dead, tid=job.tid(r, 5))


def ofi_error(job, r, d, R, peer_h, unresp=True):
    h = job.node(r)
    lines = []
    ts = calendar.timegm(d.timetuple())
    if unresp:
        msg = "Unresponsive receiver (connection previously established)"
        code = 113
    else:
        msg = "Remote unknown address (peer lost or was restarted)"
        code = 21
    lines.append("libfabric:%d:%d::efa:cq:efa_rdm_txe_handle_error():%d<warn> err: %d, message: %s My EFA addr: fi_addr_efa://[fe80::%s:%s:%s:%s]:0:%d My host id: %s Peer EFA addr: fi_addr_efa://[fe80::%s:%s:%s:%s]:0:%d Peer host id: %s (%d)" % (
        job.pids[r], ts, R.pick([737, 742, 801]), code, msg, R.hexs(2), R.hexs(4), R.hexs(4), R.hexs(4), R.randint(10**8, 2 * 10**9),
        job.instance[h], R.hexs(2), R.hexs(4), R.hexs(4), R.hexs(4), R.randint(10**8, 2 * 10**9), job.instance[peer_h],
        R.pick([4, 13, 15])))
    lines.append(nwarn(job, r, d, "nccl_net_ofi_rdma.cpp:%d" % R.pick([1893, 2104, 2377]),
                       "NET/OFI Request %s completed with error. RC: %d. Error: %d (%s). Completed length: 0, Request: { dev: %d, size: 0, state: CREATED, type: %s }" % (
                           "0x7f%s" % R.hexs(9), code, code, msg.split(" (")[0], job.lrank(r) % 4, R.pick(["SEND", "RECV"])),
                       func="process_err_completion", tid=job.tid(r, 9)))
    return lines


# ================================================================ PyTorch
def pg(job, r):
    tv = job.tv[:3]
    if tv in ("2.1", "2.2"):
        return "[Rank %d]" % r
    if tv == "2.3":
        return "[PG 0 Rank %d]" % r
    if tv == "2.4":
        return "[PG 0 (default_pg) Rank %d]" % r
    return "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % r


def tpre(job, r, d, line, level="E", f="ProcessGroupNCCL.cpp"):
    e = job.era()
    d = d + dt.timedelta(microseconds=(line * 13) % 400)
    if e == 1:
        return "[%s %s:%d] " % (level, f, line)
    if e == 3:
        return "[rank%d]:[%s %s:%d] " % (r, level, f, line)
    return "[rank%d]:[%s %s:%d] " % (r, glog(level, d), f, line)


def work(seq, op, numel, tmo, ran=None):
    s = "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (seq, op, numel, numel, tmo)
    if ran is not None:
        s += " ran for %d milliseconds before timing out." % ran
    return s


def torch_dir(job):
    py = {"2.1": "3.10", "2.2": "3.10", "2.3": "3.10", "2.4": "3.11", "2.5": "3.11"}.get(job.tv[:3], "3.12")
    return "/usr/local/lib/python%s/dist-packages/torch" % py


def so_path(job):
    return torch_dir(job) + "/lib"


def cpp_frames(job, R, where):
    lib = so_path(job)
    base = 0x7f0000000000 + R.randint(0, 0xffffff) * 0x1000
    fr = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x98", "libc10.so")]
    if where == "timeout":
        fr.append(("c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x282", "libtorch_cuda.so"))
    else:
        fr.append(("c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException() + 0x80", "libtorch_cuda.so"))
    fr += [("c10d::ProcessGroupNCCL::watchdogHandler() + 0x233", "libtorch_cuda.so"),
           ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", "libtorch_cuda.so"),
           ("<unknown function> + 0xdc253", "/lib/x86_64-linux-gnu/libstdc++.so.6"),
           ("<unknown function> + 0x94ac3", "/lib/x86_64-linux-gnu/libc.so.6"),
           ("<unknown function> + 0x126850", "/lib/x86_64-linux-gnu/libc.so.6")]
    out = []
    for i, (fn, so) in enumerate(fr):
        p = so if so.startswith("/") else lib + "/" + so
        out.append("frame #%d: %s (0x%x in %s)" % (i, fn, base + R.randint(0, 0xfffff), p))
    return out


def watchdog_timeout(job, r, d, R, seq, op, numel, last_done, ran=None):
    """lines of one rank's watchdog timeout and abort (SIGABRT follows)."""
    tmo = job.timeout_ms
    ran = ran or tmo + R.randint(5, 900)
    w = work(seq, op, numel, tmo, ran)
    P = pg(job, r)
    e = job.era()
    out = [tpre(job, r, d, 632 if e >= 5 else 563) + "%s Watchdog caught collective operation timeout: %s" % (P, w)]
    if e >= 5:
        out.append(tpre(job, r, d, 2271) + "%s failure detected by watchdog at work sequence id: %d PG status: last enqueued work: %d, last completed work: %d" % (P, seq, seq, last_done))
    elif e >= 3:
        out.append(tpre(job, r, d, 1537) + "%s Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (P, seq, seq, last_done))
    if job.tv[:3] in ("2.4", "2.5", "2.6"):
        out.append(tpre(job, r, d, 670) + "Stack trace of the failed collective not found, potentially because FlightRecorder is disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value.")
    out.append(tpre(job, r, d, 684 if e >= 5 else 577) + "%s Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % P)
    out.append(tpre(job, r, d, 690 if e >= 5 else 583) + "%s To avoid data inconsistency, we are taking the entire process down." % P)
    name = "Process group watchdog thread" if e >= 4 else "NCCL watchdog thread"
    out.append(tpre(job, r, d, 1595 if e >= 5 else 1182) + "%s %s terminated with exception: %s Watchdog caught collective operation timeout: %s" % (P, name, P, w))
    out.append("Exception raised from checkTimeout at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % (635 if e >= 5 else 565))
    out += cpp_frames(job, R, "timeout")
    out.append("")
    exc = "c10::DistBackendError" if e >= 3 else "std::runtime_error"
    out.append("terminate called after throwing an instance of '%s'" % exc)
    out.append("  what():  %s %s terminated with exception: %s Watchdog caught collective operation timeout: %s" % (P, name, P, w))
    return out


def nccl_err_text(job, kind):
    v = job.nccl_ver()
    if kind == "remote":
        return ["NCCL error: remote process exited or there was a network error, NCCL version %s" % v,
                "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely."]
    if kind == "system":
        return ["NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % v,
                "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. "]
    if kind == "cuda":
        return ["NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % v,
                "ncclUnhandledCudaError: Call to CUDA function failed."]
    return ["NCCL error: internal error - please report this issue to the NCCL developers, NCCL version %s" % v,
            "ncclInternalError: Internal check failed."]


def watchdog_async(job, r, d, R, seq, last_done, kind, last_error):
    """watchdog found an NCCL async error (remote/system) -> abort."""
    P = pg(job, r)
    e = job.era()
    body = nccl_err_text(job, kind)
    out = []
    if e >= 5:
        out.append(tpre(job, r, d, 2271) + "%s failure detected by watchdog at work sequence id: %d PG status: last enqueued work: %d, last completed work: %d" % (P, seq, seq, last_done))
    elif e == 4:
        out.append(tpre(job, r, d, 1783) + "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (P, seq, seq, last_done))
    name = "Process group watchdog thread" if e >= 4 else "NCCL watchdog thread"
    out.append(tpre(job, r, d, 1595 if e >= 5 else 1182) + "%s %s terminated with exception: %s" % (P, name, body[0]))
    out.append(body[1])
    if last_error:
        out.append("Last error:")
        out.append(last_error)
    out.append("Exception raised from checkForNCCLErrorsInternal at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % (2027 if e >= 5 else 1602))
    out += cpp_frames(job, R, "async")
    out.append("")
    exc = "c10::DistBackendError" if e >= 3 else "std::runtime_error"
    out.append("terminate called after throwing an instance of '%s'" % exc)
    out.append("  what():  %s %s terminated with exception: %s" % (P, name, body[0]))
    return out


def tb_prefix(job, r):
    return "[rank%d]: " % r if job.tv[:3] not in ("2.1",) else ""


def py_tb(job, r, frames, exc_lines):
    """frames: list of (file, line, func, code)."""
    p = tb_prefix(job, r)
    out = [p + "Traceback (most recent call last):"]
    for f, ln, fn, code in frames:
        out.append(p + '  File "%s", line %d, in %s' % (f, ln, fn))
        if code:
            out.append(p + "    " + code)
    out += [p + x for x in exc_lines]
    return out


def app_frames(job, R, leaf):
    s = "/workspace/%s" % job.script
    fr = [(s, R.randint(600, 900), "<module>", "main()"),
          (s, R.randint(400, 590), "main", "trainer.fit()" if R.chance(0.5) else "train(args, model, loader)"),
          ("/workspace/trainer/loop.py", R.randint(100, 400), "train_step" if R.chance(0.5) else "fit", None)]
    if fr[2][3] is None:
        fr[2] = (fr[2][0], fr[2][1], fr[2][2], R.pick(["loss = self.step(batch)", "self.optimizer.step()", "out = model(**batch)"]))
    return fr + leaf


def dist_backend_tb(job, r, R, kind, last_error):
    body = nccl_err_text(job, kind)
    lib = "torch.distributed.DistBackendError" if job.era() >= 3 else "RuntimeError"
    leaf = [(torch_dir(job) + "/distributed/c10d_logger.py", 83, "wrapper", "return func(*args, **kwargs)"),
            (torch_dir(job) + "/distributed/distributed_c10d.py", R.pick([2501, 2806, 2288]), "all_reduce", "work = group.allreduce([tensor], opts)")]
    exc = ["%s: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:%d, %s" % (lib, R.pick([317, 275, 268]), body[0][len("NCCL error: "):]),
           body[1]]
    if last_error:
        exc += ["Last error:", last_error]
    return py_tb(job, r, app_frames(job, R, leaf), exc)


# ================================================================ launchers
def agent_line(job, h, d, level, msg, mod="torch/distributed/elastic/multiprocessing/api.py", line=869):
    e = job.era()
    lv = {"E": "ERROR", "W": "WARNING", "I": "INFO"}[level]
    if e == 1:
        return "%s:torch.distributed.elastic.multiprocessing.api:%s" % (lv, msg)
    if e == 3:
        return "[%s] torch.distributed.elastic.multiprocessing.api: [%s] %s" % (pylog(d), lv, msg)
    return "%s %d %s:%d] %s" % (glog_us(level, d), job.pid0[h], mod, line, msg)


def child_failed(job, h, fails):
    """fails: list of (datetime, rank, exitcode, pid); first = root cause on this node."""
    out = ["Traceback (most recent call last):",
           '  File "/usr/local/bin/torchrun", line 8, in <module>',
           "    sys.exit(main())",
           "             ^^^^^^" if job.era() >= 4 else None,
           '  File "%s/distributed/run.py", line %d, in main' % (torch_dir(job), 919 if job.era() >= 5 else 812),
           "    run(args)",
           '  File "%s/distributed/launcher/api.py", line %d, in launch_agent' % (torch_dir(job), 286 if job.era() >= 5 else 263),
           "    raise ChildFailedError(",
           "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
           "============================================================",
           "%s FAILED" % job.script,
           "------------------------------------------------------------",
           "Failures:"]
    out = [x for x in out if x is not None]

    def blk(i, f):
        d, r, code, pid = f
        tb = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
        if code < 0:
            sig = {-6: "SIGABRT", -9: "SIGKILL", -11: "SIGSEGV", -15: "SIGTERM", -7: "SIGBUS"}.get(code, "SIG%d" % -code)
            tb = "Signal %d (%s) received by PID %d" % (-code, sig, pid)
        return ["[%d]:" % i,
                "  time      : %s" % elastic_ts(d),
                "  host      : %s" % job.hostname(h),
                "  rank      : %d (local_rank: %d)" % (r, job.lrank(r)),
                "  exitcode  : %d (pid: %d)" % (code, pid),
                "  error_file: <N/A>",
                "  traceback : %s" % tb]
    rest = fails[1:]
    if not rest:
        out.append("  <NO_OTHER_FAILURES>")
    for i, f in enumerate(rest):
        out += blk(i + 1, f)
    out.append("------------------------------------------------------------")
    out.append("Root Cause (first observed failure):")
    out += blk(0, fails[0])
    out.append("============================================================")
    return out


def srun_exit(h, tasks, code=None, how=None):
    ts = "task %d" % tasks[0] if len(tasks) == 1 else "tasks %d-%d" % (tasks[0], tasks[-1])
    if how:
        return "srun: error: %s: %s: %s" % (h, ts, how)
    return "srun: error: %s: %s: Exited with exit code %d" % (h, ts, code)


# ================================================================ kernel
def xid(pci, code, text, pid=None, name=None):
    if pid is None:
        return "NVRM: Xid (PCI:%s): %d, %s" % (pci, code, text)
    if pid == "unknown":
        return "NVRM: Xid (PCI:%s): %d, pid='<unknown>', name=<unknown>, %s" % (pci, code, text)
    return "NVRM: Xid (PCI:%s): %d, pid=%d, name=%s, %s" % (pci, code, pid, name, text)


def gpu_id_lines(job, h, lr, R):
    pci = busid_to_pci(job.busids[lr])
    return ["NVRM: GPU at PCI:%s: %s" % (pci, job.uuid(h, lr)),
            "NVRM: GPU Board Serial Number: %d" % R.randint(1320000000000, 1659999999999)]


def oom_kill(pid, comm, R, cgroup=False):
    anon = R.randint(60, 400) * 1024 * 1024
    head = "Memory cgroup out of memory" if cgroup else "Out of memory"
    return ["%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0" % comm,
            "%s: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (
                head, pid, comm, anon + R.randint(10**7, 9 * 10**7), anon, R.randint(100000, 900000), R.randint(0, 4000000),
                R.pick([0, 1000, 1001, 30012]), R.randint(200000, 900000)),
            "oom_reaper: reaped process %d (%s), now anon-rss:0kB, file-rss:%dkB, shmem-rss:0kB" % (pid, comm, R.randint(1000, 90000))]


def pcie_bw(pci, avail, limited, width, capable):
    return "%s: %s Gb/s available PCIe bandwidth, limited by %s x%d link at %s (capable of %s Gb/s with 16.0 GT/s PCIe x16 link)" % (
        pci, avail, limited, width, pci[:-1] + "0", capable)
