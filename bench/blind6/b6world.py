"""World model for the blind6 generator: hosts, ranks, versions, clocks.

Everything here is deterministic given the random.Random passed in.
"""
import datetime as _dt

UTC = _dt.timezone.utc

# (torch version, bundled NCCL version, python minor)
TORCH_VERSIONS = [
    ("1.13.1", "2.14.3", "3.9"),
    ("2.0.1", "2.14.3", "3.10"),
    ("2.1.2", "2.18.1", "3.10"),
    ("2.2.2", "2.19.3", "3.10"),
    ("2.3.1", "2.20.5", "3.11"),
    ("2.4.1", "2.20.5", "3.10"),
    ("2.5.1", "2.21.5", "3.11"),
    ("2.6.0", "2.21.5", "3.12"),
    ("2.7.1", "2.26.2", "3.12"),
]

GPU_MODELS = [
    # name as nvidia-smi prints it, memory MiB, short tag for hostnames, cap GiB
    ("NVIDIA A100-SXM4-80GB", 81920, "a100", "79.15"),
    ("NVIDIA A100-SXM4-40GB", 40960, "a100", "39.39"),
    ("NVIDIA H100 80GB HBM3", 81559, "h100", "79.11"),
    ("NVIDIA H200", 143771, "h200", "139.72"),
    ("NVIDIA A800-SXM4-80GB", 81920, "a800", "79.15"),
    ("NVIDIA L40S", 46068, "l40s", "44.52"),
    ("Tesla V100-SXM2-32GB", 32768, "v100", "31.74"),
]

DRIVERS = ["470.182.03", "525.147.05", "535.129.03", "535.183.01", "550.54.15",
           "550.90.07", "550.127.05", "560.35.03", "570.86.15"]

PCI_8 = ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"]
PCI_8B = ["07", "0f", "47", "4e", "87", "90", "b7", "bd"]
PCI_8C = ["1b", "29", "45", "4e", "9c", "a8", "c6", "d0"]


class Host:
    def __init__(self, name, short, fqdn, ip, k8s_node=None, boot_offset=0.0, skew=0.0):
        self.name = name          # spelling used by the logs (hostname / pod name)
        self.short = short        # short hostname (may equal name)
        self.fqdn = fqdn          # FQDN or None
        self.ip = ip
        self.k8s_node = k8s_node  # for pods: the k8s node name
        self.boot_offset = boot_offset  # seconds the node was up before job start
        self.skew = skew          # clock skew in seconds vs. true time
        self.pcis = []
        self.ib_devs = []
        self.kernel = "5.15.0-105-generic"

    def aliases(self):
        out = []
        for a in (self.short, self.fqdn, self.ip, self.k8s_node):
            if a and a != self.name and a not in out:
                out.append(a)
        return out


def _ip(rng, base=None):
    if base is None:
        base = rng.choice(["10.0", "10.1", "10.10", "172.16", "192.168", "10.128", "10.42"])
    return f"{base}.{rng.randint(0, 31)}.{rng.randint(2, 250)}"


def make_hosts(rng, n, scheme, job=None):
    """Return (hosts, scheme_name). Pod schemes return pod names."""
    hosts = []
    dom = rng.choice(["cluster.local", "hpc.internal", "ai.example.net", "cm.cluster",
                      "research.example.org", "sc.example.edu"])
    if scheme == "cray":
        start = rng.randint(1000, 7000)
        step = rng.choice([1, 1, 1, 4])
        for i in range(n):
            num = start + i * step
            nm = f"nid{num:06d}"
            hosts.append(Host(nm, nm, None, f"10.100.{num // 250 % 250}.{num % 250 + 1}"))
    elif scheme == "xname":
        c = rng.randint(1000, 1003)
        s0 = rng.randint(0, 7)
        for i in range(n):
            ch, sl, b, nn = (s0 + i // 4) // 8, (s0 + i // 4) % 8, (i // 2) % 2, i % 2
            nm = f"x{c}c{ch}s{sl}b{b}n{nn}"
            hosts.append(Host(nm, nm, None, _ip(rng, "10.150")))
    elif scheme == "gpu-model":
        tag = rng.choice(["a100", "h100", "h200", "a800", "gpu"])
        start = rng.randint(1, 120)
        for i in range(n):
            nm = f"gpu-{tag}-{start + i:03d}"
            ip = _ip(rng)
            hosts.append(Host(nm, nm, f"{nm}.{dom}", ip))
    elif scheme == "fqdn":
        pfx = rng.choice(["cn", "gn", "node", "hgx", "dgx"])
        start = rng.randint(1, 400)
        for i in range(n):
            sh = f"{pfx}{start + i:04d}"
            fq = f"{sh}.{dom}"
            hosts.append(Host(fq, sh, fq, _ip(rng)))
    elif scheme == "aws":
        region = rng.choice(["ec2.internal", "us-west-2.compute.internal",
                             "eu-west-1.compute.internal"])
        for i in range(n):
            ip = _ip(rng, rng.choice(["10.0", "172.31", "10.2"]))
            sh = "ip-" + ip.replace(".", "-")
            hosts.append(Host(sh, sh, f"{sh}.{region}", ip))
    elif scheme == "dgx":
        tag = rng.choice(["dgx-h100", "dgx-a100", "dgxh100", "hgx-b"])
        start = rng.randint(1, 60)
        for i in range(n):
            nm = f"{tag}-{start + i:02d}"
            hosts.append(Host(nm, nm, f"{nm}.{dom}", _ip(rng)))
    elif scheme == "oci":
        start = rng.randint(100, 900)
        for i in range(n):
            nm = f"compute-permanent-node-{start + i * rng.randint(1, 9)}"
            hosts.append(Host(nm, nm, None, _ip(rng, "10.0")))
    elif scheme == "euro":
        pfx = rng.choice(["jwb", "lrdn", "jrc", "gcn"])
        start = rng.randint(10, 3000)
        for i in range(n):
            nm = f"{pfx}{start + i:04d}"
            hosts.append(Host(nm, nm, None, _ip(rng, "10.12")))
    elif scheme == "plain":
        pfx = rng.choice(["node", "worker", "gpu", "srv", "ml"])
        start = rng.randint(0, 30)
        for i in range(n):
            nm = f"{pfx}{start + i:02d}"
            hosts.append(Host(nm, nm, None, _ip(rng, "192.168")))
    elif scheme == "pod":
        jobname = job or rng.choice(["llm-pretrain", "gpt-neox-20b", "mixtral-sft", "bert-mlm",
                                     "vit-huge", "llama3-8b-cpt", "t5-xl-ft", "diffusion-xl"])
        style = rng.choice(["pytorchjob", "pytorchjob", "jobset", "volcano", "statefulset"])
        gke = rng.random() < 0.5
        pool_hash = "%08x" % rng.getrandbits(32)
        has_master = rng.random() < 0.5
        for i in range(n):
            if style == "pytorchjob":
                if has_master:
                    nm = f"{jobname}-master-0" if i == 0 else f"{jobname}-worker-{i - 1}"
                else:
                    nm = f"{jobname}-worker-{i}"
            elif style == "jobset":
                h = "".join(rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(5))
                nm = f"{jobname}-trainer-0-{i}-{h}"
            elif style == "volcano":
                nm = f"{jobname}-worker-{i}"
            else:
                nm = f"{jobname}-{i}"
            if gke:
                kn = f"gke-train-a3-pool-{pool_hash}-" + "".join(
                    rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(4))
            else:
                ipn = _ip(rng, "10.0")
                kn = "ip-" + ipn.replace(".", "-") + ".ec2.internal"
            pod_ip = f"10.{rng.choice([4, 8, 42, 244])}.{rng.randint(0, 60)}.{rng.randint(2, 250)}"
            hosts.append(Host(nm, nm, None, pod_ip, k8s_node=kn))
    elif scheme == "sagemaker":
        for i in range(n):
            hosts.append(Host(f"algo-{i + 1}", f"algo-{i + 1}", None, _ip(rng, "10.0")))
    elif scheme == "azure":
        for i in range(n):
            nm = "%032x" % rng.getrandbits(128)
            nm = nm[:26] + "%06d" % i
            hosts.append(Host(nm, nm, None, _ip(rng, "10.0")))
    elif scheme == "ray":
        for i in range(n):
            nm = "ray-gpu-worker-" + "".join(rng.choice("bcdfghjklmnpqrstvwxz") for _ in range(5))
            hosts.append(Host(nm, nm, None, _ip(rng, "10.42")))
    else:
        raise ValueError(scheme)
    # de-duplicate IPs
    seen = set()
    for h in hosts:
        while h.ip in seen:
            parts = h.ip.split(".")
            parts[-1] = str((int(parts[-1]) % 250) + 2)
            h.ip = ".".join(parts)
        seen.add(h.ip)
    return hosts


class World:
    """One job: hosts, ranks, software versions, clocks."""

    def __init__(self, rng, stack, nnodes, gpn, scheme):
        self.rng = rng
        self.stack = stack
        self.nnodes = nnodes
        self.gpn = gpn
        self.world = nnodes * gpn
        self.scheme = scheme
        self.hosts = make_hosts(rng, nnodes, scheme)
        tv = rng.choice(TORCH_VERSIONS[1:] if stack != "jax" else TORCH_VERSIONS)
        self.torch, self.nccl, self.pyver = tv
        self.tv = tuple(int(x) for x in self.torch.split(".")[:2])
        self.gpu = rng.choice(GPU_MODELS[:5] if gpn == 8 else GPU_MODELS)
        self.driver = rng.choice(DRIVERS[2:] if self.gpu[2] in ("h100", "h200") else DRIVERS)
        pcis = rng.choice([PCI_8, PCI_8B, PCI_8C])
        for h in self.hosts:
            h.pcis = list(pcis[:gpn]) if gpn <= 8 else list(pcis)
            h.ib_devs = [f"mlx5_{i}" for i in range(rng.choice([1, 4, 8]))]
            h.kernel = rng.choice(["5.15.0-105-generic", "5.15.0-1063-aws", "5.4.0-182-generic",
                                   "4.18.0-513.24.1.el8_9.x86_64", "5.14.0-427.13.1.el9_4.x86_64",
                                   "6.5.0-1020-gcp", "5.14.21-150500.55.49_13.0.56-cray_shasta_c",
                                   "6.8.0-49-generic"])
        # software layout
        env = rng.choice(["ngc", "conda", "venv", "system", "conda-home"])
        if stack in ("sagemaker", "azureml"):
            env = "conda"
        if stack == "k8s" and env in ("venv", "conda-home"):
            env = "ngc"
        py = self.pyver
        self.user = rng.choice(["jdoe", "alice", "mzhang", "kpatel", "svc-train", "ubuntu",
                                "lwang", "tmueller", "ohernandez", "root"])
        if env == "ngc":
            self.site = f"/usr/local/lib/python{py}/dist-packages"
            self.python = "/usr/bin/python"
        elif env == "conda":
            self.site = f"/opt/conda/lib/python{py}/site-packages"
            self.python = "/opt/conda/bin/python"
        elif env == "venv":
            self.site = f"/scratch/{self.user}/venvs/train/lib/python{py}/site-packages"
            self.python = f"/scratch/{self.user}/venvs/train/bin/python3"
        elif env == "conda-home":
            self.site = f"/home/{self.user}/miniconda3/envs/llm/lib/python{py}/site-packages"
            self.python = f"/home/{self.user}/miniconda3/envs/llm/bin/python"
        else:
            self.site = f"/usr/lib/python{py}/site-packages"
            self.python = f"/usr/bin/python{py}"
        self.workdir = rng.choice([f"/home/{self.user}/proj/llm", "/workspace", f"/scratch/{self.user}/run",
                                   "/opt/ml/code", f"/lustre/fs1/{self.user}/train", "/app",
                                   f"/gpfs/projects/ai/{self.user}/nanogpt"])
        self.script = rng.choice(["train.py", "pretrain_gpt.py", "main.py", "run_clm.py",
                                  "finetune.py", "train_ddp.py", "fsdp_train.py"])
        # clocks
        year = rng.choice([2023, 2024, 2024, 2025])
        base = _dt.datetime(year, rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23),
                            rng.randint(0, 59), rng.randint(0, 59), tzinfo=UTC)
        self.t0 = base.timestamp()
        self.tz_off = rng.choice([0, 0, 0, 1, 2, -5, -7, 8, 9, 5.5])
        bad_clock = rng.random() < 0.15
        for i, h in enumerate(self.hosts):
            h.boot_offset = rng.uniform(3600 * 5, 3600 * 24 * 40)
            h.skew = rng.uniform(-1.5, 1.5)
        if bad_clock and nnodes > 1:
            self.hosts[rng.randrange(nnodes)].skew = rng.choice([-1, 1]) * rng.uniform(40, 400)
        # pids
        self.base_pid = {}
        for i, h in enumerate(self.hosts):
            self.base_pid[i] = rng.randint(1000, 3_900_000)
        self.job_id = rng.randint(100000, 9999999)
        self.port = rng.choice([29500, 29500, 29400, 6000, 12355, 23456, 44144])
        self.master = self.hosts[0]

    # --- rank / node mapping ----------------------------------------------------
    def node_of(self, r):
        return r // self.gpn

    def local(self, r):
        return r % self.gpn

    def host_of(self, r):
        return self.hosts[self.node_of(r)]

    def ranks_on(self, n):
        return list(range(n * self.gpn, (n + 1) * self.gpn))

    def pid(self, r):
        n = self.node_of(r)
        return self.base_pid[n] + 7 + self.local(r) * (3 + n % 5)

    def agent_pid(self, n):
        return self.base_pid[n]

    def tid(self, r, k=0):
        return self.pid(r) + 150 + k * 37 + self.local(r) % 3

    def pci(self, r):
        h = self.host_of(r)
        return h.pcis[self.local(r) % len(h.pcis)]

    # --- clocks ------------------------------------------------------------------
    def local_dt(self, t, node=None, tz=True):
        skew = self.hosts[node].skew if node is not None else 0.0
        off = self.tz_off * 3600 if tz else 0
        return _dt.datetime.fromtimestamp(t + skew + off, tz=UTC).replace(tzinfo=None)

    def uptime(self, t, node):
        h = self.hosts[node]
        return (t - self.t0) + h.boot_offset


# ---------------------------------------------------------------------------------
# time formatting helpers

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]


def f_iso(d, ms=True, t="T", z=""):
    s = d.strftime(f"%Y-%m-%d{t}%H:%M:%S")
    if ms:
        s += ".%03d" % (d.microsecond // 1000)
    return s + z


def f_comma(d):  # python logging default: 2024-12-01 12:00:00,123
    return d.strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (d.microsecond // 1000)


def f_glog(d, level="I", ns=False):
    frac = "%06d" % d.microsecond
    if ns:
        frac += "%03d" % ((d.microsecond * 7 + 123) % 1000)
    return f"{level}{d.month:02d}{d.day:02d} {d.strftime('%H:%M:%S')}.{frac}"


def f_syslog(d):
    return f"{MONTHS[d.month - 1]} {d.day:2d} {d.strftime('%H:%M:%S')}"


def f_dmesg_T(d):
    return f"[{DAYS[d.weekday()]} {MONTHS[d.month - 1]} {d.day:2d} {d.strftime('%H:%M:%S')} {d.year}]"


def f_ctime(d):
    return f"{DAYS[d.weekday()]} {MONTHS[d.month - 1]} {d.day:2d} {d.strftime('%H:%M:%S')} {d.year}"


def f_uptime(sec):
    return "[%12.6f]" % sec


def f_torchelastic(d):
    return d.strftime("%Y-%m-%d_%H:%M:%S")


def f_rfc2822(d):
    return f"{DAYS[d.weekday()]}, {d.day:02d} {MONTHS[d.month - 1]} {d.year} {d.strftime('%H:%M:%S')} +0000"


def hexaddr(rng, hi=0x7f):
    return "0x%02x%010x" % (hi, rng.getrandbits(40))
