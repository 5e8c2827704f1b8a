"""Shared model for the blind4 generator: topology, clocks, per-rank streams.

Everything here is deterministic given the Random instance handed in.
"""
from __future__ import annotations

import datetime as _dt
import random
from dataclasses import dataclass, field

UTC = _dt.timezone.utc

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
DE_MONTHS = ["Jan", "Feb", "Mär", "Apr", "Mai", "Jun", "Jul", "Aug", "Sep", "Okt", "Nov", "Dez"]
DE_DAYS = ["Mo", "Di", "Mi", "Do", "Fr", "Sa", "So"]
FR_MONTHS = ["janv.", "févr.", "mars", "avril", "mai", "juin", "juil.", "août", "sept.", "oct.", "nov.", "déc."]
FR_DAYS = ["lun.", "mar.", "mer.", "jeu.", "ven.", "sam.", "dim."]


def dt(epoch: float) -> _dt.datetime:
    return _dt.datetime.fromtimestamp(epoch, UTC)


# ---------------------------------------------------------------- time styles
def ts_py(e: float) -> str:                      # 2024-12-01 12:34:56,789
    d = dt(e)
    return d.strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (d.microsecond // 1000)


def ts_py_dot(e: float) -> str:                  # 2024-12-01 12:34:56.789
    d = dt(e)
    return d.strftime("%Y-%m-%d %H:%M:%S") + ".%03d" % (d.microsecond // 1000)


def ts_sec(e: float) -> str:                     # 2024-12-01 12:34:56
    return dt(e).strftime("%Y-%m-%d %H:%M:%S")


def ts_iso(e: float, frac: int = 6, z: bool = True) -> str:
    d = dt(e)
    s = d.strftime("%Y-%m-%dT%H:%M:%S")
    if frac:
        us = "%06d" % d.microsecond
        s += "." + (us + "000")[:frac]
    return s + ("Z" if z else "+00:00")


def ts_glog(e: float, lvl: str = "I", ns: bool = False) -> str:  # I1201 12:34:56.789012
    d = dt(e)
    frac = "%06d" % d.microsecond
    if ns:
        frac += "%03d" % (int(e * 1e9) % 1000)
    return "%s%02d%02d %s.%s" % (lvl, d.month, d.day, d.strftime("%H:%M:%S"), frac)


def ts_elastic(e: float, lvl: str = "I") -> str:  # W1201 12:34:56.789000
    d = dt(e)
    return "%s%02d%02d %s.%03d000" % (lvl, d.month, d.day, d.strftime("%H:%M:%S"), d.microsecond // 1000)


def ts_ctime(e: float) -> str:                   # Sun Dec  1 12:34:56 2024
    d = dt(e)
    return "%s %s %2d %s %d" % (DAYS[d.weekday()], MONTHS[d.month - 1], d.day, d.strftime("%H:%M:%S"), d.year)


def ts_ctime_de(e: float) -> str:
    d = dt(e)
    return "%s %s %2d %s %d" % (DE_DAYS[d.weekday()], DE_MONTHS[d.month - 1], d.day, d.strftime("%H:%M:%S"), d.year)


def ts_ctime_fr(e: float) -> str:
    d = dt(e)
    return "%s %s %2d %s %d" % (FR_DAYS[d.weekday()], FR_MONTHS[d.month - 1], d.day, d.strftime("%H:%M:%S"), d.year)


def ts_syslog(e: float) -> str:                  # Dec  1 12:34:56
    d = dt(e)
    return "%s %2d %s" % (MONTHS[d.month - 1], d.day, d.strftime("%H:%M:%S"))


def ts_journal(e: float) -> str:                 # Dec 01 12:34:56
    d = dt(e)
    return "%s %02d %s" % (MONTHS[d.month - 1], d.day, d.strftime("%H:%M:%S"))


def ts_slurm(e: float) -> str:                   # 2024-12-01T12:34:56
    return dt(e).strftime("%Y-%m-%dT%H:%M:%S")


def ts_vllm(e: float) -> str:                    # 12-01 12:34:56
    return dt(e).strftime("%m-%d %H:%M:%S")


def ts_elastic_fail(e: float) -> str:            # 2024-12-01_12:34:56
    return dt(e).strftime("%Y-%m-%d_%H:%M:%S")


# ---------------------------------------------------------------- topology
@dataclass
class Node:
    idx: int
    host: str                     # spelling used by the processes on it (hostname)
    aliases: list = field(default_factory=list)
    ip: str = ""
    skew: float = 0.0             # node clock - true clock, seconds
    boot: float = 0.0             # epoch of boot (node clock)
    first_rank: int = 0
    gpus: int = 8
    pci: list = field(default_factory=list)    # '0000:18:00' per local GPU
    kernel: list = field(default_factory=list)  # (t_true, msg)
    sys: list = field(default_factory=list)     # (t_true, ident, msg) non-kernel syslog
    k8s_node: str = ""
    ib_ifs: list = field(default_factory=list)  # mlx5_0 ...
    eth: str = "ens21f0np0"


@dataclass
class Rank:
    r: int
    node: Node
    local: int
    pid: int
    tid: int
    lines: list = field(default_factory=list)   # (t_true, stream, text)
    exit: tuple | None = None                   # (t, kind, value) kind: code|signal
    silent_after: float | None = None           # lines after this time are dropped


PCI_SETS = {
    8: [["0000:18:00", "0000:2a:00", "0000:3a:00", "0000:5d:00", "0000:9a:00", "0000:ab:00", "0000:ba:00", "0000:db:00"],
        ["0000:19:00", "0000:3b:00", "0000:4c:00", "0000:5d:00", "0000:9b:00", "0000:bb:00", "0000:cb:00", "0000:db:00"],
        ["0000:07:00", "0000:0f:00", "0000:47:00", "0000:4e:00", "0000:87:00", "0000:90:00", "0000:b7:00", "0000:bd:00"],
        ["0000:1b:00", "0000:43:00", "0000:52:00", "0000:61:00", "0000:9d:00", "0000:c3:00", "0000:d1:00", "0000:df:00"]],
    4: [["0000:07:00", "0000:46:00", "0000:85:00", "0000:c7:00"],
        ["0000:03:00", "0000:41:00", "0000:82:00", "0000:c1:00"]],
    6: [["0004:04:00", "0004:05:00", "0004:06:00", "0035:03:00", "0035:04:00", "0035:05:00"]],
    2: [["0000:3b:00", "0000:d8:00"]],
    1: [["0000:00:05"]],
}


class Run:
    """One generated job: topology, clocks, per-rank output, node logs."""

    def __init__(self, rng: random.Random, idx: int, layout: str, cause):
        self.rng = rng
        self.idx = idx
        self.layout = layout
        self.cause = cause
        self.nodes: list[Node] = []
        self.ranks: list[Rank] = []
        self.files: dict[str, bytes | str] = {}
        self.truth: dict = {}
        self.notes = ""
        self.meta: dict = {}
        # software stack
        self.torch = rng.choice(["2.5.1", "2.6.0", "2.7.1", "2.8.0", "2.9.0", "2.6.0", "2.7.0"])
        self.nccl = {"2.5.1": "2.21.5", "2.6.0": rng.choice(["2.21.5", "2.23.4"]),
                     "2.7.0": "2.26.2", "2.7.1": "2.26.2", "2.8.0": "2.27.3",
                     "2.9.0": rng.choice(["2.27.5", "2.27.7"])}[self.torch]
        self.cuda = {"2.5.1": "12.4", "2.6.0": "12.6", "2.7.0": "12.8", "2.7.1": "12.8",
                     "2.8.0": "12.8", "2.9.0": "12.9"}[self.torch]
        self.driver = "550.127.05"     # chosen for real in pick_dates()
        self.py = rng.choice(["3.10", "3.11", "3.12"])
        self.t0 = 0.0
        self.gpn = 8
        self.pg_timeout = 600

    # ----------------------------------------------------------- helpers
    @property
    def world(self) -> int:
        return len(self.ranks)

    def tv(self) -> tuple:
        return tuple(int(x) for x in self.torch.split(".")[:2])

    def nv(self) -> tuple:
        return tuple(int(x) for x in self.nccl.split(".")[:2])

    def node_of(self, r: int) -> Node:
        return self.ranks[r].node

    def ranks_on(self, node: Node) -> list:
        return [rk for rk in self.ranks if rk.node is node]

    def e(self, t: float, node: Node | None = None) -> float:
        """epoch as seen by node's clock for true time t (seconds since t0)."""
        return self.t0 + t + (node.skew if node else 0.0)

    def emit(self, r: int, t: float, text: str, stream: str = "err"):
        rk = self.ranks[r]
        for ln in text.split("\n"):
            rk.lines.append((t, stream, ln))

    def kern(self, node: Node, t: float, msg: str):
        for ln in msg.split("\n"):
            node.kernel.append((t, ln))

    def sysl(self, node: Node, t: float, ident: str, msg: str):
        node.sys.append((t, ident, msg))

    def set_exit(self, r: int, t: float, kind: str, value: int, force: bool = False):
        rk = self.ranks[r]
        if rk.exit is None or force or t < rk.exit[0]:
            rk.exit = (t, kind, value)

    def add_file(self, path: str, data):
        self.files[path] = data

    def rank_lines(self, r: int, until: float | None = None):
        rk = self.ranks[r]
        end = rk.exit[0] if rk.exit else None
        out = []
        for (t, s, x) in sorted(rk.lines, key=lambda z: z[0]):
            if end is not None and t > end + 0.5:
                continue
            if rk.silent_after is not None and t > rk.silent_after:
                continue
            if until is not None and t > until:
                continue
            out.append((t, s, x))
        return out


# ---------------------------------------------------------------- names
def host_names(rng: random.Random, style: str, n: int) -> list:
    """Return list of (host, aliases, ip)."""
    out = []
    base = rng.randint(1, 400)
    net = "10.%d.%d" % (rng.randint(0, 200), rng.randint(0, 31))
    used = set()
    for i in range(n):
        ipl = "%s.%d" % (net, 10 + i * 3 + (base % 3))
        if style == "nid":
            h = "nid%06d" % (1000 + base * 4 + i * 4)
            out.append((h, [h + ".chn", ipl], ipl))
        elif style == "gpu":
            kind = rng.choice(["a100", "h100", "h200"]) if i == 0 else out[0][0].split("-")[1]
            h = "gpu-%s-%03d" % (kind, base + i)
            out.append((h, [h + ".cluster.local", ipl], ipl))
        elif style == "dgx":
            h = "dgx%02d" % ((base % 60) + i + 1)
            fq = h + ".%s.internal" % rng.choice(["sc", "hpc", "ai"])
            out.append((fq, [h, ipl], ipl))
        elif style == "fqdn":
            h = "hgx-%s-%04d" % (rng.choice(["b200", "h100", "gb200"]) if i == 0 else out[0][0].split("-")[1], 100 + base + i)
            dom = rng.choice(["ml.corp.example.com", "research.example.org", "gpu.dc2.example.net"])
            if i:
                dom = out[0][0].split(".", 1)[1]
            out.append(("%s.%s" % (h, dom), [h, ipl], ipl))
        elif style == "cn":
            h = "cn%04d" % (base + i)
            out.append((h, [ipl], ipl))
        elif style == "ec2":
            a, b = rng.randint(0, 15), rng.randint(2, 250)
            while (a, b) in used:
                a, b = rng.randint(0, 15), rng.randint(2, 250)
            used.add((a, b))
            ip = "10.0.%d.%d" % (a, b)
            h = "ip-10-0-%d-%d" % (a, b)
            out.append((h, [h + ".ec2.internal", ip], ip))
        elif style == "polaris":
            h = "x%d%03dc%ds%db0n0" % (rng.choice([3, 3, 4]), rng.randint(0, 210) if i == 0 else 0, rng.randint(0, 7), rng.randint(0, 15))
            if i:
                base_h = out[0][0]
                h = base_h[:5] + "c%ds%db0n0" % ((i // 8) % 8, (i * 3 + 1) % 16)
            while h in used:
                h = h[:-4] + "%db0n0" % rng.randint(0, 15)
            used.add(h)
            out.append((h, [h + ".hsn.cm.polaris.alcf.anl.gov", ipl], ipl))
        elif style == "summit":
            h = "%s%02dn%02d" % (rng.choice(["h", "g", "f", "d"]), rng.randint(1, 50), i + 1 + base % 10)
            while h in used:
                h = h[:-2] + "%02d" % rng.randint(1, 18)
            used.add(h)
            out.append((h, [ipl], ipl))
        else:  # plain
            h = "node%03d" % (base % 100 + i)
            out.append((h, [ipl], ipl))
    return out


def pod_suffix(rng: random.Random, n: int = 5) -> str:
    return "".join(rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(n))


def hexid(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def make_topology(run: Run, nnodes: int, gpn: int, hosts: list, t_boot_min: float = 3 * 86400):
    """Create Node and Rank objects. hosts: list of (host, aliases, ip)."""
    rng = run.rng
    run.gpn = gpn
    pciset = rng.choice(PCI_SETS.get(gpn, [[("0000:%02x:00" % (0x10 + 0x10 * i)) for i in range(gpn)]]))
    ib = ["mlx5_%d" % i for i in rng.choice([[0, 3, 4, 5, 6, 9, 10, 11], [0, 1, 2, 3, 4, 5, 6, 7], [1, 2, 3, 4, 7, 8, 9, 10]])]
    r = 0
    for i in range(nnodes):
        h, al, ip = hosts[i]
        nd = Node(idx=i, host=h, aliases=list(al), ip=ip, gpus=gpn)
        nd.pci = list(pciset[:gpn]) if len(pciset) >= gpn else ["0000:%02x:00" % (0x10 * (k + 1)) for k in range(gpn)]
        nd.skew = 0.0
        nd.boot = -rng.uniform(t_boot_min, t_boot_min * 12)
        nd.first_rank = r
        nd.ib_ifs = ib[:max(1, min(8, gpn))]
        nd.eth = rng.choice(["ens21f0np0", "eth0", "enp27s0f0np0", "bond0", "ens8f0"])
        run.nodes.append(nd)
        pid = rng.randint(3000, 240000) + 7
        for l in range(gpn):
            pid += rng.randint(1, 3)
            run.ranks.append(Rank(r=r, node=nd, local=l, pid=pid, tid=pid))
            r += 1
    # clock skew: most nodes close, sometimes one far off
    for nd in run.nodes:
        nd.skew = rng.uniform(-0.8, 0.8)
    if nnodes > 1 and rng.random() < 0.3:
        rng.choice(run.nodes).skew = rng.choice([-1, 1]) * rng.uniform(20, 190)


def short(h: str) -> str:
    return h.split(".")[0]


# release dates (epoch) used to keep versions and dates consistent
TORCH_MIN = {"2.5.1": 1729468800, "2.6.0": 1738368000, "2.7.0": 1745539200, "2.7.1": 1749513600, "2.8.0": 1754611200, "2.9.0": 1760572800}
T_LAST = 1769817600   # 2026-01-31
DRIVERS = [("550.90.07", 1717977600, "12.4"), ("550.127.05", 1729036800, "12.4"), ("560.35.03", 1724112000, "12.6"),
           ("565.57.01", 1729641600, "12.7"), ("570.124.06", 1740441600, "12.8"), ("570.133.20", 1742860800, "12.8"),
           ("575.57.08", 1748476800, "12.9"), ("580.65.06", 1754352000, "13.0"), ("580.82.07", 1756771200, "13.0")]


def pick_dates(run: "Run"):
    rng = run.rng
    lo = TORCH_MIN[run.torch]
    run.t0 = float(rng.randint(lo, T_LAST)) + rng.random()
    ok = [d for d in DRIVERS if d[1] <= run.t0 - 14 * 86400 and float(d[2]) >= float(run.cuda)]
    if not ok:
        ok = [d for d in DRIVERS if d[1] <= run.t0] or DRIVERS[:1]
    d = rng.choice(ok)
    run.driver = d[0]
    run.meta["driver_cuda"] = d[2]
    run.meta["driver_date"] = d[1]


def pickn(run: "Run", opts: list):
    """Choose once per run for a given option list (source line numbers must not vary between ranks)."""
    key = "pick:" + ",".join(str(o) for o in opts)
    if key not in run.meta:
        run.meta[key] = run.rng.choice(opts)
    return run.meta[key]
