"""Core model for the blind5 generator: nodes, clocks, time formats, the Run object.

Stacks (b5_stacks_*.py) write *what happened* into a Run: per-rank process output,
launcher/agent output, kernel messages, system daemon messages, semantic cluster
events and raw attached files.  Platforms (b5_platforms.py) turn that into the log
streams a real scheduler would keep; exporters (b5_export.py) write those streams the
way a person exported them (kubectl, stern, Loki, Elastic, CloudWatch, ...).
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import random

UTC = _dt.timezone.utc
MON = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
DOW = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
MON_DE = ["Jan", "Feb", "Mär", "Apr", "Mai", "Jun", "Jul", "Aug", "Sep", "Okt", "Nov", "Dez"]
DOW_DE = ["Mo", "Di", "Mi", "Do", "Fr", "Sa", "So"]
MON_FR = ["janv.", "févr.", "mars", "avril", "mai", "juin", "juil.", "août", "sept.", "oct.", "nov.", "déc."]
DOW_FR = ["lun.", "mar.", "mer.", "jeu.", "ven.", "sam.", "dim."]
DOW_JA = ["月", "火", "水", "木", "金", "土", "日"]

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "host_oom_kill", "cuda_oom",
          "illegal_memory_access", "python_exception", "crash_signal", "hang",
          "collective_mismatch", "data_loader_stall", "preemption", "straggler"]
DRAIN_CAUSES = {"gpu_hardware", "ecc_memory", "nvlink"}


def utc(t: float) -> _dt.datetime:
    return _dt.datetime.fromtimestamp(t, UTC)


# ----------------------------------------------------------------- time formats
def f_iso(t, frac=3, z="Z"):
    d = utc(t)
    s = d.strftime("%Y-%m-%dT%H:%M:%S")
    if frac:
        s += "." + f"{d.microsecond:06d}"[:frac] if frac <= 6 else "." + f"{d.microsecond:06d}" + "0" * (frac - 6)
    return s + z


def f_iso_nano(t):
    d = utc(t)
    ns = int(round((t - int(t)) * 1e9)) % 1000000000
    return d.strftime("%Y-%m-%dT%H:%M:%S") + f".{ns:09d}Z"


def f_pylog(t, sep=","):
    d = utc(t)
    return d.strftime("%Y-%m-%d %H:%M:%S") + f"{sep}{d.microsecond // 1000:03d}"


def f_glog(t, lvl="I"):
    d = utc(t)
    return f"{lvl}{d.month:02d}{d.day:02d} {d.strftime('%H:%M:%S')}.{d.microsecond:06d}"


def f_c10(t, lvl="E"):
    """PyTorch >= 2.4 c10 logging: E501 12:00:01.123456789 (month without zero pad)."""
    d = utc(t)
    ns = int(round((t - int(t)) * 1e9)) % 1000000000
    return f"{lvl}{d.month}{d.day:02d} {d.strftime('%H:%M:%S')}.{ns:09d}"


def f_syslog(t):
    d = utc(t)
    return f"{MON[d.month - 1]} {d.day:2d} {d.strftime('%H:%M:%S')}"


def f_ctime(t):
    d = utc(t)
    return f"{DOW[d.weekday()]} {MON[d.month - 1]} {d.day:2d} {d.strftime('%H:%M:%S')} {d.year}"


def f_ctime_de(t):
    d = utc(t)
    return f"{DOW_DE[d.weekday()]} {MON_DE[d.month - 1]} {d.day:2d} {d.strftime('%H:%M:%S')} {d.year}"


def f_date_locale(t, loc):
    """What `date` prints in a job script under various locales."""
    d = utc(t)
    if loc == "de":
        return f"{DOW_DE[d.weekday()]} {d.day}. {MON_DE[d.month - 1]} {d.strftime('%H:%M:%S')} UTC {d.year}"
    if loc == "fr":
        return f"{DOW_FR[d.weekday()]} {d.day} {MON_FR[d.month - 1]} {d.year} {d.strftime('%H:%M:%S')} UTC"
    if loc == "ja":
        return f"{d.year}年 {d.month:2d}月 {d.day:2d}日 {DOW_JA[d.weekday()]}曜日 {d.strftime('%H:%M:%S')} UTC"
    return f"{DOW[d.weekday()]} {MON[d.month - 1]} {d.day:2d} {d.strftime('%H:%M:%S')} UTC {d.year}"


def f_neuron(t):
    d = utc(t)
    return f"{d.year}-{MON[d.month - 1]}-{d.day:02d} {d.strftime('%H:%M:%S')}.{d.microsecond:06d}"


def f_ascend(t):
    d = utc(t)
    return f"{d.strftime('%Y-%m-%d-%H:%M:%S')}.{d.microsecond // 1000:03d}.{d.microsecond % 1000:03d}"


def f_ray(t):
    d = utc(t)
    return d.strftime("%Y-%m-%d %H:%M:%S") + f",{d.microsecond // 1000:03d}"


def f_kibana(t):
    d = utc(t)
    return f"{MON[d.month - 1]} {d.day}, {d.year} @ {d.strftime('%H:%M:%S')}.{d.microsecond // 1000:03d}"


def f_hms(sec):
    sec = int(sec)
    return f"{sec // 3600:02d}:{sec % 3600 // 60:02d}:{sec % 60:02d}"


def f_age(sec):
    sec = int(max(0, sec))
    if sec < 120:
        return f"{sec}s"
    if sec < 3600 * 3:
        m, s = divmod(sec, 60)
        return f"{m}m{s}s" if m < 10 else f"{m}m"
    h = sec // 3600
    return f"{h}h{(sec % 3600) // 60}m" if h < 24 else f"{h // 24}d{h % 24}h"


# ----------------------------------------------------------------- naming
def hexid(rng, n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def alnum(rng, n, alphabet="bcdfghjklmnpqrstvwxz2456789"):
    return "".join(rng.choice(alphabet) for _ in range(n))


def pci_bus_ids(rng, n):
    pools = [["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"],
             ["0f", "2d", "44", "5c", "8d", "9c", "b8", "d0"],
             ["07", "0f", "47", "4e", "87", "90", "b7", "bd"],
             ["19", "3b", "4c", "5d", "9b", "bb", "cb", "db"],
             ["05", "26", "46", "65", "85", "a6", "c6", "e5"]]
    p = rng.choice(pools)
    return [p[i % 8] for i in range(n)]


class Node:
    def __init__(self, idx, host, ip, gpus, first_rank):
        self.idx = idx
        self.host = host          # the spelling the logs use (pod name on k8s)
        self.ip = ip
        self.gpus = gpus
        self.first_rank = first_rank
        self.aliases: list[str] = []
        self.k8s_node = None
        self.fqdn = None
        self.skew = 0.0
        self.boot = 0.0
        self.bus = []
        self.pids = []            # pid per local rank
        self.agent_pid = 0
        self.kfd_nodes = []

    @property
    def ranks(self):
        return list(range(self.first_rank, self.first_rank + self.gpus))


class Run:
    """Everything one generated run holds."""

    def __init__(self, rng: random.Random, idx: int):
        self.rng = rng
        self.idx = idx
        self.nodes: list[Node] = []
        self.gpn = 8
        self.t0 = 0.0
        self.cause = None
        self.healthy = False
        self.culprit_rank = None
        self.culprit_node = None
        self.rank_inferable = True
        self.drain = False
        self.notes = ""
        self.layout = ""
        # raw emissions
        self.app = []        # (t, rank, stream, text)
        self.agent_out = []  # (t, node_idx, stream, text)
        self.kern = []       # (t, node_idx, text, prio)
        self.sys = []        # (t, node_idx, ident, text)
        self.events = []     # (t, kind, node_idx, info)
        self.driver_out = [] # (t, stream, text)   job-level driver (ray driver, mpirun, CI)
        self.files = {}      # path -> str|bytes  (raw attachments)
        self.meta = {}
        self.t_end = 0.0
        self.exit_code = 0

    # ------------------------------------------------------------ topology
    @property
    def world(self):
        return sum(n.gpus for n in self.nodes)

    def node_of(self, rank) -> Node:
        for n in self.nodes:
            if n.first_rank <= rank < n.first_rank + n.gpus:
                return n
        raise KeyError(rank)

    def local(self, rank):
        n = self.node_of(rank)
        return rank - n.first_rank

    def pid(self, rank):
        n = self.node_of(rank)
        return n.pids[rank - n.first_rank]

    def lt(self, node_idx, t):
        """Local wall-clock of a node (its clock may be skewed)."""
        if node_idx is None:
            return t
        return t + self.nodes[node_idx].skew

    # ------------------------------------------------------------ emitters
    def out(self, rank, t, text, stream="stderr"):
        for ln in text.split("\n"):
            self.app.append((t, rank, stream, ln))
            t += 0.000013

    def agent(self, node_idx, t, text, stream="stderr"):
        for ln in text.split("\n"):
            self.agent_out.append((t, node_idx, stream, ln))
            t += 0.000011

    def k(self, node_idx, t, text, prio=3):
        for ln in text.split("\n"):
            self.kern.append((t, node_idx, ln, prio))
            t += 0.000004

    def sy(self, node_idx, t, ident, text):
        for ln in text.split("\n"):
            self.sys.append((t, node_idx, ident, ln))

    def ev(self, t, kind, node_idx=None, **info):
        self.events.append((t, kind, node_idx, info))

    def drv(self, t, text, stream="stdout"):
        for ln in text.split("\n"):
            self.driver_out.append((t, stream, ln))
            t += 0.00001

    # ------------------------------------------------------------ truth
    def set_truth(self, cause, rank=None, node=None, inferable=True, notes=""):
        self.cause = cause
        self.healthy = cause is None
        self.culprit_rank = rank
        self.culprit_node = node
        self.rank_inferable = inferable if cause is not None else True
        self.notes = notes

    def truth(self):
        node = self.nodes[self.culprit_node] if self.culprit_node is not None else None
        drain = False
        if self.cause in DRAIN_CAUSES:
            drain = True
        elif self.cause == "network" and node is not None:
            drain = True
        return {
            "cause": self.cause,
            "healthy": self.healthy,
            "rank": self.culprit_rank,
            "node": node.host if node else None,
            "drain": drain,
            "rank_inferable": bool(self.rank_inferable) if self.cause else True,
            "node_aliases": list(node.aliases) if node else [],
            "layout": self.layout,
            "notes": self.notes,
        }


def stable_hash(s: str) -> int:
    return int(hashlib.sha256(s.encode()).hexdigest()[:12], 16)


# ----------------------------------------------------------------- host naming
def make_hosts(rng, style, n, kind=None):
    """Return list of (host_as_logged, [aliases], ip)."""
    base3 = rng.randint(0, 40)
    sub = rng.choice(["10.0", "10.1", "10.12", "172.16", "172.31", "192.168", "10.224", "10.90"])
    start = rng.randint(1, 180)
    out = []
    if style == "nid":
        b = rng.randint(1000, 8000)
        for i in range(n):
            h = f"nid{b:06d}"
            b += rng.choice([1, 1, 1, 2])
            out.append((h, [f"{h}-hsn0"], None))
    elif style == "gpu-dash":
        kind = kind or rng.choice(["a100", "h100", "h200", "l40s", "b200"])
        b = rng.randint(1, 120)
        pref = rng.choice(["gpu", "hgx", "dgx", "sc"])
        for i in range(n):
            out.append((f"{pref}-{kind}-{b + i:03d}", [], None))
    elif style == "fqdn":
        dom = rng.choice(["cluster.local", "hpc.example.edu", "ml.corp.internal", "gpu.lab.example.org"])
        b = rng.randint(1, 300)
        pref = rng.choice(["gn", "node", "c", "hgx"])
        for i in range(n):
            short = f"{pref}{b + i:03d}"
            out.append((f"{short}.{dom}", [short], None))
    elif style == "aws":
        reg = rng.choice(["ec2.internal", "us-west-2.compute.internal", "eu-west-1.compute.internal"])
        for i in range(n):
            a, b_, c = 10, rng.randint(0, 3), rng.randint(0, 254)
            ip = f"{a}.{rng.randint(0, 255)}.{b_ * 64 + rng.randint(0, 63)}.{c}"
            h = "ip-" + ip.replace(".", "-")
            out.append((h, [f"{h}.{reg}", ip], ip))
    elif style == "pcluster":
        q = rng.choice(["compute", "train", "gpu-q", "trn-queue"])
        it = rng.choice(["trn1-32xlarge", "trn1n-32xlarge", "trn2-48xlarge"] if kind == "trn" else ["p5-48xlarge", "p4d-24xlarge", "p5e-48xlarge", "p5en-48xlarge"])
        kind = rng.choice(["st", "dy"])
        b = rng.randint(1, 40)
        for i in range(n):
            out.append((f"{q}-{kind}-{it}-{b + i}", [], None))
    elif style == "gce":
        pref = rng.choice(["a3-mega", "a3-ultra", "a3-high", "g2-std"])
        b = rng.randint(0, 60)
        for i in range(n):
            out.append((f"{pref}-vm-{b + i:03d}", [], None))
    elif style == "ascend":
        pref = rng.choice(["ascend-a2", "npu-node", "atlas800t", "pod-910b"])
        b = rng.randint(1, 90)
        for i in range(n):
            out.append((f"{pref}-{b + i:03d}", [], None))
    elif style == "gaudi":
        pref = rng.choice(["hls2", "gaudi2-srv", "g3-node"])
        b = rng.randint(1, 40)
        for i in range(n):
            out.append((f"{pref}-{b + i:02d}", [], None))
    elif style == "plain":
        pref = rng.choice(["node", "worker", "gpu", "compute"])
        b = rng.randint(1, 200)
        for i in range(n):
            out.append((f"{pref}{b + i:02d}", [], None))
    else:
        raise ValueError(style)
    res = []
    for i, (h, al, ip) in enumerate(out):
        if ip is None:
            ip = f"{sub}.{base3 + (start + i) // 250}.{(start + i) % 250 + 2}"
            al = list(al) + [ip]
        res.append((h, al, ip))
    return res


def build_nodes(R: Run, nnodes, gpn, style, kind=None):
    rng = R.rng
    hosts = make_hosts(rng, style, nnodes, kind)
    R.gpn = gpn
    R.nodes = []
    for i, (h, al, ip) in enumerate(hosts):
        n = Node(i, h, ip, gpn, i * gpn)
        n.aliases = list(al)
        n.skew = rng.choice([0.0, 0.0, 0.0, rng.uniform(-2.5, 2.5), rng.uniform(-40, 40)])
        n.boot = R.t0 - rng.uniform(3600 * 5, 3600 * 24 * 70)
        n.bus = pci_bus_ids(rng, gpn)
        base = rng.randint(1500, 380000)
        n.agent_pid = base
        n.pids = [base + 7 + j * rng.randint(1, 9) for j in range(gpn)]
        n.pids = sorted(set(n.pids))
        while len(n.pids) < gpn:
            n.pids.append(n.pids[-1] + 3)
        n.kfd_nodes = [2 + j for j in range(gpn)]
        R.nodes.append(n)
    return R.nodes


def pick_shape(rng, max_world=512, gpn_choices=(8, 8, 8, 8, 4, 4, 2, 1)):
    gpn = rng.choice(gpn_choices)
    nn = rng.choice([1, 2, 2, 2, 3, 4, 4, 4, 6, 8, 8, 8, 12, 16, 16, 24, 32, 48, 64])
    while nn * gpn > max_world:
        nn = max(1, nn // 2)
    if nn * gpn < 2:
        nn = 2
    return nn, gpn
