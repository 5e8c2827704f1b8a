#!/usr/bin/env python3
"""blind39 - synthetic log bundles of failed / healthy distributed GPU training jobs.

Theme: WORDING ACROSS VERSIONS (2018 .. 2026).  Every run is generated against ONE
consistent version set (torch / python / CUDA / NCCL / driver / kernel / slurm /
launcher-library) and all message formats in that run follow that set.

Written blind: formats come from memory of what the real programs print, spot-checked
against public pasted logs.  Standard library only.

    python3 gen_blind39.py --out DIR --n 60 --seed S
"""
import argparse
import base64
import datetime as _dt
import json
import os
import random
import sys

CAUSES = [
    "gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
    "illegal_memory_access", "python_exception", "host_oom_kill", "crash_signal",
    "preemption", "hang", "data_loader_stall", "collective_mismatch", "straggler",
    "unknown",
]
LAYOUTS = [
    "legacy_launch", "elastic_slurm", "elastic_logdir", "deepspeed_pdsh",
    "accelerate_k8s", "lightning_slurm",
]


def V(s):
    out = []
    for x in str(s).split("."):
        d = "".join(ch for ch in x if ch.isdigit())
        if d == "":
            break
        out.append(int(d))
    return tuple(out)


# --------------------------------------------------------------------------------------
# version catalogue
# --------------------------------------------------------------------------------------
# torch version, year it was typically in use, cuda builds, bundled NCCL, pythons
TORCH_CAT = [
    ("1.0.1", 2019, ["10.0"], "2.3.7", ["2.7", "3.6"]),
    ("1.1.0", 2019, ["10.0"], "2.4.2", ["2.7", "3.6", "3.7"]),
    ("1.2.0", 2019, ["10.0"], "2.4.8", ["3.6", "3.7"]),
    ("1.3.1", 2019, ["10.1"], "2.4.8", ["3.6", "3.7"]),
    ("1.4.0", 2020, ["10.1"], "2.4.8", ["3.6", "3.7"]),
    ("1.5.1", 2020, ["10.1", "10.2"], "2.4.8", ["3.7", "3.8"]),
    ("1.6.0", 2020, ["10.2"], "2.4.8", ["3.7", "3.8"]),
    ("1.7.1", 2020, ["10.2", "11.0"], "2.7.8", ["3.7", "3.8"]),
    ("1.8.1", 2021, ["10.2", "11.1"], "2.7.8", ["3.7", "3.8"]),
    ("1.9.0", 2021, ["10.2", "11.1"], "2.7.8", ["3.8"]),
    ("1.10.1", 2021, ["11.3"], "2.10.3", ["3.8", "3.9"]),
    ("1.11.0", 2022, ["11.3"], "2.10.3", ["3.8", "3.9"]),
    ("1.12.1", 2022, ["11.3", "11.6"], "2.10.3", ["3.8", "3.9", "3.10"]),
    ("1.13.1", 2023, ["11.6", "11.7"], "2.14.3", ["3.8", "3.9", "3.10"]),
    ("2.0.1", 2023, ["11.7", "11.8"], "2.14.3", ["3.9", "3.10"]),
    ("2.1.2", 2023, ["11.8", "12.1"], "2.18.1", ["3.10", "3.11"]),
    ("2.2.2", 2024, ["12.1"], "2.19.3", ["3.10", "3.11"]),
    ("2.3.1", 2024, ["12.1"], "2.20.5", ["3.10", "3.11"]),
    ("2.4.1", 2024, ["12.1", "12.4"], "2.20.5", ["3.10", "3.11", "3.12"]),
    ("2.5.1", 2025, ["12.4"], "2.21.5", ["3.11", "3.12"]),
    ("2.6.0", 2025, ["12.4", "12.6"], "2.21.5", ["3.11", "3.12"]),
    ("2.7.1", 2025, ["12.6", "12.8"], "2.26.2", ["3.11", "3.12"]),
    ("2.8.0", 2025, ["12.8", "12.9"], "2.27.3", ["3.12"]),
    ("2.9.1", 2026, ["12.8", "13.0"], "2.27.5", ["3.12", "3.13"]),
]

LAYOUT_TORCH = {
    "legacy_launch": ("1.0.1", "1.8.1"),
    "elastic_slurm": ("1.9.0", "2.9.1"),
    "elastic_logdir": ("1.10.1", "2.9.1"),
    "deepspeed_pdsh": ("1.5.1", "2.8.0"),
    "accelerate_k8s": ("1.9.0", "2.9.1"),
    "lightning_slurm": ("1.4.0", "2.7.1"),
}

# driver, max cuda it supports, year
DRIVERS = [
    ("410.79", "10.0", 2018), ("410.104", "10.0", 2019), ("418.67", "10.1", 2019),
    ("418.87.01", "10.1", 2019), ("440.33.01", "10.2", 2019), ("440.64.00", "10.2", 2020),
    ("450.51.06", "11.0", 2020), ("450.80.02", "11.0", 2020), ("460.32.03", "11.2", 2021),
    ("460.73.01", "11.2", 2021), ("470.57.02", "11.4", 2021), ("470.82.01", "11.4", 2022),
    ("510.47.03", "11.6", 2022), ("515.65.01", "11.7", 2022), ("525.85.12", "12.0", 2023),
    ("530.30.02", "12.1", 2023), ("535.104.05", "12.2", 2023), ("535.161.08", "12.2", 2024),
    ("550.54.15", "12.4", 2024), ("550.127.05", "12.4", 2024), ("560.35.03", "12.6", 2024),
    ("570.86.15", "12.8", 2025), ("570.133.20", "12.8", 2025), ("575.57.08", "12.9", 2025),
    ("580.65.06", "13.0", 2025), ("580.95.05", "13.0", 2026),
]

OS_BY_YEAR = {
    2018: [("Ubuntu 16.04", "4.4.0-142-generic"), ("Ubuntu 18.04", "4.15.0-45-generic"),
           ("CentOS 7", "3.10.0-957.21.3.el7.x86_64")],
    2019: [("Ubuntu 18.04", "4.15.0-66-generic"), ("CentOS 7", "3.10.0-1062.4.1.el7.x86_64"),
           ("Ubuntu 16.04", "4.4.0-170-generic")],
    2020: [("Ubuntu 18.04", "4.15.0-112-generic"), ("Ubuntu 20.04", "5.4.0-42-generic"),
           ("CentOS 7", "3.10.0-1127.19.1.el7.x86_64")],
    2021: [("Ubuntu 20.04", "5.4.0-81-generic"), ("CentOS 7", "3.10.0-1160.25.1.el7.x86_64")],
    2022: [("Ubuntu 20.04", "5.4.0-125-generic"), ("Ubuntu 22.04", "5.15.0-52-generic"),
           ("Rocky 8", "4.18.0-372.9.1.el8_6.x86_64")],
    2023: [("Ubuntu 22.04", "5.15.0-86-generic"), ("Rocky 8", "4.18.0-477.10.1.el8_8.x86_64")],
    2024: [("Ubuntu 22.04", "5.15.0-107-generic"), ("Ubuntu 22.04", "6.5.0-35-generic"),
           ("Rocky 9", "5.14.0-362.24.1.el9_3.x86_64"), ("Ubuntu 24.04", "6.8.0-45-generic")],
    2025: [("Ubuntu 24.04", "6.8.0-60-generic"), ("Ubuntu 22.04", "5.15.0-140-generic"),
           ("Rocky 9", "5.14.0-503.14.1.el9_5.x86_64")],
    2026: [("Ubuntu 24.04", "6.8.0-90-generic"), ("Rocky 9", "5.14.0-570.22.1.el9_6.x86_64")],
}

SLURM_BY_YEAR = {2018: ["17.11.7"], 2019: ["18.08.8", "19.05.3"], 2020: ["19.05.7", "20.02.5"],
                 2021: ["20.11.7", "21.08.1"], 2022: ["21.08.8", "22.05.3"],
                 2023: ["22.05.9", "23.02.4"], 2024: ["23.02.7", "23.11.6", "24.05.1"],
                 2025: ["24.05.5", "24.11.1"], 2026: ["24.11.5", "25.05.2"]}

# (name, total GiB as torch reports, pci bus list, has nvswitch)
GPU_BY_YEAR = {
    2018: [("Tesla V100-SXM2-16GB", 15.78, "dgx1"), ("Tesla V100-SXM2-32GB", 31.75, "dgx1")],
    2019: [("Tesla V100-SXM2-32GB", 31.75, "dgx1"), ("Tesla V100-SXM2-16GB", 15.78, "dgx1")],
    2020: [("Tesla V100-SXM2-32GB", 31.75, "dgx1"), ("A100-SXM4-40GB", 39.59, "dgxa100")],
    2021: [("A100-SXM4-40GB", 39.59, "dgxa100"), ("Tesla V100-SXM2-32GB", 31.75, "dgx1")],
    2022: [("NVIDIA A100-SXM4-80GB", 79.15, "dgxa100"), ("NVIDIA A100-SXM4-40GB", 39.59, "dgxa100")],
    2023: [("NVIDIA A100-SXM4-80GB", 79.15, "dgxa100"), ("NVIDIA H100 80GB HBM3", 79.11, "dgxh100")],
    2024: [("NVIDIA H100 80GB HBM3", 79.11, "dgxh100"), ("NVIDIA A100-SXM4-80GB", 79.15, "dgxa100"),
           ("NVIDIA H200", 139.80, "dgxh100")],
    2025: [("NVIDIA H100 80GB HBM3", 79.11, "dgxh100"), ("NVIDIA H200", 139.80, "dgxh100"),
           ("NVIDIA B200", 178.36, "dgxb200")],
    2026: [("NVIDIA H200", 139.80, "dgxh100"), ("NVIDIA B200", 178.36, "dgxb200")],
}
PCI = {
    "dgx1": ["06", "07", "0a", "0b", "85", "86", "89", "8a"],
    "dgxa100": ["07", "0f", "47", "4e", "87", "90", "b7", "bd"],
    "dgxh100": ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"],
    "dgxb200": ["1b", "43", "52", "61", "9d", "c3", "d1", "df"],
}

# library versions by year
DS_BY_YEAR = {2020: ["0.3.10"], 2021: ["0.4.5", "0.5.8"], 2022: ["0.6.5", "0.7.7"],
              2023: ["0.8.3", "0.9.5", "0.10.3"], 2024: ["0.12.6", "0.14.4"],
              2025: ["0.15.4", "0.16.3"], 2026: ["0.17.2"]}
ACC_BY_TORCH = [((1, 9), "0.5.1"), ((1, 10), "0.6.2"), ((1, 11), "0.10.0"), ((1, 12), "0.13.2"),
                ((1, 13), "0.16.0"), ((2, 0), "0.21.0"), ((2, 1), "0.25.0"), ((2, 2), "0.28.0"),
                ((2, 3), "0.30.1"), ((2, 4), "0.34.2"), ((2, 5), "1.2.1"), ((2, 6), "1.4.0"),
                ((2, 7), "1.7.0"), ((2, 8), "1.10.1"), ((2, 9), "1.11.0")]
PL_BY_TORCH = [((1, 4), "0.7.6"), ((1, 5), "0.8.5"), ((1, 6), "0.10.0"), ((1, 7), "1.2.10"),
               ((1, 8), "1.3.8"), ((1, 9), "1.4.9"), ((1, 10), "1.5.10"), ((1, 11), "1.6.5"),
               ((1, 12), "1.8.6"), ((1, 13), "1.9.4"), ((2, 0), "2.0.9"), ((2, 1), "2.1.3"),
               ((2, 2), "2.2.5"), ((2, 3), "2.3.3"), ((2, 4), "2.4.0"), ((2, 5), "2.5.0"),
               ((2, 6), "2.5.1"), ((2, 7), "2.5.2")]
K8S_BY_YEAR = {2021: "v1.20.15", 2022: "v1.23.10", 2023: "v1.26.9", 2024: "v1.29.6",
               2025: "v1.31.4", 2026: "v1.33.2"}


class Ctx(object):
    def stable(self, key):
        """an RNG that gives the same draws for the same call site within one run
        (line numbers of one source line must not differ between ranks)"""
        return random.Random("%s|%s" % (self.seed_str, key))


class MemoRandom(random.Random):
    """choice() over a list of ints (line numbers, codes) is memoised per run so that the
    same call site prints the same number on every rank/node."""

    def __init__(self, seed):
        random.Random.__init__(self, seed)
        self._memo = {}

    def choice(self, seq):
        if len(seq) > 1 and all(isinstance(x, int) for x in seq):
            key = tuple(seq)
            if key not in self._memo:
                self._memo[key] = random.Random.choice(self, seq)
            return self._memo[key]
        return random.Random.choice(self, seq)


def pick_le(table, tv):
    best = table[0][1]
    for k, v in table:
        if k <= tv:
            best = v
    return best


EPOCH = _dt.datetime(1970, 1, 1)


def to_dt(t):
    return EPOCH + _dt.timedelta(seconds=t)


def from_dt(d):
    return (d - EPOCH).total_seconds()


def build_ctx(rng, layout):
    c = Ctx()
    c.rng = rng
    c.layout = layout
    lo, hi = LAYOUT_TORCH[layout]
    cands = [t for t in TORCH_CAT if V(lo) <= V(t[0]) <= V(hi)]
    ent = rng.choice(cands)
    c.torch, year, cudas, c.nccl, pys = ent
    c.tv = V(c.torch)[:2]
    c.cuda = rng.choice(cudas)
    c.py = rng.choice(pys)
    c.pv = V(c.py)
    c.ncv = V(c.nccl)
    year = min(2026, year + (1 if rng.random() < 0.3 else 0))
    c.year = year
    # drivers: newest compatible with year window
    ds = [d for d in DRIVERS if V(d[1]) >= V(c.cuda) and year - 1 <= d[2] <= year]
    if not ds:
        ds = [d for d in DRIVERS if V(d[1]) >= V(c.cuda)][:2]
    c.driver = rng.choice(ds)[0]
    c.dmaj = V(c.driver)[0]
    c.drv_cuda = [d for d in DRIVERS if d[0] == c.driver][0][1]
    c.os_name, c.kernel = rng.choice(OS_BY_YEAR[year])
    c.kv = V(c.kernel)[:2]
    c.slurm = rng.choice(SLURM_BY_YEAR[year])
    c.sv = V(c.slurm)[:2]
    # a GPU generation needs a CUDA build that knows its architecture
    need = {"dgx1": (9, 0), "dgxa100": (11, 0), "dgxh100": (11, 8), "dgxb200": (12, 8)}
    gl = [g for g in GPU_BY_YEAR[year] if V(c.cuda) >= need[g[2]]]
    if not gl:
        gl = [g for y in sorted(GPU_BY_YEAR) for g in GPU_BY_YEAR[y] if V(c.cuda) >= need[g[2]] and y <= year][-2:]
    g = rng.choice(gl)
    c.gpu, c.gpu_gib, c.system = g
    if c.dmaj >= 470 and c.gpu.startswith("A100"):
        c.gpu = "NVIDIA " + c.gpu
    if c.dmaj < 470 and c.gpu.startswith("NVIDIA A100"):
        c.gpu = c.gpu[len("NVIDIA "):]
    c.nvswitch = c.system in ("dgxa100", "dgxh100", "dgxb200")
    month = rng.randint(1, 12)
    day = rng.randint(1, 28)
    c.t_start = from_dt(_dt.datetime(year, month, day, rng.randint(0, 23), rng.randint(0, 59),
                                     rng.randint(0, 59))) + rng.random()
    # library versions
    c.ds = rng.choice(DS_BY_YEAR.get(year, ["0.9.5"]))
    if layout == "deepspeed_pdsh":
        # keep deepspeed consistent with torch era
        if c.tv < (1, 8):
            c.ds = "0.3.10" if c.tv < (1, 7) else "0.4.5"
        elif c.tv < (1, 10):
            c.ds = "0.5.8"
        elif c.tv < (1, 13) and V(c.ds) > (0, 8):
            c.ds = "0.7.7"
        elif c.tv >= (2, 4) and V(c.ds) < (0, 14):
            c.ds = "0.15.4"
    c.dsv = V(c.ds)[:2]
    c.acc = pick_le(ACC_BY_TORCH, c.tv)
    c.accv = V(c.acc)[:2]
    c.pl = pick_le(PL_BY_TORCH, c.tv)
    c.plv = V(c.pl)[:2]
    c.k8s = K8S_BY_YEAR.get(year, "v1.23.10")
    # environment flavour
    users = ["jchen", "mlee", "aroy", "tkaur", "psingh", "dkim", "svolkov", "lnguyen", "ehansen"]
    c.user = rng.choice(users)
    flavor = rng.choice(["conda", "userconda", "ngc", "venv"])
    if c.pv < (3, 0):
        flavor = "userconda2"
    if flavor == "conda":
        c.site = "/opt/conda/lib/python%s/site-packages" % c.py
        c.pybin = "/opt/conda/bin/python"
    elif flavor == "userconda":
        env = rng.choice(["train", "llm", "py%s" % c.py.replace(".", ""), "torch%s" % c.torch.replace(".", "")[:3]])
        base = "/home/%s/%s" % (c.user, rng.choice(["miniconda3", "anaconda3", "miniforge3"]))
        c.site = "%s/envs/%s/lib/python%s/site-packages" % (base, env, c.py)
        c.pybin = "%s/envs/%s/bin/python" % (base, env)
    elif flavor == "userconda2":
        c.site = "/home/%s/anaconda2/lib/python2.7/site-packages" % c.user
        c.pybin = "/home/%s/anaconda2/bin/python" % c.user
    elif flavor == "ngc":
        c.site = "/usr/local/lib/python%s/dist-packages" % c.py
        c.pybin = "/usr/bin/python" if c.pv < (3, 8) else "/usr/bin/python3"
    else:
        c.site = "/home/%s/.venvs/train/lib/python%s/site-packages" % (c.user, c.py)
        c.pybin = "/home/%s/.venvs/train/bin/python" % c.user
    c.flavor = flavor
    if flavor in ("conda", "userconda", "userconda2"):
        c.pylib = c.site.rsplit("/", 1)[0]
    else:
        c.pylib = "/usr/lib/python%s" % c.py
    c.workdir = rng.choice(["/workspace", "/home/%s/proj/lm" % c.user, "/scratch/%s/vision" % c.user,
                            "/mnt/shared/%s/repo" % c.user])
    c.script = rng.choice(["train.py", "main.py", "pretrain.py", "train_net.py", "run_pretrain.py"])
    c.nccl_debug = rng.random() < 0.45
    c.torch_build = "/pytorch" if c.tv < (1, 9) else ".."
    if c.tv >= (2, 4):
        c.torch_build = "/pytorch"
    # default timeouts: 30 min classic; 10 min NCCL default from 2.2 (many set their own)
    if c.tv >= (2, 2):
        c.timeout_ms = rng.choice([600000, 600000, 1800000, 3600000])
    else:
        c.timeout_ms = rng.choice([1800000, 1800000, 1800000, 3600000, 7200000])
    return c


# --------------------------------------------------------------------------------------
# topology / clocks / ids
# --------------------------------------------------------------------------------------
def build_topology(c, min_nodes=1):
    rng = c.rng
    L = c.layout
    if L == "legacy_launch":
        nn = rng.choice([1, 2, 2, 2])
        style = rng.choice(["gpu%02d", "dgx-%02d", "aws", "srv%d"])
    elif L == "lightning_slurm":
        nn = rng.choice([1, 2, 2, 4])
        style = rng.choice(["node%04d", "gpu-a%02d", "dgx%03d"])
    elif L == "deepspeed_pdsh":
        nn = rng.choice([2, 2, 3, 4])
        style = rng.choice(["worker-%d", "node-%02d", "ds-%02d"])
    elif L == "accelerate_k8s":
        nn = rng.choice([2, 2, 3, 4])
        style = "pod"
    else:
        nn = rng.choice([2, 2, 3, 4])
        style = rng.choice(["node%04d", "gpu-a%02d", "hgx-r%d-%02d", "dgx%03d"])
    nn = max(nn, min_nodes)
    c.gpn = 8
    if L in ("legacy_launch", "lightning_slurm") and rng.random() < 0.35:
        c.gpn = 4
    if c.system == "dgxb200":
        c.gpn = 8
    base = rng.randint(1, 60)
    nodes = []
    if style == "aws":
        for k in range(nn):
            nodes.append("ip-172-31-%d-%d" % (rng.randint(1, 60), rng.randint(2, 250)))
    elif style == "pod":
        job = rng.choice(["llm-pretrain", "vit-l-ft", "bert-mlm", "t5-sft", "dino-v2"])
        c.k8s_job = "%s-%s" % (job, "".join(rng.choice("abcdefghjkmnpqrstuvwxyz0123456789") for _ in range(5)))
        nodes.append(c.k8s_job + "-master-0")
        for k in range(nn - 1):
            nodes.append(c.k8s_job + "-worker-%d" % k)
        pool = rng.choice(["gke-train-a3-pool-%s", "aks-gpunp-%s-vmss", "ip-10-4-%s.ec2.internal"])
        c.k8s_nodes = []
        for k in range(nn):
            if pool.startswith("ip-"):
                c.k8s_nodes.append(pool % ("%d-%d" % (rng.randint(1, 250), rng.randint(2, 250))))
            else:
                c.k8s_nodes.append(pool % "".join(rng.choice("0123456789abcdef") for _ in range(8)) +
                                   ("-" + "".join(rng.choice("abcdefghjklmnpqrstvwxz") for _ in range(4))
                                    if pool.startswith("gke") else "%06d" % k))
    elif style == "hgx-r%d-%02d":
        r = rng.randint(1, 9)
        for k in range(nn):
            nodes.append("hgx-r%d-%02d" % (r, base + k))
    else:
        for k in range(nn):
            nodes.append(style % (base + k))
    c.nodes = nodes
    c.nn = nn
    c.world = nn * c.gpn
    c.ranks = list(range(c.world))
    c.node_of = {r: nodes[r // c.gpn] for r in c.ranks}
    c.lr_of = {r: r % c.gpn for r in c.ranks}
    c.ranks_on = {n: [r for r in c.ranks if c.node_of[r] == n] for n in nodes}
    sub = rng.choice(["10.%d.%d." % (rng.randint(0, 200), rng.randint(0, 250)),
                      "172.%d.%d." % (rng.randint(16, 31), rng.randint(0, 250)),
                      "192.168.%d." % rng.randint(1, 250)])
    c.ip = {}
    ipstep = rng.randint(1, 7)
    for k, n in enumerate(nodes):
        c.ip[n] = sub + str(11 + k * ipstep)
    # clock skew: usually small, sometimes one node badly off
    c.skew = {}
    for n in nodes:
        c.skew[n] = rng.uniform(-2.5, 2.5)
    if nn > 1 and rng.random() < 0.3:
        c.skew[rng.choice(nodes[1:])] += rng.choice([-1, 1]) * rng.uniform(20, 95)
    c.skew[nodes[0]] = c.skew[nodes[0]] * 0.2
    # pids
    c.agent_pid = {}
    c.pid = {}
    for n in nodes:
        p = rng.randint(900, 3900000 if c.kv >= (5, 0) else 65000)
        c.agent_pid[n] = p
        q = p + rng.randint(3, 80)
        for r in c.ranks_on[n]:
            c.pid[r] = q
            q += rng.randint(1, 4)
    c.boot = {n: c.t_start - rng.uniform(3600 * 5, 86400 * 60) for n in nodes}
    c.khost = {}
    if style == "pod":
        c.khost = {n: (c.k8s_nodes[i].split(".")[0] if c.k8s_nodes[i].startswith("ip-") else c.k8s_nodes[i]) for i, n in enumerate(nodes)}
    c.master = nodes[0]
    c.port = rng.choice([29500, 29500, 29400, 12355, 23456, 6000, 29501])
    c.pci = PCI[c.system]
    if c.gpn == 4:
        c.pci = c.pci[::2]
    c.jobid = rng.randint(10000, 9999999)
    return c


def lt(c, node, t):
    """node-local wall clock"""
    return t + c.skew.get(node, 0.0)


def ts_py(c, node, t):  # 2024-06-11 10:23:45,123
    d = to_dt(lt(c, node, t))
    return d.strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (d.microsecond // 1000)


def ts_iso(c, node, t, frac=False):
    d = to_dt(lt(c, node, t))
    if frac:
        return d.strftime("%Y-%m-%dT%H:%M:%S") + ".%06d" % d.microsecond
    return d.strftime("%Y-%m-%dT%H:%M:%S")


def ts_glog(c, node, t, lvl, nanos=True):  # E0611 10:23:45.123456789
    d = to_dt(lt(c, node, t))
    frac = ("%06d" % d.microsecond) + ("%03d" % c.rng.randint(0, 999)) if nanos else ("%03d000" % (d.microsecond // 1000))
    return "%s%02d%02d %s.%s" % (lvl, d.month, d.day, d.strftime("%H:%M:%S"), frac)


def ts_elastic_file(c, node, t):  # 2023-05-19_16:39:58
    return to_dt(lt(c, node, t)).strftime("%Y-%m-%d_%H:%M:%S")


def hsize(b):
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= div:
            return "%.2f %s" % (b / float(div), unit)
    return "%d bytes" % b


def busid_short(c, lr):
    return "%s000" % c.pci[lr].lstrip("0") if c.pci[lr].lstrip("0") else "0"


def pci_full(c, lr):
    return "0000:%s:00" % c.pci[lr]


class Stream(object):
    """collects (true_time, seq, text) lines"""

    def __init__(self):
        self.items = []
        self.n = 0

    def add(self, t, text):
        self.n += 1
        self.items.append((t, self.n, text))

    def extend(self, t, lines, dt=0.0):
        for i, ln in enumerate(lines):
            self.add(t + i * dt, ln)

    def cut_after(self, t):
        self.items = [x for x in self.items if x[0] <= t]

    def last_t(self):
        return max([x[0] for x in self.items]) if self.items else None

    def render(self, prefix=None):
        out = []
        for t, n, text in sorted(self.items, key=lambda x: (x[0], x[1])):
            if prefix:
                for ln in text.split("\n"):
                    out.append(prefix + ln)
            else:
                out.append(text)
        return "\n".join(out)


# --------------------------------------------------------------------------------------
# kernel log / NCCL / C++ / python traceback formatting
# --------------------------------------------------------------------------------------
def choose_kern_style(c):
    rng = c.rng
    if c.os_name.startswith("Ubuntu 24"):
        opts = ["rfc3339", "dmesgT", "journal"]
    elif c.os_name.startswith("Ubuntu"):
        opts = ["kernlog", "dmesgT", "dmesg", "kernlog"]
    else:
        opts = ["messages", "dmesgT", "dmesg", "journal"]
    c.kstyle = rng.choice(opts)


def kline(c, node, t, msg):
    tl = lt(c, node, t)
    d = to_dt(tl)
    up = t - c.boot[node]
    if c.kstyle == "dmesg":
        return "[%12.6f] %s" % (up, msg)
    if c.kstyle == "dmesgT":
        return "[%s %2d %s] %s" % (d.strftime("%a %b"), d.day, d.strftime("%H:%M:%S %Y"), msg)
    mon = d.strftime("%b") + " " + ("%2d" % d.day) + " " + d.strftime("%H:%M:%S")
    host = c.khost.get(node, node)
    if c.kstyle == "kernlog":
        return "%s %s kernel: [%12.6f] %s" % (mon, host, up, msg)
    if c.kstyle in ("messages", "journal"):
        return "%s %s kernel: %s" % (mon, host, msg)
    # rfc3339
    return "%s.%06d+00:00 %s kernel: %s" % (d.strftime("%Y-%m-%dT%H:%M:%S"), d.microsecond, host, msg)


def nccl_prefix(c, r, tid=None):
    n = c.node_of[r]
    pid = c.pid[r]
    return "%s:%d:%d [%d]" % (n, pid, tid if tid else pid, c.lr_of[r])


def nccl_info(c, r, msg, tid=None):
    return "%s NCCL INFO %s" % (nccl_prefix(c, r, tid), msg)


def nccl_warn(c, r, src, msg, tid=None):
    return "%s %s NCCL WARN %s" % (nccl_prefix(c, r, tid), src, msg)


def proxy_tid(c, r):
    return c.pid[r] + 40 + (r * 7) % 23


def xid(c, lr, code, text, pid=None, pname=None):
    p = pci_full(c, lr)
    if c.dmaj < 440:
        return "NVRM: Xid (PCI:%s): %d, %s" % (p, code, text)
    if c.dmaj < 460:
        return "NVRM: Xid (PCI:%s): %d, pid=%s, %s" % (p, code, pid if pid else "<unknown>", text)
    if c.dmaj < 525:
        return "NVRM: Xid (PCI:%s): %d, pid=%s, name=%s, %s" % (
            p, code, pid if pid else "<unknown>", pname if pname else "<unknown>", text)
    return "NVRM: Xid (PCI:%s): %d, pid=%s, name=%s, %s" % (
        p, code, pid if pid else "'<unknown>'", pname if pname else "<unknown>", text)


def pyname(c):
    return "python3" if c.pybin.endswith("python3") else "python"


def cuda_enum_num(c, enum):
    new = {"cudaErrorIllegalAddress": 700, "cudaErrorLaunchFailure": 719, "cudaErrorECCUncorrectable": 214,
           "cudaErrorAssert": 710, "cudaErrorUnknown": 999, "cudaErrorMemoryAllocation": 2, "cudaErrorNvlinkUncorrectable": 220}
    old = {"cudaErrorIllegalAddress": 77, "cudaErrorLaunchFailure": 4, "cudaErrorECCUncorrectable": 39,
           "cudaErrorAssert": 59, "cudaErrorUnknown": 30, "cudaErrorMemoryAllocation": 2, "cudaErrorNvlinkUncorrectable": 76}
    return (old if V(c.cuda) < (10, 1) else new)[enum]


def libpaths(c):
    tl = c.site + "/torch/lib/"
    if c.os_name.startswith("Ubuntu"):
        libc = "/lib/x86_64-linux-gnu/libc.so.6"
        lpt = "/lib/x86_64-linux-gnu/libpthread.so.0"
        stdcpp = "/lib/x86_64-linux-gnu/libstdc++.so.6"
    else:
        libc = "/lib64/libc.so.6"
        lpt = "/lib64/libpthread.so.0"
        stdcpp = "/lib64/libstdc++.so.6"
    if c.flavor in ("conda", "userconda"):
        stdcpp = c.pybin.rsplit("/", 1)[0] + "/../lib/libstdc++.so.6"
    return tl, libc, lpt, stdcpp


def addr(c):
    return "0x%x" % (0x7f0000000000 + c.rng.randint(0, 0xffffffffff))


def cpp_frames(c, syms):
    """syms: list of (symbol, lib-key) ; lib-key in c10, tcuda, tcpu, tpy, stdcpp, libc, lpt"""
    tl, libc, lpt, stdcpp = libpaths(c)
    libs = {"c10": tl + "libc10.so", "tcuda": tl + "libtorch_cuda.so", "tcpu": tl + "libtorch_cpu.so",
            "tpy": tl + "libtorch_python.so", "stdcpp": stdcpp, "libc": libc, "lpt": lpt,
            "c10cuda": tl + "libc10_cuda.so"}
    out = []
    for i, (sym, lk) in enumerate(syms):
        off = "0x%x" % c.rng.randint(0x20, 0xfffff) if sym.startswith("<unknown") else "0x%x" % c.rng.randint(0x10, 0x3ff)
        out.append("frame #%d: %s + %s (%s in %s)" % (i, sym, off, addr(c), libs[lk]))
    return out


def thread_tail(c):
    glibc_new = c.os_name in ("Ubuntu 22.04", "Ubuntu 24.04", "Rocky 9")
    if glibc_new:
        return [("<unknown function>", "stdcpp"), ("<unknown function>", "libc"), ("clone", "libc")]
    return [("<unknown function>", "stdcpp"), ("<unknown function>", "lpt"), ("clone", "libc")]


def caret_line(code, kind):
    """3.11+ style carets under the interesting part of a source line."""
    stripped = code.split("  #", 1)[0]
    start = 0
    for pre in ("return ", "yield "):
        if stripped.startswith(pre):
            start = len(pre)
    if start == 0 and " = " in stripped and "(" in stripped.split(" = ", 1)[1]:
        start = stripped.index(" = ") + 3
    if start == 0 and kind != "sub":
        return None
    body = stripped[start:]
    if kind == "sub" and "[" in body:
        i = body.index("[")
        j = body.index("]", i) + 1 if "]" in body[i:] else len(body)
        return " " * (start) + "~" * i + "^" * (j - i)
    return " " * start + "^" * len(body.rstrip())


def traceback(c, frames, exc_lines):
    out = ["Traceback (most recent call last):"]
    for fr in frames:
        f, l, fn, code = fr[:4]
        kind = fr[4] if len(fr) > 4 else "call"
        out.append('  File "%s", line %d, in %s' % (f, l, fn))
        out.append("    " + code)
        if c.pv >= (3, 11) and kind:
            cl = caret_line(code, kind)
            if cl:
                out.append("    " + cl)
    if isinstance(exc_lines, str):
        exc_lines = [exc_lines]
    out.extend(exc_lines)
    return "\n".join(out)


def user_frames(c, kind):
    """frames from the user's script down to the failing torch call"""
    base = c.stable("uf")
    rng = c.stable("uf:" + kind)
    s = c.workdir + "/" + c.script
    helper = c.workdir + "/" + base.choice(["engine.py", "trainer.py", "utils/train_loop.py", "lib/solver.py"])
    fr = [(s, base.randint(300, 700), "<module>", "main(args)" if base.random() < 0.5 else "main()", None),
          (s, base.randint(120, 299), "main", "train_one_epoch(model, loader, optimizer, epoch, args)", None)]
    if kind == "backward":
        fr.append((helper, rng.randint(60, 400), "train_one_epoch",
                   "loss.backward()" if rng.random() < 0.6 else "scaler.scale(loss).backward()", None))
        tens = "torch/_tensor.py" if c.tv >= (1, 10) else "torch/tensor.py"
        fr.append((c.site + "/" + tens, {(1, 10): 307, (1, 11): 363, (1, 12): 396, (1, 13): 487,
                                          (2, 0): 487, (2, 1): 492, (2, 2): 522, (2, 3): 525, (2, 4): 521,
                                          (2, 5): 581, (2, 6): 626, (2, 7): 648}.get(c.tv, 245 if c.tv < (1, 10) else 647),
                   "backward", "torch.autograd.backward(", None))
        fr.append((c.site + "/torch/autograd/__init__.py", {(2, 2): 266, (2, 3): 267, (2, 4): 289, (2, 5): 347,
                                                           (2, 6): 347, (2, 7): 353}.get(c.tv, 145 if c.tv < (1, 10) else 200 if c.tv < (2, 2) else 354),
                   "backward", "_engine_run_backward(" if c.tv >= (2, 2) else "Variable._execution_engine.run_backward(", None))
        if c.tv >= (2, 2):
            fr.append((c.site + "/torch/autograd/graph.py", {(2, 2): 744, (2, 3): 744, (2, 4): 768, (2, 5): 825,
                                                            (2, 6): 823, (2, 7): 824}.get(c.tv, 829),
                       "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass", "call"))
    elif kind == "forward":
        fr.append((helper, rng.randint(60, 400), "train_one_epoch", "outputs = model(images)" if "vision" in c.workdir
                   else "out = model(**batch)", "call"))
        mod = "torch/nn/modules/module.py"
        if c.tv >= (2, 0):
            fr.append((c.site + "/" + mod, {(2, 0): 1501, (2, 1): 1518, (2, 2): 1511, (2, 3): 1532, (2, 4): 1553,
                                           (2, 5): 1736, (2, 6): 1739, (2, 7): 1751}.get(c.tv, 1773),
                       "_wrapped_call_impl" if c.tv >= (2, 1) else "_call_impl",
                       "return self._call_impl(*args, **kwargs)" if c.tv >= (2, 1) else "return forward_call(*args, **kwargs)", "call"))
        fr.append((c.site + "/" + mod, {(1, 0): 489, (1, 1): 493, (1, 2): 547, (1, 3): 541, (1, 4): 532, (1, 5): 550,
                                       (1, 6): 722, (1, 7): 727, (1, 8): 889, (1, 9): 1051, (1, 10): 1102,
                                       (1, 11): 1110, (1, 12): 1130, (1, 13): 1194, (2, 0): 1501, (2, 1): 1527,
                                       (2, 2): 1520, (2, 3): 1541, (2, 4): 1562, (2, 5): 1747, (2, 6): 1750,
                                       (2, 7): 1762}.get(c.tv, 1784),
                   "_call_impl", "result = self.forward(*input, **kwargs)" if c.tv < (1, 9) else "return forward_call(*args, **kwargs)", "call"))
        fr.append((c.site + "/torch/nn/parallel/distributed.py", rng.randint(600, 1700), "forward",
                   "output = self._run_ddp_forward(*inputs, **kwargs)" if c.tv >= (1, 12) else "output = self.module(*inputs[0], **kwargs[0])", "call"))
    elif kind == "allreduce":
        if rng.random() < 0.5:
            fr.append((helper, rng.randint(60, 400), "train_one_epoch", "stats = reduce_metrics(loss.detach(), world_size)", "call"))
            fr.append((helper, rng.randint(20, 59), "reduce_metrics",
                       "dist.all_reduce(loss_t, op=dist.ReduceOp.SUM)" if c.pv >= (3, 0) else "dist.all_reduce(loss_t)", None))
        else:
            fr.append((helper, rng.randint(60, 400), "train_one_epoch",
                       "dist.all_reduce(loss_t, op=dist.ReduceOp.SUM)" if c.pv >= (3, 0) else "dist.all_reduce(loss_t)", None))
        if c.tv >= (2, 1):
            fr.append((c.site + "/torch/distributed/c10d_logger.py", {(2, 1): 47, (2, 2): 72, (2, 3): 75, (2, 4): 83,
                                                                     (2, 5): 83, (2, 6): 81, (2, 7): 81}.get(c.tv, 81),
                       "wrapper", "return func(*args, **kwargs)", "call"))
        fr.append((c.site + "/torch/distributed/distributed_c10d.py", rng.randint(900, 2900), "all_reduce",
                   "work = group.allreduce([tensor], opts)" if c.tv >= (1, 6) else "work = _default_pg.allreduce([tensor], opts)", "call"))
    elif kind == "data":
        fr.append((helper, rng.randint(60, 400), "train_one_epoch", "for step, batch in enumerate(loader):", None))
        dl = c.site + "/torch/utils/data/dataloader.py"
        if c.tv >= (1, 2):
            fr.append((dl, rng.randint(345, 740), "__next__", "data = self._next_data()", "call"))
            fr.append((dl, rng.randint(560, 1480), "_next_data", "return self._process_data(data)", "call"))
            fr.append((dl, rng.randint(600, 1510), "_process_data", "data.reraise()", None))
            fr.append((c.site + "/torch/_utils.py", rng.randint(420, 720), "reraise", "raise exception" if c.tv >= (1, 11) else "raise self.exc_type(msg)", None))
        else:
            fr.append((dl, rng.randint(560, 640), "__next__", "return self._process_next_batch(batch)", None))
            fr.append((dl, rng.randint(600, 660), "_process_next_batch", "raise batch.exc_type(batch.exc_msg)", None))
    return fr


# --------------------------------------------------------------------------------------
# torch-version specific messages
# --------------------------------------------------------------------------------------
# ProcessGroupNCCL.cpp line numbers (caught, some-ops, take-down, watchdog-terminated,
#                                    exception-detected, timeout-at, heartbeat, fatal)
PGN_LINES = {
    (1, 8): (566, 325, 325, 0, 0, 0, 0, 0), (1, 9): (576, 325, 325, 0, 0, 0, 0, 0),
    (1, 10): (587, 341, 341, 0, 0, 0, 0, 0), (1, 11): (587, 341, 341, 0, 0, 0, 0, 0),
    (1, 12): (737, 414, 414, 0, 0, 0, 0, 0), (1, 13): (821, 455, 460, 915, 0, 0, 0, 0),
    (2, 0): (828, 455, 460, 915, 0, 0, 0, 0), (2, 1): (474, 488, 494, 916, 0, 0, 0, 0),
    (2, 2): (523, 537, 543, 1182, 0, 0, 1316, 0), (2, 3): (563, 577, 583, 1414, 0, 1537, 1316, 0),
    (2, 4): (607, 621, 627, 1515, 1664, 1709, 1375, 0),
    (2, 5): (607, 621, 627, 1515, 1664, 1709, 1375, 1436),
    (2, 6): (616, 630, 636, 1595, 1785, 1834, 1474, 1557),
    (2, 7): (632, 684, 698, 1896, 2080, 2132, 1706, 1784),
    (2, 8): (690, 742, 756, 2109, 2213, 2265, 1848, 1928),
    (2, 9): (706, 755, 769, 2176, 2298, 2347, 1902, 1981),
}


def pgn(c):
    return PGN_LINES.get(c.tv, PGN_LINES[(2, 9)] if c.tv > (2, 9) else PGN_LINES[(1, 8)])


def cpp_log(c, r, t, lvl, fileline, msg):
    n = c.node_of[r]
    if c.tv >= (2, 4):
        return "[rank%d]:[%s %s] %s" % (r, ts_glog(c, n, t, lvl), fileline, msg)
    if c.tv >= (2, 2):
        return "[rank%d]:[%s %s] %s" % (r, lvl, fileline, msg)
    return "[%s %s] %s" % (lvl, fileline, msg)


def pg_tag(c, r, pg=0, pgname="default_pg"):
    if c.tv >= (2, 6):
        return "[PG ID %d PG GUID %s Rank %d]" % (pg, "%d(%s)" % (pg, pgname) if pgname else str(pg), r)
    return "[PG %d Rank %d]" % (pg, r)


def work_str(c, seq, op, nin, nout):
    T = c.timeout_ms
    if c.tv < (1, 11):
        return "WorkNCCL(OpType=%s, Timeout(ms)=%d)" % (op, T)
    if c.tv < (2, 2):
        return "WorkNCCL(SeqNum=%d, OpType=%s, Timeout(ms)=%d)" % (seq, op, T)
    return "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (seq, op, nin, nout, T)


def wd_src(c):
    return "%s/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp" % c.torch_build


def watchdog_timeout(c, r, t, seq, op, nin, nout, last_enq, last_comp, pg=0, pgname="default_pg",
                     frec=False):
    """Lines a rank prints when its NCCL watchdog fires. Returns (lines[(t,text)], exit_t)."""
    rng = c.rng
    L = pgn(c)
    ran = c.timeout_ms + rng.randint(3, 900 if c.tv < (2, 0) else 120)
    work = work_str(c, seq, op, nin, nout)
    caught = "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (r, work, ran)
    out = []
    f = "ProcessGroupNCCL.cpp:%d"
    out.append(cpp_log(c, r, t, "E", f % L[0], caught))
    tag = pg_tag(c, r, pg, pgname)
    if c.tv >= (2, 4):
        out.append(cpp_log(c, r, t + 0.0004, "E", f % L[4],
                           "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (tag, seq, last_enq, last_comp)))
    if c.tv >= (2, 3):
        out.append(cpp_log(c, r, t + 0.0006, "E", f % L[5],
                           "%s Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (tag, seq, last_enq, last_comp)))
    if c.tv < (1, 13):
        out.append(cpp_log(c, r, t + 0.001, "E", f % L[1],
                           "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data. To avoid this inconsistency, we are taking the entire process down."))
        out.append("terminate called after throwing an instance of 'std::runtime_error'")
        out.append("  what():  " + caught)
    else:
        rk = "[Rank %d] " % r if c.tv >= (2, 2) else ""
        out.append(cpp_log(c, r, t + 0.001, "E", f % L[1],
                           rk + "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data."))
        out.append(cpp_log(c, r, t + 0.0011, "E", f % L[2], rk + "To avoid data inconsistency, we are taking the entire process down."))
        if c.tv >= (2, 3):
            head = "%s Process group watchdog thread terminated with exception: " % tag
        else:
            head = "[Rank %d] NCCL watchdog thread terminated with exception: " % r
        frames = []
        if c.tv >= (2, 1):
            frames = ["Exception raised from checkTimeout at %s:%d (most recent call first):" % (wd_src(c), L[0] + 2)]
            syms = [("c10::Error::Error(c10::SourceLocation, std::string)", "c10"),
                    ("c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >)", "tcuda"),
                    ("c10d::ProcessGroupNCCL::watchdogHandler()" if c.tv >= (2, 3) else "c10d::ProcessGroupNCCL::workCleanupLoop()", "tcuda"),
                    ("c10d::ProcessGroupNCCL::ncclCommWatchdog()", "tcuda")] + thread_tail(c)
            frames += cpp_frames(c, syms)
            frames.append("")
        out.append(cpp_log(c, r, t + 0.0013, "E", f % L[3], head + caught) if L[3] else head + caught)
        out.extend(frames)
        exc = "c10::DistBackendError" if c.tv >= (2, 1) else "std::runtime_error"
        out.append("terminate called after throwing an instance of '%s'" % exc)
        out.append("  what():  " + head + caught)
        if frames:
            out.extend(frames[:1] + cpp_frames(c, [("c10::Error::Error(c10::SourceLocation, std::string)", "c10"),
                                                   ("c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >)", "tcuda"),
                                                   ("c10d::ProcessGroupNCCL::watchdogHandler()" if c.tv >= (2, 3) else "c10d::ProcessGroupNCCL::workCleanupLoop()", "tcuda"),
                                                   ("c10d::ProcessGroupNCCL::ncclCommWatchdog()", "tcuda")] + thread_tail(c)))
            out.append("")
            if c.tv >= (2, 3):
                out.append("Exception raised from ncclCommWatchdog at %s:%d (most recent call first):" % (wd_src(c), L[3] + 6))
                out.extend(cpp_frames(c, [("c10::Error::Error(c10::SourceLocation, std::string)", "c10"),
                                          ("<unknown function>", "tcuda"),
                                          ("<unknown function>", "stdcpp")] + thread_tail(c)[1:]))
                out.append("")
    if c.tv >= (2, 6) and frec:
        out.insert(1, cpp_log(c, r, t + 0.0002, "E", f % (L[4] - 24),
                              "%s Stack trace of the failed collective not found, potentially because FlightRecorder is disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value." % tag))
    lines = [(t + i * 0.0002, x) for i, x in enumerate(out)]
    return lines, t + 0.05 + rng.random() * 0.3


def dump_signal_lines(c, r, t, from_rank, last_enq, last_comp):
    """2.5+: a rank that is told by TCPStore that another rank timed out."""
    if c.tv < (2, 5):
        return []
    L = pgn(c)
    tag = pg_tag(c, r)
    out = [cpp_log(c, r, t, "E", "ProcessGroupNCCL.cpp:%d" % (L[4] - 57),
                   "%s Observed flight recorder dump signal from another rank via TCPStore." % tag),
           cpp_log(c, r, t + 0.0003, "E", "ProcessGroupNCCL.cpp:%d" % (L[4] - 1),
                   "%s Received a dump signal due to a collective timeout from  rank %d and we will try our best to dump the debug info. Last enqueued NCCL work: %d, last completed NCCL work: %d.This is most likely caused by incorrect usages of collectives, e.g., wrong sizes used across ranks, the order of collectives is not same for all ranks or the scheduled collective, for some reason, didn't run. Additionally, this can be caused by GIL deadlock or other reasons such as network errors or bugs in the communications library (e.g. NCCL), etc. " % (tag, from_rank, last_enq, last_comp))]
    if c.tv >= (2, 6):
        out.append(cpp_log(c, r, t + 0.0005, "E", "ProcessGroupNCCL.cpp:%d" % (L[6] - 109),
                           "%s ProcessGroupNCCL preparing to dump debug info. Include stack trace: 1" % tag))
    return [(t + i * 0.0002, x) for i, x in enumerate(out)]


def heartbeat_fatal(c, r, t, stuck_s=None):
    """2.3+: heartbeat monitor kills a process whose watchdog is wedged (e.g. CUDA API hang)"""
    L = pgn(c)
    tag = pg_tag(c, r)
    out = []
    if stuck_s:
        out.append(cpp_log(c, r, t, "E", "ProcessGroupNCCL.cpp:%d" % L[6],
                           "%s ProcessGroupNCCL's watchdog got stuck for %d seconds without making progress in monitoring enqueued collectives. This typically indicates a NCCL/CUDA API (e.g., CudaEventDestroy) hang blocking the watchdog, and could be triggered by another thread holding the GIL inside a CUDA api (for example, CudaEventDestroy), or other deadlock-prone behaviors.If you suspect the watchdog is not actually stuck and a longer timeout would help, you can either increase the timeout (TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC) to a larger value or disable the heartbeat monitor (TORCH_NCCL_ENABLE_MONITORING=0).If either of aforementioned helps, feel free to file an issue to PyTorch about the short timeout or false positive abort; otherwise, please attempt to debug the hang. " % (tag, stuck_s)))
    else:
        out.append(cpp_log(c, r, t, "E", "ProcessGroupNCCL.cpp:%d" % L[6],
                           "%s Heartbeat monitor timed out! Process will be terminated after dumping debug info. workMetaList_.size()=1" % tag))
    if c.tv >= (2, 5) and L[7]:
        out.append(cpp_log(c, r, t + 60.0, "F", "ProcessGroupNCCL.cpp:%d" % L[7],
                           "%s %s Terminating the process after attempting to dump debug info, due to collective timeout or exception." % (tag, tag)))
    return [(t + i * 0.001 if i == 0 else t + 60.0, x) for i, x in enumerate(out)]


def nccl_exc_lines(c, kind, last=None):
    ver = "NCCL version %s" % c.nccl
    ln = c.rng.choice([784, 825, 911, 1169, 1191, 1275, 1331, 1970, 2027, 3010])
    if c.tv < (1, 9):
        path = "%s/torch/lib/c10d/ProcessGroupNCCL.cpp:%d" % ("/pytorch" if c.tv < (1, 8) else "..", ln)
    elif c.tv >= (2, 4) and kind != "system":
        path = "%s/torch/csrc/distributed/c10d/NCCLUtils.hpp:%d" % (c.torch_build, c.rng.choice([268, 317, 328]))
    else:
        path = "%s/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d" % (c.torch_build, ln)
    what = {"system": "unhandled system error", "cuda": "unhandled cuda error",
            "internal": "internal error", "remote": "remote process exited or there was a network error"}[kind]
    if kind == "remote" and (c.tv < (2, 1) or c.ncv < (2, 13)):
        kind, what = "system", "unhandled system error"
    expl = {"system": "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ",
            "cuda": "ncclUnhandledCudaError: Call to CUDA function failed.",
            "internal": "ncclInternalError: Internal check failed.",
            "remote": "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely."}[kind]
    if c.tv < (1, 10):
        return ["RuntimeError: NCCL error in: %s, %s, %s" % (path, what, ver)]
    if c.tv < (2, 0):
        if kind == "system":
            expl = expl + "It can be also caused by unexpected exit of a remote peer, you can check NCCL warnings for failure cause and see if you can use NCCL_DEBUG=INFO to find out more."
        return ["RuntimeError: NCCL error in: %s, %s, %s" % (path, what, ver), expl]
    if kind in ("system", "internal", "cuda"):
        what = what + " (run with NCCL_DEBUG=INFO for details)"
    out = ["torch.distributed.DistBackendError: NCCL error in: %s, %s, %s" % (path, what, ver), expl]
    if last:
        out += ["Last error:", last]
    return out


def cuda_error_lines(c, msg, enum, head_override=None):
    if c.tv >= (2, 8):
        head = "torch.AcceleratorError"
    else:
        head = "RuntimeError"
    if head_override:
        head = head_override
    out = ["%s: CUDA error: %s" % (head, msg)]
    if c.tv >= (2, 6):
        out.append("Search for `%s' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information." % enum)
    if c.tv >= (1, 10):
        if c.tv >= (2, 1):
            out.append("CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.")
        else:
            out.append("CUDA kernel errors might be asynchronously reported at some other API call,so the stacktrace below might be incorrect.")
        out.append("For debugging consider passing CUDA_LAUNCH_BLOCKING=1" + ("." if c.tv < (2, 0) else ""))
    if c.tv >= (2, 0):
        out.append("Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.")
    if c.tv >= (2, 0):
        out.append("")
    return out


def thc_fail(c, enum, msg):
    """torch <= 1.4 printed THCudaCheck FAIL lines from the caching allocator"""
    return "THCudaCheck FAIL file=/pytorch/aten/src/THC/THCCachingHostAllocator.cpp line=%d error=%d : %s" % (
        c.rng.choice([265, 278, 296]), cuda_enum_num(c, enum), msg)


def oom_lines(c, lr, req_b, pid):
    total = c.gpu_gib
    alloc = total * c.rng.uniform(0.80, 0.93)
    free = max(0.002, total * c.rng.uniform(0.0005, 0.02))
    reserved = min(total - free - 0.4, alloc + c.rng.uniform(0.1, 1.8))
    inuse = total - free
    G = lambda x: "%.2f GiB" % x
    req = hsize(req_b)
    fr = hsize(int(free * (1 << 30)))
    if c.tv < (1, 4):
        return ["RuntimeError: CUDA out of memory. Tried to allocate %s (GPU %d; %s total capacity; %s already allocated; %s free; %s cached)" % (
            req, lr, G(total), G(alloc), fr, hsize(int((reserved - alloc) * (1 << 30))))]
    if c.tv < (1, 10):
        return ["RuntimeError: CUDA out of memory. Tried to allocate %s (GPU %d; %s total capacity; %s already allocated; %s free; %s reserved in total by PyTorch)" % (
            req, lr, G(total), G(alloc), fr, G(reserved))]
    tail = " If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF"
    if c.tv < (2, 1):
        head = "torch.cuda.OutOfMemoryError" if c.tv >= (1, 13) else "RuntimeError"
        return ["%s: CUDA out of memory. Tried to allocate %s (GPU %d; %s total capacity; %s already allocated; %s free; %s reserved in total by PyTorch)%s" % (
            head, req, lr, G(total), G(alloc), fr, G(reserved), tail)]
    head = "torch.OutOfMemoryError" if c.tv >= (2, 5) else "torch.cuda.OutOfMemoryError"
    if c.tv < (2, 2):
        return ["%s: CUDA out of memory. Tried to allocate %s. GPU %d has a total capacty of %s of which %s is free. Process %d has %s memory in use. Of the allocated memory %s is allocated by PyTorch, and %s is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF" % (
            head, req, lr, G(total), fr, pid, G(inuse), G(alloc), hsize(int((reserved - alloc) * (1 << 30))))]
    return ["%s: CUDA out of memory. Tried to allocate %s. GPU %d has a total capacity of %s of which %s is free. Including non-PyTorch memory, this process has %s memory in use. Of the allocated memory %s is allocated by PyTorch, and %s is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)" % (
        head, req, lr, G(total), fr, G(inuse), G(alloc), hsize(int((reserved - alloc) * (1 << 30))))]


def device_assert_lines(c, n=6):
    rng = c.rng
    if c.tv < (1, 7):
        src = "/pytorch/aten/src/THCUNN/ClassNLLCriterion.cu:%d: void cunn_ClassNLLCriterion_updateOutput_kernel(Dtype *, Dtype *, Dtype *, long *, Dtype *, int, int, int, int, long) [with Dtype = float, Acctype = float]" % rng.choice([106, 108])
        cond = "t >= 0 && t < n_classes"
    else:
        base = {True: "/pytorch", False: ".."}[c.tv < (1, 9) or c.tv >= (2, 4)]
        if c.flavor == "conda" and rng.random() < 0.5:
            base = "/opt/conda/conda-bld/pytorch_%d/work" % rng.randint(1600000000, 1750000000)
        kind = rng.choice(["nll", "index", "embed"])
        if kind == "nll":
            src = "%s/aten/src/ATen/native/cuda/Loss.cu:%d: nll_loss_forward_reduce_cuda_kernel_2d" % (base, rng.choice([240, 242, 250]))
            cond = "t >= 0 && t < n_classes"
        elif kind == "index":
            src = "%s/aten/src/ATen/native/cuda/IndexKernel.cu:%d: operator()" % (base, rng.choice([92, 93]))
            cond = '-sizes[i] <= index && index < sizes[i] && "index out of bounds"'
        else:
            src = "%s/aten/src/ATen/native/cuda/Indexing.cu:%d: indexSelectLargeIndex" % (base, rng.choice([1141, 1289, 1422]))
            cond = "srcIndex < srcSelectDimSize"
    blk = rng.randint(0, 300)
    out = []
    for k in range(n):
        out.append("%s: block: [%d,0,0], thread: [%d,0,0] Assertion `%s` failed." % (src, blk, 32 + k, cond))
    return out


def py_exc_name(c, name):
    if c.pv < (3, 0):
        return {"FileNotFoundError": "IOError", "ModuleNotFoundError": "ImportError"}.get(name, name)
    return name


# --------------------------------------------------------------------------------------
# training noise: startup, warnings, progress
# --------------------------------------------------------------------------------------
def choose_style(c):
    rng = c.rng
    L = c.layout
    if L == "lightning_slurm":
        c.style = "lightning"
    elif L == "deepspeed_pdsh":
        c.style = rng.choice(["megatron", "hf", "plain"]) if c.year >= 2021 else rng.choice(["megatron", "plain"])
    elif c.year <= 2020:
        c.style = rng.choice(["d2", "plain", "mmcv", "timm"]) if c.year >= 2019 else rng.choice(["plain", "timm"])
    elif c.year <= 2022:
        c.style = rng.choice(["d2", "mmcv", "hf", "plain", "timm"])
    else:
        c.style = rng.choice(["hf", "megatron", "plain", "plain"])
    c.st = rng.uniform(0.35, 2.4)           # seconds per step
    c.total_steps = rng.choice([20000, 50000, 100000, 250000, 500000])
    c.log_every = rng.choice([10, 20, 50, 100])
    c.lr0 = rng.choice([1e-4, 2e-4, 3e-4, 6e-4, 0.02, 0.1])
    c.loss0 = rng.uniform(5.5, 9.5)


def step_at(c, t):
    return max(0, int((t - c.t_train0) / c.st))


def step_line(c, node, t, step, loss, lr, st, dt_data, mem_mb):
    rng = c.rng
    S = c.style
    if S == "d2":
        d = to_dt(lt(c, node, t))
        eta_s = int((c.total_steps - step) * st)
        eta = "%d day%s, %s" % (eta_s // 86400, "s" if eta_s // 86400 != 1 else "", str(_dt.timedelta(seconds=eta_s % 86400))) if eta_s >= 86400 else str(_dt.timedelta(seconds=eta_s))
        return "[%s d2.utils.events]:  eta: %s  iter: %d  total_loss: %.3f  loss_cls: %.3f  loss_box_reg: %.3f  loss_rpn_cls: %.4f  time: %.4f  data_time: %.4f  lr: %.5g  max_mem: %dM" % (
            d.strftime("%m/%d %H:%M:%S"), eta, step, loss, loss * 0.31, loss * 0.42, loss * 0.05, st, dt_data, lr, mem_mb)
    if S == "mmcv":
        ep = step // 7330 + 1
        it = step % 7330
        return "%s - mmdet - INFO - Epoch [%d][%d/7330]\tlr: %.3e, eta: %s, time: %.3f, data_time: %.3f, memory: %d, loss_rpn_cls: %.4f, loss_rpn_bbox: %.4f, loss_cls: %.4f, acc: %.4f, loss_bbox: %.4f, loss: %.4f" % (
            ts_py(c, node, t), ep, it, lr, str(_dt.timedelta(seconds=int((c.total_steps - step) * st))), st, dt_data, mem_mb,
            loss * 0.04, loss * 0.05, loss * 0.3, rng.uniform(90, 97), loss * 0.25, loss)
    if S == "timm":
        ep = step // 1251
        it = step % 1251
        return "Train: %d [%4d/1251 (%3d%%)]  Loss: %.3f (%.2f)  Time: %.3fs, %7.2f/s  (%.3fs, %7.2f/s)  LR: %.3e  Data: %.3f (%.3f)" % (
            ep, it, it * 100 // 1251, loss, loss + 0.05, st, 1024 / st, st * 1.01, 1024 / st / 1.01, lr, dt_data, dt_data * 1.1)
    if S == "megatron":
        return " iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | learning rate: %.3E | global batch size: %5d | lm loss: %.6E | loss scale: %.1f | grad norm: %.3f | number of skipped iterations: %3d | number of nan iterations: %3d |" % (
            step, c.total_steps, step * 1024, st * 1000, lr, 1024, loss, 65536.0 if c.year < 2023 else 1.0, rng.uniform(0.2, 1.4), 0, 0)
    if S == "hf":
        ep = step / float(c.total_steps) * 3
        if c.year >= 2024:
            return "{'loss': %.4f, 'grad_norm': %.6f, 'learning_rate': %s, 'epoch': %.2f}" % (loss, rng.uniform(0.2, 3.0), repr(lr), ep)
        return "{'loss': %.4f, 'learning_rate': %s, 'epoch': %.2f}" % (loss, repr(lr), ep)
    # plain
    return "%s - INFO - __main__ - step %d/%d | loss %.4f | lr %.3e | %.3f s/it | data %.3f s | mem %d MiB" % (
        ts_py(c, node, t), step, c.total_steps, loss, lr, st, dt_data, mem_mb)


def tqdm_bar(c, step, total, elapsed, rate, extra=""):
    pct = int(step * 100 / total) if total else 0
    width = 10
    filled = pct * width // 100
    bar = "\u2588" * filled + (" " * (width - filled))
    def fmt(sec):
        sec = int(sec)
        h, m, s_ = sec // 3600, (sec % 3600) // 60, sec % 60
        return "%d:%02d:%02d" % (h, m, s_) if h else "%02d:%02d" % (m, s_)
    remain = (total - step) / rate if rate > 0 else 0
    r = "%.2fit/s" % rate if rate >= 1 else "%.2fs/it" % (1.0 / rate if rate else 0)
    return "%3d%%|%s| %d/%d [%s<%s, %s%s]" % (pct, bar, step, total, fmt(elapsed), fmt(remain), r, extra)


def progress(c, s, r, t_from, t_to, slow=1.0):
    """rank-level progress prints (rank 0 normally)"""
    rng = c.rng
    node = c.node_of[r]
    st = c.st * slow
    step = step_at(c, t_from)
    nlog = 0
    every = c.log_every
    while True:
        step += every
        t = c.t_train0 + step * st
        if t > t_to:
            break
        frac = step / float(c.total_steps)
        loss = max(0.4, c.loss0 * (1.0 - 0.55 * min(1.0, frac * 3)) + rng.uniform(-0.08, 0.08))
        lr = c.lr0 * (1 - frac * 0.5)
        mem = int(c.gpu_gib * 1024 * rng.uniform(0.55, 0.8))
        if c.style == "lightning":
            ep = step // 2000
            it = step % 2000
            extra = ", loss=%.3g, v_num=%d]" % (loss, c.vnum) if c.plv < (2, 0) else ", v_num=%d, train_loss=%.3f]" % (c.vnum, loss)
            bar = "Epoch %d: " % ep + tqdm_bar(c, it, 2000, it * st, 1.0 / st, "")
            bar = bar[:-1] + extra
            s.rl[r].add(t, ("\r" + bar) if rng.random() < 0.7 else bar)
        elif c.style == "hf" and rng.random() < 0.5:
            s.rl[r].add(t - 0.01, " " + tqdm_bar(c, step, c.total_steps, step * st, 1.0 / st))
            s.rl[r].add(t, step_line(c, node, t, step, loss, lr, st, rng.uniform(0.001, 0.03), mem))
        else:
            s.rl[r].add(t, step_line(c, node, t, step, loss, lr, st, rng.uniform(0.001, 0.03), mem))
        nlog += 1
        if nlog > 220:
            # long run: user trimmed the middle of the log
            skip = int((t_to - t) / st) - every * 25
            if skip > every * 10:
                s.rl[r].add(t + 0.001, "[... %d lines trimmed ...]" % (skip // every))
                step += (skip // every) * every
                nlog = 0
    return step


def nccl_init_lines(c, s, r, t):
    rng = c.rng
    n = c.node_of[r]
    lr = c.lr_of[r]
    out = []
    net = c.netkind
    if r == 0:
        out.append(nccl_info(c, r, "NCCL version %s+cuda%s" % (c.nccl, c.cuda if c.ncv >= (2, 4) else c.cuda)))
    if c.ncv < (2, 12):
        out.append(nccl_info(c, r, "Bootstrap : Using [0]%s:%s<0>" % (c.ifname, c.ip[n])))
    else:
        out.append(nccl_info(c, r, "Bootstrap : Using %s:%s<0>" % (c.ifname, c.ip[n])))
    if c.ncv < (2, 19):
        out.append(nccl_info(c, r, "NET/Plugin : No plugin found (libnccl-net.so), using internal implementation"))
    else:
        out.append(nccl_info(c, r, "NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin."))
    if c.ncv >= (2, 17):
        out.append(nccl_info(c, r, "cudaDriverVersion %d" % (int(V(c.drv_cuda)[0]) * 1000 + int(V(c.drv_cuda)[1]) * 10)))
    if net == "socket":
        out.append(nccl_info(c, r, "NET/IB : No device found."))
        out.append(nccl_info(c, r, "NET/Socket : Using [0]%s:%s<0>" % (c.ifname, c.ip[n])))
        out.append(nccl_info(c, r, "Using network Socket"))
    else:
        kind = "RoCE" if net == "roce" else "IB"
        devs = " ".join("[%d]mlx5_%d:1/%s" % (k, k, kind) for k in range(c.nhca))
        out.append(nccl_info(c, r, "NET/IB : Using %s ; OOB %s:%s<0>" % (devs, c.ifname, c.ip[n])))
        out.append(nccl_info(c, r, "Using network IB"))
    if c.ncv >= (2, 8):
        out.append(nccl_info(c, r, "Setting affinity for GPU %d to %s" % (lr, "ffffffff,00000000,ffffffff" if lr < c.gpn // 2 else "ffffffff,00000000,ffffffff,00000000")))
    else:
        out.append(nccl_info(c, r, "Setting affinity for GPU %d to ffff,ffffffff" % lr))
    if r == 0:
        for ch in range(2):
            order = "".join("%4d" % k for k in range(min(c.world, 16)))
            if c.ncv >= (2, 8):
                out.append(nccl_info(c, r, "Channel %02d/%02d : %s" % (ch, 2, order)))
            elif c.ncv >= (2, 5):
                out.append(nccl_info(c, r, "Channel %02d : %s" % (ch, order)))
            else:
                out.append(nccl_info(c, r, "Ring %02d : %s" % (ch, " ".join(str(k) for k in range(min(c.world, 16))))))
    nxt = (r + 1) % c.world
    nlr = c.lr_of[nxt]
    for ch in range(2):
        if c.node_of[nxt] == n:
            if c.ncv >= (2, 19):
                out.append(nccl_info(c, r, "Channel %02d/0 : %d[%d] -> %d[%d] via P2P/CUMEM/read" % (ch, r, lr, nxt, nlr)))
            elif c.ncv >= (2, 12):
                out.append(nccl_info(c, r, "Channel %02d/0 : %d[%s] -> %d[%s] via P2P/IPC/read" % (ch, r, busid_short(c, lr), nxt, busid_short(c, nlr))))
            elif c.ncv >= (2, 8):
                out.append(nccl_info(c, r, "Channel %02d : %d[%s] -> %d[%s] via P2P/IPC/read" % (ch, r, busid_short(c, lr), nxt, busid_short(c, nlr))))
            else:
                out.append(nccl_info(c, r, "Ring %02d : %d[%d] -> %d[%d] via P2P/IPC" % (ch, r, lr, nxt, nlr)))
        else:
            tr = "NET/Socket/0" if net == "socket" else "NET/IB/%d/GDRDMA" % (lr % c.nhca)
            if c.ncv >= (2, 12):
                out.append(nccl_info(c, r, "Channel %02d/0 : %d[%s] -> %d[%s] [send] via %s" % (ch, r, busid_short(c, lr) if c.ncv < (2, 19) else str(lr), nxt, busid_short(c, nlr) if c.ncv < (2, 19) else str(nlr), tr)))
            else:
                out.append(nccl_info(c, r, "Ring %02d : %d[%d] -> %d[%d] [send] via %s" % (ch, r, lr, nxt, nlr, tr)))
    if c.ncv >= (2, 8):
        out.append(nccl_info(c, r, "Connected all rings"))
        out.append(nccl_info(c, r, "Connected all trees"))
        out.append(nccl_info(c, r, "threadThresholds 8/8/64 | %d/8/64 | 512 | 512" % (c.world * 8)))
    if c.ncv >= (2, 12):
        out.append(nccl_info(c, r, "2 coll channels, %s2 p2p channels, 2 p2p channels per peer" % ("0 nvls channels, " if c.ncv >= (2, 17) else "")))
    commp = "0x%x" % rng.randint(0x55d000000000, 0x55dfffffffff)
    if c.ncv < (2, 7):
        out.append(nccl_info(c, r, "comm %s rank %d nranks %d cudaDev %d nvmlDev %d - Init COMPLETE" % (commp, r, c.world, lr, lr)))
    elif c.ncv < (2, 19):
        out.append(nccl_info(c, r, "comm %s rank %d nranks %d cudaDev %d busId %s - Init COMPLETE" % (commp, r, c.world, lr, busid_short(c, lr))))
    elif c.ncv < (2, 21):
        out.append(nccl_info(c, r, "comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId 0x%016x - Init COMPLETE" % (commp, r, c.world, lr, lr, busid_short(c, lr), c.commid)))
    else:
        out.append(nccl_info(c, r, "ncclCommInitRank comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId 0x%016x - Init COMPLETE" % (commp, r, c.world, lr, lr, busid_short(c, lr), c.commid)))
        if c.ncv >= (2, 23):
            out.append(nccl_info(c, r, "Init timings - ncclCommInitRank: rank %d nranks %d total %.2f (kernels %.2f, alloc %.2f, bootstrap %.2f, allgathers %.2f, topo %.2f, graphs %.2f, connections %.2f, rest %.2f)" % (
                r, c.world, 1.2, 0.2, 0.05, 0.3, 0.02, 0.4, 0.01, 0.18, 0.04)))
    for i, x in enumerate(out):
        s.rl[r].add(t + i * 0.003, x)


def startup_warnings(c, s, r, t):
    """per-rank harmless-but-noisy lines of the era"""
    rng = c.rng
    n = c.node_of[r]
    out = []
    tv = c.tv
    if tv < (1, 5) and rng.random() < 0.5:
        out.append("%s/torch/optim/lr_scheduler.py:%d: UserWarning: Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, you should call them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first value of the learning rate schedule. See more details at https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate" % (c.site, rng.choice([82, 100, 122])))
        out.append('  "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate", UserWarning)')
    if (1, 5) <= tv < (1, 9) and rng.random() < 0.5:
        out.append("%s/torch/nn/functional.py:%d: UserWarning: Default upsampling behavior when mode=bilinear is changed to align_corners=False since 0.4.0. Please specify align_corners=True if the old behavior is desired. See the documentation of nn.Upsample for details." % (c.site, rng.choice([2854, 3000, 3060])))
    if (1, 9) <= tv < (2, 3):
        out.append(cpp_log(c, r, t, "W", "ProcessGroupNCCL.cpp:%d" % rng.choice([1569, 2090, 1816, 3534]),
                           "Rank %d using best-guess GPU %d to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect.Specify device_ids in barrier() to force use of a particular device." % (r, c.lr_of[r])))
    elif tv >= (2, 3):
        if tv < (2, 6):
            msg = "%s using GPU %d to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect.Specify device_ids in barrier() to force use of a particular device,or call init_process_group() with a device_id." % (pg_tag(c, r), c.lr_of[r])
        else:
            msg = "%s using GPU %d as device used by this process is currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect. You can pecify device_id in init_process_group() to force use of a particular device." % (pg_tag(c, r), c.lr_of[r])
        if rng.random() < 0.7:
            out.append(cpp_log(c, r, t, "W", "ProcessGroupNCCL.cpp:%d" % rng.choice([4115, 4561, 4715, 4817]), msg))
    if (1, 8) <= tv and rng.random() < 0.4:
        out.append(cpp_log(c, r, t + 30, "W", "reducer.cpp:%d" % rng.choice([1050, 1158, 1303, 1360, 1400]),
                           "Warning: find_unused_parameters=True was specified in DDP constructor, but did not find any unused parameters in the forward pass. This flag results in an extra traversal of the autograd graph every iteration,  which can adversely affect performance. If your model indeed never has any unused parameters in the forward pass, consider turning this flag off. Note that this warning may be a false positive if your model has flow control causing later iterations to have unused parameters. (function operator())"))
    if (1, 9) <= tv and rng.random() < 0.35:
        out.append("%s/torch/utils/data/dataloader.py:%d: UserWarning: This DataLoader will create %d worker processes in total. Our suggested max number of worker in current system is %d, which is smaller than what this DataLoader is going to create. Please be aware that excessive worker creation might get DataLoader running slow or even freeze, lower the worker number to avoid potential slowness/freeze if necessary." % (
            c.site, rng.choice([478, 487, 557, 617, 624]), 16, 12))
        out.append("  warnings.warn(_create_warning_msg(")
    if (2, 0) <= tv < (2, 3) and rng.random() < 0.3:
        out.append("%s/torch/_utils.py:%d: UserWarning: TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class. This should only matter to you if you are using storages directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()" % (c.site, rng.choice([776, 831])))
        out.append("  return self.fget.__get__(instance, owner)()")
    if tv >= (2, 4) and rng.random() < 0.4:
        out.append("%s/%s:%d: FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', args...)` instead." % (c.workdir, c.script, rng.randint(80, 200)))
        out.append("  scaler = torch.cuda.amp.GradScaler()")
    if (2, 4) <= tv < (2, 6) and rng.random() < 0.3:
        out.append("%s/%s:%d: FutureWarning: You are using `torch.load` with `weights_only=False` (the current default value), which uses the default pickle module implicitly. It is possible to construct malicious pickle data which will execute arbitrary code during unpickling (See https://github.com/pytorch/pytorch/blob/main/SECURITY.md#untrusted-models for more details). In a future release, the default value for `weights_only` will be flipped to `True`. This limits the functions that could be executed during unpickling. Arbitrary objects will no longer be allowed to be loaded via this mode unless they are explicitly allowlisted by the user via `torch.serialization.add_safe_globals`. We recommend you start setting `weights_only=True` for any use case where you don't have full control of the loaded file. Please open an issue on GitHub for any issues related to this experimental feature." % (c.workdir, "utils/checkpoint.py", rng.randint(20, 90)))
        out.append("  state = torch.load(path, map_location=\"cpu\")")
    if tv >= (2, 1) and rng.random() < 0.25:
        out.append("%s/torch/utils/checkpoint.py:%d: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.5 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants." % (c.site, rng.choice([460, 464, 295])))
    for i, x in enumerate(out):
        s.rl[r].add(t + 0.5 + i * 0.001, x)


# --------------------------------------------------------------------------------------
# scenario engine
# --------------------------------------------------------------------------------------
class Scn(object):
    def __init__(self, c):
        self.rl = {r: Stream() for r in c.ranks}
        self.kern = {n: Stream() for n in c.nodes}
        self.exit = {}          # rank -> (t, code)  code>0 exit status, <0 -signal, 0 ok
        self.extra = {}         # name -> text (layout decides where it goes)
        self.sched = None       # (kind, t, node)
        self.irank = None
        self.inode = None
        self.notes = []
        self.healthy = False
        self.errfile = {}       # rank -> (t, message, py_callstack)
        self.t_halt = None
        self.stacks = {}        # rank -> list of frame strings (innermost last) for py-spy / Ctrl-C
        self.node_killed = None  # (node, t, code) whole pod/node killed
        self.smi = {}           # node -> text of nvidia-smi output
        self.straggle = None
        self.kernel_always = False


def setup_run(c):
    rng = c.rng
    c.netkind = rng.choice(["ib", "ib", "roce", "socket"]) if c.nn > 1 else "ib"
    if c.layout == "accelerate_k8s":
        c.netkind = rng.choice(["socket", "roce", "ib"])
    c.ifname = rng.choice(["eth0", "ens3", "bond0", "ib0", "enp1s0f0"]) if c.netkind != "socket" else rng.choice(["eth0", "ens5", "bond0"])
    c.nhca = rng.choice([1, 2, 4, 8]) if c.netkind != "socket" else 0
    c.commid = rng.randint(1 << 60, (1 << 63) - 1)
    c.vnum = rng.randint(0, 40)
    c.t_train0 = c.t_start + rng.uniform(25, 160)
    c.ops_per_step = rng.randint(2, 24)
    c.seq_base = rng.randint(3, 40)
    c.record = c.rng.random() < 0.35 and c.tv >= (1, 10)
    c.user_async = rng.random() < 0.5
    choose_kern_style(c)
    choose_style(c)
    c.use_pyspy = rng.random() < 0.6
    c.py_patch = rng.randint(1, 14) if c.pv >= (3, 0) else rng.randint(12, 18)
    c.entry_legacy = rng.random() < 0.5


def async_on(c):
    if c.tv < (1, 8):
        return False
    if c.tv >= (2, 2):
        return True
    if c.layout in ("elastic_slurm", "elastic_logdir"):
        return True
    if c.layout == "accelerate_k8s":
        return True
    return c.user_async


def seq_at(c, t):
    return c.seq_base + int(step_at(c, t) * c.ops_per_step)


def pick_rank(c, avoid_zero=0.75):
    rng = c.rng
    if c.world == 1:
        return 0
    if rng.random() < avoid_zero:
        return rng.choice(c.ranks[1:])
    return 0


def fail_time(c):
    rng = c.rng
    dur = c.total_steps * c.st
    return c.t_train0 + min(dur * 0.8, rng.uniform(600, min(dur * 0.8, 14 * 3600)))


def peer_port(c):
    return c.rng.randint(32768, 60999)


def ib_err_text(c, peer_ip, status=12, local_ip=None, hca=0):
    rng = c.rng
    if c.ncv < (2, 12):
        return "NET/IB : Got completion with error %d, opcode %d, len %d, vendor err %d" % (
            status, rng.choice([0, 1]), rng.choice([0, 0, 32768]), 129 if status == 12 else 249)
    if c.ncv < (2, 19):
        return "NET/IB : Got completion from peer %s<%d> with error %d, opcode %d, len %d, vendor err %d" % (
            peer_ip, peer_port(c), status, rng.choice([0, 1]), rng.choice([0, 0, 32768]), 129 if status == 12 else 249)
    lg = ("::ffff:%s" % local_ip) if c.netkind == "roce" else "fe80::%x:%x:%x:%x" % tuple(rng.randint(0, 0xffff) for _ in range(4))
    rg = ("::ffff:%s" % peer_ip) if c.netkind == "roce" else "fe80::%x:%x:%x:%x" % tuple(rng.randint(0, 0xffff) for _ in range(4))
    side = rng.choice(["Send", "Recv"])
    if c.ncv < (2, 23):
        return "NET/IB : Got completion from peer %s<%d> with status=%d opcode=%d len=%d vendor err %d (%s) localGid %s remoteGids%s" % (
            peer_ip, peer_port(c), status, rng.choice([0, 1, 129]), rng.choice([0, 0, 65536]), 129 if status == 12 else 249, side, lg, rg)
    sname = {12: "IBV_WC_RETRY_EXC_ERR(12)", 5: "IBV_WC_WR_FLUSH_ERR(5)"}[status]
    return "NET/IB: Got completion from peer %s<%d> with status=%s opcode=%s reqSize=%d vendor_err=%d req_type=%s localGid %s remoteGids%s hca mlx5_%d" % (
        peer_ip, peer_port(c), sname, "IBV_WC_SEND(0)" if side == "Send" else "IBV_WC_RECV(128)", 0, 129 if status == 12 else 249, side, lg, rg, hca)


def sock_err_text(c, peer_ip, why="Connection reset by peer"):
    if c.ncv < (2, 12):
        return "Net : Connection closed by remote peer" if why == "closed" else "Call to recv failed : %s" % why
    if why == "closed":
        return "Net : Connection closed by remote peer %s<%d>" % (peer_ip, peer_port(c))
    return "socketProgressOpt: Call to recv from %s<%d> failed : %s" % (peer_ip, peer_port(c), why)


def net_warn_lines(c, r, t, peer_ip, status=12, why="closed"):
    """NCCL_DEBUG output for a transport error seen by rank r (only if NCCL_DEBUG is set)."""
    out = []
    tid = proxy_tid(c, r)
    n = c.node_of[r]
    if c.netkind == "socket":
        src = "misc/socket.cc:%d" % c.rng.choice([503, 538, 557]) if c.ncv >= (2, 12) else "include/socket.h:%d" % c.rng.choice([390, 409, 423])
        out.append(nccl_warn(c, r, src, sock_err_text(c, peer_ip, why), tid))
        code = 6 if c.ncv >= (2, 13) else 2
    else:
        src = "transport/net_ib.cc:%d" % (c.rng.choice([827, 1002, 1081]) if c.ncv < (2, 12) else c.rng.choice([1295, 1302, 1365]) if c.ncv < (2, 19) else c.rng.choice([1696, 2298, 2331]))
        out.append(nccl_warn(c, r, src, ib_err_text(c, peer_ip, status, c.ip[n], c.lr_of[r] % max(1, c.nhca)), tid))
        code = 6 if c.ncv >= (2, 13) else 2
    if c.ncv >= (2, 12):
        out.append(nccl_info(c, r, "transport/net.cc:%d -> %d" % (c.rng.choice([1298, 1302, 1387]), code), tid))
        out.append(nccl_info(c, r, "proxy.cc:%d -> %d" % (c.rng.choice([694, 698, 738]), code), tid))
        out.append(nccl_info(c, r, "proxy.cc:%d -> %d [Progress Thread]" % (c.rng.choice([874, 878, 925]), code), tid))
    else:
        out.append(nccl_info(c, r, "include/net.h:%d -> %d" % (c.rng.choice([23, 28, 34]), code), tid))
        out.append(nccl_info(c, r, "transport/net.cc:%d -> %d" % (c.rng.choice([357, 404, 537]), code), tid))
        out.append(nccl_info(c, r, "proxy.cc:%d -> %d [Proxy Thread]" % (c.rng.choice([198, 320, 431]), code), tid))
    return [(t + i * 0.0003, x) for i, x in enumerate(out)]


def last_err_for(c, peer_ip, why="closed", status=12):
    if c.netkind == "socket":
        return sock_err_text(c, peer_ip, why)
    return ib_err_text(c, peer_ip, status, None)


def neterr_reaction(c, s, r, t, peer_ip, why="closed", status=12):
    """rank r sees a transport error towards peer_ip at t and dies the way its torch version dies."""
    rng = c.rng
    if c.nccl_debug:
        for tt, x in net_warn_lines(c, r, t, peer_ip, status, why):
            s.rl[r].add(tt, x)
    kind = "remote" if c.ncv >= (2, 13) else "system"
    last = last_err_for(c, peer_ip, why, status)
    if c.tv < (2, 2):
        fr = user_frames(c, rng.choice(["backward", "allreduce"]))
        tb = traceback(c, fr, nccl_exc_lines(c, kind, last))
        s.rl[r].add(t + rng.uniform(0.01, 1.2), tb)
        s.exit[r] = (t + rng.uniform(1.3, 3.0), 1)
        return
    L = pgn(c)
    tag = pg_tag(c, r)
    seq = seq_at(c, t)
    out = []
    if c.tv >= (2, 4):
        out.append(cpp_log(c, r, t, "E", "ProcessGroupNCCL.cpp:%d" % L[4],
                           "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (tag, seq, seq + rng.randint(0, 2), seq - 1)))
    msg = nccl_exc_lines(c, kind, last)
    first = msg[0].replace("torch.distributed.DistBackendError: ", "")
    head = ("%s Process group watchdog thread terminated with exception: " % tag) if c.tv >= (2, 3) else ("[Rank %d] NCCL watchdog thread terminated with exception: " % r)
    out.append(cpp_log(c, r, t + 0.001, "E", "ProcessGroupNCCL.cpp:%d" % L[3], head + first))
    out.extend(msg[1:])
    src = "Exception raised from checkForNCCLErrorsInternal at %s:%d (most recent call first):" % (wd_src(c), rng.choice([1731, 2027, 2115, 2290]))
    fr = cpp_frames(c, [("c10::Error::Error(c10::SourceLocation, std::string)", "c10"),
                        ("c10d::ProcessGroupNCCL::checkForNCCLErrorsInternal(std::shared_ptr<c10d::NCCLComm>&)", "tcuda"),
                        ("c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException()", "tcuda"),
                        ("c10d::ProcessGroupNCCL::watchdogHandler()", "tcuda"),
                        ("c10d::ProcessGroupNCCL::ncclCommWatchdog()", "tcuda")] + thread_tail(c))
    out.append(src)
    out.extend(fr)
    out.append("")
    out.append("terminate called after throwing an instance of 'c10::DistBackendError'")
    out.append("  what():  " + head + first)
    out.extend(msg[1:])
    out.append(src)
    out.extend(fr)
    out.append("")
    for i, x in enumerate(out):
        s.rl[r].add(t + i * 0.0002, x)
    s.exit[r] = (t + rng.uniform(0.1, 0.6), -6)


def timeout_reaction(c, s, r, t_enq, seq, op="ALLREDUCE", nin=None, nout=None, last_enq=None, last_comp=None,
                     frec=False):
    rng = c.rng
    if not async_on(c):
        return None  # stuck forever
    if nin is None:
        nin = c.numel
    if nout is None:
        nout = nin
    t = t_enq + c.timeout_ms / 1000.0 + rng.uniform(0.05, 1.2)
    lines, t_exit = watchdog_timeout(c, r, t, seq, op, nin, nout,
                                     seq if last_enq is None else last_enq,
                                     seq - 1 if last_comp is None else last_comp, frec=frec)
    for tt, x in lines:
        s.rl[r].add(tt, x)
    s.exit[r] = (t_exit, -6)
    return t


def survivors(c, s, exclude, t_ev, seq, dead_node=None, prefer_net=0.55, dead_died=True, op="ALLREDUCE"):
    """React every rank not in exclude. dead_node: node whose rank(s) disappeared."""
    rng = c.rng
    use_net = dead_died and dead_node is not None and c.nn > 1 and rng.random() < prefer_net
    first_to = None
    for r in c.ranks:
        if r in exclude:
            continue
        n = c.node_of[r]
        if use_net and n != dead_node:
            neterr_reaction(c, s, r, t_ev + rng.uniform(0.5, 25.0), c.ip[dead_node],
                            why="closed" if rng.random() < 0.6 else "Connection reset by peer")
        else:
            tt = timeout_reaction(c, s, r, t_ev + rng.uniform(-1.0, 2.5), seq, op=op, frec=rng.random() < 0.5)
            if tt and (first_to is None or tt < first_to[0]):
                first_to = (tt, r)
    # 2.5+: flight-recorder dump signal propagates through the store to ranks not yet dead
    if first_to and c.tv >= (2, 5):
        for r in c.ranks:
            if r in exclude or r == first_to[1]:
                continue
            if rng.random() < 0.35:
                for tt, x in dump_signal_lines(c, r, first_to[0] + rng.uniform(0.2, 2.0), first_to[1], seq, seq - 1):
                    s.rl[r].add(tt, x)
    return use_net


def rank_banner(c, s):
    rng = c.rng
    r = 0
    n = c.node_of[0]
    t = c.t_start + rng.uniform(3, 12)
    lines = []
    if c.style in ("plain", "hf", "megatron"):
        lines.append("%s - INFO - __main__ - world_size=%d, backend=nccl, torch=%s, cuda=%s, nccl=%s" % (
            ts_py(c, n, t), c.world, c.torch, c.cuda, ".".join(c.nccl.split(".")[:3]) if c.tv >= (1, 5) else c.nccl.replace(".", "")))
        lines.append("%s - INFO - __main__ - model params: %.1fM, dtype=%s" % (
            ts_py(c, n, t + 6), rng.uniform(80, 13000), "bf16" if c.year >= 2021 and "V100" not in c.gpu else "fp16"))
    elif c.style == "d2":
        d = to_dt(lt(c, n, t))
        lines.append("[%s detectron2]: Rank of current process: 0. World size: %d" % (d.strftime("%m/%d %H:%M:%S"), c.world))
        lines.append("[%s detectron2]: Environment info:" % d.strftime("%m/%d %H:%M:%S"))
        lines.append("----------------------  --------------------------------------------------------------")
        lines.append("sys.platform            linux")
        lines.append("Python                  %s" % (c.py + ".%d" % c.py_patch))
        lines.append("PyTorch                 %s @%s/torch" % (c.torch, c.site))
        lines.append("GPU 0,1,2,3,4,5,6,7     %s" % c.gpu if c.gpn == 8 else "GPU 0,1,2,3             %s" % c.gpu)
        lines.append("CUDA_HOME               /usr/local/cuda")
        lines.append("NVCC                    Cuda compilation tools, release %s" % c.cuda)
        lines.append("----------------------  --------------------------------------------------------------")
    elif c.style == "mmcv":
        lines.append("%s - mmdet - INFO - Environment info:" % ts_py(c, n, t))
        lines.append("------------------------------------------------------------")
        lines.append("sys.platform: linux")
        lines.append("CUDA available: True")
        lines.append("GPU 0,1,2,3,4,5,6,7: %s" % c.gpu)
        lines.append("PyTorch: %s" % c.torch)
        lines.append("------------------------------------------------------------")
        lines.append("%s - mmdet - INFO - Distributed training: True" % ts_py(c, n, t + 0.2))
    elif c.style == "timm":
        lines.append("Training in distributed mode with multiple processes, 1 device per process.Process 0, total %d, device cuda:0." % c.world)
        lines.append("Model resnet50 created, param count:25557032")
    for i, x in enumerate(lines):
        s.rl[r].add(t + i * 0.001, x)


def baseline(c, s):
    rng = c.rng
    rank_banner(c, s)
    for r in c.ranks:
        t = c.t_start + rng.uniform(8, 20)
        if c.nccl_debug:
            nccl_init_lines(c, s, r, c.t_train0 - rng.uniform(2, 8))
        startup_warnings(c, s, r, t)


# --------------------------------------------------------------------------------------
# causes
# --------------------------------------------------------------------------------------
def k(c, s, node, t, msg):
    s.kern[node].add(t, kline(c, node, t, msg))


def gpu_uuid(c, lr):
    rng = random.Random("%s-%d-%s" % (c.nodes[0], lr, c.driver))
    h = "%032x" % rng.getrandbits(128)
    return "GPU-%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:32])


def nvrm_gpu_header(c, s, n, t, lr):
    if c.dmaj >= 450:
        k(c, s, n, t, "NVRM: GPU at PCI:%s: %s" % (pci_full(c, lr), gpu_uuid(c, lr)))
        k(c, s, n, t, "NVRM: GPU Board Serial Number: %d" % c.rng.randint(1320000000000, 1660000000000))


def cuda_fail_in_watchdog(c, s, r, t, msg, enum):
    """2.x: the CUDA error is hit by the NCCL watchdog thread -> c10::Error abort"""
    L = pgn(c)
    head = ("%s Process group watchdog thread terminated with exception: " % pg_tag(c, r)) if c.tv >= (2, 3) else (
        "[Rank %d] NCCL watchdog thread terminated with exception: " % r)
    body = cuda_error_lines(c, msg, enum)
    first = body[0].split(": ", 1)[1]
    src = "Exception raised from c10_cuda_check_implementation at %s/c10/cuda/CUDAException.cpp:%d (most recent call first):" % (
        c.torch_build, c.rng.choice([43, 44]))
    fr = cpp_frames(c, [("c10::Error::Error(c10::SourceLocation, std::string)", "c10"),
                        ("c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&)", "c10"),
                        ("c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool)", "c10cuda"),
                        ("c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const", "tcuda"),
                        ("c10d::ProcessGroupNCCL::WorkNCCL::isCompleted()", "tcuda"),
                        ("c10d::ProcessGroupNCCL::watchdogHandler()" if c.tv >= (2, 3) else "c10d::ProcessGroupNCCL::workCleanupLoop()", "tcuda"),
                        ("c10d::ProcessGroupNCCL::ncclCommWatchdog()", "tcuda")] + thread_tail(c))
    out = [cpp_log(c, r, t, "E", "ProcessGroupNCCL.cpp:%d" % (L[3] or 915), head + first)] + body[1:] + [src] + fr + [""]
    exc = "c10::DistBackendError" if c.tv >= (2, 3) else "std::runtime_error"
    out += ["terminate called after throwing an instance of '%s'" % exc, "  what():  " + head + first] + body[1:] + [src] + fr + [""]
    for i, x in enumerate(out):
        s.rl[r].add(t + i * 0.0002, x)
    s.exit[r] = (t + 0.3, -6)


def cuda_fail_in_python(c, s, r, t, msg, enum, kind=None):
    rng = c.rng
    fr = user_frames(c, kind or rng.choice(["backward", "forward", "allreduce"]))
    if c.tv < (1, 5) and rng.random() < 0.6:
        s.rl[r].add(t - 0.01, thc_fail(c, enum, msg))
    tb = traceback(c, fr, cuda_error_lines(c, msg, enum))
    s.rl[r].add(t, tb)
    s.exit[r] = (t + rng.uniform(0.5, 3.0), 1)
    if c.nccl_debug and rng.random() < 0.5:
        s.rl[r].add(t - 0.02, nccl_warn(c, r, "enqueue.cc:%d" % rng.choice([215, 1107, 1547]) if c.ncv >= (2, 8) else "include/enqueue.h:%d" % 54,
                                       ("Cuda failure %d '%s'" % (cuda_enum_num(c, enum), msg)) if c.ncv >= (2, 19) else "Cuda failure '%s'" % msg))


def sc_gpu_hardware(c, s):
    rng = c.rng
    r0 = pick_rank(c)
    n0 = c.node_of[r0]
    lr0 = c.lr_of[r0]
    t0 = fail_time(c)
    seq = seq_at(c, t0)
    gsp = c.dmaj >= 525 and c.system in ("dgxa100", "dgxh100", "dgxb200") and rng.random() < 0.5
    s.kernel_always = True
    if gsp:
        code = 119
        fn_no, fn_name = rng.choice([(76, "GSP_RM_CONTROL"), (10, "FREE"), (103, "GSP_RM_ALLOC")])
        for k_ in range(rng.randint(2, 5)):
            k(c, s, n0, t0 + k_ * 6.0, xid(c, lr0, 119, "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function %d (%s) (0x%x 0x%x)." % (
                lr0, fn_no, fn_name, rng.choice([0x20801702, 0x2080014b, 0x20803118]), rng.choice([4, 0x10, 0x8])),
                pid=c.pid[r0], pname=pyname(c)))
        if rng.random() < 0.5:
            k(c, s, n0, t0 + 31, xid(c, lr0, 120, "GSP task timeout @ pc:0x%x, task: 1" % rng.randint(0x400000, 0x4fffff)))
        desc = "Xid 119 (GSP RPC timeout)"
    else:
        code = 79
        nvrm_gpu_header(c, s, n0, t0, lr0)
        k(c, s, n0, t0 + 0.001, xid(c, lr0, 79, "GPU has fallen off the bus."))
        if c.dmaj >= 470:
            k(c, s, n0, t0 + 0.002, "NVRM: GPU %s.0: GPU has fallen off the bus." % pci_full(c, lr0))
        if c.dmaj >= 510:
            k(c, s, n0, t0 + 0.003, "NVRM: GPU %s.0: GPU serial number is %d." % (pci_full(c, lr0), rng.randint(1320000000000, 1660000000000)))
            k(c, s, n0, t0 + 0.01, "NVRM: A GPU crash dump has been created. If possible, please run")
            k(c, s, n0, t0 + 0.01, "NVRM: nvidia-bug-report.sh as root to collect this data before")
            k(c, s, n0, t0 + 0.01, "NVRM: the NVIDIA kernel module is unloaded.")
        desc = "Xid 79 (GPU fallen off the bus)"
    variant = rng.choice(["error", "error", "hang"])
    if variant == "error":
        msg, enum = rng.choice([("unspecified launch failure", "cudaErrorLaunchFailure"), ("unknown error", "cudaErrorUnknown")])
        te = t0 + rng.uniform(0.2, 8)
        if c.tv >= (2, 0) and rng.random() < 0.6:
            cuda_fail_in_watchdog(c, s, r0, te, msg, enum)
        else:
            cuda_fail_in_python(c, s, r0, te, msg, enum)
        survivors(c, s, [r0], te, seq, dead_node=n0)
        s.irank, s.inode = r0, n0
        s.notes.append("%s on %s GPU %s; rank %d got CUDA '%s' and died, others tore down" % (desc, n0, pci_full(c, lr0), r0, msg))
    else:
        # the process wedges inside the driver; no python error
        if c.tv >= (2, 3):
            for tt, x in heartbeat_fatal(c, r0, t0 + rng.choice([480, 600]) + rng.uniform(1, 30), stuck_s=rng.choice([480, 600])):
                s.rl[r0].add(tt, x)
            s.exit[r0] = (t0 + 700, -6)
        survivors(c, s, [r0], t0, seq, dead_node=n0, dead_died=False)
        s.inode = n0
        s.irank = r0 if (c.nccl_debug or c.tv >= (2, 3)) else None
        s.notes.append("%s on %s GPU %s (local rank %d); rank %d's process hung in the driver, peers hit the NCCL timeout" % (desc, n0, pci_full(c, lr0), lr0, r0))
    if rng.random() < 0.5:
        msg = ("Unable to determine the device handle for GPU%s.0: GPU is lost.  Reboot the system to recover this GPU" if c.dmaj >= 535
               else "Unable to determine the device handle for GPU%s.0: Unknown Error") % pci_full(c, lr0).upper().replace("0000:", "0000:")
        s.smi[n0] = "$ nvidia-smi\n" + msg + "\n"
    s.t_halt = t0


def sc_ecc_memory(c, s):
    rng = c.rng
    r0 = pick_rank(c)
    n0 = c.node_of[r0]
    lr0 = c.lr_of[r0]
    t0 = fail_time(c)
    seq = seq_at(c, t0)
    s.kernel_always = True
    nvrm_gpu_header(c, s, n0, t0, lr0)
    if c.system == "dgx1" or c.dmaj < 450:
        k(c, s, n0, t0, xid(c, lr0, 48, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (rng.randint(0, 7), rng.randint(0, 1)), pid=c.pid[r0], pname=pyname(c)))
        k(c, s, n0, t0 + 0.4, xid(c, lr0, 63, "Dynamic Page Retirement: New page retired, reboot to activate. (0x%016x)" % rng.randint(0x10000, 0xffffff), pid=c.pid[r0], pname=pyname(c)))
        desc = "Xid 48 double-bit ECC error"
    else:
        x = rng.choice([94, 95])
        if c.dmaj >= 525:
            txt = "Contained: SM (0x1). RST: No, D-RST: No" if x == 94 else "Uncontained: FBHUB. RST: Yes, D-RST: No"
        else:
            txt = "Contained ECC error." if x == 94 else "Uncontained ECC error."
        k(c, s, n0, t0, xid(c, lr0, x, txt, pid=c.pid[r0], pname=pyname(c)))
        k(c, s, n0, t0 + 0.2, xid(c, lr0, 63, "Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % rng.randint(0x10000, 0xffffff), pid=c.pid[r0], pname=pyname(c)))
        desc = "Xid %d uncorrectable ECC (%s)" % (x, "contained" if x == 94 else "uncontained")
    te = t0 + rng.uniform(0.05, 3)
    if c.tv >= (2, 0) and rng.random() < 0.5:
        cuda_fail_in_watchdog(c, s, r0, te, "uncorrectable ECC error encountered", "cudaErrorECCUncorrectable")
    else:
        cuda_fail_in_python(c, s, r0, te, "uncorrectable ECC error encountered", "cudaErrorECCUncorrectable")
    survivors(c, s, [r0], te, seq, dead_node=n0)
    if rng.random() < 0.7:
        s.smi[n0] = smi_ecc(c, lr0)
    s.irank, s.inode = r0, n0
    s.notes.append("%s on %s GPU %s -> rank %d CUDA 'uncorrectable ECC error encountered'" % (desc, n0, pci_full(c, lr0), r0))
    s.t_halt = te


def smi_ecc(c, lr):
    rng = c.rng
    p = "0000%s.0" % pci_full(c, lr)[4:].upper() if False else "00000000:%s:00.0" % c.pci[lr].upper()
    lines = ["$ nvidia-smi -q -d ECC,ROW_REMAPPER -i %d" % lr, "", "==============NVSMI LOG==============", "",
             "Timestamp                                 : (see file mtime)",
             "Driver Version                            : %s" % c.driver,
             "CUDA Version                              : %s" % c.drv_cuda, "",
             "Attached GPUs                             : %d" % c.gpn,
             "GPU %s" % p,
             "    ECC Mode",
             "        Current                           : Enabled",
             "        Pending                           : Enabled",
             "    ECC Errors",
             "        Volatile"]
    if c.dmaj < 450:
        lines += ["            Single Bit",
                  "                Device Memory         : %d" % rng.randint(0, 40),
                  "                Register File         : 0",
                  "                Total                 : %d" % rng.randint(0, 40),
                  "            Double Bit",
                  "                Device Memory         : %d" % rng.randint(1, 3),
                  "                Register File         : 0",
                  "                Total                 : %d" % rng.randint(1, 3)]
    else:
        lines += ["            SRAM Correctable              : 0",
                  "            SRAM Uncorrectable            : 0" if c.dmaj < 535 else "            SRAM Uncorrectable Parity     : 0",
                  ] + ([] if c.dmaj < 535 else ["            SRAM Uncorrectable SEC-DED    : 0"]) + [
                  "            DRAM Correctable              : %d" % rng.randint(0, 60),
                  "            DRAM Uncorrectable            : %d" % rng.randint(1, 4),
                  "    Remapped Rows",
                  "        Correctable Error                 : 0",
                  "        Uncorrectable Error               : %d" % rng.randint(1, 2),
                  "        Pending                           : Yes",
                  "        Remapping Failure Occurred        : %s" % rng.choice(["No", "No", "Yes"])]
    return "\n".join(lines) + "\n"


def sc_nvlink(c, s):
    rng = c.rng
    r0 = pick_rank(c)
    n0 = c.node_of[r0]
    lr0 = c.lr_of[r0]
    t0 = fail_time(c)
    seq = seq_at(c, t0)
    s.kernel_always = True
    link = rng.randint(0, 17 if c.system != "dgx1" else 5)
    if c.dmaj >= 460:
        regs = "(0x%x, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)" % rng.choice([0x10000, 0x8, 0x100000])
        k(c, s, n0, t0, xid(c, lr0, 74, "NVLink: fatal error detected on link %d%s" % (link, regs)))
    else:
        k(c, s, n0, t0, xid(c, lr0, 74, "NVLink: fatal error detected on link %d(0x%x, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)" % (link, rng.choice([0x10000, 0x8]))))
    if c.nvswitch:
        sw = rng.randint(0, 5)
        swpci = rng.choice(["86", "87", "88", "c8", "c9", "05"])
        k(c, s, n0, t0 + 0.02, "nvidia-nvswitch%d: SXid (PCI:0000:%s:00.0): %d, Fatal, Link %d LTSSM Fault Up" % (sw, swpci, 20034, rng.randint(0, 63)))
        k(c, s, n0, t0 + 0.02, "nvidia-nvswitch%d: SXid (PCI:0000:%s:00.0): %d, Severity 1 Engine instance %d Sub-engine instance 00" % (sw, swpci, 20034, rng.randint(0, 63)))
        k(c, s, n0, t0 + 0.02, "nvidia-nvswitch%d: SXid (PCI:0000:%s:00.0): %d, Data {0x%08x, 0x%08x, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000}" % (sw, swpci, 20034, rng.getrandbits(32), rng.getrandbits(20)))
        d = to_dt(lt(c, n0, t0 + 0.5))
        s.extra["fabricmanager.log@" + n0] = "\n".join([
            "[%s] [INFO] [tid %d] Received an inband message:  Message header details: magic Id:adbc request Id:%x status:0 type:3 length:40" % (d.strftime("%b %d %Y %H:%M:%S"), rng.randint(1000, 9999), rng.getrandbits(32)),
            "[%s] [ERROR] [tid %d] detected NVSwitch fatal error %d on fid 0 on NVSwitch pci bus id 00000000:%s:00.0 physical id %d port %d" % (
                d.strftime("%b %d %Y %H:%M:%S"), rng.randint(1000, 9999), 20034, swpci, sw, rng.randint(0, 63)),
            "[%s] [ERROR] [tid %d] NVSwitch fatal error detected on NVSwitch pci bus id 00000000:%s:00.0 physical id %d, all the GPUs on this NVSwitch will be reset and the fabric will be degraded" % (
                d.strftime("%b %d %Y %H:%M:%S"), rng.randint(1000, 9999), swpci, sw),
        ]) + "\n"
    if rng.random() < 0.6:
        te = t0 + rng.uniform(0.1, 5)
        msg, enum = "an uncorrectable NVLink error was detected during the execution", "cudaErrorNvlinkUncorrectable"
        if c.tv >= (2, 0) and rng.random() < 0.5:
            cuda_fail_in_watchdog(c, s, r0, te, msg, enum)
        else:
            cuda_fail_in_python(c, s, r0, te, msg, enum)
        survivors(c, s, [r0], te, seq, dead_node=n0)
        s.irank, s.inode = r0, n0
        s.notes.append("Xid 74 NVLink fatal error on %s GPU %s link %d; rank %d got 'uncorrectable NVLink error'" % (n0, pci_full(c, lr0), link, r0))
    else:
        survivors(c, s, [], t0, seq, dead_died=False)
        s.inode = n0
        s.notes.append("Xid 74 NVLink fatal error on %s GPU %s link %d; intra-node collectives stalled, %s" % (
            n0, pci_full(c, lr0), link, "every rank hit the watchdog" if async_on(c) else "the job hung until it was killed"))
    s.t_halt = t0


def nic_kernel_lines(c, s, n0, t0):
    rng = c.rng
    bus = rng.choice(["5e", "3b", "0c", "a1", "c1"])
    if c.netkind == "socket":
        if c.kv >= (5, 0):
            k(c, s, n0, t0, "bond0: (slave %s): link status definitely down, disabling slave" % rng.choice(["ens1f0", "enp94s0f0"]))
        else:
            k(c, s, n0, t0, "bond0: link status definitely down for interface %s, disabling it" % rng.choice(["ens1f0", "enp94s0f0"]))
        k(c, s, n0, t0 - 0.3, "mlx5_core 0000:%s:00.0 %s: Link down" % (bus, rng.choice(["ens1f0", "enp94s0f0"])))
        k(c, s, n0, t0 + 0.5, "bond0: now running without any active interface!")
    else:
        if c.kv >= (5, 0):
            k(c, s, n0, t0 - 0.2, "mlx5_core 0000:%s:00.0: mlx5_port_module_event:%d:(pid 0): Port module event[error]: module %d, Cable error, %s" % (
                bus, rng.choice([1098, 1131, 1157]), rng.randint(0, 3), rng.choice(["Bad or shorted cable/module", "High Temperature", "Power budget exceeded"])))
        else:
            k(c, s, n0, t0 - 0.2, "mlx5_core 0000:%s:00.0: mlx5_port_module_event:%d:(pid 0): Port module event: module %d, Cable unplugged" % (bus, rng.choice([1034, 1059]), rng.randint(0, 3)))
        k(c, s, n0, t0, "mlx5_core 0000:%s:00.0: Port: 1 Link DOWN" % bus if c.kv >= (5, 10) else "mlx5_core 0000:%s:00.0 %s: Link down" % (bus, "ib0"))
        if c.netkind == "ib":
            k(c, s, n0, t0 + 1.2, "ib0: lost carrier" if rng.random() < 0.5 else "mlx5_core 0000:%s:00.0: mlx5_fw_tracer_handle_traces:%d:(pid %d): FWTracer: Events were lost" % (bus, rng.choice([739, 812]), rng.randint(100, 9999)))


def sc_network(c, s):
    rng = c.rng
    if c.nn < 2:
        return sc_hang(c, s)
    n0 = rng.choice(c.nodes)
    t0 = fail_time(c)
    seq = seq_at(c, t0)
    s.kernel_always = True
    nic_kernel_lines(c, s, n0, t0)
    status = 12
    for r in c.ranks:
        n = c.node_of[r]
        te = t0 + rng.uniform(0.5, 20 if c.netkind != "socket" else 140)
        if n == n0:
            peer = c.ip[rng.choice([x for x in c.nodes if x != n0])]
            if c.nccl_debug and c.netkind != "socket" and rng.random() < 0.6:
                s.rl[r].add(te - 0.3, nccl_warn(c, r, "transport/net_ib.cc:%d" % rng.choice([88, 90, 132]),
                                                ("NET/IB : mlx5_%d:1 Got async event : port error" % (c.lr_of[r] % max(1, c.nhca))) if c.ncv >= (2, 12) else "NET/IB : Got async event : port error",
                                                proxy_tid(c, r) + 1))
            neterr_reaction(c, s, r, te, peer, why="Connection timed out", status=rng.choice([12, 5]))
        else:
            if rng.random() < 0.8:
                neterr_reaction(c, s, r, te, c.ip[n0], why="Connection timed out", status=status)
            else:
                timeout_reaction(c, s, r, t0, seq)
    s.inode = n0
    s.notes.append("%s link on %s (%s) went down; every rank's transport errors point at %s" % (
        {"ib": "InfiniBand", "roce": "RoCE", "socket": "Ethernet"}[c.netkind], n0, c.ip[n0], c.ip[n0]))
    s.t_halt = t0


def sc_cuda_oom(c, s):
    rng = c.rng
    r0 = pick_rank(c)
    n0 = c.node_of[r0]
    t0 = fail_time(c)
    seq = seq_at(c, t0)
    fr = user_frames(c, rng.choice(["forward", "backward"]))
    req = rng.choice([20, 64, 128, 256, 512, 1024, 2000, 3072]) * (1 << 20)
    tb = traceback(c, fr, oom_lines(c, c.lr_of[r0], req, c.pid[r0]))
    s.rl[r0].add(t0, tb)
    s.exit[r0] = (t0 + rng.uniform(0.8, 4), 1)
    if c.record:
        s.errfile[r0] = (t0, tb.split("\n")[-1], tb)
    survivors(c, s, [r0], t0, seq, dead_node=n0)
    s.irank, s.inode = r0, n0
    s.notes.append("rank %d ran out of GPU memory (long batch) and raised; the rest is teardown" % r0)
    s.t_halt = t0


def sc_illegal_memory_access(c, s):
    rng = c.rng
    r0 = pick_rank(c)
    n0 = c.node_of[r0]
    lr0 = c.lr_of[r0]
    t0 = fail_time(c)
    seq = seq_at(c, t0)
    variant = rng.choice(["illegal", "assert", "illegal_wd" if c.tv >= (2, 0) else "illegal"])
    if variant == "assert":
        for i, x in enumerate(device_assert_lines(c, rng.randint(3, 12))):
            s.rl[r0].add(t0 - 0.01 + i * 0.0001, x)
        te = t0 + 0.02
        if c.tv >= (2, 0) and rng.random() < 0.5:
            cuda_fail_in_watchdog(c, s, r0, te, "device-side assert triggered", "cudaErrorAssert")
        else:
            cuda_fail_in_python(c, s, r0, te, "device-side assert triggered", "cudaErrorAssert", kind=rng.choice(["forward", "backward"]))
        if rng.random() < 0.5:
            k(c, s, n0, t0, xid(c, lr0, 43, "Ch %08x" % rng.choice([8, 0x10, 0x18]), pid=c.pid[r0], pname=pyname(c)))
        s.notes.append("device-side assert (bad label / index) on rank %d" % r0)
    else:
        te = t0
        if variant == "illegal_wd":
            cuda_fail_in_watchdog(c, s, r0, te, "an illegal memory access was encountered", "cudaErrorIllegalAddress")
        else:
            cuda_fail_in_python(c, s, r0, te, "an illegal memory access was encountered", "cudaErrorIllegalAddress")
        if rng.random() < 0.6:
            if rng.random() < 0.5:
                k(c, s, n0, t0 - 0.05, xid(c, lr0, 13, "Graphics SM Warp Exception on (GPC %d, TPC %d%s): Out Of Range Address" % (
                    rng.randint(0, 7), rng.randint(0, 8), ", SM %d" % rng.randint(0, 1) if c.dmaj >= 450 else ""), pid=c.pid[r0], pname=pyname(c)))
                k(c, s, n0, t0 - 0.05, xid(c, lr0, 13, "Graphics Exception: ESR 0x%x=0x%x 0x%x=0x24 0x%x=0x%x 0x%x=0x174" % (
                    0x514730, rng.getrandbits(28), 0x514734, 0x514728, rng.getrandbits(28), 0x51472c), pid=c.pid[r0], pname=pyname(c)))
            else:
                k(c, s, n0, t0 - 0.05, xid(c, lr0, 31, "Ch %08x, intr %08x. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_%d faulted @ 0x%x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (
                    rng.choice([8, 0x10]), rng.choice([0, 0x10000000]), rng.randint(0, 15), rng.randint(0x7f00, 0x7fff), rng.getrandbits(32)), pid=c.pid[r0], pname=pyname(c)))
        s.notes.append("illegal memory access in a custom kernel on rank %d" % r0)
    survivors(c, s, [r0], te, seq, dead_node=n0)
    s.irank, s.inode = r0, n0
    s.t_halt = t0


def pyexc_variant(c, r, t):
    rng = c.rng
    v = rng.choice(["keyerror_worker", "shape", "filenotfound", "nan_assert", "json", "zerodiv"])
    site = c.site
    ds = c.workdir + "/" + rng.choice(["data/dataset.py", "datasets/jsonl_dataset.py", "dataloaders/coco.py"])
    if v == "keyerror_worker" and c.tv >= (1, 4) and c.pv >= (3, 0):
        key = rng.choice(["label", "input_ids", "boxes", "caption"])
        inner_frames = [(site + "/torch/utils/data/_utils/worker.py", rng.choice([287, 302, 308, 349, 351]), "_worker_loop", "data = fetcher.fetch(index)" if c.tv < (2, 1) else "data = fetcher.fetch(index)  # type: ignore[possibly-undefined]", "call")]
        if c.pv < (3, 12):
            inner_frames.append((site + "/torch/utils/data/_utils/fetch.py", rng.choice([49, 51, 52]), "fetch", "data = [self.dataset[idx] for idx in possibly_batched_index]", "call"))
            inner_frames.append((site + "/torch/utils/data/_utils/fetch.py", rng.choice([49, 51, 52]), "<listcomp>", "data = [self.dataset[idx] for idx in possibly_batched_index]", "call"))
        else:
            inner_frames.append((site + "/torch/utils/data/_utils/fetch.py", rng.choice([52, 55]), "fetch", "data = [self.dataset[idx] for idx in possibly_batched_index]", "call"))
        inner_frames.append((ds, rng.randint(40, 180), "__getitem__", 'target = record["%s"]' % key, "sub"))
        inner = traceback(c, inner_frames, "KeyError: '%s'" % key)
        wk = rng.randint(0, 7)
        msg = "KeyError: Caught KeyError in DataLoader worker process %d.\nOriginal %s\n" % (wk, inner)
        return traceback(c, user_frames(c, "data"), msg), "KeyError in dataset record (DataLoader worker %d)" % wk
    if v == "shape":
        a = rng.choice([1024, 2048, 512, 4096])
        msg = "RuntimeError: The size of tensor a (%d) must match the size of tensor b (%d) at non-singleton dimension %d" % (a, a - rng.randint(1, 3), rng.randint(1, 2))
        fr = user_frames(c, "forward") + [(c.workdir + "/models/" + rng.choice(["attention.py", "transformer.py", "blocks.py"]), rng.randint(50, 300), "forward", "x = x + self.pos_embed", None)]
        return traceback(c, fr, msg), "tensor shape mismatch in forward"
    if v == "filenotfound":
        path = rng.choice(["/data/shards/train-%05d-of-01024.tar" % rng.randint(0, 1023), "/mnt/datasets/laion/part-%04d.parquet" % rng.randint(0, 9999),
                           "/scratch/%s/cache/tokenized_%d.npy" % (c.user, rng.randint(0, 63))])
        name = py_exc_name(c, "FileNotFoundError")
        fr = user_frames(c, "data")[:2] + [(ds, rng.randint(30, 150), "_load_shard", "with open(path, \"rb\") as f:", None)]
        return traceback(c, fr, "%s: [Errno 2] No such file or directory: '%s'" % (name, path)), "missing data shard %s" % path
    if v == "nan_assert":
        step = step_at(c, t)
        fr = user_frames(c, "backward")[:2] + [(c.workdir + "/" + c.script, rng.randint(150, 400), "train_one_epoch",
                                                 'assert torch.isfinite(loss), f"non-finite loss {loss.item()} at step {step}"' if c.pv >= (3, 6) else 'assert torch.isfinite(loss), "non-finite loss at step %d" % step', None)]
        return traceback(c, fr, "AssertionError: non-finite loss %sat step %d" % ("nan " if c.pv >= (3, 6) else "", step)), "loss went NaN on this rank, user assert fired"
    if v == "json" and c.pv >= (3, 5):
        fr = user_frames(c, "data")[:2] + [(ds, rng.randint(30, 150), "__getitem__", "rec = json.loads(line)", "call"),
                                           (c.pylib + "/json/__init__.py", 346, "loads", "return _default_decoder.decode(s)", "call"),
                                           (c.pylib + "/json/decoder.py", 337, "decode", "obj, end = self.raw_decode(s, idx=_w(s, 0).end())", "call"),
                                           (c.pylib + "/json/decoder.py", 355, "raw_decode", "raise JSONDecodeError(\"Expecting value\", s, err.value) from None", None)]
        return traceback(c, fr, "json.decoder.JSONDecodeError: Expecting value: line 1 column %d (char %d)" % (rng.randint(1, 9000), rng.randint(0, 9000))), "corrupt jsonl line"
    fr = user_frames(c, "allreduce")[:2] + [(c.workdir + "/utils/metrics.py", rng.randint(20, 90), "throughput", "return n_tokens / elapsed", None)]
    return traceback(c, fr, "ZeroDivisionError: %s" % ("float division by zero" if c.pv >= (3, 0) else "float division by zero")), "ZeroDivisionError in metrics"


def sc_python_exception(c, s):
    rng = c.rng
    r0 = pick_rank(c)
    n0 = c.node_of[r0]
    t0 = fail_time(c)
    seq = seq_at(c, t0)
    tb, what = pyexc_variant(c, r0, t0)
    s.rl[r0].add(t0, tb)
    s.exit[r0] = (t0 + rng.uniform(0.5, 6), 1)
    if c.record:
        s.errfile[r0] = (t0, tb.rstrip().split("\n")[-1], tb)
    survivors(c, s, [r0], t0, seq, dead_node=n0)
    s.irank, s.inode = r0, n0
    s.notes.append("uncaught exception on rank %d: %s" % (r0, what))
    s.t_halt = t0


def oom_kernel_lines(c, s, n0, t, victim_pid, comm=None):
    rng = c.rng
    comm = comm or pyname(c)
    s.oom_victim = (victim_pid, comm)
    uid = rng.choice([0, 1000, 1001, 22181, 50113])
    cg = c.layout in ("elastic_slurm", "lightning_slurm", "accelerate_k8s") or (c.layout == "legacy_launch" and c.legacy_mode == "sbatch")
    total_vm = rng.randint(60, 180) * 1024 * 1024
    anon = rng.randint(40, 110) * 1024 * 1024
    if c.kv < (4, 0):
        k(c, s, n0, t - 0.01, "%s invoked oom-killer: gfp_mask=0xd0, order=0, oom_score_adj=0" % comm)
        k(c, s, n0, t, "%s out of memory: Kill process %d (%s) score %d or sacrifice child" % ("Memory cgroup" if cg else "Out of memory:", victim_pid, comm, rng.randint(600, 999)) if cg else
          "Out of memory: Kill process %d (%s) score %d or sacrifice child" % (victim_pid, comm, rng.randint(600, 999)))
        k(c, s, n0, t + 0.001, "Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB" % (
            victim_pid, comm, total_vm, anon, rng.randint(10000, 900000), rng.randint(0, 4000000)))
    elif c.kv < (4, 19):
        k(c, s, n0, t - 0.01, "%s invoked oom-killer: gfp_mask=0x14200ca(GFP_HIGHUSER_MOVABLE), nodemask=(null), order=0, oom_score_adj=0" % comm)
        k(c, s, n0, t, ("Memory cgroup out of memory: Kill process %d (%s) score %d or sacrifice child" if cg else
                        "Out of memory: Kill process %d (%s) score %d or sacrifice child") % (victim_pid, comm, rng.randint(600, 999)))
        k(c, s, n0, t + 0.001, "Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB" % (
            victim_pid, comm, total_vm, anon, rng.randint(10000, 900000), rng.randint(0, 4000000)))
    else:
        k(c, s, n0, t - 0.01, "%s invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0" % comm)
        if cg:
            memcg = "/slurm/uid_%d/job_%d" % (rng.randint(1000, 60000), c.jobid) if c.layout != "accelerate_k8s" else "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice" % "".join(rng.choice("0123456789abcdef") for _ in range(8))
            k(c, s, n0, t, "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=%s,mems_allowed=0-1,oom_memcg=%s,task_memcg=%s,task=%s,pid=%d,uid=%d" % (
                "/" if c.layout == "accelerate_k8s" else "slurm", memcg, memcg + ("/step_0" if c.layout != "accelerate_k8s" else "/cri-containerd-%s.scope" % "".join(rng.choice("0123456789abcdef") for _ in range(12))), comm, victim_pid, uid))
            k(c, s, n0, t + 0.001, "Memory cgroup out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:%d" % (
                victim_pid, comm, total_vm, anon, rng.randint(10000, 900000), rng.randint(0, 4000000), uid, rng.randint(80000, 300000), 936 if c.layout == "accelerate_k8s" else 0))
        else:
            k(c, s, n0, t, "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/user.slice/user-%d.slice/session-%d.scope,task=%s,pid=%d,uid=%d" % (
                rng.randint(1000, 60000), rng.randint(1, 900), comm, victim_pid, rng.randint(1000, 60000)))
            k(c, s, n0, t + 0.001, "Out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (
                victim_pid, comm, total_vm, anon, rng.randint(10000, 900000), rng.randint(0, 4000000), rng.randint(1000, 60000), rng.randint(80000, 300000)))
        if c.kv >= (5, 0):
            k(c, s, n0, t + 0.3, "oom_reaper: reaped process %d (%s), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB" % (victim_pid, comm))


def dl_worker_killed_tb(c, r, wpid, sig="Killed"):
    rng = c.rng
    site = c.site
    pl = c.pylib
    dl = site + "/torch/utils/data/dataloader.py"
    inner = [(dl, rng.choice([990, 1132, 1133, 1243]), "_try_get_data", "data = self._data_queue.get(timeout=timeout)", "call"),
             (pl + "/multiprocessing/queues.py", rng.choice([104, 107, 113]), "get", "if not self._poll(timeout):", None),
             (pl + "/multiprocessing/connection.py", 257, "poll", "return self._poll(timeout)", "call"),
             (pl + "/multiprocessing/connection.py", rng.choice([424, 440]), "_poll", "r = wait([self], timeout)", "call"),
             (pl + "/multiprocessing/connection.py", rng.choice([931, 947, 1136]), "wait", "ready = selector.select(timeout)", "call"),
             (pl + "/selectors.py", 415 if c.pv < (3, 11) else 416, "select", "fd_event_list = self._selector.poll(timeout)", "call"),
             (site + "/torch/utils/data/_utils/signal_handling.py", rng.choice([66, 67, 73]), "handler", "_error_if_any_worker_fails()", None)]
    extra = ""
    if sig == "Bus error":
        extra = " It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit."
    first = traceback(c, inner, "RuntimeError: DataLoader worker (pid %d) is killed by signal: %s. %s" % (wpid, sig, extra.strip()) if extra else
                      "RuntimeError: DataLoader worker (pid %d) is killed by signal: %s. " % (wpid, sig))
    outer = user_frames(c, "data")[:3] + [(dl, rng.choice([630, 633, 681]), "__next__", "data = self._next_data()", "call"),
                                          (dl, rng.choice([1328, 1329, 1345]), "_next_data", "idx, data = self._get_data()", "call"),
                                          (dl, rng.choice([1294, 1295, 1311]), "_get_data", "success, data = self._try_get_data()", "call"),
                                          (dl, rng.choice([1003, 1146, 1145, 1256]), "_try_get_data",
                                           "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e" if c.tv >= (1, 9)
                                           else "raise RuntimeError('DataLoader worker (pid(s) {}) exited unexpectedly'.format(pids_str))", None)]
    second = traceback(c, outer, "RuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly" % wpid)
    return first + "\n\nThe above exception was the direct cause of the following exception:\n\n" + second


def sc_host_oom_kill(c, s):
    rng = c.rng
    r0 = pick_rank(c)
    n0 = c.node_of[r0]
    t0 = fail_time(c)
    seq = seq_at(c, t0)
    s.kernel_always = rng.random() < 0.75
    whole_pod = c.layout == "accelerate_k8s" and V(c.k8s) >= (1, 28)
    if whole_pod:
        # cgroup v2 memory.oom.group: kubelet reports the whole container OOMKilled
        for r in c.ranks_on[n0]:
            s.exit[r] = (t0 + rng.uniform(0.0, 0.2), -9)
        oom_kernel_lines(c, s, n0, t0, c.pid[r0])
        s.node_killed = (n0, t0, 137)
        survivors(c, s, c.ranks_on[n0], t0, seq, dead_node=n0)
        s.inode = n0
        s.notes.append("container memory limit hit on pod %s; cgroup v2 OOM group kill took the whole pod down (OOMKilled)" % n0)
        s.t_halt = t0
        return
    if rng.random() < 0.5 and c.pv >= (3, 0) and c.tv >= (1, 2):
        wpid = c.pid[r0] + rng.randint(150, 900)
        oom_kernel_lines(c, s, n0, t0, wpid, comm=rng.choice(["python", "pt_data_worker"]) if c.tv >= (2, 1) else "python")
        tb = dl_worker_killed_tb(c, r0, wpid)
        s.rl[r0].add(t0 + rng.uniform(0.05, 2), tb)
        s.exit[r0] = (t0 + rng.uniform(2.1, 5), 1)
        s.notes.append("host OOM killer killed a DataLoader worker (pid %d) of rank %d on %s" % (wpid, r0, n0))
    else:
        oom_kernel_lines(c, s, n0, t0, c.pid[r0])
        s.exit[r0] = (t0 + 0.01, -9)
        s.notes.append("host OOM killer killed rank %d (pid %d) on %s" % (r0, c.pid[r0], n0))
    survivors(c, s, [r0], t0, seq, dead_node=n0)
    s.tag_slurm_oom = True
    s.irank, s.inode = r0, n0
    s.t_halt = t0


def sc_crash_signal(c, s):
    rng = c.rng
    r0 = pick_rank(c)
    n0 = c.node_of[r0]
    lr0 = c.lr_of[r0]
    t0 = fail_time(c)
    seq = seq_at(c, t0)
    v = rng.choice(["segv", "segv", "abrt", "bus"])
    if v == "bus" and (c.pv < (3, 0) or c.tv < (1, 2)):
        v = "segv"
    if v == "segv":
        if rng.random() < 0.5 and c.pv >= (3, 3):
            lines = ["Fatal Python error: Segmentation fault", ""]
            lines.append("Thread 0x%016x (most recent call first):" % rng.randint(0x7f0000000000, 0x7fffffffffff))
            lines.append('  File "%s/threading.py", line %d in wait' % (c.pylib, rng.choice([302, 306, 320, 324, 331])))
            lines.append('  File "%s/queue.py", line 180 in get' % c.pylib)
            lines.append('  File "%s/torch/utils/data/_utils/pin_memory.py", line %d in _pin_memory_loop' % (c.site, rng.choice([28, 31, 49, 53])))
            lines.append("")
            lines.append("Current thread 0x%016x (most recent call first):" % rng.randint(0x7f0000000000, 0x7fffffffffff))
            lines.append('  File "%s/models/%s", line %d in forward' % (c.workdir, rng.choice(["fused_ops.py", "custom_attn.py"]), rng.randint(30, 200)))
            lines.append('  File "%s/torch/nn/modules/module.py", line %d in _call_impl' % (c.site, rng.randint(1100, 1760)))
            lines.append('  File "%s/%s", line %d in train_one_epoch' % (c.workdir, c.script, rng.randint(100, 400)))
            lines.append('  File "%s/%s", line %d in main' % (c.workdir, c.script, rng.randint(400, 600)))
            lines.append('  File "%s/%s", line %d in <module>' % (c.workdir, c.script, rng.randint(600, 700)))
            if c.pv >= (3, 10):
                lines.append("")
                lines.append("Extension modules: numpy.core._multiarray_umath, numpy.core._multiarray_tests, numpy.linalg._umath_linalg, torch._C, torch._C._fft, torch._C._linalg, torch._C._nn, torch._C._sparse, torch._C._special, yaml._yaml, PIL._imaging (total: %d)" % rng.randint(18, 60))
            s.rl[r0].add(t0, "\n".join(lines))
        if rng.random() < 0.6:
            lib = rng.choice(["libtorch_cpu.so", "libc.so.6", "_C.cpython-%s-x86_64-linux-gnu.so" % c.py.replace(".", ""), "libgomp.so.1"])
            extra = (" likely on CPU %d (core %d, socket %d)" % (rng.randint(0, 127), rng.randint(0, 31), rng.randint(0, 1))) if c.kv >= (5, 15) else ""
            k(c, s, n0, t0 + 0.001, "%s[%d]: segfault at %x ip %016x sp %016x error %d in %s[%x+%x]%s" % (
                pyname(c), c.pid[r0], rng.choice([0, 8, 0x18, 0x7f12a0]), rng.randint(0x7f0000000000, 0x7fffffffffff), rng.randint(0x7ff000000000, 0x7fffffffffff),
                rng.choice([4, 6]), lib, rng.randint(0x7f0000000000, 0x7fffffffffff) & ~0xfff, rng.randint(0x100000, 0x9000000) & ~0xfff, extra))
            if c.kv >= (5, 0) and rng.random() < 0.5:
                k(c, s, n0, t0 + 0.001, "Code: " + " ".join("%02x" % rng.randint(0, 255) for _ in range(42)))
        s.exit[r0] = (t0 + 0.01, -11)
        what = "SIGSEGV"
    elif v == "abrt":
        msg = rng.choice(["double free or corruption (!prev)", "free(): invalid pointer", "malloc(): corrupted top size",
                          "corrupted size vs. prev_size", "munmap_chunk(): invalid pointer"])
        s.rl[r0].add(t0, msg)
        s.exit[r0] = (t0 + 0.01, -6)
        what = "SIGABRT from glibc ('%s')" % msg
    else:
        wpid = c.pid[r0] + rng.randint(150, 900)
        s.rl[r0].add(t0, "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).")
        s.rl[r0].add(t0 + 0.3, dl_worker_killed_tb(c, r0, wpid, sig="Bus error"))
        s.exit[r0] = (t0 + 1.5, 1)
        what = "SIGBUS in DataLoader worker %d (/dev/shm too small)" % wpid
    survivors(c, s, [r0], t0, seq, dead_node=n0)
    s.irank, s.inode = r0, n0
    s.notes.append("rank %d died with %s, no hardware errors" % (r0, what))
    s.t_halt = t0


def sc_preemption(c, s):
    rng = c.rng
    t0 = fail_time(c)
    if c.layout == "accelerate_k8s":
        n0 = rng.choice(c.nodes)
        for r in c.ranks_on[n0]:
            s.exit[r] = (t0 + rng.uniform(0.5, 3), -15)
        s.node_killed = (n0, t0, 143)
        s.sched = ("k8s_preempt", t0, n0)
        survivors(c, s, c.ranks_on[n0], t0 + 2, seq_at(c, t0), dead_node=n0)
        s.inode = n0
        s.notes.append("spot/preemptible k8s node under pod %s was reclaimed; the pod got SIGTERM and the others lost their peer" % n0)
    else:
        kind = rng.choice(["preempt", "timelimit"])
        s.sched = (kind, t0, None)
        for r in c.ranks:
            s.exit[r] = (t0 + rng.uniform(0.3, 4), -15)
        s.notes.append("slurm %s: job cancelled by the scheduler, all ranks SIGTERM" % ("preemption" if kind == "preempt" else "time limit"))
    s.t_halt = t0


def stuck_stack(c, kind):
    rng = c.stable("ss:" + kind)
    if kind == "data" and c.tv < (1, 2):
        fr = ["_worker_loop (torch/utils/data/dataloader.py:%d)" % rng.choice([138, 139]),
              "__getitem__ (%s:%d)" % (rng.choice(["data/dataset.py", "datasets/shards.py"]), rng.randint(40, 160)),
              "read (%s:%d)" % (rng.choice(["PIL/ImageFile.py", "data/io.py"]), rng.randint(100, 800))]
        main = ["<module> (%s:%d)" % (c.script, rng.randint(600, 700)), "main (%s:%d)" % (c.script, rng.randint(400, 600)),
                "train_one_epoch (engine.py:%d)" % rng.randint(60, 200),
                "__next__ (torch/utils/data/dataloader.py:%d)" % rng.choice([627, 631]),
                "_get_batch (torch/utils/data/dataloader.py:%d)" % rng.choice([602, 608]),
                ("get (Queue.py:%d)" % 168) if c.pv < (3, 0) else "get (queue.py:%d)" % 164,
                ("wait (threading.py:%d)" % 359) if c.pv < (3, 0) else "wait (threading.py:%d)" % 299]
        return main, fr
    if kind == "data":
        fr = ["_worker_loop (torch/utils/data/_utils/worker.py:%d)" % rng.choice([287, 302, 308]),
              "fetch (torch/utils/data/_utils/fetch.py:%d)" % rng.choice([49, 51, 52]),
              "__getitem__ (%s:%d)" % (rng.choice(["data/dataset.py", "datasets/shards.py"]), rng.randint(40, 160)),
              "read (%s:%d)" % (rng.choice(["PIL/ImageFile.py", "h5py/_hl/dataset.py", "data/io.py"]), rng.randint(100, 800))]
        main = ["<module> (%s:%d)" % (c.script, rng.randint(600, 700)), "main (%s:%d)" % (c.script, rng.randint(400, 600)),
                "train_one_epoch (engine.py:%d)" % rng.randint(60, 200),
                "__next__ (torch/utils/data/dataloader.py:%d)" % rng.choice([628, 633, 681]),
                "_next_data (torch/utils/data/dataloader.py:%d)" % rng.choice([1316, 1328, 1329]),
                "_get_data (torch/utils/data/dataloader.py:%d)" % rng.choice([1282, 1294, 1295]),
                "_try_get_data (torch/utils/data/dataloader.py:%d)" % rng.choice([1120, 1132, 1133]),
                "get (multiprocessing/queues.py:%d)" % rng.choice([107, 113]),
                "poll (multiprocessing/connection.py:257)", "_poll (multiprocessing/connection.py:424)",
                "wait (multiprocessing/connection.py:931)", "select (selectors.py:415)"]
        return main, fr
    if kind == "hang":
        opt = rng.choice(["flag", "lock", "ckpt"])
        main = ["<module> (%s:%d)" % (c.script, rng.randint(600, 700)), "main (%s:%d)" % (c.script, rng.randint(400, 600)),
                "train_one_epoch (engine.py:%d)" % rng.randint(60, 200)]
        if opt == "flag":
            main += ["wait_for_flag (utils/sync.py:%d)" % rng.randint(20, 60), "sleep (<built-in>)" if False else "wait_for_flag (utils/sync.py:%d)" % rng.randint(61, 70)]
        elif opt == "lock":
            main += ["log_metrics (utils/logger.py:%d)" % rng.randint(30, 90), "emit (logging/__init__.py:%d)" % rng.choice([1083, 1100, 1163]),
                     "acquire (logging/__init__.py:%d)" % rng.choice([905, 917, 922])]
        else:
            main += ["maybe_resume_or_wait (utils/checkpoint.py:%d)" % rng.randint(50, 140), "wait (threading.py:%d)" % rng.choice([302, 320, 324]),
                     "wait (threading.py:%d)" % rng.choice([581, 607, 622])]
        return main, None
    # collective stack (survivor)
    main = ["<module> (%s:%d)" % (c.script, rng.randint(600, 700)), "main (%s:%d)" % (c.script, rng.randint(400, 600)),
            "train_one_epoch (engine.py:%d)" % rng.randint(60, 200)]
    if kind.startswith("coll_"):
        op = kind[5:]
        fn = {"BROADCAST": "broadcast", "ALLGATHER": "all_gather", "ALLREDUCE": "all_reduce",
              "_ALLGATHER_BASE": "all_gather_into_tensor" if c.tv >= (1, 13) else "_all_gather_base"}[op]
        main += [("save_checkpoint (utils/checkpoint.py:%d)" if op == "BROADCAST" else "evaluate (engine.py:%d)") % rng.randint(40, 120)]
        if c.tv >= (2, 1):
            main.append("wrapper (torch/distributed/c10d_logger.py:%d)" % rng.choice([47, 72, 75, 83]))
        main.append("%s (torch/distributed/distributed_c10d.py:%d)" % (fn, rng.randint(1000, 3900)))
    else:
        main += ["backward (torch/%s:%d)" % ("_tensor.py" if c.tv >= (1, 10) else "tensor.py", rng.randint(240, 530)),
                 "backward (torch/autograd/__init__.py:%d)" % rng.randint(140, 270)]
    return main, None


def sc_hang(c, s, kind="hang"):
    rng = c.rng
    r0 = pick_rank(c)
    n0 = c.node_of[r0]
    t0 = fail_time(c)
    seq = seq_at(c, t0)
    if kind == "data":
        # storage hiccup on n0 blocks the dataloader workers of r0
        s.kernel_always = True
        fs = rng.choice(["nfs", "lustre", "nfs"])
        if fs == "nfs":
            server = rng.choice(["nas01", "fs-home", "10.20.0.5", "filer2"])
            k(c, s, n0, t0 - rng.uniform(5, 60), "nfs: server %s not responding, still trying" % server)
        else:
            k(c, s, n0, t0 - rng.uniform(5, 60), "Lustre: %s-OST%04x-osc-ffff%012x: Connection to %s-OST%04x (at %s@o2ib) was lost; in progress operations using this service will wait for recovery to complete" % (
                "scratch", rng.randint(0, 60), rng.getrandbits(44), "scratch", rng.randint(0, 60), "10.%d.%d.%d" % (rng.randint(0, 200), rng.randint(0, 250), rng.randint(1, 250))))
        for kk in range(rng.randint(1, 3)):
            wpid = c.pid[r0] + rng.randint(150, 900)
            tt = t0 + 122 * (kk + 1)
            k(c, s, n0, tt, "INFO: task %s:%d blocked for more than %d seconds." % ("pt_data_worker" if c.tv >= (2, 1) else pyname(c), wpid, 120 + (kk * 122 if c.kv >= (5, 0) else 0)))
            k(c, s, n0, tt, "      %s %s %s" % ("Tainted: P           OE    " if c.kv >= (4, 0) else "Tainted: P           OE  ------------  ", c.kernel, "#%d-Ubuntu" % rng.randint(40, 150) if "generic" in c.kernel else "#1"))
            k(c, s, n0, tt, '"echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.')
            if fs == "nfs":
                k(c, s, n0, tt, "task:%-15s state:D stack:    0 pid:%5d ppid:%6d flags:0x00004000" % (pyname(c), wpid, c.pid[r0]) if c.kv >= (5, 10) else
                  "%-15s D    0 %5d %6d 0x00000000" % (pyname(c), wpid, c.pid[r0]))
                k(c, s, n0, tt, "Call Trace:")
                for fn in ["__schedule+0x2e3/0x740", "schedule+0x42/0xb0", "rpc_wait_bit_killable+0x25/0xb0 [sunrpc]", "__wait_on_bit+0x33/0xa0",
                           "out_of_line_wait_on_bit+0x91/0xb0", "nfs_wait_on_request+0x41/0x50 [nfs]", "nfs_file_read+0x6d/0xa0 [nfs]", "vfs_read+0xab/0x1c0"]:
                    k(c, s, n0, tt, " " + fn if c.kv >= (5, 0) else " [<ffffffff%08x>] %s" % (rng.getrandbits(32), fn))
        main, wk = stuck_stack(c, "data")
        if rng.random() < 0.3 and c.tv >= (1, 2):
            to = rng.choice([300, 600, 1200])
            dl = c.site + "/torch/utils/data/dataloader.py"
            fr = user_frames(c, "data")[:3] + [(dl, rng.choice([630, 681]), "__next__", "data = self._next_data()", "call"),
                                               (dl, rng.choice([1328, 1345]), "_next_data", "idx, data = self._get_data()", "call"),
                                               (dl, rng.choice([1284, 1311]), "_get_data", "success, data = self._try_get_data()", "call"),
                                               (dl, rng.choice([1145, 1256]), "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {timeout} seconds') from e" if c.tv >= (1, 9) else "raise RuntimeError('DataLoader timed out after {} seconds'.format(timeout))", None)]
            if to * 1000 < c.timeout_ms:
                s.rl[r0].add(t0 + to, traceback(c, fr, "RuntimeError: DataLoader timed out after %d seconds" % to))
                s.exit[r0] = (t0 + to + 1.2, 1)
        s.notes.append("%s stall on %s: rank %d's DataLoader workers blocked in D state, the rank stopped feeding its GPU" % (fs.upper(), n0, r0))
    else:
        main, wk = stuck_stack(c, "hang")
        s.notes.append("rank %d stopped making progress outside NCCL (user code wait/deadlock); the others blocked in the next collective" % r0)
    s.stacks[r0] = (main, wk)
    for r in c.ranks:
        if r != r0:
            s.stacks[r] = (stuck_stack(c, "coll")[0], None)
    # survivors enqueue seq and time out; the stuck rank never enqueued it
    first = None
    for r in c.ranks:
        if r == r0:
            continue
        tt = timeout_reaction(c, s, r, t0 + rng.uniform(-0.5, 3), seq, last_enq=seq, last_comp=seq - 1, frec=rng.random() < 0.5)
        if tt and (first is None or tt < first[0]):
            first = (tt, r)
    if first and c.tv >= (2, 5) and r0 not in s.exit:
        for tt, x in dump_signal_lines(c, r0, first[0] + rng.uniform(0.3, 2.5), first[1], seq - 1, seq - 1):
            s.rl[r0].add(tt, x)
    s.irank, s.inode = r0, n0
    s.t_halt = t0


def sc_data_loader_stall(c, s):
    return sc_hang(c, s, kind="data")


def fingerprint(c, seq, op, shape, dtype):
    opts = "TensorOptions(dtype=%s (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))" % (
        "float" if dtype == "Float" else "long int")
    if c.tv < (1, 13):
        return "CollectiveFingerPrint(OpType=%s, TensorShape=[%s], TensorDtypes=%s, TensorDeviceTypes=%s)" % (op, shape, dtype, opts)
    return "CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%s], TensorDtypes=%s, TensorDeviceTypes=%s)" % (seq, op, shape, dtype, opts)


def sc_collective_mismatch(c, s):
    rng = c.rng
    r0 = pick_rank(c)
    n0 = c.node_of[r0]
    t0 = fail_time(c)
    seq = seq_at(c, t0)
    odd_op, odd_n = rng.choice([("BROADCAST", 1), ("ALLGATHER", 8), ("_ALLGATHER_BASE", 4096), ("ALLREDUCE", 1)])
    main_op, main_n = ("ALLREDUCE", c.numel) if odd_op != "ALLREDUCE" else ("ALLREDUCE", c.numel)
    debug = c.tv >= (1, 10) and rng.random() < 0.45
    if debug:
        # TORCH_DISTRIBUTED_DEBUG=DETAIL: ProcessGroupWrapper checks fingerprints before every collective
        fp_odd = fingerprint(c, seq, odd_op, str(odd_n), "Long" if odd_op == "BROADCAST" else "Float")
        fp_main = fingerprint(c, seq, main_op, str(main_n), "Float")
        for r in c.ranks:
            if r == r0:
                txt = "Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s." % (
                    r0, fp_odd, 0 if r0 != 0 else 1, fp_main)
            else:
                txt = "Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s." % (
                    r, fp_main, r0, fp_odd)
            if c.tv >= (2, 1):
                txt += "Collectives differ in the following aspects: \t Op type: %svs %s\t Tensor Tensor shapes: %svs %s" % (
                    odd_op if r == r0 else main_op, main_op if r == r0 else odd_op, odd_n if r == r0 else main_n, main_n if r == r0 else odd_n)
            head = "torch.distributed.DistBackendError" if c.tv >= (2, 0) and False else "RuntimeError"
            fr = user_frames(c, "allreduce") if r != r0 else user_frames(c, "allreduce")[:2] + [
                (c.workdir + "/utils/checkpoint.py", rng.randint(30, 120), "save_checkpoint", "dist.broadcast(step_t, src=0)" if odd_op == "BROADCAST" else "dist.all_gather(gathered, flag_t)", None)]
            if r == r0 or rng.random() < 0.4:
                tt = t0 + rng.uniform(0.01, 0.4)
                s.rl[r].add(tt, traceback(c, fr, "%s: %s" % (head, txt)))
                s.exit[r] = (tt + rng.uniform(0.3, 2), 1)
        s.notes.append("rank %d called %s where the others called %s (TORCH_DISTRIBUTED_DEBUG=DETAIL caught it)" % (r0, odd_op, main_op))
    else:
        for r in c.ranks:
            if r == r0:
                timeout_reaction(c, s, r, t0 + rng.uniform(0, 2), seq, op=odd_op, nin=odd_n, nout=odd_n * (c.world if "GATHER" in odd_op else 1))
            else:
                timeout_reaction(c, s, r, t0 + rng.uniform(0, 2), seq, op=main_op, nin=main_n, nout=main_n)
        s.stacks[r0] = (stuck_stack(c, "coll_" + odd_op)[0], None)
        for r in c.ranks:
            if r != r0:
                s.stacks[r] = (stuck_stack(c, "coll")[0], None)
        s.notes.append("rank %d issued %s (numel %d) at collective #%d while every other rank issued %s (numel %d); NCCL deadlocked %s" % (
            r0, odd_op, odd_n, seq, main_op, main_n, "until the watchdog fired" if async_on(c) else "and the job hung until it was killed"))
    s.irank, s.inode = r0, n0
    s.t_halt = t0


def sc_straggler(c, s):
    rng = c.rng
    r0 = pick_rank(c)
    n0 = c.node_of[r0]
    lr0 = c.lr_of[r0]
    whole_node = rng.random() < 0.35
    slow = rng.uniform(1.8, 3.2)
    s.straggle = (r0, n0, whole_node, slow)
    why = rng.choice(["thermal", "power", "pcie"])
    s.smi[n0] = smi_throttle(c, lr0, why, whole_node)
    s.irank = None if whole_node else r0
    s.inode = n0
    s.notes.append("%s persistently ~%.1fx slower (%s); everyone else waits in allreduce; job kept running" % (
        ("node %s" % n0) if whole_node else ("rank %d (GPU %d on %s)" % (r0, lr0, n0)), slow,
        {"thermal": "GPU thermal slowdown", "power": "HW power brake slowdown", "pcie": "PCIe link trained down to x4"}[why]))


def smi_throttle(c, lr, why, whole):
    rng = c.rng
    hdr = "Clocks Event Reasons" if c.dmaj >= 535 else "Clocks Throttle Reasons"
    out = ["$ nvidia-smi -q -d PERFORMANCE,TEMPERATURE,CLOCK%s" % (",PCIE" if why == "pcie" else ""), "",
           "==============NVSMI LOG==============", "", "Driver Version                            : %s" % c.driver,
           "CUDA Version                              : %s" % c.drv_cuda, ""]
    for g in range(c.gpn):
        bad = whole or g == lr
        out.append("GPU 00000000:%s:00.0" % c.pci[g].upper())
        out.append("    Performance State                     : P0")
        out.append("    %s" % hdr)
        out.append("        Idle                              : Not Active")
        out.append("        Applications Clocks Setting       : Not Active")
        out.append("        SW Power Cap                      : %s" % ("Active" if bad and why == "power" else "Not Active"))
        out.append("        HW Slowdown                       : %s" % ("Active" if bad and why in ("thermal", "power") else "Not Active"))
        out.append("            HW Thermal Slowdown           : %s" % ("Active" if bad and why == "thermal" else "Not Active"))
        out.append("            HW Power Brake Slowdown       : %s" % ("Active" if bad and why == "power" else "Not Active"))
        out.append("        Sync Boost                        : Not Active")
        out.append("        SW Thermal Slowdown               : %s" % ("Active" if bad and why == "thermal" else "Not Active"))
        out.append("    Temperature")
        out.append("        GPU Current Temp                  : %d C" % (rng.randint(86, 93) if bad and why == "thermal" else rng.randint(38, 62)))
        out.append("    Clocks")
        out.append("        SM                                : %d MHz" % (rng.randint(600, 1100) if bad and why != "pcie" else rng.randint(1400, 1980)))
        if why == "pcie":
            out.append("    PCI")
            out.append("        GPU Link Info")
            out.append("            PCIe Generation")
            out.append("                Current                   : %d" % (3 if bad else 4))
            out.append("            Link Width")
            out.append("                Max                       : 16x")
            out.append("                Current                   : %s" % ("4x" if bad else "16x"))
        out.append("")
    return "\n".join(out) + "\n"


def sc_unknown(c, s):
    rng = c.rng
    t0 = fail_time(c)
    seq = seq_at(c, t0)
    v = rng.choice(["silent_exit", "node_kill", "all_timeout"])
    if v == "silent_exit":
        r0 = pick_rank(c)
        n0 = c.node_of[r0]
        s.exit[r0] = (t0, 1)
        survivors(c, s, [r0], t0, seq, dead_node=n0)
        s.irank, s.inode = r0, n0
        s.notes.append("rank %d exited with status 1 without printing anything (output lost); cause not visible" % r0)
    elif v == "node_kill" and c.nn > 1:
        n0 = rng.choice(c.nodes[1:])
        for r in c.ranks_on[n0]:
            s.exit[r] = (t0 + rng.uniform(0, 0.05), -9)
        survivors(c, s, c.ranks_on[n0], t0, seq, dead_node=n0)
        s.inode = n0
        s.notes.append("all ranks on %s received SIGKILL at once; no kernel log or scheduler message explains it" % n0)
    else:
        for r in c.ranks:
            timeout_reaction(c, s, r, t0 + rng.uniform(0, 2), seq, last_enq=seq, last_comp=seq - 1)
        s.notes.append("every rank blocked in the same collective (#%d) %s; no rank, node or transport error stands out" % (
            seq, "and all of them timed out together" if async_on(c) else "and the job hung until it was killed"))
    s.t_halt = t0


def sc_healthy(c, s):
    s.healthy = True
    s.notes.append("run finished normally")


CAUSE_FN = {
    "gpu_hardware": sc_gpu_hardware, "ecc_memory": sc_ecc_memory, "nvlink": sc_nvlink, "network": sc_network,
    "cuda_oom": sc_cuda_oom, "illegal_memory_access": sc_illegal_memory_access,
    "python_exception": sc_python_exception, "host_oom_kill": sc_host_oom_kill, "crash_signal": sc_crash_signal,
    "preemption": sc_preemption, "hang": sc_hang, "data_loader_stall": sc_data_loader_stall,
    "collective_mismatch": sc_collective_mismatch, "straggler": sc_straggler, "unknown": sc_unknown,
}


# --------------------------------------------------------------------------------------
# resolve launcher semantics: who kills whom, when does the job end
# --------------------------------------------------------------------------------------
SIGNAME = {1: "SIGHUP", 2: "SIGINT", 6: "SIGABRT", 7: "SIGBUS", 9: "SIGKILL", 11: "SIGSEGV", 15: "SIGTERM"}


def resolve(c, s, mode, end_kind="cancel"):
    """mode: agent | launch17 | seqwait | none | srun_kill.  Fills s.final, s.nodefail, s.end"""
    rng = c.rng
    final = {}
    nodefail = {}
    ex = dict(s.exit)
    if s.healthy or (s.straggle and not s.exit):
        t_end = s.t_end
        for r in c.ranks:
            final[r] = (t_end + rng.uniform(0.5, 6.0), 0, "ok")
        s.final, s.nodefail = final, nodefail
        if s.sched is None:
            s.end = ("ok", max(v[0] for v in final.values()))
        return
    # scheduler-driven SIGTERMs are not "failures" the launcher reacts to
    if s.sched and s.sched[0] in ("preempt", "timelimit", "cancel"):
        for r, v in ex.items():
            if v[1] == -15 and v[0] >= s.sched[1] - 1:
                final[r] = (v[0], v[1], "sched")
    # a whole node/pod killed (k8s OOMKilled / node shutdown)
    if s.node_killed:
        n0, tk, code = s.node_killed
        for r in c.ranks_on[n0]:
            final[r] = (ex[r][0], ex[r][1], "podkill")
    if mode == "srun_kill":
        own = sorted((v[0], r) for r, v in ex.items() if v[1] != 0)
        if own:
            tf, rf = own[0]
            tk = tf + rng.uniform(0.2, 2.0)
            for r in c.ranks:
                if r in final:
                    continue
                if r in ex and ex[r][0] <= tk:
                    final[r] = (ex[r][0], ex[r][1], "self")
                else:
                    final[r] = (tk + rng.uniform(0.01, 0.3), -15, "srunkill")
            s.srun_kill_t = tk
    elif mode in ("agent", "launch17"):
        for n in c.nodes:
            own = sorted((ex[r][0], r) for r in c.ranks_on[n] if r in ex and ex[r][1] != 0 and r not in final)
            if not own:
                continue
            tf = own[0][0]
            if mode == "agent":
                mon = 5.0 if c.tv < (2, 3) else 0.1
            else:
                mon = 1.0
            t_det = tf + rng.uniform(0.02, mon)
            fails = [r for (t, r) in own if t <= t_det]
            for r in c.ranks_on[n]:
                if r in final:
                    continue
                if r in fails:
                    final[r] = (ex[r][0], ex[r][1], "self")
                else:
                    final[r] = (t_det + rng.uniform(0.02, 0.6), -15 if mode == "agent" else -9, "term")
            # elastic picks the failure with the earliest error-file timestamp; without error
            # files all failures of one monitor tick carry the same time -> lowest rank wins
            withfile = [r for r in fails if r in s.errfile]
            if withfile:
                root = sorted(withfile, key=lambda r: s.errfile[r][0])[0]
            else:
                root = sorted(fails)[0]
            nodefail[n] = {"t_det": t_det, "fails": sorted(fails), "root": root,
                           "t_sum": t_det + (rng.uniform(0.5, 4) if mode == "launch17" else rng.uniform(1.0, 31.0))}
    else:
        # seqwait / none: nobody is killed by the launcher
        for r, v in ex.items():
            if r not in final:
                final[r] = (v[0], v[1], "self")
        if mode == "seqwait":
            for n in c.nodes:
                t_acc = None
                for r in c.ranks_on[n]:
                    if r not in final or final[r][2] == "sched":
                        break  # launcher blocks in process.wait() (or is killed with its children)
                    t_acc = max(t_acc or 0, final[r][0])
                    if final[r][1] != 0:
                        nodefail[n] = {"t_det": t_acc + rng.uniform(0.0, 0.2), "fails": [r], "root": r,
                                       "t_sum": t_acc + rng.uniform(0.05, 0.3)}
                        break
    # everything else: self exits that were not pre-empted by kills
    for r, v in ex.items():
        if r not in final:
            final[r] = (v[0], v[1], "self")
    stuck = [r for r in c.ranks if r not in final]
    s.end = None
    if s.sched and s.sched[0] in ("preempt", "timelimit", "cancel"):
        s.end = (s.sched[0], s.sched[1])
        for r in stuck:
            final[r] = (s.sched[1] + rng.uniform(0.2, 3.0), -15, "sched")
        stuck = []
    elif stuck:
        last = max([v[0] for v in final.values()] + [s.t_halt or c.t_train0])
        if end_kind == "timelimit" or (end_kind == "slurm" and rng.random() < 0.4):
            limit_h = rng.choice([24, 48, 72, 12])
            t_lim = c.t_start + limit_h * 3600
            if t_lim < last + 300:
                t_lim = last + rng.uniform(1800, 5 * 3600)
            s.end = ("timelimit", t_lim)
        else:
            s.end = ("cancel", last + rng.uniform(900, 4 * 3600))
        for r in stuck:
            final[r] = (s.end[1] + rng.uniform(0.2, 3.0), -15, "sched")
    else:
        s.end = ("failed", max(v[0] for v in final.values()))
    for r in c.ranks:
        s.rl[r].cut_after(final[r][0])
    s.final, s.nodefail = final, nodefail


# --------------------------------------------------------------------------------------
# torch elastic agent text (torchrun / python -m torch.distributed.run)
# --------------------------------------------------------------------------------------
def el_log(c, node, t, lvl, logger, msg, path=None, key=None):
    """one elastic logging line in the style of the torch version"""
    if c.tv < (2, 1):
        return "%s:%s:%s" % (lvl, logger, msg)
    if c.tv < (2, 3):
        return "[%s] %s: [%s] %s" % (ts_py(c, node, t), logger, lvl, msg)
    L = {"WARNING": "W", "ERROR": "E", "INFO": "I"}[lvl]
    p = path or (logger.replace(".", "/") + ".py")
    if c.tv >= (2, 6):
        p = ("dist-packages/" if "dist-packages" in c.site else "site-packages/") + p
    ident = c.agent_pid[node] if c.tv >= (2, 5) else (139800000000000 + c.agent_pid[node] * 7919) % 140737488355327
    return "%s %s %s:%d] %s" % (ts_glog(c, node, t, L, nanos=False), ident, p, stable_line(c, p, key or msg), msg)


def stable_line(c, path, msg):
    """same call site -> same line number within one torch version"""
    key = "%s|%s|%s" % (c.torch, path, msg[:14] if not msg.startswith("*") else "*")
    h = 0
    for ch in key:
        h = (h * 131 + ord(ch)) % 1000003
    return 120 + h % 900


def el_multiline(c, node, t, lvl, logger, lines, path=None):
    if c.tv < (2, 1):
        return ["%s:%s:%s" % (lvl, logger, lines[0])] + lines[1:]
    return [el_log(c, node, t, lvl, logger, x, path, key="multi:" + logger) for x in lines]


def omp_banner(c, node, t):
    star = "*****************************************"
    body = "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. "
    if c.tv < (1, 9):
        return [star, body, star]
    return el_multiline(c, node, t, "WARNING", "torch.distributed.run", ["", star, body, star], "torch/distributed/run.py")


def entry_frames(c, tool="torchrun"):
    """frames from the launcher entry point down to run()"""
    rng = c.rng
    site = c.site
    fr = []
    bindir = c.pybin.rsplit("/", 1)[0]
    if tool == "torchrun":
        if c.flavor in ("conda",) and c.entry_legacy:
            fr.append((bindir + "/torchrun", 33, "<module>", "sys.exit(load_entry_point('torch==%s', 'console_scripts', 'torchrun')())" % c.torch, "call"))
        else:
            fr.append(((bindir if c.flavor != "ngc" else "/usr/local/bin") + "/torchrun", 8, "<module>", "sys.exit(main())", "call"))
        fr.append((site + "/torch/distributed/elastic/multiprocessing/errors/__init__.py",
                   {(1, 10): 345, (1, 11): 345, (1, 12): 345, (1, 13): 346, (2, 0): 346, (2, 1): 346, (2, 2): 347,
                    (2, 3): 347, (2, 4): 348, (2, 5): 355, (2, 6): 355, (2, 7): 355}.get(c.tv, 357), "wrapper", "return f(*args, **kwargs)", "call"))
        fr.append((site + "/torch/distributed/run.py", {(1, 10): 719, (1, 11): 724, (1, 12): 761, (1, 13): 762, (2, 0): 794,
                                                        (2, 1): 806, (2, 2): 812, (2, 3): 879, (2, 4): 901, (2, 5): 919,
                                                        (2, 6): 918, (2, 7): 892}.get(c.tv, 936), "main", "run(args)", None))
    elif tool == "run_module":
        fr.append((c.pylib + "/runpy.py", 194 if c.pv < (3, 9) else 197, "_run_module_as_main", "return _run_code(code, main_globals, None,", None))
        fr.append((c.pylib + "/runpy.py", 87, "_run_code", "exec(code, run_globals)", None))
        fr.append((site + "/torch/distributed/run.py", 637, "<module>", "main()", None))
        fr.append((site + "/torch/distributed/run.py", 629, "main", "run(args)", None))
    elif tool == "launch_elastic":
        fr.append((c.pylib + "/runpy.py", 194 if c.pv < (3, 9) else 197, "_run_module_as_main", "return _run_code(code, main_globals, None,", None))
        fr.append((c.pylib + "/runpy.py", 87, "_run_code", "exec(code, run_globals)", None))
        fr.append((site + "/torch/distributed/launch.py", 193 if c.tv >= (1, 10) else 173, "<module>", "main()", None))
        fr.append((site + "/torch/distributed/launch.py", 189 if c.tv >= (1, 10) else 169, "main", "launch(args)", None))
        fr.append((site + "/torch/distributed/launch.py", 174 if c.tv >= (1, 10) else 165, "launch", "run(args)", None))
    elif tool == "accelerate":
        fr.append(((bindir if c.flavor != "ngc" else "/usr/local/bin") + "/accelerate", 8, "<module>", "sys.exit(main())", "call"))
        fr.append((site + "/accelerate/commands/accelerate_cli.py", rng.choice([45, 46, 48, 50]), "main", "args.func(args)", "call"))
        fr.append((site + "/accelerate/commands/launch.py", rng.choice([941, 1073, 1097, 1168, 1204]), "launch_command", "multi_gpu_launcher(args)", "call"))
        fr.append((site + "/accelerate/commands/launch.py", rng.choice([634, 718, 734, 825]), "multi_gpu_launcher", "distrib_run.run(args)", "call"))
    fr.append((site + "/torch/distributed/run.py", {(1, 9): 621, (1, 10): 710, (1, 11): 715, (1, 12): 752, (1, 13): 753,
                                                    (2, 0): 785, (2, 1): 797, (2, 2): 803, (2, 3): 870, (2, 4): 892,
                                                    (2, 5): 910, (2, 6): 909, (2, 7): 883}.get(c.tv, 927), "run", "elastic_launch(", None))
    fr.append((site + "/torch/distributed/launcher/api.py", {(1, 9): 116, (1, 10): 131, (1, 11): 131, (1, 12): 131, (1, 13): 132,
                                                             (2, 0): 134, (2, 1): 135, (2, 2): 135, (2, 3): 132, (2, 4): 133,
                                                             (2, 5): 138, (2, 6): 138, (2, 7): 139}.get(c.tv, 143), "__call__",
               "return launch_agent(self._config, self._entrypoint, list(args))", "call"))
    return fr


def child_failed_box(c, node, nf, final, s):
    rng = c.rng
    root = nf["root"]
    others = [r for r in nf["fails"] if r != root]
    name = c.script

    def entry(r, idx):
        t, code, how = final[r]
        lines = []
        ef = s.errfile.get(r) if code == 1 else None
        if c.tv < (1, 10):
            lines.append("[%d]:" % idx)
            lines.append("  time: %s" % ts_elastic_file(c, node, nf["t_det"]))
            lines.append("  rank: %d (local_rank: %d)" % (r, c.lr_of[r]))
            lines.append("  exitcode: %d (pid: %d)" % (code, c.pid[r]))
            lines.append("  error_file: <N/A>")
            if code < 0:
                lines.append('  msg: "Signal %d (%s) received by PID %d"' % (-code, SIGNAME.get(-code, "SIG%d" % -code), c.pid[r]))
            else:
                lines.append('  msg: "Process failed with exitcode %d"' % code)
            return lines
        lines.append("[%d]:" % idx)
        lines.append("  time      : %s" % ts_elastic_file(c, node, ef[0] if ef else nf["t_det"]))
        lines.append("  host      : %s" % node)
        lines.append("  rank      : %d (local_rank: %d)" % (r, c.lr_of[r]))
        lines.append("  exitcode  : %d (pid: %d)" % (code, c.pid[r]))
        if ef:
            lines.append("  error_file: %s" % c.errpath(node, r))
            tbl = ef[2].split("\n")
            lines.append("  traceback : " + tbl[0])
            for x in tbl[1:]:
                lines.append("  " + x)
        else:
            lines.append("  error_file: <N/A>")
            if code < 0:
                lines.append("  traceback : Signal %d (%s) received by PID %d" % (-code, SIGNAME.get(-code, "SIG%d" % -code), c.pid[r]))
            else:
                lines.append("  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
        return lines

    if c.tv < (1, 10):
        body = ["Root Cause:"] + entry(root, 0)
        w = 39
        out = ["*" * w, ("%s FAILED" % name).center(w), "=" * w] + body + ["=" * w, "Other Failures:"]
        if others:
            for i, r in enumerate(others):
                out += entry(r, i + 1)
        else:
            out.append("  <NO_OTHER_FAILURES>")
        out.append("*" * w)
        return out
    fl = []
    if others:
        for i, r in enumerate(others):
            fl += entry(r, i + 1)
    else:
        fl.append("  <NO_OTHER_FAILURES>")
    rc = entry(root, 0)
    w = max(40, min(80, max(len(x) for x in [name + " FAILED"] + rc[:6] + fl[:6]) + 2))
    out = ["=" * w, "%s FAILED" % name, "-" * w, "Failures:"] + fl + ["-" * w, "Root Cause (first observed failure):"] + rc + ["=" * w]
    return out


def agent_failure_lines(c, node, nf, final, s, tool="torchrun"):
    """what the elastic agent on `node` prints after a local worker failed"""
    rng = c.rng
    t = nf["t_det"]
    out = []
    for r in c.ranks_on[node]:
        if final[r][2] == "term":
            out.append((t + 0.001 * c.lr_of[r], el_log(c, node, t, "WARNING", "torch.distributed.elastic.multiprocessing.api",
                                                      "Sending process %d closing signal SIGTERM" % c.pid[r], "torch/distributed/elastic/multiprocessing/api.py")))
    root = nf["root"]
    code = final[root][1]
    t2 = t + rng.uniform(0.2, 3.0)
    out.append((t2, el_log(c, node, t2, "ERROR", "torch.distributed.elastic.multiprocessing.api",
                           "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (code, c.lr_of[root], c.pid[root], c.pybin),
                           "torch/distributed/elastic/multiprocessing/api.py")))
    if c.tv < (1, 11):
        out.append((t2 + 0.01, "ERROR:torch.distributed.elastic.agent.server.local_elastic_agent:[default] Worker group failed"))
        out.append((t2 + 0.02, "INFO:torch.distributed.elastic.agent.server.api:Local worker group finished (FAILED). Waiting 300 seconds for other agents to finish"))
        out.append((t2 + 0.03, "/%s/torch/distributed/elastic/utils/store.py:%d: FutureWarning: This is an experimental API and will be changed in future." % (c.site.lstrip("/"), rng.choice([52, 70]))))
        out.append((t2 + 0.03, "  warnings.warn("))
        out.append((t2 + 0.05, "INFO:torch.distributed.elastic.agent.server.api:Done waiting for other agents. Elapsed: %.4f seconds" % rng.uniform(0.0003, 0.9)))
        for r in c.ranks_on[node]:
            st = "FAILED" if final[r][1] != 0 else "SUCCEEDED"
            ev = {"name": "torchelastic.worker.status.%s" % st, "source": "WORKER", "timestamp": 0,
                  "metadata": {"run_id": c.run_id, "global_rank": r, "group_rank": c.nodes.index(node), "worker_id": str(c.pid[r]),
                               "role": "default", "hostname": node, "state": st, "total_run_time": int(t - c.t_start),
                               "rdzv_backend": "c10d" if c.tv >= (1, 10) else "static", "raw_error": json.dumps({"message": "<NONE>"}) if r not in s.errfile else json.dumps({"message": s.errfile[r][1]}),
                               "metadata": json.dumps({"group_world_size": c.nn, "entry_point": "python", "local_rank": [c.lr_of[r]], "role_rank": [r], "role_world_size": [c.world]}),
                               "agent_restarts": 0}}
            out.append((t2 + 0.06, json.dumps(ev)))
    tb_fr = entry_frames(c, tool)
    tb_fr.append((c.site + "/torch/distributed/launcher/api.py", {(1, 9): 245, (1, 10): 259, (1, 11): 259, (1, 12): 259, (1, 13): 246,
                                                                 (2, 0): 250, (2, 1): 268, (2, 2): 268, (2, 3): 263, (2, 4): 264,
                                                                 (2, 5): 269, (2, 6): 270, (2, 7): 270}.get(c.tv, 284), "launch_agent", "raise ChildFailedError(", None))
    box = child_failed_box(c, node, nf, final, s)
    tb = traceback(c, tb_fr, ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: "] + box)
    out.append((nf["t_sum"], tb))
    return out


def agent_sigterm_lines(c, node, t, tool="torchrun", sig=15):
    if c.tv < (1, 10):
        return []   # 1.9's agent had no signal handler: it just dies
    rng = c.stable("agent-sig")
    out = [(t, el_log(c, node, t, "WARNING", "torch.distributed.elastic.agent.server.api", "Received %d death signal, shutting down workers" % sig,
                      "torch/distributed/elastic/agent/server/api.py"))]
    for r in c.ranks_on[node]:
        out.append((t + 0.001, el_log(c, node, t, "WARNING", "torch.distributed.elastic.multiprocessing.api",
                                      "Sending process %d closing signal SIGTERM" % c.pid[r], "torch/distributed/elastic/multiprocessing/api.py")))
    fr = entry_frames(c, tool)
    site = c.site
    fr += [(site + "/torch/distributed/launcher/api.py", rng.randint(240, 260), "launch_agent", "result = agent.run()", "call"),
           (site + "/torch/distributed/elastic/metrics/api.py", rng.choice([124, 125, 137, 138]), "wrapper", "result = f(*args, **kwargs)", "call"),
           (site + "/torch/distributed/elastic/agent/server/api.py", rng.choice([709, 711, 727, 736]), "run", "result = self._invoke_run(role)", "call"),
           (site + "/torch/distributed/elastic/agent/server/api.py", rng.choice([850, 857, 864, 880]), "_invoke_run", "time.sleep(monitor_interval)", None),
           (site + "/torch/distributed/elastic/multiprocessing/api.py", rng.choice([60, 62, 79, 84]), "_terminate_process_handler",
            'raise SignalException(f"Process {os.getpid()} got signal: {sigval}", sigval=sigval)', None)]
    tb = traceback(c, fr, "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: %d" % (c.agent_pid[node], sig))
    out.append((t + rng.uniform(1, 30), tb))
    return out


def agent_startup_lines(c, node, t, tool="torchrun"):
    rng = c.rng
    out = []
    for i, x in enumerate(omp_banner(c, node, t)):
        out.append((t + i * 0.0001, x))
    if c.tv < (1, 12):
        cfg = ["Starting elastic_operator with launch configs:",
               "  entrypoint       : %s" % c.script,
               "  min_nodes        : %d" % c.nn, "  max_nodes        : %d" % c.nn,
               "  nproc_per_node   : %d" % c.gpn, "  run_id           : %s" % c.run_id,
               "  rdzv_backend     : %s" % ("c10d" if c.tv >= (1, 10) else "static"),
               "  rdzv_endpoint    : %s:%d" % (c.master, c.port),
               "  rdzv_configs     : {%s}" % ("'timeout': 900" if c.tv >= (1, 10) else "'rank': %d, 'timeout': 900" % c.nodes.index(node)),
               "  max_restarts     : 0", "  monitor_interval : 5", "  log_dir          : %s" % ("None" if c.layout != "elastic_logdir" else c.logdir),
               "  metrics_cfg      : {}", ""]
        out.append((t + 0.01, "INFO:torch.distributed.launcher.api:" + cfg[0]))
        for x in cfg[1:]:
            out.append((t + 0.01, x))
        out.append((t + 0.02, "INFO:torch.distributed.elastic.agent.server.local_elastic_agent:log directory set to: /tmp/torchelastic_%s/%s_%s" % (c.tmptag, c.run_id, c.tmptag2)))
        out.append((t + 0.03, "INFO:torch.distributed.elastic.agent.server.api:[default] starting workers for entrypoint: python"))
        out.append((t + 0.04, "INFO:torch.distributed.elastic.agent.server.api:[default] Rendezvous'ing worker group"))
        gr = c.nodes.index(node)
        res = ["[default] Rendezvous complete for workers. Result:", "  restart_count=0", "  master_addr=%s" % c.master,
               "  master_port=%d" % (c.port + 1 + rng.randint(0, 30000)), "  group_rank=%d" % gr, "  group_world_size=%d" % c.nn,
               "  local_ranks=%s" % list(range(c.gpn)), "  role_ranks=%s" % c.ranks_on[node], "  global_ranks=%s" % c.ranks_on[node],
               "  role_world_sizes=%s" % ([c.world] * c.gpn), "  global_world_sizes=%s" % ([c.world] * c.gpn), ""]
        out.append((t + 8, "INFO:torch.distributed.elastic.agent.server.api:" + res[0]))
        for x in res[1:]:
            out.append((t + 8, x))
        out.append((t + 8.01, "INFO:torch.distributed.elastic.agent.server.api:[default] Starting worker group"))
        for r in c.ranks_on[node]:
            out.append((t + 8.02, "INFO:torch.distributed.elastic.multiprocessing:Setting worker%d reply file to: /tmp/torchelastic_%s/%s_%s/attempt_0/%d/error.json" % (
                c.lr_of[r], c.tmptag, c.run_id, c.tmptag2, c.lr_of[r])))
    if (1, 12) <= c.tv and rng.random() < 0.5:
        # harmless socket warnings during rendezvous
        if c.tv < (2, 4):
            out.append((t + 0.5, "[W socket.cpp:%d] [c10d] The server socket cannot be initialized on [::]:%d (errno: 97 - Address family not supported by protocol)." % (rng.choice([401, 426, 436]), c.port)))
            if rng.random() < 0.5:
                out.append((t + 0.6, "[W socket.cpp:%d] [c10d] The client socket has failed to connect to [localhost]:%d (errno: 99 - Cannot assign requested address)." % (rng.choice([558, 601, 663]), c.port)))
            else:
                out.append((t + 0.6, "[W socket.cpp:%d] [c10d] The client socket has failed to connect to [%s]:%d (errno: 111 - Connection refused)." % (rng.choice([558, 601, 663]), c.master, c.port)))
        else:
            out.append((t + 0.6, "[W%s socket.cpp:%d] [c10d] The client socket has failed to connect to [%s]:%d (errno: 111 - Connection refused)." % (
                ts_glog(c, node, t + 0.6, "")[0:], rng.choice([697, 752, 764]), c.master, c.port)))
    return out


# --------------------------------------------------------------------------------------
# body of the run: progress, straggler evidence, healthy completion, noise
# --------------------------------------------------------------------------------------
def finish_body(c, s):
    rng = c.rng
    if s.healthy or s.straggle:
        dur = rng.uniform(1.0, 9.0) * 3600
        slow = s.straggle[3] if s.straggle else 1.0
        c.total_steps = max(2000, int(dur / (c.st * slow)))
        c.log_every = max(c.log_every, c.total_steps // 180)
        if s.straggle:
            t_s = c.t_train0 + (0 if rng.random() < 0.5 else rng.uniform(0.1, 0.4) * dur)
            s.t_end = c.t_train0 + (t_s - c.t_train0) + (c.total_steps - step_at(c, t_s)) * c.st * slow
            straggler_lines(c, s, t_s, slow)
            progress(c, s, 0, c.t_train0, t_s)
            # after t_s every step is slower for everybody
            c.t_train0_fast = c.t_train0
            n_s = step_at(c, t_s)
            c.t_train0 = t_s - n_s * c.st * slow
            c.st = c.st * slow
            if rng.random() < 0.45:
                # the user gives up and cancels
                tc = t_s + rng.uniform(0.25, 0.7) * (s.t_end - t_s)
                s.sched = ("cancel", tc, None)
                for r in c.ranks:
                    s.exit[r] = (tc + rng.uniform(0.3, 3), -15)
                s.t_end = tc
                s.notes.append("user cancelled the job because it was too slow")
            progress(c, s, 0, t_s, s.t_end)
        else:
            s.t_end = c.t_train0 + c.total_steps * c.st
            progress(c, s, 0, c.t_train0, s.t_end)
        if not s.exit:
            healthy_tail(c, s)
        return
    # failing run: progress until the incident
    progress(c, s, 0, c.t_train0, s.t_halt - 1)


def straggler_lines(c, s, t_s, slow):
    rng = c.rng
    r0, n0, whole, _ = s.straggle
    bad = c.ranks_on[n0] if whole else [r0]
    every = c.log_every * rng.choice([5, 10])
    st = c.st
    step = step_at(c, t_s) + every
    t = t_s + every * st * slow
    n = 0
    fmt = rng.choice(["a", "b"])
    while n < rng.randint(12, 30):
        for r in c.ranks:
            comp = st * (slow if r in bad else 1.0) * rng.uniform(0.97, 1.03) * 0.9
            wait = max(0.001, st * slow * 0.9 - comp + rng.uniform(0, 0.01)) if r not in bad else rng.uniform(0.001, 0.02)
            data = rng.uniform(0.002, 0.02)
            if fmt == "a":
                txt = "[rank%d] step %d: fwd+bwd %.3fs | grad allreduce wait %.3fs | data %.3fs" % (r, step, comp, wait, data)
            else:
                txt = "%s - INFO - timing - rank=%d step=%d compute_s=%.3f comm_wait_s=%.3f dataload_s=%.3f" % (
                    ts_py(c, c.node_of[r], t), r, step, comp, wait, data)
            s.rl[r].add(t + rng.uniform(0, 0.05), txt)
        step += every
        t += every * st * slow
        n += 1


def healthy_tail(c, s):
    rng = c.rng
    t = s.t_end
    n0 = c.node_of[0]
    fin = ("%s - INFO - __main__ - training complete; saved checkpoint to %s/checkpoints/step_%d.pt" % (
        ts_py(c, n0, t), c.workdir, c.total_steps) if c.style != "lightning" else
        ("`Trainer.fit` stopped: `max_steps=%d` reached." % c.total_steps if c.plv >= (1, 8) else ""))
    if fin:
        s.rl[0].add(t, fin)
    if c.nccl_debug and c.ncv >= (2, 8):
        for r in c.ranks:
            s.rl[r].add(t + 2, nccl_info(c, r, "comm 0x%x rank %d nranks %d cudaDev %d busId %s - Destroy COMPLETE" % (
                rng.randint(0x55d000000000, 0x55dfffffffff), r, c.world, c.lr_of[r], busid_short(c, c.lr_of[r]))))
    if c.tv >= (2, 4) and rng.random() < 0.6:
        for r in c.ranks:
            s.rl[r].add(t + 3, cpp_log(c, r, t + 3, "W", "ProcessGroupNCCL.cpp:%d" % rng.choice([1168, 1250, 1427, 1496]),
                                       "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only been added since PyTorch 2.4 (function operator())"))
    if (2, 4) <= c.tv <= (2, 6) and c.nn > 1 and rng.random() < 0.7:
        for r in c.ranks:
            if c.node_of[r] == c.master or rng.random() < 0.5:
                continue
            store_reset_lines(c, s, r, t + rng.uniform(3.5, 6), "failed to recv, got 0 bytes")


def store_reset_lines(c, s, r, t, err):
    rng = c.rng
    n = c.node_of[r]
    L = pgn(c)
    fd = rng.randint(40, 120)
    out = [cpp_log(c, r, t, "W", "TCPStore.cpp:%d" % rng.choice([106, 125, 131]),
                   "[c10d] recvValue failed on SocketImpl(fd=%d, addr=[%s]:%d, remote=[%s]:%d): %s" % (fd, n, rng.randint(33000, 60000), c.master, c.port, err)),
           "Exception raised from recvBytes at %s/torch/csrc/distributed/c10d/Utils.hpp:%d (most recent call first):" % (c.torch_build, rng.choice([653, 670, 671]))]
    out += cpp_frames(c, [("c10::Error::Error(c10::SourceLocation, std::string)", "c10"), ("<unknown function>", "tcpu"),
                          ("c10d::TCPStore::check(std::vector<std::string, std::allocator<std::string> > const&)", "tcpu"),
                          ("c10d::ProcessGroupNCCL::heartbeatMonitor()", "tcuda")] + thread_tail(c))
    out.append("")
    out.append(cpp_log(c, r, t + 0.001, "W", "ProcessGroupNCCL.cpp:%d" % (L[4] - 121 if L[4] else 1662),
                       '%s Failed to check the "should dump" flag on TCPStore, (maybe TCPStore server has shut down too early), with error: %s' % (pg_tag(c, r), err)))
    for i, x in enumerate(out):
        s.rl[r].add(t + i * 0.0001, x)


def store_reset_collateral(c, s):
    """2.4+: once the master's TCPStore is gone, live ranks elsewhere log c10d errors"""
    if c.tv < (2, 4) or c.nn < 2 or s.healthy:
        return
    rng = c.rng
    mf = [s.final[r][0] for r in c.ranks_on[c.master]]
    t_gone = max(mf) + rng.uniform(0.5, 3)
    for r in c.ranks:
        if c.node_of[r] == c.master:
            continue
        if s.final[r][0] > t_gone + 1.0 and rng.random() < 0.6:
            store_reset_lines(c, s, r, t_gone + rng.uniform(0.1, min(5, s.final[r][0] - t_gone - 0.5)), "Connection reset by peer")


KERN_NOISE = [
    "TCP: request_sock_TCP: Possible SYN flooding on port {port}. Sending cookies.  Check SNMP counters.",
    "perf: interrupt took too long ({a} > {b}), lowering kernel.perf_event_max_sample_rate to {c}",
    "EDAC MC{m}: 1 CE memory read error on CPU_SrcID#{m}_Ha#0_Chan#{ch}_DIMM#0 (channel:{ch} slot:0 page:0x{pg:x} offset:0x{off:x} grain:32 syndrome:0x0 - area:DRAM err_code:0001:0090 socket:{m} ha:0 channel_mask:{cm} rank:{rk})",
    "IPv6: ADDRCONF(NETDEV_CHANGE): {ifn}: link becomes ready",
    "nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  {drv}",
    "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  {drv}",
    "audit: type=1400 audit({ts}:{sq}): apparmor=\"DENIED\" operation=\"open\" profile=\"snap.lxd.activate\" name=\"/proc/{pid}/mounts\" pid={pid} comm=\"snap-exec\" requested_mask=\"r\" denied_mask=\"r\" fsuid=0 ouid=0",
]


def kernel_noise(c, s, n, healthy):
    rng = c.rng
    k_ = rng.randint(2, 5)
    for i in range(k_):
        tpl = rng.choice(KERN_NOISE)
        if "apparmor" in tpl and not c.os_name.startswith("Ubuntu"):
            continue
        t = c.t_start + rng.uniform(-3600 * 3, 3600 * 2)
        msg = tpl.format(port=c.port, a=rng.randint(2501, 4000), b=2500, c=rng.choice([79750, 63750, 50000]),
                         m=rng.randint(0, 1), ch=rng.randint(0, 3), pg=rng.getrandbits(24), off=rng.getrandbits(12),
                         cm=rng.choice([1, 2, 4]), rk=rng.randint(0, 1), ifn=c.ifname, drv=c.driver,
                         ts="%d.%03d" % (int(t), rng.randint(0, 999)), sq=rng.randint(100, 9999), pid=rng.randint(1000, 90000))
        k(c, s, n, t, msg)
    if healthy and c.netkind != "socket" and rng.random() < 0.5:
        t = c.t_train0 + rng.uniform(600, 7200)
        bus = rng.choice(["5e", "3b", "0c"])
        k(c, s, n, t, "mlx5_core 0000:%s:00.0: Port: 1 Link DOWN" % bus if c.kv >= (5, 10) else "mlx5_core 0000:%s:00.0 ib0: Link down" % bus)
        k(c, s, n, t + rng.uniform(1.5, 4), "mlx5_core 0000:%s:00.0: Port: 1 Link ACTIVE" % bus if c.kv >= (5, 10) else "mlx5_core 0000:%s:00.0 ib0: Link up" % bus)
    if healthy and c.nvswitch and rng.random() < 0.4:
        t = c.t_train0 + rng.uniform(600, 7200)
        k(c, s, n, t, "nvidia-nvswitch%d: SXid (PCI:0000:%s:00.0): 12028, Non-fatal, Link %d egress non-posted PRIV error (First)" % (
            rng.randint(0, 5), rng.choice(["86", "87", "c8"]), rng.randint(0, 63)))
        k(c, s, n, t, "nvidia-nvswitch%d: SXid (PCI:0000:%s:00.0): 12028, Severity 0 Engine instance %d Sub-engine instance 00" % (
            rng.randint(0, 5), rng.choice(["86", "87", "c8"]), rng.randint(0, 63)))


# --------------------------------------------------------------------------------------
# layout helpers
# --------------------------------------------------------------------------------------
def hostlist(nodes):
    import re
    m = [re.match(r"^(.*?)(\d+)$", n) for n in nodes]
    if all(m) and len(set(x.group(1) for x in m)) == 1 and len(set(len(x.group(2)) for x in m)) == 1:
        nums = [int(x.group(2)) for x in m]
        w = len(m[0].group(2))
        if nums == list(range(nums[0], nums[0] + len(nums))):
            if len(nums) == 1:
                return nodes[0]
            return "%s[%0*d-%0*d]" % (m[0].group(1), w, nums[0], w, nums[-1])
    return ",".join(nodes)


def kern_filename(c, n):
    return {"dmesg": "dmesg-%s.txt", "dmesgT": "dmesg-T-%s.txt", "kernlog": "%s-kern.log",
            "messages": "%s-messages.log", "journal": "journalctl-k-%s.txt", "rfc3339": "%s-syslog.txt"}[c.kstyle] % n


def attach_kernel(c, s, files, fmt="%s", cause=None):
    rng = c.rng
    for n in c.nodes:
        incident = bool(s.kern[n].items)
        want = False
        if incident and (s.kernel_always or rng.random() < 0.6):
            want = True
        elif not incident and rng.random() < (0.25 if not s.healthy else 0.35) and n == rng.choice(c.nodes):
            want = True
        if not want:
            continue
        kernel_noise(c, s, n, s.healthy)
        items = sorted(s.kern[n].items, key=lambda x: (x[0], x[1]))
        if not items:
            continue
        files[fmt % kern_filename(c, n)] = "\n".join(x[2] for x in items) + "\n"


def smi_files(c, s, files, fmt="%s"):
    for n, txt in s.smi.items():
        if c.rng.random() < 0.85 or s.straggle:
            files[fmt % ("nvidia-smi-%s.txt" % n)] = txt


def prefixed(text, pre):
    if not pre:
        return text
    return "\n".join(pre + ln for ln in text.split("\n"))


def rank_items(c, s, r, pre=""):
    for t, n, text in s.rl[r].items:
        yield t, prefixed(text, pre)


def slurm_tail(c, s, out, first, srun=True):
    rng = c.rng
    e = s.end
    jid = c.jobid
    if e[0] in ("cancel", "timelimit", "preempt"):
        due = {"cancel": "", "timelimit": " DUE TO TIME LIMIT", "preempt": " DUE TO PREEMPTION"}[e[0]]
        t = e[1]
        if c.rng.random() < 0.5 or not srun:
            out.add(t, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s%s ***" % (jid, first, ts_iso(c, first, t), due))
        if not srun:
            return
        out.add(t + 0.01, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
        out.add(t + 0.02, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s%s ***" % (jid, first, ts_iso(c, first, t), due))
        if rng.random() < 0.4:
            word = "Terminated" if rng.random() < 0.6 else "Killed"
            for i, n in enumerate(c.nodes):
                if c.layout == "lightning_slurm":
                    ids = task_ranges(c.ranks_on[n])
                    out.add(t + 33 + i * 0.01, "srun: error: %s: task%s %s: %s" % (n, "s" if c.gpn > 1 else "", ids, word))
                else:
                    out.add(t + 33 + i * 0.01, "srun: error: %s: task %d: %s" % (n, i, word))
    if getattr(s, "tag_slurm_oom", False) and s.inode:
        t = max(v[0] for v in s.final.values()) + rng.uniform(1, 20)
        if c.sv < (18, 0):
            out.add(t, "slurmstepd: error: Exceeded step memory limit at some point.")
        elif c.sv < (20, 11):
            out.add(t, "slurmstepd: error: Detected 1 oom-kill event(s) in step %d.0 cgroup. Some of your processes may have been killed by the cgroup out-of-memory handler." % jid)
        elif c.sv < (22, 5):
            out.add(t, "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=%d.0 cgroup. Some of your processes may have been killed by the cgroup out-of-memory handler." % jid)
        else:
            out.add(t, "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % jid)


def srun_sig_word(code):
    return {-6: "Aborted (core dumped)", -7: "Bus error (core dumped)", -9: "Killed", -11: "Segmentation fault (core dumped)",
            -15: "Terminated"}.get(code, "Exited with exit code %d" % code)


def version_echo(c):
    tvs = c.torch + ("+cu%s" % c.cuda.replace(".", "") if c.flavor != "ngc" else "a0+%07x" % c.rng.getrandbits(28))
    if c.tv < (1, 5):
        nv = c.nccl.replace(".", "")[:4]
        return "torch %s cuda %s nccl %s" % (tvs, c.cuda, int(V(c.nccl)[0] * 1000 + V(c.nccl)[1] * 100 + V(c.nccl)[2]))
    return "torch %s cuda %s nccl %s" % (tvs, c.cuda, tuple(V(c.nccl)))


# --------------------------------------------------------------------------------------
# layout: elastic_slurm  (sbatch + srun + torchrun / python -m torch.distributed.run)
# --------------------------------------------------------------------------------------
def sbatch_script(c, launcher_cmd, ntasks_per_node=1):
    lines = ["#!/bin/bash", "#SBATCH --job-name=%s" % c.rng.choice(["pretrain", "ft-large", "vit-h", "gpt-1b3", "det-r101"]),
             "#SBATCH --nodes=%d" % c.nn, "#SBATCH --ntasks-per-node=%d" % ntasks_per_node,
             "#SBATCH --gres=gpu:%d" % c.gpn if c.rng.random() < 0.5 else "#SBATCH --gpus-per-node=%d" % c.gpn,
             "#SBATCH --cpus-per-task=%d" % (96 // ntasks_per_node if ntasks_per_node > 1 else 96),
             "#SBATCH --time=%d:00:00" % c.rng.choice([12, 24, 48, 72]),
             "#SBATCH --output=slurm-%j.out", "",
             "export MASTER_ADDR=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n 1)",
             "export MASTER_PORT=%d" % c.port]
    if c.nccl_debug:
        lines.append("export NCCL_DEBUG=INFO")
    if c.netkind == "socket":
        lines.append("export NCCL_SOCKET_IFNAME=%s" % c.ifname)
    if c.user_async and (1, 8) <= c.tv < (2, 2):
        lines.append("export NCCL_ASYNC_ERROR_HANDLING=1")
    lines += ['echo "Job $SLURM_JOB_ID: $SLURM_NNODES nodes ($SLURM_JOB_NODELIST), %d GPUs/node"' % c.gpn,
              'echo "MASTER_ADDR=$MASTER_ADDR MASTER_PORT=$MASTER_PORT"',
              "python -c 'import torch; print(\"torch\", torch.__version__, \"cuda\", torch.version.cuda, \"nccl\", torch.cuda.nccl.version())'", "",
              launcher_cmd, ""]
    return "\n".join(lines)


def render_elastic_slurm(c, s):
    rng = c.rng
    resolve(c, s, "agent", end_kind="slurm")
    store_reset_collateral(c, s)
    tool = "run_module" if c.tv < (1, 10) else "torchrun"
    label = rng.random() < 0.3
    tee = c.tv >= (1, 10) and rng.random() < 0.3
    out = Stream()
    t = c.t_start
    first = c.nodes[0]
    out.add(t - 3, "Job %d: %d nodes (%s), %d GPUs/node" % (c.jobid, c.nn, hostlist(c.nodes), c.gpn))
    out.add(t - 3, "MASTER_ADDR=%s MASTER_PORT=%d" % (c.master, c.port))
    out.add(t - 2, version_echo(c))
    for i, n in enumerate(c.nodes):
        for tt, x in agent_startup_lines(c, n, t + rng.uniform(0.5, 3), tool):
            out.add(tt, prefixed(x, "%d: " % i if label else ""))
    for r in c.ranks:
        pre = ("%d: " % c.nodes.index(c.node_of[r]) if label else "") + ("[default%d]:" % c.lr_of[r] if tee else "")
        for tt, x in rank_items(c, s, r, pre):
            out.add(tt, x)
    for i, n in enumerate(c.nodes):
        pre = "%d: " % i if label else ""
        if n in s.nodefail:
            for tt, x in agent_failure_lines(c, n, s.nodefail[n], s.final, s, tool):
                out.add(tt, prefixed(x, pre))
            out.add(s.nodefail[n]["t_sum"] + rng.uniform(0.5, 2), "srun: error: %s: task %d: Exited with exit code 1" % (n, i))
        elif s.end[0] in ("cancel", "timelimit", "preempt"):
            if any(s.final[r][2] == "sched" for r in c.ranks_on[n]):
                for tt, x in agent_sigterm_lines(c, n, s.end[1] + rng.uniform(0.01, 0.5), tool):
                    out.add(tt, prefixed(x, pre))
        elif s.end[0] == "ok" and c.tv < (1, 12):
            te = max(s.final[r][0] for r in c.ranks_on[n])
            out.add(te + 0.5, "INFO:torch.distributed.elastic.agent.server.api:[default] worker group successfully finished. Waiting 300 seconds for other agents to finish.")
            out.add(te + 0.6, "INFO:torch.distributed.elastic.agent.server.api:Local worker group finished (SUCCEEDED). Waiting 300 seconds for other agents to finish")
            out.add(te + 1.9, "INFO:torch.distributed.elastic.agent.server.api:Done waiting for other agents. Elapsed: %.4f seconds" % rng.uniform(0.0005, 2.0))
    slurm_tail(c, s, out, first)
    if c.cause == "unknown" and s.irank is None and not label and c.tv < (1, 10):
        s.inode = None   # 1.9's summary has no host field and the output is unlabeled
    files = {"slurm-%d.out" % c.jobid: maybe_trim(c, out.render()) + "\n"}
    if rng.random() < 0.6:
        cmd = ("srun python -m torch.distributed.run" if c.tv < (1, 10) else "srun torchrun") + \
              " --nnodes=$SLURM_NNODES --nproc_per_node=%d --rdzv_id=$SLURM_JOB_ID --rdzv_backend=%s --rdzv_endpoint=$MASTER_ADDR:$MASTER_PORT %s%s --config configs/%s.yaml" % (
                  c.gpn, "c10d" if c.tv >= (1, 10) else "static", "--tee 3 " if tee else "", c.script, rng.choice(["base", "large", "run7"]))
        if label:
            cmd = cmd.replace("srun ", "srun -l ", 1)
        files["job.sbatch"] = sbatch_script(c, cmd)
    attach_kernel(c, s, files)
    smi_files(c, s, files)
    pyspy_files(c, s, files)
    return files


def maybe_trim(c, text):
    """users often attach only the tail of a long log"""
    rng = c.rng
    lines = text.split("\n")
    if len(lines) > 1600 and rng.random() < 0.3:
        keep = rng.randint(900, 1400)
        return "[... log truncated: first %d lines not included ...]\n" % (len(lines) - keep) + "\n".join(lines[-keep:])
    return text


def pyspy_files(c, s, files, fmt="%s"):
    """py-spy dumps the user took while the job was wedged"""
    rng = c.rng
    if not s.stacks:
        return
    if not c.use_pyspy and async_on(c):
        return   # without a watchdog the job just sits there: the user always ends up attaching py-spy
    wedged_for = None
    r0 = s.irank if s.irank is not None else list(s.stacks)[0]
    t_look = (s.t_halt or c.t_train0) + rng.uniform(180, 900)
    # only possible if the processes were still alive at t_look
    if s.final[r0][0] < t_look + 30:
        return
    n0 = c.node_of[r0]
    ver = (0, 3) if c.year >= 2020 else (0, 1)
    if c.year >= 2024:
        ver = (0, 4)
    out = []
    for r in c.ranks_on[n0]:
        if s.final[r][0] < t_look:
            continue
        main, wk = s.stacks.get(r, (stuck_stack(c, "coll")[0], None))
        cmdline = "%s -u %s --local_rank=%d" % (c.pybin, c.script, c.lr_of[r]) if c.layout in ("legacy_launch", "deepspeed_pdsh") else "%s -u %s" % (c.pybin, c.script)
        out.append("$ py-spy dump --pid %d" % c.pid[r])
        out.append("Process %d: %s" % (c.pid[r], cmdline))
        out.append("Python v%s.%d (%s)" % (c.py, c.py_patch, c.pybin))
        out.append("")
        tid = ("0x%X" % rng.randint(0x7F0000000000, 0x7FFFFFFFFFFF)) if ver < (0, 3) else str(c.pid[r])
        out.append('Thread %s (%s): "MainThread"' % (tid, "active" if "spin" in " ".join(main) else "idle"))
        for fr in reversed(main):
            out.append("    " + fr)
        if ver >= (0, 3) and c.tv >= (1, 2) and c.pv >= (3, 0):
            out.append('Thread %d (idle): "Thread-%d (_pin_memory_loop)"' % (c.pid[r] + rng.randint(20, 90), rng.randint(2, 6)) if c.pv >= (3, 10) else
                       'Thread %d (idle): "Thread-%d"' % (c.pid[r] + rng.randint(20, 90), rng.randint(2, 6)))
            out.append("    select (selectors.py:415)")
            out.append("    wait (multiprocessing/connection.py:931)")
            out.append("    _pin_memory_loop (torch/utils/data/_utils/pin_memory.py:%d)" % rng.choice([28, 49, 53]))
            out.append("    run (threading.py:%d)" % rng.choice([870, 953, 975]))
            out.append("    _bootstrap_inner (threading.py:%d)" % rng.choice([932, 1016, 1038]))
            out.append("    _bootstrap (threading.py:%d)" % rng.choice([890, 973, 995]))
        if wk and r == r0:
            wpid = c.pid[r] + rng.randint(150, 900)
            out.append("")
            out.append("$ py-spy dump --pid %d   # dataloader worker of local rank %d" % (wpid, c.lr_of[r]))
            out.append("Process %d: %s -u %s" % (wpid, c.pybin, c.script))
            out.append("Python v%s.%d (%s)" % (c.py, c.py_patch, c.pybin))
            out.append("")
            out.append('Thread %s (idle): "MainThread"' % (str(wpid) if ver >= (0, 3) else "0x%X" % rng.randint(0x7F0000000000, 0x7FFFFFFFFFFF)))
            for fr in reversed(wk):
                out.append("    " + fr)
        out.append("")
    if out:
        files[fmt % ("py-spy-%s.txt" % n0)] = "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------------------
def version_note(c):
    parts = ["torch %s" % c.torch, "python %s" % c.py, "CUDA %s" % c.cuda, "NCCL %s" % c.nccl,
             "driver %s" % c.driver, "%s (kernel %s)" % (c.os_name, c.kernel), c.gpu]
    L = c.layout
    if L in ("elastic_slurm", "lightning_slurm") or (L == "legacy_launch" and c.legacy_mode == "sbatch") or \
            (L == "deepspeed_pdsh" and c.ds_mode == "sbatch"):
        parts.append("slurm %s" % c.slurm)
    if L == "deepspeed_pdsh":
        parts.append("deepspeed %s" % c.ds)
    if L == "accelerate_k8s":
        parts.append("accelerate %s" % c.acc)
        parts.append("kubernetes %s" % c.k8s)
    if L == "lightning_slurm":
        parts.append("%s %s" % ("pytorch_lightning" if c.plv < (2, 0) else "lightning", c.pl))
    return "version set: " + ", ".join(parts)


def gen_run(idx, seed, cause, layout):
    rng = MemoRandom("blind39:%s:%d:%s:%s" % (seed, idx, cause, layout))
    c = build_ctx(rng, layout)
    c.seed_str = "blind39:%s:%d" % (seed, idx)
    c.cause = cause
    # network failures need more than one node
    build_topology(c, min_nodes=2 if cause == "network" else 1)
    setup_run(c)
    c.k8s_ns = rng.choice(["ml-train", "research", "default", "team-vision"])
    c.k8s_mem = rng.choice([480, 900, 1600, 1800])
    c.k8s_image = rng.choice(["nvcr.io/nvidia/pytorch:%s-py3" % rng.choice(["23.10", "24.05", "24.12", "25.03"]),
                              "ghcr.io/acme-ml/trainer:%s" % "".join(rng.choice("0123456789abcdef") for _ in range(7)),
                              "pytorch/pytorch:%s-cuda%s-cudnn%s-runtime" % (c.torch, c.cuda, "8" if c.tv < (2, 3) else "9")])
    c.seed_val = rng.choice([0, 42, 1234, 3407, 17])
    c.numel = rng.choice([1, 4096, 6553600, 26214400, 9801523, 466119168, 13107200])
    c.run_id = rng.choice(["none", str(c.jobid), "%x" % rng.getrandbits(32)])
    c.tmptag = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789_") for _ in range(8))
    c.tmptag2 = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789_") for _ in range(8))
    c.logdir = "/tmp/torchrun_logs" if rng.random() < 0.4 else "%s/logs" % c.workdir
    c.errpath = lambda node, r: "/tmp/torchelastic_%s/%s_%s/attempt_0/%d/error.json" % (c.tmptag, c.run_id, c.tmptag2, c.lr_of[r])
    c.legacy_mode = rng.choice(["nohup", "sbatch"]) if layout == "legacy_launch" else None
    if layout == "legacy_launch" and cause == "preemption":
        c.legacy_mode = "sbatch"
    c.ds_mode = rng.choice(["nohup", "sbatch"]) if layout == "deepspeed_pdsh" else None
    if layout == "deepspeed_pdsh" and cause == "preemption":
        c.ds_mode = "sbatch"
    s = Scn(c)
    baseline(c, s)
    if cause is None:
        sc_healthy(c, s)
    else:
        CAUSE_FN[cause](c, s)
    finish_body(c, s)
    files = RENDER[layout](c, s)
    notes = "%s. %s." % (version_note(c), "; ".join(s.notes))
    truth = {"healthy": cause is None, "cause": cause,
             "initiator": None if cause is None else {"rank": s.irank, "node": s.inode},
             "layout": layout, "notes": notes}
    if cause is not None and s.irank is None and s.inode is None:
        truth["initiator"] = None
    return files, truth


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    ap.add_argument("--only-layout", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    rng = random.Random("blind39-plan:%s" % a.seed)
    order = list(CAUSES)
    rng.shuffle(order)
    lays = list(LAYOUTS)
    rng.shuffle(lays)
    os.makedirs(a.out, exist_ok=True)
    counts = {}
    j = 0
    for i in range(a.n):
        if i % 7 == 3:
            cause = None
            layout = lays[i % len(lays)]
        else:
            cause = order[j % len(order)]
            # cause k of cycle m goes to layout k+m: every cause visits 4 layouts per seed,
            # and the per-seed layout shuffle moves it to other layouts on other seeds
            layout = lays[(j % len(order) + j // len(order)) % len(lays)]
            j += 1
        if a.only_layout:
            layout = a.only_layout
        if layout not in RENDER:
            layout = "elastic_slurm"
        files, truth = gen_run(i, a.seed, cause, layout)
        d = os.path.join(a.out, "run-%03d-%s" % (i, layout))
        os.makedirs(d, exist_ok=True)
        for rel in sorted(files):
            p = os.path.join(d, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w", encoding="utf-8", newline="") as f:
                f.write(files[rel])
        with open(os.path.join(d, "truth.json"), "w") as f:
            json.dump(truth, f, indent=2)
            f.write("\n")
        key = cause or "healthy"
        counts[key] = counts.get(key, 0) + 1
    print(json.dumps({k: counts[k] for k in sorted(counts)}, indent=1))



# --------------------------------------------------------------------------------------
# layout: legacy_launch  (python -m torch.distributed.launch, torch 1.0 - 1.8)
# --------------------------------------------------------------------------------------
SIGPY = {6: "SIGABRT", 7: "SIGBUS", 9: "SIGKILL", 11: "SIGSEGV", 15: "SIGTERM", 2: "SIGINT"}


def launch_cmd(c, lr, launcher="torch"):
    args = [c.pybin, "-u", c.script, "--local_rank=%d" % lr]
    args += c.script_args
    return "[" + ", ".join(repr(str(a)) for a in args) + "]"


def called_process_error(c, cmd, code):
    if code < 0 and c.pv >= (3, 0):
        return "subprocess.CalledProcessError: Command '%s' died with <Signals.%s: %d>." % (cmd, SIGPY.get(-code, "SIG%d" % -code), -code)
    return "subprocess.CalledProcessError: Command '%s' returned non-zero exit status %d%s" % (cmd, code, "." if c.pv >= (3, 0) else "")


def runpy_frames(c):
    if c.pv < (3, 0):
        return [(c.pylib + "/runpy.py", 174, "_run_module_as_main", '"__main__", fname, loader, pkg_name)', None),
                (c.pylib + "/runpy.py", 72, "_run_code", "exec code in run_globals", None)]
    if c.pv < (3, 8):
        return [(c.pylib + "/runpy.py", 193, "_run_module_as_main", '"__main__", mod_spec)', None),
                (c.pylib + "/runpy.py", 85, "_run_code", "exec(code, run_globals)", None)]
    return [(c.pylib + "/runpy.py", 194, "_run_module_as_main", "return _run_code(code, main_globals, None,", None),
            (c.pylib + "/runpy.py", 87, "_run_code", "exec(code, run_globals)", None)]


def legacy_fail_lines(c, s, node, nf):
    rng = c.rng
    out = []
    lp = c.site + "/torch/distributed/launch.py"
    root = nf["root"]
    code = s.final[root][1]
    if c.tv >= (1, 7):
        for r in c.ranks_on[node]:
            out.append((nf["t_det"] + 0.001 * c.lr_of[r], "Killing subprocess %d" % c.pid[r]))
        cmd = launch_cmd(c, c.gpn - 1)   # quirk: the cmd of the last spawned process is reported
        fr = runpy_frames(c) + [(lp, 340 if c.tv >= (1, 8) else 331, "<module>", "main()", None),
                                (lp, 326 if c.tv >= (1, 8) else 317, "main", "sigkill_handler(signal.SIGTERM, None)  # not coming back", None),
                                (lp, 301 if c.tv >= (1, 8) else 292, "sigkill_handler", "raise subprocess.CalledProcessError(returncode=last_return_code, cmd=cmd)", None)]
        out.append((nf["t_sum"], traceback(c, fr, called_process_error(c, cmd, code))))
    else:
        cmd = launch_cmd(c, c.lr_of[root] if c.tv < (1, 5) else c.gpn - 1)
        ln = {(1, 1): (235, 231), (1, 2): (246, 242), (1, 3): (246, 242), (1, 4): (253, 249), (1, 5): (263, 259), (1, 6): (261, 256)}.get(c.tv, (253, 249))
        fr = runpy_frames(c) + [(lp, ln[0], "<module>", "main()", None),
                                (lp, ln[1], "main", "cmd=process.args)" if c.tv < (1, 5) else "cmd=cmd)", None)]
        out.append((nf["t_sum"], traceback(c, fr, called_process_error(c, cmd, code))))
    return out


CODE_FOR = {"backward": "torch.autograd.backward(", "train_one_epoch": "loss.backward()", "main": "train_one_epoch(model, loader, optimizer, epoch, args)",
            "<module>": "main()", "wait_for_flag": "time.sleep(5)", "log_metrics": "self.logger.info(msg)", "emit": "self.flush()",
            "acquire": "self.lock.acquire()", "maybe_resume_or_wait": "self._ready.wait()", "wait": "waiter.acquire()",
            "__next__": "data = self._next_data()", "_next_data": "idx, data = self._get_data()", "_get_data": "success, data = self._try_get_data()",
            "_try_get_data": "data = self._data_queue.get(timeout=timeout)", "get": "if not self._poll(timeout):",
            "poll": "return self._poll(timeout)", "_poll": "r = wait([self], timeout)", "select": "fd_event_list = self._selector.poll(timeout)",
            "save_checkpoint": "dist.broadcast(step_t, src=0)", "broadcast": "work.wait()", "evaluate": "dist.all_gather(gathered, flag_t)",
            "all_gather": "work.wait()", "all_reduce": "work.wait()", "all_gather_into_tensor": "work.wait()", "_all_gather_base": "work.wait()",
            "wrapper": "return func(*args, **kwargs)"}


def ctrlc_traceback(c, stack):
    fr = []
    for f in stack:
        fn, rest = f.split(" (", 1)
        path, ln = rest.rstrip(")").rsplit(":", 1)
        if path.startswith("torch/"):
            path = c.site + "/" + path
        elif path.split("/")[0] in ("multiprocessing", "threading.py", "selectors.py", "logging", "queue.py"):
            path = c.pylib + "/" + path
        else:
            path = c.workdir + "/" + path
        code = CODE_FOR.get(fn, "pass")
        if fn == "wait" and "connection" in path:
            code = "ready = selector.select(timeout)"
        fr.append((path, int(ln), fn, code, None))
    return traceback(c, fr, "KeyboardInterrupt")


def render_legacy(c, s):
    rng = c.rng
    tv = c.tv
    mode = "none" if tv < (1, 1) else ("seqwait" if tv < (1, 7) else "launch17")
    sb = c.legacy_mode == "sbatch"
    c.script_args = rng.choice([["--cfg", "configs/%s.yaml" % rng.choice(["r50_fpn", "base", "large"])], ["--batch-size", "32", "--amp"], []])
    resolve(c, s, mode, end_kind="slurm" if sb else "cancel")
    ctrlc = (not sb) and s.end[0] == "cancel" and (rng.random() < 0.6 or s.stacks)
    streams = {n: Stream() for n in c.nodes}
    cmdline = "python -m torch.distributed.launch --nproc_per_node=%d%s %s %s" % (
        c.gpn, (" --nnodes=%d --node_rank=%s --master_addr=%s --master_port=%d" % (c.nn, "$SLURM_NODEID" if sb else "%d", c.ip[c.master], c.port)) if c.nn > 1 else "",
        c.script, " ".join(c.script_args))
    for i, n in enumerate(c.nodes):
        st = streams[n]
        t = c.t_start + rng.uniform(0, 2)
        if not sb:
            st.add(t - 1, "+ " + (cmdline.replace("%d", str(i), 1) if c.nn > 1 else cmdline))
        if tv >= (1, 1) and c.gpn > 1:
            st.add(t, "*****************************************")
            st.add(t, "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ")
            st.add(t, "*****************************************")
        for r in c.ranks_on[n]:
            for tt, x in rank_items(c, s, r):
                st.add(tt, x)
        if n in s.nodefail:
            for tt, x in legacy_fail_lines(c, s, n, s.nodefail[n]):
                st.add(tt, x)
        elif s.end[0] in ("cancel", "timelimit", "preempt") and any(s.final[r][2] in ("sched",) or s.final[r][1] == -15 for r in c.ranks_on[n]):
            te = s.end[1]
            if ctrlc:
                st.add(te - 0.01, "^C")
                for r in c.ranks_on[n]:
                    if r in s.stacks and s.final[r][2] == "sched":
                        main = s.stacks[r][0]
                        if not any(("backward" in f or "distributed_c10d" in f) for f in main[-2:]):
                            st.add(te + rng.uniform(0.01, 0.3), ctrlc_traceback(c, main))
            if tv >= (1, 7):
                for r in c.ranks_on[n]:
                    st.add(te + 0.02, "Killing subprocess %d" % c.pid[r])
                st.add(te + 0.05, "Main process received %s, exiting" % ("SIGINT" if ctrlc else "SIGTERM"))
            elif ctrlc:
                lp = c.site + "/torch/distributed/launch.py"
                sub = c.pylib + "/subprocess.py"
                fr = runpy_frames(c) + [(lp, 253, "<module>", "main()", None), (lp, 249, "main", "process.wait()", None)]
                if c.pv >= (3, 0):
                    fr += [(sub, 1019 if c.pv < (3, 7) else 1019, "wait", "return self._wait(timeout=timeout)", None),
                           (sub, 1653, "_wait", "(pid, sts) = self._try_wait(0)", None),
                           (sub, 1611, "_try_wait", "(pid, sts) = os.waitpid(self.pid, wait_flags)", None)]
                else:
                    fr += [(sub, 1099, "wait", "pid, sts = _eintr_retry_call(os.waitpid, self.pid, 0)", None),
                           (sub, 490, "_eintr_retry_call", "return func(*args)", None)]
                st.add(te + 0.05, traceback(c, fr, "KeyboardInterrupt"))
    files = {}
    naming = rng.choice(["train_%s.log", "%s.log", "%s.out"])
    if sb:
        out = Stream()
        out.add(c.t_start - 3, "Job %d running on %s" % (c.jobid, hostlist(c.nodes)))
        for i, n in enumerate(c.nodes):
            out.add(c.t_start - 2 + i * 0.01, "%s: node_rank=%d master=%s:%d" % (n, i, c.ip[c.master], c.port))
        for n in c.nodes:
            for item in streams[n].items:
                out.add(item[0], item[2])
        slurm_tail(c, s, out, c.nodes[0])
        files["slurm-%d.out" % c.jobid] = out.render() + "\n"
        if rng.random() < 0.5:
            files["run.sbatch"] = sbatch_script(c, "srun --ntasks-per-node=1 bash -c 'echo \"$(hostname): node_rank=$SLURM_NODEID master=$MASTER_ADDR:$MASTER_PORT\"; %s'" % cmdline)
    else:
        for i, n in enumerate(c.nodes):
            name = naming % n
            files[name] = streams[n].render() + "\n"
    if s.stacks and not async_on(c) and sb:
        c.use_pyspy = True
    if sb and c.cause == "unknown" and s.irank is None:
        s.inode = None   # merged, unlabeled srun output: nothing ties the SIGKILLs to a host
    attach_kernel(c, s, files)
    smi_files(c, s, files)
    pyspy_files(c, s, files)
    return files


# --------------------------------------------------------------------------------------
# layout: elastic_logdir  (torchrun --log-dir ... --redirects 3, one folder per node)
# --------------------------------------------------------------------------------------
def is_stdout_line(x):
    return " NCCL INFO " in x or " NCCL WARN " in x or x.startswith("{'loss'") or x.startswith(" iteration") or \
        x.startswith("Train:") or x.startswith("[rank") and "] step " in x[:14]


def render_elastic_logdir(c, s):
    rng = c.rng
    c.errpath = lambda node, r: "%s/%s_%s/attempt_0/%d/error.json" % (c.logdir, c.run_id, c.tmptag2, c.lr_of[r])
    manual = rng.random() < 0.5
    resolve(c, s, "agent", end_kind="cancel" if manual else "slurm")
    store_reset_collateral(c, s)
    files = {}
    for i, n in enumerate(c.nodes):
        st = Stream()
        t = c.t_start + rng.uniform(0.2, 3)
        if manual:
            st.add(t - 1, "%s@%s:%s$ torchrun --nnodes=%d --nproc-per-node=%d --rdzv-backend=c10d --rdzv-endpoint=%s:%d --log-dir=%s --redirects=3 %s" % (
                c.user, n, c.workdir.replace("/home/%s" % c.user, "~"), c.nn, c.gpn, c.master, c.port, c.logdir, c.script) if c.tv >= (2, 0) else
                "%s@%s:%s$ torchrun --nnodes=%d --nproc_per_node=%d --rdzv_backend=c10d --rdzv_endpoint=%s:%d --log_dir=%s --redirects=3 %s" % (
                c.user, n, c.workdir.replace("/home/%s" % c.user, "~"), c.nn, c.gpn, c.master, c.port, c.logdir, c.script))
        for tt, x in agent_startup_lines(c, n, t):
            st.add(tt, x)
        if n in s.nodefail:
            for tt, x in agent_failure_lines(c, n, s.nodefail[n], s.final, s):
                st.add(tt, x)
        elif s.end[0] in ("cancel", "timelimit", "preempt") and any(s.final[r][2] == "sched" for r in c.ranks_on[n]):
            sig = 2 if manual else 15
            if manual:
                st.add(s.end[1] - 0.01, "^C")
            for tt, x in agent_sigterm_lines(c, n, s.end[1] + rng.uniform(0.01, 0.4), sig=sig):
                st.add(tt, x)
        elif s.end[0] == "ok" and c.tv < (1, 12):
            te = max(s.final[r][0] for r in c.ranks_on[n])
            st.add(te + 0.6, "INFO:torch.distributed.elastic.agent.server.api:Local worker group finished (SUCCEEDED). Waiting 300 seconds for other agents to finish")
        if not manual and i == 0:
            slurm_tail(c, s, st, n)
        base = "%s/logs/%s_%s/attempt_0" % (n, c.run_id, c.tmptag2)
        files["%s/torchrun.log" % n] = st.render() + "\n"
        for r in c.ranks_on[n]:
            o, e = [], []
            for tt, _, x in sorted(s.rl[r].items, key=lambda z: (z[0], z[1])):
                (o if is_stdout_line(x) else e).append(x)
            files["%s/%d/stdout.log" % (base, c.lr_of[r])] = "\n".join(o) + ("\n" if o else "")
            files["%s/%d/stderr.log" % (base, c.lr_of[r])] = "\n".join(e) + ("\n" if e else "")
            if r in s.errfile:
                t0, msg, tb = s.errfile[r]
                files["%s/%d/error.json" % (base, c.lr_of[r])] = json.dumps(
                    {"message": {"message": msg, "extraInfo": {"py_callstack": tb + "\n", "timestamp": str(int(lt(c, n, t0)))}}}) + "\n"
    attach_kernel(c, s, files, fmt="%s")
    smi_files(c, s, files)
    pyspy_files(c, s, files)
    # kernel/smi files go in the node folder
    moved = {}
    for k_, v in files.items():
        if "/" not in k_:
            host = [n for n in c.nodes if n in k_]
            moved[(host[0] + "/" + k_) if host else k_] = v
        else:
            moved[k_] = v
    return moved


# --------------------------------------------------------------------------------------
# layout: deepspeed_pdsh  (deepspeed --hostfile, pdsh fan-out, deepspeed.launcher.launch)
# --------------------------------------------------------------------------------------
def ds_line_no(c, which):
    v = c.dsv
    tbl = {
        "world": {(0, 3): 71, (0, 4): 73, (0, 5): 82, (0, 6): 96, (0, 7): 103, (0, 8): 142, (0, 9): 145, (0, 10): 145, (0, 12): 145, (0, 14): 146, (0, 15): 146, (0, 16): 146, (0, 17): 146},
        "nnodes": {(0, 3): 77, (0, 4): 79, (0, 5): 88, (0, 6): 102, (0, 7): 109, (0, 8): 148, (0, 9): 151, (0, 10): 151, (0, 12): 152, (0, 14): 152, (0, 15): 152, (0, 16): 152, (0, 17): 152},
        "kill": {(0, 5): 131, (0, 6): 178, (0, 7): 186, (0, 8): 318, (0, 9): 428, (0, 10): 315, (0, 12): 315, (0, 14): 315, (0, 15): 319, (0, 16): 319, (0, 17): 319},
        "err": {(0, 5): 137, (0, 6): 184, (0, 7): 192, (0, 8): 324, (0, 9): 434, (0, 10): 321, (0, 12): 321, (0, 14): 321, (0, 15): 325, (0, 16): 325, (0, 17): 325},
        "ok": {(0, 8): 347, (0, 9): 460, (0, 10): 351, (0, 12): 351, (0, 14): 351, (0, 15): 355, (0, 16): 355, (0, 17): 355},
        "logdist": {(0, 3): 60, (0, 4): 60, (0, 5): 60, (0, 6): 69, (0, 7): 69, (0, 8): 96, (0, 9): 96, (0, 10): 96, (0, 12): 96, (0, 14): 96, (0, 15): 128, (0, 16): 128, (0, 17): 128},
    }[which]
    return tbl.get(v, list(tbl.values())[-1])


def ds_log(c, node, t, lvl, where, msg):
    return "[%s] [%s] [%s] %s" % (ts_py(c, node, t), lvl, where, msg)


def render_deepspeed(c, s):
    rng = c.rng
    sb = c.ds_mode == "sbatch"
    mode = "seqwait" if c.dsv < (0, 5) else "launch17"
    c.script_args = ["--deepspeed", "--deepspeed_config", "ds_config.json"]
    head = c.nodes[0]
    # deepspeed per-rank chatter (must exist before resolve cuts streams)
    for r in c.ranks:
        n = c.node_of[r]
        t = c.t_start + rng.uniform(6, 14)
        if c.dsv >= (0, 9):
            s.rl[r].add(t - 4, ds_log(c, n, t - 4, "INFO", "real_accelerator.py:%d:get_accelerator" % (161 if c.dsv < (0, 15) else 219), "Setting ds_accelerator to cuda (auto detect)"))
        if c.dsv >= (0, 8):
            s.rl[r].add(t, ds_log(c, n, t, "INFO", "comm.py:%d:init_distributed" % rng.choice([594, 637, 658]), "cdb=None"))
            if r == 0:
                s.rl[r].add(t + 0.01, ds_log(c, n, t + 0.01, "INFO", "comm.py:%d:init_distributed" % rng.choice([625, 668, 689]), "Initializing TorchBackend in DeepSpeed with backend nccl"))
        elif r == 0:
            s.rl[r].add(t, ds_log(c, n, t, "INFO", "distributed.py:%d:init_distributed" % rng.choice([37, 39, 46]), "Initializing torch distributed with backend: nccl"))
        if r == 0:
            s.rl[r].add(t + 3, ds_log(c, n, t + 3, "INFO", "logging.py:%d:log_dist" % ds_line_no(c, "logdist"),
                                      "[Rank 0] DeepSpeed info: version=%s, git-hash=unknown, git-branch=unknown" % c.ds))
            if c.dsv >= (0, 9) and rng.random() < 0.6:
                s.rl[r].add(t + 3.5, ds_log(c, n, t + 3.5, "WARNING", "stage3.py:%d:step" % rng.choice([1850, 1949, 2069]),
                                            "%d pytorch allocator cache flushes since last step. this happens when there is high memory pressure and is detrimental to performance. if this is happening frequently consider adjusting settings to reduce memory consumption. If you are unable to make the cache flushes go away consider adding get_accelerator().empty_cache() calls in your training loop to ensure that all ranks flush their caches at the same time" % rng.randint(1, 4)))
    # periodic deepspeed step logs + harmless overflow messages on rank 0
    t_stop = s.t_halt if s.t_halt else (s.t_end if getattr(s, "t_end", None) else c.t_train0 + 3600)
    t = c.t_train0 + 60
    n0 = c.node_of[0]
    step = 0
    while t < t_stop and step < 4000:
        step = step_at(c, t)
        if rng.random() < 0.08:
            if c.dsv >= (0, 8):
                s.rl[0].add(t, ds_log(c, n0, t, "INFO", "loss_scaler.py:%d:update_scale" % rng.choice([183, 190]),
                                      "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: %d, reducing to %d" % (2 ** 16, 2 ** 15)))
            else:
                s.rl[0].add(t, ds_log(c, n0, t, "INFO", "stage2.py:%d:step" % 1399, "[deepspeed] fp16 dynamic loss scale overflow! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768.0"))
        s.rl[0].add(t + 0.01, ds_log(c, n0, t, "INFO", "logging.py:%d:log_dist" % ds_line_no(c, "logdist"),
                                     "[Rank 0] step=%d, skipped=%d, lr=[%.10g], mom=[(0.9, 0.95)]" % (step, step // 5000, c.lr0)))
        if c.dsv >= (0, 8):
            s.rl[0].add(t + 0.02, ds_log(c, n0, t, "INFO", "timer.py:%d:stop" % (260 if c.dsv < (0, 14) else 264),
                                         "epoch=0/micro_step=%d/global_step=%d, RunningAvgSamplesPerSec=%.3f, CurrSamplesPerSec=%.3f, MemAllocated=%.2fGB, MaxMemAllocated=%.2fGB" % (
                                             step * 4, step, 256 / c.st, 256 / c.st * rng.uniform(0.95, 1.05), c.gpu_gib * 0.4, c.gpu_gib * 0.7)))
        t += max(120, c.st * c.log_every * 10)
    resolve(c, s, mode, end_kind="slurm" if sb else "cancel")
    out = Stream()
    t = c.t_start
    wi = base64.b64encode(json.dumps({n: list(range(c.gpn)) for n in c.nodes}).encode()).decode()
    if c.dsv >= (0, 6):
        out.add(t - 2, ds_log(c, head, t - 2, "INFO", "multinode_runner.py:%d:get_cmd" % rng.choice([70, 80, 81]), "Running on the following workers: %s" % ",".join(c.nodes)))
    envs = "export NCCL_DEBUG=INFO; " if c.nccl_debug else ""
    out.add(t - 1.9, ds_log(c, head, t - 1.9, "INFO", "runner.py:%d:main" % rng.choice([457, 555, 570, 607]),
                            "cmd = pdsh %s-f 1024 -w %s %sexport PYTHONPATH=%s; cd %s; %s -u -m deepspeed.launcher.launch --world_info=%s --node_rank=%%n --master_addr=%s --master_port=%d %s %s" % (
                                "-S " if c.dsv >= (0, 6) else "", ",".join(c.nodes), envs, c.workdir, c.workdir, c.pybin, wi, c.ip[head], c.port, c.script, " ".join(c.script_args))))
    for i, n in enumerate(c.nodes):
        p = n + ": "
        tt = t + rng.uniform(0.3, 2)
        out.add(tt, p + ds_log(c, n, tt, "INFO", "launch.py:%d:main" % ds_line_no(c, "world"), "WORLD INFO DICT: {%s}" % ", ".join("'%s': %s" % (x, list(range(c.gpn))) for x in c.nodes)))
        out.add(tt, p + ds_log(c, n, tt, "INFO", "launch.py:%d:main" % ds_line_no(c, "nnodes"), "nnodes=%d, num_local_procs=%d, node_rank=%d" % (c.nn, c.gpn, i)))
        out.add(tt, p + ds_log(c, n, tt, "INFO", "launch.py:%d:main" % (ds_line_no(c, "nnodes") + 11), "global_rank_mapping=defaultdict(<class 'list'>, {%s})" % ", ".join("'%s': %s" % (x, c.ranks_on[x]) for x in c.nodes)))
        out.add(tt, p + ds_log(c, n, tt, "INFO", "launch.py:%d:main" % (ds_line_no(c, "nnodes") + 12), "dist_world_size=%d" % c.world))
        out.add(tt, p + ds_log(c, n, tt, "INFO", "launch.py:%d:main" % (ds_line_no(c, "nnodes") + 14), "Setting CUDA_VISIBLE_DEVICES=%s" % ",".join(str(x) for x in range(c.gpn))))
        if c.dsv >= (0, 10):
            for r in c.ranks_on[n]:
                out.add(tt + 0.1, p + ds_log(c, n, tt + 0.1, "INFO", "launch.py:%d:main" % 256, "process %d spawned with command: %s" % (c.pid[r], launch_cmd(c, c.lr_of[r]))))
        for r in c.ranks_on[n]:
            for t2, x in rank_items(c, s, r, p):
                out.add(t2, x)
        if n in s.nodefail:
            nf = s.nodefail[n]
            root = nf["root"]
            code = s.final[root][1]
            if mode == "launch17":
                for r in c.ranks_on[n]:
                    out.add(nf["t_det"] + 0.001 * c.lr_of[r], p + ds_log(c, n, nf["t_det"], "INFO", "launch.py:%d:sigkill_handler" % ds_line_no(c, "kill"), "Killing subprocess %d" % c.pid[r]))
                cmd = launch_cmd(c, c.gpn - 1)
                if c.dsv < (0, 6):
                    lp = c.site + "/deepspeed/launcher/launch.py"
                    fr = runpy_frames(c) + [(lp, 171, "<module>", "main()", None), (lp, 161, "main", "sigkill_handler(signal.SIGTERM, None)  # not coming back", None),
                                            (lp, 139, "sigkill_handler", "raise subprocess.CalledProcessError(returncode=last_return_code, cmd=cmd)", None)]
                    out.add(nf["t_sum"], prefixed(traceback(c, fr, called_process_error(c, cmd, code)), p))
                    rc = 1
                else:
                    out.add(nf["t_sum"], p + ds_log(c, n, nf["t_sum"], "ERROR", "launch.py:%d:sigkill_handler" % ds_line_no(c, "err"), "%s exits with return code = %d" % (cmd, code)))
                    rc = code if code >= 0 else 256 + code
            else:
                lp = c.site + "/deepspeed/launcher/launch.py"
                fr = runpy_frames(c) + [(lp, 119, "<module>", "main()", None), (lp, 115, "main", "cmd=cmd)", None)]
                out.add(nf["t_sum"], prefixed(traceback(c, fr, called_process_error(c, launch_cmd(c, c.gpn - 1), code)), p))
                rc = 1
            out.add(nf["t_sum"] + rng.uniform(0.1, 1.5), "pdsh@%s: %s: ssh exited with exit code %d" % (head, n, rc))
        elif s.end[0] == "ok" and c.dsv >= (0, 8):
            for r in c.ranks_on[n]:
                out.add(s.final[r][0] + 0.2, p + ds_log(c, n, s.final[r][0] + 0.2, "INFO", "launch.py:%d:main" % ds_line_no(c, "ok"), "Process %d exits successfully." % c.pid[r]))
    if s.end[0] == "cancel" and not sb:
        te = s.end[1]
        out.add(te, "^Cpdsh@%s: interrupt (one more within 1 sec to abort)" % head)
        out.add(te, "pdsh@%s:  (^Z within 1 sec to cancel pending connections)" % head)
        alive = [n for n in c.nodes if n not in s.nodefail]
        for n in alive:
            out.add(te, "pdsh@%s: %s: command in progress" % (head, n))
        out.add(te + 0.6, "^Csending SIGTERM to ssh %s" % ",".join(alive))
        for n in alive:
            out.add(te + 0.6, "sending signal 15 to %s [ssh] pid %d" % (n, rng.randint(3000, 90000)))
        for n in alive:
            out.add(te + 0.8, "pdsh@%s: %s: ssh exited with exit code 255" % (head, n))
    if sb:
        slurm_tail(c, s, out, head, srun=False)
    fname = "slurm-%d.out" % c.jobid if sb else rng.choice(["train.log", "ds_train.log", "output.log"])
    files = {fname: maybe_trim(c, out.render()) + "\n"}
    files["hostfile"] = "\n".join("%s slots=%d" % (n, c.gpn) for n in c.nodes) + "\n"
    cfg = {"train_micro_batch_size_per_gpu": rng.choice([1, 2, 4, 8]), "gradient_accumulation_steps": rng.choice([1, 4, 8]),
           "gradient_clipping": 1.0, "steps_per_print": c.log_every * 10,
           "zero_optimization": {"stage": rng.choice([1, 2, 3]), "overlap_comm": True, "contiguous_gradients": True}}
    if c.dsv < (0, 6) or rng.random() < 0.5:
        cfg["fp16"] = {"enabled": True, "loss_scale": 0, "initial_scale_power": 16}
    else:
        cfg["bf16"] = {"enabled": True}
    if s.straggle or rng.random() < 0.3:
        cfg["wall_clock_breakdown"] = False
    files["ds_config.json"] = json.dumps(cfg, indent=2) + "\n"
    attach_kernel(c, s, files)
    smi_files(c, s, files)
    pyspy_files(c, s, files)
    return files


# --------------------------------------------------------------------------------------
# layout: accelerate_k8s  (Kubeflow PyTorchJob pods running `accelerate launch`)
# --------------------------------------------------------------------------------------
def k8s_age(sec):
    sec = int(sec)
    if sec < 120:
        return "%ds" % sec
    if sec < 7200:
        return "%dm" % (sec // 60)
    if sec < 172800:
        return "%dh" % (sec // 3600)
    return "%dd" % (sec // 86400)


def render_accelerate_k8s(c, s):
    rng = c.rng
    legacy = c.accv < (0, 11)
    stamps = rng.random() < 0.4
    # accelerate's own rank-0 banner goes into the rank stream before resolve
    n0 = c.nodes[0]
    t = c.t_start + rng.uniform(8, 15)
    d = to_dt(lt(c, n0, t))
    ban = ["%s - INFO - __main__ - Distributed environment: %s  Backend: nccl" % (d.strftime("%m/%d/%Y %H:%M:%S"), "MULTI_GPU" if c.accv < (0, 30) else "DistributedType.MULTI_GPU"),
           "Num processes: %d" % c.world, "Process index: 0", "Local process index: 0", "Device: cuda:0", ""]
    if c.accv >= (0, 13):
        ban.append("Mixed precision type: %s" % rng.choice(["bf16", "fp16", "no"]))
        ban.append("")
    s.rl[0].add(t, "\n".join(ban))
    resolve(c, s, "agent", end_kind="cancel")
    store_reset_collateral(c, s)
    files = {}
    pods = c.nodes
    job = c.k8s_job
    for i, n in enumerate(pods):
        st = Stream()
        t = c.t_start + rng.uniform(0.2, 3)
        if c.accv >= (0, 17):
            st.add(t - 0.5, "The following values were not passed to `accelerate launch` and had defaults used instead:")
            st.add(t - 0.5, "\t`--dynamo_backend` was set to a value of `'no'`")
            st.add(t - 0.5, "To avoid this warning pass in values for each of the problematic parameters or run `accelerate config`.")
        if legacy:
            st.add(t - 0.2, "%s/torch/distributed/launch.py:%d: FutureWarning: The module torch.distributed.launch is deprecated" % (c.site, 178 if c.tv >= (1, 10) else 163))
            st.add(t - 0.2, "and will be removed in future. Use torchrun.\nNote that --use_env is set by default in torchrun.\nIf your script expects `--local_rank` argument to be set, please\nchange it to read from `os.environ['LOCAL_RANK']` instead. See \nhttps://pytorch.org/docs/stable/distributed.html#launch-utility for \nfurther instructions\n" if c.tv >= (1, 10) else
                   "and will be removed in future. Use torch.distributed.run.\nNote that --use_env is set by default in torch.distributed.run.\nIf your script expects `--local_rank` argument to be set, please\nchange it to read from `os.environ['LOCAL_RANK']` instead. See \nhttps://pytorch.org/docs/stable/distributed.html#launch-utility for \nfurther instructions\n")
            st.add(t - 0.1, "  warnings.warn(")
        tool = "launch_elastic" if legacy else "accelerate"
        for tt, x in agent_startup_lines(c, n, t, tool):
            st.add(tt, x)
        for r in c.ranks_on[n]:
            for tt, x in rank_items(c, s, r):
                st.add(tt, x)
        if n in s.nodefail:
            for tt, x in agent_failure_lines(c, n, s.nodefail[n], s.final, s, tool):
                st.add(tt, x)
            if legacy:
                tf = s.nodefail[n]["t_sum"] + 0.5
                fr = [((c.pybin.rsplit("/", 1)[0]) + "/accelerate", 8, "<module>", "sys.exit(main())", None),
                      (c.site + "/accelerate/commands/accelerate_cli.py", 41, "main", "args.func(args)", None),
                      (c.site + "/accelerate/commands/launch.py", rng.choice([378, 384, 562]), "launch_command", "multi_gpu_launcher(args)", None),
                      (c.site + "/accelerate/commands/launch.py", rng.choice([176, 180, 306]), "multi_gpu_launcher", "raise subprocess.CalledProcessError(returncode=process.returncode, cmd=cmd)", None)]
                cmd = "[%s]" % ", ".join(repr(x) for x in [c.pybin, "-m", "torch.distributed.launch", "--use_env", "--nproc_per_node", str(c.gpn), "--nnodes", str(c.nn),
                                                           "--node_rank", str(i), "--master_addr", c.ip[pods[0]], "--master_port", str(c.port), c.script])
                st.add(tf, traceback(c, fr, "subprocess.CalledProcessError: Command '%s' returned non-zero exit status 1." % cmd))
        elif s.node_killed and s.node_killed[0] == n and s.sched and s.sched[0] == "k8s_preempt":
            for tt, x in agent_sigterm_lines(c, n, s.node_killed[1] + 0.05, tool)[:1 + c.gpn]:
                st.add(tt, x)
        elif s.end[0] == "cancel" and any(s.final[r][2] == "sched" for r in c.ranks_on[n]):
            for tt, x in agent_sigterm_lines(c, n, s.end[1] + rng.uniform(0.01, 0.4), tool):
                st.add(tt, x)
        # pod killed from outside: log stops there
        if s.node_killed and s.node_killed[0] == n:
            st.cut_after(s.node_killed[1] + 1.0)
        if stamps:
            lines = []
            k_ = 0
            for tt, _, x in sorted(st.items, key=lambda z: (z[0], z[1])):
                d = to_dt(lt(c, n, tt))
                parts = []
                for ln in x.split("\n"):
                    k_ += 1
                    parts.append(d.strftime("%Y-%m-%dT%H:%M:%S") + ".%06d%03dZ " % (d.microsecond, (k_ * 37) % 1000) + ln)
                lines.append("\n".join(parts))
            text = "\n".join(lines)
        else:
            text = st.render()
        files["logs/%s.log" % n] = text + "\n"
    # kubectl describe pods / get events
    desc = []
    now = (s.end[1] if s.end else max(v[0] for v in s.final.values())) + rng.uniform(300, 3600)
    for i, n in enumerate(pods):
        role = "Master" if i == 0 else "Worker"
        rr = s.final
        codes = [rr[r][1] for r in c.ranks_on[n]]
        tend = max(rr[r][0] for r in c.ranks_on[n])
        if s.node_killed and s.node_killed[0] == n:
            nk = s.node_killed
            if nk[2] == 137:
                state = ("Terminated", "OOMKilled", 137, None)
            else:
                state = ("Terminated", "Terminated", 143, "Pod was terminated in response to imminent node shutdown.")
        elif s.end[0] == "ok":
            state = ("Terminated", "Completed", 0, None)
        elif n in s.nodefail:
            state = ("Terminated", "Error", 1, None)
        elif s.end[0] == "cancel":
            state = ("Running", None, None, None)
        else:
            state = ("Terminated", "Error", 1, None)
        desc += ["Name:             %s" % n, "Namespace:        %s" % c.k8s_ns, "Priority:         0",
                 "Node:             %s/%s" % (c.k8s_nodes[i], "10.%d.%d.%d" % (rng.randint(0, 250), rng.randint(0, 250), rng.randint(2, 250))),
                 "Start Time:       %s" % to_dt(c.t_start - 30).strftime("%a, %d %b %Y %H:%M:%S +0000"),
                 "Labels:           training.kubeflow.org/job-name=%s" % job,
                 "                  training.kubeflow.org/replica-index=%d" % (0 if i == 0 else i - 1),
                 "                  training.kubeflow.org/replica-type=%s" % role.lower(),
                 "Status:           %s" % ("Running" if state[0] == "Running" else ("Succeeded" if state[2] == 0 else "Failed")),
                 "Containers:", "  pytorch:",
                 "    Image:         %s" % c.k8s_image,
                 "    Command:", "      accelerate", "      launch", "    Args:", "      --multi_gpu", "      --num_machines=%d" % c.nn,
                 "      --num_processes=%d" % c.world, "      --machine_rank=$(RANK)", "      %s" % c.script]
        if state[0] == "Running":
            desc += ["    State:          Running", "      Started:      %s" % to_dt(c.t_start).strftime("%a, %d %b %Y %H:%M:%S +0000"), "    Ready:          True"]
        else:
            desc += ["    State:          Terminated", "      Reason:       %s" % state[1]]
            if state[3]:
                desc.append("      Message:      %s" % state[3])
            desc += ["      Exit Code:    %d" % state[2],
                     "      Started:      %s" % to_dt(c.t_start).strftime("%a, %d %b %Y %H:%M:%S +0000"),
                     "      Finished:     %s" % to_dt(tend + 1).strftime("%a, %d %b %Y %H:%M:%S +0000"), "    Ready:          False"]
        desc += ["    Restart Count:  0", "    Limits:", "      memory:          %dGi" % c.k8s_mem, "      nvidia.com/gpu:  %d" % c.gpn,
                 "    Requests:", "      cpu:             %d" % rng.choice([64, 90, 180]), "      memory:          %dGi" % c.k8s_mem, "      nvidia.com/gpu:  %d" % c.gpn,
                 "    Environment:", "      MASTER_PORT:  %d" % c.port, "      MASTER_ADDR:  %s" % pods[0], "      WORLD_SIZE:   %d" % c.nn, "      RANK:         %d" % i, ""]
    files["describe-pods.txt"] = "\n".join(desc) + "\n"
    ev = ["LAST SEEN   TYPE      REASON           OBJECT                                MESSAGE"]
    evs = []
    for i, n in enumerate(pods):
        evs.append((c.t_start - 25, "Normal", "Scheduled", "pod/%s" % n, "Successfully assigned %s/%s to %s" % (c.k8s_ns, n, c.k8s_nodes[i])))
        evs.append((c.t_start - 3, "Normal", "Started", "pod/%s" % n, "Started container pytorch"))
    if s.node_killed:
        nk = s.node_killed
        i = pods.index(nk[0])
        if nk[2] == 137:
            vp, vc = getattr(s, "oom_victim", (c.pid[c.ranks_on[nk[0]][0]], pyname(c)))
            evs.append((nk[1], "Warning", "OOMKilling", "node/%s" % c.k8s_nodes[i], "Memory cgroup out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:0 pgtables:%dkB oom_score_adj:936" % (
                vp, vc, rng.randint(60, 180) * 1048576, rng.randint(40, 110) * 1048576, rng.randint(10000, 900000), rng.randint(0, 4000000), rng.randint(80000, 300000))))
        else:
            evs.append((nk[1] - 25, "Warning", "Shutdown" if rng.random() < 0.5 else "NodeShutdown", "node/%s" % c.k8s_nodes[i], "Shutdown manager detected shutdown event"))
            evs.append((nk[1] + 30, "Normal", "NodeNotReady", "pod/%s" % nk[0], "Node is not ready"))
            evs.append((nk[1] + 31, "Normal", "RemovingNode", "node/%s" % c.k8s_nodes[i], "Node %s event: Removing Node %s from Controller" % (c.k8s_nodes[i], c.k8s_nodes[i])))
    if s.end and s.end[0] == "ok":
        evs.append((s.end[1] + 5, "Normal", "JobSucceeded", "pytorchjob/%s" % job, "PyTorchJob %s is successfully completed." % job))
    elif s.nodefail or s.node_killed:
        tf = min([v["t_sum"] for v in s.nodefail.values()] + ([s.node_killed[1]] if s.node_killed else []))
        evs.append((tf + 3, "Normal", "ExitedWithCode", "pytorchjob/%s" % job, "Pod: %s.%s exited with code %d" % (
            c.k8s_ns, pods[0] if pods[0] in s.nodefail else (list(s.nodefail)[0] if s.nodefail else s.node_killed[0]), 1 if s.nodefail else s.node_killed[2])))
        evs.append((tf + 4, "Warning", "JobFailed", "pytorchjob/%s" % job, "PyTorchJob %s is failed because 1 %s replica(s) failed." % (job, "Master" if pods[0] in s.nodefail else "Worker")))
    for tt, typ, rsn, obj, msg in sorted(evs):
        ev.append("%-11s %-9s %-16s %-37s %s" % (k8s_age(now - tt), typ, rsn, obj, msg))
    if rng.random() < 0.75:
        files["events.txt"] = "\n".join(ev) + "\n"
    # node dmesg attached by the platform team (named after the k8s node)
    kf = {}
    attach_kernel(c, s, kf)
    for k_, v in kf.items():
        for i, n in enumerate(pods):
            if n in k_:
                k_ = k_.replace(n, c.k8s_nodes[i])
        files["nodes/" + k_] = v
    smi_files(c, s, files, fmt="nodes/%s")
    pyspy_files(c, s, files)
    return files


# --------------------------------------------------------------------------------------
# layout: lightning_slurm  (sbatch + srun, one task per GPU, (PyTorch) Lightning DDP)
# --------------------------------------------------------------------------------------
def task_ranges(ids):
    ids = sorted(ids)
    out = []
    i = 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        out.append(str(ids[i]) if i == j else "%d-%d" % (ids[i], ids[j]))
        i = j + 1
    return ",".join(out)


def render_lightning(c, s):
    rng = c.rng
    plv = c.plv
    n0 = c.nodes[0]
    t = c.t_start + rng.uniform(5, 12)
    # banners on rank 0 and per-rank init lines (into rank streams before resolve)
    ban = []
    if plv >= (1, 9) and rng.random() < 0.5:
        ban.append("Using %s Automatic Mixed Precision (AMP)" % rng.choice(["16bit", "bfloat16"]))
    if plv >= (1, 7):
        ban.append("GPU available: True (cuda), used: True")
    else:
        ban.append("GPU available: True, used: True")
    ban.append("TPU available: False, using: 0 TPU cores")
    if (1, 4) <= plv < (2, 2):
        ban.append("IPU available: False, using: 0 IPUs")
    if plv >= (1, 6):
        ban.append("HPU available: False, using: 0 HPUs")
    if plv >= (2, 0) and "A100" in c.gpu or "H100" in c.gpu or "H200" in c.gpu:
        if plv >= (1, 9):
            ban.append("You are using a CUDA device ('%s') that has Tensor Cores. To properly utilize them, you should set `torch.set_float32_matmul_precision('medium' | 'high')` which will trade-off precision for performance. For more details, read https://pytorch.org/docs/stable/generated/torch.set_float32_matmul_precision.html#torch.set_float32_matmul_precision" % c.gpu)
    s.rl[0].add(t, "\n".join(ban))
    for r in c.ranks:
        tt = t + rng.uniform(0.5, 4)
        if plv >= (2, 1):
            s.rl[r].add(tt - 0.3, "[rank: %d] Seed set to %d" % (r, c.seed_val))
        elif plv >= (1, 0) and r == 0:
            s.rl[r].add(tt - 0.3, "Global seed set to %d" % c.seed_val)
        if plv >= (1, 5):
            s.rl[r].add(tt, "Initializing distributed: GLOBAL_RANK: %d, MEMBER: %d/%d" % (r, r + 1, c.world))
        else:
            s.rl[r].add(tt, "initializing ddp: GLOBAL_RANK: %d, MEMBER: %d/%d" % (r, r + 1, c.world))
    tt = t + 5
    bar = "-" * 100
    if plv >= (1, 5):
        s.rl[0].add(tt, "%s\ndistributed_backend=nccl\nAll distributed processes registered. Starting with %d processes\n%s\n" % (bar, c.world, bar))
    else:
        s.rl[0].add(tt, "%s\ndistributed_backend=nccl\nAll DDP processes registered. Starting ddp with %d processes\n%s" % (bar, c.world, bar))
    for n in c.nodes:
        r = c.ranks_on[n][0]
        s.rl[r].add(tt + 0.5, "\n".join("LOCAL_RANK: %d - CUDA_VISIBLE_DEVICES: [%s]" % (k_, ",".join(str(x) for x in range(c.gpn))) for k_ in range(c.gpn)))
    p = rng.randint(80, 3000)
    tab = ["", "  | Name    | Type             | Params" + (" | Mode " if plv >= (2, 4) else ""),
           "-" * (45 if plv < (2, 4) else 52),
           "0 | model   | %-16s | %-6s" % (rng.choice(["GPT", "VisionTransformer", "UNet", "T5Model"]), "%d M" % p) + (" | train" if plv >= (2, 4) else ""),
           "1 | loss_fn | CrossEntropyLoss | 0     " + (" | train" if plv >= (2, 4) else ""),
           "-" * (45 if plv < (2, 4) else 52),
           "%-9s Trainable params" % ("%d M" % p), "0         Non-trainable params", "%-9s Total params" % ("%d M" % p),
           "%-9.3f Total estimated model params size (MB)" % (p * 4.0)]
    if plv >= (2, 4):
        tab += ["%-9d Modules in train mode" % rng.randint(40, 400), "0         Modules in eval mode"]
    s.rl[0].add(tt + 2, "\n".join(tab))
    kill_bad = rng.random() < 0.5
    resolve(c, s, "srun_kill" if kill_bad else "none", end_kind="slurm")
    label = rng.random() < 0.35
    out = Stream()
    out.add(c.t_start - 3, "SLURM_JOB_ID=%d SLURM_NNODES=%d SLURM_NTASKS=%d nodes=%s" % (c.jobid, c.nn, c.world, hostlist(c.nodes)))
    out.add(c.t_start - 2, version_echo(c))
    for r in c.ranks:
        for tt, x in rank_items(c, s, r, "%d: " % r if label else ""):
            out.add(tt, x)
    # SIGTERM from the scheduler: lightning's SLURM connector logs it
    if s.end[0] in ("cancel", "timelimit", "preempt"):
        te = s.end[1]
        for r in c.ranks:
            if s.final[r][2] == "sched" or (s.final[r][1] == -15 and abs(s.final[r][0] - te) < 10):
                if plv >= (2, 0):
                    out.add(te + rng.uniform(0.01, 0.2), ("%d: " % r if label else "") + "[rank: %d] Received SIGTERM: 15" % r)
                    if r == 0:
                        out.add(te + 0.25, ("0: " if label else "") + "Bypassing SIGTERM: 15")
                elif plv >= (1, 0) and r == 0:
                    out.add(te + 0.2, ("0: " if label else "") + "bypassing sigterm")
    # srun task reports
    by = {}
    for r in c.ranks:
        tf, code, how = s.final[r]
        if code == 0 or how == "sched":
            continue
        by.setdefault((c.node_of[r], code), []).append(r)
    if kill_bad and getattr(s, "srun_kill_t", None):
        tk = s.srun_kill_t
        first = sorted((s.final[r][0], r) for r in c.ranks if s.final[r][2] == "self" and s.final[r][1] != 0)
        if first:
            r1 = first[0][1]
            out.add(s.final[r1][0] + 0.05, "srun: error: %s: task %d: %s" % (c.node_of[r1], r1, srun_sig_word(s.final[r1][1])))
        if c.sv >= (20, 11):
            out.add(tk, "srun: launch/slurm: _step_signal: Terminating StepId=%d.0" % c.jobid)
        else:
            out.add(tk, "srun: Terminating job step %d.0" % c.jobid)
        out.add(tk + 0.02, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (c.jobid, c.nodes[0], ts_iso(c, c.nodes[0], tk)))
        for (n, code), rs in sorted(by.items()):
            rs2 = [r for r in rs if not first or r != first[0][1]]
            if rs2:
                out.add(tk + rng.uniform(1, 30), "srun: error: %s: task%s %s: %s" % (n, "s" if len(rs2) > 1 else "", task_ranges(rs2), srun_sig_word(code)))
    else:
        for (n, code), rs in sorted(by.items()):
            tl = max(s.final[r][0] for r in rs)
            out.add(tl + rng.uniform(0.05, 1), "srun: error: %s: task%s %s: %s" % (n, "s" if len(rs) > 1 else "", task_ranges(rs), srun_sig_word(code)))
    slurm_tail(c, s, out, c.nodes[0])
    files = {"slurm-%d.out" % c.jobid: maybe_trim(c, out.render()) + "\n"}
    if rng.random() < 0.6:
        files["train.sbatch"] = sbatch_script(c, "srun %s%spython %s fit --config configs/%s.yaml" % (
            "-l " if label else "", "--kill-on-bad-exit=1 " if kill_bad else "", c.script, rng.choice(["base", "large"])), ntasks_per_node=c.gpn)
    attach_kernel(c, s, files)
    smi_files(c, s, files)
    pyspy_files(c, s, files)
    return files


RENDER = {"elastic_slurm": render_elastic_slurm, "legacy_launch": render_legacy, "elastic_logdir": render_elastic_logdir,
          "deepspeed_pdsh": render_deepspeed, "accelerate_k8s": render_accelerate_k8s, "lightning_slurm": render_lightning}


if __name__ == "__main__":
    main()
