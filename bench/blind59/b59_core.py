"""blind59 core: random helpers, the Job model (hosts, ranks, clocks, versions) and the
Bundle that scenarios fill with records and artifacts.  Standard library only."""
import datetime as dt
import random

UTC = dt.timezone.utc


class RNG(random.Random):
    """random.Random seeded from a string (deterministic across processes)."""

    def pick(self, seq):
        return seq[self.randrange(len(seq))]

    def chance(self, p):
        return self.random() < p

    def wpick(self, pairs):
        """pairs: list of (item, weight)."""
        tot = sum(w for _, w in pairs)
        x = self.random() * tot
        for item, w in pairs:
            x -= w
            if x < 0:
                return item
        return pairs[-1][0]

    def hexs(self, n):
        return "".join(self.pick("0123456789abcdef") for _ in range(n))

    def sample_sorted(self, seq, k):
        k = max(0, min(k, len(seq)))
        return sorted(self.sample(list(seq), k))


def mk_rng(*parts):
    return RNG("|".join(str(p) for p in parts))


# ---------------------------------------------------------------- versions
# (torch, nccl, cuda, driver)
PROFILES = [
    ("2.1.2", (2, 18, 6), "12.1", "535.129.03"),
    ("2.2.2", (2, 19, 3), "12.1", "535.161.08"),
    ("2.3.1", (2, 20, 5), "12.1", "550.54.15"),
    ("2.4.1", (2, 20, 5), "12.4", "550.90.07"),
    ("2.5.1", (2, 21, 5), "12.4", "550.127.05"),
    ("2.6.0", (2, 21, 5), "12.6", "560.35.03"),
    ("2.7.1", (2, 26, 2), "12.8", "570.124.06"),
    ("2.8.0", (2, 27, 3), "12.8", "570.172.08"),
    ("2.9.1", (2, 28, 7), "13.0", "580.95.05"),
]

BUSIDS = {
    "H100": ["18000", "2a000", "3a000", "5d000", "9a000", "ab000", "ba000", "db000"],
    "A100": ["7000", "f000", "47000", "4e000", "87000", "90000", "b7000", "bd000"],
    "H200": ["19000", "3b000", "4c000", "5d000", "9b000", "bb000", "cb000", "db000"],
    "L40S": ["1b000", "3d000", "ce000", "e1000"],
}
GPU_NAMES = {
    "H100": "NVIDIA H100 80GB HBM3",
    "A100": "NVIDIA A100-SXM4-80GB",
    "H200": "NVIDIA H200",
    "L40S": "NVIDIA L40S",
}


def busid_to_pci(busid):
    """NCCL busId hex (e.g. '3b000') -> kernel form '0000:3b:00'."""
    x = int(busid, 16)
    dom, bus, dev = x >> 20, (x >> 12) & 0xFF, (x >> 4) & 0xFF
    return "%04x:%02x:%02x" % (dom, bus, dev)


def nic_pci(busid, k):
    """PCI address of the NIC that sits next to the GPU with this busId (same PCIe switch)."""
    x = int(busid, 16)
    bus = ((x >> 12) & 0xFF) + 1
    return "0000:%02x:00.0" % (bus & 0xFF)


# ---------------------------------------------------------------- host names
def host_names(R, style, n):
    out, seen = [], set()
    rack = R.randint(1, 40)
    base = R.randint(1, 300)
    letter = R.pick("abcdefgh")
    sub = (R.randint(1, 250), R.randint(0, 250))
    region = R.pick(["us-west-2", "us-east-1", "eu-west-1", "ap-northeast-1"])
    gpool = R.hexs(8)
    vmss = R.randint(10000000, 99999999)
    i = 0
    while len(out) < n:
        k = base + i
        i += 1
        if style == "gpu":
            h = "gpu-%s%02d" % (letter, k)
        elif style == "dgx":
            h = "dgx-%s%02d-%02d" % (letter, rack + (k // 16), k % 16 + 1)
        elif style == "hgx":
            h = "hgx%04d" % k
        elif style == "nid":
            h = "nid%06d" % (1000 + k * 4)
        elif style == "sc":
            h = "sc-h100-%04d" % k
        elif style == "cn":
            h = "cn%03d" % k
        elif style == "rack":
            h = "r%02dn%02d" % (rack + k // 18, k % 18 + 1)
        elif style == "trn":
            h = "trn-node%02d" % k
        elif style == "lab":
            h = "mlgpu-%02d.lab.internal" % k
        elif style == "ec2":
            h = "ip-10-%d-%d-%d" % (sub[0], (sub[1] + k // 250) % 256, k % 250 + 3)
        elif style == "eks":
            h = "ip-10-%d-%d-%d.%s.compute.internal" % (sub[0], (sub[1] + k // 250) % 256, k % 250 + 3,
                                                         region if region != "us-east-1" else "ec2")
            if region == "us-east-1":
                h = h.replace(".ec2.compute.internal", ".ec2.internal")
        elif style == "gke":
            h = "gke-a3mega-pool-1-%s-%s" % (gpool, R.hexs(4))
        elif style == "onprem":
            h = "k8s-gpu-%03d" % k
        elif style == "aks":
            h = "aks-ndh100v5-%d-vmss%06x" % (vmss, k % 4096)
        else:
            h = "node%03d" % k
        if h not in seen:
            seen.add(h)
            out.append(h)
    return out


SLURM_STYLES = ["gpu", "dgx", "hgx", "nid", "sc", "cn", "rack"]
TORCHRUN_STYLES = ["trn", "lab", "ec2", "gpu", "hgx", "rack"]
K8S_STYLES = ["eks", "eks", "gke", "aks"]


# ---------------------------------------------------------------- time formats
def iso_ms(d):
    return d.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (d.microsecond // 1000)


def iso_ns(d, R=None):
    extra = R.randint(0, 999) if R else 0
    return d.strftime("%Y-%m-%dT%H:%M:%S.") + "%06d%03dZ" % (d.microsecond, extra)


def pylog(d):
    return d.strftime("%Y-%m-%d %H:%M:%S,") + "%03d" % (d.microsecond // 1000)


def glog(level, d):
    return "%s%s %s.%06d%03d" % (level, d.strftime("%m%d"), d.strftime("%H:%M:%S"), d.microsecond, (d.microsecond * 7) % 1000)


def glog_us(level, d):
    return "%s%s %s.%06d" % (level, d.strftime("%m%d"), d.strftime("%H:%M:%S"), d.microsecond)


def sec(d):
    return d.strftime("%Y-%m-%d %H:%M:%S")


def slurm_ts(d):
    return d.strftime("%Y-%m-%dT%H:%M:%S")


def elastic_ts(d):
    return d.strftime("%Y-%m-%d_%H:%M:%S")


def dmesg_T(d):
    return d.strftime("[%a %b ") + "%2d" % d.day + d.strftime(" %H:%M:%S %Y]")


def journal(d):
    return d.strftime("%b %d %H:%M:%S")


# ---------------------------------------------------------------- job model
class Job:
    def __init__(self, R, layout, transport, nnodes, gpn, host_style, k8s_pods=False):
        self.R = R
        self.layout = layout
        self.transport = transport
        self.gpn = gpn
        self.nodes = host_names(R, host_style, nnodes)
        self.host_style = host_style
        self.world = nnodes * gpn
        prof = R.pick(PROFILES)
        if transport == "efa" and prof[1] < (2, 19, 0):
            prof = PROFILES[3]
        self.tv, self.nv, self.cuda, self.driver = prof
        self.gpu = R.pick(["H100", "H100", "H100", "A100", "H200"]) if gpn == 8 else "L40S"
        self.busids = BUSIDS[self.gpu][:gpn]
        self.gpu_name = GPU_NAMES[self.gpu]
        # clocks: skew per host (seconds) and boot time
        y = {"2.1": 2024, "2.2": 2024, "2.3": 2024, "2.4": 2024, "2.5": 2025, "2.6": 2025, "2.7": 2025,
             "2.8": 2025, "2.9": 2026}[self.tv[:3]]
        if R.chance(0.25) and y < 2026:
            y += 1
        self.t0 = dt.datetime(y, R.randint(1, 12), R.randint(1, 28), R.randint(0, 23), R.randint(0, 59),
                              R.randint(0, 59), R.randint(0, 999999))
        maxskew = R.pick([0.4, 2.0, 6.0, 25.0, 70.0])
        self.skew = {h: round(R.uniform(-maxskew, maxskew), 3) for h in self.nodes}
        self.skew[self.nodes[0]] = round(R.uniform(-0.3, 0.3), 3)
        self.boot = {h: self.t0 - dt.timedelta(seconds=R.randint(3600, 60 * 86400)) for h in self.nodes}
        # addresses
        a, b = R.randint(10, 200), R.randint(0, 200)
        self.ip = {}
        for i, h in enumerate(self.nodes):
            if host_style in ("ec2", "eks") and h.startswith("ip-"):
                self.ip[h] = h.split(".")[0][3:].replace("-", ".")
            else:
                self.ip[h] = "10.%d.%d.%d" % (a, b + i // 250, i % 250 + 11)
        self.railnet = {h: ["172.%d.%d.%d" % (16 + k, (i // 250) % 256, i % 250 + 11) for k in range(gpn)]
                        for i, h in enumerate(self.nodes)}
        # interfaces
        if transport == "ib":
            self.oob = R.pick(["ib0", "ibp12s0", "eth0", "bond0", "enp86s0f0"])
            self.hcas = ["mlx5_%d" % k for k in range(gpn)]
            if R.chance(0.3) and gpn == 8:
                self.hcas = ["mlx5_%d" % k for k in (0, 1, 2, 3, 6, 7, 8, 9)]
        elif transport == "roce":
            self.oob = R.pick(["bond0", "eth0", "ens8f0", "enp37s0f0"])
            self.hcas = ["mlx5_%d" % k for k in range(gpn)]
            self.roce_if = ["ens%df0np0" % (k + 1) if gpn <= 4 else "rdma%d" % k for k in range(gpn)]
        elif transport == "efa":
            self.oob = R.pick(["eth0", "ens32", "enp71s0"])
            n_efa = 32 if self.gpu in ("H100", "H200") else 4
            buses = [b + i for b in (79, 96, 113, 130, 147, 164, 181, 198) for i in range(4)]
            self.hcas = ["rdmap%ds0" % buses[k] for k in range(n_efa)] if R.chance(0.4) else ["efa_%d" % k for k in range(n_efa)]
        else:
            self.oob = R.pick(["bond0", "eth0", "ens3f0", "enp129s0f1"])
            self.hcas = []
        self.port = R.pick([29500, 29400, 23456, 6000, 12355, 29501])
        self.master = self.nodes[0]
        self.jobid = R.randint(10000, 9999999)
        self.run_id = R.pick(["none", "%d" % self.jobid, "llm-%s" % R.hexs(6), "pretrain-%s" % R.hexs(4)])
        self.pid0 = {h: R.randint(2000, 3900000) for h in self.nodes}
        self.pids = [0] * self.world
        for h in self.nodes:
            base = self.pid0[h] + 11
            for lr in range(gpn):
                self.pids[self.nodes.index(h) * gpn + lr] = base + lr * 3 + (lr * lr) % 2
        self.tid_base = {h: self.pid0[h] + 200 + R.randint(0, 900) for h in self.nodes}
        self.timeout_ms = R.pick([600000, 600000, 1800000, 1200000, 300000])
        self.commid = "0x" + R.hexs(16)
        self.k8s_pods = k8s_pods
        self.pod = {}
        self.instance = {h: "i-0" + R.hexs(16) for h in self.nodes}
        self.gpu_uuid = {}
        self.script = R.pick(["train.py", "pretrain_gpt.py", "main.py", "train_llm.py", "run_clm.py", "fsdp_train.py"])
        self.model = R.pick(["llama-8b", "gpt-13b", "mixtral-8x7b", "llama3-70b", "moe-34b", "dit-xl", "t5-11b"])

    # ---- topology
    def node(self, r):
        return self.nodes[r // self.gpn]

    def lrank(self, r):
        return r % self.gpn

    def nidx(self, h):
        return self.nodes.index(h)

    def ranks_on(self, h):
        i = self.nidx(h)
        return list(range(i * self.gpn, (i + 1) * self.gpn))

    def hostname(self, h):
        """name the OS inside the rank's container reports (k8s pods without hostNetwork differ)."""
        return self.pod.get(h, h) if self.k8s_pods else h

    # ---- clocks
    def lt(self, t, h):
        """local wall-clock datetime of host h at true offset t seconds."""
        off = self.skew.get(h, 0.0) if h else 0.0
        return self.t0 + dt.timedelta(seconds=t + off)

    def uptime(self, t, h):
        d = self.lt(t, h) - self.boot[h]
        return d.total_seconds()

    def nccl_ver(self):
        return "%d.%d.%d" % self.nv

    def era(self):
        tv = tuple(int(x) for x in self.tv.split(".")[:2])
        if tv <= (2, 1):
            return 1
        if tv <= (2, 3):
            return 3
        if tv == (2, 4):
            return 4
        return 5

    def tid(self, r, k=0):
        h = self.node(r)
        return self.tid_base[h] + self.lrank(r) * 37 + k

    def uuid(self, h, lr):
        key = (h, lr)
        if key not in self.gpu_uuid:
            R = mk_rng("uuid", h, lr)
            self.gpu_uuid[key] = "GPU-%s-%s-%s-%s-%s" % (R.hexs(8), R.hexs(4), R.hexs(4), R.hexs(4), R.hexs(12))
        return self.gpu_uuid[key]

    def gid(self, h, lr):
        if self.transport == "roce":
            return "::ffff:" + self.railnet[h][lr]
        from b59_fabric import guid
        g = guid(h, lr % max(1, len(self.hcas)))[2:]
        return "fe80::" + ":".join("%x" % int(g[i:i + 4], 16) for i in range(0, 16, 4))

    def hca_of(self, lr):
        if not self.hcas:
            return None
        if self.transport == "efa":
            per = max(1, len(self.hcas) // self.gpn)
            return self.hcas[(lr * per) % len(self.hcas)]
        return self.hcas[lr % len(self.hcas)]


# ---------------------------------------------------------------- bundle
class Rec:
    __slots__ = ("t", "host", "rank", "src", "kind", "text", "eid", "protect", "seq", "maps")

    def __init__(self, t, host, rank, src, kind, text, eid, protect, seq, maps=None):
        self.t, self.host, self.rank, self.src, self.kind = t, host, rank, src, kind
        self.text, self.eid, self.protect, self.seq, self.maps = text, eid, protect, seq, maps


class Art:
    """a whole attached file (tool output); layouts choose its path."""

    def __init__(self, name, host, lines, eid=None, protect=False, t=None):
        self.name, self.host, self.lines, self.eid, self.protect, self.t = name, host, lines, eid, protect, t


class Bundle:
    def __init__(self, job):
        self.job = job
        self.recs = []
        self.arts = []
        self._seq = 0
        self.visible = set()

    def add(self, t, host, rank, src, kind, lines, eid=None, protect=False, dt_step=0.0, maps=None):
        if isinstance(lines, str):
            lines = [lines]
        for i, ln in enumerate(lines):
            self._seq += 1
            self.recs.append(Rec(t + i * dt_step, host, rank, src, kind, ln, eid, protect, self._seq, maps))

    def rank(self, t, r, kind, lines, eid=None, protect=False, dt_step=0.0):
        self.add(t, self.job.node(r), r, "rank", kind, lines, eid, protect, dt_step)

    def kern(self, t, h, lines, eid=None, protect=False, dt_step=0.0):
        self.add(t, h, None, "kern", "kern", lines, eid, protect, dt_step)

    def agent(self, t, h, lines, eid=None, protect=False, dt_step=0.0, maps=None):
        self.add(t, h, None, "agent", "agent", lines, eid, protect, dt_step, maps)

    def sched(self, t, h, lines, eid=None, protect=False, dt_step=0.0, maps=None):
        self.add(t, h, None, "sched", "sched", lines, eid, protect, dt_step, maps)

    def sys(self, t, h, lines, eid=None, protect=False, dt_step=0.0):
        """non-kernel journal lines of a host (systemd, NetworkManager, kubelet)."""
        self.add(t, h, None, "sys", "sys", lines, eid, protect, dt_step)

    def art(self, name, host, lines, eid=None, protect=False, t=None):
        self.arts.append(Art(name, host, list(lines), eid, protect, t))

    def arts_named(self, prefix):
        return [a for a in self.arts if a.name == prefix or a.name.startswith(prefix + ":")]
