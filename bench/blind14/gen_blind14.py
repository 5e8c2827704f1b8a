#!/usr/bin/env python3
"""gen_blind14.py - synthetic distributed-GPU-training failure logs with truth labels.

Layouts: MosaicML Composer / LLM Foundry, TensorRT-LLM under mpirun, accelerate/Axolotl
multi-node consoles with torchrun --tee 3 prefixes, TRL GRPO trainer + separate vLLM server,
Colossal-AI `colossalai run` merged console.

Usage: python3 gen_blind14.py --out DIR --n 60 --seed S
Standard library only; output is a pure function of (--seed, --n).
"""
import argparse
import datetime as _dt
import json
import os
import random

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill", "crash_signal",
          "preemption", "hang", "data_loader_stall", "collective_mismatch", "straggler",
          "unknown"]
ALL = set(CAUSES)
LAYOUTS = {
    "composer": ALL,
    "trtllm_mpirun": ALL - {"hang", "data_loader_stall", "collective_mismatch", "straggler"},
    "accelerate_tee": ALL,
    "trl_grpo_vllm": ALL,
    "colossalai": ALL,
}
LAYOUT_ORDER = list(LAYOUTS)
DRAIN_CAUSES = {"gpu_hardware", "ecc_memory", "nvlink", "network"}
MAX_BYTES = 950_000
UTC = _dt.timezone.utc
import re as _re
_AGENT_RE = _re.compile(r"^([WEI])(\d{4}) (\d\d:\d\d:\d\d)\.(\d{6}) (\d+) (torch/distributed/[\w/]+\.py):\d+\] ?(.*)$")
PCI_BUSES = ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"]
PCI_BUSES_B = ["19", "3b", "4c", "5d", "9b", "bb", "cb", "db"]
NIC_BUSES = ["0c", "1f", "47", "5e", "8c", "9f", "c6", "de"]


# ----------------------------------------------------------------------------- helpers
class Ctx:
    pass


def tz_of(off_h):
    return _dt.timezone(_dt.timedelta(hours=off_h))


def ts_iso(t, frac=3):
    s = t.strftime("%Y-%m-%d %H:%M:%S")
    if frac == 3:
        s += ",%03d" % (t.microsecond // 1000)
    return s


def glog_ts(t):
    # [E1218 20:27:21.426415540 ...]
    return t.strftime("%m%d %H:%M:%S") + ".%06d%03d" % (t.microsecond, (t.microsecond * 7) % 1000)


def make_hosts(R, nnodes, layout):
    style = R.choice(["slurm", "fqdn", "aws", "dgx", "rack", "gcp"])
    base_ip = (10, R.randint(0, 250), R.randint(0, 250))
    hosts = []
    start = R.randint(1, 180)
    n = start
    for k in range(nnodes):
        n += R.choice([1, 1, 1, 2]) if k else 0
        ip = "%d.%d.%d.%d" % (base_ip[0], base_ip[1], (base_ip[2] + n // 250) % 250, 2 + n % 250)
        if style == "slurm":
            short = "gpu%s-%03d" % (R.choice("abc") if k == 0 else hosts[0]["short"][3], n)
            fqdn = short + ".cluster.local"
        elif style == "fqdn":
            short = "hgx-h100-%03d" % n
            fqdn = short + ".ml.example.org"
        elif style == "aws":
            short = "ip-" + ip.replace(".", "-")
            fqdn = short + ".us-west-2.compute.internal"
        elif style == "dgx":
            short = "dgx%02d" % n
            fqdn = short + ".dgxpod.internal"
        elif style == "rack":
            short = "r%02dn%02d" % (n // 16 + 1, n % 16 + 1)
            fqdn = short + ".hpc.example.edu"
        else:
            short = "gke-train-a3-pool-%s-%s" % ("%04x" % R.randint(0, 0xffff), "".join(R.choice("abcdefghjkmnpqrstvwxz") for _ in range(4)))
            fqdn = short + ".c.proj-ml.internal"
        pod = None
        if layout in ("trl_grpo_vllm",) and R.random() < 0.4:
            pod = "grpo-worker-%d" % k
        hosts.append({"short": short, "fqdn": fqdn, "ip": ip, "pod": pod})
    return hosts


def pick_world(R, layout):
    if layout == "composer":
        world = R.choice([8, 16, 32, 64, 128, 256, 512])
    elif layout == "trtllm_mpirun":
        world = R.choice([2, 4, 8, 8, 16, 16])
    elif layout == "accelerate_tee":
        world = R.choice([4, 8, 16, 16, 24, 32, 64])
    elif layout == "trl_grpo_vllm":
        world = R.choice([2, 4, 8, 8, 16, 24, 32])
    else:
        world = R.choice([4, 8, 16, 32, 64, 128, 512])
    gpn = 8 if world >= 8 else world
    if world in (16, 32) and R.random() < 0.25:
        gpn = 4
    if layout == "trtllm_mpirun" and world == 4 and R.random() < 0.5:
        gpn = 2
    return world, gpn


def kfmt(ctx, node_idx, t, msg):
    """Kernel-log line for a node in that node's chosen format and clock."""
    fmt = ctx.kfmt
    tz = ctx.node_tz[node_idx]
    lt = t.astimezone(tz)
    host = ctx.hosts[node_idx][ctx.khost_form]
    if fmt == "dmesg":
        up = (t - ctx.boot[node_idx]).total_seconds()
        return "[%12.6f] %s" % (up, msg)
    if fmt == "dmesg_T":
        return "[%s] %s" % (lt.strftime("%a %b %d %H:%M:%S %Y"), msg)
    if fmt == "syslog":
        return "%s %2d %s %s kernel: %s" % (lt.strftime("%b"), lt.day, lt.strftime("%H:%M:%S"), host, msg)
    if fmt == "journal":
        return "%s %s kernel: %s" % (lt.strftime("%b %d %H:%M:%S"), host, msg)
    # journal iso precise
    off = lt.strftime("%z")
    return "%s.%06d%s:%s %s kernel: %s" % (lt.strftime("%Y-%m-%dT%H:%M:%S"), lt.microsecond, off[:3], off[3:], host, msg)


def xid_line(bus, xid, body, pid=None, name=None, dom="0000"):
    if pid is None:
        return "NVRM: Xid (PCI:%s:%s:00): %d, %s" % (dom, bus, xid, body)
    if pid == "unknown":
        return "NVRM: Xid (PCI:%s:%s:00): %d, pid='<unknown>', name=<unknown>, %s" % (dom, bus, xid, body)
    return "NVRM: Xid (PCI:%s:%s:00): %d, pid=%d, name=%s, %s" % (dom, bus, xid, pid, name, body)


def gpu_uuid(R):
    h = "%08x-%04x-%04x-%04x-%012x" % (R.getrandbits(32), R.getrandbits(16), R.getrandbits(16), R.getrandbits(16), R.getrandbits(48))
    return "GPU-" + h


# ----------------------------------------------------------------------------- PyTorch / NCCL text
def pg_prefix(ctx, r):
    if ctx.torch_era == "2.5":
        return "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % r
    if ctx.torch_era == "2.4":
        return "[PG 0 (default_pg) Rank %d]" % r
    return "[PG 0 Rank %d]" % r


def c10_prefix(ctx, r, t, level="E", line=None):
    if line is None:
        line = ctx.pgline
    if ctx.torch_era in ("2.4", "2.5"):
        return "[rank%d]:[%s%s ProcessGroupNCCL.cpp:%d] " % (r, level, glog_ts(t.astimezone(ctx.log_tz)), line)
    return "[rank%d]:[%s ProcessGroupNCCL.cpp:%d] " % (r, level, line)


def watchdog_block(ctx, r, t, seq, op="ALLREDUCE", numel=None, completed=None):
    numel = numel or ctx.numel
    ran = 600000 + ctx.Rr.randint(3, 90)
    completed = seq - 1 if completed is None else completed
    p = c10_prefix(ctx, r, t)
    out = [p + "%s Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=600000) ran for %d milliseconds before timing out." % (pg_prefix(ctx, r), seq, op, numel, numel, ran)]
    if ctx.torch_era == "2.5":
        out.append(c10_prefix(ctx, r, t, line=ctx.pgline + 1034) + "%s failure detected by watchdog at work sequence id: %d PG status: last enqueued work: %d, last completed work: %d" % (pg_prefix(ctx, r), seq, seq, completed))
    elif ctx.torch_era == "2.4":
        out.append(c10_prefix(ctx, r, t, line=ctx.pgline + 1000) + "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pg_prefix(ctx, r), seq, seq, completed))
    else:
        out.append(c10_prefix(ctx, r, t, line=ctx.pgline + 40) + "%s Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pg_prefix(ctx, r), seq, seq, completed))
    out.append(c10_prefix(ctx, r, t, line=ctx.pgline - 20) + "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % r)
    out.append(c10_prefix(ctx, r, t, line=ctx.pgline - 14) + "[Rank %d] To avoid data inconsistency, we are taking the entire process down." % r)
    wd = "Process group watchdog thread terminated with exception" if ctx.torch_era in ("2.4", "2.5") else "NCCL watchdog thread terminated with exception"
    out.append(c10_prefix(ctx, r, t, line=ctx.pgline + 1250) + "%s %s: [Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=600000) ran for %d milliseconds before timing out." % (pg_prefix(ctx, r), wd, r, seq, op, numel, numel, ran))
    out.append("Exception raised from checkTimeout at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % (ctx.pgline - 3))
    out.append("frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x98 (0x7f%010x in /usr/local/lib/python3.11/site-packages/torch/lib/libc10.so)" % ctx.Rr.getrandbits(36))
    out.append("frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x23d (0x7f%010x in /usr/local/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so)" % ctx.Rr.getrandbits(36))
    out.append("")
    exc = "c10::DistBackendError" if ctx.torch_era in ("2.4", "2.5") else "std::runtime_error"
    out.append("terminate called after throwing an instance of '%s'" % exc)
    out.append("  what():  %s %s: [Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=600000) ran for %d milliseconds before timing out." % (pg_prefix(ctx, r), wd, r, seq, op, numel, numel, ran))
    return out


def remote_err_block(ctx, r, t, peer_host, peer_ip, network=False):
    host = ctx.hosts[ctx.node_of(r)][ctx.nccl_host_form]
    lr = r % ctx.gpn
    pid = ctx.pid(r)
    tid = pid + 400 + lr
    out = [""]
    if network:
        out.append("%s:%d:%d [%d] transport/net_ib.cc:%d NCCL WARN NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Send) localGid ::ffff:%s remoteGids::ffff:%s hca mlx5_%d" % (host, pid, tid, lr, ctx.Rr.choice([1696, 1718, 1813]), peer_ip, ctx.Rr.randint(30000, 60000), ctx.hosts[ctx.node_of(r)]["ip"], peer_ip, lr))
        last = "NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Send)" % (peer_ip, ctx.Rr.randint(30000, 60000))
    else:
        out.append("%s:%d:%d [%d] misc/socket.cc:%d NCCL WARN socketProgress: Connection closed by remote peer %s<%d>" % (host, pid, tid, lr, ctx.Rr.choice([50, 538, 572]), peer_host, ctx.Rr.randint(30000, 60000)))
        last = "socketProgress: Connection closed by remote peer %s<%d>" % (peer_host, ctx.Rr.randint(30000, 60000))
    out.append("%s:%d:%d [%d] NCCL INFO transport/net.cc:%d -> 6" % (host, pid, tid, lr, ctx.Rr.randint(1100, 1400)))
    wd = "Process group watchdog thread terminated with exception" if ctx.torch_era in ("2.4", "2.5") else "NCCL watchdog thread terminated with exception"
    msg = "%s %s: NCCL error: remote process exited or there was a network error, NCCL version %s" % (pg_prefix(ctx, r), wd, ctx.nccl_ver)
    out.append(c10_prefix(ctx, r, t, line=ctx.pgline + 1250) + msg)
    out.append("ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.")
    out.append("Last error:")
    out.append(last)
    out.append("Exception raised from checkForNCCLErrorsInternal at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % (ctx.pgline + 1400))
    out.append("")
    exc = "c10::DistBackendError" if ctx.torch_era in ("2.4", "2.5") else "std::runtime_error"
    out.append("terminate called after throwing an instance of '%s'" % exc)
    out.append("  what():  " + msg)
    out.append("ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.")
    return out


def tb_prefixed(r, evs):
    """torch>=2.2 style: the Python traceback written by a rank is prefixed with [rankN]:"""
    out = []
    in_tb = False
    last_t = None
    for (t, s, l) in sorted(evs, key=lambda x: x[0]):
        if s == "err" and l.startswith("Traceback (most recent call last):"):
            in_tb = True
        elif in_tb and (l.startswith("[rank") or " NCCL " in l or l.startswith("terminate called") or (last_t is not None and (t - last_t).total_seconds() > 1.0)):
            in_tb = False
        if in_tb and s == "err":
            out.append((t, s, "[rank%d]: %s" % (r, l) if l else "[rank%d]:" % r))
            if l == "":
                in_tb = False
        else:
            out.append((t, s, l))
        last_t = t
    return out


def traceback_block(frames, exc_line):
    out = ["Traceback (most recent call last):"]
    for f, ln, fn, code in frames:
        out.append('  File "%s", line %d, in %s' % (f, ln, fn))
        out.append("    " + code)
    out.extend(exc_line if isinstance(exc_line, list) else [exc_line])
    return out


def script_frames(ctx):
    return ctx.script_frames


# ----------------------------------------------------------------------------- cause model
def build_fault(ctx, R):
    """Fill ctx.fault: culprit lines, kernel lines, exit code, collateral mode."""
    c = ctx.cause
    f = Ctx()
    f.culprit_lines = []      # (stream, text) emitted on the culprit rank at t_fault
    f.kernel = []             # (node_idx, dt, msg)
    f.exit = -6
    f.mode = "dead"           # dead | stuck | sigterm_all | none | config_all | fs_stall
    f.culprit_delay = 0.0     # seconds from t_fault until the culprit process exits
    f.rank_visible = True
    f.notes = []
    if getattr(ctx, "vllm_fault", False):
        f.mode = "vllm"
        f.exit = 1
        f.notes.append("%s on the vLLM server GPU" % c)
        ctx.fault = f
        return
    r = ctx.culprit
    ni = ctx.node_of(r) if r is not None else None
    lr = r % ctx.gpn if r is not None else 0
    bus = ctx.pci[lr] if r is not None else ctx.pci[0]
    tf = ctx.t_fault
    pid = ctx.pid(r) if r is not None else 0
    site = "/usr/local/lib/python3.11/site-packages"
    if c == "gpu_hardware":
        kind = R.choice(["79", "79", "119", "62"])
        f.notes.append("Xid %s on %s GPU%d" % (kind, ctx.hosts[ni]["short"], lr))
        if kind == "79":
            if R.random() < 0.6:
                f.kernel.append((ni, tf - _dt.timedelta(seconds=0.4), "pcieport 0000:%s:01.0: AER: Uncorrected (Fatal) error received: 0000:%s:00.0" % ("%02x" % (int(bus, 16) - 1), bus)))
                f.kernel.append((ni, tf - _dt.timedelta(seconds=0.39), "pcieport 0000:%s:01.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, (Requester ID)" % ("%02x" % (int(bus, 16) - 1))))
            f.kernel.append((ni, tf, "NVRM: GPU at PCI:0000:%s:00: %s" % (bus, ctx.uuids[lr])))
            f.kernel.append((ni, tf, "NVRM: GPU Board Serial Number: %d" % R.randint(1650000000000, 1659999999999)))
            f.kernel.append((ni, tf, xid_line(bus, 79, "GPU has fallen off the bus.")))
            f.kernel.append((ni, tf, "NVRM: GPU 0000:%s:00.0: GPU has fallen off the bus." % bus))
            f.kernel.append((ni, tf + _dt.timedelta(seconds=0.2), "NVRM: nvGpuOpsReportFatalError: uvm encountered global fatal error 0x60, requiring os reboot to recover."))
            if R.random() < 0.5:
                # process sees an error
                f.culprit_lines = [("err", l) for l in cuda_err_traceback(ctx, "unspecified launch failure", acc=R.random() < 0.5)]
                f.exit = 1
                f.culprit_delay = R.uniform(0.5, 4)
            else:
                # process hangs inside CUDA; NCCL watchdog on itself eventually, others time out
                f.mode = "stuck"
                f.culprit_lines = []
                f.exit = -6
                f.culprit_delay = 600 + R.uniform(30, 90)
                f.culprit_hang_msg = True
        elif kind == "119":
            f.kernel.append((ni, tf, "NVRM: GPU at PCI:0000:%s:00: %s" % (bus, ctx.uuids[lr])))
            f.kernel.append((ni, tf, "NVRM: GPU Board Serial Number: %d" % R.randint(1650000000000, 1659999999999)))
            f.kernel.append((ni, tf, xid_line(bus, 119, "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 103 (GSP_RM_ALLOC) (0x2081 0x4)." % lr, pid, "python3")))
            f.kernel.append((ni, tf + _dt.timedelta(seconds=0.01), "NVRM: GPU%d GSP RPC buffer contains function 103 (GSP_RM_ALLOC) and data 0x0000000000002081 0x0000000000000004." % lr))
            f.kernel.append((ni, tf + _dt.timedelta(seconds=0.01), "NVRM: GPU%d RPC history (CPU -> GSP):" % lr))
            f.kernel.append((ni, tf + _dt.timedelta(seconds=6.1), xid_line(bus, 119, "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a4c 0x4)." % lr, pid, "python3")))
            f.mode = "stuck"
            f.culprit_delay = 600 + R.uniform(20, 60)
            f.culprit_hang_msg = True
        else:
            f.kernel.append((ni, tf, "NVRM: GPU at PCI:0000:%s:00: %s" % (bus, ctx.uuids[lr])))
            f.kernel.append((ni, tf, xid_line(bus, 62, "0000(0000) 00000000 00000000", pid, "python3")))
            f.kernel.append((ni, tf + _dt.timedelta(seconds=0.3), xid_line(bus, 154, "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)")))
            f.culprit_lines = [("err", l) for l in cuda_err_traceback(ctx, "unspecified launch failure", acc=False)]
            f.exit = 1
            f.culprit_delay = R.uniform(1, 5)
    elif c == "ecc_memory":
        addr = R.getrandbits(34)
        f.kernel.append((ni, tf, "NVRM: GPU at PCI:0000:%s:00: %s" % (bus, ctx.uuids[lr])))
        f.kernel.append((ni, tf, "NVRM: GPU Board Serial Number: %d" % R.randint(1650000000000, 1659999999999)))
        f.kernel.append((ni, tf, xid_line(bus, 48, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at physAddr 0x%x partition %d, subpartition %d." % (addr, R.randint(0, 23), R.randint(0, 3)), R.choice(["unknown", pid]), "python3")))
        f.kernel.append((ni, tf + _dt.timedelta(seconds=0.05), xid_line(bus, 63, "Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % addr, pid, "python3")))
        if R.random() < 0.5:
            f.kernel.append((ni, tf + _dt.timedelta(seconds=0.06), xid_line(bus, 94, "Contained: SM (0x1). RST: No, D-RST: No", pid, "python3")))
        else:
            f.kernel.append((ni, tf + _dt.timedelta(seconds=0.06), xid_line(bus, 95, "Uncontained: LTC TAG (0x2, 0x1). RST: Yes, D-RST: No", pid, "python3")))
        f.kernel.append((ni, tf + _dt.timedelta(seconds=0.07), xid_line(bus, 154, "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)")))
        f.culprit_lines = [("err", l) for l in cuda_err_traceback(ctx, "uncorrectable ECC error encountered", acc=R.random() < 0.5)]
        f.exit = 1
        f.culprit_delay = R.uniform(0.2, 2)
        f.notes.append("Xid 48/63 on GPU%d" % lr)
    elif c == "nvlink":
        link = R.randint(0, 17)
        f.kernel.append((ni, tf, "NVRM: GPU at PCI:0000:%s:00: %s" % (bus, ctx.uuids[lr])))
        f.kernel.append((ni, tf, xid_line(bus, 74, "NVLink: fatal error detected on link %d(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)" % link, pid, "python3")))
        f.kernel.append((ni, tf + _dt.timedelta(seconds=0.02), xid_line(bus, 154, "GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)")))
        if R.random() < 0.5:
            f.culprit_lines = [("err", l) for l in cuda_err_traceback(ctx, "uncorrectable NVLink error detected during the execution", acc=False)]
            f.exit = 1
        else:
            host = ctx.hosts[ni][ctx.nccl_host_form]
            f.culprit_lines = [("out", ""), ("out", "%s:%d:%d [%d] include/proxy.h:%d NCCL WARN Cuda failure 'uncorrectable NVLink error detected during the execution'" % (host, pid, pid + 511, lr, R.randint(100, 300)))] + \
                [("err", l) for l in nccl_wrap_traceback(ctx, "unhandled cuda error (run with NCCL_DEBUG=INFO for details)", "ncclUnhandledCudaError: Call to CUDA function failed.", "Cuda failure 'uncorrectable NVLink error detected during the execution'")]
            f.exit = 1
        f.culprit_delay = R.uniform(0.2, 3)
        f.notes.append("Xid 74 link %d" % link)
    elif c == "network":
        nic = NIC_BUSES[lr % len(NIC_BUSES)]
        ifn = ctx.R.choice(["ibp%ds0" % int(nic, 16), "enp%ds0np0" % int(nic, 16)])
        f.kernel.append((ni, tf - _dt.timedelta(seconds=R.uniform(3, 25)), "mlx5_core 0000:%s:00.0 %s: Link down" % (nic, ifn)))
        f.kernel.append((ni, tf - _dt.timedelta(seconds=R.uniform(0.1, 2.5)), "mlx5_core 0000:%s:00.0: mlx5_fw_tracer_handle_traces:%d:(pid %d): FW tracer: port %d module event: cable unplugged or faulty" % (nic, R.randint(700, 800), R.randint(100, 999), 1)))
        peer_n = (ni + 1) % ctx.nnodes
        peer_ip = ctx.hosts[peer_n]["ip"]
        host = ctx.hosts[ni][ctx.nccl_host_form]
        f.culprit_lines = [("out", l) for l in remote_err_block(ctx, r, tf, ctx.hosts[peer_n]["short"], peer_ip, network=True)]
        f.exit = -6
        f.culprit_delay = R.uniform(0.5, 3)
        f.network_peer = peer_n
        f.notes.append("NIC %s down on %s" % (ifn, ctx.hosts[ni]["short"]))
    elif c == "cuda_oom":
        tried = R.choice(["1.95 GiB", "3.91 GiB", "768.00 MiB", "10.00 GiB", "2.50 GiB"])
        tot = R.choice(["79.11 GiB", "79.19 GiB", "139.81 GiB", "39.39 GiB"])
        free = "%d.%02d MiB" % (R.randint(10, 900), R.randint(0, 99))
        msg = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %s. GPU %d has a total capacity of %s of which %s is free. Including non-PyTorch memory, this process has %s memory in use. Of the allocated memory %s is allocated by PyTorch, and %s is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)" % (
            tried, lr, tot, free, "%.2f GiB" % (float(tot.split()[0]) - 0.6), "%.2f GiB" % (float(tot.split()[0]) - 4.1), "%.2f MiB" % R.uniform(100, 2000))
        fr = script_frames(ctx) + [(site + "/torch/nn/modules/module.py", 1751, "_call_impl", "return forward_call(*args, **kwargs)"),
                                   (site + "/transformers/models/llama/modeling_llama.py", R.randint(200, 400), "forward", "attn_weights = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query.dtype)")]
        f.culprit_lines = [("err", l) for l in traceback_block(fr, msg)]
        if ctx.layout == "trtllm_mpirun":
            f.culprit_lines = [("err", l) for l in trt_cuda_err(ctx, "out of memory", "::cudaMallocAsync(ptr, n, mCudaStream->get())", "/src/tensorrt_llm/cpp/tensorrt_llm/runtime/tllmBuffers.h:125")]
        f.exit = 1
        f.culprit_delay = R.uniform(0.5, 3)
    elif c == "illegal_memory_access":
        v = R.choice(["ima", "ima", "assert"])
        if v == "ima":
            f.culprit_lines = [("err", l) for l in cuda_err_traceback(ctx, "an illegal memory access was encountered", acc=R.random() < 0.5)]
            xk = R.choice([31, 13])
            if xk == 31:
                f.kernel.append((ni, tf - _dt.timedelta(seconds=0.01), xid_line(bus, 31, "channel 0x%08x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC%d GPCCLIENT_T1_%d faulted @ 0x%x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (R.randint(8, 40), R.randint(0, 7), R.randint(0, 15), R.randint(0x7f00, 0x7fff), R.getrandbits(32) & 0xfffff000), pid, "python3")))
            else:
                f.kernel.append((ni, tf - _dt.timedelta(seconds=0.01), xid_line(bus, 13, "Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (R.randint(0, 7), R.randint(0, 8), R.randint(0, 1)), pid, "python3")))
                f.kernel.append((ni, tf - _dt.timedelta(seconds=0.01), xid_line(bus, 13, "Graphics Exception: ESR 0x%06x=0x%x 0x%06x=0x0 0x%06x=0x0 0x%06x=0x0" % (R.randint(0x500000, 0x5fffff), R.randint(0x1000000, 0x1ffffff), R.randint(0x500000, 0x5fffff), R.randint(0x500000, 0x5fffff), R.randint(0x500000, 0x5fffff)), pid, "python3")))
            f.kernel.append((ni, tf + _dt.timedelta(seconds=0.5), xid_line(bus, 43, "Ch %08x, engmask 00000101" % R.randint(8, 40), pid, "python3")))
        else:
            blk = (R.randint(0, 400), 0, 0)
            lines = []
            for k in range(R.randint(3, 8)):
                lines.append(("err", "/pytorch/aten/src/ATen/native/cuda/Indexing.cu:1553: indexSelectLargeIndex: block: [%d,0,0], thread: [%d,0,0] Assertion `srcIndex < srcSelectDimSize` failed." % (blk[0] + k // 4, 64 + k)))
            lines += [("err", l) for l in cuda_err_traceback(ctx, "device-side assert triggered", acc=R.random() < 0.5, dsa=True)]
            f.culprit_lines = lines
            if R.random() < 0.5:
                f.kernel.append((ni, tf + _dt.timedelta(seconds=0.5), xid_line(bus, 43, "Ch %08x, engmask 00000101" % R.randint(8, 40), pid, "python3")))
        f.exit = 1
        f.culprit_delay = R.uniform(0.3, 2)
    elif c == "python_exception":
        if ctx.jobwide:
            f.mode = "config_all"
            err = R.choice([
                ["FileNotFoundError: [Errno 2] No such file or directory: '/mnt/ckpt/%s/latest-rank0.pt'" % ctx.run_name],
                ["omegaconf.errors.ConfigAttributeError: Key 'max_seq_len' is not in struct", "    full_key: model.max_seq_len", "    object_type=dict"],
                ["ValueError: global_train_batch_size (%d) is not divisible by world_size (%d)" % (ctx.world * 3 + 2, ctx.world)],
                ["KeyError: 'tokenizer_name'"],
            ])
            f.culprit_lines = [("err", l) for l in traceback_block(ctx.script_frames[:2], err)]
            f.exit = 1
            f.notes.append("config error on every rank")
        else:
            err = R.choice([
                ["KeyError: 'input_ids'"],
                ["RuntimeError: stack expects each tensor to be equal size, but got [%d] at entry 0 and [%d] at entry %d" % (ctx.seq, ctx.seq - R.randint(1, 9), R.randint(1, 7))],
                ["json.decoder.JSONDecodeError: Unterminated string starting at: line 1 column %d (char %d)" % (R.randint(40, 900), R.randint(40, 900))],
                ["ValueError: Expected input batch_size (%d) to match target batch_size (%d)." % (ctx.mbs, ctx.mbs - 1)],
                ["AssertionError: shard /data/tokens/shard-%05d.bin has %d tokens, expected multiple of %d" % (R.randint(0, 4000), R.randint(10 ** 6, 10 ** 7), ctx.seq)],
            ])
            fr = script_frames(ctx) + [(site + "/torch/utils/data/dataloader.py", 708, "__next__", "data = self._next_data()"),
                                       (site + "/torch/utils/data/_utils/fetch.py", 52, "fetch", "data = [self.dataset[idx] for idx in possibly_batched_index]")]
            f.culprit_lines = [("err", l) for l in traceback_block(fr, err)]
            f.exit = 1
        f.culprit_delay = R.uniform(0.1, 1)
    elif c == "host_oom_kill":
        kp = pid
        cg = R.random() < 0.5
        rss = R.randint(40, 400) * 1024 * 1024
        f.kernel.append((ni, tf - _dt.timedelta(seconds=0.2), "%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0" % R.choice(["python", "pt_data_worker", "python3"])))
        f.kernel.append((ni, tf - _dt.timedelta(seconds=0.19), "%s: Killed process %d (python) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (
            "Memory cgroup out of memory" if cg else "Out of memory", kp, rss + R.randint(10 ** 7, 10 ** 8), rss, R.randint(100000, 900000), R.randint(0, 5000000), R.choice([0, 1000, 10023]), R.randint(100000, 900000))))
        f.kernel.append((ni, tf + _dt.timedelta(seconds=0.4), "oom_reaper: reaped process %d (python), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB" % kp))
        f.exit = -9
        f.culprit_delay = 0.0
        f.notes.append("%s OOM kill of rank pid %d" % ("cgroup" if cg else "global", kp))
    elif c == "crash_signal":
        v = R.choice(["segv", "segv", "abort", "bus"])
        if v == "segv":
            f.culprit_lines = [("err", "Fatal Python error: Segmentation fault"), ("err", ""),
                               ("err", "Thread 0x%016x (most recent call first):" % (0x7f0000000000 + R.getrandbits(36))),
                               ("err", '  File "%s/torch/utils/data/_utils/worker.py", line 308 in _worker_loop' % site), ("err", ""),
                               ("err", "Current thread 0x%016x (most recent call first):" % (0x7f0000000000 + R.getrandbits(36))),
                               ("err", '  File "%s/torch/autograd/graph.py", line 823 in _engine_run_backward' % site),
                               ("err", '  File "%s/torch/autograd/__init__.py", line 353 in backward' % site),
                               ("err", '  File "%s", line %d in %s' % (ctx.script, R.randint(100, 600), "train_step"))]
            f.kernel.append((ni, tf, "python[%d]: segfault at %x ip 00007f%08x sp 00007ff%07x error 4 in libtorch_cuda.so[7f%08x+%x] likely on CPU %d (core %d, socket %d)" % (
                pid, R.choice([0, 8, 0x18]), R.getrandbits(32), R.getrandbits(28), R.getrandbits(32), R.getrandbits(28), R.randint(0, 95), R.randint(0, 47), R.randint(0, 1))))
            f.exit = -11
        elif v == "abort":
            f.culprit_lines = [("err", R.choice(["free(): invalid pointer", "double free or corruption (!prev)", "corrupted double-linked list"])),
                               ("err", "Fatal Python error: Aborted"), ("err", ""),
                               ("err", "Current thread 0x%016x (most recent call first):" % (0x7f0000000000 + R.getrandbits(36))),
                               ("err", '  File "%s/flash_attn/flash_attn_interface.py", line 96 in _flash_attn_forward' % site),
                               ("err", '  File "%s", line %d in %s' % (ctx.script, R.randint(100, 600), "train_step"))]
            f.exit = -6
        else:
            f.culprit_lines = [("err", "Fatal Python error: Bus error"), ("err", ""),
                               ("err", "Current thread 0x%016x (most recent call first):" % (0x7f0000000000 + R.getrandbits(36))),
                               ("err", '  File "%s/torch/storage.py", line 1188 in _new_shared_filename_cpu' % site),
                               ("err", '  File "%s/torch/multiprocessing/reductions.py", line 541 in rebuild_storage_filename' % site)]
            f.exit = -7
        f.culprit_delay = 0.0
        f.notes.append("signal crash variant %s" % v)
    elif c == "preemption":
        f.mode = "sigterm_all"
        f.exit = -15
        f.notes.append("whole job received SIGTERM (%s)" % ctx.preempt_kind)
    elif c == "hang":
        f.mode = "stuck"
        f.exit = -6
        f.culprit_delay = 600 + R.uniform(60, 300)
        f.culprit_hang_msg = False
        f.notes.append("rank %d stopped issuing collectives (stuck in Python before seq %d)" % (r, ctx.seq_fault))
    elif c == "data_loader_stall":
        if ctx.jobwide:
            f.mode = "fs_stall"
            f.exit = -6
            f.notes.append("shared filesystem stall on all nodes")
        else:
            f.mode = "stuck"
            f.exit = 1
            f.culprit_delay = ctx.loader_timeout + R.uniform(0.01, 0.5)
            f.kernel.append((ni, tf + _dt.timedelta(seconds=123), "INFO: task pt_data_worker:%d blocked for more than 120 seconds." % (pid + 9000 + R.randint(0, 50))))
            f.kernel.append((ni, tf + _dt.timedelta(seconds=123), '"echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.'))
            fr = script_frames(ctx) + [(site + "/torch/utils/data/dataloader.py", 708, "__next__", "data = self._next_data()"),
                                       (site + "/torch/utils/data/dataloader.py", 1458, "_next_data", "idx, data = self._get_data()"),
                                       (site + "/torch/utils/data/dataloader.py", 1410, "_get_data", "success, data = self._try_get_data()"),
                                       (site + "/torch/utils/data/dataloader.py", 1264, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e")]
            f.culprit_late_lines = [("err", l) for l in traceback_block(fr, "RuntimeError: DataLoader timed out after %d seconds" % ctx.loader_timeout)]
            f.notes.append("one rank's DataLoader workers stalled (timeout=%ds)" % ctx.loader_timeout)
    elif c == "collective_mismatch":
        f.mode = "mismatch"
        f.exit = -6
        f.notes.append("rank %d issued %s while peers issued ALLREDUCE at seq %d" % (r, ctx.mismatch_op, ctx.seq_fault))
    elif c == "straggler":
        f.mode = "none"
        f.notes.append("rank %d persistently %.1fx slower" % (r, ctx.slow_factor))
    elif c == "unknown":
        f.mode = "unknown"
        f.exit = -9
        f.notes.append("a rank died by SIGKILL with no kernel/scheduler evidence")
    ctx.fault = f


def trt_cuda_err(ctx, text, call="::cudaEventSynchronize(get())", where="/src/tensorrt_llm/cpp/include/tensorrt_llm/runtime/cudaEvent.h:66"):
    R = ctx.Rr
    rid = R.randint(1, 90000)
    return ["[TensorRT-LLM][ERROR] Encountered an error in forwardAsync function: [TensorRT-LLM][ERROR] CUDA runtime error in %s: %s (%s)" % (call, text, where),
            "1       0x7f%010x tensorrt_llm::common::throwRuntimeError(char const*, int, std::string const&) + 82" % R.getrandbits(36),
            "2       0x7f%010x /usr/local/lib/python3.12/dist-packages/tensorrt_llm/libs/libtensorrt_llm.so(+0x%x) [0x7f%010x]" % (R.getrandbits(36), R.getrandbits(24), R.getrandbits(36)),
            "3       0x7f%010x tensorrt_llm::batch_manager::TrtGptModelInflightBatching::forwardAsync(std::list<std::shared_ptr<tensorrt_llm::batch_manager::LlmRequest>, std::allocator<std::shared_ptr<tensorrt_llm::batch_manager::LlmRequest> > > const&) + 1540" % R.getrandbits(36),
            "4       0x7f%010x tensorrt_llm::executor::Executor::Impl::forwardAsync(std::list<std::shared_ptr<tensorrt_llm::batch_manager::LlmRequest>, std::allocator<std::shared_ptr<tensorrt_llm::batch_manager::LlmRequest> > >&) + 426" % R.getrandbits(36),
            "[TensorRT-LLM][ERROR] Encountered error for requestId %d: Encountered an error in forwardAsync function: [TensorRT-LLM][ERROR] CUDA runtime error in %s: %s (%s)" % (rid, call, text, where),
            "[%s] [TRT-LLM] [E] Executor worker returned error" % ctx.t_fault.astimezone(ctx.log_tz).strftime("%m/%d/%Y-%H:%M:%S"),
            "RuntimeError: Executor worker returned error"]


def cuda_err_traceback(ctx, text, acc=False, dsa=False):
    if ctx.layout == "trtllm_mpirun":
        return trt_cuda_err(ctx, text)
    site = "/usr/local/lib/python3.11/site-packages"
    fr = ctx.script_frames + [(site + "/torch/_tensor.py", 626, "backward", "torch.autograd.backward(")]
    cls = "torch.AcceleratorError" if acc else "RuntimeError"
    exc = ["%s: CUDA error: %s" % (cls, text),
           "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
           "For debugging consider passing CUDA_LAUNCH_BLOCKING=1"]
    if dsa or True:
        exc.append("Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.")
    exc.append("")
    return traceback_block(fr, exc)


def nccl_wrap_traceback(ctx, errstr, detail, last):
    if ctx.layout == "trtllm_mpirun":
        return ["Failed, NCCL error /src/tensorrt_llm/cpp/tensorrt_llm/plugins/ncclPlugin/allreducePlugin.cpp:%d '%s'" % (ctx.trt_line, errstr)]
    site = "/usr/local/lib/python3.11/site-packages"
    fr = ctx.script_frames + [(site + "/torch/distributed/c10d_logger.py", 81, "wrapper", "return func(*args, **kwargs)"),
                              (site + "/torch/distributed/distributed_c10d.py", 2806, "all_reduce", "work = group.allreduce([tensor], opts)")]
    exc = ["torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:%d, %s, NCCL version %s" % (ctx.Rr.choice([317, 328, 268]), errstr, ctx.nccl_ver),
           detail, "Last error:", last]
    return traceback_block(fr, exc)


# ----------------------------------------------------------------------------- context
SCRIPTS = {
    "composer": ("/llm-foundry/scripts/train/train.py", [("/llm-foundry/scripts/train/train.py", 7, "<module>", "main(yaml_cfg)"),
                                                         ("/llm-foundry/llmfoundry/command_utils/train.py", 598, "train", "trainer.fit()"),
                                                         ("/usr/local/lib/python3.11/site-packages/composer/trainer/trainer.py", 2432, "fit", "self._train_loop()"),
                                                         ("/usr/local/lib/python3.11/site-packages/composer/trainer/trainer.py", 2640, "_train_loop", "total_loss_dict = self._train_batch(use_grad_scaling)")]),
    "trtllm_mpirun": ("/app/tensorrt_llm/examples/run.py", [("/app/tensorrt_llm/benchmarks/python/benchmark.py", 412, "main", "benchmarker.run(inputs, config)"),
                                                           ("/usr/local/lib/python3.12/dist-packages/tensorrt_llm/runtime/generation.py", 1121, "decode", "return self.decode_regular(")]),
    "accelerate_tee": ("/workspace/axolotl/src/axolotl/cli/train.py", [("/workspace/axolotl/src/axolotl/cli/train.py", 72, "<module>", "fire.Fire(do_cli)"),
                                                                       ("/workspace/axolotl/src/axolotl/train.py", 191, "train", "trainer.train(resume_from_checkpoint=resume_from_checkpoint)"),
                                                                       ("/usr/local/lib/python3.11/site-packages/transformers/trainer.py", 2245, "train", "return inner_training_loop("),
                                                                       ("/usr/local/lib/python3.11/site-packages/transformers/trainer.py", 2560, "_inner_training_loop", "tr_loss_step = self.training_step(model, inputs, num_items_in_batch)")]),
    "trl_grpo_vllm": ("/code/open-r1/src/open_r1/grpo.py", [("/code/open-r1/src/open_r1/grpo.py", 294, "<module>", "main(script_args, training_args, model_args)"),
                                                           ("/code/open-r1/src/open_r1/grpo.py", 266, "main", "train_result = trainer.train(resume_from_checkpoint=checkpoint)"),
                                                           ("/usr/local/lib/python3.11/site-packages/transformers/trainer.py", 2245, "train", "return inner_training_loop("),
                                                           ("/usr/local/lib/python3.11/site-packages/trl/trainer/grpo_trainer.py", 1011, "_prepare_inputs", "generation_batch = self._generate_and_score_completions(generation_batch)")]),
    "colossalai": ("/workspace/ColossalAI/applications/Colossal-LLaMA/train.py", [("/workspace/ColossalAI/applications/Colossal-LLaMA/train.py", 472, "<module>", "train(args)"),
                                                                                 ("/workspace/ColossalAI/applications/Colossal-LLaMA/train.py", 381, "train", "outputs = booster.execute_pipeline(")]),
}


def build_ctx(seed, idx, layout, cause):
    R = random.Random("blind14-%d-%d" % (seed, idx))
    ctx = Ctx()
    ctx.seed_idx = seed * 100000 + idx
    ctx.R = R
    ctx.Rr = random.Random("blind14-r-%d-%d" % (seed, idx))
    ctx.layout = layout
    ctx.cause = cause
    ctx.world, ctx.gpn = pick_world(R, layout)
    if cause == "network" and ctx.world // ctx.gpn < 2:
        ctx.gpn = 8 if ctx.world >= 8 else ctx.gpn
        ctx.world = ctx.gpn * R.choice([2, 2, 4])
    ctx.nnodes = ctx.world // ctx.gpn
    ctx.hosts = make_hosts(R, ctx.nnodes, layout)
    ctx.node_of = lambda r: r // ctx.gpn
    base_pid = R.randint(20000, 3000000)
    pids = {}

    def pid(r):
        if r not in pids:
            pids[r] = base_pid + (r // ctx.gpn) * 7919 + (r % ctx.gpn) * 4 + (r * 7) % 3
        return pids[r]
    ctx.pid = pid
    ctx.t0 = _dt.datetime(2026, R.randint(1, 11), R.randint(1, 28), R.randint(0, 23), R.randint(0, 59), R.randint(0, 59), R.randint(0, 999999), tzinfo=UTC)
    ctx.node_tz = [tz_of(R.choice([0, 0, -7, -5, 1, 8, 9]))] * ctx.nnodes
    ctx.log_tz = tz_of(R.choice([0, 0, 0, -7, 8]))
    ctx.boot = [ctx.t0 - _dt.timedelta(days=R.uniform(1.5, 60), seconds=R.randint(0, 9999)) for _ in range(ctx.nnodes)]
    ctx.kfmt = R.choice(["dmesg", "dmesg_T", "syslog", "journal", "journal_iso"])
    ctx.khost_form = R.choice(["short", "short", "fqdn"])
    ctx.nccl_host_form = R.choice(["short", "fqdn"])
    ctx.torch_era = R.choice(["2.3", "2.4", "2.5", "2.5"])
    ctx.pgline = {"2.3": 1537, "2.4": 632, "2.5": 616}[ctx.torch_era] + R.randint(0, 8)
    ctx.nccl_ver = R.choice(["2.20.5", "2.21.5", "2.23.4", "2.26.2"])
    ctx.pci = R.choice([PCI_BUSES, PCI_BUSES_B])
    ctx.uuids = [gpu_uuid(R) for _ in range(ctx.gpn)]
    ctx.step_time = R.uniform(0.6, 9.0)
    ctx.total_steps = R.choice([2000, 4800, 10000, 20000, 60000])
    ctx.start_step = R.choice([0, 0, R.randint(100, ctx.total_steps // 2)])
    ctx.fault_step = ctx.start_step + R.randint(40, 400)
    ctx.log_every = R.choice([1, 5, 10, 10, 20])
    ctx.startup = _dt.timedelta(seconds=R.uniform(40, 240))
    ctx.seq_per_step = R.choice([1, 2, 4, 6])
    ctx.seq_fault = 20 + (ctx.fault_step - ctx.start_step) * ctx.seq_per_step + R.randint(0, ctx.seq_per_step - 1)
    ctx.numel = R.choice([1, 8, 262144, 4194304, 16777216, 131334144])
    ctx.seq = R.choice([2048, 4096, 8192])
    ctx.mbs = R.choice([1, 2, 4, 8, 16])
    ctx.run_name = "%s-%s-%04d" % (R.choice(["mpt", "llama3", "qwen2p5", "mistral", "olmo"]), R.choice(["7b", "8b", "13b", "70b", "1b"]), R.randint(0, 9999))
    ctx.script, ctx.script_frames = SCRIPTS[layout]
    ctx.jobwide = False
    ctx.loader_timeout = R.choice([120, 180, 300])
    ctx.mismatch_op = R.choice(["ALLGATHER", "BROADCAST", "_ALLGATHER_BASE", "REDUCE_SCATTER"])
    ctx.slow_factor = R.uniform(1.6, 3.5)
    ctx.preempt_kind = R.choice(["slurm_preempt", "slurm_timelimit", "scancel", "spot"])
    if cause in ("python_exception",) and R.random() < 0.35:
        ctx.jobwide = True
    if cause == "data_loader_stall" and R.random() < 0.5:
        ctx.jobwide = True
    if cause in (None, "preemption", "unknown") or ctx.jobwide:
        ctx.culprit = None
    else:
        # avoid rank 0 most of the time so the coordinator is not always the culprit
        ctx.culprit = R.randrange(ctx.world) if R.random() < 0.85 else 0
    if layout == "trl_grpo_vllm":
        ctx.vllm_fault = cause in ("gpu_hardware", "ecc_memory", "cuda_oom", "crash_signal") and R.random() < 0.35
        if ctx.vllm_fault:
            ctx.culprit = None
    else:
        ctx.vllm_fault = False
    ctx.t_fault = ctx.t0 + ctx.startup + _dt.timedelta(seconds=(ctx.fault_step - ctx.start_step) * ctx.step_time + R.uniform(0, ctx.step_time))
    if cause == "python_exception" and ctx.jobwide:
        ctx.t_fault = ctx.t0 + _dt.timedelta(seconds=R.uniform(15, 70))
    # which ranks are shown
    if ctx.world <= 16:
        shown = set(range(ctx.world))
    else:
        shown = {0, ctx.world - 1}
        if ctx.culprit is not None:
            cn = ctx.node_of(ctx.culprit)
            shown |= set(range(cn * ctx.gpn, (cn + 1) * ctx.gpn))
        for _ in range(R.randint(6, 14)):
            shown.add(R.randrange(ctx.world))
    ctx.shown = sorted(shown)
    Rr = ctx.Rr
    ctx.jobid = Rr.randint(100000, 9999999)
    ctx.commid = Rr.getrandbits(64)
    ctx.agent_host_form = Rr.choice(["short", "fqdn", "fqdn"])
    ctx.first_to = 0
    ctx.straggle_kind = Rr.choice(["thermal", "hw_slowdown"])
    ctx.trt_ver = Rr.choice(["0.12.0", "0.16.0", "0.17.0.post1", "1.0.0rc2"])
    ctx.trt_line = Rr.choice([183, 295, 304])
    ctx.boot_if = Rr.choice(["eth0", "bond0", "ens7", "enp27s0np0"])
    ctx.fault = None
    if cause is not None:
        build_fault(ctx, R)
        # sometimes the culprit's own output was not attached (large jobs)
        if ctx.world > 64 and ctx.culprit is not None and cause not in ("straggler", "collective_mismatch", "hang") and R.random() < 0.3 \
                and cause in ("gpu_hardware", "ecc_memory", "nvlink", "host_oom_kill"):
            ctx.shown = [r for r in ctx.shown if r != ctx.culprit]
            ctx.fault.rank_visible = False
    return ctx


# ----------------------------------------------------------------------------- event timeline
def rank_events(ctx):
    """Return dict rank -> list of (dt, stream, text); exit info per rank; end time."""
    R = ctx.Rr
    ev = {r: [] for r in ctx.shown}
    exits = {}
    f = ctx.fault
    cause = ctx.cause
    tf = ctx.t_fault
    for r in ctx.shown:
        t = ctx.t0 + _dt.timedelta(seconds=R.uniform(1, 4))
        host = ctx.hosts[ctx.node_of(r)][ctx.nccl_host_form]
        lr = r % ctx.gpn
        p = ctx.pid(r)
        if r == 0:
            ev[r].append((t, "out", "NCCL version %s+cuda12.4" % ctx.nccl_ver))
        ev[r].append((t + _dt.timedelta(seconds=0.5), "out", "%s:%d:%d [%d] NCCL INFO Bootstrap : Using %s:%s<0>" % (host, p, p, lr, ctx.boot_if, ctx.hosts[ctx.node_of(r)]["ip"])))
        ev[r].append((t + _dt.timedelta(seconds=2.1), "out", "%s:%d:%d [%d] NCCL INFO ncclCommInitRankConfig comm 0x%012x rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId 0x%016x - Init COMPLETE" % (
            host, p, p + 300, lr, R.getrandbits(44), r, ctx.world, lr, lr, ctx.pci[lr].lstrip("0") or "0", ctx.commid)))
    if cause == "collective_mismatch" or ctx.fault is None or True:
        pass
    end = None
    if f is None:
        end = ctx.t0 + ctx.startup + _dt.timedelta(seconds=(ctx.total_steps - ctx.start_step) * ctx.step_time)
        if (end - ctx.t0).total_seconds() > 40 * 3600:
            end = ctx.t0 + ctx.startup + _dt.timedelta(hours=R.uniform(3, 30))
        for r in ctx.shown:
            exits[r] = (end + _dt.timedelta(seconds=R.uniform(1, 8)), 0)
        ctx.t_end = end
        return ev, exits
    mode = f.mode
    cul = ctx.culprit
    if mode == "config_all":
        for r in ctx.shown:
            tt = tf + _dt.timedelta(seconds=R.uniform(0, 2))
            for s, l in f.culprit_lines:
                ev[r].append((tt, s, l))
            exits[r] = (tt + _dt.timedelta(seconds=R.uniform(0.5, 3)), 1)
        ctx.t_end = max(e[0] for e in exits.values())
        return ev, exits
    if mode == "sigterm_all":
        for r in ctx.shown:
            exits[r] = (tf + _dt.timedelta(seconds=R.uniform(0.2, 2.5)), -15)
        ctx.t_end = tf + _dt.timedelta(seconds=30)
        return ev, exits
    if mode == "none":
        ctx.t_end = tf + _dt.timedelta(seconds=R.uniform(1800, 7200))
        return ev, exits
    if mode == "vllm":
        ctx.t_end = tf + _dt.timedelta(seconds=700)
        return ev, exits
    if mode == "unknown":
        victim = R.choice(ctx.shown)
        ctx.unknown_victim = victim
        exits[victim] = (tf, -9)
        for r in ctx.shown:
            if r == victim:
                continue
            if R.random() < 0.5 and ctx.node_of(r) != ctx.node_of(victim):
                tt = tf + _dt.timedelta(seconds=R.uniform(1, 20))
                for l in remote_err_block(ctx, r, tt, ctx.hosts[ctx.node_of(victim)]["short"], ctx.hosts[ctx.node_of(victim)]["ip"]):
                    ev[r].append((tt, "err", l))
            else:
                tt = tf + _dt.timedelta(seconds=600 + R.uniform(0, 3))
                for l in watchdog_block(ctx, r, tt, ctx.seq_fault):
                    ev[r].append((tt, "err", l))
            exits[r] = (tt + _dt.timedelta(seconds=R.uniform(0.5, 20)), -6)
        ctx.t_end = max(e[0] for e in exits.values())
        return ev, exits
    if mode == "fs_stall":
        # all ranks slow down then time out on a collective; rank 0 times out first
        for r in ctx.shown:
            tt = tf + _dt.timedelta(seconds=600 + R.uniform(0, 25))
            for l in watchdog_block(ctx, r, tt, ctx.seq_fault + R.randint(0, 1)):
                ev[r].append((tt, "err", l))
            exits[r] = (tt + _dt.timedelta(seconds=R.uniform(0.5, 5)), -6)
        ctx.t_end = max(e[0] for e in exits.values())
        return ev, exits
    if mode == "mismatch":
        # every rank times out; culprit shows a different OpType at the same SeqNum; or DETAIL debug error
        detail = R.random() < 0.5
        for r in ctx.shown:
            tt = tf + _dt.timedelta(seconds=(600 if not detail else 0) + (R.uniform(0, 0.3) if r == cul else R.uniform(0.5, 4)))
            if detail:
                other = ctx.world - 1 if cul == 0 else 0
                msg = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%d], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))), but Rank %d is running collective: CollectiveFingerPrint(SequenceNumber=%d, OpType=ALLREDUCE, TensorShape=[%d], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))).Collectives differ in the following aspects: \t Op type: %svs ALLREDUCE" % (
                    cul, ctx.seq_fault, ctx.mismatch_op, ctx.numel // 2 or 1, other, ctx.seq_fault, ctx.numel, ctx.mismatch_op) if r != cul else \
                    "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: CollectiveFingerPrint(SequenceNumber=%d, OpType=ALLREDUCE, TensorShape=[%d], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))), but Rank %d is running collective: CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%d], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))).Collectives differ in the following aspects: \t Op type: ALLREDUCEvs %s" % (
                        other, ctx.seq_fault, ctx.numel, cul, ctx.seq_fault, ctx.mismatch_op, ctx.numel // 2 or 1, ctx.mismatch_op)
                for l in traceback_block(ctx.script_frames + [("/usr/local/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", 2806, "all_reduce", "work = group.allreduce([tensor], opts)")], msg):
                    ev[r].append((tt, "err", l))
                exits[r] = (tt + _dt.timedelta(seconds=R.uniform(0.5, 4)), 1)
            else:
                op = ctx.mismatch_op if r == cul else "ALLREDUCE"
                numel = (ctx.numel // 2 or 1) if r == cul else ctx.numel
                for l in watchdog_block(ctx, r, tt, ctx.seq_fault, op=op, numel=numel):
                    ev[r].append((tt, "err", l))
                exits[r] = (tt + _dt.timedelta(seconds=R.uniform(0.5, 10)), -6)
        ctx.mismatch_detail = detail
        ctx.t_end = max(e[0] for e in exits.values())
        return ev, exits
    # culprit-based modes: dead / stuck
    t_cexit = tf + _dt.timedelta(seconds=f.culprit_delay)
    if cul in ev:
        for s, l in f.culprit_lines:
            ev[cul].append((tf + _dt.timedelta(seconds=0.05), s, l))
        if mode == "stuck":
            late = getattr(f, "culprit_late_lines", None)
            if late:
                for s, l in late:
                    ev[cul].append((t_cexit, s, l))
            elif cause == "hang":
                # culprit eventually times out on the *previous* seq it never reached? it shows heartbeat / watchdog for an older collective
                tt = t_cexit
                p = c10_prefix(ctx, cul, tt, line=ctx.pgline + 700)
                ev[cul].append((tt, "err", p + "%s Heartbeat monitor timed out! Process will be terminated after dumping debug info. workMetaList_.size()=0" % pg_prefix(ctx, cul) if ctx.torch_era == "2.3" else
                                p + "%s Received a dump signal due to a collective timeout from rank %d and we will try our best to dump the debug info. Last enqueued NCCL work: %d, last completed NCCL work: %d." % (pg_prefix(ctx, cul), ctx.first_to, ctx.seq_fault - 1, ctx.seq_fault - 1)))
                ev[cul].append((tt, "err", c10_prefix(ctx, cul, tt, level="F", line=ctx.pgline + 800) + "%s Terminating the process after attempting to dump debug info, due to collective timeout or exception." % pg_prefix(ctx, cul)))
            elif getattr(f, "culprit_hang_msg", False):
                tt = t_cexit
                ev[cul].append((tt, "err", c10_prefix(ctx, cul, tt, level="F", line=ctx.pgline + 800) + "%s ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued collectives. This typically indicates a NCCL/CUDA API (e.g., CudaEventDestroy) hang blocking the watchdog, and could be triggered by another thread holding the GIL inside a CUDA api (for example, CudaEventDestroy), or other deadlock-prone behaviors.If you suspect the watchdog is not actually stuck and a longer timeout would help, you can either increase the timeout (TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC) to a larger value or disable the heartbeat monitor (TORCH_NCCL_ENABLE_MONITORING=0).If either of aforementioned helps, feel free to file an issue to PyTorch about the short timeout or false positive abort; otherwise, please attempt to debug the hang." % pg_prefix(ctx, cul)))
    if cul is not None:
        exits[cul] = (t_cexit + _dt.timedelta(seconds=R.uniform(0.1, 2.0)), f.exit)
    cn = ctx.node_of(cul) if cul is not None else 0
    for r in ctx.shown:
        if r == cul:
            continue
        if mode == "dead" and cause != "network" and ctx.node_of(r) != cn and R.random() < 0.55:
            tt = t_cexit + _dt.timedelta(seconds=R.uniform(1, 30))
            for l in remote_err_block(ctx, r, tt, ctx.hosts[cn][ctx.nccl_host_form], ctx.hosts[cn]["ip"]):
                ev[r].append((tt, "err", l))
            exits[r] = (tt + _dt.timedelta(seconds=R.uniform(0.2, 3)), -6)
        elif mode == "dead" and cause == "network" and ctx.node_of(r) == getattr(f, "network_peer", -1) and R.random() < 0.7:
            tt = tf + _dt.timedelta(seconds=R.uniform(0.5, 8))
            for l in remote_err_block(ctx, r, tt, ctx.hosts[cn][ctx.nccl_host_form], ctx.hosts[cn]["ip"], network=True):
                ev[r].append((tt, "err", l))
            exits[r] = (tt + _dt.timedelta(seconds=R.uniform(0.2, 3)), -6)
        else:
            tt = tf + _dt.timedelta(seconds=600 + R.uniform(0.01, 4))
            for l in watchdog_block(ctx, r, tt, ctx.seq_fault):
                ev[r].append((tt, "err", l))
            exits[r] = (tt + _dt.timedelta(seconds=R.uniform(0.2, 16)), -6)
    ctx.t_end = max(e[0] for e in exits.values()) if exits else tf + _dt.timedelta(seconds=700)
    return ev, exits


# ----------------------------------------------------------------------------- kernel logs / decoys
def kernel_logs(ctx):
    R = ctx.Rr
    out = {}
    for ni in range(ctx.nnodes):
        lines = []
        b = ctx.boot[ni]
        lines.append((b + _dt.timedelta(seconds=4.2), "nvidia-nvlink: Nvlink Core is being initialized, major device number %d" % R.randint(500, 511)))
        lines.append((b + _dt.timedelta(seconds=4.9), "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  %s  %s" % (R.choice(["550.90.07", "550.127.05", "560.35.03", "570.124.06"]), "Release Build  (dvs-builder@U16-I3-B07-2-1)")))
        lines.append((b + _dt.timedelta(seconds=R.uniform(20, 40)), "IPv6: ADDRCONF(NETDEV_CHANGE): %s: link becomes ready" % R.choice(["eth0", "bond0"])))
        out[ni] = lines
    # decoys
    dec = []
    if R.random() < 0.55:
        dn = R.randrange(ctx.nnodes)
        td = ctx.t0 - _dt.timedelta(days=R.uniform(1.2, 6), seconds=R.randint(0, 9999))
        if td < ctx.boot[dn] + _dt.timedelta(seconds=60):
            td = ctx.boot[dn] + _dt.timedelta(hours=R.uniform(2, 20))
        if td < ctx.t0:
            g = R.randrange(ctx.gpn)
            kind = R.choice(["13", "31", "63", "92"])
            if kind == "13":
                msg = xid_line(ctx.pci[g], 13, "Graphics SM Warp Exception on (GPC 3, TPC 1, SM 0): Out Of Range Address", R.randint(1000, 90000), "python")
            elif kind == "31":
                msg = xid_line(ctx.pci[g], 31, "channel 0x00000011, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC2 GPCCLIENT_T1_4 faulted @ 0x7f31_c4000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE", R.randint(1000, 90000), "pt_main_thread")
            elif kind == "63":
                msg = xid_line(ctx.pci[g], 63, "Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % R.getrandbits(34), R.randint(1000, 90000), "python3")
            else:
                msg = xid_line(ctx.pci[g], 92, "High single-bit ECC error rate detected")
            out[dn].append((td, msg))
            dec.append("old Xid %s on %s GPU%d %.1f days before" % (kind, ctx.hosts[dn]["short"], g, (ctx.t0 - td).total_seconds() / 86400))
    if R.random() < 0.5:
        dn = R.randrange(ctx.nnodes)
        nic = R.choice(NIC_BUSES)
        ifn = "ibp%ds0" % int(nic, 16)
        td = ctx.t0 + _dt.timedelta(seconds=R.uniform(60, max(120, (ctx.t_fault - ctx.t0).total_seconds() * 0.5)))
        out[dn].append((td, "mlx5_core 0000:%s:00.0 %s: Link down" % (nic, ifn)))
        out[dn].append((td + _dt.timedelta(seconds=R.uniform(2, 9)), "mlx5_core 0000:%s:00.0 %s: Link up" % (nic, ifn)))
        dec.append("recovered link flap %s on %s" % (ifn, ctx.hosts[dn]["short"]))
    if R.random() < 0.3:
        dn = R.randrange(ctx.nnodes)
        out[dn].append((ctx.t0 + _dt.timedelta(seconds=R.uniform(10, 50)), "pcieport 0000:%s:01.0: AER: Corrected error received: 0000:%s:00.0" % ("%02x" % (int(ctx.pci[2], 16) - 1), ctx.pci[2])))
        dec.append("corrected PCIe AER on %s" % ctx.hosts[dn]["short"])
    f = ctx.fault
    if f is not None:
        for ni, t, msg in f.kernel:
            if ni is not None:
                out[ni].append((t, msg))
        if f.mode == "fs_stall":
            srv = "%s.%s" % (R.choice(["fs01", "nfs-home", "vast-vip"]), "storage.internal")
            for ni in range(ctx.nnodes):
                t = ctx.t_fault + _dt.timedelta(seconds=R.uniform(-40, 5))
                if R.random() < 0.5:
                    out[ni].append((t, "nfs: server %s not responding, still trying" % srv))
                else:
                    out[ni].append((t, "Lustre: scratch-OST00%02x-osc-ffff%08x: Connection to scratch-OST00%02x (at 10.%d.0.%d@o2ib) was lost; in progress operations using this service will wait for recovery to complete" % (R.randint(0, 63), R.getrandbits(32), R.randint(0, 63), R.randint(0, 9), R.randint(2, 60))))
                out[ni].append((t + _dt.timedelta(seconds=123), "INFO: task pt_data_worker:%d blocked for more than 120 seconds." % (ctx.pid(ni * ctx.gpn) + 9000 + R.randint(0, 50))))
                out[ni].append((t + _dt.timedelta(seconds=123), "      Tainted: P           OE      %s #1" % R.choice(["5.15.0-119-generic", "6.8.0-49-generic", "5.14.0-427.el9.x86_64"])))
                out[ni].append((t + _dt.timedelta(seconds=123), '"echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.'))
        if f.mode == "none" and ctx.cause == "straggler" and ctx.straggle_kind == "thermal":
            pass
    ctx.decoys_k = dec
    res = {}
    for ni, lines in out.items():
        lines.sort(key=lambda x: x[0])
        res[ni] = "\n".join(kfmt(ctx, ni, t, m) for t, m in lines if t >= ctx.boot[ni] or ctx.kfmt in ("syslog", "journal", "journal_iso")) + "\n"
    return res


def warn_storm(ctx, r, t, n):
    R = ctx.Rr
    site = "/usr/local/lib/python3.11/site-packages"
    w = R.choice([
        "%s/torch/utils/checkpoint.py:87: UserWarning: None of the inputs have requires_grad=True. Gradients will be None" % site,
        "%s/torch/_dynamo/eval_frame.py:745: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly." % site,
        "%s/transformers/modeling_utils.py:1190: FutureWarning: `torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', args...)` instead." % site,
        "%s/torch/distributed/fsdp/_state_dict_utils.py:773: UserWarning: When using ``NO_SHARD`` for ``ShardingStrategy``, full_state_dict will be returned." % site,
    ])
    return [(t + _dt.timedelta(seconds=k * R.uniform(0.5, 40)), "err", w) for k in range(n)]


def teardown_warn(ctx, r, t):
    if ctx.torch_era in ("2.4", "2.5"):
        return [(t, "err", "[rank%d]:[W%s ProcessGroupNCCL.cpp:1250] Warning: WARNING: destroy_process_group() was not called before program exit, which can leak resources. For more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())" % (r, glog_ts(t.astimezone(ctx.log_tz))))]
    return [(t, "err", "[rank%d]:[W ProcessGroupNCCL.cpp:1110] Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only recently been added to the print out. (function ~ProcessGroupNCCL)" % r)]


def preempt_line(ctx, node):
    """Scheduler / cloud evidence that the whole job was asked to stop."""
    h = ctx.hosts[node]
    ts = ctx.t_fault.astimezone(ctx.node_tz[node]).strftime("%Y-%m-%dT%H:%M:%S")
    k = ctx.preempt_kind
    if k == "slurm_preempt":
        return "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (ctx.jobid, h["short"], ts)
    if k == "slurm_timelimit":
        return "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (ctx.jobid, h["short"], ts)
    if k == "scancel":
        return "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s ***" % (ctx.jobid, h["short"], ts)
    return "%s spot-interruption-handler: received instance-action {\"action\": \"terminate\", \"time\": \"%s\"}; sending SIGTERM to job processes" % (
        (ctx.t_fault - _dt.timedelta(seconds=118)).strftime("%Y-%m-%dT%H:%M:%SZ"), (ctx.t_fault + _dt.timedelta(seconds=2)).strftime("%Y-%m-%dT%H:%M:%SZ"))


# ----------------------------------------------------------------------------- torchrun agent text
def child_failed_block(ctx, node, failures, script):
    """failures: list of (t, rank, exitcode); first is root cause."""
    host = ctx.hosts[node][ctx.agent_host_form]
    def entry(i, t, r, ec):
        p = ctx.pid(r)
        tb = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
        if ec < 0:
            sig = {-6: "SIGABRT", -9: "SIGKILL", -15: "SIGTERM", -11: "SIGSEGV", -7: "SIGBUS"}.get(ec, "SIG%d" % -ec)
            tb = "Signal %d (%s) received by PID %d" % (-ec, sig, p)
        return ["[%d]:" % i, "  time      : %s" % t.astimezone(ctx.log_tz).strftime("%Y-%m-%d_%H:%M:%S"), "  host      : %s" % host,
                "  rank      : %d (local_rank: %d)" % (r, r % ctx.gpn), "  exitcode  : %d (pid: %d)" % (ec, p), "  error_file: <N/A>", "  traceback : %s" % tb]
    out = ["Traceback (most recent call last):",
           '  File "/usr/local/bin/torchrun", line 8, in <module>', "    sys.exit(main())",
           '  File "/usr/local/lib/python3.11/site-packages/torch/distributed/run.py", line 919, in main', "    run(args)",
           '  File "/usr/local/lib/python3.11/site-packages/torch/distributed/launcher/api.py", line 270, in launch_agent', "    raise ChildFailedError(",
           "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
           "============================================================", "%s FAILED" % script, "------------------------------------------------------------", "Failures:"]
    if len(failures) <= 1:
        out.append("  <NO_OTHER_FAILURES>")
    else:
        for i, (t, r, ec) in enumerate(failures[1:], 1):
            out += entry(i, t, r, ec)
    out += ["------------------------------------------------------------", "Root Cause (first observed failure):"]
    t, r, ec = failures[0]
    out += entry(0, t, r, ec)
    out.append("============================================================")
    return out


def local_failures(ctx, exits, node):
    """Exit events of ranks on a node, as the local agent would see them (sorted). Unshown ranks are synthesised."""
    R = random.Random("synth-%d-%d" % (ctx.seed_idx, node))
    evs = []
    for lr in range(ctx.gpn):
        r = node * ctx.gpn + lr
        if r in exits:
            evs.append((exits[r][0], r, exits[r][1]))
        else:
            # an unshown rank: mirror the majority behaviour
            if ctx.fault is None:
                evs.append((ctx.t_end + _dt.timedelta(seconds=R.uniform(1, 8)), r, 0))
            elif ctx.fault.mode == "sigterm_all":
                evs.append((ctx.t_fault + _dt.timedelta(seconds=R.uniform(0.2, 2.5)), r, -15))
            elif ctx.fault.mode == "config_all":
                evs.append((ctx.t_fault + _dt.timedelta(seconds=R.uniform(0.5, 3)), r, 1))
            elif ctx.fault.mode == "none":
                continue
            elif r == ctx.culprit:
                continue  # handled by caller via ctx.hidden_culprit_exit
            else:
                evs.append((ctx.t_fault + _dt.timedelta(seconds=600 + R.uniform(0.5, 18)), r, -6))
    if ctx.culprit is not None and ctx.node_of(ctx.culprit) == node and ctx.culprit not in exits and ctx.fault is not None and ctx.fault.mode in ("dead", "stuck"):
        evs.append((ctx.t_fault + _dt.timedelta(seconds=ctx.fault.culprit_delay + 0.5), ctx.culprit, ctx.fault.exit))
    evs.sort()
    return evs


# ----------------------------------------------------------------------------- layout: composer
def render_composer(ctx, ev, exits, files):
    R = ctx.Rr
    f = ctx.fault
    tz = ctx.log_tz
    total_b = ctx.total_steps

    def flog(t, r, level, name, msg):
        return "%s: rank%d[%d][MainThread]: %s: %s: %s" % (ts_iso(t.astimezone(tz)), r, ctx.pid(r), level, name, msg)
    for node in range(ctx.nnodes):
        node_ranks = [r for r in ctx.shown if ctx.node_of(r) == node]
        if not node_ranks and not (ctx.culprit is not None and ctx.node_of(ctx.culprit) == node):
            if node not in ctx.k_nodes:
                continue
        host = ctx.hosts[node]
        base = node * ctx.gpn
        lines = []
        t = ctx.t0
        lines.append((t, "composer -n %d --world_size %d --node_rank %d --master_addr %s --master_port 7501 --stdout logs/%s/rank{rank}.stdout.txt --stderr logs/%s/rank{rank}.stderr.txt /llm-foundry/scripts/train/train.py yamls/pretrain/%s.yaml" % (
            ctx.gpn, ctx.world, node, ctx.hosts[0]["ip"], ctx.run_name, ctx.run_name, ctx.run_name.split("-")[0])))
        lines.append((t, "INFO:composer.cli.launcher:Starting distributed environment on local node for global_rank(%d-%d)" % (base, base + ctx.gpn - 1)))
        lines.append((t, "INFO:composer.cli.launcher:Distributed KV store: tcp://%s:7501" % ctx.hosts[0]["ip"]))
        for lr in range(ctx.gpn):
            lines.append((t, "INFO:composer.cli.launcher:Launching process for local_rank(%d), global_rank(%d) with command(['/usr/bin/python', '-u', '/llm-foundry/scripts/train/train.py', 'yamls/pretrain/%s.yaml'])" % (lr, base + lr, ctx.run_name.split("-")[0])))
        # local rank 0 output goes to this console
        r0 = base
        if r0 in ev:
            lines.extend([(t, l) for (t, s, l) in ev[r0]])
            lines.append((ctx.t0 + _dt.timedelta(seconds=20), flog(ctx.t0 + _dt.timedelta(seconds=20), r0, "INFO", "llmfoundry.command_utils.train", "Building trainer...")))
            lines.extend([(tt, l) for tt, s, l in warn_storm(ctx, r0, ctx.t0 + _dt.timedelta(seconds=30), R.randint(3, 40))])
        # progress (ConsoleLogger prints on global rank 0 only)
        if node == 0:
            end_p = min(ctx.t_fault, ctx.t_end) if f is not None and f.mode != "none" else ctx.t_end
            step = ctx.start_step
            while True:
                step += ctx.log_every * max(1, int(30 / (ctx.step_time * ctx.log_every)))
                tt = ctx.t0 + ctx.startup + _dt.timedelta(seconds=(step - ctx.start_step) * ctx.step_time)
                if tt > end_p or step > total_b:
                    break
                slow = 1.0
                if ctx.cause == "data_loader_stall" and ctx.jobwide and tt > ctx.t_fault - _dt.timedelta(seconds=300):
                    slow = 6.0
                thr = ctx.world * ctx.mbs / ctx.step_time / slow / (ctx.slow_factor if ctx.cause == "straggler" and step > ctx.fault_step else 1)
                lines.append((tt, "[batch=%d/%d]:\n\t Train time/batch: %d\n\t Train time/sample: %d\n\t Train time/token: %d\n\t Train loss/train/total: %.4f\n\t Train throughput/batches_per_sec: %.4f\n\t Train throughput/samples_per_sec: %.4f\n\t Train trainer/device_train_microbatch_size: %d\n\t Train lr-DecoupledAdamW/group0: %.4e" % (
                    step, total_b, step - 1, (step - 1) * ctx.world * ctx.mbs, (step - 1) * ctx.world * ctx.mbs * ctx.seq, 2.9 * (0.9997 ** step) + R.uniform(-0.05, 0.05), thr / (ctx.world * ctx.mbs), thr, ctx.mbs, 6e-4 * min(1.0, step / 2000))))
        # straggler per-rank timing callback (user callback, paraphrased)
        if ctx.cause == "straggler":
            for r in node_ranks:
                for k in range(R.randint(3, 7)):
                    st = ctx.fault_step + k * 50
                    tt = ctx.t_fault + _dt.timedelta(seconds=k * 50 * ctx.step_time * ctx.slow_factor)
                    fac = ctx.slow_factor if r == ctx.culprit else R.uniform(0.97, 1.04)
                    if r == base:
                        lines.append((tt, flog(tt, r, "INFO", "llmfoundry.callbacks.step_timer", "step=%d fwd_bwd=%.3fs wait_allreduce=%.3fs" % (st, ctx.step_time * fac * 0.8, ctx.step_time * (ctx.slow_factor - fac) * 0.8))))
                    else:
                        ev.setdefault(r, []).append((tt, "out", flog(tt, r, "INFO", "llmfoundry.callbacks.step_timer", "step=%d fwd_bwd=%.3fs wait_allreduce=%.3fs" % (st, ctx.step_time * fac * 0.8, ctx.step_time * (ctx.slow_factor - fac) * 0.8))))
        # launcher reaction
        if f is not None and f.mode not in ("none",):
            lf = local_failures(ctx, exits, node)
            if lf:
                first = lf[0]
                tt = first[0] + _dt.timedelta(seconds=0.1)
                if f.mode == "sigterm_all":
                    lines.append((ctx.t_fault, preempt_line(ctx, node)))
                    if R.random() < 0.5:
                        lines.append((ctx.t_fault + _dt.timedelta(seconds=1), "ERROR:composer.cli.launcher:Rank %d crashed with exit code -15." % first[1]))
                else:
                    lines.append((tt, "ERROR:composer.cli.launcher:Rank %d crashed with exit code %d." % (first[1], first[2])))
                for (t2, r2, ec2) in lf[1:]:
                    if t2 > tt:
                        lines.append((tt, "INFO:composer.cli.launcher:Killing global rank %d (PID %d) with SIGTERM" % (r2, ctx.pid(r2))))
                lines.append((tt, "Waiting up to 30 seconds for all training processes to terminate. Press Ctrl-C to exit immediately."))
                for (t2, r2, ec2) in lf:
                    ec_eff = ec2 if t2 <= tt else -15
                    if ec_eff in (-9, -15) or ec_eff == 0:
                        continue
                    msg = ["Global rank %d (PID %d) exited with code %d" % (r2, ctx.pid(r2), ec_eff)]
                    if r2 != base:
                        msg.append("----------Begin global rank %d STDOUT----------" % r2)
                        so = [l for (_, s, l) in ev.get(r2, []) if s == "out"][-12:]
                        msg.extend(so)
                        msg.append("----------End global rank %d STDOUT----------" % r2)
                        msg.append("----------Begin global rank %d STDERR----------" % r2)
                        se = [l for (_, s, l) in ev.get(r2, []) if s == "err"][-40:]
                        msg.extend(se)
                        msg.append("----------End global rank %d STDERR----------" % r2)
                    lines.append((tt + _dt.timedelta(seconds=1), "\n".join(msg)))
                lines.append((tt + _dt.timedelta(seconds=1.5), "ERROR:composer.cli.launcher:Global rank %d (PID %d) exited with code %d" % (lf[0][1], ctx.pid(lf[0][1]), lf[0][2])))
        elif f is None:
            lines.append((ctx.t_end, flog(ctx.t_end, base, "INFO", "composer.trainer.trainer", "Training finished.") if R.random() < 0.5 else "[batch=%d/%d]:\n\t Train time/batch: %d" % (total_b, total_b, total_b - 1)))
            lines.extend([(tt, l) for tt, s, l in teardown_warn(ctx, base, ctx.t_end + _dt.timedelta(seconds=2))])
            for lr in range(ctx.gpn):
                lines.append((ctx.t_end + _dt.timedelta(seconds=3), "INFO:composer.cli.launcher:Rank %d finished successfully." % (base + lr)))
        lines.sort(key=lambda x: x[0])
        files["node%02d-%s/launcher.log" % (node, host[ctx.agent_host_form])] = "\n".join(l for _, l in lines) + "\n"
        for r in node_ranks:
            if r == base:
                continue
            so = [l for (_, s, l) in sorted(ev[r], key=lambda x: x[0]) if s == "out"]
            se = [l for (_, s, l) in sorted(ev[r], key=lambda x: x[0]) if s == "err"]
            files["node%02d-%s/rank%d.stdout.txt" % (node, host[ctx.agent_host_form], r)] = "\n".join(so) + "\n"
            files["node%02d-%s/rank%d.stderr.txt" % (node, host[ctx.agent_host_form], r)] = "\n".join(se) + "\n"


# ----------------------------------------------------------------------------- layout: TensorRT-LLM mpirun
def render_trtllm(ctx, ev, exits, files):
    R = ctx.Rr
    f = ctx.fault
    lines = []

    def py(t, lvl, msg):
        return "[%s] [TRT-LLM] [%s] %s" % (t.astimezone(ctx.log_tz).strftime("%m/%d/%Y-%H:%M:%S"), lvl, msg)
    tag = lambda r, s: "[1,%d]<%s>:" % (r, "stdout" if s == "out" else "stderr")
    hosts_arg = ",".join("%s:%d" % (h["short"], ctx.gpn) for h in ctx.hosts)
    lines.append((ctx.t0 - _dt.timedelta(seconds=1), "+ mpirun --allow-run-as-root -np %d -H %s --tag-output -x NCCL_DEBUG=WARN python3 %s --engine_dir /engines/%s-tp%d --max_output_len 512 --tokenizer_dir /models/%s" % (ctx.world, hosts_arg, ctx.script, ctx.run_name, ctx.world, ctx.run_name.split("-")[0])))
    for r in ctx.shown:
        t = ctx.t0 + _dt.timedelta(seconds=R.uniform(3, 9))
        lines.append((t, tag(r, "out") + "[TensorRT-LLM] TensorRT-LLM version: %s" % ctx.trt_ver))
        lines.append((t + _dt.timedelta(seconds=1), tag(r, "out") + "[TensorRT-LLM][INFO] Engine version %s found in the config file, assuming engine(s) built by new builder API." % ctx.trt_ver))
        lines.append((t + _dt.timedelta(seconds=18), tag(r, "out") + "[TensorRT-LLM][INFO] Loaded engine size: %d MiB" % R.randint(8000, 40000)))
        lines.append((t + _dt.timedelta(seconds=20), tag(r, "out") + "[TensorRT-LLM][INFO] [MemUsageChange] Allocated %.2f GiB for max tokens in paged KV cache (%d)." % (R.uniform(20, 60), R.randint(100000, 900000))))
        for (tt, s, l) in ev[r]:
            if "NCCL INFO" in l and "Init COMPLETE" not in l and "Bootstrap" not in l:
                continue
            l2 = l
            lines.append((tt, tag(r, s) + l2))
    # request-level progress from rank 0
    end_p = ctx.t_fault if f is not None else ctx.t_end
    t = ctx.t0 + ctx.startup
    k = 0
    while t < end_p and k < 400:
        lines.append((t, tag(0, "out") + py(t, "I", "batch %d: %d requests, %d output tokens, latency %.1f ms" % (k, ctx.mbs * 8, ctx.mbs * 8 * 512, ctx.step_time * 1000))))
        t += _dt.timedelta(seconds=ctx.step_time * R.uniform(8, 20))
        k += 1
    if f is None:
        lines.append((ctx.t_end, tag(0, "out") + py(ctx.t_end, "I", "Benchmark done. Throughput: %.1f tokens/s" % R.uniform(2000, 30000))))
    else:
        mode = f.mode
        firstx = min(exits.items(), key=lambda kv: kv[1][0]) if exits else None
        if mode == "sigterm_all":
            if True:
                lines.append((ctx.t_fault, preempt_line(ctx, 0)))
            lines.append((ctx.t_fault + _dt.timedelta(seconds=1), "mpirun: Forwarding signal 15 to job"))
            lines.append((ctx.t_fault + _dt.timedelta(seconds=3), "--------------------------------------------------------------------------\nmpirun noticed that process rank %d with PID 0 on node %s exited on signal 15 (Terminated).\n--------------------------------------------------------------------------" % (ctx.shown[0], ctx.hosts[0]["short"])))
        else:
            # TRT-LLM collateral: peers fail inside the NCCL plugin instead of ProcessGroupNCCL
            fr = sorted(exits.items(), key=lambda kv: kv[1][0])
            fr_rank, (fr_t, fr_ec) = fr[0]
            sig = {-6: (6, "Aborted"), -9: (9, "Killed"), -11: (11, "Segmentation fault"), -7: (7, "Bus error"), -15: (15, "Terminated")}
            lines.append((fr_t + _dt.timedelta(seconds=0.5), "--------------------------------------------------------------------------\nPrimary job  terminated normally, but 1 process returned\na non-zero exit code. Per user-direction, the job has been aborted.\n--------------------------------------------------------------------------"))
            if fr_ec < 0:
                n, nm = sig.get(fr_ec, (-fr_ec, "Unknown"))
                lines.append((fr_t + _dt.timedelta(seconds=1), "--------------------------------------------------------------------------\nmpirun noticed that process rank %d with PID 0 on node %s exited on signal %d (%s).\n--------------------------------------------------------------------------" % (fr_rank, ctx.hosts[ctx.node_of(fr_rank)]["short"], n, nm)))
            else:
                lines.append((fr_t + _dt.timedelta(seconds=1), "--------------------------------------------------------------------------\nmpirun detected that one or more processes exited with non-zero status, thus causing\nthe job to be terminated. The first process to do so was:\n\n  Process name: [[%d,1],%d]\n  Exit code:    %d\n--------------------------------------------------------------------------" % (ctx.jobid % 65536, fr_rank, fr_ec)))
    lines.sort(key=lambda x: x[0])
    files["mpirun-%d.out" % ctx.jobid] = "\n".join(l for _, l in lines) + "\n"


def trt_rewrite(ctx, ev, exits):
    """TRT-LLM does not use ProcessGroupNCCL: rewrite collateral into allreducePlugin failures / TRT-LLM errors."""
    R = ctx.Rr
    f = ctx.fault
    if f is None:
        return
    new = {}
    stuck = f.mode == "stuck"
    for r, evs in ev.items():
        out = []
        done = False
        for (t, s, l) in evs:
            for a, b in (('torch/autograd/graph.py", line 823 in _engine_run_backward', 'tensorrt_llm/runtime/generation.py", line 1121 in decode'),
                         ('torch/autograd/__init__.py", line 353 in backward', 'tensorrt_llm/runtime/generation.py", line 3340 in decode_regular'),
                         ('flash_attn/flash_attn_interface.py", line 96 in _flash_attn_forward', 'tensorrt_llm/runtime/session.py", line 266 in run'),
                         ('torch/utils/data/_utils/worker.py", line 308 in _worker_loop', 'tensorrt_llm/executor/proxy.py", line 178 in dispatch_result_task'),
                         ("in train_step", "in main")):
                l = l.replace(a, b)
            if "Watchdog caught collective operation timeout" in l or "Heartbeat monitor" in l or "Received a dump signal" in l or "watchdog got stuck" in l:
                if done or stuck or r == ctx.culprit:
                    continue
                done = True
                out.append((t, "err", "Failed, NCCL error /src/tensorrt_llm/cpp/tensorrt_llm/plugins/ncclPlugin/allreducePlugin.cpp:%d 'remote process exited or there was a network error'" % ctx.trt_line))
                out.append((t, "err", "[TensorRT-LLM][ERROR] Encountered an error in forwardAsync function: [TensorRT-LLM][ERROR] Assertion failed: Failed, NCCL error 'remote process exited or there was a network error' (/src/tensorrt_llm/cpp/tensorrt_llm/plugins/ncclPlugin/allreducePlugin.cpp:%d)" % ctx.trt_line))
                continue
            if "ProcessGroupNCCL" in l or l.startswith("Exception raised from") or l.startswith("frame #") or l.startswith("terminate called") or l.startswith("  what():"):
                continue
            if "NCCL error: remote process exited" in l:
                out.append((t, "err", "Failed, NCCL error /src/tensorrt_llm/cpp/tensorrt_llm/plugins/ncclPlugin/allreducePlugin.cpp:%d 'remote process exited or there was a network error'" % ctx.trt_line))
                continue
            if l.startswith("ncclRemoteError") or l == "Last error:":
                continue
            if l.startswith("RuntimeError: CUDA error: ") or l.startswith("torch.AcceleratorError: CUDA error: "):
                txt = l.split("CUDA error: ", 1)[1]
                out.append((t, "err", "[TensorRT-LLM][ERROR] Encountered an error in forwardAsync function: [TensorRT-LLM][ERROR] CUDA runtime error in ::cudaEventSynchronize(get()): %s (/src/tensorrt_llm/cpp/include/tensorrt_llm/runtime/cudaEvent.h:66)" % txt))
                out.append((t, "err", "1       0x7f%010x tensorrt_llm::common::throwRuntimeError(char const*, int, std::string const&) + 82" % R.getrandbits(36)))
                out.append((t, "err", "2       0x7f%010x tensorrt_llm::batch_manager::TrtGptModelInflightBatching::forwardAsync(std::list<std::shared_ptr<tensorrt_llm::batch_manager::LlmRequest>, std::allocator<std::shared_ptr<tensorrt_llm::batch_manager::LlmRequest> > > const&) + 1540" % R.getrandbits(36)))
                continue
            out.append((t, s, l))
        new[r] = out
    ev.clear()
    ev.update(new)
    if stuck and ctx.culprit is not None:
        d = R.uniform(8, 90)
        td = ctx.t_fault + _dt.timedelta(seconds=d)
        if ctx.culprit in ev:
            for l in trt_cuda_err(ctx, "unspecified launch failure"):
                ev[ctx.culprit].append((td, "err", l))
        exits[ctx.culprit] = (td + _dt.timedelta(seconds=0.6), 1)
        ctx.fault.culprit_delay = d + 0.1
        for r in exits:
            if r != ctx.culprit:
                exits[r] = (td + _dt.timedelta(seconds=30), -15)
    # collateral exit codes in TRT-LLM: executor errors -> the python process exits 1 / or mpirun kills
    for r in list(exits):
        if r != ctx.culprit and exits[r][1] == -6 and f.mode in ("dead", "stuck", "unknown"):
            exits[r] = (exits[r][0], R.choice([1, -6]))


# ----------------------------------------------------------------------------- layout: accelerate / axolotl with --tee 3
def render_accel(ctx, ev, exits, files):
    R = ctx.Rr
    f = ctx.fault
    tz = ctx.log_tz
    for node in range(ctx.nnodes):
        node_ranks = [r for r in ctx.shown if ctx.node_of(r) == node]
        if not node_ranks and node not in ctx.k_nodes:
            continue
        host = ctx.hosts[node]
        base = node * ctx.gpn
        lines = []
        t = ctx.t0
        lines.append((t - _dt.timedelta(seconds=2), "+ accelerate launch --config_file deepspeed_configs/zero3_bf16.yaml --num_machines %d --num_processes %d --machine_rank %d --main_process_ip %s --main_process_port 29500 --rdzv_backend c10d --tee 3 -m axolotl.cli.train examples/%s.yml" % (ctx.nnodes, ctx.world, node, ctx.hosts[0]["ip"], ctx.run_name.split("-")[0])))
        lines.append((t, "W%s %d torch/distributed/run.py:793] " % (t.astimezone(tz).strftime("%m%d %H:%M:%S.%f"), ctx.pid(base) - 40)))
        lines.append((t, "W%s %d torch/distributed/run.py:793] *****************************************" % (t.astimezone(tz).strftime("%m%d %H:%M:%S.%f"), ctx.pid(base) - 40)))
        lines.append((t, "W%s %d torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. " % (t.astimezone(tz).strftime("%m%d %H:%M:%S.%f"), ctx.pid(base) - 40)))
        lines.append((t, "W%s %d torch/distributed/run.py:793] *****************************************" % (t.astimezone(tz).strftime("%m%d %H:%M:%S.%f"), ctx.pid(base) - 40)))

        def alog(tt, r, lvl, name, msg):
            return "[%s] [%s] [%s] [PID:%d] [RANK:%d] %s" % (ts_iso(tt.astimezone(tz)), lvl, name, ctx.pid(r), r, msg)
        for r in node_ranks:
            lr = r % ctx.gpn
            pre = "[default%d]:" % lr
            lines.append((ctx.t0 + _dt.timedelta(seconds=9), pre + alog(ctx.t0 + _dt.timedelta(seconds=9), r, "INFO", "axolotl.utils.config.models.input.check_sample_packing_w_sdpa_bf16:%d" % R.randint(700, 1200), "Loading tokenizer... %s" % ctx.run_name.split("-")[0])))
            for (tt, s, l) in (tb_prefixed(r, ev[r]) if ctx.torch_era in ("2.4", "2.5") else ev[r]):
                for sub in l.split("\n"):
                    lines.append((tt, pre + sub))
            if r == base:
                lines.extend([(tt, pre + l) for tt, s, l in warn_storm(ctx, r, ctx.t0 + _dt.timedelta(seconds=40), R.randint(2, 30))])
        # progress on rank 0 (tqdm + HF dict)
        if node == 0 and 0 in ev:
            end_p = ctx.t_fault if (f is not None and f.mode != "none") else ctx.t_end
            step = ctx.start_step
            while True:
                step += ctx.log_every * max(1, int(45 / (ctx.step_time * ctx.log_every)))
                tt = ctx.t0 + ctx.startup + _dt.timedelta(seconds=(step - ctx.start_step) * ctx.step_time * (ctx.slow_factor if ctx.cause == "straggler" and step > ctx.fault_step else 1))
                if tt > end_p or step > ctx.total_steps:
                    break
                el = (tt - ctx.t0 - ctx.startup).total_seconds()
                lines.append((tt, "[default0]:{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %.3e, 'epoch': %.2f}" % (1.9 * (0.9998 ** step) + R.uniform(-0.05, 0.05), R.uniform(0.2, 1.5), 2e-5 * min(1, step / 100.0), step / float(ctx.total_steps) * 3)))
                el = int(el + ctx.start_step * ctx.step_time)
                rem = int((ctx.total_steps - step) * ctx.step_time)
                lines.append((tt, "[default0]:%3d%%|%s| %d/%d [%d:%02d:%02d<%d:%02d:%02d, %5.2fs/it]" % (100 * step // ctx.total_steps, "\u2588" * (10 * step // ctx.total_steps) + " " * (10 - 10 * step // ctx.total_steps), step, ctx.total_steps,
                                                                                                         el // 3600, el % 3600 // 60, el % 60, rem // 3600, rem % 3600 // 60, rem % 60, ctx.step_time)))
        if ctx.cause == "straggler":
            for r in node_ranks:
                fac = ctx.slow_factor if r == ctx.culprit else R.uniform(0.97, 1.05)
                for k in range(R.randint(3, 6)):
                    tt = ctx.t_fault + _dt.timedelta(seconds=k * 120)
                    lines.append((tt, "[default%d]:" % (r % ctx.gpn) + alog(tt, r, "INFO", "axolotl.utils.callbacks.log_step_time:%d" % 88, "rank %d step %d time %.2fs (compute %.2fs, dataloader %.2fs)" % (r, ctx.fault_step + k * 20, ctx.step_time * ctx.slow_factor, ctx.step_time * fac * 0.85, 0.01))))
        if f is not None and f.mode != "none":
            lf = local_failures(ctx, exits, node)
            if lf:
                first = lf[0]
                tt = first[0] + _dt.timedelta(seconds=0.2)
                stamp = lambda x: "%s %d" % (x.astimezone(tz).strftime("%m%d %H:%M:%S.%f"), ctx.pid(base) - 40)
                if f.mode == "sigterm_all":
                    lines.append((ctx.t_fault, "W%s torch/distributed/elastic/agent/server/api.py:719] Received Signals.SIGTERM death signal, shutting down workers" % stamp(ctx.t_fault)))
                    for (t2, r2, ec2) in lf:
                        lines.append((ctx.t_fault, "W%s torch/distributed/elastic/multiprocessing/api.py:897] Sending process %d closing signal SIGTERM" % (stamp(ctx.t_fault), ctx.pid(r2))))
                    lines.append((ctx.t_fault + _dt.timedelta(seconds=2), "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % (ctx.pid(base) - 40)))
                    lines.append((ctx.t_fault - _dt.timedelta(seconds=0.5), preempt_line(ctx, node)))
                else:
                    for (t2, r2, ec2) in lf[1:]:
                        if t2 > tt:
                            lines.append((tt, "W%s torch/distributed/elastic/multiprocessing/api.py:897] Sending process %d closing signal SIGTERM" % (stamp(tt), ctx.pid(r2))))
                    lines.append((tt + _dt.timedelta(seconds=0.5), "E%s torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: %d) local_rank: %d (pid: %d) of binary: /usr/bin/python3" % (stamp(tt), first[2], first[1] % ctx.gpn, ctx.pid(first[1]))))
                    fails = [first] + [(t2 if t2 <= tt else tt + _dt.timedelta(seconds=0.3), r2, ec2 if t2 <= tt else -15) for (t2, r2, ec2) in lf[1:]]
                    fails = [x for x in fails if x[2] not in (-15,)] or [first]
                    block = child_failed_block(ctx, node, fails, "axolotl.cli.train")
                    lines.append((tt + _dt.timedelta(seconds=1), "\n".join(block)))
        elif f is None:
            for r in node_ranks:
                lines.extend([(tt, "[default%d]:" % (r % ctx.gpn) + l) for tt, s, l in teardown_warn(ctx, r, ctx.t_end + _dt.timedelta(seconds=R.uniform(1, 3)))])
            if node == 0:
                lines.append((ctx.t_end, "[default0]:{'train_runtime': %.1f, 'train_samples_per_second': %.3f, 'train_steps_per_second': %.3f, 'train_loss': %.4f, 'epoch': 3.0}" % ((ctx.t_end - ctx.t0).total_seconds(), R.uniform(5, 50), 1 / ctx.step_time, R.uniform(0.8, 1.4))))
        lines.sort(key=lambda x: x[0])
        files["console-node%d-%s.log" % (node, host[ctx.agent_host_form].split(".")[0])] = "\n".join(l for _, l in lines) + "\n"


# ----------------------------------------------------------------------------- layout: TRL GRPO + vLLM server
def render_trl(ctx, ev, exits, files):
    R = ctx.Rr
    f = ctx.fault
    tz = ctx.log_tz
    vtz = ctx.vllm_tz
    skew = _dt.timedelta(seconds=ctx.vllm_skew)
    vh = ctx.vllm_host
    vlines = []

    def vlog(t, lvl, src, msg):
        tt = (t + skew).astimezone(vtz)
        return "%s %s [%s] %s" % (lvl, tt.strftime("%m-%d %H:%M:%S"), src, msg)
    t = ctx.t0 - _dt.timedelta(seconds=R.uniform(120, 600))
    vlines.append((t, "%s@%s:/code/open-r1$ CUDA_VISIBLE_DEVICES=%s trl vllm-serve --model /models/%s --tensor_parallel_size %d --host 0.0.0.0 --port 8000" % (R.choice(["ubuntu", "root", "mlops"]), vh["short"], ",".join(str(i) for i in range(ctx.vllm_tp)), ctx.run_name, ctx.vllm_tp)))
    vlines.append((t + _dt.timedelta(seconds=5), vlog(t + _dt.timedelta(seconds=5), "INFO", "config.py:%d" % R.randint(500, 900), "This model supports multiple tasks: {'generate', 'reward', 'embed', 'classify', 'score'}. Defaulting to 'generate'.")))
    vlines.append((t + _dt.timedelta(seconds=40), vlog(t + _dt.timedelta(seconds=40), "INFO", "gpu_model_runner.py:%d" % R.randint(1000, 1900), "Model loading took %.4f GiB and %.6f seconds" % (R.uniform(14, 70), R.uniform(10, 90)))))
    vlines.append((t + _dt.timedelta(seconds=90), "INFO:     Started server process [%d]" % (ctx.vpid)))
    vlines.append((t + _dt.timedelta(seconds=90), "INFO:     Application startup complete."))
    vlines.append((t + _dt.timedelta(seconds=90), "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)"))
    tip = ctx.hosts[0]["ip"]
    vlines.append((ctx.t0 + _dt.timedelta(seconds=50), 'INFO:     %s:%d - "GET /health/ HTTP/1.1" 200 OK' % (tip, R.randint(30000, 60000))))
    vlines.append((ctx.t0 + _dt.timedelta(seconds=51), 'INFO:     %s:%d - "POST /init_communicator/ HTTP/1.1" 200 OK' % (tip, R.randint(30000, 60000))))
    # trainer ⇄ server traffic until fault
    end_p = ctx.t_fault if (f is not None and f.mode != "none") else ctx.t_end
    tt = ctx.t0 + ctx.startup
    port = R.randint(30000, 60000)
    k = 0
    while tt < end_p and k < 600:
        vlines.append((tt, 'INFO:     %s:%d - "POST /generate/ HTTP/1.1" 200 OK' % (tip, port)))
        if k % 3 == 0:
            vlines.append((tt + _dt.timedelta(seconds=1), vlog(tt + _dt.timedelta(seconds=1), "INFO", "loggers.py:%d" % 116, "Engine 000: Avg prompt throughput: %.1f tokens/s, Avg generation throughput: %.1f tokens/s, Running: %d reqs, Waiting: 0 reqs, GPU KV cache usage: %.1f%%, Prefix cache hit rate: %.1f%%" % (R.uniform(200, 3000), R.uniform(1000, 9000), R.randint(8, 256), R.uniform(5, 80), R.uniform(0, 60)))))
        for j in range(R.randint(2, 5)):
            vlines.append((tt + _dt.timedelta(seconds=ctx.step_time * 0.6), 'INFO:     %s:%d - "POST /update_named_param/ HTTP/1.1" 200 OK' % (tip, port)))
        vlines.append((tt + _dt.timedelta(seconds=ctx.step_time * 0.7), 'INFO:     %s:%d - "POST /reset_prefix_cache/ HTTP/1.1" 200 OK' % (tip, port)))
        tt += _dt.timedelta(seconds=ctx.step_time * ctx.log_every * max(1, int(40 / (ctx.step_time * ctx.log_every))))
        k += 1
    # vLLM-side fault
    if ctx.vllm_fault:
        tf = ctx.t_fault
        vp = ctx.vpid
        if ctx.cause == "cuda_oom":
            vlines.append((tf, vlog(tf, "ERROR", "core.py:%d" % R.randint(400, 900), "EngineCore encountered a fatal error.")))
            vlines.append((tf, "Traceback (most recent call last):"))
            vlines.append((tf, '  File "/usr/local/lib/python3.11/site-packages/vllm/v1/worker/gpu_model_runner.py", line 1490, in execute_model'))
            vlines.append((tf, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.12 GiB is free. Including non-PyTorch memory, this process has 78.05 GiB memory in use. Of the allocated memory 74.10 GiB is allocated by PyTorch, and 1.31 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"))
        elif ctx.cause == "crash_signal":
            vlines.append((tf, "Fatal Python error: Segmentation fault"))
            vlines.append((tf, ""))
            vlines.append((tf, "Current thread 0x%016x (most recent call first):" % (0x7f0000000000 + R.getrandbits(36))))
            vlines.append((tf, '  File "/usr/local/lib/python3.11/site-packages/vllm/v1/worker/gpu_model_runner.py", line 1402 in execute_model'))
            vlines.append((tf + _dt.timedelta(seconds=1), vlog(tf + _dt.timedelta(seconds=1), "ERROR", "core_client.py:%d" % R.randint(400, 600), "Engine core proc EngineCore_0 died unexpectedly, shutting down client.")))
        else:
            txt = "uncorrectable ECC error encountered" if ctx.cause == "ecc_memory" else "unspecified launch failure"
            vlines.append((tf, vlog(tf, "ERROR", "core.py:%d" % R.randint(400, 900), "EngineCore encountered a fatal error.")))
            vlines.append((tf, "RuntimeError: CUDA error: %s" % txt))
            vlines.append((tf, "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect."))
        vlines.append((tf + _dt.timedelta(seconds=1.5), vlog(tf + _dt.timedelta(seconds=1.5), "ERROR", "async_llm.py:%d" % R.randint(380, 720), "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.")))
        vlines.append((tf + _dt.timedelta(seconds=1.6), 'INFO:     %s:%d - "POST /generate/ HTTP/1.1" 500 Internal Server Error' % (tip, port)))
        vlines.append((tf + _dt.timedelta(seconds=3), "INFO:     Shutting down"))
        # trainer side: HTTP error on rank 0 (main process generates), others wait at broadcast -> watchdog
        ev[0] = [e for e in ev.get(0, []) if e[0] < tf]
        site = "/usr/local/lib/python3.11/site-packages"
        tb = traceback_block(ctx.script_frames + [(site + "/trl/extras/vllm_client.py", 237, "generate", 'raise Exception(f"Request failed: {response.status_code}, {response.text}")')],
                             'Exception: Request failed: 500, {"detail":"EngineCore encountered an issue. See stack trace (above) for the root cause."}')
        for l in tb:
            ev[0].append((tf + _dt.timedelta(seconds=2), "err", l))
        exits[0] = (tf + _dt.timedelta(seconds=3), 1)
        for r in ctx.shown:
            if r == 0:
                continue
            tw = tf + _dt.timedelta(seconds=600 + R.uniform(0, 3))
            ev[r] = [e for e in ev[r] if e[0] < tf]
            for l in watchdog_block(ctx, r, tw, ctx.seq_fault, op="BROADCAST"):
                ev[r].append((tw, "err", l))
            exits[r] = (tw + _dt.timedelta(seconds=R.uniform(0.2, 6)), -6)
        ctx.t_end = max(e[0] for e in exits.values())
    elif f is not None and f.mode not in ("none",) and ctx.culprit is not None:
        vlines.append((ctx.t_fault + _dt.timedelta(seconds=R.uniform(1, 20)), vlog(ctx.t_fault, "WARNING", "pynccl.py:%d" % R.randint(100, 300), "update_named_param: NCCL broadcast from trainer did not complete; waiting")))
    if f is not None and f.mode == "sigterm_all":
        vlines.append((ctx.t_fault + _dt.timedelta(seconds=1), "INFO:     Shutting down"))
        vlines.append((ctx.t_fault + _dt.timedelta(seconds=1), "INFO:     Finished server process [%d]" % ctx.vpid))
    if f is None:
        vlines.append((ctx.t_end + _dt.timedelta(seconds=2), 'INFO:     %s:%d - "POST /close_communicator/ HTTP/1.1" 200 OK' % (tip, port)))
    vlines.sort(key=lambda x: x[0])
    files["vllm-server-%s.log" % vh[ctx.agent_host_form].split(".")[0]] = "\n".join(l for _, l in vlines) + "\n"
    apply_kills(ctx, ev, exits)
    # trainer console(s): accelerate launch, one console per node, rank-prefixed tracebacks
    for node in range(ctx.nnodes):
        node_ranks = [r for r in ctx.shown if ctx.node_of(r) == node]
        if not node_ranks and node not in ctx.k_nodes:
            continue
        host = ctx.hosts[node]
        lines = []
        lines.append((ctx.t0 - _dt.timedelta(seconds=1), "+ accelerate launch --config_file recipes/accelerate_configs/zero2.yaml --num_machines %d --machine_rank %d --num_processes %d src/open_r1/grpo.py --config recipes/%s/grpo/config_demo.yaml --vllm_mode server --vllm_server_host %s" % (ctx.nnodes, node, ctx.world, ctx.run_name, vh["ip"])))

        def tlog(tt, name, msg, lvl="INFO"):
            return "%s - %s - %s - %s" % (tt.astimezone(tz).strftime("%Y-%m-%d %H:%M:%S"), lvl, name, msg)
        for r in node_ranks:
            lines.append((ctx.t0 + _dt.timedelta(seconds=30), tlog(ctx.t0 + _dt.timedelta(seconds=30), "__main__", "Process rank: %d, device: cuda:%d, n_gpu: 1 distributed training: True, 16-bits training: False" % (r, r % ctx.gpn))))
            for (tt, s, l) in tb_prefixed(r, ev.get(r, [])):
                lines.append((tt, l))
        if node == 0:
            lines.append((ctx.t0 + _dt.timedelta(seconds=50), tlog(ctx.t0 + _dt.timedelta(seconds=50), "trl.extras.vllm_client", "Server is not up yet. Retrying in 2.0 seconds...")) if R.random() < 0.4 else (ctx.t0, ""))
            step = ctx.start_step
            while True:
                step += ctx.log_every * max(1, int(40 / (ctx.step_time * ctx.log_every)))
                tt = ctx.t0 + ctx.startup + _dt.timedelta(seconds=(step - ctx.start_step) * ctx.step_time * (ctx.slow_factor if ctx.cause == "straggler" and step > ctx.fault_step else 1))
                if tt > end_p or step > ctx.total_steps:
                    break
                lines.append((tt, "{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %.3e, 'num_tokens': %.1f, 'completions/mean_length': %.2f, 'completions/clipped_ratio': %.3f, 'rewards/accuracy_reward/mean': %.4f, 'reward': %.4f, 'reward_std': %.4f, 'kl': %.6f, 'epoch': %.2f}" % (
                    R.uniform(-0.02, 0.05), R.uniform(0.05, 0.9), 1e-6, step * 4096.0 * ctx.world, R.uniform(200, 1500), R.uniform(0, 0.2), R.uniform(0.1, 0.8), R.uniform(0.1, 1.8), R.uniform(0.1, 0.6), R.uniform(0, 0.01), step / float(ctx.total_steps))))
            lines.extend([(tt, l) for tt, s, l in warn_storm(ctx, 0, ctx.t0 + _dt.timedelta(seconds=60), R.randint(2, 25))])
        if ctx.cause == "straggler":
            for r in node_ranks:
                fac = ctx.slow_factor if r == ctx.culprit else R.uniform(0.96, 1.05)
                for k in range(R.randint(3, 6)):
                    tt = ctx.t_fault + _dt.timedelta(seconds=k * 150)
                    lines.append((tt, tlog(tt, "open_r1.utils.callbacks", "[rank %d] step %d train_step %.2fs (forward+backward %.2fs, waiting in allreduce %.2fs)" % (r, ctx.fault_step + k * 10, ctx.step_time * ctx.slow_factor, ctx.step_time * fac * 0.8, ctx.step_time * (ctx.slow_factor - fac * 0.8)))))
        if f is not None and f.mode != "none":
            lf = local_failures(ctx, exits, node)
            if lf:
                first = lf[0]
                tt = first[0] + _dt.timedelta(seconds=0.2)
                stamp = lambda x: "%s %d" % (x.astimezone(tz).strftime("%m%d %H:%M:%S.%f"), ctx.pid(node * ctx.gpn) - 40)
                if f.mode == "sigterm_all":
                    lines.append((ctx.t_fault, "W%s torch/distributed/elastic/agent/server/api.py:719] Received Signals.SIGTERM death signal, shutting down workers" % stamp(ctx.t_fault)))
                    lines.append((ctx.t_fault + _dt.timedelta(seconds=2), "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % (ctx.pid(node * ctx.gpn) - 40)))
                    if node == 0:
                        lines.append((ctx.t_fault - _dt.timedelta(seconds=1), preempt_line(ctx, node)))
                else:
                    for (t2, r2, ec2) in lf[1:]:
                        if t2 > tt:
                            lines.append((tt, "W%s torch/distributed/elastic/multiprocessing/api.py:897] Sending process %d closing signal SIGTERM" % (stamp(tt), ctx.pid(r2))))
                    lines.append((tt + _dt.timedelta(seconds=0.5), "E%s torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: %d) local_rank: %d (pid: %d) of binary: /usr/bin/python3" % (stamp(tt), first[2], first[1] % ctx.gpn, ctx.pid(first[1]))))
                    fails = [first] + [(t2, r2, ec2) for (t2, r2, ec2) in lf[1:] if t2 <= tt]
                    lines.append((tt + _dt.timedelta(seconds=1), "\n".join(child_failed_block(ctx, node, fails, "src/open_r1/grpo.py"))))
        elif f is None:
            for r in node_ranks:
                lines.extend(teardown_warn(ctx, r, ctx.t_end + _dt.timedelta(seconds=2)) and [(tt, l) for tt, s, l in teardown_warn(ctx, r, ctx.t_end + _dt.timedelta(seconds=2))])
        lines = [x for x in lines if x[1] != ""]
        lines.sort(key=lambda x: x[0])
        files["trainer/%s.console.log" % (host["pod"] or host[ctx.agent_host_form].split(".")[0])] = "\n".join(l for _, l in lines) + "\n"


# ----------------------------------------------------------------------------- layout: Colossal-AI
def render_colossal(ctx, ev, exits, files):
    R = ctx.Rr
    f = ctx.fault
    tz = ctx.log_tz
    lines = []
    lines.append((ctx.t0 - _dt.timedelta(seconds=3), "$ colossalai run --nproc_per_node %d --hostfile ./hostfile --master_addr %s --master_port 29500 train.py --pretrained /models/%s --plugin %s --batch_size %d --max_length %d" % (
        ctx.gpn, ctx.hosts[0]["short"], ctx.run_name, R.choice(["gemini", "zero2", "3d", "gemini_auto"]), ctx.mbs, ctx.seq)))
    ts = lambda t: "[%s]" % t.astimezone(tz).strftime("%m/%d/%y %H:%M:%S")
    for node in range(ctx.nnodes):
        t = ctx.t0 + _dt.timedelta(seconds=R.uniform(0.1, 2))
        lines.append((t, "W%s %d torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. " % (t.astimezone(tz).strftime("%m%d %H:%M:%S.%f"), ctx.pid(node * ctx.gpn) - 40)))
    if 0 in ev:
        t = ctx.t0 + _dt.timedelta(seconds=25)
        lines.append((t, "%s INFO     colossalai - colossalai - INFO:" % ts(t)))
        lines.append((t, "                    /usr/local/lib/python3.11/site-packages/colossalai/initialize.py:75 launch"))
        lines.append((t, "                    INFO     colossalai - colossalai - INFO: Distributed environment is initialized, world size: %d" % ctx.world))
    for r in ctx.shown:
        for (tt, s, l) in tb_prefixed(r, ev[r]):
            lines.append((tt, l))
    end_p = ctx.t_fault if (f is not None and f.mode != "none") else ctx.t_end
    step = ctx.start_step
    steps_per_epoch = max(100, ctx.total_steps // 3)
    while 0 in ev:
        step += ctx.log_every * max(1, int(50 / (ctx.step_time * ctx.log_every)))
        tt = ctx.t0 + ctx.startup + _dt.timedelta(seconds=(step - ctx.start_step) * ctx.step_time * (ctx.slow_factor if ctx.cause == "straggler" and step > ctx.fault_step else 1))
        if tt > end_p or step > ctx.total_steps:
            break
        ep, sp = divmod(step, steps_per_epoch)
        lines.append((tt, "Epoch %d/3 Step: %d/%d | loss=%.4f lr=%.2e | %.2f s/it" % (ep, sp, steps_per_epoch, 2.2 * (0.9997 ** step) + R.uniform(-0.04, 0.04), 3e-5, ctx.step_time)))
    lines.extend([(tt, l) for tt, s, l in warn_storm(ctx, 0, ctx.t0 + _dt.timedelta(seconds=35), R.randint(2, 50))])
    if ctx.cause == "straggler":
        for r in ctx.shown:
            fac = ctx.slow_factor if r == ctx.culprit else R.uniform(0.97, 1.04)
            for k in range(R.randint(2, 4)):
                tt = ctx.t_fault + _dt.timedelta(seconds=k * 200 + R.uniform(0, 2))
                lines.append((tt, "%s INFO     colossalai - colossalai - INFO: [rank %d] step time %.2fs (fwd+bwd %.2fs, comm wait %.2fs), tflops %.1f" % (ts(tt), r, ctx.step_time * ctx.slow_factor, ctx.step_time * fac * 0.8, ctx.step_time * (ctx.slow_factor - fac * 0.8), 420.0 / fac)))
    if f is not None and f.mode != "none":
        for node in range(ctx.nnodes):
            lf = local_failures(ctx, exits, node)
            if not lf:
                continue
            first = lf[0]
            tt = first[0] + _dt.timedelta(seconds=0.2)
            stamp = lambda x: "%s %d" % (x.astimezone(tz).strftime("%m%d %H:%M:%S.%f"), ctx.pid(node * ctx.gpn) - 40)
            if f.mode == "sigterm_all":
                lines.append((ctx.t_fault, "W%s torch/distributed/elastic/agent/server/api.py:719] Received Signals.SIGTERM death signal, shutting down workers" % stamp(ctx.t_fault)))
                continue
            for (t2, r2, ec2) in lf[1:]:
                if t2 > tt:
                    lines.append((tt, "W%s torch/distributed/elastic/multiprocessing/api.py:897] Sending process %d closing signal SIGTERM" % (stamp(tt), ctx.pid(r2))))
            lines.append((tt + _dt.timedelta(seconds=0.5), "E%s torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: %d) local_rank: %d (pid: %d) of binary: /usr/bin/python" % (stamp(tt), first[2], first[1] % ctx.gpn, ctx.pid(first[1]))))
            fails = [first] + [(t2, r2, ec2) for (t2, r2, ec2) in lf[1:] if t2 <= tt]
            lines.append((tt + _dt.timedelta(seconds=1), "\n".join(child_failed_block(ctx, node, fails, "train.py"))))
            h = ctx.hosts[node]
            lines.append((tt + _dt.timedelta(seconds=1.5), "Error: failed to run torchrun --nproc_per_node=%d --nnodes=%d --node_rank=%d --master_addr=%s --master_port=29500 train.py --pretrained /models/%s on %s, is localhost: %s, exception: Encountered a bad command exit code!" % (
                ctx.gpn, ctx.nnodes, node, ctx.hosts[0]["short"], ctx.run_name, h["short"], "True" if node == 0 else "False")))
            lines.append((tt + _dt.timedelta(seconds=1.5), ""))
            lines.append((tt + _dt.timedelta(seconds=1.5), "Command: 'cd /workspace/ColossalAI/applications/Colossal-LLaMA && export NCCL_IB_HCA=\"mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1\" NCCL_SOCKET_IFNAME=\"bond0\" CUDA_DEVICE_MAX_CONNECTIONS=\"1\" && torchrun --nproc_per_node=%d --nnodes=%d --node_rank=%d --master_addr=%s --master_port=29500 train.py'" % (ctx.gpn, ctx.nnodes, node, ctx.hosts[0]["short"])))
            lines.append((tt + _dt.timedelta(seconds=1.5), ""))
            lines.append((tt + _dt.timedelta(seconds=1.5), "Exit code: 1"))
        if f.mode == "sigterm_all":
            lines.append((ctx.t_fault - _dt.timedelta(seconds=0.5), preempt_line(ctx, 0)))
    elif f is None:
        for r in ctx.shown[:4]:
            lines.extend([(tt, l) for tt, s, l in teardown_warn(ctx, r, ctx.t_end + _dt.timedelta(seconds=2))])
        lines.append((ctx.t_end, "%s INFO     colossalai - colossalai - INFO: Training finished. Saving final model to ./output/%s" % (ts(ctx.t_end), ctx.run_name)))
    lines.sort(key=lambda x: x[0])
    files["colossalai_run.log"] = "\n".join(l for _, l in lines) + "\n"
    files["hostfile"] = "\n".join(h["short"] for h in ctx.hosts) + "\n"


# ----------------------------------------------------------------------------- run assembly
def extra_evidence(ctx, files):
    """DCGM snapshot for stragglers; FR trace summary for hang/mismatch sometimes; sacct for preemption."""
    R = ctx.Rr
    c = ctx.cause
    if c == "straggler":
        r = ctx.culprit
        ni = ctx.node_of(r)
        lr = r % ctx.gpn
        lines = ["# dcgm-exporter scrape %s %s" % (ctx.hosts[ni]["short"], (ctx.t_fault + _dt.timedelta(seconds=300)).strftime("%Y-%m-%dT%H:%M:%SZ"))]
        for g in range(ctx.gpn):
            slow = g == lr
            reason = (64 if ctx.straggle_kind == "thermal" else 8) if slow else 0
            lab = 'gpu="%d",UUID="%s",pci_bus_id="00000000:%s:00.0",device="nvidia%d",modelName="NVIDIA H100 80GB HBM3",Hostname="%s"' % (g, ctx.uuids[g], ctx.pci[g].upper(), g, ctx.hosts[ni]["short"])
            lines.append("DCGM_FI_DEV_GPU_TEMP{%s} %d" % (lab, R.randint(88, 93) if slow and ctx.straggle_kind == "thermal" else R.randint(52, 68)))
            lines.append("DCGM_FI_DEV_SM_CLOCK{%s} %d" % (lab, R.randint(900, 1200) if slow else R.randint(1755, 1980)))
            lines.append("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS{%s} %d" % (lab, reason))
            lines.append("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{%s} %.3f" % (lab, R.uniform(0.2, 0.3) if slow else R.uniform(0.55, 0.7)))
        files["metrics/dcgm-%s.prom" % ctx.hosts[ni]["short"]] = "\n".join(lines) + "\n"
    if c == "hang" and ctx.layout != "trtllm_mpirun" and R.random() < 0.6:
        r = ctx.culprit
        files["fr_trace_analysis.txt"] = "\n".join([
            "$ torchfrtrace /tmp/nccl_trace_rank_ -j",
            "Not all ranks joining collective %d at entry %d" % (ctx.seq_fault, ctx.seq_fault - 1),
            "internal record id: %d" % (ctx.seq_fault - 1),
            "group info: 0:default_pg",
            "collective: nccl:all_reduce",
            "missing ranks: {%d}" % r,
            "input sizes: [[%d]]" % ctx.numel,
            "output sizes: [[%d]]" % ctx.numel,
            "world size: %d" % ctx.world,
            "expected ranks: {%s}" % (", ".join(str(i) for i in range(min(ctx.world, 16))) + (", ..." if ctx.world > 16 else "")),
            "collective state: scheduled",
            "collective stack trace:",
            "  all_reduce at /usr/local/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py:2806",
        ]) + "\n"
    if c == "hang" and "fr_trace_analysis.txt" not in files and ctx.layout != "trtllm_mpirun" and R.random() < 0.7:
        r = ctx.culprit
        ni = ctx.node_of(r)
        files["py-spy-%s-rank%d.txt" % (ctx.hosts[ni]["short"], r)] = "\n".join([
            "Process %d: /usr/bin/python3 -u %s" % (ctx.pid(r), ctx.script),
            "Python v3.11.9 (/usr/bin/python3.11)",
            "",
            "Thread %d (idle): \"MainThread\"" % ctx.pid(r),
            "    wait (threading.py:327)",
            "    get (queue.py:171)",
            "    _save_async_checkpoint (%s:%d)" % (ctx.script, R.randint(200, 500)),
            "    train_step (%s:%d)" % (ctx.script, R.randint(200, 500)),
            "Thread %d (idle): \"pt_checkpoint_writer\"" % (ctx.pid(r) + 37),
            "    acquire (filelock/_api.py:331)",
        ]) + "\n"
    if c == "preemption" and ctx.preempt_kind != "spot" and R.random() < 0.6:
        files["sacct-%d.txt" % ctx.jobid] = "\n".join([
            "JobID           JobName      State ExitCode               Start                 End   NodeList",
            "------------ ---------- ---------- -------- ------------------- ------------------- ----------",
            "%-12d %10s %10s %8s %19s %19s %s" % (ctx.jobid, ctx.run_name[:10], "PREEMPTED" if ctx.preempt_kind == "slurm_preempt" else ("TIMEOUT" if ctx.preempt_kind == "slurm_timelimit" else "CANCELLED+"), "0:15",
                                                  ctx.t0.strftime("%Y-%m-%dT%H:%M:%S"), ctx.t_fault.strftime("%Y-%m-%dT%H:%M:%S"), ctx.hosts[0]["short"] + ("" if ctx.nnodes == 1 else ",..."))]) + "\n"


def apply_kills(ctx, ev, exits):
    """Launcher teardown: once a local worker fails, torchrun/composer SIGTERM the node's other workers;
    mpirun tears the whole job down after the first non-zero exit. Later output of killed ranks is dropped."""
    f = ctx.fault
    if f is None or f.mode in ("none", "sigterm_all", "config_all"):
        return
    R = ctx.Rr
    if ctx.layout == "trtllm_mpirun":
        groups = [list(range(ctx.nnodes))]
    else:
        groups = [[n] for n in range(ctx.nnodes)]
    for g in groups:
        firsts = []
        for n in g:
            lf = local_failures(ctx, exits, n)
            if lf:
                firsts.append(lf[0])
        if not firsts:
            continue
        t_first, r_first, _ = min(firsts)
        t_kill = t_first + _dt.timedelta(seconds=0.3 if ctx.layout != "trtllm_mpirun" else 1.0)
        for r in list(exits):
            if ctx.node_of(r) not in g or r == r_first:
                continue
            if exits[r][0] > t_kill:
                ev[r] = [e for e in ev.get(r, []) if e[0] <= t_kill]
                exits[r] = (t_kill + _dt.timedelta(seconds=R.uniform(0.05, 2)), -15)
    ctx.t_end = max([e[0] for e in exits.values()] + [ctx.t_fault])


def make_run(seed, idx, layout, cause, outdir):
    ctx = build_ctx(seed, idx, layout, cause)
    R = ctx.Rr
    if layout == "trl_grpo_vllm":
        ctx.vllm_tp = R.choice([1, 2, 4, 8])
        ctx.vllm_tz = tz_of(R.choice([-7, -8, 1, 8, 9]))
        ctx.vllm_skew = R.uniform(-40, 40)
        vidx = ctx.nnodes  # vLLM on its own host
        extra = make_hosts(random.Random("v-%d-%d" % (seed, idx)), 1, layout)[0]
        extra["short"] = "vllm-" + extra["short"][:20] if not extra["short"].startswith("ip-") else extra["short"]
        extra["fqdn"] = extra["short"] + ".svc.cluster.local"
        ctx.vllm_host = extra
        ctx.vpid = R.randint(1000, 90000)
    ev, exits = rank_events(ctx)
    if layout == "trtllm_mpirun":
        trt_rewrite(ctx, ev, exits)
    if layout != "trl_grpo_vllm":
        apply_kills(ctx, ev, exits)
    # which nodes get kernel logs: culprit node + a few
    knodes = {0}
    if ctx.culprit is not None:
        knodes.add(ctx.node_of(ctx.culprit))
    for _ in range(R.randint(0, 3)):
        knodes.add(R.randrange(ctx.nnodes))
    if ctx.fault is not None and ctx.fault.mode == "fs_stall":
        knodes |= set(range(min(ctx.nnodes, 4)))
    ctx.k_nodes = knodes
    files = {}
    if layout == "composer":
        render_composer(ctx, ev, exits, files)
    elif layout == "trtllm_mpirun":
        render_trtllm(ctx, ev, exits, files)
    elif layout == "accelerate_tee":
        render_accel(ctx, ev, exits, files)
    elif layout == "trl_grpo_vllm":
        render_trl(ctx, ev, exits, files)
    else:
        render_colossal(ctx, ev, exits, files)
    klogs = kernel_logs(ctx)
    kname = {"dmesg": "dmesg", "dmesg_T": "dmesg-T", "syslog": "kern.log", "journal": "journal-k", "journal_iso": "journal-k"}[ctx.kfmt]
    for ni in sorted(knodes):
        files["node-logs/%s.%s.txt" % (ctx.hosts[ni][ctx.khost_form], kname)] = klogs[ni]
    if layout == "trl_grpo_vllm":
        # vLLM host kernel log (its own clock/format)
        vk = []
        vb = ctx.t0 - _dt.timedelta(days=3.3)
        vk.append("[%12.6f] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.127.05  Release Build  (dvs-builder@U16-I3-B07-2-1)" % 5.1)
        if ctx.vllm_fault and ctx.cause in ("gpu_hardware", "ecc_memory"):
            up = (ctx.t_fault - vb).total_seconds()
            if ctx.cause == "gpu_hardware":
                vk.append("[%12.6f] %s" % (up, xid_line("18", 79, "GPU has fallen off the bus.")))
                vk.append("[%12.6f] NVRM: GPU 0000:18:00.0: GPU has fallen off the bus." % up)
            else:
                vk.append("[%12.6f] %s" % (up, xid_line("18", 48, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at physAddr 0x3a1f20c0 partition 5, subpartition 1.", ctx.vpid + 12, "VLLM::Worker")))
                vk.append("[%12.6f] %s" % (up + 0.05, xid_line("18", 63, "Row Remapper: New row (0x000000003a1f20c0) marked for remapping, reset gpu to activate.", ctx.vpid + 12, "VLLM::Worker")))
        if ctx.vllm_fault and ctx.cause == "crash_signal":
            up = (ctx.t_fault - vb).total_seconds()
            vk.append("[%12.6f] VLLM::EngineCor[%d]: segfault at 0 ip 00007f%08x sp 00007ff%07x error 4 in libcuda.so.550.127.05[7f%08x+%x] likely on CPU 12 (core 6, socket 0)" % (up, ctx.vpid + 3, R.getrandbits(32), R.getrandbits(28), R.getrandbits(32), R.getrandbits(24)))
        files["node-logs/%s.vllm-host.dmesg.txt" % ctx.vllm_host["short"]] = "\n".join(vk) + "\n"
    extra_evidence(ctx, files)
    # ---------------- truth
    cause_ = cause
    healthy = cause is None
    rank = ctx.culprit
    node = None
    aliases = []
    node_key = None
    if cause is not None and not ctx.jobwide and cause not in ("preemption", "unknown"):
        if ctx.vllm_fault:
            h = ctx.vllm_host
            node = h["short"]
            aliases = [h["fqdn"], h["ip"]]
            rank = None
        elif rank is not None:
            h = ctx.hosts[ctx.node_of(rank)]
            # the spelling used by the kernel log (primary evidence) for hw causes, else the rank-log/NCCL spelling
            node_key = ctx.khost_form if cause in ("gpu_hardware", "ecc_memory", "nvlink", "host_oom_kill", "network") else ctx.agent_host_form
            if layout in ("trtllm_mpirun", "colossalai") and node_key == "fqdn" and cause not in DRAIN_CAUSES:
                node_key = "short"
            node = h[node_key]
            aliases = [h[k] for k in ("short", "fqdn", "ip") if h[k] != node] + ([h["pod"]] if h.get("pod") else [])
    if node is not None:
        h = ctx.vllm_host if ctx.vllm_fault else ctx.hosts[ctx.node_of(ctx.culprit)]
        body = "\n".join(files.values())
        names = "\n".join(files.keys())
        forms = [node] + [h[k] for k in ("short", "fqdn", "ip")]
        pick = next((x for x in forms if x in body), None) or next((x for x in forms if x in names), node)
        node = pick
        aliases = [h[k] for k in ("short", "fqdn", "ip") if h[k] != node] + ([h["pod"]] if h.get("pod") else [])
    drain = bool(cause in DRAIN_CAUSES and node is not None)
    rank_inf = rank is not None
    if cause is not None and ctx.fault is not None and not ctx.fault.rank_visible:
        rank_inf = False
    if cause == "gpu_hardware" and ctx.fault is not None and not ctx.fault.rank_visible:
        rank_inf = False
    if cause == "unknown" or cause == "preemption" or ctx.jobwide or healthy:
        rank = None if not healthy else None
        rank_inf = False
    if ctx.vllm_fault:
        rank_inf = False
    if cause == "hang" and not any(k.startswith(("fr_trace", "py-spy")) for k in files):
        rank_inf = False  # only "which rank did not time out" is left, and launcher teardown blurs that
    dec = list(getattr(ctx, "decoys_k", []))
    if ctx.fault is not None and ctx.fault.mode in ("dead", "stuck"):
        dec.append("launcher Root Cause may name a collateral SIGABRT rank")
    notes = "world=%d (%d nodes x %d), layout=%s, torch~%s, NCCL %s, kernel log format %s; injected %s%s; decoys: %s" % (
        ctx.world, ctx.nnodes, ctx.gpn, layout, ctx.torch_era, ctx.nccl_ver, ctx.kfmt,
        cause or "nothing (healthy)", (" [" + "; ".join(ctx.fault.notes) + "]") if ctx.fault is not None and ctx.fault.notes else "",
        ", ".join(dec) or "none")
    if ctx.vllm_fault:
        notes += "; fault on the separate vLLM server host (no trainer rank), vLLM clock skew %.1fs, tz differs" % ctx.vllm_skew
    if ctx.world > 16:
        notes += "; shown ranks %d of %d" % (len(ctx.shown), ctx.world)
    truth = {"cause": cause_, "healthy": healthy, "rank": rank if not healthy else None, "node": node, "drain": drain,
             "rank_inferable": bool(rank_inf), "node_aliases": aliases, "layout": layout, "notes": notes}
    files["truth.json"] = json.dumps(truth, indent=2, sort_keys=False) + "\n"
    # size cap
    total = sum(len(v.encode()) for v in files.values())
    if total > MAX_BYTES:
        for k in sorted(files, key=lambda k: -len(files[k])):
            if k == "truth.json":
                continue
            over = sum(len(v.encode()) for v in files.values()) - MAX_BYTES
            if over <= 0:
                break
            v = files[k]
            lines = v.split("\n")
            keep_head = lines[:200]
            keep_tail = lines[-max(200, len(lines) // 4):]
            nv = "\n".join(keep_head + ["[... %d lines elided by the person who attached this log ...]" % (len(lines) - len(keep_head) - len(keep_tail))] + keep_tail)
            files[k] = nv
    if ctx.torch_era == "2.3":
        # torchrun agent lines of that era: "[2024-05-01 10:00:00,123] torch.distributed.elastic.multiprocessing.api: [WARNING] ..."
        lv = {"W": "WARNING", "E": "ERROR", "I": "INFO"}
        for k in list(files):
            if k == "truth.json":
                continue
            out = []
            for line in files[k].split("\n"):
                m = _AGENT_RE.match(line)
                if m:
                    L, md, hms, frac, _pid, path, msg = m.groups()
                    mod = path[:-3].replace("/", ".")
                    line = "[%d-%s-%s %s,%s] %s: [%s] %s" % (ctx.t0.year, md[:2], md[2:], hms, frac[:3], mod, lv[L], msg)
                out.append(line)
            files[k] = "\n".join(out)
    rdir = os.path.join(outdir, "run-%03d-%s" % (idx, layout))
    for k in sorted(files):
        p = os.path.join(rdir, k)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(files[k])
    return truth


def plan(seed, n):
    R = random.Random("blind14-plan-%d" % seed)
    order = CAUSES[:]
    R.shuffle(order)
    counts = {l: 0 for l in LAYOUT_ORDER}
    hcounts = {l: 0 for l in LAYOUT_ORDER}
    out = []
    k = 0
    for i in range(n):
        healthy = (i % 7 == 6)
        if healthy:
            cause = None
            cands = LAYOUT_ORDER
        else:
            cause = order[k % len(order)]
            k += 1
            if k % len(order) == 0:
                R.shuffle(order)
            cands = [l for l in LAYOUT_ORDER if cause in LAYOUTS[l]]
        if healthy:
            m = min((hcounts[l], counts[l]) for l in cands)
            best = [l for l in cands if (hcounts[l], counts[l]) == m]
        else:
            m = min(counts[l] for l in cands)
            best = [l for l in cands if counts[l] == m]
        lay = R.choice(best)
        counts[lay] += 1
        if healthy:
            hcounts[lay] += 1
        out.append((lay, cause))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for i, (lay, cause) in enumerate(plan(a.seed, a.n)):
        make_run(a.seed, i, lay, cause, a.out)


if __name__ == "__main__":
    main()
