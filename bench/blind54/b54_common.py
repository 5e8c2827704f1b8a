"""Shared helpers for the blind54 generator: cluster shapes, clocks, noise,
kernel-log snippets, launcher collateral (Slurm, mpirun, torchrun).

Standard library only. Every random choice goes through the Ctx's rng.
"""
import datetime as _dt

CAUSES = [
    "gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
    "illegal_memory_access", "python_exception", "host_oom_kill",
    "crash_signal", "preemption", "hang", "data_loader_stall",
    "collective_mismatch", "straggler", "unknown",
]

H100_BUS = ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"]
A100_BUS = ["07", "0f", "47", "4e", "87", "90", "b7", "bd"]
GPU_MODELS = [
    ("NVIDIA H100 80GB HBM3", H100_BUS, 81559),
    ("NVIDIA A100-SXM4-80GB", A100_BUS, 81920),
    ("NVIDIA H200", H100_BUS, 143771),
]
HOST_STYLES = [
    ("gpu-node-{:03d}", 1), ("dgx{:02d}", 1), ("h100-st-p5-{:02d}", 3),
    ("ip-10-1-{}-{}", 0), ("hpc-a{:03d}", 11), ("node{:04d}", 101),
]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep",
          "Oct", "Nov", "Dec"]


class Rank:
    def __init__(self, rank, host, local, bus, pid):
        self.rank, self.host, self.local, self.bus, self.pid = (
            rank, host, local, bus, pid)

    @property
    def pci(self):
        return "0000:%s:00" % self.bus


class Ctx:
    """One job: hosts, ranks, clock, per-host skew."""

    def __init__(self, rng, nnodes=None, gpn=None, model=None):
        self.rng = rng
        self.nnodes = nnodes or rng.choice([1, 2, 2, 4, 4, 8])
        self.gpn = gpn or (8 if rng.random() < 0.8 else 4)
        m = model if model is not None else rng.choice([0, 0, 0, 1, 2])
        self.gpu_name, buses, self.gpu_mib = GPU_MODELS[m]
        self.buses = buses[: self.gpn]
        style, base = rng.choice(HOST_STYLES)
        start = rng.randint(base, base + 60)
        if "{}-{}" in style:
            third = rng.randint(10, 200)
            self.hosts = [style.format(third, start + i * rng.randint(1, 9))
                          for i in range(self.nnodes)]
        else:
            self.hosts = [style.format(start + i) for i in range(self.nnodes)]
        self.ips = ["10.%d.%d.%d" % (rng.randint(0, 9), rng.randint(0, 250),
                                     rng.randint(2, 250)) for _ in self.hosts]
        self.ranks = []
        for n, h in enumerate(self.hosts):
            base_pid = rng.randint(20000, 3900000)
            for lr in range(self.gpn):
                self.ranks.append(Rank(n * self.gpn + lr, h, lr,
                                       self.buses[lr], base_pid + lr))
        self.world = len(self.ranks)
        year = rng.choice([2023, 2024, 2024, 2025])
        self.t0 = _dt.datetime(year, rng.randint(1, 12), rng.randint(1, 28),
                               rng.randint(0, 23), rng.randint(0, 59),
                               rng.randint(0, 59))
        # clock skew per host (seconds), boot time per host for dmesg stamps
        self.skew = {h: (0.0 if i == 0 else rng.uniform(-4.0, 4.0))
                     for i, h in enumerate(self.hosts)}
        self.boot = {h: rng.uniform(20000, 3000000) for h in self.hosts}
        self.jobid = rng.randint(100000, 9999999)
        self.driver = rng.choice(["535.161.08", "535.183.01", "550.54.15",
                                  "550.90.07", "560.35.03", "570.124.06"])
        self.nccl = rng.choice(["2.18.5", "2.19.3", "2.20.5", "2.21.5",
                                "2.23.4"])
        self.cuda = rng.choice(["12.2", "12.3", "12.4", "12.6"])

    # ---- lookups -----------------------------------------------------
    def node_ranks(self, host):
        return [r for r in self.ranks if r.host == host]

    def node_of(self, rank):
        return self.ranks[rank].host

    def pick_rank(self, not_zero=False):
        lo = 1 if (not_zero and self.world > 1) else 0
        return self.ranks[self.rng.randint(lo, self.world - 1)]

    # ---- clocks ------------------------------------------------------
    def at(self, secs):
        return self.t0 + _dt.timedelta(seconds=secs)

    def host_at(self, host, secs):
        return self.at(secs + self.skew.get(host, 0.0))

    def iso(self, secs, host=None):
        t = self.host_at(host, secs) if host else self.at(secs)
        return t.strftime("%Y-%m-%d %H:%M:%S")

    def syslog_ts(self, host, secs):
        t = self.host_at(host, secs)
        return "%s %2d %s" % (MONTHS[t.month - 1], t.day, t.strftime("%H:%M:%S"))

    def dmesg_ts(self, host, secs):
        return "[%12.6f]" % (self.boot[host] + secs)

    def glog_ts(self, secs, host=None):
        t = self.host_at(host, secs) if host else self.at(secs)
        return t.strftime("%m%d %H:%M:%S") + ".%06d" % self.rng.randint(0, 999999)


# ---------------------------------------------------------------------------
# generic noise
# ---------------------------------------------------------------------------

def nccl_prefix(ctx, r, tid=None):
    return "%s:%d:%d [%d]" % (r.host, r.pid, tid or r.pid + ctx.rng.randint(30, 400),
                               r.local)


def nccl_info_lines(ctx, r, k=4, ib=True):
    rng = ctx.rng
    ip = ctx.ips[ctx.hosts.index(r.host)]
    pool = [
        "NCCL INFO Bootstrap : Using eth0:%s<0>" % ip,
        "NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation",
        "NCCL INFO cudaDriverVersion %d" % (int(ctx.cuda.split('.')[0]) * 1000 + int(ctx.cuda.split('.')[1]) * 10),
        "NCCL INFO Channel 00/32 :    0   1   2   3   4   5   6   7",
        "NCCL INFO Channel %02d/0 : %d[%d] -> %d[%d] via P2P/CUMEM/read" % (rng.randint(0, 31), r.rank, r.local, r.rank + 1, (r.local + 1) % ctx.gpn),
        "NCCL INFO comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId 0x%x - Init COMPLETE" % (rng.getrandbits(44), r.rank, ctx.world, r.local, r.local, r.bus, rng.getrandbits(60)),
        "NCCL INFO Connected all rings",
        "NCCL INFO Connected all trees",
        "NCCL INFO threadThresholds 8/8/64 | 128/8/64 | 512 | 512",
        "NCCL INFO %d coll channels, 0 collnet channels, 16 nvls channels, 32 p2p channels, 32 p2p channels per peer" % rng.choice([16, 24, 32]),
        "NCCL INFO Using network %s" % ("IB" if ib else "Socket"),
        "NCCL INFO NCCL_IB_HCA set to mlx5_0,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_9,mlx5_10,mlx5_11" if ib else "NCCL INFO NET/Socket : Using [0]eth0:%s<0>" % ip,
        "NCCL INFO Setting affinity for GPU %d to ffffffff,00000000,ffffffff" % r.local,
        "NCCL INFO NVLS multicast support is available on dev %d" % r.local,
    ]
    out = []
    for _ in range(k):
        out.append("%s %s" % (nccl_prefix(ctx, r), rng.choice(pool)))
    return out


BENIGN_NCCL_WARN = [
    "NCCL WARN NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory",
    "NCCL WARN Failed to open libibverbs.so[.1]",
    "NCCL WARN NET/IB : No device found.",
    "NCCL WARN Could not find real path of /sys/class/net/docker0/device",
    "NCCL WARN NCCL_SOCKET_IFNAME set by environment to ^lo,docker",
    "NCCL WARN Cuda failure 'operation not supported' (ignored: cuMem* disabled)",
]

PY_WARNINGS = [
    "/usr/local/lib/python3.10/dist-packages/torch/distributed/distributed_c10d.py:2520: UserWarning: torch.distributed._all_gather_base is a private function and will be deprecated. Please use torch.distributed.all_gather_into_tensor instead.\n  warnings.warn(",
    "/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py:557: UserWarning: This DataLoader will create 16 worker processes in total. Our suggested max number of worker in current system is 12, which is smaller than what this DataLoader is going to create. Please be aware that excessive worker creation might get DataLoader running slow or even freeze, lower the worker number to avoid potential slowness/freeze if necessary.",
    "/opt/conda/lib/python3.10/site-packages/torch/nn/modules/module.py:1511: FutureWarning: `torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', args...)` instead.",
    "/usr/lib/python3/dist-packages/requests/__init__.py:87: RequestsDependencyWarning: urllib3 (2.0.7) or chardet (5.2.0) doesn't match a supported version!",
    "[W socket.cpp:697] [c10d] The client socket has failed to connect to [localhost]:29500 (errno: 99 - Cannot assign requested address).",
    "WARNING:torch.distributed.run:\n*****************************************\nSetting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. \n*****************************************",
    "/usr/local/lib/python3.10/dist-packages/transformer_engine/pytorch/attention.py:3217: DeprecationWarning: flash-attn v2 is deprecated; please install flash-attn v3",
]


def py_warnings(ctx, k=2):
    pool = list(PY_WARNINGS)
    ctx.rng.shuffle(pool)
    return pool[:k]


def tqdm_bar(ctx, desc, total, upto, rate, start_s=0):
    """A carriage-return tqdm bar as it lands in a redirected log."""
    rng = ctx.rng
    parts = []
    steps = sorted(set([0] + [rng.randint(1, max(1, upto)) for _ in range(5)] + [upto]))
    for s in steps:
        pct = int(100 * s / max(1, total))
        el = s / max(rate, 1e-6)
        rem = (total - s) / max(rate, 1e-6)
        bar = ("#" * (pct // 10)).ljust(10)
        parts.append("%s: %3d%%|%s| %d/%d [%02d:%02d<%02d:%02d, %.2fit/s]" % (
            desc, pct, bar, s, total, el // 60, el % 60, min(rem // 60, 99), rem % 60, rate))
    return "\r".join(parts)


# ---------------------------------------------------------------------------
# kernel log
# ---------------------------------------------------------------------------

XID_TEXT = {
    79: "GPU has fallen off the bus.",
    62: "Internal micro-controller halt (newer drivers)",
    119: "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a4c 0x4).",
    120: "GSP task timeout @ pc:0x%x, task: 1",
    48: "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition 0.",
    94: "Contained: SM (0x1). RST: No, D-RST: No",
    95: "Uncontained: FBHUB. RST: Yes, D-RST: No",
    64: "Failed to persist row remap due to row remap table full",
    63: "Row remapping event: Bank %d, Row 0x%05x",
    74: "NVLink: fatal error detected on link %d(0x0, 0x0, 0x%x, 0x0, 0x0, 0x0, 0x0)",
    13: "Graphics SM Warp Exception on (GPC %d, TPC %d, SM 0): Out Of Range Address",
    31: "MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_%d faulted @ 0x7f%x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ",
    43: "Ch 000000%02x, intr 00000000. MMU Fault: ENGINE GRAPHICS",
}


def xid_line(ctx, r, xid, secs, name="python", style="syslog"):
    rng = ctx.rng
    txt = XID_TEXT[xid]
    if "%" in txt:
        n = txt.count("%")
        vals = {119: (r.local,), 120: (rng.getrandbits(24),), 48: (rng.randint(0, 11),),
                63: (rng.randint(0, 15), rng.getrandbits(16)),
                74: (rng.randint(0, 17), rng.choice([0x10000, 0x20000, 0x100])),
                13: (rng.randint(0, 7), rng.randint(0, 8)),
                31: (rng.randint(0, 15), rng.getrandbits(24), rng.getrandbits(32)),
                43: (rng.randint(8, 90),)}[xid]
        txt = txt % vals[:n]
    pid = r.pid if name != "<unknown>" else "'<unknown>'"
    body = "NVRM: Xid (PCI:%s): %d, pid=%s, name=%s, %s" % (r.pci, xid, pid, name, txt)
    return kline(ctx, r.host, secs, body, style)


def kline(ctx, host, secs, body, style="syslog"):
    if style == "dmesg":
        return "%s %s" % (ctx.dmesg_ts(host, secs), body)
    if style == "dmesg_T":
        t = ctx.host_at(host, secs)
        return "[%s] %s" % (t.strftime("%a %b %d %H:%M:%S %Y"), body)
    return "%s %s kernel: %s" % (ctx.syslog_ts(host, secs), host, body)


def kernel_noise(ctx, host, secs, style, k=4):
    rng = ctx.rng
    pool = [
        "nvidia-nvlink: Nvlink Core is being initialized, major device number 509",
        "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  %s  Release Build" % ctx.driver,
        "perf: interrupt took too long (2512 > 2500), lowering kernel.perf_event_max_sample_rate to 79500",
        "IPv6: ADDRCONF(NETDEV_CHANGE): ib0: link becomes ready",
        "audit: type=1400 audit(%d.%03d:%d): apparmor=\"DENIED\" operation=\"open\" profile=\"snap.lxd\"" % (1700000000 + rng.randint(0, 9999999), rng.randint(0, 999), rng.randint(100, 999)),
        "EXT4-fs (nvme0n1p1): mounted filesystem with ordered data mode. Quota mode: none.",
        "nvidia-peermem: module verification failed: signature and/or required key missing - tainting kernel",
        "mlx5_core 0000:%02x:00.0: mlx5_pcie_event:301:(pid %d): PCIe slot advertised sufficient power (27W)." % (rng.randint(0x10, 0xf0), rng.randint(100, 9000)),
        "docker0: port 1(veth%x) entered forwarding state" % rng.getrandbits(28),
        "NVRM: GPU at PCI:0000:%s:00: GPU-%08x-%04x-%04x-%04x-%012x" % (rng.choice(ctx.buses), rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(48)),
        "systemd-journald[812]: Data hash table of /var/log/journal/system.journal has a fill level at 75.0 (8534 of 11377 items), suggesting rotation.",
    ]
    out = []
    t = secs
    for i in range(k):
        t += rng.uniform(1, 40)
        out.append((t, kline(ctx, host, t, rng.choice(pool), style)))
    return out


def oom_kill_lines(ctx, host, secs, pid, comm="python", style="syslog", cgroup=True):
    rng = ctx.rng
    rss = rng.randint(140, 480) * 1024 * 1024  # kB
    uid = 1000 + rng.randint(0, 4000)
    body = [
        "%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0" % comm,
        "CPU: %d PID: %d Comm: %s Tainted: P           OE     5.15.0-%d-generic #%d-Ubuntu" % (rng.randint(0, 191), pid + 7, comm, rng.randint(70, 130), rng.randint(70, 140)),
        "Hardware name: Supermicro SYS-821GE-TNHR/X13DEG-OAD, BIOS 2.1 04/05/2024",
        "Call Trace:",
        " <TASK>",
        " dump_stack_lvl+0x4a/0x63",
        " oom_kill_process.cold+0xb/0x10",
        " out_of_memory+0x106/0x2e0",
        " mem_cgroup_out_of_memory+0x13b/0x160" if cgroup else " __alloc_pages_slowpath.constprop.0+0xc1c/0xd10",
        " </TASK>",
    ]
    if cgroup:
        body.append("memory: usage %dkB, limit %dkB, failcnt %d" % (rss + 1000, rss + 1000, rng.randint(1, 900)))
        body.append("oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0-1,oom_memcg=/slurm/uid_%d/job_%d,task_memcg=/slurm/uid_%d/job_%d/step_0/task_0,task=%s,pid=%d,uid=%d" % (
            uid, ctx.jobid, uid, ctx.jobid, comm, pid, uid))
        body.append("Memory cgroup out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (
            pid, comm, rss * 3, rss, rng.randint(100000, 900000), rng.randint(1000, 90000), uid, rng.randint(4000, 90000)))
    else:
        body.append("oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/user.slice,task=%s,pid=%d,uid=1000" % (comm, pid))
        body.append("Out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:0kB, UID:1000 pgtables:%dkB oom_score_adj:0" % (
            pid, comm, rss * 3, rss, rng.randint(100000, 900000), rng.randint(4000, 90000)))
    return [(secs + i * 0.001, kline(ctx, host, secs + i * 0.001, b, style)) for i, b in enumerate(body)]


def segv_kline(ctx, r, secs, lib="libc.so.6", style="syslog", sig="segfault"):
    rng = ctx.rng
    if sig == "segfault":
        body = "%s[%d]: segfault at %x ip %012x sp %012x error 4 in %s[%x+%x] likely on CPU %d (core %d, socket %d)" % (
            "python", r.pid, rng.getrandbits(20), 0x7f0000000000 + rng.getrandbits(36), 0x7ffc00000000 + rng.getrandbits(32),
            lib, 0x7f0000000000 + rng.getrandbits(36), rng.getrandbits(20), rng.randint(0, 100), rng.randint(0, 50), rng.randint(0, 1))
    else:
        body = "traps: python[%d] general protection fault ip:%x sp:%x error:0 in %s[%x+%x]" % (
            r.pid, 0x7f0000000000 + rng.getrandbits(36), 0x7ffc00000000 + rng.getrandbits(32), lib,
            0x7f0000000000 + rng.getrandbits(36), rng.getrandbits(20))
    return kline(ctx, r.host, secs, body, style)


def net_klines(ctx, host, secs, style="syslog", kind=None):
    rng = ctx.rng
    kind = kind or rng.choice(["ib_down", "cable", "eth_down", "pcie_aer"])
    dev = "0000:%02x:00.0" % rng.choice([0x0c, 0x1a, 0x3b, 0x5e, 0x9c, 0xbb, 0xd1])
    port = rng.choice(["ibp12s0", "ibp26s0", "ibp94s0", "mlx5_3", "ens108np0"])
    if kind == "ib_down":
        bodies = ["mlx5_core %s %s: Link down" % (dev, port),
                  "mlx5_core %s: mlx5_fw_tracer_handle_traces:%d:(pid %d): FWTracer: Port %d logical link down" % (dev, rng.randint(700, 800), rng.randint(100, 9999), 1),
                  "ib0: lost carrier" if rng.random() < 0.5 else "infiniband %s: Port: 1 Link DOWN" % port.replace("ibp", "mlx5_")]
    elif kind == "cable":
        bodies = ["mlx5_core %s: mlx5_port_module_event:%d:(pid 0): Port module event[error]: module 0, Cable error, High Temperature" % (dev, rng.randint(1100, 1200)),
                  "mlx5_core %s %s: Link down" % (dev, port)]
    elif kind == "eth_down":
        bodies = ["ice %s ens1f0: NIC Link is Down" % dev,
                  "bond0: (slave ens1f0): link status definitely down, disabling slave",
                  "bond0: now running without any active interface!"]
    else:
        bodies = ["pcieport 0000:%02x:01.0: AER: Uncorrected (Fatal) error received: %s" % (rng.randint(0x10, 0xf0), dev),
                  "mlx5_core %s: mlx5_pci_err_detected Device state = 1 health sensors: 1 pci_status: 1. Enter, pci channel state = 2" % dev,
                  "mlx5_core %s: mlx5_health_try_recover:%d:(pid %d): handling bad device here" % (dev, rng.randint(300, 400), rng.randint(100, 9999))]
    return [(secs + i * 0.4, kline(ctx, host, secs + i * 0.4, b, style)) for i, b in enumerate(bodies)], kind


def render_kernel(items, trim=None):
    """items: list of (secs, line); sorted by time and optionally trimmed."""
    items = sorted(items, key=lambda x: x[0])
    return "\n".join(l for _, l in items) + "\n"


# ---------------------------------------------------------------------------
# launchers
# ---------------------------------------------------------------------------

def srun_exit(ctx, host, task, code=None, signal=None):
    if signal:
        return "srun: error: %s: task %d: %s" % (host, task, signal)
    return "srun: error: %s: task %d: Exited with exit code %d" % (host, task, code)


def srun_abort_block(ctx, secs):
    return ["srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
            "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (
                ctx.jobid, ctx.hosts[0], ctx.at(secs).strftime("%Y-%m-%dT%H:%M:%S"))]


def slurm_timelimit(ctx, secs, host=None, step=True):
    what = "STEP %d.0" % ctx.jobid if step else "JOB %d" % ctx.jobid
    return "slurmstepd: error: *** %s ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (
        what, host or ctx.hosts[0], ctx.at(secs).strftime("%Y-%m-%dT%H:%M:%S"))


def slurm_preempt(ctx, secs, host=None):
    return "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (
        ctx.jobid, host or ctx.hosts[0], ctx.at(secs).strftime("%Y-%m-%dT%H:%M:%S"))


def slurm_oom(ctx, host, n=1):
    return "slurmstepd: error: Detected %d oom_kill event%s in StepId=%d.0. Some of the step tasks have been OOM Killed." % (
        n, "" if n == 1 else "s", ctx.jobid)


def mpirun_nonzero(ctx, host, rank, code=1):
    return ["--------------------------------------------------------------------------",
            "Primary job  terminated normally, but 1 process returned",
            "a non-zero exit code. Per user-direction, the job has been aborted.",
            "--------------------------------------------------------------------------",
            "--------------------------------------------------------------------------",
            "mpirun detected that one or more processes exited with non-zero status, thus causing",
            "the job to be terminated. The first process to do so was:",
            "",
            "  Process name: [[%d,1],%d]" % (ctx.rng.randint(1000, 65000), rank),
            "  Exit code:    %d" % code,
            "--------------------------------------------------------------------------"]


def mpirun_signal(ctx, host, rank, signum, signame):
    return ["--------------------------------------------------------------------------",
            "mpirun noticed that process rank %d with PID 0 on node %s exited on signal %d (%s)." % (
                rank, host, signum, signame),
            "--------------------------------------------------------------------------"]


def watchdog_lines(ctx, r, secs, seq, op="ALLREDUCE", numel=None, timeout_ms=600000, new=True):
    numel = numel or ctx.rng.choice([1, 4, 262144, 33554432, 131137536])
    ran = timeout_ms + ctx.rng.randint(5, 900)
    ts = ctx.glog_ts(secs, r.host)

    def pre(new_ln, old_ln):
        if new:
            return "[rank%d]:[E%s ProcessGroupNCCL.cpp:%d]" % (r.rank, ts, new_ln)
        return "[rank%d]:[E ProcessGroupNCCL.cpp:%d]" % (r.rank, old_ln)
    return [
        "%s [Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d) ran for %d milliseconds before timing out." % (
            pre(616, 563), r.rank, seq, op, numel, numel, timeout_ms, ran),
        "%s [Rank %d] Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (
            pre(1785, 1537), r.rank, seq, seq, seq - 1),
        "%s [Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % (
            pre(630, 577), r.rank),
        "%s [Rank %d] To avoid data inconsistency, we are taking the entire process down." % (
            pre(636, 583), r.rank),
    ]


def torchrun_failure(ctx, script, host, root_rank, local, exitcode, pid, secs,
                     others=None, traceback_txt=None):
    """Elastic agent summary. root_rank is whichever process exited first."""
    sig = {-6: "Signal 6 (SIGABRT) received by PID %d",
           -9: "Signal 9 (SIGKILL) received by PID %d",
           -11: "Signal 11 (SIGSEGV) received by PID %d",
           -15: "Signal 15 (SIGTERM) received by PID %d",
           -7: "Signal 7 (SIGBUS) received by PID %d"}
    tb = traceback_txt or (sig[exitcode] % pid if exitcode in sig else
                           "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
    t = ctx.host_at(host, secs).strftime("%Y-%m-%d_%H:%M:%S")
    out = ["Traceback (most recent call last):",
           '  File "/usr/local/bin/torchrun", line 8, in <module>',
           "    sys.exit(main())",
           '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 347, in wrapper',
           "    return f(*args, **kwargs)",
           '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/run.py", line 143, in __call__',
           "    return launch_agent(self._config, self._entrypoint, list(args))",
           '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/launcher/api.py", line 277, in launch_agent',
           "    raise ChildFailedError(",
           "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
           "=" * 60, "%s FAILED" % script, "-" * 60, "Failures:"]
    if others:
        for i, (rk, lr, ec, p) in enumerate(others, 1):
            out += ["[%d]:" % i, "  time      : %s" % t, "  host      : %s" % host,
                    "  rank      : %d (local_rank: %d)" % (rk, lr),
                    "  exitcode  : %d (pid: %d)" % (ec, p), "  error_file: <N/A>",
                    "  traceback : %s" % (sig[ec] % p if ec in sig else "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")]
    else:
        out.append("  <NO_OTHER_FAILURES>")
    out += ["-" * 60, "Root Cause (first observed failure):", "[0]:",
            "  time      : %s" % t, "  host      : %s" % host,
            "  rank      : %d (local_rank: %d)" % (root_rank, local),
            "  exitcode  : %d (pid: %d)" % (exitcode, pid), "  error_file: <N/A>",
            "  traceback : %s" % tb, "=" * 60]
    return out


def agent_pid(ctx, host):
    return ctx.node_ranks(host)[0].pid - 40


def torchrun_sigterm(ctx, host, pids, secs):
    return ["W%s %d torch/distributed/elastic/multiprocessing/api.py:897] Sending process %d closing signal SIGTERM" % (
        ctx.glog_ts(secs, host), agent_pid(ctx, host), p) for p in pids]


def kfile(style, host):
    """Name an attached kernel log as an admin would."""
    return "kern.log" if style == "syslog" else "dmesg-%s.txt" % host
