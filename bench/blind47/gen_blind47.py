#!/usr/bin/env python3
"""blind47: synthetic log bundles of failed / healthy multi-GPU training runs,
written in the default logging formats of many training frameworks.

Written blind (no access to the diagnosis tool's code, rules, tests or corpus).
Standard library only.  Usage:
    python3 gen_blind47.py --out DIR --n 60 --seed S
"""
import argparse
import json
import os
import random
from datetime import datetime, timedelta

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill",
          "crash_signal", "preemption", "hang", "data_loader_stall",
          "collective_mismatch", "straggler", "unknown"]

# causes that make one rank stop while its peers wait inside a collective
STALL_CAUSES = ("hang", "data_loader_stall", "collective_mismatch")


# ----------------------------------------------------------------------------
# scenario / cluster model
# ----------------------------------------------------------------------------
class Ctx:
    def __init__(self, rng, cause, healthy, layout, nnodes=None, gpn=None):
        self.rng = rng
        self.cause = cause
        self.healthy = healthy
        self.layout = layout
        self.nnodes = nnodes or rng.choice([1, 2, 2, 2, 4, 4])
        self.gpn = gpn or rng.choice([8, 8, 8, 4])
        self.world = self.nnodes * self.gpn
        style = rng.choice(["gpu-node-{:03d}", "node{:02d}", "dgx-a{:02d}", "hpc-g{:04d}",
                            "ip-10-0-{}-{}", "trn-worker-{}", "g{:04d}"])
        base = rng.randint(1, 200)
        self.hosts = []
        for i in range(self.nnodes):
            if style.startswith("ip-"):
                self.hosts.append("ip-10-0-%d-%d" % (rng.randint(1, 250), rng.randint(2, 250)))
            else:
                self.hosts.append(style.format(base + i))
        sub = rng.randint(0, 250)
        self.ips = ["10.%d.%d.%d" % (rng.randint(0, 200), sub, rng.randint(2, 250)) for _ in self.hosts]
        # clock skew per node (node 0 is the reference); occasionally one wild clock
        self.skew = [0.0] + [rng.uniform(-2.5, 2.5) for _ in range(self.nnodes - 1)]
        if self.nnodes > 1 and rng.random() < 0.2:
            self.skew[rng.randrange(1, self.nnodes)] += rng.choice([-1, 1]) * rng.uniform(20, 95)
        y = rng.choice([2022, 2023, 2024, 2024, 2025])
        self.t0 = datetime(y, rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23),
                           rng.randint(0, 59), rng.randint(0, 59), rng.randint(0, 999999))
        self.step_time = rng.uniform(0.35, 4.0)
        self.total_steps = rng.choice([2000, 5000, 10000, 20000, 50000, 100000])
        self.log_every = rng.choice([10, 10, 20, 50])
        self.fail_step = rng.randint(60, 900) if not healthy else None
        self.pids = [rng.randint(3000, 250000) for _ in range(self.world)]
        self.tids = [rng.randint(139600000000000, 140900000000000) for _ in range(self.world)]
        self.agent_pid = [rng.randint(1000, 2999) for _ in range(self.nnodes)]
        self.jobid = rng.randint(100000, 9999999)
        self.port = rng.choice([29500, 29500, 12355, 6000, 23456, rng.randint(20000, 60000)])
        self.nccl = rng.choice(["2.18.3", "2.19.3", "2.20.5", "2.21.5", "2.18.1", "2.23.4"])
        self.torch = rng.choice(["2.1.2", "2.2.1", "2.3.1", "2.4.0", "2.5.1"])
        self.py = rng.choice(["3.10", "3.10", "3.11", "3.9"])
        self.site = rng.choice(["/usr/local/lib/python%s/dist-packages",
                                "/opt/conda/lib/python%s/site-packages",
                                "/home/%s/.venv/lib/python%%s/site-packages" % rng.choice(["alice", "mlops", "zhang", "jdoe"])]) % self.py
        self.user = rng.choice(["alice", "mlops", "zhang", "jdoe", "svc-train", "r.kumar"])
        self.timeout_ms = rng.choice([600000, 600000, 1800000, 1200000])
        self.pci = [rng.choice(["0000:18:00", "0000:2a:00", "0000:3a:00", "0000:5d:00",
                                "0000:9a:00", "0000:ab:00", "0000:ba:00", "0000:db:00"])
                    for _ in range(8)]
        self.pci = ["0000:%02x:00" % b for b in sorted(rng.sample([0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb, 0x1b, 0x43, 0x52, 0xc2], 8))]
        self.gpu_name = rng.choice(["NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-40GB",
                                    "NVIDIA H800", "NVIDIA L40S", "NVIDIA A800-SXM4-80GB"])
        self.gpu_mem = 79.15 if "80" in self.gpu_name or "H800" in self.gpu_name else (39.39 if "40GB" in self.gpu_name else 44.39)
        # initiator
        self.init_rank = rng.randrange(self.world)
        if rng.random() < 0.35 and self.world > 1:
            self.init_rank = rng.randrange(self.gpn, self.world) if self.nnodes > 1 else rng.randrange(1, self.world)
        self.init_node = self.init_rank // self.gpn
        self.seq_base = rng.randint(2000, 90000)
        self.notes = []
        # what the written logs actually show about the initiator
        self.show_rank = False
        self.show_node = False

    # absolute seconds -> datetime on node n's clock
    def at(self, secs, node=0):
        return self.t0 + timedelta(seconds=secs + self.skew[node])

    def lr(self, r):
        return r % self.gpn

    def node_of(self, r):
        return r // self.gpn

    def fail_time(self):
        return 90.0 + self.fail_step * self.step_time


def fmt_dt(d, style):
    """Timestamp styles used by the frameworks."""
    if style == "iso_ms_comma":      # logging default 2024-05-01 10:11:12,345
        return d.strftime("%Y-%m-%d %H:%M:%S,") + "%03d" % (d.microsecond // 1000)
    if style == "iso_ms_dot":
        return d.strftime("%Y-%m-%d %H:%M:%S.") + "%03d" % (d.microsecond // 1000)
    if style == "iso_us":
        return d.strftime("%Y-%m-%d %H:%M:%S.%f")
    if style == "iso_s":
        return d.strftime("%Y-%m-%d %H:%M:%S")
    if style == "us_date":           # 07/14/2024 15:49:32
        return d.strftime("%m/%d/%Y %H:%M:%S")
    if style == "mm_slash":          # 2024/01/24 02:46:39
        return d.strftime("%Y/%m/%d %H:%M:%S")
    if style == "d2":                # 03/02 10:11:12
        return d.strftime("%m/%d %H:%M:%S")
    if style == "rich":              # [04/11/24 16:13:04]
        return d.strftime("[%m/%d/%y %H:%M:%S]")
    if style == "absl":              # 0712 10:11:12.123456
        return d.strftime("%m%d %H:%M:%S.%f")
    if style == "ms":                # mindspore 2024-05-01-10:11:12.345.678
        return d.strftime("%Y-%m-%d-%H:%M:%S.") + "%03d.%03d" % (d.microsecond // 1000, d.microsecond % 1000)
    if style == "isoT":
        return d.strftime("%Y-%m-%dT%H:%M:%S.%f") + "Z"
    if style == "slurm":
        return d.strftime("%Y-%m-%dT%H:%M:%S")
    if style == "dmesgT":
        return d.strftime("%a %b ") + ("%2d" % d.day) + d.strftime(" %H:%M:%S %Y")
    if style == "syslog":
        return d.strftime("%b ") + ("%2d" % d.day) + d.strftime(" %H:%M:%S")
    if style == "torchrun_time":
        return d.strftime("%Y-%m-%d_%H:%M:%S")
    raise ValueError(style)


def hms(secs):
    secs = int(max(0, secs))
    h, rem = divmod(secs, 3600)
    m, s = divmod(rem, 60)
    if h >= 24:
        d, h = divmod(h, 24)
        return "%d day%s, %d:%02d:%02d" % (d, "s" if d > 1 else "", h, m, s)
    return "%d:%02d:%02d" % (h, m, s)


def mmss(secs):
    secs = int(max(0, secs))
    h, rem = divmod(secs, 3600)
    m, s = divmod(rem, 60)
    return ("%d:%02d:%02d" % (h, m, s)) if h else ("%02d:%02d" % (m, s))


def tqdm_bar(n, total, elapsed, rate_s, width=10, postfix="", desc=""):
    frac = n / total if total else 0
    pct = int(frac * 100)
    full = int(frac * width)
    blocks = " ▏▎▍▌▋▊▉"
    rem = int((frac * width - full) * 8)
    bar = "█" * full + (blocks[rem] if full < width else "") + " " * max(0, width - full - 1)
    bar = bar[:width].ljust(width)
    left = (total - n) * rate_s
    rate = ("%.2fit/s" % (1.0 / rate_s)) if rate_s < 1 else ("%.2fs/it" % rate_s)
    s = "%s%3d%%|%s| %d/%d [%s<%s, %s%s]" % (desc, pct, bar, n, total, mmss(elapsed), mmss(left), rate,
                                             (", " + postfix) if postfix else "")
    return s


# ----------------------------------------------------------------------------
# generic text building blocks (PyTorch / NCCL / CUDA / kernel)
# ----------------------------------------------------------------------------
def py_tb(frames, exc, ctx, extra_after=None):
    out = ["Traceback (most recent call last):"]
    for f, ln, fn, code in frames:
        out.append('  File "%s", line %d, in %s' % (f, ln, fn))
        if code:
            out.append("    " + code)
    out.extend(exc.split("\n"))
    if extra_after:
        out.extend(extra_after)
    return out


def user_frames(ctx, script, loop_fn="train_one_epoch"):
    r = ctx.rng
    return [(script, r.randint(300, 900), "<module>", "main()"),
            (script, r.randint(120, 290), "main", "%s(model, loader, optimizer, epoch)" % loop_fn if "(" not in loop_fn else loop_fn),
            (script, r.randint(60, 118), loop_fn.split("(")[0], "loss.backward()")]


def torch_bw_frames(ctx):
    s = ctx.site
    return [(s + "/torch/_tensor.py", 522, "backward", "torch.autograd.backward("),
            (s + "/torch/autograd/__init__.py", 266, "backward",
             "Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")]


def cpp_frames(ctx, n=6):
    r = ctx.rng
    libs = [("c10::Error::Error(c10::SourceLocation, std::string)", "libc10.so"),
            ("c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&)", "libc10.so"),
            ("c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >)", "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::watchdogHandler()", "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::ncclCommWatchdog()", "libtorch_cuda.so"),
            ("<unknown function>", "libstdc++.so.6"),
            ("<unknown function>", "libc.so.6"),
            ("clone + 0x44", "libc.so.6")]
    out = []
    for i, (fn, lib) in enumerate(libs[:n]):
        base = "0x7f%x" % r.randint(0x10000000, 0xfffffff0)
        path = (ctx.site + "/torch/lib/" + lib) if "lib" in lib and "libc.so" not in lib and "stdc" not in lib else "/lib/x86_64-linux-gnu/" + lib
        if "+" in fn:
            out.append("frame #%d: %s (%s in %s)" % (i, fn, base, path))
        else:
            out.append("frame #%d: %s + 0x%x (%s in %s)" % (i, fn, r.randint(0x10, 0x9ff), base, path))
    return out


def rk(ctx, r, new=True):
    """PyTorch>=2.2 prefixes c10 log lines with [rankN]:"""
    return ("[rank%d]:" % r) if new else ""


def torch_new(ctx):
    return ctx.torch >= "2.2"


def watchdog_lines(ctx, r, seq, op="ALLREDUCE", numel=None, ran_ms=None, last_done=None, tail_abort=True):
    rng = ctx.rng
    numel = numel or rng.choice([1048576, 262144000, 54525952, 131072, 1])
    ran = ran_ms or ctx.timeout_ms + rng.randint(5, 900)
    p = rk(ctx, r, torch_new(ctx))
    pg = "[PG 0 Rank %d]" % r if torch_new(ctx) else "[Rank %d]" % r
    w = ("WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d) ran for %d milliseconds before timing out."
         % (seq, op, numel, numel * (ctx.world if op == "_ALLGATHER_BASE" else 1), ctx.timeout_ms, ran))
    out = ["%s[E ProcessGroupNCCL.cpp:%d] %s Watchdog caught collective operation timeout: %s" % (p, rng.choice([563, 607, 632]), pg, w)]
    if torch_new(ctx):
        ld = seq - 1 if last_done is None else last_done
        out.append("%s[E ProcessGroupNCCL.cpp:%d] %s Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d."
                   % (p, rng.choice([1537, 1664, 1632]), pg, seq, seq, ld))
    if tail_abort:
        out.append("%s[E ProcessGroupNCCL.cpp:577] [Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % (p, r))
        out.append("%s[E ProcessGroupNCCL.cpp:583] [Rank %d] To avoid data inconsistency, we are taking the entire process down." % (p, r))
        out.append("%s[E ProcessGroupNCCL.cpp:1414] %s Process group watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s" % (p, pg, r, w))
        out.append("terminate called after throwing an instance of 'c10::DistBackendError'")
        out.append("  what():  %s Process group watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s" % (pg, r, w))
        out.append("Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:565 (most recent call first):")
        out.extend(cpp_frames(ctx, rng.randint(4, 8)))
        out.append("")
    return out


def nccl_prefix(ctx, r):
    return "%s:%d:%d [%d]" % (ctx.hosts[ctx.node_of(r)], ctx.pids[r], ctx.pids[r] + ctx.rng.randint(30, 400), ctx.lr(r))


def nccl_info_noise(ctx, r, k=6):
    rng = ctx.rng
    p = nccl_prefix(ctx, r)
    pool = ["%s NCCL INFO NCCL_SOCKET_IFNAME set by environment to %s" % (p, rng.choice(["ens", "eth0", "bond0", "^lo,docker"])),
            "%s NCCL INFO Bootstrap : Using %s:%s<0>" % (p, rng.choice(["eth0", "ens10f0"]), ctx.ips[ctx.node_of(r)]),
            "%s NCCL INFO NET/Plugin: Failed to find ncclNetPlugin_v8 symbol." % p,
            "%s NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation" % p,
            "%s NCCL INFO cudaDriverVersion %d" % (p, rng.choice([12020, 12040, 12030])),
            "%s NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB ; OOB eth0:%s<0>" % (p, ctx.ips[ctx.node_of(r)]),
            "%s NCCL INFO Using network IB" % p,
            "%s NCCL INFO comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %s0 commId 0x%x - Init START" % (p, rng.randint(0x5000000, 0x9ffffff), r, ctx.world, ctx.lr(r), ctx.lr(r), ctx.pci[ctx.lr(r)].replace("0000:", "")[:5], rng.getrandbits(60)),
            "%s NCCL INFO Channel 00/24 :    0   1   2   3   4   5   6   7" % p,
            "%s NCCL INFO Connected all rings" % p,
            "%s NCCL INFO Connected all trees" % p,
            "%s NCCL INFO threadThresholds 8/8/64 | 128/8/64 | 512 | 512" % p,
            "%s NCCL INFO 24 coll channels, 0 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer" % p,
            "%s NCCL INFO comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %s0 commId 0x%x - Init COMPLETE" % (p, rng.randint(0x5000000, 0x9ffffff), r, ctx.world, ctx.lr(r), ctx.lr(r), ctx.pci[ctx.lr(r)].replace("0000:", "")[:5], rng.getrandbits(60))]
    out = []
    if r == 0:
        out.append("%s NCCL INFO NCCL version %s+cuda12.%d" % (p, ctx.nccl, rng.choice([1, 2, 4])))
    out += [pool[i] for i in sorted(rng.sample(range(len(pool)), min(k, len(pool))))]
    return out


def harmless_noise(ctx):
    """Scary-looking but harmless lines seen in healthy runs too."""
    s = ctx.site
    rng = ctx.rng
    pool = [
        "%s/torch/distributed/distributed_c10d.py:%d: UserWarning: barrier(): using the device under current context. You can specify `device_id` in `init_process_group` to mute this warning." % (s, rng.randint(3800, 4300)),
        "%s/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.4 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants." % s,
        "%s/torch/autograd/graph.py:744: UserWarning: c10d::broadcast_: an autograd kernel was not registered to the Autograd key(s) but we are trying to backprop through it. This may lead to silently incorrect behavior." % s,
        "[W Utils.hpp:133] Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated; use TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function getCvarInt)",
        "[W socket.cpp:464] [c10d] The server socket cannot be initialized on [::]:%d (errno: 97 - Address family not supported by protocol)." % ctx.port,
        "[W ProcessGroupNCCL.cpp:1856] Warning: 0NCCL_AVOID_RECORD_STREAMS=1 has no effect for point-to-point collectives. (function operator())",
        "%s/torch/_utils.py:831: UserWarning: TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class. This should only matter to you if you are using storages directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()" % s,
        "%s/torch/nn/modules/module.py:1501: FutureWarning: Using a non-full backward hook when the forward contains multiple autograd Nodes is deprecated and will be removed in future versions." % s,
        "/bin/sh: 1: nvidia-smi: not found" if rng.random() < 0.3 else "WARNING: Logging before InitGoogleLogging() is written to STDERR",
        "%s/torch/cuda/memory.py:330: FutureWarning: torch.cuda.reset_max_memory_allocated now calls torch.cuda.reset_peak_memory_stats, which resets /all/ peak memory stats." % s,
        "[rank0]:[W ProcessGroupNCCL.cpp:4115] [PG 0 Rank 0]  using GPU 0 to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect.Specify device_ids in barrier() to force use of a particular device,or call init_process_group() with a device_id.",
        "huggingface/tokenizers: The current process just got forked, after parallelism has already been used. Disabling parallelism to avoid deadlocks...",
        "To disable this warning, you can either:\n\t- Avoid using `tokenizers` before the fork if possible\n\t- Explicitly set the environment variable TOKENIZERS_PARALLELISM=(true | false)",
    ]
    return rng.sample(pool, rng.randint(2, 5))


def scary_harmless(ctx, node=0):
    """Error-looking lines that are NOT the failure (for healthy runs and as noise)."""
    rng = ctx.rng
    r = node * ctx.gpn + rng.randrange(ctx.gpn)
    p = nccl_prefix(ctx, r)
    pool = [
        "%s NCCL WARN NET/IB : Got async event : port error" % p if False else "%s NCCL INFO NET/IB : Got async event : GID table change" % p,
        "[W ProcessGroupNCCL.cpp:1252] Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only recently been added to provide more visibility. (function operator())",
        "[rank%d]:[W CUDAGuardImpl.h:119] Warning: CUDA warning: driver shutting down (function uncheckedSetDevice)" % r,
        "Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7f%x>" % rng.randint(0x10000000, 0xffffffff),
        "wandb: WARNING Serializing object of type dict that is 1048720 bytes",
        "Token indices sequence length is longer than the specified maximum sequence length for this model (2361 > 2048). Running this sequence through the model will result in indexing errors",
        "%s NCCL WARN Could not find real path of /sys/class/pci_bus/0000:%02x/../../0000:%02x:00.0" % (p, rng.randint(0, 0xff), rng.randint(0, 0xff)),
        "grad norm is nan/inf at step %d, skipping update (loss_scale 65536.0 -> 32768.0)" % rng.randint(1, 300),
        "[W reducer.cpp:1346] Warning: find_unused_parameters=True was specified in DDP constructor, but did not find any unused parameters in the forward pass. This flag results in an extra traversal of the autograd graph every iteration,  which can adversely affect performance. (function operator())",
    ]
    return rng.sample(pool, rng.randint(1, 3))


def dmesg_line(ctx, node, secs, msg, style):
    d = ctx.at(secs, node)
    up = 86400 * 3 + 5311.0 + secs + ctx.rng.random() * 0.001
    if style == "dmesgT":
        return "[%s] %s" % (fmt_dt(d, "dmesgT"), msg)
    if style == "dmesg":
        return "[%12.6f] %s" % (up, msg)
    if style == "syslog":
        return "%s %s kernel: [%12.6f] %s" % (fmt_dt(d, "syslog"), ctx.hosts[node], up, msg)
    if style == "journal":
        return "%s %s kernel: %s" % (fmt_dt(d, "syslog"), ctx.hosts[node], msg)
    raise ValueError(style)


def kernel_noise(ctx, node, secs):
    rng = ctx.rng
    pool = ["IPv6: ADDRCONF(NETDEV_CHANGE): veth%x: link becomes ready" % rng.randint(0x1000, 0xffff),
            "docker0: port 1(veth%x) entered forwarding state" % rng.randint(0x1000, 0xffff),
            "nvidia-nvlink: Nvlink Core is being initialized, major device number 511",
            "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  %s" % rng.choice(["535.129.03", "535.161.08", "550.54.15", "525.125.06"]),
            "nvidia-uvm: Loaded the UVM driver, major device number 509.",
            "EXT4-fs (nvme0n1p1): mounted filesystem with ordered data mode. Opts: (null)",
            "audit: type=1400 audit(%d.%03d:%d): apparmor=\"STATUS\" operation=\"profile_replace\" profile=\"unconfined\" name=\"docker-default\"" % (1700000000 + rng.randint(0, 9999999), rng.randint(0, 999), rng.randint(10, 999)),
            "mlx5_core 0000:%02x:00.0: mlx5_pcie_event:299:(pid %d): PCIe slot advertised sufficient power (75W)." % (rng.choice([0x0c, 0x41, 0x8c, 0xc1]), rng.randint(100, 9000)),
            "perf: interrupt took too long (%d > %d), lowering kernel.perf_event_max_sample_rate to %d" % (rng.randint(2500, 4000), rng.randint(2400, 2499), rng.choice([79000, 63000, 50000])),
            "process 'python' launched '/usr/bin/nvidia-smi' with NULL argv: empty string added",
            "NFS: state manager: check lease failed on NFSv4 server fs01 with error 10008" if rng.random() < 0.1 else "systemd-journald[812]: Data hash table of /var/log/journal/system.journal has a fill level at 75.0 (8535 of 11377 items), suggesting rotation."]
    return [(secs - rng.uniform(10, 3000), m) for m in rng.sample(pool, rng.randint(2, 5))]


def xid_msgs(ctx, cause, r, secs):
    """Kernel-side NVRM messages for hardware-ish causes. Returns list of (secs, msg)."""
    rng = ctx.rng
    pci = ctx.pci[ctx.lr(r)]
    pid = ctx.pids[r]
    name = rng.choice(["python", "python3", "pt_main_thread"])
    out = []
    if cause == "gpu_hardware":
        x = rng.choice([79, 79, 79, 119, 62, 120, 45])
        if x == 79:
            out.append((secs, "NVRM: GPU at PCI:%s.0: GPU-%08x-%04x-%04x-%04x-%012x" % (pci, rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(48))))
            out.append((secs, "NVRM: Xid (PCI:%s): 79, pid=%d, name=%s, GPU has fallen off the bus." % (pci, pid, name)))
            out.append((secs + 0.01, "NVRM: GPU %s.0: GPU has fallen off the bus." % pci))
            out.append((secs + 0.02, "NVRM: A GPU crash dump has been created. If possible, please run"))
            out.append((secs + 0.02, "NVRM: nvidia-bug-report.sh as root to collect this data before"))
            out.append((secs + 0.02, "NVRM: the NVIDIA kernel module is unloaded."))
        elif x == 119:
            out.append((secs, "NVRM: Xid (PCI:%s): 119, pid=%d, name=%s, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a4c 0x4)." % (pci, pid, name, ctx.lr(r))))
            out.append((secs + 6.1, "NVRM: Xid (PCI:%s): 119, pid=%d, name=%s, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 10 (FREE) (0x5c000001 0x0)." % (pci, pid, name, ctx.lr(r))))
            out.append((secs + 12.4, "NVRM: Rate limiting GSP RPC error prints for GPU at PCI:%s (printing 1 of every 30).  The GPU likely needs to be reset." % pci))
        elif x == 62:
            out.append((secs, "NVRM: Xid (PCI:%s): 62, pid=%d, name=%s, %08x %08x %08x %08x %08x %08x %08x %08x" % ((pci, pid, name) + tuple(rng.getrandbits(32) for _ in range(8)))))
        elif x == 120:
            out.append((secs, "NVRM: Xid (PCI:%s): 120, pid=%d, name=%s, GSP task timeout @ pc:0x%x, task: 1" % (pci, pid, name, rng.getrandbits(28))))
            out.append((secs + 0.5, "NVRM: GPU %s.0: GPU reset required" % pci))
        else:
            out.append((secs - 2.0, "NVRM: Xid (PCI:%s): 45, pid=%d, name=%s, Ch 00000008" % (pci, pid, name)))
            out.append((secs, "NVRM: Xid (PCI:%s): 79, pid=%d, name=%s, GPU has fallen off the bus." % (pci, pid, name)))
    elif cause == "ecc_memory":
        out.append((secs, "NVRM: Xid (PCI:%s): 48, pid=%d, name=%s, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (pci, pid, name, rng.randint(0, 11), rng.randint(0, 1))))
        if rng.random() < 0.7:
            out.append((secs + 0.01, "NVRM: Xid (PCI:%s): 63, pid=%d, name=%s, Row Remapper: New row marked for remapping, reset gpu to activate." % (pci, pid, name)))
        else:
            out.append((secs + 0.01, "NVRM: Xid (PCI:%s): 64, pid=%d, name=%s, Row Remapper Error: Failed to remap row (no spare rows available)." % (pci, pid, name)))
        out.append((secs + 0.02, "NVRM: Xid (PCI:%s): 45, pid=%d, name=%s, Ch 00000010" % (pci, pid, name)))
    elif cause == "nvlink":
        link = rng.randint(0, 17)
        out.append((secs, "NVRM: Xid (PCI:%s): 74, pid=%d, name=%s, NVLink: fatal error detected on link %d(0x0, 0x0, 0x0, 0x%x, 0x0, 0x0, 0x0)" % (pci, pid, name, link, rng.choice([0x10000, 0x20000, 0x4000]))))
        if rng.random() < 0.5:
            out.append((secs + 0.3, "nvidia-nvswitch%d: SXid (PCI:0000:%02x:00.0): 12028, Fatal, Link %d egress non-posted PRIV error (First)" % (rng.randint(0, 3), rng.choice([5, 6, 7, 8]), rng.randint(0, 63))))
            out.append((secs + 0.3, "nvidia-nvswitch%d: SXid (PCI:0000:%02x:00.0): 12028, Severity 1 Engine instance %d Sub-engine instance 00" % (rng.randint(0, 3), rng.choice([5, 6, 7, 8]), rng.randint(0, 63))))
    elif cause == "illegal_memory_access":
        x = rng.choice([13, 31, 43])
        if x == 13:
            out.append((secs, "NVRM: Xid (PCI:%s): 13, pid=%d, name=%s, Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (pci, pid, name, rng.randint(0, 7), rng.randint(0, 8), rng.randint(0, 1))))
            out.append((secs, "NVRM: Xid (PCI:%s): 13, pid=%d, name=%s, Graphics Exception: ESR 0x%x=0x%x 0x%x=0x0 0x%x=0x%x 0x%x=0x174" % (pci, pid, name, rng.getrandbits(20), rng.getrandbits(24), rng.getrandbits(20), rng.getrandbits(20), rng.getrandbits(20), rng.getrandbits(20))))
        elif x == 31:
            out.append((secs, "NVRM: Xid (PCI:%s): 31, pid=%d, name=%s, Ch 0000%04x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_%d faulted @ 0x7f%x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (pci, pid, name, rng.randint(8, 0xfff), rng.randint(0, 15), rng.randint(0x10, 0xff), rng.getrandbits(32))))
        else:
            out.append((secs, "NVRM: Xid (PCI:%s): 43, pid=%d, name=%s, Ch 0000%04x" % (pci, pid, name, rng.randint(8, 0xfff))))
    return out


def cause_node_kernel(ctx, secs):
    """Kernel lines on the initiator node for non-Xid causes (oom killer, NIC, NFS)."""
    rng = ctx.rng
    c = ctx.cause
    r = ctx.init_rank
    pid = ctx.pids[r]
    out = []
    if c == "host_oom_kill":
        cg = rng.random() < 0.5
        out.append((secs - 0.3, "%s invoked oom-killer: gfp_mask=0x%x(GFP_HIGHUSER_MOVABLE), order=0, oom_score_adj=0" % (rng.choice(["python", "pt_main_thread", "pt_data_worker"]), 0x100cca)))
        out.append((secs - 0.3, "CPU: %d PID: %d Comm: python Tainted: P           OE     5.15.0-%d-generic #%d-Ubuntu" % (rng.randint(0, 127), pid, rng.randint(80, 120), rng.randint(80, 140))))
        if cg:
            out.append((secs - 0.2, "memory: usage %dkB, limit %dkB, failcnt %d" % (rng.randint(500000000, 520000000), 503316480, rng.randint(1, 900))))
            out.append((secs - 0.1, "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=%s,mems_allowed=0-1,oom_memcg=/slurm/uid_%d/job_%d,task_memcg=/slurm/uid_%d/job_%d/step_0/task_%d,task=python,pid=%d,uid=%d"
                        % ("docker-%012x" % rng.getrandbits(48), 1000 + rng.randint(0, 900), ctx.jobid, 1000, ctx.jobid, ctx.lr(r), pid, 1000)))
            out.append((secs, "Memory cgroup out of memory: Killed process %d (python) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:1000 pgtables:%dkB oom_score_adj:0" % (pid, rng.randint(100000000, 200000000), rng.randint(60000000, 90000000), rng.randint(100000, 900000), rng.randint(0, 9000000), rng.randint(100000, 300000))))
        else:
            out.append((secs - 0.1, "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/user.slice/user-1000.slice/session-3.scope,task=python,pid=%d,uid=1000" % pid))
            out.append((secs, "Out of memory: Killed process %d (python) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:1000 pgtables:%dkB oom_score_adj:0" % (pid, rng.randint(100000000, 200000000), rng.randint(60000000, 90000000), rng.randint(100000, 900000), rng.randint(0, 9000000), rng.randint(100000, 300000))))
        out.append((secs + 1.2, "oom_reaper: reaped process %d (python), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB" % pid))
    elif c == "network":
        dev = rng.choice(["mlx5_%d" % rng.randint(0, 7), "mlx5_bond_0"])
        pcid = rng.choice(["0000:0c:00.0", "0000:41:00.0", "0000:8c:00.0", "0000:c1:00.0"])
        kind = rng.choice(["ib", "eth", "efa"])
        if kind == "ib":
            out.append((secs - 3.0, "mlx5_core %s: mlx5_port_module_event:1158:(pid 0): Port module event[error]: module %d, Cable error, Unsupported cable" % (pcid, rng.randint(0, 7)) if rng.random() < 0.3
                        else "mlx5_core %s: Port %d link down (%s)" % (pcid, 1, dev)))
            out.append((secs - 2.9, "ib%d: Link down" % rng.randint(0, 7) if rng.random() < 0.5 else "mlx5_core %s ibp%ds0: Link down" % (pcid, rng.choice([12, 65, 140, 193]))))
        elif kind == "eth":
            nic = rng.choice(["ens10f0np0", "enp193s0f0np0", "eth1", "bond0"])
            out.append((secs - 3.0, "mlx5_core %s %s: Link down" % (pcid, nic)))
            out.append((secs - 2.9, "bond0: (slave %s): link status definitely down, disabling slave" % nic))
        else:
            out.append((secs - 3.0, "efa 0000:%02x:00.0: Failed to process command %d (opcode %d) comp_status %d err %d" % (rng.randint(0x10, 0xff), rng.randint(1, 99), rng.randint(1, 20), 1, -5)))
            out.append((secs - 2.8, "efa 0000:%02x:00.0: Device reset required" % rng.randint(0x10, 0xff)))
    elif c == "data_loader_stall":
        fs = rng.choice(["nfs", "lustre", "fuse"])
        if fs == "nfs":
            srv = rng.choice(["fs01", "nas-train", "10.10.0.5", "filer2"])
            out.append((secs + 5, "nfs: server %s not responding, still trying" % srv))
            out.append((secs + 185, "nfs: server %s not responding, still trying" % srv))
            out.append((secs + 240, "INFO: task pt_data_worker:%d blocked for more than 120 seconds." % (pid + rng.randint(5, 60))))
            out.append((secs + 240, "      Tainted: P           OE     5.15.0-%d-generic #%d-Ubuntu" % (rng.randint(80, 120), rng.randint(80, 140))))
            out.append((secs + 240, "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message."))
        elif fs == "lustre":
            out.append((secs + 3, "LustreError: 11-0: scratch-OST00%02x-osc-ffff%012x: operation ost_read to node %s@o2ib failed: rc = -107" % (rng.randint(0, 0x3f), rng.getrandbits(48), "10.%d.0.%d" % (rng.randint(0, 50), rng.randint(2, 250)))))
            out.append((secs + 3, "Lustre: scratch-OST00%02x-osc-ffff%012x: Connection to scratch-OST00%02x (at 10.%d.0.%d@o2ib) was lost; in progress operations using this service will wait for recovery to complete" % (rng.randint(0, 0x3f), rng.getrandbits(48), rng.randint(0, 0x3f), rng.randint(0, 50), rng.randint(2, 250))))
        else:
            out.append((secs + 4, "INFO: task pt_data_worker:%d blocked for more than 122 seconds." % (pid + rng.randint(5, 60))))
            out.append((secs + 4, "task:pt_data_worker state:D stack:    0 pid:%d ppid:%d flags:0x00004000" % (pid + rng.randint(5, 60), pid)))
            out.append((secs + 4, " fuse_simple_request+0x%x/0x%x [fuse]" % (rng.randint(0x100, 0x1ff), rng.randint(0x200, 0x2ff))))
    elif c in ("gpu_hardware", "ecc_memory", "nvlink"):
        out = xid_msgs(ctx, c, r, secs - 0.5)
    elif c == "illegal_memory_access" and rng.random() < 0.6:
        out = xid_msgs(ctx, c, r, secs - 0.2)
    return out


def write_kernel_log(ctx, node, secs, style, extra=None):
    """kernel log excerpt of one node: noise + cause lines, sorted by time."""
    evs = kernel_noise(ctx, node, secs)
    if extra:
        evs += extra
    evs.sort(key=lambda e: e[0])
    return [dmesg_line(ctx, node, s, m, style) for s, m in evs]


# ----------------------------------------------------------------------------
# PyTorch-family failure engine: what every rank prints / when it exits
# ----------------------------------------------------------------------------
SIGNAME = {-6: "SIGABRT", -9: "SIGKILL", -11: "SIGSEGV", -7: "SIGBUS", -15: "SIGTERM"}


class TorchFail:
    """Per-rank error output (raw stderr lines), exits, kernel lines."""

    def __init__(self, ctx, script="train.py"):
        self.ctx = ctx
        self.script = script
        self.raw = {}      # rank -> list of (secs, [lines])
        self.exit = {}     # rank -> (secs, code)
        self.kernel = {}   # node -> [(secs, msg)]
        self.last_step = {}  # rank -> last step that rank logged / completed
        self.slow_rank = None
        self.stall_seq = None
        self.tf = ctx.fail_time() if not ctx.healthy else None
        self.end = None
        self.slurm_cancel = None
        self.sigterm_all = None
        self.collateral = ctx.rng.choice(["watchdog", "reset", "reset", "mixed"])
        if not ctx.healthy:
            self._build()

    def add(self, r, secs, lines):
        self.raw.setdefault(r, []).append((secs, list(lines)))

    def _exc_frames(self, where="bw"):
        ctx = self.ctx
        fr = user_frames(ctx, self.script)
        if where == "bw":
            fr += torch_bw_frames(ctx)
        return fr

    def _cuda_err(self, msg):
        return ("RuntimeError: CUDA error: %s\n"
                "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
                "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.\n"
                "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n" % msg)

    def _build(self):
        ctx = self.ctx
        rng = ctx.rng
        c = ctx.cause
        r0 = ctx.init_rank
        tf = self.tf
        seq = ctx.seq_base + ctx.fail_step * rng.choice([3, 5, 12])
        self.stall_seq = seq
        for r in range(ctx.world):
            self.last_step[r] = ctx.fail_step
        dead = True   # initiator process dies at about tf
        code = 1
        if c == "cuda_oom":
            g = ctx.gpu_mem
            free = rng.uniform(0.1, 1.9)
            req = rng.choice([2.0, 1.0, 3.5, 7.82, 512 / 1024, 1.25])
            used = g - free
            alloc = used - rng.uniform(0.5, 3)
            if ctx.torch >= "2.3":
                msg = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of %.2f GiB of which %.2f GiB is free. Including non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
                       % (req, ctx.lr(r0), g, free, used, alloc, used - alloc - 0.3))
            else:
                msg = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB (GPU %d; %.2f GiB total capacity; %.2f GiB already allocated; %.2f GiB free; %.2f GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF"
                       % (req, ctx.lr(r0), g, alloc, free, used - 0.4))
            self.add(r0, tf, py_tb(self._exc_frames(), msg, ctx))
        elif c == "python_exception":
            exc = rng.choice([
                "KeyError: 'input_ids'",
                "FileNotFoundError: [Errno 2] No such file or directory: '/data/%s/shard_%05d.tar'" % (rng.choice(["laion", "pile", "coco", "webdata"]), rng.randint(0, 9999)),
                "ValueError: Expected input batch_size (%d) to match target batch_size (%d)." % (rng.randint(1, 15), 16),
                "RuntimeError: The size of tensor a (%d) must match the size of tensor b (%d) at non-singleton dimension 1" % (rng.choice([2049, 4097, 1025]), rng.choice([2048, 4096, 1024])),
                "AssertionError: grad is None for param model.layers.%d.mlp.gate_proj.weight" % rng.randint(0, 40),
                "json.decoder.JSONDecodeError: Unterminated string starting at: line 1 column %d (char %d)" % (rng.randint(100, 900), rng.randint(100, 900)),
                "ZeroDivisionError: float division by zero",
                "TypeError: can only concatenate str (not \"NoneType\") to str",
                "PIL.UnidentifiedImageError: cannot identify image file <_io.BytesIO object at 0x7f%x>" % rng.getrandbits(36)])
            fr = user_frames(ctx, self.script)[:2] + [(self.script.replace("train", "dataset") if "train" in self.script else "data.py", rng.randint(40, 300), "__getitem__", "sample = self.decode(raw)")]
            self.add(r0, tf, py_tb(fr, exc, ctx))
        elif c == "illegal_memory_access":
            if rng.random() < 0.45:
                k = rng.choice(["IndexKernel.cu:92", "ScatterGatherKernel.cu:144", "Loss.cu:250"])
                cond = {"IndexKernel.cu:92": "`-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"`",
                        "ScatterGatherKernel.cu:144": "`idx_dim >= 0 && idx_dim < index_size && \"index out of bounds\"`",
                        "Loss.cu:250": "`t >= 0 && t < n_classes`"}[k]
                lines = ["../aten/src/ATen/native/cuda/%s: operator(): block: [%d,0,0], thread: [%d,0,0] Assertion %s failed." % (k, rng.randint(0, 9000), t, cond) for t in sorted(rng.sample(range(128), 4))]
                self.add(r0, tf - 0.01, lines)
                self.add(r0, tf, py_tb(self._exc_frames(), self._cuda_err("device-side assert triggered"), ctx))
            else:
                self.add(r0, tf, py_tb(self._exc_frames(), self._cuda_err("an illegal memory access was encountered"), ctx))
            if rng.random() < 0.3:
                code = -6
        elif c in ("gpu_hardware", "ecc_memory", "nvlink"):
            if c == "gpu_hardware":
                m = rng.choice(["unspecified launch failure", "unknown error", "an illegal memory access was encountered" if False else "unspecified launch failure", "the launch timed out and was terminated"])
            elif c == "ecc_memory":
                m = "uncorrectable ECC error encountered"
            else:
                m = "uncorrectable NVLink error detected during the execution"
            if c == "nvlink" or rng.random() < 0.45:
                p = nccl_prefix(ctx, r0)
                nl = ["%s NCCL WARN Cuda failure '%s'" % (p, m),
                      "%s NCCL INFO %s:%d -> 1" % (p, rng.choice(["enqueue.cc", "proxy.cc", "transport/p2p.cc"]), rng.randint(100, 1500))]
                self.add(r0, tf - 0.05, nl)
                pg = rk(ctx, r0, torch_new(ctx))
                ex = ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:%d, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s\n"
                      "ncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\nCuda failure '%s'" % (rng.choice([275, 317, 219]), ctx.nccl, m))
                fr = user_frames(ctx, self.script) + [(ctx.site + "/torch/distributed/c10d_logger.py", 75, "wrapper", "return func(*args, **kwargs)"),
                                                      (ctx.site + "/torch/distributed/distributed_c10d.py", 2288, "all_reduce", "work = group.allreduce([tensor], opts)")]
                self.add(r0, tf, py_tb(fr, ex, ctx))
            else:
                self.add(r0, tf, py_tb(self._exc_frames(), self._cuda_err(m), ctx))
                code = rng.choice([1, -6])
            self.kernel.setdefault(ctx.init_node, []).extend(cause_node_kernel(ctx, tf))
        elif c == "network":
            # NIC on the initiator node drops; NCCL on it and on a peer node complain
            self.kernel.setdefault(ctx.init_node, []).extend(cause_node_kernel(ctx, tf))
            peer_node = (ctx.init_node + 1) % ctx.nnodes
            victims = [r0] + ([peer_node * ctx.gpn + ctx.lr(r0)] if ctx.nnodes > 1 else [])
            for v in victims:
                other = victims[1] if v == victims[0] and len(victims) > 1 else victims[0]
                p = nccl_prefix(ctx, v)
                kind = rng.choice(["ib", "ib", "socket"])
                oip = ctx.ips[ctx.node_of(other)] if other != v else ctx.ips[(ctx.node_of(v) + 1) % ctx.nnodes]
                if kind == "ib":
                    w = "NET/IB : Got completion from peer %s<%d> with status=12 opcode=%d len=0 vendor err 129 (Recv) localGid ::ffff:%s remoteGids::ffff:%s" % (oip, rng.randint(30000, 60000), rng.choice([0, 1, 129]), ctx.ips[ctx.node_of(v)], oip)
                    if rng.random() < 0.5:
                        w = "NET/IB : Got completion from peer %s<%d> with error 12, opcode %d, len 0, vendor err 129 (Send)" % (oip, rng.randint(30000, 60000), rng.choice([0, 1]))
                else:
                    w = "socketProgressOpt: Call to recv from %s<%d> failed : Connection reset by peer" % (oip, rng.randint(30000, 60000))
                nl = ["%s NCCL WARN %s" % (p, w),
                      "%s NCCL INFO transport/net.cc:%d -> 6" % (p, rng.choice([1150, 1288, 1312])),
                      "%s NCCL INFO proxy.cc:%d -> 6" % (p, rng.choice([695, 868, 1520])),
                      "%s NCCL INFO proxy.cc:%d -> 6 [Progress Thread]" % (p, rng.choice([878, 1532]))]
                ts = tf + (0 if v == r0 else rng.uniform(0.05, 1.0))
                self.add(v, ts, nl)
                ex = ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d, remote process exited or there was a network error, NCCL version %s\n"
                      "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\nLast error:\n%s" % (rng.choice([1970, 2006, 1275]), ctx.nccl, w))
                self.add(v, ts + 0.4, py_tb(user_frames(ctx, self.script) + torch_bw_frames(ctx), ex, ctx))
                self.exit[v] = (ts + 0.9, 1)
        elif c == "host_oom_kill":
            self.kernel.setdefault(ctx.init_node, []).extend(cause_node_kernel(ctx, tf))
            if rng.random() < 0.35:
                # a dataloader worker was the victim -> the rank raises
                ex = ("RuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly" % (ctx.pids[r0] + rng.randint(5, 90)))
                fr = user_frames(ctx, self.script)[:2] + [(ctx.site + "/torch/utils/data/dataloader.py", 1328, "_next_data", "idx, data = self._get_data()"),
                                                          (ctx.site + "/torch/utils/data/dataloader.py", 1133, "_try_get_data", "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e")]
                self.add(r0, tf + 0.2, ["ERROR: Unexpected segmentation fault encountered in worker." if False else
                                        "RuntimeError: DataLoader worker (pid %d) is killed by signal: Killed. " % (ctx.pids[r0] + rng.randint(5, 90))] + [""] +
                         ["The above exception was the direct cause of the following exception:", ""] + py_tb(fr, ex, ctx))
            else:
                code = -9
        elif c == "crash_signal":
            k = rng.choice(["segv", "segv", "abrt", "bus"])
            if k == "segv":
                code = -11
                th = ["Fatal Python error: Segmentation fault", "",
                      "Thread 0x%016x (most recent call first):" % ctx.tids[r0],
                      '  File "%s/threading.py", line 324 in wait' % ctx.site.rsplit("/", 1)[0].replace("site-packages", "").replace("dist-packages", "").rstrip("/"),
                      '  File "%s/torch/utils/data/_utils/pin_memory.py", line 54 in do_one_step' % ctx.site, "",
                      "Current thread 0x%016x (most recent call first):" % (ctx.tids[r0] - 12288),
                      '  File "%s/%s", line %d in forward' % (ctx.site, rng.choice(["flash_attn/flash_attn_interface.py", "apex/normalization/fused_layer_norm.py", "xformers/ops/fmha/cutlass.py", "custom_ops/rope.py"]), rng.randint(40, 900)),
                      '  File "%s/torch/nn/modules/module.py", line 1541 in _call_impl' % ctx.site,
                      '  File "%s", line %d in train_one_epoch' % (self.script, rng.randint(60, 200)), "",
                      "Extension modules: numpy.core._multiarray_umath, torch._C, torch._C._fft, torch._C._linalg, torch._C._nn, torch._C._sparse, torch._C._special (total: %d)" % rng.randint(20, 90)]
                self.add(r0, tf, th)
            elif k == "abrt":
                code = -6
                self.add(r0, tf, [rng.choice(["free(): invalid pointer", "double free or corruption (!prev)", "malloc(): unsorted double linked list corrupted", "corrupted size vs. prev_size"])])
            else:
                code = -7
                self.add(r0, tf, ["ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm)."] if rng.random() < 0.4 else ["Bus error (core dumped)"])
        elif c == "preemption":
            dead = False
            self.sigterm_all = tf
            kind = rng.choice(["slurm_pre", "slurm_time", "spot", "k8s"])
            self.preempt_kind = kind
            for r in range(ctx.world):
                self.exit[r] = (tf + rng.uniform(0.2, 2.0), -15)
        elif c in STALL_CAUSES:
            dead = False
            # victim stops; everyone else times out in the collective
            tw = tf + ctx.timeout_ms / 1000.0
            op = rng.choice(["ALLREDUCE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE", "BROADCAST"])
            numel = rng.choice([1048576, 262144000, 54525952, 8388608])
            self.last_step[r0] = ctx.fail_step - (0 if c != "data_loader_stall" else 1)
            for r in range(ctx.world):
                if r == r0:
                    continue
                if c == "collective_mismatch":
                    wl = watchdog_lines(ctx, r, seq, op=op, numel=numel)
                else:
                    wl = watchdog_lines(ctx, r, seq, op=op, numel=numel)
                self.add(r, tw + rng.uniform(0, 3.0), wl)
                self.exit[r] = (tw + rng.uniform(3.0, 6.0), -6)
            if c == "collective_mismatch":
                op2 = rng.choice([o for o in ["ALLREDUCE", "_ALLGATHER_BASE", "BROADCAST", "ALLGATHER"] if o != op])
                numel2 = rng.choice([1, 4096, 1048576 + 512, numel // 2])
                self.add(r0, tw + rng.uniform(0, 3.0), watchdog_lines(ctx, r0, seq, op=op2, numel=numel2))
                self.exit[r0] = (tw + rng.uniform(3.0, 6.0), -6)
                self.mismatch = (op, numel, op2, numel2)
            elif c == "data_loader_stall":
                self.kernel.setdefault(ctx.init_node, []).extend(cause_node_kernel(ctx, tf))
                if rng.random() < 0.4:
                    tdl = tf + rng.choice([300, 600, 900])
                    if tdl < tw:
                        ex = "RuntimeError: DataLoader timed out after %d seconds" % int(tdl - tf)
                        fr = user_frames(ctx, self.script)[:2] + [(ctx.site + "/torch/utils/data/dataloader.py", 1134, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e")]
                        self.add(r0, tdl, py_tb(fr, ex, ctx))
                        self.exit[r0] = (tdl + 0.5, 1)
            self.tw = tw
        elif c == "straggler":
            dead = False
            self.slow_rank = r0
            self.end = tf + rng.uniform(600, 4000)
        elif c == "unknown":
            code = rng.choice([1, -9, -9, -6, 1])
            if rng.random() < 0.4:
                dead = False
                # everything just times out, nobody stands out
                tw = tf + ctx.timeout_ms / 1000.0
                for r in range(ctx.world):
                    self.add(r, tw + rng.uniform(0, 3.0), watchdog_lines(ctx, r, seq, last_done=seq - 1))
                    self.exit[r] = (tw + rng.uniform(3.0, 6.0), -6)
                self.tw = tw
        if dead and r0 not in self.exit:
            self.exit[r0] = (tf + rng.uniform(0.3, 1.5), code)
        if dead:
            self._collateral(tf)

    def _collateral(self, tf):
        """peers of a dead rank: connection resets or watchdog timeouts"""
        ctx = self.ctx
        rng = self.ctx.rng
        r0 = ctx.init_rank
        te = self.exit[r0][0]
        for n in range(ctx.nnodes):
            if n == ctx.init_node:
                continue
            mode = self.collateral if self.collateral != "mixed" else rng.choice(["watchdog", "reset"])
            for l in range(ctx.gpn):
                r = n * ctx.gpn + l
                if r in self.exit:
                    continue
                if mode == "reset":
                    t = te + rng.uniform(0.2, 8.0)
                    p = nccl_prefix(ctx, r)
                    w = rng.choice(["socketProgress: Connection closed by remote peer %s<%d>" % (ctx.hosts[ctx.init_node], rng.randint(30000, 60000)),
                                    "NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:%s remoteGids::ffff:%s" % (ctx.ips[ctx.init_node], rng.randint(30000, 60000), ctx.ips[n], ctx.ips[ctx.init_node]),
                                    "Net : Connection closed by remote peer %s<%d>" % (ctx.ips[ctx.init_node], rng.randint(30000, 60000))])
                    lines = ["%s NCCL WARN %s" % (p, w), "%s NCCL INFO transport/net_socket.cc:%d -> 6" % (p, rng.choice([540, 478]))] if rng.random() < 0.6 else []
                    if rng.random() < 0.5:
                        ex = ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d, remote process exited or there was a network error, NCCL version %s\n"
                              "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\nLast error:\n%s" % (rng.choice([1970, 2006]), ctx.nccl, w))
                        lines += py_tb(user_frames(ctx, self.script) + torch_bw_frames(ctx), ex, ctx)
                        code = 1
                    else:
                        lines += ["%s[E ProcessGroupNCCL.cpp:%d] [Rank %d] NCCL watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version %s" % (rk(ctx, r, torch_new(ctx)), rng.choice([1182, 915]), r, ctx.nccl),
                                  "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
                                  "Last error:", w,
                                  "terminate called after throwing an instance of 'c10::DistBackendError'"]
                        code = -6
                    self.add(r, t, lines)
                    self.exit[r] = (t + rng.uniform(0.2, 1.0), code)
                else:
                    seq = self.stall_seq
                    tw = te + ctx.timeout_ms / 1000.0 - rng.uniform(0, 5)
                    self.add(r, tw, watchdog_lines(ctx, r, seq))
                    self.exit[r] = (tw + rng.uniform(1, 4), -6)

    # ---- launcher side ----
    def node_first_failure(self, n):
        ctx = self.ctx
        loc = [(self.exit[r][0], r) for r in range(n * ctx.gpn, (n + 1) * ctx.gpn) if r in self.exit and self.exit[r][1] != -15]
        if not loc:
            return None
        return min(loc)[1]

    def node_end(self, n):
        ctx = self.ctx
        loc = [self.exit[r][0] for r in range(n * ctx.gpn, (n + 1) * ctx.gpn) if r in self.exit]
        return min(loc) if loc else None

    def rank_end(self, r):
        """time after which rank r prints no more progress"""
        ctx = self.ctx
        if ctx.healthy or self.tf is None:
            return None
        return self.tf


def elastic_log(ctx, node, secs, level, mod, msg):
    """torch.distributed.elastic logger line, old (logging default) or new (glog-like) style"""
    if ctx.torch >= "2.4":
        d = ctx.at(secs, node)
        return "%s%s %d %s] %s" % (level[0], d.strftime("%m%d %H:%M:%S.%f"), ctx.agent_pid[node] + 0 * 1,
                                   {"api": "torch/distributed/elastic/multiprocessing/api.py:%d" % ctx.rng.choice([869, 897, 833]),
                                    "agent": "torch/distributed/elastic/agent/server/api.py:%d" % ctx.rng.choice([704, 680]),
                                    "run": "torch/distributed/run.py:%d" % ctx.rng.choice([793, 857])}[mod], msg)
    name = {"api": "torch.distributed.elastic.multiprocessing.api",
            "agent": "torch.distributed.elastic.agent.server.api",
            "run": "torch.distributed.run"}[mod]
    return "%s:%s:%s" % (level, name, msg)


def torchrun_banner(ctx, node, secs):
    return [(secs, [elastic_log(ctx, node, secs, "WARNING", "run", ""),
                    "*****************************************",
                    "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
                    "*****************************************"])]


def torchrun_failure(ctx, F, n, entry_frames, script_name, binary="/usr/bin/python3"):
    """elastic agent output on node n after its first local failure. returns [(secs, lines)]"""
    rng = ctx.rng
    out = []
    if ctx.healthy or F.tf is None:
        return out
    gl = range(n * ctx.gpn, (n + 1) * ctx.gpn)
    if F.sigterm_all is not None:
        t = F.sigterm_all + rng.uniform(0.0, 0.3)
        lines = [elastic_log(ctx, n, t, "WARNING", "agent", "Received Signals.SIGTERM death signal, shutting down workers")]
        for r in gl:
            lines.append(elastic_log(ctx, n, t + 0.01, "WARNING", "api", "Sending process %d closing signal SIGTERM" % ctx.pids[r]))
        lines += py_tb(entry_frames + [(ctx.site + "/torch/distributed/elastic/multiprocessing/api.py", 62 if ctx.torch < "2.3" else 84, "_terminate_process_handler", "raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)")],
                       "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % ctx.agent_pid[n], ctx)
        out.append((t, lines))
        return out
    first = F.node_first_failure(n)
    if first is None:
        return out
    tfail, code = F.exit[first]
    t = tfail + rng.uniform(0.1, 4.5)
    lines = []
    for r in gl:
        if r != first and (r not in F.exit or F.exit[r][0] > tfail + 0.05):
            lines.append(elastic_log(ctx, n, t, "WARNING", "api", "Sending process %d closing signal SIGTERM" % ctx.pids[r]))
    lines.append(elastic_log(ctx, n, t + 0.8, "ERROR", "api", "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (code, ctx.lr(first), ctx.pids[first], binary)))
    others = [r for r in gl if r != first and r in F.exit and F.exit[r][1] != -15 and F.exit[r][0] <= t]
    tb = py_tb(entry_frames + [(ctx.site + "/torch/distributed/launcher/api.py", 263, "launch_agent", "raise ChildFailedError(")],
               "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", ctx)
    lines += tb
    lines.append("=" * 60)
    lines.append("%s FAILED" % script_name)
    lines.append("-" * 60)
    lines.append("Failures:")

    def block(i, r):
        tt, cd = F.exit[r]
        b = ["[%d]:" % i,
             "  time      : %s" % fmt_dt(ctx.at(tt, n), "torchrun_time"),
             "  host      : %s" % ctx.hosts[n],
             "  rank      : %d (local_rank: %d)" % (r, ctx.lr(r)),
             "  exitcode  : %d (pid: %d)" % (cd, ctx.pids[r]),
             "  error_file: <N/A>"]
        if cd < 0:
            b.append("  traceback : Signal %d (%s) received by PID %d" % (-cd, SIGNAME.get(cd, "SIG?"), ctx.pids[r]))
        else:
            b.append("  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
        return b
    if others:
        for i, r in enumerate(others[:6], 1):
            lines += block(i, r)
    else:
        lines.append("  <NO_OTHER_FAILURES>")
    lines.append("-" * 60)
    lines.append("Root Cause (first observed failure):")
    lines += block(0, first)
    lines.append("=" * 60)
    out.append((t, lines))
    return out


def healthy_agent_end(ctx, n, t):
    return [(t, [elastic_log(ctx, n, t, "INFO", "agent", "[default] worker group successfully finished. Waiting 300 seconds for other agents to finish."),
                 elastic_log(ctx, n, t + 0.01, "INFO", "agent", "Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish"),
                 elastic_log(ctx, n, t + 0.3, "INFO", "agent", "Done waiting for other agents. Elapsed: %.6f seconds" % ctx.rng.uniform(0.0005, 2.0))])] if ctx.torch < "2.4" else []


def step_times(ctx, F):
    """list of (step, secs) of logged steps up to the failure (or healthy end)."""
    rng = ctx.rng
    out = []
    t = 90.0
    last = ctx.fail_step if not ctx.healthy else min(ctx.total_steps, rng.randint(300, 1200))
    slow_from = None
    if F is not None and F.slow_rank is not None:
        slow_from = rng.randint(max(1, last // 5), max(2, last // 2))
        last = ctx.fail_step + rng.randint(100, 600)
        F.slow_from = slow_from
    for k in range(1, last + 1):
        f = 1.0
        if slow_from is not None and k >= slow_from:
            f = rng.uniform(1.5, 2.3)
        t += ctx.step_time * f * rng.uniform(0.96, 1.04)
        if k % ctx.log_every == 0 or (k == last and ctx.healthy):
            out.append((k, t))
    if F is not None and F.slow_rank is not None:
        F.end = t + rng.uniform(5, 60)
    return out


def merge_write(path, events, ctx=None):
    """events: list of (secs, [lines]) -> time-sorted file"""
    events = sorted(events, key=lambda e: e[0])
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for _, lines in events:
            for ln in lines:
                f.write(ln + "\n")


def truncate_head(events, keep_from):
    return [e for e in events if e[0] >= keep_from]


def torchrun_entry(ctx, accelerate=False):
    s = ctx.site
    if accelerate:
        head = [("/usr/local/bin/accelerate" if "usr/local" in s else s.split("/lib/")[0] + "/bin/accelerate", 8, "<module>", "sys.exit(main())"),
                (s + "/accelerate/commands/accelerate_cli.py", 48, "main", "args.func(args)"),
                (s + "/accelerate/commands/launch.py", ctx.rng.choice([1097, 1159, 1168]), "launch_command", "multi_gpu_launcher(args)"),
                (s + "/accelerate/commands/launch.py", ctx.rng.choice([734, 793, 801]), "multi_gpu_launcher", "distrib_run.run(args)")]
    else:
        head = [("/usr/local/bin/torchrun" if "usr/local" in s else s.split("/lib/")[0] + "/bin/torchrun", 8, "<module>", "sys.exit(main())"),
                (s + "/torch/distributed/elastic/multiprocessing/errors/__init__.py", 347, "wrapper", "return f(*args, **kwargs)"),
                (s + "/torch/distributed/run.py", 812, "main", "run(args)")]
    return head + [(s + "/torch/distributed/run.py", 803, "run", "elastic_launch("),
                   (s + "/torch/distributed/launcher/api.py", 135, "__call__", "return launch_agent(self._config, self._entrypoint, list(args))")]


def rank_raw(ctx, F, r, prefix_py=None, label=None):
    """F.raw blocks of rank r as (secs, lines); python tracebacks get the torch>=2.3 '[rankN]: ' prefix."""
    if prefix_py is None:
        prefix_py = ctx.torch >= "2.3"
    out = []
    for secs, lines in F.raw.get(r, []):
        if prefix_py and any(l.startswith("Traceback (most recent") for l in lines):
            nl = []
            on = False
            for l in lines:
                if l.startswith("Traceback (most recent") or l.startswith("The above exception"):
                    on = True
                if on and not l.startswith("[rank") and " NCCL WARN " not in l and " NCCL INFO " not in l:
                    nl.append("[rank%d]: %s" % (r, l))
                else:
                    nl.append(l)
            lines = nl
        if label is not None:
            lines = [label + l for l in lines]
        out.append((secs, lines))
    return out


def kernel_files(ctx, F, base, style=None, prob=0.75, name="dmesg_{host}.txt"):
    """write kernel log excerpts for the nodes with kernel evidence (the operator pulled them)."""
    rng = ctx.rng
    written = []
    if ctx.healthy:
        if rng.random() < 0.25:
            n = rng.randrange(ctx.nnodes)
            st = style or rng.choice(["dmesgT", "syslog", "journal"])
            merge_write(os.path.join(base, name.format(host=ctx.hosts[n])), [(0, write_kernel_log(ctx, n, 3000, st))])
            written.append(n)
        return written
    for n, evs in sorted(F.kernel.items()):
        if evs and (rng.random() < prob or ctx.cause in ("gpu_hardware", "host_oom_kill", "data_loader_stall")):
            st = style or rng.choice(["dmesgT", "syslog", "journal", "dmesg"])
            merge_write(os.path.join(base, name.format(host=ctx.hosts[n])), [(0, write_kernel_log(ctx, n, F.tf or 3000, st, evs))])
            written.append(n)
    return written


def ranks_with_visible_error(F, ranks):
    return [r for r in ranks if F.raw.get(r)]


def decide_visibility(ctx, F, visible_ranks, rank_attrib=True, kernel_nodes=(), host_visible_nodes=()):
    """Set ctx.show_rank / show_node from what was actually written.
    visible_ranks: ranks whose own output lands in the bundle with rank attribution."""
    c = ctx.cause
    r0 = ctx.init_rank
    if ctx.healthy or c in ("preemption", "unknown"):
        return
    vis = set(visible_ranks)
    if c in ("hang", "data_loader_stall"):
        # a careful expert can find the silent rank only if every other rank's timeout is visible
        others = [r for r in range(ctx.world) if r != r0]
        if rank_attrib and all(r in vis for r in others) and not F.raw.get(r0):
            ctx.show_rank = True
        if rank_attrib and F.raw.get(r0) and r0 in vis:
            ctx.show_rank = True
    elif c == "straggler":
        pass
    elif c in ("gpu_hardware", "ecc_memory", "nvlink") and ctx.init_node in kernel_nodes:
        ctx.show_node = True
        if rank_attrib and r0 in vis:
            ctx.show_rank = True
    else:
        if rank_attrib and r0 in vis:
            ctx.show_rank = True
    if ctx.init_node in kernel_nodes and c in ("host_oom_kill", "network", "data_loader_stall", "illegal_memory_access", "gpu_hardware", "ecc_memory", "nvlink"):
        ctx.show_node = True
    if ctx.show_rank and ctx.init_node in host_visible_nodes:
        ctx.show_node = True


# ----------------------------------------------------------------------------
# helpers shared by layouts
# ----------------------------------------------------------------------------
def pick_files_nodes(ctx, p_all=0.65):
    """which node logs did the user attach?"""
    if ctx.nnodes == 1 or ctx.rng.random() < p_all:
        return list(range(ctx.nnodes))
    keep = {0}
    if not ctx.healthy:
        keep.add(ctx.init_node)
    if ctx.rng.random() < 0.5:
        keep.add(ctx.rng.randrange(ctx.nnodes))
    return sorted(keep)


def node_collateral_and_agent(ctx, F, n, entry, script_name, prefix_py=None, label_fn=None):
    """raw per-rank error output of node n + elastic agent lines"""
    ev = []
    for r in range(n * ctx.gpn, (n + 1) * ctx.gpn):
        ev += rank_raw(ctx, F, r, prefix_py=prefix_py, label=(label_fn(r) if label_fn else None))
    ag = torchrun_failure(ctx, F, n, entry, script_name)
    if label_fn:
        ag = [(t, [label_fn(None) + l for l in ls]) for t, ls in ag]
    ev += ag
    return ev


def visible_from_nodes(ctx, F, nodes, prefix=True):
    vis = []
    for n in nodes:
        for r in range(n * ctx.gpn, (n + 1) * ctx.gpn):
            blob = "\n".join(l for _, ls in F.raw.get(r, []) for l in ls)
            if (prefix and blob) or ("[Rank %d]" % r) in blob or ("[rank%d]" % r) in blob:
                vis.append(r)
        fr = F.node_first_failure(n)
        if fr is not None:
            vis.append(fr)
    return vis


def loss_curve(ctx, k, start=None):
    start = start or ctx.rng.uniform(2.0, 11.0)
    return max(0.05, start * (0.55 + 0.45 * (1.0 / (1 + k / 400.0))) + ctx.rng.uniform(-0.05, 0.05))


# ----------------------------------------------------------------------------
# Layout 1: Hugging Face Trainer / accelerate example scripts under accelerate launch or torchrun
# ----------------------------------------------------------------------------
def lay_hf_accelerate(ctx, base):
    rng = ctx.rng
    script = rng.choice(["run_clm.py", "run_mlm.py", "run_translation.py", "train_sft.py", "run_clm_no_trainer.py", "run_image_classification_no_trainer.py"])
    F = TorchFail(ctx, script="/workspace/transformers/examples/pytorch/" + script if rng.random() < 0.5 else script)
    steps = step_times(ctx, F)
    use_acc = rng.random() < 0.7
    no_trainer = "no_trainer" in script
    nccl_debug = rng.random() < 0.35
    fp = rng.choice(["bf16", "fp16", "no"])
    files_nodes = pick_files_nodes(ctx)
    total = ctx.total_steps
    l0 = rng.uniform(2.0, 9.0)
    kern_nodes = kernel_files(ctx, F, base)
    mdt = lambda n, s: fmt_dt(ctx.at(s, n), "us_date")
    hft = lambda n, s: fmt_dt(ctx.at(s, n), "iso_ms_comma")
    for n in files_nodes:
        ev = []
        t = 1.0
        if use_acc:
            ev.append((t, ["The following values were not passed to `accelerate launch` and had defaults used instead:",
                           "\t`--dynamo_backend` was set to a value of `'no'`",
                           "To avoid this warning pass in values for each of the problematic parameters or run `accelerate config`."]))
        ev += torchrun_banner(ctx, n, t + 0.5)
        for l in range(ctx.gpn):
            r = n * ctx.gpn + l
            ts = 8 + rng.uniform(0, 3)
            if no_trainer:
                ev.append((ts, ["%s - INFO - __main__ - Distributed environment: MULTI_GPU  Backend: nccl" % mdt(n, ts),
                                "Num processes: %d" % ctx.world, "Process index: %d" % r, "Local process index: %d" % l,
                                "Device: cuda:%d" % l, "", "Mixed precision type: %s" % fp, ""]))
            else:
                ev.append((ts, ["%s - WARNING - __main__ - Process rank: %d, device: cuda:%d, n_gpu: 1, distributed training: True, 16-bits training: %s"
                                % (mdt(n, ts), l, l, fp == "fp16")]))
            if nccl_debug:
                ev.append((30 + rng.uniform(0, 5), nccl_info_noise(ctx, r, rng.randint(3, 7))))
        ev.append((20, harmless_noise(ctx)))
        if n == 0:
            ts = 12.0
            if not no_trainer:
                lines = ["%s - INFO - __main__ - Training/evaluation parameters TrainingArguments(" % mdt(0, ts),
                         "_n_gpu=1,", "bf16=%s," % (fp == "bf16"), "ddp_timeout=%d," % (ctx.timeout_ms // 1000),
                         "gradient_accumulation_steps=%d," % rng.choice([1, 2, 4, 8]), "learning_rate=%s," % rng.choice(["2e-05", "5e-05", "0.0001"]),
                         "local_rank=0,", "logging_steps=%d," % ctx.log_every, "max_steps=%d," % total, "output_dir=/output/%s," % rng.choice(["llama-sft", "clm-run3", "mt5-en-de"]), ")"]
                ev.append((ts, lines))
                ev.append((ts + 2, ["[INFO|configuration_utils.py:%d] %s >> loading configuration file config.json from cache at /root/.cache/huggingface/hub/models--%s/snapshots/%040x/config.json"
                                    % (rng.choice([726, 731, 733]), hft(0, ts + 2), rng.choice(["meta-llama--Llama-2-7b-hf", "gpt2-large", "EleutherAI--pythia-1.4b", "google--mt5-base"]), rng.getrandbits(160)),
                                    "[INFO|modeling_utils.py:%d] %s >> loading weights file model.safetensors from cache at /root/.cache/huggingface/hub/..." % (rng.choice([3474, 3553, 3667]), hft(0, ts + 3)),
                                    "[INFO|modeling_utils.py:%d] %s >> All model checkpoint weights were used when initializing %s." % (rng.choice([4350, 4432]), hft(0, ts + 40), rng.choice(["LlamaForCausalLM", "GPT2LMHeadModel", "GPTNeoXForCausalLM"]))]))
                ev.append((60, ["[WARNING|logging.py:%d] %s >> `use_cache=True` is incompatible with gradient checkpointing. Setting `use_cache=False`..." % (rng.choice([314, 328]), hft(0, 60))]))
                ev.append((85, ["[INFO|trainer.py:%d] %s >> ***** Running training *****" % (rng.choice([1969, 2078, 2128]), hft(0, 85)),
                                "[INFO|trainer.py:2079] %s >>   Num examples = %s" % (hft(0, 85), format(rng.randint(50000, 9000000), ",")),
                                "[INFO|trainer.py:2080] %s >>   Num Epochs = %d" % (hft(0, 85), rng.randint(1, 3)),
                                "[INFO|trainer.py:2081] %s >>   Instantaneous batch size per device = %d" % (hft(0, 85), rng.choice([4, 8, 16])),
                                "[INFO|trainer.py:2084] %s >>   Total train batch size (w. parallel, distributed & accumulation) = %d" % (hft(0, 85), ctx.world * rng.choice([8, 16, 32])),
                                "[INFO|trainer.py:2085] %s >>   Gradient Accumulation steps = %d" % (hft(0, 85), rng.choice([1, 2, 4])),
                                "[INFO|trainer.py:2086] %s >>   Total optimization steps = %s" % (hft(0, 85), format(total, ",")),
                                "[INFO|trainer.py:2087] %s >>   Number of trainable parameters = %s" % (hft(0, 85), format(rng.randint(100000000, 7000000000), ","))]))
            else:
                ev.append((85, ["%s - INFO - __main__ - ***** Running training *****" % mdt(0, 85),
                                "%s - INFO - __main__ -   Num examples = %d" % (mdt(0, 85), rng.randint(50000, 900000)),
                                "%s - INFO - __main__ -   Num Epochs = %d" % (mdt(0, 85), rng.randint(1, 3)),
                                "%s - INFO - __main__ -   Total optimization steps = %d" % (mdt(0, 85), total)]))
            prev = 88.0
            buf = []
            for k, s in steps:
                el = s - 88
                bar = tqdm_bar(k, total, el, (s - prev) / ctx.log_every if k > ctx.log_every else ctx.step_time)
                buf.append(bar)
                if rng.random() < 0.5 or k == steps[-1][0]:
                    ev.append((s, ["\r".join([""] + buf)]))
                    buf = []
                if not no_trainer:
                    ev.append((s + 0.01, ["{'loss': %.4f, 'grad_norm': %.6f, 'learning_rate': %.10g, 'epoch': %.2f}"
                                          % (loss_curve(ctx, k, l0), rng.uniform(0.2, 3.0), 2e-5 * (1 - k / total), k / total * 3)]))
                prev = s
            if ctx.healthy:
                te = steps[-1][1] + 5
                ev.append((te, ["", "", "Training completed. Do not forget to share your model on huggingface.co/models =)", "", "",
                                "{'train_runtime': %.4f, 'train_samples_per_second': %.3f, 'train_steps_per_second': %.3f, 'train_loss': %.6f, 'epoch': %.2f}" % (te - 85, rng.uniform(10, 200), 1 / ctx.step_time, l0 * 0.7, 1.0),
                                "[INFO|trainer.py:3410] %s >> Saving model checkpoint to /output/final" % hft(0, te + 1),
                                "***** train metrics *****", "  epoch                    =        1.0", "  total_flos               = %dGF" % rng.randint(10000, 9999999),
                                "  train_loss               =     %.4f" % (l0 * 0.7)]))
        if ctx.healthy:
            te = steps[-1][1] + 20
            ev += healthy_agent_end(ctx, n, te)
            if rng.random() < 0.5:
                ev.append((te - 1, scary_harmless(ctx, n)))
        else:
            ev += node_collateral_and_agent(ctx, F, n, torchrun_entry(ctx, use_acc), script)
        if rng.random() < 0.3:
            ev.append((rng.uniform(100, steps[-1][1]), scary_harmless(ctx, n)))
        name = "train.log" if ctx.nnodes == 1 else "train_%s.log" % ctx.hosts[n]
        if n == 0 and ctx.nnodes > 1 and len(files_nodes) == 1:
            name = "train.log"
        if rng.random() < 0.25 and not ctx.healthy:
            # user trimmed the beginning
            ev = truncate_head(ev, steps[max(0, len(steps) // 2)][1])
            ev.insert(0, (0, ["[... earlier output trimmed ...]"]))
        merge_write(os.path.join(base, name), ev)
    decide_visibility(ctx, F, visible_from_nodes(ctx, F, files_nodes, prefix=ctx.torch >= "2.3"),
                      kernel_nodes=kern_nodes, host_visible_nodes=files_nodes)
    return F, "accelerate launch" if use_acc else "torchrun"


# ----------------------------------------------------------------------------
# SLURM helpers (srun one task per GPU: task id == global rank)
# ----------------------------------------------------------------------------
def srun_task_desc(code):
    return {1: "Exited with exit code 1", -6: "Aborted (core dumped)", -9: "Killed", -11: "Segmentation fault (core dumped)",
            -7: "Bus error (core dumped)", -15: "Terminated"}.get(code, "Exited with exit code %d" % (code & 0xff))


def ranges(xs):
    xs = sorted(xs)
    out = []
    i = 0
    while i < len(xs):
        j = i
        while j + 1 < len(xs) and xs[j + 1] == xs[j] + 1:
            j += 1
        out.append(str(xs[i]) if i == j else "%d-%d" % (xs[i], xs[j]))
        i = j + 1
    return ",".join(out)


def slurm_tail(ctx, F, kill_on_bad_exit=True):
    """srun/slurmstepd lines (on the batch host = node 0 clock). returns [(secs, lines)]"""
    rng = ctx.rng
    ev = []
    if ctx.healthy or F.tf is None:
        return ev
    h0 = ctx.hosts[0]
    if F.sigterm_all is not None:
        t = F.sigterm_all
        why = {"slurm_pre": " DUE TO PREEMPTION", "slurm_time": " DUE TO TIME LIMIT"}.get(getattr(F, "preempt_kind", ""), "")
        if why == "":
            why = rng.choice([" DUE TO PREEMPTION", " DUE TO TIME LIMIT", ""])
        lines = ["srun: Job step aborted: Waiting up to 32 seconds for job step to finish."]
        for n in range(ctx.nnodes):
            lines.append("slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s%s ***" % (ctx.jobid, ctx.hosts[n], fmt_dt(ctx.at(t, n), "slurm"), why))
        lines.insert(0, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s%s ***" % (ctx.jobid, h0, fmt_dt(ctx.at(t, 0), "slurm"), why))
        if why == "":
            F.preempt_kind = "scancel"
        ev.append((t, lines))
        return ev
    exits = sorted((F.exit[r][0], r) for r in F.exit)
    if not exits:
        return ev
    t1, r1 = exits[0]
    lines = []
    if ctx.cause == "host_oom_kill" and F.exit.get(ctx.init_rank, (0, 0))[1] == -9:
        lines.append("slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % ctx.jobid)
        lines.append("srun: error: %s: task %d: Out Of Memory" % (ctx.hosts[ctx.node_of(r1)], r1))
    else:
        lines.append("srun: error: %s: task %d: %s" % (ctx.hosts[ctx.node_of(r1)], r1, srun_task_desc(F.exit[r1][1])))
    ev.append((t1 + 0.5, lines))
    if kill_on_bad_exit:
        t2 = t1 + rng.uniform(0.6, 2)
        lines = ["srun: Job step aborted: Waiting up to 32 seconds for job step to finish."]
        for n in range(ctx.nnodes):
            lines.append("slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (ctx.jobid, ctx.hosts[n], fmt_dt(ctx.at(t2, n), "slurm")))
        for n in range(ctx.nnodes):
            ks = [r for r in range(n * ctx.gpn, (n + 1) * ctx.gpn) if r != r1 and (r not in F.exit or F.exit[r][0] > t2)]
            if ks:
                lines.append("srun: error: %s: task%s %s: Killed" % (ctx.hosts[n], "s" if len(ks) > 1 else "", ranges(ks)))
        # the rest of the ranks die now
        for r in range(ctx.world):
            if r not in F.exit or F.exit[r][0] > t2:
                F.exit[r] = (t2 + 0.1, -9)
                F.raw[r] = [b for b in F.raw.get(r, []) if b[0] <= t2]
        ev.append((t2, lines))
    else:
        for r in exits[1:6]:
            ev.append((r[0] + 0.5, ["srun: error: %s: task %d: %s" % (ctx.hosts[ctx.node_of(r[1])], r[1], srun_task_desc(F.exit[r[1]][1]))]))
    return ev


# ----------------------------------------------------------------------------
# Layout 2: MMEngine / MMDetection launched with srun (tools/slurm_train.sh)
# ----------------------------------------------------------------------------
def lay_mmengine_slurm(ctx, base):
    rng = ctx.rng
    cfg = rng.choice(["rtmdet_l_8xb32-300e_coco", "mask-rcnn_r50_fpn_1x_coco", "dino-4scale_r50_8xb2-12e_coco",
                      "yolox_l_8xb8-300e_coco", "upernet_swin-b_8xb2-160k_ade20k", "faster-rcnn_r101_fpn_2x_coco"])
    F = TorchFail(ctx, script="tools/train.py")
    ctx.log_every = 50
    steps = step_times(ctx, F)
    iters = rng.choice([1833, 2693, 7330, 3665, 1250])
    kob = rng.random() < 0.8
    T = lambda s: fmt_dt(ctx.at(s, 0), "mm_slash")
    lg = lambda s, lvl, msg: "%s - mmengine - %s - %s" % (T(s), lvl, msg)
    stamp = ctx.at(5, 0).strftime("%Y%m%d_%H%M%S")
    logf = []   # rank-0 file logger lines
    out = []    # slurm-*.out
    env = ["------------------------------------------------------------", "System environment:", "    sys.platform: linux",
           "    Python: %s.%d (main, %s) [GCC 11.4.0]" % (ctx.py, rng.randint(4, 14), "Nov 20 2023"), "    CUDA available: True",
           "    MUSA available: False", "    numpy_random_seed: %d" % rng.getrandbits(30), "    GPU 0,1,2,3,4,5,6,7: %s" % ctx.gpu_name,
           "    CUDA_HOME: /usr/local/cuda", "    NVCC: Cuda compilation tools, release 12.1, V12.1.105",
           "    PyTorch: %s" % ctx.torch, "    TorchVision: 0.%d.0" % rng.randint(16, 20), "    OpenCV: 4.%d.0" % rng.randint(7, 9),
           "    MMEngine: 0.10.%d" % rng.randint(1, 5), "", "Runtime environment:", "    cudnn_benchmark: False",
           "    mp_cfg: {'mp_start_method': 'fork', 'opencv_num_threads': 0}", "    dist_cfg: {'backend': 'nccl'}",
           "    seed: %d" % rng.getrandbits(30), "    Distributed launcher: slurm", "    Distributed training: True",
           "    GPU number: %d" % ctx.world, "------------------------------------------------------------", ""]
    logf.append((6, [lg(6, "INFO", "")] + env))
    logf.append((7, [lg(7, "INFO", "Config:"), "auto_scale_lr = dict(base_batch_size=16, enable=False)", "backend_args = None",
                     "data_root = 'data/coco/'", "default_scope = 'mmdet'", "...", ""]))
    if rng.random() < 0.6:
        logf.append((30, [lg(30, "WARNING", "The prefix is not set in metric class DumpDetResults.")]))
    logf.append((35, [lg(35, "INFO", "Distributed training is not used, all SyncBatchNorm (SyncBN) layers in the model will be automatically reverted to BatchNormXd layers if they are used.") if False else
                      lg(35, "INFO", "Hooks will be executed in the following order:"), "before_run:", "(VERY_HIGH   ) RuntimeInfoHook", "(BELOW_NORMAL) LoggerHook", " -------------------- "]))
    logf.append((60, [lg(60, "INFO", "Load checkpoint from %s" % rng.choice(["torchvision://resnet50", "open-mmlab://detectron2/resnet50_caffe", "https://download.openmmlab.com/mmdetection/v3.0/rtmdet/cspnext_rsb_pretrain/cspnext-l_8xb256-rsb-a1-600e_in1k-6a760974.pth"]))]))
    logf.append((80, [lg(80, "WARNING", '"FileClient" will be deprecated in future. Please use io functions in https://mmengine.readthedocs.io/en/latest/api/fileio.html#file-io'),
                      lg(80, "WARNING", '"HardDiskBackend" is the alias of "LocalBackend" and the former will be deprecated in future.'),
                      lg(80, "INFO", "Checkpoints will be saved to /mnt/%s/work_dirs/%s." % (ctx.user, cfg))]))
    scal = []
    l0 = rng.uniform(1.5, 4.0)
    mem = rng.randint(4000, 30000)
    for k, s in steps:
        ep = (k - 1) // iters + 1
        it = (k - 1) % iters + 1
        t_it = ctx.step_time * rng.uniform(0.97, 1.03)
        dt = rng.uniform(0.004, 0.05)
        if ctx.cause == "data_loader_stall" and k > ctx.fail_step - 3 * ctx.log_every:
            dt = rng.uniform(0.5, 3.0) * ctx.step_time
        loss = loss_curve(ctx, k, l0)
        a = loss * rng.uniform(0.2, 0.4)
        b = loss * rng.uniform(0.3, 0.5)
        msg = ("Epoch(train)  [%d][%*d/%d]  base_lr: 2.0000e-02 lr: %.4e  eta: %s  time: %.4f  data_time: %.4f  memory: %d  grad_norm: %.4f  loss: %.4f  loss_cls: %.4f  loss_bbox: %.4f"
               % (ep, len(str(iters)), it, iters, 0.02 * min(1, k / 500), hms((ctx.total_steps - k) * t_it), t_it, dt, mem + rng.randint(-50, 300), rng.uniform(1, 30), loss, a, b))
        logf.append((s, [lg(s, "INFO", msg)]))
        scal.append((s, ['{"base_lr": 0.02, "lr": %.8f, "data_time": %.4f, "grad_norm": %.4f, "loss": %.4f, "loss_cls": %.4f, "loss_bbox": %.4f, "time": %.4f, "epoch": %d, "iter": %d, "memory": %d, "step": %d}'
                         % (0.02 * min(1, k / 500), dt, rng.uniform(1, 30), loss, a, b, t_it, ep, k, mem, k)]))
        if k % iters == 0:
            logf.append((s + 1, [lg(s + 1, "INFO", "Exp name: %s_%s" % (cfg, stamp)), lg(s + 2, "INFO", "Saving checkpoint at %d epochs" % ep)]))
    if ctx.healthy:
        te = steps[-1][1] + 3
        logf.append((te, [lg(te, "INFO", "Epoch(val)  [%d][%d/%d]    eta: 0:00:00  time: 0.0812  data_time: 0.0021  memory: 1312" % (1, 625, 625)),
                          lg(te + 30, "INFO", "Evaluating bbox..."),
                          " Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = %.3f" % rng.uniform(0.2, 0.5),
                          lg(te + 60, "INFO", "bbox_mAP_copypaste: %.3f %.3f %.3f %.3f %.3f %.3f" % tuple(rng.uniform(0.1, 0.7) for _ in range(6)))]))
    out += logf
    # other ranks' loggers are at ERROR level; all stderr goes to slurm-*.out as well
    out.append((40, harmless_noise(ctx)))
    if rng.random() < 0.3:
        out.append((rng.uniform(100, steps[-1][1]), scary_harmless(ctx, 0)))
    if not ctx.healthy:
        for r in range(ctx.world):
            out += rank_raw(ctx, F, r)
        out += slurm_tail(ctx, F, kob)
        if F.slow_rank is None and rng.random() < 0.2:
            # user trimmed the tail of the file keeping only the last part
            pass
    kern_nodes = kernel_files(ctx, F, base, name="kern_{host}.log")
    merge_write(os.path.join(base, "slurm-%d.out" % ctx.jobid), out)
    merge_write(os.path.join(base, "work_dirs", cfg, stamp, stamp + ".log"), logf)
    if rng.random() < 0.6:
        merge_write(os.path.join(base, "work_dirs", cfg, stamp, "vis_data", "scalars.json"), scal)
    vis = []
    for r in range(ctx.world):
        blob = "\n".join(l for _, ls in F.raw.get(r, []) for l in ls)
        if blob and (ctx.torch >= "2.3" or ("[Rank %d]" % r) in blob):
            vis.append(r)
    # srun error names the first task that exited (task id == rank) and its host
    ex = sorted((F.exit[r][0], r) for r in F.exit)
    if ex and not ctx.healthy and F.sigterm_all is None:
        vis.append(ex[0][1])
    decide_visibility(ctx, F, vis, kernel_nodes=kern_nodes, host_visible_nodes=list(range(ctx.nnodes)))
    return F, "srun (tools/slurm_train.sh, --kill-on-bad-exit=%d)" % int(kob)


# ----------------------------------------------------------------------------
# Layout 3: NeMo (Megatron GPT) + PyTorch Lightning under NeMo-Framework-Launcher sbatch/srun
# ----------------------------------------------------------------------------
def nemo_line(ctx, node, secs, lvl, where, msg):
    return "[NeMo %s %s %s] %s" % (lvl, fmt_dt(ctx.at(secs, node), "iso_s"), where, msg)


def lay_nemo_slurm(ctx, base):
    rng = ctx.rng
    model = rng.choice(["gpt3_5b", "gpt3_20b", "llama2_7b", "llama3_8b", "mixtral_8x7b", "nemotron_15b"])
    F = TorchFail(ctx, script="/opt/NeMo/examples/nlp/language_modeling/megatron_gpt_pretraining.py")
    steps = step_times(ctx, F)
    tp = rng.choice([1, 2, 4, 8])
    pp = rng.choice([1, 1, 2]) if ctx.world >= 16 else 1
    dp = max(1, ctx.world // (tp * pp))
    N = lambda s, lvl, w, m: nemo_line(ctx, 0, s, lvl, w, m)
    o, e = [], []   # .out / .err
    rlog = []        # nemo_log_globalrank-0_localrank-0.txt
    elog = []        # nemo_error_log.txt
    o.append((3, ["    ____  ________    ____________", "", "NeMo Framework Launcher: %s job %d on %d nodes" % (model, ctx.jobid, ctx.nnodes)] if rng.random() < 0.2 else []))
    rlog.append((5, [N(5, "I", "exp_manager:396", "Experiments will be logged at /results/%s" % model),
                     N(5, "I", "exp_manager:856", "TensorboardLogger has been set up")]))
    for r in range(ctx.world):
        e.append((6 + r * 0.01, ["Initializing distributed: GLOBAL_RANK: %d, MEMBER: %d/%d" % (r, r + 1, ctx.world)]))
    e.append((4, ["GPU available: True (cuda), used: True", "TPU available: False, using: 0 TPU cores", "IPU available: False, using: 0 IPUs", "HPU available: False, using: 0 HPUs"]))
    e.append((9, ["-" * 100, "distributed_backend=nccl", "All distributed processes registered. Starting with %d processes" % ctx.world, "-" * 100, ""]))
    init = [N(10, "I", "megatron_init:263", "Rank 0 has data parallel group : %s" % list(range(0, ctx.world, tp * pp))[:16]),
            N(10, "I", "megatron_init:284", "Ranks 0 has tensor model parallel group: %s" % list(range(tp))),
            N(10, "I", "megatron_init:313", "Rank 0 has pipeline model parallel group: %s" % list(range(0, ctx.world, ctx.world // pp))[:pp]),
            N(10, "I", "megatron_init:319", "Rank 0 has embedding group: %s" % [0]),
            N(11, "I", "tokenizer_utils:193", "Getting Megatron tokenizer for pretrained model name: megatron-gpt-345m, custom vocab file: None, and merges file: None"),
            N(25, "W", "nemo_logging:349", "%s/pytorch_lightning/trainer/connectors/logger_connector/logger_connector.py:75: Starting from v1.9.0, `tensorboardX` has been removed as a dependency of the `pytorch_lightning` package, due to potential conflicts with other packages in the ML ecosystem. For this reason, `logger=True` will use `CSVLogger` as the default logger, unless the `tensorboard` or `tensorboardX` packages are found. Please `pip install lightning[extra]` or one of them to enable TensorBoard support by default" % ctx.site),
            N(40, "I", "megatron_gpt_model:%d" % rng.choice([1340, 1561, 1629]), "Pipeline model parallel rank: 0, Tensor model parallel rank: 0, Number of model parameters on device: %.2e. Total number of model parameters: %.2e." % (rng.uniform(3e8, 2e9), rng.uniform(5e9, 8e10))),
            N(60, "I", "data_samplers:76", "Instantiating MegatronPretrainingSampler with total_samples: %d and consumed_samples: 0" % rng.randint(10 ** 7, 10 ** 9)),
            N(70, "I", "nlp_overrides:%d" % rng.choice([752, 1001]), "Optimizer config = MegatronDistributedFusedAdam (\nParameter Group 0\n    betas: [0.9, 0.95]\n    lr: 0.0001\n    weight_decay: 0.1\n)"),
            N(71, "I", "lr_scheduler:%d" % rng.choice([915, 948]), "Scheduler \"<nemo.core.optim.lr_scheduler.CosineAnnealing object at 0x7f%x>\" \nwill be used during training (effective maximum steps = %d) - \nParameters : \n(warmup_steps: 500\nconstant_steps: 0\nmin_lr: 1.0e-05\nmax_steps: %d\n)" % (rng.getrandbits(36), ctx.total_steps, ctx.total_steps))]
    rlog.append((10, init))
    for l in init:
        pass
    o.append((10, init))
    e.append((72, ["", "  | Name  | Type     | Params", "-----------------------------------", "0 | model | GPTModel | %.0f M  " % rng.uniform(300, 2000),
                   "-----------------------------------", "%.0f M     Trainable params" % rng.uniform(300, 2000), "0         Non-trainable params", ""]))
    e.append((20, harmless_noise(ctx)))
    if rng.random() < 0.4:
        for r in range(ctx.gpn):
            e.append((30 + rng.random(), nccl_info_noise(ctx, r, 3)))
    # progress: Lightning bar on stderr of rank 0 (carriage returns), NeMo metrics in postfix
    gbs = dp * rng.choice([4, 8, 16])
    prev = 80.0
    buf = []
    strag_lines = []
    for k, s in steps:
        tms = (s - prev) / ctx.log_every
        prev = s
        bar = tqdm_bar(k, ctx.total_steps, s - 80, tms, postfix="reduced_train_loss=%.3f, global_step=%.1f, consumed_samples=%.1f, train_step_timing in s=%.3f" % (loss_curve(ctx, k, 8.0), k - 1, (k) * gbs, tms),
                       desc="Epoch 0: :")
        buf.append(bar)
        if rng.random() < 0.4 or k == steps[-1][0]:
            e.append((s, ["\r".join([""] + buf)]))
            buf = []
        if F.slow_rank is not None and k >= getattr(F, "slow_from", 10 ** 9) and (k // ctx.log_every) % 5 == 0:
            sr = F.slow_rank
            others = rng.sample([x for x in range(ctx.world) if x != sr], min(4, ctx.world - 1))
            sc = [round(rng.uniform(0.55, 0.72), 2)] + sorted(round(rng.uniform(0.93, 0.99), 2) for _ in others)
            rl = [N(s, "I", "straggler_det_callback:%d" % 164, ""), "GPU relative performance:", " Worst performing %d/%d ranks:" % (len(others) + 1, ctx.world)]
            for x, scv in zip([sr] + others, sc):
                rl.append("  Rank=%d Node=%s Score=%.2f" % (x, ctx.hosts[ctx.node_of(x)], scv))
            rl += ["GPU individual performance:", " Worst performing %d/%d ranks:" % (len(others) + 1, ctx.world)]
            for x, scv in zip([sr] + others, sc):
                rl.append("  Rank=%d Node=%s Score=%.2f" % (x, ctx.hosts[ctx.node_of(x)], min(1.0, scv + rng.uniform(-0.02, 0.03))))
            rl.append(N(s, "W", "straggler_det_callback:%d" % 185, "STRAGGLER DETECTION WARNING: Some GPUs have worse relative performance. Affected ranks: [%d]" % sr))
            strag_lines.append((s + 0.2, rl))
    o += strag_lines
    rlog += strag_lines
    if F.slow_rank is not None and rng.random() < 0.5:
        # the job eventually hits its wall time
        F.sigterm_all = F.end
        F.preempt_kind = "slurm_time"
        for r in range(ctx.world):
            F.exit[r] = (F.end + rng.uniform(0.2, 2), -15)
    if ctx.healthy:
        te = steps[-1][1] + 2
        e.append((te, ["`Trainer.fit` stopped: `max_steps=%d` reached." % steps[-1][0]]))
        o.append((te + 1, [N(te + 1, "I", "nlp_overrides:%d" % 593, "Saving checkpoint to /results/%s/checkpoints/megatron_gpt--val_loss=%.2f-step=%d-consumed_samples=%d.0-last.ckpt" % (model, rng.uniform(1.5, 3), steps[-1][0], steps[-1][0] * gbs))]))
    else:
        for r in range(ctx.world):
            e += rank_raw(ctx, F, r)
        if F.sigterm_all is not None:
            t = F.sigterm_all
            if rng.random() < 0.6:
                for r in range(0, ctx.world, max(1, ctx.world // 4)):
                    e.append((t + 0.05, ["[rank: %d] Received SIGTERM: 15" % r]))
            pl = N(t + 0.1, "I", "callbacks:%d" % 61, "Received SIGTERM, saving checkpoint and exiting") if rng.random() < 0.6 else None
            if pl:
                o.append((t + 0.1, [pl]))
                rlog.append((t + 0.1, [pl]))
        e += slurm_tail(ctx, F, True)
        if ctx.cause in ("cuda_oom", "python_exception", "illegal_memory_access") and ctx.init_rank == 0:
            elog += [(F.tf, [N(F.tf, "E", "exp_manager:%d" % 838, "Error occurred during training")])] if rng.random() < 0.3 else []
    if rng.random() < 0.3:
        o.append((rng.uniform(100, steps[-1][1]), [N(0, "W", "nemo_logging:349", "%s/torch/distributed/c10d_logger.py:79: FutureWarning: `torch.distributed._all_gather_base` is a private function and will be deprecated. Please use `torch.distributed.all_gather_into_tensor` instead." % ctx.site)]))
    stem = "log-nemo-megatron-%s_%d" % (model, ctx.jobid)
    merge_write(os.path.join(base, stem + ".out"), o)
    merge_write(os.path.join(base, stem + ".err"), e)
    merge_write(os.path.join(base, "results", model, "nemo_log_globalrank-0_localrank-0.txt"), rlog)
    if rng.random() < 0.7:
        merge_write(os.path.join(base, "results", model, "nemo_error_log.txt"), elog + [(x[0], [l for l in x[1] if "[NeMo W" in l]) for x in rlog])
        merge_write(os.path.join(base, "results", model, "lightning_logs.txt"), [(0, ["GPU available: True (cuda), used: True", "TPU available: False, using: 0 TPU cores", "IPU available: False, using: 0 IPUs", "HPU available: False, using: 0 HPUs", "", "  | Name  | Type     | Params"])])
    kern_nodes = kernel_files(ctx, F, base, name="dmesg-{host}.log")
    vis = []
    for r in range(ctx.world):
        blob = "\n".join(l for _, ls in F.raw.get(r, []) for l in ls)
        if blob and (ctx.torch >= "2.3" or ("[Rank %d]" % r) in blob):
            vis.append(r)
    ex = sorted((F.exit[r][0], r) for r in F.exit)
    if ex and not ctx.healthy and F.sigterm_all is None:
        vis.append(ex[0][1])
    decide_visibility(ctx, F, vis, kernel_nodes=kern_nodes, host_visible_nodes=list(range(ctx.nnodes)))
    if ctx.cause == "straggler":
        ctx.show_rank = True
        ctx.show_node = True
    return F, "NeMo-Framework-Launcher sbatch + srun (pyxis), TP=%d PP=%d" % (tp, pp)


# ----------------------------------------------------------------------------
# Layout 4: Megatron-DeepSpeed / Megatron-LM under the deepspeed (pdsh) launcher
# ----------------------------------------------------------------------------
def ds_line(ctx, node, secs, lvl, where, msg):
    return "[%s] [%s] [%s] %s" % (fmt_dt(ctx.at(secs, node), "iso_ms_comma"), lvl, where, msg)


def lay_megatron_deepspeed(ctx, base):
    rng = ctx.rng
    F = TorchFail(ctx, script="pretrain_gpt.py")
    steps = step_times(ctx, F)
    multi = ctx.nnodes > 1
    pre = (lambda n: ctx.hosts[n] + ": ") if multi else (lambda n: "")
    ev = []
    D = lambda n, s, lvl, w, m: pre(n) + ds_line(ctx, n, s, lvl, w, m)
    ev.append((0.5, ["[%s] [INFO] [real_accelerator.py:%d:get_accelerator] Setting ds_accelerator to cuda (auto detect)" % (fmt_dt(ctx.at(0.5, 0), "iso_ms_comma"), rng.choice([158, 161, 191]))]))
    if multi:
        ev.append((1, [ds_line(ctx, 0, 1, "INFO", "multinode_runner.py:%d:get_cmd" % rng.choice([72, 80]), "Running on the following workers: %s" % ",".join(ctx.hosts)),
                       ds_line(ctx, 0, 1, "INFO", "runner.py:%d:main" % rng.choice([568, 570, 607]), "cmd = pdsh -S -f 1024 -w %s export PYTHONPATH=/workspace/Megatron-DeepSpeed; export NCCL_IB_HCA=mlx5; cd /workspace/Megatron-DeepSpeed; /usr/bin/python -u -m deepspeed.launcher.launch --world_info=%s --node_rank=%%n --master_addr=%s --master_port=%d pretrain_gpt.py --tensor-model-parallel-size %d --pipeline-model-parallel-size %d --num-layers %d --hidden-size %d --micro-batch-size 1 --global-batch-size %d --seq-length 2048 --train-iters %d --log-interval %d --deepspeed --deepspeed_config ds_config.json --zero-stage %d"
                                                                                   % (",".join(ctx.hosts), "eyJ" + "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") for _ in range(60)), ctx.ips[0], ctx.port, rng.choice([1, 2, 4]), rng.choice([1, 2]), rng.choice([24, 32, 40]), rng.choice([2048, 4096, 5120]), ctx.world * 4, ctx.total_steps, ctx.log_every, rng.choice([1, 2, 3])))]))
    for n in range(ctx.nnodes):
        t = 3 + rng.random()
        wid = {h: list(range(ctx.gpn)) for h in ctx.hosts}
        ev.append((t, [D(n, t, "INFO", "launch.py:%d:main" % 145, "WORLD INFO DICT: %s" % wid),
                       D(n, t, "INFO", "launch.py:151:main", "nnodes=%d, num_local_procs=%d, node_rank=%d" % (ctx.nnodes, ctx.gpn, n)),
                       D(n, t, "INFO", "launch.py:162:main", "global_rank_mapping=defaultdict(<class 'list'>, %s)" % {h: list(range(i * ctx.gpn, (i + 1) * ctx.gpn)) for i, h in enumerate(ctx.hosts)}),
                       D(n, t, "INFO", "launch.py:163:main", "dist_world_size=%d" % ctx.world),
                       D(n, t, "INFO", "launch.py:165:main", "Setting CUDA_VISIBLE_DEVICES=%s" % ",".join(map(str, range(ctx.gpn))))]))
        for l in range(ctx.gpn):
            r = n * ctx.gpn + l
            t2 = 9 + rng.random() * 2
            ev.append((t2, [D(n, t2, "INFO", "comm.py:637:init_distributed", "cdb=None")]))
        if rng.random() < 0.5:
            ev.append((12, [pre(n) + x for x in nccl_info_noise(ctx, n * ctx.gpn, 4)]))
        ev.append((14, [pre(n) + x for x in harmless_noise(ctx)[:2]]))
    ev.append((10, [pre(0) + ds_line(ctx, 0, 10, "INFO", "comm.py:668:init_distributed", "Initializing TorchBackend in DeepSpeed with backend nccl")]))
    ev.append((20, [pre(0) + x for x in ["> building GPT model ...", " > number of parameters on (tensor, pipeline) model parallel rank (0, 0): %d" % rng.randint(10 ** 8, 2 * 10 ** 9),
                                          "> learning rate decay style: cosine", "time (ms) | model-and-optimizer-setup: %.2f | train/valid/test-data-iterators-setup: %.2f" % (rng.uniform(2000, 30000), rng.uniform(1000, 9000)),
                                          "training ..."]]))
    lastn = ctx.nnodes - 1   # print_rank_last
    prev = 90.0
    gbs = ctx.world * 4
    strag = rng.random() < 0.5 or F.slow_rank is not None
    for k, s in steps:
        ms = (s - prev) / ctx.log_every * 1000
        prev = s
        ev.append((s, [pre(lastn) + " iteration %8d/%8d | consumed samples: %12d | consumed tokens: %12d | elapsed time per iteration (ms): %.1f | learning rate: %.3E | global batch size: %5d | lm loss: %.6E | loss scale: %.1f | grad norm: %.3f | num zeros: %.1f | actual seqlen:  2048 | number of skipped iterations:   0 | number of nan iterations:   0 | samples per second: %.3f | TFLOPs: %.2f |"
                                             % (k, ctx.total_steps, k * gbs, k * gbs * 2048, ms, 1.5e-4 * min(1, k / 500.0), gbs, loss_curve(ctx, k, 9.0), 65536.0 if k > 200 else 4096.0, rng.uniform(0.3, 2.5), 0.0, gbs / (ms / 1000), rng.uniform(120, 190))]))
        if k % (ctx.log_every * 5) == 0:
            ev.append((s + 0.01, [pre(0) + ds_line(ctx, 0, s, "INFO", "logging.py:96:log_dist", "[Rank 0] step=%d, skipped=0, lr=[%.10g, %.10g], mom=[(0.9, 0.95), (0.9, 0.95)]" % (k, 1.5e-4 * min(1, k / 500.0), 1.5e-4 * min(1, k / 500.0))),
                                  pre(0) + "steps: %d loss: %.4f iter time (s): %.3f samples/sec: %.3f" % (k, loss_curve(ctx, k, 9.0), ms / 1000, gbs / (ms / 1000))]))
        if strag and k % (ctx.log_every * 2) == 0:
            base_t = ctx.step_time * 1000
            slow = F.slow_rank is not None and k >= getattr(F, "slow_from", 10 ** 9)
            mnr = rng.randrange(ctx.world)
            mxr = F.slow_rank if slow else rng.randrange(ctx.world)
            mx = base_t * (rng.uniform(1.5, 2.2) if slow else rng.uniform(1.001, 1.01))
            ev.append((s + 0.02, [pre(lastn) + " [%s] | MnRtt/Rnk: %.2fms/%d | MxRtt/Rnk: %.2fms/%d | MnPwr/Rnk: %dW/%d | MxPwr/Rnk: %dW/%d | MnTmp/Rnk: %dC/%d | MxTmp/Rnk: %dC/%d | MnUtl/Rnk: %d%%/%d | MxUtl/Rnk: %d%%/%d | MnClk/Rnk: %dMHz/%d | MxClk/Rnk: %dMHz/%d | MnDRtt/Rnk: %.2fms/%d | MxDRtt/Rnk: %.2fms/%d | MnEtpt/Rnk: %.2fTF/%d | MxEtpt/Rnk: %.2fTF/%d"
                                                  % (fmt_dt(ctx.at(s, lastn), "iso_s"), base_t, mnr, mx, mxr, rng.randint(350, 500), rng.randrange(ctx.world), rng.randint(600, 700), rng.randrange(ctx.world),
                                                     rng.randint(38, 50), rng.randrange(ctx.world), rng.randint(60, 78), rng.randrange(ctx.world), (rng.randint(55, 75) if slow else rng.randint(93, 98)), (mxr if slow else rng.randrange(ctx.world)), 100, rng.randrange(ctx.world),
                                                     (rng.randint(1100, 1400) if slow else rng.randint(1900, 1980)), (mxr if slow else rng.randrange(ctx.world)), 1980, rng.randrange(ctx.world), rng.uniform(10, 15), rng.randrange(ctx.world), rng.uniform(15, 20), rng.randrange(ctx.world),
                                                     rng.uniform(90, 150) if slow else rng.uniform(190, 205), (mxr if slow else rng.randrange(ctx.world)), rng.uniform(205, 215), rng.randrange(ctx.world))]))
    if ctx.healthy:
        te = steps[-1][1] + 4
        ev.append((te, [pre(0) + "[after training is done] datetime: %s " % fmt_dt(ctx.at(te, 0), "iso_s"),
                        pre(0) + "saving checkpoint at iteration %8d to checkpoints/gpt" % steps[-1][0],
                        pre(0) + "  successfully saved checkpoint at iteration %8d to checkpoints/gpt" % steps[-1][0]]))
        for n in range(ctx.nnodes):
            ev.append((te + 8, [D(n, te + 8, "INFO", "launch.py:347:main", "Process %d exits successfully." % ctx.pids[n * ctx.gpn + l]) for l in range(ctx.gpn)]))
    elif F.slow_rank is not None:
        pass   # still running when the user copied the log
    else:
        for r in range(ctx.world):
            ev += rank_raw(ctx, F, r, label=pre(ctx.node_of(r)))
        for n in range(ctx.nnodes):
            first = F.node_first_failure(n)
            if F.sigterm_all is not None:
                t = F.sigterm_all
                ev.append((t, [D(n, t, "INFO", "launch.py:%d:sigkill_handler" % 316, "Killing subprocess %d" % ctx.pids[n * ctx.gpn + l]) for l in range(ctx.gpn)]))
                continue
            if first is None:
                continue
            t, code = F.exit[first]
            lines = [D(n, t + 0.2, "INFO", "launch.py:316:sigkill_handler", "Killing subprocess %d" % ctx.pids[n * ctx.gpn + l]) for l in range(ctx.gpn)]
            lines.append(D(n, t + 0.3, "ERROR", "launch.py:322:sigkill_handler", "['/usr/bin/python', '-u', 'pretrain_gpt.py', '--local_rank=%d', '--tensor-model-parallel-size', '%d', '--deepspeed', '--deepspeed_config', 'ds_config.json'] exits with return code = %d" % (ctx.lr(first), rng.choice([1, 2, 4]), code)))
            ev.append((t + 0.2, lines))
            if multi:
                ev.append((t + 0.5, ["pdsh@%s: %s: ssh exited with exit code %d" % (ctx.hosts[0], ctx.hosts[n], code & 0xff)]))
        if F.sigterm_all is not None:
            ev.append((F.sigterm_all - 0.5, ["slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO %s ***" % (ctx.jobid, ctx.hosts[0], fmt_dt(ctx.at(F.sigterm_all, 0), "slurm"), rng.choice(["PREEMPTION", "TIME LIMIT"]))]))
    if rng.random() < 0.3:
        ev.append((rng.uniform(100, steps[-1][1]), [pre(0) + x for x in scary_harmless(ctx, 0)]))
    kern_nodes = kernel_files(ctx, F, base, name="syslog-{host}.txt", style=rng.choice(["syslog", "journal"]))
    if not ctx.healthy and rng.random() < 0.2 and F.slow_rank is None:
        ev = [e for e in ev if e[0] >= F.tf - 300]
        ev.insert(0, (0, ["... (log truncated, showing last lines) ..."]))
    merge_write(os.path.join(base, rng.choice(["train.log", "megatron_gpt_%d.log" % ctx.jobid, "output.txt"])), ev)
    vis = visible_from_nodes(ctx, F, range(ctx.nnodes), prefix=ctx.torch >= "2.3")
    decide_visibility(ctx, F, vis, kernel_nodes=kern_nodes, host_visible_nodes=list(range(ctx.nnodes)) if multi else [0])
    if ctx.cause == "straggler":
        ctx.show_rank = True
        if multi:
            ctx.show_node = True
    if ctx.nnodes == 1 and not ctx.healthy and ctx.show_rank:
        ctx.show_node = True
    return F, "deepspeed launcher%s" % (" (pdsh)" if multi else "")


# ----------------------------------------------------------------------------
# Layout 5: torchtitan (torchrun --tee, rank filter) / Composer+LLM-foundry launcher / ColossalAI rich console
# ----------------------------------------------------------------------------
def lay_titan_composer(ctx, base):
    rng = ctx.rng
    flavor = rng.choice(["torchtitan", "composer", "colossalai"])
    F = TorchFail(ctx, script={"torchtitan": "torchtitan/train.py", "composer": "/llm-foundry/scripts/train/train.py", "colossalai": "train.py"}[flavor])
    steps = step_times(ctx, F)
    files_nodes = pick_files_nodes(ctx, 0.7)
    vis = []
    notes = flavor
    if flavor == "torchtitan":
        filt = rng.random() < 0.75          # --local-ranks-filter 0 (default LOG_RANK=0)
        if ctx.cause not in (None, "preemption", "unknown", "crash_signal") and ctx.lr(ctx.init_rank) != 0:
            filt = False                     # the user re-ran / attached with all ranks logging
        slurm = ctx.nnodes > 1
        allev = []
        for n in files_nodes:
            ev = torchrun_banner(ctx, n, 1)
            tl = lambda r, s, m, lvl="INFO": "[rank%d]:[titan] %s - root - %s - %s" % (r, fmt_dt(ctx.at(s, n), "iso_ms_comma"), lvl, m)
            shown = [n * ctx.gpn] if filt else list(range(n * ctx.gpn, (n + 1) * ctx.gpn))
            for r in shown:
                g = r
                ev.append((5, [tl(g, 5, "Starting job: %s training" % rng.choice(["Llama 3 8B", "Llama 3 70B", "DeepSeek-V3 16B", "Llama 3 debug"])),
                               tl(g, 6, "Building 1-D device mesh with ['dp_shard'], [%d]" % ctx.world),
                               tl(g, 6, "[GC] Initial GC collection. 0.00 seconds."),
                               tl(g, 12, "Building llama3 8B with TransformerModelArgs(_enforced='This field is used to enforce all fields have defaults.', dim=4096, n_layers=32, n_heads=32, n_kv_heads=8, vocab_size=128256)"),
                               tl(g, 20, "CUDA memory usage for model: %.2fGiB(%.2f%%)" % (rng.uniform(3, 20), rng.uniform(5, 25))),
                               tl(g, 21, "Peak FLOPS used for computing MFU: 9.890e+14"),
                               tl(g, 22, "Training starts at step 1, with local batch size %d, global batch size %d, sequence length 8192, total steps %d (warmup 200)" % (1, ctx.world, ctx.total_steps))]))
                if g != 0:
                    continue
            if n == 0 or not filt:
                for k, s in steps:
                    for r in shown:
                        mem = rng.uniform(30, 70)
                        ev.append((s, [tl(r, s, "step: %2d  loss: %7.4f  memory: %.2fGiB(%.2f%%)  tps: %s  tflops: %.2f  mfu: %.2f%%" % (k, loss_curve(ctx, k, 11), mem, mem / 0.8, format(int(8192 / ctx.step_time * rng.uniform(0.97, 1.03)), ","), rng.uniform(250, 340), rng.uniform(25, 34)))]))
                    if k % 500 == 0:
                        ev.append((s + 1, [tl(r, s + 1, "[GC] Peforming periodical GC collection. 0.05 seconds.") for r in shown]))
            else:
                pass
            ev.append((8, ["[rank%d]:%s" % (shown[0], x) for x in harmless_noise(ctx)[:2]]))
            if not ctx.healthy:
                for r in range(n * ctx.gpn, (n + 1) * ctx.gpn):
                    if r in shown:
                        ev += rank_raw(ctx, F, r, label="[rank%d]:" % ctx.lr(r) if False else "[rank%d]:" % r)
                ev += torchrun_failure(ctx, F, n, torchrun_entry(ctx), "torchtitan/train.py" if rng.random() < 0.5 else "train.py")
                vis += [r for r in shown if F.raw.get(r)]
                fr = F.node_first_failure(n)
                if fr is not None:
                    vis.append(fr)
            else:
                te = steps[-1][1] + 3
                ev.append((te, ["[rank%d]:[titan] %s - root - INFO - Training completed" % (shown[0], fmt_dt(ctx.at(te, n), "iso_ms_comma")),
                                "[rank%d]:[titan] %s - root - INFO - Sleeping 2 seconds for other ranks to complete" % (shown[0], fmt_dt(ctx.at(te, n), "iso_ms_comma"))]))
                ev += healthy_agent_end(ctx, n, te + 3)
            if slurm:
                allev += ev
            else:
                merge_write(os.path.join(base, "outputs", "train_%s.log" % ctx.hosts[n] if ctx.nnodes > 1 else "train.log"), ev)
        if slurm:
            allev += slurm_tail(ctx, F, kill_on_bad_exit=False) if F.sigterm_all is not None else []
            merge_write(os.path.join(base, "slurm-%d.out" % ctx.jobid), allev)
            files_nodes = list(range(ctx.nnodes))
        notes = "torchtitan run_train.sh (torchrun%s)" % (" --local-ranks-filter 0 --role rank --tee 3" if filt else " --role rank --tee 3")
    elif flavor == "composer":
        # composer launcher: single-node per file (multi-node: one launcher per node)
        for n in files_nodes:
            ev = []
            L = lambda r, s, lvl, name, m: "%s: rank%d[%d][MainThread]: %s: %s: %s" % (fmt_dt(ctx.at(s, n), "iso_ms_comma"), r, ctx.pids[r], lvl, name, m)
            ev.append((1, ["Distributed KV store: tcp://%s:%d" % (ctx.ips[0] if ctx.nnodes > 1 else "127.0.0.1", rng.randint(20000, 60000))]))
            r0 = n * ctx.gpn
            ev.append((10, [L(r0, 10, "INFO", "llmfoundry.command_utils.train", "Building tokenizer..."),
                            L(r0, 11, "INFO", "llmfoundry.command_utils.train", "Building train loader..."),
                            L(r0, 40, "INFO", "llmfoundry.command_utils.train", "Building trainer..."),
                            L(r0, 60, "INFO", "composer.utils.reproducibility", "Setting seed to %d" % rng.randint(1, 99999)),
                            L(r0, 80, "INFO", "llmfoundry.command_utils.train", "Starting training...")]))
            if n == 0:
                ev.append((81, ["******************************", "Config:", "composer_commit_hash: None", "composer_version: 0.%d.%d" % (rng.randint(17, 25), rng.randint(0, 2)),
                                "enabled_algorithms/GradientClipping: true", "node_name: unknown because NODENAME environment variable not set", "num_gpus_per_node: %d" % ctx.gpn,
                                "num_nodes: %d" % ctx.nnodes, "rank_zero_seed: %d" % rng.randint(1, 99999), "", "******************************"]))
                for k, s in steps:
                    bps = 1 / ctx.step_time
                    ev.append((s, ["[batch=%d/%d]:" % (k, ctx.total_steps), "\t Train time/batch: %d" % (k - 1), "\t Train time/sample: %d" % ((k - 1) * ctx.world * 8),
                                   "\t Train time/batch_in_epoch: %d" % (k - 1), "\t Train time/token: %d" % ((k - 1) * ctx.world * 8 * 2048),
                                   "\t Train trainer/device_train_microbatch_size: 8", "\t Train loss/train/total: %.4f" % loss_curve(ctx, k, 10),
                                   "\t Train metrics/train/LanguageCrossEntropy: %.4f" % loss_curve(ctx, k, 10),
                                   "\t Train throughput/batches_per_sec: %.4f" % bps, "\t Train throughput/samples_per_sec: %.4f" % (bps * ctx.world * 8),
                                   "\t Train throughput/device/batches_per_sec: %.4f" % (bps / ctx.world), "\t Train time/train: %.4f" % ((s - 80) / 3600),
                                   "\t Train time/val: 0.0000", "\t Train time/total: %.4f" % ((s - 80) / 3600), "\t Train lr-DecoupledAdamW/group0: %.4e" % (6e-4 * min(1, k / 100))]))
            if ctx.healthy:
                te = steps[-1][1] + 5
                ev.append((te, [L(r0, te, "INFO", "llmfoundry.command_utils.train", "Done.")]))
            else:
                # the launcher notices the first local failure and dumps that rank's stdout/stderr
                first = F.node_first_failure(n)
                if F.sigterm_all is not None:
                    t = F.sigterm_all
                    ev.append((t, ["Ctrl-C received; terminating training processes.", "Waiting up to 30 seconds for all training processes to terminate. Press Ctrl-C to exit immediately."]))
                elif first is not None:
                    t, code = F.exit[first]
                    lines = ["Global rank %d (PID %d) exited with code %d" % (first, ctx.pids[first], code),
                             "----------Begin global rank %d STDOUT----------" % first,
                             L(first, 60, "INFO", "composer.utils.reproducibility", "Setting seed to %d" % rng.randint(1, 99999)),
                             "", "----------End global rank %d STDOUT----------" % first,
                             "----------Begin global rank %d STDERR----------" % first]
                    for _, ls in rank_raw(ctx, F, first):
                        lines += ls
                    lines += ["", "----------End global rank %d STDERR----------" % first]
                    vis.append(first)
                    lines += ["ERROR:composer.cli.launcher:Global rank %d (PID %d) exited with code %d" % (first, ctx.pids[first], code),
                              "Waiting up to 30 seconds for all training processes to terminate. Press Ctrl-C to exit immediately."]
                    for r in range(n * ctx.gpn, (n + 1) * ctx.gpn):
                        if r != first:
                            lines.append("Killing global rank %d (PID %d) with SIGKILL" % (r, ctx.pids[r]) if rng.random() < 0.3 else "")
                    ev.append((t + 1, [x for x in lines if x != "" or rng.random() < 0.5]))
            merge_write(os.path.join(base, "composer_%s.log" % ctx.hosts[n] if ctx.nnodes > 1 else "composer.log"), ev)
        notes = "composer launcher (LLM-foundry)"
    else:
        for n in files_nodes:
            ev = torchrun_banner(ctx, n, 1)
            R = lambda s: fmt_dt(ctx.at(s, n), "rich")
            pad = " " * 20
            ev.append((5, ["%s INFO     colossalai - colossalai - INFO:                   " % R(5), "%s/colossalai/initialize.py:67 launch" % ctx.site if rng.random() < 0.5 else "",
                           pad + "INFO     colossalai - colossalai - INFO: Distributed environment is initialized, world size: %d" % ctx.world]))
            if n == 0:
                ev.append((30, ["%s INFO     colossalai - colossalai - INFO: %s/colossalai/booster/plugin/%s.py:%d" % (R(30), ctx.site, rng.choice(["gemini_plugin", "hybrid_parallel_plugin", "low_level_zero_plugin"]), rng.randint(300, 900)),
                                pad + "INFO     colossalai - colossalai - INFO: Booster init max CUDA memory: %.2f MB" % rng.uniform(1000, 40000)]))
                buf = []
                for k, s in steps:
                    buf.append(tqdm_bar(k % 1000 or 1000, 1000, s - 80, ctx.step_time, desc="Epoch %d: " % (k // 1000), postfix="loss=%.3f" % loss_curve(ctx, k, 9)))
                    if rng.random() < 0.3:
                        ev.append((s, ["\r".join([""] + buf)]))
                        buf = []
            ev.append((20, harmless_noise(ctx)))
            if not ctx.healthy:
                ev += node_collateral_and_agent(ctx, F, n, torchrun_entry(ctx), "train.py")
                if F.node_first_failure(n) is not None or F.sigterm_all is not None:
                    t = (F.node_end(n) or F.tf) + 6
                    ev.append((t, ["Error: failed to run torchrun --nproc_per_node=%d --nnodes=%d --node_rank=%d --master_addr=%s --master_port=%d train.py --config %s on %s, is localhost: %s, exception: Encountered a bad command exit code!"
                                   % (ctx.gpn, ctx.nnodes, n, ctx.ips[0], ctx.port, rng.choice(["7b", "13b", "70b"]), ctx.hosts[n], n == 0),
                                   "", "Command: 'cd /workspace/ColossalAI/examples/language/llama && export ... && torchrun --nproc_per_node=%d train.py'" % ctx.gpn,
                                   "", "Exit code: 1", "", "Stdout: already printed", "", "Stderr: already printed", "", "",
                                   "====== Training on All Nodes =====", "%s: failure" % ctx.hosts[n], "", "====== Stopping All Nodes =====", "%s: finish" % ctx.hosts[n]]))
            else:
                ev += healthy_agent_end(ctx, n, steps[-1][1] + 5)
            merge_write(os.path.join(base, "colossal_%s.log" % ctx.hosts[n] if ctx.nnodes > 1 else "output.log"), ev)
        vis = visible_from_nodes(ctx, F, files_nodes, prefix=ctx.torch >= "2.3")
        notes = "colossalai run (torchrun)"
    kern_nodes = kernel_files(ctx, F, base)
    decide_visibility(ctx, F, vis, kernel_nodes=kern_nodes, host_visible_nodes=files_nodes)
    return F, notes


# ----------------------------------------------------------------------------
# Layout 6: vision / custom scripts: ultralytics YOLO DDP, timm distributed_train.sh,
#           custom loguru script under torchrun, structlog JSON in a Kubeflow PyTorchJob
# ----------------------------------------------------------------------------
def loguru_tb(ctx, lines, fn="main"):
    """loguru's @logger.catch rendering (diagnose=True) of a plain traceback"""
    out = []
    for l in lines:
        if l.startswith("Traceback"):
            out += [l, ""]
        elif l.startswith("  File "):
            out.append("> " + l[2:] if not out or "> File" not in "".join(out) else l)
        else:
            out.append(l)
            if l.startswith("    ") and "(" in l and ctx.rng.random() < 0.4:
                out.append("    " + " " * ctx.rng.randint(0, 10) + "└ <function %s at 0x7f%x>" % (fn, ctx.rng.getrandbits(36)))
    return out


def lay_cv_scripts(ctx, base):
    rng = ctx.rng
    if ctx.cause in ("straggler", "network"):
        flavor = rng.choice(["loguru", "structlog"])
    else:
        flavor = rng.choice(["ultralytics", "timm", "loguru", "structlog"])
    if flavor in ("ultralytics", "timm"):
        ctx.nnodes, ctx.world = 1, ctx.gpn
        ctx.init_rank = ctx.init_rank % ctx.gpn
        ctx.init_node = 0
        ctx.skew = [0.0]
    F = TorchFail(ctx, script={"ultralytics": "/root/.config/Ultralytics/DDP/_temp_%08x%d.py" % (rng.getrandbits(32), rng.getrandbits(40)),
                               "timm": "train.py", "loguru": "/workspace/src/trainer.py", "structlog": "/app/train.py"}[flavor])
    steps = step_times(ctx, F)
    vis = []
    files_nodes = pick_files_nodes(ctx, 0.7)
    notes = flavor
    if flavor == "ultralytics":
        ev = []
        ver = "8.%d.%d" % (rng.randint(0, 3), rng.randint(1, 90))
        ev.append((0, ["Ultralytics YOLOv%s 🚀 Python-%s.%d torch-%s+cu121 CUDA:0 (%s, 81051MiB)" % (ver, ctx.py, rng.randint(4, 14), ctx.torch, ctx.gpu_name)] +
                   [" " * 56 + "CUDA:%d (%s, 81051MiB)" % (l, ctx.gpu_name) for l in range(1, ctx.gpn)]))
        ev.append((1, ["engine/trainer: task=detect, mode=train, model=yolov8%s.pt, data=%s, epochs=%d, time=None, patience=100, batch=%d, imgsz=640, save=True, device=%s, workers=8, project=None, name=train%d, exist_ok=False, pretrained=True, optimizer=auto, amp=True"
                       % (rng.choice("nslx"), rng.choice(["coco.yaml", "data/custom.yaml", "VOC.yaml"]), 100, 16 * ctx.gpn, ",".join(map(str, range(ctx.gpn))), rng.randint(2, 9))]))
        ev.append((3, ["DDP: debug command /usr/bin/python3 -m torch.distributed.run --nproc_per_node %d --master_port %d %s" % (ctx.gpn, rng.randint(20000, 60000), F.script)]))
        ev += torchrun_banner(ctx, 0, 4)
        ev.append((20, ["Overriding model.yaml nc=80 with nc=%d" % rng.randint(2, 80) if rng.random() < 0.5 else "Transferred %d/%d items from pretrained weights" % (589, 595),
                        "\x1b[34m\x1b[1mAMP: \x1b[0mrunning Automatic Mixed Precision (AMP) checks with YOLOv8n...", "\x1b[34m\x1b[1mAMP: \x1b[0mchecks passed ✅",
                        "\x1b[34m\x1b[1mtrain: \x1b[0mScanning /datasets/coco/labels/train2017.cache... 117266 images, 1021 backgrounds, 0 corrupt: 100%|██████████| 118287/118287 [00:00<?, ?it/s]",
                        "\x1b[34m\x1b[1moptimizer:\x1b[0m SGD(lr=0.01, momentum=0.9) with parameter groups 97 weight(decay=0.0), 104 weight(decay=0.0005), 103 bias(decay=0.0)",
                        "Image sizes 640 train, 640 val", "Using 8 dataloader workers", "Logging results to \x1b[1mruns/detect/train3\x1b[0m", "Starting training for 100 epochs...", "",
                        "      Epoch    GPU_mem   box_loss   cls_loss   dfl_loss  Instances       Size"]))
        nb = rng.choice([925, 1849, 462])
        buf = []
        for k, s in steps:
            ep = k // nb + 1
            it = k % nb
            buf.append("    %3d/100      %.3gG      %.4g      %.4g      %.4g        %3d        640: %s" % (ep, rng.uniform(8, 30), rng.uniform(0.8, 1.6), rng.uniform(0.6, 2.5), rng.uniform(0.9, 1.4), rng.randint(40, 300),
                                                                                                     tqdm_bar(it, nb, it * ctx.step_time, ctx.step_time)))
            if rng.random() < 0.3:
                ev.append((s, ["\r".join(buf)]))
                buf = []
        ev.append((10, harmless_noise(ctx)[:2]))
        if ctx.healthy:
            te = steps[-1][1] + 5
            ev.append((te, ["", "100 epochs completed in %.3f hours." % ((te - 20) / 3600), "Optimizer stripped from runs/detect/train3/weights/last.pt, 87.7MB", "Validating runs/detect/train3/weights/best.pt...",
                            "                 Class     Images  Instances      Box(P          R      mAP50  mAP50-95): 100%|██████████| 313/313 [00:41<00:00,  7.49it/s]",
                            "                   all       5000      36335      0.%d      0.%d      0.%d      0.%d" % tuple(rng.randint(400, 800) for _ in range(4))]))
            ev += healthy_agent_end(ctx, 0, te + 1)
        else:
            ev += node_collateral_and_agent(ctx, F, 0, torchrun_entry(ctx), F.script.split("/")[-1] if rng.random() < 0.5 else F.script)
            t = (F.node_end(0) or F.tf) + 8
            ev.append((t, py_tb([(ctx.site.split("/lib/")[0] + "/bin/yolo", 8, "<module>", "sys.exit(entrypoint())"),
                                 (ctx.site + "/ultralytics/cfg/__init__.py", 583, "entrypoint", "getattr(model, mode)(**overrides)  # default args from model"),
                                 (ctx.site + "/ultralytics/engine/model.py", 650, "train", "self.trainer.train()"),
                                 (ctx.site + "/ultralytics/engine/trainer.py", 204, "train", "raise e"),
                                 (ctx.site + "/ultralytics/engine/trainer.py", 202, "train", "subprocess.run(cmd, check=True)"),
                                 ("/usr/lib/python%s/subprocess.py" % ctx.py, 526, "run", "raise CalledProcessError(retcode, process.args,")],
                                "subprocess.CalledProcessError: Command '['/usr/bin/python3', '-m', 'torch.distributed.run', '--nproc_per_node', '%d', '--master_port', '%d', '%s']' returned non-zero exit status 1." % (ctx.gpn, rng.randint(20000, 60000), F.script), ctx)))
        merge_write(os.path.join(base, "train.log"), ev)
        vis = visible_from_nodes(ctx, F, [0], prefix=ctx.torch >= "2.3")
        files_nodes = [0]
        notes = "yolo train (ultralytics DDP -> torch.distributed.run)"
    elif flavor == "timm":
        ev = torchrun_banner(ctx, 0, 1)
        for l in range(ctx.gpn):
            ev.append((5 + rng.random(), ["Training in distributed mode with multiple processes, 1 device per process.Process %d, total %d, device cuda:%d." % (l, ctx.gpn, l)]))
        model = rng.choice(["resnet50", "vit_base_patch16_224", "convnext_small", "efficientnet_b3", "deit3_small_patch16_224"])
        ev.append((15, ["Model %s created, param count:%d" % (model, rng.randint(5000000, 90000000)), "Data processing configuration for current model + dataset:",
                        "\tinput_size: (3, 224, 224)", "\tinterpolation: bicubic", "\tmean: (0.485, 0.456, 0.406)", "\tstd: (0.229, 0.224, 0.225)", "\tcrop_pct: 0.95", "\tcrop_mode: center",
                        "Using native Torch AMP. Training in mixed precision.", "Using native Torch DistributedDataParallel.", "Scheduled epochs: 300. LR stepped per epoch."]))
        nb = rng.choice([1251, 625, 2502])
        for k, s in steps:
            ep, it = divmod(k, nb)
            if it % 50 != 0 and k != steps[-1][0]:
                continue
            bs = 128
            dt = rng.uniform(0.005, 0.03) if not (ctx.cause == "data_loader_stall" and k > ctx.fail_step - 100) else rng.uniform(1, 5)
            ev.append((s, ["Train: %d [%4d/%d (%3.0f%%)]  Loss: %.3f (%.3f)  Time: %.3fs, %7.2f/s  (%.3fs, %7.2f/s)  LR: %.3e  Data: %.3f (%.3f)"
                           % (ep, it, nb, 100.0 * it / nb, loss_curve(ctx, k, 6.9), loss_curve(ctx, k, 7.0), ctx.step_time, bs * ctx.gpn / ctx.step_time, ctx.step_time * 1.01, bs * ctx.gpn / ctx.step_time / 1.01, 1e-3, dt, dt * 0.8)]))
        ev.append((10, harmless_noise(ctx)[:3]))
        if ctx.healthy:
            te = steps[-1][1] + 3
            ev.append((te, ["Test: [   0/48]  Time: 2.345 (2.345)  Loss:  1.2345 (1.2345)  Acc@1: 72.6562 (72.6562)  Acc@5: 90.6250 (90.6250)",
                            "Test: [  48/48]  Time: 0.123 (0.234)  Loss:  1.1024 (1.0831)  Acc@1: 75.0000 (74.3120)  Acc@5: 92.1875 (91.8840)",
                            "Current checkpoints:", " ('./output/train/%s/checkpoint-%d.pth.tar', 74.312)" % (model, steps[-1][0] // nb)]))
            ev += healthy_agent_end(ctx, 0, te + 3)
        else:
            ev += node_collateral_and_agent(ctx, F, 0, torchrun_entry(ctx), "train.py")
        merge_write(os.path.join(base, "train.log" if rng.random() < 0.6 else "nohup.out"), ev)
        vis = visible_from_nodes(ctx, F, [0], prefix=ctx.torch >= "2.3")
        files_nodes = [0]
        notes = "timm distributed_train.sh (torchrun)"
    else:
        js = flavor == "structlog"
        for n in files_nodes:
            ev = torchrun_banner(ctx, n, 1) if rng.random() < 0.7 else []

            def L(r, s, lvl, msg, **kw):
                if js:
                    d = {"event": msg, "level": lvl.lower(), "logger": "train", "rank": r, "timestamp": fmt_dt(ctx.at(s, n), "isoT")}
                    d.update(kw)
                    return json.dumps(d)
                extra = " ".join("%s=%s" % (a, b) for a, b in kw.items())
                return "%s | %-8s | trainer:%s:%d - [rank %d] %s%s" % (fmt_dt(ctx.at(s, n), "iso_ms_dot"), lvl, "train_step" if "step" in kw else "setup", 142 if "step" in kw else 57, r, msg, (" | " + extra) if extra else "")
            for r in range(n * ctx.gpn, (n + 1) * ctx.gpn):
                ev.append((6 + rng.random(), [L(r, 6, "INFO", "process group initialized", backend="nccl", world_size=ctx.world, local_rank=ctx.lr(r), host=ctx.hosts[n])]))
            sf = getattr(F, "slow_from", 10 ** 9)
            for k, s in steps:
                if k % (ctx.log_every * 2) != 0:
                    continue
                for r in range(n * ctx.gpn, (n + 1) * ctx.gpn):
                    slow = F.slow_rank is not None and k >= sf
                    st = ctx.step_time * (rng.uniform(1.6, 2.1) if slow else rng.uniform(0.98, 1.02))
                    if slow and r == F.slow_rank:
                        fb, cw = st * 0.95, st * 0.03
                    elif slow:
                        fb, cw = ctx.step_time * 0.8, st - ctx.step_time * 0.8
                    else:
                        fb, cw = st * 0.8, st * 0.15
                    ev.append((s + rng.random() * 0.05, [L(r, s, "INFO", "step", step=k, loss=round(loss_curve(ctx, k, 5), 4), step_time_s=round(st, 3), data_s=round(rng.uniform(0.002, 0.02), 4), fwd_bwd_s=round(fb, 3), comm_wait_s=round(cw, 3))]))
            if ctx.healthy:
                te = steps[-1][1] + 3
                ev.append((te, [L(n * ctx.gpn, te, "INFO", "training finished", steps=steps[-1][0])]))
                ev += healthy_agent_end(ctx, n, te + 1)
            elif F.slow_rank is None:
                for r in range(n * ctx.gpn, (n + 1) * ctx.gpn):
                    for t, ls in rank_raw(ctx, F, r):
                        if not js and any(x.startswith("Traceback") or x.startswith("[rank%d]: Traceback" % r) for x in ls) and r == ctx.init_rank and rng.random() < 0.7:
                            plain = [x.split("]: ", 1)[1] if x.startswith("[rank") and "]: " in x else x for x in ls]
                            ls = ["%s | ERROR    | __main__:<module>:%d - An error has been caught in function '<module>', process 'MainProcess' (%d), thread 'MainThread' (%d):" % (fmt_dt(ctx.at(t, n), "iso_ms_dot"), rng.randint(200, 400), ctx.pids[r], ctx.tids[r])] + loguru_tb(ctx, plain)
                        elif js and r == ctx.init_rank and any("Traceback" in x for x in ls) and rng.random() < 0.6:
                            ls = ls + [json.dumps({"event": "unhandled exception, aborting", "level": "error", "logger": "train", "rank": r, "timestamp": fmt_dt(ctx.at(t, n), "isoT"), "exc_info": True})]
                        ev.append((t, ls))
                ev += torchrun_failure(ctx, F, n, torchrun_entry(ctx), F.script)
            merge_write(os.path.join(base, ("pytorchjob-%s-%d.log" % ("master" if n == 0 else "worker", max(0, n - 1))) if js else ("logs/node%d.log" % n)), ev)
        if js and not ctx.healthy and F.sigterm_all is not None:
            n = rng.randrange(ctx.nnodes)
            msg = rng.choice(["Preempted by default/high-priority-job on node %s" % ctx.hosts[n], "Node is shutting down, evicting pods", "The node was low on resource: ephemeral-storage."])
            merge_write(os.path.join(base, "kubectl_describe_pod.txt"), [(0, ["Name:         %s-%s-0" % ("llm-pretrain", "master"), "Namespace:    training", "Node:         %s/%s" % (ctx.hosts[n], ctx.ips[n]),
                                                                                 "Status:       Failed", "Reason:       %s" % ("Preempting" if "Preempted" in msg else ("Terminated" if "shutting" in msg else "Evicted")),
                                                                                 "Events:", "  Type     Reason     Age   From     Message", "  ----     ------     ----  ----     -------",
                                                                                 "  Warning  %s  %dm   kubelet  %s" % ("Preempting" if "Preempted" in msg else "Evicted", rng.randint(2, 40), msg)])])
        vis = visible_from_nodes(ctx, F, files_nodes, prefix=True)
        notes = ("Kubeflow PyTorchJob (torchrun, structlog JSON)" if js else "torchrun + loguru")
        if F.slow_rank is not None and set(files_nodes) == set(range(ctx.nnodes)):
            ctx.show_rank = True
            ctx.show_node = True
    kern_nodes = kernel_files(ctx, F, base)
    decide_visibility(ctx, F, vis, kernel_nodes=kern_nodes, host_visible_nodes=files_nodes)
    return F, notes


# ----------------------------------------------------------------------------
# Layout 7: fairseq (torch.distributed.launch) / detectron2 (its own mp.spawn launch)
# ----------------------------------------------------------------------------
def launch_entry(ctx):
    s = ctx.site
    return [("/usr/lib/python%s/runpy.py" % ctx.py, 196, "_run_module_as_main", "return _run_code(code, main_globals, None,"),
            ("/usr/lib/python%s/runpy.py" % ctx.py, 86, "_run_code", "exec(code, run_globals)"),
            (s + "/torch/distributed/launch.py", 198, "<module>", "main()"),
            (s + "/torch/distributed/launch.py", 194, "main", "launch(args)"),
            (s + "/torch/distributed/launch.py", 179, "launch", "run(args)")] + torchrun_entry(ctx)[-2:]


def lay_fairseq_d2(ctx, base):
    rng = ctx.rng
    flavor = rng.choice(["fairseq", "detectron2"])
    if ctx.torch >= "2.3":
        ctx.torch = rng.choice(["1.13.1", "2.0.1", "2.1.2"])   # these stacks are usually pinned to older torch
    F = TorchFail(ctx, script=("%s/fairseq_cli/train.py" % ctx.site) if flavor == "fairseq" else "tools/train_net.py")
    steps = step_times(ctx, F)
    files_nodes = pick_files_nodes(ctx, 0.7)
    vis = []
    if flavor == "fairseq":
        for n in files_nodes:
            FS = lambda s, lvl, mod, m: "%s | %s | %s | %s" % (fmt_dt(ctx.at(s, n), "iso_s"), lvl, mod, m)
            ev = [(0.5, ["%s/torch/distributed/launch.py:181: FutureWarning: The module torch.distributed.launch is deprecated" % ctx.site,
                         "and will be removed in future. Use torchrun.", "Note that --use-env is set by default in torchrun.",
                         "If your script expects `--local-rank` argument to be set, please", "change it to read from `os.environ['LOCAL_RANK']` instead. See ",
                         "https://pytorch.org/docs/stable/distributed.html#launch-utility for ", "further instructions", "", "  warnings.warn("])]
            ev += torchrun_banner(ctx, n, 1)
            for r in range(n * ctx.gpn, (n + 1) * ctx.gpn):
                t = 5 + rng.random()
                ev.append((t, [FS(t, "INFO", "fairseq.distributed.utils", "distributed init (rank %d): env://" % r),
                               FS(t + 1, "INFO", "fairseq.distributed.utils", "initialized host %s as rank %d" % (ctx.hosts[n], r))]))
            if n == 0:
                ev.append((10, [FS(10, "INFO", "fairseq_cli.train", "{'_name': None, 'common': {'_name': None, 'no_progress_bar': False, 'log_interval': %d, 'log_format': 'simple', 'fp16': True, ...}}" % ctx.log_every),
                                FS(12, "INFO", "fairseq.tasks.translation", "[en] dictionary: %d types" % rng.randint(30000, 64000)),
                                FS(13, "INFO", "fairseq_cli.train", "task: TranslationTask"), FS(13, "INFO", "fairseq_cli.train", "model: TransformerModel"),
                                FS(13, "INFO", "fairseq_cli.train", "criterion: LabelSmoothedCrossEntropyCriterion"),
                                FS(13, "INFO", "fairseq_cli.train", "num. shared model params: %s (num. trained: same)" % format(rng.randint(50000000, 400000000), ",")),
                                FS(14, "INFO", "fairseq.utils", "***********************CUDA enviroments for all %d workers***********************" % ctx.world)] +
                          [FS(14, "INFO", "fairseq.utils", "rank %3d: capabilities =  8.0  ; total memory = %.3f GB ; name = %-40s" % (r, ctx.gpu_mem, ctx.gpu_name)) for r in range(ctx.world)] +
                          [FS(14, "INFO", "fairseq.utils", "***********************CUDA enviroments for all %d workers***********************" % ctx.world),
                           FS(14, "INFO", "fairseq_cli.train", "training on %d devices (GPUs/TPUs)" % ctx.world),
                           FS(15, "INFO", "fairseq.trainer", "No existing checkpoint found checkpoints/checkpoint_last.pt"),
                           FS(16, "INFO", "fairseq.trainer", "loading train data for epoch 1"),
                           FS(20, "INFO", "fairseq.trainer", "begin training epoch 1"), FS(20, "INFO", "fairseq_cli.train", "Start iterating over samples")]))
                nb = rng.choice([1234, 4410, 8123])
                for k, s in steps:
                    ep = k // nb + 1
                    lo = loss_curve(ctx, k, 10)
                    ev.append((s, [FS(s, "INFO", "train_inner", "epoch %03d:  %5d / %d loss=%.3f, nll_loss=%.3f, ppl=%.2f, wps=%.1f, ups=%.2f, wpb=%.1f, bsz=%.1f, num_updates=%d, lr=%.5g, gnorm=%.3f, loss_scale=%d, train_wall=%d, gb_free=%.1f, wall=%d"
                                                                   % (ep, k % nb, nb, lo, lo * 0.9, 2 ** (lo * 0.9), 30000 / ctx.step_time, 1 / ctx.step_time, rng.uniform(9000, 11000), rng.uniform(250, 300), k, 5e-4 * min(1, k / 4000), rng.uniform(0.3, 2), 2 ** rng.randint(4, 7), ctx.log_every * ctx.step_time, rng.uniform(5, 30), s - 20))]))
                if ctx.healthy:
                    te = steps[-1][1] + 2
                    ev.append((te, [FS(te, "INFO", "fairseq_cli.train", "Stopping training due to num_updates: %d >= max_update: %d" % (steps[-1][0], steps[-1][0])),
                                    FS(te + 1, "INFO", "fairseq.checkpoint_utils", "Saved checkpoint checkpoints/checkpoint_last.pt (epoch 1 @ %d updates, score None) (writing took %.4f seconds)" % (steps[-1][0], rng.uniform(2, 20))),
                                    FS(te + 2, "INFO", "fairseq_cli.train", "done training in %.1f seconds" % (te - 20))]))
            ev.append((8, harmless_noise(ctx)[:2]))
            if ctx.healthy:
                ev += healthy_agent_end(ctx, n, steps[-1][1] + 10)
            else:
                if ctx.cause == "cuda_oom" and ctx.node_of(ctx.init_rank) == n:
                    t = F.tf - 0.2
                    ev.append((t, [FS(t, "WARNING", "fairseq.trainer", "OOM: Ran out of memory with exception: CUDA out of memory. Tried to allocate %.2f GiB (GPU %d; %.2f GiB total capacity; %.2f GiB already allocated; %.2f MiB free; %.2f GiB reserved in total by PyTorch)"
                                                             % (rng.uniform(0.5, 3), ctx.lr(ctx.init_rank), ctx.gpu_mem, ctx.gpu_mem - 2, rng.uniform(10, 800), ctx.gpu_mem - 1)),
                                   "|===========================================================================|",
                                   "|                  PyTorch CUDA memory summary, device ID %d                 |" % ctx.lr(ctx.init_rank),
                                   "|---------------------------------------------------------------------------|",
                                   "|            CUDA OOMs: 1            |        cudaMalloc retries: %d        |" % rng.randint(1, 9),
                                   "|===========================================================================|",
                                   FS(t, "WARNING", "fairseq.trainer", "attempting to recover from OOM in forward/backward pass")]))
                ev += node_collateral_and_agent(ctx, F, n, launch_entry(ctx), "%s/fairseq_cli/train.py" % ctx.site if rng.random() < 0.5 else "fairseq-train")
            name = "train.log" if ctx.nnodes == 1 else "train_node%d.log" % n
            merge_write(os.path.join(base, name), ev)
        vis = visible_from_nodes(ctx, F, files_nodes, prefix=False)
        notes = "python -m torch.distributed.launch fairseq-train"
    else:
        for n in files_nodes:
            D2 = lambda s, mod, m, lvl=None: "%s[%s %s]: %s" % ((lvl + " ") if lvl else "", fmt_dt(ctx.at(s, n), "d2"), mod, m)
            D2f = lambda s, mod, lvl, m: "[%s] %s %s: %s" % (fmt_dt(ctx.at(s, n), "d2"), mod, lvl, m)
            ev = [(0.2, ["Command Line Args: Namespace(config_file='configs/COCO-InstanceSegmentation/mask_rcnn_R_50_FPN_3x.yaml', dist_url='tcp://%s:%d', eval_only=False, machine_rank=%d, num_gpus=%d, num_machines=%d, opts=[], resume=False)" % (ctx.ips[0], ctx.port, n, ctx.gpn, ctx.nnodes)])]
            flog = {}
            for r in range(n * ctx.gpn, (n + 1) * ctx.gpn):
                t = 6 + rng.random()
                if r == 0:
                    ev.append((t, [D2(t, "detectron2", "Rank of current process: 0. World size: %d" % ctx.world), D2(t, "detectron2", "Environment info:"),
                                   "-------------------------------  -----------------------------------------------------------------",
                                   "sys.platform                     linux", "Python                           %s.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0]" % ctx.py,
                                   "detectron2                       0.6 @/workspace/detectron2/detectron2", "PyTorch                          %s @%s/torch" % (ctx.torch, ctx.site),
                                   "GPU 0,1,2,3,4,5,6,7              %s (arch=8.0)" % ctx.gpu_name, "-------------------------------  -----------------------------------------------------------------"]))
                flog[r] = [(t, [D2f(t, "detectron2", "INFO", "Rank of current process: %d. World size: %d" % (r, ctx.world))])]
            if n == 0:
                ev.append((20, [D2(20, "d2.data.build", "Removed 1021 images with no usable annotations. 117266 images left."),
                                D2(21, "d2.data.common", "Serializing 117266 elements to byte tensors and concatenating them all ..."),
                                D2(25, "d2.checkpoint.detection_checkpoint", "[DetectionCheckpointer] Loading from detectron2://ImageNetPretrained/MSRA/R-50.pkl ..."),
                                D2(40, "d2.engine.train_loop", "Starting training from iteration 0")]))
                flog[0].append((40, [D2f(40, "d2.engine.train_loop", "INFO", "Starting training from iteration 0")]))
                mx = rng.randint(3000, 20000)
                for k, s in steps:
                    if (k + 1) % 20 != 0:
                        continue
                    tl = loss_curve(ctx, k, 3)
                    dtm = rng.uniform(0.005, 0.03)
                    if ctx.cause == "data_loader_stall" and k > ctx.fail_step - 60:
                        dtm = rng.uniform(1, 4)
                    line = " eta: %s  iter: %d  total_loss: %.4g  loss_cls: %.4g  loss_box_reg: %.4g  loss_mask: %.4g  loss_rpn_cls: %.4g  loss_rpn_loc: %.4g    time: %.4f  last_time: %.4f  data_time: %.4f  last_data_time: %.4f   lr: %.6g  max_mem: %dM" % (
                        hms((ctx.total_steps - k) * ctx.step_time), k, tl, tl * 0.3, tl * 0.3, tl * 0.25, tl * 0.05, tl * 0.05, ctx.step_time, ctx.step_time * rng.uniform(0.95, 1.05), dtm, dtm, 0.02 * min(1, k / 1000), mx)
                    ev.append((s, [D2(s, "d2.utils.events", line)]))
                    flog[0].append((s, [D2f(s, "d2.utils.events", "INFO", line)]))
            ev.append((15, harmless_noise(ctx)[:2]))
            if not ctx.healthy:
                for r in range(n * ctx.gpn, (n + 1) * ctx.gpn):
                    for t, ls in F.raw.get(r, []):
                        if any(x.startswith("Traceback") for x in ls):
                            hdr = D2(t, "d2.engine.train_loop", "Exception during training:", "ERROR")
                            flog[r].append((t, [D2f(t, "d2.engine.train_loop", "ERROR", "Exception during training:")] + ls))
                            ev.append((t, [hdr] + ls))
                            ev.append((t + 0.1, [D2(t + 0.1, "d2.engine.hooks", "Overall training speed: %d iterations in %s (%.4f s / it)" % (ctx.fail_step - 2, hms(ctx.fail_step * ctx.step_time), ctx.step_time)),
                                                 D2(t + 0.1, "d2.engine.hooks", "Total training time: %s (0:00:%02d on hooks)" % (hms(ctx.fail_step * ctx.step_time + 30), rng.randint(5, 59)))]))
                        else:
                            ev.append((t, ls))
                first = F.node_first_failure(n)
                if F.sigterm_all is not None:
                    t = F.sigterm_all
                    ev.append((t, ["slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO %s ***" % (ctx.jobid, ctx.hosts[n], fmt_dt(ctx.at(t, n), "slurm"), rng.choice(["PREEMPTION", "TIME LIMIT"]))]))
                elif first is not None:
                    t, code = F.exit[first]
                    fr = [("tools/train_net.py", 192, "<module>", "launch("), ("/workspace/detectron2/detectron2/engine/launch.py", 69, "launch", "mp.start_processes("),
                          (ctx.site + "/torch/multiprocessing/spawn.py", 197, "start_processes", "while not context.join():"),
                          (ctx.site + "/torch/multiprocessing/spawn.py", 140 if code < 0 else 158, "join", "raise ProcessExitedException(" if code < 0 else "raise ProcessRaisedException(msg, error_index, failed_process.pid)")]
                    if code < 0:
                        exc = "torch.multiprocessing.spawn.ProcessExitedException: process %d terminated with signal %s" % (ctx.lr(first), SIGNAME.get(code, "SIGKILL"))
                    else:
                        exc = "torch.multiprocessing.spawn.ProcessRaisedException: \n\n-- Process %d terminated with the following error:\nTraceback (most recent call last):\n  File \"%s/torch/multiprocessing/spawn.py\", line 69, in _wrap\n    fn(i, *args)\n  File \"/workspace/detectron2/detectron2/engine/launch.py\", line 123, in _distributed_worker\n    main_func(*args)" % (ctx.lr(first), ctx.site)
                        last = [x for _, ls in F.raw.get(first, []) for x in ls if x and not x.startswith(" ") and not x.startswith("Traceback")]
                        if last:
                            exc += "\n" + last[-1]
                    ev.append((t + 1, py_tb(fr, exc, ctx)))
                    vis.append(first)
            else:
                te = steps[-1][1] + 2
                ev.append((te, [D2(te, "d2.engine.hooks", "Overall training speed: %d iterations in %s (%.4f s / it)" % (steps[-1][0], hms(steps[-1][1] - 40), ctx.step_time)),
                                D2(te, "d2.engine.defaults", "Evaluation results for coco_2017_val in csv format:")]))
            name = "stdout_machine%d.txt" % n if ctx.nnodes > 1 else "stdout.txt"
            merge_write(os.path.join(base, name), ev)
            for r, fl in flog.items():
                if r == 0 or fl[-1][1][0].find("ERROR") >= 0 or rng.random() < 0.15:
                    merge_write(os.path.join(base, "output", "log.txt" if r == 0 else "log.txt.rank%d" % r), fl)
                    if len(fl) > 1 and "ERROR" in fl[-1][1][0]:
                        vis.append(r)
        notes = "detectron2 tools/train_net.py (mp.spawn launch, %d machine(s))" % ctx.nnodes
    kern_nodes = kernel_files(ctx, F, base)
    decide_visibility(ctx, F, vis, kernel_nodes=kern_nodes, host_visible_nodes=files_nodes)
    return F, notes


# ----------------------------------------------------------------------------
# Layout 8: verl / OpenRLHF on Ray (actor-prefixed worker output in the driver log)
# ----------------------------------------------------------------------------
def lay_ray_rlhf(ctx, base):
    rng = ctx.rng
    flavor = rng.choice(["verl", "openrlhf"])
    F = TorchFail(ctx, script=("%s/verl/workers/fsdp_workers.py" % ctx.site) if flavor == "verl" else "%s/openrlhf/trainer/ray/ppo_actor.py" % ctx.site)
    ctx.log_every = 1
    ctx.step_time = rng.uniform(20, 120)
    ctx.fail_step = rng.randint(5, 60) if not ctx.healthy else None
    F.tf = ctx.fail_time() if not ctx.healthy else None
    F = TorchFail(ctx, script=F.script)
    steps = step_times(ctx, F)
    cls = "WorkerDict" if flavor == "verl" else "PolicyModelRayActor"
    apid = {r: ctx.pids[r] for r in range(ctx.world)}
    P = lambda r: "(%s pid=%d%s) " % (cls, apid[r], "" if ctx.node_of(r) == 0 else ", ip=%s" % ctx.ips[ctx.node_of(r)])
    drv = "TaskRunner" if flavor == "verl" else "driver"
    D = lambda s: "(TaskRunner pid=%d) " % ctx.agent_pid[0] if flavor == "verl" else ""
    ev = []
    T = lambda s, n=0: fmt_dt(ctx.at(s, n), "iso_ms_comma")
    ev.append((0, ["%s\tINFO worker.py:%d -- Connecting to existing Ray cluster at address: %s:6379..." % (T(0), rng.choice([1636, 1724, 1821]), ctx.ips[0]),
                   "%s\tINFO worker.py:%d -- Connected to Ray cluster. View the dashboard at \x1b[1m\x1b[32m127.0.0.1:8265 \x1b[39m\x1b[22m" % (T(0.5), rng.choice([1812, 1999, 2004]))]))
    if flavor == "verl":
        ev.append((3, [D(3) + "TaskRunner hostname: %s, PID: %d" % (ctx.hosts[0], ctx.agent_pid[0]),
                       D(3) + "{'actor_rollout_ref': {'actor': {'ppo_mini_batch_size': 256, 'ppo_micro_batch_size_per_gpu': 8, 'strategy': 'fsdp', 'use_kl_loss': True}, 'model': {'path': '%s'}, 'rollout': {'name': 'vllm', 'gpu_memory_utilization': 0.6, 'tensor_model_parallel_size': %d}}, 'trainer': {'n_gpus_per_node': %d, 'nnodes': %d, 'total_epochs': 15}}" % (rng.choice(["Qwen/Qwen2.5-7B-Instruct", "deepseek-ai/deepseek-llm-7b-chat", "meta-llama/Llama-3.1-8B-Instruct"]), rng.choice([1, 2, 4]), ctx.gpn, ctx.nnodes)]))
    for r in range(ctx.world):
        t = 20 + rng.random() * 5
        if r < 2 or rng.random() < 0.1:
            ev.append((t, [P(r) + "Model config after override: Qwen2Config {", P(r) + '  "architectures": [', P(r) + '    "Qwen2ForCausalLM"', P(r) + "  ],"]))
    ev.append((26, ["%sNCCL version %s+cuda12.4 [repeated %dx across cluster] (Ray deduplicates logs by default. Set RAY_DEDUP_LOGS=0 to disable log deduplication, or see https://docs.ray.io/en/master/ray-observability/user-guides/configure-logging.html#log-deduplication for more options.)" % (P(0), ctx.nccl, ctx.world - 1)]))
    ev.append((30, [P(1) + x for x in harmless_noise(ctx)[:2]] + [P(0) + "INFO %s [__init__.py:207] Automatically detected platform cuda." % fmt_dt(ctx.at(30), "d2")]))
    ev.append((35, [P(0) + "WARNING %s [config.py:2386] Casting torch.bfloat16 to torch.float16." % fmt_dt(ctx.at(35), "d2") if rng.random() < 0.4 else P(0) + "INFO %s [model_runner.py:1115] Loading model weights took %.4f GB" % (fmt_dt(ctx.at(35), "d2"), rng.uniform(5, 16))]))
    for k, s in steps:
        if flavor == "verl":
            ev.append((s, [D(s) + "step:%d - global_seqlen/min:%d - global_seqlen/max:%d - actor/entropy:%.3f - actor/kl_loss:%.4f - actor/pg_loss:%.4f - actor/pg_clipfrac:%.4f - actor/grad_norm:%.3f - critic/score/mean:%.3f - critic/rewards/mean:%.3f - response_length/mean:%.2f - timing_s/gen:%.3f - timing_s/old_log_prob:%.3f - timing_s/update_actor:%.3f - timing_s/step:%.3f - perf/max_memory_allocated_gb:%.2f - perf/throughput:%.2f"
                                  % (k, rng.randint(400000, 500000), rng.randint(500000, 600000), rng.uniform(0.3, 1.2), rng.uniform(0, 0.01), rng.uniform(-0.05, 0.05), rng.uniform(0, 0.01), rng.uniform(0.1, 1), rng.uniform(0.1, 0.8), rng.uniform(0.1, 0.8), rng.uniform(200, 900), ctx.step_time * 0.45, ctx.step_time * 0.1, ctx.step_time * 0.35, ctx.step_time * rng.uniform(0.97, 1.03), rng.uniform(30, 70), rng.uniform(800, 3000))]))
        else:
            ev.append((s, ["Episode [1/1]: %s" % tqdm_bar(k, 1000, s - 40, ctx.step_time, postfix="policy_loss=%.3f, critic_loss=%.3f, reward=%.3f, return=%.3f, response_length=%.1f, kl=%.4f" % (rng.uniform(-0.1, 0.1), rng.uniform(0.01, 0.3), rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(200, 900), rng.uniform(0, 0.02)))]))
    if ctx.healthy:
        te = steps[-1][1] + 5
        ev.append((te, [D(te) + "Final validation metrics: {'val/test_score/openai/gsm8k': %.4f}" % rng.uniform(0.5, 0.9) if flavor == "verl" else "Saving model to ./ckpt/%s" % rng.choice(["7b_ppo", "llama3-rlhf"])]))
    else:
        for r in range(ctx.world):
            for t, ls in rank_raw(ctx, F, r):
                ev.append((t, [P(r) + x for x in ls]))
        r0 = ctx.init_rank
        first = min(((F.exit[r][0], r) for r in F.exit if F.exit[r][1] != -15), default=None)
        meth = "actor_rollout_update_actor" if flavor == "verl" else "fit"
        aid = "%032x" % rng.getrandbits(128)
        if F.sigterm_all is not None:
            t = F.sigterm_all
            ev.append((t, ["slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO %s ***" % (ctx.jobid, ctx.hosts[0], fmt_dt(ctx.at(t), "slurm"), rng.choice(["PREEMPTION", "TIME LIMIT"])),
                           "%s\tINFO worker.py:%d -- Received SIGTERM, shutting down Ray driver." % (T(t), rng.randint(800, 900)) if rng.random() < 0.5 else ""]))
        elif first is not None:
            t, code = first
            rr = first[1]
            code = F.exit[rr][1]
            if ctx.cause == "host_oom_kill" and rng.random() < 0.5:
                ev.append((F.tf + 0.5, ["(raylet%s) [%s E %d %d] (raylet) node_manager.cc:%d: 1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: %056x, IP: %s) over the last time period. To see more information about the Workers killed on this node, use `ray logs raylet.out -ip %s`"
                                        % ("" if ctx.init_node == 0 else ", ip=%s" % ctx.ips[ctx.init_node], T(F.tf + 0.5, ctx.init_node), rng.randint(100, 999), rng.randint(100, 999), rng.choice([3041, 3069, 3115]), rng.getrandbits(224), ctx.ips[ctx.init_node], ctx.ips[ctx.init_node])]))
            if code == 1 and F.raw.get(rr):
                last = [x for _, ls in F.raw[rr] for x in ls]
                exc_line = [x for x in last if x and not x.startswith(" ") and not x.startswith("Traceback") and ":" in x and not x.startswith(ctx.hosts[ctx.node_of(rr)])]
                en = exc_line[0].split(":")[0].split(".")[-1] if exc_line else "RuntimeError"
                body = ["ray.exceptions.RayTaskError(%s): \x1b[36mray::%s.%s()\x1b[39m (pid=%d, ip=%s, actor_id=%s, repr=<verl.single_controller.ray.base.%s object at 0x7f%x>)" % (en, cls, meth, apid[rr], ctx.ips[ctx.node_of(rr)], aid, cls, rng.getrandbits(36))] + \
                       [x for x in last if not x.startswith("[rank")][-8:]
            else:
                body = ["ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.", "\tclass_name: create_colocated_worker_cls.<locals>.%s" % cls if flavor == "verl" else "\tclass_name: %s" % cls,
                        "\tactor_id: %s" % aid, "\tpid: %d" % apid[rr], "\tname: %s%s_0:%d" % (rng.choice(["vGhE2u", "Xq9aZb", "fP3kLm"]), cls, ctx.lr(rr)), "\tnamespace: %s" % "%08x-%04x-%04x-%04x-%012x" % (rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(48)),
                        "\tip: %s" % ctx.ips[ctx.node_of(rr)],
                        "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors."]
            fr = [("/workspace/verl/verl/trainer/main_ppo.py" if flavor == "verl" else "%s/openrlhf/cli/train_ppo_ray.py" % ctx.site, rng.randint(40, 400), "main" if flavor == "verl" else "train", "ray.get(runner.run.remote(config))" if flavor == "verl" else "ray.get(refs)"),
                  (ctx.site + "/ray/_private/auto_init_hook.py", 21, "auto_init_wrapper", "return fn(*args, **kwargs)"),
                  (ctx.site + "/ray/_private/client_mode_hook.py", 103, "wrapper", "return func(*args, **kwargs)"),
                  (ctx.site + "/ray/_private/worker.py", rng.choice([2755, 2772, 2822]), "get", "values, debugger_breakpoint = worker.get_objects(object_refs, timeout=timeout)"),
                  (ctx.site + "/ray/_private/worker.py", rng.choice([919, 930, 937]), "get_objects", "raise value.as_instanceof_cause()" if "RayTaskError" in body[0] else "raise value")]
            ev.append((F.exit[rr][0] + rng.uniform(0.5, 3), py_tb(fr, "\n".join(body), ctx)))
            if "ActorDiedError" in body[0] or rng.random() < 0.5:
                pass
    kern_nodes = kernel_files(ctx, F, base, name="dmesg_{host}.log")
    name = "job-driver-raysubmit_%s.log" % "".join(rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") for _ in range(16)) if rng.random() < 0.5 else ("verl_demo.log" if flavor == "verl" else "train_ppo.log")
    if not ctx.healthy and rng.random() < 0.3:
        ev = [e for e in ev if e[0] >= F.tf - 5 * ctx.step_time]
    merge_write(os.path.join(base, name), ev)
    vis = []
    for r in range(ctx.world):
        blob = "\n".join(l for _, ls in F.raw.get(r, []) for l in ls)
        if blob and (ctx.torch >= "2.3" or ("[Rank %d]" % r) in blob):
            vis.append(r)
    decide_visibility(ctx, F, vis, kernel_nodes=kern_nodes, host_visible_nodes=[])
    # the ip of the actor's node is printed; hostnames are not, unless kernel logs were pulled
    if ctx.show_rank and not ctx.show_node and ctx.nnodes == 1:
        pass
    return F, "Ray job (%s), %s actors" % (flavor, cls)


# ----------------------------------------------------------------------------
# Layout 9: PaddlePaddle (paddle.distributed.launch, log/workerlog.N) + PaddleNLP trainer logger
# ----------------------------------------------------------------------------
def paddle_err(ctx, cause, r):
    """what the failing Paddle worker prints (approximate Paddle 2.5/2.6 formats)"""
    rng = ctx.rng
    l = ctx.lr(r)
    tb = ["Traceback (most recent call last):", '  File "run_pretrain.py", line %d, in <module>' % rng.randint(500, 700), "    main()",
          '  File "run_pretrain.py", line %d, in main' % rng.randint(400, 499), "    train_result = trainer.train(resume_from_checkpoint=checkpoint)",
          '  File "%s/paddlenlp/trainer/trainer.py", line %d, in train' % (ctx.site, rng.choice([872, 1035])), "    return self._inner_training_loop(",
          '  File "%s/paddlenlp/trainer/trainer.py", line %d, in _inner_training_loop' % (ctx.site, rng.choice([1096, 1240])), "    tr_loss_step = self.training_step(model, inputs)"]
    hint = lambda code, name, txt, at: ["%s: (External) CUDA error(%d), %s. " % ("OSError", code, name),
                                        "  [Hint: '%s'. %s] (at %s)" % (txt[0], txt[1], at)]
    if cause == "cuda_oom":
        return tb + ["MemoryError: ", "", "--------------------------------------", "C++ Traceback (most recent call last):", "--------------------------------------",
                     "0   paddle::memory::allocation::AllocatorFacade::Alloc(phi::Place const&, unsigned long)", "1   paddle::memory::allocation::StatAllocator::AllocateImpl(unsigned long)",
                     "", "----------------------", "Error Message Summary:", "----------------------",
                     "ResourceExhaustedError: ", "", "Out of memory error on GPU %d. Cannot allocate %.6fGB memory on GPU %d, %.6fGB memory has been allocated and available memory is only %.6fGB." % (l, rng.uniform(0.5, 4), l, ctx.gpu_mem - 1.5, rng.uniform(0.1, 1.4)),
                     "", "Please check whether there is any other process using GPU %d." % l, "1. If yes, please stop them, or start PaddlePaddle on another GPU.",
                     "2. If no, please decrease the batch size of your model. ", " (at /paddle/paddle/fluid/memory/allocation/cuda_allocator.cc:86)", ""]
    if cause == "illegal_memory_access":
        return tb + hint(700, "an illegal memory access was encountered", ("cudaErrorIllegalAddress", "The device encountered a load or store instruction on an invalid memory address. This leaves the process in an inconsistentstate and any further CUDA work will return the same error. To continue using CUDA, the process must be terminated and relaunched."), "/paddle/paddle/phi/backends/gpu/cuda/cuda_info.cc:271")
    if cause == "ecc_memory":
        return tb + hint(214, "uncorrectable ECC error encountered", ("cudaErrorECCUncorrectable", "An uncorrectable ECC error was detected during execution."), "/paddle/paddle/phi/backends/gpu/cuda/cuda_info.cc:271")
    if cause == "gpu_hardware":
        return tb + hint(999, "unknown error", ("cudaErrorUnknown", "This indicates that an unknown internal error has occurred."), "/paddle/paddle/phi/backends/gpu/gpu_info.cc:%d" % rng.choice([239, 286]))
    if cause == "nvlink":
        return ["%s NCCL WARN Cuda failure 'uncorrectable NVLink error detected during the execution'" % nccl_prefix(ctx, r)] + tb + \
               ["OSError: (External) NCCL error(1), unhandled cuda error (run with NCCL_DEBUG=INFO for details). Detail: Resource temporarily unavailable",
                "  [Hint: 'ncclUnhandledCudaError'.  A call to a CUDA function failed.  ] (at /paddle/paddle/fluid/distributed/collective/process_group_nccl.cc:%d)" % rng.choice([1146, 1205])]
    if cause == "network":
        return ["%s NCCL WARN NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Recv)" % (nccl_prefix(ctx, r), ctx.ips[(ctx.node_of(r) + 1) % ctx.nnodes], rng.randint(30000, 60000))] + tb + \
               ["OSError: (External) NCCL error(6), remote process exited or there was a network error. Detail: Resource temporarily unavailable",
                "  [Hint: 'ncclRemoteError'. A call failed possibly due to a network error or a remote process exiting prematurely.  ] (at /paddle/paddle/fluid/distributed/collective/process_group_nccl.cc:1146)"]
    if cause == "python_exception":
        return tb + ['  File "%s/paddlenlp/data/causal_dataset.py", line %d, in __getitem__' % (ctx.site, rng.randint(200, 700)), "    sample = self.indexed_dataset.get(",
                     rng.choice(["IndexError: index %d is out of bounds for axis 0 with size %d" % (rng.randint(10 ** 6, 10 ** 7), rng.randint(10 ** 5, 10 ** 6)),
                                 "KeyError: 'input_ids'", "ValueError: (InvalidArgument) The shape of input[0] and input[1] is expected to be equal."])]
    if cause == "crash_signal":
        return ["", "", "--------------------------------------", "C++ Traceback (most recent call last):", "--------------------------------------",
                "0   paddle::framework::SignalHandle(char const*, int)", "1   paddle::platform::GetCurrentTraceBackString[abi:cxx11](bool)", "",
                "----------------------", "Error Message Summary:", "----------------------",
                "FatalError: `Segmentation fault` is detected by the operating system.", "  [TimeInfo: *** Aborted at %d (unix time) try \"date -d @%d\" if you are using GNU date ***]" % (1700000000 + rng.randint(0, 9 ** 8), 1700000000 + rng.randint(0, 9 ** 8)),
                "  [SignalInfo: *** SIGSEGV (@0x0) received by PID %d (TID 0x%x) from PID 0 ***]" % (ctx.pids[r], ctx.tids[r]), ""]
    return []


def lay_paddle(ctx, base):
    rng = ctx.rng
    F = TorchFail(ctx, script="run_pretrain.py")
    if ctx.cause == "crash_signal":
        F.exit[ctx.init_rank] = (F.exit[ctx.init_rank][0], -11)
    steps = step_times(ctx, F)
    wlogs = {}
    pod = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(6))
    files_nodes = pick_files_nodes(ctx, 0.6)
    c = ctx.cause
    vis = []
    for n in files_nodes:
        LA = lambda s, lvl="INFO": "LAUNCH %s %s" % (lvl, fmt_dt(ctx.at(s, n), "iso_ms_comma"))
        con = [(0, ["%s -----------  Configuration  ----------------------" % LA(0), "%s devices: %s" % (LA(0), ",".join(map(str, range(ctx.gpn)))),
                    "%s ips: %s" % (LA(0), ",".join(ctx.ips)), "%s log_dir: log" % LA(0), "%s nnodes: %d" % (LA(0), ctx.nnodes), "%s nproc_per_node: None" % LA(0),
                    "%s rank: %d" % (LA(0), n), "%s run_mode: collective" % LA(0), "%s --------------------------------------------------" % LA(0),
                    "%s Job: default, mode collective, replicas %d[%d:%d], elastic False" % (LA(1), ctx.nnodes, ctx.nnodes, ctx.nnodes),
                    "%s Run Pod: %s, replicas %d, status ready" % (LA(2), pod, ctx.gpn), "%s Watching Pod: %s, replicas %d, status running" % (LA(3), pod, ctx.gpn)])]
        for l in range(ctx.gpn):
            r = n * ctx.gpn + l
            P = lambda s, lvl="    INFO": "[%s] [%s] - " % (fmt_dt(ctx.at(s, n), "iso_ms_comma"), lvl)
            G = lambda s, ch="I": "%s%s %d " % (ch, fmt_dt(ctx.at(s, n), "absl"), ctx.pids[r])
            wl = [(4, ["%s/paddle/distributed/communication/group.py:%d: UserWarning: Current global rank %d is not in group _default_pg%d" % (ctx.site, 114, r, 10 + r) if rng.random() < 0.2 else "",
                       G(4) + "init.cc:%d] ENV [CUSTOM_DEVICE_ROOT]=" % 233,
                       G(5) + "tcp_utils.cc:%d] The server starts to listen on IP_ANY:%d" % (181, rng.randint(30000, 60000)) if r == 0 else G(5) + "tcp_utils.cc:130] Successfully connected to %s:%d" % (ctx.ips[0], ctx.port),
                       G(6, "W") + "gpu_resources.cc:119] Please NOTE: device: %d, GPU Compute Capability: 8.0, Driver API Version: 12.2, Runtime API Version: 11.8" % l,
                       G(6, "W") + "gpu_resources.cc:164] device: %d, cuDNN Version: 8.9." % l,
                       G(7) + "process_group_nccl.cc:%d] ProcessGroupNCCL pg_timeout_ %d" % (rng.choice([129, 150]), ctx.timeout_ms),
                       "%s\x1b[32mThe training arguments\x1b[0m" % P(9), "%sper_device_train_batch_size   : %d" % (P(9), rng.choice([1, 2, 4])),
                       "%ssharding                      : [<ShardingOption.SHARD_GRAD_OP: 'stage2'>]" % P(9)])]
            sf = getattr(F, "slow_from", 10 ** 9)
            for k, s in steps:
                slow = F.slow_rank is not None and k >= sf
                rt = ctx.step_time * ctx.log_every * (rng.uniform(1.6, 2.0) if slow else rng.uniform(0.98, 1.02))
                if r == 0 or rng.random() < 0.25 or F.slow_rank is not None:
                    wl.append((s, ["%sloss: %.8f, learning_rate: %.3g, global_step: %d, current_memory_allocated: %.4fGB, current_memory_reserved: %.4fGB, max_memory_allocated: %.4fGB, max_memory_reserved: %.4fGB, interval_runtime: %.4f, interval_samples_per_second: %.4f, interval_tokens_per_second_per_device: %.1f, interval_steps_per_second: %.4f, progress_or_epoch: %.4f"
                                   % (P(s), loss_curve(ctx, k, 10), 3e-4 * min(1, k / 2000), k, rng.uniform(20, 40), rng.uniform(40, 60), rng.uniform(40, 60), rng.uniform(60, 70), rt, ctx.log_every * 8 / rt, ctx.log_every * 8 * 4096 / rt / ctx.world, ctx.log_every / rt, k / ctx.total_steps)]))
            if F.slow_rank == r and F.slow_rank is not None:
                for k, s in steps:
                    if k >= sf and k % (ctx.log_every * 10) == 0:
                        wl.append((s + 0.1, ["%s[timers] forward-backward: %.2fms, optimizer: %.2fms, data: %.2fms (this rank)" % (P(s, " WARNING"), ctx.step_time * 1900, rng.uniform(30, 80), rng.uniform(1, 5))]))
            if ctx.healthy:
                wl.append((steps[-1][1] + 5, ["%sTraining completed. " % P(steps[-1][1] + 5), "%s***** train metrics *****" % P(steps[-1][1] + 5)]))
            elif F.slow_rank is None:
                ex = F.exit.get(r)
                if r == ctx.init_rank and c not in STALL_CAUSES and c not in ("preemption", "unknown", "host_oom_kill", "straggler"):
                    wl.append((F.tf, paddle_err(ctx, "network" if c == "network" else c, r)))
                    vis.append(r)
                elif c == "network" and F.raw.get(r):
                    wl.append((F.tf + 0.5, paddle_err(ctx, "network", r)))
                    vis.append(r)
                elif c in STALL_CAUSES or (c == "unknown" and hasattr(F, "tw")):
                    tw = getattr(F, "tw", F.tf + ctx.timeout_ms / 1000.0)
                    op = "allreduce" if not (c == "collective_mismatch" and r == ctx.init_rank) else rng.choice(["broadcast", "allgather"])
                    if (ex or c in STALL_CAUSES) and (r != ctx.init_rank or c == "collective_mismatch"):
                        tj = tw + rng.uniform(0, 2)
                        wl.append((tj, [G(tj, "E") + "comm_task_manager.cc:%d] [Rank %d] comm task timeout: %s, seq=%d, numel=%d, timeout=%dms, elapsed=%dms. Stopping the process." % (rng.choice([190, 205]), r, op, F.stall_seq, 1048576 if op == "allreduce" else 4096, ctx.timeout_ms, ctx.timeout_ms + rng.randint(1, 900))]))
                        vis.append(r)
                elif ex and ex[1] in (1, -6) and r != ctx.init_rank:
                    wl.append((ex[0], ["%s NCCL WARN socketProgress: Connection closed by remote peer %s<%d>" % (nccl_prefix(ctx, r), ctx.hosts[ctx.init_node], rng.randint(30000, 60000)),
                                       "OSError: (External) NCCL error(6), remote process exited or there was a network error. Detail: Resource temporarily unavailable"]))
                if c == "data_loader_stall" and r == ctx.init_rank:
                    wl.append((F.tf + 60, ["%sDataloader reader thread is waiting for data (%d s)." % (P(F.tf + 60, " WARNING"), 60)]))
                if c == "host_oom_kill" and r == ctx.init_rank and F.raw.get(r) and rng.random() < 0.5:
                    wl.append((F.tf, ["ERROR: Unexpected BUS error encountered in DataLoader worker. This might be caused by insufficient shared memory (shm)" if False else "SystemError: (Fatal) DataLoader process (pid %d) exited unexpectedly with code 9. Error detailed are lost due to multiprocessing. Rerunning with:" % (ctx.pids[r] + rng.randint(5, 90)),
                                       "  1. If run DataLoader by DataLoader.from_generator(...), run with DataLoader.from_generator(..., use_multiprocess=False) may give better error trace.",
                                       "  2. If run DataLoader by DataLoader(dataset, ...), run with DataLoader(dataset, ..., num_workers=0) may give better error trace"]))
            wl = [(t, [x for x in ls if x != ""]) for t, ls in wl]
            wlogs[r] = wl
            merge_write(os.path.join(base, "log", ("workerlog.%d" % l) if ctx.nnodes == 1 else "%s/workerlog.%d" % (ctx.hosts[n], l)), wl)
            if r == 0:
                con += [(t, ls) for t, ls in wl if t < 100]
        if not ctx.healthy and F.slow_rank is None:
            if F.sigterm_all is not None:
                t = F.sigterm_all
                con.append((t, ["%s Terminating with signal 15" % LA(t), "%s Exit code -15" % LA(t + 3)]))
            else:
                first = F.node_first_failure(n)
                if first is not None:
                    t, code = F.exit[first]
                    t += rng.uniform(0.5, 3)
                    con.append((t, ["%s Pod failed" % LA(t, "INFO"), "%s Container failed !!!" % LA(t, "ERROR"),
                                    "Container rank %d status failed cmd ['/usr/bin/python', '-u', 'run_pretrain.py', '--model_name_or_path', '%s'] code %d log log/workerlog.%d"
                                    % (ctx.lr(first), rng.choice(["meta-llama/Llama-2-7b", "facebook/llama-13b", "qwen/qwen-7b"]), code, ctx.lr(first)),
                                    "env {'PADDLE_TRAINER_ID': '%d', 'PADDLE_CURRENT_ENDPOINT': '%s:%d', 'PADDLE_TRAINERS_NUM': '%d', 'FLAGS_selected_gpus': '%d'}" % (first, ctx.ips[n], 60000 + ctx.lr(first), ctx.world, ctx.lr(first)),
                                    "%s ------------------------- ERROR LOG DETAIL -------------------------" % LA(t)]))
                    tail = [x for tt, ls in sorted(wlogs.get(first, []), key=lambda e: e[0]) if tt <= t for x in ls][-12:]
                    con.append((t + 0.01, tail))
                    con.append((t + 0.5, ["%s Exit code %d" % (LA(t + 0.5), code)]))
                    vis.append(first)
        if ctx.healthy:
            con.append((steps[-1][1] + 8, ["%s Pod completed" % LA(steps[-1][1] + 8), "%s Exit code 0" % LA(steps[-1][1] + 8)]))
        merge_write(os.path.join(base, "paddle_launch_%s.log" % ctx.hosts[n] if ctx.nnodes > 1 else "run.log"), con)
    kern_nodes = kernel_files(ctx, F, base)
    decide_visibility(ctx, F, vis, kernel_nodes=kern_nodes, host_visible_nodes=files_nodes)
    if ctx.cause == "straggler":
        ctx.show_rank = ctx.node_of(F.slow_rank) in files_nodes
        ctx.show_node = ctx.show_rank
    return F, "python -m paddle.distributed.launch (PaddleNLP Trainer)"


# ----------------------------------------------------------------------------
# Layout 10: JAX / Flax multi-host on GPUs (absl logging, one process per host), per-host logs
# ----------------------------------------------------------------------------
def lay_jax_absl(ctx, base):
    rng = ctx.rng
    F = TorchFail(ctx, script="train.py")     # only used for timing / kernel evidence
    steps = step_times(ctx, F)
    c = ctx.cause
    tids = [rng.randint(139600000000000, 140900000000000) for _ in range(ctx.nnodes)]
    files_nodes = pick_files_nodes(ctx, 0.7)
    hn = ctx.init_node
    vis_nodes = []
    coord = "%s:%d" % (ctx.ips[0], rng.choice([1234, 8476, 12345]))
    for n in files_nodes:
        A = lambda s, lvl, where, m: "%s%s %d %s] %s" % (lvl, fmt_dt(ctx.at(s, n), "absl"), tids[n] if lvl != "W" else tids[n] + 7, where, m)
        ev = [(0.5, [A(0.5, "I", "distributed.py:%d" % rng.choice([90, 113]), ("Starting JAX distributed service on %s" % coord) if n == 0 else ("Connecting to JAX distributed service on %s" % coord))])]
        ev.append((2, [A(2, "I", "xla_bridge.py:%d" % rng.choice([884, 906]), "Unable to initialize backend 'tpu': INTERNAL: Failed to open libtpu.so: libtpu.so: cannot open shared object file: No such file or directory"),
                       A(3, "I", "train.py:%d" % rng.randint(80, 200), "JAX process: %d / %d" % (n, ctx.nnodes)),
                       A(3, "I", "train.py:%d" % rng.randint(80, 200), "JAX local devices: [%s]" % ", ".join("CudaDevice(id=%d)" % (n * ctx.gpn + i) for i in range(ctx.gpn))),
                       A(4, "I", "local.py:%d" % 45, "Setting task status: task=0, status=\"started\"") if rng.random() < 0.3 else A(4, "I", "train.py:210", "Using mesh Mesh('data': %d, 'fsdp': %d, 'tensor': 1)" % (ctx.nnodes, ctx.gpn)),
                       "%s/flax/core/lift.py:%d: DeprecationWarning: jax.tree_map is deprecated: use jax.tree.map (jax v0.4.25 or newer) or jax.tree_util.tree_map (any JAX version)." % (ctx.site, rng.randint(100, 300)),
                       A(30, "W", "xla_bridge.py:%d" % 1220 if False else "pjit.py:%d" % 1090, "Compiling train_step with global shapes and types [ShapedArray(int32[%d,2048])]. Argument mapping: (GSPMDSharding({devices=[%d,1]<=[%d]}),)." % (ctx.world * 4, ctx.world, ctx.world)) if rng.random() < 0.3 else "",
                       "%s%s %d gpu_timer.cc:%d] Delay kernel timed out: measured time has sub-optimal accuracy. There may be a missing warmup execution, please investigate in Nsight Systems." % ("E", fmt_dt(ctx.at(60, n), "absl"), tids[n] + 3, rng.choice([82, 114])) if rng.random() < 0.4 else ""]))
        for k, s in steps:
            ev.append((s, [A(s, "I", "train.py:%d" % 312, "[%d] train/loss=%.4f, train/learning_rate=%.6g, train/grad_norm=%.3f, perf/step_time_s=%.3f, perf/tokens_per_sec_per_device=%.1f"
                                  % (k, loss_curve(ctx, k, 10), 3e-4 * min(1, k / 1000), rng.uniform(0.3, 2), ctx.step_time * rng.uniform(0.98, 1.02), 4 * 2048 / ctx.step_time))]))
            if k % 1000 == 0:
                ev.append((s + 1, [A(s + 1, "I", "checkpoint_manager.py:%d" % 1245, "Saving checkpoint at step %d" % k)]))
        if ctx.healthy:
            te = steps[-1][1] + 3
            ev.append((te, [A(te, "I", "train.py:400", "Training finished at step %d." % steps[-1][0]),
                            A(te + 2, "I", "distributed.py:%d" % 240, "Shutting down JAX distributed service") if n == 0 else ""]))
        else:
            tf = F.tf
            dead_host = c not in ("preemption", "hang", "unknown") or (c == "unknown" and rng.random() < 0.5)
            if n == hn and c not in ("preemption", "hang", "unknown", "host_oom_kill"):
                tb = py_tb([("train.py", rng.randint(400, 500), "<module>", "app.run(main)"),
                            (ctx.site + "/absl/app.py", 308, "run", "_run_main(main, args)"),
                            (ctx.site + "/absl/app.py", 254, "_run_main", "sys.exit(main(argv))"),
                            ("train.py", rng.randint(300, 399), "main", "state, metrics = p_train_step(state, batch)")], "", ctx)[:-1]
                if c == "crash_signal":
                    tb = ["Fatal Python error: Segmentation fault", "", "Thread 0x%016x (most recent call first):" % tids[n], '  File "%s/jax/_src/interpreters/pxla.py", line %d in __call__' % (ctx.site, rng.randint(1100, 1300)),
                          '  File "train.py", line %d in main' % rng.randint(300, 399), "", "Extension modules: jaxlib.cpu_feature_guard, numpy.core._multiarray_umath (total: %d)" % rng.randint(20, 60)]
                else:
                    tb.append('  File "%s/jax/_src/interpreters/pxla.py", line %d, in __call__' % (ctx.site, rng.randint(1100, 1300)))
                    tb.append("    results = self.xla_executable.execute_sharded(")
                    gid = ctx.lr(ctx.init_rank)
                    msg = {"cuda_oom": "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate %d bytes." % rng.randint(2 * 10 ** 9, 9 * 10 ** 9),
                           "python_exception": rng.choice(["ValueError: Incompatible shapes for broadcasting: shapes=[(%d, 2048), (%d, 2049)]" % (4, 4), "KeyError: 'targets'", "tensorflow.python.framework.errors_impl.NotFoundError: /data/tfrecords/train-%05d-of-01024; No such file or directory" % rng.randint(0, 1023)]),
                           "illegal_memory_access": "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: CUDA error: Failed to synchronize GPU for autotuning conv instruction: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered" if rng.random() < 0.5 else "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to execute XLA Runtime executable: run time error: custom call 'xla.gpu.func.launch' failed: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered.",
                           "gpu_hardware": "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to execute XLA Runtime executable: run time error: custom call 'xla.gpu.all_reduce' failed: CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure; current tracing scope: all-reduce-start.3; current profiling annotation: XlaModule:#hlo_module=pjit_train_step#.",
                           "ecc_memory": "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: stream did not block host until done; was already in an error state: CUDA_ERROR_ECC_UNCORRECTABLE: uncorrectable ECC error encountered",
                           "nvlink": "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: external/xla/xla/service/gpu/runtime/nccl_all_reduce_thunk.cc:%d: NCCL operation ncclAllReduce(...) failed: unhandled cuda error (run with NCCL_DEBUG=INFO for details). Last NCCL warning(error) log entry (may be unrelated) 'Cuda failure 'uncorrectable NVLink error detected during the execution''." % rng.randint(40, 400),
                           "network": "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: external/xla/xla/service/gpu/nccl_api.cc:%d: NCCL operation ncclGroupEnd() failed: remote process exited or there was a network error. Last NCCL warning(error) log entry (may be unrelated) 'NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Recv)'." % (rng.randint(400, 700), ctx.ips[(hn + 1) % ctx.nnodes], rng.randint(30000, 60000)),
                           }[c]
                    if c == "cuda_oom":
                        ev.append((tf - 0.5, ["%s%s %d bfc_allocator.cc:%d] Allocator (GPU_%d_bfc) ran out of memory trying to allocate %.2fGiB (rounded to %d)requested by op " % ("W", fmt_dt(ctx.at(tf - 0.5, n), "absl"), tids[n] + 11, 485, gid, rng.uniform(2, 9), rng.randint(2 * 10 ** 9, 9 * 10 ** 9)),
                                              "%s%s %d pjrt_stream_executor_client.cc:%d] Execution of replica %d failed: RESOURCE_EXHAUSTED: Out of memory while trying to allocate %d bytes." % ("E", fmt_dt(ctx.at(tf - 0.4, n), "absl"), tids[n] + 12, 2985, gid, rng.randint(2 * 10 ** 9, 9 * 10 ** 9))]))
                    if c in ("gpu_hardware", "ecc_memory", "illegal_memory_access"):
                        ev.append((tf - 0.3, ["%s%s %d pjrt_stream_executor_client.cc:%d] Execution of replica %d failed: %s" % ("E", fmt_dt(ctx.at(tf - 0.3, n), "absl"), tids[n] + 12, 2985, gid, msg.split(": ", 1)[1])]))
                    tb += msg.split("\n")
                ev.append((tf, [x for x in tb if x is not None]))
                vis_nodes.append(n)
            # everyone else: the coordination service notices the missing/stuck task
            if c == "preemption":
                t = tf
                ev.append((t, ["slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (ctx.jobid, ctx.hosts[n], fmt_dt(ctx.at(t, n), "slurm")) if rng.random() < 0.5 else
                               A(t, "I", "preemption_sync_manager.cc:%d" % 175, "Received preemption notice via SIGTERM; syncing step across tasks"),
                               A(t + 5, "I", "train.py:%d" % 377, "Saving checkpoint at step %d (preemption)" % ctx.fail_step)]))
            elif n != hn or c in ("hang", "unknown", "host_oom_kill"):
                if c == "hang":
                    tw = tf + rng.choice([300, 600, 1800])
                    who = hn
                    line = A(tw, "E", "coordination_service_agent.cc:%d" % 332, "Polled an error from coordination service (this can be an error from this or another task).")
                    ev.append((tw, [line, "F%s %d client.h:77] Terminating process because the JAX distributed service detected fatal errors. This most likely indicates that another task died; see the other task logs for more details. Disable Python buffering, i.e. `python -u`, to be sure to see all the previous output. absl::Status: DEADLINE_EXCEEDED: Barrier timed out. Id: PjRT_Client_Connect. # of tasks that reached the barrier: %d/%d. The first task at the barrier: /job:jax_worker/replica:0/task:0. Some timed out task names:" % (fmt_dt(ctx.at(tw, n), "absl"), tids[n], ctx.nnodes - 1, ctx.nnodes)
                                    if rng.random() < 0.3 else "%s%s %d collective_ops_utils.h:%d] This thread has been waiting for %dms for and may be stuck: all-reduce-start.%d waiting for all participants to arrive at rendezvous %s" % ("E", fmt_dt(ctx.at(tw - 200, n), "absl"), tids[n] + 5, rng.choice([279, 306]), 20000 if n != who else 0, rng.randint(1, 9), "RendezvousKey{run_id=RunId: %d, global_devices=[%s], num_local_participants=%d, collective_op_kind=cross_module, op_id=%d}" % (rng.getrandbits(40), ",".join(map(str, range(min(ctx.world, 16)))), ctx.gpn, rng.randint(1, 99)))]))
                    if n != who:
                        vis_nodes.append(n)
                elif dead_host or c == "host_oom_kill":
                    tw = tf + rng.uniform(10, 60)
                    ev.append((tw, [A(tw, "E", "coordination_service_agent.cc:%d" % 332, "Polled an error from coordination service (this can be an error from this or another task)."),
                                    "F%s %d client.h:77] Terminating process because the JAX distributed service detected fatal errors. This most likely indicates that another task died; see the other task logs for more details. Disable Python buffering, i.e. `python -u`, to be sure to see all the previous output. absl::Status: UNAVAILABLE: The following tasks are unhealthy (stopped sending heartbeats):\n/job:jax_worker/replica:0/task:%d\nThe tasks have crashed. Check the task logs for an earlier error to debug further." % (fmt_dt(ctx.at(tw, n), "absl"), tids[n], hn),
                                    "Fatal Python error: Aborted", "", "Current thread 0x%016x (most recent call first):" % tids[n], "  <no Python frame>"]))
                    if c == "host_oom_kill" or c == "unknown":
                        vis_nodes.append(hn)
        if not ctx.healthy and c not in ("preemption",) and rng.random() < 0.5 and n == 0:
            ev.append((F.tf + 70, ["srun: error: %s: task %d: %s" % (ctx.hosts[hn], hn, "Killed" if c == "host_oom_kill" else ("Aborted (core dumped)" if c != "crash_signal" else "Segmentation fault (core dumped)"))] if c != "hang" else []))
        ev = [(t, [x for x in ls if x != ""]) for t, ls in ev]
        merge_write(os.path.join(base, "logs", "host%d-%s.log" % (n, ctx.hosts[n])), ev)
    kern_nodes = kernel_files(ctx, F, base)
    # one process per host: the "rank" is the JAX process index of that host
    ctx.init_rank = hn
    if not ctx.healthy and c not in ("preemption", "unknown"):
        if hn in vis_nodes or hn in kern_nodes:
            ctx.show_rank = True
            ctx.show_node = True
    return F, "JAX multi-host (jax.distributed.initialize, one process per host, %d GPUs each)" % ctx.gpn


# ----------------------------------------------------------------------------
# driver
# ----------------------------------------------------------------------------
LAYOUTS = {}   # name -> (fn, supported causes)


def register(name, fn, exclude=()):
    LAYOUTS[name] = (fn, [c for c in CAUSES if c not in exclude])


def build_registry():
    register("hf_accelerate", lay_hf_accelerate, exclude=("straggler",))
    register("mmengine_slurm", lay_mmengine_slurm, exclude=("straggler",))
    register("nemo_slurm", lay_nemo_slurm)
    register("megatron_deepspeed", lay_megatron_deepspeed)
    register("titan_composer", lay_titan_composer, exclude=("straggler",))
    register("cv_scripts", lay_cv_scripts)
    register("fairseq_d2", lay_fairseq_d2, exclude=("straggler",))
    register("ray_rlhf", lay_ray_rlhf, exclude=("straggler",))
    register("paddle", lay_paddle)
    register("jax_absl", lay_jax_absl, exclude=("straggler", "collective_mismatch", "data_loader_stall"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args()
    build_registry()
    seed = str(a.seed)
    orng = random.Random("blind47-order-" + seed)
    order = list(CAUSES)
    orng.shuffle(order)
    lay_names = sorted(LAYOUTS)
    shuf = list(lay_names)
    orng.shuffle(shuf)
    lay_rank = {n: i for i, n in enumerate(shuf)}
    pair_ctr = {}
    lay_ctr = {}
    per_cause_ctr = {}
    counts = {}
    os.makedirs(a.out, exist_ok=True)
    j = 0
    for i in range(a.n):
        rng = random.Random("blind47-run-%s-%d" % (seed, i))
        healthy = (i % 7 == 3)
        if healthy:
            cause = None
            cands = lay_names
            k = per_cause_ctr.get("_healthy", 0)
            per_cause_ctr["_healthy"] = k + 1
        else:
            cause = order[j % len(order)]
            j += 1
            cands = [n for n in lay_names if cause in LAYOUTS[n][1]] or lay_names
            k = per_cause_ctr.get(cause, 0)
            per_cause_ctr[cause] = k + 1
        key = cause or "_healthy"
        layout = min(cands, key=lambda n: (pair_ctr.get((n, key), 0), lay_ctr.get(n, 0), lay_rank[n]))
        pair_ctr[(layout, key)] = pair_ctr.get((layout, key), 0) + 1
        lay_ctr[layout] = lay_ctr.get(layout, 0) + 1
        ctx = Ctx(rng, cause, healthy, layout, nnodes=(rng.choice([2, 2, 4]) if (layout == "jax_absl" or cause == "network") else None))
        d = os.path.join(a.out, "run-%03d-%s" % (i, layout))
        os.makedirs(d, exist_ok=True)
        fn = LAYOUTS[layout][0]
        res = fn(ctx, d)
        notes = res[1] if isinstance(res, tuple) else str(res)
        init = None
        if not healthy:
            init = {"rank": ctx.init_rank if ctx.show_rank else None,
                    "node": ctx.hosts[ctx.init_node] if ctx.show_node else None}
            if init["rank"] is None and init["node"] is None:
                init = None
        truth = {"healthy": healthy, "cause": cause, "initiator": init, "layout": layout,
                 "notes": describe(ctx, notes)}
        with open(os.path.join(d, "truth.json"), "w") as f:
            json.dump(truth, f, indent=2)
            f.write("\n")
        key = cause or "healthy"
        counts[key] = counts.get(key, 0) + 1
    print(json.dumps(dict(sorted(counts.items())), indent=1))


def describe(ctx, launcher):
    c = ctx.cause
    w = "%d node(s) x %d GPUs (%s), launched via %s" % (ctx.nnodes, ctx.gpn, ", ".join(ctx.hosts), launcher)
    if ctx.healthy:
        return "healthy run; " + w + "; contains harmless warnings"
    what = {
        "gpu_hardware": "GPU hardware fault (Xid / fell off bus / GSP) on rank %d's GPU",
        "ecc_memory": "uncorrectable ECC error on rank %d's GPU",
        "nvlink": "NVLink fatal error (Xid 74) on rank %d's GPU",
        "network": "NIC/fabric failure on rank %d's node breaks NCCL transport",
        "cuda_oom": "CUDA out of memory on rank %d",
        "illegal_memory_access": "illegal memory access / device-side assert on rank %d",
        "python_exception": "uncaught Python exception on rank %d",
        "host_oom_kill": "host OOM killer killed rank %d (or its dataloader worker)",
        "crash_signal": "native crash signal in rank %d, no hardware evidence",
        "preemption": "job preempted / cancelled by the scheduler (rank %d unimportant)",
        "hang": "rank %d stopped progressing; peers time out in a collective",
        "data_loader_stall": "rank %d stuck in data loading / storage I/O; peers time out",
        "collective_mismatch": "rank %d issued a different collective than its peers",
        "straggler": "rank %d persistently slower; whole job slowed",
        "unknown": "job died, logs do not show why (first to go: rank %d)",
    }[c] % ctx.init_rank
    return "%s (node %s, clock skew %s s); %s" % (what, ctx.hosts[ctx.init_node], ",".join("%.1f" % s for s in ctx.skew), w)


if __name__ == "__main__":
    main()
