#!/usr/bin/env python3
"""gen_blind35.py -- blind synthetic log-bundle generator, theme: CLOCKS AND ORDER.

Writes DIR/run-NNN-<layout>/ folders that look like what a user or an operator would
attach after a multi-node GPU training job failed (or did not), where deciding who
failed first means reading timestamps that disagree: skewed node clocks, NTP steps,
mixed time zones and formats, DST / midnight / new-year crossings, merged and
re-ordered output, buffered stdout flushed late.

Standard library only.  Deterministic per --seed.

    python3 gen_blind35.py --out DIR --n 60 --seed 1
"""
import argparse
import json
import os
import random
import sys
import time as _time
from datetime import datetime, timedelta

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill", "crash_signal",
          "preemption", "hang", "data_loader_stall", "collective_mismatch", "straggler",
          "unknown"]
LAYOUTS = ["slurm_srun", "torchrun_logdir", "k8s_pytorchjob", "aggregator_export",
           "mpirun_tagged", "deepspeed_pdsh"]
INF = float("inf")
EPOCH0 = datetime(1970, 1, 1)
MON = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
DOW = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]


# ----------------------------------------------------------------------------------
# time zones (own rules, so the output does not depend on the host's tzdata)
# ----------------------------------------------------------------------------------
def _nth_sunday(y, m, n):
    wd = datetime(y, m, 1).weekday()          # Mon=0 .. Sun=6
    return 1 + (6 - wd) % 7 + 7 * (n - 1)


def _last_sunday(y, m):
    nxt = datetime(y + (m == 12), m % 12 + 1, 1) - timedelta(days=1)
    return nxt.day - (nxt.weekday() + 1) % 7


def _utc_epoch(y, mo, d, h):
    return (datetime(y, mo, d, h) - EPOCH0).total_seconds()


class Zone:
    def __init__(self, name, std, dst, astd, adst, rule):
        self.name, self.std, self.dst, self.astd, self.adst, self.rule = name, std, dst, astd, adst, rule

    def transitions(self, year):
        """(dst_start_utc, dst_end_utc) or None."""
        if self.rule == "us":
            s = _utc_epoch(year, 3, _nth_sunday(year, 3, 2), 2) - self.std
            e = _utc_epoch(year, 11, _nth_sunday(year, 11, 1), 2) - self.dst
            return s, e
        if self.rule == "eu":
            return (_utc_epoch(year, 3, _last_sunday(year, 3), 1),
                    _utc_epoch(year, 10, _last_sunday(year, 10), 1))
        return None

    def utcoff(self, wall):
        if self.rule is None:
            return self.std, self.astd
        y = (EPOCH0 + timedelta(seconds=wall)).year
        s, e = self.transitions(y)
        if s <= wall < e:
            return self.dst, self.adst
        return self.std, self.astd


ZONES = {
    "UTC": Zone("UTC", 0, 0, "UTC", "UTC", None),
    "America/Chicago": Zone("America/Chicago", -6 * 3600, -5 * 3600, "CST", "CDT", "us"),
    "America/Los_Angeles": Zone("America/Los_Angeles", -8 * 3600, -7 * 3600, "PST", "PDT", "us"),
    "America/New_York": Zone("America/New_York", -5 * 3600, -4 * 3600, "EST", "EDT", "us"),
    "Europe/Berlin": Zone("Europe/Berlin", 3600, 7200, "CET", "CEST", "eu"),
    "Europe/London": Zone("Europe/London", 0, 3600, "GMT", "BST", "eu"),
    "Asia/Shanghai": Zone("Asia/Shanghai", 8 * 3600, 8 * 3600, "CST", "CST", None),
    "Asia/Seoul": Zone("Asia/Seoul", 9 * 3600, 9 * 3600, "KST", "KST", None),
}
UTCZ = ZONES["UTC"]


def lt(wall, zone):
    off, ab = zone.utcoff(wall)
    return EPOCH0 + timedelta(microseconds=int(round((wall + off) * 1e6))), off, ab


def _tzs(off, colon=True):
    sign = "+" if off >= 0 else "-"
    off = abs(int(off))
    if colon:
        return "%s%02d:%02d" % (sign, off // 3600, off % 3600 // 60)
    return "%s%02d%02d" % (sign, off // 3600, off % 3600 // 60)


def f_pylog(wall, zone):
    d = lt(wall, zone)[0]
    return d.strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (d.microsecond // 1000)


def f_hms(wall, zone):
    return lt(wall, zone)[0].strftime("%H:%M:%S")


def f_ymdhms(wall, zone, sep=" "):
    return lt(wall, zone)[0].strftime("%Y-%m-%d" + sep + "%H:%M:%S")


def f_iso(wall, zone=UTCZ, prec=6, tz="Z"):
    """tz: 'Z' (only right for UTC), 'colon', 'nocolon', 'none'."""
    d, off, _ = lt(wall, zone)
    s = d.strftime("%Y-%m-%dT%H:%M:%S")
    if prec == 9:
        s += ".%06d%03d" % (d.microsecond, int(wall * 1e9) % 1000 if wall > 0 else 0)
    elif prec:
        s += ("%06d" % d.microsecond)[:prec].join([".", ""])
    if tz == "Z":
        s += "Z"
    elif tz == "colon":
        s += _tzs(off, True)
    elif tz == "nocolon":
        s += _tzs(off, False)
    return s


def f_syslog(wall, zone, precise=False):
    d = lt(wall, zone)[0]
    s = "%s %2d %s" % (MON[d.month - 1], d.day, d.strftime("%H:%M:%S"))
    if precise:
        s += ".%06d" % d.microsecond
    return s


def f_ctime(wall, zone):
    d = lt(wall, zone)[0]
    return "%s %s %2d %s %d" % (DOW[d.weekday()], MON[d.month - 1], d.day, d.strftime("%H:%M:%S"), d.year)


def f_date(wall, zone):
    d, _, ab = lt(wall, zone)
    return "%s %s %2d %s %s %d" % (DOW[d.weekday()], MON[d.month - 1], d.day, d.strftime("%H:%M:%S"), ab, d.year)


def f_glog(wall, zone, lvl, digits=6, extra=0, padm=True):
    d = lt(wall, zone)[0]
    frac = "%06d" % d.microsecond
    if digits == 9:
        frac += "%03d" % extra
    elif digits == 6 and extra < 0:
        frac = frac[:3] + "000"
    return "%s%s%02d %s.%s" % (lvl, ("%02d" if padm else "%d") % d.month, d.day, d.strftime("%H:%M:%S"), frac)


def f_rfc1123(wall, zone):
    d, off, _ = lt(wall, zone)
    return "%s, %02d %s %d %s %s" % (DOW[d.weekday()], d.day, MON[d.month - 1], d.year, d.strftime("%H:%M:%S"),
                                     _tzs(off, False))


def f_kibana(wall, zone):
    d = lt(wall, zone)[0]
    return "%s %d, %d @ %s.%03d" % (MON[d.month - 1], d.day, d.year, d.strftime("%H:%M:%S"), d.microsecond // 1000)


def f_elastic_time(wall, zone):
    return lt(wall, zone)[0].strftime("%Y-%m-%d_%H:%M:%S")


def f_slurm(wall, zone):
    return lt(wall, zone)[0].strftime("%Y-%m-%dT%H:%M:%S")


def f_age(sec):
    sec = int(max(sec, 0))
    if sec < 120:
        return "%ds" % sec
    if sec < 600:
        return "%dm%ds" % (sec // 60, sec % 60)
    if sec < 3 * 3600:
        return "%dm" % (sec // 60)
    if sec < 48 * 3600:
        return "%dh%dm" % (sec // 3600, sec % 3600 // 60) if sec < 8 * 3600 else "%dh" % (sec // 3600)
    return "%dd" % (sec // 86400)


def tq_interval(sec):
    sec = int(sec)
    h, m, s = sec // 3600, sec % 3600 // 60, sec % 60
    return "%d:%02d:%02d" % (h, m, s) if h else "%02d:%02d" % (m, s)


def hhmmss(sec):
    sec = int(sec)
    return "%02d:%02d:%02d" % (sec // 3600, sec % 3600 // 60, sec % 60)


# ----------------------------------------------------------------------------------
# clocks: node wall clock = true time + offset(t); offsets can step or slew
# ----------------------------------------------------------------------------------
class Clock:
    def __init__(self, off):
        self.segs = [(-INF, float(off), 0.0)]     # (start_true, off_at_start, rate)
        self.notes = []

    def off(self, t):
        cur = self.segs[0]
        for s in self.segs:
            if s[0] <= t:
                cur = s
            else:
                break
        return cur[1] + (cur[2] * (t - cur[0]) if cur[2] else 0.0)

    def wall(self, t):
        return t + self.off(t)

    def step(self, t, new_off):
        self.segs.append((t, float(new_off), 0.0))
        self.segs.sort(key=lambda s: s[0])

    def slew(self, t, target, rate=0.0833):
        cur = self.off(t)
        if abs(cur - target) < 1e-6:
            return t
        dur = abs(target - cur) / rate
        sign = 1.0 if target > cur else -1.0
        self.segs = [s for s in self.segs if s[0] < t]
        self.segs.append((t, cur, sign * rate))
        self.segs.append((t + dur, float(target), 0.0))
        return t + dur


def fmt_list(nums):
    """Slurm-style task/host range list: 0-3,6,8-15."""
    nums = sorted(nums)
    out, i = [], 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        out.append(str(nums[i]) if i == j else "%d-%d" % (nums[i], nums[j]))
        i = j + 1
    return ",".join(out)


def hostlist(hosts):
    """gpu-node-[01-04] compression for same prefix + numeric suffix."""
    import re
    m = [re.match(r"^(.*?)(\d+)$", h) for h in hosts]
    if all(m) and len({x.group(1) for x in m}) == 1 and len({len(x.group(2)) for x in m}) == 1:
        w = len(m[0].group(2))
        nums = sorted(int(x.group(2)) for x in m)
        parts, i = [], 0
        while i < len(nums):
            j = i
            while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
                j += 1
            parts.append(("%0*d" % (w, nums[i])) if i == j else "%0*d-%0*d" % (w, nums[i], w, nums[j]))
            i = j + 1
        if len(nums) == 1:
            return hosts[0]
        return "%s[%s]" % (m[0].group(1), ",".join(parts))
    return ",".join(hosts)


# ----------------------------------------------------------------------------------
# the run model
# ----------------------------------------------------------------------------------
class Line:
    __slots__ = ("t", "te", "host", "rank", "stream", "text", "seq", "src")

    def __init__(self, t, te, host, rank, stream, text, seq, src):
        self.t, self.te, self.host, self.rank, self.stream = t, te, host, rank, stream
        self.text, self.seq, self.src = text, seq, src


BUSIDS = {
    "H100": ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"],
    "A100": ["07", "0f", "47", "4e", "87", "90", "b7", "bd"],
    "H200": ["19", "3b", "4c", "5d", "9b", "bb", "cb", "db"],
}
NIC_PCI = {
    "H100": ["0c", "2b", "3c", "4c", "8c", "ac", "bc", "dc"],
    "A100": ["0c", "12", "4b", "54", "8d", "94", "ba", "cc"],
    "H200": ["0d", "2c", "3d", "4d", "8d", "ad", "bd", "dd"],
}
GPU_MEM = {"H100": 79.11, "A100": 79.15, "H200": 139.8}
NTP_SERVERS = ["10.0.0.5 (ntp1.cluster.local)", "10.0.0.6 (ntp2.cluster.local)", "169.254.169.123",
               "time.aws.com", "metadata.google.internal", "10.10.0.1 (ntp.corp.example.com)"]


class Run:
    def __init__(self, seed, idx, layout, cause, healthy):
        self.seed, self.idx, self.layout, self.cause, self.healthy = seed, idx, layout, cause, healthy
        self.rng = random.Random("blind35|%s|%d|%s|%s" % (seed, idx, layout, cause))
        self.lines = []
        self._seq = 0
        self.pending = {}
        self.pending_bytes = {}
        self.files = {}
        self.notes = []
        self.quirks = []
        self.evidence = []
        self.init_rank = None
        self.init_node = None
        self.rank_known = False
        self.node_known = False
        self.exit = {}            # rank -> dict(t_msg, t_exit, code, kind)
        self.agent_exit = {}      # host -> true time the node launcher exited
        self.job_end = None
        self.outcome = "failed"
        self.extra_kern_hosts = []  # hosts whose kernel/syslog the user attached
        self.chronyc = {}         # host -> chronyc tracking text time
        self.pyspy = {}
        self.kernlog = {}
        self.syslog = {}
        self.agent_sig = {}
        self.pod = {}
        self.late_steps = []
        self.step_marks = []
        self.no_kern = False
        self.variant = None
        self.setup()

    # -------------------------------------------------------------- setup
    def setup(self):
        r = self.rng
        L = self.layout
        self.nnodes = r.choice([2, 2, 3, 4, 4, 2, 4])
        self.gpn = r.choice([8, 8, 8, 4])
        if self.nnodes * self.gpn > 32:
            self.gpn = 8
            self.nnodes = 4
        self.world = self.nnodes * self.gpn
        self.gpu = r.choice(["H100", "H100", "A100", "H200"])
        # host names
        if L == "slurm_srun":
            pre, w = r.choice([("gpu-node-", 2), ("hgx", 3), ("dgx-h100-", 3), ("a100n", 2), ("nid00", 4)])
            base = r.randint(1, 60)
            self.hosts = ["%s%0*d" % (pre, w, base + i * r.choice([1, 1, 1, 2])) for i in range(self.nnodes)]
            self.hosts = sorted(set(self.hosts))
            while len(self.hosts) < self.nnodes:
                self.hosts.append("%s%0*d" % (pre, w, base + 90 + len(self.hosts)))
        elif L == "torchrun_logdir":
            pre = r.choice(["trn", "gpu", "node", "ml-gpu-"])
            base = r.randint(1, 40)
            self.hosts = ["%s%02d" % (pre, base + i) for i in range(self.nnodes)]
        elif L == "k8s_pytorchjob":
            if r.random() < 0.5:
                pool = "%08x" % r.getrandbits(32)
                self.hosts = ["gke-train-a3-highgpu-8g-%s-%s" % (pool, "".join(r.choice("abcdefghjkmnpqrstvwxz2456789") for _ in range(4)))
                              for _ in range(self.nnodes)]
            else:
                self.hosts = ["ip-10-0-%d-%d.ec2.internal" % (r.randint(1, 200), r.randint(2, 250)) for _ in range(self.nnodes)]
        elif L == "aggregator_export":
            pre = r.choice(["a3-train-", "vm-gpu-", "p5-worker-", "ml-node-"])
            self.hosts = ["%s%d" % (pre, i) for i in range(self.nnodes)]
        elif L == "mpirun_tagged":
            pre = r.choice(["c", "cn", "gn"])
            base = r.randint(1, 120)
            self.hosts = ["%s%03d" % (pre, base + i) for i in range(self.nnodes)]
        else:
            pre = r.choice(["worker-", "node", "gpu-worker-"])
            self.hosts = ["%s%d" % (pre, i) for i in range(self.nnodes)]
        self.ip = {h: "10.%d.%d.%d" % (r.choice([1, 10, 20, 64]), r.randint(0, 40), r.randint(2, 250)) for h in self.hosts}
        self.node_of = {}
        self.lr_of = {}
        for rk in range(self.world):
            self.node_of[rk] = self.hosts[rk // self.gpn]
            self.lr_of[rk] = rk % self.gpn
        self.ranks_on = {h: [rk for rk in range(self.world) if self.node_of[rk] == h] for h in self.hosts}
        if L == "k8s_pytorchjob":
            self.kjob = r.choice(["llama-ft", "gpt-pretrain", "mixtral-sft", "vit-h14", "t5xl-run", "bert-mlm"]) + "-" + "%04x" % r.getrandbits(16)
            self.pod = {}
            for i, h in enumerate(self.hosts):
                self.pod[h] = "%s-master-0" % self.kjob if i == 0 else "%s-worker-%d" % (self.kjob, i - 1)
        # pids
        self.pid = {}
        self.agent_pid = {}
        for h in self.hosts:
            b = r.randint(3000, 900000)
            self.agent_pid[h] = b
            p = b + r.randint(20, 90)
            for rk in self.ranks_on[h]:
                self.pid[rk] = p
                p += r.choice([1, 1, 1, 2, 3])
        busl = BUSIDS[self.gpu]
        self.busid = {rk: busl[self.lr_of[rk] * (8 // self.gpn)] for rk in range(self.world)}
        # software
        self.torch = r.choice(["v21", "v23", "v25", "v25", "v25"])
        self.torch_ver = {"v21": r.choice(["2.1.2", "2.0.1"]), "v23": r.choice(["2.2.2", "2.3.1"]),
                          "v25": r.choice(["2.4.1", "2.5.1", "2.6.0"])}[self.torch]
        if self.gpu == "H200" and self.torch != "v25":
            self.gpu = "H100"
            busl = BUSIDS[self.gpu]
            self.busid = {rk: busl[self.lr_of[rk] * (8 // self.gpn)] for rk in range(self.world)}
        self.nccl_ver = {"v21": "2.18.1", "v23": r.choice(["2.19.3", "2.20.5"]), "v25": r.choice(["2.21.5", "2.20.5"])}[self.torch]
        u = r.choice(["alice", "jwang", "mkumar", "svc-ml"])
        env = r.choice([("/usr/bin/python3", "/usr/local/lib/python3.10/dist-packages", "python3"),
                        ("/opt/conda/bin/python", "/opt/conda/lib/python3.11/site-packages", "python"),
                        ("/home/%s/miniconda3/envs/train/bin/python" % u,
                         "/home/%s/miniconda3/envs/train/lib/python3.10/site-packages" % u, "python")])
        self.py, self.sp, self.comm = env
        if self.torch == "v25":
            self.comm = "pt_main_thread"
        self.script = r.choice(["train.py", "pretrain.py", "main.py", "finetune.py", "train_lm.py"])
        self.workdir = r.choice(["/workspace", "/home/%s/proj/llm" % r.choice(["alice", "bo", "priya"]), "/mnt/shared/code/trainer", "/opt/app"])
        self.user = r.choice(["alice", "jwang", "mkumar", "priya", "svc-train"])
        self.nccl_info = r.random() < 0.55
        self.nccl_warn_visible = self.nccl_info or r.random() < 0.5
        self.T = r.choice([600, 600, 600, 1800, 300, 120])        # NCCL watchdog timeout (s)
        if self.layout == "deepspeed_pdsh" and r.random() < 0.5:
            self.T = 1800
        self.glog_sp_prefix = r.random() < 0.4
        self.loglevel_info = r.random() < 0.35
        self.sigterm_handler = r.random() < 0.4
        self.use_record = r.random() < 0.6
        h0 = self.hosts[0]
        if L == "k8s_pytorchjob":
            self.nic_kind = "efa" if h0.startswith("ip-") else "tcpx"
        elif L == "aggregator_export":
            self.nic_kind = "efa" if h0.startswith("p5-") else ("tcpx" if h0.startswith("a3-") else r.choice(["roce", "ib"]))
        else:
            self.nic_kind = r.choice(["ib", "ib", "ib", "roce", "socket"])
        self.jobid = r.randint(100000, 9999999) if L == "slurm_srun" else r.randint(1000, 99999)
        self.launcher = {"slurm_srun": "srun", "torchrun_logdir": "torchrun", "k8s_pytorchjob": "torchrun",
                         "aggregator_export": "torchrun", "mpirun_tagged": "mpirun", "deepspeed_pdsh": "deepspeed"}[L]
        self.kobe = r.random() < 0.5 if L == "slurm_srun" else False
        self.remote_mode = r.random() < 0.6
        # application logging style
        if L == "aggregator_export":
            self.style = "json"
        elif L == "deepspeed_pdsh":
            self.style = "deepspeed"
        else:
            self.style = r.choice(["pylog", "pylog", "print", "megatron", "json"]) if L != "k8s_pytorchjob" else r.choice(["pylog", "print", "json", "megatron"])
        self.log_ranks_mode = r.choice(["all", "node0", "node0", "rank0"])
        if self.style in ("megatron",):
            self.log_ranks_mode = "rank0"
        if self.style == "json":
            self.log_ranks_mode = r.choice(["all", "node0"])
        self.stdout_buffered = self.launcher != "deepspeed" and (r.random() < 0.75 or self.cause == "cuda_oom")
        self.print_buffered = self.style == "print" and self.stdout_buffered
        # torchrun runs "python -u script.py"; stdout stays block-buffered only in --module mode
        self.module_mode = self.launcher == "torchrun" and self.stdout_buffered
        self.entry = ("trainer." + self.script[:-3]) if self.module_mode else self.script
        self.timers = r.random() < 0.5 or self.cause in ("straggler",)
        self.setup_time()
        self.setup_clocks()

    # -------------------------------------------------------------- time
    def setup_time(self):
        r = self.rng
        L = self.layout
        bare = L in ("slurm_srun", "mpirun_tagged", "torchrun_logdir", "deepspeed_pdsh")
        if bare:
            site = r.choice(["Europe/Berlin", "America/Chicago", "America/New_York", "Asia/Shanghai",
                             "America/Los_Angeles", "Europe/London", "Asia/Seoul", "UTC"])
        else:
            site = r.choice(["UTC", "UTC", "UTC", "America/Los_Angeles", "Europe/Berlin"])
        self.site = ZONES[site]
        self.boundary = r.choice([None, None, "midnight", "midnight", "newyear", "dst_back", "dst_fwd"])
        if self.boundary in ("dst_back", "dst_fwd") and self.site.rule is None:
            self.site = ZONES[r.choice(["Europe/Berlin", "America/Chicago", "America/New_York", "Europe/London"])]
        year = {"v21": r.choice([2023, 2024]), "v23": 2024, "v25": 2025}[self.torch]
        # total length of the phase before the failure (or the whole healthy run)
        dur = r.choice([r.uniform(1500, 5400), r.uniform(5400, 6 * 3600), r.uniform(6 * 3600, 20 * 3600)])
        if self.boundary is None:
            start = _utc_epoch(year, r.randint(1, 12), r.randint(1, 28), 0) + r.uniform(0, 86400)
            self.t_fail = start + dur
        else:
            if self.boundary == "newyear":
                zone = self.site if r.random() < 0.6 else UTCZ
                b = _utc_epoch(year, 1, 1, 0) - zone.utcoff(_utc_epoch(year, 1, 1, 0))[0]
                self.quirks.append("crosses new year (%s)" % zone.name)
            elif self.boundary == "midnight":
                d = _utc_epoch(year, r.randint(1, 12), r.randint(1, 28), 0)
                b = d - self.site.utcoff(d)[0]
                self.quirks.append("crosses local midnight (%s)" % self.site.name)
            else:
                s, e = self.site.transitions(year)
                b = e if self.boundary == "dst_back" else s
                self.quirks.append("crosses DST %s in %s (local wall time %s 1h)" % (
                    "end" if self.boundary == "dst_back" else "start", self.site.name,
                    "repeats" if self.boundary == "dst_back" else "skips"))
            frac = r.uniform(0.15, 0.85)
            if self.boundary == "dst_back" and r.random() < 0.5:
                # failure inside the repeated hour
                self.t_fail = b + r.uniform(300, 3300)
            else:
                self.t_fail = b + dur * frac
            self.boundary_t = b
            dur = max(dur, (self.t_fail - b) + 1800)
        self.t0 = self.t_fail - dur
        if self.boundary is not None and self.t0 > self.boundary_t - 600:
            self.t0 = self.boundary_t - r.uniform(1200, 7200)
        self.t0 = float(int(self.t0)) + r.random()
        self.t_rdzv = self.t0 + r.uniform(6, 45)
        self.t_init = self.t_rdzv + r.uniform(2, 12)
        self.t_train0 = self.t_init + r.uniform(30, 240)
        self.step_time = round(r.uniform(0.45, 4.2), 3)
        self.base_c = self.step_time * r.uniform(0.55, 0.7)
        self.step0 = r.choice([0, 0, 0, r.randint(1, 40) * 1000])
        span = self.t_fail - self.t_train0
        target = r.randint(24, 60)
        nlog = {"all": self.world, "node0": self.nnodes, "rank0": 1}[self.log_ranks_mode] if self.style not in ("megatron",) else 1
        budget = 700 if self.layout in ("torchrun_logdir", "aggregator_export") else 1100
        target = max(10, min(target, budget // max(1, nlog)))
        raw = span / (self.step_time * target)
        nice = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000]
        self.log_every = min(nice, key=lambda x: abs(x - raw))
        self.total_steps = self.step0 + int((span * r.uniform(1.3, 3.0)) / self.step_time) // 1000 * 1000 + 1000
        self.colls_per_step = r.choice([1, 2, 3, 4, 6])
        self.seq_base = r.randint(2, 40)
        self.gbs = r.choice([256, 512, 1024, 2048])
        self.lr_max = r.choice([3e-4, 1.5e-4, 6e-4, 2e-5, 1e-4])
        self.loss0 = r.uniform(2.2, 3.4) if self.step0 else r.uniform(9.5, 11.2)
        self.boot = {h: self.t0 - r.uniform(3 * 86400, 140 * 86400) for h in self.hosts}

    def step_at(self, t):
        return self.step0 + int(max(0.0, t - self.t_train0) / self.step_time)

    def seq_at(self, t):
        return self.seq_base + (self.step_at(t) - self.step0) * self.colls_per_step + 4

    def loss_at(self, s):
        x = (s + 1) / 1000.0
        base = 1.9 + (self.loss0 - 1.9) / (1.0 + 0.9 * x)
        return base + self.rng.gauss(0, 0.035)

    def lr_at(self, s):
        warm = 2000
        if s < warm:
            return self.lr_max * (s + 1) / warm
        return self.lr_max * (0.1 + 0.9 * 0.5 * (1 + __import__("math").cos(3.14159 * min(1.0, s / max(self.total_steps, 1)))))

    # -------------------------------------------------------------- clocks
    def setup_clocks(self):
        r = self.rng
        self.clock = {h: Clock(r.uniform(-0.25, 0.25)) for h in self.hosts}
        self.clock["ctl"] = Clock(r.uniform(-0.05, 0.05))
        self.clock["agg"] = Clock(0.0)
        self.zone_sys = {h: (self.site if self.layout in ("slurm_srun", "mpirun_tagged", "torchrun_logdir", "deepspeed_pdsh") else UTCZ)
                         for h in self.hosts}
        self.zone_app = dict(self.zone_sys)
        self.ctl_zone = self.site
        self.skewed = {}
        self.ntp_events = {h: [] for h in self.hosts}
        # mixed time zones between nodes or between sources
        if r.random() < 0.35:
            h = r.choice(self.hosts)
            other = self.zone_sys[self.hosts[0] if self.hosts[0] != h else self.hosts[-1]]
            alt = UTCZ if self.zone_app[h] is not UTCZ else ZONES[r.choice(["Europe/Berlin", "America/Chicago", "Asia/Shanghai"])]
            self.zone_sys[h] = alt
            if self.layout != "k8s_pytorchjob":
                self.zone_app[h] = alt
                self.quirks.append("node %s runs in %s while the other nodes use %s" % (h, alt.name, other.name))
            else:
                self.quirks.append("node %s's system journal is in %s while the other nodes use %s" % (h, alt.name, other.name))
        if self.layout == "k8s_pytorchjob" and r.random() < 0.5:
            z = ZONES[r.choice(["Asia/Shanghai", "America/Los_Angeles", "Europe/Berlin"])]
            for h in self.hosts:
                self.zone_app[h] = z
            self.quirks.append("containers run with TZ=%s; kubectl/CRI timestamps are UTC (Z)" % z.name)

    def skew_node(self, h, off, why="no NTP sync"):
        self.clock[h] = Clock(off)
        self.skewed[h] = off
        self.quirks.append("node %s clock %s by %.1f s (%s)" % (h, "ahead" if off > 0 else "behind", abs(off), why))

    # -------------------------------------------------------------- emission
    def _add(self, ln):
        ln.seq = self._seq
        self._seq += 1
        self.lines.append(ln)
        return ln

    def emit(self, rank, t, text, stream="err", buffered=False, src="app"):
        host = self.node_of[rank] if rank is not None else None
        for k, part in enumerate(text.split("\n")):
            tt = t + k * 2e-6
            if buffered:
                ln = self._add(Line(tt, None, host, rank, "out", part, 0, src))
                self.pending.setdefault(rank, []).append(ln)
                self.pending_bytes[rank] = self.pending_bytes.get(rank, 0) + len(part) + 1
                if self.pending_bytes[rank] > 8192:
                    self.flush(rank, tt)
            else:
                self._add(Line(tt, tt, host, rank, stream, part, 0, src))

    def flush(self, rank, t):
        for ln in self.pending.get(rank, []):
            ln.te = t
        self.pending[rank] = []
        self.pending_bytes[rank] = 0

    def drop_pending(self, rank):
        for ln in self.pending.get(rank, []):
            ln.te = "lost"
        self.pending[rank] = []
        self.pending_bytes[rank] = 0

    def agent(self, host, t, text, src="agent"):
        for k, part in enumerate(text.split("\n")):
            tt = t + k * 2e-6
            self._add(Line(tt, tt, host, None, "err", part, 0, src))

    def other(self, src, t, text, host=None):
        for k, part in enumerate(text.split("\n")):
            tt = t + k * 2e-6
            self._add(Line(tt, tt, host, None, "err", part, 0, src))

    def kern(self, host, t, text):
        self.kernlog.setdefault(host, []).append((t, text))

    def sysl(self, host, t, ident, text, pid=None):
        self.syslog.setdefault(host, []).append((t, ident, pid, text))

    # -------------------------------------------------------------- formatting helpers
    def wall(self, host, t):
        return self.clock[host].wall(t)

    def pylog_ts(self, host, t):
        return f_pylog(self.wall(host, t), self.zone_app[host])

    def nhost(self, rank_or_host):
        h = self.node_of[rank_or_host] if isinstance(rank_or_host, int) else rank_or_host
        if self.layout == "k8s_pytorchjob":
            return self.pod[h]
        return h.split(".")[0]

    def c10(self, rank, t, lvl, src, msg):
        h = self.node_of[rank]
        if self.torch == "v21":
            pre = "[%s %s] " % (lvl, src)
        elif self.torch == "v23":
            pre = "[rank%d]:[%s %s] " % (rank, lvl, src)
        else:
            pre = "[rank%d]:[%s %s] " % (rank, f_glog(self.wall(h, t), self.zone_app[h], lvl, 9, self.rng.randint(0, 999), padm=False), src)
        self.emit(rank, t, pre + msg, "err")

    def nccl(self, rank, t, body, warn=None):
        h = self.nhost(rank)
        pid = self.pid[rank]
        tid = pid + self.rng.choice([41, 57, 63, 88, 102, 131, 214])
        if warn:
            self.emit(rank, t, "%s:%d:%d [%d] %s NCCL WARN %s\n" % (h, pid, tid, self.lr_of[rank], warn, body), "out")
        else:
            self.emit(rank, t, "%s:%d:%d [%d] NCCL INFO %s" % (h, pid, tid, self.lr_of[rank], body), "out")

    def agent_log(self, host, t, lvl, mod, lineno, msg):
        """torchrun / elastic agent logging, format depends on the torch version."""
        names = {"W": "WARNING", "E": "ERROR", "I": "INFO"}
        dotted = mod.replace("/", ".")[:-3]
        if self.torch == "v21":
            out = "\n".join("%s:%s:%s" % (names[lvl], dotted, m) for m in msg.split("\n"))
        elif self.torch == "v23":
            out = "\n".join("[%s] %s: [%s] %s" % (self.pylog_ts(host, t), dotted, names[lvl], m) for m in msg.split("\n"))
        else:
            pre = ("site-packages/" if self.glog_sp_prefix else "") + mod
            head = "%s %d %s:%d] " % (f_glog(self.wall(host, t), self.zone_app[host], lvl, 6, -1),
                                       self.agent_pid[host], pre, lineno)
            out = "\n".join(head + m for m in msg.split("\n"))
        self.agent(host, t, out)

    def rank_prefix(self, rank):
        return "[rank%d]: " % rank if self.torch == "v25" else ""

    def tb(self, rank, t, lines, stream="err"):
        pre = self.rank_prefix(rank)
        self.emit(rank, t, "\n".join(pre + ln for ln in lines), stream)

    def frames_train(self, tail):
        """standard frames from the training script down to `tail` (list of (file, line, fn, code))."""
        wd = self.workdir
        fr = [("%s/%s" % (wd, self.script), self.rng.randint(380, 720), "<module>", "main()"),
              ("%s/%s" % (wd, self.script), self.rng.randint(300, 380), "main", "train(args, model, optimizer, train_loader)")]
        return fr + tail

    @staticmethod
    def fmt_frames(frames):
        out = ["Traceback (most recent call last):"]
        for f, ln, fn, code in frames:
            out.append('  File "%s", line %d, in %s' % (f, ln, fn))
            if code:
                out.append("    " + code)
        return out

    def app_ts_line(self, rank, t, level, msg, logger="train"):
        """one application log record in the run's style."""
        h = self.node_of[rank]
        if self.style == "json":
            rec = {"ts": round(self.wall(h, t), 6), "level": level, "rank": rank, "host": self.nhost(rank),
                   "logger": logger, "msg": msg}
            self.emit(rank, t, json.dumps(rec), "out")
        elif self.style == "deepspeed":
            self.emit(rank, t, "[%s] [%s] [%s] %s" % (self.pylog_ts(h, t), level, logger, msg), "out")
        elif self.style == "print":
            self.emit(rank, t, "[%s] %s: %s" % (f_hms(self.wall(h, t), self.zone_app[h]), level, msg), "out",
                      buffered=self.print_buffered)
        else:
            self.emit(rank, t, "%s %s [rank%d] %s: %s" % (self.pylog_ts(h, t), level, rank, logger, msg), "err")

    # -------------------------------------------------------------- startup
    def startup(self):
        r = self.rng
        if self.launcher == "torchrun":
            for h in self.hosts:
                ts = self.t0 + r.uniform(0, 2.5)
                mod = "torch/distributed/run.py"
                ln = r.choice([792, 793, 803])
                if self.torch == "v21":
                    self.agent(h, ts, "WARNING:torch.distributed.run:\n*****************************************\n"
                               "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. \n"
                               "*****************************************")
                else:
                    self.agent_log(h, ts, "W", mod, ln, "\n*****************************************\n"
                                   "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. \n"
                                   "*****************************************")
                if self.loglevel_info:
                    tr = self.t_rdzv + r.uniform(0.0, 0.35)
                    res = ("[default] Rendezvous complete for workers. Result:\n  restart_count=0\n  master_addr=%s\n  master_port=29500\n"
                           "  group_rank=%d\n  group_world_size=%d\n  local_ranks=%s\n  role_ranks=%s\n  global_ranks=%s\n"
                           "  role_world_sizes=%s\n  global_world_sizes=%s\n") % (
                        self.nhost(self.hosts[0]), self.hosts.index(h), self.nnodes, list(range(self.gpn)),
                        self.ranks_on[h], self.ranks_on[h], [self.world] * self.gpn, [self.world] * self.gpn)
                    self.agent_log(h, tr, "I", "torch/distributed/elastic/agent/server/api.py", 525, res.rstrip("\n"))
                    self.agent_log(h, tr + 0.002, "I", "torch/distributed/elastic/agent/server/api.py", 533,
                                   "[default] Starting worker group")
                    self.agent_log(h, tr + 0.01, "I", "torch/distributed/elastic/agent/server/local_elastic_agent.py", 236,
                                   "Environment variable 'TORCHELASTIC_ENABLE_FILE_TIMER' not found. Do not start FileTimerServer.")
        # per rank warnings and NCCL init
        warns = [
            "%s/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.4 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants.\n  warnings.warn(" % self.sp,
            "%s/transformers/utils/generic.py:441: FutureWarning: `torch.utils._pytree._register_pytree_node` is deprecated. Please use `torch.utils._pytree.register_pytree_node` instead.\n  _torch_pytree._register_pytree_node(" % self.sp,
            "%s/%s:%d: FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', args...)` instead.\n  scaler = torch.cuda.amp.GradScaler()" % (self.workdir, self.script, r.randint(100, 300)),
            "%s/torch/_utils.py:831: UserWarning: TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class. This should only matter to you if you are using storages directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()\n  return self.fget.__get__(instance, owner)()" % self.sp,
        ]
        chosen = r.sample(warns, r.randint(1, 2))
        netname = {"ib": "IB", "roce": "IB", "efa": "AWS Libfabric", "tcpx": "GPUDirectTCPX", "socket": "Socket"}[self.nic_kind]
        commid = "0x%016x" % r.getrandbits(64)
        for rk in range(self.world):
            h = self.node_of[rk]
            ti = self.t_init + r.uniform(0, 1.5)
            if self.launcher == "torchrun" and self.torch != "v21" and r.random() < 0.15 and rk % self.gpn == 0 and h != self.hosts[0]:
                tag = "[W socket.cpp:663] "
                if self.torch == "v25":
                    tag = "[%s socket.cpp:752] " % f_glog(self.wall(h, self.t_rdzv - 3), self.zone_app[h], "W", 9, r.randint(0, 999), padm=False)
                self.emit(rk, self.t_rdzv - 3, tag + "[c10d] The client socket has failed to connect to [%s]:29500 (errno: 111 - Connection refused)." % self.nhost(self.hosts[0]))
            for w in chosen:
                if r.random() < 0.8:
                    self.emit(rk, max(self.t_rdzv + r.uniform(0.5, 3), ti - r.uniform(5, 25)), w)
            if self.nccl_info:
                base = ti
                ip = self.ip[h]
                if rk == 0:
                    self.nccl(rk, base - 0.5, "Bootstrap : Using eth0:%s<0>" % ip)
                    self.nccl(rk, base - 0.49, "cudaDriverVersion %s" % r.choice(["12020", "12040", "12060"]))
                    self.emit(rk, base - 0.48, "%s:%d:%d [0] NCCL INFO NCCL version %s+cuda12.%d" % (self.nhost(rk), self.pid[rk], self.pid[rk], self.nccl_ver, r.choice([1, 2, 4])), "out")
                else:
                    self.nccl(rk, base - 0.4, "cudaDriverVersion 12040")
                    self.nccl(rk, base - 0.39, "Bootstrap : Using eth0:%s<0>" % ip)
                if self.nic_kind in ("ib", "roce"):
                    devs = " ".join("[%d]mlx5_%d:1/%s" % (i, i, "RoCE" if self.nic_kind == "roce" else "IB") for i in range(min(self.gpn, 8)))
                    self.nccl(rk, base - 0.3, "NET/IB : Using %s ; OOB eth0:%s<0>" % (devs, ip))
                elif self.nic_kind == "efa":
                    self.nccl(rk, base - 0.3, "NET/OFI Selected Provider is efa (found %d nics)" % (32 if self.gpn == 8 else 16))
                elif self.nic_kind == "tcpx":
                    self.nccl(rk, base - 0.3, "NET/GPUDirectTCPX ver. 3.1.8.")
                else:
                    self.nccl(rk, base - 0.3, "NET/Socket : Using [0]eth0:%s<0> [1]eth1:%s<0>" % (ip, ip.rsplit(".", 1)[0] + ".%d" % ((int(ip.rsplit(".", 1)[1]) + 100) % 250)))
                self.nccl(rk, base - 0.29, "Using network %s" % netname)
                dev = self.lr_of[rk]
                cptr = "0x%x" % (0x55d000000000 + r.getrandbits(36))
                nv = " nvmlDev %d" % dev if self.torch != "v21" else ""
                self.nccl(rk, base - 0.2, "comm %s rank %d nranks %d cudaDev %d%s busId %s000 commId %s - Init START" % (cptr, rk, self.world, dev, nv, self.busid[rk], commid))
                self.nccl(rk, base - 0.1, "comm %s rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL 0" % (cptr, rk, self.world, self.nnodes, self.gpn, dev))
                nxt = rk + 1 if (rk + 1) % self.gpn else rk + 1 - self.gpn
                self.nccl(rk, base, "Channel 00/0 : %d[%d] -> %d[%d] via P2P/CUMEM/read" % (rk, dev, nxt, nxt % self.gpn))
                self.nccl(rk, base + 0.3, "Connected all rings")
                self.nccl(rk, base + 0.31, "Connected all trees")
                self.nccl(rk, base + 0.35, "comm %s rank %d nranks %d cudaDev %d%s busId %s000 commId %s - Init COMPLETE" % (cptr, rk, self.world, dev, nv, self.busid[rk], commid))
            if self.torch == "v25" and r.random() < 0.5:
                self.c10(rk, ti - 0.8, "W", "ProcessGroupNCCL.cpp:4115", "[PG ID 0 PG GUID 0 Rank %d]  using GPU %d to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect.Specify device_ids in barrier() to force use of a particular device,or call init_process_group() with a device_id." % (rk, self.lr_of[rk]))
        # rank 0 config dump
        t = self.t_init + 3
        cfg = ["model: %s" % r.choice(["llama-7b", "llama-13b", "gpt-1.3b", "mistral-7b", "vit-h/14", "t5-xl"]),
               "world_size=%d nodes=%d gpus/node=%d" % (self.world, self.nnodes, self.gpn),
               "global_batch_size=%d micro_batch=%d grad_accum=%d" % (self.gbs, r.choice([1, 2, 4, 8]), r.choice([1, 2, 4])),
               "resuming from step %d" % self.step0 if self.step0 else "starting from scratch",
               "nccl timeout=%ds" % self.T]
        for c in cfg:
            self.app_ts_line(0, t, "INFO", c, "setup")
            t += 0.01

    # -------------------------------------------------------------- training
    def log_ranks(self):
        m = self.log_ranks_mode
        if self.style == "megatron":
            return [self.world - 1]
        if m == "all":
            return list(range(self.world))
        if m == "node0":
            return [rk for rk in range(self.world) if self.lr_of[rk] == 0]
        return [0]

    def training(self, t_from, t_to, stop=None, slow=None, mono_jump=None):
        """emit periodic progress lines between t_from and t_to.
        stop: rank -> true time after which that rank logs nothing.
        slow: rank -> factor for compute time (straggler)."""
        r = self.rng
        stop = stop or {}
        slow = slow or {}
        ranks = self.log_ranks()
        s = self.step_at(t_from)
        s = (s // self.log_every + 1) * self.log_every
        ckpt_every = self.log_every * r.choice([10, 20, 25])
        n = 0
        last_tq = None
        while True:
            tk = self.t_train0 + (s - self.step0) * self.step_time + r.uniform(-0.02, 0.02)
            if tk >= t_to:
                break
            n += 1
            loss = self.loss_at(s)
            lr = self.lr_at(s)
            gn = abs(r.gauss(0.9, 0.25))
            base_c = self.base_c * r.uniform(0.98, 1.02)
            st = self.step_time * r.uniform(0.985, 1.015)
            for rk in ranks:
                if rk in stop and tk > stop[rk]:
                    continue
                h = self.node_of[rk]
                tt = tk + r.uniform(0.0005, 0.02)
                self.step_marks.append(len(self.lines))
                if self.style == "megatron":
                    w = self.wall(h, tt)
                    line = (" [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | "
                            "learning rate: %.6E | global batch size: %5d | lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f | "
                            "number of skipped iterations:   0 | number of nan iterations:   0 |") % (
                        f_ymdhms(w, self.zone_app[h]), s, self.total_steps, s * self.gbs, st * 1000, lr, self.gbs, loss, gn)
                    self.emit(rk, tt, line, "out")
                    continue
                if self.style == "deepspeed":
                    if rk == 0:
                        self.emit(rk, tt, "[%s] [INFO] [logging.py:96:log_dist] [Rank 0] step=%d, skipped=0, lr=[%.6e], mom=[(0.9, 0.95)]" % (self.pylog_ts(h, tt), s, lr), "out")
                        self.emit(rk, tt + 0.001, "[%s] [INFO] [timer.py:260:stop] epoch=0/micro_step=%d/global_step=%d, RunningAvgSamplesPerSec=%.2f, CurrSamplesPerSec=%.2f, MemAllocated=%.1fGB, MaxMemAllocated=%.1fGB" % (
                            self.pylog_ts(h, tt), s * 2, s, self.gbs / self.step_time * 0.98, self.gbs / st, r.uniform(18, 24), r.uniform(40, 60)), "out")
                    if self.log_ranks_mode != "rank0" or rk == 0:
                        comp = base_c * slow.get(rk, 1.0)
                        msg = "rank %d step %d loss %.4f fwd_bwd %.3fs comm_wait %.3fs" % (rk, s, loss, comp, max(0.01, st - comp - 0.05))
                        self.emit(rk, tt + 0.002, "[%s] [INFO] [%s:%d:train_step] %s" % (self.pylog_ts(h, tt), self.script, 211, msg), "out")
                    continue
                comp = base_c * slow.get(rk, 1.0)
                wait = max(0.008, st - comp - r.uniform(0.02, 0.06))
                if self.timers:
                    msg = "step=%d loss=%.4f lr=%.3e grad_norm=%.3f step_time=%.3fs fwd_bwd=%.3fs comm_wait=%.3fs data=%.3fs" % (
                        s, loss, lr, gn, st, comp, wait, r.uniform(0.002, 0.02))
                else:
                    msg = "step=%d loss=%.4f lr=%.3e grad_norm=%.3f step_time=%.3fs tokens/s=%d" % (
                        s, loss, lr, gn, st, int(self.gbs * 2048 / st / self.world))
                if mono_jump and rk in mono_jump and mono_jump[rk][0] <= tk < mono_jump[rk][0] + st * self.log_every:
                    # script measures step time with time.time(); an NTP step lands inside the interval
                    msg = msg.replace("step_time=%.3fs" % st, "step_time=%.3fs" % (st + mono_jump[rk][1] / self.log_every))
                if self.style == "json":
                    h = self.node_of[rk]
                    rec = {"ts": round(self.wall(h, tt), 6), "level": "INFO", "rank": rk, "host": self.nhost(rk),
                           "logger": "train", "step": s, "loss": round(loss, 4), "lr": float("%.4e" % lr),
                           "step_time": round(st, 3)}
                    if self.timers:
                        rec["fwd_bwd"] = round(comp, 3)
                        rec["comm_wait"] = round(wait, 3)
                    self.emit(rk, tt, json.dumps(rec), "out")
                else:
                    self.app_ts_line(rk, tt, "INFO", msg)
            # tqdm bar from rank 0 (stderr) for the print style
            if self.style == "print" and tk <= stop.get(0, INF):
                tot = self.total_steps
                frames = []
                prev = s - self.log_every
                for ss in (prev + self.log_every // 3, prev + 2 * self.log_every // 3, s) if self.log_every >= 3 else (s,):
                    el = (ss - self.step0) * self.step_time + (self.t_train0 - self.t_init) * 0.0
                    rem = (tot - ss) * self.step_time
                    pct = int(100 * ss / tot)
                    bar = ("\u2588" * (pct // 10)).ljust(10)
                    frames.append("%3d%%|%s| %d/%d [%s<%s, %5.2fs/it]" % (pct, bar, ss, tot, tq_interval(el), tq_interval(rem), self.step_time))
                self.emit(0, tk + 0.001, "\r".join(frames) if last_tq is None else "\r" + "\r".join(frames), "err")
                last_tq = tk
            if s % ckpt_every == 0 and s > self.step0:
                rk0 = 0
                if 0 not in stop or tk < stop[0]:
                    self.app_ts_line(rk0, tk + 0.05, "INFO", "saving checkpoint to /ckpt/%s/step_%07d" % (self.kname(), s), "checkpoint")
                    self.app_ts_line(rk0, tk + r.uniform(20, 70), "INFO", "checkpoint step_%07d saved" % s, "checkpoint")
            s += self.log_every
        return s

    def kname(self):
        return getattr(self, "_kname", None) or self._mk_kname()

    def _mk_kname(self):
        self._kname = self.rng.choice(["llm-pretrain", "sft-run", "exp%03d" % self.rng.randint(1, 400), "vit-large", "moe-8x"])
        return self._kname

    # -------------------------------------------------------------- healthy end
    def healthy_end(self, t_end, cleanup_warning=True):
        r = self.rng
        for rk in range(self.world):
            h = self.node_of[rk]
            te = t_end + r.uniform(0.2, 3.0)
            if rk == 0:
                self.app_ts_line(0, t_end - 30, "INFO", "training finished at step %d, saving final checkpoint" % self.step_at(t_end), "train")
                self.app_ts_line(0, t_end - 1, "INFO", "final checkpoint saved to /ckpt/%s/final" % self.kname(), "checkpoint")
            if self.torch == "v25" and cleanup_warning and r.random() < 0.7:
                self.c10(rk, te - 0.05, "W", "ProcessGroupNCCL.cpp:1250", "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only been added since PyTorch 2.4 (function operator())")
            self.exit[rk] = dict(kind="ok", t_msg=te, t_exit=te, code=0)
            self.flush(rk, te)
        self.outcome = "completed"
        for h in self.hosts:
            te = max(self.exit[rk]["t_exit"] for rk in self.ranks_on[h]) + r.uniform(0.1, 1.0)
            if self.launcher == "torchrun" and self.loglevel_info:
                self.agent_log(h, te, "I", "torch/distributed/elastic/agent/server/api.py", 722,
                               "[default] worker group successfully finished. Waiting 300 seconds for other agents to finish.")
                self.agent_log(h, te + 0.01, "I", "torch/distributed/elastic/agent/server/api.py", 971, "Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish")
                self.agent_log(h, te + r.uniform(0.5, 4), "I", "torch/distributed/elastic/agent/server/api.py", 985, "Done waiting for other agents. Elapsed: %.5f seconds" % r.uniform(0.5, 4))
            if self.launcher == "deepspeed":
                self.agent(h, te, "[%s] [INFO] [launch.py:351:main] Process %d exits successfully." % (self.pylog_ts(h, te), self.pid[self.ranks_on[h][0]]))
            self.agent_exit[h] = te + 4
        self.job_end = max(self.agent_exit.values())

    # -------------------------------------------------------------- NCCL / c10d failure text
    LN = {"2.4.1": (607, 1664, 1709, 621, 627, 1515, 609, 1521), "2.5.1": (616, 1785, 1834, 630, 636, 1595, 618, 1601),
          "2.6.0": (632, 2168, 2203, 658, 664, 1902, 635, 1908)}

    def cpp_frames(self, kind, rk=None):
        r = self.rng
        lib = self.sp + "/torch/lib/"
        if kind == "timeout":
            fr = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", lib + "libc10.so"),
                  ("c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2", lib + "libtorch_cuda.so"),
                  ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x233", lib + "libtorch_cuda.so"),
                  ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", lib + "libtorch_cuda.so")]
        elif kind == "nccl":
            fr = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", lib + "libc10.so"),
                  ("c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException() + 0x1b5", lib + "libtorch_cuda.so"),
                  ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x1f4", lib + "libtorch_cuda.so"),
                  ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", lib + "libtorch_cuda.so")]
        else:
            fr = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", lib + "libc10.so"),
                  ("c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64", lib + "libc10.so"),
                  ("c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118", lib + "libc10_cuda.so"),
                  ("c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x56", lib + "libtorch_cuda.so"),
                  ("c10d::ProcessGroupNCCL::WorkNCCL::isCompleted() + 0x58", lib + "libtorch_cuda.so"),
                  ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x1f4", lib + "libtorch_cuda.so")]
        fr += [("<unknown function> + 0xdc253", "/lib/x86_64-linux-gnu/libstdc++.so.6"),
               ("<unknown function> + 0x94ac3", "/lib/x86_64-linux-gnu/libc.so.6"),
               ("<unknown function> + 0x126850", "/lib/x86_64-linux-gnu/libc.so.6")]
        if not hasattr(self, "_libbase"):
            self._libbase = {}
        out = []
        for i, (f, l) in enumerate(fr):
            key = (rk, l)
            if key not in self._libbase:
                self._libbase[key] = (0x7f0000000000 + (r.getrandbits(36) << 4)) & ~0xfff
            off = (sum(ord(c) * (j + 1) for j, c in enumerate(f)) * 4099) % 0x3000000
            out.append("frame #%d: %s (0x%x in %s)" % (i, f, self._libbase[key] + off, l))
        return out

    def work_str(self, seq, op, numel):
        nin, nout = numel, numel
        if op == "_ALLGATHER_BASE":
            nout = numel * self.world
        elif op == "_REDUCE_SCATTER_BASE":
            nin, nout = numel * self.world, numel
        elif op == "BROADCAST":
            pass
        return "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (seq, op, nin, nout, self.T * 1000)

    def watchdog_timeout(self, rk, t, seq, op, numel, enq=None):
        r = self.rng
        ran = self.T * 1000 + r.randint(3, 1400)
        w = "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (rk, self.work_str(seq, op, numel), ran)
        le = enq if enq is not None else seq + r.choice([0, 1, 2, 3])
        if self.torch == "v21":
            self.c10(rk, t, "E", "ProcessGroupNCCL.cpp:475", w)
            self.c10(rk, t, "E", "ProcessGroupNCCL.cpp:489", "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.")
            self.c10(rk, t, "E", "ProcessGroupNCCL.cpp:495", "To avoid data inconsistency, we are taking the entire process down.")
            self.c10(rk, t + 0.001, "E", "ProcessGroupNCCL.cpp:916", "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (rk, w))
            self.emit(rk, t + 0.002, "terminate called after throwing an instance of 'std::runtime_error'\n  what():  [Rank %d] NCCL watchdog thread terminated with exception: %s" % (rk, w))
            return
        if self.torch == "v23":
            self.c10(rk, t, "E", "ProcessGroupNCCL.cpp:523", w)
            self.c10(rk, t, "E", "ProcessGroupNCCL.cpp:537", "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.")
            self.c10(rk, t, "E", "ProcessGroupNCCL.cpp:543", "To avoid data inconsistency, we are taking the entire process down.")
            self.c10(rk, t + 0.001, "E", "ProcessGroupNCCL.cpp:1182", "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (rk, w))
            fr = self.cpp_frames("timeout", rk)
            self.emit(rk, t + 0.002, "\n".join(["Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:525 (most recent call first):"] + fr + [""]
                                               + ["terminate called after throwing an instance of 'c10::DistBackendError'",
                                                  "  what():  [Rank %d] NCCL watchdog thread terminated with exception: %s" % (rk, w),
                                                  "Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:525 (most recent call first):"] + fr + [""]))
            return
        a, b, c, d, e, f, g, hh = self.LN.get(self.torch_ver, self.LN["2.5.1"])
        pg = "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % rk
        self.c10(rk, t, "E", "ProcessGroupNCCL.cpp:%d" % a, w)
        self.c10(rk, t + 0.0003, "E", "ProcessGroupNCCL.cpp:%d" % b, "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pg, seq, le, seq - 1))
        self.c10(rk, t + 0.0004, "E", "ProcessGroupNCCL.cpp:%d" % c, "%s Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pg, seq, le, seq - 1))
        self.c10(rk, t + 0.0005, "E", "ProcessGroupNCCL.cpp:%d" % d, "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % rk)
        self.c10(rk, t + 0.0006, "E", "ProcessGroupNCCL.cpp:%d" % e, "[Rank %d] To avoid data inconsistency, we are taking the entire process down." % rk)
        self.c10(rk, t + 0.0008, "E", "ProcessGroupNCCL.cpp:%d" % f, "%s Process group watchdog thread terminated with exception: %s" % (pg, w))
        fr = self.cpp_frames("timeout", rk)
        self.emit(rk, t + 0.001, "\n".join(["Exception raised from checkTimeout at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % g] + fr + [""]
                                           + ["terminate called after throwing an instance of 'c10::DistBackendError'",
                                              "  what():  %s Process group watchdog thread terminated with exception: %s" % (pg, w),
                                              "Exception raised from checkTimeout at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % g] + fr[:4] + [""]
                                           + ["Exception raised from ncclCommWatchdog at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % hh] + fr[:2] + [""]))

    def net_warn(self, rk, peer_host):
        """(src, text) of the NCCL WARN a survivor prints when its peer vanished."""
        r = self.rng
        pip = self.ip[peer_host]
        port = r.randint(32768, 60999)
        if self.nic_kind in ("ib", "roce"):
            if self.torch == "v21":
                txt = "NET/IB : Got completion from peer %s<%d> with error 12, opcode %d, len 0, vendor err 129 (Recv)" % (pip, port, r.choice([0, 1, 129]))
            else:
                txt = "NET/IB : Got completion from peer %s<%d> with status=12 opcode=%d len=0 vendor err 129 (%s) localGid ::ffff:%s remoteGids::ffff:%s" % (
                    pip, port, r.choice([0, 1, 128]), r.choice(["Recv", "Send"]), self.ip[self.node_of[rk]], pip)
            return "transport/net_ib.cc:%d" % r.choice([1696, 1709, 1238, 1909]), txt
        if self.nic_kind == "efa":
            return "net.cpp:%d" % r.choice([1262, 1404]), ("NET/OFI Request 0x7f%09x completed with error. RC: 103. Error: Software caused connection abort. "
                                                          "Completed length: 0, Request: { dev: %d, size: 0, state: CREATED, direction: RECV }") % (r.getrandbits(36), self.lr_of[rk] // 2)
        return "misc/socket.cc:%d" % r.choice([49, 58]), "socketProgressOpt: Call to recv from %s<%d> failed : Connection reset by peer" % (pip, port)

    def remote_error(self, rk, t, peer_host, code):
        r = self.rng
        src, txt = self.net_warn(rk, peer_host)
        if self.nccl_warn_visible:
            self.nccl(rk, t - 0.01, txt, warn=src)
            if self.nccl_info:
                self.nccl(rk, t - 0.009, "transport/net.cc:%d -> 6" % r.choice([1137, 1302]))
                self.nccl(rk, t - 0.008, "proxy.cc:%d -> 6 [Progress Thread]" % r.choice([878, 698]))
        nerr = "NCCL error: remote process exited or there was a network error, NCCL version %s" % self.nccl_ver
        tail = ["ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.", "Last error:", txt]
        seq = self.seq_at(t)
        if code == 1:
            frames = self.frames_train([
                ("%s/%s" % (self.workdir, self.script), r.randint(200, 290), "train", "loss.backward()"),
                ("%s/torch/_tensor.py" % self.sp, 581, "backward", "torch.autograd.backward("),
                ("%s/torch/autograd/__init__.py" % self.sp, 347, "backward", "_engine_run_backward("),
                ("%s/torch/autograd/graph.py" % self.sp, 825, "_engine_run_backward",
                 "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")])
            loc = "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970" if self.torch != "v25" else "/pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:317"
            self.tb(rk, t, self.fmt_frames(frames) + ["torch.distributed.DistBackendError: NCCL error in: %s, remote process exited or there was a network error, NCCL version %s" % (loc, self.nccl_ver)] + tail)
            return
        if self.torch == "v21":
            self.c10(rk, t, "E", "ProcessGroupNCCL.cpp:915", "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (rk, nerr))
            self.emit(rk, t, "\n".join(tail + ["terminate called after throwing an instance of 'std::runtime_error'",
                                               "  what():  [Rank %d] NCCL watchdog thread terminated with exception: %s" % (rk, nerr)] + tail))
            return
        if self.torch == "v23":
            self.c10(rk, t, "E", "ProcessGroupNCCL.cpp:1182", "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (rk, nerr))
            self.emit(rk, t, "\n".join(tail + ["Exception raised from checkForNCCLErrorsInternal at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1723 (most recent call first):"] + self.cpp_frames("nccl", rk)
                                       + ["", "terminate called after throwing an instance of 'c10::DistBackendError'",
                                          "  what():  [Rank %d] NCCL watchdog thread terminated with exception: %s" % (rk, nerr)] + tail))
            return
        a, b, c, d, e, f, g, hh = self.LN.get(self.torch_ver, self.LN["2.5.1"])
        pg = "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % rk
        self.c10(rk, t, "E", "ProcessGroupNCCL.cpp:%d" % b, "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pg, seq, seq + 1, seq - 1))
        self.c10(rk, t + 0.0002, "E", "ProcessGroupNCCL.cpp:%d" % d, "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % rk)
        self.c10(rk, t + 0.0003, "E", "ProcessGroupNCCL.cpp:%d" % e, "[Rank %d] To avoid data inconsistency, we are taking the entire process down." % rk)
        self.c10(rk, t + 0.0004, "E", "ProcessGroupNCCL.cpp:%d" % f, "%s Process group watchdog thread terminated with exception: %s" % (pg, nerr))
        self.emit(rk, t + 0.0005, "\n".join(tail + ["Exception raised from checkForNCCLErrorsInternal at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2027 (most recent call first):"] + self.cpp_frames("nccl", rk)
                                            + ["", "terminate called after throwing an instance of 'c10::DistBackendError'",
                                               "  what():  %s Process group watchdog thread terminated with exception: %s" % (pg, nerr)] + tail
                                            + ["Exception raised from checkForNCCLErrorsInternal at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2027 (most recent call first):"] + self.cpp_frames("nccl", rk)[:3] + [""]))

    def gloo_error(self, rk, t, peer_host):
        r = self.rng
        frames = self.frames_train([
            ("%s/%s" % (self.workdir, self.script), r.randint(290, 330), "train", "metrics = reduce_metrics(metrics, group=cpu_group)"),
            ("%s/utils/dist.py" % self.workdir, r.randint(20, 60), "reduce_metrics", "dist.all_reduce(t, group=group)"),
            ("%s/torch/distributed/c10d_logger.py" % self.sp, 83, "wrapper", "return func(*args, **kwargs)"),
            ("%s/torch/distributed/distributed_c10d.py" % self.sp, 2501, "all_reduce", "work.wait()")])
        self.tb(rk, t, self.fmt_frames(frames) + ["RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [%s]:%d" % (self.ip[peer_host], r.randint(20000, 60000))])

    def store_reset(self, rk, t):
        """v25 survivors poking the TCPStore after the store host went away."""
        h = self.node_of[rk]
        self.c10(rk, t, "W", "TCPStore.cpp:125", "[c10d] recvValue failed on SocketImpl(fd=%d, addr=[%s]:%d, remote=[%s]:29500): Connection reset by peer" % (
            self.rng.randint(60, 130), self.nhost(h), self.rng.randint(33000, 60000), self.nhost(self.hosts[0])))
        self.emit(rk, t, "Exception raised from recvBytes at /pytorch/torch/csrc/distributed/c10d/Utils.hpp:670 (most recent call first):\n" + "\n".join(self.cpp_frames("nccl", rk)[:2]))
        self.c10(rk, t + 0.001, "W", "ProcessGroupNCCL.cpp:1659", "[PG ID 0 PG GUID 0(default_pg) Rank %d] Failed to check the \"should dump\" flag on TCPStore, (maybe TCPStore server has shut down too early), with error: Connection reset by peer" % rk)

    # -------------------------------------------------------------- fate propagation
    def propagate(self, X, t_stall, xfate, blocked=None, op="ALLREDUCE", numel=None, per_rank=None, remote=None,
                  gloo=False):
        """X: initiating rank (or None), xfate: dict for X or None (X stays alive / hangs).
        blocked: ranks that sit in the collective started at t_stall (default: all but X)."""
        r = self.rng
        W = self.world
        self.fail_seq = self.seq_at(t_stall)
        self.fail_op = op
        self.fail_numel = numel or r.choice([1, 262144000, 1048576, 52428800, 16777216, 134217728])
        exit_t = {rk: INF for rk in range(W)}
        fate = {}
        if X is not None and xfate:
            fate[X] = dict(xfate)
            fate[X].setdefault("kind", "primary")
            exit_t[X] = xfate["t_exit"]
        for rk, f in (per_rank or {}).items():
            fate[rk] = dict(f)
            exit_t[rk] = f["t_exit"]
        if blocked is None:
            blocked = [rk for rk in range(W) if rk != X and rk not in (per_rank or {})]
        for rk in blocked:
            tw = t_stall + self.T + r.uniform(0.005, 0.05) + r.uniform(0.0, 0.1)
            fate[rk] = dict(kind="timeout", t_msg=tw, t_exit=tw + r.uniform(0.05, 0.6), code=-6)
            exit_t[rk] = fate[rk]["t_exit"]
        mon = 5.0 if self.torch == "v21" else 0.1
        nd = {h: r.uniform(0.02, mon) + r.uniform(0.05, 0.3) for h in self.hosts}

        def killable(x, tk):
            f = fate.get(x)
            if f is None or f["kind"] in ("primary", "killed"):
                return exit_t[x] > tk + 0.7
            return f["t_msg"] > tk
        rd = {h: r.uniform(0.4, 25.0) for h in self.hosts}
        rem = self.remote_mode if remote is None else remote
        remote_on = {h: rem and r.random() < 0.85 for h in self.hosts}
        face = {h: r.choice(self.ranks_on[h]) for h in self.hosts}
        rcode = {h: r.choice([-6, -6, -6, 1]) for h in self.hosts}
        if gloo:
            for h in self.hosts:
                rcode[h] = r.choice([1, "gloo"])
        gd = r.uniform(0.05, 0.9)
        for _ in range(10):
            changed = False
            if self.launcher in ("torchrun", "deepspeed"):
                for h in self.hosts:
                    first = min(exit_t[x] for x in self.ranks_on[h])
                    if first == INF:
                        continue
                    tk = first + nd[h]
                    for x in self.ranks_on[h]:
                        if exit_t[x] > tk + 0.7 and killable(x, tk):
                            fate[x] = dict(kind="killed", t_msg=tk, t_exit=tk + r.uniform(0.1, 0.6), code=-15)
                            exit_t[x] = fate[x]["t_exit"]
                            changed = True
            elif self.launcher == "mpirun" or (self.launcher == "srun" and self.kobe):
                first = min(exit_t.values())
                if first < INF:
                    tk = first + gd
                    for x in range(W):
                        if exit_t[x] > tk + 0.7 and killable(x, tk):
                            fate[x] = dict(kind="killed", t_msg=tk, t_exit=tk + r.uniform(0.1, 0.9), code=-15 if self.launcher == "srun" else -9)
                            exit_t[x] = fate[x]["t_exit"]
                            changed = True
            for h in self.hosts:
                if not remote_on[h]:
                    continue
                oth = [(exit_t[x], x) for x in range(W) if self.node_of[x] != h and exit_t[x] < INF]
                if not oth:
                    continue
                fo, fx = min(oth)
                tr = fo + rd[h]
                c = face[h]
                if exit_t[c] > tr + 0.7 and fate.get(c, {}).get("kind") != "primary":
                    code = rcode[h]
                    fate[c] = dict(kind="remote", t_msg=tr, t_exit=tr + r.uniform(0.05, 0.8),
                                   code=1 if code == "gloo" else code, peer=self.node_of[fx], gloo=(code == "gloo"))
                    exit_t[c] = fate[c]["t_exit"]
                    changed = True
            if not changed:
                break
        self.exit.update(fate)
        self.render_fates(per_rank or {})

    def render_fates(self, per_rank_ops):
        r = self.rng
        store_gone = None
        if self.launcher == "torchrun" and self.torch == "v25":
            h0 = self.hosts[0]
            ex0 = [self.exit[x]["t_exit"] for x in self.ranks_on[h0] if x in self.exit]
            if ex0 and len(ex0) == self.gpn:
                store_gone = max(ex0) + 1.0
        for rk in sorted(self.exit, key=lambda x: (self.exit[x]["t_msg"], x)):
            f = self.exit[rk]
            k = f["kind"]
            if k == "timeout":
                o = f.get("op", self.fail_op)
                self.watchdog_timeout(rk, f["t_msg"], f.get("seq", self.fail_seq), o, f.get("numel", self.fail_numel), f.get("enq"))
                self.drop_pending(rk)
            elif k == "remote":
                if f.get("gloo"):
                    self.gloo_error(rk, f["t_msg"], f["peer"])
                else:
                    self.remote_error(rk, f["t_msg"], f["peer"], f["code"])
                if f["code"] == 1:
                    self.flush(rk, f["t_exit"])
                else:
                    self.drop_pending(rk)
            elif k == "killed":
                if self.sigterm_handler and self.pending.get(rk):
                    self.emit(rk, f["t_msg"] + 0.01, "rank %d: caught SIGTERM, exiting" % rk, "out", buffered=True)
                    self.flush(rk, f["t_exit"])
                elif self.sigterm_handler and r.random() < 0.3:
                    self.emit(rk, f["t_msg"] + 0.01, "rank %d: caught SIGTERM, exiting" % rk, "out")
                else:
                    self.drop_pending(rk)
            elif k in ("primary", "other"):
                if f["code"] >= 0 or f.get("flush"):
                    self.flush(rk, f["t_exit"])
                else:
                    self.drop_pending(rk)
        # survivors on other nodes poking the TCPStore after the store host's agent is gone (v25)
        if store_gone:
            for rk in range(self.world):
                f = self.exit.get(rk)
                if f and self.node_of[rk] != self.hosts[0] and f["t_exit"] > store_gone + 2 and r.random() < 0.3:
                    self.store_reset(rk, r.uniform(store_gone, min(f["t_exit"] - 0.5, store_gone + 60)))

    # -------------------------------------------------------------- launchers
    def render_launchers(self):
        if self.launcher == "torchrun":
            for h in self.hosts:
                self.render_torchrun(h)
        elif self.launcher == "deepspeed":
            for h in self.hosts:
                self.render_deepspeed(h)
        elif self.launcher == "srun":
            self.render_srun()
        elif self.launcher == "mpirun":
            self.render_mpirun()

    def sig_name(self, code):
        return {-6: "SIGABRT", -9: "SIGKILL", -11: "SIGSEGV", -7: "SIGBUS", -15: "SIGTERM", -4: "SIGILL"}.get(code, "SIG%d" % -code)

    def torchrun_tb(self):
        sp = self.sp
        v = {"v21": (346, 806, 797, 134, 264), "v23": (347, 812, 803, 135, 268), "v25": (355, 919, 910, 138, 269)}[self.torch]
        bin_ = os.path.dirname(self.py) + "/torchrun"
        return ["Traceback (most recent call last):",
                '  File "%s", line 8, in <module>' % bin_, "    sys.exit(main())",
                '  File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line %d, in wrapper' % (sp, v[0]), "    return f(*args, **kwargs)",
                '  File "%s/torch/distributed/run.py", line %d, in main' % (sp, v[1]), "    run(args)",
                '  File "%s/torch/distributed/run.py", line %d, in run' % (sp, v[2]), "    elastic_launch(",
                '  File "%s/torch/distributed/launcher/api.py", line %d, in __call__' % (sp, v[3]), "    return launch_agent(self._config, self._entrypoint, list(args))",
                '  File "%s/torch/distributed/launcher/api.py", line %d, in launch_agent' % (sp, v[4]), "    raise ChildFailedError("]

    def failure_entry(self, idx, rk, td):
        f = self.exit[rk]
        h = self.node_of[rk]
        code = f["code"]
        ef = f.get("error_file")
        tstamp = f["t_msg"] if ef else td
        out = ["[%d]:" % idx,
               "  time      : %s" % f_elastic_time(self.wall(h, tstamp), self.zone_app[h]),
               "  host      : %s" % (self.pod[h] if self.layout == "k8s_pytorchjob" else h),
               "  rank      : %d (local_rank: %d)" % (rk, self.lr_of[rk]),
               "  exitcode  : %d (pid: %d)" % (code, self.pid[rk]),
               "  error_file: %s" % (ef or "<N/A>")]
        if code < 0:
            out.append("  traceback : Signal %d (%s) received by PID %d" % (-code, self.sig_name(code), self.pid[rk]))
        elif ef:
            tbl = f.get("tb_lines") or ["Traceback (most recent call last):", "  ..."]
            out.append("  traceback : " + tbl[0])
            out += ["    " + x for x in tbl[1:]]
        else:
            out.append("  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
        return out

    def render_torchrun(self, h):
        r = self.rng
        rs = self.ranks_on[h]
        if h in self.agent_sig:
            ts = self.agent_sig[h]
            self.agent_log(h, ts, "W", "torch/distributed/elastic/agent/server/api.py", 704, "Received 15 death signal, shutting down workers")
            for rk in rs:
                self.agent_log(h, ts + 0.001 * (rk % self.gpn), "W", "torch/distributed/elastic/multiprocessing/api.py", 897,
                               "Sending process %d closing signal SIGTERM" % self.pid[rk])
            te = max(self.exit[rk]["t_exit"] for rk in rs) + r.uniform(0.2, 2.0)
            tbl = self.torchrun_tb()[:-2] + [
                '  File "%s/torch/distributed/launcher/api.py", line %d, in launch_agent' % (self.sp, 260), "    result = agent.run()",
                '  File "%s/torch/distributed/elastic/metrics/api.py", line 137, in wrapper' % self.sp, "    result = f(*args, **kwargs)",
                '  File "%s/torch/distributed/elastic/agent/server/api.py", line 696, in run' % self.sp, "    result = self._invoke_run(role)",
                '  File "%s/torch/distributed/elastic/agent/server/api.py", line 855, in _invoke_run' % self.sp, "    time.sleep(monitor_interval)",
                '  File "%s/torch/distributed/elastic/multiprocessing/api.py", line 84, in _terminate_process_handler' % self.sp,
                "    raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)",
                "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % self.agent_pid[h]]
            self.agent(h, te, "\n".join(tbl))
            self.agent_exit[h] = te + 0.05
            return
        ex = sorted((self.exit[rk]["t_exit"], rk) for rk in rs if rk in self.exit)
        if len(ex) < len(rs):
            return
        first_t, first = ex[0]
        if self.exit[first]["code"] == 0:
            return
        killed = [rk for rk in rs if self.exit[rk]["kind"] == "killed"]
        td = min([self.exit[rk]["t_msg"] for rk in killed]) if killed else first_t + r.uniform(0.05, 0.4)
        fails = [rk for rk in rs if self.exit[rk]["kind"] != "killed" and self.exit[rk]["code"] != 0 and self.exit[rk]["t_exit"] <= td]
        if not fails:
            fails = [first]
        alive = [rk for rk in rs if self.exit[rk]["t_exit"] > td]
        for k, rk in enumerate(alive):
            self.agent_log(h, td + 0.0004 * k, "W", "torch/distributed/elastic/multiprocessing/api.py", 897, "Sending process %d closing signal SIGTERM" % self.pid[rk])
        tfl = max([self.exit[rk]["t_exit"] for rk in alive] + [td]) + r.uniform(0.02, 0.3)
        fails.sort(key=lambda x: (self.exit[x]["t_msg"] if self.exit[x].get("error_file") else self.exit[x]["t_exit"], x))
        root = fails[0]
        self.agent_log(h, tfl, "E", "torch/distributed/elastic/multiprocessing/api.py", 869,
                       "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (self.exit[root]["code"], self.lr_of[root], self.pid[root], self.py))
        body = self.torchrun_tb() + ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
                                     "============================================================",
                                     "%s FAILED" % self.entry,
                                     "------------------------------------------------------------",
                                     "Failures:"]
        others = fails[1:]
        if not others:
            body.append("  <NO_OTHER_FAILURES>")
        for i, rk in enumerate(others):
            body += self.failure_entry(i + 1, rk, td)
        body += ["------------------------------------------------------------", "Root Cause (first observed failure):"]
        body += self.failure_entry(0, root, td)
        body.append("============================================================")
        self.agent(h, tfl + 0.01, "\n".join(body))
        self.agent_exit[h] = tfl + 0.2
        self.torchrun_root = getattr(self, "torchrun_root", {})
        self.torchrun_root[h] = root

    def render_deepspeed(self, h):
        r = self.rng
        rs = self.ranks_on[h]
        ex = sorted((self.exit[rk]["t_exit"], rk) for rk in rs if rk in self.exit)
        if len(ex) < len(rs):
            return
        first_t, first = ex[0]
        if self.exit[first]["code"] == 0:
            return
        if h in self.agent_sig:
            self.agent_exit[h] = self.agent_sig[h]
            return
        td = first_t + r.uniform(0.05, 0.5)
        for k, rk in enumerate(rs):
            self.agent(h, td + 0.0005 * k, "[%s] [INFO] [launch.py:319:sigkill_handler] Killing subprocess %d" % (self.pylog_ts(h, td + 0.0005 * k), self.pid[rk]))
        code = self.exit[first]["code"]
        cmd = "['%s', '-u', '%s', '--local_rank=%d', '--deepspeed', '--deepspeed_config', 'ds_config.json']" % (self.py, self.script, self.lr_of[first])
        te = td + 0.03 + r.uniform(0, 0.2)
        self.agent(h, te, "[%s] [ERROR] [launch.py:325:sigkill_handler] %s exits with return code = %d" % (self.pylog_ts(h, te), cmd, code))
        self.agent_exit[h] = te + 0.1
        self.other("pdsh", te + r.uniform(0.05, 0.6), "pdsh@%s: %s: ssh exited with exit code %d" % (self.hosts[0], h, code & 0xFF))
        self.ds_first = getattr(self, "ds_first", {})
        self.ds_first[h] = first

    def srun_status(self, code):
        if code > 0:
            return "Exited with exit code %d" % code
        return {-6: "Aborted", -9: "Killed", -11: "Segmentation fault", -7: "Bus error", -15: "Terminated", -4: "Illegal instruction"}.get(code, "Killed")

    def render_srun(self):
        r = self.rng
        done = getattr(self, "_srun_done", set())
        gone = getattr(self, "vanished", (None,))[0]
        items = sorted((f["t_exit"], rk) for rk, f in self.exit.items() if f["code"] != 0 and rk not in done and self.node_of[rk] != gone)
        self._srun_done = done | {rk for _, rk in items}
        if not items:
            return
        groups = []
        for te, rk in items:
            h = self.node_of[rk]
            st = self.srun_status(self.exit[rk]["code"])
            if self.exit[rk].get("oom"):
                st = "Out Of Memory"
            if self.exit[rk]["kind"] == "killed":
                st = r.choice(["Terminated", "Killed"]) if not hasattr(self, "_srun_kill_st") else self._srun_kill_st
                self._srun_kill_st = st
            for g in groups:
                if g[1] == h and g[2] == st and te - g[4] < 1.5:
                    g[3].append(rk)
                    g[0] = max(g[0], te)
                    break
            else:
                groups.append([te, h, st, [rk], te])
        aborted = False
        for te, h, st, rks, _ in groups:
            tt = te + r.uniform(0.01, 0.3)
            self.other("srun", tt, "srun: error: %s: task%s %s: %s" % (h, "s" if len(rks) > 1 else "", fmt_list(rks), st))
            if st == "Out Of Memory":
                self.other("srun", tt - 0.005, "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % self.jobid)
                self.slurm_oom_printed = True
            if self.kobe and not aborted:
                aborted = True
                self.other("srun", tt + 0.01, "srun: Terminating StepId=%d.0" % self.jobid)
                h0 = self.hosts[0]
                tc = tt + 0.02
                self.other("srun", tc, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (self.jobid, h0, f_slurm(self.wall(h0, tc), self.zone_sys[h0])))
                self.step_cancel_t = tc
        self.job_end = max([te for te, _ in items] + [self.job_end or 0]) + r.uniform(0.5, 3)

    def render_mpirun(self):
        r = self.rng
        gone = {getattr(self, "mpi_lost", (None,))[0], getattr(self, "vanished", (None,))[0]}
        items = sorted((f["t_exit"] + r.uniform(0.001, 0.02), rk) for rk, f in self.exit.items() if f["code"] != 0 and self.node_of[rk] not in gone)
        if not items:
            return
        tf, rk = items[0]
        f = self.exit[rk]
        code = f["code"]
        sep = "-" * 74
        tt = tf + r.uniform(0.05, 0.3)
        if code < 0:
            signame = {-6: "Aborted", -9: "Killed", -11: "Segmentation fault", -7: "Bus error", -15: "Terminated"}.get(code, "Killed")
            self.other("mpirun", tt, "%s\nmpirun noticed that process rank %d with PID %d on node %s exited on signal %d (%s).\n%s" % (
                sep, rk, self.pid[rk], self.node_of[rk], -code, signame, sep))
        else:
            self.other("mpirun", tt, "%s\nPrimary job  terminated normally, but 1 process returned\na non-zero exit code. Per user-direction, the job has been aborted.\n%s" % (sep, sep))
            self.other("mpirun", tt + 0.4, "%s\nmpirun detected that one or more processes exited with non-zero status, thus causing\nthe job to be terminated. The first process to do so was:\n\n  Process name: [[%d,1],%d]\n  Exit code:    %d\n%s" % (
                sep, self.jobid, rk, code, sep))
        self.mpirun_first = rk
        self.job_end = tt + 1

    # -------------------------------------------------------------- clock plans
    def chrony_pid(self, h):
        return 700 + (sum(map(ord, h)) % 900)

    def chrony_step(self, h, t, target=0.0, why=None):
        cur = self.clock[h].off(t)
        corr = target - cur
        pid = self.chrony_pid(h)
        if why:
            self.sysl(h, t - 0.2, "chronyd", why, pid)
        self.sysl(h, t, "chronyd", "System clock wrong by %.6f seconds" % corr, pid)
        self.clock[h].step(t + 0.0004, target)
        self.sysl(h, t + 0.001, "chronyd", "System clock was stepped by %.6f seconds" % corr, pid)
        if corr < 0:
            self.sysl(h, t + 0.003, "systemd-journald", "Time jumped backwards, rotating.", 400 + pid % 97)
        self.ntp_events[h].append((t, "step", corr))
        return corr

    def chrony_slew(self, h, t, target=0.0):
        cur = self.clock[h].off(t)
        corr = target - cur
        self.sysl(h, t, "chronyd", "System clock wrong by %.6f seconds, adjustment started" % corr, self.chrony_pid(h))
        end = self.clock[h].slew(t + 0.001, target)
        self.ntp_events[h].append((t, "slew", corr))
        return end

    def ensure_sync_lines(self, h):
        if self.style == "megatron":
            return False
        if self.log_ranks_mode == "rank0":
            self.log_ranks_mode = "node0"
        return True

    def add_skew_evidence(self, h, t_after):
        """make the skew of node h visible somewhere in the bundle."""
        r = self.rng
        ev = []
        if self.layout == "aggregator_export":
            ev.append("aggregator ingest time vs the lines' own timestamps")
        if self.layout == "mpirun_tagged":
            ev.append("mpirun --timestamp-output stamps (head-node clock) vs the application's own timestamps")
        opts = ["chrony_after", "chronyc", "sync"]
        if self.layout == "k8s_pytorchjob":
            opts = ["chrony_after", "sync", "sync"]
        pick = r.sample(opts, r.randint(1, 2))
        if "sync" in pick and self.ensure_sync_lines(h):
            ev.append("synchronous per-step log lines (all ranks log the same step at the same moment)")
        if "chrony_after" in pick:
            ts = t_after + r.uniform(900, 5400)
            self.chrony_step(h, ts, 0.0, why="Selected source %s" % r.choice(NTP_SERVERS))
            self.late_steps.append(ts)
            ev.append("chronyd 'System clock wrong by' / 'stepped by' after the failure on %s" % h)
            if h not in self.extra_kern_hosts:
                self.extra_kern_hosts.append(h)
        if "chronyc" in pick and self.layout != "k8s_pytorchjob":
            self.chronyc[h] = True
            ev.append("chronyc tracking output collected from %s" % h)
        if not ev:
            if self.ensure_sync_lines(h):
                ev.append("synchronous per-step log lines")
            else:
                ts = t_after + r.uniform(900, 5400)
                self.chrony_step(h, ts, 0.0, why="Selected source %s" % r.choice(NTP_SERVERS))
                self.late_steps.append(ts)
                if h not in self.extra_kern_hosts:
                    self.extra_kern_hosts.append(h)
                ev.append("chronyd step message on %s" % h)
        self.evidence += ev

    def plan_clock(self, A, t_f, kind=None):
        r = self.rng
        mode = kind or r.choice(["trap_ahead", "trap_ahead", "trap_behind", "mild", "step_before", "slew", "none", "trap_ahead"])
        self.clock_mode = mode
        others = [h for h in self.hosts if h != A]
        if mode == "trap_ahead" and A is not None:
            off = round(r.uniform(35, 240), 3)
            self.skew_node(A, off, r.choice(["chronyd had no selectable source since boot", "NTP blocked after a firewall change", "RTC drift, chronyd not running"]))
            self.sysl(A, self.t0 - r.uniform(3600, 86400), "chronyd", "Can't synchronise: no selectable sources", self.chrony_pid(A))
            self.add_skew_evidence(A, t_f)
        elif mode == "trap_behind" and others:
            B = r.choice(others)
            off = -round(r.uniform(35, 240), 3)
            self.skew_node(B, off, "chronyd not synchronised")
            self.sysl(B, self.t0 - r.uniform(3600, 86400), "chronyd", "Source %s offline" % r.choice(NTP_SERVERS).split(" ")[0], self.chrony_pid(B))
            self.add_skew_evidence(B, t_f)
        elif mode == "mild":
            for h in self.hosts:
                if r.random() < 0.6:
                    o = round(r.uniform(0.8, 7.0) * r.choice([-1, 1]), 3)
                    self.clock[h] = Clock(o)
                    self.skewed[h] = o
            if self.skewed:
                self.quirks.append("small clock offsets between nodes (%s)" % ", ".join("%s %+.1fs" % (h, o) for h, o in self.skewed.items()))
        elif mode == "step_before":
            h = A if (A is not None and r.random() < 0.6) else r.choice(self.hosts)
            off = round(r.uniform(25, 200) * r.choice([-1, 1]), 3)
            self.skew_node(h, off, "until chronyd regained its source mid-run")
            ts = r.uniform(self.t_train0 + 600, max(self.t_train0 + 700, t_f - 900))
            self.chrony_step(h, ts, 0.0, why="Selected source %s" % r.choice(NTP_SERVERS))
            self.quirks.append("NTP step on %s at true %s: its timestamps jump by %+.1f s mid-run" % (h, f_iso(ts, UTCZ, 0), -off))
            self.evidence.append("chronyd 'System clock wrong by' / 'stepped by' messages on %s" % h)
            self.extra_kern_hosts.append(h)
            self.ensure_sync_lines(h)
            self.step_host = (h, ts, -off)
        elif mode == "slew" and A is not None:
            off = round(r.uniform(40, 150) * r.choice([-1, 1]), 3)
            h = A if r.random() < 0.6 else r.choice(self.hosts)
            self.skew_node(h, off, "being slewed back by chronyd")
            ts = t_f - r.uniform(200, 900)
            end = self.chrony_slew(h, ts, 0.0)
            self.quirks.append("chronyd slewing %s from %+.1f s towards 0 (ends %s true UTC); offset at failure %+.1f s" % (
                h, off, f_iso(end, UTCZ, 0), self.clock[h].off(t_f)))
            self.extra_kern_hosts.append(h)
            self.ensure_sync_lines(h)
            self.evidence.append("chronyd 'System clock wrong by ... adjustment started' on %s" % h)
        else:
            self.clock_mode = "none"

    # -------------------------------------------------------------- shared text
    def cuda_boiler(self):
        return ["CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
                "For debugging consider passing CUDA_LAUNCH_BLOCKING=1", "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", ""]

    def fwd_frames(self):
        r = self.rng
        wd = self.workdir
        return self.frames_train([
            ("%s/%s" % (wd, self.script), r.randint(180, 260), "train", "loss = model(batch).loss"),
            ("%s/torch/nn/modules/module.py" % self.sp, 1736, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
            ("%s/torch/nn/modules/module.py" % self.sp, 1747, "_call_impl", "return forward_call(*args, **kwargs)"),
            ("%s/torch/nn/parallel/distributed.py" % self.sp, 1643, "forward", "else self._run_ddp_forward(*inputs, **kwargs)"),
            ("%s/models/transformer.py" % wd, r.randint(300, 480), "forward", "h = layer(h, freqs_cis, mask)"),
            ("%s/models/transformer.py" % wd, r.randint(150, 290), "forward", "out = self.attention(self.attention_norm(x), freqs_cis, mask)")])

    def bwd_frames(self):
        r = self.rng
        return self.frames_train([
            ("%s/%s" % (self.workdir, self.script), r.randint(200, 290), "train", "loss.backward()"),
            ("%s/torch/_tensor.py" % self.sp, 581, "backward", "torch.autograd.backward("),
            ("%s/torch/autograd/__init__.py" % self.sp, 347, "backward", "_engine_run_backward("),
            ("%s/torch/autograd/graph.py" % self.sp, 825, "_engine_run_backward",
             "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")])

    def error_file(self, rk):
        if not (self.use_record and self.launcher == "torchrun"):
            return None
        if not hasattr(self, "_ef_base"):
            r = self.rng
            self._ef_base = {h: "/tmp/torchelastic_%s/%s_%s" % ("".join(r.choice("abcdefghijklmnopqrstuvwxyz0123456789_") for _ in range(8)),
                                                               self.run_id(), "".join(r.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(8)))
                             for h in self.hosts}
        return "%s/attempt_0/%d/error.json" % (self._ef_base[self.node_of[rk]], self.lr_of[rk])

    def run_id(self):
        if not hasattr(self, "_run_id"):
            self._run_id = self.rng.choice(["none", "none", str(self.jobid), self.kname()])
        return self._run_id

    def py_fail(self, rk, t, tb_lines, code=1, exit_after=None, stream="err"):
        """X raises; returns the fate dict."""
        self.tb(rk, t, tb_lines, stream)
        te = t + (exit_after if exit_after is not None else self.rng.uniform(0.3, 3.0))
        f = dict(kind="primary", t_msg=t, t_exit=te, code=code)
        ef = self.error_file(rk)
        if ef and code == 1:
            f["error_file"] = ef
            f["tb_lines"] = [x for x in tb_lines]
        return f

    def xid(self, h, t, rk_or_bus, num, text, pid=None, name=None):
        bus = self.busid[rk_or_bus] if isinstance(rk_or_bus, int) else rk_or_bus
        if self.torch == "v21" and pid is None:
            self.kern(h, t, "NVRM: Xid (PCI:0000:%s:00): %d, %s" % (bus, num, text))
        elif pid is None:
            self.kern(h, t, "NVRM: Xid (PCI:0000:%s:00): %d, pid='<unknown>', name=<unknown>, %s" % (bus, num, text))
        else:
            self.kern(h, t, "NVRM: Xid (PCI:0000:%s:00): %d, pid=%d, name=%s, %s" % (bus, num, pid, name or self.comm, text))

    def set_truth(self, rank=None, node=None):
        self.init_rank = rank
        self.init_node = node if node is not None else (self.node_of[rank] if rank is not None else None)

    # -------------------------------------------------------------- causes
    def c_python_exception(self):
        r = self.rng
        X, A, v = self.X, self.A, self.variant
        t_f = self.t_fail
        self.training(self.t_train0, t_f)
        sp, wd = self.sp, self.workdir
        if v == "keyerror":
            fr = self.frames_train([
                ("%s/%s" % (wd, self.script), r.randint(150, 200), "train", "for step, batch in enumerate(train_loader):"),
                ("%s/torch/utils/data/dataloader.py" % sp, 701, "__next__", "data = self._next_data()"),
                ("%s/torch/utils/data/dataloader.py" % sp, 1465, "_next_data", "return self._process_data(data)"),
                ("%s/torch/utils/data/dataloader.py" % sp, 1491, "_process_data", "data.reraise()"),
                ("%s/torch/_utils.py" % sp, 715, "reraise", "raise exception")])
            k = r.choice(["input_ids", "attention_mask", "labels", "pixel_values"])
            lines = self.fmt_frames(fr) + ["KeyError: Caught KeyError in DataLoader worker process %d." % r.randint(0, 7),
                                           "Original Traceback (most recent call last):",
                                           '  File "%s/torch/utils/data/_utils/worker.py", line 351, in _worker_loop' % sp,
                                           "    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]",
                                           '  File "%s/torch/utils/data/_utils/fetch.py", line 52, in fetch' % sp,
                                           "    data = [self.dataset[idx] for idx in possibly_batched_index]",
                                           '  File "%s/data/packed_dataset.py", line %d, in __getitem__' % (wd, r.randint(60, 140)),
                                           '    tokens = sample["%s"]' % k, "KeyError: '%s'" % k, ""]
            desc = "KeyError in a DataLoader worker (missing '%s' in a sample)" % k
        elif v == "assert":
            n = r.choice([4097, 8193, 2049])
            lines = self.fmt_frames(self.fwd_frames()[:-1] + [("%s/models/transformer.py" % wd, r.randint(420, 520), "forward",
                                                                "assert seqlen <= self.max_seq_len, f\"sequence length {seqlen} exceeds max_seq_len {self.max_seq_len}\"")]) + \
                ["AssertionError: sequence length %d exceeds max_seq_len %d" % (n, n - 1)]
            desc = "AssertionError (sequence too long) in the model forward"
        elif v == "filenotfound":
            shard = "/mnt/data/tokenized/shard-%05d.bin" % r.randint(100, 4000)
            lines = self.fmt_frames(self.frames_train([
                ("%s/%s" % (wd, self.script), r.randint(150, 200), "train", "batch = next(data_iter)"),
                ("%s/data/stream.py" % wd, r.randint(40, 120), "__next__", "self._open_next_shard()"),
                ("%s/data/stream.py" % wd, r.randint(120, 200), "_open_next_shard", "self._fh = open(path, \"rb\")")])) + \
                ["FileNotFoundError: [Errno 2] No such file or directory: '%s'" % shard]
            desc = "FileNotFoundError opening %s" % shard
        elif v == "ckpt_oserror":
            lines = self.fmt_frames(self.frames_train([
                ("%s/%s" % (wd, self.script), r.randint(300, 340), "train", "save_checkpoint(model, optimizer, step, args.ckpt_dir)"),
                ("%s/utils/ckpt.py" % wd, r.randint(20, 80), "save_checkpoint", "torch.save(state, path)"),
                ("%s/torch/serialization.py" % sp, 850, "save", "_save("),
                ("%s/torch/serialization.py" % sp, 1114, "_save", "zip_file.write_record(name, storage, num_bytes)")])) + \
                ["RuntimeError: [enforce fail at inline_container.cc:778] . PytorchStreamWriter failed writing file data/%d: file write failed" % r.randint(10, 900)]
            desc = "checkpoint write failed on rank 0 (disk full)"
        else:
            lines = self.fmt_frames(self.frames_train([
                ("%s/%s" % (wd, self.script), r.randint(200, 260), "train", "loss = loss + aux_loss * args.aux_coef"),
            ])) + ["TypeError: unsupported operand type(s) for +: 'Tensor' and 'NoneType'"]
            desc = "TypeError in the loss computation"
        tx = t_f + r.uniform(0.05, 1.5)
        f = self.py_fail(X, tx, lines)
        self.propagate(X, tx, f, gloo=r.random() < 0.25)
        self.render_launchers()
        self.set_truth(X)
        self.notes.append("rank %d on %s raised %s at %s (true UTC)" % (X, A, desc, f_iso(tx, UTCZ, 3)))

    def c_cuda_oom(self):
        r = self.rng
        X, A, v = self.X, self.A, self.variant
        t_f = self.t_fail
        self.training(self.t_train0, t_f)
        gb = r.choice([1.96, 2.5, 3.91, 7.81, 0.98, 15.62])
        tot = GPU_MEM[self.gpu]
        free = round(r.uniform(0.2, gb * 0.8), 2)
        alloc = round(tot - free - r.uniform(1.0, 4.0), 2)
        if self.torch == "v21":
            msg = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB (GPU %d; %.2f GiB total capacity; %.2f GiB already allocated; %.2f GiB free; %.2f GiB reserved in total by PyTorch) "
                   "If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF") % (
                gb, self.lr_of[X], tot, alloc, free, alloc + 1.1)
        else:
            msg = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of %.2f GiB of which %.2f GiB is free. "
                   "Including non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. "
                   "If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)") % (
                gb, self.lr_of[X], tot, free, tot - free, alloc, round(tot - free - alloc - 0.6, 2))
        tx = t_f + r.uniform(0.05, 1.0)
        frames = self.fwd_frames() + [("%s/torch/nn/functional.py" % self.sp, 5469, "scaled_dot_product_attention", "return _scaled_dot_product_attention(")] if r.random() < 0.5 else self.bwd_frames()
        lines = self.fmt_frames(frames) + [msg]
        if v == "uncaught":
            f = self.py_fail(X, tx, lines)
            self.propagate(X, tx, f)
            self.notes.append("rank %d on %s hit CUDA OOM (uncaught) at %s true UTC" % (X, A, f_iso(tx, UTCZ, 3)))
        else:
            # caught, printed with print() (block-buffered stdout), then a slow emergency save
            self.sigterm_handler = True
            h = A
            buf = self.stdout_buffered
            self.emit(X, tx, "[%s] rank %d: CUDA OOM at step %d, writing emergency checkpoint and exiting" % (
                f_hms(self.wall(h, tx), self.zone_app[h]), X, self.step_at(tx)), "out", buffered=buf)
            self.emit(X, tx + 0.001, "\n".join(lines), "out", buffered=buf)
            save = r.uniform(0.4, 2.5) * self.T
            f = dict(kind="primary", t_msg=tx, t_exit=tx + save, code=1, flush=True)
            self.propagate(X, tx, f)
            if buf:
                self.quirks.append("rank %d's OOM report went through print() on block-buffered stdout and was only flushed when the process ended (%s)" % (
                    X, "after the other ranks' watchdog timeouts" if save > self.T else "before the others timed out"))
            self.notes.append("rank %d on %s hit CUDA OOM at %s true UTC, caught it, printed without flush, tried an emergency save" % (X, A, f_iso(tx, UTCZ, 3)))
        self.render_launchers()
        self.set_truth(X)

    def c_illegal_memory_access(self):
        r = self.rng
        X, A, v = self.X, self.A, self.variant
        t_f = self.t_fail
        self.training(self.t_train0, t_f)
        tx = t_f + r.uniform(0.05, 0.8)
        if v == "assert":
            n = r.randint(2, 6)
            asrt = []
            for _ in range(n):
                asrt.append("/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:94: operator(): block: [%d,0,0], thread: [%d,0,0] Assertion `-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"` failed." % (r.randint(0, 4000), r.randint(0, 127)))
            self.emit(X, tx - 0.01, "\n".join(asrt))
            lines = self.fmt_frames(self.fwd_frames()) + ["RuntimeError: CUDA error: device-side assert triggered"] + self.cuda_boiler()
            f = self.py_fail(X, tx, lines)
            if r.random() < 0.6:
                self.xid(A, tx - 0.02, X, 43, "Ch 000000%02x" % r.randint(8, 40), self.pid[X])
            desc = "device-side assert (index out of bounds)"
        elif v == "illegal_tb":
            lines = self.fmt_frames(self.bwd_frames()) + ["RuntimeError: CUDA error: an illegal memory access was encountered"] + self.cuda_boiler()
            f = self.py_fail(X, tx, lines)
            self.xid(A, tx - 0.03, X, 31, "Ch 0000000%d, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_%d faulted @ 0x7f%02x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (
                r.randint(1, 9), r.randint(0, 15), r.randint(0, 255), r.getrandbits(32) & 0xfffff000), self.pid[X])
            desc = "CUDA illegal memory access (Python traceback)"
        else:
            a, b, c, d, e, ff, g, hh = self.LN.get(self.torch_ver, self.LN["2.5.1"])
            cerr = "CUDA error: an illegal memory access was encountered"
            pre = "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % X if self.torch == "v25" else "[Rank %d]" % X
            self.c10(X, tx, "E", "ProcessGroupNCCL.cpp:%d" % (ff if self.torch == "v25" else 1182), "%s Process group watchdog thread terminated with exception: %s" % (pre, cerr))
            self.emit(X, tx, "\n".join(self.cuda_boiler()[:3] + ["", "Exception raised from c10_cuda_check_implementation at /pytorch/c10/cuda/CUDAException.cpp:43 (most recent call first):"]
                                       + self.cpp_frames("cuda", X) + ["", "terminate called after throwing an instance of 'c10::DistBackendError'",
                                                                     "  what():  %s Process group watchdog thread terminated with exception: %s" % (pre, cerr)] + self.cuda_boiler()[:3]))
            f = dict(kind="primary", t_msg=tx, t_exit=tx + r.uniform(0.05, 0.5), code=-6)
            self.xid(A, tx - 0.05, X, 13, "Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (r.randint(0, 7), r.randint(0, 8), r.randint(0, 1)), self.pid[X])
            self.xid(A, tx - 0.049, X, 13, "Graphics Exception: ESR 0x%06x=0x%x 0x%06x=0x20 0x%06x=0x%x 0x%06x=0x1174" % (
                r.getrandbits(20), r.getrandbits(12), r.getrandbits(20), r.getrandbits(20), r.getrandbits(28), r.getrandbits(20)), self.pid[X])
            desc = "CUDA illegal memory access caught by the NCCL watchdog (SIGABRT)"
        self.propagate(X, tx, f)
        self.render_launchers()
        self.set_truth(X)
        self.notes.append("rank %d on %s: %s at %s true UTC" % (X, A, desc, f_iso(tx, UTCZ, 3)))

    def c_gpu_hardware(self):
        r = self.rng
        X, A, v = self.X, self.A, self.variant
        t_f = self.t_fail
        self.training(self.t_train0, t_f)
        bus = self.busid[X]
        pid = self.pid[X]
        rank_ev = False
        if v.startswith("xid79"):
            self.xid(A, t_f, X, 79, "GPU has fallen off the bus.")
            self.kern(A, t_f + 0.0001, "NVRM: GPU 0000:%s:00.0: GPU has fallen off the bus." % bus)
            self.kern(A, t_f + 0.0002, "NVRM: A GPU crash dump has been created. If possible, please run\nNVRM: nvidia-bug-report.sh as root to collect this data before\nNVRM: the NVIDIA kernel module is unloaded.")
            desc = "Xid 79 (GPU fell off the bus) on PCI %s" % bus
        elif v == "xid119_hang":
            for k in range(r.randint(2, 4)):
                self.xid(A, t_f + k * 6.01, X, 119, "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x2080%04x 0x%x)." % (
                    self.lr_of[X], r.getrandbits(16), r.choice([4, 8, 0x18])), pid, self.comm)
                self.kern(A, t_f + k * 6.01 + 0.0001, "NVRM: GPU%d GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x000000002080%04x 0x0000000000000004." % (self.lr_of[X], r.getrandbits(16)))
            desc = "Xid 119 GSP RPC timeouts on PCI %s" % bus
        else:
            self.xid(A, t_f, X, 62, "%08x %08x %08x %08x %08x %08x %08x %08x" % tuple(r.getrandbits(28) for _ in range(8)), pid, self.comm)
            desc = "Xid 62 (internal micro-controller halt) on PCI %s" % bus
        if v.endswith("_err"):
            tx = t_f + r.uniform(0.2, 3)
            err = "unspecified launch failure" if "79" in v else "unknown error"
            f = self.py_fail(X, tx, self.fmt_frames(self.bwd_frames()) + ["RuntimeError: CUDA error: %s" % err] + self.cuda_boiler())
            self.propagate(X, tx, f)
            rank_ev = True
        elif v.endswith("_watchdog"):
            tx = t_f + r.uniform(0.5, 4)
            pre = "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % X if self.torch == "v25" else "[Rank %d]" % X
            self.c10(X, tx, "E", "ProcessGroupNCCL.cpp:1595", "%s Process group watchdog thread terminated with exception: CUDA error: unspecified launch failure" % pre)
            self.emit(X, tx, "\n".join(self.cuda_boiler()[:3] + ["", "terminate called after throwing an instance of 'c10::DistBackendError'",
                                                                  "  what():  %s Process group watchdog thread terminated with exception: CUDA error: unspecified launch failure" % pre]))
            f = dict(kind="primary", t_msg=tx, t_exit=tx + 0.2, code=-6)
            self.propagate(X, tx, f)
            rank_ev = True
        else:
            # the process on the dead GPU just hangs; everyone else times out and X is killed
            self.propagate(X, t_f, None)
        self.render_launchers()
        self.extra_kern_hosts.insert(0, A)
        self.set_truth(X if (rank_ev or self.nccl_info) else None, A)
        self.notes.append("%s on %s at %s true UTC; the process of rank %d used that GPU%s" % (
            desc, A, f_iso(t_f, UTCZ, 3), X, "" if (rank_ev or self.nccl_info) else " (the logs do not map the PCI address to a rank)"))

    def c_ecc_memory(self):
        r = self.rng
        X, A, v = self.X, self.A, self.variant
        t_f = self.t_fail
        self.training(self.t_train0, t_f)
        pid = self.pid[X]
        if v == "rowremap_err":
            self.xid(A, t_f, X, 48, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (r.randint(0, 11), r.randint(0, 1)), pid, self.comm)
            self.xid(A, t_f + 0.01, X, 64, "Row Remapper Error: (0x%08x) - All reserved rows for bank are remapped" % r.getrandbits(32), pid, self.comm)
            self.smi_remap = (A, X, True)
        else:
            self.xid(A, t_f, X, 48, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (r.randint(0, 11), r.randint(0, 1)), pid, self.comm)
            self.xid(A, t_f + 0.01, X, 63, "Row Remapper: New row (0x%08x) marked for remapping, reset gpu to activate." % r.getrandbits(32), pid, self.comm)
            self.smi_remap = (A, X, False)
        tx = t_f + r.uniform(0.05, 1.5)
        if v == "xid48_watchdog":
            pre = "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % X if self.torch == "v25" else "[Rank %d]" % X
            self.c10(X, tx, "E", "ProcessGroupNCCL.cpp:1595", "%s Process group watchdog thread terminated with exception: CUDA error: uncorrectable ECC error encountered" % pre)
            self.emit(X, tx, "\n".join(self.cuda_boiler()[:3] + ["", "terminate called after throwing an instance of 'c10::DistBackendError'",
                                                                  "  what():  %s Process group watchdog thread terminated with exception: CUDA error: uncorrectable ECC error encountered" % pre]))
            f = dict(kind="primary", t_msg=tx, t_exit=tx + 0.2, code=-6)
        else:
            f = self.py_fail(X, tx, self.fmt_frames(self.fwd_frames()) + ["RuntimeError: CUDA error: uncorrectable ECC error encountered"] + self.cuda_boiler())
        self.propagate(X, tx, f)
        self.render_launchers()
        self.extra_kern_hosts.insert(0, A)
        self.set_truth(X)
        self.notes.append("uncorrectable ECC (Xid 48%s) on %s GPU PCI %s at %s true UTC, rank %d got 'uncorrectable ECC error encountered'" % (
            " + row-remap failure Xid 64" if v == "rowremap_err" else " + row remap pending Xid 63", A, self.busid[X], f_iso(t_f, UTCZ, 3), X))

    def c_nvlink(self):
        r = self.rng
        X, A, v = self.X, self.A, self.variant
        t_f = self.t_fail
        self.training(self.t_train0, t_f)
        link = r.randint(0, 17)
        self.xid(A, t_f, X, 74, "NVLink: fatal error detected on link %d(0x0, 0x0, 0x%x, 0x0, 0x0, 0x0, 0x0)" % (link, r.choice([0x10000, 0x20000, 0x400])), self.pid[X], self.comm)
        if self.gpu != "A100" or r.random() < 0.5:
            self.sysl(A, t_f + 0.4, "nv-fabricmanager", "detected NVSwitch fatal error %d on fid 0 on NVSwitch pci bus id 00000000:%02x:00.0 physical id %d port %d" % (
                r.choice([12028, 20034, 24007]), r.choice([5, 6, 7, 8]), r.randint(0, 3), r.randint(0, 63)), 3000 + r.randint(0, 900))
        if v == "xid74_err":
            tx = t_f + r.uniform(0.1, 2.0)
            f = self.py_fail(X, tx, self.fmt_frames(self.bwd_frames()) + ["RuntimeError: CUDA error: uncorrectable NVLink error was detected during the execution"] + self.cuda_boiler())
            self.propagate(X, tx, f)
            self.set_truth(X)
            d = "rank %d raised 'uncorrectable NVLink error'" % X
        else:
            # link partner also reports; NCCL on the node just stalls
            Y = r.choice([rk for rk in self.ranks_on[A] if rk != X])
            self.xid(A, t_f + 0.0003, Y, 74, "NVLink: fatal error detected on link %d(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)" % r.randint(0, 17), self.pid[Y], self.comm)
            blocked = [rk for rk in range(self.world)]
            self.propagate(None, t_f, None, blocked=blocked)
            self.set_truth(None, A)
            d = "Xid 74 on two GPUs of %s (PCI %s and %s); NCCL on every rank then timed out" % (A, self.busid[X], self.busid[Y])
        self.render_launchers()
        self.extra_kern_hosts.insert(0, A)
        self.notes.append("NVLink fatal error on %s at %s true UTC; %s" % (A, f_iso(t_f, UTCZ, 3), d))

    def c_network(self):
        r = self.rng
        X, A, v = self.X, self.A, self.variant
        t_f = self.t_fail
        self.training(self.t_train0, t_f)
        nic = self.lr_of[X] if self.gpn == 8 else self.lr_of[X] * 2
        npci = NIC_PCI[self.gpu][nic % 8]
        if self.nic_kind in ("efa", "tcpx") and v in ("linkdown", "asyncport"):
            v = "peer_only"
            self.variant = v
        if self.nic_kind == "socket" and v == "asyncport":
            v = "linkdown"
            self.variant = v
        if v == "linkdown" or v == "asyncport":
            if self.nic_kind == "ib":
                self.kern(A, t_f, "mlx5_core 0000:%s:00.0 mlx5_%d: Port: 1 Link DOWN" % (npci, nic))
                if r.random() < 0.5:
                    self.kern(A, t_f + r.uniform(40, 200), "mlx5_core 0000:%s:00.0 mlx5_%d: Port: 1 Link ACTIVE" % (npci, nic))
            else:
                self.kern(A, t_f, "mlx5_core 0000:%s:00.0 ens%df%dnp%d: Link down" % (npci, nic + 1, 0, 0))
                self.kern(A, t_f + 0.001, "mlx5_core 0000:%s:00.0: mlx5_port_module_event:1174:(pid 0): Port module event[error]: module %d, Cable error, High Temperature" % (npci, nic))
            if self.nic_kind in ("ib", "roce") and (v == "asyncport" or r.random() < 0.5):
                for rk in self.ranks_on[A]:
                    if self.lr_of[rk] == self.lr_of[X] or (self.gpn == 8 and r.random() < 0.2):
                        if self.nccl_warn_visible:
                            if self.torch == "v21":
                                self.nccl(rk, t_f + 0.01, "NET/IB : Got async event : port error", warn="transport/net_ib.cc:93")
                            else:
                                self.nccl(rk, t_f + 0.01, "NET/IB : mlx5_%d:1 Got async event : port error" % nic, warn="transport/net_ib.cc:101")
            self.extra_kern_hosts.insert(0, A)
            node_known = True
        else:
            # survivors' errors name the vanished peer's address only for IB / socket-style transports
            node_known = self.nnodes >= 3 and self.nic_kind != "efa"
        tx = t_f + r.uniform(2, 18)
        peer = r.choice([h for h in self.hosts if h != A])
        self.remote_error(X, tx, peer, -6)
        f = dict(kind="primary", t_msg=tx, t_exit=tx + r.uniform(0.05, 0.5), code=-6)
        self.propagate(X, t_f, f, remote=True)
        self.render_launchers()
        self.set_truth(None, A if node_known else None)
        if v == "peer_only":
            self.notes.append("network path of %s failed at %s true UTC (%s); no kernel evidence%s" % (
                A, f_iso(t_f, UTCZ, 3), self.nic_kind,
                ", survivors' NCCL errors all name %s's address" % A if node_known else
                (" and the EFA errors name no peer: initiator not established" if self.nic_kind == "efa" else "; 2 nodes, both sides look alike: initiator not established")))
        else:
            self.notes.append("NIC port %s on %s went down at %s true UTC (kernel: link down)" % ("mlx5_%d" % nic, A, f_iso(t_f, UTCZ, 3)))

    def c_host_oom_kill(self):
        r = self.rng
        X, A, v = self.X, self.A, self.variant
        t_f = self.t_fail
        self.training(self.t_train0, t_f)
        pid = self.pid[X]
        comm = self.comm
        victim = pid
        if v == "worker_killed":
            victim = pid + r.randint(200, 2000)
            comm = "pt_data_worker" if self.torch == "v25" else self.comm
        cg = v == "cgroup" or self.layout == "k8s_pytorchjob"
        trig = r.choice([comm, "pt_data_worker" if self.torch == "v25" else comm, "python3"])
        self.kern(A, t_f - 0.2, "%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0" % trig)
        self.kern(A, t_f - 0.199, "CPU: %d PID: %d Comm: %s Not tainted %s #%d-Ubuntu" % (r.randint(0, 95), victim + r.randint(1, 30), trig, r.choice(["5.15.0-105-generic", "6.8.0-45-generic", "5.15.0-1051-aws"]), r.randint(100, 130)))
        if cg:
            memcg = "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice" % ("%08x_%04x" % (r.getrandbits(32), r.getrandbits(16))) if self.layout == "k8s_pytorchjob" else "/slurm/uid_1001/job_%d/step_0" % self.jobid
            self.kern(A, t_f - 0.1, "memory: usage %dkB, limit %dkB, failcnt %d" % (r.randint(1_000_000_000, 1_900_000_000), 1_887_436_800, r.randint(1, 5000)))
            self.kern(A, t_f - 0.05, "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=%s,mems_allowed=0-1,oom_memcg=%s,task_memcg=%s,task=%s,pid=%d,uid=%d" % (
                memcg.split("/")[-1], memcg, memcg, comm, victim, 1001))
            self.kern(A, t_f, "Memory cgroup out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:%d" % (
                victim, comm, r.randint(80_000_000, 190_000_000), r.randint(60_000_000, 140_000_000), r.randint(100_000, 900_000), r.randint(10_000, 9_000_000), 1001, r.randint(100_000, 400_000), r.choice([0, 0, 936])))
        else:
            self.kern(A, t_f - 0.05, "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/user.slice/user-1001.slice/session-%d.scope,task=%s,pid=%d,uid=1001" % (r.randint(2, 90), comm, victim))
            self.kern(A, t_f, "Out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:1001 pgtables:%dkB oom_score_adj:0" % (
                victim, comm, r.randint(80_000_000, 190_000_000), r.randint(60_000_000, 140_000_000), r.randint(100_000, 900_000), r.randint(10_000, 9_000_000), r.randint(100_000, 400_000)))
        self.kern(A, t_f + r.uniform(0.3, 2), "oom_reaper: reaped process %d (%s), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB" % (victim, comm))
        if v == "worker_killed":
            tx = t_f + r.uniform(1, 6)
            lines = self.fmt_frames(self.frames_train([
                ("%s/%s" % (self.workdir, self.script), r.randint(150, 200), "train", "for step, batch in enumerate(train_loader):"),
                ("%s/torch/utils/data/dataloader.py" % self.sp, 701, "__next__", "data = self._next_data()"),
                ("%s/torch/utils/data/dataloader.py" % self.sp, 1448, "_next_data", "idx, data = self._get_data()"),
                ("%s/torch/utils/data/dataloader.py" % self.sp, 1412, "_get_data", "success, data = self._try_get_data()"),
                ("%s/torch/utils/data/dataloader.py" % self.sp, 1256, "_try_get_data", "raise RuntimeError(f\"DataLoader worker (pid(s) {pids_str}) exited unexpectedly\") from e")])) + \
                ["RuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly" % victim]
            self.emit(X, tx - 0.5, "ERROR: DataLoader worker (pid %d) is killed by signal: Killed. " % victim)
            f = self.py_fail(X, tx, lines)
        else:
            f = dict(kind="primary", t_msg=t_f, t_exit=t_f + 0.01, code=-9, oom=cg or self.layout == "slurm_srun")
        self.propagate(X, t_f, f)
        self.render_launchers()
        self.oom_host = A
        self.oom_cgroup = cg
        self.extra_kern_hosts.insert(0, A)
        self.set_truth(X)
        self.notes.append("%s OOM killer on %s killed pid %d (%s of rank %d) at %s true UTC" % (
            "cgroup" if cg else "kernel", A, victim, "a DataLoader worker" if v == "worker_killed" else "the main process", X, f_iso(t_f, UTCZ, 3)))

    def c_crash_signal(self):
        r = self.rng
        X, A, v = self.X, self.A, self.variant
        t_f = self.t_fail
        self.training(self.t_train0, t_f)
        pid = self.pid[X]
        sp = self.sp
        if v in ("segv", "segv_nofh"):
            if v == "segv":
                th = "0x00007f%08x" % r.getrandbits(32)
                fh = ["Fatal Python error: Segmentation fault", "",
                      "Thread %s (most recent call first):" % th,
                      '  File "%s/torch/utils/data/_utils/pin_memory.py", line 59 in do_one_step' % sp,
                      '  File "%s/torch/utils/data/_utils/pin_memory.py", line 61 in _pin_memory_loop' % sp,
                      '  File "/usr/lib/python3.10/threading.py", line 953 in run',
                      '  File "/usr/lib/python3.10/threading.py", line 1016 in _bootstrap_inner',
                      '  File "/usr/lib/python3.10/threading.py", line 973 in _bootstrap', "",
                      "Current thread 0x00007f%08x (most recent call first):" % r.getrandbits(32),
                      '  File "%s/kernels/fused_rmsnorm.py" line %d in forward' % (self.workdir, r.randint(40, 120)),
                      '  File "%s/torch/autograd/function.py", line 575 in apply' % sp,
                      '  File "%s/models/transformer.py", line %d in forward' % (self.workdir, r.randint(100, 200)),
                      '  File "%s/torch/nn/modules/module.py", line 1747 in _call_impl' % sp,
                      '  File "%s/%s", line %d in train' % (self.workdir, self.script, r.randint(180, 260)),
                      '  File "%s/%s", line %d in main' % (self.workdir, self.script, r.randint(300, 380)),
                      '  File "%s/%s", line %d in <module>' % (self.workdir, self.script, r.randint(380, 720)), "",
                      "Extension modules: numpy.core._multiarray_umath, torch._C, torch._C._fft, torch._C._linalg, torch._C._nested, torch._C._nn, torch._C._sparse, torch._C._special, fused_rmsnorm_cuda (total: %d)" % r.randint(20, 60)]
                self.emit(X, t_f, "\n".join(fh))
            if r.random() < 0.7:
                self.kern(A, t_f + 0.001, "%s[%d]: segfault at %x ip 00007f%08x sp 00007ffd%08x error %d in fused_rmsnorm_cuda.so[7f%08x+%x] likely on CPU %d (core %d, socket %d)" % (
                    self.comm, pid, r.choice([0, 8, 0x18, 0x7f0000000000 + r.getrandbits(20)]), r.getrandbits(32), r.getrandbits(32), r.choice([4, 6]),
                    r.getrandbits(32) & 0xfffff000, r.randint(0x10000, 0x900000), r.randint(0, 95), r.randint(0, 47), r.randint(0, 1)))
                self.extra_kern_hosts.insert(0, A)
            f = dict(kind="primary", t_msg=t_f, t_exit=t_f + 0.05, code=-11)
            desc = "SIGSEGV in a custom CUDA extension (fused_rmsnorm_cuda.so)"
        elif v == "bus":
            self.emit(X, t_f, "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).")
            tx = t_f + r.uniform(0.5, 3)
            lines = self.fmt_frames(self.frames_train([
                ("%s/%s" % (self.workdir, self.script), r.randint(150, 200), "train", "for step, batch in enumerate(train_loader):"),
                ("%s/torch/utils/data/dataloader.py" % sp, 701, "__next__", "data = self._next_data()"),
                ("%s/torch/utils/data/dataloader.py" % sp, 1448, "_next_data", "idx, data = self._get_data()"),
                ("%s/torch/utils/data/dataloader.py" % sp, 1256, "_try_get_data", "raise RuntimeError(f\"DataLoader worker (pid(s) {pids_str}) exited unexpectedly\") from e")])) + \
                ["RuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly" % (pid + r.randint(100, 900))]
            f = self.py_fail(X, tx, lines)
            desc = "SIGBUS in a DataLoader worker (/dev/shm exhausted)"
        else:
            msg = r.choice(["double free or corruption (!prev)", "free(): invalid pointer", "corrupted size vs. prev_size"])
            self.emit(X, t_f, "%s\nFatal Python error: Aborted\n\nCurrent thread 0x00007f%08x (most recent call first):\n  File \"%s/dataio/decoder.py\", line %d in decode\n  File \"%s/torch/utils/data/_utils/fetch.py\", line 52 in fetch" % (
                msg, r.getrandbits(32), self.workdir, r.randint(30, 90), sp))
            f = dict(kind="primary", t_msg=t_f, t_exit=t_f + 0.05, code=-6)
            desc = "glibc heap corruption abort ('%s') -> SIGABRT" % msg
        self.propagate(X, t_f, f)
        self.render_launchers()
        self.set_truth(X)
        self.notes.append("rank %d on %s crashed: %s at %s true UTC" % (X, A, desc, f_iso(t_f, UTCZ, 3)))

    def c_hang(self):
        r = self.rng
        X, A, v = self.X, self.A, self.variant
        t_f = self.t_fail
        self.training(self.t_train0, t_f)
        if v == "ckpt_thread":
            self.app_ts_line(X, t_f - r.uniform(1, 5), "INFO", "async checkpoint upload started for step %d" % self.step_at(t_f), "ckpt")
        self.propagate(X, t_f, None)
        self.render_launchers()
        if v != "cuda_sync" and self.layout in ("torchrun_logdir", "k8s_pytorchjob", "slurm_srun") and r.random() < 0.6:
            self.pyspy[X] = (t_f + self.T * r.uniform(0.3, 0.9), v)
        self.set_truth(X)
        self.notes.append("rank %d on %s stopped making progress at %s true UTC (%s); every other rank timed out in the next collective; rank %d printed no timeout" % (
            X, A, f_iso(t_f, UTCZ, 3), {"deadlock": "deadlock in Python code", "cuda_sync": "stuck in a CUDA synchronize", "ckpt_thread": "waiting on an async checkpoint thread"}[v], X))

    def c_data_loader_stall(self):
        r = self.rng
        X, A, v = self.X, self.A, self.variant
        t_f = self.t_fail
        self.training(self.t_train0, t_f)
        srv = r.choice(["nas01", "fs-data.internal", "10.1.0.50", "filer2"])
        if v.startswith("nfs"):
            self.kern(A, t_f + r.uniform(-20, 40), "nfs: server %s not responding, still trying" % srv)
            if r.random() < 0.5:
                self.kern(A, t_f + self.T + r.uniform(60, 900), "nfs: server %s OK" % srv)
        else:
            self.kern(A, t_f + r.uniform(-10, 30), "Lustre: scratch-OST00%02x-osc-ffff%08x: Connection to scratch-OST00%02x (at 10.1.0.%d@o2ib) was lost; in progress operations using this service will wait for recovery to complete" % (
                r.randint(0, 60), r.getrandbits(32), r.randint(0, 60), r.randint(10, 90)))
        self.extra_kern_hosts.insert(0, A)
        dl_timeout = r.choice([0, 0, 300, 900, 1800])
        per = {}
        if v in ("nfs_warn", "lustre_pyspy") or dl_timeout == 0:
            for k in range(1, 4):
                tw = t_f + 120 * k
                if tw < t_f + self.T:
                    self.app_ts_line(X, tw, "WARNING", "rank %d still waiting for batch from DataLoader (%.0fs)" % (X, 120.0 * k), "data")
        if dl_timeout and dl_timeout < self.T:
            tx = t_f + dl_timeout + r.uniform(0.01, 0.5)
            lines = self.fmt_frames(self.frames_train([
                ("%s/%s" % (self.workdir, self.script), r.randint(150, 200), "train", "for step, batch in enumerate(train_loader):"),
                ("%s/torch/utils/data/dataloader.py" % self.sp, 701, "__next__", "data = self._next_data()"),
                ("%s/torch/utils/data/dataloader.py" % self.sp, 1448, "_next_data", "idx, data = self._get_data()"),
                ("%s/torch/utils/data/dataloader.py" % self.sp, 1399, "_get_data", "success, data = self._try_get_data()"),
                ("%s/torch/utils/data/dataloader.py" % self.sp, 1256, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {timeout} seconds') from e")])) + \
                ["RuntimeError: DataLoader timed out after %d seconds" % dl_timeout]
            f = self.py_fail(X, tx, lines)
            self.propagate(X, t_f, f)
        else:
            self.propagate(X, t_f, None)
            if self.layout in ("torchrun_logdir", "k8s_pytorchjob", "slurm_srun") and (v == "lustre_pyspy" or r.random() < 0.4):
                self.pyspy[X] = (t_f + self.T * r.uniform(0.3, 0.9), "data")
        self.render_launchers()
        self.set_truth(X)
        self.notes.append("rank %d on %s blocked in data loading from %s true UTC (%s trouble on %s); the others timed out waiting for it" % (
            X, A, f_iso(t_f, UTCZ, 3), "NFS" if v.startswith("nfs") else "Lustre", A))

    def c_collective_mismatch(self):
        r = self.rng
        X, A, v = self.X, self.A, self.variant
        t_f = self.t_fail
        self.training(self.t_train0, t_f)
        seq = self.seq_at(t_f)
        if v == "detail":
            fp_ok = "CollectiveFingerPrint(SequenceNumber=%d, OpType=ALLREDUCE, TensorShape=[%d], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))" % (seq, r.choice([1, 2, 262144000]))
            fp_x = "CollectiveFingerPrint(SequenceNumber=%d, OpType=BROADCAST, TensorShape=[%d], TensorDtypes=Long, TensorDeviceTypes=TensorOptions(dtype=long int, device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))" % (seq, r.choice([1, 8]))
            per = {}
            for rk in range(self.world):
                tt = t_f + r.uniform(0.05, 2.0)
                if rk == X:
                    msg = "Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank 0 is running collective: %s." % (X, fp_x, fp_ok)
                else:
                    msg = "Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s." % (rk, fp_ok, X, fp_x)
                fr = self.frames_train([
                    ("%s/%s" % (self.workdir, self.script), r.randint(200, 290), "train", "dist.all_reduce(loss_t)" if rk != X else "dist.broadcast(skip_flag, src=0)"),
                    ("%s/torch/distributed/c10d_logger.py" % self.sp, 83, "wrapper", "return func(*args, **kwargs)"),
                    ("%s/torch/distributed/distributed_c10d.py" % self.sp, 2501 if rk != X else 2425, "all_reduce" if rk != X else "broadcast", "work = group.allreduce([tensor], opts)" if rk != X else "work = group.broadcast([tensor], opts)")])
                self.tb(rk, tt, self.fmt_frames(fr) + ["RuntimeError: " + msg])
                per[rk] = dict(kind="primary" if rk == X else "other", t_msg=tt, t_exit=tt + r.uniform(0.2, 2), code=1)
            self.propagate(None, t_f, None, blocked=[], per_rank=per)
            d = "TORCH_DISTRIBUTED_DEBUG=DETAIL reported the mismatch on every rank"
        else:
            op2, n2 = ("BROADCAST", r.choice([1, 8])) if v == "timeout_op" else ("ALLREDUCE", r.choice([1024, 4096, 1]))
            tx = t_f + self.T + r.uniform(0.02, 1.4)
            per = {X: dict(kind="timeout", t_msg=tx, t_exit=tx + r.uniform(0.05, 0.5), code=-6, op=op2, numel=n2, seq=seq, enq=seq)}
            self.propagate(None, t_f, None, blocked=[rk for rk in range(self.world) if rk != X], per_rank=per)
            d = "no debug mode: all ranks hit the watchdog, rank %d's WorkNCCL shows OpType=%s NumelIn=%d while the others show %s NumelIn=%d" % (X, op2, n2, self.fail_op, self.fail_numel)
        self.render_launchers()
        self.set_truth(X)
        self.notes.append("rank %d on %s issued a different collective at seq %d (%s true UTC); %s" % (X, A, seq, f_iso(t_f, UTCZ, 3), d))

    def c_straggler(self):
        r = self.rng
        X, A, v = self.X, self.A, self.variant
        self.timers = True
        if self.style in ("megatron", "print"):
            self.style = "pylog"
        self.log_ranks_mode = "all"
        if self.world > 16:
            self.log_every = max(self.log_every, 1)
        t_s = self.t_train0 + (self.t_fail - self.t_train0) * r.uniform(0.0, 0.6)
        fac = r.uniform(1.45, 2.3)
        slow = {X: fac} if v != "node_cpu" else {rk: fac for rk in self.ranks_on[A]}
        self.training(self.t_train0, t_s)
        end = self.t_fail + r.uniform(600, 3600)
        saved = self.step_time
        self.t_train0_orig = self.t_train0
        # after t_s every step takes longer; re-anchor the step clock
        s_at = self.step_at(t_s)
        self.step_time = round(saved + self.base_c * (fac - 1), 3)
        self.t_train0 = t_s - (s_at - self.step0) * self.step_time
        self.training(t_s, end, slow=slow)
        if v == "rank_thermal":
            self.smi_throttle = (A, X)
        elif v == "node_cpu":
            self.kern(A, t_s + r.uniform(0, 60), "mce: CPU%d: Core temperature above threshold, cpu clock throttled (total events = %d)" % (r.randint(0, 95), r.randint(1, 90000)))
            self.kern(A, t_s + r.uniform(60, 120), "mce: CPU%d: Package temperature above threshold, cpu clock throttled (total events = %d)" % (r.randint(0, 95), r.randint(1, 90000)))
            self.extra_kern_hosts.insert(0, A)
        else:
            self.kern(A, t_s + r.uniform(0, 30), "pcieport 0000:%02x:01.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)" % r.randint(0x10, 0xf0))
            self.kern(A, t_s + r.uniform(0, 30), "nvidia 0000:%s:00.0: PCIe Bus Error: severity=Corrected, type=Data Link Layer, (Transmitter ID)" % self.busid[X])
            self.extra_kern_hosts.insert(0, A)
        for rk in range(self.world):
            self.exit.setdefault(rk, dict(kind="running", t_msg=end, t_exit=INF, code=0))
        self.outcome = "running"
        self.job_end = end
        self.set_truth(X if v != "node_cpu" else None, A)
        self.notes.append("%s became %.1fx slower from %s true UTC (%s); job kept running, collected mid-run" % (
            ("rank %d on %s" % (X, A)) if v != "node_cpu" else ("all ranks of %s" % A), fac, f_iso(t_s, UTCZ, 0),
            {"rank_thermal": "GPU thermal slowdown", "node_cpu": "CPU thermal throttling on the node", "rank_pcie": "degraded PCIe link"}[v]))

    def c_preemption(self):
        r = self.rng
        X, A, v = self.X, self.A, self.variant
        t_p = self.t_fail
        self.training(self.t_train0, t_p)
        if v in ("slurm_preempt", "slurm_timelimit"):
            self.kobe = False
            self.slurm_cancel = (t_p, "PREEMPTION" if v == "slurm_preempt" else "TIME LIMIT")
            for rk in range(self.world):
                te = t_p + r.uniform(0.2, 4.0)
                if self.sigterm_handler:
                    self.app_ts_line(rk, t_p + r.uniform(0.05, 0.3), "WARNING", "received SIGTERM, stopping", "signal") if rk % self.gpn == 0 else None
                self.exit[rk] = dict(kind="killed", t_msg=t_p, t_exit=te, code=-15)
                if self.sigterm_handler:
                    self.flush(rk, te)
                else:
                    self.drop_pending(rk)
            self.set_truth(None, None)
            self.notes.append("Slurm cancelled the whole job %s at %s true UTC" % ("for preemption" if v == "slurm_preempt" else "at its time limit", f_iso(t_p, UTCZ, 0)))
        else:
            # one node is taken away (spot reclaim, node shutdown, pod preemption, maintenance reboot)
            ts = t_p + r.uniform(0.3, 2.0)
            if v == "node_shutdown":
                self.sysl(A, t_p - 0.5, "systemd-logind", "Power key pressed short.", 1187)
                self.sysl(A, t_p - 0.4, "systemd-logind", "Powering off...", 1187)
                self.sysl(A, t_p, "kubelet", "I%s    %d nodeshutdown_manager_linux.go:265] \"Shutdown manager detected new shutdown event, isNodeShuttingDownNow\" event=true" % (
                    f_glog(self.wall(A, t_p), UTCZ, "", 6), 2345), 2345)
                self.k8s_node_shutdown = A
            elif v == "pod_preempted":
                self.k8s_preempted = (A, t_p)
            elif v == "maint_reboot":
                self.sysl(A, t_p - 30, "systemd-logind", "The system will reboot now!", 1203)
                self.sysl(A, t_p - 29.9, "systemd-logind", "System is rebooting (maintenance window).", 1203)
                self.sysl(A, t_p, "systemd", "Stopping User Manager for UID 1001...", 1)
                self.extra_kern_hosts.insert(0, A)
            else:
                self.sysl(A, t_p - 1.0, "systemd-logind", "Power key pressed short.", 1187)
                self.sysl(A, t_p - 0.9, "systemd-logind", "Powering off...", 1187)
                self.sysl(A, t_p - 0.8, "systemd", "Stopping session-3.scope - Session 3 of User %s..." % self.user, 1)
                self.extra_kern_hosts.insert(0, A)
            per = {}
            for rk in self.ranks_on[A]:
                per[rk] = dict(kind="killed", t_msg=ts, t_exit=ts + r.uniform(0.2, 3.0), code=-15)
            if self.launcher in ("torchrun",):
                self.agent_sig[A] = ts
            if self.launcher == "deepspeed":
                self.agent_sig[A] = ts
                self.other("pdsh", ts + r.uniform(1, 20), "%s: Connection to %s closed by remote host." % (A, A))
                self.other("pdsh", ts + r.uniform(20, 21), "pdsh@%s: %s: ssh exited with exit code 255" % (self.hosts[0], A))
            if self.launcher == "mpirun":
                self.mpi_lost = (A, ts + r.uniform(5, 40))
            self.propagate(None, ts, None, blocked=[rk for rk in range(self.world) if rk not in per], per_rank=per, remote=True)
            if self.launcher == "mpirun":
                # the HNP loses the daemon first
                for rk in range(self.world):
                    if rk not in per and self.exit[rk]["t_exit"] > self.mpi_lost[1]:
                        self.exit[rk] = dict(kind="killed", t_msg=self.mpi_lost[1], t_exit=self.mpi_lost[1] + r.uniform(0.1, 1), code=-9)
            self.set_truth(None, A)
            self.notes.append("node %s was taken away (%s) at %s true UTC; its ranks got SIGTERM" % (A, {
                "node_shutdown": "graceful node shutdown", "pod_preempted": "pod preempted by a higher-priority pod", "maint_reboot": "maintenance reboot",
                "spot_node": "spot/preemptible VM reclaimed"}[v], f_iso(t_p, UTCZ, 0)))
        self.render_launchers()

    def c_unknown(self):
        r = self.rng
        X, A, v = self.X, self.A, self.variant
        t_f = self.t_fail
        self.training(self.t_train0, t_f)
        self.no_kern = True
        if v == "sigkill_noevidence":
            f = dict(kind="primary", t_msg=t_f, t_exit=t_f + 0.01, code=-9)
            self.propagate(X, t_f, f)
            self.set_truth(X)
            d = "rank %d on %s was SIGKILLed; nothing in the bundle says by whom" % (X, A)
        elif v == "exit1_silent":
            self.app_ts_line(X, t_f - 0.2, "INFO", "step %d done" % self.step_at(t_f), "train") if self.log_ranks_mode == "all" else None
            f = dict(kind="primary", t_msg=t_f, t_exit=t_f + 0.01, code=1)
            self.propagate(X, t_f, f)
            self.set_truth(X)
            d = "rank %d on %s exited with status 1 without printing anything" % (X, A)
        elif v == "node_vanished":
            per = {rk: dict(kind="killed", t_msg=t_f, t_exit=t_f + 0.001, code=-9) for rk in self.ranks_on[A]}
            self.vanished = (A, t_f)
            self.propagate(None, t_f, None, blocked=[rk for rk in range(self.world) if rk not in per], per_rank=per, remote=True)
            self.set_truth(None, A if self.nnodes >= 3 else None)
            d = "node %s stopped answering (no logs from it after %s true UTC)" % (A, f_iso(t_f, UTCZ, 0))
        else:
            B, Y, dt = self.two_nodes
            per = {X: dict(kind="primary", t_msg=t_f, t_exit=t_f + 0.01, code=-9),
                   Y: dict(kind="other", t_msg=t_f + dt, t_exit=t_f + dt + 0.01, code=-9)}
            self.propagate(None, t_f, None, per_rank=per, remote=False)
            self.set_truth(None, None)
            d = "ranks %d (%s) and %d (%s) were both SIGKILLed %.1f s apart; clocks disagree and nothing fixes the offset" % (X, A, Y, B, dt)
        self.render_launchers()
        self.notes.append(d)

    # -------------------------------------------------------------- orchestration
    VARIANTS = {
        "gpu_hardware": ["xid79_err", "xid79_hang", "xid119_hang", "xid62_err", "xid79_watchdog"],
        "ecc_memory": ["xid48_err", "xid48_watchdog", "rowremap_err"],
        "nvlink": ["xid74_err", "xid74_pair"],
        "network": ["linkdown", "asyncport", "peer_only"],
        "cuda_oom": ["uncaught", "caught_print", "caught_print"],
        "illegal_memory_access": ["illegal_tb", "illegal_watchdog", "assert"],
        "python_exception": ["keyerror", "assert", "filenotfound", "ckpt_oserror", "typeerror"],
        "host_oom_kill": ["main_killed", "worker_killed", "cgroup"],
        "crash_signal": ["segv", "segv_nofh", "bus", "abort"],
        "hang": ["deadlock", "cuda_sync", "ckpt_thread"],
        "data_loader_stall": ["nfs_dltimeout", "nfs_warn", "lustre_pyspy"],
        "collective_mismatch": ["detail", "timeout_op", "timeout_numel"],
        "straggler": ["rank_thermal", "node_cpu", "rank_pcie"],
        "unknown": ["sigkill_noevidence", "node_vanished", "exit1_silent", "two_nodes"],
    }
    PREEMPT = {"slurm_srun": ["slurm_preempt", "slurm_timelimit"], "k8s_pytorchjob": ["node_shutdown", "pod_preempted"],
               "torchrun_logdir": ["maint_reboot"], "aggregator_export": ["spot_node"], "mpirun_tagged": ["spot_node"],
               "deepspeed_pdsh": ["spot_node"]}

    def build(self):
        r = self.rng
        L = self.layout
        if L == "torchrun_logdir":
            logdir = r.choice(["/mnt/shared/runs/%s/logs" % self.kname(), "/scratch/%s/torchrun_logs" % self.user, "/home/%s/jobs/logs" % self.user])
            rid = self.run_id()
            self._ef_base = {h: "%s/%s_%s" % (logdir, rid, "".join(r.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(8))) for h in self.hosts}
            self.use_record = r.random() < 0.75
        if self.healthy:
            self.cause = None
            self.variant = r.choice(["completed", "completed", "running"])
            self.X, self.A = None, None
            self.plan_healthy()
            self.startup()
            self.do_healthy()
        else:
            c = self.cause
            vl = self.PREEMPT[L] if c == "preemption" else list(self.VARIANTS[c])
            if c == "unknown" and L not in ("torchrun_logdir", "k8s_pytorchjob"):
                # a single observer (srun, mpirun, pdsh, an aggregator) would reveal the real order
                vl = [x for x in vl if x != "two_nodes"]
            self.variant = r.choice(vl)
            if self.variant == "two_nodes" and L == "k8s_pytorchjob" and self.nnodes < 3:
                self.variant = "sigkill_noevidence"
            cands = [rk for rk in range(self.world) if rk != 0] if r.random() < 0.85 else list(range(self.world))
            if self.variant == "two_nodes" and L == "k8s_pytorchjob":
                cands = [rk for rk in range(self.world) if self.node_of[rk] != self.hosts[0]]
            self.X = r.choice(cands)
            if c == "python_exception" and self.variant == "ckpt_oserror":
                self.X = 0
            if self.launcher in ("mpirun", "deepspeed") and ((c == "preemption") or (c == "unknown" and self.variant == "node_vanished")):
                self.X = r.choice([rk for rk in range(self.world) if self.node_of[rk] != self.hosts[0]])
            self.A = self.node_of[self.X]
            if c == "straggler":
                self.plan_clock(self.A, self.t_fail, r.choice(["mild", "step_before", "trap_ahead", "none"]))
            elif c == "preemption" and self.variant.startswith("slurm"):
                self.plan_clock(None, self.t_fail, r.choice(["mild", "step_before", "trap_behind"]))
            elif c == "unknown" and self.variant == "two_nodes":
                B = r.choice([h for h in self.hosts if h != self.A and not (L == "k8s_pytorchjob" and h == self.hosts[0])])
                Y = r.choice(self.ranks_on[B])
                dt = r.uniform(0.5, 20)
                self.two_nodes = (B, Y, dt)
                self.clock[B] = Clock(-(dt + r.uniform(5, 40)))
                self.skewed[B] = self.clock[B].off(0)
                self.log_ranks_mode = "rank0"
                if self.style == "megatron" or self.node_of[0] == B:
                    self.style = "pylog"
                self.loglevel_info = False
                self.clock_mode = "hidden"
                self.quirks.append("%s clock behind by %.1f s; nothing in the bundle reveals it" % (B, -self.skewed[B]))
            else:
                self.plan_clock(self.A, self.t_fail)
            self.startup()
            getattr(self, "c_" + c)()
        self.finalize()

    def plan_healthy(self):
        r = self.rng
        mode = r.choice(["step_mid", "step_mid", "mild", "none", "slew"])
        self.clock_mode = mode
        self.mono_jump = {}
        if mode == "step_mid":
            h = r.choice(self.hosts)
            off = round(r.uniform(20, 180) * r.choice([-1, 1]), 3)
            self.skew_node(h, off, "until chronyd stepped it mid-run")
            ts = r.uniform(self.t_train0 + 900, self.t_fail - 600)
            self.chrony_step(h, ts, 0.0, why="Selected source %s" % r.choice(NTP_SERVERS))
            self.extra_kern_hosts.append(h)
            self.ensure_sync_lines(h)
            self.evidence.append("chronyd step messages on %s" % h)
            for rk in self.ranks_on[h]:
                self.mono_jump[rk] = (ts, -off)
            self.notes.append("harmless: %s's wall clock was stepped by %+.1f s at %s true UTC; timestamps on that node jump and a time.time()-based step_time spikes once" % (
                h, -off, f_iso(ts, UTCZ, 0)))
        elif mode == "slew":
            h = r.choice(self.hosts)
            off = round(r.uniform(20, 90) * r.choice([-1, 1]), 3)
            self.skew_node(h, off, "slewed back by chronyd during the run")
            self.chrony_slew(h, r.uniform(self.t_train0 + 600, self.t_fail - 1800), 0.0)
            self.extra_kern_hosts.append(h)
            self.evidence.append("chronyd slew message on %s" % h)
        elif mode == "mild":
            for h in self.hosts:
                if r.random() < 0.5:
                    o = round(r.uniform(0.5, 6.0) * r.choice([-1, 1]), 3)
                    self.clock[h] = Clock(o)
                    self.skewed[h] = o
            if self.skewed:
                self.quirks.append("small clock offsets between nodes (%s)" % ", ".join("%s %+.1fs" % (h, o) for h, o in self.skewed.items()))

    def do_healthy(self):
        r = self.rng
        end = self.t_fail
        self.training(self.t_train0, end, mono_jump=self.mono_jump)
        # scary but harmless things
        sc = r.sample(["stale_xid", "nfs_blip", "ib_flap_old", "peermem", "none"], 2)
        self.scary = sc
        if "stale_xid" in sc:
            h = r.choice(self.hosts)
            rk = r.choice(self.ranks_on[h])
            tt = self.t0 - r.uniform(2 * 3600, 6 * 86400)
            if r.random() < 0.5:
                self.xid(h, tt, rk, 13, "Graphics SM Warp Exception on (GPC 1, TPC 3, SM 0): Out Of Range Address", r.randint(3000, 90000), "python")
            else:
                self.xid(h, tt, rk, 63, "Row Remapper: New row (0x%08x) marked for remapping, reset gpu to activate." % r.getrandbits(32), r.randint(3000, 90000), "python")
            self.extra_kern_hosts.append(h)
            self.notes.append("harmless: Xid on %s PCI %s at %s true UTC, before this job started (another job)" % (h, self.busid[rk], f_iso(tt, UTCZ, 0)))
        if "nfs_blip" in sc:
            h = r.choice(self.hosts)
            tt = r.uniform(self.t_train0 + 300, end - 300)
            self.kern(h, tt, "nfs: server nas01 not responding, still trying")
            self.kern(h, tt + r.uniform(4, 40), "nfs: server nas01 OK")
            self.extra_kern_hosts.append(h)
        if "ib_flap_old" in sc and self.nic_kind == "ib":
            h = r.choice(self.hosts)
            tt = self.t0 - r.uniform(3600, 3 * 86400)
            self.kern(h, tt, "mlx5_core 0000:%s:00.0 mlx5_3: Port: 1 Link DOWN" % NIC_PCI[self.gpu][3])
            self.kern(h, tt + r.uniform(5, 60), "mlx5_core 0000:%s:00.0 mlx5_3: Port: 1 Link ACTIVE" % NIC_PCI[self.gpu][3])
            self.extra_kern_hosts.append(h)
        if self.variant == "completed":
            self.healthy_end(end)
            if self.nic_kind in ("ib", "roce"):
                for h in self.hosts:
                    if r.random() < 0.5:
                        for _ in range(r.randint(1, 4)):
                            self.kern(h, end + r.uniform(0.5, 3), "nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid context, skipping further processing")
        else:
            for rk in range(self.world):
                self.exit[rk] = dict(kind="running", t_msg=end, t_exit=INF, code=0)
            self.outcome = "running"
            self.job_end = end
        self.notes.insert(0, "healthy run (%s)" % ("completed normally" if self.variant == "completed" else "still running when the logs were collected"))

    def finalize(self):
        r = self.rng
        # ranks nobody killed (e.g. a hung task under srun without --kill-on-bad-exit): the user cancels
        if self.outcome == "failed":
            alive = [rk for rk in range(self.world) if rk not in self.exit or self.exit[rk]["t_exit"] == INF]
            if alive:
                last = max([f["t_exit"] for f in self.exit.values() if f["t_exit"] < INF] + [self.t_fail])
                tc = last + r.uniform(120, 2400)
                self.scancel = tc
                for rk in alive:
                    self.exit[rk] = dict(kind="killed", t_msg=tc, t_exit=tc + r.uniform(0.1, 2), code=-15)
                    self.drop_pending(rk)
                if self.launcher == "srun":
                    self.render_srun()
            ends = [f["t_exit"] for f in self.exit.values() if f["t_exit"] < INF] + list(self.agent_exit.values())
            self.job_end = max(ends + [self.job_end or 0])
        if self.job_end is None:
            self.job_end = self.t_fail
        if self.layout == "k8s_pytorchjob" and self.variant == "two_nodes":
            self.t_collect = self.job_end + r.uniform(3700, 9000)
        elif self.layout == "k8s_pytorchjob":
            self.t_collect = max([self.job_end] + self.late_steps) + r.uniform(240, 3000)
        else:
            self.t_collect = max([self.job_end] + self.late_steps) + r.uniform(300, 3 * 3600)
        # background kernel / syslog noise
        self.background()

    def background(self):
        r = self.rng
        drv = r.choice(["535.161.08", "550.90.07", "535.183.01", "560.35.03", "570.124.06"])
        for h in self.hosts:
            b = self.boot[h]
            self.kern(h, b + 2.1, "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  %s  Release Build  (dvs-builder@U16-I3-B03-4-3)  Thu Oct 17 21:19:41 UTC 2024" % drv)
            self.kern(h, b + 2.4, "nvidia-nvlink: Nvlink Core is being initialized, major device number 508")
            if self.nic_kind in ("ib", "roce"):
                self.kern(h, b + 3.0, "mlx5_core 0000:%s:00.0: firmware version: 28.39.1002" % NIC_PCI[self.gpu][0])
            self.kern(h, b + 5.2, "EXT4-fs (nvme0n1p2): mounted filesystem with ordered data mode. Quota mode: none.")
            n = r.randint(3, 9)
            for _ in range(n):
                tt = r.uniform(self.t0 - 6 * 3600, self.t_collect - 60)
                k = r.random()
                if k < 0.3:
                    a = r.randint(2500, 9000)
                    self.kern(h, tt, "perf: interrupt took too long (%d > %d), lowering kernel.perf_event_max_sample_rate to %d" % (a + r.randint(1, 500), a, r.choice([79750, 63750, 50000, 39750])))
                elif k < 0.55:
                    w = self.wall(h, tt)
                    self.kern(h, tt, "audit: type=1400 audit(%.3f:%d): apparmor=\"DENIED\" operation=\"capable\" profile=\"/usr/sbin/cupsd\" pid=%d comm=\"cupsd\" capability=12  capname=\"net_admin\"" % (
                        w, r.randint(100, 9000), r.randint(1000, 9000)))
                elif k < 0.75:
                    self.sysl(h, tt, "CRON", "(root) CMD (/usr/lib/gpu-health/check.sh >/dev/null 2>&1)", r.randint(100000, 900000))
                else:
                    self.sysl(h, tt, "systemd", "Started Session %d of User %s." % (r.randint(10, 900), self.user), 1)
            if self.layout == "slurm_srun":
                self.sysl(h, self.t0 - r.uniform(0.5, 2), "slurmd", "launch task StepId=%d.0 request from UID:1001 GID:1001 HOST:%s PORT:%d" % (self.jobid, self.ip[self.hosts[0]], r.randint(30000, 60000)), 2211)
            if self.layout in ("mpirun_tagged", "deepspeed_pdsh") and h != self.hosts[0]:
                self.sysl(h, self.t0 - r.uniform(0.5, 2), "sshd", "Accepted publickey for %s from %s port %d ssh2: ED25519 SHA256:%s" % (
                    self.user, self.ip[self.hosts[0]], r.randint(30000, 60000), "".join(r.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") for _ in range(43))), r.randint(10000, 99999))
            if self.layout == "k8s_pytorchjob":
                tt = self.t0 - r.uniform(2, 20)
                self.sysl(h, tt, "kubelet", "I%s    %d kubelet.go:2430] \"SyncLoop ADD\" source=\"api\" pods=[\"default/%s\"]" % (
                    f_glog(self.wall(h, tt), UTCZ, "", 6), 2345, self.pod[h]), 2345)
            if h in self.skewed and self.clock_mode not in ("hidden",) and r.random() < 0.5:
                self.sysl(h, self.t0 - r.uniform(600, 7200), "chronyd", "Can't synchronise: no selectable sources", self.chrony_pid(h))

    # -------------------------------------------------------------- truth
    def truth(self):
        if self.healthy:
            ini = None
        else:
            rk = self.init_rank
            nd = self.init_node
            if nd is not None and self.layout == "k8s_pytorchjob":
                nd = self.pod[nd]
            ini = None if (rk is None and nd is None) else {"rank": rk, "node": nd}
        notes = list(self.notes)
        if not self.healthy and self.cause not in ("straggler",):
            roots = getattr(self, "torchrun_root", {})
            for h in self.hosts:
                if h in roots and self.init_rank is not None and roots[h] != self.init_rank:
                    f = self.exit[roots[h]]
                    notes.append("torchrun on %s names rank %d (exitcode %d, %s) as its root cause: collateral" % (
                        self.nhost(h), roots[h], f["code"], f["kind"]))
            if getattr(self, "mpirun_first", None) is not None and self.init_rank is not None and self.mpirun_first != self.init_rank:
                notes.append("mpirun reports rank %d as the first process to exit (collateral)" % self.mpirun_first)
            kinds = {}
            for rk, f in self.exit.items():
                if rk != self.init_rank and f["kind"] != "primary":
                    kinds[f["kind"]] = kinds.get(f["kind"], 0) + 1
            notes.append("collateral: " + ", ".join("%d %s" % (v, k) for k, v in sorted(kinds.items())))
        if self.quirks:
            notes.append("clock/order quirks: " + "; ".join(self.quirks))
        ev = [e for e in self.evidence if "synchronous" not in e]
        vis_hosts = set()
        for i in self.step_marks:
            if i < len(self.lines):
                ln = self.lines[i]
                if isinstance(ln.te, float) and ln.src == "app":
                    vis_hosts.add(ln.host)
        if self.skewed and self.clock_mode != "hidden" and len(vis_hosts) > 1:
            for h in self.skewed:
                if abs(self.skewed[h]) >= 5 and h in vis_hosts:
                    ev.append("synchronous per-step lines from %s vs the other nodes" % h)
        if ev:
            notes.append("skew evidence in the bundle: " + "; ".join(ev))
        if self.variant:
            notes.append("variant=%s" % self.variant)
        return {"healthy": bool(self.healthy), "cause": None if self.healthy else self.cause, "initiator": ini,
                "layout": self.layout, "notes": " | ".join(notes)}

    # -------------------------------------------------------------- rendering helpers
    def visible(self, pred=None):
        out = [ln for ln in self.lines if isinstance(ln.te, float) and (pred is None or pred(ln))]
        return out

    def shorthost(self, h):
        return h.split(".")[0]

    def chrony_journal(self, h, prefix=""):
        if any(x[1] == "chronyd" for x in self.syslog.get(h, [])):
            self.files["%sjournalctl-u-chronyd-%s.txt" % (prefix, self.shorthost(h))] = self.kern_text(h, "journal_short", only=("chronyd", "systemd-journald"))

    def kern_text(self, h, fmt, grep=False, since=None, only=None):
        r = self.rng
        recs = [(t, "kernel", None, x) for t, x in self.kernlog.get(h, [])] if only is None else []
        if fmt not in ("dmesg", "dmesg_T"):
            recs += [(t, i, p, x) for (t, i, p, x) in self.syslog.get(h, []) if only is None or i in only]
        recs = [x for x in recs if x[0] <= self.t_collect and (since is None or x[0] >= since)]
        recs.sort(key=lambda x: x[0])
        b = self.boot[h]
        zs = self.zone_sys[h]
        sh = self.shorthost(h)
        bw = self.wall(h, self.t_collect) - (self.t_collect - b)
        iso_colon = getattr(self, "_iso_colon", None)
        if iso_colon is None:
            self._iso_colon = iso_colon = r.random() < 0.5
        out = []
        if fmt.startswith("journal"):
            out.append("-- Logs begin at %s, end at %s. --" % (
                lt(self.wall(h, b), zs)[0].strftime("%a %Y-%m-%d %H:%M:%S ") + lt(self.wall(h, b), zs)[2],
                lt(self.wall(h, self.t_collect), zs)[0].strftime("%a %Y-%m-%d %H:%M:%S ") + lt(self.wall(h, self.t_collect), zs)[2]))
        for t, ident, pid, x in recs:
            up = t - b
            if grep and ident == "kernel" and not any(k in x.lower() for k in ("nvrm", "xid", "mlx5", "oom", "out of memory", "nfs", "lustre", "segfault", "nvlink", "pcie", "mce")):
                continue
            if grep and ident != "kernel" and ident not in ("chronyd", "systemd-logind", "nv-fabricmanager", "kubelet", "systemd-journald"):
                continue
            w = self.wall(h, t)
            for part in x.split("\n"):
                if fmt == "dmesg":
                    out.append("[%5d.%06d] %s" % (int(up), int((up % 1) * 1e6), part))
                elif fmt == "dmesg_T":
                    out.append("[%s] %s" % (f_ctime(bw + up, zs), part))
                else:
                    if fmt == "journal_iso":
                        st = f_iso(w, zs, 0, "colon" if iso_colon else "nocolon")
                    elif fmt == "journal_precise":
                        st = f_syslog(w, zs, True)
                    else:
                        st = f_syslog(w, zs)
                    if ident == "kernel":
                        body = ("[%5d.%06d] " % (int(up), int((up % 1) * 1e6)) if fmt == "kernlog" else "") + part
                        out.append("%s %s kernel: %s" % (st, sh, body))
                    else:
                        out.append("%s %s %s%s: %s" % (st, sh, ident, "[%d]" % pid if pid else "", part))
        return "\n".join(out) + "\n"

    def chronyc_text(self, h):
        r = self.rng
        tc = self.t_collect - r.uniform(60, 900)
        off = self.clock[h].off(tc)
        ntp = r.choice(NTP_SERVERS)
        name = ntp.split(" ")[0] if "(" not in ntp else ntp.split("(")[1].rstrip(")")
        hexid = "%02X%02X%02X%02X" % (10, r.randint(0, 255), r.randint(0, 255), r.randint(1, 254))
        if abs(off) >= 1:
            last = off + r.uniform(-0.01, 0.01)
            rms = abs(off) * r.uniform(0.3, 0.9)
        else:
            last = r.uniform(-0.0005, 0.0005)
            rms = r.uniform(0.00002, 0.0004)
        return ("$ date; chronyc tracking\n%s\nReference ID    : %s (%s)\nStratum         : %d\nRef time (UTC)  : %s\n"
                "System time     : %.9f seconds %s of NTP time\nLast offset     : %+.9f seconds\nRMS offset      : %.9f seconds\n"
                "Frequency       : %.3f ppm %s\nResidual freq   : %+.3f ppm\nSkew            : %.3f ppm\nRoot delay      : %.9f seconds\n"
                "Root dispersion : %.9f seconds\nUpdate interval : %.1f seconds\nLeap status     : Normal\n") % (
            f_date(self.wall(h, tc), self.zone_sys[h]), hexid, name, r.choice([2, 3, 4]), f_ctime(tc - r.uniform(5, 60), UTCZ),
            abs(off), "fast" if off > 0 else "slow", last, rms, r.uniform(3, 30), r.choice(["slow", "fast"]),
            r.uniform(-0.01, 0.01), r.uniform(0.01, 0.2), r.uniform(0.0001, 0.002), r.uniform(0.0001, 0.001), r.choice([64.2, 65.0, 128.4, 129.1]))

    def pyspy_text(self, rk, t, v):
        r = self.rng
        h = self.node_of[rk]
        wd = self.workdir
        pid = self.pid[rk]
        head = "$ date -u; sudo py-spy dump --pid %d\n%s\nProcess %d: %s %s --config configs/%s.yaml\nPython v3.10.12 (%s)\n\n" % (
            pid, f_date(self.wall(h, t), UTCZ), pid, self.py, self.script, self.kname(), self.py)
        if v == "data":
            st = ["poll (multiprocessing/connection.py:440)", "_poll (multiprocessing/connection.py:257)", "poll (multiprocessing/connection.py:257)",
                  "get (multiprocessing/queues.py:113)", "_try_get_data (torch/utils/data/dataloader.py:1243)",
                  "_get_data (torch/utils/data/dataloader.py:1412)", "_next_data (torch/utils/data/dataloader.py:1448)",
                  "__next__ (torch/utils/data/dataloader.py:701)", "train (%s:%d)" % (self.script, r.randint(150, 200))]
        elif v == "ckpt_thread":
            st = ["wait (threading.py:320)", "result (concurrent/futures/_base.py:453)", "wait_for_previous_save (utils/ckpt.py:%d)" % r.randint(60, 120),
                  "train (%s:%d)" % (self.script, r.randint(280, 330))]
        else:
            st = ["acquire (threading.py:%d)" % r.choice([320, 355]), "__enter__ (utils/metrics.py:%d)" % r.randint(30, 60),
                  "log_metrics (utils/metrics.py:%d)" % r.randint(60, 100), "train (%s:%d)" % (self.script, r.randint(230, 290))]
        st += ["main (%s:%d)" % (self.script, r.randint(300, 380)), "<module> (%s:%d)" % (self.script, r.randint(380, 720))]
        body = 'Thread %d (idle): "MainThread"\n' % pid + "".join("    %s\n" % x for x in st)
        body += 'Thread %d (idle): "Thread-1 (_pin_memory_loop)"\n    select (selectors.py:416)\n    wait (multiprocessing/connection.py:947)\n    _poll (multiprocessing/connection.py:440)\n    get (multiprocessing/queues.py:113)\n    do_one_step (torch/utils/data/_utils/pin_memory.py:31)\n    _pin_memory_loop (torch/utils/data/_utils/pin_memory.py:58)\n    run (threading.py:953)\n    _bootstrap_inner (threading.py:1016)\n    _bootstrap (threading.py:973)\n' % (pid + r.randint(50, 400))
        return head + body

    def smi_text(self, h, rk, kind):
        r = self.rng
        tc = self.t_collect - r.uniform(60, 1200)
        bus = self.busid[rk].upper()
        prod = {"H100": "NVIDIA H100 80GB HBM3", "A100": "NVIDIA A100-SXM4-80GB", "H200": "NVIDIA H200"}[self.gpu]
        s = ["", "==============NVSMI LOG==============", "",
             "Timestamp                                 : %s" % f_ctime(self.wall(h, tc), self.zone_sys[h]),
             "Driver Version                            : 550.90.07", "CUDA Version                              : 12.4", "",
             "Attached GPUs                             : %d" % self.gpn,
             "GPU 00000000:%s:00.0" % bus,
             "    Product Name                          : %s" % prod]
        if kind == "remap":
            fail = getattr(self, "smi_remap", (None, None, False))[2]
            s += ["    ECC Errors", "        Volatile", "            SRAM Correctable              : 0", "            SRAM Uncorrectable Parity     : 0",
                  "            DRAM Correctable              : %d" % r.randint(0, 40), "            DRAM Uncorrectable            : %d" % r.randint(1, 4),
                  "    Remapped Rows", "        Correctable Error                 : %d" % r.randint(0, 3), "        Uncorrectable Error               : %d" % r.randint(1, 8),
                  "        Pending                           : Yes", "        Remapping Failure Occurred        : %s" % ("Yes" if fail else "No"),
                  "        Bank Remap Availability Histogram", "            Max                           : %d bank(s)" % r.randint(600, 640),
                  "            High                          : 0 bank(s)", "            Partial                       : %d bank(s)" % (0 if not fail else 1),
                  "            Low                           : 0 bank(s)", "            None                          : %d bank(s)" % (1 if fail else 0)]
        else:
            s += ["    Clocks Event Reasons", "        Idle                              : Not Active", "        Applications Clocks Setting       : Not Active",
                  "        SW Power Cap                      : Not Active", "        HW Slowdown                       : Active",
                  "            HW Thermal Slowdown           : Active", "            HW Power Brake Slowdown       : Not Active",
                  "        Sync Boost                        : Not Active", "        SW Thermal Slowdown               : Active",
                  "        Display Clock Setting             : Not Active", "    Temperature",
                  "        GPU Current Temp                  : %d C" % r.randint(88, 94), "        GPU T.Limit Temp                  : -%d C" % r.randint(1, 4),
                  "    Clocks", "        Graphics                          : %d MHz" % r.randint(900, 1300), "        SM                                : %d MHz" % r.randint(900, 1300)]
        return "\n".join(s) + "\n"

    def kfmt_pick(self, choices):
        return self.rng.choice(choices)

    def trim_cut(self, lines):
        """a cut time before which a user trimmed a big merged log."""
        r = self.rng
        tot = sum(len(x.text) + 8 for x in lines)
        if (self.healthy or self.cause == "straggler") and (tot > 700_000 or r.random() < 0.15):
            end = self.job_end if self.job_end and self.job_end < INF else self.t_fail
            return self.t_train0 + (end - self.t_train0) * r.uniform(0.2, 0.6)
        if self.healthy or self.cause == "straggler":
            return None
        if tot > 700_000 or r.random() < 0.22:
            first_err = min([f["t_msg"] for f in self.exit.values() if f["kind"] in ("primary", "remote", "timeout", "other")] + [self.t_fail])
            lo = self.t_train0 + 60
            cut = first_err - r.uniform(120, 2400)
            if tot > 700_000:
                cut = max(cut, first_err - 600)
            if cut > lo:
                return cut
        return None

    # -------------------------------------------------------------- layouts
    def L_slurm_srun(self):
        r = self.rng
        h0 = self.hosts[0]
        w = len(str(self.world - 1))
        out = []
        tb = self.t0 - r.uniform(1, 4)
        z0 = self.zone_sys[h0]
        py = "python3" if self.stdout_buffered else "python3 -u"
        out.append((tb, 0, "Job %d on %d nodes: %s (%d tasks)" % (self.jobid, self.nnodes, hostlist(self.hosts), self.world)))
        out.append((tb + 0.01, 1, "START: %s" % f_date(self.wall(h0, tb), z0)))
        out.append((tb + 0.02, 2, "MASTER_ADDR=%s MASTER_PORT=29500%s" % (h0, " NCCL_DEBUG=INFO" if self.nccl_info else (" NCCL_DEBUG=WARN" if self.nccl_warn_visible else ""))))
        out.append((tb + 0.03, 3, "+ srun%s -l %s %s --config configs/%s.yaml" % (" --kill-on-bad-exit=1" if self.kobe else "", py, self.script, self.kname())))
        vis = self.visible(lambda ln: ln.src in ("app", "srun"))
        cut = self.trim_cut(vis)
        jit = {h: r.uniform(0.001, 0.03) for h in self.hosts}
        marker = False
        for ln in vis:
            if cut and ln.te < cut and ln.src == "app":
                if not marker:
                    out.append((cut - 1e-6, -1, "[... %d earlier lines trimmed ...]" % sum(1 for x in vis if x.te < cut)) if r.random() < 0.6 else (cut - 1e-6, -1, ""))
                    marker = True
                continue
            if ln.src == "app":
                out.append((ln.te + jit[ln.host], ln.seq + 10, "%*d: %s" % (w, ln.rank, ln.text)))
            else:
                out.append((ln.te, ln.seq + 10, ln.text))
        z = self.zone_sys[h0]
        if getattr(self, "slurm_cancel", None):
            tp, why = self.slurm_cancel
            cw = self.wall("ctl", tp)
            out.append((tp + 0.01, 10 ** 9, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO %s ***" % (self.jobid, h0, f_slurm(cw, self.ctl_zone), why)))
            out.append((tp + 0.02, 10 ** 9 + 1, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
            out.append((tp + 0.03, 10 ** 9 + 2, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO %s ***" % (self.jobid, h0, f_slurm(cw, self.ctl_zone), why)))
            out.append((tp + 0.04, 10 ** 9 + 3, "srun: got SIGCONT"))
            out.append((tp + 0.05, 10 ** 9 + 4, "srun: forcing job termination"))
        if getattr(self, "scancel", None):
            tc = self.scancel
            out.append((tc + 0.01, 10 ** 9, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s ***" % (self.jobid, h0, f_slurm(self.wall("ctl", tc), self.ctl_zone))))
            out.append((tc + 0.02, 10 ** 9 + 1, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
            out.append((tc + 0.03, 10 ** 9 + 2, "srun: forcing job termination"))
        if getattr(self, "vanished", None):
            A, tv = self.vanished
            tn = tv + r.uniform(60, 300)
            if tn < self.job_end:
                out.append((tn, 10 ** 9, "srun: error: Node failure on %s" % A))
        if getattr(self, "oom_host", None) and not getattr(self, "slurm_oom_printed", False):
            out.append((self.job_end - 0.5, 10 ** 9 + 5, "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % self.jobid))
        cancelled = getattr(self, "slurm_cancel", None) or getattr(self, "scancel", None)
        if self.outcome == "completed" or (self.outcome == "failed" and not cancelled):
            rc = 0 if self.outcome == "completed" else 1
            out.append((self.job_end + 0.5, 10 ** 9 + 9, "END: %s (srun exit code %d)" % (f_date(self.wall(h0, self.job_end + 0.5), z), rc)))
        out.sort(key=lambda x: (x[0], x[1]))
        self.files["slurm-%d.out" % self.jobid] = "\n".join(x[2] for x in out) + "\n"
        # sacct
        if r.random() < 0.55 or getattr(self, "vanished", None):
            st = {"completed": "COMPLETED", "running": "RUNNING", "failed": "FAILED"}[self.outcome]
            ec = "0:0" if self.outcome != "failed" else "1:0"
            if getattr(self, "slurm_cancel", None):
                st = "PREEMPTED" if self.slurm_cancel[1] == "PREEMPTION" else "TIMEOUT"
                ec = "0:15"
            elif getattr(self, "scancel", None):
                st = "CANCELLED by 1001"
                ec = "0:15"
            elif getattr(self, "oom_host", None):
                st = "OUT_OF_MEMORY"
                ec = "0:125"
            elif getattr(self, "vanished", None):
                st = "NODE_FAIL"
                ec = "0:0"
            s0 = self.wall("ctl", self.t0 - 3)
            e0 = self.wall("ctl", self.job_end + 1)
            el = hhmmss(e0 - s0) if self.outcome != "running" else hhmmss(self.t_collect - self.t0)
            endf = f_slurm(e0, self.ctl_zone) if self.outcome != "running" else "Unknown"
            rows = [("%d" % self.jobid, self.kname()[:12], st, ec), ("%d.batch" % self.jobid, "batch", st.split(" ")[0] if st != "RUNNING" else "RUNNING", ec),
                    ("%d.extern" % self.jobid, "extern", "COMPLETED" if self.outcome != "running" else "RUNNING", "0:0"),
                    ("%d.0" % self.jobid, "python3", st if st != "PREEMPTED" else "CANCELLED", ec)]
            txt = ["$ sacct -j %d --format=JobID,JobName%%12,State,ExitCode,Start,End,Elapsed,NodeList%%24" % self.jobid,
                   "%-12s %12s %10s %8s %19s %19s %10s %24s " % ("JobID", "JobName", "State", "ExitCode", "Start", "End", "Elapsed", "NodeList"),
                   "%s %s %s %s %s %s %s %s " % ("-" * 12, "-" * 12, "-" * 10, "-" * 8, "-" * 19, "-" * 19, "-" * 10, "-" * 24)]
            for jid, nm, sst, eec in rows:
                if len(sst) > 10:
                    sst = sst[:9] + "+"
                txt.append("%-12s %12s %10s %8s %19s %19s %10s %24s " % (jid, nm, sst, eec, f_slurm(s0, self.ctl_zone), endf, el,
                                                                         hostlist(self.hosts) if not jid.endswith(".batch") else self.hosts[0]))
            self.files["sacct.txt"] = "\n".join(txt) + "\n"
        fmt = r.choice(["messages", "kernlog", "journal_short", "journal_iso", "dmesg_T", "dmesg"])
        for h in self.kern_hosts():
            name = {"messages": "messages-%s", "kernlog": "syslog-%s", "journal_short": "journalctl-k-%s.txt", "journal_iso": "journalctl-%s.txt",
                    "dmesg_T": "dmesg-T-%s.txt", "dmesg": "dmesg-%s.txt"}[fmt] % self.shorthost(h)
            self.files[name] = self.kern_text(h, fmt, grep=r.random() < 0.4, since=self.t0 - 3 * 3600 if fmt not in ("dmesg", "dmesg_T") else None)
            if fmt in ("dmesg", "dmesg_T"):
                self.chrony_journal(h)
        self.extras_common()

    def kern_hosts(self):
        hs = []
        gone = self.cause == "preemption" and self.variant == "spot_node"
        for h in self.extra_kern_hosts:
            if h not in hs and not ((self.no_kern or gone) and h == self.A):
                hs.append(h)
        if self.rng.random() < 0.3:
            o = self.rng.choice(self.hosts)
            if o not in hs and not ((self.no_kern or gone) and o == self.A):
                hs.append(o)
        return hs

    def extras_common(self, prefix=""):
        for h in self.hosts:
            if self.chronyc.get(h):
                self.files["%schronyc-tracking-%s.txt" % (prefix, self.shorthost(h))] = self.chronyc_text(h)
        for rk, (t, v) in self.pyspy.items():
            self.files["%spy-spy-rank%d-%s.txt" % (prefix, rk, self.shorthost(self.node_of[rk]))] = self.pyspy_text(rk, t, v)
        if getattr(self, "smi_remap", None) and self.rng.random() < 0.6:
            A, X, _ = self.smi_remap
            self.files["%snvidia-smi-q-%s.txt" % (prefix, self.shorthost(A))] = self.smi_text(A, X, "remap")
        if getattr(self, "smi_throttle", None):
            A, X = self.smi_throttle
            self.files["%snvidia-smi-q-%s.txt" % (prefix, self.shorthost(A))] = self.smi_text(A, X, "thermal")

    def L_torchrun_logdir(self):
        r = self.rng
        tee = r.random() < 0.6
        for h in self.hosts:
            d = self.shorthost(h) + "/"
            base = self._ef_base[h]
            rel = base.rsplit("/", 1)[1]
            # console of torchrun (nohup), stderr of workers teed with [defaultN]: prefix
            con = []
            for ln in self.visible(lambda x: x.host == h and (x.src == "agent" or (tee and x.src == "app" and x.stream == "err"))):
                if ln.src == "agent":
                    con.append((ln.te, ln.seq, ln.text))
                else:
                    con.append((ln.te + 0.002, ln.seq, "[default%d]:%s" % (self.lr_of[ln.rank], ln.text)))
            con.sort()
            self.files[d + "torchrun.out"] = "nohup: ignoring input\n" + "\n".join(x[2] for x in con) + "\n"
            for rk in self.ranks_on[h]:
                lr = self.lr_of[rk]
                for stream in ("out", "err"):
                    ls = self.visible(lambda x: x.rank == rk and (x.stream == stream))
                    ls.sort(key=lambda x: (x.te, x.seq))
                    self.files[d + "logs/%s/attempt_0/%d/%s.log" % (rel, lr, "stdout" if stream == "out" else "stderr")] = "\n".join(x.text for x in ls) + ("\n" if ls else "")
                f = self.exit.get(rk)
                if f and f.get("error_file"):
                    tbl = f.get("tb_lines") or []
                    exc = tbl[-1] if tbl else "RuntimeError"
                    for x in reversed(tbl):
                        if x and not x.startswith(" ") and ":" in x and not x.startswith("Traceback") and not x.startswith("Original") and not x.startswith("CUDA kernel") and not x.startswith("For debugging") and not x.startswith("Compile"):
                            exc = x
                            break
                    ej = {"message": {"message": exc, "extraInfo": {"py_callstack": "\n".join(tbl) + "\n", "timestamp": str(int(self.wall(h, f["t_msg"])))}}}
                    self.files[d + "logs/%s/attempt_0/%d/error.json" % (rel, lr)] = json.dumps(ej) + "\n"
        fmt0 = r.choice(["dmesg", "dmesg_T", "both", "kernlog"])
        for h in self.kern_hosts():
            d = self.shorthost(h) + "/"
            fmt = "kernlog" if (h == self.A and self.cause == "preemption") else fmt0
            if fmt in ("dmesg", "both"):
                self.files[d + "dmesg.txt"] = self.kern_text(h, "dmesg")
            if fmt in ("dmesg_T", "both"):
                self.files[d + "dmesg-T.txt"] = self.kern_text(h, "dmesg_T", grep=r.random() < 0.5)
            if fmt == "kernlog":
                self.files[d + "syslog"] = self.kern_text(h, "kernlog", since=self.t0 - 2 * 3600)
            elif any(x[1] in ("chronyd", "systemd-logind", "nv-fabricmanager") for x in self.syslog.get(h, [])):
                self.files[d + "journal-grep.txt" if r.random() < 0.5 else d + "syslog-excerpt.txt"] = self.kern_text(h, "journal_short", grep=True, since=self.t0 - 6 * 3600)
        self.extras_common()

    def L_k8s_pytorchjob(self):
        r = self.rng
        tail = r.choice([None, None, 3000, 1500])
        for h in self.hosts:
            pod = self.pod[h]
            ls = self.visible(lambda x: x.host == h and x.src in ("app", "agent"))
            ls.sort(key=lambda x: (x.te, x.seq))
            if tail and len(ls) > tail:
                ls = ls[-tail:]
            self.files["logs/%s.log" % pod] = "\n".join("%s %s" % (f_iso(self.wall(h, x.te), UTCZ, 9, "Z"), x.text) for x in ls) + "\n"
        # pods that failed
        failed_pods = []
        for h in self.hosts:
            if h in self.agent_exit and self.outcome == "failed":
                failed_pods.append(h)
        ns = "default" if r.random() < 0.5 else "ml-team"
        tcoll = self.t_collect
        kube = self.clock["ctl"]

        def age(t):
            return f_age(tcoll - t)
        ev = []
        for h in self.hosts:
            ts = self.t0 - r.uniform(20, 60)
            ev.append((ts, "Normal", "Scheduled", "pod/%s" % self.pod[h], "Successfully assigned %s/%s to %s" % (ns, self.pod[h], h)))
            ev.append((ts + 3, "Normal", "Pulled", "pod/%s" % self.pod[h], "Container image \"nvcr.io/nvidia/pytorch:24.%02d-py3\" already present on machine" % r.choice([1, 3, 5, 7])))
            ev.append((ts + 4, "Normal", "Created", "pod/%s" % self.pod[h], "Created container pytorch"))
            ev.append((ts + 5, "Normal", "Started", "pod/%s" % self.pod[h], "Started container pytorch"))
        reason_of = {}
        first_fail = None
        for h in failed_pods:
            te = self.agent_exit[h]
            code = 1
            reason = "Error"
            if getattr(self, "oom_host", None) == h:
                reason = "OOMKilled"
                ev.append((te - 0.5, "Warning", "OOMKilling", "node/%s" % h, "Memory cgroup out of memory: Killed process %d (%s)" % (self.pid[self.X] if self.variant != "worker_killed" else self.pid[self.X] + 1, self.comm)))
            if getattr(self, "k8s_node_shutdown", None) == h:
                reason = "Terminated"
                code = 1
            if getattr(self, "k8s_preempted", None) and self.k8s_preempted[0] == h:
                ev.append((self.k8s_preempted[1], "Normal", "Preempted", "pod/%s" % self.pod[h], "Preempted by %s/inference-%04x-0 on node %s" % (ns, r.getrandbits(16), h)))
                ev.append((self.k8s_preempted[1] + 0.1, "Normal", "Killing", "pod/%s" % self.pod[h], "Stopping container pytorch"))
                code = 1
                reason = "Error"
            reason_of[h] = (reason, code, te)
            ev.append((te + 0.4, "Warning", "Error", "pytorchjob/%s" % self.kjob, "Error pod %s container pytorch exitCode: %d terminated message: " % (self.pod[h], code)))
            ev.append((te + 0.5, "Normal", "ExitedWithCode", "pytorchjob/%s" % self.kjob, "Pod: %s.%s exited with code %d" % (ns, self.pod[h], code)))
            if first_fail is None or te < first_fail[0]:
                first_fail = (te, h)
        if first_fail:
            kind = "Master" if first_fail[1] == self.hosts[0] else "Worker"
            ev.append((first_fail[0] + 1.0, "Warning", "PyTorchJobFailed", "pytorchjob/%s" % self.kjob,
                       "PyTorchJob %s is failed because 1 %s replica(s) failed." % (self.kjob, kind)))
        if getattr(self, "k8s_node_shutdown", None):
            hh = self.k8s_node_shutdown
            ev.append((self.t_fail + r.uniform(35, 50), "Normal", "NodeNotReady", "node/%s" % hh, "Node %s status is now: NodeNotReady" % hh))
        ev.sort(key=lambda x: x[0])
        ev = [x for x in ev if tcoll - x[0] < 3600]
        rows = [("LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE")] + [(age(t), a, b, c, d) for t, a, b, c, d in ev]
        wd = [max(len(x[i]) for x in rows) for i in range(4)]
        if ev:
            self.files["events.txt"] = "$ kubectl get events -n %s --sort-by=.lastTimestamp\n" % ns + "\n".join(
                "%-*s   %-*s   %-*s   %-*s   %s" % (wd[0], a, wd[1], b, wd[2], c, wd[3], d, e) for a, b, c, d, e in rows) + "\n"
        else:
            self.files["events.txt"] = "$ kubectl get events -n %s --sort-by=.lastTimestamp\nNo resources found in %s namespace.\n" % (ns, ns)
        # describe of the failed pods
        for h, (reason, code, te) in reason_of.items():
            pod = self.pod[h]
            st = self.wall(h, self.t0 - r.uniform(5, 15))
            lines = ["Name:             %s" % pod, "Namespace:        %s" % ns, "Priority:         0", "Service Account:  default",
                     "Node:             %s/%s" % (h, self.ip[h]), "Start Time:       %s" % f_rfc1123(st, UTCZ),
                     "Labels:           training.kubeflow.org/job-name=%s" % self.kjob,
                     "                  training.kubeflow.org/replica-index=%d" % max(0, self.hosts.index(h) - 1),
                     "                  training.kubeflow.org/replica-type=%s" % ("master" if h == self.hosts[0] else "worker"),
                     "Status:           Failed"]
            if reason == "Terminated":
                lines += ["Reason:           Terminated", "Message:          Pod was terminated in response to imminent node shutdown."]
            lines += ["IP:               10.%d.%d.%d" % (r.randint(0, 255), r.randint(0, 255), r.randint(2, 250)), "Containers:", "  pytorch:",
                      "    Image:         nvcr.io/nvidia/pytorch:24.05-py3",
                      "    Command:", "      torchrun", "    Args:", "      --nnodes=%d" % self.nnodes, "      --nproc-per-node=%d" % self.gpn,
                      "      --rdzv-backend=c10d", "      --rdzv-endpoint=%s:29400" % self.pod[self.hosts[0]]] + (["      -m", "      %s" % self.entry] if self.module_mode else ["      %s" % self.script]) + [
                      "    State:          Terminated", "      Reason:       %s" % (reason if reason != "Terminated" else "Error"),
                      "      Exit Code:    %d" % code, "      Started:      %s" % f_rfc1123(st + 2, UTCZ),
                      "      Finished:     %s" % f_rfc1123(self.wall(h, te), UTCZ), "    Ready:          False", "    Restart Count:  0",
                      "    Limits:", "      cpu:             %d" % (self.gpn * 12), "      memory:          1800Gi", "      nvidia.com/gpu:  %d" % self.gpn,
                      "    Environment:", "      NCCL_DEBUG:                  %s" % ("INFO" if self.nccl_info else "WARN"),
                      "      TORCH_NCCL_ASYNC_ERROR_HANDLING:  1"]
            if self.zone_app[h] is not UTCZ:
                lines.append("      TZ:                          %s" % self.zone_app[h].name)
            lines += ["Conditions:", "  Type              Status", "  Initialized       True", "  Ready             False", "  ContainersReady   False", "  PodScheduled      True",
                      "Events:            <none>"]
            self.files["describe-pod-%s.txt" % pod] = "\n".join(lines) + "\n"
        # the job object
        if self.outcome == "failed" and first_fail:
            cond = [("Created", "True", self.t0 - 60, "PyTorchJobCreated", "PyTorchJob %s is created." % self.kjob),
                    ("Running", "False" if first_fail else "True", self.t0 - 10, "PyTorchJobRunning", "PyTorchJob %s is running." % self.kjob),
                    ("Failed", "True", first_fail[0] + 1, "PyTorchJobFailed", "PyTorchJob %s is failed because 1 %s replica(s) failed." % (self.kjob, "Master" if first_fail[1] == self.hosts[0] else "Worker"))]
        else:
            cond = [("Created", "True", self.t0 - 60, "PyTorchJobCreated", "PyTorchJob %s is created." % self.kjob),
                    ("Running", "True" if self.outcome == "running" else "False", self.t0 - 10, "PyTorchJobRunning", "PyTorchJob %s is running." % self.kjob)]
            if self.outcome == "completed":
                cond.append(("Succeeded", "True", self.job_end + 1, "PyTorchJobSucceeded", "PyTorchJob %s is successfully completed." % self.kjob))
        lines = ["Name:         %s" % self.kjob, "Namespace:    %s" % ns, "API Version:  kubeflow.org/v1", "Kind:         PyTorchJob", "Spec:",
                 "  Pytorch Replica Specs:", "    Master:", "      Replicas:        1", "      Restart Policy:  Never", "    Worker:",
                 "      Replicas:        %d" % (self.nnodes - 1), "      Restart Policy:  Never", "  Run Policy:", "    Clean Pod Policy:  None", "Status:", "  Conditions:"]
        for ty, stt, t, rs, msg in cond:
            lines += ["    Last Transition Time:  %s" % f_iso(kube.wall(t), UTCZ, 0, "Z"), "    Last Update Time:      %s" % f_iso(kube.wall(t), UTCZ, 0, "Z"),
                      "    Message:               %s" % msg, "    Reason:                %s" % rs, "    Status:                %s" % stt, "    Type:                  %s" % ty]
        lines += ["  Start Time:  %s" % f_iso(kube.wall(self.t0 - 60), UTCZ, 0, "Z")]
        if self.outcome != "running":
            lines += ["  Completion Time:  %s" % f_iso(kube.wall(self.job_end + 1), UTCZ, 0, "Z")]
        self.files["describe-pytorchjob.txt"] = "\n".join(lines) + "\n"
        fmt = r.choice(["journal_iso", "journal_precise", "journal_short"])
        for h in self.kern_hosts():
            self.files["node-%s-journal.txt" % self.shorthost(h)] = self.kern_text(h, fmt, grep=r.random() < 0.6, since=self.t0 - 3600)
        self.extras_common()

    def L_aggregator_export(self):
        r = self.rng
        loki = r.random() < 0.5
        lag = {h: r.uniform(0.2, 3.0) for h in self.hosts}
        flush = {h: r.choice([1.0, 1.0, 5.0, 2.0]) for h in self.hosts}
        phase = {h: r.uniform(0, 1) for h in self.hosts}

        def batch(h, t):
            k = int((t - phase[h]) // flush[h]) + 1
            return k * flush[h] + phase[h] + 0.003
        if r.random() < 0.5:
            slow = r.choice(self.hosts)
            lag[slow] = r.uniform(40, 400)
            self.quirks.append("log shipper on %s was %.0f s behind (batches arrive late at the aggregator)" % (slow, lag[slow]))
        recs = []
        for ln in self.visible(lambda x: x.src in ("app", "agent")):
            h = ln.host
            if ln.src == "agent":
                fn = "/var/log/torchrun/torchrun.log"
            else:
                fn = "/var/log/train/rank-%02d.%s" % (ln.rank, "log" if ln.stream == "err" else "out")
            read = batch(h, ln.te)
            arr = read + lag[h]
            recs.append((h, fn, ln.text, read, arr, ln.te, ln.seq))
        for h in self.hosts:
            for (t, i, p, x) in [(t, "kernel", None, x) for t, x in self.kernlog.get(h, [])] + list(self.syslog.get(h, [])):
                if t < self.t0 - 600 or t > self.t_collect or (self.no_kern and h == self.A):
                    continue
                for part in x.split("\n"):
                    recs.append((h, "journald:%s" % i, part, t + 0.0005, batch(h, t) + lag[h], t, 0))
        first_err = min([f["t_msg"] for f in self.exit.values() if f["kind"] in ("primary", "remote", "timeout", "other", "killed")] + [self.t_fail])
        lo = first_err - r.uniform(600, 2400)
        hi = self.t_collect - r.uniform(0, 120)
        recs = [x for x in recs if lo <= x[4] <= hi]
        recs.sort(key=lambda x: (x[4], x[6]))
        limit = r.choice([5000, 3000, 10000])
        self.aggr_truncated = False
        if loki:
            # Loki assigns the shipper's (node clock) timestamp; logcli prints newest first
            rows = []
            for h, fn, txt, read, arr, te, seq in recs:
                ts = self.wall(h, read)
                rows.append((ts, seq, h, fn, txt))
            rows.sort(key=lambda x: (x[0], x[1]), reverse=True)
            if len(rows) > limit:
                rows = rows[:limit]
                self.aggr_truncated = True
            tzq = r.choice([UTCZ, self.site])
            out = []
            for ts, seq, h, fn, txt in rows:
                lab = {"filename": fn, "host": self.shorthost(h), "job": "train-%s" % self.kname()}
                if fn.startswith("journald:"):
                    lab = {"host": self.shorthost(h), "job": "systemd-journal", "syslog_identifier": fn.split(":", 1)[1]}
                out.append(json.dumps({"labels": lab, "line": txt, "timestamp": f_iso(ts, tzq, 9, "Z" if tzq is UTCZ else "colon")}))
            self.files["loki-export.jsonl"] = "\n".join(out) + "\n"
            self.files["query.txt"] = ("logcli query --timezone=%s --limit=%d --output=jsonl --from=\"%s\" --to=\"%s\" '{host=~\"%s\"}'\n" % (
                "UTC" if tzq is UTCZ else "Local", limit, f_iso(lo, UTCZ, 0), f_iso(hi, UTCZ, 0), "|".join(self.shorthost(h) for h in self.hosts)))
            if self.aggr_truncated:
                self.files["query.txt"] += "(hit the --limit; older lines of the window are not in the export)\n"
        else:
            tzb = r.choice([UTCZ, self.site, ZONES["America/Los_Angeles"]])
            rows = []
            for h, fn, txt, read, arr, te, seq in recs:
                ts = None
                if txt.startswith("{") and '"ts"' in txt:
                    try:
                        ts = json.loads(txt)["ts"]
                    except ValueError:
                        ts = None
                if ts is None:
                    ts = self.wall(h, read)
                rows.append((ts, seq, h, fn, txt, self.wall("agg", arr)))
            rows.sort(key=lambda x: (x[0], x[1]), reverse=True)
            if len(rows) > limit:
                rows = rows[:limit]
                self.aggr_truncated = True

            def q(s):
                return '"' + s.replace('"', '""') + '"'
            out = ['"@timestamp","host.name","event.dataset",message,"event.ingested"']
            for ts, seq, h, fn, txt, ing in rows:
                if fn.startswith("journald:"):
                    ds = "system.syslog" if fn != "journald:kernel" else "system.kernel"
                elif "torchrun" in fn:
                    ds = "train.launcher"
                else:
                    ds = "train." + fn.rsplit("/", 1)[1].replace(".log", ".stderr").replace(".out", ".stdout")
                out.append(",".join([q(f_kibana(ts, tzb)), q(self.shorthost(h)), q(ds), q(txt), q(f_kibana(ing, tzb))]))
            self.files["discover-export.csv"] = "\n".join(out) + "\n"
            self.files["query.txt"] = "Kibana Discover, index logs-train-*, sorted @timestamp desc, browser time zone %s\nhost.name:(%s)\nrange: %s -> %s\n%s" % (
                tzb.name, " or ".join(self.shorthost(h) for h in self.hosts), f_kibana(lo, tzb), f_kibana(hi, tzb),
                "(export capped at %d rows)\n" % limit if self.aggr_truncated else "")
        self.extras_common()

    def L_mpirun_tagged(self):
        r = self.rng
        head = self.hosts[0]
        zh = self.zone_sys[head]
        out = []
        t = self.t0 - 2
        cmd = "mpirun -np %d -H %s --tag-output --timestamp-output --bind-to none -x NCCL_DEBUG=%s -x MASTER_ADDR=%s -x MASTER_PORT=29500 python%s %s --config configs/%s.yaml" % (
            self.world, ",".join("%s:%d" % (h, self.gpn) for h in self.hosts), "INFO" if self.nccl_info else "WARN", head, "" if self.stdout_buffered else " -u", self.script, self.kname())
        out.append((t, 0, "$ " + cmd))
        if r.random() < 0.5:
            sep = "-" * 74
            out.append((self.t0 + 1, 1, "%s\nWARNING: There was an error initializing an OpenFabrics device.\n\n  Local host:   %s\n  Local device: mlx5_%d\n%s" % (sep, r.choice(self.hosts), r.randint(0, 3), sep)))
            out.append((self.t0 + 2, 2, "[%s:%05d] %d more processes have sent help message help-mpi-btl-openib.txt / error in device init" % (head, self.agent_pid[head] % 100000, self.world - 1)))
            out.append((self.t0 + 2.1, 3, "[%s:%05d] Set MCA parameter \"orte_base_help_aggregate\" to 0 to see all help / error messages" % (head, self.agent_pid[head] % 100000)))
        lat = {h: (0.0005 if h == head else r.uniform(0.002, 0.03)) for h in self.hosts}
        for ln in self.visible(lambda x: x.src in ("app", "mpirun")):
            if ln.src == "mpirun":
                out.append((ln.te, ln.seq + 10, ln.text))
                continue
            arr = ln.te + lat[ln.host]
            pre = "%s[1,%d]<%s>:" % (f_ctime(self.wall(head, arr), zh), ln.rank, "stdout" if ln.stream == "out" else "stderr")
            out.append((arr, ln.seq + 10, pre + ln.text))
        if getattr(self, "mpi_lost", None):
            A, tl = self.mpi_lost
            sep = "-" * 74
            out.append((tl, 10 ** 9, "%s\nORTE has lost communication with a remote daemon.\n\n  HNP daemon   : [[%d,0],0] on node %s\n  Remote daemon: [[%d,0],%d] on node %s\n\nThis is usually due to either a failure of the TCP network\nconnection to the node, or possibly an internal failure of\nthe daemon itself. We cannot recover from this failure, and\ntherefore will terminate the job.\n%s" % (
                sep, self.jobid, head, self.jobid, self.hosts.index(A), A, sep)))
        if getattr(self, "vanished", None):
            A, tv = self.vanished
            sep = "-" * 74
            out.append((tv + r.uniform(20, 120), 10 ** 9, "%s\nORTE has lost communication with a remote daemon.\n\n  HNP daemon   : [[%d,0],0] on node %s\n  Remote daemon: [[%d,0],%d] on node %s\n\nThis is usually due to either a failure of the TCP network\nconnection to the node, or possibly an internal failure of\nthe daemon itself. We cannot recover from this failure, and\ntherefore will terminate the job.\n%s" % (
                sep, self.jobid, head, self.jobid, self.hosts.index(A), A, sep)))
        out.sort(key=lambda x: (x[0], x[1]))
        vis = out
        cut = self.trim_cut(self.visible(lambda x: x.src == "app"))
        if cut:
            n = sum(1 for x in vis if x[0] < cut and x[1] >= 10)
            vis = [x for x in vis if not (x[0] < cut and x[1] >= 10 and x[1] < 10 ** 9)]
            vis.insert(min(len(vis), 4), (cut, 5, "[... %d lines trimmed ...]" % n))
        self.files["mpirun.log"] = "\n".join(x[2] for x in vis) + "\n"
        self.files["hostfile"] = "".join("%s slots=%d\n" % (h, self.gpn) for h in self.hosts)
        fmt = r.choice(["dmesg", "dmesg_T", "kernlog"])
        for h in self.kern_hosts():
            self.files[{"dmesg": "dmesg_%s.txt", "dmesg_T": "dmesg-T_%s.txt", "kernlog": "syslog.%s"}[fmt] % self.shorthost(h)] = self.kern_text(
                h, fmt, grep=r.random() < 0.5, since=self.t0 - 3 * 3600 if fmt == "kernlog" else None)
            if fmt != "kernlog":
                self.chrony_journal(h)
        self.extras_common()

    def L_deepspeed_pdsh(self):
        r = self.rng
        head = self.hosts[0]
        out = []
        t = self.t0 - 3
        wi = json.dumps({h: list(range(self.gpn)) for h in self.hosts})
        import base64
        b64 = base64.urlsafe_b64encode(wi.encode()).decode()
        out.append((t, 0, "[%s] [INFO] [runner.py:568:main] cmd = pdsh -S -f 1024 -w %s export PYTHONPATH=%s; cd %s; %s -u -m deepspeed.launcher.launch --world_info=%s --node_rank=%%n --master_addr=%s --master_port=29500 %s --deepspeed --deepspeed_config ds_config.json" % (
            self.pylog_ts(head, t), ",".join(self.hosts), self.workdir, self.workdir, self.py, b64, self.ip[head], self.script)))
        out.append((t - 0.3, -1, "[%s] [INFO] [multinode_runner.py:80:get_cmd] Running on the following workers: %s" % (self.pylog_ts(head, t - 0.3), ",".join(self.hosts))))
        for i, h in enumerate(self.hosts):
            tl = self.t0 + r.uniform(0.5, 3)
            for k, msg in enumerate(["[INFO] [launch.py:146:main] WORLD INFO DICT: %s" % wi.replace('"', "'"),
                                     "[INFO] [launch.py:152:main] nnodes=%d, num_local_procs=%d, node_rank=%d" % (self.nnodes, self.gpn, i),
                                     "[INFO] [launch.py:163:main] global_rank_mapping=defaultdict(<class 'list'>, %s)" % {hh: self.ranks_on[hh] for hh in self.hosts},
                                     "[INFO] [launch.py:164:main] dist_world_size=%d" % self.world,
                                     "[INFO] [launch.py:168:main] Setting CUDA_VISIBLE_DEVICES=%s" % ",".join(str(x) for x in range(self.gpn))]):
                out.append((tl + 0.001 * k, 1, "%s: [%s] %s" % (h, self.pylog_ts(h, tl), msg)))
        dlat = {h: (0.001 if h == head else r.uniform(0.003, 0.08)) for h in self.hosts}
        for ln in self.visible(lambda x: x.src in ("app", "agent", "pdsh")):
            if ln.src == "pdsh":
                out.append((ln.te, ln.seq + 10, ln.text))
                continue
            arr = ln.te + dlat[ln.host]
            out.append((arr, ln.seq + 10, "%s: %s" % (ln.host, ln.text)))
        out.sort(key=lambda x: (x[0], x[1]))
        cut = self.trim_cut(self.visible(lambda x: x.src == "app"))
        if cut:
            n = sum(1 for x in out if x[0] < cut and x[1] >= 10)
            out = [x for x in out if not (x[0] < cut and x[1] >= 10)]
        self.files["train.log"] = "\n".join(x[2] for x in out) + "\n"
        self.files["hostfile"] = "".join("%s slots=%d\n" % (h, self.gpn) for h in self.hosts)
        fmt = r.choice(["kernlog", "messages", "dmesg_T"])
        for h in self.kern_hosts():
            self.files[{"kernlog": "syslog-%s", "messages": "messages-%s", "dmesg_T": "dmesg-T-%s.txt"}[fmt] % self.shorthost(h)] = self.kern_text(
                h, fmt, grep=r.random() < 0.5, since=self.t0 - 3 * 3600 if fmt != "dmesg_T" else None)
            if fmt == "dmesg_T":
                self.chrony_journal(h)
        self.extras_common()

    def render(self):
        getattr(self, "L_" + self.layout)()
        # keep every bundle under 1 MB
        tot = sum(len(v.encode()) for v in self.files.values())
        guard = 0
        while tot > 960_000 and guard < 40:
            guard += 1
            k = max(sorted(self.files), key=lambda x: len(self.files[x]))
            txt = self.files[k]
            over = min(tot - 940_000, len(txt) // 2)
            lines = txt.split("\n")
            drop, acc = 0, 0
            while acc < over and drop < len(lines) - 20:
                acc += len(lines[drop]) + 1
                drop += 1
            if drop == 0:
                break
            self.files[k] = "[... %d earlier lines not included ...]\n" % drop + "\n".join(lines[drop:])
            tot = sum(len(v.encode()) for v in self.files.values())

    def write(self, root):
        name = "run-%03d-%s" % (self.idx, self.layout)
        d = os.path.join(root, name)
        os.makedirs(d, exist_ok=True)
        for rel in sorted(self.files):
            p = os.path.join(d, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w", encoding="utf-8") as fh:
                fh.write(self.files[rel])
        with open(os.path.join(d, "truth.json"), "w", encoding="utf-8") as fh:
            json.dump(self.truth(), fh, indent=2, ensure_ascii=False)
            fh.write("\n")
        return name


# ----------------------------------------------------------------------------------
# planning and main
# ----------------------------------------------------------------------------------
def plan(seed, n):
    rng = random.Random("blind35-plan|%s" % seed)
    order = list(CAUSES)
    rng.shuffle(order)
    lay = list(LAYOUTS)
    rng.shuffle(lay)
    use = {l: 0 for l in LAYOUTS}
    pair = {}
    out = []
    j = 0
    hcount = 0
    for i in range(n):
        if i % 7 == 3:
            l = lay[hcount % len(lay)]
            hcount += 1
            out.append((i, None, l))
            use[l] += 1
            continue
        c = order[j % len(CAUSES)]
        j += 1
        cands = sorted(LAYOUTS, key=lambda l: (pair.get((c, l), 0), use[l], lay.index(l)))
        best = [l for l in cands if pair.get((c, l), 0) == pair.get((c, cands[0]), 0) and use[l] == use[cands[0]]]
        l = rng.choice(best)
        pair[(c, l)] = pair.get((c, l), 0) + 1
        use[l] += 1
        out.append((i, c, l))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description="blind35: synthetic multi-node failure bundles with disagreeing clocks")
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    counts = {}
    t0 = _time.time()
    for i, c, l in plan(a.seed, a.n):
        run = Run(a.seed, i, l, c, c is None)
        run.build()
        run.render()
        run.write(a.out)
        key = c or "healthy"
        counts[key] = counts.get(key, 0) + 1
    res = {"seed": a.seed, "n": a.n, "counts": {k: counts[k] for k in sorted(counts)}}
    print(json.dumps(res, indent=1))
    print("generated %d runs in %.1f s" % (a.n, _time.time() - t0), file=sys.stderr)


if __name__ == "__main__":
    main()
