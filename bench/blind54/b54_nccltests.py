"""nccl-tests runs (all_reduce_perf & friends) under mpirun or srun."""
from b54_common import (Ctx, nccl_prefix, nccl_info_lines, BENIGN_NCCL_WARN,
                        xid_line, kline, kernel_noise, oom_kill_lines, segv_kline,
                        net_klines, render_kernel, kfile, srun_exit, srun_abort_block,
                        slurm_timelimit, slurm_preempt, mpirun_nonzero, mpirun_signal)

TESTS = {  # name: (busbw factor fn, redop, label)
    "all_reduce_perf": (lambda n: 2.0 * (n - 1) / n, "sum", "all_reduce"),
    "all_gather_perf": (lambda n: (n - 1) / n, "none", "all_gather"),
    "reduce_scatter_perf": (lambda n: (n - 1) / n, "sum", "reduce_scatter"),
    "sendrecv_perf": (lambda n: 1.0, "sum", "sendrecv"),
    "alltoall_perf": (lambda n: (n - 1) / n, "none", "alltoall"),
}

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "host_oom_kill", "crash_signal", "preemption",
          "hang", "straggler", "unknown"]


def fnum(x, w=7):
    for d in (2, 1, 0):
        s = "%.*f" % (d, x)
        if len(s) <= w:
            return s
    return "%.0f" % x


class Table:
    def __init__(self, ctx, test, n, peak, minb=8, maxb=None, lat=None):
        self.ctx, self.test, self.n, self.peak = ctx, test, n, peak
        self.minb = minb
        self.maxb = maxb or ctx.rng.choice([1 << 30, 1 << 31, 1 << 33])
        self.lat = lat or ctx.rng.uniform(18, 60)
        self.factor, self.redop, _ = TESTS[test]

    def sizes(self):
        s, out = self.minb, []
        while s <= self.maxb:
            out.append(s)
            s *= 2
        return out

    def row(self, size, slow=1.0, wrong=0):
        rng = self.ctx.rng
        cells = []
        for _ in range(2):
            algpeak = self.peak / self.factor(self.n)
            t = (self.lat + size / (algpeak * 1e3)) * slow * rng.uniform(0.97, 1.05)
            alg = size / t / 1e3
            bus = alg * self.factor(self.n)
            cells.append("%7s  %6.2f  %6.2f  %5s" % (fnum(t), alg, bus, str(wrong) if wrong else "0"))
        count = size // 4
        if self.test in ("all_gather_perf", "reduce_scatter_perf", "alltoall_perf"):
            count = max(1, size // 4 // self.n)
        if self.test == "alltoall_perf":
            cells[1] = "%7s  %6s  %6s  %5s" % ("N/A", "N/A", "N/A", "N/A")
        root = "-1"
        return "%12d  %12d  %8s  %6s  %6s  %s  %s" % (size, count, "float", self.redop, root, cells[0], cells[1]), \
            (size / ((self.lat + size / (self.peak / self.factor(self.n) * 1e3)) * slow) / 1e3) * self.factor(self.n)

    def header(self, ngpus=1, iters=20):
        return ["# nThread 1 nGpus %d minBytes %d maxBytes %d step: 2(factor) warmup iters: 5 iters: %d agg iters: 1 validation: 1 graph: 0" % (
            ngpus, self.minb, self.maxb, iters), "#"]

    def col_header(self):
        return ["#",
                "#                                                              out-of-place                       in-place          ",
                "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
                "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       "]


def device_lines(ctx, ranks):
    w = max(len(h) for h in ctx.hosts)
    return ["# Using devices"] + ["#  Rank %2d Group  0 Pid %6d on %*s device %2d [0x%s] %s" % (
        r.rank, r.pid, w, r.host, r.local, r.bus, ctx.gpu_name) for r in ranks]


def peak_for(ctx, multinode):
    if "A100" in ctx.gpu_name:
        return ctx.rng.uniform(180, 195) if multinode else ctx.rng.uniform(225, 235)
    return ctx.rng.uniform(355, 392) if multinode else ctx.rng.uniform(455, 482)


def run_table(ctx, tab, out, stop_at=None, slow_sizes=(), wrong_sizes=(), slow=1.0):
    """Append rows; stop before index stop_at. Returns list of busbw."""
    bws = []
    for i, s in enumerate(tab.sizes()):
        if stop_at is not None and i >= stop_at:
            break
        sl = slow * (ctx.rng.uniform(2.5, 6) if s in slow_sizes else 1.0)
        line, bw = tab.row(s, sl, wrong=(ctx.rng.randint(1, 40000) if s in wrong_sizes else 0))
        out.append(line)
        bws.append(bw)
    return bws


def footer(out, bws, test, oob_ok=True, nsz=None):
    avg = sum(bws) / max(1, len(bws))
    out.append("# Out of bounds values : 0 %s" % ("OK" if oob_ok else "FAILED"))
    out.append("# Avg bus bandwidth    : %g " % round(avg, 4))
    out.append("#")
    if test:
        out.append("# Collective test concluded: %s" % test)
        out.append("#")


def test_fail_line(host, pid, kind, file_line, msg, last=""):
    tag = "NCCL" if kind == "nccl" else "CUDA"
    if kind == "nccl":
        first = "%s: Test NCCL failure common.cu:%d '%s / %s'" % (host, file_line, msg, last)
    else:
        first = "%s: Test CUDA failure common.cu:%d '%s'" % (host, file_line, msg)
    return [first, " .. %s pid %d: Test failure common.cu:%d" % (host, pid, file_line - 300 + (7 if tag == "CUDA" else 0))]


def gen(rng, cause):
    nn = rng.choice([2, 2, 4]) if cause in ("network", "straggler") else rng.choice([1, 2, 2, 4])
    ctx = Ctx(rng, nnodes=nn, gpn=8)
    test = rng.choice(["all_reduce_perf"] * 3 + ["all_gather_perf", "reduce_scatter_perf", "sendrecv_perf", "alltoall_perf"])
    use_srun = rng.random() < 0.5
    ver = rng.choice(["2.13.9", "2.13.10", "2.14.1", None])
    dbg = rng.random() < 0.45
    ks = rng.choice(["syslog", "dmesg", "dmesg_T"])
    files, truth = {}, {"initiator": None, "notes": ""}
    out, kern = [], []
    if use_srun:
        out.append("Job %d started on %s at %s" % (ctx.jobid, ",".join(ctx.hosts), ctx.at(0).strftime("%a %b %d %H:%M:%S UTC %Y")))
        out.append("+ srun --mpi=pmix --ntasks-per-node=8 --container-image=nvcr.io#nvidia/pytorch:24.%02d-py3 /opt/nccl-tests/build/%s -b 8 -e 8G -f 2 -g 1" % (rng.randint(1, 12), test))
    else:
        out.append("$ mpirun --allow-run-as-root -np %d -N 8 -H %s -x NCCL_DEBUG=%s -x NCCL_IB_HCA=mlx5 --bind-to none ./build/%s -b 8 -e 8G -f 2 -g 1" % (
            ctx.world, ",".join("%s:8" % h for h in ctx.hosts), "INFO" if dbg else "WARN", test))
    if cause == "straggler" or (cause == "network" and rng.random() < 0.5):
        return gen_sweep(ctx, rng, cause, test, use_srun, files, truth, out, kern, ks)
    if ver:
        out.append("# nccl-tests version %s nccl-headers=%s nccl-library=%s" % (ver, ctx.nccl.replace(".", "0", 1).replace(".", ""), ctx.nccl.replace(".", "0", 1).replace(".", "")))
    out.append("# Collective test starting: %s" % test)
    multinode = ctx.nnodes > 1
    tab = Table(ctx, test, ctx.world, peak_for(ctx, multinode))
    out += tab.header()
    out += device_lines(ctx, ctx.ranks)
    if dbg:
        for r in ctx.ranks[:: max(1, ctx.world // 4)]:
            out += nccl_info_lines(ctx, r, rng.randint(2, 5), ib=multinode)
        out.append("NCCL version %s+cuda%s" % (ctx.nccl, ctx.cuda))
    if rng.random() < 0.5:
        r0 = ctx.ranks[rng.randint(0, ctx.world - 1)]
        out.append("%s %s" % (nccl_prefix(ctx, r0), rng.choice(BENIGN_NCCL_WARN[:2] + BENIGN_NCCL_WARN[3:] if multinode else BENIGN_NCCL_WARN)))
    out += tab.col_header()
    nsz = len(tab.sizes())
    stop = rng.randint(nsz // 3, nsz - 2)
    bad = ctx.pick_rank()
    note = ""
    fail_kind = None
    if cause is None:
        slow = [s for s in tab.sizes() if rng.random() < 0.12 and s < 1 << 20]
        bws = run_table(ctx, tab, out, slow_sizes=slow)
        footer(out, bws, test)
        note = "healthy nccl-tests run; a few small sizes are noisy" + (" and benign NCCL WARN plugin lines" if dbg else "")
        files["nccl_test.out" if not use_srun else "slurm-%d.out" % ctx.jobid] = "\n".join(out) + "\n"
        truth["notes"] = note
        if rng.random() < 0.3:
            kern += kernel_noise(ctx, ctx.hosts[0], 5, ks, 6)
            files[kfile(ks, ctx.hosts[0])] = render_kernel(kern)
        return files, truth
    if cause == "unknown":
        wrong = [s for s in tab.sizes()[stop - 3: stop]]
        bws = run_table(ctx, tab, out, wrong_sizes=wrong)
        footer(out, bws, test, oob_ok=True)
        note = "data validation errors (#wrong non-zero) at large sizes; summed over ranks, no kernel/DCGM evidence: origin unknown"
        fail_kind = "exit1"
        if rng.random() < 0.5:
            kern += kernel_noise(ctx, ctx.hosts[-1], 10, ks, 5)
            files[kfile(ks, ctx.hosts[-1])] = render_kernel(kern)
    elif cause in ("gpu_hardware", "ecc_memory", "nvlink", "illegal_memory_access", "cuda_oom"):
        if cause == "cuda_oom":
            stop = 0
        bws = run_table(ctx, tab, out, stop_at=stop)
        secs = 60 + stop * 2.0
        if cause == "gpu_hardware":
            xid = rng.choice([79, 79, 119, 62, 120])
            msg = {79: "unspecified launch failure", 119: "unknown error", 62: "unknown error", 120: "unknown error"}[xid]
            kern.append((secs, xid_line(ctx, bad, xid, secs, "all_reduce_perf"[:15], ks)))
            if xid == 79:
                kern.append((secs + 0.2, kline(ctx, bad.host, secs + 0.2, "NVRM: GPU %s: GPU has fallen off the bus." % bad.pci.replace("0000:", "0000:") , ks)))
                for j, t in enumerate(["NVRM: A GPU crash dump has been created. If possible, please run", "NVRM: nvidia-bug-report.sh as root to collect this data before", "NVRM: the NVIDIA kernel module is unloaded."]):
                    kern.append((secs + 0.3 + j * 1e-5, kline(ctx, bad.host, secs + 0.3 + j * 1e-5, t, ks)))
            note = "Xid %d on %s GPU %s (%s) during the test" % (xid, bad.host, bad.local, bad.pci)
        elif cause == "ecc_memory":
            xid = rng.choice([48, 94, 95, 64])
            msg = "uncorrectable ECC error encountered"
            kern.append((secs, xid_line(ctx, bad, xid, secs, "all_reduce_perf", ks)))
            if xid in (94, 95):
                kern.append((secs + 0.1, kline(ctx, bad.host, secs + 0.1, "NVRM: Xid (PCI:%s): 63, pid=%d, name=all_reduce_perf, Row remapping event: Bank %d, Row 0x%05x" % (bad.pci, bad.pid, rng.randint(0, 15), rng.getrandbits(16)), ks)))
            note = "uncorrectable ECC (Xid %d) on %s GPU %d" % (xid, bad.host, bad.local)
        elif cause == "nvlink":
            msg = rng.choice(["unspecified launch failure", "unhandled cuda error"])
            kern.append((secs, xid_line(ctx, bad, 74, secs, "all_reduce_perf", ks)))
            kern.append((secs + 0.01, kline(ctx, bad.host, secs + 0.01, "NVRM: nvlink: link %d (0x%x) on GPU %s reported fatal error (DL_TX_FATAL)" % (rng.randint(0, 17), rng.getrandbits(12), bad.pci), ks)))
            note = "NVLink fatal error Xid 74 on %s GPU %d" % (bad.host, bad.local)
        elif cause == "illegal_memory_access":
            msg = "an illegal memory access was encountered"
            kern.append((secs, xid_line(ctx, bad, rng.choice([13, 31]), secs, "all_reduce_perf", ks)))
            note = "illegal memory access in a test kernel on %s GPU %d (custom-built NCCL)" % (bad.host, bad.local)
        else:
            msg = "out of memory"
            note = "cudaMalloc of test buffers fails on %s GPU %d: a stale process holds memory there" % (bad.host, bad.local)
        kind = "cuda" if cause in ("cuda_oom", "illegal_memory_access", "ecc_memory") or rng.random() < 0.5 else "nccl"
        if kind == "nccl":
            msg = "unhandled cuda error (run with NCCL_DEBUG=INFO for details)"
        if dbg and cause != "cuda_oom":
            out.append("%s misc/%s NCCL WARN Cuda failure '%s'" % (nccl_prefix(ctx, bad), rng.choice(["proxy.cc:1480", "enqueue.cc:1209", "strongstream.cc:422"]), "unspecified launch failure" if cause != "ecc_memory" else "uncorrectable ECC error encountered"))
        # survivors see remote errors first (in a multi-node job)
        surv = [r for r in ctx.ranks if r.host != bad.host][:rng.randint(1, 3)] if ctx.nnodes > 1 and cause != "cuda_oom" else []
        for r in surv:
            peer_ip = ctx.ips[ctx.hosts.index(bad.host)]
            out += test_fail_line(r.host, r.pid, "nccl", rng.choice([1005, 1128, 1204]),
                                  "remote process exited or there was a network error",
                                  "NET/IB : Got completion from peer %s<%d> with status=5 opcode=1 len=0 vendor err 249 (Send) localGid ::ffff:%s remoteGids::ffff:%s hca mlx5_%d" % (
                                      peer_ip, rng.randint(30000, 60000), ctx.ips[ctx.hosts.index(r.host)], peer_ip, rng.randint(0, 11)))
        out += test_fail_line(bad.host, bad.pid, kind, rng.choice([892, 1005, 1128, 1204]) if kind == "nccl" else rng.choice([892, 1015, 1172]), msg)
        first = surv[0] if surv else bad
        fail_kind = ("exit", first)
        has_k = cause != "cuda_oom" and (rng.random() < 0.85 or cause in ("nvlink", "gpu_hardware"))
        if has_k:
            kern += kernel_noise(ctx, bad.host, secs - 200, ks, rng.randint(3, 8))
            files[kfile(ks, bad.host)] = render_kernel(kern)
        direct = (kind == "cuda" and cause in ("cuda_oom", "ecc_memory", "illegal_memory_access"))
        if has_k or direct:
            truth["initiator"] = {"rank": bad.rank, "node": bad.host}
        else:
            truth["initiator"] = {"rank": None, "node": bad.host} if cause == "cuda_oom" else None
        if cause == "illegal_memory_access" and not has_k:
            truth["initiator"] = {"rank": bad.rank, "node": bad.host}
    elif cause == "network":
        if ctx.nnodes == 1:
            ctx = None
            return gen(rng, cause)
        bad = ctx.ranks[ctx.gpn * rng.randint(0, ctx.nnodes - 1) + rng.randint(0, ctx.gpn - 1)]
        bws = run_table(ctx, tab, out, stop_at=stop)
        secs = 60 + stop * 2.0
        bip = ctx.ips[ctx.hosts.index(bad.host)]
        surv = [r for r in ctx.ranks if r.host != bad.host]
        rng.shuffle(surv)
        surv = sorted(surv[:rng.randint(2, 4)], key=lambda r: r.rank)
        for r in surv:
            lip = ctx.ips[ctx.hosts.index(r.host)]
            out.append("%s transport/net_ib.cc:%d NCCL WARN NET/IB : Got completion from peer %s<%d> with status=12 opcode=%d len=0 vendor err 129 (%s) localGid ::ffff:%s remoteGids::ffff:%s hca mlx5_%d" % (
                nccl_prefix(ctx, r), rng.choice([1696, 2133]), bip, rng.randint(30000, 60000), rng.choice([0, 1]), rng.choice(["Send", "Recv"]), lip, bip, rng.randint(0, 11)))
        for r in surv[:2]:
            out += test_fail_line(r.host, r.pid, "nccl", rng.choice([1005, 1128, 1204]),
                                  "remote process exited or there was a network error",
                                  "NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Recv)" % (bip, rng.randint(30000, 60000)))
        fail_kind = ("exit", surv[0])
        kl, kind = net_klines(ctx, bad.host, secs - 3, ks)
        note = "NIC failure on %s (%s, peer IP %s); other nodes report IB completion errors against it" % (bad.host, kind, bip)
        if rng.random() < 0.7:
            kern += kl + kernel_noise(ctx, bad.host, secs - 500, ks, 4)
            files[kfile(ks, bad.host)] = render_kernel(kern)
            truth["initiator"] = {"rank": None, "node": bad.host}
        else:
            ips = "\n".join("#   %s %s" % (h, ip) for h, ip in zip(ctx.hosts, ctx.ips))
            out.insert(1, "# hosts:\n" + ips)
            truth["initiator"] = {"rank": None, "node": bad.host}
            note += "; host/IP table echoed by the batch script"
    elif cause in ("crash_signal", "host_oom_kill"):
        bws = run_table(ctx, tab, out, stop_at=stop)
        secs = 60 + stop * 2.0
        if cause == "crash_signal":
            sig = rng.choice([(11, "Segmentation fault", "SIGSEGV"), (7, "Bus error", "SIGBUS"), (6, "Aborted", "SIGABRT")])
            if sig[0] == 11:
                kern.append((secs, segv_kline(ctx, bad, secs, rng.choice(["libnccl-net.so", "libnccl.so.2.19.3"]), ks)))
            note = "%s on rank %d (%s) inside the NCCL net plugin; no Xid" % (sig[2], bad.rank, bad.host)
        else:
            sig = (9, "Killed", "SIGKILL")
            kern += oom_kill_lines(ctx, bad.host, secs, bad.pid, "all_reduce_perf", ks, cgroup=use_srun)
            note = "host OOM killer killed rank %d on %s (co-located memory hog)" % (bad.rank, bad.host)
        fail_kind = ("signal", bad, sig)
        truth["initiator"] = {"rank": bad.rank, "node": bad.host}
        if kern or rng.random() < 0.5:
            kern += kernel_noise(ctx, bad.host, secs - 300, ks, 4)
            files[kfile(ks, bad.host)] = render_kernel(kern)
    elif cause in ("hang", "preemption"):
        if cause == "hang":
            bws = run_table(ctx, tab, out, stop_at=stop)
            note = "test stopped progressing at size %d; killed much later by the time limit (no rank identified)" % tab.sizes()[stop]
            tsecs = rng.choice([3600, 7200, 14400])
            fail_kind = ("cancel", tsecs, "timelimit")
        else:
            loops = rng.randint(2, 4)
            for k in range(loops):
                bws = run_table(ctx, tab, out)
                footer(out, bws, test)
                out.append("# Collective test starting: %s" % test)
                out += tab.col_header()
            bws = run_table(ctx, tab, out, stop_at=stop)
            tsecs = loops * rng.uniform(80, 150) + rng.uniform(10, 60)
            fail_kind = ("cancel", tsecs, rng.choice(["timelimit", "preempt"]))
            note = "burn-in loop was cancelled by the scheduler (%s) mid-iteration while still progressing" % fail_kind[2]
    # ---- launcher tail ----
    if fail_kind and fail_kind != "exit1":
        if fail_kind[0] == "exit":
            r = fail_kind[1]
            if use_srun:
                out.append(srun_exit(ctx, r.host, r.rank, 1))
                out += srun_abort_block(ctx, 100)
                for h in ctx.hosts:
                    if h != r.host and rng.random() < 0.6:
                        out.append(srun_exit(ctx, h, ctx.node_ranks(h)[0].rank, signal="Killed"))
            else:
                out += mpirun_nonzero(ctx, r.host, r.rank, 1)
        elif fail_kind[0] == "signal":
            r, sig = fail_kind[1], fail_kind[2]
            if use_srun:
                out.append(srun_exit(ctx, r.host, r.rank, signal=sig[1]))
                if cause == "host_oom_kill":
                    out.append("slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % ctx.jobid)
                out += srun_abort_block(ctx, 100)
            else:
                out += mpirun_signal(ctx, r.host, r.rank, sig[0], sig[1])
        elif fail_kind[0] == "cancel":
            tsecs, why = fail_kind[1], fail_kind[2]
            if use_srun or why == "preempt":
                if why == "timelimit":
                    out.append(slurm_timelimit(ctx, tsecs))
                else:
                    out.append(slurm_preempt(ctx, tsecs))
                out.append("srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
                out.append("srun: got SIGCONT")
                out.append("srun: forcing job termination")
            else:
                out.append("mpirun: Forwarding signal 18 to job")
                out.append("mpirun: abort is already in progress...hit ctrl-c again to forcibly terminate")
                out.append("slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (ctx.jobid, ctx.hosts[0], ctx.at(tsecs).strftime("%Y-%m-%dT%H:%M:%S")))
            if cause == "hang":
                out.insert(1, "Job %d started at %s (TimeLimit=%d:00:00)" % (ctx.jobid, ctx.at(0).strftime("%Y-%m-%dT%H:%M:%S"), tsecs // 3600))
    elif fail_kind == "exit1":
        if use_srun:
            out.append(srun_exit(ctx, ctx.hosts[0], 0, 1))
        else:
            out += mpirun_nonzero(ctx, ctx.hosts[0], 0, 1)
    name = "slurm-%d.out" % ctx.jobid if use_srun else "nccl_test.out"
    files[name] = "\n".join(out) + "\n"
    truth["notes"] = note
    return files, truth


def gen_sweep(ctx, rng, cause, test, use_srun, files, truth, out, kern, ks):
    """Per-node (straggler) or per-pair (network) sweep in one job log."""
    bad_host = ctx.hosts[rng.randint(0, ctx.nnodes - 1)]
    if cause == "straggler":
        out.append("# single-node NVLink sweep, one node at a time")
        for h in ctx.hosts:
            out.append("==== %s ====" % h)
            out.append("# Collective test starting: %s" % test)
            rs = ctx.node_ranks(h)
            tab = Table(ctx, test, len(rs), peak_for(ctx, False), maxb=1 << 30)
            out += tab.header(ngpus=1)
            out += ["# Using devices"] + ["#  Rank %2d Group  0 Pid %6d on %s device %2d [0x%s] %s" % (
                r.local, r.pid, h, r.local, r.bus, ctx.gpu_name) for r in rs]
            out += tab.col_header()
            slow = rng.uniform(1.6, 2.6) if h == bad_host else 1.0
            bws = run_table(ctx, tab, out, slow=slow)
            footer(out, bws, test)
        note = "single-node sweeps: %s consistently ~%d%% lower busbw at all sizes; nothing in the logs says why" % (bad_host, 40)
        if rng.random() < 0.5:
            r = ctx.node_ranks(bad_host)[rng.randint(0, ctx.gpn - 1)]
            out.append("# nvidia-smi -q -d PERFORMANCE on %s:" % bad_host)
            out.append("    Clocks Event Reasons")
            out.append("        Idle                              : Not Active")
            out.append("        SW Power Cap                      : Active")
            out.append("        HW Slowdown                       : Not Active")
            note += "; SW power cap active on that node"
        truth["initiator"] = {"rank": None, "node": bad_host}
    else:
        pairs = [(ctx.hosts[i], ctx.hosts[j]) for i in range(ctx.nnodes) for j in range(i + 1, ctx.nnodes)]
        if not pairs:
            pairs = [(ctx.hosts[0], ctx.hosts[0])]
        out.append("# pairwise 2-node %s sweep" % test)
        for a, b in pairs:
            out.append("==== %s,%s ====" % (a, b))
            rs = ctx.node_ranks(a) + ctx.node_ranks(b)
            tab = Table(ctx, test, len(rs), peak_for(ctx, True), maxb=1 << 31)
            out += tab.header(ngpus=1)
            out += ["#  Rank %2d Group  0 Pid %6d on %s device %2d [0x%s] %s" % (
                i, r.pid, r.host, r.local, r.bus, ctx.gpu_name) for i, r in enumerate(rs)]
            involved = bad_host in (a, b)
            if involved:
                r = ctx.node_ranks(bad_host)[0]
                out.append("%s NCCL INFO NET/IB : No device found." % nccl_prefix(ctx, r))
                out.append("%s NCCL INFO NET/Socket : Using [0]eth0:%s<0>" % (nccl_prefix(ctx, r), ctx.ips[ctx.hosts.index(bad_host)]))
                out.append("%s NCCL INFO Using network Socket" % nccl_prefix(ctx, r))
            out += tab.col_header()
            slow = rng.uniform(25, 60) if involved else 1.0
            bws = run_table(ctx, tab, out, slow=slow)
            footer(out, bws, test)
        kl, kind = net_klines(ctx, bad_host, 30, ks, kind=rng.choice(["ib_down", "cable"]))
        note = "every pair with %s falls back to NET/Socket and collapses to a few GB/s; its IB link is down" % bad_host
        if rng.random() < 0.6:
            kern += kl + kernel_noise(ctx, bad_host, 0, ks, 4)
            files[kfile(ks, bad_host)] = render_kernel(kern)
        truth["initiator"] = {"rank": None, "node": bad_host}
    truth["notes"] = note
    files["slurm-%d.out" % ctx.jobid if use_srun else "nccl_test.out"] = "\n".join(out) + "\n"
    return files, truth
