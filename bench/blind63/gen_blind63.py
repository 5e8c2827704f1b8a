#!/usr/bin/env python3
"""blind63 - disaggregated serving and KV-cache transfer (blind benchmark generator).

Writes synthetic log bundles from prefill/decode-disaggregated LLM serving stacks
(SGLang PD + Mooncake/NIXL, vLLM NixlConnector under llm-d, NVIDIA Dynamo) and RL
trainer->rollout weight-sync jobs, one folder per run with a truth.json.

    python3 gen_blind63.py --out DIR --n 60 --seed S

Standard library only; deterministic per seed.
"""
import argparse
import datetime
import json
import os
import random
import shutil
import sys

CAUSES = [
    "gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
    "illegal_memory_access", "python_exception", "host_oom_kill", "crash_signal",
    "preemption", "hang", "data_loader_stall", "collective_mismatch", "straggler",
    "unknown",
]
LAYOUTS = ["slurm-sglang-pd", "k8s-llmd-nixl", "k8s-dynamo", "torchrun-rl-sync", "paste"]

UTC = datetime.timezone.utc


# ----------------------------------------------------------------------------
# small helpers
# ----------------------------------------------------------------------------

def dt(t):
    return datetime.datetime.fromtimestamp(t, UTC)


def hexid(rng, n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def uuid4(rng):
    h = hexid(rng, 32)
    return "%s-%s-4%s-%s%s-%s" % (h[:8], h[8:12], h[13:16], rng.choice("89ab"), h[17:20], h[20:32])


def rid_hex(rng):
    return hexid(rng, 32)


def fmt_gib(x):
    return "%.2f GiB" % x


def numel_out(op, numel, n):
    if op in ("_ALLGATHER_BASE", "ALLGATHER"):
        return numel * n
    if op == "_REDUCE_SCATTER_BASE":
        return max(1, numel // n)
    return numel


def wdesc(w):
    """Human description of a worker: instance, local rank and global rank."""
    if w.inst.role == "trainer":
        return "trainer rank %d" % w.grank
    loc = "DP" if (w.inst.kind == "dp" or w.inst.dp_attn) else "TP"
    return "%s %s rank %d (global rank %d)" % (w.inst.name, loc, w.tp, w.grank)


def rng_range_str(lo, hi):
    return str(lo) if lo == hi else "%d-%d" % (lo, hi)


# ----------------------------------------------------------------------------
# file buffers with evidence tags
# ----------------------------------------------------------------------------

class FileBuf:
    """Lines of one output file. Each line: [t, seq, text, tags]."""

    def __init__(self, run, path, sort=True):
        self.run = run
        self.path = path
        self.sort = sort
        self.lines = []
        self.collected = True
        self.max_lines = 900

    def add(self, t, text, tags=()):
        self.run.seq += 1
        self.lines.append([t, self.run.seq, text, tuple(tags)])

    def block(self, t, texts, tags=()):
        for x in texts:
            self.add(t, x, tags)

    def ordered(self):
        if self.sort:
            return sorted(self.lines, key=lambda x: (x[0], x[1]))
        return list(self.lines)


class Host:
    def __init__(self, name, ip, skew, gpus, nics, boot):
        self.name = name
        self.ip = ip
        self.skew = skew
        self.gpus = gpus          # list of pci bus hex strings ("18", "2a", ...)
        self.nics = nics          # list of (mlx5_k, pci bus)
        self.boot = boot          # boot epoch for dmesg uptime
        self.pod = None           # k8s pod name when one pod per host


class Instance:
    def __init__(self, name, role, idx, size, hosts, gpn):
        self.name = name
        self.role = role          # prefill / decode / trainer / rollout
        self.idx = idx
        self.size = size
        self.hosts = hosts
        self.gpn = gpn
        self.workers = []
        self.dp_attn = False
        self.port = 30000
        self.offset = 0
        self.gen = 0              # restart generation (k8s)
        self.down = None          # time the instance died
        self.up_again = None      # time it came back
        self.pods = []            # k8s pod names, per node
        self.main_pid = {}
        self.url = ""
        self.kind = "tp"          # tp or dp (vLLM DP-EP)
        self.restart_times = []
        self.stalls = []

    def node_rank(self, w):
        return self.hosts.index(w.host)

    def stalled(self, t):
        return any(a <= t <= b for (a, b) in self.stalls)

    def alive(self, t):
        if self.down is None or t < self.down:
            return True
        if self.up_again is not None and t >= self.up_again:
            return True
        return False


class Worker:
    def __init__(self, inst, tp, host, gpu_idx):
        self.inst = inst
        self.tp = tp
        self.host = host
        self.gpu = gpu_idx
        self.bus = host.gpus[gpu_idx]
        self.nic = host.nics[gpu_idx % len(host.nics)]
        self.grank = None
        self.pid = 0
        self.silent = None        # stops logging after this time

    @property
    def busid(self):
        return "0000:%s:00.0" % self.bus

    @property
    def nccl_bus(self):
        return "%s000" % self.bus.lstrip("0") if self.bus.lstrip("0") else "0000"


# ----------------------------------------------------------------------------
# names
# ----------------------------------------------------------------------------

HOST_STYLES = ["gpu-{l}{n:02d}", "hgx-{l}{n:02d}-r{r}", "node-{n:03d}", "dgx-h100-{n:03d}",
               "sc-h200-r{r}-n{n:02d}", "ip-10-{a}-{b}-{n}", "a3mega-{h}", "gb200-t{r}-c{n:02d}",
               "h20-{l}{n:02d}", "cn{n:04d}"]
GKE_STYLES = ["gke-llm-a3mega-pool-{h8}-{h4}", "aks-gpupool-{d8}-vmss{h6}", "ip-10-{a}-{b}-{n}.ec2.internal",
              "ocp-gpu-worker-{n}", "gke-inference-h200-spot-{h8}-{h4}"]
BUS_SETS = [["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"],
            ["1b", "43", "52", "61", "9d", "c3", "d1", "df"],
            ["0f", "34", "48", "5a", "87", "ae", "c2", "d7"],
            ["19", "3b", "4c", "5d", "9b", "bb", "cb", "db"]]
NIC_BUS = [["1a", "2b", "3c", "5e", "9c", "ac", "bc", "dc"],
           ["1c", "44", "53", "62", "9e", "c4", "d2", "e0"]]

MODELS = [
    ("deepseek-ai/DeepSeek-V3-0324", "DeepseekV3ForCausalLM", True, 61),
    ("deepseek-ai/DeepSeek-R1", "DeepseekV3ForCausalLM", True, 61),
    ("Qwen/Qwen3-235B-A22B-FP8", "Qwen3MoeForCausalLM", True, 94),
    ("moonshotai/Kimi-K2-Instruct", "DeepseekV3ForCausalLM", True, 61),
    ("zai-org/GLM-4.5-FP8", "Glm4MoeForCausalLM", True, 92),
    ("meta-llama/Llama-3.3-70B-Instruct", "LlamaForCausalLM", False, 80),
    ("Qwen/Qwen2.5-72B-Instruct", "Qwen2ForCausalLM", False, 80),
    ("Qwen/Qwen3-32B", "Qwen3ForCausalLM", False, 64),
    ("openai/gpt-oss-120b", "GptOssForCausalLM", True, 36),
]


def make_hostnames(run, n, k8s=False):
    """Host names for one pool; a run uses one naming scheme (sometimes a second pool scheme)."""
    rng = run.rng
    if not hasattr(run, "hstate"):
        run.hstate = []
        run.hused = set()
    pools = run.hstate
    if not pools or (len(pools) == 1 and rng.random() < 0.08):
        style = rng.choice(GKE_STYLES if k8s else HOST_STYLES)
        pools.append({"style": style, "letter": rng.choice("abcdefgkm"), "next": rng.randint(1, 60), "rack": rng.randint(1, 12),
                      "a": rng.randint(1, 250), "b": rng.randint(0, 250), "h8": hexid(rng, 8), "d8": rng.randint(10000000, 99999999)})
    P = pools[-1] if rng.random() < 0.85 else pools[0]
    names = []
    while len(names) < n:
        num = P["next"]
        P["next"] += 1
        name = P["style"].format(l=P["letter"], n=num, r=P["rack"] + num // 16, a=P["a"], b=(P["b"] + num // 200) % 250,
                                 h=hexid(rng, 5), h8=P["h8"], h4=hexid(rng, 4), d8=P["d8"], h6="%06x" % rng.randint(0, 0xffffff))
        if name in run.hused:
            continue
        run.hused.add(name)
        names.append(name)
    return names


# ----------------------------------------------------------------------------
# run object
# ----------------------------------------------------------------------------

class Run:
    def __init__(self, rng, idx, layout, cause, healthy):
        self.rng = rng
        self.idx = idx
        self.layout = layout
        self.cause = cause
        self.healthy = healthy
        self.files = {}
        self.order = []
        self.seq = 0
        self.hosts = []
        self.instances = []
        self.workers = []
        self.rank_rules = []
        self.node_rules = []
        self.V = None
        self.VH = None
        self.notes = ""
        self.tz = rng.choice([0, 0, 0, 0, 8, -7, 1])
        self.marker = rng.choice(["... [{n} lines omitted] ...", "[... {n} lines trimmed ...]",
                                  "<-- snip: {n} lines -->", "(... truncated {n} lines ...)",
                                  "[ {n} more lines ]"])
        self.t0 = 1735689600 + rng.randint(0, 600 * 86400) + rng.random()
        self.t_ready = None
        self.t_inc = None
        self.t_end = None
        self.window = None
        self.extra = {}

    def f(self, path, sort=True):
        if path not in self.files:
            self.files[path] = FileBuf(self, path, sort)
            self.order.append(path)
        return self.files[path]

    def local(self, host, t):
        skew = host.skew if host is not None else 0.0
        return dt(t + skew + self.tz * 3600)

    def mark(self, n):
        return self.marker.format(n=n)


# ----------------------------------------------------------------------------
# deployment construction
# ----------------------------------------------------------------------------

def new_hosts(run, n, k8s=False, gpn=8):
    rng = run.rng
    names = make_hostnames(run, n, k8s)
    busset = rng.choice(BUS_SETS)
    nicset = rng.choice(NIC_BUS)
    hosts = []
    subnet = (rng.randint(1, 200), rng.randint(0, 250))
    for i, nm in enumerate(names):
        if rng.random() < 0.85:
            skew = rng.uniform(-2.5, 2.5)
        else:
            skew = rng.choice([-1, 1]) * rng.uniform(8, 45)
        gp = busset[:gpn] if gpn <= 8 else busset
        nics = [("mlx5_%d" % k, nicset[k]) for k in range(max(gpn, 1) if gpn <= 8 else 8)]
        ip = "10.%d.%d.%d" % (subnet[0], (subnet[1] + (i // 250)) % 250, 10 + (i % 240))
        if nm.startswith("ip-10-"):
            ip = ".".join(nm.split(".")[0].split("-")[1:5])
        h = Host(nm, ip, skew, gp, nics, run.t0 - rng.randint(3, 90) * 86400 - rng.random() * 3600)
        hosts.append(h)
    run.hosts.extend(hosts)
    return hosts


def add_instance(run, name, role, idx, size, gpn, k8s=False, dp_attn=False, kind="tp"):
    nnodes = max(1, (size + gpn - 1) // gpn)
    hosts = new_hosts(run, nnodes, k8s, gpn)
    inst = Instance(name, role, idx, size, hosts, gpn)
    inst.dp_attn = dp_attn
    inst.kind = kind
    for r in range(size):
        h = hosts[r // gpn]
        w = Worker(inst, r, h, r % gpn)
        inst.workers.append(w)
    run.instances.append(inst)
    return inst


def finalize_ranks(run):
    g = 0
    rng = run.rng
    for inst in run.instances:
        inst.offset = g
        for w in inst.workers:
            w.grank = g
            g += 1
        for h in inst.hosts:
            inst.main_pid[h.name] = rng.randint(30, 9000) if run.layout.startswith("k8s") else rng.randint(2000, 4000000)
        for w in inst.workers:
            base = inst.main_pid[w.host.name]
            w.pid = base + 40 + w.gpu * rng.randint(3, 9) + rng.randint(0, 2)
        run.workers.extend(inst.workers)
    return g


def pick_size_class(rng, layout):
    if layout == "paste":
        return rng.choice(["small", "small", "medium"])
    if layout == "k8s-dynamo":
        return rng.choice(["small", "medium", "medium"])
    return rng.choice(["small", "medium", "medium", "large"])


def build_serving(run, size_class, engine, k8s, need_multi=False):
    """Prefill and decode instances. engine: sglang or vllm."""
    rng = run.rng
    model = rng.choice(MODELS)
    run.model = model
    moe = model[2]
    gpn = 4 if (rng.random() < 0.12 and not k8s) else 8
    run.gpn = gpn
    if size_class == "small" or not moe:
        tps = [1, 2, 4, 8] if not moe else [4, 8]
        nP = rng.choice([1, 1, 2])
        nD = rng.choice([1, 1, 2])
        tpP = rng.choice(tps)
        tpD = rng.choice(tps)
        if gpn == 4:
            tpP, tpD = min(tpP, 4), min(tpD, 4)
        while nP * tpP + nD * tpD > 16:
            nP = max(1, nP - 1)
            nD = max(1, nD - 1)
            if nP * tpP + nD * tpD > 16:
                tpP = max(1, tpP // 2)
        if need_multi and tpP < 2 and tpD < 2:
            tpD = 2
        shapes = [("prefill", tpP, False)] * nP + [("decode", tpD, False)] * nD
    elif size_class == "medium":
        nP = rng.choice([1, 2, 3])
        tpP = rng.choice([8, 16])
        nD = rng.choice([1, 1, 2])
        tpD = rng.choice([16, 32]) if engine == "sglang" else rng.choice([16, 32])
        shapes = [("prefill", tpP, tpP > 8)] * nP + [("decode", tpD, True)] * nD
    else:
        nP = rng.choice([2, 4, 6, 8])
        tpP = rng.choice([16, 32])
        nD = rng.choice([1, 2, 3])
        tpD = rng.choice([64, 96, 128, 256])
        while nP * tpP + nD * tpD > 1024:
            nD = max(1, nD - 1)
            if nP * tpP + nD * tpD > 1024:
                nP = max(1, nP - 1)
        shapes = [("prefill", tpP, True)] * nP + [("decode", tpD, True)] * nD
    counts = {"prefill": 0, "decode": 0}
    for role, size, dpa in shapes:
        i = counts[role]
        counts[role] += 1
        name = "%s-%d" % (role, i)
        kind = "tp"
        if engine == "vllm" and size > 8:
            kind = "dp"
        inst = add_instance(run, name, role, i, size, gpn, k8s, dp_attn=(dpa and engine == "sglang"), kind=kind)
        inst.port = (30000 if role == "prefill" else 30100) + i if engine == "sglang" else 8000
        inst.url = "http://%s:%d" % (inst.hosts[0].ip, inst.port)
        inst.bootstrap = 8998 + i
    finalize_ranks(run)


# ----------------------------------------------------------------------------
# kernel log formatting
# ----------------------------------------------------------------------------

class Kern:
    """Kernel log of selected hosts: dmesg, dmesg -T or journal style."""

    def __init__(self, run, style=None, prefix="dmesg"):
        self.run = run
        self.style = style or run.rng.choice(["dmesg", "dmesgT", "journal"])
        self.prefix = prefix
        self.hosts = []

    def path(self, h):
        if self.prefix == "nodes":
            return "nodes/%s-kernel.log" % h.name
        return "dmesg/%s.txt" % h.name

    def fmt(self, h, t, text):
        if self.style == "dmesg":
            up = t - h.boot
            return "[%12.6f] %s" % (up, text)
        lt = self.run.local(h, t)
        if self.style == "dmesgT":
            return "[%s] %s" % (lt.strftime("%a %b %d %H:%M:%S %Y"), text)
        return "%s %s kernel: %s" % (lt.strftime("%b %d %H:%M:%S"), h.name.split(".")[0], text)

    def add(self, h, t, text, tags=()):
        if h not in self.hosts:
            self.hosts.append(h)
        self.run.f(self.path(h)).add(t, self.fmt(h, t, text), tags)

    def noise(self, h, t1, t2):
        rng = self.run.rng
        if h not in self.hosts:
            self.hosts.append(h)
        pool = [
            "perf: interrupt took too long (%d > %d), lowering kernel.perf_event_max_sample_rate to %d",
            "IPv6: ADDRCONF(NETDEV_CHANGE): ibp%ds0: link becomes ready",
            "audit: type=1400 audit(%d.%03d:%d): apparmor=\"DENIED\" operation=\"open\" profile=\"snap.lxd\" name=\"/proc/%d/mounts\"",
            "nvidia-peermem nv_mem_get_pages: pages registered via peermem (%d)",
            "TCP: request_sock_TCP: Possible SYN flooding on port %d. Sending cookies.  Check SNMP counters.",
            "NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  %s  Release Build  (dvs-builder@U22-I3-AF03-09-1)  %s",
            "mlx5_core 0000:%s:00.0: mlx5_pcie_event:299:(pid %d): PCIe slot advertised sufficient power (27W).",
            "EXT4-fs (nvme0n1p1): mounted filesystem with ordered data mode. Quota mode: none.",
            "systemd-journald[%d]: Data hash table of /var/log/journal/%s/system.journal has a fill level at 75.0 (%d of %d items), suggesting rotation.",
        ]
        n = rng.randint(3, 9)
        for _ in range(n):
            t = rng.uniform(t1, t2)
            k = rng.randrange(len(pool))
            p = pool[k]
            if k == 0:
                a = rng.randint(2501, 6000)
                s = p % (a, a - rng.randint(1, 400), rng.randint(30000, 80000))
            elif k == 1:
                s = p % rng.choice([26, 75, 154, 203])
            elif k == 2:
                s = p % (int(t), rng.randint(0, 999), rng.randint(100, 999), rng.randint(1000, 99999))
            elif k == 3:
                s = p % rng.randint(2, 512)
            elif k == 4:
                s = p % rng.choice([30000, 8000, 30100])
            elif k == 5:
                s = p % (rng.choice(["570.133.20", "575.57.08", "580.65.06", "550.90.07"]), rng.choice(["Tue Apr 29 2025", "Wed Jul  9 2025", "Thu Oct  2 2025"]))
            elif k == 6:
                s = p % (rng.choice(h.nics)[1], rng.randint(0, 9))
            elif k == 7:
                s = p
            else:
                s = p % (rng.randint(300, 900), hexid(rng, 32), rng.randint(9000, 12000), rng.randint(12000, 16000))
            self.add(h, t, s)


def xid_lines(rng, w, kind, pid=None):
    """Kernel lines for a GPU fault on worker w's GPU. Returns list of text."""
    pci = "PCI:0000:%s:00" % w.bus
    out = []
    if kind == "79":
        if rng.random() < 0.5:
            out.append("pcieport 0000:%s:01.0: AER: Uncorrected (Fatal) error received: 0000:%s:00.0" % (
                "%02x" % max(0, int(w.bus, 16) - 2), w.bus))
        out.append("NVRM: GPU at %s: GPU-%s" % (pci, uuid4(rng)))
        out.append("NVRM: GPU Board Serial Number: 1%012d" % rng.randint(0, 10 ** 12 - 1))
        if rng.random() < 0.5:
            out.append("NVRM: Xid (%s): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." % pci)
        else:
            out.append("NVRM: Xid (%s): 79, GPU has fallen off the bus." % pci)
        out.append("NVRM: GPU 0000:%s:00.0: GPU has fallen off the bus." % w.bus)
        if rng.random() < 0.5:
            out.append("NVRM: Xid (%s): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)" % pci)
    elif kind == "119":
        out.append("NVRM: GPU at %s: GPU-%s" % (pci, uuid4(rng)))
        out.append("NVRM: Xid (%s): 119, pid=%d, name=python3, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a4c 0x4)." % (pci, pid or w.pid, w.gpu))
        out.append("NVRM: GPU%d GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x0000000020800a4c 0x0000000000000004." % w.gpu)
        out.append("NVRM: Xid (%s): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)" % pci)
    elif kind == "48":
        pa = rng.randint(0x10000000, 0x7fffffff)
        out.append("NVRM: GPU at %s: GPU-%s" % (pci, uuid4(rng)))
        out.append("NVRM: Xid (%s): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at physAddr 0x%08x partition %d, subpartition %d." % (pci, pa, rng.randint(0, 23), rng.randint(0, 3)))
        if rng.random() < 0.5:
            out.append("NVRM: Xid (%s): 63, pid=%d, name=python3, Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % (pci, pid or w.pid, pa))
        else:
            out.append("NVRM: Xid (%s): 64, pid=%d, name=python3, Row Remapper Error: (0x%016x) - All reserved rows for bank are remapped" % (pci, pid or w.pid, pa))
        out.append("NVRM: Xid (%s): 94, pid=%d, name=python3, Contained: SM (0x1). RST: No, D-RST: No" % (pci, pid or w.pid))
    elif kind == "95":
        out.append("NVRM: GPU at %s: GPU-%s" % (pci, uuid4(rng)))
        out.append("NVRM: Xid (%s): 95, pid=%d, name=python3, Uncontained: LTC TAG (0x2, 0x1). RST: Yes, D-RST: No" % (pci, pid or w.pid))
        out.append("NVRM: Xid (%s): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)" % pci)
    elif kind == "74":
        link = rng.randint(0, 17)
        out.append("NVRM: GPU at %s: GPU-%s" % (pci, uuid4(rng)))
        out.append("NVRM: Xid (%s): 74, pid=%d, name=python3, NVLink: fatal error detected on link %d(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)" % (pci, pid or w.pid, link))
        out.append("NVRM: Xid (%s): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)" % pci)
    elif kind == "149":
        link = rng.randint(0, 17)
        out.append("NVRM: Xid (%s): 149, NETIR_LINK_EVT Fatal XC0 i0 Link %02d (0x004505c6 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000)" % (pci, link))
        out.append("NVRM: Xid (%s): 154, GPU recovery action changed from 0x0 (None) to 0x4 (Drain and Reset)" % pci)
    elif kind == "31":
        out.append("NVRM: GPU at %s: GPU-%s" % (pci, uuid4(rng)))
        out.append("NVRM: Xid (%s): 31, pid=%d, name=%s, channel 0x%08x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC%d GPCCLIENT_T1_%d faulted @ 0x%04x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_%s" % (
            pci, pid or w.pid, rng.choice(["python3", "python", "sglang::schedu", "VLLM::Worker_TP"]), rng.randint(2, 0x40), rng.randint(0, 7),
            rng.randint(0, 15), rng.randint(0x7000, 0x7fff), rng.randint(0, 0xffffffff) & 0xfffff000, rng.choice(["READ", "WRITE"])))
    elif kind == "13":
        out.append("NVRM: Xid (%s): 13, pid=%d, name=python3, Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (
            pci, pid or w.pid, rng.randint(0, 7), rng.randint(0, 8), rng.randint(0, 1)))
        out.append("NVRM: Xid (%s): 13, pid=%d, name=python3, Graphics Exception: ESR 0x%06x=0x%x 0x%06x=0x0 0x%06x=0x%x 0x%06x=0x%x" % (
            pci, pid or w.pid, rng.randint(0x500000, 0x5fffff), rng.randint(1, 0xffff), rng.randint(0x500000, 0x5fffff),
            rng.randint(0x500000, 0x5fffff), rng.randint(1, 0xffffff), rng.randint(0x500000, 0x5fffff), rng.randint(1, 0xff)))
    elif kind == "43":
        out.append("NVRM: Xid (%s): 43, pid=%d, name=python3, Ch %08x" % (pci, pid or w.pid, rng.randint(0x10, 0x40)))
    return out


# ----------------------------------------------------------------------------
# traceback frame sets
# ----------------------------------------------------------------------------

SGL_ROOTS = ["/sgl-workspace/sglang/python/sglang/srt/", "/usr/local/lib/python3.12/dist-packages/sglang/srt/",
             "/opt/conda/lib/python3.11/site-packages/sglang/srt/"]
VLLM_ROOTS = ["/usr/local/lib/python3.12/dist-packages/vllm/", "/opt/vllm/lib64/python3.12/site-packages/vllm/",
              "/opt/venv/lib/python3.12/site-packages/vllm/"]


def sgl_frames(rng, root, kind, role):
    sched = root + "managers/scheduler.py"
    loop = "event_loop_overlap_disagg_%s" % role if role in ("prefill", "decode") else "event_loop_overlap"
    fr = [(sched, rng.randint(2600, 3100), "run_scheduler_process", "scheduler.%s()" % loop),
          ("/usr/local/lib/python3.12/dist-packages/torch/utils/_contextlib.py", 120, "decorate_context",
           "return func(*args, **kwargs)")]
    if kind == "forward":
        fr += [(root + "disaggregation/%s.py" % role, rng.randint(600, 900), loop, "result = self.run_batch(batch)"),
               (sched, rng.randint(1700, 2000), "run_batch", "ret = self.tp_worker.forward_batch_generation(model_worker_batch)"),
               (root + "managers/tp_worker.py", rng.randint(230, 290), "forward_batch_generation",
                "logits_output, can_run_cuda_graph = self.model_runner.forward("),
               (root + "model_executor/model_runner.py", rng.randint(1900, 2200), "forward",
                "output = self._forward_raw("),
               (root + "model_executor/model_runner.py", rng.randint(2200, 2300), "_forward_raw",
                "ret = self.forward_decode(" if role == "decode" else "ret = self.forward_extend(")]
    elif kind == "poll":
        fr += [(root + "disaggregation/decode.py", rng.randint(700, 900), loop, "self.process_decode_queue()"),
               (root + "disaggregation/decode.py", rng.randint(900, 1000), "process_decode_queue",
                "resumed_reqs = self.disagg_decode_prealloc_queue.pop_preallocated()"),
               (root + "disaggregation/decode.py", rng.randint(380, 460), "pop_preallocated",
                "kv_indices = self.req_to_token_pool.req_to_token[")]
    elif kind == "transfer":
        fr += [(root + "disaggregation/prefill.py", rng.randint(300, 400), loop, "self.process_disagg_prefill_inflight_queue()"),
               (root + "disaggregation/prefill.py", rng.randint(400, 480), "process_disagg_prefill_inflight_queue",
                "polls = poll_and_all_reduce("),
               (root + "disaggregation/utils.py", rng.randint(30, 60), "poll_and_all_reduce",
                "dist.all_reduce(tensor_to_reduce, op=dist.ReduceOp.MIN, group=gloo_group)")]
    elif kind == "init":
        fr = [(sched, rng.randint(2600, 3100), "run_scheduler_process",
               "scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, moe_ep_rank, pp_rank, dp_rank)"),
              (sched, rng.randint(300, 360), "__init__", "self.init_disaggregation()"),
              (sched, rng.randint(800, 900), "init_disaggregation", "self.disagg_%s_bootstrap_queue = %sBootstrapQueue(" % (role, role.capitalize())),
              (root + "disaggregation/mooncake/conn.py", rng.randint(180, 260), "__init__", "self.register_buffer_to_engine()")]
    elif kind == "weights":
        fr += [(sched, rng.randint(2300, 2500), "process_input_requests", "output = self._request_dispatcher(recv_req)"),
               (root + "managers/scheduler_update_weights_mixin.py", rng.randint(40, 80), "update_weights_from_distributed",
                "success, message = self.tp_worker.update_weights_from_distributed(recv_req)"),
               (root + "model_executor/model_runner.py", rng.randint(900, 1000), "update_weights_from_distributed",
                "self.model.load_weights(weights)")]
    return fr


def vllm_frames(rng, root, kind):
    mp = root + "v1/executor/multiproc_executor.py"
    fr = [(mp, rng.randint(640, 720), "worker_busy_loop", "output = func(*args, **kwargs)"),
          ("/usr/local/lib/python3.12/dist-packages/torch/utils/_contextlib.py", 120, "decorate_context", "return func(*args, **kwargs)")]
    if kind == "forward":
        fr += [(root + "v1/worker/gpu_worker.py", rng.randint(440, 520), "execute_model", "output = self.model_runner.execute_model(scheduler_output,"),
               (root + "v1/worker/gpu_model_runner.py", rng.randint(2100, 2500), "execute_model", "model_output = self._model_forward("),
               (root + "v1/worker/gpu_model_runner.py", rng.randint(1900, 2100), "_model_forward", "return self.model(")]
    elif kind == "kv":
        fr += [(root + "v1/worker/gpu_worker.py", rng.randint(440, 520), "execute_model", "output = self.model_runner.execute_model(scheduler_output,"),
               (root + "v1/worker/kv_connector_model_runner_mixin.py", rng.randint(90, 140), "_get_kv_connector_output",
                "kv_connector.start_load_kv(get_forward_context())"),
               (root + "distributed/kv_transfer/kv_connector/v1/nixl_connector.py", rng.randint(1200, 1500), "start_load_kv",
                "self._read_blocks_for_req(req_id, meta)"),
               (root + "distributed/kv_transfer/kv_connector/v1/nixl_connector.py", rng.randint(1500, 1700), "_read_blocks",
                "self.nixl_wrapper.transfer(handle)")]
    elif kind == "weights":
        fr += [(root + "worker/worker_base.py", rng.randint(250, 300), "execute_method", "return run_method(self, method, args, kwargs)"),
               ("/app/rl/vllm_ext/weight_sync.py", rng.randint(60, 140), "update_weights_from_group",
                "self.model_runner.model.load_weights(weights=[(name, weight)])")]
    return fr


# ----------------------------------------------------------------------------
# SGLang stack
# ----------------------------------------------------------------------------

class SGLStack:
    name = "sglang"

    def __init__(self, run, pf):
        rng = run.rng
        self.run = run
        self.pf = pf
        self.root = rng.choice(SGL_ROOTS)
        self.glog_year = rng.random() < 0.35
        self.transfer = "mooncake" if rng.random() < 0.7 else "nixl"
        self.nccl_debug = rng.random() < 0.65
        self.version = rng.choice(["0.4.9.post2", "0.5.0rc2", "0.5.2", "0.5.3rc0", "0.5.4.post1", "0.5.6", "0.5.8"])
        self.nccl_ver = rng.choice(["2.21.5", "2.26.2", "2.27.3", "2.27.7", "2.28.3"])
        self.torch_new = rng.random() < 0.7

    # --- formatting
    def ts(self, h, t):
        return self.run.local(h, t).strftime("%Y-%m-%d %H:%M:%S")

    def wpfx(self, w, t):
        ts = self.ts(w.host, t)
        if w.inst.dp_attn:
            return "[%s DP%d TP%d EP%d]" % (ts, w.tp, w.tp, w.tp)
        return "[%s TP%d]" % (ts, w.tp)

    def wpath(self, w, t=None):
        return self.pf.path(w.inst, w.inst.node_rank(w), t)

    def wlog(self, w, t, msg, tags=(), lvl=None):
        p = self.wpath(w, t)
        if p is None or (w.silent is not None and t > w.silent):
            return
        self.run.f(p).add(t, "%s %s" % (self.wpfx(w, t), msg), tags)

    def mlog(self, inst, nr, t, msg, tags=()):
        p = self.pf.path(inst, nr, t)
        if p is None:
            return
        self.run.f(p).add(t, "[%s] %s" % (self.ts(inst.hosts[nr], t), msg), tags)

    def raw(self, inst, nr, t, text, tags=()):
        p = self.pf.path(inst, nr, t)
        if p is None:
            return
        self.run.f(p).add(t, text, tags)

    def wraw(self, w, t, text, tags=()):
        self.raw(w.inst, w.inst.node_rank(w), t, text, tags)

    def glog_line(self, h, t, sev, tid, src, msg):
        lt = self.run.local(h, t)
        d = lt.strftime("%Y%m%d") if self.glog_year else lt.strftime("%m%d")
        return "%s%s %s.%06d %7d %s] %s" % (sev, d, lt.strftime("%H:%M:%S"), lt.microsecond, tid, src, msg)

    def glog(self, w, t, sev, src, msg, tags=()):
        self.wraw(w, t, self.glog_line(w.host, t, sev, w.pid + 17, src, msg), tags)

    def ucx(self, w, t, lvl, src, msg, tags=()):
        hn = w.inst.pods[w.inst.node_rank(w)] if w.inst.pods else w.host.name.split(".")[0]
        self.wraw(w, t, "[%.6f] [%s:%d :0] %s UCX  %-5s %s" % (t + w.host.skew, hn, w.pid, src.rjust(22), lvl, msg), tags)

    def exc(self, w, t, frames, exc_line, tags=(), header="Scheduler hit an exception"):
        self.wlog(w, t, "%s: Traceback (most recent call last):" % header, tags)
        p = self.wpath(w, t)
        if p is None:
            return
        fb = self.run.f(p)
        for (fn, ln, func, code) in frames:
            fb.add(t, '  File "%s", line %d, in %s' % (fn, ln, func))
            fb.add(t, "    %s" % code)
        for i, x in enumerate(exc_line.split("\n")):
            fb.add(t, x, tags if i == 0 else ())

    # --- lifecycle
    def startup(self, inst, t):
        rng = self.run.rng
        role = inst.role
        model = self.run.model
        for nr, h in enumerate(inst.hosts):
            tt = t + rng.uniform(0, 2)
            if nr == 0:
                self.mlog(inst, nr, tt, "server_args=ServerArgs(model_path='%s', tokenizer_path='%s', host='0.0.0.0', port=%d, "
                          "mem_fraction_static=%.2f, tp_size=%d, dp_size=%d, enable_dp_attention=%s, nnodes=%d, node_rank=%d, "
                          "disaggregation_mode='%s', disaggregation_transfer_backend='%s', disaggregation_bootstrap_port=%d, "
                          "disaggregation_ib_device='%s', watchdog_timeout=300, ...)" % (
                              model[0], model[0], inst.port, rng.choice([0.8, 0.82, 0.85, 0.88]), inst.size,
                              inst.size if inst.dp_attn else 1, inst.dp_attn, len(inst.hosts), nr, role, self.transfer,
                              getattr(inst, "bootstrap", 8998), ",".join(n for n, _ in h.nics[:rng.choice([1, 2, 8])])))
            ws = [w for w in inst.workers if w.host is h]
            for w in ws:
                self.wlog(w, tt + 1.5, "Init torch distributed begin.")
            if self.nccl_debug:
                cid = hexid(rng, 16)
                for w in ws:
                    p = self.wpath(w, t)
                    if p:
                        self.run.f(p).add(tt + 3 + w.gpu * 0.01, "%s:%d:%d [%d] NCCL INFO ncclCommInitRank comm 0x%s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId 0x%s - Init COMPLETE" % (
                            h.name.split(".")[0], w.pid, w.pid + rng.randint(50, 400), w.gpu, hexid(rng, 12), w.tp, inst.size,
                            w.gpu, w.gpu, w.nccl_bus, cid), ("busmap", "pidmap") if w is self.run.V else ())
            for w in ws:
                self.wlog(w, tt + 4, "Init torch distributed ends. mem usage=%.2f GB" % rng.uniform(0.6, 2.4))
            w0 = ws[0]
            self.wlog(w0, tt + 5, "Load weight begin. avail mem=%.2f GB" % rng.uniform(76, 79.2))
            if not hasattr(inst, "nsh"):
                inst.nsh = rng.choice([163, 82, 41, 30, 17, 118])
            nsh = inst.nsh
            secs = rng.randint(40, 260)
            self.raw(inst, nr, tt + 5 + secs, "Loading safetensors checkpoint shards: 100%% Completed | %d/%d [%02d:%02d<00:00,  %.2fit/s]" % (
                nsh, nsh, secs // 60, secs % 60, nsh / float(secs)))
            t2 = tt + 6 + secs
            for w in ws:
                self.wlog(w, t2 + rng.uniform(0, 1), "Load weight end. type=%s, dtype=torch.bfloat16, avail mem=%.2f GB, mem usage=%.2f GB." % (
                    model[1], rng.uniform(8, 40), rng.uniform(30, 70)))
            self.wlog(w0, t2 + 2, "KV Cache is allocated. #tokens: %d, KV size: %.2f GB" % (rng.randint(200000, 1200000), rng.uniform(10, 40)))
            if self.transfer == "mooncake":
                for w in ws[:min(len(ws), 3)]:
                    self.glog(w, t2 + 3 + rng.uniform(0, 0.05), "I", "transfer_engine.cpp:91", "Transfer Engine uses address %s and port %d for serving local TCP service" % (
                        h.ip, rng.randint(15000, 17000)))
                    ipb = [int(x) for x in h.ip.split(".")]
                    self.glog(w, t2 + 3.1 + rng.uniform(0, 0.05), "I", "rdma_context.cpp:125", "RDMA device: %s, LID: 0, GID: (GID_Index 3) 00:00:00:00:00:00:00:00:00:00:ff:ff:%02x:%02x:%02x:%02x" % (
                        w.nic[0], ipb[0], ipb[1], ipb[2], ipb[3]))
            else:
                self.glog(w0, t2 + 3, "I", "nixl_agent.cpp:92", "NIXL ETCD is disabled")
                self.ucx(w0, t2 + 3.2, "INFO", "ucp_context.c:2339", "Version 1.19.0 (loaded from /opt/ucx/lib/libucp.so.0)")
            self.wlog(w0, t2 + 4, "Capture cuda graph begin. This can take up to several minutes. avail mem=%.2f GB" % rng.uniform(4, 12))
            self.wlog(w0, t2 + 30, "Capture cuda graph end. Time elapsed: %.2f s. mem usage=%.2f GB. avail mem=%.2f GB." % (
                rng.uniform(12, 40), rng.uniform(0.5, 3), rng.uniform(2, 8)))
            self.wlog(w0, t2 + 31, "max_total_num_tokens=%d, chunked_prefill_size=%d, max_prefill_tokens=16384, max_running_requests=%d, context_len=%d, available_gpu_mem=%.2f GB" % (
                rng.randint(200000, 1200000), rng.choice([8192, 16384]), rng.choice([256, 512, 1024, 4096]), rng.choice([32768, 131072, 163840]), rng.uniform(2, 8)))
            if nr == 0:
                mp = inst.main_pid[h.name]
                self.mlog(inst, nr, t2 + 32, "INFO:     Started server process [%d]" % mp)
                self.mlog(inst, nr, t2 + 32, "INFO:     Waiting for application startup.")
                self.mlog(inst, nr, t2 + 32, "INFO:     Application startup complete.")
                self.mlog(inst, nr, t2 + 32, "INFO:     Uvicorn running on http://0.0.0.0:%d (Press CTRL+C to quit)" % inst.port)
                self.mlog(inst, nr, t2 + 33, 'INFO:     127.0.0.1:%d - "GET /get_model_info HTTP/1.1" 200 OK' % rng.randint(30000, 60000))
                self.mlog(inst, nr, t2 + 40, "The server is fired up and ready to roll!")
        return t + 300

    def stat_line(self, inst, t, load=1.0):
        rng = self.run.rng
        if inst.role == "prefill":
            return ("Prefill batch. #new-seq: %d, #new-token: %d, #cached-token: %d, token usage: %.2f, #running-req: 0, "
                    "#unbootstrapped-req: %d, #queue-req: %d, #transferring-req: %d, input throughput (token/s): %.2f" % (
                        rng.randint(1, 8), rng.randint(512, 16384), rng.randint(0, 8192), rng.uniform(0.01, 0.3) * load,
                        rng.randint(0, 2), int(rng.randint(0, 6) * load), rng.randint(0, 4), rng.uniform(4000, 30000)))
        return ("Decode batch. #running-req: %d, #token: %d, token usage: %.2f, pre-allocated usage: %.2f, #retracted-req: 0, "
                "cuda graph: True, gen throughput (token/s): %.2f, #queue-req: %d" % (
                    int(rng.randint(20, 200) * load), rng.randint(20000, 400000), min(0.99, rng.uniform(0.1, 0.6) * load),
                    rng.uniform(0, 0.05), rng.uniform(800, 4000), int(rng.randint(0, 3) * load)))

    def noise(self, inst, t1, t2):
        rng = self.run.rng
        load = self.run.extra.get("load", {})
        for nr, h in enumerate(inst.hosts):
            if self.pf.path(inst, nr) is None:
                continue
            ws = [w for w in inst.workers if w.host is h]
            loggers = ws[:2] if inst.dp_attn else ([ws[0]] if nr == 0 else [])
            for w in loggers:
                t = t1 + rng.uniform(0, 8)
                while t < t2:
                    if inst.alive(t) and not inst.stalled(t):
                        L = 1.0
                        for (a, b, f) in load.get(inst.name, []):
                            if a <= t <= b:
                                L = f
                        self.wlog(w, t, self.stat_line(inst, t, L))
                    t += rng.uniform(4, 25)
            if nr == 0:
                t = t1 + rng.uniform(0, 10)
                while t < t2:
                    if inst.alive(t) and not inst.stalled(t):
                        self.mlog(inst, nr, t, 'INFO:     %s:%d - "%s HTTP/1.1" 200 OK' % (
                            self.run.extra.get("router_ip", "10.0.0.2"), rng.randint(30000, 65000),
                            rng.choice(["POST /generate", "POST /generate", "GET /health", "GET /health_generate"])))
                    t += rng.uniform(3, 30)

    # --- semantic events
    def xfer_err(self, w, t, peer, status, tags=(), retry=0, n=1):
        rng = self.run.rng
        if self.transfer == "mooncake":
            for k in range(n):
                tt = t + k * rng.uniform(0.0001, 0.02)
                self.glog(w, tt, "E", "worker_pool.cpp:%d" % rng.choice([271, 274, 291, 294]),
                          "Worker: Process failed for slice (opcode: 1, source_addr: 0x7f%s, length: %d, dest_addr: 0x7f%s, "
                          "local_nic: %s, peer_nic: %s:%d@%s, dest_rkey: %d, retry_cnt: %d): %s" % (
                              hexid(rng, 10), rng.choice([3584, 65536, 16384, 7168]), hexid(rng, 10), w.nic[0], peer.host.ip,
                              rng.randint(15000, 17000), peer.nic[0], rng.randint(2100000, 2140000), min(retry + k // 2, 2), status),
                          tags if k == 0 else ())
        else:
            if status.startswith("local protection"):
                self.ucx(w, t, "ERROR", "ib_mlx5_log.c:177", "Local protection on %s:1/IB (synd 0x4 vend 0x56 hw_synd 0/0)" % w.nic[0], tags)
            else:
                self.ucx(w, t, "ERROR", "ib_mlx5_log.c:177", "Transport retry count exceeded on %s:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)" % w.nic[0], tags)
            self.ucx(w, t + 0.0005, "ERROR", "ib_mlx5_log.c:177", "RC QP 0x%x wqe[%d]: RDMA_WRITE s-- [rva 0x7f%s rkey 0x%x] [va 0x7f%s len %d lkey 0x%x] [rqpn 0x%x dlid=0 sl=0 port=1 src_path_bits=0 dgid=::ffff:%s sgid_index=3 traffic_class=106]" % (
                rng.randint(0x100, 0xfffff), rng.randint(0, 4096), hexid(rng, 10), rng.randint(0x1000, 0xfffff), hexid(rng, 10), rng.choice([65536, 16384, 3584]),
                rng.randint(0x1000, 0xfffff), rng.randint(0x100, 0xfffff), peer.host.ip))
            self.glog(w, t + 0.001, "W", "ucx_utils.cpp:43", "Unexpected UCX error: Endpoint timeout", ())

    def kv_fail(self, w, t, reason, tags=()):
        rng = self.run.rng
        room = rng.randint(10 ** 17, 9 * 10 ** 18)
        if w.inst.role == "decode":
            self.wlog(w, t, "Decode transfer failed for request rank=%d decode_req.req.rid='%s' decode_req.req.bootstrap_room=%d with exception KVTransferError(bootstrap_room=%d): %s" % (
                w.tp, rid_hex(rng), room, room, reason), tags)
        else:
            self.wlog(w, t, "Prefill transfer failed for request rank=%d req.rid='%s' req.bootstrap_room=%d with exception KVTransferError(bootstrap_room=%d): %s" % (
                w.tp, rid_hex(rng), room, room, reason), tags)

    def nccl_wd(self, w, t, seq, op, numel, tags=(), timeout_ms=600000, last_done=None):
        rng = self.run.rng
        lt = self.run.local(w.host, t)
        g = "[rank%d]:[E%d%02d %s.%09d ProcessGroupNCCL.cpp:%d]" % (w.tp, lt.month, lt.day, lt.strftime("%H:%M:%S"), lt.microsecond * 1000 + rng.randint(0, 999),
                                                                    rng.choice([632, 688, 1663, 2068]))
        pg = "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % w.tp if self.torch_new else "[PG 0 Rank %d]" % w.tp
        self.wraw(w, t, "%s %s Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d) ran for %d milliseconds before timing out." % (
            g, pg, seq, op, numel, numel_out(op, numel, w.inst.size), timeout_ms, timeout_ms + rng.randint(5, 90)), tags)
        if last_done is not None:
            self.wraw(w, t + 0.001, "%s %s failure detected by watchdog at work sequence id: %d PG status: last enqueued work: %d, last completed work: %d" % (
                g, pg, seq, seq if last_done >= seq - 1 else last_done + 1, last_done), tags)
        self.wraw(w, t + 0.002, "%s %s Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % (g, pg))
        self.wraw(w, t + 0.003, "%s %s To avoid data inconsistency, we are taking the entire process down." % (g, pg))

    def nccl_remote(self, w, t, peer_host, tags=()):
        rng = self.run.rng
        lt = self.run.local(w.host, t)
        g = "[rank%d]:[E%d%02d %s.%09d ProcessGroupNCCL.cpp:%d]" % (w.tp, lt.month, lt.day, lt.strftime("%H:%M:%S"), lt.microsecond * 1000, rng.choice([1895, 2068]))
        pg = ("[PG ID 0 PG GUID 0(default_pg) Rank %d]" if self.torch_new else "[PG 0 Rank %d]") % w.tp
        self.wraw(w, t, "%s %s %s watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version %s" % (
            g, pg, "Process group" if self.torch_new else "NCCL", self.nccl_ver), tags)
        self.wraw(w, t, "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.")
        self.wraw(w, t, "Last error:")
        self.wraw(w, t, "socketProgress: Connection closed by remote peer %s<%d>" % (peer_host.name.split(".")[0], rng.randint(30000, 60000)))

    def child_died(self, inst, t, nr, tags=()):
        self.mlog(inst, nr, t, "Received sigquit from a child process. It usually means the child failed.", tags)

    def sigterm(self, inst, t, nr):
        self.mlog(inst, nr, t, "Received SIGTERM. Shutting down gracefully...") if self.run.rng.random() < 0.5 else \
            self.mlog(inst, nr, t, "INFO:     Shutting down")
        self.mlog(inst, nr, t + 0.3, "INFO:     Waiting for application shutdown.")
        self.mlog(inst, nr, t + 0.4, "INFO:     Application shutdown complete.")
        self.mlog(inst, nr, t + 0.5, "INFO:     Finished server process [%d]" % inst.main_pid[inst.hosts[nr].name])

    def http_err(self, inst, t, code, text):
        self.mlog(inst, 0, t, 'INFO:     %s:%d - "POST /generate HTTP/1.1" %d %s' % (
            self.run.extra.get("router_ip", "10.0.0.2"), self.run.rng.randint(30000, 65000), code, text))

    def worker_label(self, w):
        return "TP%d" % w.tp


# ----------------------------------------------------------------------------
# vLLM stack (V1 engine, NixlConnector / LMCache)
# ----------------------------------------------------------------------------

class VLLMStack:
    name = "vllm"

    def __init__(self, run, pf):
        rng = run.rng
        self.run = run
        self.pf = pf
        self.root = rng.choice(VLLM_ROOTS)
        self.style = rng.choice(["v09", "v010", "v011", "v011", "v011"])
        self.version = {"v09": rng.choice(["0.9.1", "0.9.2"]), "v010": rng.choice(["0.10.1.1", "0.10.2"]),
                        "v011": rng.choice(["0.11.0", "0.11.2", "0.12.0", "0.14.1", "0.17.0"])}[self.style]
        self.relsrc = self.style == "v011" and rng.random() < 0.4
        self.transfer = "nixl" if rng.random() < 0.8 else "lmcache"
        self.nccl_debug = rng.random() < 0.5
        self.nccl_ver = rng.choice(["2.21.5", "2.26.2", "2.27.3", "2.27.5"])
        self.api_pid = 1 if run.layout.startswith("k8s") else rng.randint(1000, 90000)

    def src(self, f, ln):
        if self.relsrc:
            if "/" in f:
                f = f.split("/")[0] + "/.../" + f.split("/")[-1]
        else:
            f = f.split("/")[-1]
        return "[%s:%d]" % (f, ln)

    def ts(self, h, t):
        return self.run.local(h, t).strftime("%m-%d %H:%M:%S")

    def ecore_pid(self, inst, nr):
        return inst.main_pid[inst.hosts[nr].name] + 7

    def wpfx(self, w):
        inst = w.inst
        nr = inst.node_rank(w)
        if inst.kind == "dp":
            return "(EngineCore_DP%d pid=%d)" % (w.tp, w.pid)
        if self.style == "v09":
            return "(VllmWorker rank=%d pid=%d)" % (w.tp, w.pid)
        if self.style == "v010":
            return "(EngineCore_0 pid=%d) (VllmWorker TP%d pid=%d)" % (self.ecore_pid(inst, nr), w.tp, w.pid)
        return "(EngineCore_DP0 pid=%d) (Worker_TP%d pid=%d)" % (self.ecore_pid(inst, nr), w.tp, w.pid)

    def epfx(self, inst, nr, dp=None):
        if inst.kind == "dp":
            ws = [w for w in inst.workers if w.host is inst.hosts[nr]]
            w = ws[0] if dp is None else dp
            return "(EngineCore_DP%d pid=%d) " % (w.tp, w.pid)
        if self.style == "v09":
            return ""
        if self.style == "v010":
            return "(EngineCore_0 pid=%d) " % self.ecore_pid(inst, nr)
        return "(EngineCore_DP0 pid=%d) " % self.ecore_pid(inst, nr)

    def apfx(self):
        return "(APIServer pid=%d) " % self.api_pid if self.style == "v011" else ""

    def wpath(self, w, t=None):
        return self.pf.path(w.inst, w.inst.node_rank(w), t)

    def wlog(self, w, t, msg, tags=(), lvl="INFO", src=("gpu_worker.py", 0)):
        p = self.wpath(w, t)
        if p is None or (w.silent is not None and t > w.silent):
            return
        ln = src[1] or self.run.rng.randint(80, 900)
        lines = msg.split("\n")
        if w is self.run.V and not self.run.healthy:
            tags = tuple(tags) + ("pidmap",)
        for i, m in enumerate(lines):
            self.run.f(p).add(t, "%s %s %s %s %s" % (self.wpfx(w), lvl, self.ts(w.host, t), self.src(src[0], ln), m), tags if i == 0 else ())

    def elog(self, inst, nr, t, msg, tags=(), lvl="INFO", src=("core.py", 0), dp=None):
        p = self.pf.path(inst, nr, t)
        if p is None:
            return
        ln = src[1] or self.run.rng.randint(80, 900)
        for i, m in enumerate(msg.split("\n")):
            self.run.f(p).add(t, "%s%s %s %s %s" % (self.epfx(inst, nr, dp), lvl, self.ts(inst.hosts[nr], t), self.src(src[0], ln), m), tags if i == 0 else ())

    def alog(self, inst, t, msg, tags=(), lvl="INFO", src=("api_server.py", 0)):
        p = self.pf.path(inst, 0, t)
        if p is None:
            return
        ln = src[1] or self.run.rng.randint(80, 1900)
        for i, m in enumerate(msg.split("\n")):
            self.run.f(p).add(t, "%s%s %s %s %s" % (self.apfx(), lvl, self.ts(inst.hosts[0], t), self.src(src[0], ln), m), tags if i == 0 else ())

    def access(self, inst, t, code, text, path="POST /v1/completions"):
        p = self.pf.path(inst, 0, t)
        if p is None:
            return
        self.run.f(p).add(t, '%sINFO:     %s:%d - "%s HTTP/1.1" %d %s' % (
            self.apfx(), self.run.extra.get("router_ip", "10.0.0.2"), self.run.rng.randint(30000, 65000), path, code, text))

    def mlog(self, inst, nr, t, msg, tags=()):
        self.elog(inst, nr, t, msg, tags)

    def wraw(self, w, t, text, tags=()):
        p = self.wpath(w, t)
        if p is None:
            return
        self.run.f(p).add(t, text, tags)

    def raw(self, inst, nr, t, text, tags=()):
        p = self.pf.path(inst, nr, t)
        if p is None:
            return
        self.run.f(p).add(t, text, tags)

    def glog_line(self, h, t, sev, tid, src, msg):
        lt = self.run.local(h, t)
        return "%s%s %s.%06d %7d %s] %s" % (sev, lt.strftime("%m%d"), lt.strftime("%H:%M:%S"), lt.microsecond, tid, src, msg)

    def glog(self, w, t, sev, src, msg, tags=()):
        self.wraw(w, t, self.glog_line(w.host, t, sev, w.pid, src, msg), tags)

    def ucx(self, w, t, lvl, src, msg, tags=()):
        hn = w.inst.pods[w.inst.node_rank(w)] if w.inst.pods else w.host.name.split(".")[0]
        self.wraw(w, t, "[%.6f] [%s:%d :0] %s UCX  %-5s %s" % (t + w.host.skew, hn, w.pid, src.rjust(22), lvl, msg), tags)

    def exc(self, w, t, frames, exc_line, tags=(), header=None):
        src = ("multiproc_executor.py", self.run.rng.choice([380, 562, 671])) if w.inst.kind == "tp" else ("core.py", 710)
        if w.inst.kind == "dp":
            header = header or "EngineCore encountered a fatal error."
        else:
            header = header or "WorkerProc hit an exception."
        body = [header, "Traceback (most recent call last):"]
        for (fn, ln, func, code) in frames:
            body.append('  File "%s", line %d, in %s' % (fn, ln, func))
            body.append("    %s" % code)
        el = exc_line.split("\n")
        body += el
        p = self.wpath(w, t)
        if p is None:
            return
        for i, m in enumerate(body):
            tg = tags if (i == 0 or i == len(body) - len(el)) else ()
            self.run.f(p).add(t, "%s ERROR %s %s %s" % (self.wpfx(w), self.ts(w.host, t), self.src(*src), m), tg)

    # --- lifecycle
    def startup(self, inst, t):
        rng = self.run.rng
        model = self.run.model
        for nr, h in enumerate(inst.hosts):
            if self.pf.path(inst, nr) is None:
                continue
            tt = t + rng.uniform(0, 2)
            ws = [w for w in inst.workers if w.host is h]
            self.raw(inst, nr, tt, "INFO %s [__init__.py:%d] Automatically detected platform cuda." % (self.ts(h, tt), rng.choice([216, 235, 241])))
            if nr == 0:
                self.alog(inst, tt + 1, "vLLM API server version %s" % self.version)
                kvc = ("KVTransferConfig(kv_connector='NixlConnector', engine_id='%s', kv_buffer_device='cuda', kv_role='kv_both')" % uuid4(rng)
                       if self.transfer == "nixl" else
                       "KVTransferConfig(kv_connector='LMCacheConnectorV1', kv_role='kv_%s')" % ("producer" if inst.role == "prefill" else "consumer"))
                extra = ("'data_parallel_size': %d, 'enable_expert_parallel': True, " % inst.size) if inst.kind == "dp" else \
                    ("'tensor_parallel_size': %d, " % inst.size)
                self.alog(inst, tt + 1.1, "non-default args: {'model': '%s', %s'gpu_memory_utilization': %.2f, 'kv_transfer_config': %s}" % (
                    model[0], extra, rng.choice([0.85, 0.9, 0.92]), kvc), src=("utils.py", 233))
            for w in ws:
                if inst.kind == "dp":
                    self.wlog(w, tt + 3, "rank %d in world size %d is assigned as DP rank %d, PP rank 0, TP rank 0, EP rank %d" % (
                        w.tp, inst.size, w.tp, w.tp), src=("parallel_state.py", 1208))
                else:
                    self.wlog(w, tt + 3, "rank %d in world size %d is assigned as DP rank 0, PP rank 0, TP rank %d, EP rank %d" % (
                        w.tp, inst.size, w.tp, w.tp), src=("parallel_state.py", 1208))
            if self.nccl_debug:
                cid = hexid(rng, 16)
                for w in ws:
                    hn = inst.pods[nr] if inst.pods else h.name.split(".")[0]
                    self.wraw(w, tt + 4 + w.gpu * 0.01, "%s:%d:%d [%d] NCCL INFO ncclCommInitRank comm 0x%s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId 0x%s - Init COMPLETE" % (
                        hn, w.pid, w.pid + rng.randint(50, 400), w.gpu, hexid(rng, 12), w.tp, inst.size, w.gpu, w.gpu, w.nccl_bus, cid),
                        ("busmap", "pidmap") if w is self.run.V else ())
            if self.transfer == "nixl":
                w0 = ws[0]
                self.wlog(w0, tt + 5, "Setting UCX_RCACHE_MAX_UNRELEASED to '1024' to avoid a rare memory leak in UCX when using NIXL.",
                          src=("nixl_connector.py", rng.randint(500, 700)))
                self.glog(w0, tt + 5.1, "I", "nixl_agent.cpp:92", "NIXL ETCD is disabled")
                self.glog(w0, tt + 5.2, "I", "nixl_plugin_manager.cpp:316", "Discovered and loaded plugin: UCX")
                if rng.random() < 0.5:
                    self.ucx(w0, tt + 5.3, "WARN", "ucp_context.c:1063", "transport 'rc_gda' is not available, please use one or more of: cma, cuda_copy, cuda_ipc, dc, dc_mlx5, rc, rc_mlx5, self, sysv, tcp, ud, ud_mlx5")
            else:
                self.wlog(ws[0], tt + 5, "LMCache INFO: Initializing LMCacheEngine with chunk_size=256, local_cpu=True, max_local_cpu_size=%d GB" % rng.choice([40, 80, 160]),
                          src=("vllm_v1_adapter.py", 542))
            secs = rng.uniform(20, 240)
            mgib = rng.uniform(10, 70)
            for w in ws:
                self.wlog(w, tt + 6 + secs + rng.uniform(0, 2), "Model loading took %.4f GiB and %.6f seconds" % (mgib + rng.uniform(-0.01, 0.01), secs + rng.uniform(-1.5, 1.5)),
                          src=("gpu_model_runner.py", rng.choice([1892, 2024, 2653])))
            self.elog(inst, nr, tt + 8 + secs, "GPU KV cache size: {:,} tokens".format(rng.randint(100000, 2000000)), src=("kv_cache_utils.py", 1087))
            self.elog(inst, nr, tt + 8.1 + secs, "Maximum concurrency for {:,} tokens per request: {:.2f}x".format(
                rng.choice([32768, 65536, 131072]), rng.uniform(4, 60)), src=("kv_cache_utils.py", 1091))
            if nr == 0:
                self.alog(inst, tt + 30 + secs, "Starting vLLM API server 0 on http://0.0.0.0:%d" % inst.port, src=("launcher.py", 44))
                p = self.pf.path(inst, 0, t)
                self.run.f(p).add(tt + 30.1 + secs, "%sINFO:     Started server process [%d]" % (self.apfx(), self.api_pid))
                self.run.f(p).add(tt + 30.2 + secs, "%sINFO:     Waiting for application startup." % self.apfx())
                self.run.f(p).add(tt + 30.3 + secs, "%sINFO:     Application startup complete." % self.apfx())
        return t + 300

    def noise(self, inst, t1, t2):
        rng = self.run.rng
        if self.pf.path(inst, 0) is None:
            return
        load = self.run.extra.get("load", {})
        t = t1 + rng.uniform(0, 10)
        while t < t2:
            if inst.alive(t) and not inst.stalled(t):
                L = 1.0
                for (a, b, f) in load.get(inst.name, []):
                    if a <= t <= b:
                        L = f
                self.alog(inst, t, "Engine 000: Avg prompt throughput: %.1f tokens/s, Avg generation throughput: %.1f tokens/s, Running: %d reqs, Waiting: %d reqs, GPU KV cache usage: %.1f%%, Prefix cache hit rate: %.1f%%" % (
                    rng.uniform(0, 40000) if inst.role == "prefill" else rng.uniform(0, 600),
                    rng.uniform(0, 50) if inst.role == "prefill" else rng.uniform(400, 4000),
                    int(rng.randint(1, 120) * L), int(rng.randint(0, 3) * L * L), min(99.9, rng.uniform(5, 60) * L), rng.uniform(0, 80)),
                    src=("loggers.py", rng.choice([123, 259])))
                for _ in range(rng.randint(0, 3)):
                    self.access(inst, t + rng.uniform(0, 9), 200, "OK", rng.choice(["POST /v1/completions", "POST /v1/chat/completions", "GET /health"]))
            t += rng.uniform(9.5, 10.5) * rng.choice([1, 1, 2, 3])

    # --- semantic events
    def xfer_err(self, w, t, peer, status, tags=(), retry=0, n=1):
        rng = self.run.rng
        if status.startswith("transport retry") or status.startswith("Transport retry"):
            self.ucx(w, t, "ERROR", "ib_mlx5_log.c:177", "Transport retry count exceeded on %s:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)" % w.nic[0], tags)
            self.ucx(w, t + 0.0005, "ERROR", "ib_mlx5_log.c:177", "RC QP 0x%x wqe[%d]: RDMA_READ s-- [rva 0x7f%s rkey 0x%x] [va 0x7f%s len %d lkey 0x%x] [rqpn 0x%x dlid=0 sl=0 port=1 src_path_bits=0 dgid=::ffff:%s sgid_index=3 traffic_class=106]" % (
                rng.randint(0x100, 0xfffff), rng.randint(0, 4096), hexid(rng, 10), rng.randint(0x1000, 0xfffff), hexid(rng, 10), rng.choice([65536, 131072, 16384]),
                rng.randint(0x1000, 0xfffff), rng.randint(0x100, 0xfffff), peer.host.ip))
        elif status == "endpoint timeout":
            self.ucx(w, t, "ERROR", "tcp_ep.c:1260", "tcp_ep 0x%s (state=CONNECTED): send(%d) failed: Input/output error" % (hexid(rng, 8), rng.randint(90, 140)), tags)
            self.glog(w, t + 0.0001, "W", "ucx_utils.cpp:43", "Unexpected UCX error: Endpoint timeout")
        elif status == "connection timed out":
            self.ucx(w, t, "ERROR", "ib_device.c:1332", "ibv_create_ah(dlid=49152 sl=0 port=1 src_path_bits=0 dgid=::ffff:%s flow_label=0xffffffff sgid_index=3 traffic_class=106) for UD mlx5 connect on %s failed: Connection timed out" % (
                peer.host.ip, w.nic[0]), tags)
        else:
            self.glog(w, t, "E", "ucx_backend.cpp:%d" % rng.randint(900, 1400), "UCX transfer failed: %s" % status, tags)

    def kv_fail(self, w, t, reason, tags=()):
        rng = self.run.rng
        rid = rng.choice(["cmpl-", "chatcmpl-"]) + uuid4(rng) + "-0"
        if w.inst.role == "decode":
            self.wlog(w, t, "NIXL transfer for request %s failed (%s); %d blocks marked invalid, request will be recomputed or aborted per kv_load_failure_policy" % (
                rid, reason, rng.randint(4, 300)), tags, lvl="ERROR", src=("nixl_connector.py", rng.randint(1900, 2300)))
        else:
            self.elog(w.inst, w.inst.node_rank(w), t, "Releasing expired KV blocks for request %s which were retrieved by 0 decode worker(s) within %d seconds." % (
                rid, rng.choice([120, 480])), tags, lvl="WARNING", src=("nixl_connector.py", 1048), dp=w if w.inst.kind == "dp" else None)

    def nccl_wd(self, w, t, seq, op, numel, tags=(), timeout_ms=600000, last_done=None):
        rng = self.run.rng
        lt = self.run.local(w.host, t)
        g = "[rank%d]:[E%d%02d %s.%09d ProcessGroupNCCL.cpp:%d]" % (w.tp, lt.month, lt.day, lt.strftime("%H:%M:%S"), lt.microsecond * 1000 + rng.randint(0, 999),
                                                                    rng.choice([632, 688, 1663, 2068]))
        pg = "[PG ID 2 PG GUID 3 Rank %d]" % w.tp
        self.wraw(w, t, "%s %s Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d) ran for %d milliseconds before timing out." % (
            g, pg, seq, op, numel, numel_out(op, numel, w.inst.size), timeout_ms, timeout_ms + rng.randint(5, 90)), tags)
        if last_done is not None:
            self.wraw(w, t + 0.001, "%s %s failure detected by watchdog at work sequence id: %d PG status: last enqueued work: %d, last completed work: %d" % (
                g, pg, seq, seq if last_done >= seq - 1 else last_done + 1, last_done), tags)
        self.wraw(w, t + 0.003, "%s %s To avoid data inconsistency, we are taking the entire process down." % (g, pg))

    def nccl_remote(self, w, t, peer_host, tags=()):
        rng = self.run.rng
        lt = self.run.local(w.host, t)
        g = "[rank%d]:[E%d%02d %s.%09d ProcessGroupNCCL.cpp:%d]" % (w.tp, lt.month, lt.day, lt.strftime("%H:%M:%S"), lt.microsecond * 1000, 2068)
        self.wraw(w, t, "%s [PG ID 2 PG GUID 3 Rank %d] Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version %s" % (
            g, w.tp, self.nccl_ver), tags)
        self.wraw(w, t, "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.")

    def child_died(self, inst, t, nr, tags=(), w=None):
        """Engine-side summary of a dead worker/engine core."""
        rng = self.run.rng
        if inst.kind == "dp":
            self.alog(inst, t, "Engine core proc EngineCore_DP%d died unexpectedly, shutting down client." % (w.tp if w else 0), tags,
                      lvl="ERROR", src=("core_client.py", rng.choice([564, 605, 712])))
        else:
            if w is not None:
                self.elog(inst, nr, t, "Worker proc VllmWorker-%d died unexpectedly, shutting down executor." % w.tp, tags, lvl="ERROR",
                          src=("multiproc_executor.py", rng.choice([135, 140, 154])))
            self.alog(inst, t + 0.4, "Engine core proc %s died unexpectedly, shutting down client." % ("EngineCore_0" if self.style == "v010" else "EngineCore_DP0"),
                      (), lvl="ERROR", src=("core_client.py", rng.choice([564, 605, 712])))
        self.alog(inst, t + 0.5, "AsyncLLM output_handler failed.\nTraceback (most recent call last):\n  File \"%sv1/engine/async_llm.py\", line %d, in output_handler\n    outputs = await engine_core.get_output_async()\nvllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause." % (
            self.root, rng.randint(420, 520)), lvl="ERROR", src=("async_llm.py", 480))
        for _ in range(rng.randint(1, 4)):
            self.access(inst, t + rng.uniform(0.5, 1.5), 500, "Internal Server Error")
        p = self.pf.path(inst, 0, t)
        if p:
            self.run.f(p).add(t + 2, "%sINFO:     Shutting down" % self.apfx())
            self.run.f(p).add(t + 2.3, "%sINFO:     Finished server process [%d]" % (self.apfx(), self.api_pid))

    def engine_fatal(self, inst, nr, t, err_text, tags=()):
        rng = self.run.rng
        if inst.kind == "dp":
            return
        self.elog(inst, nr, t, "EngineCore encountered a fatal error.\nTraceback (most recent call last):\n  File \"%sv1/engine/core.py\", line %d, in run_engine_core\n    engine_core.run_busy_loop()\n  File \"%sv1/executor/multiproc_executor.py\", line %d, in collective_rpc\n    raise RuntimeError(\nRuntimeError: Worker failed with error '%s', please check the stack trace above for the root cause" % (
            self.root, rng.randint(690, 720), self.root, rng.randint(240, 344), err_text), tags, lvl="ERROR", src=("core.py", 710))

    def sigterm(self, inst, t, nr):
        p = self.pf.path(inst, nr, t)
        if p is None:
            return
        if nr == 0:
            self.run.f(p).add(t, "%sINFO:     Shutting down" % self.apfx())
            self.run.f(p).add(t + 0.2, "%sINFO:     Waiting for application shutdown." % self.apfx())
            self.run.f(p).add(t + 0.4, "%sINFO:     Application shutdown complete." % self.apfx())
            self.run.f(p).add(t + 0.5, "%sINFO:     Finished server process [%d]" % (self.apfx(), self.api_pid))
        else:
            self.elog(inst, nr, t, "Shutdown requested (signal 15), exiting engine core.", lvl="INFO", src=("core.py", 683))

    def http_err(self, inst, t, code, text):
        self.access(inst, t, code, text)

    def worker_label(self, w):
        if w.inst.kind == "dp":
            return "EngineCore_DP%d" % w.tp
        return "Worker_TP%d" % w.tp


# ----------------------------------------------------------------------------
# routers / gateways
# ----------------------------------------------------------------------------

class SGLRouter:
    """sglang_router_rs (sgl-router / sgl-model-gateway) log."""

    def __init__(self, run, path="logs/router.log"):
        self.run = run
        rng = run.rng
        self.path = path
        self.old = rng.random() < 0.2
        self.host = None
        self.skew = rng.uniform(-1.5, 1.5)
        self.utc = rng.random() < 0.7

    def ts(self, t):
        x = t + self.skew + (0 if self.utc else self.run.tz * 3600)
        return dt(x).strftime("%Y-%m-%d %H:%M:%S")

    def line(self, t, lvl, mod, src, msg, tags=()):
        if self.old:
            txt = "[Router (Rust)] %s - %s - %s" % (self.ts(t), lvl, msg)
        else:
            txt = "%s %5s %s: %s: %s" % (self.ts(t), lvl, mod, src, msg)
        self.run.f(self.path).add(t, txt, tags)

    def inst_url(self, inst):
        return inst.url

    def start(self, t):
        P = [i for i in self.run.instances if i.role == "prefill"]
        D = [i for i in self.run.instances if i.role == "decode"]
        self.line(t, "INFO", "sglang_router_rs::server", "src/server.rs:261",
                  "Starting router on 0.0.0.0:30000 | mode: PrefillDecode { prefill_urls: [%s], decode_urls: [%s], prefill_policy: None, decode_policy: None } | policy: %s | max_payload_size: 536870912" % (
                      ", ".join('("%s", Some(%d))' % (i.url, getattr(i, "bootstrap", 8998)) for i in P),
                      ", ".join('"%s"' % i.url for i in D), self.run.rng.choice(["CacheAware { cache_threshold: 0.5, balance_abs_threshold: 32, balance_rel_threshold: 1.1, eviction_interval_secs: 30, max_tree_size: 10000 }", "RoundRobin", "PowerOfTwo"])))
        for i in P + D:
            self.line(t + 0.5, "INFO", "sglang_router_rs::core::worker_manager", "src/core/worker_manager.rs:412",
                      "Worker %s is healthy (%s)" % (i.url, i.role))

    def noise(self, t1, t2):
        rng = self.run.rng
        t = t1 + rng.uniform(0, 60)
        while t < t2:
            if rng.random() < 0.5:
                self.line(t, "INFO", "sglang_router_rs::metrics", "src/metrics.rs:388",
                          "router stats: requests_total=%d in_flight=%d prefill_p50_ms=%d decode_tpot_p50_ms=%d" % (
                              rng.randint(10000, 900000), rng.randint(10, 400), rng.randint(80, 900), rng.randint(12, 60)))
            else:
                P = [i for i in self.run.instances if i.role == "prefill" and i.alive(t)]
                D = [i for i in self.run.instances if i.role == "decode" and i.alive(t)]
                if P and D:
                    self.line(t, "DEBUG" if rng.random() < 0.3 else "INFO", "sglang_router_rs::routers::http::pd_router", "src/routers/http/pd_router.rs:%d" % rng.randint(600, 700),
                              "PD request routed: prefill=%s decode=%s bootstrap_room=%d" % (
                                  rng.choice(P).url, rng.choice(D).url, rng.randint(10 ** 17, 9 * 10 ** 18)))
                else:
                    self.line(t, "ERROR", "sglang_router_rs::routers::http::pd_router", "src/routers/http/pd_router.rs:488",
                              "No healthy %s workers available; returning 503 Service Unavailable" % ("prefill" if not P else "decode"))
            t += rng.uniform(20, 120)

    def req_err(self, t, inst, code, detail, tags=()):
        if inst.role == "prefill":
            self.line(t, "ERROR", "sglang_router_rs::routers::http::pd_router", "src/routers/http/pd_router.rs:842",
                      "Prefill server %s error: %s" % (inst.url, detail), tags)
        else:
            self.line(t, "ERROR", "sglang_router_rs::routers::http::pd_router", "src/routers/http/pd_router.rs:1069",
                      "Decode server %s returned error status %d: %s" % (inst.url, code, detail), tags)

    def timeout(self, t, inst, secs, tags=()):
        self.line(t, "ERROR", "sglang_router_rs::routers::http::pd_router", "src/routers/http/pd_router.rs:1102",
                  "Request to %s timed out after %ds, returning 504 Gateway Timeout" % (inst.url, secs), tags)

    def health_fail(self, t, inst, why="error sending request for url (%s/health)", tags=()):
        w = why % inst.url if "%s" in why else why
        self.line(t, "WARN", "sglang_router_rs::core::worker_manager", "src/core/worker_manager.rs:1031",
                  "Worker %s health check failed: %s" % (inst.url, w), tags)

    def unhealthy(self, t, inst, tags=()):
        self.line(t, "WARN", "sglang_router_rs::core::worker", "src/core/worker.rs:402",
                  "Worker %s marked unhealthy after 3 consecutive failures" % inst.url, tags)

    def healthy(self, t, inst):
        self.line(t, "INFO", "sglang_router_rs::core::worker", "src/core/worker.rs:418",
                  "Worker %s is healthy again after 2 consecutive successes" % inst.url)

    def shed(self, t, n):
        self.line(t, "WARN", "sglang_router_rs::middleware", "src/middleware.rs:412",
                  "Request queue full (max_concurrent_requests=%d, queue_size=%d); rejected %d requests with 429 Too Many Requests in the last 10s" % (
                      self.run.rng.choice([256, 512, 1024]), self.run.rng.choice([100, 200]), n))

    def shed503(self, t, n):
        self.line(t, "WARN", "sglang_router_rs::routers::http::pd_router", "src/routers/http/pd_router.rs:512",
                  "No available decode workers with capacity; returning 503 Service Unavailable (%d requests in last 10s)" % n)


class LLMDRouter:
    """llm-d inference scheduler (EPP, JSON/zap) + Istio/Envoy gateway access log."""

    def __init__(self, run):
        self.run = run
        rng = run.rng
        self.epp_pod = "%s-epp-%s-%s" % (run.extra["prefix"], hexid(rng, 9)[:9], hexid(rng, 5))
        self.gw_pod = "%s-inference-gateway-istio-%s-%s" % (run.extra["prefix"], hexid(rng, 9)[:9], hexid(rng, 5))
        self.epp = "pods/%s.log" % self.epp_pod
        self.gw = "pods/%s.log" % self.gw_pod
        self.skew = rng.uniform(-1, 1)
        self.ts_epoch = rng.random() < 0.3

    def ts(self, t):
        if self.ts_epoch:
            return "%.9f" % (t + self.skew)
        return dt(t + self.skew).strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (int((t + self.skew) * 1000) % 1000)

    def j(self, t, level, caller, msg, tags=(), **kv):
        d = '{"level":"%s","ts":%s,"logger":"%s","caller":"%s","msg":"%s"' % (
            level, self.ts(t) if self.ts_epoch else '"%s"' % self.ts(t), kv.pop("logger", "epp"), caller, msg)
        for k, v in kv.items():
            d += ',"%s":%s' % (k, json.dumps(v))
        d += "}"
        self.run.f(self.epp).add(t, d, tags)

    def podname(self, inst):
        return inst.pods[0] if inst.pods else inst.name

    def podip(self, inst):
        return inst.hosts[0].ip.replace("10.", "10.%d." % 52, 1).rsplit(".", 1)[0] + "." + inst.hosts[0].ip.rsplit(".", 1)[1]

    def access(self, t, code, flags, inst, dur, tags=(), path="/v1/chat/completions"):
        rng = self.run.rng
        ts = dt(t + self.skew).strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (int((t + self.skew) * 1000) % 1000)
        up = "%s:8000" % self.podip(inst) if inst is not None else "-"
        txt = '[%s] "POST %s HTTP/1.1" %d %s - "-" %d %d %d %s "%s" "%s" "%s" "%s" "%s"' % (
            ts, path, code, flags, rng.randint(200, 40000), rng.randint(0, 9000) if code == 200 else rng.randint(19, 120), dur,
            str(dur - rng.randint(0, 3)) if code == 200 else "-", "10.%d.%d.%d" % (rng.randint(0, 9), rng.randint(0, 250), rng.randint(2, 250)),
            rng.choice(["python-requests/2.32.3", "OpenAI/Python 1.99.9", "aiohttp/3.12.15", "vegeta"]), uuid4(rng),
            "%s.%s.svc.cluster.local:80" % (self.run.extra["prefix"], self.run.extra["ns"]), up)
        self.run.f(self.gw).add(t, txt, tags)

    def start(self, t):
        self.j(t, "info", "runner/runner.go:211", "EPP starting", poolName=self.run.extra["prefix"], poolNamespace=self.run.extra["ns"])
        for inst in self.run.instances:
            for pod in inst.pods[:1]:
                self.j(t + 1, "info", "datastore/datastore.go:247", "Pod added to datastore", logger="datastore", pod="%s/%s" % (self.run.extra["ns"], pod), role=inst.role)

    def noise(self, t1, t2):
        rng = self.run.rng
        D = [i for i in self.run.instances if i.role == "decode"]
        P = [i for i in self.run.instances if i.role == "prefill"]
        t = t1 + rng.uniform(0, 10)
        while t < t2:
            alive = [x for x in D if x.alive(t)]
            d = rng.choice(alive) if alive else None
            if d is None:
                self.access(t, 503, "UH", None, rng.randint(0, 2))
            else:
                self.access(t, 200, "-", d, rng.randint(300, 40000))
                if rng.random() < 0.3:
                    p = rng.choice(P)
                    self.j(t, "info", "requestcontrol/director.go:%d" % rng.randint(180, 260), "Request handled", logger="requestcontrol",
                           decodePod=self.podname(d), prefillPod=self.podname(p), x_request_id=uuid4(rng))
            t += rng.uniform(2, 25)

    def req_err(self, t, inst, code, detail, tags=()):
        flags = {502: "UC", 503: "UF", 500: "-", 504: "UT"}.get(code, "-")
        self.access(t, code, flags if code != 500 else "via_upstream", inst, self.run.rng.randint(2, 3000), tags)

    def timeout(self, t, inst, secs, tags=()):
        self.access(t, 504, "UT", inst, secs * 1000, tags)

    def health_fail(self, t, inst, why=None, tags=()):
        ip = self.podip(inst)
        self.j(t, "error", "metrics/pod_metrics.go:%d" % 112, "Failed to refresh metrics", tags, logger="metrics",
               pod="%s/%s" % (self.run.extra["ns"], self.podname(inst)),
               error='Get "http://%s:8000/metrics": dial tcp %s:8000: connect: connection refused' % (ip, ip))

    def unhealthy(self, t, inst, tags=()):
        self.j(t, "info", "datastore/datastore.go:268", "Pod removed from datastore", tags, logger="datastore",
               pod="%s/%s" % (self.run.extra["ns"], self.podname(inst)), reason="pod not ready")

    def healthy(self, t, inst):
        self.j(t, "info", "datastore/datastore.go:247", "Pod added to datastore", logger="datastore",
               pod="%s/%s" % (self.run.extra["ns"], self.podname(inst)), role=inst.role)

    def shed(self, t, n):
        self.j(t, "info", "saturationdetector/detector.go:141", "Pool saturated, shedding sheddable requests", logger="flowcontrol",
               shed=n, criticality="Sheddable")
        for _ in range(min(n, 6)):
            self.access(t + self.run.rng.uniform(0, 8), 503, "-", None, self.run.rng.randint(1, 5))

    shed503 = shed


class DynamoFrontend:
    """NVIDIA Dynamo frontend (Rust tracing) log."""

    def __init__(self, run):
        self.run = run
        rng = run.rng
        self.pod = "%s-frontend-%s-%s" % (run.extra["prefix"], hexid(rng, 9), hexid(rng, 5))
        self.path = "pods/%s.log" % self.pod
        self.skew = rng.uniform(-1, 1)
        self.ids = {}

    def ts(self, t):
        return dt(t + self.skew).strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (int((t + self.skew) * 1000) % 1000)

    def line(self, t, lvl, target, msg, tags=()):
        self.run.f(self.path).add(t, "%s %5s %s: %s" % (self.ts(t), lvl, target, msg), tags)

    def iid(self, inst):
        if inst.name not in self.ids:
            self.ids[inst.name] = self.run.rng.randint(10 ** 15, 9 * 10 ** 15)
        return self.ids[inst.name]

    def start(self, t):
        self.line(t, "INFO", "dynamo_llm::http::service::service_v2", "Starting HTTP service on: 0.0.0.0:8000 address=\"0.0.0.0:8000\"")
        for inst in self.run.instances:
            self.line(t + 1, "INFO", "dynamo_llm::discovery::watcher", "added model model_name=\"%s\" namespace=\"dynamo\" component=\"%s\" instance_id=%d" % (
                self.run.model[0], "prefill" if inst.role == "prefill" else "backend", self.iid(inst)))

    def noise(self, t1, t2):
        rng = self.run.rng
        t = t1 + rng.uniform(0, 30)
        while t < t2:
            alive = [i for i in self.run.instances if i.role == "decode" and i.alive(t)]
            if alive:
                self.line(t, "INFO", "dynamo_llm::kv_router::scheduler", "selected worker_id=%d dp_rank=0 overlap_blocks=%d total_blocks=%d" % (
                    self.iid(rng.choice(alive)), rng.randint(0, 200), rng.randint(200, 2000)))
            else:
                self.line(t, "WARN", "dynamo_llm::http::service::openai", "no instances available for model %s; returning 503" % self.run.model[0])
            t += rng.uniform(15, 90)

    def req_err(self, t, inst, code, detail, tags=()):
        self.line(t, "ERROR", "dynamo_llm::http::service::openai", "request failed: status=%d instance_id=%d error=%s" % (code, self.iid(inst), detail), tags)

    def timeout(self, t, inst, secs, tags=()):
        self.line(t, "WARN", "dynamo_llm::http::service::openai", "request timed out after %ds waiting for first token from instance_id=%d" % (secs, self.iid(inst)), tags)

    def health_fail(self, t, inst, why=None, tags=()):
        self.line(t, "WARN", "dynamo_runtime::pipeline::network::egress::push_router", "instance %d unreachable: connection refused; marking down" % self.iid(inst), tags)

    def unhealthy(self, t, inst, tags=()):
        self.line(t, "INFO", "dynamo_runtime::component::client", "lease expired for instance %d, removing from routing table" % self.iid(inst), tags)

    def healthy(self, t, inst):
        self.ids.pop(inst.name, None)
        self.line(t, "INFO", "dynamo_llm::discovery::watcher", "added model model_name=\"%s\" namespace=\"dynamo\" component=\"%s\" instance_id=%d" % (
            self.run.model[0], "prefill" if inst.role == "prefill" else "backend", self.iid(inst)))

    def shed(self, t, n):
        self.line(t, "WARN", "dynamo_llm::http::service::service_v2", "busy threshold reached (active_decode_blocks>0.95); rejected %d requests with 503 Service Unavailable" % n)

    shed503 = shed


# ----------------------------------------------------------------------------
# platforms
# ----------------------------------------------------------------------------

class SlurmPF:
    """Slurm job running each instance as an srun step; per-node logs in logs/."""

    def __init__(self, run):
        rng = run.rng
        self.run = run
        self.jobid = rng.randint(100000, 9999999)
        self.out = "slurm-%d.out" % self.jobid
        self.collected = []
        self.kern = Kern(run, prefix="dmesg")
        self.wrapper = rng.random() < 0.6

    def ts(self, t):
        return self.run.local(None, t).strftime("%Y-%m-%dT%H:%M:%S")

    def path(self, inst, nr, t=None):
        if (inst.name, nr) not in self.collected:
            return None
        return "logs/%s-node%d-%s.log" % (inst.name, nr, inst.hosts[nr].name)

    def collect(self, inst, nr):
        if (inst.name, nr) not in self.collected:
            self.collected.append((inst.name, nr))

    def header(self, t):
        run = self.run
        f = run.f(self.out)
        nn = sum(len(i.hosts) for i in run.instances)
        f.add(t, "[launch] %s job=%d nodes=%d model=%s" % (self.ts(t), self.jobid, nn, run.model[0]))
        f.add(t, "[launch] SLURM_JOB_NODELIST=%s" % compress_nodelist([h.name for h in run.hosts if h is not None]))
        f.add(t, "[launch] rank map (global rank = prefill instances first, then decode):")
        for inst in run.instances:
            for nr, h in enumerate(inst.hosts):
                ws = [w for w in inst.workers if w.host is h]
                tags = ("map",) if (run.V is not None and run.V in ws) else ()
                f.add(t, "[launch]   %-10s node_rank=%d host=%s tp_ranks=%s global_ranks=%s gpus=0-%d" % (
                    inst.name, nr, h.name, rng_range_str(ws[0].tp, ws[-1].tp), rng_range_str(ws[0].grank, ws[-1].grank), len(ws) - 1), tags)
        f.add(t + 1, "[launch] starting %d prefill + %d decode instances, router on %s:30000" % (
            len([i for i in run.instances if i.role == "prefill"]), len([i for i in run.instances if i.role == "decode"]),
            run.extra.get("router_host", run.hosts[0].name)))

    def line(self, t, text, tags=()):
        self.run.f(self.out).add(t, text, tags)

    def task_exit(self, inst, t, nr, how, tags=()):
        h = inst.hosts[nr]
        step = self.run.instances.index(inst)
        if how == "killed":
            self.line(t, "srun: error: %s: task %d: Killed" % (h.name, nr), tags)
        elif how == "oom":
            self.line(t, "srun: error: %s: task %d: Out Of Memory" % (h.name, nr), tags)
        elif how == "abort":
            self.line(t, "srun: error: %s: task %d: Aborted (core dumped)" % (h.name, nr), tags)
        elif how == "segv":
            self.line(t, "srun: error: %s: task %d: Segmentation fault (core dumped)" % (h.name, nr), tags)
        else:
            self.line(t, "srun: error: %s: task %d: Exited with exit code %s" % (h.name, nr, how), tags)
        return step

    def step_failed(self, inst, t, tags=()):
        step = self.run.instances.index(inst)
        lt = self.run.local(inst.hosts[0], t)
        self.line(t, "slurmstepd: error: *** STEP %d.%d ON %s CANCELLED AT %s ***" % (self.jobid, step, inst.hosts[0].name, lt.strftime("%Y-%m-%dT%H:%M:%S")), tags)

    def relaunch(self, inst, t, attempt):
        if self.wrapper:
            self.line(t, "[supervisor] %s %s exited; relaunching in 30s (restart %d/3)" % (self.ts(t), inst.name, attempt))
            return True
        return False

    def finalize(self):
        pass


def compress_nodelist(names):
    if len(names) <= 6:
        return ",".join(names)
    return ",".join(names[:4]) + ",...(+%d)" % (len(names) - 4)


class K8sPF:
    def __init__(self, run):
        rng = run.rng
        self.run = run
        self.ns = run.extra["ns"]
        self.prefix = run.extra["prefix"]
        self.events = []
        self.collected = []
        self.prev_captured = {}
        self.restarts = {}
        self.last_state = {}
        self.status = {}
        self.kern = Kern(run, style="journal", prefix="nodes")
        self.describe = []
        self.started = {}
        self.container = rng.choice(["vllm", "main", "engine"]) if run.engine == "vllm" else rng.choice(["sglang", "main", "engine"])
        if run.layout == "k8s-dynamo":
            self.container = "main"
            run.extra["image"] = "nvcr.io/nvidia/ai-dynamo/%s-runtime:%s" % (run.engine, rng.choice(["0.4.1", "0.5.0", "0.6.1", "0.7.0"]))
            run.extra["label"] = "nvidia.com/dynamo-component-type=worker"
        else:
            run.extra["image"] = rng.choice(["ghcr.io/llm-d/llm-d-cuda:v0.3.0", "ghcr.io/llm-d/llm-d-cuda:v0.4.0", "ghcr.io/llm-d/llm-d:v0.2.1"]) if run.engine == "vllm" \
                else rng.choice(["lmsysorg/sglang:v0.5.2-cu129", "lmsysorg/sglang:v0.5.4.post1", "lmsysorg/sglang:latest"])
            run.extra["label"] = "llm-d.ai/role=%s"

    def name_pods(self):
        rng = self.run.rng
        lws = rng.random() < 0.5
        dyn = self.run.layout == "k8s-dynamo"
        for inst in self.run.instances:
            h = hexid(rng, 9)
            pods = []
            role = ("%s%sworker" % (self.run.engine, inst.role)) if dyn else inst.role
            for nr, host in enumerate(inst.hosts):
                if len(inst.hosts) > 1 or lws:
                    pods.append("%s-%s-%d%s" % (self.prefix, role, inst.idx, "" if nr == 0 else "-%d" % nr))
                else:
                    pods.append("%s-%s-%s-%s" % (self.prefix, role, h, hexid(rng, 5)))
                host.pod = pods[-1]
            inst.pods = pods

    def path(self, inst, nr, t=None):
        pod = inst.pods[nr]
        if pod not in self.collected:
            return None
        if t is None:
            g = inst.gen
        else:
            g = len([x for x in inst.restart_times if x <= t])
        return "pods/%s.log#g%d" % (pod, g)

    def collect(self, inst, nr):
        pod = inst.pods[nr]
        if pod not in self.collected:
            self.collected.append(pod)

    def event(self, t, typ, reason, obj, msg, tags=(), count=1):
        self.events.append((t, typ, reason, obj, msg, tags, count))

    def restart(self, inst, t, exit_code, reason, prev_captured=True, nrs=None, crashloop=False):
        """Container restarted on pods of inst (group restart for multi-node)."""
        nrs = list(range(len(inst.hosts))) if nrs is None else nrs
        for nr in nrs:
            pod = inst.pods[nr]
            self.restarts[pod] = self.restarts.get(pod, 0) + 1
            self.last_state[pod] = (reason, exit_code, t)
            self.prev_captured[pod] = prev_captured
        inst.gen += 1
        inst.restart_times.append(t)
        return t

    def finalize(self):
        run = self.run
        rng = run.rng
        tend = run.t_end
        # rename generations
        for path in list(run.order):
            if "#g" not in path:
                continue
            base, g = path.split("#g")
            g = int(g)
            pod = base[len("pods/"):-len(".log")]
            inst = None
            for i in run.instances:
                if pod in i.pods:
                    inst = i
            fb = run.files.pop(path)
            run.order.remove(path)
            if g == inst.gen:
                newp = base
            elif g == inst.gen - 1 and self.prev_captured.get(pod, True):
                newp = base[:-4] + ".previous.log"
            else:
                continue
            fb.path = newp
            run.files[newp] = fb
            run.order.append(newp)
        # kubectl get pods -o wide
        f = run.f("kubectl-get-pods.txt", sort=False)
        f.add(0, "$ kubectl get pods -n %s -o wide" % self.ns)
        f.add(0, "%-52s %-7s %-18s %-14s %-6s %-14s %-44s %-14s %s" % ("NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE", "READINESS GATES"))
        age = "%dm" % int((tend - run.t0) / 60) if tend - run.t0 < 7200 else "%dh" % int((tend - run.t0) / 3600)
        rows = []
        for inst in run.instances:
            for nr, pod in enumerate(inst.pods):
                h = inst.hosts[nr]
                r = self.restarts.get(pod, 0)
                st = self.status.get(pod, "Running")
                if st == "CrashLoopBackOff":
                    r = max(r, 1 + int((tend - self.last_state[pod][2]) / 300))
                rs = str(r) if r == 0 else "%d (%dm ago)" % (r, max(1, int((tend - self.last_state[pod][2]) / 60)))
                ready = "1/1" if st == "Running" else "0/1"
                if st == "Starting":
                    st = "Running"
                ip = "10.52.%s" % ".".join(h.ip.split(".")[2:])
                tags = ("podnode",) if (run.V is not None and run.V.host is h) or (run.VH is h) else ()
                rows.append(("%-52s %-7s %-18s %-14s %-6s %-14s %-44s %-14s %s" % (pod, ready, st, rs, age, ip, h.name, "<none>", "<none>"), tags))
        extra = []
        if isinstance(run.router, LLMDRouter):
            extra = [run.router.epp_pod, run.router.gw_pod]
        elif isinstance(run.router, DynamoFrontend):
            extra = [run.router.pod]
        for pod in extra:
            rows.append(("%-52s %-7s %-18s %-14s %-6s %-14s %-44s %-14s %s" % (pod, "1/1", "Running", "0", age, "10.52.0.%d" % rng.randint(2, 250), "cpu-pool-%s" % hexid(rng, 4), "<none>", "<none>"), ()))
        for txt, tags in sorted(rows, key=lambda x: x[0]):
            f.add(0, txt, tags)
        # events
        if self.events:
            f = run.f("events.txt", sort=False)
            f.add(0, "$ kubectl get events -n %s --sort-by=.lastTimestamp" % self.ns)
            f.add(0, "%-10s %-9s %-22s %-52s %s" % ("LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"))
            for (t, typ, reason, obj, msg, tags, count) in sorted(self.events, key=lambda e: e[0]):
                ago = max(1, int(tend - t))
                ls = "%ds" % ago if ago < 120 else ("%dm" % (ago // 60) if ago < 7200 else "%dh" % (ago // 3600))
                if count > 1:
                    over = ago + count * 40
                    ls += " (x%d over %s)" % (count, "%dm" % (over // 60) if over < 7200 else "%dh" % (over // 3600))
                f.add(0, "%-10s %-9s %-22s %-52s %s" % (ls, typ, reason, obj, msg), tags)
        for (pod, lines, tags) in self.describe:
            f = run.f("describe/%s.txt" % pod, sort=False)
            for i, x in enumerate(lines):
                f.add(0, x, tags if i in (0,) or "Reason" in x or "Exit Code" in x or "Node:" in x else ())

    def describe_pod(self, inst, nr, reason, code, started, finished, tags=()):
        run = self.run
        pod = inst.pods[nr]
        h = inst.hosts[nr]
        f = lambda t: run.local(None, t).strftime("%a, %d %b %Y %H:%M:%S +0000")
        lines = ["Name:             %s" % pod, "Namespace:        %s" % self.ns, "Priority:         0",
                 "Node:             %s/%s" % (h.name, h.ip), "Start Time:       %s" % f(run.t0),
                 "Labels:           %s" % (run.extra["label"] % inst.role if "%s" in run.extra["label"] else run.extra["label"]), "Status:           Running",
                 "Containers:", "  %s:" % self.container, "    Image:          %s" % run.extra.get("image", "ghcr.io/llm-d/llm-d-cuda:v0.3.0"),
                 "    State:          Running", "      Started:      %s" % f(finished + 3),
                 "    Last State:     Terminated", "      Reason:       %s" % reason, "      Exit Code:    %d" % code,
                 "      Started:      %s" % f(started), "      Finished:     %s" % f(finished),
                 "    Ready:          True", "    Restart Count:  %d" % self.restarts.get(pod, 1),
                 "    Limits:", "      memory:          %s" % run.extra.get("memlimit", "1600Gi"), "      nvidia.com/gpu:  %d" % inst.gpn,
                 "      rdma/ib:         %d" % inst.gpn]
        self.describe.append((pod, lines, tags))


class BarePF:
    """No scheduler: per-process logs, later pasted."""

    def __init__(self, run):
        self.run = run
        self.kern = Kern(run, style=run.rng.choice(["dmesg", "dmesgT"]), prefix="dmesg")
        self.collected = []

    def path(self, inst, nr, t=None):
        if (inst.name, nr) not in self.collected:
            return None
        return "raw/%s-node%d.log" % (inst.name, nr)

    def collect(self, inst, nr):
        if (inst.name, nr) not in self.collected:
            self.collected.append((inst.name, nr))

    def finalize(self):
        pass


# ----------------------------------------------------------------------------
# serving scenario engine
# ----------------------------------------------------------------------------

class Ctx:
    pass


def others_of(run, inst):
    return [i for i in run.instances if i.role != inst.role and i.role in ("prefill", "decode")]


def oom_text(rng, gpu, torch_new=True):
    tot = rng.choice([79.19, 79.11, 139.81, 93.0, 178.36])
    req = rng.choice(["1.17 GiB", "2.31 GiB", "896.00 MiB", "4.50 GiB", "352.00 MiB", "7.03 GiB"])
    free = rng.uniform(0.05, 1.2)
    inuse = tot - free - rng.uniform(0.1, 0.6)
    alloc = inuse - rng.uniform(0.5, 6)
    resv = rng.uniform(0.05, 2.5)
    if torch_new:
        return ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %s. GPU %d has a total capacity of %.2f GiB of which %s is free. "
                "Including non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, "
                "and %.2f MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
                "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  "
                "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)" % (
                    req, gpu, tot, "%.2f MiB" % (free * 1024) if free < 1 else "%.2f GiB" % free, inuse, alloc, resv * 1024))
    return ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate %s. GPU %d has a total capacty of %.2f GiB of which %.2f MiB is free. "
            "Process %d has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f MiB is reserved by PyTorch but unallocated." % (
                req, gpu, tot, free * 1024, rng.randint(1000, 99999), inuse, alloc, resv * 1024))


CUDA_TAIL = ("CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
             "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
             "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.")


def cuda_exc(rng, text, new=None, run=None):
    if new is None and run is not None:
        new = run.extra.get("torch_new")
    new = rng.random() < 0.5 if new is None else new
    cls = "torch.AcceleratorError" if new else "RuntimeError"
    return "%s: CUDA error: %s\n%s" % (cls, text, CUDA_TAIL)


def restart_instance(S, inst, t, code, reason, prev_captured=True, delay=None):
    """Platform restarts the instance; returns time it is serving again (or None)."""
    run, rng = S.run, S.run.rng
    delay = delay if delay is not None else rng.uniform(20, 90)
    inst.down = t if inst.down is None else inst.down
    if run.layout.startswith("k8s"):
        pf = S.pf
        pf.restart(inst, t, code, reason, prev_captured)
        for nr, pod in enumerate(inst.pods):
            pf.event(t, "Normal", "Killing" if code in (137, 143) and reason != "OOMKilled" else "Pulled", "pod/%s" % pod,
                     "Stopping container %s" % pf.container if code in (137, 143) and reason != "OOMKilled" else
                     'Container image "%s" already present on machine' % run.extra.get("image", "ghcr.io/llm-d/llm-d-cuda:v0.3.0"))
            pf.event(t + delay, "Normal", "Started", "pod/%s" % pod, "Started container %s" % pf.container)
            if nr == 0:
                pf.event(t + delay + 5, "Warning", "Unhealthy", "pod/%s" % pod,
                         "Readiness probe failed: Get \"http://%s:%d/health\": dial tcp %s:%d: connect: connection refused" % (
                             "10.52." + ".".join(inst.hosts[0].ip.split(".")[2:]), inst.port, "10.52." + ".".join(inst.hosts[0].ip.split(".")[2:]), inst.port),
                         count=rng.randint(3, 30))
        up = t + delay + rng.uniform(200, 420)
        if up < run.t_end:
            S.stack.startup(inst, t + delay)
            inst.up_again = up
            return up
        pf.status[inst.pods[0]] = "Starting"
        return None
    if run.layout == "slurm-sglang-pd" and S.pf.relaunch(inst, t, 1):
        run.extra.setdefault("relaunched", []).append(inst.name)
        up = t + delay + rng.uniform(250, 400)
        if up < run.t_end:
            S.stack.startup(inst, t + delay + 30)
            inst.up_again = up
            return up
    return None


def cascade_death(S, w, t, how, err_text="", vref=True, prev_captured=True, slurm_how=None):
    """Instance of worker w dies at t after w failed. how: exc | signal | killed | silent."""
    run, rng, st = S.run, S.run.rng, S.stack
    inst = w.inst
    nr = inst.node_rank(w)
    tags_ref = ("vref",) if vref else ()
    if how == "abort":
        # a victim rank aborted after the NCCL watchdog (SIGABRT); not the root cause
        if st.name == "sglang":
            st.wraw(w, t, "terminate called after throwing an instance of 'c10::DistBackendError'")
            st.wraw(w, t, "  what():  %s Process group watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout" % (
                ("[PG ID 0 PG GUID 0(default_pg) Rank %d]" if st.torch_new else "[PG 0 Rank %d]") % w.tp, w.tp))
            if rng.random() < 0.6:
                st.mlog(inst, nr, t + rng.uniform(0.5, 3), "Subprocess sglang::scheduler_TP%d (pid=%d) exited unexpectedly with exit code -6. Killing the process tree." % (w.tp, w.pid))
            else:
                st.child_died(inst, t + rng.uniform(0.5, 3), nr)
            for onr, h in enumerate(inst.hosts):
                if onr != nr and rng.random() < 0.5:
                    st.child_died(inst, t + rng.uniform(1, 20), onr)
        elif inst.kind == "tp":
            st.child_died(inst, t + rng.uniform(0.2, 2), nr, (), w=w)
        else:
            st.child_died(inst, t + rng.uniform(0.2, 2), 0, (), w=w)
    elif st.name == "sglang":
        if how == "exc":
            st.child_died(inst, t + rng.uniform(0.05, 0.6), nr)
        elif how in ("signal", "killed"):
            if rng.random() < 0.6:
                st.mlog(inst, nr, t + rng.uniform(0.5, 3), "Subprocess sglang::scheduler_TP%d (pid=%d) exited unexpectedly with exit code %d. Killing the process tree." % (
                    w.tp, w.pid, -11 if how == "signal" else -9), tags_ref + (("pidmap",) if vref else ()))
        for onr, h in enumerate(inst.hosts):
            if onr == nr:
                continue
            ws = [x for x in inst.workers if x.host is h]
            if not ws:
                continue
            tt = t + rng.uniform(0.5, 25)
            st.nccl_remote(ws[rng.randrange(len(ws))], tt, w.host)
            st.child_died(inst, tt + rng.uniform(0.1, 0.5), onr)
    else:
        if inst.kind == "tp":
            if how == "exc":
                st.engine_fatal(inst, nr, t + rng.uniform(0.05, 0.4), err_text.split("\n")[0][:160])
                st.child_died(inst, t + rng.uniform(0.5, 1), nr)
            else:
                st.child_died(inst, t + rng.uniform(0.2, 2), nr, tags_ref, w=w)
        else:
            st.child_died(inst, t + rng.uniform(0.2, 2), 0, tags_ref if how != "exc" else (), w=w)
            for onr, h in enumerate(inst.hosts):
                if onr == nr:
                    continue
                ws = [x for x in inst.workers if x.host is h]
                if ws and rng.random() < 0.7:
                    st.nccl_remote(ws[rng.randrange(len(ws))], t + rng.uniform(1, 30), w.host)
    for x in inst.workers:
        x.silent = t + 30
    inst.down = t + rng.uniform(0.5, 3)
    # platform
    if run.layout == "slurm-sglang-pd":
        pf = S.pf
        first = [nr] + [k for k in range(len(inst.hosts)) if k != nr]
        if len(first) > 1 and rng.random() < 0.35:
            first = first[1:] + first[:1]   # launcher reports a collateral node first
        tl = inst.down
        for k, onr in enumerate(first):
            hw = slurm_how if (onr == nr and slurm_how) else "1"
            tl = inst.down + 1 + k * rng.uniform(0.2, 20)
            pf.task_exit(inst, tl, onr, hw, ("vhostline",) if (onr == nr and slurm_how and vref) else ())
        if pf.wrapper:
            restart_instance(S, inst, max(tl, t + 30) + 2, 1, "Error")
    elif run.layout.startswith("k8s"):
        code = {"exc": 1, "signal": 139, "killed": 137, "silent": 1, "abort": 1}[how]
        reason = {"exc": "Error", "signal": "Error", "killed": "OOMKilled", "silent": "Error", "abort": "Error"}[how]
        if S.extra_reason:
            reason, code = S.extra_reason
        prev_captured = prev_captured and rng.random() < 0.9   # the operator forgot `kubectl logs --previous`
        if getattr(S, "no_restart", False):
            # the container keeps restarting on the same node but the GPU is gone: CrashLoopBackOff
            S.pf.restart(inst, t + 35, code, reason, prev_captured)
            inst.up_again = None
            tr0 = t + 35 + rng.uniform(10, 40)
            st.raw(inst, nr, tr0, "INFO %s [__init__.py:235] Automatically detected platform cuda." % run.local(inst.hosts[nr], tr0).strftime("%m-%d %H:%M:%S")
                   if st.name == "vllm" else "[%s] server_args=ServerArgs(model_path='%s', ...)" % (run.local(inst.hosts[nr], tr0).strftime("%Y-%m-%d %H:%M:%S"), run.model[0]))
            st.raw(inst, nr, tr0 + 2, "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 999: unknown error")
            for pod in inst.pods[nr:nr + 1]:
                S.pf.status[pod] = "CrashLoopBackOff"
            S.pf.event(tr0 + 5, "Warning", "BackOff", "pod/%s" % inst.pods[nr],
                       "Back-off restarting failed container %s in pod %s_%s(%s)" % (S.pf.container, inst.pods[nr], run.extra["ns"], uuid4(rng)), count=rng.randint(5, 30))
        else:
            restart_instance(S, inst, t + 35 + rng.uniform(1, 4), code, reason, prev_captured)
        if rng.random() < 0.5:
            S.pf.describe_pod(inst, nr, reason, code, run.t0, inst.down + 1, ("podnode",) if inst.hosts[nr] is run.VH else ())
        elif not getattr(S, "no_restart", False):
            S.pf.event(inst.down + 2, "Warning", "BackOff", "pod/%s" % inst.pods[nr],
                       "Back-off restarting failed container %s in pod %s_%s(%s)" % (S.pf.container, inst.pods[nr], run.extra["ns"], uuid4(rng)), count=rng.randint(1, 4))
    else:
        pass
    peers_and_router(S, inst, inst.down)


def peers_and_router(S, inst, t, first_err=None, timeout_style=False):
    """Collateral on the other side of the KV transfer and at the router."""
    run, rng, st, r = S.run, S.run.rng, S.stack, S.router
    for peer in others_of(run, inst)[:2]:
        ws = peer.workers[:min(len(peer.workers), 3)]
        for k in range(rng.randint(1, 3)):
            w = ws[k % len(ws)]
            tt = t + rng.uniform(0.5, 60)
            if peer.role == "decode":
                if st.name == "sglang":
                    st.kv_fail(w, tt, "Failed to get kvcache from prefill instance, it might be dead" if not timeout_style else
                               "Request %d timed out after %.1fs in KVPoll.WaitingForInput" % (rng.randint(10 ** 17, 9 * 10 ** 18), rng.choice([300.0, 600.0])))
                else:
                    st.kv_fail(w, tt, "NIXL_ERR_REMOTE_DISCONNECT" if not timeout_style else "NIXL_ERR_BACKEND")
            else:
                if st.name == "sglang":
                    st.kv_fail(w, tt, "Decode instance could be dead, remote mooncake session %s:%d is not alive" % (inst.hosts[0].ip, rng.randint(15000, 17000))
                               if st.transfer == "mooncake" else "Decode instance could be dead, NIXL agent %s is unreachable" % uuid4(rng))
                else:
                    st.kv_fail(w, tt, "")
    # router
    n = rng.randint(2, 7)
    for k in range(n):
        tt = t + rng.uniform(0.2, 40)
        if timeout_style:
            r.timeout(tt, inst, rng.choice([60, 120, 300, 600]))
        else:
            r.req_err(tt, inst, rng.choice([500, 502, 503]), "error sending request for url (%s/generate): connection closed before message completed" % inst.url
                      if isinstance(r, SGLRouter) else "upstream connect error or disconnect/reset before headers")
    r.health_fail(t + rng.uniform(3, 15), inst)
    r.unhealthy(t + rng.uniform(16, 40), inst)
    if inst.up_again is not None and inst.up_again < run.t_end:
        r.healthy(inst.up_again + rng.uniform(5, 30), inst)


def cause_gpu(S, kind):
    """gpu_hardware / ecc_memory / nvlink / illegal_memory_access share the shape."""
    run, rng, st, V = S.run, S.run.rng, S.stack, S.V
    t = run.t_inc
    H = V.host
    kern = S.pf.kern
    if kind == "gpu":
        S.no_restart = run.layout.startswith("k8s") and rng.random() < 0.6
        xk = rng.choice(["79", "79", "119"])
        lines = xid_lines(rng, V, xk)
        for i, x in enumerate(lines):
            kern.add(H, t + i * 0.001, x, ("xid",) if ("Xid" in x and (": 79" in x or ": 119" in x)) else ())
        if rng.random() < 0.6:
            msg = cuda_exc(rng, "unspecified launch failure" if xk == "79" else rng.choice(["unspecified launch failure", "unknown error"]), run=run)
            st.exc(V, t + rng.uniform(0.3, 3), sgl_frames(rng, st.root, "forward", V.inst.role) if st.name == "sglang" else vllm_frames(rng, st.root, "forward"),
                   msg, ("vown",))
            cascade_death(S, V, t + 3, "exc", msg)
        else:
            # the process wedges in the driver; peers time out
            V.silent = t
            seq = rng.randint(10000, 900000)
            peers = [w for w in V.inst.workers if w is not V]
            if peers:
                tt = t + 600 + rng.uniform(0, 5)
                V.inst.stalls.append((t, tt + 30))
                for k in range(rng.randint(2, 5)):
                    S.router.timeout(t + rng.uniform(60, 600), V.inst, rng.choice([60, 120, 300]))
                etag = ("velim",) if len(V.inst.workers) == 2 else ()
                for w in peers[:min(len(peers), 8)]:
                    st.nccl_wd(w, tt + rng.uniform(0, 0.5), seq, "ALLREDUCE", rng.choice([7340032, 14680064, 1048576]), etag, last_done=seq - 1)
                cascade_death(S, peers[0], tt + 1, "abort", vref=False)
            else:
                peers_and_router(S, V.inst, t + 5, timeout_style=True)
                V.inst.down = t + 1

        run.notes = "GPU on %s (PCI %s, %s) hit Xid %s; the %s instance %s collapsed and the KV-transfer peers and router saw the fallout." % (
            H.name, V.busid, wdesc(V), xk, V.inst.role, V.inst.name)
    elif kind == "ecc":
        xk = rng.choice(["48", "48", "95"])
        lines = xid_lines(rng, V, xk)
        for x in lines:
            kern.add(H, t, x, ("xid",) if (": 48," in x or ": 95," in x) else ())
        msg = cuda_exc(rng, "uncorrectable ECC error encountered", run=run)
        st.exc(V, t + rng.uniform(0.1, 2), sgl_frames(rng, st.root, "forward", V.inst.role) if st.name == "sglang" else vllm_frames(rng, st.root, "forward"),
               msg, ("vown",))
        cascade_death(S, V, t + 2, "exc", msg)
        run.notes = "Uncorrectable ECC error (Xid %s) on %s GPU %s under %s; the instance died and the router returned 5xx." % (
            xk, H.name, V.busid, wdesc(V))
    elif kind == "nvlink":
        xk = "149" if run.gpn == 4 else "74"
        for x in xid_lines(rng, V, xk):
            kern.add(H, t, x, ("xid",) if (": 74," in x or ": 149," in x) else ())
        sib = [w for w in V.inst.workers if w.host is H and w is not V]
        if sib and rng.random() < 0.7:
            s2 = rng.choice(sib)
            for x in xid_lines(rng, s2, xk)[1:2]:
                kern.add(H, t + rng.uniform(0.4, 2.5), x)
        msg = cuda_exc(rng, "uncorrectable NVLink error detected during the execution", run=run)
        if st.name == "sglang" and run.model[2] and V.inst.dp_attn and sib:
            for s in sib[:3]:
                st.wraw(s, t + rng.uniform(0.2, 1.5), "DeepEP dispatch NVL receiver timeout, channel: %d, RDMA: 0, nvl: %d, src RDMA: 0, src nvl: %d, start: 0, end: 0" % (
                    rng.randint(0, 7), s.gpu, V.gpu))
        st.exc(V, t + rng.uniform(0.1, 1), sgl_frames(rng, st.root, "forward", V.inst.role) if st.name == "sglang" else vllm_frames(rng, st.root, "forward"),
               msg, ("vown",))
        cascade_death(S, V, t + 1.5, "exc", msg)
        run.notes = "NVLink fatal error (Xid %s) on %s GPU %s (%s); sibling-GPU Xids may follow; the instance died." % (
            xk, H.name, V.busid, wdesc(V))
    elif kind == "ima":
        xk = rng.choice(["31", "31", "13", "43"])
        msg = rng.choice([cuda_exc(rng, "an illegal memory access was encountered", run=run),
                          "RuntimeError: Triton Error [CUDA]: an illegal memory access was encountered"])
        fr = sgl_frames(rng, st.root, "forward", V.inst.role) if st.name == "sglang" else vllm_frames(rng, st.root, "forward")
        if rng.random() < 0.5:
            if rng.random() < 0.5:
                fr = fr + [("/usr/local/lib/python3.12/dist-packages/flashinfer/mla.py", rng.randint(300, 500), "run", "self._cached_module.run(")]
            else:
                fr = fr + [("/usr/local/lib/python3.12/dist-packages/deep_gemm/jit_kernels/impls/sm90_fp8_gemm_1d2d.py", rng.randint(100, 300), "fp8_gemm_nt", "runtime(**kwargs)")]
        st.exc(V, t, fr, msg, ("vown",))
        if rng.random() < 0.75:
            for x in xid_lines(rng, V, xk):
                kern.add(H, t - rng.uniform(0.0005, 0.002), x, ("xid",) if "Xid" in x else ())
        others = [w for w in V.inst.workers if w is not V]
        if others and rng.random() < 0.5:
            w2 = rng.choice(others)
            st.exc(w2, t + rng.uniform(0.3, 2), fr, cuda_exc(rng, "an illegal memory access was encountered", run=run))
        cascade_death(S, V, t + 1, "exc", msg)
        run.notes = "An application kernel faulted with an illegal memory access on %s (%s, Xid %s is the app's fault); the instance died." % (
            wdesc(V), H.name, xk)


def cause_oom(S):
    run, rng, st, V = S.run, S.run.rng, S.stack, S.V
    t = run.t_inc
    run.extra.setdefault("load", {})[V.inst.name] = [(t - rng.uniform(60, 240), t, rng.uniform(2.2, 3.5))]
    for k in range(rng.randint(1, 3)):
        S.router.shed(t - rng.uniform(5, 90), rng.randint(20, 400))
    msg = oom_text(rng, V.gpu, getattr(st, "torch_new", True))
    if st.name == "sglang":
        kind = rng.choice(["forward", "poll"]) if V.inst.role == "decode" else "forward"
        st.exc(V, t, sgl_frames(rng, st.root, kind, V.inst.role), msg, ("vown",))
    else:
        st.exc(V, t, vllm_frames(rng, st.root, "forward"), msg, ("vown",))
    cascade_death(S, V, t + 0.5, "exc", msg)
    run.notes = "Burst of long-context requests pushed %s (%s) into CUDA OOM; the instance died and the router shed/failed requests." % (
        wdesc(V), V.host.name)


PYEXC = {
    "sglang": [
        ("poll", "AssertionError: len(kv_indices)=%d does not match the prefilled length %d for rid=%s"),
        ("transfer", "KeyError: %d"),
        ("forward", "ValueError: Expected all expert ids to be in [0, %d), but got max expert id %d"),
        ("weights", "RuntimeError: The size of tensor a (%d) must match the size of tensor b (%d) at non-singleton dimension 0"),
    ],
    "vllm": [
        ("kv", "AssertionError: remote block count %d does not match local block count %d for request %s"),
        ("kv", "KeyError: 'chatcmpl-%s-0'"),
        ("forward", "IndexError: index %d is out of bounds for dimension 0 with size %d"),
    ],
}


def pyexc_text(rng, fmt):
    n = fmt.count("%")
    if fmt.startswith("AssertionError: len"):
        a = rng.randint(100, 9000)
        return fmt % (a, a + rng.randint(1, 64), rid_hex(rng))
    if fmt.startswith("KeyError: %d"):
        return fmt % rng.randint(10 ** 17, 9 * 10 ** 18)
    if fmt.startswith("ValueError"):
        e = rng.choice([256, 384, 128])
        return fmt % (e, e + rng.randint(1, 50))
    if fmt.startswith("RuntimeError: The size"):
        a = rng.choice([7168, 4096, 5120])
        return fmt % (a, a + rng.choice([512, 128]))
    if fmt.startswith("AssertionError: remote"):
        a = rng.randint(4, 400)
        return fmt % (a, a - 1, "cmpl-" + uuid4(rng) + "-0")
    if fmt.startswith("KeyError: 'chat"):
        return fmt % uuid4(rng)
    if fmt.startswith("IndexError"):
        a = rng.randint(1000, 99999)
        return fmt % (a, a)
    return fmt


def cause_pyexc(S):
    run, rng, st, V = S.run, S.run.rng, S.stack, S.V
    t = run.t_inc
    kind, fmt = rng.choice(PYEXC[st.name])
    if st.name == "sglang" and kind == "poll" and V.inst.role != "decode":
        kind, fmt = PYEXC["sglang"][2]
    if st.name == "sglang" and kind == "transfer" and V.inst.role != "prefill":
        kind, fmt = PYEXC["sglang"][2]
    msg = pyexc_text(rng, fmt)
    fr = sgl_frames(rng, st.root, kind, V.inst.role) if st.name == "sglang" else vllm_frames(rng, st.root, kind)
    st.exc(V, t, fr, msg, ("vown",))
    cascade_death(S, V, t + 0.3, "exc", msg)
    run.notes = "Uncaught %s on %s (%s) killed the scheduler/worker; peers and router saw collateral errors." % (
        msg.split(":")[0], wdesc(V), V.host.name)


def cause_host_oom(S):
    run, rng, st, V = S.run, S.run.rng, S.stack, S.V
    t = run.t_inc
    H = V.host
    kern = S.pf.kern
    comm = ("VLLM::Worker_TP" if V.inst.kind == "tp" else "VLLM::EngineCor") if st.name == "vllm" else rng.choice(["sglang::schedul", "python3"])
    cg = run.layout.startswith("k8s") or rng.random() < 0.5
    kern.add(H, t - 0.01, "%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=%d" % (
        rng.choice([comm, "python3", "pt_main_thread"]), rng.choice([0, 900, -997])), ("khost",))
    if cg:
        lim = rng.choice([1677721600, 838860800, 2097152000])
        kern.add(H, t - 0.005, "memory: usage %dkB, limit %dkB, failcnt %d" % (lim + rng.randint(0, 4), lim, rng.randint(1, 90)))
        run.extra["memlimit"] = "%dGi" % (lim // 1048576)
    rss = rng.randint(180, 900) * 1048576
    kern.add(H, t, "%s: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:0 pgtables:%dkB oom_score_adj:0" % (
        "Memory cgroup out of memory" if cg else "Out of memory", V.pid, comm, rss * 3, rss, rng.randint(100000, 900000),
        rng.randint(1000000, 40000000), rng.randint(100000, 900000)), ("khost", "vpid"))
    kern.add(H, t + 0.2, "oom_reaper: reaped process %d (%s), now anon-rss:0kB, file-rss:0kB, shmem-rss:%dkB" % (V.pid, comm, rng.randint(0, 90000)))
    if st.name == "vllm" and st.transfer == "lmcache":
        st.wlog(V, t - rng.uniform(60, 300), "LMCache WARNING: local CPU backend is %d%% full, evicting; pinned host memory %d GB" % (rng.randint(92, 99), rng.randint(300, 1400)),
                lvl="WARNING", src=("local_cpu_backend.py", 231))
    if run.layout == "slurm-sglang-pd":
        S.pf.line(t + 2, "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.%d. Some of the step tasks have been OOM Killed." % (
            S.pf.jobid, run.instances.index(V.inst)), ("khost",) if False else ())
    S.extra_reason = ("OOMKilled", 137) if cg else None
    cascade_death(S, V, t + 0.5, "killed", slurm_how="oom")
    if run.layout.startswith("k8s"):
        S.pf.event(t, "Warning", "OOMKilling", "node/%s" % H.name,
                   "Memory cgroup out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:%dkB oom_score_adj:0" % (
                       V.pid, comm, rss * 3, rss, rng.randint(100000, 900000)), ("vhostline", "vpid"))
    run.notes = "Host memory on %s ran out (%s); the kernel OOM killer killed pid %d, the %s process of %s." % (
        H.name, "container memory limit" if cg else "node RAM", V.pid, comm, wdesc(V))


def crash_dump(S, w, t):
    run, rng, st = S.run, S.run.rng, S.stack
    style = rng.choice(["glog", "ucx", "faulthandler"]) if st.transfer != "mooncake" else rng.choice(["glog", "glog", "faulthandler"])
    if st.transfer in ("nixl",) and style == "glog":
        style = "ucx"
    if st.transfer in ("none", "lmcache"):
        style = "faulthandler"
    hn = w.inst.pods[w.inst.node_rank(w)] if w.inst.pods else w.host.name.split(".")[0]
    if style == "glog":
        ut = int(t)
        lines = ["*** Aborted at %d (unix time) try \"date -d @%d\" if you are using GNU date ***" % (ut, ut),
                 "PC: @     0x7f%s mooncake::RdmaEndPoint::submitPostSend()" % hexid(rng, 10),
                 "*** SIGSEGV (@0x%x) received by PID %d (TID 0x7f%s) from PID %d; stack trace: ***" % (rng.choice([0, 8, 0x18]), w.pid, hexid(rng, 10), rng.choice([0, 8, 24])),
                 "    @     0x7f%s (unknown)" % hexid(rng, 10),
                 "    @     0x7f%s mooncake::RdmaEndPoint::submitPostSend()" % hexid(rng, 10),
                 "    @     0x7f%s mooncake::WorkerPool::performPostSend()" % hexid(rng, 10),
                 "    @     0x7f%s mooncake::WorkerPool::transferWorker()" % hexid(rng, 10),
                 "    @     0x7f%s (unknown)" % hexid(rng, 10),
                 "    @     0x7f%s start_thread" % hexid(rng, 10)]
    elif style == "ucx":
        tid = w.pid + rng.randint(1, 300)
        lines = ["[%s:%d:0:%d] Caught signal 11 (Segmentation fault: address not mapped to object at address %s)" % (hn, w.pid, tid, rng.choice(["(nil)", "0x10", "0x7f0000000018"])),
                 "==== backtrace (tid:%7d) ====" % tid,
                 " 0  /opt/ucx/lib/libucs.so.0(ucs_handle_error+0x2e4) [0x7f%s]" % hexid(rng, 10),
                 " 1  /opt/ucx/lib/libucs.so.0(+0x2f4cf) [0x7f%s]" % hexid(rng, 10),
                 " 2  /lib/x86_64-linux-gnu/libc.so.6(+0x42520) [0x7f%s]" % hexid(rng, 10),
                 " 3  /opt/ucx/lib/ucx/libuct_ib.so.0(uct_rc_mlx5_ep_get_zcopy+0x1a1) [0x7f%s]" % hexid(rng, 10),
                 " 4  /opt/nvidia/nvda_nixl/lib/x86_64-linux-gnu/plugins/libplugin_UCX.so(+0x3b2a1) [0x7f%s]" % hexid(rng, 10),
                 " 5  /opt/nvidia/nvda_nixl/lib/x86_64-linux-gnu/libnixl.so(nixlAgent::postXferReq+0x11c) [0x7f%s]" % hexid(rng, 10),
                 "================================="]
    else:
        lines = ["Fatal Python error: Segmentation fault", "",
                 "Thread 0x%016x (most recent call first):" % rng.randint(0x7f0000000000, 0x7fffffffffff),
                 '  File "/usr/lib/python3.12/threading.py", line 359 in wait',
                 '  File "/usr/lib/python3.12/threading.py", line 655 in wait', "",
                 "Current thread 0x%016x (most recent call first):" % rng.randint(0x7f0000000000, 0x7fffffffffff),
                 '  File "%s", line %d in %s' % (
                     (st.root + "model_executor/model_runner.py", rng.randint(900, 1000), "update_weights_from_distributed") if st.transfer == "none" and st.name == "sglang" else
                     ("/app/rl/vllm_ext/weight_sync.py", rng.randint(60, 140), "update_weights_from_group") if st.transfer == "none" else
                     (st.root + "disaggregation/mooncake/conn.py", rng.randint(300, 600), "send_kvcache") if st.name == "sglang" else
                     (st.root + "distributed/kv_transfer/kv_connector/v1/nixl_connector.py", rng.randint(1500, 1800), "_read_blocks")),
                 '  File "/usr/lib/python3.12/threading.py", line 1012 in run', "",
                 "Extension modules: numpy.core._multiarray_umath, torch._C, torch._C._fft, zmq.backend.cython._zmq, ... (total: %d)" % rng.randint(60, 140)]
    for i, x in enumerate(lines):
        tg = ("vpid",) if ("PID %d" % w.pid in x or ":%d:0:" % w.pid in x) else ()
        if x.startswith("Fatal Python error") or x.startswith("*** Aborted at") or "Caught signal 11" in x:
            tg = tg + ("vnode",)
        st.wraw(w, t, x, tg)
    return style


def cause_crash(S):
    run, rng, st, V = S.run, S.run.rng, S.stack, S.V
    t = run.t_inc
    style = crash_dump(S, V, t)
    sig = rng.choice(["segv", "segv", "abort"]) if style != "faulthandler" else "segv"
    if run.layout.startswith("k8s"):
        S.extra_reason = ("Error", 139 if sig == "segv" else 134)
    cascade_death(S, V, t + 0.2, "signal", slurm_how=sig)
    run.notes = "Native crash (SIGSEGV, %s dump) in the %s path of %s on %s, no hardware errors; the instance went down." % (
        style, "weight-sync" if st.transfer == "none" else "KV transfer", wdesc(V), V.host.name)


def cause_preempt(S):
    run, rng, st = S.run, S.run.rng, S.stack
    t = run.t_inc
    if run.layout == "slurm-sglang-pd":
        pf = S.pf
        bh = run.hosts[0]
        lt = run.local(bh, t)
        pf.line(t, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (pf.jobid, bh.name, lt.strftime("%Y-%m-%dT%H:%M:%S")), ("preempt",))
        for inst in run.instances:
            for nr in range(len(inst.hosts)):
                if S.pf.path(inst, nr):
                    st.raw(inst, nr, t + rng.uniform(0, 1), "slurmstepd: error: *** STEP %d.%d ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (
                        pf.jobid, run.instances.index(inst), inst.hosts[nr].name, run.local(inst.hosts[nr], t).strftime("%Y-%m-%dT%H:%M:%S")))
                    st.sigterm(inst, t + rng.uniform(0.5, 3), nr)
            inst.down = t + 5
        S.router.health_fail(t + 8, run.instances[0])
        pf.line(t + 30, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
        run.VH = None
        run.notes = "The whole Slurm job (all prefill and decode nodes) was preempted and SIGTERMed at once; no single node started it."
        return
    inst = S.V.inst
    H = S.V.host
    run.VH = H
    pf = S.pf
    nr = inst.node_rank(S.V)
    if not run.layout.startswith("k8s"):
        # bare cloud VM: spot/preemptible reclaim seen in the journal
        short = H.name.split(".")[0]
        jt = lambda x: run.local(H, x).strftime("%b %d %H:%M:%S")
        lines = ["$ journalctl -b -1 --no-pager | tail   # on %s" % H.name,
                 "%s %s google_guest_agent[%d]: Preemption notice received; instance will be stopped in 30s" % (jt(t - 30), short, rng.randint(900, 2000)),
                 "%s %s systemd-logind[%d]: Power key pressed short." % (jt(t - 28), short, rng.randint(900, 2000)),
                 "%s %s systemd-logind[%d]: Powering off..." % (jt(t - 28), short, rng.randint(900, 2000)),
                 "%s %s systemd[1]: Stopping %s.service - %s worker..." % (jt(t - 27), short, inst.role, inst.name),
                 "%s %s systemd[1]: Reached target poweroff.target - System Power Off." % (jt(t - 2), short)]
        write_side_file(S, "journal-%s.txt" % short, lines, {1: ("khost",), 3: ("khost",)})
        for onr in range(len(inst.hosts)):
            st.sigterm(inst, t - rng.uniform(10, 25) if onr == nr else t + rng.uniform(1, 20), onr)
        inst.down = t
        for w in inst.workers:
            w.silent = t + 2
        peers_and_router(S, inst, t)
        run.notes = "The cloud reclaimed the preemptible VM %s (preemption notice, power-off); %s was SIGTERMed and the router failed its requests." % (H.name, inst.name)
        return
    # k8s: spot/preemptible node reclaimed
    pf.event(t - rng.uniform(20, 30), "Warning", "NodeShutdown" if rng.random() < 0.5 else "TerminationByKubelet",
             "pod/%s" % inst.pods[nr], "Pod was terminated in response to imminent node shutdown.", ("vhostline",) if False else ())
    pf.event(t - rng.uniform(25, 35), "Normal", "Preempted" if rng.random() < 0.5 else "SpotInterruption", "node/%s" % H.name,
             rng.choice(["Preemption notice received for instance; node will be stopped in 30s",
                         "Node %s: Spot instance interruption warning (2 minute notice)" % H.name]), ("vhostline",))
    pf.event(t + rng.uniform(30, 60), "Normal", "NodeNotReady", "node/%s" % H.name, "Node %s status is now: NodeNotReady" % H.name, ("vhostline",))
    for onr in range(len(inst.hosts)):
        st.sigterm(inst, t - rng.uniform(10, 25) if onr == nr else t + rng.uniform(1, 20), onr)
    inst.down = t
    for w in inst.workers:
        w.silent = t + 2
    restart_instance(S, inst, t + 2, 143, "Completed" if rng.random() < 0.5 else "Error", True, delay=rng.uniform(90, 400))
    peers_and_router(S, inst, t)
    run.notes = "Cloud reclaimed the spot/preemptible node %s; %s was SIGTERMed and rescheduled, requests failed meanwhile." % (H.name, inst.name)


def nic_ifname(nic):
    return "ibp%ds0" % int(nic[1], 16)


def cause_network(S):
    run, rng, st, V = S.run, S.run.rng, S.stack, S.V
    t = run.t_inc
    H = V.host
    run.VH = H
    run.rank_rules = []
    nic = V.nic
    kern = S.pf.kern
    if rng.random() < 0.6:
        kern.add(H, t, "mlx5_core 0000:%s:00.0 %s: Link down" % (nic[1], nic_ifname(nic)), ("khost",))
        if rng.random() < 0.6:
            kern.add(H, t + rng.uniform(4, 80), "mlx5_core 0000:%s:00.0 %s: Link up" % (nic[1], nic_ifname(nic)), ("khost",))
        what = "link flap on %s (%s)" % (nic[0], nic_ifname(nic))
    else:
        kern.add(H, t, "mlx5_core 0000:%s:00.0: poll_health:%d:(pid 0): device's health compromised - reached miss count" % (nic[1], rng.choice([801, 1017, 1099])), ("khost",))
        kern.add(H, t + 0.01, "mlx5_core 0000:%s:00.0: print_health_info:%d:(pid 0): Health issue observed, firmware internal error, severity(3) ERROR:" % (nic[1], rng.choice([424, 479])))
        kern.add(H, t + 0.02, "mlx5_core 0000:%s:00.0: mlx5_trigger_health_work:%d:(pid 0): Device is in error state, recovery started" % (nic[1], rng.randint(700, 800)))
        what = "HCA %s firmware health failure" % nic[0]
    local = [w for w in V.inst.workers if w.host is H and w.nic[0] == nic[0]] or [V]
    dies = len(V.inst.hosts) > 1 and rng.random() < 0.6
    td = t + rng.uniform(10, 40) if dies else run.t_end + 600
    cap = lambda x: min(x, td - 1)
    peers = others_of(run, V.inst)
    push = st.name == "sglang"           # mooncake/sglang-nixl: prefill writes into decode
    sender_is_H = (push and V.inst.role == "prefill") or (not push and V.inst.role == "decode")
    n_err = rng.randint(2, 6)
    if sender_is_H:
        for k in range(n_err):
            w = local[k % len(local)]
            pw = rng.choice(peers[0].workers) if peers else w
            st.xfer_err(w, cap(t + rng.uniform(0.8, 12)), pw, "transport retry counter exceeded", ("vown",), retry=0, n=rng.randint(1, 3))
            if st.name == "vllm":
                st.kv_fail(w, cap(t + rng.uniform(12, 40)), "NIXL_ERR_BACKEND", ())
        for p in peers[:2]:
            for k in range(rng.randint(1, 3)):
                st.kv_fail(p.workers[k % len(p.workers)], t + rng.uniform(20, 320),
                           "Request %d timed out after 300.0s in KVPoll.WaitingForInput" % rng.randint(10 ** 17, 9 * 10 ** 18) if (st.name == "sglang" and p.role == "decode") else
                           ("NIXL_ERR_BACKEND" if p.role == "decode" else ""))
    else:
        for p in peers[:2]:
            for k in range(n_err):
                w = p.workers[k % len(p.workers)]
                st.xfer_err(w, t + rng.uniform(0.5, 12), local[k % len(local)], "transport retry counter exceeded", (), retry=0, n=rng.randint(1, 3))
        for w in local[:2]:
            if st.name == "sglang" and V.inst.role == "decode":
                st.kv_fail(w, cap(t + rng.uniform(30, 300)), "Request %d timed out after 300.0s in KVPoll.WaitingForInput" % rng.randint(10 ** 17, 9 * 10 ** 18), ())
            elif st.name == "vllm" and V.inst.role == "prefill":
                st.kv_fail(w, cap(t + rng.uniform(120, 480)), "", ())
    # cross-node collective inside a multi-node instance
    if dies:
        nr = V.inst.node_rank(V)
        other = V.inst.hosts[(nr + 1) % len(V.inst.hosts)]
        hn = V.inst.pods[nr] if V.inst.pods else H.name.split(".")[0]
        st.wraw(V, t + rng.uniform(2, 8), "%s:%d:%d [%d] transport/net_ib.cc:%d NCCL WARN NET/IB: Got completion from peer %s<%d> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_SEND(0) vendor_err=129 localGid ::ffff:%s remoteGids ::ffff:%s hca %s" % (
            hn, V.pid, V.pid + rng.randint(100, 600), V.gpu, rng.choice([2093, 2140, 1696]), other.ip, rng.randint(30000, 60000), H.ip, other.ip, nic[0]))
        nerr = ("torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:%d, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version %s\n"
                "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. \nLast error:\n"
                "NET/IB: Got completion from peer %s<%d> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_SEND(0) vendor_err=129 hca %s" % (
                    rng.choice([77, 82, 94]), st.nccl_ver, other.ip, rng.randint(30000, 60000), nic[0]))
        st.exc(V, td - 0.2, sgl_frames(rng, st.root, "forward", V.inst.role) if st.name == "sglang" else vllm_frames(rng, st.root, "forward"), nerr, ())
        cascade_death(S, V, td, "exc", nerr, vref=False)
    else:
        peers_and_router(S, V.inst, t + 2, timeout_style=True)
    run.notes = "NIC failure on %s (%s): KV transfers to/from it failed with transport retry errors on both sides and the router timed out requests." % (H.name, what)


FR_OPS = {"ALLREDUCE": ("all_reduce", "all_reduce"), "_ALLGATHER_BASE": ("_allgather_base", "all_gather_into_tensor"),
          "ALLGATHER": ("all_gather", "all_gather"), "_REDUCE_SCATTER_BASE": ("_reduce_scatter_base", "reduce_scatter_tensor"),
          "BROADCAST": ("broadcast", "broadcast")}


def fr_shape(op, numel, n, hidden):
    rows = max(1, numel // hidden)
    cols = hidden if numel >= hidden else numel
    if op == "_ALLGATHER_BASE" or op == "ALLGATHER":
        return "[[%d, %d]]" % (rows, cols), "[[%d, %d]]" % (rows * n, cols)
    if op == "_REDUCE_SCATTER_BASE":
        return "[[%d, %d]]" % (rows, cols), "[[%d, %d]]" % (max(1, rows // n), cols)
    return "[[%d, %d]]" % (rows, cols), "[[%d, %d]]" % (rows, cols)


def fr_trace_lines(run, name, n, seq, op, numel, missing=None, culprit=None, mismatch=None, group="0:default_pg", bad_numel=None):
    rng = run.rng
    hidden = rng.choice([7168, 5120, 4096, 8192])
    fop, fn = FR_OPS.get(op, ("all_reduce", "all_reduce"))
    out = ["$ torchfrtrace /tmp/fr_dumps/%s -j --prefix nccl_trace_rank_" % name,
           "loaded %d files in %.1fs" % (min(n, 64), rng.uniform(0.5, 6))]
    ins, outs = fr_shape(op, numel, n, hidden)
    exp = "{%s}" % ", ".join(str(k) for k in range(n)) if n <= 6 else "{0, 1, ..., %d}" % (n - 1)
    if missing is not None:
        out += ["Not all ranks joining collective %d at entry %d" % (seq, rng.randint(100, 1999)),
                "internal record id: %d" % rng.randint(10000, 99999),
                "group info: %s" % group,
                "collective: nccl:%s" % fop,
                "missing ranks: {%d}" % missing,
                "input sizes: %s" % ins,
                "output sizes: %s" % outs,
                "world size: %d" % n,
                "expected ranks: %s" % exp,
                "collective state: scheduled"]
    if culprit is not None:
        if mismatch == "type":
            err = "Culprit rank %d; Error type: COLLECTIVE_TYPE_MISMATCH, Expected collective type: 'nccl:%s' does not match found collective type: 'nccl:all_reduce'" % (culprit, fop)
        else:
            bins, _ = fr_shape(op, bad_numel or (numel + hidden * rng.choice([1, 8, 64])), n, hidden)
            err = "Culprit rank %d; Error type: SIZE_OR_SYNTAX_MISMATCH, Expected input sizes: '%s' does not match found input sizes: '%s'" % (culprit, ins, bins)
        out += ["Collective %d at entry %d error" % (seq, rng.randint(100, 1999)),
                "internal record id: %d" % rng.randint(10000, 99999),
                "group info: %s" % group,
                "collective: nccl:%s" % fop,
                "input sizes: %s" % ins,
                "output sizes: %s" % outs,
                "world size: %d" % n,
                "expected ranks: %s" % exp,
                "collective state: scheduled",
                "error msg: %s" % err]
    out.append("collective stack trace:")
    out.append("  %s at /usr/local/lib/python3.12/dist-packages/torch/distributed/distributed_c10d.py:%d" % (fn, rng.randint(2800, 4800)))
    return out


def write_side_file(S, name, lines, tags_at):
    """Operator-collected analysis output (fr_trace, py-spy, dcgm)."""
    run = S.run
    base = {"slurm-sglang-pd": "", "k8s-llmd-nixl": "", "k8s-dynamo": "", "paste": "raw/", "torchrun-rl-sync": ""}[run.layout]
    f = run.f(base + name, sort=False)
    for i, x in enumerate(lines):
        f.add(0, x, tags_at.get(i, ()))
    return f


def cause_hang(S):
    run, rng, st, V = S.run, S.run.rng, S.stack, S.V
    t = run.t_inc
    inst = V.inst
    V.silent = t
    to = 600
    seq = rng.randint(20000, 2000000)
    peers = [w for w in inst.workers if w is not V]
    op = rng.choice(["ALLREDUCE", "_ALLGATHER_BASE", "ALLGATHER"])
    numel = rng.choice([7340032, 917504, 14680064, 1835008])
    if st.name == "sglang" and rng.random() < 0.6:
        for w in peers[:4] + [V]:
            if w is not V:
                st.wlog(w, t + 300 + rng.uniform(0, 2), "Scheduler watchdog timeout (self.watchdog_timeout=300, self.soft=False)")
    if st.name == "sglang":
        for k in range(rng.randint(1, 3)):
            st.mlog(inst, 0, t + rng.uniform(25, 200), "Health check failed. Server couldn't get a response from detokenizer for last 20 seconds. tic start time: %s. last_heartbeat time: %s" % (
                run.local(inst.hosts[0], t + 60).strftime("%H:%M:%S"), run.local(inst.hosts[0], t - 1).strftime("%H:%M:%S")))
    tt = t + to + rng.uniform(0, 3)
    inst.stalls.append((t, tt + 30))
    for k in range(rng.randint(2, 6)):
        S.router.timeout(t + rng.uniform(60, to), inst, rng.choice([60, 120, 300]))
    etag = ("velim",) if len(inst.workers) == 2 else ()
    for w in peers[:min(len(peers), 10)]:
        st.nccl_wd(w, tt + rng.uniform(0, 0.8), seq, op, numel, etag, last_done=seq - 1)
    if rng.random() < 0.4:
        lt = run.local(V.host, t + 480)
        st.wraw(V, t + 480 + rng.uniform(0, 5), "[rank%d]:[F%d%02d %s.%09d ProcessGroupNCCL.cpp:%d] [PG ID 0 PG GUID 0(default_pg) Rank %d] ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued collectives. This typically indicates a NCCL/CUDA API (e.g., CudaEvent.query) hang blocking the watchdog, and could be triggered by another thread holding the GIL inside a CUDA api (for example, CudaEvent.elapsed_time), or other deadlock-prone behaviors.If you suspect the watchdog is not actually stuck and a longer timeout would help, you can either increase the timeout (TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC) to a larger value or disable the heartbeat monitor (TORCH_NCCL_ENABLE_MONITORING=0).If either of aforementioned helps, feel free to file an issue to PyTorch about the short timeout or false positive abort; otherwise, please attempt to debug the hang." % (
            V.tp, lt.month, lt.day, lt.strftime("%H:%M:%S"), lt.microsecond * 1000, rng.choice([1404, 1617]), V.tp), ("vown",))
    ev = rng.random()
    fn = "fr_trace-%s.txt" % inst.name
    if ev < 0.5:
        lines = fr_trace_lines(run, inst.name, inst.size, seq, op, numel, missing=V.tp)
        write_side_file(S, fn, lines, {i: ("vref",) for i, x in enumerate(lines) if x.startswith("missing ranks")})
    elif ev < 0.85:
        label = ("sglang::scheduler_TP%d" % V.tp) if st.name == "sglang" else ("VLLM::Worker_TP%d" % V.tp if inst.kind == "tp" else "VLLM::EngineCore_DP%d" % V.tp)
        hn = inst.pods[inst.node_rank(V)] if inst.pods else V.host.name
        lines = ["$ py-spy dump --pid %d   # on %s" % (V.pid, hn),
                 "Process %d: %s" % (V.pid, label),
                 "Python v3.12.%d (/usr/bin/python3.12)" % rng.randint(3, 11), "",
                 'Thread %d (active): "MainThread"' % V.pid]
        if run.model[2]:
            lines += ["    low_latency_dispatch (deep_ep/buffer.py:%d)" % rng.randint(560, 620),
                      "    dispatch_a (%slayers/moe/token_dispatcher/deepep.py:%d)" % (st.root if st.name == "sglang" else st.root + "model_executor/", rng.randint(400, 700)),
                      "    forward_deepep (%smodels/deepseek_v2.py:%d)" % (st.root if st.name == "sglang" else st.root + "model_executor/", rng.randint(600, 900))]
        else:
            lines += ["    synchronize (torch/cuda/__init__.py:%d)" % rng.randint(980, 1010),
                      "    resolve_future (%smanagers/tp_worker_overlap_thread.py:%d)" % (st.root, rng.randint(180, 260)) if st.name == "sglang" else
                      "    execute_model (%sv1/worker/gpu_model_runner.py:%d)" % (st.root, rng.randint(2100, 2400))]
        lines += ["    run_batch (%s:%d)" % ("scheduler.py" if st.name == "sglang" else "gpu_worker.py", rng.randint(400, 2000)),
                  'Thread %d (idle): "Thread-3 (_watchdog)"' % (V.pid + 31), "    wait (threading.py:359)"]
        write_side_file(S, "py-spy-%s-%d.txt" % (V.host.name.split(".")[0], V.pid), lines, {1: ("vown",)})
        run.extra["pyspy_host"] = True
    cascade_death(S, peers[0], tt + 1, "abort", vref=False)
    for x in peers + [V]:
        x.silent = tt + 30
    V.silent = t
    run.notes = "%s (%s) stopped making progress; the other ranks of %s hit the NCCL watchdog %ds later and the instance was torn down." % (
        wdesc(V), V.host.name, inst.name, to)


def cause_io_stall(S):
    run, rng, st, V = S.run, S.run.rng, S.stack, S.V
    t = run.t_inc
    inst = V.inst
    H = V.host
    ts = t - rng.uniform(60, 200)
    # a planned restart / scale-out brings the instance up again, loading weights from shared storage
    inst.down = ts - 30
    for nr in range(len(inst.hosts)):
        st.sigterm(inst, ts - 30, nr)
    if run.layout.startswith("k8s"):
        S.pf.restart(inst, ts - 25, 143, "Completed", True)
        S.pf.event(ts - 40, "Normal", "ScalingReplicaSet", "deployment/%s-%s" % (run.extra["prefix"], inst.role),
                   "Scaled up replica set %s-%s-%s to 1" % (run.extra["prefix"], inst.role, hexid(rng, 9)))
    fs = rng.choice(["fs-models-01", "10.%d.0.5" % rng.randint(1, 200), "lustre-mds02@o2ib", "weka-backend-3"])
    path = rng.choice(["/mnt/models/", "/lustre/shared/hf/", "/data/hf-cache/hub/"])
    for w in inst.workers:
        w.silent = None
    inst.gen_hint = True
    # loading progress: each node's first rank prints the progress bar; the stalled one stops
    vl = st.name == "vllm"
    nsh = getattr(inst, "nsh", None) or rng.choice([163, 82, 41, 30])
    for nr, h in enumerate(inst.hosts):
        ws = [w for w in inst.workers if w.host is h]
        for w in ws:
            msg = ("Starting to load model %s..." % run.model[0]) if vl else ("Load weight begin. avail mem=%.2f GB" % rng.uniform(76, 79))
            st.wlog(w, ts + rng.uniform(0, 1), msg, ("vown",) if w is V else ())
        if h is H:
            stop = rng.randint(max(2, int(nsh * 0.1)), int(nsh * 0.8))
            tk = ts + 2
            for k in range(1, stop + 1, max(1, stop // 6)):
                tk += rng.uniform(1.5, 3) * max(1, stop // 6)
                el = int(tk - ts)
                st.wraw(V, tk, "Loading safetensors checkpoint shards: %3d%% Completed | %d/%d [%02d:%02d<%02d:%02d,  %.2fit/s]" % (
                    k * 100 // nsh, k, nsh, el // 60, el % 60, int(el * (nsh - k) / max(k, 1)) // 60 % 60, int(el * (nsh - k) / max(k, 1)) % 60,
                    k / max(el, 1.0)), ("vnode",) if k + max(1, stop // 6) > stop else ())
        else:
            el = rng.randint(60, 180)
            st.wraw(ws[0], ts + el, "Loading safetensors checkpoint shards: 100%% Completed | %d/%d [%02d:%02d<00:00,  %.2fit/s]" % (nsh, nsh, el // 60, el % 60, nsh / float(el)))
        for w in ws:
            if w is V:
                continue
            if vl:
                st.wlog(w, ts + rng.uniform(180, 200), "Model loading took %.4f GiB and %.6f seconds" % (rng.uniform(10, 70), rng.uniform(150, 190)),
                        src=("gpu_model_runner.py", 2653))
            else:
                st.wlog(w, ts + rng.uniform(180, 200), "Load weight end. type=%s, dtype=torch.bfloat16, avail mem=%.2f GB, mem usage=%.2f GB." % (
                    run.model[1], rng.uniform(8, 40), rng.uniform(30, 70)))
    kern = S.pf.kern
    kern.add(H, t, "nfs: server %s not responding, still trying" % fs if "lustre" not in fs else
             "Lustre: %s: Connection to shared-MDT0000 (at %s) was lost; in progress operations using this service will wait for recovery to complete" % (fs.split("@")[0], fs), ("khost",))
    kern.add(H, t + 123, "INFO: task %s:%d blocked for more than 122 seconds." % ("python3" if st.name == "sglang" else "VLLM::Worker_TP", V.pid), ("khost", "vpid"))
    kern.add(H, t + 123, "      Not tainted 5.15.0-%d-generic #%d-Ubuntu" % (rng.randint(80, 140), rng.randint(80, 160)))
    kern.add(H, t + 123, "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.")
    kern.add(H, t + 123, "task:%-15s state:D stack:0     pid:%d ppid:%d flags:0x00004002" % ("python3", V.pid, inst.main_pid[H.name]))
    for fr in ["__schedule+0x2cd/0x890", "schedule+0x69/0x110", "io_schedule+0x46/0x80", "folio_wait_bit_common+0x13d/0x350",
               "nfs_read_folio+0x%x/0x%x [nfs]" % (rng.randint(0x40, 0x200), rng.randint(0x200, 0x400)), "filemap_read+0x2b1/0x350", "vfs_read+0x1ab/0x330"]:
        kern.add(H, t + 123, " %s" % fr)
    # others wait in the first collective
    seq = rng.choice([1, 2, 3])
    tt = ts + 200 + 600 + rng.uniform(0, 5)
    waiting = [w for w in inst.workers if w is not V][:8]
    etag = ("velim",) if len(inst.workers) == 2 else ()
    for w in waiting:
        st.nccl_wd(w, tt + rng.uniform(0, 0.5), seq, "ALLREDUCE", rng.choice([1, 8, 2048]), etag, last_done=seq - 1)
    S.router.health_fail(ts + 300, inst, "error sending request for url (%s/health)")
    if run.layout.startswith("k8s"):
        pod = inst.pods[inst.node_rank(V)]
        S.pf.event(ts + 600, "Warning", "Unhealthy", "pod/%s" % pod, "Startup probe failed: Get \"http://10.52.%s:%d/health\": dial tcp: connect: connection refused" % (
            ".".join(H.ip.split(".")[2:]), inst.port), count=rng.randint(20, 60))
    if waiting:
        cascade_death(S, waiting[0], tt + 1, "abort", vref=False)
    V.silent = t + 1
    run.notes = "During a planned restart of %s, %s on %s blocked reading weights from shared storage (%s not responding); the other ranks timed out in the first collective." % (
        inst.name, wdesc(V), H.name, fs)


def cause_mismatch(S):
    run, rng, st, V = S.run, S.run.rng, S.stack, S.V
    t = run.t_inc
    inst = V.inst
    seq = rng.randint(20000, 2000000)
    peers = [w for w in inst.workers if w is not V]
    tt = t + 600 + rng.uniform(0, 3)
    inst.stalls.append((t, tt + 30))
    for k in range(rng.randint(2, 6)):
        S.router.timeout(t + rng.uniform(60, 600), inst, rng.choice([60, 120, 300]))
    mtype = rng.choice(["type", "size"])
    for w in peers[:min(len(peers), 8)]:
        st.nccl_wd(w, tt + rng.uniform(0, 0.6), seq, "_ALLGATHER_BASE", 917504 if mtype == "type" else 1835008, last_done=seq - 1)
    if mtype == "type":
        st.nccl_wd(V, tt + rng.uniform(0, 0.6), seq, "ALLREDUCE", rng.choice([1, 2, 8]), ("vown",), last_done=seq - 1)
    else:
        st.nccl_wd(V, tt + rng.uniform(0, 0.6), seq, "_ALLGATHER_BASE", 1835008 + rng.choice([7168, 57344]), ("vown",), last_done=seq - 1)
    if rng.random() < 0.65:
        lines = fr_trace_lines(run, inst.name, inst.size, seq, "_ALLGATHER_BASE", 917504 if mtype == "type" else 1835008, culprit=V.tp, mismatch=mtype)
        write_side_file(S, "fr_trace-%s.txt" % inst.name, lines, {i: ("vref",) for i, x in enumerate(lines) if x.startswith("error msg")})
    if st.name == "sglang" and inst.dp_attn:
        st.wlog(V, t - rng.uniform(0.5, 5), "Decode batch. #running-req: 0, #token: 0, token usage: 0.00, pre-allocated usage: 0.00, #retracted-req: 0, cuda graph: False, gen throughput (token/s): 0.00, #queue-req: 0")
    cascade_death(S, peers[0], tt + 1, "abort", vref=False)
    run.notes = "%s issued a different collective (%s) than its peers at SeqNum %d; every rank waited until the NCCL watchdog fired." % (
        wdesc(V), "ALLREDUCE vs _ALLGATHER_BASE" if mtype == "type" else "different all-gather size", seq)


def dcgm_lines(run, H, slow_w, model_name):
    rng = run.rng
    out = []
    up = "Hostname" if rng.random() < 0.5 else "hostname"
    for k, bus in enumerate(H.gpus):
        lab = '{gpu="%d",UUID="GPU-%s",pci_bus_id="00000000:%s:00.0",device="nvidia%d",modelName="%s",%s="%s"}' % (
            k, uuid4(rng), bus.upper(), k, model_name, up, H.name)
        slow = slow_w is not None and k == slow_w.gpu
        out.append(("DCGM_FI_DEV_SM_CLOCK%s %d" % (lab, rng.choice([1095, 1005, 705]) if slow else rng.choice([1980, 1965, 1755])), slow))
        out.append(("DCGM_FI_DEV_GPU_TEMP%s %d" % (lab, rng.randint(86, 94) if slow else rng.randint(41, 66)), slow))
        out.append(("DCGM_FI_DEV_POWER_USAGE%s %.3f" % (lab, rng.uniform(280, 390) if slow else rng.uniform(520, 690)), False))
        out.append(("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS%s %d" % (lab, rng.choice([72, 8, 136]) if slow else rng.choice([0, 0, 4])), slow))
        out.append(("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE%s %.6f" % (lab, rng.uniform(0.1, 0.2) if slow else rng.uniform(0.35, 0.6)), False))
    return out


def cause_straggler(S):
    run, rng, st, V = S.run, S.run.rng, S.stack, S.V
    t = run.t_inc
    inst = V.inst
    H = V.host
    model_name = rng.choice(["NVIDIA H100 80GB HBM3", "NVIDIA H200", "NVIDIA H20"])
    dl = dcgm_lines(run, H, V, model_name)
    lines = ["# scraped %s from dcgm-exporter on %s:9400" % (run.local(None, t + 400).strftime("%Y-%m-%dT%H:%M:%SZ"), H.name)]
    lines += [x for x, _ in dl]
    tags = {i + 1: ("xid", "khost") for i, (x, s) in enumerate(dl) if s}
    name = ("dcgm/%s.prom" % H.name) if run.layout == "slurm-sglang-pd" else ("nodes/%s-dcgm.prom" % H.name if run.layout.startswith("k8s") else "dcgm-%s.prom" % H.name)
    if rng.random() < 0.85:
        write_side_file(S, name, lines, tags)
    # slow instance symptoms
    run.extra.setdefault("load", {})[inst.name] = [(t, run.t_end, 1.6)]
    if st.name == "sglang" and inst.dp_attn:
        for k in range(rng.randint(2, 5)):
            st.wlog(V, t + k * rng.uniform(20, 60), "Decode batch. #running-req: %d, #token: %d, token usage: %.2f, pre-allocated usage: 0.01, #retracted-req: 0, cuda graph: True, gen throughput (token/s): %.2f, #queue-req: %d" % (
                rng.randint(100, 250), rng.randint(100000, 300000), rng.uniform(0.6, 0.9), rng.uniform(120, 400), rng.randint(20, 90)), ("vown",))
    elif st.name == "vllm" and inst.kind == "dp":
        for k in range(rng.randint(2, 4)):
            st.alog(inst, t + k * rng.uniform(20, 60), "Engine %03d: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: %.1f tokens/s, Running: %d reqs, Waiting: %d reqs, GPU KV cache usage: %.1f%%, Prefix cache hit rate: %.1f%%" % (
                V.tp, rng.uniform(80, 300), rng.randint(100, 250), rng.randint(30, 120), rng.uniform(70, 95), rng.uniform(0, 40)), ("vref",), src=("loggers.py", 123))
    if rng.random() < 0.5 and st.name == "sglang" and st.transfer == "mooncake":
        for p in others_of(run, inst)[:1]:
            for k in range(rng.randint(1, 3)):
                st.glog(p.workers[0], t + rng.uniform(60, 500), "I", "transfer_engine_py.cpp:454", "Sync batch data transfer timeout after %dns" % rng.randint(30 * 10 ** 9, 60 * 10 ** 9))
    if st.name == "sglang" and inst.role == "decode":
        st.wlog(inst.workers[0], t + rng.uniform(100, 400), "Some requests fail to receive KV Cache transfer done signal after bootstrapping. If a greater mean TTFT is acceptable, you can 'export SGLANG_DISAGGREGATION_WAITING_TIMEOUT=600' (10 minutes) to relax the timeout condition. ")
    for k in range(rng.randint(3, 8)):
        S.router.timeout(t + rng.uniform(30, run.t_end - t - 10), inst, rng.choice([60, 120, 300]))
    run.notes = "GPU %s on %s (%s) ran throttled (HW slowdown/thermal) and dragged its whole instance; the router logged timeouts, nothing crashed." % (
        V.busid, H.name, wdesc(V))


def cause_unknown(S):
    run, rng, st, V = S.run, S.run.rng, S.stack, S.V
    t = run.t_inc
    run.rank_rules = []
    run.node_rules = []
    variant = rng.choice(["lpe", "vanish", "vanish"]) if (st.name == "sglang" and st.transfer == "mooncake") else "vanish"
    if variant == "lpe":
        P = [i for i in run.instances if i.role == "prefill"]
        D = [i for i in run.instances if i.role == "decode"]
        for p in P[:2]:
            for w in p.workers[:4]:
                st.xfer_err(w, t + rng.uniform(0, 5), rng.choice(D[0].workers), "local protection error", (), retry=rng.choice([0, 1]), n=rng.randint(1, 3))
        for d in D[:2]:
            for w in d.workers[:3]:
                st.kv_fail(w, t + rng.uniform(1, 30), "Failed to get kvcache from prefill instance, it might be dead")
        for k in range(rng.randint(4, 10)):
            S.router.req_err(t + rng.uniform(1, 200), rng.choice(D), 500, "KVTransferError")
        run.notes = "KV transfers from every prefill rank failed with 'local protection error' and requests returned 500; no rank or node stands out and nothing crashed."
        return
    inst = V.inst
    nr = inst.node_rank(V)
    for w in inst.workers:
        w.silent = t
    inst.down = t
    if run.layout == "slurm-sglang-pd":
        S.pf.task_exit(inst, t + rng.uniform(1, 5), nr, rng.choice(["1", "255"]))
        restart_instance(S, inst, t + 10, 1, "Error")
    elif run.layout.startswith("k8s"):
        restart_instance(S, inst, t + 5, rng.choice([1, 255]), "Error", prev_captured=False)
    peers_and_router(S, inst, t)
    run.notes = "%s went away: its process exited non-zero without any error in the collected logs (%s), no kernel or GPU evidence." % (
        inst.name, "previous container log not kept" if run.layout.startswith("k8s") else "output cut off")


# ---------------------------- healthy variants -------------------------------

def healthy_serving(S):
    run, rng, st = S.run, S.run.rng, S.stack
    t = run.t_inc
    v = rng.choice(["retry", "rolling", "shed", "benign", "recovered"])
    if v in ("rolling", "recovered") and run.layout == "paste":
        v = rng.choice(["shed", "retry", "benign"])
    run.extra["hv"] = v
    D = [i for i in run.instances if i.role == "decode"]
    P = [i for i in run.instances if i.role == "prefill"]
    if v == "retry":
        for k in range(rng.randint(2, 6)):
            p = rng.choice(P)
            d = rng.choice(D)
            w = rng.choice(p.workers[:4]) if st.name == "sglang" else rng.choice(d.workers[:4])
            pw = rng.choice(d.workers) if st.name == "sglang" else rng.choice(p.workers)
            if st.name == "sglang":
                st.xfer_err(w, t + k * rng.uniform(30, 300), pw, "transport retry counter exceeded", retry=0, n=1)
            else:
                st.ucx(w, t + k * rng.uniform(30, 300), "WARN", "ib_mlx5_log.c:177", "Transport retry count exceeded on %s:1/IB (synd 0x15 vend 0x81 hw_synd 0/0); endpoint will be re-created" % w.nic[0])
        if st.name == "vllm":
            for k in range(rng.randint(1, 4)):
                st.kv_fail(rng.choice(P).workers[0], t + rng.uniform(0, 900), "")
        run.notes = "A few KV transfers hit RDMA retry errors and were retried successfully; no request failed and all workers stayed up."
    elif v == "rolling":
        inst = run.V.inst if run.V.inst.role == "decode" else rng.choice(D)
        for nr in range(len(inst.hosts)):
            st.sigterm(inst, t + rng.uniform(0, 2), nr)
        for w in inst.workers:
            w.silent = None
        if run.layout.startswith("k8s"):
            S.pf.event(t - 5, "Normal", "ScalingReplicaSet", "deployment/%s-decode" % run.extra["prefix"], "Scaled up replica set %s-decode-%s to 1" % (run.extra["prefix"], hexid(rng, 9)))
            restart_instance(S, inst, t + 3, 0, "Completed", True, delay=rng.uniform(10, 40))
        else:
            S.pf.wrapper = True
            S.pf.line(t - 2, "[supervisor] %s rolling restart of %s requested (config reload: --max-running-requests)" % (S.pf.ts(t), inst.name))
            restart_instance(S, inst, t + 3, 0, "Completed", True, delay=rng.uniform(10, 40))
        S.router.unhealthy(t + rng.uniform(10, 30), inst)
        if inst.up_again is not None:
            S.router.healthy(inst.up_again + 10, inst)
        run.notes = "Planned rolling restart of %s (SIGTERM, graceful shutdown, reload); the router drained and re-added it. No fault." % inst.name
    elif v == "shed":
        d = run.V.inst if run.V.inst.role == "decode" else rng.choice(D)
        run.extra.setdefault("load", {})[d.name] = [(t, t + 300, 2.5)]
        for k in range(rng.randint(2, 6)):
            if rng.random() < 0.5:
                S.router.shed(t + k * rng.uniform(10, 40), rng.randint(10, 300))
            else:
                S.router.shed503(t + k * rng.uniform(10, 40), rng.randint(10, 300))
        for k in range(rng.randint(1, 4)):
            st.http_err(d, t + rng.uniform(0, 200), 503, "Service Unavailable")
        run.notes = "Traffic burst: the router/gateway shed load with 429/503 for a few minutes while decode queues were full; all workers healthy throughout."
    elif v == "benign":
        for inst in run.instances:
            w = inst.workers[0]
            if st.name == "vllm":
                if st.transfer == "nixl":
                    st.ucx(w, t + rng.uniform(0, 600), "WARN", "ucp_ep.c:1536", "UCX_RCACHE_MAX_UNRELEASED is set, memory pinning may be delayed")
                    if inst.role == "prefill" and rng.random() < 0.6:
                        st.elog(inst, 0, t + rng.uniform(0, 900), "Potentially invalid KV blocks for unrecognized request cmpl-%s-0 were retrieved by a decode worker. They may have expired." % uuid4(rng),
                                lvl="ERROR", src=("nixl_connector.py", 1068))
            else:
                hn = inst.hosts[0].name.split(".")[0]
                st.wraw(w, t + rng.uniform(0, 600), "%s:%d:%d [%d] NCCL INFO NET/IB : Got async event : GID table change" % (hn, w.pid, w.pid + 77, w.gpu))
                if inst.role == "prefill" and rng.random() < 0.5:
                    st.mlog(inst, 0, t + rng.uniform(0, 600), "Health check failed. Server couldn't get a response from detokenizer for last 20 seconds. tic start time: %s. last_heartbeat time: %s" % (
                        run.local(inst.hosts[0], t).strftime("%H:%M:%S"), run.local(inst.hosts[0], t - 21).strftime("%H:%M:%S")))
        if isinstance(S.router, SGLRouter):
            S.router.health_fail(t + rng.uniform(0, 300), rng.choice(P), "request timed out after 5s (%s/health)")
        run.notes = "Only benign noise: UCX/NCCL warnings, a transient health-check timeout under long prompts, expired-lease warnings; service healthy."
    else:
        run.t_end = t + rng.uniform(2400, 4000)
        inst = run.V.inst
        w = run.V
        msg = oom_text(rng, w.gpu, True)
        if st.name == "sglang":
            st.exc(w, t, sgl_frames(rng, st.root, "forward", inst.role), msg)
        else:
            st.exc(w, t, vllm_frames(rng, st.root, "forward"), msg)
        if run.layout == "slurm-sglang-pd":
            S.pf.wrapper = True
        cascade_death(S, w, t + 0.5, "exc", msg)
        if inst.up_again is None:
            inst.up_again = inst.down + 400
        run.notes = "%s hit a one-off CUDA OOM and was restarted by the platform; it then served cleanly for the rest of the window (recovered = healthy)." % inst.name


# ----------------------------------------------------------------------------
# serving orchestration
# ----------------------------------------------------------------------------

def choose_V(run, cause):
    rng = run.rng
    insts = [i for i in run.instances if i.role in ("prefill", "decode")]
    multi = [i for i in insts if i.size >= 2]
    dec = [i for i in insts if i.role == "decode"]
    if cause in ("hang", "collective_mismatch", "data_loader_stall", "nvlink", "straggler") and multi:
        pool = multi
        if cause == "collective_mismatch":
            dp = [i for i in multi if i.dp_attn or i.kind == "dp"]
            pool = dp or multi
        elif cause == "straggler":
            pool = [i for i in multi if i.role == "decode"] or multi
    elif cause in ("cuda_oom",):
        pool = dec if rng.random() < 0.8 else insts
    else:
        pool = dec if rng.random() < 0.6 else insts
    inst = rng.choice(pool)
    w = rng.choice(inst.workers)
    if cause == "nvlink" and inst.gpn > 1:
        pass
    return w


def collect_serving(run, pf, V):
    rng = run.rng
    inst = V.inst
    nr = inst.node_rank(V)
    nodes = [nr]
    if nr != 0:
        nodes.append(0)
    rest = [k for k in range(len(inst.hosts)) if k not in nodes]
    rng.shuffle(rest)
    nodes += rest[:rng.randint(1, 4)]
    for k in sorted(nodes):
        pf.collect(inst, k)
    opp = others_of(run, inst)
    for i, o in enumerate(opp):
        if i == 0 or rng.random() < 0.3:
            pf.collect(o, 0)
            if len(o.hosts) > 1 and rng.random() < 0.3:
                pf.collect(o, 1)
    same = [i for i in run.instances if i.role == inst.role and i is not inst]
    for o in same:
        if rng.random() < 0.25:
            pf.collect(o, 0)


def write_k8s_map(run, pf):
    rng = run.rng
    f = run.f("deployment-map.txt", sort=False)
    f.add(0, "# generated by collect-pd.sh at %s (global rank = prefill instances first, then decode; within an instance by %s)" % (
        run.local(None, run.t_end).strftime("%Y-%m-%dT%H:%M:%SZ"), "TP rank" if not any(i.kind == "dp" for i in run.instances) else "TP/DP rank"))
    f.add(0, "%-46s %-44s %-8s %-10s %-9s %s" % ("POD", "NODE", "ROLE", "INSTANCE", "LOCAL", "GLOBAL_RANKS"))
    for inst in run.instances:
        for nr, pod in enumerate(inst.pods):
            h = inst.hosts[nr]
            ws = [w for w in inst.workers if w.host is h]
            loc = ("dp%s" if inst.kind == "dp" else "tp%s") % rng_range_str(ws[0].tp, ws[-1].tp)
            tags = ("map", "podnode") if (run.V is not None and run.V in ws) or (run.VH is h) else ()
            f.add(0, "%-46s %-44s %-8s %-10s %-9s %s" % (pod, h.name, inst.role, inst.name, loc, rng_range_str(ws[0].grank, ws[-1].grank)), tags)


def gen_serving(run):
    rng = run.rng
    layout = run.layout
    k8s = layout.startswith("k8s")
    if layout == "slurm-sglang-pd":
        engine = "sglang"
    elif layout == "k8s-llmd-nixl":
        engine = "vllm"
    else:
        engine = rng.choice(["sglang", "vllm"])
    run.engine = engine
    size_class = pick_size_class(rng, layout)
    run.extra["ns"] = rng.choice(["dynamo-system", "dynamo", "inference"]) if layout == "k8s-dynamo" else rng.choice(["llm-d", "inference", "ds-pd", "serving-prod", "llm"])
    run.extra["prefix"] = rng.choice(["ds-r1", "qwen3", "llm-d-ms", "kimi-k2", "glm45", "pd", "wide-ep"])
    build_serving(run, size_class, engine, k8s, need_multi=run.cause in ("hang", "collective_mismatch", "data_loader_stall", "nvlink", "straggler"))
    if layout == "slurm-sglang-pd":
        pf = SlurmPF(run)
    elif k8s:
        pf = K8sPF(run)
        pf.name_pods()
    else:
        pf = BarePF(run)
    S = Ctx()
    S.run, S.pf, S.extra_reason = run, pf, None
    S.stack = SGLStack(run, pf) if engine == "sglang" else VLLMStack(run, pf)
    run.engine = engine
    run.extra["torch_new"] = False if (engine == "vllm" and S.stack.style != "v011") else (rng.random() < 0.5)
    if layout == "slurm-sglang-pd":
        S.router = SGLRouter(run, "logs/router.log")
    elif layout == "k8s-llmd-nixl":
        S.router = LLMDRouter(run)
    elif layout == "k8s-dynamo":
        S.router = DynamoFrontend(run)
    else:
        S.router = SGLRouter(run, "raw/router.log") if engine == "sglang" else LLMDRouter(run)
    run.router = S.router
    run.extra["router_ip"] = "10.%d.%d.%d" % (rng.randint(1, 200), rng.randint(0, 250), rng.randint(2, 250))
    cause = None if run.healthy else run.cause
    V = choose_V(run, cause or "unknown")
    run.V, run.VH = V, V.host
    S.V = V
    run.rank_rules = [("vown", "map"), ("vref", "map"), ("velim", "map"), ("xid", "busmap", "map"), ("vpid", "pidmap", "map")]
    run.node_rules = [("vhostline",), ("vown", "map"), ("vref", "map"), ("velim", "map")]
    collect_serving(run, pf, V)
    # timeline
    run.t_ready = run.t0 + 420
    run.t_inc = run.t_ready + rng.uniform(600, 9000)
    long_tail = cause in ("hang", "collective_mismatch", "data_loader_stall", "gpu_hardware")
    run.t_end = run.t_inc + (rng.uniform(900, 1800) if long_tail else rng.uniform(300, 1500))
    run.window = max(run.t_ready + 30, run.t_inc - rng.uniform(400, 1500))
    if layout == "slurm-sglang-pd":
        pf.header(run.t0 - 5)
        if rng.random() < 0.15:
            # the job script printed no global rank map
            f = run.files[pf.out]
            f.lines = [l for l in f.lines if "node_rank=" not in l[2] and "rank map" not in l[2]]
            for inst in run.instances:
                f.add(run.t0 - 4, "[launch] %s: %s" % (inst.name, ",".join(h.name for h in inst.hosts)),
                      ())
    for inst in run.instances:
        ts0 = run.t0 + rng.uniform(0, 20)
        if layout == "k8s-dynamo":
            for nr in range(len(inst.hosts)):
                p = pf.path(inst, nr, ts0)
                if p is None:
                    continue
                z = lambda x: dt(x).strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (int(x * 1000) % 1000)
                run.f(p).add(ts0 - 3, "%s  INFO dynamo_runtime::distributed: Initializing DistributedRuntime namespace=\"dynamo\" etcd=\"http://etcd:2379\" nats=\"nats://nats:4222\"" % z(ts0 - 3))
                run.f(p).add(ts0 + 380, "%s  INFO dynamo_runtime::component::endpoint: Registering endpoint dynamo.%s.generate instance_id=%d" % (
                    z(ts0 + 380), "prefill" if inst.role == "prefill" else "backend", S.router.iid(inst)))
        S.stack.startup(inst, ts0)
    S.router.start(run.t0 + 400)
    # incident
    fn = {
        "gpu_hardware": lambda: cause_gpu(S, "gpu"), "ecc_memory": lambda: cause_gpu(S, "ecc"),
        "nvlink": lambda: cause_gpu(S, "nvlink"), "illegal_memory_access": lambda: cause_gpu(S, "ima"),
        "network": lambda: cause_network(S), "cuda_oom": lambda: cause_oom(S), "python_exception": lambda: cause_pyexc(S),
        "host_oom_kill": lambda: cause_host_oom(S), "crash_signal": lambda: cause_crash(S), "preemption": lambda: cause_preempt(S),
        "hang": lambda: cause_hang(S), "data_loader_stall": lambda: cause_io_stall(S), "collective_mismatch": lambda: cause_mismatch(S),
        "straggler": lambda: cause_straggler(S), "unknown": lambda: cause_unknown(S),
    }
    if cause is None:
        healthy_serving(S)
        run.rank_rules, run.node_rules = [], []
    else:
        fn[cause]()
        if cause in ("network", "preemption", "unknown"):
            run.rank_rules = []
    # background noise
    for inst in run.instances:
        S.stack.noise(inst, run.window, run.t_end)
    S.router.noise(run.window, run.t_end)
    # kernel logs: which hosts were collected
    kern = pf.kern
    hw = cause in ("gpu_hardware", "ecc_memory", "nvlink", "illegal_memory_access", "host_oom_kill", "network", "data_loader_stall")
    want = []
    if run.VH is not None and (rng.random() < (0.85 if hw else 0.35)):
        want.append(run.VH)
    for h in rng.sample(run.hosts, min(len(run.hosts), rng.randint(0, 2))):
        if h not in want:
            want.append(h)
    for h in want:
        kern.noise(h, run.window - 3600, run.t_end)
    for path in run.order:
        if path.startswith("dmesg/") or (path.startswith("nodes/") and path.endswith("-kernel.log")):
            hn = path.split("/")[1].replace("-kernel.log", "").replace(".txt", "")
            run.files[path].collected = any(h.name == hn for h in want)
    if k8s and rng.random() < 0.85:
        write_k8s_map(run, pf)
    pf.finalize()
    run.pf = pf
    return S


# ----------------------------------------------------------------------------
# RL trainer -> rollout weight sync (torchrun + rollout servers under Slurm)
# ----------------------------------------------------------------------------

class RLPF(SlurmPF):
    def __init__(self, run):
        SlurmPF.__init__(self, run)
        self.run_id = "%s-%s" % (run.rng.choice(["grpo", "ppo", "dapo", "rloo"]), hexid(run.rng, 6))
        self.tcollected = []

    def path(self, inst, nr, t=None):
        if (inst.name, nr) not in self.collected:
            return None
        return "rollout/%s-%s.log" % (inst.name, inst.hosts[nr].name)

    def tpath(self, w, attempt=0):
        if w.grank not in self.tcollected:
            return None
        return "trainer/%s/%s/attempt_%d/%d/stderr.log" % (w.host.name, self.run_id, attempt, w.gpu)

    def agent_path(self, h):
        return "trainer/%s/torchrun-agent.log" % h.name


class TrainerStack:
    def __init__(self, run, pf):
        rng = run.rng
        self.run = run
        self.pf = pf
        self.new = rng.random() < 0.7
        self.nccl_ver = rng.choice(["2.21.5", "2.26.2", "2.27.3"])
        self.fw = rng.choice(["fsdp", "megatron"])

    def ts(self, h, t):
        lt = self.run.local(h, t)
        return lt.strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (lt.microsecond // 1000)

    def add(self, w, t, text, tags=(), attempt=0):
        sw = self.run.extra.get("attempt_switch")
        if attempt == 0 and sw is not None and t > sw:
            attempt = 1
        p = self.pf.tpath(w, attempt)
        if p is None or (w.silent is not None and t > w.silent):
            return
        self.run.f(p).add(t, text, tags)

    def log(self, w, t, msg, tags=(), lvl="INFO", attempt=0):
        self.add(w, t, "%s %s [rank%d] %s" % (self.ts(w.host, t), lvl, w.grank, msg), tags, attempt)

    def c10d(self, w, t, msg, tags=(), sev="E", src=None, attempt=0):
        lt = self.run.local(w.host, t)
        src = src or "ProcessGroupNCCL.cpp:%d" % self.run.rng.choice([632, 688, 1663, 2068])
        self.add(w, t, "[rank%d]:[%s%d%02d %s.%09d %s] %s" % (w.grank, sev, lt.month, lt.day, lt.strftime("%H:%M:%S"), lt.microsecond * 1000, src, msg), tags, attempt)

    def nccl_wd(self, w, t, seq, op, numel, tags=(), timeout_ms=600000, last_done=None, pg="[PG ID 0 PG GUID 0(default_pg) Rank %d]"):
        rng = self.run.rng
        pgs = pg % w.grank if "%d" in pg else pg
        self.c10d(w, t, "%s Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d) ran for %d milliseconds before timing out." % (
            pgs, seq, op, numel, numel_out(op, numel, w.inst.size), timeout_ms, timeout_ms + rng.randint(5, 90)), tags)
        if last_done is not None:
            self.c10d(w, t + 0.001, "%s failure detected by watchdog at work sequence id: %d PG status: last enqueued work: %d, last completed work: %d" % (
                pgs, seq, seq, last_done), tags)
        self.c10d(w, t + 0.002, "%s To avoid data inconsistency, we are taking the entire process down." % pgs)
        self.add(w, t + 0.01, "terminate called after throwing an instance of 'c10::DistBackendError'")

    def exc(self, w, t, frames, exc_line, tags=()):
        self.add(w, t, "[rank%d]: Traceback (most recent call last):" % w.grank, tags)
        for (fn, ln, func, code) in frames:
            self.add(w, t, '[rank%d]:   File "%s", line %d, in %s' % (w.grank, fn, ln, func))
            self.add(w, t, "[rank%d]:     %s" % (w.grank, code))
        for i, x in enumerate(exc_line.split("\n")):
            self.add(w, t, "[rank%d]: %s" % (w.grank, x), tags if i == 0 else ())

    def nccl_init(self, w, t, nranks):
        rng = self.run.rng
        self.add(w, t, "%s:%d:%d [%d] NCCL INFO ncclCommInitRankConfig comm 0x%s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId 0x%s - Init COMPLETE" % (
            w.host.name.split(".")[0], w.pid, w.pid + rng.randint(50, 300), w.gpu, hexid(rng, 12), w.grank, nranks, w.gpu, w.gpu, w.nccl_bus, hexid(rng, 16)),
            ("busmap", "pidmap") if w is self.run.V else ())

    def agent(self, h, t, level, msg):
        lt = self.run.local(h, t)
        if self.new:
            txt = "%s%s %s.%06d %d torch/distributed/elastic/%s" % (level[0], lt.strftime("%m%d"), lt.strftime("%H:%M:%S"), lt.microsecond,
                                                                   self.run.extra["agent_pid"].get(h.name, 1000), msg)
        else:
            txt = "[%s] torch.distributed.elastic.%s" % (self.ts(h, t), msg)
        self.run.f(self.pf.agent_path(h)).add(t, txt)

    def child_failed(self, h, t, failures, root):
        """failures: list of (worker, exitcode, tsig); root is the first one the agent saw."""
        f = self.run.f(self.pf.agent_path(h))
        lt = self.run.local(h, t)

        def block(i, w, code, t_fail):
            lt2 = self.run.local(h, t_fail)
            out = ["[%d]:" % i, "  time      : %s" % lt2.strftime("%Y-%m-%d_%H:%M:%S"), "  host      : %s" % h.name,
                   "  rank      : %d (local_rank: %d)" % (w.grank, w.gpu),
                   "  exitcode  : %d (pid: %d)" % (code, w.pid), "  error_file: <N/A>"]
            if code < 0:
                out.append("  traceback : Signal %d (%s) received by PID %d" % (-code, {6: "SIGABRT", 9: "SIGKILL", 15: "SIGTERM", 11: "SIGSEGV"}.get(-code, "SIG"), w.pid))
            else:
                out.append("  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
            return out
        lines = ["Traceback (most recent call last):", '  File "/usr/local/bin/torchrun", line 8, in <module>', "    sys.exit(main())",
                 "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "=" * 60,
                 "%s FAILED" % self.run.extra.get("entry", "train_rl.py"), "-" * 60, "Failures:"]
        others = [x for x in failures if x is not root]
        if not others:
            lines.append("  <NO_OTHER_FAILURES>")
        for i, (w, code, tf) in enumerate(others):
            lines += block(i + 1, w, code, tf)
        lines += ["-" * 60, "Root Cause (first observed failure):"]
        lines += block(0, root[0], root[1], root[2])
        lines.append("=" * 60)
        for x in lines:
            f.add(t, x)


def build_rl(run, size_class):
    rng = run.rng
    model = rng.choice([m for m in MODELS if not m[0].startswith("moonshot")])
    run.model = model
    gpn = 8
    run.gpn = gpn
    tn = {"small": rng.choice([1, 1, 2]), "medium": rng.choice([2, 4, 8]), "large": rng.choice([16, 24, 32])}[size_class]
    tr = add_instance(run, "trainer", "trainer", 0, tn * gpn, gpn)
    etp = rng.choice([1, 2, 4, 8])
    rnodes = {"small": 1, "medium": rng.choice([1, 2, 4]), "large": rng.choice([8, 16, 24])}[size_class]
    ne = rnodes * gpn // etp
    hosts = new_hosts(run, rnodes, False, gpn)
    per = gpn // etp
    for e in range(ne):
        h = hosts[e // per]
        inst = Instance("engine-%d" % e, "rollout", e, etp, [h], gpn)
        for r in range(etp):
            w = Worker(inst, r, h, (e % per) * etp + r)
            inst.workers.append(w)
        inst.port = 30000 + (e % per)
        inst.url = "http://%s:%d" % (h.ip, inst.port)
        run.instances.append(inst)
    finalize_ranks(run)
    run.extra["agent_pid"] = {h.name: rng.randint(1000, 90000) for h in tr.hosts}
    return tr


class DriverLog:
    """RL driver (Ray TaskRunner) log; also acts as the 'router' for rollout engines."""

    def __init__(self, run):
        self.run = run
        self.path = "driver.log"
        self.pid = run.rng.randint(10000, 400000)
        self.skew = run.rng.uniform(-1, 1)

    def line(self, t, msg, tags=()):
        self.run.f(self.path).add(t, "(TaskRunner pid=%d) %s" % (self.pid, msg), tags)

    def plain(self, t, msg, tags=()):
        self.run.f(self.path).add(t, msg, tags)

    def start(self, t):
        self.plain(t, "%s INFO worker.py:1942 -- Connected to Ray cluster. View the dashboard at http://127.0.0.1:8265 " % dt(t + self.skew).strftime("%Y-%m-%d %H:%M:%S,%f")[:-3])

    def noise(self, t1, t2):
        pass

    def req_err(self, t, inst, code, detail, tags=()):
        self.line(t, "WARNING: rollout request to %s failed: HTTP %d %s" % (inst.url, code, detail), tags)

    def timeout(self, t, inst, secs, tags=()):
        self.line(t, "WARNING: rollout request to %s timed out after %ds" % (inst.url, secs), tags)

    def health_fail(self, t, inst, why=None, tags=()):
        self.line(t, "requests.exceptions.ConnectionError: HTTPConnectionPool(host='%s', port=%d): Max retries exceeded with url: /health_generate (Caused by NewConnectionError('<urllib3.connection.HTTPConnection object at 0x7f%s>: Failed to establish a new connection: [Errno 111] Connection refused'))" % (
            inst.hosts[0].ip, inst.port, hexid(self.run.rng, 9)), tags)

    def unhealthy(self, t, inst, tags=()):
        self.line(t, "rollout engine %s (%s) marked dead; aborting step" % (inst.name, inst.url), tags)

    def healthy(self, t, inst):
        self.line(t, "rollout engine %s (%s) is back" % (inst.name, inst.url))

    def shed(self, t, n):
        self.line(t, "WARNING: %d rollout requests got HTTP 503 (engine busy), retrying with backoff" % n)

    shed503 = shed


def rl_frames(rng, kind, fw):
    root = "/workspace/rl/"
    fr = [(root + "train_rl.py", rng.randint(200, 400), "main", "trainer.fit()"),
          (root + "trainer/rl_trainer.py", rng.randint(300, 700), "fit", "metrics = self.train_step(batch)" if kind != "data" else "batch = next(self.train_iter)")]
    if kind == "fwd":
        fr += [(root + "trainer/rl_trainer.py", rng.randint(700, 900), "train_step", "loss = self.actor.compute_loss(batch)"),
               (root + "workers/actor/dp_actor.py" if fw == "fsdp" else root + "workers/actor/megatron_actor.py", rng.randint(200, 400), "_forward_micro_batch",
                "logits = self.actor_module(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids).logits")]
    elif kind == "sync":
        fr += [(root + "trainer/rl_trainer.py", rng.randint(700, 900), "train_step", "self.sync_weights_to_rollout()"),
               (root + "weight_sync/nccl_broadcast.py", rng.randint(60, 200), "broadcast_bucket", "dist.broadcast(flat, src=0, group=self.update_group)")]
    elif kind == "reward":
        fr += [(root + "trainer/rl_trainer.py", rng.randint(700, 900), "train_step", "rewards = self.reward_fn(batch)"),
               (root + "rewards/math_verify.py", rng.randint(40, 160), "__call__", "score = float(match.group(1))")]
    return fr


def gen_rl(run):
    rng = run.rng
    size_class = pick_size_class(rng, run.layout)
    engine = rng.choice(["sglang", "vllm"])
    tr = build_rl(run, size_class)
    pf = RLPF(run)
    S = Ctx()
    S.run, S.pf, S.extra_reason = run, pf, None
    S.stack = SGLStack(run, pf) if engine == "sglang" else VLLMStack(run, pf)
    S.stack.transfer = "none"
    T = TrainerStack(run, pf)
    S.T = T
    S.router = DriverLog(run)
    run.router = S.router
    run.engine = engine
    run.extra["entry"] = rng.choice(["train_rl.py", "-m rl.launch", "grpo_train.py"])
    engines = [i for i in run.instances if i.role == "rollout"]
    cause = None if run.healthy else run.cause
    # initiator
    trainer_side = {"data_loader_stall": True, "straggler": True, "hang": True, "collective_mismatch": rng.random() < 0.4,
                    "crash_signal": rng.random() < 0.4}.get(cause, rng.random() < 0.6)
    if cause in ("network",):
        trainer_side = rng.random() < 0.5 and len(tr.hosts) > 1
    if trainer_side:
        V = rng.choice(tr.workers)
    else:
        V = rng.choice(rng.choice(engines).workers)
    run.V, run.VH = V, V.host
    S.V = V
    run.rank_rules = [("vrank",), ("vown", "map"), ("vref", "map"), ("velim", "map"), ("xid", "busmap", "map"), ("vpid", "pidmap", "map")]
    run.node_rules = [("vhostline",), ("vown", "map"), ("vref", "map"), ("velim", "map"), ("vrank", "map")]
    # collection
    tcol = [w.grank for w in tr.workers if w.host is tr.hosts[0] and w.gpu < 2]
    if V.inst is tr:
        tcol += [w.grank for w in tr.workers if w.host is V.host]
    other = rng.choice(tr.hosts)
    tcol += [w.grank for w in tr.workers if w.host is other and w.gpu == 0]
    pf.tcollected = sorted(set(tcol))
    ecol = [engines[0]]
    if V.inst is not tr:
        ecol.append(V.inst)
    ecol.append(rng.choice(engines))
    for e in ecol:
        pf.collect(e, 0)
    # timeline
    run.t_ready = run.t0 + 600
    run.t_inc = run.t_ready + rng.uniform(1800, 20000)
    run.t_end = run.t_inc + rng.uniform(700, 2100)
    run.window = max(run.t_ready + 30, run.t_inc - rng.uniform(900, 2400))
    # launcher output with placement (global rank map)
    f = run.f(pf.out)
    f.add(run.t0 - 10, "[launch] %s job=%d trainer_nodes=%d rollout_nodes=%d model=%s" % (pf.ts(run.t0 - 10), pf.jobid, len(tr.hosts),
                                                                                        len(set(e.hosts[0].name for e in engines)), run.model[0]))
    f.add(run.t0 - 10, "[launch] global ranks: trainer 0-%d (torchrun), rollout workers %d-%d; weight-update group = trainer rank 0 + rollout workers (group rank = global rank - %d)" % (
        tr.size - 1, tr.size, len(run.workers) - 1, tr.size - 1))
    for h in tr.hosts:
        ws = [w for w in tr.workers if w.host is h]
        f.add(run.t0 - 9, "[launch]   trainer    host=%s node_rank=%d ranks=%s" % (h.name, tr.hosts.index(h), rng_range_str(ws[0].grank, ws[-1].grank)),
              ("map",) if V in ws else ())
    for e in engines:
        f.add(run.t0 - 9, "[launch]   %-10s host=%s url=%s tp=%d ranks=%s gpus=%s" % (e.name, e.hosts[0].name, e.url, e.size,
                                                                                  rng_range_str(e.workers[0].grank, e.workers[-1].grank),
                                                                                  rng_range_str(e.workers[0].gpu, e.workers[-1].gpu)),
              ("map",) if V in e.workers else ())
    # startup
    for e in engines:
        S.stack.startup(e, run.t0 + rng.uniform(0, 30))
    S.router.start(run.t0 + 5)
    for w in tr.workers:
        if w.grank in pf.tcollected:
            T.log(w, run.t0 + 20, "Initializing %s actor, world_size=%d, local_rank=%d" % (T.fw.upper(), tr.size, w.gpu))
            T.nccl_init(w, run.t0 + 25 + rng.uniform(0, 2), tr.size)
    for h in tr.hosts:
        T.agent(h, run.t0 + 1, "I", "multiprocessing/api.py:%d] Starting elastic_operator with launch configs: nproc_per_node=8, nnodes=%d, run_id=%s" % (
            rng.choice([220, 231]), len(tr.hosts), pf.run_id) if T.new else "launcher.api: [INFO] Starting elastic_operator with launch configs: nproc_per_node=8 nnodes=%d" % len(tr.hosts))
    if cause is None:
        run.extra["hv"] = rng.choice(["restarted", "sleepwake", "retry503", "benign"])
        if run.extra["hv"] == "restarted":
            run.extra["t_fail0"] = run.window + rng.uniform(60, 300)
            run.extra["attempt_switch"] = run.extra["t_fail0"] + 60
    # training steps (noise)
    step0 = rng.randint(10, 400)
    step_len = rng.uniform(120, 480)
    st = run.window
    step = step0
    slow = cause == "straggler"
    while st < run.t_end:
        alive_until = run.t_end if (cause is None or cause == "straggler") else run.t_inc
        if st < alive_until:
            for w in tr.workers:
                if w.grank in pf.tcollected:
                    base = rng.uniform(380, 520)
                    ms = base * (rng.uniform(1.9, 2.6) if (slow and w is V and st > run.t_inc - 3 * step_len) else 1.0)
                    T.log(w, st + rng.uniform(0, 2), "step %d fwd_bwd %.0fms data %.0fms optim %.0fms" % (step, ms, rng.uniform(2, 30), rng.uniform(30, 90)),
                          ("vrank",) if (slow and w is V and st > run.t_inc - 3 * step_len) else ())
            S.router.line(st + rng.uniform(1, 5), "step:%d - timing_s/gen:%.1f - timing_s/update_weights:%.2f - timing_s/update_actor:%.1f - actor/pg_loss:%.4f - critic/score/mean:%.3f - response_length/mean:%.1f" % (
                step, rng.uniform(60, 300), rng.uniform(4, 30), rng.uniform(40, 200) * (1.8 if slow and st > run.t_inc - 3 * step_len else 1), rng.uniform(-0.05, 0.05), rng.uniform(0.1, 0.8), rng.uniform(300, 3000)))
            for e in engines:
                S.stack.wlog(e.workers[0], st + rng.uniform(5, 10), "Update weights from distributed: %d tensors (%.2f GB) in %.2fs" % (rng.randint(300, 1200), rng.uniform(10, 140), rng.uniform(2, 20)))
        st += step_len
        step += 1
    run.extra["step"] = step0 + int((run.t_inc - run.window) / step_len)
    # background
    for e in engines:
        S.stack.noise(e, run.window, run.t_end)
    if cause is None:
        rl_healthy(S, tr, engines)
    else:
        rl_cause(S, tr, engines, cause)
    kern = pf.kern
    hw = cause in ("gpu_hardware", "ecc_memory", "nvlink", "illegal_memory_access", "host_oom_kill", "network", "data_loader_stall")
    want = []
    if run.VH is not None and rng.random() < (0.85 if hw else 0.3):
        want.append(run.VH)
    for h in rng.sample(run.hosts, min(len(run.hosts), rng.randint(0, 2))):
        if h not in want:
            want.append(h)
    for h in want:
        kern.noise(h, run.window - 3600, run.t_end)
    for path in run.order:
        if path.startswith("dmesg/"):
            hn = path.split("/")[1][:-4]
            run.files[path].collected = any(h.name == hn for h in want)
    run.pf = pf
    return S


def trainer_collapse(S, tr, t_fail, first, first_code, how_first, victims_code=-6, agent_root_rank=True):
    """Trainer job teardown: watchdog aborts on the other ranks, torchrun agents, srun lines.
    first: the worker whose failure started it (may be None: e.g. rank 0 blocked on a dead engine)."""
    run, rng, T = S.run, S.run.rng, S.T
    pf = S.pf
    for h in tr.hosts:
        ws = [w for w in tr.workers if w.host is h]
        mine = first if (first is not None and first.host is h) else None
        t_agent = t_fail + (rng.uniform(1, 5) if mine else rng.uniform(5, 40))
        if mine is not None:
            T.agent(h, t_agent, "W", "multiprocessing/api.py:%d] failed (exitcode: %d) local_rank: %d (pid: %d) of binary: /usr/bin/python3" % (
                rng.choice([874, 900]), first_code, mine.gpu, mine.pid) if T.new else
                "multiprocessing.api: [ERROR] failed (exitcode: %d) local_rank: %d (pid: %d) of binary: /usr/bin/python3" % (first_code, mine.gpu, mine.pid))
        for w in ws:
            if w is mine:
                continue
            if rng.random() < 0.4:
                T.agent(h, t_agent + 0.1, "W", "multiprocessing/api.py:%d] Sending process %d closing signal SIGTERM" % (rng.choice([897, 919]), w.pid) if T.new else
                        "multiprocessing.api: [WARNING] Sending process %d closing signal SIGTERM" % w.pid)
        if mine is not None:
            root = (mine, first_code, t_fail)
            others = [(w, -15, t_agent + 1) for w in ws if w is not mine][:rng.randint(0, 3)]
        else:
            cand = [w for w in ws if w is not run.V] or ws
            vic = cand[rng.randrange(len(cand))]
            root = (vic, victims_code, t_agent - 0.5)
            others = [(w, -15, t_agent + 1) for w in ws if w is not vic][:rng.randint(0, 2)]
        T.child_failed(h, t_agent + 2, [root] + others, root)
        if mine is not None and agent_root_rank:
            f = run.f(pf.agent_path(h))
            for l in f.lines[-12:]:
                if l[2].startswith("  rank      : %d " % mine.grank):
                    l[3] = ("vrank",)
        pf.task_exit(tr, t_agent + 3, tr.hosts.index(h), "1")
    for w in tr.workers:
        if w.silent is None or w.silent > t_fail + 60:
            w.silent = t_fail + 60
    S.router.line(t_fail + rng.uniform(30, 90), "ERROR: actor update failed: ray.exceptions.RayTaskError(ChildFailedError): ray::ActorWorker.update_actor() (pid=%d, ip=%s) torchrun exited with failures on %d node(s); aborting training at step %d" % (
        rng.randint(10000, 90000), tr.hosts[0].ip, len(tr.hosts), run.extra.get("step", 0)))


def rl_watchdog_all(S, tr, t, seq, op, numel, exclude=None, last_done=None):
    rng = S.run.rng
    for w in tr.workers:
        if w is exclude or w.grank not in S.pf.tcollected:
            continue
        S.T.nccl_wd(w, t + rng.uniform(0, 1.5), seq, op, numel, last_done=seq - 1 if last_done is None else last_done)


def rl_cause(S, tr, engines, cause):
    run, rng, T, st, V = S.run, S.run.rng, S.T, S.stack, S.V
    t = run.t_inc
    kern = S.pf.kern
    H = V.host
    trainer = V.inst is tr
    seq = rng.randint(5000, 900000)
    if cause in ("network", "preemption", "unknown"):
        run.rank_rules = []
    if cause == "preemption":
        lt = run.local(tr.hosts[0], t)
        S.pf.line(t, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (S.pf.jobid, tr.hosts[0].name, lt.strftime("%Y-%m-%dT%H:%M:%S")))
        for h in tr.hosts:
            T.agent(h, t + rng.uniform(0.2, 2), "W", "agent/server/api.py:%d] Received Signals.SIGTERM death signal, shutting down workers" % rng.choice([704, 723]) if T.new else
                    "agent.server.api: [WARNING] Received Signals.SIGTERM death signal, shutting down workers")
        for e in engines:
            st.sigterm(e, t + rng.uniform(0, 3), 0)
            e.down = t + 3
        for w in tr.workers:
            w.silent = t
        run.VH = None
        run.notes = "The whole RL job was preempted by Slurm (trainer and rollout nodes SIGTERMed together); no node or rank started it."
        return
    if cause == "unknown":
        h = rng.choice(tr.hosts)
        for w in tr.workers:
            w.silent = t
        S.pf.task_exit(tr, t + rng.uniform(1, 30), tr.hosts.index(h), "1")
        S.router.line(t + rng.uniform(30, 90), "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.")
        run.VH = None
        run.node_rules = []
        run.notes = "The trainer step on one node exited with code 1 and the logs simply stop; no exception, signal or kernel evidence survived."
        return
    if trainer:
        frames = rl_frames(rng, "fwd", T.fw)
        if cause == "gpu_hardware":
            xk = rng.choice(["79", "119"])
            for x in xid_lines(rng, V, xk):
                kern.add(H, t, x, ("xid",) if ("Xid" in x and (": 79" in x or ": 119" in x)) else ())
            T.exc(V, t + rng.uniform(0.3, 3), frames, cuda_exc(rng, "unspecified launch failure", run=run), ("vrank",))
            rl_watchdog_all(S, tr, t + 600, seq, "_ALLGATHER_BASE", rng.choice([262144000, 131072000]), exclude=V)
            trainer_collapse(S, tr, t + 3, V, 1, "exc")
            run.notes = "Xid %s (GPU fault) on %s under trainer rank %d; the other trainer ranks hit the NCCL watchdog and torchrun tore the job down." % (xk, H.name, V.grank)
        elif cause in ("ecc_memory", "nvlink", "illegal_memory_access", "cuda_oom", "python_exception"):
            if cause == "ecc_memory":
                for x in xid_lines(rng, V, "48"):
                    kern.add(H, t, x, ("xid",) if ": 48," in x else ())
                msg = cuda_exc(rng, "uncorrectable ECC error encountered", run=run)
            elif cause == "nvlink":
                for x in xid_lines(rng, V, "74"):
                    kern.add(H, t, x, ("xid",) if ": 74," in x else ())
                msg = cuda_exc(rng, "uncorrectable NVLink error detected during the execution", run=run)
            elif cause == "illegal_memory_access":
                for x in xid_lines(rng, V, rng.choice(["31", "13"])):
                    kern.add(H, t - 0.001, x, ("xid",) if "Xid" in x else ())
                msg = cuda_exc(rng, "an illegal memory access was encountered", run=run)
            elif cause == "cuda_oom":
                msg = oom_text(rng, V.gpu, T.new)
            else:
                kind = rng.choice(["reward", "fwd"])
                frames = rl_frames(rng, kind, T.fw)
                msg = rng.choice(["ValueError: could not convert string to float: '\\\\frac{3}{4}'",
                                  "KeyError: 'ground_truth'", "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:%d and cpu!" % V.gpu]) if kind == "reward" else \
                    "AssertionError: micro batch has %d sequences but expected %d" % (rng.randint(1, 7), 8)
            T.exc(V, t, frames, msg, ("vrank",))
            rl_watchdog_all(S, tr, t + 600, seq, rng.choice(["_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE", "ALLREDUCE"]), rng.choice([262144000, 131072000, 1]), exclude=V)
            trainer_collapse(S, tr, t + 1, V, 1, "exc")
            run.notes = "Trainer rank %d on %s failed first (%s); the rest of the trainer hit the NCCL watchdog and every torchrun agent reported its own rank." % (
                V.grank, H.name, msg.split("\n")[0][:90])
        elif cause == "host_oom_kill":
            kern.add(H, t - 0.01, "pt_main_thread invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0", ("khost",))
            rss = rng.randint(200, 700) * 1048576
            kern.add(H, t, "Out of memory: Killed process %d (pt_main_thread) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:0 pgtables:%dkB oom_score_adj:0" % (
                V.pid, rss * 2, rss, rng.randint(100000, 900000), rng.randint(1000000, 9000000), rng.randint(100000, 900000)), ("khost", "vpid"))
            S.pf.line(t + 5, "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % S.pf.jobid)
            V.silent = t
            rl_watchdog_all(S, tr, t + 600, seq, "_ALLGATHER_BASE", 262144000, exclude=V)
            trainer_collapse(S, tr, t + 0.5, V, -9, "killed")
            run.notes = "Host RAM on %s exhausted (CPU offload / pinned buffers); the OOM killer SIGKILLed trainer rank %d (pid %d)." % (H.name, V.grank, V.pid)
        elif cause == "crash_signal":
            lines = ["Fatal Python error: Segmentation fault", "", "Thread 0x%016x (most recent call first):" % rng.randint(0x7f0000000000, 0x7fffffffffff),
                     '  File "/usr/local/lib/python3.12/dist-packages/torch/distributed/fsdp/_flat_param.py", line %d in _use_unsharded_views' % rng.randint(1800, 2000),
                     '  File "/workspace/rl/weight_sync/nccl_broadcast.py", line %d in pack_bucket' % rng.randint(60, 200), ""]
            for i, x in enumerate(lines):
                T.add(V, t, x, ("vown",) if i == 0 else ())
            V.silent = t
            rl_watchdog_all(S, tr, t + 600, seq, "_ALLGATHER_BASE", 262144000, exclude=V)
            trainer_collapse(S, tr, t + 0.2, V, -11, "signal")
            run.notes = "Trainer rank %d on %s died with SIGSEGV while packing a weight-sync bucket; no GPU/kernel errors." % (V.grank, H.name)
        elif cause == "hang":
            V.silent = t
            op = rng.choice(["_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE"])
            rl_watchdog_all(S, tr, t + 600, seq, op, 262144000, exclude=V)
            if rng.random() < 0.4:
                T.c10d(V, t + 480, "[PG ID 0 PG GUID 0(default_pg) Rank %d] ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued collectives." % V.grank, ("vrank",), sev="F")
            if rng.random() < 0.7:
                lines = fr_trace_lines(run, "trainer", tr.size, seq, op, 262144000, missing=V.grank)
                write_side_file(S, "fr_trace-trainer.txt", lines, {i: ("vrank",) for i, x in enumerate(lines) if x.startswith("missing ranks")})
            trainer_collapse(S, tr, t + 601, None, -6, "silent")
            run.notes = "Trainer rank %d (%s) stopped making progress; everyone else waited in SeqNum %d until the NCCL watchdog fired; agents blamed their own ranks." % (V.grank, H.name, seq)
        elif cause == "data_loader_stall":
            fs = rng.choice(["nfs-data-01", "10.%d.0.9" % rng.randint(1, 200)])
            kern.add(H, t + 30, "nfs: server %s not responding, still trying" % fs, ("khost",))
            V.silent = t + 700
            lt = 600
            lines = ["Timeout (0:%02d:00)!" % (lt // 60), "Thread 0x%016x (most recent call first):" % rng.randint(0x7f0000000000, 0x7fffffffffff),
                     '  File "/usr/local/lib/python3.12/dist-packages/pyarrow/parquet/core.py", line %d in read_row_group' % rng.randint(400, 700),
                     '  File "/usr/local/lib/python3.12/dist-packages/datasets/packaged_modules/parquet/parquet.py", line %d in _generate_tables' % rng.randint(80, 110),
                     '  File "/usr/local/lib/python3.12/dist-packages/torch/utils/data/dataloader.py", line %d in __next__' % rng.randint(700, 740),
                     '  File "/workspace/rl/trainer/rl_trainer.py", line %d in fit' % rng.randint(300, 700)]
            for i, x in enumerate(lines):
                T.add(V, t + lt, x, ("vown",) if i in (0, 4) else ())
            rl_watchdog_all(S, tr, t + 600, seq, "_ALLGATHER_BASE", 262144000, exclude=V)
            trainer_collapse(S, tr, t + 601, None, -6, "silent")
            run.notes = "Trainer rank %d on %s blocked reading prompt parquet files from %s (NFS not responding); the others hit the collective timeout." % (V.grank, H.name, fs)
        elif cause == "collective_mismatch":
            rl_watchdog_all(S, tr, t + 600, seq, "_REDUCE_SCATTER_BASE", 262144000, exclude=V)
            T.nccl_wd(V, t + 600 + rng.uniform(0, 1), seq, "ALLREDUCE", 1, ("vrank",), last_done=seq - 1)
            if rng.random() < 0.6:
                lines = fr_trace_lines(run, "trainer", tr.size, seq, "_REDUCE_SCATTER_BASE", 262144000, culprit=V.grank, mismatch="type")
                write_side_file(S, "fr_trace-trainer.txt", lines, {i: ("vrank",) for i, x in enumerate(lines) if x.startswith("error msg")})
            trainer_collapse(S, tr, t + 601, None, -6, "silent")
            run.notes = "Trainer rank %d entered an extra ALLREDUCE (uneven last micro-batch) while the others ran _REDUCE_SCATTER_BASE at SeqNum %d." % (V.grank, seq)
        elif cause == "straggler":
            dl = dcgm_lines(run, H, V, "NVIDIA H100 80GB HBM3")
            lines = ["# scraped from dcgm-exporter on %s:9400" % H.name] + [x for x, _ in dl]
            write_side_file(S, "dcgm-%s.prom" % H.name, lines, {i + 1: ("xid", "khost") for i, (x, s) in enumerate(dl) if s})
            S.router.line(t + rng.uniform(300, 600), "WARNING: step time regressed %.1fx over the last 10 steps (timing_s/update_actor)" % rng.uniform(1.6, 2.4))
            run.notes = "Trainer rank %d on %s ran ~2x slower (GPU clock throttled, HW slowdown); every step waited on it. No crash." % (V.grank, H.name)
        elif cause == "network":
            nic = V.nic
            kern.add(H, t, "mlx5_core 0000:%s:00.0 %s: Link down" % (nic[1], nic_ifname(nic)), ("khost",))
            other = [h for h in tr.hosts if h is not H][0]
            for w in [x for x in tr.workers if x.host is H][:2]:
                T.add(w, t + rng.uniform(1, 10), "%s:%d:%d [%d] transport/net_ib.cc:%d NCCL WARN NET/IB: Got completion from peer %s<%d> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_RDMA_WRITE(1) vendor_err=129 localGid ::ffff:%s remoteGids ::ffff:%s hca %s" % (
                    H.name.split(".")[0], w.pid, w.pid + 300, w.gpu, rng.choice([2093, 2140]), other.ip, rng.randint(30000, 60000), H.ip, other.ip, nic[0]), ("vown",))
            for w in tr.workers:
                if w.host is not H and w.grank in S.pf.tcollected:
                    T.c10d(w, t + rng.uniform(15, 40), "[PG ID 0 PG GUID 0(default_pg) Rank %d] Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version %s" % (w.grank, T.nccl_ver))
            trainer_collapse(S, tr, t + 20, None, -6, "silent")
            run.notes = "HCA %s on trainer node %s lost link; cross-node FSDP collectives failed with IB retry-exceeded and the job died." % (nic[0], H.name)
        return
    # ---------------- rollout-side initiator ----------------
    eng = V.inst
    if cause == "network":
        nic = V.nic
        kern.add(H, t, "mlx5_core 0000:%s:00.0 %s: Link down" % (nic[1], nic_ifname(nic)), ("khost",))
        r0 = tr.workers[0]
        T.add(r0, t + rng.uniform(2, 20), "%s:%d:%d [0] transport/net_ib.cc:%d NCCL WARN NET/IB: Got completion from peer %s<%d> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_RDMA_WRITE(1) vendor_err=129 localGid ::ffff:%s remoteGids ::ffff:%s hca mlx5_0" % (
            r0.host.name.split(".")[0], r0.pid, r0.pid + 300, rng.choice([2093, 2140]), H.ip, rng.randint(30000, 60000), r0.host.ip, H.ip))
        for w in [x for x in eng.workers][:2]:
            st.wraw(w, t + rng.uniform(1, 10), "%s:%d:%d [%d] transport/net_ib.cc:%d NCCL WARN NET/IB: Got completion from peer %s<%d> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_RECV(128) vendor_err=129 hca %s" % (
                H.name.split(".")[0], w.pid, w.pid + 300, w.gpu, rng.choice([2093, 2140]), r0.host.ip, rng.randint(30000, 60000), nic[0]), ("vown",))
        T.c10d(r0, t + rng.uniform(20, 40), "[PG ID 3 PG GUID 7(weight_update) Rank 0] Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version %s" % T.nccl_ver)
        trainer_collapse(S, tr, t + 30, None, -6, "silent")
        run.notes = "Rollout node %s lost its IB link (%s) during the trainer->rollout weight broadcast; the broadcast failed and the job died." % (H.name, nic[0])
        return
    if cause == "collective_mismatch":
        grp = V.grank - (tr.size - 1)
        r0 = tr.workers[0]
        T.nccl_wd(r0, t + 600, seq, "BROADCAST", 58720256, pg="[PG ID 3 PG GUID 7(weight_update) Rank 0]", last_done=seq - 1)
        st.nccl_wd(V, t + 600 + rng.uniform(0, 2), seq, "BROADCAST", 58720256 + rng.choice([4096 * 128, 7168 * 64]), ("vown",), last_done=seq - 1)
        for w in eng.workers:
            if w is not V:
                st.nccl_wd(w, t + 600 + rng.uniform(0, 2), seq, "BROADCAST", 58720256, last_done=seq - 1)
        if rng.random() < 0.7:
            lines = fr_trace_lines(run, "weight_update", len(run.workers) - tr.size + 1, seq, "BROADCAST", 58720256, culprit=grp, mismatch="size",
                                   group="3:weight_update")
            write_side_file(S, "fr_trace-weight_update.txt", lines, {i: ("vref",) for i, x in enumerate(lines) if x.startswith("error msg")})
        S.router.line(t + 620, "RuntimeError: update_weights_from_distributed timed out on %s" % eng.url)
        trainer_collapse(S, tr, t + 601, None, -6, "silent")
        run.notes = "Rollout worker %d (%s, weight-update group rank %d) expected a different bucket size than the trainer broadcast (engine launched with a different config); the broadcast deadlocked." % (
            V.grank, eng.name, grp)
        return
    # rollout worker dies -> weight broadcast from trainer rank 0 stalls
    if cause == "gpu_hardware":
        cause_gpu(S, "gpu")
    elif cause == "ecc_memory":
        cause_gpu(S, "ecc")
    elif cause == "nvlink":
        cause_gpu(S, "nvlink")
    elif cause == "illegal_memory_access":
        cause_gpu(S, "ima")
    elif cause == "cuda_oom":
        cause_oom(S)
    elif cause == "python_exception":
        msg = "ValueError: Unexpected weight name %s when loading weights from distributed (have %d params)" % (
            rng.choice(["model.layers.%d.mlp.experts.w13_weight_scale_inv" % rng.randint(0, 60), "lm_head.weight_scale", "model.layers.%d.self_attn.q_b_proj.weight_scale" % rng.randint(0, 60)]), rng.randint(700, 2000))
        st.exc(V, t, sgl_frames(rng, st.root, "weights", "rollout") if st.name == "sglang" else vllm_frames(rng, st.root, "weights"), msg, ("vown",))
        cascade_death(S, V, t + 0.3, "exc", msg)
        run.notes = "Rollout %s raised while loading a synced weight; the engine died and the trainer's weight broadcast stalled." % wdesc(V)
    elif cause == "host_oom_kill":
        cause_host_oom(S)
    elif cause == "crash_signal":
        cause_crash(S)
    run.notes = run.notes.replace("the %s instance %s collapsed and the KV-transfer peers and router saw the fallout" % (eng.role, eng.name),
                                  "rollout %s died" % eng.name).replace("the router returned 5xx", "the rollout engine went down").replace(
        "the router shed/failed requests", "the rollout engine went down").replace("peers and router saw collateral errors", "the rollout engine went down")
    r0 = tr.workers[0]
    tb = t + rng.uniform(30, 200)
    T.log(r0, tb - 1, "sync_weights_to_rollout: broadcasting %d buckets to %d rollout workers" % (rng.randint(20, 200), len(run.workers) - tr.size))
    T.nccl_wd(r0, tb + 600, seq, "BROADCAST", rng.choice([58720256, 117440512]), pg="[PG ID 3 PG GUID 7(weight_update) Rank 0]", last_done=seq - 1)
    rl_watchdog_all(S, tr, tb + 600 + rng.uniform(1, 5), rng.randint(5000, 900000), "ALLREDUCE", 1, exclude=r0)
    S.router.health_fail(t + rng.uniform(5, 60), eng)
    trainer_collapse(S, tr, tb + 601, None, -6, "silent")
    run.notes = (run.notes or "") + " The trainer then blocked in the weight-update BROADCAST and every torchrun agent reported a watchdog abort (collateral)."


def rl_healthy(S, tr, engines):
    run, rng, T, st = S.run, S.run.rng, S.T, S.stack
    t = run.t_inc
    v = run.extra["hv"]
    if v == "restarted":
        w = rng.choice([x for x in tr.workers if x.grank in S.pf.tcollected])
        tf = run.extra["t_fail0"]
        T.exc(w, tf, rl_frames(rng, "fwd", T.fw), oom_text(rng, w.gpu, T.new))
        for h in tr.hosts:
            T.agent(h, tf + 5, "I", "agent/server/api.py:%d] [default] Worker group FAILED. 3/3 attempts left; will restart worker group" % rng.choice([725, 891]) if T.new else
                    "agent.server.api: [INFO] [default] Worker group FAILED. 3/3 attempts left; will restart worker group")
        for x in tr.workers:
            if x.grank in S.pf.tcollected:
                T.log(x, tf + 100, "Resuming from checkpoint global_step_%d (attempt 1)" % (run.extra["step"] - 5), attempt=1)
                T.log(x, tf + 200, "step %d fwd_bwd %.0fms data %.0fms optim %.0fms" % (run.extra["step"] - 4, rng.uniform(380, 520), rng.uniform(2, 30), rng.uniform(30, 90)), attempt=1)
        S.router.line(run.t_end - 5, "Training finished: reached total_training_steps; final checkpoint saved to /ckpt/%s/global_step_%d" % (S.pf.run_id, run.extra["step"] + 3))
        run.notes = "One trainer rank hit CUDA OOM in attempt 0; torchrun restarted the worker group from the last checkpoint and the run finished cleanly (healthy)."
    elif v == "sleepwake":
        for e in engines[:3]:
            for k in range(rng.randint(2, 5)):
                tt = t + k * rng.uniform(120, 400)
                if st.name == "vllm":
                    st.elog(e, 0, tt, "It took %.6f seconds to fall asleep." % rng.uniform(0.5, 4), src=("gpu_worker.py", 117))
                    st.wlog(e.workers[0], tt, "Sleep mode freed %.2f GiB memory, %.2f GiB memory is still in use." % (rng.uniform(40, 70), rng.uniform(1, 4)), src=("gpu_worker.py", 104))
                else:
                    st.mlog(e, 0, tt, "release_memory_occupation: released KV cache and weights (tags=['kv_cache', 'weights'])")
                    st.mlog(e, 0, tt + 60, "resume_memory_occupation: restored (tags=['weights', 'kv_cache'])")
        S.router.line(run.t_end - 5, "Training finished: reached total_training_steps; final checkpoint saved to /ckpt/%s/global_step_%d" % (S.pf.run_id, run.extra["step"] + 3))
        run.notes = "Rollout engines released and resumed GPU memory around each weight sync (expected in colocated/sleep mode). Nothing failed."
    elif v == "retry503":
        for k in range(rng.randint(1, 4)):
            S.router.shed(t + k * rng.uniform(60, 300), rng.randint(2, 60))
        S.router.line(t + rng.uniform(100, 400), "WARNING: update_weights_from_distributed on %s returned HTTP 503 (engine busy flushing cache); retry 1/5 succeeded" % rng.choice(engines).url)
        run.notes = "Transient HTTP 503s from busy rollout engines during weight sync were retried successfully; training continued."
    else:
        for e in engines[:2]:
            w = e.workers[0]
            st.wraw(w, t + rng.uniform(0, 600), "%s:%d:%d [%d] NCCL INFO NET/IB : Got async event : GID table change" % (w.host.name.split(".")[0], w.pid, w.pid + 9, w.gpu))
        for w in tr.workers:
            if w.grank in S.pf.tcollected and rng.random() < 0.5:
                T.add(w, run.window + rng.uniform(0, 100), "/usr/local/lib/python3.12/dist-packages/torch/distributed/fsdp/_state_dict_utils.py:827: UserWarning: When using ``NO_SHARD`` for ``ShardingStrategy``, full_state_dict will be returned.")
                T.c10d(w, t + rng.uniform(0, 300), "[PG ID 0 PG GUID 0(default_pg) Rank %d] ProcessGroupNCCL created ncclComm_ 0x%s on CUDA device: %d" % (w.grank, hexid(rng, 12), w.gpu), sev="W", src="ProcessGroupNCCL.cpp:%d" % rng.choice([1001, 4461]))
        run.notes = "Healthy RL run with benign NCCL/torch warnings only."


# ----------------------------------------------------------------------------
# paste composition (issue-style single file)
# ----------------------------------------------------------------------------

def excerpt(run, lines, budget):
    """Pick windows around tagged lines plus a little context; return list of line records and '...' markers."""
    rng = run.rng
    n = len(lines)
    if n == 0:
        return []
    keep = [False] * n
    keyi = [i for i, l in enumerate(lines) if l[3]]
    for i in keyi:
        a = max(0, i - rng.randint(2, 8))
        b = min(n, i + rng.randint(3, 14))
        for j in range(a, b):
            keep[j] = True
    if not keyi or rng.random() < 0.5:
        s = rng.randrange(n)
        for j in range(s, min(n, s + rng.randint(5, 20))):
            keep[j] = True
    for j in range(max(0, n - rng.randint(3, 12)), n):
        keep[j] = True
    out = []
    gap = False
    for i, l in enumerate(lines):
        if keep[i]:
            if gap and out:
                out.append(None)
            out.append(l)
            gap = False
        else:
            gap = True
    # budget
    while len(out) > budget:
        idx = [k for k, l in enumerate(out) if l is not None and not l[3]]
        if not idx:
            break
        del out[idx[rng.randrange(len(idx))]]
    return out


def compose_paste(run, S):
    rng = run.rng
    st = S.stack
    V = run.V
    out = []   # (text, tags, host, via)
    eng = "SGLang %s" % st.version if st.name == "sglang" else "vLLM %s" % st.version
    tr = st.transfer if st.transfer != "lmcache" else "LMCache+NIXL"
    titles = ["[Bug] PD disaggregation: requests start failing after a while (%s, %s)" % (eng, tr),
              "Decode instance dies under load with %s, router returns 5xx" % tr,
              "KV transfer failures between prefill and decode on multi-node (%s)" % eng,
              "prefill/decode disagg: sudden 500s + workers restarting, need help finding root cause"]
    out.append((rng.choice(titles), (), None, None))
    out.append(("", (), None, None))
    out.append(("### Describe the bug", (), None, None))
    P = [i for i in run.instances if i.role == "prefill"]
    D = [i for i in run.instances if i.role == "decode"]
    desc = "We run %dP%dD on %d nodes (%d GPUs total): prefill %s%d, decode %s%d, %s transfer backend, %s in front." % (
        len(P), len(D), len(run.hosts), len(run.workers), "DP-attention TP" if P[0].dp_attn else ("DP" if P[0].kind == "dp" else "TP"), P[0].size,
        "DP-attention TP" if D[0].dp_attn else ("DP" if D[0].kind == "dp" else "TP"),
        D[0].size, tr, "sgl-router" if isinstance(S.router, SGLRouter) else "llm-d gateway")
    out.append((desc, (), None, None))
    if run.healthy:
        out.append(("Not sure if this is a real problem: we saw the lines below in the logs and want to know whether they are harmful.", (), None, None))
    else:
        out.append(("After running fine for a while, requests started failing. Logs below (trimmed).", (), None, None))
    show_map = rng.random() < 0.55
    hostlabels = rng.random() < 0.7
    if show_map:
        parts = []
        tags = ()
        for inst in run.instances:
            parts.append("%s = ranks %s on %s" % (inst.name, rng_range_str(inst.workers[0].grank, inst.workers[-1].grank), "+".join(h.name for h in inst.hosts[:3]) + ("+..." if len(inst.hosts) > 3 else "")))
            if V is not None and (V.inst is inst) and inst.hosts.index(V.host) < 3:
                tags = ("map",)
        out.append(("Our global rank numbering (prefill first, then decode): " + "; ".join(parts[:8]) + ("; ..." if len(parts) > 8 else ""), tags, None, None))
    out.append(("", (), None, None))
    # pick raw files
    raw = [p for p in run.order if p.startswith("raw/") and run.files[p].collected]
    lognames = {}
    for inst in run.instances:
        for nr in range(len(inst.hosts)):
            lognames["raw/%s-node%d.log" % (inst.name, nr)] = (inst, nr)
    logs = [p for p in raw if p in lognames]
    vfile = None
    if V is not None:
        vfile = "raw/%s-node%d.log" % (V.inst.name, V.inst.node_rank(V))
    chosen = []
    if vfile in logs and (run.healthy or rng.random() < 0.9):
        chosen.append(vfile)
    rng.shuffle(logs)
    for p in logs:
        if p not in chosen and len(chosen) < 3:
            chosen.append(p)
    router = [p for p in raw if p == "raw/router.log" or p.startswith("pods/")]
    router = [p for p in run.order if (p == "raw/router.log" or (p.startswith("pods/") and "-epp-" in p)) and run.files[p].collected]
    side = [p for p in raw if p not in lognames and p != "raw/router.log"]
    for p in chosen:
        inst, nr = lognames[p]
        h = inst.hosts[nr]
        lab = "%s node %s" % (inst.name, "(%s)" % h.name if hostlabels else nr)
        out.append(("%s log:" % lab, (), None, None))
        out.append(("```", (), None, None))
        for l in excerpt(run, run.files[p].ordered(), rng.randint(40, 140)):
            if l is None:
                out.append(("...", (), None, None))
            else:
                out.append((l[2], l[3], h, "name" if hostlabels else None))
        out.append(("```", (), None, None))
    for p in router[:1]:
        out.append(("router:", (), None, None))
        out.append(("```", (), None, None))
        for l in excerpt(run, run.files[p].ordered(), rng.randint(15, 50)):
            out.append(("..." if l is None else l[2], () if l is None else l[3], None, None))
        out.append(("```", (), None, None))
    for p in run.order:
        if p.startswith("dmesg/") and run.files[p].collected:
            hn = p.split("/")[1][:-4]
            h = [x for x in run.hosts if x.name == hn][0]
            lab = rng.random() < 0.75
            out.append(("dmesg%s:" % (" on %s" % hn if lab else ""), (), None, None))
            out.append(("```", (), None, None))
            for l in excerpt(run, run.files[p].ordered(), rng.randint(8, 30)):
                out.append(("..." if l is None else l[2], () if l is None else l[3], h if lab else None, "name" if lab else None))
            out.append(("```", (), None, None))
    for p in side:
        lines = run.files[p].ordered()
        host = None
        for h in run.hosts:
            if h.name.split(".")[0] in p:
                host = h
        out.append(("%s:" % p[4:], (), None, None))
        out.append(("```", (), None, None))
        for l in lines[:60]:
            out.append((l[2], l[3], host, "name" if host else None))
        out.append(("```", (), None, None))
    out.append(("", (), None, None))
    out.append(("### Environment", (), None, None))
    out.append(("%s, torch %s, NCCL %s, driver %s, CUDA %s, %s" % (
        eng, rng.choice(["2.7.1", "2.8.0", "2.9.1"]), st.nccl_ver, rng.choice(["550.90.07", "570.133.20", "575.57.08", "580.65.06"]),
        rng.choice(["12.8", "12.9", "13.0"]), rng.choice(["8x H100 80GB per node", "8x H200 per node", "8x H20 per node"])), (), None, None))
    return out


# ----------------------------------------------------------------------------
# writing, trimming, truth
# ----------------------------------------------------------------------------

def trim(run, lines, max_lines):
    n = len(lines)
    if n <= max_lines:
        return lines
    prot = [False] * n
    for i, l in enumerate(lines):
        if l[3]:
            for j in range(max(0, i - 3), min(n, i + 4)):
                prot[j] = True
    for i in range(min(40, n)):
        prot[i] = True
    for i in range(max(0, n - 80), n):
        prot[i] = True
    runs = []
    i = 0
    while i < n:
        if not prot[i]:
            j = i
            while j < n and not prot[j]:
                j += 1
            if j - i >= 6:
                runs.append((i, j))
            i = j
        else:
            i += 1
    excess = n - max_lines
    cuts = []
    for (a, b) in sorted(runs, key=lambda r: (-(r[1] - r[0]), r[0])):
        if excess <= 0:
            break
        L = b - a
        k = min(L - 2, excess + 1)
        if k < 4:
            continue
        s = a + 1 + run.rng.randint(0, max(0, L - 2 - k))
        cuts.append((s, s + k))
        excess -= k - 1
    cuts.sort()
    out = []
    ci = 0
    i = 0
    while i < n:
        if ci < len(cuts) and i == cuts[ci][0]:
            a, b = cuts[ci]
            out.append([lines[a][0], 0, run.mark(b - a + run.rng.randint(0, 40) * 10), ()])
            i = b
            ci += 1
        else:
            out.append(lines[i])
            i += 1
    return out


def gap_markers(run, path, lines):
    """A continuous log with a long silent stretch was cut by the collector: say so."""
    if not (path.startswith("logs/") or path.startswith("pods/") or path.startswith("rollout/") or path.startswith("raw/")
            or path.startswith("trainer/") or path == "driver.log") or path.endswith("torchrun-agent.log"):
        return lines
    out = []
    prev = None
    for l in lines:
        if prev is not None and l[0] - prev > 900 and (run.window is None or l[0] >= run.window - 5):
            out.append([l[0] - 0.001, 0, run.mark(run.rng.randint(200, 40000)), ()])
        out.append(l)
        prev = l[0]
    return out


def host_index(run):
    idx = {}
    for inst in run.instances:
        for nr, h in enumerate(inst.hosts):
            idx["logs/%s-node%d-%s.log" % (inst.name, nr, h.name)] = (h, "name")
            idx["rollout/%s-%s.log" % (inst.name, h.name)] = (h, "name")
            if inst.pods:
                idx["pods/%s.log" % inst.pods[nr]] = (h, "pod")
                idx["pods/%s.previous.log" % inst.pods[nr]] = (h, "pod")
                idx["describe/%s.txt" % inst.pods[nr]] = (h, "pod")
    for h in run.hosts:
        for pat in ["dmesg/%s.txt", "nodes/%s-kernel.log", "nodes/%s-dcgm.prom", "dcgm/%s.prom", "dcgm-%s.prom"]:
            idx[pat % h.name] = (h, "name")
    if run.V is not None:
        idx["py-spy-%s-%d.txt" % (run.V.host.name.split(".")[0], run.V.pid)] = (run.V.host, "name")
    return idx


HOSTBOUND = ("vown", "vpid", "xid", "khost", "vrank", "vnode")


def compute_truth(run, survivors):
    S = set()
    for tags, h, via in survivors:
        for x in tags:
            S.add(x)
    rank = None
    node = None
    if run.V is not None and any(all(x in S for x in rule) for rule in run.rank_rules):
        rank = run.V.grank
    if run.VH is not None and (run.node_rules or run.rank_rules or run.cause in ("network", "preemption")):
        ok = any(all(x in S for x in rule) for rule in run.node_rules)
        if not ok:
            for tags, h, via in survivors:
                if h is run.VH and any(x in HOSTBOUND for x in tags) and (via == "name" or (via == "pod" and "podnode" in S)):
                    ok = True
                    break
        if ok:
            node = run.VH.name
    return rank, node


def write_run(run, S, outdir):
    rng = run.rng
    idx = host_index(run)
    written = {}
    survivors = []
    if run.layout == "paste":
        items = compose_paste(run, S)
        text = "\n".join(x[0] for x in items) + "\n"
        written["paste.txt"] = text
        for (txt, tags, h, via) in items:
            if tags:
                survivors.append((tags, h, via))
    else:
        budget = 1400
        while True:
            written = {}
            survivors = []
            for path in run.order:
                fb = run.files[path]
                if not fb.collected or not fb.lines:
                    continue
                lines = fb.ordered()
                if fb.sort:
                    lines = gap_markers(run, path, lines)
                lines = trim(run, lines, budget)
                written[path] = "\n".join(l[2] for l in lines) + "\n"
                h, via = idx.get(path, (None, None))
                if path.startswith("trainer/"):
                    hn = path.split("/")[1]
                    for x in run.hosts:
                        if x.name == hn:
                            h, via = x, "name"
                for l in lines:
                    if l[3]:
                        survivors.append((l[3], h, via))
            total = sum(len(v) for v in written.values())
            if total < 900000 or budget < 150:
                break
            budget = int(budget * 0.6)
    rank, node = compute_truth(run, survivors)
    os.makedirs(outdir, exist_ok=True)
    for path in sorted(written):
        full = os.path.join(outdir, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(written[path])
    if run.healthy:
        init = None
    else:
        init = {"rank": rank, "node": node}
    truth = {"healthy": run.healthy, "cause": None if run.healthy else run.cause, "initiator": init,
             "layout": run.layout, "notes": run.notes}
    with open(os.path.join(outdir, "truth.json"), "w") as f:
        json.dump(truth, f, indent=2)
        f.write("\n")
    return truth


# ----------------------------------------------------------------------------
# main
# ----------------------------------------------------------------------------

def gen_one(seed, i, cause, healthy, layout, outroot):
    rng = random.Random("blind63:%s:%d" % (seed, i))
    run = Run(rng, i, layout, cause, healthy)
    if layout.startswith("k8s"):
        run.tz = 0
    if layout == "torchrun-rl-sync":
        S = gen_rl(run)
    else:
        S = gen_serving(run)
    if not run.notes:
        run.notes = "Healthy run." if healthy else cause
    return write_run(run, S, os.path.join(outroot, "run-%03d-%s" % (i, layout)))


def main(argv=None):
    ap = argparse.ArgumentParser(description="blind63: disaggregated serving and KV-cache transfer log bundles")
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args(argv)
    master = random.Random("blind63:%s" % a.seed)
    order = CAUSES[:]
    master.shuffle(order)
    lays = LAYOUTS[:]
    master.shuffle(lays)
    if os.path.isdir(a.out):
        for name in sorted(os.listdir(a.out)):
            if name.startswith("run-"):
                shutil.rmtree(os.path.join(a.out, name))
    os.makedirs(a.out, exist_ok=True)
    counts = {"healthy": 0}
    for c in CAUSES:
        counts[c] = 0
    lcounts = {}
    k = 0
    for i in range(a.n):
        healthy = (i % 7 == 3)
        if healthy:
            cause = None
            counts["healthy"] += 1
        else:
            cause = order[k % len(order)]
            k += 1
            counts[cause] += 1
        layout = lays[(i + (i // len(lays))) % len(lays)]
        lcounts[layout] = lcounts.get(layout, 0) + 1
        gen_one(a.seed, i, cause, healthy, layout, a.out)
    counts["_layouts"] = lcounts
    print(json.dumps(counts, indent=1))


if __name__ == "__main__":
    main()
