"""Failure blocks a rank prints: C++ frames, watchdog timeouts, ncclRemoteError, tracebacks."""

from __future__ import annotations

from collections.abc import Sequence

from .writer import Stream


def cpp_frames(s: Stream, origin: str) -> list[str]:
    lib = s.era.site + "/torch/lib"
    base = s.sc.rng.randint(0x7F0000000000, 0x7FFF00000000) & ~0xFFF
    if origin == "checkTimeout":
        fns = [
            ("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "libc10.so"),
            ("c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, "
             "std::ratio<1l, 1000l> > >) + 0x1d2", "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x233", "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", "libtorch_cuda.so"),
        ]
    elif origin == "checkForNCCLErrorsInternal":
        fns = [
            ("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "libc10.so"),
            ("c10d::ProcessGroupNCCL::checkForNCCLErrorsInternal(std::shared_ptr<c10d::NCCLComm>&) + 0x220",
             "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException() + 0x7c", "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x213", "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", "libtorch_cuda.so"),
        ]
    else:  # c10_cuda_check_implementation
        fns = [
            ("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "libc10.so"),
            ("c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64",
             "libc10.so"),
            ("c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118",
             "libc10_cuda.so"),
            ("c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x56", "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::WorkNCCL::isCompleted() + 0xa0", "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x1f8", "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", "libtorch_cuda.so"),
        ]
    lines = []
    for i, (fn, so) in enumerate(fns):
        lines.append(f"frame #{i}: {fn} (0x{base + 0x1000 * (i + 3) + 0x2a6:x} in {lib}/{so})")
    n = len(fns)
    lines.append(f"frame #{n}: <unknown function> + 0x145c0 (0x{base + 0x9a5c0:x} in {lib}/libtorch.so)")
    lines.append(f"frame #{n + 1}: <unknown function> + 0x94ac3 (0x{base + 0x3294ac3:x} in /lib/x86_64-linux-gnu/libc.so.6)")
    lines.append(f"frame #{n + 2}: <unknown function> + 0x126850 (0x{base + 0x3326850:x} in "
                 "/lib/x86_64-linux-gnu/libc.so.6)")
    return lines


def watchdog_timeout(s: Stream, t: float, seq: int, enq: int, done: int, *, numel: int = 262_144_000,
                     op: str = "ALLREDUCE", ran_ms: int = 600_043, dump: str | None = "local") -> None:
    """A ProcessGroupNCCL watchdog timeout on this rank at time ``t``, up to the abort."""
    r, era = s.p.rank, s.era
    pg = era.pgp(r)
    work = (f"WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={numel}, NumelOut={numel}, Timeout(ms)=600000) "
            f"ran for {ran_ms} milliseconds before timing out.")
    caught = f"[Rank {r}] Watchdog caught collective operation timeout: {work}"
    if era.watchdog == "2.1":
        s.c10d(t, "E", "ProcessGroupNCCL.cpp:475", caught)
        s.c10d(t, "E", "ProcessGroupNCCL.cpp:489", "Some NCCL operations have failed or timed out. Due to the "
               "asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.")
        s.c10d(t, "E", "ProcessGroupNCCL.cpp:495", "To avoid data inconsistency, we are taking the entire process down.")
        term = f"[Rank {r}] NCCL watchdog thread terminated with exception: {caught}"
        s.c10d(t + 0.004, "E", "ProcessGroupNCCL.cpp:929", term)
        s.raw(t + 0.005, "terminate called after throwing an instance of 'std::runtime_error'", f"  what():  {term}")
        return
    if era.watchdog == "2.3":
        s.c10d(t, "E", "ProcessGroupNCCL.cpp:563", caught)
        s.c10d(t, "E", "ProcessGroupNCCL.cpp:1537", f"{pg} Timeout at NCCL work: {seq}, last enqueued NCCL work: {enq}, "
               f"last completed NCCL work: {done}.")
        s.c10d(t, "E", "ProcessGroupNCCL.cpp:577", f"[Rank {r}] Some NCCL operations have failed or timed out. Due to the "
               "asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.")
        s.c10d(t, "E", "ProcessGroupNCCL.cpp:583", f"[Rank {r}] To avoid data inconsistency, we are taking the entire "
               "process down.")
        term = f"{pg} NCCL watchdog thread terminated with exception: {caught}"
        frames = cpp_frames(s, "checkTimeout")
        s.c10d(t + 0.004, "E", "ProcessGroupNCCL.cpp:1414", term,
               "Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:565 "
               "(most recent call first):", *frames)
        s.raw(t + 0.005, "terminate called after throwing an instance of 'c10::DistBackendError'", f"  what():  {term}")
        return
    s.c10d(t, "E", "ProcessGroupNCCL.cpp:616", caught)
    if era.watchdog == "2.4":
        s.c10d(t, "E", "ProcessGroupNCCL.cpp:1785", f"{pg} Exception (either an error or timeout) detected by watchdog "
               f"at work: {seq}, last enqueued NCCL work: {enq}, last completed NCCL work: {done}.")
        s.c10d(t, "E", "ProcessGroupNCCL.cpp:1834", f"{pg} Timeout at NCCL work: {seq}, last enqueued NCCL work: {enq}, "
               f"last completed NCCL work: {done}.")
    else:
        s.c10d(t, "E", "ProcessGroupNCCL.cpp:1946", f"{pg} failure detected by watchdog at work sequence id: {seq} "
               f"PG status: last enqueued work: {enq}, last completed work: {done}")
    s.c10d(t, "E", "ProcessGroupNCCL.cpp:630", f"[Rank {r}] Some NCCL operations have failed or timed out. Due to the "
           "asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.")
    s.c10d(t, "E", "ProcessGroupNCCL.cpp:636", f"[Rank {r}] To avoid data inconsistency, we are taking the entire "
           "process down.")
    if era.watchdog == "2.4" and era.torch.startswith("2.5"):
        s.c10d(t, "E", "ProcessGroupNCCL.cpp:1575", f"{pg} Stack trace of the failed collective not found, potentially "
               "because FlightRecorder is disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE to a "
               "non-zero value.")
    if era.watchdog == "2.6" and dump == "local":
        s.c10d(t + 0.001, "E", "ProcessGroupNCCL.cpp:1663", f"{pg} Received a dump signal due to a collective timeout "
               f"from this local rank and we will try our best to dump the debug info. Last enqueued NCCL work: {enq}, "
               f"last completed NCCL work: {done}.")
        s.c10d(t + 0.002, "E", "ProcessGroupNCCL.cpp:1382", f"{pg} ProcessGroupNCCL preparing to dump debug info. "
               "Include stack trace: 1")
        s.c10d(t + 0.9, "I", "NCCLUtils.cpp:352", f"Finished writing NCCLPG debug info to /tmp/nccl_trace_rank_{r}")
    term = f"{pg} Process group watchdog thread terminated with exception: {caught}"
    frames = cpp_frames(s, "checkTimeout")
    te = t + (0.95 if era.watchdog == "2.6" and dump else 0.004)
    s.c10d(te, "E", "ProcessGroupNCCL.cpp:1595", term,
           "Exception raised from checkTimeout at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:618 "
           "(most recent call first):", *frames, "")
    s.raw(te + 0.001, "terminate called after throwing an instance of 'c10::DistBackendError'", f"  what():  {term}",
          "Exception raised from checkTimeout at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:618 "
          "(most recent call first):", *frames, "")


def remote_error(s: Stream, t: float, last_error: Sequence[str] = ()) -> None:
    """The watchdog surfaces ncclRemoteError (a peer exited or the network failed) and aborts."""
    r, era = s.p.rank, s.era
    pg = era.pgp(r)
    err = f"NCCL error: remote process exited or there was a network error, NCCL version {era.nccl_short}"
    detail = ["ncclRemoteError: A call failed possibly due to a network error or a remote process exiting "
              "prematurely.", "Last error:", *last_error]
    frames = cpp_frames(s, "checkForNCCLErrorsInternal")
    origin = ("Exception raised from checkForNCCLErrorsInternal at /pytorch/torch/csrc/distributed/c10d/"
              "ProcessGroupNCCL.cpp:2027 (most recent call first):")
    if era.watchdog in ("2.1",):
        term = f"[Rank {r}] NCCL watchdog thread terminated with exception: {err}"
        s.c10d(t, "E", "ProcessGroupNCCL.cpp:916", term, *detail)
        s.raw(t + 0.002, "terminate called after throwing an instance of 'std::runtime_error'", f"  what():  {term}",
              *detail)
        return
    word = "NCCL" if era.watchdog == "2.3" else "Process group"
    term = f"{pg} {word} watchdog thread terminated with exception: {err}"
    s.c10d(t, "E", "ProcessGroupNCCL.cpp:1895", term, *detail, origin, *frames, "")
    s.raw(t + 0.002, "terminate called after throwing an instance of 'c10::DistBackendError'", f"  what():  {term}",
          *detail, origin, *frames, "")


def conn_closed(s: Stream, t: float, dead_local: int) -> None:
    """NCCL's proxy service thread saw a local peer's process go away."""
    s.nccl(t, f"[Service thread] Connection closed by localRank {dead_local}", tid=s.proxy_tid)


def pg_not_destroyed(s: Stream, t: float) -> None:
    if not s.era.c10d_stamp:
        return
    s.c10d(t, "W", "ProcessGroupNCCL.cpp:1250", "Warning: WARNING: process group has NOT been destroyed before we "
           "destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to "
           "ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit "
           "before this point and block the progress of another member of the process group. This constraint has "
           "always been present,  but this warning has only been added since PyTorch 2.4 (function operator())")


def cuda_error_tail(msg: str) -> list[str]:
    return [
        f"CUDA error: {msg}",
        "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might "
        "be incorrect.",
        "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
        "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
        "",
    ]


def user_frames(s: Stream, script: str, chain: Sequence[tuple[str, int, str, str]]) -> list[str]:
    """Traceback lines from (file, line, function, source) tuples; ``{site}`` expands to site-packages."""
    out = ["Traceback (most recent call last):"]
    for fname, line, fn, src in chain:
        out.append(f'  File "{fname.format(site=s.era.site, script=script)}", line {line}, in {fn}')
        out.append(f"    {src}")
    return out


MODULE_CALL = [
    ("{site}/torch/nn/modules/module.py", 1736, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
    ("{site}/torch/nn/modules/module.py", 1747, "_call_impl", "return forward_call(*args, **kwargs)"),
]
