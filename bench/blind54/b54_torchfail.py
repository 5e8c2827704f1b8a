"""Failure composer for PyTorch-based jobs (MLPerf reference, sanity scripts,
inference benchmarks). Produces per-rank error text, collateral on the other
ranks, launcher tail, optional kernel log and the truth for one cause.

Result dict:
  ev:   list of (secs, rank|None, text)  -- text may hold several lines
  tail: launcher lines printed after everything else
  kern: list of (secs, line) for one host (kern_host) or []
  initiator, note
"""
from b54_common import (xid_line, kline, kernel_noise, oom_kill_lines, segv_kline,
                        net_klines, watchdog_lines, torchrun_failure, torchrun_sigterm,
                        srun_exit, srun_abort_block, slurm_timelimit, slurm_preempt,
                        slurm_oom, nccl_prefix, agent_pid)

CUDA_HINT = ("CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
             "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
             "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n")


def py_tb(frames, last):
    out = ["Traceback (most recent call last):"]
    for f, ln, fn, code in frames:
        out.append('  File "%s", line %d, in %s' % (f, ln, fn))
        out.append("    " + code)
    out.append(last)
    return "\n".join(out)


def frames_for(script, rng, where="train"):
    base = [(script, rng.randint(300, 900), "<module>", "main()"),
            (script, rng.randint(100, 300), "main", "%s(model, optimizer, loader)" % where)]
    if where == "train":
        base.append((script, rng.randint(60, 200), "train", "loss.backward()"))
        base.append(("/usr/local/lib/python3.10/dist-packages/torch/_tensor.py", 521, "backward",
                     "torch.autograd.backward("))
    elif where == "bench":
        base.append((script, rng.randint(40, 120), "bench", "dist.all_reduce(buf, op=dist.ReduceOp.SUM)"))
        base.append(("/usr/local/lib/python3.10/dist-packages/torch/distributed/c10d_logger.py", 83, "wrapper",
                     "return func(*args, **kwargs)"))
    else:
        base.append((script, rng.randint(40, 120), where, "outputs = llm.generate(prompts, sampling_params)"))
    return base


def _collateral_watchdog(ctx, exclude, secs, seq, k, op="ALLREDUCE", new=True):
    rng = ctx.rng
    others = [r for r in ctx.ranks if r.rank not in exclude]
    rng.shuffle(others)
    others = sorted(others[:k], key=lambda r: r.rank)
    ev = []
    for r in others:
        t = secs + rng.uniform(0, 3)
        ev.append((t, r.rank, "\n".join(watchdog_lines(ctx, r, t, seq, op, new=new))))
    return ev, others


def _remote_error(ctx, r, secs, peer_ip):
    return (secs, r.rank, "[rank%d]:[E%s ProcessGroupNCCL.cpp:1895] [PG 0 Rank %d] Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version %s\n"
            "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\n"
            "Last error:\nNET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:%s remoteGids::ffff:%s" % (
                r.rank, ctx.glog_ts(secs, r.host), r.rank, ctx.nccl, peer_ip, ctx.rng.randint(30000, 60000),
                ctx.ips[ctx.hosts.index(r.host)], peer_ip))


def compose(ctx, cause, secs, script="train.py", launcher="torchrun", where="train",
            ks="syslog", kern_p=0.8, seq=None):
    rng = ctx.rng
    seq = seq or rng.randint(2000, 90000)
    new = rng.random() < 0.7
    bad = ctx.pick_rank(not_zero=rng.random() < 0.6)
    res = {"ev": [], "tail": [], "kern": [], "kern_host": bad.host, "initiator": None, "note": ""}
    ev = res["ev"]
    first_exit = bad          # who the launcher sees die first
    exitcode = 1
    tb_txt = None
    watch = True              # survivors time out in the watchdog
    ini_rank = True
    dl = rng.random() < kern_p
    if cause in ("gpu_hardware", "ecc_memory", "nvlink"):
        xid = {"gpu_hardware": rng.choice([79, 79, 119, 62, 120]),
               "ecc_memory": rng.choice([48, 94, 95, 64]),
               "nvlink": 74}[cause]
        res["kern"].append((secs - 0.5, xid_line(ctx, bad, xid, secs - 0.5, "python", ks)))
        if xid == 79:
            res["kern"].append((secs - 0.4, kline(ctx, bad.host, secs - 0.4, "NVRM: GPU %s: GPU has fallen off the bus." % bad.pci, ks)))
        if xid in (94, 95):
            res["kern"].append((secs - 0.45, kline(ctx, bad.host, secs - 0.45, "NVRM: Xid (PCI:%s): 63, pid=%d, name=python, Row remapping event: Bank %d, Row 0x%05x" % (bad.pci, bad.pid, rng.randint(0, 15), rng.getrandbits(16)), ks)))
        if cause == "nvlink":
            peer = ctx.node_ranks(bad.host)[(bad.local + rng.randint(1, ctx.gpn - 1)) % ctx.gpn]
            res["kern"].append((secs - 0.49, xid_line(ctx, peer, 74, secs - 0.49, "python", ks)))
        loud = rng.random() < 0.6 or cause == "ecc_memory"
        if loud:
            msg = {"gpu_hardware": "unspecified launch failure" if xid == 79 else "unknown error",
                   "ecc_memory": "uncorrectable ECC error encountered",
                   "nvlink": "unspecified launch failure"}[cause]
            ev.append((secs, bad.rank, py_tb(frames_for(script, rng, where), "RuntimeError: CUDA error: %s\n%s" % (msg, CUDA_HINT))))
            tb_txt = None
        else:
            ini_rank = False
            first_exit = None
            dl = True
        res["note"] = "Xid %d on %s GPU %d (%s)%s; peers hit NCCL watchdog timeouts" % (
            xid, bad.host, bad.local, bad.pci, "" if loud else ", the rank itself printed nothing")
        if cause in ("gpu_hardware", "nvlink") or not loud:
            dl = True   # without the kernel log the cause could not be established
        if not dl and cause != "ecc_memory":
            res["note"] += " (no kernel log attached)"
        if cause == "nvlink":
            ini_rank = False
        node_known = dl or loud
        res["initiator"] = {"rank": bad.rank if (ini_rank and loud) else None,
                            "node": bad.host if node_known else None}
        if not dl:
            res["kern"] = []
    elif cause == "network":
        bip = ctx.ips[ctx.hosts.index(bad.host)]
        kl, kind = net_klines(ctx, bad.host, secs - 2, ks)
        res["kern"] += kl
        surv = [r for r in ctx.ranks if r.host != bad.host] or [r for r in ctx.ranks if r is not bad]
        rng.shuffle(surv)
        for r in sorted(surv[:rng.randint(2, 4)], key=lambda x: x.rank):
            ev.append((secs + rng.uniform(0, 2), r.rank, "%s transport/net_ib.cc:2133 NCCL WARN NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Recv)" % (
                nccl_prefix(ctx, r), bip, rng.randint(30000, 60000))))
            ev.append(_remote_error(ctx, r, secs + rng.uniform(2, 4), bip))
        first_exit = surv[0]
        exitcode = -6
        watch = False
        res["note"] = "NIC problem on %s (%s); survivors see IB completion errors / ncclRemoteError naming %s" % (bad.host, kind, bip)
        res["initiator"] = {"rank": None, "node": bad.host} if dl else None
        if not dl:
            res["kern"] = []
    elif cause == "cuda_oom":
        gib = rng.choice([1.25, 2.0, 3.5, 7.82, 16.0])
        tot = ctx.gpu_mib / 1024 - 0.5
        ev.append((secs, bad.rank, py_tb(frames_for(script, rng, where),
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of %.2f GiB of which %.2f GiB is free. "
            "Including non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. "
            "If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)" % (
                gib, bad.local, tot, gib * 0.4, tot - gib * 0.4, tot - 3.1, 2.4))))
        res["note"] = "CUDA OOM on rank %d" % bad.rank
        res["initiator"] = {"rank": bad.rank, "node": bad.host}
        dl = False
    elif cause == "illegal_memory_access":
        if rng.random() < 0.5:
            txt = "\n".join("../aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [%d,0,0], thread: [%d,0,0] Assertion `-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"` failed." % (
                rng.randint(0, 900), t) for t in range(rng.randint(32, 36), rng.randint(37, 44)))
            ev.append((secs - 0.1, bad.rank, txt))
            msg = "device-side assert triggered"
        else:
            msg = "an illegal memory access was encountered"
            res["kern"].append((secs - 0.3, xid_line(ctx, bad, rng.choice([13, 31, 43]), secs - 0.3, "python", ks)))
        ev.append((secs, bad.rank, py_tb(frames_for(script, rng, where), "RuntimeError: CUDA error: %s\n%s" % (msg, CUDA_HINT))))
        res["note"] = "CUDA %s on rank %d" % (msg, bad.rank)
        res["initiator"] = {"rank": bad.rank, "node": bad.host}
        exitcode = -6 if rng.random() < 0.5 else 1
    elif cause == "python_exception":
        last = rng.choice([
            "KeyError: 'attention_mask'",
            "FileNotFoundError: [Errno 2] No such file or directory: '/lustre/fsw/datasets/c4/shard_%05d.npy'" % rng.randint(0, 2000),
            "ValueError: Expected input batch_size (%d) to match target batch_size (%d)." % (rng.choice([16, 32]), rng.choice([12, 24])),
            "AssertionError: global batch size must be divisible by world size",
            "ZeroDivisionError: float division by zero",
            "TypeError: forward() got an unexpected keyword argument 'use_cache'",
        ])
        ev.append((secs, bad.rank, py_tb(frames_for(script, rng, where)[:3], last)))
        tb_txt = "[see above]" if rng.random() < 0.5 else None
        res["note"] = "uncaught %s on rank %d" % (last.split(":")[0], bad.rank)
        res["initiator"] = {"rank": bad.rank, "node": bad.host}
        dl = False
    elif cause == "host_oom_kill":
        res["kern"] += oom_kill_lines(ctx, bad.host, secs - 1, bad.pid, rng.choice(["python", "pt_main_thread"]), ks, cgroup=launcher == "srun")
        exitcode = -9
        if rng.random() < 0.4:
            ev.append((secs, bad.rank, "RuntimeError: DataLoader worker (pid %d) is killed by signal: Killed. " % (bad.pid + rng.randint(50, 400))))
            exitcode = 1
        res["note"] = "kernel OOM killer on %s killed rank %d's process" % (bad.host, bad.rank)
        res["initiator"] = {"rank": bad.rank, "node": bad.host}
        dl = dl or launcher != "srun"
        if not dl:
            res["kern"] = []
    elif cause == "crash_signal":
        sig = rng.choice([(-11, "Segmentation fault"), (-7, "Bus error"), (-6, "Aborted")])
        exitcode = sig[0]
        if sig[0] == -11:
            ev.append((secs, bad.rank, "Fatal Python error: Segmentation fault\n\nThread 0x%012x (most recent call first):\n  File \"/usr/local/lib/python3.10/dist-packages/torch/nn/modules/module.py\", line 1541 in _call_impl\n  File \"%s\", line %d in train\n\nExtension modules: numpy.core._multiarray_umath, torch._C, torch._C._fft (total: 23)" % (
                0x7f0000000000 + rng.getrandbits(36), script, rng.randint(60, 200))))
            if rng.random() < 0.5:
                res["kern"].append((secs, segv_kline(ctx, bad, secs, rng.choice(["libtorch_cuda.so", "libc.so.6", "_C.cpython-310-x86_64-linux-gnu.so"]), ks)))
        elif sig[0] == -7:
            ev.append((secs, bad.rank, "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm)."))
        else:
            ev.append((secs, bad.rank, "terminate called after throwing an instance of 'std::runtime_error'\n  what():  [enforce fail at inline_container.cc:595] . unexpected pos %d vs %d" % (rng.getrandbits(30), rng.getrandbits(30))))
        res["note"] = "%s on rank %d, no hardware evidence" % (sig[1], bad.rank)
        res["initiator"] = {"rank": bad.rank, "node": bad.host}
    elif cause == "preemption":
        first_exit = None
        watch = False
        res["note"] = "job cancelled by the scheduler; workers received SIGTERM"
        dl = False
    elif cause in ("hang", "data_loader_stall", "collective_mismatch"):
        first_exit = None
        exitcode = -6
        op = "ALLREDUCE"
        if cause == "collective_mismatch":
            mop = rng.choice(["ALLGATHER", "BROADCAST", "_ALLGATHER_BASE", "REDUCE_SCATTER"])
            if rng.random() < 0.5:
                ev.append((secs - 5, bad.rank, py_tb(frames_for(script, rng, where)[:3],
                    "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%d], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))), but Rank 0 is running collective: CollectiveFingerPrint(SequenceNumber=%d, OpType=ALLREDUCE, TensorShape=[%d], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))." % (
                        bad.rank, seq, mop, rng.randint(1, 4096), seq, rng.randint(1, 4096)))))
                first_exit = bad
                exitcode = 1
                watch = False
            else:
                ev.append((secs + 1, bad.rank, "\n".join(watchdog_lines(ctx, bad, secs + 1, seq, mop, new=new))))
            res["note"] = "rank %d issued %s while the others issued ALLREDUCE at SeqNum %d" % (bad.rank, mop, seq)
            res["initiator"] = {"rank": bad.rank, "node": bad.host}
        elif cause == "hang":
            named = rng.random() < 0.5
            if named:
                r0 = ctx.ranks[0] if bad.rank != 0 else ctx.ranks[1]
                ev.append((secs + 2, r0.rank, "[rank%d]:[E%s ProcessGroupNCCL.cpp:1316] [PG 0 Rank %d] Observed flight recorder dump signal from another rank via TCPStore.\n"
                           "[rank%d]:[E%s ProcessGroupNCCL.cpp:1595] [PG 0 Rank %d] Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d.\n"
                           "\t - To our best knowledge, ranks [%d] are the lagging ranks that caused this timeout. They never joined any collectives" % (
                               r0.rank, ctx.glog_ts(secs + 2, r0.host), r0.rank, r0.rank, ctx.glog_ts(secs + 2, r0.host), r0.rank, seq, seq, seq - 1, bad.rank)))
            res["note"] = "rank %d stopped making progress; everyone else timed out in ALLREDUCE SeqNum %d%s" % (
                bad.rank, seq, " (desync report names it)" if named else "")
            res["initiator"] = {"rank": bad.rank, "node": bad.host} if named else None
        else:
            if rng.random() < 0.5:
                ev.append((secs - 30, bad.rank, py_tb([(script, 412, "<module>", "main()"), (script, 233, "train", "batch = next(data_iter)"),
                    ("/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py", 631, "__next__", "data = self._next_data()"),
                    ("/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py", 1329, "_next_data", "idx, data = self._get_data()"),
                    ("/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py", 1285, "_get_data", "success, data = self._try_get_data()"),
                    ("/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py", 1146, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e")],
                    "RuntimeError: DataLoader timed out after %d seconds" % rng.choice([300, 420, 540]))))
                first_exit = bad
                exitcode = 1
            else:
                ev.append((secs - 200, bad.rank, "[rank %d] WARNING: data loading took %.1fs for step %d (expected ~0.05s)" % (bad.rank, rng.uniform(180, 900), rng.randint(100, 5000))))
            if rng.random() < 0.6:
                res["kern"].append((secs - 300, kline(ctx, bad.host, secs - 300, "nfs: server %s not responding, still trying" % rng.choice(["fs01", "vast-vip-3", "10.20.0.5"]), ks)))
                res["kern"].append((secs - 299, kline(ctx, bad.host, secs - 299, "INFO: task python:%d blocked for more than 120 seconds." % (bad.pid + 77), ks)))
            res["note"] = "rank %d stuck in data loading (I/O), others wait in collectives" % bad.rank
            res["initiator"] = {"rank": bad.rank, "node": bad.host}
    elif cause == "unknown":
        exitcode = 1
        res["note"] = "rank %d exited with code 1 without any message; nothing else explains it" % bad.rank
        res["initiator"] = None
        dl = rng.random() < 0.3
    elif cause == "straggler":
        raise ValueError("straggler is layout-specific")
    # ---- collateral ----
    if watch and ctx.world > 1:
        wop = "ALLREDUCE"
        cev, others = _collateral_watchdog(ctx, {bad.rank}, secs + rng.uniform(590, 620) if first_exit is None else secs + rng.uniform(1, 30), seq, rng.randint(2, min(6, ctx.world - 1)), wop, new)
        if first_exit is not None and rng.random() < 0.5:
            cev, others = [], []   # killed by the launcher before the watchdog fires
        ev.extend(cev)
        if first_exit is None and others:
            first_exit = others[0]
            exitcode = -6
    if cause == "gpu_hardware" and first_exit is bad and rng.random() < 0.3:
        pass
    # ---- launcher tail ----
    tail = res["tail"]
    tend = max([e[0] for e in ev] + [secs]) + 2
    if cause == "preemption":
        why = rng.choice(["preempt", "timelimit"])
        line = slurm_preempt(ctx, tend) if why == "preempt" else slurm_timelimit(ctx, tend, step=False)
        if launcher == "torchrun":
            tail.append(line)
            for h in ctx.hosts[: min(2, ctx.nnodes)]:
                tail.append("W%s %d torch/distributed/elastic/agent/server/api.py:704] Received Signals.SIGTERM death signal, shutting down workers" % (ctx.glog_ts(tend, h), agent_pid(ctx, h)))
                tail += torchrun_sigterm(ctx, h, [r.pid for r in ctx.node_ranks(h)][:4], tend)
            tail.append("torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % agent_pid(ctx, ctx.hosts[0]))
        else:
            tail.append(line)
            tail += ["srun: Job step aborted: Waiting up to 32 seconds for job step to finish.", "srun: got SIGCONT", "srun: forcing job termination"]
        res["note"] += " (%s)" % why
        return res
    if first_exit is None:
        first_exit = bad
    if launcher == "torchrun":
        h = first_exit.host
        peers = [r for r in ctx.node_ranks(h) if r is not first_exit]
        tail += torchrun_sigterm(ctx, h, [r.pid for r in peers], tend)
        tail.append("E%s %d torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: %d) local_rank: %d (pid: %d) of binary: /usr/bin/python3" % (
            ctx.glog_ts(tend, h), agent_pid(ctx, h), exitcode, first_exit.local, first_exit.pid))
        tail += torchrun_failure(ctx, script, h, first_exit.rank, first_exit.local, exitcode, first_exit.pid, tend, traceback_txt=tb_txt)
        if ctx.nnodes > 1:
            tail.append("srun: error: %s: task %d: Exited with exit code 1" % (h, ctx.hosts.index(h)))
            tail += srun_abort_block(ctx, tend + 1)
    else:
        if cause == "host_oom_kill":
            tail.append(slurm_oom(ctx, bad.host))
        if exitcode < 0:
            names = {-6: "Aborted", -9: "Killed", -11: "Segmentation fault", -7: "Bus error"}
            tail.append(srun_exit(ctx, first_exit.host, first_exit.rank, signal=names[exitcode]))
        else:
            tail.append(srun_exit(ctx, first_exit.host, first_exit.rank, exitcode))
        tail += srun_abort_block(ctx, tend + 1)
        for r in ctx.ranks[:: max(1, ctx.world // 4)]:
            if r is not first_exit and rng.random() < 0.5:
                tail.append(srun_exit(ctx, r.host, r.rank, signal="Terminated"))
    if cause == "unknown" and first_exit is bad:
        res["initiator"] = {"rank": bad.rank, "node": bad.host}
        res["note"] += "; the launcher summary names that rank"
    if dl and res["kern"]:
        res["kern"] += kernel_noise(ctx, res["kern_host"], secs - 900, ks, rng.randint(3, 7))
    elif dl and cause == "unknown":
        res["kern"] = kernel_noise(ctx, res["kern_host"], secs - 900, ks, rng.randint(3, 7))
    else:
        res["kern"] = [] if not dl else res["kern"]
    return res


def render(ctx, ev, style, rank0_lines=None, tail=()):
    """Merge (secs, rank, text) events into one launcher log.

    style: 'srun_l' (srun -l task prefix = rank), 'torchrun_tee' ([defaultN]:,
    with node index prefix from srun -l when multi-node), or 'plain'."""
    items = list(ev) + list(rank0_lines or [])
    items.sort(key=lambda e: e[0])
    out = []
    for secs, rank, text in items:
        for line in text.split("\n"):
            if rank is None or style == "plain":
                out.append(line)
            elif style == "srun_l":
                out.append("%d: %s" % (rank, line))
            else:
                node = ctx.hosts.index(ctx.node_of(rank))
                pre = "[default%d]:" % rank
                out.append(("%d: %s%s" % (node, pre, line)) if ctx.nnodes > 1 else pre + line)
    out.extend(tail)
    return "\n".join(out) + "\n"
