#!/usr/bin/env python3
"""blind51: synthetic log bundles of failed (and healthy) multi-GPU / multi-node jobs
run with frameworks other than PyTorch (TensorFlow MWMS, JAX multi-controller, PaddlePaddle,
Horovod (TF/Keras, MXNet), MindSpore (msrun), OneFlow) on NVIDIA GPUs.

Written blind (from knowledge of what these programs print, with spot checks against public
issue threads); standard library only.

    python3 gen_blind51.py --out DIR --n 60 --seed S
"""
import argparse
import datetime as _dt
import json
import os
import random
import sys

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill", "crash_signal",
          "preemption", "hang", "data_loader_stall", "collective_mismatch", "straggler",
          "unknown"]

LAYOUTS = ["tf_k8s", "jax_gke", "jax_slurm", "paddle_launch", "horovod_mpirun",
           "mindspore_msrun", "oneflow_launch"]

PCI_H100 = ["0000:18:00", "0000:2a:00", "0000:3a:00", "0000:5d:00",
            "0000:9a:00", "0000:ab:00", "0000:ba:00", "0000:db:00"]
PCI_A100 = ["0000:07:00", "0000:0f:00", "0000:47:00", "0000:4e:00",
            "0000:87:00", "0000:90:00", "0000:b7:00", "0000:bd:00"]
GPUS = [("NVIDIA H100 80GB HBM3", "9.0", 79.1, PCI_H100),
        ("NVIDIA A100-SXM4-80GB", "8.0", 79.2, PCI_A100),
        ("NVIDIA A100-SXM4-40GB", "8.0", 39.4, PCI_A100),
        ("Tesla V100-SXM2-32GB", "7.0", 31.7, PCI_A100)]


# ----------------------------------------------------------------------------- helpers
class Log:
    """Lines with a relative time (seconds since job start); rendered in time order
    (stable for equal times) with the node's own clock (skew)."""

    def __init__(self, skew=0.0):
        self.items = []
        self.skew = skew
        self.seq = 0

    def add(self, t, text):
        self.seq += 1
        self.items.append((t, self.seq, text))

    def block(self, t, lines):
        for k, ln in enumerate(lines):
            self.add(t + k * 1e-6, ln)

    def render(self, base):
        out = []
        for t, _, text in sorted(self.items, key=lambda x: (x[0], x[1])):
            dt = base + _dt.timedelta(seconds=t + self.skew)
            if callable(text):
                text = text(dt)
            out.append(text)
        return "\n".join(out) + "\n"


def us(dt):
    return "%06d" % dt.microsecond


def ts_tf(dt):  # 2024-03-05 10:22:33.123456
    return dt.strftime("%Y-%m-%d %H:%M:%S.") + us(dt)


def glog(lvl, tid, src):
    """glog / absl style prefix: I0305 10:22:33.123456 12345 file.cc:12] """
    def f(dt, _l=lvl, _t=tid, _s=src):
        return "%s%s %s %7d %s] " % (_l, dt.strftime("%m%d"), dt.strftime("%H:%M:%S.") + us(dt), _t, _s)
    return f


def tfl(lvl, src, msg):
    return lambda dt: "%s: %s %s] %s" % (ts_tf(dt), lvl, src, msg)


def gl(lvl, tid, src, msg):
    p = glog(lvl, tid, src)
    return lambda dt: p(dt) + msg


def human_time(dt):
    return dt.strftime("%a %b %d %H:%M:%S %Y")


def tail_trim(lines_text, keep, rng):
    lines = lines_text.splitlines()
    if len(lines) <= keep:
        return lines_text
    return "\n".join(lines[-keep:]) + "\n"


class Proc:
    def __init__(self, rank, node, local, pid, gpu):
        self.rank, self.node, self.local, self.pid, self.gpu = rank, node, local, pid, gpu
        self.exit = None  # (t, kind, value)  kind in code/signal/term


class Ctx:
    def __init__(self, rng, idx, layout, cause, healthy):
        self.rng = rng
        self.idx = idx
        self.layout = layout
        self.cause = cause
        self.healthy = healthy
        self.base = _dt.datetime(2023 + rng.randint(0, 2), rng.randint(1, 12), rng.randint(1, 28),
                                 rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59),
                                 rng.randint(0, 999999))
        self.gpu = rng.choice(GPUS)
        self.notes = []
        self.init_rank = None
        self.init_node = None
        self.files = {}

    def setup_nodes(self, n_nodes, per_node, names):
        rng = self.rng
        self.nodes = names
        self.skews = [0.0] + [round(rng.uniform(-4.0, 4.0), 3) for _ in range(n_nodes - 1)]
        self.per_node = per_node
        self.procs = []
        r = 0
        for n in range(n_nodes):
            base_pid = rng.randint(1200, 60000)
            for l in range(per_node):
                self.procs.append(Proc(r, n, l, base_pid + l * rng.randint(3, 40), l))
                r += 1
        self.world = len(self.procs)

    def pick_initiator(self):
        p = self.rng.choice(self.procs[1:] if self.rng.random() < 0.8 else self.procs)
        return p


def hostnames(rng, n, style=None):
    style = style or rng.choice(["gpu", "dgx", "cw", "ip"])
    start = rng.randint(1, 60)
    if style == "gpu":
        return ["gpu-node-%03d" % (start + i) for i in range(n)]
    if style == "dgx":
        return ["dgx%02d" % (start + i) for i in range(n)]
    if style == "cw":
        pre = rng.choice(["a100", "h100", "hgx"])
        return ["%s-%s-%02d" % (pre, rng.choice(["prod", "r4", "train"]), start + i) for i in range(n)]
    a, b = rng.randint(10, 172), rng.randint(0, 254)
    return ["ip-10-%d-%d-%d" % (a, b, rng.randint(2, 250)) for _ in range(n)]


def gke_nodes(rng, n):
    pool = rng.choice(["a3-highgpu-8g", "a2-ultragpu-8g", "gpu-pool", "a3-mega"])
    h = "%08x" % rng.getrandbits(32)
    return ["gke-%s-%s-%s-%s" % (rng.choice(["ml", "train", "research"]), pool, h,
                                 "".join(rng.choice("bcdfghjklmnpqrstvwxz0123456789") for _ in range(4)))
            for _ in range(n)]


# ----------------------------------------------------------------------------- host-side files
def dmesg_line(uptime, msg):
    return "[%12.6f] %s" % (uptime, msg)


def kern_syslog(dt, host, msg):
    return "%s %s kernel: %s" % (dt.strftime("%b %d %H:%M:%S").replace(" 0", "  ", 1) if dt.day < 10 else dt.strftime("%b %d %H:%M:%S"), host, msg)


def host_log(ctx, node_idx, t_fault, events, style=None):
    """events: list of (dt_offset_seconds, msg). Emits dmesg -T style or syslog style file."""
    rng = ctx.rng
    host = ctx.nodes[node_idx]
    style = style or rng.choice(["dmesg", "dmesgT", "syslog"])
    uptime0 = rng.uniform(200000, 4000000)
    noise = [
        "IPv6: ADDRCONF(NETDEV_CHANGE): veth%s: link becomes ready" % ("%07x" % rng.getrandbits(28)),
        "docker0: port 3(veth%s) entered forwarding state" % ("%07x" % rng.getrandbits(28)),
        "nvidia-nvswitch3: SXid (PCI:0000:c8:00.0): 12028, Non-fatal, Link 46 egress non-posted PRIV error (First)" if rng.random() < 0.2 else "audit: type=1400 audit(%d.%03d:%d): apparmor=\"STATUS\" operation=\"profile_replace\" name=\"cri-containerd.apparmor.d\"" % (rng.randint(1600000000, 1700000000), rng.randint(0, 999), rng.randint(100, 999)),
        "EXT4-fs (nvme0n1p1): re-mounted. Opts: (null)",
        "NFSD: Using UMH upcall client tracking operations." if rng.random() < 0.3 else "perf: interrupt took too long (2503 > 2500), lowering kernel.perf_event_max_sample_rate to 79750",
    ]
    items = []
    for k in range(rng.randint(3, 6)):
        items.append((t_fault - rng.uniform(60, 20000), rng.choice(noise)))
    for off, msg in events:
        items.append((t_fault + off, msg))
    items.sort(key=lambda x: x[0])
    out = []
    for t, msg in items:
        dt = ctx.base + _dt.timedelta(seconds=t + ctx.skews[node_idx])
        if style == "dmesg":
            out.append(dmesg_line(uptime0 + t, msg))
        elif style == "dmesgT":
            out.append("[%s] %s" % (human_time(dt), msg))
        else:
            out.append("%s %s kernel: [%12.6f] %s" % (dt.strftime("%b %d %H:%M:%S"), host, uptime0 + t, msg))
    fname = {"dmesg": "dmesg-%s.txt" % host, "dmesgT": "dmesg_T_%s.log" % host,
             "syslog": "%s-kern.log" % host}[style]
    return fname, "\n".join(out) + "\n"


def xid_events(ctx, cause, proc, pci, variant):
    rng = ctx.rng
    name = rng.choice(["python3", "python", "pt_main_thread" if False else "python3.10"])
    pid = proc.pid
    ev = []
    if cause == "gpu_hardware":
        if variant == 0:
            ev.append((0.0, "NVRM: GPU at PCI:%s.0: GPU-%08x-%04x-%04x-%04x-%012x" % (pci, rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(48))))
            ev.append((0.0001, "NVRM: Xid (PCI:%s): 79, pid=%d, name=%s, GPU has fallen off the bus." % (pci, pid, name)))
            ev.append((0.0002, "NVRM: GPU %s.0: GPU has fallen off the bus." % pci))
            ev.append((0.0003, "NVRM: A GPU crash dump has been created. If possible, please run\nNVRM: nvidia-bug-report.sh as root to collect this data before\nNVRM: the NVIDIA kernel module is unloaded."))
        elif variant == 1:
            ev.append((0.0, "NVRM: Xid (PCI:%s): 119, pid=%d, name=%s, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x20801348 0x4)." % (pci, pid, name, proc.gpu)))
            ev.append((6.2, "NVRM: GPU%d GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x0000000020801348 0x0000000000000004." % proc.gpu))
            ev.append((12.5, "NVRM: Xid (PCI:%s): 119, pid=%d, name=%s, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 10 (FREE) (0xa55a00b0 0x0)." % (pci, pid, name, proc.gpu)))
            ev.append((18.9, "NVRM: Rate limiting GSP RPC error prints for GPU at PCI:%s (printing 1 of every 30).  The GPU likely needs to be reset." % pci))
        else:
            ev.append((0.0, "NVRM: Xid (PCI:%s): 62, pid=%d, name=%s, 0000b7d4 0000ba4a 00000000 2025b1ab 00000a2a 00000000 00000000 00000000" % (pci, pid, name)))
            ev.append((0.3, "NVRM: Xid (PCI:%s): 45, pid=%d, name=%s, Ch 00000008" % (pci, pid, name)))
            ev.append((1.1, "NVRM: GPU at PCI:%s: GPU is lost.  Reboot the system to recover this GPU" % pci if rng.random() < 0.5 else "NVRM: Xid (PCI:%s): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)" % pci))
    elif cause == "ecc_memory":
        if variant == 0:
            ev.append((0.0, "NVRM: Xid (PCI:%s): 48, pid=%d, name=%s, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 6, subpartition 0." % (pci, pid, name)))
            ev.append((0.2, "NVRM: Xid (PCI:%s): 63, pid=%d, name=%s, Row Remapper: New row (0x%07x) Marked for Remapping, reset gpu to activate." % (pci, pid, name, rng.getrandbits(24))))
            ev.append((0.4, "NVRM: Xid (PCI:%s): 94, pid=%d, name=%s, Contained: CE User Channel (0x%x). RST: No, D-RST: No" % (pci, pid, name, rng.randint(1, 15))))
        else:
            ev.append((0.0, "NVRM: Xid (PCI:%s): 64, pid=%d, name=%s, Row Remapper Error: (0x%07x) - All reserved rows for bank are remapped" % (pci, pid, name, rng.getrandbits(24))))
            ev.append((0.1, "NVRM: Xid (PCI:%s): 95, pid=%d, name=%s, Uncontained: FBHUB. RST: Yes, D-RST: No" % (pci, pid, name)))
    elif cause == "nvlink":
        link = rng.randint(0, 17)
        ev.append((0.0, "NVRM: Xid (PCI:%s): 74, pid=%d, name=%s, NVLink: fatal error detected on link %d(0x0, 0x0, 0x%x, 0x0, 0x0, 0x0, 0x0)" % (pci, pid, name, link, rng.choice([0x10000, 0x20000, 0x400]))))
        ev.append((0.05, "NVRM: Xid (PCI:%s): 74, pid=%d, name=%s, NVLink: fatal error detected on link %d(0x0, 0x0, 0x0, 0x0, 0x8, 0x0, 0x0)" % (pci, pid, name, (link + 1) % 18)))
        if rng.random() < 0.5:
            ev.append((0.2, "nvidia-nvswitch%d: SXid (PCI:0000:%02x:00.0): 20034, Fatal, Link %d LTSSM Fault Up" % (rng.randint(0, 3), rng.choice([0x86, 0x87, 0xc8, 0xc9]), rng.randint(0, 63))))
            ev.append((0.21, "nvidia-nvswitch%d: SXid (PCI:0000:%02x:00.0): 20034, Severity 1 Engine instance 32 Sub-engine instance 00" % (rng.randint(0, 3), rng.choice([0x86, 0x87]))))
    elif cause == "illegal_memory_access":
        if variant == 0:
            ev.append((0.0, "NVRM: Xid (PCI:%s): 13, pid=%d, name=%s, Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (pci, pid, name, rng.randint(0, 7), rng.randint(0, 8), rng.randint(0, 1))))
            ev.append((0.0001, "NVRM: Xid (PCI:%s): 13, pid=%d, name=%s, Graphics Exception: ESR 0x%06x=0x%x 0x%06x=0x0 0x%06x=0x%x 0x%06x=0x%x" % (pci, pid, name, rng.getrandbits(24), rng.getrandbits(16), rng.getrandbits(24), rng.getrandbits(24), rng.getrandbits(28), rng.getrandbits(24), rng.getrandbits(16))))
        else:
            ev.append((0.0, "NVRM: Xid (PCI:%s): 31, pid=%d, name=%s, Ch 000000%02x, intr 10000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_%d faulted @ 0x7f%02x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (pci, pid, name, rng.randint(8, 40), rng.randint(0, 15), rng.getrandbits(8), rng.getrandbits(32))))
    return ev


def nvsmi_file(ctx, node_idx, pci_bad, cause):
    """nvidia-smi -q excerpt an operator ran afterwards."""
    rng = ctx.rng
    host = ctx.nodes[node_idx]
    lines = ["==============NVSMI LOG==============", "",
             "Timestamp                                 : %s" % human_time(ctx.base + _dt.timedelta(hours=rng.randint(2, 9))),
             "Driver Version                            : %s" % rng.choice(["535.129.03", "535.161.08", "550.54.15", "525.85.12"]),
             "CUDA Version                              : %s" % rng.choice(["12.2", "12.4", "12.0"]),
             "", "Attached GPUs                             : 8"]
    pcis = ctx.gpu[3]
    for k, p in enumerate(pcis[:8]):
        lines.append("GPU 0000%s.0" % p[4:] if False else "GPU %s.0" % ("0000000" + p[4:]))
        lines.append("    Product Name                          : %s" % ctx.gpu[0])
        bad = (p == pci_bad)
        if bad and cause == "gpu_hardware":
            lines.append("    Unable to determine the device handle for GPU%s.0: Unknown Error" % p)
            continue
        lines.append("    ECC Errors")
        lines.append("        Volatile")
        lines.append("            SRAM Correctable              : %d" % (rng.randint(0, 3)))
        lines.append("            SRAM Uncorrectable            : 0")
        lines.append("            DRAM Correctable              : %d" % (rng.randint(0, 40) if not bad else rng.randint(100, 900)))
        lines.append("            DRAM Uncorrectable            : %d" % (0 if not bad else rng.randint(1, 4)))
        lines.append("    Remapped Rows")
        lines.append("        Correctable Error                 : %d" % rng.randint(0, 2))
        lines.append("        Uncorrectable Error               : %d" % (0 if not bad else rng.randint(1, 8)))
        lines.append("        Pending                           : %s" % ("Yes" if bad else "No"))
        lines.append("        Remapping Failure Occurred        : %s" % ("Yes" if bad and rng.random() < 0.5 else "No"))
    return "nvidia-smi-q-%s.txt" % host, "\n".join(lines) + "\n"


def oom_kill_events(ctx, proc, cgroup):
    rng = ctx.rng
    name = rng.choice(["python3", "python"])
    rss = rng.randint(60, 240) * 1024 * 1024 + rng.randint(0, 999999)
    ev = [(-0.01, "%s invoked oom-killer: gfp_mask=0x%x(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=%d" % (rng.choice(["python3", "pt_data_worker", "tf_data_private", "python3"]), rng.choice([0x140cca, 0x1100cca]), rng.choice([0, 0, 1000])))]
    ev.append((-0.009, "CPU: %d PID: %d Comm: %s Tainted: P           OE     5.15.0-%d-generic #%d-Ubuntu" % (rng.randint(0, 127), proc.pid + rng.randint(1, 300), name, rng.randint(70, 110), rng.randint(70, 120))))
    ev.append((-0.008, "Hardware name: %s" % rng.choice(["Supermicro SYS-821GE-TNHR/X13DEG-OAD, BIOS 2.1 04/24/2024", "NVIDIA DGXH100/DGXH100, BIOS 1.5.0 08/20/2023", "Dell Inc. PowerEdge XE9680/0DPN2Y, BIOS 1.3.5 10/12/2023"])))
    if cgroup:
        ev.append((-0.002, "memory: usage %dkB, limit %dkB, failcnt %d" % (rss + 4000000, rss + 4000000, rng.randint(1, 4000))))
        ev.append((0.0, "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=cri-containerd-%s.scope,mems_allowed=0-1,oom_memcg=/kubepods.slice/kubepods-burstable.slice,task_memcg=/kubepods.slice/kubepods-burstable.slice/cri-containerd-%s.scope,task=%s,pid=%d,uid=0" % ("%012x" % rng.getrandbits(48), "%012x" % rng.getrandbits(48), name, proc.pid)))
        ev.append((0.0001, "Memory cgroup out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:0 pgtables:%dkB oom_score_adj:%d" % (proc.pid, name, rss * 3, rss, rng.randint(100000, 900000), rng.randint(1000, 90000), rng.randint(100000, 500000), rng.choice([0, 1000]))))
    else:
        ev.append((0.0, "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/system.slice/slurmstepd.scope/job_%d,task=%s,pid=%d,uid=%d" % (rng.randint(100000, 999999), name, proc.pid, rng.randint(1000, 40000))))
        ev.append((0.0001, "Out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (proc.pid, name, rss * 3, rss, rng.randint(100000, 900000), rng.randint(1000, 90000), rng.randint(1000, 40000), rng.randint(100000, 500000))))
    ev.append((0.4, "oom_reaper: reaped process %d (%s), now anon-rss:0kB, file-rss:%dkB, shmem-rss:0kB" % (proc.pid, name, rng.randint(0, 900))))
    return ev


def net_events(ctx, variant):
    rng = ctx.rng
    if variant == 0:
        dev = rng.choice(["mlx5_%d" % rng.randint(0, 7), "mlx5_%d" % rng.randint(0, 7)])
        return [(-0.5, "mlx5_core 0000:%02x:00.0 ibp%ds0: Link down" % (rng.choice([0x1a, 0x3c, 0x4d, 0x5e, 0x9c, 0xbc]), rng.randint(24, 220))),
                (-0.49, "mlx5_core 0000:%02x:00.0: mlx5_port_module_event:1149:(pid 0): Port module event[error]: module 0, Cable error, High power consumption exceeded" % rng.choice([0x1a, 0x3c])) if rng.random() < 0.4 else (-0.49, "infiniband %s: ib_query_port failed (-110)" % dev),
                (40.0, "mlx5_core 0000:%02x:00.0 ibp%ds0: Link up" % (rng.choice([0x1a, 0x3c]), rng.randint(24, 220)))]
    if variant == 1:
        n = rng.randint(0, 31)
        return [(-0.8, "efa 0000:%02x:00.0: Failed to process command %d (opcode %d) comp_status %d err %d" % (rng.randint(0x10, 0xc0), rng.randint(1, 9), rng.randint(1, 20), rng.randint(1, 8), -110)),
                (-0.7, "efa 0000:%02x:00.0: Failed to submit command %d (opcode %d) err %d" % (rng.randint(0x10, 0xc0), rng.randint(1, 9), rng.randint(1, 20), -110)),
                (-0.6, "ena 0000:%02x:00.0 eth%d: Reset indication didn't turn off" % (rng.randint(0x10, 0x40), n % 4))]
    return [(-1.0, "bnxt_en 0000:%02x:00.0 ens%dnp0: NIC Link is Down" % (rng.randint(0x10, 0xc0), rng.randint(1, 12))),
            (-0.9, "bnxt_en 0000:%02x:00.0 ens%dnp0: RoCE: QP error event, qp_id %d" % (rng.randint(0x10, 0xc0), rng.randint(1, 12), rng.randint(100, 9000))),
            (25.0, "bnxt_en 0000:%02x:00.0 ens%dnp0: NIC Link is Up, 200000 Mbps full duplex, Flow control: ON - receive & transmit" % (rng.randint(0x10, 0xc0), rng.randint(1, 12)))]


def nfs_events(ctx):
    rng = ctx.rng
    srv = rng.choice(["nfs01", "fsx-prod", "10.40.3.12", "filer-b"])
    return [(-200.0, "nfs: server %s not responding, still trying" % srv),
            (-190.0, "nfs: server %s not responding, still trying" % srv),
            (-60.0, "INFO: task python3:%d blocked for more than 120 seconds." % rng.randint(2000, 60000)),
            (-59.99, "      Tainted: P           OE     5.15.0-%d-generic #%d-Ubuntu" % (rng.randint(70, 110), rng.randint(70, 120))),
            (-59.98, "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.")]


# ----------------------------------------------------------------------------- python tracebacks
USER_EXC = [
    ("KeyError", "'input_ids'", "data/collate.py", "collate_fn", "batch[\"input_ids\"] = pad(batch.pop(key))"),
    ("ValueError", "could not broadcast input array from shape (3,224,224) into shape (3,256,256)", "data/augment.py", "__call__", "out[i] = img"),
    ("FileNotFoundError", "[Errno 2] No such file or directory: '/mnt/data/shards/train-00417-of-01024.tfrecord'", "data/reader.py", "open_shard", "with open(path, \"rb\") as f:"),
    ("ZeroDivisionError", "division by zero", "train_utils.py", "log_metrics", "tokens_per_sec = n_tokens / (t1 - t0)"),
    ("AssertionError", "label id 1003 out of range [0, 1000)", "data/labels.py", "encode", "assert 0 <= y < self.num_classes, f\"label id {y} out of range [0, {self.num_classes})\""),
    ("UnicodeDecodeError", "'utf-8' codec can't decode byte 0x8b in position 1: invalid start byte", "data/text_ds.py", "read_jsonl", "rec = json.loads(line)"),
    ("TypeError", "unsupported operand type(s) for +: 'NoneType' and 'int'", "callbacks.py", "on_step_end", "self.global_step = logs.get(\"step\") + 1"),
]


def py_tb(frames, exc_line, rng=None):
    out = ["Traceback (most recent call last):"]
    for f, ln, fn, code in frames:
        out.append('  File "%s", line %d, in %s' % (f, ln, fn))
        if code:
            out.append("    " + code)
    out.append(exc_line)
    return out


# ----------------------------------------------------------------------------- cause planning
def plan_common(ctx):
    """Decide initiator and generic behaviour of the fault; layouts render it."""
    rng = ctx.rng
    c = ctx.cause
    p = ctx.pick_initiator()
    ctx.ip = p
    ctx.variant = rng.randint(0, 2)
    ctx.t_fault = rng.uniform(1800, 30000)
    ctx.pci_bad = ctx.gpu[3][p.gpu % 8]
    return p


def add_host_files(ctx, events, node_idx, extra_nodes=True):
    fname, txt = host_log(ctx, node_idx, ctx.t_fault, events)
    ctx.files[fname] = txt
    if extra_nodes and len(ctx.nodes) > 1 and ctx.rng.random() < 0.5:
        other = ctx.rng.choice([i for i in range(len(ctx.nodes)) if i != node_idx])
        fname, txt = host_log(ctx, other, ctx.t_fault, [])
        ctx.files[fname] = txt


def host_events_for(ctx):
    """Kernel events on the initiator's node for the hardware-ish causes; None if none."""
    c, p, v = ctx.cause, ctx.ip, ctx.variant
    if c in ("gpu_hardware", "ecc_memory", "nvlink"):
        return xid_events(ctx, c, p, ctx.pci_bad, v % (3 if c == "gpu_hardware" else 2))
    if c == "illegal_memory_access" and ctx.rng.random() < 0.6:
        return xid_events(ctx, c, p, ctx.pci_bad, v % 2)
    if c == "network":
        return net_events(ctx, v)
    if c == "host_oom_kill":
        return oom_kill_events(ctx, p, ctx.layout in ("tf_k8s", "jax_gke"))
    if c == "data_loader_stall" and v != 2:
        return nfs_events(ctx)
    return None




# ----------------------------------------------------------------------------- driver
def make_run(seed, i, layout, cause, healthy, outdir):
    rng = random.Random("blind51:%s:%d" % (seed, i))
    ctx = Ctx(rng, i, layout, cause, healthy)
    LAYOUT_FUNCS[layout](ctx)
    run_dir = os.path.join(outdir, "run-%03d-%s" % (i, layout))
    os.makedirs(run_dir, exist_ok=True)
    for name in sorted(ctx.files):
        path = os.path.join(run_dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(ctx.files[name])
    init = None
    if not healthy and (ctx.init_rank is not None or ctx.init_node is not None):
        init = {"rank": ctx.init_rank, "node": ctx.init_node}
    truth = {"healthy": healthy, "cause": None if healthy else cause, "initiator": init,
             "layout": layout, "notes": " ".join(ctx.notes)}
    with open(os.path.join(run_dir, "truth.json"), "w", encoding="utf-8") as f:
        json.dump(truth, f, indent=2)
        f.write("\n")
    return truth


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    rng = random.Random("blind51-order:%s" % a.seed)
    order = list(CAUSES)
    rng.shuffle(order)
    lay_order = list(LAYOUTS)
    rng.shuffle(lay_order)
    counts = {}
    j = 0
    for i in range(a.n):
        healthy = (i % 7 == 3)
        if healthy:
            cause = None
            layout = lay_order[(i // 7) % len(lay_order)]
        else:
            cause = order[j % len(order)]
            layout = lay_order[(j + j // len(order)) % len(lay_order)]
            j += 1
        make_run(a.seed, i, layout, cause, healthy, a.out)
        key = cause or "healthy"
        counts[key] = counts.get(key, 0) + 1
    print(json.dumps({k: counts[k] for k in sorted(counts)}, indent=1))


# ============================================================================= fate simulation
INIT_MODE = {
    "cuda_oom": "err", "illegal_memory_access": "err", "python_exception": "err",
    "ecc_memory": "err", "host_oom_kill": "kill9", "crash_signal": "sig", "hang": "hang",
    "data_loader_stall": "hang", "straggler": "slow", "unknown": "silent",
}


def simulate(ctx, detect=(4.0, 95.0), timeout=None, launcher_kill=None, mismatch="all_err",
             preempt="node"):
    """Decide per-process fate.  p.fate = (kind, t_end).  kinds: err sig kill9 silent hang
    abort timeout term ok.  Sets ctx.mode."""
    rng = ctx.rng
    c, ip, v = ctx.cause, ctx.ip, ctx.variant
    t0 = ctx.t_fault
    mode = INIT_MODE.get(c)
    if c == "gpu_hardware":
        mode = ["err", "hang", "sig"][v] if v != 0 else rng.choice(["err", "hang"])
    elif c == "nvlink":
        mode = "err" if rng.random() < 0.7 else "hang"
    elif c == "network":
        mode = "net"
    elif c == "preemption":
        mode = "term_node" if preempt == "node" else "term_all"
    elif c == "collective_mismatch":
        mode = "mm_err" if mismatch == "all_err" else "hang"
    elif c == "crash_signal":
        ctx.sig = rng.choice([11, 11, 6, 7])
    ctx.mode = mode
    for p in ctx.procs:
        p.fate = ("ok", None)
    if ctx.healthy:
        return
    if mode in ("err", "sig", "kill9", "silent"):
        ip.fate = (mode, t0)
    elif mode == "hang":
        ip.fate = ("hang", None)
    elif mode == "net":
        ip.fate = ("err", t0 + rng.uniform(0.5, 20))
    elif mode == "term_node":
        for p in ctx.procs:
            if p.node == ip.node:
                p.fate = ("term", t0 + rng.uniform(0, 0.5))
    elif mode == "term_all":
        for p in ctx.procs:
            p.fate = ("term", t0 + rng.uniform(0, 1.5))
    elif mode == "mm_err":
        for p in ctx.procs:
            p.fate = ("mm", t0 + rng.uniform(0, 2.0))
    elif mode == "slow":
        t_end = t0 + rng.uniform(3600, 20000)
        for p in ctx.procs:
            p.fate = ("term", t_end + rng.uniform(0, 1))
        ctx.t_end = t_end
        return
    # survivors
    first = min([p.fate[1] for p in ctx.procs if p.fate[1] is not None] or [None] or [0]) \
        if any(p.fate[1] is not None for p in ctx.procs) else None
    for p in ctx.procs:
        if p.fate[0] != "ok":
            continue
        if first is not None:
            lo, hi = detect
            if p.node == ip.node and mode in ("err", "sig", "kill9", "silent"):
                lo, hi = lo * 0.3, hi * 0.5
            p.fate = ("abort", first + rng.uniform(lo, hi))
        elif timeout:
            p.fate = ("timeout", t0 + timeout + rng.uniform(0, 3))
        else:
            p.fate = ("hang", None)
    ends = [p.fate[1] for p in ctx.procs if p.fate[1] is not None]
    if not ends:
        # everything stuck: killed by user / scheduler
        t_kill = t0 + rng.uniform(1500, 9000)
        ctx.t_kill = t_kill
        for p in ctx.procs:
            p.fate = ("term", t_kill + rng.uniform(0, 1))
        return
    if launcher_kill is not None:
        first = min(ends)
        tk = first + launcher_kill
        for p in ctx.procs:
            if p.fate[1] is None or p.fate[1] > tk:
                p.fate = ("term", tk + rng.uniform(0, 0.3))
    else:
        last = max(ends)
        for p in ctx.procs:
            if p.fate[1] is None:
                p.fate = ("term", last + rng.uniform(5, 60))


def first_exit(ctx):
    ps = sorted([p for p in ctx.procs if p.fate[1] is not None], key=lambda p: (p.fate[1], p.rank))
    return ps[0] if ps else None


def progress_points(ctx, t_start, t_end, period, max_pts=45, jitter=0.02):
    rng = ctx.rng
    n_total = int(max(0, (t_end - t_start)) // period)
    pts = []
    k0 = max(1, n_total - max_pts + 1)
    if n_total > max_pts:
        first = list(range(1, 4))
    else:
        first = []
    for k in first + list(range(k0, n_total + 1)):
        pts.append((t_start + k * period + rng.uniform(-jitter, jitter) * period, k))
    return pts, (n_total > max_pts)


def exit_code_of(kind, sig=None):
    return {"err": 1, "abort": 1, "mm": 1, "silent": 1, "timeout": 1, "kill9": 137, "term": 143,
            "sig": 128 + (sig or 11)}.get(kind, 0)


SIGNAME = {6: "SIGABRT", 7: "SIGBUS", 9: "SIGKILL", 11: "SIGSEGV", 15: "SIGTERM"}
SIGTEXT = {6: "Aborted", 7: "Bus error", 9: "Killed", 11: "Segmentation fault", 15: "Terminated"}


def fatal_python(sig, frames, mods=True):
    head = {11: "Segmentation fault", 6: "Aborted", 7: "Bus error"}[sig]
    out = ["Fatal Python error: %s" % head, ""]
    out.append("Thread 0x%012x (most recent call first):" % (0x7f0000000000 + hash_int(frames) * 4099))
    out.append('  File "/usr/lib/python3.10/threading.py", line 324 in wait')
    out.append('  File "/usr/lib/python3.10/threading.py", line 607 in wait')
    out.append('  File "/usr/lib/python3.10/threading.py", line 1016 in _bootstrap_inner')
    out.append('  File "/usr/lib/python3.10/threading.py", line 973 in _bootstrap')
    out.append("")
    out.append("Current thread 0x%012x (most recent call first):" % (0x7f1000000000 + hash_int(frames) * 7919))
    for f, ln, fn in frames:
        out.append('  File "%s", line %d in %s' % (f, ln, fn))
    if mods:
        out.append("")
        out.append("Extension modules: numpy.core._multiarray_umath, numpy.core._multiarray_tests, numpy.linalg._umath_linalg, numpy.fft._pocketfft_internal, numpy.random._common, numpy.random.bit_generator, numpy.random._bounded_integers, numpy.random._mt19937, numpy.random.mtrand, google._upb._message, h5py._errors, h5py.defs, h5py._objects (total: %d)" % (20 + len(frames)))
    return out


def hash_int(x):
    s = 0
    for ch in repr(x):
        s = (s * 131 + ord(ch)) % 1000003
    return s


# ============================================================================= TensorFlow (TFJob)
def _tf_startup(ctx, p, log, t, new, G, workers_spec, podname):
    rng = ctx.rng
    L = []
    if new:
        L.append(tfl("I", "tensorflow/core/util/port.cc:113", "oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`."))
        L.append(tfl("E", "external/local_xla/xla/stream_executor/cuda/cuda_dnn.cc:9261", "Unable to register cuDNN factory: Attempting to register factory for plugin cuDNN when one has already been registered"))
        L.append(tfl("E", "external/local_xla/xla/stream_executor/cuda/cuda_fft.cc:607", "Unable to register cuFFT factory: Attempting to register factory for plugin cuFFT when one has already been registered"))
        L.append(tfl("E", "external/local_xla/xla/stream_executor/cuda/cuda_blas.cc:1515", "Unable to register cuBLAS factory: Attempting to register factory for plugin cuBLAS when one has already been registered"))
        L.append(tfl("I", "tensorflow/core/platform/cpu_feature_guard.cc:182", "This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations."))
        L.append("To enable the following instructions: AVX2 AVX512F AVX512_VNNI FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.")
        L.append(tfl("W", "tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38", "TF-TRT Warning: Could not find TensorRT"))
    else:
        L.append(tfl("W", "tensorflow/stream_executor/platform/default/dso_loader.cc:64", "Could not load dynamic library 'libnvinfer.so.7'; dlerror: libnvinfer.so.7: cannot open shared object file: No such file or directory; LD_LIBRARY_PATH: /usr/local/nvidia/lib:/usr/local/nvidia/lib64"))
        L.append(tfl("W", "tensorflow/stream_executor/platform/default/dso_loader.cc:64", "Could not load dynamic library 'libnvinfer_plugin.so.7'; dlerror: libnvinfer_plugin.so.7: cannot open shared object file: No such file or directory; LD_LIBRARY_PATH: /usr/local/nvidia/lib:/usr/local/nvidia/lib64"))
        L.append(tfl("W", "tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38", "TF-TRT Warning: Cannot dlopen some TensorRT libraries. If you would like to use Nvidia GPU with TensorRT, please make sure the missing libraries mentioned above are installed properly."))
    name, cc, mem, pcis = ctx.gpu
    for g in range(G):
        L.append(tfl("I", "tensorflow/core/common_runtime/gpu/gpu_device.cc:%d" % (1926 if new else 1532),
                     "Created device /job:worker/replica:0/task:%d/device:GPU:%d with %d MB memory:  -> device: %d, name: %s, pci bus id: %s.0, compute capability: %s" % (p.rank, g, int(mem * 1000) - rng.randint(300, 900), g, name, pcis[g % 8], cc)))
    L.append(tfl("I", "tensorflow/core/distributed_runtime/rpc/grpc_channel.cc:%d" % (272 if new else 272), "Initialize GrpcChannelCache for job worker -> {%s}" % workers_spec))
    L.append(tfl("I", "tensorflow/core/distributed_runtime/rpc/grpc_server_lib.cc:%d" % (457 if new else 438), "Started server with target: grpc://%s:2222" % podname))
    if new:
        L.append(tfl("I", "tensorflow/tsl/distributed_runtime/coordination/coordination_service_agent.cc:%d" % rng.choice([299, 304]), "Coordination agent has successfully connected."))
    L.append("INFO:tensorflow:Enabled multi-worker collective ops with available devices: [%s]" % ", ".join("'/job:worker/replica:0/task:%d/device:GPU:%d'" % (p.rank, g) for g in range(G)))
    L.append("INFO:tensorflow:Using MirroredStrategy with devices (%s)" % ", ".join("'/job:worker/task:%d/device:GPU:%d'" % (p.rank, g) for g in range(G)))
    L.append("INFO:tensorflow:Check health not enabled.")
    L.append("INFO:tensorflow:MultiWorkerMirroredStrategy with cluster_spec = {'worker': [%s]}, task_type = 'worker', task_id = %d, num_workers = %d, local_devices = (%s), communication = CommunicationImplementation.NCCL" % (
        ", ".join("'%s:2222'" % h for h in ctx.podnames), p.rank, len(ctx.procs), ", ".join("'/job:worker/task:%d/device:GPU:%d'" % (p.rank, g) for g in range(G))))
    if rng.random() < 0.7:
        L.append(tfl("W", "tensorflow/core/grappler/optimizers/data/auto_shard.cc:786", "AUTO sharding policy will apply DATA sharding policy as it failed to apply FILE sharding policy because of the following reason: Found an unshardable source dataset: name: \"TensorSliceDataset/_2\""))
    if ctx.nccl_info:
        hn = podname.split(".")[0]
        L.append("%s:%d:%d [0] NCCL INFO Bootstrap : Using eth0:10.%d.%d.%d<0>" % (hn, p.pid, p.pid + 61, 8, p.rank, rng.randint(2, 200)))
        L.append("%s:%d:%d [0] NCCL INFO NET/Plugin: No plugin found (libnccl-net.so), using internal implementation" % (hn, p.pid, p.pid + 61))
        L.append("%s:%d:%d [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB ; OOB eth0:10.8.%d.%d<0>" % (hn, p.pid, p.pid + 61, p.rank, rng.randint(2, 200)))
        L.append("%s:%d:%d [0] NCCL INFO Using network IB" % (hn, p.pid, p.pid + 61))
        if p.rank == 0:
            L.append("%s:%d:%d [0] NCCL INFO NCCL version %s" % (hn, p.pid, p.pid + 61, rng.choice(["2.18.3+cuda12.2", "2.16.5+cuda11.8", "2.19.3+cuda12.3"])))
        L.append("%s:%d:%d [0] NCCL INFO comm 0x%x rank %d nranks %d cudaDev 0 busId %s0 - Init COMPLETE" % (hn, p.pid, p.pid + 61 + 5, 0x55d000000000 + rng.getrandbits(32), p.rank * G, len(ctx.procs) * G, pcis[0][5:]))
    if rng.random() < 0.5:
        L.append(tfl("I", "external/local_xla/xla/service/service.cc:168" if new else "tensorflow/compiler/xla/service/service.cc:173",
                     "XLA service 0x%x initialized for platform CUDA (this does not guarantee that XLA will be used). Devices:" % (0x55d000000000 + rng.getrandbits(32))))
        L.append(tfl("I", "tensorflow/compiler/mlir/tensorflow/utils/dump_mlir_util.cc:269", "disabling MLIR crash reproducer, set env var `MLIR_CRASH_REPRODUCER_DIRECTORY` to enable."))
    L.append(tfl("I", "external/local_xla/xla/stream_executor/cuda/cuda_dnn.cc:454" if new else "tensorflow/stream_executor/cuda/cuda_dnn.cc:384", "Loaded cuDNN version %s" % rng.choice(["8906", "8600", "8101"])))
    if rng.random() < 0.4:
        L.append("ptxas warning : Registers are spilled to local memory in function 'fusion_%d', 8 bytes spill stores, 8 bytes spill loads" % rng.randint(10, 400))
    log.block(t, L)


def _tf_progress(ctx, p, log, t_from, t_to, keras3):
    rng = ctx.rng
    pts, cut = progress_points(ctx, t_from, t_to, ctx.step_period * ctx.log_every)
    steps_per_epoch = ctx.steps_per_epoch
    for t, k in pts:
        step = k * ctx.log_every
        if ctx.keras:
            ep = step // steps_per_epoch + 1
            s = step % steps_per_epoch or steps_per_epoch
            loss = 2.6 * (0.9995 ** step) + 0.3 + rng.uniform(-0.02, 0.02)
            acc = 0.35 + 0.55 * (1 - 0.9999 ** step) + rng.uniform(-0.004, 0.004)
            ms = ctx.step_period * 1000 * (1 + rng.uniform(-0.05, 0.05))
            if keras3:
                bar = "\u2501" * int(20 * s / steps_per_epoch)
                bar = bar + "\u2501" * 0 + " " * (20 - len(bar)) if s != steps_per_epoch else "\u2501" * 20
                log.add(t, "\r%4d/%d %s %s %dms/step - accuracy: %.4f - loss: %.4f" % (s, steps_per_epoch, bar, "%ds" % int(s * ms / 1000) if s == steps_per_epoch else "%d:%02d" % divmod(int((steps_per_epoch - s) * ms / 1000), 60), ms, acc, loss))
            else:
                eta = int((steps_per_epoch - s) * ms / 1000)
                filled = int(29 * s / steps_per_epoch)
                log.add(t, "%4d/%d [%s>%s] - ETA: %d:%02d - loss: %.4f - accuracy: %.4f" % (s, steps_per_epoch, "=" * filled, "." * (29 - filled), eta // 60, eta % 60, loss, acc))
            if s == steps_per_epoch:
                log.add(t + 0.01, "Epoch %d/%d" % (ep + 1, ctx.epochs))
        else:
            loss = 3.1 * (0.9997 ** step) + 0.9 + rng.uniform(-0.03, 0.03)
            st = ctx.my_step_time(p) if hasattr(ctx, "my_step_time") else ctx.step_period
            msg = "step %d: loss=%.4f lr=%.2e examples/sec=%.1f" % (step, loss, 3e-4, ctx.global_batch / st)
            if ctx.cause == "straggler" and not ctx.healthy:
                msg += " | host_step_time=%.3fs input_wait=%.3fs" % ctx.strag_times(p)
            log.add(t, gl("I", 139800000000 + p.pid % 100000, "train_lib.py:%d" % 311, msg) if rng.random() < 2 else msg)
    return pts


def lay_tf_k8s(ctx):
    rng = ctx.rng
    n = rng.randint(2, 4)
    G = rng.choice([4, 8, 8])
    nodes = gke_nodes(rng, n) if rng.random() < 0.5 else ["ip-10-%d-%d-%d.ec2.internal" % (rng.randint(0, 255), rng.randint(0, 255), rng.randint(1, 254)) for _ in range(n)]
    ctx.setup_nodes(n, 1, nodes)
    job = rng.choice(["bert-mwms", "resnet50-multiworker", "t5-finetune", "recsys-dcn", "vit-mwms"])
    ns = rng.choice(["default", "ml-train", "kubeflow-user"])
    ctx.podnames = ["%s-worker-%d.%s.svc" % (job, i, ns) for i in range(n)]
    ctx.ips = ["10.%d.%d.%d" % (rng.randint(0, 255), rng.randint(0, 255), rng.randint(2, 254)) for _ in range(n)]
    ctx.mm_inst = rng.randint(100, 9000)
    ctx.mm_a = rng.choice([1024, 4096, 30522]); ctx.mm_b = ctx.mm_a - rng.choice([8, 24, 512])
    new = rng.random() < 0.65
    keras3 = False
    ctx.keras = rng.random() < 0.55
    if ctx.cause == "straggler" and not ctx.healthy:
        ctx.keras = False  # per-worker timing lines come from the custom loop
    if ctx.keras:
        keras3 = new and rng.random() < 0.4
    ctx.nccl_info = rng.random() < 0.4
    ctx.step_period = rng.uniform(0.15, 0.9)
    ctx.log_every = 1 if ctx.keras else rng.choice([100, 200, 500])
    if ctx.keras:
        ctx.log_every = rng.choice([50, 100])
    ctx.steps_per_epoch = rng.choice([1000, 1250, 2000, 3125])
    ctx.epochs = rng.choice([20, 30, 90])
    ctx.global_batch = rng.choice([256, 512, 1024, 2048])
    ip = plan_common(ctx)
    ctx.t_fault = rng.uniform(2400, 26000)
    ctx.epochs = max(ctx.epochs, int(ctx.t_fault / ctx.step_period / ctx.steps_per_epoch) + rng.randint(3, 25))
    straggler = ctx.cause == "straggler" and not ctx.healthy
    if straggler:
        ctx.strag_times = lambda p: ((ctx.step_period * 1.0 + rng.uniform(-0.01, 0.01), 0.002) if p is ip else (ctx.step_period + rng.uniform(-0.01, 0.01), ctx.step_period * 0.35 + rng.uniform(0, 0.03)))
    simulate(ctx, detect=(8, 110), mismatch="all_err", preempt="node")
    t_start = rng.uniform(20, 90)
    workers_spec = ", ".join("%d -> %s:2222" % (i, h) for i, h in enumerate(ctx.podnames))
    logs = {}
    c = ctx.cause if not ctx.healthy else None
    oom_shape = "[%d,%d,%d]" % (rng.choice([32, 64, 128]), rng.choice([512, 1024, 2048]), rng.choice([1024, 4096, 30522]))
    for p in ctx.procs:
        log = Log(ctx.skews[p.node])
        logs[p.rank] = log
        st = t_start + rng.uniform(0, 6)
        _tf_startup(ctx, p, log, st, new, G, workers_spec, ctx.podnames[p.rank])
        if ctx.keras:
            log.add(st + 30, "Epoch 1/%d" % ctx.epochs)
        kind, te = p.fate
        t_last = te if te is not None else ctx.t_fault
        if ctx.healthy:
            t_last = ctx.t_fault
        if p is ip and kind in ("hang",) or (p is ip and c == "data_loader_stall"):
            t_last = ctx.t_fault
        if p is not ip and kind in ("abort", "term", "timeout") and c in ("hang", "data_loader_stall", "gpu_hardware", "nvlink"):
            t_last = min(t_last, ctx.t_fault + ctx.step_period * 2)
        if kind == "abort":
            t_last = min(t_last, ctx.t_fault + 1)
        _tf_progress(ctx, p, log, st + 40, t_last, keras3)
        # harmless noise
        if rng.random() < 0.5:
            log.add(st + 60, tfl("W", "tensorflow/core/framework/local_rendezvous.cc:404" if new else "tensorflow/core/framework/local_rendezvous.cc:405", "Local rendezvous is aborting with status: OUT_OF_RANGE: End of sequence"))
        if rng.random() < 0.3:
            log.add(st + 35, "WARNING:tensorflow:Callback method `on_train_batch_end` is slow compared to the batch time (batch time: 0.%04ds vs `on_train_batch_end` time: 0.%04ds). Check your callbacks." % (rng.randint(100, 3000), rng.randint(3000, 9000)))
    # ---------------------------------------------------------------- fault rendering
    def coord_err(task, why):
        return ("%s heartbeat timeout. This indicates that the remote task has failed, got preempted, or crashed unexpectedly. Check the task logs for an earlier error to debug further." % ("Task /job:worker/replica:0/task:%d" % task)) if why == "hb" else why

    def tf_py_tail(exc, msg_lines, op):
        tb = py_tb([("/app/train.py", rng.randint(200, 400), "<module>", "main()"),
                    ("/app/train.py", rng.randint(100, 200), "main", "model.fit(train_ds, epochs=EPOCHS, steps_per_epoch=STEPS, callbacks=cbs)" if ctx.keras else "loss = strategy.run(train_step, args=(next(it),))"),
                    ("/usr/local/lib/python3.10/dist-packages/keras/src/utils/traceback_utils.py" if new else "/usr/local/lib/python3.8/dist-packages/keras/utils/traceback_utils.py", 70 if new else 67, "error_handler", "raise e.with_traceback(filtered_tb) from None"),
                    ("/usr/local/lib/python3.10/dist-packages/tensorflow/python/eager/execute.py" if new else "/usr/local/lib/python3.8/dist-packages/tensorflow/python/eager/execute.py", 53 if new else 54, "quick_execute", "tensors = pywrap_tfe.TFE_Py_Execute(ctx._handle, device_name, op_name,")],
                   "tensorflow.python.framework.errors_impl.%s: Graph execution error:" % exc)
        return tb + [""] + msg_lines + [op]

    op = "[Op:__inference_train_function_%d]" % rng.randint(10000, 99999)
    for p in ctx.procs:
        log = logs[p.rank]
        kind, te = p.fate
        if kind == "ok" or te is None:
            continue
        task = p.rank
        dev = "/job:worker/replica:0/task:%d/device:GPU:%d" % (task, rng.randint(0, G - 1))
        if p is ip and c == "cuda_oom":
            g = rng.randint(0, G - 1)
            req = rng.choice([2.0, 3.5, 4.0, 6.25, 12.0])
            L = [tfl("W", "tensorflow/tsl/framework/bfc_allocator.cc:485" if new else "tensorflow/core/common_runtime/bfc_allocator.cc:479", "Allocator (GPU_%d_bfc) ran out of memory trying to allocate %.2fGiB (rounded to %d)requested by op gradient_tape/model/encoder/layer_%d/attention/MatMul_1" % (g, req, int(req * 2**30), rng.randint(0, 23))),
                 tfl("I", "tensorflow/tsl/framework/bfc_allocator.cc:1039", "BFCAllocator dump for GPU_%d_bfc" % g)]
            for b in range(0, 21, 4):
                L.append(tfl("I", "tensorflow/tsl/framework/bfc_allocator.cc:1046", "Bin (%d): \tTotal Chunks: %d, Chunks in use: %d. %s allocated for chunks. %s in use in bin. %s client-requested in use in bin." % (256 << b, rng.randint(1, 900), rng.randint(1, 900), "%.1fMiB" % rng.uniform(0.1, 900), "%.1fMiB" % rng.uniform(0.1, 900), "%.1fMiB" % rng.uniform(0.1, 900))))
            lim = int(ctx.gpu[2] * 0.95 * 2**30)
            L += [tfl("I", "tensorflow/tsl/framework/bfc_allocator.cc:1107", "Sum Total of in-use chunks: %.2fGiB" % (ctx.gpu[2] * 0.93)),
                  tfl("I", "tensorflow/tsl/framework/bfc_allocator.cc:1109", "Total bytes in pool: %d memory_limit_: %d available bytes: 0 curr_region_allocation_bytes_: %d" % (lim, lim, lim * 2)),
                  tfl("I", "tensorflow/tsl/framework/bfc_allocator.cc:1114", "Stats: "),
                  "Limit:                     %11d" % lim, "InUse:                     %11d" % (lim - rng.randint(10**6, 10**8)),
                  "MaxInUse:                  %11d" % lim, "NumAllocs:                 %11d" % rng.randint(10**5, 10**7),
                  "MaxAllocSize:              %11d" % int(req * 2**30 * 0.8), "Reserved:                            0", "PeakReserved:                        0", "LargestFreeBlock:                    0", "",
                  tfl("W", "tensorflow/tsl/framework/bfc_allocator.cc:497", "*" * 60 + "_" * 3 + "*" * 30 + "_"),
                  tfl("W", "tensorflow/core/framework/op_kernel.cc:1839", "OP_REQUIRES failed at matmul_op_impl.h:%d : RESOURCE_EXHAUSTED: OOM when allocating tensor with shape%s and type float on %s by allocator GPU_%d_bfc" % (rng.choice([621, 728]), oom_shape, dev, g))]
            L += tf_py_tail("ResourceExhaustedError", ["Detected at node gradient_tape/model/encoder/layer_%d/attention/MatMul_1 defined at (most recent call last):" % rng.randint(0, 23),
                                                        "<stack traces unavailable>",
                                                        "OOM when allocating tensor with shape%s and type float on %s by allocator GPU_%d_bfc" % (oom_shape, dev, g),
                                                        "\t [[{{node gradient_tape/model/encoder/layer_3/attention/MatMul_1}}]]",
                                                        "Hint: If you want to see a list of allocated tensors when OOM happens, add report_tensor_allocations_upon_oom to RunOptions for current allocation info. This isn't available when running in Eager mode.", ""], op)
            log.block(te - 0.05, L)
            ctx.notes.append("worker %d OOMs on GPU %d (ResourceExhaustedError)." % (p.rank, g))
        elif p is ip and c in ("illegal_memory_access", "gpu_hardware", "ecc_memory") and kind in ("err", "sig"):
            err = {"illegal_memory_access": "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered",
                   "gpu_hardware": rng.choice(["CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure", "CUDA_ERROR_UNKNOWN: unknown error"]),
                   "ecc_memory": "CUDA_ERROR_ECC_UNCORRECTABLE: uncorrectable ECC error encountered"}[c]
            src = "external/local_xla/xla/stream_executor/cuda/cuda_event.cc:29" if new else "tensorflow/stream_executor/cuda/cuda_event.cc:29"
            L = [tfl("E", src, "Error polling for event status: failed to query event: %s" % err),
                 tfl("F", "tensorflow/core/common_runtime/device/device_event_mgr.cc:223", "Unexpected Event status: 1")]
            L += fatal_python(6, [("/usr/local/lib/python3.10/dist-packages/tensorflow/python/eager/execute.py", 53, "quick_execute"),
                                  ("/usr/local/lib/python3.10/dist-packages/tensorflow/python/eager/polymorphic_function/concrete_function.py", 1323, "_call_flat"),
                                  ("/app/train.py", rng.randint(100, 300), "main")], mods=False)
            log.block(te, L)
            p.fate = ("sig", te)
            ctx.sig = 6
        elif p is ip and c == "nvlink" and kind == "err":
            hn = ctx.podnames[p.rank].split(".")[0]
            L = ["%s:%d:%d [%d] include/alloc.h:%d NCCL WARN Cuda failure 'uncorrectable NVLink error detected during the execution'" % (hn, p.pid, p.pid + 90, rng.randint(0, G - 1), rng.choice([103, 185])) if False else
                 "%s:%d:%d [%d] enqueue.cc:%d NCCL WARN Cuda failure 'uncorrectable NVLink error detected during the execution'" % (hn, p.pid, p.pid + 90, rng.randint(0, G - 1), rng.choice([1187, 1513])),
                 "%s:%d:%d [%d] NCCL INFO group.cc:%d -> 1" % (hn, p.pid, p.pid + 90, 0, rng.choice([79, 229]))]
            L += tf_py_tail("InternalError", ["Detected at node CollectiveReduceV2 defined at (most recent call last):", "<stack traces unavailable>",
                                               "NCCL: unhandled cuda error (run with NCCL_DEBUG=INFO for details)", "\t [[{{node CollectiveReduceV2}}]]"], op)
            log.block(te, L)
        elif p is ip and c == "network":
            peer = ctx.procs[(p.rank + 1) % len(ctx.procs)]
            L = [tfl("E", "tensorflow/core/common_runtime/base_collective_executor.cc:249" if not new else "tensorflow/core/common_runtime/base_collective_executor.cc:249",
                     "BaseCollectiveExecutor::StartAbort UNAVAILABLE: failed to connect to all addresses; last error: UNKNOWN: ipv4:%s:2222: Failed to connect to remote host: Connection timed out" % ctx.ips[peer.rank]),
                 "Additional GRPC error information from remote target /job:worker/replica:0/task:%d while calling /tensorflow.WorkerService/RecvBuf:" % peer.rank,
                 ":{\"created\":\"@%d.%09d\",\"description\":\"Failed to pick subchannel\",\"file\":\"external/com_github_grpc_grpc/src/core/ext/filters/client_channel/client_channel.cc\",\"file_line\":3940,\"grpc_status\":14}" % (1700000000 + int(te), rng.randint(0, 999999999))]
            L += tf_py_tail("UnavailableError", ["Collective ops is aborted by: failed to connect to all addresses",
                                                  "The error could be from a previous operation. Restart your program to reset.",
                                                  "\t [[{{node CollectiveReduceV2}}]]"], op)
            log.block(te, L)
        elif p is ip and c == "python_exception":
            e = rng.choice(USER_EXC)
            L = py_tb([("/app/train.py", rng.randint(200, 400), "<module>", "main()"),
                       ("/app/train.py", rng.randint(100, 200), "main", "for step, batch in enumerate(train_iter):"),
                       ("/app/%s" % e[2], rng.randint(20, 180), e[3], e[4])], "%s: %s" % (e[0], e[1]))
            log.block(te, L)
            ctx.notes.append("worker %d raised %s in %s." % (p.rank, e[0], e[2]))
        elif p is ip and c == "crash_signal":
            sig = ctx.sig
            L = fatal_python(sig, [("/usr/local/lib/python3.10/dist-packages/tensorflow/python/data/ops/iterator_ops.py", 776, "_next_internal"),
                                   ("/usr/local/lib/python3.10/dist-packages/tensorflow/python/data/ops/iterator_ops.py", 814, "__next__"),
                                   ("/app/input_pipeline.py", rng.randint(40, 200), "decode_fn" if sig != 7 else "read_shm"),
                                   ("/app/train.py", rng.randint(100, 300), "main")])
            log.block(te, L)
            ctx.notes.append("worker %d died with %s, no hardware evidence." % (p.rank, SIGNAME[sig]))
        elif p is ip and c == "preemption":
            if rng.random() < 0.6:
                log.add(te - 0.2, "INFO:tensorflow:Member /job:worker/replica:0/task:%d has received termination notice." % p.rank)
            ctx.notes.append("GKE/EC2 spot node of worker %d was reclaimed; pod terminated by graceful node shutdown." % p.rank)
        elif p is ip and c == "unknown":
            ctx.notes.append("worker %d exited with code 1 without printing anything." % p.rank)
        elif c == "collective_mismatch" and kind == "mm":
            L = [tfl("E", "tensorflow/core/common_runtime/base_collective_executor.cc:249", "BaseCollectiveExecutor::StartAbort INTERNAL: Shape mismatch in the collective instance %d. Op at device %s expected shape [%d] but another member in the group expected shape [%d]. This is likely due to different input shapes at different members of the collective op." % (ctx.mm_inst, dev, ctx.mm_a, ctx.mm_b))]
            L += tf_py_tail("InternalError", ["Detected at node CollectiveGatherV2 defined at (most recent call last):", "<stack traces unavailable>",
                                              "Shape mismatch in the collective instance %d. Op at device %s expected shape [%d] but another member in the group expected shape [%d]. This is likely due to different input shapes at different members of the collective op." % (ctx.mm_inst, dev, ctx.mm_a, ctx.mm_b),
                                              "\t [[{{node CollectiveGatherV2}}]]"], op)
            log.block(te, L)
        elif kind == "abort":
            if ctx.mode in ("err", "sig", "kill9", "silent", "term_node", "net"):
                lost = ip.rank
                why = rng.choice(["hb", "hb", "sock", "reset"])
                if why == "hb":
                    msg = "Collective ops is aborted by: " + coord_err(lost, "hb")
                elif why == "sock":
                    msg = "Collective ops is aborted by: Socket closed"
                else:
                    msg = "Collective ops is aborted by: Connection reset by peer"
                L = []
                if new:
                    L.append(tfl("E", "tensorflow/tsl/distributed_runtime/coordination/coordination_service_agent.cc:%d" % rng.choice([512, 518]), "Polled an error from coordination service (this can be an error from this or another task)."))
                L.append(tfl("W", "tensorflow/core/common_runtime/base_collective_executor.cc:249", "BaseCollectiveExecutor::StartAbort UNAVAILABLE: %s" % msg.split(": ", 1)[1] if False else "BaseCollectiveExecutor::StartAbort UNAVAILABLE: %s" % msg))
                L.append("The error could be from a previous operation. Restart your program to reset.")
                L.append("Additional GRPC error information from remote target /job:worker/replica:0/task:%d while calling /tensorflow.%s:" % (lost if why != "hb" else 0, "CoordinationService/PollForError" if why == "hb" else "WorkerService/RecvBuf"))
                L.append(":{\"created\":\"@%d.%09d\",\"description\":\"Error received from peer ipv4:%s:2222\",\"file\":\"external/com_github_grpc_grpc/src/core/lib/surface/call.cc\",\"file_line\":1056,\"grpc_message\":\"%s\",\"grpc_status\":14}" % (1700000000 + int(te), rng.randint(0, 999999999), ctx.ips[lost if why != "hb" else 0], {"hb": "Task /job:worker/replica:0/task:%d heartbeat timeout." % lost, "sock": "Socket closed", "reset": "Connection reset by peer"}[why]))
                L += tf_py_tail("UnavailableError", [msg, "The error could be from a previous operation. Restart your program to reset.", "\t [[{{node CollectiveReduceV2}}]]"], op)
                log.block(te, L)
        elif kind == "timeout":
            pass
    # chief-side coordination service view
    if not ctx.healthy and ctx.mode in ("err", "sig", "kill9", "silent", "term_node", "net") and ip.rank != 0 and new:
        te = ip.fate[1] + rng.uniform(10, 40)
        logs[0].add(te - 5, tfl("E", "tensorflow/tsl/distributed_runtime/coordination/coordination_service.cc:%d" % rng.choice([1009, 1128]), "/job:worker/replica:0/task:%d has been set to ERROR in coordination service: UNAVAILABLE: %s [type.googleapis.com/tensorflow.CoordinationServiceError='']" % (ip.rank, coord_err(ip.rank, "hb"))))
    # hang / stall evidence
    if not ctx.healthy and c in ("hang", "data_loader_stall") or (not ctx.healthy and ctx.mode == "hang"):
        if c == "data_loader_stall":
            for k in range(rng.randint(3, 7)):
                logs[ip.rank].add(ctx.t_fault + 10 + k * rng.uniform(10, 40), tfl("I", "tensorflow/core/kernels/data/shuffle_dataset_op.cc:%d" % rng.choice([392, 422]), "%sFilling up shuffle buffer (this may take a while): %d of %d" % ("" if new else "", 120 + k * rng.randint(3, 40), 10000)))
            ctx.notes.append("worker %d's tf.data input pipeline stalled refilling the shuffle buffer from a hung NFS mount; the others waited in the allreduce until the job was deleted." % ip.rank)
        if rng.random() < 0.6 or c == "hang":
            # py-spy dumps collected before deleting the job
            for p in ctx.procs:
                L = ["Process %d: python3 /app/train.py --config=configs/%s.yaml" % (p.pid, job), "Python v3.10.12 (/usr/bin/python3.10)", "",
                     "Thread %d (active): \"MainThread\"" % p.pid]
                if p is ip and c == "hang":
                    L += ["    acquire (threading.py:%d)" % 320, "    wait (threading.py:%d)" % 607, "    save (/app/ckpt_utils.py:%d)" % rng.randint(40, 120), "    on_train_batch_end (/app/callbacks.py:%d)" % rng.randint(30, 90), "    fit (keras/src/engine/training.py:1813)", "    main (/app/train.py:%d)" % rng.randint(100, 200)]
                elif p is ip and c == "data_loader_stall":
                    L += ["    _next_internal (tensorflow/python/data/ops/iterator_ops.py:776)", "    __next__ (tensorflow/python/data/ops/iterator_ops.py:814)", "    main (/app/train.py:%d)" % rng.randint(100, 200)]
                else:
                    L += ["    quick_execute (tensorflow/python/eager/execute.py:53)", "    _call_flat (tensorflow/python/eager/polymorphic_function/concrete_function.py:1323)", "    __call__ (tensorflow/python/eager/polymorphic_function/polymorphic_function.py:832)", "    main (/app/train.py:%d)" % rng.randint(100, 200)]
                ctx.files["py-spy-dump-worker-%d.txt" % p.rank] = "\n".join(L) + "\n"
            if c == "hang":
                ctx.notes.append("worker %d deadlocked in a checkpoint callback (py-spy shows threading lock); other workers sat in CollectiveReduceV2 until the TFJob was deleted." % ip.rank)
                ctx.hang_evidence = True
        elif c == "hang":
            ctx.notes.append("worker %d stopped progressing; no dumps; job deleted by user." % ip.rank)
            ctx.hang_evidence = False
    # ---------------------------------------------------------------- files
    for p in ctx.procs:
        text = logs[p.rank].render(ctx.base)
        if rng.random() < 0.25 and not (p is ip):
            text = tail_trim(text, rng.randint(40, 120), rng)
        ctx.files["%s-worker-%d.log" % (job, p.rank)] = text
    # kubectl views
    now = max([p.fate[1] or 0 for p in ctx.procs] + [ctx.t_fault]) + rng.uniform(60, 900)
    age = lambda t: "%dm" % max(1, int((now - t) / 60)) if now - t < 7200 else "%dh%dm" % ((now - t) // 3600, ((now - t) % 3600) // 60)
    rows = ["NAME%sREADY   STATUS      RESTARTS   AGE     IP            NODE" % (" " * (len(job) + 6))]
    ev = []
    for p in ctx.procs:
        kind, te = p.fate
        if ctx.healthy:
            st = "Completed"
        elif kind == "kill9":
            st = "OOMKilled"
        elif kind == "term":
            st = "Error" if rng.random() < 0.5 else "Terminated"
        elif kind == "ok":
            st = "Running"
        else:
            st = "Error"
        if ctx.mode == "term_node" and p is ip:
            st = "Failed"
        rows.append("%-*s 0/1     %-10s  0          %-7s %-13s %s" % (len(job) + 9, "%s-worker-%d" % (job, p.rank), st, age(0), ctx.ips[p.rank], ctx.nodes[p.node]))
    ctx.files["kubectl-get-pods.txt"] = "\n".join(rows) + "\n"
    if not ctx.healthy:
        evs = []
        for p in ctx.procs:
            kind, te = p.fate
            if te is None:
                continue
            code = exit_code_of(kind, getattr(ctx, "sig", None))
            if ctx.mode == "term_node" and p is ip:
                evs.append((te - 20, "Warning", "NodeShutdown" if rng.random() < 0.5 else "Preempting", "pod/%s-worker-%d" % (job, p.rank), "Pod was terminated in response to imminent node shutdown."))
                continue
            if kind == "kill9":
                evs.append((te, "Warning", "OOMKilling", "node/%s" % ctx.nodes[p.node], "Memory cgroup out of memory: Killed process %d (python3) total-vm:%dkB" % (p.pid, rng.randint(10**8, 4 * 10**8))))
            evs.append((te + rng.uniform(0.5, 6), "Normal", "ExitedWithCode", "tfjob/%s" % job, "Pod: %s.%s-worker-%d exited with code %d" % (ns, job, p.rank, code)))
        evs.sort(key=lambda x: x[0])
        fe = evs[0] if evs else None
        if fe:
            evs.append((evs[-1][0] + rng.uniform(1, 10), "Normal", "TFJobFailed", "tfjob/%s" % job, "TFJob %s/%s has failed because 1 Worker replica(s) failed." % (ns, job)))
        L = ["LAST SEEN   TYPE      REASON           OBJECT                          MESSAGE"]
        for t, ty, rs, ob, ms in evs:
            L.append("%-11s %-9s %-16s %-31s %s" % (age(t), ty, rs, ob, ms))
        ctx.files["kubectl-get-events.txt"] = "\n".join(L) + "\n"
    # host files
    if not ctx.healthy:
        ev = host_events_for(ctx)
        if ev:
            add_host_files(ctx, ev, ip.node)
        if c == "ecc_memory" and rng.random() < 0.5:
            fn, tx = nvsmi_file(ctx, ip.node, ctx.pci_bad, c)
            ctx.files[fn] = tx
    _tf_truth(ctx, ip)


def _tf_truth(ctx, ip):
    c = ctx.cause
    if ctx.healthy:
        ctx.notes.append("healthy run; contains harmless TF warnings (cuDNN/cuBLAS factory registration, TensorRT, auto-shard, local rendezvous OUT_OF_RANGE).")
        return
    node = ctx.nodes[ip.node]
    if c in ("cuda_oom", "illegal_memory_access", "python_exception", "crash_signal", "ecc_memory", "host_oom_kill", "network", "preemption"):
        ctx.init_rank, ctx.init_node = ip.rank, node
    elif c in ("gpu_hardware", "nvlink"):
        ctx.init_node = node
        ctx.init_rank = ip.rank  # one worker per node: the node determines the worker
    elif c == "hang":
        if getattr(ctx, "hang_evidence", False):
            ctx.init_rank, ctx.init_node = ip.rank, node
    elif c == "data_loader_stall":
        ctx.init_rank, ctx.init_node = ip.rank, node
    elif c == "straggler":
        ctx.init_rank, ctx.init_node = ip.rank, node
        ctx.notes.append("worker %d is consistently slower (no input wait, others wait ~35%% of each step); job deleted by the user for slowness." % ip.rank)
    if c in ("gpu_hardware", "ecc_memory", "nvlink"):
        ctx.notes.append("kernel log on %s shows the %s Xid; worker %d's GPU %s." % (node, c, ip.rank, ctx.pci_bad))
    if c == "network":
        ctx.notes.append("NIC on %s went down; worker %d lost gRPC/NCCL connectivity, others aborted by heartbeat timeout." % (node, ip.rank))
    if c == "host_oom_kill":
        ctx.notes.append("worker %d pod OOMKilled by the cgroup OOM killer." % ip.rank)
    if c == "collective_mismatch":
        ctx.notes.append("workers issued CollectiveGather with different shapes (uneven last batch); all failed together.")


# ============================================================================= generic multi-framework driver
def root_and_collateral(ctx, fw, p, kind, te, G):
    """Return lines for process p at its end, by framework `fw` (dict of message makers)."""
    rng = ctx.rng
    c = ctx.cause
    ip = ctx.ip
    if p is ip:
        if c == "cuda_oom":
            return fw["oom"](p)
        if c in ("illegal_memory_access", "gpu_hardware", "ecc_memory") and kind in ("err", "sig"):
            return fw["cuda"](p, {"illegal_memory_access": 700, "gpu_hardware": rng.choice([719, 999]), "ecc_memory": 214}[c])
        if c == "nvlink" and kind == "err":
            return fw["nccl_local"](p, "unhandled cuda error", "Cuda failure 'uncorrectable NVLink error detected during the execution'")
        if c == "network":
            return fw["nccl_net"](p, True)
        if c == "python_exception":
            return fw["pyexc"](p)
        if c == "crash_signal":
            return fw["segv"](p, ctx.sig)
        if c == "unknown":
            return fw.get("unknown", lambda p: [])(p)
        if kind == "term":
            return fw["term"](p)
        return []
    if kind == "mm":
        return fw["mismatch"](p)
    if kind == "abort":
        if c == "network":
            return fw["nccl_net"](p, False)
        return fw["peer_abort"](p)
    if kind == "timeout":
        return fw["timeout"](p)
    if kind == "term":
        return fw["term"](p)
    return []


def CUDA_TXT(code):
    return {700: ("cudaErrorIllegalAddress", "an illegal memory access was encountered", "CUDA_ERROR_ILLEGAL_ADDRESS"),
            719: ("cudaErrorLaunchFailure", "unspecified launch failure", "CUDA_ERROR_LAUNCH_FAILED"),
            999: ("cudaErrorUnknown", "unknown error", "CUDA_ERROR_UNKNOWN"),
            214: ("cudaErrorECCUncorrectable", "uncorrectable ECC error encountered", "CUDA_ERROR_ECC_UNCORRECTABLE"),
            220: ("cudaErrorNvlinkUncorrectable", "uncorrectable NVLink error detected during the execution", "CUDA_ERROR_NVLINK_UNCORRECTABLE")}[code]


def nccl_tag(ctx, p, hn=None):
    hn = hn or ctx.nodes[p.node]
    return "%s:%d:%d [%d]" % (hn, p.pid, p.pid + 37 + p.local, p.local)


def generic_truth(ctx, per_node_procs):
    c, ip = ctx.cause, ctx.ip
    if ctx.healthy:
        return
    node = ctx.nodes[ip.node]
    direct = ("cuda_oom", "illegal_memory_access", "python_exception", "crash_signal", "ecc_memory")
    if c in direct:
        ctx.init_rank, ctx.init_node = ip.rank, node
    elif c in ("gpu_hardware", "nvlink"):
        ctx.init_node = node
        if ctx.mode == "err" or per_node_procs == 1:
            ctx.init_rank = ip.rank
    elif c == "network":
        ctx.init_node = node
        if per_node_procs == 1:
            ctx.init_rank = ip.rank
    elif c == "host_oom_kill":
        ctx.init_node = node
        if getattr(ctx, "oom_rank_visible", True):
            ctx.init_rank = ip.rank
    elif c == "preemption":
        if ctx.mode == "term_node":
            ctx.init_node = node
            if per_node_procs == 1:
                ctx.init_rank = ip.rank
    elif c in ("hang", "data_loader_stall", "straggler"):
        if getattr(ctx, "rank_evidence", False):
            ctx.init_rank, ctx.init_node = ip.rank, node
        elif getattr(ctx, "node_evidence", False):
            ctx.init_node = node


# ============================================================================= JAX
def jax_fw(ctx, G, newfmt, tag_task):
    rng = ctx.rng
    pre = "external/xla/xla" if newfmt else "external/org_tensorflow/tensorflow/compiler/xla"
    tslpre = "external/xla/xla/tsl" if newfmt else "external/tsl/tsl"

    def L(lvl, src, msg):
        return tfl(lvl, src, msg)

    def jax_tb(exc_line, frames=None):
        fr = frames or [("/workspace/train.py", rng.randint(300, 500), "<module>", "app.run(main)"),
                        ("/usr/local/lib/python3.10/dist-packages/absl/app.py", 308, "run", "_run_main(main, args)"),
                        ("/usr/local/lib/python3.10/dist-packages/absl/app.py", 254, "_run_main", "sys.exit(main(argv))"),
                        ("/workspace/train.py", rng.randint(150, 300), "main", "state, metrics = p_train_step(state, batch)")]
        out = py_tb(fr, exc_line)
        if rng.random() < 0.7:
            out = out[:-1] + ["jax.errors.SimplifiedTraceback: For simplicity, JAX has removed its internal frames from the traceback of the following exception. Set JAX_TRACEBACK_FILTERING=off to include these.", "", "The above exception was the direct cause of the following exception:", ""] + py_tb(fr[:2], exc_line)
        return out

    def oom(p):
        req = rng.choice([2.5, 4.0, 7.13, 12.5, 18.0])
        return [L("W", "%s/framework/bfc_allocator.cc:%d" % (tslpre, 482 if newfmt else 479), "Allocator (GPU_%d_bfc) ran out of memory trying to allocate %.2fGiB (rounded to %d)requested by op " % (p.local if ctx.per_node > 1 else rng.randint(0, G - 1), req, int(req * 2**30))),
                L("W", "%s/framework/bfc_allocator.cc:%d" % (tslpre, 494), "*" * 50 + "_" * 2 + "*" * 40 + "__"),
                L("E", "%s/pjrt/pjrt_stream_executor_client.cc:%d" % (pre, 3067 if newfmt else 2732), "Execution of replica 0 failed: RESOURCE_EXHAUSTED: Out of memory while trying to allocate %d bytes." % int(req * 2**30))] + \
            jax_tb("jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate %d bytes." % int(req * 2**30))

    def cuda(p, code):
        cname, txt, drv = CUDA_TXT(code)
        return [L("E", "%s/stream_executor/cuda/cuda_driver.cc:%d" % (pre, 1155), "failed to synchronize the stop event: %s: %s" % (drv, txt)),
                L("E", "%s/pjrt/pjrt_stream_executor_client.cc:%d" % (pre, 3067 if newfmt else 2732), "Execution of replica 0 failed: INTERNAL: Failed to execute XLA Runtime executable: run time error: custom call 'xla.gpu.func.launch' failed: %s: %s; current tracing scope: fusion.%d; current profiling annotation: XlaModule:#hlo_module=pjit_train_step,program_id=%d#." % (drv, txt, rng.randint(10, 900), rng.randint(10, 90)))] + \
            jax_tb("jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to execute XLA Runtime executable: run time error: custom call 'xla.gpu.func.launch' failed: %s: %s; current tracing scope: fusion.%d; current profiling annotation: XlaModule:#hlo_module=pjit_train_step,program_id=%d#." % (drv, txt, rng.randint(10, 900), rng.randint(10, 90)))

    def nccl_local(p, short, warn):
        return ["%s %s NCCL WARN %s" % (nccl_tag(ctx, p, ctx.hn(p)), "enqueue.cc:%d" % rng.choice([1187, 1513]), warn),
                L("W", "%s/service/gpu/runtime/support.cc:58" % pre, "Intercepted XLA runtime error:"),
                "INTERNAL: %s/service/gpu/nccl_utils.cc:%d: NCCL operation ncclGroupEnd() failed: %s. Last NCCL warning(error) log entry (may be unrelated) '%s'." % (pre, rng.choice([297, 305]), short, warn)] + \
            jax_tb("jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to execute XLA Runtime executable: run time error: custom call 'xla.gpu.all_reduce' failed: %s/service/gpu/nccl_utils.cc:305: NCCL operation ncclGroupEnd() failed: %s. Last NCCL warning(error) log entry (may be unrelated) '%s'.; current tracing scope: all-reduce-start.%d; current profiling annotation: XlaModule:#hlo_module=pjit_train_step,program_id=%d#." % (pre, short, warn, rng.randint(1, 300), rng.randint(10, 90)))

    def nccl_net(p, local):
        ip = ctx.ip
        if local:
            warn = "NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Send) localGid fe80::%x:%x:%x:%x remoteGids fe80::%x:%x" % (ctx.ips[(ip.node + 1) % len(ctx.nodes)], rng.randint(30000, 60000), rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(16))
            out = ["%s transport/net_ib.cc:%d NCCL WARN %s" % (nccl_tag(ctx, p, ctx.hn(p)), rng.choice([1699, 1422]), warn)]
        else:
            warn = "NET/IB : Got completion from peer %s<%d> with status=12 opcode=1 len=0 vendor err 129 (Recv) localGid fe80::%x:%x remoteGids fe80::%x:%x" % (ctx.ips[ip.node], rng.randint(30000, 60000), rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(16))
            out = ["%s transport/net_ib.cc:%d NCCL WARN %s" % (nccl_tag(ctx, p, ctx.hn(p)), rng.choice([1699, 1422]), warn)]
        out += ["%s NCCL INFO transport/net.cc:%d -> 6" % (nccl_tag(ctx, p, ctx.hn(p)), rng.choice([1134, 1219])),
                L("E", "%s/service/gpu/nccl_utils.cc:%d" % (pre, 211), "Aborting communicator: 0x%x due to async NCCL error: remote process exited or there was a network error" % (0x7f0000000000 + rng.getrandbits(36))),
                L("E", "%s/service/gpu/nccl_utils.cc:%d" % (pre, 219), "INTERNAL: %s/service/gpu/nccl_utils.cc:216: NCCL operation async_err failed: remote process exited or there was a network error" % pre)]
        if rng.random() < 0.6:
            out += jax_tb("jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to execute XLA Runtime executable: run time error: custom call 'xla.gpu.all_reduce' failed: %s/service/gpu/nccl_utils.cc:305: NCCL operation ncclGroupEnd() failed: remote process exited or there was a network error. Last NCCL warning(error) log entry (may be unrelated) '%s'." % (pre, warn))
        return out

    def pyexc(p):
        e = rng.choice(USER_EXC)
        return py_tb([("/workspace/train.py", rng.randint(300, 500), "<module>", "app.run(main)"),
                      ("/usr/local/lib/python3.10/dist-packages/absl/app.py", 254, "_run_main", "sys.exit(main(argv))"),
                      ("/workspace/train.py", rng.randint(150, 300), "main", "batch = next(train_iter)"),
                      ("/workspace/input_pipeline/%s" % e[2].split("/")[-1], rng.randint(20, 200), e[3], e[4])], "%s: %s" % (e[0], e[1]))

    def segv(p, sig):
        return fatal_python(sig, [("/usr/local/lib/python3.10/dist-packages/jax/_src/interpreters/pxla.py", 1229, "__call__"),
                                  ("/usr/local/lib/python3.10/dist-packages/jax/_src/pjit.py", 1347, "_pjit_call_impl_python"),
                                  ("/workspace/train.py", rng.randint(150, 300), "main")]) + ["", "Extension modules: jaxlib.cpu_feature_guard, numpy.core._multiarray_umath (total: 2)"][:1]

    def peer_abort(p):
        ip = ctx.ip
        task = "/job:jax_worker/replica:0/task:%d" % ip.rank
        hb = "UNAVAILABLE: Task %s heartbeat timeout. This indicates that the remote task has failed, got preempted, or crashed unexpectedly. Check the task logs for an earlier error to debug further. [type.googleapis.com/tensorflow.CoordinationServiceError='']" % task
        if ip.rank == 0 and rng.random() < 0.7:
            st = "UNAVAILABLE: Failed to send RPC to coordination service. Either the leader task died/restarted unexpectedly or this task is experiencing network issues. Check earlier logs from this task and the leader (usually slice 0 process/task/worker 0) to debug further.\nAdditional GRPC error information from remote target coordination_service while calling /tensorflow.CoordinationService/PollForError:\n:{\"created\":\"@%d.%09d\",\"description\":\"Error received from peer ipv4:%s:1234\",\"file\":\"external/com_github_grpc_grpc/src/core/lib/surface/call.cc\",\"file_line\":1056,\"grpc_message\":\"%s\",\"grpc_status\":14}" % (1700000000 + rng.randint(0, 9999999), rng.randint(0, 999999999), ctx.ips[0], rng.choice(["Socket closed", "Connection reset by peer"]))
        else:
            st = hb
        out = [L("E", "%s/distributed_runtime/coordination/coordination_service_agent.cc:%d" % (tslpre, rng.choice([332, 511])), "Polled an error from coordination service (this can be an error from this or another task)."),
               L("F", "%s/pjrt/distributed/client.h:%d" % (pre, rng.choice([75, 77, 80])), "Terminating process because the JAX distributed service detected fatal errors. This most likely indicates that another task died; see the other task logs for more details. Disable Python buffering, i.e. `python -u`, to be sure to see all the previous output. absl::Status: %s" % st)]
        out += ["*** Check failure stack trace: ***"] if rng.random() < 0.3 else []
        return out

    def leader_view(p, t):
        ip = ctx.ip
        return L("E", "%s/distributed_runtime/coordination/coordination_service.cc:%d" % (tslpre, rng.choice([1170, 954, 1228])), "/job:jax_worker/replica:0/task:%d has been set to ERROR in coordination service: UNAVAILABLE: Task /job:jax_worker/replica:0/task:%d heartbeat timeout. This indicates that the remote task has failed, got preempted, or crashed unexpectedly. Check the task logs for an earlier error to debug further. [type.googleapis.com/tensorflow.CoordinationServiceError='']" % (ip.rank, ip.rank))

    def mismatch(p):
        return ["%s transport/net_ib.cc:%d NCCL WARN NET/IB : Message truncated : received %d bytes instead of %d" % (nccl_tag(ctx, p, ctx.hn(p)), rng.choice([1357, 1121]), ctx.mm_a * 4, ctx.mm_b * 4)] if rng.random() < 0.5 else []

    def term(p):
        return []

    return {"oom": oom, "cuda": cuda, "nccl_local": nccl_local, "nccl_net": nccl_net, "pyexc": pyexc,
            "segv": segv, "peer_abort": peer_abort, "mismatch": mismatch, "term": term,
            "timeout": term, "leader_view": leader_view}


def lay_jax(ctx, mode):
    rng = ctx.rng
    newfmt = rng.random() < 0.7
    if mode == "gke":
        n = rng.randint(2, 4)
        ctx.setup_nodes(n, 1, gke_nodes(rng, n))
        G = 8
        js = rng.choice(["llm-pretrain", "maxtext-7b", "paxml-lm", "t5x-ft"])
        rj = rng.choice(["workers", "slice", "gpu"])
        ctx.podnames = ["%s-%s-0-%d-%s" % (js, rj, i, "".join(rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(5))) for i in range(n)]
        ctx.hn = lambda p: ctx.podnames[p.rank]
    else:
        n = rng.randint(2, 4)
        per = rng.choice([8, 4])
        ctx.setup_nodes(n, per, hostnames(rng, n))
        G = 1
        ctx.hn = lambda p: ctx.nodes[p.node]
    ctx.ips = ["10.%d.%d.%d" % (rng.randint(0, 255), rng.randint(0, 255), rng.randint(2, 254)) for _ in range(n)]
    ctx.mm_a = rng.choice([4096, 8192, 1048576]); ctx.mm_b = ctx.mm_a - rng.choice([256, 1024, 2048])
    ip = plan_common(ctx)
    keras3 = rng.random() < 0.25
    c = ctx.cause if not ctx.healthy else None
    if c == "straggler":
        keras3 = False
    if mode == "gke":
        simulate(ctx, detect=(40, 130), mismatch="hang", preempt="node")
    else:
        simulate(ctx, detect=(40, 130), mismatch="hang", preempt=rng.choice(["node", "all"]), launcher_kill=None)
    fw = jax_fw(ctx, G, newfmt, True)
    period = rng.uniform(0.25, 2.5)
    every = rng.choice([10, 50, 100])
    t_start = rng.uniform(30, 240)
    pre = "external/xla/xla" if newfmt else "external/org_tensorflow/tensorflow/compiler/xla"
    logs = {}
    jaxver = rng.choice(["0.4.23", "0.4.26", "0.4.30", "0.4.31", "0.4.35"])
    if c == "straggler":
        slow = 1.0
    for p in ctx.procs:
        lg = Log(ctx.skews[p.node])
        logs[p.rank] = lg
        t = t_start + rng.uniform(0, 8)
        B = []
        if p.rank == 0:
            B.append(gl("I", p.pid, "distributed.py:%d" % rng.choice([89, 92]), "Starting JAX distributed service on [::]:1234" if mode == "gke" else "Starting JAX distributed service on %s:%d" % (ctx.nodes[0], 3389)))
        B.append(gl("I", p.pid, "distributed.py:%d" % rng.choice([101, 106]), "Connecting to JAX distributed service on %s:%d" % (ctx.podnames[0] + "." + "jax-svc" if mode == "gke" else ctx.nodes[0], 1234 if mode == "gke" else 3389)))
        if mode == "slurm" and rng.random() < 0.4:
            B.append(gl("I", p.pid, "xla_bridge.py:%d" % 889, "Unable to initialize backend 'rocm': NOT_FOUND: Could not find registered platform with name: \"rocm\". Available platform names are: CUDA"))
            B.append(gl("I", p.pid, "xla_bridge.py:%d" % 889, "Unable to initialize backend 'tpu': INTERNAL: Failed to open libtpu.so: libtpu.so: cannot open shared object file: No such file or directory"))
        if rng.random() < 0.5:
            B.append(tfl("W", "%s/service/gpu/nvptx_compiler.cc:%d" % (pre, 763 if newfmt else 718), "The NVIDIA driver's CUDA version is 12.2 which is older than the ptxas CUDA version (12.%d.%d). Because the driver is older than the ptxas version, XLA is disabling parallel compilation, which may slow down compilation. You should update your NVIDIA driver or use the NVIDIA-provided CUDA forward compatibility packages." % (rng.choice([3, 4, 5]), rng.randint(50, 140))))
        B.append(gl("I", p.pid, "train.py:%d" % rng.randint(60, 140), "JAX %s; process %d/%d; local devices: %d; global devices: %d" % (jaxver, p.rank, ctx.world, G, G * ctx.world)))
        if rng.random() < 0.5:
            hn = ctx.hn(p)
            B += ["%s NCCL INFO Bootstrap : Using eth0:%s<0>" % (nccl_tag(ctx, p, hn), ctx.ips[p.node]),
                  "%s NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/IB [2]mlx5_4:1/IB [3]mlx5_5:1/IB ; OOB eth0:%s<0>" % (nccl_tag(ctx, p, hn), ctx.ips[p.node]),
                  "%s NCCL INFO comm 0x%x rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL 0" % (nccl_tag(ctx, p, hn), 0x55d000000000 + rng.getrandbits(32), p.rank * G, ctx.world * G, len(ctx.nodes), ctx.per_node * G, p.local)]
        if rng.random() < 0.35:
            B.append(tfl("E", "%s/service/slow_operation_alarm.cc:65" % pre, "Constant folding an instruction is taking > 1s:"))
            B.append("")
            B.append("  %%slice.%d = f32[%d,%d]{1,0} slice(f32[%d,%d]{1,0} %%constant.%d), slice={[0:%d], [0:%d]}" % (rng.randint(1, 99), 4096, 128, 8192, 128, rng.randint(1, 99), 4096, 128))
            B.append("")
            B.append("This isn't necessarily a bug; constant-folding is inherently a trade-off between compilation time and speed at runtime. XLA has some guards that attempt to keep constant folding from taking too long, but fundamentally you'll always be able to come up with an input program that takes a long time.")
        if rng.random() < 0.3:
            B.append("ptxas warning : Registers are spilled to local memory in function 'loop_add_fusion_%d', 16 bytes spill stores, 16 bytes spill loads" % rng.randint(1, 90))
        lg.block(t, B)
        kind, te = p.fate
        t_last = te if te is not None else ctx.t_fault
        if ctx.healthy:
            t_last = ctx.t_fault
        if c in ("hang", "data_loader_stall", "collective_mismatch") or (c in ("gpu_hardware", "nvlink") and ctx.mode == "hang"):
            t_last = min(t_last, ctx.t_fault + (0 if p is ip else period * every * 0.5))
        if kind == "abort" or kind == "timeout":
            t_last = min(t_last, ctx.t_fault + 0.5)
        pts, cut = progress_points(ctx, t + 90, t_last, period * every)
        for tt, k in pts:
            step = k * every
            loss = 9.5 * (0.9996 ** step) + 1.8 + rng.uniform(-0.02, 0.02)
            if keras3 and p.rank >= 0:
                spe = 2000
                s = step % spe or spe
                lg.add(tt, "\r%4d/%d \u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501 %ds %dms/step - loss: %.4f - sparse_categorical_accuracy: %.4f" % (s, spe, int(s * period), int(period * 1000), loss, min(0.9, step / 40000.0)))
            else:
                extra = ""
                if c == "straggler":
                    if p.node == ip.node:
                        extra = " host_compute=%.3fs collective_wait=%.3fs" % (period * 0.97, period * 0.01)
                    else:
                        extra = " host_compute=%.3fs collective_wait=%.3fs" % (period * 0.72, period * 0.26)
                lg.add(tt, gl("I", p.pid, "train.py:%d" % 245, "[step %d] loss=%.4f lr=%.2e tokens/s/device=%d step_time=%.3fs%s" % (step, loss, 3e-4, int(4096 * 8 / period / 8), period * (1 + rng.uniform(-0.03, 0.03)), extra)))
        if ctx.healthy and rng.random() < 0.5:
            lg.add(t_last + 5, gl("I", p.pid, "checkpoint_manager.py:%d" % rng.choice([1297, 1556]), "[process=%d] Saved checkpoint at step %d." % (p.rank, int((t_last - t) / period))))
        if te is not None:
            lines = root_and_collateral(ctx, fw, p, kind, te, G)
            lg.block(te, lines)
    if not ctx.healthy:
        # coordination leader view on task 0
        if ctx.mode in ("err", "sig", "kill9", "silent", "term_node", "net") and ip.rank != 0 and rng.random() < 0.8:
            logs[0].add(ip.fate[1] + rng.uniform(20, 100), fw["leader_view"](ctx.procs[0], 0))
        if c == "preemption" and ctx.mode == "term_node":
            for p in ctx.procs:
                if p.node == ip.node:
                    logs[p.rank].add(p.fate[1] - rng.uniform(1, 20), gl("I", p.pid, "train.py:%d" % 288, "Received SIGTERM (preemption notice); attempting to save checkpoint at step %d" % int(ctx.t_fault / period)))
        if c == "hang":
            # in-process rendezvous stall on the hung process (multi-device per process) or nothing
            if G > 1 and rng.random() < 0.6:
                for k in range(2):
                    logs[ip.rank].add(ctx.t_fault + 20 * (k + 1), tfl("E", "%s/service/rendezvous.cc:%d" % (pre, rng.choice([36, 38])), "This thread has been waiting for `%s` for %d seconds and may be stuck. Expected %d threads to join the rendezvous, but not all of them arrived on time." % ("acquire clique for rank %d; clique=devices=[%s]; stream=0; run_id=%d" % (rng.randint(0, 7), ",".join(str(i) for i in range(G)), rng.randint(10**8, 10**9)) if newfmt else "thunk initialization completion for device ordinal %d; run_id=%d" % (rng.randint(0, 7), rng.randint(10**8, 10**9)), 20 * (k + 1), G)))
                ctx.rank_evidence = True
            ctx.notes.append("process %d stopped issuing collectives; the rest blocked in NCCL all-reduce (JAX has no collective timeout) until the job was killed." % ip.rank)
        if c == "data_loader_stall":
            for k in range(rng.randint(2, 5)):
                logs[ip.rank].add(ctx.t_fault + 60 * (k + 1), gl("W", ip.pid, "input_pipeline.py:%d" % 173, "Input pipeline is slow: waited %.1fs for next batch (grain workers busy reading gs://%s/shards)" % (60.0 * (k + 1), rng.choice(["ml-data-prod", "corpus-v3"]))))
            ctx.rank_evidence = True
            ctx.notes.append("process %d's input pipeline stalled; peers blocked in the next collective." % ip.rank)
        if c == "straggler":
            ctx.node_evidence = True
            ctx.rank_evidence = ctx.per_node == 1
            ctx.notes.append("host %s consistently spends ~all step time computing while others wait in collectives; job cancelled for slowness." % ctx.nodes[ip.node])
        if c == "collective_mismatch":
            for p in ctx.procs:
                logs[p.rank].add(ctx.t_fault - 40, gl("I", p.pid, "train.py:%d" % 199, "Compiling eval_step for args with global shapes [(%d, %d)]" % (256, 2048 if (p is not ip) else 2047)))
            ctx.notes.append("process %d traced eval_step with a different sequence length, so processes launched different collectives; NCCL 'Message truncated'/hang followed." % ip.rank)
    # --- files
    if mode == "gke":
        for p in ctx.procs:
            txt = logs[p.rank].render(ctx.base)
            kind, te = p.fate
            if kind == "term" and c not in ("preemption",):
                pass
            ctx.files["%s.log" % ctx.podnames[p.rank]] = txt
        if not ctx.healthy:
            now = max(pp.fate[1] or ctx.t_fault for pp in ctx.procs) + rng.uniform(30, 600)
            ev = ["LAST SEEN   TYPE      REASON                 OBJECT                                          MESSAGE"]
            items = []
            for p in ctx.procs:
                kind, te = p.fate
                if te is None:
                    continue
                if c == "preemption" and p.node == ip.node:
                    items.append((te - 25, "Warning", "NodeShutdown", "pod/" + ctx.podnames[p.rank], "Pod was terminated in response to imminent node shutdown."))
                    items.append((te - 30, "Normal", "PreemptScheduled", "node/" + ctx.nodes[p.node], "Node will be preempted (spot VM termination notice)"))
                elif kind == "kill9":
                    items.append((te, "Warning", "OOMKilling", "node/" + ctx.nodes[p.node], "Memory cgroup out of memory: Killed process %d (python3) total-vm:%dkB, anon-rss:%dkB" % (p.pid, rng.randint(10**8, 3 * 10**8), rng.randint(10**8, 2 * 10**8))))
                    ctx.oom_rank_visible = True
                if kind != "term" or rng.random() < 0.3:
                    items.append((te + 2, "Warning", "BackoffLimitExceeded" if p is ip and rng.random() < 0.3 else "Failed", "pod/" + ctx.podnames[p.rank], "Container jax-worker terminated: exit code %d (%s)" % (exit_code_of(kind, getattr(ctx, "sig", None)), {"kill9": "OOMKilled", "term": "Error"}.get(kind, "Error"))))
            items.sort(key=lambda x: x[0])
            items.append((items[-1][0] + 5 if items else now - 10, "Normal", "FailedJobs", "jobset/%s" % ctx.podnames[0].split("-")[0], "jobset failed: replicated job \"%s\" failed (restarts exhausted)" % ctx.podnames[0].split("-0-")[0].split("-", 1)[-1]))
            for tt, ty, rs, ob, ms in items:
                d = max(1, int((now - tt) / 60))
                ev.append("%-11s %-9s %-22s %-47s %s" % ("%dm" % d, ty, rs, ob, ms))
            ctx.files["kubectl-events.txt"] = "\n".join(ev) + "\n"
    else:
        jobid = rng.randint(100000, 9999999)
        merged = Log(0)
        for p in ctx.procs:
            off = rng.uniform(0, 0.05)
            for t, s, text in sorted(logs[p.rank].items, key=lambda x: (x[0], x[1])):
                merged.add(t + off, (lambda tx, sk, r: (lambda dt: "%d: %s" % (r, (tx(dt + _dt.timedelta(seconds=sk)) if callable(tx) else tx))))(text, ctx.skews[p.node], p.rank))
        # slurm / srun summary
        fe = first_exit(ctx)
        if not ctx.healthy and fe is not None:
            tk = fe.fate[1]
            if c == "preemption" and ctx.mode == "term_all":
                reason = rng.choice(["TIME LIMIT", "PREEMPTION"])
                merged.add(tk - 0.1, lambda dt, r=reason: "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO %s ***" % (jobid, ctx.nodes[0], dt.strftime("%Y-%m-%dT%H:%M:%S"), r))
                ctx.notes.append("whole job cancelled by Slurm (%s)." % reason.lower())
            elif ctx.mode == "term_node" and c == "preemption":
                merged.add(tk - 0.1, lambda dt: "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO NODE FAILURE, SEE SLURMCTLD LOG ***" % (jobid, ctx.nodes[ip.node], dt.strftime("%Y-%m-%dT%H:%M:%S")) if False else "srun: error: Node failure on %s" % ctx.nodes[ip.node])
                ctx.notes.append("node %s was reclaimed (cloud spot / maintenance) while the step ran." % ctx.nodes[ip.node])
            elif c in ("hang", "data_loader_stall", "straggler", "collective_mismatch") or (ctx.mode == "hang"):
                merged.add(tk - 0.2, lambda dt: "srun: interrupt (one more within 1 sec to abort)" if False else "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (jobid, ctx.nodes[0], dt.strftime("%Y-%m-%dT%H:%M:%S")))
            order = sorted([p for p in ctx.procs if p.fate[1] is not None], key=lambda p: p.fate[1])
            shown = 0
            if fe.fate[0] == "kill9":
                merged.add(fe.fate[1] + 0.5, "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % jobid)
            for p in order:
                kind, te = p.fate
                if kind == "term":
                    continue
                if shown > rng.randint(3, 9):
                    break
                shown += 1
                if kind == "kill9":
                    merged.add(te + 1, "srun: error: %s: task %d: Out Of Memory" % (ctx.nodes[p.node], p.rank))
                elif kind in ("sig", "abort"):
                    merged.add(te + 1, "srun: error: %s: task %d: %s" % (ctx.nodes[p.node], p.rank, SIGTEXT.get(getattr(ctx, "sig", 6) if kind == "sig" else 6, "Aborted") + (" (core dumped)" if rng.random() < 0.5 else "")))
                else:
                    merged.add(te + 1, "srun: error: %s: task %d: Exited with exit code 1" % (ctx.nodes[p.node], p.rank))
                if shown == 1:
                    merged.add(te + 1.5, "srun: launch/slurm: _step_signal: Terminating StepId=%d.0" % jobid)
                    merged.add(te + 1.6, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
                    merged.add(te + 2.0, lambda dt: "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (jobid, ctx.nodes[p.node], dt.strftime("%Y-%m-%dT%H:%M:%S")))
        txt = merged.render(ctx.base)
        if rng.random() < 0.3:
            lines = txt.splitlines()
            cut = rng.randint(20, max(21, len(lines) // 3))
            txt = "\n".join(lines[:15] + ["[... %d lines trimmed ...]" % (cut - 15)] + lines[cut:]) + "\n"
        ctx.files["slurm-%d.out" % jobid] = txt
        sb = ["#!/bin/bash", "#SBATCH --job-name=%s" % rng.choice(["jax-lm", "gemma-ft", "diffusion-jax"]), "#SBATCH --nodes=%d" % len(ctx.nodes), "#SBATCH --ntasks-per-node=%d" % ctx.per_node,
              "#SBATCH --gpus-per-node=8", "#SBATCH --time=%s" % rng.choice(["24:00:00", "12:00:00", "48:00:00"]), "#SBATCH --output=slurm-%j.out", "",
              "export XLA_PYTHON_CLIENT_MEM_FRACTION=0.9", "export NCCL_DEBUG=%s" % rng.choice(["WARN", "INFO"]), "", "srun -l python3 train.py --config configs/base.py"]
        ctx.files["job.sbatch"] = "\n".join(sb) + "\n"
    if not ctx.healthy:
        ev = host_events_for(ctx)
        if ev:
            add_host_files(ctx, ev, ip.node)
        if c == "host_oom_kill" and mode == "slurm":
            ctx.oom_rank_visible = False  # srun says which task was OOM killed
            ctx.oom_rank_visible = True
    else:
        ctx.notes.append("healthy JAX run with harmless ptxas/driver-version, slow constant folding and backend-probe warnings.")
    if not ctx.healthy and c == "unknown":
        ctx.notes.append("process %d exited with status 1 and printed nothing first." % ip.rank)
    if not ctx.healthy and c in ("gpu_hardware", "ecc_memory", "nvlink", "network", "illegal_memory_access", "cuda_oom", "python_exception", "crash_signal", "host_oom_kill"):
        ctx.notes.append("%s on process %d (host %s); others died by coordination-service heartbeat timeout / NCCL abort." % (c, ip.rank, ctx.nodes[ip.node]))
    generic_truth(ctx, ctx.per_node)


# ============================================================================= PaddlePaddle
def paddle_fw(ctx):
    rng = ctx.rng

    def cxx(frames, summary):
        out = ["", "--------------------------------------", "C++ Traceback (most recent call last):", "--------------------------------------"]
        for k, f in enumerate(frames):
            out.append("%-3d %s" % (k, f))
        out += ["", "----------------------", "Error Message Summary:", "----------------------"] + summary
        return out

    def pytb(call="loss.backward()"):
        return py_tb([("tools/train.py", rng.randint(150, 260), "<module>", "main()"),
                      ("tools/train.py", rng.randint(100, 150), "main", "trainer.train()"),
                      ("/usr/local/lib/python3.10/dist-packages/paddlenlp/trainer/trainer.py", rng.choice([1041, 1107]), "train", "tr_loss_step = self.training_step(model, inputs)"),
                      ("/usr/local/lib/python3.10/dist-packages/paddlenlp/trainer/trainer.py", 2167, "training_step", call)], "@@")[:-1]

    def oom(p):
        g = p.local
        alloc = ctx.gpu[2] - rng.uniform(0.5, 2)
        return pytb() + ["MemoryError: "] + cxx(["egr::Backward(std::vector<paddle::Tensor, std::allocator<paddle::Tensor> > const&, std::vector<paddle::Tensor, std::allocator<paddle::Tensor> > const&, bool)",
                                                 "egr::RunBackward(std::vector<paddle::Tensor, std::allocator<paddle::Tensor> > const&, std::vector<paddle::Tensor, std::allocator<paddle::Tensor> > const&, bool, bool, std::vector<paddle::Tensor, std::allocator<paddle::Tensor> > const&, bool, std::vector<paddle::Tensor, std::allocator<paddle::Tensor> > const&)",
                                                 "MatmulGradNode::operator()(paddle::small_vector<std::vector<paddle::Tensor, std::allocator<paddle::Tensor> >, 15u>&, bool, bool)",
                                                 "phi::DenseTensor::AllocateFrom(phi::Allocator*, phi::DataType, unsigned long, bool)",
                                                 "paddle::memory::allocation::Allocator::Allocate(unsigned long)",
                                                 "paddle::memory::allocation::StatAllocator::AllocateImpl(unsigned long)"],
                                                ["ResourceExhaustedError: ", "",
                                                 "Out of memory error on GPU %d. Cannot allocate %.6fMB memory on GPU %d, %.6fGB memory has been allocated and available memory is only %.6fMB." % (g, rng.choice([512.0, 1024.0, 2048.0, 3072.0]), g, alloc, rng.uniform(100, 500)),
                                                 "", "Please check whether there is any other process using GPU %d." % g,
                                                 "1. If yes, please stop them, or start PaddlePaddle on another GPU.",
                                                 "2. If no, please decrease the batch size of your model. ",
                                                 " (at /paddle/paddle/fluid/memory/allocation/cuda_allocator.cc:86)", ""])

    def cuda(p, code):
        cname, txt, _ = CUDA_TXT(code)
        hint = {700: "The device encountered a load or store instruction on an invalid memory address. This leaves the process in an inconsistentstate and any further CUDA work will return the same error. To continue using CUDA, the process must be terminated and relaunched.",
                719: "An exception occurred on the device while executing a kernel. Common causes include dereferencing an invalid device pointer and accessing out of bounds shared memory. Less common cases can be system specific - more information about these cases can be found in the system specific user guide. This leaves the process in an inconsistent state and any further CUDA work will return the same error. To continue using CUDA, the process must be terminated and relaunched.",
                999: "This indicates that an unknown internal error has occurred.",
                214: "This indicates that an uncorrectable ECC error was detected during execution. ",
                220: "This indicates that an uncorrectable NVLink error was detected during the execution. "}[code]
        return pytb("self.optimizer.step()") + ["OSError: (External) CUDA error(%d), %s. " % (code, txt), "  [Hint: '%s'. %s] (at /paddle/paddle/phi/backends/gpu/cuda/cuda_info.cc:%d)" % (cname, hint, rng.choice([272, 258])), ""]

    def nccl(p, num, short, hintname, hinttxt, warn=None):
        out = []
        if warn:
            out.append("%s %s NCCL WARN %s" % (nccl_tag(ctx, p), rng.choice(["transport/net_ib.cc:1699", "enqueue.cc:1187", "proxy.cc:1473"]), warn))
        out += pytb() + ["OSError: (External) NCCL error(%d), %s. " % (num, short),
                         "  [Hint: '%s'. %s] (at /paddle/paddle/fluid/distributed/collective/process_group_nccl.cc:%d)" % (hintname, hinttxt, rng.choice([805, 1052, 1179])),
                         "  [operator < c_allreduce_sum > error]" if rng.random() < 0.3 else "", ""]
        return out

    def nccl_local(p, short, warn):
        return nccl(p, 1, short, "ncclUnhandledCudaError", "Call to CUDA function failed.", warn)

    def nccl_net(p, local):
        ip = ctx.ip
        if local:
            w = "NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Send) localGid ::ffff:%s remoteGids ::ffff:%s" % (ctx.ips[(ip.node + 1) % len(ctx.nodes)], rng.randint(30000, 60000), ctx.ips[ip.node], ctx.ips[(ip.node + 1) % len(ctx.nodes)])
        else:
            w = "NET/IB : Got completion from peer %s<%d> with status=12 opcode=1 len=0 vendor err 129 (Recv) localGid ::ffff:%s remoteGids ::ffff:%s" % (ctx.ips[ip.node], rng.randint(30000, 60000), ctx.ips[p.node], ctx.ips[ip.node])
        return nccl(p, 6, "remote process exited or there was a network error", "ncclRemoteError", "A call failed possibly due to a network error or a remote process exiting prematurely.", w)

    def pyexc(p):
        e = rng.choice(USER_EXC)
        return py_tb([("tools/train.py", rng.randint(150, 260), "<module>", "main()"),
                      ("tools/train.py", rng.randint(100, 150), "main", "trainer.train()"),
                      ("/usr/local/lib/python3.10/dist-packages/paddle/io/dataloader/dataloader_iter.py", 298, "__next__", "data = _restore_batch(data, self._structure_infos.pop(0))") if rng.random() < 0.3 else ("ppdet/engine/trainer.py", rng.randint(500, 700), "train", "for step_id, data in enumerate(self.loader):"),
                      ("ppdet/%s" % e[2], rng.randint(20, 200), e[3], e[4])], "%s: %s" % (e[0], e[1]))

    def sigblock(p, name, signame, sig_from=0):
        return cxx(["paddle::framework::SignalHandle(char const*, int)", "paddle::platform::GetCurrentTraceBackString[abi:cxx11](bool)"] if sig_from == 0 else ["paddle::framework::SignalHandle(char const*, int)"],
                   ["FatalError: `%s` is detected by the operating system." % name,
                    "  [TimeInfo: *** Aborted at %d (unix time) try \"date -d @%d\" if you are using GNU date ***]" % (ctx.unix, ctx.unix),
                    "  [SignalInfo: *** %s (@0x%s) received by PID %d (TID 0x%x) from PID %d ***]" % (signame, "0" if sig_from == 0 else "%x" % sig_from, p.pid, 0x7f0000000000 + rng.getrandbits(36), sig_from), ""])

    def segv(p, sig):
        name = {11: "Segmentation fault", 6: "Process abort signal", 7: "Bus error"}[sig]
        pre = []
        if sig == 6:
            pre = ["terminate called after throwing an instance of 'std::system_error'", "  what():  Resource temporarily unavailable"]
        return pre + sigblock(p, name, SIGNAME[sig])

    def term(p):
        return sigblock(p, "Termination signal", "SIGTERM", ctx.launcher_pid.get(p.node, 1)) if rng.random() < 0.85 else []

    def peer_abort(p):
        if rng.random() < 0.5:
            return nccl(p, 6, "remote process exited or there was a network error", "ncclRemoteError", "A call failed possibly due to a network error or a remote process exiting prematurely.",
                        "NET/IB : Got completion from peer %s<%d> with status=12 opcode=1 len=0 vendor err 129 (Recv)" % (ctx.ips[ctx.ip.node], rng.randint(30000, 60000)) if ctx.ip.node != p.node else None)
        return ["%s NCCL INFO [Service thread] Connection closed by localRank %d" % (nccl_tag(ctx, p), rng.randint(0, 7)) if p.node == ctx.ip.node else "%s misc/socket.cc:%d NCCL WARN socketProgress: Connection closed by remote peer %s<%d>" % (nccl_tag(ctx, p), rng.choice([538, 574]), ctx.ips[ctx.ip.node], rng.randint(30000, 60000))] + \
            nccl(p, 6, "remote process exited or there was a network error", "ncclRemoteError", "A call failed possibly due to a network error or a remote process exiting prematurely.")

    def timeout(p):
        return [gl("E", p.pid, "process_group_nccl.cc:%d" % rng.choice([216, 308]), "ProcessGroupNCCL::Task of rank %d: wait timeout after %d ms for allreduce (task id %d)." % (p.rank, ctx.pg_timeout, rng.randint(1000, 99999)))] + \
            pytb() + ["OSError: (PreconditionNotMet) ProcessGroupNCCL timeout: the collective allreduce has not completed within %d ms. (at /paddle/paddle/fluid/distributed/collective/process_group_nccl.cc:%d)" % (ctx.pg_timeout, rng.choice([219, 311])), ""]

    def mismatch(p):
        return ["%s transport/net_ib.cc:%d NCCL WARN NET/IB : Message truncated : received %d bytes instead of %d" % (nccl_tag(ctx, p), 1121, ctx.mm_a * 4, ctx.mm_b * 4)] + \
            nccl(p, 5, "invalid usage", "ncclInvalidUsage", "The call to NCCL is incorrect. This is usually reflecting a programming error.")

    return {"oom": oom, "cuda": cuda, "nccl_local": nccl_local, "nccl_net": nccl_net, "pyexc": pyexc,
            "segv": segv, "peer_abort": peer_abort, "mismatch": mismatch, "term": term, "timeout": timeout}


def lay_paddle(ctx):
    rng = ctx.rng
    n = rng.choice([1, 2, 2, 4])
    per = 8
    ctx.setup_nodes(n, per, hostnames(rng, n))
    ctx.ips = ["10.%d.%d.%d" % (rng.randint(0, 255), rng.randint(0, 255), rng.randint(2, 254)) for _ in range(n)]
    ctx.mm_a = rng.choice([4096, 8192, 1048576]); ctx.mm_b = ctx.mm_a - rng.choice([256, 1024])
    ctx.pg_timeout = rng.choice([1800000, 600000, 1800000])
    ctx.launcher_pid = {i: rng.randint(1000, 50000) for i in range(n)}
    ip = plan_common(ctx)
    c = ctx.cause if not ctx.healthy else None
    use_to = rng.random() < 0.6
    simulate(ctx, detect=(1, 30), timeout=(ctx.pg_timeout / 1000.0 if use_to else None), launcher_kill=rng.uniform(1.0, 6.0),
             mismatch="all_err" if rng.random() < 0.5 else "hang", preempt="all" if n == 1 else rng.choice(["node", "all"]))
    ctx.unix = int((ctx.base - _dt.datetime(1970, 1, 1)).total_seconds() + (first_exit(ctx).fate[1] if first_exit(ctx) else 0))
    fw = paddle_fw(ctx)
    style = rng.choice(["nlp", "det"])
    period = rng.uniform(0.3, 2.0)
    every = rng.choice([10, 20, 50])
    t_start = rng.uniform(10, 40)
    logs = {}
    for p in ctx.procs:
        lg = Log(ctx.skews[p.node])
        logs[p.rank] = lg
        t = t_start + rng.uniform(0, 3)
        B = ["/usr/local/lib/python3.10/dist-packages/paddle/utils/cpp_extension/extension_utils.py:686: UserWarning: No ccache found. Please be aware that recompiling all source files may be required. You can download and install ccache from: https://github.com/ccache/ccache/blob/master/doc/INSTALL.md",
             "  warnings.warn(warning_message)"]
        B.append(gl("I", p.pid, "init.cc:%d" % 233, "ENV [CUSTOM_DEVICE_ROOT]=/usr/local/lib/python3.10/dist-packages/paddle_custom_device") if rng.random() < 0.4 else "")
        B = [b for b in B if b]
        B.append(gl("I", p.pid, "tcp_utils.cc:%d" % 107, "Retry to connect to %s:%d while the server is not yet listening." % (ctx.ips[0], 6070 + rng.randint(0, 9))))
        B.append(gl("I", p.pid, "tcp_utils.cc:%d" % 130, "Successfully connected to %s:%d" % (ctx.ips[0], 6070)))
        B.append(gl("W", p.pid, "gpu_resources.cc:%d" % 119, "Please NOTE: device: %d, GPU Compute Capability: %s, Driver API Version: 12.2, Runtime API Version: %s" % (p.local, ctx.gpu[1], rng.choice(["11.8", "12.0", "12.3"]))))
        B.append(gl("W", p.pid, "gpu_resources.cc:%d" % 164, "device: %d, cuDNN Version: %s." % (p.local, rng.choice(["8.6", "8.9"]))))
        B.append(gl("I", p.pid, "process_group_nccl.cc:%d" % 129, "ProcessGroupNCCL pg_timeout_ %d" % ctx.pg_timeout))
        if p.local == 0 or rng.random() < 0.3:
            B += ["+==============================================================================+",
                  "|                                                                              |",
                  "|                         DistributedStrategy Overview                         |",
                  "|                                                                              |",
                  "+==============================================================================+",
                  "|                            amp=True <-> amp_configs                          |",
                  "+------------------------------------------------------------------------------+",
                  "|                    init_loss_scaling                  32768.0                |",
                  "|                   use_pure_fp16                        False                 |",
                  "+==============================================================================+"]
        if rng.random() < 0.6:
            B.append("/usr/local/lib/python3.10/dist-packages/paddle/nn/layer/layers.py:%d: Warning: API \"paddle.nn.functional.softmax_with_cross_entropy\" is deprecated since 2.0.0, and will be removed in future versions. Please use \"paddle.nn.functional.cross_entropy\" instead." % rng.choice([1130, 1327]))
        if rng.random() < 0.4:
            B.append("/usr/local/lib/python3.10/dist-packages/_distutils_hack/__init__.py:33: UserWarning: Setuptools is replacing distutils.")
        lg.block(t, B)
        kind, te = p.fate
        t_last = te if te is not None else ctx.t_fault
        if ctx.healthy:
            t_last = ctx.t_fault
        if c in ("hang", "data_loader_stall") or ctx.mode == "hang":
            t_last = min(t_last, ctx.t_fault)
        if kind in ("abort", "timeout", "term"):
            t_last = min(t_last, ctx.t_fault + 0.5)
        pts, cut = progress_points(ctx, t + 60, t_last, period * every)
        for tt, k in pts:
            step = k * every
            loss = 6.0 * (0.9995 ** step) + 1.5 + rng.uniform(-0.03, 0.03)
            if style == "nlp":
                ist = period * every
                if c == "straggler":
                    ist = ist * (1.0 if p is ip else 1.0)
                msg = "loss: %.8f, learning_rate: %.4g, global_step: %d, interval_runtime: %.4f, interval_samples_per_second: %.3f, interval_steps_per_second: %.3f, epoch: %.4f" % (loss, 3e-5, step, ist, 8 * every / ist, every / ist, step / 20000.0)
                if c == "straggler":
                    msg += ", reader_cost: %.5f, batch_cost: %.5f" % ((0.0004, period * 0.99) if p is not ip else (period * 0.33, period * 0.99))
                lg.add(tt, (lambda m: (lambda dt: "[%s,%03d] [    INFO] - %s" % (dt.strftime("%Y-%m-%d %H:%M:%S"), dt.microsecond // 1000, m)))(msg))
            else:
                ep = step // 1250
                dc = 0.0012 if not (c == "straggler" and p is ip) else period * 0.4
                lg.add(tt, (lambda s, e, l, d: (lambda dt: "[%s] ppdet.engine INFO: Epoch: [%d] [%4d/1250] learning_rate: 0.010000 loss: %.6f loss_cls: %.6f loss_bbox: %.6f eta: %d:%02d:%02d batch_cost: %.4f data_cost: %.4f ips: %.4f images/s" % (dt.strftime("%m/%d %H:%M:%S"), e, s % 1250, l, l * 0.4, l * 0.3, 5, rng.randint(0, 59), rng.randint(0, 59), period, d, 8 / period)))(step, ep, loss, dc))
        if te is not None:
            lg.block(te, root_and_collateral(ctx, fw, p, kind, te, 1))
    if not ctx.healthy:
        if c == "data_loader_stall":
            for k in range(rng.randint(2, 4)):
                logs[ip.rank].add(ctx.t_fault + 120 * (k + 1), "/usr/local/lib/python3.10/dist-packages/paddle/io/dataloader/dataloader_iter.py:%d: UserWarning: DataLoader reader thread has not read data for %d seconds, please check the dataset and the data source" % (rng.choice([403, 449]), 120 * (k + 1)) if False else gl("W", ip.pid, "reader.py:%d" % 96, "[rank %d] waiting for batch from DataLoader workers for %ds (worker %d blocked in read())" % (ip.rank, 120 * (k + 1), rng.randint(0, 3))))
            ctx.rank_evidence = True
            ctx.notes.append("rank %d's DataLoader workers blocked on NFS reads; others waited in allreduce%s." % (ip.rank, " until the ProcessGroupNCCL timeout" if use_to else " until the job was killed"))
        if c == "hang":
            ctx.rank_evidence = False
            if rng.random() < 0.6:
                # user attached py-spy dumps of all local ranks on the node
                L = []
                for p in ctx.procs:
                    if p.node != ip.node:
                        continue
                    L += ["Process %d: /usr/bin/python3 -u tools/train.py -c configs/%s.yml" % (p.pid, style), "Python v3.10.12 (/usr/bin/python3.10)", "", "Thread %d (idle): \"MainThread\"" % p.pid]
                    if p is ip:
                        L += ["    wait (threading.py:320)", "    get (queue.py:171)", "    _get_eval_result (ppdet/utils/async_eval.py:%d)" % rng.randint(40, 90), "    train (ppdet/engine/trainer.py:%d)" % rng.randint(500, 700), "    main (tools/train.py:%d)" % rng.randint(100, 160), ""]
                    else:
                        L += ["    _run_op (paddle/distributed/communication/all_reduce.py:%d)" % 91, "    all_reduce (paddle/distributed/communication/all_reduce.py:%d)" % 110, "    _sync_grads (paddle/distributed/parallel.py:%d)" % rng.randint(300, 400), "    train (ppdet/engine/trainer.py:%d)" % rng.randint(500, 700), ""]
                ctx.files["%s/py-spy-dump.txt" % ctx.nodes[ip.node]] = "\n".join(L) + "\n"
                ctx.rank_evidence = True
            ctx.notes.append("rank %d blocked on a queue in an async-eval helper; others waited in allreduce%s." % (ip.rank, " until ProcessGroupNCCL timeout" if use_to else ", job killed"))
        if c == "straggler":
            ctx.rank_evidence = True
            ctx.notes.append("rank %d has high reader/data cost every interval; all ranks' step time is bounded by it; job cancelled." % ip.rank)
        if c == "collective_mismatch":
            ctx.notes.append("ranks issued collectives with different sizes (uneven eval split); NCCL invalid usage / Message truncated.")
    # launcher consoles per node
    fe = first_exit(ctx)
    for nidx in range(n):
        host = ctx.nodes[nidx]
        lg = Log(ctx.skews[nidx])
        t = 1.0
        conf = ["-----------  Configuration  ----------------------", "devices: 0,1,2,3,4,5,6,7", "elastic_level: -1", "elastic_timeout: 30", "gloo_port: 6767", "host: None",
                "ips: %s" % (",".join(ctx.ips) if n > 1 else "None"), "job_id: default", "legacy: False", "log_dir: log", "log_level: INFO", "master: %s" % (("%s:6070" % ctx.ips[0]) if n > 1 else "None"),
                "max_restart: 3", "nnodes: %d" % n, "nproc_per_node: None", "rank: %d" % (nidx if n > 1 else -1), "run_mode: collective", "training_script: tools/train.py", "with_gloo: 1",
                "--------------------------------------------------"]
        for line in conf:
            lg.add(t, (lambda s: (lambda dt: "LAUNCH INFO %s,%03d %s" % (dt.strftime("%Y-%m-%d %H:%M:%S"), dt.microsecond // 1000, s)))(line))
        lg.add(t + 0.2, (lambda dt: "LAUNCH INFO %s,%03d Job: default, mode collective, replicas %d[%d:%d], elastic False" % (dt.strftime("%Y-%m-%d %H:%M:%S"), dt.microsecond // 1000, n, n, n)))
        lg.add(t + 0.3, (lambda dt: "LAUNCH INFO %s,%03d Run Pod: %s, replicas 8, status ready" % (dt.strftime("%Y-%m-%d %H:%M:%S"), dt.microsecond // 1000, "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(5)))))
        lg.add(t + 0.4, (lambda dt: "LAUNCH INFO %s,%03d Watching Pod: %s, replicas 8, status running" % (dt.strftime("%Y-%m-%d %H:%M:%S"), dt.microsecond // 1000, "pod")))
        local = [p for p in ctx.procs if p.node == nidx]
        lfirst = sorted([p for p in local if p.fate[1] is not None and p.fate[0] != "term"], key=lambda p: p.fate[1])
        if not ctx.healthy:
            if lfirst:
                q = lfirst[0]
                tq = q.fate[1] + rng.uniform(0.5, 2)
                code = {"err": 1, "abort": 1, "mm": 1, "timeout": 1, "silent": 1, "kill9": -9, "sig": -getattr(ctx, "sig", 11)}.get(q.fate[0], 1)
                lg.add(tq, lambda dt: "LAUNCH INFO %s,%03d Pod failed" % (dt.strftime("%Y-%m-%d %H:%M:%S"), dt.microsecond // 1000))
                lg.add(tq + 0.001, (lambda q, code: (lambda dt: "LAUNCH ERROR %s,%03d Container failed !!!\nContainer rank %d status failed cmd ['/usr/bin/python3', '-u', 'tools/train.py', '-c', 'configs/%s.yml'] code %d log log/workerlog.%d" % (dt.strftime("%Y-%m-%d %H:%M:%S"), dt.microsecond // 1000, q.local, style, code, q.local)))(q, code))
                tail_src = logs[q.rank].render(ctx.base).splitlines()[-rng.randint(8, 25):]
                lg.add(tq + 0.002, lambda dt: "LAUNCH INFO %s,%03d ------------------------- ERROR LOG DETAIL -------------------------" % (dt.strftime("%Y-%m-%d %H:%M:%S"), dt.microsecond // 1000))
                lg.block(tq + 0.003, tail_src)
                lg.add(tq + 0.5, lambda dt: "LAUNCH INFO %s,%03d Exit code %d" % (dt.strftime("%Y-%m-%d %H:%M:%S"), dt.microsecond // 1000, code if code > 0 else 1))
            elif any(p.fate[0] == "term" for p in local):
                tq = min(p.fate[1] for p in local)
                lg.add(tq, lambda dt: "LAUNCH INFO %s,%03d Terminating with signal 15" % (dt.strftime("%Y-%m-%d %H:%M:%S"), dt.microsecond // 1000))
                if c == "preemption":
                    lg.add(tq - 2, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO %s ***" % (rng.randint(10**5, 10**7), host, (ctx.base + _dt.timedelta(seconds=tq)).strftime("%Y-%m-%dT%H:%M:%S"), "TIME LIMIT" if ctx.mode == "term_all" else "PREEMPTION") if ctx.mode == "term_all" or nidx == ip.node else "")
        else:
            lg.add(ctx.t_fault + 30, lambda dt: "LAUNCH INFO %s,%03d Pod completed" % (dt.strftime("%Y-%m-%d %H:%M:%S"), dt.microsecond // 1000))
            lg.add(ctx.t_fault + 30.1, lambda dt: "LAUNCH INFO %s,%03d Exit code 0" % (dt.strftime("%Y-%m-%d %H:%M:%S"), dt.microsecond // 1000))
        # launcher also tails workerlog.0 to its console: include a few lines
        pre = "" if n == 1 else "%s/" % host
        ctx.files["%strain.out" % pre if n > 1 else "train.out"] = "\n".join(l for l in lg.render(ctx.base).splitlines() if l) + "\n"
        for p in local:
            txt = logs[p.rank].render(ctx.base)
            if rng.random() < 0.2 and p is not ip:
                txt = tail_trim(txt, rng.randint(30, 80), rng)
            ctx.files["%slog/workerlog.%d" % (pre, p.local)] = txt
    if not ctx.healthy:
        ev = host_events_for(ctx)
        if ev:
            add_host_files(ctx, ev, ip.node)
        if c == "ecc_memory" and rng.random() < 0.5:
            fn, tx = nvsmi_file(ctx, ip.node, ctx.pci_bad, c)
            ctx.files[fn] = tx
        if c in ("cuda_oom", "illegal_memory_access", "python_exception", "crash_signal", "ecc_memory", "gpu_hardware", "nvlink", "network", "host_oom_kill", "unknown"):
            ctx.notes.append("%s on rank %d (local %d, %s); launcher on the node reports Container rank %d%s." % (c, ip.rank, ip.local, ctx.nodes[ip.node], (sorted([p for p in ctx.procs if p.node == ip.node and p.fate[1] is not None and p.fate[0] != 'term'], key=lambda p: p.fate[1]) or [ip])[0].local, "" if n == 1 else "; other nodes' ranks died on NCCL remote errors / SIGTERM"))
        if c == "preemption":
            ctx.notes.append("job terminated by the scheduler (SIGTERM to all trainers; Paddle prints 'Termination signal' FatalError blocks).")
        if c == "host_oom_kill":
            ctx.oom_rank_visible = (ctx.mode == "kill9")
    else:
        ctx.notes.append("healthy Paddle run with deprecation warnings, ccache warning and the DistributedStrategy banner.")
    generic_truth(ctx, per)
    if not ctx.healthy and c in ("gpu_hardware", "nvlink") and ctx.mode == "hang":
        ctx.init_rank = None


# ============================================================================= Horovod (mpirun / horovodrun)
def lay_horovod(ctx):
    rng = ctx.rng
    n = rng.choice([1, 2, 2, 4])
    per = rng.choice([4, 8])
    ctx.setup_nodes(n, per, hostnames(rng, n))
    ctx.ips = ["10.%d.%d.%d" % (rng.randint(0, 255), rng.randint(0, 255), rng.randint(2, 254)) for _ in range(n)]
    mx = rng.random() < 0.3
    gloo = rng.random() < 0.3
    ctx.jobid_mpi = rng.randint(1000, 65000)
    ip = plan_common(ctx)
    c = ctx.cause if not ctx.healthy else None
    simulate(ctx, detect=(0.5, 8), launcher_kill=rng.uniform(0.5, 4), mismatch="all_err", preempt="all" if n == 1 else rng.choice(["node", "all"]))
    hvd_src = "/tmp/pip-install-%s/horovod_%s/horovod/common" % ("".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789_") for _ in range(8)), "%032x" % rng.getrandbits(128))
    hvd = lambda lvl, f, msg: (lambda dt: "[%s: %s %s/%s] %s" % (ts_tf(dt), lvl, hvd_src, f, msg))
    pfx = (lambda p, s: "[%d]<%s>:" % (p.rank, s)) if gloo else (lambda p, s: "[1,%d]<%s>:" % (p.rank, s))
    out = Log(0)
    period = rng.uniform(0.2, 1.2)
    every = rng.choice([50, 100])

    def emit(p, t, text, s="stderr"):
        sk = ctx.skews[p.node]
        if callable(text):
            out.add(t, (lambda tx, sk: (lambda dt: pfx(p, s) + tx(dt + _dt.timedelta(seconds=sk))))(text, sk))
        else:
            out.add(t, pfx(p, s) + text)

    for p in ctx.procs:
        t = rng.uniform(5, 20)
        if not mx:
            emit(p, t, tfl("I", "tensorflow/core/common_runtime/gpu/gpu_device.cc:1926", "Created device /job:localhost/replica:0/task:0/device:GPU:0 with %d MB memory:  -> device: %d, name: %s, pci bus id: %s.0, compute capability: %s" % (int(ctx.gpu[2] * 1000) - 700, p.local, ctx.gpu[0], ctx.gpu[3][p.local % 8], ctx.gpu[1])))
            if rng.random() < 0.5:
                emit(p, t - 1, tfl("W", "tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38", "TF-TRT Warning: Could not find TensorRT"))
        else:
            emit(p, t, "/usr/local/lib/python3.8/dist-packages/mxnet/optimizer/optimizer.py:167: UserWarning: WARNING: New optimizer gluoncv.nn.LARS is overriding existing optimizer mxnet.optimizer.optimizer.LARS" if rng.random() < 0.3 else "[%s] src/base.cc:79: cuDNN lib mismatch: linked-against version 8902 != compiled-against version 8600.  Set MXNET_CUDNN_LIB_CHECKING=0 to quiet this warning." % "10:00:00")
        if p.local == 0 and rng.random() < 0.6:
            hn = ctx.nodes[p.node]
            emit(p, t + 3, "%s NCCL INFO Bootstrap : Using ib0:%s<0>" % (nccl_tag(ctx, p), ctx.ips[p.node]), "stdout")
            emit(p, t + 3.1, "%s NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ib0:%s<0>" % (nccl_tag(ctx, p), ctx.ips[p.node]), "stdout")
            if p.rank == 0:
                emit(p, t + 3.2, "%s NCCL INFO NCCL version 2.%d.%d+cuda%s" % (nccl_tag(ctx, p), rng.choice([12, 15, 18]), rng.randint(1, 5), rng.choice(["11.8", "12.1"])), "stdout")
        kind, te = p.fate
        t_last = te if te is not None else ctx.t_fault
        if ctx.healthy:
            t_last = ctx.t_fault
        if c in ("hang", "data_loader_stall") or ctx.mode == "hang" or kind in ("abort", "term", "mm"):
            t_last = min(t_last, ctx.t_fault)
        if p.rank == 0 or (rng.random() < 0.15):
            pts, cut = progress_points(ctx, t + 30, t_last, period * every, max_pts=30)
            for tt, k in pts:
                step = k * every
                if mx:
                    emit(p, tt, "INFO:root:Epoch[%d] Batch [%d-%d]\tSpeed: %.2f samples/sec\taccuracy=%.6f\ttop_k_accuracy_5=%.6f" % (step // 5000, step % 5000 - every, step % 5000, 128 * ctx.world / period, min(0.78, step / 400000.0), min(0.93, step / 300000.0)), "stdout")
                else:
                    emit(p, tt, "%4d/5004 [%s>%s] - ETA: %d:%02d - loss: %.4f - accuracy: %.4f" % (step % 5004, "=" * int(29 * (step % 5004) / 5004), "." * (29 - int(29 * (step % 5004) / 5004)), int((5004 - step % 5004) * period) // 60, int((5004 - step % 5004) * period) % 60, 4.0 * 0.9997 ** step + 1, min(0.77, step / 300000.0)), "stdout")
        if c == "straggler" and p.rank == 0:
            for k in range(rng.randint(3, 6)):
                tt = ctx.t_fault - 3000 + k * rng.uniform(300, 900)
                emit(p, tt, hvd("W", "stall_inspector.cc:107", "One or more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting for remainder of ranks for more than 60 seconds. This may indicate that different ranks are trying to submit different tensors or that only subset of ranks is submitting tensors, which will cause deadlock. "))
                emit(p, tt + 0.001, "Missing ranks:")
                emit(p, tt + 0.002, "%d: [DistributedAdam_Allreduce/cond_%d/HorovodAllreduce_grads_%d_0]" % (ip.rank, rng.randint(1, 200), rng.randint(1, 200)))
        if te is None:
            continue
        L = []
        if p is ip and c == "cuda_oom":
            if mx:
                L = py_tb([("train_imagenet.py", rng.randint(300, 500), "<module>", "main()"), ("train_imagenet.py", rng.randint(200, 300), "train", "ag.backward(loss)"),
                           ("/usr/local/lib/python3.8/dist-packages/mxnet/base.py", 246, "check_call", "raise get_last_ffi_error()")], "mxnet.base.MXNetError: Traceback (most recent call last):")
                L += ["  File \"../src/storage/./pooled_storage_manager.h\", line 161", "MXNetError: cudaMalloc retry failed: out of memory"]
            else:
                L = [tfl("W", "tensorflow/tsl/framework/bfc_allocator.cc:485", "Allocator (GPU_0_bfc) ran out of memory trying to allocate %.2fGiB (rounded to %d)requested by op resnet50/conv2_block1_1_conv/Conv2D" % (2.0, 2 * 2**30)),
                     tfl("W", "tensorflow/core/framework/op_kernel.cc:1839", "OP_REQUIRES failed at conv_ops.cc:%d : RESOURCE_EXHAUSTED: OOM when allocating tensor with shape[%d,256,56,56] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc" % (rng.choice([684, 1068]), rng.choice([256, 512])))]
                L += py_tb([("tensorflow2_keras_imagenet.py", rng.randint(150, 250), "<module>", "model.fit(train_iter, steps_per_epoch=steps, callbacks=callbacks, epochs=epochs, verbose=verbose)")], "tensorflow.python.framework.errors_impl.ResourceExhaustedError: Graph execution error:")
                L += ["", "OOM when allocating tensor with shape[256,256,56,56] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc", "\t [[{{node resnet50/conv2_block1_1_conv/Conv2D}}]]", "Hint: If you want to see a list of allocated tensors when OOM happens, add report_tensor_allocations_upon_oom to RunOptions for current allocation info. This isn't available when running in Eager mode.", " [Op:__inference_train_function_%d]" % rng.randint(10000, 99999)]
        elif p is ip and c in ("illegal_memory_access", "gpu_hardware", "ecc_memory") and kind in ("err", "sig"):
            cn, txt, drv = CUDA_TXT({"illegal_memory_access": 700, "gpu_hardware": 719, "ecc_memory": 214}[c])
            if mx:
                L = ["terminate called after throwing an instance of 'dmlc::Error'", "  what():  [%s] ../src/engine/./threaded_engine.h:%d: [%s] ../src/resource.cc:%d: Check failed: e == cudaSuccess || e == cudaErrorCudartUnloading: CUDA: %s" % ("10:00:00", 389, "10:00:00", 288, txt)]
            else:
                L = [tfl("E", "tensorflow/compiler/xla/stream_executor/cuda/cuda_event.cc:29", "Error polling for event status: failed to query event: %s: %s" % (drv, txt)),
                     tfl("F", "tensorflow/core/common_runtime/device/device_event_mgr.cc:223", "Unexpected Event status: 1")]
            p.fate = ("sig", te)
            ctx.sig = 6
        elif p is ip and c == "nvlink" and kind == "err":
            L = ["%s enqueue.cc:%d NCCL WARN Cuda failure 'uncorrectable NVLink error detected during the execution'" % (nccl_tag(ctx, p), 1187),
                 hvd("E", "operations.cc:%d" % 697, "Horovod background loop uncaught exception: [%s/ops/nccl_operations.cc:%d] NCCL error: unhandled cuda error" % (hvd_src, rng.choice([54, 71])))]
        elif p is ip and c == "network":
            L = ["%s transport/net_ib.cc:%d NCCL WARN NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Send)" % (nccl_tag(ctx, p), 1699, ctx.ips[(ip.node + 1) % n], rng.randint(30000, 60000)),
                 hvd("E", "operations.cc:%d" % 697, "Horovod background loop uncaught exception: [%s/ops/nccl_operations.cc:%d] NCCL error: remote process exited or there was a network error" % (hvd_src, 54))]
        elif p is ip and c == "python_exception":
            e = rng.choice(USER_EXC)
            L = py_tb([("train.py", rng.randint(150, 300), "<module>", "main()"), ("train.py", rng.randint(60, 150), "main", "for batch in loader:"), (e[2], rng.randint(20, 200), e[3], e[4])], "%s: %s" % (e[0], e[1]))
        elif p is ip and c == "crash_signal":
            L = fatal_python(ctx.sig, [("/usr/local/lib/python3.8/dist-packages/horovod/tensorflow/mpi_ops.py", 132, "_allreduce"), ("train.py", rng.randint(100, 200), "train_step")], mods=False) if rng.random() < 0.6 else \
                ["[%s:%05d] *** Process received signal ***" % (ctx.nodes[p.node], p.pid), "[%s:%05d] Signal: %s (%d)" % (ctx.nodes[p.node], p.pid, SIGTEXT[ctx.sig], ctx.sig),
                 "[%s:%05d] Signal code: Address not mapped (1)" % (ctx.nodes[p.node], p.pid), "[%s:%05d] Failing at address: 0x%x" % (ctx.nodes[p.node], p.pid, rng.getrandbits(20)),
                 "[%s:%05d] [ 0] /lib/x86_64-linux-gnu/libc.so.6(+0x42520)[0x7f%010x]" % (ctx.nodes[p.node], p.pid, rng.getrandbits(36)),
                 "[%s:%05d] [ 1] /usr/local/lib/python3.8/dist-packages/horovod/tensorflow/mpi_lib.cpython-38-x86_64-linux-gnu.so(+0x%x)[0x7f%010x]" % (ctx.nodes[p.node], p.pid, rng.getrandbits(20), rng.getrandbits(36)),
                 "[%s:%05d] *** End of error message ***" % (ctx.nodes[p.node], p.pid)]
        elif kind == "mm":
            if p.rank == 0 or rng.random() < 0.5:
                msg = rng.choice(["Mismatched allreduce tensor shapes: One rank sent a tensor with dimension 0 equal to %d, but another rank sent a tensor with dimension 0 equal to %d." % (rng.choice([512, 1000]), rng.choice([511, 999])),
                                  "Mismatched Horovod operations: One rank did an allreduce, but another rank did a broadcast."])
                L = py_tb([("train.py", rng.randint(150, 300), "<module>", "main()")], ("mxnet.base.MXNetError: " if mx else "tensorflow.python.framework.errors_impl.FailedPreconditionError: ") + msg)
                if not mx:
                    L += ["\t [[{{node DistributedAdam_Allreduce/cond_%d/HorovodAllreduce_grads_%d_0}}]] [Op:__inference_train_function_%d]" % (rng.randint(1, 90), rng.randint(1, 90), rng.randint(10000, 99999))]
        elif kind == "abort" or (kind == "term" and p is not ip and rng.random() < 0.2):
            shut = "Horovod has been shut down. This was caused by an exception on one of the ranks or an attempt to allreduce, allgather or broadcast a tensor after one of the ranks finished execution. If the shutdown was caused by an exception, you should see the exception in the log before the first shutdown message."
            if mx:
                L = py_tb([("train_imagenet.py", rng.randint(300, 500), "<module>", "main()"), ("/usr/local/lib/python3.8/dist-packages/horovod/mxnet/mpi_ops.py", 89, "allreduce_", "c_in, c_out, name, ctypes.c_bool(average), ctypes.c_int(priority)))")], "mxnet.base.MXNetError: " + shut)
            else:
                L = py_tb([("tensorflow2_keras_imagenet.py", rng.randint(150, 250), "<module>", "model.fit(train_iter, steps_per_epoch=steps, callbacks=callbacks, epochs=epochs, verbose=verbose)")], "tensorflow.python.framework.errors_impl.UnknownError: Graph execution error:")
                L += ["", "%s" % shut, "\t [[{{node DistributedAdam_Allreduce/cond_%d/HorovodAllreduce_grads_%d_0}}]] [Op:__inference_train_function_%d]" % (rng.randint(1, 90), rng.randint(1, 90), rng.randint(10000, 99999))]
            if rng.random() < 0.3:
                L = ["%s misc/socket.cc:%d NCCL WARN Net : Connection closed by remote peer %s<%d>" % (nccl_tag(ctx, p), 538, ctx.ips[ip.node], rng.randint(30000, 60000))] + L
        for k, ln in enumerate(L):
            emit(p, te + k * 1e-6, ln)
    if not ctx.healthy and c in ("hang", "data_loader_stall"):
        for k in range(rng.randint(2, 5)):
            tt = ctx.t_fault + 60 * (k + 1) + rng.uniform(0, 3)
            emit(ctx.procs[0], tt, hvd("W", "stall_inspector.cc:107", "One or more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting for remainder of ranks for more than 60 seconds. This may indicate that different ranks are trying to submit different tensors or that only subset of ranks is submitting tensors, which will cause deadlock. "))
            emit(ctx.procs[0], tt + 0.001, "Missing ranks:")
            emit(ctx.procs[0], tt + 0.002, "%d: [DistributedAdam_Allreduce/cond_%d/HorovodAllreduce_grads_%d_0, DistributedAdam_Allreduce/cond_%d/HorovodAllreduce_grads_%d_0 ...]" % (ip.rank, rng.randint(1, 90), rng.randint(1, 90), rng.randint(1, 90), rng.randint(1, 90)))
        ctx.rank_evidence = True
        if c == "data_loader_stall":
            emit(ip, ctx.t_fault + 30, "W%s %s data_reader.py:88] reading /mnt/nfs/imagenet/train-%05d-of-01024 is taking %ds" % ("", "", rng.randint(0, 1023), 30) if False else "WARNING:root:[rank %d] slow read: /mnt/nfs/imagenet/train/n%08d/%08d.JPEG took %.1fs" % (ip.rank, rng.randint(10**7, 10**8), rng.randint(0, 99999), rng.uniform(30, 90)), "stdout")
        ctx.notes.append("rank %d stopped submitting tensors (%s); Horovod stall inspector names it as missing; job killed." % (ip.rank, "stuck input pipeline on NFS" if c == "data_loader_stall" else "deadlocked"))
    if not ctx.healthy and c == "straggler":
        ctx.rank_evidence = True
        ctx.notes.append("rank %d repeatedly the last to submit tensors (stall warnings name it); job cancelled." % ip.rank)
    # mpirun tail
    fe = first_exit(ctx)
    tail = []
    if not ctx.healthy and fe is not None:
        tk = max(pp.fate[1] for pp in ctx.procs if pp.fate[1] is not None) + rng.uniform(0.2, 1.5)
        kind = fe.fate[0]
        if ctx.mode == "term_node" and n > 1 or (c == "network" and rng.random() < 0.3 and n > 1):
            bad = ip.node
            tail = ["--------------------------------------------------------------------------",
                    "ORTE has lost communication with a remote daemon.", "",
                    "  HNP daemon   : [[%d,0],0] on node %s" % (ctx.jobid_mpi, ctx.nodes[0]),
                    "  Remote daemon: [[%d,0],%d] on node %s" % (ctx.jobid_mpi, bad, ctx.nodes[bad]), "",
                    "This is usually due to either a failure of the TCP network",
                    "connection to the node, or possibly an internal failure of",
                    "the daemon itself. We cannot recover from this failure, and",
                    "therefore will terminate the job.",
                    "--------------------------------------------------------------------------"]
        elif kind in ("sig", "kill9", "term") or (kind == "abort" and False):
            sig = {"sig": getattr(ctx, "sig", 11), "kill9": 9, "term": 15}[kind]
            tail = ["--------------------------------------------------------------------------",
                    "Primary job  terminated normally, but 1 process returned",
                    "a non-zero exit code. Per user-direction, the job has been aborted.",
                    "--------------------------------------------------------------------------",
                    "--------------------------------------------------------------------------",
                    "mpirun noticed that process rank %d with PID %d on node %s exited on signal %d (%s)." % (fe.rank, fe.pid, ctx.nodes[fe.node], sig, SIGTEXT[sig]),
                    "--------------------------------------------------------------------------"]
            if c == "host_oom_kill":
                ctx.oom_rank_visible = True
        else:
            tail = ["--------------------------------------------------------------------------",
                    "Primary job  terminated normally, but 1 process returned",
                    "a non-zero exit code. Per user-direction, the job has been aborted.",
                    "--------------------------------------------------------------------------",
                    "--------------------------------------------------------------------------",
                    "mpirun detected that one or more processes exited with non-zero status, thus causing",
                    "the job to be terminated. The first process to do so was:", "",
                    "  Process name: [[%d,1],%d]" % (ctx.jobid_mpi, fe.rank), "  Exit code:    1",
                    "--------------------------------------------------------------------------"]
        if gloo:
            tail = ["Process %d exit with status code %d." % (fe.rank, exit_code_of(kind, getattr(ctx, "sig", None)) if kind != "term" else 143),
                    "Terminating remaining workers after failure of Process %d." % fe.rank]
            for p in ctx.procs:
                if p is not fe and rng.random() < 0.3:
                    tail.append("Process %d exit with status code %d." % (p.rank, 143 if p.fate[0] == "term" else 1))
            tail += py_tb([("/usr/local/bin/horovodrun", 8, "<module>", "sys.exit(run_commandline())"),
                           ("/usr/local/lib/python3.8/dist-packages/horovod/runner/launch.py", 837, "run_commandline", "_run(args)"),
                           ("/usr/local/lib/python3.8/dist-packages/horovod/runner/gloo_run.py", 285, "launch_gloo", "raise RuntimeError('Horovod detected that one or more processes exited with non-zero '")],
                          "RuntimeError: Horovod detected that one or more processes exited with non-zero status, thus causing the job to be terminated. The first process to do so was:\nProcess name: %d\nExit code: %d" % (fe.rank, exit_code_of(kind, getattr(ctx, "sig", None)) if kind != "term" else 143))
        out.block(tk, tail)
    txt = out.render(ctx.base)
    cmd = ("horovodrun -np %d -H %s python %s" % (ctx.world, ",".join("%s:%d" % (h, per) for h in ctx.nodes), "train_imagenet.py" if mx else "tensorflow2_keras_imagenet.py")) if gloo else \
        ("mpirun -np %d -H %s -bind-to none -map-by slot -x NCCL_DEBUG=INFO -x LD_LIBRARY_PATH -x PATH -mca pml ob1 -mca btl ^openib python %s" % (ctx.world, ",".join("%s:%d" % (h, per) for h in ctx.nodes), "train_imagenet.py" if mx else "tensorflow2_keras_imagenet.py"))
    ctx.files["horovod_%s.log" % ("mxnet" if mx else "tf")] = "$ " + cmd + "\n" + txt
    if not ctx.healthy:
        ev = host_events_for(ctx)
        if ev:
            add_host_files(ctx, ev, ip.node)
        ctx.notes.append("%s (%s via %s); initiator rank %d on %s; mpirun/horovodrun names rank %d first." % (c, "MXNet" if mx else "TF/Keras", "horovodrun gloo" if gloo else "mpirun", ip.rank, ctx.nodes[ip.node], fe.rank if fe else -1))
    else:
        ctx.notes.append("healthy Horovod run with NCCL INFO and TF-TRT/cuDNN warnings.")
    generic_truth(ctx, per)
    if not ctx.healthy and c in ("gpu_hardware", "nvlink") and ctx.mode == "hang":
        ctx.init_rank = None


# ============================================================================= MindSpore (msrun) on GPU
def lay_mindspore(ctx):
    rng = ctx.rng
    n = rng.choice([1, 2])
    per = 8
    ctx.setup_nodes(n, per, hostnames(rng, n))
    ctx.ips = ["10.%d.%d.%d" % (rng.randint(0, 255), rng.randint(0, 255), rng.randint(2, 254)) for _ in range(n)]
    ctx.mm_a = rng.choice([4096, 1048576]); ctx.mm_b = ctx.mm_a - 256
    ip = plan_common(ctx)
    c = ctx.cause if not ctx.healthy else None
    simulate(ctx, detect=(20, 60), timeout=None, launcher_kill=rng.uniform(2, 10), mismatch="hang", preempt="all")
    ver = rng.choice(["2.2.14", "2.3.1", "2.4.0"])

    def ms(lvl, mod, p, src, msg):
        return lambda dt: "[%s] %s(%d,%x,%s):%s.%03d.%03d [%s] %s" % (lvl, mod, p.pid, 0x7f0000000000 + (p.pid * 4099) % 0xffffffff, "python" if mod != "ME" else "MainProcess", dt.strftime("%Y-%m-%d-%H:%M:%S"), dt.microsecond // 1000, dt.microsecond % 1000, src, msg)

    def cstack(src):
        return ["", "----------------------------------------------------", "- C++ Call Stack: (For framework developers)", "----------------------------------------------------", src]

    logs = {}
    period = rng.uniform(0.2, 1.0)
    every = rng.choice([10, 100])
    for p in ctx.procs:
        lg = Log(ctx.skews[p.node])
        logs[p.rank] = lg
        t = rng.uniform(5, 20)
        B = [ms("WARNING", "ME", p, "mindspore/run_check/_check_version.py:%d" % rng.choice([102, 348]), "MindSpore version %s and cuda version %s does not match, CUDA version [['10.1', '11.1', '11.6']] are supported by MindSpore officially. Please refer to the installation guide for version matching information: https://www.mindspore.cn/install." % (ver, rng.choice(["12.2.140", "11.8.89"]))) if rng.random() < 0.6 else ms("WARNING", "ME", p, "mindspore/run_check/_check_version.py:%d" % 230, "Can not find the tbe operator implementation(need by mindspore-ascend). Please check whether the Environment Variable PYTHONPATH is set. For details, refer to the installation guidelines: https://www.mindspore.cn/install"),
             ms("INFO", "DISTRIBUTED", p, "mindspore/ccsrc/distributed/cluster/cluster_context.cc:%d" % rng.choice([185, 207]), "Cluster is successfully initialized."),
             ms("INFO", "DEVICE", p, "mindspore/ccsrc/plugin/device/gpu/hal/hardware/nvidia_collective_comm_lib.cc:%d" % 58, "Start initializing NCCL communicator for device %d" % p.local),
             ms("WARNING", "DEVICE", p, "mindspore/ccsrc/plugin/device/gpu/hal/device/gpu_memory_allocator.cc:%d" % 55, "GPU device %d: free memory %.1fG, total %.1fG, max_device_memory %sG" % (p.local, ctx.gpu[2] - 0.6, ctx.gpu[2], rng.choice(["1024", "%.0f" % (ctx.gpu[2] - 2)])))]
        if rng.random() < 0.5:
            B.append(ms("WARNING", "ME", p, "mindspore/common/_decorator.py:%d" % 38, "'TrainOneStepWithLossScaleCell' is deprecated from version 2.3 and will be removed in a future version, use 'mindspore.amp' instead."))
        lg.block(t, B)
        kind, te = p.fate
        t_last = te if te is not None else ctx.t_fault
        if ctx.healthy:
            t_last = ctx.t_fault
        if c in ("hang", "data_loader_stall", "collective_mismatch") or ctx.mode == "hang" or kind in ("abort", "term"):
            t_last = min(t_last, ctx.t_fault)
        pts, cut = progress_points(ctx, t + 50, t_last, period * every)
        for tt, k in pts:
            step = k * every
            tps = period * 1000 * (1.0 if not (c == "straggler" and p.node == ip.node) else 1.0)
            extra = ""
            if c == "straggler":
                extra = ", data_sink_wait: %.1f ms" % (tps * 0.3 if p is ip else 0.4)
            lg.add(tt, "epoch: %d step: %d, loss is %.6f, per step time: %.3f ms%s" % (step // 5000 + 1, step % 5000 or 5000, 5.0 * 0.9996 ** step + 1.2, tps, extra))
        if te is None:
            continue
        L = []
        if p is ip and c == "cuda_oom":
            L = [ms("ERROR", "DEVICE", p, "mindspore/ccsrc/runtime/device/memory_manager.cc:%d" % 193, "Device(id:%d) memory isn't enough and alloc failed, kernel name: Default/network-WithLossCell/_backbone-GPT/blocks-CellList/%d-Block/attention-Attention/MatMul-op%d, alloc size: %dB." % (p.local, rng.randint(0, 31), rng.randint(100, 9999), rng.choice([2147483648, 4294967296])))]
            L += py_tb([("train.py", rng.randint(100, 300), "<module>", "model.train(epochs, ds, callbacks=cbs, dataset_sink_mode=True)"),
                        ("/usr/local/lib/python3.9/site-packages/mindspore/train/model.py", rng.choice([1082, 1145]), "train", "self._train(epoch,")], "RuntimeError: Allocate memory failed") + cstack("mindspore/ccsrc/runtime/graph_scheduler/graph_scheduler.cc:%d Run" % rng.randint(500, 900))
        elif p is ip and c in ("illegal_memory_access", "gpu_hardware", "ecc_memory") and kind in ("err", "sig"):
            cn, txt, drv = CUDA_TXT({"illegal_memory_access": 700, "gpu_hardware": 719, "ecc_memory": 214}[c])
            L = [ms("ERROR", "DEVICE", p, "mindspore/ccsrc/plugin/device/gpu/hal/device/gpu_device_manager.cc:%d" % 111, "SyncStream failed, cudaStreamSynchronize error: %s" % txt)]
            L += py_tb([("train.py", rng.randint(100, 300), "<module>", "model.train(epochs, ds, callbacks=cbs, dataset_sink_mode=True)")], "RuntimeError: Sync stream failed:Default/network-WithLossCell/_backbone-GPT, %s" % txt) + cstack("mindspore/ccsrc/plugin/device/gpu/hal/hardware/gpu_device_context.cc:%d SyncStream" % rng.randint(600, 900))
        elif p is ip and c == "nvlink" and kind == "err":
            L = ["%s enqueue.cc:%d NCCL WARN Cuda failure 'uncorrectable NVLink error detected during the execution'" % (nccl_tag(ctx, p), 1187),
                 ms("ERROR", "DEVICE", p, "mindspore/ccsrc/plugin/device/gpu/kernel/nccl/nccl_collective_gpu_kernel.h:%d" % 163, "For 'AllReduce', call nccl AllReduce failed, error: unhandled cuda error")]
            L += py_tb([("train.py", rng.randint(100, 300), "<module>", "model.train(epochs, ds, callbacks=cbs, dataset_sink_mode=True)")], "RuntimeError: Launch kernel failed, name:Default/AllReduce-op%d" % rng.randint(100, 9999)) + cstack("mindspore/ccsrc/runtime/pynative/op_runner.cc:%d LaunchKernels" % 500)
        elif p is ip and c == "network":
            L = ["%s transport/net_ib.cc:%d NCCL WARN NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Send)" % (nccl_tag(ctx, p), 1699, ctx.ips[(p.node + 1) % n], rng.randint(30000, 60000)),
                 ms("ERROR", "DEVICE", p, "mindspore/ccsrc/plugin/device/gpu/kernel/nccl/nccl_collective_gpu_kernel.h:%d" % 163, "For 'AllReduce', call nccl AllReduce failed, error: remote process exited or there was a network error")]
        elif p is ip and c == "python_exception":
            e = rng.choice(USER_EXC)
            L = py_tb([("train.py", rng.randint(100, 300), "<module>", "model.train(epochs, ds, callbacks=cbs, dataset_sink_mode=False)"),
                       ("/usr/local/lib/python3.9/site-packages/mindspore/dataset/engine/datasets_user_defined.py", 110, "_cpp_sampler_fn", "val = dataset[i]"),
                       ("src/%s" % e[2].split("/")[-1], rng.randint(20, 150), e[3], e[4])], "%s: %s" % (e[0], e[1]))
        elif p is ip and c == "crash_signal":
            L = fatal_python(ctx.sig, [("/usr/local/lib/python3.9/site-packages/mindspore/common/api.py", 1650, "__call__"), ("train.py", rng.randint(100, 300), "<module>")], mods=False)
        elif kind == "abort":
            L = [ms("ERROR", "DISTRIBUTED", p, "mindspore/ccsrc/distributed/cluster/topology/compute_graph_node.cc:%d" % rng.choice([367, 403]), "The heartbeat with the meta server timed out or the meta server reported a node failure: Some nodes have exited abnormally [%d]. Please check the log of those nodes." % ip.rank) if rng.random() < 0.5 else
                 ms("ERROR", "DEVICE", p, "mindspore/ccsrc/plugin/device/gpu/kernel/nccl/nccl_collective_gpu_kernel.h:%d" % 163, "For 'AllReduce', call nccl AllReduce failed, error: remote process exited or there was a network error")]
            L += py_tb([("train.py", rng.randint(100, 300), "<module>", "model.train(epochs, ds, callbacks=cbs, dataset_sink_mode=True)")], "RuntimeError: The total number of timed out node is 1. Timed out node list is: [const vector]{%d}, worker %d is the first one timed out, please check its log." % (ip.rank, ip.rank) if rng.random() < 0.5 else "RuntimeError: Launch kernel failed, name:Default/AllReduce-op%d" % rng.randint(100, 9999))
        for k, ln in enumerate(L):
            lg.add(te + k * 1e-6, ln)
    if not ctx.healthy:
        if c in ("hang", "data_loader_stall"):
            if c == "data_loader_stall":
                for k in range(3):
                    logs[ip.rank].add(ctx.t_fault + 60 * (k + 1), ms("WARNING", "MD", ip, "mindspore/ccsrc/minddata/dataset/engine/datasetops/data_queue_op.cc:%d" % 903, "Bad performance attention, it takes more than 25 seconds to fetch a batch of data from dataset pipeline, which might result `GetNext` timeout problem. You may test dataset processing performance(with creating dataset iterator) and optimize it."))
                ctx.rank_evidence = True
            ctx.notes.append("rank %d stopped (%s); peers block in AllReduce; job killed." % (ip.rank, "dataset pipeline stuck" if c == "data_loader_stall" else "hang"))
        if c == "straggler":
            ctx.rank_evidence = True
            ctx.notes.append("rank %d shows large data_sink_wait per step; job cancelled for slowness." % ip.rank)
    # scheduler.log on node 0
    sch = Log(ctx.skews[0])
    sp = Proc(-1, 0, -1, rng.randint(1000, 60000), 0)
    sch.add(3, ms("INFO", "DISTRIBUTED", sp, "mindspore/ccsrc/distributed/cluster/topology/meta_server_node.cc:%d" % 183, "The meta server node has been started successfully on %s:%d" % (ctx.ips[0], 8118)))
    sch.add(30, ms("INFO", "DISTRIBUTED", sp, "mindspore/ccsrc/distributed/cluster/topology/meta_server_node.cc:%d" % 455, "The cluster topology of all the %d nodes has been successfully constructed." % ctx.world))
    fe = first_exit(ctx)
    if not ctx.healthy and fe is not None and c not in ("preemption",):
        if ip.fate[0] in ("err", "sig", "kill9", "silent") and rng.random() < 0.8:
            sch.add(ip.fate[1] + rng.uniform(15, 40), ms("ERROR", "DISTRIBUTED", sp, "mindspore/ccsrc/distributed/cluster/topology/meta_server_node.cc:%d" % 621, "The node: %d is timed out. It may exit with exception, please check this node's log." % ip.rank))
            sch.add(ip.fate[1] + rng.uniform(40, 45), ms("ERROR", "DISTRIBUTED", sp, "mindspore/ccsrc/distributed/cluster/topology/meta_server_node.cc:%d" % 103, "There are 1 abnormal compute graph nodes."))
    ctx.files["msrun_log/scheduler.log" if n == 1 else "%s/msrun_log/scheduler.log" % ctx.nodes[0]] = sch.render(ctx.base)
    for p in ctx.procs:
        pre = "" if n == 1 else "%s/" % ctx.nodes[p.node]
        ctx.files["%smsrun_log/worker_%d.log" % (pre, p.rank)] = logs[p.rank].render(ctx.base)
    # msrun console
    con = Log(0)
    con.add(1, ms("INFO", "ME", sp, "mindspore/parallel/cluster/process_entity/_api.py:%d" % 224, "Start scheduler process, log file:./msrun_log/scheduler.log. Environment variable [RANK_ID] is not set, so scheduler process will not be launched." if False else "Start scheduler process, log file:./msrun_log/scheduler.log"))
    for p in ctx.procs:
        if p.node == 0:
            con.add(1.1 + p.local * 0.01, ms("INFO", "ME", sp, "mindspore/parallel/cluster/process_entity/_api.py:%d" % 240, "Start worker process with rank id:%d, log file:./msrun_log/worker_%d.log. Environment variable [RANK_ID=%d] is exported." % (p.rank, p.rank, p.rank)))
    if not ctx.healthy and fe is not None:
        loc = sorted([p for p in ctx.procs if p.node == 0 and p.fate[1] is not None], key=lambda p: (p.fate[0] == "term" and c != "preemption", p.fate[1]))
        if loc:
            q = loc[0]
            con.add(q.fate[1] + 1, ms("ERROR", "ME", sp, "mindspore/parallel/cluster/process_entity/_api.py:%d" % 312, "Worker process %d exit with exception. Error code: %d." % (q.pid, exit_code_of(q.fate[0], getattr(ctx, "sig", None)) if q.fate[0] not in ("sig", "kill9", "term") else -{"sig": getattr(ctx, "sig", 11), "kill9": 9, "term": 15}[q.fate[0]])))
            con.add(q.fate[1] + 1.2, ms("WARNING", "ME", sp, "mindspore/parallel/cluster/process_entity/_api.py:%d" % 320, "There's worker exits with exception, kill all other workers."))
            con.add(q.fate[1] + 3, ms("ERROR", "ME", sp, "mindspore/parallel/cluster/process_entity/_api.py:%d" % 332, "Scheduler process %d exit with exception." % sp.pid))
        if c == "preemption":
            con.add(fe.fate[1] - 0.5, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (rng.randint(10**5, 10**7), ctx.nodes[0], (ctx.base + _dt.timedelta(seconds=fe.fate[1])).strftime("%Y-%m-%dT%H:%M:%S")))
            ctx.notes.append("whole job hit the Slurm time limit; all workers got SIGTERM.")
    ctx.files["msrun_console.log"] = con.render(ctx.base)
    if not ctx.healthy:
        ev = host_events_for(ctx)
        if ev:
            add_host_files(ctx, ev, ip.node)
        if c not in ("preemption", "hang", "data_loader_stall", "straggler"):
            ctx.notes.append("%s on MindSpore rank %d (%s)." % (c, ip.rank, ctx.nodes[ip.node]))
    else:
        ctx.notes.append("healthy MindSpore GPU run with the version-mismatch and deprecation warnings.")
    generic_truth(ctx, per)
    if not ctx.healthy and c in ("gpu_hardware", "nvlink") and ctx.mode == "hang":
        ctx.init_rank = None


# ============================================================================= OneFlow (oneflow.distributed.launch)
def lay_oneflow(ctx):
    rng = ctx.rng
    n = rng.choice([1, 2])
    per = rng.choice([4, 8])
    ctx.setup_nodes(n, per, hostnames(rng, n))
    ctx.ips = ["10.%d.%d.%d" % (rng.randint(0, 255), rng.randint(0, 255), rng.randint(2, 254)) for _ in range(n)]
    ip = plan_common(ctx)
    c = ctx.cause if not ctx.healthy else None
    simulate(ctx, detect=(5, 60), timeout=None, launcher_kill=None, mismatch="hang", preempt="all")
    period = rng.uniform(0.2, 1.0)
    every = rng.choice([20, 100])
    fe = first_exit(ctx)
    for nidx in range(n):
        lg = Log(ctx.skews[nidx])
        lg.add(0, "*****************************************")
        lg.add(0.001, "Setting ONEFLOW_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ")
        lg.add(0.002, "*****************************************")
        for p in [q for q in ctx.procs if q.node == nidx]:
            t = rng.uniform(5, 15)
            if rng.random() < 0.5:
                lg.add(t, "/usr/local/lib/python3.8/dist-packages/oneflow/framework/tensor_str_util.py:%d: UserWarning: The given NumPy array is not writable, and OneFlow does not support non-writable tensors." % rng.randint(20, 90))
            lg.add(t + 1, gl("W", p.pid, "cuda_device.cpp:%d" % 118, "cuda_device %d: driver version 12020, runtime version %d" % (p.local, rng.choice([11080, 12010]))))
            kind, te = p.fate
            t_last = te if te is not None else ctx.t_fault
            if ctx.healthy:
                t_last = ctx.t_fault
            if c in ("hang", "data_loader_stall", "collective_mismatch") or ctx.mode == "hang" or kind in ("abort", "term"):
                t_last = min(t_last, ctx.t_fault)
            if p.local == 0:
                pts, cut = progress_points(ctx, t + 40, t_last, period * every, max_pts=35)
                for tt, k in pts:
                    step = k * every
                    extra = ""
                    if c == "straggler":
                        extra = " | slowest_rank %d wait %.1fms" % (ip.rank, period * 300)
                    lg.add(tt, "[rank:%d] iter %d, loss: %.5f, lr: %.2e, throughput: %.1f samples/s, latency: %.3f s%s" % (p.rank, step, 6.8 * 0.9996 ** step + 1.1, 1e-4, 32 * ctx.world / period, period, extra))
            if te is None:
                continue
            L = []
            if p is ip and c == "cuda_oom":
                L = py_tb([("train.py", rng.randint(100, 300), "<module>", "main(args)"), ("train.py", rng.randint(60, 100), "main", "loss.backward()"),
                           ("/usr/local/lib/python3.8/dist-packages/oneflow/framework/tensor.py", 41, "_backward", "flow.autograd.backward(self, gradient, retain_graph, create_graph)")],
                          "oneflow._oneflow_internal.exception.RuntimeError: Error: out of memory")
                L += ["  File \"oneflow/core/eager/op_call_instruction_type.cpp\", line %d, in Prepare" % rng.choice([62, 71]), "    AllocateOutputBlobsMemory(operand, device_ctx)",
                      "  File \"oneflow/core/vm/bin_allocator.h\", line %d, in Allocate" % rng.choice([392, 410]), "    AllocateBlockToExtendTotalMem(aligned_size)",
                      "Error Type: oneflow.ErrorProto.runtime_error"]
            elif p is ip and c in ("illegal_memory_access", "gpu_hardware", "ecc_memory") and kind in ("err", "sig"):
                code = {"illegal_memory_access": 700, "gpu_hardware": 719, "ecc_memory": 214}[c]
                cn, txt, drv = CUDA_TXT(code)
                L = [(lambda dt, p=p, txt=txt, code=code: "F%s %s %d cuda_stream.cpp:%d] Check failed: (cudaStreamSynchronize(cuda_stream_)) == (cudaSuccess) (%d vs 0) %s" % (dt.strftime("%Y%m%d"), dt.strftime("%H:%M:%S.") + us(dt), p.pid, rng.choice([139, 158]), code, txt)),
                     "*** Check failure stack trace: ***", "    @     0x7f%010x  google::LogMessage::Fail()" % rng.getrandbits(36), "    @     0x7f%010x  google::LogMessage::SendToLog()" % rng.getrandbits(36),
                     "    @     0x7f%010x  oneflow::ep::CudaStream::Sync()" % rng.getrandbits(36), "    @     0x7f%010x  oneflow::vm::ThreadCtx::Loop()" % rng.getrandbits(36)]
                p.fate = ("sig", te)
                ctx.sig = 6
            elif p is ip and c == "nvlink" and kind == "err":
                L = ["%s enqueue.cc:%d NCCL WARN Cuda failure 'uncorrectable NVLink error detected during the execution'" % (nccl_tag(ctx, p), 1187),
                     (lambda dt, p=p: "F%s %s %d nccl_util.h:%d] Check failed: (ncclAllReduce(...)) == (ncclSuccess) (1 vs 0) unhandled cuda error" % (dt.strftime("%Y%m%d"), dt.strftime("%H:%M:%S.") + us(dt), p.pid, 47)), "*** Check failure stack trace: ***"]
                p.fate = ("sig", te)
                ctx.sig = 6
            elif p is ip and c == "network":
                L = ["%s transport/net_ib.cc:%d NCCL WARN NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Send)" % (nccl_tag(ctx, p), 1699, ctx.ips[(p.node + 1) % n], rng.randint(30000, 60000)),
                     (lambda dt, p=p: "F%s %s %d nccl_util.h:%d] Check failed: (ncclGroupEnd()) == (ncclSuccess) (6 vs 0) remote process exited or there was a network error" % (dt.strftime("%Y%m%d"), dt.strftime("%H:%M:%S.") + us(dt), p.pid, 47)), "*** Check failure stack trace: ***"]
                p.fate = ("sig", te)
                ctx.sig = 6
            elif p is ip and c == "python_exception":
                e = rng.choice(USER_EXC)
                L = py_tb([("train.py", rng.randint(100, 300), "<module>", "main(args)"), ("libai/data/%s" % e[2].split("/")[-1], rng.randint(20, 150), e[3], e[4])], "%s: %s" % (e[0], e[1]))
            elif p is ip and c == "crash_signal":
                L = ["*** Aborted at %d (unix time) try \"date -d @%d\" if you are using GNU date ***" % (1700000000 + int(te), 1700000000 + int(te)),
                     "PC: @                0x0 (unknown)",
                     "*** %s (@0x%x) received by PID %d (TID 0x7f%010x) from PID %d; stack trace: ***" % (SIGNAME[ctx.sig], rng.getrandbits(16) if ctx.sig != 6 else p.pid, p.pid, rng.getrandbits(36), 0 if ctx.sig != 6 else p.pid),
                     "    @     0x7f%010x (unknown)" % rng.getrandbits(36), "    @     0x7f%010x oneflow::one::ConsistentToConsistentOpExpr::Apply()" % rng.getrandbits(36)]
            elif kind == "abort":
                L = ["%s misc/socket.cc:%d NCCL WARN socketProgress: Connection closed by remote peer %s<%d>" % (nccl_tag(ctx, p), 538, ctx.ips[ip.node], rng.randint(30000, 60000)) if p.node != ip.node else "%s NCCL INFO [Service thread] Connection closed by localRank %d" % (nccl_tag(ctx, p), ip.local),
                     (lambda dt, p=p: "F%s %s %d nccl_util.h:%d] Check failed: (ncclGroupEnd()) == (ncclSuccess) (6 vs 0) remote process exited or there was a network error" % (dt.strftime("%Y%m%d"), dt.strftime("%H:%M:%S.") + us(dt), p.pid, 47)), "*** Check failure stack trace: ***"]
            lg.block(te, L)
        # launcher end: old torch-style launch waits processes in local order
        if not ctx.healthy:
            local = [q for q in ctx.procs if q.node == nidx]
            bad = [q for q in local if q.fate[1] is not None and q.fate[0] != "ok"]
            if bad:
                last = max(q.fate[1] for q in local if q.fate[1] is not None)
                q = local[0] if local[0].fate[0] != "ok" else bad[0]
                # wait() in order: the first local process in index order that failed is reported
                q = sorted(bad, key=lambda x: x.local)[0]
                rc = exit_code_of(q.fate[0], getattr(ctx, "sig", None))
                cmdl = "['/usr/bin/python3', '-u', 'train.py', '--config', 'configs/bert_large_pretrain.py']"
                L = py_tb([("/usr/lib/python3.8/runpy.py", 194, "_run_module_as_main", "return _run_code(code, main_globals, None,"),
                           ("/usr/local/lib/python3.8/dist-packages/oneflow/distributed/launch.py", 231, "<module>", "main()"),
                           ("/usr/local/lib/python3.8/dist-packages/oneflow/distributed/launch.py", 225, "main", "raise subprocess.CalledProcessError(")],
                          "subprocess.CalledProcessError: Command '%s' %s." % (cmdl, ("returned non-zero exit status %d" % rc) if q.fate[0] not in ("sig", "kill9", "term") else "died with <Signals.%s: %d>" % ({"sig": SIGNAME.get(getattr(ctx, "sig", 6)), "kill9": "SIGKILL", "term": "SIGTERM"}[q.fate[0]], {"sig": getattr(ctx, "sig", 6), "kill9": 9, "term": 15}[q.fate[0]])))
                lg.block(last + 1, ["Killing subprocess %d" % x.pid for x in local if x is not q and rng.random() < 0.5] + L)
        ctx.files["oneflow_launch_%s.log" % ctx.nodes[nidx] if n > 1 else "oneflow_launch.log"] = lg.render(ctx.base)
    if not ctx.healthy:
        ev = host_events_for(ctx)
        if ev:
            add_host_files(ctx, ev, ip.node)
        if c == "data_loader_stall":
            ctx.node_evidence = ev is not None
            ctx.notes.append("a rank on %s stalled reading data from NFS (kernel hung-task/NFS messages); others blocked; job killed." % ctx.nodes[ip.node])
        elif c == "hang":
            ctx.notes.append("one rank stopped; nothing in logs identifies it; job killed by user.")
        elif c == "straggler":
            ctx.rank_evidence = True
            ctx.notes.append("rank %d is reported as the slowest rank in every progress line; job cancelled." % ip.rank)
        elif c == "preemption":
            ctx.notes.append("job killed by scheduler; all ranks SIGTERM, launcher reports the lowest local index.")
        else:
            ctx.notes.append("%s on OneFlow rank %d (%s); launcher CalledProcessError names the lowest-index failed local process, not necessarily the initiator." % (c, ip.rank, ctx.nodes[ip.node]))
        if c == "host_oom_kill":
            ctx.oom_rank_visible = False  # dmesg pid not mapped to a rank by any log line
    else:
        ctx.notes.append("healthy OneFlow run.")
    generic_truth(ctx, per)
    if not ctx.healthy and c in ("gpu_hardware", "nvlink") and ctx.mode == "hang":
        ctx.init_rank = None
    if not ctx.healthy and c == "network":
        ctx.init_rank = ip.rank  # its own F check-failure with local NET/IB Send error
        ctx.init_rank = None if per > 1 else ip.rank


LAYOUT_FUNCS = {
    "tf_k8s": lay_tf_k8s,
    "jax_gke": lambda ctx: lay_jax(ctx, "gke"),
    "jax_slurm": lambda ctx: lay_jax(ctx, "slurm"),
    "paddle_launch": lay_paddle,
    "horovod_mpirun": lay_horovod,
    "mindspore_msrun": lay_mindspore,
    "oneflow_launch": lay_oneflow,
}



if __name__ == "__main__":
    main()
