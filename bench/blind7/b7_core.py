"""Core model for the blind7 generator: time formats, cluster, job and output streams.

Everything here is standard library only and fully deterministic for a given
random.Random instance (no set iteration, no hash ordering, no wall clock).
"""
import datetime as _dt

MON = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
DOW = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
MON_DE = ["Jan", "Feb", "Mär", "Apr", "Mai", "Jun", "Jul", "Aug", "Sep", "Okt", "Nov", "Dez"]
DOW_DE = ["Mo", "Di", "Mi", "Do", "Fr", "Sa", "So"]
MON_FR = ["janv.", "févr.", "mars", "avril", "mai", "juin", "juil.", "août", "sept.", "oct.", "nov.", "déc."]
DOW_FR = ["lun.", "mar.", "mer.", "jeu.", "ven.", "sam.", "dim."]


def _d(t):
    return _dt.datetime.fromtimestamp(int(t), _dt.timezone.utc)


def _frac(t, digits):
    f = t - int(t)
    if f < 0:
        f += 1.0
    return ("%0" + str(digits) + "d") % min(int(f * (10 ** digits)), 10 ** digits - 1)


def ts_py(t):
    """python logging asctime: 2024-12-01 12:34:56,789"""
    return _d(t).strftime("%Y-%m-%d %H:%M:%S") + "," + _frac(t, 3)


def ts_iso(t, digits=3, z="Z"):
    s = _d(t).strftime("%Y-%m-%dT%H:%M:%S")
    if digits:
        s += "." + _frac(t, digits)
    return s + z


def ts_plain(t, digits=0):
    s = _d(t).strftime("%Y-%m-%d %H:%M:%S")
    if digits:
        s += "." + _frac(t, digits)
    return s


def ts_glog(t, lvl="I", digits=6):
    d = _d(t)
    return "%s%02d%02d %s.%s" % (lvl, d.month, d.day, d.strftime("%H:%M:%S"), _frac(t, digits))


def ts_syslog(t):
    d = _d(t)
    return "%s %2d %s" % (MON[d.month - 1], d.day, d.strftime("%H:%M:%S"))


def ts_journal(t):
    d = _d(t)
    return "%s %02d %s" % (MON[d.month - 1], d.day, d.strftime("%H:%M:%S"))


def ts_ctime(t, locale="C"):
    d = _d(t)
    if locale == "de":
        return "%s %s %2d %s %d" % (DOW_DE[d.weekday()], MON_DE[d.month - 1], d.day, d.strftime("%H:%M:%S"), d.year)
    return "%s %s %2d %s %d" % (DOW[d.weekday()], MON[d.month - 1], d.day, d.strftime("%H:%M:%S"), d.year)


def ts_date_cmd(t, locale="C"):
    """output of `date` in a job script"""
    d = _d(t)
    if locale == "de":
        return "%s %d. %s %s UTC %d" % (DOW_DE[d.weekday()], d.day, MON_DE[d.month - 1], d.strftime("%H:%M:%S"), d.year)
    if locale == "fr":
        return "%s %d %s %d %s UTC" % (DOW_FR[d.weekday()], d.day, MON_FR[d.month - 1], d.year, d.strftime("%H:%M:%S"))
    return "%s %s %2d %s UTC %d" % (DOW[d.weekday()], MON[d.month - 1], d.day, d.strftime("%H:%M:%S"), d.year)


def ts_slurm(t):
    return _d(t).strftime("%Y-%m-%dT%H:%M:%S")


def ts_hms(t):
    return _d(t).strftime("%H:%M:%S")


def ts_mm(t):
    """MMEngine console: 12/01 12:34:56"""
    return _d(t).strftime("%m/%d %H:%M:%S")


def ts_torchrun_dir(t):
    return _d(t).strftime("%Y-%m-%d_%H:%M:%S")


def hms_dur(sec):
    sec = int(max(sec, 0))
    h, rem = divmod(sec, 3600)
    m, s = divmod(rem, 60)
    if h:
        return "%d:%02d:%02d" % (h, m, s)
    return "%02d:%02d" % (m, s)


def slurm_dur(sec):
    sec = int(max(sec, 0))
    d, rem = divmod(sec, 86400)
    h, rem = divmod(rem, 3600)
    m, s = divmod(rem, 60)
    if d:
        return "%d-%02d:%02d:%02d" % (d, h, m, s)
    return "%02d:%02d:%02d" % (h, m, s)


def ranges(nums):
    """[8,9,10,12] -> '8-10,12' (Slurm style task lists)"""
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


def hostlist(names):
    """compress ['gpu-017','gpu-018','gpu-020'] -> 'gpu-[017-018,020]' when they share a prefix"""
    import re
    groups = {}
    order = []
    for n in names:
        m = re.match(r"^(.*?)(\d+)$", n)
        if not m:
            groups.setdefault((n, None), [])
            order.append((n, None))
            continue
        key = (m.group(1), len(m.group(2)))
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(int(m.group(2)))
    parts = []
    for key in order:
        if key[1] is None:
            parts.append(key[0])
            continue
        nums = sorted(groups[key])
        w = key[1]
        if len(nums) == 1:
            parts.append("%s%0*d" % (key[0], w, nums[0]))
            continue
        segs = []
        i = 0
        while i < len(nums):
            j = i
            while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
                j += 1
            segs.append("%0*d" % (w, nums[i]) if i == j else "%0*d-%0*d" % (w, nums[i], w, nums[j]))
            i = j + 1
        parts.append("%s[%s]" % (key[0], ",".join(segs)))
    return ",".join(parts)


# --------------------------------------------------------------------------------------
# GPU / node hardware catalogue
# --------------------------------------------------------------------------------------
GPU_TYPES = {
    "H100": dict(name="NVIDIA H100 80GB HBM3", cap_gib=79.11, peak=989.0, bus=["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"],
                 driver="550.90.07", cuda="12.4", nvls=True, arch=90),
    "A100": dict(name="NVIDIA A100-SXM4-80GB", cap_gib=79.15, peak=312.0, bus=["07", "0f", "47", "4e", "87", "90", "b7", "bd"],
                 driver="535.161.08", cuda="12.2", nvls=False, arch=80),
    "A100_40": dict(name="NVIDIA A100-SXM4-40GB", cap_gib=39.39, peak=312.0, bus=["10", "16", "49", "4d", "88", "8e", "b8", "bc"],
                    driver="525.105.17", cuda="12.0", nvls=False, arch=80),
    "H200": dict(name="NVIDIA H200", cap_gib=139.81, peak=989.0, bus=["19", "3b", "4c", "5d", "9b", "bb", "cb", "db"],
                 driver="560.35.03", cuda="12.6", nvls=True, arch=90),
}


class Node:
    def __init__(self, idx, name, short, ip, aliases, skew, boot, first_rank, gpn):
        self.idx = idx
        self.name = name          # spelling used by the job's logs (hostname / pod name)
        self.short = short        # short host name (syslog host field)
        self.ip = ip
        self.aliases = aliases    # other spellings
        self.skew = skew          # seconds this node's clock is ahead of true time
        self.boot = boot          # true epoch of boot
        self.first_rank = first_rank
        self.gpn = gpn
        self.k8s_node = None
        self.kern_fmt = "syslog"
        self.kern_locale = "C"
        self.dmesg_drift = 0.0
        self.agent_pid = 0
        self.iface = "eth0"

    @property
    def ranks(self):
        return list(range(self.first_rank, self.first_rank + self.gpn))


class Job:
    """Holds the cluster, the per-rank output streams and everything a layout renders."""

    def __init__(self, rng):
        self.rng = rng
        self.R = {}      # rank -> list of (t, seq, stream, text)
        self.K = {}      # node idx -> list of (t, seq, text)
        self.A = {}      # node idx -> list of (t, seq, stream, text)   launcher / agent output
        self.S = []      # job-level scheduler output (t, seq, text)
        self.extra = {}  # relpath -> str | bytes   (layout adds its prefix)
        self.seq = 0
        self.nodes = []
        self.fates = {}  # rank -> dict(t=, kind=, code=, sig=)
        self.notes = []

    # ---- cluster helpers -------------------------------------------------------------
    def setup_ranks(self):
        self.world = len(self.nodes) * self.gpn
        self.node_of = []
        self.local = []
        for n in self.nodes:
            for l in range(self.gpn):
                self.node_of.append(n.idx)
                self.local.append(l)
        rng = self.rng
        self.pid = []
        self.tid = []
        for n in self.nodes:
            n.agent_pid = rng.randint(2000, 900000)
            base = n.agent_pid + rng.randint(40, 400)
            for l in range(self.gpn):
                p = base + l * rng.choice([1, 1, 1, 2, 3])
                base = p
                self.pid.append(p)
                self.tid.append(p + rng.randint(300, 3000))
        for r in range(self.world):
            self.R[r] = []
        for n in self.nodes:
            self.K[n.idx] = []
            self.A[n.idx] = []

    def node(self, r):
        return self.nodes[self.node_of[r]]

    def clk(self, r_or_node, t):
        """time as shown by the clock of the node that runs rank r (or the node object)"""
        n = r_or_node if isinstance(r_or_node, Node) else self.nodes[self.node_of[r_or_node]]
        return t + n.skew

    # ---- emission ----------------------------------------------------------------------
    def emit(self, r, t, text, stream="o"):
        for line in text.split("\n"):
            self.seq += 1
            self.R[r].append((t, self.seq, stream, line))

    def emit_many(self, ranks, t, fn, stream="o", jitter=0.0):
        rng = self.rng
        for r in ranks:
            self.emit(r, t + (rng.random() * jitter if jitter else 0.0), fn(r), stream)

    def kern(self, nidx, t, text):
        for line in text.split("\n"):
            self.seq += 1
            self.K[nidx].append((t, self.seq, line))

    def agent(self, nidx, t, text, stream="e"):
        for line in text.split("\n"):
            self.seq += 1
            self.A[nidx].append((t, self.seq, stream, line))

    def sched(self, t, text):
        for line in text.split("\n"):
            self.seq += 1
            self.S.append((t, self.seq, line))

    def nccl_prefix(self, r, thread="main"):
        n = self.node(r)
        tid = self.pid[r] if thread == "main" else self.tid[r] + (0 if thread == "init" else 37)
        return "%s:%d:%d [%d]" % (n.name if not getattr(self, "nccl_host_override", None) else self.nccl_host_override(n),
                                  self.pid[r], tid, self.local[r])

    def c10(self, r, t, lvl, src, msg):
        """PyTorch C++ (c10) log line in the style of the job's torch version."""
        v = self.torch_minor
        if v <= 1:
            return "[%s %s] %s" % (lvl, src, msg)
        if v <= 3:
            return "[rank%d]:[%s %s] %s" % (r, lvl, src, msg)
        return "[rank%d]:[%s %s] %s" % (r, ts_glog(self.clk(r, t), lvl, 9), src, msg)

    def pg(self, r):
        if self.torch_minor >= 4:
            return "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % r
        if self.torch_minor >= 3:
            return "[PG 0 Rank %d]" % r
        return "[Rank %d]" % r

    def tb_prefix(self, r):
        return "[rank%d]: " % r if self.torch_minor >= 3 else ""

    def addr(self, r, so, off):
        """stable address of `off` inside shared object `so` in the process of rank r"""
        key = (r, so)
        if not hasattr(self, "_so"):
            self._so = {}
        if key not in self._so:
            self._so[key] = 0x7f0000000000 + (self.rng.randrange(1 << 28) << 12)
        return "0x%x" % (self._so[key] + off)

    def sorted_rank(self, r):
        return sorted(self.R[r], key=lambda e: (e[0], e[1]))
