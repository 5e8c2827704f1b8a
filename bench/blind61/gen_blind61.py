#!/usr/bin/env python3
"""blind61 -- "numerics and silent corruption" log-bundle generator.

Distributed GPU training jobs that fail (or only look as if they fail) through
numbers: NaN/Inf losses and gradients, loss spikes, grad-norm explosions,
fp16 loss-scaler overflow, NaN guards that raise, data-parallel replicas that
diverge, silent data corruption found by re-runs, checksums or DCGM, and what
the ranks print around all of that.

Usage:  python3 gen_blind61.py --out DIR --n 60 --seed S

Standard library only.  Deterministic per seed: every random choice comes from
random.Random objects seeded with strings, and no set/dict-hash order reaches
the output.
"""

import argparse
import json
import os
import re
import shutil
from datetime import datetime, timedelta
import random

CAUSES = [
    "gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
    "illegal_memory_access", "python_exception", "host_oom_kill", "crash_signal",
    "preemption", "hang", "data_loader_stall", "collective_mismatch", "straggler",
    "unknown",
]
LAYOUTS = ["slurm", "torchrun", "k8s", "deepspeed", "paste", "triage"]

# ----------------------------------------------------------------------------
# small helpers
# ----------------------------------------------------------------------------

_T_RE = re.compile(r"@T\(([^)]*)\)@")


def tfmt(dt, fmt, salt=0):
    us = dt.microsecond
    f = (fmt.replace("%f3", "%03d" % (us // 1000))
         .replace("%f6", "%06d" % us)
         .replace("%f9", "%06d%03d" % (us, (salt * 389 + 17) % 1000)))
    return dt.strftime(f)


def subst_time(text, dt, salt=0):
    if "@T(" not in text:
        return text
    return _T_RE.sub(lambda m: tfmt(dt, m.group(1), salt), text)


def ranges(nums):
    """[0,1,2,5,7,8] -> '0-2,5,7-8'"""
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


def compress_hosts(hosts):
    """Slurm-style host list compression for names ending in digits."""
    groups = {}
    order = []
    for h in hosts:
        m = re.match(r"^(.*?)(\d+)$", h)
        if not m:
            key, num, width = h, None, 0
        else:
            key, num, width = m.group(1), int(m.group(2)), len(m.group(2))
        k = (key, width)
        if k not in groups:
            groups[k] = []
            order.append(k)
        groups[k].append(num)
    parts = []
    for k in order:
        key, width = k
        nums = groups[k]
        if nums[0] is None:
            parts.append(key)
            continue
        if len(nums) == 1:
            parts.append("%s%0*d" % (key, width, nums[0]))
            continue
        nums = sorted(nums)
        segs = []
        i = 0
        while i < len(nums):
            j = i
            while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
                j += 1
            if i == j:
                segs.append("%0*d" % (width, nums[i]))
            else:
                segs.append("%0*d-%0*d" % (width, nums[i], width, nums[j]))
            i = j + 1
        parts.append("%s[%s]" % (key, ",".join(segs)))
    return ",".join(parts)


def hexid(rng, n=16):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def fnum(x, spec):
    """format that keeps nan/inf looking like Python prints them."""
    return format(x, spec)


NAN = float("nan")
INF = float("inf")

# ----------------------------------------------------------------------------
# the world: hosts, versions, GPUs
# ----------------------------------------------------------------------------

ERAS = [
    # torch, nccl, cuda tag, era number
    ("2.0.1+cu118", "2.14.3", "cuda11.8", 2.0),
    ("2.1.2+cu121", "2.18.1", "cuda12.1", 2.1),
    ("2.2.2+cu121", "2.19.3", "cuda12.3", 2.2),
    ("2.3.1+cu121", "2.20.5", "cuda12.4", 2.3),
    ("2.4.1+cu124", "2.20.5", "cuda12.4", 2.4),
    ("2.5.1+cu124", "2.21.5", "cuda12.4", 2.5),
    ("2.6.0+cu126", "2.21.5", "cuda12.6", 2.6),
    ("2.8.0+cu128", "2.27.3", "cuda12.8", 2.8),
]

DRIVERS = ["525.125.06", "535.129.03", "535.183.01", "550.54.15", "550.90.07",
           "560.35.03", "570.124.06", "570.148.08", "575.57.08"]

GPU_MODELS = [
    ("NVIDIA A100-SXM4-80GB", ["07", "0f", "47", "4e", "87", "90", "b7", "bd"], "20b2", 79.15),
    ("NVIDIA H100 80GB HBM3", ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"], "2330", 79.11),
    ("NVIDIA H100 80GB HBM3", ["19", "3b", "4c", "5d", "9b", "bb", "cb", "db"], "2330", 79.11),
    ("NVIDIA H200", ["1b", "43", "52", "61", "9d", "c3", "d1", "df"], "2335", 139.8),
]

SIZES = [(2, 2), (4, 4), (8, 8), (16, 8), (32, 8), (64, 8), (128, 8), (256, 8),
         (512, 8), (1024, 8), (16, 4), (24, 8), (48, 8), (96, 8)]
SIZE_W = [4, 4, 9, 10, 9, 8, 7, 5, 3, 3, 2, 2, 3, 3]


class World:
    def __init__(self, rng, layout, need_nodes=1):
        self.rng = rng
        while True:
            n, gpn = rng.choices(SIZES, SIZE_W)[0]
            if n // gpn >= need_nodes:
                break
        self.n, self.gpn = n, gpn
        self.nn = n // gpn
        self.style = rng.choice(["dgx", "nid", "rack", "aws", "gke", "azure", "plain", "cw", "lab"])
        if layout == "k8s" and self.style in ("nid", "lab"):
            self.style = rng.choice(["aws", "gke", "azure"])
        if layout in ("slurm", "deepspeed") and self.style in ("gke", "azure"):
            self.style = rng.choice(["dgx", "nid", "rack", "plain", "lab"])
        self.nodes, self.node_fqdn = self._hosts()
        self.pods = {}
        if layout == "k8s":
            self.k8s_job = rng.choice(["llm-pretrain", "gpt-13b-sft", "pt-llama-70b", "mixtral-ft", "train-run-%d" % rng.randint(10, 999)])
            self.k8s_style = rng.choice(["pytorchjob", "jobset"])
            for i, h in enumerate(self.nodes):
                if self.k8s_style == "pytorchjob":
                    self.pods[h] = "%s-master-0" % self.k8s_job if i == 0 else "%s-worker-%d" % (self.k8s_job, i - 1)
                else:
                    self.pods[h] = "%s-workers-0-%d-%s" % (self.k8s_job, i, hexid(rng, 5))
        ei = rng.randrange(len(ERAS))
        self.torch, self.nccl, self.cuda_tag, self.era = ERAS[ei]
        self.driver = rng.choice(DRIVERS[max(0, ei - 3):min(len(DRIVERS), ei + 4)])
        gm = rng.choice(GPU_MODELS if self.era >= 2.2 else GPU_MODELS[:2])
        self.gpu_model, busall, self.dev_id, self.gpu_mem = gm
        if gpn == 8:
            self.bus = list(busall)
        elif gpn == 4:
            self.bus = [busall[0], busall[2], busall[4], busall[6]]
        else:
            self.bus = [busall[0], busall[4]]
        self.ips = {}
        a = rng.randint(1, 200)
        for i, h in enumerate(self.nodes):
            self.ips[h] = "10.%d.%d.%d" % (a, (i // 200) + rng.randint(0, 3) * 10, 10 + i % 200)
        self.pids = {}
        for i, h in enumerate(self.nodes):
            pid = rng.randint(3000, 2400000)
            for l in range(gpn):
                self.pids[i * gpn + l] = pid
                pid += rng.randint(2, 40)
        self.agent_pid = {h: rng.randint(1000, 2400000) for h in self.nodes}
        self.framework = rng.choice(["megatron", "megatron", "deepspeed", "deepspeed", "ddp", "ddp", "hf", "fsdp"])
        if layout == "deepspeed":
            self.framework = rng.choice(["deepspeed", "deepspeed", "hf"])
        self.dtype = rng.choice(["bf16", "bf16", "fp16"])
        if self.framework in ("deepspeed", "hf") and rng.random() < 0.5:
            self.dtype = "fp16"
        self.timeout_ms = 600000 if self.era >= 2.2 else 1800000
        if rng.random() < 0.25:
            self.timeout_ms = rng.choice([300000, 900000, 1200000, 1800000, 3600000])
        self.jobid = rng.randint(100000, 9999999)
        self.t0 = datetime(2023, 3, 1) + timedelta(seconds=rng.randint(0, 3 * 365 * 86400))
        self.skew = {}
        for h in self.nodes:
            s = rng.gauss(0, 0.6)
            if rng.random() < 0.08:
                s += rng.choice([-1, 1]) * rng.uniform(8, 45)
            self.skew[h] = s
        self.boot = {h: rng.uniform(3600, 40 * 86400) for h in self.nodes}
        self.py = rng.choice(["python3.10", "python3.10", "python3.11", "python3.12"])
        self.site = rng.choice([
            "/usr/local/lib/%s/dist-packages" % self.py,
            "/opt/conda/lib/%s/site-packages" % self.py,
            "/home/%s/.venv/lib/%s/site-packages" % (rng.choice(["mlops", "jdoe", "train", "svc-ml"]), self.py),
        ])
        self.rank_prefix = self.era >= 2.3
        self.ifname = rng.choice(["eth0", "ens12np0", "enp86s0f0", "bond0", "ib0"])
        self.hcas = ["mlx5_%d" % i for i in rng.choice([[0, 1, 2, 3, 4, 5, 6, 7], [0, 3, 4, 5, 6, 9, 10, 11], [1, 2, 3, 4, 5, 6, 7, 8]])]

    def _hosts(self):
        rng, nn, st = self.rng, self.nn, self.style
        hosts, fq = [], {}
        if st == "dgx":
            pre = rng.choice(["dgx-h100-", "dgxa100-", "dgx", "superpod-su2-dgx"])
            start = rng.randint(1, 300)
            hosts = ["%s%03d" % (pre, start + i) for i in range(nn)]
        elif st == "nid":
            cur = rng.randint(1000, 9000)
            for i in range(nn):
                hosts.append("nid%06d" % cur)
                cur += rng.choice([1, 1, 1, 2, 5])
        elif st == "rack":
            pre = rng.choice(["gpu-r", "hgx-r", "sc-r"])
            r0 = rng.randint(1, 30)
            hosts = ["%s%02d-n%02d" % (pre, r0 + i // 16, 1 + i % 16) for i in range(nn)]
        elif st == "aws":
            b = rng.randint(0, 250)
            for i in range(nn):
                h = "ip-10-%d-%d-%d" % (rng.randint(0, 3), b + i // 250, rng.randint(2, 254))
                while h in hosts:
                    h = "ip-10-%d-%d-%d" % (rng.randint(0, 3), b + i // 250, rng.randint(2, 254))
                hosts.append(h)
            suf = rng.choice([".ec2.internal", ".us-west-2.compute.internal", ""])
            for h in hosts:
                fq[h] = h + suf
        elif st == "gke":
            cl = rng.choice(["train", "llm", "ml-prod", "research"])
            hp = hexid(rng, 8)
            for i in range(nn):
                hosts.append("gke-%s-a3-pool-%s-%s" % (cl, hp, "".join(rng.choice("abcdefghjkmnpqrstvwxz0123456789") for _ in range(4))))
        elif st == "azure":
            d = rng.randint(10000000, 99999999)
            s = rng.randint(0, 4000)
            hosts = ["aks-ndv5-%d-vmss%06x" % (d, s + i) for i in range(nn)]
        elif st == "cw":
            pre = rng.choice(["g", "gn", "a3u"])
            cur = rng.randint(100, 8000)
            for i in range(nn):
                hosts.append("%s%04d" % (pre, cur))
                cur += rng.choice([1, 1, 1, 3])
        elif st == "lab":
            pre = rng.choice(["atlas", "sirius", "vega", "lyra", "kepler"])
            cur = rng.randint(1, 20)
            for i in range(nn):
                hosts.append("%s-gpu%02d" % (pre, cur))
                cur += rng.choice([1, 1, 2])
        else:
            pre = rng.choice(["node", "trn", "h100-", "worker", "compute-"])
            s = rng.randint(1, 900)
            hosts = ["%s%04d" % (pre, s + i) for i in range(nn)]
        if len(set(hosts)) != len(hosts):
            hosts = ["%s-%d" % (h, i) for i, h in enumerate(hosts)]
        for h in hosts:
            fq.setdefault(h, h)
        return hosts, fq

    def host(self, r):
        return self.nodes[r // self.gpn]

    def hn(self, h):
        """the host name the processes see (pod name inside Kubernetes)"""
        return self.pods.get(h, h)

    def lr(self, r):
        return r % self.gpn

    def node_ranks(self, h):
        i = self.nodes.index(h)
        return list(range(i * self.gpn, (i + 1) * self.gpn))

    def busid(self, r):
        return "%s000" % self.bus[self.lr(r)].lstrip("0") if self.bus[self.lr(r)] != "00" else "0"

    def pci(self, r):
        return "0000:%s:00" % self.bus[self.lr(r)]

    def spare_host(self, k=1):
        h = self.nodes[-1]
        m = re.match(r"^(.*?)(\d+)$", h)
        if m:
            return "%s%0*d" % (m.group(1), len(m.group(2)), int(m.group(2)) + 7 * k)
        return h[:-2] + "%02d" % (17 + k)


# ----------------------------------------------------------------------------
# scenario: events on a shared clock
# ----------------------------------------------------------------------------

class Ev:
    __slots__ = ("t", "seq", "src", "sid", "text", "tags", "chan")

    def __init__(self, t, seq, src, sid, text, tags, chan):
        self.t, self.seq, self.src, self.sid = t, seq, src, sid
        self.text, self.tags, self.chan = text, tuple(tags), chan


class Scn:
    def __init__(self, rng, w, layout, cause, healthy, idx):
        self.rng, self.w, self.layout = rng, w, layout
        self.cause, self.healthy, self.idx = cause, healthy, idx
        self.events = []
        self.seq = 0
        self.extra = {}          # logical file key -> {"text": str, "tags": tuple}
        self.exits = {}          # rank -> (t, kind, val)   kind: code | signal
        self.init_rank = None
        self.init_node = None
        self.rank_groups = []    # list of tag tuples; rank known if all tags of one group survive
        self.node_groups = []
        self.notes = ""
        self.vis = {}
        self.kern_hosts = []
        self.final = "FAILED"
        self.t_end = None
        self.attempts = 1
        self.restart_at = None   # time of a restart (healthy-after-restart runs)
        self.launcher = {"slurm": "srun", "torchrun": "torchrun", "k8s": "torchrun",
                         "deepspeed": "deepspeed"}.get(layout) or rng.choice(["srun", "torchrun", "torchrun"])
        if w.framework == "deepspeed" and layout in ("paste", "triage") and rng.random() < 0.5:
            self.launcher = "deepspeed"
        self.logrank = (w.n - 1) if w.framework == "megatron" else 0
        self.nccl_info = (w.n <= 64 and rng.random() < 0.6) or (w.n <= 256 and rng.random() < 0.2)
        self.user_wrap = rng.random() < 0.35   # script prints a rank/host table at start
        self.s_step = None
        self.silent_rank = None
        self.fr_on = False
        self.agent_killed = []
        self.series = {}
        self.cmd = None

    # -- event API ------------------------------------------------------
    def _add(self, t, src, sid, text, tags, chan):
        self.seq += 1
        for i, line in enumerate(text.split("\n")):
            self.events.append(Ev(t + i * 0.000013, self.seq, src, sid, line, tags, chan))
            self.seq += 1

    def r(self, t, rank, text, tags=(), chan="err"):
        if rank in self.vis:
            self._add(t, "rank", rank, text, tags, chan)

    def k(self, t, host, text, tags=()):
        self._add(t, "kern", host, text, tags, "k")

    def ag(self, t, host, text, tags=()):
        self._add(t, "agent", host, text, tags, "a")

    def sc(self, t, text, tags=()):
        self._add(t, "sched", None, text, tags, "s")

    def note(self, t, text):
        self._add(t, "note", None, text, (), "n")

    def exit(self, rank, t, kind, val):
        if rank not in self.exits:
            self.exits[rank] = (t, kind, val)

    def host_of(self, ev):
        if ev.src in ("rank",):
            return self.w.host(ev.sid)
        if ev.src in ("kern", "agent"):
            return ev.sid
        return self.w.nodes[0]

    def local_dt(self, ev):
        h = self.host_of(ev)
        return self.w.t0 + timedelta(seconds=ev.t + self.w.skew[h])

    def at(self, t, host=None):
        """datetime of a scenario time on a node's clock"""
        return self.w.t0 + timedelta(seconds=t + (self.w.skew[host] if host else 0.0))

    # -- visibility plan --------------------------------------------------
    def plan(self, focus, p_focus=0.85, kern_p=0.6, kern_focus=True):
        w, rng = self.w, self.rng
        focus = [f for f in focus if f is not None]
        lay = self.layout
        vis = []
        nodes_inc = []
        if lay in ("slurm", "deepspeed"):
            if w.n <= 32:
                vis = list(range(w.n))
            else:
                vis = [0, self.logrank] + rng.sample(range(w.n), 14)
                for f in focus:
                    if rng.random() < p_focus:
                        vis += w.node_ranks(w.host(f))
        elif lay in ("torchrun", "k8s"):
            if w.nn <= 3:
                nodes_inc = list(w.nodes)
            else:
                nodes_inc = [w.host(self.logrank), w.host(0)]
                for f in focus:
                    if rng.random() < p_focus:
                        nodes_inc.append(w.host(f))
                others = [h for h in w.nodes if h not in nodes_inc]
                nodes_inc += rng.sample(others, min(len(others), rng.randint(1, 2)))
            for h in nodes_inc:
                vis += w.node_ranks(h)
        elif lay == "paste":
            vis = [self.logrank, 0]
            for f in focus:
                if rng.random() < p_focus:
                    vis.append(f)
            vis.append(rng.randrange(w.n))
        else:  # triage
            vis = [self.logrank, 0]
            for f in focus:
                if rng.random() < p_focus:
                    vis.append(f)
            vis += rng.sample(range(w.n), min(w.n, 3))
        for r in vis:
            self.vis[r] = True
        self.vis_list = sorted(self.vis)
        self.nodes_inc = []
        for h in nodes_inc:
            if h not in self.nodes_inc:
                self.nodes_inc.append(h)
        # kernel logs the operator attached
        kh = []
        fnodes = [w.host(f) for f in focus]
        if lay != "paste" or rng.random() < 0.6:
            for h in fnodes:
                if kern_focus and rng.random() < kern_p:
                    kh.append(h)
            others = [h for h in w.nodes if h not in kh]
            for h in rng.sample(others, min(len(others), rng.choice([0, 1, 1, 2]))):
                kh.append(h)
        seen = []
        for h in kh:
            if h not in seen:
                seen.append(h)
        self.kern_hosts = seen

    # -- common text blocks --------------------------------------------------
    def glog(self, rank, level, src, msg, legacy_src=None):
        """c10 log line, era-specific prefix."""
        era = self.w.era
        if era >= 2.4:
            return "[rank%d]:[%s@T(%%m%%d %%H:%%M:%%S.%%f9)@ %s] %s" % (rank, level, src, msg)
        if era >= 2.2:
            return "[rank%d]:[%s %s] %s" % (rank, level, legacy_src or src, msg)
        return "[%s %s] %s" % (level, legacy_src or src, msg)

    def pgp(self, rank):
        era = self.w.era
        if era >= 2.5:
            return "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % rank
        if era >= 2.4:
            return "[PG 0 (default_pg) Rank %d]" % rank
        if era >= 2.3:
            return "[PG 0 Rank %d]" % rank
        return "[Rank %d]" % rank

    def rp(self, rank):
        return "[rank%d]: " % rank if self.w.rank_prefix else ""

    def nccl_pfx(self, rank, tid=None, warn=False, src=None):
        w = self.w
        pid = w.pids[rank]
        tid = tid if tid is not None else pid
        ts = ""
        if warn and self.nccl_ver() >= (2, 26):
            ts = "[@T(%Y-%m-%d %H:%M:%S)@] "
        s = "%s%s:%d:%d [%d]" % (ts, w.hn(w.host(rank)), pid, tid, w.lr(rank))
        if warn and src:
            s += " " + src
        return s

    def nccl_ver(self):
        return tuple(int(x) for x in self.w.nccl.split(".")[:2])

    def init_lines(self, t):
        """job start: banner, optional rank table, NCCL init."""
        w, rng = self.w, self.rng
        for r in self.vis_list:
            if self.user_wrap:
                self.r(t + rng.uniform(0, 3), r,
                       "[rank %d] host=%s local_rank=%d world_size=%d device=cuda:%d" % (r, w.hn(w.host(r)), w.lr(r), w.n, w.lr(r)),
                       tags=("map:%d" % r,), chan="out")
        if self.nccl_info:
            for r in self.vis_list:
                tt = t + 25 + rng.uniform(0, 6)
                pid = w.pids[r]
                tid = pid + rng.randint(30, 900)
                p = self.nccl_pfx(r)
                if r == 0:
                    self.r(tt - 1, r, "%s NCCL INFO NCCL version %s+%s" % (p, w.nccl, w.cuda_tag), tags=("map:0", "pid:0"))
                self.r(tt, r, "%s NCCL INFO Bootstrap : Using %s:%s<0>" % (p, w.ifname, w.ips[w.host(r)]),
                       tags=("map:%d" % r, "ipmap:%s" % w.host(r)))
                hl = " ".join("[%d]%s:1/IB" % (i, hh) for i, hh in enumerate(w.hcas[:min(8, w.gpn)]))
                self.r(tt + 0.3, r, "%s NCCL INFO NET/IB : Using %s [RO]; OOB %s:%s<0>" % (p, hl, w.ifname, w.ips[w.host(r)]))
                cid = "0x" + hexid(random.Random("cid%d%s" % (w.jobid, w.nodes[0])), 16)
                comm = "0x" + hexid(rng, 12)
                self.r(tt + rng.uniform(2, 8), r,
                       "%s NCCL INFO comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId %s - Init COMPLETE"
                       % (self.nccl_pfx(r, tid), comm, r, w.n, w.lr(r), w.lr(r), w.busid(r), cid),
                       tags=("bus:%d" % r, "map:%d" % r, "pid:%d" % r))
        elif w.n > 32 and self.layout in ("slurm", "deepspeed"):
            pass

    def traceback(self, t, rank, frames, exc_lines, tags=(), prefix=True):
        p = self.rp(rank) if prefix else ""
        out = [p + "Traceback (most recent call last):"]
        for (f, ln, fn, code) in frames:
            out.append(p + '  File "%s", line %d, in %s' % (f, ln, fn))
            if code:
                out.append(p + "    " + code)
        for e in exc_lines:
            out.append(p + e)
        self.r(t, rank, "\n".join(out), tags=tags)

    def site(self, rel):
        return "%s/%s" % (self.w.site, rel)

    def frames_train(self, kind="step"):
        """outer frames of the training script, framework dependent."""
        w, rng = self.w, self.rng
        fw = w.framework
        if fw == "megatron":
            root = rng.choice(["/workspace/Megatron-LM", "/opt/megatron-lm", "/lustre/fsw/llm/megatron-lm"])
            fr = [("%s/pretrain_gpt.py" % root, rng.randint(230, 330), "<module>", "pretrain("),
                  ("%s/megatron/training/training.py" % root, rng.randint(300, 420), "pretrain", "iteration, num_floating_point_operations_so_far = train("),
                  ("%s/megatron/training/training.py" % root, rng.randint(1250, 1600), "train", "train_step(forward_step_func,"),
                  ("%s/megatron/training/training.py" % root, rng.randint(700, 820), "train_step", "losses_reduced = forward_backward_func(")]
            return fr, root
        if fw in ("deepspeed", "hf"):
            root = rng.choice(["/workspace/train", "/home/jdoe/llm-sft", "/app"])
            if fw == "hf":
                fr = [("%s/train.py" % root, rng.randint(150, 400), "<module>", "main()"),
                      ("%s/train.py" % root, rng.randint(100, 300), "main", "trainer.train()"),
                      (self.site("transformers/trainer.py"), rng.randint(1900, 2300), "train", "return inner_training_loop("),
                      (self.site("transformers/trainer.py"), rng.randint(2400, 2700), "_inner_training_loop", "tr_loss_step = self.training_step(model, inputs, num_items_in_batch)")]
            else:
                fr = [("%s/train.py" % root, rng.randint(200, 500), "<module>", "main(args)"),
                      ("%s/train.py" % root, rng.randint(120, 400), "main", "loss = engine(batch)")]
            return fr, root
        root = rng.choice(["/workspace/trainer", "/home/train/src", "/mnt/code/llm"])
        fr = [("%s/train.py" % root, rng.randint(300, 700), "<module>", "main()"),
              (self.site("torch/distributed/elastic/multiprocessing/errors/__init__.py"), 355, "wrapper", "return f(*args, **kwargs)"),
              ("%s/train.py" % root, rng.randint(150, 300), "main", "train(cfg, model, optimizer, loader)"),
              ("%s/train.py" % root, rng.randint(80, 150), "train", "loss = train_step(model, batch, step)")]
        return fr, root

    # -- the metrics stream of the logging rank ---------------------------------
    def setup_training(self, t_start, s0, s_total, step_time, prof=None):
        """prof: dict(overflow_early, overflow_rate, spikes{step:mult}, nan_steps[], inf_gn_steps[])"""
        w, rng = self.w, self.rng
        prof = prof or {}
        self.prof = prof
        self.t_train = t_start
        self.s0 = s0
        self.s_total = s_total
        self.step_time = step_time
        fw = w.framework
        self.log_int = {"megatron": rng.choice([1, 10, 10, 50, 100]), "deepspeed": rng.choice([10, 50, 100]),
                        "hf": rng.choice([10, 25, 50]), "ddp": rng.choice([10, 20, 50, 100]),
                        "fsdp": rng.choice([1, 10, 10, 50])}[fw]
        self.gbs = rng.choice([256, 512, 1024, 1536, 2048])
        self.lr_peak = rng.choice([1.5e-4, 3e-4, 6e-4, 1e-4, 2e-5])
        self.loss_floor = rng.uniform(1.7, 2.6)
        self.loss_amp = rng.uniform(5.0, 8.5)
        self.loss_tau = rng.uniform(800, 4000)
        self.gn_base = rng.uniform(0.25, 1.3)
        self.tflops = rng.uniform(160, 480) if "H" in w.gpu_model else rng.uniform(110, 190)
        self.scale0 = 2.0 ** (32 if (fw in ("deepspeed", "hf") and rng.random() < 0.4) else 16)
        self.megatron_new = rng.random() < 0.7

    def step_t(self, s):
        return self.t_train + (s - self.s0) * self.step_time

    def _series(self, s_from, s_to):
        """simulate loss / grad norm / loss scale for steps [s_from, s_to)."""
        w, rng, prof = self.w, self.rng, self.prof
        fp16 = w.dtype == "fp16"
        spikes = prof.get("spikes", {})
        nan_steps = prof.get("nan_steps", [])
        inf_steps = prof.get("inf_gn_steps", [])
        early = prof.get("overflow_early", 0) if fp16 else 0
        orate = prof.get("overflow_rate", 0.0) if fp16 else 0.0
        scale = self.scale0
        hyst = 2
        good = 0
        skipped_total = 0
        out = []
        cap = 2.0 ** rng.randint(13, 17)
        for s in range(s_from, s_to):
            base = self.loss_floor + self.loss_amp * pow(2.718281828, -s / self.loss_tau)
            loss = base * (1 + rng.gauss(0, 0.012))
            gn = self.gn_base * (1 + abs(rng.gauss(0, 0.15))) * (1 + 4 * pow(2.718281828, -s / 300.0))
            for sp, m in spikes.items():
                if s >= sp and s - sp < 60:
                    d = pow(2.718281828, -(s - sp) / 7.0)
                    loss *= 1 + (m - 1) * d
                    gn *= 1 + (m * 6 - 1) * d
            over = False
            if fp16:
                if s - s_from < early and s_from <= self.s0 + 1:
                    over = True
                elif scale > cap and rng.random() < orate:
                    over = True
            nan = s in nan_steps
            if s in inf_steps:
                gn = INF
            if nan:
                loss = NAN
                gn = NAN
            old = scale
            ev = None
            if over:
                skipped_total += 1
                if self.w.framework in ("deepspeed", "hf") and hyst > 1 and s - s_from >= early:
                    hyst -= 1
                    ev = ("hyst", old, old)
                else:
                    scale = max(1.0, scale / 2)
                    ev = ("over", old, scale)
                good = 0
                gn_out = NAN if rng.random() < 0.5 else INF
            else:
                good += 1
                gn_out = gn
                if fp16 and good >= 1000:
                    scale *= 2
                    good = 0
                    hyst = 2
            lr = self.lr_peak * min(1.0, (s + 1) / 2000.0)
            out.append({"s": s, "loss": loss, "gn": gn_out, "scale": old if over else scale, "over": ev,
                        "lr": lr, "nan": nan, "skipped_total": skipped_total})
        return out

    def train_stream(self, s_from, s_to, jitter=0.02, tags=()):
        """emit the logging rank's metric lines for steps [s_from, s_to)."""
        w, rng = self.w, self.rng
        fw = w.framework
        lrk = self.logrank
        ser = self._series(s_from, s_to)
        li = self.log_int
        acc = []
        sk_int = 0
        nan_int = 0
        for st in ser:
            s = st["s"]
            t = self.step_t(s) + rng.uniform(0, self.step_time * jitter)
            acc.append(st)
            if st["over"]:
                sk_int += 1
                if fw in ("deepspeed", "hf"):
                    kind, a, b = st["over"]
                    if kind == "hyst":
                        txt = "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: %d, but hysteresis is 2. Reducing hysteresis to 1" % a
                    else:
                        txt = "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: %d, reducing to %d" % (a, b)
                    src = rng.choice(["loss_scaler.py:183:update_scale", "loss_scaler.py:190:update_scale"]) if kind == "hyst" else "loss_scaler.py:183:update_scale"
                    self.r(t, 0, "[@T(%%Y-%%m-%%d %%H:%%M:%%S,%%f3)@] [INFO] [%s] %s" % (src, txt), chan="out")
                elif fw in ("ddp", "fsdp"):
                    kind, a, b = st["over"]
                    self.r(t, 0, "[@T(%%Y-%%m-%%d %%H:%%M:%%S)@] WARNING grad scaler: found inf/nan in gradients at step %d, optimizer.step() skipped (scale %.1f -> %.1f)" % (s, a, b), chan="out")
            if st["nan"]:
                nan_int += 1
            if (s + 1) % li != 0:
                continue
            good = [x for x in acc if not x["nan"]]
            loss = sum(x["loss"] for x in good) / len(good) if good else NAN
            self.last_loss = loss
            last = acc[-1]
            ms = self.step_time * 1000 * (1 + rng.gauss(0, 0.01))
            if fw == "megatron":
                pre = " [@T(%Y-%m-%d %H:%M:%S)@]" if self.megatron_new else ""
                thr = " throughput per GPU (TFLOP/s/GPU): %.1f |" % (self.tflops * (1 + rng.gauss(0, 0.01))) if self.megatron_new else ""
                gn = last["gn"]
                gn_s = "" if last["over"] else " grad norm: %s |" % fnum(gn, ".3f")
                txt = ("%s iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f |%s "
                       "learning rate: %s | global batch size: %5d | lm loss: %s | loss scale: %.1f |%s "
                       "number of skipped iterations: %3d | number of nan iterations: %3d |"
                       % (pre, s + 1, self.s_total, (s + 1) * self.gbs, ms, thr, fnum(last["lr"], ".6E"), self.gbs,
                          fnum(loss, ".6E"), last["scale"] if w.dtype == "fp16" else 1.0, gn_s, sk_int, nan_int))
                self.r(t, lrk, txt, chan="out", tags=tags)
            elif fw == "deepspeed":
                self.r(t, 0, "[@T(%%Y-%%m-%%d %%H:%%M:%%S,%%f3)@] [INFO] [logging.py:96:log_dist] [Rank 0] step=%d, skipped=%d, lr=[%s], mom=[(0.9, 0.95)]"
                       % (s + 1, last["skipped_total"], repr(last["lr"])), chan="out", tags=tags)
                if rng.random() < 0.6:
                    sps = self.gbs / self.step_time
                    self.r(t + 0.001, 0, "[@T(%%Y-%%m-%%d %%H:%%M:%%S,%%f3)@] [INFO] [timer.py:260:stop] epoch=0/micro_step=%d/global_step=%d, RunningAvgSamplesPerSec=%.4f, CurrSamplesPerSec=%.4f, MemAllocated=%.2fGB, MaxMemAllocated=%.2fGB"
                           % ((s + 1) * 8, s + 1, sps * 0.98, sps * (1 + rng.gauss(0, 0.02)), w.gpu_mem * 0.41, w.gpu_mem * 0.83), chan="out")
                self.r(t + 0.002, 0, "step %d: loss=%s grad_norm=%s" % (s + 1, fnum(loss, ".4f"), fnum(last["gn"], ".4f")), chan="out")
            elif fw == "hf":
                ep = (s + 1) / float(self.s_total) * 3
                self.r(t, 0, "{'loss': %s, 'grad_norm': %s, 'learning_rate': %s, 'epoch': %.2f}"
                       % (fnum(round(loss, 4), ""), fnum(last["gn"], ".4f") if last["gn"] == last["gn"] else "nan",
                          repr(last["lr"]), ep), chan="out", tags=tags)
                if rng.random() < 0.3:
                    pct = int(100 * (s + 1) / self.s_total)
                    bar = "\u2588" * (pct // 10) + " " * (10 - pct // 10)
                    el = int((s + 1) * self.step_time)
                    rem = int((self.s_total - s - 1) * self.step_time)
                    self.r(t + 0.01, 0, "%3d%%|%s| %d/%d [%02d:%02d:%02d<%02d:%02d:%02d, %.2fs/it]"
                           % (pct, bar, s + 1, self.s_total, el // 3600, el // 60 % 60, el % 60,
                              rem // 3600, rem // 60 % 60, rem % 60, self.step_time), chan="err")
            elif fw == "fsdp":
                mem = w.gpu_mem * rng.uniform(0.72, 0.8)
                self.r(t, 0, "[titan] @T(%%Y-%%m-%%d %%H:%%M:%%S,%%f3)@ - root - INFO - step: %d  loss: %s  grad_norm: %s  memory: %.2fGiB(%.2f%%)  tps: %s  tflops: %.2f  mfu: %.2f%%"
                       % (s + 1, fnum(loss, "7.4f"), fnum(last["gn"], "6.4f"), mem, 100 * mem / w.gpu_mem,
                          "{:,}".format(int(4096 * 8 / self.step_time)), self.tflops, self.tflops / 9.89), chan="out", tags=tags)
            else:
                sc = " | scale %.0f" % last["scale"] if w.dtype == "fp16" else ""
                self.r(t, 0, "[@T(%%Y-%%m-%%d %%H:%%M:%%S)@] step %6d | loss %s | grad_norm %s | lr %.3e%s | %.0f tok/s/gpu"
                       % (s + 1, fnum(loss, ".4f"), fnum(last["gn"], ".3f"), last["lr"], sc, 4096 * 4 / self.step_time),
                       chan="out", tags=tags)
            acc = []
            sk_int = 0
            nan_int = 0
        return ser

    # -- collateral on the other ranks ------------------------------------------
    def watchdog(self, t, rank, seq, op, numel, last_enq=None, last_comp=None, tags=(), fr_from=None):
        """NCCL watchdog timeout block on one rank; returns abort time."""
        w, rng = self.w, self.rng
        era = w.era
        tmo = w.timeout_ms
        ran = tmo + rng.randint(3, 2500)
        last_enq = seq if last_enq is None else last_enq
        last_comp = seq - 1 if last_comp is None else last_comp
        pg = self.pgp(rank)
        work = "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (seq, op, numel, numel, tmo)
        if era < 2.1:
            work = "WorkNCCL(SeqNum=%d, OpType=%s, Timeout(ms)=%d)" % (seq, op, tmo)
        head = "[Rank %d]" % rank if era < 2.4 else pg
        core = "%s Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (head, work, ran)
        L = []
        g = self.glog
        if era < 2.2:
            L.append(g(rank, "E", "ProcessGroupNCCL.cpp:475", core))
            L.append(g(rank, "E", "ProcessGroupNCCL.cpp:489", "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data."))
            L.append(g(rank, "E", "ProcessGroupNCCL.cpp:495", "To avoid data inconsistency, we are taking the entire process down."))
            L.append(g(rank, "E", "ProcessGroupNCCL.cpp:916", "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (rank, core)))
            L.append("terminate called after throwing an instance of 'std::runtime_error'")
            L.append("  what():  [Rank %d] NCCL watchdog thread terminated with exception: %s" % (rank, core))
        else:
            src_core = "ProcessGroupNCCL.cpp:%d" % (563 if era < 2.4 else (616 if era < 2.5 else 632))
            L.append(g(rank, "E", src_core, core))
            if era >= 2.5:
                L.append(g(rank, "E", "ProcessGroupNCCL.cpp:2168", "%s failure detected by watchdog at work sequence id: %d PG status: last enqueued work: %d, last completed work: %d" % (pg, seq, last_enq, last_comp)))
                if era >= 2.8 or self.fr_on:
                    frm = "this local rank" if fr_from is None else "rank %d" % fr_from
                    L.append(g(rank, "E", "ProcessGroupNCCL.cpp:1685", "%s Received a dump signal due to a collective timeout from %s and we will try our best to dump the debug info. Last enqueued NCCL work: %d, last completed NCCL work: %d." % (pg, frm, last_enq, last_comp)))
                else:
                    L.append(g(rank, "E", "ProcessGroupNCCL.cpp:667", "%s Stack trace of the failed collective not found, potentially because FlightRecorder is disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value." % pg))
            elif era >= 2.4:
                L.append(g(rank, "E", "ProcessGroupNCCL.cpp:1785", "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pg, seq, last_enq, last_comp)))
            else:
                L.append(g(rank, "E", "ProcessGroupNCCL.cpp:1537", "%s Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pg, seq, last_enq, last_comp)))
            L.append(g(rank, "E", "ProcessGroupNCCL.cpp:577" if era < 2.4 else "ProcessGroupNCCL.cpp:630", "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % rank))
            L.append(g(rank, "E", "ProcessGroupNCCL.cpp:583" if era < 2.4 else "ProcessGroupNCCL.cpp:636", "[Rank %d] To avoid data inconsistency, we are taking the entire process down." % rank))
            L.append(g(rank, "E", "ProcessGroupNCCL.cpp:1414" if era < 2.4 else "ProcessGroupNCCL.cpp:1595", "%s Process group watchdog thread terminated with exception: %s" % (pg, core)))
            L.append("terminate called after throwing an instance of 'c10::DistBackendError'")
            L.append("  what():  %s Process group watchdog thread terminated with exception: %s" % (pg, core))
            L.append("Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % (565 if era < 2.4 else 618))
            L.append("frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x%x (0x7f%s in %s)" % (rng.randint(0x40, 0x9f), hexid(rng, 10), self.site("torch/lib/libc10.so")))
            L.append("frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x%x (0x7f%s in %s)" % (rng.randint(0x100, 0x2ff), hexid(rng, 10), self.site("torch/lib/libtorch_cuda.so")))
            L.append("frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x%x (0x7f%s in %s)" % (rng.randint(0x200, 0x8ff), hexid(rng, 10), self.site("torch/lib/libtorch_cuda.so")))
        self.r(t, rank, "\n".join(L), tags=tuple(tags) + ("wd:%d" % rank,))
        return t + rng.uniform(0.2, 3.0)

    def remote_error(self, t, rank, peer_host, tags=()):
        """watchdog rethrowing an async NCCL remote error (peer died)."""
        w, rng = self.w, self.rng
        pg = self.pgp(rank)
        p = self.nccl_pfx(rank, tid=w.pids[rank] + rng.randint(40, 900), warn=True, src="misc/socket.cc:%d" % rng.choice([49, 538, 575]))
        self.r(t - 0.01, rank, "%s NCCL WARN socketProgress: Connection closed by remote peer %s<%d>" % (p, w.ips.get(peer_host, peer_host), rng.randint(32000, 60999)))
        wd = "Process group watchdog thread terminated with exception" if w.era >= 2.4 else "NCCL watchdog thread terminated with exception"
        msg = ("%s %s: NCCL error: remote process exited or there was a network error, NCCL version %s\n"
               "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\n"
               "Last error:\nsocketProgress: Connection closed by remote peer %s<%d>" % (pg, wd, w.nccl, w.ips.get(peer_host, peer_host), rng.randint(32000, 60999)))
        lines = msg.split("\n")
        self.r(t, rank, self.glog(rank, "E", "ProcessGroupNCCL.cpp:1595", lines[0]) + "\n" + "\n".join(lines[1:]), tags=tuple(tags) + ("wd:%d" % rank,))
        self.r(t + 0.01, rank, "terminate called after throwing an instance of 'c10::DistBackendError'" if w.era >= 2.2 else "terminate called after throwing an instance of 'std::runtime_error'")
        self.r(t + 0.01, rank, "  what():  " + lines[0] + "\n" + "\n".join(lines[1:]))
        return t + rng.uniform(0.1, 1.5)

    def collateral(self, tf, skip, seq, op="ALLREDUCE", numel=None, mode="watchdog", dead_host=None, hung=None,
                   max_print=24):
        """Other ranks fail after the initiator: watchdog timeouts (after the PG timeout) or quick
        remote errors; launcher-aware (torchrun/deepspeed agents kill the local siblings)."""
        w, rng = self.w, self.rng
        numel = numel or rng.choice([1, 2, 8, 4096, 1048576, 25165824, 52428800, 131334144])
        skip = list(skip)
        kills_siblings = self.launcher in ("torchrun", "deepspeed")
        dead_nodes = sorted(set(w.host(r) for r in skip if r in self.exits))
        printed = 0
        tmo = w.timeout_ms / 1000.0
        plan = []
        for r in range(w.n):
            if r in skip or r in self.exits:
                continue
            h = w.host(r)
            if kills_siblings and h in dead_nodes:
                t_kill = min(self.exits[x][0] for x in skip if x in self.exits and w.host(x) == h) + rng.uniform(0.3, 1.2)
                self.exits[r] = (t_kill, "signal", "SIGTERM" if self.launcher == "torchrun" else "SIGKILL")
                continue
            if mode == "remote" and rng.random() < 0.7:
                tt = tf + rng.uniform(0.5, 6.0)
            else:
                tt = tf + tmo + rng.uniform(0.0, 4.0)
            plan.append((tt, r))
        plan.sort()
        node_kill = {}
        for tt, r in plan:
            h = w.host(r)
            if kills_siblings and h in node_kill and tt > node_kill[h]:
                self.exits[r] = (node_kill[h], "signal", "SIGTERM" if self.launcher == "torchrun" else "SIGKILL")
                continue
            if r in self.vis and (printed < max_print or w.n <= 32 or (self.layout in ("torchrun", "k8s"))):
                printed += 1
                if mode == "remote" and tt < tf + tmo:
                    te = self.remote_error(tt, r, dead_host or w.host(skip[0] if skip else 0))
                else:
                    te = self.watchdog(tt, r, seq, op, numel, seq, seq - 1, fr_from=None)
            else:
                te = tt + rng.uniform(0.2, 2.0)
            self.exits[r] = (te, "signal", "SIGABRT")
            if kills_siblings and h not in node_kill:
                node_kill[h] = te + rng.uniform(0.3, 0.8)
        if printed < len([r for r in self.vis_list if r not in skip]) and w.n > 32 and self.layout in ("slurm", "deepspeed"):
            self.note(tf + tmo + 5, "[... same watchdog timeout reported by %d more ranks, trimmed ...]" % (w.n - printed - len(skip)))

    def exits_all(self, t, kind, val, ranks=None):
        for r in (ranks if ranks is not None else range(self.w.n)):
            self.exit(r, t + self.rng.uniform(0, 1.5), kind, val)

    # -- launcher view of the exits ---------------------------------------------
    SIGNUM = {"SIGABRT": 6, "SIGKILL": 9, "SIGTERM": 15, "SIGSEGV": 11, "SIGBUS": 7, "SIGINT": 2}

    def exitcode(self, r):
        t, kind, val = self.exits[r]
        if kind == "code":
            return val
        if kind == "oom":
            return -9
        return -self.SIGNUM[val]

    def agent_fmt(self, level, module, msg, h=None):
        era = self.w.era
        if era < 2.2:
            return "%s:%s:%s" % ({"W": "WARNING", "E": "ERROR", "I": "INFO"}[level], module, msg)
        if era < 2.4:
            return "[@T(%%Y-%%m-%%d %%H:%%M:%%S,%%f3)@] %s: [%s] %s" % (module, {"W": "WARNING", "E": "ERROR", "I": "INFO"}[level], msg)
        path = module.replace(".", "/") + ".py"
        line = {"torch.distributed.elastic.multiprocessing.api": 897, "torch.distributed.run": 793,
                "torch.distributed.elastic.agent.server.api": 709}.get(module, 100)
        return "%s@T(%%m%%d %%H:%%M:%%S.%%f6)@ %d %s:%d] %s" % (level, self.w.agent_pid.get(h, 4242) if h else self.rng.randint(100, 99999), path, line, msg)

    def agent_hosts(self):
        w = self.w
        if self.layout in ("torchrun", "k8s"):
            return list(self.nodes_inc)
        hs = []
        for r in self.vis_list:
            h = w.host(r)
            if h not in hs:
                hs.append(h)
        return hs

    def finish(self, t_end=None, success=False):
        w, rng = self.w, self.rng
        if success:
            self.final = "COMPLETED"
        last = max([e[0] for e in self.exits.values()] + [t_end or 0.0])
        self.t_end = (t_end or last) + rng.uniform(1, 5)
        for h in self.kern_hosts:
            kernel_noise(self, h, 5.0, self.t_end + rng.uniform(60, 3000))
        hosts = self.agent_hosts()
        if self.launcher == "torchrun":
            self._torchrun_agents(hosts, success)
        elif self.launcher == "deepspeed":
            self._ds_agents(hosts, success)
        else:
            self._srun_lines(success)

    def _torchrun_agents(self, hosts, success):
        w, rng = self.w, self.rng
        M = "torch.distributed.elastic.multiprocessing.api"
        verbose = rng.random() < 0.5
        for h in hosts:
            ni = w.nodes.index(h)
            rs = w.node_ranks(h)
            t0 = rng.uniform(0.5, 3)
            self.ag(t0, h, self.agent_fmt("W", "torch.distributed.run", "", h=h))
            self.ag(t0, h, self.agent_fmt("W", "torch.distributed.run", "*****************************************", h=h))
            self.ag(t0, h, self.agent_fmt("W", "torch.distributed.run", "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ", h=h))
            self.ag(t0, h, self.agent_fmt("W", "torch.distributed.run", "*****************************************", h=h))
            if verbose:
                A = "torch.distributed.elastic.agent.server.api"
                self.ag(t0 + 5, h, self.agent_fmt("I", A, "[default] Rendezvous complete for workers. Result:", h=h))
                body = ("  restart_count=0\n  master_addr=%s\n  master_port=29500\n  group_rank=%d\n  group_world_size=%d\n"
                        "  local_ranks=%s\n  role_ranks=%s\n  global_ranks=%s\n  role_world_sizes=%s\n  global_world_sizes=%s"
                        % (w.hn(w.nodes[0]), ni, w.nn, list(range(w.gpn)), rs, rs, [w.n] * w.gpn, [w.n] * w.gpn))
                self.ag(t0 + 5, h, body, tags=tuple("map:%d" % r for r in rs))
                self.ag(t0 + 5.1, h, self.agent_fmt("I", A, "[default] Starting worker group", h=h))
            if h in self.agent_killed:
                continue
            if success:
                te = self.t_end - rng.uniform(2, 20)
                self.ag(te, h, self.agent_fmt("I", "torch.distributed.elastic.agent.server.api", "[default] worker group successfully finished. Waiting 300 seconds for other agents to finish.", h=h))
                self.ag(te + 0.1, h, self.agent_fmt("I", "torch.distributed.elastic.agent.server.api", "Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish", h=h))
                continue
            ex = [(self.exits[r][0], r) for r in rs if r in self.exits]
            if not ex:
                continue
            ex.sort()
            bad = [(t, r) for (t, r) in ex if self.exitcode(r) != 0 and self.exits[r][2] != "SIGTERM"]
            if not bad:
                bad = ex[:1]
            tfirst, rfirst = bad[0]
            alive = [r for (t, r) in ex if t > tfirst + 0.05]
            tt = tfirst + 0.2
            for r in alive:
                self.ag(tt, h, self.agent_fmt("W", M, "Sending process %d closing signal SIGTERM" % w.pids[r], h=h))
                tt += 0.004
            ec = self.exitcode(rfirst)
            self.ag(tt + 0.5, h, self.agent_fmt("E", M, "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: /usr/bin/%s" % (ec, w.lr(rfirst), w.pids[rfirst], w.py), h=h))
            self._child_failed(tt + 0.7, h, rfirst, [r for (t, r) in bad[1:] if t <= tfirst + 0.05])

    def _child_failed(self, t, h, root, others):
        w, rng = self.w, self.rng
        name = self.script_name()
        L = ["Traceback (most recent call last):",
             '  File "/usr/local/bin/torchrun", line 8, in <module>',
             "    sys.exit(main())",
             '  File "%s", line 355, in wrapper' % self.site("torch/distributed/elastic/multiprocessing/errors/__init__.py"),
             "    return f(*args, **kwargs)",
             '  File "%s", line 143, in __call__' % self.site("torch/distributed/launcher/api.py"),
             "    return launch_agent(self._config, self._entrypoint, list(args))",
             '  File "%s", line 277, in launch_agent' % self.site("torch/distributed/launcher/api.py"),
             "    raise ChildFailedError(",
             "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
             "=" * 60, "%s FAILED" % name, "-" * 60, "Failures:"]
        tags = []

        def block(i, r):
            ec = self.exitcode(r)
            dt = self.at(self.exits[r][0], h)
            kind = self.exits[r][1]
            if kind in ("signal", "oom"):
                sig = self.exits[r][2] if kind == "signal" else "SIGKILL"
                tb = "Signal %d (%s) received by PID %d" % (self.SIGNUM[sig], sig, w.pids[r])
                ef = "<N/A>"
            else:
                tb = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
                ef = "<N/A>"
                if getattr(self, "errfile", None) and r in self.errfile:
                    ef = "/tmp/torchelastic_%s/%s_%s/attempt_0/%d/error.json" % (hexid(rng, 8), w.jobid, hexid(rng, 6), w.lr(r))
                    tb = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
            tags.append("pid:%d" % r)
            tags.append("map:%d" % r)
            tags.append("exit:%d" % r)
            return ["[%d]:" % i,
                    "  time      : %s" % dt.strftime("%Y-%m-%d_%H:%M:%S"),
                    "  host      : %s" % (w.hn(h) if w.pods else w.node_fqdn.get(h, h)),
                    "  rank      : %d (local_rank: %d)" % (r, w.lr(r)),
                    "  exitcode  : %d (pid: %d)" % (ec, w.pids[r]),
                    "  error_file: %s" % ef,
                    "  traceback : %s" % tb]
        if others:
            for i, r in enumerate(others, 1):
                L += block(i, r)
        else:
            L.append("  <NO_OTHER_FAILURES>")
        L += ["-" * 60, "Root Cause (first observed failure):"]
        L += block(0, root)
        L.append("=" * 60)
        self.ag(t, h, "\n".join(L), tags=tuple(tags))

    def script_name(self):
        fw = self.w.framework
        return {"megatron": "pretrain_gpt.py", "deepspeed": "train.py", "hf": "train.py", "ddp": "train.py",
                "fsdp": "torchtitan/train.py"}[fw]

    def _ds_agents(self, hosts, success):
        w, rng = self.w, self.rng
        for h in hosts:
            ni = w.nodes.index(h)
            rs = w.node_ranks(h)
            t0 = rng.uniform(1, 4)
            pre = "[@T(%Y-%m-%d %H:%M:%S,%f3)@] "
            if w.nn <= 6:
                wi = "{" + ", ".join("'%s': %s" % (x, list(range(w.gpn))) for x in w.nodes) + "}"
                self.ag(t0, h, pre + "[INFO] [launch.py:146:main] WORLD INFO DICT: %s" % wi)
            self.ag(t0, h, pre + "[INFO] [launch.py:152:main] nnodes=%d, num_local_procs=%d, node_rank=%d" % (w.nn, w.gpn, ni),
                    tags=tuple("map:%d" % r for r in rs))
            if w.nn <= 6:
                gm = "{" + ", ".join("'%s': %s" % (x, w.node_ranks(x)) for x in w.nodes) + "}"
                self.ag(t0, h, pre + "[INFO] [launch.py:163:main] global_rank_mapping=defaultdict(<class 'list'>, %s)" % gm)
            self.ag(t0, h, pre + "[INFO] [launch.py:164:main] dist_world_size=%d" % w.n)
            self.ag(t0, h, pre + "[INFO] [launch.py:168:main] Setting CUDA_VISIBLE_DEVICES=%s" % ",".join(str(i) for i in range(w.gpn)))
            if success:
                for r in rs:
                    self.ag(self.t_end - rng.uniform(1, 5), h, pre + "[INFO] [launch.py:351:main] Process %d exits successfully." % w.pids[r])
                continue
            ex = sorted((self.exits[r][0], r) for r in rs if r in self.exits)
            if not ex:
                continue
            bad = [(t, r) for (t, r) in ex if self.exitcode(r) != 0 and self.exits[r][2] not in ("SIGTERM", "SIGKILL") or self.exits[r][1] == "oom"]
            if not bad:
                bad = ex[:1]
            tfirst, rfirst = bad[0]
            tt = tfirst + 0.3
            for r in rs:
                self.ag(tt, h, pre + "[INFO] [launch.py:315:sigkill_handler] Killing subprocess %d" % w.pids[r])
                tt += 0.01
            ec = self.exitcode(rfirst)
            self.ag(tt, h, pre + "[ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/%s', '-u', '%s', '--local_rank=%d', '--deepspeed', '--deepspeed_config', 'ds_config.json'] exits with return code = %d"
                    % (w.py, self.script_name(), w.lr(rfirst), ec), tags=("map:%d" % rfirst, "exit:%d" % rfirst))
            self.sc(tt + rng.uniform(0.5, 3), "pdsh@%s: %s: ssh exited with exit code %d" % (w.nodes[0], h, 1 if ec != 0 else 0))

    def _srun_lines(self, success):
        w, rng = self.w, self.rng
        if success:
            return
        groups = {}
        order = []
        for r in range(w.n):
            if r not in self.exits:
                continue
            t, kind, val = self.exits[r]
            if kind == "code" and val == 0:
                continue
            h = w.host(r)
            if kind == "code":
                what = "Exited with exit code %d" % val
            elif kind == "oom":
                what = "Out Of Memory"
            else:
                what = {"SIGABRT": "Aborted (core dumped)", "SIGKILL": "Killed", "SIGTERM": "Terminated",
                        "SIGSEGV": "Segmentation fault (core dumped)", "SIGBUS": "Bus error (core dumped)",
                        "SIGINT": "Interrupt"}[val]
            key = (h, what)
            if key not in groups:
                groups[key] = []
                order.append(key)
            groups[key].append((t, r))
        lines = []
        for key in order:
            h, what = key
            items = groups[key]
            ts = max(t for t, r in items)
            rs = [r for t, r in items]
            lines.append((ts, h, what, rs))
        lines.sort(key=lambda x: (x[0], x[1]))
        if len(lines) > 40:
            keep = lines[:20] + lines[-12:]
            cut = len(lines) - len(keep)
            lines = keep
            self.note(keep[20][0] - 0.01, "[... %d more srun error lines trimmed ...]" % cut)
        for (ts, h, what, rs) in lines:
            tk = "task" if len(rs) == 1 else "tasks"
            self.sc(ts + rng.uniform(0.5, 2.0), "srun: error: %s: %s %s: %s" % (h, tk, ranges(rs), what),
                    tags=tuple(["map:%d" % r for r in rs] + ["exit:%d" % r for r in rs]))


# ----------------------------------------------------------------------------
# kernel, DCGM and nvidia-smi material
# ----------------------------------------------------------------------------

def drv_major(w):
    return int(w.driver.split(".")[0])


def gpu_uuid(w, host, lr):
    g = random.Random("uuid:%s:%s:%d" % (w.jobid, host, lr))
    return "GPU-%s-%s-%s-%s-%s" % (hexid(g, 8), hexid(g, 4), hexid(g, 4), hexid(g, 4), hexid(g, 12))


def proc_name(S):
    if S.w.era >= 2.2 and S.rng.random() < 0.5:
        return "pt_main_thread"
    return S.rng.choice(["python3", "python", S.w.py])


def xid(S, t, rank, code, body, tags=("X",), with_pid=True, uuid_once=True):
    """Xid line for the GPU of `rank` on its host (driver-era format)."""
    w = S.w
    h = w.host(rank)
    pci = "PCI:%s" % w.pci(rank)
    if uuid_once and not getattr(S, "_uuid_done_%d" % rank, False):
        setattr(S, "_uuid_done_%d" % rank, True)
        S.k(t - 0.001, h, "NVRM: GPU at %s: %s" % (pci, gpu_uuid(w, h, w.lr(rank))))
        S.k(t - 0.001, h, "NVRM: GPU Board Serial Number: %d" % random.Random("sn%s%d" % (h, w.lr(rank))).randint(1320000000000, 1660000000000))
    if code in (79, 154) or not with_pid:
        line = "NVRM: Xid (%s): %d, %s" % (pci, code, body)
    elif drv_major(w) < 530 and S.rng.random() < 0.6:
        line = "NVRM: Xid (%s): %d, pid=%d, %s" % (pci, code, w.pids[rank], body)
    else:
        line = "NVRM: Xid (%s): %d, pid=%d, name=%s, %s" % (pci, code, w.pids[rank], S.pname, body)
    S.k(t, h, line, tags=tags)


def xid_unknown_pid(S, t, rank, code, body, tags=("X",)):
    w = S.w
    pci = "PCI:%s" % w.pci(rank)
    if not getattr(S, "_uuid_done_%d" % rank, False):
        setattr(S, "_uuid_done_%d" % rank, True)
        S.k(t - 0.001, w.host(rank), "NVRM: GPU at %s: %s" % (pci, gpu_uuid(w, w.host(rank), w.lr(rank))))
    S.k(t, w.host(rank), "NVRM: Xid (%s): %d, pid='<unknown>', name=<unknown>, %s" % (pci, code, body), tags=tags)


def kernel_noise(S, host, t_from, t_to):
    """boring runtime kernel lines so that a dmesg file is not only the incident."""
    rng = S.rng

    def one():
        k = rng.randrange(9)
        if k == 0:
            return "audit: type=1400 audit(%d.%03d:%d): apparmor=\"STATUS\" operation=\"profile_replace\" info=\"same as current profile, skipping\" profile=\"unconfined\" name=\"cri-containerd.apparmor.d\" pid=%d comm=\"apparmor_parser\"" % (
                rng.randint(1700000000, 1790000000), rng.randint(0, 999), rng.randint(100, 900), rng.randint(1000, 90000))
        if k == 1:
            return "IPv6: ADDRCONF(NETDEV_CHANGE): veth%s: link becomes ready" % hexid(rng, 7)
        if k == 2:
            return "cni0: port %d(veth%s) entered forwarding state" % (rng.randint(1, 30), hexid(rng, 7))
        if k == 3:
            return "device veth%s entered promiscuous mode" % hexid(rng, 7)
        if k == 4:
            return "perf: interrupt took too long (%d > %d), lowering kernel.perf_event_max_sample_rate to %d" % (rng.randint(2600, 4000), rng.randint(2500, 2600), rng.choice([50000, 63000, 79000]))
        if k == 5:
            return "nvidia-peermem nv_mem_get_pages: ... invalid size"
        if k == 6:
            return "Lustre: %s-OST%04x-osc-ffff%s: Connection restored to %s@o2ib (at %s@o2ib)" % (rng.choice(["scratch", "lus01"]), rng.randint(0, 90), hexid(rng, 12), "10.%d.%d.%d" % (rng.randint(0, 255), rng.randint(0, 255), rng.randint(1, 250)), "10.%d.%d.%d" % (rng.randint(0, 255), rng.randint(0, 255), rng.randint(1, 250)))
        if k == 7:
            return "hrtimer: interrupt took %d ns" % rng.randint(20000, 900000)
        return "systemd-journald[%d]: Data hash table of /run/log/journal/%s/system.journal has a fill level at 75.0 (%d of %d items, %d file size, %d bytes per hash table item), suggesting rotation." % (rng.randint(500, 3000), hexid(rng, 32), 3 * 1024 * rng.randint(1, 3), 4 * 1024 * rng.randint(1, 3) + 1024 * 8, rng.randint(2000000, 8000000), rng.randint(400, 900))
    n = rng.randint(3, 12)
    for i in range(n):
        S.k(rng.uniform(t_from, t_to), host, one())


def dcgm_table(S, host, fails=None, deploy_err=None, level=3, ngpu=None):
    """dcgmi diag -r N output. fails: {row: [(gpu, warning)]}"""
    w = S.w
    fails = fails or {}
    ngpu = ngpu or w.gpn
    ver = S.rng.choice(["3.1.8", "3.3.5", "3.3.9", "4.2.3"]) if w.era >= 2.2 else S.rng.choice(["3.1.8", "3.3.5"])
    out = ["Successfully ran diagnostic for group.",
           "+---------------------------+------------------------------------------------+",
           "| Diagnostic                | Result                                         |",
           "+===========================+================================================+",
           "|-----  Metadata  ----------+------------------------------------------------|"]

    def row(k, v):
        return "| %-25s | %-46s |" % (k, v)

    def wrap(k, text):
        lines = []
        while text:
            lines.append(row(k, text[:46]))
            text = text[46:]
            k = ""
        return lines
    out.append(row("DCGM Version", ver))
    out.append(row("Driver Version Detected", w.driver))
    out += wrap("GPU Device IDs Detected", ",".join([w.dev_id] * ngpu))
    out.append("|-----  Deployment  --------+------------------------------------------------|")
    for k in ["Denylist", "NVML Library", "CUDA Main Library", "Permissions and OS Blocks", "Persistence Mode",
              "Environment Variables", "Page Retirement/Row Remap", "Graphics Processes", "Inforom"]:
        if k == "Page Retirement/Row Remap" and deploy_err:
            out.append(row(k, "Fail"))
            out += wrap("Error", deploy_err)
        else:
            out.append(row(k, "Pass"))
    sections = [("Integration", ["PCIe"]), ("Hardware", ["GPU Memory", "Diagnostic"]),
                ("Stress", ["Targeted Stress", "Targeted Power", "Memory Bandwidth"])]
    if level < 3:
        sections = sections[:2]
    for name, rows in sections:
        out.append("+" + ("-----  %s  " % name).ljust(27, "-") + "+" + "-" * 48 + "+")
        for k in rows:
            if deploy_err and name != "Deployment":
                out.append(row(k, "Skip - All"))
                continue
            if k in fails:
                bad = sorted(set(g for g, _ in fails[k]))
                good = [g for g in range(ngpu) if g not in bad]
                out.append(row(k, "Pass - GPUs: %s" % ", ".join(str(g) for g in good)))
                out.append(row("", "Fail - GPU%s: %s" % ("s" if len(bad) > 1 else "", ", ".join(str(g) for g in bad))))
                for g, msg in fails[k]:
                    out += wrap("Warning", "GPU %d %s" % (g, msg))
            else:
                out.append(row(k, "Pass - All"))
    out.append("+---------------------------+------------------------------------------------+")
    return "\n".join(out)


def smi_q(S, host, per_gpu):
    """nvidia-smi -q -d ECC,ROW_REMAPPER,PERFORMANCE style excerpt. per_gpu: {lr: dict}"""
    w = S.w
    dt = S.at(S.t_end or 0, host) + timedelta(minutes=S.rng.randint(5, 90))
    new = drv_major(w) >= 535
    out = ["", "==============NVSMI LOG==============", "",
           "Timestamp                                 : %s" % dt.strftime("%a %b %d %H:%M:%S %Y"),
           "Driver Version                            : %s" % w.driver,
           "CUDA Version                              : %s" % w.cuda_tag.replace("cuda", ""), "",
           "Attached GPUs                             : %d" % w.gpn]
    for l in range(w.gpn):
        d = per_gpu.get(l, {})
        out.append("GPU 00000000:%s:00.0" % w.bus[l].upper())
        out.append("    Product Name                          : %s" % w.gpu_model)
        out.append("    Performance State                     : P0")
        out.append("    %s" % ("Clocks Event Reasons" if new else "Clocks Throttle Reasons"))
        out.append("        Idle                              : Not Active")
        out.append("        Applications Clocks Setting       : Not Active")
        out.append("        SW Power Cap                      : %s" % d.get("swpower", "Not Active"))
        out.append("        HW Slowdown                       : %s" % d.get("hwslow", "Not Active"))
        out.append("            HW Thermal Slowdown           : %s" % d.get("hwtherm", "Not Active"))
        out.append("            HW Power Brake Slowdown       : Not Active")
        out.append("        Sync Boost                        : Not Active")
        out.append("        SW Thermal Slowdown               : %s" % d.get("swtherm", "Not Active"))
        out.append("        Display Clock Setting             : Not Active")
        out.append("    ECC Mode")
        out.append("        Current                           : Enabled")
        out.append("        Pending                           : Enabled")
        out.append("    ECC Errors")
        for scope in ("Volatile", "Aggregate"):
            out.append("        %s" % scope)
            sb = d.get("sbe", 0) if scope == "Volatile" else d.get("sbe", 0) + d.get("sbe_agg", 0)
            db = d.get("dbe", 0) if scope == "Volatile" else d.get("dbe", 0) + d.get("dbe_agg", 0)
            out.append("            SRAM Correctable              : 0")
            out.append("            SRAM Uncorrectable Parity     : 0")
            out.append("            SRAM Uncorrectable SEC-DED    : 0")
            out.append("            DRAM Correctable              : %d" % sb)
            out.append("            DRAM Uncorrectable            : %d" % db)
            if scope == "Aggregate":
                out.append("            SRAM Threshold Exceeded       : No")
        out.append("    Remapped Rows")
        out.append("        Correctable Error                 : %d" % d.get("rr_corr", 0))
        out.append("        Uncorrectable Error               : %d" % d.get("rr_unc", 0))
        out.append("        Pending                           : %s" % ("Yes" if d.get("rr_pending") else "No"))
        out.append("        Remapping Failure Occurred        : %s" % ("Yes" if d.get("rr_fail") else "No"))
        out.append("        Bank Remap Availability Histogram")
        mx = 2560 if "H" in w.gpu_model else 640
        low = d.get("rr_unc", 0) + d.get("rr_corr", 0)
        out.append("            Max                           : %d bank(s)" % (mx - low))
        out.append("            High                          : %d bank(s)" % (low if not d.get("rr_fail") else 0))
        out.append("            Partial                       : 0 bank(s)")
        out.append("            Low                           : 0 bank(s)")
        out.append("            None                          : %d bank(s)" % (1 if d.get("rr_fail") else 0))
        out.append("    Temperature")
        out.append("        GPU Current Temp                  : %d C" % d.get("temp", S.rng.randint(38, 56)))
        out.append("        GPU Shutdown Temp                 : 92 C")
        out.append("        GPU Slowdown Temp                 : 89 C")
    return "\n".join(out)


def dcgm_prom(S, hosts_vals, xid_val=None):
    """dcgm-exporter scrape snapshot. hosts_vals: {host: {lr: {metric: value}}}"""
    w = S.w
    lines = []
    metrics = [("DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz)."),
               ("DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C)."),
               ("DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W)."),
               ("DCGM_FI_DEV_XID_ERRORS", "gauge", "Value of the last XID error encountered."),
               ("DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", "counter", "Number of remapped rows for uncorrectable errors"),
               ("DCGM_FI_DEV_ROW_REMAP_FAILURE", "gauge", "Whether remapping of rows has failed"),
               ("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "gauge", "Ratio of cycles the tensor (HMMA) pipe is active."),
               ("DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL", "counter", "Total number of NVLink data CRC errors.")]
    hn = S.rng.choice(["Hostname", "hostname"])
    for m, typ, hlp in metrics:
        lines.append("# HELP %s %s" % (m, hlp))
        lines.append("# TYPE %s %s" % (m, typ))
        for h in sorted(hosts_vals):
            for l in range(w.gpn):
                v = hosts_vals[h].get(l, {})
                default = {"DCGM_FI_DEV_SM_CLOCK": 1410 if "A100" in w.gpu_model else 1980, "DCGM_FI_DEV_GPU_TEMP": 52 + (l * 3) % 9,
                           "DCGM_FI_DEV_POWER_USAGE": 640.0 + l * 7.3, "DCGM_FI_DEV_XID_ERRORS": 0,
                           "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS": 0, "DCGM_FI_DEV_ROW_REMAP_FAILURE": 0,
                           "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE": 0.41 + 0.01 * (l % 3),
                           "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL": 0}[m]
                val = v.get(m, default)
                extra = ""
                if m == "DCGM_FI_DEV_XID_ERRORS" and val:
                    extra = ',err_code="%d",err_msg="%s"' % (val, v.get("err_msg", ""))
                lines.append('%s{gpu="%d",UUID="%s",pci_bus_id="00000000:%s:00.0",device="nvidia%d",modelName="%s",%s="%s",DCGM_FI_DRIVER_VERSION="%s"%s} %s'
                             % (m, l, gpu_uuid(w, h, l), w.bus[l].upper(), l, w.gpu_model, hn, h, w.driver, extra, val))
    return "\n".join(lines)


# ----------------------------------------------------------------------------
# scenario building blocks
# ----------------------------------------------------------------------------

def megatron_par(S):
    w, rng = S.w, S.rng
    tp = rng.choice([t for t in (1, 2, 4, 8) if t <= w.gpn])
    pp = rng.choice([p for p in (1, 2, 4) if w.n // (tp * p) >= 1])
    return tp, pp, w.n // (tp * pp)


def banner(S, t):
    w, rng = S.w, S.rng
    fw = w.framework
    if fw == "megatron":
        tp, pp, dp = megatron_par(S)
        S.mpar = (tp, pp, dp)
        S.r(t, 0, "using world size: %d, data-parallel size: %d, context-parallel size: 1, tensor-model-parallel size: %d, pipeline-model-parallel size: %d " % (w.n, dp, tp, pp), chan="out")
        S.r(t + 0.1, 0, "using torch.%s for parameters ..." % ("bfloat16" if w.dtype == "bf16" else "float16"), chan="out")
        S.r(t + 1, 0, "> initializing torch distributed ...", chan="out")
        S.r(t + 9, 0, "> initialized tensor model parallel with size %d\n> initialized pipeline model parallel with size %d" % (tp, pp), chan="out")
        S.r(t + 12, 0, "> compiling dataset index builder ...\n>>> done with dataset index builder. Compilation time: %.3f seconds" % rng.uniform(0.05, 0.4), chan="out")
    elif fw == "deepspeed":
        for r in S.vis_list[:48]:
            S.r(t + rng.uniform(0, 2), r, "[@T(%Y-%m-%d %H:%M:%S,%f3)@] [INFO] [real_accelerator.py:203:get_accelerator] Setting ds_accelerator to cuda (auto detect)", chan="out")
        S.r(t + 8, 0, "[@T(%Y-%m-%d %H:%M:%S,%f3)@] [INFO] [comm.py:652:init_distributed] cdb=None\n"
                      "[@T(%Y-%m-%d %H:%M:%S,%f3)@] [INFO] [comm.py:683:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl", chan="out")
        cfg = [("fp16_enabled", "True" if w.dtype == "fp16" else "False"), ("bfloat16_enabled", "True" if w.dtype == "bf16" else "False"),
               ("initial_dynamic_scale", "%d" % 65536), ("loss_scale", "0"), ("gradient_clipping", "1.0"),
               ("zero_optimization_stage", str(rng.choice([1, 2, 3]))), ("steps_per_print", "10")]
        S.r(t + 30, 0, "[@T(%Y-%m-%d %H:%M:%S,%f3)@] [INFO] [config.py:997:print] DeepSpeedEngine configuration:", chan="out")
        for k, v in cfg:
            S.r(t + 30, 0, "[@T(%%Y-%%m-%%d %%H:%%M:%%S,%%f3)@] [INFO] [config.py:1001:print]   %s %s %s" % (k, "." * (29 - len(k)), v), chan="out")
    elif fw == "hf":
        S.r(t + 20, 0, "***** Running training *****\n  Num examples = {:,}\n  Num Epochs = 3\n  Instantaneous batch size per device = {}\n"
                       "  Total train batch size (w. parallel, distributed & accumulation) = {:,}\n  Gradient Accumulation steps = {}\n"
                       "  Total optimization steps = {:,}".format(rng.randint(200000, 9000000), rng.choice([1, 2, 4, 8]),
                                                               rng.choice([256, 512, 1024]), rng.choice([1, 2, 4, 8]), rng.randint(5000, 90000)), chan="out")
    elif fw == "fsdp":
        S.r(t + 15, 0, "[titan] @T(%Y-%m-%d %H:%M:%S,%f3)@ - root - INFO - Training starts at step 1, with local batch size 2, global batch size {}, sequence length 8192".format(2 * w.n), chan="out")
    else:
        S.r(t + 10, 0, "[@T(%%Y-%%m-%%d %%H:%%M:%%S)@] starting training: world_size=%d dtype=%s grad_accum=%d clip=1.0" % (w.n, w.dtype, rng.choice([1, 2, 4, 8])), chan="out")
    # per-rank warning noise
    if rng.random() < 0.6:
        wl = rng.choice([
            ("torch/utils/checkpoint.py", 464, "UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.4 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants.",
             "  return torch.utils.checkpoint.checkpoint("),
            ("torch/distributed/distributed_c10d.py", 2816, "UserWarning: torch.distributed._all_gather_base is a private function and will be deprecated. Please use torch.distributed.all_gather_into_tensor instead.",
             "  warnings.warn("),
            ("torch/nn/modules/module.py", 1747, "FutureWarning: `torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', args...)` instead.",
             "  return forward_call(*args, **kwargs)"),
        ])
        for r in S.vis_list[:64]:
            S.r(t + 60 + rng.uniform(0, 5), r, "%s:%d: %s\n%s" % (S.site(wl[0]), wl[1], wl[2], wl[3]))


def mk_timeline(S, lines=(40, 200), prof_fn=None):
    """banner, NCCL init and the metric stream setup. Returns the fault step."""
    w, rng = S.w, S.rng
    banner(S, rng.uniform(3, 12))
    S.init_lines(rng.uniform(15, 40))
    t_train = rng.uniform(120, 480)
    big = w.n >= 256
    step_time = rng.uniform(2.5, 9.0) if big else rng.uniform(0.5, 6.0)
    s0 = 0 if rng.random() < 0.45 else rng.randrange(1000, 120000, 50)
    S.setup_training(t_train, s0, s0 + rng.randint(50000, 400000), step_time)
    k = S.log_int * rng.randint(*lines)
    sf = s0 + k
    if s0 and w.framework == "megatron":
        S.r(t_train - 40, 0, " loading checkpoint from /ckpt/%s at iteration %d\n  successfully loaded checkpoint from /ckpt/%s [ t 0, p 0 ] at iteration %d"
            % (S.run_name, s0, S.run_name, s0), chan="out")
    if w.framework == "megatron":
        S.r(t_train - 2, 0, "[after model, optimizer, and learning rate scheduler are built] datetime: %s \ntraining ...\n[before the start of training step] datetime: %s "
            % (tfmt(S.at(t_train - 30, w.host(0)), "%Y-%m-%d %H:%M:%S"), tfmt(S.at(t_train - 1, w.host(0)), "%Y-%m-%d %H:%M:%S")), chan="out")
    prof = prof_fn(s0, sf) if prof_fn else {}
    S.prof = prof
    return s0, sf


def noise_prof(S, s0, sf, spikes=None, nan_steps=(), extra=None):
    rng = S.rng
    p = {"overflow_early": rng.randint(3, 12) if s0 == 0 else 0,
         "overflow_rate": rng.choice([0.0, 0.002, 0.01, 0.03]), "spikes": {}, "nan_steps": list(nan_steps)}
    if spikes is None:
        spikes = rng.choice([0, 0, 1, 2, 3])
    for _ in range(spikes):
        if sf - s0 > 80:
            p["spikes"][rng.randrange(s0 + 40, sf - 20)] = rng.uniform(1.2, 2.5)
    if extra:
        p.update(extra)
    return p


def pick_rank(S, avoid=(0,), p_avoid=0.9):
    w, rng = S.w, S.rng
    for _ in range(20):
        r = rng.randrange(w.n)
        if r in avoid and rng.random() < p_avoid:
            continue
        if r == S.logrank and rng.random() < 0.85:
            continue
        return r
    return rng.randrange(w.n)


def cuda_err_lines(S, msg):
    cls = "torch.AcceleratorError" if S.w.era >= 2.8 else "RuntimeError"
    out = ["%s: CUDA error: %s" % (cls, msg),
           "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
           "For debugging consider passing CUDA_LAUNCH_BLOCKING=1"]
    if S.w.era >= 2.1:
        out.append("Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.")
    out.append("")
    return out


def inner_frames(S, where):
    """frames near the failure point"""
    site, rng = S.site, S.rng
    if where == "backward":
        return [(site("torch/_tensor.py"), rng.choice([521, 581, 626]), "backward", "torch.autograd.backward("),
                (site("torch/autograd/__init__.py"), rng.choice([289, 347, 353]), "backward", "_engine_run_backward("),
                (site("torch/autograd/graph.py"), rng.choice([768, 825, 829]), "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")]
    if where == "forward":
        return [(site("torch/nn/modules/module.py"), rng.choice([1532, 1553, 1736]), "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
                (site("torch/nn/modules/module.py"), rng.choice([1541, 1562, 1747]), "_call_impl", "return forward_call(*args, **kwargs)")]
    if where == "optimizer":
        return [(site("torch/optim/optimizer.py"), rng.choice([385, 484, 493]), "wrapper", "out = func(*args, **kwargs)"),
                (site("torch/optim/adamw.py"), rng.choice([187, 227, 243]), "step", "adamw(")]
    if where == "clip":
        return [(site("torch/nn/utils/clip_grad.py"), rng.choice([76, 90, 155]), "clip_grad_norm_", "raise RuntimeError(")]
    if where == "allreduce":
        return [(site("torch/distributed/c10d_logger.py"), rng.choice([75, 79, 83]), "wrapper", "return func(*args, **kwargs)"),
                (site("torch/distributed/distributed_c10d.py"), rng.choice([2288, 2501, 2806]), "all_reduce", "work = group.allreduce([tensor], opts)")]
    return []


def crash_exit(S, r, t, kind="code", val=1):
    S.exit(r, t, kind, val)


def success_tail(S, s_end):
    """end-of-training lines and clean exits"""
    w, rng = S.w, S.rng
    t = S.step_t(s_end) + rng.uniform(5, 60)
    fw = w.framework
    if fw == "megatron":
        S.r(t, 0, "saving checkpoint at iteration %8d to /ckpt/%s in torch_dist format\n  successfully saved checkpoint from iteration %8d to /ckpt/%s [ t 1/%d, p 1/%d ]"
            % (s_end, S.run_name, s_end, S.run_name, S.mpar[0] if hasattr(S, "mpar") else 1, S.mpar[1] if hasattr(S, "mpar") else 1), chan="out")
        S.r(t + 20, 0, "[after training is done] datetime: %s " % tfmt(S.at(t + 20, w.host(0)), "%Y-%m-%d %H:%M:%S"), chan="out")
    elif fw == "hf":
        S.r(t, 0, "\n\nTraining completed. Do not forget to share your model on huggingface.co/models =)\n\n", chan="err")
        S.r(t + 1, 0, "{'train_runtime': %.4f, 'train_samples_per_second': %.3f, 'train_steps_per_second': %.3f, 'train_loss': %.4f, 'epoch': 3.0}"
            % (t - S.t_train, rng.uniform(20, 400), 1.0 / S.step_time, getattr(S, "last_loss", S.loss_floor) + 0.2), chan="out")
    elif fw == "deepspeed":
        S.r(t, 0, "[@T(%%Y-%%m-%%d %%H:%%M:%%S,%%f3)@] [INFO] [engine.py:3478:_save_zero_checkpoint] zero checkpoint saved /ckpt/global_step%d/zero_pp_rank_0_mp_rank_00_optim_states.pt" % s_end, chan="out")
        S.r(t + 5, 0, "training finished after %d steps" % s_end, chan="out")
    elif fw == "fsdp":
        S.r(t, 0, "[titan] @T(%Y-%m-%d %H:%M:%S,%f3)@ - root - INFO - Training completed", chan="out")
    else:
        S.r(t, 0, "[@T(%%Y-%%m-%%d %%H:%%M:%%S)@] done: %d steps, final loss %.4f" % (s_end, getattr(S, "last_loss", S.loss_floor)), chan="out")
    for r in range(w.n):
        S.exit(r, t + 30 + rng.uniform(0, 3), "code", 0)
    S.finish(t_end=t + 35, success=True)


# ----------------------------------------------------------------------------
# causes
# ----------------------------------------------------------------------------

def set_fw(S, fw, dtype=None):
    S.w.framework = fw
    S.logrank = (S.w.n - 1) if fw == "megatron" else 0
    if dtype:
        S.w.dtype = dtype


def mlog(S, level, name, msg):
    """python logging default format used by Megatron-LM core modules"""
    return "%s:%s:%s" % (level, name, msg)


def sc_gpu_hardware(S):
    w, rng = S.w, S.rng
    v = rng.choice(["sdc_rerun", "offbus", "hash", "gsp"])
    if v in ("sdc_rerun", "hash"):
        set_fw(S, "megatron")
    if v == "hash" and w.n < 4:
        v = "offbus"
    R = pick_rank(S)
    H = w.host(R)
    d = w.lr(R)
    S.plan([R], kern_p=0.75 if v in ("offbus", "gsp") else 0.4)
    S.pname = proc_name(S)
    s0, sf = mk_timeline(S, prof_fn=lambda a, b: noise_prof(S, a, b))
    S.init_rank, S.init_node = R, H
    k = sf + 1
    if v == "sdc_rerun":
        S.r(S.t_train + 3, 0, mlog(S, "WARNING", "megatron.core.rerun_state_machine", "Result validation enabled"), chan="err")
        S.train_stream(s0, sf)
        tf = S.step_t(sf) + rng.uniform(0.2, 0.9 * S.step_time)
        msg = rng.choice(["found NaN in local grad norm for bucket #0 in backward pass before data-parallel communication collective",
                          "found Inf in local forward loss calculation", "found NaN in local forward loss calculation"])
        res = "nan" if "NaN" in msg else "inf"
        S.r(tf, R, mlog(S, "ERROR", "megatron.core.rerun_state_machine",
                        "Unexpected result %s on rank %d at iteration #%d invocation #1 (message='%s')" % (res, R, k, msg)), tags=("R",))
        good = S.loss_floor + rng.uniform(0.1, 0.6) if "loss" in msg else rng.uniform(0.3, 2.0)
        t2 = tf + S.step_time * rng.uniform(1.5, 3)
        S.r(t2, R, mlog(S, "ERROR", "megatron.core.rerun_state_machine",
                        "Rank %d, node %s, device %d, iteration #%d: First rerun: unexpected result is not reproducible within the tolerance (%s != %s)!" % (R, w.hn(H), d, k, repr(round(good, 6)), res)), tags=("RN",))
        S.r(t2, R, mlog(S, "ERROR", "megatron.core.rerun_state_machine",
                        "Rank %d, node %s, device %d, iteration #%d: Possible transient error!" % (R, w.hn(H), d, k)), tags=("RN",))
        S.r(t2 + 1, 0, mlog(S, "WARNING", "megatron.core.rerun_state_machine", "Exiting now. A checkpoint at the last iteration is being saved if further examination is needed"))
        S.r(t2 + 2, 0, "saving checkpoint at iteration %8d to /ckpt/%s in torch_dist format" % (sf, S.run_name), chan="out")
        t3 = t2 + rng.uniform(40, 200)
        S.r(t3, 0, "  successfully saved checkpoint from iteration %8d to /ckpt/%s [ t 1/%d, p 1/%d ]" % (sf, S.run_name, S.mpar[0], S.mpar[1]), chan="out")
        S.exits_all(t3 + 2, "code", 17)
        S.rank_groups = [("R",), ("RN",)]
        S.node_groups = [("RN",)]
        S.notes = ("Silent data corruption: Megatron's result validation caught %s on rank %d (%s GPU %d); the in-place rerun of the same "
                   "iteration on the same GPU gave a finite value, so the job stopped with exit code 17 flagging a transient hardware error." % (res, R, H, d))
        if rng.random() < 0.5:
            S.extra["smi:%s" % H] = {"text": smi_q(S, H, {d: {"sbe": 0}}), "tags": ()}
    elif v == "hash":
        tp, pp, dp = S.mpar
        stride = tp
        if (R // stride) % dp == 0:
            R = (R + stride) % w.n
            H, d = w.host(R), w.lr(R)
            S.init_rank, S.init_node = R, H
            S.vis[R] = True
            if R not in S.vis_list:
                S.vis_list = sorted(S.vis)
        interval = rng.choice([100, 500, 1000])
        S.train_stream(s0, sf)
        for it in range(((s0 // interval) + 1) * interval, sf, interval):
            S.r(S.step_t(it) + 1.0, 0, ">>> Weight hashes match after %d iterations..." % it, chan="out")
        kcheck = ((sf // interval) + 1) * interval
        S.prof.setdefault("spikes", {})
        S.train_stream(sf, kcheck)
        tf = S.step_t(kcheck) + rng.uniform(0.5, 3)
        layers = rng.sample(range(0, 48), rng.randint(2, 6))
        names = []
        for L in sorted(layers):
            names.append(rng.choice(["module.decoder.layers.%d.mlp.linear_fc1.weight", "module.decoder.layers.%d.self_attention.linear_qkv.weight",
                                     "module.decoder.layers.%d.mlp.linear_fc2.weight", "module.decoder.layers.%d.self_attention.linear_proj.weight"]) % L)
        for nm in names:
            S.r(tf, R, mlog(S, "INFO", "megatron.core.utils", "[Rank %d] Hash not matching for %s in model chunk 0" % (R, nm)), tags=("R",))
        fr, root = S.frames_train()
        S.traceback(tf + 0.05, R, fr[:3] + [("%s/megatron/training/training.py" % root, rng.randint(1400, 1700), "train", "assert check_param_hashes_across_dp_replicas(model), \\")],
                    ["AssertionError: Parameter hashes not matching across DP replicas"], tags=("R",))
        S.exit(R, tf + 2, "code", 1)
        S.collateral(tf, [R], seq=rng.randint(10000, 900000), op="ALLREDUCE", numel=1, mode="watchdog")
        S.rank_groups = [("R",)]
        S.node_groups = []
        if rng.random() < 0.6:
            S.extra["dcgm:%s" % H] = {"text": dcgm_table(S, H, {"Diagnostic": [(d, "Found %d faulty memory elements on GPU %d" % (rng.randint(3, 400), d))]}), "tags": ("D",)}
            S.extra["smi:%s" % H] = {"text": smi_q(S, H, {}), "tags": ()}
            S.node_groups = [("D",)]
        S.notes = ("Data-parallel replicas diverged: the periodic weight-hash check failed only on rank %d (%s GPU %d); "
                   "no ECC counters moved, so the GPU computed wrong results (SDC) and the other ranks timed out in the following barrier." % (R, H, d))
    else:
        S.train_stream(s0, sf)
        tf = S.step_t(sf) + rng.uniform(0.2, 0.8) * S.step_time
        # the NaN appears in the metric stream first: reduced grad norm nan on every rank
        S.prof = dict(S.prof)
        S.prof["nan_steps"] = [sf]
        S.prof["spikes"] = {}
        if S.log_int == 1:
            S.train_stream(sf, sf + 1)
        tx = tf + S.step_time * rng.uniform(1.0, 4.0)
        pci = w.pci(R)
        if v == "offbus":
            up = "%02x" % max(0, int(w.bus[d], 16) - 1)
            S.k(tx - 0.02, H, "pcieport 0000:%s:01.0: AER: Uncorrected (Fatal) error received: 0000:%s:00.0" % (up, w.bus[d]))
            S.k(tx - 0.01, H, "pcieport 0000:%s:01.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, (Receiver ID)" % up)
            xid(S, tx, R, 79, "GPU has fallen off the bus.")
            S.k(tx + 0.001, H, "NVRM: GPU %s.0: GPU has fallen off the bus." % pci)
            if drv_major(w) >= 560:
                xid(S, tx + 0.01, R, 154, "GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)")
            err = "unspecified launch failure"
        else:
            for i in range(rng.randint(2, 5)):
                xid(S, tx + i * 6.2, R, 119, "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function %s." % (d, rng.choice(["76 (GSP_RM_CONTROL) (0x20800a4c 0x4)", "103 (GSP_RM_ALLOC) (0x2081 0x4)", "10 (FREE) (0x5c000001 0x0)"])))
            if drv_major(w) >= 560:
                xid(S, tx + 40, R, 154, "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)")
            tx += 30
            err = rng.choice(["unspecified launch failure", "unknown error"])
        fr, root = S.frames_train()
        te = tx + rng.uniform(0.05, 2.0)
        S.traceback(te, R, fr + inner_frames(S, "backward"), cuda_err_lines(S, err), tags=("R",))
        S.exit(R, te + 1, "code", 1)
        S.collateral(te, [R], seq=rng.randint(10000, 900000), mode=rng.choice(["watchdog", "remote"]), dead_host=H)
        S.rank_groups = [("R",), ("X", "bus:%d" % R), ("X", "pid:%d" % R)]
        S.node_groups = [("X",)]
        S.notes = ("GPU %d on %s went bad: the loss/grad norm turned NaN for one step, then the driver logged Xid %s and rank %d died with "
                   "'CUDA error: %s'; the other ranks only show collective timeouts." % (d, H, "79 (fallen off the bus)" if v == "offbus" else "119 (GSP RPC timeout)", R, err))
    S.finish()


def sc_ecc_memory(S):
    w, rng = S.w, S.rng
    v = rng.choice(["dbe", "remapfail", "uncontained", "nanguard"])
    if v == "nanguard":
        set_fw(S, "megatron")
    R = pick_rank(S)
    H, d = w.host(R), w.lr(R)
    S.plan([R], kern_p=0.8)
    S.pname = proc_name(S)
    s0, sf = mk_timeline(S, prof_fn=lambda a, b: noise_prof(S, a, b))
    S.init_rank, S.init_node = R, H
    S.train_stream(s0, sf)
    tf = S.step_t(sf) + rng.uniform(0.1, 0.9) * S.step_time
    addr = rng.randint(0x1000000, 0x7fffffff)
    part, sub = rng.randint(0, 23), rng.randint(0, 3)
    fr, root = S.frames_train()
    if v in ("dbe", "nanguard", "remapfail"):
        if v == "remapfail":
            xid(S, tf - 0.01, R, 64, "Row Remapper Error: (0x%016x) - All reserved rows for bank are remapped" % addr)
        xid_unknown_pid(S, tf, R, 48, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at physAddr 0x%x partition %d, subpartition %d." % (addr, part, sub))
        if v != "remapfail":
            xid(S, tf + 0.002, R, 63, "Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % addr)
        xid(S, tf + 0.004, R, 94, "Contained: SM (0x1). RST: No, D-RST: No")
        if drv_major(w) >= 560:
            xid(S, tf + 0.01, R, 154, "GPU recovery action changed from 0x0 (None) to 0x%s" % ("4 (Drain and Reset)" if v == "remapfail" else "1 (GPU Reset Required)"))
        if v == "nanguard":
            msg = "Rank %d: found NaN in local forward loss calculation. Device: %d, node: %s" % (R, d, w.hn(H))
            S.traceback(tf + 0.1, R, fr + [("%s/pretrain_gpt.py" % root, rng.randint(140, 200), "loss_func", "assert not loss[0].isnan(), (")],
                        ["AssertionError: " + msg], tags=("RN",))
            S.rank_groups = [("RN",), ("X", "bus:%d" % R)]
            S.node_groups = [("RN",), ("X",)]
            te = tf + 0.1
        else:
            S.traceback(tf + 0.2, R, fr + inner_frames(S, "forward"), cuda_err_lines(S, "uncorrectable ECC error encountered"), tags=("R",))
            S.rank_groups = [("R",), ("X", "bus:%d" % R), ("X", "pid:%d" % R)]
            S.node_groups = [("X",)]
            te = tf + 0.2
    else:
        xid(S, tf, R, 95, "Uncontained: LTC TAG (0x2, 0x1). RST: Yes, D-RST: No")
        if drv_major(w) >= 560:
            xid(S, tf + 0.01, R, 154, "GPU recovery action changed from 0x0 (None) to 0x4 (Drain and Reset)")
        S.traceback(tf + 0.3, R, fr + inner_frames(S, "backward"), cuda_err_lines(S, "uncorrectable ECC error encountered"), tags=("R",))
        S.rank_groups = [("R",), ("X", "pid:%d" % R), ("X", "bus:%d" % R)]
        S.node_groups = [("X",)]
        te = tf + 0.3
    S.exit(R, te + 1, "code", 1)
    S.collateral(te, [R], seq=rng.randint(10000, 900000), mode=rng.choice(["watchdog", "watchdog", "remote"]), dead_host=H)
    if rng.random() < 0.7:
        if v == "remapfail":
            S.extra["dcgm:%s" % H] = {"text": dcgm_table(S, H, deploy_err="GPU %d had uncorrectable memory errors and row remapping failed." % d), "tags": ("D",)}
            S.extra["smi:%s" % H] = {"text": smi_q(S, H, {d: {"dbe": 2, "rr_unc": 7, "rr_fail": True}}), "tags": ("D",)}
        else:
            S.extra["dcgm:%s" % H] = {"text": dcgm_table(S, H, deploy_err="GPU %d had memory errors and row remappings are pending" % d), "tags": ("D",)}
            S.extra["smi:%s" % H] = {"text": smi_q(S, H, {d: {"dbe": 1, "rr_unc": 1, "rr_pending": True}}), "tags": ("D",)}
        S.node_groups = S.node_groups + [("D",)]
    S.notes = ("Uncorrectable HBM error on %s GPU %d (Xid %s); rank %d %s and the rest of the job died in collective timeouts."
               % (H, d, {"dbe": "48/63/94", "remapfail": "64/48/94, row remapping failed", "uncontained": "95", "nanguard": "48/63/94"}[v], R,
                  "tripped the NaN guard on its local loss" if v == "nanguard" else "raised 'uncorrectable ECC error encountered'"))
    S.finish()


def sc_nvlink(S):
    w, rng = S.w, S.rng
    if w.gpn < 2:
        w.gpn = 2
    R = pick_rank(S)
    H, d = w.host(R), w.lr(R)
    S.plan([R], kern_p=0.8)
    S.pname = proc_name(S)
    s0, sf = mk_timeline(S, prof_fn=lambda a, b: noise_prof(S, a, b, extra={"inf_gn_steps": [b - 1]}))
    S.init_rank, S.init_node = R, H
    S.train_stream(s0, sf)
    tf = S.step_t(sf) + rng.uniform(0.1, 0.9) * S.step_time
    link = rng.randint(0, 17)
    xid(S, tf, R, 74, "NVLink: fatal error detected on link %d(0x%x, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)" % (link, rng.choice([0x10000, 0x8000, 0x20000])))
    if drv_major(w) >= 560:
        xid(S, tf + 0.01, R, 154, "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)")
    p = S.nccl_pfx(R, tid=w.pids[R] + rng.randint(50, 900), warn=True, src="enqueue.cc:%d" % rng.choice([1438, 1567, 2041]))
    S.r(tf + 0.05, R, "\n%s NCCL WARN Cuda failure 'uncorrectable NVLink error detected during the execution'" % p, tags=("R",))
    pg = S.pgp(R)
    te = tf + rng.uniform(0.5, 3)
    S.r(te, R, S.glog(R, "E", "ProcessGroupNCCL.cpp:1595", "%s Process group watchdog thread terminated with exception: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % (pg, w.nccl))
        + "\nncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\nCuda failure 'uncorrectable NVLink error detected during the execution'", tags=("R",))
    S.r(te + 0.01, R, "terminate called after throwing an instance of 'c10::DistBackendError'")
    S.exit(R, te + 0.5, "signal", "SIGABRT")
    S.collateral(te, [R], seq=rng.randint(10000, 900000), mode="watchdog", dead_host=H)
    S.rank_groups = [("R",), ("X", "bus:%d" % R), ("X", "pid:%d" % R)]
    S.node_groups = [("X",)]
    if rng.random() < 0.5:
        hv = {H: {d: {"DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL": rng.randint(2000, 90000), "DCGM_FI_DEV_XID_ERRORS": 74, "err_msg": "NVLink Error"}}}
        for h2 in rng.sample(w.nodes, min(2, w.nn)):
            hv.setdefault(h2, {})
        S.extra["prom"] = {"text": dcgm_prom(S, hv), "tags": ("D",)}
        S.node_groups.append(("D",))
    S.notes = ("NVLink fatal error (Xid 74, link %d) on %s GPU %d: the step before, the reduced grad norm came back inf; then NCCL on rank %d hit "
               "'uncorrectable NVLink error' and aborted." % (link, H, d, R))
    S.finish()


def ib_warn(S, rank, peer_ip, status=12, vendor=129, hca=None, t=0.0, tags=()):
    w, rng = S.w, S.rng
    v = S.nccl_ver()
    hca = hca or w.hcas[w.lr(rank)]
    port = rng.randint(32000, 60999)
    if v < (2, 20):
        msg = "NET/IB : Got completion from peer %s<%d> with error %d, opcode %d, len %d, vendor err %d" % (peer_ip, port, status, rng.choice([0, 1, 129]), rng.choice([0, 32764]), vendor)
        src = "transport/net_ib.cc:%d" % rng.choice([1295, 1696])
    elif v < (2, 24):
        msg = "NET/IB : Got completion from peer %s<%d> with status=%d opcode=%d len=0 vendor err %d (Recv) localGid ::ffff:%s remoteGids::ffff:%s" % (peer_ip, port, status, rng.choice([0, 1]), vendor, w.ips[w.host(rank)], peer_ip)
        src = "transport/net_ib.cc:%d" % rng.choice([1615, 1712])
    elif v < (2, 28):
        msg = "NET/IB: Got completion from peer %s<%d> with status=%d opcode=%d len=0 vendor err %d (Recv) localGid ::ffff:%s remoteGids::ffff:%s hca %s" % (peer_ip, port, status, rng.choice([0, 1]), vendor, w.ips[w.host(rank)], peer_ip, hca)
        src = "transport/net_ib.cc:%d" % rng.choice([2131, 2244])
    else:
        msg = "NET/IB: Got completion from peer %s<%d> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_RECV(128) vendor_err=%d  hca %s" % (peer_ip, port, vendor, hca)
        src = "transport/net_ib/p2p.cc:%d" % rng.choice([1190, 1234])
    p = S.nccl_pfx(rank, tid=w.pids[rank] + rng.randint(50, 900), warn=True, src=src)
    S.r(t, rank, "\n%s NCCL WARN %s" % (p, msg), tags=tags)


def sc_network(S):
    w, rng = S.w, S.rng
    R = pick_rank(S)
    H, d = w.host(R), w.lr(R)
    S.plan([R], kern_p=0.7)
    S.pname = proc_name(S)
    s0, sf = mk_timeline(S, prof_fn=lambda a, b: noise_prof(S, a, b, spikes=rng.randint(1, 3)))
    S.init_rank, S.init_node = R, H
    S.train_stream(s0, sf)
    # loss-spike investigation noise on rank 0
    for s in sorted(S.prof.get("spikes", {}))[:2]:
        S.r(S.step_t(s) + 2, 0, "[@T(%%Y-%%m-%%d %%H:%%M:%%S)@] spike-watch: loss jumped to %.3f at step %d (EMA %.3f); top grad norms: layers.%d.attention.wo=%.1f layers.%d.mlp.w2=%.1f"
            % (S.loss_floor * rng.uniform(1.5, 2.4), s, S.loss_floor * 1.05, rng.randint(0, 40), rng.uniform(20, 300), rng.randint(0, 40), rng.uniform(10, 200)), chan="out")
    tf = S.step_t(sf) + rng.uniform(0.1, 0.9) * S.step_time
    hca = w.hcas[d]
    nic_pci = "0000:%02x:00.0" % rng.choice([0x0c, 0x1a, 0x3b, 0x4b, 0x5e, 0x9b, 0xc1, 0xda])
    kv = rng.random()
    if kv < 0.5:
        S.k(tf - rng.uniform(1, 20), H, "mlx5_core %s: Port module event[error]: module %d, Cable error, Bad or shorted cable/module" % (nic_pci, d), tags=("K",))
    S.k(tf - rng.uniform(0, 1), H, "mlx5_core %s %s: Link down" % (nic_pci, rng.choice(["ibp%ds0" % int(nic_pci[5:7], 16), "ib%d" % d])), tags=("K",))
    for i in range(rng.randint(1, 3)):
        p = S.nccl_pfx(R, tid=w.pids[R] + rng.randint(50, 900), warn=True, src="transport/net_ib.cc:%d" % rng.choice([87, 119, 137]))
        S.r(tf - 0.5 + i * 0.3, R, "\n%s NCCL WARN NET/IB : Got async event : port error" % p, tags=("N",))
    others = [x for x in w.nodes if x != H]
    peer = rng.choice(others)
    ib_warn(S, R, w.ips[peer], t=tf + rng.uniform(5, 25), tags=("N",))
    te = tf + rng.uniform(26, 40)
    pg = S.pgp(R)
    S.r(te, R, S.glog(R, "E", "ProcessGroupNCCL.cpp:1595", "%s Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version %s" % (pg, w.nccl))
        + "\nncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\nLast error:\nNET/IB : Got completion from peer %s with error 12" % w.ips[peer])
    S.exit(R, te + 0.5, "signal", "SIGABRT")
    # peers on other nodes see the same RETRY_EXC error naming H's address
    for pr in S.vis_list:
        if w.host(pr) != H and rng.random() < 0.3:
            ib_warn(S, pr, w.ips[H], t=te + rng.uniform(-8, 3), tags=("PI",))
    S.collateral(te, [R], seq=rng.randint(10000, 900000), mode="remote", dead_host=H)
    S.rank_groups = [("N",)]
    S.node_groups = [("K",), ("N",), ("PI", "ipmap:%s" % H)]
    S.notes = ("InfiniBand link on %s (%s, used by rank %d) went down: NCCL logged port-error async events there first, then "
               "RETRY_EXC completion errors on both sides and the job tore down." % (H, hca, R))
    S.finish()


def oom_msg(S, dev):
    w, rng = S.w, S.rng
    tot = w.gpu_mem
    free = rng.uniform(0.2, 1.5)
    ask = rng.choice([0.5, 1.0, 1.5, 2.0, 2.5, 3.91, 4.0, 7.82])
    inuse = tot - free
    alloc = inuse - rng.uniform(1.0, 6.0)
    res = rng.uniform(0.1, 3.0)
    cls = "torch.OutOfMemoryError" if w.era >= 2.5 else "torch.cuda.OutOfMemoryError"
    if w.era <= 2.0:
        return "%s: CUDA out of memory. Tried to allocate %.2f GiB (GPU %d; %.2f GiB total capacity; %.2f GiB already allocated; %.2f GiB free; %.2f GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF" % (cls, ask, dev, tot, alloc, free, alloc + res)
    word = "capacty" if w.era < 2.2 else "capacity"
    return ("%s: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total %s of %.2f GiB of which %.2f GiB is free. "
            "Including non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, "
            "and %.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
            "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  "
            "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)" % (cls, ask, dev, word, tot, free, inuse, alloc, res))


def sc_cuda_oom(S):
    w, rng = S.w, S.rng
    R = pick_rank(S)
    H, d = w.host(R), w.lr(R)
    S.plan([R], kern_p=0.3)
    S.pname = proc_name(S)
    s0, sf = mk_timeline(S, prof_fn=lambda a, b: noise_prof(S, a, b, spikes=1))
    S.init_rank, S.init_node = R, H
    sp = sorted(S.prof["spikes"])[0] if S.prof["spikes"] else (s0 + sf) // 2
    S.train_stream(s0, sf)
    v = rng.choice(["anomaly", "dump"])
    t_sp = S.step_t(sp) + 1
    if v == "anomaly":
        S.r(t_sp, 0, "[@T(%%Y-%%m-%%d %%H:%%M:%%S)@] loss spike at step %d (%.3f vs EMA %.3f): enabling autograd anomaly detection for the next 200 steps" % (sp, S.loss_floor * 2.1, S.loss_floor * 1.03), chan="out")
        for r in S.vis_list[:64]:
            S.r(t_sp + rng.uniform(0.5, 2), r, "%s:%d: UserWarning: Anomaly Detection has been enabled. This mode will increase the runtime and should only be enabled for debugging.\n  with torch.autograd.detect_anomaly(check_nan=True):" % ("%s/train.py" % rng.choice(["/workspace/trainer", "/app"]), rng.randint(200, 400)))
    else:
        S.r(t_sp, 0, "[@T(%%Y-%%m-%%d %%H:%%M:%%S)@] grad-norm spike at step %d: keeping per-layer activations and fp32 grad copies for offline NaN analysis (next 100 steps)" % sp, chan="out")
    tf = S.step_t(sf) + rng.uniform(0.2, 0.9) * S.step_time
    fr, root = S.frames_train()
    dev = d if rng.random() < 0.6 else 0
    S.traceback(tf, R, fr + inner_frames(S, rng.choice(["backward", "forward"])), [oom_msg(S, dev)], tags=("R",))
    S.exit(R, tf + 1, "code", 1)
    S.collateral(tf, [R], seq=rng.randint(10000, 900000), mode=rng.choice(["watchdog", "remote"]), dead_host=H)
    S.rank_groups = [("R",)]
    S.node_groups = []
    S.notes = ("After a loss spike the script switched on %s; rank %d ran out of GPU memory (torch OutOfMemoryError) and the other ranks timed out."
               % ("autograd anomaly detection" if v == "anomaly" else "activation/grad dumping", R))
    S.finish()


def sc_illegal_memory_access(S):
    w, rng = S.w, S.rng
    v = rng.choice(["assert", "ima", "triton"])
    R = pick_rank(S)
    H, d = w.host(R), w.lr(R)
    S.plan([R], kern_p=0.6)
    S.pname = proc_name(S)
    s0, sf = mk_timeline(S, prof_fn=lambda a, b: noise_prof(S, a, b, extra={"overflow_rate": 0.02}))
    S.init_rank, S.init_node = R, H
    S.train_stream(s0, sf)
    tf = S.step_t(sf) + rng.uniform(0.2, 0.9) * S.step_time
    fr, root = S.frames_train()
    if v == "assert":
        lines = []
        for i in range(rng.randint(4, 24)):
            lines.append("../aten/src/ATen/native/cuda/Indexing.cu:%d: indexSelectLargeIndex: block: [%d,0,0], thread: [%d,0,0] Assertion `srcIndex < srcSelectDimSize` failed."
                         % (rng.choice([1236, 1289, 1308]), rng.randint(0, 2047), rng.randint(0, 127)))
        S.r(tf, R, "\n".join(lines), tags=("R",))
        S.traceback(tf + 0.3, R, fr + inner_frames(S, "forward") + [(S.site("torch/nn/functional.py"), rng.choice([2264, 2551]), "embedding", "return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)")],
                    cuda_err_lines(S, "device-side assert triggered"), tags=("R",))
        xid(S, tf + 0.4, R, 43, "Ch 000000%02x, engmask 00000101" % rng.randint(8, 64), tags=("X",))
        S.notes = ("A corrupt sample (token id >= vocab size) on rank %d's shard hit an embedding index assert: 'device-side assert triggered', "
                   "Xid 43 is the application's channel reset; the earlier overflow/skip lines are normal fp16 loss scaling." % R)
    elif v == "ima":
        kern = rng.choice(["fused_softmax_cuda", "fused_xentropy_cuda", "fused_rope_cuda"])
        S.traceback(tf + 0.3, R, fr + inner_frames(S, "forward") + [(S.site("%s/__init__.py" % kern.replace("_cuda", "")), rng.randint(40, 200), "forward", "out = %s.forward(x, scale)" % kern)],
                    cuda_err_lines(S, "an illegal memory access was encountered"), tags=("R",))
        xid(S, tf + 0.2, R, 31, "channel 0x%08x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC%d GPCCLIENT_T1_%d faulted @ 0x7f%02x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_%s"
            % (rng.randint(8, 40), rng.randint(0, 7), rng.randint(0, 15), rng.randint(0, 255), rng.randint(0, 0xffffffff) & 0xfffff000, rng.choice(["READ", "WRITE"])), tags=("X",))
        S.notes = ("Custom kernel %s made an out-of-bounds access on rank %d (illegal memory access, Xid 31 with the rank's pid); "
                   "application bug, the GPU is fine." % (kern, R))
    else:
        S.traceback(tf + 0.3, R, fr + inner_frames(S, "forward") + [(S.site("triton/backends/nvidia/driver.py"), rng.choice([444, 529]), "__call__", "self.launch(*args, **kwargs)")],
                    ["RuntimeError: Triton Error [CUDA]: an illegal memory access was encountered"], tags=("R",))
        xid(S, tf + 0.2, R, 31, "channel 0x%08x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC%d GPCCLIENT_T1_%d faulted @ 0x7f%02x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ"
            % (rng.randint(8, 40), rng.randint(0, 7), rng.randint(0, 15), rng.randint(0, 255), rng.randint(0, 0xffffffff) & 0xfffff000), tags=("X",))
        S.notes = "A Triton attention kernel read out of bounds on rank %d (illegal memory access, Xid 31 with the rank's pid)." % R
    te = tf + 0.3
    S.exit(R, te + 1, "code", 1)
    S.collateral(te, [R], seq=rng.randint(10000, 900000), mode=rng.choice(["watchdog", "remote"]), dead_host=H)
    S.rank_groups = [("R",), ("X", "pid:%d" % R), ("X", "bus:%d" % R)]
    S.node_groups = [("X",)]
    S.finish()


def sc_python_exception(S):
    w, rng = S.w, S.rng
    v = rng.choice(["nanguard", "rerun_app", "anomaly", "loss_scale_min", "clip_nonfinite", "rank0_check"])
    if v == "rerun_app" and S.layout == "k8s":
        v = "nanguard"
    if v in ("nanguard", "rerun_app"):
        set_fw(S, "megatron")
    if v == "loss_scale_min":
        set_fw(S, rng.choice(["deepspeed", "hf"]) if S.layout != "deepspeed" else "deepspeed", "fp16")
    if v == "clip_nonfinite" and w.framework in ("megatron", "deepspeed", "hf"):
        set_fw(S, rng.choice(["ddp", "fsdp"]))
    if v == "rank0_check" and w.framework == "megatron":
        set_fw(S, "ddp")
    R = pick_rank(S) if v in ("nanguard", "rerun_app", "anomaly") else (0 if v == "rank0_check" else None)
    H = w.host(R) if R is not None else None
    S.plan([R] if R is not None else [], kern_p=0.3)
    S.pname = proc_name(S)
    if v == "loss_scale_min":
        prof_fn = lambda a, b: noise_prof(S, a, b, spikes=0, extra={"overflow_early": 0, "overflow_rate": 0.0})
    elif v in ("clip_nonfinite", "rank0_check"):
        prof_fn = lambda a, b: noise_prof(S, a, b, spikes=rng.randint(2, 4))
    else:
        prof_fn = lambda a, b: noise_prof(S, a, b)
    s0, sf = mk_timeline(S, prof_fn=prof_fn)
    S.init_rank, S.init_node = R, H
    fr, root = S.frames_train()
    d = w.lr(R) if R is not None else 0
    if v == "loss_scale_min":
        # a long overflow cascade down to scale 1, then every rank raises at once
        k0 = max(s0 + 10, sf - rng.randint(20, 40))
        S.train_stream(s0, k0)
        scale = 2 ** rng.choice([12, 14, 16])
        s = k0
        while scale >= 1:
            t = S.step_t(s)
            nxt = max(1, scale // 2)
            S.r(t, 0, "[@T(%%Y-%%m-%%d %%H:%%M:%%S,%%f3)@] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: %d, reducing to %d" % (scale, nxt), chan="out")
            if scale == 1:
                break
            scale = nxt
            s += 1
        tf = S.step_t(s) + 0.5
        for r in S.vis_list:
            S.traceback(tf + rng.uniform(0, 0.3), r, fr + [(S.site("deepspeed/runtime/engine.py"), rng.choice([2169, 2213, 2378]), "step", "self._take_model_step(lr_kwargs)"),
                                                           (S.site("deepspeed/runtime/fp16/loss_scaler.py"), rng.choice([176, 183]), "update_scale", "raise Exception(")],
                        ["Exception: Current loss scale already at minimum - cannot decrease scale anymore. Exiting run."])
        S.exits_all(tf + 2, "code", 1)
        S.rank_groups, S.node_groups = [], []
        S.notes = ("fp16 training diverged: DeepSpeed's dynamic loss scaler overflowed every step down to scale 1 and every rank raised "
                   "'Current loss scale already at minimum'; a program/numerics failure with no single initiating rank.")
        S.finish()
        return
    if v == "clip_nonfinite":
        S.prof["spikes"][sf - rng.randint(3, 12)] = rng.uniform(3, 8)
        S.prof["inf_gn_steps"] = [sf - 1]
        S.train_stream(s0, sf)
        tf = S.step_t(sf) + 0.6 * S.step_time
        for r in S.vis_list:
            S.traceback(tf + rng.uniform(0, 0.2), r, fr + inner_frames(S, "clip"),
                        ["RuntimeError: The total norm of order 2.0 for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this error and scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"])
        S.exits_all(tf + 1, "code", 1)
        S.rank_groups, S.node_groups = [], []
        S.notes = ("Training diverged (loss spikes, then an inf grad norm); clip_grad_norm_(error_if_nonfinite=True) raised on every rank at the "
                   "same step, so there is no single initiator.")
        S.finish()
        return
    if v == "rank0_check":
        S.prof["spikes"][sf - rng.randint(2, 8)] = rng.uniform(4, 9)
        S.prof["nan_steps"] = [sf]
        S.train_stream(s0, sf)
        tf = S.step_t(sf) + 0.7 * S.step_time
        S.traceback(tf, 0, fr + [("%s/train.py" % root, rng.randint(80, 150), "train", "raise FloatingPointError(f\"loss is {loss.item()} at step {step}\")")],
                    ["FloatingPointError: loss is nan at step %d" % (sf + 1)], tags=("R",))
        S.exit(0, tf + 1, "code", 1)
        S.collateral(tf, [0], seq=rng.randint(10000, 900000), mode=rng.choice(["watchdog", "remote"]), dead_host=w.host(0))
        S.rank_groups, S.node_groups = [("R",)], []
        S.notes = "Loss went NaN after a series of spikes; only rank 0 checks the loss and raised FloatingPointError, the others timed out."
        S.finish()
        return
    S.train_stream(s0, sf)
    tf = S.step_t(sf) + rng.uniform(0.2, 0.8) * S.step_time
    k = sf + 1
    if v == "nanguard":
        msg = "Rank %d: found NaN in local forward loss calculation. Device: %d, node: %s" % (R, d, w.hn(H))
        S.traceback(tf, R, fr + [("%s/pretrain_gpt.py" % root, rng.randint(140, 200), "loss_func", "assert not loss[0].isnan(), (")],
                    ["AssertionError: " + msg], tags=("RN",))
        S.r(tf - S.step_time * 0.5, R, "WARNING: sample %d in %s has 0 loss-mask tokens (document shorter than the shift window)" % (rng.randint(10 ** 6, 10 ** 8), rng.choice(["shard_00417.bin", "web_en_0093_text_document", "code_0005.idx"])), tags=("R",), chan="out")
        S.exit(R, tf + 1, "code", 1)
        S.collateral(tf, [R], seq=rng.randint(10000, 900000), mode=rng.choice(["watchdog", "remote"]), dead_host=H)
        S.rank_groups, S.node_groups = [("RN",), ("R",)], [("RN",)]
        S.notes = ("A sample with an empty loss mask made rank %d's local loss NaN (division by a zero token count); Megatron's NaN "
                   "guard raised AssertionError there. No hardware involved: dmesg is clean." % R)
    elif v == "rerun_app":
        S.r(S.t_train + 3, 0, mlog(S, "WARNING", "megatron.core.rerun_state_machine", "Result validation enabled"))
        msg = "found NaN in local forward loss calculation"
        S.r(tf, R, mlog(S, "ERROR", "megatron.core.rerun_state_machine", "Unexpected result nan on rank %d at iteration #%d invocation #1 (message='%s')" % (R, k, msg)), tags=("R",))
        t2 = tf + S.step_time * 2
        S.r(t2, R, mlog(S, "ERROR", "megatron.core.rerun_state_machine", "Rank %d, node %s, device %d, iteration #%d: First rerun: unexpected result is reproducible within the tolerance (nan = nan). Need to rerun on a different GPU to verify correctness.!" % (R, w.hn(H), d, k)), tags=("RN",))
        S.r(t2 + 1, 0, mlog(S, "WARNING", "megatron.core.rerun_state_machine", "Saving a checkpoint and exiting now. Please resume the job from the checkpoint to rerun the last iteration and establish a diagnostic"))
        t3 = t2 + rng.uniform(60, 200)
        S.r(t3, 0, "  successfully saved checkpoint from iteration %8d to /ckpt/%s [ t 1/%d, p 1/%d ]" % (sf, S.run_name, S.mpar[0], S.mpar[1]), chan="out")
        for r in range(w.n):
            S.exit(r, t3 + rng.uniform(1, 3), "code", 16)
        # requeue: the state machine resumes on another node for the suspicious rank
        H2 = w.spare_host()
        t4 = t3 + rng.uniform(300, 1500)
        S.restart_at = t4 - 60
        S.r(t4 - 50, 0, "==== job restarted (SLURM_RESTART_COUNT=1), resuming from /ckpt/%s iteration %d ====" % (S.run_name, sf), chan="out")
        S.r(t4, R, mlog(S, "WARNING", "megatron.core.rerun_state_machine", "Second rerun: unexpected result is reproducible on a different GPU, therefore it was likely correct (nan = nan)"), tags=("R",))
        S.r(t4, R, mlog(S, "ERROR", "megatron.core.rerun_state_machine", "Rank %d, node %s, device %d, iteration #%d: Correct result (but possible Application error) (%s)!" % (R, H2, d, k, msg)), tags=("R",))
        S.r(t4 + 1, 0, mlog(S, "WARNING", "megatron.core.rerun_state_machine", "Exiting now. A checkpoint at the last iteration already exists if further examination is needed"))
        S.exits = {}
        S.exits_all(t4 + 3, "code", 17)
        S.rank_groups, S.node_groups = [("R",), ("RN",)], [("RN",)]
        S.attempts = 2
        S.notes = ("Rank %d produced a NaN loss at iteration %d; Megatron reran it on the same GPU (%s) and then, after a restart, on a different "
                   "node (%s): reproducible both times, so the result was 'correct' and the NaN comes from the data/program." % (R, k, H, H2))
    else:
        op = rng.choice(["LogSoftmaxBackward0", "DivBackward0", "MulBackward0", "PowBackward0", "SoftmaxBackward0"])
        for r in S.vis_list[:64]:
            S.r(S.t_train - 5 + rng.uniform(0, 2), r, "%s/train.py:%d: UserWarning: Anomaly Detection has been enabled. This mode will increase the runtime and should only be enabled for debugging.\n  torch.autograd.set_detect_anomaly(True)" % (root, rng.randint(30, 90)))
        wl = ["%s:%d: UserWarning: Error detected in %s. Traceback of forward call that caused the error:" % (S.site("torch/autograd/graph.py"), rng.choice([768, 825]), op)]
        wl += ['  File "%s", line %d, in %s' % (f, l, fn) + ("\n    " + c if c else "") for (f, l, fn, c) in fr[:3]]
        wl += ['  File "%s/model.py", line %d, in forward' % (root, rng.randint(100, 400)), "    logits = torch.log_softmax(scores / self.temperature, dim=-1)",
               " (Triggered internally at ../torch/csrc/autograd/python_anomaly_mode.cpp:%d.)" % rng.choice([111, 118]),
               "  return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"]
        S.r(tf, R, "\n".join(wl), tags=("R",))
        S.traceback(tf + 0.1, R, fr + inner_frames(S, "backward"), ["RuntimeError: Function '%s' returned nan values in its 0th output." % op], tags=("R",))
        S.exit(R, tf + 1, "code", 1)
        S.collateral(tf, [R], seq=rng.randint(10000, 900000), mode=rng.choice(["watchdog", "remote"]), dead_host=H)
        S.rank_groups, S.node_groups = [("R",)], []
        S.notes = ("Anomaly detection was on while chasing NaNs; rank %d's backward produced NaN in %s and raised RuntimeError, "
                   "the other ranks then timed out." % (R, op))
    S.finish()


def sc_host_oom_kill(S):
    w, rng = S.w, S.rng
    R = pick_rank(S)
    H, d = w.host(R), w.lr(R)
    S.plan([R], kern_p=0.8)
    S.pname = proc_name(S)
    s0, sf = mk_timeline(S, prof_fn=lambda a, b: noise_prof(S, a, b, spikes=1))
    S.init_rank, S.init_node = R, H
    S.train_stream(s0, sf)
    sp = sorted(S.prof["spikes"])[0] if S.prof["spikes"] else (s0 + sf) // 2
    for r in S.vis_list:
        if w.host(r) == H or rng.random() < 0.3:
            S.r(S.step_t(sp) + rng.uniform(1, 3), r, "[rank%d] nan-watch: non-finite grads at step %d, copying %d tensors (%.1f GiB) to host memory for offline analysis"
                % (r, sp, rng.randint(300, 1400), rng.uniform(6, 30)), chan="out")
    tf = S.step_t(sf) + rng.uniform(0.1, 0.9) * S.step_time
    pid = w.pids[R]
    comm = rng.choice(["python3", "python", "pt_main_thread"])
    cg = S.launcher == "srun" or S.layout == "k8s"
    S.k(tf - 0.05, H, "%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0" % comm)
    S.k(tf - 0.04, H, "CPU: %d PID: %d Comm: %s Tainted: P           OE     5.15.0-%d-generic #%d-Ubuntu" % (rng.randint(0, 200), pid + rng.randint(1, 50), comm, rng.randint(80, 130), rng.randint(80, 140)))
    if cg:
        S.k(tf - 0.02, H, "memory: usage %dkB, limit %dkB, failcnt %d" % (rng.randint(1600000000, 1900000000) // 1000, 1900000000 // 1000, rng.randint(1, 900)))
    kb = rng.randint(120, 260) * 1024 * 1024
    S.k(tf, H, "%s: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0"
        % ("Memory cgroup out of memory" if cg else "Out of memory", pid, comm, kb + rng.randint(10 ** 7, 9 * 10 ** 7), kb, rng.randint(200000, 900000), rng.randint(10000, 900000),
           rng.choice([0, 1000, 1001, 31337]), rng.randint(200000, 400000)), tags=("X",))
    S.k(tf + 0.3, H, "oom_reaper: reaped process %d (%s), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB" % (pid, comm))
    S.exit(R, tf + 0.1, "oom", "SIGKILL")
    if S.launcher == "srun":
        S.sc(tf + rng.uniform(5, 30), "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % w.jobid)
    S.collateral(tf, [R], seq=rng.randint(10000, 900000), mode=rng.choice(["watchdog", "remote"]), dead_host=H)
    S.rank_groups = [("X", "pid:%d" % R), ("exit:%d" % R,)]
    S.node_groups = [("X",)]
    S.notes = ("A NaN-analysis hook copied tensors to host RAM on every rank; %s ran out of memory and the kernel OOM killer SIGKILLed "
               "rank %d (pid %d). Everything else is collateral." % (H, R, pid))
    S.finish()


def sc_crash_signal(S):
    w, rng = S.w, S.rng
    R = pick_rank(S)
    H, d = w.host(R), w.lr(R)
    S.plan([R], kern_p=0.6)
    S.pname = proc_name(S)
    s0, sf = mk_timeline(S, prof_fn=lambda a, b: noise_prof(S, a, b, extra={"overflow_rate": 0.02}))
    S.init_rank, S.init_node = R, H
    S.train_stream(s0, sf)
    tf = S.step_t(sf) + rng.uniform(0.1, 0.9) * S.step_time
    sig = rng.choice(["SIGSEGV", "SIGSEGV", "SIGBUS"])
    lib = rng.choice(["amp_C.cpython-310-x86_64-linux-gnu.so", "libtransformer_engine.so", "fused_adam_cuda.so", "libtorch_cuda.so"])
    if rng.random() < 0.7:
        name = "Segmentation fault" if sig == "SIGSEGV" else "Bus error"
        thr = "0x%016x" % rng.randint(0x7f0000000000, 0x7fffffffffff)
        L = ["Fatal Python error: %s" % name, "",
             "Thread %s (most recent call first):" % ("0x%016x" % rng.randint(0x7f0000000000, 0x7fffffffffff)),
             '  File "%s", line %d in wait' % ("/usr/lib/%s/threading.py" % w.py, rng.choice([320, 324, 331])),
             '  File "%s", line %d in _worker' % (S.site("torch/utils/data/_utils/pin_memory.py"), rng.choice([49, 54])), "",
             "Current thread %s (most recent call first):" % thr,
             '  File "%s", line %d in %s' % (S.site(rng.choice(["apex/multi_tensor_apply/multi_tensor_apply.py", "transformer_engine/pytorch/module/base.py", "torch/optim/adamw.py"])), rng.randint(27, 700), rng.choice(["__call__", "_multi_tensor_adamw", "prepare_forward"])),
             '  File "%s", line %d in %s' % (S.site("megatron/core/optimizer/clip_grads.py") if w.framework == "megatron" else S.site("torch/nn/utils/clip_grad.py"), rng.randint(60, 200), rng.choice(["get_grad_norm_fp32", "clip_grad_norm_"])),
             '  File "%s", line %d in step' % (S.site("torch/optim/optimizer.py"), rng.choice([385, 484])), "",
             "Extension modules: numpy.core._multiarray_umath, torch._C, torch._C._fft, torch._C._linalg, torch._C._nested, torch._C._nn, torch._C._sparse, torch._C._special (total: %d)" % rng.randint(20, 90)]
        S.r(tf, R, "\n".join(L), tags=("R",))
    if sig == "SIGSEGV":
        S.k(tf + 0.001, H, "%s[%d]: segfault at %x ip 00007f%s sp 00007ff%s error 4 in %s[7f%s+%x]"
            % (rng.choice(["python3", "pt_main_thread"]), w.pids[R], rng.choice([0x0, 0x8, 0x18, 0x40]), hexid(rng, 10), hexid(rng, 9), lib, hexid(rng, 10), rng.randint(0x100000, 0x9000000)), tags=("X",))
    S.exit(R, tf + 0.05, "signal", sig)
    S.collateral(tf, [R], seq=rng.randint(10000, 900000), mode=rng.choice(["watchdog", "remote"]), dead_host=H)
    S.rank_groups = [("R",), ("exit:%d" % R,), ("X", "pid:%d" % R)]
    S.node_groups = [("X",)]
    S.notes = "Rank %d died with %s inside the optimizer/grad-norm path (%s); no Xid, no ECC, the other ranks are collateral." % (R, sig, lib)
    S.finish()


def sc_preemption(S):
    w, rng = S.w, S.rng
    v = "node" if (S.layout == "k8s" or (w.nn > 1 and rng.random() < 0.3)) else "job"
    if v == "node" and w.nn < 2:
        v = "job"
    R = pick_rank(S) if v == "node" else None
    H = w.host(R) if R is not None else None
    S.plan([R] if R is not None else [], kern_p=0.4)
    S.pname = proc_name(S)
    s0, sf = mk_timeline(S, prof_fn=lambda a, b: noise_prof(S, a, b, spikes=rng.randint(2, 4)))
    S.train_stream(s0, sf)
    for s in sorted(S.prof.get("spikes", {}))[:3]:
        S.r(S.step_t(s) + 2, 0, "[@T(%%Y-%%m-%%d %%H:%%M:%%S)@] spike-debug: step %d loss %.3f > 2.0 x EMA; dumping batch ids %s and per-layer grad norms to /scratch/spikes/step_%d.pt"
            % (s, S.loss_floor * rng.uniform(2.0, 3.0), [rng.randint(0, 10 ** 7) for _ in range(3)], s), chan="out")
    tf = S.step_t(sf) + rng.uniform(0.1, 0.9) * S.step_time
    if v == "job":
        iso = tfmt(S.at(tf, w.nodes[0]), "%Y-%m-%dT%H:%M:%S")
        S.sc(tf, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (w.jobid, w.nodes[0], iso), tags=("P",))
        if rng.random() < 0.5:
            S.sc(tf + 0.2, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (w.jobid, w.nodes[0], iso))
        for r in S.vis_list:
            if rng.random() < 0.4:
                S.r(tf + rng.uniform(0.1, 0.5), r, "[rank%d] received SIGTERM, writing emergency checkpoint..." % r, chan="out")
        for r in range(w.n):
            S.exit(r, tf + rng.uniform(0.5, 30), "signal", "SIGTERM")
        if S.launcher == "torchrun":
            M = "torch.distributed.elastic.multiprocessing.api"
            S.agent_killed = S.agent_hosts()
            for h in S.agent_hosts():
                S.ag(tf + rng.uniform(0.05, 0.4), h, S.agent_fmt("W", M, "Received Signals.SIGTERM death signal, shutting down workers", h=h), tags=("P",))
                S.ag(tf + rng.uniform(1.0, 3.0), h, "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % w.agent_pid[h], tags=("P",))
        S.final = "PREEMPTED"
        S.init_rank, S.init_node = None, None
        S.rank_groups, S.node_groups = [], []
        S.notes = "The whole Slurm job was preempted by a higher-priority job in the middle of a loss-spike investigation; nothing failed."
    else:
        S.init_rank, S.init_node = None, H
        for r in w.node_ranks(H):
            if r in S.vis and rng.random() < 0.5:
                S.r(tf + rng.uniform(0.1, 0.5), r, "[rank%d] received SIGTERM, writing emergency checkpoint..." % r, chan="out", tags=("P",))
        for r in w.node_ranks(H):
            S.exit(r, tf + rng.uniform(0.3, 1.0), "signal", "SIGTERM")
        if S.launcher == "torchrun":
            M = "torch.distributed.elastic.multiprocessing.api"
            S.agent_killed = [H]
            S.ag(tf + 0.1, H, S.agent_fmt("W", M, "Received Signals.SIGTERM death signal, shutting down workers", h=H), tags=("P",))
            S.ag(tf + 1.5, H, "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % w.agent_pid[H], tags=("P",))
        elif S.launcher == "srun":
            S.sc(tf + 0.5, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***" % (w.jobid, H, tfmt(S.at(tf, H), "%Y-%m-%dT%H:%M:%S")), tags=("P",))
        S.collateral(tf, w.node_ranks(H), seq=rng.randint(10000, 900000), mode="remote", dead_host=H)
        S.preempt_node = H
        S.final = "FAILED"
        S.rank_groups, S.node_groups = [], [("P",), ("PN",)]
        S.notes = "Node %s was reclaimed (spot/preemptible capacity) during a loss-spike investigation; its ranks got SIGTERM and the rest of the job lost its peers." % H
    S.finish()


def fr_trace_text(S, seq, missing=None, culprit=None, kind=None, detail=None, op="nccl:all_reduce", sizes="[[%d]]"):
    w, rng = S.w, S.rng
    lines = ["$ torchfrtrace /scratch/fr_dumps -j --prefix nccl_trace_rank_",
             "loaded %d files in %.1fs" % (min(w.n, 64) if w.n > 64 else w.n, rng.uniform(0.2, 9.0))]
    numel = rng.choice([52428800, 131334144, 25165824])
    if missing is not None:
        lines += ["Not all ranks joining collective %d at entry %d" % (seq, rng.randint(1000, 1999)),
                  "group info: 0:default_pg", "collective: %s" % op,
                  "missing ranks: {%d}" % missing,
                  "input sizes: [[%d]]" % numel, "output sizes: [[%d]]" % numel,
                  "world size: %d" % w.n, "expected ranks: {%s}" % (("0, 1, ..., %d" % (w.n - 1)) if w.n > 8 else ", ".join(str(i) for i in range(w.n))),
                  "collective state: scheduled",
                  "collective stack trace:",
                  "   all_reduce at %s:%d" % (S.site("torch/distributed/distributed_c10d.py"), rng.choice([2288, 2501])),
                  "   allreduce_gradients at %s/train.py:%d" % ("/workspace/trainer", rng.randint(100, 300))]
    else:
        lines += ["Collective %d at entry %d error" % (seq, rng.randint(1000, 1999)),
                  "group info: 0:default_pg", "collective: %s" % op,
                  "error msg: Culprit rank %d; Error type: %s, %s" % (culprit, kind, detail),
                  "world size: %d" % w.n, "collective state: started"]
    return "\n".join(lines)


def pyspy_text(S, r, frames, thread_state="active"):
    w, rng = S.w, S.rng
    L = ["Process %d: /usr/bin/%s -u %s" % (w.pids[r], w.py, S.script_name()),
         "Python v%s (/usr/bin/%s)" % (w.py.replace("python", "") + "." + str(rng.randint(4, 14)), w.py), "",
         'Thread %d (%s): "MainThread"' % (w.pids[r], thread_state)]
    for fn, f, ln in frames:
        L.append("    %s (%s:%d)" % (fn, f, ln))
    L += ["", 'Thread %d (idle): "Thread-2 (_pin_memory_loop)"' % (w.pids[r] + rng.randint(20, 200)),
          "    wait (threading.py:%d)" % rng.choice([320, 324]), "    get (queue.py:%d)" % rng.choice([180, 171]),
          "    _pin_memory_loop (torch/utils/data/_utils/pin_memory.py:%d)" % rng.choice([49, 54])]
    return "\n".join(L)


def sc_hang(S):
    w, rng = S.w, S.rng
    R = pick_rank(S)
    H, d = w.host(R), w.lr(R)
    S.plan([R], kern_p=0.4)
    S.pname = proc_name(S)
    s0, sf = mk_timeline(S, prof_fn=lambda a, b: noise_prof(S, a, b, extra={"inf_gn_steps": [b - 2]}))
    S.init_rank, S.init_node = R, H
    S.silent_rank = R
    S.train_stream(s0, sf)
    tf = S.step_t(sf) + rng.uniform(0.1, 0.5) * S.step_time
    lay = rng.randint(0, 60)
    S.r(tf, R, "[rank%d] nan-inspect: non-finite values in grad of layers.%d.mlp.w2 at step %d, gathering tensor stats (this may take a while)" % (R, lay, sf), chan="out", tags=("R0",))
    for r in S.vis_list:
        if r != R and rng.random() < 0.15:
            S.r(tf + rng.uniform(0, 0.3), r, "[rank%d] nan-inspect: non-finite values in grad of layers.%d.mlp.w2 at step %d, gathering tensor stats (this may take a while)" % (r, lay, sf), chan="out")
    seq = rng.randint(10000, 900000)
    era = w.era
    ex = rng.random()
    if ex < 0.45 and era >= 2.4:
        S.fr_on = True
    # every rank except R enqueues the all-reduce and times out
    S.collateral(tf, [R], seq=seq, op="ALLREDUCE", mode="watchdog")
    tmo = w.timeout_ms / 1000.0
    if era >= 2.8 or S.fr_on:
        S.r(tf + tmo + rng.uniform(1, 3), R, S.glog(R, "E", "ProcessGroupNCCL.cpp:1685", "%s Received a dump signal due to a collective timeout from rank %d and we will try our best to dump the debug info. Last enqueued NCCL work: %d, last completed NCCL work: %d."
                                                         % (S.pgp(R), (R + 1) % w.n, seq - 1, seq - 1)), tags=("R2",))
    tk = tf + tmo + rng.uniform(5, 40)
    S.exit(R, tk, "signal", rng.choice(["SIGTERM", "SIGKILL"]) if S.launcher != "srun" else "SIGKILL")
    S.rank_groups = [("R2",), ("FR",), ("PS",)]
    if S.fr_on:
        S.extra["frtrace"] = {"text": fr_trace_text(S, seq, missing=R), "tags": ("FR",)}
    elif ex < 0.8:
        S.extra["pyspy:%d" % R] = {"text": pyspy_text(S, R, [
            ("_wait_for_tstate_lock", "threading.py", rng.choice([1116, 1167])), ("join", "threading.py", rng.choice([1096, 1147])),
            ("_gather_stats", "/workspace/trainer/nan_inspect.py", rng.randint(40, 120)),
            ("on_nonfinite", "/workspace/trainer/nan_inspect.py", rng.randint(120, 200)),
            ("train_step", "/workspace/trainer/train.py", rng.randint(80, 160)), ("train", "/workspace/trainer/train.py", rng.randint(160, 300)),
            ("main", "/workspace/trainer/train.py", rng.randint(300, 400)), ("<module>", "/workspace/trainer/train.py", rng.randint(400, 500))], "idle"),
            "tags": ("PS",)}
    S.notes = ("Rank %d stopped progressing inside a NaN-inspection helper (a thread join that never returns) and never joined the next "
               "all-reduce; all other ranks hit the NCCL watchdog timeout at the same sequence number." % R)
    S.finish()


def sc_data_loader_stall(S):
    w, rng = S.w, S.rng
    R = pick_rank(S)
    H, d = w.host(R), w.lr(R)
    S.plan([R], kern_p=0.7)
    S.pname = proc_name(S)
    s0, sf = mk_timeline(S, prof_fn=lambda a, b: noise_prof(S, a, b, nan_steps=[b - 1]))
    S.init_rank, S.init_node = R, H
    S.silent_rank = R
    S.train_stream(s0, sf)
    tf = S.step_t(sf) + rng.uniform(0.1, 0.5) * S.step_time
    S.r(tf - S.step_time, 0, "[@T(%%Y-%%m-%%d %%H:%%M:%%S)@] step %d: non-finite loss on 1/%d ranks, skipping this batch on all ranks and drawing replacement samples" % (sf, w.n), chan="out")
    dev = rng.choice(["nvme1n1", "nvme2n1", "md0"])
    for i in range(rng.randint(2, 6)):
        S.k(tf + i * rng.uniform(5, 40), H, "nvme %s: I/O %d QID %d timeout, aborting" % (dev[:5], rng.randint(1, 1000), rng.randint(1, 64)), tags=("K",))
    S.k(tf + 60, H, "blk_update_request: I/O error, dev %s, sector %d op 0x0:(READ) flags 0x80700 phys_seg %d prio class 0" % (dev, rng.randint(10 ** 6, 10 ** 9), rng.randint(1, 64)), tags=("K",))
    S.k(tf + 61, H, "INFO: task pt_data_worker:%d blocked for more than 120 seconds." % (w.pids[R] + rng.randint(100, 900)), tags=("K",))
    seq = rng.randint(10000, 900000)
    v = rng.random()
    tmo = w.timeout_ms / 1000.0
    if v < 0.4 and tmo > 600:
        S.traceback(tf + 600, R, S.frames_train()[0] + [(S.site("torch/utils/data/dataloader.py"), rng.choice([631, 701, 708]), "__next__", "data = self._next_data()"),
                                                         (S.site("torch/utils/data/dataloader.py"), rng.choice([1328, 1329]), "_next_data", "idx, data = self._get_data()"),
                                                         (S.site("torch/utils/data/dataloader.py"), rng.choice([1284, 1294]), "_get_data", "success, data = self._try_get_data()"),
                                                         (S.site("torch/utils/data/dataloader.py"), rng.choice([1145, 1146]), "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e")],
                    ["RuntimeError: DataLoader timed out after 600 seconds"], tags=("R",))
        S.exit(R, tf + 601, "code", 1)
        S.collateral(tf + 601, [R], seq=seq, mode="remote", dead_host=H)
    else:
        S.collateral(tf, [R], seq=seq, mode="watchdog")
        S.exit(R, tf + tmo + rng.uniform(5, 30), "signal", "SIGTERM" if S.launcher == "torchrun" else "SIGKILL")
        if rng.random() < 0.6:
            S.extra["pyspy:%d" % R] = {"text": pyspy_text(S, R, [
                ("poll", "multiprocessing/connection.py", rng.choice([424, 440])), ("_poll", "multiprocessing/connection.py", rng.choice([257])),
                ("get", "multiprocessing/queues.py", rng.choice([113])), ("_try_get_data", "torch/utils/data/dataloader.py", rng.choice([1133, 1146])),
                ("_get_data", "torch/utils/data/dataloader.py", rng.choice([1284, 1294])), ("_next_data", "torch/utils/data/dataloader.py", 1328),
                ("__next__", "torch/utils/data/dataloader.py", rng.choice([631, 701])), ("train", "/workspace/trainer/train.py", rng.randint(100, 300)),
                ("main", "/workspace/trainer/train.py", rng.randint(300, 400))], "idle"), "tags": ("PS",)}
    S.rank_groups = [("R",), ("PS",)]
    S.node_groups = [("K",)]
    S.notes = ("After a NaN batch was skipped, rank %d's loader had to read replacement samples from the node-local cache disk on %s, "
               "which stopped answering (NVMe I/O timeouts); the rank waited in the DataLoader past the collective timeout." % (R, H))
    S.finish()


def fingerprint(seq, op, shape, dtype):
    return ("CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%s], TensorDtypes=%s, TensorDeviceTypes=TensorOptions(dtype=float (default), "
            "device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))" % (seq, op, shape, dtype))


def sc_collective_mismatch(S):
    w, rng = S.w, S.rng
    v = rng.choice(["detail", "fr"])
    if v == "fr" and w.era < 2.5:
        v = "detail"
    R = pick_rank(S)
    H = w.host(R)
    S.plan([R], kern_p=0.2)
    S.pname = proc_name(S)
    s0, sf = mk_timeline(S, prof_fn=lambda a, b: noise_prof(S, a, b))
    S.init_rank, S.init_node = R, H
    S.train_stream(s0, sf)
    tf = S.step_t(sf) + rng.uniform(0.2, 0.7) * S.step_time
    seq = rng.randint(10000, 900000)
    if v == "detail":
        S.r(tf - 0.3, R, "[rank%d] WARNING: local loss is nan at step %d, skipping backward/optimizer for this micro-batch" % (R, sf), chan="out", tags=("R0",))
        shape = rng.choice(["131334144", "52428800", "25165824"])
        dt = "BFloat16" if w.dtype == "bf16" else "Half"
        fp_bad = fingerprint(seq, "BROADCAST", "1", "Long")
        fp_ok = fingerprint(seq, "ALLREDUCE", shape, dt)
        fr, root = S.frames_train()
        for r in S.vis_list:
            if r == R:
                other = rng.choice([x for x in range(w.n) if x != R])
                msg = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects: \t Op type: BROADCASTvs ALLREDUCE\t Tensor Tensor shapes: 1vs %s\t Tensor Tensor dtypes: Longvs %s" % (R, fp_bad, other, fp_ok, shape, dt)
                tb = fr + [("%s/train.py" % root, rng.randint(100, 200), "train_step", "dist.broadcast(next_batch_ids, src=0)")] + inner_frames(S, "allreduce")[:1]
            else:
                msg = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects: \t Op type: ALLREDUCEvs BROADCAST\t Tensor Tensor shapes: %svs 1\t Tensor Tensor dtypes: %svs Long" % (r, fp_ok, R, fp_bad, shape, dt)
                tb = fr + inner_frames(S, "backward")
            S.traceback(tf + rng.uniform(0.0, 0.5), r, tb, [msg], tags=("Mr",) if r == R else ("M", "M:%d" % r))
        S.exits_all(tf + 1, "code", 1)
        S.rank_groups = [("M", "Mr"), ("R0",)]
        S.notes = ("Rank %d saw a NaN local loss and skipped backward (a rank-local decision), so it issued the next step's broadcast while "
                   "every other rank was in the gradient all-reduce; TORCH_DISTRIBUTED_DEBUG=DETAIL reported the mismatch on all ranks." % R)
    else:
        S.r(tf - 0.3, R, "[rank%d] WARNING: dropping %d non-finite gradient elements from bucket 3 before all-reduce" % (R, rng.randint(1, 40)), chan="out", tags=("R0",))
        S.fr_on = True
        S.collateral(tf, [R], seq=seq, op="ALLREDUCE", mode="watchdog")
        tmo = w.timeout_ms / 1000.0
        S.watchdog(tf + tmo + rng.uniform(0, 2), R, seq, "ALLREDUCE", rng.randint(10 ** 6, 10 ** 8))
        S.exit(R, tf + tmo + 3, "signal", "SIGABRT")
        n1 = rng.choice([52428800, 25165824])
        S.extra["frtrace"] = {"text": fr_trace_text(S, seq, culprit=R, kind="SIZE_OR_SYNTAX_MISMATCH",
                                                    detail="Expected input sizes: '[[%d]]' does not match found input sizes: '[[%d]]'" % (n1, n1 - rng.randint(1, 40))),
                              "tags": ("FR",)}
        S.rank_groups = [("FR",), ("R0",)]
        S.notes = ("Rank %d removed non-finite gradient elements before the all-reduce, so its bucket size differed from everybody else's; "
                   "the collective never completed and all ranks hit the watchdog. The Flight Recorder analysis names the culprit." % R)
    S.node_groups = []
    S.finish()


def sc_straggler(S):
    w, rng = S.w, S.rng
    R = pick_rank(S)
    H, d = w.host(R), w.lr(R)
    S.plan([R], kern_p=0.2)
    S.pname = proc_name(S)
    s0, sf = mk_timeline(S, lines=(60, 200), prof_fn=lambda a, b: noise_prof(S, a, b, spikes=rng.randint(1, 3)))
    S.init_rank, S.init_node = R, H
    slow_from = s0 + (sf - s0) // rng.randint(3, 6)
    # the slow GPU drags every synchronous step: raise the step time after slow_from
    S.train_stream(s0, slow_from)
    base = S.step_time
    t_slow = S.step_t(slow_from)
    S.t_train = t_slow - (slow_from - s0) * base * 1.0
    S.step_time = base * rng.uniform(1.35, 2.2)
    S.t_train = t_slow - (slow_from - s0) * S.step_time
    S.train_stream(slow_from, sf)
    fw = w.framework
    every = S.log_int * rng.choice([1, 2, 5])
    mn = [x for x in range(w.n) if x != R]
    for s in range(slow_from + every, sf, every):
        t = S.step_t(s) + 0.5
        if fw == "megatron":
            a = rng.choice(mn)
            b = rng.choice(mn)
            S.r(t, 0, "INFO:megatron.core.utils:[%s] | MnRtt/Rnk: %.2fms/%d | MxRtt/Rnk: %.2fms/%d | MnPwr/Rnk: %.2fW/%d | MxPwr/Rnk: %.2fW/%d | MnTmp/Rnk: %.2fC/%d | MxTmp/Rnk: %.2fC/%d | MnUtl/Rnk: %.2f%%/%d | MxUtl/Rnk: %.2f%%/%d | MnClk/Rnk: %.2fMHz/%d | MxClk/Rnk: %.2fMHz/%d | MnDRtt/Rnk: %.2fms/%d | MxDRtt/Rnk: %.2fms/%d | MnEtpt/Rnk: %.2fTF/%d | MxEtpt/Rnk: %.2fTF/%d"
                % (tfmt(S.at(t, w.host(0)), "%Y-%m-%d %H:%M:%S"), base * 1000 * rng.uniform(0.96, 1.0), a, S.step_time * 1000 * rng.uniform(0.97, 1.0), R,
                   rng.uniform(380, 450), R, rng.uniform(640, 700), b, rng.uniform(40, 50), rng.choice(mn), rng.uniform(86, 91), R,
                   rng.uniform(80, 95), rng.choice(mn), 100.0, rng.choice(mn), (1410 if "A100" in w.gpu_model else 1980) * rng.uniform(0.5, 0.64), R, 1410.0 if "A100" in w.gpu_model else 1980.0, rng.choice(mn),
                   rng.uniform(1, 15), rng.choice(mn), rng.uniform(20, 140), rng.choice(mn), S.tflops / (S.step_time / base), R, S.tflops * rng.uniform(0.99, 1.01), a),
                chan="err", tags=("R",))
        else:
            for r in S.vis_list[:24]:
                fac = (S.step_time / base) if r == R else 1.0
                S.r(t + rng.uniform(0, 0.2), r, "[rank%d] step %d timing: fwd %.0fms bwd %.0fms (before all-reduce) data %.0fms"
                    % (r, s, base * 330 * fac * rng.uniform(0.97, 1.03), base * 600 * fac * rng.uniform(0.97, 1.03), rng.uniform(2, 15)),
                    chan="out", tags=("R",) if r == R else ())
    end = rng.random()
    hv = {H: {d: {"DCGM_FI_DEV_SM_CLOCK": int((1410 if "A100" in w.gpu_model else 1980) * rng.uniform(0.5, 0.64)), "DCGM_FI_DEV_GPU_TEMP": rng.randint(86, 92), "DCGM_FI_DEV_POWER_USAGE": rng.uniform(380, 450),
                  "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE": rng.uniform(0.18, 0.26)}}}
    for h2 in rng.sample(w.nodes, min(2, w.nn)):
        hv.setdefault(h2, {})
    S.extra["prom"] = {"text": dcgm_prom(S, hv), "tags": ("D",)}
    if rng.random() < 0.6:
        S.extra["smi:%s" % H] = {"text": smi_q(S, H, {d: {"hwslow": "Active", "hwtherm": "Active", "temp": rng.randint(87, 92)}}), "tags": ("D",)}
    S.rank_groups = [("R",)]
    S.node_groups = [("D",)]
    if end < 0.5 and S.launcher == "srun":
        tf = S.step_t(sf) + 1
        S.sc(tf, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (w.jobid, w.nodes[0], tfmt(S.at(tf, w.nodes[0]), "%Y-%m-%dT%H:%M:%S")))
        for r in range(w.n):
            S.exit(r, tf + rng.uniform(0.5, 20), "signal", "SIGTERM")
        S.final = "TIMEOUT"
        S.finish()
    elif end < 0.75:
        S.final = "RUNNING"
        S.t_end = S.step_t(sf) + 5
    else:
        success_tail(S, sf)
        S.final = "COMPLETED"
    S.notes = ("GPU %d on %s runs hot with HW thermal slowdown (low SM clock); rank %d is persistently slowest and every synchronous step "
               "waits for it (step time x%.2f). The loss spikes are ordinary noise." % (d, H, R, S.step_time / base))


def sc_unknown(S):
    w, rng = S.w, S.rng
    v = rng.choice(["silent", "no_stderr", "cut"])
    S.plan([], kern_p=0.0)
    S.pname = proc_name(S)
    s0, sf = mk_timeline(S, prof_fn=lambda a, b: noise_prof(S, a, b, nan_steps=[b - 1] if rng.random() < 0.5 else []))
    S.train_stream(s0, sf)
    tf = S.step_t(sf) + rng.uniform(0.1, 0.9) * S.step_time
    seq = rng.randint(10000, 900000)
    if v == "silent":
        # everybody waits in the same collective with the same counters: no rank stands out
        S.collateral(tf, [], seq=seq, mode="watchdog")
        S.notes = "Every rank timed out in the same all-reduce with identical counters; no rank, node or kernel message points at a cause."
    elif v == "no_stderr":
        for r in range(w.n):
            S.exit(r, tf + rng.uniform(0, 5), "code", 1)
        S.notes = "The job exited with code 1 on all ranks right after a NaN iteration, but stderr was not captured: nothing says why."
    else:
        S.note(tf, "[... %d lines removed by the user ...]" % rng.randint(2000, 90000))
        S.collateral(tf, [], seq=seq, mode="watchdog", max_print=6)
        S.notes = "The bundle was trimmed right where the failure starts; only collateral watchdog timeouts remain."
    S.init_rank, S.init_node = None, None
    S.rank_groups, S.node_groups = [], []
    S.finish()


def sc_healthy(S):
    w, rng = S.w, S.rng
    v = rng.choice(["ds_overflow", "nan_skip", "anomaly_warn", "restart_ok", "restart_ok", "apex", "grad_scaler", "spiky_rerun", "spiky_rerun"])
    if v == "ds_overflow":
        set_fw(S, rng.choice(["deepspeed", "hf"]), "fp16")
    if v in ("nan_skip", "spiky_rerun"):
        set_fw(S, "megatron")
    if v == "grad_scaler":
        set_fw(S, "ddp", "fp16")
    if v == "apex":
        set_fw(S, "ddp", "fp16")
    S.plan([], kern_p=0.0)
    S.pname = proc_name(S)
    nan_at = []
    s0, sf = mk_timeline(S, prof_fn=lambda a, b: noise_prof(S, a, b, nan_steps=[a + (b - a) // 2] if v == "nan_skip" else [],
                                                            extra={"overflow_early": rng.randint(6, 14) if v in ("ds_overflow", "apex", "grad_scaler") else 0,
                                                                   "overflow_rate": 0.02 if v in ("ds_overflow", "apex", "grad_scaler") else 0.0}))
    S.healthy_variant = v
    if v == "apex":
        # old apex amp prints its own overflow lines instead of the script's
        ser = S._series(s0, min(sf, s0 + 40))
        for st in ser:
            if st["over"]:
                S.r(S.step_t(st["s"]) + 0.1, 0, "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to %s" % repr(float(st["over"][2])), chan="out")
        w.dtype = "bf16"
    if v == "restart_ok":
        # attempt 0 dies on a node fault, the job is restarted without that node and completes
        R = pick_rank(S)
        H = w.host(R)
        s_fail = s0 + (sf - s0) // 3
        S.train_stream(s0, s_fail)
        tf = S.step_t(s_fail) + 0.5 * S.step_time
        xid_unknown_pid(S, tf, R, 48, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at physAddr 0x%x partition %d, subpartition %d." % (rng.randint(0x1000000, 0x7fffffff), rng.randint(0, 23), rng.randint(0, 3)), tags=())
        fr, root = S.frames_train()
        S.traceback(tf + 0.2, R, fr + inner_frames(S, "forward"), cuda_err_lines(S, "uncorrectable ECC error encountered"))
        if S.launcher == "torchrun":
            for h in S.agent_hosts():
                S.ag(tf + rng.uniform(2, 6), h, S.agent_fmt("I", "torch.distributed.elastic.agent.server.api", "[default] Worker group FAILED. 2/3 attempts left; will restart worker group", h=h))
        else:
            S.note(tf + 5, "==== attempt 1 failed (exit 1); job requeued after a GPU reset on %s, resuming from the last checkpoint ====" % H)
        t_res = tf + rng.uniform(900, 3600)
        S.r(t_res, 0, "==== restarted: resuming from checkpoint at step %d ====" % (s_fail - s_fail % 500), chan="out")
        shift = t_res + 120 - S.step_t(s_fail - s_fail % 500)
        S.t_train += shift
        S.train_stream(s_fail - s_fail % 500, sf)
        S.restart_at = t_res
        S.attempts = 2
        success_tail(S, sf)
        S.notes = ("Attempt 1 died on an uncorrectable ECC error on %s (rank %d); the job was restarted, resumed from its checkpoint "
                   "and finished cleanly." % (H, R))
        return
    if v == "spiky_rerun":
        S.r(S.t_train + 3, 0, mlog(S, "WARNING", "megatron.core.rerun_state_machine", "Result validation enabled"))
    S.train_stream(s0, sf)
    if v == "nan_skip":
        ns = S.prof["nan_steps"][0]
        S.r(S.step_t(ns) + 0.5, 0, "WARNING: iteration %d: loss is nan, update skipped (counted in 'number of nan iterations')" % (ns + 1), chan="out")
        S.notes = "One iteration produced a NaN loss and was skipped by design (Megatron counts it as a nan iteration); training finished normally."
    elif v == "spiky_rerun":
        R = pick_rank(S)
        k = s0 + (sf - s0) // 2
        t = S.step_t(k) + 0.3
        H, d = w.host(R), w.lr(R)
        S.r(t, R, mlog(S, "ERROR", "megatron.core.rerun_state_machine", "Unexpected result %s on rank %d at iteration #%d invocation #2 (message='Spiky loss')" % (repr(round(S.loss_floor * rng.uniform(12, 40), 4)), R, k)))
        S.r(t + S.step_time * 2, R, mlog(S, "WARNING", "megatron.core.rerun_state_machine", "Rank %d, node %s, device %d, iteration #%d: First rerun: unexpected result is reproducible within the tolerance (%s = %s). Need to rerun on a different GPU to verify correctness.!" % (R, w.hn(H), d, k, "2.71", "2.71")))
        S.r(t + S.step_time * 2 + 0.1, 0, mlog(S, "WARNING", "megatron.core.rerun_state_machine", "Continuing normal execution because failed validation was not fatal"))
        S.notes = "A non-fatal 'Spiky loss' validation fired once and the rerun reproduced the value; Megatron continued and the run completed."
    elif v == "anomaly_warn":
        for r in S.vis_list[:64]:
            S.r(S.t_train - 5 + rng.uniform(0, 2), r, "/workspace/trainer/train.py:%d: UserWarning: Anomaly Detection has been enabled. This mode will increase the runtime and should only be enabled for debugging.\n  torch.autograd.set_detect_anomaly(True)" % rng.randint(30, 90))
        S.notes = "Anomaly detection was left on (scary warnings, slower steps) but no NaN appeared and the job completed."
    elif v == "ds_overflow":
        S.notes = "fp16 dynamic loss scaling (DeepSpeed) skipped a handful of steps at start and occasionally later (OVERFLOW messages); this is normal and the run completed."
    elif v == "apex":
        S.notes = "Old apex amp printed 'Gradient overflow. Skipping step' while its loss scale settled; harmless, the run completed."
    elif v == "grad_scaler":
        S.notes = "The script's GradScaler skipped optimizer steps on inf/nan gradients at start and occasionally later; harmless, the run completed."
    if rng.random() < 0.4:
        h = rng.choice(w.nodes)
        r = w.node_ranks(h)[rng.randrange(w.gpn)]
        S.kern_hosts = list(S.kern_hosts) + ([h] if h not in S.kern_hosts else [])
        xid(S, S.t_train + rng.uniform(100, 2000), r, 63, "Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % rng.randint(0x1000000, 0x7fffffff), tags=(), uuid_once=True)
        S.notes += " An isolated Xid 63 (row remap pending) on %s is informational." % h
    success_tail(S, sf)


SCENARIOS = {
    "gpu_hardware": sc_gpu_hardware, "ecc_memory": sc_ecc_memory, "nvlink": sc_nvlink, "network": sc_network,
    "cuda_oom": sc_cuda_oom, "illegal_memory_access": sc_illegal_memory_access, "python_exception": sc_python_exception,
    "host_oom_kill": sc_host_oom_kill, "crash_signal": sc_crash_signal, "preemption": sc_preemption, "hang": sc_hang,
    "data_loader_stall": sc_data_loader_stall, "collective_mismatch": sc_collective_mismatch, "straggler": sc_straggler,
    "unknown": sc_unknown,
}


# ----------------------------------------------------------------------------
# rendering: layouts, prefixes, clocks, trimming, and which evidence survived
# ----------------------------------------------------------------------------

INIT_TAGS = ("R", "RN", "R0", "R2", "N")
MARKERS = ["[... %d lines trimmed ...]", "<snip: %d lines>", "... (%d lines omitted) ...", "[truncated %d lines]",
           "-- %d lines skipped --"]


class Out:
    """a file being written: list of (line, tags)"""

    def __init__(self, path):
        self.path = path
        self.lines = []

    def add(self, line, tags=()):
        self.lines.append((line, tuple(tags)))


class Renderer:
    def __init__(self, S):
        self.S = S
        self.w = S.w
        self.rng = random.Random("render:%s:%d" % (S.w.jobid, S.idx))
        self.files = []
        self.kstyle = {}
        ks = self.rng.choice(["dmesg", "dmesg", "dmesgT", "journal", "iso"])
        for h in self.w.nodes:
            self.kstyle[h] = ks
        self.marker = self.rng.choice(MARKERS)
        self.drop_key = self.rng.random() < 0.08

    def new(self, path):
        o = Out(path)
        self.files.append(o)
        return o

    # -- event formatting --------------------------------------------------
    def txt(self, ev):
        return subst_time(ev.text, self.S.local_dt(ev), ev.seq)

    def tags_for(self, ev, explicit_rank, hostctx):
        """adjust initiator tags to what this context can attribute"""
        S = self.S
        tags = list(ev.tags)
        if ev.src == "rank":
            r = ev.sid
            if not explicit_rank:
                if re.search(r"[Rr]ank\s?%d(?!\d)" % r, ev.text) or "rank=%d" % r in ev.text:
                    explicit_rank = True
            out = []
            for t in tags:
                if t == "P":
                    out.append("P" if hostctx else "P@loc")
                elif t in INIT_TAGS or t in ("M", "Mr"):
                    out.append(t if explicit_rank else t + "@loc")
                    if hostctx and t in INIT_TAGS and r == S.init_rank:
                        out.append("hostline")
                else:
                    out.append(t)
            if hostctx:
                out.append("hostctx:%d" % r)
            return out
        return tags

    def kline(self, ev):
        h = ev.sid
        st = self.kstyle[h]
        dt = self.S.local_dt(ev)
        text = ev.text
        if st == "dmesg":
            up = self.w.boot[h] + ev.t
            return "[%12.6f] %s" % (up, text)
        if st == "dmesgT":
            return "[%s] %s" % (dt.strftime("%a %b %d %H:%M:%S %Y"), text)
        if st == "journal":
            return "%s %s kernel: %s" % (dt.strftime("%b %d %H:%M:%S"), h, text)
        return "%s+00:00 %s kernel: %s" % (tfmt(dt, "%Y-%m-%dT%H:%M:%S.%f6"), h, text)

    def evs(self, pred):
        return [e for e in sorted(self.S.events, key=lambda e: (e.t, e.seq)) if pred(e)]

    def kern_file(self, path, h):
        o = self.new(path)
        for e in self.evs(lambda e: e.src == "kern" and e.sid == h):
            o.add(self.kline(e), e.tags)
        if not o.lines:
            o.add(self.kline(Ev(5.0, 0, "kern", h, "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  %s" % self.w.driver, (), "k")))
        return o

    def extra_file(self, key, path):
        x = self.S.extra.get(key)
        if not x:
            return None
        o = self.new(path)
        for line in x["text"].split("\n"):
            o.add(line, x["tags"])
        return o

    def extras_common(self, prefix, host_dir=None):
        """dcgm/smi/prom/pyspy/frtrace files"""
        S = self.S
        for key in sorted(S.extra):
            kind, _, arg = key.partition(":")
            if kind == "dcgm":
                p = (host_dir(arg) + "dcgmi-diag-r3.txt") if host_dir else "%sdcgmi_diag_%s.txt" % (prefix, arg)
            elif kind == "smi":
                p = (host_dir(arg) + "nvidia-smi-q.txt") if host_dir else "%snvidia-smi-q_%s.txt" % (prefix, arg)
            elif kind == "prom":
                p = "%sdcgm-exporter-snapshot.prom" % prefix
            elif kind == "pyspy":
                p = "%spy-spy-dump-rank%s.txt" % (prefix, arg)
            elif kind == "frtrace":
                p = "%sfr_trace_analysis.txt" % prefix
            else:
                continue
            self.extra_file(key, p)

    # -- trimming --------------------------------------------------------
    def trim(self, o, max_lines, max_bytes, head=None, tail=None):
        L = o.lines
        total = sum(len(x[0]) + 1 for x in L)
        if len(L) <= max_lines and total <= max_bytes:
            return
        rng = self.rng
        n = len(L)
        head = head if head is not None else min(60, n // 5)
        tail = tail if tail is not None else min(150, n // 3)
        keep = [False] * n
        for i in range(min(head, n)):
            keep[i] = True
        for i in range(max(0, n - tail), n):
            keep[i] = True
        for i, (line, tags) in enumerate(L):
            if any(t.split("@")[0] in ("R", "RN", "R0", "R2", "N", "X", "K", "M", "P") for t in tags):
                if self.drop_key and rng.random() < 0.7:
                    continue
                for j in range(max(0, i - 2), min(n, i + 3)):
                    keep[j] = True
        budget_l = max_lines - sum(keep)
        idx = [i for i in range(n) if not keep[i]]
        if budget_l > 0 and idx:
            # keep a few contiguous stretches from the middle
            while budget_l > 0 and idx:
                s = rng.choice(idx)
                ln = min(budget_l, rng.randint(5, 40))
                for j in range(s, min(n, s + ln)):
                    if not keep[j]:
                        keep[j] = True
                        budget_l -= 1
                idx = [i for i in idx if not keep[i]]
                if rng.random() < 0.15:
                    break
        out = []
        i = 0
        while i < n:
            if keep[i]:
                out.append(L[i])
                i += 1
                continue
            j = i
            while j < n and not keep[j]:
                j += 1
            out.append((self.marker % (j - i) if "%d" in self.marker else self.marker, ()))
            i = j
        # hard byte cap: drop the middle further if needed
        while sum(len(x[0]) + 1 for x in out) > max_bytes and len(out) > 50:
            mid = len(out) // 2
            cut = max(10, len(out) // 6)
            out = out[:mid - cut // 2] + [(self.marker % cut if "%d" in self.marker else self.marker, ())] + out[mid + cut // 2:]
        o.lines = out

    # -- layouts -----------------------------------------------------------
    def render(self):
        getattr(self, "r_" + self.S.layout)()
        return self.files

    def rank_line(self, ev):
        return self.txt(ev)

    def r_slurm(self):
        S, w, rng = self.S, self.w, self.rng
        o = self.new("slurm-%d.out" % w.jobid)
        if rng.random() < 0.7:
            o.add("SLURM_JOB_ID=%d" % w.jobid)
            o.add("SLURM_JOB_NODELIST=%s" % compress_hosts(w.nodes), ())
            o.add("SLURM_NNODES=%d SLURM_NTASKS=%d" % (w.nn, w.n))
            o.add("MASTER_ADDR=%s MASTER_PORT=%d" % (w.nodes[0], rng.choice([29500, 6000, 12355])))
            if S.nccl_info:
                o.add("NCCL_DEBUG=INFO")
        width = len(str(w.n - 1))
        for e in self.evs(lambda e: e.src in ("rank", "sched", "note", "agent")):
            if e.src == "rank":
                o.add("%*d: %s" % (width, e.sid, self.txt(e)), self.tags_for(e, True, False))
            elif e.src == "agent":
                continue
            else:
                o.add(self.txt(e), e.tags)
        self.trim(o, 6000, 420000)
        kd = rng.choice(["dmesg/%s.log", "kernel-%s.txt", "nodes/%s/dmesg.txt"])
        for h in S.kern_hosts:
            self.kern_file(kd % h, h)
        self.extras_common(rng.choice(["", "diag/"]))
        if rng.random() < 0.5 and S.final != "RUNNING":
            self.sacct()

    def sacct(self):
        S, w = self.S, self.w
        o = self.new("sacct.txt")
        st = {"FAILED": "FAILED", "COMPLETED": "COMPLETED", "PREEMPTED": "PREEMPTED", "TIMEOUT": "TIMEOUT"}.get(S.final, "FAILED")
        ec = "0:0"
        if S.final == "FAILED":
            codes = [S.exits[r] for r in sorted(S.exits)]
            c = [x[2] for x in codes if x[1] == "code" and x[2]]
            if c:
                ec = "%d:0" % max(c)
            else:
                sig = [x[2] for x in codes if x[1] in ("signal", "oom")]
                ec = "0:%d" % (S.SIGNUM.get(sig[0], 9) if sig else 9)
        elif S.final in ("PREEMPTED", "TIMEOUT"):
            ec = "0:15"
        o.add("       JobID    JobName  Partition      State ExitCode               Start                 End   NNodes ")
        o.add("------------ ---------- ---------- ---------- -------- ------------------- ------------------- -------- ")
        s = tfmt(S.at(0, w.nodes[0]), "%Y-%m-%dT%H:%M:%S")
        e = tfmt(S.at(S.t_end, w.nodes[0]), "%Y-%m-%dT%H:%M:%S")
        name = {"megatron": "pretrain", "deepspeed": "ds-train", "hf": "sft", "ddp": "train", "fsdp": "titan"}[w.framework]
        o.add("%12s %10s %10s %10s %8s %19s %19s %8d " % (w.jobid, name, "gpu", st, ec, s, e, w.nn))
        o.add("%12s %10s %10s %10s %8s %19s %19s %8d " % ("%d.batch" % w.jobid, "batch", "", st if st != "PREEMPTED" else "CANCELLED", ec, s, e, 1))
        o.add("%12s %10s %10s %10s %8s %19s %19s %8d " % ("%d.0" % w.jobid, "python3", "", st if st not in ("PREEMPTED", "TIMEOUT") else "CANCELLED", ec, s, e, w.nn))

    def r_torchrun(self):
        S, w, rng = self.S, self.w, self.rng
        mode = rng.choice(["tee", "logdir"])
        runid = rng.choice(["none_%s" % hexid(rng, 8), "%d" % w.jobid, "llm-%s" % hexid(rng, 6)])
        for h in S.nodes_inc:
            base = "%s/" % h
            con = self.new(base + rng.choice(["torchrun.log", "console.log", "launcher.out"]))
            for e in self.evs(lambda e: (e.src == "agent" and e.sid == h) or (e.src == "rank" and w.host(e.sid) == h) or e.src == "note"):
                if e.src == "agent":
                    con.add(self.txt(e), e.tags)
                elif e.src == "note":
                    con.add(self.txt(e))
                elif mode == "tee":
                    con.add("[default%d]:%s" % (w.lr(e.sid), self.txt(e)), self.tags_for(e, False, True))
            self.trim(con, 4000, 250000)
            if mode == "logdir":
                for r in w.node_ranks(h):
                    for chan, fn in (("out", "stdout.log"), ("err", "stderr.log")):
                        o = self.new("%slogs/%s/attempt_0/%d/%s" % (base, runid, w.lr(r), fn))
                        for e in self.evs(lambda e: e.src == "rank" and e.sid == r and (e.chan == chan or (chan == "err" and e.chan not in ("out",)))):
                            o.add(self.txt(e), self.tags_for(e, False, True))
                        self.trim(o, 2500, 120000)
            if h in S.kern_hosts:
                self.kern_file(base + "dmesg.txt", h)
        for h in S.kern_hosts:
            if h not in S.nodes_inc:
                self.kern_file("%s/dmesg.txt" % h, h)
        sch = self.evs(lambda e: e.src == "sched")
        if sch:
            o = self.new("slurm-%d.out" % w.jobid)
            for e in sch:
                o.add(self.txt(e), e.tags)
        self.extras_common("", host_dir=lambda h: "%s/" % h)

    def r_k8s(self):
        S, w, rng = self.S, self.w, self.rng
        job = w.k8s_job
        ns = rng.choice(["training", "ml", "research", "team-llm"])
        self.k8s_prio = rng.choice([0, 1000, 100000])
        self.k8s_image = rng.choice(["nvcr.io/nvidia/pytorch:24.05-py3", "nvcr.io/nvidia/nemo:24.07", "us-docker.pkg.dev/ml-infra/train:%s" % hexid(rng, 7),
                                     "%s.dkr.ecr.us-west-2.amazonaws.com/llm-train:v%d.%d" % (rng.randint(10 ** 11, 10 ** 12 - 1), rng.randint(1, 5), rng.randint(0, 30))])
        pods = w.pods
        ts = rng.random() < 0.35
        described = []
        for h in S.nodes_inc:
            if rng.random() < 0.6 or (S.init_node == h and rng.random() < 0.8):
                described.append(h)
        for h in S.nodes_inc:
            pod = pods[h]
            o = self.new("logs/%s.log" % pod)
            hc = h in described
            for e in self.evs(lambda e: (e.src == "agent" and e.sid == h) or (e.src == "rank" and w.host(e.sid) == h)):
                pre = ""
                if ts:
                    pre = tfmt(S.local_dt(e), "%Y-%m-%dT%H:%M:%S.%f9") + "Z "
                if e.src == "agent":
                    o.add(pre + self.txt(e), e.tags if hc else [t for t in e.tags if not t.startswith("map")])
                else:
                    o.add(pre + "[default%d]:%s" % (w.lr(e.sid), self.txt(e)), self.tags_for(e, False, hc))
            self.trim(o, 5000, 260000)
        for h in described:
            self.describe(pods[h], h, ns, job)
        self.events_file(pods, ns, described)
        for h in S.kern_hosts:
            self.kern_file("nodes/%s/dmesg.txt" % h, h)
        self.extras_common("", host_dir=lambda h: "nodes/%s/" % h)

    def pod_state(self, h):
        S, w = self.S, self.w
        rs = w.node_ranks(h)
        if S.final == "RUNNING":
            return ("Running", None, None)
        if S.final == "COMPLETED":
            return ("Terminated", "Completed", 0)
        if getattr(S, "preempt_node", None) == h:
            return ("Terminated", "Terminated", 143)
        ex = [S.exits[r] for r in rs if r in S.exits]
        if any(x[1] == "signal" and x[2] == "SIGTERM" for x in ex) and S.final == "PREEMPTED":
            return ("Terminated", "Error", 143)
        return ("Terminated", "Error", 1)

    def describe(self, pod, h, ns, job):
        S, w, rng = self.S, self.w, self.rng
        o = self.new("describe/%s.txt" % pod)
        st, reason, code = self.pod_state(h)
        start = S.at(0, h)
        o.add("Name:             %s" % pod)
        o.add("Namespace:        %s" % ns)
        o.add("Priority:         %d" % self.k8s_prio)
        o.add("Service Account:  default")
        o.add("Node:             %s/%s" % (w.node_fqdn.get(h, h), w.ips[h]), ("nodemap:%s" % h,))
        o.add("Start Time:       %s" % start.strftime("%a, %d %b %Y %H:%M:%S +0000"))
        ni = w.nodes.index(h)
        o.add("Labels:           training.kubeflow.org/job-name=%s" % job)
        o.add("                  training.kubeflow.org/replica-index=%d" % (ni if "workers-0" in pod else max(0, ni - 1)))
        o.add("                  training.kubeflow.org/replica-type=%s" % ("master" if pod.endswith("master-0") else "worker"))
        o.add("Status:           %s" % ("Running" if st == "Running" else ("Succeeded" if code == 0 else "Failed")))
        if getattr(S, "preempt_node", None) == h:
            o.add("Reason:           Terminated", ("P",))
            o.add("Message:          Pod was terminated in response to imminent node shutdown.", ("P",))
        o.add("IP:               10.%d.%d.%d" % (rng.randint(0, 255), rng.randint(0, 255), rng.randint(2, 250)))
        o.add("Containers:")
        o.add("  pytorch:")
        o.add("    Container ID:  containerd://%s" % hexid(rng, 64))
        o.add("    Image:         %s" % self.k8s_image)
        o.add("    Command:")
        o.add("      torchrun")
        o.add("      --nnodes=%d" % w.nn)
        o.add("      --nproc-per-node=%d" % w.gpn)
        o.add("      %s" % S.script_name())
        o.add("    State:          %s" % st)
        if st != "Running":
            o.add("      Reason:       %s" % reason)
            o.add("      Exit Code:    %d" % code)
            o.add("      Started:      %s" % start.strftime("%a, %d %b %Y %H:%M:%S +0000"))
            fin = max([S.exits[r][0] for r in w.node_ranks(h) if r in S.exits] + [0.0]) + rng.uniform(1, 4)
            o.add("      Finished:     %s" % S.at(fin if fin > 5 else (S.t_end or 0), h).strftime("%a, %d %b %Y %H:%M:%S +0000"))
        o.add("    Ready:          %s" % ("True" if st == "Running" else "False"))
        o.add("    Restart Count:  0")
        o.add("    Limits:")
        o.add("      nvidia.com/gpu:  %d" % w.gpn)
        o.add("      rdma/ib:         %d" % min(8, w.gpn))
        o.add("Events:                      <none>")

    def events_file(self, pods, ns, described):
        S, w, rng = self.S, self.w, self.rng
        o = self.new("events.txt")
        o.add("LAST SEEN   TYPE      REASON             OBJECT                                   MESSAGE")
        rows = []
        if rng.random() < 0.3:
            for h in w.nodes[:12]:
                rows.append((S.t_end - rng.uniform(3000, 5000), "Normal", "Scheduled", "pod/%s" % pods[h],
                             "Successfully assigned %s/%s to %s" % (ns, pods[h], w.node_fqdn.get(h, h)), ("nodemap:%s" % h,)))
        pn = getattr(S, "preempt_node", None)
        if pn:
            if w.style == "aws":
                rows.append((S.t_end - 60, "Warning", "SpotInterruption", "node/%s" % w.node_fqdn.get(pn, pn),
                             "Spot Interruption notice for instance i-0%s was sent at %s" % (hexid(rng, 16), tfmt(S.at(S.t_end - 180, pn), "%Y-%m-%d %H:%M:%S +0000 UTC")), ("PN",)))
            else:
                rows.append((S.t_end - 60, "Warning", "NodeNotReady", "node/%s" % w.node_fqdn.get(pn, pn), "Node is not ready", ("PN",)))
            rows.append((S.t_end - 50, "Normal", "Killing", "pod/%s" % pods[pn], "Stopping container pytorch", ()))
        if S.final == "FAILED":
            rows.append((S.t_end, "Normal", "ExitedWithCode", "pytorchjob/%s" % pods[w.nodes[0]].rsplit("-", 2)[0],
                         "Pod: %s.%s exited with code 1" % (ns, pods[w.nodes[0]]), ()))
            rows.append((S.t_end + 5, "Warning", "PyTorchJobFailed", "pytorchjob/%s" % pods[w.nodes[0]].rsplit("-", 2)[0],
                         "PyTorchJob %s/%s has failed because %d Worker replica(s) failed." % (ns, pods[w.nodes[0]].rsplit("-", 2)[0], max(1, w.nn - 1)), ()))
        if S.final == "COMPLETED":
            rows.append((S.t_end, "Normal", "PyTorchJobSucceeded", "pytorchjob/%s" % pods[w.nodes[0]].rsplit("-", 2)[0], "PyTorchJob is successfully completed.", ()))
        rows.sort(key=lambda x: x[0])
        now = (S.t_end or 0) + rng.uniform(120, 1800)
        for (t, ty, rs, obj, msg, tg) in rows:
            age = int(now - t)
            ag = "%dm" % (age // 60) if age < 7200 else "%dh" % (age // 3600)
            o.add("%-11s %-9s %-18s %-40s %s" % (ag, ty, rs, obj, msg), tg)

    def r_deepspeed(self):
        S, w, rng = self.S, self.w, self.rng
        o = self.new(rng.choice(["train.log", "ds_train.out", "run.log"]))
        o.add("[@T]".replace("[@T]", "") + "%s [INFO] [runner.py:%d:main] cmd = pdsh -S -f 1024 -w %s export NCCL_DEBUG=%s; cd /workspace; /usr/bin/%s -u -m deepspeed.launcher.launch --world_info=%s --node_rank=%%n --master_addr=%s --master_port=29500 %s --deepspeed --deepspeed_config ds_config.json"
              % (tfmt(S.at(0, w.nodes[0]), "[%Y-%m-%d %H:%M:%S,%f3]"), rng.choice([568, 585, 607]), ",".join(w.nodes[:8]) + ("..." if w.nn > 8 else ""),
                 "INFO" if S.nccl_info else "WARN", w.py, hexid(rng, 40), w.nodes[0], S.script_name()))
        for e in self.evs(lambda e: e.src in ("rank", "agent", "sched", "note")):
            if e.src == "rank":
                o.add("%s: %s" % (w.host(e.sid), self.txt(e)), self.tags_for(e, False, True))
            elif e.src == "agent":
                o.add("%s: %s" % (e.sid, self.txt(e)), e.tags)
            else:
                o.add(self.txt(e), e.tags)
        self.trim(o, 6000, 420000)
        hf = self.new("hostfile")
        for h in w.nodes[:64]:
            hf.add("%s slots=%d" % (h, w.gpn))
        if w.nn > 64:
            hf.add("# ... %d more hosts" % (w.nn - 64))
        cf = self.new("ds_config.json")
        cfg = {"train_batch_size": S.gbs, "gradient_clipping": 1.0, "steps_per_print": 10,
               "zero_optimization": {"stage": rng.choice([1, 2, 3]), "overlap_comm": True}}
        if w.dtype == "fp16":
            cfg["fp16"] = {"enabled": True, "loss_scale": 0, "initial_scale_power": 16, "loss_scale_window": 1000, "hysteresis": 2, "min_loss_scale": 1}
        else:
            cfg["bf16"] = {"enabled": True}
        for line in json.dumps(cfg, indent=2).split("\n"):
            cf.add(line)
        for h in S.kern_hosts:
            self.kern_file("dmesg_%s.txt" % h, h)
        self.extras_common("")

    def r_paste(self):
        S, w, rng = self.S, self.w, self.rng
        o = self.new(rng.choice(["issue.md", "paste.txt", "report.md"]))
        fwname = {"megatron": "Megatron-LM", "deepspeed": "DeepSpeed", "hf": "HF Trainer + accelerate", "ddp": "plain DDP", "fsdp": "torchtitan / FSDP2"}[w.framework]
        titles = ["Loss goes NaN and then the job dies", "Training crashes after a loss spike", "NaN / inf grad norm then NCCL timeout",
                  "Job fails after ~%dk steps, numbers look weird before" % max(1, (S.s_step or 0) // 1000),
                  "Random crash in multi-node training (%s, %s)" % (fwname, w.dtype), "Help: loss spikes, overflow messages, then nothing"]
        if S.healthy or S.final in ("COMPLETED", "RUNNING"):
            titles = ["Is this normal? lots of overflow / NaN warnings", "Scary messages during training - should I worry?",
                      "Throughput dropped by half mid-run", "Loss spikes + warnings, is my run broken?"]
        o.add("## " + rng.choice(titles))
        o.add("")
        prose = [
            "We are training on %d x %s (%d nodes). " % (w.n, w.gpu_model.replace("NVIDIA ", ""), w.nn),
            rng.choice(["Everything looked fine for a few hours.", "The loss curve was noisy but going down.",
                        "We resumed from a checkpoint this morning.", "This is the third time this week."]),
            " " + rng.choice(["I cut the logs down to what looked relevant.", "Logs are trimmed, full ones are 2GB.",
                             "Only some ranks' logs are attached, the rest look the same.", "Sorry for the long paste."]),
        ]
        guess = rng.choice(["", " My guess is the learning rate is too high?", " Could this be an NCCL bug?", " Maybe bf16 vs fp16 issue?",
                            " Our infra team says the nodes are fine.", " I suspect the data."])
        o.add("".join(prose) + guess)
        o.add("")
        o.add("**Env:** torch %s, NCCL %s, driver %s, %s, %s" % (w.torch, w.nccl, w.driver, fwname, w.dtype))
        o.add("")

        def block(title, evs, explicit, hostctx, max_lines):
            o.add(title)
            o.add("```")
            lines = []
            for e in evs:
                lines.append((self.txt(e), self.tags_for(e, explicit, hostctx)))
            tmp = Out("x")
            tmp.lines = lines
            self.trim(tmp, max_lines, 40000, head=min(8, max_lines // 4), tail=max_lines // 2)
            o.lines.extend(tmp.lines)
            o.add("```")
            o.add("")
        lr = S.logrank
        ev_log = self.evs(lambda e: e.src == "rank" and e.sid == lr)
        block("Output of rank %d (the one that logs):" % lr, ev_log, True, False, rng.randint(30, 70))
        for r in S.vis_list:
            if r in (lr,):
                continue
            evs = self.evs(lambda e, r=r: e.src == "rank" and e.sid == r)
            if not evs:
                continue
            if r == S.init_rank or rng.random() < 0.6:
                hc = rng.random() < 0.5
                title = ("Rank %d (on %s):" % (r, w.host(r))) if hc else ("rank %d:" % r)
                block(title, evs, True, hc, rng.randint(25, 60))
        for h in S.kern_hosts[:2]:
            evs = self.evs(lambda e, h=h: e.src == "kern" and e.sid == h)
            if evs:
                o.add("`dmesg -T` on %s:" % h if self.kstyle[h] == "dmesgT" else "dmesg on %s:" % h)
                o.add("```")
                for e in evs[-25:]:
                    o.add(self.kline(e), e.tags)
                o.add("```")
                o.add("")
        ag = self.evs(lambda e: e.src in ("agent", "sched"))
        if ag:
            tail = ag[-rng.randint(8, 40):]
            o.add(rng.choice(["And the launcher at the end:", "End of the job output:", "Last lines from the launcher:"]))
            o.add("```")
            for e in tail:
                pre = "%s: " % e.sid if (e.src == "agent" and S.launcher == "deepspeed") else ""
                o.add(pre + self.txt(e), e.tags)
            o.add("```")
            o.add("")
        for key in sorted(S.extra):
            x = S.extra[key]
            kind, _, arg = key.partition(":")
            lab = {"dcgm": "`dcgmi diag -r 3` on %s afterwards:" % arg, "smi": "`nvidia-smi -q` on %s:" % arg,
                   "prom": "dcgm-exporter scrape:", "pyspy": "py-spy dump of rank %s while it was stuck:" % arg,
                   "frtrace": "Flight recorder analysis:"}[kind]
            text = x["text"].split("\n")
            if kind == "smi":
                text = [t for t in text if t.strip()][:200]
            if kind == "prom":
                text = [t for t in text if not t.startswith("#")][:80]
            o.add(lab)
            o.add("```")
            for t in text:
                o.add(t, x["tags"])
            o.add("```")
            o.add("")

    def r_triage(self):
        S, w, rng = self.S, self.w, self.rng
        man = self.new("MANIFEST.txt")
        man.add("gpu-triage collector v%d.%d  collected %s" % (rng.randint(1, 3), rng.randint(0, 9), tfmt(S.at((S.t_end or 0) + 900, w.nodes[0]), "%Y-%m-%d %H:%M:%S")))
        man.add("job: %d   nodes: %d x %d GPU   state: %s" % (w.jobid, w.nn, w.gpn, S.final))
        man.add("nodelist: %s" % compress_hosts(w.nodes))
        man.add("launcher: %s   framework: %s   torch %s   nccl %s   driver %s" % (S.launcher, w.framework, w.torch, w.nccl, w.driver))
        man.add("")
        # ranks the collector picked: the logging rank + earliest non-zero exits it could see
        bad = sorted((S.exits[r][0], r) for r in S.vis_list if r in S.exits and S.exitcode(r) != 0)
        picked = [r for _, r in bad[:3]]
        if S.init_rank is not None and S.init_rank in S.vis and S.init_rank not in picked and rng.random() < 0.8:
            picked.append(S.init_rank)
        man.add("files:")
        hdr = rng.random() < 0.7
        o = self.new("logs/rank%d.log" % S.logrank)
        man.add("  logs/rank%d.log        stdout+stderr of the metrics rank" % S.logrank)
        for e in self.evs(lambda e: e.src == "rank" and e.sid == S.logrank):
            o.add(self.txt(e), self.tags_for(e, True, False))
        self.trim(o, 3000, 200000)
        for r in picked:
            if r == S.logrank:
                continue
            o = self.new("logs/failed/rank%d.log" % r)
            man.add("  logs/failed/rank%d.log  (exit %s)" % (r, S.exitcode(r) if r in S.exits else "?"))
            if hdr:
                o.add("# rank %d  host %s  local_rank %d  exit %s" % (r, w.host(r), w.lr(r), S.exitcode(r) if r in S.exits else "?"), ("map:%d" % r,))
            for e in self.evs(lambda e, r=r: e.src == "rank" and e.sid == r):
                o.add(self.txt(e), self.tags_for(e, True, hdr))
            self.trim(o, 1500, 120000)
        la = self.evs(lambda e: e.src in ("agent", "sched", "note"))
        if la:
            o = self.new("launcher.log")
            man.add("  launcher.log          launcher / scheduler messages")
            for e in la:
                pre = "%s: " % e.sid if e.src == "agent" else ""
                o.add(pre + self.txt(e), e.tags)
            self.trim(o, 2000, 150000)
        for h in S.kern_hosts:
            self.kern_file("nodes/%s/kern.log" % h, h)
            man.add("  nodes/%s/kern.log" % h)
        self.extras_common("metrics/", host_dir=lambda h: "nodes/%s/" % h)


# ----------------------------------------------------------------------------
# truth
# ----------------------------------------------------------------------------

def survived(files):
    seen = set()
    for f in files:
        for line, tags in f.lines:
            for t in tags:
                seen.add(t)
    return seen


def have(tag, seen, R):
    if tag in seen:
        return True
    if tag + "@loc" in seen and R is not None and ("map:%d" % R) in seen:
        return True
    return False


def truth_for(S, files):
    seen = survived(files)
    R, H = S.init_rank, S.init_node
    rank_ok = False
    node_ok = False
    if R is not None:
        for g in S.rank_groups:
            if g and all(have(t, seen, R) for t in g):
                rank_ok = True
                break
    k8s = S.layout == "k8s"
    nm = ("nodemap:%s" % H) in seen
    if H is not None:
        for g in S.node_groups:
            if g and all(have(t, seen, R) for t in g):
                if k8s and any(t in ("RN", "N", "P") for t in g) and not nm:
                    continue
                node_ok = True
                break
        if not node_ok and "hostline" in seen:
            node_ok = True
        if not node_ok and rank_ok and R is not None:
            if ("hostctx:%d" % R) in seen or (("map:%d" % R) in seen and (nm or not k8s)):
                node_ok = True
    if R is not None and not rank_ok and any(g == ("M", "Mr") for g in S.rank_groups):
        # mismatch reports from two different ranks that both name R as the odd one
        if len([t for t in seen if t.startswith("M:")]) >= 2:
            rank_ok = True
    if R is not None and not rank_ok and ("exit:%d" % R) in seen and R in S.exits and S.final == "FAILED":
        # the launcher shows R exiting first and differently from everybody else
        mine = (S.exits[R][1], S.exits[R][2])
        others = [(S.exits[r][1], S.exits[r][2]) for r in S.exits if r != R]
        first = min(S.exits[r][0] for r in S.exits if S.exitcode(r) != 0 and S.exits[r][2] not in ("SIGTERM", "SIGKILL") or r == R)
        if mine not in others and S.exits[R][0] <= first + 1e-6 and S.exitcode(R) != 0:
            rank_ok = True
            if ("hostctx:%d" % R) in seen or (("map:%d" % R) in seen and (nm or not k8s)):
                node_ok = True
    if R is not None and not rank_ok and S.silent_rank == R and S.w.n >= 3:
        # every other rank reported the timeout, only R stayed silent
        if ("wd:%d" % R) not in seen and all(("wd:%d" % r) in seen for r in range(S.w.n) if r != R):
            rank_ok = True
            if ("hostctx:%d" % R) in seen or (("map:%d" % R) in seen and (nm or not k8s)):
                node_ok = True
    ini = None
    if rank_ok or node_ok:
        ini = {"rank": R if rank_ok else None, "node": H if node_ok else None}
    return ini


# ----------------------------------------------------------------------------
# driver
# ----------------------------------------------------------------------------

def write_files(outdir, files):
    total = 0
    for f in files:
        p = os.path.join(outdir, f.path)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        data = "\n".join(x[0] for x in f.lines) + "\n"
        with open(p, "w", encoding="utf-8") as fh:
            fh.write(data)
        total += len(data.encode("utf-8"))
    return total


def build_run(seed, i, cause, layout):
    healthy = cause is None
    rng = random.Random("blind61:%s:%d" % (seed, i))
    need = 2 if cause in ("network", "preemption") else 1
    if layout in ("torchrun", "k8s") and rng.random() < 0.5:
        need = max(need, 2)
    w = World(rng, layout, need_nodes=need)
    S = Scn(rng, w, layout, cause, healthy, i)
    S.run_name = rng.choice(["gpt3-7b", "llama-13b-pt", "moe-8x7b", "run%03d" % rng.randint(1, 999), "exp-%s" % hexid(rng, 6)])
    if healthy:
        sc_healthy(S)
    else:
        SCENARIOS[cause](S)
    files = Renderer(S).render()
    # global size guard
    for _ in range(6):
        size = sum(sum(len(x[0]) + 1 for x in f.lines) for f in files)
        if size < 900000:
            break
        big = max(files, key=lambda f: sum(len(x[0]) + 1 for x in f.lines))
        rr = Renderer(S)
        rr.trim(big, max(200, len(big.lines) // 2), 200000)
    return S, files


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args()
    seed = str(a.seed)
    order = list(CAUSES)
    random.Random("blind61-order:%s" % seed).shuffle(order)
    lay_order = list(LAYOUTS)
    random.Random("blind61-layouts:%s" % seed).shuffle(lay_order)
    os.makedirs(a.out, exist_ok=True)
    counts = {c: 0 for c in CAUSES}
    counts["healthy"] = 0
    j = 0
    for i in range(a.n):
        if i % 7 == 3:
            cause = None
        else:
            cause = order[j % len(order)]
            j += 1
        layout = lay_order[(i + (i // len(lay_order))) % len(lay_order)]
        S, files = build_run(seed, i, cause, layout)
        name = "run-%03d-%s" % (i, layout)
        d = os.path.join(a.out, name)
        if os.path.isdir(d):
            shutil.rmtree(d)
        os.makedirs(d)
        write_files(d, files)
        ini = None if cause is None else truth_for(S, files)
        if cause is None:
            counts["healthy"] += 1
        else:
            counts[cause] += 1
        truth = {"healthy": cause is None, "cause": cause, "initiator": ini, "layout": layout, "notes": S.notes}
        with open(os.path.join(d, "truth.json"), "w") as fh:
            json.dump(truth, fh, indent=2)
            fh.write("\n")
    print(json.dumps(counts, indent=2))


if __name__ == "__main__":
    main()
