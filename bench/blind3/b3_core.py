"""Core model for the blind3 generator: time formatting, cluster/job model and
the emitters that write lines the way the real programs print them.

Standard library only.  Everything is driven by a random.Random instance that
is seeded per run, so the same seed gives the same bytes.
"""
import math
import time as _time

MON = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
       "Nov", "Dec"]
DOW = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

# --------------------------------------------------------------------------
# time formatting
# --------------------------------------------------------------------------


def _split(t, tz):
    lt = t + tz * 3600.0
    sec = math.floor(lt)
    frac = lt - sec
    return _time.gmtime(int(sec)), frac


def tzsuffix(tz, colon=True):
    sign = "+" if tz >= 0 else "-"
    h = int(abs(tz))
    m = int(round((abs(tz) - h) * 60))
    return "%s%02d%s%02d" % (sign, h, ":" if colon else "", m)


def fmt(t, style, tz=0.0):
    g, frac = _split(t, tz)
    Y, M, D, h, m, s = g.tm_year, g.tm_mon, g.tm_mday, g.tm_hour, g.tm_min, g.tm_sec
    ms = int(frac * 1000)
    us = int(frac * 1e6)
    ns = int(frac * 1e9)
    if style == "pylog":          # 2024-12-01 12:00:00,123
        return "%04d-%02d-%02d %02d:%02d:%02d,%03d" % (Y, M, D, h, m, s, ms)
    if style == "pylog_dot":      # 2024-12-01 12:00:00.123
        return "%04d-%02d-%02d %02d:%02d:%02d.%03d" % (Y, M, D, h, m, s, ms)
    if style == "pylog_us":       # 2024-12-01 12:00:00.123456
        return "%04d-%02d-%02d %02d:%02d:%02d.%06d" % (Y, M, D, h, m, s, us)
    if style == "plain":          # 2024-12-01 12:00:00
        return "%04d-%02d-%02d %02d:%02d:%02d" % (Y, M, D, h, m, s)
    if style == "iso":            # 2024-12-01T12:00:00.123456+01:00
        return "%04d-%02d-%02dT%02d:%02d:%02d.%06d%s" % (Y, M, D, h, m, s, us, tzsuffix(tz))
    if style == "isoz":           # 2024-12-01T12:00:00.123456789Z (UTC)
        return "%04d-%02d-%02dT%02d:%02d:%02d.%09dZ" % (Y, M, D, h, m, s, ns)
    if style == "isoz_ms":
        return "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ" % (Y, M, D, h, m, s, ms)
    if style == "isoz_s":
        return "%04d-%02d-%02dT%02d:%02d:%02dZ" % (Y, M, D, h, m, s)
    if style == "slurm":          # 2024-12-01T12:00:00
        return "%04d-%02d-%02dT%02d:%02d:%02d" % (Y, M, D, h, m, s)
    if style == "elastic":        # 2024-12-01_12:00:00
        return "%04d-%02d-%02d_%02d:%02d:%02d" % (Y, M, D, h, m, s)
    if style == "glog_ns":        # 1201 12:00:00.123456789  (level letter added by caller)
        return "%d%02d %02d:%02d:%02d.%09d" % (M, D, h, m, s, ns)
    if style == "glog_us":
        return "%02d%02d %02d:%02d:%02d.%06d" % (M, D, h, m, s, us)
    if style == "glog_ms0":       # torch elastic 2.4+: 1201 12:00:00.123000
        return "%02d%02d %02d:%02d:%02d.%03d000" % (M, D, h, m, s, ms)
    if style == "syslog":         # Dec  1 12:00:00
        return "%s %2d %02d:%02d:%02d" % (MON[M - 1], D, h, m, s)
    if style == "ctime":          # Sun Dec  1 12:00:00 2024
        return "%s %s %2d %02d:%02d:%02d %04d" % (DOW[g.tm_wday], MON[M - 1], D, h, m, s, Y)
    if style == "journal_iso":    # 2024-12-01T12:00:00+0100
        return "%04d-%02d-%02dT%02d:%02d:%02d%s" % (Y, M, D, h, m, s, tzsuffix(tz, False))
    if style == "epoch":
        return "%.3f" % t
    if style == "hms":
        return "%02d:%02d:%02d" % (h, m, s)
    if style == "k8s_age":
        return "%02d:%02d:%02d" % (h, m, s)
    raise ValueError(style)


def dur_hms(sec):
    sec = int(sec)
    return "%d:%02d:%02d" % (sec // 3600, sec % 3600 // 60, sec % 60)


def k8s_age(sec):
    sec = int(sec)
    if sec < 120:
        return "%ds" % sec
    if sec < 3600 * 3:
        return "%dm" % (sec // 60)
    if sec < 86400 * 2:
        return "%dh" % (sec // 3600)
    return "%dd" % (sec // 86400)


# --------------------------------------------------------------------------
# PCI bus layouts of real boards
# --------------------------------------------------------------------------

BUS = {
    "h100x8": ["0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0", "0000:5d:00.0",
               "0000:9a:00.0", "0000:ab:00.0", "0000:ba:00.0", "0000:db:00.0"],
    "a100x8": ["0000:07:00.0", "0000:0f:00.0", "0000:47:00.0", "0000:4e:00.0",
               "0000:87:00.0", "0000:90:00.0", "0000:b7:00.0", "0000:bd:00.0"],
    "a100x4": ["0000:07:00.0", "0000:46:00.0", "0000:85:00.0", "0000:c7:00.0"],
    "v100x6": ["0004:04:00.0", "0004:05:00.0", "0004:06:00.0", "0035:03:00.0",
               "0035:04:00.0", "0035:05:00.0"],
    "a10gx4": ["0000:00:1b.0", "0000:00:1c.0", "0000:00:1d.0", "0000:00:1e.0"],
    "l40sx2": ["0000:41:00.0", "0000:c1:00.0"],
    "h100x4": ["0000:19:00.0", "0000:3b:00.0", "0000:4c:00.0", "0000:5d:00.0"],
}
HCA_BUS = {
    "h100x8": ["0000:1a:00.0", "0000:3c:00.0", "0000:4d:00.0", "0000:5e:00.0",
               "0000:9c:00.0", "0000:bc:00.0", "0000:cc:00.0", "0000:dc:00.0"],
    "a100x8": ["0000:0c:00.0", "0000:12:00.0", "0000:4b:00.0", "0000:54:00.0",
               "0000:8d:00.0", "0000:94:00.0", "0000:ba:00.0", "0000:cc:00.0"],
}
GPU_NAME = {
    "h100x8": "NVIDIA H100 80GB HBM3", "a100x8": "NVIDIA A100-SXM4-80GB",
    "a100x4": "NVIDIA A100-SXM4-40GB", "v100x6": "Tesla V100-SXM2-16GB",
    "a10gx4": "NVIDIA A10G", "l40sx2": "NVIDIA L40S", "h100x4": "NVIDIA H100 80GB HBM3",
}
GPU_MEM_GIB = {"h100x8": 79.11, "a100x8": 79.15, "a100x4": 39.39, "v100x6": 15.78,
               "a10gx4": 22.19, "l40sx2": 44.39, "h100x4": 79.11}


def nccl_busid(pci):
    dom, bus, devfn = pci.split(":")
    dev = devfn.split(".")[0]
    d = int(dom, 16)
    b = "%s%s0" % (bus.lower(), dev.lower())
    return ("%x" % d + b) if d else b.lstrip("0") or "0"


def xid_pci(pci):
    return pci.rsplit(".", 1)[0]


# --------------------------------------------------------------------------
# job model
# --------------------------------------------------------------------------


class Node(object):
    def __init__(self, idx, host):
        self.idx = idx
        self.host = host          # spelling used by most logs (truth "node")
        self.nccl_host = host     # gethostname() as NCCL prints it
        self.fqdn = host          # socket.getfqdn()
        self.ip = None
        self.aliases = []
        self.skew = 0.0
        self.boot = 0.0
        self.k8s_node = None
        self.pod = None
        self.pod_ip = None
        self.agent_pid = 0
        self.ib_ip = None


class Rank(object):
    def __init__(self, r, node, local):
        self.r = r
        self.node = node
        self.local = local
        self.pid = 0
        self.tid = 0
        self.pci = ""
        self.busid = ""


class Job(object):
    """A training job: cluster shape, software versions and line streams."""

    def __init__(self, rng, run_id, layout):
        self.rng = rng
        self.run_id = run_id
        self.layout = layout
        self.nodes = []
        self.ranks = []
        self.gpn = 1
        self.board = "h100x8"
        self.tz = 0.0
        self.torch = "2.4"
        self.nccl = "2.21.5"
        self.cuda = "12.4"
        self.py = "3.10"
        self.site = "/usr/local/lib/python3.10/dist-packages"
        self.framework = "ddp"
        self.script = "train.py"
        self.timeout_ms = 600000
        self.nccl_debug = False
        self.fabric = "ib"      # ib | roce | socket | efa
        self.launcher = "torchrun"
        self.seq = 0
        self.rank_lines = {}
        self.agent_lines = {}
        self.kern = {}
        self.launcher_lines = []
        self.extra_files = {}
        self.end = {}           # rank -> (t, code) ; code: int exit or -signal
        self.notes_extra = []
        self.flags = {}
        self.userfmt = "std"
        self.t0 = 0.0
        self.t_end = 0.0
        self.jobid = 0
        self.jobname = "train"
        self.verbosity = 1.0
        self.node_end = {}      # node idx -> (t, how) for node-level deaths
        self.agent_restart = 0
        self.pending = []
        self.killed_by = {}
        self.nodeev = {}
        self.jobkill = None
        self.term = None
        self.errtext = {}
        self.errtb = {}

    # ---- geometry helpers
    @property
    def world(self):
        return len(self.ranks)

    def ranks_on(self, nidx):
        return [rk for rk in self.ranks if rk.node == nidx]

    def node_of(self, r):
        return self.nodes[self.ranks[r].node]

    def lowest_rank(self, nidx):
        return min(rk.r for rk in self.ranks_on(nidx))

    def tnode(self, nidx, t):
        return t + self.nodes[nidx].skew

    def tv(self):
        a, b = self.torch.split(".")[:2]
        return int(a) * 100 + int(b)

    # ---- raw emitters
    def _add(self, lst, item):
        self.seq += 1
        lst.append((item[0], self.seq) + tuple(item[1:]))

    def out(self, r, t, text, stream="err"):
        lst = self.rank_lines.setdefault(r, [])
        for i, line in enumerate(text.split("\n")):
            self._add(lst, (t + i * 1e-6, stream, line))

    def out_raw(self, r, t, raw, stream="out"):
        """raw text with its own \r / no trailing newline handling (tqdm)."""
        lst = self.rank_lines.setdefault(r, [])
        self._add(lst, (t, stream, raw, "raw"))

    def agent(self, nidx, t, text, stream="err"):
        lst = self.agent_lines.setdefault(nidx, [])
        for i, line in enumerate(text.split("\n")):
            self._add(lst, (t + i * 1e-6, stream, line))

    def kmsg(self, nidx, t, msg, prio=3, fac="kernel"):
        lst = self.kern.setdefault(nidx, [])
        for i, line in enumerate(msg.split("\n")):
            self._add(lst, (t + i * 1e-6, prio, line, fac))

    def launch(self, t, text, stream="err"):
        for i, line in enumerate(text.split("\n")):
            self._add(self.launcher_lines, (t + i * 1e-6, stream, line))

    # ---- formatted emitters ------------------------------------------------
    def rank_prefix(self, r):
        return "[rank%d]:" % r if self.tv() >= 203 else ""

    def c10d(self, r, t, level, src, msg, stream="err"):
        """C++ glog line from c10d as printed by the installed torch."""
        nidx = self.ranks[r].node
        tn = self.tnode(nidx, t)
        if self.tv() >= 203:
            line = "[rank%d]:[%s%s %s] %s" % (r, level, fmt(tn, "glog_ns", self.tz), src, msg)
        else:
            line = "[%s %s] %s" % (level, src, msg)
        self.out(r, t, line)

    def pg(self, r, pgid=0):
        if self.tv() >= 205:
            name = "default_pg" if pgid == 0 else "undefined"
            return "[PG ID %d PG GUID %d(%s) Rank %d]" % (pgid, pgid, name, r)
        if self.tv() >= 203:
            return "[PG %d Rank %d]" % (pgid, r)
        return "[Rank %d]" % r

    def pyline_prefix(self, r):
        return "[rank%d]: " % r if self.tv() >= 204 else ""

    def pytrace(self, r, t, text, stream="err"):
        p = self.pyline_prefix(r)
        self.out(r, t, "\n".join(p + ln for ln in text.split("\n")), stream)

    def nccl_line(self, r, t, msg, level="INFO", src=None, dev=None):
        rk = self.ranks[r]
        nd = self.nodes[rk.node]
        tid = rk.tid if dev is None else rk.tid + 7
        head = "%s:%d:%d [%d]" % (nd.nccl_host, rk.pid, tid, rk.local if dev is None else dev)
        if level == "WARN":
            # NCCL prints an empty line before every WARN
            self.out(r, t, "\n%s %s NCCL WARN %s" % (head, src or "misc/socket.cc:538", msg))
        else:
            self.out(r, t, "%s NCCL %s %s" % (head, level, msg))

    def ulog(self, r, t, level, msg, name=None):
        """User / framework logger line, in this run's chosen format."""
        nidx = self.ranks[r].node
        tn = self.tnode(nidx, t)
        f = self.userfmt
        lvl = {"I": "INFO", "W": "WARNING", "E": "ERROR", "D": "DEBUG"}[level]
        if f == "std":
            line = "%s - %s - %s - %s" % (fmt(tn, "pylog", self.tz), lvl, name or "__main__", msg)
        elif f == "bracket":
            line = "[%s][%s][rank %d] %s" % (fmt(tn, "pylog", self.tz), lvl, r, msg)
        elif f == "loguru":
            col = {"INFO": "\x1b[1m", "WARNING": "\x1b[33m\x1b[1m", "ERROR": "\x1b[31m\x1b[1m",
                   "DEBUG": "\x1b[34m\x1b[1m"}[lvl]
            line = ("\x1b[32m%s\x1b[0m | %s%-8s\x1b[0m | \x1b[36m%s\x1b[0m:\x1b[36m%s\x1b[0m:\x1b[36m%d\x1b[0m - %s%s\x1b[0m"
                    % (fmt(tn, "pylog_dot", self.tz), col, lvl, name or "__main__", "train_step", 214, col, msg))
        elif f == "json":
            import json
            line = json.dumps({"ts": fmt(tn, "iso", self.tz), "level": lvl.lower(), "rank": r,
                               "host": self.nodes[nidx].nccl_host, "msg": msg}, sort_keys=False)
        elif f == "absl":
            line = "%s%s %d %s] %s" % (level, fmt(tn, "glog_us", self.tz), self.ranks[r].pid,
                                       name or "train.py:214", msg)
        elif f == "epoch":
            line = "%s rank=%d %s %s" % (fmt(tn, "epoch"), r, lvl, msg)
        else:
            line = msg
        self.out(r, t, line, "out" if level in "ID" else "err")

    # ---- torch elastic agent ------------------------------------------------
    def agent_log(self, nidx, t, level, mod, lineno, msg):
        tn = self.tnode(nidx, t)
        L = {"I": "INFO", "W": "WARNING", "E": "ERROR"}[level]
        v = self.tv()
        if v >= 204:
            pre = "site-packages/torch/" if "site-packages" in self.site else "torch/"
            path = pre + mod.replace(".", "/") + ".py"
            text = "%s%s %d %s:%d] %s" % (level, fmt(tn, "glog_ms0", self.tz), self.nodes[nidx].agent_pid,
                                          path, lineno, msg)
        elif v >= 203:
            text = "%s%s %d torch/%s.py:%d] %s" % (level, fmt(tn, "glog_ms0", self.tz),
                                                  140000000000000 + self.nodes[nidx].agent_pid * 17,
                                                  mod.replace(".", "/"), lineno, msg)
        elif v >= 202:
            text = "[%s] torch.%s: [%s] %s" % (fmt(tn, "pylog", self.tz), mod, L, msg)
        else:
            text = "%s:torch.%s:%s" % (L, mod, msg)
        self.agent(nidx, t, text)


def rname(rng, k=5, alphabet="bcdfghjklmnpqrstvwxz2456789"):
    return "".join(rng.choice(alphabet) for _ in range(k))


def hexid(rng, n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))
