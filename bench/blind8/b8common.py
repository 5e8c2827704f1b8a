"""Shared helpers for the blind8 generator: time formats, hosts, kernel logs,
CUDA/NCCL/PyTorch message text, Python tracebacks.  Standard library only."""
import datetime as _dt
import gzip
import json

UTC = _dt.timezone.utc
MON = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
DOW = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]


# --------------------------------------------------------------------------- time
class T:
    """Timestamp formatters; t is a float epoch (UTC)."""

    @staticmethod
    def dt(t):
        return _dt.datetime.fromtimestamp(t, UTC)

    @staticmethod
    def iso_z(t):  # 2025-01-15T10:23:45.123456Z
        return T.dt(t).strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    @staticmethod
    def iso_ms_z(t):
        d = T.dt(t)
        return d.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (d.microsecond // 1000)

    @staticmethod
    def iso_off(t):  # journalctl -o short-iso-precise
        return T.dt(t).strftime("%Y-%m-%dT%H:%M:%S.%f+00:00")

    @staticmethod
    def vllm(t):  # 01-15 10:23:45
        return T.dt(t).strftime("%m-%d %H:%M:%S")

    @staticmethod
    def sec(t):  # 2025-01-15 10:23:45
        return T.dt(t).strftime("%Y-%m-%d %H:%M:%S")

    @staticmethod
    def pylog(t):  # 2025-01-15 10:23:45,123
        d = T.dt(t)
        return d.strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (d.microsecond // 1000)

    @staticmethod
    def glog(t, lvl="I"):  # I0115 10:23:45.123456
        d = T.dt(t)
        return lvl + d.strftime("%m%d %H:%M:%S.%f")

    @staticmethod
    def c10d(t, lvl="E"):  # E0115 10:23:45.123456789
        d = T.dt(t)
        ns = int((t - int(t)) * 1e9)
        return lvl + d.strftime("%m%d %H:%M:%S.") + "%09d" % ns

    @staticmethod
    def elastic(t, lvl="W"):  # W0115 10:23:45.123000 140234
        d = T.dt(t)
        return lvl + d.strftime("%m%d %H:%M:%S.") + "%03d000" % (d.microsecond // 1000)

    @staticmethod
    def syslog(t):  # Jan 15 10:23:45
        d = T.dt(t)
        return "%s %2d %s" % (MON[d.month - 1], d.day, d.strftime("%H:%M:%S"))

    @staticmethod
    def dmesg_T(t):  # Wed Jan 15 10:23:45 2025
        d = T.dt(t)
        return "%s %s %2d %s %d" % (DOW[d.weekday()], MON[d.month - 1], d.day, d.strftime("%H:%M:%S"), d.year)

    @staticmethod
    def ascend(t):  # 2025-01-15-10:23:45.123.456
        d = T.dt(t)
        return d.strftime("%Y-%m-%d-%H:%M:%S") + ".%03d.%03d" % (d.microsecond // 1000, d.microsecond % 1000)

    @staticmethod
    def ascend_short(t):  # 2025-01-15-10:23:45
        return T.dt(t).strftime("%Y-%m-%d-%H:%M:%S")

    @staticmethod
    def neuron(t):  # 2025-Jan-15 10:23:45.012345
        d = T.dt(t)
        return "%d-%s-%02d %s" % (d.year, MON[d.month - 1], d.day, d.strftime("%H:%M:%S.%f"))

    @staticmethod
    def oneccl(t):  # 2025:01:15-10:23:45
        return T.dt(t).strftime("%Y:%m:%d-%H:%M:%S")

    @staticmethod
    def ds(t):  # [2025-01-15 10:23:45,123]
        return "[" + T.pylog(t) + "]"

    @staticmethod
    def slurm(t):  # 2025-01-15T10:23:45
        return T.dt(t).strftime("%Y-%m-%dT%H:%M:%S")

    @staticmethod
    def hvd(t):  # [2025-01-15 10:23:45.123456: W
        return T.dt(t).strftime("%Y-%m-%d %H:%M:%S.%f")

    @staticmethod
    def openmpi_ts(t):  # Wed Jan 15 10:23:45 2025
        return T.dmesg_T(t)

    @staticmethod
    def tf(t):  # 2025-01-15 10:23:45.123456
        return T.dt(t).strftime("%Y-%m-%d %H:%M:%S.%f")

    @staticmethod
    def k8s_age(sec):
        sec = int(sec)
        if sec < 120:
            return "%ds" % sec
        if sec < 3600 * 2:
            return "%dm" % (sec // 60)
        if sec < 86400 * 2:
            return "%dh" % (sec // 3600)
        return "%dd" % (sec // 86400)

    @staticmethod
    def pbs(t):  # Wed Jan 15 10:23:45 2025
        return T.dmesg_T(t)


def pick_base_time(rng):
    # some time in 2024-06 .. 2025-09
    start = _dt.datetime(2024, 6, 1, tzinfo=UTC).timestamp()
    return float(int(start + rng.random() * 470 * 86400)) + rng.random()


# --------------------------------------------------------------------------- ids
def hexid(rng, n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def alnum(rng, n, chars="bcdfghjklmnpqrstvwxz2456789"):
    return "".join(rng.choice(chars) for _ in range(n))


def gpu_uuid(rng):
    return "GPU-%s-%s-%s-%s-%s" % (hexid(rng, 8), hexid(rng, 4), hexid(rng, 4), hexid(rng, 4), hexid(rng, 12))


PCI_H100 = ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"]
PCI_A100 = ["07", "0f", "47", "4e", "87", "90", "b7", "bd"]
PCI_MI300 = ["05", "26", "46", "65", "85", "a6", "c6", "e5"]
PCI_MI250 = ["c1", "c6", "c9", "ce", "d1", "d6", "d9", "de"]
PCI_GAUDI = ["19", "1a", "33", "34", "9a", "9b", "b3", "b4"]
PCI_PVC = ["18", "42", "6c", "af", "d9", "e8"]
IB_PCI = ["0c", "1f", "45", "53", "8d", "9c", "c3", "d1"]


# --------------------------------------------------------------------------- hosts
class Node:
    def __init__(self, name, ip, aliases=None, skew=0.0, k8s_node=None):
        self.name = name        # as the logs spell it
        self.ip = ip
        self.aliases = list(aliases or [])
        self.skew = skew        # clock skew seconds
        self.k8s_node = k8s_node
        self.boot = 0.0         # epoch of boot, set later
        self.pci = []
        self.uuids = []


def make_nodes(rng, n, style=None, gpus=8, pci=None):
    styles = ["gpu-h100", "nid", "aws", "fqdn", "dgx", "azure", "plain", "gcp"]
    style = style or rng.choice(styles)
    nodes = []
    base_ip = "10.%d.%d." % (rng.randint(0, 60), rng.randint(0, 250))
    start = rng.randint(1, 180)
    nid0 = rng.randint(1000, 9000)
    for i in range(n):
        ip = base_ip + str(10 + start % 200 + i) if (10 + start % 200 + i) < 255 else base_ip + str(i + 2)
        if style == "gpu-h100":
            pre = rng.choice(["gpu-h100", "gpu-a100", "hgx-h100", "h200", "gpu"])
            name = "%s-%03d" % (pre, start + i) if i == 0 or not nodes else "%s-%03d" % (nodes[0].name.rsplit("-", 1)[0], start + i)
            nodes.append(Node(name, ip, [ip]))
        elif style == "nid":
            name = "nid%06d" % (nid0 + i * rng.choice([1, 1, 2]))
            nodes.append(Node(name, ip, [ip]))
        elif style == "aws":
            o = ip.split(".")
            name = "ip-%s-%s-%s-%s" % tuple(o)
            reg = rng.choice(["ec2.internal", "us-west-2.compute.internal", "us-east-2.compute.internal"])
            nodes.append(Node(name, ip, [name + "." + reg, ip]))
        elif style == "fqdn":
            short = "%s%02d" % (rng.choice(["node", "cn", "gn", "gpu"]), start % 60 + i)
            dom = rng.choice(["cluster.local", "hpc.example.org", "ai.corp.internal", "cm.cluster"])
            nodes.append(Node(short + "." + dom, ip, [short, ip]))
        elif style == "dgx":
            name = "dgx-%s-%02d" % (rng.choice(["b200", "h100", "a100", "gb200"]), start % 90 + i)
            nodes.append(Node(name, ip, [ip]))
        elif style == "azure":
            name = "%s%06X" % (rng.choice(["ndv5vm", "hpcvm", "a100vm"]), start * 7 + i)
            nodes.append(Node(name, ip, [ip]))
        elif style == "gcp":
            name = "a3mega-%s-%s" % (alnum(rng, 4), "%03d" % (start + i))
            nodes.append(Node(name, ip, [name + ".c.ml-prod-421.internal", ip]))
        else:
            name = "%s%d" % (rng.choice(["trn", "worker", "compute", "gnode"]), start + i)
            nodes.append(Node(name, ip, [ip]))
        # fix duplicates from style gpu-h100 first pass
    if style == "gpu-h100":
        pre = nodes[0].name.rsplit("-", 1)[0]
        for i, nd in enumerate(nodes):
            nd.name = "%s-%03d" % (pre, start + i)
    for nd in nodes:
        nd.skew = rng.choice([0.0, 0.0, 0.0, rng.uniform(-3, 3), rng.uniform(-40, 40)])
        nd.boot = 0.0
        nd.pci = list(pci or PCI_H100)[:gpus] if gpus else []
        nd.uuids = [gpu_uuid(rng) for _ in range(gpus or 0)]
    return nodes


# --------------------------------------------------------------------------- files
class Out:
    """Collects the files of one run folder."""

    def __init__(self):
        self.files = {}

    def add(self, path, text):
        if isinstance(text, list):
            text = "".join(l if l.endswith("\n") else l + "\n" for l in text)
        if path in self.files:
            self.files[path] += text.encode("utf-8") if isinstance(text, str) else text
        else:
            self.files[path] = text.encode("utf-8") if isinstance(text, str) else text

    def add_gz(self, path, text):
        if isinstance(text, list):
            text = "".join(l if l.endswith("\n") else l + "\n" for l in text)
        self.files[path] = gzip.compress(text.encode("utf-8"), compresslevel=6, mtime=0)

    def size(self):
        return sum(len(v) for v in self.files.values())


def lines_sorted(events):
    """events: list of (t, seq, line) -> list of lines in time order (stable)."""
    events.sort(key=lambda e: (e[0], e[1]))
    return [e[2] for e in events]


class EvList:
    def __init__(self):
        self.ev = []
        self.n = 0

    def add(self, t, line):
        self.n += 1
        self.ev.append((t, self.n, line))

    def extend(self, t, lines, dt=0.0):
        for i, l in enumerate(lines):
            self.add(t + i * dt, l)

    def lines(self):
        return lines_sorted(self.ev)


# --------------------------------------------------------------------------- kernel logs
def kernel_render(node, events, style, rng, t0, t1, noise=True):
    """Render kernel events [(t, text)] of one node in one of several styles.
    style: dmesg | dmesgT | kernlog | journal | journal-iso"""
    ev = list(events)
    boot = node.boot or (t0 - rng.uniform(2, 40) * 86400)
    node.boot = boot
    if noise:
        ev += kernel_noise(rng, node, t0, t1)
    ev.sort(key=lambda e: e[0])
    out = []
    host = node.name.split(".")[0]
    for t, txt in ev:
        up = t - boot
        tt = t + node.skew
        if style == "dmesg":
            out.append("[%12.6f] %s" % (up, txt))
        elif style == "dmesgT":
            out.append("[%s] %s" % (T.dmesg_T(tt), txt))
        elif style == "kernlog":
            out.append("%s %s kernel: [%12.6f] %s" % (T.syslog(tt), host, up, txt))
        elif style == "journal":
            out.append("%s %s kernel: %s" % (T.syslog(tt), host, txt))
        else:
            out.append("%s %s kernel: %s" % (T.iso_off(tt), host, txt))
    return out


def kernel_noise(rng, node, t0, t1):
    ev = []
    pool = [
        "perf: interrupt took too long (2503 > 2500), lowering kernel.perf_event_max_sample_rate to 79750",
        "IPv6: ADDRCONF(NETDEV_CHANGE): veth%s: link becomes ready" % hexid(rng, 7),
        "docker0: port 1(veth%s) entered forwarding state" % hexid(rng, 7),
        "nvidia-nvswitch: Probing device 0000:%s:00.0, Vendor Id = 0x10de, Device Id = 0x22a3, Class = 0x68000" % rng.choice(["05", "06", "07", "08"]),
        "EXT4-fs (nvme0n1p1): mounted filesystem with ordered data mode. Opts: (null). Quota mode: none.",
        "audit: type=1400 audit(%d.%03d:%d): apparmor=\"STATUS\" operation=\"profile_replace\" profile=\"unconfined\" name=\"docker-default\" pid=%d comm=\"apparmor_parser\"" % (int(t0) - 3000, rng.randint(0, 999), rng.randint(100, 900), rng.randint(2000, 90000)),
        "mlx5_core 0000:%s:00.0: mlx5_fw_tracer_handle_traces:737:(pid %d): FWTracer: Events were lost" % (rng.choice(IB_PCI), rng.randint(100, 9000)),
        "TCP: request_sock_TCP: Possible SYN flooding on port 29500. Sending cookies.  Check SNMP counters.",
        "loop4: detected capacity change from 0 to 8",
        "NFS: state manager: check lease failed on NFSv4 server nas01.storage with error 10008",
        "systemd-journald[812]: Data hash table of /var/log/journal/%s/system.journal has a fill level at 75.0 (8535 of 11377 items, 6553600 file size, 767 bytes per item), suggesting rotation." % hexid(rng, 32),
        "nvidia-peermem: module verification failed: signature and/or required key missing - tainting kernel",
        "Lustre: lustre-OST0012-osc-ffff9a1c3e2a5000: Connection restored to 172.30.0.12@o2ib (at 172.30.0.12@o2ib)",
        "hrtimer: interrupt took 38519 ns",
        "igb 0000:%s:00.0 eno1: Link is Up 1000 Mbps Full Duplex, Flow Control: RX/TX" % rng.choice(["01", "02"]),
    ]
    n = rng.randint(3, 14)
    for _ in range(n):
        ev.append((t0 - rng.uniform(60, 7200) if rng.random() < 0.4 else rng.uniform(t0, t1), rng.choice(pool)))
    return ev


def xid_lines(rng, pci, xid, pid, comm, gpu_idx=0, link=None):
    """NVRM Xid lines (kernel text, no prefix)."""
    p = "NVRM: Xid (PCI:0000:%s:00): %d, pid=%s, name=%s, " % (pci, xid, pid, comm)
    if xid == 79:
        return [p + "GPU has fallen off the bus.", "NVRM: GPU 0000:%s:00.0: GPU has fallen off the bus." % pci,
                "NVRM: A GPU crash dump has been created. If possible, please run\nNVRM: nvidia-bug-report.sh as root to collect this data before\nNVRM: the NVIDIA kernel module is unloaded."]
    if xid == 119:
        return [p + "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a4c 0x4)." % gpu_idx,
                "NVRM: GPU%d GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x0000000020800a4c 0x0000000000000004." % gpu_idx,
                "NVRM: GPU%d RPC history (CPU -> GSP):" % gpu_idx,
                "NVRM:     entry function                   data0              data1              ts_start           ts_end             duration actively_polling",
                "NVRM:      0    76   GSP_RM_CONTROL        0x0000000020800a4c 0x0000000000000004 0x000%s 0x0000000000000000          y" % hexid(rng, 13),
                "NVRM: Xid (PCI:0000:%s:00): 154, pid=%s, name=%s, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)" % (pci, pid, comm)]
    if xid == 154:
        return ["NVRM: Xid (PCI:0000:%s:00): 154, pid=%s, name=%s, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)" % (pci, pid, comm)]
    if xid == 48:
        return [p + "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (rng.randint(0, 11), rng.randint(0, 1)),
                "NVRM: Xid (PCI:0000:%s:00): 63, pid=%s, name=%s, Row Remapper: New row (0x%08x) marked for remapping, reset gpu to activate." % (pci, pid, comm, rng.randint(0x100, 0xfffff))]
    if xid == 94:
        return [p + "Contained: SM (0x1). RST: No, D-RST: No"]
    if xid == 95:
        return [p + "Uncontained: FBHUB. RST: Yes, D-RST: No"]
    if xid == 63:
        return [p + "Row Remapper: New row (0x%08x) marked for remapping, reset gpu to activate." % rng.randint(0x100, 0xfffff)]
    if xid == 64:
        return [p + "Row Remapper: Failed to remap row (0x%08x) - row remapping table full." % rng.randint(0x100, 0xfffff)]
    if xid == 74:
        lk = link if link is not None else rng.randint(0, 17)
        return [p + "NVLink: fatal error detected on link %d(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)" % lk]
    if xid == 31:
        return [p + "channel 0x%08x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC%d GPCCLIENT_T1_%d faulted @ 0x7f%s_%s000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (rng.randint(8, 60), rng.randint(0, 7), rng.randint(0, 15), hexid(rng, 2), hexid(rng, 5))]
    if xid == 13:
        return [p + "Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (rng.randint(0, 7), rng.randint(0, 8), rng.randint(0, 1)),
                p + "Graphics Exception: ESR 0x%x=0x%x 0x%x=0x%x 0x%x=0x%x 0x%x=0x%x" % tuple(rng.randint(0x500000, 0x5fffff) for _ in range(8))]
    if xid == 43:
        return [p + "Ch %08x" % rng.randint(8, 80)]
    if xid == 92:
        return [p + "High single-bit ECC error rate detected."]
    if xid == 45:
        return [p + "Ch %08x" % rng.randint(8, 80)]
    if xid == 62:
        return [p + "%s %s %s (%s %s %s %s)" % (hexid(rng, 8), hexid(rng, 8), hexid(rng, 8), hexid(rng, 8), hexid(rng, 8), hexid(rng, 8), hexid(rng, 8))]
    return [p + "Unknown"]


def oom_kill_lines(rng, pid, comm, rss_kb, cgroup=None, task_memcg=None, total_vm=None, uid=0):
    trig = comm if rng.random() < 0.5 else rng.choice(["pt_main_thread", "python3", "ray::IDLE", "kworker/u257:3"])
    lines = []
    lines.append("%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0" % trig)
    lines.append("CPU: %d PID: %d Comm: %s Tainted: P           OE      5.15.0-%d-generic #%d-Ubuntu" % (rng.randint(0, 191), pid + rng.randint(1, 40), trig, rng.choice([91, 105, 119, 122]), rng.randint(90, 140)))
    lines.append("Hardware name: %s" % rng.choice(["Supermicro SYS-821GE-TNHR/X13DEG-OAD, BIOS 2.1 04/11/2024", "Dell Inc. PowerEdge XE9680/0K3MK6, BIOS 1.6.10 03/22/2024", "Amazon EC2 p5.48xlarge/, BIOS 1.0 10/16/2017"]))
    lines.append("Call Trace:")
    lines.append(" <TASK>")
    lines += [" dump_stack_lvl+0x4a/0x63", " dump_header+0x4a/0x1f4", " oom_kill_process.cold+0xb/0x10", " out_of_memory+0x106/0x2e0", " __alloc_pages_slowpath.constprop.0+0x97a/0xa40", " __alloc_pages+0x30f/0x350", " </TASK>"]
    if cgroup:
        lines.append("memory: usage %dkB, limit %dkB, failcnt %d" % (rss_kb + 40000, rss_kb + 40000, rng.randint(1, 900)))
        lines.append("oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=%s,mems_allowed=0-1,oom_memcg=%s,task_memcg=%s,task=%s,pid=%d,uid=%d" % (cgroup.split("/")[-1], cgroup, task_memcg or cgroup, comm, pid, uid))
        lines.append("Memory cgroup out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (pid, comm, total_vm or rss_kb * 3, rss_kb, rng.randint(60000, 900000), rng.randint(0, 80000), uid, rss_kb // 500))
    else:
        lines.append("Mem-Info:")
        lines.append("active_anon:%d inactive_anon:%d isolated_anon:0" % (rng.randint(10**7, 5 * 10**7), rng.randint(10**5, 10**6)))
        lines.append("oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/system.slice/%s,task=%s,pid=%d,uid=%d" % (rng.choice(["slurmstepd.scope/job_%d/step_0/user/task_0" % rng.randint(10**5, 10**7), "docker-%s.scope" % hexid(rng, 64), "ray.service"]), comm, pid, uid))
        lines.append("Out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (pid, comm, total_vm or rss_kb * 3, rss_kb, rng.randint(60000, 900000), rng.randint(0, 80000), uid, rss_kb // 500))
    lines.append("oom_reaper: reaped process %d (%s), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB" % (pid, comm))
    return lines


def segfault_kernel(rng, comm, pid, lib=None):
    lib = lib or rng.choice(["libtorch_cuda.so", "libc10.so", "libnccl.so.2", "libcuda.so.550.90.07", "libtorch_cpu.so", "_C.cpython-310-x86_64-linux-gnu.so"])
    return "%s[%d]: segfault at %x ip 00007f%s sp 00007ff%s error %d in %s[7f%s+%x] likely on CPU %d (core %d, socket %d)" % (
        comm, pid, rng.choice([0, 8, 0x10, rng.randint(0x1000, 0xffffff)]), hexid(rng, 10), hexid(rng, 9), rng.choice([4, 6, 14]),
        lib, hexid(rng, 10), rng.randint(0x100000, 0x3000000), rng.randint(0, 191), rng.randint(0, 95), rng.randint(0, 1))


def mlx5_down_lines(rng, ib_pci, dev, port_if):
    v = rng.random()
    if v < 0.4:
        return ["mlx5_core 0000:%s:00.0: mlx5_port_module_event:1169:(pid 0): Port module event[error]: module %d, Cable error, High Temperature" % (ib_pci, rng.randint(0, 7)),
                "mlx5_core 0000:%s:00.0 %s: Link down" % (ib_pci, port_if)]
    if v < 0.7:
        return ["mlx5_core 0000:%s:00.0: poll_health:%d:(pid 0): Fatal error 1 detected" % (ib_pci, rng.choice([801, 811, 834])),
                "mlx5_core 0000:%s:00.0: print_health_info:%d:(pid 0): PCI slot 1 is unavailable" % (ib_pci, rng.choice([430, 456])),
                "mlx5_core 0000:%s:00.0: mlx5_trigger_health_work:%d:(pid 0): new health works are not permitted at this stage" % (ib_pci, rng.choice([760, 787])),
                "mlx5_core 0000:%s:00.0: mlx5_health_try_recover:%d:(pid %d): handling bad device here" % (ib_pci, rng.choice([325, 335]), rng.randint(100, 999)),
                "mlx5_core 0000:%s:00.0: mlx5_error_sw_reset:%d:(pid %d): start" % (ib_pci, rng.choice([274, 283]), rng.randint(100, 999))]
    return ["infiniband %s: mlx5_handle_error_cqe:%d:(pid %d): WC error: 12, Message: transport retry counter exceeded" % (dev, rng.randint(300, 350), rng.randint(1000, 90000)),
            "mlx5_core 0000:%s:00.0 %s: Link down" % (ib_pci, port_if),
            "mlx5_core 0000:%s:00.0 %s: Link up" % (ib_pci, port_if),
            "mlx5_core 0000:%s:00.0 %s: Link down" % (ib_pci, port_if)]


# --------------------------------------------------------------------------- torch / cuda text
CUDA_ASYNC = ["CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
              "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
              "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."]

PY = "/usr/local/lib/python3.10/dist-packages"


def set_py(path):
    global PY
    PY = path


def cuda_rt_error(msg):
    return ["RuntimeError: CUDA error: " + msg] + CUDA_ASYNC + [""]


def c10_frames(rng, kind="cuda"):
    lib = PY + "/torch/lib/"
    fr = [
        "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f%s in %slibc10.so)" % (hexid(rng, 10), lib),
        "frame #1: c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64 (0x7f%s in %slibc10.so)" % (hexid(rng, 10), lib),
        "frame #2: c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118 (0x7f%s in %slibc10_cuda.so)" % (hexid(rng, 10), lib),
        "frame #3: <unknown function> + 0x%x (0x7f%s in %slibc10_cuda.so)" % (rng.randint(0x10000, 0x30000), hexid(rng, 10), lib),
        "frame #4: <unknown function> + 0x%x (0x7f%s in %slibtorch_python.so)" % (rng.randint(0x500000, 0xa00000), hexid(rng, 10), lib),
        "frame #5: <unknown function> + 0x%x (0x7f%s in /lib/x86_64-linux-gnu/libc.so.6)" % (rng.randint(0x90000, 0x9ffff), hexid(rng, 10)),
    ]
    return fr


def oom_text(rng, gpu_idx, total_gib=79.11, tried=None, dev="CUDA", gpu="GPU"):
    tried = tried or rng.choice([1.96, 3.91, 7.83, 2.50, 1.17, 15.66, 448.00 / 1024])
    alloc = total_gib - rng.uniform(1.5, 6)
    resv = rng.uniform(0.3, 3.0)
    free = rng.uniform(0.05, 1.3)
    tried_s = ("%.2f GiB" % tried) if tried >= 1 else ("%.2f MiB" % (tried * 1024))
    return ("torch.OutOfMemoryError: %s out of memory. Tried to allocate %s. %s %d has a total capacity of %.2f GiB of which %.2f MiB is free. "
            "Process %d has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. "
            "If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  "
            "See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)") % (
        dev, tried_s, gpu, gpu_idx, total_gib, free * 1024, rng.randint(1000, 99999), total_gib - free, alloc, resv)


def watchdog_timeout(rng, rank, t, seq, optype, numel, timeout_ms, pg="0", pgname="default_pg", prefix=True, ver="2.5", completed=None):
    """PyTorch 2.x ProcessGroupNCCL watchdog timeout block. Returns list of (dt, line)."""
    ran = timeout_ms + rng.randint(3, 900)
    pre = "[rank%d]:" % rank if prefix else ""
    L = []
    work = "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (seq, optype, numel, numel * (1 if optype != "_ALLGATHER_BASE" else 1), timeout_ms)
    lc = completed if completed is not None else seq - 1
    if ver >= "2.4":
        L.append(pre + "[%s ProcessGroupNCCL.cpp:%d] [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (T.c10d(t), rng.choice([616, 632, 607]), rank, work, ran))
        L.append(pre + "[%s ProcessGroupNCCL.cpp:%d] [PG ID %s PG GUID %s(%s) Rank %d] Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (T.c10d(t + 0.0002), rng.choice([1785, 1664, 2268]), pg, pg, pgname, rank, seq, seq, lc))
        L.append(pre + "[%s ProcessGroupNCCL.cpp:%d] [PG ID %s PG GUID %s(%s) Rank %d] Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (T.c10d(t + 0.0003), rng.choice([1834, 1682]), pg, pg, pgname, rank, seq, seq, lc))
        L.append(pre + "[%s ProcessGroupNCCL.cpp:%d] [Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % (T.c10d(t + 0.0004), rng.choice([630, 577]), rank))
        L.append(pre + "[%s ProcessGroupNCCL.cpp:%d] [Rank %d] To avoid data inconsistency, we are taking the entire process down." % (T.c10d(t + 0.0005), rng.choice([636, 583]), rank))
        L.append(pre + "[%s ProcessGroupNCCL.cpp:%d] [PG ID %s PG GUID %s(%s) Rank %d] Process group watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (T.c10d(t + 0.002), rng.choice([1595, 1609]), pg, pg, pgname, rank, rank, work, ran))
        L.append("Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % rng.choice([618, 634]))
        L += watchdog_frames(rng)
        L.append("")
        L.append("terminate called after throwing an instance of 'c10::DistBackendError'")
        L.append("  what():  [PG ID %s PG GUID %s(%s) Rank %d] Process group watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (pg, pg, pgname, rank, rank, work, ran))
        L.append("Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % rng.choice([618, 634]))
        L += watchdog_frames(rng)
        L.append("")
    else:
        L.append(pre + "[E ProcessGroupNCCL.cpp:475] [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (rank, work, ran))
        L.append(pre + "[E ProcessGroupNCCL.cpp:489] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.")
        L.append(pre + "[E ProcessGroupNCCL.cpp:495] To avoid data inconsistency, we are taking the entire process down.")
        L.append("terminate called after throwing an instance of 'std::runtime_error'")
        L.append("  what():  [Rank %d] NCCL watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (rank, rank, work, ran))
    L.append("Fatal Python error: Aborted")
    L.append("")
    return L


def watchdog_frames(rng):
    lib = PY + "/torch/lib/"
    return [
        "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f%s in %slibc10.so)" % (hexid(rng, 10), lib),
        "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 (0x7f%s in %slibtorch_cuda.so)" % (hexid(rng, 10), lib),
        "frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 (0x7f%s in %slibtorch_cuda.so)" % (hexid(rng, 10), lib),
        "frame #3: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d (0x7f%s in %slibtorch_cuda.so)" % (hexid(rng, 10), lib),
        "frame #4: <unknown function> + 0xdc253 (0x7f%s in /lib/x86_64-linux-gnu/libstdc++.so.6)" % hexid(rng, 10),
        "frame #5: <unknown function> + 0x94ac3 (0x7f%s in /lib/x86_64-linux-gnu/libc.so.6)" % hexid(rng, 10),
        "frame #6: clone + 0x44 (0x7f%s in /lib/x86_64-linux-gnu/libc.so.6)" % hexid(rng, 10),
    ]


def nccl_prefix(host, pid, tid, dev):
    return "%s:%d:%d [%d]" % (host.split(".")[0], pid, tid, dev)


def nccl_init_lines(rng, host, pid, dev, rank, nranks, nnodes, local_ranks, busid, ver="2.21.5"):
    p = nccl_prefix(host, pid, pid, dev)
    tid = pid + rng.randint(60, 300)
    q = nccl_prefix(host, pid, tid, dev)
    L = []
    if rank == 0:
        L.append("%s NCCL INFO Bootstrap : Using eth0:%s<0>" % (p, "10.0.0.1"))
        L.append("%s NCCL INFO NCCL version %s+cuda12.4" % (p, ver))
    L.append("%s NCCL INFO NET/Plugin: Loaded net plugin NCCL RDMA Plugin v8 (v8)" % p)
    L.append("%s NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB [4]mlx5_4:1/IB [5]mlx5_5:1/IB [6]mlx5_6:1/IB [7]mlx5_7:1/IB [RO]; OOB eth0:%s<0>" % (p, "10.0.0.1"))
    L.append("%s NCCL INFO Using network IB" % p)
    L.append("%s NCCL INFO ncclCommInitRank comm 0x%s rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId 0x%s - Init START" % (p, hexid(rng, 12), rank, nranks, dev, dev, busid, hexid(rng, 16)))
    L.append("%s NCCL INFO comm 0x%s rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL 0" % (q, hexid(rng, 12), rank, nranks, nnodes, local_ranks, dev))
    L.append("%s NCCL INFO ncclCommInitRank comm 0x%s rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId 0x%s - Init COMPLETE" % (p, hexid(rng, 12), rank, nranks, dev, dev, busid, hexid(rng, 16)))
    return L


def ib_completion_warn(rng, host, pid, dev, peer_ip, local_ip, hca, newfmt=True, status=12):
    p = nccl_prefix(host, pid, pid + rng.randint(300, 900), dev)
    if newfmt:
        return "%s transport/net_ib.cc:%d NCCL WARN NET/IB : Got completion from peer %s<%d> with status=%d opcode=%d len=%d vendor err %d (%s) localGid ::ffff:%s remoteGids::ffff:%s hca %s" % (
            p, rng.choice([1696, 1711, 2336]), peer_ip, rng.randint(30000, 60000), status, rng.choice([0, 1, 129]), rng.choice([0, 524288]), rng.choice([129, 244]), rng.choice(["Send", "Recv"]), local_ip, peer_ip, hca)
    return "%s NCCL WARN NET/IB : Got completion from peer %s<%d> with error %d, opcode %d, len %d, vendor err %d (%s)" % (
        p, peer_ip, rng.randint(30000, 60000), status, rng.choice([0, 1, 129]), rng.choice([0, 32768]), rng.choice([129, 244]), rng.choice(["Send", "Recv"]))


def dist_backend_error(rng, kind, detail, ver="2.21.5", pre=""):
    """torch.distributed.DistBackendError text (last lines of a traceback)."""
    if kind == "remote":
        return [pre + "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:%d, remote process exited or there was a network error, NCCL version %s" % (rng.choice([317, 275]), ver),
                pre + "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
                pre + "Last error:",
                pre + detail]
    if kind == "unhandled":
        return [pre + "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:%d, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % (rng.choice([317, 275]), ver),
                pre + "ncclUnhandledCudaError: Call to CUDA function failed.",
                pre + "Last error:",
                pre + detail]
    if kind == "system":
        return [pre + "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:%d, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % (rng.choice([317, 275]), ver),
                pre + "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ",
                pre + "Last error:",
                pre + detail]
    return [pre + "torch.distributed.DistBackendError: " + detail]


def tb(frames, exc_lines, chained=None):
    """Python traceback text. frames: list of (file, line, func, code)."""
    L = []
    if chained:
        L += chained
        L.append("")
        L.append("The above exception was the direct cause of the following exception:")
        L.append("")
    L.append("Traceback (most recent call last):")
    for f, ln, fn, code in frames:
        L.append('  File "%s", line %d, in %s' % (f, ln, fn))
        if code:
            L.append("    " + code)
    L += exc_lines if isinstance(exc_lines, list) else [exc_lines]
    return L


def faulthandler_dump(pid_threads, sig="Segmentation fault", header=True):
    """pid_threads: list of (thread_id_hex, is_current, frames[(file, line, func)])"""
    L = []
    if header:
        L.append("Fatal Python error: %s" % sig)
        L.append("")
    for tid, cur, frames in pid_threads:
        L.append("%s 0x%s (most recent call first):" % ("Current thread" if cur else "Thread", tid))
        for f, ln, fn in frames:
            L.append('  File "%s", line %d in %s' % (f, ln, fn))
        L.append("")
    return L


def pyspy_dump(pid, cmd, pyver, threads):
    """threads: list of (tid, name, state, frames[(func, file, line, locals?)])"""
    L = ["Process %d: %s" % (pid, cmd), "Python v%s (/usr/bin/python3)" % pyver, ""]
    for tid, name, state, frames in threads:
        L.append('Thread %d (%s): "%s"' % (tid, state, name))
        for fn, f, ln in frames:
            L.append("    %s (%s:%d)" % (fn, f, ln))
    L.append("")
    return L


def human_bytes(n):
    for u in ["B", "KiB", "MiB", "GiB", "TiB"]:
        if n < 1024:
            return "%.1f%s" % (n, u)
        n /= 1024.0
    return "%.1fPiB" % n


def write_truth(out, truth):
    out.add("truth.json", json.dumps(truth, indent=2, sort_keys=False) + "\n")


def ansi(code, s):
    return "\x1b[%sm%s\x1b[0m" % (code, s)


def tqdm_bar(done, total, elapsed, rate, width=40, desc="", post=""):
    frac = done / float(total) if total else 0
    full = int(frac * width)
    rem = frac * width - full
    parts = " ▏▎▍▌▋▊▉"
    bar = "█" * full
    if full < width:
        bar += parts[int(rem * 8)] + " " * (width - full - 1)
    el = "%02d:%02d" % (int(elapsed) // 60, int(elapsed) % 60)
    left = (total - done) / rate if rate > 0 else 0
    lf = "%02d:%02d" % (int(left) // 60, int(left) % 60)
    return "%s%3d%%|%s| %d/%d [%s<%s, %.2fit/s%s]" % ((desc + ": ") if desc else "", int(frac * 100), bar, done, total, el, lf, rate, (", " + post) if post else "")
