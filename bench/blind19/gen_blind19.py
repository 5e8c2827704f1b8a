#!/usr/bin/env python3
"""gen_blind19.py - blind generator of synthetic multi-GPU training failure bundles.

Angle: distributed jobs whose training code is NOT plain torchrun/DDP:
  JAX multi-process on Slurm, TensorFlow MultiWorkerMirroredStrategy on Kubernetes,
  Horovod + TF/Keras under mpirun, Ray Train TorchTrainer (HF Accelerate / DeepSpeed inside),
  Ray Tune + Lightning on a Ray-on-Slurm cluster, and Lightning (SLURMEnvironment) + DeepSpeed.

Written without reading the diagnosis tool's code.  Standard library only, deterministic per seed.

    python3 gen_blind19.py --out DIR --n 60 --seed S
"""
import argparse
import datetime as dtm
import json
import os
import random
import shutil

NAME = "blind19"

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill", "crash_signal",
          "preemption", "hang", "data_loader_stall", "collective_mismatch", "straggler",
          "unknown"]

LAYOUTS = ["jax-slurm", "tf-mwms-k8s", "horovod-mpirun", "ray-train-torch",
           "ray-slurm-lightning", "lightning-slurm"]

DRAIN_CAUSES = ("gpu_hardware", "ecc_memory", "nvlink")

# ----------------------------------------------------------------------------------------
# small helpers
# ----------------------------------------------------------------------------------------

def td(**kw):
    return dtm.timedelta(**kw)


def us(t):
    return "%06d" % t.microsecond


def ms(t):
    return "%03d" % (t.microsecond // 1000)


def f_glog(t, sev, tid, src):
    """absl / glog style prefix: E1206 10:21:33.123456  140231 file.cc:123] """
    return "%s%s %s.%s %7d %s] " % (sev, t.strftime("%m%d"), t.strftime("%H:%M:%S"), us(t), tid, src)


def f_tf(t, sev, src):
    """TF / old-XLA style prefix: 2023-12-06 10:21:33.123456: E tensorflow/...cc:123] """
    return "%s.%s: %s %s] " % (t.strftime("%Y-%m-%d %H:%M:%S"), us(t), sev, src)


def f_ray(t, lvl, src):
    return "%s,%s\t%s %s -- " % (t.strftime("%Y-%m-%d %H:%M:%S"), ms(t), lvl, src)


def f_dmesg_T(t):
    return "[%s %s %2d %s] " % (t.strftime("%a"), t.strftime("%b"), t.day, t.strftime("%H:%M:%S %Y"))


def f_dmesg_raw(up):
    s = int(up)
    u = int(round((up - s) * 1e6)) % 1000000
    return "[%5d.%06d] " % (s, u)


def f_syslog(t, host):
    return "%s %2d %s %s " % (t.strftime("%b"), t.day, t.strftime("%H:%M:%S"), host)


def f_journal(t, host):
    return "%s %s " % (t.strftime("%b %d %H:%M:%S"), host)


def f_slurm(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S")


def f_ds(t):
    # DeepSpeed / python logging with milliseconds
    return "%s,%s" % (t.strftime("%Y-%m-%d %H:%M:%S"), ms(t))


def hms(sec):
    sec = int(sec)
    return "%02d:%02d:%02d" % (sec // 3600, (sec % 3600) // 60, sec % 60)


def elapsed_slurm(sec):
    sec = int(sec)
    d = sec // 86400
    rest = hms(sec % 86400)
    return ("%d-%s" % (d, rest)) if d else rest


def ranges(nums):
    """[0,1,2,4] -> '0-2,4'"""
    nums = sorted(nums)
    out = []
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        out.append(str(nums[i]) if i == j else "%d-%d" % (nums[i], nums[j]))
        i = j + 1
    return ",".join(out)


def hostlist(hosts):
    """compress ['gpu-a100-012','gpu-a100-013'] -> 'gpu-a100-[012-013]' (single prefix only)"""
    if len(hosts) == 1:
        return hosts[0]
    pre = hosts[0].rstrip("0123456789")
    if not all(h.startswith(pre) and h[len(pre):].isdigit() for h in hosts):
        return ",".join(hosts)
    width = len(hosts[0]) - len(pre)
    nums = sorted(int(h[len(pre):]) for h in hosts)
    parts = []
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        if i == j:
            parts.append("%0*d" % (width, nums[i]))
        else:
            parts.append("%0*d-%0*d" % (width, nums[i], width, nums[j]))
        i = j + 1
    return "%s[%s]" % (pre, ",".join(parts))


def hexs(r, n):
    return "".join(r.choice("0123456789abcdef") for _ in range(n))


def alnum(r, n):
    return "".join(r.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(n))


def pick_world(r, choices, weights):
    return r.choices(choices, weights=weights)[0]


def sample_ranks(r, world, must, k):
    """sorted sample of ranks including `must` members"""
    keep = []
    for m in must:
        if m is not None and m not in keep and 0 <= m < world:
            keep.append(m)
    pool = [x for x in range(world) if x not in keep]
    r.shuffle(pool)
    keep += pool[:max(0, k - len(keep))]
    return sorted(keep)


PCI_BUS = ["0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0", "0000:5d:00.0",
           "0000:9a:00.0", "0000:ab:00.0", "0000:ba:00.0", "0000:db:00.0"]
PCI_BUS_4 = ["0000:03:00.0", "0000:41:00.0", "0000:82:00.0", "0000:c1:00.0"]


def pci_of(local, gpn):
    return (PCI_BUS_4 if gpn == 4 else PCI_BUS)[local % (4 if gpn == 4 else 8)]


def pci_short(p):
    # 0000:9a:00.0 -> PCI:0000:9a:00
    return "PCI:" + p[:-2]


GPU_MODELS = [
    # name, mem MiB, cc, driver
    ("NVIDIA A100-SXM4-80GB", 81920, "8.0", "535.129.03"),
    ("NVIDIA A100-SXM4-40GB", 40960, "8.0", "525.105.17"),
    ("NVIDIA H100 80GB HBM3", 81559, "9.0", "550.54.15"),
    ("NVIDIA H100 80GB HBM3", 81559, "9.0", "535.161.08"),
    ("NVIDIA H200", 143771, "9.0", "560.35.03"),
]


class Ev(object):
    __slots__ = ("t", "seq", "src", "text")

    def __init__(self, t, seq, src, text):
        self.t = t
        self.seq = seq
        self.src = src
        self.text = text


class Stream(object):
    """collects (time, source, multi-line text) and renders them ordered"""

    def __init__(self):
        self.evs = []
        self.n = 0

    def add(self, t, src, text):
        self.n += 1
        self.evs.append(Ev(t, self.n, src, text))

    def sorted(self):
        return sorted(self.evs, key=lambda e: (e.t, e.seq))


# ----------------------------------------------------------------------------------------
# the run object
# ----------------------------------------------------------------------------------------

RELEASES = {
    # first month a version was available (used to avoid anachronistic dates)
    "jax": {"0.4.13": (2023, 6), "0.4.20": (2023, 11), "0.4.23": (2023, 12), "0.4.26": (2024, 4), "0.4.30": (2024, 6),
            "0.4.33": (2024, 9), "0.4.35": (2024, 10), "0.4.38": (2024, 12), "0.5.3": (2025, 3), "0.6.2": (2025, 6)},
    "tf": {"2.12.0": (2023, 3), "2.13.1": (2023, 8), "2.14.1": (2023, 11), "2.15.1": (2024, 3), "2.16.1": (2024, 3), "2.17.0": (2024, 7)},
    "torch": {"2.1.2": (2023, 12), "2.2.2": (2024, 3), "2.3.1": (2024, 6), "2.4.1": (2024, 9), "2.5.1": (2024, 11),
              "2.6.0": (2025, 1), "2.7.1": (2025, 6), "2.8.0": (2025, 8)},
    "ray": {"2.7.1": (2023, 10), "2.9.3": (2024, 2), "2.10.0": (2024, 3), "2.20.0": (2024, 5), "2.31.0": (2024, 6),
            "2.35.0": (2024, 8), "2.40.0": (2024, 11)},
}
LAST_DAY = dtm.datetime(2025, 9, 28)


def bump(run, kind, ver):
    """move the run's start after the release of `ver` (keeps determinism: uses run.r)"""
    y, m = RELEASES[kind][ver]
    first = dtm.datetime(y, m, 1)
    if run.t0 < first:
        span = max(1, (LAST_DAY - first).days)
        run.t0 = first + td(days=run.r.randint(0, span), hours=run.t0.hour, minutes=run.t0.minute,
                            seconds=run.t0.second, microseconds=run.t0.microsecond)
    return run.t0


class Run(object):
    def __init__(self, seed, idx, layout, cause):
        self.seed = seed
        self.idx = idx
        self.layout = layout
        self.cause = cause
        self.healthy = cause is None
        self.r = random.Random("%s|%s|%d|%s|%s" % (NAME, seed, idx, layout, cause))
        self.files = {}
        self.order = []
        self.rank = None
        self.node = None
        self.aliases = []
        self.rank_inferable = False
        self.drain = False
        self.notes = []
        # a start time somewhere in 2023-2025
        base = dtm.datetime(2023, 2, 1) + td(days=self.r.randint(0, 960))
        self.t0 = base.replace(hour=self.r.randint(0, 23), minute=self.r.randint(0, 59),
                               second=self.r.randint(0, 59), microsecond=self.r.randint(0, 999999))

    def f(self, name):
        if name not in self.files:
            self.files[name] = []
            self.order.append(name)
        return self.files[name]

    def put(self, name, lines):
        self.f(name).extend(lines)

    def note(self, s):
        self.notes.append(s)

    def truth(self):
        return {
            "cause": self.cause,
            "healthy": self.healthy,
            "rank": self.rank,
            "node": self.node,
            "drain": bool(self.drain),
            "rank_inferable": bool(self.rank_inferable),
            "node_aliases": [a for a in self.aliases if a and a != self.node],
            "layout": self.layout,
            "notes": "; ".join(self.notes),
        }


# ----------------------------------------------------------------------------------------
# kernel / node-level text shared by all layouts
# ----------------------------------------------------------------------------------------

def xid_text(r, xid, pci, pid, proc="python3", gpu_idx=0, new_drv=True):
    """lines (without kernel prefix) for one Xid event"""
    p = pci_short(pci)
    who = ("pid=%d, name=%s" % (pid, proc)) if pid else "pid='<unknown>', name=<unknown>"
    L = []
    if xid == 79:
        L.append("NVRM: GPU at %s: GPU-%s-%s-%s-%s-%s" % (p, hexs(r, 8), hexs(r, 4), hexs(r, 4), hexs(r, 4), hexs(r, 12)))
        L.append("NVRM: GPU Board Serial Number: 1%012d" % r.randint(0, 10 ** 12 - 1))
        L.append("NVRM: Xid (%s): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." % p)
        L.append("NVRM: GPU %s: GPU has fallen off the bus." % pci)
        L.append("NVRM: A GPU crash dump has been created. If possible, please run")
        L.append("NVRM: nvidia-bug-report.sh as root to collect this data before")
        L.append("NVRM: the NVIDIA kernel module is unloaded.")
    elif xid == 119:
        fn = r.choice([76, 103, 10])
        fname = {76: "GSP_RM_CONTROL", 103: "GSP_RM_ALLOC", 10: "FREE"}[fn]
        L.append("NVRM: Xid (%s): 119, %s, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function %d (%s) (0x%s 0x%s)." % (p, who, gpu_idx, fn, fname, hexs(r, 8), r.choice(["4", "8", "58c"])))
        L.append("NVRM: GPU%d GSP RPC buffer contains function %d (%s) and data 0x00000000%s 0x0000000000000004." % (gpu_idx, fn, fname, hexs(r, 8)))
        L.append("NVRM: GPU%d RPC history (CPU -> GSP):" % gpu_idx)
        L.append("NVRM:     entry function                   data0              data1              ts_start           ts_end             duration actively_polling")
        L.append("NVRM:      0    %-3d %-18s  0x00000000%s 0x0000000000000004 0x000%s 0x0000000000000000          y" % (fn, fname, hexs(r, 8), hexs(r, 13)))
        L.append("NVRM: Xid (%s): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)" % p)
    elif xid == 48:
        L.append("NVRM: Xid (%s): 48, %s, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at physAddr 0x%s partition %d, subpartition %d." % (p, who, hexs(r, 9), r.randint(0, 11), r.randint(0, 1)))
        L.append("NVRM: Xid (%s): 63, %s, Row Remapper: New row (0x%s) marked for remapping, reset gpu to activate." % (p, who, "0000000" + hexs(r, 9)))
    elif xid == 94:
        L.append("NVRM: Xid (%s): 94, %s, Contained: SM (0x1). RST: No, D-RST: No" % (p, who))
        L.append("NVRM: Xid (%s): 63, %s, Row Remapper: New row (0x%s) marked for remapping, reset gpu to activate." % (p, who, "0000000" + hexs(r, 9)))
    elif xid == 95:
        L.append("NVRM: Xid (%s): 95, %s, Uncontained: LTC TAG (0x%d,0x0). RST: Yes, D-RST: No" % (p, who, r.randint(1, 7)))
        L.append("NVRM: Xid (%s): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)" % p)
    elif xid == 64:
        L.append("NVRM: Xid (%s): 64, %s, Row Remapper Error: (0x%s) - All reserved rows for bank are remapped" % (p, who, "0000000" + hexs(r, 9)))
    elif xid == 74:
        link = r.randint(0, 17)
        L.append("NVRM: Xid (%s): 74, %s, NVLink: fatal error detected on link %d(0x0, 0x0, 0x%s, 0x0, 0x0, 0x0, 0x0)" % (p, who, link, r.choice(["10000", "20000", "8000", "100000"])))
        L.append("NVRM: Xid (%s): 74, %s, NVLink: fatal error detected on link %d(0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x%s)" % (p, who, (link + 1) % 18, r.choice(["1", "4", "10"])))
    elif xid == 13:
        L.append("NVRM: Xid (%s): 13, %s, Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (p, who, r.randint(0, 7), r.randint(0, 8), r.randint(0, 1)))
        L.append("NVRM: Xid (%s): 13, %s, Graphics SM Global Exception on (GPC %d, TPC %d, SM %d): Multiple Warp Errors" % (p, who, r.randint(0, 7), r.randint(0, 8), r.randint(0, 1)))
        L.append("NVRM: Xid (%s): 13, %s, Graphics Exception: ESR 0x5%s=0x%s 0x5%s=0x20 0x5%s=0x%s 0x5%s=0x1174" % (p, who, hexs(r, 5), hexs(r, 7), hexs(r, 5), hexs(r, 5), hexs(r, 7), hexs(r, 5)))
    elif xid == 31:
        L.append("NVRM: Xid (%s): 31, %s, Ch 000000%02x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_%d faulted @ 0x7f%s_%s000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (p, who, r.randint(8, 40), r.randint(0, 15), hexs(r, 2), hexs(r, 5)))
    elif xid == 43:
        L.append("NVRM: Xid (%s): 43, %s, Ch 000000%02x" % (p, who, r.randint(8, 40)))
    elif xid == 45:
        L.append("NVRM: Xid (%s): 45, %s, Ch 000000%02x" % (p, who, r.randint(8, 40)))
    return L


def oom_kill_text(r, pid, comm, cgroup=True, cpu=None, kernel="5.15.0-105-generic", uid=None):
    cpu = cpu if cpu is not None else r.randint(0, 95)
    uid = uid if uid is not None else r.randint(1000, 60000)
    anon = r.randint(60, 480) * 1024 * 1024 + r.randint(0, 1023)
    L = [
        "%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0" % (r.choice(["pt_data_worker", comm, "python3"])),
        "CPU: %d PID: %d Comm: %s Tainted: P           OE     %s #%d-Ubuntu" % (cpu, pid + r.randint(1, 400), comm, kernel, r.randint(90, 120)),
        "Hardware name: %s" % r.choice(["Supermicro SYS-821GE-TNHR/X13DEG-OAD, BIOS 2.1 04/27/2023",
                                         "NVIDIA DGXH100/DGXH100, BIOS 1.1.3 08/16/2023",
                                         "Dell Inc. PowerEdge XE9680/0WYKGX, BIOS 1.4.4 02/26/2024",
                                         "Amazon EC2 p4d.24xlarge/, BIOS 1.0 10/16/2017"]),
        "Call Trace:",
        " <TASK>",
        " dump_stack_lvl+0x4a/0x63",
        " dump_header+0x4a/0x1f4",
        " oom_kill_process.cold+0xb/0x10",
        " out_of_memory+0x1ed/0x530",
        " mem_cgroup_out_of_memory+0x13f/0x160" if cgroup else " __alloc_pages_slowpath.constprop.0+0xc8a/0xd80",
        " </TASK>",
    ]
    if cgroup:
        L.append("memory: usage %dkB, limit %dkB, failcnt %d" % (anon + 512000, anon + 512000, r.randint(1, 900)))
        L.append("Tasks state (memory values in pages):")
        L.append("oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=step_0,mems_allowed=0-1,oom_memcg=/slurm/uid_%d/job_%d/step_0,task_memcg=/slurm/uid_%d/job_%d/step_0/task_0,task=%s,pid=%d,uid=%d" % (uid, r.randint(10 ** 6, 9 * 10 ** 6), uid, r.randint(10 ** 6, 9 * 10 ** 6), comm, pid, uid))
        L.append("Memory cgroup out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (pid, comm, anon * 3, anon, r.randint(100000, 900000), r.randint(0, 90000), uid, r.randint(100000, 400000)))
    else:
        L.append("Mem-Info:")
        L.append("oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/user.slice/user-%d.slice/session-%d.scope,task=%s,pid=%d,uid=%d" % (uid, r.randint(2, 900), comm, pid, uid))
        L.append("Out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (pid, comm, anon * 3, anon, r.randint(100000, 900000), r.randint(0, 90000), uid, r.randint(100000, 400000)))
    L.append("oom_reaper: reaped process %d (%s), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB" % (pid, comm))
    return L


def nic_down_text(r, style):
    """kernel lines for a NIC / link failure; returns (lines, hca_name, netdev)"""
    idx = r.randint(0, 7)
    hca = "mlx5_%d" % idx
    pci = r.choice(["0000:0c:00.0", "0000:1f:00.0", "0000:40:00.0", "0000:4d:00.0", "0000:8c:00.0", "0000:ca:00.0", "0000:da:00.0"])
    if style == "ib":
        L = ["mlx5_core %s: mlx5_port_module_event:1158:(pid 0): Port module event[error]: module 0, Cable error, Bad or shorted cable/module" % pci,
             "mlx5_core %s: mlx5_port_module_event:1153:(pid 0): Port module event: module 0, Cable unplugged" % pci]
        netdev = "ibp%ss0" % int(pci[5:7], 16)
    else:
        netdev = "enp%ds0f0np0" % int(pci[5:7], 16)
        L = ["mlx5_core %s %s: Link down" % (pci, netdev),
             "mlx5_core %s %s: Link up" % (pci, netdev),
             "mlx5_core %s %s: Link down" % (pci, netdev)]
    return L, hca, netdev, pci


def nfs_stall_text(r, server):
    if r.random() < 0.5:
        return ["nfs: server %s not responding, still trying" % server,
                "nfs: server %s not responding, still trying" % server]
    fs = r.choice(["scratch", "lustre1", "proj"])
    ost = "%s-OST%04x" % (fs, r.randint(0, 60))
    nid = "10.%d.%d.%d@o2ib" % (r.randint(10, 40), r.randint(0, 9), r.randint(2, 200))
    return ["LustreError: 11-0: %s-osc-ffff%s: operation ost_read to node %s failed: rc = -110" % (ost, hexs(r, 12), nid),
            "Lustre: %s-osc-ffff%s: Connection to %s (at %s) was lost; in progress operations using this service will wait for recovery to complete" % (ost, hexs(r, 12), ost, nid)]


def thermal_text(r):
    cpu = r.randint(0, 63)
    return ["mce: CPU%d: Package temperature above threshold, cpu clock throttled (total events = %d)" % (cpu, r.randint(1000, 90000)),
            "mce: CPU%d: Core temperature above threshold, cpu clock throttled (total events = %d)" % (cpu + 1, r.randint(1000, 90000))]


def nvsmi_perf(r, gpus, slow_idx, model):
    """nvidia-smi -q -d PERFORMANCE excerpt"""
    L = ["", "==============NVSMI LOG==============", "",
         "Timestamp                                 : %s" % "Mon Jan  1 00:00:00 2024",
         "Driver Version                            : %s" % model[3],
         "CUDA Version                              : 12.%d" % (2 if model[3] < "540" else 4), "",
         "Attached GPUs                             : %d" % gpus]
    for i in range(gpus):
        slow = (i == slow_idx)
        L += ["GPU %s" % ("0000" + pci_of(i, gpus)[4:]).upper().replace("0000:", "00000000:", 1),
              "    Performance State                     : P0",
              "    Clocks Event Reasons",
              "        Idle                              : Not Active",
              "        Applications Clocks Setting       : Not Active",
              "        SW Power Cap                      : %s" % ("Active" if slow else "Not Active"),
              "        HW Slowdown                       : %s" % ("Active" if slow else "Not Active"),
              "            HW Thermal Slowdown           : %s" % ("Active" if slow else "Not Active"),
              "            HW Power Brake Slowdown       : Not Active",
              "        Sync Boost                        : Not Active",
              "        SW Thermal Slowdown               : %s" % ("Active" if slow else "Not Active"),
              "        Display Clock Setting             : Not Active",
              ""]
    return L


def nvsmi_ecc(r, gpu_line, dbe):
    return ["    ECC Errors",
            "        Volatile",
            "            SRAM Correctable              : 0",
            "            SRAM Uncorrectable Parity     : 0",
            "            SRAM Uncorrectable SEC-DED    : 0",
            "            DRAM Correctable              : %d" % r.randint(0, 40),
            "            DRAM Uncorrectable            : %d" % dbe,
            "        Aggregate",
            "            SRAM Correctable              : 0",
            "            SRAM Uncorrectable Parity     : 0",
            "            SRAM Uncorrectable SEC-DED    : 0",
            "            DRAM Correctable              : %d" % r.randint(40, 400),
            "            DRAM Uncorrectable            : %d" % (dbe + r.randint(0, 3)),
            "    Remapped Rows",
            "        Correctable Error                 : 0",
            "        Uncorrectable Error               : %d" % (dbe + 1),
            "        Pending                           : Yes",
            "        Remapping Failure Occurred        : No"]


def nvsmi_table(r, model, gpus, bad=None, bad_kind=None, procs=None, t=None):
    """plain `nvidia-smi` table.  bad_kind: 'lost' prints the ERR row"""
    name, mem, cc, drv = model
    cuda = "12.2" if drv < "540" else "12.4"
    L = []
    if t is not None:
        L.append(t.strftime("%a %b %d %H:%M:%S %Y"))
    if bad_kind == "gone":
        return L + ["Unable to determine the device handle for GPU%s: Unknown Error" % pci_of(bad, gpus).upper(),
                    "No devices were found" if gpus == 1 else "Unable to determine the device handle for GPU%s: Unknown Error" % pci_of(bad, gpus).upper()][:1]
    L += ["+---------------------------------------------------------------------------------------+",
          "| NVIDIA-SMI %-20s Driver Version: %-13s CUDA Version: %-9s|" % (drv, drv, cuda),
          "|-----------------------------------------+----------------------+----------------------+",
          "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |",
          "| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |",
          "|                                         |                      |               MIG M. |",
          "|=========================================+======================+======================|"]
    for i in range(gpus):
        bus = ("0000" + pci_of(i, gpus)[4:]).upper().replace("0000:", "00000000:", 1)
        short = name.replace("NVIDIA ", "")[:20]
        ecc = "0"
        if bad == i and bad_kind == "ecc":
            ecc = str(r.randint(1, 6))
        if bad == i and bad_kind == "err":
            L += ["|  %d  ERR!                           On  | %s     Off |                 ERR! |" % (i, bus),
                  "|ERR!  ERR! ERR!              ERR! / ERR! |      0MiB / %6dMiB |    ERR!      Default |" % mem,
                  "|                                         |                      |                 ERR! |",
                  "+-----------------------------------------+----------------------+----------------------+"]
            continue
        used = r.randint(int(mem * 0.6), int(mem * 0.97)) if procs else r.randint(0, 6)
        L += ["|  %d  %-20s           On  | %s     Off | %20s |" % (i, short, bus, ecc),
              "| N/A   %2dC    P0            %3dW / %3dW |  %6dMiB / %6dMiB |    %3d%%      Default |" % (r.randint(31, 48), r.randint(90, 690), 700 if "H" in short else 400, used, mem, r.randint(0, 100) if procs else 0),
              "|                                         |                      |             Disabled |",
              "+-----------------------------------------+----------------------+----------------------+"]
    return L


def decoy_xid_block(r, t_job, host_fmt):
    """an old benign Xid (days before the job) - returns list of (t, text)"""
    t = t_job - td(days=r.randint(1, 9), hours=r.randint(0, 20), minutes=r.randint(0, 59))
    xid = r.choice([13, 43, 31, 45])
    pid = r.randint(3000, 900000)
    return [(t + td(seconds=i * 0.001), ln) for i, ln in enumerate(xid_text(r, xid, r.choice(PCI_BUS), pid))], xid


def kernel_file(r, host, style, events, boot_t):
    """render kernel events [(t, text)] for one host; style in dmesgT/raw/syslog/journal"""
    out = []
    for t, text in sorted(events, key=lambda x: x[0]):
        if style == "dmesgT":
            out.append(f_dmesg_T(t) + text)
        elif style == "raw":
            out.append(f_dmesg_raw((t - boot_t).total_seconds()) + text)
        elif style == "syslog":
            out.append(f_syslog(t, host) + "kernel: " + f_dmesg_raw((t - boot_t).total_seconds()) + text)
        else:
            out.append(f_journal(t, host) + "kernel: " + text)
    return out


def kernel_noise(r, t0, t1, n):
    """benign kernel chatter"""
    msgs = ["IPv6: ADDRCONF(NETDEV_CHANGE): veth%s: link becomes ready" % hexs(r, 7),
            "docker0: port 1(veth%s) entered forwarding state" % hexs(r, 7),
            "audit: type=1400 audit(%d.%03d:%d): apparmor=\"DENIED\" operation=\"open\" profile=\"snap.lxd.lxc\" name=\"/proc/%d/mounts\" pid=%d comm=\"lxc\" requested_mask=\"r\" denied_mask=\"r\" fsuid=0 ouid=0" % (r.randint(1.6e9, 1.75e9), r.randint(0, 999), r.randint(100, 999), r.randint(1000, 99999), r.randint(1000, 99999)),
            "nvidia-nvswitch2: open (major=508, minor=2)",
            "NFSD: Using nfsdcld client tracking operations.",
            "perf: interrupt took too long (%d > %d), lowering kernel.perf_event_max_sample_rate to %d" % (r.randint(3000, 9000), r.randint(2500, 3000), r.randint(20000, 60000)),
            "nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid context, skipping further processing",
            "EXT4-fs (nvme0n1p1): mounted filesystem with ordered data mode. Opts: (null). Quota mode: none.",
            "loop3: detected capacity change from 0 to 8",
            "TCP: request_sock_TCP: Possible SYN flooding on port 8476. Sending cookies.  Check SNMP counters.",
            "mlx5_core 0000:%s:00.0: mlx5_pcie_event:299:(pid %d): PCIe slot advertised sufficient power (75W)." % (hexs(r, 2), r.randint(300, 9000)),
            ]
    evs = []
    span = max(1.0, (t1 - t0).total_seconds())
    for _ in range(n):
        t = t0 + td(seconds=r.uniform(0, span))
        m = r.choice(msgs)
        if m.startswith("audit:"):
            ep = int((t - dtm.datetime(1970, 1, 1)).total_seconds())
            m = "audit: type=1400 audit(%d.%03d:%d):" % (ep, r.randint(0, 999), r.randint(100, 999)) + m.split("):", 1)[1]
        evs.append((t, m))
    return evs


# ----------------------------------------------------------------------------------------
# NCCL text shared by several stacks
# ----------------------------------------------------------------------------------------

def nccl_ib_completion(r, ncclv, peer_ip, my_ip, hca, status=12):
    port = r.randint(32768, 60999)
    if ncclv < (2, 19):
        return "NET/IB : Got completion from peer %s<%d> with error %d, opcode %d, len %d, vendor err %d" % (peer_ip, port, status, r.choice([0, 32703]), 0, r.choice([129, 244]))
    if ncclv < (2, 23):
        return "NET/IB : Got completion from peer %s<%d> with status=%d opcode=%d len=%d vendor err %d (%s) localGid ::ffff:%s remoteGids::ffff:%s" % (peer_ip, port, status, r.choice([0, 1]), 0, r.choice([129, 244]), r.choice(["Send", "Recv"]), my_ip, peer_ip)
    return "NET/IB: Got completion from peer %s<%d> with status=%d opcode=%d len=%d vendor err %d (%s) localGid ::ffff:%s remoteGids::ffff:%s hca %s" % (peer_ip, port, status, r.choice([0, 1]), 0, r.choice([129, 244]), r.choice(["Send", "Recv"]), my_ip, peer_ip, hca)


def nccl_init_info(r, host, pid, dev, rank, nranks, ncclv, ip, iface, ib=True, cuda_drv="12020", first=False):
    """NCCL_DEBUG=INFO lines for one rank at init"""
    tid = pid + r.randint(50, 900)
    h = "%s:%d:%d [%d] NCCL INFO " % (host, pid, pid if first else tid, dev)
    vs = "%d.%d.%d" % ncclv
    L = []
    if first:
        L.append("%s:%d:%d [%d] NCCL INFO Bootstrap : Using %s:%s<0>" % (host, pid, pid, dev, iface, ip))
        L.append("%s:%d:%d [%d] NCCL INFO NET/Plugin: %s" % (host, pid, pid, dev, r.choice([
            "Could not find: libnccl-net.so. Using internal network plugin.",
            "No plugin found (libnccl-net.so), using internal implementation",
            "Plugin load returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory : when loading libnccl-net.so"])))
        L.append("%s:%d:%d [%d] NCCL INFO cudaDriverVersion %s" % (host, pid, pid, dev, cuda_drv))
        L.append("NCCL version %s+cuda12.%d" % (vs, r.choice([1, 2, 4])))
    if ib:
        L.append(h + "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB [4]mlx5_4:1/IB [5]mlx5_5:1/IB [6]mlx5_6:1/IB [7]mlx5_7:1/IB [RO]; OOB %s:%s<0>" % (iface, ip))
        L.append(h + "Using network IB")
    else:
        L.append(h + "NET/Socket : Using [0]%s:%s<0>" % (iface, ip))
        L.append(h + "Using network Socket")
    L.append(h + "comm 0x%s rank %d nranks %d cudaDev %d nvmlDev %d busId %s - Init START" % ("55" + hexs(r, 10), rank, nranks, dev, dev, r.choice(["18000", "2a000", "3a000", "5d000", "9a000", "ab000", "ba000", "db000"])))
    L.append(h + "Setting affinity for GPU %d to %s" % (dev, r.choice(["ffffffff,00000000,ffffffff", "ffff,ffffffff,00000000,0000ffff,ffffffff", "ff00,00000000,00000000,00000000,0000ff00"])))
    if rank == 0:
        L.append(h + "Channel 00/%02d :    %s" % (r.choice([2, 4, 8, 16, 32]), "   ".join(str(x) for x in range(min(nranks, 8)))))
    L.append(h + "Trees [0] %d/-1/-1->%d->%d [1] %d/-1/-1->%d->%d" % ((rank + 1) % nranks, rank, (rank - 1) % nranks, (rank + 1) % nranks, rank, (rank - 1) % nranks))
    L.append(h + "P2P Chunksize set to 131072")
    L.append(h + "Connected all rings")
    L.append(h + "Connected all trees")
    L.append(h + "threadThresholds 8/8/64 | %d/8/64 | 512 | 512" % (8 * nranks))
    L.append(h + "comm 0x%s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId 0x%s - Init COMPLETE" % ("55" + hexs(r, 10), rank, nranks, dev, dev, r.choice(["18000", "2a000", "9a000", "db000"]), hexs(r, 16)))
    return L


BENIGN_NCCL_WARN = [
    "NCCL WARN NET/IB : Got async event : GID table change",
    "NCCL WARN Failed to open libibverbs.so[.1]",
    "NCCL WARN NET/IB : Got async event : port active",
    "NCCL WARN Could not find real path of /sys/class/net/ens3/device",
]


# ----------------------------------------------------------------------------------------
# python traceback helper
# ----------------------------------------------------------------------------------------

def py_tb(frames, exc, py311=False, header="Traceback (most recent call last):"):
    """frames: list of (file, line, func, code) ; exc: final line(s) (string, may contain \\n)"""
    L = [header]
    for fi, ln, fn, code in frames:
        L.append('  File "%s", line %d, in %s' % (fi, ln, fn))
        if code:
            L.append("    " + code)
            if py311 and ("(" in code) and len(code) > 12 and not code.startswith(("raise", "yield", "with ", "for ", "if ")):
                a = code.find("(")
                eq = code.find(" = ")
                st = eq + 3 if 0 <= eq < a else (7 if code.startswith("return ") else 0)
                if st > 0 and not code.rstrip().endswith(("(", ",")):
                    L.append("    " + " " * st + "^" * max(1, len(code) - st))
    L.extend(exc.split("\n"))
    return L


# ----------------------------------------------------------------------------------------
# Layout 1: JAX multi-process on Slurm (srun), coordination service, XLA/NCCL
# ----------------------------------------------------------------------------------------

JAX_VERSIONS = [("0.4.13", "tf"), ("0.4.20", "tf"), ("0.4.23", "tf"), ("0.4.26", "tf"),
                ("0.4.30", "tf"), ("0.4.33", "absl"), ("0.4.35", "absl"), ("0.4.38", "absl"),
                ("0.5.3", "absl"), ("0.6.2", "absl")]

JAX_PROJECTS = [
    # name, entry file, frames (file,line,func,code) leading to train step
    ("maxtext", "/app/MaxText/train.py",
     [("/app/MaxText/train.py", 1032, "<module>", "app.run(main)"),
      ("/usr/local/lib/python3.10/site-packages/absl/app.py", 308, "run", "_run_main(main, args)"),
      ("/usr/local/lib/python3.10/site-packages/absl/app.py", 254, "_run_main", "sys.exit(main(argv))"),
      ("/app/MaxText/train.py", 1028, "main", "train_loop(config)"),
      ("/app/MaxText/train.py", 927, "train_loop", "state, metrics = p_train_step(state, example_batch, nextrng)")]),
    ("levanter", "/opt/levanter/src/levanter/main/train_lm.py",
     [("/opt/levanter/src/levanter/main/train_lm.py", 214, "<module>", "levanter.config.main(main)()"),
      ("/opt/levanter/src/levanter/config.py", 84, "wrapper_inner", "response = fn(cfg, *args, **kwargs)"),
      ("/opt/levanter/src/levanter/main/train_lm.py", 205, "main", "trainer.train(state, train_loader)"),
      ("/opt/levanter/src/levanter/trainer.py", 421, "train", "for info in self.training_steps(state, train_loader):"),
      ("/opt/levanter/src/levanter/trainer.py", 410, "training_steps", "info = self.train_step(state, example)")]),
    ("flax", "/home/%USER%/vit-jax/train.py",
     [("/home/%USER%/vit-jax/train.py", 388, "<module>", "app.run(main)"),
      ("/home/%USER%/.venv/lib/python3.11/site-packages/absl/app.py", 308, "run", "_run_main(main, args)"),
      ("/home/%USER%/.venv/lib/python3.11/site-packages/absl/app.py", 254, "_run_main", "sys.exit(main(argv))"),
      ("/home/%USER%/vit-jax/train.py", 371, "main", "train_and_evaluate(FLAGS.config, FLAGS.workdir)"),
      ("/home/%USER%/vit-jax/train.py", 301, "train_and_evaluate", "state, metrics = p_train_step(state, batch)")]),
]

USERS = ["jdoe", "mchen", "aperez", "kwang", "sroy", "tnguyen", "lfischer", "okim", "rpatel", "ebrown"]


def jax_ctx(run):
    r = run.r
    c = {}
    c["ver"], c["style"] = r.choice(JAX_VERSIONS)
    c["xre"] = "jaxlib._jax.XlaRuntimeError" if c["ver"].startswith("0.6") else "jaxlib.xla_extension.XlaRuntimeError"
    c["py311"] = r.random() < 0.45
    c["user"] = r.choice(USERS)
    proj = r.choice(JAX_PROJECTS)
    c["proj"] = proj[0]
    py = "python3.11" if c["py311"] else "python3.10"
    c["frames"] = [(a.replace("%USER%", c["user"]).replace("python3.10", py).replace("python3.11", py), b, cc, d) for a, b, cc, d in proj[2]]
    c["entry"] = proj[1].replace("%USER%", c["user"])
    return c


def jx(c, t, sev, tid, longsrc, line):
    """XLA/TSL C++ log prefix in the style of the jaxlib version"""
    base = longsrc.split("/")[-1]
    if c["style"] == "tf":
        return f_tf(t, sev, "%s:%d" % (longsrc, line))
    return f_glog(t, sev, tid, "%s:%d" % (base, line))


def jpy(c, t, sev, tid, src):
    """python absl logging prefix"""
    return f_glog(t, sev, tid, src)


def jax_task(i):
    return "/job:jax_worker/replica:0/task:%d" % i


def gen_jax_slurm(run):
    r = run.r
    cause = run.cause
    c = jax_ctx(run)
    bump(run, "jax", c["ver"])
    model = r.choice(GPU_MODELS)
    gpn = 4 if (model[0].endswith("40GB") or r.random() < 0.15) else 8
    style = r.choice(["gpu-a100-%03d", "dgx%03d", "nid%06d", "hgx-h100-%02d", "g%04d", "gpu%03d"])
    if "a100" in style and "H100" in model[0]:
        style = "gpu%03d"
    ppn_mode = r.choice(["node", "gpu", "gpu"])
    ppn = 1 if ppn_mode == "node" else gpn
    if ppn == 1:
        N = pick_world(r, [2, 4, 8, 16, 32, 64], [3, 5, 5, 4, 2, 1])
    else:
        N = pick_world(r, [1, 2, 4, 8, 16, 32, 64], [2, 4, 5, 4, 2, 1, 1])
    world = N * ppn
    if world < 2:
        N, world = 2, 2 * ppn
    if world > 512:
        N = 512 // ppn
        world = N * ppn
    start = r.randint(1, 400)
    hosts = [style % (start + i) for i in range(N)]
    fqdn = r.choice([None, ".cluster.local", ".hpc.internal", ".ib.cluster"])
    jobid = r.randint(1000000, 9999999)
    label = r.random() < 0.5
    kill_on_bad = r.random() < 0.4
    allproc_log = label and r.random() < 0.6
    skew = {h: r.uniform(-2.0, 2.0) for h in hosts}
    if r.random() < 0.3:
        skew[r.choice(hosts)] += r.choice([-1, 1]) * r.uniform(20, 95)
    host_of = [hosts[i // ppn] for i in range(world)]
    pid_of = []
    for i in range(world):
        pid_of.append(r.randint(20000, 3900000))
    tid_main = pid_of
    ptid = [r.randint(139600000000000, 140740000000000) for _ in range(world)]
    ln_xb = r.choice([884, 906, 927])
    ln_tr = r.choice([88, 412, 1007])
    ln_dist = (r.choice([89, 91, 105]), r.choice([101, 113, 121]))
    ips = {h: "10.%d.%d.%d" % (r.randint(1, 60), r.randint(0, 15), 10 + k) for k, h in enumerate(hosts)}
    nccl_info = r.random() < 0.35 and world <= 16
    ncclv = r.choice([(2, 18, 3), (2, 19, 3), (2, 21, 5), (2, 23, 4)])
    hb = r.choice([100, 100, 100, 30, 300])
    S = Stream()
    t0 = run.t0
    cfg_name = r.choice(["llama2-7b", "gpt3-6b", "mixtral-8x7b-lite", "vit-h14", "t5-xl", "llama3-8b"])

    def tstamp(i, t):
        return t + td(seconds=skew[host_of[i]])

    def P(i, t, text):
        S.add(t, i, text)

    # ------------------------------------------------------------ header
    hdr = []
    if r.random() < 0.6:
        hdr.append("+ export XLA_PYTHON_CLIENT_MEM_FRACTION=%s" % r.choice(["0.90", "0.95", ".92"]))
        hdr.append("+ export XLA_FLAGS='--xla_gpu_enable_latency_hiding_scheduler=true --xla_gpu_enable_async_all_gather=true'")
        if nccl_info:
            hdr.append("+ export NCCL_DEBUG=INFO")
        hdr.append("+ srun %s--mpi=none --ntasks-per-node=%d python3 -u %s --config=%s" % ("-l " if label else "", ppn, c["entry"], cfg_name))
    else:
        hdr.append("Job %d starting on %s (%d nodes, %d tasks)" % (jobid, hostlist(hosts), N, world))
        hdr.append("COORDINATOR_ADDRESS=%s:%d" % (hosts[0], r.choice([1234, 12345, 8476, 29500])))
    S.add(t0, "hdr", "\n".join(hdr))

    # ------------------------------------------------------------ startup per process
    tstart = t0 + td(seconds=r.uniform(5, 40))
    coord = "%s:%d" % (hosts[0], r.choice([1234, 12345, 8476]))
    for i in range(world):
        t = tstart + td(seconds=r.uniform(0, 6))
        tt = tstamp(i, t)
        lines = []
        if i == 0:
            lines.append(jpy(c, tt, "I", ptid[i], "distributed.py:%d" % ln_dist[0]) + "Starting JAX distributed service on [::]:%s" % coord.split(":")[1])
        lines.append(jpy(c, tt + td(milliseconds=40), "I", ptid[i], "distributed.py:%d" % ln_dist[1]) + "Connecting to JAX distributed service on %s" % coord)
        P(i, t, "\n".join(lines))
    t_init = tstart + td(seconds=r.uniform(8, 40))
    for i in range(world):
        tt = tstamp(i, t_init + td(seconds=r.uniform(0, 2)))
        lines = []
        tid = ptid[i]
        lines.append(jpy(c, tt, "I", tid, "xla_bridge.py:%d" % ln_xb) + "Unable to initialize backend 'rocm': NOT_FOUND: Could not find registered platform with name: \"rocm\". Available platform names are: CUDA")
        lines.append(jpy(c, tt + td(milliseconds=2), "I", tid, "xla_bridge.py:%d" % ln_xb) + "Unable to initialize backend 'tpu': INTERNAL: Failed to open libtpu.so: libtpu.so: cannot open shared object file: No such file or directory")
        if r.random() < 0.35 and model[3] < "540":
            lines.append(jx(c, tt + td(milliseconds=700), "W", pid_of[i], "external/xla/xla/service/gpu/nvptx_compiler.cc", 763) + "The NVIDIA driver's CUDA version is 12.2 which is older than the ptxas CUDA version (12.4.131). Because the driver is older than the ptxas version, XLA is disabling parallel compilation, which may slow down compilation. You should update your NVIDIA driver or use the NVIDIA-provided CUDA forward compatibility packages.")
        if i == 0 or allproc_log:
            lines.append(jpy(c, tt + td(seconds=1), "I", tid, "train.py:%d" % ln_tr) + "JAX process: %d / %d" % (i, world))
            lines.append(jpy(c, tt + td(seconds=1, milliseconds=1), "I", tid, "train.py:%d" % (ln_tr + 1)) + "JAX local devices: [%s]" % ", ".join(
                ("CudaDevice(id=%d)" if c["style"] == "absl" else "StreamExecutorGpuDevice(id=%d, process_index=%d, slice_index=%d)") % ((i * (gpn // ppn) + d,) if c["style"] == "absl" else (i * (gpn // ppn) + d, i, i // max(1, (world // N))))
                for d in range(gpn // ppn)))
        P(i, t_init, "\n".join(lines))
    # process/host/pid mapping print (debug print many users add)
    hostmap_print = r.random() < 0.55
    if hostmap_print:
        for i in range(world):
            P(i, t_init + td(seconds=2), "process %d/%d on %s (pid %d) local_devices=%d" % (i, world, host_of[i], pid_of[i], gpn // ppn))
    if nccl_info:
        for i in range(world):
            h = host_of[i]
            dev = 0 if ppn == gpn else 0
            L = nccl_init_info(r, h, pid_of[i], (i % ppn) if ppn > 1 else 0, i if ppn > 1 else i * gpn, world if ppn > 1 else world * gpn, ncclv, ips[h], "ibp%ds0" % r.choice([12, 26, 75]), ib=True, first=True)
            P(i, t_init + td(seconds=30 + r.uniform(0, 3)), "\n".join(L))

    # ------------------------------------------------------------ training progress
    step_time = r.uniform(0.25, 4.0)
    t_train = t_init + td(seconds=r.uniform(60, 400))
    dur = r.uniform(1800, 30 * 3600)
    t_fail = t_train + td(seconds=dur)
    n_lines = r.randint(25, 70)
    log_every = r.choice([10, 20, 50, 100])
    maxtext = c["proj"] == "maxtext"
    culprit = None
    if cause is not None:
        culprit = r.randrange(world)
        if r.random() < 0.12:
            culprit = 0
        if cause == "collective_mismatch" and culprit == 0:
            culprit = r.randrange(1, world)
    slow = cause == "straggler"
    healthy = run.healthy
    t_end_train = t_fail
    if healthy or (slow and r.random() < 0.6):
        t_end_train = t_fail
    for k in range(n_lines):
        frac = (k + 1) / float(n_lines)
        t = t_train + td(seconds=dur * frac)
        step = int(dur * frac / step_time) // log_every * log_every
        st = step_time * (1.0 + (0.9 * frac if slow else 0.0)) * r.uniform(0.97, 1.04)
        loss = 9.5 * (0.35 + 0.65 * (1 - frac) ** 2) + r.uniform(-0.05, 0.05)
        procs = range(world) if allproc_log else [0]
        for i in procs:
            tt = tstamp(i, t + td(milliseconds=r.randint(0, 300)))
            if maxtext:
                txt = "completed step: %d, seconds: %.3f, TFLOP/s/device: %.3f, Tokens/s/device: %.3f, total_weights: %d, loss: %.3f" % (step, st, 380.0 / st * step_time * r.uniform(0.98, 1.0), 4096 * 4 / st, 4096 * 4 * world, loss)
            else:
                txt = jpy(c, tt, "I", ptid[i], "train.py:%d" % (ln_xb // 3)) + "[%d] train_loss=%.4f, learning_rate=%.2e, step_time=%.3fs, examples/s=%.1f" % (step, loss, 3e-4 * min(1.0, step / 2000.0 + 1e-3), st, 256 / st)
            P(i, t, txt)
        if k == n_lines // 3 and r.random() < 0.5:
            P(0, t + td(seconds=1), jpy(c, tstamp(0, t + td(seconds=1)), "I", ptid[0], "checkpoint_manager.py:%d" % r.choice([1165, 1270])) + "[process=0][thread=MainThread] Saving checkpoint for step %d" % step)
            if r.random() < 0.5:
                P(0, t + td(seconds=3), jx(c, tstamp(0, t + td(seconds=3)), "W", pid_of[0], "external/xla/xla/service/hlo_rematerialization.cc", 3005) + "Can't reduce memory use below %.2fGiB (%d bytes) by rematerialization; only reduced to %.2fGiB (%d bytes), down from %.2fGiB (%d bytes) originally" % (61.23, 65745862912, 70.11, 75280138240, 72.50, 77846405120))
    last_step = int(dur / step_time) // log_every * log_every

    # ------------------------------------------------------------ kernel logs per host
    kern = {}
    boot = {h: t0 - td(days=r.randint(1, 60), seconds=r.randint(0, 86000)) for h in hosts}
    kstyle = r.choice(["dmesgT", "dmesgT", "raw", "syslog", "journal"])

    def K(h, t, lines):
        kern.setdefault(h, [])
        for j, ln in enumerate(lines):
            kern[h].append((t + td(seconds=skew[h]) + td(microseconds=j * 37), ln))

    srun_lines = []          # (t, text)
    sacct_state = "FAILED"
    sacct_exit = "1:0"
    t_end = t_fail + td(seconds=hb + r.uniform(5, 40))

    def fatal_collateral(t_detect, dead, leader_dead=False, reason="heartbeat"):
        """all other processes terminate because of the coordination service"""
        if not leader_dead and 0 not in dead:
            leader_t = tstamp(0, t_detect - td(seconds=r.uniform(0.5, 3)))
            for d in dead:
                if c["style"] == "tf":
                    msg = jx(c, leader_t, "E", pid_of[0] + 311, "external/tsl/tsl/distributed_runtime/coordination/coordination_service.cc", r.choice([1130, 1170])) + "%s has been set to ERROR in coordination service: UNAVAILABLE: Task %s heartbeat timeout. This indicates that the remote task has failed, got preempted, or crashed unexpectedly. Check the task logs for an earlier error to debug further. [type.googleapis.com/tensorflow.CoordinationServiceError='']" % (jax_task(d), jax_task(d))
                else:
                    msg = jx(c, leader_t, "E", pid_of[0] + 311, "coordination_service.cc", r.choice([1210, 1263, 1338])) + "%s has been set to ERROR in coordination service: UNAVAILABLE: Task %s heartbeat timeout. This indicates that the remote task has failed, got preempted, or crashed unexpectedly. Check the task logs for an earlier error to debug further. [type.googleapis.com/tensorflow.CoordinationServiceError='']" % (jax_task(d), jax_task(d))
                P(0, t_detect - td(seconds=1), msg)
        survivors = [i for i in range(world) if i not in dead]
        show = survivors
        if world > 64:
            show = sample_ranks(r, world, [0], 40)
            show = [s for s in show if s in survivors]
        for i in show:
            t = t_detect + td(seconds=r.uniform(0, 1.5))
            tt = tstamp(i, t)
            tid = pid_of[i] + r.randint(100, 900)
            L = [jx(c, tt, "E", tid, "external/tsl/tsl/distributed_runtime/coordination/coordination_service_agent.cc", 332 if c["style"] == "absl" else 711) + "Polled an error from coordination service (this can be an error from this or another task)."]
            if leader_dead or (0 in dead and i != 0):
                body = "UNAVAILABLE: Failed to send RPC to coordination service. Either the leader task was preempted/died/restarted unexpectedly or this task is experiencing network issues. Check earlier logs from 1) this task, 2) the leader (usually slice 0 task 0), and 3) cluster scheduler to debug further.\nAdditional GRPC error information from remote target coordination_service while calling /tensorflow.CoordinationService/PollForError:\n:UNKNOWN:Error received from peer  {grpc_message:\"Socket closed\", grpc_status:14, created_time:\"%s.%s+00:00\"}" % (tt.strftime("%Y-%m-%dT%H:%M:%S"), us(tt))
            elif c["style"] == "absl":
                body = "UNAVAILABLE: The following tasks are unhealthy (stopped sending heartbeats):\n%s\nThe tasks have crashed. Check the task logs for an earlier error, or scheduler events (e.g. preemption, eviction) to debug further.\n\nRPC: /tensorflow.CoordinationService/PollForError [type.googleapis.com/tensorflow.CoordinationServiceError='']" % "\n".join(jax_task(d) for d in dead)
            else:
                body = "UNAVAILABLE: Task %s heartbeat timeout. This indicates that the remote task has failed, got preempted, or crashed unexpectedly. Check the task logs for an earlier error to debug further.\nAdditional GRPC error information from remote target coordination_service while calling /tensorflow.CoordinationService/PollForError:\n:{\"created\":\"@%d.%s\",\"description\":\"Error received from peer ipv4:%s:%s\",\"file\":\"external/com_github_grpc_grpc/src/core/lib/surface/call.cc\",\"file_line\":1056,\"grpc_message\":\"Task %s heartbeat timeout.\",\"grpc_status\":14} [type.googleapis.com/tensorflow.CoordinationServiceError='']" % (jax_task(dead[0]), int((tt - dtm.datetime(1970, 1, 1)).total_seconds()), us(tt) + "123", ips[hosts[0]], coord.split(":")[1], jax_task(dead[0]))
            L.append(jx(c, tt + td(microseconds=185), "F", tid, "external/xla/xla/pjrt/distributed/client.h", 77 if c["style"] == "absl" else 75) + "Terminating process because the JAX distributed service detected fatal errors. This most likely indicates that another task died; see the other task logs for more details. Disable Python buffering, i.e. `python -u`, to be sure to see all the previous output. %s%s" % ("absl::Status: " if c["style"] == "absl" else "Status: ", body))
            if r.random() < 0.6 or world <= 8:
                L += ["*** Check failure stack trace: ***",
                      "    @     0x7f%s  absl::lts_2023080%d::log_internal::LogMessageFatal::~LogMessageFatal()" % (hexs(r, 10), r.choice([1, 2])),
                      "    @     0x7f%s  std::_Function_handler<>::_M_invoke()" % hexs(r, 10),
                      "    @     0x7f%s  tsl::CoordinationServiceAgentImpl::PollForErrorAsync()::{lambda()#1}::operator()()" % hexs(r, 10),
                      "    @     0x7f%s  tsl::(anonymous namespace)::PThread::ThreadFn()" % hexs(r, 10),
                      "    @     0x7f%s  (unknown)" % hexs(r, 10),
                      "    @     0x7f%s  (unknown)" % hexs(r, 10),
                      "Fatal Python error: Aborted", ""]
            P(i, t, "\n".join(L))
        return survivors

    def srun_tail(t, bad, badmsg, others_msg="Aborted (core dumped)", others=None):
        """srun summary lines per host"""
        out = []
        if bad is not None:
            out.append((t, "srun: error: %s: task %d: %s" % (host_of[bad], bad, badmsg)))
            if kill_on_bad:
                out.append((t + td(milliseconds=20), "srun: Terminating StepId=%d.0" % jobid))
                out.append((t + td(milliseconds=40), "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (jobid, hosts[0], f_slurm(t + td(seconds=1)))))
        byhost = {}
        for i in (others if others is not None else range(world)):
            if i == bad:
                continue
            byhost.setdefault(host_of[i], []).append(i)
        hs = list(byhost.keys())
        r.shuffle(hs)
        for j, h in enumerate(hs):
            ts = byhost[h]
            out.append((t + td(seconds=2 + j * 0.01), "srun: error: %s: task%s %s: %s" % (h, "s" if len(ts) > 1 else "", ranges(ts), others_msg)))
        return out

    drain_cause = cause in DRAIN_CAUSES
    ch = host_of[culprit] if culprit is not None else None
    clocal = (culprit % ppn) if (culprit is not None and ppn > 1) else (r.randrange(gpn) if culprit is not None else None)
    stepnow = last_step
    err_frames = c["frames"]

    def xla_exc(msg):
        return py_tb(err_frames, "%s: %s\n--------------------\nFor simplicity, JAX has removed its internal frames from the traceback of the following exception. Set JAX_TRACEBACK_FILTERING=off to include these." % (c["xre"], msg), c["py311"])

    replica = 0 if ppn > 1 else clocal
    if cause is None:
        # healthy: alarming lines but the job completes
        t_done = t_fail + td(seconds=r.uniform(30, 200))
        if r.random() < 0.6:
            oh = r.choice(hosts)
            evs, xid = decoy_xid_block(r, t0, oh)
            for t, ln in evs:
                K(oh, t - td(seconds=skew[oh]), [ln])
            run.note("decoy: Xid %d on %s days before the job" % (xid, oh))
        if r.random() < 0.5:
            i = r.randrange(world)
            P(i, t_train + td(seconds=dur * 0.4), jx(c, tstamp(i, t_train + td(seconds=dur * 0.4)), "W", pid_of[i] + 17, "external/tsl/tsl/distributed_runtime/coordination/coordination_service_agent.cc", 505 if c["style"] == "tf" else 268) + "Heartbeat RPC to coordination service failed, will retry: UNAVAILABLE: Deadline Exceeded")
            run.note("decoy: one transient heartbeat RPC retry on task %d" % i)
        if r.random() < 0.5:
            i = 0
            tw = t_train + td(seconds=dur * 0.6)
            P(i, tw, "wandb: Network error (ConnectionError), entering retry loop.")
            P(i, tw + td(seconds=r.uniform(20, 200)), "wandb: Network error resolved after 0:00:%02d, resuming normal operation." % r.randint(20, 59))
            run.note("decoy: handled wandb network retry")
        for i in range(world):
            P(i, t_done + td(seconds=r.uniform(0, 2)), jpy(c, tstamp(i, t_done), "I", ptid[i], "train.py:%d" % r.choice([330, 1031])) + "Training finished after %d steps" % (last_step + log_every) if i == 0 else "")
            if r.random() < 0.15:
                P(i, t_done + td(seconds=3), jx(c, tstamp(i, t_done + td(seconds=3)), "E", pid_of[i] + 5, "external/tsl/tsl/distributed_runtime/coordination/coordination_service_agent.cc", 1032 if c["style"] == "tf" else 608) + "Failed to disconnect from coordination service with status: DEADLINE_EXCEEDED: Barrier timed out. Id: Shutdown::%d. This usually happens because a task triggered the barrier too early or too slowly. Please look at the task logs (both timed out and first task) to debug further.\nProceeding with agent shutdown anyway. This is usually caused by an earlier error during execution. Check the logs of (a) this task, (b) the leader (usually slice 0 task 0) and (c) the scheduler (e.g. preemption, eviction) for an earlier error to debug further." % r.randint(10 ** 17, 10 ** 18))
        sacct_state, sacct_exit = "COMPLETED", "0:0"
        t_end = t_done + td(seconds=5)
        run.note("healthy JAX run, %d processes" % world)
    elif cause in ("gpu_hardware", "ecc_memory", "nvlink", "illegal_memory_access", "cuda_oom", "python_exception", "collective_mismatch"):
        tt = tstamp(culprit, t_fail)
        L = []
        pcl = pci_of(clocal, gpn)
        if cause == "gpu_hardware":
            xid = r.choice([79, 79, 119])
            K(ch, t_fail - td(seconds=r.uniform(0.2, 3)), xid_text(r, xid, pcl, pid_of[culprit], gpu_idx=clocal))
            err = "CUDA_ERROR_UNKNOWN: unknown error" if xid == 79 else "CUDA_ERROR_LAUNCH_TIMEOUT: the launch timed out and was terminated"
            L.append(jx(c, tt, "E", pid_of[culprit] + 41, "external/xla/xla/stream_executor/cuda/cuda_driver.cc", 1398) + "failed to synchronize the stop event: %s" % err)
            L.append(jx(c, tt, "E", pid_of[culprit], "external/xla/xla/pjrt/pjrt_stream_executor_client.cc", 3067 if c["style"] == "absl" else 2732) + "Execution of replica %d failed: INTERNAL: Failed to complete all kernels launched on stream 0x%s: CUDA error: Could not synchronize CUDA stream: %s" % (replica, hexs(r, 12), err))
            L += xla_exc("INTERNAL: Failed to complete all kernels launched on stream 0x%s: CUDA error: Could not synchronize CUDA stream: %s" % (hexs(r, 12), err))
            run.note("Xid %d on %s GPU %d (%s)" % (xid, ch, clocal, pcl))
            if r.random() < 0.5:
                run.put("nvidia-smi_%s.txt" % ch, ["$ nvidia-smi"] + nvsmi_table(r, model, gpn, clocal, "gone" if xid == 79 else "err", True, t_end + td(minutes=r.randint(3, 40))))
        elif cause == "ecc_memory":
            xid = r.choice([48, 94, 95])
            K(ch, t_fail - td(seconds=r.uniform(0.05, 1)), xid_text(r, xid, pcl, pid_of[culprit], gpu_idx=clocal))
            L.append(jx(c, tt, "E", pid_of[culprit], "external/xla/xla/pjrt/pjrt_stream_executor_client.cc", 3067 if c["style"] == "absl" else 2732) + "Execution of replica %d failed: INTERNAL: Failed to complete all kernels launched on stream 0x%s: CUDA error: Could not synchronize CUDA stream: CUDA_ERROR_ECC_UNCORRECTABLE: uncorrectable ECC error encountered" % (replica, hexs(r, 12)))
            L += xla_exc("INTERNAL: Failed to complete all kernels launched on stream 0x%s: CUDA error: Could not synchronize CUDA stream: CUDA_ERROR_ECC_UNCORRECTABLE: uncorrectable ECC error encountered" % hexs(r, 12))
            run.note("Xid %d (uncorrectable ECC) on %s GPU %d" % (xid, ch, clocal))
            if r.random() < 0.5:
                run.put("nvidia-smi-q_%s.txt" % ch, ["$ nvidia-smi -q -i %d -d ECC,ROW_REMAPPER" % clocal, "", "GPU %s" % pcl.upper().replace("0000:", "00000000:", 1)] + nvsmi_ecc(r, "", r.randint(1, 4)))
        elif cause == "nvlink":
            K(ch, t_fail - td(seconds=r.uniform(0.05, 1)), xid_text(r, 74, pcl, pid_of[culprit], gpu_idx=clocal))
            L.append(jx(c, tt, "E", pid_of[culprit], "external/xla/xla/pjrt/pjrt_stream_executor_client.cc", 3067 if c["style"] == "absl" else 2732) + "Execution of replica %d failed: INTERNAL: NCCL operation ncclGroupEnd() failed: unhandled cuda error (run with NCCL_DEBUG=INFO for details). Last NCCL warning(error) log entry (may be unrelated) 'Cuda failure 'uncorrectable NVLink error detected during the execution''." % replica)
            L += xla_exc("INTERNAL: NCCL operation ncclGroupEnd() failed: unhandled cuda error (run with NCCL_DEBUG=INFO for details). Last NCCL warning(error) log entry (may be unrelated) 'Cuda failure 'uncorrectable NVLink error detected during the execution''.")
            run.note("Xid 74 NVLink fatal error on %s GPU %d" % (ch, clocal))
        elif cause == "illegal_memory_access":
            if r.random() < 0.5:
                K(ch, t_fail - td(seconds=r.uniform(0.01, 0.5)), xid_text(r, r.choice([13, 31]), pcl, pid_of[culprit]))
            fus = r.choice(["loop_dynamic_update_slice_fusion", "input_scatter_fusion_3", "custom-call.14 (__gpu$xla.gpu.triton)", "cublas-gemm.42"])
            L.append(jx(c, tt, "E", pid_of[culprit] + 41, "external/xla/xla/stream_executor/cuda/cuda_driver.cc", 1217) + "failed to unload module 0x%s; leaking: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered" % hexs(r, 8))
            L.append(jx(c, tt, "E", pid_of[culprit], "external/xla/xla/pjrt/pjrt_stream_executor_client.cc", 3067 if c["style"] == "absl" else 2732) + "Execution of replica %d failed: INTERNAL: Failed to launch CUDA kernel: %s with block dimensions: 128x1x1 and grid dimensions: %dx1x1: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered" % (replica, fus, r.choice([448, 1024, 3136])))
            L += xla_exc("INTERNAL: Failed to launch CUDA kernel: %s with block dimensions: 128x1x1 and grid dimensions: %dx1x1: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered" % (fus, r.choice([448, 1024, 3136])))
            run.note("illegal address in XLA kernel on process %d" % culprit)
        elif cause == "cuda_oom":
            gib = r.choice([1.5, 2.0, 3.25, 6.0, 12.5, 16.0])
            L.append(jx(c, tt, "W", pid_of[culprit] + 3, "external/tsl/tsl/framework/bfc_allocator.cc", 485) + "Allocator (GPU_%d_bfc) ran out of memory trying to allocate %.2fGiB (rounded to %d)requested by op " % (clocal if ppn > 1 else 0, gib, int(gib * 2 ** 30)))
            L.append(jx(c, tt, "W", pid_of[culprit] + 3, "external/tsl/tsl/framework/bfc_allocator.cc", 497) + "*" * 88 + "______")
            L.append(jx(c, tt, "E", pid_of[culprit], "external/xla/xla/pjrt/pjrt_stream_executor_client.cc", 3067 if c["style"] == "absl" else 2732) + "Execution of replica %d failed: RESOURCE_EXHAUSTED: Out of memory while trying to allocate %d bytes." % (replica, int(gib * 2 ** 30)))
            L += xla_exc("RESOURCE_EXHAUSTED: Out of memory while trying to allocate %d bytes." % int(gib * 2 ** 30))
            run.note("RESOURCE_EXHAUSTED on process %d only (uneven sequence packing)" % culprit)
        elif cause == "python_exception":
            kind = r.choice(["dataloss", "fnf", "key"])
            fr = err_frames[:-1] + [(err_frames[-1][0], err_frames[-1][1] - 6, err_frames[-1][2], "example_batch = next(data_iterator)")]
            if kind == "dataloss":
                fr = fr + [("/usr/local/lib/python3.10/site-packages/tensorflow/python/data/ops/iterator_ops.py", 810, "__next__", "return self._next_internal()"),
                           ("/usr/local/lib/python3.10/site-packages/tensorflow/python/framework/ops.py", 5983, "raise_from_not_ok_status", "raise core._status_to_exception(e) from None  # pylint: disable=protected-access")]
                exc = "tensorflow.python.framework.errors_impl.DataLossError: {{function_node __wrapped__IteratorGetNext_output_types_2_device_/job:localhost/replica:0/task:0/device:CPU:0}} corrupted record at %d [Op:IteratorGetNext] name: " % r.randint(10 ** 6, 10 ** 9)
            elif kind == "fnf":
                fr = fr + [("/app/MaxText/input_pipeline/_input_pipeline_utils.py", 88, "__next__", "shard = self._open(self._files[self._idx])")]
                exc = "FileNotFoundError: [Errno 2] No such file or directory: '/lustre/datasets/%s/train-%05d-of-01024.array_record'" % (cfg_name.split("-")[0], r.randint(0, 1023))
            else:
                fr = fr + [("/app/MaxText/input_pipeline/_grain_data_processing.py", 142, "map", "tokens = features['%s']" % r.choice(["text", "targets"]))]
                exc = "KeyError: '%s'" % r.choice(["text", "targets"])
            L += py_tb(fr, exc, c["py311"])
            run.note("uncaught %s in input pipeline on process %d" % (exc.split(":")[0], culprit))
        elif cause == "collective_mismatch":
            nb = r.randint(900, 4000)
            for i in range(world):
                if i == culprit or i == 0 or allproc_log:
                    P(i, t_fail - td(seconds=3), jpy(c, tstamp(i, t_fail - td(seconds=3)), "I", ptid[i], "input_pipeline.py:%d" % 77) + "process %d: %d shards, %d batches per epoch" % (i, 64 if i != culprit else 65, nb if i != culprit else nb + 1))
            fr = err_frames[:-1] + [(err_frames[-1][0], err_frames[-1][1] - 40, err_frames[-1][2], "multihost_utils.assert_equal(steps_per_epoch, 'steps_per_epoch differs across hosts')"),
                                     ("/usr/local/lib/python3.10/site-packages/jax/experimental/multihost_utils.py", 176, "assert_equal", "raise AssertionError(")]
            L += py_tb(fr, "AssertionError: steps_per_epoch differs across hosts Expected: %d; got: %d." % (nb, nb + 1), c["py311"])
            run.note("process %d built a different epoch length (extra shard on its node-local copy); multihost assert_equal fails on it, others then die on heartbeat" % culprit)
        P(culprit, t_fail, "\n".join(L))
        dead = [culprit]
        t_detect = t_fail + td(seconds=hb * r.uniform(0.95, 1.1))
        if culprit == 0:
            t_detect = t_fail + td(seconds=r.uniform(1, 12))
        if kill_on_bad:
            srun_lines += srun_tail(t_fail + td(seconds=r.uniform(1, 4)), culprit, "Exited with exit code 1", others=[])
            srun_lines += srun_tail(t_fail + td(seconds=5), None, "", "Killed", others=[i for i in range(world) if i != culprit])
            t_end = t_fail + td(seconds=8)
            run.note("srun --kill-on-bad-exit: the others were killed before the heartbeat timeout")
        else:
            fatal_collateral(t_detect, dead, leader_dead=(culprit == 0))
            srun_lines += srun_tail(t_fail + td(seconds=r.uniform(1, 4)), culprit, "Exited with exit code 1", others=[])
            srun_lines += srun_tail(t_detect + td(seconds=3), None, "", "Aborted (core dumped)", others=[i for i in range(world) if i != culprit])
            t_end = t_detect + td(seconds=5)
        run.rank = culprit
        run.node = ch
        run.rank_inferable = True
        run.drain = drain_cause
    elif cause == "network":
        single = r.random() < 0.75 and N >= 2
        if single:
            lines, hca, netdev, nicpci = nic_down_text(r, r.choice(["ib", "roce"]))
            K(ch, t_fail - td(seconds=r.uniform(1, 8)), lines)
            peers = [i for i in range(world) if host_of[i] != ch]
            for i in ([culprit] + r.sample(peers, min(len(peers), 3))):
                peer_ip = ips[host_of[r.choice(peers)]] if i == culprit else ips[ch]
                msg = "INTERNAL: NCCL operation ncclGroupEnd() failed: remote process exited or there was a network error. Last NCCL warning(error) log entry (may be unrelated) '%s'." % nccl_ib_completion(r, ncclv, peer_ip, ips[host_of[i]], hca if i == culprit else "mlx5_%d" % r.randint(0, 7))
                tt = tstamp(i, t_fail + td(seconds=r.uniform(0, 2) if i == culprit else r.uniform(1.5, 6)))
                L = [jx(c, tt, "E", pid_of[i], "external/xla/xla/pjrt/pjrt_stream_executor_client.cc", 3067 if c["style"] == "absl" else 2732) + "Execution of replica %d failed: %s" % (0, msg)]
                L += xla_exc(msg)
                P(i, t_fail + td(seconds=0 if i == culprit else 2), "\n".join(L))
            run.rank, run.node, run.drain = culprit, ch, True
            run.rank_inferable = True
            run.aliases.append(ips[ch])
            run.note("link down on %s (%s); first NCCL remote error from process %d; peers name its IP %s" % (ch, netdev, culprit, ips[ch]))
            fatal_collateral(t_fail + td(seconds=hb), [culprit], leader_dead=(culprit == 0))
            srun_lines += srun_tail(t_fail + td(seconds=hb + 4), culprit, "Exited with exit code 1")
        else:
            bad = r.sample(range(world), min(world, r.randint(2, 5)))
            for i in bad:
                tt = tstamp(i, t_fail + td(seconds=r.uniform(0, 3)))
                msg = "INTERNAL: NCCL operation ncclGroupEnd() failed: unhandled system error (run with NCCL_DEBUG=INFO for details). Last NCCL warning(error) log entry (may be unrelated) 'socketProgress: Connection closed by remote peer %s<%d>'." % (ips[r.choice(hosts)], r.randint(32768, 60999))
                P(i, t_fail, "\n".join([jx(c, tt, "E", pid_of[i], "external/xla/xla/pjrt/pjrt_stream_executor_client.cc", 3067 if c["style"] == "absl" else 2732) + "Execution of replica 0 failed: " + msg] + xla_exc(msg)))
            fatal_collateral(t_fail + td(seconds=hb), sorted(bad))
            srun_lines += srun_tail(t_fail + td(seconds=hb + 4), None, "", "Exited with exit code 1")
            run.note("fabric-wide socket errors on several processes, no single NIC evidence")
            culprit = None
        t_end = t_fail + td(seconds=hb + 10)
    elif cause in ("host_oom_kill", "crash_signal"):
        if cause == "host_oom_kill":
            K(ch, t_fail, oom_kill_text(r, pid_of[culprit], "python3", cgroup=True))
            srun_lines.append((t_fail + td(seconds=1), "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % jobid))
            bad_msg = "Out Of Memory"
            run.note("cgroup OOM kill of process %d (pid %d) on %s: host RAM, not GPU" % (culprit, pid_of[culprit], ch))
        else:
            tt = tstamp(culprit, t_fail)
            sig = r.choice(["SIGSEGV", "SIGSEGV", "SIGBUS"])
            L = ["*** %s received at time=%d on cpu %d ***" % (sig, int((tt - dtm.datetime(1970, 1, 1)).total_seconds()), r.randint(0, 127)),
                 "PC: @     0x7f%s  (unknown)  %s" % (hexs(r, 10), r.choice(["(unknown)", "xla::cpu::CpuExecutable::ExecuteComputeFunction()", "tensorstore::internal_ocdbt::BtreeWriter::Commit()", "grpc_core::ExecCtx::Flush()"])),
                 "    @     0x7f%s       3712  (unknown)" % hexs(r, 10),
                 "    @     0x7f%s        144  %s" % (hexs(r, 10), r.choice(["absl::lts_20230802::AbslFailureSignalHandler()", "(unknown)"])),
                 "    @     0x7f%s  (unknown)  (unknown)" % hexs(r, 10),
                 "    @ ... and at least 3 more frames",
                 "Fatal Python error: %s" % ("Segmentation fault" if sig == "SIGSEGV" else "Bus error"),
                 "",
                 "Thread 0x00007f%s (most recent call first):" % hexs(r, 10),
                 '  File "/usr/local/lib/python3.10/site-packages/orbax/checkpoint/async_checkpointer.py", line 112 in _thread_func',
                 '  File "/usr/lib/python3.10/threading.py", line 953 in run',
                 "",
                 "Current thread 0x00007f%s (most recent call first):" % hexs(r, 10),
                 '  File "/usr/local/lib/python3.10/site-packages/jax/_src/interpreters/pxla.py", line 1277 in __call__',
                 '  File "%s", line %d in %s' % (err_frames[-1][0], err_frames[-1][1], err_frames[-1][2]),
                 "",
                 "Extension modules: numpy.core._multiarray_umath, numpy.core._multiarray_tests, jaxlib.cpu_feature_guard, ml_dtypes._ml_dtypes_ext (total: %d)" % r.randint(40, 120)]
            P(culprit, t_fail, "\n".join(L))
            bad_msg = "Segmentation fault (core dumped)" if sig == "SIGSEGV" else "Bus error (core dumped)"
            run.note("%s in process %d (host-side, no Xid)" % (sig, culprit))
        t_detect = t_fail + td(seconds=(hb if culprit != 0 else r.uniform(2, 10)) * r.uniform(0.95, 1.05))
        fatal_collateral(t_detect, [culprit], leader_dead=(culprit == 0))
        srun_lines += srun_tail(t_fail + td(seconds=2), culprit, bad_msg, others=[])
        srun_lines += srun_tail(t_detect + td(seconds=2), None, "", "Aborted (core dumped)", others=[i for i in range(world) if i != culprit])
        t_end = t_detect + td(seconds=5)
        run.rank, run.node, run.rank_inferable = culprit, ch, True
        if cause == "host_oom_kill":
            sacct_state, sacct_exit = "OUT_OF_MEMORY", "0:125"
    elif cause == "preemption":
        tl = r.random() < 0.4
        t_pre = t_fail
        srun_lines.append((t_pre, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
        srun_lines.append((t_pre, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO %s ***" % (jobid, hosts[0], f_slurm(t_pre), "TIME LIMIT" if tl else "PREEMPTION")))
        if not tl and r.random() < 0.5:
            srun_lines.append((t_pre, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (jobid, hosts[0], f_slurm(t_pre))))
        # some processes notice the leader going away first
        early = [i for i in range(1, world) if r.random() < 0.3][:12]
        fatal_collateral(t_pre + td(seconds=r.uniform(0.5, 3)), [0], leader_dead=True) if early else None
        srun_lines += srun_tail(t_pre + td(seconds=33), None, "", "Killed" if r.random() < 0.5 else "Terminated")
        sacct_state, sacct_exit = ("TIMEOUT", "0:0") if tl else ("PREEMPTED", "0:0")
        t_end = t_pre + td(seconds=34)
        run.note("job %s; survivors then report coordination-leader loss (misleading: points at task 0)" % ("hit its time limit" if tl else "preempted by the scheduler"))
    elif cause in ("hang", "data_loader_stall"):
        # culprit stops; others block in the next collective
        t_stop = t_fail
        if cause == "data_loader_stall":
            K(ch, t_stop - td(seconds=r.uniform(5, 60)), nfs_stall_text(r, r.choice(["nfs-data01", "vast-01", "isilon2"])))
            for k in range(r.randint(2, 4)):
                tt = t_stop + td(seconds=120 * (k + 1))
                P(culprit, tt, jpy(c, tstamp(culprit, tt), "W", ptid[culprit], "input_pipeline.py:%d" % 211) + "process %d: still waiting for next batch after %.1fs (prefetch buffer empty, %d reader threads blocked)" % (culprit, 120.0 * (k + 1) + r.uniform(0, 1), r.choice([8, 16, 32])))
            run.note("input pipeline of process %d stalled on a hung filesystem on %s; others wait in the next collective" % (culprit, ch))
        else:
            run.note("process %d stopped making progress (deadlocked host thread); others wait" % culprit)
        barrier = r.random() < 0.5
        pyspy = r.random() < 0.6
        if barrier:
            bid = "checkpoint_step_%d" % (stepnow + log_every)
            t_b = t_stop + td(seconds=r.choice([300, 600, 1200]))
            survivors = [i for i in range(world) if i != culprit]
            for i in (survivors if world <= 64 else sample_ranks(r, world, [0], 30)):
                if i == culprit:
                    continue
                msg = "DEADLINE_EXCEEDED: Barrier timed out. Barrier_id: %s. Timed out task names:\n%s\n\nAdditional GRPC error information from remote target coordination_service while calling /tensorflow.CoordinationService/Barrier:\n:{\"created\":\"@%d.%s\",\"description\":\"Error received from peer ipv4:%s:%s\",\"file\":\"external/com_github_grpc_grpc/src/core/lib/surface/call.cc\",\"file_line\":1056,\"grpc_message\":\"Barrier timed out. Barrier_id: %s. Timed out task names:\\n%s\\n\",\"grpc_status\":4}" % (bid, jax_task(culprit), int((t_b - dtm.datetime(1970, 1, 1)).total_seconds()), us(t_b), ips[hosts[0]], coord.split(":")[1], bid, jax_task(culprit)) if c["style"] == "tf" else \
                    "DEADLINE_EXCEEDED: Barrier timed out. Id: %s::0. This usually happens because a task triggered the barrier too early or too slowly. Please look at the task logs (both timed out and first task) to debug further.\n# of tasks that reached the barrier: %d/%d.\nThe first task at the barrier: %s. Some timed out task names:\n%s\n [type.googleapis.com/tensorflow.CoordinationServiceError='']" % (bid, world - 1, world, jax_task(0 if culprit != 0 else 1), jax_task(culprit))
                fr = err_frames[:-1] + [(err_frames[-1][0], err_frames[-1][1] + 23, err_frames[-1][2], "client.wait_at_barrier(f'checkpoint_step_{step}', timeout_in_ms=%d)" % ((t_b - t_stop).total_seconds() * 1000)),]
                P(i, t_b + td(seconds=r.uniform(0, 1)), "\n".join(py_tb(fr, "%s: %s" % (c["xre"], msg), c["py311"])))
            srun_lines += srun_tail(t_b + td(seconds=2), None, "", "Exited with exit code 1", others=survivors)
            srun_lines.append((t_b + td(seconds=3), "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
            srun_lines.append((t_b + td(seconds=35), "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (jobid, hosts[0], f_slurm(t_b + td(seconds=35)))))
            srun_lines += srun_tail(t_b + td(seconds=36), None, "", "Killed", others=[culprit])
            t_end = t_b + td(seconds=37)
            run.rank_inferable = True
            run.note("coordination barrier timeout names the missing task")
        else:
            t_k = t_stop + td(seconds=r.uniform(1800, 14000))
            tl = r.random() < 0.5
            if tl:
                srun_lines.append((t_k, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (jobid, hosts[0], f_slurm(t_k))))
                sacct_state = "TIMEOUT"
            else:
                srun_lines.append((t_k, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s ***" % (jobid, hosts[0], f_slurm(t_k))))
                sacct_state = "CANCELLED by %d" % r.randint(20000, 60000)
            srun_lines.append((t_k, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
            srun_lines += srun_tail(t_k + td(seconds=33), None, "", "Killed")
            sacct_exit = "0:15"
            t_end = t_k + td(seconds=34)
            run.rank_inferable = pyspy or cause == "data_loader_stall"
            run.note("no timeout fired; job was %s" % ("killed at its time limit" if tl else "scancel'ed by the user"))
        if pyspy:
            others_on = [i for i in range(world) if i != culprit][:1]
            dump = []
            for i in [culprit] + others_on:
                dump += ["$ py-spy dump --pid %d   # on %s" % (pid_of[i], host_of[i]),
                         "Process %d: python3 -u %s --config=%s" % (pid_of[i], c["entry"], cfg_name),
                         "Python v3.%d.%d (/usr/bin/python3.%d)" % ((11, 8, 11) if c["py311"] else (10, 12, 10)), ""]
                if i == culprit:
                    if cause == "data_loader_stall":
                        stack = ["    read (array_record/python/array_record_module.py)", "    __getitem__ (grain/_src/python/data_sources.py:%d)" % r.randint(100, 300), "    _read_next (input_pipeline/_grain_data_processing.py:96)", "    __next__ (input_pipeline/_input_pipeline_utils.py:%d)" % r.randint(60, 140), "    train_loop (%s:%d)" % (err_frames[-1][0].split("/")[-1], err_frames[-1][1] - 6)]
                    else:
                        stack = ["    _wait_for_tstate_lock (threading.py:1116)", "    join (threading.py:1096)", "    wait_until_finished (orbax/checkpoint/async_checkpointer.py:%d)" % r.randint(200, 260), "    save (orbax/checkpoint/checkpoint_manager.py:%d)" % r.randint(1200, 1300), "    train_loop (%s:%d)" % (err_frames[-1][0].split("/")[-1], err_frames[-1][1] + 20)]
                else:
                    stack = ["    _pjit_call_impl_python (jax/_src/pjit.py:%d)" % r.randint(1200, 1400), "    call_impl_cache_miss (jax/_src/pjit.py:%d)" % r.randint(1400, 1500), "    bind_with_trace (jax/_src/core.py:%d)" % r.randint(380, 420), "    cache_miss (jax/_src/pjit.py:%d)" % r.randint(180, 300), "    train_loop (%s:%d)" % (err_frames[-1][0].split("/")[-1], err_frames[-1][1])]
                dump += ['Thread %d (%s): "MainThread"' % (pid_of[i], "idle" if i == culprit else "active+gil")] + stack + [""]
            run.put("py-spy_dumps.txt", dump)
            if not hostmap_print:
                run.put("py-spy_dumps.txt", ["# pids: " + ", ".join("task %d -> pid %d" % (i, pid_of[i]) for i in [culprit] + others_on)])
        run.rank, run.node = culprit, ch
    elif cause == "straggler":
        slow_local = clocal
        K(ch, t_train + td(seconds=dur * 0.2), thermal_text(r))
        run.put("nvidia-smi-perf_%s.txt" % ch, ["$ nvidia-smi -q -d PERFORMANCE   # run on %s during the job" % ch] + nvsmi_perf(r, gpn, slow_local, model))
        if r.random() < 0.55:
            t_done = t_fail + td(seconds=r.uniform(60, 300))
            P(0, t_done, jpy(c, tstamp(0, t_done), "I", ptid[0], "train.py:1031") + "Training finished after %d steps" % (last_step + log_every))
            sacct_state, sacct_exit = "COMPLETED", "0:0"
            t_end = t_done + td(seconds=5)
            run.note("job finished, but step time drifted up ~%d%%; one GPU on %s thermally throttled" % (90, ch))
        else:
            srun_lines.append((t_fail, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (jobid, hosts[0], f_slurm(t_fail))))
            srun_lines.append((t_fail, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
            srun_lines += srun_tail(t_fail + td(seconds=33), None, "", "Killed")
            sacct_state, sacct_exit = "TIMEOUT", "0:0"
            t_end = t_fail + td(seconds=34)
            run.note("slow run hit the time limit; step time drifted up; throttled GPU on %s" % ch)
        run.rank, run.node = culprit if ppn > 1 else culprit, ch
        if ppn > 1:
            run.rank = hosts.index(ch) * ppn + slow_local
            culprit = run.rank
        run.rank_inferable = hostmap_print or label
    elif cause == "unknown":
        msg_kind = r.choice(["nccl", "kv"])
        for i in (range(world) if world <= 64 else sample_ranks(r, world, [0], 40)):
            tt = tstamp(i, t_fail + td(seconds=r.uniform(0, 2)))
            if msg_kind == "nccl":
                msg = "INTERNAL: NCCL operation ncclGroupEnd() failed: unhandled system error (run with NCCL_DEBUG=INFO for details). Last NCCL warning(error) log entry (may be unrelated) 'Call to ibv_modify_qp failed with error Connection timed out'."
            else:
                msg = "DEADLINE_EXCEEDED: GetKeyValue() timed out with key: nccl_clique_unique_id:devices=[%s]; stream=0; incarnations=[...] and duration: 10m [type.googleapis.com/tensorflow.CoordinationServiceError='']" % ",".join(str(x) for x in range(min(world * (gpn // ppn), 16)))
            P(i, t_fail, "\n".join([jx(c, tt, "E", pid_of[i], "external/xla/xla/pjrt/pjrt_stream_executor_client.cc", 3067 if c["style"] == "absl" else 2732) + "Execution of replica 0 failed: " + msg] + xla_exc(msg)))
        srun_lines += srun_tail(t_fail + td(seconds=4), None, "", "Exited with exit code 1")
        t_end = t_fail + td(seconds=6)
        run.note("every process fails the same collective at once; nothing names an initiator")
    # decoys for failed runs
    if cause is not None and r.random() < 0.55:
        others = [h for h in hosts if h != ch] or hosts
        oh = r.choice(others)
        if cause in ("unknown", "preemption", "network") and ch is None:
            oh = r.choice(hosts)
        evs, xid = decoy_xid_block(r, t0, oh)
        for t, ln in evs:
            K(oh, t - td(seconds=skew[oh]), [ln])
        run.note("decoy: old Xid %d on %s" % (xid, oh))

    # ------------------------------------------------------------ render slurm out
    w = len(str(world - 1))
    out = []
    for e in S.sorted():
        if not e.text:
            continue
        for ln in e.text.split("\n"):
            if isinstance(e.src, int) and label:
                out.append("%*d: %s" % (w, e.src, ln))
            else:
                out.append(ln)
    for t, ln in sorted(srun_lines, key=lambda x: x[0]):
        out.append(ln)
    # srun lines must be interleaved by time: rebuild with a merged stream
    merged = Stream()
    for e in S.evs:
        merged.evs.append(e)
    merged.n = S.n
    for t, ln in srun_lines:
        merged.add(t, "srun", ln)
    out = []
    for e in merged.sorted():
        if not e.text:
            continue
        for ln in e.text.split("\n"):
            if isinstance(e.src, int) and label:
                out.append("%*d: %s" % (w, e.src, ln))
            else:
                out.append(ln)
    cap = 9000
    if len(out) > cap:
        out = out[:cap // 3] + out[-(cap * 2 // 3):]
        run.note("slurm output trimmed by the user (head+tail)")
    run.put("slurm-%d.out" % jobid, out)

    # kernel logs: culprit host + decoy hosts
    for h in hosts:
        if h not in kern:
            continue
        evs = kern[h] + kernel_noise(r, t0 - td(hours=2), t_end + td(minutes=5), r.randint(3, 12))
        hn = h + (fqdn if (fqdn and kstyle in ("syslog", "journal")) else "")
        if fqdn and kstyle in ("syslog", "journal") and h == run.node:
            run.aliases.append(hn)
        name = {"dmesgT": "dmesg-T_%s.txt", "raw": "dmesg_%s.txt", "syslog": "syslog_%s.txt", "journal": "journalctl-k_%s.txt"}[kstyle] % h
        run.put(name, kernel_file(r, hn, kstyle, evs, boot[h]))
    # sacct
    el = (t_end - t0).total_seconds()
    sa = ["       JobID    JobName  Partition      State ExitCode        NodeList    Elapsed ",
          "------------ ---------- ---------- ---------- -------- --------------- ---------- "]
    part = r.choice(["gpu", "a100", "h100", "batch", "preempt"])
    nl = hostlist(hosts)
    sa.append("%12s %10s %10s %10s %8s %15s %10s " % (jobid, cfg_name[:10], part, sacct_state[:10], sacct_exit, nl[:15], elapsed_slurm(el)))
    sa.append("%12s %10s %10s %10s %8s %15s %10s " % ("%d.bat+" % jobid, "batch", "", sacct_state[:10] if not sacct_state.startswith("CANCELLED") else "CANCELLED", sacct_exit, hosts[0][:15], elapsed_slurm(el)))
    sa.append("%12s %10s %10s %10s %8s %15s %10s " % ("%d.ext+" % jobid, "extern", "", "COMPLETED", "0:0", nl[:15], elapsed_slurm(el)))
    sa.append("%12s %10s %10s %10s %8s %15s %10s " % ("%d.0" % jobid, "python3", "", (sacct_state if sacct_state in ("COMPLETED", "OUT_OF_ME+", "FAILED") else ("OUT_OF_ME+" if sacct_state == "OUT_OF_MEMORY" else "CANCELLED")), sacct_exit if sacct_state != "OUT_OF_MEMORY" else "0:125", nl[:15], elapsed_slurm(el - 20)))
    if r.random() < 0.7:
        run.put("sacct.txt", ["$ sacct -j %d --format=JobID,JobName,Partition,State,ExitCode,NodeList,Elapsed" % jobid] + sa)
    if run.node:
        run.aliases.append(ips.get(run.node))
        if fqdn:
            pass
    run.note("JAX %s, %d processes on %d nodes (%s per process), label=%s" % (c["ver"], world, N, "8 GPUs" if ppn == 1 else "1 GPU", label))
    return world


# ----------------------------------------------------------------------------------------
# TensorFlow helpers (MWMS and Horovod+Keras)
# ----------------------------------------------------------------------------------------

TF_VERSIONS = [("2.12.0", "tensorflow/tsl", "tensorflow/compiler/xla", 2, "3.10"),
               ("2.13.1", "tensorflow/tsl", "tensorflow/compiler/xla", 2, "3.10"),
               ("2.14.1", "external/local_tsl/tsl", "external/local_xla/xla", 2, "3.11"),
               ("2.15.1", "external/local_tsl/tsl", "external/local_xla/xla", 2, "3.11"),
               ("2.16.1", "external/local_tsl/tsl", "external/local_xla/xla", 3, "3.11"),
               ("2.17.0", "external/local_xla/xla/tsl", "external/local_xla/xla", 3, "3.11")]


def tf_ctx(r):
    v = r.choice(TF_VERSIONS)
    c = {"ver": v[0], "tsl": v[1], "xla": v[2], "keras": v[3], "py": v[4]}
    c["site"] = "/usr/local/lib/python%s/dist-packages" % v[4]
    c["keras_pkg"] = "keras/src" if v[3] == 3 or v[0] >= "2.13" else "keras"
    c["fn_id"] = r.randint(3000, 90000)
    return c


def tf_startup(c, r, t, tfdev_job, gpus_local, model, phys=None, pcis=None, server=None):
    """TF C++/python startup chatter for one process"""
    L = []
    if c["ver"] >= "2.14" and c["ver"] < "2.17":
        L.append(f_tf(t, "E", "%s/stream_executor/cuda/cuda_dnn.cc:9261" % c["xla"]) + "Unable to register cuDNN factory: Attempting to register factory for plugin cuDNN when one has already been registered")
        L.append(f_tf(t + td(microseconds=40), "E", "%s/stream_executor/cuda/cuda_fft.cc:607" % c["xla"]) + "Unable to register cuFFT factory: Attempting to register factory for plugin cuFFT when one has already been registered")
        L.append(f_tf(t + td(microseconds=1500), "E", "%s/stream_executor/cuda/cuda_blas.cc:1515" % c["xla"]) + "Unable to register cuBLAS factory: Attempting to register factory for plugin cuBLAS when one has already been registered")
    L.append(f_tf(t + td(milliseconds=30), "I", "tensorflow/core/platform/cpu_feature_guard.cc:182") + "This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.")
    L.append("To enable the following instructions: AVX2 AVX512F AVX512_VNNI FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.")
    if c["ver"] >= "2.14" and r.random() < 0.6:
        L.append(f_tf(t + td(milliseconds=900), "W", "tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38") + "TF-TRT Warning: Could not find TensorRT")
    tt = t + td(seconds=3, milliseconds=r.randint(0, 900))
    for g in range(gpus_local):
        pg = phys[g] if phys else g
        pci = pcis[g] if pcis else pci_of(pg, 8)
        L.append(f_tf(tt + td(milliseconds=g * 9), "I", "tensorflow/core/common_runtime/gpu/gpu_device.cc:%d" % (1886 if c["ver"] < "2.14" else 1929)) + "Created device %s/device:GPU:%d with %d MB memory:  -> device: %d, name: %s, pci bus id: %s, compute capability: %s" % (tfdev_job, g, int(model[1] * 0.963), pg, model[0], pci, model[2]))
    if server:
        L.append(f_tf(tt + td(milliseconds=200), "I", "tensorflow/core/distributed_runtime/rpc/grpc_server_lib.cc:457") + "Started server with target: grpc://%s" % server)
    return L


def tf_keras_frames(c, script, line):
    site = c["site"]
    if c["keras"] == 3:
        return [(script, line, "<module>", "model.fit("),
                (site + "/keras/src/utils/traceback_utils.py", 122, "error_handler", "raise e.with_traceback(filtered_tb) from None"),
                (site + "/tensorflow/python/eager/execute.py", 53, "quick_execute", "tensors = pywrap_tfe.TFE_Py_Execute(ctx._handle, device_name, op_name,")]
    return [(script, line, "<module>", "history = model.fit(train_ds, epochs=args.epochs, steps_per_epoch=steps_per_epoch, callbacks=callbacks)"),
            (site + "/keras/src/utils/traceback_utils.py" if c["ver"] >= "2.13" else site + "/keras/utils/traceback_utils.py", 70, "error_handler", "raise e.with_traceback(filtered_tb) from None"),
            (site + "/tensorflow/python/eager/execute.py", 53 if c["ver"] >= "2.13" else 52, "quick_execute", "tensors = pywrap_tfe.TFE_Py_Execute(ctx._handle, device_name, op_name,")]


def tf_err(c, frames, cls, msg, node, py311):
    exc = "tensorflow.python.framework.errors_impl.%s: %s\n\t [[{{node %s}}]] [Op:__inference_train_function_%d]" % (cls, msg, node, c["fn_id"])
    return py_tb(frames, exc, py311)


def tf_oom(c, r, frames, dev, py311):
    shp = r.choice(["[64,16,512,512]", "[256,56,56,256]", "[32,2048,4096]", "[128,1024,1024]"])
    node = r.choice(["model/encoder/layer_11/attention/MatMul", "gradient_tape/model/conv5_block3_3_conv/Conv2D/Conv2DBackpropFilter", "model/transformer/block_23/mlp/dense_1/Relu"])
    msg = "Graph execution error:\n\nDetected at node '%s' defined at (most recent call last):\n  File \"%s\", line %d, in <module>\n\nOOM when allocating tensor with shape%s and type %s on %s by allocator GPU_%s_bfc\n\t [[{{node %s}}]]\nHint: If you want to see a list of allocated tensors when OOM happens, add report_tensor_allocations_upon_oom to RunOptions for current allocation info. This isn't available when running in Eager mode.\n" % (node, frames[0][0], frames[0][1], shp, r.choice(["float", "half"]), dev, dev.split(":")[-1], node)
    return py_tb(frames, "tensorflow.python.framework.errors_impl.ResourceExhaustedError: %s [Op:__inference_train_function_%d]" % (msg, c["fn_id"]), py311), node, shp


# ----------------------------------------------------------------------------------------
# Layout 2: TensorFlow MultiWorkerMirroredStrategy on Kubernetes (TFJob)
# ----------------------------------------------------------------------------------------

def gen_tf_mwms_k8s(run):
    r = run.r
    cause = run.cause
    c = tf_ctx(r)
    bump(run, "tf", c["ver"])
    py311 = c["py"] == "3.11"
    model = r.choice(GPU_MODELS[:4])
    gpl = r.choice([1, 2, 4, 8, 8])
    world = pick_world(r, [2, 3, 4, 6, 8, 12, 16, 32, 64], [4, 2, 5, 2, 4, 1, 2, 1, 1])
    cloud = r.choice(["gke", "eks", "onprem"])
    jobname = r.choice(["bert-mwms", "resnet50-mwms", "recsys-dlrm", "t5-mwms", "effnet-b7", "wide-deep"])
    ns = r.choice(["default", "ml-team", "kubeflow-user", "research"])
    pods = ["%s-worker-%d" % (jobname, i) for i in range(world)]
    # nodes: one worker per node
    if cloud == "gke":
        pool = "gke-%s-%s-%s" % (r.choice(["ml-prod", "train", "research"]), r.choice(["a100-pool", "gpu-a2", "h100-a3"]), hexs(r, 8))
        nodes = ["%s-%s" % (pool, alnum(r, 4)) for _ in range(world)]
    elif cloud == "eks":
        nodes = ["ip-10-%d-%d-%d.ec2.internal" % (r.randint(0, 3), r.randint(0, 255), r.randint(2, 254)) for _ in range(world)]
    else:
        nodes = ["k8s-gpu-%02d" % n for n in sorted(r.sample(range(1, 180), world))]
    if len(set(nodes)) < len(nodes):
        nodes = ["%s-%d" % (n, i) for i, n in enumerate(nodes)]
    node_ip = ["10.%d.%d.%d" % (r.randint(100, 130), r.randint(0, 15), r.randint(2, 250)) for _ in range(world)]
    pod_ip = ["10.%d.%d.%d" % (r.randint(40, 90), r.randint(0, 200), r.randint(2, 250)) for _ in range(world)]
    port = 2222
    addrs = ["%s.%s.svc:%d" % (p, ns, port) for p in pods]
    skew = [r.uniform(-1.5, 1.5) for _ in range(world)]
    comm = r.choice(["NCCL", "NCCL", "RING", "AUTO"])
    ncclv = r.choice([(2, 16, 5), (2, 18, 3), (2, 18, 6)])
    timestamps = r.random() < 0.4
    t0 = run.t0
    logs = {i: Stream() for i in range(world)}
    k8s_events = []
    culprit = r.randrange(world) if cause else None
    if culprit is not None and r.random() < 0.15:
        culprit = 0
    script = r.choice(["/workspace/train_mwms.py", "/app/trainer/task.py", "/opt/ml/code/main.py"])
    fit_line = r.randint(120, 320)
    frames = tf_keras_frames(c, script, fit_line)
    chk_health = r.random() < 0.5

    def W(i, t, text):
        logs[i].add(t + td(seconds=skew[i]), "w", text)

    def T(i, t):
        return t + td(seconds=skew[i])

    # ------------------------------------------------ startup
    tstart = t0 + td(seconds=r.uniform(20, 90))
    for i in range(world):
        t = tstart + td(seconds=r.uniform(0, 25))
        tfc = {"cluster": {"worker": addrs}, "task": {"type": "worker", "index": i}, "environment": "cloud"}
        L = ["TF_CONFIG=%s" % json.dumps(tfc)]
        L += tf_startup(c, r, T(i, t), "/job:worker/replica:0/task:%d" % i, gpl, model, server=addrs[i])
        if c["ver"] >= "2.10":
            if i == 0:
                L.append(f_tf(T(i, t + td(seconds=4)), "I", "%s/distributed_runtime/coordination/coordination_service.cc:%d" % (c["tsl"], 535 if c["ver"] < "2.14" else 553)) + "/job:worker/replica:0/task:%d has connected to coordination service. Incarnation: %d" % (0, r.randint(10 ** 18, 9 * 10 ** 18)))
            L.append(f_tf(T(i, t + td(seconds=5)), "I", "%s/distributed_runtime/coordination/coordination_service_agent.cc:%d" % (c["tsl"], 298 if c["ver"] < "2.14" else 301)) + "Coordination agent has successfully connected.")
        devs = ["/job:worker/replica:0/task:%d/device:CPU:0" % j for j in range(min(world, 2))]
        L.append("INFO:tensorflow:Enabled multi-worker collective ops with available devices: [%s]" % ", ".join("'/job:worker/replica:0/task:%d/device:%s'" % (i, d) for d in (["CPU:0"] + ["GPU:%d" % g for g in range(gpl)])))
        L.append("INFO:tensorflow:Using MirroredStrategy with devices (%s)" % ", ".join("'/job:worker/task:%d/device:GPU:%d'" % (i, g) for g in range(gpl)) + ("," if gpl == 1 else ""))
        L.append("INFO:tensorflow:MultiWorkerMirroredStrategy with cluster_spec = {'worker': [%s]}, task_type = 'worker', task_id = %d, num_workers = %d, local_devices = (%s), communication = CommunicationImplementation.%s" % (", ".join("'%s'" % a for a in addrs), i, world, ", ".join("'/job:worker/task:%d/device:GPU:%d'" % (i, g) for g in range(gpl)) + ("," if gpl == 1 else ""), comm))
        L.append("INFO:tensorflow:%s" % ("Check health not enabled." if not chk_health else "Checking health of the cluster every 30 seconds."))
        W(i, t, "\n".join(L))
    t_train = tstart + td(seconds=r.uniform(90, 300))
    for i in range(world):
        W(i, t_train - td(seconds=5), f_tf(T(i, t_train - td(seconds=5)), "W", "tensorflow/core/grappler/optimizers/data/auto_shard.cc:786") + "AUTO sharding policy will apply DATA sharding policy as it failed to apply FILE sharding policy because of the following reason: Found an unshardable source dataset: name: \"TensorSliceDataset/_2\"\nop: \"TensorSliceDataset\"\ninput: \"Placeholder/_0\"\ninput: \"Placeholder/_1\"\nattr {\n  key: \"Toutput_types\"\n  value {\n    list {\n      type: DT_STRING\n      type: DT_INT64\n    }\n  }\n}")
        if comm in ("NCCL", "AUTO") and (r.random() < 0.4):
            W(i, t_train, "%s:%d:%d [0] NCCL INFO Bootstrap : Using eth0:%s<0>\nNCCL version %d.%d.%d+cuda12.2" % (pods[i], r.randint(1, 90), r.randint(100, 900), pod_ip[i], ncclv[0], ncclv[1], ncclv[2]))
    # ------------------------------------------------ training
    epochs = r.randint(5, 60)
    spe = r.choice([500, 1000, 1250, 2000, 3125])
    ms_step = r.randint(90, 900)
    ep_sec = spe * ms_step / 1000.0
    dur = r.uniform(1800, 20 * 3600)
    n_ep_done = max(1, min(epochs - 1, int(dur / ep_sec)))
    t_fail = t_train + td(seconds=n_ep_done * ep_sec + r.uniform(0.1, 0.9) * ep_sec)
    slow = cause == "straggler"
    for e in range(n_ep_done + (1 if run.healthy else 0)):
        te = t_train + td(seconds=(e + 1) * ep_sec)
        loss = 2.5 * (0.3 + 0.7 * 0.8 ** e) + r.uniform(-0.02, 0.02)
        acc = min(0.99, 0.35 + 0.6 * (1 - 0.8 ** e))
        for i in range(world):
            W(i, te - td(seconds=ep_sec), "Epoch %d/%d" % (e + 1, epochs))
            msps = ms_step * (1 + (0.8 * min(1.0, e / 3.0) if slow else 0))
            if c["keras"] == 3:
                W(i, te, "%d/%d - %ds - %dms/step - accuracy: %.4f - loss: %.4f" % (spe, spe, int(spe * msps / 1000), msps, acc, loss))
            else:
                W(i, te, "%d/%d - %ds - loss: %.4f - accuracy: %.4f - %ds/epoch - %dms/step" % (spe, spe, int(spe * msps / 1000), loss, acc, int(spe * msps / 1000), msps))
        if slow:
            for i in range(world):
                comp = ms_step * r.uniform(0.55, 0.62) * (1.8 if i == culprit else 1.0)
                W(i, te + td(seconds=1), "INFO:root:[timing] worker %d epoch %d: mean step compute %.1f ms, mean allreduce wait %.1f ms" % (i, e + 1, comp, max(3.0, ms_step * 1.8 * 0.6 - comp) if i != culprit else r.uniform(2, 9)))
    # ------------------------------------------------ incident
    ch = nodes[culprit] if culprit is not None else None
    pod_state = {i: ("Running", 0, "") for i in range(world)}
    node_journal = {}

    def J(i, t, lines):
        node_journal.setdefault(i, [])
        for j, ln in enumerate(lines):
            node_journal[i].append((T(i, t) + td(microseconds=j * 51), ln))

    def collective_abort(t, reason, exc_cls="UnavailableError", skip=(), peer=None):
        """other workers fail their CollectiveReduceV2"""
        for i in range(world):
            if i in skip:
                continue
            tt = t + td(seconds=r.uniform(0, 2.5))
            L = []
            if chk_health and peer is not None:
                L.append("WARNING:tensorflow:%s seems down, retrying 1/3" % "/job:worker/replica:0/task:%d" % peer)
                L.append("WARNING:tensorflow:%s seems down, retrying 2/3" % "/job:worker/replica:0/task:%d" % peer)
                L.append("ERROR:tensorflow:Cluster check alive failed, /job:worker/replica:0/task:%d is down, aborting collectives: %s" % (peer, reason.split("\n")[0]))
                msg = "Collective ops is aborted by: cluster check alive failed, /job:worker/replica:0/task:%d is down\nThe error could be from a previous operation. Restart your program to reset." % peer
            else:
                msg = "Collective ops is aborted by: %s\nThe error could be from a previous operation. Restart your program to reset." % reason
            L.append(f_tf(T(i, tt), "E", "tensorflow/core/common_runtime/base_collective_executor.cc:249") + "BaseCollectiveExecutor::StartAbort %s: %s" % ("UNAVAILABLE" if exc_cls == "UnavailableError" else "INTERNAL", reason.split("\n")[0]))
            L += tf_err(c, frames, exc_cls, msg, "CollectiveReduceV2", py311)
            W(i, tt, "\n".join(L))
            pod_state[i] = ("Error", 1, "")

    t_end = t_fail + td(seconds=60)
    drain = cause in DRAIN_CAUSES
    if cause is None:
        te = t_train + td(seconds=(n_ep_done + 1) * ep_sec)
        for i in range(world):
            W(i, te + td(seconds=5), f_tf(T(i, te + td(seconds=5)), "W", "tensorflow/core/kernels/data/generator_dataset_op.cc:108") + "Error occurred when finalizing GeneratorDataset iterator: FAILED_PRECONDITION: Python interpreter state is not initialized. The process may be terminated.\n\t [[{{node PyFunc}}]]")
            pod_state[i] = ("Completed", 0, "")
        if r.random() < 0.6:
            i = r.randrange(world)
            tw = t_train + td(seconds=ep_sec * 0.5)
            W(i, tw, f_tf(T(i, tw), "W", "%s/framework/cpu_allocator_impl.cc:83" % c["tsl"]) + "Allocation of %d exceeds 10%% of free system memory." % r.choice([1073741824, 2147483648, 805306368]))
        if r.random() < 0.5:
            i = r.randrange(1, world)
            tw = tstart + td(seconds=2)
            W(i, tw, f_tf(T(i, tw), "E", "%s/distributed_runtime/coordination/coordination_service_agent.cc:%d" % (c["tsl"], 711)) + "Failed to connect to coordination service. Retrying... UNAVAILABLE: failed to connect to all addresses; last error: UNKNOWN: ipv4:%s:%d: Failed to connect to remote host: Connection refused" % (pod_ip[0], port))
            run.note("decoy: worker %d retried connecting to the coordination service at startup" % i)
        if r.random() < 0.4:
            k8s_events.append((t0 + td(seconds=30), "Warning", "FailedScheduling", "pod/%s" % pods[-1], "0/%d nodes are available: %d Insufficient nvidia.com/gpu. preemption: 0/%d nodes are available: %d No preemption victims found for incoming pod." % (world + 3, world + 3, world + 3, world + 3)))
        t_end = te + td(seconds=10)
        run.note("healthy TFJob; benign TF startup 'Unable to register' errors and auto-shard warnings")
    elif cause in ("gpu_hardware", "ecc_memory", "illegal_memory_access"):
        g = r.randrange(gpl)
        pci = pci_of(g, 8)
        xid = {"gpu_hardware": r.choice([79, 119]), "ecc_memory": r.choice([48, 94, 95]), "illegal_memory_access": r.choice([13, 31])}[cause]
        if cause != "illegal_memory_access" or r.random() < 0.6:
            J(culprit, t_fail - td(seconds=r.uniform(0.05, 2)), xid_text(r, xid, pci, r.randint(1000, 900000), gpu_idx=g))
        err = {"gpu_hardware": "CUDA_ERROR_UNKNOWN: unknown error" if xid == 79 else "CUDA_ERROR_LAUNCH_TIMEOUT: the launch timed out and was terminated",
               "ecc_memory": "CUDA_ERROR_ECC_UNCORRECTABLE: uncorrectable ECC error encountered",
               "illegal_memory_access": "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered"}[cause]
        L = [f_tf(T(culprit, t_fail), "E", "%s/stream_executor/cuda/cuda_event.cc:29" % c["xla"]) + "Error polling for event status: failed to query event: %s" % err,
             f_tf(T(culprit, t_fail), "F", "tensorflow/core/common_runtime/device/device_event_mgr.cc:223") + "Unexpected Event status: 1",
             "Fatal Python error: Aborted", "",
             "Thread 0x00007f%s (most recent call first):" % hexs(r, 10),
             '  File "%s/tensorflow/python/eager/execute.py", line 53 in quick_execute' % c["site"],
             '  File "%s", line %d in <module>' % (script, fit_line)]
        W(culprit, t_fail, "\n".join(L))
        pod_state[culprit] = ("Error", 134, "")
        collective_abort(t_fail + td(seconds=30 if chk_health else 2), "failed to connect to all addresses\nAdditional GRPC error information from remote target /job:worker/replica:0/task:%d:\n:{\"created\":\"@%d.%s\",\"description\":\"Failed to pick subchannel\",\"file\":\"external/com_github_grpc_grpc/src/core/ext/filters/client_channel/client_channel.cc\",\"file_line\":3940,\"referenced_errors\":[{\"created\":\"@%d.%s\",\"description\":\"failed to connect to all addresses\",\"file\":\"external/com_github_grpc_grpc/src/core/lib/transport/error_utils.cc\",\"file_line\":167,\"grpc_status\":14}]}" % (culprit, 1700000000 + r.randint(0, 9 ** 7), hexs(r, 9), 1700000000 + r.randint(0, 9 ** 7), hexs(r, 9)), skip=(culprit,), peer=culprit)
        run.note("Xid %d on %s GPU %d; worker %d aborted (exit 134); others abort collectives" % (xid, ch, g, culprit) if cause != "illegal_memory_access" else "illegal address on worker %d (exit 134)" % culprit)
        run.rank, run.node, run.rank_inferable, run.drain = culprit, ch, True, drain
    elif cause in ("nvlink", "network"):
        g = r.randrange(gpl)
        if cause == "nvlink":
            J(culprit, t_fail - td(seconds=0.3), xid_text(r, 74, pci_of(g, 8), r.randint(1000, 900000), gpu_idx=g))
            warn = "Cuda failure 'uncorrectable NVLink error detected during the execution'"
            reason = "Error invoking NCCL: unhandled cuda error"
            run.note("Xid 74 NVLink on %s; worker %d NCCL error" % (ch, culprit))
            drain_now = True
        else:
            lines, hca, netdev, _ = nic_down_text(r, r.choice(["ib", "roce"]))
            J(culprit, t_fail - td(seconds=r.uniform(1, 5)), lines)
            peer = (culprit + 1) % world
            warn = nccl_ib_completion(r, ncclv, pod_ip[peer], pod_ip[culprit], hca)
            reason = "Error invoking NCCL: remote process exited or there was a network error"
            run.note("NIC link down on node %s (%s); worker %d NCCL remote error; peers follow" % (ch, netdev, culprit))
            drain_now = True
            run.aliases.append(node_ip[culprit])
        L = ["%s:%d:%d [%d] %s:%d NCCL WARN %s" % (pods[culprit], r.randint(1, 90), r.randint(100, 900), g, r.choice(["transport/net_ib.cc", "enqueue.cc", "transport/net.cc"]), r.randint(100, 1500), warn),
             f_tf(T(culprit, t_fail), "E", "tensorflow/core/common_runtime/base_collective_executor.cc:249") + "BaseCollectiveExecutor::StartAbort UNKNOWN: %s" % reason]
        L += tf_err(c, frames, "UnknownError", "Collective ops is aborted by: %s\nThe error could be from a previous operation. Restart your program to reset." % reason, "CollectiveReduceV2", py311)
        W(culprit, t_fail, "\n".join(L))
        pod_state[culprit] = ("Error", 1, "")
        collective_abort(t_fail + td(seconds=r.uniform(1, 20)), "Error invoking NCCL: remote process exited or there was a network error" if cause == "network" else "Error invoking NCCL: unhandled system error", exc_cls="UnknownError", skip=(culprit,))
        run.rank, run.node, run.rank_inferable, run.drain = culprit, ch, True, drain_now
    elif cause in ("cuda_oom", "python_exception", "collective_mismatch"):
        if cause == "cuda_oom":
            dev = "/job:worker/replica:0/task:%d/device:GPU:%d" % (culprit, r.randrange(gpl))
            L0 = [f_tf(T(culprit, t_fail), "W", "%s/framework/bfc_allocator.cc:%d" % (c["tsl"], 485 if c["ver"] >= "2.14" else 479)) + "Allocator (GPU_%s_bfc) ran out of memory trying to allocate %.2fGiB (rounded to %d)requested by op %s" % (dev[-1], 2.0, 2147483648, "model/encoder/layer_11/attention/MatMul"),
                  f_tf(T(culprit, t_fail), "W", "tensorflow/core/framework/op_kernel.cc:1839") + "OP_REQUIRES failed at matmul_op_impl.h:%d : RESOURCE_EXHAUSTED: OOM when allocating tensor with shape[64,16,512,512] and type float on %s by allocator GPU_%s_bfc" % (r.randint(600, 900), dev, dev[-1])]
            L, _, _ = tf_oom(c, r, frames, dev, py311)
            L = L0 + L
            run.note("OOM on %s (one worker got the long-sequence bucket)" % dev)
        elif cause == "python_exception":
            kind = r.random()
            if kind < 0.5:
                msg = "Graph execution error:\n\nDetected at node 'IteratorGetNext' defined at (most recent call last):\n  File \"%s\", line %d, in <module>\n\ninput must be 3-dimensional[224,224,4]\n\t [[{{node decode_and_resize/resize/ResizeBilinear}}]]\n\t [[MultiDeviceIteratorGetNextFromShard]]\n\t [[RemoteCall]]\n\t [[IteratorGetNext]]" % (script, fit_line)
                L = py_tb(frames, "tensorflow.python.framework.errors_impl.InvalidArgumentError: %s [Op:__inference_train_function_%d]" % (msg, c["fn_id"]), py311)
            else:
                L = py_tb(frames[:1] + [(script, r.randint(40, 110), "parse_example", "label = label_map[features['category'].numpy().decode()]")], "KeyError: '%s'" % r.choice(["Unknown", "n0415_misc", "None"]), py311)
            run.note("uncaught exception on worker %d from a bad record in its shard" % culprit)
        else:
            ncls = r.choice([1000, 100, 365])
            for i in range(world):
                W(i, t_train - td(seconds=40), "Found %d files belonging to %d classes." % (r.randint(10 ** 5, 10 ** 6) if i != culprit else r.randint(10 ** 5, 10 ** 6), ncls + (1 if i == culprit else 0)))
            msg = "Shape mismatch in the collective instance %d. Op at device /job:worker/replica:0/task:%d/device:GPU:0 expected shape [%d] but another member in the group expected shape [%d]. This is likely due to different input shapes at different members of the collective op." % (r.randint(100, 900), culprit, 2048 * (ncls + 1) + ncls + 1, 2048 * ncls + ncls)
            L = [f_tf(T(culprit, t_fail), "E", "tensorflow/core/common_runtime/base_collective_executor.cc:249") + "BaseCollectiveExecutor::StartAbort INVALID_ARGUMENT: " + msg.split(". This")[0]]
            L += tf_err(c, frames, "InvalidArgumentError", "Collective ops is aborted by: %s\nThe error could be from a previous operation. Restart your program to reset." % msg, "CollectiveReduceV2", py311)
            run.note("worker %d's local dataset copy has one extra class directory -> classifier head shape differs" % culprit)
        W(culprit, t_fail, "\n".join(L))
        pod_state[culprit] = ("Error", 1, "")
        collective_abort(t_fail + td(seconds=(30 if chk_health else 1) + r.uniform(0, 5)), "failed to connect to all addresses", skip=(culprit,), peer=culprit)
        run.rank, run.node, run.rank_inferable = culprit, ch, True
    elif cause in ("host_oom_kill", "crash_signal"):
        if cause == "host_oom_kill":
            pod_state[culprit] = ("OOMKilled", 137, "")
            if r.random() < 0.5:
                J(culprit, t_fail, oom_kill_text(r, r.randint(1000, 90000), "python", cgroup=True))
            W(culprit, t_fail - td(seconds=r.uniform(30, 200)), f_tf(T(culprit, t_fail - td(seconds=100)), "W", "%s/framework/cpu_allocator_impl.cc:83" % c["tsl"]) + "Allocation of 4294967296 exceeds 10% of free system memory.")
            run.note("container memory limit: worker %d OOMKilled (exit 137); its log just stops" % culprit)
        else:
            L = ["Fatal Python error: Segmentation fault", "",
                 "Thread 0x00007f%s (most recent call first):" % hexs(r, 10),
                 '  File "%s/tensorflow/python/data/ops/%s", line %d in %s' % (c["site"], r.choice(["iterator_ops.py", "dataset_ops.py"]), r.randint(700, 900), r.choice(["_next_internal", "__next__"])),
                 "", "Current thread 0x00007f%s (most recent call first):" % hexs(r, 10),
                 '  File "%s/tensorflow/python/eager/execute.py", line 53 in quick_execute' % c["site"],
                 '  File "%s", line %d in <module>' % (script, fit_line), "",
                 "Extension modules: google._upb._message, numpy.core._multiarray_umath, tensorflow.python.framework.fast_tensor_util, h5py._errors (total: %d)" % r.randint(80, 200)]
            W(culprit, t_fail, "\n".join(L))
            pod_state[culprit] = ("Error", 139, "")
            run.note("SIGSEGV in worker %d (exit 139), no Xid" % culprit)
        collective_abort(t_fail + td(seconds=(30 if chk_health else 5) + r.uniform(0, 5)), "Socket closed\nAdditional GRPC error information from remote target /job:worker/replica:0/task:%d:\n:{\"created\":\"@%d.%s\",\"description\":\"Error received from peer ipv4:%s:%d\",\"file\":\"external/com_github_grpc_grpc/src/core/lib/surface/call.cc\",\"file_line\":1056,\"grpc_message\":\"Socket closed\",\"grpc_status\":14}" % (culprit, 1700000000 + r.randint(0, 9 ** 7), hexs(r, 9), pod_ip[culprit], port), skip=(culprit,), peer=culprit)
        run.rank, run.node, run.rank_inferable = culprit, ch, True
    elif cause == "preemption":
        pod_state[culprit] = ("Error", 143, "Pod was terminated in response to imminent node shutdown.")
        k8s_events.append((t_fail - td(seconds=30), "Warning", "NodeShutdown", "node/%s" % ch, "Node %s event: Shutdown initiated" % ch if cloud != "gke" else "Spot VM preemption: node %s is being preempted" % ch))
        k8s_events.append((t_fail, "Normal", "Killing", "pod/%s" % pods[culprit], "Stopping container tensorflow"))
        k8s_events.append((t_fail + td(seconds=40), "Warning", "NodeNotReady", "pod/%s" % pods[culprit], "Node is not ready"))
        collective_abort(t_fail + td(seconds=(30 if chk_health else 3) + r.uniform(0, 5)), "failed to connect to all addresses", skip=(culprit,), peer=culprit)
        if cloud == "gke":
            run.put("gcloud_operations.txt", ["$ gcloud compute operations list --filter='operationType=compute.instances.preempted'",
                                             "NAME                                                  TYPE                         TARGET                                          HTTP_STATUS  STATUS  TIMESTAMP",
                                             "systemevent-%d-%s  compute.instances.preempted  us-central1-a/instances/%s  200          DONE    %s" % (r.randint(10 ** 12, 10 ** 13), alnum(r, 5), ch, (t_fail - td(seconds=31)).strftime("%Y-%m-%dT%H:%M:%S.") + ms(t_fail) + "-07:00")])
        run.rank, run.node, run.rank_inferable = None, ch, False
        run.note("spot node %s reclaimed; worker %d terminated (143); others abort" % (ch, culprit))
    elif cause in ("hang", "data_loader_stall"):
        t_to = r.choice([600, 1800, 3600])
        if cause == "data_loader_stall":
            for k in range(r.randint(3, 8)):
                tt = t_fail + td(seconds=10 * (k + 1))
                W(culprit, tt, f_tf(T(culprit, tt), "I", "tensorflow/core/kernels/data/shuffle_dataset_op.cc:%d" % (450 if c["ver"] >= "2.14" else 422)) + "Filling up shuffle buffer (this may take a while): %d of %d" % (k * r.randint(1, 9) + 3, 10000))
            if r.random() < 0.5:
                J(culprit, t_fail - td(seconds=30), nfs_stall_text(r, r.choice(["filestore-ml", "fs-0a1b2c3d.efs.us-east-1.amazonaws.com", "nfs01"])))
            else:
                W(culprit, t_fail + td(seconds=60), f_tf(T(culprit, t_fail + td(seconds=60)), "I", "%s/platform/cloud/gcs_file_system.cc:%d" % (c["tsl"], 2015)) + "The operation failed and will be automatically retried in 1.3 seconds (attempt 1 out of 10), caused by: UNAVAILABLE: Error executing an HTTP request: libcurl code 28 meaning 'Timeout was reached', error details: Operation too slow. Less than 1 bytes/sec transferred the last 60 seconds")
            run.note("worker %d's tf.data pipeline stalled (shuffle buffer refill / storage); others wait in CollectiveReduceV2" % culprit)
        else:
            run.note("worker %d stopped progressing (stuck in a Python callback) while alive; others wait" % culprit)
        timeout_set = r.random() < 0.6
        if timeout_set:
            for i in range(world):
                if i == culprit:
                    continue
                tt = t_fail + td(seconds=t_to + r.uniform(0, 3))
                L = [f_tf(T(i, tt), "E", "tensorflow/core/common_runtime/base_collective_executor.cc:249") + "BaseCollectiveExecutor::StartAbort DEADLINE_EXCEEDED: Collective has timed out during execution."]
                L += tf_err(c, frames, "DeadlineExceededError", "Collective ops is aborted by: Collective has timed out during execution.\nThe error could be from a previous operation. Restart your program to reset.", "CollectiveReduceV2", py311)
                W(i, tt, "\n".join(L))
                pod_state[i] = ("Error", 1, "")
            t_end = t_fail + td(seconds=t_to + 30)
            run.note("CommunicationOptions(timeout_seconds=%d) fired on the others" % t_to)
            run.rank_inferable = cause == "data_loader_stall" or world <= 4
        else:
            t_end = t_fail + td(seconds=r.uniform(3600, 20000))
            k8s_events.append((t_end, "Normal", "Killing", "pod/%s" % pods[0], "Stopping container tensorflow"))
            run.note("no collective timeout configured; the user deleted the TFJob after hours")
            for i in range(world):
                pod_state[i] = ("Terminating", 0, "")
            run.rank_inferable = cause == "data_loader_stall"
        run.rank, run.node = culprit, ch
    elif cause == "straggler":
        if r.random() < 0.6:
            J(culprit, t_train + td(seconds=ep_sec), thermal_text(r))
        run.put("nvidia-smi_%s.txt" % ch, ["$ kubectl exec %s -- nvidia-smi -q -d PERFORMANCE" % pods[culprit]] + nvsmi_perf(r, gpl, r.randrange(gpl), model))
        te = t_train + td(seconds=(n_ep_done + 1) * ep_sec * 1.5)
        for i in range(world):
            pod_state[i] = ("Completed", 0, "")
        t_end = te
        run.rank, run.node, run.rank_inferable = culprit, ch, True
        run.note("job completes but epochs slow down; worker %d compute time ~1.8x, others wait in allreduce" % culprit)
    elif cause == "unknown":
        for i in range(world):
            tt = t_fail + td(seconds=r.uniform(0, 2))
            L = [f_tf(T(i, tt), "E", "tensorflow/core/common_runtime/base_collective_executor.cc:249") + "BaseCollectiveExecutor::StartAbort DEADLINE_EXCEEDED: Collective has timed out during execution."]
            L += tf_err(c, frames, "DeadlineExceededError", "Collective ops is aborted by: Collective has timed out during execution.\nThe error could be from a previous operation. Restart your program to reset.", "CollectiveReduceV2", py311)
            W(i, tt, "\n".join(L))
            pod_state[i] = ("Error", 1, "")
        run.note("every worker hits the collective timeout at the same time; nothing names an initiator")
    # decoy Xid on a non-culprit node
    if cause is not None and r.random() < 0.4 and world > 1:
        d = r.choice([i for i in range(world) if i != culprit])
        evs, xid = decoy_xid_block(r, t0, nodes[d])
        for t, ln in evs:
            J(d, t, [ln])
        run.note("decoy: old Xid %d on %s" % (xid, nodes[d]))

    # ------------------------------------------------ render files
    attach = list(range(world)) if world <= 8 else sample_ranks(r, world, [0, culprit] if (culprit is not None and r.random() < 0.75) else [0], r.randint(4, 7))
    if culprit is not None and culprit not in attach:
        run.note("culprit worker log not attached (sampled workers %s)" % attach)
        if cause in ("hang", "straggler", "data_loader_stall"):
            run.rank_inferable = False
        elif cause in ("cuda_oom", "python_exception", "collective_mismatch") and not chk_health:
            run.rank_inferable = False
            run.note("no health check, so the survivors' errors do not name the task")
    for i in attach:
        out = []
        for e in logs[i].sorted():
            for ln in e.text.split("\n"):
                if timestamps:
                    out.append("%s.%s%03dZ %s" % (e.t.strftime("%Y-%m-%dT%H:%M:%S"), us(e.t), r.randint(0, 999), ln))
                else:
                    out.append(ln)
        run.put("%s.log" % pods[i].replace(jobname + "-", ""), ["$ kubectl logs -n %s %s%s" % (ns, pods[i], " --timestamps" if timestamps else "")] + out)
    # kubectl get pods
    age = int((t_end - t0).total_seconds() // 3600)
    gp = ["$ kubectl get pods -n %s -o wide -l training.kubeflow.org/job-name=%s" % (ns, jobname),
          "NAME%s READY   STATUS%s RESTARTS   AGE   IP%s NODE%s NOMINATED NODE   READINESS GATES" % (" " * (len(pods[0]) - 2), " " * 8, " " * 12, " " * (max(len(n) for n in nodes) - 2))]
    for i in range(world):
        st = pod_state[i][0]
        gp.append("%-*s 0/1     %-14s 0          %-5s %-14s %-*s <none>           <none>" % (len(pods[0]) + 2, pods[i], st, "%dh" % max(1, age), pod_ip[i], max(len(n) for n in nodes) + 2, nodes[i]))
    run.put("kubectl_get_pods.txt", gp)
    # describe culprit pod when it matters
    if culprit is not None and cause in ("host_oom_kill", "crash_signal", "preemption", "gpu_hardware", "ecc_memory", "illegal_memory_access"):
        st = pod_state[culprit]
        reason = {137: "OOMKilled", 134: "Error", 139: "Error", 143: "Error"}.get(st[1], "Error")
        d = ["$ kubectl describe pod -n %s %s" % (ns, pods[culprit]),
             "Name:             %s" % pods[culprit],
             "Namespace:        %s" % ns,
             "Priority:         0",
             "Service Account:  default",
             "Node:             %s/%s" % (nodes[culprit], node_ip[culprit]),
             "Start Time:       %s" % (t0 + td(seconds=20)).strftime("%a, %d %b %Y %H:%M:%S +0000"),
             "Labels:           training.kubeflow.org/job-name=%s" % jobname,
             "                  training.kubeflow.org/replica-index=%d" % culprit,
             "                  training.kubeflow.org/replica-type=worker",
             "Status:           Failed",
             "IP:               %s" % pod_ip[culprit],
             "Controlled By:  TFJob/%s" % jobname,
             "Containers:",
             "  tensorflow:",
             "    Image:         %s" % r.choice(["tensorflow/tensorflow:%s-gpu" % c["ver"], "nvcr.io/nvidia/tensorflow:24.03-tf2-py3", "us-docker.pkg.dev/ml-prod/train/tf-mwms:%s" % hexs(r, 7)]),
             "    Port:          2222/TCP",
             "    State:          Terminated",
             "      Reason:       %s" % reason,
             "      Exit Code:    %d" % st[1],
             "      Started:      %s" % (t0 + td(seconds=25)).strftime("%a, %d %b %Y %H:%M:%S +0000"),
             "      Finished:     %s" % (t_fail + td(seconds=1)).strftime("%a, %d %b %Y %H:%M:%S +0000"),
             "    Ready:          False",
             "    Restart Count:  0",
             "    Limits:",
             "      cpu:             %d" % (gpl * 12),
             "      memory:          %dGi" % (gpl * 60),
             "      nvidia.com/gpu:  %d" % gpl]
        if st[2]:
            d.insert(d.index("    Ready:          False"), "      Message:      %s" % st[2])
        d += ["Events:",
              "  Type     Reason   Age    From     Message",
              "  ----     ------   ----   ----     -------"]
        if cause == "preemption":
            d.append("  Warning  NodeNotReady  %dm   node-controller  Node is not ready" % r.randint(2, 30))
        else:
            d.append("  <none>")
        run.put("describe_%s.txt" % pods[culprit], d)
    # events
    if k8s_events:
        ev = ["$ kubectl get events -n %s --sort-by=.lastTimestamp" % ns, "LAST SEEN   TYPE      REASON              OBJECT                                MESSAGE"]
        for t, typ, reason, obj, msg in sorted(k8s_events, key=lambda x: x[0]):
            ago = max(1, int((t_end + td(minutes=10) - t).total_seconds() // 60))
            ev.append("%-11s %-9s %-19s %-37s %s" % ("%dm" % ago if ago < 120 else "%dh" % (ago // 60), typ, reason, obj, msg))
        run.put("kubectl_get_events.txt", ev)
    # TFJob status
    nf = sum(1 for i in range(world) if pod_state[i][0] in ("Error", "OOMKilled"))
    if cause is not None and cause not in ("straggler",) and nf > 0:
        run.put("tfjob_status.yaml", ["$ kubectl get tfjob %s -n %s -o yaml | yq .status" % (jobname, ns),
                                      "completionTime: \"%s\"" % t_end.strftime("%Y-%m-%dT%H:%M:%SZ"),
                                      "conditions:",
                                      "- lastTransitionTime: \"%s\"" % t0.strftime("%Y-%m-%dT%H:%M:%SZ"),
                                      "  message: TFJob %s is created." % jobname,
                                      "  reason: TFJobCreated", "  status: \"True\"", "  type: Created",
                                      "- lastTransitionTime: \"%s\"" % (t_fail + td(seconds=2)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                                      "  message: TFJob %s/%s has failed because %d Worker replica(s) failed." % (ns, jobname, max(1, nf)),
                                      "  reason: TFJobFailed", "  status: \"True\"", "  type: Failed",
                                      "replicaStatuses:", "  Worker:", "    failed: %d" % max(1, nf), "    active: %d" % max(0, world - max(1, nf))])
    for i in sorted(node_journal):
        evs = node_journal[i] + kernel_noise(r, t0, t_end, r.randint(2, 6))
        run.put("journalctl-k_%s.txt" % nodes[i], ["$ gcloud compute ssh %s -- sudo journalctl -k --since '%s'" % (nodes[i], (t0 - td(days=10)).strftime("%Y-%m-%d")) if cloud == "gke" else "$ sudo journalctl -k   # on %s" % nodes[i]] +
                kernel_file(r, nodes[i].split(".")[0], "journal", evs, t0))
    if run.node:
        run.aliases += [node_ip[culprit], pods[culprit]]
    run.note("TF %s MWMS, %d workers x %d GPU (%s, comm=%s), %s" % (c["ver"], world, gpl, cloud, comm, "kubectl --timestamps" if timestamps else "plain logs"))
    return world


# ----------------------------------------------------------------------------------------
# Layout 3: Horovod + TF/Keras under mpirun --tag-output (optionally inside Slurm)
# ----------------------------------------------------------------------------------------

def gen_horovod_mpirun(run):
    r = run.r
    cause = run.cause
    c = tf_ctx(r)
    if c["ver"] > "2.15":
        c = dict(c, ver="2.13.1", tsl="tensorflow/tsl", xla="tensorflow/compiler/xla", keras=2, py="3.10",
                 site="/usr/local/lib/python3.10/dist-packages", keras_pkg="keras/src")
    bump(run, "tf", c["ver"])
    py311 = False
    hvd_ver = r.choice(["0.28.1", "0.28.1", "0.27.0"])
    model = r.choice(GPU_MODELS[:4])
    gpn = r.choice([4, 8, 8])
    N = pick_world(r, [1, 2, 4, 8, 16, 32], [2, 5, 5, 3, 1, 1])
    world = N * gpn
    if world < 2:
        world = 2
    slurm = r.random() < 0.45
    style = r.choice(["node%02d", "gpu%02d", "cn%03d", "hpc-gpu-%02d", "ml-worker-%d"])
    base = r.randint(1, 40)
    hosts = [style % (base + i) for i in range(N)]
    host_of = [hosts[i // gpn] for i in range(world)]
    pid_of = [r.randint(3000, 400000) for _ in range(world)]
    ips = {h: "192.168.%d.%d" % (r.randint(1, 30), 10 + k) for k, h in enumerate(hosts)}
    ncclv = r.choice([(2, 18, 3), (2, 18, 5), (2, 19, 3)])
    nccl_info = r.random() < 0.4 and world <= 32
    jobid = r.randint(100000, 9999999)
    mpi_jobfam = r.randint(10000, 65000)
    script = r.choice(["train_hvd.py", "tensorflow2_keras_mnist.py", "keras_imagenet_resnet50.py", "train_ctr.py"])
    frames = [("/home/%s/%s" % (r.choice(USERS), script), r.randint(120, 260), "<module>", "model.fit(train_ds, steps_per_epoch=steps // hvd.size(), callbacks=callbacks, epochs=epochs, verbose=verbose)"),
              (c["site"] + "/keras/utils/traceback_utils.py" if c["ver"] < "2.13" else c["site"] + "/keras/src/utils/traceback_utils.py", 70, "error_handler", "raise e.with_traceback(filtered_tb) from None"),
              (c["site"] + "/tensorflow/python/eager/execute.py", 53 if c["ver"] >= "2.13" else 52, "quick_execute", "tensors = pywrap_tfe.TFE_Py_Execute(ctx._handle, device_name, op_name,")]
    skew = {h: r.uniform(-0.8, 0.8) for h in hosts}
    S = Stream()
    t0 = run.t0

    def T(i, t):
        return t + td(seconds=skew[host_of[i]])

    def P(i, t, text, err=True):
        S.add(t, (i, "stderr" if err else "stdout"), text)

    culprit = r.randrange(world) if cause else None
    if culprit is not None and r.random() < 0.1:
        culprit = 0
    ch = host_of[culprit] if culprit is not None else None
    cl = culprit % gpn if culprit is not None else None
    # ------------------------------------------------ header
    hdr = []
    if slurm:
        hdr.append("Running on %s (SLURM_JOB_ID=%d)" % (hostlist(hosts), jobid))
    cmd = "mpirun -np %d -H %s -bind-to none -map-by slot -x NCCL_DEBUG=%s -x LD_LIBRARY_PATH -x PATH -mca pml ob1 -mca btl ^openib --tag-output python %s" % (world, ",".join("%s:%d" % (h, gpn) for h in hosts), "INFO" if nccl_info else "WARN", script)
    hdr.append("+ " + cmd if slurm else "$ " + cmd)
    S.add(t0, "hdr", "\n".join(hdr))
    # ------------------------------------------------ startup
    tst = t0 + td(seconds=r.uniform(4, 15))
    for i in range(world):
        t = tst + td(seconds=r.uniform(0, 4))
        L = tf_startup(c, r, T(i, t), "/job:localhost/replica:0/task:0", 1, model, phys=[i % gpn], pcis=[pci_of(i % gpn, gpn)])
        P(i, t, "\n".join(L))
        if i == 0 or r.random() < 0.3:
            P(i, t + td(seconds=5), "WARNING:tensorflow:Model was constructed with shape (None, 224, 224, 3) for input KerasTensor(type_spec=TensorSpec(shape=(None, 224, 224, 3), dtype=tf.float32, name='input_1'), name='input_1', description=\"created by layer 'input_1'\"), but it was called on an input with incompatible shape (None, None, None, 3)." if r.random() < 0.3 else "INFO:tensorflow:Mixed precision compatibility check (mixed_float16): OK")
    if nccl_info:
        for i in range(world):
            L = nccl_init_info(r, host_of[i], pid_of[i], i % gpn, i, world, ncclv, ips[host_of[i]], "ib0", ib=True, first=(True))
            P(i, tst + td(seconds=40 + r.uniform(0, 2)), "\n".join(L), err=False)
    # ------------------------------------------------ training
    epochs = r.randint(10, 90)
    steps = r.choice([312, 625, 1251, 2502, 5004])
    spe = max(20, steps)
    ms_step = r.randint(120, 700)
    ep_sec = spe * ms_step / 1000.0
    t_train = tst + td(seconds=r.uniform(60, 200))
    dur = r.uniform(1200, 16 * 3600)
    n_ep = max(1, min(epochs - 1, int(dur / ep_sec)))
    t_fail = t_train + td(seconds=n_ep * ep_sec + r.uniform(0.2, 0.9) * ep_sec)
    slow = cause == "straggler"
    for e in range(n_ep + (1 if run.healthy else 0)):
        te = t_train + td(seconds=(e + 1) * ep_sec)
        P(0, te - td(seconds=ep_sec), "Epoch %d/%d" % (e + 1, epochs), err=False)
        loss = 6.9 * (0.2 + 0.8 * 0.85 ** e)
        acc = min(0.93, 0.05 + 0.9 * (1 - 0.85 ** e))
        msps = ms_step * (1 + (0.7 if slow and e > 0 else 0))
        for q in (0.25, 0.5, 0.75):
            k = int(spe * q)
            bar = "=" * int(29 * q) + ">" + "." * (29 - int(29 * q))
            P(0, te - td(seconds=ep_sec * (1 - q)), "%*d/%d [%s] - ETA: %d:%02d - loss: %.4f - accuracy: %.4f" % (len(str(spe)), k, spe, bar, int(ep_sec * (1 - q)) // 60, int(ep_sec * (1 - q)) % 60, loss + 0.1, acc - 0.01), err=False)
        P(0, te, "%d/%d [==============================] - %ds %dms/step - loss: %.4f - accuracy: %.4f - lr: %.4f" % (spe, spe, int(spe * msps / 1000), msps, loss, acc, 0.1 * hvd_lr_mult(e)), err=False)
        if slow:
            for i in range(world):
                if r.random() < (0.4 if world > 16 else 1.0) or i == culprit:
                    comp = ms_step * 0.6 * (1.75 if i == culprit else 1.0) * r.uniform(0.97, 1.03)
                    P(i, te + td(seconds=1), "rank %d epoch %d: avg compute %.0f ms/step, avg allreduce %.0f ms/step" % (i, e + 1, comp, (ms_step * 1.7 * 0.6 - comp + 20) if i != culprit else r.uniform(10, 25)), err=False)
    # ------------------------------------------------ incident
    kern = {}
    boot = {h: t0 - td(days=r.randint(2, 90)) for h in hosts}

    def K(h, t, lines):
        kern.setdefault(h, [])
        for j, ln in enumerate(lines):
            kern[h].append((t + td(seconds=skew[h], microseconds=j * 29), ln))

    tail = []
    exit_state = "FAILED"
    t_end = t_fail + td(seconds=30)
    shut_msg = "Horovod has been shut down. This was caused by an exception on one of the ranks or an attempt to allreduce, allgather or broadcast a tensor after one of the ranks finished execution. If the shutdown was caused by an exception, you should see the exception in the log before the first shutdown message."
    hv_node = "DistributedSGD_Allreduce/cond_%d/then/_%d/DistributedSGD_Allreduce/cond_%d/HorovodAllreduce_DistributedSGD_Allreduce_cond_%d_Cast_1_0" % ((lambda a: (a, a * 8, a, a))(r.randint(0, 160)))

    def shutdown_others(t, skip):
        idx = [i for i in range(world) if i not in skip]
        if world > 32:
            idx = sample_ranks(r, world, [0], 24)
            idx = [i for i in idx if i not in skip]
        for i in idx:
            P(i, t + td(seconds=r.uniform(0, 1)), "\n".join(tf_err(c, frames, "UnknownError", shut_msg, hv_node, py311)))

    def mpi_nonzero(t, rank, code=1):
        return [(t, "--------------------------------------------------------------------------"),
                (t, "Primary job  terminated normally, but 1 process returned"),
                (t, "a non-zero exit code. Per user-direction, the job has been aborted."),
                (t, "--------------------------------------------------------------------------"),
                (t + td(seconds=2), "--------------------------------------------------------------------------"),
                (t + td(seconds=2), "mpirun detected that one or more processes exited with non-zero status, thus causing"),
                (t + td(seconds=2), "the job to be terminated. The first process to do so was:"),
                (t + td(seconds=2), ""),
                (t + td(seconds=2), "  Process name: [[%d,1],%d]" % (mpi_jobfam, rank)),
                (t + td(seconds=2), "  Exit code:    %d" % code),
                (t + td(seconds=2), "--------------------------------------------------------------------------")]

    def mpi_signal(t, rank, sig, signame):
        return [(t, "--------------------------------------------------------------------------"),
                (t, "Primary job  terminated normally, but 1 process returned"),
                (t, "a non-zero exit code. Per user-direction, the job has been aborted."),
                (t, "--------------------------------------------------------------------------"),
                (t + td(seconds=1), "--------------------------------------------------------------------------"),
                (t + td(seconds=1), "mpirun noticed that process rank %d with PID %d on node %s exited on signal %d (%s)." % (rank, pid_of[rank], host_of[rank], sig, signame)),
                (t + td(seconds=1), "--------------------------------------------------------------------------")]

    if cause is None:
        te = t_train + td(seconds=(n_ep + 1) * ep_sec)
        if r.random() < 0.6:
            i = r.randrange(world)
            P(i, t_train + td(seconds=30), "%s:%d:%d [%d] NCCL INFO %s" % (host_of[i], pid_of[i], pid_of[i] + 77, i % gpn, "NET/IB : Got async event : GID table change") if False else
              "%s:%d:%d [%d] %s" % (host_of[i], pid_of[i], pid_of[i] + 77, i % gpn, r.choice(BENIGN_NCCL_WARN)), err=False)
            run.note("decoy: benign NCCL WARN on rank %d" % i)
        if r.random() < 0.5:
            i = 0
            tw = t_train + td(seconds=ep_sec * 0.3)
            P(i, tw, "[%s: W %s/horovod/common/stall_inspector.cc:107] One or more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting for remainder of ranks for more than 60 seconds. This may indicate that different ranks are trying to submit different tensors or that only subset of ranks is submitting tensors, which will cause deadlock. \nMissing ranks:\n%d: [broadcast_%s]" % (f_tf(T(0, tw), "W", "x")[:26], "/tmp/pip-install-%s/horovod_%s" % (alnum(r, 8), hexs(r, 32)), r.randrange(world), r.choice(["conv1/kernel_0", "dense/bias_0", "bn_conv1/gamma_0"])))
            run.note("decoy: a startup-broadcast stall warning that resolved (slow checkpoint load)")
        if r.random() < 0.5:
            oh = r.choice(hosts)
            evs, xid = decoy_xid_block(r, t0, oh)
            for t, ln in evs:
                K(oh, t - td(seconds=skew[oh]), [ln])
            run.note("decoy: old Xid %d on %s" % (xid, oh))
        P(0, te + td(seconds=4), "Saved final model to %s" % r.choice(["./checkpoints/model-final.h5", "/scratch/ckpt/resnet50/final", "gs://ml-ckpt/ctr/final"]), err=False)
        t_end = te + td(seconds=8)
        exit_state = "COMPLETED"
    elif cause in ("gpu_hardware", "ecc_memory", "illegal_memory_access"):
        xid = {"gpu_hardware": r.choice([79, 119]), "ecc_memory": r.choice([48, 94, 95]), "illegal_memory_access": r.choice([13, 31])}[cause]
        if cause != "illegal_memory_access" or r.random() < 0.5:
            K(ch, t_fail - td(seconds=r.uniform(0.05, 1.5)), xid_text(r, xid, pci_of(cl, gpn), pid_of[culprit], gpu_idx=cl))
        err = {"gpu_hardware": "CUDA_ERROR_UNKNOWN: unknown error" if xid == 79 else "CUDA_ERROR_LAUNCH_TIMEOUT: the launch timed out and was terminated",
               "ecc_memory": "CUDA_ERROR_ECC_UNCORRECTABLE: uncorrectable ECC error encountered",
               "illegal_memory_access": "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered"}[cause]
        L = [f_tf(T(culprit, t_fail), "E", "%s/stream_executor/cuda/cuda_event.cc:29" % c["xla"]) + "Error polling for event status: failed to query event: %s" % err,
             f_tf(T(culprit, t_fail), "F", "tensorflow/core/common_runtime/device/device_event_mgr.cc:223") + "Unexpected Event status: 1",
             "[%s:%d] *** Process received signal ***" % (ch, pid_of[culprit]),
             "[%s:%d] Signal: Aborted (6)" % (ch, pid_of[culprit]),
             "[%s:%d] Signal code:  (-6)" % (ch, pid_of[culprit]),
             "[%s:%d] [ 0] /lib/x86_64-linux-gnu/libc.so.6(+0x42520)[0x7f%s]" % (ch, pid_of[culprit], hexs(r, 10)),
             "[%s:%d] [ 1] /lib/x86_64-linux-gnu/libc.so.6(pthread_kill+0x12c)[0x7f%s]" % (ch, pid_of[culprit], hexs(r, 10)),
             "[%s:%d] [ 2] /lib/x86_64-linux-gnu/libc.so.6(raise+0x16)[0x7f%s]" % (ch, pid_of[culprit], hexs(r, 10)),
             "[%s:%d] [ 3] /lib/x86_64-linux-gnu/libc.so.6(abort+0xd3)[0x7f%s]" % (ch, pid_of[culprit], hexs(r, 10)),
             "[%s:%d] *** End of error message ***" % (ch, pid_of[culprit])]
        P(culprit, t_fail, "\n".join(L))
        tail += mpi_signal(t_fail + td(seconds=3), culprit, 6, "Aborted")
        run.rank, run.node, run.rank_inferable, run.drain = culprit, ch, True, cause in DRAIN_CAUSES
        run.note("Xid %d on %s GPU %d; rank %d aborted; mpirun tears the job down" % (xid, ch, cl, culprit))
    elif cause in ("nvlink", "network"):
        if cause == "nvlink":
            K(ch, t_fail - td(seconds=0.2), xid_text(r, 74, pci_of(cl, gpn), pid_of[culprit], gpu_idx=cl))
            warn = "Cuda failure 'uncorrectable NVLink error detected during the execution'"
            nerr = "unhandled cuda error"
            run.drain = True
            run.note("Xid 74 NVLink on %s GPU %d" % (ch, cl))
        else:
            lines, hca, netdev, _ = nic_down_text(r, "ib")
            K(ch, t_fail - td(seconds=r.uniform(1, 6)), lines)
            peer = host_of[(culprit + gpn) % world] if N > 1 else ch
            warn = nccl_ib_completion(r, ncclv, ips[peer], ips[ch], hca)
            nerr = "remote process exited or there was a network error"
            run.drain = N > 1
            run.aliases.append(ips[ch])
            run.note("IB link of %s (%s) went down; rank %d NCCL error first, peers follow" % (ch, hca, culprit))
        L = ["%s:%d:%d [%d] %s:%d NCCL WARN %s" % (ch, pid_of[culprit], pid_of[culprit] + 213, cl, r.choice(["transport/net_ib.cc", "enqueue.cc"]), r.randint(100, 1500), warn),
             "%s:%d:%d [%d] NCCL INFO %s:%d -> %d" % (ch, pid_of[culprit], pid_of[culprit] + 213, cl, r.choice(["transport/net.cc", "proxy.cc"]), r.randint(100, 1200), 6 if cause == "network" else 1)]
        P(culprit, t_fail, "\n".join(L), err=False)
        P(culprit, t_fail + td(milliseconds=300), "\n".join(tf_err(c, frames, "UnknownError", "ncclAllReduce failed: %s" % nerr, hv_node, py311)))
        if cause == "network" and N > 1:
            for i in r.sample([k for k in range(world) if host_of[k] != ch], min(3, world - gpn)):
                P(i, t_fail + td(seconds=r.uniform(1, 4)), "%s:%d:%d [%d] transport/net_ib.cc:%d NCCL WARN %s" % (host_of[i], pid_of[i], pid_of[i] + 211, i % gpn, r.randint(100, 1500), nccl_ib_completion(r, ncclv, ips[ch], ips[host_of[i]], "mlx5_%d" % r.randint(0, 3))), err=False)
        shutdown_others(t_fail + td(seconds=2), (culprit,))
        tail += mpi_nonzero(t_fail + td(seconds=4), culprit, 1)
        run.rank, run.node, run.rank_inferable = culprit, ch, True
    elif cause in ("cuda_oom", "python_exception", "collective_mismatch"):
        if cause == "cuda_oom":
            L, _, _ = tf_oom(c, r, frames, "/job:localhost/replica:0/task:0/device:GPU:0", py311)
            L = [f_tf(T(culprit, t_fail), "W", "%s/framework/bfc_allocator.cc:479" % c["tsl"]) + "Allocator (GPU_0_bfc) ran out of memory trying to allocate 1.00GiB (rounded to 1073741824)requested by op model/res5c_branch2b/Conv2D"] + L
            run.note("ResourceExhausted only on rank %d (its local batch had larger images)" % culprit)
            P(culprit, t_fail, "\n".join(L))
            shutdown_others(t_fail + td(seconds=1), (culprit,))
        elif cause == "python_exception":
            L = py_tb(frames[:1] + [("/home/%s/data.py" % r.choice(USERS), r.randint(30, 99), "load_sample", "img = Image.open(path).convert('RGB')"),
                                    ("/usr/local/lib/python3.10/dist-packages/PIL/Image.py", 3283, "open", "raise UnidentifiedImageError(msg)")],
                      "PIL.UnidentifiedImageError: cannot identify image file '/data/imagenet/train/n0%d/n0%d_%d.JPEG'" % (r.randint(1000000, 9999999), r.randint(1000000, 9999999), r.randint(1, 20000)), py311)
            P(culprit, t_fail, "\n".join(L))
            shutdown_others(t_fail + td(seconds=1), (culprit,))
            run.note("corrupt image in rank %d's shard" % culprit)
        else:
            ncls = r.choice([1000, 100, 200])
            for i in range(world):
                if i == culprit or r.random() < (0.5 if world > 16 else 1.0):
                    P(i, t_train - td(seconds=30), "Found %d files belonging to %d classes." % (r.randint(10 ** 5, 2 * 10 ** 6), ncls + (1 if i == culprit else 0)), err=False)
            msg = "Mismatched allreduce tensor shapes: One rank sent a tensor of shape [2048, %d], but another rank sent a tensor of shape [2048, %d]." % (ncls, ncls + 1)
            for i in (range(world) if world <= 32 else sample_ranks(r, world, [0, culprit], 20)):
                P(i, t_fail + td(seconds=r.uniform(0, 1)), "\n".join(tf_err(c, frames, "FailedPreconditionError", msg, hv_node, py311)))
            run.note("rank %d's node-local dataset copy has an extra class; horovod reports mismatched allreduce shapes on every rank" % culprit)
        tail += mpi_nonzero(t_fail + td(seconds=3), culprit if cause != "collective_mismatch" else r.choice([0, culprit, (culprit + 1) % world]), 1)
        run.rank, run.node, run.rank_inferable = culprit, ch, True
    elif cause in ("host_oom_kill", "crash_signal"):
        if cause == "host_oom_kill":
            K(ch, t_fail, oom_kill_text(r, pid_of[culprit], "python", cgroup=slurm))
            tail += mpi_signal(t_fail + td(seconds=2), culprit, 9, "Killed")
            run.note("kernel OOM killer took rank %d (pid %d) on %s" % (culprit, pid_of[culprit], ch))
        else:
            L = ["[%s:%d] *** Process received signal ***" % (ch, pid_of[culprit]),
                 "[%s:%d] Signal: Segmentation fault (11)" % (ch, pid_of[culprit]),
                 "[%s:%d] Signal code: Address not mapped (1)" % (ch, pid_of[culprit]),
                 "[%s:%d] Failing at address: 0x%s" % (ch, pid_of[culprit], r.choice(["10", "8", "7f" + hexs(r, 10)])),
                 "[%s:%d] [ 0] /lib/x86_64-linux-gnu/libc.so.6(+0x42520)[0x7f%s]" % (ch, pid_of[culprit], hexs(r, 10)),
                 "[%s:%d] [ 1] %s/horovod/tensorflow/mpi_lib.cpython-310-x86_64-linux-gnu.so(+0x%s)[0x7f%s]" % (ch, pid_of[culprit], c["site"], hexs(r, 6), hexs(r, 10)),
                 "[%s:%d] [ 2] /lib/x86_64-linux-gnu/libc.so.6(+0x94ac3)[0x7f%s]" % (ch, pid_of[culprit], hexs(r, 10)),
                 "[%s:%d] *** End of error message ***" % (ch, pid_of[culprit])]
            P(culprit, t_fail, "\n".join(L))
            tail += mpi_signal(t_fail + td(seconds=2), culprit, 11, "Segmentation fault")
            run.note("SIGSEGV in rank %d (horovod background thread)" % culprit)
        run.rank, run.node, run.rank_inferable = culprit, ch, True
    elif cause == "preemption":
        if slurm:
            tail.append((t_fail, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (jobid, hosts[0], f_slurm(t_fail))))
            tail.append((t_fail + td(seconds=1), "mpirun: Forwarding signal 18 to job"))
            exit_state = "PREEMPTED"
            run.rank, run.node = None, None
            run.note("Slurm preempted the whole allocation; mpirun forwards signals")
        else:
            victim = hosts[-1] if N > 1 else hosts[0]
            tail += [(t_fail, "ssh: connect to host %s port 22: Connection timed out" % victim) if False else (t_fail, "Connection to %s closed by remote host." % victim),
                     (t_fail + td(seconds=1), "--------------------------------------------------------------------------"),
                     (t_fail + td(seconds=1), "ORTE has lost communication with a remote daemon."),
                     (t_fail + td(seconds=1), ""),
                     (t_fail + td(seconds=1), "  HNP daemon   : [[%d,0],0] on node %s" % (mpi_jobfam, hosts[0])),
                     (t_fail + td(seconds=1), "  Remote daemon: [[%d,0],%d] on node %s" % (mpi_jobfam, hosts.index(victim), victim)),
                     (t_fail + td(seconds=1), ""),
                     (t_fail + td(seconds=1), "This is usually due to either a failure of the TCP network"),
                     (t_fail + td(seconds=1), "connection to the node, or possibly an internal failure of"),
                     (t_fail + td(seconds=1), "the daemon itself. We cannot recover from this failure, and"),
                     (t_fail + td(seconds=1), "therefore will terminate the job."),
                     (t_fail + td(seconds=1), "--------------------------------------------------------------------------")]
            run.put("instance-events.txt", ["$ aws ec2 describe-instance-status ... / spot interruption notice (from the user's monitoring)",
                                            "%s  %s  spot instance interruption notice: instance-action=terminate" % ((t_fail - td(seconds=120)).strftime("%Y-%m-%dT%H:%M:%SZ"), victim)])
            run.rank, run.node = None, victim
            run.note("spot node %s reclaimed mid-run (2-minute notice); ORTE lost its daemon" % victim)
    elif cause in ("hang", "data_loader_stall"):
        tw = t_fail + td(seconds=60)
        if cause == "data_loader_stall":
            K(ch, t_fail - td(seconds=20), nfs_stall_text(r, r.choice(["nas01", "nfs-ml", "beegfs-meta01"])))
            for k in range(3):
                P(culprit, t_fail + td(seconds=10 * (k + 1)), f_tf(T(culprit, t_fail + td(seconds=10 * (k + 1))), "I", "tensorflow/core/kernels/data/shuffle_dataset_op.cc:422") + "Filling up shuffle buffer (this may take a while): %d of %d" % (k + 2, 20000))
            run.note("rank %d's input pipeline blocked on the filesystem of %s" % (culprit, ch))
        else:
            run.note("rank %d stopped submitting tensors (deadlocked in a Python callback)" % culprit)
        pref = "/tmp/pip-install-%s/horovod_%s" % (alnum(r, 8), hexs(r, 32))
        for k in range(r.randint(1, 3)):
            t = tw + td(seconds=60 * k)
            names = ", ".join("DistributedSGD_Allreduce/cond_%d/HorovodAllreduce_DistributedSGD_Allreduce_cond_%d_Cast_1_0" % (j, j) for j in range(r.randint(2, 4)))
            P(0, t, "[%s: W %s/horovod/common/stall_inspector.cc:107] One or more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting for remainder of ranks for more than 60 seconds. This may indicate that different ranks are trying to submit different tensors or that only subset of ranks is submitting tensors, which will cause deadlock. \nMissing ranks:\n%d: [%s ...]" % (f_tf(T(0, t), "W", "x")[:26], pref, culprit, names))
        t_k = tw + td(seconds=r.uniform(1800, 10000))
        if slurm:
            tail.append((t_k, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (jobid, hosts[0], f_slurm(t_k))))
            exit_state = "TIMEOUT"
        else:
            tail.append((t_k, "^Cmpirun: abort is already in progress...hit ctrl-c again to forcibly terminate"))
        t_end = t_k + td(seconds=5)
        run.rank, run.node, run.rank_inferable = culprit, ch, True
    elif cause == "straggler":
        K(ch, t_train + td(seconds=ep_sec * 0.5), thermal_text(r))
        run.put("nvidia-smi_%s.txt" % ch, ["$ ssh %s nvidia-smi -q -d PERFORMANCE" % ch] + nvsmi_perf(r, gpn, cl, model))
        te = t_train + td(seconds=(n_ep + 1) * ep_sec * 1.7)
        t_end = te
        exit_state = "COMPLETED"
        run.rank, run.node, run.rank_inferable = culprit, ch, True
        run.note("run finished ~1.7x slower than usual; rank %d compute-bound, others wait in allreduce" % culprit)
    elif cause == "unknown":
        idx = range(world) if world <= 32 else sample_ranks(r, world, [0], 24)
        for i in idx:
            P(i, t_fail + td(seconds=r.uniform(0, 1)), "\n".join(tf_err(c, frames, "UnknownError", shut_msg, hv_node, py311)))
        first = r.randrange(world)
        tail += mpi_nonzero(t_fail + td(seconds=2), first, 1)
        run.note("all ranks report 'Horovod has been shut down' with no prior exception; mpirun names rank %d only because it exited first" % first)
    if cause is not None and r.random() < 0.4 and N > 1:
        oh = r.choice([h for h in hosts if h != ch])
        evs, xid = decoy_xid_block(r, t0, oh)
        for t, ln in evs:
            K(oh, t - td(seconds=skew[oh]), [ln])
        run.note("decoy: old Xid %d on %s" % (xid, oh))
    # ------------------------------------------------ render
    for t, ln in tail:
        S.add(t, "mpi", ln)
    out = []
    for e in S.sorted():
        for ln in e.text.split("\n"):
            if isinstance(e.src, tuple):
                out.append("[1,%d]<%s>:%s" % (e.src[0], e.src[1], ln))
            else:
                out.append(ln)
    if len(out) > 9000:
        out = out[:3000] + out[-6000:]
    fname = ("slurm-%d.out" % jobid) if slurm else r.choice(["train.log", "hvd_run_%s.log" % t0.strftime("%Y%m%d"), "mpirun.out"])
    run.put(fname, out)
    if not slurm or r.random() < 0.5:
        run.put("hostfile", ["%s slots=%d" % (h, gpn) for h in hosts])
    kstyle = r.choice(["dmesgT", "syslog", "raw"])
    for h in hosts:
        if h in kern:
            evs = kern[h] + kernel_noise(r, t0, t_end, r.randint(2, 8))
            run.put(("dmesg_%s.txt" if kstyle != "syslog" else "messages_%s.txt") % h, kernel_file(r, h, kstyle, evs, boot[h]))
    if run.node:
        run.aliases.append(ips.get(run.node))
    run.note("Horovod %s + TF %s, %d ranks on %d nodes%s" % (hvd_ver, c["ver"], world, N, " (inside Slurm)" if slurm else ""))
    return world


def hvd_lr_mult(e):
    return 1.0 if e < 30 else (0.1 if e < 60 else 0.01)


# ----------------------------------------------------------------------------------------
# torch / NCCL helpers shared by the Ray and Lightning layouts
# ----------------------------------------------------------------------------------------

TORCH_VERSIONS = [("2.1.2", (2, 18, 1)), ("2.2.2", (2, 19, 3)), ("2.3.1", (2, 20, 5)), ("2.4.1", (2, 20, 5)),
                  ("2.5.1", (2, 21, 5)), ("2.6.0", (2, 21, 5)), ("2.7.1", (2, 26, 2)), ("2.8.0", (2, 27, 3))]


class TorchCtx(object):
    def __init__(self, r, site):
        self.ver, self.ncclv = r.choice(TORCH_VERSIONS)
        self.minor = int(self.ver.split(".")[1])
        self.site = site
        self.timeout_ms = r.choice([1800000, 1800000, 600000, 3600000])
        self.r = r

    def c10(self, rank, t, line):
        """c10d log prefix"""
        if self.minor <= 1:
            return "[E ProcessGroupNCCL.cpp:%d] " % line
        if self.minor <= 3:
            return "[rank%d]:[E ProcessGroupNCCL.cpp:%d] " % (rank, line)
        return "[rank%d]:[E%d%02d %s.%s%03d ProcessGroupNCCL.cpp:%d] " % (rank, t.month, t.day, t.strftime("%H:%M:%S"), us(t), self.r.randint(0, 999), line)

    def pg(self, rank):
        if self.minor <= 3:
            return "[Rank %d]" % rank
        if self.minor == 4:
            return "[PG 0 (default_pg) Rank %d]" % rank
        return "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % rank

    def nccl_str(self):
        return "%d.%d.%d" % self.ncclv

    def work(self, seq, numel, op="ALLREDUCE"):
        return "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (seq, op, numel, numel, self.timeout_ms)

    def watchdog_timeout(self, rank, t, seq, numel, last_enq=None, last_done=None, op="ALLREDUCE"):
        r = self.r
        ran = self.timeout_ms + r.randint(20, 900)
        w = self.work(seq, numel, op)
        head = "%s Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % ("[Rank %d]" % rank, w, ran)
        le = seq if last_enq is None else last_enq
        ld = seq - 1 if last_done is None else last_done
        L = [self.c10(rank, t, 475 if self.minor <= 1 else 607) + head]
        if self.minor >= 2:
            L.append(self.c10(rank, t, 1664) + "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (self.pg(rank), seq, le, ld))
            L.append(self.c10(rank, t, 1709) + "%s Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (self.pg(rank), seq, le, ld))
        L.append(self.c10(rank, t, 489 if self.minor <= 1 else 621) + ("" if self.minor <= 1 else "[Rank %d] " % rank) + "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.")
        L.append(self.c10(rank, t, 495 if self.minor <= 1 else 627) + ("" if self.minor <= 1 else "[Rank %d] " % rank) + "To avoid data inconsistency, we are taking the entire process down.")
        term = "%s %s thread terminated with exception: %s" % ("[Rank %d]" % rank if self.minor <= 3 else self.pg(rank), "NCCL watchdog" if self.minor <= 1 else "Process group watchdog", head)
        L.append(self.c10(rank, t, 916 if self.minor <= 1 else 1515) + term)
        if self.minor >= 2:
            L += ["Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % (609 if self.minor < 5 else 632),
                  "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (0x7f%s in %s/torch/lib/libc10.so)" % (hexs(r, 10), self.site),
                  "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 (0x7f%s in %s/torch/lib/libtorch_cuda.so)" % (hexs(r, 10), self.site),
                  "frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 (0x7f%s in %s/torch/lib/libtorch_cuda.so)" % (hexs(r, 10), self.site),
                  "frame #3: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d (0x7f%s in %s/torch/lib/libtorch_cuda.so)" % (hexs(r, 10), self.site),
                  "frame #4: <unknown function> + 0xdc253 (0x7f%s in /lib/x86_64-linux-gnu/libstdc++.so.6)" % hexs(r, 10),
                  "frame #5: <unknown function> + 0x94ac3 (0x7f%s in /lib/x86_64-linux-gnu/libc.so.6)" % hexs(r, 10),
                  "frame #6: <unknown function> + 0x126850 (0x7f%s in /lib/x86_64-linux-gnu/libc.so.6)" % hexs(r, 10), ""]
        L.append("terminate called after throwing an instance of '%s'" % ("std::runtime_error" if self.minor <= 1 else "c10::DistBackendError"))
        L.append("  what():  " + term)
        return L

    def dump_signal(self, rank, t, last_enq, last_done, from_rank=None):
        """torch>=2.4 flight-recorder dump trigger lines (desync evidence)"""
        tail = ".This is most likely caused by incorrect usages of collectives, e.g., wrong sizes used across ranks, the order of collectives is not same for all ranks or the scheduled collective, for some reason, didn't run. Additionally, this can be caused by GIL deadlock or other reasons such as network errors or bugs in the communications library (e.g. NCCL), etc. "
        L = []
        if from_rank is not None:
            L.append(self.c10(rank, t, 1922) + "%s Observed flight recorder dump signal from another rank via TCPStore." % self.pg(rank))
            src = " rank %d" % from_rank
        else:
            src = "this local rank"
        L.append(self.c10(rank, t, 1987 if self.minor >= 6 else 1746) + "%s Received a dump signal due to a collective timeout from %s and we will try our best to dump the debug info. Last enqueued NCCL work: %d, last completed NCCL work: %d%s" % (self.pg(rank), src, last_enq, last_done, tail))
        return L

    def nccl_exc(self, kind, last):
        names = {"remote": ("remote process exited or there was a network error", "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely."),
                 "cuda": ("unhandled cuda error (run with NCCL_DEBUG=INFO for details)", "ncclUnhandledCudaError: Call to CUDA function failed."),
                 "system": ("unhandled system error (run with NCCL_DEBUG=INFO for details)", "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ")}
        a, b = names[kind]
        line = 1970 if self.minor <= 2 else (2006 if self.minor <= 4 else 2027)
        return "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d, %s, NCCL version %s\n%s\nLast error:\n%s" % (line, a, self.nccl_str(), b, last)

    def async_nccl_error(self, rank, t, kind, last):
        a = {"remote": "remote process exited or there was a network error", "cuda": "unhandled cuda error (run with NCCL_DEBUG=INFO for details)", "system": "unhandled system error (run with NCCL_DEBUG=INFO for details)"}[kind]
        head = "%s NCCL error: %s, NCCL version %s" % (("[Rank %d]" % rank) if self.minor <= 3 else self.pg(rank), a, self.nccl_str())
        L = [self.c10(rank, t, 1413 if self.minor >= 2 else 880) + "%s %s thread terminated with exception: %s" % (("[Rank %d]" % rank) if self.minor <= 3 else self.pg(rank), "NCCL watchdog" if self.minor <= 1 else "Process group watchdog", head)]
        L += [{"remote": "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.", "cuda": "ncclUnhandledCudaError: Call to CUDA function failed.", "system": "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. "}[kind],
              "Last error:", last]
        L.append("terminate called after throwing an instance of '%s'" % ("std::runtime_error" if self.minor <= 1 else "c10::DistBackendError"))
        L.append("  what():  %s" % head)
        return L

    def cuda_exc(self, msg, dsa=True):
        s = "RuntimeError: CUDA error: %s\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1" % msg
        s += ".\n" if self.minor <= 1 else "\n"
        if dsa:
            s += "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n"
        return s

    def oom_exc(self, dev, tried, total, free, inuse, alloc, reserved, pid):
        cls = "torch.OutOfMemoryError" if self.minor >= 5 else "torch.cuda.OutOfMemoryError"
        if self.minor <= 1:
            return "%s: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacty of %.2f GiB of which %.2f GiB is free. Process %d has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF" % (cls, tried, dev, total, free, pid, inuse, alloc, reserved)
        return "%s: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of %.2f GiB of which %.2f GiB is free. Process %d has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)" % (cls, tried, dev, total, free, pid, inuse, alloc, reserved)

    def mismatch(self, me, other, seq, shp_me, shp_other):
        tail = "TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))"
        s = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: CollectiveFingerPrint(SequenceNumber=%d, OpType=ALLREDUCE, TensorShape=[%s], %s, but Rank %d is running collective: CollectiveFingerPrint(SequenceNumber=%d, OpType=ALLREDUCE, TensorShape=[%s], %s." % (me, seq, shp_me, tail, other, seq, shp_other, tail)
        if self.minor >= 2:
            s += "Collectives differ in the following aspects: \t Tensor Tensor shapes: %svs %s" % (shp_me.replace(", ", "x"), shp_other.replace(", ", "x"))
        return s


def torch_cause_exception(tc, r, cause, dev, gpu_mem_gib, pid, frames, py311, peer_ip=None, my_ip=None, hca=None, sub=None):
    """python-level traceback lines for a torch rank that raises because of `cause`.
    returns (lines, exception class short name for Ray's RayTaskError(...))"""
    if cause == "cuda_oom":
        tried = r.choice([0.5, 1.25, 2.0, 3.5, 7.81])
        total = gpu_mem_gib
        free = r.uniform(0.05, tried * 0.8)
        inuse = total - free
        alloc = inuse * r.uniform(0.85, 0.95)
        exc = tc.oom_exc(dev, tried, total, free, inuse, alloc, inuse - alloc - 0.4, pid)
        fr = frames + [(tc.site + "/torch/_tensor.py", 522 if tc.minor < 5 else 581, "backward", "torch.autograd.backward("),
                       (tc.site + "/torch/autograd/__init__.py", 266 if tc.minor < 5 else 347, "backward", "Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")]
        return py_tb(fr, exc, py311), "OutOfMemoryError"
    if cause == "illegal_memory_access":
        if r.random() < 0.5:
            pre = ["../aten/src/ATen/native/cuda/Indexing.cu:1289: indexSelectLargeIndex: block: [%d,0,0], thread: [%d,0,0] Assertion `srcIndex < srcSelectDimSize` failed." % (r.randint(0, 900), t) for t in range(64, 64 + r.randint(2, 5))]
            return pre + py_tb(frames, tc.cuda_exc("device-side assert triggered"), py311), "RuntimeError"
        return py_tb(frames, tc.cuda_exc("an illegal memory access was encountered"), py311), "RuntimeError"
    if cause == "gpu_hardware":
        return py_tb(frames, tc.cuda_exc(r.choice(["unknown error", "unspecified launch failure"])), py311), "RuntimeError"
    if cause == "ecc_memory":
        return py_tb(frames, tc.cuda_exc("uncorrectable ECC error encountered"), py311), "RuntimeError"
    if cause == "nvlink":
        fr = frames + [(tc.site + "/torch/distributed/c10d_logger.py", 83 if tc.minor >= 4 else 72, "wrapper", "return func(*args, **kwargs)"),
                       (tc.site + "/torch/distributed/distributed_c10d.py", 2288 if tc.minor >= 4 else 2050, "all_reduce", "work = group.allreduce([tensor], opts)")]
        return py_tb(fr, tc.nccl_exc("cuda", "Cuda failure 'uncorrectable NVLink error detected during the execution'"), py311), "DistBackendError"
    if cause == "network":
        fr = frames + [(tc.site + "/torch/distributed/c10d_logger.py", 83 if tc.minor >= 4 else 72, "wrapper", "return func(*args, **kwargs)"),
                       (tc.site + "/torch/distributed/distributed_c10d.py", 2288 if tc.minor >= 4 else 2050, "all_reduce", "work = group.allreduce([tensor], opts)")]
        return py_tb(fr, tc.nccl_exc("remote", nccl_ib_completion(r, tc.ncclv, peer_ip, my_ip, hca)), py311), "DistBackendError"
    if cause == "python_exception":
        k = sub if sub is not None else r.randrange(3)
        if k == 0:
            fr = frames[:-1] + [(tc.site + "/torch/utils/data/dataloader.py", 631 if tc.minor < 4 else 701, "__next__", "data = self._next_data()"),
                                (tc.site + "/torch/utils/data/dataloader.py", 1346 if tc.minor < 4 else 1465, "_next_data", "return self._process_data(data)"),
                                (tc.site + "/torch/utils/data/dataloader.py", 1372 if tc.minor < 4 else 1491, "_process_data", "data.reraise()"),
                                (tc.site + "/torch/_utils.py", 705 if tc.minor < 4 else 733, "reraise", "raise exception")]
            exc = "json.decoder.JSONDecodeError: Caught JSONDecodeError in DataLoader worker process %d.\nOriginal Traceback (most recent call last):\n  File \"%s/torch/utils/data/_utils/worker.py\", line 308, in _worker_loop\n    data = fetcher.fetch(index)\n  File \"/workspace/data/jsonl_dataset.py\", line %d, in __getitem__\n    rec = json.loads(line)\njson.decoder.JSONDecodeError: Unterminated string starting at: line 1 column %d (char %d)" % (r.randint(0, 7), tc.site, r.randint(40, 90), r.randint(100, 9000), r.randint(100, 9000))
            return py_tb(fr, exc, py311), "JSONDecodeError"
        if k == 1:
            fr = frames[:-1] + [("/workspace/model/modeling.py", r.randint(200, 600), "forward", "attn = attn.view(bsz, self.num_heads, tgt_len, src_len) + attention_mask")]
            return py_tb(fr, "RuntimeError: The size of tensor a (%d) must match the size of tensor b (%d) at non-singleton dimension 3" % (r.choice([2048, 4096]), r.choice([2049, 4097])), py311), "RuntimeError"
        fr = frames[:-1] + [("/workspace/utils/checkpoint.py", r.randint(30, 99), "save_extra_state", "with open(os.path.join(ckpt_dir, f'rng_state_{rank}.pth'), 'wb') as f:")]
        return py_tb(fr, "OSError: [Errno 122] Disk quota exceeded: '/scratch/ckpt/step_%d/rng_state_%d.pth'" % (r.randint(1000, 90000), r.randint(0, 63)), py311), "OSError"
    raise ValueError(cause)


def torch_frames_plain(r, script, site):
    return [(script, r.randint(150, 400), "train_func", "loss.backward()")]


def lightning_frames(r, script, site, ds=False):
    pl = site + "/lightning/pytorch"
    L = [(script, r.randint(60, 200), "<module>" if "ray" not in script else "train_func", "trainer.fit(model, datamodule=dm)"),
         (pl + "/trainer/trainer.py", 538, "fit", "call._call_and_handle_interrupt("),
         (pl + "/trainer/call.py", 47, "_call_and_handle_interrupt", "return trainer_fn(*args, **kwargs)"),
         (pl + "/trainer/trainer.py", 574, "_fit_impl", "self._run(model, ckpt_path=ckpt_path)"),
         (pl + "/trainer/trainer.py", 981, "_run", "results = self._run_stage()"),
         (pl + "/trainer/trainer.py", 1025, "_run_stage", "self.fit_loop.run()"),
         (pl + "/loops/fit_loop.py", 205, "run", "self.advance()"),
         (pl + "/loops/fit_loop.py", 363, "advance", "self.epoch_loop.run(self._data_fetcher)"),
         (pl + "/loops/training_epoch_loop.py", 140, "run", "self.advance(data_fetcher)"),
         (pl + "/loops/training_epoch_loop.py", 250, "advance", "batch_output = self.automatic_optimization.run(trainer.optimizers[0], batch_idx, kwargs)"),
         (pl + "/loops/optimization/automatic.py", 190, "run", "self._optimizer_step(batch_idx, closure)")]
    if ds:
        L.append((pl + "/strategies/deepspeed.py", 415 if r.random() < 0.5 else 421, "optimizer_step", "return self.model.step(**kwargs)" if False else "optimizer_output = super().optimizer_step(optimizer, closure, model, **kwargs)"))
    L.append((pl + "/core/module.py", 1306, "optimizer_step", "optimizer.step(closure=optimizer_closure)"))
    L.append((pl + "/loops/optimization/automatic.py", 146, "__call__", "self._result = self.closure(*args, **kwargs)"))
    L.append((pl + "/loops/optimization/automatic.py", 140, "closure", "self._backward_fn(step_output.closure_loss)"))
    return L


# ----------------------------------------------------------------------------------------
# Layouts 4 and 5: Ray Train TorchTrainer (HF Accelerate / DeepSpeed / plain torch inside),
#                  Ray Tune + Lightning on a Ray cluster started inside a Slurm job
# ----------------------------------------------------------------------------------------

RAY_VERSIONS = ["2.7.1", "2.9.3", "2.10.0", "2.20.0", "2.31.0", "2.35.0", "2.40.0"]


def ray_ver_ge(v, w):
    return tuple(int(x) for x in v.split(".")) >= tuple(int(x) for x in w.split("."))


def gen_ray(run, slurm_lightning):
    r = run.r
    cause = run.cause
    rv = r.choice(RAY_VERSIONS)
    actor_err = "ActorDiedError" if ray_ver_ge(rv, "2.10.0") else "RayActorError"
    py311 = r.random() < 0.4
    pyv = "3.11" if py311 else "3.10"
    if slurm_lightning:
        site = "/home/%s/miniconda3/envs/%s/lib/python%s/site-packages" % (r.choice(USERS), r.choice(["ray", "pl", "llm"]), pyv)
    else:
        site = "/home/ray/anaconda3/lib/python%s/site-packages" % pyv
    tc = TorchCtx(r, site)
    if tc.minor >= 6 and not ray_ver_ge(rv, "2.35.0"):
        rv = r.choice(["2.35.0", "2.40.0"])
        actor_err = "ActorDiedError"
    bump(run, "torch", tc.ver)
    bump(run, "ray", rv)
    model = r.choice(GPU_MODELS)
    gpu_gib = model[1] / 1024.0 * 0.99
    gpn = r.choice([4, 8]) if not slurm_lightning else r.choice([4, 4, 8])
    world = pick_world(r, [2, 4, 8, 16, 32, 64, 128], [2, 4, 6, 5, 3, 1, 1])
    nn = max(1, (world + gpn - 1) // gpn)
    if nn == 1 and world > gpn:
        nn = 2
    kube = (not slurm_lightning) and r.random() < 0.5
    head_ip = "10.%d.%d.%d" % (r.randint(0, 9) if not slurm_lightning else r.randint(10, 30), r.randint(0, 254), r.randint(2, 250))
    ips = []
    for k in range(nn):
        ips.append("10.%s.%d.%d" % (head_ip.split(".")[1], r.randint(0, 254), r.randint(2, 250)))
    if len(set(ips)) < nn:
        ips = ["10.%s.%d.%d" % (head_ip.split(".")[1], 40 + k, 11 + k) for k in range(nn)]
    if slurm_lightning:
        sstyle = r.choice(["gpu-b-%02d", "a100-%03d", "node%03d", "hpcg%04d"])
        sb = r.randint(1, 60)
        hostn = [sstyle % (sb + k) for k in range(nn + 1)]  # hostn[0] = head (also runs workers)
        head_ip = "10.%d.%d.%d" % (r.randint(10, 30), r.randint(0, 9), 10 + sb)
        ips = [head_ip] + ["10.%s.%s.%d" % (head_ip.split(".")[1], head_ip.split(".")[2], 10 + sb + k) for k in range(1, nn)]
        hostn = hostn[:nn]
    elif kube:
        rc = r.choice(["raycluster-llm", "rc-finetune", "kuberay-train"])
        hostn = ["%s-gpu-group-worker-%s" % (rc, alnum(r, 5)) for _ in range(nn)]
    else:
        hostn = ["ip-%s" % ip.replace(".", "-") for ip in ips]
    node_ids = [hexs(r, 56) for _ in range(nn)]
    wnode = [k // gpn for k in range(world)]
    wpid = [r.randint(1500, 90000) for _ in range(world)]
    driver_on_worker = slurm_lightning  # the slurm driver runs on the head = first GPU node
    trainer_pid = r.randint(1000, 9000)
    trial = "TorchTrainer_%s_00000" % hexs(r, 5)
    exp = "TorchTrainer_%s" % run.t0.strftime("%Y-%m-%d_%H-%M-%S")
    stack = "lightning" if slurm_lightning else r.choice(["accelerate", "deepspeed", "torch"])
    S = Stream()
    t0 = run.t0
    skew = [r.uniform(-1, 1) for _ in range(nn)]

    def wprefix(k):
        if driver_on_worker and wnode[k] == 0:
            return "(RayTrainWorker pid=%d) " % wpid[k]
        return "(RayTrainWorker pid=%d, ip=%s) " % (wpid[k], ips[wnode[k]])

    def WL(k, t, text):
        S.add(t, ("w", k), text)

    def D(t, text):
        S.add(t, "d", text)

    def TT(t, text):
        S.add(t, "tt", text)

    def ray_ts(t, lvl, src):
        return f_ray(t, lvl, src)

    # ------------------------------------------------ slurm: ray start section
    jobid = r.randint(1000000, 9999999)
    if slurm_lightning:
        D(t0, "Nodes: %s" % hostlist(hostn))
        D(t0, "Head node: %s  IP: %s" % (hostn[0], head_ip))
        D(t0, "Starting HEAD at %s" % hostn[0])
        tt = t0 + td(seconds=r.uniform(3, 10))
        D(tt, ray_ts(tt, "INFO", "usage_lib.py:%d" % r.choice([441, 449])) + "Usage stats collection is disabled.")
        D(tt, ray_ts(tt, "INFO", "scripts.py:%d" % r.choice([744, 767])) + "Local node IP: %s" % head_ip)
        D(tt + td(seconds=3), ray_ts(tt + td(seconds=3), "SUCC", "scripts.py:%d" % 804) + "--------------------")
        D(tt + td(seconds=3), ray_ts(tt + td(seconds=3), "SUCC", "scripts.py:%d" % 805) + "Ray runtime started.")
        D(tt + td(seconds=3), ray_ts(tt + td(seconds=3), "SUCC", "scripts.py:%d" % 806) + "--------------------")
        for k in range(1, nn):
            tk = tt + td(seconds=10 + 2 * k)
            D(tk, "Starting WORKER %d at %s" % (k, hostn[k]))
            D(tk + td(seconds=2), ray_ts(tk + td(seconds=2), "INFO", "scripts.py:%d" % 926) + "Local node IP: %s" % ips[k])
            D(tk + td(seconds=4), ray_ts(tk + td(seconds=4), "SUCC", "scripts.py:%d" % 939) + "Ray runtime started.")
    # ------------------------------------------------ driver start
    td0 = t0 + td(seconds=60 if slurm_lightning else r.uniform(2, 10))
    D(td0, ray_ts(td0, "INFO", "worker.py:%d" % r.choice([1458, 1567, 1642])) + "Connecting to existing Ray cluster at address: %s:6379..." % head_ip)
    D(td0 + td(seconds=1), ray_ts(td0 + td(seconds=1), "INFO", "worker.py:%d" % r.choice([1724, 1818])) + "Connected to Ray cluster. View the dashboard at %s:8265 " % ("http://127.0.0.1" if slurm_lightning else "\x1b[1m\x1b[32mhttp://%s\x1b[39m\x1b[22m" % head_ip if r.random() < 0.3 else "http://%s" % head_ip))
    if ray_ver_ge(rv, "2.9.0") and r.random() < 0.6:
        D(td0 + td(seconds=2), ray_ts(td0 + td(seconds=2), "INFO", "tune.py:%d" % r.choice([583, 622])) + "[output] This will use the new output engine with verbosity 1. To disable the new output and use the legacy output engine, set the environment variable RAY_AIR_NEW_OUTPUT=0. For more information, please see https://github.com/ray-project/ray/issues/36949")
    D(td0 + td(seconds=3), "")
    D(td0 + td(seconds=3), "View detailed results here: %s" % ("/home/ray/ray_results/%s" % exp if not slurm_lightning else "/scratch/%s/ray_results/%s" % (r.choice(USERS), exp)))
    D(td0 + td(seconds=3), "To visualize your results with TensorBoard, run: `tensorboard --logdir /tmp/ray/session_%s_%06d_%d/artifacts/%s/%s/driver_artifacts`" % (t0.strftime("%Y-%m-%d_%H-%M-%S"), r.randint(0, 999999), r.randint(1, 9), (td0).strftime("%Y-%m-%d_%H-%M-%S"), exp))
    D(td0 + td(seconds=4), "")
    D(td0 + td(seconds=4), "Training started without custom configuration." if r.random() < 0.5 else "Training started with configuration:\n╭──────────────────────────────────────────╮\n│ Training config                          │\n├──────────────────────────────────────────┤\n│ train_loop_config/batch_size          %2d │\n│ train_loop_config/lr              %.0e │\n╰──────────────────────────────────────────╯" % (r.choice([8, 16, 32]), r.choice([1e-4, 2e-5, 3e-4])))
    tp = td0 + td(seconds=r.uniform(8, 40))
    tpref = "(TorchTrainer pid=%d%s) " % (trainer_pid, "" if (driver_on_worker or not kube and r.random() < 0.5) else ", ip=%s" % ips[0])
    L = [tpref + "Started distributed worker processes: "]
    for k in range(world):
        if ray_ver_ge(rv, "2.10.0"):
            L.append(tpref + "- (node_id=%s, ip=%s, pid=%d) world_rank=%d, local_rank=%d, node_rank=%d" % (node_ids[wnode[k]], ips[wnode[k]], wpid[k], k, k % gpn, wnode[k]))
        else:
            L.append(tpref + "- (ip=%s, pid=%d) world_rank=%d, local_rank=%d, node_rank=%d" % (ips[wnode[k]], wpid[k], k, k % gpn, wnode[k]))
    TT(tp, "\n".join(L))
    WL(0, tp + td(seconds=2), "Setting up process group for: env:// [rank=0, world_size=%d]" % world)
    if world > 1:
        WL(1, tp + td(seconds=2.1), "Setting up process group for: env:// [rank=1, world_size=%d] [repeated %dx across cluster] (Ray deduplicates logs by default. Set RAY_DEDUP_LOGS=0 to disable log deduplication, or see https://docs.ray.io/en/master/ray-observability/user-guides/configure-logging.html#log-deduplication for more options.)" % (world, world - 1))
    if r.random() < 0.5:
        WL(r.randrange(world), tp + td(seconds=3), "[W socket.cpp:464] [c10d] The server socket cannot be initialized on [::]:%d (errno: 97 - Address family not supported by protocol)." % r.randint(29500, 45000) if tc.minor <= 3 else "[W%s %s.%s socket.cpp:697] [c10d] The client socket has failed to connect to [%s]:%d (errno: 22 - Invalid argument)." % (tp.strftime("%m%d"), tp.strftime("%H:%M:%S"), us(tp), "localhost", r.randint(29500, 45000)))
    script = ("/tmp/ray/session_latest/runtime_resources/working_dir_files/_ray_pkg_%s/train.py" % hexs(r, 16)) if not slurm_lightning else "/home/%s/proj/tune_lightning.py" % r.choice(USERS)
    if stack == "lightning":
        WL(0, tp + td(seconds=6), "GPU available: True (cuda), used: True\nTPU available: False, using: 0 TPU cores\nHPU available: False, using: 0 HPUs")
        WL(0, tp + td(seconds=7), "\n  | Name  | Type      | Params | Mode \n--------------------------------------------\n0 | model | %s | %s  | train\n--------------------------------------------\n%s    Trainable params" % (r.choice(["ResNet   ", "ViT      ", "GPT2LMHead"]), r.choice(["25.6 M", "86.6 M", "124 M "]), r.choice(["25.6 M", "86.6 M", "124 M"])))
        frames = lightning_frames(r, script, site)
    elif stack == "deepspeed":
        WL(0, tp + td(seconds=5), "[%s] [INFO] [real_accelerator.py:191:get_accelerator] Setting ds_accelerator to cuda (auto detect)" % f_ds(tp + td(seconds=5)))
        WL(0, tp + td(seconds=9), "[%s] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed info: version=%s, git-hash=unknown, git-branch=unknown" % (f_ds(tp + td(seconds=9)), r.choice(["0.12.6", "0.14.0", "0.15.4"])))
        WL(0, tp + td(seconds=11), "[%s] [INFO] [config.py:997:print] DeepSpeedEngine configuration:" % f_ds(tp + td(seconds=11)))
        frames = [(script, r.randint(120, 300), "train_func", "model.backward(loss)"),
                  (site + "/deepspeed/utils/nvtx.py", 15, "wrapped_fn", "ret_val = func(*args, **kwargs)"),
                  (site + "/deepspeed/runtime/engine.py", r.choice([1976, 2020]), "backward", "self.optimizer.backward(loss, retain_graph=retain_graph)")]
    elif stack == "accelerate":
        WL(0, tp + td(seconds=5), "[INFO|trainer.py:%d] %s >> ***** Running training *****" % (r.choice([1747, 2078]), f_ds(tp + td(seconds=5))))
        WL(0, tp + td(seconds=5), "[INFO|trainer.py:%d] %s >>   Num examples = %s" % (r.choice([1748, 2079]), f_ds(tp + td(seconds=5)), "{:,}".format(r.randint(10 ** 5, 10 ** 7))))
        frames = [(script, r.randint(150, 300), "train_func", "trainer.train()"),
                  (site + "/transformers/trainer.py", r.choice([1859, 2123]), "train", "return inner_training_loop("),
                  (site + "/transformers/trainer.py", r.choice([2203, 2481]), "_inner_training_loop", "tr_loss_step = self.training_step(model, inputs)"),
                  (site + "/transformers/trainer.py", r.choice([3147, 3612]), "training_step", "self.accelerator.backward(loss, **kwargs)"),
                  (site + "/accelerate/accelerator.py", r.choice([2013, 2196]), "backward", "loss.backward(**kwargs)")]
    else:
        frames = torch_frames_plain(r, script, site)
    # ------------------------------------------------ training progress
    t_train = tp + td(seconds=r.uniform(30, 120))
    dur = r.uniform(1200, 14 * 3600)
    t_fail = t_train + td(seconds=dur)
    iters = r.randint(8, 40)
    it_sec = dur / iters
    culprit = r.randrange(world) if cause else None
    if culprit is not None and r.random() < 0.1:
        culprit = 0
    cn = wnode[culprit] if culprit is not None else None
    slow = cause == "straggler"
    n_it_shown = iters + (r.randint(3, 8) if run.healthy or (slow and r.random() < 0.6) else 0)
    straggler_finishes = False
    if slow:
        straggler_finishes = r.random() < 0.6
    last_it = iters if not (run.healthy or straggler_finishes) else n_it_shown
    for it in range(1, last_it + 1):
        t = t_train + td(seconds=it_sec * it * (1.0 + (0.6 * it / last_it if slow else 0)))
        loss = 3.2 * (0.4 + 0.6 * 0.9 ** it)
        if stack == "accelerate":
            WL(0, t - td(seconds=3), "{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %.4e, 'epoch': %.2f}" % (loss, r.uniform(0.2, 2.0), 2e-5 * (1 - it / float(last_it + 5)), it * 0.25))
        elif stack == "lightning":
            WL(0, t - td(seconds=3), "Epoch %d: 100%%|██████████| %d/%d [%02d:%02d<00:00, %.2fit/s, v_num=0, train_loss=%.3f]" % (it - 1, 1250, 1250, int(it_sec) // 60 % 60, int(it_sec) % 60, 1250 / it_sec, loss))
        else:
            WL(0, t - td(seconds=3), "epoch %d step %d loss %.4f lr %.2e" % (it - 1, it * 500, loss, 3e-4))
        if slow:
            for k in (range(world) if world <= 16 else sample_ranks(r, world, [culprit, 0], 8)):
                base = it_sec / 500.0 * 0.55
                WL(k, t - td(seconds=2), "[rank %d] iter %d: fwd_bwd=%.3fs comm_wait=%.3fs data=%.3fs" % (k, it * 500, base * (1.9 if k == culprit else 1.0) * r.uniform(0.97, 1.03), (base * 0.95 if k != culprit else 0.01) * r.uniform(0.9, 1.1), r.uniform(0.002, 0.01)))
        if it % r.choice([2, 3, 4]) == 0 or it == last_it:
            rows = [("checkpoint_dir_name", "checkpoint_%06d" % (it - 1)), ("time_this_iter_s", "%.3f" % it_sec), ("time_total_s", "%.2f" % (it_sec * it)), ("training_iteration", "%d" % it), ("train_loss", "%.5f" % loss)]
            wdt = 41
            tbl = ["╭" + "─" * wdt + "╮", "│ Training result" + " " * (wdt - 16) + "│", "├" + "─" * wdt + "┤"]
            for kk, vv in rows:
                tbl.append("│ %-22s%*s │" % (kk, wdt - 24, vv))
            tbl.append("╰" + "─" * wdt + "╯")
            D(t, "\nTraining finished iteration %d at %s. Total running time: %s\n%s" % (it, t.strftime("%Y-%m-%d %H:%M:%S"), ray_dur((t - td0).total_seconds()), "\n".join(tbl)))
    # ------------------------------------------------ incident
    kern = {}

    def K(k, t, lines):
        kern.setdefault(k, [])
        for j, ln in enumerate(lines):
            kern[k].append((t + td(seconds=skew[k], microseconds=j * 41), ln))

    base_tb = [(site + "/ray/air/execution/_internal/event_manager.py", 110, "resolve_future", "result = ray.get(future)"),
               (site + "/ray/_private/auto_init_hook.py", 21 if ray_ver_ge(rv, "2.10.0") else 24, "auto_init_wrapper", "return fn(*args, **kwargs)"),
               (site + "/ray/_private/client_mode_hook.py", 103, "wrapper", "return func(*args, **kwargs)"),
               (site + "/ray/_private/worker.py", r.choice([2524, 2623, 2656, 2753]), "get", "raise value.as_instanceof_cause()" if not ray_ver_ge(rv, "2.20.0") else "values, debugger_breakpoint = worker.get_objects(object_refs, timeout=timeout)")]
    if ray_ver_ge(rv, "2.20.0"):
        base_tb.append((site + "/ray/_private/worker.py", r.choice([846, 863, 919]), "get_objects", "raise value.as_instanceof_cause()"))

    def driver_task_error(t, k, exc_short, worker_lines):
        """the RayTaskError chain printed by Tune's controller"""
        hdr = ray_ts(t, "ERROR", "tune_controller.py:%d" % r.choice([1331, 1374, 1383])) + "Trial task failed for trial %s" % trial
        L = [hdr]
        L += py_tb(base_tb, "ray.exceptions.RayTaskError(%s): \x1b[36mray::_Inner.train()\x1b[39m (pid=%d, ip=%s, actor_id=%s, repr=TorchTrainer)" % (exc_short, trainer_pid, ips[0], hexs(r, 32)) if r.random() < 0.3 else
                   "ray.exceptions.RayTaskError(%s): ray::_Inner.train() (pid=%d, ip=%s, actor_id=%s, repr=TorchTrainer)" % (exc_short, trainer_pid, ips[0], hexs(r, 32)), py311)
        L += ['  File "%s/ray/tune/trainable/trainable.py", line %d, in train' % (site, r.choice([331, 342])), "    raise skipped from exception_cause(skipped)",
              '  File "%s/ray/train/_internal/utils.py", line %d, in check_for_failure' % (site, r.choice([43, 57])), "    ray.get(object_ref)",
              "ray.exceptions.RayTaskError(%s): ray::_RayTrainWorker__execute.get_next() (pid=%d, ip=%s, actor_id=%s, repr=<ray.train._internal.worker_group.RayTrainWorker object at 0x7f%s>)" % (exc_short, wpid[k], ips[wnode[k]], hexs(r, 32), hexs(r, 10)),
              '  File "%s/ray/train/_internal/worker_group.py", line 33, in __execute' % site, "    raise skipped from exception_cause(skipped)",
              '  File "%s/ray/train/_internal/utils.py", line %d, in discard_return_wrapper' % (site, r.choice([118, 129])), "    train_func(*args, **kwargs)"]
        L += worker_lines[1:]
        D(t, "\n".join(L))

    def driver_actor_died(t, k, detail, node_dead=False):
        hdr = ray_ts(t, "ERROR", "tune_controller.py:%d" % r.choice([1331, 1374, 1383])) + "Trial task failed for trial %s" % trial
        L = [hdr] + py_tb(base_tb, "ray.exceptions.RayTaskError(%s): ray::_Inner.train() (pid=%d, ip=%s, actor_id=%s, repr=TorchTrainer)" % (actor_err, trainer_pid, ips[0], hexs(r, 32)), py311)
        L += ['  File "%s/ray/tune/trainable/trainable.py", line %d, in train' % (site, r.choice([331, 342])), "    raise skipped from exception_cause(skipped)",
              '  File "%s/ray/train/_internal/utils.py", line %d, in check_for_failure' % (site, r.choice([43, 57])), "    ray.get(object_ref)",
              "ray.exceptions.%s: The actor died unexpectedly before finishing this task." % actor_err,
              "\tclass_name: RayTrainWorker", "\tactor_id: %s" % hexs(r, 32), "\tpid: %d" % wpid[k],
              "\tnamespace: %s-%s-%s-%s-%s" % (hexs(r, 8), hexs(r, 4), hexs(r, 4), hexs(r, 4), hexs(r, 12)), "\tip: %s" % ips[wnode[k]]]
        if node_dead:
            L.append("The actor died because its node has died. Node Id: %s" % node_ids[wnode[k]])
            L.append("\tthe actor's node was terminated unexpectedly: %s" % detail)
        else:
            L.append("The actor is dead because its worker process has died. Worker exit type: %s Worker exit detail: %s" % ("USER_ERROR" if "low on memory" in detail else "SYSTEM_ERROR", detail))
        D(t, "\n".join(L))

    def driver_end(t, it_done, exc_short):
        D(t, "\nTraining errored after %d iterations at %s. Total running time: %s\nError file: /tmp/ray/session_%s/artifacts/%s/%s/driver_artifacts/%s_0_%s/error.txt\n" % (it_done, t.strftime("%Y-%m-%d %H:%M:%S"), ray_dur((t - td0).total_seconds()), t0.strftime("%Y-%m-%d_%H-%M-%S_%f"), td0.strftime("%Y-%m-%d_%H-%M-%S"), exp, trial, td0.strftime("%Y-%m-%d_%H-%M-%S")))
        D(t + td(milliseconds=30), ray_ts(t + td(milliseconds=30), "ERROR", "tune.py:%d" % r.choice([1035, 1043])) + "Trials did not complete: [%s]" % trial)
        L = ["", "The above exception was the direct cause of the following exception:", ""]
        L += py_tb([(script if not slurm_lightning else script, r.randint(200, 400), "<module>", "result = trainer.fit()" if not slurm_lightning else "results = tuner.fit()"),
                    (site + "/ray/train/base_trainer.py" if not slurm_lightning else site + "/ray/tune/tuner.py", r.choice([638, 668]) if not slurm_lightning else r.choice([377, 381]), "fit", "raise TrainingFailedError(" if not slurm_lightning else "return self._local_tuner.fit()")],
                   "ray.train.base_trainer.TrainingFailedError: The Ray Train run failed. Please inspect the previous error messages for a cause. After fixing the issue (assuming that the error is not caused by your own application logic, but rather an error such as OOM), you can restart the run from scratch or continue this run.\nTo continue this run, you can use: `trainer = TorchTrainer.restore(\"%s\")`.\nTo start a new run that will retry on training failures, set `train.RunConfig(failure_config=train.FailureConfig(max_failures))` in the Trainer's `run_config` with `max_failures > 0`, or `max_failures = -1` for unlimited retries." % ("/home/ray/ray_results/" + exp) if not slurm_lightning else
                   "ray.tune.error.TuneError: The Ray Tune run failed. Please inspect the previous error messages for a cause. After fixing the issue, you can restart the run from scratch or continue this run. To continue this run, you can use `tuner = Tuner.restore(\"%s\", trainable=...)`." % ("/scratch/ray_results/" + exp), py311)
        D(t + td(milliseconds=60), "\n".join(L))

    def collateral_nccl(t, skip, kind, last):
        idx = [k for k in range(world) if k not in skip]
        idx = idx if len(idx) <= 6 else r.sample(idx, 6)
        for k in sorted(idx):
            tt = t + td(seconds=r.uniform(0, 3))
            WL(k, tt, "\n".join(tc.async_nccl_error(k, tt, kind, last)))

    it_done = iters
    t_end = t_fail + td(seconds=10)
    drain = cause in DRAIN_CAUSES
    exc_short = None
    tcn = None
    if cause is None:
        if r.random() < 0.5:
            k = r.randrange(world)
            WL(k, t_train + td(seconds=dur * 0.3), "%s:%d:%d [%d] %s" % (hostn[wnode[k]] if not kube else hostn[wnode[k]], wpid[k], wpid[k] + 91, k % gpn, r.choice(BENIGN_NCCL_WARN)))
            run.note("decoy: benign NCCL WARN from rank %d" % k)
        if r.random() < 0.5:
            tw = t_train + td(seconds=dur * 0.5)
            D(tw, "(raylet%s) [%s,%s E %d %d] (raylet) node_manager.cc:%d: 1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: %s, IP: %s) over the last time period. To see more information about the Workers killed on this node, use `ray logs raylet.out -ip %s`" % (", ip=%s" % ips[-1], tw.strftime("%Y-%m-%d %H:%M:%S"), ms(tw), r.randint(100, 900), r.randint(100, 900), r.choice([3084, 3064]), node_ids[-1], ips[-1], ips[-1]))
            D(tw, "(raylet%s) \n(raylet%s) Refer to the documentation on how to address the out of memory issue: https://docs.ray.io/en/latest/ray-core/scheduling/ray-oom-prevention.html. Consider provisioning more memory on this node or reducing task parallelism by requesting more CPUs per task. To adjust the kill threshold, set the environment variable `RAY_memory_usage_threshold` when starting Ray. To disable worker killing, set the environment variable `RAY_memory_monitor_refresh_ms` to zero." % (", ip=%s" % ips[-1], ", ip=%s" % ips[-1]))
            run.note("decoy: raylet OOM-killed a retriable Ray Data task (not a train worker); training continued")
        if r.random() < 0.3 and nn > 1:
            k = r.randrange(world)
            WL(k, t_train + td(seconds=dur * 0.7), "UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.4 we will raise an exception if use_reentrant is not passed.")
        tdone = t_train + td(seconds=it_sec * (last_it + 0.5))
        D(tdone, "\nTraining completed after %d iterations at %s. Total running time: %s" % (last_it, tdone.strftime("%Y-%m-%d %H:%M:%S"), ray_dur((tdone - td0).total_seconds())))
        t_end = tdone
        run.note("healthy Ray Train run, %d workers" % world)
    elif cause in ("cuda_oom", "illegal_memory_access", "python_exception", "gpu_hardware", "ecc_memory", "nvlink", "network"):
        peer = (culprit + gpn) % world if nn > 1 else (culprit + 1) % world
        hca = "mlx5_%d" % (culprit % gpn)
        if cause == "network":
            lines, hca, netdev, _ = nic_down_text(r, r.choice(["ib", "roce"]))
            K(cn, t_fail - td(seconds=r.uniform(1, 6)), lines)
            run.note("NIC/link failure on %s (%s)" % (ips[cn], netdev))
        lines, exc_short = torch_cause_exception(tc, r, cause, 0, gpu_gib, wpid[culprit], frames, py311, peer_ip=ips[wnode[peer]], my_ip=ips[cn], hca=hca)
        if cause in ("gpu_hardware", "ecc_memory", "nvlink") or (cause == "illegal_memory_access" and r.random() < 0.4):
            xid = {"gpu_hardware": r.choice([79, 119]), "ecc_memory": r.choice([48, 94, 95]), "nvlink": 74, "illegal_memory_access": r.choice([13, 31])}[cause]
            K(cn, t_fail - td(seconds=r.uniform(0.05, 2)), xid_text(r, xid, pci_of(culprit % gpn, gpn), wpid[culprit], proc="ray::RayTrainW", gpu_idx=culprit % gpn))
            run.note("Xid %d on %s GPU %d" % (xid, ips[cn], culprit % gpn))
        pre = [l for l in lines if not l.startswith(("Traceback", "  File", "    "))][:0]
        if lines[0].startswith("../aten"):
            WL(culprit, t_fail - td(milliseconds=50), "\n".join(lines[:lines.index("Traceback (most recent call last):")]))
            lines = lines[lines.index("Traceback (most recent call last):"):]
        if r.random() < 0.5:
            collateral_nccl(t_fail + td(seconds=1), (culprit,), "remote", nccl_ib_completion(r, tc.ncclv, ips[cn], ips[0], "mlx5_%d" % r.randint(0, 7)) if cause != "nvlink" else "Cuda failure 'uncorrectable NVLink error detected during the execution'")
        driver_task_error(t_fail + td(seconds=r.uniform(1, 5)), culprit, exc_short, lines)
        driver_end(t_fail + td(seconds=6), it_done, exc_short)
        run.rank, run.node, run.rank_inferable = culprit, ips[cn], True
        run.drain = drain or cause == "network"
        if cause == "network":
            run.drain = True
        run.note("rank %d raised %s; Ray stops the group and reports it via RayTaskError with pid/ip" % (culprit, exc_short))
    elif cause in ("host_oom_kill", "crash_signal"):
        if cause == "host_oom_kill":
            if r.random() < 0.5:
                tot = r.choice([251.6, 503.7, 1007.5, 186.7])
                detail = "Task was killed due to the node running low on memory.\nMemory on the node (IP: %s, ID: %s) where the task (actor ID: %s, name=RayTrainWorker.__init__, pid=%d, memory used=%.2fGB) was running was %.2fGB / %.2fGB (%.6f), which exceeds the memory usage threshold of 0.95. Ray killed this worker (ID: %s) because it was the most recently scheduled task; to see more information about memory usage on this node, use `ray logs raylet.out -ip %s`. To see the logs of the worker, use `ray logs worker-%s*out -ip %s. Top 10 memory users:\nPID\tMEM(GB)\tCOMMAND\n%d\t%.2f\tray::RayTrainWorker.train_func\n%d\t%.2f\tray::RayTrainWorker.train_func\n%d\t%.2f\tray::SplitCoordinator\nRefer to the documentation on how to address the out of memory issue: https://docs.ray.io/en/latest/ray-core/scheduling/ray-oom-prevention.html. Consider provisioning more memory on this node or reducing task parallelism by requesting more CPUs per task. Set max_restarts and max_task_retries to enable retry when the task crashes due to OOM. To adjust the kill threshold, set the environment variable `RAY_memory_usage_threshold` when starting Ray. To disable worker killing, set the environment variable `RAY_memory_monitor_refresh_ms` to zero." % (
                    ips[cn], node_ids[cn], hexs(r, 32), wpid[culprit], tot * 0.3, tot * 0.957, tot, 0.957, hexs(r, 56), ips[cn], hexs(r, 56), ips[cn], wpid[culprit], tot * 0.3, wpid[(culprit + 1) % world], tot * 0.08, r.randint(1000, 9000), tot * 0.05)
                D(t_fail + td(seconds=1), "(raylet, ip=%s) [%s,%s E %d %d] (raylet) node_manager.cc:%d: 1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: %s, IP: %s) over the last time period. To see more information about the Workers killed on this node, use `ray logs raylet.out -ip %s`" % (ips[cn], t_fail.strftime("%Y-%m-%d %H:%M:%S"), ms(t_fail), r.randint(100, 900), r.randint(100, 900), r.choice([3084, 3064]), node_ids[cn], ips[cn], ips[cn]))
                driver_actor_died(t_fail + td(seconds=2), culprit, detail)
                run.note("Ray memory monitor killed rank %d on %s (host RAM)" % (culprit, ips[cn]))
            else:
                K(cn, t_fail, oom_kill_text(r, wpid[culprit], "ray::RayTrainWo", cgroup=kube))
                driver_actor_died(t_fail + td(seconds=2), culprit, "Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors.")
                run.note("kernel OOM killer took rank %d (pid %d) on %s" % (culprit, wpid[culprit], ips[cn]))
            exc_short = actor_err
        else:
            tt = t_fail
            epoch = int((tt - dtm.datetime(1970, 1, 1)).total_seconds())
            L = ["*** SIGSEGV received at time=%d on cpu %d ***" % (epoch, r.randint(0, 95)),
                 "PC: @     0x7f%s  (unknown)  %s" % (hexs(r, 10), r.choice(["c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::free()", "(unknown)", "at::native::index_put_with_sort_kernel()"])),
                 "    @     0x7f%s       3712  (unknown)" % hexs(r, 10),
                 "    @ ... and at least 3 more frames",
                 "[%s,%s E %d %d] logging.cc:361: *** SIGSEGV received at time=%d on cpu %d ***" % (tt.strftime("%Y-%m-%d %H:%M:%S"), ms(tt), wpid[culprit], wpid[culprit], epoch, r.randint(0, 95)),
                 "[%s,%s E %d %d] logging.cc:361: PC: @     0x7f%s  (unknown)  (unknown)" % (tt.strftime("%Y-%m-%d %H:%M:%S"), ms(tt), wpid[culprit], wpid[culprit], hexs(r, 10)),
                 "Fatal Python error: Segmentation fault", "",
                 "Stack (most recent call first):",
                 '  File "%s/torch/autograd/graph.py", line 744 in _engine_run_backward' % site,
                 '  File "%s", line %d in train_func' % (script, frames[0][1])]
            WL(culprit, t_fail, "\n".join(L))
            driver_actor_died(t_fail + td(seconds=3), culprit, "Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors.")
            exc_short = actor_err
            run.note("SIGSEGV in rank %d (no Xid)" % culprit)
        driver_end(t_fail + td(seconds=5), it_done, exc_short)
        run.rank, run.node, run.rank_inferable = culprit, ips[cn], True
    elif cause == "preemption":
        if slurm_lightning:
            tl = r.random() < 0.4
            D(t_fail, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO %s ***" % (jobid, hostn[0], f_slurm(t_fail), "TIME LIMIT" if tl else "PREEMPTION"))
            D(t_fail + td(seconds=1), "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
            D(t_fail + td(seconds=2), "*** SIGTERM received at time=%d on cpu %d ***" % (int((t_fail - dtm.datetime(1970, 1, 1)).total_seconds()), r.randint(0, 63)))
            run.rank, run.node = None, None
            run.note("Slurm %s the allocation hosting the Ray cluster" % ("time limit ended" if tl else "preempted"))
            t_end = t_fail + td(seconds=33)
        else:
            victim = nn - 1 if nn > 1 else 0
            k = victim * gpn
            tw = t_fail + td(seconds=r.uniform(5, 30))
            D(tw, ray_ts(tw, "WARNING", "worker.py:%d" % r.choice([2037, 2058])) + "The node with node id: %s and address: %s and node name: %s has been marked dead because the detector has missed too many heartbeats from it. This can happen when a \t(1) raylet crashes unexpectedly (OOM, etc.) \n\t(2) raylet has lagging heartbeats due to slow network or busy workload." % (node_ids[victim], ips[victim], ips[victim]))
            driver_actor_died(tw + td(seconds=1), k, "health check failed due to missing too many heartbeats" if r.random() < 0.5 else "received SIGTERM", node_dead=True)
            driver_end(tw + td(seconds=3), it_done, actor_err)
            if kube:
                run.put("kubectl_get_events.txt", ["$ kubectl get events --sort-by=.lastTimestamp", "LAST SEEN   TYPE      REASON                    OBJECT                                           MESSAGE",
                                                  "%dm         Warning   NodeNotReady              pod/%s   Node is not ready" % (r.randint(5, 40), hostn[victim]),
                                                  "%dm         Normal    TerminationByKubelet      pod/%s   Pod was terminated in response to imminent node shutdown." % (r.randint(5, 40), hostn[victim]),
                                                  "%dm         Normal    RemovingNode              node/gke-%s-spot-a100-%s   Node gke-%s-spot-a100-%s event: Removing Node gke-%s-spot-a100-%s from Controller" % ((r.randint(5, 40),) + (hexs(r, 6), alnum(r, 4)) * 3)])
            run.rank, run.node = None, ips[victim]
            run.note("spot GPU node %s went away; Ray marks it dead" % ips[victim])
            t_end = tw + td(seconds=4)
    elif cause in ("hang", "data_loader_stall", "unknown", "collective_mismatch"):
        seq = r.randint(2000, 90000)
        numel = r.choice([26214400, 131334144, 1048576, 65536])
        t_to = t_fail + td(milliseconds=tc.timeout_ms + r.randint(100, 900))
        if cause == "collective_mismatch":
            ncls = r.choice([1000, 32000, 50257])
            shp_me = "%d, %d" % (ncls + 1, r.choice([768, 1024, 4096]))
            shp_o = "%d, %s" % (ncls, shp_me.split(", ")[1])
            first = None
            for k in (range(world) if world <= 8 else sample_ranks(r, world, [0, culprit], 6)):
                other = 0 if k == culprit else culprit
                if k == culprit and culprit == 0:
                    other = 1
                m = tc.mismatch(k, other, seq, shp_me if k == culprit else shp_o, shp_o if k == culprit else shp_me)
                WL(k, t_fail + td(seconds=r.uniform(0, 1)), m.split(".")[0] + ".")
                if first is None:
                    first = (k, m)
            WL(culprit, t_fail - td(seconds=60), "vocab size %d (tokenizer loaded from local cache /tmp/hf_cache on %s)" % (ncls + 1, hostn[cn]))
            fr = frames + [(site + "/torch/distributed/distributed_c10d.py", 2050, "all_reduce", "work = group.allreduce([tensor], opts)")]
            k0, m0 = first
            driver_task_error(t_fail + td(seconds=2), k0, "RuntimeError", py_tb(fr, m0, py311))
            driver_end(t_fail + td(seconds=5), it_done, "RuntimeError")
            run.rank, run.node, run.rank_inferable = culprit, ips[cn], True
            run.note("TORCH_DISTRIBUTED_DEBUG=DETAIL: rank %d's embedding has one extra row (stale tokenizer cache on its node); driver shows rank %d's report" % (culprit, k0))
        else:
            silent = culprit if cause != "unknown" else None
            if cause == "data_loader_stall":
                K(cn, t_fail - td(seconds=20), nfs_stall_text(r, r.choice(["fsx-lustre", "efs-data", "nfs-share"])))
            dl_timeout = cause == "data_loader_stall" and r.random() < 0.5
            if dl_timeout:
                tdl = t_fail + td(seconds=600)
                fr = frames[:-1] + [(site + "/torch/utils/data/dataloader.py", 631, "__next__", "data = self._next_data()"),
                                    (site + "/torch/utils/data/dataloader.py", 1328, "_next_data", "idx, data = self._get_data()"),
                                    (site + "/torch/utils/data/dataloader.py", 1284, "_get_data", "success, data = self._try_get_data()"),
                                    (site + "/torch/utils/data/dataloader.py", 1145, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e")]
                lines = py_tb(fr, "RuntimeError: DataLoader timed out after 600 seconds", py311)
                driver_task_error(tdl + td(seconds=1), culprit, "RuntimeError", lines)
                driver_end(tdl + td(seconds=4), it_done, "RuntimeError")
                run.rank, run.node, run.rank_inferable = culprit, ips[cn], True
                run.note("rank %d's DataLoader (timeout=600) gave up while its node's storage hung" % culprit)
            else:
                first = None
                idx = [k for k in range(world) if k != silent]
                show = idx if len(idx) <= 12 else sample_ranks(r, world, [0], 10)
                show = [k for k in show if k != silent]
                for k in show:
                    tt = t_to + td(seconds=r.uniform(0, 2))
                    L = tc.watchdog_timeout(k, tt, seq, numel)
                    if tc.minor >= 4:
                        for k2 in ([silent] if silent is not None else []):
                            pass
                    WL(k, tt, "\n".join(L))
                    if first is None:
                        first = k
                if tc.minor >= 4 and silent is not None:
                    for k in show[:3]:
                        WL(k, t_to + td(seconds=2), "\n".join(tc.dump_signal(k, t_to + td(seconds=2), seq, seq - 1)))
                    WL(silent, t_to + td(seconds=3), "\n".join(tc.dump_signal(silent, t_to + td(seconds=3), seq - 1, seq - 1, from_rank=show[0])))
                detail = "Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors."
                driver_actor_died(t_to + td(seconds=4), first, detail)
                driver_end(t_to + td(seconds=7), it_done, actor_err)
                t_end = t_to + td(seconds=8)
                if silent is not None:
                    run.rank, run.node = silent, ips[cn]
                    run.rank_inferable = (tc.minor >= 4) or world <= 12
                    run.note("rank %d silent; others hit the NCCL watchdog (%d ms); Ray reports rank %d's worker death first (misleading)%s" % (silent, tc.timeout_ms, first, "; flight-recorder dump lines show its last enqueued work is one behind" if tc.minor >= 4 else ""))
                else:
                    run.note("every shown rank times out on the same SeqNum with nothing missing")
            if cause == "data_loader_stall" and not dl_timeout:
                run.note("storage stall on %s blocked rank %d's loader" % (ips[cn], culprit))
    elif cause == "straggler":
        K(cn, t_train + td(seconds=dur * 0.1), thermal_text(r))
        if straggler_finishes:
            tdone = t_train + td(seconds=it_sec * (last_it + 0.5) * 1.3)
            D(tdone, "\nTraining completed after %d iterations at %s. Total running time: %s" % (last_it, tdone.strftime("%Y-%m-%d %H:%M:%S"), ray_dur((tdone - td0).total_seconds())))
            t_end = tdone
            run.note("run completed but iteration time grew; rank %d's fwd_bwd ~1.9x while others wait in comm" % culprit)
        else:
            seq = r.randint(2000, 90000)
            t_to = t_fail + td(milliseconds=tc.timeout_ms + 500)
            k0 = r.choice([k for k in range(world) if k != culprit])
            WL(k0, t_to, "\n".join(tc.watchdog_timeout(k0, t_to, seq, 26214400)))
            driver_actor_died(t_to + td(seconds=3), k0, "Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors.")
            driver_end(t_to + td(seconds=5), it_done, actor_err)
            t_end = t_to + td(seconds=6)
            run.note("rank %d persistently slow; eventually a collective exceeded the timeout on rank %d" % (culprit, k0))
        run.rank, run.node, run.rank_inferable = culprit, ips[cn], True
    # decoy Xid
    kern_host = {}
    if cause is not None and r.random() < 0.4 and nn > 1:
        d = r.choice([k for k in range(nn) if k != cn])
        evs, xid = decoy_xid_block(r, t0, hostn[d])
        for t, ln in evs:
            K(d, t, [ln])
        run.note("decoy: old Xid %d on %s" % (xid, ips[d]))
    # ------------------------------------------------ render driver output
    out = []
    for e in S.sorted():
        src = e.src
        for ln in e.text.split("\n"):
            if isinstance(src, tuple) and src[0] == "w":
                out.append(wprefix(src[1]) + ln)
            else:
                out.append(ln)
    if slurm_lightning:
        run.put("slurm-%d.out" % jobid, out)
    else:
        run.put(r.choice(["driver.log", "ray_job_logs.txt", "train_output.log"]), (["$ ray job logs raysubmit_%s" % alnum(r, 16)] if r.random() < 0.4 else []) + out)
    for k in sorted(kern):
        evs = kern[k] + kernel_noise(r, t0, t_end, r.randint(2, 6))
        if kube:
            run.put("dmesg_%s.txt" % hostn[k], ["$ kubectl debug node/... -- chroot /host dmesg -T   # node hosting %s" % hostn[k]] + kernel_file(r, hostn[k], "dmesgT", evs, t0))
        else:
            run.put("dmesg_%s.txt" % hostn[k], kernel_file(r, hostn[k], r.choice(["dmesgT", "syslog"]), evs, t0 - td(days=3)))
    if r.random() < 0.5 or cause in ("host_oom_kill", "preemption"):
        st = ["$ ray status", "======== Autoscaler status: %s ========" % (t_end + td(minutes=2)).strftime("%Y-%m-%d %H:%M:%S.%f"), "Node status",
              "---------------------------------------------------------------", "Active:"]
        for k in range(nn):
            if cause == "preemption" and run.node == ips[k]:
                continue
            st.append(" 1 node_%s" % node_ids[k])
        if cause == "preemption" and run.node:
            st += ["Pending:", " (no pending nodes)", "Recent failures:", " %s: NodeTerminated (ip: %s)" % ("gpu-group" if kube else "ray.worker.gpu", run.node)]
        else:
            st += ["Pending:", " (no pending nodes)", "Recent failures:", " (no failures)"]
        st += ["", "Resources", "---------------------------------------------------------------", "Usage:",
               " 0.0/%d.0 CPU" % (nn * 96), " 0.0/%d.0 GPU" % (nn * gpn), " 0B/%.2fTiB memory" % (nn * 1.4), " 0B/%.2fGiB object_store_memory" % (nn * 190.3), "", "Demands:", " (no resource demands)"]
        run.put("ray_status.txt", st)
    if run.node and not slurm_lightning:
        kk = ips.index(run.node)
        run.aliases += [hostn[kk], node_ids[kk]]
    if run.node and slurm_lightning:
        kk = ips.index(run.node)
        run.aliases += [hostn[kk]]
    run.note("Ray %s %s, %d workers on %d nodes (%s), torch %s" % (rv, "Tune+Lightning on Slurm" if slurm_lightning else "TorchTrainer", world, nn, "KubeRay" if kube else ("Slurm" if slurm_lightning else "VMs"), tc.ver))
    return world


def ray_dur(sec):
    sec = int(sec)
    h, m, s = sec // 3600, (sec % 3600) // 60, sec % 60
    if h:
        return "%dhr %dmin %ds" % (h, m, s)
    return "%dmin %ds" % (m, s)


def gen_ray_train_torch(run):
    return gen_ray(run, False)


def gen_ray_slurm_lightning(run):
    return gen_ray(run, True)


# ----------------------------------------------------------------------------------------
# Layout 6: PyTorch Lightning (SLURMEnvironment) + DDP / DeepSpeed, srun per task
# ----------------------------------------------------------------------------------------

def gen_lightning_slurm(run):
    r = run.r
    cause = run.cause
    py311 = r.random() < 0.5
    user = r.choice(USERS)
    site = "/home/%s/.conda/envs/%s/lib/python%s/site-packages" % (user, r.choice(["pl", "llm", "torch2"]), "3.11" if py311 else "3.10")
    tc = TorchCtx(r, site)
    bump(run, "torch", tc.ver)
    model = r.choice(GPU_MODELS)
    gpu_gib = model[1] / 1024.0 * 0.99
    gpn = r.choice([4, 8, 8])
    N = pick_world(r, [1, 2, 4, 8, 16, 32, 64], [2, 4, 5, 4, 2, 1, 1])
    world = N * gpn
    style = r.choice(["gpu%03d", "dgx-%02d", "node-%04d", "hpc-a100-%02d", "cn-g%03d"])
    b = r.randint(1, 200)
    hosts = [style % (b + i) for i in range(N)]
    host_of = [hosts[i // gpn] for i in range(world)]
    pid_of = [r.randint(10000, 3000000) for _ in range(world)]
    ips = {h: "10.%d.%d.%d" % (r.randint(100, 120), r.randint(0, 8), 20 + k) for k, h in enumerate(hosts)}
    jobid = r.randint(100000, 99999999)
    strat = r.choice(["ddp", "ddp", "deepspeed_stage_2", "deepspeed_stage_3", "fsdp"])
    lv = r.choice(["2.0.9", "2.1.3", "2.2.5", "2.4.0", "2.5.0"])
    split = r.random() < 0.5
    kill_on_bad = r.random() < 0.35
    nccl_info = r.random() < 0.3 and world <= 32
    skew = {h: r.uniform(-1.2, 1.2) for h in hosts}
    if r.random() < 0.25:
        skew[r.choice(hosts)] += r.uniform(15, 70)
    OUT = Stream()
    ERR = Stream()
    t0 = run.t0
    script = "/home/%s/%s/train.py" % (user, r.choice(["proj", "lit-gpt", "vision", "speech"]))
    frames = lightning_frames(r, script, site, ds=strat.startswith("deepspeed"))

    def T(i, t):
        return t + td(seconds=skew[host_of[i]])

    def E(t, text, i=None):
        ERR.add(t, i, text)

    def O(t, text, i=None):
        OUT.add(t, i, text)

    culprit = r.randrange(world) if cause else None
    if culprit is not None and r.random() < 0.1:
        culprit = 0
    ch = host_of[culprit] if culprit is not None else None
    cl = culprit % gpn if culprit is not None else None
    # ------------------------------------------------ startup
    O(t0, "SLURM_JOB_ID=%d SLURM_NNODES=%d SLURM_NTASKS=%d" % (jobid, N, world))
    O(t0, "MASTER_ADDR=%s MASTER_PORT=%d" % (hosts[0], r.choice([29500, 12355, 41000])))
    if r.random() < 0.5:
        O(t0, "+ srun%s python %s --config configs/%s.yaml" % (" --kill-on-bad-exit=1" if kill_on_bad else "", script, r.choice(["pretrain", "finetune_7b", "vit_l16"])))
    tst = t0 + td(seconds=r.uniform(10, 40))
    E(tst, "[rank: 0] Seed set to 42" if lv >= "2.1" else "Global seed set to 42")
    if strat.startswith("deepspeed"):
        for i in range(min(world, 4)):
            E(tst + td(seconds=1), "[%s] [INFO] [real_accelerator.py:191:get_accelerator] Setting ds_accelerator to cuda (auto detect)" % f_ds(T(i, tst + td(seconds=1))))
    E(tst + td(seconds=2), "GPU available: True (cuda), used: True\nTPU available: False, using: 0 TPU cores\nHPU available: False, using: 0 HPUs")
    if r.random() < 0.4:
        E(tst + td(seconds=2), "%s/lightning/fabric/plugins/environments/slurm.py:204: The `srun` command is available on your system but is not used. HINT: If your intention is to run Lightning on SLURM, prepend your python command with `srun` like so: srun python %s ..." % (site, script))
    for i in range(world):
        E(tst + td(seconds=4 + r.uniform(0, 3)), "Initializing distributed: GLOBAL_RANK: %d, MEMBER: %d/%d" % (i, i + 1, world), i)
    tpg = tst + td(seconds=12)
    E(tpg, "----------------------------------------------------------------------------------------------------\ndistributed_backend=nccl\nAll distributed processes registered. Starting with %d processes\n----------------------------------------------------------------------------------------------------\n" % world)
    for i in range(world):
        if i % gpn == 0 or world <= 16:
            E(tpg + td(seconds=1), "LOCAL_RANK: %d - CUDA_VISIBLE_DEVICES: [%s]" % (i % gpn, ",".join(str(g) for g in range(gpn))), i)
    if nccl_info:
        for i in range(world):
            O(tpg + td(seconds=2 + r.uniform(0, 2)), "\n".join(nccl_init_info(r, host_of[i], pid_of[i], i % gpn, i, world, tc.ncclv, ips[host_of[i]], "ib0", ib=True, first=(i % gpn == 0))), i)
    mname, psz = r.choice([("LlamaForCausalLM", "6.7 B"), ("VisionTransformer", "304 M"), ("Wav2Vec2Model   ", "317 M"), ("GPTNeoXForCausalLM", "1.4 B")])
    E(tpg + td(seconds=5), "\n  | Name  | Type             | Params | Mode \n-----------------------------------------------------\n0 | model | %s | %-6s | train\n-----------------------------------------------------\n%-9s Trainable params\n0         Non-trainable params\n%-9s Total params" % (mname, psz, psz, psz))
    if r.random() < 0.6:
        E(tpg + td(seconds=6), "%s/lightning/pytorch/trainer/connectors/data_connector.py:441: The 'train_dataloader' does not have many workers which may be a bottleneck. Consider increasing the value of the `num_workers` argument` to `num_workers=%d` in the `DataLoader` to improve performance." % (site, r.choice([7, 15, 31])))
    # ------------------------------------------------ training
    steps = r.choice([1250, 2500, 5000, 10009])
    it_s = r.uniform(0.4, 3.0)
    ep_sec = steps / it_s
    t_train = tpg + td(seconds=30)
    dur = r.uniform(1500, 20 * 3600)
    t_fail = t_train + td(seconds=dur)
    n_bar = r.randint(20, 60)
    slow = cause == "straggler"
    end_bar = t_fail if not run.healthy else t_fail
    for k in range(n_bar):
        t = t_train + td(seconds=dur * (k + 1) / n_bar)
        el = (t - t_train).total_seconds()
        ep = int(el // ep_sec)
        pos = int((el % ep_sec) * it_s)
        pct = int(100 * pos / steps)
        rate = it_s / (1 + (0.8 * (k / n_bar) if slow else 0))
        bar = "█" * (pct // 10) + ("▌" if pct % 10 >= 5 else " ") + " " * (9 - pct // 10)
        rem = (steps - pos) / max(rate, 0.01)
        E(t, "Epoch %d:  %2d%%|%s| %d/%d [%02d:%02d<%02d:%02d, %.2fit/s, v_num=%d, train_loss=%.3f]" % (ep, pct, bar[:10], pos, steps, int(el % ep_sec) // 60 % 60, int(el % ep_sec) % 60, int(rem) // 60 % 60, int(rem) % 60, rate, jobid % 1000, 3.1 * (0.45 + 0.55 * 0.7 ** (el / ep_sec))))
        if slow and k % 4 == 0:
            for i in (range(world) if world <= 16 else sample_ranks(r, world, [culprit, 0], 10)):
                base = 1000.0 / it_s * 0.6
                E(t + td(seconds=1), "[rank: %d] step %d: fwd_bwd=%.0fms optim=%.0fms data=%.0fms allreduce_wait=%.0fms" % (i, int(el * it_s), base * (1.8 if i == culprit else 1.0) * r.uniform(0.97, 1.03), r.uniform(20, 40), r.uniform(2, 6), (base * 0.8 if i != culprit else r.uniform(3, 10))), i)
    # ------------------------------------------------ incident
    kern = {}
    boot = {h: t0 - td(days=r.randint(1, 40)) for h in hosts}

    def K(h, t, lines):
        kern.setdefault(h, [])
        for j, ln in enumerate(lines):
            kern[h].append((t + td(seconds=skew[h], microseconds=j * 23), ln))

    srun = []
    sacct_state, sacct_exit = "FAILED", "1:0"
    t_end = t_fail + td(seconds=30)

    def srun_summary(t, exclude, msg, only=None):
        byh = {}
        for i in (only if only is not None else range(world)):
            if i in exclude:
                continue
            byh.setdefault(host_of[i], []).append(i)
        hs = list(byh)
        r.shuffle(hs)
        for j, h in enumerate(hs):
            srun.append((t + td(milliseconds=j * 7), "srun: error: %s: task%s %s: %s" % (h, "s" if len(byh[h]) > 1 else "", ranges(byh[h]), msg)))

    def others_after_exit(t_exit, quick_remote):
        """what the other ranks print after the culprit process is gone"""
        if kill_on_bad:
            srun.append((t_exit + td(seconds=0.5), "srun: Terminating StepId=%d.0" % jobid))
            srun.append((t_exit + td(seconds=0.6), "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (jobid, hosts[0], f_slurm(t_exit + td(seconds=1)))))
            srun_summary(t_exit + td(seconds=2), (culprit,), "Terminated" if r.random() < 0.5 else "Killed")
            return t_exit + td(seconds=3)
        if quick_remote:
            idx = [i for i in range(world) if i != culprit]
            idx = idx if len(idx) <= 12 else sample_ranks(r, world, [0], 10)
            for i in idx:
                if i == culprit:
                    continue
                tr = t_exit + td(seconds=r.uniform(1, 8))
                tt = T(i, tr)
                E(tr, "\n".join(tc.async_nccl_error(i, tt, "remote", nccl_ib_completion(r, tc.ncclv, ips[ch], ips[host_of[i]], "mlx5_%d" % (i % gpn)) if host_of[i] != ch else "socketProgress: Connection closed by remote peer %s<%d>" % (ch, r.randint(32768, 60999)))), i)
            srun_summary(t_exit + td(seconds=10), (culprit,), "Aborted (core dumped)")
            return t_exit + td(seconds=11)
        seq = r.randint(5000, 150000)
        numel = r.choice([26214400, 65536, 131334144])
        tt0 = t_exit + td(milliseconds=tc.timeout_ms)
        idx = [i for i in range(world) if i != culprit]
        idx = idx if len(idx) <= 12 else sample_ranks(r, world, [0], 10)
        for i in idx:
            if i == culprit:
                continue
            tr = tt0 + td(seconds=r.uniform(0, 2))
            tt = T(i, tr)
            E(tr, "\n".join(tc.watchdog_timeout(i, tt, seq, numel)), i)
        srun_summary(tt0 + td(seconds=4), (culprit,), "Aborted (core dumped)")
        return tt0 + td(seconds=5)

    if cause is None:
        t_done = t_fail + td(seconds=60)
        E(t_done, "`Trainer.fit` stopped: `max_epochs=%d` reached." % r.randint(3, 40))
        if r.random() < 0.5:
            i = r.randrange(world)
            E(t_train + td(seconds=dur * 0.4), "%s/torch/distributed/distributed_c10d.py:%d: UserWarning: No device id is provided via `init_process_group` or `barrier `. Using the current device set by the user. " % (site, r.choice([4631, 4807])) if tc.minor >= 5 else "[W ProcessGroupNCCL.cpp:%d] Warning: 0NCCL_AVOID_RECORD_STREAMS=1 has no effect for point-to-point collectives. (function operator())" % r.choice([1856, 2200]), i)
        if r.random() < 0.5:
            oh = r.choice(hosts)
            evs, xid = decoy_xid_block(r, t0, oh)
            for t, ln in evs:
                K(oh, t - td(seconds=skew[oh]), [ln])
            run.note("decoy: old Xid %d on %s" % (xid, oh))
        if r.random() < 0.4:
            tw = t_train + td(seconds=dur * 0.6)
            E(tw, "%s/lightning/pytorch/trainer/connectors/logger_connector/result.py:%d: It is recommended to use `self.log('val_loss', ..., sync_dist=True)` when logging on epoch level in distributed setting to accumulate the metric across devices." % (site, r.choice([431, 434])))
        sacct_state, sacct_exit = "COMPLETED", "0:0"
        t_end = t_done + td(seconds=5)
        run.note("healthy Lightning run")
    elif cause in ("cuda_oom", "illegal_memory_access", "python_exception", "gpu_hardware", "ecc_memory", "nvlink", "network"):
        peer = (culprit + gpn) % world if N > 1 else (culprit + 1) % world
        if cause == "network":
            lines, hca, netdev, _ = nic_down_text(r, "ib")
            K(ch, t_fail - td(seconds=r.uniform(1, 6)), lines)
            run.note("IB port of %s (%s) failed" % (ch, hca))
            run.aliases.append(ips[ch])
        else:
            hca = "mlx5_%d" % cl
        lines, exc_short = torch_cause_exception(tc, r, cause, cl, gpu_gib, pid_of[culprit], frames, py311, peer_ip=ips[host_of[peer]], my_ip=ips[ch], hca=hca)
        if cause in ("gpu_hardware", "ecc_memory", "nvlink") or (cause == "illegal_memory_access" and r.random() < 0.4):
            xid = {"gpu_hardware": r.choice([79, 119]), "ecc_memory": r.choice([48, 94, 95]), "nvlink": 74, "illegal_memory_access": r.choice([13, 31])}[cause]
            K(ch, t_fail - td(seconds=r.uniform(0.05, 1.5)), xid_text(r, xid, pci_of(cl, gpn), pid_of[culprit], proc="python", gpu_idx=cl))
            run.note("Xid %d on %s GPU %d" % (xid, ch, cl))
        E(t_fail, "\n".join(lines), culprit)
        srun.append((t_fail + td(seconds=2), "srun: error: %s: task %d: Exited with exit code 1" % (ch, culprit)))
        t_end = others_after_exit(t_fail + td(seconds=2), quick_remote=(cause == "network" or r.random() < 0.4))
        run.rank, run.node, run.rank_inferable = culprit, ch, True
        run.drain = cause in DRAIN_CAUSES or cause == "network"
        run.note("rank %d raised %s" % (culprit, exc_short))
    elif cause in ("host_oom_kill", "crash_signal"):
        if cause == "host_oom_kill":
            if r.random() < 0.5:
                wp = pid_of[culprit] + r.randint(50, 500)
                K(ch, t_fail, oom_kill_text(r, wp, "pt_data_worker", cgroup=True))
                E(t_fail + td(seconds=1), "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).\n" if False else "\n".join(py_tb(frames[:1] + [(site + "/torch/utils/data/dataloader.py", 1133, "_try_get_data", "data = self._data_queue.get(timeout=timeout)"),
                                                                                                                                                                                             ("/usr/lib/python3.10/multiprocessing/queues.py", 113, "get", "if not self._poll(timeout):"),
                                                                                                                                                                                             (site + "/torch/utils/data/_utils/signal_handling.py", 67, "handler", "_error_if_any_worker_fails()")],
                                                                                                                                                                                            "RuntimeError: DataLoader worker (pid %d) is killed by signal: Killed. \n\nThe above exception was the direct cause of the following exception:\n\nRuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly" % (wp, wp), py311)), culprit)
                srun.append((t_fail + td(seconds=1), "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % jobid))
                srun.append((t_fail + td(seconds=3), "srun: error: %s: task %d: Exited with exit code 1" % (ch, culprit)))
                run.note("OOM killer took a DataLoader worker of rank %d on %s; rank %d then raised" % (culprit, ch, culprit))
            else:
                K(ch, t_fail, oom_kill_text(r, pid_of[culprit], "python", cgroup=True))
                srun.append((t_fail + td(seconds=1), "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % jobid))
                srun.append((t_fail + td(seconds=2), "srun: error: %s: task %d: Out Of Memory" % (ch, culprit)))
                run.note("cgroup OOM kill of rank %d (pid %d) on %s" % (culprit, pid_of[culprit], ch))
            sacct_state, sacct_exit = "OUT_OF_MEMORY", "0:125"
        else:
            if r.random() < 0.6:
                E(t_fail, "Fatal Python error: Segmentation fault\n\nThread 0x00007f%s (most recent call first):\n  File \"%s/torch/utils/data/_utils/pin_memory.py\", line 54 in _pin_memory_loop\n  File \"/usr/lib/python3.10/threading.py\", line 953 in run\n\nCurrent thread 0x00007f%s (most recent call first):\n  File \"%s/torch/autograd/graph.py\", line 744 in _engine_run_backward\n  File \"%s\", line %d in training_step\n" % (hexs(r, 10), site, hexs(r, 10), site, script, r.randint(50, 300)), culprit)
            srun.append((t_fail + td(seconds=1), "srun: error: %s: task %d: Segmentation fault (core dumped)" % (ch, culprit)))
            run.note("SIGSEGV in rank %d (no Xid)" % culprit)
        t_end = others_after_exit(t_fail + td(seconds=2), quick_remote=r.random() < 0.5)
        run.rank, run.node, run.rank_inferable = culprit, ch, True
    elif cause == "preemption":
        tl = r.random() < 0.5
        if tl:
            for i in (range(world) if world <= 16 else [0]):
                E(t_fail - td(seconds=90), "Handling auto-requeue signal: 10" if i == 0 else "", i)
            E(t_fail - td(seconds=80), "requeing job %d..." % jobid if tc.minor <= 1 else "Requeued SLURM job: %d" % jobid)
            srun.append((t_fail, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (jobid, hosts[0], f_slurm(t_fail))))
            sacct_state, sacct_exit = "TIMEOUT", "0:0"
        else:
            srun.append((t_fail, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (jobid, hosts[0], f_slurm(t_fail))))
            sacct_state, sacct_exit = "PREEMPTED", "0:15"
        srun.append((t_fail, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
        for i in (range(world) if world <= 16 else sample_ranks(r, world, [0], 8)):
            E(t_fail + td(seconds=r.uniform(0, 1)), "[rank: %d] Received SIGTERM: 15" % (i % gpn), i)
            if r.random() < 0.5:
                E(t_fail + td(seconds=r.uniform(1, 2)), "Bypassing SIGTERM: 15", i)
        srun_summary(t_fail + td(seconds=33), (), "Killed" if r.random() < 0.5 else "Terminated")
        t_end = t_fail + td(seconds=34)
        run.note("job %s; Lightning prints SIGTERM on every rank" % ("hit its time limit after auto-requeue signal" if tl else "preempted"))
    elif cause in ("hang", "data_loader_stall", "unknown", "collective_mismatch"):
        seq = r.randint(5000, 150000)
        if cause == "collective_mismatch":
            ncls = r.choice([32000, 50257, 1000])
            shp_me = "%d, %d" % (ncls + 1, r.choice([2048, 4096]))
            shp_o = "%d, %s" % (ncls, shp_me.split(", ")[1])
            E(t_fail - td(seconds=300), "[rank: %d] loaded tokenizer from /tmp/%s/tokenizer.json (vocab=%d)" % (culprit, user, ncls + 1), culprit)
            for i in (range(world) if world <= 8 else sample_ranks(r, world, [0, culprit], 6)):
                other = 0 if i == culprit else culprit
                if i == culprit and culprit == 0:
                    other = 1
                m = tc.mismatch(i, other, seq, shp_me if i == culprit else shp_o, shp_o if i == culprit else shp_me)
                fr = frames + [(site + "/torch/distributed/distributed_c10d.py", 2050, "all_reduce", "work = group.allreduce([tensor], opts)")]
                E(t_fail + td(seconds=r.uniform(0, 1)), "\n".join(py_tb(fr, m, py311)), i)
            srun_summary(t_fail + td(seconds=3), (), "Exited with exit code 1")
            t_end = t_fail + td(seconds=4)
            run.rank, run.node, run.rank_inferable = culprit, ch, True
            run.note("TORCH_DISTRIBUTED_DEBUG=DETAIL; rank %d has a different vocab (per-node tokenizer cache)" % culprit)
        else:
            silent = culprit if cause != "unknown" else None
            if cause == "data_loader_stall":
                K(ch, t_fail - td(seconds=15), nfs_stall_text(r, r.choice(["nfs-home", "gpfs01", "weka01"])))
            dl_timeout = cause == "data_loader_stall" and r.random() < 0.5
            if dl_timeout:
                tdl = t_fail + td(seconds=r.choice([300, 600, 900]))
                fr = frames[:-1] + [(site + "/torch/utils/data/dataloader.py", 1145, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e")]
                E(tdl, "\n".join(py_tb(fr, "RuntimeError: DataLoader timed out after %d seconds" % int((tdl - t_fail).total_seconds()), py311)), culprit)
                srun.append((tdl + td(seconds=2), "srun: error: %s: task %d: Exited with exit code 1" % (ch, culprit)))
                t_end = others_after_exit(tdl + td(seconds=2), quick_remote=r.random() < 0.5)
                run.rank, run.node, run.rank_inferable = culprit, ch, True
                run.note("rank %d's DataLoader timed out while %s's filesystem hung" % (culprit, ch))
            else:
                t_to = t_fail + td(milliseconds=tc.timeout_ms + r.randint(100, 900))
                numel = r.choice([26214400, 65536, 131334144])
                idx = [i for i in range(world) if i != silent]
                show = idx if len(idx) <= 16 else [i for i in sample_ranks(r, world, [0], 12) if i != silent]
                for i in show:
                    tr = t_to + td(seconds=r.uniform(0, 2))
                    tt = T(i, tr)
                    E(tr, "\n".join(tc.watchdog_timeout(i, tt, seq, numel)), i)
                if silent is not None and tc.minor >= 4:
                    for i in show[:2]:
                        E(t_to + td(seconds=2), "\n".join(tc.dump_signal(i, T(i, t_to + td(seconds=2)), seq, seq - 1)), i)
                    E(t_to + td(seconds=3), "\n".join(tc.dump_signal(silent, T(silent, t_to + td(seconds=3)), seq - 1, seq - 1, from_rank=show[0])), silent)
                aborted = [i for i in range(world) if i != silent]
                srun_summary(t_to + td(seconds=5), (), "Aborted (core dumped)", only=aborted)
                if silent is not None:
                    tk = t_to + td(seconds=r.uniform(600, 7200))
                    srun.append((tk, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (jobid, hosts[0], f_slurm(tk))))
                    srun.append((tk + td(seconds=1), "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
                    srun.append((tk + td(seconds=33), "srun: error: %s: task %d: Killed" % (ch, silent)))
                    sacct_state, sacct_exit = "TIMEOUT", "0:0"
                    t_end = tk + td(seconds=34)
                    run.rank, run.node, run.rank_inferable = silent, ch, True
                    run.note("rank %d never timed out itself (nothing pending); the others aborted on the NCCL watchdog; it was killed only at the time limit" % silent)
                else:
                    t_end = t_to + td(seconds=6)
                    run.note("all ranks hit the watchdog on the same SeqNum; nothing points to an initiator")
    elif cause == "straggler":
        K(ch, t_train + td(seconds=dur * 0.2), thermal_text(r))
        run.put("nvidia-smi_%s.txt" % ch, ["$ srun --jobid=%d -w %s nvidia-smi -q -d PERFORMANCE" % (jobid, ch)] + nvsmi_perf(r, gpn, cl, model))
        if r.random() < 0.6:
            E(t_fail + td(seconds=40), "`Trainer.fit` stopped: `max_epochs=%d` reached." % r.randint(2, 10))
            sacct_state, sacct_exit = "COMPLETED", "0:0"
            t_end = t_fail + td(seconds=45)
            run.note("finished, but it/s fell ~45%%; rank %d fwd_bwd ~1.8x" % culprit)
        else:
            srun.append((t_fail, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (jobid, hosts[0], f_slurm(t_fail))))
            srun.append((t_fail, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
            srun_summary(t_fail + td(seconds=33), (), "Killed")
            sacct_state, sacct_exit = "TIMEOUT", "0:0"
            t_end = t_fail + td(seconds=34)
            run.note("slow run hit the time limit; rank %d fwd_bwd ~1.8x" % culprit)
        run.rank, run.node, run.rank_inferable = culprit, ch, True
    if cause is not None and r.random() < 0.4 and N > 1:
        oh = r.choice([h for h in hosts if h != ch])
        evs, xid = decoy_xid_block(r, t0, oh)
        for t, ln in evs:
            K(oh, t - td(seconds=skew[oh]), [ln])
        run.note("decoy: old Xid %d on %s" % (xid, oh))
    # ------------------------------------------------ render
    for t, ln in srun:
        ERR.add(t, None, ln)

    def render(st):
        o = []
        for e in st.sorted():
            if not e.text:
                continue
            o.extend(e.text.split("\n"))
        return o
    if split:
        run.put("slurm-%d.out" % jobid, render(OUT))
        run.put("slurm-%d.err" % jobid, render(ERR))
    else:
        both = Stream()
        both.evs = OUT.evs + ERR.evs
        run.put("slurm-%d.out" % jobid, render(both))
    for name in list(run.files):
        if len(run.files[name]) > 9000:
            run.files[name] = run.files[name][:3000] + run.files[name][-6000:]
    kstyle = r.choice(["dmesgT", "journal", "syslog"])
    for h in hosts:
        if h in kern:
            evs = kern[h] + kernel_noise(r, t0, t_end, r.randint(2, 8))
            run.put(("dmesg_%s.txt" if kstyle == "dmesgT" else ("journal_%s.txt" if kstyle == "journal" else "messages_%s.txt")) % h, kernel_file(r, h, kstyle, evs, boot[h]))
    if r.random() < 0.6:
        el = (t_end - t0).total_seconds()
        sa = ["$ sacct -j %d -o JobID,State,ExitCode,Elapsed,NodeList%%30" % jobid,
              "JobID             State ExitCode    Elapsed                       NodeList ",
              "------------ ---------- -------- ---------- ------------------------------ ",
              "%-12s %10s %8s %10s %30s " % (jobid, sacct_state[:10], sacct_exit, elapsed_slurm(el), hostlist(hosts)[:30]),
              "%-12s %10s %8s %10s %30s " % ("%d.batch" % jobid, sacct_state[:10] if sacct_state != "OUT_OF_MEMORY" else "FAILED", sacct_exit if sacct_state != "OUT_OF_MEMORY" else "1:0", elapsed_slurm(el), hosts[0]),
              "%-12s %10s %8s %10s %30s " % ("%d.0" % jobid, "OUT_OF_ME+" if sacct_state == "OUT_OF_MEMORY" else sacct_state[:10], sacct_exit, elapsed_slurm(el - 30), hostlist(hosts)[:30])]
        run.put("sacct.txt", sa)
    run.note("Lightning %s + torch %s, strategy=%s, %d ranks on %d nodes, %s" % (lv, tc.ver, strat, world, N, "split .out/.err" if split else "merged output"))
    return world


GENERATORS = {
    "jax-slurm": gen_jax_slurm,
    "tf-mwms-k8s": gen_tf_mwms_k8s,
    "horovod-mpirun": gen_horovod_mpirun,
    "ray-train-torch": gen_ray_train_torch,
    "ray-slurm-lightning": gen_ray_slurm_lightning,
    "lightning-slurm": gen_lightning_slurm,
}


# ----------------------------------------------------------------------------------------
# planning and main
# ----------------------------------------------------------------------------------------

def plan(n, seed):
    r = random.Random("%s-plan-%s" % (NAME, seed))
    order = CAUSES[:]
    r.shuffle(order)
    lay = []
    while len(lay) < n:
        blk = LAYOUTS[:]
        r.shuffle(blk)
        lay.extend(blk)
    out = []
    k = 0
    for i in range(n):
        if i % 7 == 3:
            cause = None
        else:
            cause = order[k % len(order)]
            k += 1
        out.append((lay[i], cause))
    return out


def write_run(outdir, i, run):
    d = os.path.join(outdir, "run-%03d-%s" % (i, run.layout))
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    total = 0
    for name in run.order:
        lines = run.files[name]
        txt = "\n".join(lines) + "\n"
        total += len(txt.encode("utf-8"))
        with open(os.path.join(d, name), "w", encoding="utf-8") as f:
            f.write(txt)
    with open(os.path.join(d, "truth.json"), "w", encoding="utf-8") as f:
        json.dump(run.truth(), f, indent=2, sort_keys=False)
        f.write("\n")
    return total


def shrink(run, limit=950000):
    """keep each run folder under ~1 MB: trim the biggest file from the middle"""
    def size():
        return sum(len(("\n".join(v) + "\n").encode("utf-8")) for v in run.files.values())
    guard = 0
    while size() > limit and guard < 20:
        guard += 1
        big = max(run.order, key=lambda k: len(("\n".join(run.files[k])).encode("utf-8")))
        L = run.files[big]
        keep = int(len(L) * 0.7)
        run.files[big] = L[:keep // 3] + L[-(keep - keep // 3):]
        if guard == 1:
            run.note("%s trimmed in the middle to keep the bundle small" % big)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    counts = {}
    for c in CAUSES + ["healthy"]:
        counts[c] = 0
    lay_counts = {}
    for i, (layout, cause) in enumerate(plan(a.n, a.seed)):
        run = Run(a.seed, i, layout, cause)
        GENERATORS[layout](run)
        if run.cause in ("preemption",) and run.rank is not None:
            run.rank = None
        if run.rank is None:
            run.rank_inferable = False
        if run.cause not in DRAIN_CAUSES + ("network",):
            run.drain = False
        if run.cause == "network" and run.node is None:
            run.drain = False
        shrink(run)
        write_run(a.out, i, run)
        counts["healthy" if cause is None else cause] += 1
        lay_counts[layout] = lay_counts.get(layout, 0) + 1
    print(json.dumps({"causes": counts, "layouts": lay_counts}, sort_keys=True))


if __name__ == "__main__":
    main()
