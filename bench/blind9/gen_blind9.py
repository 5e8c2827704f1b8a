#!/usr/bin/env python3
"""blind9: generator of realistic failed (and some healthy) multi-GPU training-job
log folders, 2025-2026 stacks (torchtitan, TorchFT, Megatron-Core + NVRx,
NeMo-Run, K8s JobSet/Kueue, JAX/MaxText, GB200 NVL72).

Standard library only.  Same --seed -> same bytes.
    python3 gen_blind9.py --out DIR --n 60 --seed 1
"""
import argparse
import json
import os
import random
import shutil
from datetime import datetime, timedelta, timezone

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill",
          "crash_signal", "preemption", "hang", "data_loader_stall",
          "collective_mismatch", "straggler", "unknown"]
DRAIN_CAUSES = {"gpu_hardware", "ecc_memory", "nvlink", "network"}

# --------------------------------------------------------------------------
# time helpers
# --------------------------------------------------------------------------
TZS = [("UTC", 0), ("PST", -8 * 60), ("PDT", -7 * 60), ("CET", 60), ("IST", 330),
       ("KST", 540), ("CST", 480), ("EST", -5 * 60)]


def tzobj(mins):
    return timezone(timedelta(minutes=mins))


def f_glog(t):  # E1205 04:12:33.123456
    return t.strftime("%m%d %H:%M:%S.") + "%06d" % t.microsecond


def f_glog_ns(t, r):  # c10 style with 9 digits
    return t.strftime("%m%d %H:%M:%S.") + "%06d%03d" % (t.microsecond, r.randint(0, 999))


def f_py(t):  # 2026-12-05 04:12:33,123
    return t.strftime("%Y-%m-%d %H:%M:%S,") + "%03d" % (t.microsecond // 1000)


def f_iso(t):
    return t.isoformat(timespec="microseconds")


def f_syslog(t):  # Dec 05 04:12:33
    return t.strftime("%b %d %H:%M:%S")


def f_bracket(t):
    return t.strftime("[%Y-%m-%d %H:%M:%S]")


class KernelLog:
    """Collects kernel lines for one node; renders as dmesg -T / plain dmesg /
    journalctl -k / kern.log."""

    def __init__(self, host, boot, tz, style):
        self.host, self.boot, self.tz, self.style = host, boot, tz, style
        self.lines = []

    def add(self, t, msg):
        self.lines.append((t, msg))

    def render(self):
        out = []
        if self.style == "journalctl":
            out.append("-- Logs begin at %s, end at %s. --" % (
                self.boot.astimezone(self.tz).strftime("%a %Y-%m-%d %H:%M:%S %Z"),
                (max([t for t, _ in self.lines] + [self.boot]) + timedelta(minutes=3)).astimezone(self.tz).strftime("%a %Y-%m-%d %H:%M:%S %Z")))
        for t, msg in sorted(self.lines, key=lambda x: x[0]):
            if self.style == "dmesg":
                up = (t - self.boot).total_seconds()
                if up < 0:
                    continue
                out.append("[%12.6f] %s" % (up, msg))
            elif self.style == "dmesg_T":
                out.append("[%s] %s" % (t.astimezone(self.tz).strftime("%a %b %d %H:%M:%S %Y"), msg))
            elif self.style == "journalctl":
                out.append("%s %s kernel: %s" % (f_syslog(t.astimezone(self.tz)), self.host, msg))
            else:  # kern.log rsyslog iso
                out.append("%s %s kernel: [%12.6f] %s" % (t.astimezone(self.tz).isoformat(timespec="microseconds"),
                                                        self.host, max(0.0, (t - self.boot).total_seconds()), msg))
        return "\n".join(out) + "\n"


# --------------------------------------------------------------------------
# cluster model
# --------------------------------------------------------------------------
class Node:
    def __init__(self, idx, short, fqdn, ip, pod=None):
        self.idx, self.short, self.fqdn, self.ip, self.pod = idx, short, fqdn, ip, pod
        self.spell = short  # how the logs spell it (set per layout)

    def aliases(self):
        a = [self.short, self.fqdn, self.ip] + ([self.pod] if self.pod else [])
        return [x for x in dict.fromkeys(a) if x and x != self.spell]


def make_nodes(r, n, style, jobname="train"):
    nodes = []
    rack = r.randint(1, 40)
    base_ip = (r.choice([10, 172]), r.randint(16, 31), r.randint(0, 250))
    domain = r.choice(["cluster.local", "hpc.example.org", "gpu.corp.internal", "ec2.internal", "us-east5.c.proj.internal"])
    start = r.randint(1, 900)
    pfx = r.choice(["gpu", "hgx", "node", "a3mega"])
    for i in range(n):
        if style == "nid":
            short = "nid%06d" % (start + i * r.choice([1, 1, 2]))
        elif style == "gb200":
            short = "gb200-r%02d-c%02d" % (rack + (i // 18), (i % 18) + 1)
        elif style == "dgx":
            short = "dgx-h100-%03d" % (start + i)
        elif style == "aws":
            short = "ip-%d-%d-%d-%d" % (base_ip[0], base_ip[1], base_ip[2], 10 + i)
        else:
            short = "%s%03d" % (pfx, start + i)
        octet = 10 + i
        ip = "%d.%d.%d.%d" % (base_ip[0], base_ip[1], base_ip[2] + octet // 240, octet % 240 + 2)
        if style == "aws":
            ip = "%d.%d.%d.%d" % (base_ip[0], base_ip[1], base_ip[2], 10 + i)
        nodes.append(Node(i, short, short + "." + domain, ip))
    return nodes


def stable_uid(r, n=5):
    return "".join(r.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(n))


def pci_for(local):
    # typical HGX H100 bus ids
    table = ["18", "2A", "3A", "5D", "9A", "AB", "BA", "DB"]
    return "0000:%s:00.0" % table[local % 8]


def pci_gb200(local):
    return "0008:%02d:00.0" % (1 + local) if local < 2 else "0018:%02d:00.0" % (local - 1)


# --------------------------------------------------------------------------
# text libraries
# --------------------------------------------------------------------------
PYROOT = ["/usr/local/lib/python3.12/dist-packages", "/opt/conda/lib/python3.11/site-packages",
          "/workspace/.venv/lib/python3.12/site-packages", "/usr/lib/python3/dist-packages"]


def tb(frames, exc):
    out = ["Traceback (most recent call last):"]
    for f, ln, fn, src in frames:
        out.append('  File "%s", line %d, in %s' % (f, ln, fn))
        if src:
            out.append("    " + src)
    out.extend(exc.split("\n"))
    return out


def torch_cuda_err_block(msg):
    return [msg,
            "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
            "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
            "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", ""]


def c10_prefix(rank, lvl, t, r, src="ProcessGroupNCCL.cpp", line=None):
    return "[rank%d]:[%s%s %d %s:%d] " % (rank, lvl, f_glog_ns(t, r), r.randint(100000, 4000000), src,
                                          line or r.choice([632, 1595, 1681, 1715, 2168]))


def watchdog_timeout_lines(rank, t, r, seq, op, numel, timeout_ms, pgdesc="default_pg"):
    ran = timeout_ms + r.randint(3, 90)
    work = "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (seq, op, numel, numel if op != "_ALLGATHER_BASE" else numel * 8, timeout_ms)
    L = []
    L.append(c10_prefix(rank, "E", t, r, line=632) + "[PG ID 0 PG GUID 0(%s) Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (pgdesc, rank, work, ran))
    L.append(c10_prefix(rank, "E", t + timedelta(milliseconds=1), r, line=2168) + "[PG ID 0 PG GUID 0(%s) Rank %d] Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pgdesc, rank, seq, seq + r.choice([0, 0, 1]), seq - 1))
    L.append(c10_prefix(rank, "E", t + timedelta(milliseconds=2), r, line=1681) + "[PG ID 0 PG GUID 0(%s) Rank %d] Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pgdesc, rank, seq, seq, seq - 1))
    L.append(c10_prefix(rank, "E", t + timedelta(milliseconds=2), r, line=1715) + "[PG ID 0 PG GUID 0(%s) Rank %d] To avoid data inconsistency, we are taking the entire process down." % (pgdesc, rank))
    L.append(c10_prefix(rank, "E", t + timedelta(milliseconds=3), r, line=1595) + "[PG ID 0 PG GUID 0(%s) Rank %d] Process group watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (pgdesc, rank, rank, work, ran))
    L.append("terminate called after throwing an instance of 'c10::DistBackendError'")
    L.append("  what():  [PG ID 0 PG GUID 0(%s) Rank %d] Process group watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (pgdesc, rank, rank, work, ran))
    L.append("Exception raised from checkTimeout at /opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:635 (most recent call first):")
    L.append("frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f%010x in %s/torch/lib/libc10.so)" % (r.randint(0, 2**36), PYROOT[0]))
    L.append("frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 (0x7f%010x in %s/torch/lib/libtorch_cuda.so)" % (r.randint(0, 2**36), PYROOT[0]))
    L.append("frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 (0x7f%010x in %s/torch/lib/libtorch_cuda.so)" % (r.randint(0, 2**36), PYROOT[0]))
    L.append("")
    return L


def dump_signal_lines(rank, t, r, seq):
    return [c10_prefix(rank, "E", t, r, line=1771) + "[PG ID 0 PG GUID 0(default_pg) Rank %d] Received a dump signal due to a collective timeout from this local rank and we will try our best to dump the debug info. Last enqueued NCCL work: %d, last completed NCCL work: %d.This is most likely caused by incorrect usages of collectives, e.g., wrong sizes used across ranks, the order of collectives is not same for all ranks or the scheduled collective, for some reason, didn't run. Additionally, this can be caused by GIL deadlock or other reasons such as network errors or bugs in the communications library (e.g. NCCL), etc." % (rank, seq, seq - 1),
            c10_prefix(rank, "E", t + timedelta(milliseconds=40), r, src="ProcessGroupNCCL.cpp", line=1368) + "[PG ID 0 PG GUID 0(default_pg) Rank %d] ProcessGroupNCCL preparing to dump debug info. Include stack trace: 1" % rank,
            c10_prefix(rank, "I", t + timedelta(milliseconds=900), r, src="NCCLUtils.cpp", line=398) + "Finished writing NCCLPG debug info to /tmp/fr/nccl_trace_rank_%d" % rank]


def nccl_prefix(host, pid, dev):
    return "%s:%d:%d [%d] " % (host, pid, pid + 37, dev)


# errors at the initiating rank, torch flavoured.  returns list of lines and
# exit code meaning
def torch_fault_lines(cause, rank, local, host, t, r, ctx):
    pid = ctx["pid"]
    P = "[rank%d]: " % rank
    L = []
    train = ctx.get("trainpy", "/workspace/torchtitan/torchtitan/train.py")
    frames_train = [(train, 610, "<module>", "trainer.train()"),
                    (PYROOT[0] + "/torch/distributed/elastic/multiprocessing/errors/__init__.py", 357, "wrapper", "return f(*args, **kwargs)"),
                    (train, 532, "train", "self.train_step(data_iterator)"),
                    (train, 470, "train_step", "loss = self.forward_backward_step(input_dict, labels)")]
    if cause == "cuda_oom":
        need = r.choice([1.0, 2.0, 3.5, 7.83, 12.0, 16.0])
        tot = ctx.get("gpumem", 79.11)
        free = round(r.uniform(0.1, need - 0.05), 2)
        exc = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of %.2f GiB of which %.2f GiB is free. "
               "Including non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. "
               "If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
               % (need, local, tot, free, tot - free - 0.4, tot - free - 2.1, 1.3))
        fr = frames_train + [(PYROOT[0] + "/torch/_tensor.py", 648, "backward", "torch.autograd.backward("),
                             (PYROOT[0] + "/torch/autograd/graph.py", 829, "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")]
        L = tb(fr, exc)
    elif cause == "illegal_memory_access":
        fr = frames_train + [(ctx.get("modelpy", "/workspace/torchtitan/torchtitan/models/moe.py"), 221, "forward", "out = torch.ops.grouped_mm(x, self.w1, offs=offsets)"),
                             (PYROOT[0] + "/torch/_ops.py", 1158, "__call__", "return self._op(*args, **(kwargs or {}))")]
        L = tb(fr, "\n".join(torch_cuda_err_block("RuntimeError: CUDA error: an illegal memory access was encountered")))
    elif cause == "python_exception":
        kind = ctx.get("pyexc_kind") or r.choice(["key", "shape", "assert", "file"])
        if kind == "key":
            exc = "KeyError: 'input_ids'"
            fr = frames_train[:3] + [("/workspace/data/packed_dataset.py", 188, "__next__", "ids = sample[\"input_ids\"]")]
        elif kind == "shape":
            exc = "RuntimeError: shape '[4, 8192, 32, 128]' is invalid for input of size 134201344"
            fr = frames_train + [("/workspace/model/attention.py", 97, "forward", "q = q.view(bs, seqlen, self.n_heads, self.head_dim)")]
        elif kind == "assert":
            exc = "AssertionError: seq_len 8193 exceeds max_seq_len 8192"
            fr = frames_train + [("/workspace/model/rope.py", 54, "forward", "assert seqlen <= self.max_seq_len, f\"seq_len {seqlen} exceeds max_seq_len {self.max_seq_len}\"")]
        else:
            exc = "FileNotFoundError: [Errno 2] No such file or directory: '/lustre/fsw/datasets/fineweb-edu/shard_01873.bin'"
            fr = frames_train[:3] + [("/workspace/data/shard_reader.py", 63, "_open", "self._fh = open(path, \"rb\")")]
        L = tb(fr, exc)
    elif cause == "gpu_hardware":
        L = tb(frames_train + [(PYROOT[0] + "/torch/cuda/streams.py", 225, "synchronize", "super().synchronize()")],
               "\n".join(torch_cuda_err_block(r.choice(["RuntimeError: CUDA error: unspecified launch failure",
                                                        "RuntimeError: CUDA error: unknown error",
                                                        "torch.AcceleratorError: CUDA error: GPU is lost"]))))
    elif cause == "ecc_memory":
        L = tb(frames_train, "\n".join(torch_cuda_err_block("RuntimeError: CUDA error: uncorrectable ECC error encountered")))
    elif cause == "nvlink":
        npfx = nccl_prefix(host, pid, local)
        L = [npfx + "transport/nvls.cc:361 NCCL WARN Cuda failure 700 'uncorrectable NVLink error was detected during the execution'",
             npfx + "NCCL INFO transport/p2p.cc:424 -> 1",
             npfx + "NCCL INFO enqueue.cc:1546 -> 1"]
        L += tb(frames_train[:3] + [(PYROOT[0] + "/torch/distributed/c10d_logger.py", 81, "wrapper", "return func(*args, **kwargs)"),
                                    (PYROOT[0] + "/torch/distributed/distributed_c10d.py", 2806, "all_reduce", "work = group.allreduce([tensor], opts)")],
                "torch.distributed.DistBackendError: NCCL error in: /opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3696, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.26.5\n"
                "ncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\nCuda failure 'uncorrectable NVLink error was detected during the execution'")
    elif cause == "network":
        npfx = nccl_prefix(host, pid, local)
        peer = ctx.get("peer_ip", "10.0.0.1")
        L = [npfx + "transport/net_ib.cc:2370 NCCL WARN NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Send) localGid ::ffff:%s remoteGids::ffff:%s hca mlx5_%d" % (peer, r.randint(30000, 60000), ctx.get("my_ip", "10.0.0.2"), peer, local),
             npfx + "NCCL INFO transport/net.cc:1311 -> 6",
             npfx + "NCCL INFO proxy.cc:738 -> 6",
             npfx + "NCCL INFO proxy.cc:915 -> 6 [Progress Thread]"]
        L += [c10_prefix(rank, "E", t + timedelta(milliseconds=300), r, line=1896) + "[PG ID 0 PG GUID 0(default_pg) Rank %d] NCCL watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version 2.26.5" % rank,
              "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
              "Last error:",
              "NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Send) localGid ::ffff:%s" % (peer, r.randint(30000, 60000), ctx.get("my_ip", "10.0.0.2"))]
    elif cause == "crash_signal":
        sig = ctx.get("signame", "SIGSEGV")
        if sig == "SIGSEGV":
            L = ["Fatal Python error: Segmentation fault", "",
                 "Thread 0x00007f%08x (most recent call first):" % r.randint(0, 2**32),
                 '  File "%s/torch/utils/data/_utils/pin_memory.py", line 55 in do_one_step' % PYROOT[0],
                 '  File "%s/threading.py", line 1012 in run' % "/usr/lib/python3.12", "",
                 "Current thread 0x00007f%08x (most recent call first):" % r.randint(0, 2**32),
                 '  File "/workspace/kernels/fused_rmsnorm.py", line 141 in forward',
                 '  File "%s/torch/nn/modules/module.py", line 1762 in _call_impl' % PYROOT[0],
                 '  File "%s" line 470 in train_step' % train, "",
                 "Extension modules: numpy.core._multiarray_umath, torch._C, torch._C._dynamo.autograd_compiler, apex_C (total: 41)"]
        else:
            L = ["Fatal Python error: Bus error", "",
                 "Current thread 0x00007f%08x (most recent call first):" % r.randint(0, 2**32),
                 '  File "%s/torch/storage.py", line 1236 in _new_shared_filename' % PYROOT[0],
                 '  File "%s/torch/multiprocessing/reductions.py", line 517 in reduce_storage' % PYROOT[0]]
    elif cause == "unknown":
        L = []
    return [P + x if x and not x.startswith("[rank") and not x.startswith(host) else x for x in L]


# kernel lines for node-level causes
def kernel_fault(cause, kl, t, r, local, gpu_kind, pid, ctx):
    pci = pci_gb200(local) if gpu_kind == "GB200" else pci_for(local)
    short = pci[:10]
    X = "NVRM: Xid (PCI:%s): " % short
    if cause == "gpu_hardware":
        v = ctx.get("hw_variant") or r.choice(["79", "119", "154"])
        if v == "79":
            kl.add(t - timedelta(milliseconds=40), X + "79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.")
            kl.add(t - timedelta(milliseconds=39), "NVRM: GPU %s: GPU has fallen off the bus." % pci)
            kl.add(t - timedelta(milliseconds=38), "NVRM: A GPU crash dump has been created. If possible, please run")
            kl.add(t - timedelta(milliseconds=38), "NVRM: nvidia-bug-report.sh as root to collect this data before")
            kl.add(t - timedelta(milliseconds=38), "NVRM: the NVIDIA kernel module is unloaded.")
        elif v == "119":
            kl.add(t - timedelta(seconds=6), X + "119, pid=%d, name=python3, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x20802a02 0x8)." % (pid, local))
            kl.add(t - timedelta(seconds=5), "NVRM: GPU%d GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x0000000020802a02 0x0000000000000008." % local)
            kl.add(t - timedelta(seconds=5), X + "119, pid=%d, name=python3, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 10 (FREE) (0xa55a0040 0x0)." % (pid, local))
            kl.add(t + timedelta(seconds=1), X + "154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)")
        else:
            kl.add(t - timedelta(milliseconds=400), X + "62, pid=%d, name=python3, %s" % (pid, "Internal micro-controller halt (PMU halt)"))
            kl.add(t - timedelta(milliseconds=300), X + "154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)")
    elif cause == "ecc_memory":
        v = ctx.get("ecc_variant") or r.choice(["48", "95", "94"])
        if v == "48":
            kl.add(t - timedelta(milliseconds=30), X + "48, pid=%d, name=python3, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 6, subpartition 0." % pid)
            kl.add(t - timedelta(milliseconds=20), X + "63, pid=%d, name=python3, Row Remapper: New row (0x%08x) marked for remapping, reset gpu to activate." % (pid, r.randint(0, 2**28)))
        elif v == "95":
            kl.add(t - timedelta(milliseconds=30), X + "95, pid=%d, name=python3, Uncontained: FBHUB. RST: Yes, D-RST: No" % pid)
            kl.add(t - timedelta(milliseconds=20), X + "154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)")
        else:
            kl.add(t - timedelta(milliseconds=30), X + "94, pid=%d, name=python3, Contained: SM (0x1). RST: No, D-RST: No" % pid)
            kl.add(t - timedelta(milliseconds=25), X + "63, pid=%d, name=python3, Row Remapper: New row (0x%08x) marked for remapping, reset gpu to activate." % (pid, r.randint(0, 2**28)))
    elif cause == "nvlink":
        if gpu_kind == "GB200":
            kl.add(t - timedelta(milliseconds=60), X + "149, pid='<unknown>', name=<unknown>, NETIR_LINK_EVT Fatal error detected on link %d. Error category: 0x%x" % (r.randint(0, 17), r.choice([0x2, 0x4])))
            kl.add(t - timedelta(milliseconds=58), X + "145, pid='<unknown>', name=<unknown>, RLW_REMAP Nonfatal XC0 i0 Link %02d (0x%08x 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000)" % (r.randint(0, 17), r.randint(0, 2**32)))
            kl.add(t - timedelta(milliseconds=10), X + "154, GPU recovery action changed from 0x0 (None) to 0x3 (Drain P2P)")
        else:
            ln = r.randint(0, 17)
            kl.add(t - timedelta(milliseconds=60), X + "74, pid=%d, name=python3, NVLink: fatal error detected on link %d(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)" % (pid, ln))
            kl.add(t - timedelta(milliseconds=59), X + "74, pid=%d, name=python3, NVLink: fatal error detected on link %d(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)" % (pid, (ln + 1) % 18))
    elif cause == "network":
        hca = "mlx5_%d" % local
        pcin = "0000:%02x:00.0" % (0x0c + local * 0x10)
        kl.add(t - timedelta(seconds=2), "mlx5_core %s: Port module event[error]: module %d, Cable error, One or more network ports have been powered down due to high temperature" % (pcin, local) if r.random() < 0.3 else
               "mlx5_core %s: Port module event: module %d, Cable unplugged" % (pcin, local))
        kl.add(t - timedelta(seconds=2) + timedelta(milliseconds=3), "mlx5_core %s ib%d: Link DOWN" % (pcin, local) if False else "%s: port 1 link state changed to DOWN" % hca)
        kl.add(t - timedelta(seconds=1), "infiniband %s: ib_query_port failed (-5) for port 1" % hca)
    elif cause == "host_oom_kill":
        rss = r.randint(180, 400) * 1024 * 1024
        kl.add(t - timedelta(milliseconds=5), "pt_data_worker invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0")
        kl.add(t - timedelta(milliseconds=4), "CPU: %d PID: %d Comm: pt_data_worker Tainted: P           OE      6.8.0-1015-nvidia #16-Ubuntu" % (r.randint(0, 200), pid + 91))
        kl.add(t - timedelta(milliseconds=3), "Mem-Info:")
        if ctx.get("k8s"):
            pu = "%08x_%04x_%04x" % (r.getrandbits(32), r.getrandbits(16), r.getrandbits(16))
            cid = "%032x" % r.getrandbits(128)
            kl.add(t - timedelta(milliseconds=2), "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=cri-containerd-%s.scope,mems_allowed=0-1,oom_memcg=/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice/cri-containerd-%s.scope,task_memcg=/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice/cri-containerd-%s.scope,task=python3,pid=%d,uid=0" % (cid[:12], pu, cid, pu, cid, pid))
        else:
            kl.add(t - timedelta(milliseconds=2), "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0-1,oom_memcg=/system.slice/slurmstepd.scope/job_%s,task_memcg=/system.slice/slurmstepd.scope/job_%s/step_0/user/task_%d,task=python3,pid=%d,uid=%d" % (ctx.get("jobid", "1"), ctx.get("jobid", "1"), local, pid, r.randint(10000, 60000)))
        kl.add(t - timedelta(milliseconds=1), "Memory cgroup out of memory: Killed process %d (python3) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (pid, rss + 90000000, rss, r.randint(100000, 900000), r.randint(1000000, 9000000), r.randint(10000, 60000), r.randint(400000, 900000)))
    elif cause == "crash_signal":
        kl.add(t, "python3[%d]: segfault at %x ip 00007f%08x sp 00007ffd%08x error 4 in libfused_rmsnorm.cpython-312-x86_64-linux-gnu.so[7f%08x+%x] likely on CPU %d (core %d, socket %d)" % (pid, r.choice([0, 8, 0x18]), r.randint(0, 2**32), r.randint(0, 2**32), r.randint(0, 2**32), r.randint(0x1000, 0x90000), r.randint(0, 100), r.randint(0, 50), r.randint(0, 1)))
    elif cause == "illegal_memory_access":
        kl.add(t - timedelta(milliseconds=80), X + "31, pid=%d, name=python3, channel 0x%08x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC%d GPCCLIENT_T1_%d faulted @ 0x7f%02x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (pid, r.randint(0, 99), r.randint(0, 7), r.randint(0, 15), r.randint(0, 255), r.randint(0, 2**32)))
    elif cause == "data_loader_stall":
        srv = ctx.get("nfs", "vast-fs01")
        kl.add(t, "nfs: server %s not responding, still trying" % srv)
        kl.add(t + timedelta(seconds=180), "INFO: task pt_data_worker:%d blocked for more than 122 seconds." % (pid + 12))
        kl.add(t + timedelta(seconds=180), "      Tainted: P           OE      6.8.0-1015-nvidia #16-Ubuntu")
        kl.add(t + timedelta(seconds=180), "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.")
    elif cause == "straggler":
        # nothing fatal in kernel; maybe thermal notice
        if r.random() < 0.5:
            kl.add(t, "NVRM: GPU at PCI:%s: GPU is being throttled, HW Slowdown (thermal)" % pci)


def kernel_decoys(kl, r, job_start, gpu_kind, notes, is_fault_node=False):
    """old Xid from days before, benign link flap, corrected ECC."""
    ch = r.random()
    if ch < 0.35:
        d = job_start - timedelta(days=r.randint(2, 9), hours=r.randint(0, 20))
        loc = r.randint(0, 7 if gpu_kind != "GB200" else 3)
        pci = pci_gb200(loc) if gpu_kind == "GB200" else pci_for(loc)
        code = r.choice(["79", "48", "74", "13"])
        txt = {"79": "79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
               "48": "48, pid=%d, name=python, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 2, subpartition 1." % r.randint(1000, 90000),
               "74": "74, pid=%d, name=python, NVLink: fatal error detected on link 5(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)" % r.randint(1000, 90000),
               "13": "13, pid=%d, name=python, Graphics SM Warp Exception on (GPC 1, TPC 3, SM 0): Out Of Range Address" % r.randint(1000, 90000)}[code]
        kl.add(d, "NVRM: Xid (PCI:%s): %s" % (pci[:10], txt))
        notes.append("decoy: old Xid %s on %s dated %s (previous job)" % (code, kl.host, d.date()))
        return
    if ch < 0.6:
        d = job_start + timedelta(minutes=r.randint(5, 60))
        h = "mlx5_%d" % r.randint(0, 7)
        kl.add(d, "%s: port 1 link state changed to DOWN" % h)
        kl.add(d + timedelta(milliseconds=r.randint(900, 2500)), "%s: port 1 link state changed to ACTIVE" % h)
        notes.append("decoy: benign IB link flap on %s (recovered in <3s)" % kl.host)
        return
    if ch < 0.75:
        d = job_start + timedelta(minutes=r.randint(1, 40))
        kl.add(d, "EDAC MC1: 1 CE memory read error on CPU_SrcID#1_MC#0_Chan#1_DIMM#0 (channel:1 slot:0 page:0x%x offset:0x0 grain:32 syndrome:0x0)" % r.randint(0, 2**24))
        notes.append("decoy: corrected host DIMM ECC (EDAC CE) on %s" % kl.host)


def kernel_background(kl, r, boot, job_start, gpu_kind):
    kl.add(boot + timedelta(seconds=2.1), "Linux version 6.8.0-1015-nvidia (buildd@lcy02-amd64-017) (x86_64-linux-gnu-gcc-13) #16-Ubuntu SMP PREEMPT_DYNAMIC")
    kl.add(boot + timedelta(seconds=14.2), "nvidia: loading out-of-tree module taints kernel.")
    kl.add(boot + timedelta(seconds=14.9), "NVRM: loading NVIDIA UNIX %s Kernel Module  570.172.08  Tue Jul  8 17:38:12 UTC 2025" % ("aarch64" if gpu_kind == "GB200" else "x86_64"))
    kl.add(boot + timedelta(seconds=15.4), "nvidia-nvlink: Nvlink Core is being initialized, major device number 509")
    for i in range(r.randint(1, 4)):
        kl.add(job_start + timedelta(seconds=r.randint(5, 3000)), "audit: type=1400 audit(%d.%03d:%d): apparmor=\"DENIED\" operation=\"open\" class=\"file\" profile=\"enroot\" name=\"/proc/%d/mountinfo\"" % (int(job_start.timestamp()), r.randint(0, 999), r.randint(100, 999), r.randint(1000, 99999)))
    kl.add(job_start - timedelta(seconds=r.randint(3, 20)), "IPv6: ADDRCONF(NETDEV_CHANGE): veth%s: link becomes ready" % stable_uid(r, 6))


# --------------------------------------------------------------------------
# job model + torch-family story
# --------------------------------------------------------------------------
class Job:
    def __init__(self, r, layout, cause, healthy, nnodes, gpn, node_style, gpu_kind="H100"):
        self.r, self.layout, self.cause, self.healthy = r, layout, cause, healthy
        self.nodes = make_nodes(r, nnodes, node_style)
        self.gpn, self.world, self.gpu_kind = gpn, nnodes * gpn, gpu_kind
        self.tzname, tzm = r.choice(TZS)
        self.tz = tzobj(tzm)
        base = datetime(2026, r.randint(1, 11), r.randint(1, 28), r.randint(0, 23), r.randint(0, 59), r.randint(0, 59),
                        r.randint(0, 999999), tzinfo=timezone.utc)
        self.t0 = base
        self.notes = []
        self.jobid = str(r.randint(100000, 9999999))
        self.pids = {rk: 1000 + r.randint(100, 60000) for rk in self._interesting_ranks_seed()}
        self.step_s = round(r.uniform(0.9, 9.5), 3)
        self.timeout_ms = r.choice([600000, 600000, 1800000, 300000, 900000])
        self.frank = None
        self.fnode = None
        self.rank_inferable = False
        self.job_wide = False
        self.files = {}
        self.kernel = {}
        self.pyexc_kind = r.choice(["key", "shape", "assert", "file"])
        self.nfs = r.choice(["vast-fs01", "10.40.0.12", "weka-nfs.storage.internal", "fsx-0a1b2c3d.fsx.us-east-1.amazonaws.com@tcp"])
        self.gpumem = {"H100": 79.11, "H200": 139.81, "GB200": 184.0}[gpu_kind]

    def _interesting_ranks_seed(self):
        return []

    def pid(self, rank):
        if rank not in self.pids:
            self.pids[rank] = 1000 + (rank * 7919 + self.r.randint(0, 50)) % 60000 + 200
        return self.pids[rank]

    def node_of(self, rank):
        return self.nodes[rank // self.gpn]

    def lt(self, t):  # local time
        return t.astimezone(self.tz)

    def add(self, path, text):
        self.files[path] = self.files.get(path, "") + text

    def kl(self, node, style=None):
        if node.idx not in self.kernel:
            boot = self.t0 - timedelta(days=self.r.randint(3, 60), seconds=self.r.randint(0, 80000))
            k = KernelLog(node.short, boot, self.tz, style or self.r.choice(["dmesg", "dmesg_T", "journalctl", "kernlog"]))
            kernel_background(k, self.r, boot, self.t0, self.gpu_kind)
            self.kernel[node.idx] = k
        return self.kernel[node.idx]


def pick_fault(job, cause):
    r = job.r
    if cause in ("preemption",) or (cause == "data_loader_stall" and r.random() < 0.25) or \
            (cause == "python_exception" and r.random() < 0.25):
        job.job_wide = True
        job.frank = None
        return
    # avoid rank 0 most of the time
    job.frank = r.randint(1, job.world - 1) if r.random() < 0.85 else 0
    job.fnode = job.node_of(job.frank)


def sample_ranks(job, k):
    """ranks whose collateral lines are shown (all ranks when small)."""
    if job.world <= k:
        return list(range(job.world))
    s = set(job.r.sample(range(job.world), k))
    s.add(0)
    if job.frank is not None:
        for x in range(job.gpn):
            s.add(job.fnode.idx * job.gpn + x)
    return sorted(s)


def torch_story(job, fmt_progress, n_steps=None):
    """Build per-rank lists of (t, line) for a torch-family job.
    Returns dict with ranks -> lines, t_fault, t_end, exit codes per rank."""
    r = job.r
    cause = job.cause
    steps = n_steps or r.randint(40, 160)
    if job.job_wide and cause == "python_exception":
        steps = r.randint(1, 3)
    log_every = r.choice([1, 5, 10, 10, 25])
    t_start = job.t0 + timedelta(seconds=r.randint(40, 400))
    lines = {}
    shown = sample_ranks(job, 24 if job.world > 64 else 64)
    for rk in shown:
        lines[rk] = []
    # progress on rank 0 (and some others when logs are per rank)
    t = t_start
    step_t = []
    slow = (cause == "straggler" and not job.healthy)
    for s in range(1, steps + 1):
        dt = job.step_s * (1 + r.uniform(-0.03, 0.03))
        if slow and s > steps * 0.4:
            dt *= r.uniform(1.35, 1.9)
        t = t + timedelta(seconds=dt)
        step_t.append(t)
    tf = step_t[-1] + timedelta(seconds=job.step_s * r.uniform(0.2, 0.9))
    res = {"lines": lines, "t_start": t_start, "steps": steps, "step_t": step_t, "t_fault": tf, "log_every": log_every,
           "exit": {}, "shown": shown}
    for rk in shown:
        if rk == 0 or job.world <= 16 or rk == job.frank:
            for s, ts in enumerate(step_t, 1):
                if s % log_every == 0 or s == 1:
                    lines[rk].append((ts, fmt_progress(rk, s, ts, slow and s > steps * 0.4)))
    seq = steps * r.choice([3, 5, 12]) + r.randint(10, 99)
    res["seq"] = seq
    op = r.choice(["ALLREDUCE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE", "ALLREDUCE"])
    numel = r.choice([1, 4096, 262144000, 67108864, 524288])
    res["op"], res["numel"] = op, numel
    if job.healthy:
        tend = step_t[-1] + timedelta(seconds=r.uniform(3, 40))
        res["t_end"] = tend
        for rk in shown:
            res["exit"][rk] = 0
        return res
    fr, fnode = job.frank, job.fnode
    ctx = {"pid": job.pid(fr) if fr is not None else 0, "gpumem": 79.11 if job.gpu_kind == "H100" else (139.81 if job.gpu_kind == "H200" else 184.0),
           "jobid": job.jobid, "k8s": job.layout == "k8s_jobset",
           "trainpy": {"megatron_nvrx": "/opt/megatron-lm/megatron/training/training.py",
                       "nemo_run": "/opt/NeMo/nemo/collections/llm/api.py",
                       "k8s_jobset": "/app/train.py"}.get(job.layout, "/workspace/torchtitan/torchtitan/train.py"),
           "modelpy": {"megatron_nvrx": "/opt/megatron-lm/megatron/core/transformer/moe/experts.py",
                       "nemo_run": "/opt/megatron-lm/megatron/core/transformer/moe/experts.py"}.get(job.layout, "/workspace/torchtitan/torchtitan/models/moe.py")}
    if fnode is not None:
        ctx["my_ip"] = fnode.ip
        ctx["peer_ip"] = job.nodes[(fnode.idx + 1) % len(job.nodes)].ip
    to = timedelta(milliseconds=job.timeout_ms)
    # who dies how
    proc_death = cause in ("cuda_oom", "illegal_memory_access", "python_exception", "crash_signal", "host_oom_kill",
                           "ecc_memory", "unknown", "network")
    hangy = cause in ("gpu_hardware", "nvlink", "hang", "collective_mismatch", "data_loader_stall", "straggler")
    if cause == "gpu_hardware" and r.random() < 0.5:
        proc_death = True
        hangy = False
    if cause == "nvlink" and r.random() < 0.6 and not job.job_wide:
        proc_death, hangy = True, False
    res["proc_death"] = proc_death
    if job.job_wide and cause in ("python_exception", "data_loader_stall"):
        for rk in lines:
            tj = tf + timedelta(milliseconds=r.randint(0, 3000) if cause == "python_exception" else r.randint(0, 40000))
            if cause == "python_exception":
                fl = torch_fault_lines(cause, rk, rk % job.gpn, job.node_of(rk).spell, tj, r, dict(ctx, pyexc_kind=job.pyexc_kind))
            else:
                fl = ["[rank%d]: %s" % (rk, x) for x in tb([(PYROOT[0] + "/torch/utils/data/dataloader.py", 1298, "_try_get_data", "raise RuntimeError(f\"DataLoader timed out after {self._timeout} seconds\") from e")],
                                                           "RuntimeError: DataLoader timed out after 600 seconds")]
                tj = tj + timedelta(seconds=600)
            for i, x in enumerate(fl):
                lines[rk].append((tj + timedelta(microseconds=50 * i), x))
            res["exit"][rk] = 1
        if cause == "data_loader_stall":
            for n in job.nodes[:6]:
                kernel_fault("data_loader_stall", job.kl(n), tf + timedelta(seconds=r.uniform(0, 5)), r, 0, job.gpu_kind, 4000, {"nfs": job.nfs})
        res["proc_death"] = True
        res["t_detect"] = tf + timedelta(seconds=(1 if cause == "python_exception" else 601))
        res["t_end"] = res["t_detect"] + timedelta(seconds=r.uniform(20, 50))
        return res
    if job.job_wide and cause == "nvlink":
        proc_death, hangy = False, True
        res["proc_death"] = False
        for n in job.nodes:
            k = job.kl(n)
            for lg in range(job.gpn):
                k.add(tf + timedelta(milliseconds=r.randint(0, 900)), "NVRM: Xid (PCI:%s): 145, pid='<unknown>', name=<unknown>, RLW_REMAP Nonfatal XC0 i0 Link %02d (0x%08x 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000)" % (pci_gb200(lg)[:10], r.randint(0, 17), r.getrandbits(32)))
                k.add(tf + timedelta(seconds=1, milliseconds=r.randint(0, 900)), "NVRM: Xid (PCI:%s): 154, GPU recovery action changed from 0x0 (None) to 0x5 (Recover IMEX Domain)" % pci_gb200(lg)[:10])
    if cause == "collective_mismatch" and r.random() < 0.5:
        # TORCH_DISTRIBUTED_DEBUG=DETAIL: every rank raises the fingerprint mismatch
        other_op = "ALLGATHER" if op == "ALLREDUCE" else "ALLREDUCE"
        for rk in lines:
            tj = tf + timedelta(milliseconds=r.randint(5, 900))
            msg = ("RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%d], TensorDtypes=BFloat16, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))), "
                   "but Rank %d is running collective: CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%d], TensorDtypes=BFloat16, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))). Collectives differ in the following aspects: \t Op type: %svs%s"
                   % (rk if rk != fr else (0 if fr != 0 else 1), seq, op if rk != fr else op, numel, fr, seq, other_op, numel, op, other_op))
            for i, x in enumerate(tb([(job.files_hint if hasattr(job, "files_hint") else "/workspace/train.py", 512, "train_step", "dist.all_reduce(grad_norm_sq, group=self.dp_group)"),
                                      (PYROOT[0] + "/torch/distributed/distributed_c10d.py", 2806, "all_reduce", "work = group.allreduce([tensor], opts)")], msg)):
                lines[rk].append((tj + timedelta(microseconds=i * 20), "[rank%d]: %s" % (rk, x)))
            res["exit"][rk] = 1
        res["proc_death"] = True
        res["t_detect"] = tf + timedelta(seconds=1)
        res["t_end"] = tf + timedelta(seconds=r.uniform(20, 40))
        res["mismatch_explicit"] = True
        job.notes.append("TORCH_DISTRIBUTED_DEBUG=DETAIL fingerprint mismatch names rank %d" % fr)
        return res
    if fr is not None and fr in lines:
        fl = torch_fault_lines(cause, fr, fr % job.gpn, fnode.spell, tf, r, dict(ctx, signame=r.choice(["SIGSEGV", "SIGSEGV", "SIGBUS"])))
        for i, x in enumerate(fl):
            lines[fr].append((tf + timedelta(microseconds=50 * i), x))
    # kernel side
    if fnode is not None:
        kernel_fault(cause, job.kl(fnode), tf, r, fr % job.gpn, job.gpu_kind, ctx["pid"], ctx)
    # collateral
    if proc_death:
        t_detect = tf + timedelta(seconds=r.uniform(0.5, 4))
        res["t_detect"] = t_detect
        for rk in lines:
            if rk == fr:
                res["exit"][rk] = {"cuda_oom": 1, "illegal_memory_access": -6, "python_exception": 1, "crash_signal": -11,
                                   "host_oom_kill": -9, "ecc_memory": -6, "unknown": 1, "network": -6, "gpu_hardware": -6, "nvlink": 1}[cause]
                if cause == "crash_signal" and "Bus error" in "".join(x for _, x in lines[rk]):
                    res["exit"][rk] = -7
                continue
            if job.node_of(rk) is fnode:
                res["exit"][rk] = -15
                continue
            # remote ranks: some see ncclRemoteError quickly, others get SIGTERM from launcher
            if r.random() < 0.35:
                tt = tf + timedelta(seconds=r.uniform(1, 20))
                lines[rk].append((tt, c10_prefix(rk, "E", job.lt(tt), r, line=1896) + "[PG ID 0 PG GUID 0(default_pg) Rank %d] NCCL watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version 2.26.5" % rk))
                lines[rk].append((tt, "[rank%d]: ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely." % rk))
                lines[rk].append((tt, "[rank%d]: Last error:" % rk))
                lines[rk].append((tt, "[rank%d]: socketProgress: Connection closed by remote peer %s<%d>" % (rk, fnode.ip if fnode else "10.0.0.1", r.randint(30000, 60000))))
                res["exit"][rk] = -6
            else:
                res["exit"][rk] = -15
        res["t_end"] = tf + timedelta(seconds=r.uniform(25, 70))
    elif cause == "straggler":
        res["t_detect"] = tf
        res["t_end"] = tf + timedelta(seconds=r.uniform(8, 30))
        for rk in lines:
            res["exit"][rk] = 0
    else:
        # hang-type: peers hit watchdog timeout
        t_to = tf + to
        res["t_detect"] = t_to
        for rk in lines:
            tt = t_to + timedelta(milliseconds=r.randint(0, 900))
            if rk == fr and cause in ("hang", "data_loader_stall"):
                if cause == "data_loader_stall":
                    dl_t = tf + timedelta(seconds=r.choice([120, 300, 600, 900, 1200]))
                    if dl_t < t_to:
                        res["dl_msg"] = True
                        for x in tb([(job.files_hint if hasattr(job, "files_hint") else "/workspace/train.py", 388, "train_step", "batch = next(self.data_iter)"),
                                     (PYROOT[0] + "/torch/utils/data/dataloader.py", 733, "__next__", "data = self._next_data()"),
                                     (PYROOT[0] + "/torch/utils/data/dataloader.py", 1482, "_next_data", "idx, data = self._get_data()"),
                                     (PYROOT[0] + "/torch/utils/data/dataloader.py", 1444, "_get_data", "success, data = self._try_get_data()"),
                                     (PYROOT[0] + "/torch/utils/data/dataloader.py", 1298, "_try_get_data", "raise RuntimeError(f\"DataLoader timed out after {self._timeout} seconds\") from e")],
                                    "RuntimeError: DataLoader timed out after %d seconds" % int((dl_t - tf).total_seconds())):
                            lines[rk].append((dl_t, "[rank%d]: %s" % (rk, x)))
                        res["exit"][rk] = 1
                        continue
                # stuck rank: its watchdog doesn't fire for a collective it never launched
                res["exit"][rk] = -15
                continue
            if rk == fr and cause == "collective_mismatch":
                pass
            for x in dump_signal_lines(rk, job.lt(tt), r, seq):
                lines[rk].append((tt, x))
            for x in watchdog_timeout_lines(rk, job.lt(tt + timedelta(seconds=r.uniform(0.5, 3))), r, seq, op, numel, job.timeout_ms):
                lines[rk].append((tt + timedelta(seconds=1), x))
            res["exit"][rk] = -6
        res["t_end"] = t_to + timedelta(seconds=r.uniform(20, 60))
    return res


def torchrun_node_log(job, node, res, script, rdzv="c10d", first_fail_local=None):
    """torchrun / elastic agent output for one node."""
    r = job.r
    L = []
    ts = res["t_start"] - timedelta(seconds=r.uniform(20, 60))
    pid = getattr(job, "agent_pid", {}).get(node.idx) or 500 + r.randint(0, 5000)

    def P(lvl, t, src, msg):
        return "%s%s %d %s] %s" % (lvl, f_glog(job.lt(t)), pid, src, msg)
    L.append(P("W", ts, "torch/distributed/run.py:792", ""))
    L.append(P("W", ts, "torch/distributed/run.py:792", "*****************************************"))
    L.append(P("W", ts, "torch/distributed/run.py:792", "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed."))
    L.append(P("W", ts, "torch/distributed/run.py:792", "*****************************************"))
    if job.healthy:
        te = res["t_end"]
        L.append(P("I", te, "torch/distributed/elastic/agent/server/api.py:890", "[default] worker group successfully finished. Waiting 300 seconds for other agents to finish."))
        L.append(P("I", te + timedelta(seconds=1), "torch/distributed/elastic/agent/server/api.py:904", "Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish"))
        L.append(P("I", te + timedelta(seconds=2), "torch/distributed/elastic/agent/server/api.py:918", "Done waiting for other agents. Elapsed: %.5f seconds" % r.uniform(0.01, 3)))
        return L
    base = node.idx * job.gpn
    fails = []
    for lr in range(job.gpn):
        rk = base + lr
        ec = res["exit"].get(rk, -15)
        fails.append((rk, lr, ec))
    td = res.get("t_detect", res["t_fault"])
    is_fnode = job.fnode is node
    if is_fnode and res.get("proc_death"):
        rk = job.frank
        ec = res["exit"].get(rk, 1)
        L.append(P("E", td, "torch/distributed/elastic/multiprocessing/api.py:874", "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: /usr/bin/python3" % (ec, rk % job.gpn, job.pid(rk))))
        for lr in range(job.gpn):
            if base + lr != rk:
                L.insert(-1, P("W", td - timedelta(milliseconds=5), "torch/distributed/elastic/multiprocessing/api.py:900", "Sending process %d closing signal SIGTERM" % job.pid(base + lr)))
        root = (rk, rk % job.gpn, ec)
        others = [f for f in fails if f[0] != rk]
    else:
        # node received SIGTERM from srun (or peers aborted)
        tt = res["t_end"] - timedelta(seconds=r.uniform(5, 15))
        aborted = [f for f in fails if f[2] == -6]
        if aborted and r.random() < 0.6:
            f0 = min(aborted)
            L.append(P("E", tt, "torch/distributed/elastic/multiprocessing/api.py:874", "failed (exitcode: -6) local_rank: %d (pid: %d) of binary: /usr/bin/python3" % (f0[1], job.pid(f0[0]))))
            root = f0
            others = [f for f in fails if f != f0]
        else:
            L.append(P("W", tt, "torch/distributed/elastic/agent/server/api.py:719", "Received Signals.SIGTERM death signal, shutting down workers"))
            for lr in range(job.gpn):
                L.append(P("W", tt, "torch/distributed/elastic/multiprocessing/api.py:900", "Sending process %d closing signal SIGTERM" % job.pid(base + lr)))
            L += ["Traceback (most recent call last):",
                  '  File "/usr/local/bin/torchrun", line 33, in <module>',
                  "    sys.exit(load_entry_point('torch', 'console_scripts', 'torchrun')())",
                  '  File "%s/torch/distributed/elastic/multiprocessing/api.py", line 84, in _terminate_process_handler' % PYROOT[0],
                  "    raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)",
                  "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % pid]
            return L
    L += ["Traceback (most recent call last):",
          '  File "/usr/local/bin/torchrun", line 33, in <module>',
          "    sys.exit(load_entry_point('torch', 'console_scripts', 'torchrun')())",
          '  File "%s/torch/distributed/run.py", line 901, in main' % PYROOT[0],
          "    run(args)",
          '  File "%s/torch/distributed/launcher/api.py", line 270, in launch_agent' % PYROOT[0],
          "    raise ChildFailedError(",
          "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
          "============================================================",
          "%s FAILED" % script,
          "------------------------------------------------------------",
          "Failures:"]
    shown_o = others[:job.gpn - 1]
    if not shown_o:
        L.append("  <NO_OTHER_FAILURES>")
    for i, (rk, lr, ec) in enumerate(shown_o, 1):
        L += ["  [%d]:" % i, "    time      : %s" % job.lt(td + timedelta(seconds=1)).strftime("%Y-%m-%d_%H:%M:%S"),
              "    host      : %s" % node.fqdn if r.random() < 0.5 else "    host      : %s" % node.spell,
              "    rank      : %d (local_rank: %d)" % (rk, lr), "    exitcode  : %d (pid: %d)" % (ec, job.pid(rk)),
              "    error_file: <N/A>",
              "    traceback : %s" % ("Signal %d (%s) received by PID %d" % (-ec, {6: "SIGABRT", 15: "SIGTERM", 9: "SIGKILL"}.get(-ec, "SIG"), job.pid(rk)) if ec < 0 else "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")]
    rk, lr, ec = root
    sig = {6: "SIGABRT", 15: "SIGTERM", 9: "SIGKILL", 11: "SIGSEGV", 7: "SIGBUS"}
    L += ["------------------------------------------------------------", "Root Cause (first observed failure):", "[0]:",
          "  time      : %s" % job.lt(td).strftime("%Y-%m-%d_%H:%M:%S"),
          "  host      : %s" % node.spell, "  rank      : %d (local_rank: %d)" % (rk, lr),
          "  exitcode  : %d (pid: %d)" % (ec, job.pid(rk)), "  error_file: <N/A>",
          "  traceback : %s" % ("Signal %d (%s) received by PID %d" % (-ec, sig.get(-ec, "SIG%d" % -ec), job.pid(rk)) if ec < 0 else "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"),
          "============================================================"]
    return L


def fr_dump_text(job, rank, res, culprit_behaviour):
    """Flight Recorder dump rendered as text (what people paste after
    `torchfrtrace --print_only` or a json->text converter)."""
    r = job.r
    seq = res["seq"]
    op = res["op"]
    L = ["# flight recorder dump (text), version 2.8", "pg_config: {'0': {'name': '0', 'desc': 'default_pg', 'ranks': '[%s]'}}" % ("0, ..., %d" % (job.world - 1)),
         "rank: %d   host: %s   nccl_version: 2.26.5   comm_lib_version: 2.26.5" % (rank, job.node_of(rank).spell),
         "%-9s %-6s %-8s %-8s %-26s %-10s %-12s %s" % ("record_id", "pg_id", "coll_seq", "p2p_seq", "profiling_name", "state", "input_sizes", "time_created_ns")]
    tbase = int(res["t_fault"].timestamp() * 1e9)
    n = r.randint(5, 9)
    for i in range(n):
        s = seq - n + i + 1
        state = "completed"
        name = "nccl:" + op.lower().strip("_")
        if s == seq:
            state = "scheduled" if culprit_behaviour == "never" and False else "started"
        if culprit_behaviour == "stuck" and s >= seq:
            continue
        if culprit_behaviour == "stuck" and s == seq - 1:
            state = "completed"
        if culprit_behaviour == "mismatch" and s == seq:
            name = "nccl:all_gather_into_tensor" if "allreduce" in op.lower() else "nccl:all_reduce"
        L.append("%-9d %-6d %-8d %-8d %-26s %-10s %-12s %d" % (s + 7, 0, s, 0, name, state, "[[%d]]" % res["numel"], tbase - (n - i) * int(job.step_s * 1e9 / 3)))
    return L


def nccl_ras_text(job, missing_rank, mismatch_rank=None):
    nn = len(job.nodes)
    L = ["NCCL version 2.26.5 compiled with CUDA 12.9", "CUDA runtime version 12090, driver version 12090", "",
         "Job summary", "===========", "",
         "  Nodes  Processes         GPUs  Processes     GPUs",
         "(total)   per node  per process    (total)  (total)",
         "%7d %10d %12d %10d %8d" % (nn, job.gpn, 1, job.world, job.world), "",
         "Communicators... (%.2fs)" % (2.05 if missing_rank is not None else 0.01), "=============", "",
         "Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors",
         "    #  in group  per comm  per node  per comm  in group"]
    if missing_rank is None and mismatch_rank is None:
        L.append("    0         1 %9d %9d %9d %9d   RUNNING      OK" % (nn, job.gpn, job.world, job.world))
        return L
    if missing_rank is not None:
        L.append("    0         1 %9d %9s %9d %9d   RUNNING  INCOMPLETE" % (nn, "%d-%d" % (job.gpn - 1, job.gpn), job.world, job.world))
        n = job.node_of(missing_rank)
        L += ["", "Errors", "======", "", "INCOMPLETE", "  Missing communicator data from 1 job process",
              "  Process %d on node %s managing GPU %d" % (job.pid(missing_rank), n.ip, missing_rank % job.gpn), "",
              "#0-0 (%016x) INCOMPLETE" % job.r.getrandbits(64), "  Missing communicator data from 1 rank", "  The missing rank: %d" % missing_rank]
    else:
        L.append("    0         1 %9d %9d %9d %9d   RUNNING  MISMATCH" % (nn, job.gpn, job.world, job.world))
        n = job.node_of(mismatch_rank)
        L += ["", "Warnings", "========", "", "#0-0 (%016x) MISMATCH" % job.r.getrandbits(64),
              "  Communicator ranks have different collective operation counts",
              "  %d ranks have launched up to operation %d" % (job.world - 1, 6650),
              "  1 rank has launched up to operation 6649",
              "  Rank %d -- GPU %d managed by process %d on node %s" % (mismatch_rank, mismatch_rank % job.gpn, job.pid(mismatch_rank), n.ip)]
    return L


# --------------------------------------------------------------------------
# shared helpers for layouts
# --------------------------------------------------------------------------
def warn_storm(job, rk, t0, t1, n):
    r = job.r
    msgs = ["%s/torch/distributed/fsdp/_fully_shard/_fsdp_state.py:92: UserWarning: FSDP reduce-scatter in bf16 with fp32 accumulation is not deterministic" % PYROOT[0],
            "[rank%d]:[W%s %d ProcessGroupNCCL.cpp:4718] [PG ID 0 PG GUID 0 Rank %d]  using GPU %d as device used by this process is currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect." % (rk, "%s", 77, rk, rk % job.gpn),
            "%s/torch/utils/checkpoint.py:86: UserWarning: None of the inputs have requires_grad=True. Gradients will be None" % PYROOT[0],
            "%s/transformer_engine/pytorch/module/base.py:734: UserWarning: fp8 delayed scaling amax history length 1024 > 16" % PYROOT[2]]
    m = r.choice(msgs)
    out = []
    for i in range(n):
        t = t0 + (t1 - t0) * (i / max(1, n))
        out.append((t, m % f_glog_ns(job.lt(t), r) if "%s" in m else m))
    return out


def nccl_init_lines(job, rk, t):
    n = job.node_of(rk)
    p = nccl_prefix(n.spell, job.pid(rk), rk % job.gpn)
    L = [p + "NCCL INFO Bootstrap: Using eth0:%s<0>" % n.ip,
         p + "NCCL INFO NCCL version 2.26.5+cuda12.9",
         p + "NCCL INFO NET/Plugin: Loaded net plugin NCCL RDMA Plugin v9 (v9)",
         p + "NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/IB [2]mlx5_4:1/IB [3]mlx5_5:1/IB [4]mlx5_6:1/IB [5]mlx5_9:1/IB [6]mlx5_10:1/IB [7]mlx5_11:1/IB [RO]; OOB eth0:%s<0>" % n.ip,
         p + "NCCL INFO comm 0x%x rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d" % (0x55d000000000 + rk * 4096, rk, job.world, len(job.nodes), job.gpn, rk % job.gpn, 1 if job.gpu_kind == "GB200" else 0),
         p + "NCCL INFO ncclCommInitRankConfig comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId 0x%x - Init COMPLETE" % (0x55d000000000 + rk * 4096, rk, job.world, rk % job.gpn, rk % job.gpn, (pci_gb200(rk % job.gpn) if job.gpu_kind == "GB200" else pci_for(rk % job.gpn))[5:], 0x7b3f1e2a9c0d4e11)]
    return [(t + timedelta(milliseconds=i * 13), x) for i, x in enumerate(L)]


def emit_sorted(pairs, prefix_fn=None):
    out = []
    for t, x in sorted(pairs, key=lambda p: p[0]):
        out.append(prefix_fn(x) if prefix_fn else x)
    return "\n".join(out) + "\n"


def benign_nccl_teardown(job, rk, t):
    n = job.node_of(rk)
    p = nccl_prefix(n.spell, job.pid(rk), rk % job.gpn)
    return [(t, p + "transport/net_ib.cc:1236 NCCL WARN NET/IB : Got async event : port error"),
            (t, p + "misc/socket.cc:50 NCCL WARN socketProgress: Connection closed by remote peer %s<%d>" % (job.nodes[(n.idx + 1) % len(job.nodes)].ip, job.r.randint(30000, 60000))),
            (t, "[rank%d]:[W%s %d ProcessGroupNCCL.cpp:1496] Warning: WARNING: destroy_process_group() was not called before program exit, which can leak resources. For more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())" % (rk, f_glog_ns(job.lt(t), job.r), job.pid(rk)))]


def write_kernel_files(job, base, name, extra_nodes=3):
    """kernel logs: fault node + decoy nodes + a few random nodes."""
    r = job.r
    want = set()
    if job.fnode is not None:
        want.add(job.fnode.idx)
    for _ in range(min(extra_nodes, len(job.nodes))):
        want.add(r.randrange(len(job.nodes)))
    for idx in sorted(want):
        n = job.nodes[idx]
        k = job.kl(n)
        if r.random() < 0.6:
            kernel_decoys(k, r, job.t0, job.gpu_kind, job.notes)
    for idx in sorted(job.kernel):
        n = job.nodes[idx]
        k = job.kernel[idx]
        fn = {"dmesg": "dmesg.txt", "dmesg_T": "dmesg-T.txt", "journalctl": "journalctl-k.txt", "kernlog": "kern.log"}[k.style]
        job.add(name(n, fn), k.render())


def nvsmi_q(job, node, bad_local=None, bad=None):
    r = job.r
    L = ["==============NVSMI LOG==============", "",
         "Timestamp                                 : %s" % job.lt(job.t0 + timedelta(hours=2)).strftime("%a %b %d %H:%M:%S %Y"),
         "Driver Version                            : 570.172.08", "CUDA Version                              : 12.8", "",
         "Attached GPUs                             : %d" % job.gpn]
    for lg in range(job.gpn):
        pci = pci_gb200(lg) if job.gpu_kind == "GB200" else pci_for(lg)
        L += ["GPU %s" % pci.replace("0000:", "00000000:"),
              "    Product Name                          : NVIDIA %s" % {"H100": "H100 80GB HBM3", "H200": "H200", "GB200": "GB200"}[job.gpu_kind],
              "    Serial Number                         : 16520230%05d" % r.randint(0, 99999),
              "    GPU UUID                              : GPU-%08x-%04x-%04x-%04x-%012x" % (r.getrandbits(32), r.getrandbits(16), r.getrandbits(16), r.getrandbits(16), r.getrandbits(48)),
              "    Minor Number                          : %d" % lg]
        if job.gpu_kind == "GB200":
            st = "In Progress" if (bad == "fabric" and lg == bad_local) else "Completed"
            L += ["    Fabric", "        State                             : %s" % st,
                  "        Status                            : %s" % ("Failure" if st != "Completed" else "Success"),
                  "        CliqueId                          : 32766", "        ClusterUUID                       : 6d1e8a2c-0c6b-4f1b-9a1e-2f8c0a77d3b1",
                  "        Health", "            Bandwidth                     : %s" % ("Degraded" if bad == "nvlink" and lg == bad_local else "Full")]
        dbe = 1 if (bad == "ecc" and lg == bad_local) else 0
        L += ["    ECC Errors", "        Volatile", "            SRAM Correctable              : 0", "            SRAM Uncorrectable Parity     : 0",
              "            DRAM Correctable              : %d" % r.choice([0, 0, 0, 2, 14]), "            DRAM Uncorrectable            : %d" % dbe,
              "    Remapped Rows", "        Correctable Error                 : 0", "        Uncorrectable Error               : %d" % dbe,
              "        Pending                           : %s" % ("Yes" if dbe else "No"), "        Remapping Failure Occurred        : No",
              "    Clocks Event Reasons",
              "        HW Slowdown                       : %s" % ("Active" if bad == "slow" and lg == bad_local else "Not Active"),
              "        HW Thermal Slowdown               : %s" % ("Active" if bad == "slow" and lg == bad_local else "Not Active"),
              "        SW Power Cap                      : %s" % r.choice(["Active", "Not Active"])]
        if bad == "lost" and lg == bad_local:
            L = L[:-(len(L) - L.index("GPU %s" % pci.replace("0000:", "00000000:")))] + ["GPU %s" % pci.replace("0000:", "00000000:"), "    Unable to determine the device handle for gpu %s: Unknown Error" % pci.replace("0000:", "00000000:")]
    return "\n".join(L) + "\n"


def finish_truth(job, layout):
    c = None if job.healthy else job.cause
    node = None if (job.healthy or job.fnode is None) else job.fnode.spell
    rank = None if (job.healthy or job.job_wide) else job.frank
    return {"cause": c, "healthy": job.healthy, "rank": rank, "node": node,
            "drain": bool((not job.healthy) and c in DRAIN_CAUSES and job.fnode is not None),
            "rank_inferable": bool(rank is not None and job.rank_inferable),
            "node_aliases": [] if node is None else job.fnode.aliases(),
            "layout": layout, "notes": "; ".join(job.notes)}


def set_spelling(job, how):
    for n in job.nodes:
        n.spell = {"short": n.short, "fqdn": n.fqdn, "ip": n.ip}.get(how, n.short)


# --------------------------------------------------------------------------
# layout: torchtitan on Slurm + pyxis/enroot, torchrun per node
# --------------------------------------------------------------------------
def titan_progress(job):
    r = job.r
    mem = r.uniform(40, 70)
    tps = r.randint(1800, 9000)
    mfu = r.uniform(28, 52)
    loss0 = r.uniform(10.5, 12.2)

    def f(rk, s, t, slow):
        lo = max(1.6, loss0 * (0.985 ** s) + r.uniform(-0.05, 0.05))
        k = 0.6 if slow else 1.0
        tp = int(tps * k * r.uniform(0.97, 1.03))
        return "[rank%d]:[titan] %s - root - INFO - step: %2d  loss: %7.4f  grad_norm: %7.4f  memory: %5.2fGiB(%.2f%%)  tps: %s  tflops: %.2f  mfu: %.2f%%" % (
            rk, f_py(job.lt(t)), s, lo, r.uniform(0.2, 1.4), mem, mem / (job.gpumem if hasattr(job, "gpumem") else 79.11) * 100, "{:,}".format(tp),
            mfu * 9.89 * k, mfu * k)
    return f


def layout_titan_slurm(job):
    r = job.r
    set_spelling(job, r.choice(["short", "short", "fqdn"]))
    script = "/workspace/torchtitan/torchtitan/train.py"
    res = torch_story(job, titan_progress(job))
    lines = res["lines"]
    label = r.random() < 0.7
    out = []  # (t, text) with srun labels = node index (torchrun per node)
    t_sub = job.t0
    hdr = ["pyxis: importing docker image: nvcr.io#nvidia/pytorch:25.%02d-py3" % r.randint(1, 11),
           "pyxis: imported docker image: nvcr.io#nvidia/pytorch:25.%02d-py3" % r.randint(1, 11)]
    for i, x in enumerate(hdr):
        out.append((t_sub + timedelta(seconds=5 + i * 30), x))
    for rk in lines:
        node = job.node_of(rk)
        pre = ("%d: " % node.idx) if label else ""
        if rk == 0:
            for i, x in enumerate(["[rank0]:[titan] %s - root - INFO - Starting job: Llama 3 %s training" % (f_py(job.lt(res["t_start"] - timedelta(seconds=30))), r.choice(["8B", "70B", "405B"])),
                                   "[rank0]:[titan] %s - root - INFO - Building %dD device mesh with ['dp_shard', 'tp'], [%d, %d]" % (f_py(job.lt(res["t_start"] - timedelta(seconds=29))), 2, job.world // 8 if job.world >= 8 else 1, 8 if job.world >= 8 else job.world),
                                   "[rank0]:[titan] %s - root - INFO - Applied FSDP to the model" % f_py(job.lt(res["t_start"] - timedelta(seconds=20))),
                                   "[rank0]:[titan] %s - root - INFO - Training starts at step 1" % f_py(job.lt(res["t_start"] - timedelta(seconds=2)))]):
                out.append((res["t_start"] - timedelta(seconds=30 - i), pre + x))
        if rk in (0, job.frank) or r.random() < 0.1:
            for t, x in nccl_init_lines(job, rk, res["t_start"] - timedelta(seconds=25)):
                out.append((t, pre + x))
        for t, x in lines[rk]:
            out.append((t, pre + x))
    # warning storm
    if r.random() < 0.5:
        for t, x in warn_storm(job, 0, res["t_start"], res["step_t"][-1], r.randint(50, 400)):
            out.append((t, ("0: " if label else "") + x))
        job.notes.append("decoy: UserWarning storm")
    # launcher logs per node (same stream)
    shown_nodes = sorted(set(job.node_of(rk).idx for rk in lines))
    for ni in shown_nodes:
        node = job.nodes[ni]
        pre = ("%d: " % ni) if label else ""
        for x in torchrun_node_log(job, node, res, script):
            out.append((res.get("t_end", res["t_fault"]) - timedelta(seconds=1) if not x.startswith(("W", "E", "I")) or not x[1:5].isdigit() else
                        _glog_time(job, x, res), pre + x))
    # slurm trailer
    te = res["t_end"]
    sl = []
    if job.healthy:
        for rk in (0,):
            for t, x in benign_nccl_teardown(job, rk, te - timedelta(seconds=2)):
                out.append((t, ("0: " if label else "") + x))
        job.notes.append("healthy: training completed; benign NCCL teardown warnings")
    else:
        if job.cause == "preemption":
            tpre = res["t_fault"]
            sl.append((tpre, "slurmstepd: error: *** JOB %s ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (job.jobid, job.nodes[0].spell, job.lt(tpre).strftime("%Y-%m-%dT%H:%M:%S"))))
            sl.append((tpre + timedelta(seconds=1), "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
            sl.append((tpre + timedelta(seconds=1), "slurmstepd: error: *** STEP %s.0 ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (job.jobid, job.nodes[0].spell, job.lt(tpre).strftime("%Y-%m-%dT%H:%M:%S"))))
            job.notes.append("Slurm preemption of whole job; torchrun SIGTERM cascade")
        else:
            if job.fnode is not None and res.get("proc_death"):
                sl.append((res["t_end"] - timedelta(seconds=20), "srun: error: %s: task %d: Exited with exit code 1" % (job.fnode.spell, job.fnode.idx)))
                if job.cause == "host_oom_kill":
                    sl.append((res["t_end"] - timedelta(seconds=19), "slurmstepd: error: Detected 1 oom_kill event in StepId=%s.0. Some of the step tasks have been OOM Killed." % job.jobid))
            sl.append((res["t_end"] - timedelta(seconds=18), "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
            sl.append((res["t_end"] - timedelta(seconds=17), "slurmstepd: error: *** STEP %s.0 ON %s CANCELLED AT %s ***" % (job.jobid, job.nodes[0].spell, job.lt(res["t_end"] - timedelta(seconds=17)).strftime("%Y-%m-%dT%H:%M:%S"))))
            others = [n for n in job.nodes if n is not job.fnode]
            if others:
                rng = "%d-%d" % (others[0].idx, others[-1].idx) if len(others) > 1 else str(others[0].idx)
                sl.append((res["t_end"], "srun: error: %s: tasks %s: Terminated" % (others[0].spell, rng) if len(others) > 1 else "srun: error: %s: task %s: Terminated" % (others[0].spell, rng)))
            sl.append((res["t_end"] + timedelta(seconds=1), "srun: Terminating StepId=%s.0" % job.jobid))
    out += sl
    job.add("slurm-%s.out" % job.jobid, emit_sorted(out))
    # sacct
    state = "COMPLETED" if job.healthy else ("PREEMPTED" if job.cause == "preemption" else "FAILED")
    nl = "%s[%03d-%03d]" % (job.nodes[0].short[:-3], int(job.nodes[0].short[-3:]), int(job.nodes[-1].short[-3:])) if job.nodes[0].short[-3:].isdigit() and len(job.nodes) > 1 else ",".join(n.short for n in job.nodes[:4])
    acct = ["JobID           JobName  Partition    Account  AllocCPUS      State ExitCode              NodeList ",
            "------------ ---------- ---------- ---------- ---------- ---------- -------- --------------------- ",
            "%-12s %10s %10s %10s %10d %10s %8s %21s " % (job.jobid, "titan-" + r.choice(["8b", "70b", "405b"]), "batch", "llm-pt", len(job.nodes) * 224, state, "0:0" if job.healthy else ("0:15" if state == "PREEMPTED" else "1:0"), nl[:21]),
            "%-12s %10s %10s %10s %10d %10s %8s %21s " % (job.jobid + ".batch", "batch", "", "llm-pt", 224, "COMPLETED" if job.healthy else ("CANCELLED" if state == "PREEMPTED" else "FAILED"), "0:0" if job.healthy else "1:0", job.nodes[0].short),
            "%-12s %10s %10s %10s %10d %10s %8s %21s " % (job.jobid + ".0", "torchrun", "", "llm-pt", len(job.nodes) * 224, "COMPLETED" if job.healthy else ("CANCELLED" if state == "PREEMPTED" else "FAILED"), "0:0" if job.healthy else "1:0", nl[:21])]
    job.add("sacct.txt", "\n".join(acct) + "\n")
    write_kernel_files(job, "", lambda n, fn: "nodes/%s/%s" % (n.spell, fn))
    if not job.healthy and job.cause in ("hang", "collective_mismatch") and not res.get("mismatch_explicit") and r.random() < 0.8:
        for rk in lines:
            if job.world > 64 and rk not in (0, job.frank) and r.random() < 0.7:
                continue
            beh = "ok"
            if rk == job.frank:
                beh = "stuck" if job.cause == "hang" else "mismatch"
            job.add("fr_dumps/nccl_trace_rank_%d.txt" % rk, "\n".join(fr_dump_text(job, rk, res, beh)) + "\n")
        job.notes.append("Flight Recorder text dumps written")
    if job.fnode is not None and job.cause in ("gpu_hardware", "ecc_memory", "straggler") and r.random() < 0.6:
        job.add("nodes/%s/nvidia-smi-q.txt" % job.fnode.spell, nvsmi_q(job, job.fnode, job.frank % job.gpn,
                                                                       {"gpu_hardware": "lost", "ecc_memory": "ecc", "straggler": "slow"}[job.cause]))
    job.rank_inferable = job.cause not in ("host_oom_kill",) or True
    if job.cause in ("gpu_hardware", "nvlink") and not res.get("proc_death") and job.fnode is not None and not job.healthy:
        # GPU wedged: no python error on that rank, only kernel Xid + others' timeouts
        job.rank_inferable = False
        job.notes.append("faulty GPU wedged: culprit rank printed nothing; rank only via PCI bus id -> local rank mapping")
    if job.cause in ("hang", "collective_mismatch"):
        job.rank_inferable = any(p.startswith("fr_dumps/") for p in job.files) or bool(res.get("mismatch_explicit"))
    if job.cause == "straggler":
        job.rank_inferable = any("nvidia-smi" in p for p in job.files)
    return res


def _glog_time(job, x, res):
    # reconstruct a sortable time for a glog line from torchrun (month-day h:m:s)
    try:
        md = x[1:5]
        hms = x[6:21]
        lt = job.lt(res["t_start"])
        t = datetime(lt.year, int(md[:2]), int(md[2:]), int(hms[0:2]), int(hms[3:5]), int(hms[6:8]), int(hms[9:15]), tzinfo=job.tz)
        return t.astimezone(timezone.utc)
    except Exception:
        return res.get("t_end", res["t_fault"])


# --------------------------------------------------------------------------
# layout: Megatron-Core + NVIDIA Resiliency Extension (ft_launcher), per-node logs
# --------------------------------------------------------------------------
def megatron_progress(job):
    r = job.r
    tflops = r.uniform(380, 620)
    gbs = r.choice([512, 1024, 2048, 4096])
    loss0 = r.uniform(8, 11)
    total = r.choice([100000, 250000, 500000])

    def f(rk, s, t, slow):
        it = job.it0 + s
        k = 0.62 if slow else 1.0
        return " [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | throughput per GPU (TFLOP/s/GPU): %.1f | learning rate: %.6E | global batch size: %5d | lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f | number of skipped iterations:   0 | number of nan iterations:   0 |" % (
            job.lt(t).strftime("%Y-%m-%d %H:%M:%S.") + "%06d" % t.microsecond, it, total, it * gbs, job.step_s * 1000 / k * r.uniform(0.98, 1.02),
            tflops * k * r.uniform(0.98, 1.02), 3e-4 * min(1, it / 2000), gbs, max(1.7, loss0 * 0.9995 ** it), r.uniform(0.15, 0.9))
    return f


def layout_megatron_nvrx(job):
    r = job.r
    set_spelling(job, r.choice(["short", "fqdn"]))
    job.it0 = r.randint(0, 40000)
    res = torch_story(job, megatron_progress(job))
    lines = res["lines"]
    last = job.world - 1
    per_node = {}
    for rk in lines:
        per_node.setdefault(job.node_of(rk).idx, []).extend(
            (t, "[default%d]:%s" % (rk % job.gpn, x)) for t, x in lines[rk])
    # Megatron prints iteration lines from the last rank: copy rank-0 progress to last rank's node
    prog = [(t, x) for t, x in lines.get(0, []) if "iteration" in x]
    last_node = job.node_of(last).idx
    per_node.setdefault(last_node, []).extend((t, "[default%d]:%s" % (last % job.gpn, x)) for t, x in prog)
    per_node[0] = [(t, x) for t, x in per_node.get(0, []) if "iteration" not in x] if last_node != 0 else per_node.get(0, [])
    # Megatron built-in straggler detector lines (rank 0) + NVRx report
    if job.cause == "straggler" and not job.healthy:
        sr = job.frank
        t = res["step_t"][int(len(res["step_t"]) * 0.6)]
        hot = [
            (t, "[default0]: [%s] | MnRtt/Rnk: %.2fms/%d | MxRtt/Rnk: %.2fms/%d | MnPwr/Rnk: %dW/%d | MxPwr/Rnk: %dW/%d | MnTmp/Rnk: %dC/%d | MxTmp/Rnk: %dC/%d | MnUtl/Rnk: %d%%/%d | MxUtl/Rnk: 100%%/%d | MnClk/Rnk: %dMHz/%d | MxClk/Rnk: 1980MHz/%d | MnDRtt/Rnk: 4.4ms/%d | MxDRtt/Rnk: 9.9ms/%d | MnEtpt/Rnk: %.2fTF/%d | MxEtpt/Rnk: 1.12TF/%d" % (
                job.lt(t).strftime("%Y-%m-%d %H:%M:%S"), job.step_s * 950, r.randrange(job.world), job.step_s * 1600, sr, 402, sr, 699, r.randrange(job.world),
                51, r.randrange(job.world), 87, sr, 91, sr, r.randrange(job.world), 1110, sr, r.randrange(job.world), r.randrange(job.world), sr, 0.66, sr, r.randrange(job.world)))]
        nm = job.fnode.spell
        rep = ["GPU relative performance:", " Worst performing 5/%d ranks:" % job.world,
               "  Rank=%d Node=%s Score=%.2f" % (sr, nm, r.uniform(0.41, 0.62))]
        for sc in sorted(r.uniform(0.95, 0.97) for _ in range(4)):
            x = r.randrange(job.world)
            rep.append("  Rank=%d Node=%s Score=%.2f" % (x, job.node_of(x).spell, sc))
        rep += [" Best performing 5/%d ranks:" % job.world]
        for sc in sorted((r.uniform(0.98, 1.0) for _ in range(5)), reverse=True):
            x = r.randrange(job.world)
            rep.append("  Rank=%d Node=%s Score=%.2f" % (x, job.node_of(x).spell, sc))
        rep += ["", "GPU individual performance:", " Worst performing 5/%d ranks:" % job.world,
                "  Rank=%d Node=%s Score=%.2f" % (sr, nm, r.uniform(0.5, 0.66))]
        for sc in sorted(r.uniform(0.96, 0.98) for _ in range(4)):
            x = r.randrange(job.world)
            rep.append("  Rank=%d Node=%s Score=%.2f" % (x, job.node_of(x).spell, sc))
        rep += ["", " Straggler report processing time: %.3f sec." % r.uniform(0.01, 0.2), "",
                "Detected stragglers: relative perf threshold=0.7 -> ranks [%d]. Stopping training (stop_if_detected_straggler=True)." % sr]
        t2 = res["t_fault"]
        hot += [(t2 + timedelta(milliseconds=i), "[default0]:" + x) for i, x in enumerate(rep)]
        per_node.setdefault(0, []).extend(hot)
        job.notes.append("NVRx straggler report names rank %d; training stopped early (exit 0 but not finished)" % sr)
        job.rank_inferable = True
    # ft_launcher lines per node
    for ni in range(len(job.nodes)):
        if ni not in per_node and len(job.nodes) > 16 and r.random() < 0.8:
            continue
        node = job.nodes[ni]
        L = per_node.setdefault(ni, [])
        tl = res["t_start"] - timedelta(seconds=40)
        lp = r.randint(300, 9000)
        if not hasattr(job, "agent_pid"):
            job.agent_pid = {}
        job.agent_pid[ni] = lp

        def FL(lvl, t, src, msg):
            return "%s%s %d %s] %s" % (lvl, f_glog(job.lt(t)), lp, src, msg)
        L.append((tl, FL("I", tl, "nvidia_resiliency_ext/fault_tolerance/launcher.py:1402", "[default] starting workers for entrypoint: python")))
        L.append((tl, FL("I", tl, "nvidia_resiliency_ext/fault_tolerance/launcher.py:1410", "FT: RankMonitorServer started for %d local ranks, heartbeat timeouts: initial=1800.0s subsequent=%.1fs" % (job.gpn, job.timeout_ms / 1000 * 0.5))))
        if job.healthy:
            te = res["t_end"]
            L.append((te, FL("I", te, "nvidia_resiliency_ext/fault_tolerance/launcher.py:1188", "[default] worker group successfully finished. Waiting 300 seconds for other agents to finish.")))
            continue
        if job.cause == "straggler":
            te = res["t_end"]
            L.append((te, FL("I", te, "nvidia_resiliency_ext/fault_tolerance/launcher.py:1188", "[default] worker group successfully finished. Waiting 300 seconds for other agents to finish.")))
            continue
        td = res.get("t_detect", res["t_fault"])
        if job.cause in ("hang", "collective_mismatch", "data_loader_stall") or (job.cause in ("gpu_hardware", "nvlink") and not res.get("proc_death")):
            th = res["t_fault"] + timedelta(seconds=job.timeout_ms / 1000 * 0.5 + r.uniform(0, 2))
            for lr in range(job.gpn):
                rk = ni * job.gpn + lr
                if rk == job.frank and job.cause == "data_loader_stall":
                    continue
                L.append((th, FL("W", th, "nvidia_resiliency_ext/fault_tolerance/rank_monitor_server.py:357", "FT: rank %d (pid %d) did not send heartbeat for %.2fs (subsequent timeout %.1fs). Terminating workers." % (rk, job.pid(rk), job.timeout_ms / 1000 * 0.5 + 0.01, job.timeout_ms / 1000 * 0.5))))
            td = th
        if job.cause == "preemption":
            td = res["t_fault"]
            L.append((td, FL("W", td, "torch/distributed/elastic/agent/server/api.py:719", "Received Signals.SIGTERM death signal, shutting down workers")))
            continue
        att = r.choice([1, 2, 3])
        if att - 1 > 0:
            L.append((td + timedelta(seconds=2), FL("I", td + timedelta(seconds=2), "torch/distributed/elastic/agent/server/api.py:873", "[default] Worker group FAILED. %d/%d attempts left; will restart worker group" % (att - 1, att))))
        else:
            L.append((td + timedelta(seconds=2), FL("E", td + timedelta(seconds=2), "torch/distributed/elastic/agent/server/api.py:873", "[default] Worker group FAILED. 0/%d attempts left; will not restart worker group" % att)))
        if att - 1 > 0:
            t2 = td + timedelta(seconds=r.uniform(60, 200))
            L.append((t2, FL("I", t2, "nvidia_resiliency_ext/fault_tolerance/launcher.py:1402", "[default] Rendezvous complete for workers. Result: restart_count=1 master_addr=%s master_port=29500 group_world_size=%d" % (job.nodes[0].spell, len(job.nodes)))))
            if job.fnode is node and job.cause in ("gpu_hardware", "ecc_memory", "nvlink", "network") and res.get("proc_death"):
                rk = job.frank
                t3 = t2 + timedelta(seconds=r.uniform(20, 60))
                msg = {"gpu_hardware": "RuntimeError: CUDA error: unknown error", "ecc_memory": "RuntimeError: CUDA error: uncorrectable ECC error encountered",
                       "nvlink": "torch.distributed.DistBackendError: NCCL error in: /opt/pytorch/pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:77, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.26.5",
                       "network": "torch.distributed.DistBackendError: NCCL error in: /opt/pytorch/pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:77, remote process exited or there was a network error, NCCL version 2.26.5"}[job.cause]
                L.append((t3, "[default%d]:[rank%d]: %s" % (rk % job.gpn, rk, msg)))
                job.notes.append("NVRx in-job restart; fault repeats on same rank during re-init")
            L.append((t2 + timedelta(seconds=90), FL("E", t2 + timedelta(seconds=90), "torch/distributed/elastic/agent/server/api.py:873", "[default] Worker group FAILED. 0/%d attempts left; will not restart worker group" % att)))
        # failure summary
        for x in torchrun_node_log(job, node, res, "/opt/megatron-lm/pretrain_gpt.py")[4:]:
            L.append((res["t_end"] + timedelta(seconds=200), x))
    for ni, L in per_node.items():
        node = job.nodes[ni]
        job.add("logs/%s/ft_launcher.log" % node.spell, emit_sorted(L))
    # srun output (per-node tasks)
    sl = ["+ srun --container-image=/lustre/images/megatron-%s.sqsh --container-mounts=/lustre:/lustre --ntasks-per-node=1 ft_launcher --nproc-per-node=%d --max-restarts=2 --ft-param-rank_heartbeat_timeout=%d pretrain_gpt.py ..." % (r.choice(["25.09", "25.11"]), job.gpn, job.timeout_ms // 2000)]
    if not job.healthy:
        if job.cause == "preemption":
            sl.append("slurmstepd: error: *** JOB %s ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (job.jobid, job.nodes[0].spell, job.lt(res["t_fault"]).strftime("%Y-%m-%dT%H:%M:%S")))
        elif job.cause != "straggler":
            if job.fnode is not None:
                sl.append("srun: error: %s: task %d: Exited with exit code 1" % (job.fnode.spell, job.fnode.idx))
            sl.append("srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
            sl.append("slurmstepd: error: *** STEP %s.0 ON %s CANCELLED AT %s ***" % (job.jobid, job.nodes[0].spell, job.lt(res["t_end"] + timedelta(seconds=230)).strftime("%Y-%m-%dT%H:%M:%S")))
    job.add("slurm-%s.out" % job.jobid, "\n".join(sl) + "\n")
    write_kernel_files(job, "", lambda n, fn: "logs/%s/%s" % (n.spell, fn))
    if not job.healthy and job.cause in ("hang", "collective_mismatch"):
        if r.random() < 0.7:
            for rk in lines:
                if rk in (0, job.frank) or r.random() < 0.3:
                    job.add("fr_traces/nccl_trace_rank_%d.txt" % rk, "\n".join(fr_dump_text(job, rk, res, "ok" if rk != job.frank else ("stuck" if job.cause == "hang" else "mismatch"))) + "\n")
            job.notes.append("NVRx FR trace collection at abort")
            job.rank_inferable = True
        else:
            job.rank_inferable = False
        if r.random() < 0.5:
            job.add("ncclras_status.txt", "\n".join(nccl_ras_text(job, job.frank if job.cause == "hang" else None, job.frank if job.cause == "collective_mismatch" else None)) + "\n")
            job.rank_inferable = True
    elif job.cause not in ("straggler",):
        job.rank_inferable = not (job.cause in ("gpu_hardware", "nvlink") and not res.get("proc_death"))
    return res


# --------------------------------------------------------------------------
# layout: Kubernetes JobSet + Kueue, kubectl logs per pod, describe, events
# --------------------------------------------------------------------------
def layout_k8s_jobset(job):
    r = job.r
    js = r.choice(["llama4-pt", "mixtral-sft", "dsv3-pretrain", "gpt-oss-ft"]) + "-" + stable_uid(r, 4)
    eks = r.random() < 0.3
    rj = r.choice(["workers", "trainer", "node"])
    pool = r.choice(["a3ultra", "a4high", "h200-pool", "gpu-np-1"])
    for n in job.nodes:
        n.pod = "%s-%s-0-%d-%s" % (js, rj, n.idx, stable_uid(r, 5))
        knode = "gke-%s-%s-%s-%s" % (js.split("-")[0], pool, stable_uid(r, 8), stable_uid(r, 4))
        if eks:
            knode = "ip-%s.ec2.internal" % n.ip.replace(".", "-")
        n.short = knode
        n.fqdn = knode + ".c.proj-ml.internal" if knode.startswith("gke") else knode
        n.spell = knode
    res = torch_story(job, titan_progress(job))
    lines = res["lines"]
    for n in job.nodes:
        rks = [rk for rk in lines if job.node_of(rk) is n]
        if not rks and len(job.nodes) > 12 and r.random() < 0.85:
            continue
        L = []
        for rk in rks:
            L.extend(lines[rk])
        # pod log is stdout of torchrun in the container
        tl = torchrun_node_log(job, n, res, "/app/train.py")
        if not job.healthy and job.cause in ("host_oom_kill",) and job.fnode is n:
            tl = tl[:4]  # container killed as a whole -> log just stops
        for x in tl:
            L.append((_glog_time(job, x, res) if x[:1] in "WEI" and x[1:5].isdigit() else res["t_end"], x))
        if job.cause == "preemption" and not job.healthy:
            L = [p for p in L if p[0] <= res["t_fault"] + timedelta(seconds=30)]
        job.add("pods/%s.log" % n.pod, emit_sorted(L))
    # describe of the failing pod / all pods
    def describe(n, reason, exit_code, term_t, msg=""):
        st = job.t0 + timedelta(seconds=20)
        D = ["Name:             %s" % n.pod, "Namespace:        %s" % r.choice(["ml-training", "team-llm", "default"]),
             "Priority:         %d" % r.choice([0, 1000, 100000]), "Priority Class Name:  %s" % r.choice(["low-priority", "training-batch", "spot-preemptible"]),
             "Service Account:  default", "Node:             %s/%s" % (n.spell, n.ip),
             "Start Time:       %s" % job.lt(st).strftime("%a, %d %b %Y %H:%M:%S %z"),
             "Labels:           batch.kubernetes.io/job-completion-index=%d" % n.idx,
             "                  jobset.sigs.k8s.io/jobset-name=%s" % js, "                  jobset.sigs.k8s.io/replicatedjob-name=%s" % rj,
             "                  kueue.x-k8s.io/queue-name=%s" % r.choice(["lq-train", "user-queue"]),
             "Status:           %s" % ("Succeeded" if reason == "Completed" else "Failed"), "IP:               %s" % n.ip,
             "Containers:", "  pytorch:", "    Image:          us-docker.pkg.dev/proj-ml/train/pytorch:2.9.0-cu129",
             "    Command:", "      torchrun", "    Args:", "      --nnodes=%d" % len(job.nodes), "      --nproc-per-node=%d" % job.gpn, "      /app/train.py",
             "    State:          Terminated", "      Reason:       %s" % reason]
        if msg:
            D.append("      Message:      %s" % msg)
        D += ["      Exit Code:    %d" % exit_code, "      Started:      %s" % job.lt(st + timedelta(seconds=40)).strftime("%a, %d %b %Y %H:%M:%S %z"),
              "      Finished:     %s" % job.lt(term_t).strftime("%a, %d %b %Y %H:%M:%S %z"), "    Ready:          False", "    Restart Count:  0",
              "    Limits:", "      memory:          %dGi" % r.choice([1600, 1800, 1900]), "      nvidia.com/gpu:  %d" % job.gpn,
              "Conditions:", "  Type                        Status", "  DisruptionTarget            %s" % ("True" if reason == "Preempted" else "False"), "  Ready                       False",
              "Events:", "  Type     Reason     Age   From               Message", "  ----     ------     ----  ----               -------",
              "  Normal   Scheduled  %dm   default-scheduler  Successfully assigned %s to %s" % (r.randint(30, 300), n.pod, n.spell)]
        return "\n".join(D) + "\n"
    ev = ["LAST SEEN   TYPE      REASON                 OBJECT                               MESSAGE"]
    if job.healthy:
        job.add("describe/%s.txt" % job.nodes[0].pod, describe(job.nodes[0], "Completed", 0, res["t_end"]))
        ev.append("%-11s %-9s %-22s %-36s %s" % ("3m", "Normal", "AllJobsCompleted", "jobset/" + js, "jobset completed successfully"))
        if r.random() < 0.6:
            ev.insert(1, "%-11s %-9s %-22s %-36s %s" % ("52m", "Warning", "FailedScheduling", "pod/" + job.nodes[-1].pod, "0/%d nodes are available: %d Insufficient nvidia.com/gpu. preemption: 0/%d nodes are available: no preemption victims found for incoming pod." % (len(job.nodes) + 4, len(job.nodes) + 4, len(job.nodes) + 4)))
            job.notes.append("decoy: early FailedScheduling event, later scheduled fine")
    elif job.cause == "preemption":
        for n in job.nodes[: min(4, len(job.nodes))]:
            job.add("describe/%s.txt" % n.pod, describe(n, "Error", 143, res["t_fault"] + timedelta(seconds=30), ""))
        ev.append("%-11s %-9s %-22s %-36s %s" % ("6m", "Normal", "Preempted", "workload/jobset-%s-%s" % (js, stable_uid(r, 5)), "Preempted to accommodate a workload (UID: %s-%s) due to prioritization in the ClusterQueue" % (stable_uid(r, 8), stable_uid(r, 4))))
        ev.append("%-11s %-9s %-22s %-36s %s" % ("6m", "Normal", "Stopped", "jobset/" + js, "Workload evicted: Preempted"))
        ev.append("%-11s %-9s %-22s %-36s %s" % ("6m", "Normal", "Killing", "pod/" + job.nodes[0].pod, "Stopping container pytorch"))
        job.notes.append("Kueue preemption: workload evicted, all pods SIGTERM (exit 143)")
    else:
        fn = job.fnode
        if fn is None:  # job-wide failure: every pod errored
            for n in job.nodes[: min(3, len(job.nodes))]:
                job.add("describe/%s.txt" % n.pod, describe(n, "Error", 1, res["t_end"] + timedelta(seconds=r.uniform(0, 3))))
            ev.append("%-11s %-9s %-22s %-36s %s" % ("4m", "Warning", "BackoffLimitExceeded", "job/%s-%s-0" % (js, rj), "Job has reached the specified backoff limit"))
            ev.append("%-11s %-9s %-22s %-36s %s" % ("4m", "Normal", "FailedJobs", "jobset/" + js, "jobset failed due to one or more job failures"))
        elif job.cause == "host_oom_kill":
            job.add("describe/%s.txt" % fn.pod, describe(fn, "OOMKilled", 137, res["t_fault"]))
            ev.append("%-11s %-9s %-22s %-36s %s" % ("9m", "Warning", "OOMKilling", "node/" + fn.spell, "Memory cgroup out of memory: Killed process %d (python3) total-vm:..." % job.pid(job.frank)))
            job.notes.append("container OOMKilled (exit 137); pod log just stops")
        elif job.cause == "crash_signal":
            job.add("describe/%s.txt" % fn.pod, describe(fn, "Error", 1, res["t_end"]))
        else:
            job.add("describe/%s.txt" % fn.pod, describe(fn, "Error", 1, res["t_end"]))
        other = job.nodes[(fn.idx + 1) % len(job.nodes)] if fn is not None else job.nodes[0]
        if fn is not None and other is not fn:
            job.add("describe/%s.txt" % other.pod, describe(other, "Error", 1, res["t_end"] + timedelta(seconds=3)))
        if fn is not None:
            ev.append("%-11s %-9s %-22s %-36s %s" % ("4m", "Warning", "BackoffLimitExceeded", "job/%s-%s-0" % (js, rj), "Job has reached the specified backoff limit"))
            ev.append("%-11s %-9s %-22s %-36s %s" % ("4m", "Normal", "FailedJobs", "jobset/" + js, "jobset failed due to one or more job failures"))
        if fn is not None and job.cause in DRAIN_CAUSES and r.random() < 0.6:
            ev.append("%-11s %-9s %-22s %-36s %s" % ("2m", "Warning", "GPUUnhealthy" if job.cause != "network" else "NetworkUnavailable", "node/" + fn.spell, "NodeProblemDetector: %s" % {"gpu_hardware": "XID 79 detected on GPU %d" % (job.frank % job.gpn), "ecc_memory": "XID 48/95 detected, DBE on GPU %d" % (job.frank % job.gpn), "nvlink": "XID 74 NVLink error on GPU %d" % (job.frank % job.gpn), "network": "RDMA NIC mlx5_%d port down" % (job.frank % job.gpn)}[job.cause]))
    if r.random() < 0.5:
        x = job.nodes[r.randrange(len(job.nodes))]
        ev.insert(1, "%-11s %-9s %-22s %-36s %s" % ("70m", "Warning", "Unhealthy", "pod/" + x.pod, "Readiness probe failed: Get \"http://%s:8080/healthz\": dial tcp %s:8080: connect: connection refused" % (x.ip, x.ip)))
        job.notes.append("decoy: early readiness probe failure")
    job.add("kubectl-get-events.txt", "\n".join(ev) + "\n")
    write_kernel_files(job, "", lambda n, fn: "nodes/%s/%s" % (n.spell, fn), extra_nodes=2)
    job.rank_inferable = not (job.cause in ("gpu_hardware", "nvlink") and not res.get("proc_death")) and job.cause not in ("hang", "host_oom_kill")
    if job.cause == "hang" and r.random() < 0.6:
        job.add("ncclras.txt", "\n".join(nccl_ras_text(job, job.frank)) + "\n")
        job.rank_inferable = True
    return res


# --------------------------------------------------------------------------
# layout: TorchFT replica groups + lighthouse
# --------------------------------------------------------------------------
def layout_torchft(job):
    r = job.r
    set_spelling(job, r.choice(["short", "ip"]))
    npg = r.choice([1, 1, 2])  # nodes per replica group
    if len(job.nodes) < 4 or len(job.nodes) % 2:
        npg = 1
    ngroups = len(job.nodes) // npg
    gw = npg * job.gpn
    prefix = r.choice(["train_ft", "llama3_ft", "hsdp_ft"])
    res = torch_story(job, titan_progress(job))
    lines = res["lines"]
    tf = res["t_fault"]
    lh_host = job.nodes[0].spell
    lh = []

    def LH(t, lvl, msg):
        lh.append((t, "%s %-5s torchft::lighthouse] %s" % (t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (t.microsecond // 1000), lvl, msg)))
    t0 = res["t_start"] - timedelta(seconds=60)
    LH(t0, "INFO", "Lighthouse listening on: http://%s:29510 min_replicas=%d join_timeout_ms=60000 quorum_tick_ms=100 heartbeat_timeout_ms=5000" % (lh_host, max(1, ngroups // 2)))
    rids = ["%s_%d:%08x-%04x" % (prefix, g, r.getrandbits(32), r.getrandbits(16)) for g in range(ngroups)]
    late = r.randrange(ngroups)
    LH(t0 + timedelta(seconds=20), "INFO", "Next quorum status: No quorum, only have %d participants, need min_replicas %d" % (ngroups - 1, ngroups) if r.random() < 0.5 else "Next quorum status: Waiting for replicas: [%s]" % rids[late])
    LH(t0 + timedelta(seconds=45), "INFO", "Next quorum status: Valid quorum with %d participants." % ngroups)
    LH(t0 + timedelta(seconds=45), "INFO", "Detected quorum change, bumping quorum_id to 1")
    LH(t0 + timedelta(seconds=45), "INFO", "Quorum! Quorum { quorum_id: 1, participants: [%s] }" % ", ".join("QuorumMember { replica_id: \"%s\", address: \"http://%s:%d\", step: 0, world_size: %d }" % (rids[g], job.nodes[g * npg].spell, 29512, gw) for g in range(min(ngroups, 8))))
    fg = None if job.frank is None else job.frank // gw
    if job.healthy or job.cause == "preemption":
        pass
    else:
        t_drop = tf + timedelta(seconds=5 + r.uniform(0, 2))
        LH(t_drop, "WARN", "replica %s heartbeat expired (last heartbeat %.1fs ago), removing from participants" % (rids[fg], 5.0 + r.uniform(0.01, 0.5)))
        LH(t_drop + timedelta(milliseconds=120), "INFO", "Next quorum status: Valid quorum with %d participants." % (ngroups - 1))
        LH(t_drop + timedelta(milliseconds=121), "INFO", "Detected quorum change, bumping quorum_id to 2")
    per_group = {g: [] for g in range(ngroups)}
    mlog = lambda t, g, step, msg: (t, "%s INFO torchft.manager: [%s/0 - step %d] %s" % (f_py(job.lt(t)), rids[g].split(":")[0], step, msg))
    for g in range(ngroups):
        per_group[g].append(mlog(t0 + timedelta(seconds=46), g, 0, "reconfiguring for quorum_id=1 store_prefixed_addr=%s:29600/torchft/1/0" % job.nodes[0].spell))
        if g == late:
            per_group[g].append(mlog(t0 + timedelta(seconds=47), g, 0, "healing required, fetching checkpoint metadata from recover_src_manager_address=http://%s:29512 max_step=0" % job.nodes[((g + 1) % ngroups) * npg].spell))
        for s, ts in enumerate(res["step_t"], 1):
            if s % res["log_every"] == 0:
                per_group[g].append((ts, "[titan] %s - root - INFO - step: %2d  loss: %7.4f  memory: %5.2fGiB(%.2f%%)  tps: %s  mfu: %.2f%%  replicas: %d" % (
                    f_py(job.lt(ts)), s, 9.5 * 0.99 ** s + 2, 55.2, 69.8, "{:,}".format(r.randint(2500, 4000)), r.uniform(35, 42), ngroups)))
    if not job.healthy and job.cause != "preemption":
        # failing group: fault lines, its own torchrun fails; others reconfigure and continue
        for rk in lines:
            if rk // gw == fg:
                per_group[fg].extend(lines[rk])
        for x in torchrun_node_log(job, job.fnode, res, "/workspace/torchft/train_ft.py"):
            per_group[fg].append((_glog_time(job, x, res) if x[:1] in "WEI" and x[1:5].isdigit() else res["t_end"], x))
        s_f = res["steps"]
        extra = r.randint(30, 120)
        for g in range(ngroups):
            if g == fg:
                continue
            per_group[g].append((tf + timedelta(seconds=r.uniform(1, 4)), "%s WARNING torchft.manager: [%s/0 - step %d] got exception in all reduce -- skipping remaining: NCCL communicator was aborted on rank %d." % (f_py(job.lt(tf)), rids[g].split(":")[0], s_f, r.randrange(gw))))
            per_group[g].append((tf + timedelta(seconds=5), "%s INFO torchft.manager: [%s/0 - step %d] should_commit=False enough_replicas=True, errored=%s" % (f_py(job.lt(tf + timedelta(seconds=5))), rids[g].split(":")[0], s_f, "RuntimeError('ProcessGroupBabyNCCL: future timed out')")))
            per_group[g].append(mlog(tf + timedelta(seconds=6), g, s_f, "reconfiguring for quorum_id=2 store_prefixed_addr=%s:29600/torchft/2/0" % job.nodes[0].spell))
            for k in range(1, extra + 1):
                ts = tf + timedelta(seconds=6 + k * job.step_s)
                if (s_f + k) % res["log_every"] == 0:
                    per_group[g].append((ts, "[titan] %s - root - INFO - step: %2d  loss: %7.4f  memory: %5.2fGiB(%.2f%%)  tps: %s  mfu: %.2f%%  replicas: %d" % (
                        f_py(job.lt(ts)), s_f + k, 9.5 * 0.99 ** (s_f + k) + 2, 55.2, 69.8, "{:,}".format(r.randint(2500, 4000)), r.uniform(35, 42), ngroups - 1)))
        job.notes.append("TorchFT: replica group %d dropped (fault on global rank %d = group-local rank %d); other groups reconfigure (quorum 2) and continue degraded; remaining groups show 'should_commit=False' + aborted-communicator warnings as collateral" % (fg, job.frank, job.frank % gw))
        LH(tf + timedelta(seconds=6 + extra * job.step_s), "INFO", "Next quorum status: Valid quorum with %d participants." % (ngroups - 1))
    elif job.cause == "preemption" and not job.healthy:
        tp = tf
        for g in range(ngroups):
            per_group[g].append((tp, "slurmstepd: error: *** JOB %s ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (str(int(job.jobid) + g), job.nodes[g * npg].spell, job.lt(tp).strftime("%Y-%m-%dT%H:%M:%S"))))
            per_group[g].append((tp + timedelta(seconds=1), "W%s 412 torch/distributed/elastic/agent/server/api.py:719] Received Signals.SIGTERM death signal, shutting down workers" % f_glog(job.lt(tp))))
        LH(tp + timedelta(seconds=6), "WARN", "all replicas heartbeat expired, no quorum possible (0 participants)")
        job.notes.append("all replica groups preempted at once (whole allocation preempted); lighthouse left with no participants")
    else:
        if r.random() < 0.6:
            g = r.randrange(ngroups)
            tj = res["step_t"][len(res["step_t"]) // 2]
            LH(tj, "WARN", "replica %s heartbeat expired (last heartbeat 5.3s ago), removing from participants" % rids[g])
            LH(tj + timedelta(seconds=2), "INFO", "Next quorum status: Valid quorum with %d participants." % ngroups)
            per_group[g].append(mlog(tj + timedelta(seconds=2), g, len(res["step_t"]) // 2, "healing required, fetching checkpoint metadata from recover_src_manager_address=http://%s:29512 max_step=%d" % (job.nodes[((g + 1) % ngroups) * npg].spell, len(res["step_t"]) // 2)))
            per_group[g].append(mlog(tj + timedelta(seconds=9), g, len(res["step_t"]) // 2, "healed: recovered state from replica %s" % rids[(g + 1) % ngroups]))
            job.notes.append("healthy: replica group %d missed heartbeats (GC pause), was removed then rejoined and healed" % g)
        for g in range(ngroups):
            per_group[g].append((res["t_end"], "[titan] %s - root - INFO - Training completed" % f_py(job.lt(res["t_end"]))))
    for g in range(ngroups):
        job.add("replica_groups/%s_%d/stdout.log" % (prefix, g), emit_sorted(per_group[g]))
    job.add("lighthouse/lighthouse.log", emit_sorted(lh))
    write_kernel_files(job, "", lambda n, fn: "replica_groups/%s_%d/%s.%s" % (prefix, n.idx // npg, n.spell, fn), extra_nodes=1)
    job.rank_inferable = not (job.cause in ("gpu_hardware", "nvlink") and not res.get("proc_death")) and job.cause not in ("hang", "straggler")
    if fg is not None:
        job.notes.append("truth rank is global = replica_group*%d + group-local rank" % gw)
    return res


# --------------------------------------------------------------------------
# layout: JAX / MaxText on GPU (one process per GPU), Slurm
# --------------------------------------------------------------------------
def jax_fault_lines(job, cause, task, t, r):
    A = lambda lvl, tt, src, msg: "%s%s %7d %s] %s" % (lvl, f_glog(job.lt(tt)), r.randint(100000, 3000000), src, msg)
    L = []
    if cause == "cuda_oom":
        b = r.choice([12884901888, 4294967296, 23622320128])
        L.append(A("W", t, "external/xla/xla/tsl/framework/bfc_allocator.cc:512", "Allocator (GPU_%d_bfc) ran out of memory trying to allocate %.2fGiB (rounded to %d)requested by op " % (task % job.gpn, b / 2**30, b)))
        L += ["jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate %d bytes." % b]
    elif cause == "illegal_memory_access":
        L.append(A("E", t, "external/xla/xla/stream_executor/cuda/cuda_executor.cc:1123", "INTERNAL: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered"))
        L.append("jax.errors.JaxRuntimeError: INTERNAL: Failed to execute XLA Runtime executable: run time error: custom call 'xla.gpu.custom_call' failed: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered.")
    elif cause == "ecc_memory":
        L.append(A("E", t, "external/xla/xla/stream_executor/cuda/cuda_stream.cc:112", "INTERNAL: CUDA_ERROR_ECC_UNCORRECTABLE: uncorrectable ECC error encountered"))
        L.append("jax.errors.JaxRuntimeError: INTERNAL: CUDA_ERROR_ECC_UNCORRECTABLE: uncorrectable ECC error encountered")
    elif cause == "gpu_hardware":
        L.append(A("E", t, "external/xla/xla/stream_executor/cuda/cuda_stream.cc:112", "INTERNAL: CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure"))
        L.append("jax.errors.JaxRuntimeError: INTERNAL: CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure")
    elif cause == "nvlink":
        L.append(A("E", t, "external/xla/xla/service/gpu/runtime/nccl_clique.cc:157", "INTERNAL: NCCL operation ncclGroupEnd() failed: unhandled cuda error (run with NCCL_DEBUG=INFO for details). Last NCCL warning(error) log entry (may be unrelated) 'Cuda failure 'uncorrectable NVLink error was detected during the execution''."))
        L.append("jax.errors.JaxRuntimeError: INTERNAL: NCCL operation ncclGroupEnd() failed: unhandled cuda error")
    elif cause == "network":
        L.append(A("E", t, "external/xla/xla/service/gpu/runtime/nccl_clique.cc:157", "INTERNAL: NCCL operation ncclGroupEnd() failed: remote process exited or there was a network error. Last NCCL warning(error) log entry (may be unrelated) 'NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Recv)'." % (job.nodes[(job.node_of(task).idx + 1) % len(job.nodes)].ip, r.randint(30000, 60000))))
        L.append("jax.errors.JaxRuntimeError: INTERNAL: NCCL operation ncclGroupEnd() failed: remote process exited or there was a network error")
    elif cause == "python_exception":
        L += tb([("/deps/MaxText/train.py", 512, "train_loop", "example_batch = load_next_batch(data_iterator, example_batch, config)"),
                 ("/deps/MaxText/input_pipeline/_grain_data_processing.py", 233, "__next__", "return self._tokenize(rec)"),
                 ("/deps/MaxText/input_pipeline/_input_pipeline_utils.py", 88, "_tokenize", "ids = self.tokenizer.encode(features[\"text\"])")],
                "KeyError: 'text'")
    elif cause == "crash_signal":
        L += ["Fatal Python error: Segmentation fault", "",
              "Thread 0x00007f%08x (most recent call first):" % r.getrandbits(32),
              '  File "/usr/local/lib/python3.12/site-packages/grain/_src/python/grain_pool.py", line 201 in _worker_loop', "",
              "Extension modules: jaxlib.cpu_feature_guard, numpy.core._multiarray_umath, grain._src.python.experimental (total: 23)"]
    return L


def layout_maxtext_jax(job):
    r = job.r
    set_spelling(job, r.choice(["short", "short", "fqdn"]))
    world = job.world
    steps = r.randint(50, 300)
    t_start = job.t0 + timedelta(seconds=r.randint(60, 300))
    step_t = [t_start + timedelta(seconds=job.step_s * i * r.uniform(0.99, 1.01)) for i in range(1, steps + 1)]
    tf = step_t[-1] + timedelta(seconds=job.step_s * 0.5)
    hb = r.choice([100, 100, 300])
    per_task = {}
    show = sample_ranks(job, 16 if world > 32 else 32)
    coord = job.nodes[0]
    for tk in show:
        L = []
        A = lambda lvl, tt, src, msg: "%s%s %7d %s] %s" % (lvl, f_glog(job.lt(tt)), 1234567 + tk, src, msg)
        L.append((job.t0 + timedelta(seconds=30), A("I", job.t0 + timedelta(seconds=30), "external/xla/xla/pjrt/distributed/client.cc:136", "Connecting to distributed JAX service at %s:%d" % (coord.ip if r.random() < 0.5 else coord.spell, 1234))))
        L.append((job.t0 + timedelta(seconds=32), A("I", job.t0 + timedelta(seconds=32), "external/xla/xla/pjrt/distributed/client.cc:157", "Connected to distributed JAX controller")))
        L.append((job.t0 + timedelta(seconds=33), "System Information: Jax Version: 0.7.%d" % r.randint(0, 2)))
        L.append((job.t0 + timedelta(seconds=33), "Num_devices: %d, shape (1, %d, 1, %d, 1, 1, 1, 1, 1, 1, 1)" % (world, max(1, world // job.gpn), job.gpn)))
        if tk == 0 or world <= 16:
            for s, ts in enumerate(step_t):
                if s % 10 == 0:
                    L.append((ts, "completed step: %d, seconds: %.3f, TFLOP/s/device: %.3f, Tokens/s/device: %.3f, total_weights: %d, loss: %.3f" % (
                        s, job.step_s * r.uniform(0.98, 1.02), r.uniform(380, 520), r.uniform(3000, 9000), r.choice([524288, 1048576]), max(1.9, 10.8 * 0.995 ** s))))
        per_task[tk] = L
    if job.healthy:
        for tk in per_task:
            per_task[tk].append((step_t[-1] + timedelta(seconds=5), "Training complete. Waiting for checkpoint manager to finish."))
            if r.random() < 0.3:
                per_task[tk].append((step_t[-1] + timedelta(seconds=8), "W%s 1 external/xla/xla/pjrt/distributed/client.cc:300] Shutdown barrier took %.1fs (slow task: /job:jax_worker/replica:0/task:%d)" % (f_glog(job.lt(step_t[-1] + timedelta(seconds=8))), r.uniform(10, 50), r.randrange(world))))
        job.notes.append("healthy: MaxText completed; possible slow shutdown barrier warning")
        t_end = step_t[-1] + timedelta(seconds=12)
    else:
        c = job.cause
        if c == "preemption":
            for tk in per_task:
                per_task[tk].append((tf, "W%s %7d external/xla/xla/pjrt/distributed/preemption/preemption_sync_manager.cc:172] Preemption notice received: SIGTERM. Saving checkpoint at sync point step %d" % (f_glog(job.lt(tf)), 1234567 + tk, steps + 1)))
            t_end = tf + timedelta(seconds=40)
            job.notes.append("JAX preemption sync manager got SIGTERM; Slurm preempted the job")
        else:
            fk = job.frank
            death = c not in ("hang",)
            if fk in per_task:
                for i, x in enumerate(jax_fault_lines(job, c, fk, tf, r)):
                    per_task[fk].append((tf + timedelta(microseconds=i * 10), x))
            if c in DRAIN_CAUSES or c in ("host_oom_kill", "crash_signal", "illegal_memory_access", "data_loader_stall", "straggler"):
                kernel_fault(c, job.kl(job.fnode), tf, r, fk % job.gpn, job.gpu_kind, 30000 + fk, {"jobid": job.jobid})
            if c == "hang":
                tb_ = tf + timedelta(seconds=r.choice([300, 600, 1800]))
                for tk in per_task:
                    if tk == fk:
                        continue
                    per_task[tk].append((tb_, "E%s %7d external/xla/xla/pjrt/distributed/client.cc:%d] DEADLINE_EXCEEDED: Barrier timed out. Id: checkpoint_save_step_%d::%d. This usually happens because a task triggered the barrier too early or too slowly. Please look at the task logs (both timed out and first task) to debug further.\n# of tasks that reached the barrier: %d/%d.\nThe first task at the barrier: /job:jax_worker/replica:0/task:%d. Some timed out task names:\n/job:jax_worker/replica:0/task:%d" % (
                        f_glog(job.lt(tb_)), 1234567 + tk, 437, steps, r.randint(0, 9), world - 1, world, 0 if fk != 0 else 1, fk)))
                job.notes.append("checkpoint barrier timeout names the stuck task")
                t_end = tb_ + timedelta(seconds=20)
            else:
                t_hb0 = tf + timedelta(seconds=hb + r.uniform(0, 10))
                peers = [tk for tk in per_task if tk != fk and job.node_of(tk) is not job.fnode]
                for tk in r.sample(peers, min(len(peers), r.randint(1, 3))):
                    tp = tf + timedelta(seconds=r.uniform(1.5, 12))
                    per_task[tk].append((tp, "E%s %7d external/xla/xla/service/gpu/runtime/nccl_clique.cc:157] INTERNAL: NCCL operation ncclGroupEnd() failed: remote process exited or there was a network error. Last NCCL warning(error) log entry (may be unrelated) 'socketProgress: Connection closed by remote peer %s<%d>'." % (f_glog(job.lt(tp)), 1234567 + tk, job.fnode.ip, r.randint(30000, 60000))))
                    per_task[tk].append((tp, "jax.errors.JaxRuntimeError: INTERNAL: NCCL operation ncclGroupEnd() failed: remote process exited or there was a network error"))
                if peers:
                    job.notes.append("collateral: %s peer task(s) report NCCL 'remote process exited or there was a network error' after the culprit died" % "some")
                for tk in per_task:
                    if tk == fk:
                        continue
                    t_hb = t_hb0 + timedelta(milliseconds=r.randint(0, 1500))
                    if job.node_of(tk) is job.fnode and c in ("host_oom_kill",):
                        continue
                    per_task[tk].append((t_hb - timedelta(seconds=1), "E%s %7d external/xla/xla/tsl/distributed_runtime/coordination/coordination_service_agent.cc:%d] Polled an error from coordination service (this can be an error from this or another task)." % (f_glog(job.lt(t_hb)), 1234567 + tk, 332)))
                    per_task[tk].append((t_hb, "F%s %7d external/xla/xla/pjrt/distributed/client.h:80] Terminating process because the JAX distributed service detected fatal errors. This most likely indicates that another task died; see the other task logs for more details. Disable Python buffering, i.e. `python -u`, to be sure to see all the previous output. absl::Status: UNAVAILABLE: The following tasks are unhealthy (stopped sending heartbeats):\n/job:jax_worker/replica:0/task:%d\nThe tasks have crashed. Check the task logs for an earlier error to debug further. [type.googleapis.com/tensorflow.CoordinationServiceError='']" % (f_glog(job.lt(t_hb)), 1234567 + tk, fk)))
                    per_task[tk].append((t_hb, "*** Check failure stack trace: ***"))
                t_end = t_hb + timedelta(seconds=5)
    # write
    label = r.random() < 0.5
    if world <= 32 and r.random() < 0.6:
        for tk, L in per_task.items():
            job.add("logs/process_%d.log" % tk, emit_sorted(L))
    else:
        allp = []
        for tk, L in per_task.items():
            for t, x in L:
                for y in x.split("\n"):
                    allp.append((t, ("%d: " % tk if label else "") + y))
        job.add("slurm-%s.out" % job.jobid, emit_sorted(allp))
    tail = []
    if not job.healthy:
        if job.cause == "preemption":
            tail.append("slurmstepd: error: *** JOB %s ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (job.jobid, job.nodes[0].spell, job.lt(tf).strftime("%Y-%m-%dT%H:%M:%S")))
        else:
            if job.cause == "host_oom_kill":
                tail.append("slurmstepd: error: Detected 1 oom_kill event in StepId=%s.0. Some of the step tasks have been OOM Killed." % job.jobid)
                tail.append("srun: error: %s: task %d: Out Of Memory" % (job.fnode.spell, job.frank))
            elif job.cause == "crash_signal":
                tail.append("srun: error: %s: task %d: Segmentation fault (core dumped)" % (job.fnode.spell, job.frank))
            elif job.frank is not None and job.cause != "hang":
                tail.append("srun: error: %s: task %d: Exited with exit code 1" % (job.fnode.spell, job.frank))
            o = r.randrange(world)
            tail.append("srun: error: %s: task %d: Aborted (core dumped)" % (job.node_of(o).spell, o))
            tail.append("srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
        job.add("srun-stderr.txt", "\n".join(tail) + "\n")
    write_kernel_files(job, "", lambda n, fn: "kernel/%s-%s" % (n.spell, fn))
    job.rank_inferable = job.cause not in ("data_loader_stall", "straggler")
    return {"t_end": locals().get("t_end")}


# --------------------------------------------------------------------------
# layout: GB200 NVL72 rack (Slurm + torchrun + IMEX + fabric state)
# --------------------------------------------------------------------------
def layout_gb200_nvl72(job):
    r = job.r
    res = layout_titan_slurm(job)
    # IMEX daemon logs per node (subset)
    nodes = sorted(set([0, len(job.nodes) - 1] + ([job.fnode.idx] if job.fnode else []) + r.sample(range(len(job.nodes)), min(3, len(job.nodes)))))
    for ni in nodes:
        n = job.nodes[ni]
        L = []
        t = job.t0 - timedelta(hours=r.randint(2, 30))
        fmt = lambda tt, lvl, msg: "[%s] [%s] [tid %d] %s" % (job.lt(tt).strftime("%b %d %Y %H:%M:%S.") + "%03d" % (tt.microsecond // 1000), lvl, 4100 + ni, msg)
        L.append(fmt(t, "INFO", "IMEX version 570.172.08 is running with the following configuration options"))
        L.append(fmt(t, "INFO", "Logging level = 4"))
        L.append(fmt(t + timedelta(seconds=1), "INFO", "Creating gRPC channels to all peers (nPeers = %d)." % len(job.nodes)))
        L.append(fmt(t + timedelta(seconds=3), "INFO", "IMEX_WAIT_FOR_QUORUM != FULL, continuing initialization without waiting for connections to all nodes."))
        L.append(fmt(t + timedelta(seconds=4), "INFO", "Connection established to node %d with ip address %s. Number of times connected: 1" % ((ni + 1) % len(job.nodes), job.nodes[(ni + 1) % len(job.nodes)].ip)))
        L.append(fmt(t + timedelta(seconds=5), "INFO", "All nodes connected. IMEX domain is ready."))
        if r.random() < 0.4:
            tf_ = job.t0 + timedelta(minutes=r.randint(2, 20))
            L.append(fmt(tf_, "WARN", "Connection to node %d (%s) lost, attempting reconnect" % ((ni + 2) % len(job.nodes), job.nodes[(ni + 2) % len(job.nodes)].ip)))
            L.append(fmt(tf_ + timedelta(seconds=2), "INFO", "Connection established to node %d with ip address %s. Number of times connected: 2" % ((ni + 2) % len(job.nodes), job.nodes[(ni + 2) % len(job.nodes)].ip)))
            if ni == nodes[0]:
                job.notes.append("decoy: IMEX reconnect that recovered in 2s")
        if not job.healthy and job.cause == "nvlink":
            tfa = res["t_fault"]
            if job.job_wide:
                L.append(fmt(tfa + timedelta(seconds=1), "ERROR", "GPU event received: fabric state changed to degraded on all local GPUs (NVSwitch tray failure reported by NMX-C)"))
                L.append(fmt(tfa + timedelta(seconds=2), "ERROR", "IMEX domain is in a degraded state; memory imports from remote nodes will fail"))
            elif job.fnode is n:
                L.append(fmt(tfa + timedelta(milliseconds=300), "ERROR", "GPU %d: NVLink fatal error reported by driver, link(s) in error; marking GPU unavailable for import" % (job.frank % job.gpn)))
        job.add("nodes/%s/nvidia-imex.log" % n.spell, "\n".join(L) + "\n")
    if job.fnode is not None and job.cause == "nvlink":
        job.add("nodes/%s/nvidia-smi-q.txt" % job.fnode.spell, nvsmi_q(job, job.fnode, job.frank % job.gpn, "nvlink"))
    if job.job_wide and job.cause == "nvlink":
        job.notes.append("fabric-wide NVLink/NVSwitch event (Xid 145 + Xid 154 Recover IMEX Domain on every node); not one node -> rank/node null, no drain")
    if job.healthy and r.random() < 0.6:
        n = job.nodes[r.randrange(len(job.nodes))]
        job.kl(n).add(job.t0 + timedelta(minutes=r.randint(3, 30)), "NVRM: Xid (PCI:%s): 145, pid='<unknown>', name=<unknown>, RLW_REMAP Nonfatal XC0 i0 Link %02d (0x0000000%d 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000)" % (pci_gb200(r.randrange(4))[:10], r.randint(0, 17), r.randint(1, 8)))
        k = job.kernel[n.idx]
        fn = {"dmesg": "dmesg.txt", "dmesg_T": "dmesg-T.txt", "journalctl": "journalctl-k.txt", "kernlog": "kern.log"}[k.style]
        job.files["nodes/%s/%s" % (n.spell, fn)] = k.render()
        job.notes.append("decoy: nonfatal Xid 145 (RLW_REMAP) during healthy run on %s" % n.spell)
    return res


# --------------------------------------------------------------------------
# layout: NeMo 2 / NeMo-Run experiment folder (Slurm executor)
# --------------------------------------------------------------------------
def nemo_progress(job):
    r = job.r
    gbs = r.choice([256, 512, 1024])
    loss0 = r.uniform(9, 11.5)

    def f(rk, s, t, slow):
        return "Training epoch 0, iteration %d/%d | lr: %.4g | global_batch_size: %d | global_step: %d | reduced_train_loss: %.4f | train_step_timing in s: %.3f | consumed_samples: %d" % (
            s - 1, 99999, 3e-4 * min(1, s / 500), gbs, s - 1, max(1.8, loss0 * 0.993 ** s), job.step_s * (1.6 if slow else 1.0) * r.uniform(0.98, 1.02), s * gbs)
    return f


def layout_nemo_run(job):
    r = job.r
    set_spelling(job, r.choice(["short", "short", "fqdn"]))
    title = r.choice(["llama31_70b_pretrain", "nemotron_h_8b", "mixtral_8x7b_sft", "qwen3_30b_a3b"])
    ts = job.lt(job.t0).strftime("%Y%m%d_%H%M%S")
    base = "nemo_run/experiments/%s/%s_%s/%s" % (title, title, ts, title)
    res = torch_story(job, nemo_progress(job))
    lines = res["lines"]
    out = []
    pre = lambda rk: "%d: " % rk
    out.append((job.t0 + timedelta(seconds=40), "0: [NeMo I %s nemo_logging:393] Experiments will be logged at /nemo_run/checkpoints/%s" % (job.lt(job.t0 + timedelta(seconds=40)).strftime("%Y-%m-%d %H:%M:%S"), title)))
    out.append((job.t0 + timedelta(seconds=41), "0: GPU available: True (cuda), used: True"))
    out.append((job.t0 + timedelta(seconds=42), "0: [NeMo W %s nemo_logging:405] /opt/NeMo/nemo/lightning/pytorch/callbacks/nsys.py:61: UserWarning: nsys callback is disabled" % job.lt(job.t0 + timedelta(seconds=42)).strftime("%Y-%m-%d %H:%M:%S")))
    for rk in lines:
        for t, x in lines[rk]:
            out.append((t, pre(rk) + x))
    if job.cause == "straggler" and not job.healthy:
        sr = job.frank
        rep = ["GPU relative performance:", " Worst performing 5/%d ranks:" % job.world, "  Rank=%d Node=%s Score=%.2f" % (sr, job.fnode.spell, r.uniform(0.4, 0.65))]
        for sc in sorted(r.uniform(0.95, 0.98) for _ in range(4)):
            x = r.randrange(job.world)
            rep.append("  Rank=%d Node=%s Score=%.2f" % (x, job.node_of(x).spell, sc))
        rep += [" Best performing 5/%d ranks:" % job.world] + ["  Rank=%d Node=%s Score=1.00" % (x, job.node_of(x).spell) for x in r.sample(range(job.world), min(5, job.world))]
        rep += ["", " Straggler report processing time: %.3f sec." % r.uniform(0.01, 0.1)]
        tt = res["t_fault"]
        out += [(tt + timedelta(milliseconds=i), "0: " + x) for i, x in enumerate(rep)]
        out.append((tt + timedelta(seconds=1), "0: [NeMo W %s straggler_det_callback:212] Detected stragglers. Stopping training." % job.lt(tt).strftime("%Y-%m-%d %H:%M:%S")))
        job.rank_inferable = True
        job.notes.append("NeMo straggler callback report names rank %d; training stopped early" % sr)
    if job.healthy:
        out.append((res["t_end"], "0: `Trainer.fit` stopped: `max_steps=%d` reached." % res["steps"]))
        job.notes.append("healthy NeMo-Run job reached max_steps")
    te = res["t_end"]
    if not job.healthy:
        if job.cause == "preemption":
            out.append((res["t_fault"], "0: Received signal 15, initiating graceful stop"))
            out.append((res["t_fault"] + timedelta(seconds=1), "0: Preemption detected, saving checkpoint and exiting"))
            out.append((res["t_fault"] + timedelta(seconds=50), "slurmstepd: error: *** JOB %s ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (job.jobid, job.nodes[0].spell, job.lt(res["t_fault"]).strftime("%Y-%m-%dT%H:%M:%S"))))
        elif job.cause != "straggler":
            ex = sorted(res["exit"].items())
            first = job.frank if job.frank is not None else 0
            if res.get("proc_death") and job.frank is not None:
                out.append((te, "srun: error: %s: task %d: %s" % (job.fnode.spell, first, {"host_oom_kill": "Out Of Memory", "crash_signal": "Segmentation fault (core dumped)"}.get(job.cause, "Exited with exit code 1"))))
            out.append((te + timedelta(seconds=1), "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
            out.append((te + timedelta(seconds=2), "slurmstepd: error: *** STEP %s.0 ON %s CANCELLED AT %s ***" % (job.jobid, job.nodes[0].spell, job.lt(te).strftime("%Y-%m-%dT%H:%M:%S"))))
            for rk, ec in ex[:12]:
                if rk != job.frank and ec == -6:
                    out.append((te + timedelta(seconds=3), "srun: error: %s: task %d: Aborted (core dumped)" % (job.node_of(rk).spell, rk)))
    job.add("%s/log-%s-%s.%s_0.out" % (base, r.choice(["coreai_dlalgo_llm", "llmservice_nemo"]), r.choice(["batch", "batch_block1"]), job.jobid), emit_sorted(out))
    job.add("%s/sbatch_%s.%s.out" % (base, title, job.jobid), "")
    job.add("%s/%s_sbatch.sh" % (base, title), "#!/bin/bash\n#SBATCH --nodes=%d\n#SBATCH --ntasks-per-node=%d\n#SBATCH --gpus-per-node=%d\n#SBATCH --time=04:00:00\n#SBATCH --job-name=%s\n\nsrun --container-image nvcr.io/nvidia/nemo:25.%02d --container-mounts /lustre:/lustre --mpi=pmix -l python -m nemo_run.core.runners.fdl_runner -n %s -p /nemo_run/configs/%s_fn_or_script\n" % (len(job.nodes), job.gpn, job.gpn, title, r.choice([7, 9, 11]), title, title))
    job.add("nemo_run/experiments/%s/%s_%s/_TASKS" % (title, title, ts), json.dumps([title]) + "\n")
    job.add("nemo_run/experiments/%s/%s_%s/_DONE" % (title, title, ts), "")
    job.add("nemo_run/experiments/%s/%s_%s/status.txt" % (title, title, ts), "%s: %s\n" % (title, "SUCCEEDED" if job.healthy or job.cause == "straggler" else "FAILED"))
    write_kernel_files(job, "", lambda n, fn: "node_logs/%s/%s" % (n.spell, fn))
    if job.cause != "straggler":
        job.rank_inferable = not (job.cause in ("gpu_hardware", "nvlink") and not res.get("proc_death")) and job.cause not in ("hang",)
    if job.cause in ("hang", "collective_mismatch") and not job.healthy and r.random() < 0.7:
        job.add("nccl_ras_%s.txt" % job.jobid, "\n".join(nccl_ras_text(job, job.frank if job.cause == "hang" else None, job.frank if job.cause == "collective_mismatch" else None)) + "\n")
        job.rank_inferable = True
    elif job.cause == "collective_mismatch":
        job.rank_inferable = bool(res.get("mismatch_explicit"))
    return res


# --------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------
ALL = set(CAUSES)
LAYOUTS = {
    # name: (fn, causes, node counts, gpus per node, node styles, gpu kinds, job-wide allowed)
    "titan_slurm": (layout_titan_slurm, ALL - {"straggler"}, [1, 2, 4, 8, 16, 32, 64], [8], ["nid", "dgx", "short"], ["H100", "H200"], True),
    "megatron_nvrx": (layout_megatron_nvrx, ALL, [2, 4, 8, 16, 32, 64, 128], [8], ["nid", "short", "dgx"], ["H100", "H200"], True),
    "k8s_jobset": (layout_k8s_jobset, ALL - {"straggler", "collective_mismatch", "data_loader_stall"}, [1, 2, 4, 8, 16, 32], [8], ["short"], ["H100", "H200"], True),
    "torchft_replicas": (layout_torchft, ALL - {"straggler", "hang", "collective_mismatch", "data_loader_stall"}, [2, 3, 4, 6, 8], [8, 4], ["short", "aws"], ["H100", "H200"], False),
    "maxtext_jax": (layout_maxtext_jax, ALL - {"straggler", "collective_mismatch", "data_loader_stall", "unknown"}, [1, 2, 4, 8, 16, 64], [8, 2], ["nid", "aws", "short"], ["H100", "H200"], False),
    "gb200_nvl72": (layout_gb200_nvl72, {"nvlink", "gpu_hardware", "ecc_memory", "network", "hang", "cuda_oom", "collective_mismatch", "python_exception", "unknown", "crash_signal", "illegal_memory_access"}, [2, 4, 9, 18, 36], [4], ["gb200"], ["GB200"], True),
    "nemo_run": (layout_nemo_run, ALL, [1, 2, 4, 8, 16, 32], [8], ["nid", "dgx", "short"], ["H100", "H200"], True),
}


def plan(n, seed):
    r = random.Random(seed * 7919 + 17)
    nh = max(1, round(n / 7))
    items = [None] * nh
    pool = CAUSES[:]
    while len(items) < n:
        r.shuffle(pool)
        items.extend(pool)
    items = items[:n]
    r.shuffle(items)
    lay_count = {k: 0 for k in LAYOUTS}
    out = []
    for c in items:
        cands = [k for k, v in LAYOUTS.items() if c is None or c in v[1]]
        m = min(lay_count[k] for k in cands)
        k = r.choice([x for x in cands if lay_count[x] == m])
        lay_count[k] += 1
        out.append((k, c))
    return out


def gen_one(idx, layout, cause, seed):
    r = random.Random((seed * 1000003 + idx) * 31 + 7)
    fn, causes, ncs, gpns, styles, kinds, jw = LAYOUTS[layout]
    nn = r.choice(ncs)
    gpn = r.choice(gpns)
    if nn * gpn < 2:
        gpn = 2
    healthy = cause is None
    job = Job(r, layout, cause or "none", healthy, nn, gpn, r.choice(styles), r.choice(kinds))
    if not healthy:
        if layout == "gb200_nvl72" and cause == "nvlink" and r.random() < 0.3:
            job.job_wide = True
        elif jw or cause == "preemption":
            pick_fault(job, cause)
            if job.job_wide and not jw and cause != "preemption":
                job.job_wide = False
        else:
            pick_fault(job, cause)
        if not jw and job.job_wide and cause != "preemption":
            job.job_wide = False
        if not job.job_wide and job.frank is None:
            job.frank = r.randint(1, job.world - 1) if job.world > 1 else 0
            job.fnode = job.node_of(job.frank)
        if job.job_wide:
            job.frank, job.fnode = None, None
            job.notes.append("job-wide cause (%s): every rank/node affected" % cause)
    res = fn(job) or {}
    if cause == "data_loader_stall" and not job.job_wide:
        job.rank_inferable = bool(res.get("dl_msg"))
        if not res.get("dl_msg"):
            job.notes.append("stalled rank printed no DataLoader timeout before the peers' watchdog fired; only the NFS kernel messages point at its node")
    if not healthy and not job.job_wide:
        job.notes.insert(0, "injected %s at global rank %d on %s (local rank %d)" % (cause, job.frank, job.fnode.spell, job.frank % job.gpn))
    truth = finish_truth(job, layout)
    truth["notes"] = ("world=%d (%d nodes x %d), gpu=%s, tz=%s; " % (job.world, len(job.nodes), job.gpn, job.gpu_kind, job.tzname)) + truth["notes"]
    return job, truth


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for i, (layout, cause) in enumerate(plan(a.n, a.seed)):
        job, truth = gen_one(i, layout, cause, a.seed)
        d = os.path.join(a.out, "run-%03d-%s" % (i, layout))
        if os.path.isdir(d):
            shutil.rmtree(d)
        os.makedirs(d)
        total = 0
        for path in sorted(job.files):
            txt = job.files[path]
            if total + len(txt) > 950_000:
                txt = txt[: max(0, 950_000 - total)]
            total += len(txt)
            fp = os.path.join(d, path)
            os.makedirs(os.path.dirname(fp), exist_ok=True)
            with open(fp, "w", encoding="utf-8", newline="\n") as f:
                f.write(txt)
        with open(os.path.join(d, "truth.json"), "w") as f:
            json.dump(truth, f, indent=2, sort_keys=False)
            f.write("\n")


if __name__ == "__main__":
    main()
