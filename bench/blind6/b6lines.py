"""Line emitters: what PyTorch / NCCL / the kernel / launchers print.

Each emitter appends (time, text, key) records to an Out.  `key=True` marks a line
that carries evidence for the truth (dressing must not delete it).
"""
import zlib

from b6world import (f_comma, f_glog, f_syslog, f_dmesg_T, f_uptime, f_torchelastic,  # noqa: F401
                     f_ctime, hexaddr)


class Out:
    def __init__(self):
        self.items = []  # (t, seq, text, key, stream)

    def add(self, t, text, key=False, stream="err"):
        for i, ln in enumerate(text.split("\n")):
            self.items.append((t + i * 1e-6, len(self.items), ln, key, stream))
        return self

    def extend(self, other):
        for it in other.items:
            self.items.append((it[0], len(self.items), it[2], it[3], it[4]))
        return self

    def sorted(self):
        return sorted(self.items, key=lambda x: (x[0], x[1]))

    def texts(self):
        return [(x[2], x[3]) for x in self.sorted()]


# ------------------------------------------------------------------------------
# c10 / ProcessGroupNCCL

def vline(w, key, choices):
    """A source line number that stays the same for one torch build."""
    return choices[zlib.crc32(f"{w.torch}:{key}".encode()) % len(choices)]


def lib_addr(w, r, lib, off):
    """Stable load address of `lib` in rank r's process plus an offset."""
    base = 0x7f0000000000 + (zlib.crc32(f"{w.job_id}:{r}:{lib}".encode()) & 0xffff) * 0x1000000
    return "0x%x" % (base + off)


def c10p(w, r, lvl, t, file, line):
    if w.tv < (2, 2):
        return f"[{lvl} {file}:{line}] "
    if w.tv < (2, 4):
        return f"[rank{r}]:[{lvl} {file}:{line}] "
    d = w.local_dt(t, w.node_of(r))
    return f"[rank{r}]:[{f_glog(d, lvl, ns=True)} {file}:{line}] "


def pgtag(w, r, pg=0):
    if w.tv >= (2, 5):
        name = "default_pg" if pg == 0 else "undefined"
        return f"[PG ID {pg} PG GUID {pg}({name}) Rank {r}]"
    if w.tv >= (2, 2):
        return f"[PG {pg} Rank {r}]"
    return f"[Rank {r}]"


def work_str(w, seq, op, numel, timeout_ms, numel_out=None):
    if numel_out is None:
        numel_out = numel
    if w.tv < (2, 1):
        return f"WorkNCCL(SeqNum={seq}, OpType={op}, Timeout(ms)={timeout_ms})"
    return (f"WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={numel}, NumelOut={numel_out}, "
            f"Timeout(ms)={timeout_ms})")


def torch_src(w):
    if w.site.startswith("/usr/local/lib/python") and w.tv >= (2, 3):
        return "/opt/pytorch/pytorch/torch/csrc"
    return "../torch/csrc"


def cpp_frames(w, rng, kind="timeout", r=0):
    lib = f"{w.site}/torch/lib"
    el = "el" in w.hosts[0].kernel
    libc = "/lib64/libc.so.6" if el else "/lib/x86_64-linux-gnu/libc.so.6"
    libstd = "/lib64/libstdc++.so.6" if el else "/lib/x86_64-linux-gnu/libstdc++.so.6"
    out = []
    src = torch_src(w)
    if kind == "timeout":
        out.append(f"Exception raised from checkTimeout at {src}/distributed/c10d/ProcessGroupNCCL.cpp:"
                   f"{vline(w, 'checkTimeout', [565, 525, 618, 632])} (most recent call first):")
        fr = [
            ("c10::Error::Error(c10::SourceLocation, std::string) + 0x57", "libc10.so", 0x96f97),
            ("c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, "
             "std::ratio<1l, 1000l> > >) + 0x1d2", "libtorch_cuda.so", 0x10c7f72),
            ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x233", "libtorch_cuda.so", 0x10ce5c3),
            ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x10c", "libtorch_cuda.so", 0x10cf5ec),
        ]
    elif kind == "cuda":
        out.append("Exception raised from c10_cuda_check_implementation at "
                   "../c10/cuda/CUDAException.cpp:43 (most recent call first):")
        fr = [
            ("c10::Error::Error(c10::SourceLocation, std::string) + 0x57", "libc10.so", 0x96f97),
            ("c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64",
             "libc10.so", 0x6a6e4),
            ("c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118",
             "libc10_cuda.so", 0x1ae78),
            ("c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x56",
             "libtorch_cuda.so", 0x10c6716),
            ("c10d::ProcessGroupNCCL::WorkNCCL::isCompleted() + 0x58", "libtorch_cuda.so", 0x10c9ec8),
            ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x1d2", "libtorch_cuda.so", 0x10ce562),
            ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x10c", "libtorch_cuda.so", 0x10cf5ec),
        ]
    else:  # nccl async error
        out.append(f"Exception raised from checkForNCCLErrorsInternal at {src}/distributed/c10d/"
                   f"ProcessGroupNCCL.cpp:{vline(w, 'checkForNCCLErrors', [1723, 1809, 2027])} (most recent call first):")
        fr = [
            ("c10::Error::Error(c10::SourceLocation, std::string) + 0x57", "libc10.so", 0x96f97),
            ("c10d::ProcessGroupNCCL::checkForNCCLErrorsInternal(std::shared_ptr<c10d::NCCLComm>&) + 0x220",
             "libtorch_cuda.so", 0x10c5b10),
            ("c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException() + 0x7c", "libtorch_cuda.so", 0x10c5e2c),
            ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x213", "libtorch_cuda.so", 0x10ce5a3),
            ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x10c", "libtorch_cuda.so", 0x10cf5ec),
        ]
    i = 0
    for fn, so, off in fr:
        out.append(f"frame #{i}: {fn} ({lib_addr(w, r, so, off)} in {lib}/{so})")
        i += 1
    out.append(f"frame #{i}: <unknown function> + 0xdc253 ({lib_addr(w, r, 'libstdc++', 0xdc253)} in {libstd})")
    out.append(f"frame #{i + 1}: <unknown function> + 0x94ac3 ({lib_addr(w, r, 'libc', 0x94ac3)} in {libc})")
    out.append(f"frame #{i + 2}: clone + 0x44 ({lib_addr(w, r, 'libc', 0x126a44)} in {libc})")
    out.append("")
    return out


def watchdog_timeout(w, rng, o, r, t, seq, op, numel, timeout_ms, last_done=None, key=False,
                     frames=True, numel_out=None):
    """Append the block a rank prints when its NCCL watchdog times out."""
    ran = timeout_ms + rng.randint(3, 900)
    work = work_str(w, seq, op, numel, timeout_ms, numel_out)
    tag = pgtag(w, r)
    if last_done is None:
        last_done = seq - 1
    main = f"[Rank {r}] Watchdog caught collective operation timeout: {work} ran for {ran} milliseconds before timing out."
    ln = {(1, 13): 828, (2, 0): 828, (2, 1): 475}.get(w.tv, vline(w, "wd", [523, 607, 616, 632]))
    o.add(t, c10p(w, r, "E", t, "ProcessGroupNCCL.cpp", ln) + main, key)
    if w.tv >= (2, 5):
        o.add(t + 0.001, c10p(w, r, "E", t + 0.001, "ProcessGroupNCCL.cpp", 1785) +
              f"{tag} Exception (either an error or timeout) detected by watchdog at work: {seq}, "
              f"last enqueued NCCL work: {seq}, last completed NCCL work: {last_done}.", key)
    if w.tv >= (2, 2):
        o.add(t + 0.002, c10p(w, r, "E", t + 0.002, "ProcessGroupNCCL.cpp", 1537 if w.tv < (2, 4) else 1834) +
              f"{tag} Timeout at NCCL work: {seq}, last enqueued NCCL work: {seq}, last completed NCCL work: {last_done}.", key)
    rk = f"[Rank {r}] " if w.tv >= (2, 2) else ""
    o.add(t + 0.003, c10p(w, r, "E", t + 0.003, "ProcessGroupNCCL.cpp", 577 if w.tv >= (2, 2) else 455) +
          f"{rk}Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, "
          "subsequent GPU operations might run on corrupted/incomplete data.")
    o.add(t + 0.004, c10p(w, r, "E", t + 0.004, "ProcessGroupNCCL.cpp", 583 if w.tv >= (2, 2) else 460) +
          f"{rk}To avoid data inconsistency, we are taking the entire process down.")
    if w.tv < (2, 1):
        o.add(t + 0.006, "terminate called after throwing an instance of 'std::runtime_error'")
        o.add(t + 0.006, f"  what():  {main}")
    elif w.tv < (2, 2):
        wmsg = f"[Rank {r}] NCCL watchdog thread terminated with exception: {main}"
        o.add(t + 0.005, c10p(w, r, "E", t, "ProcessGroupNCCL.cpp", 916) + wmsg)
        o.add(t + 0.006, "terminate called after throwing an instance of 'std::runtime_error'")
        o.add(t + 0.006, f"  what():  {wmsg}")
    else:
        wmsg = f"{tag} Process group watchdog thread terminated with exception: {main}"
        o.add(t + 0.005, c10p(w, r, "E", t + 0.005, "ProcessGroupNCCL.cpp", 1414 if w.tv < (2, 4) else 1595) + wmsg)
        o.add(t + 0.006, "terminate called after throwing an instance of 'c10::DistBackendError'")
        o.add(t + 0.006, f"  what():  {wmsg}")
        if frames:
            o.add(t + 0.007, "\n".join(cpp_frames(w, rng, "timeout", r)))
    return ran


def watchdog_error(w, rng, o, r, t, msg_lines, kind="nccl", key=False):
    """Watchdog thread terminating because of an async NCCL / CUDA error."""
    tag = pgtag(w, r)
    first = msg_lines[0]
    if w.tv < (2, 2):
        head = f"[Rank {r}] NCCL watchdog thread terminated with exception: {first}"
        o.add(t, c10p(w, r, "E", t, "ProcessGroupNCCL.cpp", 916) + head, key)
        for m in msg_lines[1:]:
            o.add(t, m, key)
        o.add(t + 0.001, "terminate called after throwing an instance of 'std::runtime_error'")
        o.add(t + 0.001, f"  what():  {head}")
        for m in msg_lines[1:]:
            o.add(t + 0.001, m)
        return
    head = f"{tag} Process group watchdog thread terminated with exception: {first}"
    o.add(t, c10p(w, r, "E", t, "ProcessGroupNCCL.cpp", 1414 if w.tv < (2, 4) else 1598) + head, key)
    for m in msg_lines[1:]:
        o.add(t, m, key)
    o.add(t, "\n".join(cpp_frames(w, rng, "cuda" if kind == "cuda" else "nccl", r)))
    o.add(t + 0.001, "terminate called after throwing an instance of 'c10::DistBackendError'")
    o.add(t + 0.001, f"  what():  {head}")
    for m in msg_lines[1:]:
        o.add(t + 0.001, m)
    o.add(t + 0.001, "\n".join(cpp_frames(w, rng, "cuda" if kind == "cuda" else "nccl", r)))


CUDA_ASYNC_TAIL = [
    "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
    "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
    "",
]


def cuda_error_lines(w, msg):
    if w.tv < (2, 1):
        return [f"CUDA error: {msg}",
                "CUDA kernel errors might be asynchronously reported at some other API call,so the stacktrace below might be incorrect.",
                "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.", ""]
    return [f"CUDA error: {msg}"] + CUDA_ASYNC_TAIL


def desync_report(w, r, t, seq, op, stuck, world):
    """TORCH_NCCL_DESYNC_DEBUG report as logged by a timed-out rank."""
    others = [x for x in range(world) if x not in stuck]
    lines = [c10p(w, r, "E", t, "ProcessGroupNCCL.cpp", 1178),
             f"\t - [{r}] Timeout at collective: {op}, #{seq}",
             "\t - To our best knowledge, the lagging/dead/mismatched ranks that caused the desync are:",
             f"\t     [{', '.join(map(str, stuck))}] finished collective #{seq - 1}, but didn't join collective #{seq} (count from 1)",
             "\t - Snapshot of ranks' latest states:",
             f"\t   #{seq - 1} finished ranks:",
             f"\t     [{', '.join(map(str, stuck))}] finished {op}",
             f"\t   #{seq} started ranks:",
             f"\t     [{', '.join(map(str, others))}] started {op}"]
    # the report is ordered by seq; the analysis line is the one above
    return lines


def fr_trace_report(w, rng, seq, entry, op, missing, world, pg="0:default_pg", sizes=None):
    sizes = sizes or f"[[{rng.choice([4096, 8192, 1024])}, {rng.choice([4096, 11008, 14336, 1])}]]"
    fn = {"ALLREDUCE": "all_reduce", "ALLGATHER": "all_gather", "_ALLGATHER_BASE": "_allgather_base",
          "REDUCE_SCATTER": "reduce_scatter", "_REDUCE_SCATTER_BASE": "_reduce_scatter_base",
          "BROADCAST": "broadcast"}.get(op, "all_reduce")
    coll = {"all_reduce": "nccl:all_reduce", "_allgather_base": "nccl:_allgather_base",
            "all_gather": "nccl:all_gather", "reduce_scatter": "nccl:reduce_scatter",
            "_reduce_scatter_base": "nccl:_reduce_scatter_base", "broadcast": "nccl:broadcast"}[fn]
    out = [f"Not all ranks joining collective {seq} at entry {entry}",
           f"group info: {pg}",
           f"collective: {coll}",
           "missing ranks: {" + ", ".join(map(str, missing)) + "}",
           f"input sizes: {sizes}",
           f"output sizes: {sizes}",
           f"expected ranks: {world}",
           "collective state: scheduled",
           "collective stack trace:",
           f"   {fn} at {w.site}/torch/distributed/distributed_c10d.py:{rng.choice([2219, 2501, 2696, 3352])}",
           f"   wrapper at {w.site}/torch/distributed/c10d_logger.py:{rng.choice([72, 79, 83])}"]
    if fn in ("_reduce_scatter_base", "_allgather_base", "reduce_scatter", "all_gather"):
        out.append(f"   _reduce_grad at {w.site}/torch/distributed/fsdp/_runtime_utils.py:{rng.choice([764, 812])}")
    out.append(f"   train_step at {w.workdir}/{w.script}:{rng.randint(180, 420)}")
    return out


# ------------------------------------------------------------------------------
# NCCL lines

def nccl_pfx(w, r):
    h = w.host_of(r)
    return f"{h.name}:{w.pid(r)}:{w.tid(r)} [{w.local(r)}]"


def nccl_pfx_proxy(w, r):
    h = w.host_of(r)
    return f"{h.name}:{w.pid(r)}:{w.tid(r, 3)} [{w.local(r)}]"


def nccl_init_lines(w, rng, o, r, t, net="IB", verbose=True, key_map=False):
    h = w.host_of(r)
    p = nccl_pfx(w, r)
    nic = rng.choice(["eth0", "ens5", "bond0", "ib0", "enp12s0f0", "hsn0"])
    if r == 0:
        o.add(t, f"{p} NCCL INFO Bootstrap : Using {nic}:{h.ip}<0>")
        if w.tv >= (2, 1):
            o.add(t, f"{p} NCCL INFO cudaDriverVersion {rng.choice([12020, 12040, 12060, 12080])}")
        o.add(t, f"NCCL version {w.nccl}+cuda{rng.choice(['12.1', '12.2', '12.4', '11.8'])}")
    if verbose:
        o.add(t + 0.1, f"{p} NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: "
                       "No such file or directory No plugin found (libnccl-net.so), using internal implementation")
        if net == "IB":
            devs = " ".join(f"[{i}]{d}:1/{'IB' if rng.random() < 0.7 else 'RoCE'}" for i, d in enumerate(h.ib_devs))
            o.add(t + 0.2, f"{p} NCCL INFO NET/IB : Using {devs} ; OOB {nic}:{h.ip}<0>")
            o.add(t + 0.2, f"{p} NCCL INFO Using network IB")
        else:
            o.add(t + 0.2, f"{p} NCCL INFO NET/IB : No device found.")
            o.add(t + 0.2, f"{p} NCCL INFO NET/Socket : Using [0]{nic}:{h.ip}<0>")
            o.add(t + 0.2, f"{p} NCCL INFO Using network Socket")
    commid = "0x%016x" % rng.getrandbits(64)
    bus = f"{w.pci(r)}000"
    comm = "0x%x" % (0x55d000000000 + rng.getrandbits(28))
    if w.nccl >= "2.18":
        o.add(t + 0.4, f"{p} NCCL INFO comm {comm} rank {r} nranks {w.world} cudaDev {w.local(r)} "
                       f"nvmlDev {w.local(r)} busId {bus} commId {commid} - Init START", key_map)
    if verbose:
        o.add(t + 0.6, f"{p} NCCL INFO Setting affinity for GPU {w.local(r)} to ffff,ffffffff")
        if r == 0:
            o.add(t + 0.7, f"{p} NCCL INFO Channel 00/{rng.choice([16, 24, 32])} :    " +
                  " ".join(f"{x:>3}" for x in range(min(w.world, 16))))
        o.add(t + 0.9, f"{p} NCCL INFO Connected all rings")
        o.add(t + 0.9, f"{p} NCCL INFO Connected all trees")
    o.add(t + 1.0, f"{p} NCCL INFO comm {comm} rank {r} nranks {w.world} cudaDev {w.local(r)} "
                   f"{'nvmlDev ' + str(w.local(r)) + ' ' if w.nccl >= '2.18' else ''}busId {bus} "
                   f"{'commId ' + commid + ' ' if w.nccl >= '2.18' else ''}- Init COMPLETE", key_map)


def nccl_ib_completion_error(w, rng, r, peer_ip, status=12, vendor=129, direction="Recv"):
    h = w.host_of(r)
    src = "transport/net_ib.cc:" + str(rng.choice([1295, 1696, 2264, 2347]))
    if w.nccl < "2.19":
        msg = (f"NET/IB : Got completion from peer {peer_ip}<{rng.randint(32768, 60999)}> with error {status}, "
               f"opcode {rng.choice([0, 1, 32614])}, len {rng.choice([0, 32614])}, vendor err {vendor} ({direction})")
    else:
        msg = (f"NET/IB : Got completion from peer {peer_ip}<{rng.randint(32768, 60999)}> with status={status} "
               f"opcode={rng.choice([0, 1, 129])} len={rng.choice([0, 65536])} vendor err {vendor} ({direction}) "
               f"localGid ::ffff:{h.ip} remoteGids::ffff:{peer_ip}")
    return src, msg


def nccl_warn(w, r, src, msg, proxy=True):
    p = nccl_pfx_proxy(w, r) if proxy else nccl_pfx(w, r)
    return f"{p} {src} NCCL WARN {msg}"


def nccl_info(w, r, msg, proxy=True):
    p = nccl_pfx_proxy(w, r) if proxy else nccl_pfx(w, r)
    return f"{p} NCCL INFO {msg}"


def nccl_error_chain(w, rng, r, code=6):
    return [nccl_info(w, r, f"transport/net.cc:{rng.choice([1034, 1298, 1302])} -> {code}"),
            nccl_info(w, r, f"proxy.cc:{rng.choice([694, 698, 679])} -> {code}"),
            nccl_info(w, r, f"proxy.cc:{rng.choice([874, 878, 858])} -> {code} [Progress Thread]")]


def nccl_dist_error(w, reason="remote", last=None, where=None):
    """Python-level DistBackendError text for an NCCL failure."""
    ver = w.nccl
    if reason == "remote":
        head = "remote process exited or there was a network error"
        tail = "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely."
    elif reason == "system":
        head = "unhandled system error (run with NCCL_DEBUG=INFO for details)"
        tail = ("ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. "
                "\nIt can be also caused by unexpected exit of a remote peer, you can check NCCL warnings for failure information.")
    elif reason == "cuda":
        head = "unhandled cuda error (run with NCCL_DEBUG=INFO for details)"
        tail = "ncclUnhandledCudaError: Call to CUDA function failed."
    else:
        head = "internal error - please report this issue to the NCCL developers"
        tail = "ncclInternalError: Internal check failed."
    where = where or "../torch/csrc/distributed/c10d/NCCLUtils.hpp:275"
    cls = "torch.distributed.DistBackendError" if w.tv >= (2, 1) else "RuntimeError"
    lines = [f"{cls}: NCCL error in: {where}, {head}, NCCL version {ver}"] + tail.split("\n")
    if last:
        lines += ["Last error:", last]
    return lines


# ------------------------------------------------------------------------------
# Python tracebacks

def tb_frames(w, rng, kind):
    """Return list of (file, line, func, code) for a realistic stack."""
    s = w.site
    main = f"{w.workdir}/{w.script}"
    top = [(main, rng.randint(400, 900), "<module>", "main()"),
           (main, rng.randint(300, 399), "main", rng.choice(["train(args)", "trainer.train()", "run(cfg)",
                                                           "train_loop(model, optimizer, train_loader, args)"]))]
    if kind == "backward":
        return top + [
            (main, rng.randint(150, 299), "train", rng.choice(["loss.backward()", "scaler.scale(loss).backward()",
                                                               "accelerator.backward(loss)"])),
            (f"{s}/torch/_tensor.py", rng.choice([492, 521, 525, 581, 626]), "backward", "torch.autograd.backward("),
            (f"{s}/torch/autograd/__init__.py", rng.choice([251, 266, 267, 289, 347]), "backward", "_engine_run_backward("),
            (f"{s}/torch/autograd/graph.py", rng.choice([744, 768, 823]), "_engine_run_backward",
             "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"),
        ]
    if kind == "forward":
        return top + [
            (main, rng.randint(150, 299), "train", rng.choice(["outputs = model(**batch)", "logits = model(x)",
                                                               "loss = model(input_ids, labels=labels).loss"])),
            (f"{s}/torch/nn/modules/module.py", rng.choice([1518, 1532, 1553, 1736]), "_wrapped_call_impl",
             "return self._call_impl(*args, **kwargs)"),
            (f"{s}/torch/nn/modules/module.py", rng.choice([1527, 1541, 1562, 1747]), "_call_impl",
             "return forward_call(*args, **kwargs)"),
            (f"{s}/torch/nn/parallel/distributed.py", rng.choice([1519, 1593, 1636, 1643]), "forward",
             "else self._run_ddp_forward(*inputs, **kwargs)"),
            (f"{s}/torch/nn/parallel/distributed.py", rng.choice([1355, 1454, 1459]), "_run_ddp_forward",
             "return self.module(*inputs, **kwargs)  # type: ignore[index]"),
        ]
    if kind == "data":
        return top + [
            (main, rng.randint(150, 299), "train", rng.choice(["for step, batch in enumerate(train_loader):",
                                                               "batch = next(data_iter)"])),
            (f"{s}/torch/utils/data/dataloader.py", rng.choice([630, 631, 701, 708]), "__next__",
             "data = self._next_data()"),
            (f"{s}/torch/utils/data/dataloader.py", rng.choice([1329, 1344, 1465, 1480]), "_next_data",
             "return self._process_data(data)"),
            (f"{s}/torch/utils/data/dataloader.py", rng.choice([1370, 1371, 1491, 1505]), "_process_data",
             "data.reraise()"),
            (f"{s}/torch/_utils.py", rng.choice([694, 705, 722, 733]), "reraise", "raise exception"),
        ]
    if kind == "allreduce":
        return top + [
            (main, rng.randint(150, 299), "train", rng.choice(["dist.all_reduce(loss_t, op=dist.ReduceOp.SUM)",
                                                               "reduce_metrics(metrics)"])),
            (f"{s}/torch/distributed/c10d_logger.py", rng.choice([47, 72, 75, 81]), "wrapper",
             "return func(*args, **kwargs)"),
            (f"{s}/torch/distributed/distributed_c10d.py", rng.choice([1992, 2050, 2219, 2501, 2806]), "all_reduce",
             "work = group.allreduce([tensor], opts)"),
        ]
    if kind == "ckpt":
        return top + [
            (main, rng.randint(150, 299), "train", "save_checkpoint(model, optimizer, step, args.output_dir)"),
            (f"{w.workdir}/utils/checkpoint.py", rng.randint(30, 120), "save_checkpoint",
             "torch.save(optimizer.state_dict(), os.path.join(path, f\"optim_rank{rank}.pt\"))"),
            (f"{s}/torch/serialization.py", rng.choice([627, 651, 849, 943]), "save",
             "with _open_zipfile_writer(f) as opened_zipfile:"),
            (f"{s}/torch/serialization.py", rng.choice([501, 514, 672]), "_open_zipfile_writer",
             "return container(name_or_buffer)"),
            (f"{s}/torch/serialization.py", rng.choice([472, 485, 643]), "__init__",
             "super().__init__(torch._C.PyTorchFileWriter(self.name))"),
        ]
    if kind == "step":
        return top + [
            (main, rng.randint(150, 299), "train", "optimizer.step()"),
            (f"{s}/torch/optim/optimizer.py", rng.choice([373, 385, 391, 487]), "wrapper", "out = func(*args, **kwargs)"),
            (f"{s}/torch/optim/adamw.py", rng.choice([184, 187, 220]), "step", "adamw("),
        ]
    return top


def traceback(frames, exc_lines, rank_prefix=None, chained=None):
    out = ["Traceback (most recent call last):"]
    for f, ln, fn, code in frames:
        out.append(f'  File "{f}", line {ln}, in {fn}')
        out.append(f"    {code}")
    out += exc_lines
    if chained:
        out = list(chained) + ["", "The above exception was the direct cause of the following exception:", ""] + out
    if rank_prefix:
        out = [rank_prefix + x for x in out]
    return out


# ------------------------------------------------------------------------------
# torchrun (elastic agent)

def agent_line(w, n, t, lvl, module, msg, lineno=None):
    d = w.local_dt(t, n)
    if w.tv < (2, 1):
        name = {"W": "WARNING", "E": "ERROR", "I": "INFO"}[lvl]
        return f"{name}:{module}:{msg}"
    if w.tv < (2, 2):
        name = {"W": "WARNING", "E": "ERROR", "I": "INFO"}[lvl]
        return f"[{f_comma(d)}] {module}: [{name}] {msg}"
    path = module.replace(".", "/") + ".py"
    if w.tv >= (2, 4):
        path = "site-packages/" + path if "site-packages" in w.site else "dist-packages/" + path
        tid = w.agent_pid(n)
    else:
        tid = 139800000000000 + (w.agent_pid(n) * 4096) % 999999999
    lineno = lineno or 869
    return f"{f_glog(d, lvl)} {tid} {path}:{lineno}] {msg}"


SIGNAMES = {6: "SIGABRT", 9: "SIGKILL", 11: "SIGSEGV", 7: "SIGBUS", 15: "SIGTERM", 4: "SIGILL"}


def torchrun_omp_banner(w, n, t):
    lines = ["*****************************************",
             "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your "
             "system being overloaded, please further tune the variable for optimal performance in your "
             "application as needed. ",
             "*****************************************"]
    if w.tv >= (2, 2):
        return [agent_line(w, n, t, "W", "torch.distributed.run", x, 793) for x in [""] + lines]
    return lines


def child_failed_table(w, rng, n, t, failures, script=None, others_none=False, error_tb=None):
    """failures: list of dicts rank, local, exitcode, pid, t (first one is root cause)."""
    script = script or w.script
    s = w.site
    head = ["Traceback (most recent call last):",
            f'  File "{w.python.rsplit("/", 1)[0]}/torchrun", line {rng.choice([8, 33])}, in <module>',
            "    sys.exit(main())",
            f'  File "{s}/torch/distributed/elastic/multiprocessing/errors/__init__.py", line '
            f'{rng.choice([346, 347, 348, 355])}, in wrapper',
            "    return f(*args, **kwargs)",
            f'  File "{s}/torch/distributed/run.py", line {rng.choice([806, 812, 879, 919])}, in main',
            "    run(args)",
            f'  File "{s}/torch/distributed/run.py", line {rng.choice([797, 803, 870, 910])}, in run',
            "    elastic_launch(",
            f'  File "{s}/torch/distributed/launcher/api.py", line {rng.choice([134, 138, 143])}, in __call__',
            "    return launch_agent(self._config, self._entrypoint, list(args))",
            f'  File "{s}/torch/distributed/launcher/api.py", line {rng.choice([264, 268, 277])}, in launch_agent',
            "    raise ChildFailedError(",
            "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
            "============================================================",
            f"{script} FAILED",
            "------------------------------------------------------------",
            "Failures:"]

    def block(idx, f):
        ec = f["exitcode"]
        tt = f_torchelastic(w.local_dt(f["t"], n))
        if ec < 0:
            tb = f"Signal {-ec} ({SIGNAMES.get(-ec, 'SIG?')}) received by PID {f['pid']}"
            ef = "<N/A>"
        else:
            ef = f.get("error_file") or "<N/A>"
            tb = f.get("tb") or "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
        b = [f"[{idx}]:",
             f"  time      : {tt}",
             f"  host      : {f.get('host', w.hosts[n].name)}",
             f"  rank      : {f['rank']} (local_rank: {f['local']})",
             f"  exitcode  : {ec} (pid: {f['pid']})",
             f"  error_file: {ef}"]
        tbl = tb.split("\n")
        b.append(f"  traceback : {tbl[0]}")
        b += ["  " + x for x in tbl[1:]] if len(tbl) > 1 else []
        return b

    root = failures[0]
    rest = failures[1:]
    body = []
    if rest and not others_none:
        for i, f in enumerate(rest):
            body += block(i + 1, f)
    else:
        body.append("  <NO_OTHER_FAILURES>")
    body.append("------------------------------------------------------------")
    body.append("Root Cause (first observed failure):")
    body += block(0, root)
    body.append("============================================================")
    return head + body


def agent_teardown(w, rng, n, t, failed_local, failed_pid, exitcode, others, lvl_lines=True):
    """Lines of the elastic agent when a child fails; others: list of (local, pid)."""
    out = []
    mod = "torch.distributed.elastic.multiprocessing.api"
    for i, (lr, pid) in enumerate(others):
        out.append((t + 0.01 * i, agent_line(w, n, t, "W", mod, f"Sending process {pid} closing signal SIGTERM", 897)))
    out.append((t + 0.5, agent_line(w, n, t + 0.5, "E", mod,
                                    f"failed (exitcode: {exitcode}) local_rank: {failed_local} (pid: {failed_pid}) of binary: {w.python}",
                                    869)))
    return out


# ------------------------------------------------------------------------------
# kernel

def kline(w, n, t, text, style):
    """Format one kernel line for node n in a style: dmesg, dmesgT, syslog, journal, iso."""
    d = w.local_dt(t, n)
    h = w.hosts[n]
    if style == "dmesg":
        return f"{f_uptime(w.uptime(t, n))} {text}"
    if style == "dmesgT":
        return f"{f_dmesg_T(d)} {text}"
    if style == "syslog":
        return f"{f_syslog(d)} {h.short} kernel: {text}"
    if style == "journal":
        mon = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][d.month - 1]
        return f"{mon} {d.day:02d} {d.strftime('%H:%M:%S')} {h.short} kernel: {text}"
    if style == "iso":
        return f"{d.strftime('%Y-%m-%dT%H:%M:%S')}.{d.microsecond:06d}+00:00 {h.short} kernel: {text}"
    if style == "bare":
        return text
    return text


def xid_text(pci, code, pid, pname, msg):
    pid_s = f"pid={pid}" if pid is not None else "pid='<unknown>'"
    nm = f"name={pname}" if pname else "name=<unknown>"
    return f"NVRM: Xid (PCI:0000:{pci}:00): {code}, {pid_s}, {nm}, {msg}"


def oom_kill_block(w, rng, n, pid, pname, rss_kb, cgroup=None, gfp="GFP_KERNEL"):
    uid = rng.choice([0, 1000, 1001, 10342, 52011])
    h = w.hosts[n]
    lines = [f"{pname} invoked oom-killer: gfp_mask=0x{rng.choice(['140cca', '100cca', 'cc0'])}"
             f"({'GFP_HIGHUSER_MOVABLE|__GFP_COMP' if gfp != 'GFP_KERNEL' else 'GFP_KERNEL'}), order=0, oom_score_adj=0",
             f"CPU: {rng.randint(0, 127)} PID: {pid + rng.randint(1, 40)} Comm: {pname} Tainted: P           OE     {h.kernel} #1",
             "Hardware name: Supermicro SYS-821GE-TNHR/X13DEG-OAD, BIOS 2.1 02/14/2024" if rng.random() < 0.5 else
             "Hardware name: NVIDIA DGXH100/DGXH100, BIOS 1.1.3 09/13/2023",
             "Call Trace:",
             " <TASK>",
             " dump_stack_lvl+0x48/0x70",
             " dump_header+0x4a/0x240",
             " oom_kill_process+0x10f/0x1d0",
             " out_of_memory+0x103/0x2f0",
             " mem_cgroup_out_of_memory+0x13a/0x150" if cgroup else " __alloc_pages_slowpath.constprop.0+0xc60/0xdc0",
             " try_charge_memcg+0x73d/0x810" if cgroup else " __alloc_pages+0x31d/0x350",
             " </TASK>"]
    if cgroup:
        lines.append(f"memory: usage {rss_kb + rng.randint(1000, 90000)}kB, limit {rss_kb + rng.randint(1000, 90000)}kB, failcnt {rng.randint(1, 900)}")
        lines.append(f"oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset={cgroup.split('/')[-1]},mems_allowed=0-1,"
                     f"oom_memcg={cgroup},task_memcg={cgroup},task={pname},pid={pid},uid={uid}")
        lines.append(f"Memory cgroup out of memory: Killed process {pid} ({pname}) total-vm:{rss_kb * 3 + rng.randint(0, 99999)}kB, "
                     f"anon-rss:{rss_kb}kB, file-rss:{rng.randint(50000, 900000)}kB, shmem-rss:{rng.randint(0, 99999)}kB, "
                     f"UID:{uid} pgtables:{rss_kb // 500}kB oom_score_adj:0")
    else:
        lines.append("Mem-Info:")
        lines.append(f"active_anon:{rng.randint(10**7, 9*10**7)} inactive_anon:{rng.randint(10**5, 10**6)} isolated_anon:0")
        lines.append(f"oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,"
                     f"task_memcg=/user.slice/user-{uid}.slice/session-{rng.randint(1, 999)}.scope,task={pname},pid={pid},uid={uid}")
        lines.append(f"Out of memory: Killed process {pid} ({pname}) total-vm:{rss_kb * 3 + rng.randint(0, 99999)}kB, "
                     f"anon-rss:{rss_kb}kB, file-rss:{rng.randint(50000, 900000)}kB, shmem-rss:{rng.randint(0, 99999)}kB, "
                     f"UID:{uid} pgtables:{rss_kb // 500}kB oom_score_adj:0")
    lines.append(f"oom_reaper: reaped process {pid} ({pname}), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB")
    return lines


def kernel_noise(w, rng, n):
    h = w.hosts[n]
    ib = h.ib_devs[0] if h.ib_devs else "mlx5_0"
    pool = [
        "perf: interrupt took too long (2503 > 2500), lowering kernel.perf_event_max_sample_rate to 79750",
        f"TCP: request_sock_TCP: Possible SYN flooding on port {w.port}. Sending cookies.  Check SNMP counters.",
        "EDAC MC0: 1 CE memory read error on CPU_SrcID#0_MC#0_Chan#1_DIMM#0 (channel:1 slot:0 page:0x2a7f1 offset:0x240 grain:32 syndrome:0x0)",
        "nvidia-peermem nv_mem_get_pages: get_pages failed, ret=-22",
        f"IPv6: ADDRCONF(NETDEV_CHANGE): {rng.choice(['ib0', 'eth1', 'ibp12s0'])}: link becomes ready",
        "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  " + w.driver,
        "nvidia-nvswitch: Probing device 0000:05:00.0, Vendor Id = 0x10de, Device Id = 0x22a3, Class = 0x068000",
        "audit: type=1400 audit(1701234567.123:456): apparmor=\"DENIED\" operation=\"open\" profile=\"snap.lxd.activate\"",
        f"{ib}: Port: 1 Link ACTIVE",
        "systemd-journald[1234]: /dev/kmsg buffer overrun, some messages lost.",
        "process 'usr/bin/fusermount3' started with executable stack",
        "INFO: NMI handler (perf_event_nmi_handler) took too long to run: 1.234 msecs",
        "Lustre: Mounted lustre-client",
        "cgroup: fork rejected by pids controller in /user.slice/user-1000.slice/session-3.scope",
    ]
    return pool


# ------------------------------------------------------------------------------
# nvidia-smi

def nvidia_smi(w, rng, n, states, t=None, procs=None):
    """states: list per GPU of 'ok' | 'busy' | 'idle' | 'err' | 'missing' | 'hot' | 'ecc'."""
    name, mem, _tag, _cap = w.gpu
    d = w.local_dt(t or w.t0, n)
    cuda = rng.choice(["12.2", "12.4", "12.6", "12.8"])
    W = 89
    sep = "+" + "-" * 41 + "+" + "-" * 22 + "+" + "-" * 22 + "+"

    def row(a, b, c):
        return "|" + a.ljust(41)[:41] + "|" + b.rjust(22)[:22] + "|" + c.rjust(22)[:22] + "|"

    L = [f_ctime(d),
         "+" + "-" * (W - 2) + "+",
         ("| NVIDIA-SMI " + w.driver.ljust(23) + "Driver Version: " + w.driver.ljust(13) + "CUDA Version: " + cuda).ljust(W - 1) + "|",
         "|" + "-" * 41 + "+" + "-" * 22 + "+" + "-" * 22 + "|",
         row(" GPU  Name                 Persistence-M ", " Bus-Id        Disp.A ", " Volatile Uncorr. ECC "),
         row(" Fan  Temp   Perf          Pwr:Usage/Cap ", "         Memory-Usage ", " GPU-Util  Compute M. "),
         row("", "", "               MIG M. "),
         "|" + "=" * 41 + "+" + "=" * 22 + "+" + "=" * 22 + "|"]
    h = w.hosts[n]
    cap = 700 if ("H100" in name or "H200" in name) else (350 if "L40" in name else (300 if "V100" in name else 400))
    for i, st in enumerate(states):
        pci = h.pcis[i % len(h.pcis)].upper()
        if st == "missing":
            continue
        if st == "err":
            L.append(row(f"{i:>4}  " + name[:30].ljust(31) + "On  ", f"00000000:{pci}:00.0 Off ", "ERR! "))
            L.append(row("ERR!  ERR! ERR!             ERR! /  ERR! ", "   ERR! /  ERR! ", "ERR!      Default "))
            L.append(row("", "", "ERR! "))
            L.append(sep)
            continue
        temp = rng.randint(30, 42) if st in ("idle", "ok") else rng.randint(55, 70)
        if st == "hot":
            temp = rng.randint(86, 94)
        util = {"busy": 100, "idle": 0, "ok": rng.randint(0, 3), "hot": rng.randint(90, 100), "ecc": 0}.get(st, 0)
        used = rng.randint(4, 600) if st in ("idle", "ok", "ecc") else rng.randint(mem // 2, mem - 200)
        pw = rng.randint(60, 120) if util < 10 else rng.randint(int(cap * 0.6), cap)
        ecc = str(rng.randint(1, 3)) if st == "ecc" else "0"
        left = f" N/A   {temp}C    P0"
        right = f"{pw}W / {cap}W "
        L.append(row(f"{i:>4}  " + name[:30].ljust(31) + "On  ", f"00000000:{pci}:00.0 Off ", f"{ecc} "))
        L.append(row(left + " " * (41 - len(left) - len(right)) + right, f"{used}MiB / {mem}MiB ", f"{util}%      Default "))
        L.append(row("", "", "Disabled "))
        L.append(sep)
    L.append("")
    L.append("+" + "-" * (W - 2) + "+")
    L.append("| Processes:".ljust(W - 1) + "|")
    L.append("|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |")
    L.append("|        ID   ID                                                             Usage      |")
    L.append("|" + "=" * (W - 2) + "|")
    if procs:
        for g, pid, pname, mib in procs:
            L.append(f"|  {g:>3}   N/A  N/A  {pid:>9}      C   {pname:<37}{mib:>7}MiB |")
    else:
        L.append("|  No running processes found".ljust(W - 1) + "|")
    L.append("+" + "-" * (W - 2) + "+")
    return L


def smi_unable(w, n, gpu_idx):
    pci = w.hosts[n].pcis[gpu_idx % len(w.hosts[n].pcis)].upper()
    return f"Unable to determine the device handle for GPU0000:{pci}:00.0: Unknown Error"


# ------------------------------------------------------------------------------
# Slurm

def srun_task_list(ranks):
    ranks = sorted(ranks)
    parts = []
    i = 0
    while i < len(ranks):
        j = i
        while j + 1 < len(ranks) and ranks[j + 1] == ranks[j] + 1:
            j += 1
        parts.append(str(ranks[i]) if i == j else f"{ranks[i]}-{ranks[j]}")
        i = j + 1
    return ",".join(parts)


def srun_exit(host, ranks, how):
    word = "task" if len(ranks) == 1 else "tasks"
    return f"srun: error: {host}: {word} {srun_task_list(ranks)}: {how}"


def slurm_cancel(w, n, t, kind="step", reason=None, step=0):
    d = w.local_dt(t, n)
    ts = d.strftime("%Y-%m-%dT%H:%M:%S")
    what = f"STEP {w.job_id}.{step}" if kind == "step" else f"JOB {w.job_id}"
    r = f" DUE TO {reason}" if reason else ""
    return f"slurmstepd: error: *** {what} ON {w.hosts[n].name} CANCELLED AT {ts}{r} ***"


# ------------------------------------------------------------------------------
# py-spy / faulthandler

def pyspy_dump(w, rng, r, frames, idle_threads=True, native=False):
    pid = w.pid(r)
    out = [f"Process {pid}: {w.python} -u {w.workdir}/{w.script} --config configs/{rng.choice(['7b', '13b', 'base'])}.yaml",
           f"Python v{w.pyver}.{rng.randint(4, 14)} ({w.python})", "",
           f'Thread {pid} (active): "MainThread"']
    for fn, path, ln in frames:
        out.append(f"    {fn} ({path}:{ln})")
    if idle_threads:
        out += ["", f'Thread {pid + rng.randint(50, 90)} (idle): "Thread-1"',
                f"    wait (threading.py:{rng.choice([320, 324, 331])})",
                f"    wait (threading.py:{rng.choice([600, 607, 622])})",
                f"    run (tqdm/_monitor.py:{rng.choice([60, 62])})",
                f"    _bootstrap_inner (threading.py:{rng.choice([1038, 1045, 1073])})",
                f"    _bootstrap (threading.py:{rng.choice([995, 1002, 1030])})",
                "", f'Thread {pid + rng.randint(100, 200)} (idle): "pin_memory"' if rng.random() < 0.5 else
                f'Thread {pid + rng.randint(100, 200)} (idle): "QueueFeederThread"',
                f"    wait (threading.py:{rng.choice([320, 324])})",
                f"    get (queue.py:{rng.choice([171, 180])})"]
    return out


def faulthandler_dump(w, rng, frames, timeout="0:30:00", thread_hex=None):
    th = thread_hex or ("0x%012x" % (0x7f0000000000 + rng.getrandbits(36)))
    out = [f"Timeout ({timeout})!", f"Thread {th} (most recent call first):"]
    for fn, path, ln in frames:
        out.append(f'  File "{path}", line {ln} in {fn}')
    return out
