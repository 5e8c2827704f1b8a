#!/usr/bin/env python3
"""gen_blind15.py -- synthetic log bundles of distributed GPU training jobs
(PyTorch / NCCL / torchrun / DeepSpeed / Horovod) that come with the
node-level diagnostics a cluster operator attaches: nvidia-bug-report
excerpts, DCGM diag / health / exporter scrapes, Slurm drain state and NHC
logs, InfiniBand diagnostics, and a node-health agent's (gpud) event JSON.

Written blind: without reading the diagnosis tool's code, rules or corpus.
Standard library only.  Deterministic for a given --seed.

    python3 gen_blind15.py --out DIR --n 60 --seed 1
"""
import argparse
import json
import os
import random
import re
from datetime import datetime, timedelta, timezone

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill",
          "crash_signal", "preemption", "hang", "data_loader_stall",
          "collective_mismatch", "straggler", "unknown"]
LAYOUTS = ["nvbugreport", "dcgm_diag", "slurm_drain", "ib_diag", "gpud_events"]
DRAINABLE = {"gpu_hardware", "ecc_memory", "nvlink", "network"}
UTC = timezone.utc

# --------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------


def hexs(rng, n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def uuid4(rng):
    return "%s-%s-%s-%s-%s" % (hexs(rng, 8), hexs(rng, 4), hexs(rng, 4),
                               hexs(rng, 4), hexs(rng, 12))


def gpu_uuid(rng):
    return "GPU-" + uuid4(rng)


def wchoice(rng, items):
    """items: list of (value, weight)"""
    tot = sum(w for _, w in items)
    x = rng.random() * tot
    for v, w in items:
        x -= w
        if x <= 0:
            return v
    return items[-1][0]


def loc(t, off_h):
    """UTC datetime -> naive local datetime with offset (hours, may be float)."""
    return (t + timedelta(hours=off_h)).replace(tzinfo=None)


def ts_py(t):
    """python logging asctime: 2024-03-12 10:22:33,123"""
    return t.strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (t.microsecond // 1000)


def ts_glog(t, sev, pid, path):
    """torch >=2.4 c10/glog-ish prefix used by torch.distributed python loggers"""
    return "%s%s %s.%03d000 %d %s] " % (sev, t.strftime("%m%d"), t.strftime("%H:%M:%S"),
                                         t.microsecond // 1000, pid, path)


def iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S")


def rfc3339(t, frac=0):
    s = t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S")
    if frac:
        s += ".%0*d" % (frac, int(t.microsecond * (10 ** frac) / 1e6))
    return s + "Z"


def ctime(t):
    """Tue Mar 12 10:22:14 2024"""
    return t.strftime("%a %b ") + ("%2d" % t.day) + t.strftime(" %H:%M:%S %Y")


def syslog_ts(t):
    return t.strftime("%b ") + ("%2d" % t.day) + t.strftime(" %H:%M:%S")


def uptime_stamp(secs):
    return "[%12.6f]" % secs


def fmt_dur(s):
    s = int(s)
    return "%d:%02d:%02d" % (s // 3600, (s % 3600) // 60, s % 60)


def pad_table(rows, sep="  "):
    w = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    return [sep.join(str(c).ljust(w[i]) for i, c in enumerate(r)).rstrip() for r in rows]


def sample_ranks(rng, world, culprit, k):
    """ranks a person would attach for a big job: first few, culprit-ish, random"""
    s = list(range(min(world, 4)))
    if culprit is not None and culprit not in s:
        s.append(culprit)
    pool = list(range(world))
    rng.shuffle(pool)
    for r in pool:
        if len(s) >= k:
            break
        if r not in s:
            s.append(r)
    return sorted(s)


# --------------------------------------------------------------------------
# hardware / site catalogue
# --------------------------------------------------------------------------

PLATFORMS = {
    "dgx_h100": dict(gpu="NVIDIA H100 80GB HBM3", devid="2330", mem=81559, nvl=18, pwr=700,
                     bus=["1b", "43", "52", "61", "9d", "c3", "d1", "df"],
                     hca=["18", "40", "4f", "5e", "9a", "c0", "ce", "dc"], ib_rate=400, ca="MT4129",
                     fw="28.39.2048", boardpn="692-2G520-0200-000", vbios="96.00.99.00.01"),
    "hgx_h100": dict(gpu="NVIDIA H100 80GB HBM3", devid="2330", mem=81559, nvl=18, pwr=700,
                     bus=["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"],
                     hca=["1a", "3c", "4d", "5e", "9c", "bc", "cc", "dc"], ib_rate=400, ca="MT4129",
                     fw="28.40.1000", boardpn="692-2G520-0200-000", vbios="96.00.89.00.01"),
    "hgx_h200": dict(gpu="NVIDIA H200", devid="2335", mem=143771, nvl=18, pwr=700,
                     bus=["19", "3b", "4c", "5d", "9b", "bb", "cb", "db"],
                     hca=["1a", "3c", "4d", "5e", "9c", "bc", "cc", "dc"], ib_rate=400, ca="MT4129",
                     fw="28.42.1000", boardpn="692-2G520-0280-000", vbios="96.00.9F.00.04"),
    "dgx_a100": dict(gpu="NVIDIA A100-SXM4-80GB", devid="20b2", mem=81920, nvl=12, pwr=400,
                     bus=["07", "0f", "47", "4e", "87", "90", "b7", "bd"],
                     hca=["0c", "12", "4b", "54", "8d", "94", "ba", "cc"], ib_rate=200, ca="MT4123",
                     fw="20.37.1014", boardpn="692-2G506-0212-002", vbios="92.00.45.00.06"),
    "a100_40": dict(gpu="NVIDIA A100-SXM4-40GB", devid="20b0", mem=40960, nvl=12, pwr=400,
                    bus=["07", "0f", "47", "4e", "87", "90", "b7", "bd"],
                    hca=["0c", "12", "4b", "54", "8d", "94", "ba", "cc"], ib_rate=200, ca="MT4123",
                    fw="20.35.3006", boardpn="692-2G506-0200-006", vbios="92.00.36.00.02"),
}

DRIVERS = [("535.161.08", "12.2"), ("535.183.01", "12.2"), ("550.54.15", "12.4"),
           ("550.90.07", "12.4"), ("550.127.05", "12.4"), ("560.35.03", "12.6"),
           ("570.86.15", "12.8"), ("570.124.06", "12.8")]
KERNELS = ["5.15.0-1053-nvidia", "5.15.0-105-generic", "5.15.0-119-generic",
           "6.5.0-1024-oracle", "6.8.0-1015-aws", "5.14.0-427.13.1.el9_4.x86_64",
           "4.18.0-513.24.1.el8_9.x86_64"]
TORCH_VERSIONS = [(2, 1), (2, 2), (2, 3), (2, 4), (2, 5), (2, 6), (2, 7)]
NCCL_FOR_TORCH = {(2, 1): "2.18.6", (2, 2): "2.19.3", (2, 3): "2.20.5", (2, 4): "2.20.5",
                  (2, 5): "2.21.5", (2, 6): "2.21.5", (2, 7): "2.26.2"}
PY_FOR_TORCH = {(2, 1): "3.10", (2, 2): "3.10", (2, 3): "3.10", (2, 4): "3.10",
                (2, 5): "3.11", (2, 6): "3.11", (2, 7): "3.12"}

SITE_TZ = [("UTC", 0), ("US/Pacific", -7), ("US/Central", -5), ("Europe/Berlin", 2),
           ("Asia/Shanghai", 8), ("Asia/Seoul", 9), ("US/Eastern", -4)]

MODELS = ["llama2-7b", "llama3-8b", "gpt-neox-20b", "mixtral-8x7b", "gpt3-1.3b", "t5-xl",
          "vit-h14", "bert-large", "qwen2-7b", "mistral-7b", "llama2-70b", "codegen-16b"]
SCRIPTS = ["train.py", "pretrain_gpt.py", "main.py", "run_clm.py", "train_llm.py",
           "finetune.py", "train_net.py"]


class Node(object):
    def __init__(self, idx, name):
        self.idx = idx
        self.name = name
        self.fqdn = name
        self.ip = ""
        self.aliases = []
        self.boot_uptime = 0.0   # uptime (s) at job start
        self.skew = 0.0          # clock skew (s)
        self.agent_pid = 0
        self.pids = []
        self.bus = []            # per local gpu "0000:18:00.0"
        self.uuids = []
        self.serials = []
        self.hcas = []           # mlx5_N per local gpu
        self.hca_bus = []
        self.guids = []
        self.lids = []
        self.k8s_node = None
        self.jhost = name
        self.pod = None


class World(object):
    pass


def contiguous(rng, base, total):
    out = []
    x = base
    for _ in range(total):
        out.append(x)
        x += 1 if rng.random() < 0.85 else rng.randint(2, 4)
    return out


def make_hostnames(rng, n, style, extra, plat="dgx_h100"):
    """returns (names, fqdn_suffix, spare_names) for n job nodes + extra decoys"""
    total = n + extra
    if style == "gpuNNN":
        nums = contiguous(rng, rng.randint(1, 300), total)
        names = ["gpu%03d" % x for x in nums]
        suf = rng.choice([".cluster.local", ".hpc.internal", ""])
    elif style == "dgx":
        nums = contiguous(rng, rng.randint(1, 120), total)
        tag = {"dgx_h100": "h100", "hgx_h100": "h100", "hgx_h200": "h200", "dgx_a100": "a100", "a100_40": "a100"}[plat]
        names = ["dgx-%s-%03d" % (tag, x) for x in nums]
        suf = rng.choice([".cm.cluster", ".lab.example.com", ""])
    elif style == "rack":
        names = []
        racks = rng.sample(range(1, 40), max(1, (total + 7) // 8 + 1))
        for r in racks:
            for u in range(1, 9):
                names.append("hgx-r%02d-%02d" % (r, u))
        names = sorted(rng.sample(names, total))
        suf = rng.choice([".dc1.example.net", ""])
    elif style == "aws":
        a = rng.randint(0, 3)
        names = sorted(set("ip-10-%d-%d-%d" % (a, rng.randint(0, 255), rng.randint(2, 254))
                           for _ in range(total * 2)))
        names = sorted(rng.sample(names, total))
        suf = ".ec2.internal"
    elif style == "cn":
        nums = contiguous(rng, rng.randint(100, 2000), total)
        names = ["cn%04d" % x for x in nums]
        suf = ".hpc.example.org"
    else:  # "node"
        nums = contiguous(rng, rng.randint(1, 60), total)
        names = ["node-%02d" % x for x in nums]
        suf = rng.choice([".svc.lan", ""])
    if style in ("aws", "rack"):
        job = sorted(rng.sample(names, n))
    else:
        st = rng.randint(0, total - n)
        job = names[st:st + n]
    spare = [x for x in names if x not in job]
    return job, suf, spare


def slurm_hostlist(names):
    """compress a sorted list of hostnames into Slurm hostlist syntax"""
    import re
    groups = []
    for nm in names:
        m = re.match(r"^(.*?)(\d+)$", nm)
        if not m:
            groups.append((nm, None, None))
            continue
        pre, num = m.group(1), m.group(2)
        if groups and groups[-1][0] == pre and groups[-1][1] is not None and len(groups[-1][2][-1][1]) == len(num) \
                and int(groups[-1][2][-1][1]) + 1 == int(num):
            groups[-1][2][-1] = (groups[-1][2][-1][0], num)
        elif groups and groups[-1][0] == pre and groups[-1][1] is not None:
            groups[-1][2].append((num, num))
        else:
            groups.append((pre, True, [(num, num)]))
    out = []
    for pre, flag, rngs in groups:
        if flag is None:
            out.append(pre)
            continue
        parts = [a if a == b else "%s-%s" % (a, b) for a, b in rngs]
        if len(parts) == 1 and "-" not in parts[0]:
            out.append(pre + parts[0])
        else:
            out.append("%s[%s]" % (pre, ",".join(parts)))
    return ",".join(out)


def make_world(rng, layout, cause):
    W = World()
    W.platform = wchoice(rng, [("dgx_h100", 3), ("hgx_h100", 4), ("hgx_h200", 1),
                               ("dgx_a100", 3), ("a100_40", 1)])
    P = PLATFORMS[W.platform]
    W.P = P
    gpn = wchoice(rng, [(8, 80), (4, 14), (2, 6)])
    if cause == "nvlink" and gpn < 4:
        gpn = 8
    # nodes
    choices = [(1, 4), (2, 10), (3, 3), (4, 12), (6, 4), (8, 12), (12, 4), (16, 10),
               (24, 3), (32, 7), (48, 2), (64, 4)]
    nn = wchoice(rng, choices)
    if gpn < 8 and nn > 16:
        nn = 16
    if cause in ("network",) and nn < 2:
        nn = rng.choice([2, 4])
    if layout in ("ib_diag",) and nn < 2:
        nn = 2
    if layout == "dcgm_diag" and nn > 32:
        nn = 32
    W.gpn = gpn
    W.nn = nn
    W.world = gpn * nn
    style = rng.choice(["gpuNNN", "dgx", "rack", "aws", "cn", "node"])
    if W.platform.startswith("dgx") and rng.random() < 0.5:
        style = "dgx"
    names, suf, spare = make_hostnames(rng, nn, style, extra=6, plat=W.platform)
    W.style = style
    W.fqdn_suffix = suf
    W.spare = spare
    W.driver, W.cuda_drv = rng.choice(DRIVERS)
    W.kernel = rng.choice(KERNELS)
    if ".el9" in W.kernel:
        W.kbuild = "#1"
        W.uname_v = "#1 SMP PREEMPT_DYNAMIC Wed Apr 24 12:34:07 UTC 2024"
        W.os_pretty, W.os_ver = "Rocky Linux 9.4 (Blue Onyx)", "9.4"
        W.gcc = "gcc version 11.4.1 20231218 (Red Hat 11.4.1-3) (GCC) "
        W.linux_version = "Linux version %s (mockbuild@iad1-prod-build001.bld.equ.rockylinux.org) (gcc (GCC) 11.4.1 20231218 (Red Hat 11.4.1-3), GNU ld version 2.35.2-43.el9) %s" % (W.kernel, W.uname_v)
    elif ".el8" in W.kernel:
        W.kbuild = "#1"
        W.uname_v = "#1 SMP Thu Mar 14 10:48:02 EDT 2024"
        W.os_pretty, W.os_ver = "Red Hat Enterprise Linux 8.9 (Ootpa)", "8.9"
        W.gcc = "gcc version 8.5.0 20210514 (Red Hat 8.5.0-20) (GCC) "
        W.linux_version = "Linux version %s (mockbuild@x86-vm-07.build.eng.bos.redhat.com) (gcc version 8.5.0 20210514 (Red Hat 8.5.0-20) (GCC)) %s" % (W.kernel, W.uname_v)
    else:
        bn = rng.randint(50, 140)
        W.kbuild = "#%d-Ubuntu" % bn
        W.uname_v = "#%d-Ubuntu SMP %s" % (bn, rng.choice(["Mon Apr 15 09:52:04 UTC 2024", "Fri Aug  9 14:13:06 UTC 2024", "Tue Feb 27 11:18:04 UTC 2024"]))
        W.os_pretty, W.os_ver = "Ubuntu 22.04.4 LTS", "22.04"
        W.gcc = "gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04) "
        W.linux_version = "Linux version %s (buildd@lcy02-amd64-%03d) (x86_64-linux-gnu-gcc-12 (Ubuntu 12.3.0-1ubuntu1~22.04) 12.3.0, GNU ld (GNU Binutils for Ubuntu) 2.38) %s" % (W.kernel, rng.randint(1, 120), W.uname_v)
    W.tv = rng.choice(TORCH_VERSIONS)
    W.nccl = NCCL_FOR_TORCH[W.tv]
    if rng.random() < 0.3:
        W.nccl = rng.choice(["2.19.3", "2.20.5", "2.21.5", "2.23.4", "2.25.1", "2.27.3"])
    W.py = PY_FOR_TORCH[W.tv]
    W.torch_str = "%d.%d.%d" % (W.tv[0], W.tv[1], rng.choice([0, 1, 2]))
    W.cuda_rt = rng.choice(["12.1", "12.4", "12.6"]) if W.tv >= (2, 4) else rng.choice(["11.8", "12.1"])
    W.site_tz_name, W.site_tz = rng.choice(SITE_TZ)
    # container clock: usually UTC, sometimes site local
    W.ctz = 0 if rng.random() < 0.65 else W.site_tz
    W.model = rng.choice(MODELS)
    W.script = rng.choice(SCRIPTS)
    W.workdir = rng.choice(["/workspace", "/home/%s/proj" % rng.choice(["jchen", "mkumar", "asmith", "lwei", "tnguyen"]),
                            "/lustre/projects/llm/%s" % rng.choice(["rsch", "train", "exp42"]), "/opt/ml/code"])
    W.pysite = rng.choice(["/usr/local/lib/python%s/dist-packages" % W.py,
                           "/opt/conda/lib/python%s/site-packages" % W.py,
                           "/home/user/.venv/lib/python%s/site-packages" % W.py])
    if W.pysite.startswith("/opt/conda"):
        W.pybin, W.torchrun = "/opt/conda/bin/python", "/opt/conda/bin/torchrun"
    elif W.pysite.startswith("/home"):
        W.pybin, W.torchrun = "/home/user/.venv/bin/python", "/home/user/.venv/bin/torchrun"
    else:
        W.pybin, W.torchrun = rng.choice(["/usr/bin/python", "/usr/bin/python3", "/usr/bin/python%s" % W.py]), "/usr/local/bin/torchrun"
    W.jobid = rng.randint(100000, 9999999)
    W.user = rng.choice(["jchen", "mkumar", "asmith", "lwei", "tnguyen", "svc-train", "rpatel"])
    W.uid = rng.choice([1000, 1001, 20143, 31337, 50012])
    W.t0 = datetime(2023, 9, 1, tzinfo=UTC) + timedelta(seconds=rng.randint(0, 640 * 86400))
    ipbase = rng.choice(["10.%d" % rng.randint(0, 255), "172.%d" % rng.randint(16, 31), "192.168"])
    W.nodes = []
    for i, nm in enumerate(names):
        n = Node(i, nm)
        n.fqdn = nm + suf if suf else nm
        n.ip = "%s.%d.%d" % (ipbase, rng.randint(0, 40), rng.randint(2, 250))
        if style == "aws":
            n.ip = nm[3:].replace("-", ".")
        n.boot_uptime = rng.uniform(2.5 * 3600, 60 * 86400)
        n.skew = rng.uniform(-1.5, 1.5)
        n.agent_pid = rng.randint(2000, 900000)
        n.agent_tid = 139600000000000 + rng.randint(0, 999999999) * 4096
        p = n.agent_pid + rng.randint(3, 40)
        for g in range(gpn):
            n.pids.append(p)
            p += rng.randint(1, 4)
        n.bus = ["0000:%s:00.0" % b for b in P["bus"][:gpn]]
        n.hca_bus = ["0000:%s:00.0" % b for b in P["hca"][:gpn]]
        n.uuids = [gpu_uuid(rng) for _ in range(gpn)]
        n.serials = ["%d" % rng.randint(1320000000000, 1799999999999) for _ in range(gpn)]
        hmap = list(range(gpn))
        if W.platform == "dgx_h100" and gpn == 8:
            hmap = [0, 3, 4, 5, 6, 9, 10, 11]
        n.hcas = ["mlx5_%d" % h for h in hmap]
        n.guids = ["0x%s" % (rng.choice(["946dae", "b83fd2", "1070fd", "e8ebd3", "a088c2"]) + "0300" + hexs(rng, 6)) for _ in range(gpn)]
        n.lids = [rng.randint(20, 3000) for _ in range(gpn)]
        W.nodes.append(n)
    # one node with a badly skewed clock, sometimes
    if nn > 2 and rng.random() < 0.25:
        rng.choice(W.nodes).skew = rng.choice([-1, 1]) * rng.uniform(20, 95)
    W.hostlist = slurm_hostlist([n.name for n in W.nodes])
    # launcher per layout
    if layout == "nvbugreport":
        W.launcher = "srun_torchrun"
    elif layout == "dcgm_diag":
        W.launcher = "k8s_torchrun"
        setup_k8s(rng, W)
    elif layout == "slurm_drain":
        W.launcher = "srun_tasks"
    elif layout == "ib_diag":
        W.launcher = rng.choice(["deepspeed_pdsh", "mpirun"])
    else:
        W.launcher = "torchrun_nodes"
    return W


def setup_k8s(rng, W):
    W.k8s_ns = rng.choice(["ml-train", "research", "llm", "team-nlp", "default"])
    W.k8s_job = rng.choice(["llm-pretrain", "llama-ft", "gptneox-run", "mixtral-sft", "bert-mlm", "vit-h14"]) + "-" + rng.choice(["v2", "7b", "exp%d" % rng.randint(1, 99), hexs(rng, 5)])
    sty = rng.choice(["gke", "aks", "eks", "plain"])
    W.k8s_style = sty
    W.pod_cidr = "10.%d" % rng.choice([244, 52, 96, 112, 8])
    W.node_cidr = "10.%d" % rng.choice([0, 1, 128, 200, 240])
    names = []
    if sty == "gke":
        pool = hexs(rng, 8)
        for i in range(W.nn + 6):
            names.append("gke-%s-a3-highgpu-pool-%s-%s" % (rng.choice(["train", "ml-prod", "research"]), pool, "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(4))))
    elif sty == "aks":
        base = rng.randint(10000000, 99999999)
        for i in range(W.nn + 6):
            names.append("aks-ndh100v5-%d-vmss%06x" % (base, rng.randint(0, 0xfff)))
    elif sty == "eks":
        a = rng.randint(0, 3)
        for i in range(W.nn + 6):
            names.append("ip-10-%d-%d-%d.ec2.internal" % (a, rng.randint(0, 255), rng.randint(2, 254)))
    else:
        b0 = rng.randint(1, 40)
        for i in range(W.nn + 6):
            names.append("gpu-node-%02d" % (b0 + i))
    names = sorted(set(names))
    rng.shuffle(names)
    names = names[:W.nn + 6]
    W.spare = names[W.nn:]
    for i, n in enumerate(W.nodes):
        n.name = names[i]
        n.k8s_node = names[i]
        n.pod = "%s-master-0" % W.k8s_job if i == 0 else "%s-worker-%d" % (W.k8s_job, i - 1)
        n.jhost = n.pod
        n.fqdn = n.pod
        n.ip = "%s.%d.%d" % (W.pod_cidr, rng.randint(0, 255), rng.randint(2, 254))
        n.node_ip = "%s.%d.%d" % (W.node_cidr, rng.randint(0, 63), rng.randint(2, 254))


def rank_of(W, node_idx, local):
    return node_idx * W.gpn + local


def node_of(W, rank):
    return W.nodes[rank // W.gpn]


def local_of(W, rank):
    return rank % W.gpn


# --------------------------------------------------------------------------
# scenario: what happened, independent of how it is rendered
# --------------------------------------------------------------------------

class Scenario(object):
    pass


def F(kind, t, **kw):
    d = {"kind": kind, "t": t}
    d.update(kw)
    return d


XID_TEXT = {
    13: "Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address",
    31: "Ch %08x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC%d GPCCLIENT_T1_%d faulted @ 0x%x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_%s",
    43: "Ch %08x",
    45: "Ch %08x",
    48: "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d.",
    62: "%08x %08x %08x %08x %08x %08x %08x %08x",
    63: "Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate.",
    64: "Row Remapper: Row remapping failed.",
    74: "NVLink: fatal error detected on link %d(0x%x, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)",
    79: "GPU has fallen off the bus.",
    92: "High single-bit ECC error rate detected on GPU partition %d",
    94: "Contained: SM (0x1). RST: No, D-RST: No",
    95: "Uncontained: FBHUB. RST: Yes, D-RST: No",
    109: "Ch %08x, errorString CTX SWITCH TIMEOUT, Info 0x%x",
    119: "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x%08x 0x%x).",
    120: "GSP task exception",
    154: "GPU recovery action changed from 0x0 (None) to 0x%x (%s)",
}

XID_NAME = {
    13: "Graphics Engine Exception", 31: "GPU memory page fault", 43: "GPU stopped processing",
    45: "Preemptive cleanup, due to previous errors -- Most likely to see when running multiple cuda applications and hitting a DBE",
    48: "Double Bit ECC Error", 62: "Internal micro-controller halt", 63: "ECC page retirement or row remapping recording event",
    64: "ECC page retirement or row remapper recording failure", 74: "NVLINK Error", 79: "GPU has fallen off the bus",
    92: "High single-bit ECC error rate", 94: "Contained ECC error", 95: "Uncontained ECC error",
    109: "Context Switch Timeout Error", 119: "GSP RPC Timeout", 120: "GSP Error", 154: "GPU Recovery Action Changed",
}


def xid_message(rng, code, W, gpu):
    t = XID_TEXT[code]
    if code == 13:
        return t % (rng.randint(0, 7), rng.randint(0, 8), rng.randint(0, 1))
    if code == 31:
        return t % (rng.randint(2, 0x30), rng.randint(0, 7), rng.randint(0, 7), rng.randint(0x10, 0x7ff),
                    rng.randint(0, 0xffffffff) & 0xfffff000, rng.choice(["READ", "WRITE"]))
    if code in (43, 45):
        return t % rng.randint(1, 0x40)
    if code == 48:
        return t % (rng.randint(0, 11), rng.randint(0, 1))
    if code == 62:
        return t % tuple(rng.randint(0, 0xffff) for _ in range(8))
    if code == 63:
        return t % rng.randint(0x100000, 0xffffffff)
    if code == 74:
        return t % (rng.randint(0, W.P["nvl"] - 1), rng.choice([0x10000, 0x100, 0x10, 0x1000000]))
    if code == 92:
        return t % rng.randint(0, 11)
    if code == 109:
        return t % (rng.randint(2, 0x40), rng.randint(0x10000, 0x9ffff))
    if code == 119:
        return t % (gpu, rng.choice([0x20802a02, 0x2080014b, 0x20809004, 0x90cc0301]), rng.choice([0x8, 0x4, 0x608, 0xc]))
    if code == 154:
        return t % rng.choice([(0x2, "Node Reboot Required"), (0x1, "GPU Reset Required"), (0x4, "Drain and Reset")])
    return t


def build_scenario(rng, W, cause, layout):
    sc = Scenario()
    sc.W = W
    sc.cause = cause
    sc.layout = layout
    sc.healthy = cause is None
    sc.notes = []
    sc.facts = []      # node diagnostics facts (job nodes): dict with node=int
    sc.decoys = []     # facts that are NOT the cause (node=int or str spare name)
    sc.pre = {}        # rank -> list of (t, line) extra lines before the end
    sc.fates = {}
    sc.culprit = None
    sc.cnode = None
    sc.cgpu = None
    sc.evidence = "log"
    sc.rank_inferable = True
    sc.node_known = True
    sc.sched_end = None
    sc.desync = False
    sc.frdump = False
    sc.straggle = None
    sc.dl_timeout = None
    sc.mismatch = None
    sc.fabric_wide = False
    sc.omit_culprit_log = False
    sc.rank_block = ""
    sc.step_time = round(rng.uniform(0.35, 6.0), 3)
    sc.start_step = rng.choice([0, 0, 0, rng.randint(1, 60) * 500])
    sc.t_ready = W.t0 + timedelta(seconds=rng.uniform(25, 170))
    sc.cps = rng.choice([2, 3, 4, 6, 8, 12, 24, 48])
    sc.timeout_ms = wchoice(rng, [(600000, 5), (1800000, 4), (3600000, 1), (7200000, 1)])
    sc.op = rng.choice(["ALLREDUCE", "ALLREDUCE", "ALLREDUCE", "ALLGATHER", "REDUCE_SCATTER",
                        "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE", "BROADCAST"])
    sc.numel = rng.choice([1, 2, 4096, 65536, 1048576, 16777216, 26214400, 131334144, 262668288])
    sc.collateral = wchoice(rng, [("timeout", 45), ("remote", 25), ("killed", 30)])
    sc.netib = "NET/IB:" if W.nccl >= "2.23" else "NET/IB :"
    sc.v_num = rng.randint(0, 9)
    sc.core = rng.random() < 0.5
    sc.cgv2 = rng.random() < 0.6
    sc.ds_ln = rng.choice([(315, 321), (319, 325)])
    sc.dcgm_ver = rng.choice(["3.3.5", "3.3.6", "3.3.7", "3.3.9"])
    sc.cpus = rng.choice([96, 112, 128, 192, 224])
    sc.memmb = rng.choice([1031000, 2063000, 1547000])
    if W.launcher in ("deepspeed_pdsh", "torchrun_nodes") and sc.collateral == "killed":
        sc.collateral = rng.choice(["timeout", "remote"])
    if W.launcher == "mpirun":
        sc.collateral = "killed"
    sc.tee = rng.random() < 0.35          # torchrun --tee 3 -> [defaultN]: prefixes
    sc.nccl_debug = "INFO" if (W.world <= 64 and rng.random() < 0.6) else ("WARN" if rng.random() < 0.5 else None)
    sc.record = rng.random() < 0.5        # @record on main -> error_file traceback
    sc.log_style = rng.choice(["megatron", "hf", "custom", "lightning", "custom"])
    sc.per_rank_log = rng.random() < 0.3  # every rank logs its own step lines
    sc.dl_workers = rng.choice([2, 4, 6, 8, 10])
    # run length
    if sc.healthy:
        run = rng.uniform(20 * 60, 14 * 3600)
    else:
        run = rng.uniform(9 * 60, 19 * 3600)
    sc.t_fail = sc.t_ready + timedelta(seconds=run)
    sc.fail_step = sc.start_step + int(run / sc.step_time)
    sc.total_steps = sc.fail_step if sc.healthy else sc.fail_step + rng.randint(2000, 300000)
    sc.seq = 12 + (sc.fail_step - sc.start_step) * sc.cps + rng.randint(0, sc.cps - 1)
    sc.t_end = sc.t_fail
    to = timedelta(milliseconds=sc.timeout_ms)
    ranks = list(range(W.world))

    def pick_culprit(avoid_zero=True):
        r = rng.randrange(W.world)
        if avoid_zero and W.world > 2 and r == 0 and rng.random() < 0.8:
            r = rng.randrange(1, W.world)
        return r

    def set_culprit(r):
        sc.culprit = r
        sc.cnode = r // W.gpn
        sc.cgpu = r % W.gpn

    # ---------------- failure patterns ----------------
    def pattern_die(cfate):
        """culprit process exits; siblings SIGTERMed by agent; rest per collateral mode"""
        c = sc.culprit
        tdie = cfate["t"]
        sc.fates[c] = cfate
        cn = sc.cnode
        t_kill = tdie + timedelta(seconds=rng.uniform(0.3, 4.0))
        mode = sc.collateral
        agentless = W.launcher in ("srun_tasks", "mpirun")
        for g in range(W.gpn):
            r = rank_of(W, cn, g)
            if r == c:
                continue
            if not agentless:
                sc.fates[r] = F("sigterm", t_kill, by="agent")
            elif mode == "killed":
                sc.fates[r] = F("sigterm", t_kill + timedelta(seconds=rng.uniform(0.5, 2)), by="sched")
            else:
                sc.fates[r] = F("timeout", tdie + to + timedelta(seconds=rng.uniform(-20, 25)), seq=sc.seq, op=sc.op, numel=sc.numel)
        if W.nn == 1:
            mode = "none"
        t_agent_exit = t_kill + timedelta(seconds=rng.uniform(1, 12))
        sc.t_agent_exit_c = t_agent_exit
        for nd in range(W.nn):
            if nd == cn:
                continue
            nr = [rank_of(W, nd, g) for g in range(W.gpn)]
            if mode == "killed":
                tk = t_agent_exit + timedelta(seconds=rng.uniform(0.2, 3.0))
                for r in nr:
                    sc.fates[r] = F("sigterm", tk, by="sched")
            elif mode == "remote" and rng.random() < 0.6:
                t1 = tdie + timedelta(seconds=rng.uniform(0.5, 45))
                first = rng.choice(nr)
                lasterr = "socketProgress: Connection closed by remote peer %s<%d>" % (W.nodes[cn].jhost, rng.randint(30000, 60999))
                for r in nr:
                    if r == first or rng.random() < 0.5:
                        sc.fates[r] = F("remote", t1 + timedelta(milliseconds=rng.randint(0, 900)), lasterr=lasterr,
                                        peer=W.nodes[cn].jhost)
                    else:
                        if W.launcher in ("srun_tasks", "mpirun"):
                            sc.fates[r] = F("remote", t1 + timedelta(milliseconds=rng.randint(200, 30000)), lasterr=lasterr,
                                            peer=W.nodes[cn].jhost)
                        else:
                            sc.fates[r] = F("sigterm", t1 + timedelta(seconds=rng.uniform(1.0, 4.0)), by="agent")
            else:
                tt = tdie + to + timedelta(seconds=rng.uniform(-20, 25))
                for r in nr:
                    sc.fates[r] = F("timeout", tt + timedelta(milliseconds=rng.randint(0, 800)),
                                    seq=sc.seq, op=sc.op, numel=sc.numel)
        sc.t_end = max(f["t"] for f in sc.fates.values())

    def pattern_silent(c, t_stop, culprit_prints=False):
        """culprit stops making progress; every other rank times out on the same collective"""
        tt = t_stop + to + timedelta(seconds=rng.uniform(0, 25))
        for r in ranks:
            if r == c:
                continue
            sc.fates[r] = F("timeout", tt + timedelta(milliseconds=rng.randint(0, 1500)), seq=sc.seq,
                            op=sc.op, numel=sc.numel, last_enq=sc.seq, last_comp=sc.seq - 1)
        tk = tt + timedelta(seconds=rng.uniform(1.0, 5.0))
        sc.fates[c] = F("silent", tk, last_enq=sc.seq - 1, last_comp=sc.seq - 1)
        sc.t_end = tk + timedelta(seconds=rng.uniform(1, 8))

    def pattern_all_timeout(t_stop, seq=None):
        tt = t_stop + to + timedelta(seconds=rng.uniform(0, 25))
        for r in ranks:
            sc.fates[r] = F("timeout", tt + timedelta(milliseconds=rng.randint(0, 2500)), seq=seq or sc.seq,
                            op=sc.op, numel=sc.numel, last_enq=seq or sc.seq, last_comp=(seq or sc.seq) - 1)
        sc.t_end = tt + timedelta(seconds=rng.uniform(2, 10))

    def pattern_sched_kill(t, reason):
        for r in ranks:
            sc.fates[r] = F("sigterm", t + timedelta(milliseconds=rng.randint(0, 1200)), by="sched")
        sc.sched_end = (reason, t)
        sc.t_end = t + timedelta(seconds=rng.uniform(2, 30))

    def pattern_finish(t):
        for r in ranks:
            sc.fates[r] = F("finish", t + timedelta(milliseconds=rng.randint(0, 3000)))
        sc.t_end = t + timedelta(seconds=rng.uniform(3, 40))

    def diag_or_log(p_diag):
        sc.evidence = "diag" if rng.random() < p_diag else "both"

    tf = sc.t_fail
    # ---------------- causes ----------------
    if cause is None:
        pattern_finish(tf)
        sc.notes.append("healthy run, finishes")
    elif cause == "gpu_hardware":
        set_culprit(pick_culprit())
        diag_or_log(0.45)
        code = wchoice(rng, [(79, 5), (119, 3), (62, 1), (120, 1)])
        sc.facts.append(dict(kind="xid", node=sc.cnode, gpu=sc.cgpu, t=tf - timedelta(seconds=rng.uniform(0.1, 2)),
                             xid=code, pid=None, msg=xid_message(rng, code, W, sc.cgpu)))
        if code == 79:
            sc.facts.append(dict(kind="gpu_lost", node=sc.cnode, gpu=sc.cgpu, t=tf))
        else:
            sc.facts.append(dict(kind="xid", node=sc.cnode, gpu=sc.cgpu, t=tf + timedelta(seconds=rng.uniform(5, 40)),
                                 xid=154, pid=None, msg="GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)"))
            sc.facts.append(dict(kind="gpu_reset_required", node=sc.cnode, gpu=sc.cgpu, t=tf))
        if sc.evidence == "diag":
            pattern_silent(sc.culprit, tf)
        else:
            err = rng.choice(["unspecified launch failure", "unknown error", "launch timed out and was terminated"])
            where = rng.choice(["main", "watchdog", "nccl"])
            pattern_die(F("cuda_err", tf + timedelta(seconds=rng.uniform(0.2, 3)), err=err, where=where))
        sc.notes.append("Xid %d on %s GPU%d (%s)" % (code, W.nodes[sc.cnode].name, sc.cgpu, W.nodes[sc.cnode].bus[sc.cgpu]))
    elif cause == "ecc_memory":
        set_culprit(pick_culprit())
        diag_or_log(0.4)
        variant = rng.choice(["dbe", "dbe", "contained", "uncontained"])
        t1 = tf - timedelta(seconds=rng.uniform(0.05, 1.5))
        pid = W.nodes[sc.cnode].pids[sc.cgpu]
        if variant == "dbe":
            sc.facts.append(dict(kind="xid", node=sc.cnode, gpu=sc.cgpu, t=t1, xid=48, pid=pid, msg=xid_message(rng, 48, W, sc.cgpu)))
            if not W.platform.startswith("a100_4") or True:
                sc.facts.append(dict(kind="xid", node=sc.cnode, gpu=sc.cgpu, t=t1 + timedelta(milliseconds=40), xid=63, pid=pid,
                                     msg=xid_message(rng, 63, W, sc.cgpu)))
        elif variant == "contained":
            sc.facts.append(dict(kind="xid", node=sc.cnode, gpu=sc.cgpu, t=t1, xid=94, pid=pid, msg=XID_TEXT[94]))
            sc.facts.append(dict(kind="xid", node=sc.cnode, gpu=sc.cgpu, t=t1 + timedelta(milliseconds=60), xid=63, pid=pid,
                                 msg=xid_message(rng, 63, W, sc.cgpu)))
        else:
            sc.facts.append(dict(kind="xid", node=sc.cnode, gpu=sc.cgpu, t=t1, xid=95, pid=pid, msg=XID_TEXT[95]))
        sc.facts.append(dict(kind="ecc", node=sc.cnode, gpu=sc.cgpu, t=tf, dbe=rng.randint(1, 4),
                             sbe=rng.randint(0, 30), remap_unc=rng.randint(1, 3), pending=variant != "uncontained" or rng.random() < 0.5,
                             failure=variant == "uncontained" and rng.random() < 0.5))
        if sc.evidence == "diag":
            if rng.random() < 0.5:
                pattern_silent(sc.culprit, tf)
            else:
                pattern_die(F("cuda_err", tf + timedelta(seconds=rng.uniform(0.1, 2)), err="uncorrectable ECC error encountered",
                              where=rng.choice(["main", "watchdog"])))
                sc.omit_culprit_log = True
        else:
            pattern_die(F("cuda_err", tf + timedelta(seconds=rng.uniform(0.1, 2)), err="uncorrectable ECC error encountered",
                          where=rng.choice(["main", "watchdog", "nccl"])))
        sc.notes.append("ECC %s on %s GPU%d" % (variant, W.nodes[sc.cnode].name, sc.cgpu))
    elif cause == "nvlink":
        set_culprit(pick_culprit())
        diag_or_log(0.5)
        link = rng.randint(0, W.P["nvl"] - 1)
        pid = W.nodes[sc.cnode].pids[sc.cgpu]
        sc.facts.append(dict(kind="xid", node=sc.cnode, gpu=sc.cgpu, t=tf - timedelta(seconds=rng.uniform(0.05, 1)), xid=74,
                             pid=pid if rng.random() < 0.6 else None,
                             msg=XID_TEXT[74] % (link, rng.choice([0x10000, 0x100, 0x1000000, 0x10]))))
        sc.facts.append(dict(kind="nvlink_down", node=sc.cnode, gpu=sc.cgpu, t=tf, link=link,
                             replay=rng.randint(50, 9000), recovery=rng.randint(1, 40), crc=rng.randint(100, 90000)))
        if sc.evidence == "diag":
            pattern_silent(sc.culprit, tf)
        else:
            pattern_die(F("cuda_err", tf + timedelta(seconds=rng.uniform(0.1, 2)),
                          err="uncorrectable NVLink error was detected during the execution", where=rng.choice(["main", "watchdog", "nccl"])))
        sc.notes.append("Xid 74 NVLink link %d down on %s GPU%d" % (link, W.nodes[sc.cnode].name, sc.cgpu))
    elif cause == "network":
        if W.nn >= 4 and rng.random() < 0.2:
            # fabric-wide: a leaf/spine link, no single culprit node
            sc.fabric_wide = True
            sc.node_known = False
            sc.rank_inferable = False
            pattern_all_timeout(tf)
            sc.notes.append("fabric-wide IB problem (switch-to-switch link flapping); no single node")
        else:
            set_culprit(pick_culprit())
            cn = W.nodes[sc.cnode]
            diag_or_log(0.35)
            hca = cn.hcas[sc.cgpu]
            kind = rng.choice(["down", "flap", "flap", "health"])
            sc.facts.append(dict(kind="ib", node=sc.cnode, gpu=sc.cgpu, hca=hca, t=tf - timedelta(seconds=rng.uniform(0.5, 20)),
                                 mode=kind, link_downed=rng.randint(1, 12), symbol=rng.randint(200, 60000),
                                 rcv_err=rng.randint(0, 3000)))
            if sc.evidence == "diag":
                pattern_all_timeout(tf)
                sc.rank_inferable = False
                sc.rank_block = "only the node/HCA is named (port down); every rank just times out"
            else:
                # culprit rank sees IB completion error first, peers afterwards
                peer_nd = (sc.cnode + 1) % W.nn
                peer = W.nodes[peer_nd]
                st = 12
                vend = rng.choice([129, 129, 244, 137])
                lerr = sc.netib + " Got completion from peer %s<%d> with status=%d opcode=%d len=%d vendor err %d (%s) localGid ::ffff:%s remoteGids::ffff:%s hca %s" % (
                    peer.ip, rng.randint(30000, 60999), st, rng.choice([0, 1]), rng.randint(0, 65536), vend,
                    rng.choice(["Recv", "Send"]), cn.ip, peer.ip, hca)
                if W.nccl < "2.19":
                    lerr = "NET/IB : Got completion from peer %s<%d> with error %d, opcode %d, len %d, vendor err %d (%s)" % (
                        peer.ip, rng.randint(30000, 60999), st, rng.choice([0, 1]), rng.randint(0, 65536), vend, rng.choice(["Recv", "Send"]))
                sc.net_lasterr = lerr
                pattern_die(F("remote", tf + timedelta(seconds=rng.uniform(0.1, 3)), lasterr=lerr, ib=True))
                # peers also report completion errors naming the culprit's IP
                for nd in range(W.nn):
                    if nd == sc.cnode:
                        continue
                    for g in range(W.gpn):
                        r = rank_of(W, nd, g)
                        f = sc.fates.get(r)
                        if f and f["kind"] == "remote":
                            f["lasterr"] = sc.netib + " Got completion from peer %s<%d> with status=%d opcode=0 len=0 vendor err 244 (Recv) localGid ::ffff:%s remoteGids::ffff:%s hca %s" % (
                                cn.ip, rng.randint(30000, 60999), 5 if rng.random() < 0.5 else 12, W.nodes[nd].ip, cn.ip, W.nodes[nd].hcas[g])
                            f["ib"] = True
            sc.notes.append("IB %s on %s %s (rail of local GPU %d)" % (kind, cn.name, hca, sc.cgpu))
    elif cause == "cuda_oom":
        set_culprit(pick_culprit())
        gib = W.P["mem"] / 1024.0
        tried = rng.choice([0.5, 1.0, 1.5, 2.0, 3.25, 4.0, 8.0, 20.0])
        free = round(rng.uniform(0.05, min(tried, 1.9)), 2)
        inuse = round(gib - free - rng.uniform(0.3, 0.7), 2)
        alloc = round(inuse - rng.uniform(0.6, 6), 2)
        resv = round(max(0.01, inuse - alloc - rng.uniform(0.3, 0.6)), 2)
        pattern_die(F("cuda_oom", tf, tried=tried, total=round(gib - 0.45, 2), free=free, inuse=inuse, alloc=alloc, resv=resv,
                      where=rng.choice(["fwd", "bwd", "opt"])))
        sc.notes.append("CUDA OOM tried %.2f GiB" % tried)
    elif cause == "illegal_memory_access":
        set_culprit(pick_culprit())
        where = rng.choice(["main", "watchdog", "watchdog"])
        pid = W.nodes[sc.cnode].pids[sc.cgpu]
        code = rng.choice([31, 31, 13])
        sc.facts.append(dict(kind="xid", node=sc.cnode, gpu=sc.cgpu, t=tf - timedelta(milliseconds=rng.randint(5, 800)), xid=code,
                             pid=pid, pname=rng.choice(["python", "python3", "pt_main_thread"]), msg=xid_message(rng, code, W, sc.cgpu)))
        pattern_die(F("cuda_err", tf, err="an illegal memory access was encountered", where=where))
        sc.notes.append("illegal memory access (Xid %d in kernel log)" % code)
    elif cause == "python_exception":
        set_culprit(pick_culprit())
        pattern_die(F("exc", tf, exc=rng.randrange(7)))
        sc.notes.append("python exception on one rank")
    elif cause == "host_oom_kill":
        set_culprit(pick_culprit())
        diag_or_log(0.5)
        cn = W.nodes[sc.cnode]
        victim = "main" if rng.random() < 0.6 else "worker"
        vpid = cn.pids[sc.cgpu] if victim == "main" else cn.pids[-1] + rng.randint(60, 4000)
        sc.facts.append(dict(kind="oom", node=sc.cnode, gpu=sc.cgpu, t=tf - timedelta(milliseconds=rng.randint(50, 900)),
                             pid=vpid, pname="python" if victim == "main" else rng.choice(["python", "pt_data_worker"]),
                             anon_kb=rng.randint(90, 240) * 1024 * 1024 // 4 * 4,
                             memcg="slurm" if W.launcher.startswith("srun") else ("k8s" if W.launcher.startswith("k8s") else "none"),
                             victim=victim))
        if victim == "main":
            pattern_die(F("killed9", tf))
        else:
            pattern_die(F("dl_killed", tf + timedelta(seconds=rng.uniform(0.5, 5)), wpid=vpid))
            sc.evidence = "both"
        sc.notes.append("host OOM killer, victim=%s pid %d" % (victim, vpid))
    elif cause == "crash_signal":
        set_culprit(pick_culprit())
        sig = rng.choice([11, 11, 11, 6, 7])
        cn = W.nodes[sc.cnode]
        lib = rng.choice(["libtorch_cuda.so", "libc.so.6", "libnccl.so.2", "_C.cpython-310-x86_64-linux-gnu.so", "libcudnn_engines_precompiled.so.9"])
        if sig in (11, 7):
            sc.facts.append(dict(kind="segv", node=sc.cnode, gpu=sc.cgpu, t=tf, pid=cn.pids[sc.cgpu],
                                 pname=rng.choice(["python", "pt_main_thread", "python3"]), lib=lib, sig=sig))
        pattern_die(F("signal", tf, sig=sig, lib=lib))
        sc.notes.append("process killed by signal %d" % sig)
    elif cause == "preemption":
        pattern_sched_kill(tf, "preempt")
        sc.node_known = False
        sc.rank_inferable = False
        sc.notes.append("scheduler preemption; no faulty node")
    elif cause == "hang":
        set_culprit(pick_culprit())
        sub = rng.choice(["desync", "dump", "hungtask", "plain", "dump"])
        if W.tv < (2, 4) and sub == "dump":
            sub = "desync"
        sc.hang_sub = sub
        if sub == "desync":
            sc.desync = True
        elif sub == "dump":
            sc.frdump = True
        elif sub == "hungtask":
            cn = W.nodes[sc.cnode]
            sc.facts.append(dict(kind="hung_task", node=sc.cnode, gpu=sc.cgpu, t=tf + timedelta(seconds=rng.uniform(122, 250)),
                                 pid=cn.pids[sc.cgpu], pname=rng.choice(["python", "pt_main_thread"]),
                                 fs=rng.choice(["lustre", "nfs", "nvidia"])))
            sc.evidence = "diag"
        else:
            if W.world > 16:
                sc.frdump = W.tv >= (2, 4)
                sc.desync = not sc.frdump
        pattern_silent(sc.culprit, tf)
        sc.notes.append("rank silently stops (%s evidence)" % sub)
    elif cause == "data_loader_stall":
        set_culprit(pick_culprit())
        cn = W.nodes[sc.cnode]
        sub = rng.choice(["dl_timeout", "stuck_io", "stuck_io", "slow_data"])
        sc.dl_sub = sub
        fs = rng.choice(["nfs", "lustre", "s3fs", "gcsfuse"])
        srv = rng.choice(["nas01", "fs-data02", "10.40.0.12", "lustre-mds1", "vast-vip3"])
        wpid = cn.pids[-1] + rng.randint(60, 3000)
        sc.facts.append(dict(kind="io_stall", node=sc.cnode, gpu=sc.cgpu, t=tf - timedelta(seconds=rng.uniform(5, 60)), fs=fs,
                             server=srv, pid=wpid, pname=rng.choice(["python", "pt_data_worker"])))
        if sub == "dl_timeout" and sc.timeout_ms >= 1800000:
            secs = rng.choice([300, 600, 900])
            sc.dl_timeout = secs
            pattern_die(F("dl_timeout", tf + timedelta(seconds=secs), secs=secs))
        else:
            if sub == "dl_timeout":
                sc.dl_sub = sub = "stuck_io"
            pattern_silent(sc.culprit, tf)
            if sub == "slow_data" or rng.random() < 0.5:
                sc.straggle = dict(kind="data", rank=sc.culprit)
        sc.notes.append("data loader stall on %s (%s, %s %s)" % (cn.name, sub, fs, srv))
    elif cause == "collective_mismatch":
        set_culprit(pick_culprit())
        sub = rng.choice(["detail", "timeout_diff", "timeout_diff"])
        sc.mm_sub = sub
        other_ops = [o for o in ["ALLREDUCE", "ALLGATHER", "BROADCAST", "REDUCE_SCATTER", "_ALLGATHER_BASE"] if o != sc.op]
        cop = rng.choice(other_ops)
        cnumel = rng.choice([1, 2, 1024, 4096, 1048576])
        sc.mismatch = dict(op=cop, numel=cnumel, sub=sub)
        if sub == "detail":
            t = tf
            for r in ranks:
                sc.fates[r] = F("mismatch", t + timedelta(milliseconds=rng.randint(0, 400)))
            sc.t_end = t + timedelta(seconds=rng.uniform(2, 10))
        else:
            pattern_all_timeout(tf)
            sc.fates[sc.culprit].update(op=cop, numel=cnumel, seq=sc.seq, last_enq=sc.seq, last_comp=sc.seq - 1)
            if W.tv >= (2, 4) and rng.random() < 0.5:
                sc.frdump = True
        sc.notes.append("culprit issues %s while others run %s (%s)" % (cop, sc.op, sub))
    elif cause == "straggler":
        set_culprit(pick_culprit())
        cn = W.nodes[sc.cnode]
        why = rng.choice(["thermal", "hw_slowdown", "pcie", "power_brake", "thermal"])
        sc.facts.append(dict(kind="slow", node=sc.cnode, gpu=sc.cgpu, t=sc.t_ready + timedelta(seconds=rng.uniform(30, 600)),
                             why=why, clk=rng.randint(345, 1110), temp=rng.randint(86, 94) if why == "thermal" else rng.randint(55, 80)))
        factor = round(rng.uniform(1.35, 3.2), 2)
        sc.straggle = dict(kind="gpu", rank=sc.culprit, factor=factor)
        end = rng.choice(["finish", "timelimit", "cancel"])
        sc.straggle_end = end
        if end == "finish":
            pattern_finish(tf)
        else:
            pattern_sched_kill(tf, "timelimit" if end == "timelimit" else "cancel")
        sc.notes.append("GPU%d on %s slow (%s), x%.2f step time; job %s" % (sc.cgpu, cn.name, why, factor, end))
    elif cause == "unknown":
        sc.node_known = False
        sc.rank_inferable = False
        pattern_all_timeout(tf)
        sc.notes.append("all ranks time out on the same collective; nothing names an initiator")
    add_decoys(rng, sc)
    return sc


def add_decoys(rng, sc):
    W = sc.W
    others = [i for i in range(W.nn) if i != sc.cnode]
    n = rng.randint(1, 3) if not sc.healthy else rng.randint(2, 4)
    kinds = ["old_xid", "sbe", "drain_spare", "ib_symbol", "cable_plug", "old_oom", "nccl_warn", "handled_exc",
             "old_xid", "remap_corr", "dcgm_warn"]
    chosen = []
    for _ in range(n):
        k = rng.choice(kinds)
        if k not in chosen:
            chosen.append(k)
    for k in chosen:
        tgt = rng.choice(others) if others and rng.random() < 0.7 else rng.choice(W.spare)
        if k == "old_xid":
            code = rng.choice([13, 31, 43, 45, 63, 79, 48])
            if isinstance(tgt, str) or code in (79, 48) and isinstance(tgt, int) and rng.random() < 0.8:
                tgt = rng.choice(W.spare) if code in (79, 48) else tgt
            ago = timedelta(days=rng.uniform(2, 40)) if code in (79, 48, 63) else timedelta(hours=rng.uniform(3, 200))
            g = rng.randrange(W.gpn)
            sc.decoys.append(dict(kind="xid", node=tgt, gpu=g, t=W.t0 - ago, xid=code,
                                  pid=rng.randint(3000, 900000) if code in (13, 31, 43, 45) else None,
                                  pname=rng.choice(["python", "python3", "nvidia-smi", "dcgm-exporter"]),
                                  msg=xid_message(rng, code, W, g), old=True))
        elif k == "sbe":
            sc.decoys.append(dict(kind="sbe", node=tgt if isinstance(tgt, int) else rng.choice(others or [0]),
                                  gpu=rng.randrange(W.gpn), t=W.t0, sbe=rng.randint(1, 40)))
        elif k == "remap_corr":
            sc.decoys.append(dict(kind="remap_corr", node=tgt if isinstance(tgt, int) else rng.choice(others or [0]),
                                  gpu=rng.randrange(W.gpn), t=W.t0, n=rng.randint(1, 3)))
        elif k == "drain_spare":
            reason = rng.choice(["Kill task failed", "Not responding", "NHC: check_fs_mount:  /scratch not mounted",
                                 "reboot requested by admin", "NHC: check_gpu_ecc:  GPU 2 DBE volatile count 1 (RMA INC%07d)" % rng.randint(1, 9999999),
                                 "NHC: check_hw_ib:  No IB port mlx5_%d is ACTIVE (LinkUp %d Gb/sec)." % (rng.randrange(8), W.P["ib_rate"]),
                                 "bios upgrade", "Xid 79 gpu5 - waiting for vendor", "epilog error"])
            sc.decoys.append(dict(kind="drain", node=rng.choice(W.spare), t=W.t0 - timedelta(hours=rng.uniform(1, 300)), reason=reason))
        elif k == "ib_symbol":
            sc.decoys.append(dict(kind="ib_symbol", node=tgt, gpu=rng.randrange(W.gpn), t=W.t0 - timedelta(days=rng.uniform(1, 20)),
                                  symbol=rng.randint(1, 60), link_downed=rng.choice([0, 1])))
        elif k == "cable_plug":
            sc.decoys.append(dict(kind="cable_plug", node=tgt, gpu=rng.randrange(W.gpn), t=W.t0 - timedelta(days=rng.uniform(1, 30))))
        elif k == "old_oom":
            sc.decoys.append(dict(kind="old_oom", node=tgt, t=W.t0 - timedelta(hours=rng.uniform(5, 100)),
                                  pid=rng.randint(2000, 900000), pname=rng.choice(["jupyter-lab", "python", "java", "vllm"])))
        elif k == "nccl_warn":
            sc.decoys.append(dict(kind="nccl_warn", node=rng.choice(range(W.nn)), t=sc.t_ready))
        elif k == "handled_exc":
            sc.decoys.append(dict(kind="handled_exc", node=0, t=sc.t_ready + (sc.t_fail - sc.t_ready) * rng.uniform(0.2, 0.8)))
        elif k == "dcgm_warn":
            sc.decoys.append(dict(kind="dcgm_warn", node=tgt if isinstance(tgt, int) else rng.choice(others or [0]),
                                  gpu=rng.randrange(W.gpn), t=W.t0))
    if sc.healthy:
        # healthy runs must look alarming
        if not any(d["kind"] == "xid" for d in sc.decoys):
            tgt = rng.choice(others) if (others and sc.layout != "slurm_drain") else rng.choice(W.spare)
            g = rng.randrange(W.gpn)
            code = rng.choice([43, 13, 31, 45]) if isinstance(tgt, int) else rng.choice([79, 48, 74])
            sc.decoys.append(dict(kind="xid", node=tgt, gpu=g, t=W.t0 - timedelta(hours=rng.uniform(4, 500)), xid=code,
                                  pid=rng.randint(3000, 900000), pname="python", msg=xid_message(rng, code, W, g), old=True))
        if not any(d["kind"] == "handled_exc" for d in sc.decoys):
            sc.decoys.append(dict(kind="handled_exc", node=0, t=sc.t_ready + (sc.t_fail - sc.t_ready) * rng.uniform(0.2, 0.8)))
    sc.decoy_names = sorted(set(str(d["kind"]) for d in sc.decoys))


# --------------------------------------------------------------------------
# torch / NCCL text (version aware)
# --------------------------------------------------------------------------

SIGNAMES = {6: "SIGABRT", 7: "SIGBUS", 9: "SIGKILL", 11: "SIGSEGV", 15: "SIGTERM"}


def carets(py, code):
    """python >= 3.11 traceback position markers under the failing call"""
    if py < "3.11" or "(" not in code or code.rstrip().endswith(":"):
        return None
    start = 0
    if code.startswith("return "):
        start = 7
    elif " = " in code.split("(")[0]:
        start = code.index(" = ") + 3
    elif code.startswith("else "):
        start = 5
    if start == 0:
        return None
    end = len(code.split("  #")[0].rstrip())
    return "    " + " " * start + "^" * (end - start)


class TT(object):
    """text helpers bound to one scenario"""

    def __init__(self, sc, rng):
        self.sc = sc
        self.W = sc.W
        self.tv = sc.W.tv
        self.rng = rng
        W = self.W
        self.tid_base = {}
        self.comm = "0x%x" % (0x550000000000 + rng.randint(0, 0xffffffffff) * 16)
        self.commid = "0x%s" % hexs(rng, 16)
        self.libdir = W.pysite + "/torch/lib"
        self.src = "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp" if self.tv < (2, 4) else \
            "/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp"

    # time helpers ---------------------------------------------------------
    def lt(self, t, node):
        """container-local wall clock of a node"""
        n = self.W.nodes[node] if isinstance(node, int) else None
        sk = n.skew if n else 0.0
        return loc(t + timedelta(seconds=sk), self.W.ctz)

    # prefixes -------------------------------------------------------------
    def c10(self, rank, sev, t, node, line):
        if self.tv < (2, 2):
            return "[%s ProcessGroupNCCL.cpp:%d] " % (sev, line)
        if self.tv < (2, 4):
            return "[rank%d]:[%s ProcessGroupNCCL.cpp:%d] " % (rank, sev, line)
        lt = self.lt(t, node)
        return "[rank%d]:[%s%s %s.%09d ProcessGroupNCCL.cpp:%d] " % (
            rank, sev, lt.strftime("%m%d"), lt.strftime("%H:%M:%S"), lt.microsecond * 1000 + self.rng.randint(0, 999), line)

    def pg(self, rank):
        if self.tv < (2, 3):
            return "[Rank %d]" % rank
        if self.tv < (2, 5):
            return "[PG 0 (default_pg) Rank %d]" % rank if self.tv == (2, 4) else "[PG 0 Rank %d]" % rank
        return "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % rank

    def nccl_pfx(self, node, rank, tid_off=0):
        W = self.W
        n = W.nodes[node]
        g = rank % W.gpn
        pid = n.pids[g]
        tid = pid if tid_off == 0 else pid + 300 + tid_off + g * 7
        return "%s:%d:%d [%d] " % (n.jhost, pid, tid, g)

    def workstr(self, f):
        s = "WorkNCCL(SeqNum=%d, OpType=%s, " % (f["seq"], f["op"])
        if self.tv >= (2, 1):
            s += "NumelIn=%d, NumelOut=%d, " % (f["numel"], f["numel"] * (self.W.world if "GATHER" in f["op"] else 1)
                                                 if "GATHER" in f["op"] else f["numel"])
        s += "Timeout(ms)=%d)" % self.sc.timeout_ms
        return s

    def frames_watchdog(self, kind):
        r = self.rng
        L = self.libdir
        base = 0x7f0000000000 + r.randint(0, 0xfffff) * 0x1000000
        fr = ["frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x%x (0x%x in %s/libc10.so)" % (r.choice([0x57, 0x96, 0x98]), base + 0x3897, L)]
        if kind == "timeout":
            fr.append("frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 (0x%x in %s/libtorch_cuda.so)" % (base + 0x11f5c62, L))
            fr.append("frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 (0x%x in %s/libtorch_cuda.so)" % (base + 0x11fcaa3, L))
        else:
            fr.append("frame #1: c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64 (0x%x in %s/libc10.so)" % (base + 0x36b25, L))
            fr.append("frame #2: c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118 (0x%x in %s/libc10_cuda.so)" % (base + 0x10718, L))
            fr.append("frame #3: c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x56 (0x%x in %s/libtorch_cuda.so)" % (base + 0x11f7726, L))
            fr.append("frame #4: c10d::ProcessGroupNCCL::WorkNCCL::isCompleted() + 0xa0 (0x%x in %s/libtorch_cuda.so)" % (base + 0x11fc3f0, L))
            fr.append("frame #5: c10d::ProcessGroupNCCL::watchdogHandler() + 0x1da (0x%x in %s/libtorch_cuda.so)" % (base + 0x11fca4a, L))
        n = len(fr)
        fr.append("frame #%d: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d (0x%x in %s/libtorch_cuda.so)" % (n, base + 0x11fde3d, L))
        fr.append("frame #%d: <unknown function> + 0xdc253 (0x%x in /lib/x86_64-linux-gnu/libstdc++.so.6)" % (n + 1, base + 0x5ec8253))
        fr.append("frame #%d: <unknown function> + 0x94ac3 (0x%x in /lib/x86_64-linux-gnu/libc.so.6)" % (n + 2, base + 0x62f2ac3))
        fr.append("frame #%d: <unknown function> + 0x126850 (0x%x in /lib/x86_64-linux-gnu/libc.so.6)" % (n + 3, base + 0x6384850))
        return fr

    def cuda_boiler(self, err):
        return ["CUDA error: %s" % err,
                "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
                "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
                "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", ""]

    def pyframes(self, where):
        W = self.W
        sp = W.pysite
        wd = W.workdir
        s = W.script
        r = self.rng
        fr = [(wd + "/" + s, r.randint(380, 900), "<module>", "main()" if r.random() < 0.6 else "main(args)"),
              (wd + "/" + s, r.randint(250, 380), "main", "train(model, train_loader, optimizer, lr_scheduler, args)"),
              (wd + "/" + s, r.randint(120, 250), "train", "loss = train_step(model, batch, optimizer, scaler)")]
        if where == "fwd":
            fr += [(wd + "/" + s, r.randint(60, 120), "train_step", "outputs = model(**batch)"),
                   (sp + "/torch/nn/modules/module.py", 1736 if self.tv >= (2, 5) else 1532, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
                   (sp + "/torch/nn/modules/module.py", 1747 if self.tv >= (2, 5) else 1541, "_call_impl", "return forward_call(*args, **kwargs)"),
                   (sp + "/torch/nn/parallel/distributed.py", 1643 if self.tv >= (2, 4) else 1593, "forward", "else self._run_ddp_forward(*inputs, **kwargs)")]
        elif where == "bwd":
            fr += [(wd + "/" + s, r.randint(60, 120), "train_step", "scaler.scale(loss).backward()" if r.random() < 0.5 else "loss.backward()"),
                   (sp + "/torch/_tensor.py", 581 if self.tv >= (2, 5) else 522, "backward", "torch.autograd.backward("),
                   (sp + "/torch/autograd/__init__.py", 347 if self.tv >= (2, 5) else 266, "backward", "_engine_run_backward("),
                   (sp + "/torch/autograd/graph.py", 825 if self.tv >= (2, 5) else 744, "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")]
        elif where == "opt":
            fr += [(wd + "/" + s, r.randint(60, 120), "train_step", "optimizer.step()"),
                   (sp + "/torch/optim/optimizer.py", 487 if self.tv >= (2, 5) else 385, "wrapper", "out = func(*args, **kwargs)"),
                   (sp + "/torch/optim/adamw.py", 220 if self.tv >= (2, 5) else 187, "step", "adamw(")]
        elif where == "data":
            fr = fr[:2] + [(wd + "/" + s, r.randint(120, 250), "train", "for step, batch in enumerate(train_loader):"),
                           (sp + "/torch/utils/data/dataloader.py", 701 if self.tv >= (2, 5) else 631, "__next__", "data = self._next_data()"),
                           (sp + "/torch/utils/data/dataloader.py", 1448 if self.tv >= (2, 5) else 1329, "_next_data", "idx, data = self._get_data()"),
                           (sp + "/torch/utils/data/dataloader.py", 1412 if self.tv >= (2, 5) else 1295, "_get_data", "success, data = self._try_get_data()")]
        elif where == "allreduce":
            fr += [(wd + "/" + s, r.randint(60, 120), "train_step", "dist.all_reduce(loss_t, op=dist.ReduceOp.AVG)"),
                   (sp + "/torch/distributed/c10d_logger.py", 83 if self.tv >= (2, 5) else 72, "wrapper", "return func(*args, **kwargs)"),
                   (sp + "/torch/distributed/distributed_c10d.py", 2501 if self.tv >= (2, 5) else 2219, "all_reduce", "work = group.allreduce([tensor], opts)")]
        out = ["Traceback (most recent call last):"]
        for f, ln, fn, code in fr:
            out.append('  File "%s", line %d, in %s' % (f, ln, fn))
            out.append("    " + code)
            c = carets(W.py, code)
            if c:
                out.append(c)
        return out

    # ---------------------------------------------------------------
    def exc_block(self, idx, rank):
        W = self.W
        r = self.rng
        sp = W.pysite
        if idx == 0:
            tb = self.pyframes("data")[:-2]
            tb += ['  File "%s/torch/utils/data/dataloader.py", line %d, in _next_data' % (sp, 1480 if self.tv >= (2, 5) else 1371),
                   "    return self._process_data(data)",
                   '  File "%s/torch/utils/data/dataloader.py", line %d, in _process_data' % (sp, 1505 if self.tv >= (2, 5) else 1397),
                   "    data.reraise()",
                   '  File "%s/torch/_utils.py", line %d, in reraise' % (sp, 733 if self.tv >= (2, 5) else 722),
                   "    raise exception",
                   "KeyError: Caught KeyError in DataLoader worker process %d." % r.randrange(self.sc.dl_workers),
                   "Original Traceback (most recent call last):",
                   '  File "%s/torch/utils/data/_utils/worker.py", line %d, in _worker_loop' % (sp, 351 if self.tv >= (2, 5) else 308),
                   "    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]",
                   '  File "%s/data/dataset.py", line %d, in __getitem__' % (W.workdir, r.randint(40, 200)),
                   "    ids = sample[\"input_ids\"]",
                   "KeyError: 'input_ids'", ""]
            return tb
        if idx == 1:
            return self.pyframes("fwd") + [
                '  File "%s/model/loss.py", line %d, in forward' % (W.workdir, r.randint(20, 90)),
                "    return F.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1))",
                "ValueError: Expected input batch_size (%d) to match target batch_size (%d)." % (r.choice([8192, 16384, 4096]), r.choice([8190, 16380, 4094]))]
        if idx == 2:
            shard = "%s/shards/train-%05d.tar" % (r.choice(["/data", "/lustre/datasets/pile", "/mnt/fsx/web"]), r.randint(0, 20000))
            return self.pyframes("data")[:-4] + [
                '  File "%s/data/webdataset_loader.py", line %d, in __iter__' % (W.workdir, r.randint(40, 200)),
                "    with open(shard, \"rb\") as fh:",
                "FileNotFoundError: [Errno 2] No such file or directory: '%s'" % shard]
        if idx == 3:
            step = self.sc.fail_step
            return self.pyframes("fwd")[:7] + [
                '  File "%s/%s", line %d, in train_step' % (W.workdir, W.script, r.randint(60, 120)),
                "    assert torch.isfinite(loss).all(), f\"loss is {loss.item()} at step {step}\"",
                "AssertionError: loss is nan at step %d" % step]
        if idx == 4:
            return self.pyframes("data")[:-4] + [
                '  File "%s/data/jsonl_dataset.py", line %d, in __iter__' % (W.workdir, r.randint(30, 150)),
                "    rec = json.loads(line)",
                '  File "/usr/lib/python%s/json/__init__.py", line 346, in loads' % W.py,
                "    return _default_decoder.decode(s)",
                '  File "/usr/lib/python%s/json/decoder.py", line 337, in decode' % W.py,
                "    obj, end = self.raw_decode(s, idx=_w(s, 0).end())",
                '  File "/usr/lib/python%s/json/decoder.py", line 353, in raw_decode' % W.py,
                "    obj, end = self.scan_once(s, idx)",
                "json.decoder.JSONDecodeError: Unterminated string starting at: line 1 column %d (char %d)" % (r.randint(100, 30000), r.randint(100, 30000))]
        if idx == 5:
            return self.pyframes("fwd") + [
                '  File "%s/model/attention.py", line %d, in forward' % (W.workdir, r.randint(40, 300)),
                "    q = q.view(bsz, seqlen, self.n_heads, self.head_dim)",
                "RuntimeError: shape '[%d, %d, 32, 128]' is invalid for input of size %d" % (r.choice([4, 8, 2]), r.choice([4096, 2048]), r.randint(10 ** 7, 4 * 10 ** 7))]
        return self.pyframes("opt")[:7] + [
            '  File "%s/utils/checkpoint.py", line %d, in maybe_save' % (W.workdir, r.randint(20, 120)),
            "    os.makedirs(os.path.join(args.save_dir, f\"step_{step}\"), exist_ok=False)",
            '  File "<frozen os>", line 225, in makedirs',
            "FileExistsError: [Errno 17] File exists: '%s/checkpoints/step_%d'" % (r.choice(["/lustre/ckpt", "/mnt/fsx/ckpt", "/checkpoints"]), self.sc.fail_step)]

    def oom_block(self, f, rank):
        g = rank % self.W.gpn
        tried = f["tried"]
        ts = ("%.2f GiB" % tried) if tried >= 1 else ("%.2f MiB" % (tried * 1024))
        cls = "torch.OutOfMemoryError" if self.tv >= (2, 5) else "torch.cuda.OutOfMemoryError"
        if self.tv < (2, 2):
            msg = ("CUDA out of memory. Tried to allocate %s. GPU %d has a total capacty of %.2f GiB of which %.2f GiB is free. "
                   "Process %d has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is "
                   "reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting max_split_size_mb "
                   "to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF") % (
                ts, g, f["total"], f["free"], self.W.nodes[rank // self.W.gpn].pids[g], f["inuse"], f["alloc"], f["resv"])
        else:
            msg = ("CUDA out of memory. Tried to allocate %s. GPU %d has a total capacity of %.2f GiB of which %.2f GiB is free. "
                   "Including non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated memory %.2f GiB is "
                   "allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory "
                   "is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See "
                   "documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)") % (
                ts, g, f["total"], f["free"], f["inuse"], f["alloc"], f["resv"])
        return self.pyframes(f["where"]) + ["%s: %s" % (cls, msg)]


# --------------------------------------------------------------------------
# per-rank worker output
# --------------------------------------------------------------------------

def nccl_init_lines(tt, sc, rank, t):
    W = sc.W
    nd = rank // W.gpn
    n = W.nodes[nd]
    g = rank % W.gpn
    p = tt.nccl_pfx(nd, rank)
    out = []
    busid = n.bus[g][5:7] + "000"
    if rank == 0:
        out.append((t, p + "NCCL INFO Bootstrap : Using %s:%s<0>" % (sc.oob_if, n.ip)))
        out.append((t, p + "NCCL INFO NCCL version %s+cuda%s" % (W.nccl, W.cuda_rt)))
    if sc.nccl_debug == "INFO":
        hl = " ".join("[%d]%s:1/IB" % (i, h) for i, h in enumerate(n.hcas))
        out.append((t + timedelta(milliseconds=40), p + "NCCL INFO NET/IB : Using %s ; OOB %s:%s<0>" % (hl, sc.oob_if, n.ip)))
        out.append((t + timedelta(milliseconds=90), p + "NCCL INFO Using network IB"))
        if W.nccl < "2.19":
            out.append((t + timedelta(seconds=1.2), p + "NCCL INFO comm %s rank %d nranks %d cudaDev %d busId %s - Init COMPLETE" % (
                tt.comm, rank, W.world, g, busid)))
        else:
            out.append((t + timedelta(milliseconds=120), p + "NCCL INFO ncclCommInitRank comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId %s - Init START" % (
                tt.comm, rank, W.world, g, g, busid, tt.commid)))
            out.append((t + timedelta(seconds=1.4), p + "NCCL INFO ncclCommInitRank comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId %s - Init COMPLETE" % (
                tt.comm, rank, W.world, g, g, busid, tt.commid)))
    return out


def progress_lines(tt, sc, rng, rank, t_from, t_to):
    """training progress printed by rank 0 (and per-rank timing lines)"""
    W = sc.W
    out = []
    dur = (t_to - t_from).total_seconds()
    if dur <= 0:
        return out
    nlines = max(3, min(70, int(dur / 300) + 6))
    steps_total = int(dur / sc.step_time)
    interval = max(1, steps_total // nlines)
    for k in (1, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000):
        if k >= interval:
            interval = k
            break
    s = sc.start_step + interval
    loss0 = rng.uniform(2.2, 9.5)
    gbs = rng.choice([256, 512, 1024, 2048])
    lr = rng.choice([3e-4, 1.5e-4, 6e-5, 1e-4, 2e-5])
    stf = sc.straggle["factor"] if sc.straggle and sc.straggle.get("kind") == "gpu" else 1.0
    slow_from = None
    if sc.straggle and sc.straggle.get("kind") == "gpu":
        sl = [f for f in sc.facts if f["kind"] == "slow"]
        slow_from = sl[0]["t"] if sl else t_from
    i = 0
    while True:
        t = t_from + timedelta(seconds=(s - sc.start_step) * sc.step_time)
        slow = slow_from is not None and t >= slow_from
        st_eff = sc.step_time * (stf if slow else 1.0)
        if slow:
            t = slow_from + timedelta(seconds=(t - slow_from).total_seconds() * stf)
        if t > t_to or i > 400:
            break
        i += 1
        loss = loss0 * (0.35 + 0.65 * (1.0 / (1 + (s / 4000.0)))) + rng.uniform(-0.04, 0.04)
        jit = rng.uniform(0.97, 1.05)
        if rank == 0:
            lt = tt.lt(t, 0)
            if sc.log_style == "megatron":
                out.append((t, " [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | learning rate: %.6E | global batch size: %5d | lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f | number of skipped iterations:   0 | number of nan iterations:   0 |" % (
                    lt.strftime("%Y-%m-%d %H:%M:%S"), s, sc.total_steps, s * gbs, st_eff * 1000 * jit, lr, gbs, loss, rng.uniform(0.15, 1.4))))
            elif sc.log_style == "hf":
                out.append((t, "{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %.3e, 'epoch': %.2f}" % (
                    loss, rng.uniform(0.2, 2.5), lr, s / max(1.0, sc.total_steps / 3.0))))
                if rng.random() < 0.35:
                    pct = int(100 * s / max(1, sc.total_steps))
                    bar = ("\u2588" * (pct // 10)).ljust(10)
                    el = (t - t_from).total_seconds()
                    out.append((t, "%3d%%|%s| %d/%d [%s<%s, %5.2fs/it]" % (pct, bar, s, sc.total_steps, fmt_dur(el), fmt_dur(max(0, (sc.total_steps - s) * st_eff)), st_eff * jit)))
            elif sc.log_style == "lightning":
                pct = int(100 * s / max(1, sc.total_steps))
                out.append((t, "Epoch %d: %3d%%|%s| %d/%d [%s<%s, %4.2fit/s, v_num=%d, train_loss=%.3f]" % (
                    s // 5000, pct, ("\u2588" * (pct // 10)).ljust(10), s, sc.total_steps, fmt_dur((t - t_from).total_seconds()),
                    fmt_dur(max(0, (sc.total_steps - s) * st_eff)), 1.0 / st_eff, sc.v_num, loss)))
            else:
                out.append((t, "%s INFO step=%d loss=%.4f lr=%.2e tok/s=%dk step_time=%.2fs mem=%.1fGB" % (
                    ts_py(lt), s, loss, lr, int(gbs * 4096 / st_eff / 1000 / W.world), st_eff * jit, rng.uniform(40, W.P["mem"] / 1024.0 - 3))))
        s += interval
    return out


def per_rank_timing(tt, sc, rng, rank, t_from, t_to, every):
    """per-rank compute/comm timing lines (custom instrumentation)"""
    out = []
    st = sc.straggle
    if not st:
        return out
    slow_from = t_from
    if st.get("kind") == "gpu":
        sl = [f for f in sc.facts if f["kind"] == "slow"]
        slow_from = sl[0]["t"] if sl else t_from
    t = t_from + timedelta(seconds=every)
    s = sc.start_step + int(every / sc.step_time)
    base = sc.step_time
    while t < t_to:
        slow = t >= slow_from
        if st.get("kind") == "gpu":
            fac = st["factor"] if slow else 1.0
            comp = base * 0.82 * (fac if rank == st["rank"] else 1.0) * rng.uniform(0.97, 1.03)
            stepdur = base * 0.82 * fac + base * 0.18
            wait = max(0.004, stepdur - comp - base * 0.1) * rng.uniform(0.9, 1.1)
            data = rng.uniform(0.002, 0.02)
        else:
            data = (rng.uniform(8, 90) if rank == st["rank"] and slow else rng.uniform(0.002, 0.03))
            comp = base * 0.8 * rng.uniform(0.97, 1.03)
            wait = (data if rank != st["rank"] else 0.01) * rng.uniform(0.95, 1.05)
        lt = tt.lt(t, rank // sc.W.gpn)
        if sc.timing_fmt == 0:
            out.append((t, "%s [rank%d] step %d | data %.3fs | fwd+bwd %.3fs | allreduce wait %.3fs" % (ts_py(lt), rank, s, data, comp, wait)))
        else:
            out.append((t, "[%s][RANK %d] it=%d t_data=%.1fms t_compute=%.1fms t_comm=%.1fms" % (lt.strftime("%H:%M:%S"), rank, s, data * 1000, comp * 1000, wait * 1000)))
        t += timedelta(seconds=every)
        s += int(every / sc.step_time)
    return out


def startup_lines(tt, sc, rng, rank, t):
    W = sc.W
    nd = rank // W.gpn
    g = rank % W.gpn
    n = W.nodes[nd]
    out = []
    if sc.startup_style == "fairseq":
        out.append((t, "| distributed init (rank %d): env://" % rank))
    elif sc.startup_style == "custom":
        out.append((t, "%s [rank%d] host=%s local_rank=%d world_size=%d pid=%d device=cuda:%d" % (
            ts_py(tt.lt(t, nd)), rank, n.jhost, g, W.world, n.pids[g], g)))
    elif sc.startup_style == "hf":
        out.append((t, "%s - WARNING - __main__ - Process rank: %d, device: cuda:%d, n_gpu: 1, distributed training: True, 16-bits training: True" % (
            tt.lt(t, nd).strftime("%m/%d/%Y %H:%M:%S"), rank, g)))
    return out


def end_block(tt, sc, rng, rank, f):
    """lines printed by worker `rank` at its end (list of (t, line)); cached so that
    error.json tracebacks repeat exactly what the worker printed"""
    cache = sc.__dict__.setdefault("_eb", {})
    if rank not in cache:
        cache[rank] = _end_block(tt, sc, rng, rank, f)
    return cache[rank]


def _end_block(tt, sc, rng, rank, f):
    W = sc.W
    nd = rank // W.gpn
    t = f["t"]
    k = f["kind"]
    full = sc.full_frames or rank == sc.culprit or (rank % W.gpn == 0 and nd < 2)
    out = []

    def add(line, dt=0.0):
        out.append((t + timedelta(milliseconds=dt), line))

    pv = tt.pg(rank)
    if k == "timeout":
        ws = tt.workstr(f)
        ran = sc.timeout_ms + rng.randint(5, 900)
        if tt.tv < (2, 2):
            add(tt.c10(rank, "E", t, nd, 475) + "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (rank, ws, ran))
            if sc.desync:
                for ln in desync_report(sc, rank, f):
                    add(ln, 2)
            add(tt.c10(rank, "E", t, nd, 489) + "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.", 5)
            add(tt.c10(rank, "E", t, nd, 495) + "To avoid data inconsistency, we are taking the entire process down.", 5)
            add(tt.c10(rank, "E", t, nd, 916) + "[Rank %d] NCCL watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (rank, rank, ws, ran), 6)
            add("terminate called after throwing an instance of 'std::runtime_error'", 7)
            add("  what():  [Rank %d] NCCL watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (rank, rank, ws, ran), 7)
            return out
        ln = {(2, 2): 525, (2, 3): 565, (2, 4): 607, (2, 5): 616, (2, 6): 632, (2, 7): 632}[tt.tv]
        add(tt.c10(rank, "E", t, nd, ln) + "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (rank, ws, ran))
        le = f.get("last_enq", f["seq"])
        lc = f.get("last_comp", f["seq"] - 1)
        if tt.tv >= (2, 4):
            add(tt.c10(rank, "E", t, nd, {(2, 4): 1664, (2, 5): 1785, (2, 6): 1834, (2, 7): 1891}[tt.tv]) +
                "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pv, f["seq"], le, lc), 1)
        add(tt.c10(rank, "E", t, nd, {(2, 2): 1316, (2, 3): 1537, (2, 4): 1682, (2, 5): 1803, (2, 6): 1852, (2, 7): 1909}[tt.tv]) +
            "%s Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pv, f["seq"], le, lc), 1)
        if sc.desync:
            for l2 in desync_report(sc, rank, f):
                add(l2, 2)
        add(tt.c10(rank, "E", t, nd, ln + 14) + "%s Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % pv, 3)
        add(tt.c10(rank, "E", t, nd, ln + 20) + "%s To avoid data inconsistency, we are taking the entire process down." % pv, 3)
        if sc.frdump and tt.tv >= (2, 4):
            if rank == sc.frdump_first:
                add(tt.c10(rank, "E", t, nd, 1590) + "%s ProcessGroupNCCL preparing to dump debug info. Include stack trace: 1" % pv, 4)
            else:
                add(tt.c10(rank, "E", t, nd, 1394) + "%s Received a dump signal due to a collective timeout from rank %d and we will try our best to dump the debug info. Last enqueued NCCL work: %d, last completed NCCL work: %d.This is most likely caused by incorrect usages of collectives, e.g., wrong sizes used across ranks, the order of collectives is not same for all ranks or the scheduled collective, for some reason, didn't run. Additionally, this can be caused by GIL deadlock or other reasons such as network errors or bugs in the communications library (e.g. NCCL), etc. " % (pv, sc.frdump_first, le, lc), 4)
            add(tt.c10(rank, "E", t, nd, 1393 if tt.tv < (2, 6) else 1411) + "%s Stack trace of the failed collective not found, potentially because FlightRecorder is disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value." % pv, 5)
        add(tt.c10(rank, "E", t, nd, {(2, 2): 1182, (2, 3): 1414, (2, 4): 1595, (2, 5): 1709, (2, 6): 1758, (2, 7): 1803}[tt.tv]) +
            "%s Process group watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (pv, rank, ws, ran), 6)
        if full:
            add("Exception raised from checkTimeout at %s:%d (most recent call first):" % (tt.src, ln + 2), 6)
            for fl in tt.frames_watchdog("timeout"):
                add(fl, 6)
            add("", 6)
        add("terminate called after throwing an instance of 'c10::DistBackendError'", 7)
        add("  what():  %s Process group watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (pv, rank, ws, ran), 7)
        if full:
            add("Exception raised from checkTimeout at %s:%d (most recent call first):" % (tt.src, ln + 2), 7)
            for fl in tt.frames_watchdog("timeout"):
                add(fl, 7)
            add("", 7)
        return out
    if k == "remote":
        le = f.get("lasterr", "")
        if sc.nccl_debug and f.get("ib"):
            add(tt.nccl_pfx(nd, rank, 11) + "transport/net_ib.cc:%d NCCL WARN %s" % (rng.choice([1295, 1421, 2246, 2360]), le), -400)
            add(tt.nccl_pfx(nd, rank, 11) + "NCCL INFO transport/net.cc:%d -> 6" % rng.choice([1298, 1353]), -399)
            add(tt.nccl_pfx(nd, rank, 11) + "NCCL INFO proxy.cc:%d -> 6" % rng.choice([698, 731, 868]), -399)
        elif sc.nccl_debug:
            add(tt.nccl_pfx(nd, rank, 11) + "misc/socket.cc:%d NCCL WARN %s" % (rng.choice([49, 50, 72]), le), -300)
            add(tt.nccl_pfx(nd, rank, 11) + "NCCL INFO misc/socket.cc:%d -> 6" % rng.choice([752, 819]), -299)
        msg = "NCCL error: remote process exited or there was a network error, NCCL version %s" % W.nccl
        body = [msg, "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.", "Last error:", le]
        if tt.tv < (2, 2):
            add(tt.c10(rank, "E", t, nd, 916) + "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (rank, body[0]))
            for b in body[1:]:
                add(b)
            add("terminate called after throwing an instance of 'std::runtime_error'", 2)
            add("  what():  [Rank %d] NCCL watchdog thread terminated with exception: %s" % (rank, body[0]), 2)
            for b in body[1:]:
                add(b, 2)
            return out
        add(tt.c10(rank, "E", t, nd, {(2, 2): 1182, (2, 3): 1414, (2, 4): 1595, (2, 5): 1709, (2, 6): 1758, (2, 7): 1803}[tt.tv]) +
            "%s Process group watchdog thread terminated with exception: %s" % (pv, body[0]))
        for b in body[1:]:
            add(b)
        if full:
            add("Exception raised from checkForNCCLErrorsInternal at %s:%d (most recent call first):" % (tt.src, rng.choice([1903, 2027, 2117])), 1)
            frs = tt.frames_watchdog("err")[:2] + tt.frames_watchdog("timeout")[-4:]
            for i, fl in enumerate(frs):
                add("frame #%d:%s" % (i, fl.split(":", 1)[1]), 1)
            add("", 1)
        add("terminate called after throwing an instance of 'c10::DistBackendError'", 2)
        add("  what():  %s Process group watchdog thread terminated with exception: %s" % (pv, body[0]), 2)
        for b in body[1:]:
            add(b, 2)
        return out
    if k == "cuda_err":
        err = f["err"]
        w = f["where"]
        if w == "main":
            for l2 in tt.pyframes(rng.choice(["fwd", "bwd", "opt"])):
                add(l2)
            add("RuntimeError: " + tt.cuda_boiler(err)[0])
            for l2 in tt.cuda_boiler(err)[1:]:
                add(l2)
            return out
        if w == "nccl":
            if sc.nccl_debug:
                add(tt.nccl_pfx(nd, rank) + "enqueue.cc:%d NCCL WARN Cuda failure '%s'" % (rng.choice([1556, 1730, 2045]), err), -50)
                add(tt.nccl_pfx(nd, rank) + "NCCL INFO enqueue.cc:%d -> 1" % rng.choice([1562, 1739]), -49)
            for l2 in tt.pyframes("allreduce"):
                add(l2)
            cls = "torch.distributed.DistBackendError" if tt.tv >= (2, 2) else "RuntimeError"
            add("%s: NCCL error in: %s:%d, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % (
                cls, tt.src, rng.choice([1970, 2006, 2395, 3356]), W.nccl))
            add("ncclUnhandledCudaError: Call to CUDA function failed.")
            add("Last error:")
            add("Cuda failure '%s'" % err)
            return out
        # watchdog thread
        cb = tt.cuda_boiler(err)
        if tt.tv < (2, 2):
            add("terminate called after throwing an instance of 'c10::Error'")
            add("  what():  " + cb[0])
        else:
            add(tt.c10(rank, "E", t, nd, {(2, 2): 1182, (2, 3): 1414, (2, 4): 1595, (2, 5): 1709, (2, 6): 1758, (2, 7): 1803}[tt.tv]) +
                "%s Process group watchdog thread terminated with exception: %s" % (pv, cb[0]))
        for l2 in cb[1:]:
            add(l2, 1)
        add("Exception raised from c10_cuda_check_implementation at %s:43 (most recent call first):" % (
            "../c10/cuda/CUDAException.cpp" if tt.tv < (2, 4) else "/pytorch/c10/cuda/CUDAException.cpp"), 1)
        for fl in tt.frames_watchdog("err"):
            add(fl, 1)
        add("", 1)
        if tt.tv >= (2, 2):
            add("terminate called after throwing an instance of 'c10::DistBackendError'", 2)
            add("  what():  %s Process group watchdog thread terminated with exception: %s" % (pv, cb[0]), 2)
            for l2 in cb[1:]:
                add(l2, 2)
        return out
    if k == "cuda_oom":
        for l2 in tt.oom_block(f, rank):
            add(l2)
        return out
    if k == "exc":
        for l2 in tt.exc_block(f["exc"], rank):
            add(l2)
        return out
    if k == "dl_killed":
        tb = tt.pyframes("data")
        sp = W.pysite
        for l2 in tb:
            add(l2)
        add('  File "%s/torch/utils/data/dataloader.py", line %d, in _try_get_data' % (sp, 1264 if tt.tv >= (2, 5) else 1133))
        add("    data = self._data_queue.get(timeout=timeout)")
        add('  File "/usr/lib/python%s/multiprocessing/queues.py", line 113, in get' % W.py)
        add("    if not self._poll(timeout):")
        add('  File "%s/torch/utils/data/_utils/signal_handling.py", line 73, in handler' % sp)
        add("    _error_if_any_worker_fails()")
        add("RuntimeError: DataLoader worker (pid %d) is killed by signal: Killed. " % f["wpid"])
        add("")
        add("The above exception was the direct cause of the following exception:")
        add("")
        for l2 in tb:
            add(l2)
        add('  File "%s/torch/utils/data/dataloader.py", line %d, in _try_get_data' % (sp, 1277 if tt.tv >= (2, 5) else 1146))
        add("    raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e")
        add("RuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly" % f["wpid"])
        return out
    if k == "dl_timeout":
        for l2 in tt.pyframes("data"):
            add(l2)
        add('  File "%s/torch/utils/data/dataloader.py", line %d, in _try_get_data' % (W.pysite, 1266 if tt.tv >= (2, 5) else 1145))
        add("    raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e")
        add("RuntimeError: DataLoader timed out after %d seconds" % f["secs"])
        return out
    if k == "signal":
        sig = f["sig"]
        if sig == 6:
            add(rng.choice(["free(): invalid pointer", "corrupted size vs. prev_size", "double free or corruption (!prev)",
                            "malloc(): unaligned tcache chunk detected"]))
        if sc.faulthandler:
            name = {11: "Segmentation fault", 6: "Aborted", 7: "Bus error"}[sig]
            add("Fatal Python error: %s" % name, 1)
            add("", 1)
            add("Thread 0x%016x (most recent call first):" % (0x7f0000000000 + rng.randint(0, 0xffffffff) * 0x1000 + 0x640), 1)
            add('  File "/usr/lib/python%s/threading.py", line 331 in wait' % W.py, 1)
            add('  File "/usr/lib/python%s/threading.py", line 629 in wait' % W.py, 1)
            add('  File "%s/tqdm/_monitor.py", line 60 in run' % W.pysite, 1)
            add("", 1)
            add("Current thread 0x%016x (most recent call first):" % (0x7f0000000000 + rng.randint(0, 0xffffffff) * 0x1000 + 0x740), 1)
            add('  File "%s/torch/autograd/graph.py", line %d in _engine_run_backward' % (W.pysite, 825 if tt.tv >= (2, 5) else 744), 1)
            add('  File "%s/torch/autograd/__init__.py", line %d in backward' % (W.pysite, 347 if tt.tv >= (2, 5) else 266), 1)
            add('  File "%s/torch/_tensor.py", line %d in backward' % (W.pysite, 581 if tt.tv >= (2, 5) else 522), 1)
            add('  File "%s/%s", line %d in train_step' % (W.workdir, W.script, rng.randint(60, 120)), 1)
            add('  File "%s/%s", line %d in train' % (W.workdir, W.script, rng.randint(120, 250)), 1)
            add('  File "%s/%s", line %d in main' % (W.workdir, W.script, rng.randint(250, 380)), 1)
            add('  File "%s/%s", line %d in <module>' % (W.workdir, W.script, rng.randint(380, 900)), 1)
            add("", 1)
            add("Extension modules: numpy.core._multiarray_umath, numpy.core._multiarray_tests, numpy.linalg._umath_linalg, torch._C, torch._C._dynamo.autograd_compiler, torch._C._dynamo.eval_frame, torch._C._dynamo.guards, torch._C._dynamo.utils, torch._C._fft, torch._C._linalg, torch._C._nested, torch._C._nn, torch._C._sparse, torch._C._special, yaml._yaml, sentencepiece._sentencepiece (total: %d)" % rng.randint(30, 90), 1)
        return out
    if k == "mismatch":
        m = sc.mismatch
        c = sc.culprit
        me_op, me_n = (m["op"], m["numel"]) if rank == c else (sc.op, sc.numel)
        other = c if rank != c else (0 if c != 0 else 1)
        ot_op, ot_n = (m["op"], m["numel"]) if other == c else (sc.op, sc.numel)
        opts = "TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))"
        fp = "CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%d], TensorDtypes=Float, TensorDeviceTypes=%s)"
        for l2 in tt.pyframes("allreduce"):
            add(l2)
        diffs = "Collectives differ in the following aspects: "
        if me_op != ot_op:
            diffs += "\t Op type: %svs %s" % (me_op, ot_op)
        if me_n != ot_n:
            diffs += "\t Tensor Tensor shapes: [%d]vs [%d]" % (me_n, ot_n)
        add("RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.%s" % (
            rank, fp % (sc.seq, me_op, me_n, opts), other, fp % (sc.seq, ot_op, ot_n, opts), diffs))
        return out
    if k == "sigterm":
        if sc.sigterm_msg and (f.get("by") == "sched" or rng.random() < 0.3):
            if sc.sigterm_msg == "lightning":
                add("[rank: %d] Received SIGTERM: 15" % rank)
            elif rank == 0:
                add("%s WARNING caught signal 15 (SIGTERM), saving emergency checkpoint to %s/ckpt/step_%d ..." % (
                    ts_py(tt.lt(t, nd)), W.workdir, sc.fail_step))
        return out
    if k == "silent":
        if sc.frdump and tt.tv >= (2, 4):
            le, lc = f.get("last_enq", sc.seq - 1), f.get("last_comp", sc.seq - 1)
            t2 = f["t"] - timedelta(seconds=rng.uniform(0.5, 3))
            out.append((t2, tt.c10(rank, "E", t2, nd, 1394) + "%s Received a dump signal due to a collective timeout from rank %d and we will try our best to dump the debug info. Last enqueued NCCL work: %d, last completed NCCL work: %d.This is most likely caused by incorrect usages of collectives, e.g., wrong sizes used across ranks, the order of collectives is not same for all ranks or the scheduled collective, for some reason, didn't run. Additionally, this can be caused by GIL deadlock or other reasons such as network errors or bugs in the communications library (e.g. NCCL), etc. " % (pv, sc.frdump_first, le, lc)))
        return out
    if k == "finish":
        if rank == 0:
            add("%s INFO Training complete: %d steps in %s. Final checkpoint saved to %s/ckpt/step_%d" % (
                ts_py(tt.lt(t, nd)), sc.total_steps, fmt_dur((t - sc.t_ready).total_seconds()), W.workdir, sc.total_steps))
        if tt.tv >= (2, 4) and sc.no_destroy:
            add(tt.c10(rank, "W", t, nd, 1250 if tt.tv < (2, 6) else 1496) +
                "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only been added since PyTorch 2.4 (function operator())", 800)
        return out
    return out


def desync_report(sc, rank, f):
    """TORCH_NCCL_DESYNC_DEBUG report (c10d TraceUtils)"""
    W = sc.W
    c = sc.culprit
    s = f["seq"]
    out = ["\t - [%d] Timeout at collective: %s, #%d" % (rank, f["op"], s)]
    if c is None:
        return out
    others = [r for r in range(W.world) if r != c]
    if len(others) > 24:
        rs = ", ".join(str(x) for x in others)
    else:
        rs = ", ".join(str(x) for x in others)
    out.append("\t - To our best knowledge, the lagging/dead/mismatched ranks that caused the desync are:")
    out.append("\t     [%d] finished collective #%d, but didn't join collective #%d (count from 1)" % (c, s - 1, s))
    out.append("\t - Snapshot of ranks' latest states:")
    out.append("\t   #%d finished ranks:" % (s - 1))
    out.append("\t     [%d] finished %s" % (c, f["op"]))
    out.append("\t   #%d started ranks:" % s)
    out.append("\t     [%s] started %s" % (rs, f["op"]))
    return out


def finalize(rng, sc):
    W = sc.W
    sc.oob_if = rng.choice(["ib0", "bond0", "eth0", "enp75s0f0np0", "ens7"])
    sc.full_frames = W.world <= 16 and rng.random() < 0.7
    sc.startup_style = rng.choice(["fairseq", "custom", "custom", "hf", "none"])
    sc.timing_fmt = rng.choice([0, 1])
    sc.faulthandler = rng.random() < 0.7
    sc.sigterm_msg = rng.choice([None, None, "lightning", "ckpt"])
    sc.no_destroy = rng.random() < 0.6
    sc.loglevel_info = rng.random() < 0.3
    sc.kill_on_bad_exit = sc.collateral == "killed"
    sc.t_drain = sc.t_end + timedelta(seconds=rng.uniform(20, 500))
    sc.all_rank_warn = W.world <= 16 and rng.random() < 0.4
    sc.warnings = make_warnings(rng, sc)
    sc.decoy_warn_g = rng.randrange(W.gpn)
    sc.timing_every = rng.choice([300, 600, 900, 1200]) if W.world <= 64 else rng.choice([900, 1800])
    sc.elastic_id = hexs(rng, 8)
    sc.elastic_id2 = hexs(rng, 8)
    if sc.log_style == "lightning" and sc.sigterm_msg is None:
        sc.sigterm_msg = "lightning"
    # rank that first detects the timeout (for flight-recorder messages)
    tos = sorted((f["t"], r) for r, f in sc.fates.items() if f["kind"] == "timeout" and r != sc.culprit)
    sc.frdump_first = tos[0][1] if tos else 0
    # straggler evidence style: per-rank timing lines, a rank-0 summary, or none (diag only)
    sc.per_rank_timing = False
    sc.straggler_summary = False
    if sc.straggle:
        if sc.straggle["kind"] == "gpu":
            v = rng.choice(["per_rank", "summary", "diag_only", "per_rank"])
        else:
            v = rng.choice(["per_rank", "none"])
        sc.per_rank_timing = v == "per_rank"
        sc.straggler_summary = v == "summary"
        sc.straggle_ev = v


def exitcode(f):
    k = f["kind"]
    if k in ("exc", "cuda_oom", "dl_killed", "dl_timeout", "mismatch"):
        return 1
    if k == "cuda_err":
        return 1 if f["where"] in ("main", "nccl") else -6
    if k in ("timeout", "remote"):
        return -6
    if k == "signal":
        return -f["sig"]
    if k == "killed9":
        return -9
    if k in ("sigterm", "silent"):
        return -15
    return 0


def node_outcome(sc, nd):
    W = sc.W
    rs = [rank_of(W, nd, g) for g in range(W.gpn)]
    if all(sc.fates[r]["kind"] == "finish" for r in rs):
        return dict(kind="success", t=max(sc.fates[r]["t"] for r in rs))
    selff = sorted((sc.fates[r]["t"], r) for r in rs
                   if sc.fates[r]["kind"] not in ("finish", "silent", "sigterm"))
    sched = sorted((sc.fates[r]["t"], r) for r in rs
                   if sc.fates[r]["kind"] == "sigterm" and sc.fates[r].get("by") == "sched")
    if sched and (not selff or sched[0][0] <= selff[0][0]):
        return dict(kind="sigterm", t=sched[0][0] - timedelta(milliseconds=300))
    if not selff:
        # only agent-killed ranks (should not happen) -> treat as sigterm
        return dict(kind="sigterm", t=min(sc.fates[r]["t"] for r in rs))
    t0, r0 = selff[0]
    others = [r for (t, r) in selff[1:] if (t - t0).total_seconds() < 2.0]
    return dict(kind="child_failed", t=t0, first=r0, others=others)


def py_log(tt, t, nd, logger, level, msg):
    """torch.distributed python logger line, version dependent"""
    W = tt.W
    if tt.tv < (2, 4):
        return "[%s] %s: [%s] %s" % (tt.lt(t, nd).strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (t.microsecond // 1000),
                                     logger, level, msg)
    path = logger.replace(".", "/") + ".py"
    lines = {"torch/distributed/elastic/multiprocessing/api.py": {"W": 897, "E": 869, "I": 610},
             "torch/distributed/elastic/agent/server/api.py": {"W": 704, "I": 525, "E": 731},
             "torch/distributed/run.py": {"W": 793, "I": 803, "E": 793}}
    ln = lines.get(path, {}).get(level[0], 100)
    who = W.nodes[nd].agent_pid if tt.tv >= (2, 5) else W.nodes[nd].agent_tid
    return ts_glog(tt.lt(t, nd), level[0], who, "%s:%d" % (path, ln)) + msg


def agent_start_lines(tt, sc, rng, nd, t):
    out = []
    W = sc.W
    lg = "torch.distributed.run"
    for m in ["", "*****************************************",
              "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
              "*****************************************"]:
        out.append((t, py_log(tt, t, nd, lg, "WARNING", m)))
    if sc.loglevel_info:
        t2 = t + timedelta(seconds=rng.uniform(2, 40))
        lg2 = "torch.distributed.elastic.agent.server.api"
        out.append((t2, py_log(tt, t2, nd, lg2, "INFO", "[default] Rendezvous complete for workers. Result:")))
        for s in ["  restart_count=0", "  master_addr=%s" % W.nodes[0].jhost, "  master_port=29500",
                  "  group_rank=%d" % nd, "  group_world_size=%d" % W.nn,
                  "  local_ranks=%s" % list(range(W.gpn)),
                  "  role_ranks=%s" % [rank_of(W, nd, g) for g in range(W.gpn)],
                  "  global_ranks=%s" % [rank_of(W, nd, g) for g in range(W.gpn)],
                  "  role_world_sizes=%s" % ([W.world] * W.gpn), "  global_world_sizes=%s" % ([W.world] * W.gpn), ""]:
            out.append((t2, s))
        out.append((t2, py_log(tt, t2, nd, lg2, "INFO", "[default] Starting worker group")))
    return out


def child_failed_box(tt, sc, rng, nd, outc):
    W = sc.W
    n = W.nodes[nd]
    lines = []
    sp = W.pysite
    py_tb = ["Traceback (most recent call last):",
             '  File "%s", line 8, in <module>' % W.torchrun,
             "    sys.exit(main())",
             '  File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line %d, in wrapper' % (sp, 355 if tt.tv >= (2, 4) else 346),
             "    return f(*args, **kwargs)",
             '  File "%s/torch/distributed/run.py", line %d, in main' % (sp, 919 if tt.tv >= (2, 4) else 812),
             "    run(args)",
             '  File "%s/torch/distributed/run.py", line %d, in run' % (sp, 910 if tt.tv >= (2, 4) else 803),
             "    elastic_launch(",
             '  File "%s/torch/distributed/launcher/api.py", line %d, in __call__' % (sp, 138 if tt.tv >= (2, 4) else 135),
             "    return launch_agent(self._config, self._entrypoint, list(args))",
             '  File "%s/torch/distributed/launcher/api.py", line %d, in launch_agent' % (sp, 269 if tt.tv >= (2, 4) else 268),
             "    raise ChildFailedError(",
             "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
             "============================================================",
             "%s FAILED" % W.script,
             "------------------------------------------------------------",
             "Failures:"]
    lines += py_tb

    def entry(i, r):
        f = sc.fates[r]
        g = r % W.gpn
        ec = exitcode(f)
        pid = n.pids[g]
        e = ["[%d]:" % i,
             "  time      : %s" % tt.lt(f["t"], nd).strftime("%Y-%m-%d_%H:%M:%S"),
             "  host      : %s" % n.fqdn,
             "  rank      : %d (local_rank: %d)" % (r, g),
             "  exitcode  : %d (pid: %d)" % (ec, pid)]
        if ec < 0:
            e.append("  error_file: <N/A>")
            e.append("  traceback : Signal %d (%s) received by PID %d" % (-ec, SIGNAMES.get(-ec, "SIG%d" % -ec), pid))
        elif sc.record:
            e.append("  error_file: /tmp/torchelastic_%s/none_%s/attempt_0/%d/error.json" % (sc.elastic_id, sc.elastic_id2, g))
            blk = end_block(tt, sc, random.Random("eb:%d" % r), r, f)
            tbl = [x for _, x in blk if x.strip()]
            if tbl and tbl[0].startswith("Traceback"):
                e.append("  traceback : Traceback (most recent call last):")
                e.append('    File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line %d, in wrapper' % (
                    W.pysite, 355 if tt.tv >= (2, 4) else 346))
                e.append("      return f(*args, **kwargs)")
                for x in tbl[1:]:
                    e.append("    " + x)
            else:
                e.append("  traceback : " + (tbl[-1] if tbl else "<N/A>"))
        else:
            e.append("  error_file: <N/A>")
            e.append("  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
        return e

    others = outc.get("others", [])
    if not others:
        lines.append("  <NO_OTHER_FAILURES>")
    else:
        for i, r in enumerate(others[:7]):
            lines += entry(i + 1, r)
    lines.append("------------------------------------------------------------")
    lines.append("Root Cause (first observed failure):")
    lines += entry(0, outc["first"])
    lines.append("============================================================")
    return lines


def agent_end_lines(tt, sc, rng, nd, outc):
    """torchrun agent output for node nd at the end of the job"""
    W = sc.W
    n = W.nodes[nd]
    out = []
    lgm = "torch.distributed.elastic.multiprocessing.api"
    lga = "torch.distributed.elastic.agent.server.api"
    if outc["kind"] == "success":
        t = outc["t"] + timedelta(seconds=rng.uniform(0.5, 3))
        if sc.loglevel_info:
            out.append((t, py_log(tt, t, nd, lga, "INFO", "[default] worker group successfully finished. Waiting 300 seconds for other agents to finish.")))
            out.append((t, py_log(tt, t, nd, lga, "INFO", "Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish")))
            t2 = t + timedelta(seconds=rng.uniform(0.1, 9))
            out.append((t2, py_log(tt, t2, nd, lga, "INFO", "Done waiting for other agents. Elapsed: %.10f seconds" % (t2 - t).total_seconds())))
        return out
    if outc["kind"] == "sigterm":
        t = outc["t"]
        out.append((t, py_log(tt, t, nd, lga, "WARNING", "Received Signals.SIGTERM death signal, shutting down workers")))
        for g in range(W.gpn):
            out.append((t + timedelta(milliseconds=2 + g), py_log(tt, t, nd, lgm, "WARNING", "Sending process %d closing signal SIGTERM" % n.pids[g])))
        t2 = t + timedelta(seconds=rng.uniform(0.5, 4))
        sp = W.pysite
        tb = ["Traceback (most recent call last):",
              '  File "%s", line 8, in <module>' % W.torchrun,
              "    sys.exit(main())",
              '  File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line %d, in wrapper' % (sp, 355 if tt.tv >= (2, 4) else 346),
              "    return f(*args, **kwargs)",
              '  File "%s/torch/distributed/run.py", line %d, in main' % (sp, 919 if tt.tv >= (2, 4) else 812),
              "    run(args)",
              '  File "%s/torch/distributed/run.py", line %d, in run' % (sp, 910 if tt.tv >= (2, 4) else 803),
              "    elastic_launch(",
              '  File "%s/torch/distributed/launcher/api.py", line %d, in __call__' % (sp, 138 if tt.tv >= (2, 4) else 135),
              "    return launch_agent(self._config, self._entrypoint, list(args))",
              '  File "%s/torch/distributed/launcher/api.py", line %d, in launch_agent' % (sp, 260 if tt.tv >= (2, 4) else 259),
              "    result = agent.run()",
              '  File "%s/torch/distributed/elastic/metrics/api.py", line %d, in wrapper' % (sp, 137 if tt.tv >= (2, 4) else 124),
              "    result = f(*args, **kwargs)",
              '  File "%s/torch/distributed/elastic/agent/server/api.py", line %d, in run' % (sp, 696 if tt.tv >= (2, 4) else 727),
              "    result = self._invoke_run(role)",
              '  File "%s/torch/distributed/elastic/agent/server/api.py", line %d, in _invoke_run' % (sp, 855 if tt.tv >= (2, 4) else 868),
              "    time.sleep(monitor_interval)",
              '  File "%s/torch/distributed/elastic/multiprocessing/api.py", line %d, in _terminate_process_handler' % (sp, 84 if tt.tv >= (2, 4) else 79),
              "    raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)",
              "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % n.agent_pid]
        for x in tb:
            out.append((t2, x))
        return out
    # child failed
    tf = outc["t"]
    first = outc["first"]
    failed = set([first] + outc["others"])
    t1 = tf + timedelta(seconds=rng.uniform(0.05, 0.9))
    for g in range(W.gpn):
        r = rank_of(W, nd, g)
        if r in failed:
            continue
        out.append((t1 + timedelta(milliseconds=g), py_log(tt, t1, nd, lgm, "WARNING", "Sending process %d closing signal SIGTERM" % n.pids[g])))
    t2 = t1 + timedelta(seconds=rng.uniform(0.3, 2.5))
    if sc.fates[first]["kind"] == "silent" or rng.random() < 0.08:
        pass
    g0 = first % W.gpn
    out.append((t2, py_log(tt, t2, nd, lgm, "ERROR", "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (
        exitcode(sc.fates[first]), g0, n.pids[g0], W.pybin))))
    t3 = t2 + timedelta(milliseconds=rng.randint(20, 400))
    for x in child_failed_box(tt, sc, rng, nd, outc):
        out.append((t3, x))
    return out


def worker_lines(tt, sc, rng, rank, progress=True, prefix_default=None, streams=False):
    """all lines printed by worker process `rank` (already in time order).
    With streams=True each item is (t, line, "O"|"E") for stdout / stderr."""
    W = sc.W
    nd = rank // W.gpn
    f = sc.fates[rank]
    out = []

    def ext(lst, stream):
        for t, x in lst:
            st = stream
            if stream == "auto":
                st = "O" if ("NCCL INFO" in x or "NCCL WARN" in x or " INFO " in x or "caught signal 15" in x) else "E"
            elif stream == "prog":
                st = "E" if "|" in x[:40] and "%|" in x else "O"
            out.append((t, x, st))

    ts = W.t0 + timedelta(seconds=rng.uniform(4, 15))
    ext(startup_lines(tt, sc, rng, rank, ts), "O" if sc.startup_style != "hf" else "E")
    if sc.nccl_debug:
        ext(nccl_init_lines(tt, sc, rank, sc.t_ready - timedelta(seconds=rng.uniform(2, 8))), "O")
    # noise warnings
    if rank == 0 or sc.all_rank_warn:
        tw = sc.t_ready + timedelta(seconds=rng.uniform(1, 20))
        ext([(tw, w) for w in sc.warnings], "E")
    for d in sc.decoys:
        if d["kind"] == "nccl_warn" and d["node"] == nd and rank % W.gpn == sc.decoy_warn_g and sc.nccl_debug:
            ext([(sc.t_ready - timedelta(seconds=3), tt.nccl_pfx(nd, rank, 2) + "proxy.cc:%d NCCL WARN [Service thread] Accept failed Resource temporarily unavailable" % rng.choice([1515, 1632]))], "O")
        if d["kind"] == "handled_exc" and rank == 0:
            ext(handled_exc_lines(tt, sc, rng, d["t"]), "auto")
    t_stop = min(f["t"], sc.t_fail) if not sc.healthy and sc.cause not in ("straggler",) else f["t"]
    if sc.cause == "preemption":
        t_stop = f["t"]
    if progress and rank == 0:
        ext(progress_lines(tt, sc, rng, rank, sc.t_ready, t_stop), "prog")
    if sc.per_rank_timing:
        ext(per_rank_timing(tt, sc, rng, rank, sc.t_ready, t_stop if sc.cause != "data_loader_stall" else f["t"], sc.timing_every), "O")
    if sc.straggler_summary and rank == 0:
        ext(straggler_summary_lines(tt, sc, rng, sc.t_ready, t_stop), "O")
    ext(sc.pre.get(rank, []), "O")
    ext(end_block(tt, sc, rng, rank, f), "auto")
    idx = list(range(len(out)))
    idx.sort(key=lambda i: (out[i][0], i))
    out = [out[i] for i in idx]
    if prefix_default is not None:
        out = [(t, prefix_default + x, st) for t, x, st in out]
    if streams:
        return out
    return [(t, x) for t, x, st in out]


def straggler_summary_lines(tt, sc, rng, t_from, t_to):
    out = []
    st = sc.straggle
    sl = [f for f in sc.facts if f["kind"] == "slow"]
    slow_from = sl[0]["t"] if sl else t_from
    t = t_from + timedelta(seconds=sc.timing_every)
    W = sc.W
    while t < t_to:
        base = sc.step_time * 1000
        if t >= slow_from:
            mx, mxr = base * st["factor"] * rng.uniform(0.98, 1.03), st["rank"]
        else:
            mx, mxr = base * rng.uniform(1.0, 1.04), rng.randrange(W.world)
        mn, mnr = base * rng.uniform(0.9, 0.97), rng.randrange(W.world)
        if mnr == mxr:
            mnr = (mnr + 1) % W.world
        lt = tt.lt(t, 0)
        out.append((t, "[%s] %d Step: %d | MnRtt/Rnk: %.2fms/%d | MxRtt/Rnk: %.2fms/%d | MnPwr/Rnk: %dW/%d | MxPwr/Rnk: %dW/%d | MnTmp/Rnk: %dC/%d | MxTmp/Rnk: %dC/%d | MnUtl/Rnk: %d%%/%d | MxUtl/Rnk: %d%%/%d" % (
            lt.strftime("%Y-%m-%d %H:%M:%S"), rng.randint(0, 9),
            sc.start_step + int((t - t_from).total_seconds() / sc.step_time), mn, mnr, mx, mxr,
            rng.randint(180, 420), rng.randrange(W.world), rng.randint(600, 700), rng.randrange(W.world),
            rng.randint(35, 48), rng.randrange(W.world), rng.randint(60, 92), rng.randrange(W.world),
            rng.randint(60, 85), rng.randrange(W.world), 100, rng.randrange(W.world))))
        t += timedelta(seconds=sc.timing_every)
    return out


def handled_exc_lines(tt, sc, rng, t):
    W = sc.W
    lt = tt.lt(t, 0)
    v = rng.randrange(3)
    if v == 0:
        ep = rng.choice(["s3.us-east-1.amazonaws.com", "storage.googleapis.com", "minio.internal:9000"])
        return [(t, "%s WARNING checkpoint upload attempt 1/5 failed, retrying in 30s" % ts_py(lt)),
                (t, "Traceback (most recent call last):"),
                (t, '  File "%s/utils/ckpt_sync.py", line %d, in upload' % (W.workdir, rng.randint(40, 140))),
                (t, "    client.upload_file(local_path, bucket, key)"),
                (t, '  File "%s/boto3/s3/inject.py", line 145, in upload_file' % W.pysite),
                (t, "    return transfer.upload_file("),
                (t, "botocore.exceptions.ReadTimeoutError: Read timeout on endpoint URL: \"https://%s/ckpt/%s/step_%d.pt\"" % (ep, W.model, sc.fail_step // 2)),
                (t + timedelta(seconds=rng.uniform(31, 50)), "%s INFO checkpoint upload succeeded on attempt 2" % ts_py(lt + timedelta(seconds=40)))]
    if v == 1:
        return [(t, "%s ERROR eval: skipping batch 17 of validation set" % ts_py(lt)),
                (t, "Traceback (most recent call last):"),
                (t, '  File "%s/eval.py", line %d, in evaluate' % (W.workdir, rng.randint(30, 200))),
                (t, "    metrics.update(compute_bleu(preds, refs))"),
                (t, '  File "%s/eval.py", line %d, in compute_bleu' % (W.workdir, rng.randint(200, 300))),
                (t, "    ratio = hyp_len / ref_len"),
                (t, "ZeroDivisionError: division by zero"),
                (t, "%s INFO eval done: val_loss=%.4f (1 batch skipped)" % (ts_py(lt + timedelta(seconds=20)), rng.uniform(1.5, 3)))]
    return [(t, "%s WARNING wandb: Network error (ReadTimeout), entering retry loop." % ts_py(lt)),
            (t + timedelta(seconds=rng.uniform(20, 90)), "%s INFO wandb: resumed syncing" % ts_py(lt + timedelta(seconds=60)))]


WARN_POOL = [
    "{sp}/torch/utils/checkpoint.py:{n}: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.5 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants.\n  return fn(*args, **kwargs)",
    "{sp}/torch/_utils.py:{n}: UserWarning: TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class. This should only matter to you if you are using storages directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()\n  return self.fget.__get__(instance, owner)()",
    "{sp}/torch/distributed/distributed_c10d.py:{n}: UserWarning: barrier(): using the device under current context. You can specify `device_id` in `init_process_group` to mute this warning.\n  warnings.warn(  # warn only once",
    "{sp}/transformers/tokenization_utils_base.py:{n}: FutureWarning: `clean_up_tokenization_spaces` was not set. It will be set to `True` by default. This behavior will be depracted in transformers v4.45, and will be then set to `False` by default. For more details check this issue: https://github.com/huggingface/transformers/issues/31884\n  warnings.warn(",
    "{sp}/torch/nn/modules/module.py:{n}: FutureWarning: `torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', args...)` instead.\n  return forward_call(*args, **kwargs)",
]


def make_warnings(rng, sc):
    W = sc.W
    out = []
    for w in rng.sample(WARN_POOL, rng.randint(1, 3)):
        for piece in w.format(sp=W.pysite, n=rng.randint(100, 2000)).split("\n"):
            out.append(piece)
    return out


# --------------------------------------------------------------------------
# kernel log lines for node facts
# --------------------------------------------------------------------------

def facts_for(sc, nd, include_decoys=True):
    fs = [f for f in sc.facts if f.get("node") == nd]
    if include_decoys:
        fs += [d for d in sc.decoys if d.get("node") == nd]
    return fs


def gpu_bus(W, nd, g):
    if isinstance(nd, int):
        return W.nodes[nd].bus[g]
    return "0000:%s:00.0" % W.P["bus"][g % len(W.P["bus"])]


def kernel_events(sc, rng, nd):
    """list of (t_utc, text) kernel messages for node nd (int job node or spare name)"""
    W = sc.W
    out = []
    seen_gpu = set()
    pn = rng.choice(["python", "python3"]) if not hasattr(sc, "_kpn") else sc._kpn
    sc._kpn = pn
    for f in sorted(facts_for(sc, nd), key=lambda x: x["t"]):
        k = f["kind"]
        t = f["t"]
        if k == "xid":
            g = f["gpu"]
            bus = gpu_bus(W, nd, g)
            pci = bus[:-2]
            if (g, f.get("old", False)) not in seen_gpu:
                seen_gpu.add((g, f.get("old", False)))
                uu = W.nodes[nd].uuids[g] if isinstance(nd, int) else gpu_uuid(rng)
                out.append((t - timedelta(milliseconds=1), "NVRM: GPU at PCI:%s: %s" % (pci, uu)))
                out.append((t - timedelta(milliseconds=1), "NVRM: GPU Board Serial Number: %s" % (
                    W.nodes[nd].serials[g] if isinstance(nd, int) else "%d" % rng.randint(1320000000000, 1799999999999))))
            if f.get("pid"):
                who = "pid=%d, name=%s, " % (f["pid"], f.get("pname") or pn)
            else:
                who = "pid='<unknown>', name=<unknown>, "
            if f["xid"] == 154:
                who = ""
            out.append((t, "NVRM: Xid (PCI:%s): %d, %s%s" % (pci, f["xid"], who, f["msg"])))
            if f["xid"] == 13:
                m = re.search(r"\(GPC (\d+), TPC (\d+), SM (\d+)\)", f["msg"])
                loc3 = m.group(0) if m else "(GPC 0, TPC 0, SM 0)"
                out.append((t, "NVRM: Xid (PCI:%s): 13, %sGraphics SM Global Exception on %s: Multiple Warp Errors" % (pci, who, loc3)))
                out.append((t, "NVRM: Xid (PCI:%s): 13, %sGraphics Exception: ESR 0x%06x=0x%x 0x%06x=0x0 0x%06x=0x%x 0x%06x=0x%x" % (
                    pci, who, 0x504648 + rng.randint(0, 8) * 0x800, rng.randint(0x1000000, 0x10fffff), 0x504650, 0x504644, rng.randint(0, 0xffffff), 0x50464c, rng.randint(0, 0x1ff))))
            if f["xid"] == 79:
                out.append((t + timedelta(milliseconds=3), "NVRM: GPU %s: GPU has fallen off the bus." % bus))
                out.append((t + timedelta(milliseconds=9), "NVRM: A GPU crash dump has been created. If possible, please run"))
                out.append((t + timedelta(milliseconds=9), "NVRM: nvidia-bug-report.sh as root to collect this data before"))
                out.append((t + timedelta(milliseconds=9), "NVRM: the NVIDIA kernel module is unloaded."))
            if f["xid"] in (119, 120) and not f.get("old"):
                for j in range(rng.randint(1, 3)):
                    tj = t + timedelta(seconds=6 * (j + 1) + rng.uniform(0, 40))
                    out.append((tj, "NVRM: Xid (PCI:%s): %d, pid=%d, name=%s, %s" % (
                        pci, 119, rng.randint(1000, 90000), rng.choice(["nvidia-smi", "nv-hostengine", "dcgm-exporter"]),
                        xid_message(rng, 119, W, g))))
                out.append((t + timedelta(seconds=1), "NVRM: GPU%d _kgspLogXid119: ********************************* GSP Timeout **********************************" % g))
                out.append((t + timedelta(seconds=1), "NVRM: GPU%d _kgspLogXid119: Note: Please also check logs above." % g))
        elif k == "oom":
            cn = W.nodes[nd]
            inv_pid = rng.choice(cn.pids)
            tn = t - timedelta(milliseconds=rng.randint(1, 30))
            out.append((tn, "%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0" % f["pname"]))
            out.append((tn, "CPU: %d PID: %d Comm: %s Tainted: P           OE     %s %s" % (
                rng.randint(0, 191), inv_pid, f["pname"], W.kernel, W.kbuild)))
            out.append((tn, "Call Trace:"))
            out.append((tn, " <TASK>"))
            for fr in ["dump_stack_lvl+0x4a/0x63", "dump_header+0x4a/0x1f4", "oom_kill_process.cold+0xb/0x10",
                       "out_of_memory+0x106/0x2e0", "mem_cgroup_out_of_memory+0x13f/0x160" if f["memcg"] != "none" else "__alloc_pages_slowpath.constprop.0+0xcb1/0xd60",
                       "try_charge_memcg+0x6d8/0x7a0" if f["memcg"] != "none" else "__alloc_pages+0x311/0x330",
                       "handle_mm_fault+0xd8/0x2c0", "do_user_addr_fault+0x1c9/0x670", "exc_page_fault+0x77/0x170", "asm_exc_page_fault+0x27/0x30"]:
                out.append((tn, " " + fr))
            out.append((tn, " </TASK>"))
            jobid = W.jobid
            if f["memcg"] == "slurm":
                tid = nd if W.launcher != "srun_tasks" else sc.culprit
                if sc.cgv2:
                    memcg = "/system.slice/slurmstepd.scope/job_%d" % jobid
                    tmcg = memcg + "/step_0/user/task_%d" % tid
                else:
                    memcg = "/slurm/uid_%d/job_%d" % (W.uid, jobid)
                    tmcg = memcg + "/step_0/task_%d" % tid
                cons = "CONSTRAINT_MEMCG"
            elif f["memcg"] == "k8s":
                memcg = "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice" % uuid4(rng).replace("-", "_")
                tmcg = memcg + "/cri-containerd-%s.scope" % hexs(rng, 64)
                cons = "CONSTRAINT_MEMCG"
            else:
                memcg = None
                tmcg = "/user.slice/user-%d.slice/session-%d.scope" % (W.uid, rng.randint(2, 900))
                cons = "CONSTRAINT_NONE"
            if memcg:
                lim = rng.choice([1024, 1536, 1843, 2048]) * 1024 * 1024
                out.append((tn, "memory: usage %dkB, limit %dkB, failcnt %d" % (lim, lim, rng.randint(1, 99999))))
                out.append((tn, "swap: usage 0kB, limit 9007199254740988kB, failcnt 0"))
            out.append((tn, "oom-kill:constraint=%s,nodemask=(null),cpuset=/,mems_allowed=0-1,%stask_memcg=%s,task=%s,pid=%d,uid=%d" % (
                cons, ("oom_memcg=%s," % memcg) if memcg else "", tmcg, f["pname"], f["pid"], W.uid if f["memcg"] != "k8s" else 0)))
            anon = f["anon_kb"]
            out.append((t, "%s: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (
                "Memory cgroup out of memory" if memcg else "Out of memory", f["pid"], f["pname"], anon + rng.randint(10 ** 7, 6 * 10 ** 7),
                anon, rng.randint(200000, 2000000), rng.randint(0, 9 * 10 ** 6), W.uid if f["memcg"] != "k8s" else 0, rng.randint(100000, 600000))))
        elif k == "old_oom":
            out.append((t, "Out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:0kB, UID:%d pgtables:%dkB oom_score_adj:0" % (
                f["pid"], f["pname"], rng.randint(10 ** 7, 9 * 10 ** 7), rng.randint(10 ** 7, 5 * 10 ** 7), rng.randint(1000, 90000),
                rng.randint(1000, 9000), rng.randint(9000, 90000))))
        elif k == "segv":
            if f["sig"] == 11:
                base = 0x7f0000000000 + rng.randint(0, 0xfffff) * 0x1000000
                out.append((t, "%s[%d]: segfault at %x ip %012x sp %012x error %d in %s[%x+%x] likely on CPU %d (core %d, socket %d)" % (
                    f["pname"], f["pid"], rng.choice([0, 8, 0x18, 0x40, rng.randint(0x1000, 0xffffffff)]), base + rng.randint(0x1000, 0x4000000),
                    0x7ffd00000000 + rng.randint(0, 0xffffffff), rng.choice([4, 6, 14]), f["lib"], base, rng.randint(0x100000, 0x9000000),
                    rng.randint(0, 191), rng.randint(0, 47), rng.randint(0, 1))))
                out.append((t, "Code: %s" % " ".join("%02x" % rng.randint(0, 255) for _ in range(30))))
        elif k == "hung_task" or (k == "io_stall"):
            if k == "io_stall":
                if f["fs"] == "nfs":
                    out.append((t, "nfs: server %s not responding, still trying" % f["server"]))
                    out.append((t + timedelta(seconds=rng.uniform(0.1, 5)), "nfs: server %s not responding, still trying" % f["server"]))
                elif f["fs"] == "lustre":
                    out.append((t, "Lustre: %d:0:(client.c:2338:ptlrpc_expire_one_request()) @@@ Request sent has timed out for slow reply: [sent %d/real %d]  req@%016x x%d/t0(0) o4->scratch-OST%04x-osc-ffff9b2a4c1f8000@%s@o2ib:6/4 lens 488/448 e 0 to 1 dl %d ref 2 fl Rpc:XQr/0/ffffffff rc 0/-1 job:'%s.0'" % (
                        rng.randint(1000, 90000), int(t.timestamp()) - 100, int(t.timestamp()) - 100, rng.randint(0, 2 ** 63), rng.randint(10 ** 15, 10 ** 16),
                        rng.randint(0, 40), f["server"], int(t.timestamp()) + 30, W.jobid)))
                    out.append((t + timedelta(seconds=1), "Lustre: scratch-OST%04x-osc-ffff9b2a4c1f8000: Connection to scratch-OST%04x (at %s@o2ib) was lost; in progress operations using this service will wait for recovery to complete" % (
                        rng.randint(0, 40), rng.randint(0, 40), f["server"])))
            tb = t + timedelta(seconds=rng.uniform(123, 250)) if k == "io_stall" else t
            secs = rng.choice([122, 245, 368, 491])
            pid = f["pid"]
            pnm = f.get("pname", pn)
            out.append((tb, "INFO: task %s:%d blocked for more than %d seconds." % (pnm, pid, secs)))
            out.append((tb, "      Tainted: P           OE     %s %s" % (W.kernel, W.kbuild)))
            out.append((tb, "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message."))
            out.append((tb, "task:%-15s state:D stack:0     pid:%-5d ppid:%-6d flags:0x00004002" % (pnm, pid, W.nodes[nd].agent_pid)))
            out.append((tb, "Call Trace:"))
            out.append((tb, " <TASK>"))
            fs = f.get("fs", "nvidia")
            frames = {"nfs": ["__schedule+0x23d/0x590", "schedule+0x4e/0xc0", "io_schedule+0x46/0x70", "folio_wait_bit_common+0x13d/0x350",
                              "nfs_read_folio+0x1a5/0x200 [nfs]", "filemap_read_folio+0x41/0xe0", "filemap_get_pages+0x26b/0x6d0", "filemap_read+0xe0/0x420", "nfs_file_read+0x7e/0xc0 [nfs]", "vfs_read+0x1c1/0x240"],
                      "lustre": ["__schedule+0x23d/0x590", "schedule+0x4e/0xc0", "cl_sync_io_wait+0x1c5/0x420 [obdclass]", "ll_io_read_page+0x2a5/0x4c0 [lustre]",
                                 "ll_readpage+0x11b/0x7e0 [lustre]", "filemap_read_folio+0x41/0xe0", "filemap_read+0xe0/0x420", "vvp_io_read_start+0x4a8/0x5d0 [lustre]", "cl_io_start+0x64/0x130 [obdclass]", "ll_file_io_generic+0x2b8/0xc90 [lustre]"],
                      "s3fs": ["__schedule+0x23d/0x590", "schedule+0x4e/0xc0", "request_wait_answer+0x13f/0x220 [fuse]", "fuse_simple_request+0x192/0x2e0 [fuse]",
                               "fuse_do_readpage+0x146/0x1f0 [fuse]", "fuse_read_folio+0x23/0x60 [fuse]", "filemap_read_folio+0x41/0xe0", "filemap_read+0xe0/0x420", "vfs_read+0x1c1/0x240"],
                      "nvidia": ["__schedule+0x23d/0x590", "schedule+0x4e/0xc0", "schedule_timeout+0x10c/0x140", "__down_common+0x11a/0x210", "down+0x47/0x60",
                                 "os_acquire_mutex+0x27/0x40 [nvidia]", "_nv039548rm+0x47/0x90 [nvidia]", "? _nv011591rm+0x21/0x40 [nvidia]", "rm_ioctl+0x58/0xb0 [nvidia]", "nvidia_ioctl+0x6cd/0x830 [nvidia]", "__x64_sys_ioctl+0x95/0xd0"]}
            for fr in frames.get(fs if fs in frames else ("s3fs" if fs in ("s3fs", "gcsfuse") else "nfs"), frames["nfs"]):
                out.append((tb, " " + fr))
            out.append((tb, " do_syscall_64+0x5b/0xc0"))
            out.append((tb, " entry_SYSCALL_64_after_hwframe+0x6e/0xd8"))
            out.append((tb, " </TASK>"))
        elif k == "ib":
            cn = W.nodes[nd]
            g = f["gpu"]
            hb = cn.hca_bus[g]
            if f["mode"] == "down":
                out.append((t, "mlx5_core %s: mlx5_port_module_event:1154:(pid 0): Port module event[error]: module %d, Cable error, %s" % (
                    hb, g, rng.choice(["Bad or shorted cable/module", "High Temperature", "Bus stuck (I2C or data shorted)"]))))
            elif f["mode"] == "flap":
                for j in range(min(6, f["link_downed"])):
                    tj = t - timedelta(seconds=rng.uniform(0, 900))
                    out.append((tj, "mlx5_core %s: Port module event: module %d, Cable unplugged" % (hb, g)))
                    out.append((tj + timedelta(seconds=rng.uniform(2, 9)), "mlx5_core %s: Port module event: module %d, Cable plugged" % (hb, g)))
            else:
                up = hb.split(":")
                out.append((t - timedelta(seconds=1), "pcieport %s:%02x:01.0: AER: Uncorrected (Non-Fatal) error received: %s" % (up[0], int(up[1], 16) - 1, hb)))
                out.append((t - timedelta(seconds=1), "mlx5_core %s: PCIe Bus Error: severity=Uncorrected (Non-Fatal), type=Transaction Layer, (Requester ID)" % hb))
                out.append((t, "mlx5_core %s: poll_health:%d:(pid 0): Fatal error 1 detected" % (hb, rng.choice([801, 834, 1040]))))
                out.append((t, "mlx5_core %s: print_health_info:%d:(pid 0): assert_var[0] 0x%08x" % (hb, rng.choice([431, 473]), rng.randint(0, 2 ** 32 - 1))))
                out.append((t, "mlx5_core %s: print_health_info:%d:(pid 0): synd 0x1: firmware internal error" % (hb, rng.choice([431, 473]))))
                out.append((t + timedelta(seconds=2), "mlx5_core %s: mlx5_health_try_recover:%d:(pid %d): handling bad device here" % (hb, rng.choice([340, 347]), rng.randint(100, 9000))))
                out.append((t + timedelta(seconds=2), "mlx5_core %s: mlx5_error_sw_reset:%d:(pid %d): start" % (hb, rng.choice([227, 231]), rng.randint(100, 9000))))
                out.append((t + timedelta(seconds=9), "mlx5_core %s: mlx5_health_try_recover:%d:(pid %d): starting health recovery flow" % (hb, rng.choice([354, 361]), rng.randint(100, 9000))))
        elif k == "cable_plug":
            hb = W.nodes[nd].hca_bus[f["gpu"]] if isinstance(nd, int) else "0000:%s:00.0" % W.P["hca"][f["gpu"]]
            out.append((t, "mlx5_core %s: Port module event: module %d, Cable plugged" % (hb, f["gpu"])))
        elif k == "slow" and f["why"] == "pcie":
            bus = gpu_bus(W, nd, f["gpu"])
            up = bus.split(":")
            for j in range(rng.randint(2, 5)):
                tj = f["t"] + timedelta(seconds=rng.uniform(0, 3600))
                out.append((tj, "pcieport %s:%02x:01.0: AER: Corrected error received: %s" % (up[0], max(0, int(up[1], 16) - 1), bus)))
                out.append((tj, "nvidia %s: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)" % bus))
                out.append((tj, "nvidia %s:   device [10de:%s] error status/mask=00000001/0000e000" % (bus, W.P["devid"])))
                out.append((tj, "nvidia %s:    [ 0] RxErr                  (First)" % bus))
    # collateral Xid 45 for sibling contexts torn down after a GPU fault
    if isinstance(nd, int) and nd == sc.cnode and sc.cause in ("gpu_hardware", "ecc_memory", "nvlink", "illegal_memory_access") and rng.random() < 0.6:
        cn = W.nodes[nd]
        f0 = [f for f in sc.facts if f["kind"] == "xid" and f["node"] == nd]
        if f0:
            t0 = max(f0[0]["t"] + timedelta(seconds=rng.uniform(1, 6)), node_outcome(sc, nd)["t"] + timedelta(seconds=rng.uniform(0.5, 4)))
            for g in rng.sample(range(W.gpn), min(W.gpn, rng.randint(1, 3))):
                out.append((t0 + timedelta(milliseconds=rng.randint(0, 900)), "NVRM: Xid (PCI:%s): 45, pid=%d, name=%s, Ch %08x" % (
                    cn.bus[g][:-2], cn.pids[g], pn, rng.randint(1, 0x30))))
    # benign noise around the job
    if isinstance(nd, int):
        te = sc.t_end + timedelta(seconds=rng.uniform(0.5, 20))
        if rng.random() < 0.6:
            out.append((te, "nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid context, skipping further processing"))
        if rng.random() < 0.3:
            out.append((W.t0 + timedelta(seconds=rng.uniform(0, 3000)), "EDAC MC%d: 1 CE memory read error on CPU_SrcID#%d_MC#%d_Chan#%d_DIMM#0 (channel:%d slot:0 page:0x%x offset:0x%x grain:32 syndrome:0x0 - err_code:0x0000:0x0090 SystemAddress:0x%x ProcessorSocketId:0x%d MemoryControllerId:0x%d ChannelAddress:0x%x ChannelId:0x%d RankAddress:0x%x PhysicalRankId:0x1 DimmSlotId:0x0 Row:0x%x Column:0x%x Bank:0x2 BankGroup:0x1 ChipSelect:0x1 ChipId:0x0)" % (
                rng.randint(0, 3), rng.randint(0, 1), rng.randint(0, 3), rng.randint(0, 1), rng.randint(0, 1), rng.randint(0, 0xffffff), rng.randint(0, 0xfff),
                rng.randint(0, 2 ** 40), rng.randint(0, 1), rng.randint(0, 3), rng.randint(0, 2 ** 32), rng.randint(0, 1), rng.randint(0, 2 ** 30),
                rng.randint(0, 0x3ffff), rng.randint(0, 0x3ff))))
    out.sort(key=lambda x: x[0])
    return out


def kernel_noise(rng, W, nd, t_from, t_to, k):
    out = []
    span = max(1.0, (t_to - t_from).total_seconds())
    for _ in range(k):
        tn = t_from + timedelta(seconds=rng.uniform(0, span))
        out.append((tn, rng.choice([
            "IPv6: ADDRCONF(NETDEV_CHANGE): ib%d: link becomes ready" % rng.randint(0, 3),
            "audit: type=1400 audit(%d.%03d:%d): apparmor=\"DENIED\" operation=\"open\" class=\"file\" profile=\"snap.lxd.activate\" name=\"/proc/%d/mounts\" pid=%d comm=\"snap-exec\" requested_mask=\"r\" denied_mask=\"r\" fsuid=0 ouid=0" % (
                int(tn.timestamp()), rng.randint(0, 999), rng.randint(100, 900), rng.randint(1000, 9000), rng.randint(1000, 9000)),
            "nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid context, skipping further processing",
            "perf: interrupt took too long (%d > %d), lowering kernel.perf_event_max_sample_rate to %d" % (rng.randint(2500, 4000), rng.randint(2400, 2500), rng.choice([50000, 63000, 79000])),
            "systemd-journald[%d]: Data hash table of /var/log/journal/%s/system.journal has a fill level at 75.0 (%d of %d items, %d file size, %d bytes per hash table item), suggesting rotation." % (
                rng.randint(600, 1500), hexs(rng, 32), rng.randint(100000, 200000), rng.randint(150000, 250000), rng.randint(10 ** 8, 2 * 10 ** 8), rng.randint(700, 900)),
            "TCP: request_sock_TCP: Possible SYN flooding on port %d. Sending cookies.  Check SNMP counters." % rng.choice([29500, 6817, 9400]),
            "nfs: server %s OK" % rng.choice(["nas01", "home-nfs", "10.40.0.12"]),
        ])))
    return out


def uptime_of(W, nd, t):
    if isinstance(nd, int):
        n = W.nodes[nd]
        return n.boot_uptime + (t - W.t0).total_seconds()
    # spare node: deterministic pseudo uptime
    return 400000.0 + (t - W.t0).total_seconds() + 13.37 * (sum(ord(c) for c in nd) % 1000)


def boot_lines(W, rng, nd):
    """a few lines from the start of dmesg"""
    up0 = 0.0
    n = W.nodes[nd] if isinstance(nd, int) else None
    return [(up0, W.linux_version),
            (0.000000, "Command line: BOOT_IMAGE=/boot/vmlinuz-%s root=UUID=%s ro pci=realloc=off iommu=pt amd_iommu=on numa_balancing=disable" % (W.kernel, uuid4(rng))),
            (3.412881, "nvidia: loading out-of-tree module taints kernel."),
            (3.520417, "nvidia-nvlink: Nvlink Core is being initialized, major device number 508"),
            (3.931118, "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  %s  Tue Mar  5 22:42:15 UTC 2024" % W.driver),
            (5.118301, "mlx5_core 0000:%s:00.0: firmware version: %s" % (W.P["hca"][0], W.P["fw"])),
            (9.845512, "nvidia-peermem: module verification failed: signature and/or required key missing - tainting kernel")]


# --------------------------------------------------------------------------
# nvidia-smi renderings
# --------------------------------------------------------------------------

def gpu_state(sc, nd, g):
    """per GPU status after the job, from facts and decoys"""
    W = sc.W
    st = dict(lost=False, reset=False, dbe=0, sbe=0, sbe_agg=0, dbe_agg=0, remap_unc=0, remap_corr=0, pending=False,
              failure=False, slow=None, nvlink_down=None, temp=None, clk=None, pcie=None, stuck_pid=None)
    for f in facts_for(sc, nd):
        if f.get("gpu") != g:
            continue
        k = f["kind"]
        if k == "gpu_lost":
            st["lost"] = True
        elif k == "gpu_reset_required":
            st["reset"] = True
        elif k == "ecc":
            st["dbe"] = f["dbe"]
            st["dbe_agg"] = f["dbe"]
            st["sbe"] = f["sbe"]
            st["sbe_agg"] = f["sbe"] + 3
            st["remap_unc"] = f["remap_unc"]
            st["pending"] = f["pending"]
            st["failure"] = f["failure"]
        elif k == "sbe":
            st["sbe_agg"] += f["sbe"]
        elif k == "remap_corr":
            st["remap_corr"] += f["n"]
        elif k == "slow":
            st["slow"] = f["why"]
            st["temp"] = f["temp"]
            st["clk"] = f["clk"]
            if f["why"] == "pcie":
                st["pcie"] = sc._pcie_deg if hasattr(sc, "_pcie_deg") else (1, 16)
        elif k == "nvlink_down":
            st["nvlink_down"] = f["link"]
    if isinstance(nd, int) and nd == sc.cnode and g == sc.cgpu and sc.fates.get(sc.culprit, {}).get("kind") == "silent" \
            and sc.cause in ("gpu_hardware", "ecc_memory", "nvlink", "hang"):
        st["stuck_pid"] = W.nodes[nd].pids[g]
    return st


def smi_q(sc, rng, nd, t_snap):
    """nvidia-smi -q (excerpt per GPU)"""
    W = sc.W
    P = W.P
    n = W.nodes[nd]
    out = ["", "==============NVSMI LOG==============", "",
           "Timestamp                                 : %s" % ctime(loc(t_snap, W.site_tz)),
           "Driver Version                            : %s" % W.driver,
           "CUDA Version                              : %s" % W.cuda_drv, ""]
    lost = [g for g in range(W.gpn) if gpu_state(sc, nd, g)["lost"]]
    pre = []
    for g in lost:
        pre.append("Unable to determine the device handle for gpu %s: GPU is lost.  Reboot the system to recover this GPU" % n.bus[g])
    out = pre + out
    out.append("Attached GPUs                             : %d" % (W.gpn - len(lost)))
    new_drv = W.driver >= "535"
    for g in range(W.gpn):
        if g in lost:
            continue
        st = gpu_state(sc, nd, g)
        bus8 = "0000" + n.bus[g].upper()
        out.append("GPU %s" % bus8)
        out.append("    Product Name                          : %s" % P["gpu"])
        out.append("    Product Brand                         : NVIDIA")
        out.append("    Product Architecture                  : %s" % ("Hopper" if "H1" in P["gpu"] or "H2" in P["gpu"] else "Ampere"))
        out.append("    Persistence Mode                      : Enabled")
        out.append("    Serial Number                         : %s" % n.serials[g])
        out.append("    GPU UUID                              : %s" % n.uuids[g])
        out.append("    Minor Number                          : %d" % g)
        out.append("    VBIOS Version                         : %s" % P["vbios"])
        out.append("    Board Part Number                     : %s" % P["boardpn"])
        if st["reset"] and W.driver >= "550":
            out.append("    GPU Recovery Action                   : Reset")
        out.append("    PCI")
        out.append("        Bus                               : 0x%s" % n.bus[g][5:7])
        out.append("        Bus Id                            : %s" % bus8)
        out.append("        GPU Link Info")
        out.append("            PCIe Generation")
        gen_max = 5 if "H" in P["gpu"][7:9] else 4
        gen_cur, w_cur = (gen_max, 16)
        if st["pcie"]:
            gen_cur, w_cur = st["pcie"]
        out.append("                Max                       : %d" % gen_max)
        out.append("                Current                   : %d" % gen_cur)
        out.append("            Link Width")
        out.append("                Max                       : 16x")
        out.append("                Current                   : %dx" % w_cur)
        out.append("        Replays Since Reset               : %d" % (rng.randint(40, 900) if st["pcie"] else 0))
        out.append("    Performance State                     : P0")
        out.append("    Clocks %s Reasons" % ("Event" if new_drv else "Throttle"))
        slow = st["slow"]
        out.append("        Idle                              : %s" % ("Not Active" if slow else "Active"))
        out.append("        Applications Clocks Setting       : Not Active")
        out.append("        SW Power Cap                      : %s" % ("Active" if slow == "power_brake" else "Not Active"))
        out.append("        HW Slowdown                       : %s" % ("Active" if slow in ("hw_slowdown", "thermal", "power_brake") else "Not Active"))
        out.append("            HW Thermal Slowdown           : %s" % ("Active" if slow == "thermal" else "Not Active"))
        out.append("            HW Power Brake Slowdown       : %s" % ("Active" if slow == "power_brake" else "Not Active"))
        out.append("        Sync Boost                        : Not Active")
        out.append("        SW Thermal Slowdown               : %s" % ("Active" if slow == "thermal" else "Not Active"))
        out.append("        Display Clock Setting             : Not Active")
        out.append("    ECC Mode")
        out.append("        Current                           : Enabled")
        out.append("        Pending                           : Enabled")
        out.append("    ECC Errors")
        out.append("        Volatile")
        out.append("            SRAM Correctable              : 0")
        out.append("            SRAM Uncorrectable            : 0")
        out.append("            DRAM Correctable              : %d" % st["sbe"])
        out.append("            DRAM Uncorrectable            : %d" % st["dbe"])
        out.append("        Aggregate")
        out.append("            SRAM Correctable              : 0")
        out.append("            SRAM Uncorrectable            : 0")
        out.append("            DRAM Correctable              : %d" % st["sbe_agg"])
        out.append("            DRAM Uncorrectable            : %d" % st["dbe_agg"])
        out.append("    Retired Pages")
        out.append("        Single Bit ECC                    : N/A")
        out.append("        Double Bit ECC                    : N/A")
        out.append("        Pending Page Blacklist            : N/A")
        out.append("    Remapped Rows")
        out.append("        Correctable Error                 : %d" % st["remap_corr"])
        out.append("        Uncorrectable Error               : %d" % st["remap_unc"])
        out.append("        Pending                           : %s" % ("Yes" if st["pending"] else "No"))
        out.append("        Remapping Failure Occurred        : %s" % ("Yes" if st["failure"] else "No"))
        out.append("        Bank Remap Availability Histogram")
        out.append("            Max                           : %d bank(s)" % (640 - st["remap_unc"] - st["remap_corr"]))
        out.append("            High                          : 0 bank(s)")
        out.append("            Partial                       : %d bank(s)" % (st["remap_unc"] + st["remap_corr"]))
        out.append("            Low                           : 0 bank(s)")
        out.append("            None                          : 0 bank(s)")
        out.append("    Temperature")
        tmp = st["temp"] or rng.randint(27, 38)
        out.append("        GPU Current Temp                  : %d C" % tmp)
        out.append("        GPU T.Limit Temp                  : %d C" % (max(0, 87 - tmp)))
        out.append("        GPU Shutdown Temp                 : 92 C")
        out.append("        GPU Slowdown Temp                 : 87 C")
        out.append("    Clocks")
        smclk = st["clk"] if slow else rng.choice([345, 1980, 1755]) if "H" in P["gpu"][7:9] else rng.choice([210, 1410])
        out.append("        Graphics                          : %d MHz" % smclk)
        out.append("        SM                                : %d MHz" % smclk)
        out.append("        Memory                            : %d MHz" % (2619 if "H" in P["gpu"][7:9] else 1593))
        out.append("    Processes                             : %s" % ("" if st["stuck_pid"] else "None"))
        if st["stuck_pid"]:
            out.append("        GPU instance ID                   : N/A")
            out.append("        Compute instance ID               : N/A")
            out.append("        Process ID                        : %d" % st["stuck_pid"])
            out.append("            Type                          : C")
            out.append("            Name                          : %s" % W.pybin)
            out.append("            Used GPU Memory               : %d MiB" % rng.randint(30000, P["mem"] - 900))
        out.append("")
    return out


def smi_table(sc, rng, nd, t_snap):
    W = sc.W
    P = W.P
    n = W.nodes[nd]
    new = W.driver >= "550"
    out = [ctime(loc(t_snap, W.site_tz)) + "       "]
    lost = [g for g in range(W.gpn) if gpu_state(sc, nd, g)["lost"]]
    for g in lost:
        out = ["Unable to determine the device handle for gpu %s: GPU is lost.  Reboot the system to recover this GPU" % n.bus[g]] + out
    if new:
        sepw = ("-" * 41, "-" * 24, "-" * 22)
        out.append("+" + "-" * 89 + "+")
        out.append("| NVIDIA-SMI %-22s Driver Version: %-14s CUDA Version: %-9s|" % (W.driver, W.driver, W.cuda_drv))
        out.append("|%s+%s+%s|" % sepw)
        out.append("| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |")
        out.append("| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |")
        out.append("|                                         |                        |               MIG M. |")
        out.append("|%s+%s+%s|" % ("=" * 41, "=" * 24, "=" * 22))
    else:
        sepw = ("-" * 41, "-" * 22, "-" * 22)
        out.append("+" + "-" * 87 + "+")
        out.append("| NVIDIA-SMI %-22s Driver Version: %-12s CUDA Version: %-9s|" % (W.driver, W.driver, W.cuda_drv))
        out.append("|%s+%s+%s|" % sepw)
        out.append("| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |")
        out.append("| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |")
        out.append("|                                         |                      |               MIG M. |")
        out.append("|%s+%s+%s|" % ("=" * 41, "=" * 22, "=" * 22))
    procs = []
    for g in range(W.gpn):
        if g in lost:
            continue
        st = gpu_state(sc, nd, g)
        tmp = st["temp"] or rng.randint(27, 38)
        pwr = rng.randint(62, 120)
        used = 4
        if st["stuck_pid"]:
            used = rng.randint(30000, P["mem"] - 900)
            procs.append((g, st["stuck_pid"], used))
        ecc = str(st["dbe"]) if not st["reset"] else "ERR!"
        bus8 = "0000" + n.bus[g].upper()
        perf = "P0"
        util = "%d%%" % (100 if st["stuck_pid"] else 0)
        out.append("| %3d  %-28s%5s  |%s%s Off |%21s |" % (g, P["gpu"][:28], "On", "   " if new else " ", bus8, ecc))
        c2 = ("%11s / %9s " if new else "%10s / %9s ") % ("%dMiB" % used, "%dMiB" % P["mem"])
        out.append("| N/A   %2dC    %-2s%16s / %5s |%s|%8s%13s |" % (tmp, perf, "%dW" % pwr, "%dW" % P["pwr"], c2, util, "Default"))
        out.append("|                                         |%s|%21s |" % (" " * (24 if new else 22), "Disabled"))
        out.append("+%s+%s+%s+" % sepw)
    wdt = 89 if new else 87
    out.append(" " * (wdt + 2))
    out.append("+" + "-" * wdt + "+")
    out.append("| Processes:" + " " * (wdt - 11) + "|")
    out.append("|  GPU   GI   CI        PID   Type   Process name" + " " * (wdt - 59) + "GPU Memory |")
    out.append("|        ID   ID" + " " * (wdt - 26) + "Usage      |")
    out.append("|" + "=" * wdt + "|")
    if not procs:
        out.append("|  No running processes found" + " " * (wdt - 28) + "|")
    for g, pid, used in procs:
        row = "|  %3d   N/A  N/A  %9d      C   %s" % (g, pid, W.pybin)
        tail = "%dMiB |" % used
        out.append(row + " " * max(1, wdt + 2 - len(row) - len(tail)) + tail)
    out.append("+" + "-" * wdt + "+")
    return out


def smi_nvlink_status(sc, rng, nd):
    W = sc.W
    n = W.nodes[nd]
    out = []
    bw = "26.562 GB/s" if W.P["nvl"] == 18 else "25 GB/s"
    for g in range(W.gpn):
        st = gpu_state(sc, nd, g)
        if st["lost"]:
            continue
        out.append("GPU %d: %s (UUID: %s)" % (g, W.P["gpu"], n.uuids[g]))
        for l in range(W.P["nvl"]):
            out.append("\t Link %d: %s" % (l, "<inactive>" if st["nvlink_down"] == l else bw))
    return out


TZABBR = {"UTC": "UTC", "US/Pacific": "PDT", "US/Central": "CDT", "Europe/Berlin": "CEST", "Asia/Shanghai": "CST",
          "Asia/Seoul": "KST", "US/Eastern": "EDT"}


def sort_lines(lines):
    idx = list(range(len(lines)))
    idx.sort(key=lambda i: (lines[i][0], i))
    return [lines[i] for i in idx]


def node_job_lines(tt, sc, rng, nd, progress=True):
    """everything a torchrun agent + its workers print on node nd (time-sorted)"""
    W = sc.W
    out = []
    out += agent_start_lines(tt, sc, rng, nd, W.t0 + timedelta(seconds=rng.uniform(0.5, 3)))
    for g in range(W.gpn):
        r = rank_of(W, nd, g)
        pre = ("[default%d]:" % g) if sc.tee else None
        out += worker_lines(tt, sc, rng, r, progress=progress, prefix_default=pre)
    out += agent_end_lines(tt, sc, rng, nd, node_outcome(sc, nd))
    return sort_lines(out)


def slurm_ts(W, t):
    return iso(loc(t, W.site_tz))


def srun_end_lines(sc, rng, per_task=False):
    """srun / slurmstepd messages printed to the batch script's output"""
    W = sc.W
    out = []
    jid = W.jobid
    if sc.sched_end:
        reason, t = sc.sched_end
        tl = slurm_ts(W, t)
        if reason == "preempt":
            out.append((t, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (jid, W.nodes[0].name, tl)))
        elif reason == "timelimit":
            out.append((t, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (jid, W.nodes[0].name, tl)))
        else:
            out.append((t, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s ***" % (jid, W.nodes[0].name, tl)))
        out.append((t + timedelta(milliseconds=5), "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
        for nd in range(W.nn):
            out.append((t + timedelta(milliseconds=10 + nd), "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (jid, W.nodes[nd].name, tl)))
        return out
    units = []   # (t, host, task ids, status)
    if per_task:
        for r in range(W.world):
            f = sc.fates[r]
            if f["kind"] == "finish":
                continue
            units.append((f["t"] + timedelta(seconds=rng.uniform(0.2, 1.5)), node_of(W, r).name, r, exitcode(f), f))
    else:
        for nd in range(W.nn):
            oc = node_outcome(sc, nd)
            if oc["kind"] == "success":
                continue
            ec = 1 if oc["kind"] == "child_failed" else -15
            units.append((oc["t"] + timedelta(seconds=rng.uniform(1.5, 5)), W.nodes[nd].name, nd, ec, None))
    units.sort(key=lambda x: (x[0], x[2]))
    if not units:
        return out
    first_t = units[0][0]
    killed_mode = sc.collateral == "killed" or sc.kill_on_bad_exit
    # group by host + status
    groups = {}
    order = []
    for t, host, tid, ec, f in units:
        if ec == 1 or ec > 1:
            stt = "Exited with exit code %d" % ec
        elif ec == -6:
            stt = "Aborted (core dumped)" if sc.core else "Aborted"
        elif ec == -11:
            stt = "Segmentation fault (core dumped)" if sc.core else "Segmentation fault"
        elif ec == -9:
            stt = "Killed"
        elif ec == -7:
            stt = "Bus error (core dumped)" if sc.core else "Bus error"
        else:
            stt = "Terminated"
        key = (host, stt)
        if key not in groups:
            groups[key] = [t, []]
            order.append(key)
        groups[key][1].append(tid)
        groups[key][0] = min(groups[key][0], t)
    aborted = False
    for key in sorted(order, key=lambda k: groups[k][0]):
        t, tids = groups[key]
        tids.sort()
        if len(tids) == 1:
            ts = "task %d" % tids[0]
        else:
            rs = []
            a = b = tids[0]
            for x in tids[1:]:
                if x == b + 1:
                    b = x
                else:
                    rs.append((a, b))
                    a = b = x
            rs.append((a, b))
            ts = "tasks " + ",".join(("%d" % a) if a == b else ("%d-%d" % (a, b)) for a, b in rs)
        if killed_mode and not aborted and t > first_t:
            out.append((first_t + timedelta(milliseconds=300), "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
            for nd in range(min(W.nn, 3)):
                out.append((first_t + timedelta(milliseconds=320 + nd), "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (
                    jid, W.nodes[nd].name, slurm_ts(W, first_t))))
            aborted = True
        out.append((t, "srun: error: %s: %s: %s" % (key[0], ts, key[1])))
    if killed_mode and aborted:
        out.append((units[-1][0] + timedelta(seconds=1), "srun: Force Terminated StepId=%d.0" % jid))
    if sc.cause == "host_oom_kill" and any(f["kind"] == "oom" and f.get("memcg") == "slurm" for f in sc.facts):
        fo = [f for f in sc.facts if f["kind"] == "oom"][0]
        out.append((fo["t"] + timedelta(seconds=rng.uniform(1, 4)), "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % jid))
    return out


def truncate_text(lines, limit):
    """keep head and tail if a file would be too big (people attach `tail`)"""
    total = sum(len(x) + 1 for x in lines)
    if total <= limit:
        return lines, False
    keep_head = []
    size = 0
    for x in lines:
        if size > limit * 0.25:
            break
        keep_head.append(x)
        size += len(x) + 1
    tail = []
    size2 = 0
    for x in reversed(lines):
        if size2 > limit * 0.7:
            break
        tail.append(x)
        size2 += len(x) + 1
    tail.reverse()
    return keep_head + ["[... %d lines removed ...]" % (len(lines) - len(keep_head) - len(tail))] + tail, True


# --------------------------------------------------------------------------
# layout 1: Slurm .out (srun --label torchrun) + nvidia-bug-report excerpts
# --------------------------------------------------------------------------

def primary_diag_node(sc, rng):
    """the node an admin looks at first when there is no culprit node"""
    W = sc.W
    dec = [d["node"] for d in sc.decoys if isinstance(d.get("node"), int) and d["kind"] in ("xid", "sbe", "remap_corr", "dcgm_warn", "old_oom")]
    if dec and rng.random() < 0.75:
        return dec[0]
    first = min(range(W.world), key=lambda r: (sc.fates[r]["t"], r))
    return first // W.gpn


def render_nvbugreport(sc, rng):
    W = sc.W
    tt = TT(sc, rng)
    files = {}
    width = len(str(W.nn - 1))
    lines = []
    t0 = W.t0
    hdr = [(t0 - timedelta(seconds=2), "+ export MASTER_ADDR=%s" % W.nodes[0].name),
           (t0 - timedelta(seconds=2), "+ MASTER_PORT=%d" % rng.choice([29500, 29400, 6000, 12355])),
           (t0 - timedelta(seconds=2), "+ export NCCL_DEBUG=%s" % sc.nccl_debug) if sc.nccl_debug else (t0 - timedelta(seconds=2), "+ export NCCL_IB_TIMEOUT=22"),
           (t0 - timedelta(seconds=1), "+ srun --label %storchrun --nnodes=%d --nproc_per_node=%d --rdzv_id=%d --rdzv_backend=c10d --rdzv_endpoint=%s:29500 %s%s --config configs/%s.yaml" % (
               "--kill-on-bad-exit=1 " if sc.kill_on_bad_exit else "", W.nn, W.gpn, W.jobid, W.nodes[0].name,
               "--tee 3 " if sc.tee else "", W.script, W.model))]
    if sc.desync:
        hdr.insert(0, (t0 - timedelta(seconds=3), "+ export TORCH_NCCL_DESYNC_DEBUG=1"))
    lines += hdr
    for nd in range(W.nn):
        lab = "%*d: " % (width, nd)
        for t, x in node_job_lines(tt, sc, rng, nd):
            lines.append((t, lab + x))
    lines += srun_end_lines(sc, rng)
    lines = sort_lines(lines)
    txt = [x for _, x in lines]
    txt, cut = truncate_text(txt, 780000)
    if cut:
        sc.notes.append("slurm .out truncated in the middle")
        sc.truncated = True
    files["slurm-%d.out" % W.jobid] = "\n".join(txt) + "\n"
    # which nodes get a bug report
    rep = []
    if sc.cnode is not None:
        rep.append(sc.cnode)
    else:
        rep.append(primary_diag_node(sc, rng))
    dn = [d["node"] for d in sc.decoys if isinstance(d.get("node"), int) and d["node"] not in rep]
    if dn and rng.random() < 0.7:
        rep.append(dn[0])
    elif W.nn > 1 and rng.random() < 0.3:
        o = [i for i in range(W.nn) if i not in rep]
        rep.append(rng.choice(o))
    sc.diag_nodes = rep
    for nd in rep:
        files["nvidia-bug-report-%s.log" % W.nodes[nd].name] = bug_report(sc, rng, nd)
    return files


def bug_report(sc, rng, nd):
    W = sc.W
    n = W.nodes[nd]
    t_snap = sc.t_end + timedelta(minutes=rng.uniform(8, 180))
    lt = loc(t_snap, W.site_tz)
    tzab = TZABBR.get(W.site_tz_name, "UTC")
    sep = "____________________________________________"
    o = [sep, "", "Start of NVIDIA bug report log file.  Please include this file, along",
         "with a detailed description of your problem, when reporting a graphics",
         "driver bug via the NVIDIA Linux forum (see forums.developer.nvidia.com)",
         "or by sending email to 'linux-bugs@nvidia.com'.", "",
         "nvidia-bug-report.sh Version: %d" % rng.choice([33824574, 34203279, 34579214, 35174209]), "",
         "Date: %s %s %s" % (lt.strftime("%a %b ") + ("%2d" % lt.day) + lt.strftime(" %H:%M:%S"), tzab, lt.strftime("%Y")),
         "uname: Linux %s %s %s x86_64 x86_64 x86_64 GNU/Linux" % (n.name, W.kernel, W.uname_v),
         "command line flags: %s" % rng.choice(["--safe-mode --extra-system-data", "", "--extra-system-data"]), "",
         sep, "", "*** /etc/os-release", "*** ls: -rw-r--r-- 1 root root 386 2024-02-16 14:22:41.000000000 +0000 /etc/os-release",
         'PRETTY_NAME="%s"' % W.os_pretty, 'VERSION_ID="%s"' % W.os_ver, "", sep, "",
         "*** /proc/driver/nvidia/./version",
         "*** ls: -r--r--r-- 1 root root 0 %s.%09d +0000 /proc/driver/nvidia/./version" % (t_snap.strftime("%Y-%m-%d %H:%M:%S"), rng.randint(0, 10 ** 9 - 1)),
         "NVRM version: NVIDIA UNIX x86_64 Kernel Module  %s  Tue Mar  5 22:42:15 UTC 2024" % W.driver,
         "GCC version:  " + W.gcc, "", sep, "",
         "*** /proc/cmdline",
         "BOOT_IMAGE=/boot/vmlinuz-%s root=UUID=%s ro pci=realloc=off iommu=pt" % (W.kernel, uuid4(rng)), "", sep, ""]
    # nvidia-smi --query
    o.append("/usr/bin/nvidia-smi --query")
    o += smi_q(sc, rng, nd, t_snap)
    o += ["", sep, ""]
    if W.gpn >= 4:
        o.append("/usr/bin/nvidia-smi nvlink --status")
        o.append("")
        o += smi_nvlink_status(sc, rng, nd)
        o += ["", sep, ""]
    # dmesg
    o.append("/usr/bin/dmesg")
    o.append("")
    dm = []
    for up, x in boot_lines(W, rng, nd):
        dm.append((up, x))
    for t, x in kernel_events(sc, rng, nd):
        up = uptime_of(W, nd, t)
        if up < 12 or t > t_snap:
            continue
        dm.append((up, x))
    # a little periodic noise
    for tn, x in kernel_noise(rng, W, nd, W.t0 - timedelta(hours=2), sc.t_end, rng.randint(2, 7)):
        up = uptime_of(W, nd, tn)
        if up > 20:
            dm.append((up, x))
    dm.sort(key=lambda x: x[0])
    for up, x in dm:
        o.append("%s %s" % (uptime_stamp(up), x))
    o += ["", sep, "", "End of NVIDIA bug report log file.", ""]
    return "\n".join(o) + "\n"


# --------------------------------------------------------------------------
# can a careful human get to the rank from what was attached?
# --------------------------------------------------------------------------

def assess(sc, vis, agent_vis, diag_nodes, launcher_first=False, pid_map_extra=False, node_rank_known=True):
    W = sc.W
    c = sc.culprit
    if c is None:
        return False, "no culprit rank"
    if not sc.rank_inferable:
        return False, sc.rank_block or "rank not derivable"
    f = sc.fates[c]
    k = f["kind"]
    cn = sc.cnode
    why = []
    # can a worker's own output be tied to its rank? (per-rank files, mpirun tags, torchrun --tee)
    attributable = W.launcher in ("srun_tasks", "mpirun") or sc.tee
    if c in vis:
        if k == "cuda_oom" or (attributable and k in ("exc", "dl_killed", "dl_timeout", "cuda_err")):
            why.append("culprit log")
        if k == "cuda_err" and f.get("where") == "nccl" and sc.nccl_debug:
            why.append("culprit NCCL WARN prefix")
        if k == "cuda_err" and f.get("where") == "watchdog" and W.tv >= (2, 2):
            why.append("culprit watchdog CUDA error names rank")
        if k == "remote" and "hca " in f.get("lasterr", ""):
            why.append("culprit NET/IB error")
        if k == "signal" and sc.faulthandler and attributable:
            why.append("culprit fatal signal dump")
        if k == "timeout" and sc.mismatch:
            why.append("culprit's WorkNCCL differs")
        if k == "silent" and sc.frdump and W.tv >= (2, 4) and (attributable or W.tv >= (2, 2)):
            why.append("culprit's flight-recorder last-enqueued seq lags")
    if k == "mismatch" and any(r != c for r in vis):
        why.append("mismatch message names rank")
    if launcher_first:
        why.append("launcher names first failing task")
    oc = node_outcome(sc, cn)
    if cn in agent_vis and oc["kind"] == "child_failed" and oc["first"] == c:
        why.append("torchrun root cause on culprit node")
    if sc.desync and any(sc.fates[r]["kind"] == "timeout" for r in vis):
        why.append("desync report")
    if k == "silent" and len(vis) == W.world and W.world <= 64:
        why.append("only rank without a timeout")
    if sc.straggle:
        if sc.per_rank_timing and c in vis:
            why.append("per-rank timing")
        if sc.straggler_summary and 0 in vis:
            why.append("straggler summary")
    pid_map = pid_map_extra or (c in vis and (sc.nccl_debug == "INFO" or sc.startup_style == "custom")) or \
        (cn in agent_vis and oc["kind"] == "child_failed" and oc["first"] == c)
    if cn in diag_nodes and node_rank_known:
        for fc in sc.facts:
            if fc.get("node") != cn:
                continue
            if fc["kind"] in ("gpu_lost", "ecc", "nvlink_down", "slow", "gpu_reset_required") or \
                    (fc["kind"] == "xid" and fc.get("gpu") == sc.cgpu):
                why.append("diag names GPU %d" % sc.cgpu)
                break
            if fc["kind"] in ("oom", "segv", "hung_task") and pid_map and fc.get("pid") == W.nodes[cn].pids[sc.cgpu]:
                why.append("diag pid maps to rank")
                break
    if why:
        return True, "; ".join(sorted(set(why)))
    return False, "nothing attached points at the rank"


def make_truth(sc, layout, node_spelling=None, aliases=None):
    W = sc.W
    node = None
    al = []
    if sc.cnode is not None and sc.node_known:
        n = W.nodes[sc.cnode]
        node = node_spelling or n.name
        cand = [n.name, n.fqdn, n.ip] + (aliases or [])
        for a in cand:
            if a and a != node and a not in al:
                al.append(a)
    healthy = sc.cause is None
    rank = sc.culprit if (sc.culprit is not None and not healthy) else None
    ri = bool(sc.rank_ok) if rank is not None else False
    return {"cause": sc.cause, "healthy": healthy, "rank": rank, "node": node,
            "drain": bool(sc.cause in DRAINABLE and node is not None),
            "rank_inferable": ri, "node_aliases": al, "layout": layout,
            "notes": "world=%d (%dx%d, %s, torch %s, NCCL %s, launcher %s); %s; culprit evidence in %s; rank evidence: %s; decoys: %s" % (
                W.world, W.nn, W.gpn, W.P["gpu"], W.torch_str, W.nccl, W.launcher, "; ".join(sc.notes),
                "diagnostics only (job log shows only timeouts/kills)" if sc.evidence == "diag" else "job log and/or diagnostics",
                sc.rank_why,
                ", ".join(sc.decoy_names) if sc.decoy_names else "none")}


# --------------------------------------------------------------------------
# layout 2: Kubernetes PyTorchJob + DCGM diag/health/exporter
# --------------------------------------------------------------------------

def wrap46(text, w=46):
    out = []
    while len(text) > w:
        out.append(text[:w])
        text = text[w:]
    out.append(text)
    return out


def dcgm_findings(sc, rng, nd):
    """list of (section, test, verdict, message) for dcgmi diag -r 3"""
    W = sc.W
    res = []
    for g in range(W.gpn):
        st = gpu_state(sc, nd, g)
        if st["lost"]:
            res.append(("Hardware", "GPU Memory", g, "Unable to find a corresponding CUDA device for GPU %d: 'no CUDA-capable device is detected'" % g))
        if st["reset"]:
            res.append(("Deployment", "NVML Library", g, "Error calling NVML API nvmlDeviceGetPowerUsage: GPU requires reset"))
        if st["pending"]:
            res.append(("Deployment", "Page Retirement/Row Remap", g, "GPU %d had memory errors and row remappings are pending" % g))
        if st["dbe"]:
            res.append(("Hardware", "GPU Memory", g, "Detected %d volatile double-bit ECC error(s) in GPU %d." % (st["dbe"], g)))
        if st["failure"]:
            res.append(("Deployment", "Page Retirement/Row Remap", g, "GPU %d had uncorrectable memory errors and row remapping failed." % g))
        if st["nvlink_down"] is not None:
            res.append(("Integration", "PCIe", g, "GPU %d's NvLink link %d is currently down" % (g, st["nvlink_down"])))
        if st["slow"] in ("thermal", "hw_slowdown", "power_brake"):
            det = {"thermal": "HW thermal slowdown is engaged", "hw_slowdown": "HW slowdown is engaged",
                   "power_brake": "HW power brake slowdown is engaged"}[st["slow"]]
            res.append(("Stress", "Targeted Power", g, "Clocks are being throttled for GPU %d because of clock throttling starting %.1f seconds into the test. %s" % (g, rng.uniform(1, 20), det)))
            if st["slow"] == "thermal":
                res.append(("Stress", "Diagnostic", g, "There were thermal violations totaling %.1f seconds for GPU %d" % (rng.uniform(5, 90), g)))
        if st["slow"] == "pcie":
            res.append(("Integration", "PCIe", g, "GPU %d is running at PCI link width %dX, which is below the minimum allowed link generation of 16 (parameter 'min_pci_width')" % (g, st["pcie"][1] if st["pcie"] else 8)))
    for d in sc.decoys:
        if d["kind"] == "dcgm_warn" and d["node"] == nd:
            res.append(("Deployment", "Persistence Mode", -1, "Persistence mode for GPU %d is disabled. Enable persistence mode by running \"nvidia-smi -i <gpuId> -pm 1 \" as root." % d["gpu"]))
    return res


def dcgmi_diag(sc, rng, nd):
    W = sc.W
    fnd = dcgm_findings(sc, rng, nd)
    ver = sc.dcgm_ver
    ngpu = W.gpn - sum(1 for g in range(W.gpn) if gpu_state(sc, nd, g)["lost"])
    L = ["Successfully ran diagnostic for group.",
         "+---------------------------+------------------------------------------------+",
         "| Diagnostic                | Result                                         |",
         "+===========================+================================================+",
         "|-----  Metadata  ----------+------------------------------------------------|",
         "| DCGM Version              | %-46s |" % ver,
         "| Driver Version Detected   | %-46s |" % W.driver,
         "| GPU Device IDs Detected   | %-46s |" % ",".join([W.P["devid"]] * ngpu)]
    sections = [("Deployment", ["Denylist", "NVML Library", "CUDA Main Library", "Permissions and OS Blocks", "Persistence Mode",
                                "Environment Variables", "Page Retirement/Row Remap", "Graphics Processes", "Inforom"]),
                ("Integration", ["PCIe"]), ("Hardware", ["GPU Memory"]),
                ("Stress", ["Targeted Stress", "Targeted Power", "Memory Bandwidth", "Diagnostic"])]
    for sec, tests in sections:
        if sec == "Deployment":
            L.append("|-----  Deployment  --------+------------------------------------------------|")
        else:
            seg = "-----  " + sec + "  "
            L.append("+" + seg + "-" * (27 - len(seg)) + "+------------------------------------------------+")
        for tn in tests:
            hits = [x for x in fnd if x[0] == sec and x[1] == tn]
            if sec == "Deployment":
                if tn == "Persistence Mode" and hits and all(h[2] == -1 for h in hits):
                    verdict = "Warn"
                else:
                    verdict = "Fail" if hits else "Pass"
            else:
                bad = sorted(set(h[2] for h in hits if h[2] >= 0))
                verdict = ("Fail - GPU: %s" % ", ".join(str(b) for b in bad)) if bad else "Pass - All"
            L.append("| %-25s | %-46s |" % (tn, verdict))
            for h in hits:
                lab = "Warning" if verdict.startswith("Warn") or sec != "Deployment" else "Error"
                msg = ("GPU %d " % h[2] if h[2] >= 0 and not h[3].startswith("GPU") else "") + h[3]
                chunks = wrap46(msg)
                L.append("| %-25s | %-46s |" % (lab, chunks[0]))
                for c in chunks[1:]:
                    L.append("| %-25s | %-46s |" % ("", c))
    L.append("+---------------------------+------------------------------------------------+")
    return L


def dcgmi_health(sc, rng, nd):
    W = sc.W
    items = []
    for g in range(W.gpn):
        st = gpu_state(sc, nd, g)
        errs = []
        if st["lost"]:
            errs.append(("Driver system", "Failure", "Detected XID 79 for GPU %d" % g))
        if st["reset"]:
            errs.append(("Driver system", "Failure", "Detected XID 119 for GPU %d" % g))
        if st["dbe"]:
            errs.append(("Memory system", "Failure", "Detected %d volatile double-bit ECC error(s) in GPU %d." % (st["dbe"], g)))
        if st["pending"]:
            errs.append(("Memory system", "Failure", "GPU %d had memory errors and row remappings are pending" % g))
        if st["nvlink_down"] is not None:
            errs.append(("NVLink system", "Failure", "GPU %d's NvLink link %d is currently down" % (g, st["nvlink_down"])))
        if st["slow"] == "thermal":
            errs.append(("Thermal system", "Warning", "Detected clock throttling due to thermal violation in GPU %d." % g))
        if st["slow"] == "power_brake":
            errs.append(("Power system", "Warning", "Detected clock throttling due to power violation in GPU %d." % g))
        if st["slow"] == "pcie":
            errs.append(("PCIe system", "Warning", "Detected more than 8 PCIe replays per minute for GPU %d : %d" % (g, rng.randint(12, 400))))
        if errs:
            items.append((g, errs))
    L = ["+---------------------------+----------------------------------------------------------+",
         "| Health Monitor Report                                                                |",
         "+===========================+==========================================================+"]
    if not items:
        L.append("| Overall Health            | Healthy                                                  |")
    else:
        worst = "Failure" if any(e[1] == "Failure" for _, es in items for e in es) else "Warning"
        L.append("| Overall Health            | %-56s |" % worst)
        L.append("| GPU                       | %-56s |" % "")
        for g, es in items:
            w = "Failure" if any(e[1] == "Failure" for e in es) else "Warning"
            L.append("| -> %-22s | %-56s |" % (g, w))
            L.append("|    -> Errors              | %-56s |" % "" if w == "Failure" else "|    -> Warnings            | %-56s |" % "")
            for sysn, sev, msg in es:
                L.append("|       -> %-16s | %-56s |" % (sysn, sev))
                m = msg
                while m:
                    L.append("|                           | %-56s |" % m[:56])
                    m = m[56:]
    L.append("+---------------------------+----------------------------------------------------------+")
    return L


def dcgm_scrape(sc, rng, nd, with_pod):
    W = sc.W
    n = W.nodes[nd]
    P = W.P
    metrics = [("DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz)."),
               ("DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C)."),
               ("DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W)."),
               ("DCGM_FI_DEV_XID_ERRORS", "gauge", "Value of the last XID error encountered."),
               ("DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "counter", "Total number of single-bit volatile ECC errors."),
               ("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "counter", "Total number of double-bit volatile ECC errors."),
               ("DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", "counter", "Number of remapped rows for uncorrectable errors"),
               ("DCGM_FI_DEV_ROW_REMAP_FAILURE", "gauge", "Whether remapping of rows has failed"),
               ("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", "gauge", "Current clock throttle reasons."),
               ("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "counter", "Total number of PCIe retries."),
               ("DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", "counter", "Total number of NVLink flow-control CRC errors."),
               ("DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", "counter", "Total number of NVLink bandwidth counters for all lanes")]
    xids = {}
    for f in facts_for(sc, nd):
        if f["kind"] == "xid" and f["xid"] not in (154,):
            xids[f["gpu"]] = f["xid"]
    L = []
    for name, typ, hlp in metrics:
        L.append("# HELP %s %s" % (name, hlp))
        L.append("# TYPE %s %s" % (name, typ))
        for g in range(W.gpn):
            st = gpu_state(sc, nd, g)
            if st["lost"]:
                continue
            lab = 'gpu="%d",UUID="%s",pci_bus_id="%s",device="nvidia%d",modelName="%s",Hostname="%s",DCGM_FI_DRIVER_VERSION="%s"' % (
                g, n.uuids[g], "0000" + n.bus[g].upper(), g, P["gpu"], n.name, W.driver)
            if with_pod:
                lab += ',container="pytorch",namespace="%s",pod="%s"' % (W.k8s_ns, n.pod)
            if name == "DCGM_FI_DEV_XID_ERRORS":
                x = xids.get(g, 0)
                lab += ',err_code="%d",err_msg="%s"' % (x, XID_NAME.get(x, "No Error") if x else "No Error")
                v = x
            elif name == "DCGM_FI_DEV_SM_CLOCK":
                v = st["clk"] if st["slow"] else rng.choice([1980, 1755, 1410]) if with_pod else 345
            elif name == "DCGM_FI_DEV_GPU_TEMP":
                v = st["temp"] or rng.randint(30, 62)
            elif name == "DCGM_FI_DEV_POWER_USAGE":
                v = "%.3f" % rng.uniform(90, 690 if with_pod else 120)
            elif name == "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL":
                v = st["sbe"]
            elif name == "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL":
                v = st["dbe"]
            elif name == "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS":
                v = st["remap_unc"]
            elif name == "DCGM_FI_DEV_ROW_REMAP_FAILURE":
                v = 1 if st["failure"] else 0
            elif name == "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS":
                v = {"thermal": 0x68, "hw_slowdown": 0x8, "power_brake": 0x88, "pcie": 0}.get(st["slow"], 0)
            elif name == "DCGM_FI_DEV_PCIE_REPLAY_COUNTER":
                v = rng.randint(50, 3000) if st["slow"] == "pcie" else 0
            elif name == "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL":
                v = [f for f in facts_for(sc, nd) if f["kind"] == "nvlink_down" and f["gpu"] == g][0]["crc"] if st["nvlink_down"] is not None else 0
            else:
                v = rng.randint(10 ** 9, 10 ** 12)
            L.append("%s{%s} %s" % (name, lab, v))
    return L


def render_dcgm(sc, rng):
    W = sc.W
    tt = TT(sc, rng)
    files = {}
    ts_prefix = rng.random() < 0.4
    # which pod logs are attached
    if W.nn <= 4:
        att = list(range(W.nn))
    else:
        att = [0]
        if sc.cnode is not None and not sc.omit_culprit_log and rng.random() < 0.85:
            att.append(sc.cnode)
        for nd in rng.sample(range(W.nn), min(W.nn, rng.randint(1, 3))):
            if nd not in att:
                att.append(nd)
    if sc.omit_culprit_log and sc.cnode in att and len(att) > 1:
        att.remove(sc.cnode)
    att.sort()
    vis = set()
    for nd in att:
        n = W.nodes[nd]
        L = []
        for t, x in node_job_lines(tt, sc, rng, nd):
            if ts_prefix:
                L.append(rfc3339(t, 9) + " " + x)
            else:
                L.append(x)
        L, _ = truncate_text(L, 600000)
        files["logs/%s.log" % n.pod] = "\n".join(L) + "\n"
        vis.update(rank_of(W, nd, g) for g in range(W.gpn))
    # kubectl get pods
    t_now = sc.t_end + timedelta(minutes=rng.uniform(10, 240))
    rows = [("NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE", "READINESS GATES")]
    age = (t_now - W.t0).total_seconds()
    agestr = ("%dh" % (age // 3600)) if age >= 7200 else ("%dm" % (age // 60))
    oom_nodes = set(f["node"] for f in sc.facts if f["kind"] == "oom")
    for nd in range(W.nn):
        n = W.nodes[nd]
        oc = node_outcome(sc, nd)
        if oc["kind"] == "success":
            stt = "Completed"
        elif nd in oom_nodes:
            stt = "OOMKilled"
        else:
            stt = "Error"
        rows.append((n.pod, "0/1", stt, "0", agestr, n.ip, n.k8s_node, "<none>", "<none>"))
    files["kubectl-get-pods.txt"] = "$ kubectl get pods -n %s -o wide -l training.kubeflow.org/job-name=%s\n" % (W.k8s_ns, W.k8s_job) + \
        "\n".join(pad_table(rows, "   ")) + "\n"
    if sc.cause == "preemption" or oom_nodes or rng.random() < 0.3:
        ev = ["$ kubectl get events -n %s --sort-by=.lastTimestamp | grep -E '%s|workload'" % (W.k8s_ns, W.k8s_job),
              "LAST SEEN   TYPE      REASON                 OBJECT                                  MESSAGE"]
        ago = lambda t: "%dm" % max(1, int((t_now - t).total_seconds() // 60))
        if sc.cause == "preemption":
            t = sc.sched_end[1]
            ev.append("%-11s Normal    Preempted              workload/pytorchjob-%s-%s   Preempted to accommodate a workload (UID: %s, JobUID: %s) due to prioritization in the ClusterQueue" % (
                ago(t), W.k8s_job, hexs(rng, 5), uuid4(rng), uuid4(rng)))
            for nd in range(W.nn):
                ev.append("%-11s Normal    Killing                pod/%-35s Stopping container pytorch" % (ago(t), W.nodes[nd].pod))
        for nd in sorted(oom_nodes):
            fo = [f for f in sc.facts if f["kind"] == "oom" and f["node"] == nd][0]
            ev.append("%-11s Warning   OOMKilling             node/%-34s Memory cgroup out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:0kB, UID:0 pgtables:%dkB oom_score_adj:%d" % (
                ago(fo["t"]), W.nodes[nd].k8s_node, fo["pid"], fo["pname"], fo["anon_kb"] + 4000000, fo["anon_kb"], rng.randint(100000, 900000), rng.randint(100000, 600000), rng.choice([-997, 936, 999])))
        ev.append("%-11s Normal    %-22s pytorchjob/%-28s PyTorchJob %s is %s." % (
            ago(sc.t_end), "PyTorchJobSucceeded" if sc.healthy else "PyTorchJobFailed", W.k8s_job, W.k8s_job,
            "successfully completed" if sc.healthy else "failed because 1 Worker replica(s) failed"))
        files["kubectl-get-events.txt"] = "\n".join(ev) + "\n"
    # DCGM on the suspect node(s)
    dn = []
    if sc.cnode is not None:
        dn.append(sc.cnode)
    else:
        dn.append(primary_diag_node(sc, rng))
    dec = [d["node"] for d in sc.decoys if isinstance(d.get("node"), int) and d["node"] not in dn]
    if dec and rng.random() < 0.7:
        dn.append(dec[0])
    elif W.nn > 1 and rng.random() < 0.4:
        dn.append(rng.choice([i for i in range(W.nn) if i not in dn]))
    for nd in dn:
        n = W.nodes[nd]
        files["dcgm/%s-diag-r3.txt" % n.k8s_node] = "$ kubectl exec -n gpu-operator nvidia-dcgm-%s -- dcgmi diag -r 3\n" % hexs(rng, 5) + \
            "\n".join(dcgmi_diag(sc, rng, nd)) + "\n"
        files["dcgm/%s-health.txt" % n.k8s_node] = "$ dcgmi health -g 0 -c\n" + "\n".join(dcgmi_health(sc, rng, nd)) + "\n"
    sl = []
    for nd in dn + [x for x in att if x not in dn][:1]:
        sl.append("# curl -s http://%s:9400/metrics   (dcgm-exporter on %s, captured %s)" % (
            W.nodes[nd].node_ip, W.nodes[nd].k8s_node, rfc3339(sc.t_fail + timedelta(seconds=rng.uniform(20, 200)))))
        sl += dcgm_scrape(sc, rng, nd, True)
    files["dcgm-exporter-scrape.txt"] = "\n".join(sl) + "\n"
    sc.diag_nodes = dn
    ok, why = assess(sc, vis, set(att), set(dn))
    sc.rank_ok, sc.rank_why = ok, why
    return files


# --------------------------------------------------------------------------
# layout 3: per-task Slurm outputs + sinfo -R / scontrol / NHC
# --------------------------------------------------------------------------

def drain_reason(sc, rng):
    """(reason, nhc_check_line or None) for the culprit node, or None"""
    W = sc.W
    if sc.cnode is None:
        return None
    cn = W.nodes[sc.cnode]
    g = sc.cgpu
    fs = facts_for(sc, sc.cnode, include_decoys=False)
    kinds = set(f["kind"] for f in fs)
    if sc.cause == "gpu_hardware":
        if "gpu_lost" in kinds:
            return rng.choice([("NHC: check_gpu_count:  Expected %d GPUs, found %d (nvidia-smi: GPU %s is lost)" % (W.gpn, W.gpn - 1, cn.bus[g]), "check_gpu_count %d" % W.gpn),
                               ("NHC: check_gpu_xid:  Xid 79 (GPU has fallen off the bus) on GPU %s" % cn.bus[g], "check_gpu_xid"),
                               ("Kill task failed", None)])
        return ("NHC: check_gpu_xid:  Xid 119 (GSP RPC timeout) on GPU %s; GPU reset required" % cn.bus[g], "check_gpu_xid")
    if sc.cause == "ecc_memory":
        x = [f["xid"] for f in fs if f["kind"] == "xid"]
        return rng.choice([("NHC: check_gpu_ecc:  GPU %d (%s) volatile DBE count %d, row remap pending" % (g, cn.bus[g], [f for f in fs if f["kind"] == "ecc"][0]["dbe"]), "check_gpu_ecc"),
                           ("NHC: check_gpu_xid:  Xid %d on GPU %s" % (x[0], cn.bus[g]), "check_gpu_xid")])
    if sc.cause == "nvlink":
        l = [f for f in fs if f["kind"] == "nvlink_down"][0]["link"]
        return ("NHC: check_nvlink_status:  GPU %d (%s) NVLink %d inactive, expected %d active links" % (g, cn.bus[g], l, W.P["nvl"]), "check_nvlink_status %d" % W.P["nvl"])
    if sc.cause == "network":
        return ("NHC: check_hw_ib:  No IB port %s:1 is ACTIVE (LinkUp %d Gb/sec)." % (cn.hcas[g], W.P["ib_rate"]), "check_hw_ib %d %s:1" % (W.P["ib_rate"], cn.hcas[g]))
    if "hung_task" in kinds or (sc.cause == "data_loader_stall" and rng.random() < 0.5):
        return ("Kill task failed", None)
    return None


def nhc_log(sc, rng, nd, failing):
    W = sc.W
    n = W.nodes[nd] if isinstance(nd, int) else None
    name = n.name if n else nd
    checks = ['check_fs_mount_rw -t "tmpfs" -s "tmpfs" -f "/dev/shm"', 'check_fs_mount_rw -f /scratch',
              "check_hw_cpuinfo 2 %d %d" % (rng.choice([48, 56, 64, 96]), rng.choice([96, 112, 128, 192])),
              "check_hw_physmem %dgb %dgb 5%%" % (rng.choice([1024, 2048]), rng.choice([1100, 2100])),
              "check_hw_ib %d" % W.P["ib_rate"], "check_ps_service -u root -S sshd", "check_ps_service -u slurm -S slurmd",
              "check_gpu_count %d" % W.gpn, "check_gpu_xid", "check_gpu_ecc", "check_nvlink_status %d" % W.P["nvl"]]
    L = []
    runs = rng.randint(2, 4)
    for i in range(runs):
        L.append("Node Health Check starting.")
        for c in checks:
            L.append('Running check:  "%s"' % c)
        L.append("Node Health Check completed successfully (%ds)." % rng.randint(1, 4))
    if failing:
        reason, chk = failing
        t = sc.t_drain
        L.append("Node Health Check starting.")
        for c in checks:
            L.append('Running check:  "%s"' % c)
            if chk and c.split()[0] == chk.split()[0]:
                break
        msg = reason[len("NHC: "):]
        L.append("ERROR:  nhc:  Health check failed:  %s" % msg)
        L.append("%s /usr/libexec/nhc/node-mark-offline %s %s" % (loc(t, W.site_tz).strftime("%Y%m%d %H:%M:%S"), name, msg))
        L.append("/usr/libexec/nhc/node-mark-offline:  Marking %s %s offline:  NHC: %s" % (rng.choice(["idle", "mix", "alloc"]), name, msg))
    return L


def scontrol_node(sc, rng, name, state, reason, t_reason, user="root"):
    W = sc.W
    cpus = sc.cpus
    mem = sc.memmb
    boot = loc(W.t0 - timedelta(days=rng.uniform(3, 90)), W.site_tz)
    return ["NodeName=%s Arch=x86_64 CoresPerSocket=%d " % (name, cpus // 4),
            "   CPUAlloc=0 CPUEfctv=%d CPUTot=%d CPULoad=%.2f" % (cpus, cpus, rng.uniform(0, 3)),
            "   AvailableFeatures=%s,ib,nvlink" % ("h100" if "H1" in W.P["gpu"] else "h200" if "H2" in W.P["gpu"] else "a100"),
            "   ActiveFeatures=%s,ib,nvlink" % ("h100" if "H1" in W.P["gpu"] else "h200" if "H2" in W.P["gpu"] else "a100"),
            "   Gres=gpu:%s:%d(S:0-1)" % ("h100" if "H1" in W.P["gpu"] else "h200" if "H2" in W.P["gpu"] else "a100", W.gpn),
            "   NodeAddr=%s NodeHostName=%s Version=%s" % (name, name, rng.choice(["23.02.7", "23.11.4", "24.05.3", "22.05.11"])),
            "   OS=Linux %s %s " % (W.kernel, W.uname_v),
            "   RealMemory=%d AllocMem=0 FreeMem=%d Sockets=2 Boards=1" % (mem, mem - rng.randint(20000, 90000)),
            "   State=%s ThreadsPerCore=2 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A" % state,
            "   Partitions=%s " % rng.choice(["gpu", "batch,gpu", "h100", "train"]),
            "   BootTime=%s SlurmdStartTime=%s" % (iso(boot), iso(boot + timedelta(seconds=rng.randint(60, 300)))),
            "   LastBusyTime=%s ResumeAfterTime=None" % iso(loc(sc.t_end, W.site_tz)),
            "   CfgTRES=cpu=%d,mem=%dM,billing=%d,gres/gpu=%d" % (cpus, mem, cpus, W.gpn),
            "   AllocTRES=",
            "   CapWatts=n/a",
            "   CurrentWatts=0 AveWatts=0",
            "   ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s",
            "   Reason=%s [%s@%s]" % (reason, user, iso(loc(t_reason, W.site_tz))), ""]


def render_slurm_drain(sc, rng):
    W = sc.W
    tt = TT(sc, rng)
    files = {}
    jid = W.jobid
    # per-task files
    if W.world <= 16:
        att = list(range(W.world))
    else:
        att = sample_ranks(rng, W.world, sc.culprit if rng.random() < 0.75 else None, rng.randint(6, 12))
    if sc.omit_culprit_log and sc.culprit in att:
        att.remove(sc.culprit)
    for r in att:
        L = [x for _, x in worker_lines(tt, sc, rng, r)]
        files["%d-%d.out" % (jid, r)] = "\n".join(L) + ("\n" if L else "")
    # batch output
    B = [(W.t0 - timedelta(seconds=3), "Job %d: %d nodes (%s), %d tasks, started %s" % (jid, W.nn, W.hostlist, W.world, loc(W.t0, W.site_tz).strftime("%a %b %d %H:%M:%S %Y"))),
         (W.t0 - timedelta(seconds=2), "+ export MASTER_ADDR=%s MASTER_PORT=%d" % (W.nodes[0].name, rng.choice([29500, 12802, 6000]))),
         (W.t0 - timedelta(seconds=1), "+ srun %s--ntasks-per-node=%d --gpus-per-task=1 --cpu-bind=none -o %%j-%%t.out python -u %s --config configs/%s.yaml" % (
             "--kill-on-bad-exit=1 " if sc.kill_on_bad_exit else "", W.gpn, W.script, W.model))]
    B += srun_end_lines(sc, rng, per_task=True)
    first_bad = sorted((sc.fates[r]["t"], r) for r in range(W.world) if sc.fates[r]["kind"] not in ("finish", "sigterm", "silent"))
    launcher_first = bool(first_bad) and first_bad[0][1] == sc.culprit and not sc.sched_end
    B = sort_lines(B)
    files["slurm-%d.out" % jid] = "\n".join(x for _, x in B) + "\n"
    # drain state
    t_dr = sc.t_drain
    drained = []
    dr = drain_reason(sc, rng)
    if dr:
        drained.append((W.nodes[sc.cnode].name, dr[0], t_dr, "root" if dr[0] != "Kill task failed" else "slurm"))
    for d in sc.decoys:
        if d["kind"] == "drain":
            drained.append((d["node"], d["reason"], d["t"], rng.choice(["root", "admin", "slurm"])))
        elif d["kind"] == "xid" and isinstance(d["node"], str) and d["xid"] in (79, 48, 63, 74, 94, 95, 119):
            drained.append((d["node"], "NHC: check_gpu_xid:  Xid %d on GPU 0000:%s:00.0" % (d["xid"], W.P["bus"][d["gpu"]]),
                            d["t"] + timedelta(minutes=rng.uniform(1, 10)), "root"))
    if not any(x[0] in W.spare for x in drained):
        drained.append((rng.choice(W.spare), rng.choice(["Not responding", "reboot requested by admin", "NHC: check_fs_mount:  /scratch not mounted",
                                                       "NHC: check_hw_ib:  No IB port mlx5_%d:1 is ACTIVE (LinkUp %d Gb/sec)." % (rng.randrange(8), W.P["ib_rate"])]),
                        W.t0 - timedelta(hours=rng.uniform(2, 200)), "root"))
    drained.sort(key=lambda x: x[2])
    wide = rng.random() < 0.5
    t_q = sc.t_end + timedelta(minutes=rng.uniform(15, 200))
    if wide:
        S = ['$ sinfo -R -o "%60E %9u %19H %N"', "%-60s %-9s %-19s %s" % ("REASON", "USER", "TIMESTAMP", "NODELIST")]
        for nm, rs, t, u in drained:
            S.append("%-60s %-9s %-19s %s" % (rs[:60], u, iso(loc(t, W.site_tz)), nm))
    else:
        S = ["$ sinfo -R", "%-20s %-9s %-19s %s" % ("REASON", "USER", "TIMESTAMP", "NODELIST")]
        for nm, rs, t, u in drained:
            S.append("%-20s %-9s %-19s %s" % (rs[:20], u, iso(loc(t, W.site_tz)), nm))
    files["sinfo-R.txt"] = "\n".join(S) + "\n"
    SC = []
    for nm, rs, t, u in drained:
        if nm == (W.nodes[sc.cnode].name if sc.cnode is not None else None) or rng.random() < 0.5:
            st = "IDLE+DRAIN" if rs != "Not responding" else "DOWN+DRAIN+NOT_RESPONDING"
            if rs == "Kill task failed":
                st = "DOWN+DRAIN"
            SC.append("$ scontrol show node %s" % nm)
            SC += scontrol_node(sc, rng, nm, st, rs, t, u)
    if SC:
        files["scontrol-show-node.txt"] = "\n".join(SC) + "\n"
    # NHC log of the suspect node (+ one more)
    nn = [sc.cnode] if sc.cnode is not None else [0]
    if W.nn > 1 and rng.random() < 0.5:
        nn.append(rng.choice([i for i in range(W.nn) if i not in nn]))
    for nd in nn:
        fail = dr if (dr and nd == sc.cnode and dr[1]) else None
        files["nhc-%s.log" % W.nodes[nd].name] = "\n".join(nhc_log(sc, rng, nd, fail)) + "\n"
    # sacct
    el = fmt_dur((sc.t_end - W.t0).total_seconds())
    if sc.healthy or (sc.cause == "straggler" and sc.straggle_end == "finish"):
        jst, jec, sst, sec_ = "COMPLETED", "0:0", "COMPLETED", "0:0"
    elif sc.sched_end and sc.sched_end[0] == "preempt":
        jst, jec, sst, sec_ = "PREEMPTED", "0:0", "CANCELLED", "0:15"
    elif sc.sched_end and sc.sched_end[0] == "timelimit":
        jst, jec, sst, sec_ = "TIMEOUT", "0:0", "CANCELLED", "0:15"
    elif sc.sched_end:
        jst, jec, sst, sec_ = "CANCELLED by %d" % rng.randint(1000, 60000), "0:0", "CANCELLED by %d" % rng.randint(1000, 60000), "0:15"
    elif sc.cause == "host_oom_kill" and any(f.get("memcg") == "slurm" for f in sc.facts if f["kind"] == "oom"):
        jst, jec, sst, sec_ = "OUT_OF_MEMORY", "0:125", "OUT_OF_MEMORY", "0:125"
    else:
        ec = exitcode(sc.fates[first_bad[0][1]]) if first_bad else 1
        jst, jec = "FAILED", "1:0"
        sst, sec_ = "FAILED", ("%d:0" % ec) if ec > 0 else "0:%d" % (-ec)
    rows = [("JobID", "JobName", "Partition", "State", "ExitCode", "Elapsed", "NodeList"),
            ("------------", "----------", "----------", "----------", "--------", "----------", "--------------------"),
            ("%d" % jid, W.model[:10], "gpu", jst, jec, el, W.hostlist),
            ("%d.batch" % jid, "batch", "", jst if not jst.startswith("CANCELLED") else "CANCELLED", jec, el, W.nodes[0].name),
            ("%d.extern" % jid, "extern", "", "COMPLETED", "0:0", el, W.hostlist),
            ("%d.0" % jid, "python", "", sst, sec_, el, W.hostlist)]
    files["sacct.txt"] = "$ sacct -j %d --format=JobID,JobName,Partition,State,ExitCode,Elapsed,NodeList\n" % jid + "\n".join(pad_table(rows, " ")) + "\n"
    # extra diagnostics an admin pastes for the suspect node
    diag = []
    if sc.cnode is not None:
        kinds = set(f["kind"] for f in facts_for(sc, sc.cnode, include_decoys=False))
        if kinds & {"oom", "segv", "hung_task", "io_stall", "xid"} and rng.random() < 0.75:
            n = W.nodes[sc.cnode]
            K = ["$ journalctl -k --since '%s' | grep -E -A3 'NVRM|oom-kill|Killed process|segfault|blocked for|nfs:|Lustre|mlx5'" % loc(W.t0, W.site_tz).strftime("%Y-%m-%d %H:%M")]
            pat = re.compile(r"NVRM|oom-kill|Killed process|segfault|blocked for|nfs:|Lustre|mlx5")
            kev = [(t, x) for t, x in kernel_events(sc, rng, sc.cnode) if t >= W.t0 - timedelta(hours=2)]
            keep = set()
            for i, (t, x) in enumerate(kev):
                if pat.search(x):
                    keep.update(range(i, min(len(kev), i + 4)))
            prev = -2
            for i, (t, x) in enumerate(kev):
                if i not in keep:
                    continue
                if prev >= 0 and i != prev + 1:
                    K.append("--")
                prev = i
                K.append("%s %s kernel: %s" % (syslog_ts(loc(t + timedelta(seconds=n.skew), W.site_tz)), n.name, x))
            files["kern-%s.txt" % n.name] = "\n".join(K) + "\n"
            diag.append(sc.cnode)
        if "slow" in kinds or "nvlink_down" in kinds or "ecc" in kinds or "gpu_lost" in kinds or "gpu_reset_required" in kinds:
            if "slow" in kinds or rng.random() < 0.5:
                t_snap = sc.t_end + timedelta(minutes=rng.uniform(5, 60))
                files["nvidia-smi-q-%s.txt" % W.nodes[sc.cnode].name] = "$ nvidia-smi -q\n" + "\n".join(smi_q(sc, rng, sc.cnode, t_snap)) + "\n"
                diag.append(sc.cnode)
        if dr and dr[0].startswith("NHC: check_") and ("GPU" in dr[0] or "Xid" in dr[0] or "mlx5" in dr[0]):
            # the drain reason names a GPU bus id / index
            if sc.cause != "network":
                diag.append(sc.cnode)
    sc.diag_nodes = diag
    vis = set(att)
    ok, why = assess(sc, vis, set(), set(diag), launcher_first=launcher_first)
    sc.rank_ok, sc.rank_why = ok, why
    return files


# --------------------------------------------------------------------------
# layout 4: DeepSpeed-pdsh / mpirun job log + ibstat / ibdiagnet / iblinkinfo / mlx5
# --------------------------------------------------------------------------

def ds_ts(tt, t, nd):
    return "[%s]" % ts_py(tt.lt(t, nd))


def render_ib_job(sc, rng, tt):
    W = sc.W
    L = []
    vis = set(range(W.world))
    agent_vis = set()
    launcher_first = False
    if W.launcher == "deepspeed_pdsh":
        t0 = W.t0
        hosts = ",".join(n.name for n in W.nodes)
        L.append((t0, "%s [INFO] [runner.py:%d:main] cmd = pdsh -S -f 1024 -w %s export PYTHONPATH=%s; export NCCL_IB_HCA=%s; %s cd %s; %s -u -m deepspeed.launcher.launch --world_info=%s --node_rank=%%n --master_addr=%s --master_port=%d %s --deepspeed --deepspeed_config ds_config.json" % (
            ds_ts(tt, t0, 0), rng.choice([568, 607, 620]), hosts, W.workdir, ",".join(W.nodes[0].hcas), ("export NCCL_DEBUG=%s;" % sc.nccl_debug) if sc.nccl_debug else "",
            W.workdir, W.pybin, "eyJ" + hexs(rng, 40), W.nodes[0].ip, 29500, W.script)))
        for nd in range(W.nn):
            n = W.nodes[nd]
            pf = n.name + ": "
            tl = t0 + timedelta(seconds=rng.uniform(1, 4))
            D = []
            D.append((tl, "%s [INFO] [launch.py:146:main] WORLD INFO DICT: {%s}" % (ds_ts(tt, tl, nd), ", ".join("'%s': %s" % (m.name, list(range(W.gpn))) for m in W.nodes[:6]) + (", ..." if W.nn > 6 else ""))))
            D.append((tl, "%s [INFO] [launch.py:152:main] nnodes=%d, num_local_procs=%d, node_rank=%d" % (ds_ts(tt, tl, nd), W.nn, W.gpn, nd)))
            if W.nn <= 8:
                D.append((tl, "%s [INFO] [launch.py:163:main] global_rank_mapping=defaultdict(<class 'list'>, {%s})" % (
                    ds_ts(tt, tl, nd), ", ".join("'%s': %s" % (m.name, [rank_of(W, i, g) for g in range(W.gpn)]) for i, m in enumerate(W.nodes)))))
            D.append((tl, "%s [INFO] [launch.py:164:main] dist_world_size=%d" % (ds_ts(tt, tl, nd), W.world)))
            D.append((tl, "%s [INFO] [launch.py:166:main] Setting CUDA_VISIBLE_DEVICES=%s" % (ds_ts(tt, tl, nd), ",".join(str(g) for g in range(W.gpn)))))
            for g in range(W.gpn):
                r = rank_of(W, nd, g)
                D += worker_lines(tt, sc, rng, r)
                if r == 0:
                    tc = sc.t_ready - timedelta(seconds=5)
                    D.append((tc, "%s [INFO] [comm.py:637:init_distributed] cdb=None" % ds_ts(tt, tc, nd)))
                    D.append((tc, "%s [INFO] [comm.py:668:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl" % ds_ts(tt, tc, nd)))
            oc = node_outcome(sc, nd)
            if oc["kind"] == "child_failed":
                tk = oc["t"] + timedelta(seconds=rng.uniform(0.2, 2))
                first = oc["first"]
                for g in range(W.gpn):
                    D.append((tk, "%s [INFO] [launch.py:%d:sigkill_handler] Killing subprocess %d" % (ds_ts(tt, tk, nd), sc.ds_ln[0], n.pids[g])))
                D.append((tk + timedelta(seconds=1), "%s [ERROR] [launch.py:%d:sigkill_handler] ['%s', '-u', '%s', '--local_rank=%d', '--deepspeed', '--deepspeed_config', 'ds_config.json'] exits with return code = %d" % (
                    ds_ts(tt, tk, nd), sc.ds_ln[1], W.pybin, W.script, first % W.gpn, exitcode(sc.fates[first]))))
                agent_vis.add(nd)
                L.append((tk + timedelta(seconds=1.5), "pdsh@%s: %s: ssh exited with exit code 1" % (W.nodes[0].name, n.name)))
            elif oc["kind"] == "sigterm":
                tk = oc["t"]
                D.append((tk, "%s [INFO] [launch.py:%d:sigkill_handler] Main process received SIGTERM, exiting" % (ds_ts(tt, tk, nd), rng.choice([301, 305]))))
            else:
                tk = oc["t"]
            for t, x in D:
                L.append((t, pf + x))
        if sc.sched_end:
            L += srun_end_lines(sc, rng)
    else:
        # mpirun --tag-output, one process per GPU, rank from OMPI_COMM_WORLD_RANK
        jobfam = rng.randint(10000, 65000)
        t0 = W.t0
        L.append((t0 - timedelta(seconds=1), "+ mpirun -np %d --hostfile hosts.txt --map-by ppr:%d:node --bind-to none --tag-output -x NCCL_DEBUG%s -x NCCL_IB_HCA -x LD_LIBRARY_PATH -x PATH %s -u %s --config configs/%s.yaml" % (
            W.world, W.gpn, ("=" + sc.nccl_debug) if sc.nccl_debug else "", W.pybin, W.script, W.model)))
        for r in range(W.world):
            for t, x, st in worker_lines(tt, sc, rng, r, streams=True):
                tag = "[1,%d]<stderr>:" % r if st == "E" else "[1,%d]<stdout>:" % r
                L.append((t, tag + x))
        bad = sorted((sc.fates[r]["t"], r) for r in range(W.world) if sc.fates[r]["kind"] not in ("finish", "sigterm", "silent"))
        if sc.sched_end:
            L += srun_end_lines(sc, rng)
        elif bad:
            t, r = bad[0]
            f = sc.fates[r]
            ec = exitcode(f)
            tb = t + timedelta(seconds=rng.uniform(0.5, 3))
            box = ["--------------------------------------------------------------------------"]
            if ec > 0:
                box += ["Primary job  terminated normally, but 1 process returned",
                        "a non-zero exit code. Per user-direction, the job has been aborted.",
                        "--------------------------------------------------------------------------",
                        "--------------------------------------------------------------------------",
                        "mpirun detected that one or more processes exited with non-zero status, thus causing",
                        "the job to be terminated. The first process to do so was:", "",
                        "  Process name: [[%d,1],%d]" % (jobfam, r),
                        "  Exit code:    %d" % ec]
            else:
                sn = {6: "Aborted", 9: "Killed", 11: "Segmentation fault", 7: "Bus error", 15: "Terminated"}[-ec]
                box += ["mpirun noticed that process rank %d with PID %d on node %s exited on signal %d (%s)." % (
                    r, node_of(W, r).pids[local_of(W, r)], node_of(W, r).name, -ec, sn)]
            box.append("--------------------------------------------------------------------------")
            for x in box:
                L.append((tb, x))
            launcher_first = r == sc.culprit
    return sort_lines(L), vis, agent_vis, launcher_first


def ibstat_text(sc, rng, nd):
    W = sc.W
    n = W.nodes[nd]
    P = W.P
    bad = {}
    for f in facts_for(sc, nd):
        if f["kind"] == "ib" and not f.get("old"):
            bad[f["gpu"]] = f["mode"]
    L = []
    for g in range(W.gpn):
        mode = bad.get(g)
        L += ["CA '%s'" % n.hcas[g],
              "\tCA type: %s" % P["ca"],
              "\tNumber of ports: 1",
              "\tFirmware version: %s" % P["fw"],
              "\tHardware version: 0",
              "\tNode GUID: %s" % n.guids[g],
              "\tSystem image GUID: %s" % n.guids[g],
              "\tPort 1:"]
        if mode == "down":
            L += ["\t\tState: Down", "\t\tPhysical state: Polling", "\t\tRate: 10"]
        elif mode == "health":
            L += ["\t\tState: Down", "\t\tPhysical state: Disabled", "\t\tRate: 10"]
        else:
            L += ["\t\tState: Active", "\t\tPhysical state: LinkUp", "\t\tRate: %d" % P["ib_rate"]]
        L += ["\t\tBase lid: %d" % n.lids[g], "\t\tLMC: 0", "\t\tSM lid: 1",
              "\t\tCapability mask: 0xa751e848", "\t\tPort GUID: %s" % n.guids[g], "\t\tLink layer: InfiniBand"]
    return L


def ibdiag_text(sc, rng):
    W = sc.W
    nsw = max(2, (W.nn + len(W.spare)) // 8 + 2 + (W.nn + 31) // 32)
    nca = (W.nn + len(W.spare)) * W.gpn + rng.randint(2, 6)
    t = sc.t_end + timedelta(minutes=rng.uniform(20, 300))
    L = ["Load Plugins from:", "/usr/share/ibdiagnet2.1.1/plugins/",
         "(You can specify more paths to be looked in with \"IBDIAGNET_PLUGINS_PATH\" env variable)", "",
         "Plugin Name                                   Result     Comment",
         "libibdiagnet_cable_diag_plugin-2.1.1          Succeeded  Plugin loaded",
         "libibdiagnet_phy_diag_plugin-2.1.1            Succeeded  Plugin loaded", "",
         "---------------------------------------------", "Discovery",
         "-I- Discovering ... %d nodes (%d Switches & %d CA-s) discovered." % (nsw + nca, nsw, nca),
         "-I- Fabric Discover finished successfully", "",
         "-I- Discovering ... %d nodes (%d Switches & %d CA-s) discovered." % (nsw + nca, nsw, nca),
         "-I- Discovery finished successfully", "",
         "-I- Duplicated GUIDs detection finished successfully", "",
         "-I- Duplicated Node Description detection finished successfully", "",
         "---------------------------------------------", "Lids Check", "-I- Lids Check finished successfully", "",
         "---------------------------------------------", "Links Check"]
    errs = []
    warn = []
    link_errs = []
    for f in sc.facts:
        if f["kind"] == "ib":
            n = W.nodes[f["node"]]
            nm = "%s %s/U1/P1" % (n.name, n.hcas[f["gpu"]])
            if f["mode"] in ("down", "health"):
                link_errs.append("-E- Link is DOWN: %s <--> %s/P%d" % (nm, sc.leaf_of(f["node"]), 1 + f["gpu"] * 2 + (f["node"] % 2)))
            errs.append((n.lids[f["gpu"]], nm, f["link_downed"], f["symbol"], f["rcv_err"]))
    if sc.fabric_wide:
        sp = "MF0;spine%02d:MQM9790/U1" % rng.randint(1, 8)
        lf = sc.leaf_of(rng.randrange(W.nn))
        link_errs.append("-E- Link is DOWN: %s/P%d <--> %s/P%d" % (lf, rng.randint(33, 64), sp, rng.randint(1, 64)))
        for _ in range(rng.randint(1, 3)):
            errs.append((rng.randint(1, 40), "%s/P%d" % (sc.leaf_of(rng.randrange(W.nn)), rng.randint(33, 64)), rng.randint(3, 40), rng.randint(1000, 900000), rng.randint(100, 5000)))
    for d in sc.decoys:
        if d["kind"] == "ib_symbol":
            nm = d["node"] if isinstance(d["node"], str) else W.nodes[d["node"]].name
            warn.append((rng.randint(20, 3000), "%s mlx5_%d/U1/P1" % (nm, d["gpu"]), d["link_downed"], d["symbol"], 0))
    if link_errs:
        L.append("-E- Links Check finished with errors")
        L += link_errs
    else:
        L.append("-I- Links Check finished successfully")
    L += ["", "---------------------------------------------", "Subnet Manager",
          "-I- SM Info retrieving finished successfully", "", "-I- Subnet Manager Check finished successfully", "",
          "---------------------------------------------", "Port Counters",
          "-I- Retrieving ... %d/%d nodes (%d/%d Switches & %d/%d CA-s) retrieved." % (nsw + nca, nsw + nca, nsw, nsw, nca, nca),
          "-I- Ports counters retrieving finished successfully"]
    allc = errs + warn
    if allc:
        L.append("-E- Ports counters value Check finished with errors" if errs else "-W- Ports counters value Check finished with warnings")
        for lid, nm, ld, sym, rcv in allc:
            L.append("-%s- lid=0x%04x dev=%s %s" % ("E" if (lid, nm, ld, sym, rcv) in errs else "W", lid,
                                                  W.P["ca"][2:] if "/U1/P1" in nm and " " in nm else "54002", nm))
            L.append("        Performance Monitor counter     : Value           ")
            if ld:
                L.append("        link_downed_counter             : %-8d (threshold=1)" % ld)
            L.append("        symbol_error_counter            : %-8d (threshold=1)" % sym)
            if rcv:
                L.append("        port_rcv_errors                 : %-8d (threshold=1)" % rcv)
    else:
        L.append("-I- Ports counters value Check finished successfully")
    L += ["", "-I- Ports counters Difference Check (during run) finished successfully", "",
          "---------------------------------------------", "Summary",
          "-I- Stage                     Warnings   Errors     Comment   "]
    stages = [("Discovery", 0, 0), ("Lids Check", 0, 0), ("Links Check", 0, len(link_errs)), ("Subnet Manager", 0, 0),
              ("Port Counters", len(warn), len(errs)), ("Nodes Information", 0, 0), ("Speed / Width checks", 0, 0),
              ("Partition Keys", 0, 0), ("Alias GUIDs", 0, 0), ("Temperature Sensing", 0, 0)]
    for nm, w, e in stages:
        L.append("-I- %-25s %-10d %-10d " % (nm, w, e))
    L += ["", "-I- You can find detailed errors/warnings in: /var/tmp/ibdiagnet2/ibdiagnet2.log", ""]
    return ["$ ibdiagnet --pc -P all=1 --get_cable_info   (%s)" % iso(loc(t, W.site_tz))] + L


def iblinkinfo_text(sc, rng, nd):
    W = sc.W
    n = W.nodes[nd]
    bad = {f["gpu"]: f["mode"] for f in facts_for(sc, nd) if f["kind"] == "ib"}
    leaf = sc.leaf_of(nd)
    L = ["Switch: 0x%s %s:" % (sc.leaf_guid(nd), leaf)]
    for g in range(W.gpn):
        port = 1 + g * 2 + (nd % 2)
        rate = {400: "106.25 Gbps", 200: "53.125 Gbps"}[W.P["ib_rate"]]
        if bad.get(g) in ("down", "health"):
            L.append("%11d %4d[  ] ==(                Down/ Polling)==>             [  ] \"\" ( )" % (sc.leaf_lid(nd), port))
        else:
            L.append("%11d %4d[  ] ==( 4X      %s Active/  LinkUp)==>  %8d    1[  ] \"%s %s\" ( )" % (
                sc.leaf_lid(nd), port, rate, n.lids[g], n.name, n.hcas[g]))
    return L


def render_ib(sc, rng):
    W = sc.W
    tt = TT(sc, rng)
    files = {}
    sc.leaf_of = lambda nd: "MF0;leaf%02d:MQM%d/U1" % (3 + nd // 8, 9700 if W.P["ib_rate"] == 400 else 8700)
    sc.leaf_guid = lambda nd: "%s%06x" % ("fc6a1c0300", 0x1a2b00 + nd // 8)
    sc.leaf_lid = lambda nd: 20 + nd // 8
    L, vis, agent_vis, lfirst = render_ib_job(sc, rng, tt)
    txt = [x for _, x in L]
    txt, cut = truncate_text(txt, 780000)
    if cut and sc.cnode is not None:
        sc.notes.append("job log truncated in the middle")
        vis = set(r for r in vis if r // W.gpn != sc.cnode)
        agent_vis = set(x for x in agent_vis if x != sc.cnode)
        lfirst = False
    files["train.log" if W.launcher == "deepspeed_pdsh" else "mpirun.log"] = "\n".join(txt) + "\n"
    # diagnostics
    dn = []
    if sc.cnode is not None:
        dn.append(sc.cnode)
    else:
        dn.append(primary_diag_node(sc, rng))
    if W.nn > 1:
        o = [i for i in range(W.nn) if i not in dn]
        dec = [d["node"] for d in sc.decoys if isinstance(d.get("node"), int) and d["node"] in o]
        dn.append(dec[0] if dec else rng.choice(o))
    for nd in dn:
        files["ibstat-%s.txt" % W.nodes[nd].name] = "$ ibstat\n" + "\n".join(ibstat_text(sc, rng, nd)) + "\n"
    files["ibdiagnet2.log"] = "\n".join(ibdiag_text(sc, rng)) + "\n"
    IL = ["$ iblinkinfo --switches-only -l | grep -A%d leaf" % W.gpn]
    for nd in dn:
        IL += iblinkinfo_text(sc, rng, nd)
    files["iblinkinfo.txt"] = "\n".join(IL) + "\n"
    for nd in dn:
        n = W.nodes[nd]
        K = ["$ journalctl -k -o short --since '%s' | grep -Ei 'mlx5|NVRM|oom|segfault|blocked for|nfs|Lustre|AER|Killed process'" % loc(W.t0 - timedelta(days=1), W.site_tz).strftime("%Y-%m-%d %H:%M")]
        pat = re.compile(r"mlx5|NVRM|oom|segfault|blocked for|nfs|Lustre|AER|Killed process", re.I)
        for t, x in kernel_events(sc, rng, nd):
            if t < W.t0 - timedelta(days=1) or t > sc.t_end + timedelta(hours=2) or not pat.search(x):
                continue
            K.append("%s %s kernel: %s" % (syslog_ts(loc(t + timedelta(seconds=n.skew), W.site_tz)), n.name, x))
        if len(K) == 1:
            K.append("-- No entries --")
        files["kern-%s.log" % n.name] = "\n".join(K) + "\n"
    sc.diag_nodes = dn
    ok, why = assess(sc, vis, agent_vis, set(dn), launcher_first=lfirst,
                     pid_map_extra=(W.launcher == "deepspeed_pdsh" and sc.cnode in agent_vis))
    sc.rank_ok, sc.rank_why = ok, why
    return files


# --------------------------------------------------------------------------
# layout 5: torchrun logs + gpud events + nvidia-smi
# --------------------------------------------------------------------------

XID_TYPE = {79: "Fatal", 48: "Fatal", 74: "Fatal", 95: "Fatal", 119: "Fatal", 120: "Fatal", 62: "Fatal", 64: "Fatal",
            94: "Critical", 63: "Critical", 154: "Critical", 92: "Warning", 109: "Critical",
            13: "Warning", 31: "Warning", 43: "Warning", 45: "Warning"}


def gpud_events(sc, rng, nd, t_q):
    W = sc.W
    n = W.nodes[nd]
    start = t_q - timedelta(days=rng.choice([1, 3, 7]))
    comps = {}

    def add(comp, t, name, typ, msg, extra=None):
        if t < start or t > t_q:
            return
        ev = {"component": comp, "time": rfc3339(t), "name": name, "type": typ, "message": msg}
        if extra:
            ev["extra_info"] = extra
        comps.setdefault(comp, []).append((t, ev))

    for f in facts_for(sc, nd):
        k = f["kind"]
        if k == "xid":
            g = f["gpu"]
            pci = "PCI:" + n.bus[g][:-2]
            desc = XID_NAME.get(f["xid"], "unknown")
            data = {"time": rfc3339(f["t"]), "data_source": "kmsg", "device_uuid": pci, "xid": f["xid"],
                    "description": desc}
            add("accelerator-nvidia-error-xid", f["t"], "error_xid", XID_TYPE.get(f["xid"], "Warning"),
                "XID %d(%s) detected on %s" % (f["xid"], desc, pci), {"data": json.dumps(data, sort_keys=True), "device_uuid": pci})
        elif k == "ecc" and f["pending"]:
            g = f["gpu"]
            add("accelerator-nvidia-remapped-rows", f["t"] + timedelta(seconds=rng.uniform(10, 60)), "row_remapping_pending", "Critical",
                "%s (%s) row remapping pending, %d uncorrectable rows -- GPU reset required" % (n.uuids[g], n.bus[g], f["remap_unc"]))
        elif k == "gpu_lost":
            add("accelerator-nvidia-gpu-counts", f["t"] + timedelta(seconds=rng.uniform(20, 90)), "gpu_count_mismatch", "Critical",
                "nvidia gpu count mismatch (found %d, expected %d)" % (W.gpn - 1, W.gpn))
        elif k == "nvlink_down":
            g = f["gpu"]
            add("accelerator-nvidia-nvlink", f["t"] + timedelta(seconds=rng.uniform(5, 60)), "nvlink_down", "Critical",
                "%s (%s) nvlink %d inactive (%d/%d links up)" % (n.uuids[g], n.bus[g], f["link"], W.P["nvl"] - 1, W.P["nvl"]))
        elif k == "ib":
            hca = n.hcas[f["gpu"]]
            if f["mode"] == "flap":
                add("accelerator-nvidia-infiniband", f["t"], "ib_port_flap", "Warning",
                    "%s port 1 flapped %d times in the last 4h (down -> up)" % (hca, f["link_downed"]))
            else:
                add("accelerator-nvidia-infiniband", f["t"], "ib_port_drop", "Critical",
                    "%s port 1 is down (state Down, phys state %s) since %s" % (hca, "Polling" if f["mode"] == "down" else "Disabled", rfc3339(f["t"])))
        elif k == "oom":
            add("memory", f["t"], "oom_kill_constraint", "Warning", "oom kill constraint: Killed process %d (%s)" % (f["pid"], f["pname"]))
        elif k == "old_oom":
            add("memory", f["t"], "oom_kill_constraint", "Warning", "oom kill constraint: Killed process %d (%s)" % (f["pid"], f["pname"]))
        elif k == "slow":
            g = f["gpu"]
            if f["why"] == "pcie":
                continue
            rs = {"thermal": "HW Slowdown, HW Thermal Slowdown, SW Thermal Slowdown", "hw_slowdown": "HW Slowdown",
                  "power_brake": "HW Slowdown, HW Power Brake Slowdown"}[f["why"]]
            t = f["t"]
            for j in range(rng.randint(2, 5)):
                add("accelerator-nvidia-hw-slowdown", t, "hw_slowdown", "Warning",
                    "%s clock event reasons: %s (SM clock %d MHz)" % (n.uuids[g], rs, f["clk"]))
                t += timedelta(minutes=rng.uniform(5, 90))
                if t > sc.t_end:
                    break
        elif k == "cable_plug":
            pass
    # old reboot event
    if rng.random() < 0.5:
        add("os", t_q - timedelta(hours=rng.uniform(1, 140)) if rng.random() < 0.2 else start + timedelta(minutes=rng.uniform(1, 60)),
            "reboot", "Warning", "system reboot detected %s" % rfc3339(start))
    for comp in ("accelerator-nvidia-error-xid", "accelerator-nvidia-remapped-rows", "accelerator-nvidia-infiniband", "os"):
        comps.setdefault(comp, [])
    out = []
    for comp in sorted(comps):
        evs = [e for _, e in sorted(comps[comp], key=lambda x: x[0])]
        out.append({"component": comp, "startTime": rfc3339(start), "endTime": rfc3339(t_q), "events": evs})
    return out


def gpud_states(sc, rng, nd, t_q):
    W = sc.W
    n = W.nodes[nd]
    comps = ["accelerator-nvidia-error-xid", "accelerator-nvidia-ecc", "accelerator-nvidia-remapped-rows",
             "accelerator-nvidia-nvlink", "accelerator-nvidia-infiniband", "accelerator-nvidia-hw-slowdown",
             "accelerator-nvidia-temperature", "accelerator-nvidia-gpu-counts", "cpu", "disk", "memory", "os"]
    bad = {}
    for f in facts_for(sc, nd, include_decoys=False):
        k = f["kind"]
        if k == "xid" and XID_TYPE.get(f["xid"]) in ("Fatal", "Critical"):
            bad["accelerator-nvidia-error-xid"] = ("Unhealthy", "XID %d(%s) detected on PCI:%s" % (f["xid"], XID_NAME.get(f["xid"]), n.bus[f["gpu"]][:-2]),
                                                   ["REBOOT_SYSTEM"] if f["xid"] in (119, 120, 154, 94) else ["HARDWARE_INSPECTION"])
        elif k == "ecc":
            bad["accelerator-nvidia-remapped-rows"] = ("Unhealthy", "%s needs reset (pending remapping)" % n.uuids[f["gpu"]], ["REBOOT_SYSTEM"])
        elif k == "nvlink_down":
            bad["accelerator-nvidia-nvlink"] = ("Unhealthy", "%s nvlink %d inactive" % (n.uuids[f["gpu"]], f["link"]), ["HARDWARE_INSPECTION"])
        elif k == "ib":
            bad["accelerator-nvidia-infiniband"] = ("Unhealthy", "only %d port(s) are active and >=%dGb/s, expect %d port(s)" % (W.gpn - 1, W.P["ib_rate"], W.gpn), ["HARDWARE_INSPECTION"])
        elif k == "gpu_lost":
            bad["accelerator-nvidia-gpu-counts"] = ("Unhealthy", "nvidia gpu count mismatch (found %d, expected %d)" % (W.gpn - 1, W.gpn), ["REBOOT_SYSTEM"])
        elif k == "slow" and f["why"] != "pcie":
            bad["accelerator-nvidia-hw-slowdown"] = ("Unhealthy", "hw slowdown events frequency per minute %.2f (threshold 0.60) for the last 10m0s" % rng.uniform(0.7, 4), ["HARDWARE_INSPECTION"])
        elif k == "hung_task":
            bad["os"] = ("Degraded", "1 blocked (D state) process(es) found: %d (%s)" % (f["pid"], f.get("pname", "python")), None)
    out = []
    for c in comps:
        h, reason, act = bad.get(c, ("Healthy", "ok" if c != "accelerator-nvidia-error-xid" else "matched 0 xid errors", None))
        st = {"time": rfc3339(t_q), "component": c, "name": c, "health": h, "reason": reason}
        if act:
            st["suggested_actions"] = {"description": "", "repair_actions": act}
        out.append({"component": c, "states": [st]})
    return out


def render_gpud(sc, rng):
    W = sc.W
    tt = TT(sc, rng)
    files = {}
    if W.nn <= 4:
        att = list(range(W.nn))
    else:
        att = [0]
        if sc.cnode is not None and rng.random() < 0.8:
            att.append(sc.cnode)
        for nd in rng.sample(range(W.nn), min(W.nn, rng.randint(1, 3))):
            if nd not in att:
                att.append(nd)
    if sc.omit_culprit_log and sc.cnode in att and len(att) > 1:
        att.remove(sc.cnode)
    att.sort()
    vis = set()
    for nd in att:
        n = W.nodes[nd]
        L = [x for _, x in node_job_lines(tt, sc, rng, nd)]
        L, _ = truncate_text(L, 600000)
        files["logs/torchrun-%s.log" % n.name] = "\n".join(L) + "\n"
        vis.update(rank_of(W, nd, g) for g in range(W.gpn))
    dn = []
    if sc.cnode is not None:
        dn.append(sc.cnode)
    else:
        dn.append(primary_diag_node(sc, rng))
    if W.nn > 1:
        o = [i for i in range(W.nn) if i not in dn]
        dec = [d["node"] for d in sc.decoys if isinstance(d.get("node"), int) and d["node"] in o]
        if dec:
            dn.append(dec[0])
        elif rng.random() < 0.5:
            dn.append(rng.choice(o))
    t_q = sc.t_end + timedelta(minutes=rng.uniform(10, 180))
    for nd in dn:
        n = W.nodes[nd]
        files["gpud/%s-events.json" % n.name] = json.dumps(gpud_events(sc, rng, nd, t_q), indent=2, sort_keys=False) + "\n"
        if nd == dn[0] or rng.random() < 0.5:
            files["gpud/%s-states.json" % n.name] = json.dumps(gpud_states(sc, rng, nd, t_q), indent=2) + "\n"
        K = []
        kev = kernel_events(sc, rng, nd) + kernel_noise(rng, W, nd, t_q - timedelta(days=2), t_q, rng.randint(4, 10))
        kev.sort(key=lambda x: x[0])
        for t, x in kev:
            if t < t_q - timedelta(days=3) or t > t_q:
                continue
            lt = loc(t + timedelta(seconds=n.skew), W.site_tz)
            K.append("[%s] %s" % (lt.strftime("%a %b ") + ("%2d" % lt.day) + lt.strftime(" %H:%M:%S %Y"), x))
        files["kmsg/%s-dmesg-T.txt" % n.name] = "$ dmesg -T | tail -n 400\n" + ("\n".join(K) if K else "") + "\n"
        files["nvidia-smi/%s.txt" % n.name] = "$ nvidia-smi\n" + "\n".join(smi_table(sc, rng, nd, t_q)) + "\n"
    sc.diag_nodes = dn
    pid_extra = any(gpu_state(sc, sc.cnode, g)["stuck_pid"] for g in range(W.gpn)) if sc.cnode is not None and sc.cnode in dn else False
    ok, why = assess(sc, vis, set(att), set(dn), pid_map_extra=pid_extra,
                     node_rank_known=(sc.cnode in att) if sc.cnode is not None else True)
    sc.rank_ok, sc.rank_why = ok, why
    return files


# --------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------

RENDER = {"nvbugreport": None, "dcgm_diag": None, "slurm_drain": None, "ib_diag": None, "gpud_events": None}


def make_plan(n, seed):
    rng = random.Random("plan:%s" % seed)
    causes = CAUSES[:]
    rng.shuffle(causes)
    plan = []
    block = []
    ci = 0
    for i in range(n):
        if not block:
            block = LAYOUTS[:]
            rng.shuffle(block)
        layout = block.pop(0)
        if i % 7 == 3:
            cause = None
        else:
            cause = causes[ci % len(causes)]
            ci += 1
        plan.append((i, cause, layout))
    return plan


def render_bugreport_with_assess(sc, rng):
    files = render_nvbugreport(sc, rng)
    W = sc.W
    if getattr(sc, "truncated", False) and sc.cnode is not None:
        vis = set(r for r in range(W.world) if r // W.gpn != sc.cnode)
        avis = set(i for i in range(W.nn) if i != sc.cnode)
    else:
        vis, avis = set(range(W.world)), set(range(W.nn))
    ok, why = assess(sc, vis, avis, set(sc.diag_nodes))
    sc.rank_ok, sc.rank_why = ok, why
    return files


def generate(out, n, seed):
    os.makedirs(out, exist_ok=True)
    RENDER.update({"nvbugreport": render_bugreport_with_assess, "dcgm_diag": render_dcgm,
                   "slurm_drain": render_slurm_drain, "ib_diag": render_ib, "gpud_events": render_gpud})
    counts = {}
    for i, cause, layout in make_plan(n, seed):
        rng = random.Random("run:%s:%d" % (seed, i))
        W = make_world(rng, layout, cause)
        sc = build_scenario(rng, W, cause, layout)
        finalize(rng, sc)
        sc.truncated = False
        files = RENDER[layout](sc, rng)
        spelling = W.nodes[sc.cnode].name if sc.cnode is not None else None
        extra_alias = []
        if layout == "dcgm_diag" and sc.cnode is not None:
            extra_alias = [W.nodes[sc.cnode].pod]
        truth = make_truth(sc, layout, spelling, extra_alias)
        total = sum(len(v.encode("utf-8")) for v in files.values())
        while total > 990000:
            big = max(sorted(files), key=lambda k: len(files[k]))
            lines = files[big].split("\n")
            lines, _ = truncate_text(lines, int(len(files[big]) * 0.8))
            files[big] = "\n".join(lines)
            total = sum(len(v.encode("utf-8")) for v in files.values())
            truth["notes"] += "; %s truncated to fit 1 MB" % big
        d = os.path.join(out, "run-%03d-%s" % (i, layout))
        os.makedirs(d, exist_ok=True)
        for name in sorted(files):
            p = os.path.join(d, name)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as fh:
                fh.write(files[name])
        with open(os.path.join(d, "truth.json"), "w") as fh:
            json.dump(truth, fh, indent=2)
            fh.write("\n")
        key = cause if cause else "healthy"
        counts[key] = counts.get(key, 0) + 1
    print(json.dumps(dict(sorted(counts.items())), indent=None))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args(argv)
    generate(a.out, a.n, a.seed)


if __name__ == "__main__":
    main()
