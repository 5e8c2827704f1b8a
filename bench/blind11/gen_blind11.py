#!/usr/bin/env python3
"""gen_blind11: synthetic distributed-GPU-training failure logs (blind set 11).

Layouts: clush_slurm, wandb_kernel, rotated_console, hyperpod_resume, bug_report.
Python 3.11 standard library only.  Same --seed/--n -> identical bytes.
"""
import argparse
import datetime as dt
import gzip
import io
import json
import os
import random

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill",
          "crash_signal", "preemption", "hang", "data_loader_stall",
          "collective_mismatch", "straggler", "unknown"]
LAYOUTS = ["clush_slurm", "wandb_kernel", "rotated_console", "hyperpod_resume", "bug_report"]
DRAIN_CAUSES = {"gpu_hardware", "ecc_memory", "nvlink", "network"}
UTC = dt.timezone.utc
MAX_RUN_BYTES = 1_000_000

PCI8 = {
    "H100": ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"],
    "A100": ["07", "0f", "47", "4e", "87", "90", "b7", "bd"],
    "H200": ["19", "3b", "4c", "5d", "9b", "bb", "cb", "db"],
}
GPU_NAME = {"H100": "NVIDIA H100 80GB HBM3", "A100": "NVIDIA A100-SXM4-80GB", "H200": "NVIDIA H200"}
GPU_MEM = {"H100": "79.11 GiB", "A100": "79.15 GiB", "H200": "139.81 GiB"}
TZS = [("UTC", 0), ("EST", -5 * 60), ("PST", -8 * 60), ("CET", 60), ("CST", 8 * 60),
       ("JST", 9 * 60), ("IST", 330), ("EDT", -4 * 60)]


class Host:
    def __init__(self, short, fqdn, ip, pod=None):
        self.short, self.fqdn, self.ip, self.pod = short, fqdn, ip, pod


def hexid(rng, n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def uuid(rng):
    return "GPU-%s-%s-%s-%s-%s" % (hexid(rng, 8), hexid(rng, 4), hexid(rng, 4), hexid(rng, 4), hexid(rng, 12))


# ---------------------------------------------------------------- time helpers
def glog_ts(t, lvl, nanos=True):
    # [E1218 20:27:21.426415540 ...]  (local time of the host)
    frac = "%06d" % t.microsecond + ("%03d" % ((t.microsecond * 7) % 1000) if nanos else "")
    return "%s%02d%02d %s.%s" % (lvl, t.month, t.day, t.strftime("%H:%M:%S"), frac)


def kline(fmt, host, boot, t, msg):
    if fmt == "raw":
        up = t - boot
        s = int(up.total_seconds())
        return "[%5d.%06d] %s" % (s, up.microseconds, msg)
    if fmt == "T":
        return "[%s %s %2d %s %d] %s" % (t.strftime("%a"), t.strftime("%b"), t.day, t.strftime("%H:%M:%S"), t.year, msg)
    if fmt == "syslog":
        return "%s %2d %s %s kernel: %s" % (t.strftime("%b"), t.day, t.strftime("%H:%M:%S"), host, msg)
    if fmt == "journal":
        return "%s %02d %s %s kernel: %s" % (t.strftime("%b"), t.day, t.strftime("%H:%M:%S"), host, msg)
    if fmt == "iso":
        return "%s %s kernel: %s" % (t.isoformat(timespec="microseconds"), host, msg)
    raise ValueError(fmt)


# ---------------------------------------------------------------- job model
class Job:
    pass


def pick_world(rng, layout):
    if layout == "clush_slurm":
        gpn = rng.choice([8, 8, 8, 4])
        nn = rng.choice([2, 4, 6, 8, 12, 16, 16, 24, 32, 48, 64])
    elif layout == "wandb_kernel":
        gpn = rng.choice([8, 8, 4, 2])
        nn = rng.choice([1, 2, 4, 8, 16, 32])
    elif layout == "rotated_console":
        gpn = rng.choice([8, 4, 2, 8])
        nn = rng.choice([1, 1, 2, 4])
    elif layout == "hyperpod_resume":
        gpn = 8
        nn = rng.choice([2, 4, 8, 16, 32])
    else:
        gpn = rng.choice([8, 4, 2, 8])
        nn = rng.choice([1, 1, 2, 4, 8])
    if nn * gpn < 2:
        nn = 2
    return gpn, nn


def make_hosts(rng, layout, nn):
    if layout == "clush_slurm":
        stem = rng.choice(["gpu-", "node", "hgx", "dgx"])
        width = 2 if stem == "gpu-" else 3
        off = rng.choice([0, 0, 16, 32, 100]) if nn <= 64 else 0
        dom = rng.choice(["cluster.local", "hpc.example.org", "cm.cluster"])
        sub = rng.randint(10, 40)
        hs = []
        for i in range(nn):
            s = "%s%0*d" % (stem, width, off + i + 1)
            hs.append(Host(s, s + "." + dom, "10.%d.%d.%d" % (sub, (off + i) // 200, 11 + (off + i) % 200)))
        return hs, stem, width, off
    if layout == "hyperpod_resume":
        pc = rng.random() < 0.4
        hs = []
        used = set()
        for i in range(nn + 2):
            while True:
                a, b = rng.randint(0, 255), rng.randint(2, 254)
                if (a, b) not in used:
                    used.add((a, b))
                    break
            ip = "10.1.%d.%d" % (a, b)
            if pc:
                s = "queue1-st-p548xlarge-%d" % (i + 1)
                hs.append(Host(s, s + ".train-cluster.pcluster", ip))
            else:
                s = "ip-10-1-%d-%d" % (a, b)
                hs.append(Host(s, s + ".ec2.internal", ip))
        return hs, "pc" if pc else "hp", 0, 0
    stem = rng.choice(["node", "cn", "gn", "worker-", "gpu"])
    dom = rng.choice(["hpc.univ.edu", "lab.internal", "cluster", "corp.example.com"])
    base = rng.randint(1, 90)
    sub = rng.randint(0, 30)
    hs = []
    for i in range(nn):
        s = "%s%02d" % (stem, base + i) if stem != "cn" else "cn%04d" % (base * 10 + i)
        hs.append(Host(s, s + "." + dom, "192.168.%d.%d" % (sub, 10 + base + i)))
    return hs, stem, 2, base


def new_job(rng, cause, layout, idx, seed):
    J = Job()
    J.rng, J.cause, J.layout, J.idx = rng, cause, layout, idx
    J.healthy = cause is None
    J.gpn, J.nn = pick_world(rng, layout)
    J.world = J.gpn * J.nn
    J.hosts, J.stem, J.width, J.off = make_hosts(rng, layout, J.nn)
    J.arch = rng.choice(["H100", "H100", "A100", "H200"])
    if cause == "nvlink" and J.arch == "H200":
        J.arch = "H100"
    J.pci = PCI8[J.arch][:J.gpn] if J.gpn == 8 else PCI8[J.arch][::(8 // J.gpn)][:J.gpn]
    J.tzname, tzmin = TZS[rng.randrange(len(TZS))]
    J.tz = dt.timezone(dt.timedelta(minutes=tzmin))
    y = rng.choice([2024, 2025, 2025, 2026])
    J.start = dt.datetime(y, rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59),
                          rng.randint(0, 59), rng.randint(0, 999999), tzinfo=UTC)
    J.jobid = rng.randint(100000, 9999999)
    J.torch_new = rng.random() < 0.7
    J.torch_ver = rng.choice(["2.4.1", "2.5.1", "2.6.0", "2.7.1"]) if J.torch_new else rng.choice(["2.1.2", "2.2.2", "2.3.1"])
    J.nccl_ver = rng.choice(["2.21.5", "2.20.5", "2.23.4", "2.26.2"]) if J.torch_new else rng.choice(["2.18.6", "2.19.3", "2.18.1"])
    J.timeout_ms = 600000 if J.torch_new else rng.choice([1800000, 600000])
    J.step_time = round(rng.uniform(0.35, 4.5), 2)
    J.start_step = rng.choice([0, 0, rng.randint(1, 40) * 500])
    J.fault_step = J.start_step + rng.randint(300, 9000)
    J.seq_per_step = rng.choice([1, 2, 4, 8, 16])
    J.numel = rng.choice([1, 2, 4, 8]) * rng.choice([262144000, 67108864, 33554432, 104857600, 25165824])
    J.driver, J.driver_date = rng.choice([("535.183.01", "Sun May 12 19:39:15 UTC 2024"), ("550.90.07", "Fri May 31 09:35:42 UTC 2024"), ("560.35.03", "Fri Aug 16 21:39:15 UTC 2024"), ("570.124.06", "Wed Feb 26 02:15:28 UTC 2025")])
    J.pids = {}
    for r in range(J.world):
        J.pids[r] = 1000 + (r * 7919 + rng.randint(0, 400)) % 900000
    J.agent_pid = [rng.randint(1000, 400000) for _ in range(J.nn)]
    J.uptime = [dt.timedelta(days=rng.randint(3, 90), seconds=rng.randint(0, 86399)) for _ in range(J.nn)]
    J.uuids = [[uuid(rng) for _ in range(J.gpn)] for _ in range(J.nn)]
    J.script = rng.choice(["train.py", "pretrain_gpt.py", "train_llm.py", "main.py", "finetune.py"])
    J.model = rng.choice(["llama-7b", "gpt-1.3b", "mixtral-lite", "vit-h14", "llama3-8b", "t5-xl"])
    J.events = []       # (t, rank, text)   process output
    J.agent = {i: [] for i in range(J.nn)}   # torchrun agent output per node
    J.sched = []        # (t, text)
    J.kern = {i: [] for i in range(J.nn)}    # (t, msg)
    J.nvsmi = {}        # node -> list of lines (state after the fault)
    J.ibdown = {}       # node -> port index down
    J.notes_inj, J.notes_dec = [], []
    J.f = None
    J.fnode = None
    J.rank_inferable = True
    J.job_wide = False
    J.fault_t = J.start + dt.timedelta(seconds=60 + (J.fault_step - J.start_step) * J.step_time)
    J.end_t = J.fault_t
    J.exitcodes = {}    # rank -> (time, code)
    J.stalled = False
    J.inc, J.inc_agents, J.labeled = [], set(), set()
    J.last_loss = rng.uniform(2.0, 3.0)
    J.last_step = J.start_step
    J.inc_tee = False
    J.fr_inc = False
    return J


def L(J, t):
    """UTC -> local time of the cluster."""
    return t.astimezone(J.tz)


def node_of(J, r):
    return r // J.gpn


def emit(J, t, r, text):
    for ln in text.split("\n"):
        J.events.append((t, r, ln))


def kern(J, n, t, msg):
    J.kern[n].append((t, msg))


# ---------------------------------------------------------------- message builders
def pg_prefix(J, r):
    return "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % r if J.torch_ver >= "2.5" else ("[PG 0 (default_pg) Rank %d]" % r if J.torch_ver >= "2.4" else "[PG 0 Rank %d]" % r)


def tlog(J, r, t, lvl, fileline):
    lt = L(J, t)
    if J.torch_ver >= "2.4":
        return "[rank%d]:[%s %s] " % (r, glog_ts(lt, lvl), fileline)
    if J.torch_ver >= "2.2":
        return "[rank%d]:[%s %s] " % (r, lvl, fileline)
    return "[%s %s] " % (lvl, fileline)


def workstr(J, seq, op="ALLREDUCE", numel=None):
    n = J.numel if numel is None else numel
    return "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (seq, op, n, n, J.timeout_ms)


def frames(J, rng, n=6, remote=False):
    libs = ["libc10.so", "libtorch_cuda.so", "libtorch_cuda.so", "libtorch_cuda.so", "libstdc++.so.6", "libc.so.6"]
    fn = ["c10::Error::Error(c10::SourceLocation, std::string) + 0x98",
          "c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2" if not remote else "c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException() + 0x7a",
          "c10d::ProcessGroupNCCL::watchdogHandler() + 0x233",
          "c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d",
          "<unknown function> + 0xdc253", "<unknown function> + 0x94ac3"]
    out = []
    for i in range(n):
        out.append("frame #%d: %s (0x7f%s in %s)" % (i, fn[i % len(fn)], hexid(rng, 10), "/usr/lib/python3/dist-packages/torch/lib/" + libs[i % len(libs)] if i < 4 else "/lib/x86_64-linux-gnu/" + libs[i % len(libs)]))
    return out


def watchdog_timeout(J, r, t, seq, op="ALLREDUCE", numel=None, last_enq=None, last_done=None):
    rng = J.rng
    ran = J.timeout_ms + rng.randint(3, 95)
    w = workstr(J, seq, op, numel)
    le = seq if last_enq is None else last_enq
    ld = seq - 1 if last_done is None else last_done
    out = []
    if J.torch_ver >= "2.4":
        out.append(tlog(J, r, t, "E", "ProcessGroupNCCL.cpp:%d" % rng.choice([616, 632, 629])) + "%s Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (pg_prefix(J, r), w, ran))
        out.append(tlog(J, r, t, "E", "ProcessGroupNCCL.cpp:%d" % rng.choice([1785, 2271])) + "%s failure detected by watchdog at work sequence id: %d PG status: last enqueued work: %d, last completed work: %d" % (pg_prefix(J, r), seq, le, ld) if J.torch_ver >= "2.5" else tlog(J, r, t, "E", "ProcessGroupNCCL.cpp:1664") + "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pg_prefix(J, r), seq, le, ld))
        out.append(tlog(J, r, t, "E", "ProcessGroupNCCL.cpp:630") + "Stack trace of the failed collective not found, potentially because FlightRecorder is disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value.")
        out.append(tlog(J, r, t, "E", "ProcessGroupNCCL.cpp:681") + "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % r)
        out.append(tlog(J, r, t, "E", "ProcessGroupNCCL.cpp:695") + "[Rank %d] To avoid data inconsistency, we are taking the entire process down." % r)
        out.append(tlog(J, r, t, "E", "ProcessGroupNCCL.cpp:1595") + "%s Process group watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (pg_prefix(J, r), r, w, ran))
        out.append("Exception raised from checkTimeout at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:618 (most recent call first):")
        out += frames(J, rng)
        out.append("")
        out.append("terminate called after throwing an instance of 'c10::DistBackendError'")
        out.append("  what():  %s Process group watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (pg_prefix(J, r), r, w, ran))
    else:
        out.append(tlog(J, r, t, "E", "ProcessGroupNCCL.cpp:%d" % rng.choice([475, 1537])) + "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (r, w, ran))
        out.append(tlog(J, r, t, "E", "ProcessGroupNCCL.cpp:1316") + "[Rank %d] Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (r, seq, le, ld))
        out.append(tlog(J, r, t, "E", "ProcessGroupNCCL.cpp:489") + "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.")
        out.append(tlog(J, r, t, "E", "ProcessGroupNCCL.cpp:495") + "To avoid data inconsistency, we are taking the entire process down.")
        out.append("terminate called after throwing an instance of 'std::runtime_error'")
        out.append("  what():  [Rank %d] NCCL watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (r, r, w, ran))
    emit(J, t, r, "\n".join(out))


def ib_completion(J, peer_ip, port, hca, local_ip=None, err=12):
    """NET/IB work-completion error in the wording of the job's NCCL version (see README for what is verified)."""
    gid = " localGid ::ffff:%s remoteGid ::ffff:%s" % (local_ip, peer_ip) if local_ip else ""
    if J.nccl_ver < "2.20":
        return "NET/IB : Got completion from peer %s<%d> with error %d, opcode 0, len 0, vendor err 129" % (peer_ip, port, err)
    if J.nccl_ver < "2.24":
        return "NET/IB : Got completion from peer %s<%d> with status=%d opcode=0 len=0 vendor err 129 (Send)%s" % (peer_ip, port, err, gid)
    return "NET/IB: Got completion from peer %s<%d> with status=%d opcode=0 len=0 vendor err 129 (Send)%s hca %s" % (peer_ip, port, err, gid, hca)


def nccl_ts(J, t):
    """NCCL >= 2.26 puts a [%F %T] timestamp in front of WARN lines by default."""
    return "[%s] " % L(J, t).strftime("%Y-%m-%d %H:%M:%S") if J.nccl_ver >= "2.26" else ""


def remote_error(J, r, t, peer):
    rng = J.rng
    h = J.hosts[node_of(J, r)]
    ph = J.hosts[node_of(J, peer)]
    if node_of(J, r) == node_of(J, peer):
        last = "socketProgress: Connection closed by remote peer %s<%d>" % (ph.short, rng.randint(30000, 60000)) if rng.random() < 0.5 else "[Service thread] Connection closed by localRank %d" % (peer % J.gpn)
    elif rng.random() < 0.5:
        last = ib_completion(J, ph.ip, rng.randint(30000, 60000), "mlx5_%d" % (r % J.gpn), h.ip)
    else:
        last = "socketProgress: Connection closed by remote peer %s<%d>" % (ph.fqdn if rng.random() < 0.5 else ph.ip, rng.randint(30000, 60000))
    src = "transport/net_ib.cc:1683" if "NET/IB" in last else ("misc/socket.cc:49" if "socketProgress" in last else "proxy.cc:1523")
    nline = "%s%s:%d:%d [%d] %s NCCL WARN %s" % (nccl_ts(J, t), h.short, J.pids[r], J.pids[r] + rng.randint(50, 900), r % J.gpn, src, last)
    if "Service thread" in last:
        nline = "%s:%d:%d [%d] NCCL INFO %s" % (h.short, J.pids[r], J.pids[r] + rng.randint(50, 900), r % J.gpn, last)
    out = ["", nline]
    pre = tlog(J, r, t, "E", "ProcessGroupNCCL.cpp:1595")
    if J.torch_ver >= "2.4":
        out.append(pre + "%s Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version %s" % (pg_prefix(J, r), J.nccl_ver))
    else:
        out.append(pre + "[Rank %d] NCCL watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version %s" % (r, J.nccl_ver))
    out += ["ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
            "Last error:", last,
            "Exception raised from checkForNCCLErrorsInternal at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2027 (most recent call first):"]
    out += frames(J, rng, 4, remote=True)
    out += ["", "terminate called after throwing an instance of 'c10::DistBackendError'" if J.torch_ver >= "2.2" else "terminate called after throwing an instance of 'std::runtime_error'",
            "  what():  NCCL error: remote process exited or there was a network error, NCCL version %s" % J.nccl_ver]
    emit(J, t, r, "\n".join(out))


def py_traceback(J, r, t, frames_, exc, extra=None):
    p = "[rank%d]: " % r if J.torch_ver >= "2.2" else ""
    lines = [p + "Traceback (most recent call last):"]
    for f, ln, fn, code in frames_:
        lines.append(p + '  File "%s", line %d, in %s' % (f, ln, fn))
        lines.append(p + "    %s" % code)
    for e in exc.split("\n"):
        lines.append(p + e)
    if extra:
        lines += [p + x for x in extra]
    emit(J, t, r, "\n".join(lines))


def train_frames(J, inner):
    base = "/workspace/%s" % J.script
    fr = [(base, 412, "<module>", "main(cfg)"), (base, 377, "main", "train(model, loader, optim, cfg)"),
          (base, 251, "train", "loss = train_step(model, batch, optim)")]
    return fr + inner


# ---------------------------------------------------------------- training progress + decoys
def progress(J, upto_t, stop_step=None):
    rng = J.rng
    every = rng.choice([10, 20, 50, 100])
    loss = rng.uniform(2.2, 7.5)
    t = J.start + dt.timedelta(seconds=60)
    step = J.start_step
    emit(J, J.start + dt.timedelta(seconds=2), 0, "Initializing %s: world_size=%d, nodes=%d, gpus_per_node=%d" % (J.model, J.world, J.nn, J.gpn))
    emit(J, J.start + dt.timedelta(seconds=20), 0, "%s:%d:%d [0] NCCL INFO NCCL version %s+cuda12.%d" % (J.hosts[0].short, J.pids[0], J.pids[0], J.nccl_ver, rng.choice([1, 2, 4])))
    if J.start_step:
        emit(J, J.start + dt.timedelta(seconds=40), 0, "Resuming from checkpoint /checkpoints/%s/step_%07d (global_step=%d)" % (J.model, J.start_step, J.start_step))
    n = 0
    while True:
        step += every
        t = t + dt.timedelta(seconds=every * J.step_time * rng.uniform(0.97, 1.03))
        if t >= upto_t or (stop_step and step > stop_step):
            break
        loss = max(1.6 + rng.uniform(0, 0.3), loss * rng.uniform(0.9975, 1.0006))
        n += 1
        if n > 900:
            every *= 2
        slow = J.straggle[1] * 0.8 if getattr(J, "straggle", None) and t > J.fault_t else 1.0
        if slow > 1.0:
            t = t + dt.timedelta(seconds=every * J.step_time * (slow - 1.0))
        emit(J, t, 0, "step %d | loss %.4f | lr %.3e | %.2f s/it | tok/s %d" % (step, loss, 3e-4 * rng.uniform(0.6, 1.0), J.step_time * slow * rng.uniform(0.97, 1.03), int(rng.uniform(2e5, 2e6) / slow)))
    J.last_step = step - every
    J.last_loss = loss
    return J.last_step


def warning_storm(J):
    rng = J.rng
    if rng.random() < 0.6:
        msg = rng.choice([
            "/usr/lib/python3/dist-packages/torch/utils/checkpoint.py:1399: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.5 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants.",
            "/workspace/data.py:88: UserWarning: To copy construct from a tensor, it is recommended to use sourceTensor.clone().detach() or sourceTensor.clone().detach().requires_grad_(True), rather than torch.tensor(sourceTensor).",
            "/usr/lib/python3/dist-packages/torch/autograd/graph.py:768: UserWarning: c10d::allreduce_: an autograd kernel was not registered to the Autograd key(s) but we are trying to backprop through it. This may lead to silently incorrect behavior. (Triggered internally at /pytorch/torch/csrc/autograd/autograd_not_implemented_fallback.cpp:62.)",
        ])
        ranks = sorted(set([0] + rng.sample(range(J.world), min(J.world, 6))))
        for k in range(rng.randint(3, 12)):
            t = J.start + dt.timedelta(seconds=70 + k * rng.uniform(20, 400))
            for r in ranks:
                emit(J, t, r, "[rank%d]:%s" % (r, msg) if J.torch_ver >= "2.2" else msg)
                emit(J, t, r, "  warnings.warn(" if "checkpoint" in msg else "  return Variable._execution_engine.run_backward(")
        J.notes_dec.append("UserWarning storm")


def kernel_baseline(J):
    """Boot-ish noise plus decoys on some nodes."""
    rng = J.rng
    for n in range(J.nn):
        t0 = J.start - dt.timedelta(hours=rng.uniform(1, 40))
        kern(J, n, t0, "nvidia-nvswitch: Probing device 0000:%02x:00.0, Vendor Id = 0x10de, Device Id = 0x22a3" % rng.randint(5, 8) if J.arch != "A100" else "nvidia-nvlink: Nvlink Core is being initialized, major device number 234")
        kern(J, n, t0 + dt.timedelta(seconds=3), "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  %s  %s" % (J.driver, J.driver_date))
        kern(J, n, J.start + dt.timedelta(seconds=rng.uniform(-30, 5)), "IPv6: ADDRCONF(NETDEV_CHANGE): veth%s: link becomes ready" % hexid(rng, 7) if rng.random() < 0.5 else "nfs: server fs01 OK")
    # decoy: old Xid from days before on some node
    if J.nn >= 1 and rng.random() < 0.55:
        n = rng.randrange(J.nn)
        g = rng.randrange(J.gpn)
        t = J.start - dt.timedelta(days=rng.randint(2, 9), seconds=rng.randint(0, 80000))
        if t > J.start - J.uptime[n]:
            pass
        x = rng.choice([31, 63, 13])
        if x == 31:
            msg = "NVRM: Xid (PCI:0000:%s:00): 31, pid=%d, name=python3, channel 0x00000008, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC3 GPCCLIENT_T1_4 faulted @ 0x7f2a_81e00000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (J.pci[g], rng.randint(1000, 90000))
        elif x == 63:
            msg = "NVRM: Xid (PCI:0000:%s:00): 63, pid='<unknown>', name=<unknown>, Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % (J.pci[g], rng.randint(1 << 28, 1 << 34))
        else:
            msg = "NVRM: Xid (PCI:0000:%s:00): 13, pid=%d, name=python, Graphics SM Warp Exception on (GPC 2, TPC 1, SM 0): Out Of Range Address" % (J.pci[g], rng.randint(1000, 90000))
        J.kern[n].insert(0, (t, msg))
        J.old_xid = (n, t, x, g)
        J.notes_dec.append("old Xid %d on %s %d days earlier" % (x, J.hosts[n].short, (J.start - t).days))
    if J.nn >= 2 and rng.random() < 0.5:
        n = rng.randrange(J.nn)
        t = J.start + dt.timedelta(seconds=rng.uniform(300, max(400, (J.fault_t - J.start).total_seconds() * 0.6)))
        dev = rng.choice(["0000:0c:00.0", "0000:1f:00.0", "0000:8c:00.0"])
        nic = rng.choice(["ens10f0np0", "ibp12s0", "enp12s0f0np0"])
        kern(J, n, t, "mlx5_core %s %s: Link down" % (dev, nic))
        kern(J, n, t + dt.timedelta(seconds=rng.uniform(1.5, 9)), "mlx5_core %s %s: Link up" % (dev, nic))
        J.notes_dec.append("recovered link flap on %s" % J.hosts[n].short)


def benign_teardown(J, t, ranks):
    for r in ranks:
        if J.torch_ver >= "2.4":
            emit(J, t, r, tlog(J, r, t, "W", "ProcessGroupNCCL.cpp:1250") + "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only been added since PyTorch 2.4 (function operator())")
    if ranks:
        J.notes_dec.append("benign NCCL teardown warnings")


# ---------------------------------------------------------------- cascade + agent summaries
def sample_ranks(J, extra=()):
    rng = J.rng
    k = min(J.world, rng.choice([4, 6, 8, 12, 16]))
    s = set(rng.sample(range(J.world), k)) | {0} | set(extra)
    if J.world <= 16:
        s = set(range(J.world))
    return sorted(s)


def cascade(J, mode, t_detect, seq, skip=(), last_enq_of=None):
    """Other ranks react. mode 'timeout' (watchdog after timeout) or 'remote' (ncclRemoteError)."""
    rng = J.rng
    for r in J.shown:
        if r in skip or r == J.f:
            continue
        if mode == "timeout":
            t = t_detect + dt.timedelta(microseconds=rng.randint(5000, 2500000))
            watchdog_timeout(J, r, t, seq)
        else:
            t = t_detect + dt.timedelta(microseconds=rng.randint(300000, 25000000))
            remote_error(J, r, t, J.f if J.f is not None else 0)
        J.exitcodes[r] = (t + dt.timedelta(milliseconds=rng.randint(50, 900)), -6)
    # unshown ranks also die (agent summaries need them)
    for r in range(J.world):
        if r not in J.exitcodes and r not in skip and r != J.f:
            base = t_detect + dt.timedelta(milliseconds=rng.randint(5, 2500 if mode == "timeout" else 25000))
            J.exitcodes[r] = (base + dt.timedelta(milliseconds=rng.randint(50, 900)), -6)


SIGNAME = {-6: "SIGABRT", -9: "SIGKILL", -11: "SIGSEGV", -7: "SIGBUS", -15: "SIGTERM"}


def agent_summaries(J, host_spell="fqdn"):
    """torchrun agent lines + ChildFailedError block for every node."""
    rng = J.rng
    first_root = {}
    for n in range(J.nn):
        ranks = range(n * J.gpn, (n + 1) * J.gpn)
        died = sorted([(J.exitcodes[r][0], r) for r in ranks if r in J.exitcodes])
        if not died:
            continue
        h = J.hosts[n]
        hname = h.fqdn if host_spell == "fqdn" else h.short
        t0, r0 = died[0]
        code0 = J.exitcodes[r0][1]
        ap = J.agent_pid[n]
        lt = L(J, t0)
        pyb = rng.choice(["/usr/bin/python3", "/opt/conda/bin/python3.11", "/usr/bin/python3.10"])
        if J.torch_ver >= "2.4":
            ag = "%s %d torch/distributed/elastic/multiprocessing/api.py:%d] " % (glog_ts(lt, "W", False), ap, 897)
            ag_e = "%s %d torch/distributed/elastic/multiprocessing/api.py:%d] " % (glog_ts(lt, "E", False), ap, 869)
        else:
            ag = "[%s] torch.distributed.elastic.multiprocessing.api: [WARNING] " % lt.strftime("%Y-%m-%d %H:%M:%S,%f")[:-3]
            ag_e = "[%s] torch.distributed.elastic.multiprocessing.api: [ERROR] " % lt.strftime("%Y-%m-%d %H:%M:%S,%f")[:-3]
        others = [r for r in ranks if r != r0]
        # failures: those that died within 3 s of the first
        fails = [(t, r) for t, r in died if (t - t0).total_seconds() < 3.0]
        lines = []
        for r in others:
            if (J.exitcodes.get(r, (None, None))[0] or t0) - t0 > dt.timedelta(seconds=3) or r not in J.exitcodes:
                lines.append(ag + "Sending process %d closing signal SIGTERM" % J.pids[r])
        lines.append(ag_e + "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (code0, r0 % J.gpn, J.pids[r0], pyb))
        lines += ["Traceback (most recent call last):",
                  '  File "/usr/local/bin/torchrun", line 8, in <module>',
                  "    sys.exit(main())",
                  '  File "/usr/lib/python3/dist-packages/torch/distributed/run.py", line 919, in main',
                  "    run(args)",
                  '  File "/usr/lib/python3/dist-packages/torch/distributed/launcher/api.py", line 263, in launch_agent',
                  "    raise ChildFailedError(",
                  "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
                  "============================================================",
                  "%s FAILED" % J.script,
                  "------------------------------------------------------------",
                  "Failures:"]

        def blk(i, t, r):
            code = J.exitcodes[r][1]
            tb = "Signal %d (%s) received by PID %d" % (-code, SIGNAME[code], J.pids[r]) if code < 0 else "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
            ec = "%d (pid: %d)" % (code, J.pids[r])
            return ["[%d]:" % i, "  time      : %s" % L(J, t).strftime("%Y-%m-%d_%H:%M:%S"), "  host      : %s" % hname,
                    "  rank      : %d (local_rank: %d)" % (r, r % J.gpn), "  exitcode  : %s" % ec,
                    "  error_file: <N/A>", "  traceback : %s" % tb]
        if len(fails) > 1:
            for i, (t, r) in enumerate(fails[1:], 1):
                lines += blk(i, t, r)
        else:
            lines.append("  <NO_OTHER_FAILURES>")
        lines += ["------------------------------------------------------------", "Root Cause (first observed failure):"]
        lines += blk(0, t0, r0)
        lines.append("============================================================")
        last_local = max(t for t, _ in died)
        tt = max(t0 + dt.timedelta(seconds=rng.uniform(1, 6)), min(last_local, t0 + dt.timedelta(seconds=45)) + dt.timedelta(seconds=rng.uniform(0.5, 3)))
        ts = t0 + dt.timedelta(milliseconds=rng.randint(20, 400))
        for ln in lines:
            J.agent[n].append((ts if "closing signal SIGTERM" in ln else tt, ln))
        first_root[n] = (t0, r0, code0, tt)
    J.roots = first_root
    return first_root


def slurm_teardown(J, t):
    rng = J.rng
    order = sorted(J.roots.items(), key=lambda kv: kv[1][0])
    lt = L(J, t)
    if order:
        n, (t0, r0, c0, tsum) = order[0]
        t0 = tsum
        oom = J.cause == "host_oom_kill" and n == J.fnode and getattr(J, "oom_cg", False)
        J.sched.append((t0 + dt.timedelta(seconds=5), "srun: error: %s: task %d: %s" % (J.hosts[n].short, n, "Out Of Memory" if oom else "Exited with exit code 1")))
        J.sched.append((t0 + dt.timedelta(seconds=5.1), "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
        J.sched.append((t0 + dt.timedelta(seconds=5.2), "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (J.jobid, J.hosts[0].short, L(J, t0 + dt.timedelta(seconds=5)).strftime("%Y-%m-%dT%H:%M:%S"))))
        rest = [kv[0] for kv in order[1:]]
        if rest:
            J.sched.append((t0 + dt.timedelta(seconds=37), "srun: error: %s: tasks %s: Exited with exit code 1" % (nodelist(J, rest), rangelist(sorted(rest))) if len(rest) > 1 else "srun: error: %s: task %d: Exited with exit code 1" % (J.hosts[rest[0]].short, rest[0])))


def J_pad(names):
    """zero-padded numbering when any name in the list has a leading zero"""
    import re
    return any(re.search(r"\D0\d+$", nm) for nm in names)


def nodelist_h(hosts):
    class _J:
        pass
    j = _J()
    j.hosts = hosts
    return nodelist(j, range(len(hosts)))


def rangelist(xs):
    xs = sorted(xs)
    out, i = [], 0
    while i < len(xs):
        j = i
        while j + 1 < len(xs) and xs[j + 1] == xs[j] + 1:
            j += 1
        out.append(str(xs[i]) if i == j else "%d-%d" % (xs[i], xs[j]))
        i = j + 1
    return ",".join(out)


def nodelist(J, idxs):
    """Slurm hostlist form: stem[01-03,05] when names share a numeric stem."""
    import re
    names = [J.hosts[i].short for i in sorted(idxs)]
    groups = {}
    order = []
    for nm in names:
        m = re.match(r"^(.*?)(\d+)$", nm)
        if not m:
            groups.setdefault((nm, None), []).append(None)
            order.append((nm, None))
            continue
        key = (m.group(1), len(m.group(2)) if m.group(2).startswith("0") or len(m.group(2)) > 1 and J_pad(names) else 0)
        if key not in groups:
            order.append(key)
        groups.setdefault(key, []).append(int(m.group(2)))
    out = []
    for key in order:
        stem, w = key
        if w is None:
            out.append(stem)
            continue
        nums = sorted(groups[key])
        if len(nums) == 1:
            out.append("%s%0*d" % (stem, w, nums[0]))
            continue
        parts, i = [], 0
        while i < len(nums):
            j = i
            while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
                j += 1
            parts.append("%0*d" % (w, nums[i]) if i == j else "%0*d-%0*d" % (w, nums[i], w, nums[j]))
            i = j + 1
        out.append("%s[%s]" % (stem, ",".join(parts)))
    return ",".join(out)


# ---------------------------------------------------------------- cause injection
def inject(J):
    rng = J.rng
    c = J.cause
    T = J.fault_t
    seq = (J.fault_step - J.start_step) * J.seq_per_step + rng.randint(3, 40)
    J.seq = seq
    if c is None:
        return
    # choose faulty rank
    if c in ("preemption", "unknown"):
        J.f = None
    else:
        J.f = rng.randrange(J.world)
        if J.layout == "wandb_kernel" and rng.random() < 0.25 and c not in ("straggler",):
            J.f = 0
        if J.f == 0 and J.world > 2 and c in ("hang", "straggler") and rng.random() < 0.7:
            J.f = rng.randrange(1, J.world)
        if J.f == 0 and c in ("collective_mismatch", "hang") and J.layout == "wandb_kernel":
            J.f = rng.randrange(1, J.world)
    if J.layout == "wandb_kernel" and c in ("cuda_oom", "python_exception", "crash_signal"):
        J.f = 0   # only rank 0's output is kept: the fault must be rank 0's own for its wording to be there
    if J.f is not None:
        J.fnode = node_of(J, J.f)
        J.flocal = J.f % J.gpn
    # causes with evidence outside the rank's own output may lose the faulty rank from the attached sample
    J.omit_ok = c in ("gpu_hardware", "ecc_memory", "nvlink", "network", "host_oom_kill", "hang", "straggler")
    J.shown = sample_ranks(J, extra=([J.f] if (J.f is not None and (not J.omit_ok or rng.random() < 0.85)) else []))
    f = J.f
    n = J.fnode
    g = J.flocal if J.f is not None else 0
    pid = J.pids[f] if f is not None else 0
    shows_f = f in J.shown if f is not None else False
    J.rank_inferable = shows_f
    xp = "NVRM: Xid (PCI:0000:%s:00): " % J.pci[g] if f is not None else ""
    uuid_lines = lambda t: [(t, "NVRM: GPU at PCI:0000:%s:00: %s" % (J.pci[g], J.uuids[n][g])), (t, "NVRM: GPU Board Serial Number: 16%011d" % rng.randint(0, 10 ** 11 - 1))]

    if c == "gpu_hardware":
        kind = rng.choice([79, 79, 119, 62])
        kt = T - dt.timedelta(milliseconds=rng.randint(50, 900))
        for t, m in uuid_lines(kt):
            kern(J, n, t, m)
        if kind == 79:
            if rng.random() < 0.6:
                kern(J, n, kt - dt.timedelta(milliseconds=40), "pcieport 0000:%02x:01.0: AER: Uncorrected (Fatal) error received: 0000:%s:00.0" % (int(J.pci[g], 16) - 2, J.pci[g]))
            kern(J, n, kt, xp + "79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." if rng.random() < 0.5 else xp + "79, GPU has fallen off the bus.")
            kern(J, n, kt + dt.timedelta(milliseconds=2), "NVRM: GPU 0000:%s:00.0: GPU has fallen off the bus." % J.pci[g])
            kern(J, n, kt + dt.timedelta(milliseconds=900), "NVRM: nvGpuOpsReportFatalError: uvm encountered global fatal error 0x60, requiring os reboot to recover.")
            J.nvsmi[n] = ("lost", g)
        elif kind == 119:
            kern(J, n, kt, xp + "119, pid=%d, name=python3, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x20801348 0x4)." % (pid, g))
            kern(J, n, kt + dt.timedelta(seconds=6), xp + "119, pid=%d, name=python3, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 103 (GSP_RM_ALLOC) (0x2081 0x4)." % (pid, g))
            J.nvsmi[n] = ("err", g)
        else:
            kern(J, n, kt, xp + "62, pid='<unknown>', name=<unknown>, %08x %08x %08x %08x %08x %08x %08x %08x" % tuple(rng.randint(0, 2 ** 32 - 1) for _ in range(8)))
            J.nvsmi[n] = ("err", g)
        J.notes_inj.append("Xid %d on %s GPU%d (PCI %s)" % (kind, J.hosts[n].short, g, J.pci[g]))
        if rng.random() < 0.5 or kind == 79 and rng.random() < 0.5:
            # faulty process reports CUDA failure and dies
            py_traceback(J, f, T + dt.timedelta(seconds=1), train_frames(J, [("/usr/lib/python3/dist-packages/torch/_tensor.py", 626, "backward", "torch.autograd.backward(")]),
                         ("torch.AcceleratorError" if J.torch_ver >= "2.7" else "RuntimeError") + ": CUDA error: unspecified launch failure",
                         ["CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
                          "For debugging consider passing CUDA_LAUNCH_BLOCKING=1", "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", ""])
            J.exitcodes[f] = (T + dt.timedelta(seconds=2), 1)
            cascade(J, "remote", T + dt.timedelta(seconds=2), seq)
        else:
            J.rank_inferable = False  # rank process just hangs; only kernel names the GPU
            J.exitcodes[f] = (T + dt.timedelta(milliseconds=J.timeout_ms + rng.randint(4000, 9000)), -6)
            cascade(J, "timeout", T + dt.timedelta(milliseconds=J.timeout_ms), seq, skip=())
    elif c == "ecc_memory":
        kind = rng.choice([48, 94, 95])
        kt = T - dt.timedelta(milliseconds=rng.randint(20, 300))
        pa = rng.randint(1 << 28, 1 << 34)
        for t, m in uuid_lines(kt):
            kern(J, n, t, m)
        J.ecc_xids = []
        if kind == 48 or rng.random() < 0.5:
            J.ecc_xids += [48, 63]
            kern(J, n, kt, xp + "48, pid='<unknown>', name=<unknown>, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at physAddr 0x%x partition %d, subpartition %d." % (pa, rng.randint(0, 23), rng.randint(0, 3)))
            kern(J, n, kt + dt.timedelta(milliseconds=3), xp + "63, pid='<unknown>', name=<unknown>, Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % pa)
        if kind != 48:
            J.ecc_xids.append(kind)
        if kind == 94:
            kern(J, n, kt + dt.timedelta(milliseconds=5), xp + "94, pid=%d, name=python3, Contained: SM (0x1). RST: No, D-RST: No" % pid)
        elif kind == 95:
            kern(J, n, kt + dt.timedelta(milliseconds=5), xp + "95, pid=%d, name=python3, Uncontained: LTC TAG (0x2, 0x1). RST: Yes, D-RST: No" % pid)
        J.notes_inj.append("Xid %s uncorrectable ECC on %s GPU%d" % ("/".join(str(x) for x in J.ecc_xids), J.hosts[n].short, g))
        py_traceback(J, f, T + dt.timedelta(milliseconds=400), train_frames(J, [("/workspace/model.py", 188, "forward", "x = self.mlp(self.ln_2(x))")]),
                     ("torch.AcceleratorError" if J.torch_ver >= "2.7" else "RuntimeError") + ": CUDA error: uncorrectable ECC error encountered",
                     ["CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.", "For debugging consider passing CUDA_LAUNCH_BLOCKING=1"])
        J.exitcodes[f] = (T + dt.timedelta(seconds=1), 1)
        J.nvsmi[n] = ("ecc", g)
        cascade(J, rng.choice(["remote", "timeout"]), T + dt.timedelta(seconds=1) if rng.random() < 0.5 else T + dt.timedelta(milliseconds=J.timeout_ms), seq)
    elif c == "nvlink":
        kt = T - dt.timedelta(milliseconds=rng.randint(20, 300))
        link = rng.randint(0, 17)
        for t, m in uuid_lines(kt):
            kern(J, n, t, m)
        kern(J, n, kt, xp + "74, pid=%d, name=python3, NVLink: fatal error detected on link %d(0x%x, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)" % (pid, link, rng.choice([0x10000, 0x20000, 0x4000])))
        if rng.random() < 0.5 and J.gpn > 1:
            g2 = (g + 1) % J.gpn
            kern(J, n, kt + dt.timedelta(seconds=rng.uniform(0.3, 2.0)), "NVRM: Xid (PCI:0000:%s:00): 74, pid=%d, name=python3, NVLink: fatal error detected on link %d(0x10000, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)" % (J.pci[g2], J.pids[n * J.gpn + g2], rng.randint(0, 17)))
            J.notes_dec.append("sympathetic Xid 74 on peer GPU%d later" % g2)
        J.notes_inj.append("Xid 74 NVLink on %s GPU%d link %d" % (J.hosts[n].short, g, link))
        emit(J, T + dt.timedelta(milliseconds=200), f, nccl_ts(J, T) + "%s:%d:%d [%d] enqueue.cc:1556 NCCL WARN Cuda failure 'uncorrectable NVLink error detected during the execution'" % (J.hosts[n].short, pid, pid + 211, g))
        py_traceback(J, f, T + dt.timedelta(milliseconds=300), train_frames(J, [("/usr/lib/python3/dist-packages/torch/distributed/distributed_c10d.py", 2501, "all_reduce", "work = group.allreduce([tensor], opts)")]),
                     "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:317, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s\nncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\nCuda failure 'uncorrectable NVLink error detected during the execution'" % J.nccl_ver)
        J.exitcodes[f] = (T + dt.timedelta(seconds=1), 1)
        J.nvsmi[n] = ("nvlink", g, link)
        cascade(J, "remote", T + dt.timedelta(seconds=1), seq)
    elif c == "network":
        dev = rng.choice(["0000:0c:00.0", "0000:1f:00.0", "0000:8c:00.0", "0000:9d:00.0"])
        nic = rng.choice(["ibp12s0", "ens10f0np0", "ibp%ds0" % rng.randint(24, 220)])
        hca = "mlx5_%d" % g
        kern(J, n, T - dt.timedelta(seconds=rng.uniform(1, 20)), "mlx5_core %s %s: Link down" % (dev, nic))
        if rng.random() < 0.5:
            kern(J, n, T - dt.timedelta(seconds=rng.uniform(0, 1)), "mlx5_core %s: mlx5_port_module_event:%d:(pid 0): Port module event[error]: module 0, Cable error, High Temperature" % (dev, 1145))
        J.ibdown[n] = g
        J.notes_inj.append("%s link down on %s (%s)" % (hca, J.hosts[n].short, nic))
        peer = (f + J.gpn) % J.world if J.nn > 1 else (f + 1) % J.world
        ph = J.hosts[node_of(J, peer)]
        emit(J, T, f, "")
        port = rng.randint(30000, 60000)
        emit(J, T, f, nccl_ts(J, T) + "%s:%d:%d [%d] transport/net_ib.cc:1683 NCCL WARN %s" % (J.hosts[n].short, pid, pid + 311, g, ib_completion(J, ph.ip, port, hca, J.hosts[n].ip)))
        emit(J, T, f, "%s:%d:%d [%d] NCCL INFO transport/net.cc:1133 -> 6" % (J.hosts[n].short, pid, pid + 311, g))
        t1 = T + dt.timedelta(milliseconds=rng.randint(100, 900))
        emit(J, t1, f, tlog(J, f, t1, "E", "ProcessGroupNCCL.cpp:1595") + "%s Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version %s" % (pg_prefix(J, f), J.nccl_ver))
        emit(J, t1, f, "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\nLast error:\n" + ib_completion(J, ph.ip, port, hca, J.hosts[n].ip))
        J.exitcodes[f] = (t1 + dt.timedelta(milliseconds=300), -6)
        cascade(J, "remote", T + dt.timedelta(seconds=rng.uniform(1, 8)), seq)
    elif c == "cuda_oom":
        tried = rng.choice(["1.95 GiB", "3.91 GiB", "768.00 MiB", "11.72 GiB", "2.50 GiB"])
        free = rng.choice(["412.56 MiB", "1.02 GiB", "87.25 MiB", "655.00 MiB"])
        py_traceback(J, f, T, train_frames(J, [("/workspace/model.py", 141, "forward", "att = (q @ k.transpose(-2, -1)) * self.scale")]),
                     "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %s. GPU %d has a total capacity of %s of which %s is free. Including non-PyTorch memory, this process has %s memory in use. Of the allocated memory %s is allocated by PyTorch, and %s is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
                     % (tried, g, GPU_MEM[J.arch], free, "78.61 GiB", "71.30 GiB", "6.12 GiB"))
        J.exitcodes[f] = (T + dt.timedelta(seconds=1), 1)
        J.notes_inj.append("CUDA OOM on rank %d (seq len spike)" % f)
        cascade(J, rng.choice(["timeout", "remote"]), T + dt.timedelta(milliseconds=J.timeout_ms) if rng.random() < 0.6 else T + dt.timedelta(seconds=2), seq)
    elif c == "illegal_memory_access":
        kind = rng.choice(["ima31", "assert", "ima13"] if not (J.layout == "wandb_kernel" and f != 0) else ["ima31", "ima13"])
        if kind == "assert":
            emit(J, T - dt.timedelta(milliseconds=5), f, "/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [%d,0,0], thread: [%d,0,0] Assertion `-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"` failed." % (rng.randint(0, 4000), rng.randint(0, 127)))
            err = "CUDA error: device-side assert triggered"
        else:
            err = "CUDA error: an illegal memory access was encountered"
            for t, m in uuid_lines(T - dt.timedelta(milliseconds=3)):
                kern(J, n, t, m)
            if kind == "ima31":
                kern(J, n, T - dt.timedelta(milliseconds=2), xp + "31, pid=%d, name=python3, channel 0x%08x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC%d GPCCLIENT_T1_%d faulted @ 0x%s_%s. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE" % (pid, rng.randint(2, 30), rng.randint(0, 7), rng.randint(0, 15), hexid(rng, 4), hexid(rng, 8)))
            else:
                kern(J, n, T - dt.timedelta(milliseconds=2), xp + "13, pid=%d, name=python3, Graphics SM Warp Exception on (GPC %d, TPC %d, SM 1): Out Of Range Address" % (pid, rng.randint(0, 7), rng.randint(0, 8)))
                kern(J, n, T - dt.timedelta(milliseconds=1), xp + "13, pid=%d, name=python3, Graphics Exception: ESR 0x%x=0x%x 0x%x=0x0 0x%x=0x%x 0x%x=0x%x" % (pid, 0x51e730, rng.randint(1, 99), 0x51e734, 0x51e728, 0x1, 0x51e72c, 0x174))
        py_traceback(J, f, T + dt.timedelta(milliseconds=30), train_frames(J, [("/workspace/ops/fused_rope.py", 77, "apply_rotary", "return _C.rope_fwd(x, cos, sin, pos_ids)")]),
                     ("torch.AcceleratorError" if J.torch_ver >= "2.7" else "RuntimeError") + ": " + err,
                     ["CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
                      "For debugging consider passing CUDA_LAUNCH_BLOCKING=1", "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", ""])
        J.exitcodes[f] = (T + dt.timedelta(seconds=1), 1)
        J.notes_inj.append("%s on rank %d" % (kind, f))
        cascade(J, rng.choice(["timeout", "remote"]), T + dt.timedelta(milliseconds=J.timeout_ms), seq)
    elif c == "python_exception":
        if rng.random() < 0.35:
            # config error on every rank at startup
            J.job_wide = True
            J.f = None
            J.fnode = None
            T = J.start + dt.timedelta(seconds=rng.uniform(15, 90))
            J.fault_t = T
            msg = rng.choice([
                "ValueError: global_batch_size (1536) is not divisible by micro_batch_size (6) * data_parallel_size (%d)" % max(2, J.world // 2),
                "KeyError: 'rope_scaling'",
                "omegaconf.errors.ConfigAttributeError: Key 'warmup_steps' is not in struct\n    full_key: optim.warmup_steps\n    object_type=dict",
                "FileNotFoundError: [Errno 2] No such file or directory: '/data/tokenizers/%s/tokenizer.model'" % J.model])
            for r in J.shown:
                t = T + dt.timedelta(milliseconds=rng.randint(0, 900))
                py_traceback(J, r, t, [("/workspace/%s" % J.script, 412, "<module>", "main(cfg)"), ("/workspace/%s" % J.script, 88, "main", "cfg = build_config(args)")], msg)
            for r in range(J.world):
                J.exitcodes[r] = (T + dt.timedelta(milliseconds=rng.randint(900, 1900)), 1)
            J.notes_inj.append("config error on every rank at startup")
            J.rank_inferable = False
        else:
            msg = rng.choice([
                ("/workspace/data.py", 211, "__getitem__", "ids = sample['input_ids'][: self.seq_len]", "KeyError: 'input_ids'"),
                ("/workspace/data.py", 97, "collate", "assert x.shape[0] == y.shape[0], (x.shape, y.shape)", "AssertionError: (torch.Size([8, 4096]), torch.Size([7, 4096]))"),
                ("/workspace/eval.py", 55, "evaluate", "acc = correct / total", "ZeroDivisionError: division by zero"),
                ("/workspace/data.py", 160, "load_shard", "with open(path, 'rb') as fh:", "FileNotFoundError: [Errno 2] No such file or directory: '/data/shards/train-%05d.bin'" % rng.randint(0, 4000))])
            py_traceback(J, f, T, train_frames(J, [msg[:4]]), msg[4])
            J.exitcodes[f] = (T + dt.timedelta(seconds=1), 1)
            J.notes_inj.append("uncaught %s on rank %d" % (msg[4].split(":")[0], f))
            cascade(J, "timeout", T + dt.timedelta(milliseconds=J.timeout_ms), seq)
    elif c == "host_oom_kill":
        cg = rng.random() < 0.5
        J.oom_cg = cg
        rss = rng.randint(60, 240) * 1024 * 1024
        kt = T - dt.timedelta(milliseconds=rng.randint(10, 400))
        kern(J, n, kt - dt.timedelta(milliseconds=5), "python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0")
        if cg:
            kern(J, n, kt - dt.timedelta(milliseconds=2), "memory: usage %dkB, limit %dkB, failcnt %d" % (rss + 2048, rss + 2048, rng.randint(1, 900)))
        kern(J, n, kt, "%s: Killed process %d (python3) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0"
             % ("Memory cgroup out of memory" if cg else "Out of memory", pid, rss + rng.randint(10 ** 7, 10 ** 8), rss, rng.randint(10 ** 5, 10 ** 6), rng.randint(10 ** 4, 10 ** 6), rng.choice([0, 1000, 1043, 20117]), rng.randint(2000, 90000)))
        kern(J, n, kt + dt.timedelta(milliseconds=600), "oom_reaper: reaped process %d (python3), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB" % pid)
        J.exitcodes[f] = (T, -9)
        J.notes_inj.append("%s OOM kill of rank %d pid %d on %s" % ("cgroup" if cg else "host", f, pid, J.hosts[n].short))
        if cg:
            J.sched.append((T + dt.timedelta(seconds=40), "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % J.jobid))
        J.rank_inferable = True  # pid in kernel line + torchrun summary pid
        cascade(J, rng.choice(["remote", "timeout"]), T + dt.timedelta(seconds=2), seq)
    elif c == "crash_signal":
        sig = rng.choice([-11, -11, -7, -6])
        if sig == -11:
            emit(J, T, f, "Fatal Python error: Segmentation fault\n\nThread 0x%s (most recent call first):\n  File \"/usr/lib/python3/dist-packages/torch/utils/data/_utils/pin_memory.py\", line 54 in do_one_step\n\nCurrent thread 0x%s (most recent call first):\n  File \"/workspace/ext/sparse_attn.py\", line 212 in forward\n  File \"/usr/lib/python3/dist-packages/torch/nn/modules/module.py\", line 1747 in _call_impl\n  File \"/workspace/%s\", line 251 in train" % (hexid(rng, 12), hexid(rng, 12), J.script))
            kern(J, n, T, "python3[%d]: segfault at %x ip 00007f%s sp 00007ff%s error 4 in libsparse_attn.so[7f%s+%x]" % (pid, rng.choice([0, 8, 0x10, 0x28]), hexid(rng, 10), hexid(rng, 9), hexid(rng, 10), rng.randint(0x10000, 0x900000)))
        elif sig == -7:
            emit(J, T, f, "Fatal Python error: Bus error\n\nCurrent thread 0x%s (most recent call first):\n  File \"/workspace/ckpt/mmap_loader.py\", line 64 in read_tensor\n  File \"/workspace/%s\", line 251 in train" % (hexid(rng, 12), J.script))
        else:
            emit(J, T, f, "double free or corruption (!prev)\nFatal Python error: Aborted\n\nCurrent thread 0x%s (most recent call first):\n  File \"/workspace/tokenizer_ext.py\", line 31 in encode_batch" % hexid(rng, 12))
        J.exitcodes[f] = (T, sig)
        J.notes_inj.append("%s in rank %d" % (SIGNAME[sig], f))
        cascade(J, rng.choice(["remote", "timeout"]), T + dt.timedelta(seconds=2) if rng.random() < 0.5 else T + dt.timedelta(milliseconds=J.timeout_ms), seq)
    elif c == "preemption":
        J.job_wide = True
        J.rank_inferable = False
        J.preempt_kind = rng.choice(["PREEMPTION", "TIME LIMIT", "PREEMPTION"])
        J.sched.append((T, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO %s ***" % (J.jobid, J.hosts[0].short, L(J, T).strftime("%Y-%m-%dT%H:%M:%S"), J.preempt_kind)))
        J.sched.append((T + dt.timedelta(milliseconds=20), "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO %s ***" % (J.jobid, J.hosts[0].short, L(J, T).strftime("%Y-%m-%dT%H:%M:%S"), J.preempt_kind)))
        for nn_ in range(J.nn):
            lt = L(J, T + dt.timedelta(milliseconds=50))
            pre = "%s %d torch/distributed/elastic/agent/server/api.py:%d] " % (glog_ts(lt, "W", False), J.agent_pid[nn_], 704) if J.torch_ver >= "2.4" else "WARNING:torch.distributed.elastic.agent.server.api:"
            J.agent[nn_].append((T + dt.timedelta(milliseconds=50), pre + "Received 15 death signal, shutting down workers"))
            for r in range(nn_ * J.gpn, (nn_ + 1) * J.gpn):
                pre2 = "%s %d torch/distributed/elastic/multiprocessing/api.py:%d] " % (glog_ts(lt, "W", False), J.agent_pid[nn_], 897) if J.torch_ver >= "2.4" else "WARNING:torch.distributed.elastic.multiprocessing.api:"
                J.agent[nn_].append((T + dt.timedelta(microseconds=60000 + 137 * (r % J.gpn)), pre2 + "Sending process %d closing signal SIGTERM" % J.pids[r]))
            te = T + dt.timedelta(seconds=rng.uniform(2, 25))
            J.agent[nn_] += [(te, "Traceback (most recent call last):"), (te, '  File "/usr/local/bin/torchrun", line 8, in <module>'), (te, "    sys.exit(main())"),
                             (te, "  ..."), (te, "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % J.agent_pid[nn_])]
        J.notes_inj.append("job cancelled DUE TO %s" % J.preempt_kind)
        if rng.random() < 0.5:
            emit(J, T - dt.timedelta(seconds=rng.choice([60, 90, 120])), 0, "Handling auto-requeue signal: 10")
            emit(J, T - dt.timedelta(seconds=50), 0, "Requeued SLURM job: %d" % J.jobid)
        emit(J, T + dt.timedelta(milliseconds=80), 0, "[rank0]: received SIGTERM (signal 15) - saving emergency checkpoint to /checkpoints/%s/step_%07d" % (J.model, J.fault_step))
        J.no_summary = True
    elif c == "hang":
        J.stalled = True
        where = rng.choice(["a deadlock in the async checkpoint writer thread", "an infinite loop in the packing sampler", "a blocking barrier inside `if rank == %d` branch" % f])
        J.notes_inj.append("rank %d stopped progressing (%s) before SeqNum=%d" % (f, where.replace("`", ""), seq))
        tt = T + dt.timedelta(milliseconds=J.timeout_ms)
        cascade(J, "timeout", tt, seq)
        # the stuck rank: no watchdog timeout of its own; monitor reports dump signal
        fr_mode = rng.random()
        if shows_f and J.torch_ver >= "2.4":
            t2 = tt + dt.timedelta(seconds=rng.uniform(1, 3))
            emit(J, t2, f, tlog(J, f, t2, "E", "ProcessGroupNCCL.cpp:1409") + "%s Observed flight recorder dump signal from another rank via TCPStore." % pg_prefix(J, f))
            emit(J, t2, f, tlog(J, f, t2, "E", "ProcessGroupNCCL.cpp:1463") + "%s Received a dump signal due to a collective timeout from rank %d and we will try our best to dump the debug info. Last enqueued NCCL work: %d, last completed NCCL work: %d." % (pg_prefix(J, f), rng.choice([x for x in J.shown if x != f] or [0]), seq - 1, seq - 1))
            emit(J, t2, f, tlog(J, f, t2, "E", "ProcessGroupNCCL.cpp:1274") + "[Rank %d] ProcessGroupNCCL preparing to dump debug info. Include stack trace: 1" % f)
        elif shows_f:
            emit(J, T + dt.timedelta(seconds=1), f, "")  # nothing: old torch
            J.rank_inferable = False
        J.exitcodes[f] = (tt + dt.timedelta(seconds=rng.uniform(30, 60)), -6 if rng.random() < 0.5 else -9)
        if fr_mode < 0.45:
            J.fr_summary = (seq, f)
            J.rank_inferable = True
    elif c == "data_loader_stall":
        J.stalled = True
        if rng.random() < 0.4:
            J.job_wide = True
            fs = rng.choice(["fs01", "scratch"])
            mds = "10.9.0.%d" % rng.randint(2, 30)
            J.f = None
            J.fnode = None
            for nn_ in range(J.nn):
                kern(J, nn_, T + dt.timedelta(seconds=rng.uniform(0, 20)), "nfs: server %s not responding, still trying" % fs if fs == "fs01" else "LustreError: 11-0: scratch-MDT0000-mdc-ffff%s: operation mds_getattr to node %s@o2ib failed: rc = -107" % (hexid(rng, 12), mds))
                tb = T + dt.timedelta(seconds=rng.uniform(125, 200))
                kern(J, nn_, tb, "INFO: task pt_data_worker:%d blocked for more than 122 seconds." % rng.randint(1000, 99999))
                kern(J, nn_, tb + dt.timedelta(microseconds=31), "      Tainted: P           OE     %s #1" % rng.choice(["5.15.0-119-generic", "6.8.0-45-generic"]))
                kern(J, nn_, tb + dt.timedelta(microseconds=62), "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.")
            J.notes_inj.append("shared filesystem %s stalled on all nodes" % fs)
            J.rank_inferable = False
            t_to = T + dt.timedelta(seconds=1800)
            for r in J.shown:
                t = t_to + dt.timedelta(milliseconds=rng.randint(0, 3000))
                py_traceback(J, r, t, train_frames(J, [("/usr/lib/python3/dist-packages/torch/utils/data/dataloader.py", 1294, "_get_data", "success, data = self._try_get_data()"),
                                                       ("/usr/lib/python3/dist-packages/torch/utils/data/dataloader.py", 1145, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e")]),
                             "RuntimeError: DataLoader timed out after 1800 seconds")
                J.exitcodes[r] = (t + dt.timedelta(seconds=1), 1)
            for r in range(J.world):
                if r not in J.exitcodes:
                    J.exitcodes[r] = (t_to + dt.timedelta(milliseconds=rng.randint(0, 3000)), 1)
        else:
            kt = T + dt.timedelta(seconds=rng.uniform(130, 200))
            kern(J, n, kt, "INFO: task pt_data_worker:%d blocked for more than 122 seconds." % rng.randint(1000, 99999))
            kern(J, n, kt + dt.timedelta(microseconds=40), "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.")
            J.notes_inj.append("rank %d DataLoader workers stuck (local disk cache on %s)" % (f, J.hosts[n].short))
            to = rng.choice([300, 600, 1800])
            if to * 1000 < J.timeout_ms:
                py_traceback(J, f, T + dt.timedelta(seconds=to), train_frames(J, [("/usr/lib/python3/dist-packages/torch/utils/data/dataloader.py", 1145, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e")]),
                             "RuntimeError: DataLoader timed out after %d seconds" % to)
                J.exitcodes[f] = (T + dt.timedelta(seconds=to + 1), 1)
                cascade(J, "timeout", T + dt.timedelta(milliseconds=J.timeout_ms), seq)
            else:
                emit(J, T + dt.timedelta(seconds=rng.uniform(60, 200)), f, "[rank%d]: [W data] waited %ds for batch %d (prefetch queue empty, 8/8 workers busy)" % (f, rng.choice([60, 120, 180]), J.fault_step + 1))
                cascade(J, "timeout", T + dt.timedelta(milliseconds=J.timeout_ms), seq)
                J.exitcodes[f] = (T + dt.timedelta(milliseconds=J.timeout_ms + 40000), -15)
    elif c == "collective_mismatch":
        J.notes_inj.append("rank %d issued a different collective at SeqNum=%d" % (f, seq))
        if rng.random() < 0.55 or J.layout == "wandb_kernel":
            other = 0 if f != 0 else 1
            fp = lambda op, shp, dtp: "CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%s], TensorDtypes=%s, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))" % (seq, op, shp, dtp)
            a = fp("ALLREDUCE", str(J.numel), "BFloat16")
            b = rng.choice([fp("BROADCAST", "1", "Long"), fp("ALLREDUCE", str(J.numel // 2), "BFloat16"), fp("_ALLGATHER_BASE", str(J.numel // J.world or 1), "BFloat16")])
            for r in J.shown:
                if r == f:
                    continue
                t = T + dt.timedelta(milliseconds=rng.randint(0, 400))
                py_traceback(J, r, t, train_frames(J, [("/usr/lib/python3/dist-packages/torch/distributed/distributed_c10d.py", 2501, "all_reduce", "work = group.allreduce([tensor], opts)")]),
                             "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s." % (r, a, f, b))
                J.exitcodes[r] = (t + dt.timedelta(seconds=1), 1)
            for r in range(J.world):
                if r not in J.exitcodes and r != f:
                    J.exitcodes[r] = (T + dt.timedelta(seconds=1, milliseconds=rng.randint(0, 900)), 1)
            J.exitcodes[f] = (T + dt.timedelta(seconds=2), -15)
            J.rank_inferable = True
        else:
            tt = T + dt.timedelta(milliseconds=J.timeout_ms)
            cascade(J, "timeout", tt, seq)
            if shows_f:
                watchdog_timeout(J, f, tt + dt.timedelta(milliseconds=400), seq, op="BROADCAST", numel=1)
            J.exitcodes[f] = (tt + dt.timedelta(milliseconds=900), -6)
            if rng.random() < 0.5:
                J.fr_mismatch = (seq, f)
                J.rank_inferable = True
    elif c == "straggler":
        J.straggle = (f, rng.uniform(1.4, 2.6))
        J.notes_inj.append("rank %d on %s persistently slow (x%.1f), job kept running" % (f, J.hosts[n].short, J.straggle[1]))
        J.nvsmi[n] = ("slow", g)
        J.rank_inferable = True
    elif c == "unknown":
        J.job_wide = True
        J.rank_inferable = False
        kind = rng.choice(["sigkill", "exit1", "truncated"])
        J.unknown_kind = kind
        if kind == "sigkill":
            # everything dies -9 with no kernel/scheduler evidence
            for r in range(J.world):
                J.exitcodes[r] = (T + dt.timedelta(milliseconds=rng.randint(0, 1500)), -9)
        elif kind == "exit1":
            # one process exits 1 without printing anything (its stderr was not captured); peers lose it
            J.f = rng.randrange(J.world)
            J.exitcodes[J.f] = (T, 1)
            cascade(J, "remote", T + dt.timedelta(seconds=1), seq)
            J.f = None
        else:
            J.no_summary = True
            J.sched.append((T + dt.timedelta(seconds=rng.uniform(30, 300)), "srun: error: %s: task 0: Exited with exit code 1" % J.hosts[0].short))
        J.notes_inj.append("failure with no root-cause evidence (%s)" % kind)
    if J.f is None and c not in ("straggler",):
        J.fnode = None if J.job_wide or c in ("preemption", "unknown") else J.fnode
    # keep the days-old Xid decoy off the faulty GPU itself (it would turn into real evidence)
    ox = getattr(J, "old_xid", None)
    if ox and J.fnode is not None and ox[0] == J.fnode and ox[3] == J.flocal and J.gpn > 1:
        g2 = (ox[3] + 1 + rng.randrange(J.gpn - 1)) % J.gpn
        for i, (t, m) in enumerate(J.kern[ox[0]]):
            if t == ox[1]:
                J.kern[ox[0]][i] = (t, m.replace("PCI:0000:%s:00" % J.pci[ox[3]], "PCI:0000:%s:00" % J.pci[g2]))


def finish(J):
    """progress logs, decoys, summaries. returns the end time."""
    rng = J.rng
    c = J.cause
    if not hasattr(J, "shown"):
        J.shown = sample_ranks(J)
    if c == "straggler":
        f, k = J.straggle
        end = J.fault_t + dt.timedelta(hours=rng.uniform(1, 5))
        progress(J, end)
        t = J.start + dt.timedelta(seconds=600)
        while t < end:
            t += dt.timedelta(seconds=rng.choice([600, 900, 1200]))
            med = J.step_time * rng.uniform(0.55, 0.7)
            emit(J, t, 0, "[straggler] step-time report (%d ranks): median compute %.2fs, p99 %.2fs, slowest rank %d (%s, local %d) %.2fs; others wait in all_reduce" % (J.world, med, med * 1.05, f, J.hosts[node_of(J, f)].short, f % J.gpn, med * k * rng.uniform(0.95, 1.05)) if t > J.fault_t else "[straggler] step-time report (%d ranks): median compute %.2fs, p99 %.2fs" % (J.world, med, med * 1.04))
        J.end_t = end
        J.still_running = True
        return end
    if c is None:
        end = J.start + dt.timedelta(hours=rng.uniform(0.5, 8))
        last = progress(J, end)
        emit(J, end, 0, "Training complete: %d steps, final checkpoint /checkpoints/%s/step_%07d" % (last, J.model, last))
        if rng.random() < 0.7:
            benign_teardown(J, end + dt.timedelta(seconds=3), [r for r in J.shown if rng.random() < 0.5] or [0])
        J.end_t = end + dt.timedelta(seconds=5)
        return J.end_t
    if c == "python_exception" and J.job_wide:
        pass
    else:
        progress(J, J.fault_t if not J.stalled else J.fault_t)
    ends = [t for t, _ in J.exitcodes.values()]
    end = max(ends) if ends else J.fault_t + dt.timedelta(seconds=5)
    if not getattr(J, "no_summary", False) and J.exitcodes:
        agent_summaries(J, host_spell=rng.choice(["fqdn", "short"]))
        slurm_teardown(J, end)
    J.end_t = end + dt.timedelta(seconds=10)
    return J.end_t


def compute_inferable(J):
    """True when the written logs name the initiating rank (own rank-tagged lines after the fault,
    a message naming it, a flight-recorder analysis, or its node's torchrun root cause with a non-collateral exit)."""
    f = J.f
    if f is None or J.cause is None:
        return False
    tmin = J.fault_t - dt.timedelta(minutes=2)
    ids = ["[rank%d]:" % f, "Rank %d]" % f]
    for t, r, x in J.inc:
        if r == f and t >= tmin and x.strip():
            if any(p in x for p in ids) or r in J.labeled or (J.inc_tee and J.nn == 1) or J.layout == "wandb_kernel":
                return True
    named = ["but Rank %d is running" % f, "slowest rank %d " % f]
    for t, r, x in J.inc:
        if any(p in x for p in named):
            return True
    if J.fr_inc and (getattr(J, "fr_summary", None) or getattr(J, "fr_mismatch", None)):
        return True
    roots = getattr(J, "roots", {})
    if J.fnode in J.inc_agents and J.fnode in roots and roots[J.fnode][1] == f:
        if roots[J.fnode][2] not in (-6, -15):
            return True
        # a collateral-looking exit code, but its "time" (whole seconds) is earlier than every other node's root cause
        sec = lambda t: L(J, t).replace(microsecond=0)
        others = [sec(v[0]) for n, v in roots.items() if n != J.fnode and n in J.inc_agents]
        if others and sec(roots[J.fnode][0]) < min(others):
            return True
    return False


def truth(J):
    c = J.cause
    if c is None:
        return {"cause": None, "healthy": True, "rank": None, "node": None, "drain": False, "rank_inferable": False,
                "node_aliases": [], "layout": J.layout, "notes": ""}
    jw = J.job_wide or c in ("preemption", "unknown")
    rank = None if jw or J.f is None else J.f
    node = None if jw or J.fnode is None else J.hosts[J.fnode]
    spelled = None
    aliases = []
    if node is not None:
        spelled = node.short
        aliases = [node.fqdn, node.ip] + ([node.pod] if node.pod else [])
    return {"cause": c, "healthy": False, "rank": rank, "node": spelled,
            "drain": bool(c in DRAIN_CAUSES and node is not None),
            "rank_inferable": bool(rank is not None and J.rank_inferable),
            "node_aliases": aliases, "layout": J.layout, "notes": ""}


def notes(J, extra=""):
    s = "world=%d (%d nodes x %d GPU %s), torch %s, NCCL %s, tz %s; injected %s; decoys %s" % (
        J.world, J.nn, J.gpn, J.arch, J.torch_ver, J.nccl_ver, J.tzname,
        "; ".join(J.notes_inj) or "none (healthy)", "; ".join(J.notes_dec) or "none")
    return s + (("; " + extra) if extra else "")


# ---------------------------------------------------------------- rendering helpers
def sorted_events(J, ranks=None):
    ev = [(t, i, r, x) for i, (t, r, x) in enumerate(J.events) if ranks is None or r in ranks]
    ev.sort(key=lambda e: (e[0], e[1]))
    return ev


def rank_stream(J, ranks=None, tee=False, cap_lines=None):
    out = []
    for t, _, r, x in sorted_events(J, ranks):
        out.append(("[default%d]:" % (r % J.gpn) + x) if tee else x)
    if cap_lines and len(out) > cap_lines:
        out = out[:cap_lines // 3] + ["... [%d lines trimmed] ..." % (len(out) - cap_lines)] + out[-(cap_lines - cap_lines // 3):]
    return out


def merged(J, ranks=None, tee=False, include_agent=True, include_sched=True, nodes=None):
    items = []
    k = 0
    J.inc_tee = J.inc_tee or tee
    for t, _, r, x in sorted_events(J, ranks):
        items.append((t, k, ("[default%d]:" % (r % J.gpn) + x) if tee else x))
        J.inc.append((t, r, x))
        k += 1
    if include_agent:
        for n, lst in J.agent.items():
            if nodes is not None and n not in nodes:
                continue
            J.inc_agents.add(n)
            for t, x in lst:
                items.append((t, k, x))
                k += 1
    if include_sched:
        for t, x in J.sched:
            items.append((t, k, x))
            k += 1
    items.sort(key=lambda e: (e[0], e[1]))
    return [x for _, _, x in items]


def kernel_text(J, n, fmt, since=None):
    h = J.hosts[n]
    boot = J.start - J.uptime[n]
    lst = sorted([e for e in J.kern[n] if e[0] >= boot and e[1]], key=lambda e: e[0])
    if since is not None:
        lst = [e for e in lst if e[0] >= since]
    return [kline(fmt, h.short, boot, L(J, t) if fmt != "raw" else t, m) for t, m in lst]


def nvsmi_lines(J, n):
    st = J.nvsmi.get(n)
    rng = J.rng
    out = []
    for g in range(J.gpn):
        busid = "00000000:%s:00.0" % J.pci[g].upper()
        if st and st[0] == "lost" and st[1] == g:
            continue
        temp = rng.randint(31, 44) if J.healthy or not J.exitcodes else rng.randint(28, 40)
        util = 0 if (J.exitcodes or J.healthy) else rng.randint(90, 100)
        if st and st[0] == "slow" and st[1] == g:
            out.append("%d, %s, %s, %d, %d %%, %d MiB, HW Slowdown: Active, 0" % (g, GPU_NAME[J.arch], busid, rng.randint(88, 94), rng.randint(97, 100), rng.randint(60000, 78000)))
            continue
        if st and st[0] == "slow":
            temp = rng.randint(55, 72)
            util = rng.randint(96, 100)
        dbe = 0
        if st and st[0] == "ecc" and st[1] == g:
            dbe = rng.randint(1, 4)
        out.append("%d, %s, %s, %d, %d %%, %d MiB, HW Slowdown: Not Active, %d" % (g, GPU_NAME[J.arch], busid, temp, util, 0 if util == 0 else rng.randint(60000, 78000), dbe))
    if st and st[0] == "lost":
        out.insert(0, "Unable to determine the device handle for GPU0000:%s:00.0: Unknown Error" % J.pci[st[1]])
    if st and st[0] == "err":
        out.append("WARNING: infoROM is corrupted at gpu 0000:%s:00.0" % J.pci[st[1]] if rng.random() < 0.3 else "GPU 0000:%s:00.0: GPU requires reset" % J.pci[st[1]])
    return out


def ibstat_lines(J, n):
    down = J.ibdown.get(n)
    out = []
    for k in range(min(J.gpn, 8)):
        st = "Down" if down == k else "Active"
        ph = "Polling" if down == k else "LinkUp"
        out += ["CA 'mlx5_%d'" % k, "\tPort 1:", "\t\tState: %s" % st, "\t\tPhysical state: %s" % ph, "\t\tRate: %d" % (400 if J.arch != "A100" else 200)]
    return out


# ---------------------------------------------------------------- writers
class Out:
    def __init__(self, root):
        self.root = root
        self.size = 0

    def write(self, rel, data, crlf=False):
        if isinstance(data, list):
            data = "\n".join(data) + "\n"
        if isinstance(data, str):
            if crlf:
                data = data.replace("\n", "\r\n")
            data = data.encode("utf-8")
        p = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as fh:
            fh.write(data)
        self.size += len(data)

    def write_gz(self, rel, text):
        buf = io.BytesIO()
        with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0) as gz:
            gz.write(text.encode("utf-8"))
        self.write(rel, buf.getvalue())


def cap(lines, maxbytes):
    tot = sum(len(x) + 1 for x in lines)
    if tot <= maxbytes:
        return lines
    keep_head, keep_tail = [], []
    budget = maxbytes // 3
    s = 0
    for x in lines:
        s += len(x) + 1
        if s > budget:
            break
        keep_head.append(x)
    s = 0
    for x in reversed(lines):
        s += len(x) + 1
        if s > maxbytes - budget - 200:
            break
        keep_tail.append(x)
    keep_tail.reverse()
    return keep_head + ["[... %d lines omitted ...]" % (len(lines) - len(keep_head) - len(keep_tail))] + keep_tail


# ---------------------------------------------------------------- layout 1: clush + slurm
def hostrange(J):
    a, b = J.off + 1, J.off + J.nn
    return "%s[%0*d-%0*d]" % (J.stem, J.width, a, J.width, b)


def layout_clush(J, o):
    rng = J.rng
    lines = ["+ srun --nodes=%d --ntasks-per-node=1 torchrun --nnodes=%d --nproc-per-node=%d --rdzv-backend=c10d --rdzv-endpoint=%s:29500 %s --config cfg/%s.yaml"
             % (J.nn, J.nn, J.gpn, J.hosts[0].short, J.script, J.model)]
    body = merged(J, ranks=set(J.shown))
    lines += body
    if getattr(J, "still_running", False):
        pass
    o.write("slurm-%d.out" % J.jobid, cap(lines, 600_000))
    # clush diagnostics gathered after the failure
    fmt = rng.choice(["T", "T", "raw"])
    hr = hostrange(J)
    diag = []
    since = J.start - dt.timedelta(days=12)
    J.mgmt = rng.choice(["mgmt01", "head", "slurm-ctl"])
    diag.append("[root@%s ~]# clush -w %s 'dmesg%s | grep -Ei \"nvrm|xid|mlx5|oom|segfault|blocked for|nfs|Lustre|AER\" | tail -n 40'" % (J.mgmt, hr, " -T" if fmt == "T" else ""))
    order = list(range(J.nn))
    rng.shuffle(order)   # clush prints nodes as they answer
    grouped = []
    for n in order:
        kl = [x for x in kernel_text(J, n, fmt) if any(k in x for k in ("NVRM", "Xid", "mlx5", "oom", "Killed process", "segfault", "blocked for", "nfs", "Lustre", "AER", "oom_reaper", "hung_task", "memory: usage"))][-40:]
        for x in kl:
            grouped.append("%s: %s" % (J.hosts[n].short, x))
        if not kl:
            grouped.append("clush: %s: exited with exit code 1" % J.hosts[n].short)
    diag += grouped
    diag.append("")
    diag.append("[root@%s ~]# clush -w %s 'nvidia-smi --query-gpu=index,name,pci.bus_id,temperature.gpu,utilization.gpu,memory.used,clocks_event_reasons.hw_slowdown,ecc.errors.uncorrected.volatile.total --format=csv,noheader'" % (J.mgmt, hr))
    for n in order:
        for x in nvsmi_lines(J, n):
            diag.append("%s: %s" % (J.hosts[n].short, x))
    diag.append("")
    diag.append("[root@%s ~]# clush -w %s \"ibstat | grep -E \\\"CA '|State\\\"\"" % (J.mgmt, hr))
    for n in order:
        for x in ibstat_lines(J, n):
            if "CA '" in x or "State" in x:
                diag.append("%s: %s" % (J.hosts[n].short, x))
    o.write("node_diag_%s.txt" % L(J, J.end_t).strftime("%Y%m%d"), cap(diag, 350_000))
    return "clush -w %s dmesg/nvidia-smi/ibstat + slurm-%d.out" % (hr, J.jobid)


# ---------------------------------------------------------------- layout 2: wandb run folder + node kernel logs
def layout_wandb(J, o):
    rng = J.rng
    rid = hexid(rng, 8)
    st = J.start
    d = "wandb/run-%s-%s" % (st.strftime("%Y%m%d_%H%M%S"), rid)
    out = []
    # output.log = rank 0 process stdout/stderr, no prefixes (wandb console capture)
    for t, _, r, x in sorted_events(J, {0}):
        out.append(x)
        J.inc.append((t, r, x))
    o.write(d + "/files/output.log", cap(out, 400_000))
    meta = {"os": "Linux-%s-x86_64-with-glibc2.35" % rng.choice(["5.15.0-119-generic", "6.8.0-45-generic", "5.14.0-427.el9.x86_64"]),
            "python": "CPython 3.%d.%d" % (rng.choice([10, 11]), rng.randint(4, 14)),
            "startedAt": st.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
            "args": ["--config", "cfg/%s.yaml" % J.model], "program": "/workspace/%s" % J.script,
            "codePath": J.script, "git": {"remote": "git@github.com:acme-ml/trainer.git", "commit": hexid(rng, 40)},
            "root": "/workspace", "host": J.hosts[0].short, "username": rng.choice(["svc-train", "jdoe", "mlops"]),
            "executable": "/usr/bin/python3", "cpu_count": 96, "cpu_count_logical": 192,
            "gpu": GPU_NAME[J.arch], "gpu_count": J.gpn,
            "gpu_nvidia": [{"name": GPU_NAME[J.arch], "memoryTotal": "85520809984" if J.arch != "H200" else "150754820096", "architecture": "Hopper" if J.arch != "A100" else "Ampere", "uuid": J.uuids[0][g]} for g in range(J.gpn)],
            "cudaVersion": "12.%d" % rng.choice([2, 4, 6]),
            "slurm": {"job_id": str(J.jobid), "nnodes": str(J.nn), "nodelist": ",".join(h.short for h in J.hosts) if J.nn <= 8 else "%s,...,%s" % (J.hosts[0].short, J.hosts[-1].short)}}
    o.write(d + "/files/wandb-metadata.json", json.dumps(meta, indent=2))
    rt = (J.end_t - J.start).total_seconds()
    summ = {"_runtime": round(rt, 3), "_step": getattr(J, "last_step", 0), "_timestamp": round(J.end_t.timestamp(), 3),
            "train/loss": round(rng.uniform(1.5, 3.5), 4), "train/lr": 3e-4, "_wandb": {"runtime": int(rt)}}
    o.write(d + "/files/wandb-summary.json", json.dumps(summ))
    o.write(d + "/files/config.yaml", ["_wandb:", "  value:", "    cli_version: 0.%d.%d" % (rng.randint(16, 19), rng.randint(0, 9)), "world_size:", "  value: %d" % J.world, "model:", "  value: %s" % J.model])
    # node kernel logs: fault node (if any) + a few others
    fmt = rng.choice(["journal", "iso", "syslog", "raw"])
    nodes = set(rng.sample(range(J.nn), min(J.nn, rng.randint(1, 4))))
    if J.fnode is not None:
        nodes.add(J.fnode)
    for n in range(J.nn):
        if any(J.kern[n]) and J.cause == "data_loader_stall" and J.job_wide and len(nodes) < 3:
            nodes.add(n)
    for n in sorted(nodes):
        kt = kernel_text(J, n, fmt, since=J.start - dt.timedelta(days=14))
        o.write("node-logs/%s.kern.log" % J.hosts[n].short, cap(kt, 120_000))
    if J.fnode is not None and J.f != 0:
        J.rank_inferable = J.rank_inferable and J.cause in ("collective_mismatch", "straggler")
    return "wandb run %s rank-0 output.log + kernel logs of %d node(s)" % (rid, len(nodes))


# ---------------------------------------------------------------- layout 3: rotated messy console
ANSI = {"E": "\x1b[31m", "W": "\x1b[33m", "I": "\x1b[32m", "0": "\x1b[0m"}


def messy(J, lines):
    rng = J.rng
    out = []
    for x in lines:
        if ("[E" in x or "Error" in x or "Traceback" in x) and rng.random() < 0.5:
            x = ANSI["E"] + x + ANSI["0"]
        elif "Warning" in x and rng.random() < 0.5:
            x = ANSI["W"] + x + ANSI["0"]
        elif x.startswith("step ") or x.startswith("[default0]:step "):
            pct = rng.randint(1, 99)
            bar = "\r" + "".join("Training:  %d%%|%s%s| %d/%d [%02d:%02d<%02d:%02d, %.2fit/s]\r" % (p, "#" * (p // 10), " " * (10 - p // 10), p * 10, 1000, p // 7, p % 60, (100 - p) // 7, (100 - p) % 60, 1 / max(J.step_time, 0.1)) for p in (pct, min(99, pct + 1)))
            x = bar + ANSI["I"] + x + ANSI["0"]
        out.append(x)
    return out


def layout_rotated(J, o):
    rng = J.rng
    tee = True
    ranks = set(J.shown)
    lines = ["$ srun --nodes=%d --ntasks-per-node=1 torchrun --nnodes=%d --nproc-per-node=%d --tee 3 %s 2>&1 | tee -a logs/train.log  (logrotate size=%s)" % (J.nn, J.nn, J.gpn, J.script, rng.choice(["20M", "50M"]))]
    lines += merged(J, ranks=ranks, tee=tee, include_sched=True)
    lines = messy(J, lines)
    # split in 2 or 3 parts; the split point may fall before or after the fault
    nparts = rng.choice([2, 3])
    n = len(lines)
    cuts = sorted(rng.sample(range(max(2, n // 5), max(3, n - 3)), nparts - 1)) if n > 10 else [n // 2] * (nparts - 1)
    parts = []
    prev = 0
    for cpos in cuts + [n]:
        parts.append(lines[prev:cpos])
        prev = cpos
    crlf = rng.random() < 0.6
    names = ["train.log.2.gz", "train.log.1", "train.log"][-nparts:]
    for nm, pl in zip(names, parts):
        text = "\n".join(cap(pl, 280_000)) + "\n"
        if crlf:
            text = text.replace("\n", "\r\n")
        if nm.endswith(".gz"):
            o.write_gz("logs/" + nm, text)
        else:
            o.write("logs/" + nm, text)
    # dmesg captures the user saved for some nodes
    fmt = rng.choice(["T", "raw", "syslog"])
    dn = set()
    if J.fnode is not None and J.cause in ("gpu_hardware", "ecc_memory", "nvlink", "network", "host_oom_kill", "crash_signal", "illegal_memory_access") or rng.random() < 0.4:
        dn.add(J.fnode if J.fnode is not None else rng.randrange(J.nn))
    if J.nn > 1 and rng.random() < 0.5:
        dn.add(rng.randrange(J.nn))
    if J.cause == "data_loader_stall" and J.job_wide:
        dn.add(0)
    for nn_ in sorted(dn):
        o.write("dmesg-%s.txt" % J.hosts[nn_].short, cap(kernel_text(J, nn_, fmt)[-300:], 80_000))
    return "rotated %s (%s%s)" % ("+".join(names), "CRLF, " if crlf else "", "ANSI+tqdm")


# ---------------------------------------------------------------- layout 4: HyperPod / ParallelCluster auto-resume
def layout_hyperpod(J, o):
    rng = J.rng
    pc = J.hosts[0].short.startswith("queue1")
    lines = []
    jid = J.jobid
    failed = J.cause not in (None, "straggler", "preemption")
    hw = J.cause in DRAIN_CAUSES and J.fnode is not None
    if not pc:
        lines.append("Detected Hyperpod cluster.. enabling --auto-resume=1")
        hdr = "+ srun --auto-resume=1 --nodes=%d torchrun --nnodes=%d --nproc-per-node=8 %s" % (J.nn, J.nn, J.script)
        for n in range(J.nn):
            J.sched.append((J.start + dt.timedelta(milliseconds=300 + 7 * n), "[Auto Resume] Info: JobID: %d StepID: 0 TaskID: %d process_task_init" % (jid, n)))
        roots = sorted(getattr(J, "roots", {}).items(), key=lambda kv: kv[1][3])
        if failed and roots:
            n0, (t0, r0, c0, tsum) = roots[0]
            J.sched.append((tsum + dt.timedelta(seconds=4.8), "[Auto Resume] Error: JobID: %d StepID: 0 TaskID: %d Task failed on node %s" % (jid, n0, J.hosts[n0].short)))
            J.sched.append((tsum + dt.timedelta(seconds=4.9), "[Auto Resume] Info: JobID: %d StepID: 0 TaskID: %d Successfully terminated the step since task exited with status: 256 " % (jid, n0)))
    else:
        hdr = "+ srun --nodes=%d torchrun --nnodes=%d --nproc-per-node=8 %s" % (J.nn, J.nn, J.script)
        lines.append("SLURM_JOB_ID=%d SLURM_RESTART_COUNT=0 nodes=%s" % (jid, nodelist(J, range(J.nn))))
    lines.append(hdr)
    lines += merged(J, ranks=set(J.shown))
    split = False
    resume_lines = []
    jid2 = jid
    if failed:
        healthy_nodes = [J.hosts[i] for i in range(J.nn) if not (hw and i == J.fnode)]
        if not pc:
            resume_lines.append("[Auto Resume] Info: JobID: %d StepID: 0 Initiating communication with cluster agent to diagnose health of nodes" % jid)
            resume_lines.append("[Auto Resume] Info: JobID: %d StepID: 0 Response from cluster agent: JobId=%d, ResumeAction=RETRYSTEP" % (jid, jid))
            if hw:
                resume_lines.append("[Auto Resume] Info: JobID: %d StepID: 0 Job failed - replacing nodes" % jid)
                resume_lines.append("[Auto Resume] Info: JobID: %d StepID: 0 Job failed - Droping unhealthy nodes" % jid)
                resume_lines.append("[Auto Resume] Info: JobID: %d StepID: 0 Succesfully shrink job to retain healthy nodes %s" % (jid, nodelist_h(healthy_nodes)))
                resume_lines.append("srun: job %d queued and waiting for resources" % (jid + rng.randint(1, 9)))
                resume_lines.append("[Auto Resume] Info: JobID: %d StepID: 0 Job Expansion complete" % jid)
                resume_lines.append("[Auto Resume] Info: JobID: %d StepID: 0 Updating to new node list %s" % (jid, nodelist_h(J.hosts[:J.nn])))
                J.notes_dec.append("HyperPod replaced the instance behind %s; it keeps its name in attempt 2" % J.hosts[J.fnode].short)
            resume_lines.append("[Auto Resume] Info: JobID: %d StepID: 0 Retrying step. Attempt number: 1" % jid)
        else:
            split = rng.random() < 0.5
            if split:
                jid2 = jid + rng.randint(1, 40)
                resume_lines.append("SLURM_JOB_ID=%d SLURM_RESTART_COUNT=0 nodes=%s   # resubmitted with --dependency=afternotok:%d" % (jid2, nodelist(J, range(J.nn)), jid))
            else:
                resume_lines.append("SLURM_JOB_ID=%d SLURM_RESTART_COUNT=1 nodes=%s" % (jid, nodelist(J, range(J.nn))))
            if hw:
                J.notes_dec.append("ParallelCluster replaced the instance behind %s; it keeps its name in attempt 2" % J.hosts[J.fnode].short)
        if pc:
            resume_lines.append(hdr)   # the batch script runs again from the top
        step = max(0, J.fault_step - rng.randint(50, 400))
        resume_lines.append("Resuming from checkpoint /fsx/checkpoints/%s/step_%07d" % (J.model, step))
        for k in range(rng.randint(20, 120)):
            step += 50
            J.last_loss = max(1.5, J.last_loss * rng.uniform(0.996, 1.001))
            resume_lines.append("step %d | loss %.4f | lr %.3e | %.2f s/it | tok/s %d" % (step, J.last_loss, 3e-4 * rng.uniform(0.6, 1.0), J.step_time * rng.uniform(0.97, 1.03), int(rng.uniform(2e5, 2e6))))
        if rng.random() < 0.5:
            resume_lines.append("Training complete: %d steps" % step)
        if not pc:
            split = rng.random() < 0.3
    if split:
        o.write("slurm-%d.out" % jid, cap(lines, 500_000))
        o.write("slurm-%d.out" % jid2 if jid2 != jid else "slurm-%d-restart1.out" % jid, cap(resume_lines, 200_000))
    else:
        o.write("slurm-%d.out" % jid, cap(lines + resume_lines, 700_000))
    # logs shipped from /var/log (syslog) before the instance was replaced
    shipped = set()
    if J.fnode is not None and J.cause in ("gpu_hardware", "ecc_memory", "nvlink", "network", "host_oom_kill", "crash_signal", "illegal_memory_access", "data_loader_stall"):
        shipped.add(J.fnode)
    if rng.random() < 0.6:
        shipped.add(rng.randrange(J.nn))
    if J.cause == "data_loader_stall" and J.job_wide:
        shipped.add(0)
    for n in sorted(shipped):
        o.write("cloudwatch/%s/syslog" % J.hosts[n].short, cap(kernel_text(J, n, "syslog", since=J.start - dt.timedelta(days=10)), 100_000))
    return "%s, %s" % ("ParallelCluster requeue/resubmit" if pc else "HyperPod auto-resume", ("second attempt in a new file" if split else "second attempt appended") if failed else "single attempt")


# ---------------------------------------------------------------- layout 5: bug report markdown
def layout_bug(J, o):
    rng = J.rng
    md = []
    title = {None: "Training finishes but prints NCCL warnings at exit - is this a problem?",
             "straggler": "Training got ~%d%% slower after a few hours, no errors" % rng.randint(30, 60)}.get(J.cause, rng.choice(["NCCL timeout / job crashes after a few hours", "[Bug] distributed training dies with ProcessGroupNCCL watchdog error", "Job killed, not sure why" + (" (multi-node)" if J.nn > 1 else ""), "Random crash during training at step %d" % J.fault_step]))
    md.append("# %s" % title)
    md.append("")
    md.append("### Describe the bug")
    md.append("")
    guess = rng.choice(["I think this is an NCCL bug because the error mentions NCCL.", "Might be related to the new torch version?", "It worked fine last week on a different partition.", "Happens maybe once every two days, always a different step."])
    md.append("We are training %s on %d GPUs (%d nodes x %d). %s" % (J.model, J.world, J.nn, J.gpn, guess))
    md.append("")
    md.append("### Command")
    md.append("")
    md.append("```bash")
    md.append("srun --nodes=%d --ntasks-per-node=1 torchrun --nnodes=%d --nproc-per-node=%d --rdzv-backend=c10d --rdzv-endpoint=$MASTER_ADDR:29500 %s --config cfg/%s.yaml" % (J.nn, J.nn, J.gpn, J.script, J.model) if J.nn > 1 else "srun --nodes=1 --gpus-per-node=%d torchrun --standalone --nproc-per-node=%d %s --config cfg/%s.yaml" % (J.gpn, J.gpn, J.script, J.model))
    md.append("```")
    md.append("")
    md.append("### Environment")
    md.append("")
    md.append("<details><summary>python -m torch.utils.collect_env</summary>")
    md.append("")
    md.append("```")
    md += ["Collecting environment information...", "PyTorch version: %s+cu12%d" % (J.torch_ver, rng.choice([1, 4, 6])), "Is debug build: False",
           "CUDA used to build PyTorch: 12.%d" % rng.choice([1, 4, 6]), "ROCM used to build PyTorch: N/A", "",
           "OS: Ubuntu 22.04.4 LTS (x86_64)", "GCC version: (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0", "Clang version: Could not collect",
           "CMake version: version 3.29.2", "Libc version: glibc-2.35", "",
           "Python version: 3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0] (64-bit runtime)",
           "Python platform: Linux-5.15.0-113-generic-x86_64-with-glibc2.35", "Is CUDA available: True",
           "CUDA runtime version: 12.4.131", "CUDA_MODULE_LOADING set to: LAZY", "GPU models and configuration: "]
    md += ["GPU %d: %s" % (g, GPU_NAME[J.arch]) for g in range(J.gpn)]
    md += ["", "Nvidia driver version: %s" % J.driver, "cuDNN version: Could not collect",
           "HIP runtime version: N/A", "MIOpen runtime version: N/A", "Is XNNPACK available: True", "",
           "Versions of relevant libraries:", "[pip3] numpy==1.26.4", "[pip3] nvidia-nccl-cu12==%s" % J.nccl_ver, "[pip3] torch==%s" % J.torch_ver,
           "[pip3] triton==3.%d.0" % rng.randint(0, 2), "[conda] Could not collect"]
    md.append("```")
    md.append("</details>")
    md.append("")
    md.append("### Logs")
    md.append("")
    # pick pieces: a chunk of rank-0 output, the failing bits of a few ranks, agent summaries
    rank0 = [(t, r, x) for t, _, r, x in sorted_events(J, {0})]
    if rank0:
        md.append("Output of rank 0 (last lines):")
        md.append("")
        md.append("```")
        sl = rank0[-rng.randint(15, 40):]
        J.inc += sl
        J.labeled.add(0)
        md += [x for _, _, x in sl]
        md.append("```")
        md.append("")
    others = [r for r in J.shown if r != 0]
    rng.shuffle(others)
    picked = others[:rng.randint(1, 4)]
    if J.f is not None and J.f in J.shown and J.f not in picked and J.f != 0:
        if not J.omit_ok or rng.random() < 0.8:
            picked.append(J.f)
    if J.cause == "hang" and J.f not in picked:
        J.rank_inferable = getattr(J, "fr_summary", None) is not None
    for r in sorted(picked):
        evt = [(t, rr, x) for t, _, rr, x in sorted_events(J, {r})]
        if not evt:
            continue
        evt = evt[-rng.randint(12, 45):]
        J.inc += evt
        J.labeled.add(r)
        ev = [x for _, _, x in evt]
        if r == J.f or rng.random() < 0.5:
            md.append(rng.choice(["rank %d log (node %s):" % (r, J.hosts[node_of(J, r)].short), "This is from rank %d, which runs on %s:" % (r, J.hosts[node_of(J, r)].short)]))
        else:
            md.append(rng.choice(["This is from rank %d:" % r, "and rank %d shows this, I cut the middle part" % r]))
        md.append("")
        md.append("```")
        md += ev
        md.append("```")
        md.append("")
    if J.agent:
        ns = [n for n in J.agent if J.agent[n]]
        rng.shuffle(ns)
        for n in ns[:rng.randint(1, 2)]:
            J.inc_agents.add(n)
            md.append("torchrun on %s printed:" % J.hosts[n].short)
            md.append("")
            md.append("```")
            md += [x for _, x in J.agent[n]][-34:]
            md.append("```")
            md.append("")
    if J.sched:
        md.append("End of the slurm output:")
        md.append("")
        md.append("```")
        md += [x for _, x in sorted(J.sched, key=lambda e: e[0])]
        md.append("```")
        md.append("")
    fr = getattr(J, "fr_summary", None) or getattr(J, "fr_mismatch", None)
    if fr:
        md.append("Our infra team ran the flight recorder analyzer on the dumps:")
        md.append("")
        md.append("```")
        md += fr_text(J, fr)
        J.fr_inc = True
        md.append("```")
        md.append("")
    if J.fnode is not None and (J.cause in ("gpu_hardware", "ecc_memory", "nvlink", "network", "illegal_memory_access", "host_oom_kill", "crash_signal", "data_loader_stall") or rng.random() < 0.3):
        md.append("Admin gave me `dmesg -T` from %s (not sure if relevant):" % J.hosts[J.fnode].short)
        md.append("")
        md.append("```")
        md += kernel_text(J, J.fnode, "T")[-25:]
        md.append("```")
        md.append("")
    elif J.cause == "data_loader_stall" and J.job_wide:
        md.append("dmesg on %s around that time:" % J.hosts[0].short)
        md.append("")
        md.append("```")
        md += kernel_text(J, 0, "T")[-12:]
        md.append("```")
        md.append("")
    elif rng.random() < 0.5:
        n = rng.randrange(J.nn)
        md.append("dmesg from %s, I don't see anything weird:" % J.hosts[n].short)
        md.append("")
        md.append("```")
        md += kernel_text(J, n, "T")[-10:]
        md.append("```")
        md.append("")
    if J.cause == "straggler":
        md.append("The only thing that looks odd is this from rank 0 (`grep straggler rank0.log | tail -n 4`):")
        md.append("")
        md.append("```")
        st = [(t, r, x) for t, _, r, x in sorted_events(J, {0}) if "[straggler]" in x][-4:]
        J.inc += st
        md += [x for _, _, x in st]
        md.append("```")
        md.append("")
        md.append("`nvidia-smi --query-gpu=index,name,pci.bus_id,temperature.gpu,utilization.gpu,memory.used,clocks_event_reasons.hw_slowdown,ecc.errors.uncorrected.volatile.total --format=csv,noheader` on %s:" % J.hosts[J.fnode].short)
        md.append("")
        md.append("```")
        md += nvsmi_lines(J, J.fnode)
        md.append("```")
        md.append("")
    if J.fnode is not None and J.hosts[J.fnode].short not in "\n".join(md):
        md.append("Our admin says %s was the node with the most errors, here is its `dmesg -T | tail`:" % J.hosts[J.fnode].short)
        md.append("")
        md.append("```")
        md += kernel_text(J, J.fnode, "T")[-12:]
        md.append("```")
        md.append("")
    md.append("### Expected behavior")
    md.append("")
    md.append("Training should run to completion." if J.cause is not None else "No scary warnings at shutdown.")
    o.write("ISSUE.md", cap(md, 800_000))
    return "bug-report markdown"


def fr_text(J, fr):
    seq, f = fr
    others = [r for r in range(J.world) if r != f]
    ex = sorted(set([0] + others[:3] + [f]))
    if J.cause == "hang":
        return ["Not all ranks joining collective %d at entry %d" % (seq, seq - 1), "internal record id: %d" % (seq - 1),
                "group info: 0:default_pg", "collective: nccl:all_reduce", "missing ranks: {%d}" % f,
                "input sizes: [[%d]]" % J.numel, "output sizes: [[%d]]" % J.numel, "world size: %d" % J.world,
                "expected ranks: {%s}" % ", ".join(str(x) for x in ex) + (", ..." if J.world > 4 else ""),
                "collective state: scheduled", "collective stack trace:", "  all_reduce at /usr/lib/python3/dist-packages/torch/distributed/distributed_c10d.py:2501"]
    return ["Not all ranks joining collective %d at entry %d" % (seq, seq - 1), "internal record id: %d" % (seq - 1),
            "group info: 0:default_pg", "collective: nccl:all_reduce", "missing ranks: {}", "world size: %d" % J.world,
            "collective state: scheduled",
            "error msg: Culprit rank %d; Error type: COLLECTIVE_TYPE_MISMATCH, Expected collective type: 'nccl:all_reduce' does not match found collective type: 'nccl:broadcast'" % f]


# ---------------------------------------------------------------- main
def plan(n, seed):
    rng = random.Random("plan-%d" % seed)
    causes = []
    k = 0
    order = []
    for i in range(n):
        if i % 7 == 6:
            causes.append(None)
            continue
        if k % 15 == 0:
            order = CAUSES[:]
            rng.shuffle(order)
        causes.append(order[k % 15])
        k += 1
    # balanced layout pool; healthy runs take layouts round-robin first, then each failed run takes
    # the pool layout least used so far for its cause (ties broken at random)
    pool = {l: n // len(LAYOUTS) + (1 if k < n % len(LAYOUTS) else 0) for k, l in enumerate(LAYOUTS)}
    lays = [None] * n
    start = rng.randrange(len(LAYOUTS))
    h = 0
    for i in range(n):
        if causes[i] is None:
            for d in range(len(LAYOUTS)):
                l = LAYOUTS[(start + h + d) % len(LAYOUTS)]
                if pool[l] > 0:
                    break
            lays[i] = l
            pool[l] -= 1
            h += 1
    used = {}
    for i in range(n):
        if causes[i] is None:
            continue
        cands = [l for l in LAYOUTS if pool[l] > 0]
        best = min(used.get((causes[i], l), 0) for l in cands)
        cands = [l for l in cands if used.get((causes[i], l), 0) == best]
        mx = max(pool[l] for l in cands)
        cands = [l for l in cands if pool[l] == mx] if rng.random() < 0.7 else cands
        l = rng.choice(cands)
        lays[i] = l
        pool[l] -= 1
        used[(causes[i], l)] = used.get((causes[i], l), 0) + 1
    return causes, lays


def gen_one(root, i, cause, layout, seed):
    rng = random.Random("run-%d-%d-%s-%s" % (seed, i, cause, layout))
    J = new_job(rng, cause, layout, i, seed)
    J.old_xid = None
    kernel_baseline(J)
    warning_storm(J)
    inject(J)
    finish(J)
    d = os.path.join(root, "run-%03d-%s" % (i + 1, layout))
    o = Out(d)
    fn = {"clush_slurm": layout_clush, "wandb_kernel": layout_wandb, "rotated_console": layout_rotated,
          "hyperpod_resume": layout_hyperpod, "bug_report": layout_bug}[layout]
    if getattr(J, "fr_summary", None) and layout in ("clush_slurm", "rotated_console", "hyperpod_resume"):
        pass
    desc = fn(J, o)
    fr = getattr(J, "fr_summary", None) or getattr(J, "fr_mismatch", None)
    if fr and layout != "bug_report":
        if layout == "wandb_kernel":
            # rank 0's own FR analysis is not in output.log: rank stays unnamed unless rank 0 printed it
            J.rank_inferable = False if J.f != 0 else J.rank_inferable
        else:
            o.write("fr_trace_analysis.txt", ["$ torchfrtrace /tmp/nccl_trace_rank_ -j"] + fr_text(J, fr))
            J.fr_inc = True
    tr = truth(J)
    if tr["rank"] is not None:
        tr["rank_inferable"] = compute_inferable(J)
    tr["notes"] = notes(J, "layout: " + desc)
    o.write("truth.json", json.dumps(tr, indent=2))
    if o.size > MAX_RUN_BYTES:
        raise SystemExit("run %d too large: %d" % (i, o.size))
    return tr


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    causes, lays = plan(a.n, a.seed)
    for i in range(a.n):
        gen_one(a.out, i, causes[i], lays[i], a.seed)


if __name__ == "__main__":
    main()
