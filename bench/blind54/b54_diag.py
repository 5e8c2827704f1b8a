"""Burn-in / acceptance jobs: DCGM diag + gpu-burn on one node, and HPL."""
from b54_common import (Ctx, kfile, render_kernel, kernel_noise, xid_line, kline, net_klines,
                        oom_kill_lines, segv_kline, mpirun_signal, mpirun_nonzero,
                        slurm_timelimit, slurm_preempt, srun_exit, srun_abort_block)

DCGM_CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "unknown", "straggler"]
HPL_CAUSES = ["gpu_hardware", "ecc_memory", "network", "cuda_oom", "host_oom_kill",
              "crash_signal", "preemption", "hang", "unknown"]

W = 48


def _row(name, vals):
    out = []
    for i, v in enumerate(vals):
        out.append("| %-25s | %-*s |" % (name if i == 0 else "", W - 2, v))
    return out


def _wrap(name, text):
    chunks = [text[i:i + W - 2] for i in range(0, len(text), W - 2)]
    return _row(name, chunks)


def dcgm_table(ctx, host, results, warns, infos=()):
    sep = "+---------------------------+" + "-" * W + "+"
    out = ["Successfully ran diagnostic for group.", sep,
           "| Diagnostic                | Result" + " " * (W - 7) + "|",
           "+===========================+" + "=" * W + "+",
           "|-----  Metadata  ----------+" + "-" * W + "|"]
    out += _row("DCGM Version", [ctx.rng.choice(["3.3.5", "3.3.7", "3.3.9"])])
    out += _row("Driver Version Detected", [ctx.driver])
    out += _row("GPU Device IDs Detected", [",".join(["2330"] * ctx.gpn)])
    out.append("|-----  Deployment  --------+" + "-" * W + "|")
    for k in ["Denylist", "NVML Library", "CUDA Main Library", "Permissions and OS Blocks",
              "Persistence Mode", "Environment Variables", "Page Retirement/Row Remap",
              "Graphics Processes", "Inforom"]:
        out += _row(k, [results.get(k, "Pass")])
        for w in warns.get(k, []):
            out += _wrap("Warning", w)
    for sect, keys in [("Integration", ["PCIe"]), ("Hardware", ["GPU Memory", "Diagnostic"]),
                       ("Stress", ["Targeted Stress", "Targeted Power", "Memory Bandwidth"])]:
        out.append("+" + ("-----  %s  " % sect).ljust(27, "-") + "+" + "-" * W + "+")
        for k in keys:
            v = results.get(k, "Pass - All")
            out += _row(k, v if isinstance(v, list) else [v])
            for w in warns.get(k, []):
                out += _wrap("Warning", w)
            for i in infos:
                if i[0] == k:
                    out += _wrap("Info", i[1])
    out.append(sep)
    return out


def gpu_burn(ctx, host, faulty=None, dead=None, secs=3600, slow=None):
    rng = ctx.rng
    out = ["[root@%s gpu-burn]# ./gpu_burn -tc %d" % (host, secs)]
    for r in ctx.node_ranks(host):
        out.append("GPU %d: %s (UUID: GPU-%08x-%04x-%04x-%04x-%012x)" % (r.local, ctx.gpu_name, rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(48)))
    out.append("Using compare file: compare.ptx")
    out.append("Burning for %d seconds." % secs)
    for r in ctx.node_ranks(host):
        out.append("Initialized device %d with %d MB of memory (%d MB available, using %d MB of it), using FLOATS, using Tensor Cores" % (
            r.local, ctx.gpu_mib, ctx.gpu_mib - 600, int((ctx.gpu_mib - 600) * 0.9)))
    out.append("Results are 268435456 bytes each, thus performing %d iterations" % rng.randint(260, 520))
    errs = [0] * ctx.gpn
    steps = 10
    for k in range(1, steps + 1):
        pct = 100.0 * k / steps
        procs, gfl, temps = [], [], []
        for g in range(ctx.gpn):
            if dead is not None and g == dead and k > 3:
                procs.append("0 (0 Gflop/s)")
            else:
                gf = rng.uniform(520000, 560000) * (0.62 if slow == g else 1.0)
                procs.append("%d (%d Gflop/s)" % (int(k * 2150 * (0.62 if slow == g else 1)), gf))
            if faulty is not None and g == faulty and k > 4:
                errs[g] += rng.randint(1, 9000)
            temps.append("%d C" % (rng.randint(58, 74) + (14 if slow == g else 0)))
        out.append("%.1f%%  proc'd: %s   errors: %s   temps: %s " % (
            pct, " - ".join(procs), " - ".join(str(e) for e in errs), " - ".join(temps)))
        if dead is not None and k == 3:
            out.append("Failure during compute: Error in \"Read faultyelemdata\": the launch timed out and was terminated")
    out.append("Killing processes.. Freed memory for dev %s" % " ".join(str(g) for g in range(ctx.gpn)))
    out.append("done")
    out.append("")
    out.append("Tested %d GPUs:" % ctx.gpn)
    for g in range(ctx.gpn):
        out.append("\tGPU %d: %s" % (g, "FAULTY" if (errs[g] or g == dead) else "OK"))
    return out


def gen_dcgm(rng, cause):
    ctx = Ctx(rng, nnodes=1, gpn=8)
    host = ctx.hosts[0]
    bad = rng.randint(0, 7)
    r = ctx.node_ranks(host)[bad]
    ks = rng.choice(["syslog", "dmesg"])
    res, warns, infos = {}, {}, []
    kern = []
    truth = {"initiator": None, "notes": ""}
    burn = None
    if rng.random() < 0.4:
        warns["Persistence Mode"] = []
        res["Persistence Mode"] = "Pass"
    if cause is None:
        if rng.random() < 0.6:
            res["Persistence Mode"] = "Warn"
            warns["Persistence Mode"] = ["Persistence mode for GPU %d is disabled. Enable persistence mode by running \"nvidia-smi -i <gpuId> -pm 1 \" as root." % rng.randint(0, 7)]
        infos.append(("PCIe", "GPU %d GPU to Host bandwidth:  %.2f GB/s, GPU %d Host to GPU bandwidth:  %.2f GB/s" % (bad, rng.uniform(50, 55), bad, rng.uniform(50, 55))))
        burn = gpu_burn(ctx, host) if rng.random() < 0.6 else None
        truth["notes"] = "healthy node: all DCGM tests pass (persistence-mode warning is harmless)"
    elif cause == "gpu_hardware":
        xid = rng.choice([79, 119, 62])
        res["Diagnostic"] = ["Fail - GPU: %d" % bad, "Pass - GPU: %s" % ", ".join(str(g) for g in range(8) if g != bad)]
        warns["Diagnostic"] = ["GPU %d Detected XID %d for GPU %d. Check DCGM and system logs for errors. Reset GPU. Restart DCGM. Rerun diagnostics." % (bad, xid, bad)]
        res["Targeted Stress"] = "Skip - GPU: %d" % bad
        kern.append((100, xid_line(ctx, r, xid, 100, "nvvs", ks)))
        burn = gpu_burn(ctx, host, dead=bad) if rng.random() < 0.5 else None
        truth["notes"] = "GPU %d (%s) Xid %d during diag/burn" % (bad, r.pci, xid)
        truth["initiator"] = {"rank": None, "node": host}
    elif cause == "ecc_memory":
        res["Page Retirement/Row Remap"] = "Fail"
        warns["Page Retirement/Row Remap"] = ["GPU %d had uncorrectable memory errors and row remapping failed. Drain the GPU and reset it or reboot the node." % bad]
        res["GPU Memory"] = ["Fail - GPU: %d" % bad, "Pass - GPU: %s" % ", ".join(str(g) for g in range(8) if g != bad)]
        warns["GPU Memory"] = ["Detected %d volatile double-bit ECC error(s) in GPU %d." % (rng.randint(1, 12), bad)]
        if rng.random() < 0.6:
            kern.append((100, xid_line(ctx, r, rng.choice([48, 64, 95]), 100, "nvvs", ks)))
        burn = gpu_burn(ctx, host, faulty=bad) if rng.random() < 0.5 else None
        truth["notes"] = "uncorrectable ECC / failed row remap on GPU %d" % bad
        truth["initiator"] = {"rank": None, "node": host}
    elif cause == "nvlink":
        link = rng.randint(0, 17)
        res["PCIe"] = ["Fail - GPU: %d" % bad, "Pass - GPU: %s" % ", ".join(str(g) for g in range(8) if g != bad)]
        warns["PCIe"] = [rng.choice(["GPU %d's NvLink link %d is currently down Check DCGM and system logs for errors. Reset GPU. Restart DCGM. Rerun diagnostics." % (bad, link),
                                     "Detected %d nvlink_replay_errors NvLink errors on GPU %d's NVLink (should be 0)" % (rng.randint(100, 90000), bad)])]
        kern.append((100, xid_line(ctx, r, 74, 100, "nvvs", ks)))
        truth["notes"] = "NVLink link %d on GPU %d down / erroring" % (link, bad)
        truth["initiator"] = {"rank": None, "node": host}
    elif cause == "straggler":
        res["Targeted Power"] = ["Warn - GPU: %d" % bad, "Pass - GPU: %s" % ", ".join(str(g) for g in range(8) if g != bad)]
        warns["Targeted Power"] = ["Clocks event reason for GPU %d: HW slowdown is engaged; performance %.1f%% below the expected value" % (bad, rng.uniform(25, 40))]
        burn = gpu_burn(ctx, host, slow=bad)
        truth["notes"] = "GPU %d runs ~38%% slower than its peers (HW slowdown, hot); no errors" % bad
        truth["initiator"] = {"rank": None, "node": host}
    else:  # unknown: gpu-burn errors on one GPU, DCGM clean
        burn = gpu_burn(ctx, host, faulty=bad)
        truth["notes"] = "gpu-burn reports compare errors on GPU %d but DCGM and the kernel log show nothing: cause not established" % bad
        truth["initiator"] = {"rank": None, "node": host}
    out = ["[root@%s ~]# dcgmi diag -r 3" % host] + dcgm_table(ctx, host, res, warns, infos)
    files = {"dcgm_diag.txt": "\n".join(out) + "\n"}
    if burn:
        files["gpu_burn.log"] = "\n".join(burn) + "\n"
    if kern:
        files[kfile(ks, host)] = render_kernel(kern + kernel_noise(ctx, host, -800, ks, 4))
    return files, truth


def gen_hpl(rng, cause):
    ctx = Ctx(rng, nnodes=rng.choice([2, 4, 4, 8]), gpn=8)
    mpi = rng.random() < 0.5
    ks = rng.choice(["syslog", "dmesg"])
    P = {16: 4, 32: 4, 64: 8}.get(ctx.world, 4)
    Q = ctx.world // P
    N = rng.choice([376832, 532480, 745472]) * (ctx.nnodes // 2 or 1)
    NB = rng.choice([576, 1024])
    per_gpu = rng.uniform(52000, 58000)
    out = ["+ srun --mpi=pmix -N %d --ntasks-per-node=8 --container-image=nvcr.io/nvidia/hpc-benchmarks:24.03 ./hpl.sh --dat /workspace/hpl-linux-x86_64/sample-dat/HPL-%dGPUs.dat" % (ctx.nnodes, ctx.world)
           if not mpi else "mpirun -np %d -N 8 --bind-to none ./hpl.sh --dat ./HPL.dat" % ctx.world,
           "================================================================================",
           "HPL-NVIDIA 24.3.0  -- NVIDIA accelerated HPL benchmark -- NVIDIA",
           "================================================================================",
           "", "The following parameter values will be used:", "",
           "N        : %8d " % N, "NB       :     %4d " % NB, "PMAP     : Column-major process mapping",
           "P        :     %4d " % P, "Q        :     %4d " % Q, "PFACT    :    Left ", "NBMIN    :        2 ",
           "NDIV     :        2 ", "RFACT    :    Left ", "BCAST    :   2ringM ", "DEPTH    :        1 ",
           "SWAP     : Spread-roll (long)", "L1       : no-transposed form", "U        : transposed form",
           "EQUIL    : no", "ALIGN    : 8 double precision words", "",
           "--------------------------------------------------------------------------------", ""]
    kern = []
    truth = {"initiator": None, "notes": ""}
    bad = ctx.pick_rank()
    if cause == "cuda_oom":
        out.append("[%s:%d] HPL ERROR: cudaMalloc failed for %.2f GiB on device %d: out of memory (cudaErrorMemoryAllocation)" % (bad.host, bad.pid, rng.uniform(70, 79), bad.local))
        out.append("HPL ERROR from process # %d, on line %d of function HPL_pdinfo:" % (bad.rank, rng.randint(300, 900)))
        out.append(">>> insufficient device memory for N=%d <<<" % N)
        truth["notes"] = "N too large for GPU memory; rank %d on %s fails cudaMalloc" % (bad.rank, bad.host)
        truth["initiator"] = {"rank": bad.rank, "node": bad.host}
        out += mpirun_nonzero(ctx, bad.host, bad.rank, 1) if mpi else [srun_exit(ctx, bad.host, bad.rank, 1)] + srun_abort_block(ctx, 60)
        return {"slurm-%d.out" % ctx.jobid if not mpi else "hpl.out": "\n".join(out) + "\n"}, truth
    total = N ** 3 * 2 / 3 / (per_gpu * ctx.world * 1e9)
    stop = rng.uniform(0.15, 0.85) if cause not in (None, "unknown", "ecc_memory") else 1.01
    t = 0.0
    pct = 0.0
    while pct < 99.9:
        pct = min(100.0, pct + rng.uniform(3, 9))
        frac = 1 - (1 - pct / 100) ** 3
        t = total * frac
        if pct / 100 > stop:
            break
        g = per_gpu * ctx.world * rng.uniform(0.97, 1.02)
        out.append("Prog= %.2f%%\tN_left= %d\tTime= %.2f\tTime_left= %.2f\tiGF= %.2f\tGF= %.2f\tiGF_per= %.2f\tGF_per= %.2f " % (
            pct, int(N * (1 - pct / 100)), t, total - t, g * rng.uniform(0.9, 1.1), g, g / ctx.world * rng.uniform(0.9, 1.1), g / ctx.world))
    secs = 120 + t
    if stop > 1:
        failed = cause in ("unknown", "ecc_memory")
        resid = rng.uniform(0.0005, 0.004) if not failed else rng.uniform(1e3, 1e9)
        gf = per_gpu * ctx.world
        out += ["================================================================================",
                "T/V                N    NB     P     Q               Time                 Gflops (   per GPU)",
                "--------------------------------------------------------------------------------",
                "WR01L8R2    %8d  %4d  %4d  %4d %18.2f %22.3e (%10.3e)" % (N, NB, P, Q, total, gf, gf / ctx.world),
                "--------------------------------------------------------------------------------",
                "||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)=   %14.8e ...... %s" % (resid, "FAILED" if failed else "PASSED"),
                "================================================================================", "",
                "Finished      1 tests with the following results:",
                "              %d tests completed and passed residual checks," % (0 if failed else 1),
                "              %d tests completed and failed residual checks," % (1 if failed else 0),
                "              0 tests skipped because of illegal input values.",
                "--------------------------------------------------------------------------------", "", "End of Tests.",
                "================================================================================"]
        if cause == "ecc_memory":
            h = bad.host
            kern.append((secs * 0.5, kline(ctx, h, secs * 0.5, "NVRM: Xid (PCI:%s): 94, pid=%d, name=xhpl, Contained: SM (0x1). RST: No, D-RST: No" % (bad.pci, bad.pid), ks)))
            kern.append((secs * 0.5 + 0.1, kline(ctx, h, secs * 0.5 + 0.1, "NVRM: Xid (PCI:%s): 63, pid=%d, name=xhpl, Row remapping event: Bank %d, Row 0x%05x" % (bad.pci, bad.pid, rng.randint(0, 15), rng.getrandbits(16)), ks)))
            truth["notes"] = "residual check FAILED; kernel log shows ECC (Xid 94/63) on %s GPU %s" % (h, bad.pci)
            truth["initiator"] = {"rank": None, "node": h}
        elif cause == "unknown":
            truth["notes"] = "residual check FAILED with no other evidence (silent data corruption somewhere, origin unknown)"
            if mpi:
                out += mpirun_nonzero(ctx, ctx.hosts[0], 0, 1)
        else:
            truth["notes"] = "healthy HPL run, residual PASSED"
    elif cause in ("gpu_hardware", "crash_signal", "host_oom_kill"):
        if cause == "gpu_hardware":
            xid = rng.choice([79, 79, 119])
            kern.append((secs, xid_line(ctx, bad, xid, secs, "xhpl", ks)))
            out.append("[%s:%d] CUDA error at %s:%d code=%d(%s) \"cudaStreamSynchronize(stream)\"" % (
                bad.host, bad.pid, rng.choice(["hpl_cuda.cpp", "HPL_pdupdate.cu"]), rng.randint(100, 900),
                719 if xid == 79 else 999, "cudaErrorLaunchFailure" if xid == 79 else "cudaErrorUnknown"))
            truth["notes"] = "Xid %d on %s during HPL; xhpl on that GPU aborts" % (xid, bad.host)
            sig = (6, "Aborted")
        elif cause == "crash_signal":
            kern.append((secs, segv_kline(ctx, bad, secs, "libmpi.so.40", ks)))
            truth["notes"] = "xhpl rank %d segfaulted (no hardware evidence)" % bad.rank
            sig = (11, "Segmentation fault")
        else:
            kern += oom_kill_lines(ctx, bad.host, secs, bad.pid, "xhpl", ks, cgroup=not mpi)
            truth["notes"] = "host OOM killer killed xhpl rank %d on %s" % (bad.rank, bad.host)
            sig = (9, "Killed")
        truth["initiator"] = {"rank": bad.rank, "node": bad.host}
        if mpi:
            out += mpirun_signal(ctx, bad.host, bad.rank, sig[0], sig[1])
        else:
            out.append(srun_exit(ctx, bad.host, bad.rank, signal=sig[1]))
            out += srun_abort_block(ctx, secs + 2)
    elif cause == "network":
        kl, kind = net_klines(ctx, bad.host, secs - 1, ks)
        kern += kl
        others = [r for r in ctx.ranks if r.host != bad.host][:2]
        for r in others:
            out.append("[%d.%06d] [%s:%d:0]        ib_iface.c:%d  UCX  ERROR %s:1/IB: send completion with error: transport retry counter exceeded" % (
                int(ctx.at(secs).timestamp()), rng.randint(0, 999999), r.host, r.pid, rng.choice([746, 754]), rng.choice(["mlx5_0", "mlx5_3", "mlx5_7"])))
        out.append("[%s:%d:0:%d] ib_mlx5_log.c:177  Transport retry count exceeded on mlx5_0:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)" % (
            others[0].host, others[0].pid, others[0].pid + 60))
        out.append("==== backtrace (tid:%d) ====" % others[0].pid)
        out.append(" 0  /opt/hpcx/ucx/lib/libucs.so.0(ucs_handle_error+0x2e4) [0x7f%09x]" % rng.getrandbits(36))
        out.append(" 1  /opt/hpcx/ucx/lib/libucs.so.0(ucs_fatal_error_message+0xb8) [0x7f%09x]" % rng.getrandbits(36))
        truth["notes"] = "IB link failure on %s (%s); peers' UCX report retry-count exceeded" % (bad.host, kind)
        truth["initiator"] = {"rank": None, "node": bad.host}
        r0 = others[0]
        if mpi:
            out += mpirun_signal(ctx, r0.host, r0.rank, 6, "Aborted")
        else:
            out.append(srun_exit(ctx, r0.host, r0.rank, signal="Aborted"))
            out += srun_abort_block(ctx, secs + 2)
    elif cause in ("hang", "preemption"):
        if cause == "hang":
            end = secs + rng.choice([3600, 7200])
            out.append(slurm_timelimit(ctx, end, step=False))
            out.insert(0, "HPL job %d start %s, TimeLimit=%d min, expected runtime ~%d min" % (ctx.jobid, ctx.iso(0), (end - 60) // 60, total // 60 + 3))
            truth["notes"] = "HPL progress lines stop at %.1f%%; nothing more until the time limit" % pct
        else:
            out.append(slurm_preempt(ctx, secs))
            truth["notes"] = "HPL job preempted mid-run while progressing normally"
        out += ["srun: Job step aborted: Waiting up to 32 seconds for job step to finish.", "srun: forcing job termination"]
    files = {"slurm-%d.out" % ctx.jobid if not mpi else "hpl.out": "\n".join(out) + "\n"}
    if kern:
        files[kfile(ks, kern[0][1].split()[3] if ks == "syslog" else bad.host)] = render_kernel(kern + kernel_noise(ctx, bad.host, secs - 900, ks, 4))
    return files, truth
