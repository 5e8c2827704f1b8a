"""PyTorch distributed training (NCCL on NVIDIA, RCCL on ROCm, HCCL on Gaudi and Ascend).

Writes what ranks, launchers and kernels print for each failure cause into a Run.
"""
from __future__ import annotations

from b5_core import (Run, f_c10, f_glog, f_iso, f_pylog, f_ascend, hexid, alnum, utc)

# --------------------------------------------------------------------------- constants
XID_GPU = {
    79: "GPU has fallen off the bus.",
    119: "Timeout after 6s of waiting for RPC response from GPU{g} GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a4c 0x4).",
    154: "GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)",
    62: "Internal micro-controller halt (non-fatal)",
}
NCCL_VER = ["2.18.6", "2.19.3", "2.20.5", "2.21.5", "2.23.4", "2.26.2"]


def site(C):
    return C["site"]


# --------------------------------------------------------------------------- formatting helpers
def rp(C, rank):
    return f"[rank{rank}]:" if C["tv"] >= 22 and C["rank_prefix"] else ""


def c10(R, C, rank, t, lvl, src, msg):
    n = R.node_of(rank)
    if C["tv"] >= 24:
        head = f"[{f_c10(R.lt(n.idx, t), lvl)} {src}]"
    else:
        head = f"[{lvl} {src}]"
    return f"{rp(C, rank)}{head} {msg}"


def nccl(R, C, rank, msg, lvl="INFO", tid_off=57, src=None):
    n = R.node_of(rank)
    host = n.host.split(".")[0]
    pid = R.pid(rank)
    loc = rank - n.first_rank
    s = f" {src}" if src else ""
    return f"{host}:{pid}:{pid + tid_off} [{loc}]{s} NCCL {lvl} {msg}"


def elog(R, C, node_idx, t, lvl, src, msg):
    """torchrun / elastic agent logging line."""
    if C["tv"] >= 23:
        d = utc(R.lt(node_idx, t))
        return f"{lvl[0]}{d.month:02d}{d.day:02d} {d.strftime('%H:%M:%S')}.{d.microsecond:06d} {R.nodes[node_idx].agent_pid} torch/distributed/elastic/{src}] {msg}"
    mod = "torch.distributed.elastic." + src.split(".py")[0].replace("/", ".")
    return f"[{f_pylog(R.lt(node_idx, t))}] {mod}: [{ {'E': 'ERROR', 'W': 'WARNING', 'I': 'INFO'}[lvl[0]] }] {msg}"


def pgname(C):
    return {"cuda": "ProcessGroupNCCL", "rocm": "ProcessGroupNCCL", "hpu": "ProcessGroupHCCL", "npu": "ProcessGroupHCCL"}[C["device"]]


# --------------------------------------------------------------------------- tracebacks
def chain(C, rng):
    sp = site(C)
    fl = C["flavor"]
    if fl == "megatron":
        root = C["root"]
        return [(f"{root}/pretrain_gpt.py", 281, "<module>", "pretrain("),
                (f"{root}/megatron/training/training.py", 376, "pretrain", "iteration, num_floating_point_operations_so_far = train("),
                (f"{root}/megatron/training/training.py", 1297, "train", "train_step(forward_step_func,"),
                (f"{root}/megatron/training/training.py", 741, "train_step", "losses_reduced = forward_backward_func("),
                (f"{root}/megatron/core/pipeline_parallel/schedules.py", 1484, "forward_backward_pipelining_without_interleaving", "output_tensor, num_tokens = forward_step(")]
    if fl in ("hf", "deepspeed"):
        return [(f"{C['root']}/train.py", rng.randint(180, 420), "<module>", "main()"),
                (f"{C['root']}/train.py", rng.randint(100, 170), "main", "trainer.train(resume_from_checkpoint=args.resume)"),
                (f"{sp}/transformers/trainer.py", 2122, "train", "return inner_training_loop("),
                (f"{sp}/transformers/trainer.py", 2474, "_inner_training_loop", "tr_loss_step = self.training_step(model, inputs)"),
                (f"{sp}/transformers/trainer.py", 3572, "training_step", "loss = self.compute_loss(model, inputs)")]
    if fl in ("lightning", "nemo"):
        return [(f"{C['root']}/train.py", rng.randint(60, 200), "main", "trainer.fit(model, datamodule=dm)"),
                (f"{sp}/lightning/pytorch/trainer/trainer.py", 538, "fit", "call._call_and_handle_interrupt("),
                (f"{sp}/lightning/pytorch/trainer/call.py", 46, "_call_and_handle_interrupt", "return trainer.strategy.launcher.launch(trainer_fn, *args, trainer=trainer, **kwargs)"),
                (f"{sp}/lightning/pytorch/trainer/trainer.py", 981, "_run", "results = self._run_stage()"),
                (f"{sp}/lightning/pytorch/loops/fit_loop.py", 205, "run", "self.advance()")]
    if fl == "titan":
        return [(f"{C['root']}/torchtitan/train.py", 534, "<module>", "main(config)"),
                (f"{sp}/torch/distributed/elastic/multiprocessing/errors/__init__.py", 355, "wrapper", "return f(*args, **kwargs)"),
                (f"{C['root']}/torchtitan/train.py", 381, "main", "pred = model(input_ids)")]
    return [(f"{C['root']}/train.py", rng.randint(300, 700), "<module>", "main(args)"),
            (f"{C['root']}/train.py", rng.randint(150, 290), "main", "loss = train_one_step(model, batch, optimizer, scaler)"),
            (f"{C['root']}/train.py", rng.randint(60, 140), "train_one_step", "loss = model(**batch).loss")]


def fmt_frames(frames, py311):
    out = ["Traceback (most recent call last):"]
    for (f, ln, fn, code) in frames:
        out.append(f'  File "{f}", line {ln}, in {fn}')
        out.append(f"    {code}")
        if py311 and len(code) > 8 and code.endswith(")"):
            pad = len(code) - len(code.lstrip())
            out.append("    " + " " * pad + "^" * min(len(code.strip()), 60))
    return out


def emit_tb(R, C, rank, t, frames, exc_lines):
    lines = fmt_frames(frames, C["py311"]) + exc_lines
    p = rp(C, rank) + " " if rp(C, rank) else ""
    R.out(rank, t, "\n".join(p + l for l in lines))


def module_frames(C, depth=2):
    sp = site(C)
    fr = []
    for _ in range(depth):
        fr.append((f"{sp}/torch/nn/modules/module.py", 1736, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"))
        fr.append((f"{sp}/torch/nn/modules/module.py", 1747, "_call_impl", "return forward_call(*args, **kwargs)"))
    return fr


def cpp_frames(C, rng, what):
    lib = site(C) + "/torch/lib"
    base = rng.randint(0x7f0000000000, 0x7fffffffffff) & ~0xfff
    fns = {
        "watchdog": ["c10::Error::Error(c10::SourceLocation, std::string) + 0x96",
                     "c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2",
                     "c10d::ProcessGroupNCCL::watchdogHandler() + 0x233",
                     "c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d"],
        "ncclerr": ["c10::Error::Error(c10::SourceLocation, std::string) + 0x96",
                    "c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException() + 0x1c7",
                    "c10d::ProcessGroupNCCL::watchdogHandler() + 0x1f6",
                    "c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d"],
        "cuda": ["c10::Error::Error(c10::SourceLocation, std::string) + 0x96",
                 "c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64",
                 "c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118",
                 "c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x56",
                 "c10d::ProcessGroupNCCL::WorkNCCL::isCompleted() + 0x58",
                 "c10d::ProcessGroupNCCL::watchdogHandler() + 0x1a6"],
    }[what]
    out = []
    for i, fn in enumerate(fns):
        so = "libc10.so" if i < 2 else ("libc10_cuda.so" if "cuda_check" in fn else "libtorch_cuda.so")
        out.append(f"frame #{i}: {fn} (0x{base + rng.randint(0x1000, 0x9fffff):x} in {lib}/{so})")
    k = len(out)
    out.append(f"frame #{k}: <unknown function> + 0xdc253 (0x{base + 0x5dc253:x} in /lib/x86_64-linux-gnu/libstdc++.so.6)")
    out.append(f"frame #{k + 1}: <unknown function> + 0x94ac3 (0x{base + 0x794ac3:x} in /lib/x86_64-linux-gnu/libc.so.6)")
    out.append(f"frame #{k + 2}: clone + 0x44 (0x{base + 0x826a04:x} in /lib/x86_64-linux-gnu/libc.so.6)")
    return out


# --------------------------------------------------------------------------- configuration
def make_config(R: Run, rng, device):
    C = {"device": device}
    C["tv"] = rng.choice([21, 22, 23, 24, 24, 25, 25, 26])
    C["rank_prefix"] = rng.random() < 0.85
    C["py311"] = rng.random() < 0.4
    pyv = "3.11" if C["py311"] else "3.10"
    C["site"] = rng.choice([f"/usr/local/lib/python{pyv}/dist-packages", f"/opt/conda/lib/python{pyv}/site-packages",
                            f"/home/user/.venv/lib/python{pyv}/site-packages", f"/usr/lib/python{pyv}/site-packages"])
    if device == "npu":
        C["flavor"] = rng.choice(["megatron", "hf", "deepspeed"])
    elif device == "hpu":
        C["flavor"] = rng.choice(["hf", "deepspeed", "plain"])
    else:
        C["flavor"] = rng.choice(["megatron", "megatron", "hf", "deepspeed", "lightning", "nemo", "titan", "plain"])
    C["root"] = {"megatron": rng.choice(["/workspace/Megatron-LM", "/opt/megatron-lm", "/lustre/fsw/proj/Megatron-LM"]),
                 "titan": "/workspace", "nemo": "/opt/NeMo/examples/nlp/language_modeling"}.get(C["flavor"], rng.choice(["/workspace", "/app", "/home/user/proj", "/mnt/code/llm"]))
    C["nccl_debug"] = rng.choice([None, None, "WARN", "INFO", "INFO"]) if device in ("cuda", "rocm") else None
    C["timeout_s"] = rng.choice([600, 600, 1800, 1800, 3600, 900, 300]) if device in ("cuda", "rocm") else 1800
    C["ncclv"] = rng.choice(NCCL_VER)
    C["seq0"] = rng.randint(200, 90000)
    C["log_rank"] = R.world - 1 if C["flavor"] == "megatron" and rng.random() < 0.6 else 0
    C["dt"] = rng.uniform(0.4, 9.0)
    C["lib"] = {"cuda": "NCCL", "rocm": "NCCL", "hpu": "HCCL", "npu": "HCCL"}[device]
    C["gpu"] = {"cuda": rng.choice(["H100 80GB HBM3", "A100-SXM4-80GB", "H200", "B200"]), "rocm": rng.choice(["MI300X", "MI250X"]),
                "hpu": "HL-225", "npu": "Ascend910B2"}[device]
    return C


# --------------------------------------------------------------------------- init + steps
def emit_init(R: Run, C, rng, t):
    W = R.world
    if C["device"] in ("cuda", "rocm") and C["nccl_debug"]:
        lr = C["log_rank"]
        if C["device"] == "rocm":
            R.out(0, t + 3.1, nccl(R, C, 0, f"RCCL version {C['ncclv'].replace('2.2', '2.1', 1)}+hip6.{rng.randint(0, 2)} HEAD:{hexid(rng, 7)}"))
        else:
            R.out(0, t + 3.1, nccl(R, C, 0, f"NCCL version {C['ncclv']}+cuda12.{rng.choice([1, 2, 4, 6, 8])}"))
        verbose = W <= 32
        cid = hexid(rng, 16)
        C["commId"] = cid
        for r in range(W):
            n = R.node_of(r)
            loc = r - n.first_rank
            tt = t + 3.2 + rng.uniform(0, 1.5)
            if verbose and C["nccl_debug"] == "INFO":
                R.out(r, tt, nccl(R, C, r, f"cudaDriverVersion 12{rng.choice([2, 4, 6])}0{rng.randint(0, 9)}0", tid_off=0))
                R.out(r, tt + 0.01, nccl(R, C, r, f"Bootstrap : Using {C['oob_if']}:{n.ip}<0>", tid_off=0))
                if C["net"] == "ib":
                    hcas = " ".join(f"[{i}]mlx5_{i}:1/IB" for i in range(min(8, max(1, R.gpn))))
                    R.out(r, tt + 0.2, nccl(R, C, r, f"NET/IB : Using {hcas} ; OOB {C['oob_if']}:{n.ip}<0>"))
                    R.out(r, tt + 0.21, nccl(R, C, r, "Using network IB"))
                else:
                    R.out(r, tt + 0.2, nccl(R, C, r, "NET/IB : No device found."))
                    R.out(r, tt + 0.21, nccl(R, C, r, f"NET/Socket : Using [0]{C['oob_if']}:{n.ip}<0>"))
                    R.out(r, tt + 0.22, nccl(R, C, r, "Using network Socket"))
            if C["nccl_debug"] == "INFO":
                R.out(r, tt + 0.8, nccl(R, C, r, f"ncclCommInitRank comm 0x{hexid(rng, 8)} rank {r} nranks {W} cudaDev {loc} nvmlDev {loc} busId {n.bus[loc]}000 commId 0x{cid} - Init COMPLETE"))
    if C["device"] == "npu" and rng.random() < 0.5:
        for n in R.nodes[:2]:
            R.out(n.first_rank, t + 2, f"[W compiler_depend.ts:{rng.randint(100, 700)}] Warning: Device do not support double dtype now, dtype cast repalce with float. (function operator())")


def step_line(R, C, rng, step, total, t, dt_s, loss, extra=None):
    fl = C["flavor"]
    d = utc(R.lt(R.node_of(C["log_rank"]).idx, t))
    if fl == "megatron":
        gbs = C.setdefault("gbs", rng.choice([256, 512, 1024, 1536, 2048]))
        return (f" [{d.strftime('%Y-%m-%d %H:%M:%S')}] iteration {step:>8}/{total:>8} | consumed samples: {step * gbs:>12} | "
                f"elapsed time per iteration (ms): {dt_s * 1000:.1f} | throughput per GPU (TFLOP/s/GPU): {C.setdefault('tflops', rng.uniform(180, 520)) * C['dt'] / dt_s:.1f} | "
                f"learning rate: {C.setdefault('lr', 3e-4) * min(1, step / 2000):.6E} | global batch size: {gbs:>5} | lm loss: {loss:.6E} | "
                f"loss scale: 1.0 | grad norm: {rng.uniform(0.15, 1.4):.3f} | number of skipped iterations: {extra or 0:>3} | number of nan iterations: {0:>3} |")
    if fl == "deepspeed":
        return (f"[{f_pylog(R.lt(0, t))}] [INFO] [logging.py:128:log_dist] [Rank 0] step={step}, skipped={extra or 0}, "
                f"lr=[{C.setdefault('lr', 2e-5) * min(1, step / 500):.6e}], mom=[(0.9, 0.95)]\n"
                f"[{f_pylog(R.lt(0, t + 0.001))}] [INFO] [timer.py:264:stop] epoch=0/micro_step={step * 4}/global_step={step}, "
                f"RunningAvgSamplesPerSec={C.setdefault('sps', rng.uniform(40, 900)) * C['dt'] / dt_s:.3f}, CurrSamplesPerSec={C['sps'] * C['dt'] / dt_s * rng.uniform(0.97, 1.03):.3f}, "
                f"MemAllocated={C.setdefault('mem', rng.uniform(14, 60)):.2f}GB, MaxMemAllocated={C['mem'] * 1.3:.2f}GB")
    if fl == "hf":
        ep = step / max(total, 1) * C.setdefault("epochs", 3)
        return "{" + f"'loss': {loss:.4f}, 'grad_norm': {rng.uniform(0.2, 2.5):.6f}, 'learning_rate': {2e-5 * (1 - step / total):.4e}, 'epoch': {ep:.2f}" + "}"
    if fl in ("lightning", "nemo"):
        pct = int(step / total * 100)
        bar = "\u2588" * (pct // 10) + " " * (10 - pct // 10)
        el = int((t - R.t0))
        if fl == "nemo":
            return (f"Epoch 0: : {pct:3d}%|{bar}| {step}/{total} [{el // 3600:02d}:{el % 3600 // 60:02d}:{el % 60:02d}<{(total - step) * int(dt_s) // 3600:02d}:00:00, "
                    f"reduced_train_loss={loss:.3f}, global_step={step - 1}.0, consumed_samples={step * 512}.0, train_step_timing in s={dt_s:.3f}]\r")
        return f"Epoch 0:  {pct:2d}%|{bar}| {step}/{total} [{el // 60:02d}:{el % 60:02d}<{(total - step) * int(dt_s) // 60:02d}:00, {1 / dt_s:.2f}it/s, v_num=0, train_loss={loss:.3f}]\r"
    if fl == "titan":
        return (f"{rp(C, 0)}[titan] {f_pylog(R.lt(0, t))} - root - INFO - \x1b[31mstep: {step:>5}  \x1b[32mloss: {loss:7.4f}  \x1b[33mmemory: "
                f"{C.setdefault('mem', rng.uniform(30, 70)):5.2f}GiB({C['mem'] / 80 * 100:.2f}%)  \x1b[34mtps: {int(C.setdefault('tps', rng.uniform(800, 9000)) * C['dt'] / dt_s):,}  "
                f"\x1b[35mmfu: {C.setdefault('mfu', rng.uniform(25, 52)) * C['dt'] / dt_s:.2f}%\x1b[39m")
    return f"{f_pylog(R.lt(0, t))} | INFO | train | step {step:>7} | loss {loss:.4f} | step_time {dt_s:.3f}s | tokens/s {int(4e5 / dt_s)}"


def run_steps(R, C, rng, t, t_stop, slow_from=None, slow_factor=1.0, noise=None, every=None):
    """Emit step log lines from the logging rank between t and t_stop.  Returns (t_last, last_step)."""
    dt = C["dt"]
    total = C.setdefault("total", rng.choice([5000, 10000, 20000, 100000, 250000, 500000]))
    step = C.setdefault("step", rng.randint(0, 40) * 50)
    nsteps = max(1, int((t_stop - t) / dt))
    lo, hi = R.meta.get("step_lines", (60, 180))
    every = every or C.get("every") or max(1, nsteps // rng.randint(lo, hi))
    C["every"] = every
    loss = C.setdefault("loss", rng.uniform(2.0, 7.5))
    lr_ = C["log_rank"]
    tt = t
    while True:
        cur = dt * (slow_factor if slow_from is not None and tt >= slow_from else 1.0) * rng.uniform(0.97, 1.04)
        if tt + cur * every > t_stop:
            break
        tt += cur * every
        step += every
        loss = max(0.9, loss * rng.uniform(0.985, 1.0))
        R.out(lr_, tt, step_line(R, C, rng, step, total, tt, cur, loss), "stdout")
        if noise:
            noise(tt, step)
    C["step"] = step
    C["loss"] = loss
    return tt, step


# --------------------------------------------------------------------------- victim symptoms
def watchdog_timeout(R, C, rng, rank, t, seq, op="ALLREDUCE", numel=None, short=False, enq=None, comp=None):
    """ProcessGroupNCCL watchdog timeout on `rank` at time t; process aborts."""
    to_ms = C["timeout_s"] * 1000
    ran = to_ms + rng.randint(5, 900)
    numel = numel or C.setdefault("numel", rng.choice([1, 262144, 16777216, 52428800, 134217728]))
    pg = pgname(C)
    work = f"WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={numel}, NumelOut={numel * (R.world if op == 'ALLGATHER' else 1)}, Timeout(ms)={to_ms})"
    pgid = "[PG ID 0 PG GUID 0(default_pg) Rank {r}]" if C["tv"] >= 24 else "[PG 0 Rank {r}]" if C["tv"] == 23 else "[Rank {r}]"
    pgr = pgid.format(r=rank)
    L = [c10(R, C, rank, t, "E", f"{pg}.cpp:{616 if C['tv'] >= 24 else 563}", f"[Rank {rank}] Watchdog caught collective operation timeout: {work} ran for {ran} milliseconds before timing out.")]
    if C["tv"] >= 23:
        L.append(c10(R, C, rank, t, "E", f"{pg}.cpp:1785", f"{pgr} Exception (either an error or timeout) detected by watchdog at work: {seq}, last enqueued NCCL work: {enq if enq is not None else seq}, last completed NCCL work: {comp if comp is not None else seq - 1}."))
    L.append(c10(R, C, rank, t, "E", f"{pg}.cpp:630", f"[Rank {rank}] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data."))
    L.append(c10(R, C, rank, t, "E", f"{pg}.cpp:636", f"[Rank {rank}] To avoid data inconsistency, we are taking the entire process down."))
    if not short:
        L.append(c10(R, C, rank, t, "E", f"{pg}.cpp:1595", f"{pgr} Process group watchdog thread terminated with exception: [Rank {rank}] Watchdog caught collective operation timeout: {work} ran for {ran} milliseconds before timing out."))
        L.append(f"Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/{pg}.cpp:618 (most recent call first):")
        L += cpp_frames(C, rng, "watchdog")
        L.append("")
        L.append("terminate called after throwing an instance of 'c10::DistBackendError'")
        L.append(f"  what():  {pgr} Process group watchdog thread terminated with exception: [Rank {rank}] Watchdog caught collective operation timeout: {work} ran for {ran} milliseconds before timing out.")
    R.out(rank, t, "\n".join(L))


def nccl_peer_error(R, C, rng, rank, t, peer_rank, kind="closed", short=False):
    """Async NCCL error noticed by the watchdog (remote peer died / network)."""
    pn = R.node_of(peer_rank)
    port = rng.randint(33000, 61000)
    pg = pgname(C)
    pgr = f"[PG ID 0 PG GUID 0(default_pg) Rank {rank}]" if C["tv"] >= 24 else f"[Rank {rank}]"
    if kind == "closed":
        last = f"socketProgress: Connection closed by remote peer {pn.host.split('.')[0]}<{port}>" if rng.random() < 0.6 else \
            f"socketProgressOpt: Call to recv from {pn.ip}<{port}> failed : Connection reset by peer"
        code = "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely."
        what = "remote process exited or there was a network error"
        if C["nccl_debug"] in ("WARN", "INFO"):
            R.out(rank, t - 0.01, nccl(R, C, rank, last.replace("socketProgress: ", "socketProgress: ") if True else last, "WARN", src="misc/socket.cc:50"))
    elif kind == "ib":
        st = rng.choice([12, 12, 5, 13])
        stname = {12: "transport retry counter exceeded", 5: "work request flushed error", 13: "RNR retry counter exceeded"}[st]
        last = (f"NET/IB : Got completion from peer {pn.ip}<{port}> with status={st} opcode=0 len=0 vendor err {rng.choice([129, 244, 136])} (Send) "
                f"localGid ::ffff:{R.node_of(rank).ip} remoteGids::ffff:{pn.ip} hca mlx5_{rng.randint(0, 7)}")
        code = "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely."
        what = "remote process exited or there was a network error"
        if C["nccl_debug"] in ("WARN", "INFO"):
            R.out(rank, t - 0.02, nccl(R, C, rank, f"{last} ({stname})" if rng.random() < 0.3 else last, "WARN", src="transport/net_ib.cc:1697"))
    else:  # system error on this rank itself
        last = kind
        code = "ncclUnhandledCudaError: Call to CUDA function failed."
        what = "unhandled cuda error (run with NCCL_DEBUG=INFO for details)"
    msg = (f"{pgr} NCCL watchdog thread terminated with exception: NCCL error: {what}, NCCL version {C['ncclv']}\n"
           f"{code}\nLast error:\n{last}")
    L = [c10(R, C, rank, t, "E", f"{pg}.cpp:1418", msg)]
    if not short:
        L.append(f"Exception raised from checkForNCCLErrorsInternal at ../torch/csrc/distributed/c10d/NCCLUtils.cpp:{rng.choice([197, 210, 223])} (most recent call first):")
        L += cpp_frames(C, rng, "ncclerr")
        L.append("")
        L.append("terminate called after throwing an instance of 'c10::DistBackendError'")
        L.append(f"  what():  {msg.splitlines()[0]}")
    R.out(rank, t, "\n".join(L))


def hccl_victim(R, C, rng, rank, t, peer_rank, kind="socket", short=None):
    """Ascend / Gaudi collective failures seen by surviving ranks."""
    n = R.node_of(rank)
    pn = R.node_of(peer_rank)
    p = rp(C, rank) + " " if rp(C, rank) else ""
    if C["device"] == "npu":
        pid = R.pid(rank)
        loc = rank - n.first_rank
        if kind == "socket":
            lines = [f"RuntimeError: InnerRunOpApi:torch_npu/csrc/framework/OpParamMaker.cpp:{rng.choice([281, 296])} OPS function error: HcclAllreduce, error code is 6",
                     f"[ERROR] {utc(R.lt(n.idx, t)).strftime('%Y-%m-%d-%H:%M:%S')} (PID:{pid}, Device:{loc}, RankID:{rank}) ERR01100 OPS call acl api failed.",
                     f"EI0006: [PID: {pid}] {f_ascend(R.lt(n.idx, t))} Getting socket times out. Reason: Remote Rank did not send the data in time. Please check the reason for the rank being stuck",
                     f"        Solution: 1. Check the rank service processes with other errors or no errors in the cluster.2. If this error is reported for all NPUs, check whether the time difference between the earliest and latest errors is greater than the connect timeout interval (120s by default). If so, adjust the timeout interval by using the HCCL_CONNECT_TIMEOUT environment variable.3. Check the connectivity of the communication link between nodes. (For details, see the TLS command and HCCN connectivity check examples.). For details:https://www.hiascend.com/document",
                     f"        TraceBack (most recent call last):",
                     f"        Transport init error. Reason: [Create][DestLink]Create Dest error! createLink para:rank[{rank}]-localUserrank[{rank}]-localIpAddr[{n.ip}], dst_rank[{peer_rank}]-remoteUserrank[{peer_rank}]-remote_ip_addr[{pn.ip}]"]
        else:
            lines = [f"RuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:467 NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is 507048",
                     f"[ERROR] {utc(R.lt(n.idx, t)).strftime('%Y-%m-%d-%H:%M:%S')} (PID:{pid}, Device:{loc}, RankID:{rank}) ERR00100 PTA call acl api failed",
                     "[Error]: The execution of the internal task times out. ",
                     "        Rectify the fault based on the error information in the ascend log.",
                     f"EI0002: [PID: {pid}] {f_ascend(R.lt(n.idx, t))} The wait execution of the Notify register times out. Reason: The Notify register has not received the Notify record from remote rank: [{peer_rank}]. base information: [streamID:[{rng.randint(1, 9)}], taskID[{rng.randint(100, 9999999)}], taskType[Notify Wait], tag[AllReduce_{R.nodes[0].ip}%eth0_60000_0_{int(R.t0 * 1000)}].] task information: [notify id:[0x{hexid(rng, 16)}], stage:[ffffffff], remote rank:[{peer_rank}].]",
                     "        Possible Cause: 1. An exception occurs during the execution on some NPUs in the cluster. As a result, collective communication operation failed.2. The execution speed on some NPU in the cluster is too slow to complete a communication operation within the timeout interval. (default 1800s, You can set the interval by using HCCL_EXEC_TIMEOUT.)3. The number of training samples of each NPU is inconsistent.4. Packet loss or other connectivity problems occur on the communication link.",
                     "        Solution: 1. If this error is reported on part of these ranks, check other ranks to see whether other errors have been reported earlier.2. If this error is reported for all ranks, check whether the error reporting time is consistent (the maximum difference must not exceed 1800s). If not, locate the cause or adjust the locate the cause or set the HCCL_EXEC_TIMEOUT environment variable to a larger value.3. Check whether the completion queue element (CQE) of the error exists in the plog(grep -rn 'error cqe'). If so, check the network connection status. (For details, see the TLS command and HCCN connectivity check examples.)4. Ensure that the number of training samples of each NPU is consistent."]
        if short is None:
            short = R.world > 32 and rank % 6 != 0
        if short:
            lines = lines[:3] if kind == "socket" else lines[:5]
        R.out(rank, t, "\n".join(p + l for l in lines))
    else:
        lines = [f"RuntimeError: [Rank:{rank}] FATAL ERROR :: MODULE:PT_HCCL Collective call failed: hcclAllReduce returned hcclInternalError (status 5)",
                 f"[Rank:{rank}] Habana exception raised from wait at process_group_hccl_base.cpp:{rng.randint(300, 900)}"]
        R.out(rank, t, "\n".join(p + l for l in lines))


def agent_summary(R, C, rng, ni, t, failures, script):
    """torchrun elastic agent reporting failed local workers. failures: list of (rank, exitcode, t_fail, note)."""
    n = R.nodes[ni]
    if not failures:
        return
    first = min(failures, key=lambda f: f[2])
    r0, ec0, tf0, note0 = first
    lr0 = r0 - n.first_rank
    R.agent(ni, t, elog(R, C, ni, t, "E", "multiprocessing/api.py:" + ("869" if C["tv"] >= 23 else "727"),
                        f"failed (exitcode: {ec0}) local_rank: {lr0} (pid: {R.pid(r0)}) of binary: /usr/bin/python"))
    others = [r for r in n.ranks if r not in {f[0] for f in failures}]
    for r in others[: 8]:
        R.agent(ni, t - 0.5, elog(R, C, ni, t - 0.5, "W", "multiprocessing/api.py:" + ("897" if C["tv"] >= 23 else "699"),
                                  f"Sending process {R.pid(r)} closing signal SIGTERM"))
    sp = site(C)
    R.agent(ni, t + 0.1, "\n".join([
        "Traceback (most recent call last):",
        '  File "/usr/local/bin/torchrun", line 8, in <module>',
        "    sys.exit(main())",
        f'  File "{sp}/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper',
        "    return f(*args, **kwargs)",
        f'  File "{sp}/torch/distributed/run.py", line 919, in main',
        "    run(args)",
        f'  File "{sp}/torch/distributed/run.py", line 910, in run',
        "    elastic_launch(",
        f'  File "{sp}/torch/distributed/launcher/api.py", line 138, in __call__',
        "    return launch_agent(self._config, self._entrypoint, list(args))",
        f'  File "{sp}/torch/distributed/launcher/api.py", line 269, in launch_agent',
        "    raise ChildFailedError(",
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "============================================================",
        f"{script} FAILED",
        "------------------------------------------------------------"]))
    rows = ["Failures:"]
    rest = [f for f in failures if f is not first]
    if not rest:
        rows.append("  <NO_OTHER_FAILURES>")
    for i, (r, ec, tf, note) in enumerate(sorted(rest, key=lambda f: f[0])[:8]):
        rows += [f"[{i + 1}]:", f"  time      : {utc(R.lt(ni, tf)).strftime('%Y-%m-%d_%H:%M:%S')}", f"  host      : {n.host}",
                 f"  rank      : {r} (local_rank: {r - n.first_rank})", f"  exitcode  : {ec} (pid: {R.pid(r)})",
                 "  error_file: <N/A>", f"  traceback : {note or (sig_note(ec, R.pid(r)) if ec < 0 else 'To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html')}"]
    rows += ["------------------------------------------------------------", "Root Cause (first observed failure):", "[0]:",
             f"  time      : {utc(R.lt(ni, tf0)).strftime('%Y-%m-%d_%H:%M:%S')}", f"  host      : {n.host}",
             f"  rank      : {r0} (local_rank: {lr0})", f"  exitcode  : {ec0} (pid: {R.pid(r0)})", "  error_file: <N/A>",
             f"  traceback : {note0 or (sig_note(ec0, R.pid(r0)) if ec0 < 0 else 'To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html')}",
             "============================================================"]
    R.agent(ni, t + 0.2, "\n".join(rows))


def sig_note(ec, pid):
    sig = -ec
    name = {9: "SIGKILL", 6: "SIGABRT", 11: "SIGSEGV", 7: "SIGBUS", 15: "SIGTERM"}.get(sig, f"SIG{sig}")
    return f"Signal {sig} ({name}) received by PID {pid}"


# --------------------------------------------------------------------------- kernel helpers
def k_xid(R, rng, ni, t, loc, xid, pid=None, name="python", text=None):
    n = R.nodes[ni]
    bus = n.bus[loc]
    p = f"pid={pid}, name={name}" if pid else "pid='<unknown>', name=<unknown>"
    if text is None:
        text = XID_GPU.get(xid, "").format(g=loc)
    R.k(ni, t, f"NVRM: Xid (PCI:0000:{bus}:00): {xid}, {p}, {text}")


def k_oom(R, rng, ni, t, pid, comm="python", cgroup=None, rss_gb=None):
    rss = int((rss_gb or rng.uniform(60, 400)) * 1024 * 1024)
    lines = [f"{comm} invoked oom-killer: gfp_mask=0x{rng.choice(['140cca', '100cca', 'cc0'])}(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj={0 if not cgroup else 904}",
             f"CPU: {rng.randint(0, 191)} PID: {pid + rng.randint(1, 40)} Comm: {comm} Tainted: P           OE      {rng.choice(['5.15.0-105-generic', '6.8.0-45-generic', '5.14.0-427.el9.x86_64', '6.1.0-23-amd64'])} #1",
             f"Hardware name: {rng.choice(['Supermicro SYS-821GE-TNHR/X13DEG-OAD', 'Dell Inc. PowerEdge XE9680/0V2Y6G', 'Amazon EC2 p5.48xlarge/, BIOS 1.0 10/16/2017', 'HPE ProLiant XD670/ProLiant XD670'])}",
             "Call Trace:", " <TASK>", " dump_stack_lvl+0x48/0x70", " dump_header+0x4a/0x240", " oom_kill_process+0xf9/0x190",
             " out_of_memory+0x256/0x540", (" mem_cgroup_out_of_memory+0x13d/0x160" if cgroup else " __alloc_pages_slowpath.constprop.0+0xa4d/0xd30"),
             " </TASK>"]
    if cgroup:
        lines.append(f"memory: usage {rss + 1200000}kB, limit {rss + 1000000}kB, failcnt {rng.randint(10, 9000)}")
        lines.append(f"oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset={cgroup.split('/')[-1][:40]},mems_allowed=0-1,oom_memcg={cgroup},task_memcg={cgroup},task={comm},pid={pid},uid=0")
        lines.append(f"Memory cgroup out of memory: Killed process {pid} ({comm}) total-vm:{rss * 2 + rng.randint(10 ** 6, 10 ** 7)}kB, anon-rss:{rss}kB, file-rss:{rng.randint(100000, 900000)}kB, shmem-rss:{rng.randint(0, 90000)}kB, UID:0 pgtables:{rng.randint(100000, 900000)}kB oom_score_adj:904")
    else:
        lines.append(f"oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/system.slice/slurmstepd.scope/job_{rng.randint(10 ** 5, 10 ** 7)},task={comm},pid={pid},uid={rng.randint(1000, 60000)}")
        lines.append(f"Out of memory: Killed process {pid} ({comm}) total-vm:{rss * 2 + rng.randint(10 ** 6, 10 ** 7)}kB, anon-rss:{rss}kB, file-rss:{rng.randint(100000, 900000)}kB, shmem-rss:{rng.randint(0, 90000)}kB, UID:{rng.randint(1000, 60000)} pgtables:{rng.randint(100000, 900000)}kB oom_score_adj:0")
    R.k(ni, t, "\n".join(lines), 3)
    R.k(ni, t + rng.uniform(0.2, 2), f"oom_reaper: reaped process {pid} ({comm}), now anon-rss:0kB, file-rss:0kB, shmem-rss:{rng.randint(0, 999)}kB", 6)


def kernel_noise(R, rng, ni, t0, t1, vendor="nvidia"):
    """Harmless kernel lines: old Xids from before the job, link flaps on unused ports, etc."""
    n = R.nodes[ni]
    opts = []
    if vendor == "nvidia":
        opts += [lambda t: R.k(ni, t, f"NVRM: Xid (PCI:0000:{n.bus[rng.randrange(len(n.bus))]}:00): 13, pid={rng.randint(2000, 90000)}, name=python3, Graphics SM Warp Exception on (GPC 3, TPC 1, SM 0): Out Of Range Address", 4),
                 lambda t: R.k(ni, t, f"NVRM: Xid (PCI:0000:{n.bus[rng.randrange(len(n.bus))]}:00): 43, pid={rng.randint(2000, 90000)}, name=pt_main_thread, Ch 00000008", 4),
                 lambda t: R.k(ni, t, "nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 22013, Non-fatal, Link 44 Minion Link DLREQ interrupt", 4),
                 lambda t: R.k(ni, t, f"NVRM: GPU at PCI:0000:{n.bus[0]}:00: GPU-{hexid(rng, 8)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 12)}", 6)]
    else:
        opts += [lambda t: R.k(ni, t, f"amdgpu 0000:{n.bus[0]}:00.0: amdgpu: 1 correctable hardware errors detected in umc block", 6),
                 lambda t: R.k(ni, t, "amdgpu: Freeing queue vital buffer 0x7f2c6e600000, queue evicted", 6)]
    opts += [lambda t: R.k(ni, t, f"mlx5_core 0000:{rng.choice(['0c', '2a', 'a1'])}:00.1 enp{rng.randint(10, 200)}s0f1np1: Link down", 6),
             lambda t: R.k(ni, t, "perf: interrupt took too long (3140 > 3126), lowering kernel.perf_event_max_sample_rate to 63500", 6),
             lambda t: R.k(ni, t, f"nfs: server {rng.choice(['nas01', 'fs-home', '10.1.0.9'])} OK", 6),
             lambda t: R.k(ni, t, f"EXT4-fs (nvme{rng.randint(0, 3)}n1): mounted filesystem with ordered data mode. Quota mode: none.", 6),
             lambda t: R.k(ni, t, f"Killed process {rng.randint(2000, 90000)} (node_exporter) total-vm:812344kB, anon-rss:2212kB, file-rss:0kB, shmem-rss:0kB, UID:65534 pgtables:244kB oom_score_adj:999", 3)]
    k = rng.randint(0, 3)
    n_gpu_opts = 4 if vendor == "nvidia" else 2
    for _ in range(k):
        i = rng.randrange(len(opts))
        # GPU Xid/SXid noise only from before the job (a previous job on the node); the rest may
        # also happen during the job and is harmless (unused port flap, perf throttling, an exporter OOM-killed).
        before = i < n_gpu_opts or rng.random() < 0.5
        t = rng.uniform(t0 - 86400 * 2, t0 - 600) if before else rng.uniform(t0, t1)
        opts[i](t)


# --------------------------------------------------------------------------- the run
class TorchStack:
    causes = {
        "cuda": ["gpu_hardware", "ecc_memory", "nvlink", "network", "host_oom_kill", "cuda_oom", "illegal_memory_access",
                 "python_exception", "crash_signal", "hang", "collective_mismatch", "data_loader_stall", "preemption", "straggler"],
        "rocm": ["gpu_hardware", "ecc_memory", "network", "host_oom_kill", "cuda_oom", "illegal_memory_access",
                 "python_exception", "crash_signal", "hang", "straggler", "preemption"],
        "hpu": ["gpu_hardware", "host_oom_kill", "cuda_oom", "python_exception", "crash_signal", "preemption", "network"],
        "npu": ["network", "hang", "python_exception", "cuda_oom", "host_oom_kill", "preemption", "data_loader_stall"],
    }

    def __init__(self, rng, device):
        self.rng = rng
        self.device = device
        self.name = {"cuda": "pytorch-nccl", "rocm": "pytorch-rccl", "hpu": "gaudi-hccl", "npu": "ascend-hccl"}[device]

    def host_style(self):
        rng = self.rng
        if self.device == "rocm":
            return rng.choice(["nid", "gpu-dash", "fqdn"]), rng.choice(["mi300x", "mi250x", "mi300a"])
        if self.device == "hpu":
            return rng.choice(["gaudi", "aws", "plain"]), None
        if self.device == "npu":
            return "ascend", None
        return rng.choice(["gpu-dash", "gpu-dash", "fqdn", "nid", "aws", "pcluster", "gce", "plain"]), None

    # ------------------------------------------------------------------ main
    def run(self, R: Run, cause):
        rng = self.rng
        C = make_config(R, rng, self.device)
        self.C = C
        R.meta["vendor"] = {"cuda": "nvidia", "rocm": "amd", "hpu": "habana", "npu": "huawei"}[self.device]
        R.meta["gpu_res"] = {"rocm": "amd.com/gpu", "hpu": "habana.ai/gaudi", "npu": "huawei.com/Ascend910"}.get(self.device)
        R.meta["image"] = {"cuda": rng.choice(["nvcr.io/nvidia/pytorch:24.05-py3", "nvcr.io/nvidia/nemo:24.07", "ghcr.io/acme/trainer:2.4.1-cu124"]),
                           "rocm": rng.choice(["rocm/pytorch:rocm6.2_ubuntu22.04_py3.10_pytorch_release_2.3.0", "rocm/megatron-lm:v25.1"]),
                           "hpu": "vault.habana.ai/gaudi-docker/1.18.0/ubuntu22.04/habanalabs/pytorch-installer-2.4.0:latest",
                           "npu": "swr.cn-south-1.myhuaweicloud.com/ascendhub/mindie:1.0.0-800I-A2-py311"}[self.device]
        C["oob_if"] = rng.choice(["eth0", "ens5", "enp26s0np0", "bond0", "ib0", "hsn0"])
        C["net"] = rng.choice(["ib", "ib", "ib", "socket"]) if self.device in ("cuda", "rocm") else "roce"
        C["script"] = {"megatron": "pretrain_gpt.py", "titan": "torchtitan/train.py"}.get(C["flavor"], "train.py")
        C["launcher"] = R.meta.get("launcher", "torchrun")
        t = R.t0
        if C["launcher"] in ("torchrun", "pdsh"):
            self.agent_start(R, C, t)
        emit_init(R, C, rng, t)
        self.startup_noise(R, C, t)
        dur = rng.uniform(600, 3600 * 30)
        if cause is None:
            return self.healthy(R, C, t, dur)
        t_fault = t + dur
        getattr(self, "c_" + cause)(R, C, t, t_fault)

    def agent_start(self, R, C, t):
        """Launcher start-up lines per node: who is where (group_rank -> global ranks)."""
        rng = self.rng
        W = R.world
        for n in R.nodes:
            if R.meta.get("pf") == "slurm" and rng.random() < 0.8:
                R.agent(n.idx, t - 2, f"[{n.host}] SLURM_NODEID={n.idx} SLURM_PROCID={n.idx} -> torchrun --node-rank={n.idx}", "stdout")
            if C["launcher"] == "pdsh":
                R.agent(n.idx, t - 1, f"[{f_pylog(R.lt(n.idx, t - 1))}] [INFO] [launch.py:146:main] WORLD INFO DICT: {{{', '.join(repr(m.host) + ': [' + ', '.join(str(i) for i in range(R.gpn)) + ']' for m in R.nodes[:3])}{', ...' if len(R.nodes) > 3 else ''}}}")
                R.agent(n.idx, t - 0.9, f"[{f_pylog(R.lt(n.idx, t - 1))}] [INFO] [launch.py:152:main] nnodes={len(R.nodes)}, num_local_procs={R.gpn}, node_rank={n.idx}")
                R.agent(n.idx, t - 0.8, f"[{f_pylog(R.lt(n.idx, t - 1))}] [INFO] [launch.py:164:main] dist_world_size={W}")
                for r in n.ranks[:8]:
                    R.agent(n.idx, t - 0.5, f"[{f_pylog(R.lt(n.idx, t - 0.5))}] [INFO] [launch.py:256:main] process {R.pid(r)} spawned with command: ['/usr/bin/python', '-u', '{C['script']}', '--local_rank={r - n.first_rank}', '--deepspeed', 'ds_config.json']")
                continue
            if rng.random() < 0.85:
                lr = list(range(R.gpn))
                gr = n.ranks
                R.agent(n.idx, t - 1, "\n".join([
                    elog(R, C, n.idx, t - 1, "I", "agent/server/api.py:" + ("525" if C["tv"] >= 23 else "528"), "[default] Rendezvous complete for workers. Result:"),
                    "  restart_count=0", f"  master_addr={R.nodes[0].host}", "  master_port=29500", f"  group_rank={n.idx}", f"  group_world_size={len(R.nodes)}",
                    f"  local_ranks={lr}", f"  role_ranks={gr}", f"  global_ranks={gr}", f"  role_world_sizes={[W] * R.gpn}", f"  global_world_sizes={[W] * R.gpn}", ""]))

    # ------------------------------------------------------------------ noise
    def startup_noise(self, R, C, t):
        rng = self.rng
        sp = site(C)
        pool = [
            f"{sp}/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: please pass in use_reentrant=True or use_reentrant=False explicitly. The default value of use_reentrant will be updated to be False in the future.",
            f"{sp}/transformers/training_args.py:1525: FutureWarning: `evaluation_strategy` is deprecated and will be removed in version 4.46 of Transformers. Use `eval_strategy` instead",
            f"{sp}/torch/_utils.py:831: UserWarning: TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class.",
            "WARNING: Logging before InitGoogleLogging() is written to STDERR",
        ]
        if C["device"] == "cuda" and C["tv"] >= 24:
            pool.append(c10(R, C, 0, t + 5, "W", "ProcessGroupNCCL.cpp:4115", "[PG ID 0 PG GUID 0 Rank 0]  using GPU 0 to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect. Specify device_ids in barrier() to force use of a particular device, or call init_process_group() with a device_id."))
        if C["nccl_debug"]:
            pool.append(nccl(R, C, 0, "NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin."))
        for _ in range(rng.randint(1, 3)):
            R.out(rng.choice([0, rng.randrange(R.world)]), t + rng.uniform(2, 30), rng.choice(pool))
        if C["flavor"] == "deepspeed":
            R.out(0, t + 9, f"[{f_pylog(R.lt(0, t + 9))}] [WARNING] [stage3.py:2069:step] 3 pytorch allocator cache flushes since last step. this happens when there is high memory pressure and is detrimental to performance. if this is happening frequently consider adjusting settings to reduce memory consumption. If you are unable to make the cache flushes go away consider adding get_accelerator().empty_cache() calls in your training loop to ensure that all ranks flush their caches at the same time")

    def maybe_scary(self, R, C, t0, t1):
        """Harmless alarming lines during training."""
        rng = self.rng
        if rng.random() < 0.5:
            tt = rng.uniform(t0, t1)
            if C["flavor"] == "deepspeed":
                R.out(0, tt, f"[{f_pylog(R.lt(0, tt))}] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768")
            elif C["flavor"] == "megatron":
                R.out(C["log_rank"], tt, f"WARNING: found NaN in local grad norm in backward pass, skipping iteration (iteration {C.get('step', 1000) + 7})")
            else:
                R.out(0, tt, f"{f_pylog(R.lt(0, tt))} | WARNING | train | non-finite loss detected at step {C.get('step', 1000) + 13}, skipping update (loss=nan)")
        if rng.random() < 0.4:
            tt = rng.uniform(t0, t1)
            it = C.get("step", 1000)
            R.out(0, tt, f"saving checkpoint at iteration {it:>7} to /checkpoints/{alnum(rng, 6)}/iter_{it:07d} in torch_dist format")
            R.out(0, tt + rng.uniform(40, 300), f"  successfully saved checkpoint from iteration {it:>7} to /checkpoints/iter_{it:07d} [ t 1/{max(1, R.world // 8)}, p 1/{rng.choice([1, 2, 4])} ]")
        for ni in range(len(R.nodes)):
            if rng.random() < 0.25:
                kernel_noise(R, rng, ni, R.t0, t1, "amd" if C["device"] == "rocm" else "nvidia")

    # ------------------------------------------------------------------ endings
    def finish_fail(self, R, C, t_end, failures_by_node, code=1):
        """Agents print failure summaries; platform sees task exits."""
        rng = self.rng
        for ni, fl in failures_by_node.items():
            if C["launcher"] == "torchrun" and fl:
                agent_summary(R, C, rng, ni, max(f[2] for f in fl) + rng.uniform(0.5, 5), fl, C["script"])
            if C["launcher"] == "pdsh" and fl:
                n = R.nodes[ni]
                f0 = min(fl, key=lambda f: f[2])
                tt = f0[2] + rng.uniform(0.5, 3)
                R.agent(ni, tt, f"[{f_pylog(R.lt(ni, tt))}] [INFO] [launch.py:319:sigkill_handler] Killing subprocess {R.pid(f0[0])}")
                for f in fl[:8]:
                    if f is not f0:
                        R.agent(ni, tt + 0.1, f"[{f_pylog(R.lt(ni, tt + 0.1))}] [INFO] [launch.py:319:sigkill_handler] Killing subprocess {R.pid(f[0])}")
                R.agent(ni, tt + 0.2, f"[{f_pylog(R.lt(ni, tt + 0.2))}] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python', '-u', '{C['script']}', '--local_rank={f0[0] - n.first_rank}', '--deepspeed', 'ds_config.json'] exits with return code = {f0[1]}")
                R.drv(tt + 1, f"pdsh@{R.nodes[0].host}: {n.host}: ssh exited with exit code {abs(f0[1]) if f0[1] > 0 else 1}", "stderr")
            ec = 1
            if fl:
                f0 = min(fl, key=lambda f: f[2])
                R.ev(max(f[2] for f in fl) + 1, "task_exit", ni, code=1 if C["launcher"] == "torchrun" else (f0[1] if f0[1] > 0 else 1),
                     signal=(-f0[1] if f0[1] < 0 and C["launcher"] != "torchrun" else None), rank=f0[0])
        R.t_end = t_end
        R.exit_code = code
        if R.meta.get("describe") is None and failures_by_node:
            first_ni = min(failures_by_node, key=lambda k: min((f[2] for f in failures_by_node[k]), default=1e18))
            R.meta["first_failed_pod"] = R.nodes[first_ni].host

    def victims_timeout(self, R, C, t_fault, culprits, seq, op="ALLREDUCE", who=None, skip_nodes=()):
        """All non-culprit ranks hit the watchdog timeout; return failures dict."""
        rng = self.rng
        fails = {}
        big = R.world > 48
        ranks = who if who is not None else [r for r in range(R.world) if r not in culprits]
        for r in ranks:
            ni = R.node_of(r).idx
            if ni in skip_nodes:
                continue
            tt = t_fault + C["timeout_s"] + rng.uniform(0.05, 3.5)
            if C["device"] in ("cuda", "rocm"):
                watchdog_timeout(R, C, rng, r, tt, seq, op, short=big and r % 7 != 0)
            else:
                hccl_victim(R, C, rng, r, tt, culprits[0] if culprits else 0, "notify")
            fails.setdefault(ni, []).append((r, -6 if C["device"] in ("cuda", "rocm") else 1, tt, None))
        return fails

    def victims_peer(self, R, C, t_fault, culprit, kind="closed", skip_nodes=(), delay=(0.5, 25)):
        rng = self.rng
        fails = {}
        big = R.world > 48
        for r in range(R.world):
            if r == culprit:
                continue
            ni = R.node_of(r).idx
            if ni in skip_nodes:
                continue
            tt = t_fault + rng.uniform(*delay)
            if C["device"] in ("cuda", "rocm"):
                nccl_peer_error(R, C, rng, r, tt, culprit, kind, short=big and r % 5 != 0)
                fails.setdefault(ni, []).append((r, -6, tt, None))
            else:
                hccl_victim(R, C, rng, r, tt, culprit, "socket")
                fails.setdefault(ni, []).append((r, 1, tt, None))
        return fails

    def local_teardown(self, R, C, ni, t, exclude):
        """torchrun SIGTERMs the remaining local workers: they exit -15 quietly."""
        fl = []
        for r in R.nodes[ni].ranks:
            if r in exclude:
                continue
            fl.append((r, -15, t + 0.3, None))
        return fl

    def merge(self, *ds):
        out = {}
        for d in ds:
            for k, v in d.items():
                out.setdefault(k, []).extend(v)
        return out

    # ------------------------------------------------------------------ healthy
    def healthy(self, R, C, t, dur):
        rng = self.rng
        t_end = t + dur
        variant = rng.choice(["plain", "plain", "restart", "noisy"])
        if variant == "restart" and C["launcher"] == "torchrun" and len(R.nodes) > 1:
            # attempt 0 fails on a transient rendezvous/store hiccup, the agent restarts the group, run completes.
            tm = t + dur * rng.uniform(0.1, 0.4)
            run_steps(R, C, rng, t, tm)
            ni = rng.randrange(len(R.nodes))
            for k in range(len(R.nodes)):
                R.agent(k, tm + 2, elog(R, C, k, tm + 2, "W", "agent/server/api.py:" + ("719" if C["tv"] >= 23 else "723"),
                                        f"[default] Worker group FAILED. 3/3 attempts left; will restart worker group"))
                R.agent(k, tm + 2.5, elog(R, C, k, tm + 2.5, "I", "agent/server/api.py:" + ("867" if C["tv"] >= 23 else "870"),
                                          "[default] Stopping worker group"))
                R.agent(k, tm + 3, elog(R, C, k, tm + 3, "I", "agent/server/api.py:" + ("704" if C["tv"] >= 23 else "711"),
                                        "[default] Rendezvous'ing worker group"))
            R.out(R.nodes[ni].first_rank, tm, f"{rp(C, R.nodes[ni].first_rank)} torch.distributed.DistNetworkError: Connection reset by peer" if C["tv"] >= 22 else "torch.distributed.DistNetworkError: Connection reset by peer")
            R.notes_extra = "; attempt 0 lost a TCPStore connection and the elastic agent restarted the worker group"
            C["step"] = (C["step"] // 1000) * 1000
            R.out(C["log_rank"], tm + 60, f"loading checkpoint from /checkpoints at iteration {C['step']}")
            run_steps(R, C, rng, tm + 80, t_end)
        else:
            run_steps(R, C, rng, t, t_end)
        self.maybe_scary(R, C, t, t_end)
        if variant == "noisy" and C["device"] in ("cuda", "rocm"):
            for _ in range(rng.randint(1, 3)):
                r = rng.randrange(R.world)
                R.out(r, rng.uniform(t, t_end), nccl(R, C, r, f"NET/IB : Got async event : port error", "WARN", src="transport/net_ib.cc:127") if C["nccl_debug"] else
                      f"{rp(C, r)} [W socket.cpp:{rng.choice([464, 697])}] [c10d] The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use).")
        if C["flavor"] == "megatron":
            R.out(C["log_rank"], t_end + 1, f"[after training is done] datetime: {utc(R.lt(0, t_end)).strftime('%Y-%m-%d %H:%M:%S')} ")
        elif C["flavor"] == "hf":
            R.out(0, t_end + 1, "\n\nTraining completed. Do not forget to share your model on huggingface.co/models =)\n\n")
            R.out(0, t_end + 1.1, "{" + f"'train_runtime': {t_end - t:.4f}, 'train_samples_per_second': {rng.uniform(5, 90):.3f}, 'train_steps_per_second': {rng.uniform(0.05, 2):.3f}, 'train_loss': {C['loss']:.4f}, 'epoch': 3.0" + "}")
        if C["launcher"] == "torchrun":
            for k in range(len(R.nodes)):
                R.agent(k, t_end + 3, elog(R, C, k, t_end + 3, "I", "agent/server/api.py:" + ("879" if C["tv"] >= 23 else "882"),
                                           "[default] worker group successfully finished. Waiting 300 seconds for other agents to finish."))
                R.agent(k, t_end + 4, elog(R, C, k, t_end + 4, "I", "agent/server/api.py:" + ("932" if C["tv"] >= 23 else "935"),
                                           f"Done waiting for other agents. Elapsed: {rng.uniform(0.0005, 2):.6f} seconds"))
        R.t_end = t_end + 5
        R.exit_code = 0
        R.set_truth(None, notes="Healthy run" + getattr(R, "notes_extra", "") + "; includes harmless warnings.")

    # ------------------------------------------------------------------ causes
    def pick_culprit(self, R, avoid_zero=True):
        rng = self.rng
        r = rng.randrange(1 if avoid_zero and R.world > 1 else 0, R.world)
        return r

    def c_gpu_hardware(self, R, C, t, tf):
        rng = self.rng
        r = self.pick_culprit(R)
        n = R.node_of(r)
        loc = r - n.first_rank
        run_steps(R, C, rng, t, tf)
        self.maybe_scary(R, C, t, tf)
        seq = C["seq0"] + rng.randint(1000, 90000)
        if C["device"] == "rocm":
            kfd = n.kfd_nodes[loc]
            R.k(n.idx, tf, f"amdgpu 0000:{n.bus[loc]}:00.0: amdgpu: ring sdma{rng.randint(0, 3)}.{rng.randint(0, 3)}.0 timeout, signaled seq={rng.randint(10 ** 5, 10 ** 7)}, emitted seq={rng.randint(10 ** 7, 10 ** 7 + 9)}")
            R.k(n.idx, tf + 0.001, f"amdgpu 0000:{n.bus[loc]}:00.0: amdgpu:  Process python pid {R.pid(r)} thread python pid {R.pid(r)}")
            R.k(n.idx, tf + 0.4, f"amdgpu 0000:{n.bus[loc]}:00.0: amdgpu: GPU reset begin!")
            R.k(n.idx, tf + 2.1, f"amdgpu 0000:{n.bus[loc]}:00.0: amdgpu: MODE1 reset")
            R.k(n.idx, tf + 3.9, f"amdgpu 0000:{n.bus[loc]}:00.0: amdgpu: GPU reset(1) failed")
            R.k(n.idx, tf + 3.91, f"amdgpu 0000:{n.bus[loc]}:00.0: amdgpu: GPU reset end with ret = -110")
            R.out(r, tf + 0.5, f"HW Exception by GPU node-{kfd} (Agent handle: 0x{hexid(rng, 8)}) reason :GPU Hang")
            fails = self.victims_peer(R, C, tf + 1, r, "closed", delay=(2, 40))
            fails.setdefault(n.idx, []).append((r, -6, tf + 0.6, None))
            R.set_truth("gpu_hardware", r, n.idx, True,
                        f"MI-series GPU hang + failed MODE1 reset on {n.host} (KFD node-{kfd}); rank {r} aborts with HW Exception, peers see closed connections.")
            self.finish_fail(R, C, tf + 60, fails)
            R.meta["evidence_kernel"] = True
            return
        if C["device"] == "hpu":
            hl = loc
            R.k(n.idx, tf, f"habanalabs hl{hl}: Device heartbeat failed! PCI link is {rng.choice(['healthy', 'broken'])}")
            R.k(n.idx, tf + 0.01, f"habanalabs hl{hl}: Going to reset device")
            R.k(n.idx, tf + 6, f"habanalabs hl{hl}: Failed to reset device, error -110")
            p = rp(C, r) + " " if rp(C, r) else ""
            R.out(r, tf + 2, "\n".join(p + l for l in [
                f"RuntimeError: [Rank:{r}] FATAL ERROR :: MODULE:PT_DEVICE Device acquire failed. synStatus=synStatus 8 [Device reset].",
                f"[Rank:{r}] Habana exception raised from wait at hpu_stream.cpp:{rng.randint(100, 400)}"]))
            fails = self.victims_peer(R, C, tf + 5, r, "closed", delay=(10, 120))
            fails.setdefault(n.idx, []).append((r, 1, tf + 2.1, None))
            R.set_truth("gpu_hardware", r, n.idx, True, f"Gaudi device hl{hl} on {n.host} lost its firmware heartbeat and failed reset; rank {r} fails, HCCL peers follow.")
            self.finish_fail(R, C, tf + 150, fails)
            R.meta["evidence_kernel"] = True
            return
        xid = rng.choice([79, 79, 119, 154])
        variant = rng.choice(["app_error", "silent"])
        k_xid(R, rng, n.idx, tf, loc, xid, pid=None if xid == 79 else R.pid(r))
        if xid == 79:
            R.k(n.idx, tf + 0.001, f"NVRM: GPU {n.bus[loc]}:00.0: GPU has fallen off the bus.")
            R.k(n.idx, tf + 0.002, f"NVRM: A GPU crash dump has been created. If possible, please run\nNVRM: nvidia-bug-report.sh as root to collect this data before\nNVRM: the NVIDIA kernel module is unloaded.")
        if xid == 154:
            R.k(n.idx, tf - rng.uniform(1, 5), f"NVRM: Xid (PCI:0000:{n.bus[loc]}:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.") if rng.random() < 0.5 else None
        if variant == "app_error":
            err = {79: "unknown error", 119: "unspecified launch failure", 154: "unknown error"}[xid]
            if C["nccl_debug"]:
                R.out(r, tf + 1.1, nccl(R, C, r, f"Cuda failure '{err}'", "WARN", src="include/alloc.h:" + str(rng.choice([48, 124]))))
            nccl_peer_error(R, C, rng, r, tf + 1.2, r, f"Cuda failure 999 '{err}'" if err == "unknown error" else f"Cuda failure 719 '{err}'")
            inferable = True
            fails = self.victims_peer(R, C, tf + 1.3, r, "closed", delay=(1, 30))
            fails.setdefault(n.idx, []).append((r, -6, tf + 1.3, None))
            t_end = tf + 60
        else:
            # the rank on the dead GPU just stops; everyone else times out in the next collective
            fails = self.victims_timeout(R, C, tf, [r], seq)
            inferable = C["nccl_debug"] == "INFO"   # busId -> rank only via the NCCL init lines
            t_end = tf + C["timeout_s"] + 60
            fails.setdefault(n.idx, []).append((r, -6, t_end - 55, None))
        R.meta["evidence_kernel"] = True
        rank = r if inferable else n.first_rank
        R.set_truth("gpu_hardware", rank, n.idx, inferable,
                    f"Xid {xid} on {n.host} GPU PCI {n.bus[loc]} (local rank {loc}); " +
                    ("the rank reports a CUDA failure" if variant == "app_error" else "the rank goes silent and peers hit the NCCL watchdog timeout") + ".")
        self.finish_fail(R, C, t_end, fails)

    def c_ecc_memory(self, R, C, t, tf):
        rng = self.rng
        r = self.pick_culprit(R)
        n = R.node_of(r)
        loc = r - n.first_rank
        run_steps(R, C, rng, t, tf)
        self.maybe_scary(R, C, t, tf)
        p = rp(C, r) + " " if rp(C, r) else ""
        if C["device"] == "rocm":
            R.k(n.idx, tf - 0.2, f"amdgpu 0000:{n.bus[loc]}:00.0: amdgpu: socket: {loc // 4}, die: {loc % 4}, {rng.randint(1, 3)} new uncorrectable hardware errors detected in umc block")
            R.k(n.idx, tf, f"amdgpu 0000:{n.bus[loc]}:00.0: amdgpu: poison is consumed by client {rng.choice([12, 16, 20])}, kick off gpu reset flow")
            R.k(n.idx, tf + 0.1, f"amdgpu 0000:{n.bus[loc]}:00.0: amdgpu: GPU reset begin!")
            R.k(n.idx, tf + 3, f"amdgpu 0000:{n.bus[loc]}:00.0: amdgpu: {rng.randint(1, 4)} new bad pages retired after GPU reset")
            R.out(r, tf + 0.3, f"HW Exception by GPU node-{n.kfd_nodes[loc]} (Agent handle: 0x{hexid(rng, 8)}) reason :GPU Hang")
            fails = self.victims_peer(R, C, tf + 1, r, "closed", delay=(2, 40))
            fails.setdefault(n.idx, []).append((r, -6, tf + 0.4, None))
            R.meta["evidence_kernel"] = True
            R.set_truth("ecc_memory", r, n.idx, True, f"Uncorrectable HBM (umc) error with poison consumption on {n.host} GPU {n.bus[loc]}; rank {r} aborts.")
            self.finish_fail(R, C, tf + 60, fails)
            return
        xid = rng.choice([48, 94, 95, 63, 64])
        if xid in (48, 94, 95):
            txt = {48: "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 5, subpartition 1.",
                   94: "Contained: SM (0x1). RST: No, D-RST: No",
                   95: "Uncontained: FBHUB. RST: Yes, D-RST: No"}[xid]
            k_xid(R, rng, n.idx, tf, loc, xid, pid=R.pid(r), name="python", text=txt)
            if xid == 48:
                k_xid(R, rng, n.idx, tf + 0.02, loc, 63, pid=R.pid(r), text="Row Remapper: New row marked for remapping, reset gpu to activate.")
        else:
            k_xid(R, rng, n.idx, tf, loc, 48, pid=R.pid(r), text="An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 2, subpartition 0.")
            k_xid(R, rng, n.idx, tf + 0.01, loc, xid, pid=R.pid(r),
                  text={63: "Row Remapper: New row marked for remapping, reset gpu to activate.",
                        64: "Row Remapper: Row remapping failed, reset gpu to retry or replace board."}[xid])
        R.meta["evidence_kernel"] = rng.random() < 0.7
        frames = chain(C, rng) + module_frames(C, 1)
        emit_tb(R, C, r, tf + 0.4, frames, [
            "RuntimeError: CUDA error: uncorrectable ECC error encountered",
            "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
            "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
            "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", ""])
        fails = self.victims_peer(R, C, tf + 1, r, "closed", delay=(1, 30))
        fails.setdefault(n.idx, []).append((r, 1, tf + 0.5, None))
        if rng.random() < 0.5:
            R.files[f"diag/{n.host}-nvidia-smi-q-ecc.txt"] = "\n".join([
                f"==============NVSMI LOG==============", "", f"Timestamp                                 : {utc(tf + 900).strftime('%a %b %d %H:%M:%S %Y')}",
                f"Driver Version                            : {rng.choice(['535.183.01', '550.90.07', '560.35.03'])}", "",
                f"GPU 00000000:{n.bus[loc].upper()}:00.0", f"    Product Name                          : NVIDIA {C['gpu']}",
                "    ECC Errors", "        Volatile", "            SRAM Correctable              : 0", "            SRAM Uncorrectable Parity     : 0",
                "            SRAM Uncorrectable SEC-DED    : 0", f"            DRAM Correctable              : {rng.randint(0, 40)}",
                f"            DRAM Uncorrectable            : {rng.randint(1, 4)}", "    Remapped Rows",
                f"        Correctable Error                 : {rng.randint(0, 3)}", f"        Uncorrectable Error               : {rng.randint(1, 4)}",
                "        Pending                           : Yes", f"        Remapping Failure Occurred        : {'Yes' if xid == 64 else 'No'}", ""])
        R.set_truth("ecc_memory", r, n.idx, True, f"Xid {xid} uncorrectable ECC on {n.host} GPU {n.bus[loc]}; rank {r} raises 'uncorrectable ECC error encountered'.")
        self.finish_fail(R, C, tf + 60, fails)

    def c_nvlink(self, R, C, t, tf):
        rng = self.rng
        r = self.pick_culprit(R)
        n = R.node_of(r)
        loc = r - n.first_rank
        run_steps(R, C, rng, t, tf)
        self.maybe_scary(R, C, t, tf)
        link = rng.randint(0, 17)
        variant = rng.choice(["xid74_app", "sxid_hang", "xid74_app"])
        if variant == "xid74_app":
            k_xid(R, rng, n.idx, tf, loc, 74, pid=R.pid(r), text=f"NVLink: fatal error detected on link {link}(0x{hexid(rng, 5)}, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)")
            if C["nccl_debug"]:
                R.out(r, tf + 0.3, nccl(R, C, r, "Cuda failure 'uncorrectable NVLink error detected during the execution'", "WARN", src="enqueue.cc:1548"))
            nccl_peer_error(R, C, rng, r, tf + 0.4, r, "Cuda failure 'uncorrectable NVLink error detected during the execution'")
            fails = self.victims_peer(R, C, tf + 0.5, r, "closed", delay=(0.5, 20))
            fails.setdefault(n.idx, []).append((r, -6, tf + 0.5, None))
            inferable, rank, t_end = True, r, tf + 40
            note = f"Xid 74 NVLink fatal error on {n.host} GPU {n.bus[loc]} link {link}; rank {r} gets an uncorrectable NVLink CUDA error."
        else:
            sw = rng.randint(0, 3)
            R.k(n.idx, tf, f"nvidia-nvswitch{sw}: SXid (PCI:0000:{rng.choice(['05', '06', '07', '08'])}:00.0): 12028, Fatal, Link {rng.randint(0, 63)} egress non-posted PRIV error (First)")
            R.k(n.idx, tf + 0.001, f"nvidia-nvswitch{sw}: SXid (PCI:0000:{rng.choice(['05', '06'])}:00.0): 12028, Severity 1 Engine instance {rng.randint(0, 63)} Sub-engine instance 00")
            R.k(n.idx, tf + 0.002, f"nvidia-nvswitch{sw}: SXid (PCI:0000:{rng.choice(['05', '06'])}:00.0): 12028, Data {{0x{hexid(rng, 8)}, 0x{hexid(rng, 8)}, 0x00000000, 0x00000000}}")
            k_xid(R, rng, n.idx, tf + 0.3, loc, 74, pid=R.pid(r), text=f"NVLink: fatal error detected on link {link}(0x10000, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)")
            seq = C["seq0"] + rng.randint(1000, 90000)
            fails = self.victims_timeout(R, C, tf, [], seq, who=[x for x in range(R.world) if R.node_of(x).idx != n.idx or x != r])
            t_end = tf + C["timeout_s"] + 30
            inferable, rank = False, n.first_rank
            note = f"NVSwitch SXid 12028 fatal + Xid 74 on {n.host}; the NVLink domain stalls and every rank times out (no rank-specific error)."
            fails.setdefault(n.idx, []).append((r, -6, t_end - 25, None))
        R.meta["evidence_kernel"] = True
        R.set_truth("nvlink", rank, n.idx, inferable, note)
        self.finish_fail(R, C, t_end, fails)

    def c_network(self, R, C, t, tf):
        rng = self.rng
        run_steps(R, C, rng, t, tf)
        self.maybe_scary(R, C, t, tf)
        fabric = len(R.nodes) >= 4 and rng.random() < 0.2
        if len(R.nodes) < 2:
            fabric = False
        if fabric:
            hit = rng.sample(range(len(R.nodes)), k=max(2, len(R.nodes) // 2))
            for ni in hit:
                for hca in rng.sample(range(8), 2):
                    R.k(ni, tf + rng.uniform(0, 0.5), f"mlx5_core 0000:{rng.choice(['0c', '1a', '2b', '3c', '9a', 'ab', 'bc', 'cd'])}:00.0: mlx5_port_event:{rng.choice([361, 380])}:(pid 0): Port: 1 Link DOWN")
            R.files["fabric/ufm-events.log"] = "\n".join(
                f"{utc(tf + i * 0.1).strftime('%Y-%m-%d %H:%M:%S.%f')[:-3]} [{rng.randint(100, 999)}] [329] CRITICAL [Hardware] Switch: leaf-{rng.randint(1, 40):02d} ({hexid(rng, 16)}) Module: SW-{rng.randint(1, 2)} status: Fan/PSU failure, switch ports going down"
                for i in range(3)) + "\n"
            fails = {}
            for r in range(R.world):
                ni = R.node_of(r).idx
                tt = tf + rng.uniform(1, 40)
                if C["device"] in ("cuda", "rocm"):
                    peer = rng.choice([x for x in range(R.world) if R.node_of(x).idx != ni] or [0])
                    nccl_peer_error(R, C, rng, r, tt, peer, "ib", short=R.world > 48 and r % 5 != 0)
                else:
                    hccl_victim(R, C, rng, r, tt, 0, "socket")
                fails.setdefault(ni, []).append((r, -6, tt, None))
            R.meta["evidence_kernel"] = True
            R.set_truth("network", None, None, True, "Leaf switch failure takes IB ports down on many nodes at once (fabric-wide); all ranks report IB completion errors.")
            self.finish_fail(R, C, tf + 80, fails)
            return
        ni = rng.randrange(1, len(R.nodes)) if len(R.nodes) > 1 else 0
        n = R.nodes[ni]
        kind = rng.choice(["ib_down", "roce", "efa", "cable"]) if C["device"] in ("cuda", "rocm") else "roce"
        if R.meta.get("pf") == "aws" or n.host.startswith("ip-") or "dy-p5" in n.host or "dy-p4d" in n.host:
            kind = "efa" if C["device"] == "cuda" else kind
        hca = rng.randint(0, 7)
        if kind == "ib_down":
            R.k(ni, tf, f"mlx5_core 0000:{rng.choice(['0c', '1a', '9a', 'bc'])}:00.0: mlx5_port_event:{rng.choice([361, 380])}:(pid 0): Port: 1 Link DOWN")
            R.k(ni, tf + 0.002, f"mlx5_core 0000:{rng.choice(['0c', '1a'])}:00.0: mlx5_{hca}: Port: 1 Link DOWN") if rng.random() < 0.3 else None
        elif kind == "cable":
            R.k(ni, tf, f"mlx5_core 0000:{rng.choice(['0c', '1a', '9a'])}:00.0: mlx5_port_module_event:{rng.choice([1151, 1162])}:(pid 0): Port module event[error]: module {hca}, Cable error, High Temperature")
            R.k(ni, tf + 0.01, f"mlx5_core 0000:{rng.choice(['0c', '1a'])}:00.0: mlx5_port_event:361:(pid 0): Port: 1 Link DOWN")
        elif kind == "roce":
            if C["device"] == "npu":
                R.files[f"diag/{n.host}-hccn_tool-link.txt"] = "\n".join(
                    f"# hccn_tool -i {d} -link -g\nlink status: {'DOWN' if d == hca else 'UP'}" for d in range(R.gpn)) + "\n"
            else:
                R.k(ni, tf, f"bnxt_en 0000:{rng.choice(['2a', '41', '9d'])}:00.0 enp{rng.randint(40, 220)}s0np0: NIC Link is Down")
        elif kind == "efa":
            R.k(ni, tf, f"efa 0000:{rng.choice(['10:1c', '20:1d', '30:1b'])}.0: Communication timeout, admin queue stuck? (cq {rng.randint(1, 9)} not progressing)")
            R.k(ni, tf + 5, f"efa 0000:10:1c.0: Failed to process command {rng.choice(['CREATE_QP', 'MODIFY_QP'])} (opcode {rng.randint(1, 20)}) comp_status 7 err -110")
        # ranks on the broken node see local failures, others see errors naming that node's IP
        fails = {}
        for r in range(R.world):
            rni = R.node_of(r).idx
            tt = tf + rng.uniform(0.5, 25)
            if C["device"] in ("cuda", "rocm"):
                if rni == ni:
                    peer = rng.choice([x for x in range(R.world) if R.node_of(x).idx != ni] or [0])
                    if kind == "efa":
                        R.out(r, tt - 0.01, nccl(R, C, r, f"NET/OFI Request completed with error. RC: 5. Error: 2 (unknown error). Completed length: 0, Request: {{ dev: {hca}, size: 0, state: CREATED, type: SEND }}", "WARN", src="nccl_ofi_rdma.c:" + str(rng.randint(1300, 1900))) if C["nccl_debug"] else "")
                    nccl_peer_error(R, C, rng, r, tt, peer, "ib" if kind != "efa" else "closed", short=R.world > 48 and r % 5 != 0)
                else:
                    victim_of = rng.choice(n.ranks)
                    nccl_peer_error(R, C, rng, r, tt, victim_of, "ib" if kind in ("ib_down", "cable") else "closed", short=R.world > 48 and r % 5 != 0)
            else:
                hccl_victim(R, C, rng, r, tt, rng.choice(n.ranks) if rni != ni else rng.choice(R.nodes[0].ranks), "socket")
            fails.setdefault(rni, []).append((r, -6, tt, None))
        R.meta["evidence_kernel"] = True
        R.set_truth("network", n.first_rank, ni, True,
                    f"{ {'ib_down': 'IB port link down', 'cable': 'IB cable/module error', 'roce': 'RoCE NIC link down', 'efa': 'EFA device timeout'}[kind] } on {n.host}; collectives fail with network errors pointing at that node.")
        self.finish_fail(R, C, tf + 60, fails)

    def c_host_oom_kill(self, R, C, t, tf):
        rng = self.rng
        r = self.pick_culprit(R)
        n = R.node_of(r)
        run_steps(R, C, rng, t, tf)
        self.maybe_scary(R, C, t, tf)
        variant = rng.choice(["main", "main", "dlworker"])
        cg = None
        if R.meta.get("operator"):
            cg = f"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod{hexid(rng, 8)}_{hexid(rng, 4)}_{hexid(rng, 4)}.slice/cri-containerd-{hexid(rng, 64)}.scope"
        fails = {}
        if variant == "main":
            k_oom(R, rng, n.idx, tf, R.pid(r), "python" if rng.random() < 0.6 else "pt_main_thread", cg)
            R.ev(tf + 0.5, "oom_kill", n.idx, pid=R.pid(r), rss=rng.randint(10 ** 8, 4 * 10 ** 8), vm=rng.randint(10 ** 9, 2 * 10 ** 9))
            fails = self.victims_peer(R, C, tf, r, "closed", delay=(0.5, 30), skip_nodes=())
            fails.setdefault(n.idx, [])
            fails[n.idx] = [f for f in fails[n.idx] if f[0] != r] + [(r, -9, tf, None)]
            note = f"Linux OOM killer ({'cgroup' if cg else 'global'}) killed rank {r}'s process (pid {R.pid(r)}) on {n.host}."
        else:
            wpid = R.pid(r) + rng.randint(50, 400)
            k_oom(R, rng, n.idx, tf, wpid, "pt_data_worker" if rng.random() < 0.5 else "python", cg, rss_gb=rng.uniform(30, 120))
            R.ev(tf + 0.5, "oom_kill", n.idx, pid=wpid, rss=rng.randint(10 ** 7, 10 ** 8), vm=rng.randint(10 ** 8, 10 ** 9))
            frames = chain(C, rng) + [(f"{site(C)}/torch/utils/data/dataloader.py", 701, "__next__", "data = self._next_data()"),
                                      (f"{site(C)}/torch/utils/data/dataloader.py", 1448, "_next_data", "idx, data = self._get_data()"),
                                      (f"{site(C)}/torch/utils/data/dataloader.py", 1412, "_get_data", "success, data = self._try_get_data()"),
                                      (f"{site(C)}/torch/utils/data/dataloader.py", 1256, "_try_get_data", "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e")]
            emit_tb(R, C, r, tf + 2, frames, [f"RuntimeError: DataLoader worker (pid(s) {wpid}) exited unexpectedly", ""])
            R.out(r, tf + 1.9, f"{rp(C, r)} ERROR: Unexpected segmentation fault encountered in worker." if False else
                  f"RuntimeError: DataLoader worker (pid {wpid}) is killed by signal: Killed. ")
            fails = self.victims_peer(R, C, tf + 2, r, "closed", delay=(0.5, 30))
            fails.setdefault(n.idx, []).append((r, 1, tf + 2.1, None))
            note = f"OOM killer killed a DataLoader worker (pid {wpid}) of rank {r} on {n.host}; the rank raises and peers fail."
        R.meta["evidence_kernel"] = True
        if R.meta.get("operator"):
            R.meta["pod_status"] = {n.idx: "OOMKilled" if variant == "main" else "Error"}
            R.meta["describe"] = {"node": n.idx, "reason": "OOMKilled" if variant == "main" else "Error", "code": 137 if variant == "main" else 1, "t": tf + 40}
        R.set_truth("host_oom_kill", r, n.idx, True, note)
        self.finish_fail(R, C, tf + 60, fails)

    def c_cuda_oom(self, R, C, t, tf):
        rng = self.rng
        r = self.pick_culprit(R)
        n = R.node_of(r)
        loc = r - n.first_rank
        run_steps(R, C, rng, t, tf)
        self.maybe_scary(R, C, t, tf)
        tot = {"cuda": 79.10, "rocm": 191.98}.get(C["device"], 79.1)
        free = rng.uniform(0.05, 1.9)
        alloc = rng.choice([0.5, 1.0, 1.5, 2.0, 3.5, 7.8, 12.0])
        used = tot - free
        byp = used * rng.uniform(0.85, 0.97)
        frames = chain(C, rng) + module_frames(C, 2) + [
            (f"{site(C)}/transformers/models/llama/modeling_llama.py", rng.randint(300, 700), "forward",
             "attn_weights = torch.matmul(query_states, key_states.transpose(2, 3)) / math.sqrt(self.head_dim)")]
        if C["device"] in ("cuda", "rocm"):
            lab = "CUDA" if C["device"] == "cuda" else "HIP"
            env = "PYTORCH_CUDA_ALLOC_CONF" if C["device"] == "cuda" else "PYTORCH_HIP_ALLOC_CONF"
            exc = [f"torch.OutOfMemoryError: {lab} out of memory. Tried to allocate {alloc:.2f} GiB. GPU {loc} has a total capacity of {tot:.2f} GiB of which {free * 1024:.2f} MiB is free. "
                   f"Process {R.pid(r)} has {used:.2f} GiB memory in use. Of the allocated memory {byp:.2f} GiB is allocated by PyTorch, and {used - byp - 0.4:.2f} GiB is reserved by PyTorch but unallocated. "
                   f"If reserved but unallocated memory is large try setting {env}=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"]
            if C["tv"] < 23:
                exc = [e.replace("torch.OutOfMemoryError", "torch.cuda.OutOfMemoryError") for e in exc]
        elif C["device"] == "hpu":
            exc = [f"RuntimeError: [Rank:{r}] FATAL ERROR :: MODULE:PT_DEVMEM Allocation failed for size::{int(alloc * 2 ** 30)} ({alloc * 1024:.0f})MB"]
        else:
            exc = [f"RuntimeError: NPU out of memory. Tried to allocate {alloc:.2f} GiB (NPU {loc}; {tot - 15:.2f} GiB total capacity; {used - 15:.2f} GiB already allocated; {used - 15:.2f} GiB current active; {free:.2f} GiB free; {used - 14:.2f} GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation."]
        emit_tb(R, C, r, tf, frames, exc + [""])
        fails = self.victims_peer(R, C, tf, r, "closed", delay=(1, 30))
        fails.setdefault(n.idx, []).append((r, 1, tf + 0.2, None))
        R.set_truth("cuda_oom", r, n.idx, True, f"Rank {r} on {n.host} runs out of device memory (tried {alloc:.2f} GiB) after a long sequence batch.")
        self.finish_fail(R, C, tf + 50, fails)

    def c_illegal_memory_access(self, R, C, t, tf):
        rng = self.rng
        r = self.pick_culprit(R)
        n = R.node_of(r)
        loc = r - n.first_rank
        run_steps(R, C, rng, t, tf)
        self.maybe_scary(R, C, t, tf)
        if C["device"] == "rocm":
            addr = hexid(rng, 12)
            R.out(r, tf, f"Memory access fault by GPU node-{n.kfd_nodes[loc]} (Agent handle: 0x{hexid(rng, 8)}) on address 0x{addr[:-3]}000. Reason: Page not present or supervisor privilege.")
            R.k(n.idx, tf - 0.01, f"amdgpu 0000:{n.bus[loc]}:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:40 vmid:{rng.randint(1, 15)} pasid:{rng.randint(32768, 33000)}, for process python pid {R.pid(r)} thread python pid {R.pid(r)})")
            R.k(n.idx, tf - 0.009, f"amdgpu 0000:{n.bus[loc]}:00.0: amdgpu:   in page starting at address 0x0000{addr[:-3]}000 from client 10")
            R.k(n.idx, tf - 0.008, f"amdgpu 0000:{n.bus[loc]}:00.0: amdgpu: VM_L2_PROTECTION_FAULT_STATUS:0x00{rng.choice(['301031', '341051'])}")
            ec = -6
        else:
            frames = chain(C, rng) + module_frames(C, 1) + [(f"{site(C)}/torch/nn/functional.py", 2267, "embedding", "return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)")]
            emit_tb(R, C, r, tf + 0.1, frames, [
                "RuntimeError: CUDA error: an illegal memory access was encountered",
                "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
                "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
                "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", ""])
            if rng.random() < 0.6:
                k_xid(R, rng, n.idx, tf - 0.05, loc, 31, pid=R.pid(r), name="python",
                      text=f"Ch 0000000{rng.randint(8, 9)}, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_{rng.randint(0, 7)} faulted @ 0x7f{hexid(rng, 2)}_{hexid(rng, 8)}. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ")
            ec = 1
        fails = self.victims_peer(R, C, tf + 0.5, r, "closed", delay=(0.5, 25))
        fails.setdefault(n.idx, []).append((r, ec, tf + 0.2, None))
        R.set_truth("illegal_memory_access", r, n.idx, True, f"Rank {r} on {n.host} faults with an illegal device memory access (custom kernel / bad index).")
        self.finish_fail(R, C, tf + 45, fails)

    def c_python_exception(self, R, C, t, tf):
        rng = self.rng
        r = self.pick_culprit(R)
        n = R.node_of(r)
        run_steps(R, C, rng, t, tf)
        self.maybe_scary(R, C, t, tf)
        sp = site(C)
        kind = rng.choice(["keyerror", "json", "shape", "file", "assert", "zerodiv"])
        dl = [(f"{sp}/torch/utils/data/dataloader.py", 701, "__next__", "data = self._next_data()"),
              (f"{sp}/torch/utils/data/dataloader.py", 1465, "_next_data", "return self._process_data(data)"),
              (f"{sp}/torch/utils/data/dataloader.py", 1491, "_process_data", "data.reraise()"),
              (f"{sp}/torch/_utils.py", 715, "reraise", "raise exception")]
        if kind == "keyerror":
            w = rng.randint(0, 7)
            exc = [f"KeyError: Caught KeyError in DataLoader worker process {w}.", "Original Traceback (most recent call last):",
                   f'  File "{sp}/torch/utils/data/_utils/worker.py", line 351, in _worker_loop', "    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]",
                   f'  File "{sp}/torch/utils/data/_utils/fetch.py", line 52, in fetch', "    data = [self.dataset[idx] for idx in possibly_batched_index]",
                   f'  File "{C["root"]}/data/sft_dataset.py", line {rng.randint(40, 200)}, in __getitem__', "    conv = sample[\"conversations\"]",
                   "KeyError: 'conversations'", ""]
            frames = chain(C, rng)[:2] + dl
        elif kind == "json":
            frames = chain(C, rng)[:2] + dl
            exc = [f"json.decoder.JSONDecodeError: Caught JSONDecodeError in DataLoader worker process 1.", "Original Traceback (most recent call last):",
                   f'  File "{C["root"]}/data/jsonl_dataset.py", line {rng.randint(30, 90)}, in __getitem__', "    return json.loads(self.lines[idx])",
                   "json.decoder.JSONDecodeError: Unterminated string starting at: line 1 column 4091 (char 4090)", ""]
        elif kind == "shape":
            frames = chain(C, rng) + [(f"{sp}/torch/utils/data/_utils/collate.py", 211, "collate_tensor_fn", "return torch.stack(batch, 0, out=out)")]
            exc = [f"RuntimeError: stack expects each tensor to be equal size, but got [{rng.choice([2048, 4096])}] at entry 0 and [{rng.choice([2047, 4095, 4097])}] at entry {rng.randint(1, 15)}", ""]
        elif kind == "file":
            frames = chain(C, rng)[:2] + [(f"{C['root']}/data/shards.py", rng.randint(50, 150), "open_shard", "with open(path, 'rb') as f:")]
            exc = [f"FileNotFoundError: [Errno 2] No such file or directory: '/datasets/pile/train/shard-{rng.randint(0, 30000):05d}.bin'", ""]
        elif kind == "assert":
            frames = chain(C, rng) + [(f"{C['root']}/model/moe.py", rng.randint(100, 400), "forward", "assert tokens_per_expert.sum() == x.shape[0], \"router dropped tokens\"")]
            exc = ["AssertionError: router dropped tokens", ""]
        else:
            frames = chain(C, rng)[:2] + [(f"{C['root']}/utils/metrics.py", rng.randint(20, 90), "tokens_per_sec", "return n_tokens / (t1 - t0)")]
            exc = ["ZeroDivisionError: float division by zero", ""]
        emit_tb(R, C, r, tf, frames, exc)
        fails = self.victims_peer(R, C, tf, r, "closed", delay=(1, 30)) if rng.random() < 0.6 or C["device"] not in ("cuda", "rocm") else \
            self.victims_timeout(R, C, tf, [r], C["seq0"] + rng.randint(100, 9000))
        fails.setdefault(n.idx, [])
        fails[n.idx] = [f for f in fails[n.idx] if f[0] != r] + [(r, 1, tf + 0.1, None)]
        t_end = max(f[2] for fl in fails.values() for f in fl) + 20
        R.set_truth("python_exception", r, n.idx, True, f"Rank {r} on {n.host} raises {exc[0].split(':')[0]} from user/data code; the others lose their peer.")
        self.finish_fail(R, C, t_end, fails)

    def c_crash_signal(self, R, C, t, tf):
        rng = self.rng
        r = self.pick_culprit(R)
        n = R.node_of(r)
        run_steps(R, C, rng, t, tf)
        self.maybe_scary(R, C, t, tf)
        sig = rng.choice([11, 11, 6, 7])
        variant = rng.choice(["faulthandler", "silent", "abort"]) if sig != 6 else "abort"
        sp = site(C)
        if sig == 11:
            lib = rng.choice(["libflash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so", "libtransformer_engine.so", "_C.cpython-310-x86_64-linux-gnu.so", "libnccl.so.2"])
            R.k(n.idx, tf, f"pt_main_thread[{R.pid(r)}]: segfault at {rng.choice(['0', '8', '10', '7f' + hexid(rng, 10)])} ip 00007f{hexid(rng, 10)} sp 00007ff{hexid(rng, 9)} error {rng.choice([4, 6])} in {lib}[7f{hexid(rng, 7)}000+{hexid(rng, 6)}] likely on CPU {rng.randint(0, 127)} (core {rng.randint(0, 63)}, socket {rng.randint(0, 1)})")
        if variant == "faulthandler":
            name = {11: "Segmentation fault", 7: "Bus error", 6: "Aborted"}[sig]
            R.out(r, tf, "\n".join([f"Fatal Python error: {name}", "", f"Thread 0x00007f{hexid(rng, 8)} (most recent call first):",
                                    f'  File "{sp}/torch/nn/modules/linear.py", line 125 in forward',
                                    f'  File "{sp}/torch/nn/modules/module.py", line 1747 in _call_impl',
                                    f'  File "{sp}/torch/nn/modules/module.py", line 1736 in _wrapped_call_impl',
                                    f'  File "{C["root"]}/model/layers.py", line {rng.randint(40, 300)} in forward', "  ...", "",
                                    "Extension modules: numpy.core._multiarray_umath, torch._C, torch._C._dynamo.autograd_compiler, torch._C._fft, psutil._psutil_linux (total: 41)"]))
        elif variant == "abort":
            msg = rng.choice(["double free or corruption (!prev)", "free(): invalid pointer", "corrupted size vs. prev_size"])
            if sig == 6:
                R.out(r, tf, msg)
            else:
                R.out(r, tf, f"*** Error in `python': {msg}") if rng.random() < 0.3 else None
                sig = 6
                R.out(r, tf, msg)
        fails = self.victims_peer(R, C, tf, r, "closed", delay=(0.3, 25))
        fails.setdefault(n.idx, [])
        fails[n.idx] = [f for f in fails[n.idx] if f[0] != r] + [(r, -sig, tf, None)]
        R.set_truth("crash_signal", r, n.idx, True, f"Rank {r} on {n.host} dies from signal {sig} in native code (no hardware fault logged).")
        self.finish_fail(R, C, tf + 40, fails)

    def c_hang(self, R, C, t, tf):
        rng = self.rng
        r = self.pick_culprit(R)
        n = R.node_of(r)
        run_steps(R, C, rng, t, tf)
        self.maybe_scary(R, C, t, tf)
        seq = C["seq0"] + rng.randint(1000, 90000)
        if C["device"] == "npu":
            fails = {}
            for x in range(R.world):
                if x == r:
                    continue
                tt = tf + 1800 + rng.uniform(0, 3)
                hccl_victim(R, C, rng, x, tt, r, "notify")
                fails.setdefault(R.node_of(x).idx, []).append((x, 1, tt, None))
            R.set_truth("hang", r, n.idx, True, f"Rank {r} on {n.host} stops issuing collectives; the other NPUs hit the HCCL notify-wait timeout (EI0002) naming remote rank {r}.")
            self.finish_fail(R, C, tf + 1860, fails)
            return
        ev = rng.choice(["desync", "monitored", "pyspy", "enq"])
        others = [x for x in range(R.world) if x != r]
        fails = self.victims_timeout(R, C, tf, [r], seq)
        tt = tf + C["timeout_s"] + 1
        if ev == "desync":
            for x in others[: min(len(others), 6)]:
                R.out(x, tt + rng.uniform(0.1, 2), c10(R, C, x, tt, "E", "ProcessGroupNCCL.cpp:1620",
                                                      f"[Rank {x}] Received a timeout signal from this local rank and will start to dump the debug info. Last enqueued NCCL work: {seq}, last completed NCCL work: {seq - 1}."))
            R.out(0, tt + 3, c10(R, C, 0, tt + 3, "E", "ProcessGroupNCCL.cpp:1680",
                                 f"[Rank 0] Timeout at NCCL work: {seq}, last enqueued NCCL work: {seq}, last completed NCCL work: {seq - 1}.\n"
                                 f"{rp(C, 0)}[E ProcessGroupNCCL.cpp:555] [Rank 0] Desync debugging report:\n\t - To our best knowledge, the lagging/dead/mismatched ranks that caused the desync are:\n\t   - [{r}] joined but didn't finish collective #{seq} (count from 1)\n\t - Snapshot of ranks' latest states:\n\t   #{seq} finished ranks:\n\t     [{', '.join(str(x) for x in others[:12])}{', ...' if len(others) > 12 else ''}] finished collective #{seq - 1}, but didn't join collective #{seq}" if False else
                                 f"[Rank 0] Desync debugging report: To our best knowledge, the lagging/dead/mismatched ranks that caused the desync are: [{r}] did not join collective #{seq} (count from 1). All other ranks joined collective #{seq} but could not finish it."))
            inferable = True
        elif ev == "monitored":
            R.out(0, tt - C["timeout_s"] + rng.uniform(300, C["timeout_s"] - 5) if C["timeout_s"] > 400 else tt - 2,
                  f"{rp(C, 0)} RuntimeError: [Rank 0]: Ranks {r} failed to pass monitoredBarrier in 300000 ms")
            inferable = True
        elif ev == "pyspy":
            sp = site(C)
            R.files[f"debug/py-spy-dump-rank{r}.txt"] = "\n".join([
                f"Process {R.pid(r)}: /usr/bin/python -u {C['script']} --config cfg.yaml", "Python v3.10.12 (/usr/bin/python3.10)", "",
                f"Thread {R.pid(r)} (idle): \"MainThread\"", f"    wait (threading.py:324)", "    acquire (threading.py:??)" if False else "    get (queue.py:180)",
                f"    _drain (async_checkpoint.py:{rng.randint(40, 120)})", f"    maybe_save ({C['root']}/utils/ckpt.py:{rng.randint(50, 200)})",
                f"    train ({C['root']}/{C['script']}:{rng.randint(200, 600)})", f"    <module> ({C['root']}/{C['script']}:{rng.randint(600, 800)})",
                f"Thread {R.pid(r) + 211} (idle): \"Thread-3 (_save_worker)\"", "    wait (threading.py:320)", "    acquire (threading.py:??)" if False else "    __enter__ (threading.py:272)",
                f"    _save_worker (async_checkpoint.py:{rng.randint(130, 190)})", "    run (threading.py:953)", ""])
            healthy = others[0]
            R.files[f"debug/py-spy-dump-rank{healthy}.txt"] = "\n".join([
                f"Process {R.pid(healthy)}: /usr/bin/python -u {C['script']} --config cfg.yaml", "Python v3.10.12 (/usr/bin/python3.10)", "",
                f"Thread {R.pid(healthy)} (active): \"MainThread\"", f"    all_reduce ({site(C)}/torch/distributed/distributed_c10d.py:2501)",
                f"    wrapper ({site(C)}/torch/distributed/c10d_logger.py:83)", f"    reduce_grads ({C['root']}/utils/dist.py:{rng.randint(20, 90)})",
                f"    train ({C['root']}/{C['script']}:{rng.randint(200, 600)})", ""])
            inferable = True
        else:
            # the stuck rank never enqueued #seq; with TORCH_NCCL_ENABLE_MONITORING its heartbeat monitor fires
            tt2 = tf + C["timeout_s"] + rng.uniform(60, 480)
            R.out(r, tt2, c10(R, C, r, tt2, "E", "ProcessGroupNCCL.cpp:1415",
                              f"[PG ID 0 PG GUID 0(default_pg) Rank {r}] Heartbeat monitor timed out! Process will be terminated after dumping debug info. workMetaList_.size()=0" if C["tv"] >= 24 else
                              f"[Rank {r}] Heartbeat monitor timed out! Process will be terminated after dumping debug info. workMetaList_.size()=0"))
            R.out(r, tt2 + 0.1, c10(R, C, r, tt2, "E", "ProcessGroupNCCL.cpp:1464",
                                    f"[Rank {r}] ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued collectives. This typically indicates a NCCL/CUDA API (e.g., CudaEventDestroy) hang blocking the watchdog, and could be triggered by another thread holding the GIL inside a CUDA api (for example, CudaEventDestroy), or other deadlock-prone behaviors.If you suspect the watchdog is not actually stuck and a longer timeout would help, you can either increase the timeout (TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC) to a larger value or disable the heartbeat monitor (TORCH_NCCL_ENABLE_MONITORING=0).If either of aforementioned helps, feel free to file an issue to PyTorch about the short timeout or behavior, but please first check if the issue is with NCCL/CUDA API (e.g., CudaEventDestroy) hang."))
            inferable = True
        fails.setdefault(n.idx, []).append((r, -15 if ev != "enq" else -6, tt + 5, None))
        R.set_truth("hang", r, n.idx, inferable, f"Rank {r} on {n.host} stops making progress (deadlock outside NCCL); the other ranks hit the watchdog timeout on collective #{seq}" + {"desync": "; desync report names it.", "monitored": "; monitored_barrier names it.", "pyspy": "; py-spy dump shows it blocked.", "enq": "; its heartbeat monitor fires with no enqueued work."}[ev])
        self.finish_fail(R, C, tt + 60, fails)

    def c_collective_mismatch(self, R, C, t, tf):
        rng = self.rng
        r = self.pick_culprit(R)
        n = R.node_of(r)
        run_steps(R, C, rng, t, tf)
        seq = C["seq0"] + rng.randint(1000, 90000)
        variant = rng.choice(["detail_op", "detail_shape", "timeout_ops"])
        fails = {}
        if variant.startswith("detail"):
            shape = [rng.choice([4096, 8192, 5120]), rng.choice([1024, 4096, 14336])]
            bad = list(shape)
            bad[0] -= rng.randint(1, 64)
            def fp(op, sh):
                return (f"CollectiveFingerPrint(SequenceNumber={seq}, OpType={op}, TensorShape=[{', '.join(map(str, sh))}], TensorDtypes=BFloat16, "
                        f"TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))")
            good_fp = fp("ALLREDUCE", shape)
            bad_fp = fp("ALLGATHER" if variant == "detail_op" else "ALLREDUCE", bad if variant == "detail_shape" else shape)
            sp = site(C)
            for x in range(R.world):
                tt = tf + rng.uniform(0.01, 0.8)
                if R.world > 64 and x % 9 and x != r:
                    continue
                mine, other, oth_r = (bad_fp, good_fp, 0 if r != 0 else 1) if x == r else (good_fp, bad_fp, r)
                frames = chain(C, rng)[:3] + [(f"{sp}/torch/distributed/c10d_logger.py", 83, "wrapper", "return func(*args, **kwargs)"),
                                              (f"{sp}/torch/distributed/distributed_c10d.py", 2501, "all_reduce", "work = group.allreduce([tensor], opts)")]
                emit_tb(R, C, x, tt, frames, [f"RuntimeError: Detected mismatch between collectives on ranks. Rank {x} is running collective: {mine}, but Rank {oth_r} is running collective: {other}."
                                               f"Collectives differ in the following aspects: \t{'Op type: ALLGATHERvs ALLREDUCE' if variant == 'detail_op' else 'Tensor Tensor shapes: ' + str(bad) + 'vs ' + str(shape)}", ""])
                fails.setdefault(R.node_of(x).idx, []).append((x, 1, tt + 0.1, None))
            note = f"TORCH_DISTRIBUTED_DEBUG=DETAIL: rank {r} on {n.host} issues a {'different collective (ALLGATHER vs ALLREDUCE)' if variant == 'detail_op' else 'differently-sized all_reduce'} at seq {seq}."
            t_end = tf + 30
        else:
            # no DETAIL: everyone times out; only the stuck work descriptors differ
            for x in range(R.world):
                tt = tf + C["timeout_s"] + rng.uniform(0, 3)
                if x == r:
                    watchdog_timeout(R, C, rng, x, tt, seq, "ALLGATHER", numel=C.setdefault("numel", 262144) * 2, short=R.world > 48 and x % 7 != 0)
                else:
                    watchdog_timeout(R, C, rng, x, tt, seq, "ALLREDUCE", short=R.world > 48 and x % 7 != 0)
                fails.setdefault(R.node_of(x).idx, []).append((x, -6, tt, None))
            if rng.random() < 0.6:
                R.files["debug/fr_trace_analysis.txt"] = "\n".join([
                    f"$ python -m torch.distributed.flight_recorder.fr_trace /shared/nccl_trace_rank_ -j",
                    f"Collective {seq} at entry {rng.randint(500, 2000)} error",
                    f"  Culprit rank {r}; Error type: COLLECTIVE_TYPE_MISMATCH, Expected collective type: 'nccl:all_reduce' does not match found collective type: 'nccl:all_gather'",
                    f"  Expected ranks: {{0, ..., {R.world - 1}}}", ""])
            note = f"Rank {r} on {n.host} enters ALLGATHER while all others enter ALLREDUCE at seq {seq}; everyone hangs until the watchdog fires (odd OpType only on rank {r})."
            t_end = tf + C["timeout_s"] + 40
        R.set_truth("collective_mismatch", r, n.idx, True, note)
        self.finish_fail(R, C, t_end, fails)

    def c_data_loader_stall(self, R, C, t, tf):
        rng = self.rng
        r = self.pick_culprit(R)
        n = R.node_of(r)
        run_steps(R, C, rng, t, tf)
        self.maybe_scary(R, C, t, tf)
        seq = C["seq0"] + rng.randint(1000, 90000)
        sp = site(C)
        ev = rng.choice(["dl_timeout", "faulthandler", "nfs_pyspy"])
        if C["device"] == "npu":
            ev = "dl_timeout"
        fails = {}
        if ev == "dl_timeout":
            dto = rng.choice([120, 300, 600])
            if C["device"] in ("cuda", "rocm"):
                C["timeout_s"] = max(C["timeout_s"], dto + 600)
            frames = chain(C, rng)[:2] + [(f"{sp}/torch/utils/data/dataloader.py", 701, "__next__", "data = self._next_data()"),
                                          (f"{sp}/torch/utils/data/dataloader.py", 1448, "_next_data", "idx, data = self._get_data()"),
                                          (f"{sp}/torch/utils/data/dataloader.py", 1399, "_get_data", "success, data = self._try_get_data()"),
                                          (f"{sp}/torch/utils/data/dataloader.py", 1256, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e")]
            emit_tb(R, C, r, tf + dto, frames, [f"RuntimeError: DataLoader timed out after {dto} seconds", ""])
            fails = self.victims_peer(R, C, tf + dto, r, "closed", delay=(1, 20))
            fails.setdefault(n.idx, []).append((r, 1, tf + dto + 0.2, None))
            t_end = tf + dto + 60
        else:
            fails = self.victims_timeout(R, C, tf, [r], seq)
            t_end = tf + C["timeout_s"] + 40
            if ev == "faulthandler":
                lab = rp(C, r)
                tdump = tf + 900
                if tdump < t_end - 30:
                    R.out(r, tdump, "\n".join([f"Timeout (0:15:00)!", f"Thread 0x00007f{hexid(rng, 8)} (most recent call first):",
                                               '  File "/usr/lib/python3.10/threading.py", line 324 in wait',
                                               '  File "/usr/lib/python3.10/multiprocessing/queues.py", line 113 in get',
                                               f'  File "{sp}/torch/utils/data/dataloader.py", line 1133 in _try_get_data',
                                               f'  File "{sp}/torch/utils/data/dataloader.py", line 1294 in _get_data',
                                               f'  File "{sp}/torch/utils/data/dataloader.py", line 1332 in _next_data',
                                               f'  File "{sp}/torch/utils/data/dataloader.py", line 701 in __next__',
                                               f'  File "{C["root"]}/{C["script"]}", line {rng.randint(200, 600)} in train']))
                    R.meta["need_rank_attribution"] = r
                else:
                    ev = "nfs_pyspy"
            if ev == "nfs_pyspy":
                srv = rng.choice(["nas01", "vast-data-vip", "10.20.0.5", "fsx-lustre"])
                if "lustre" in srv:
                    for i in range(3):
                        R.k(n.idx, tf + i * 40, f"LustreError: 11-0: scratch-OST00{rng.randint(10, 99)}-osc-ffff{hexid(rng, 12)}: operation ost_read to node 10.20.0.{rng.randint(2, 90)}@o2ib failed: rc = -107")
                    R.k(n.idx, tf + 200, f"Lustre: scratch-OST00{rng.randint(10, 99)}-osc-ffff{hexid(rng, 12)}: Connection to scratch-OST0012 (at 10.20.0.{rng.randint(2, 90)}@o2ib) was lost; in progress operations using this service will wait for recovery to complete")
                else:
                    for i in range(4):
                        R.k(n.idx, tf + 30 + i * 180, f"nfs: server {srv} not responding, still trying")
                    R.k(n.idx, tf + 240, f"INFO: task pt_data_worker:{R.pid(r) + 300} blocked for more than 122 seconds.")
                    R.k(n.idx, tf + 240.001, f"      Tainted: P           OE      5.15.0-{rng.randint(80, 130)}-generic #{rng.randint(80, 140)}-Ubuntu")
                    R.k(n.idx, tf + 240.002, "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.")
                R.files[f"debug/py-spy-dump-rank{r}.txt"] = "\n".join([
                    f"Process {R.pid(r)}: /usr/bin/python -u {C['script']}", "Python v3.10.12 (/usr/bin/python3.10)", "",
                    f"Thread {R.pid(r)} (idle): \"MainThread\"", "    wait (threading.py:324)", "    get (multiprocessing/queues.py:113)",
                    f"    _try_get_data ({sp}/torch/utils/data/dataloader.py:1133)", f"    _get_data ({sp}/torch/utils/data/dataloader.py:1294)",
                    f"    _next_data ({sp}/torch/utils/data/dataloader.py:1332)", f"    __next__ ({sp}/torch/utils/data/dataloader.py:701)",
                    f"    train ({C['root']}/{C['script']}:{rng.randint(200, 600)})", "",
                    f"Process {R.pid(r) + 300}: pt_data_worker", f"Thread {R.pid(r) + 300} (idle): \"MainThread\"",
                    "    read (<frozen io>:??)" if False else "    readinto (socket.py:705)" if "lustre" in srv else "    read (genericpath.py:??)" if False else "    _read_shard (data/shards.py:88)",
                    f"    __getitem__ ({C['root']}/data/shards.py:131)", f"    fetch ({sp}/torch/utils/data/_utils/fetch.py:52)",
                    f"    _worker_loop ({sp}/torch/utils/data/_utils/worker.py:351)", ""])
                R.meta["evidence_kernel"] = True
        fails.setdefault(n.idx, []).append((r, -15, t_end - 30, None))
        R.set_truth("data_loader_stall", r, n.idx, True,
                    f"Rank {r} on {n.host} blocks in its DataLoader ({ {'dl_timeout': 'DataLoader timeout fires', 'faulthandler': 'faulthandler dump shows _try_get_data', 'nfs_pyspy': 'shared filesystem stalls; py-spy shows the worker stuck reading'}[ev] }); peers time out.")
        self.finish_fail(R, C, t_end, fails)

    def c_preemption(self, R, C, t, tf):
        rng = self.rng
        run_steps(R, C, rng, t, tf)
        self.maybe_scary(R, C, t, tf)
        pf = R.meta.get("pf")
        single = pf in ("k8s", "ray", "sagemaker") and len(R.nodes) > 1 and rng.random() < 0.6
        if pf == "k8s" and R.meta.get("cloud") == "aks":
            single = False
        fails = {}
        if single:
            ni = rng.randrange(1, len(R.nodes))
            n = R.nodes[ni]
            R.ev(tf, "node_preempt", ni)
            for r in n.ranks:
                fails.setdefault(ni, []).append((r, -15, tf + 1, None))
            if C["launcher"] == "torchrun":
                R.agent(ni, tf + 0.2, elog(R, C, ni, tf + 0.2, "W", "agent/server/api.py:" + ("741" if C["tv"] >= 23 else "713"),
                                           "Received Signals.SIGTERM death signal, shutting down workers"))
                for r in n.ranks[:8]:
                    R.agent(ni, tf + 0.3, elog(R, C, ni, tf + 0.3, "W", "multiprocessing/api.py:" + ("897" if C["tv"] >= 23 else "699"),
                                               f"Sending process {R.pid(r)} closing signal SIGTERM"))
                R.agent(ni, tf + 2, f"torch.distributed.elastic.multiprocessing.api.SignalException: Process {n.agent_pid} got signal: 15")
            f2 = self.victims_peer(R, C, tf + 1, n.first_rank, "closed", skip_nodes=(ni,), delay=(1, 30))
            fails = self.merge(fails, f2)
            R.meta["pod_status"] = {ni: "Error"}
            R.meta["describe"] = {"node": ni, "reason": "Error", "code": 143, "phase": "Failed", "pod_reason": "Terminated",
                                  "message": "Pod was terminated in response to imminent node shutdown.", "t": tf + 30}
            R.set_truth("preemption", n.first_rank, ni, True, f"Spot/preemptible node under {n.host} reclaimed; its workers get SIGTERM and the rest lose their peers.")
            R.t_end = tf + 60
            R.exit_code = 1
            for k, fl in fails.items():
                if C["launcher"] == "torchrun" and k != ni:
                    agent_summary(R, C, rng, k, max(f[2] for f in fl) + 1, fl, C["script"])
            return
        why = rng.choice(["PREEMPTION", "PREEMPTION", "TIME LIMIT"]) if pf == "slurm" else "PREEMPTION"
        R.ev(tf, "preempt_job", None, why=why)
        if pf == "slurm":
            R.meta["slurm_state"] = "PREEMPTED" if why == "PREEMPTION" else "TIMEOUT"
            R.meta["slurm_exit"] = "0:15"
        for ni, n in enumerate(R.nodes):
            if C["launcher"] == "torchrun":
                R.agent(ni, tf + 0.1, elog(R, C, ni, tf + 0.1, "W", "agent/server/api.py:" + ("741" if C["tv"] >= 23 else "713"),
                                           "Received Signals.SIGTERM death signal, shutting down workers"))
                for r in n.ranks[:8]:
                    R.agent(ni, tf + 0.2, elog(R, C, ni, tf + 0.2, "W", "multiprocessing/api.py:" + ("897" if C["tv"] >= 23 else "699"),
                                               f"Sending process {R.pid(r)} closing signal SIGTERM"))
                R.agent(ni, tf + 1.5, "\n".join(["Traceback (most recent call last):", '  File "/usr/local/bin/torchrun", line 8, in <module>', "    sys.exit(main())",
                                                 "  ...", f"torch.distributed.elastic.multiprocessing.api.SignalException: Process {n.agent_pid} got signal: 15"]))
            elif C["flavor"] in ("lightning", "nemo"):
                R.out(n.first_rank, tf + 0.2, f"[rank: {n.first_rank}] Received SIGTERM: 15")
        if rng.random() < 0.5:
            R.out(0, tf + 0.3, f"{f_pylog(R.lt(0, tf + 0.3))} | WARNING | signal_handler | SIGTERM received, attempting emergency checkpoint...")
        R.t_end = tf + 35
        R.exit_code = 143
        R.set_truth("preemption", None, None, True,
                    f"Whole job {'preempted by the scheduler' if why == 'PREEMPTION' else 'hit its wall-clock TIME LIMIT'}; all workers get SIGTERM.")

    def c_straggler(self, R, C, t, tf):
        rng = self.rng
        r = self.pick_culprit(R)
        n = R.node_of(r)
        loc = r - n.first_rank
        t_slow = t + (tf - t) * rng.uniform(0.2, 0.6)
        factor = rng.uniform(1.35, 2.6)
        ev = rng.choice(["megatron", "perrank", "nvsmi"]) if C["device"] == "cuda" else "perrank"
        if ev == "megatron" and C["flavor"] != "megatron":
            ev = "perrank"

        def noise(tt, step):
            if ev == "megatron" and step % (C["every"] * 2) == 0:
                slow = tt >= t_slow
                mn = C["dt"] * 1000 * rng.uniform(0.93, 0.97)
                mx = mn * (factor if slow else rng.uniform(1.01, 1.04))
                mxr = r if slow else rng.randrange(R.world)
                R.out(C["log_rank"], tt + 0.01, f" [{utc(R.lt(0, tt)).strftime('%Y-%m-%d %H:%M:%S')}] {step} | MnRtt/Rnk: {mn:.2f}ms/{rng.randrange(R.world)} | MxRtt/Rnk: {mx:.2f}ms/{mxr} | "
                                                f"MnPwr/Rnk: {rng.uniform(300000, 420000) if slow else 601000.0:.2f}mW/{r if slow else rng.randrange(R.world)} | MxPwr/Rnk: 699000.00mW/{rng.randrange(R.world)} | "
                                                f"MnTmp/Rnk: {rng.randint(38, 50)}.00C/{rng.randrange(R.world)} | MxTmp/Rnk: {rng.randint(86, 91) if slow else rng.randint(60, 70)}.00C/{r if slow else rng.randrange(R.world)} | "
                                                f"MnUtl/Rnk: {rng.randint(60, 80)}.00%/{rng.randrange(R.world)} | MxUtl/Rnk: 100.00%/{rng.randrange(R.world)} | "
                                                f"MnClk/Rnk: {rng.randint(900, 1200) if slow else 1980}.00MHz/{r if slow else rng.randrange(R.world)} | MxClk/Rnk: 1980.00MHz/{rng.randrange(R.world)} |")
            if ev == "perrank" and step % (C["every"] * 3) == 0:
                for x in range(R.world) if R.world <= 64 else sorted(set(rng.sample(range(R.world), 24) + [r])):
                    base = C["dt"] * rng.uniform(0.55, 0.62)
                    c = base * (factor * 1.6 if (x == r and tt >= t_slow) else 1.0)
                    R.out(x, tt + rng.uniform(0, 0.2), f"[{f_pylog(R.lt(R.node_of(x).idx, tt))}][rank {x:>3}] step {step} compute {c:.3f}s comm_wait {max(0.01, C['dt'] * factor - c if tt >= t_slow else C['dt'] - c):.3f}s", "stdout")
        run_steps(R, C, rng, t, tf, slow_from=t_slow, slow_factor=factor, noise=noise)
        if ev == "nvsmi":
            R.files[f"diag/{n.host}-nvidia-smi-q-d-PERFORMANCE.txt"] = "\n".join(
                [f"==============NVSMI LOG==============", f"Timestamp                                 : {utc(tf - 600).strftime('%a %b %d %H:%M:%S %Y')}", ""] +
                sum([[f"GPU 00000000:{n.bus[g].upper()}:00.0", "    Clocks Event Reasons",
                      f"        Idle                              : Not Active", f"        Applications Clocks Setting       : Not Active",
                      f"        SW Power Cap                      : Not Active",
                      f"        HW Slowdown                       : {'Active' if g == loc else 'Not Active'}",
                      f"            HW Thermal Slowdown           : {'Active' if g == loc else 'Not Active'}",
                      f"            HW Power Brake Slowdown       : Not Active",
                      f"        SW Thermal Slowdown               : {'Active' if g == loc else 'Not Active'}", ""] for g in range(R.gpn)], []))
            R.k(n.idx, t_slow + 5, f"NVRM: GPU at PCI:0000:{n.bus[loc]}:00: thermal slowdown engaged (GPU temp {rng.randint(88, 94)}C)") if rng.random() < 0 else None
        R.ev(tf, "user_cancel", None)
        if C["launcher"] == "torchrun":
            for ni in range(len(R.nodes)):
                R.agent(ni, tf + 0.1, elog(R, C, ni, tf + 0.1, "W", "agent/server/api.py:" + ("741" if C["tv"] >= 23 else "713"),
                                           "Received Signals.SIGTERM death signal, shutting down workers"))
        R.t_end = tf + 30
        R.exit_code = 143
        R.meta["slurm_state"] = "CANCELLED"
        R.meta["slurm_exit"] = "0:15"
        R.set_truth("straggler", r, n.idx, True,
                    f"GPU of rank {r} on {n.host} throttles from mid-run: iteration time grows x{factor:.1f} " +
                    {"megatron": "and the straggler detector keeps naming it as MxRtt/MnClk rank", "perrank": "and its per-rank compute time is the outlier",
                     "nvsmi": "and nvidia-smi shows HW thermal slowdown on that GPU"}[ev] + "; the user cancelled the job.")
