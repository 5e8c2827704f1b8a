#!/usr/bin/env python3
"""blind27: synthetic log bundles of distributed training jobs on Chinese cloud/AI
platforms and stacks (PAI-DLC, Volcano Engine ML platform, Huawei ModelArts / Ascend
910B, Slurm-managed Ascend clusters, PaddlePaddle launch, ColossalAI on Kubernetes,
ms-swift/DeepSpeed via pdsh), failed or healthy, each run with a truth.json.

Written blind: without reading the diagnosis tool's code, rules, tests or corpus.
Standard library only.  Deterministic for a given --seed.

    python3 gen_blind27.py --out DIR --n 60 --seed S
"""
import argparse
import datetime as _dt
import json
import math
import os
import random
import sys

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill",
          "crash_signal", "preemption", "hang", "data_loader_stall",
          "collective_mismatch", "straggler", "unknown"]
DRAIN_CAUSES = ("gpu_hardware", "ecc_memory", "nvlink", "network")
LAYOUTS = ["pai_dlc", "volc_mlp", "modelarts_ascend", "ascend_slurm",
           "paddle_launch", "colossalai_k8s", "swift_pdsh"]
GEN_NAME = "blind27"


# ----------------------------------------------------------------------------
# small helpers
# ----------------------------------------------------------------------------
def pick(rng, seq):
    return seq[rng.randrange(len(seq))]


def chance(rng, p):
    return rng.random() < p


def hexs(rng, n):
    return "".join(pick(rng, "0123456789abcdef") for _ in range(n))


def alnum(rng, n):
    return "".join(pick(rng, "abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(n))


def dtz(t, tzh):
    return _dt.datetime.fromtimestamp(t, tz=_dt.timezone(_dt.timedelta(hours=tzh)))


def f_ymd(t, tzh, ms=True, sep=" ", msep=","):
    d = dtz(t, tzh)
    s = d.strftime("%Y-%m-%d" + sep + "%H:%M:%S")
    if ms:
        s += "%s%03d" % (msep, d.microsecond // 1000)
    return s


def f_iso(t, tzh, ms=True):
    d = dtz(t, tzh)
    s = d.strftime("%Y-%m-%dT%H:%M:%S")
    if ms:
        s += ".%03d" % (d.microsecond // 1000)
    if tzh == 0:
        return s + "Z"
    return s + ("+%02d:00" % tzh)


def f_glog(t, tzh):
    """glog style: MMDD HH:MM:SS.uuuuuu"""
    d = dtz(t, tzh)
    return d.strftime("%m%d %H:%M:%S") + ".%06d" % d.microsecond


def f_c10(t, tzh):
    """c10 logging (torch >= 2.4): month*100+day, then nanoseconds"""
    d = dtz(t, tzh)
    ns = d.microsecond * 1000 + (int(t * 1e9) % 1000)
    return "%d %s.%09d" % (d.month * 100 + d.day, d.strftime("%H:%M:%S"), ns)


def f_pylog(t, tzh):
    """torch elastic python logging (>= 2.4): MMDD HH:MM:SS.mmm000"""
    d = dtz(t, tzh)
    return d.strftime("%m%d %H:%M:%S") + ".%03d000" % (d.microsecond // 1000)


def f_asc(t, tzh):
    d = dtz(t, tzh)
    return d.strftime("%Y-%m-%d-%H:%M:%S") + ".%03d.%03d" % (d.microsecond // 1000, d.microsecond % 1000)


def f_asc_s(t, tzh):
    return dtz(t, tzh).strftime("%Y-%m-%d-%H:%M:%S")


def f_dmesg_T(t, tzh):
    d = dtz(t, tzh)
    return "[%s %s %2d %s %d]" % (d.strftime("%a"), d.strftime("%b"), d.day, d.strftime("%H:%M:%S"), d.year)


def f_syslog(t, tzh):
    d = dtz(t, tzh)
    return "%s %2d %s" % (d.strftime("%b"), d.day, d.strftime("%H:%M:%S"))


def f_ctime(t, tzh):
    d = dtz(t, tzh)
    return "%s %s %2d %s %d" % (d.strftime("%a"), d.strftime("%b"), d.day, d.strftime("%H:%M:%S"), d.year)


def f_hms_dur(sec):
    sec = int(max(0, sec))
    h, r = divmod(sec, 3600)
    m, s = divmod(r, 60)
    if h:
        return "%d:%02d:%02d" % (h, m, s)
    return "%02d:%02d" % (m, s)


def tqdm_bar(i, n, elapsed, rate_s, prefix=""):
    frac = i / float(n)
    pct = int(frac * 100)
    fill = frac * 10
    full = int(fill)
    parts = " ▏▎▍▌▋▊▉"
    bar = "█" * full
    if full < 10:
        bar += parts[int((fill - full) * 8)]
        bar += " " * (10 - len(bar))
    remain = (n - i) * rate_s
    return "%s%3d%%|%s| %d/%d [%s<%s, %5.2fs/it]" % (prefix, pct, bar, i, n, f_hms_dur(elapsed),
                                                     f_hms_dur(remain), rate_s)


def mojibake(s):
    """UTF-8 text that went through a GBK decoder (classic 'opened as GBK' damage)."""
    return s.encode("utf-8").decode("gbk", errors="replace")


def has_cjk(s):
    for ch in s:
        if "\u4e00" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef":
            return True
    return False


def traceback_block(frames, exc_lines, prefix=""):
    out = [prefix + "Traceback (most recent call last):"]
    for fr in frames:
        f, ln, fn, code = fr
        out.append('%s  File "%s", line %d, in %s' % (prefix, f, ln, fn))
        if code:
            out.append("%s    %s" % (prefix, code))
    for e in exc_lines:
        out.append(prefix + e)
    return "\n".join(out)


SIGNAMES = {6: "SIGABRT", 9: "SIGKILL", 11: "SIGSEGV", 15: "SIGTERM", 7: "SIGBUS"}


# ----------------------------------------------------------------------------
# job model
# ----------------------------------------------------------------------------
class Node(object):
    pass


class Rank(object):
    pass


GPU_INFO = {
    # name, torch total GiB, nvidia-smi MiB, max power, has nvlink
    "A800": ("NVIDIA A800-SXM4-80GB", 79.15, 81920, 400, True),
    "H800": ("NVIDIA H800", 79.11, 81559, 700, True),
    "H20": ("NVIDIA H20", 94.99, 97871, 500, True),
    "4090": ("NVIDIA GeForce RTX 4090", 23.64, 24564, 450, False),
    "910B3": ("910B3", 60.96, 65536, 0, True),
    "910B2": ("910B2", 60.96, 65536, 0, True),
}

BUS_TEMPLATES = [
    ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"],
    ["0e", "13", "49", "4f", "91", "97", "cb", "d1"],
    ["1b", "23", "3b", "43", "9e", "a5", "bb", "c3"],
    ["4f", "52", "56", "57", "ce", "d1", "d5", "d6"],
]
NPU_BUS = ["C1", "C2", "81", "82", "01", "02", "41", "42"]

TORCH_NCCL = {
    "2.1.2": "2.18.6+cuda12.1", "2.3.1": "2.20.5+cuda12.1", "2.4.1": "2.20.5+cuda12.4",
    "2.5.1": "2.21.5+cuda12.4", "2.6.0": "2.21.5+cuda12.4", "2.7.1": "2.26.2+cuda12.6",
    "2.8.0": "2.27.3+cuda12.8",
}
TORCH_NPU = {"2.1.0": "2.1.0.post10", "2.4.0": "2.4.0.post2", "2.5.1": "2.5.1.post1", "2.6.0": "2.6.0rc1"}
CANN = ["8.0.RC2", "8.0.RC3", "8.0.0", "8.1.RC1"]


def tver(s):
    p = s.split(".")
    return (int(p[0]), int(p[1]))


LAYOUT_SPECS = {
    "pai_dlc": dict(accel="cuda", gpus=["A800", "H800", "H20"], nnodes=[1, 2, 4, 8, 16, 32, 64],
                    gpn=[8], fw=["megatron", "hf"], torch=["2.1.2", "2.3.1", "2.4.1", "2.5.1"]),
    "volc_mlp": dict(accel="cuda", gpus=["H800", "H20", "A800", "4090"], nnodes=[1, 2, 4, 8, 16],
                     gpn=[8], fw=["hf"], torch=["2.3.1", "2.4.1", "2.5.1", "2.6.0", "2.7.1"]),
    "modelarts_ascend": dict(accel="npu", gpus=["910B3", "910B2"], nnodes=[1, 2, 4, 8, 16, 32],
                             gpn=[8], fw=["megatron", "hf"], torch=["2.1.0", "2.4.0", "2.5.1"]),
    "ascend_slurm": dict(accel="npu", gpus=["910B3", "910B2"], nnodes=[1, 2, 4, 8],
                         gpn=[8], fw=["swift"], torch=["2.1.0", "2.4.0", "2.5.1", "2.6.0"]),
    "paddle_launch": dict(accel="cuda", gpus=["A800", "H800", "4090"], nnodes=[1, 2, 4, 8],
                          gpn=[8], fw=["paddlenlp"], torch=[]),
    "colossalai_k8s": dict(accel="cuda", gpus=["H800", "A800", "4090", "H20"], nnodes=[1, 2, 4, 8, 16],
                           gpn=[8], fw=["colossal"], torch=["2.1.2", "2.3.1", "2.4.1", "2.5.1"]),
    "swift_pdsh": dict(accel="cuda", gpus=["H800", "H20", "A800", "4090"], nnodes=[1, 2, 4, 8],
                       gpn=[8], fw=["swift"], torch=["2.4.1", "2.5.1", "2.6.0", "2.7.1", "2.8.0"]),
}


class Job(object):
    def __init__(self, idx, seed, layout, cause, healthy, shrink=0):
        self.idx = idx
        self.shrink = shrink
        self.seed_str = "%s|%s|%d|%s|%s|%d" % (GEN_NAME, seed, idx, layout, cause, shrink)
        self.layout = layout
        self.cause = cause
        self.healthy = healthy
        self.rng = random.Random(self.seed_str)
        self.notes = []
        self.decoys = []
        rng = self.rng
        spec = LAYOUT_SPECS[layout]
        self.accel = spec["accel"]
        self.fw = pick(rng, spec["fw"])
        gpus = list(spec["gpus"])
        if cause == "nvlink":
            gpus = [g for g in gpus if GPU_INFO[g][4]]
        self.gpu = pick(rng, gpus)
        self.gpu_full, self.gpu_gib, self.gpu_mib, self.gpu_pmax, _nv = GPU_INFO[self.gpu]
        nn = list(spec["nnodes"])
        if self.gpu == "4090":
            nn = [x for x in nn if x <= 4]
        if cause == "network":
            nn = [x for x in nn if x >= 2]
        # weight toward smaller jobs but keep big ones
        w = [1.0 / (1 + 0.35 * k) for k in range(len(nn))]
        self.nnodes = rng.choices(nn, weights=w)[0]
        self.gpn = pick(rng, spec["gpn"])
        if self.nnodes == 1 and chance(rng, 0.3) and cause not in ("nvlink",):
            self.gpn = pick(rng, [2, 4])
        if self.gpu == "4090" and self.nnodes == 1 and chance(rng, 0.3):
            self.gpn = pick(rng, [2, 4])
        self.world = self.nnodes * self.gpn
        if layout == "paddle_launch":
            self.paddle_ver = pick(rng, ["2.6.1", "3.0.0b2", "3.0.0"])
            self.nccl = pick(rng, ["2.18.3", "2.19.3", "2.21.5"])
            self.tvs = None
            self.tv = (0, 0)
        else:
            self.tvs = pick(rng, spec["torch"])
            self.tv = tver(self.tvs)
            if self.accel == "cuda":
                self.nccl = TORCH_NCCL[self.tvs]
            else:
                self.torch_npu = TORCH_NPU.get(self.tvs, "2.4.0.post2")
                self.cann = pick(rng, CANN)
                self.nccl = None
        self.pyver = pick(rng, ["3.10", "3.10", "3.11"])
        if self.accel == "npu":
            self.sitepk = "/usr/local/python%s.%d/lib/python%s/site-packages" % (
                self.pyver, 13 if self.pyver == "3.10" else 10, self.pyver)
            if layout == "modelarts_ascend":  # ModelArts images ship conda envs
                self.sitepk = "/home/ma-user/anaconda3/envs/PyTorch-%s/lib/python%s/site-packages" % (
                    self.tvs, self.pyver)
        elif layout in ("volc_mlp", "swift_pdsh", "colossalai_k8s"):
            self.sitepk = pick(rng, ["/usr/local/lib/python%s/dist-packages" % self.pyver,
                                     "/opt/conda/lib/python%s/site-packages" % self.pyver])
        else:
            self.sitepk = "/usr/local/lib/python%s/dist-packages" % self.pyver
        self.python_bin = "/usr/bin/python" if "dist-packages" in self.sitepk else (
            "/opt/conda/bin/python" if "conda" in self.sitepk else "/usr/local/bin/python3")
        # timeouts
        if self.accel == "npu":
            self.coll_timeout = pick(rng, [1800, 1836, 1200, 3600])
        else:
            self.coll_timeout = pick(rng, [600, 1800, 1800, 3600])
        # time base (UTC epoch) -- between 2024-06 and 2025-09
        base = _dt.datetime(2024, 6, 1, tzinfo=_dt.timezone.utc).timestamp()
        self.t0 = base + rng.randrange(0, 460) * 86400 + rng.randrange(0, 86400) + rng.random()
        self.container_tz = 0 if layout in ("pai_dlc", "volc_mlp", "colossalai_k8s", "paddle_launch") else 8
        if layout in ("pai_dlc", "volc_mlp") and chance(rng, 0.3):
            self.container_tz = 8
        self.user_tz = 8
        self.step_time = round(rng.uniform(1.6, 9.0), 2)
        if self.gpu == "4090":
            self.step_time = round(rng.uniform(0.8, 3.5), 2)
        self.hb_every = pick(rng, [10, 20, 25, 50])
        self.total_steps = pick(rng, [2000, 3000, 4000, 5000, 8000, 12000])
        self.master_port = pick(rng, [23456, 29500, 6000, 29400, 12355])
        self.nccl_debug_info = self.accel == "cuda" and self.world <= 32 and chance(rng, 0.65)
        self.rank_prefix = self.tv >= (2, 3)
        self.model = pick(rng, ["Qwen2.5-7B", "Qwen2.5-14B", "Qwen2-72B", "Llama-3.1-8B",
                                "Baichuan2-13B", "internlm2-chat-20b", "Yi-1.5-34B", "glm-4-9b",
                                "DeepSeek-V2-Lite", "Qwen2.5-32B"])
        self.build_nodes()

    # ------------------------------------------------------------------
    def build_nodes(self):
        rng = self.rng
        L = self.layout
        self.nodes = []
        self.job_id = ""
        bus = pick(rng, BUS_TEMPLATES)
        if L == "pai_dlc":
            self.job_id = "dlc" + alnum(rng, 13)
            region = pick(rng, ["cn-wulanchabu", "cn-shanghai", "cn-beijing", "cn-hangzhou"])
            a, b = rng.randrange(200, 240), rng.randrange(0, 16)
            for k in range(self.nnodes):
                ip = "10.%d.%d.%d" % (a, b + (k // 200), 10 + (k * 7 + rng.randrange(3)) % 240)
                name = "%s-master-0" % self.job_id if k == 0 else "%s-worker-%d" % (self.job_id, k - 1)
                self._add_node(k, name, ip, [ip, "%s.%s" % (region, ip)], bus)
        elif L == "volc_mlp":
            d = dtz(self.t0, 8)
            self.job_id = "t-%s-%s" % (d.strftime("%Y%m%d%H%M%S"), alnum(rng, 5))
            for k in range(self.nnodes):
                ip = "192.168.%d.%d" % (rng.randrange(0, 64), rng.randrange(2, 250))
                name = "%s-worker-%d" % (self.job_id, k)
                self._add_node(k, name, ip, [ip, "worker-%d" % k], bus)
        elif L == "modelarts_ascend":
            self.job_id = "modelarts-job-%s-%s-%s" % (hexs(rng, 8), hexs(rng, 4), hexs(rng, 4))
            for k in range(self.nnodes):
                ip = "172.16.%d.%d" % (rng.randrange(0, 32), rng.randrange(2, 250))
                name = "%s-worker-%d" % (self.job_id, k)
                self._add_node(k, name, ip, [ip, "worker-%d" % k], bus)
        elif L == "ascend_slurm":
            self.job_id = str(rng.randrange(10000, 990000))
            pfx = pick(rng, ["ai910b-n", "ascend-node", "npu-a", "hw910b-"])
            start = rng.randrange(1, 30)
            for k in range(self.nnodes):
                h = "%s%02d" % (pfx, start + k)
                ip = "10.10.%d.%d" % (rng.randrange(1, 8), 10 + start + k)
                self._add_node(k, h, ip, [ip], bus)
            self.slurm_pfx = pfx
            self.slurm_start = start
        elif L == "paddle_launch":
            self.job_id = "paddle-%s-%s" % (pick(rng, ["sft", "pretrain", "dpo", "lora"]), alnum(rng, 6))
            base_c = rng.randrange(1, 60)
            for k in range(self.nnodes):
                ip = "10.12.%d.%d" % (base_c, 10 + k * 3 + rng.randrange(2))
                pod = "%s-worker-%d" % (self.job_id, k)
                self._add_node(k, ip, ip, [pod], bus)
        elif L == "colossalai_k8s":
            self.job_id = "%s-%s" % (pick(rng, ["cai-llama", "colossal-sft", "cai-moe", "ppo-cai"]), alnum(rng, 5))
            nstart = rng.randrange(1, 40)
            hpfx = pick(rng, ["gpu-%s-" % self.gpu.lower(), "k8s-gpu-", "node-"])
            for k in range(self.nnodes):
                name = "%s-master-0" % self.job_id if k == 0 else "%s-worker-%d" % (self.job_id, k - 1)
                ip = "10.233.%d.%d" % (rng.randrange(60, 120), rng.randrange(2, 250))
                kn = "%s%03d" % (hpfx, nstart + k * 2)
                self._add_node(k, name, ip, [kn, ip], bus)
        elif L == "swift_pdsh":
            self.job_id = "pdsh"
            hpfx = pick(rng, ["node-", "gpu", "%s-" % self.gpu.lower(), "worker"])
            st = rng.randrange(1, 20)
            for k in range(self.nnodes):
                h = "%s%02d" % (hpfx, st + k)
                ip = "192.168.%d.%d" % (rng.randrange(1, 9), 100 + st + k)
                self._add_node(k, h, ip, [ip], bus)
        # per-node clocks and pids
        for nd in self.nodes:
            nd.skew = rng.uniform(-2.5, 2.5) if chance(rng, 0.5) else rng.uniform(-0.3, 0.3)
            if L in ("pai_dlc", "volc_mlp", "modelarts_ascend", "colossalai_k8s", "paddle_launch"):
                nd.agent_pid = rng.randrange(60, 400)
            else:
                nd.agent_pid = rng.randrange(100000, 3900000)
            nd.start = self.t0 + rng.uniform(15, 120)
            nd.uptime0 = nd.start - rng.uniform(3 * 86400, 60 * 86400)
        self.ranks = []
        for nd in self.nodes:
            nd.ranks = []
            nxt = nd.agent_pid + rng.randrange(12, 40)
            for lr in range(self.gpn):
                r = Rank()
                r.g = nd.k * self.gpn + lr
                r.lr = lr
                r.node = nd
                r.pid = nxt
                nxt += rng.randrange(1, 7)
                r.dev = lr
                r.bus = nd.bus[lr % len(nd.bus)]
                r.nic = "mlx5_%d" % (lr // 2 if self.nics_per_node == 4 else lr)
                nd.ranks.append(r)
                self.ranks.append(r)
        # training timeline
        self.t_train = max(nd.start for nd in self.nodes) + rng.uniform(60, 400)

    def _add_node(self, k, name, ip, aliases, bus):
        nd = Node()
        nd.k = k
        nd.name = name
        nd.ip = ip
        nd.aliases = [a for a in aliases if a != name]
        nd.hostname = aliases[0] if self.layout == "paddle_launch" else name
        nd.bus = bus
        self.nodes.append(nd)
        if not hasattr(self, "nics_per_node"):
            self.nics_per_node = pick(self.rng, [4, 8])

    # convenience
    def host_of(self, r):
        return self.ranks[r].node

    def node_t(self, nd, t):
        return t + nd.skew


# ----------------------------------------------------------------------------
# failure planning
# ----------------------------------------------------------------------------
class End(object):
    def __init__(self, t, kind, code, **kw):
        self.t = t
        self.kind = kind
        self.code = code
        self.kw = kw


def plan(job):
    rng = job.rng
    cause = None if job.healthy else job.cause
    if job.layout == "swift_pdsh" or job.nnodes <= 4:
        est = job.world
    else:
        est = min(job.world, 4 * job.gpn)
    budget = 1100 if job.layout == "paddle_launch" else 2200
    hb_max = max(16, min(90, budget // max(1, est)))
    hb_max = max(12, hb_max >> job.shrink)
    n_hb = rng.randint(max(10, hb_max // 2), hb_max)
    job.total_steps = job.hb_every * n_hb
    job.fail_step = job.hb_every * rng.randint(5, max(6, int(n_hb * 0.8))) + rng.randrange(1, job.hb_every)
    # step end times (synchronous training: the same for every rank)
    st = [job.t_train]
    slow = 1.0
    job.straggle_on = None
    job.straggle_factor = 1.0
    if cause == "straggler":
        job.straggle_on = job.hb_every * rng.randint(3, 10)
        job.straggle_factor = rng.uniform(1.35, 2.2)
    for k in range(1, job.total_steps + 2):
        s = job.step_time * (1.0 + rng.uniform(-0.04, 0.04))
        if job.straggle_on is not None and k > job.straggle_on:
            s *= job.straggle_factor
        if k % 500 == 0:
            s += rng.uniform(20, 90)  # checkpoint save pause
        st.append(st[-1] + s)
    job.step_end = st
    job.coll_mode = "timeout"
    if job.accel == "cuda":
        job.coll_mode = "remote" if chance(rng, 0.55) else "timeout"
    job.culprit = None
    job.cnode = None
    job.variant = ""
    job.missing_culprit_log = False
    W = job.world
    ends = {}
    T = job.coll_timeout
    F = st[job.fail_step] + rng.uniform(0.1, 0.9) * job.step_time
    job.F = F
    job.seq_block = 40 + job.fail_step * pick(rng, [3, 4, 6, 7]) + rng.randrange(3)
    job.block_op = pick(rng, ["ALLREDUCE", "ALLREDUCE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE", "ALLGATHER"])
    job.block_numel = pick(rng, [1048576, 4194304, 16777216, 67108864, 131072000, 25690112])

    def pick_culprit():
        if W == 1:
            return 0
        if chance(rng, 0.12):
            return 0
        return rng.randrange(1, W)

    per_rank = ("gpu_hardware", "ecc_memory", "nvlink", "cuda_oom", "illegal_memory_access",
                "python_exception", "host_oom_kill", "crash_signal", "hang", "data_loader_stall",
                "collective_mismatch", "straggler", "network")
    if cause in per_rank:
        c = pick_culprit()
        if cause == "network":
            nd = job.nodes[rng.randrange(job.nnodes)]
            bad_lr = rng.randrange(job.gpn)
            job.bad_nic = nd.ranks[bad_lr].nic
            c = nd.ranks[bad_lr].g
        job.culprit = c
        job.cnode = job.ranks[c].node
    if cause == "preemption":
        if job.layout in ("ascend_slurm", "swift_pdsh"):
            job.cnode = None
            job.variant = "whole_job"
        else:
            job.cnode = job.nodes[rng.randrange(job.nnodes)]
            job.variant = "pod"

    def others_react(t_start_remote, t_timeout_base, exclude_nodes):
        for nd in job.nodes:
            if nd in exclude_nodes:
                continue
            for rk in nd.ranks:
                if job.coll_mode == "remote":
                    ends[rk.g] = End(t_start_remote + rng.uniform(2, 35), "remote", -6)
                else:
                    ends[rk.g] = End(t_timeout_base + T + rng.uniform(0.0, 6.0), "timeout", -6)

    def local_reaction(nd, t_first, skip=()):
        d = rng.uniform(0.4, 4.5)
        for rk in nd.ranks:
            if rk.g in skip:
                continue
            e = ends.get(rk.g)
            if e is None or e.t > t_first + d:
                ends[rk.g] = End(t_first + d + rng.uniform(0, 0.3), "term", -15)

    def settle_nodes():
        # on every node, the launcher SIGTERMs the survivors shortly after the first failure
        for nd in job.nodes:
            fails = [ends[rk.g] for rk in nd.ranks if ends[rk.g].kind not in ("term", "finish", "hung", "preempt", "killall")]
            if not fails:
                continue
            t1 = min(e.t for e in fails)
            d = rng.uniform(0.3, 3.0)
            for rk in nd.ranks:
                e = ends[rk.g]
                if e.kind in ("finish",):
                    continue
                if e.kind == "hung" or e.t > t1 + d:
                    ends[rk.g] = End(t1 + d + rng.uniform(0, 0.2), "term", -15, was=e.kind)

    if cause is None:
        t_end = st[job.total_steps] + rng.uniform(5, 60)
        for rk in job.ranks:
            ends[rk.g] = End(t_end + rng.uniform(0, 3), "finish", 0)
    elif cause in ("gpu_hardware", "ecc_memory", "nvlink", "cuda_oom", "illegal_memory_access",
                   "python_exception", "host_oom_kill", "crash_signal", "network"):
        c = job.culprit
        cn = job.cnode
        code = {"python_exception": 1, "cuda_oom": 1, "host_oom_kill": -9, "crash_signal": -11}.get(cause, -6)
        if cause == "host_oom_kill" and chance(rng, 0.35):
            job.variant = "dl_worker_killed"
            code = 1
        if cause == "crash_signal" and chance(rng, 0.3):
            job.variant = "sigbus_shm"
            code = 1
        if cause in ("illegal_memory_access", "gpu_hardware", "ecc_memory") and chance(rng, 0.45):
            job.variant = "python_raise"
            code = 1
        ends[c] = End(F, "culprit", code)
        if cause == "network":
            for rk in cn.ranks:
                if rk.g != c and rk.nic == job.bad_nic:
                    ends[rk.g] = End(F + rng.uniform(0.2, 4.0), "neterr", -6)
        local_reaction(cn, F, skip=[c] + [rk.g for rk in cn.ranks if rk.g in ends and ends[rk.g].kind == "neterr"])
        others_react(F + 2, F, [cn])
        if cause == "network":
            # peers talking to the dead link also see completion errors early
            for nd in job.nodes:
                if nd is cn:
                    continue
                for rk in nd.ranks:
                    if rk.nic == job.bad_nic and chance(rng, 0.6):
                        ends[rk.g] = End(F + rng.uniform(0.5, 8.0), "neterr_peer", -6)
        settle_nodes()
    elif cause == "preemption":
        if job.variant == "whole_job":
            for rk in job.ranks:
                ends[rk.g] = End(F + rng.uniform(0, 0.8), "preempt", -15)
        else:
            cn = job.cnode
            for rk in cn.ranks:
                ends[rk.g] = End(F + rng.uniform(0, 0.5), "preempt", -15)
            others_react(F + 5, F, [cn])
            settle_nodes()
    elif cause == "hang":
        c = job.culprit
        for rk in job.ranks:
            if rk.g == c:
                ends[rk.g] = End(F + T + 999, "hung", -15)
            else:
                ends[rk.g] = End(F + T + rng.uniform(0.0, 4.0), "timeout", -6)
        job.variant = pick(rng, ["ckpt_io", "deadlock"])
        settle_nodes()
    elif cause == "data_loader_stall":
        c = job.culprit
        cn = job.cnode
        if chance(rng, 0.6) and job.layout != "paddle_launch":
            job.variant = "dl_timeout"
            job.dl_timeout = pick(rng, [300, 600, 900]) if T > 900 else pick(rng, [120, 300])
            ends[c] = End(F + job.dl_timeout, "culprit", 1)
            local_reaction(cn, F + job.dl_timeout, skip=[c])
            others_react(F + job.dl_timeout + 2, F, [cn])
            settle_nodes()
        else:
            job.variant = "stuck"
            for rk in job.ranks:
                if rk.g == c:
                    ends[rk.g] = End(F + T + 999, "hung", -15)
                else:
                    ends[rk.g] = End(F + T + rng.uniform(0.0, 4.0), "timeout", -6)
            settle_nodes()
    elif cause == "collective_mismatch":
        c = job.culprit
        if job.accel == "cuda" and job.layout != "paddle_launch" and chance(rng, 0.5):
            job.variant = "detail"
            for rk in job.ranks:
                ends[rk.g] = End(F + rng.uniform(0.05, 1.5), "mismatch", 1)
        else:
            job.variant = "timeout"
            for rk in job.ranks:
                ends[rk.g] = End(F + T + rng.uniform(0.05, 0.28), "timeout", -6)
            ends[c] = End(F + T + rng.uniform(0.0, 0.2), "timeout", -6)
        job.mm_op = pick(rng, ["BROADCAST", "ALLGATHER", "_ALLGATHER_BASE", "REDUCE_SCATTER", "BARRIER"])
        if job.mm_op == job.block_op:
            job.mm_op = "BROADCAST"
        job.mm_numel = pick(rng, [1, 8, 4096, 65536, 2048])
        settle_nodes()
    elif cause == "unknown":
        job.variant = "all_timeout"
        for rk in job.ranks:
            ends[rk.g] = End(F + T + rng.uniform(0.0, 3.0), "timeout", -6)
        settle_nodes()
    elif cause == "straggler":
        if chance(rng, 0.5):
            job.variant = "finished_slow"
            t_end = st[job.total_steps] + rng.uniform(5, 60)
            for rk in job.ranks:
                ends[rk.g] = End(t_end + rng.uniform(0, 3), "finish", 0)
        else:
            job.variant = "time_limit"
            k = min(job.total_steps - 5, job.fail_step + job.hb_every * rng.randint(10, 30))
            tk = st[k] + rng.uniform(0.2, 0.8) * job.step_time
            job.F = tk
            for rk in job.ranks:
                ends[rk.g] = End(tk + rng.uniform(0, 0.6), "killall", -15)
    job.ends = ends
    # last completed step per rank (everyone blocks in the next collective after F)
    job.last_step = {}
    for rk in job.ranks:
        e = ends[rk.g]
        if e.kind == "finish":
            job.last_step[rk.g] = job.total_steps
        else:
            lim = min(e.t, job.F)
            k = 0
            while k + 1 <= job.total_steps and st[k + 1] <= lim:
                k += 1
            job.last_step[rk.g] = k
    # which nodes' logs are attached
    shown = []
    if job.nnodes <= 4:
        shown = list(job.nodes)
    else:
        want = [job.nodes[0]]
        if job.cnode is not None:
            want.append(job.cnode)
        if job.fw == "megatron":
            want.append(job.nodes[-1])
        extra = rng.randint(1, 2)
        for _ in range(extra):
            want.append(job.nodes[rng.randrange(job.nnodes)])
        for nd in job.nodes:
            if nd in want and nd not in shown:
                shown.append(nd)
        # a realistic miss: people attach master + a few pods and forget the failing one
        if (job.cnode is not None and job.cnode is not job.nodes[0] and cause in
                ("gpu_hardware", "ecc_memory", "host_oom_kill", "preemption", "nvlink")
                and job.layout in ("pai_dlc", "volc_mlp", "modelarts_ascend") and chance(rng, 0.3)):
            shown = [nd for nd in shown if nd is not job.cnode]
            job.missing_culprit_log = True
    job.shown = shown
    job.shown_ranks = [rk for nd in shown for rk in nd.ranks]


# ----------------------------------------------------------------------------
# text builders shared by torch-based stacks (CUDA and Ascend torch_npu)
# ----------------------------------------------------------------------------
class Log(object):
    """A stream of (true_time, order, text) lines."""

    def __init__(self):
        self.items = []

    def add(self, t, text):
        self.items.append((t, len(self.items), text))

    def extend(self, other):
        for t, _o, x in other.items:
            self.add(t, x)

    def render(self, keep=None):
        out = []
        for t, o, x in sorted(self.items, key=lambda a: (a[0], a[1])):
            out.append(x)
        return "\n".join(out) + ("\n" if out else "")


def script_info(job):
    """(entry script path as printed, short script name, training frames)"""
    sp = job.sitepk
    fw = job.fw
    if job.layout == "paddle_launch":
        s = "/root/PaddleNLP/llm/run_finetune.py"
        return s, "run_finetune.py", []
    if fw == "megatron":
        if job.accel == "npu":
            root = "/home/ma-user/modelarts/user-job-dir/MindSpeed-LLM"
            s = root + "/pretrain_gpt.py"
            mg = root + "/megatron"
        else:
            root = "/mnt/workspace/Pai-Megatron-Patch"
            s = root + "/examples/qwen2_5/pretrain_qwen.py"
            mg = root + "/Megatron-LM-240612/megatron"
        frames = [
            (s, 257 if job.accel == "cuda" else 181, "<module>", "pretrain("),
            (mg + "/training/training.py", 289, "pretrain", "iteration, num_floating_point_operations_so_far = train("),
            (mg + "/training/training.py", 1054, "train", "train_step(forward_step_func,"),
            (mg + "/training/training.py", 563, "train_step", "losses_reduced = forward_backward_func("),
            (mg + "/core/pipeline_parallel/schedules.py", 439, "forward_backward_no_pipelining",
             "output_tensor = forward_step("),
            (mg + "/core/pipeline_parallel/schedules.py", 264, "forward_step",
             "output_tensor, loss_func = forward_step_func(data_iterator, model)"),
        ]
        return s, s.split("/")[-1], frames
    if fw == "hf":
        s = sp + "/llamafactory/launcher.py"
        frames = [
            (s, 23, "<module>", "launch()"),
            (s, 19, "launch", "run_exp()"),
            (sp + "/llamafactory/train/tuner.py", 93, "run_exp", "_training_function(config={\"args\": args, \"callbacks\": callbacks})"),
            (sp + "/llamafactory/train/tuner.py", 67, "_training_function",
             "run_sft(model_args, data_args, training_args, finetuning_args, generating_args, callbacks)"),
            (sp + "/llamafactory/train/sft/workflow.py", 101, "run_sft",
             "train_result = trainer.train(resume_from_checkpoint=training_args.resume_from_checkpoint)"),
            (sp + "/transformers/trainer.py", 2164, "train", "return inner_training_loop("),
            (sp + "/transformers/trainer.py", 2524, "_inner_training_loop",
             "tr_loss_step = self.training_step(model, inputs, num_items_in_batch)"),
        ]
        return s, "launcher.py", frames
    if fw == "swift":
        s = sp + "/swift/cli/sft.py"
        frames = [
            (s, 10, "<module>", "sft_main()"),
            (sp + "/swift/llm/train/sft.py", 281, "sft_main", "return SwiftSft(args).main()"),
            (sp + "/swift/llm/base.py", 47, "main", "result = self.run()"),
            (sp + "/swift/llm/train/sft.py", 147, "run", "return self.train(trainer)"),
            (sp + "/swift/llm/train/sft.py", 207, "train", "trainer.train(trainer.args.resume_from_checkpoint)"),
            (sp + "/swift/trainers/mixin.py", 337, "train", "res = super().train(*args, **kwargs)"),
            (sp + "/transformers/trainer.py", 2245, "train", "return inner_training_loop("),
            (sp + "/transformers/trainer.py", 2556, "_inner_training_loop",
             "tr_loss_step = self.training_step(model, inputs, num_items_in_batch)"),
        ]
        return s, "sft.py", frames
    # colossal
    s = "/workspace/ColossalAI/applications/Colossal-LLaMA/train.py"
    frames = [
        (s, 472, "<module>", "main()"),
        (s, 389, "main", "outputs = model(**batch)"),
    ]
    return s, "train.py", frames


def model_frames(job, deep="mlp"):
    sp = job.sitepk
    if job.fw == "megatron":
        s, _n, _fr = script_info(job)
        mg = s.rsplit("/", 1)[0] + ("/megatron" if job.accel == "npu" else "/Megatron-LM-240612/megatron")
        if job.accel == "cuda":
            mg = s.split("/examples/")[0] + "/Megatron-LM-240612/megatron"
        fr = [(s, 187, "forward_step", "output_tensor = model(tokens, position_ids, attention_mask, labels=labels)"),
              (sp + "/torch/nn/modules/module.py", 1736, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
              (sp + "/torch/nn/modules/module.py", 1747, "_call_impl", "return forward_call(*args, **kwargs)"),
              (mg + "/core/models/gpt/gpt_model.py", 217, "forward", "hidden_states = self.decoder("),
              (mg + "/core/transformer/transformer_block.py", 495, "forward", "hidden_states, context = layer("),
              (mg + "/core/transformer/transformer_layer.py", 303, "forward", "mlp_output_with_bias = self.mlp(pre_mlp_layernorm_output)" if deep == "mlp" else "attention_output_with_bias = self.self_attention(")]
        if deep != "mlp":
            fr.append((mg + "/core/transformer/attention.py", 315, "forward", "core_attn_out = self.core_attention("))
        else:
            fr.append((mg + "/core/transformer/mlp.py", 106, "forward", "intermediate_parallel, bias_parallel = self.linear_fc1(hidden_states)"))
        return fr
    m = job.model.lower()
    arch = "qwen2" if "qwen" in m else ("llama" if "llama" in m or "yi" in m else (
        "internlm2" if "internlm" in m else ("deepseek_v2" if "deepseek" in m else "llama")))
    fr = [
        (sp + "/torch/nn/modules/module.py", 1736, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
        (sp + "/torch/nn/modules/module.py", 1747, "_call_impl", "return forward_call(*args, **kwargs)"),
        (sp + "/transformers/models/%s/modeling_%s.py" % (arch, arch), 1164, "forward", "outputs = self.model("),
        (sp + "/torch/nn/modules/module.py", 1747, "_call_impl", "return forward_call(*args, **kwargs)"),
        (sp + "/transformers/models/%s/modeling_%s.py" % (arch, arch), 895, "forward", "layer_outputs = decoder_layer("),
    ]
    if deep == "mlp":
        fr.append((sp + "/transformers/models/%s/modeling_%s.py" % (arch, arch), 220, "forward",
                   "down_proj = self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))"))
    else:
        fr.append((sp + "/transformers/models/%s/modeling_%s.py" % (arch, arch), 476, "forward",
                   "attn_output = _flash_attention_forward("))
        fr.append((sp + "/flash_attn/flash_attn_interface.py", 1124, "flash_attn_varlen_func",
                   "return FlashAttnVarlenFunc.apply("))
    return fr


class TT(object):
    """torch text (CUDA or torch_npu)."""

    def __init__(self, job):
        self.job = job
        self.npu = job.accel == "npu"
        self.pg = "ProcessGroupHCCL" if self.npu else "ProcessGroupNCCL"
        self.work = "WorkHCCL" if self.npu else "WorkNCCL"

    # --- c10 logging line
    def c10(self, rk, sev, t, src, msg):
        job = self.job
        tt = t + rk.node.skew
        if self.npu and src.startswith("ProcessGroup"):
            src = "compiler_depend.ts:" + src.split(":")[1]
        if job.tv >= (2, 4):
            head = "[%s%s %s] " % (sev, f_c10(tt, job.container_tz), src)
        else:
            head = "[%s %s] " % (sev, src)
        if job.rank_prefix:
            head = "[rank%d]:" % rk.g + head
        return head + msg

    def tbp(self, rk):
        return "[rank%d]: " % rk.g if self.job.tv >= (2, 3) else ""

    def pgtag(self, rk):
        job = self.job
        if job.tv >= (2, 4):
            return "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % rk.g
        if job.tv >= (2, 2):
            return "[PG 0 Rank %d]" % rk.g
        return "[Rank %d]" % rk.g

    def lib(self, name):
        return "%s/torch/lib/%s" % (self.job.sitepk, name)

    def frames_c10(self, rng, kind):
        j = self.job
        libcuda = "libtorch_npu.so" if self.npu else "libtorch_cuda.so"
        libdir = ("%s/torch_npu/lib/" % j.sitepk) if self.npu else ("%s/torch/lib/" % j.sitepk)
        a = lambda: "0x7f%s" % hexs(rng, 10)
        if kind == "timeout":
            fs = [
                "c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (%s in %slibc10.so)" % (a(), "%s/torch/lib/" % j.sitepk),
                "c10d::%s::%s::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 (%s in %s%s)" % (self.pg, self.work, a(), libdir, libcuda),
                "c10d::%s::watchdogHandler() + 0x233 (%s in %s%s)" % (self.pg, a(), libdir, libcuda),
                "c10d::%s::ncclCommWatchdog() + 0x14d (%s in %s%s)" % (self.pg, a(), libdir, libcuda) if not self.npu else
                "c10d::%s::hcclCommWatchdog() + 0x12c (%s in %s%s)" % (self.pg, a(), libdir, libcuda),
                "<unknown function> + 0x145c0 (%s in %s/torch/lib/libtorch.so)" % (a(), j.sitepk),
                "<unknown function> + 0x94ac3 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % a(),
                "clone + 0x44 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % a(),
            ]
        else:
            fs = [
                "c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (%s in %s/torch/lib/libc10.so)" % (a(), j.sitepk),
                "c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64 (%s in %s/torch/lib/libc10.so)" % (a(), j.sitepk),
                "c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118 (%s in %s/torch/lib/libc10_cuda.so)" % (a(), j.sitepk),
                "c10d::%s::%s::finishedGPUExecutionInternal() const + 0x56 (%s in %s%s)" % (self.pg, self.work, a(), libdir, libcuda),
                "c10d::%s::%s::isCompleted() + 0x58 (%s in %s%s)" % (self.pg, self.work, a(), libdir, libcuda),
                "c10d::%s::watchdogHandler() + 0x1b4 (%s in %s%s)" % (self.pg, a(), libdir, libcuda),
                "<unknown function> + 0x94ac3 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % a(),
            ]
        return "\n".join("frame #%d: %s" % (i, f) for i, f in enumerate(fs))

    def workstr(self, seq, op, nin, nout):
        return "%s(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (
            self.work, seq, op, nin, nout, self.job.coll_timeout * 1000)

    # --- watchdog timeout on rank rk at time t (true)
    def watchdog_timeout(self, rng, rk, t, seq, op, nin, nout, enq=None, comp=None):
        job = self.job
        T = job.coll_timeout * 1000
        ran = T + int(rng.uniform(20, 900))
        ws = self.workstr(seq, op, nin, nout)
        enq = seq if enq is None else enq
        comp = seq - 1 if comp is None else comp
        msg1 = "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (rk.g, ws, ran)
        out = []
        if job.tv >= (2, 4):
            out.append(self.c10(rk, "E", t, "ProcessGroupNCCL.cpp:616", msg1))
            out.append(self.c10(rk, "E", t + 0.0004, "ProcessGroupNCCL.cpp:1785",
                                "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (self.pgtag(rk), seq, enq, comp)))
            out.append(self.c10(rk, "E", t + 0.0005, "ProcessGroupNCCL.cpp:630",
                                "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % rk.g))
            out.append(self.c10(rk, "E", t + 0.0005, "ProcessGroupNCCL.cpp:636",
                                "[Rank %d] To avoid data inconsistency, we are taking the entire process down." % rk.g))
            out.append(self.c10(rk, "E", t + 0.0009, "ProcessGroupNCCL.cpp:1595",
                                "%s Process group watchdog thread terminated with exception: %s" % (self.pgtag(rk), msg1)))
            out.append("Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:618 (most recent call first):")
            out.append(self.frames_c10(rng, "timeout"))
            out.append("")
            out.append("terminate called after throwing an instance of 'c10::DistBackendError'")
            out.append("  what():  %s Process group watchdog thread terminated with exception: %s" % (self.pgtag(rk), msg1))
        elif job.tv >= (2, 2):
            out.append(self.c10(rk, "E", t, "ProcessGroupNCCL.cpp:563", msg1))
            out.append(self.c10(rk, "E", t, "ProcessGroupNCCL.cpp:1537",
                                "%s Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (self.pgtag(rk), seq, enq, comp)))
            out.append(self.c10(rk, "E", t, "ProcessGroupNCCL.cpp:577",
                                "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % rk.g))
            out.append(self.c10(rk, "E", t, "ProcessGroupNCCL.cpp:583",
                                "[Rank %d] To avoid data inconsistency, we are taking the entire process down." % rk.g))
            out.append(self.c10(rk, "E", t, "ProcessGroupNCCL.cpp:1414",
                                "%s NCCL watchdog thread terminated with exception: %s" % (self.pgtag(rk), msg1)))
            out.append("terminate called after throwing an instance of 'c10::DistBackendError'")
            out.append("  what():  %s NCCL watchdog thread terminated with exception: %s" % (self.pgtag(rk), msg1))
        else:
            out.append("[E ProcessGroupNCCL.cpp:475] %s" % msg1)
            out.append("[E ProcessGroupNCCL.cpp:489] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.")
            out.append("[E ProcessGroupNCCL.cpp:495] To avoid data inconsistency, we are taking the entire process down.")
            out.append("[E ProcessGroupNCCL.cpp:916] [Rank %d] NCCL watchdog thread terminated with exception: %s" % (rk.g, msg1))
            out.append("terminate called after throwing an instance of 'std::runtime_error'")
            out.append("  what():  [Rank %d] NCCL watchdog thread terminated with exception: %s" % (rk.g, msg1))
        if self.npu:
            out = [x.replace("NCCL work", "HCCL work").replace("NCCL operations", "HCCL operations")
                   .replace("NCCL watchdog", "HCCL watchdog").replace("CUDA kernels", "ASCEND kernels")
                   .replace("GPU operations", "NPU operations") for x in out]
        out.append("Fatal Python error: Aborted")
        return "\n".join(out)

    # --- watchdog thread died with an async error (NCCL or CUDA)
    def watchdog_error(self, rng, rk, t, err_lines, raised_from):
        job = self.job
        head = err_lines[0]
        out = []
        if job.tv >= (2, 4):
            out.append(self.c10(rk, "E", t, "ProcessGroupNCCL.cpp:1595",
                                "%s Process group watchdog thread terminated with exception: %s" % (self.pgtag(rk), head)))
        elif job.tv >= (2, 2):
            out.append(self.c10(rk, "E", t, "ProcessGroupNCCL.cpp:1182",
                                "%s NCCL watchdog thread terminated with exception: %s" % (self.pgtag(rk), head)))
        else:
            out.append("[E ProcessGroupNCCL.cpp:916] [Rank %d] NCCL watchdog thread terminated with exception: %s" % (rk.g, head))
        out.extend(err_lines[1:])
        out.append("Exception raised from %s (most recent call first):" % raised_from)
        out.append(self.frames_c10(rng, "err"))
        out.append("")
        exc = "c10::DistBackendError" if job.tv >= (2, 2) else "std::runtime_error"
        out.append("terminate called after throwing an instance of '%s'" % exc)
        out.append("  what():  %s %s watchdog thread terminated with exception: %s" % (
            self.pgtag(rk), "Process group" if job.tv >= (2, 4) else "NCCL", head))
        out.extend(err_lines[1:3])
        out.append("Fatal Python error: Aborted")
        return "\n".join(out)

    def cuda_err_lines(self, text):
        return ["CUDA error: %s" % text,
                "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
                "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
                "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
                ""]

    # --- python traceback in the training loop
    def py_tb(self, rk, frames, exc_lines):
        return traceback_block(frames, exc_lines, prefix=self.tbp(rk))

    def oom_msg(self, rng, rk):
        j = self.job
        tot = j.gpu_gib
        req = pick(rng, [1.0, 1.5, 2.0, 3.91, 7.82, 9.28, 448.0 / 1024, 896.0 / 1024])
        free = rng.uniform(0.05, min(req * 0.8, 1.9))
        inuse = tot - free
        alloc = inuse - rng.uniform(0.8, 3.5)
        resv = inuse - alloc - rng.uniform(0.1, 0.5)

        def g(x):
            return ("%.2f GiB" % x) if x >= 1 else ("%.2f MiB" % (x * 1024))
        if self.npu:
            nm = "torch.OutOfMemoryError" if j.tv >= (2, 5) else "RuntimeError"
            return ["%s: NPU out of memory. Tried to allocate %s (NPU %d; %.2f GiB total capacity; %.2f GiB already allocated; %.2f GiB current active; %s free; %.2f GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation." % (
                nm, g(req), rk.dev, tot, alloc, alloc, g(free), alloc + resv)]
        nm = "torch.OutOfMemoryError" if j.tv >= (2, 5) else "torch.cuda.OutOfMemoryError"
        cap = "capacty" if j.tv <= (2, 2) else "capacity"
        return ["%s: CUDA out of memory. Tried to allocate %s. GPU %d has a total %s of %.2f GiB of which %s is free. Process %d has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %s is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)" % (
            nm, g(req), rk.dev, cap, tot, g(free), rk.pid, inuse, alloc, g(resv))]

    # --- NCCL debug lines
    def nccl(self, rk, msg, tid=None, warn=False, src=""):
        nd = rk.node
        tid = rk.pid if tid is None else tid
        lvl = "NCCL WARN" if warn else "NCCL INFO"
        if src:
            return "%s:%d:%d [%d] %s %s %s" % (nd.hostname, rk.pid, tid, rk.dev, src, lvl, msg)
        return "%s:%d:%d [%d] %s %s" % (nd.hostname, rk.pid, tid, rk.dev, lvl, msg)


# ----------------------------------------------------------------------------
# training progress helpers
# ----------------------------------------------------------------------------
def pnoise(a, b):
    x = math.sin(a * 12.9898 + b * 78.233) * 43758.5453
    return x - math.floor(x)


def loss_at(job, step, r=0):
    base = 2.7 * math.exp(-step / 1400.0) + 1.05
    return base + (pnoise(step, r) - 0.5) * 0.18 + (pnoise(step, 7) - 0.5) * 0.05


def split_time(job, rk, k):
    """(step_seconds, compute_seconds, wait_seconds, data_seconds) for rank rk at step k"""
    s = job.step_end[k] - job.step_end[k - 1]
    n = pnoise(k, rk.g + 3)
    data = 0.01 + 0.05 * n
    if job.straggle_on is not None and k > job.straggle_on:
        if rk.g == job.culprit:
            comp = s * (0.93 + 0.04 * n)
        else:
            comp = job.step_time * (0.80 + 0.08 * n)
    else:
        comp = s * (0.80 + 0.09 * n)
    comp = min(comp, s - data - 0.01)
    wait = max(0.0, s - comp - data)
    return s, comp, wait, data


def hb_line(job, rk, t, k, extra=None):
    """Per-rank heartbeat written by the users' own callback (Chinese)."""
    L = job.layout
    s, comp, wait, data = split_time(job, rk, k)
    if extra is not None:
        data = extra
    lo = loss_at(job, k, rk.g)
    tt = t + rk.node.skew
    if L == "pai_dlc":
        return "[%s] [rank%d] 第 %d 步, loss=%.4f, 耗时 %.2fs (计算 %.2fs, 通信等待 %.2fs, 数据 %.2fs)" % (
            f_ymd(tt, 8, ms=False), rk.g, k, lo, s, comp, wait, data)
    if L == "volc_mlp":
        return "%s - INFO - callbacks - [rank%d] step %d 完成，loss=%.4f，单步耗时 %.2fs（前反向 %.2fs，all-reduce 等待 %.2fs，取数 %.3fs）" % (
            f_iso(tt, 8), rk.g, k, lo, s, comp, wait, data)
    if L == "modelarts_ascend":
        return "[%s] rank=%d 第%d步 loss=%.4f 单步耗时=%dms 计算=%dms 等待=%dms 取数=%dms" % (
            f_ymd(tt, 8), rk.g, k, lo, s * 1000, comp * 1000, wait * 1000, data * 1000)
    if L == "ascend_slurm":
        return "%s | INFO | [rank %d] 第 %d 步，loss=%.4f，耗时 %.2fs（计算 %.2fs，等待 %.2fs，数据 %.2fs）" % (
            f_ymd(tt, 8), rk.g, k, lo, s, comp, wait, data)
    if L == "paddle_launch":
        return "[%s] [rank %d] 第 %d 步, loss: %.5f, 耗时: %.3fs, 计算: %.3fs, 通信等待: %.3fs, reader_cost: %.4fs" % (
            f_ymd(tt, 8), rk.g, k, lo, s, comp, wait, data)
    if L == "colossalai_k8s":
        return "[%s] [rank %d] step=%d loss=%.4f step_time=%.2fs fwd_bwd=%.2fs allreduce_wait=%.2fs data=%.3fs" % (
            f_iso(tt, 8), rk.g, k, lo, s, comp, wait, data)
    return "[rank%d] %s 第 %d 步，loss=%.4f，step_time=%.2fs，计算 %.2fs，等待 %.2fs，数据 %.3fs" % (
        rk.g, f_ymd(tt, 8, ms=False), k, lo, s, comp, wait, data)


def user_line(job, rk, t, msg):
    """Chinese user log line in the layout's user-log style."""
    L = job.layout
    tt = t + rk.node.skew
    if L == "pai_dlc":
        return "[%s] [rank%d] %s" % (f_ymd(tt, 8, ms=False), rk.g, msg)
    if L == "volc_mlp":
        return "%s - WARNING - callbacks - [rank%d] %s" % (f_iso(tt, 8), rk.g, msg)
    if L == "modelarts_ascend":
        return "[%s] rank=%d %s" % (f_ymd(tt, 8), rk.g, msg)
    if L == "ascend_slurm":
        return "%s | WARNING | [rank %d] %s" % (f_ymd(tt, 8), rk.g, msg)
    if L == "paddle_launch":
        return "[%s] [rank %d] %s" % (f_ymd(tt, 8), rk.g, msg)
    if L == "colossalai_k8s":
        return "[%s] [rank %d] %s" % (f_iso(tt, 8), rk.g, msg)
    return "[rank%d] %s %s" % (rk.g, f_ymd(tt, 8, ms=False), msg)


def trainer_lines(job, rk, t, k):
    """Framework metric lines printed by the logging rank at step k."""
    rng_noise = pnoise(k, 99)
    tt = t + rk.node.skew
    tz = job.container_tz
    s = job.step_end[k] - job.step_end[k - 1]
    lo = loss_at(job, k, 0)
    lr = 3e-5 * min(1.0, k / 200.0) * (0.5 + 0.5 * math.cos(math.pi * k / job.total_steps))
    out = []
    if job.fw == "megatron":
        gbs = pick(random.Random(job.idx), [256, 512, 1024])
        out.append(" [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | throughput per GPU (TFLOP/s/GPU): %.1f | learning rate: %E | global batch size: %5d | lm loss: %E | loss scale: 1.0 | grad norm: %.3f | number of skipped iterations:   0 | number of nan iterations:   0 |" % (
            f_ymd(tt, tz, ms=False), k, job.total_steps, k * gbs, s * 1000, 160.0 * job.step_time / s * (0.95 + 0.1 * rng_noise),
            lr, gbs, lo, 0.6 + 0.5 * rng_noise))
    elif job.fw == "hf":
        ep = k / float(job.total_steps) * 3
        out.append("{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %.4e, 'epoch': %.2f}" % (
            lo, 0.5 + 0.7 * rng_noise, lr * 3, ep))
        out.append(tqdm_bar(k, job.total_steps, job.step_end[k] - job.t_train, s, prefix=""))
    elif job.fw == "swift":
        el = job.step_end[k] - job.t_train
        rem = (job.total_steps - k) * s
        out.append("{'loss': %.5f, 'token_acc': %.5f, 'grad_norm': %.5f, 'learning_rate': %.2e, 'memory(GiB)': %.2f, 'train_speed(iter/s)': %.6f, 'epoch': %.2f, 'global_step/max_steps': '%d/%d', 'percentage': '%.2f%%', 'elapsed_time': '%dh %dm %ds', 'remaining_time': '%dh %dm %ds'}" % (
            lo, 0.55 + 0.25 * (1 - math.exp(-k / 1500.0)), 0.4 + 0.6 * rng_noise, lr * 3, job.gpu_gib * (0.6 + 0.15 * rng_noise),
            1.0 / s, k / float(job.total_steps) * 2, k, job.total_steps, 100.0 * k / job.total_steps,
            el // 3600, (el % 3600) // 60, el % 60, rem // 3600, (rem % 3600) // 60, rem % 60))
        out.append(tqdm_bar(k, job.total_steps, el, s, prefix="Train: "))
    elif job.fw == "colossal":
        out.append(tqdm_bar(k, job.total_steps, job.step_end[k] - job.t_train, s, prefix="Epoch 0/1 Step %d: " % k)
                   + ", loss=%.4f, lr=%.2e" % (lo, lr * 3))
    return out


def nccl_init_lines(job, tt, rk, t):
    """NCCL_DEBUG=INFO start-up lines of one rank (CUDA)."""
    nd = rk.node
    out = []
    v = job.nccl.split("+")[0]
    nv = tuple(int(x) for x in v.split("."))
    tid = rk.pid + 91 + rk.lr
    ifn = pick(random.Random(job.idx * 7), ["eth0", "bond0", "eth0", "net1"])
    out.append(tt.nccl(rk, "Bootstrap : Using %s:%s<0>" % (ifn, nd.ip)))
    if nv >= (2, 20):
        out.append(tt.nccl(rk, "NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin."))
    else:
        out.append(tt.nccl(rk, "NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation"))
    out.append(tt.nccl(rk, "cudaDriverVersion 12040"))
    if rk.g == 0:
        out.append(tt.nccl(rk, "NCCL version %s" % job.nccl))
    if job.nnodes > 1:
        nics = " ".join("[%d]mlx5_%d:1/%s" % (i, i, "RoCE" if job.layout in ("pai_dlc", "volc_mlp") else "IB")
                        for i in range(job.nics_per_node))
        out.append(tt.nccl(rk, "NET/IB : Using %s ; OOB %s:%s<0>" % (nics, ifn, nd.ip), tid=tid))
        out.append(tt.nccl(rk, "Using network IB", tid=tid))
    else:
        out.append(tt.nccl(rk, "NET/IB : No device found.", tid=tid))
        out.append(tt.nccl(rk, "NET/Socket : Using [0]%s:%s<0>" % (ifn, nd.ip), tid=tid))
        out.append(tt.nccl(rk, "Using network Socket", tid=tid))
    comm = "0x%s" % hexs(random.Random(job.idx * 31 + rk.g), 12)
    cid = "0x%s" % hexs(random.Random(job.idx * 3), 16)
    out.append(tt.nccl(rk, "comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId %s - Init START" % (
        comm, rk.g, job.world, rk.dev, rk.dev, rk.bus, cid), tid=tid))
    out.append(tt.nccl(rk, "Setting affinity for GPU %d to %s" % (rk.dev, "ffffffff,00000000,ffffffff" if rk.lr < 4 else "ffffffff,00000000,ffffffff,00000000"), tid=tid))
    if nv >= (2, 19):
        out.append(tt.nccl(rk, "comm %s rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL 0" % (
            comm, rk.g, job.world, job.nnodes, job.gpn, rk.lr), tid=tid))
    nxt = (rk.g + 1) % job.world
    pnd = job.ranks[nxt].node
    if pnd is nd:
        via = "via P2P/CUMEM/read" if nv >= (2, 19) and job.gpu != "4090" else ("via P2P/IPC" if job.gpu != "4090" else "via SHM/direct/direct")
    else:
        via = "[send] via NET/IB/%d/GDRDMA" % (int(rk.nic.split("_")[1]))
    out.append(tt.nccl(rk, "Channel 00/0 : %d[%d] -> %d[%d] %s" % (rk.g, rk.dev, nxt, job.ranks[nxt].dev, via), tid=tid))
    out.append(tt.nccl(rk, "Connected all rings", tid=tid))
    out.append(tt.nccl(rk, "Connected all trees", tid=tid))
    out.append(tt.nccl(rk, "threadThresholds 8/8/64 | %d/8/64 | 512 | 512" % (8 * job.world), tid=tid))
    out.append(tt.nccl(rk, "%d coll channels, %d collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer" % (
        pick(random.Random(job.idx), [16, 24, 32]), 0 if job.nnodes == 1 else 16), tid=tid))
    fn = "ncclCommInitRankConfig" if nv >= (2, 23) else "ncclCommInitRank"
    out.append(tt.nccl(rk, "%s comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId %s - Init COMPLETE" % (
        fn, comm, rk.g, job.world, rk.dev, rk.dev, rk.bus, cid), tid=tid))
    if nv >= (2, 23):
        out.append(tt.nccl(rk, "Init timings - %s: rank %d nranks %d total %.2f (kernels 0.%02d, alloc 0.01, bootstrap %.2f, allgathers 0.02, topo 0.%02d, graphs 0.01, connections 0.%02d, rest 0.01)" % (
            fn, rk.g, job.world, 1.2 + pnoise(rk.g, 1), rk.g % 30, 0.3 + pnoise(rk.g, 2) * 0.4, 20 + rk.g % 50, 10 + rk.g % 70), tid=tid))
    return out


# ----------------------------------------------------------------------------
# torch-based rank rendering (CUDA and torch_npu)
# ----------------------------------------------------------------------------
def rrng(job, rk, salt=""):
    return random.Random("%s|r%d|%s" % (job.seed_str, rk.g, salt))


def logging_rank(job):
    return job.world - 1 if job.fw == "megatron" else 0


def acl_err_head(job, rk, t):
    tt = t + rk.node.skew
    if job.tv >= (2, 5):
        return "[ERROR] %s (PID:%d, Device:%d, RankID:%d). ERR00100 PTA call acl api failed" % (
            f_asc(tt, job.container_tz), rk.pid, rk.dev, rk.g)
    return "[ERROR] %s (PID:%d, Device:%d, RankID:%d) ERR00100 PTA call acl api failed" % (
        f_asc_s(tt, job.container_tz), rk.pid, rk.dev, rk.g)


def asc_code_line(job, code, rk, t, text):
    tt = t + rk.node.skew
    return "%s: [PID: %d] %s %s" % (code, rk.pid, f_asc(tt, job.container_tz), text)


def hccl_tag(job, op="AllReduce"):
    nd0 = job.nodes[0]
    return "%s_%s%%enp189s0f0_60000_0_%d" % (op, nd0.ip, int(job.t_train * 1e6))


def npu_timeout_block(job, rk, t, rng, remote="[unknown]", op="AllReduce"):
    pre = "[rank%d]: " % rk.g if job.tv >= (2, 3) else ""
    frames = npu_sync_frames(job)
    lines = traceback_block(frames, [], prefix=pre).split("\n")
    body = [
        "RuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:467 NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is 507048",
        acl_err_head(job, rk, t),
        "[Error]: The execution of the internal task times out. ",
        "        Rectify the fault based on the error information in the ascend log.",
        asc_code_line(job, "EI0002", rk, t - 0.3,
                      "The wait execution of the Notify register times out. Reason: The Notify register has not received the Notify record from remote rank: %s. base information: [streamID:[%d], taskID[%d], tag[%s], AlgType(level 0-1-2):[fullmesh-ring-NHR]]. task information: []" % (
                          remote, rng.randrange(2, 9), rng.randrange(100, 90000), hccl_tag(job, op))),
        "        Possible Cause: 1. An exception occurs during the execution on some NPUs in the cluster. As a result, collective communication operation failed.2. The execution speed on some NPU in the cluster is too slow to complete a communication operation within the timeout interval. (default 1800s, You can set the interval by using HCCL_EXEC_TIMEOUT.)3. The number of training samples of each NPU is inconsistent.4. Packet loss or other connectivity problems occur on the communication link.",
        "        Solution: 1. If this error is reported on part of these ranks, check other ranks to see whether other errors have been reported earlier.2. If this error is reported for all ranks, check whether the error reporting time is consistent (the maximum difference must not exceed 1800s). If not, locate the cause or adjust the locate the cause or set the HCCL_EXEC_TIMEOUT environment variable to a larger value.3. Check whether the completion queue element (CQE) of the error exists in the plog(grep -rn 'error cqe'). If so, check the network connection status. (For details, see the TLS command and HCCN connectivity check examples.). 4. Ensure that the number of training samples of each NPU is consistent.",
        "        TraceBack (most recent call last):",
        "        Notify wait execute failed, device_id=%d, stream_id=%d, task_id=%d, flip_num=%d, notify_id=%d[FUNC:GetError][FILE:stream.cc][LINE:1121]" % (
            rk.dev, rng.randrange(2, 9), rng.randrange(100, 90000), rng.randrange(1, 40), rng.randrange(1, 60)),
        "        rtStreamSynchronizeWithTimeout execute failed, reason=[notify wait timeout][FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]",
        "        synchronize stream failed, runtime result = 507048[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:161]",
    ]
    return "\n".join(lines + [pre + x for x in body])


def npu_sync_frames(job):
    s, _n, fr = script_info(job)
    sp = job.sitepk
    out = list(fr)
    if job.fw == "megatron":
        out.append((s.rsplit("/", 1)[0] + "/megatron/core/pipeline_parallel/schedules.py", 208, "forward_step",
                    "num_tokens = torch.tensor(0, dtype=torch.int)"))
    else:
        out.append((sp + "/transformers/trainer.py", 2560, "_inner_training_loop",
                    "tr_loss = tr_loss + tr_loss_step"))
    out.append((sp + "/torch_npu/utils/_device.py", 76, "wrapper", "return fn(*args, **kwargs)"))
    return out


def dl_frames(job):
    sp = job.sitepk
    s, _n, fr = script_info(job)
    out = list(fr[:-1]) if fr else []
    if job.fw in ("hf", "swift"):
        out.append((sp + "/transformers/trainer.py", 2474, "_inner_training_loop",
                    "batch_samples, num_items_in_batch = self.get_batch_samples(epoch_iterator, num_batches)"))
        out.append((sp + "/transformers/trainer.py", 5130, "get_batch_samples", "batch_samples += [next(epoch_iterator)]"))
        out.append((sp + "/accelerate/data_loader.py", 552, "__iter__", "current_batch = next(dataloader_iter)"))
    elif job.fw == "megatron":
        mg = s.rsplit("/", 1)[0]
        out.append((s, 143, "forward_step", "tokens, labels, loss_mask, attention_mask, position_ids = get_batch("))
        out.append((s, 98, "get_batch", "batch = get_batch_on_this_tp_rank(data_iterator)"))
        out.append((mg + "/megatron/training/utils.py", 328, "get_batch_on_this_tp_rank", "data = next(data_iterator)"))
    else:
        out.append((s, 371, "main", "for step, batch in enumerate(prefetch_dataloader):"))
    out.append((sp + "/torch/utils/data/dataloader.py", 701, "__next__", "data = self._next_data()"))
    out.append((sp + "/torch/utils/data/dataloader.py", 1448, "_next_data", "idx, data = self._get_data()"))
    return out


def handled_exc_block(job, rk, t, rng):
    """A handled exception that does not stop training (decoy)."""
    sp = job.sitepk
    pre = ""
    kind = rng.randrange(3)
    if kind == 0:
        tb = traceback_block([
            (sp + "/urllib3/connectionpool.py", 789, "urlopen", "response = self._make_request("),
            (sp + "/urllib3/connectionpool.py", 536, "_make_request", "response = conn.getresponse()"),
            (sp + "/urllib3/connection.py", 507, "getresponse", "httplib_response = super().getresponse()"),
        ], ["TimeoutError: The read operation timed out", "",
            "During handling of the above exception, another exception occurred:", "",
            "Traceback (most recent call last):",
            '  File "%s/swanlab/data/sdk.py", line 212, in _upload' % sp,
            "    resp = self._session.post(url, json=payload, timeout=10)",
            "requests.exceptions.ReadTimeout: HTTPSConnectionPool(host='api.swanlab.cn', port=443): Read timed out. (read timeout=10)"],
            prefix=pre)
        tail = "swanlab: 指标上传失败，稍后自动重试（不影响训练）"
    elif kind == 1:
        tb = traceback_block([
            ("/mnt/workspace/utils/metrics.py" if job.layout != "paddle_launch" else "/root/PaddleNLP/llm/utils/metrics.py",
             57, "log_tokens_per_sec", "tps = tokens / (now - self._last)"),
        ], ["ZeroDivisionError: float division by zero"], prefix=pre)
        tail = "[警告] 吞吐统计异常，已忽略本次统计"
    else:
        tb = traceback_block([
            ("/mnt/workspace/utils/ckpt.py" if job.layout != "paddle_launch" else "/root/PaddleNLP/llm/utils/ckpt.py",
             88, "cleanup_old", "shutil.rmtree(old_dir)"),
            ("/usr/lib/python3.10/shutil.py", 725, "rmtree", "_rmtree_safe_fd(fd, path, onerror)"),
        ], ["FileNotFoundError: [Errno 2] No such file or directory: 'checkpoint-%d/rng_state_%d.pth'" % (
            job.hb_every * 10, rk.g)], prefix=pre)
        tail = "清理旧检查点失败（已被其它进程删除），继续训练"
    return [(t, tb), (t + 0.01, user_line(job, rk, t + 0.01, tail))]


def pyexc_lines(job, rk, t, rng):
    sp = job.sitepk
    s, _n, fr = script_info(job)
    pre = "[rank%d]: " % rk.g if job.tv >= (2, 3) else ""
    dsfile = {"megatron": "/mnt/workspace/data/sft_dataset.py", "hf": sp + "/llamafactory/data/processor/supervised.py",
              "swift": sp + "/swift/llm/dataset/preprocessor/core.py", "colossal": "/workspace/ColossalAI/applications/Colossal-LLaMA/colossal_llama/dataset/loader.py"}.get(job.fw, "/mnt/workspace/data/dataset.py")
    if job.accel == "npu" and job.fw == "megatron":
        dsfile = "/home/ma-user/modelarts/user-job-dir/code/data/jsonl_dataset.py"
    shard = rng.randrange(10, 400)
    line_no = rng.randrange(1000, 90000)
    kinds = [
        ("KeyError", ["KeyError: 'conversations'"], "messages = example[\"conversations\"]"),
        ("ValueError", ["ValueError: 样本 %d 的 labels 全部为 -100，请检查数据：/mnt/data/sft/part-%05d.jsonl 第 %d 行" % (
            line_no, shard, line_no)], "raise ValueError(f\"样本 {idx} 的 labels 全部为 -100，请检查数据：{path} 第 {lineno} 行\")"),
        ("UnicodeDecodeError", ["UnicodeDecodeError: 'utf-8' codec can't decode byte 0x%02x in position %d: invalid continuation byte" % (
            pick(rng, [0xb5, 0xc4, 0xd6, 0xce]), rng.randrange(10, 4000))], "text = raw.decode(\"utf-8\")"),
        ("JSONDecodeError", ["json.decoder.JSONDecodeError: Expecting ',' delimiter: line 1 column %d (char %d)" % (
            rng.randrange(100, 9000), rng.randrange(100, 9000))], "sample = json.loads(line)"),
        ("FileNotFoundError", ["FileNotFoundError: [Errno 2] No such file or directory: '/mnt/cpfs/datasets/pretrain/shard_%05d.bin'" % shard],
         "with open(self.paths[idx], \"rb\") as f:"),
    ]
    name, exc, code = pick(rng, kinds)
    inner = [(dsfile, rng.randrange(40, 300), "__getitem__", code)]
    if name == "JSONDecodeError":
        inner += [("/usr/lib/python%s/json/__init__.py" % job.pyver, 346, "loads", "return _default_decoder.decode(s)"),
                  ("/usr/lib/python%s/json/decoder.py" % job.pyver, 337, "decode", "obj, end = self.raw_decode(s, idx=_w(s, 0).end())"),
                  ("/usr/lib/python%s/json/decoder.py" % job.pyver, 353, "raw_decode", "obj, end = self.scan_once(s, idx)")]
    wrapped = chance(rng, 0.6)
    if wrapped:
        outer = dl_frames(job) + [
            (sp + "/torch/utils/data/dataloader.py", 1474, "_process_data", "data.reraise()"),
            (sp + "/torch/_utils.py", 733, "reraise", "raise exception")]
        ename = exc[0].split(":")[0]
        short = ename.split(".")[-1]
        head = "%s: Caught %s in DataLoader worker process %d." % (ename, short, rng.randrange(0, 8))
        orig = traceback_block([
            (sp + "/torch/utils/data/_utils/worker.py", 351, "_worker_loop", "data = fetcher.fetch(index)  # type: ignore[possibly-undefined]"),
            (sp + "/torch/utils/data/_utils/fetch.py", 52, "fetch", "data = [self.dataset[idx] for idx in possibly_batched_index]"),
            (sp + "/torch/utils/data/_utils/fetch.py", 52, "<listcomp>", "data = [self.dataset[idx] for idx in possibly_batched_index]"),
        ] + inner, exc)
        orig = orig.replace("Traceback (most recent call last):", "Original Traceback (most recent call last):", 1)
        body = traceback_block(outer, [head] + orig.split("\n"), prefix=pre)
    else:
        body = traceback_block(list(fr[:2]) + [(s, rng.randrange(200, 600), "build_batch", "batch = collate_fn([dataset[i] for i in idxs])")] + inner, exc, prefix=pre)
    job.notes.append("python_exception: %s raised on rank %d%s" % (name, rk.g, " inside a DataLoader worker" if wrapped else ""))
    return body


def segv_dump(job, rk, rng):
    sp = job.sitepk
    thr = lambda: "0x00007f%s" % hexs(rng, 10)
    lines = ["Fatal Python error: Segmentation fault", ""]
    lines.append("Thread %s (most recent call first):" % thr())
    lines.append('  File "/usr/lib/python%s/threading.py", line 324 in wait' % job.pyver)
    lines.append('  File "/usr/lib/python%s/threading.py", line 607 in wait' % job.pyver)
    lines.append('  File "%s/tqdm/_monitor.py", line 60 in run' % sp)
    lines.append('  File "/usr/lib/python%s/threading.py", line 1016 in _bootstrap_inner' % job.pyver)
    lines.append('  File "/usr/lib/python%s/threading.py", line 973 in _bootstrap' % job.pyver)
    lines.append("")
    lines.append("Current thread %s (most recent call first):" % thr())
    if job.accel == "npu":
        culp = [(sp + "/torch_npu/contrib/function/npu_rotary_embedding.py", 88, "forward"),
                (sp + "/mindspeed/ops/npu_rotary_position_embedding.py", 41, "npu_rotary_position_embedding")]
    else:
        culp = pick(rng, [[(sp + "/flash_attn/flash_attn_interface.py", 170, "_flash_attn_varlen_forward"),
                           (sp + "/flash_attn/flash_attn_interface.py", 905, "forward")],
                          [(sp + "/apex/contrib/layer_norm/layer_norm.py", 21, "forward")],
                          [(sp + "/deepspeed/ops/adam/fused_adam.py", 192, "step")]])
    for f, ln, fn in culp:
        lines.append('  File "%s", line %d in %s' % (f, ln, fn))
    lines.append('  File "%s/torch/autograd/function.py", line 575 in apply' % sp)
    lines.append('  File "%s/torch/nn/modules/module.py", line 1747 in _call_impl' % sp)
    lines.append('  File "%s/torch/nn/modules/module.py", line 1736 in _wrapped_call_impl' % sp)
    s, _n, fr = script_info(job)
    for f, ln, fn, _c in reversed(fr[-3:]):
        lines.append('  File "%s", line %d in %s' % (f, ln, fn))
    lines.append("")
    lines.append("Extension modules: numpy.core._multiarray_umath, numpy.core._multiarray_tests, numpy.linalg._umath_linalg, torch._C, torch._C._fft, torch._C._linalg, torch._C._nested, torch._C._nn, torch._C._sparse, torch._C._special, yaml._yaml, sentencepiece._sentencepiece, psutil._psutil_linux, regex._regex, pyarrow.lib (total: %d)" % rng.randrange(90, 180))
    return "\n".join(lines)


def render_rank_torch(job, rk):
    tt = TT(job)
    rng = rrng(job, rk)
    log = Log()
    nd = rk.node
    e = job.ends[rk.g]
    cause = job.cause if not job.healthy else None
    s_path, s_name, fr = script_info(job)
    ts0 = nd.start + 3 + rng.uniform(0, 10)
    ct = job.container_tz
    # ---- start-up
    if job.accel == "cuda" and job.tv >= (2, 2) and job.flag_env_deprecated:
        log.add(ts0, tt.c10(rk, "W", ts0, "Utils.hpp:135", "Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated; use TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function operator())"))
    if job.decoy_socket and rk.lr == 0 and nd.k != 0:
        t1 = ts0 + 0.5
        if job.tv >= (2, 4):
            log.add(t1, tt.c10(rk, "W", t1, "socket.cpp:752", "[c10d] The client socket has failed to connect to [%s]:%d (errno: 111 - Connection refused)." % (job.nodes[0].name, job.master_port)))
        else:
            log.add(t1, tt.c10(rk, "W", t1, "socket.cpp:663", "[c10d] The client socket has failed to connect to [%s]:%d (errno: 111 - Connection refused)." % (job.nodes[0].name, job.master_port)))
    t_fw = ts0 + rng.uniform(5, 30)
    if job.fw == "hf":
        if job.tv >= (2, 4):
            log.add(t_fw, "[INFO|%s] llamafactory.hparams.parser:%d >> Process rank: %d, world size: %d, device: %s:%d, distributed training: True, compute dtype: torch.bfloat16" % (
                f_ymd(t_fw + nd.skew, ct, ms=False), 383, rk.g, job.world, "npu" if job.accel == "npu" else "cuda", rk.dev))
        else:
            log.add(t_fw, "%s - INFO - llamafactory.hparams.parser - Process rank: %d, device: %s:%d, n_gpu: 1, distributed training: True, compute dtype: torch.bfloat16" % (
                dtz(t_fw + nd.skew, ct).strftime("%m/%d/%Y %H:%M:%S"), rk.g, "npu" if job.accel == "npu" else "cuda", rk.dev))
    elif job.fw == "swift":
        log.add(t_fw, "[INFO:swift] Global seed set to 42")
        if rk.g == 0:
            log.add(t_fw + 0.1, "[INFO:swift] Start time of running main: %s" % dtz(t_fw + nd.skew, ct).strftime("%Y-%m-%d %H:%M:%S.%f"))
            log.add(t_fw + 0.2, "[INFO:swift] rank: %d, local_rank: %d, world_size: %d, local_world_size: %d" % (rk.g, rk.lr, job.world, job.gpn))
            log.add(t_fw + 0.3, "[INFO:swift] Loading the model using model_dir: /mnt/models/%s" % job.model)
    elif job.fw == "colossal":
        dd = dtz(t_fw + nd.skew, ct).strftime("[%m/%d/%y %H:%M:%S]")
        log.add(t_fw, "%s INFO     colossalai - colossalai - INFO: %s/colossalai/initialize.py:75 launch" % (dd, job.sitepk))
        if rk.g == 0:
            log.add(t_fw + 0.01, "                    INFO     colossalai - colossalai - INFO: Distributed environment is initialized, world size: %d" % job.world)
    elif job.fw == "megatron":
        if rk.g == 0:
            tp = 8 if job.world >= 8 else job.world
            log.add(t_fw, "using world size: %d, data-parallel size: %d, context-parallel size: 1, tensor-model-parallel size: %d, pipeline-model-parallel size: 1 " % (
                job.world, max(1, job.world // tp), tp))
            log.add(t_fw + 1, "> initializing torch distributed ...")
            log.add(t_fw + 9, "> initialized tensor model parallel with size %d" % tp)
            log.add(t_fw + 9.1, "> initialized pipeline model parallel with size 1")
            log.add(job.t_train - 30, "[after model, optimizer, and learning rate scheduler are built] datetime: %s " % f_ymd(job.t_train - 30 + nd.skew, ct, ms=False))
            log.add(job.t_train - 1, "training ...")
            log.add(job.t_train, "[before the start of training step] datetime: %s " % f_ymd(job.t_train + nd.skew, ct, ms=False))
    if job.accel == "npu" and rng.random() < 0.7:
        t2 = job.t_train + rng.uniform(1, 20)
        log.add(t2, tt.c10(rk, "W", t2, "compiler_depend.ts:133", "Warning: Warning: Device do not support double dtype now, dtype cast repalce with float. (function operator())"))
        if rng.random() < 0.4:
            log.add(t2 + 0.2, "%s/torch_npu/distributed/distributed_c10d.py:110: UserWarning: HCCL doesn't support gather at the moment. Implemented with allgather instead.\n  warnings.warn(\"HCCL doesn't support gather at the moment. Implemented with allgather instead.\")" % job.sitepk)
    if job.nccl_debug_info:
        tn = job.t_train - rng.uniform(20, 80)
        for i, x in enumerate(nccl_init_lines(job, tt, rk, tn)):
            log.add(tn + i * 0.003, x)
    if rk.g == 0 and job.fw in ("hf", "swift"):
        tr = job.t_train - 2
        if job.fw == "hf":
            for i, x in enumerate(["***** Running training *****", "  Num examples = {:,}".format(job.total_steps * 64),
                                   "  Num Epochs = 3", "  Instantaneous batch size per device = 2",
                                   "  Total train batch size (w. parallel, distributed & accumulation) = %d" % (job.world * 16),
                                   "  Gradient Accumulation steps = 8", "  Total optimization steps = {:,}".format(job.total_steps),
                                   "  Number of trainable parameters = {:,}".format(rng.randrange(20000000, 8000000000))]):
                log.add(tr + i * 0.001, "[INFO|trainer.py:2369] %s >> %s" % (f_ymd(tr + nd.skew, ct), x))
        else:
            log.add(tr, "[INFO:swift] The logging file will be saved in: /mnt/output/v%d-%s/logging.jsonl" % (
                rng.randrange(0, 9), dtz(tr, 8).strftime("%Y%m%d-%H%M%S")))
            log.add(tr + 0.1, "Train:   0%%|          | 0/%d [00:00<?, ?it/s]" % job.total_steps)
    # ---- progress
    last = job.last_step[rk.g]
    hb_on = job.hb_on
    lrank = logging_rank(job)
    k = job.hb_every
    while k <= last:
        t = job.step_end[k] + 0.02 + 0.05 * pnoise(k, rk.g)
        if hb_on:
            log.add(t, hb_line(job, rk, t, k))
        if rk.g == lrank:
            for j, x in enumerate(trainer_lines(job, rk, t + 0.01, k)):
                log.add(t + 0.01 + j * 0.001, x)
        if k % 500 == 0 and rk.g == 0:
            tc = t + 1
            if job.fw in ("hf", "swift"):
                log.add(tc, "[INFO|trainer.py:3984] %s >> Saving model checkpoint to /mnt/output/checkpoint-%d" % (f_ymd(tc + nd.skew, ct), k))
            log.add(tc + 0.1, user_line(job, rk, tc + 0.1, "保存检查点：step=%d，路径 /mnt/output/checkpoint-%d" % (k, k)))
        k += job.hb_every
    # straggler: the slow rank's own monitoring
    if cause == "straggler" and rk.g == job.culprit and job.straggler_extra:
        kk = job.straggle_on + job.hb_every * 2
        if kk <= last:
            t = job.step_end[kk] + 0.3
            log.add(t, user_line(job, rk, t, "警告：本 rank 前反向耗时明显高于均值（%.2fs vs 全局中位数 %.2fs）" % (
                split_time(job, rk, kk)[1], job.step_time * 0.84)))
    # ---- decoys inside rank logs
    if job.decoy_overflow and rk.g == 0 and last > 3:
        for j, kk in enumerate(sorted(set([1 + (last * q) // 7 for q in (1, 2, 4)]))):
            t = job.step_end[kk] + 0.2
            sc = 65536 >> j
            log.add(t, "[%s] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: %d, reducing to %d" % (
                f_ymd(t + nd.skew, ct), sc, sc // 2))
    if job.decoy_handled_rank == rk.g:
        kk = max(job.hb_every, (last // 2) // job.hb_every * job.hb_every)
        t = job.step_end[min(kk, last)] + 1.3 if last > 0 else job.t_train + 5
        for tx, x in handled_exc_block(job, rk, t, rng):
            log.add(tx, x)
    if job.decoy_gid_rank == rk.g and job.accel == "cuda" and job.nnodes > 1:
        t = job.t_train + (job.F - job.t_train) * rng.uniform(0.2, 0.7)
        log.add(t, tt.nccl(rk, "NET/IB : %s:1 Got async event : GID table change" % rk.nic, tid=rk.pid + 200, warn=True,
                           src="transport/net_ib.cc:%d" % pick(rng, [140, 165, 191])))
    # ---- end of the process
    for tx, x in end_lines_torch(job, rk, e, tt, rng):
        log.add(tx, x)
    return log


def coll_nout(job, op, nin):
    if "ALLGATHER" in op:
        return nin * job.world
    if "REDUCE_SCATTER" in op:
        return max(1, nin // job.world)
    return nin


def end_lines_torch(job, rk, e, tt, rng):
    out = []
    cause = job.cause if not job.healthy else None
    k = e.kind
    t = e.t
    pre = tt.tbp(rk)
    s_path, s_name, fr = script_info(job)
    npu = job.accel == "npu"
    seq = job.seq_block
    if k == "finish":
        if rk.g == 0:
            if job.fw in ("hf", "swift"):
                out.append((t - 5, "[INFO|trainer.py:2643] %s >> \n\nTraining completed. Do not forget to share your model on huggingface.co/models =)\n\n" % f_ymd(t - 5 + rk.node.skew, job.container_tz)))
                out.append((t - 4.9, "{'train_runtime': %.4f, 'train_samples_per_second': %.3f, 'train_steps_per_second': %.3f, 'train_loss': %.4f, 'epoch': 3.0}" % (
                    job.step_end[job.total_steps] - job.t_train, 64.0 / job.step_time, 1.0 / job.step_time, loss_at(job, job.total_steps // 2))))
            out.append((t - 3, user_line(job, rk, t - 3, "训练完成，总步数 %d，模型已保存到 /mnt/output/final" % job.total_steps)))
        if job.tv >= (2, 4) and not npu and job.pg_warn:
            out.append((t, tt.c10(rk, "W", t, "ProcessGroupNCCL.cpp:1250", "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only recently been added. For more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())")))
        return out
    if k in ("term", "preempt", "killall"):
        if k == "term" and e.kw.get("was") == "hung" and job.variant == "ckpt_io":
            pass
        return out
    if k == "hung":
        return out
    if k == "timeout":
        enq, comp = seq, seq - 1
        op, nin = job.block_op, job.block_numel
        nout = coll_nout(job, op, nin)
        if cause == "collective_mismatch" and rk.g == job.culprit:
            op, nin = job.mm_op, job.mm_numel
            nout = coll_nout(job, op, nin)
        if npu and job.npu_timeout_style == "ei0002":
            remote = "[unknown]"
            if cause in ("hang", "data_loader_stall") and job.culprit is not None and job.hang_remote_hint and chance(rng, 0.7):
                remote = "[%d]" % job.culprit
            hop = {"ALLREDUCE": "AllReduce", "_ALLGATHER_BASE": "AllGather", "ALLGATHER": "AllGather",
                   "_REDUCE_SCATTER_BASE": "ReduceScatter", "BROADCAST": "Broadcast", "REDUCE_SCATTER": "ReduceScatter",
                   "BARRIER": "AllReduce"}.get(op, "AllReduce")
            out.append((t, npu_timeout_block(job, rk, t, rng, remote=remote, op=hop)))
        else:
            out.append((t, tt.watchdog_timeout(rng, rk, t, seq, op, nin, nout, enq, comp)))
        return out
    if k in ("remote", "neterr_peer"):
        if npu:
            out.append((t, npu_timeout_block(job, rk, t, rng)))
            return out
        peer_nd = job.cnode if (job.cnode is not None and chance(rng, 0.65)) else job.nodes[rng.randrange(job.nnodes)]
        if peer_nd is rk.node and job.nnodes > 1:
            peer_nd = job.nodes[(rk.node.k + 1) % job.nnodes]
        port = rng.randrange(30000, 65000)
        if job.nnodes > 1 and (job.coll_mode == "remote" or k == "neterr_peer"):
            nv = tuple(int(x) for x in job.nccl.split("+")[0].split("."))
            if nv >= (2, 21):
                w = "NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Send) localGid ::ffff:%s remoteGid ::ffff:%s hca %s" % (
                    peer_nd.ip, port, rk.node.ip, peer_nd.ip, rk.nic)
            else:
                w = "NET/IB : Got completion from peer %s<%d> with error 12, opcode 0, len 0, vendor err 129 (Send) localGid ::ffff:%s remoteGid ::ffff:%s" % (
                    peer_nd.ip, port, rk.node.ip, peer_nd.ip)
            if k == "remote" and chance(rng, 0.35):
                w = "socketProgressOpt: Call to recv from %s<%d> failed : Connection reset by peer" % (peer_nd.ip, port)
            src = "transport/net_ib.cc:%d" % pick(rng, [1696, 1789, 2172]) if "IB" in w else "misc/socket.cc:%d" % pick(rng, [49, 62])
            out.append((t - 0.8, tt.nccl(rk, w, tid=rk.pid + 300, warn=True, src=src)))
            out.append((t - 0.79, tt.nccl(rk, "transport/net.cc:1298 -> 6", tid=rk.pid + 300)))
            out.append((t - 0.78, tt.nccl(rk, "proxy.cc:694 -> 6", tid=rk.pid + 300)))
            out.append((t - 0.77, tt.nccl(rk, "proxy.cc:874 -> 6 [Progress Thread]", tid=rk.pid + 300)))
            v = job.nccl.split("+")[0]
            err = ["NCCL error: remote process exited or there was a network error, NCCL version %s" % v,
                   "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
                   "Last error:", w]
            out.append((t, tt.watchdog_error(rng, rk, t, err, "checkForNCCLErrorsInternal at ../torch/csrc/distributed/c10d/NCCLUtils.cpp:275")))
        else:
            out.append((t, tt.watchdog_timeout(rng, rk, t, seq, job.block_op, job.block_numel, coll_nout(job, job.block_op, job.block_numel))))
        return out
    if k == "neterr":
        return culprit_lines_torch(job, rk, t, tt, rng, "network_local")
    if k == "mismatch":
        c = job.culprit
        other = 0 if c != 0 else 1
        me = rk.g
        them = c if me != c else other
        def fp(r):
            if r == c:
                op, n = job.mm_op, job.mm_numel
            else:
                op, n = job.block_op, job.block_numel
            return "CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%d], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))" % (seq, op, n)
        opa = job.mm_op if me == c else job.block_op
        opb = job.mm_op if them == c else job.block_op
        msg = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects: \t Op type: %svs %s" % (
            me, fp(me), them, fp(them), opa, opb)
        frames = list(fr) + [
            (job.sitepk + "/torch/distributed/c10d_logger.py", 81, "wrapper", "return func(*args, **kwargs)"),
            (job.sitepk + "/torch/distributed/distributed_c10d.py", 2501, "all_reduce", "work = group.allreduce([tensor], opts)")]
        out.append((t, traceback_block(frames, [msg], prefix=pre)))
        return out
    if k == "culprit":
        return culprit_lines_torch(job, rk, t, tt, rng, cause)
    return out


def culprit_lines_torch(job, rk, t, tt, rng, cause):
    out = []
    pre = tt.tbp(rk)
    npu = job.accel == "npu"
    s_path, s_name, fr = script_info(job)
    sp = job.sitepk
    var = job.variant
    if cause == "cuda_oom":
        frames = list(fr) + model_frames(job, pick(rng, ["mlp", "attn"]))
        if not npu:
            frames.append((sp + "/torch/nn/modules/linear.py", 125, "forward", "return F.linear(input, self.weight, self.bias)"))
        else:
            frames.append((sp + "/torch/nn/modules/linear.py", 117, "forward", "return F.linear(input, self.weight, self.bias)"))
        out.append((t, traceback_block(frames, tt.oom_msg(rng, rk), prefix=pre)))
        if npu and chance(rng, 0.5):
            out.append((t + 0.001, pre + asc_code_line(job, "EL0004", rk, t, "Failed to allocate memory.") + "\n" + pre +
                        "        Possible Cause: Available memory is insufficient.\n" + pre +
                        "        Solution: Close applications not in use.\n" + pre +
                        "        TraceBack (most recent call last):\n" + pre +
                        "        alloc device memory failed, runtime result = 207001[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:161]"))
            job.notes.append("Ascend EL0004 (Failed to allocate memory) is the NPU out-of-memory signature -> cuda_oom")
        return out
    if cause == "illegal_memory_access":
        if npu:
            frames = list(fr) + model_frames(job, "attn")[:4]
            body = ["RuntimeError: The Inner error is reported as above. The process exits for this inner error, and the current working operator name is %s." % pick(rng, ["IndexPutV2", "GatherV2", "ScatterNdUpdate", "FlashAttentionScore"]),
                    "Since the operator is called asynchronously, the stacktrace may be inaccurate. If you want to get the accurate stacktrace, please set the environment variable ASCEND_LAUNCH_BLOCKING=1.",
                    "Note: ASCEND_LAUNCH_BLOCKING=1 will force ops to run in synchronous mode, resulting in performance degradation. Please unset ASCEND_LAUNCH_BLOCKING in time after debugging.",
                    acl_err_head(job, rk, t) + ".",
                    "EZ9999: Inner Error!",
                    asc_code_line(job, "EZ9999", rk, t - 0.2, "The error from device(chipId:%d, dieId:0), serial number is %d, there is an aivec error exception, core id is %d, error code = 0x800000, dump info: pc start: 0x1240c%s, current: 0x1240c%s, vec error info: 0x%s, mte error info: 0x%s, ifu error info: 0x0, ccu error info: 0x0, cube error info: 0x0, biu error info: 0x0, aic error mask: 0x65000200d000288, para base: 0x1241%s.[FUNC:ProcessStarsCoreErrorInfo][FILE:device_error_core_proc.cc][LINE:291]" % (
                        rk.dev, rng.randrange(1, 40), rng.randrange(0, 48), hexs(rng, 7), hexs(rng, 7), hexs(rng, 10), hexs(rng, 9), hexs(rng, 8))),
                    "        TraceBack (most recent call last):",
                    "        The extend info: errcode:(0x800000, 0x0, 0x0) errorStr: The DDR address of the MTE instruction is out of range. fixp_error0 info: 0x%s, fixp_error1 info: 0x0, fsmId:0, tslot:0, thread:0, ctxid:0, blk:%d, sublk:0, subErrType:4.[FUNC:ProcessStarsCoreErrorInfo][FILE:device_error_core_proc.cc][LINE:310]" % (hexs(rng, 7), rng.randrange(0, 40)),
                    "        Kernel task happen error, retCode=0x31, [vector core exception].[FUNC:PreCheckTaskErr][FILE:davinci_kernel_task.cc][LINE:1363]",
                    "        AIV Kernel happen error, retCode=0x31.[FUNC:GetError][FILE:stream.cc][LINE:1119]"]
            out.append((t, traceback_block(frames, body, prefix=pre)))
            job.notes.append("Ascend aivec exception 'DDR address of the MTE instruction is out of range' (EZ9999) -> illegal_memory_access")
            return out
        if var == "python_raise":
            frames = list(fr) + model_frames(job, "attn")
            out.append((t, traceback_block(frames, ["RuntimeError: CUDA error: an illegal memory access was encountered"] + tt.cuda_err_lines("x")[1:4], prefix=pre)))
        else:
            out.append((t, tt.watchdog_error(rng, rk, t, tt.cuda_err_lines("an illegal memory access was encountered"),
                                             "c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43")))
        return out
    if cause == "gpu_hardware":
        if npu:
            frames = npu_sync_frames(job)
            body = ["RuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:467 NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is 507010",
                    acl_err_head(job, rk, t),
                    asc_code_line(job, "EL0001", rk, t - 0.4, "Device_Absent/Abnormal(EL0001): Device not found or invalid."),
                    "        Possible Cause: Device does not exist or is abnormal.",
                    "        Solution: Check the error messages in the log.",
                    "        TraceBack (most recent call last):",
                    "        [drv api] halCqReportRecv failed: device_id=%d, ts_id=0, type=2, logic_cq=%d, drv_ret_code=33[FUNC:LogicCqReportV2][FILE:npu_driver_res.cc][LINE:2103]" % (rk.dev, rng.randrange(2, 12)),
                    "        Device[%d] lost heartbeat.[FUNC:SyncTask][FILE:direct_hwts_engine.cc][LINE:407]" % rk.dev,
                    "        rtDeviceSynchronizeWithTimeout execution failed, reason=lost heartbeat[FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:65]",
                    "        wait for compute device to finish failed, runtime result = 507010.[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:148]"]
            out.append((t, traceback_block(frames, body, prefix=pre)))
            job.notes.append("Ascend device heartbeat lost (507010 / EL0001 'Device[%d] lost heartbeat') mapped to gpu_hardware" % rk.dev)
            return out
        txt = job.hw_text
        if var == "python_raise":
            frames = list(fr) + model_frames(job, "mlp")
            out.append((t, traceback_block(frames, ["RuntimeError: CUDA error: %s" % txt] + tt.cuda_err_lines("x")[1:4], prefix=pre)))
        else:
            out.append((t, tt.watchdog_error(rng, rk, t, tt.cuda_err_lines(txt), "c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43")))
        return out
    if cause == "ecc_memory":
        if npu:
            frames = npu_sync_frames(job)
            body = ["RuntimeError: HBM MULTI BIT ECC ERROR, EZ9999: Inner Error!",
                    asc_code_line(job, "EZ9999", rk, t - 0.3, "The error from device(chipId:%d, dieId:0), serial number is %d, hbm Multi-bit ECC error occurred during task execution, device memory address 0x12c%s.[FUNC:ProcessStarsHbmEccErrorInfo][FILE:device_error_proc.cc][LINE:1011]" % (
                        rk.dev, rng.randrange(1, 40), hexs(rng, 9))),
                    "        TraceBack (most recent call last):",
                    "        rtStreamSynchronizeWithTimeout execute failed, reason=[hbm Multi-bit ECC error][FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]",
                    "        synchronize stream failed, runtime result = 507054[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:161]",
                    "",
                    acl_err_head(job, rk, t)]
            out.append((t, traceback_block(frames, body, prefix=pre)))
            job.notes.append("Ascend 'HBM MULTI BIT ECC ERROR' (runtime 507054) mapped to ecc_memory")
            return out
        if var == "python_raise":
            frames = list(fr) + model_frames(job, "mlp")
            out.append((t, traceback_block(frames, ["RuntimeError: CUDA error: uncorrectable ECC error encountered"] + tt.cuda_err_lines("x")[1:4], prefix=pre)))
        else:
            out.append((t, tt.watchdog_error(rng, rk, t, tt.cuda_err_lines("uncorrectable ECC error encountered"),
                                             "c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43")))
        return out
    if cause == "nvlink":
        if npu:
            frames = npu_sync_frames(job)
            body = ["RuntimeError: HCCS LINK ERROR, EI9999: Inner Error!",
                    asc_code_line(job, "EI9999", rk, t - 0.5, "HCCS link of device %d is abnormal, link status changed to DOWN, please check the HCCS link.[FUNC:ProcessLinkErrorInfo][FILE:device_error_proc.cc][LINE:1503]" % rk.dev),
                    "        TraceBack (most recent call last):",
                    "        rtStreamSynchronizeWithTimeout execute failed, reason=[link error][FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]",
                    "",
                    acl_err_head(job, rk, t)]
            out.append((t, traceback_block(frames, body, prefix=pre)))
            job.notes.append("Ascend 'HCCS LINK ERROR' (intra-node HCCS) mapped to nvlink")
            return out
        txt = "an uncorrectable NVLink error was detected during the execution"
        out.append((t - 0.4, tt.nccl(rk, "Cuda failure '%s'" % txt, tid=rk.pid + 300, warn=True, src="misc/strongstream.cc:395")))
        out.append((t, tt.watchdog_error(rng, rk, t, tt.cuda_err_lines(txt), "c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43")))
        return out
    if cause in ("network", "network_local"):
        if npu:
            if cause == "network":
                frames = npu_sync_frames(job)
                body = ["RuntimeError: %s, EI9999: Inner Error!" % pick(rng, ["HCCL OP RETRY FAILED", "SUSPECT REMOTE ERROR"]),
                        asc_code_line(job, "EI9999", rk, t - 0.4, "Transport init error or RDMA CQE error, reason=[error cqe status[12]], device id %d, local ip %s, remote ip %s.[FUNC:ProcessRdmaCqeErr][FILE:hccl_communicator.cc][LINE:3121]" % (
                            rk.dev, dev_ip(job, rk), dev_ip(job, job.ranks[(rk.g + job.gpn) % job.world]))),
                        "        TraceBack (most recent call last):",
                        "        rtStreamSynchronizeWithTimeout execute failed, reason=[hccl op retry fail][FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]",
                        "",
                        acl_err_head(job, rk, t)]
                out.append((t, traceback_block(frames, body, prefix=pre)))
                job.notes.append("Ascend RoCE link down (hccn_tool link DOWN, 'error cqe' in plog, HCCL OP RETRY FAILED) mapped to network")
            else:
                out.append((t, npu_timeout_block(job, rk, t, rng)))
            return out
        v = job.nccl.split("+")[0]
        peer = job.nodes[(rk.node.k + 1) % job.nnodes]
        port = rng.randrange(30000, 65000)
        nv = tuple(int(x) for x in v.split("."))
        if cause == "network":
            out.append((t - 1.6, tt.nccl(rk, "NET/IB : %s:1 Got async event : port error" % rk.nic, tid=rk.pid + 200, warn=True, src="transport/net_ib.cc:%d" % pick(rng, [140, 165, 191]))))
        if nv >= (2, 21):
            w = "NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Send) localGid ::ffff:%s remoteGid ::ffff:%s hca %s" % (
                peer.ip, port, rk.node.ip, peer.ip, rk.nic)
        else:
            w = "NET/IB : Got completion from peer %s<%d> with error 12, opcode 0, len 0, vendor err 129 (Send) localGid ::ffff:%s remoteGid ::ffff:%s" % (
                peer.ip, port, rk.node.ip, peer.ip)
        out.append((t - 0.8, tt.nccl(rk, w, tid=rk.pid + 300, warn=True, src="transport/net_ib.cc:%d" % pick(rng, [1696, 1789, 2172]))))
        out.append((t - 0.79, tt.nccl(rk, "transport/net.cc:1298 -> 6", tid=rk.pid + 300)))
        out.append((t - 0.78, tt.nccl(rk, "proxy.cc:694 -> 6", tid=rk.pid + 300)))
        err = ["NCCL error: remote process exited or there was a network error, NCCL version %s" % v,
               "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
               "Last error:", w]
        out.append((t, tt.watchdog_error(rng, rk, t, err, "checkForNCCLErrorsInternal at ../torch/csrc/distributed/c10d/NCCLUtils.cpp:275")))
        return out
    if cause == "python_exception":
        out.append((t, pyexc_lines(job, rk, t, rng)))
        return out
    if cause == "host_oom_kill":
        if var == "dl_worker_killed":
            frames = dl_frames(job) + [
                (sp + "/torch/utils/data/dataloader.py", 1412, "_get_data", "success, data = self._try_get_data()"),
                (sp + "/torch/utils/data/dataloader.py", 1256, "_try_get_data", "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e")]
            out.append((t - 0.2, "%sERROR: DataLoader worker (pid %d) is killed by signal: Killed. " % (pre, job.oom_pid)))
            out.append((t, traceback_block(frames, ["RuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly" % job.oom_pid], prefix=pre)))
        return out
    if cause == "crash_signal":
        if var == "sigbus_shm":
            out.append((t - 0.3, "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm)."))
            frames = dl_frames(job) + [
                (sp + "/torch/utils/data/dataloader.py", 1412, "_get_data", "success, data = self._try_get_data()"),
                (sp + "/torch/utils/data/dataloader.py", 1243, "_try_get_data", "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e")]
            out.append((t, traceback_block(frames, ["RuntimeError: DataLoader worker (pid %d) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit." % job.oom_pid], prefix=pre)))
        else:
            out.append((t, segv_dump(job, rk, rng)))
        return out
    if cause == "data_loader_stall":
        frames = dl_frames(job) + [
            (sp + "/torch/utils/data/dataloader.py", 1402, "_get_data", "success, data = self._try_get_data(self._timeout)"),
            (sp + "/torch/utils/data/dataloader.py", 1256, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {timeout} seconds') from e")]
        out.append((t, traceback_block(frames, ["RuntimeError: DataLoader timed out after %d seconds" % job.dl_timeout], prefix=pre)))
        return out
    return out


def dev_ip(job, rk):
    # Ascend per-device RoCE address (hccn_tool -ip) -- one subnet per device index
    nd = rk.node
    last = int(nd.ip.split(".")[-1])
    return "29.%d.%d.%d" % (rk.dev + 10, nd.k // 250, (last + nd.k) % 250 + 1)


# ----------------------------------------------------------------------------
# exit codes and launchers
# ----------------------------------------------------------------------------
FAIL_KINDS = ("culprit", "timeout", "remote", "neterr", "neterr_peer", "mismatch")


def exit_code(job, rk):
    e = job.ends[rk.g]
    if job.layout == "paddle_launch":
        if e.kind in ("remote", "neterr", "neterr_peer"):
            return 1
        if e.kind == "culprit":
            if job.cause == "host_oom_kill" and job.variant != "dl_worker_killed":
                return -9
            if job.cause == "crash_signal" and job.variant != "sigbus_shm":
                return -11
            return 1
        return e.code
    if job.accel == "npu":
        if e.kind in ("timeout",) and job.npu_timeout_style == "ei0002":
            return 1
        if e.kind in ("remote", "neterr_peer", "neterr"):
            return 1
        if e.kind == "culprit" and job.cause not in ("host_oom_kill", "crash_signal"):
            return 1
        if e.kind == "culprit" and job.cause == "host_oom_kill" and job.variant == "dl_worker_killed":
            return 1
    return e.code


def node_failures(job, nd):
    fl = []
    for rk in nd.ranks:
        e = job.ends[rk.g]
        if e.kind in FAIL_KINDS:
            fl.append((e.t, rk))
    fl.sort(key=lambda a: (a[0], a[1].g))
    return fl


def elog(job, nd, t, level, mod, path, lineno, msg):
    """torch.distributed.elastic / run.py python logging line"""
    tt = t + nd.skew
    if job.tv >= (2, 4):
        if job.tv >= (2, 5):
            base = "dist-packages" if "dist-packages" in job.sitepk else "site-packages"
            path = base + "/" + path
        return "%s%s %d %s:%d] %s" % (level[0], f_pylog(tt, job.container_tz), nd.agent_pid, path, lineno, msg)
    return "[%s] %s: [%s] %s" % (f_ymd(tt, job.container_tz), mod, level, msg)


def torchrun_bin(job):
    if "/opt/conda" in job.sitepk:
        return "/opt/conda/bin/torchrun"
    if job.accel == "npu":
        return job.sitepk.split("/lib/")[0] + "/bin/torchrun"
    return "/usr/local/bin/torchrun"


def torchrun_tb(job, tail):
    sp = job.sitepk
    fr = [(torchrun_bin(job), 8, "<module>", "sys.exit(main())"),
          (sp + "/torch/distributed/elastic/multiprocessing/errors/__init__.py", 355, "wrapper", "return f(*args, **kwargs)"),
          (sp + "/torch/distributed/run.py", 919, "main", "run(args)"),
          (sp + "/torch/distributed/run.py", 910, "run", "elastic_launch("),
          (sp + "/torch/distributed/launcher/api.py", 138, "__call__", "return launch_agent(self._config, self._entrypoint, list(args))")]
    return fr + tail


def child_failed_block(job, nd, t_report, fails, script_name):
    ct = job.container_tz

    def entry(i, tf, rk):
        code = exit_code(job, rk)
        if code < 0:
            tb = "Signal %d (%s) received by PID %d" % (-code, SIGNAMES.get(-code, "SIG?"), rk.pid)
        else:
            tb = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
        return ["[%d]:" % i,
                "  time      : %s" % dtz(tf + nd.skew, ct).strftime("%Y-%m-%d_%H:%M:%S"),
                "  host      : %s" % nd.name,
                "  rank      : %d (local_rank: %d)" % (rk.g, rk.lr),
                "  exitcode  : %d (pid: %d)" % (code, rk.pid),
                "  error_file: <N/A>",
                "  traceback : %s" % tb]
    root = fails[0]
    others = fails[1:]
    out = ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
           "============================================================",
           "%s FAILED" % script_name,
           "------------------------------------------------------------",
           "Failures:"]
    if not others:
        out.append("  <NO_OTHER_FAILURES>")
    else:
        for i, (tf, rk) in enumerate(others):
            out.extend(entry(i + 1, tf, rk))
    out.append("------------------------------------------------------------")
    out.append("Root Cause (first observed failure):")
    out.extend(entry(0, root[0], root[1]))
    out.append("============================================================")
    return "\n".join(out)


def render_agent_torchrun(job, nd):
    log = Log()
    rng = random.Random("%s|agent|%d" % (job.seed_str, nd.k))
    sp = job.sitepk
    t = nd.start + 1.0
    M = "torch.distributed.run"
    for x in ["", "*****************************************",
              "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
              "*****************************************"]:
        log.add(t, elog(job, nd, t, "WARNING", M, "torch/distributed/run.py", 793, x))
    s_path, s_name, _fr = script_info(job)
    ends = [job.ends[rk.g] for rk in nd.ranks]
    kinds = [e.kind for e in ends]
    if all(k == "finish" for k in kinds):
        return log
    if any(k in ("preempt", "killall") for k in kinds):
        ts = min(e.t for e in ends if e.kind in ("preempt", "killall")) - 0.05
        log.add(ts, elog(job, nd, ts, "WARNING", "torch.distributed.elastic.agent.server.api",
                         "torch/distributed/elastic/agent/server/api.py", 704,
                         "Received Signals.SIGTERM death signal, shutting down workers"))
        for rk in nd.ranks:
            log.add(ts + 0.001, elog(job, nd, ts + 0.001, "WARNING", "torch.distributed.elastic.multiprocessing.api",
                                     "torch/distributed/elastic/multiprocessing/api.py", 897,
                                     "Sending process %d closing signal SIGTERM" % rk.pid))
        tb = traceback_block(torchrun_tb(job, [
            (sp + "/torch/distributed/launcher/api.py", 260, "launch_agent", "result = agent.run()"),
            (sp + "/torch/distributed/elastic/metrics/api.py", 137, "wrapper", "result = f(*args, **kwargs)"),
            (sp + "/torch/distributed/elastic/agent/server/api.py", 696, "run", "result = self._invoke_run(role)"),
            (sp + "/torch/distributed/elastic/agent/server/api.py", 855, "_invoke_run", "time.sleep(monitor_interval)"),
            (sp + "/torch/distributed/elastic/multiprocessing/api.py", 84, "_terminate_process_handler",
             "raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)")]),
            ["torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % nd.agent_pid])
        log.add(ts + rng.uniform(1, 4), tb)
        return log
    fails = node_failures(job, nd)
    if not fails:
        return log
    t1 = fails[0][0]
    terms = [rk for rk in nd.ranks if job.ends[rk.g].kind == "term"]
    if terms:
        tsig = min(job.ends[rk.g].t for rk in terms) - 0.01
    else:
        tsig = max(f[0] for f in fails) + 0.3
    for rk in terms:
        log.add(tsig, elog(job, nd, tsig, "WARNING", "torch.distributed.elastic.multiprocessing.api",
                           "torch/distributed/elastic/multiprocessing/api.py", 897,
                           "Sending process %d closing signal SIGTERM" % rk.pid))
    tr = tsig + rng.uniform(0.5, 3.0)
    root = fails[0][1]
    log.add(tr, elog(job, nd, tr, "ERROR", "torch.distributed.elastic.multiprocessing.api",
                     "torch/distributed/elastic/multiprocessing/api.py", 869,
                     "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (
                         exit_code(job, root), root.lr, root.pid, job.python_bin)))
    tb = traceback_block(torchrun_tb(job, [
        (sp + "/torch/distributed/launcher/api.py", 269, "launch_agent", "raise ChildFailedError(")]), [])
    log.add(tr + 0.05, tb + "\n" + child_failed_block(job, nd, tr, fails, s_name))
    return log


def render_agent_deepspeed(job, nd):
    """deepspeed.launcher.launch on one node (lines are later prefixed by pdsh)."""
    log = Log()
    rng = random.Random("%s|ds|%d" % (job.seed_str, nd.k))
    tz = job.container_tz

    def L(t, lvl, src, msg):
        return "[%s] [%s] [%s] %s" % (f_ymd(t + nd.skew, tz), lvl, src, msg)
    t = nd.start + 1.0
    hosts = ", ".join("'%s': [%s]" % (n.name, ", ".join(str(i) for i in range(job.gpn))) for n in job.nodes)
    log.add(t, L(t, "INFO", "launch.py:146:main", "WORLD INFO DICT: {%s}" % hosts))
    log.add(t, L(t, "INFO", "launch.py:152:main", "nnodes=%d, num_local_procs=%d, node_rank=%d" % (job.nnodes, job.gpn, nd.k)))
    gm = ", ".join("'%s': [%s]" % (n.name, ", ".join(str(r.g) for r in n.ranks)) for n in job.nodes)
    log.add(t, L(t, "INFO", "launch.py:163:main", "global_rank_mapping=defaultdict(<class 'list'>, {%s})" % gm))
    log.add(t, L(t, "INFO", "launch.py:164:main", "dist_world_size=%d" % job.world))
    log.add(t, L(t, "INFO", "launch.py:168:main", "Setting CUDA_VISIBLE_DEVICES=%s" % ",".join(str(i) for i in range(job.gpn))))
    s_path, s_name, _fr = script_info(job)
    for rk in nd.ranks:
        t2 = t + 0.1 + rk.lr * 0.01
        log.add(t2, L(t2, "INFO", "launch.py:256:main", "process %d spawned with command: ['%s', '-u', '%s', '--local_rank=%d', '--model', '/mnt/models/%s', '--train_type', 'full', '--deepspeed', 'zero3', '--dataset', '/mnt/data/sft_mix_0312.jsonl']" % (
            rk.pid, job.python_bin, s_path, rk.lr, job.model)))
    ends = [job.ends[rk.g] for rk in nd.ranks]
    if all(e.kind == "finish" for e in ends):
        for rk in nd.ranks:
            te = job.ends[rk.g].t + 0.5
            log.add(te, L(te, "INFO", "launch.py:351:main", "Process %d exits successfully." % rk.pid))
        return log
    if any(e.kind in ("preempt", "killall") for e in ends):
        ts = min(e.t for e in ends)
        log.add(ts, L(ts, "INFO", "launch.py:319:sigkill_handler", "Main process received SIGTERM, exiting"))
        for rk in nd.ranks:
            log.add(ts + 0.01, L(ts + 0.01, "INFO", "launch.py:319:sigkill_handler", "Killing subprocess %d" % rk.pid))
        return log
    fails = node_failures(job, nd)
    if not fails:
        return log
    t1, root = fails[0]
    terms = [job.ends[rk.g].t for rk in nd.ranks if job.ends[rk.g].kind == "term"]
    td = (min(terms) - 0.01) if terms else (max(f[0] for f in fails) + 0.3)
    for rk in nd.ranks:
        log.add(td, L(td, "INFO", "launch.py:319:sigkill_handler", "Killing subprocess %d" % rk.pid))
    log.add(td + 0.2, L(td + 0.2, "ERROR", "launch.py:325:sigkill_handler", "['%s', '-u', '%s', '--local_rank=%d', '--model', '/mnt/models/%s', '--train_type', 'full', '--deepspeed', 'zero3', '--dataset', '/mnt/data/sft_mix_0312.jsonl'] exits with return code = %d" % (
        job.python_bin, s_path, root.lr, job.model, exit_code(job, root))))
    return log


# ----------------------------------------------------------------------------
# node-level artifacts: kernel log, nvidia-smi, npu-smi, hccn_tool, plog
# ----------------------------------------------------------------------------
def kernel_noise(job, nd, rng, t_from, t_to, n):
    pool = ["IPv6: ADDRCONF(NETDEV_CHANGE): cali%s: link becomes ready" % hexs(rng, 11),
            "docker0: port 1(veth%s) entered forwarding state" % hexs(rng, 7),
            "nvidia-peermem nv_mem_get_pages: pinned %d pages" % rng.randrange(64, 4096),
            "mlx5_core 0000:%s:00.0: mlx5_fw_tracer_handle_traces:743:(pid %d): FWTracer: Events were lost" % (pick(rng, ["5e", "3d", "b1"]), rng.randrange(100, 900)),
            "EXT4-fs (nvme0n1p1): mounted filesystem with ordered data mode. Opts: (null)",
            "TCP: request_sock_TCP: Possible SYN flooding on port %d. Sending cookies.  Check SNMP counters." % job.master_port,
            "xfs filesystem being remounted at /var/lib/kubelet/pods/%s/volume-subpaths supports timestamps until 2038 (0x7fffffff)" % hexs(rng, 8),
            "perf: interrupt took too long (%d > %d), lowering kernel.perf_event_max_sample_rate to %d" % (rng.randrange(2600, 4000), 2500, rng.randrange(40000, 80000))]
    if job.accel == "npu":
        pool += ["[ascend] [drv_devmng] [devdrv_manager_ioctl_get_devinfo %d] <npu-smi:%d> get devinfo ok" % (rng.randrange(1000, 4000), rng.randrange(1000, 90000)),
                 "[ascend] [hdc] [hdcdrv_epoll_wait %d] <python3:%d> epoll wait timeout" % (rng.randrange(100, 900), rng.randrange(1000, 90000))]
    out = []
    for _ in range(n):
        out.append((rng.uniform(t_from, t_to), pick(rng, pool)))
    return out


def kernel_file(job, nd, events, style, rng):
    """events: list of (t, text).  style: dmesg_T | dmesg_raw | syslog"""
    lines = []
    for t, txt in sorted(events, key=lambda a: a[0]):
        tt = t + nd.skew
        for part in txt.split("\n"):
            if style == "dmesg_T":
                lines.append("%s %s" % (f_dmesg_T(tt, 8), part))
            elif style == "dmesg_raw":
                lines.append("[%12.6f] %s" % (tt - nd.uptime0, part))
            else:
                lines.append("%s %s kernel: %s" % (f_syslog(tt, 8), nd.name if "." not in nd.name else nd.aliases[0] if nd.aliases else nd.name, part))
    return "\n".join(lines) + "\n"


def pci(rk):
    return "0000:%s:00" % rk.bus


def xid_events(job, rk, cause, t, rng):
    """NVIDIA driver messages for a hardware fault on rank rk's GPU."""
    p = pci(rk)
    ev = []
    if cause == "gpu_hardware":
        if job.hw_xid == 79:
            ev.append((t - 0.5, "NVRM: GPU at PCI:%s: GPU-%s-%s-%s-%s-%s" % (p, hexs(rng, 8), hexs(rng, 4), hexs(rng, 4), hexs(rng, 4), hexs(rng, 12))))
            ev.append((t - 0.5, "NVRM: GPU Board Serial Number: 13223%s" % rng.randrange(10000000, 99999999)))
            ev.append((t - 0.5, "NVRM: Xid (PCI:%s): 79, pid=%d, name=python3, GPU has fallen off the bus." % (p, rk.pid)))
            ev.append((t - 0.49, "NVRM: GPU %s.0: GPU has fallen off the bus." % p))
            ev.append((t - 0.4, "NVRM: A GPU crash dump has been created. If possible, please run\nNVRM: nvidia-bug-report.sh as root to collect this data before\nNVRM: the NVIDIA kernel module is unloaded."))
        else:
            ev.append((t - 6.0, "NVRM: Xid (PCI:%s): 119, pid=%d, name=python3, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a4c 0x4)." % (p, rk.pid, rk.dev)))
            ev.append((t - 5.9, "NVRM: GPU%d GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x0000000020800a4c 0x0000000000000004." % rk.dev))
            ev.append((t - 1.0, "NVRM: Xid (PCI:%s): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)" % p))
    elif cause == "ecc_memory":
        if job.gpu == "A800":
            ev.append((t - 0.3, "NVRM: Xid (PCI:%s): 48, pid=%d, name=python3, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (p, rk.pid, rng.randrange(0, 8), rng.randrange(0, 2))))
            ev.append((t - 0.2, "NVRM: Xid (PCI:%s): 63, pid=%d, name=python3, Row Remapper: New row (0x%s) marked for remapping, reset gpu to activate." % (p, rk.pid, hexs(rng, 16))))
        else:
            ev.append((t - 0.3, "NVRM: Xid (PCI:%s): 95, pid=%d, name=python3, Uncontained: FBHUB. RST: Yes, D-RST: No" % (p, rk.pid)))
            ev.append((t - 0.2, "NVRM: Xid (PCI:%s): 63, pid=%d, name=python3, Row Remapper: New row (0x%s) marked for remapping, reset gpu to activate." % (p, rk.pid, hexs(rng, 16))))
    elif cause == "nvlink":
        ev.append((t - 0.6, "NVRM: Xid (PCI:%s): 74, pid=%d, name=python3, NVLink: fatal error detected on link %d(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)" % (p, rk.pid, rng.randrange(0, 18))))
    elif cause == "illegal_memory_access":
        ev.append((t - 0.2, "NVRM: Xid (PCI:%s): 31, pid=%d, name=python3, Ch 0000%04x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_%d faulted @ 0x7f%s_%s000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (
            p, rk.pid, rng.randrange(8, 64), rng.randrange(0, 8), hexs(rng, 2), hexs(rng, 5))))
    return ev


def host_kernel_events(job, nd, rng):
    """All kernel events on node nd for this run (fault + decoys + noise)."""
    ev = []
    cause = job.cause if not job.healthy else None
    F = job.F
    t_from = nd.start - 3600 * rng.uniform(2, 40)
    t_to = max(e.t for e in (job.ends[r.g] for r in nd.ranks)) + 30
    ev += kernel_noise(job, nd, rng, t_from, t_to, rng.randint(6, 16))
    c = job.ranks[job.culprit] if job.culprit is not None else None
    if c is not None and c.node is nd and job.accel == "cuda":
        if cause in ("gpu_hardware", "ecc_memory", "nvlink") or (cause == "illegal_memory_access" and job.xid31):
            ev += xid_events(job, c, cause, F, rng)
    if c is not None and c.node is nd and cause == "host_oom_kill":
        kp = c.pid if job.variant != "dl_worker_killed" else job.oom_pid
        comm = "python3" if job.variant != "dl_worker_killed" else "pt_data_worker"
        rss = rng.randrange(180000000, 900000000)
        if job.layout in ("pai_dlc", "volc_mlp", "modelarts_ascend", "colossalai_k8s", "paddle_launch"):
            ev.append((F - 0.05, "%s invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=%d" % (comm, pick(rng, [-997, 0, 999]))))
            ev.append((F - 0.04, "memory: usage %dkB, limit %dkB, failcnt %d" % (rss + 1000, rss + 1000, rng.randrange(1, 300))))
            ev.append((F - 0.01, "Memory cgroup out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:%d" % (
                kp, comm, rss * 2, rss - rng.randrange(1000, 90000), rng.randrange(100000, 900000), rng.randrange(1000, 90000000), 0 if job.accel == "cuda" else 1000, rng.randrange(10000, 900000), 0)))
        else:
            ev.append((F - 0.05, "%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0" % comm))
            ev.append((F - 0.01, "Out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:0 pgtables:%dkB oom_score_adj:0" % (
                kp, comm, rss * 2, rss - rng.randrange(1000, 90000), rng.randrange(100000, 900000), rng.randrange(1000, 90000000), rng.randrange(10000, 900000))))
        ev.append((F + 0.2, "oom_reaper: reaped process %d (%s), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB" % (kp, comm)))
    if c is not None and c.node is nd and cause == "crash_signal" and job.variant != "sigbus_shm" and job.segv_dmesg:
        ev.append((F - 0.01, "python3[%d]: segfault at %x ip 00007f%s sp 00007ff%s error 4 in %s[7f%s000+%x]" % (
            c.pid, pick(rng, [0, 8, 0x18, 0x40]), hexs(rng, 10), hexs(rng, 9),
            pick(rng, ["flash_attn_2_cuda.cpython-%s-x86_64-linux-gnu.so" % job.pyver.replace(".", ""), "libtorch_cuda.so", "libc.so.6"]) if job.accel == "cuda" else pick(rng, ["libtorch_npu.so", "libascendcl.so", "libc.so.6"]),
            hexs(rng, 7), rng.randrange(0x100000, 0x900000))))
    if c is not None and c.node is nd and cause == "network" and job.accel == "cuda":
        ifn = "ens%df0np0" % (int(job.bad_nic.split("_")[1]) + 10)
        ev.append((F - 2.0, "mlx5_core 0000:%s:00.0 %s: Link down" % (pick(rng, ["5e", "3d", "b1", "c8"]), ifn)))
        ev.append((F - 1.9, "mlx5_core 0000:%s:00.0: mlx5_port_module_event:1163:(pid 0): Port module event[error]: module 0, Cable error, Bad cable" % pick(rng, ["5e", "3d", "b1", "c8"])))
    if c is not None and c.node is nd and cause == "data_loader_stall" and job.nfs_msgs:
        srv = "10.%d.%d.%d" % (rng.randrange(0, 250), rng.randrange(0, 250), rng.randrange(2, 250))
        job.nfs_server = srv
        for dt in (25, 205, 385):
            ev.append((F + dt, "nfs: server %s not responding, still trying" % srv))
    # decoys
    if job.decoy_old_xid_node is nd and job.accel == "cuda":
        to = nd.start - 86400 * rng.uniform(2, 20)
        rk = nd.ranks[rng.randrange(len(nd.ranks))]
        x = pick(rng, [13, 43, 31])
        if x == 13:
            msg = "NVRM: Xid (PCI:%s): 13, pid=%d, name=python, Graphics SM Warp Exception on (GPC 2, TPC 1, SM 0): Out Of Range Address" % (pci(rk), rng.randrange(1000, 99999))
        elif x == 43:
            msg = "NVRM: Xid (PCI:%s): 43, pid=%d, name=python, Ch 00000008" % (pci(rk), rng.randrange(1000, 99999))
        else:
            msg = "NVRM: Xid (PCI:%s): 31, pid=%d, name=pt_main_thread, Ch 00000010, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f1c_9a000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (pci(rk), rng.randrange(1000, 99999))
        ev.append((to, msg))
        job.decoys.append("old benign Xid %d on %s (%.1f days before the job)" % (x, nd.name, (nd.start - to) / 86400.0))
    if job.decoy_old_nfs_node is nd:
        to = nd.start - 86400 * rng.uniform(1, 9)
        srv = "10.%d.%d.%d" % (rng.randrange(0, 250), rng.randrange(0, 250), rng.randrange(2, 250))
        ev.append((to, "nfs: server %s not responding, still trying" % srv))
        ev.append((to + rng.uniform(8, 60), "nfs: server %s OK" % srv))
        job.decoys.append("old, recovered NFS 'not responding' on %s" % nd.name)
    return ev


def nvidia_smi_table(job, nd, t, rng, lost_dev=None, util=True):
    d = dtz(t + nd.skew, 8)
    drv = pick(rng, ["535.161.08", "550.54.15", "550.90.07", "560.35.03", "570.86.15"])
    cu = {"535": "12.2", "550": "12.4", "560": "12.6", "570": "12.8"}[drv[:3]]
    out = ["%s       " % f_ctime(t + nd.skew, 8),
           "+-----------------------------------------------------------------------------------------+",
           "| NVIDIA-SMI %-22s Driver Version: %-14s CUDA Version: %-8s|" % (drv, drv, cu),
           "|-----------------------------------------+------------------------+----------------------+",
           "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |",
           "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |",
           "|                                         |                        |               MIG M. |",
           "|=========================================+========================+======================|"]
    for rk in nd.ranks:
        nm = job.gpu_full[:24]
        if lost_dev is not None and rk.dev == lost_dev:
            out.append("|   %d  %-24s       On  |   00000000:%s:00.0 Off |                  ERR! |" % (rk.dev, nm, rk.bus.upper()))
            out.append("|ERR!  ERR! ERR!             ERR! /  ERR! |    ERR! /  %6dMiB |    ERR!      Default |" % job.gpu_mib)
        else:
            temp = rng.randrange(31, 48) if not util else rng.randrange(52, 74)
            pw = rng.randrange(60, 90) if not util else rng.randrange(int(job.gpu_pmax * 0.45), int(job.gpu_pmax * 0.9))
            mem = 4 if not util else rng.randrange(int(job.gpu_mib * 0.55), int(job.gpu_mib * 0.93))
            ut = 0 if not util else rng.randrange(60, 100)
            fan = "N/A" if job.gpu != "4090" else "%2d%%" % rng.randrange(30, 80)
            out.append("|   %d  %-24s       On  |   00000000:%s:00.0 Off |                    0 |" % (rk.dev, nm, rk.bus.upper()))
            out.append("| %-4s  %2dC    P0          %4dW / %4dW |  %6dMiB /  %6dMiB |    %3d%%      Default |" % (fan, temp, pw, job.gpu_pmax or 450, mem, job.gpu_mib, ut))
        out.append("|                                         |                        |             Disabled |")
        out.append("+-----------------------------------------+------------------------+----------------------+")
    return "\n".join(out) + "\n"


def npu_smi_table(job, nd, t, rng, health=None, busy=True):
    health = health or {}
    ver = pick(rng, ["23.0.6", "24.1.rc2", "24.1.0", "24.1.rc3"])
    out = ["+------------------------------------------------------------------------------------------------+",
           "| npu-smi %-24s Version: %-53s|" % (ver, ver),
           "+---------------------------+---------------+----------------------------------------------------+",
           "| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|",
           "| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |",
           "+===========================+===============+====================================================+"]
    for rk in nd.ranks:
        h = health.get(rk.dev, "OK")
        pw = rng.uniform(90, 380) if busy else rng.uniform(68, 100)
        tp = rng.randrange(40, 62) if busy else rng.randrange(33, 42)
        ai = rng.randrange(40, 99) if busy and h == "OK" else 0
        hbm = rng.randrange(42000, 62000) if busy else rng.randrange(2800, 3500)
        out.append("| %-5d %-19s | %-13s | %-11.1f %-17d 0    / 0             |" % (rk.dev, job.gpu, h, pw, tp))
        out.append("| %-25d | 0000:%s:00.0  | %-11d 0    / 0          %-5d/ 65536         |" % (0, NPU_BUS[rk.dev % 8], ai, hbm))
        out.append("+===========================+===============+====================================================+")
    out.append("+---------------------------+---------------+----------------------------------------------------+")
    out.append("| NPU     Chip              | Process id    | Process name             | Process memory(MB)      |")
    out.append("+===========================+===============+====================================================+")
    if busy:
        for rk in nd.ranks:
            out.append("| %-7d %-17d | %-13d | %-24s | %-23d |" % (rk.dev, 0, rk.pid, "python3", rng.randrange(40000, 60000)))
            out.append("+===========================+===============+====================================================+")
    else:
        out.append("| No running processes found in NPU %-61s|" % ",".join(str(r.dev) for r in nd.ranks))
        out.append("+===========================+===============+====================================================+")
    return "\n".join(out) + "\n"


def plog_lines(job, rk, rng, kind):
    """Ascend host plog of one training process."""
    nd = rk.node
    ct = job.container_tz
    pid = rk.pid
    out = []

    def P(t, lvl, mod, src, msg):
        return "[%s] %s(%d,python3):%s [%s][%d]%s" % (lvl, mod, pid, f_asc(t + nd.skew, ct), src, pid, msg)
    t0 = job.t_train - rng.uniform(30, 90)
    out.append(P(t0, "INFO", "HCCL", "hccl_comm.cc:%d" % rng.randrange(100, 400), "[HCCL_TRACE]HcclCommInitRootInfo success,take time [%d]us, rankNum[%d], rank[%d],rootInfo identifier[%s%%enp189s0f0_60000_0_%d], server[%s], device[%d]" % (
        rng.randrange(200000, 9000000), job.world, rk.g, job.nodes[0].ip, int(job.t_train * 1e6) - 1, dev_ip(job, rk), rk.dev)))
    out.append(P(t0 + 1, "WARNING", "HCCL", "adapter_rts.cc:%d" % rng.randrange(100, 900), "[Get][DeviceSdid]hrtGetDeviceInfo not support, deviceId[%d]" % rk.dev))
    F = job.F
    e = job.ends[rk.g]
    if kind == "timeout":
        te = e.t - 0.5
        out.append(P(te, "ERROR", "HCCL", "task_exception_handler.cc:%d" % rng.randrange(600, 900),
                     "[TaskExceptionHandler][Callback]Task run failed, base information is streamID:[%d], taskID[%d], tag[%s], AlgType(level 0-1-2):[fullmesh-ring-NHR]." % (
                         rng.randrange(2, 9), rng.randrange(100, 90000), hccl_tag(job))))
        out.append(P(te, "ERROR", "HCCL", "task_exception_handler.cc:%d" % rng.randrange(600, 900),
                     "[TaskExceptionHandler][Callback]Task run failed, opData information is timeStamp:[%s], deviceId:[%d], index:[%d], count:[%d], reduceType:[sum], src:[0x12c%s], dst:[0x12c%s], dataType:[bfloat16]." % (
                         f_asc(F + nd.skew, ct), rk.dev, rng.randrange(0, 64), job.block_numel, hexs(rng, 9), hexs(rng, 9))))
        out.append(P(te + 0.001, "ERROR", "HCCL", "task_exception_handler.cc:%d" % rng.randrange(600, 900),
                     "[TaskExceptionHandler][Callback]Task run failed, groupRank information is group:[hccl_world_group], user define information[], rankSize[%d], rankId[%d]." % (job.world, rk.g)))
    elif kind == "cqe":
        tc = F - 0.8
        out.append(P(tc, "ERROR", "HCCL", "transport_roce.cc:%d" % rng.randrange(300, 900),
                     "[Transport][RoCE] error cqe status[12], qpn[%d], local ip[%s], remote ip[%s], device[%d]" % (
                         rng.randrange(100, 9000), dev_ip(job, rk), dev_ip(job, job.ranks[(rk.g + job.gpn) % job.world]), rk.dev)))
        out.append(P(tc + 0.01, "ERROR", "HCCL", "hccl_communicator.cc:%d" % rng.randrange(1000, 4000),
                     "[HcclCommunicator][OpRetry]rank[%d] op retry failed, retry count[3], link of device[%d] is down" % (rk.g, rk.dev)))
    elif kind == "hccs":
        out.append(P(F - 0.6, "ERROR", "RUNTIME", "device_error_proc.cc:%d" % rng.randrange(1000, 2000),
                     "report error module_type=5, module_name=EZ9999"))
        out.append(P(F - 0.6, "ERROR", "RUNTIME", "device_error_proc.cc:%d" % rng.randrange(1000, 2000),
                     "The error from device(chipId:%d, dieId:0), HCCS link error, link status changed to down, port %d." % (rk.dev, rng.randrange(0, 7))))
    elif kind == "ecc":
        out.append(P(F - 0.4, "ERROR", "RUNTIME", "device_error_proc.cc:%d" % rng.randrange(1000, 2000),
                     "report error module_type=5, module_name=EZ9999"))
        out.append(P(F - 0.4, "ERROR", "RUNTIME", "device_error_proc.cc:%d" % rng.randrange(1000, 2000),
                     "The error from device(chipId:%d, dieId:0), serial number is %d, hbm Multi-bit ECC error occurred during task execution." % (rk.dev, rng.randrange(1, 40))))
        out.append(P(F - 0.3, "ERROR", "PTA", "NPUQueue.cpp:%d" % rng.randrange(300, 500), "Log HBM MULTI BIT ECC ERROR, set is_hbm_ecc_error param is true"))
    elif kind == "heartbeat":
        out.append(P(F - 2.0, "ERROR", "RUNTIME", "device.cc:%d" % rng.randrange(1000, 3000),
                     "[DEVICE] device_id=%d lost heartbeat, tsId=0." % rk.dev))
        out.append(P(F - 1.9, "ERROR", "DRV", "dev_info.c:%d" % rng.randrange(100, 900),
                     "Device[%d] lost heartbeat." % rk.dev))
    elif kind == "aicore":
        out.append(P(F - 0.3, "ERROR", "RUNTIME", "device_error_core_proc.cc:%d" % rng.randrange(200, 400),
                     "The error from device(chipId:%d, dieId:0), serial number is %d, there is an aivec error exception, core id is %d, error code = 0x800000" % (rk.dev, rng.randrange(1, 40), rng.randrange(0, 48))))
        out.append(P(F - 0.3, "ERROR", "RUNTIME", "device_error_core_proc.cc:%d" % rng.randrange(200, 400),
                     "The extend info: errcode:(0x800000, 0x0, 0x0) errorStr: The DDR address of the MTE instruction is out of range."))
    elif kind == "oom":
        out.append(P(F - 0.01, "ERROR", "RUNTIME", "npu_driver.cc:%d" % rng.randrange(1000, 2000),
                     "[drv api] halMemAlloc failed: size=%d, type=2, drvRetCode=6, device_id=%d!" % (rng.randrange(10 ** 9, 4 * 10 ** 9), rk.dev)))
        out.append(P(F - 0.009, "ERROR", "APP", "log_inner.cpp:161", "EL0004: Failed to allocate memory."))
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------
# PaddlePaddle (paddle.distributed.launch + PaddleNLP Trainer)
# ----------------------------------------------------------------------------
def p_glog(job, rk, t, sev, src, msg, tid=None):
    tt = t + rk.node.skew
    return "%s%s %d %s] %s" % (sev, f_glog(tt, job.container_tz), tid or rk.pid, src, msg)


def p_info(job, rk, t, msg, src=""):
    tt = t + rk.node.skew
    if src:
        return "[%s] [    INFO] %s - %s" % (f_ymd(tt, job.container_tz), src, msg)
    return "[%s] [    INFO] - %s" % (f_ymd(tt, job.container_tz), msg)


def paddle_cpp_tb(rng, frames):
    out = ["", "--------------------------------------", "C++ Traceback (most recent call last):",
           "--------------------------------------"]
    for i, f in enumerate(frames):
        out.append("%d   %s" % (i, f))
    return out


def paddle_summary(kind, msg_lines):
    return ["", "----------------------", "Error Message Summary:", "----------------------", "%s: " % kind] + msg_lines


def paddle_signal_block(job, rk, t, sig, rng):
    ts = int(t + rk.node.skew)
    name = {"SIGSEGV": "Segmentation fault", "SIGTERM": "Termination signal", "SIGBUS": "Bus error", "SIGABRT": "Aborted"}[sig]
    frames = ["paddle::framework::SignalHandle(char const*, int)", "paddle::platform::GetCurrentTraceBackString[abi:cxx11](bool)"]
    out = paddle_cpp_tb(rng, frames)
    out += ["", "----------------------", "Error Message Summary:", "----------------------",
            "FatalError: `%s` is detected by the operating system." % name,
            "  [TimeInfo: *** Aborted at %d (unix time) try \"date -d @%d\" if you are using GNU date ***]" % (ts, ts),
            "  [SignalInfo: *** %s (@0x%s) received by PID %d (TID 0x7f%s) from PID %d ***]" % (
                sig, hexs(rng, 5) if sig != "SIGSEGV" else "0", rk.pid, hexs(rng, 10),
                rk.node.agent_pid if sig == "SIGTERM" else 0), ""]
    return "\n".join(out)


def paddle_frames(job):
    sp = job.sitepk
    s = "/root/PaddleNLP/llm/run_finetune.py"
    return [(s, 662, "<module>", "main()"),
            (s, 506, "main", "train_result = trainer.train(resume_from_checkpoint=checkpoint)"),
            (sp + "/paddlenlp/trainer/trainer.py", 872, "train", "return self._inner_training_loop("),
            (sp + "/paddlenlp/trainer/trainer.py", 1108, "_inner_training_loop", "tr_loss_step = self.training_step(model, inputs)"),
            (sp + "/paddlenlp/trainer/trainer.py", 2224, "training_step", "loss = self.compute_loss(model, inputs)")]


def paddle_cuda_err(job, code, text, hint):
    return ["OSError: (External) CUDA error(%d), %s. " % (code, text),
            "  [Hint: '%s'. %s ] (at /paddle/paddle/phi/backends/gpu/cuda/cuda_info.cc:272)" % hint, ""]


def render_rank_paddle(job, rk):
    rng = rrng(job, rk)
    log = Log()
    nd = rk.node
    e = job.ends[rk.g]
    cause = job.cause if not job.healthy else None
    tt = TT(job)
    ts0 = nd.start + 4 + rng.uniform(0, 5)
    m = job.nodes[0]
    if nd.k != 0 and rk.lr == 0:
        log.add(ts0, p_glog(job, rk, ts0, "I", "tcp_utils.cc:107", "Retry to connect to %s:%d while the server is not yet listening." % (m.ip, job.master_port)))
        log.add(ts0 + 3, p_glog(job, rk, ts0 + 3, "I", "tcp_utils.cc:130", "Successfully connected to %s:%d" % (m.ip, job.master_port)))
    log.add(ts0 + 4, p_glog(job, rk, ts0 + 4, "I", "process_group_nccl.cc:150", "ProcessGroupNCCL pg_timeout_ %d" % (job.coll_timeout * 1000)))
    log.add(ts0 + 4.001, p_glog(job, rk, ts0 + 4.001, "I", "process_group_nccl.cc:151", "ProcessGroupNCCL nccl_comm_init_option_ 0"))
    log.add(ts0 + 5, p_info(job, rk, ts0 + 5, "distributed strategy initialized", src="distributed_strategy.py:214"))
    mp = min(8, job.gpn)
    sh = max(1, job.world // mp)
    mpg = [r for r in range((rk.g // mp) * mp, (rk.g // mp) * mp + mp)]
    shg = [r for r in range(rk.g % mp, job.world, mp)]
    log.add(ts0 + 5.5, p_info(job, rk, ts0 + 5.5, "HybridParallelInfo: rank_id: %d, mp_degree: %d, sharding_degree: %d, pp_degree: 1, dp_degree: 1, sep_degree: 1, mp_group: %s,  sharding_group: %s, pp_group: [%d], dp_group: [%d], sep:group: None, check/clip group: %s" % (
        rk.g, mp, sh, str(mpg), str(shg), rk.g, rk.g, str(mpg)), src="topology.py:357"))
    log.add(ts0 + 8, p_info(job, rk, ts0 + 8, "The global seed is set to 42, local seed is set to %d and random seed is set to 42." % (50 + rk.g)))
    log.add(ts0 + 8.1, user_line(job, rk, ts0 + 8.1, "初始化完成，world_size=%d，使用设备 gpu:%d" % (job.world, rk.dev)))
    if job.nccl_debug_info:
        tn = job.t_train - rng.uniform(20, 80)
        for i, x in enumerate(nccl_init_lines(job, tt, rk, tn)):
            log.add(tn + i * 0.003, x)
    if rk.g == 0:
        tr = job.t_train - 1
        for i, x in enumerate(["***** Running training *****", "  Num examples = {:,}".format(job.total_steps * 64),
                               "  Num Epochs = 1", "  Instantaneous batch size per device = 1",
                               "  Total train batch size (w. parallel, distributed & accumulation) = %d" % (job.world * 8),
                               "  Gradient Accumulation steps = 8", "  Total optimization steps = %d" % job.total_steps,
                               "  Total num train samples = %d" % (job.total_steps * 64)]):
            log.add(tr + i * 0.001, p_info(job, rk, tr, x))
    last = job.last_step[rk.g]
    k = job.hb_every
    while k <= last:
        t = job.step_end[k] + 0.02 + 0.05 * pnoise(k, rk.g)
        s, comp, wait, data = split_time(job, rk, k)
        lo = loss_at(job, k, rk.g)
        lr = 3e-5 * min(1.0, k / 200.0)
        ma = job.gpu_gib * (0.45 + 0.05 * pnoise(k, 5))
        log.add(t, p_info(job, rk, t, "loss: %.8f, learning_rate: %.4e, global_step: %d, current_memory_allocated: %.4f, current_memory_reserved: %.4f, max_memory_allocated: %.4f, max_memory_reserved: %.4f, interval_runtime: %.4f, interval_samples_per_second: %.4f, interval_steps_per_second: %.4f, progress_or_epoch: %.4f" % (
            lo, lr, k, ma, ma * 1.15, ma * 1.4, ma * 1.5, s * job.hb_every, 8.0 / s, 1.0 / s, k / float(job.total_steps))))
        if job.hb_on:
            log.add(t + 0.01, hb_line(job, rk, t + 0.01, k))
        k += job.hb_every
    if cause == "straggler" and rk.g == job.culprit and job.straggler_extra:
        kk = job.straggle_on + job.hb_every * 2
        if kk <= last:
            t = job.step_end[kk] + 0.3
            log.add(t, user_line(job, rk, t, "警告：本卡计算耗时偏高（%.2fs，其他卡约 %.2fs）" % (split_time(job, rk, kk)[1], job.step_time * 0.84)))
    if job.decoy_handled_rank == rk.g:
        kk = max(job.hb_every, (last // 2) // job.hb_every * job.hb_every)
        t = job.step_end[min(kk, last)] + 1.3 if last > 0 else job.t_train + 5
        for tx, x in handled_exc_block(job, rk, t, rng):
            log.add(tx, x)
    for tx, x in pre_end_user_lines(job, rk, rng):
        log.add(tx, x)
    # ---- end
    kind = e.kind
    t = e.t
    sp = job.sitepk
    if kind == "finish":
        if rk.g == 0:
            log.add(t - 4, p_info(job, rk, t - 4, "\nTraining completed. \n"))
            log.add(t - 3.9, p_info(job, rk, t - 3.9, "***** train metrics *****"))
            log.add(t - 3.8, "  epoch                    =        1.0\n  train_loss               =     %.4f\n  train_runtime            = %s\n  train_samples_per_second =     %.3f" % (
                loss_at(job, job.total_steps // 2), f_hms_dur(job.step_end[job.total_steps] - job.t_train), 8.0 / job.step_time))
            log.add(t - 3, user_line(job, rk, t - 3, "训练完成，模型已保存到 ./checkpoints/final"))
        log.add(t, p_glog(job, rk, t, "I", "comm_task_manager.cc:101", "CommTaskManager stopped begin."))
        log.add(t + 0.01, p_glog(job, rk, t + 0.01, "I", "comm_task_manager.cc:112", "CommTaskManager stopped."))
        return log
    if kind in ("timeout",):
        op = {"ALLREDUCE": "AllReduce", "_ALLGATHER_BASE": "AllGather", "ALLGATHER": "AllGather",
              "_REDUCE_SCATTER_BASE": "ReduceScatter", "BROADCAST": "Broadcast", "REDUCE_SCATTER": "ReduceScatter", "BARRIER": "Barrier"}
        o, n = op.get(job.block_op, "AllReduce"), job.block_numel
        if cause == "collective_mismatch" and rk.g == job.culprit:
            o, n = op.get(job.mm_op, "Broadcast"), job.mm_numel
        gr = "[" + ",".join(str(i) for i in range(job.world)) + "]"
        msg = "Find timeout start but not finish task:group_key:0,group_ranks:%s,global_rank:%d,local_rank:%d,comm_count:%d,op:%s,started:1,completed:0,numel:%d,nranks:%d" % (
            gr, rk.g, rk.g, job.seq_block, o, n, job.world)
        log.add(t, p_glog(job, rk, t, "W", "comm_task_manager.cc:175", msg, tid=rk.pid + 37))
        log.add(t + 0.001, p_glog(job, rk, t + 0.001, "I", "comm_task_manager.cc:108", "Find last group comm task:part:0/1,group_key:0,group_ranks:%s,global_rank:%d,local_rank:%d,comm_count:%d,op:%s,started:1,completed:0,numel:%d,nranks:%d" % (
            gr, rk.g, rk.g, job.seq_block, o, n, job.world), tid=rk.pid + 37))
        tk = job.paddle_kill[nd.k]
        log.add(tk, paddle_signal_block(job, rk, tk, "SIGTERM", rng))
        return log
    if kind == "term":
        log.add(t, paddle_signal_block(job, rk, t, "SIGTERM", rng))
        return log
    if kind in ("preempt", "killall"):
        log.add(t, paddle_signal_block(job, rk, t, "SIGTERM", rng))
        return log
    if kind == "hung":
        return log
    if kind in ("remote", "neterr_peer", "neterr"):
        peer = job.cnode if (job.cnode is not None and job.cnode is not nd) else job.nodes[(nd.k + 1) % job.nnodes]
        port = rng.randrange(30000, 65000)
        w = "NET/IB : Got completion from peer %s<%d> with error 12, opcode 0, len 0, vendor err 129 (Send) localGid ::ffff:%s remoteGid ::ffff:%s" % (
            peer.ip, port, nd.ip, peer.ip)
        if kind == "neterr" or (kind == "culprit" and cause == "network"):
            log.add(t - 1.6, tt.nccl(rk, "NET/IB : %s:1 Got async event : port error" % rk.nic, tid=rk.pid + 200, warn=True, src="transport/net_ib.cc:140"))
        log.add(t - 0.8, tt.nccl(rk, w, tid=rk.pid + 300, warn=True, src="transport/net_ib.cc:1696"))
        log.add(t - 0.79, tt.nccl(rk, "transport/net.cc:1298 -> 6", tid=rk.pid + 300))
        body = traceback_block(paddle_frames(job) + [
            (sp + "/paddle/distributed/communication/all_reduce.py", 107, "all_reduce", "return stream.all_reduce("),
            (sp + "/paddle/distributed/communication/stream/all_reduce.py", 61, "_all_reduce_in_dygraph", "task = group.process_group.all_reduce(tensor, op, sync_op)")],
            ["OSError: (External) Nccl error, remote process exited or there was a network error, detail: %s " % w,
             "  [Hint: Please search for the error code(6) on website (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/types.html#ncclresult-t) to get Nvidia's official solution about NCCL Error.] (at /paddle/paddle/fluid/distributed/collective/process_group_nccl.cc:%d)" % rng.randrange(600, 1200), ""])
        log.add(t, body)
        return log
    # culprit
    if kind == "culprit":
        fr = paddle_frames(job)
        if cause == "cuda_oom":
            req = pick(rng, [1.0, 2.0, 3.5, 7.0])
            free = rng.uniform(0.1, req * 0.8)
            body = traceback_block(fr + [(sp + "/paddle/nn/layer/layers.py", 1429, "__call__", "return self.forward(*inputs, **kwargs)"),
                                         (sp + "/paddlenlp/transformers/qwen2/modeling.py", 612, "forward", "return self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))")],
                                   ["MemoryError: "] + paddle_cpp_tb(rng, ["paddle::imperative::Tracer::TraceOp(...)", "phi::DenseTensor::mutable_data(phi::Place const&, phi::DataType, unsigned long)",
                                                                          "paddle::memory::allocation::Allocator::Allocate(unsigned long)",
                                                                          "paddle::memory::allocation::CUDAAllocator::AllocateImpl(unsigned long)"]) +
                                   paddle_summary("ResourceExhaustedError", ["", "Out of memory error on GPU %d. Cannot allocate %.6fGB memory on GPU %d, %.6fGB memory has been allocated and available memory is only %.6fGB." % (
                                       rk.dev, req, rk.dev, job.gpu_gib - free, free), "",
                                       "Please check whether there is any other process using GPU %d." % rk.dev,
                                       "1. If yes, please stop them, or start PaddlePaddle on another GPU.",
                                       "2. If no, please decrease the batch size of your model. ",
                                       "If the above ways do not solve the out of memory problem, you can try to use CUDA managed memory. The command is `export FLAGS_use_cuda_managed_memory=false`.",
                                       " (at /paddle/paddle/fluid/memory/allocation/cuda_allocator.cc:86)", ""]))
            log.add(t, body)
        elif cause in ("illegal_memory_access", "gpu_hardware", "ecc_memory", "nvlink"):
            spec = {"illegal_memory_access": (700, "an illegal memory access was encountered",
                                              ("cudaErrorIllegalAddress", "The device encountered a load or store instruction on an invalid memory address. This leaves the process in an inconsistentstate and any further CUDA work will return the same error. To continue using CUDA, the process must be terminated and relaunched.")),
                    "gpu_hardware": (999, "unknown error", ("cudaErrorUnknown", "This indicates that an unknown internal error has occurred.")),
                    "ecc_memory": (214, "uncorrectable ECC error encountered", ("cudaErrorECCUncorrectable", "This indicates that an uncorrectable ECC error was detected during execution.")),
                    "nvlink": (220, "an uncorrectable NVLink error was detected during the execution", ("cudaErrorNvlinkUncorrectable", "This indicates that an uncorrectable NVLink error was detected during the execution."))}[cause]
            body = traceback_block(fr[:-1] + [(sp + "/paddlenlp/trainer/trainer.py", 2251, "training_step", "loss.backward()"),
                                         (sp + "/paddle/base/dygraph/tensor_patch_methods.py", 342, "backward", "core.eager.run_backward([self], grad_tensor, retain_graph)")],
                                   paddle_cuda_err(job, spec[0], spec[1], spec[2]))
            log.add(t, body)
        elif cause == "network":
            log.add(t - 1.6, tt.nccl(rk, "NET/IB : %s:1 Got async event : port error" % rk.nic, tid=rk.pid + 200, warn=True, src="transport/net_ib.cc:140"))
            peer = job.nodes[(nd.k + 1) % job.nnodes]
            w = "NET/IB : Got completion from peer %s<%d> with error 12, opcode 0, len 0, vendor err 129 (Send) localGid ::ffff:%s remoteGid ::ffff:%s" % (
                peer.ip, rng.randrange(30000, 65000), nd.ip, peer.ip)
            log.add(t - 0.8, tt.nccl(rk, w, tid=rk.pid + 300, warn=True, src="transport/net_ib.cc:1696"))
            body = traceback_block(fr + [(sp + "/paddle/distributed/communication/all_reduce.py", 107, "all_reduce", "return stream.all_reduce(")],
                                   ["OSError: (External) Nccl error, remote process exited or there was a network error, detail: %s " % w,
                                    "  [Hint: Please search for the error code(6) on website (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/types.html#ncclresult-t) to get Nvidia's official solution about NCCL Error.] (at /paddle/paddle/fluid/distributed/collective/process_group_nccl.cc:%d)" % rng.randrange(600, 1200), ""])
            log.add(t, body)
        elif cause == "python_exception":
            shard = rng.randrange(10, 400)
            wtb = traceback_block([
                (sp + "/paddle/io/dataloader/worker.py", 372, "_worker_loop", "batch = fetcher.fetch(indices, done_event)"),
                (sp + "/paddle/io/dataloader/fetcher.py", 138, "fetch", "data.append(self.dataset[idx])"),
                (sp + "/paddlenlp/datasets/dataset.py", 285, "__getitem__", "return self._transform(self.new_data[idx]) if self._transform_pipline else self.new_data[idx]"),
                ("/root/PaddleNLP/llm/utils/data.py", 204, "convert_example_common", "tokenized_source = tokenize_unsupervised_example(")],
                [pick(rng, ["KeyError: 'src'", "ValueError: 第 %d 条样本的 tgt 为空，数据文件 data/sft/train_%03d.json" % (rng.randrange(1000, 90000), shard),
                            "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xc4 in position %d: invalid continuation byte" % rng.randrange(10, 900)])])
            log.add(t - 0.2, wtb)
            body = traceback_block(fr[:4] + [(sp + "/paddlenlp/trainer/trainer.py", 1062, "_inner_training_loop", "for step, inputs in enumerate(epoch_iterator):"),
                                             (sp + "/paddle/io/dataloader/dataloader_iter.py", 825, "__next__", "self._reader.read_next_list()[0]")],
                                   ["SystemError: (Fatal) Blocking queue is killed because the data reader raises an exception.",
                                    "  [Hint: Expected killed_ != true, but received killed_:1 == true:1.] (at /paddle/paddle/fluid/operators/reader/blocking_queue.h:175)", ""])
            log.add(t, body)
            job.notes.append("python_exception: exception inside a Paddle DataLoader worker on rank %d, main process reports 'Blocking queue is killed'" % rk.g)
        elif cause == "host_oom_kill":
            if job.variant == "dl_worker_killed":
                body = traceback_block(fr[:4] + [(sp + "/paddle/io/dataloader/dataloader_iter.py", 825, "__next__", "self._reader.read_next_list()[0]"),
                                                 (sp + "/paddle/io/multiprocess_utils.py", 134, "__handler__", "core._throw_error_if_process_failed()")],
                                       ["SystemError: (Fatal) DataLoader process (pid %d) exited is killed by signal: Killed. (at /paddle/paddle/fluid/imperative/data_loader.cc:181)" % job.oom_pid, ""])
                log.add(t, body)
        elif cause == "crash_signal":
            if job.variant == "sigbus_shm":
                log.add(t - 0.3, "ERROR: Unexpected BUS error encountered in DataLoader worker. This might be caused by insufficient shared memory (shm), please check whether use_shared_memory is set and storage space in /dev/shm is enough")
                body = traceback_block(fr[:4] + [(sp + "/paddle/io/multiprocess_utils.py", 134, "__handler__", "core._throw_error_if_process_failed()")],
                                       ["SystemError: (Fatal) DataLoader process (pid %d) exited is killed by signal: Bus error. (at /paddle/paddle/fluid/imperative/data_loader.cc:181)" % job.oom_pid, ""])
                log.add(t, body)
            else:
                body = paddle_signal_block(job, rk, t, "SIGSEGV", rng)
                body = body.replace("paddle::framework::SignalHandle(char const*, int)",
                                    "paddle::imperative::Tracer::TraceOp(std::string const&, ...)\n1   phi::FusedRotaryPositionEmbeddingKernel<phi::dtype::bfloat16, phi::GPUContext>(...)\n2   paddle::framework::SignalHandle(char const*, int)")
                log.add(t, body)
    return log


def render_launcher_paddle(job, nd):
    log = Log()
    rng = random.Random("%s|plaunch|%d" % (job.seed_str, nd.k))
    tz = job.container_tz

    def L(t, msg, lvl="INFO"):
        return "LAUNCH %s %s %s" % (lvl, f_ymd(t + nd.skew, tz), msg)
    t = nd.start
    m = job.nodes[0]
    cfg = [("auto_parallel_config", "None"), ("devices", ",".join(str(i) for i in range(job.gpn))), ("elastic_level", "-1"),
           ("elastic_timeout", "30"), ("enable_gpu_log", "True"), ("gloo_port", "6767"), ("host", "None"), ("ips", "None"),
           ("job_id", "default"), ("legacy", "False"), ("log_dir", "log"), ("log_level", "INFO"), ("log_overwrite", "False"),
           ("master", "%s:%d" % (m.ip, job.master_port) if job.nnodes > 1 else "None"), ("max_restart", "3"),
           ("nnodes", str(job.nnodes)), ("nproc_per_node", "None"), ("rank", "-1"), ("run_mode", "collective"),
           ("server_num", "None"), ("servers", ""), ("sort_ip", "False"), ("start_port", "6070"), ("trainer_num", "None"),
           ("trainers", ""), ("training_script", "run_finetune.py"), ("training_script_args", "['config/qwen/sft_argument.json']"),
           ("with_gloo", "1")]
    log.add(t, L(t, "-----------  Configuration  ----------------------"))
    for k, v in cfg:
        log.add(t, L(t, "%s: %s" % (k, v)))
    log.add(t, L(t, "--------------------------------------------------"))
    log.add(t + 0.01, L(t + 0.01, "Job: default, mode collective, replicas %d[%d:%d], elastic False" % (job.nnodes, job.nnodes, job.nnodes)))
    log.add(t + 0.02, L(t + 0.02, "Waiting peer start..."))
    pod = alnum(rng, 6)
    t2 = max(n.start for n in job.nodes) + 1
    log.add(t2, L(t2, "Run Pod: %s, replicas %d, status ready" % (pod, job.gpn)))
    log.add(t2 + 0.1, L(t2 + 0.1, "Watching Pod: %s, replicas %d, status running" % (pod, job.gpn)))
    ends = [job.ends[rk.g] for rk in nd.ranks]
    if all(e.kind == "finish" for e in ends):
        te = max(e.t for e in ends) + 1
        log.add(te, L(te, "Pod completed"))
        log.add(te + 0.5, L(te + 0.5, "Exit code 0"))
        return log
    if any(e.kind in ("preempt", "killall") for e in ends):
        ts = min(e.t for e in ends) - 0.01
        log.add(ts, L(ts, "Terminating with signal 15"))
        return log
    fails = [(job.ends[rk.g].t, rk) for rk in nd.ranks if job.ends[rk.g].kind in ("culprit", "remote", "neterr", "neterr_peer")]
    fails.sort(key=lambda a: (a[0], a[1].g))
    if not fails:
        tk = job.paddle_kill[nd.k] - 0.01
        log.add(tk, L(tk, "Terminating with signal 15"))
        return log
    t1, rk = fails[0]
    td = t1 + rng.uniform(0.5, 3)
    code = exit_code(job, rk)
    log.add(td, L(td, "Pod failed"))
    env = "{'PADDLE_TRAINER_ID': '%d', 'PADDLE_TRAINERS_NUM': '%d', 'PADDLE_LOCAL_RANK': '%d', 'PADDLE_LOCAL_SIZE': '%d', 'PADDLE_GLOBAL_SIZE': '%d', 'PADDLE_GLOBAL_RANK': '%d', 'PADDLE_NNODES': '%d', 'PADDLE_CURRENT_ENDPOINT': '%s:%d', 'FLAGS_selected_gpus': '%d', 'PADDLE_MASTER': '%s:%d', 'CUDA_VISIBLE_DEVICES': '%s', 'NCCL_IB_HCA': 'mlx5', 'NCCL_SOCKET_IFNAME': 'eth0', 'FLAGS_START_PORT': '6070', 'LANG': 'zh_CN.UTF-8'}" % (
        rk.g, job.world, rk.lr, job.gpn, job.world, rk.g, job.nnodes, nd.ip, 6070 + rk.lr, rk.dev, m.ip, job.master_port,
        ",".join(str(i) for i in range(job.gpn)))
    log.add(td + 0.001, L(td + 0.001, "Container failed !!!\nContainer rank %d status failed cmd ['%s', '-u', 'run_finetune.py', 'config/qwen/sft_argument.json'] code %d log log/workerlog.%d \nenv %s" % (
        rk.g, job.python_bin, code, rk.lr, env), lvl="ERROR"))
    log.add(td + 0.002, L(td + 0.002, "------------------------- ERROR LOG DETAIL -------------------------"))
    log.add(td + 0.003, "@@ERRTAIL %d@@" % rk.g)
    log.add(td + 3.5, L(td + 3.5, "Exit code %d" % code))
    return log


# ----------------------------------------------------------------------------
# knobs, decoys, platform tear-down
# ----------------------------------------------------------------------------
def pre_end_user_lines(job, rk, rng):
    out = []
    if job.healthy or rk.g != job.culprit:
        return out
    F = job.F
    if job.cause == "hang" and job.variant == "ckpt_io":
        out.append((F - 0.4, user_line(job, rk, F - 0.4, "开始写入本 rank 的评估缓存 /mnt/cpfs/eval_cache/step_%d/rank_%05d.jsonl ..." % (job.fail_step, rk.g))))
    if job.cause == "data_loader_stall":
        k = job.last_step[rk.g]
        for i, v in enumerate([rng.uniform(11, 19), rng.uniform(28, 60)]):
            kk = k - job.hb_every * (1 - i)
            if kk > 0:
                t = job.step_end[kk] + 0.05
                out.append((t + 0.001, user_line(job, rk, t + 0.001, "取数耗时 %.1fs，明显偏慢（阈值 10s），数据目录 /mnt/nas/datasets/sft_v3" % v)))
        if job.variant == "stuck" and job.dl_monitor:
            e = job.ends[rk.g]
            tt = F + 300
            while tt < e.t - 1:
                out.append((tt, user_line(job, rk, tt, "数据等待告警：已 %d 秒未取到 batch（DataLoader 可能卡住）" % int(tt - F))))
                tt += 300
    return out


def knobs(job):
    rng = job.rng
    cause = None if job.healthy else job.cause
    job.flag_env_deprecated = chance(rng, 0.4)
    job.decoy_socket = chance(rng, 0.35)
    job.hb_on = True if cause in ("straggler", "hang", "data_loader_stall") else chance(rng, 0.85)
    job.straggler_extra = chance(rng, 0.5)
    job.pg_warn = chance(rng, 0.6)
    job.npu_timeout_style = "ei0002" if chance(rng, 0.6) else "watchdog"
    job.platform_hw_event = chance(rng, 0.6)
    job.straggler_smi = chance(rng, 0.6)
    job.hw_xid = pick(rng, [79, 79, 119])
    job.hw_text = "unknown error" if job.hw_xid == 79 else "unspecified launch failure"
    job.oom_pid = rng.randrange(3000, 90000) if job.layout in ("pai_dlc", "volc_mlp", "modelarts_ascend", "colossalai_k8s", "paddle_launch") else rng.randrange(1000000, 3990000)
    job.xid31 = chance(rng, 0.5)
    job.segv_dmesg = chance(rng, 0.6)
    job.nfs_msgs = chance(rng, 0.6)
    job.dl_monitor = chance(rng, 0.6)
    job.slurm_kill_bad = chance(rng, 0.6)
    job.hang_remote_hint = job.accel == "npu" and job.npu_timeout_style == "ei0002" and chance(rng, 0.4)
    job.pyspy = cause in ("hang", "data_loader_stall") and job.variant in ("deadlock", "ckpt_io", "stuck") and chance(rng, 0.65)
    job.mojibake_file = chance(rng, 0.18)
    job.issue_note = chance(rng, 0.35)
    job.issue_gbk = chance(rng, 0.35)
    shown_ranks = [rk.g for rk in job.shown_ranks]
    cand = [g for g in shown_ranks if g != job.culprit]
    job.decoy_handled_rank = None
    job.decoy_gid_rank = None
    job.decoy_old_xid_node = None
    job.decoy_old_nfs_node = None
    p_h = 0.75 if cause is None else 0.4
    if cand and chance(rng, p_h):
        job.decoy_handled_rank = pick(rng, cand)
        job.decoys.append("handled exception (training continued) on rank %d" % job.decoy_handled_rank)
    if cand and job.accel == "cuda" and job.nnodes > 1 and chance(rng, 0.6 if cause is None else 0.3):
        job.decoy_gid_rank = pick(rng, cand)
        job.decoys.append("benign NCCL WARN 'Got async event : GID table change' on rank %d" % job.decoy_gid_rank)
    others = [nd for nd in job.shown if nd is not job.cnode]
    if others and chance(rng, 0.6 if cause is None else 0.35):
        job.decoy_old_xid_node = pick(rng, others)
    if others and chance(rng, 0.2):
        job.decoy_old_nfs_node = pick(rng, others)
    if cause is None and job.decoy_handled_rank is None and job.decoy_gid_rank is None and job.decoy_old_xid_node is None and cand:
        job.decoy_handled_rank = pick(rng, cand)
        job.decoys.append("handled exception (training continued) on rank %d" % job.decoy_handled_rank)
    job.decoy_overflow = job.fw in ("hf", "swift") and chance(rng, 0.6 if cause is None else 0.25)
    if job.decoy_overflow:
        job.decoys.append("DeepSpeed fp16 OVERFLOW / loss-scale messages (benign)")
    if job.decoy_socket:
        job.decoys.append("c10d client socket 'Connection refused' retries at start-up")


def platform_teardown(job):
    """Kubernetes-style platforms (and srun --kill-on-bad-exit) stop the whole job
    shortly after the first worker pod / task exits non-zero."""
    rng = job.rng
    L = job.layout
    if L in ("swift_pdsh",):
        return
    if L == "ascend_slurm" and not job.slurm_kill_bad:
        return
    first = None
    for nd in job.nodes:
        ends = [job.ends[rk.g] for rk in nd.ranks]
        fl = [e.t for e in ends if e.kind in FAIL_KINDS]
        pe = [e.t for e in ends if e.kind == "preempt"]
        if fl:
            t = min(fl) + rng.uniform(2, 9)
        elif pe and job.variant == "pod":
            t = min(pe) + rng.uniform(1, 4)
        else:
            continue
        if L == "paddle_launch" and not any(e.kind in ("culprit", "remote", "neterr", "neterr_peer") for e in ends) and not pe:
            continue
        if first is None or t < first:
            first = t
    if first is None:
        return
    job.t_teardown = first + rng.uniform(5, 40)
    for rk in job.ranks:
        e = job.ends[rk.g]
        if e.t > job.t_teardown and e.kind not in ("finish",):
            job.ends[rk.g] = End(job.t_teardown + rng.uniform(0, 0.5), "killall", -15, was=e.kind)


def paddle_adjust(job):
    rng = job.rng
    job.paddle_kill = {}
    tmax = max(job.ends[rk.g].t for rk in job.ranks)
    any_exit = any(job.ends[rk.g].kind in ("culprit", "remote", "neterr", "neterr_peer") for rk in job.ranks)
    t_user = None
    if not any_exit:
        touts = [job.ends[rk.g].t for rk in job.ranks if job.ends[rk.g].kind == "timeout"]
        if touts:
            t_user = max(touts) + rng.uniform(300, 2400)
    for nd in job.nodes:
        job.paddle_kill[nd.k] = (t_user if t_user else tmax + rng.uniform(30, 120)) + rng.uniform(0, 1.5)
    if t_user:
        for rk in job.ranks:
            e = job.ends[rk.g]
            if e.kind == "term" and e.kw.get("was") == "timeout":
                job.ends[rk.g] = End(e.t if e.t < job.F + job.coll_timeout + 60 else job.F + job.coll_timeout, "timeout", -15)
            elif e.kind == "term" and e.kw.get("was") == "hung":
                job.ends[rk.g] = End(job.paddle_kill[rk.node.k], "term", -15)
            elif e.kind == "term":
                job.ends[rk.g] = End(e.t, "timeout", -15)
        job.notes.append("job hung after the collective timeout warnings and was stopped by the user ~%d s later" % int(t_user - job.F - job.coll_timeout))


# ----------------------------------------------------------------------------
# layout assembly
# ----------------------------------------------------------------------------
def node_exit(job, nd):
    """(time, exit code, reason) of the node's launcher/pod."""
    ends = [job.ends[rk.g] for rk in nd.ranks]
    if all(e.kind == "finish" for e in ends):
        return max(e.t for e in ends) + 2, 0, "Completed"
    if any(e.kind == "preempt" for e in ends):
        return min(e.t for e in ends) + 3, 143, "Preempted"
    fl = [e.t for e in ends if e.kind in FAIL_KINDS]
    if fl:
        tt = [e.t for e in ends if e.kind in ("term",)]
        return max([min(fl) + 5.5] + [x + 3.2 for x in tt] + [max(fl) + 3.5]), 1, "Error"
    return max(e.t for e in ends) + 2, 143, "Killed"


def rank_logs(job):
    out = {}
    for rk in job.shown_ranks:
        if job.layout == "paddle_launch":
            out[rk.g] = render_rank_paddle(job, rk)
        else:
            out[rk.g] = render_rank_torch(job, rk)
            for tx, x in pre_end_user_lines(job, rk, rrng(job, rk, "pre")):
                out[rk.g].add(tx, x)
    return out


def merged_node_log(job, nd, rlogs, agent, head, tail):
    log = Log()
    for t, x in head:
        log.add(t, x)
    log.extend(agent)
    for rk in nd.ranks:
        if rk.g in rlogs:
            log.extend(rlogs[rk.g])
    for t, x in tail:
        log.add(t, x)
    return log


def dlc_files(job, rlogs):
    rng = random.Random(job.seed_str + "|dlc")
    files = {}
    for nd in job.shown:
        t = nd.start - 0.5
        env = ["MASTER_ADDR=%s" % job.nodes[0].name, "MASTER_PORT=%d" % job.master_port,
               "WORLD_SIZE=%d" % job.nnodes, "RANK=%d" % nd.k, "NCCL_IB_TC=136", "NCCL_IB_SL=5",
               "NCCL_IB_GID_INDEX=3", "NCCL_SOCKET_IFNAME=eth0", "NCCL_IB_HCA=mlx5", "NCCL_IB_TIMEOUT=22",
               "NCCL_DEBUG=%s" % ("INFO" if job.nccl_debug_info else "WARN"), "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"]
        if job.flag_env_deprecated:
            env.append("NCCL_ASYNC_ERROR_HANDLING=1")
        head = [(t, "[%s] ===== 启动训练任务（%s）=====" % (f_ymd(t + nd.skew, 8, ms=False), job.model)),
                (t, "[%s] 节点 RANK=%d / WORLD_SIZE=%d，每节点 %d 卡（%s）" % (f_ymd(t + nd.skew, 8, ms=False), nd.k, job.nnodes, job.gpn, job.gpu_full))]
        head += [(t + 0.001, x) for x in env]
        s_path, s_name, _ = script_info(job)
        if job.fw == "megatron":
            cmd = "+ torchrun --nproc_per_node=%d --nnodes=%d --node_rank=%d --master_addr=%s --master_port=%d %s --tensor-model-parallel-size %d --pipeline-model-parallel-size 1 --seq-length 4096 --micro-batch-size 1 --global-batch-size 512 --bf16 --load /mnt/models/%s-mcore --save /mnt/output/ckpt" % (
                job.gpn, job.nnodes, nd.k, job.nodes[0].name, job.master_port, s_path, min(8, job.gpn), job.model)
        else:
            cmd = "+ torchrun --nproc_per_node=%d --nnodes=%d --node_rank=%d --master_addr=%s --master_port=%d %s /mnt/workspace/configs/%s_full_sft.yaml" % (
                job.gpn, job.nnodes, nd.k, job.nodes[0].name, job.master_port, s_path, job.model.lower())
        head.append((t + 0.002, cmd))
        te, code, _r = node_exit(job, nd)
        tail = [(te, "[%s] 训练进程退出，退出码: %d%s" % (f_ymd(te + nd.skew, 8, ms=False), 1 if code else 0, "" if code else "（训练正常结束）"))]
        if code == 143:
            tail = []
        log = merged_node_log(job, nd, rlogs, render_agent_torchrun(job, nd), head, tail)
        files["%s.log" % nd.name] = log.render()
    # console events
    ev = []
    t0 = job.t0
    ev.append((t0, "Normal", "Job/%s" % job.job_id, "JobCreated", "任务已创建，资源规格 ecs.ebmgn%s.%dxlarge x %d" % (
        pick(rng, ["8v", "8te", "8is"]), pick(rng, [24, 32]), job.nnodes)))
    for nd in job.nodes[:min(job.nnodes, 6)]:
        ev.append((nd.start - 20, "Normal", "Pod/%s" % nd.name, "Scheduled", "Successfully assigned %s to %s" % (nd.name, nd.aliases[1])))
        ev.append((nd.start - 2, "Normal", "Pod/%s" % nd.name, "Started", "Started container pytorch"))
    if job.nnodes > 6:
        ev.append((job.nodes[-1].start - 1, "Normal", "Job/%s" % job.job_id, "Running", "全部 %d 个实例已运行" % job.nnodes))
    ev += platform_fail_events(job, rng, "dlc")
    ev.sort(key=lambda a: a[0])
    lines = ["时间                 类型     对象                                        原因              信息"]
    for t, ty, obj, rs, msg in ev:
        lines.append("%-20s %-8s %-43s %-17s %s" % (f_ymd(t, 8, ms=False), ty, obj, rs, msg))
    files["dlc-job-events.txt"] = "\n".join(lines) + "\n"
    files.update(hw_artifacts(job, rng, name_of=lambda nd: nd.aliases[0]))
    return files


def platform_fail_events(job, rng, plat):
    """Console-level events shared by the k8s platforms."""
    ev = []
    exits = []
    for nd in job.nodes:
        te, code, reason = node_exit(job, nd)
        exits.append((te, nd, code, reason))
    exits.sort(key=lambda a: a[0])
    cause = job.cause if not job.healthy else None
    if cause == "preemption" and job.variant == "pod":
        nd = job.cnode
        msg = {"dlc": "实例被抢占（灵骏竞价资源回收），Pod 将被删除",
               "volc": "实例被更高优先级任务抢占（Preempted）",
               "ma": "Training job instance preempted by a higher-priority job",
               "k8s": "Preempted by default/%s on node %s" % ("infer-prod-" + alnum(rng, 5), nd.aliases[0]),
               "baige": "Pod 被抢占 (Preempted)，所在节点资源被回收"}[plat]
        ev.append((job.F - 1.0, "Warning", "Pod/%s" % nd.name, "Preempted", msg))
    if cause in ("gpu_hardware", "ecc_memory", "nvlink") and job.accel == "cuda" and job.platform_hw_event:
        c = job.ranks[job.culprit]
        what = {"gpu_hardware": "XID %d" % job.hw_xid, "ecc_memory": "XID %s (uncorrectable ECC)" % ("48" if job.gpu == "A800" else "95"),
                "nvlink": "XID 74 (NVLink error)"}[cause]
        ev.append((job.F + rng.uniform(20, 90), "Warning", "Node/%s" % c.node.aliases[-1] if plat == "dlc" else "Node/%s" % c.node.aliases[0],
                   "GPUUnhealthy", "节点 GPU 异常：%s，GPU index %d，已自动隔离节点" % (what, c.dev)))
    if cause in ("gpu_hardware", "ecc_memory", "nvlink") and job.accel == "npu" and job.platform_hw_event:
        c = job.ranks[job.culprit]
        what = {"gpu_hardware": "NPU 心跳丢失 (heartbeat lost)", "ecc_memory": "HBM 多比特 ECC 错误", "nvlink": "HCCS 链路异常"}[cause]
        ev.append((job.F + rng.uniform(20, 90), "Warning", "Node/%s" % c.node.aliases[0], "NPUUnhealthy",
                   "%s，device %d" % (what, c.dev)))
    failed_any = False
    for te, nd, code, reason in exits:
        if code == 0:
            continue
        if reason == "Error" and not failed_any:
            failed_any = True
            ev.append((te, "Warning", "Pod/%s" % nd.name, "Error", "容器退出, ExitCode: %d" % code))
            if plat in ("dlc", "volc", "ma", "baige"):
                ev.append((te + 3, "Warning", "Job/%s" % job.job_id, "JobFailed", "任务失败：%s 异常退出 (exitCode: %d)，停止其余实例" % (nd.name, code)))
        elif reason == "Error":
            ev.append((te, "Warning", "Pod/%s" % nd.name, "Error", "容器退出, ExitCode: %d" % code))
        elif reason == "Preempted":
            ev.append((te, "Warning", "Pod/%s" % nd.name, "Killing", "Stopping container pytorch (exitCode: 143)"))
        else:
            ev.append((te, "Normal", "Pod/%s" % nd.name, "Killing", "Stopping container pytorch"))
    if cause == "straggler" and job.variant == "time_limit":
        if plat == "k8s":
            ev.append((job.F - 0.5, "Warning", "PyTorchJob/%s" % job.job_id, "DeadlineExceeded", "Job was active longer than specified deadline"))
        else:
            ev.append((job.F - 0.5, "Warning", "Job/%s" % job.job_id, "Timeout", "任务运行时间超过设定的最长运行时间，任务被停止"))
    if all(c == 0 for _t, _n, c, _r in exits):
        ev.append((max(t for t, _n, _c, _r in exits) + 5, "Normal", "Job/%s" % job.job_id, "JobSucceeded", "任务运行成功"))
    return ev


def hw_artifacts(job, rng, name_of):
    """dmesg / nvidia-smi / npu-smi style attachments, named per layout."""
    files = {}
    cause = job.cause if not job.healthy else None
    nodes = []
    if job.cnode is not None and cause in ("gpu_hardware", "ecc_memory", "nvlink", "network", "host_oom_kill",
                                           "crash_signal", "illegal_memory_access", "data_loader_stall"):
        if cause in ("gpu_hardware", "ecc_memory", "nvlink") or chance(rng, 0.75):
            nodes.append(job.cnode)
    if job.decoy_old_xid_node is not None:
        nodes.append(job.decoy_old_xid_node)
    if job.decoy_old_nfs_node is not None and job.decoy_old_nfs_node not in nodes:
        nodes.append(job.decoy_old_nfs_node)
    if not nodes and chance(rng, 0.3):
        nodes.append(pick(rng, job.shown) if job.shown else job.nodes[0])
    style = pick(rng, ["dmesg_T", "dmesg_T", "dmesg_raw", "syslog"])
    seen = []
    for nd in nodes:
        if nd in seen:
            continue
        seen.append(nd)
        ev = host_kernel_events(job, nd, rng)
        nm = name_of(nd)
        files["dmesg-%s.txt" % nm if style != "syslog" else "messages-%s.txt" % nm] = kernel_file(job, nd, ev, style, rng)
    # device tool snapshots taken by the user after the failure
    c = job.ranks[job.culprit] if job.culprit is not None else None
    if c is not None and job.accel == "cuda":
        nd = c.node
        ta = max(job.ends[r.g].t for r in nd.ranks) + rng.uniform(60, 1800)
        nm = name_of(nd)
        if cause == "gpu_hardware":
            if chance(rng, 0.5):
                files["nvidia-smi-%s.txt" % nm] = "Unable to determine the device handle for GPU%s.0: Unknown Error\n" % pci(c).upper().replace("0000:", "0000:")
            else:
                files["nvidia-smi-%s.txt" % nm] = nvidia_smi_table(job, nd, ta, rng, lost_dev=c.dev, util=False)
        elif cause == "ecc_memory":
            files["nvidia-smi-q-ECC-%s.txt" % nm] = ecc_query(job, c, ta, rng)
        elif cause == "nvlink":
            files["nvlink-status-%s.txt" % nm] = nvlink_status(job, c, rng)
        elif cause == "straggler" and job.straggler_smi:
            files["nvidia-smi-q-%s.txt" % nm] = perf_query(job, c, job.F, rng)
    return files


def ecc_query(job, c, t, rng):
    out = ["", "==============NVSMI LOG==============", "", "Timestamp                                 : %s" % f_ctime(t, 8),
           "Driver Version                            : 550.54.15", "CUDA Version                              : 12.4", "",
           "Attached GPUs                             : %d" % job.gpn,
           "GPU 00000000:%s:00.0" % c.bus.upper(),
           "    ECC Mode",
           "        Current                           : Enabled",
           "        Pending                           : Enabled",
           "    ECC Errors",
           "        Volatile",
           "            SRAM Correctable              : 0",
           "            SRAM Uncorrectable Parity     : 0",
           "            SRAM Uncorrectable SEC-DED    : 0",
           "            DRAM Correctable              : %d" % rng.randrange(0, 40),
           "            DRAM Uncorrectable            : %d" % rng.randrange(1, 4),
           "        Aggregate",
           "            SRAM Correctable              : 0",
           "            SRAM Uncorrectable Parity     : 0",
           "            SRAM Uncorrectable SEC-DED    : 0",
           "            DRAM Correctable              : %d" % rng.randrange(40, 400),
           "            DRAM Uncorrectable            : %d" % rng.randrange(2, 9),
           "            SRAM Threshold Exceeded       : No",
           "    Remapped Rows",
           "        Correctable Error                 : 0",
           "        Uncorrectable Error               : %d" % rng.randrange(1, 4),
           "        Pending                           : Yes",
           "        Remapping Failure Occurred        : No",
           ""]
    return "\n".join(out) + "\n"


def nvlink_status(job, c, rng):
    out = []
    for rk in c.node.ranks:
        out.append("GPU %d: %s (UUID: GPU-%s-%s-%s-%s-%s)" % (rk.dev, job.gpu_full, hexs(rng, 8), hexs(rng, 4), hexs(rng, 4), hexs(rng, 4), hexs(rng, 12)))
        nl = 18 if job.gpu in ("H800", "H20") else 12
        bad = rng.randrange(nl) if rk is c else -1
        for i in range(nl):
            if i == bad:
                out.append("\t Link %d: <inactive>" % i)
            else:
                out.append("\t Link %d: %s GB/s" % (i, "26.562" if job.gpu != "A800" else "25"))
    return "\n".join(out) + "\n"


def perf_query(job, c, t, rng):
    out = ["", "==============NVSMI LOG==============", "", "Timestamp                                 : %s" % f_ctime(t, 8),
           "GPU 00000000:%s:00.0" % c.bus.upper(),
           "    Performance State                     : P0",
           "    Clocks Event Reasons",
           "        Idle                              : Not Active",
           "        Applications Clocks Setting       : Not Active",
           "        SW Power Cap                      : Not Active",
           "        HW Slowdown                       : Active",
           "            HW Thermal Slowdown           : Active",
           "            HW Power Brake Slowdown       : Not Active",
           "        Sync Boost                        : Not Active",
           "        SW Thermal Slowdown               : Active",
           "        Display Clock Setting             : Not Active",
           "    Temperature",
           "        GPU Current Temp                  : %d C" % rng.randrange(87, 94),
           "        GPU T.Limit Temp                  : -%d C" % rng.randrange(1, 4),
           "        GPU Shutdown Temp                 : 92 C",
           "        GPU Slowdown Temp                 : 89 C",
           "    Clocks",
           "        Graphics                          : %d MHz" % rng.randrange(900, 1300),
           "        SM                                : %d MHz" % rng.randrange(900, 1300),
           ""]
    return "\n".join(out) + "\n"


def wrap_fail_tail(job, nd, lines_fn):
    te, code, _r = node_exit(job, nd)
    return te, code


def volc_files(job, rlogs):
    rng = random.Random(job.seed_str + "|volc")
    files = {}
    s_path, s_name, _ = script_info(job)
    for nd in job.shown:
        t = nd.start - 0.8
        head = [(t, "[run.sh] %s 节点序号 MLP_ROLE_INDEX=%d，共 MLP_WORKER_NUM=%d 个节点" % (f_ymd(t + nd.skew, 8, ms=False), nd.k, job.nnodes))]
        for x in ["MLP_TASK_ID=%s" % job.job_id, "MLP_ROLE_INDEX=%d" % nd.k, "MLP_WORKER_NUM=%d" % job.nnodes,
                  "MLP_WORKER_GPU=%d" % job.gpn, "MLP_WORKER_0_HOST=%s" % job.nodes[0].ip, "MLP_WORKER_0_PORT=%d" % job.master_port,
                  "NCCL_IB_HCA=mlx5_1,mlx5_2,mlx5_3,mlx5_4", "NCCL_IB_GID_INDEX=3",
                  "NCCL_DEBUG=%s" % ("INFO" if job.nccl_debug_info else "WARN")]:
            head.append((t + 0.001, x))
        head.append((t + 0.002, nvidia_smi_table(job, nd, t, rng, util=False).rstrip("\n")))
        head.append((t + 0.003, "+ torchrun --nproc_per_node $MLP_WORKER_GPU --master_addr $MLP_WORKER_0_HOST --node_rank $MLP_ROLE_INDEX --master_port $MLP_WORKER_0_PORT --nnodes $MLP_WORKER_NUM %s examples/train_full/%s_full_sft.yaml" % (
            s_path, job.model.lower().replace(".", "_"))))
        te, code, reason = node_exit(job, nd)
        tail = []
        if code == 1:
            tail.append((te, "[run.sh] %s 训练异常退出（exit=1），打印 nvidia-smi 便于排查：" % f_ymd(te + nd.skew, 8, ms=False)))
            lost = None
            if job.cause == "gpu_hardware" and job.cnode is nd and not job.healthy:
                lost = job.ranks[job.culprit].dev
            tail.append((te + 0.5, nvidia_smi_table(job, nd, te + 0.5, rng, lost_dev=lost, util=False).rstrip("\n")))
        elif code == 0:
            tail.append((te, "[run.sh] %s 训练完成 ✅" % f_ymd(te + nd.skew, 8, ms=False)))
        log = merged_node_log(job, nd, rlogs, render_agent_torchrun(job, nd), head, tail)
        files["%s.log" % nd.name] = log.render()
    lines = ["实例名称                                   角色     状态         退出码   重启次数   开始时间              结束时间"]
    for nd in job.nodes[:16]:
        te, code, reason = node_exit(job, nd)
        st = {"Completed": "Succeeded", "Error": "Failed", "Preempted": "Preempted", "Killed": "Killed"}[reason]
        lines.append("%-42s %-8s %-12s %-8d %-10d %-21s %s" % (nd.name, "worker", st, code, 0,
                                                                f_ymd(nd.start, 8, ms=False), f_ymd(te, 8, ms=False)))
    if job.nnodes > 16:
        lines.append("... 共 %d 个实例（仅显示前 16 个）" % job.nnodes)
    ev = platform_fail_events(job, rng, "volc")
    if ev:
        lines.append("")
        lines.append("事件:")
        for t, ty, obj, rs, msg in sorted(ev, key=lambda a: a[0]):
            lines.append("  %s  %-8s %-45s %s" % (f_ymd(t, 8, ms=False), rs, obj, msg))
    files["instances.txt"] = "\n".join(lines) + "\n"
    files.update(hw_artifacts(job, rng, name_of=lambda nd: nd.ip))
    return files


def ma_files(job, rlogs):
    rng = random.Random(job.seed_str + "|ma")
    files = {}
    s_path, s_name, _ = script_info(job)
    hosts = ",".join("%s.%s" % (n.name, job.job_id) for n in job.nodes[:4]) + ("" if job.nnodes <= 4 else ",...")
    for nd in job.shown:
        t = nd.start - 3
        svc = lambda tt, m: (tt, "[Modelarts Service Log]%s" % m)
        head = [svc(t, "user: uid=1000(ma-user) gid=100(users) groups=100(users)"),
                svc(t, "pwd: /home/ma-user"),
                svc(t, "app_url: /home/ma-user/modelarts/user-job-dir/code/"),
                svc(t, "boot_file: /home/ma-user/modelarts/user-job-dir/code/scripts/run_train.sh"),
                svc(t, "log_url: /tmp/log/%s-worker-%d.log" % (job.job_id, nd.k)),
                svc(t, "command: bash /home/ma-user/modelarts/user-job-dir/code/scripts/run_train.sh"),
                svc(t + 0.1, "Training start at %s" % f_asc_s(t + 0.1 + nd.skew, 8))]
        t2 = t + 1
        for x in ["MA_NUM_HOSTS=%d" % job.nnodes, "VC_TASK_INDEX=%d" % nd.k, "VC_WORKER_HOSTS=%s" % hosts,
                  "MA_CURRENT_IP=%s" % nd.ip, "ASCEND_RT_VISIBLE_DEVICES=%s" % ",".join(str(i) for i in range(job.gpn)),
                  "HCCL_CONNECT_TIMEOUT=1200", "HCCL_EXEC_TIMEOUT=%d" % job.coll_timeout,
                  "ASCEND_GLOBAL_LOG_LEVEL=3", "ASCEND_PROCESS_LOG_PATH=/home/ma-user/modelarts/log/plog",
                  "CANN: %s, torch %s, torch_npu %s" % (job.cann, job.tvs, job.torch_npu)]:
            head.append((t2, x))
        head.append((t2 + 0.01, "开始训练：%s，节点 %d/%d" % (job.model, nd.k, job.nnodes)))
        head.append((t2 + 0.02, "+ torchrun --nproc_per_node %d --nnodes %d --node_rank %d --master_addr %s --master_port %d %s" % (
            job.gpn, job.nnodes, nd.k, "%s-worker-0.%s" % (job.job_id, job.job_id), job.master_port, s_path)))
        te, code, _r = node_exit(job, nd)
        tail = [svc(te, "Training end at %s" % f_asc_s(te + nd.skew, 8)),
                svc(te + 0.01, "Training completed." if code == 0 else "Training end with return code: %d" % code),
                svc(te + 0.5, "handle outputs of training job")]
        log = merged_node_log(job, nd, rlogs, render_agent_torchrun(job, nd), head, tail)
        files["%s-worker-%d.log" % (job.job_id, nd.k)] = log.render()
    files.update(npu_node_artifacts(job, rng, lambda nd: "worker-%d" % nd.k, style="syslog"))
    ev = [(job.t0, "Normal", "Job/%s" % job.job_id, "Created", "训练作业创建成功"),
          (job.t0 + 10, "Normal", "Job/%s" % job.job_id, "Scheduled", "资源调度成功，%d 个节点（%s x %d）" % (job.nnodes, job.gpu, job.gpn))]
    ev += platform_fail_events(job, rng, "ma")
    ev.sort(key=lambda a: a[0])
    files["events.txt"] = "\n".join("%s  %s  %-12s %s  %s" % (f_ymd(t, 8, ms=False), ty, rs, obj, msg) for t, ty, obj, rs, msg in ev) + "\n"
    return files


def npu_node_artifacts(job, rng, name_of, style="dmesg_T"):
    files = {}
    cause = job.cause if not job.healthy else None
    c = job.ranks[job.culprit] if job.culprit is not None else None
    # plogs
    if c is not None and c.node in job.shown:
        kind = {"network": "cqe", "nvlink": "hccs", "ecc_memory": "ecc", "gpu_hardware": "heartbeat",
                "illegal_memory_access": "aicore", "cuda_oom": "oom"}.get(cause)
        if kind:
            files["plog/%s/plog-%d_%s.log" % (name_of(c.node), c.pid, dtz(job.t_train - 120, 8).strftime("%Y%m%d%H%M%S") + "%03d" % rng.randrange(1000))] = plog_lines(job, c, rng, kind)
    coll = [rk for rk in job.shown_ranks if job.ends[rk.g].kind in ("timeout", "remote", "neterr_peer")]
    if coll and chance(rng, 0.8):
        rk = pick(rng, coll)
        files["plog/%s/plog-%d_%s.log" % (name_of(rk.node), rk.pid, dtz(job.t_train - 120, 8).strftime("%Y%m%d%H%M%S") + "%03d" % rng.randrange(1000))] = plog_lines(job, rk, rng, "timeout")
    # npu-smi info after the failure
    targets = []
    if c is not None and cause in ("gpu_hardware", "ecc_memory", "nvlink", "network", "straggler") and (c.node in job.shown or chance(rng, 0.5)):
        targets.append(c.node)
    if chance(rng, 0.5):
        o = pick(rng, job.shown)
        if o not in targets:
            targets.append(o)
    for nd in targets:
        health = {}
        if c is not None and nd is c.node:
            if cause == "gpu_hardware":
                health[c.dev] = "Critical"
            elif cause == "ecc_memory":
                health[c.dev] = pick(rng, ["Alarm", "Critical"])
            elif cause == "nvlink":
                health[c.dev] = "Alarm"
            elif cause == "straggler":
                health[c.dev] = "Warning"
        if job.healthy and chance(rng, 0.4):
            health[rng.randrange(job.gpn)] = "Warning"
            job.decoys.append("npu-smi shows a 'Warning' health on %s (no effect on the run)" % nd.name)
        busy = nd.k == (c.node.k if c is not None else -1) and cause == "straggler"
        files["npu-smi-info-%s.txt" % name_of(nd)] = npu_smi_table(job, nd, job.F, rng, health=health, busy=busy)
    if cause == "network" and c is not None:
        lines = []
        for rk in c.node.ranks:
            st = "DOWN" if rk is c else "UP"
            lines.append("[root@%s ~]# hccn_tool -i %d -link -g" % (name_of(c.node), rk.dev))
            lines.append("link status: %s" % st)
        for rk in c.node.ranks:
            lines.append("[root@%s ~]# hccn_tool -i %d -net_health -g" % (name_of(c.node), rk.dev))
            lines.append("net health status: %s" % ("Fault" if rk is c else "Success"))
        files["hccn_tool-%s.txt" % name_of(c.node)] = "\n".join(lines) + "\n"
    # kernel log (host OOM, segfault, nfs, decoys)
    knodes = []
    if c is not None and cause in ("host_oom_kill", "crash_signal", "data_loader_stall") and chance(rng, 0.8):
        knodes.append(c.node)
    if job.decoy_old_nfs_node is not None:
        knodes.append(job.decoy_old_nfs_node)
    for nd in knodes:
        ev = host_kernel_events(job, nd, rng)
        files["messages-%s.txt" % name_of(nd) if style == "syslog" else "dmesg-%s.txt" % name_of(nd)] = kernel_file(job, nd, ev, style, rng)
    return files


def slurm_hostlist(job):
    a = job.slurm_start
    b = job.slurm_start + job.nnodes - 1
    if a == b:
        return "%s%02d" % (job.slurm_pfx, a)
    return "%s[%02d-%02d]" % (job.slurm_pfx, a, b)


def slurm_files(job, rlogs):
    rng = random.Random(job.seed_str + "|slurm")
    files = {}
    jid = job.job_id
    s_path, s_name, _ = script_info(job)
    for nd in job.shown:
        t = nd.start - 0.5
        head = [(t, "==== [%s] 节点 %s 启动（SLURM_NODEID=%d，SLURM_JOB_ID=%s）====" % (f_ymd(t + nd.skew, 8, ms=False), nd.name, nd.k, jid)),
                (t + 0.001, "source /usr/local/Ascend/ascend-toolkit/set_env.sh"),
                (t + 0.002, "export ASCEND_RT_VISIBLE_DEVICES=%s" % ",".join(str(i) for i in range(job.gpn))),
                (t + 0.003, "export HCCL_EXEC_TIMEOUT=%d HCCL_CONNECT_TIMEOUT=1200 NPROC_PER_NODE=%d NNODES=%d NODE_RANK=%d MASTER_ADDR=%s MASTER_PORT=%d" % (
                    job.coll_timeout, job.gpn, job.nnodes, nd.k, job.nodes[0].name, job.master_port)),
                (t + 0.004, "+ swift sft --model /data/models/%s --train_type lora --dataset /data/sft/中文指令_v2.jsonl --deepspeed zero2 --output_dir /data/output/%s" % (job.model, jid)),
                (t + 0.5, "run sh: `/usr/bin/python3 -m torch.distributed.run --nproc_per_node %d --nnodes %d --node_rank %d --master_addr %s --master_port %d %s --model /data/models/%s --train_type lora ...`" % (
                    job.gpn, job.nnodes, nd.k, job.nodes[0].name, job.master_port, s_path, job.model))]
        log = merged_node_log(job, nd, rlogs, render_agent_torchrun(job, nd), head, [])
        files["logs/%s-node%d.out" % (jid, nd.k)] = log.render()
    # batch script output
    log = Log()
    t = job.t0
    log.add(t, "作业 %s 开始于 %s，节点列表：%s，每节点 %d 卡 %s" % (jid, f_ymd(t, 8, ms=False), slurm_hostlist(job), job.gpn, job.gpu))
    log.add(t + 0.1, "+ srun --ntasks-per-node=1 --kill-on-bad-exit=%d --output=logs/%%j-node%%t.out bash scripts/run_node.sh" % (1 if job.slurm_kill_bad else 0))
    cause = job.cause if not job.healthy else None
    exits = [(node_exit(job, nd), nd) for nd in job.nodes]
    exits.sort(key=lambda a: a[0][0])
    state = "COMPLETED"
    ec = "0:0"
    if cause == "preemption":
        tp = job.F - 0.2
        log.add(tp, "slurmstepd: error: *** JOB %s ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (jid, job.nodes[0].name, dtz(tp, 8).strftime("%Y-%m-%dT%H:%M:%S")))
        log.add(tp + 0.05, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
        log.add(tp + 0.06, "slurmstepd: error: *** STEP %s.0 ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (jid, job.nodes[0].name, dtz(tp, 8).strftime("%Y-%m-%dT%H:%M:%S")))
        state, ec = "PREEMPTED", "0:15"
    elif cause == "straggler" and job.variant == "time_limit":
        tp = job.F - 0.2
        log.add(tp, "slurmstepd: error: *** JOB %s ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (jid, job.nodes[0].name, dtz(tp, 8).strftime("%Y-%m-%dT%H:%M:%S")))
        log.add(tp + 0.05, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
        state, ec = "TIMEOUT", "0:15"
    else:
        first_bad = True
        for (te, code, reason), nd in exits:
            if code == 0:
                continue
            if reason == "Error":
                log.add(te, "srun: error: %s: task %d: Exited with exit code 1" % (nd.name, nd.k))
                if first_bad and job.slurm_kill_bad:
                    log.add(te + 0.1, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
                    log.add(te + 0.2, "slurmstepd: error: *** STEP %s.0 ON %s CANCELLED AT %s ***" % (jid, job.nodes[0].name, dtz(te + 0.2, 8).strftime("%Y-%m-%dT%H:%M:%S")))
                first_bad = False
            elif reason == "Killed":
                log.add(te, "srun: error: %s: task %d: Terminated" % (nd.name, nd.k))
        if cause == "host_oom_kill" and job.variant != "dl_worker_killed":
            c = job.ranks[job.culprit]
            log.add(job.F + 1, "slurmstepd: error: Detected 1 oom_kill event in StepId=%s.0. Some of the step tasks have been OOM Killed." % jid)
            state, ec = "OUT_OF_MEMORY", "0:125"
        elif any(code != 0 for (te, code, r), nd in exits):
            state, ec = "FAILED", "1:0"
    tend = max(te for (te, c_, r), nd in exits)
    log.add(tend + 1, "作业结束：%s" % f_ymd(tend + 1, 8, ms=False))
    files["slurm-%s.out" % jid] = log.render()
    el = f_hms_dur(tend - job.t0)
    sa = ["JobID           JobName  Partition    Account  AllocCPUS      State ExitCode    Elapsed        NodeList ",
          "------------ ---------- ---------- ---------- ---------- ---------- -------- ---------- --------------- ",
          "%-12s %10s %10s %10s %10d %10s %8s %10s %-15s " % (jid, "sft_910b", "ascend", "llm-team", 192 * job.nnodes, state, ec, el, slurm_hostlist(job)),
          "%-12s %10s %10s %10s %10d %10s %8s %10s %-15s " % (jid + ".batch", "batch", "", "llm-team", 192, state if state != "PREEMPTED" else "CANCELLED", ec, el, job.nodes[0].name),
          "%-12s %10s %10s %10s %10d %10s %8s %10s %-15s " % (jid + ".0", "bash", "", "llm-team", 192 * job.nnodes, state if state not in ("PREEMPTED", "TIMEOUT") else "CANCELLED", ec, el, slurm_hostlist(job))]
    files["sacct.txt"] = "\n".join(sa) + "\n"
    files.update(npu_node_artifacts(job, rng, lambda nd: nd.name, style="syslog"))
    return files


def paddle_files(job, rlogs):
    rng = random.Random(job.seed_str + "|paddle")
    files = {}
    for nd in job.shown:
        launch = render_launcher_paddle(job, nd)
        txt = launch.render()
        for rk in nd.ranks:
            wl = rlogs[rk.g].render()
            files["%s/log/workerlog.%d" % (nd.name, rk.lr)] = wl
            tag = "@@ERRTAIL %d@@" % rk.g
            if tag in txt:
                tail = "\n".join(wl.rstrip("\n").split("\n")[-14:])
                txt = txt.replace(tag, tail)
        files["%s/launch.log" % nd.name] = txt
        files["%s/log/endpoints.log" % nd.name] = "PADDLE_TRAINER_ENDPOINTS: \n" + "\n".join(
            "%s:%d" % (n.ip, 6070 + i) for n in job.nodes[:8] for i in range(job.gpn)) + "\n"
    if chance(rng, 0.55) or (job.cause == "preemption" and not job.healthy and chance(rng, 0.6)):
        ev = [(job.t0, "Normal", "PaddleJob/%s" % job.job_id, "Created", "任务创建成功")]
        for nd in job.nodes[:6]:
            ev.append((nd.start - 10, "Normal", "Pod/%s" % nd.aliases[0], "Scheduled", "Successfully assigned %s to 10.%d.0.%d" % (
                nd.aliases[0], rng.randrange(1, 200), rng.randrange(2, 250))))
        for t, ty, obj, rs, msg in platform_fail_events(job, rng, "baige"):
            if obj.startswith("Pod/"):
                nm = obj[4:]
                for nd in job.nodes:
                    if nd.name == nm:
                        obj = "Pod/%s" % nd.aliases[0]
            ev.append((t, ty, obj, rs, msg))
        ev.sort(key=lambda a: a[0])
        files["baige-events.txt"] = "\n".join("%s  %-8s %-14s %-40s %s" % (f_iso(t, 8, ms=False), ty, rs, obj, msg) for t, ty, obj, rs, msg in ev) + "\n"
    files.update(hw_artifacts(job, rng, name_of=lambda nd: nd.ip))
    return files


def k8s_age(sec):
    sec = int(sec)
    if sec < 120:
        return "%ds" % sec
    if sec < 7200:
        return "%dm" % (sec // 60)
    if sec < 86400 * 2:
        return "%dh%dm" % (sec // 3600, (sec % 3600) // 60) if sec < 36000 else "%dh" % (sec // 3600)
    return "%dd" % (sec // 86400)


def colossal_files(job, rlogs):
    rng = random.Random(job.seed_str + "|cai")
    files = {}
    s_path, s_name, _ = script_info(job)
    for nd in job.shown:
        t = nd.start - 0.5
        head = [(t, "[entrypoint] %s 启动 %s（PET_NODE_RANK=%d, PET_NNODES=%d）" % (f_iso(t + nd.skew, 8, ms=False), nd.name, nd.k, job.nnodes)),
                (t + 0.01, "[extension] Loading the JIT-built fused_optim_cuda kernel during runtime now"),
                (t + 0.02, "+ torchrun --nproc_per_node=%d --nnodes=%d --node_rank=%d --master_addr=%s --master_port=%d %s --plugin %s --pretrained /models/%s --dataset /data/tokenized --save_interval 500 --max_length 4096" % (
                    job.gpn, job.nnodes, nd.k, job.nodes[0].name, job.master_port, s_path, pick(rng, ["gemini", "zero2", "3d"]), job.model))]
        log = merged_node_log(job, nd, rlogs, render_agent_torchrun(job, nd), head, [])
        files["%s.log" % nd.name] = log.render()
    tnow = max(job.ends[rk.g].t for rk in job.ranks) + rng.uniform(120, 5400)
    lines = ["NAME                          READY   STATUS      RESTARTS   AGE     IP              NODE                 NOMINATED NODE   READINESS GATES"]
    for nd in job.nodes:
        te, code, reason = node_exit(job, nd)
        st = {"Completed": "Completed", "Error": "Error", "Preempted": "Error", "Killed": "Error"}[reason]
        lines.append("%-29s %-7s %-11s %-10d %-7s %-15s %-20s <none>           <none>" % (nd.name, "0/1", st, 0, k8s_age(tnow - nd.start), nd.ip, nd.aliases[0]))
    if chance(rng, 0.75) or job.cause == "preemption":
        files["kubectl-get-pods.txt"] = "\n".join(lines) + "\n"
    ev = []
    for nd in job.nodes[:8]:
        ev.append((nd.start - 15, "Normal", "Scheduled", "pod/%s" % nd.name, "Successfully assigned default/%s to %s" % (nd.name, nd.aliases[0])))
        ev.append((nd.start - 2, "Normal", "Started", "pod/%s" % nd.name, "Started container pytorch"))
    for t, ty, obj, rs, msg in platform_fail_events(job, rng, "k8s"):
        if obj.startswith("Job/"):
            continue
        if obj.startswith("PyTorchJob/"):
            obj = obj.replace("PyTorchJob/", "pytorchjob/")
        ev.append((t, ty, rs, obj.replace("Pod/", "pod/").replace("Node/", "node/"), msg))
    ev.sort(key=lambda a: a[0])
    el = ["LAST SEEN   TYPE      REASON           OBJECT                                MESSAGE"]
    for t, ty, rs, obj, msg in ev:
        if tnow - t > 3600 * 1.0 and rs in ("Scheduled", "Started"):
            continue   # events expire after ~1h
        el.append("%-11s %-9s %-16s %-37s %s" % (k8s_age(tnow - t), ty, rs, obj, msg))
    files["kubectl-events.txt"] = "\n".join(el) + "\n"
    files.update(hw_artifacts(job, rng, name_of=lambda nd: nd.aliases[0]))
    return files


def pdsh_files(job, rlogs):
    rng = random.Random(job.seed_str + "|pdsh")
    files = {}
    s_path, s_name, _ = script_info(job)
    log = Log()
    n0 = job.nodes[0]
    t = job.t0
    log.add(t, "========== %s 开始训练 ==========" % f_ymd(t, 8, ms=False))
    log.add(t + 0.01, "模型: /mnt/models/%s  数据: /mnt/data/sft_mix_0312.jsonl  节点: %s" % (job.model, ",".join(n.name for n in job.nodes)))
    log.add(t + 0.5, "[%s] [INFO] [runner.py:607:main] cmd = pdsh -S -f 1024 -w %s export PYTHONPATH=/root/ms-swift; export NCCL_IB_HCA=mlx5; export NCCL_DEBUG=%s;  cd /root/ms-swift; %s -u -m deepspeed.launcher.launch --world_info=%s --node_rank=%%n --master_addr=%s --master_port=%d %s --model /mnt/models/%s --train_type full --deepspeed zero3" % (
        f_ymd(t + 0.5, 8), ",".join(n.name for n in job.nodes), "INFO" if job.nccl_debug_info else "WARN", job.python_bin,
        "eyJ" + alnum(rng, 40), n0.ip, job.master_port, s_path, job.model))
    for nd in job.nodes:
        pref = "%s: " % nd.name
        nl = Log()
        nl.extend(render_agent_deepspeed(job, nd))
        for rk in nd.ranks:
            if rk.g in rlogs:
                nl.extend(rlogs[rk.g])
        for tt, o, x in nl.items:
            log.add(tt, "\n".join(pref + part for part in x.split("\n")))
    exits = [(node_exit(job, nd), nd) for nd in job.nodes]
    cause = job.cause if not job.healthy else None
    if cause == "preemption":
        tp = job.F + 0.5
        log.add(tp, "salloc: Job allocation %d has been revoked." % rng.randrange(10000, 99999))
        for (te, code, r), nd in exits:
            log.add(tp + rng.uniform(0.5, 3), "pdsh@%s: %s: ssh exited with exit code 255" % (n0.name, nd.name))
    elif cause == "straggler" and job.variant == "time_limit":
        tp = job.F - 0.2
        log.add(tp, "salloc: Job %d has exceeded its time limit and its allocation has been revoked." % rng.randrange(10000, 99999))
        for (te, code, r), nd in exits:
            log.add(tp + rng.uniform(0.5, 3), "pdsh@%s: %s: ssh exited with exit code 255" % (n0.name, nd.name))
    else:
        for (te, code, r), nd in exits:
            if code:
                log.add(te + 0.5, "pdsh@%s: %s: ssh exited with exit code %d" % (n0.name, nd.name, code if code < 128 else 1))
        tend = max(te for (te, c_, r), nd in exits)
        if all(c_ == 0 for (te, c_, r), nd in exits):
            log.add(tend + 1, "========== %s 训练完成 ==========" % f_ymd(tend + 1, 8, ms=False))
        else:
            log.add(tend + 1, "========== %s 训练失败，请检查日志 ==========" % f_ymd(tend + 1, 8, ms=False))
    files["train.log"] = log.render()
    files["hostfile"] = "\n".join("%s slots=%d" % (n.name, job.gpn) for n in job.nodes) + "\n"
    files.update(hw_artifacts(job, rng, name_of=lambda nd: nd.name))
    return files


# ----------------------------------------------------------------------------
# extras, truth, driver
# ----------------------------------------------------------------------------
PLATFORM_CN = {"pai_dlc": "PAI-DLC", "volc_mlp": "火山引擎机器学习平台", "modelarts_ascend": "ModelArts",
               "ascend_slurm": "昇腾集群（Slurm）", "paddle_launch": "百舸", "colossalai_k8s": "K8s 集群",
               "swift_pdsh": "物理机集群"}


def issue_note(job, files):
    rng = random.Random(job.seed_str + "|note")
    acc = "NPU" if job.accel == "npu" else "卡"
    names = [k for k in sorted(files)][:4]
    if job.healthy or (job.cause == "straggler" and job.variant == "finished_slow"):
        what = "任务最后显示成功了，但是日志里有不少 WARN / Traceback，想确认一下训练是否正常、结果能不能用。"
    else:
        what = "任务在第 %d 步左右挂掉了（大概 %s），重跑之前想先定位一下原因。" % (
            (job.fail_step // 10) * 10, f_ymd(job.F, 8, ms=False)[:16])
    guess = pick(rng, ["怀疑是网络问题？", "是不是显存不够？", "会不会是数据有问题？", "NCCL 超时是不是设太小了？",
                       "感觉是机器有问题，但是不确定是哪台。", "不知道从哪里开始看……", "同事说可能是存储慢，求帮忙看看。"])
    txt = "【问题描述】\r\n%s 上的训练任务（%d %s，%s，%s），%s\r\n附件：%s 等。\r\n%s\r\n之前同样的配置跑过几次都是正常的。\r\n" % (
        PLATFORM_CN[job.layout], job.world, acc, job.gpu_full, job.model, what, "、".join(names), guess)
    job.decoys.append("user note with an unverified guess: %s" % guess)
    if job.issue_gbk:
        return txt.encode("gbk", errors="replace")
    return txt


def apply_mojibake(job, files):
    rng = random.Random(job.seed_str + "|moji")
    cands = [k for k in sorted(files) if isinstance(files[k], str) and has_cjk(files[k])]
    if not cands:
        return
    k = pick(rng, cands)
    out = []
    for line in files[k].split("\n"):
        out.append(mojibake(line) if has_cjk(line) else line)
    files[k] = "\n".join(out)
    job.notes.append("Chinese lines of %s are GBK/UTF-8 mojibake (file was opened/saved with the wrong codec)" % k)


def build_run(idx, seed, layout, cause, healthy):
    for shrink in range(0, 4):
        job = Job(idx, seed, layout, cause, healthy, shrink=shrink)
        plan(job)
        knobs(job)
        platform_teardown(job)
        if layout == "paddle_launch":
            paddle_adjust(job)
        rl = rank_logs(job)
        fn = {"pai_dlc": dlc_files, "volc_mlp": volc_files, "modelarts_ascend": ma_files,
              "ascend_slurm": slurm_files, "paddle_launch": paddle_files, "colossalai_k8s": colossal_files,
              "swift_pdsh": pdsh_files}[layout]
        files = fn(job, rl)
        if job.pyspy and job.cnode in job.shown:
            files["py-spy-%s.txt" % (job.cnode.name if job.layout != "paddle_launch" else job.cnode.ip)] = pyspy_dump(job, random.Random(job.seed_str + "|pyspy"))
        elif job.pyspy:
            job.pyspy = False
        if job.mojibake_file:
            apply_mojibake(job, files)
        if job.issue_note:
            files["问题描述.txt"] = issue_note(job, files)
        size = sum(len(v.encode("utf-8")) if isinstance(v, str) else len(v) for v in files.values())
        if size < 900 * 1024:
            break
    truth = make_truth(job)
    files["truth.json"] = json.dumps(truth, ensure_ascii=False, indent=2) + "\n"
    return job, files, truth


def make_truth(job):
    cause = None if job.healthy else job.cause
    rank = job.culprit if cause not in (None, "preemption", "unknown") else None
    node = job.cnode.name if (cause is not None and job.cnode is not None) else None
    aliases = list(job.cnode.aliases) if node else []
    inferable = rank is not None and not job.missing_culprit_log
    if cause == "hang" and not (job.variant == "ckpt_io" or job.pyspy or job.hang_remote_hint):
        inferable = False
        job.notes.append("hang with no per-rank evidence beyond the missing timeout on the culprit (its node-mates were partly SIGTERMed first)")
    if cause == "hang":
        job.notes.append("hang evidence: %s" % ", ".join(x for x, y in (("last user line before the hang", job.variant == "ckpt_io"),
                                                                      ("py-spy dump of the culprit node", job.pyspy),
                                                                      ("EI0002 names the remote rank", job.hang_remote_hint)) if y) or "none")
    stack = {"pai_dlc": "torchrun + %s" % ("PAI-Megatron-Patch" if job.fw == "megatron" else "LLaMA-Factory/DeepSpeed"),
             "volc_mlp": "torchrun + LLaMA-Factory/DeepSpeed", "modelarts_ascend": "torchrun + torch_npu + %s" % ("MindSpeed-LLM" if job.fw == "megatron" else "LLaMA-Factory"),
             "ascend_slurm": "Slurm srun + torchrun + torch_npu + ms-swift", "paddle_launch": "paddle.distributed.launch + PaddleNLP",
             "colossalai_k8s": "Kubeflow PyTorchJob + torchrun + ColossalAI", "swift_pdsh": "DeepSpeed pdsh launcher + ms-swift"}[job.layout]
    ver = ("paddle %s, NCCL %s" % (job.paddle_ver, job.nccl)) if job.layout == "paddle_launch" else (
        "torch %s, NCCL %s" % (job.tvs, job.nccl) if job.accel == "cuda" else "torch %s, torch_npu %s, CANN %s" % (job.tvs, job.torch_npu, job.cann))
    parts = ["world_size=%d (%d node(s) x %d %s, %s); %s; %s; collective timeout %ds; logs attached from %d of %d node(s)" % (
        job.world, job.nnodes, job.gpn, "NPU" if job.accel == "npu" else "GPU", job.gpu_full, stack, ver,
        job.coll_timeout, len(job.shown), job.nnodes)]
    if cause is None:
        parts.append("healthy run: finished normally despite alarming noise")
    else:
        inj = "injected %s" % cause
        if rank is not None:
            inj += " on rank %d" % rank
        if node:
            inj += " (%s)" % node
        if job.variant:
            inj += ", variant=%s" % job.variant
        inj += ", at step ~%d" % job.fail_step
        parts.append(inj)
        if cause not in ("straggler",):
            kinds = {}
            for rk in job.ranks:
                if rk.g == job.culprit:
                    continue
                k = job.ends[rk.g].kind
                kinds[k] = kinds.get(k, 0) + 1
            names = {"timeout": "collective timeout", "remote": "NCCL remote-error", "term": "SIGTERM by launcher",
                     "killall": "stopped by platform/scheduler", "neterr": "IB error (same NIC)", "neterr_peer": "IB completion error (peer)",
                     "mismatch": "mismatch error", "preempt": "preempted"}
            parts.append("collateral on other ranks: " + ", ".join("%s x%d" % (names.get(k, k), kinds[k]) for k in sorted(kinds)))
        if getattr(job, "t_teardown", None):
            parts.append("platform stopped the remaining workers after the first pod/task failed")
        if job.missing_culprit_log:
            parts.append("the failing node's own log is NOT attached (only platform events, other nodes and host-level files)")
        if cause == "unknown":
            parts.append("all ranks time out on the same collective; nothing identifies an initiator")
        if cause == "preemption" and job.variant == "whole_job":
            parts.append("whole allocation preempted by the scheduler, no single culprit node")
    for n in job.notes:
        if n not in parts:
            parts.append(n)
    if job.decoys:
        parts.append("decoys: " + "; ".join(job.decoys))
    return {"cause": cause, "healthy": bool(job.healthy), "rank": rank, "node": node,
            "drain": bool(cause in DRAIN_CAUSES and node is not None),
            "rank_inferable": bool(inferable), "node_aliases": aliases, "layout": job.layout,
            "notes": ". ".join(parts)}


def deal(n, seed):
    rng = random.Random("%s|deal|%s" % (GEN_NAME, seed))
    order = list(CAUSES)
    rng.shuffle(order)
    layouts = []
    while len(layouts) < n:
        blk = list(LAYOUTS)
        rng.shuffle(blk)
        layouts.extend(blk)
    plan_ = []
    k = 0
    for i in range(n):
        if i % 7 == 3:
            plan_.append((layouts[i], None, True))
        else:
            plan_.append((layouts[i], order[k % len(order)], False))
            k += 1
    return plan_


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    counts = {"healthy": 0}
    for c in CAUSES:
        counts[c] = 0
    for i, (layout, cause, healthy) in enumerate(deal(a.n, a.seed)):
        job, files, truth = build_run(i, a.seed, layout, cause or "healthy", healthy)
        d = os.path.join(a.out, "run-%03d-%s" % (i, layout))
        os.makedirs(d, exist_ok=True)
        for name in sorted(files):
            p = os.path.join(d, name)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            v = files[name]
            if isinstance(v, bytes):
                with open(p, "wb") as f:
                    f.write(v)
            else:
                with open(p, "w", encoding="utf-8", newline="") as f:
                    f.write(v)
        counts["healthy" if healthy else cause] += 1
    print(json.dumps(counts, indent=1))



def pyspy_dump(job, rng):
    """`py-spy dump` of every training process on the culprit's node, taken while the job hung."""
    c = job.ranks[job.culprit]
    nd = c.node
    t = job.F + rng.uniform(240, max(300, job.coll_timeout - 120))
    sp_short = lambda p: p.split("-packages/")[-1] if "-packages/" in p else p
    out = []
    s_path, s_name, fr = script_info(job)
    paddle = job.layout == "paddle_launch"
    micro = rng.randrange(4, 15)
    for rk in nd.ranks:
        out.append("== local_rank %d, pid %d ==" % (rk.lr, rk.pid))
        out.append("Process %d: %s -u %s" % (rk.pid, job.python_bin, s_path))
        out.append("Python v%s.%d (%s%s)" % (job.pyver, micro, "/usr/bin/python", job.pyver))
        out.append("")
        out.append('Thread %d (idle): "MainThread"' % rk.pid)
        if rk is c:
            if job.cause == "data_loader_stall":
                stack = [("poll", "multiprocessing/connection.py", 257), ("wait", "multiprocessing/connection.py", 948),
                         ("get", "multiprocessing/queues.py", 113)]
                if paddle:
                    stack += [("_get_data", "paddle/io/dataloader/dataloader_iter.py", 612), ("__next__", "paddle/io/dataloader/dataloader_iter.py", 825)]
                else:
                    stack += [("_try_get_data", "torch/utils/data/dataloader.py", 1133), ("_get_data", "torch/utils/data/dataloader.py", 1294),
                              ("_next_data", "torch/utils/data/dataloader.py", 1448), ("__next__", "torch/utils/data/dataloader.py", 701)]
            elif job.variant == "ckpt_io":
                stack = [("write", "<built-in>", 0), ("dump_jsonl", "/mnt/workspace/utils/eval_cache.py", 41),
                         ("on_step_end", "/mnt/workspace/callbacks/eval_cache.py", 88)]
            else:
                stack = [("wait", "threading.py", 320), ("get", "queue.py", 171),
                         ("flush", "/mnt/workspace/utils/async_metrics.py", 77), ("on_log", "/mnt/workspace/callbacks/monitor.py", 58)]
        else:
            if paddle:
                stack = [("_all_reduce_in_dygraph", "paddle/distributed/communication/stream/all_reduce.py", 61),
                         ("all_reduce", "paddle/distributed/communication/all_reduce.py", 107),
                         ("_reduce_gradients", "paddle/distributed/fleet/meta_parallel/sharding/group_sharded_optimizer_stage2.py", 512)]
            else:
                stack = [("all_reduce", "torch/distributed/distributed_c10d.py", 2501), ("wrapper", "torch/distributed/c10d_logger.py", 83)]
                if job.fw in ("hf", "swift"):
                    stack += [("allreduce_bucket", "deepspeed/runtime/zero/stage_1_and_2.py", 1513),
                              ("backward", "deepspeed/runtime/engine.py", 2020), ("backward", "accelerate/accelerator.py", 2238)]
                elif job.fw == "megatron":
                    stack += [("finish_grad_sync", "megatron/core/distributed/param_and_grad_buffer.py", 458),
                              ("finalize_model_grads", "megatron/core/distributed/finalize_model_grads.py", 155)]
                else:
                    stack += [("_reduce_grad", "colossalai/zero/low_level/low_level_optim.py", 311),
                              ("backward", "colossalai/booster/booster.py", 171)]
        for fn, f, ln in stack:
            out.append("    %s (%s%s)" % (fn, sp_short(f), "" if ln == 0 else ":%d" % ln))
        for f, ln, fn, _c in reversed(fr[-4:]):
            out.append("    %s (%s:%d)" % (fn, sp_short(f), ln))
        out.append('Thread %d (idle): "Thread-2 (_pin_memory_loop)"' % (rk.pid + 211))
        out.append("    select (selectors.py:415)")
        out.append("    wait (multiprocessing/connection.py:948)")
        out.append("    _pin_memory_loop (torch/utils/data/_utils/pin_memory.py:53)" if not paddle else "    _thread_loop (paddle/io/dataloader/dataloader_iter.py:490)")
        out.append("")
    hdr = "# %s 卡住时在 %s 上执行 `py-spy dump --pid <pid>` 的输出（%s）\n\n" % (
        f_ymd(t, 8, ms=False), nd.name, "每个训练进程一次")
    return hdr + "\n".join(out) + "\n"


if __name__ == "__main__":
    main()
