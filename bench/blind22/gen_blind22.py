#!/usr/bin/env python3
"""gen_blind22.py - synthetic log bundles of failed (and healthy) multi-GPU /
multi-node INFERENCE SERVING and batch-inference jobs, each with a truth.json.

Stacks: vLLM (V0 / V1, multiprocessing and Ray executors), SGLang multi-node,
TensorRT-LLM (trtllm-serve under Slurm / mpirun), Triton Inference Server with
the TensorRT-LLM backend, NVIDIA Dynamo disaggregated prefill/decode (NIXL/UCX)
and offline batch inference with Ray Data + vLLM.

Standard library only.  Deterministic for a given --seed (string-seeded
random.Random, no set/hash ordering in any output).

    python3 gen_blind22.py --out DIR --n 60 --seed S
"""
import argparse
import datetime as dt
import json
import os
import random
import shutil

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill",
          "crash_signal", "preemption", "hang", "data_loader_stall",
          "collective_mismatch", "straggler", "unknown"]
LAYOUTS = ["vllm-mp", "vllm-ray-k8s", "sglang-multinode", "trtllm-slurm",
           "triton-trtllm", "dynamo-disagg", "raydata-batch"]
DRAIN_CAUSES = ("gpu_hardware", "ecc_memory", "nvlink", "network")
UTC = dt.timezone.utc
MAX_RUN_BYTES = 1_000_000   # hard cap per run folder (bytes)

# ----------------------------------------------------------------------------
# hardware catalogue
# ----------------------------------------------------------------------------
BUS8_H = ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"]
BUS8_A = ["07", "0f", "47", "4e", "87", "90", "b7", "bd"]
GPUS = {
    "H100": dict(name="NVIDIA H100 80GB HBM3", mib=81559, gib=79.19, cap=700,
                 bus=BUS8_H, links=18, n=8),
    "H200": dict(name="NVIDIA H200", mib=143771, gib=139.81, cap=700,
                 bus=BUS8_H, links=18, n=8),
    "A100": dict(name="NVIDIA A100-SXM4-80GB", mib=81920, gib=79.15, cap=400,
                 bus=BUS8_A, links=12, n=8),
    "GB200": dict(name="NVIDIA GB200", mib=189471, gib=184.03, cap=1200,
                  bus=["0008:01", "0009:01", "0018:01", "0019:01"], links=18, n=4),
}
DRIVERS = [("535.183.06", "12.2"), ("550.127.08", "12.4"), ("560.35.03", "12.6"),
           ("570.133.20", "12.8"), ("575.57.08", "12.9")]
MODELS = [
    ("meta-llama/Llama-3.3-70B-Instruct", "LlamaForCausalLM", 30, 131.5),
    ("meta-llama/Llama-3.1-405B-Instruct-FP8", "LlamaForCausalLM", 109, 410.0),
    ("Qwen/Qwen3-235B-A22B-Instruct-2507", "Qwen3MoeForCausalLM", 118, 438.0),
    ("deepseek-ai/DeepSeek-R1-0528", "DeepseekV3ForCausalLM", 163, 642.0),
    ("Qwen/Qwen2.5-72B-Instruct", "Qwen2ForCausalLM", 37, 135.4),
    ("mistralai/Mixtral-8x22B-Instruct-v0.1", "MixtralForCausalLM", 59, 262.0),
    ("meta-llama/Llama-3.1-8B-Instruct", "LlamaForCausalLM", 4, 16.1),
    ("Qwen/Qwen2.5-7B-Instruct", "Qwen2ForCausalLM", 4, 15.2),
    ("Qwen/Qwen3-32B", "Qwen3ForCausalLM", 17, 65.5),
    ("google/gemma-3-27b-it", "Gemma3ForConditionalGeneration", 12, 54.8),
    ("nvidia/Llama-3.1-Nemotron-70B-Instruct-HF", "LlamaForCausalLM", 30, 131.5),
]
PY_EXC = [
    ["Traceback-tail", "IndexError: index 151936 is out of bounds for dimension 0 with size 151936"],
    ["Traceback-tail", "KeyError: 'cmpl-7c1f0e2b9a4d4e0c8f1a2b3c4d5e6f70-0'"],
    ["Traceback-tail", "AssertionError: Expected num_tokens 8192 to be divisible by tp_size 8"],
    ["Traceback-tail", "RuntimeError: shape '[-1, 64, 128]' is invalid for input of size 983040"],
    ["Traceback-tail", "FileNotFoundError: [Errno 2] No such file or directory: '/root/.cache/vllm/torch_compile_cache/3f2a9c1e7b/rank_{r}_0/inductor_cache/fxgraph/ab/fab12c9e0d3.py'"],
    ["Traceback-tail", "TypeError: 'NoneType' object is not subscriptable"],
    ["Traceback-tail", "ValueError: LoRA rank 128 is greater than max_lora_rank 64."],
    ["Traceback-tail", "OSError: [Errno 5] Input/output error: '/mnt/lora-adapters/cust-4471/adapter_model.safetensors'"],
]


def cuda_err(msg):
    return ["RuntimeError: CUDA error: " + msg,
            "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
            "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
            "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
            ""]


# ----------------------------------------------------------------------------
# small helpers
# ----------------------------------------------------------------------------
def hexid(rng, n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def D(t):
    return dt.datetime.fromtimestamp(t, UTC).replace(tzinfo=None)


def f_ctime(d):
    return d.strftime("%a %b ") + ("%2d" % d.day) + d.strftime(" %H:%M:%S %Y")


def f_c10(lvl, d):
    return "%s%d%02d %s.%09d" % (lvl, d.month, d.day, d.strftime("%H:%M:%S"),
                                  d.microsecond * 1000 + (d.second * 7919) % 1000)


def f_glog(lvl, d):
    return "%s%s.%06d" % (lvl, d.strftime("%m%d %H:%M:%S"), d.microsecond)


def f_k8s(d):
    return d.strftime("%Y-%m-%dT%H:%M:%S.") + "%06d%03dZ" % (d.microsecond, d.second * 37 % 1000)


def f_ray(d):
    return d.strftime("%Y-%m-%d %H:%M:%S,") + "%03d" % (d.microsecond // 1000)


def f_iso_ms(d):
    return d.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (d.microsecond // 1000)


def f_iso_us(d):
    return d.strftime("%Y-%m-%dT%H:%M:%S.") + "%06dZ" % d.microsecond


def bar(frac, width=10):
    full = int(frac * width)
    rem = frac * width - full
    parts = " ▏▎▍▌▋▊▉"
    s = "█" * full
    if full < width:
        s += parts[int(rem * 8)] if rem > 0 else " "
        s += " " * (width - full - 1)
    return s


def hms(sec):
    sec = int(max(0, sec))
    h, m, s = sec // 3600, (sec % 3600) // 60, sec % 60
    return "%d:%02d:%02d" % (h, m, s) if h else "%02d:%02d" % (m, s)


class Sink:
    def __init__(self, name):
        self.name = name
        self.items = []
        self.seq = 0
        self.header = []
        self.footer = []

    def add(self, t, text):
        self.items.append((t, self.seq, text))
        self.seq += 1

    tsfmt = None
    skew = 0.0

    def render(self):
        self.items.sort(key=lambda x: (x[0], x[1]))
        if self.tsfmt is None:
            body = [x[2] for x in self.items]
        else:
            body = []
            for t, _, txt in self.items:
                p = self.tsfmt(D(t + self.skew)) + " "
                body.extend(p + ln for ln in txt.split("\n"))
        out = list(self.header) + body + list(self.footer)
        return "\n".join(out) + "\n"


class Node:
    def __init__(self, idx, name, ip, gpu, ngpu):
        self.idx = idx
        self.name = name
        self.ip = ip
        self.gpu = gpu
        self.ngpu = ngpu
        self.aliases = []
        self.skew = 0.0
        self.tzmin = 0
        self.tzname = "UTC"
        self.boot = 0.0
        self.kstyle = "dmesg_T"
        self.cid = ""          # container hostname (docker) / pod name
        self.ibip = ""


class Run:
    def __init__(self, seed, idx, layout, cause):
        self.rng = random.Random("blind22|%s|%d|%s|%s" % (seed, idx, layout, cause))
        self.seed, self.idx, self.layout, self.cause = seed, idx, layout, cause
        self.healthy = cause is None
        self.sinks = {}
        self.order = []
        self.statics = {}
        self.klogs = {}
        self.notes = []
        self.rank = None
        self.node = None
        self.aliases = []
        self.inferable = False
        self.nodes = []
        self.world = 0
        self.rank_node = []
        self.rank_local = []
        self.pids = []
        rng = self.rng
        base = dt.datetime(2025, 1, 6, tzinfo=UTC) + dt.timedelta(
            days=rng.randint(0, 318), seconds=rng.randint(0, 86399))
        self.t0 = base.timestamp() + rng.random()
        gk = rng.choice(["H100", "H100", "H100", "H200", "A100"])
        self.gpu_key = gk
        self.driver, self.cuda = rng.choice(DRIVERS[1:] if gk != "A100" else DRIVERS)
        self.model = rng.choice(MODELS)

    def fit_model(self, shards, prefer=None):
        """pick a model whose weights fit the GPUs it is sharded over (<=62% of HBM)."""
        g = GPUS[self.gpu_key]
        ok = [m for m in MODELS if m[3] / max(1, shards) <= 0.62 * g["gib"]]
        big = [m for m in ok if m[3] / max(1, shards) >= 0.12 * g["gib"]]
        ok = big or ok
        if prefer:
            pk = [m for m in ok if any(p in m[1] for p in prefer)]
            ok = pk or ok
        if not ok:
            ok = [min(MODELS, key=lambda m: m[3])]
        if self.model not in ok:
            self.model = self.rng.choice(ok)
        return self.model

    # ---- files
    def sink(self, name):
        if name not in self.sinks:
            self.sinks[name] = Sink(name)
            self.order.append(name)
        return self.sinks[name]

    def static(self, name, text):
        if name not in self.statics:
            self.order.append(name)
        self.statics[name] = text

    # ---- topology helpers
    def build_nodes(self, n_nodes, gpu_key, namer, ipnet):
        rng = self.rng
        g = GPUS[gpu_key]
        self.gpu_key = gpu_key
        base3 = rng.randint(1, 30)
        start = rng.randint(1, 120)
        used = []
        for i in range(n_nodes):
            num = start + i * rng.choice([1, 1, 1, 2, 3])
            while num in used:
                num += 1
            used.append(num)
            ip = "%s.%d.%d" % (ipnet, base3 + (num // 250), 10 + num % 240)
            nd = Node(i, namer(num, ip), ip, gpu_key, g["n"])
            nd.skew = rng.choice([0, 0, 0.2, -0.4, 0.9, 1.6, -2.3, 3.1])
            if rng.random() < 0.06:
                nd.skew = rng.choice([37.5, -61.0, 94.2])
            nd.boot = self.t0 - rng.randint(3 * 86400, 60 * 86400) - rng.random()
            nd.ibip = "10.%d.%d.%d" % (rng.choice([100, 200, 224]), base3, 10 + num % 240)
            self.nodes.append(nd)
        return self.nodes

    def map_ranks(self, per_node):
        self.world = per_node * len(self.nodes)
        self.rank_node = [r // per_node for r in range(self.world)]
        self.rank_local = [r % per_node for r in range(self.world)]
        self.pids = []
        for n in self.nodes:
            p = self.rng.randint(180, 90000)
            for k in range(per_node):
                self.pids.append(p)
                p += 1 + (self.rng.randint(0, 2) if self.rng.random() < 0.3 else 0)

    def rnode(self, r):
        return self.nodes[self.rank_node[r]]

    def d(self, t, node=None):
        return D(t + (node.skew if node is not None else 0.0))

    def dlocal(self, t, node):
        return D(t + node.skew + node.tzmin * 60)

    # ---- kernel logs ----------------------------------------------------
    def attach_klog(self, node, style=None):
        if node.idx in self.klogs:
            return
        rng = self.rng
        node.kstyle = style or rng.choice(["dmesg_T", "dmesg_T", "journal", "dmesg_raw"])
        if node.kstyle == "journal":
            node.tzmin, node.tzname = rng.choice([(0, "UTC"), (-420, "PDT"), (-300, "CDT"),
                                                  (120, "CEST"), (480, "CST"), (-240, "EDT")])
            fname = "journalctl-k-%s.txt" % node.name
        elif node.kstyle == "dmesg_raw":
            fname = "dmesg-%s.txt" % node.name
        else:
            node.tzmin = rng.choice([0, 0, -420, 120, 480])
            fname = "dmesg-T-%s.txt" % node.name
        s = self.sink(fname)
        self.klogs[node.idx] = s
        if node.kstyle == "journal":
            a = self.dlocal(self.t0 - 3600 * 5, node)
            s.header.append("-- Logs begin at %s %s, end at %s %s. --" % (
                a.strftime("%a %Y-%m-%d %H:%M:%S"), node.tzname,
                self.dlocal(self.t0 + 86400 * 3, node).strftime("%a %Y-%m-%d %H:%M:%S"), node.tzname))
        # benign background
        for k in range(rng.randint(3, 7)):
            t = self.t0 - rng.randint(60, 4000) + k * 11
            self.klog(node, t, rng.choice(KNOISE).format(
                veth=hexid(rng, 8), n=rng.randint(2, 40), tmp=hexid(rng, 5),
                c=rng.randint(1, 60)))

    def klog(self, node, t, msg, ident="kernel"):
        s = self.klogs.get(node.idx)
        if s is None:
            return False
        if node.kstyle == "journal":
            d = self.dlocal(t, node)
            p = "%s %s %s: " % (d.strftime("%b %d %H:%M:%S"), node.name, ident)
        elif node.kstyle == "dmesg_raw":
            up = t + node.skew - node.boot
            p = "[%12.6f] " % up
        else:
            d = self.dlocal(t, node)
            p = "[%s] " % f_ctime(d)
        s.add(t, "\n".join(p + ln for ln in msg.split("\n")))
        return True

    def has_klog(self, node):
        return node.idx in self.klogs


KNOISE = [
    "IPv6: ADDRCONF(NETDEV_CHANGE): veth{veth}: link becomes ready",
    "cni0: port {n}(veth{veth}) entered forwarding state",
    "eth0: renamed from tmp{tmp}",
    "overlayfs: upperdir is in-use as upperdir/workdir of another mount, accessing files from both mounts will result in undefined behavior.",
    "perf: interrupt took too long (2511 > 2500), lowering kernel.perf_event_max_sample_rate to 79500",
    "kauditd_printk_skb: {c} callbacks suppressed",
    "TCP: request_sock_TCP: Possible SYN flooding on port 8000. Sending cookies.  Check SNMP counters.",
    "nvidia-nvswitch: Probing device 0000:05:00.0, Vendor Id = 0x10de, Device Id = 0x22a3, Class = 0x68000",
]

# ----------------------------------------------------------------------------
# kernel-side evidence
# ----------------------------------------------------------------------------


def pci(R, node, local):
    g = GPUS[node.gpu]
    b = g["bus"][local % len(g["bus"])]
    if ":" in b:
        return "%s:00" % b
    return "0000:%s:00" % b


def busid_full(node, local):
    g = GPUS[node.gpu]
    b = g["bus"][local % len(g["bus"])]
    if ":" in b:
        dom, bus = b.split(":")
        return "0000%s:%s:00.0" % (dom, bus.upper())
    return "00000000:%s:00.0" % b.upper()


def busid_nccl(node, local):
    g = GPUS[node.gpu]
    b = g["bus"][local % len(g["bus"])]
    if ":" in b:
        dom, bus = b.split(":")
        return "%s%s000" % (dom.lstrip("0") or "0", bus)
    return "%s000" % b


def xid_lines(R, node, local, kind, pid, comm="python3"):
    rng = R.rng
    p = pci(R, node, local)
    uuid = "GPU-%s-%s-%s-%s-%s" % (hexid(rng, 8), hexid(rng, 4), hexid(rng, 4), hexid(rng, 4), hexid(rng, 12))
    if kind == 79:
        return ["NVRM: Xid (PCI:%s): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." % p,
                "NVRM: GPU %s.0: GPU has fallen off the bus." % p.replace("PCI:", ""),
                "NVRM: GPU at PCI:%s: %s" % (p, uuid),
                "NVRM: A GPU crash dump has been created. If possible, please run\nNVRM: nvidia-bug-report.sh as root to collect this data before\nNVRM: the NVIDIA kernel module is unloaded."]
    if kind == 119:
        return ["NVRM: Xid (PCI:%s): 119, pid=%d, name=%s, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x20802a02 0x8)." % (p, pid, comm, local),
                "NVRM: GPU%d GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x0000000020802a02 0x0000000000000008." % local,
                "NVRM: Xid (PCI:%s): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)" % p]
    if kind == 48:
        return ["NVRM: Xid (PCI:%s): 48, pid=%d, name=%s, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at physAddr 0x%s partition %d, subpartition %d." % (p, pid, comm, hexid(rng, 9), rng.randint(0, 7), rng.randint(0, 1)),
                "NVRM: Xid (PCI:%s): 63, pid=%d, name=%s, Row Remapper: New row (0x%s) marked for remapping, reset gpu to activate." % (p, pid, comm, hexid(rng, 16))]
    if kind == 94:
        return ["NVRM: Xid (PCI:%s): 94, pid=%d, name=%s, Contained: SM (0x1). RST: No, D-RST: No" % (p, pid, comm)]
    if kind == 95:
        return ["NVRM: Xid (PCI:%s): 95, pid=%d, name=%s, Uncontained: FBHUB. RST: Yes, D-RST: No" % (p, pid, comm),
                "NVRM: Xid (PCI:%s): 64, pid='<unknown>', name=<unknown>, Row Remapper: Failed to remap row (0x%s)." % (p, hexid(rng, 16))]
    if kind == 74:
        link = rng.randint(0, GPUS[node.gpu]["links"] - 1)
        return ["NVRM: Xid (PCI:%s): 74, pid=%d, name=%s, NVLink: fatal error detected on link %d(0x0, 0x0, 0x0, 0x%s, 0x0, 0x0, 0x0)" % (p, pid, comm, link, rng.choice(["10000", "1000000", "200000"])),
                "NVRM: Xid (PCI:%s): 74, pid=%d, name=%s, NVLink: fatal error detected on link %d(0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x1)" % (p, pid, comm, (link + 1) % GPUS[node.gpu]["links"])]
    if kind == 31:
        return ["NVRM: Xid (PCI:%s): 31, pid=%d, name=%s, Ch 0000000%d, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_%d faulted @ 0x7f%s_%s000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (p, pid, comm, rng.randint(8, 9), rng.randint(0, 15), hexid(rng, 2), hexid(rng, 5))]
    if kind == 13:
        return ["NVRM: Xid (PCI:%s): 13, pid=%d, name=%s, Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (p, pid, comm, rng.randint(0, 7), rng.randint(0, 8), rng.randint(0, 1)),
                "NVRM: Xid (PCI:%s): 13, pid=%d, name=%s, Graphics Exception: ESR 0x50df30=0x201000e 0x50df34=0x20 0x50df28=0xc81eb60 0x50df2c=0x1174" % (p, pid, comm)]
    if kind == 43:
        return ["NVRM: Xid (PCI:%s): 43, pid=%d, name=%s, Ch 00000010" % (p, pid, comm)]
    return []


def oom_kill_lines(R, pid, comm, rss_gb, cg=True):
    rng = R.rng
    vm = int(rss_gb * 1024 * 1024 * rng.uniform(2.2, 3.4))
    anon = int(rss_gb * 1024 * 1024)
    cgpath = "/kubepods.slice/kubepods-pod%s.slice" % hexid(rng, 8) if cg else "/"
    first = "%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=%d" % (
        comm, rng.choice([0, 0, 900, 1000]))
    lines = [first,
             "CPU: %d PID: %d Comm: %s Tainted: P           OE     5.15.0-%d-generic #%d-Ubuntu" % (
                 rng.randint(0, 191), pid + rng.randint(1, 40), comm, rng.choice([105, 119, 125, 131]), rng.randint(110, 140)),
             "Hardware name: %s" % rng.choice(["NVIDIA DGXH100/DGXH100, BIOS 1.5.0 08/21/2024",
                                                "Supermicro SYS-821GE-TNHR/X13DEG-OAD, BIOS 2.1 04/10/2024",
                                                "Google Google Compute Engine/Google Compute Engine, BIOS Google 01/01/2011",
                                                "Amazon EC2 p5.48xlarge/Not Specified, BIOS 1.0 10/16/2017"]),
             "oom-kill:constraint=%s,nodemask=(null),cpuset=%s,mems_allowed=0-1,%s,task_memcg=%s,task=%s,pid=%d,uid=0" % (
                 "CONSTRAINT_MEMCG" if cg else "CONSTRAINT_NONE", hexid(rng, 12),
                 ("oom_memcg=" + cgpath) if cg else "global_oom", cgpath, comm, pid),
             "%s: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:0 pgtables:%dkB oom_score_adj:%d" % (
                 "Memory cgroup out of memory" if cg else "Out of memory", pid, comm, vm, anon,
                 rng.randint(80000, 900000), rng.randint(0, 40000), rng.randint(100000, 400000), 0),
             "oom_reaper: reaped process %d (%s), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB" % (pid, comm)]
    return lines


# ----------------------------------------------------------------------------
# nvidia-smi renderings
# ----------------------------------------------------------------------------
SMI_SEP = "+-----------------------------------------+------------------------+----------------------+"


def smi_table(R, node, t, state, procs=True, in_container=False):
    """state: dict local -> dict(util, mem, temp, pw, lost, ecc, perf)"""
    g = GPUS[node.gpu]
    d = R.dlocal(t, node)
    L = [f_ctime(d) + "       ",
         "+-----------------------------------------------------------------------------------------+",
         "| NVIDIA-SMI %-22s Driver Version: %-14s CUDA Version: %-9s|" % (R.driver, R.driver, R.cuda),
         "|-----------------------------------------+------------------------+----------------------+",
         "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |",
         "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |",
         "|                                         |                        |               MIG M. |",
         "|=========================================+========================+======================|"]
    lost_lines = []
    for k in range(node.ngpu):
        st = state.get(k, {})
        if st.get("lost"):
            lost_lines.append("Unable to determine the device handle for GPU%s: %s" % (
                busid_full(node, k), st.get("lost_msg", "Unknown Error")))
            continue
        left = "%4d  %s" % (k, g["name"])
        right = "On  "
        L.append("|" + left + " " * (41 - len(left) - len(right)) + right + "|" +
                 "   %s Off " % busid_full(node, k)[-16:] + "|" + "%21s " % st.get("ecc", "0") + "|")
        l2 = " N/A  %3dC    %s" % (st.get("temp", 35), st.get("perf", "P0"))
        r2 = "%4dW / %4dW " % (st.get("pw", 120), g["cap"])
        L.append("|" + l2 + " " * (41 - len(l2) - len(r2)) + r2 + "|" +
                 "%8dMiB / %6dMiB " % (st.get("mem", int(g["mib"] * 0.91)), g["mib"]) + "|" +
                 "%8s%13s " % ("%d%%" % st.get("util", 0), "Default") + "|")
        L.append("|" + " " * 41 + "|" + " " * 24 + "|" + "%21s " % "Disabled" + "|")
        L.append(SMI_SEP)
    L.append("")
    L += ["+-----------------------------------------------------------------------------------------+",
          "| Processes:                                                                              |",
          "|  GPU   GI   CI        PID   Type   Process name                              GPU Memory |",
          "|        ID   ID                                                               Usage      |",
          "|=========================================================================================|"]
    if procs and not in_container:
        for k in range(node.ngpu):
            st = state.get(k, {})
            if st.get("lost") or not st.get("pid"):
                continue
            L.append("|  %3d   N/A  N/A  %9d      C   %-40s %7dMiB |" % (
                k, st["pid"], st.get("pname", "python3")[:40], st.get("mem", 70000) - 8))
    else:
        L.append("|  No running processes found                                                             |")
    L.append("+-----------------------------------------------------------------------------------------+")
    if lost_lines:
        return "\n".join(lost_lines) + "\n"  if len(lost_lines) == node.ngpu else "\n".join(lost_lines + L) + "\n"
    return "\n".join(L) + "\n"


def smi_q_ecc(R, node, local, vol_unc, agg_unc, pending, failure="No"):
    return "\n".join([
        "",
        "==============NVSMI LOG==============",
        "",
        "Timestamp                                 : %s" % f_ctime(R.dlocal(R.t0 + 1, node)),
        "Driver Version                            : %s" % R.driver,
        "CUDA Version                              : %s" % R.cuda,
        "",
        "Attached GPUs                             : %d" % node.ngpu,
        "GPU %s" % busid_full(node, local),
        "    ECC Mode",
        "        Current                           : Enabled",
        "        Pending                           : Enabled",
        "    ECC Errors",
        "        Volatile",
        "            SRAM Correctable              : 0",
        "            SRAM Uncorrectable Parity     : 0",
        "            SRAM Uncorrectable SEC-DED    : %d" % (1 if vol_unc > 1 else 0),
        "            DRAM Correctable              : %d" % R.rng.randint(0, 14),
        "            DRAM Uncorrectable            : %d" % vol_unc,
        "        Aggregate",
        "            SRAM Correctable              : 0",
        "            SRAM Uncorrectable Parity     : 0",
        "            SRAM Uncorrectable SEC-DED    : %d" % (1 if agg_unc > 2 else 0),
        "            DRAM Correctable              : %d" % R.rng.randint(10, 300),
        "            DRAM Uncorrectable            : %d" % agg_unc,
        "            SRAM Threshold Exceeded       : No",
        "        Aggregate Uncorrectable SRAM Sources",
        "            SRAM L2                       : 0",
        "            SRAM SM                       : 0",
        "            SRAM Microcontroller          : 0",
        "            SRAM PCIE                     : 0",
        "            SRAM Other                    : 0",
        "    Retired Pages",
        "        Single Bit ECC                    : N/A",
        "        Double Bit ECC                    : N/A",
        "        Pending Page Blacklist            : N/A",
        "    Remapped Rows",
        "        Correctable Error                 : 0",
        "        Uncorrectable Error               : %d" % agg_unc,
        "        Pending                           : %s" % pending,
        "        Remapping Failure Occurred        : %s" % failure,
        "        Bank Remap Availability Histogram",
        "            Max                           : 639 bank(s)",
        "            High                          : 1 bank(s)",
        "            Partial                       : 0 bank(s)",
        "            Low                           : 0 bank(s)",
        "            None                          : 0 bank(s)",
        ""])


def smi_q_perf(R, node, local, slow):
    act = "Active" if slow else "Not Active"
    return "\n".join([
        "GPU %s" % busid_full(node, local),
        "    Performance State                     : P0",
        "    Clocks Event Reasons",
        "        Idle                              : Not Active",
        "        Applications Clocks Setting       : Not Active",
        "        SW Power Cap                      : %s" % ("Active" if slow else "Not Active"),
        "        HW Slowdown                       : %s" % act,
        "            HW Thermal Slowdown           : %s" % act,
        "            HW Power Brake Slowdown       : Not Active",
        "        Sync Boost                        : Not Active",
        "        SW Thermal Slowdown               : %s" % act,
        "        Display Clock Setting             : Not Active",
        "    Temperature",
        "        GPU Current Temp                  : %d C" % (R.rng.randint(88, 93) if slow else R.rng.randint(48, 63)),
        "        GPU T.Limit Temp                  : %d C" % (R.rng.randint(-3, 1) if slow else R.rng.randint(24, 38)),
        "        GPU Shutdown Temp                 : 92 C",
        "        GPU Slowdown Temp                 : 87 C",
        "    Clocks",
        "        Graphics                          : %d MHz" % (R.rng.randint(990, 1300) if slow else 1980),
        "        SM                                : %d MHz" % (R.rng.randint(990, 1300) if slow else 1980),
        "        Memory                            : 2619 MHz",
        ""])


def smi_dmon(R, node, t, slow_local, n=6):
    rng = R.rng
    L = ["# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk ",
         "# Idx      W      C      C      %      %      %      %      %      %    MHz    MHz "]
    for _ in range(n):
        for k in range(node.ngpu):
            if k == slow_local:
                L.append("  %3d    %3d     %2d     %2d    %3d     %2d      0      0      0      0   2619   %4d " % (
                    k, rng.randint(290, 380), rng.randint(87, 92), rng.randint(80, 86), rng.randint(97, 100),
                    rng.randint(20, 30), rng.randint(990, 1290)))
            else:
                L.append("  %3d    %3d     %2d     %2d    %3d     %2d      0      0      0      0   2619   1980 " % (
                    k, rng.randint(420, 560), rng.randint(52, 64), rng.randint(60, 70), rng.randint(62, 99),
                    rng.randint(28, 44)))
    return "\n".join(L) + "\n"


def nvlink_status(R, node, bad_local, n_bad):
    g = GPUS[node.gpu]
    L = []
    for k in range(node.ngpu):
        L.append("GPU %d: %s (UUID: GPU-%s-%s-%s-%s-%s)" % (k, g["name"], hexid(R.rng, 8), hexid(R.rng, 4),
                                                          hexid(R.rng, 4), hexid(R.rng, 4), hexid(R.rng, 12)))
        bad = R.rng.sample(range(g["links"]), n_bad) if k == bad_local else []
        bad.sort()
        for l in range(g["links"]):
            if l in bad:
                L.append("\t Link %d: <inactive>" % l)
            else:
                L.append("\t Link %d: 26.562 GB/s" % l)
    return "\n".join(L) + "\n"


# ----------------------------------------------------------------------------
# client side
# ----------------------------------------------------------------------------
class Client:
    """A user's load generator / probe log, in the user's own time zone."""

    def __init__(self, R, fname, endpoint, style=None):
        self.R = R
        self.rng = R.rng
        self.s = R.sink(fname)
        self.ep = endpoint
        self.style = style or self.rng.choice(["py", "py", "probe"])
        self.tzmin, self.tzs = self.rng.choice([(0, "+00:00"), (-420, "-07:00"), (-300, "-05:00"),
                                                (60, "+01:00"), (330, "+05:30"), (540, "+09:00")])
        self.skew = self.rng.choice([0.0, 0.4, -1.2, 2.5])
        self.req = self.rng.randint(1000, 90000)
        self.msg500 = "{'object': 'error', 'message': 'EngineCore encountered an issue. See stack trace (above) for the root cause.', 'type': 'InternalServerError', 'param': None, 'code': 500}"

    def _d(self, t):
        return D(t + self.skew + self.tzmin * 60)

    def line(self, t, lvl, msg):
        d = self._d(t)
        if self.style == "py":
            self.s.add(t, "%s,%03d %s loadgen: %s" % (d.strftime("%Y-%m-%d %H:%M:%S"), d.microsecond // 1000, lvl, msg))
        else:
            self.s.add(t, "[%s%s] %s %s" % (d.strftime("%Y-%m-%dT%H:%M:%S"), self.tzs, lvl, msg))

    def ok_window(self, ta, tb, p50=0.9):
        t = ta + self.rng.uniform(5, 40)
        step = max(60.0, (tb - ta) / 14.0)
        while t < tb:
            self.req += self.rng.randint(200, 4000)
            if self.style == "py":
                self.line(t, "INFO", "progress: %d requests sent, ok=%d err=0 p50_ttft=%.3fs p99_ttft=%.3fs p50_tpot=%.1fms" % (
                    self.req, self.req - self.rng.randint(0, 3), p50 * self.rng.uniform(0.8, 1.2),
                    p50 * self.rng.uniform(2.5, 4.5), self.rng.uniform(18, 34)))
            else:
                self.line(t, "OK", "GET %s/health -> 200 (%.0fms)" % (self.ep, self.rng.uniform(2, 30)))
            t += step * self.rng.uniform(0.7, 1.3)

    def fail(self, t, kind, n=None):
        rng = self.rng
        n = n or rng.randint(3, 7)
        tt = t
        for i in range(n):
            tt += rng.uniform(0.2, 9.0) if i else rng.uniform(0.0, 0.5)
            self.req += 1
            if kind == "500":
                m = ("request %d failed: Error code: 500 - %s" % (self.req, self.msg500))
                if self.style == "probe":
                    m = "POST %s/v1/chat/completions -> 500 Internal Server Error" % self.ep
            elif kind == "503":
                m = ("request %d failed: Error code: 503 - Service Unavailable" % self.req)
                if self.style == "probe":
                    m = "GET %s/health -> 503 Service Unavailable" % self.ep
            elif kind == "timeout":
                m = ("request %d failed: openai.APITimeoutError: Request timed out." % self.req)
                if self.style == "probe":
                    m = "GET %s/health -> timeout after 10.0s" % self.ep
            elif kind == "reset":
                m = ("request %d failed: openai.APIConnectionError: Connection error. (httpcore.RemoteProtocolError: Server disconnected without sending a response.)" % self.req)
                if self.style == "probe":
                    m = "GET %s/health -> curl: (56) Recv failure: Connection reset by peer" % self.ep
            elif kind == "refused":
                m = ("request %d failed: openai.APIConnectionError: Connection error. (httpcore.ConnectError: [Errno 111] Connection refused)" % self.req)
                if self.style == "probe":
                    m = "GET %s/health -> curl: (7) Failed to connect to %s port 8000: Connection refused" % (
                        self.ep, self.ep.split("//")[-1].split(":")[0])
            elif kind == "slow":
                m = ("SLO breach: p99_tpot=%.1fms (target 60ms) p99_ttft=%.2fs over last 300s" % (
                    rng.uniform(95, 240), rng.uniform(3.5, 9.0)))
                if self.style == "probe":
                    m = "POST %s/v1/completions -> 200 (latency %.1fs, SLO 5s)" % (self.ep, rng.uniform(6, 20))
            else:
                m = kind
            self.line(tt, "WARNING" if self.style == "py" else "ERR", m)


# ----------------------------------------------------------------------------
# base layout: the cause scripts, written against per-stack primitives
# ----------------------------------------------------------------------------
class Layout:
    name = "base"
    multi_node_always = False

    def __init__(self, R):
        self.R = R
        self.rng = R.rng
        self.client = None
        self.t_ready = None
        self.stall_kind = "weights"

    # -- per-stack primitives (overridden) ---------------------------------
    def setup(self):
        raise NotImplementedError

    def startup(self, t, stall=None):
        raise NotImplementedError

    def serve(self, ta, tb, slow=None):
        raise NotImplementedError

    def exc(self, r, t, kind, lines):
        raise NotImplementedError

    def die(self, r, t, sig):
        raise NotImplementedError

    def collapse(self, t, r, kind, short):
        raise NotImplementedError

    def hang(self, t, r):
        raise NotImplementedError

    def preempt(self, t, node):
        raise NotImplementedError

    def unknown(self, t):
        raise NotImplementedError

    def finish(self, t):
        raise NotImplementedError

    def decoys(self, t_ready, t_end):
        pass

    def attach(self, tgt_node):
        R, rng = self.R, self.rng
        for nd in R.nodes[:12]:
            p = 0.85 if nd.idx == tgt_node else (0.3 if len(R.nodes) < 6 else 0.12)
            if rng.random() < p:
                R.attach_klog(nd)

    def rank_from_gpu(self, r):
        """can a careful human map (node, GPU index / PCI bus) -> rank here?"""
        return False

    def smi_file(self, node, t, state, extra=""):
        R = self.R
        R.static("nvidia-smi-%s.txt" % node.name, smi_table(R, node, t, state,
                                                            in_container=getattr(self, "in_container", False)) + extra)

    # -- shared exception texts --------------------------------------------
    def exc_text(self, kind, r):
        lines = self._exc_text(kind, r)
        self.last_lines = lines
        return lines

    def _short(self):
        l = getattr(self, "last_lines", None) or ["RuntimeError: unknown"]
        return l[0].split(": ", 1)[-1]

    def _exc_text(self, kind, r):
        R, rng = self.R, self.rng
        nd = R.rnode(r)
        g = GPUS[nd.gpu]
        loc = self.visible_gpu(r)
        if kind == "oom":
            tried = rng.choice([1.96, 3.91, 7.83, 10.5, 15.66, 2.34])
            free = rng.uniform(0.3, min(tried - 0.1, 2.5))
            inuse = g["gib"] - free - 0.5
            alloc = inuse - rng.uniform(1.5, 4.0)
            if getattr(self, "in_container", False) or rng.random() < 0.4:
                who = "Including non-PyTorch memory, this process has %.2f GiB memory in use." % inuse
            else:
                who = "Process %d has %.2f GiB memory in use." % (R.pids[r], inuse)
            return ["torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of %.2f GiB of which %.2f GiB is free. %s Of the allocated memory %.2f GiB is allocated by PyTorch, with %.2f GiB allocated in private pools (e.g., CUDA Graphs), and %.2f MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)" % (
                tried, loc, g["gib"], free, who, alloc, rng.uniform(0.5, 3.0), rng.uniform(20, 900))]
        if kind == "ima":
            return cuda_err("an illegal memory access was encountered")
        if kind == "lost":
            return cuda_err(rng.choice(["unspecified launch failure", "unknown error"]))
        if kind == "ecc":
            return cuda_err("uncorrectable ECC error encountered")
        if kind == "nvlink":
            return cuda_err("uncorrectable NVLink error was detected during the execution")
        if kind == "net":
            return ["RuntimeError: NCCL error: remote process exited or there was a network error"]
        if kind == "py":
            ex = PY_EXC[(R.idx * 7 + int(R.seed_num)) % len(PY_EXC)][1]
            return [ex.replace("{r}", str(r))]
        return ["RuntimeError: %s" % kind]

    def visible_gpu(self, r):
        return self.R.rank_local[r]

    # -- the cause scripts ---------------------------------------------------
    def pick(self):
        R, rng = self.R, self.rng
        c = R.cause
        if c in (None, "unknown"):
            return None
        if c in ("preemption",):
            cand = list(range(len(R.nodes)))
            if len(cand) > 1 and rng.random() < 0.8:
                cand = cand[1:]
            return rng.choice(cand)   # node index
        if c == "network":
            cand = [n for n in range(len(R.nodes)) if n != 0] or [0]
            ni = rng.choice(cand)
            locs = [r for r in range(R.world) if R.rank_node[r] == ni]
            return rng.choice(locs)
        if R.world <= 8:
            return rng.randrange(R.world)
        # big jobs: avoid always rank 0; mostly a non-zero node
        if rng.random() < 0.15:
            return rng.randrange(min(8, R.world))
        return rng.randrange(8 if R.world > 8 else 0, R.world)

    def play(self):
        R, rng = self.R, self.rng
        c = R.cause
        self.setup()
        tgt = self.pick()
        r = tgt if c not in ("preemption",) else None
        if tgt is None:
            self.attach(None)
        elif c == "preemption":
            self.attach(tgt)
        else:
            self.attach(R.rank_node[tgt])
        R.seed_num = sum(ord(ch) for ch in str(R.seed))
        if c == "data_loader_stall" and self.stall_kind == "weights":
            t_stall = self.startup(R.t0, stall=r)
            nd = R.rnode(r)
            self.stall_kernel(nd, r, t_stall)
            inf = self.load_stall(t_stall, r)
            self.set_truth(r, nd, inf, "weight load for rank %d stuck on network storage" % r)
            return
        t_ready = self.startup(R.t0)
        self.t_ready = t_ready
        dur = rng.uniform(1200, 6000)
        tf = t_ready + dur
        if R.healthy:
            self.serve(t_ready, tf)
            self.decoys(t_ready, tf)
            self.healthy_decoy_kernel(t_ready, tf)
            self.finish(tf)
            R.notes.append("healthy: served %.0f min then shut down cleanly" % (dur / 60))
            return
        if c == "straggler":
            self.serve(t_ready, tf, slow=r)
            self.decoys(t_ready, tf)
            nd = R.rnode(r)
            inf = self.straggler_evidence(r, nd, tf)
            if rng.random() < 0.5:
                self.client.fail(tf - 300, "slow", 4)
                self.finish(tf)
                R.notes.append("straggler; job kept serving, SLO alarms only")
            else:
                self.client.fail(tf - 600, "slow", 3)
                self.client.fail(tf, "timeout", 4)
                self.finish(tf + 30)
                R.notes.append("straggler; operator restarted the server after SLO alarms")
            self.set_truth(r, nd, inf, "GPU %d on %s thermally throttled (rank %d)" % (R.rank_local[r], nd.name, r))
            return
        if c == "data_loader_stall":          # non-weights variant (raydata reader)
            self.serve(t_ready, tf)
            self.decoys(t_ready, tf)
            ni = self.reader_stall(tf)
            self.set_truth(None, R.nodes[ni], False, "input reader stalled on %s" % R.nodes[ni].name)
            return
        self.serve(t_ready, tf)
        self.decoys(t_ready, tf)
        self.other_decoy_kernel(tf, r)
        if c == "preemption":
            nd = R.nodes[tgt]
            self.preempt(tf, nd)
            R.notes.append("node %s reclaimed/evicted" % nd.name)
            self.set_truth(None, nd if getattr(self, "preempt_has_node", True) else None, False, "preemption")
            return
        if c == "unknown":
            self.unknown(tf)
            R.notes.append("no initiator-grade evidence anywhere in the bundle")
            self.set_truth(None, None, False, "unknown")
            return
        if c == "hang":
            inf = self.hang(tf, r)
            self.set_truth(r, R.rnode(r), inf, "rank %d stops making progress silently" % r)
            return
        if c == "collective_mismatch":
            inf = self.mismatch(tf, r)
            self.set_truth(r, R.rnode(r), inf, "rank %d issues a different collective" % r)
            return
        nd = R.rnode(r)
        loc = R.rank_local[r]
        kev = False
        if c == "gpu_hardware":
            x = rng.choice([79, 79, 119])
            for i, l in enumerate(xid_lines(R, nd, loc, x, R.pids[r], self.comm(r))):
                kev |= R.klog(nd, tf - 0.4 + i * 0.001, l)
            vis = self.exc(r, tf + rng.uniform(0.1, 1.5), "lost", self.exc_text("lost", r))
            self.collapse(tf + 2, r, "lost", self._short())
            st = self.smi_state(nd, r)
            st[loc] = {"lost": True, "lost_msg": rng.choice(["Unknown Error", "GPU is lost.  Reboot the system to recover this GPU"])}
            if rng.random() < 0.8:
                self.smi_file(nd, tf + rng.uniform(200, 900), st)
            R.notes.append("Xid %d on GPU %d (%s) of %s" % (x, loc, pci(R, nd, loc), nd.name))
        elif c == "ecc_memory":
            x = rng.choice([48, 94, 95])
            for i, l in enumerate(xid_lines(R, nd, loc, x, R.pids[r], self.comm(r))):
                kev |= R.klog(nd, tf - 0.2 + i * 0.001, l)
            vis = self.exc(r, tf + rng.uniform(0.1, 1.0), "ecc", self.exc_text("ecc", r))
            self.collapse(tf + 2, r, "ecc", self._short())
            if rng.random() < 0.7:
                R.static("nvidia-smi-q-ecc-%s-gpu%d.txt" % (nd.name, loc),
                         smi_q_ecc(R, nd, loc, rng.randint(1, 3), rng.randint(2, 9), "Yes",
                                   "Yes" if x == 95 else "No"))
            R.notes.append("Xid %d uncorrectable ECC on GPU %d of %s" % (x, loc, nd.name))
        elif c == "nvlink":
            for i, l in enumerate(xid_lines(R, nd, loc, 74, R.pids[r], self.comm(r))):
                kev |= R.klog(nd, tf - 0.3 + i * 0.002, l)
            if rng.random() < 0.5:
                R.klog(nd, tf - 0.1, "nvidia-nvswitch%d: SXid (PCI:0000:%02x:00.0): 12028, Non-fatal, Link %d egress non-posted PRIV error (First)" % (
                    rng.randint(0, 3), rng.choice([5, 6, 7, 8]), rng.randint(0, 63)))
            vis = self.exc(r, tf + rng.uniform(0.05, 0.8), "nvlink", self.exc_text("nvlink", r))
            self.collapse(tf + 2, r, "nvlink", self._short())
            if rng.random() < 0.7:
                R.static("nvidia-smi-nvlink-s-%s.txt" % nd.name, nvlink_status(R, nd, loc, rng.randint(1, 4)))
            R.notes.append("Xid 74 NVLink fatal on GPU %d of %s" % (loc, nd.name))
        elif c == "network":
            kev = self.net_kernel(nd, loc, tf)
            vis = self.net_fail(r, tf)
        elif c == "cuda_oom":
            vis = self.exc(r, tf, "oom", self.exc_text("oom", r))
            self.collapse(tf + 1.5, r, "oom", self._short())
            R.notes.append("CUDA OOM on rank %d (long prompt / large logits)" % r)
        elif c == "illegal_memory_access":
            if rng.random() < 0.6:
                for l in xid_lines(R, nd, loc, 31, R.pids[r], self.comm(r)):
                    kev |= R.klog(nd, tf - 0.05, l)
            vis = self.exc(r, tf, "ima", self.exc_text("ima", r))
            self.collapse(tf + 1.5, r, "ima", self._short())
            R.notes.append("illegal memory access in attention/MoE kernel on rank %d (app fault, Xid 31 at most)" % r)
        elif c == "python_exception":
            vis = self.exc(r, tf, "py", self.exc_text("py", r))
            self.collapse(tf + 1.5, r, "py", self._short())
            R.notes.append("python exception on rank %d only" % r)
        elif c == "host_oom_kill":
            for i, l in enumerate(oom_kill_lines(R, R.pids[r], self.comm(r), rng.uniform(60, 210),
                                                 cg=getattr(self, "cgroup", True))):
                kev |= R.klog(nd, tf - 0.5 + i * 0.0005, l)
            vis = self.die(r, tf, "SIGKILL")
            self.collapse(tf + 2, r, "kill", "killed (SIGKILL)")
            R.notes.append("host OOM killer killed rank %d pid %d" % (r, R.pids[r]))
            kev = kev and self.pid_maps(r)
        elif c == "crash_signal":
            sig = rng.choice(["SIGSEGV", "SIGSEGV", "SIGBUS", "SIGABRT"])
            if sig == "SIGSEGV" and rng.random() < 0.7:
                kev |= R.klog(nd, tf - 0.01, "%s[%d]: segfault at %s ip 00007f%s sp 00007ffd%s error %d in %s[7f%s+%s] likely on CPU %d (core %d, socket %d)" % (
                    self.comm(r)[:15], R.pids[r], rng.choice(["0", "8", "10", "7f" + hexid(rng, 10)]), hexid(rng, 10), hexid(rng, 8),
                    rng.choice([4, 6, 14]), rng.choice(["libnccl.so.2", "libc.so.6", "libcuda.so.570.133.20", "_C.abi3.so", "libtorch_cuda.so"]),
                    hexid(rng, 9), hexid(rng, 7), rng.randint(0, 191), rng.randint(0, 47), rng.randint(0, 1)))
                R.klog(nd, tf - 0.009, "Code: 48 8b 45 %s 48 8b 40 08 48 89 c7 e8 <8b> 07 %s 89 c6 48 8d 3d 00 00 00 00 b8 00 00" % (
                    hexid(rng, 2), hexid(rng, 2)))
            vis = self.die(r, tf, sig)
            self.collapse(tf + 2, r, "kill", "died with %s" % sig)
            R.notes.append("rank %d crashed with %s" % (r, sig))
            kev = kev and self.pid_maps(r)
        else:
            raise ValueError(c)
        inf = bool(vis) or (kev and self.rank_from_gpu(r) and c in ("gpu_hardware", "ecc_memory", "nvlink", "illegal_memory_access"))
        self.set_truth(r, nd, inf, c)

    # -- defaults shared by many stacks -----------------------------------
    def comm(self, r):
        return "python3"

    def pid_maps(self, r):
        return False

    def smi_state(self, nd, r=None):
        rng = self.rng
        st = {}
        g = GPUS[nd.gpu]
        for k in range(nd.ngpu):
            st[k] = {"util": rng.choice([0, 0, 100, 100, 97]), "mem": int(g["mib"] * rng.uniform(0.88, 0.93)),
                     "temp": rng.randint(33, 58), "pw": rng.randint(110, int(g["cap"] * 0.7)),
                     "pid": self.R.pids[self._rank_at(nd, k)] if self._rank_at(nd, k) is not None else None}
        return st

    def _rank_at(self, nd, k):
        R = self.R
        for r in range(R.world):
            if R.rank_node[r] == nd.idx and R.rank_local[r] == k:
                return r
        return None

    def straggler_evidence(self, r, nd, tf):
        R, rng = self.R, self.rng
        loc = R.rank_local[r]
        ev = False
        if rng.random() < 0.6:
            R.static("nvidia-smi-dmon-%s.txt" % nd.name, smi_dmon(R, nd, tf - 900, loc))
            ev = True
        if not ev or rng.random() < 0.5:
            R.static("nvidia-smi-q-perf-%s.txt" % nd.name, "\n".join(
                smi_q_perf(R, nd, k, k == loc) for k in range(nd.ngpu)))
            ev = True
        alerts = R.sink("alertmanager-notifications.txt")
        for i in range(rng.randint(2, 4)):
            t = tf - 3000 + i * rng.uniform(400, 900)
            alerts.add(t, "[FIRING:1] %s %s" % (
                rng.choice(["InferenceTPOTHighP99", "InferenceTTFTHighP99", "GPUThermalThrottle"]),
                "(severity=warning job=%s instance=%s) started %s" % (self.name, R.nodes[0].ip, f_iso_ms(D(t)))))
        if rng.random() < 0.5:
            t = tf - 2000
            alerts.add(t, "[FIRING:1] DCGMClockThrottle (severity=info Hostname=%s gpu=%d reason=HW_SLOWDOWN) started %s" % (
                nd.name, loc, f_iso_ms(D(t))))
        return ev and self.rank_from_gpu(r)

    def stall_kernel(self, nd, r, t):
        R, rng = self.R, self.rng
        srv = rng.choice(["nfs-models.internal", "10.8.0.20", "fsx-0a1b2c3d.fsx.us-east-1.amazonaws.com@tcp", "filer02"])
        if "fsx" in srv:
            R.klog(nd, t + 10, "Lustre: %d:0:(client.c:2345:ptlrpc_expire_one_request()) @@@ Request sent has timed out for slow reply: [sent %d/real %d]  req@0000000%s x%d/t0(0) o3->fsx-OST0003-osc-ffff9a3b@%s:12345/0 lens 488/440 e 0 to 1 dl %d ref 2 fl Rpc:X/0/ffffffff rc 0/-1 job:''" % (
                rng.randint(2000, 9000), int(t) - 120, int(t) - 120, hexid(rng, 9), rng.randint(10 ** 15, 10 ** 16), srv, int(t) + 5))
            R.klog(nd, t + 11, "Lustre: fsx-OST0003-osc-ffff9a3b: Connection to fsx-OST0003 (at %s) was lost; in progress operations using this service will wait for recovery to complete" % srv)
        else:
            R.klog(nd, t + 8, "nfs: server %s not responding, still trying" % srv)
        ppid = R.pids[r] - rng.randint(1, 30)
        for k in range(2):
            tt = t + 130 + k * 122
            R.klog(nd, tt, "INFO: task %s:%d blocked for more than %d seconds." % (self.comm(r)[:15], R.pids[r], 122 * (k + 1)))
            R.klog(nd, tt, "      Tainted: P           OE     5.15.0-119-generic #129-Ubuntu")
            R.klog(nd, tt, "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.")
            R.klog(nd, tt, "task:%-15s state:D stack:0     pid:%d ppid:%d flags:0x00004002" % (self.comm(r)[:15], R.pids[r], ppid))
            R.klog(nd, tt, "Call Trace:\n <TASK>\n __schedule+0x2cd/0x890\n schedule+0x69/0x110\n io_schedule+0x46/0x80\n folio_wait_bit_common+0x14f/0x370\n filemap_fault+0x20b/0x6c0\n __do_fault+0x3c/0x160\n do_fault+0x263/0x500\n handle_mm_fault+0x1f4/0x380\n exc_page_fault+0x77/0x170\n asm_exc_page_fault+0x27/0x30\n </TASK>")
        if rng.random() < 0.5:
            R.klog(nd, t + 900, "nfs: server %s OK" % srv if "fsx" not in srv else
                   "Lustre: fsx-OST0003-osc-ffff9a3b: Connection restored to %s (at %s)" % ("fsx-OST0003", srv))
        R.notes.append("storage %s hung on %s during weight load" % (srv, nd.name))

    def net_kernel(self, nd, loc, tf):
        R, rng = self.R, self.rng
        hca = "mlx5_%d" % loc
        pcib = rng.choice(["0c", "1a", "3b", "4d", "5e", "9c", "ad", "bc", "dc"])
        dev = rng.choice(["ibp%ds0" % int(pcib, 16), "enp%ds0np0" % int(pcib, 16)])
        ev = R.klog(nd, tf - 1.2, "mlx5_core 0000:%s:00.0: mlx5_port_module_event:1159:(pid 0): Port module event[error]: module %d, Cable error, %s" % (
            pcib, loc, rng.choice(["High Temperature", "Bus stuck (I2C or data shorted)", "Unsupported cable"])))
        if rng.random() < 0.6 or not ev:
            ev = R.klog(nd, tf - 1.0, "mlx5_core 0000:%s:00.0 %s: Link down" % (pcib, dev)) or ev
        R.klog(nd, tf + 40, "mlx5_core 0000:%s:00.0 %s: Link up" % (pcib, dev))
        self.hca = hca
        R.notes.append("IB/RoCE port %s (GPU %d rail) on %s went down" % (hca, loc, nd.name))
        return ev

    def other_decoy_kernel(self, tf, r):
        """benign old Xid / noise on a node other than the culprit's."""
        R, rng = self.R, self.rng
        others = [n for n in R.nodes if r is None or n.idx != R.rank_node[r]]
        if not others or rng.random() < 0.45:
            return
        nd = rng.choice(others)
        if not R.has_klog(nd):
            if rng.random() < 0.5:
                return
            R.attach_klog(nd)
        x = rng.choice([13, 43, 43, 31])
        t = tf - rng.uniform(2 * 86400, 9 * 86400) if x != 43 else tf - rng.uniform(3600, 40000)
        for l in xid_lines(R, nd, rng.randrange(nd.ngpu), x, rng.randint(2000, 90000)):
            R.klog(nd, t, l)
        R.notes.append("decoy: old benign Xid %d on %s" % (x, nd.name))

    def healthy_decoy_kernel(self, ta, tb):
        R, rng = self.R, self.rng
        nd = rng.choice(R.nodes)
        if not R.has_klog(nd):
            R.attach_klog(nd)
        x = rng.choice([43, 13, 31])
        t = ta - rng.uniform(86400, 5 * 86400) if x != 43 else rng.uniform(ta, tb)
        for l in xid_lines(R, nd, rng.randrange(nd.ngpu), x, rng.randint(2000, 90000)):
            R.klog(nd, t, l)
        R.notes.append("decoy: benign Xid %d on %s" % (x, nd.name))
        if rng.random() < 0.4:
            R.klog(nd, tb - 400, "mlx5_core 0000:3b:00.0: mlx5_fw_tracer_handle_traces:749:(pid 12): FWTracer: Events were lost")

    def set_truth(self, r, nd, inf, what):
        R = self.R
        if getattr(self, "truth_rank_none", False):
            r = None
        R.rank = r
        R.inferable = bool(inf) and r is not None
        if nd is not None:
            R.node = nd.name
            R.aliases = [a for a in nd.aliases if a != nd.name]
        R.notes.append("world=%d nodes=%d gpu=%s" % (R.world, len(R.nodes), R.gpu_key))
        if what:
            R.notes.append("injected: %s" % what)


# ----------------------------------------------------------------------------
# vLLM text emitter (shared by vllm-mp, vllm-ray-k8s, dynamo-disagg, raydata)
# ----------------------------------------------------------------------------
VLLM_VERSIONS = [  # version, style, torch, nccl, python
    ("0.6.6.post1", "v0", "2.5.1", "2.21.5", "3.12"),
    ("0.7.3", "v0", "2.5.1", "2.21.5", "3.12"),
    ("0.8.5.post1", "v1a", "2.6.0", "2.21.5", "3.12"),
    ("0.9.2", "v1a", "2.7.0", "2.26.2", "3.12"),
    ("0.10.1.1", "v1a", "2.7.1", "2.26.2", "3.12"),
    ("0.10.2", "v1b", "2.8.0", "2.27.3", "3.12"),
    ("0.11.0", "v1b", "2.8.0", "2.27.3", "3.12"),
]


class VLLM:
    def __init__(self, lay, sink, ranks, tp, pp, ver, mode, host_of, pyroot, dp_index=0,
                 api=True, nccl_debug=False, ray_local_node=None, dedup=False):
        self.L = lay
        self.R = lay.R
        self.rng = lay.rng
        self.s = sink
        self.ranks = list(ranks)
        self.tp, self.pp = tp, pp
        self.ver, self.style, self.torch, self.nccl, _ = ver
        self.mode = mode
        self.host_of = host_of            # rank -> hostname used in NCCL lines
        self.py = pyroot
        self.dp = dp_index
        self.api_on = api
        self.nccl_debug = nccl_debug
        self.ray_local_node = ray_local_node
        self.dedup = dedup
        self.api_pid = 1 if self.rng.random() < 0.6 else self.rng.randint(7, 4000)
        self.core_pid = self.rng.randint(150, 9000)
        self.wait_shm = []
        self.debug_log = self.rng.random() < 0.4
        self.model_dir = self.rng.choice(["/models/", "/mnt/models/", "/data/hf/", ""]) + self.R.model[0].split("/")[-1] \
            if self.rng.random() < 0.6 else self.R.model[0]

    # --- prefixes ------------------------------------------------------
    def api_pfx(self):
        return "(APIServer pid=%d) " % self.api_pid if self.style == "v1b" else ""

    def core_pfx(self):
        if self.style == "v1b":
            return "(EngineCore_DP%d pid=%d) " % (self.dp, self.core_pid)
        return ""

    def w_pfx(self, r):
        R = self.R
        k = self.ranks.index(r)
        pid = R.pids[r]
        if self.mode == "uni":
            return self.core_pfx()
        if self.mode == "mp":
            if self.style == "v1b":
                if self.pp > 1:
                    return "(Worker_PP%d_TP%d pid=%d) " % (k // self.tp, k % self.tp, pid)
                return "(Worker_TP%d pid=%d) " % (k, pid)
            if self.style == "v1a":
                return "(VllmWorker rank=%d pid=%d) " % (k, pid)
            return "" if k == 0 else "(VllmWorkerProcess pid=%d) " % pid
        # ray
        if self.style == "v0" and k == 0:
            return ""
        nd = R.rnode(r)
        if self.ray_local_node is not None and nd.idx == self.ray_local_node:
            inner = "(RayWorkerWrapper pid=%d) " % pid
        else:
            inner = "(RayWorkerWrapper pid=%d, ip=%s) " % (pid, nd.ip)
        return self.core_pfx() + inner

    # --- raw line writers ------------------------------------------------
    def _fmt(self, t, lvl, src, msg, node=None):
        d = self.R.d(t, node)
        if self.style == "v0":
            return "%s %s %s] %s" % (lvl, d.strftime("%m-%d %H:%M:%S"), src, msg)
        return "%s %s [%s] %s" % (lvl, d.strftime("%m-%d %H:%M:%S"), src, msg)

    def node0(self):
        return self.R.rnode(self.ranks[0])

    def api(self, t, lvl, src, msg):
        if self.api_on:
            self.s.add(t, self.api_pfx() + self._fmt(t, lvl, src, msg, self.node0()))

    def uv(self, t, msg):
        if self.api_on:
            self.s.add(t, self.api_pfx() + "INFO:     " + msg)

    def core(self, t, lvl, src, msg):
        self.s.add(t, self.core_pfx() + self._fmt(t, lvl, src, msg, self.node0()))

    def w(self, r, t, lvl, src, msg, rep=0):
        tail = " [repeated %dx across cluster]" % rep if rep else ""
        self.s.add(t, self.w_pfx(r) + self._fmt(t, lvl, src, msg, self.R.rnode(r)) + tail)

    def wraw(self, r, t, text):
        self.s.add(t, self.w_pfx(r) + text)

    def tb(self, t, pfx, lvl, src, head, frames, exc, node=None):
        hdr = self._fmt(t, lvl, src, "", node)
        out = [pfx + hdr + head, pfx + hdr + "Traceback (most recent call last):"]
        for f in frames:
            path, ln, fn, code = f
            full = path if path.startswith("/") else self.py + path
            out.append(pfx + hdr + '  File "%s", line %d, in %s' % (full, ln, fn))
            if code:
                out.append(pfx + hdr + "    " + code)
        for e in exc:
            out.append(pfx + hdr + e if e else pfx + hdr.rstrip())
        self.s.add(t, "\n".join(out))

    # --- nccl -------------------------------------------------------------
    def nccl_init(self, r, t, world, nnodes, local_ranks, grp_rank=None):
        if not self.nccl_debug:
            return
        R, rng = self.R, self.rng
        nd = R.rnode(r)
        host = self.host_of(r)
        pid = R.pids[r]
        dev = 0 if self.mode == "ray" else R.rank_local[r]
        gr = r if grp_rank is None else grp_rank
        p = "%s:%d:%d [%d] NCCL INFO " % (host, pid, pid, dev)
        comm = "0x%s" % hexid(rng, 12)
        lines = [p + "Bootstrap : Using eth0:%s<0>" % nd.ip,
                 p + "cudaDriverVersion %d" % (int(R.cuda.split(".")[0]) * 1000 + int(R.cuda.split(".")[1]) * 10)]
        if gr == 0:
            lines.append("NCCL version %s+cuda%s" % (self.nccl, R.cuda))
        if nnodes > 1:
            lines.append(p + "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB [4]mlx5_4:1/IB [5]mlx5_5:1/IB [6]mlx5_6:1/IB [7]mlx5_7:1/IB [RO]; OOB eth0:%s<0>" % nd.ip)
        else:
            lines.append(p + "NET/Socket : Using [0]eth0:%s<0>" % nd.ip)
        lines.append(p + "comm %s rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL 0" % (
            comm, gr, world, nnodes, local_ranks, R.rank_local[r] % local_ranks))
        lines.append(p + "ncclCommInitRank comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId 0x%s - Init COMPLETE" % (
            comm, gr, world, dev, R.rank_local[r], busid_nccl(nd, R.rank_local[r]), hexid(rng, 16)))
        for i, l in enumerate(lines):
            self.s.add(t + i * 0.002, self.w_pfx(r) + l if self.mode == "ray" else l)

    # --- startup ----------------------------------------------------------
    def startup(self, t, stall=None, load_s=None, quiet_ranks=None):
        """returns (t_ready or t_stall)."""
        R, rng = self.R, self.rng
        m = R.model
        W = len(self.ranks)
        mdir = self.model_dir
        if self.style == "v0":
            self.api(t, "INFO", "api_server.py:712", "vLLM API server version %s" % self.ver)
            self.api(t + 0.01, "INFO", "api_server.py:713", "args: Namespace(host=None, port=8000, model='%s', tensor_parallel_size=%d, pipeline_parallel_size=%d, distributed_executor_backend='%s', max_model_len=32768, gpu_memory_utilization=0.92, enable_prefix_caching=True, ...)" % (
                mdir, self.tp, self.pp, "ray" if self.mode == "ray" else "mp"))
            self.api(t + 6, "INFO", "llm_engine.py:234", "Initializing an LLM engine (v%s) with config: model='%s', speculative_config=None, tokenizer='%s', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, trust_remote_code=True, dtype=torch.bfloat16, max_seq_len=32768, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=%d, pipeline_parallel_size=%d, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0, served_model_name=%s, use_v2_block_manager=True, enable_prefix_caching=True" % (
                self.ver, mdir, mdir, self.tp, self.pp, m[0]))
        else:
            if self.api_on and getattr(self, "apiserver", True):
                self.api(t, "INFO", "api_server.py:1805" if self.style == "v1b" else "api_server.py:1043",
                         "vLLM API server version %s" % self.ver)
                self.api(t + 0.01, "INFO", "utils.py:328", getattr(self, "nondefault", None) or "non-default args: {'model': '%s', 'trust_remote_code': True, 'max_model_len': 32768, 'tensor_parallel_size': %d, %s'gpu_memory_utilization': 0.92, 'enable_prefix_caching': True%s}" % (
                    mdir, self.tp, ("'pipeline_parallel_size': %d, " % self.pp) if self.pp > 1 else "",
                    ", 'distributed_executor_backend': 'ray'" if self.mode == "ray" else ""))
                self.api(t + 7, "INFO", "__init__.py:742", "Resolved architecture: %s" % m[1])
                self.api(t + 7.01, "INFO", "__init__.py:1815", "Using max model len 32768")
            self.core(t + 9, "INFO", "core.py:76", "Initializing a V1 LLM engine (v%s) with config: model='%s', speculative_config=None, tokenizer='%s', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, trust_remote_code=True, dtype=torch.bfloat16, max_seq_len=32768, download_dir=None, load_format=auto, tensor_parallel_size=%d, pipeline_parallel_size=%d, data_parallel_size=%d, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0, served_model_name=%s, enable_prefix_caching=True, chunked_prefill_enabled=True, pooler_config=None, compilation_config={\"level\":3,\"debug_dump_path\":\"\",\"cache_dir\":\"\",\"backend\":\"\",\"custom_ops\":[],\"splitting_ops\":[\"vllm.unified_attention\",\"vllm.unified_attention_with_output\"],\"use_inductor\":true,\"cudagraph_mode\":1,\"use_cudagraph\":true,\"cudagraph_capture_sizes\":[512,504,496,488,480,472,464,456,448,440,432,424,416,408,400,392,384,376,368,360,352,344,336,328,320,312,304,296,288,280,272,264,256,248,240,232,224,216,208,200,192,184,176,168,160,152,144,136,128,120,112,104,96,88,80,72,64,56,48,40,32,24,16,8,4,2,1],\"max_capture_size\":512}" % (
                self.ver, mdir, mdir, self.tp, self.pp, getattr(self, "dp_assign", None) or 1, m[0]))
            if self.mode == "mp" and W > 1:
                self.core(t + 9.1, "WARNING", "multiproc_worker_utils.py:273", "Reducing Torch parallelism from %d threads to 1 to avoid unnecessary CPU contention. Set OMP_NUM_THREADS in the external environment to tune this value as needed." % rng.choice([52, 64, 96, 112]))
                self.core(t + 9.2, "INFO", "shm_broadcast.py:289", "vLLM message queue communication handle: Handle(local_reader_ranks=%s, buffer_handle=(%d, 16777216, 10, 'psm_%s'), local_subscribe_addr='ipc:///tmp/%s-%s-%s-%s-%s', remote_subscribe_addr=None, remote_addr_ipv6=False)" % (
                    str(list(range(W))), W, hexid(rng, 8), hexid(rng, 8), hexid(rng, 4), hexid(rng, 4), hexid(rng, 4), hexid(rng, 12)))
            if self.mode == "ray":
                self.core(t + 9.3, "INFO", "ray_utils.py:339", "No current placement group found. Creating a new placement group.")
                self.core(t + 9.4, "INFO", "ray_distributed_executor.py:176", "use_ray_spmd_worker: True")
        # worker init
        tw = t + 14
        nn = len(set(self.R.rank_node[r] for r in self.ranks))
        lr = max(1, W // max(1, nn))
        dedup_first = True
        for i, r in enumerate(self.ranks):
            tt = tw + i * 0.03
            rep = 0
            if self.dedup and i > 1:
                continue
            if self.dedup and i == 1:
                rep = W - 2
            k = self.ranks.index(r)
            if self.style != "v0" or k == 0 or True:
                self.w(r, tt, "INFO", "__init__.py:1433" if self.style != "v0" else "utils.py:960", "Found nccl from library libnccl.so.2", rep)
                self.w(r, tt + 0.01, "INFO", "pynccl.py:70", "vLLM is using nccl==%s" % self.nccl, rep)
        for i, r in enumerate(self.ranks):
            if self.dedup and i > 2:
                continue
            self.nccl_init(r, tw + 1 + i * 0.01, W, nn, lr, grp_rank=self.ranks.index(r))
        if self.style != "v0" and self.torch >= "2.4" and W > 1 and rng.random() < 0.5:
            self.barrier_warn(tw + 1.5)
        for i, r in enumerate(self.ranks):
            k = self.ranks.index(r)
            if self.dedup and i > 1:
                continue
            rep = W - 2 if (self.dedup and i == 1) else 0
            tt = tw + 2 + i * 0.02
            if self.style != "v0" and getattr(self, "dp_assign", None):
                gw = self.dp_assign
                self.w(r, tt, "INFO", "parallel_state.py:1165", "rank %d in world size %d is assigned as DP rank %d, PP rank 0, TP rank 0, EP rank %d" % (
                    r, gw, r, r), rep)
            elif self.style != "v0":
                self.w(r, tt, "INFO", "parallel_state.py:1165", "rank %d in world size %d is assigned as DP rank %d, PP rank %d, TP rank %d, EP rank %d" % (
                    k, W, 0, k // self.tp, k % self.tp, k % self.tp), rep)
            self.w(r, tt + 0.3, "INFO", "gpu_model_runner.py:2338" if self.style != "v0" else "model_runner.py:1072",
                   "Starting to load model %s..." % mdir, rep)
            if self.style != "v0":
                self.w(r, tt + 0.4, "INFO", "cuda.py:362", "Using Flash Attention backend on V1 engine.", rep)
        # weights
        load_s = load_s or rng.uniform(25, 160) * (R.model[3] / 150.0) ** 0.5
        shards = m[2]
        tl = tw + 3
        r0 = self.ranks[0]
        frac_stop = rng.uniform(0.2, 0.8) if stall == r0 else 1.0
        nb = 8
        for j in range(nb + 1):
            f = j / nb
            if f > frac_stop:
                break
            i = int(shards * f)
            el = load_s * f
            rate = (i / el) if el > 0 else 0
            eta = (shards - i) / rate if rate > 0 else 0
            txt = "Loading safetensors checkpoint shards: %3d%% Completed | %d/%d [%s<%s, %s]" % (
                int(100 * i / shards), i, shards, hms(el), "?" if i == 0 else hms(eta),
                "?it/s" if i == 0 else ("%5.2fit/s" % rate if rate >= 1 else "%5.2fs/it" % (1 / rate)))
            self.wraw(r0, tl + el, txt)
        done_t = {}
        for i, r in enumerate(self.ranks):
            if r == stall:
                continue
            if self.dedup and i > 1:
                continue
            rep = W - 2 if (self.dedup and i == 1) else 0
            lt = load_s * rng.uniform(0.93, 1.02)
            done_t[r] = tl + lt
            self.w(r, tl + lt, "INFO", "default_loader.py:268" if self.style != "v0" else "loader.py:1071",
                   "Loading weights took %.2f seconds" % lt, rep)
            self.w(r, tl + lt + 0.5, "INFO", "gpu_model_runner.py:2392" if self.style != "v0" else "model_runner.py:1083",
                   "Model loading took %.4f GiB and %.6f seconds" % (R.model[3] / max(1, getattr(self, "wshard", W)) * rng.uniform(0.98, 1.02), lt + 0.6), rep)
        if stall is not None:
            return tl + load_s * 1.02 + 1
        tk = tl + load_s * 1.05 + rng.uniform(8, 40)
        g = GPUS[R.gpu_key]
        ws = getattr(self, "wshard", W)
        kvg = g["gib"] * 0.92 - R.model[3] / max(1, ws) - rng.uniform(2, 5)
        for i, r in enumerate(self.ranks):
            if self.dedup and i > 1:
                continue
            rep = W - 2 if (self.dedup and i == 1) else 0
            if self.style != "v0":
                self.w(r, tk + i * 0.01, "INFO", "gpu_worker.py:298", "Available KV cache memory: %.2f GiB" % (kvg + rng.uniform(-0.05, 0.05)), rep)
        toks = int(kvg * 1024 ** 3 / (2 * 80 * 8 * 128 * 2) * max(1, W))
        if self.style == "v0":
            self.api(tk + 1, "INFO", "distributed_gpu_executor.py:57", "# GPU blocks: %d, # CPU blocks: %d" % (toks // 16, rng.choice([4096, 6553, 13107])))
        else:
            self.core(tk + 1, "INFO", "kv_cache_utils.py:864", "GPU KV cache size: {:,} tokens".format(toks))
            self.core(tk + 1.01, "INFO", "kv_cache_utils.py:868", "Maximum concurrency for 32,768 tokens per request: %.2fx" % (toks / 32768.0))
        tg = tk + rng.uniform(6, 30)
        self.wraw(r0, tg, "Capturing CUDA graphs (mixed prefill-decode, PIECEWISE): 100%%|██████████| 67/67 [00:%02d<00:00, %5.2fit/s]" % (
            int(tg - tk) % 60, rng.uniform(4, 12)) if self.style == "v1b" else
            "Capturing CUDA graph shapes: 100%%|██████████| 67/67 [00:%02d<00:00,  %4.2fit/s]" % (int(tg - tk) % 60, rng.uniform(2, 9)))
        self.w(r0, tg + 0.2, "INFO", "gpu_model_runner.py:3118" if self.style != "v0" else "model_runner.py:1562",
               "Graph capturing finished in %d secs, took %.2f GiB" % (int(tg - tk), rng.uniform(0.3, 1.4)))
        if self.style == "v0":
            self.api(tg + 0.3, "INFO", "llm_engine.py:431", "init engine (profile, create kv cache, warmup model) took %.2f seconds" % (tg - tl))
        else:
            self.core(tg + 0.3, "INFO", "core.py:218", "init engine (profile, create kv cache, warmup model) took %.2f seconds" % (tg - tl))
        ta = tg + rng.uniform(1, 4)
        if self.api_on and getattr(self, "apiserver", True):
            self.api(ta, "INFO", "api_server.py:1880" if self.style != "v0" else "launcher.py:19", "Starting vLLM API server %son http://0.0.0.0:8000" % ("0 " if self.style == "v1b" else ""))
            self.uv(ta + 0.1, "Started server process [%d]" % self.api_pid)
            self.uv(ta + 0.11, "Waiting for application startup.")
            self.uv(ta + 0.12, "Application startup complete.")
        return ta + 0.2

    # --- steady state -----------------------------------------------------
    def metrics(self, t, run=None, wait=0, gen=None, kv=None):
        rng = self.rng
        run = rng.randint(6, 180) if run is None else run
        gen = gen if gen is not None else run * rng.uniform(9, 26)
        kv = kv if kv is not None else min(99.0, run * rng.uniform(0.2, 0.5))
        pr = rng.choice([0.0, 0.0, rng.uniform(200, 9000)])
        if self.style == "v0":
            msg = "Avg prompt throughput: %.1f tokens/s, Avg generation throughput: %.1f tokens/s, Running: %d reqs, Swapped: 0 reqs, Pending: %d reqs, GPU KV cache usage: %.1f%%, CPU KV cache usage: 0.0%%." % (
                pr, gen, run, wait, kv)
            self.api(t, "INFO", "metrics.py:467", msg)
        else:
            msg = "Engine %03d: Avg prompt throughput: %.1f tokens/s, Avg generation throughput: %.1f tokens/s, Running: %d reqs, Waiting: %d reqs, GPU KV cache usage: %.1f%%, Prefix cache hit rate: %.1f%%" % (
                self.dp, pr, gen, run, wait, kv, rng.uniform(5, 60))
            if self.api_on:
                self.api(t, "INFO", "loggers.py:123", msg)
            else:
                self.core(t, "INFO", "loggers.py:123", msg)

    def access(self, t, code=200, path="/v1/chat/completions"):
        rng = self.rng
        txt = {200: "200 OK", 500: "500 Internal Server Error", 400: "400 Bad Request", 503: "503 Service Unavailable"}[code]
        self.uv(t, '%s:%d - "POST %s HTTP/1.1" %s' % (rng.choice(self.L.client_ips), rng.randint(30000, 65000), path, txt))

    def serve(self, ta, tb, slow=False, snip=True):
        rng = self.rng
        span = tb - ta
        marks = []
        if span > 1800 and snip:
            marks = [(ta, ta + 420), (tb - 1080, tb)]
        else:
            marks = [(ta, tb)]
        for a, b in marks:
            t = a + rng.uniform(1, 9)
            while t < b:
                if slow:
                    self.metrics(t, gen=rng.uniform(300, 900), wait=rng.randint(10, 90))
                else:
                    self.metrics(t)
                for _ in range(rng.randint(0, 3)):
                    self.access(min(t + rng.uniform(0, 9), b - 0.3))
                if rng.random() < 0.01:
                    self.access(t + 2, 400)
                t += 10
        if len(marks) > 1 and self.api_on:
            self.s.add(marks[0][1] + 1, "... [%d lines snipped] ..." % rng.randint(4000, 60000) if rng.random() < 0.5 else "")
        return marks

    def bad_request_decoy(self, t):
        """a handled exception: client sent too long a prompt (400)."""
        rng = self.rng
        n = rng.randint(32769, 60000)
        if self.style == "v0":
            self.api(t, "ERROR", "serving_chat.py:170", "Error in preprocessing prompt inputs")
        else:
            self.api(t, "ERROR", "serving_chat.py:222", "Error in preprocessing prompt inputs")
        self.s.add(t + 0.001, self.api_pfx() + self._fmt(t, "ERROR", "serving_chat.py:222", node=self.node0(), msg="ValueError: This model's maximum context length is 32768 tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion." % (n, n - 512, 512)))
        self.access(t + 0.01, 400)

    def cancel_decoy(self, t):
        """client disconnect in the middle of a stream: handled, engine keeps running."""
        if not self.api_on or self.style == "v0":
            return
        self.tb(t, self.api_pfx(), "ERROR", "serving_chat.py:1107", "Error in chat completion stream generator.",
                [("vllm/entrypoints/openai/serving_chat.py", 582, "chat_completion_stream_generator", "async for res in result_generator:"),
                 ("vllm/v1/engine/async_llm.py", 387, "generate", "out = q.get_nowait() or await q.get()"),
                 ("vllm/v1/engine/output_processor.py", 57, "get", "await self.ready.wait()"),
                 ("/usr/lib/python3.12/asyncio/locks.py", 212, "wait", "await fut")],
                ["asyncio.exceptions.CancelledError"], self.node0())
        self.api(t + 0.002, "INFO", "async_llm.py:388", "Request chatcmpl-%s aborted." % hexid(self.rng, 32))

    def barrier_warn(self, t):
        """torch>=2.4 prints this from every rank at init; alarming but harmless."""
        R = self.R
        for i, r in enumerate(self.ranks):
            if self.dedup and i > 1:
                continue
            k = self.ranks.index(r)
            d = R.d(t + i * 0.003, R.rnode(r))
            dev = 0 if self.mode == "ray" else R.rank_local[r]
            line = "[rank%d]:[W%d%02d %s.%09d ProcessGroupNCCL.cpp:4718] [PG ID 0 PG GUID 0 Rank %d]  using GPU %d to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect. Specify device_ids in barrier() to force use of a particular device, or call init_process_group() with a device_id." % (
                k, d.month, d.day, d.strftime("%H:%M:%S"), d.microsecond * 1000 + 17, k, dev)
            if self.dedup and i == 1:
                line += " [repeated %dx across cluster]" % (len(self.ranks) - 2)
            self.s.add(t + i * 0.003, self.w_pfx(r) + line)

    def shm_wait(self, t0, n, old=False):
        for i in range(n):
            t = t0 + 60 * (i + 1)
            if self.style == "v1b" and self.ver >= "0.11":
                self.core(t, "INFO", "shm_broadcast.py:466", "No available shared memory broadcast block found in 60 seconds. This typically happens when some processes are hanging or doing some time-consuming work (e.g. compilation, weight/kv cache quantization).")
            elif self.style in ("v1a", "v1b"):
                if self.debug_log:   # logger.debug before v0.11: only visible with VLLM_LOGGING_LEVEL=DEBUG
                    self.core(t, "DEBUG", "shm_broadcast.py:456", "No available shared memory broadcast block found in 60 second.")
            else:
                self.api(t, "WARNING", "shm_broadcast.py:404", "No available block found in 60 second. ")

    # --- failure chains ----------------------------------------------------
    def mfile(self):
        a = self.R.model[1]
        return {"LlamaForCausalLM": "llama", "Qwen2ForCausalLM": "qwen2", "Qwen3ForCausalLM": "qwen3",
                "Qwen3MoeForCausalLM": "qwen3_moe", "DeepseekV3ForCausalLM": "deepseek_v2",
                "MixtralForCausalLM": "mixtral", "Gemma3ForConditionalGeneration": "gemma3"}.get(a, "llama")

    def worker_frames(self, kind):
        if self.mode == "ray":
            head = [("vllm/worker/worker_base.py" if self.style == "v0" else "vllm/executor/ray_utils.py",
                     565 if self.style == "v0" else 129, "execute_method" if self.style == "v0" else "execute_model_ray",
                     "return run_method(self, method, args, kwargs)" if self.style == "v0" else "output = self.worker.model_runner.execute_model(")]
        elif self.mode == "mp":
            head = [("vllm/v1/executor/multiproc_executor.py", 666, "worker_busy_loop", "output = func(*args, **kwargs)")]
        else:
            head = [("vllm/v1/engine/core.py", 284, "step", "model_output = self.execute_model_with_error_logging("),
                    ("vllm/v1/engine/core.py", 261, "execute_model_with_error_logging", "return model_fn(scheduler_output)"),
                    ("vllm/v1/executor/abstract.py", 87, "execute_model", "output = self.collective_rpc(\"execute_model\",")]
        if self.style == "v0":
            body = [("torch/utils/_contextlib.py", 116, "decorate_context", "return func(*args, **kwargs)"),
                    ("vllm/worker/model_runner.py", 1719, "execute_model", "hidden_or_intermediate_states = model_executable(")]
        else:
            body = [("torch/utils/_contextlib.py", 120, "decorate_context", "return func(*args, **kwargs)"),
                    ("vllm/v1/worker/gpu_worker.py", 447, "execute_model", "output = self.model_runner.execute_model(scheduler_output,"),
                    ("torch/utils/_contextlib.py", 120, "decorate_context", "return func(*args, **kwargs)")]
        if kind == "oom":
            tail = [("vllm/v1/worker/gpu_model_runner.py", 2130, "execute_model", "logits = self.model.compute_logits(sample_hidden_states, None)"),
                    ("vllm/model_executor/models/%s.py" % self.mfile(), 605, "compute_logits", "logits = self.logits_processor(self.lm_head, hidden_states,"),
                    ("vllm/model_executor/layers/logits_processor.py", 65, "forward", "logits = self._get_logits(hidden_states, lm_head, embedding_bias)"),
                    ("vllm/model_executor/layers/logits_processor.py", 104, "_get_logits", "logits = self._gather_logits(logits)"),
                    ("vllm/model_executor/layers/logits_processor.py", 89, "_gather_logits", "logits = tensor_model_parallel_gather(logits)"),
                    ("vllm/distributed/communication_op.py", 24, "tensor_model_parallel_gather", "return get_tp_group().gather(input_, dst, dim)")]
        elif kind in ("ima", "lost", "ecc"):
            tail = [("vllm/v1/worker/gpu_model_runner.py", 2227, "execute_model", "valid_sampled_token_ids = self._to_list(sampled_token_ids)"),
                    ("vllm/v1/worker/gpu_model_runner.py", 3604, "_to_list", "self.transfer_event.synchronize()"),
                    ("torch/cuda/streams.py", 231, "synchronize", "super().synchronize()")]
        elif kind == "net" and getattr(self, "dp_assign", None):
            tail = [("vllm/v1/worker/gpu_model_runner.py", 2064, "execute_model", "model_output = self.model("),
                    ("vllm/model_executor/models/deepseek_v2.py", 707, "forward", "hidden_states = self.mlp(hidden_states)"),
                    ("vllm/model_executor/models/deepseek_v2.py", 196, "forward", "final_hidden_states = self.experts("),
                    ("vllm/model_executor/layers/fused_moe/layer.py", 1592, "forward_impl", "hidden_states, router_logits = get_ep_group().dispatch("),
                    ("vllm/distributed/device_communicators/all2all.py", 93, "dispatch", "hidden_states = dist_group.all_gatherv(hidden_states,"),
                    ("vllm/distributed/device_communicators/pynccl.py", 183, "all_gatherv", "self.nccl.ncclAllGather("),
                    ("vllm/distributed/device_communicators/pynccl_wrapper.py", 293, "NCCL_CHECK", "raise RuntimeError(f\"NCCL error: {error_str}\")")]
        elif kind in ("nvlink", "net"):
            tail = [("vllm/v1/worker/gpu_model_runner.py", 2064, "execute_model", "model_output = self.model("),
                    ("vllm/model_executor/models/%s.py" % self.mfile(), 591, "forward", "model_output = self.model(input_ids, positions, intermediate_tensors,"),
                    ("vllm/model_executor/layers/linear.py", 1371, "forward", "output = tensor_model_parallel_all_reduce(output_parallel)"),
                    ("vllm/distributed/communication_op.py", 14, "tensor_model_parallel_all_reduce", "return get_tp_group().all_reduce(input_)"),
                    ("vllm/distributed/parallel_state.py", 302, "all_reduce", "return self._all_reduce_out_place(input_)"),
                    ("vllm/distributed/device_communicators/pynccl.py", 128, "all_reduce", "self.nccl.ncclAllReduce(buffer_type(in_tensor.data_ptr()),"),
                    ("vllm/distributed/device_communicators/pynccl_wrapper.py", 293, "NCCL_CHECK", "raise RuntimeError(f\"NCCL error: {error_str}\")")] if kind == "net" else [
                    ("vllm/v1/worker/gpu_model_runner.py", 2064, "execute_model", "model_output = self.model("),
                    ("vllm/model_executor/layers/linear.py", 1371, "forward", "output = tensor_model_parallel_all_reduce(output_parallel)"),
                    ("vllm/distributed/device_communicators/custom_all_reduce.py", 292, "custom_all_reduce", "return self.all_reduce(input, registered=True)"),
                    ("vllm/distributed/device_communicators/custom_all_reduce.py", 265, "all_reduce", "ops.all_reduce(self._ptr, inp, out, self.buffer_ptrs[self.rank],"),
                    ("vllm/_custom_ops.py", 1772, "all_reduce", "torch.ops._C_custom_ar.all_reduce(fa, inp, out, reg_buffer, reg_buffer_sz_bytes)"),
                    ("torch/_ops.py", 1158, "__call__", "return self._op(*args, **(kwargs or {}))")]
        else:  # py
            tail = [("vllm/v1/worker/gpu_model_runner.py", 1764, "execute_model", "self._update_states(scheduler_output)"),
                    ("vllm/v1/worker/gpu_model_runner.py", 612, "_update_states", "self.input_batch.add_request(req_state)"),
                    ("vllm/v1/worker/gpu_input_batch.py", 341, "add_request", "self.lora_mapping[req_index] = self._resolve_lora(request)")]
        if self.style == "v0":
            tail = [(p.replace("v1/worker/gpu_model_runner", "worker/model_runner"), ln, fn, c) for (p, ln, fn, c) in tail]
        return head + body + tail

    def worker_exc(self, r, t, kind, exc):
        pfx = self.w_pfx(r)
        nd = self.R.rnode(r)
        if self.mode == "ray" and self.style == "v0":
            self.tb(t, pfx, "ERROR", "worker_base.py:575", "Error executing method 'execute_model'. This might cause deadlock in distributed execution.",
                    self.worker_frames(kind), exc, nd)
        elif self.mode == "ray":
            self.tb(t, pfx, "ERROR", "worker_base.py:620", "Error executing method 'execute_model'. This might cause deadlock in distributed execution.",
                    self.worker_frames(kind), exc, nd)
        elif self.mode == "mp" and self.style != "v0":
            self.tb(t, pfx, "ERROR", "multiproc_executor.py:671", "WorkerProc hit an exception.",
                    self.worker_frames(kind), exc, nd)
        elif self.mode == "mp":
            self.tb(t, pfx, "ERROR", "multiproc_worker_utils.py:233", "Exception in worker VllmWorkerProcess while processing method execute_model.",
                    self.worker_frames(kind), exc, nd)
        else:  # uni: exception surfaces as the engine core's own fatal error
            self.engine_fatal(t, exc, frames=self.worker_frames(kind), worker_msg=None)

    def engine_fatal(self, t, exc, frames=None, worker_msg=None, dead_rank=None, ray_err=None):
        """engine core (or V0 engine) declares itself dead; API server 500s."""
        rng = self.rng
        if self.style == "v0":
            self.tb(t, self.api_pfx(), "ERROR", "async_llm_engine.py:65", "Engine background task failed",
                    [("vllm/engine/async_llm_engine.py", 55, "_log_task_completion", "return_value = task.result()"),
                     ("vllm/engine/async_llm_engine.py", 872, "run_engine_loop", "result = task.result()"),
                     ("vllm/engine/async_llm_engine.py", 795, "engine_step", "request_outputs = await self.engine.step_async(virtual_engine)"),
                     ("vllm/engine/async_llm_engine.py", 346, "step_async", "outputs = await self.model_executor.execute_model_async("),
                     ("vllm/executor/ray_gpu_executor.py" if self.mode == "ray" else "vllm/executor/multiproc_gpu_executor.py",
                      513 if self.mode == "ray" else 201, "execute_model_async" if self.mode == "ray" else "_driver_execute_model_async",
                      "return await super().execute_model_async(execute_model_req)")] + (frames or []),
                    exc, self.node0())
            self.api(t + 0.4, "ERROR", "launcher.py:107" if self.ver >= "0.7" else "launcher.py:100",
                     "Exception in ASGI application" if rng.random() < 0.3 else "AsyncLLMEngine has failed, terminating server process")
            self.s.add(t + 0.41, self.api_pfx() + "vllm.engine.async_llm_engine.AsyncEngineDeadError: Background loop has errored already.")
            return
        fr = [("vllm/v1/engine/core.py", 701, "run_engine_core", "engine_core.run_busy_loop()"),
              ("vllm/v1/engine/core.py", 728, "run_busy_loop", "self._process_engine_step()"),
              ("vllm/v1/engine/core.py", 754, "_process_engine_step", "outputs, model_executed = self.step_fn()")]
        if frames is None:
            fr += [("vllm/v1/engine/core.py", 284, "step", "model_output = self.execute_model_with_error_logging("),
                   ("vllm/v1/engine/core.py", 270, "execute_model_with_error_logging", "raise err"),
                   ("vllm/v1/engine/core.py", 261, "execute_model_with_error_logging", "return model_fn(scheduler_output)")]
            if self.mode == "mp":
                fr += [("vllm/v1/executor/multiproc_executor.py", 173, "execute_model", "(output, ) = self.collective_rpc("),
                       ("vllm/v1/executor/multiproc_executor.py", 247, "collective_rpc", "raise RuntimeError(")]
            elif self.mode == "ray":
                fr += [("vllm/v1/executor/ray_distributed_executor.py", 75, "execute_model", "return refs[0].get()"),
                       ("ray/experimental/compiled_dag_ref.py", 150, "get", "raise execution_error from None")]
        else:
            fr += frames
        if self.style != "v0" and rng.random() < 0.6:
            self.core(t - 0.01, "ERROR", "dump_input.py:69", "Dumping input data for V1 LLM engine (v%s) with config: model='%s', speculative_config=None, ..." % (self.ver, self.model_dir))
            self.core(t - 0.005, "ERROR", "dump_input.py:79", "Dumping scheduler output for model execution: SchedulerOutput(scheduled_new_reqs=[], scheduled_cached_reqs=CachedRequestData(req_ids=['chatcmpl-%s', ...], resumed_from_preemption=[false, ...]), num_scheduled_tokens={...}, total_num_scheduled_tokens=%d, ...)" % (hexid(rng, 32), rng.randint(40, 8192)))
        self.tb(t, self.core_pfx(), "ERROR", "core.py:710", "EngineCore encountered a fatal error.", fr, exc, self.node0())
        self.api_dead(t + rng.uniform(0.01, 0.2))

    def api_dead(self, t):
        if not self.api_on:
            return
        fr = [("vllm/v1/engine/async_llm.py", 439, "output_handler", "outputs = await engine_core.get_output_async()"),
              ("vllm/v1/engine/core_client.py", 846, "get_output_async", "raise self._format_exception(outputs) from None")]
        self.tb(t, self.api_pfx(), "ERROR", "async_llm.py:480", "AsyncLLM output_handler failed.", fr,
                ["vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause."], self.node0())

    def shutdown(self, t, code=500, n500=None):
        rng = self.rng
        n500 = rng.randint(2, 8) if n500 is None else n500
        for i in range(n500):
            self.access(t + 0.05 + i * 0.01, code)
        if self.api_on:
            self.uv(t + 0.5, "Shutting down")
            self.uv(t + 0.6, "Waiting for application shutdown.")
            self.uv(t + 0.7, "Application shutdown complete.")
            self.uv(t + 0.8, "Finished server process [%d]" % self.api_pid)

    def others_exit(self, t, culprit=None):
        rng = self.rng
        for i, r in enumerate(self.ranks):
            if r == culprit:
                continue
            if self.dedup and i > 2:
                continue
            if self.mode == "mp" and self.style == "v1b":
                self.w(r, t + i * 0.002, "INFO", "multiproc_executor.py:558", "Parent process exited, terminating worker")
            elif self.mode == "mp" and self.style == "v1a" and rng.random() < 0.5:
                self.w(r, t + i * 0.002, "INFO", "multiproc_executor.py:520", "WorkerProc shutting down.")


# ----------------------------------------------------------------------------
# torch c10d text
# ----------------------------------------------------------------------------
def c10d_timeout(R, rank, t, node, seq, op, numel, last_enq, last_comp, pg=(0, 0), torch_ver="2.6.0",
                 pyroot="/usr/local/lib/python3.12/dist-packages/", timeout_ms=600000, short=False):
    rng = R.rng
    d = R.d(t, node)
    ran = timeout_ms + rng.randint(5, 90)
    pgs = "[PG ID %d PG GUID %d Rank %d]" % (pg[0], pg[1], rank) if torch_ver >= "2.3" else "[Rank %d]" % rank
    work = "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (seq, op, numel, numel, timeout_ms)
    p = "[rank%d]:[%s ProcessGroupNCCL.cpp:%%d] " % (rank, f_c10("E", d))
    L = [p % 632 + "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (rank, work, ran),
         p % 2271 + "%s failure detected by watchdog at work sequence id: %d PG status: last enqueued work: %d, last completed work: %d" % (pgs, seq, last_enq, last_comp)]
    if short:
        return L
    L += [p % 670 + "Stack trace of the failed collective not found, potentially because FlightRecorder is disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value.",
          p % 684 + "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % rank,
          p % 698 + "[Rank %d] To avoid data inconsistency, we are taking the entire process down." % rank,
          p % 1899 + "%s Process group watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (pgs, rank, work, ran),
          "Exception raised from checkTimeout at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:635 (most recent call first):",
          "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x98 (0x7f%s in %storch/lib/libc10.so)" % (hexid(rng, 10), pyroot),
          "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x23d (0x7f%s in %storch/lib/libtorch_cuda.so)" % (hexid(rng, 10), pyroot),
          "frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0xc80 (0x7f%s in %storch/lib/libtorch_cuda.so)" % (hexid(rng, 10), pyroot),
          "frame #3: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d (0x7f%s in %storch/lib/libtorch_cuda.so)" % (hexid(rng, 10), pyroot),
          "frame #4: <unknown function> + 0xdc253 (0x7f%s in /lib/x86_64-linux-gnu/libstdc++.so.6)" % hexid(rng, 10),
          "frame #5: <unknown function> + 0x94ac3 (0x7f%s in /lib/x86_64-linux-gnu/libc.so.6)" % hexid(rng, 10),
          "frame #6: clone + 0x44 (0x7f%s in /lib/x86_64-linux-gnu/libc.so.6)" % hexid(rng, 10),
          "",
          "terminate called after throwing an instance of 'c10::DistBackendError'",
          "  what():  %s Process group watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (pgs, rank, work, ran)]
    return L


def mismatch_text(r_bad, r_ref, seq, op_bad, op_ref, shp_bad, shp_ref, dev="cuda"):
    fp = "CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%s], TensorDtypes=%s, TensorDeviceTypes=%s)"
    a = fp % (seq, op_bad, shp_bad, "BFloat16" if dev == "cuda" else "Long", dev)
    b = fp % (seq, op_ref, shp_ref, "BFloat16" if dev == "cuda" else "Long", dev)
    diff = []
    if op_bad != op_ref:
        diff.append("\t Op type: %svs %s" % (op_bad, op_ref))
    if shp_bad != shp_ref:
        diff.append("\t Tensor Tensor shapes: %svs %s" % (shp_bad.replace(", ", "x"), shp_ref.replace(", ", "x")))
    return ["RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects: %s" % (
        r_bad, a, r_ref, b, "  ".join(diff))]


def nccl_ib_warn(host, pid, dev, peer_ip, lip, hca, st=12, recv=True, ver="2.21.5"):
    port = 30000 + (pid * 7) % 30000
    if ver >= "2.19":
        return "%s:%d:%d [%d] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer %s<%d> with status=%d opcode=%d len=0 vendor err %d (%s) localGid ::ffff:%s remoteGids::ffff:%s hca %s" % (
            host, pid, pid + 37, dev, peer_ip, port, st, 0 if recv else 1, 129 if st == 12 else 244, "Recv" if recv else "Send", lip, peer_ip, hca)
    return "%s:%d:%d [%d] transport/net_ib.cc:1337 NCCL WARN NET/IB : Got completion from peer %s<%d> with error %d, opcode %d, len 0, vendor err %d (%s)" % (
        host, pid, pid + 37, dev, peer_ip, port, st, 0 if recv else 1, 129, "Recv" if recv else "Send")


PYSPY_STUCK = [
    ["_wait_for_tstate_lock (threading.py:1167)", "join (threading.py:1147)", "_update_states (vllm/v1/worker/gpu_model_runner.py:612)",
     "execute_model (vllm/v1/worker/gpu_model_runner.py:1764)"],
    ["read (safetensors/torch.py:313)", "load_file (safetensors/torch.py:315)", "_load_adapter (vllm/lora/models.py:233)",
     "add_lora (vllm/lora/worker_manager.py:141)"],
    ["recv (zmq/sugar/socket.py:804)", "dequeue (vllm/distributed/device_communicators/shm_broadcast.py:519)",
     "worker_busy_loop (vllm/v1/executor/multiproc_executor.py:660)"],
    ["compile_fx (torch/_inductor/compile_fx.py:1741)", "__call__ (torch/_dynamo/repro/after_aot.py:129)",
     "_compile (torch/_dynamo/convert_frame.py:897)", "forward (vllm/model_executor/models/llama.py:591)"],
]
PYSPY_WAIT = ["synchronize (torch/cuda/streams.py:231)", "_to_list (vllm/v1/worker/gpu_model_runner.py:3604)",
              "execute_model (vllm/v1/worker/gpu_model_runner.py:2227)", "execute_model (vllm/v1/worker/gpu_worker.py:447)",
              "worker_busy_loop (vllm/v1/executor/multiproc_executor.py:666)"]


def pyspy_dump(R, pid, stack, py="3.12.3", cmd="python3 -m vllm.entrypoints.openai.api_server"):
    L = ["Process %d: %s" % (pid, cmd), "Python v%s (/usr/bin/python3.12)" % py, "",
         "Thread %d (active): \"MainThread\"" % pid]
    for s in stack:
        L.append("    " + s)
    L += ["Thread %d (idle): \"Thread-1 (_report_usage_worker)\"" % (pid + 71),
          "    wait (threading.py:359)", "    wait (threading.py:655)", "    run (threading.py:1010)", ""]
    return "\n".join(L)


# ----------------------------------------------------------------------------
# layout 1: vllm-mp  (vllm serve in docker, multiprocessing executor; TP on one
# node, or DP+EP across two nodes with a headless second node)
# ----------------------------------------------------------------------------
class VllmMP(Layout):
    name = "vllm-mp"
    in_container = True

    def setup(self):
        R, rng = self.R, self.rng
        c = R.cause
        self.dpep = c == "network" or (c in ("preemption",) and rng.random() < 0.5) or rng.random() < 0.2
        vers = [v for v in VLLM_VERSIONS if (v[1] == "v1b" if self.dpep else True)]
        self.ver = rng.choice(vers)
        style = rng.choice(["gpu", "ip", "dgx"])
        gk = R.gpu_key

        def namer(num, ip):
            if style == "ip":
                return "ip-" + ip.replace(".", "-")
            if style == "dgx":
                return "dgx-%s-%02d" % (gk.lower(), num % 100)
            return "gpu-%s-%03d" % (gk.lower(), num)
        R.build_nodes(2 if self.dpep else 1, gk, namer, rng.choice(["10.0", "172.31", "10.42"]))
        if self.dpep:
            R.map_ranks(8)
        else:
            tp = rng.choice([2, 4, 4, 8, 8, 8])
            if c == "nvlink" and tp < 4:
                tp = 4
            R.map_ranks(tp)
        R.fit_model(R.world, prefer=["Moe", "Deepseek", "Mixtral"] if self.dpep else None)
        self.hostnet = rng.random() < 0.5
        for nd in R.nodes:
            nd.cid = hexid(rng, 12)
            nd.aliases = [nd.name, nd.ip] + ([] if self.hostnet else [nd.cid])
            if style == "ip":
                nd.aliases.append(nd.name + ".ec2.internal")
        self.client_ips = ["10.%d.%d.%d" % (rng.randint(0, 250), rng.randint(0, 250), rng.randint(2, 250)) for _ in range(4)]
        self.nccl_debug = rng.random() < 0.45
        self.cgroup = True
        py = "/usr/local/lib/python3.12/dist-packages/"
        host_of = (lambda r: R.rnode(r).name) if self.hostnet else (lambda r: R.rnode(r).cid)
        self.files = {}
        for nd in R.nodes:
            fn = "docker-logs-vllm%s.txt" % ("" if len(R.nodes) == 1 else "-" + nd.name)
            self.files[nd.idx] = R.sink(fn)
        if self.dpep:
            self.engs = []
            for r in range(R.world):
                e = VLLM(self, self.files[R.rank_node[r]], [r], 1, 1, self.ver, "uni", host_of, py,
                         dp_index=r, api=(r == 0), nccl_debug=self.nccl_debug)
                e.wshard = R.world
                self.engs.append(e)
            self.eng = self.engs[0]
        else:
            self.eng = VLLM(self, self.files[0], list(range(R.world)), R.world, 1, self.ver, "mp", host_of, py,
                            nccl_debug=self.nccl_debug)
            self.engs = [self.eng]
        self.client = Client(R, "client-loadgen.log", "http://%s:8000" % R.nodes[0].ip)
        if self.ver[1] == "v0":
            self.client.msg500 = "{'object': 'error', 'message': 'Background loop has errored already.', 'type': 'BadRequestError', 'param': None, 'code': 400}"
        R.notes.append("vLLM %s %s, %s" % (self.ver[0], "DP=%d EP (2 nodes, headless node 1)" % R.world if self.dpep else "TP=%d" % R.world,
                                            "NCCL_DEBUG=INFO" if self.nccl_debug else "no NCCL debug"))

    def attach(self, tgt_node):
        R, rng = self.R, self.rng
        for nd in R.nodes:
            p = 0.85 if nd.idx == tgt_node else 0.35
            if rng.random() < p:
                R.attach_klog(nd)

    def startup(self, t, stall=None):
        R, rng = self.R, self.rng
        if not self.dpep:
            return self.eng.startup(t, stall=stall)
        e0 = self.engs[0]
        e0.nondefault = "non-default args: {'model': '%s', 'trust_remote_code': True, 'data_parallel_size': %d, 'data_parallel_size_local': 8, 'data_parallel_address': '%s', 'data_parallel_rpc_port': 13345, 'enable_expert_parallel': True, 'gpu_memory_utilization': 0.9}" % (
            e0.model_dir, R.world, R.nodes[0].ip)
        for e in self.engs:
            e.dp_assign = R.world
        hl = self.engs[8]
        hl.s.add(t + 3, "%sINFO %s [api_server.py:1760] Launching vLLM (v%s) headless multiproc executor, with head node address tcp://%s:13345 for torch.distributed process group." % (
            "", R.d(t + 3, R.nodes[1]).strftime("%m-%d %H:%M:%S"), self.ver[0], R.nodes[0].ip))
        load_s = rng.uniform(60, 240)
        tr = None
        for r, e in enumerate(self.engs):
            e.model_dir = e0.model_dir
            e.api_on = (r == 0)
            tt = e.startup(t + r * 0.05, stall=stall, load_s=load_s)
            tr = max(tr or 0, tt)
        if stall is not None:
            return tr
        return tr + 2

    def serve(self, ta, tb, slow=None):
        if not self.dpep:
            self.eng.serve(ta, tb, slow=slow is not None)
        else:
            e0 = self.engs[0]
            marks = e0.serve(ta, tb, slow=slow is not None)
            rng = self.rng
            for a, b in marks:
                t = a + 3
                while t < b:
                    for k in rng.sample(range(1, self.R.world), 3):
                        e0.dp = k
                        e0.metrics(t + 0.001 * k)
                    e0.dp = 0
                    t += 10
        self.client.ok_window(ta, tb)

    def decoys(self, ta, tb):
        rng = self.rng
        if rng.random() < 0.6:
            self.eng.bad_request_decoy(rng.uniform(ta, tb))
        if rng.random() < (0.8 if self.R.healthy else 0.35):
            self.eng.cancel_decoy(rng.uniform(ta, tb))
        if rng.random() < 0.4:
            t = rng.uniform(ta, tb)
            self.eng.api(t, "INFO", "async_llm.py:388" if self.eng.style != "v0" else "async_llm_engine.py:179",
                         "Aborted request chatcmpl-%s." % hexid(rng, 32))

    def rank_from_gpu(self, r):
        return (not self.dpep) or self.nccl_debug

    def pid_maps(self, r):
        return True   # worker pid is in the prefix (mp) / core prefix (dp)

    def visible_gpu(self, r):
        return 0 if self.dpep else self.R.rank_local[r]

    def e_of(self, r):
        return self.engs[r] if self.dpep else self.eng

    def exc(self, r, t, kind, lines):
        e = self.e_of(r)
        if kind == "net":
            R = self.R
            nd = R.rnode(r)
            peer = R.nodes[1 - nd.idx] if len(R.nodes) > 1 else nd
            if self.nccl_debug:
                e.s.add(t - 0.2, nccl_ib_warn(nd.name if self.hostnet else nd.cid, R.pids[r], 0, peer.ibip, nd.ibip,
                                              getattr(self, "hca", "mlx5_0"), ver=self.ver[3]))
                e.s.add(t - 0.19, "%s:%d:%d [0] NCCL INFO transport/net.cc:1307 -> 6" % (nd.name if self.hostnet else nd.cid, R.pids[r], R.pids[r] + 37))
        e.worker_exc(r, t, kind, lines)
        return True

    def collapse(self, t, r, kind, short):
        R, rng = self.R, self.rng
        if self.dpep:
            e0 = self.engs[0]
            if r is not None and r != 0:
                e0.api(t + 0.3, "ERROR", "core_client.py:605", "Engine core proc EngineCore_DP%d died unexpectedly, shutting down client." % r)
            e0.api_dead(t + 0.35)
            e0.shutdown(t + 0.6)
            for k in rng.sample(range(R.world), min(4, R.world)):
                if k != r and k != 0:
                    self.engs[k].core(t + rng.uniform(0.5, 3), "INFO", "core.py:662", "EngineCore exiting.")
        else:
            e = self.eng
            if kind in ("kill",):
                pass
            elif e.style != "v0":
                e.engine_fatal(t, ["RuntimeError: Worker failed with error '%s', please check the stack trace above for the root cause" % short])
            else:
                e.engine_fatal(t, [l for l in (getattr(self, "last_lines", None) or ["RuntimeError: " + short]) if l])
            e.others_exit(t + 0.8, r)
            e.shutdown(t + 0.7)
            if rng.random() < 0.6:
                e.s.add(t + 1.2, "/usr/lib/python3.12/multiprocessing/resource_tracker.py:279: UserWarning: resource_tracker: There appear to be 1 leaked shared_memory objects to clean up at shutdown\n  warnings.warn('resource_tracker: There appear to be %d '")
        self.client.fail(t + rng.uniform(0.1, 1.5), "500", rng.randint(2, 5))
        self.client.fail(t + rng.uniform(5, 30), "refused", rng.randint(1, 3))

    def die(self, r, t, sig):
        R, rng = self.R, self.rng
        e = self.e_of(r)
        vis = False
        if sig in ("SIGSEGV", "SIGBUS", "SIGABRT") and rng.random() < 0.65:
            name = {"SIGSEGV": "Segmentation fault", "SIGBUS": "Bus error", "SIGABRT": "Aborted"}[sig]
            txt = ["Fatal Python error: %s" % name, "",
                   "Thread 0x00007f%s (most recent call first):" % hexid(rng, 8),
                   '  File "/usr/lib/python3.12/threading.py", line 359 in wait',
                   '  File "/usr/lib/python3.12/threading.py", line 655 in wait', "",
                   "Current thread 0x00007f%s (most recent call first):" % hexid(rng, 8),
                   '  File "%svllm/distributed/device_communicators/pynccl.py", line 128 in all_reduce' % e.py,
                   '  File "%svllm/distributed/parallel_state.py", line 302 in all_reduce' % e.py,
                   '  File "%svllm/model_executor/layers/linear.py", line 1371 in forward' % e.py, "",
                   "Extension modules: numpy.core._multiarray_umath, torch._C, torch._C._dynamo.autograd_compiler, ... (total: 96)"]
            if sig == "SIGABRT":
                txt = ["terminate called without an active exception"] + txt
            e.s.add(t - 0.01, "\n".join(txt))
        if self.dpep:
            self.engs[0].api(t + 0.4, "ERROR", "core_client.py:605", "Engine core proc EngineCore_DP%d died unexpectedly, shutting down client." % r)
            vis = True
        else:
            if e.style == "v0":
                e.api(t + 0.4, "ERROR", "multiproc_worker_utils.py:116", "Worker VllmWorkerProcess pid %d died, exit code: %d" % (
                    R.pids[r], {"SIGKILL": -9, "SIGSEGV": -11, "SIGBUS": -7, "SIGABRT": -6}[sig]))
                e.api(t + 0.41, "INFO", "multiproc_worker_utils.py:120", "Killing local vLLM worker processes")
                vis = True
            else:
                e.core(t + 0.4, "ERROR", "multiproc_executor.py:149", "Worker proc VllmWorker-%d died unexpectedly, shutting down executor." % r)
                vis = True
            e.api_dead(t + 0.6)
        return vis

    def hang(self, tf, r):
        R, rng = self.R, self.rng
        nd = R.rnode(r)
        e = self.e_of(r)
        n = rng.randint(3, 5)
        if not self.dpep:
            e.shm_wait(tf, n)
            t_to = tf + 300 + rng.uniform(0, 3)
            if e.style != "v0":
                e.engine_fatal(t_to, ["TimeoutError: RPC call to execute_model timed out."],
                               frames=[("vllm/v1/engine/core.py", 284, "step", "model_output = self.execute_model_with_error_logging("),
                                       ("vllm/v1/executor/multiproc_executor.py", 173, "execute_model", "(output, ) = self.collective_rpc("),
                                       ("vllm/v1/executor/multiproc_executor.py", 239, "collective_rpc", "raise TimeoutError(f\"RPC call to {method} timed out.\") from e")])
                e.others_exit(t_to + 0.8, None)
                e.shutdown(t_to + 0.5)
                self.client.fail(tf + 60, "timeout", 4)
                self.client.fail(t_to + 1, "500", 2)
            else:
                self.client.fail(tf + 60, "timeout", 6)
                t_to = tf + 60 * n + 30
        else:
            t_to = tf + rng.uniform(600, 1200)
            self.client.fail(tf + 60, "timeout", 6)
            self.engs[0].uv(t_to, "Shutting down")
        ev = False
        if rng.random() < 0.65:
            st = self.smi_state(nd)
            for k in st:
                st[k]["util"] = 100
            st[R.rank_local[r]]["util"] = 0
            st[R.rank_local[r]]["pw"] = rng.randint(95, 130)
            self.smi_file(nd, tf + rng.uniform(120, 240), st)
            ev = self.rank_from_gpu(r)
        if rng.random() < 0.4 and not self.dpep:
            dumps = []
            stuck = rng.choice(PYSPY_STUCK)
            others = [x for x in range(R.world) if x != r]
            sel = sorted(rng.sample(others, min(2, len(others))) + [r])
            for x in sel:
                dumps.append(pyspy_dump(R, R.pids[x], stuck if x == r else PYSPY_WAIT))
            R.static("py-spy-dumps.txt", "\n".join("$ py-spy dump --pid %d\n%s" % (R.pids[x], dd) for x, dd in zip(sel, dumps)))
            ev = True
        R.notes.append("hang on rank %d; others spin in all-reduce; %s" % (r, "smi/py-spy evidence" if ev else "no per-rank evidence"))
        return ev

    def mismatch(self, tf, r):
        R, rng = self.R, self.rng
        e = self.e_of(r)
        ref = 0 if r != 0 else 1
        seq = rng.randint(2000, 90000)
        if self.dpep:
            txt = mismatch_text(r, ref, seq, "ALLREDUCE", "ALLREDUCE", "3", "2", dev="cpu")
            frames = [("vllm/v1/engine/core.py", 1021, "_has_global_unfinished_reqs", "return ParallelConfig.has_unfinished_dp(self.dp_group,"),
                      ("vllm/config/parallel.py", 251, "has_unfinished_dp", "torch.distributed.all_reduce(tensor, op=ReduceOp.MAX, group=dp_group)"),
                      ("torch/distributed/c10d_logger.py", 81, "wrapper", "return func(*args, **kwargs)"),
                      ("torch/distributed/distributed_c10d.py", 2810, "all_reduce", "work = group.allreduce([tensor], opts)")]
            for k in (r, ref):
                self.engs[k].engine_fatal(tf + (0 if k == ref else 0.02), txt, frames=frames)
            R.notes.append("headless node launched with an extra flag on DP rank %d; TORCH_DISTRIBUTED_DEBUG=DETAIL names it" % r)
        else:
            txt = mismatch_text(r, ref, seq, "BROADCAST", "ALLREDUCE", "1, 8192", "%d, 8192" % rng.choice([256, 512, 128]))
            e.worker_exc(r, tf, "py", txt) if e.style != "v0" else e.engine_fatal(tf, txt)
            e.worker_exc(ref, tf + 0.01, "py", txt) if e.style != "v0" else None
            if e.style != "v0":
                e.engine_fatal(tf + 0.5, ["RuntimeError: Worker failed with error '%s', please check the stack trace above for the root cause" % txt[0][:140]])
            e.shutdown(tf + 1)
            R.notes.append("rank %d took a stale torch.compile cache path and issued a different collective" % r)
        self.client.fail(tf + 1, "500", 3)
        return True

    def net_fail(self, r, tf):
        R, rng = self.R, self.rng
        vis = self.exc(r, tf, "net", self.exc_text("net", r))
        nd = R.rnode(r)
        peers = [k for k in range(R.world) if R.rank_node[k] != nd.idx]
        for k in rng.sample(peers, min(2, len(peers))):
            if self.nccl_debug:
                self.engs[k].s.add(tf + rng.uniform(0.5, 3), nccl_ib_warn(R.rnode(k).name if self.hostnet else R.rnode(k).cid,
                                                                          R.pids[k], 0, nd.ibip, R.rnode(k).ibip, "mlx5_%d" % R.rank_local[k], st=12, ver=self.ver[3]))
            self.engs[k].worker_exc(k, tf + rng.uniform(1, 6), "net", self.exc_text("net", k))
        self.collapse(tf + 4, r, "net", "NCCL error: remote process exited or there was a network error")
        return vis and self.nccl_debug

    def preempt(self, t, nd):
        R, rng = self.R, self.rng
        nm = nd.name
        R.attach_klog(nd, "journal")
        ev = R.sink("cloud-events.txt")
        kind = rng.choice(["aws", "gcp"])
        if kind == "aws":
            ev.add(t - 120, "%s  EC2 Spot Instance Interruption Warning  instance-id=i-0%s  instance-action=terminate  host=%s" % (
                f_iso_us(D(t - 120)), hexid(rng, 16), nm))
        else:
            ev.add(t - 25, "%s  compute.instances.preempted  resource=projects/inference-prod/zones/us-central1-a/instances/%s  Instance was preempted." % (
                f_iso_us(D(t - 25)), nm))
        R.klog(nd, t - 20, "Power key pressed short.", "systemd-logind[1893]")
        R.klog(nd, t - 19.9, "System is powering down.", "systemd-logind[1893]")
        R.klog(nd, t - 19, "Stopping docker-%s.scope - libcontainer container %s..." % (nd.cid, nd.cid), "systemd[1]")
        if self.dpep and nd.idx == 1:
            e0 = self.engs[0]
            for k in range(0, 8):
                pass
            e0.api(t + 25, "ERROR", "core_client.py:605", "Engine core proc EngineCore_DP8 died unexpectedly, shutting down client.")
            e0.api_dead(t + 25.1)
            e0.shutdown(t + 25.3)
            self.files[1].add(t - 18, "INFO %s [launcher.py:80] Shutting down headless engine cores (received SIGTERM)." % R.d(t - 18, nd).strftime("%m-%d %H:%M:%S"))
            self.client.fail(t + 25.5, "500", 3)
        else:
            e = self.eng
            e.uv(t - 18, "Shutting down")
            e.uv(t - 17.9, "Waiting for application shutdown.")
            e.uv(t - 17.8, "Application shutdown complete.")
            e.uv(t - 17.7, "Finished server process [%d]" % e.api_pid)
            self.client.fail(t - 15, "refused", 4)
        self.client.fail(t + 90, "refused", 2)

    def unknown(self, tf):
        R, rng = self.R, self.rng
        e = self.eng
        if self.dpep or e.style == "v0":
            self.client.fail(tf, "timeout", 5)
            (self.engs[0] if self.dpep else e).uv(tf + 900, "Shutting down")
            return
        e.shm_wait(tf, rng.randint(2, 5))
        t_to = tf + 300
        e.engine_fatal(t_to, ["TimeoutError: RPC call to execute_model timed out."],
                       frames=[("vllm/v1/executor/multiproc_executor.py", 239, "collective_rpc", "raise TimeoutError(f\"RPC call to {method} timed out.\") from e")])
        e.shutdown(t_to + 0.5)
        self.client.fail(tf + 30, "timeout", 4)

    def load_stall(self, t, r):
        R, rng = self.R, self.rng
        e = self.e_of(r)
        e0 = self.engs[0]
        for k in range(rng.randint(3, 8)):
            e0.api(t + 60 * (k + 1) + 5, "DEBUG" if rng.random() < 0.5 else "INFO", "utils.py:776",
                   "Waiting for %d local, %d remote core engine proc(s) to start." % (1 if not self.dpep else 8, 0 if not self.dpep else 8))
        self.client.fail(t + 120, "refused", 3)
        kr = R.sink("kubectl-describe-pod.txt") if rng.random() < 0.0 else None
        R.notes.append("API server never became ready")
        return True  # missing 'Loading weights took' for exactly one worker + hung task pid

    def finish(self, t):
        R, rng = self.R, self.rng
        e = self.engs[0]
        e.uv(t, "Shutting down")
        e.uv(t + 0.1, "Waiting for application shutdown.")
        e.uv(t + 0.2, "Application shutdown complete.")
        e.uv(t + 0.3, "Finished server process [%d]" % e.api_pid)
        if rng.random() < 0.5 and e.style != "v0":
            d = R.d(t + 0.4, R.nodes[0])
            e.s.add(t + 0.4, "[rank0]:[W%d%02d %s.%09d ProcessGroupNCCL.cpp:1479] Warning: WARNING: destroy_process_group() was not called before program exit, which can leak resources. For more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())" % (
                d.month, d.day, d.strftime("%H:%M:%S"), d.microsecond * 1000))


# ----------------------------------------------------------------------------
# kubernetes helpers
# ----------------------------------------------------------------------------
def k8s_age(sec):
    sec = int(max(1, sec))
    if sec < 120:
        return "%ds" % sec
    if sec < 7200:
        return "%dm" % (sec // 60)
    return "%dh" % (sec // 3600)


class Events:
    def __init__(self, R, ns):
        self.R = R
        self.ns = ns
        self.rows = []

    def add(self, t, typ, reason, obj, msg):
        self.rows.append((t, typ, reason, obj, msg))

    def render(self, t_cap):
        self.rows.sort(key=lambda x: x[0])
        d = D(t_cap)
        L = ["$ date -u; kubectl get events -n %s --sort-by=.lastTimestamp" % self.ns,
             d.strftime("%a %b %d %H:%M:%S UTC %Y"),
             "%-11s %-9s %-24s %-58s %s" % ("LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE")]
        for t, typ, reason, obj, msg in self.rows:
            if t > t_cap:
                continue
            L.append("%-11s %-9s %-24s %-58s %s" % (k8s_age(t_cap - t), typ, reason, obj, msg))
        return "\n".join(L) + "\n"


def describe_pod(R, pod, ns, node, ip, t_start, t_end, reason, exit_code, status="Running",
                 msg=None, image="vllm/vllm-openai:v0.9.2", restarts=0, ctr="ray-worker", events=(), labels=None):
    d1 = D(t_start)
    d2 = D(t_end)
    L = ["Name:             %s" % pod,
         "Namespace:        %s" % ns,
         "Priority:         0",
         "Service Account:  default",
         "Node:             %s/%s" % (node.name, node.ip),
         "Start Time:       %s" % d1.strftime("%a, %d %b %Y %H:%M:%S +0000"),
         "Labels:           %s" % (labels[0] if labels else "ray.io/cluster=%s" % pod.rsplit("-", 4)[0]),
         "                  %s" % (labels[1] if labels else "ray.io/node-type=worker"),
         "Status:           %s" % status]
    if msg:
        L.append("Reason:           %s" % ("Terminated" if "shutdown" in msg else "Evicted"))
        L.append("Message:          %s" % msg)
    L += ["IP:               %s" % ip,
          "Containers:",
          "  %s:" % ctr,
          "    Container ID:   containerd://%s" % hexid(R.rng, 64),
          "    Image:          %s" % image,
          "    State:          Terminated" if reason else "    State:          Running",
          ]
    if reason:
        L += ["      Reason:       %s" % reason,
              "      Exit Code:    %d" % exit_code,
              "      Started:      %s" % d1.strftime("%a, %d %b %Y %H:%M:%S +0000"),
              "      Finished:     %s" % d2.strftime("%a, %d %b %Y %H:%M:%S +0000")]
    L += ["    Ready:          False" if reason else "    Ready:          True",
          "    Restart Count:  %d" % restarts,
          "    Limits:",
          "      cpu:             %d" % R.rng.choice([96, 180, 200]),
          "      memory:          %dGi" % R.rng.choice([800, 1200, 1800]),
          "      nvidia.com/gpu:  %d" % GPUS[node.gpu]["n"],
          "Events:",
          "  Type     Reason     Age    From     Message",
          "  ----     ------     ----   ----     -------"]
    for (age, typ, rs, frm, m) in events:
        L.append("  %-8s %-10s %-6s %-8s %s" % (typ, rs, age, frm, m))
    if not events:
        L.append("  <none>")
    return "\n".join(L) + "\n"


# ----------------------------------------------------------------------------
# layout 2: vllm-ray-k8s  (KubeRay cluster; vllm serve --distributed-executor-
# backend ray, TP=8 x PP=n across worker pods; kubectl logs of the head pod)
# ----------------------------------------------------------------------------
class VllmRay(Layout):
    name = "vllm-ray-k8s"
    in_container = True

    def setup(self):
        R, rng = self.R, self.rng
        pp = rng.choice([2, 2, 2, 3, 4, 4, 6, 8])
        self.ver = rng.choice([v for v in VLLM_VERSIONS if v[0] >= "0.7"])
        gk = R.gpu_key
        cloud = rng.choice(["gke", "eks", "aks", "onprem"])
        pool = hexid(rng, 8)

        def namer(num, ip):
            if cloud == "gke":
                return "gke-llm-serving-%s-pool-%s-%s" % (gk.lower(), pool, hexid(random.Random(ip), 4))
            if cloud == "eks":
                return "ip-%s.ec2.internal" % ip.replace(".", "-")
            if cloud == "aks":
                return "aks-%spool-%s-vmss%06x" % (gk.lower(), pool[:8], num)
            return "k8s-gpu-%s-%02d" % (gk.lower(), num % 100)
        R.build_nodes(pp, gk, namer, rng.choice(["10.128", "10.0", "172.20"]))
        R.map_ranks(8)
        R.fit_model(R.world)
        self.tp, self.pp = 8, pp
        mdl = R.model[0].split("/")[-1].lower().replace(".", "-")[:22].strip("-")
        self.cluster = "vllm-%s" % mdl
        self.ns = rng.choice(["inference", "llm-serving", "default", "ml-prod"])
        self.pods = []
        for nd in R.nodes:
            podip = "10.%d.%d.%d" % (rng.choice([52, 72, 96, 244]), rng.randint(0, 63), rng.randint(2, 250))
            if nd.idx == 0:
                pod = "%s-raycluster-%s-head-%s" % (self.cluster, hexid(rng, 5), hexid(rng, 5))
            else:
                pod = "%s-raycluster-%s-worker-gpu-group-%s" % (self.cluster, hexid(rng, 5), hexid(rng, 5))
            self.pods.append((pod, podip))
            nd.aliases = [nd.name, podip, pod]
            nd.cid = pod
            nd.ip_node = nd.ip
            nd.ip = podip       # Ray prints pod IPs
        self.dedup = rng.random() < 0.7
        self.nccl_debug = rng.random() < 0.35
        self.map_vis = (not self.dedup and self.ver[1] != "v0") or (not self.dedup and self.nccl_debug)
        self.cgroup = True
        self.client_ips = ["10.%d.%d.%d" % (rng.choice([52, 72]), rng.randint(0, 63), rng.randint(2, 250)) for _ in range(3)]
        py = "/usr/local/lib/python3.12/dist-packages/"
        self.s = R.sink("kubectl-logs-%s.txt" % self.pods[0][0])
        if rng.random() < 0.35:
            self.s.tsfmt = f_k8s
            self.s.skew = R.nodes[0].skew
        host_of = lambda r: self.pods[R.rank_node[r]][0]
        self.eng = VLLM(self, self.s, list(range(R.world)), 8, pp, self.ver, "ray", host_of, py,
                        nccl_debug=self.nccl_debug, ray_local_node=0, dedup=self.dedup)
        self.events = Events(R, self.ns)
        self.client = Client(R, "client-errors.log", "http://%s.%s.svc:8000" % (self.cluster + "-serve", self.ns))
        if self.ver[1] == "v0":
            self.client.msg500 = "{'object': 'error', 'message': 'Background loop has errored already.', 'type': 'BadRequestError', 'param': None, 'code': 400}"
        R.notes.append("vLLM %s on Ray (KubeRay), TP=8 PP=%d, Ray log dedup %s, NCCL_DEBUG %s" % (
            self.ver[0], pp, "on" if self.dedup else "off (RAY_DEDUP_LOGS=0)", "INFO" if self.nccl_debug else "unset"))

    def wpid(self, r):
        return self.R.pids[r]

    def startup(self, t, stall=None):
        R, rng = self.R, self.rng
        s = self.s
        d = R.d(t - 40)
        s.add(t - 40, "%s\tINFO usage_lib.py:467 -- Usage stats collection is enabled by default without user confirmation because this terminal is detected to be non-interactive. To disable this, add `--disable-usage-stats` to the command that starts the cluster, or run the following command: `ray disable-usage-stats` before starting the cluster. See https://docs.ray.io/en/master/cluster/usage-stats.html for more details." % f_ray(d))
        s.add(t - 39.9, "%s\tINFO scripts.py:865 -- Local node IP: %s" % (f_ray(R.d(t - 39.9)), R.nodes[0].ip))
        s.add(t - 37, "%s\tSUCC scripts.py:902 -- --------------------\n%s\tSUCC scripts.py:903 -- Ray runtime started.\n%s\tSUCC scripts.py:904 -- --------------------" % (
            f_ray(R.d(t - 37)), f_ray(R.d(t - 37)), f_ray(R.d(t - 37))))
        s.add(t - 2, "%s\tINFO worker.py:1747 -- Connecting to existing Ray cluster at address: %s:6379..." % (f_ray(R.d(t - 2)), R.nodes[0].ip))
        s.add(t - 1.5, "%s\tINFO worker.py:1918 -- Connected to Ray cluster. View the dashboard at \x1b[1m\x1b[32m%s:8265 \x1b[39m\x1b[22m" % (f_ray(R.d(t - 1.5)), R.nodes[0].ip))
        return self.eng.startup(t, stall=stall)

    def serve(self, ta, tb, slow=None):
        self.eng.serve(ta, tb, slow=slow is not None)
        self.client.ok_window(ta, tb)

    def decoys(self, ta, tb):
        rng = self.rng
        e = self.eng
        if rng.random() < 0.5:
            e.bad_request_decoy(rng.uniform(ta, tb))
        if rng.random() < (0.8 if self.R.healthy else 0.35):
            e.cancel_decoy(rng.uniform(ta, tb))
        if rng.random() < 0.5:
            t = rng.uniform(ta, tb)
            self.s.add(t, "(raylet, ip=%s) [%s E %d %d] (raylet) file_system_monitor.cc:116: /tmp/ray/session_2025-%s is over 95%% full, available space: %d; capacity: %d. Object creation will fail if spilling is required." % (
                self.R.nodes[-1].ip, f_ray(D(t)).replace(",", "."), rng.randint(100, 900), rng.randint(100, 900), hexid(rng, 6),
                rng.randint(10 ** 9, 5 * 10 ** 9), 107374182400))
        if rng.random() < 0.4:
            self.events.add(rng.uniform(ta, tb), "Warning", "Unhealthy", "pod/%s" % self.pods[0][0],
                            "Readiness probe failed: Get \"http://%s:8000/health\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)" % self.pods[0][1])

    def rank_from_gpu(self, r):
        return self.map_vis and self.nccl_debug

    def pid_maps(self, r):
        return self.map_vis

    def comm(self, r):
        return "ray::RayWorkerW"

    def visible_gpu(self, r):
        return 0

    def ray_task_err(self, r, exc):
        R = self.R
        nd = R.rnode(r)
        return ["ray.exceptions.RayTaskError(%s): \x1b[36mray::RayWorkerWrapper.execute_method()\x1b[39m (pid=%d, ip=%s, actor_id=%s, repr=<vllm.executor.ray_utils.RayWorkerWrapper object at 0x7f%s>)" % (
            exc[0].split(":")[0].split(".")[-1], R.pids[r], nd.ip, hexid(self.rng, 32), hexid(self.rng, 9)),
            '  File "%svllm/worker/worker_base.py", line 620, in execute_method' % self.eng.py,
            "    raise e",
            '  File "%svllm/worker/worker_base.py", line 611, in execute_method' % self.eng.py,
            "    return run_method(self, method, args, kwargs)"] + [x for x in exc if x]

    def exc(self, r, t, kind, lines):
        e = self.eng
        e.worker_exc(r, t, kind, lines)
        return self.map_vis or any("[rank" in l or "Rank %d" % r in l for l in lines)

    def collapse(self, t, r, kind, short):
        R, rng = self.R, self.rng
        e = self.eng
        if kind != "kill":
            exc = self.ray_task_err(r, getattr(self, "last_lines", None) if kind in ("oom", "ima", "lost", "ecc", "nvlink", "py", "net") else ["RuntimeError: " + short])
            e.engine_fatal(t, exc)
        e.shutdown(t + 0.8)
        self.events.add(t + 15, "Warning", "Unhealthy", "pod/%s" % self.pods[0][0],
                        "Liveness probe failed: Get \"http://%s:8000/health\": dial tcp %s:8000: connect: connection refused" % (self.pods[0][1], self.pods[0][1]))
        self.events.add(t + 45, "Normal", "Killing", "pod/%s" % self.pods[0][0], "Container ray-head failed liveness probe, will be restarted")
        self.client.fail(t + rng.uniform(0.1, 2), "500", rng.randint(2, 5))
        self.client.fail(t + rng.uniform(10, 40), "503", 2)
        self.render_side(t + rng.uniform(300, 1500))

    def render_side(self, tcap):
        if self.events.rows:
            self.R.static("kubectl-get-events.txt", self.events.render(tcap))

    def die(self, r, t, sig):
        R, rng = self.R, self.rng
        e = self.eng
        nd = R.rnode(r)
        wid = hexid(rng, 56)
        if sig == "SIGKILL" and rng.random() < 0.5:
            self.s.add(t + 2, "(raylet, ip=%s) [%s E %d %d] (raylet) node_manager.cc:3069: 1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: %s, IP: %s) over the last time period. To see more information about the Workers killed on this node, use `ray logs raylet.out -ip %s`" % (
                nd.ip, f_ray(D(t + 2)).replace(",", "."), rng.randint(100, 900), rng.randint(100, 900), hexid(rng, 56), nd.ip, nd.ip))
        if sig in ("SIGSEGV", "SIGBUS", "SIGABRT"):
            pfx = e.w_pfx(r)
            d = R.d(t, nd)
            self.s.add(t - 0.01, "\n".join(pfx + x for x in [
                "*** %s received at time=%d on cpu %d ***" % (sig, int(t), rng.randint(0, 191)),
                "PC: @     0x7f%s  (unknown)  %s" % (hexid(rng, 10), rng.choice(["ncclProxyProgress()", "(unknown)", "c10::cuda::CUDAKernelLaunchRegistry::get_singleton_ref()"])),
                "    @     0x7f%s       3504  (unknown)" % hexid(rng, 10),
                "    @     0x7f%s  (unknown)  (unknown)" % hexid(rng, 10),
                "[%s  %d %d] *** %s received at time=%d on cpu %d ***" % (d.strftime("%Y-%m-%d %H:%M:%S,%f")[:-3], R.pids[r], R.pids[r], sig, int(t), rng.randint(0, 191)),
                "Fatal Python error: %s" % {"SIGSEGV": "Segmentation fault", "SIGBUS": "Bus error", "SIGABRT": "Aborted"}[sig]]))
        self.s.add(t + 1, "(raylet, ip=%s) A worker died or was killed while executing a task by an unexpected system error. To troubleshoot the problem, check the logs for the dead worker. RayTask ID: %s Worker ID: %s Node ID: %s Worker IP address: %s Worker port: %d Worker PID: %d Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors." % (
            nd.ip, hexid(rng, 48), wid, hexid(rng, 56), nd.ip, rng.randint(10002, 10999), R.pids[r]))
        exc = ["ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.",
               "\tclass_name: RayWorkerWrapper",
               "\tactor_id: %s" % hexid(rng, 32),
               "\tpid: %d" % R.pids[r],
               "\tnamespace: %s-%s-%s-%s-%s" % (hexid(rng, 8), hexid(rng, 4), hexid(rng, 4), hexid(rng, 4), hexid(rng, 12)),
               "\tip: %s" % nd.ip,
               "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors."]
        e.engine_fatal(t + 1.5, exc)
        return self.map_vis

    def hang(self, tf, r):
        R, rng = self.R, self.rng
        e = self.eng
        nd = R.rnode(r)
        stage = r // 8
        e.shm_wait(tf, 0)
        if self.ver[1] != "v0":
            e.engine_fatal(tf + 300, ["ray.exceptions.RayChannelTimeoutError: System error: If the execution is expected to take a long time, increase RAY_CGRAPH_get_timeout which is currently 300 seconds. Otherwise, this may indicate that the execution is hanging."])
        nxt = [k for k in range(R.world) if k // 8 == (stage + 1) % self.pp]
        for k in rng.sample(nxt, min(len(nxt), 3 if self.dedup else 8)):
            lines = c10d_timeout(R, k, tf + 600, R.rnode(k), rng.randint(9000, 90000), "RECV", rng.choice([1048576, 2097152]),
                                 rng.randint(10, 99) + 90000, 90000, pg=(3, 9), torch_ver=self.ver[2], short=True)
            self.s.add(tf + 600 + rng.uniform(0, 1), "\n".join(e.w_pfx(k) + l for l in lines))
        e.shutdown(tf + 301)
        self.client.fail(tf + 60, "timeout", 4)
        ev = False
        if rng.random() < 0.6:
            st = self.smi_state(nd)
            for k in st:
                st[k]["util"] = 100
            st[R.rank_local[r]]["util"] = 0
            self.smi_file(nd, tf + rng.uniform(60, 250), st)
            ev = self.map_vis and self.nccl_debug
        R.notes.append("hang: rank %d (PP stage %d) stalls; stage %d ranks time out on RECV (collateral)" % (r, stage, (stage + 1) % self.pp))
        self.render_side(tf + 900)
        return ev

    def mismatch(self, tf, r):
        R, rng = self.R, self.rng
        e = self.eng
        seq = rng.randint(3000, 90000)
        ref = (r // 8) * 8 if r % 8 else (r + 1)
        if rng.random() < 0.7:
            txt = mismatch_text(r, ref, seq, "BROADCAST", "BROADCAST", "%d" % rng.choice([24, 32]), "%d" % rng.choice([16, 20]), dev="cpu")
            frames = [("vllm/distributed/parallel_state.py", 640, "broadcast_tensor_dict", "torch.distributed.broadcast_object_list(recv_metadata_list,"),
                      ("torch/distributed/c10d_logger.py", 81, "wrapper", "return func(*args, **kwargs)"),
                      ("torch/distributed/distributed_c10d.py", 3479, "broadcast_object_list", "broadcast(object_sizes_tensor, src=global_src, group=group)"),
                      ("torch/distributed/distributed_c10d.py", 2714, "broadcast", "work = group.broadcast([tensor], opts)")]
            self.s.add(tf, "\n".join(e.w_pfx(ref) + l for l in [e._fmt(tf, "ERROR", "worker_base.py:620", "Error executing method 'execute_model'. This might cause deadlock in distributed execution.", R.rnode(ref))] + txt))
            e.engine_fatal(tf + 0.3, self.ray_task_err(ref, txt), frames=None)
            R.notes.append("worker pod of rank %d runs a different image; TORCH_DISTRIBUTED_DEBUG=DETAIL mismatch names rank %d" % (r, r))
            inf = True
        else:
            op_ok, op_bad = "RECV", "SEND"
            ks = [k for k in range(R.world) if k // 8 == r // 8 or k // 8 == (r // 8 + 1) % self.pp]
            ks = sorted(rng.sample(ks, min(len(ks), 6)) + ([r] if r not in ks else []))
            if r not in ks:
                ks.append(r)
            for k in ks:
                op = op_bad if k == r else op_ok
                lines = c10d_timeout(R, k, tf + 600, R.rnode(k), seq, op, 1048576 if k != r else 2097152,
                                     seq, seq - 1, pg=(3, 9), torch_ver=self.ver[2], short=True)
                self.s.add(tf + 600 + rng.uniform(0, 2), "\n".join(e.w_pfx(k) + l for l in lines))
            e.shutdown(tf + 610)
            R.notes.append("watchdog timeouts: rank %d is the only one on SEND with a different numel at the same SeqNum" % r)
            inf = True
        self.client.fail(tf + 1, "500", 3)
        self.render_side(tf + 900)
        return inf

    def net_fail(self, r, tf):
        R, rng = self.R, self.rng
        e = self.eng
        nd = R.rnode(r)
        hca = getattr(self, "hca", "mlx5_%d" % R.rank_local[r])
        peer_stage = (r // 8 + 1) % self.pp
        peer = peer_stage * 8 + R.rank_local[r]
        pn = R.rnode(peer)
        if self.nccl_debug:
            self.s.add(tf - 0.1, e.w_pfx(r) + nccl_ib_warn(self.pods[nd.idx][0], R.pids[r], 0, pn.ibip, nd.ibip, hca, ver=self.ver[3]))
            self.s.add(tf + 0.3, e.w_pfx(peer) + nccl_ib_warn(self.pods[pn.idx][0], R.pids[peer], 0, nd.ibip, pn.ibip, "mlx5_%d" % R.rank_local[peer], st=12, recv=False, ver=self.ver[3]))
        exc = ["torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, remote process exited or there was a network error, NCCL version %s" % self.ver[3],
               "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
               "Last error:",
               "NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:%s remoteGids::ffff:%s hca %s" % (
                   pn.ibip, 30000 + R.pids[r] % 9000, nd.ibip, pn.ibip, hca)]
        self.last_lines = exc
        frames = [("vllm/distributed/parallel_state.py", 770, "recv_tensor_dict", "torch.distributed.recv(tensor,"),
                  ("torch/distributed/distributed_c10d.py", 2420, "recv", "pg.recv([tensor], group_src_rank, tag).wait()")]
        self.s.add(tf, "\n".join(e.w_pfx(r) + l for l in [e._fmt(tf, "ERROR", "worker_base.py:620", "Error executing method 'execute_model'. This might cause deadlock in distributed execution.", nd), "Traceback (most recent call last):"] +
                                 ['  File "%s%s", line %d, in %s\n    %s' % (e.py, a, b, c, dd) for a, b, c, dd in frames] + exc))
        self.collapse(tf + 2, r, "net", "NCCL remote error")
        return self.map_vis

    def preempt(self, t, nd):
        R, rng = self.R, self.rng
        e = self.eng
        pod = self.pods[nd.idx][0]
        self.events.add(t - 28, "Warning", "NodeShutdown", "node/%s" % nd.name, "Shutdown manager detected shutdown event")
        self.events.add(t - 27, "Normal", "Killing", "pod/%s" % pod, "Stopping container ray-worker")
        self.events.add(t + 40, "Normal", "NodeNotReady", "node/%s" % nd.name, "Node %s status is now: NodeNotReady" % nd.name)
        self.events.add(t + 95, "Normal", "RemovingNode", "node/%s" % nd.name, "Node %s event: Removing Node %s from Controller" % (nd.name, nd.name))
        R.static("kubectl-describe-pod-%s.txt" % pod, describe_pod(R, pod, self.ns, type("N", (), {"name": nd.name, "ip": getattr(nd, "ip_node", nd.ip), "gpu": nd.gpu})(),
                                                                  self.pods[nd.idx][1], R.t0, t - 26, "Error", 143, status="Failed",
                                                                  msg="Pod was terminated in response to imminent node shutdown.",
                                                                  image="rayproject/ray-ml:2.4%d.0-py311-gpu" % rng.randint(0, 9)))
        if nd.idx == 0:
            e.uv(t - 26, "Shutting down")
            self.client.fail(t - 20, "reset", 3)
        else:
            self.s.add(t + 12, "%s\tWARNING worker.py:2258 -- The node with node id: %s and address: %s and node name: %s has been marked dead because the detector has missed too many heartbeats from it. This can happen when a \t(1) raylet crashes unexpectedly (OOM, etc.) \n\t(2) raylet has lagging heartbeats due to slow network or busy workload." % (
                f_ray(R.d(t + 12)), hexid(rng, 56), nd.ip, nd.ip))
            exc = ["ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.",
                   "\tclass_name: RayWorkerWrapper", "\tactor_id: %s" % hexid(rng, 32), "\tpid: %d" % R.pids[nd.idx * 8],
                   "\tnamespace: %s" % hexid(rng, 12), "\tip: %s" % nd.ip,
                   "The actor is dead because its node has died. Node Id: %s" % hexid(rng, 56)]
            e.engine_fatal(t + 13, exc)
            e.shutdown(t + 14)
            self.client.fail(t + 14, "500", 3)
        self.render_side(t + rng.uniform(200, 900))

    def unknown(self, tf):
        R, rng = self.R, self.rng
        e = self.eng
        seq = rng.randint(3000, 90000)
        ks = sorted(rng.sample(range(R.world), min(R.world, 5)))
        for k in ks:
            lines = c10d_timeout(R, k, tf + 600, R.rnode(k), seq, "RECV" if k >= 8 else "SEND", 1048576,
                                 seq, seq - 1, pg=(3, 9), torch_ver=self.ver[2], short=True)
            self.s.add(tf + 600 + rng.uniform(0, 0.5), "\n".join(e.w_pfx(k) + l for l in lines))
        if self.ver[1] != "v0":
            e.engine_fatal(tf + 300, ["ray.exceptions.RayChannelTimeoutError: System error: If the execution is expected to take a long time, increase RAY_CGRAPH_get_timeout which is currently 300 seconds. Otherwise, this may indicate that the execution is hanging."])
        e.shutdown(tf + 301)
        self.client.fail(tf + 30, "timeout", 5)
        self.render_side(tf + 1200)

    def load_stall(self, t, r):
        R, rng = self.R, self.rng
        for k in range(6):
            self.events.add(t + 120 + 60 * k, "Warning", "Unhealthy", "pod/%s" % self.pods[0][0],
                            "Readiness probe failed: Get \"http://%s:8000/health\": dial tcp %s:8000: connect: connection refused" % (self.pods[0][1], self.pods[0][1]))
        self.client.fail(t + 300, "refused", 3)
        self.render_side(t + 1500)
        return self.map_vis

    def finish(self, t):
        e = self.eng
        e.uv(t, "Shutting down")
        e.uv(t + 0.1, "Waiting for application shutdown.")
        e.uv(t + 0.2, "Application shutdown complete.")
        e.uv(t + 0.3, "Finished server process [%d]" % e.api_pid)
        self.render_side(t + 60)


# ----------------------------------------------------------------------------
# layout 3: sglang-multinode  (python -m sglang.launch_server --tp N --nnodes K
# --node-rank i --dist-init-addr, optionally DP-attention + EP; one log per node)
# ----------------------------------------------------------------------------
SGL_VERSIONS = [("0.4.6.post5", "2.6.0", "2.21.5"), ("0.4.9.post2", "2.7.1", "2.26.2"),
                ("0.5.2", "2.8.0", "2.27.3"), ("0.5.4.post1", "2.8.0", "2.27.3")]
SGL = "/sgl-workspace/sglang/python/sglang/srt/"


class SGLang(Layout):
    name = "sglang-multinode"

    def setup(self):
        R, rng = self.R, self.rng
        c = R.cause
        self.dpep = rng.random() < 0.45
        if self.dpep:
            nn = rng.choice([2, 4, 4, 8, 12, 16])
            R.model = MODELS[3]
            R.gpu_key = rng.choice(["H200", "H100", "H200"])
        else:
            nn = rng.choice([2, 2, 2, 4])
        self.ver = rng.choice(SGL_VERSIONS)
        self.ms = self.ver[0] >= "0.5"
        style = rng.choice(["node", "host", "bare"])
        gk = R.gpu_key

        def namer(num, ip):
            if style == "node":
                return "node-%s-%02d" % (gk.lower(), num % 100)
            if style == "host":
                return "sgl-%03d" % num
            return "gpu%04d" % (num * 3)
        R.build_nodes(nn, gk, namer, rng.choice(["10.0", "192.168", "10.20"]))
        R.map_ranks(8)
        if not self.dpep:
            R.fit_model(R.world)
        for nd in R.nodes:
            nd.aliases = [nd.name, nd.ip, nd.name + rng.choice([".cluster.local", ".internal", ".lan"])]
        self.nccl_debug = rng.random() < 0.35
        self.client_ips = ["%s" % R.nodes[0].ip, "10.9.%d.%d" % (rng.randint(0, 9), rng.randint(2, 200))]
        self.master = R.nodes[0].ip
        self.files = {}
        self.tp = R.world
        self.dp = R.world if self.dpep else 1
        self.client = Client(R, rng.choice(["bench_serving.log", "client.log"]), "http://%s:30000" % R.nodes[0].ip)
        self.client.msg500 = "{'object': 'error', 'message': 'Internal server error', 'type': 'InternalServerError', 'param': None, 'code': 500}"
        self.pyspy = rng.random() < 0.55
        R.notes.append("SGLang %s, --tp %d%s --nnodes %d, dist-init-addr %s:5000" % (
            self.ver[0], self.tp, (" --dp %d --enable-dp-attention --ep %d" % (self.dp, self.tp)) if self.dpep else "", nn, self.master))

    def attach(self, tgt_node):
        R, rng = self.R, self.rng
        sel = [0]
        if tgt_node is not None and tgt_node != 0 and rng.random() < 0.8:
            sel.append(tgt_node)
        others = [n for n in range(len(R.nodes)) if n not in sel]
        rng.shuffle(others)
        want = min(len(R.nodes), rng.choice([2, 3, 4])) if len(R.nodes) > 4 else len(R.nodes)
        if len(R.nodes) <= 2 or (R.healthy and len(R.nodes) <= 4):
            want = len(R.nodes)
        while len(sel) < want and others:
            sel.append(others.pop())
        sel.sort()
        self.attached = sel
        for n in sel:
            self.files[n] = self.R.sink("sglang-node%d-%s.log" % (n, R.nodes[n].name))
        for n in sel:
            if n == tgt_node and rng.random() < 0.85 or rng.random() < 0.25:
                R.attach_klog(R.nodes[n])
        if tgt_node is not None and tgt_node not in sel:
            R.notes.append("culprit node's own sglang log NOT attached (reporter attached %d of %d node logs)" % (len(sel), len(R.nodes)))

    def pfx(self, r):
        if r is None:
            return ""
        if self.dpep:
            return " DP%d TP%d EP%d" % (r, r, r)
        return " TP%d" % r

    def L(self, node_idx, t, r, msg):
        s = self.files.get(node_idx)
        if s is None:
            return
        nd = self.R.nodes[node_idx]
        d = self.R.d(t, nd)
        ts = d.strftime("%Y-%m-%d %H:%M:%S") + (".%03d" % (d.microsecond // 1000) if self.ms else "")
        s.add(t, "[%s%s] %s" % (ts, self.pfx(r), msg))

    def raw(self, node_idx, t, text):
        s = self.files.get(node_idx)
        if s is not None:
            s.add(t, text)

    def nodes_ranks(self, n):
        return [r for r in range(self.R.world) if self.R.rank_node[r] == n]

    def startup(self, t, stall=None):
        R, rng = self.R, self.rng
        m = R.model
        g = GPUS[R.gpu_key]
        for n in self.attached:
            nd = R.nodes[n]
            self.L(n, t, None, "server_args=ServerArgs(model_path='%s', tokenizer_path='%s', tokenizer_mode='auto', skip_tokenizer_init=False, load_format='auto', trust_remote_code=True, dtype='auto', kv_cache_dtype='auto', quantization=None, context_length=None, device='cuda', served_model_name='%s', chat_template=None, is_embedding=False, revision=None, host='0.0.0.0', port=30000, mem_fraction_static=%.2f, max_running_requests=None, max_total_tokens=None, chunked_prefill_size=%d, max_prefill_tokens=16384, schedule_policy='fcfs', schedule_conservativeness=1.0, cpu_offload_gb=0, tp_size=%d, stream_interval=1, random_seed=%d, watchdog_timeout=300, dist_timeout=None, download_dir=None, base_gpu_id=0, log_level='info', log_requests=False, show_time_cost=False, enable_metrics=%s, dp_size=%d, load_balance_method='round_robin', ep_size=%d, dist_init_addr='%s:5000', nnodes=%d, node_rank=%d, enable_dp_attention=%s, enable_ep_moe=False, moe_a2a_backend=%s, disable_cuda_graph=False, ...)" % (
                m[0], m[0], m[0], rng.choice([0.82, 0.85, 0.88]), rng.choice([4096, 8192, 16384]), self.tp, rng.randint(1, 10 ** 9),
                rng.choice(["True", "False"]), self.dp, self.tp if self.dpep else 1, self.master, len(R.nodes), n,
                "True" if self.dpep else "False", "'deepep'" if self.dpep else "None"))
            if n != 0:
                pass
        load_s = rng.uniform(90, 420) * (m[3] / 600.0) ** 0.5
        t1 = t + rng.uniform(8, 20)
        kvtok = rng.randint(180000, 900000)
        for n in self.attached:
            rs = self.nodes_ranks(n)
            for r in rs:
                self.L(n, t1 + r * 0.01, r, "Init torch distributed begin.")
            for r in rs:
                if self.nccl_debug:
                    nd = R.nodes[n]
                    p = "%s:%d:%d [%d] NCCL INFO " % (nd.name, R.pids[r], R.pids[r], R.rank_local[r])
                    ls = []
                    if r == 0:
                        ls.append("NCCL version %s+cuda%s" % (self.ver[2], R.cuda))
                    ls.append(p + "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB [4]mlx5_4:1/IB [5]mlx5_5:1/IB [6]mlx5_6:1/IB [7]mlx5_7:1/IB [RO]; OOB bond0:%s<0>" % nd.ip)
                    ls.append(p + "ncclCommInitRank comm 0x%s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId 0x%s - Init COMPLETE" % (
                        hexid(rng, 12), r, R.world, R.rank_local[r], R.rank_local[r], busid_nccl(nd, R.rank_local[r]), hexid(rng, 16)))
                    self.raw(n, t1 + 4 + r * 0.01, "\n".join(ls))
            for r in rs:
                self.L(n, t1 + 6 + r * 0.01, r, "sglang is using nccl==%s" % self.ver[2])
            for r in rs:
                self.L(n, t1 + 9 + r * 0.01, r, "Init torch distributed ends. mem usage=%.2f GB" % rng.uniform(1.1, 2.4))
            for r in rs:
                self.L(n, t1 + 10 + r * 0.01, r, "Load weight begin. avail mem=%.2f GB" % (g["gib"] - rng.uniform(2.5, 3.5)))
        tl = t1 + 10
        if 0 in self.files:
            frac_stop = rng.uniform(0.2, 0.7) if stall == 0 else 1.0
            for j in range(9):
                f = j / 8.0
                if f > frac_stop:
                    break
                i = int(m[2] * f)
                el = load_s * f
                rate = i / el if el else 0
                self.raw(0, tl + el, "Loading safetensors checkpoint shards: %3d%% Completed | %d/%d [%s<%s, %s]" % (
                    int(100 * i / m[2]), i, m[2], hms(el), "?" if i == 0 else hms((m[2] - i) / rate), "?it/s" if i == 0 else
                    ("%5.2fit/s" % rate if rate >= 1 else "%5.2fs/it" % (1 / rate))))
        per = m[3] / R.world
        for n in self.attached:
            for r in self.nodes_ranks(n):
                if r == stall:
                    continue
                lt = load_s * rng.uniform(0.95, 1.04)
                self.L(n, tl + lt, r, "Load weight end. type=%s, dtype=torch.bfloat16, avail mem=%.2f GB, mem usage=%.2f GB." % (
                    m[1], g["gib"] - 3 - per, per))
        if stall is not None:
            return tl + load_s * 1.05
        tk = tl + load_s * 1.05 + rng.uniform(3, 10)
        for n in self.attached:
            for r in self.nodes_ranks(n):
                self.L(n, tk + r * 0.005, r, "KV Cache is allocated. #tokens: %d, KV size: %.2f GB" % (kvtok, rng.uniform(15, 60)))
            for r in self.nodes_ranks(n):
                self.L(n, tk + 0.5 + r * 0.005, r, "Memory pool end. avail mem=%.2f GB" % rng.uniform(6, 12))
            for r in self.nodes_ranks(n):
                self.L(n, tk + 1 + r * 0.005, r, "Capture cuda graph begin. This can take up to several minutes. avail mem=%.2f GB" % rng.uniform(5, 11))
        tg = tk + rng.uniform(25, 120)
        for n in self.attached:
            for r in self.nodes_ranks(n):
                self.L(n, tg + r * 0.005, r, "Capture cuda graph end. Time elapsed: %.2f s. mem usage=%.2f GB. avail mem=%.2f GB." % (
                    tg - tk, rng.uniform(0.5, 2.5), rng.uniform(4, 9)))
            r0 = self.nodes_ranks(n)[0]
            self.L(n, tg + 0.5, r0, "max_total_num_tokens=%d, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=%d, context_len=%d, available_gpu_mem=%.2f GB" % (
                kvtok, rng.choice([1024, 2048, 4096]), 163840 if self.dpep else 131072, rng.uniform(4, 9)))
        ta = tg + 2
        self.L(0, ta, None, "INFO:     Started server process [%d]" % rng.randint(100, 9000))
        self.L(0, ta + 0.01, None, "INFO:     Waiting for application startup.")
        self.L(0, ta + 0.02, None, "INFO:     Application startup complete.")
        self.L(0, ta + 0.03, None, "INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)")
        self.L(0, ta + 1.1, None, "INFO:     127.0.0.1:%d - \"GET /get_model_info HTTP/1.1\" 200 OK" % rng.randint(30000, 60000))
        self.L(0, ta + 3, 0, "Prefill batch. #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0")
        self.L(0, ta + 5, None, "INFO:     127.0.0.1:%d - \"POST /generate HTTP/1.1\" 200 OK" % rng.randint(30000, 60000))
        self.L(0, ta + 5.1, None, "The server is fired up and ready to roll!")
        return ta + 6

    def serve(self, ta, tb, slow=None):
        R, rng = self.R, self.rng
        span = tb - ta
        wins = [(ta, ta + 400), (tb - 900, tb)] if span > 1500 else [(ta, tb)]
        for a, b in wins:
            t = a + rng.uniform(1, 5)
            while t < b:
                for n in self.attached:
                    rs = self.nodes_ranks(n)
                    who = [rs[0]] if not self.dpep else rng.sample(rs, 2)
                    for r in who:
                        run = rng.randint(20, 400)
                        gt = run * rng.uniform(5, 14) * (0.45 if slow is not None else 1.0)
                        self.L(n, t + rng.uniform(0, 2), r, "Decode batch. #running-req: %d, #token: %d, token usage: %.2f, %scuda graph: True, gen throughput (token/s): %.2f, #queue-req: %d" % (
                            run, run * rng.randint(600, 2500), rng.uniform(0.05, 0.9), "pre-allocated usage: 0.00, #retracted-req: 0, " if self.ms else "",
                            gt, rng.randint(0, 40) if slow is None else rng.randint(40, 300)))
                        if rng.random() < 0.3:
                            self.L(n, t + rng.uniform(2, 4), r, "Prefill batch. #new-seq: %d, #new-token: %d, #cached-token: %d, token usage: %.2f, #running-req: %d, #queue-req: %d" % (
                                rng.randint(1, 12), rng.randint(100, 8192), rng.randint(0, 6000), rng.uniform(0.05, 0.9), rng.randint(10, 300), rng.randint(0, 30)))
                for _ in range(rng.randint(0, 2)):
                    self.L(0, min(t + rng.uniform(0, 8), b - 0.3), None, "INFO:     %s:%d - \"POST /v1/chat/completions HTTP/1.1\" 200 OK" % (rng.choice(self.client_ips), rng.randint(30000, 65000)))
                t += 10
        if len(wins) > 1:
            for n in self.attached:
                self.raw(n, wins[0][1] + 1, "[... %d lines omitted ...]" % rng.randint(5000, 90000))
        self.client.ok_window(ta, tb)

    def decoys(self, ta, tb):
        R, rng = self.R, self.rng
        if rng.random() < 0.5:
            t = rng.uniform(ta, tb)
            self.L(0, t, None, "Error in request: The input (%d tokens) is longer than the model's context length (%d tokens)." % (
                rng.randint(170000, 300000), 163840 if self.dpep else 131072))
        if rng.random() < 0.4:
            n = rng.choice(self.attached)
            nd = R.nodes[n]
            r = self.nodes_ranks(n)[rng.randrange(8)]
            self.raw(n, rng.uniform(ta, tb), "%s:%d:%d [%d] NCCL INFO NET/IB : %s:1 Got async event : GID table change" % (
                nd.name, R.pids[r], R.pids[r] + 90, R.rank_local[r], "mlx5_%d" % rng.randrange(8)))
        if rng.random() < 0.4:
            t = rng.uniform(ta, tb)
            self.L(0, t, 0, "Decode out of memory happened. #retracted_reqs: %d, #new_token_ratio: 0.7000 -> 0.9100" % rng.randint(1, 9))

    def rank_from_gpu(self, r):
        return self.R.rank_node[r] in self.files

    def comm(self, r):
        return "sglang::schedul"

    def frames(self, kind):
        f = [(SGL + "managers/scheduler.py", 2598, "run_scheduler_process", "scheduler.event_loop_overlap()"),
             ("/usr/local/lib/python3.12/dist-packages/torch/utils/_contextlib.py", 116, "decorate_context", "return func(*args, **kwargs)"),
             (SGL + "managers/scheduler.py", 763, "event_loop_overlap", "batch_result = self.run_batch(batch)"),
             (SGL + "managers/scheduler.py", 1680, "run_batch", ") = self.tp_worker.forward_batch_generation(model_worker_batch)")]
        if kind == "py":
            return [(SGL + "managers/scheduler.py", 2598, "run_scheduler_process", "scheduler.event_loop_overlap()"),
                    (SGL + "managers/scheduler.py", 757, "event_loop_overlap", "batch = self.get_next_batch_to_run()"),
                    (SGL + "managers/scheduler.py", 1318, "get_next_batch_to_run", "new_batch = self.get_new_batch_prefill()"),
                    (SGL + "managers/scheduler.py", 1457, "get_new_batch_prefill", "new_batch.prepare_for_extend()"),
                    (SGL + "managers/schedule_batch.py", 1138, "prepare_for_extend", "out_cache_loc = self.alloc_token_slots(extend_num_tokens)")]
        f += [(SGL + "managers/tp_worker_overlap_thread.py", 235, "forward_batch_generation", "logits_output, next_token_ids, can_run_cuda_graph = self.worker.forward_batch_generation("),
              (SGL + "managers/tp_worker.py", 239, "forward_batch_generation", "logits_output, can_run_cuda_graph = self.model_runner.forward("),
              (SGL + "model_executor/model_runner.py", 1434, "forward", "output = self._forward_raw("),
              (SGL + "model_executor/model_runner.py", 1461, "_forward_raw", "ret = self.forward_decode(")]
        if kind in ("nvlink", "net"):
            f += [(SGL + "models/%s.py" % ("deepseek_v2" if self.dpep else "llama"), 1867 if self.dpep else 350, "forward", "hidden_states, residual = layer("),
                  (SGL + "layers/linear.py", 1287, "forward", "output = tensor_model_parallel_all_reduce(output_parallel)"),
                  (SGL + "distributed/communication_op.py", 13, "tensor_model_parallel_all_reduce", "return get_tp_group().all_reduce(input_)"),
                  (SGL + "distributed/parallel_state.py", 521, "all_reduce", "torch.ops.sglang.outplace_all_reduce(")]
            if kind == "net":
                f += [(SGL + "distributed/device_communicators/pynccl.py", 141, "all_reduce", "self.nccl.ncclAllReduce("),
                      (SGL + "distributed/device_communicators/pynccl_wrapper.py", 350, "NCCL_CHECK", "raise RuntimeError(f\"NCCL error: {error_str}\")")]
            else:
                f += [(SGL + "distributed/device_communicators/custom_all_reduce.py", 331, "custom_all_reduce", "return self.all_reduce(input, registered=True)"),
                      (SGL + "distributed/device_communicators/custom_all_reduce.py", 309, "all_reduce", "ops.all_reduce(")]
        elif kind == "oom":
            f += [(SGL + "layers/logits_processor.py", 329, "forward", "logits = self._get_logits(pruned_states, lm_head, logits_metadata)"),
                  (SGL + "layers/logits_processor.py", 463, "_get_logits", "logits = tensor_model_parallel_all_gather(logits)")]
        else:
            f += [(SGL + "managers/scheduler.py", 1735, "process_batch_result", "self.process_batch_result_decode(batch, result, launch_done)"),
                  (SGL + "managers/scheduler_output_processor_mixin.py", 207, "process_batch_result_decode", "next_token_ids = next_token_ids.tolist()")]
        return f

    def exc(self, r, t, kind, lines):
        n = self.R.rank_node[r]
        if kind == "net" and self.nccl_debug:
            nd = self.R.nodes[n]
            pn = self.R.nodes[(n + 1) % len(self.R.nodes)]
            self.raw(n, t - 0.3, nccl_ib_warn(nd.name, self.R.pids[r], self.R.rank_local[r], pn.ibip, nd.ibip,
                                              getattr(self, "hca", "mlx5_%d" % self.R.rank_local[r]), ver=self.ver[2]))
        self.sched_exc(n, t, r, self.frames(kind), lines)
        return n in self.files

    def sched_exc(self, n, t, r, frames, lines):
        body = ["Scheduler hit an exception: Traceback (most recent call last):"]
        for (p, ln, fn, code) in frames:
            body.append('  File "%s", line %d, in %s' % (p, ln, fn))
            body.append("    " + code)
        body += [l for l in lines if l != ""]
        s = self.files.get(n)
        if s is None:
            return
        nd = self.R.nodes[n]
        d = self.R.d(t, nd)
        ts = d.strftime("%Y-%m-%d %H:%M:%S") + (".%03d" % (d.microsecond // 1000) if self.ms else "")
        s.add(t, "[%s%s] %s" % (ts, self.pfx(r), "\n".join(body)))

    def node_down(self, n, t):
        self.L(n, t, None, "Received sigquit from a child process. It usually means the child failed.")
        self.raw(n, t + 0.6, "Killed")

    def collapse(self, t, r, kind, short):
        R, rng = self.R, self.rng
        n = R.rank_node[r]
        self.node_down(n, t + rng.uniform(0.1, 1.0))
        peers_err = "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [%s]:%d" % (R.nodes[n].ip, rng.randint(20000, 60000))
        for m in self.attached:
            if m == n:
                continue
            rs = self.nodes_ranks(m)
            k = rng.choice(rs)
            tt = t + rng.uniform(2, 25)
            self.sched_exc(m, tt, k, [(SGL + "managers/scheduler.py", 2598, "run_scheduler_process", "scheduler.event_loop_overlap()"),
                                      (SGL + "managers/scheduler.py", 751, "event_loop_overlap", "recv_reqs = self.recv_requests()"),
                                      (SGL + "managers/scheduler.py", 1033, "recv_requests", "recv_reqs = broadcast_pyobj("),
                                      (SGL + "utils.py", 1047, "broadcast_pyobj", "dist.broadcast(tensor_size, src=src, group=dist_group)"),
                                      ("/usr/local/lib/python3.12/dist-packages/torch/distributed/distributed_c10d.py", 2730, "broadcast", "work.wait()")],
                           [peers_err])
            self.node_down(m, tt + rng.uniform(0.1, 0.6))
        self.client.fail(t + 1, "reset", 2)
        self.client.fail(t + 20, "refused", 3)

    def die(self, r, t, sig):
        R, rng = self.R, self.rng
        n = R.rank_node[r]
        if sig != "SIGKILL":
            name = {"SIGSEGV": "Segmentation fault", "SIGBUS": "Bus error", "SIGABRT": "Aborted"}[sig]
            self.raw(n, t - 0.01, "\n".join(["Fatal Python error: %s" % name, "",
                                             "Thread 0x00007f%s (most recent call first):" % hexid(rng, 8),
                                             '  File "%smanagers/tp_worker_overlap_thread.py", line 139 in forward_thread_func_' % SGL,
                                             '  File "/usr/lib/python3.12/threading.py", line 1012 in run', "",
                                             "Current thread 0x00007f%s (most recent call first):" % hexid(rng, 8),
                                             '  File "%sdistributed/device_communicators/custom_all_reduce.py", line 331 in custom_all_reduce' % SGL,
                                             '  File "%sdistributed/parallel_state.py", line 521 in all_reduce' % SGL,
                                             '  File "%smanagers/scheduler.py", line 763 in event_loop_overlap' % SGL,
                                             '  File "%smanagers/scheduler.py", line 2598 in run_scheduler_process' % SGL, "",
                                             "Extension modules: numpy.core._multiarray_umath, torch._C, ... (total: 104)"]))
        for m in self.attached:
            ks = self.nodes_ranks(m)
            if m == 0:
                self.L(0, t + 20, None, "Health check failed. Server couldn't get a response from detokenizer for last 20 seconds. tic start time: %s. last_heartbeat time: %s" % (
                    R.d(t + 20).strftime("%H:%M:%S"), R.d(t - 1).strftime("%H:%M:%S")))
            k = ks[0]
            self.L(m, t + 300 + rng.uniform(0, 3), k, "Watchdog timeout (self.watchdog_timeout=300)")
            self.L(m, t + 300.1, k, "self.cur_batch.batch_size()=%d, self.cur_batch.reqs=[Req(rid=%s, input_ids=[...], output_ids=[...]), ...], self.token_to_kv_pool_allocator.available_size()=%d, self.tree_cache.evictable_size()=%d, " % (
                rng.randint(8, 200), hexid(rng, 32), rng.randint(1000, 90000), rng.randint(10000, 500000)))
            self.L(m, t + 300.2, k, "Pyspy failed to dump PID %d. Error: /bin/sh: 1: py-spy: not found" % rng.randint(100, 9000))
            self.node_down(m, t + 305 + rng.uniform(0, 2))
        self.client.fail(t + 5, "timeout", 4)
        self.client.fail(t + 310, "reset", 2)
        return False

    def hang(self, tf, r):
        R, rng = self.R, self.rng
        n = R.rank_node[r]
        tw = tf + 300
        ev = False
        stuck = rng.choice([["recv (torch/distributed/distributed_c10d.py:2420)", "broadcast_pyobj (sglang/srt/utils.py:1047)",
                             "recv_requests (sglang/srt/managers/scheduler.py:1033)", "event_loop_overlap (sglang/srt/managers/scheduler.py:751)"],
                            ["read (safetensors/torch.py:313)", "load_lora_adapter (sglang/srt/lora/lora_manager.py:188)",
                             "process_input_requests (sglang/srt/managers/scheduler.py:1127)", "event_loop_overlap (sglang/srt/managers/scheduler.py:752)"]])
        waitst = ["synchronize (torch/cuda/streams.py:231)", "resolve_last_batch_result (sglang/srt/managers/tp_worker_overlap_thread.py:174)",
                  "process_batch_result_decode (sglang/srt/managers/scheduler_output_processor_mixin.py:207)",
                  "event_loop_overlap (sglang/srt/managers/scheduler.py:770)"]
        for m in self.attached:
            for k in self.nodes_ranks(m):
                if k % 8 != 0 and k != r:
                    continue
                t = tw + rng.uniform(0, 2) + (0.5 if k == r else 0)
                self.L(m, t, k, "Watchdog timeout (self.watchdog_timeout=300)")
                if self.pyspy:
                    pid = R.pids[k]
                    st = stuck if k == r else waitst
                    self.L(m, t + 0.2, k, "Pyspy dump for PID %d:\n%s" % (pid, "\n".join(
                        ["Process %d: sglang::scheduler_TP%d" % (pid, k), "Python v3.12.3 (/usr/bin/python3.12)", "",
                         "Thread %d (active): \"MainThread\"" % pid] + ["    " + x for x in st])))
                    if k == r:
                        ev = True
                else:
                    self.L(m, t + 0.2, k, "Pyspy failed to dump PID %d. Error: /bin/sh: 1: py-spy: not found" % R.pids[k])
            self.node_down(m, tw + 5 + rng.uniform(0, 2))
        self.client.fail(tf + 30, "timeout", 5)
        if rng.random() < 0.5:
            nd = R.nodes[n]
            st = self.smi_state(nd)
            for k in st:
                st[k]["util"] = 100
            st[R.rank_local[r]]["util"] = 0
            self.smi_file(nd, tf + rng.uniform(60, 280), st)
            ev = True
        R.notes.append("hang on TP%d; every scheduler's watchdog fires; %s" % (r, "py-spy dump shows it" if (self.pyspy and n in self.files) else "py-spy missing"))
        return ev

    def mismatch(self, tf, r):
        R, rng = self.R, self.rng
        seq = rng.randint(5000, 90000)
        ref = 0 if r != 0 else 8
        txt = mismatch_text(r, ref, seq, "ALLGATHER", "BROADCAST", "%d" % (R.world), "1", dev="cpu")
        fr = [(SGL + "managers/scheduler.py", 2598, "run_scheduler_process", "scheduler.event_loop_overlap()"),
              (SGL + "managers/scheduler.py", 751, "event_loop_overlap", "recv_reqs = self.recv_requests()"),
              (SGL + "managers/scheduler.py", 1033, "recv_requests", "recv_reqs = broadcast_pyobj("),
              (SGL + "utils.py", 1040, "broadcast_pyobj", "dist.broadcast(tensor_size, src=src, group=dist_group)")]
        done = False
        for m in self.attached:
            for k in self.nodes_ranks(m)[:2]:
                self.sched_exc(m, tf + rng.uniform(0, 0.5), k, fr, txt)
                done = True
            self.node_down(m, tf + 1)
        if R.rank_node[r] in self.files:
            self.sched_exc(R.rank_node[r], tf + 0.3, r, fr, txt)
        self.client.fail(tf + 2, "reset", 3)
        R.notes.append("node %d started with a different --enable-dp-attention/--chunked-prefill setting; rank %d is named by DETAIL mismatch" % (R.rank_node[r], r))
        return done

    def net_fail(self, r, tf):
        R, rng = self.R, self.rng
        vis = self.exc(r, tf, "net", self.exc_text("net", r))
        self.collapse(tf + 1, r, "net", "")
        return vis

    def preempt(self, t, nd):
        R, rng = self.R, self.rng
        R.attach_klog(nd, "journal")
        ev = R.sink("gcloud-operations.txt")
        ev.add(t - 30, "NAME                                                 TYPE                         TARGET                                     HTTP_ERROR_CODE  STATUS  TIMESTAMP")
        ev.add(t - 29, "systemevent-%d-%s  compute.instances.preempted  us-central1-b/instances/%s  %s  DONE    %s" % (
            int(t) * 1000, hexid(rng, 12), nd.name, "-", D(t - 29).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "-07:00"))
        R.klog(nd, t - 28, "ACPI: Preparing to enter system sleep state S5" if rng.random() < 0.5 else "reboot: Power down")
        R.klog(nd, t - 29, "Power key pressed short.", "systemd-logind[1511]")
        for m in self.attached:
            if m == nd.idx:
                continue
            k = self.nodes_ranks(m)[0]
            self.sched_exc(m, t + rng.uniform(1, 40), k, [(SGL + "managers/scheduler.py", 2598, "run_scheduler_process", "scheduler.event_loop_overlap()"),
                                                        (SGL + "managers/scheduler.py", 751, "event_loop_overlap", "recv_reqs = self.recv_requests()"),
                                                        (SGL + "utils.py", 1047, "broadcast_pyobj", "dist.broadcast(tensor_size, src=src, group=dist_group)")],
                           ["RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [%s]:%d" % (nd.ip, rng.randint(20000, 60000))])
            self.node_down(m, t + 45)
        self.client.fail(t + 2, "reset", 3)

    def unknown(self, tf):
        R, rng = self.R, self.rng
        for m in self.attached:
            k = self.nodes_ranks(m)[0]
            self.L(m, tf + 300 + rng.uniform(0, 1.5), k, "Watchdog timeout (self.watchdog_timeout=300)")
            self.L(m, tf + 300.3, k, "Pyspy failed to dump PID %d. Error: /bin/sh: 1: py-spy: not found" % R.pids[k])
            self.node_down(m, tf + 302)
        self.client.fail(tf + 20, "timeout", 5)

    def load_stall(self, t, r):
        R, rng = self.R, self.rng
        tto = t + 1800
        for m in self.attached:
            for k in self.nodes_ranks(m)[:3]:
                if k == r:
                    continue
                lines = c10d_timeout(R, k, tto, R.nodes[m], 2, "ALLREDUCE", 1, 2, 1, pg=(1, 1), torch_ver=self.ver[1], timeout_ms=1800000, short=True)
                self.raw(m, tto + rng.uniform(0, 2), "\n".join(lines))
            self.node_down(m, tto + 5)
        self.client.fail(t + 300, "refused", 3)
        return R.rank_node[r] in self.files

    def finish(self, t):
        self.L(0, t, None, "INFO:     Shutting down")
        self.L(0, t + 0.1, None, "INFO:     Waiting for application shutdown.")
        self.L(0, t + 0.2, None, "INFO:     Application shutdown complete.")
        self.L(0, t + 0.3, None, "INFO:     Finished server process [%d]" % self.rng.randint(100, 9000))


# ----------------------------------------------------------------------------
# layout 4: trtllm-slurm  (trtllm-serve --backend pytorch launched through
# srun --mpi=pmix ... trtllm-llmapi-launch; one slurm-<jobid>.out)
# ----------------------------------------------------------------------------
TRT_VERSIONS = [("0.20.0", "2.7.0", "2.25.1"), ("1.0.0rc4", "2.7.1", "2.26.2"), ("1.0.0", "2.8.0", "2.27.3"), ("1.1.0rc2", "2.8.0", "2.27.3")]
TRTPY = "/usr/local/lib/python3.12/dist-packages/tensorrt_llm/"


def nodelist(names):
    # compress 'gb200-n04','gb200-n05' -> gb200-n[04-05] when they share a prefix
    pre = os.path.commonprefix(names)
    while pre and pre[-1].isdigit():
        pre = pre[:-1]
    tails = [n[len(pre):] for n in names]
    if len(names) > 1 and all(t.isdigit() for t in tails):
        w = len(tails[0])
        nums = sorted(int(t) for t in tails)
        parts = []
        a = b = nums[0]
        for x in nums[1:]:
            if x == b + 1:
                b = x
            else:
                parts.append((a, b))
                a = b = x
        parts.append((a, b))
        return pre + "[" + ",".join(("%0*d" % (w, a)) if a == b else ("%0*d-%0*d" % (w, a, w, b)) for a, b in parts) + "]"
    return ",".join(names)


def engine_listing(R, path, W, bad, mib):
    rng = R.rng
    base = D(R.t0 - rng.uniform(2 * 86400, 20 * 86400))
    old = D(R.t0 - rng.uniform(30 * 86400, 90 * 86400))
    L = ["$ ls -l --time-style=long-iso %s" % path, "total %d" % (W * mib * 1024 + 64)]
    L.append("-rw-r--r-- 1 svc-llm llm       %5d %s config.json" % (rng.randint(3800, 6200), base.strftime("%Y-%m-%d %H:%M")))
    for r in range(W):
        sz = mib * 1048576 + rng.randint(0, 99999)
        d = base
        if r == bad:
            sz += rng.choice([-1, 1]) * rng.randint(150, 700) * 1048576
            d = old
        L.append("-rw-r--r-- 1 svc-llm llm %11d %s rank%d.engine" % (sz, d.strftime("%Y-%m-%d %H:%M"), r))
    return "\n".join(L) + "\n"


class TrtSlurm(Layout):
    name = "trtllm-slurm"

    def setup(self):
        R, rng = self.R, self.rng
        gk = rng.choice(["GB200", "GB200", "H200", "H100"])
        nn = rng.choice([2, 4, 4, 8]) if gk == "GB200" else rng.choice([2, 2, 4])
        self.ver = rng.choice(TRT_VERSIONS)
        if gk == "GB200":
            self.driver_pair = ("570.133.20", "12.8")
            R.driver, R.cuda = self.driver_pair
        pre = rng.choice(["gb200-r%d-n" % rng.randint(1, 9) if gk == "GB200" else "hgx-%s-" % gk.lower(), "nvl72-%02d-c" % rng.randint(1, 18) if gk == "GB200" else "dgx"])
        w = 2 if gk == "GB200" else 3
        R.build_nodes(nn, gk, lambda num, ip: "%s%0*d" % (pre, w, num % (10 ** w)), rng.choice(["10.10", "10.52", "172.16"]))
        R.map_ranks(GPUS[gk]["n"])
        R.fit_model(R.world)
        nms = [n.name for n in R.nodes]
        if len(set(nms)) != len(nms):
            for i, n in enumerate(R.nodes):
                n.name = "%s%0*d" % (pre, w, i + 1)
        for nd in R.nodes:
            nd.aliases = [nd.name, nd.ip, nd.name + ".cm.cluster", nd.ibip]
        self.job = rng.randint(100000, 9999999)
        self.label = rng.random() < 0.5
        self.tp = R.world
        self.ep = R.world if "Deepseek" in R.model[1] or "Moe" in R.model[1] else 1
        self.s = R.sink("slurm-%d.out" % self.job)
        self.print_iter = rng.random() < 0.45
        self.client_ips = [R.nodes[0].ip]
        self.client = Client(R, "aiperf-client.log", "http://%s:8000" % R.nodes[0].name)
        self.client.msg500 = "{'object': 'error', 'message': 'Executor worker returned error', 'type': 'InternalServerError', 'param': None, 'code': 500}"
        self.preempt_has_node = True
        self.s.header += ["+ srun --mpi=pmix -N %d --ntasks-per-node=%d%s --container-image=nvcr.io/nvidia/tensorrt-llm/release:%s --container-mounts=/lustre/models:/models trtllm-llmapi-launch trtllm-serve /models/%s --backend pytorch --host 0.0.0.0 --port 8000 --tp_size %d --ep_size %d --max_batch_size 256 --max_num_tokens 8192 --extra_llm_api_options /lustre/cfg/extra-llm-api-config.yml" % (
            nn, GPUS[gk]["n"], " -l" if self.label else "", self.ver[0], R.model[0].split("/")[-1], self.tp, self.ep)]
        R.notes.append("TensorRT-LLM %s trtllm-serve under Slurm job %d, %d nodes x %d %s, TP=%d EP=%d, srun %s" % (
            self.ver[0], self.job, nn, GPUS[gk]["n"], gk, self.tp, self.ep, "--label" if self.label else "no label"))

    def P(self, r, t, text):
        """one line printed by MPI rank r (srun -l prefixes the task id)."""
        if self.label and r is not None:
            text = "\n".join("%d: %s" % (r, ln) for ln in text.split("\n"))
        self.s.add(t, text)

    def trt(self, r, t, lvl, msg, rank_tag=True):
        d = self.R.d(t, self.R.rnode(r) if r is not None else None)
        tag = ("[RANK %d] " % r) if (rank_tag and r is not None and self.ver[0] >= "1.0") else ""
        self.P(r, t, "[%s] [TRT-LLM] %s[%s] %s" % (d.strftime("%m/%d/%Y-%H:%M:%S"), tag, lvl, msg))

    def startup(self, t, stall=None):
        R, rng = self.R, self.rng
        for r in range(R.world):
            self.P(r, t + rng.uniform(0, 3), "[TensorRT-LLM] TensorRT-LLM version: %s" % self.ver[0])
        self.trt(0, t + 4, "I", "Starting TensorRT-LLM init.", False)
        self.trt(0, t + 4.1, "I", "TensorRT-LLM inited.", False)
        for r in range(R.world):
            self.P(r, t + 6 + r * 0.01, "[TensorRT-LLM][INFO] Refreshed the MPI local session")
        if R.world <= 16 or rng.random() < 0.5:
            for r in range(R.world):
                self.P(r, t + 7 + r * 0.01, "[TensorRT-LLM][INFO] Rank %d is using GPU %d" % (r, R.rank_local[r]))
        load_s = rng.uniform(90, 500)
        tl = t + 12
        if stall is not None:
            for r in range(R.world):
                if r != stall:
                    self.trt(r, tl + load_s * rng.uniform(0.95, 1.03), "I", "Loading weights concurrently: 100%%|██████████| %d/%d [%s<00:00, %.2fit/s]" % (
                        R.model[2] * 4, R.model[2] * 4, hms(load_s), R.model[2] * 4 / load_s))
            return tl + load_s * 1.05
        for r in range(R.world):
            if r % max(1, R.world // 4) == 0 or R.world <= 8:
                self.trt(r, tl + load_s * rng.uniform(0.95, 1.03), "I", "Loading weights concurrently: 100%%|██████████| %d/%d [%s<00:00, %.2fit/s]" % (
                    R.model[2] * 4, R.model[2] * 4, hms(load_s), R.model[2] * 4 / load_s))
        tk = tl + load_s * 1.05
        for r in range(R.world):
            if r < 2 or r == R.world - 1:
                self.P(r, tk + r * 0.01, "[TensorRT-LLM][INFO] [MemUsageChange] Allocated %.2f GiB for max tokens in paged KV cache (%d)." % (
                    rng.uniform(20, 90), rng.randint(200000, 900000)))
        if self.R.cause == "collective_mismatch":
            bad = self.pick_bad()
            self.eng_mib = int(R.model[3] * 1024 / R.world)
            for r in range(R.world):
                self.P(r, tk + 20 + r * 0.01, "[TensorRT-LLM][INFO] Loaded engine size: %d MiB" % (
                    self.eng_mib + (rng.choice([-1, 1]) * rng.randint(150, 700) if r == bad else 0)))
        ta = tk + rng.uniform(30, 90)
        self.P(0, ta, "INFO:     Started server process [%d]" % R.pids[0])
        self.P(0, ta + 0.01, "INFO:     Waiting for application startup.")
        self.P(0, ta + 0.02, "INFO:     Application startup complete.")
        self.P(0, ta + 0.03, "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)")
        return ta + 1

    def pick_bad(self):
        return self._bad_target

    def pick(self):
        tgt = Layout.pick(self)
        self._bad_target = tgt
        return tgt

    def serve(self, ta, tb, slow=None):
        R, rng = self.R, self.rng
        span = tb - ta
        wins = [(ta, ta + 300), (tb - 900, tb)] if span > 1500 else [(ta, tb)]
        it = rng.randint(100, 900)
        for a, b in wins:
            t = a + 2
            while t < b:
                for _ in range(rng.randint(0, 3)):
                    self.P(0, min(t + rng.uniform(0, 9), b - 0.3), "INFO:     %s:%d - \"POST /v1/chat/completions HTTP/1.1\" 200 OK" % (R.nodes[0].ip, rng.randint(30000, 65000)))
                if self.print_iter:
                    it += rng.randint(300, 700)
                    ranks = [0] + ([slow] if slow is not None else []) + ([rng.randrange(R.world)] if rng.random() < 0.3 else [])
                    for r in sorted(set(ranks)):
                        hs = rng.uniform(14, 24)
                        ds = hs * rng.uniform(0.95, 1.05) * (1.6 if r == slow else 1.0)
                        d = R.d(t, R.rnode(r))
                        self.trt(r, t + r * 0.0001, "I", "iter = %d, global_rank = %d, rank = %d, currank_total_requests = 0/%d, host_step_time = %.3fms, prev_device_step_time = %.3fms, timestamp = %s, num_scheduled_requests: %d, states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': %d}" % (
                            it, r, r, rng.randint(40, 256), hs, ds, d.strftime("%Y-%m-%d %H:%M:%S"), rng.randint(40, 256), rng.randint(40, 256)))
                t += 10
        self.client.ok_window(ta, tb)

    def decoys(self, ta, tb):
        R, rng = self.R, self.rng
        if rng.random() < 0.6:
            self.trt(0, rng.uniform(ta, tb), "W", "Cannot find a matching kv cache transceiver backend; falling back to UCX.", False)
        if rng.random() < 0.5:
            self.P(rng.randrange(R.world), ta - 60, "[TensorRT-LLM][WARNING] Fix optionalParams : KV cache reuse disabled because model was not built with paged context FMHA support")
        if rng.random() < 0.4:
            t = rng.uniform(ta, tb)
            self.trt(0, t, "E", "Error processing request: Prompt length (%d) exceeds the max_seq_len." % rng.randint(140000, 300000))
            self.P(0, t + 0.01, "INFO:     %s:%d - \"POST /v1/chat/completions HTTP/1.1\" 400 Bad Request" % (R.nodes[0].ip, rng.randint(30000, 65000)))

    def rank_from_gpu(self, r):
        return True   # 'Rank r is using GPU k' + fixed ntasks-per-node layout

    def pid_maps(self, r):
        return self.label

    def comm(self, r):
        return "python3"

    def exc(self, r, t, kind, lines):
        R, rng = self.R, self.rng
        if kind in ("nvlink", "net"):
            lines = ["RuntimeError: [TensorRT-LLM][ERROR] Assertion failed: Failed, NCCL error /src/tensorrt_llm/cpp/tensorrt_llm/thop/allreduceOp.cpp:%d '%s'" % (
                rng.choice([478, 512]), "unhandled cuda error (run with NCCL_DEBUG=INFO for details)" if kind == "nvlink" else "remote process exited or there was a network error")]
            self.last_lines = lines
        first = lines[0].split(": ", 1)[-1]
        self.trt(r, t, "E", "Error in event loop: %s" % first)
        fr = [(TRTPY + "_torch/pyexecutor/py_executor.py", 320, "_event_loop_wrapper", "self.event_loop()"),
              (TRTPY + "_torch/pyexecutor/py_executor.py", 1014, "_executor_loop_overlap", "batch_outputs = self._forward_step(scheduled_batch, previous_tensors_device)"),
              (TRTPY + "_torch/pyexecutor/py_executor.py", 1689, "_forward_step", "outputs = forward(scheduled_requests, self.resource_manager, new_tensors_device, gather_context_logits, cache_indirection_buffer)"),
              (TRTPY + "_torch/pyexecutor/model_engine.py", 2088, "forward", "return self._forward_step(inputs, gather_ids, gather_context_logits)")]
        if kind in ("nvlink", "net"):
            fr += [(TRTPY + "_torch/distributed/ops.py", 438, "forward", "output = torch.ops.trtllm.allreduce("),
                   ("/usr/local/lib/python3.12/dist-packages/torch/_ops.py", 1158, "__call__", "return self._op(*args, **(kwargs or {}))")]
        elif kind == "py":
            fr = fr[:1] + [(TRTPY + "_torch/pyexecutor/py_executor.py", 1003, "_executor_loop_overlap", "new_requests = self._fetch_new_requests()"),
                           (TRTPY + "_torch/pyexecutor/py_executor.py", 1502, "_fetch_new_requests", "self._update_new_active_requests_queue_latency(new_requests)")]
        else:
            fr += [(TRTPY + "_torch/models/modeling_deepseekv3.py" if "Deepseek" in R.model[1] else TRTPY + "_torch/models/modeling_llama.py", 1189, "forward", "hidden_states, residual = layer(")]
        tbl = ["Traceback (most recent call last):"]
        for p, ln, fn, c in fr:
            tbl += ['  File "%s", line %d, in %s' % (p, ln, fn), "    " + c]
        self.trt(r, t + 0.001, "E", "\n".join(tbl + [l for l in lines if l]))
        return True

    def srun_tail(self, t, r, how="Exited with exit code 1", reason=None):
        R, rng = self.R, self.rng
        nd = R.rnode(r)
        if r is not None:
            self.s.add(t, "srun: error: %s: task %d: %s" % (nd.name, r, how))
        self.s.add(t + 0.2, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
        self.s.add(t + 0.3, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (self.job, R.nodes[0].name, R.d(t + 0.3, R.nodes[0]).strftime("%Y-%m-%dT%H:%M:%S")))
        for nd2 in R.nodes:
            ts = [k for k in range(R.world) if R.rank_node[k] == nd2.idx and k != r]
            if ts:
                self.s.add(t + 32 + rng.uniform(0, 1), "srun: error: %s: task%s %s: Killed" % (nd2.name, "s" if len(ts) > 1 else "", "%d-%d" % (ts[0], ts[-1]) if len(ts) > 1 and ts[-1] - ts[0] == len(ts) - 1 else ",".join(map(str, ts))))
        self.s.add(t + 33, "srun: Terminating StepId=%d.0" % self.job)
        state = reason or "FAILED"
        self.sacct(state, "1:0" if state == "FAILED" else "0:15", t)

    def sacct(self, state, code, t):
        R = self.R
        nl = nodelist([n.name for n in R.nodes])
        L = ["$ sacct -j %d --format=JobID,JobName,Partition,AllocCPUS,State,ExitCode,NodeList" % self.job,
             "JobID           JobName  Partition  AllocCPUS      State ExitCode        NodeList ",
             "------------ ---------- ---------- ---------- ---------- -------- --------------- ",
             "%-12s %10s %10s %10d %10s %8s %-15s " % (self.job, "trtllm-se+", "gpu", 72 * len(R.nodes), state, code, nl),
             "%-12s %10s %10s %10d %10s %8s %-15s " % ("%d.batch" % self.job, "batch", "", 72, state if state != "NODE_FAIL" else "CANCELLED", code, R.nodes[0].name),
             "%-12s %10s %10s %10d %10s %8s %-15s " % ("%d.extern" % self.job, "extern", "", 72 * len(R.nodes), "COMPLETED" if state != "NODE_FAIL" else "CANCELLED", "0:0", nl),
             "%-12s %10s %10s %10d %10s %8s %-15s " % ("%d.0" % self.job, "trtllm-ll+", "", 4 * len(R.nodes), state if state != "PREEMPTED" else "CANCELLED", code, nl)]
        R.static("sacct-%d.txt" % self.job, "\n".join(L) + "\n")

    def collapse(self, t, r, kind, short):
        R, rng = self.R, self.rng
        self.P(0, t + 0.5, "INFO:     %s:%d - \"POST /v1/chat/completions HTTP/1.1\" 500 Internal Server Error" % (R.nodes[0].ip, rng.randint(30000, 65000)))
        if kind != "kill":
            self.srun_tail(t + rng.uniform(1, 4), r)
        self.client.fail(t + 1, "500", 2)
        self.client.fail(t + 10, "refused", 3)

    def die(self, r, t, sig):
        R, rng = self.R, self.rng
        nd = R.rnode(r)
        if sig == "SIGKILL":
            self.s.add(t + 1, "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % self.job)
            how = "Out Of Memory"
        else:
            how = {"SIGSEGV": "Segmentation fault (core dumped)", "SIGBUS": "Bus error (core dumped)", "SIGABRT": "Aborted (core dumped)"}[sig]
            if rng.random() < 0.6:
                self.P(r, t - 0.01, "[%s:%d :0:%d] Caught signal %d (%s: %s)" % (
                    nd.name, R.pids[r], R.pids[r] + 211, {"SIGSEGV": 11, "SIGBUS": 7, "SIGABRT": 6}[sig], {"SIGSEGV": "Segmentation fault", "SIGBUS": "Bus error", "SIGABRT": "Aborted"}[sig],
                    rng.choice(["address not mapped to object at address 0x8", "invalid permissions for mapped object at address 0x7f%s" % hexid(rng, 8), "tkill(2) or tgkill(2)"])))
                self.P(r, t - 0.005, "==== backtrace (tid:%7d) ====\n 0  /opt/hpcx/ucx/lib/libucs.so.0(ucs_handle_error+0x2e4) [0x7f%s]\n 1  /opt/hpcx/ucx/lib/libucs.so.0(+0x3a8ac) [0x7f%s]\n 2  /lib/x86_64-linux-gnu/libc.so.6(+0x42520) [0x7f%s]\n 3  %s(+0x%s) [0x7f%s]\n=================================" % (
                    R.pids[r] + 211, hexid(rng, 10), hexid(rng, 10), hexid(rng, 10), TRTPY + "libs/libtensorrt_llm.so", hexid(rng, 7), hexid(rng, 10)))
        self.srun_tail(t + 2, r, how)
        return True

    def hang(self, tf, r):
        R, rng = self.R, self.rng
        ev = False
        if self.print_iter:
            last = rng.randint(10 ** 5, 10 ** 6)
            for k in sorted(set([0, r] + rng.sample(range(R.world), min(3, R.world)))):
                d = R.d(tf, R.rnode(k))
                self.trt(k, tf - 0.5 + k * 0.0001, "I", "iter = %d, global_rank = %d, rank = %d, currank_total_requests = 0/128, host_step_time = %.3fms, prev_device_step_time = %.3fms, timestamp = %s, num_scheduled_requests: 128, states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': 128}" % (
                    last - (1 if k == r else 0), k, k, rng.uniform(14, 20), rng.uniform(14, 20), d.strftime("%Y-%m-%d %H:%M:%S")))
            ev = True
        self.client.fail(tf + 30, "timeout", 6)
        tl = tf + rng.uniform(3600, 4 * 3600)
        self.s.add(tl, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (self.job, R.nodes[0].name, R.d(tl).strftime("%Y-%m-%dT%H:%M:%S")))
        self.s.add(tl + 0.1, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (self.job, R.nodes[0].name, R.d(tl).strftime("%Y-%m-%dT%H:%M:%S")))
        self.sacct("TIMEOUT", "0:0", tl)
        if rng.random() < 0.5:
            nd = R.rnode(r)
            st = self.smi_state(nd)
            for k in st:
                st[k]["util"] = 100
            st[R.rank_local[r]]["util"] = 0
            self.smi_file(nd, tf + rng.uniform(300, 1800), st)
            ev = True
        R.notes.append("hang: rank %d's iteration counter stops one step behind; job killed at time limit" % r)
        return ev

    def mismatch(self, tf, r):
        R, rng = self.R, self.rng
        self.client.fail(tf + 30, "timeout", 5)
        tl = tf + rng.uniform(1800, 3 * 3600)
        self.s.add(tl, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (self.job, R.nodes[0].name, R.d(tl).strftime("%Y-%m-%dT%H:%M:%S")))
        self.sacct("TIMEOUT", "0:0", tl)
        R.static("ls-engine-dir.txt", engine_listing(R, "/lustre/engines/%s-tp%d" % (R.model[0].split("/")[-1].lower(), R.world), R.world, r, self.eng_mib))
        R.notes.append("TRT engine backend: rank%d.engine is a stale copy from an older build -> mismatched all-reduce sizes, silent hang" % r)
        return self.label or True

    def net_fail(self, r, tf):
        R, rng = self.R, self.rng
        nd = R.rnode(r)
        pn = R.nodes[(nd.idx + 1) % len(R.nodes)]
        self.P(r, tf - 0.3, nccl_ib_warn(nd.name, R.pids[r], R.rank_local[r], pn.ibip, nd.ibip, getattr(self, "hca", "mlx5_%d" % R.rank_local[r]), ver=self.ver[2]))
        vis = self.exc(r, tf, "net", self.exc_text("net", r))
        pk = pn.idx * GPUS[pn.gpu]["n"] + R.rank_local[r]
        self.P(pk, tf + 0.8, nccl_ib_warn(pn.name, R.pids[pk], R.rank_local[pk], nd.ibip, pn.ibip, "mlx5_%d" % R.rank_local[pk], recv=False, ver=self.ver[2]))
        self.exc(pk, tf + 1.5, "net", self.exc_text("net", pk))
        self.collapse(tf + 2, r, "net", "")
        return vis

    def preempt(self, t, nd):
        R, rng = self.R, self.rng
        if rng.random() < 0.5:
            self.preempt_has_node = False
            self.s.add(t, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (self.job, R.nodes[0].name, R.d(t).strftime("%Y-%m-%dT%H:%M:%S")))
            self.s.add(t + 0.1, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (self.job, R.nodes[0].name, R.d(t).strftime("%Y-%m-%dT%H:%M:%S")))
            self.sacct("PREEMPTED", "0:15", t)
            R.notes.append("job-level Slurm preemption by a higher-priority QOS; no culprit node (node=null)")
        else:
            self.s.add(t + 45, "srun: error: Node failure on %s" % nd.name)
            self.s.add(t + 45.1, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***" % (self.job, R.nodes[0].name, R.d(t + 45).strftime("%Y-%m-%dT%H:%M:%S")))
            self.s.add(t + 46, "srun: error: %s: tasks %d-%d: Killed" % (R.nodes[0].name, 0, GPUS[nd.gpu]["n"] - 1))
            ev = R.sink("cloud-maintenance-events.txt")
            ev.add(t - 118, "%s  instance=%s  event=SpotInterruption  action=terminate  notice=120s" % (f_iso_us(D(t - 118)), nd.name))
            self.sacct("NODE_FAIL", "0:0", t + 45)
            R.notes.append("spot reclaim of %s (NODE_FAIL)" % nd.name)
        self.client.fail(t + 1, "reset", 3)

    def unknown(self, tf):
        R, rng = self.R, self.rng
        self.client.fail(tf + 30, "timeout", 5)
        tl = tf + rng.uniform(1800, 3 * 3600)
        self.s.add(tl, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (self.job, R.nodes[0].name, R.d(tl).strftime("%Y-%m-%dT%H:%M:%S")))
        self.sacct("TIMEOUT", "0:0", tl)

    def load_stall(self, t, r):
        R, rng = self.R, self.rng
        tl = t + rng.uniform(1800, 7200)
        self.s.add(tl, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (self.job, R.nodes[0].name, R.d(tl).strftime("%Y-%m-%dT%H:%M:%S")))
        self.sacct("TIMEOUT", "0:0", tl)
        self.client.fail(t + 600, "refused", 3)
        return True   # only rank r lacks 'Loading weights concurrently: 100%'

    def finish(self, t):
        R = self.R
        self.P(0, t, "INFO:     Shutting down")
        self.P(0, t + 0.1, "INFO:     Waiting for application shutdown.")
        self.P(0, t + 0.2, "INFO:     Application shutdown complete.")
        self.P(0, t + 0.3, "INFO:     Finished server process [%d]" % R.pids[0])
        self.sacct("COMPLETED", "0:0", t)


# ----------------------------------------------------------------------------
# layout 5: triton-trtllm  (tritonserver + tensorrtllm_backend, multi-GPU via
# launch_triton_server.py -> mpirun; docker logs of the triton container)
# ----------------------------------------------------------------------------
class TritonTrt(Layout):
    name = "triton-trtllm"
    in_container = True

    def pick(self):
        self._tgt = Layout.pick(self)
        return self._tgt

    def setup(self):
        R, rng = self.R, self.rng
        c = R.cause
        two = c == "network" or (c == "preemption" and rng.random() < 0.4) or rng.random() < 0.2
        gk = R.gpu_key
        R.build_nodes(2 if two else 1, gk, lambda num, ip: "inf-%s-%02d" % (gk.lower(), num % 100), "10.%d" % rng.randint(1, 250))
        if two:
            R.map_ranks(8)
        else:
            w = rng.choice([2, 4, 4, 8])
            if c == "nvlink" and w < 4:
                w = 4
            R.map_ranks(w)
        R.fit_model(R.world)
        for nd in R.nodes:
            nd.cid = hexid(rng, 12)
            nd.aliases = [nd.name, nd.ip, nd.cid]
        self.trt_ver = rng.choice(["24.12", "25.02", "25.04", "25.06"])
        self.tag = rng.random() < 0.45
        self.s = R.sink("docker-logs-triton.txt")
        self.client_ips = [R.nodes[0].ip]
        self.client = Client(R, "perf_analyzer-client.log", "http://%s:8000" % R.nodes[0].ip)
        self.two = two
        R.notes.append("Triton %s-trtllm-python-py3, launch_triton_server.py --world_size %d%s, mpirun %s" % (
            self.trt_ver, R.world, " (2 nodes via --hostfile)" if two else "", "--tag-output" if self.tag else "without --tag-output"))

    def O(self, r, t, text, err=False):
        if self.tag and r is not None:
            text = "\n".join("[1,%d]<%s>:%s" % (r, "stderr" if err else "stdout", ln) for ln in text.split("\n"))
        self.s.add(t, text)

    def G(self, r, t, lvl, src, msg):
        d = self.R.d(t, self.R.rnode(r))
        self.O(r, t, "%s %d %s] \"%s\"" % (f_glog(lvl, d), self.R.pids[r], src, msg), err=True)

    def startup(self, t, stall=None):
        R, rng = self.R, self.rng
        W = R.world
        for r in range(W):
            self.G(r, t + r * 0.01, "I", "pinned_memory_manager.cc:277", "Pinned memory pool is created at '0x7f%s' with size 268435456" % (hexid(rng, 4) + "000000"))
            self.G(r, t + 0.02 + r * 0.01, "I", "cuda_memory_manager.cc:107", "CUDA memory pool is created on device %d with size 67108864" % R.rank_local[r])
        for r in range(W):
            self.G(r, t + 1 + r * 0.01, "I", "model_lifecycle.cc:472", "loading: tensorrt_llm:1")
        for r in range(W):
            self.O(r, t + 2 + r * 0.01, "[TensorRT-LLM][INFO] Initializing MPI with thread mode 3")
            self.O(r, t + 2.5 + r * 0.01, "[TensorRT-LLM][INFO] Rank %d is using GPU %d" % (r, R.rank_local[r]))
        self.O(0, t + 3, "[TensorRT-LLM][INFO] TRTGptModel maxNumSequences: 256\n[TensorRT-LLM][INFO] TRTGptModel maxBatchSize: 256\n[TensorRT-LLM][INFO] TRTGptModel maxBeamWidth: 1\n[TensorRT-LLM][INFO] TRTGptModel maxSequenceLen: 32768\n[TensorRT-LLM][INFO] TRTGptModel maxNumTokens: 8192\n[TensorRT-LLM][INFO] Capacity Scheduler Policy: GUARANTEED_NO_EVICT\n[TensorRT-LLM][INFO] Context Chunking Scheduler Policy: None")
        load_s = rng.uniform(40, 240)
        self.eng_mib = int(R.model[3] * 1024 / W)
        bad = self._tgt if R.cause == "collective_mismatch" else None
        for r in range(W):
            if r == stall:
                continue
            self.O(r, t + 4 + load_s * rng.uniform(0.95, 1.03), "[TensorRT-LLM][INFO] Loaded engine size: %d MiB" % (
                self.eng_mib + (rng.choice([-1, 1]) * rng.randint(180, 900) if r == bad else 0)))
        if stall is not None:
            return t + 4 + load_s * 1.05
        tk = t + 6 + load_s * 1.05
        for r in range(W):
            self.O(r, tk + r * 0.01, "[TensorRT-LLM][INFO] [MemUsageChange] Allocated %.2f GiB for max tokens in paged KV cache (%d)." % (rng.uniform(20, 60), rng.randint(200000, 900000)))
        for r in range(W):
            self.G(r, tk + 2 + r * 0.01, "I", "libtensorrtllm.cc:184", "TRITONBACKEND_ModelInstanceInitialize: tensorrt_llm_0_0")
            self.G(r, tk + 2.1 + r * 0.01, "I", "model_lifecycle.cc:839", "successfully loaded 'tensorrt_llm'")
        self.G(0, tk + 3, "I", "model_lifecycle.cc:839", "successfully loaded 'preprocessing'")
        self.G(0, tk + 3.1, "I", "model_lifecycle.cc:839", "successfully loaded 'postprocessing'")
        self.G(0, tk + 3.2, "I", "model_lifecycle.cc:839", "successfully loaded 'ensemble'")
        self.G(0, tk + 3.5, "I", "grpc_server.cc:2558", "Started GRPCInferenceService at 0.0.0.0:8001")
        self.G(0, tk + 3.6, "I", "http_server.cc:4725", "Started HTTPService at 0.0.0.0:8000")
        self.G(0, tk + 3.7, "I", "http_server.cc:358", "Started Metrics Service at 0.0.0.0:8002")
        return tk + 4

    def serve(self, ta, tb, slow=None):
        R, rng = self.R, self.rng
        t = ta + 30
        while t < tb:
            if rng.random() < 0.15:
                self.G(0, t, "E", "model_instance_state.cc:1117", "Failed updating TRT LLM statistics: Internal - Failed to find Max KV cache blocks in output stats JSON")
            t += rng.uniform(60, 500)
        self.client.ok_window(ta, tb)

    def decoys(self, ta, tb):
        R, rng = self.R, self.rng
        if rng.random() < 0.5:
            self.O(0, ta + 5, "[TensorRT-LLM][WARNING] Default padding attention mask will be used as not all requests have cross attention mask.")
        if rng.random() < 0.5:
            t = rng.uniform(ta, tb)
            self.G(0, t, "E", "model.py:106", "Traceback (most recent call last):\n  File \\\"/models/inflight_batcher_llm/tensorrt_llm_bls/1/model.py\\\", line 94, in execute\n    for res in res_gen:\n  File \\\"/models/inflight_batcher_llm/tensorrt_llm_bls/1/lib/decode.py\\\", line 190, in decode\n    raise ValueError(\\\"Input length %d exceeds max_input_len 32000\\\")\nValueError: Input length %d exceeds max_input_len 32000" % (40000, 40000))

    def rank_from_gpu(self, r):
        return True

    def pid_maps(self, r):
        return True   # glog lines carry the pid of every rank's tritonserver

    def comm(self, r):
        return "tritonserver"

    def cxx_err(self, kind):
        rng = self.rng
        what = {"ima": "an illegal memory access was encountered", "lost": "unspecified launch failure",
                "ecc": "uncorrectable ECC error encountered", "nvlink": "uncorrectable NVLink error was detected during the execution",
                "oom": "out of memory"}.get(kind)
        if kind == "oom":
            head = "[TensorRT-LLM][ERROR] CUDA runtime error in ::cudaMallocAsync(ptr, n, mCudaStream->get()): out of memory (/tmp/tritonbuild/tensorrtllm/tensorrt_llm/cpp/tensorrt_llm/runtime/tllmBuffers.h:125)"
        elif kind in ("net",):
            head = "[TensorRT-LLM][ERROR] Assertion failed: Failed, NCCL error /tmp/tritonbuild/tensorrtllm/tensorrt_llm/cpp/tensorrt_llm/plugins/ncclPlugin/allreducePlugin.cpp:480 'remote process exited or there was a network error'"
        elif kind == "py":
            head = "[TensorRT-LLM][ERROR] Assertion failed: mNextBlocks.empty() (/tmp/tritonbuild/tensorrtllm/tensorrt_llm/cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp:219)"
        else:
            head = "[TensorRT-LLM][ERROR] CUDA runtime error in cudaStreamSynchronize(get()): %s (/tmp/tritonbuild/tensorrtllm/tensorrt_llm/cpp/include/tensorrt_llm/runtime/cudaStream.h:84)" % what
        L = ["[TensorRT-LLM][ERROR] Encountered an error in forwardAsync function: " + head,
             "1       0x7f%s void tensorrt_llm::common::check<cudaError>(cudaError, char const*, char const*, int) + 149" % hexid(rng, 10),
             "2       0x7f%s tensorrt_llm::batch_manager::TrtGptModelInflightBatching::forwardAsync(std::__cxx11::list<std::shared_ptr<tensorrt_llm::batch_manager::LlmRequest>, std::allocator<std::shared_ptr<tensorrt_llm::batch_manager::LlmRequest> > > const&) + 3114" % hexid(rng, 10),
             "3       0x7f%s tensorrt_llm::executor::Executor::Impl::forwardAsync(std::__cxx11::list<std::shared_ptr<tensorrt_llm::batch_manager::LlmRequest>, std::allocator<std::shared_ptr<tensorrt_llm::batch_manager::LlmRequest> > >&) + 436" % hexid(rng, 10),
             "4       0x7f%s tensorrt_llm::executor::Executor::Impl::executionLoop() + 1201" % hexid(rng, 10),
             "5       0x7f%s /lib/x86_64-linux-gnu/libstdc++.so.6(+0xdc253) [0x7f%s]" % (hexid(rng, 10), hexid(rng, 10)),
             "6       0x7f%s /lib/x86_64-linux-gnu/libc.so.6(+0x94ac3) [0x7f%s]" % (hexid(rng, 10), hexid(rng, 10)),
             "7       0x7f%s clone + 68" % hexid(rng, 10)]
        return L

    def exc(self, r, t, kind, lines):
        R, rng = self.R, self.rng
        L = self.cxx_err(kind)
        self.last_cxx = L[0].split("forwardAsync function: ", 1)[1]
        self.O(r, t, "\n".join(L), err=True)
        req = rng.randint(10 ** 5, 10 ** 7)
        self.O(r, t + 0.01, "[TensorRT-LLM][ERROR] Encountered error for requestId %d: Encountered an error in forwardAsync function: %s" % (req, L[0].split("forwardAsync function: ")[1]), err=True)
        return self.tag or kind in ("oom",) and False

    def mpi_abort(self, t, r, sig=None):
        R, rng = self.R, self.rng
        if sig is None:
            self.s.add(t, "--------------------------------------------------------------------------\nPrimary job  terminated normally, but 1 process returned\na non-zero exit code. Per user-direction, the job has been aborted.\n--------------------------------------------------------------------------")
            self.s.add(t + 0.5, "--------------------------------------------------------------------------\nmpirun detected that one or more processes exited with non-zero status, thus causing\nthe job to be terminated. The first process to do so was:\n\n  Process name: [[%d,1],%d]\n  Exit code:    1\n--------------------------------------------------------------------------" % (rng.randint(10000, 60000), r))
        else:
            self.s.add(t, "--------------------------------------------------------------------------\nmpirun noticed that process rank %d with PID %d on node %s exited on signal %d (%s).\n--------------------------------------------------------------------------" % (
                r, 0 if rng.random() < 0.5 else R.pids[r], R.rnode(r).cid if not self.two else R.rnode(r).name, sig[0], sig[1]))

    def collapse(self, t, r, kind, short):
        R, rng = self.R, self.rng
        if kind == "kill":
            return
        head = getattr(self, "last_cxx", "[TensorRT-LLM][ERROR] Assertion failed: Failed, NCCL error")
        for i in range(rng.randint(2, 5)):
            self.G(0, t + 0.2 + i * 0.3, "E", "model_instance_state.cc:%d" % rng.choice([1205, 1326]), "Executor failed process requestId %d due to the following error: Encountered an error in forwardAsync function: %s" % (
                rng.randint(10 ** 5, 10 ** 7), head.replace('"', '\\"')))
        if True:
            if r != 0 or rng.random() < 0.5:
                self.s.add(t + rng.uniform(20, 120), "terminate called after throwing an instance of 'tensorrt_llm::common::TllmException'\n  what():  [TensorRT-LLM][ERROR] Assertion failed: Failed, NCCL error /tmp/tritonbuild/tensorrtllm/tensorrt_llm/cpp/tensorrt_llm/runtime/ncclCommunicator.cpp:90 'unhandled system error (run with NCCL_DEBUG=INFO for details)'")
            self.mpi_abort(t + rng.uniform(120, 200), r)
        self.client.fail(t + 0.5, "tritonclient.utils.InferenceServerException: [StatusCode.INTERNAL] Executor failed process requestId due to the following error: Encountered an error in forwardAsync function", 3)
        self.client.fail(t + 200, "tritonclient.utils.InferenceServerException: [StatusCode.UNAVAILABLE] failed to connect to all addresses", 2)

    def die(self, r, t, sig):
        s = {"SIGKILL": (9, "Killed"), "SIGSEGV": (11, "Segmentation fault"), "SIGBUS": (7, "Bus error"), "SIGABRT": (6, "Aborted")}[sig]
        if sig == "SIGSEGV" and self.rng.random() < 0.6:
            self.O(r, t - 0.01, "Signal (11) received.\n 0# 0x000055D%s in tritonserver\n 1# 0x00007F%s in /lib/x86_64-linux-gnu/libc.so.6\n 2# 0x00007F%s in /opt/tritonserver/backends/tensorrtllm/libtensorrt_llm.so\n 3# 0x00007F%s in /opt/tritonserver/backends/tensorrtllm/libtensorrt_llm.so" % (
                hexid(self.rng, 9).upper(), hexid(self.rng, 9).upper(), hexid(self.rng, 9).upper(), hexid(self.rng, 9).upper()), err=True)
        self.mpi_abort(t + 1, r, s)
        self.client.fail(t + 1, "tritonclient.utils.InferenceServerException: [StatusCode.UNAVAILABLE] Socket closed", 3)
        return True

    def hang(self, tf, r):
        R, rng = self.R, self.rng
        self.client.fail(tf + 60, "tritonclient.utils.InferenceServerException: [StatusCode.DEADLINE_EXCEEDED] Deadline Exceeded", 6)
        self.G(0, tf + 1800, "I", "server.cc:305", "Waiting for in-flight requests to complete.")
        self.G(0, tf + 1800.1, "I", "server.cc:321", "Timeout 30: Found 0 model versions that have in-flight inferences")
        self.G(0, tf + 1830, "I", "server.cc:336", "All models are stopped, unloading models")
        ev = False
        if rng.random() < 0.7:
            nd = R.rnode(r)
            st = self.smi_state(nd)
            for k in st:
                st[k]["util"] = 100 if self._rank_at(nd, k) is not None else 0
            st[R.rank_local[r]]["util"] = 0
            self.smi_file(nd, tf + rng.uniform(300, 1500), st)
            ev = True
        R.notes.append("hang on MPI rank %d; no error text anywhere, operator restarted container" % r)
        return ev

    def mismatch(self, tf, r):
        R, rng = self.R, self.rng
        self.client.fail(tf + 30, "tritonclient.utils.InferenceServerException: [StatusCode.DEADLINE_EXCEEDED] Deadline Exceeded", 5)
        R.static("ls-engine-dir.txt", engine_listing(R, "/engines/%s-tp%d" % (R.model[0].split("/")[-1].lower(), R.world), R.world, r, self.eng_mib))
        self.s.add(tf + 1800, "Signal (15) received.")
        R.notes.append("rank%d.engine is a stale copy from an older build -> mismatched all-reduce sizes, silent hang" % r)
        return True

    def net_fail(self, r, tf):
        R, rng = self.R, self.rng
        nd = R.rnode(r)
        pn = R.nodes[1 - nd.idx]
        self.O(r, tf - 0.2, nccl_ib_warn(nd.cid, R.pids[r], R.rank_local[r], pn.ibip, nd.ibip, getattr(self, "hca", "mlx5_%d" % R.rank_local[r])), err=True)
        vis = self.exc(r, tf, "net", [])
        self.collapse(tf + 1, r, "net", "")
        return vis

    def preempt(self, t, nd):
        R, rng = self.R, self.rng
        R.attach_klog(nd, "journal")
        R.klog(nd, t - 30, "Received SIGTERM from PID 1 (systemd).", "dockerd[1204]")
        R.klog(nd, t - 31, "Power key pressed short.", "systemd-logind[1011]")
        ev = R.sink("cloud-events.txt")
        ev.add(t - 120, "%s  EC2 Spot Instance Interruption Warning  instance-action=terminate  host=%s" % (f_iso_us(D(t - 120)), nd.name))
        self.G(0, t - 29, "I", "server.cc:305", "Waiting for in-flight requests to complete.")
        self.G(0, t - 28.9, "I", "server.cc:321", "Timeout 30: Found 3 model versions that have in-flight inferences")
        self.s.add(t, "Signal (15) received.")
        self.client.fail(t + 1, "tritonclient.utils.InferenceServerException: [StatusCode.UNAVAILABLE] Socket closed", 3)

    def unknown(self, tf):
        self.client.fail(tf + 60, "tritonclient.utils.InferenceServerException: [StatusCode.DEADLINE_EXCEEDED] Deadline Exceeded", 6)
        self.G(0, tf + 1800, "I", "server.cc:305", "Waiting for in-flight requests to complete.")
        self.s.add(tf + 1831, "Signal (15) received.")

    def load_stall(self, t, r):
        self.client.fail(t + 300, "tritonclient.utils.InferenceServerException: [StatusCode.UNAVAILABLE] failed to connect to all addresses", 3)
        self.s.add(t + 3600, "Signal (15) received.")
        return True

    def finish(self, t):
        self.s.add(t, "Signal (15) received.")
        self.G(0, t + 0.1, "I", "server.cc:305", "Waiting for in-flight requests to complete.")
        self.G(0, t + 0.2, "I", "server.cc:321", "Timeout 30: Found 0 model versions that have in-flight inferences")
        self.G(0, t + 0.3, "I", "server.cc:336", "All models are stopped, unloading models")
        self.G(0, t + 1.5, "I", "server.cc:343", "Timeout 30: Found 0 live models and 0 in-flight non-inference requests")


# ----------------------------------------------------------------------------
# layout 6: dynamo-disagg  (NVIDIA Dynamo on Kubernetes, vLLM backend,
# disaggregated prefill/decode workers exchanging KV over NIXL/UCX)
# ----------------------------------------------------------------------------
class DynVLLM(VLLM):
    apiserver = False

    def api_pfx(self):
        return ""

    def uv(self, t, msg):
        pass


class Dynamo(Layout):
    name = "dynamo-disagg"
    in_container = True

    def setup(self):
        R, rng = self.R, self.rng
        cfg = rng.choice([(1, 4, 1, 4), (2, 4, 1, 8), (2, 8, 2, 8), (4, 8, 4, 8), (2, 4, 2, 4), (6, 8, 2, 8)])
        np_, tpp, nd_, tpd = cfg
        self.cfg = cfg
        gk = R.gpu_key if R.gpu_key != "A100" else "H100"
        R.gpu_key = gk
        pods = [("prefill", i, tpp) for i in range(np_)] + [("decode", i, tpd) for i in range(nd_)]
        total = sum(p[2] for p in pods)
        R.world = total
        R.rank_node, R.rank_local, R.pids = [], [], []
        self.pods = []
        dgd = "%s-disagg" % R.model[0].split("/")[-1].lower().replace(".", "-")[:18].strip("-")
        self.ns = rng.choice(["dynamo", "dynamo-system", "llm-prod"])
        slot = 0
        for role, i, tp in pods:
            ni = slot // 8
            if (slot % 8) + tp > 8:
                slot = (ni + 1) * 8
                ni = slot // 8
            base = len(R.rank_node)
            podname = "%s-vllm%sworker-%s-%s" % (dgd, role, hexid(rng, 9), hexid(rng, 5))
            podip = "10.%d.%d.%d" % (rng.choice([1, 4, 8]), rng.randint(0, 255), rng.randint(2, 250))
            pid0 = rng.randint(300, 4000)
            for k in range(tp):
                R.rank_node.append(ni)
                R.rank_local.append(slot % 8 + k)
                R.pids.append(pid0)
                pid0 += rng.choice([1, 1, 2])
            self.pods.append(dict(role=role, i=i, tp=tp, ranks=list(range(base, base + tp)), name=podname, ip=podip, node=ni))
            slot += tp
        nn = max(R.rank_node) + 1
        R.fit_model(min(tpp, tpd))
        cloud = rng.choice(["eks", "gke", "oke"])
        R.build_nodes(nn, gk, (lambda num, ip: "ip-%s.us-west-2.compute.internal" % ip.replace(".", "-")) if cloud == "eks" else
                      (lambda num, ip: "gke-dynamo-%s-pool-%s" % (gk.lower(), hexid(random.Random(ip), 8))) if cloud == "gke" else
                      (lambda num, ip: "%s" % ip), rng.choice(["10.0", "10.2", "172.18"]))
        for nd in R.nodes:
            nd.aliases = [nd.name, nd.ip] + [p["name"] for p in self.pods if p["node"] == nd.idx]
        self.frontend = "%s-frontend-%s-%s" % (dgd, hexid(rng, 9), hexid(rng, 5))
        self.client_ips = ["10.%d.%d.%d" % (rng.choice([1, 4]), rng.randint(0, 255), rng.randint(2, 250))]
        self.ver = rng.choice([v for v in VLLM_VERSIONS if v[1] == "v1b"])
        self.dyn_ver = rng.choice(["0.4.1", "0.5.0", "0.6.1"])
        self.fs = R.sink("kubectl-logs-%s.txt" % self.frontend)
        self.events = Events(R, self.ns)
        self.engs = {}
        self.client = Client(R, "client-genai-perf.log", "http://%s-frontend.%s.svc:8000" % (dgd, self.ns))
        self.client.msg500 = "{'message': 'Failed to generate completions: stream ended before generation completed', 'type': 'Internal Server Error', 'code': 500}"
        R.notes.append("Dynamo %s disaggregated: %d prefill x TP%d, %d decode x TP%d (vLLM %s, NixlConnector); rank = index over prefill pods then decode pods x TP" % (
            self.dyn_ver, np_, tpp, nd_, tpd, self.ver[0]))

    def attach(self, tgt_node):
        R, rng = self.R, self.rng
        tgt_pod = None
        if self.R.cause not in (None, "unknown", "preemption") and hasattr(self, "_tgt"):
            tgt_pod = self.pod_of(self._tgt)
        elif self.R.cause == "preemption" and tgt_node is not None:
            cands = [p for p in self.pods if p["node"] == tgt_node]
            tgt_pod = cands[0] if cands else None
        sel = []
        if tgt_pod is not None and rng.random() < 0.85:
            sel.append(tgt_pod)
        others = [p for p in self.pods if p is not tgt_pod]
        rng.shuffle(others)
        k = rng.randint(1, 2) if len(self.pods) > 3 else len(others)
        for p in others[:k]:
            sel.append(p)
        sel.sort(key=lambda p: p["ranks"][0])
        self.attached = sel
        for p in sel:
            sk = R.sink("kubectl-logs-%s.txt" % p["name"])
            host_of = (lambda pn: (lambda r: pn))(p["name"])
            e = DynVLLM(self, sk, p["ranks"], p["tp"], 1, self.ver, "mp", host_of,
                        "/opt/dynamo/venv/lib/python3.12/site-packages/", nccl_debug=False)
            e.api_on = True
            self.engs[p["name"]] = e
        if tgt_pod is not None and tgt_pod not in sel:
            R.notes.append("culprit pod's log not attached")
        Layout.attach(self, tgt_node)

    def pick(self):
        self._tgt = Layout.pick(self)
        return self._tgt

    def pod_of(self, r):
        for p in self.pods:
            if r in p["ranks"]:
                return p
        return None

    def eng_of(self, r):
        p = self.pod_of(r)
        return self.engs.get(p["name"]) if p else None

    def F(self, t, lvl, target, msg):
        d = self.R.d(t, self.R.nodes[0])
        self.fs.add(t, "%s %5s %s: %s" % (f_iso_us(d), lvl, target, msg))

    def dlog(self, e, t, lvl, mod, msg):
        d = self.R.d(t, e.node0())
        e.s.add(t, "%s %5s %s: %s" % (f_iso_ms(d), lvl, mod, msg))

    def startup(self, t, stall=None):
        R, rng = self.R, self.rng
        self.F(t, "INFO", "dynamo_runtime::distributed", "Initializing distributed runtime with etcd at http://etcd-client.%s.svc:2379, nats at nats://nats.%s.svc:4222" % (self.ns, self.ns))
        self.F(t + 1, "INFO", "dynamo_llm::http::service::service_v2", "Starting HTTP service on: 0.0.0.0:8000 address=\"0.0.0.0:8000\"")
        tr = t + 5
        for p in self.pods:
            e = self.engs.get(p["name"])
            if e is None:
                continue
            self.dlog(e, t + 1, "INFO", "dynamo.vllm.main", "Initializing %s worker with args: --model %s --tensor-parallel-size %d %s--kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'" % (
                p["role"], R.model[0], p["tp"], "--is-prefill-worker " if p["role"] == "prefill" else ""))
            st = stall if (stall in p["ranks"]) else None
            tt = e.startup(t + 2 + rng.uniform(0, 5), stall=st, load_s=rng.uniform(60, 200))
            if st is not None:
                tr = max(tr, tt)
                continue
            for r in p["ranks"]:
                e.s.add(tt - 3 + 0.01 * r, e.w_pfx(r) + "%s NIXL INFO    _api.py:361 Backend UCX was instantiated" % f_iso_ms(R.d(tt - 3)).replace("T", " ").replace("Z", ""))
                e.s.add(tt - 2.9 + 0.01 * r, e.w_pfx(r) + "%s NIXL INFO    _api.py:251 Initialized NIXL agent: %s-%s-%s-%s-%s" % (
                    f_iso_ms(R.d(tt - 2.9)).replace("T", " ").replace("Z", ""), hexid(rng, 8), hexid(rng, 4), hexid(rng, 4), hexid(rng, 4), hexid(rng, 12)))
            self.dlog(e, tt, "INFO", "dynamo.vllm.main", "Registered endpoint dyn://%s.%s.generate" % (self.ns, "prefill" if p["role"] == "prefill" else "backend"))
            tr = max(tr, tt)
        if stall is not None:
            return tr
        self.F(tr + 1, "INFO", "dynamo_llm::discovery::watcher", "added model model_name=\"%s\"" % R.model[0])
        return tr + 2

    def serve(self, ta, tb, slow=None):
        R, rng = self.R, self.rng
        for p in self.attached:
            e = self.engs[p["name"]]
            span = tb - ta
            wins = [(ta, ta + 300), (tb - 600, tb)] if span > 1200 else [(ta, tb)]
            for a, b in wins:
                t = a + rng.uniform(1, 9)
                while t < b:
                    e.metrics(t, gen=(rng.uniform(0, 50) if p["role"] == "prefill" else None))
                    t += 10
        t = ta + 20
        while t < tb:
            if rng.random() < 0.3:
                self.F(t, "INFO", "http-request", "request completed method=POST uri=/v1/chat/completions status=200 latency_ms=%d" % rng.randint(300, 9000))
            t += rng.uniform(30, 200)
        self.client.ok_window(ta, tb)

    def decoys(self, ta, tb):
        R, rng = self.R, self.rng
        if rng.random() < 0.5 and self.attached:
            e = self.engs[self.attached[0]["name"]]
            e.api(rng.uniform(ta, tb), "WARNING", "nixl_connector.py:1143", "Releasing expired KV blocks for request %s which were retrieved by 0 decode worker(s) within 120 seconds." % ("chatcmpl-" + hexid(rng, 32)))
        if rng.random() < 0.4:
            self.F(rng.uniform(ta, tb), "WARN", "dynamo_runtime::pipeline::network::tcp::server", "connection closed by client before response stream completed")

    def rank_from_gpu(self, r):
        return self.pod_of(r)["name"] in self.engs

    def pid_maps(self, r):
        return self.pod_of(r)["name"] in self.engs

    def comm(self, r):
        return "VLLM::Worker_TP"

    def visible_gpu(self, r):
        return self.pod_of(r)["ranks"].index(r)

    def exc(self, r, t, kind, lines):
        e = self.eng_of(r)
        if e is None:
            return False
        e.worker_exc(r, t, kind, lines)
        return True

    def pod_dead(self, t, p, reason="Error", code=1):
        R, rng = self.R, self.rng
        self.events.add(t + 2, "Warning", "BackOff", "pod/%s" % p["name"], "Back-off restarting failed container main in pod %s_%s(%s)" % (p["name"], self.ns, hexid(rng, 8) + "-" + hexid(rng, 4)))
        for i in range(rng.randint(2, 4)):
            self.F(t + 0.5 + i * 0.7, "ERROR", "dynamo_llm::http::service::openai", "Failed to generate completions: stream ended before generation completed request_id=%s-%s-%s-%s-%s" % (
                hexid(rng, 8), hexid(rng, 4), hexid(rng, 4), hexid(rng, 4), hexid(rng, 12)))
        if p["role"] == "prefill":
            for q in self.attached:
                if q["role"] == "decode":
                    e = self.engs[q["name"]]
                    rr = q["ranks"][0]
                    e.w(rr, t + rng.uniform(3, 30), "ERROR", "nixl_connector.py:1263", "NIXL transfer failure: handshake_setup_failed | Context: {'failure_type': 'handshake_setup_failed', 'request_id': None, 'engine_id': '%s', 'remote_engine_id': '%s'}" % (
                        hexid(rng, 8) + "-" + hexid(rng, 4), hexid(rng, 8) + "-" + hexid(rng, 4)))
        R.static("kubectl-describe-pod-%s.txt" % p["name"], describe_pod(R, p["name"], self.ns, R.nodes[p["node"]], p["ip"], R.t0, t,
                                                                         reason, code, status="Running", image="nvcr.io/nvidia/ai-dynamo/vllm-runtime:%s" % self.dyn_ver,
                                                                         restarts=1, ctr="main",
                                                                         labels=["nvidia.com/dynamo-component=%s" % ("VllmPrefillWorker" if p["role"] == "prefill" else "VllmDecodeWorker"),
                                                                                 "nvidia.com/dynamo-graph-deployment-name=%s" % p["name"].split("-vllm")[0]],
                                                                         events=[("%ds" % rng.randint(20, 200), "Warning", "BackOff", "kubelet", "Back-off restarting failed container main in pod %s" % p["name"])]))

    def collapse(self, t, r, kind, short):
        R, rng = self.R, self.rng
        p = self.pod_of(r)
        e = self.engs.get(p["name"])
        if e is not None and kind != "kill":
            e.engine_fatal(t, ["RuntimeError: Worker failed with error '%s', please check the stack trace above for the root cause" % short])
            e.others_exit(t + 0.5, r)
            self.dlog(e, t + 1, "ERROR", "dynamo.vllm.handlers", "Engine died; shutting down worker: EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.")
        self.pod_dead(t + 1, p)
        self.client.fail(t + 1, "500", 3)
        self.render(t + rng.uniform(200, 900))

    def render(self, tcap):
        if self.events.rows:
            self.R.static("kubectl-get-events.txt", self.events.render(tcap))

    def die(self, r, t, sig):
        R = self.R
        p = self.pod_of(r)
        e = self.engs.get(p["name"])
        if e is not None:
            e.core(t + 0.4, "ERROR", "multiproc_executor.py:149", "Worker proc VllmWorker-%d died unexpectedly, shutting down executor." % p["ranks"].index(r))
            e.api_dead(t + 0.6)
        return e is not None

    def hang(self, tf, r):
        R, rng = self.R, self.rng
        p = self.pod_of(r)
        e = self.engs.get(p["name"])
        if e is not None:
            e.shm_wait(tf, 4)
            e.engine_fatal(tf + 300, ["TimeoutError: RPC call to execute_model timed out."],
                           frames=[("vllm/v1/executor/multiproc_executor.py", 239, "collective_rpc", "raise TimeoutError(f\"RPC call to {method} timed out.\") from e")])
        self.pod_dead(tf + 302, p)
        self.client.fail(tf + 60, "timeout", 5)
        ev = False
        if rng.random() < 0.6:
            nd = R.nodes[p["node"]]
            st = self.smi_state(nd)
            for k in st:
                st[k]["util"] = 100
            st[R.rank_local[r]]["util"] = 0
            self.smi_file(nd, tf + rng.uniform(60, 250), st)
            ev = True
        self.render(tf + 900)
        return ev

    def mismatch(self, tf, r):
        R, rng = self.R, self.rng
        p = self.pod_of(r)
        e = self.engs.get(p["name"])
        others = [q for q in self.attached if q["role"] != p["role"]]
        for q in others:
            eq = self.engs[q["name"]]
            rr = q["ranks"][0]
            eq.w(rr, tf + rng.uniform(0, 2), "ERROR", "nixl_connector.py:815", "RuntimeError: Remote NIXL agent engine ID mismatch. Expected %s_dp0,received %s_dp0." % (
                "%s-%s-%s-%s-%s" % (hexid(rng, 8), hexid(rng, 4), hexid(rng, 4), hexid(rng, 4), hexid(rng, 12)),
                "%s-%s-%s-%s-%s" % (hexid(rng, 8), hexid(rng, 4), hexid(rng, 4), hexid(rng, 4), hexid(rng, 12))))
            eq.w(rr, tf + 2.1, "ERROR", "nixl_connector.py:827", "Handshake failed for request chatcmpl-%s" % hexid(rng, 32))
        if e is not None:
            e.api(tf - 9000, "INFO", "utils.py:328", "non-default args: {'model': '%s', 'tensor_parallel_size': %d, 'block_size': 16, 'kv_cache_dtype': 'fp8'}" % (R.model[0], p["tp"]))
        self.client.fail(tf + 3, "500", 3)
        R.notes.append("pod %s was rolled with --block-size 16 --kv-cache-dtype fp8 (others 64/auto): KV layouts mismatch; pod-level, rank=null" % p["name"])
        self.truth_rank_none = True
        self.render(tf + 600)
        return False

    def net_fail(self, r, tf):
        R, rng = self.R, self.rng
        p = self.pod_of(r)
        nd = R.nodes[p["node"]]
        hca = getattr(self, "hca", "mlx5_%d" % R.rank_local[r])
        e = self.engs.get(p["name"])
        vis = False
        if e is not None:
            ts = "%.6f" % (tf + nd.skew)
            e.s.add(tf, "[%s] [%s:%d :0]     ib_mlx5_log.c:179  UCX  ERROR Transport retry count exceeded on %s:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)" % (ts, p["name"], R.pids[r], hca))
            e.s.add(tf + 0.001, "[%s] [%s:%d :0]     ib_mlx5_log.c:179  UCX  ERROR RC QP 0x%s wqe[%d]: RDMA_READ s-- [rva 0x7f%s rkey 0x%s] [va 0x7f%s len 65536 lkey 0x%s] [rqpn 0x%s dlid=%d sl=0 port=1 src_path_bits=0]" % (
                ts, p["name"], R.pids[r], hexid(rng, 4), rng.randint(0, 511), hexid(rng, 10), hexid(rng, 6), hexid(rng, 10), hexid(rng, 6), hexid(rng, 4), rng.randint(1, 900)))
            e.tb(tf + 0.2, e.w_pfx(r), "ERROR", "nixl_connector.py:1310", "NIXL transfer failure: transfer_failed",
                 [("vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py", 1298, "_pop_done_transfers", "xfer_state = self.nixl_wrapper.check_xfer_state(handle)"),
                  ("nixl/_api.py", 772, "check_xfer_state", "status = self.agent.getXferStatus(handle)")],
                 ["nixl._bindings.nixlBackendError: NIXL_ERR_BACKEND"], nd)
            vis = True
        for q in self.attached:
            if q is p or q["role"] == p["role"]:
                continue
            eq = self.engs[q["name"]]
            rr = q["ranks"][R.rank_local[r] % q["tp"]]
            eq.w(rr, tf + rng.uniform(0.5, 5), "ERROR", "nixl_connector.py:1310", "NIXL transfer failure: transfer_failed | Context: {'failure_type': 'transfer_failed', 'request_id': 'chatcmpl-%s', 'error': 'NIXL_ERR_REMOTE_DISCONNECT'}" % hexid(rng, 32))
        self.client.fail(tf + 1, "500", 4)
        self.events.add(tf + 60, "Warning", "Unhealthy", "pod/%s" % p["name"], "Liveness probe failed: HTTP probe failed with statuscode: 503")
        self.render(tf + 600)
        return vis

    def preempt(self, t, nd):
        R, rng = self.R, self.rng
        hit = [p for p in self.pods if p["node"] == nd.idx]
        self.events.add(t - 30, "Warning", "NodeShutdown", "node/%s" % nd.name, "Shutdown manager detected shutdown event")
        for p in hit:
            self.events.add(t - 29, "Normal", "Killing", "pod/%s" % p["name"], "Stopping container main")
            self.events.add(t + 60, "Normal", "Scheduled", "pod/%s" % p["name"][:-5] + hexid(rng, 5), "Successfully assigned %s/%s to %s" % (self.ns, p["name"][:-5] + hexid(rng, 5), R.nodes[0].name))
            e = self.engs.get(p["name"])
            if e is not None:
                self.dlog(e, t - 28, "INFO", "dynamo.vllm.main", "Received signal 15, shutting down")
        self.events.add(t + 40, "Normal", "NodeNotReady", "node/%s" % nd.name, "Node %s status is now: NodeNotReady" % nd.name)
        for i in range(3):
            self.F(t - 27 + i, "ERROR", "dynamo_llm::http::service::openai", "Failed to generate completions: stream ended before generation completed request_id=%s" % hexid(rng, 32))
        self.client.fail(t - 26, "500", 3)
        self.render(t + 600)

    def unknown(self, tf):
        R, rng = self.R, self.rng
        for i in range(5):
            self.F(tf + 60 * i, "WARN", "dynamo_llm::http::service::openai", "request timed out waiting for first token request_id=%s" % hexid(rng, 32))
        for p in self.attached:
            e = self.engs[p["name"]]
            e.shm_wait(tf, 2)
        self.client.fail(tf + 30, "timeout", 5)

    def load_stall(self, t, r):
        R, rng = self.R, self.rng
        p = self.pod_of(r)
        for k in range(5):
            self.events.add(t + 300 + 120 * k, "Warning", "Unhealthy", "pod/%s" % p["name"], "Startup probe failed: HTTP probe failed with statuscode: 503")
        self.events.add(t + 1200, "Normal", "Killing", "pod/%s" % p["name"], "Container main failed startup probe, will be restarted")
        self.client.fail(t + 600, "503", 3)
        self.render(t + 1300)
        return p["name"] in self.engs

    def finish(self, t):
        for p in self.attached:
            e = self.engs[p["name"]]
            self.dlog(e, t + 0.5, "INFO", "dynamo.vllm.main", "Received signal 15, shutting down")
        self.F(t, "INFO", "dynamo_llm::http::service::service_v2", "HTTP service shutdown complete")
        self.render(t + 60)


# ----------------------------------------------------------------------------
# layout 7: raydata-batch  (offline batch inference: ray.data.llm processor
# with vLLMEngineStageUDF replicas; `ray job logs` output of the driver)
# ----------------------------------------------------------------------------
class RDVLLM(VLLM):
    apiserver = False

    def actor(self):
        nd = self.R.rnode(self.ranks[0])
        return "(MapWorker(MapBatches(vLLMEngineStageUDF)) pid=%d, ip=%s) " % (self.actor_pid, nd.ip)

    def api_pfx(self):
        return self.actor()

    def core_pfx(self):
        if self.style == "v1b":
            return self.actor() + "(EngineCore_DP0 pid=%d) " % self.core_pid
        return self.actor()

    def w_pfx(self, r):
        k = self.ranks.index(r)
        if self.tp == 1:
            return self.core_pfx()
        if self.style == "v1b":
            return self.actor() + "(Worker_TP%d pid=%d) " % (k, self.R.pids[r])
        return self.actor() + "(VllmWorker rank=%d pid=%d) " % (k, self.R.pids[r])

    def uv(self, t, msg):
        pass


class RayData(Layout):
    name = "raydata-batch"

    def setup(self):
        R, rng = self.R, self.rng
        c = R.cause
        tp = rng.choice([1, 2, 4, 8, 2, 4])
        if c == "nvlink" and tp == 1:
            tp = 2
        nn = rng.choice([2, 4, 8, 16, 32, 64]) if c != "nvlink" else rng.choice([2, 4, 8])
        gk = rng.choice(["H100", "A100", "H200", "H100"])
        R.gpu_key = gk
        R.build_nodes(nn, gk, lambda num, ip: "ip-" + ip.replace(".", "-"), rng.choice(["10.0", "172.31", "10.10"]))
        R.map_ranks(8)
        R.fit_model(tp)
        self.tp = tp
        self.nrep = R.world // tp
        for nd in R.nodes:
            nd.aliases = [nd.ip, "ip-" + nd.ip.replace(".", "-"), "ip-%s.%s.compute.internal" % (nd.ip.replace(".", "-"), rng.choice(["ec2", "us-west-2"]))]
            nd.name = nd.ip          # Ray spells nodes by IP
        self.ver = rng.choice([v for v in VLLM_VERSIONS if v[1] != "v0"])
        self.sub = "raysubmit_%s" % "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789") for _ in range(16))
        self.s = R.sink("job-driver-%s.log" % self.sub)
        self.engs = []
        for i in range(self.nrep):
            ranks = list(range(i * tp, (i + 1) * tp))
            e = RDVLLM(self, self.s, ranks, tp, 1, self.ver, "mp" if tp > 1 else "uni", (lambda r: "ip-" + R.rnode(r).ip.replace(".", "-")),
                       "/home/ray/anaconda3/lib/python3.11/site-packages/", api=True, nccl_debug=False)
            e.actor_pid = R.pids[ranks[0]] - 1
            self.engs.append(e)
        self.rows = rng.choice([500000, 1200000, 3000000, 8000000, 20000000])
        self.ds = "dataset_%d_0" % rng.randint(1, 40)
        self.client = Client(R, "client-notes.log", "ray job %s" % self.sub, style="probe")
        self.client.s.header = []
        self.cgroup = False
        self.stall_kind = "reader"
        R.notes.append("Ray Data + vLLM %s batch job %s: %d replicas x TP%d on %d nodes; rank = replica_index*TP + tp_rank (replicas ordered by node IP order in the job), not printed by Ray -> rank_inferable false" % (
            self.ver[0], self.sub, self.nrep, tp, nn))

    def rk(self, r):
        return self.engs[r // self.tp]

    def D(self, t, lvl, src, msg):
        self.s.add(t, "%s\t%s %s -- %s" % (f_ray(self.R.d(t, self.R.nodes[0])), lvl, src, msg))

    def progress(self, t, frac, rate, extra_stall=None, tasks=None, queued=None):
        R, rng = self.R, self.rng
        done = int(self.rows * frac)
        el = t - self.t_start
        eta = (self.rows - done) / rate if rate > 0 else 0

        def n(x):
            return "%.2fM" % (x / 1e6) if x >= 1e6 else "%.1fk" % (x / 1e3)
        gpus = R.world
        txt = ["Running Dataset: %s. Active & requested resources: %d/%d GPU, %d/%d CPU, %.1fGB/%.1fGB object store: %3d%%|%s| %s/%s [%s<%s, %s row/s]" % (
            self.ds, gpus, gpus, rng.randint(gpus, gpus * 4), len(R.nodes) * 192, rng.uniform(1, 40), len(R.nodes) * 60.0,
            int(frac * 100), bar(frac), n(done), n(self.rows), hms(el), hms(eta) if rate > 0 else "?", "%.0f" % rate)]
        rd = min(1.0, frac * rng.uniform(1.05, 1.3)) if extra_stall is None else extra_stall
        txt.append("- ReadParquet->SplitBlocks(%d): Tasks: %d; Actors: 0; Queued blocks: %d; Resources: %.1f CPU, %.1fMB object store: %3d%%|%s| %s/%s [%s<%s, %.0f row/s]" % (
            len(R.nodes) * 8, 0 if rd >= 1 else rng.randint(1, 12), 0, 0 if rd >= 1 else rng.uniform(1, 12), rng.uniform(0, 900),
            int(rd * 100), bar(rd), n(int(self.rows * rd)), n(self.rows), hms(el), "00:00" if rd >= 1 else "?", rate * 1.2))
        txt.append("- MapBatches(vLLMEngineStageUDF): Tasks: %d; Actors: %d; Queued blocks: %d; Resources: %.1f GPU, %.1f CPU, %.1fGB object store: %3d%%|%s| %s/%s [%s<%s, %.0f row/s]" % (
            tasks if tasks is not None else (self.nrep if frac < 0.99 else 1), self.nrep, queued if queued is not None else rng.randint(0, 300),
            float(gpus), float(self.nrep), rng.uniform(0.1, 6),
            int(frac * 100), bar(frac), n(done), n(self.rows), hms(el), hms(eta) if rate > 0 else "?", rate))
        self.s.add(t, "\n".join(txt))

    def startup(self, t, stall=None):
        R, rng = self.R, self.rng
        self.D(t, "INFO", "worker.py:1747", "Connecting to existing Ray cluster at address: %s:6379..." % R.nodes[0].ip)
        self.D(t + 0.3, "INFO", "worker.py:1918", "Connected to Ray cluster. View the dashboard at \x1b[1m\x1b[32m%s:8265 \x1b[39m\x1b[22m" % R.nodes[0].ip)
        self.D(t + 2, "INFO", "streaming_executor.py:117", "Starting execution of Dataset %s. Full logs are in /tmp/ray/session_%s_%06d_1/logs/ray-data" % (
            self.ds, D(t - 4000).strftime("%Y-%m-%d_%H-%M-%S"), rng.randint(0, 999999)))
        self.D(t + 2.01, "INFO", "streaming_executor.py:118", "Execution plan of Dataset %s: InputDataBuffer[Input] -> TaskPoolMapOperator[ReadParquet->SplitBlocks(%d)] -> TaskPoolMapOperator[Map(_preprocess)] -> ActorPoolMapOperator[MapBatches(ChatTemplateUDF)] -> ActorPoolMapOperator[MapBatches(TokenizeUDF)] -> ActorPoolMapOperator[MapBatches(vLLMEngineStageUDF)] -> ActorPoolMapOperator[MapBatches(DetokenizeUDF)] -> TaskPoolMapOperator[Map(_postprocess)->Write]" % (self.ds, len(R.nodes) * 8))
        self.t_start = t + 2
        e0 = self.engs[0]
        e0.s.add(t + 8, e0.actor() + "Max pending requests is set to %d" % rng.choice([141, 282, 563]))
        if self.nrep > 1:
            e1 = self.engs[1]
            e1.s.add(t + 8.2, e1.actor() + "Max pending requests is set to %d [repeated %dx across cluster]" % (141, self.nrep - 1))
        tr = t + 10
        show = [0] + ([1] if self.nrep > 1 else [])
        st_rep = stall // self.tp if stall is not None else None
        if st_rep is not None and st_rep not in show:
            show.append(st_rep)
        for i in show:
            e = self.engs[i]
            e.dedup = False
            tt = e.startup(t + 10 + i * 0.2, stall=(stall if i == st_rep else None), load_s=rng.uniform(30, 150))
            tr = max(tr, tt)
        if self.nrep > 2:
            self.s.add(tr - 1, self.engs[1].core_pfx() + self.engs[1]._fmt(tr - 1, "INFO", "core.py:218", "init engine (profile, create kv cache, warmup model) took %.2f seconds [repeated %dx across cluster]" % (rng.uniform(40, 150), self.nrep - 2)))
        return tr + 1

    def serve(self, ta, tb, slow=None):
        R, rng = self.R, self.rng
        self.frac0 = 0.02
        t = ta + 30
        n = max(4, int((tb - ta) / 600))
        step = (tb - ta) / n
        for i in range(n):
            f = 0.02 + 0.9 * (i + 1) / (n + 1)
            self.progress(t, f, self.rows * 0.9 / max(1, tb - ta) * rng.uniform(0.9, 1.1))
            for k in rng.sample(range(self.nrep), min(2, self.nrep)):
                e = self.engs[k]
                e.metrics(t + rng.uniform(1, 5), gen=rng.uniform(1800, 5200) * self.tp)
            if slow is not None:
                e = self.rk(slow)
                e.metrics(t + 2.5, gen=rng.uniform(250, 600) * self.tp, wait=rng.randint(80, 400))
            t += step
        self.last_frac = 0.9

    def decoys(self, ta, tb):
        R, rng = self.R, self.rng
        if rng.random() < 0.6:
            nd = rng.choice(R.nodes)
            t = rng.uniform(ta, tb)
            self.s.add(t, "(raylet, ip=%s) [%s E %d %d] (raylet) node_manager.cc:3069: 1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: %s, IP: %s) over the last time period. To see more information about the Workers killed on this node, use `ray logs raylet.out -ip %s`" % (
                nd.ip, f_ray(D(t)).replace(",", "."), rng.randint(100, 900), rng.randint(100, 900), hexid(rng, 56), nd.ip, nd.ip))
            self.s.add(t + 1, "%s\tWARNING %s -- %s" % (f_ray(D(t + 1)), "actor_pool_map_operator.py:266", "To ensure full parallelization across an actor pool of size %d, the Dataset should consist of at least %d distinct blocks. Consider increasing the parallelism when creating the Dataset." % (self.nrep, self.nrep)))
            R.notes.append("decoy: a CPU-stage worker was OOM-killed by the Ray memory monitor on %s and retried (handled)" % nd.ip)
        if rng.random() < 0.5:
            self.D(rng.uniform(ta, tb), "WARNING", "resource_manager.py:134", "⚠️  Ray's object store is configured to use only %.1f%% of available memory (%.1fGiB out of %.1fGiB total). For optimal Ray Data performance, we recommend setting the object store to at least 50%% of available memory. You can do this by setting the 'object_store_memory' parameter when calling ray.init() or by setting the RAY_DEFAULT_OBJECT_STORE_MEMORY_PROPORTION environment variable." % (
                rng.uniform(8, 30), rng.uniform(100, 300), rng.uniform(1000, 2000)))

    def attach(self, tgt_node):
        R, rng = self.R, self.rng
        if tgt_node is not None and rng.random() < 0.8:
            R.attach_klog(R.nodes[tgt_node])
        for nd in rng.sample(R.nodes, min(2, len(R.nodes))):
            if rng.random() < 0.3:
                R.attach_klog(nd)

    def rank_from_gpu(self, r):
        return False

    def comm(self, r):
        return "ray::MapWorker"

    def visible_gpu(self, r):
        return r % self.tp if self.tp > 1 else 0

    def exc(self, r, t, kind, lines):
        e = self.rk(r)
        e.dedup = False
        e.worker_exc(r, t, kind, lines)
        return False

    def job_failed(self, t, exc_lines, op="MapBatches(vLLMEngineStageUDF)"):
        R, rng = self.R, self.rng
        self.D(t, "ERROR", "streaming_executor_state.py:485", "An exception was raised from a task of operator \"%s\". Dataset execution will now abort. To ignore this exception and continue, set DataContext.max_errored_blocks." % op)
        self.D(t + 0.5, "INFO", "streaming_executor.py:300", "⚠️  Dataset %s execution failed: : %3d%%|%s| %dk/%dk [%s<?, ? row/s]" % (
            self.ds, int(self.last_frac * 100), bar(self.last_frac), int(self.rows * self.last_frac / 1000), self.rows // 1000, hms(t - self.t_start)))
        tb = ["Traceback (most recent call last):",
              '  File "/home/ray/batch_infer.py", line 148, in <module>',
              "    ds.write_parquet(args.output_path)",
              '  File "/home/ray/anaconda3/lib/python3.11/site-packages/ray/data/dataset.py", line 3357, in write_parquet',
              "    self.write_datasink(",
              '  File "/home/ray/anaconda3/lib/python3.11/site-packages/ray/data/_internal/execution/streaming_executor_state.py", line 497, in process_completed_tasks',
              "    raise e from None"] + exc_lines
        self.s.add(t + 1, "\n".join(tb))
        self.s.footer += ["", "---------------------------------------", "Job '%s' failed" % self.sub, "---------------------------------------",
                          "Status message: Job entrypoint command failed with exit code 1, last available logs (truncated to 20,000 chars):"]

    def collapse(self, t, r, kind, short):
        R, rng = self.R, self.rng
        e = self.rk(r)
        nd = R.rnode(r)
        if kind != "kill" and self.tp > 1:
            e.engine_fatal(t, ["RuntimeError: Worker failed with error '%s', please check the stack trace above for the root cause" % short[:300]])
        exc = ["ray.exceptions.RayTaskError(EngineDeadError): \x1b[36mray::MapWorker(MapBatches(vLLMEngineStageUDF)).submit()\x1b[39m (pid=%d, ip=%s, actor_id=%s, repr=MapWorker(MapBatches(vLLMEngineStageUDF)))" % (
            e.actor_pid, nd.ip, hexid(rng, 32)),
               "  File \"/home/ray/anaconda3/lib/python3.11/site-packages/ray/llm/_internal/batch/stages/vllm_engine_stage.py\", line 655, in __call__",
               "    batch_uuid, output = await resp",
               "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause."]
        self.job_failed(t + rng.uniform(1, 5), exc)

    def die(self, r, t, sig):
        R, rng = self.R, self.rng
        e = self.rk(r)
        nd = R.rnode(r)
        if sig == "SIGKILL":
            for k in range(3):
                tt = t + k * rng.uniform(90, 300)
                self.s.add(tt + 1, "(raylet, ip=%s) [%s E %d %d] (raylet) node_manager.cc:3069: 1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: %s, IP: %s) over the last time period. To see more information about the Workers killed on this node, use `ray logs raylet.out -ip %s`" % (
                    nd.ip, f_ray(D(tt + 1)).replace(",", "."), rng.randint(100, 900), rng.randint(100, 900), hexid(rng, 56), nd.ip, nd.ip))
            exc = ["ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.",
                   "Memory on the node (IP: %s, ID: %s) where the task (actor ID: %s, name=MapWorker(MapBatches(vLLMEngineStageUDF)).__init__, pid=%d, memory used=%.2fGB) was running was %.2fGB / %.2fGB (%.6f), which exceeds the memory usage threshold of 0.95. Ray killed this worker (ID: %s) because it was the most recently scheduled task; to see more information about memory usage on this node, use `ray logs raylet.out -ip %s`. To see the logs of the worker, use `ray logs worker-%s*out -ip %s. Top 10 memory users:" % (
                       nd.ip, hexid(rng, 56), hexid(rng, 32), e.actor_pid, rng.uniform(60, 140), 1900.2 * 0.96, 1900.2, 0.96, hexid(rng, 56), nd.ip, hexid(rng, 56), nd.ip),
                   "PID\tMEM(GB)\tCOMMAND",
                   "%d\t%.2f\tray::MapWorker(MapBatches(vLLMEngineStageUDF))" % (e.actor_pid, rng.uniform(60, 140)),
                   "%d\t%.2f\tray::MapWorker(MapBatches(TokenizeUDF))" % (rng.randint(1000, 90000), rng.uniform(5, 20)),
                   "Refer to the documentation on how to address the out of memory issue: https://docs.ray.io/en/latest/ray-core/scheduling/ray-oom-prevention.html. Consider provisioning more memory on this node or reducing task parallelism by requesting more CPUs per task. Set max_restarts and max_task_retries to enable retry when the task crashes due to OOM. To adjust the kill threshold, set the environment variable `RAY_memory_usage_threshold` when starting Ray. To disable worker killing, set the environment variable `RAY_memory_monitor_refresh_ms` to zero."]
            self.job_failed(t + 700, exc)
        else:
            self.s.add(t + 1, "(raylet, ip=%s) A worker died or was killed while executing a task by an unexpected system error. To troubleshoot the problem, check the logs for the dead worker. RayTask ID: %s Worker ID: %s Node ID: %s Worker IP address: %s Worker port: %d Worker PID: %d Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors." % (
                nd.ip, hexid(rng, 48), hexid(rng, 56), hexid(rng, 56), nd.ip, rng.randint(10002, 10999), e.actor_pid))
            exc = ["ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.",
                   "\tclass_name: MapWorker(MapBatches(vLLMEngineStageUDF))", "\tactor_id: %s" % hexid(rng, 32),
                   "\tpid: %d" % e.actor_pid, "\tnamespace: %s" % hexid(rng, 12), "\tip: %s" % nd.ip,
                   "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors."]
            self.job_failed(t + 3, exc)
        return False

    def stalled_progress(self, t0, hours, frac, tasks=None, queued=None):
        rng = self.rng
        t = t0
        while t < t0 + hours * 3600:
            self.progress(t, frac, 0.0, tasks=tasks, queued=queued)
            t += rng.uniform(900, 1800)

    def stopped(self, t):
        self.s.footer += ["", "---------------------------------------", "Job '%s' was stopped" % self.sub, "---------------------------------------"]
        self.client.line(t, "NOTE", "ray job stop %s  (no progress for hours)" % self.sub)

    def hang(self, tf, r):
        R, rng = self.R, self.rng
        e = self.rk(r)
        if self.tp > 1:
            e.shm_wait(tf, 4)
        self.stalled_progress(tf + 300, rng.uniform(2, 5), 0.97, tasks=1, queued=0)
        self.stopped(tf + 6 * 3600)
        R.notes.append("one replica (node %s) hangs; long tail at 97%%" % R.rnode(r).ip)
        return False

    def mismatch(self, tf, r):
        R, rng = self.R, self.rng
        e = self.rk(r)
        k = e.ranks.index(r)
        if self.tp == 1:
            self.truth_rank_none = True
            exc = self.exc_text("py", r)
            e.engine_fatal(tf, exc)
            self.collapse(tf + 1, r, "py", exc[-1])
            return False
        txt = mismatch_text(k, 0 if k else 1, rng.randint(2000, 9000), "ALLGATHER", "ALLREDUCE", "1, 4096", "1, 8192")
        e.worker_exc(e.ranks[0] if k else e.ranks[1], tf, "py", txt)
        self.collapse(tf + 1, r, "py", txt[0])
        R.notes.append("replica on %s: TP rank %d ran a different collective (DETAIL mismatch names replica-local rank %d)" % (R.rnode(r).ip, k, k))
        return False

    def net_fail(self, r, tf):
        R, rng = self.R, self.rng
        nd = R.rnode(r)
        self.truth_rank_none = True
        self.D(tf + 30, "WARNING", "worker.py:2258", "The node with node id: %s and address: %s and node name: %s has been marked dead because the detector has missed too many heartbeats from it. This can happen when a \t(1) raylet crashes unexpectedly (OOM, etc.) \n\t(2) raylet has lagging heartbeats due to slow network or busy workload." % (hexid(rng, 56), nd.ip, nd.ip))
        e = self.rk(r)
        exc = ["ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.",
               "\tclass_name: MapWorker(MapBatches(vLLMEngineStageUDF))", "\tactor_id: %s" % hexid(rng, 32), "\tpid: %d" % e.actor_pid,
               "\tnamespace: %s" % hexid(rng, 12), "\tip: %s" % nd.ip,
               "The actor is dead because its node has died. Node Id: %s" % hexid(rng, 56)]
        self.job_failed(tf + 32, exc)
        R.notes.append("front-end NIC of %s flapped; raylet heartbeats lost; node-level (rank=null)" % nd.ip)
        return False

    def net_kernel(self, nd, loc, tf):
        R, rng = self.R, self.rng
        ev = R.klog(nd, tf - 20, "ena 0000:00:05.0 eth0: Found a Tx that wasn't completed on time, qid %d, index %d. %d usecs have passed since last napi execution. Napi scheduled: 1" % (rng.randint(0, 31), rng.randint(0, 1023), rng.randint(5000000, 9000000)))
        R.klog(nd, tf - 19, "ena 0000:00:05.0 eth0: Lost TX completions are above the threshold (%d > 128). Completion transmission timeout: 5000 (msec). Resetting the device" % rng.randint(129, 300))
        R.klog(nd, tf - 18, "ena 0000:00:05.0 eth0: Trigger reset is on")
        R.klog(nd, tf + 60, "ena 0000:00:05.0: Device reset completed successfully, Driver info: Elastic Network Adapter (ENA) v2.12.0g")
        return ev

    def preempt(self, t, nd):
        R, rng = self.R, self.rng
        self.D(t + 30, "WARNING", "worker.py:2258", "The node with node id: %s and address: %s and node name: %s has been marked dead because the detector has missed too many heartbeats from it. This can happen when a \t(1) raylet crashes unexpectedly (OOM, etc.) \n\t(2) raylet has lagging heartbeats due to slow network or busy workload." % (hexid(rng, 56), nd.ip, nd.ip))
        reps = [i for i in range(self.nrep) if R.rank_node[i * self.tp] == nd.idx]
        e = self.engs[reps[0]]
        exc = ["ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.",
               "\tclass_name: MapWorker(MapBatches(vLLMEngineStageUDF))", "\tactor_id: %s" % hexid(rng, 32), "\tpid: %d" % e.actor_pid,
               "\tnamespace: %s" % hexid(rng, 12), "\tip: %s" % nd.ip,
               "The actor is dead because its node has died. Node Id: %s" % hexid(rng, 56)]
        self.job_failed(t + 32, exc)
        ev = R.sink("aws-spot-interruptions.txt")
        ev.add(t - 120, "%s  EC2 Spot Instance Interruption Warning  instance-action=terminate  private-ip=%s" % (f_iso_us(D(t - 120)), nd.ip))

    def unknown(self, tf):
        self.stalled_progress(tf + 300, self.rng.uniform(2, 6), 0.93)
        self.stopped(tf + 7 * 3600)

    def reader_stall(self, tf):
        R, rng = self.R, self.rng
        ni = rng.randrange(len(R.nodes))
        nd = R.nodes[ni]
        R.attach_klog(nd)
        srv = rng.choice(["fs-0a1b2c3d.efs.us-west-2.amazonaws.com", "10.8.0.20", "nfs-datasets.internal"])
        R.klog(nd, tf - 5, "nfs: server %s not responding, still trying" % srv)
        for k in range(2):
            pid = rng.randint(3000, 90000)
            R.klog(nd, tf + 120 + k * 122, "INFO: task ray::ReadParqu:%d blocked for more than %d seconds." % (pid, 122 * (k + 1)))
            R.klog(nd, tf + 120 + k * 122, "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.")
        t = tf + 120
        while t < tf + rng.uniform(3, 6) * 3600:
            self.progress(t, 0.9 + rng.uniform(0, 0.004), rng.uniform(0, 3), extra_stall=0.91)
            t += rng.uniform(900, 1800)
        self.stopped(t + 60)
        R.notes.append("ReadParquet tasks on %s blocked on NFS %s; replicas starve (Queued blocks: 0)" % (nd.ip, srv))
        return ni

    def load_stall(self, t, r):
        R = self.R
        self.stalled_progress(t + 600, 3, 0.0)
        self.stopped(t + 4 * 3600)
        return False

    def finish(self, t):
        R, rng = self.R, self.rng
        self.progress(t - 5, 1.0, self.rows / max(1, t - self.t_start))
        self.D(t, "INFO", "streaming_executor.py:300", "✔️  Dataset %s execution finished in %.2f seconds" % (self.ds, t - self.t_start))
        self.s.footer += ["", "------------------------------------------", "Job '%s' succeeded" % self.sub, "------------------------------------------"]
        self.client.line(t + 30, "NOTE", "job %s SUCCEEDED, output written to s3://batch-out/%s/" % (self.sub, hexid(rng, 8)))



# ----------------------------------------------------------------------------
# driver
# ----------------------------------------------------------------------------
LAYOUT_CLS = {"vllm-mp": VllmMP, "vllm-ray-k8s": VllmRay, "sglang-multinode": SGLang,
              "trtllm-slurm": TrtSlurm, "triton-trtllm": TritonTrt, "dynamo-disagg": Dynamo,
              "raydata-batch": RayData}


def shrink(files):
    """keep a run folder under MAX_RUN_BYTES by snipping the middle of the largest file."""
    def total():
        return sum(len(v.encode("utf-8")) for v in files.values())
    guard = 0
    while total() > MAX_RUN_BYTES - 20000 and guard < 20:
        guard += 1
        big = max(sorted(files), key=lambda k: len(files[k]))
        lines = files[big].split("\n")
        n = len(lines)
        cut = max(10, int(n * 0.35))
        a = (n - cut) // 2
        files[big] = "\n".join(lines[:a] + ["[... %d lines removed from the middle of this attachment to fit the upload limit ...]" % cut] + lines[a + cut:])
    return files


def generate(out, n, seed):
    plan = random.Random("blind22-plan|%s" % seed)
    order = list(CAUSES)
    plan.shuffle(order)
    seq = []
    while len(seq) < n:
        blk = list(LAYOUTS)
        plan.shuffle(blk)
        seq.extend(blk)
    os.makedirs(out, exist_ok=True)
    for name in sorted(os.listdir(out)):
        if name.startswith("run-") and os.path.isdir(os.path.join(out, name)):
            shutil.rmtree(os.path.join(out, name))
    counts = dict((c, 0) for c in CAUSES)
    counts["healthy"] = 0
    k = 0
    for i in range(n):
        if i % 7 == 3:
            cause = None
        else:
            cause = order[k % len(order)]
            k += 1
        layout = seq[i]
        R = Run(seed, i, layout, cause)
        L = LAYOUT_CLS[layout](R)
        L.play()
        files = {}
        for name in R.order:
            if name in R.sinks:
                sk = R.sinks[name]
                if not sk.items and not sk.header and not sk.footer:
                    continue
                files[name] = sk.render()
            else:
                files[name] = R.statics[name]
        files = shrink(files)
        d = os.path.join(out, "run-%03d-%s" % (i, layout))
        os.makedirs(d)
        for name in sorted(files):
            with open(os.path.join(d, name), "w", encoding="utf-8") as fh:
                fh.write(files[name])
        truth = {
            "cause": cause,
            "healthy": cause is None,
            "rank": None if cause is None else R.rank,
            "node": None if cause is None else R.node,
            "drain": bool(cause in DRAIN_CAUSES and R.node is not None),
            "rank_inferable": bool(cause is not None and R.rank is not None and R.inferable),
            "node_aliases": [] if cause is None else list(R.aliases),
            "layout": layout,
            "notes": "; ".join(R.notes),
        }
        with open(os.path.join(d, "truth.json"), "w", encoding="utf-8") as fh:
            json.dump(truth, fh, indent=2)
            fh.write("\n")
        counts["healthy" if cause is None else cause] += 1
    return counts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args()
    counts = generate(a.out, a.n, a.seed)
    print(json.dumps(counts, sort_keys=True))


if __name__ == "__main__":
    main()
