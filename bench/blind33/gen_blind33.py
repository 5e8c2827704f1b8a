#!/usr/bin/env python3
"""gen_blind33.py - synthetic log bundles of VERY LARGE (1,024 - 32,768 GPU) training jobs.

Written blind (see README.md).  Standard library only.

    python3 gen_blind33.py --out DIR --n 60 --seed S

writes DIR/run-NNN-<layout>/ folders, each holding the files an operator of a
huge Slurm job would really attach (aggregated `srun -l` output that the user
de-duplicated, a sample of per-node logs, a fault-tolerance launcher log, an
ops triage bundle with NCCL RAS / health-check output, kernel logs of a few
nodes) plus truth.json, and prints per-cause counts as JSON.
"""
import argparse
import json
import math
import os
import random
import re
import sys
import zlib
from datetime import datetime, timedelta

CAUSES = [
    "gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
    "illegal_memory_access", "python_exception", "host_oom_kill", "crash_signal",
    "preemption", "hang", "data_loader_stall", "collective_mismatch", "straggler",
    "unknown",
]
LAYOUTS = ["srun_aggregate", "node_sample", "ft_injob", "ops_triage"]

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]


# --------------------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------------------

def commas(n):
    return f"{n:,}"


def hexs(rng, n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def ranges_str(nums):
    """[1,2,3,7,9,10] -> '1-3,7,9-10' (slurm style task ranges)."""
    nums = sorted(nums)
    out = []
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        out.append(str(nums[i]) if i == j else f"{nums[i]}-{nums[j]}")
        i = j + 1
    return ",".join(out)


def hostlist(prefix, width, nums):
    nums = sorted(nums)
    parts = []
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        a = f"{nums[i]:0{width}d}"
        parts.append(a if i == j else f"{a}-{nums[j]:0{width}d}")
        i = j + 1
    if len(nums) == 1:
        return f"{prefix}{nums[0]:0{width}d}"
    return f"{prefix}[{','.join(parts)}]"


class Dedup:
    """The way a user trims thousands of near-identical lines out of a huge log."""
    STYLES = [
        "... {n} similar lines removed ...",
        "[... {n} more lines like the above from other ranks trimmed ...]",
        "<snip: {n} near-identical lines>",
        "# ({n} similar lines omitted - same message from other ranks)",
        "......  [deduplicated: {n} lines]",
        "[trimmed {n} lines]",
    ]

    def __init__(self, rng):
        self.style = rng.choice(self.STYLES)
        self.use_commas = rng.random() < 0.6

    def note(self, n):
        return self.style.format(n=commas(n) if self.use_commas else str(n))


# --------------------------------------------------------------------------------------
# the job: cluster, nodes, ranks, clocks, versions
# --------------------------------------------------------------------------------------

CLUSTERS = [
    # prefix, width, gpn, gpu, mem_gib, driver
    dict(prefix="gpu-", width=4, gpn=8, gpu="H100 80GB HBM3", mem=79.11, part="batch"),
    dict(prefix="nid", width=6, gpn=4, gpu="GH200 120GB", mem=94.5, part="normal"),
    dict(prefix="dgx-h100-", width=4, gpn=8, gpu="H100 80GB HBM3", mem=79.11, part="pretrain"),
    dict(prefix="a3m-", width=4, gpn=8, gpu="H100 80GB HBM3", mem=79.11, part="a3mega"),
    dict(prefix="h200-", width=5, gpn=8, gpu="H200", mem=139.8, part="train"),
    dict(prefix="gb200-", width=4, gpn=4, gpu="GB200", mem=184.0, part="gb200"),
    dict(prefix="hgx-b200-", width=4, gpn=8, gpu="B200", mem=178.4, part="prod"),
    dict(prefix="cw-h100-", width=5, gpn=8, gpu="H100 80GB HBM3", mem=79.11, part="research"),
]
H100_BUS = ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"]
NIC_BUS = ["0c", "12", "45", "4b", "8d", "93", "c5", "cb"]
GB_BUS = ["0008:01", "0009:01", "0018:01", "0019:01"]
WORLDS = [1024, 1024, 2048, 2048, 3072, 4096, 4096, 6144, 8192, 8192, 12288, 16384, 24576, 32768]
TORCH = [("2.3.1", False), ("2.4.1", True), ("2.5.1", True), ("2.6.0", True), ("2.7.1", True)]
NCCLV = ["2.20.5", "2.21.5", "2.23.4", "2.25.1", "2.26.2", "2.27.3"]
DRIVERS = ["535.183.06", "550.90.07", "550.127.05", "560.35.03", "570.124.06", "570.133.20"]
USERS = ["llm-pt", "svc-train", "jdoe", "mchen", "apatel", "kwon", "rlopez", "foundation"]
MODELS = [("llama3-405b", 126, 16384, 405), ("gpt-175b", 96, 12288, 175), ("moe-1t-a70b", 64, 8192, 1000),
          ("llama3-70b", 80, 8192, 70), ("dense-340b", 96, 18432, 340), ("nemotron-4-340b", 96, 18432, 340),
          ("mixtral-8x22b", 56, 6144, 141), ("gpt3-530b", 105, 20480, 530)]


class Job:
    def __init__(self, rng, seed, idx):
        self.rng = rng
        self.seed = seed
        self.idx = idx
        cl = rng.choice(CLUSTERS)
        self.cl = cl
        self.prefix, self.width, self.gpn = cl["prefix"], cl["width"], cl["gpn"]
        self.gpu, self.gpu_mem, self.partition = cl["gpu"], cl["mem"], cl["part"]
        w = rng.choice(WORLDS)
        if self.gpn == 4 and w > 16384 and rng.random() < 0.5:
            w //= 2
        self.world = w
        self.nnodes = w // self.gpn
        # node numbers: a contiguous-ish range with a few holes (drained / reserved nodes)
        start = rng.randint(1, 900)
        nums = []
        n = start
        holes = 0
        while len(nums) < self.nnodes:
            if rng.random() < 0.004:
                n += rng.randint(1, 6)
                holes += 1
            nums.append(n)
            n += 1
        self.nums = nums
        self.hosts = [f"{self.prefix}{x:0{self.width}d}" for x in nums]
        self.nodelist = hostlist(self.prefix, self.width, nums)
        self.ip_b = rng.choice([4, 16, 40, 64, 72, 100, 128])
        self.jobid = rng.randint(1_100_000, 9_800_000)
        self.user = rng.choice(USERS)
        self.uid = rng.randint(10010, 68000)
        self.model, self.nlayers, self.hidden, self.params_b = rng.choice(MODELS)
        self.jobname = f"{self.model}-{rng.choice(['pt', 'pretrain', 'stage2', 'cpt', 'anneal', 'v3'])}"
        self.torch_ver, self.torch_new = rng.choice(TORCH)
        self.nccl_ver = rng.choice(NCCLV)
        self.ras = tuple(int(x) for x in self.nccl_ver.split(".")) >= (2, 24, 0)
        self.driver = rng.choice(DRIVERS)
        self.cuda = {"535": "12.2", "550": "12.4", "560": "12.6", "570": "12.8"}[self.driver[:3]]
        self.launch = rng.choice(["srun", "srun", "torchrun"])  # srun -l python ... vs srun -l torchrun ...
        self.framework = rng.choice(["megatron", "megatron", "nemo", "torchtitan"])
        self.kill_on_bad_exit = rng.random() < 0.45
        self.timeout_s = rng.choice([600, 600, 900, 1200, 1800, 1800, 3600])
        self.fs = rng.choice(["lustre", "lustre", "weka", "nfs", "gpfs"])
        self.base_dir = rng.choice(["/lustre/fsw/pretrain", "/scratch/llm", "/mnt/weka/train",
                                    "/gpfs/proj/foundation", "/fsx/runs"])
        self.ckpt_dir = f"{self.base_dir}/{self.model}/checkpoints"
        self.kern_style = rng.choice(["journal", "dmesg_T", "syslog"])
        # parallelism
        self.tp = self.gpn if rng.random() < 0.8 else self.gpn // 2
        self.pp = rng.choice([4, 8, 8, 16])
        while self.world % (self.tp * self.pp):
            self.pp //= 2
        self.dp = self.world // (self.tp * self.pp)
        self.gbs = rng.choice([1024, 2048, 2048, 4096, 8192])
        self.seq = rng.choice([4096, 8192, 8192])
        self.iter_s = round(rng.uniform(4.0, 22.0), 2)
        self.log_interval = rng.choice([1, 5, 10, 10, 20])
        self.lr_max = rng.choice([1.5e-4, 2e-4, 3e-4, 8e-5])
        self.save_interval = rng.choice([100, 200, 250, 500, 1000])
        self.lr_decay = rng.randint(200000, 900000)
        # job timing: start, then failure after some hours
        base = datetime(2024, 3, 1) + timedelta(days=rng.randint(0, 600), seconds=rng.randint(0, 86399))
        self.t_start = base
        self.run_hours = rng.uniform(1.5, 40.0)
        self.start_iter = rng.choice([0, 0, rng.randint(1000, 120000)])
        # clocks: most nodes NTP-synced, a few drifted
        self.skews = [rng.gauss(0.0, 0.35) for _ in range(self.nnodes)]
        for _ in range(rng.randint(0, 4)):
            self.skews[rng.randrange(self.nnodes)] = rng.choice([-1, 1]) * rng.uniform(4, 95)
        self.pid_base = {}
        self.master = self.hosts[0]
        self.port = rng.choice([29500, 29500, 6000, 12345, 40012])
        self.ras_hash = hexs(rng, 16)
        self.rank_w = len(str(self.world - 1))
        self.node_w = len(str(self.nnodes - 1))

    # ---- mapping
    def node_of(self, rank):
        return rank // self.gpn

    def local(self, rank):
        return rank % self.gpn

    def host(self, ni):
        return self.hosts[ni]

    def ip(self, ni):
        n = self.nums[ni]
        return f"10.{self.ip_b + n // 62500}.{(n // 250) % 250}.{n % 250 + 2}"

    def bus(self, local):
        if self.gpn == 4:
            return GB_BUS[local]
        return "0000:" + H100_BUS[local]

    def bus_short(self, local):
        # the way NVRM prints it: PCI:0000:9a:00
        return f"PCI:{self.bus(local)}:00"

    def pcie_port(self, local):
        dom, b = self.bus(local).split(":")
        v = int(b, 16)
        return f"{dom}:{max(0, v - 2):02x}:{'01' if v > 2 else '00'}.0"

    def pci_id(self):
        return {"H1": "2330", "GH": "2342", "H2": "2335", "GB": "2941", "B2": "2901"}.get(self.gpu[:2], "2330")

    def nic(self, local):
        i = local if self.gpn == 8 else local * 2
        return f"mlx5_{i}", f"0000:{NIC_BUS[i]}:00.0", f"ibp{int(NIC_BUS[i], 16)}s0"

    def pid(self, rank):
        ni = self.node_of(rank)
        if ni not in self.pid_base:
            r = random.Random(f"{self.seed}/{self.idx}/pid/{ni}")
            self.pid_base[ni] = r.randint(9000, 380000)
        return self.pid_base[ni] + 7 + self.local(rank) * 3

    def agent_pid(self, ni):
        self.pid(ni * self.gpn)
        return self.pid_base[ni]

    def tid(self, rank, k=0):
        return self.pid(rank) + 180 + k * 11

    # ---- clocks
    def t_abs(self, t):
        return self.t_start + timedelta(seconds=t)

    def local_time(self, t, ni):
        return self.t_start + timedelta(seconds=t + self.skews[ni])

    # ---- time formats
    def ts_py(self, t, ni):  # python logging asctime
        d = self.local_time(t, ni)
        return d.strftime("%Y-%m-%d %H:%M:%S") + f",{d.microsecond // 1000:03d}"

    def ts_br(self, t, ni):  # [2024-05-02 03:14:15]
        return self.local_time(t, ni).strftime("[%Y-%m-%d %H:%M:%S]")

    def ts_glog(self, t, ni, level="E"):
        d = self.local_time(t, ni)
        ns = d.microsecond * 1000 + random.Random(f"{t}:{ni}").randint(0, 999)
        return f"{level}{d.month:02d}{d.day:02d} {d.strftime('%H:%M:%S')}.{ns:09d}"

    def ts_slurm(self, t, ni=0):
        return self.local_time(t, ni).strftime("%Y-%m-%dT%H:%M:%S")

    def ts_elastic(self, t, ni, level="W"):
        d = self.local_time(t, ni)
        return f"{level}{d.month:02d}{d.day:02d} {d.strftime('%H:%M:%S')}.{d.microsecond:06d}"

    def kern(self, t, ni, msg, uptime0=None):
        d = self.local_time(t, ni)
        up = (uptime0 if uptime0 is not None else 86400 * 3 + ni * 7.31) + t
        h = self.hosts[ni]
        if self.kern_style == "journal":
            return f"{MONTHS[d.month - 1]} {d.day:02d} {d.strftime('%H:%M:%S')} {h} kernel: {msg}"
        if self.kern_style == "dmesg_T":
            return f"[{DAYS[d.weekday()]} {MONTHS[d.month - 1]} {d.day:2d} {d.strftime('%H:%M:%S')} {d.year}] {msg}"
        return (f"{d.strftime('%Y-%m-%dT%H:%M:%S')}.{d.microsecond:06d}+00:00 {h} kernel: "
                f"[{up:12.6f}] {msg}")

    # ---- prefixes
    def nccl(self, rank, level, msg, k=0):
        return f"{self.host(self.node_of(rank))}:{self.pid(rank)}:{self.tid(rank, k)} [{self.local(rank)}] NCCL {level} {msg}"

    def cpp(self, rank, t, level, where, msg):
        """A c10 LOG line from a rank (glog style on torch>=2.4)."""
        ni = self.node_of(rank)
        self._cpp_k = getattr(self, "_cpp_k", 0) + 1
        t = t + (self._cpp_k % 97) * 0.000013
        if self.torch_new:
            head = f"[{self.ts_glog(t, ni, level)} {where}]"
        else:
            head = f"[{level} {where}]"
        return f"[rank{rank}]:{head} {msg}" if self.launch == "torchrun" or self.torch_new else f"{head} {msg}"

    def pg(self, rank):
        if self.torch_new:
            return f"[PG ID 0 PG GUID 0(default_pg) Rank {rank}]"
        return f"[PG 0 Rank {rank}]"

    def wrap(self, rank, lines):
        """Worker output seen through torchrun (--tee 3): every line carries [rankN]:"""
        lines = [x for ln in lines for x in ln.split("\n")]
        if self.launch == "torchrun":
            return [ln if ln.startswith(f"[rank{rank}]:") else f"[rank{rank}]:{ln}" for ln in lines]
        return lines

    def iteration(self, it):
        return self.start_iter + it

    def torch_site(self):
        return {"2.3.1": "/usr/local/lib/python3.10/dist-packages/torch",
                "2.4.1": "/usr/local/lib/python3.10/dist-packages/torch",
                "2.5.1": "/usr/local/lib/python3.12/dist-packages/torch",
                "2.6.0": "/usr/local/lib/python3.12/dist-packages/torch",
                "2.7.1": "/usr/local/lib/python3.12/dist-packages/torch"}[self.torch_ver]

    def script(self):
        return {"megatron": "/workspace/Megatron-LM/pretrain_gpt.py",
                "nemo": "/opt/NeMo/examples/nlp/language_modeling/megatron_gpt_pretraining.py",
                "torchtitan": "/opt/torchtitan/torchtitan/train.py"}[self.framework]


# --------------------------------------------------------------------------------------
# event model: single events, and "masses" (the same message from thousands of ranks)
# --------------------------------------------------------------------------------------

def frac(x, salt=0):
    """Deterministic pseudo-random number in [0,1) for rank/node x (cheap, no RNG object)."""
    return ((x * 2654435761 + salt * 40503 + 12345) % 1000003) / 1000003.0


class Members:
    """A set of ranks (unit='rank') or node indices (unit='node'), possibly huge."""

    def __init__(self, job, unit="rank", ids=None, exclude=(), nodes=None):
        self.job = job
        self.unit = unit
        self.total = job.world if unit == "rank" else job.nnodes
        self.ids = sorted(set(ids)) if ids is not None else None
        self._idset = set(self.ids) if ids is not None else None
        self.nodes = sorted(set(nodes)) if nodes is not None else None
        self._nodeset = set(self.nodes) if nodes is not None else None
        self.exclude = set(exclude)

    def contains(self, x):
        if x in self.exclude:
            return False
        if self._idset is not None:
            return x in self._idset
        if not 0 <= x < self.total:
            return False
        if self._nodeset is not None and self.unit == "rank":
            return self.job.node_of(x) in self._nodeset
        if self._nodeset is not None and self.unit == "node":
            return x in self._nodeset
        return True

    def pool_small(self):
        if self.ids is not None:
            return [i for i in self.ids if i not in self.exclude]
        if self.nodes is not None:
            if self.unit == "node":
                return [n for n in self.nodes if n not in self.exclude]
            g = self.job.gpn
            return [r for n in self.nodes for r in range(n * g, (n + 1) * g) if r not in self.exclude]
        return None

    def count(self):
        p = self.pool_small()
        if p is not None:
            return len(p)
        return self.total - len([e for e in self.exclude if 0 <= e < self.total])

    def on_node(self, ni):
        if self.unit == "node":
            return [ni] if self.contains(ni) else []
        g = self.job.gpn
        return [r for r in range(ni * g, (ni + 1) * g) if self.contains(r)]

    def sample(self, rng, k, force=()):
        out = set(x for x in force if self.contains(x))
        p = self.pool_small()
        if p is not None:
            rest = [x for x in p if x not in out]
            out.update(rng.sample(rest, max(0, min(k - len(out), len(rest)))))
            return sorted(out)
        want = min(k, self.count())
        tries = 0
        while len(out) < want and tries < k * 60:
            x = rng.randrange(self.total)
            if self.contains(x):
                out.add(x)
            tries += 1
        return sorted(out)


class Ev:
    """Lines printed at one moment by one producer.

    src: app (a rank's process), agent (per-node torchrun / ft_launcher), srun (srun client),
         stepd (slurmstepd, goes to the batch output), batch (the sbatch script itself)
    ev:  what these lines establish about the initiator when kept ('rank', 'node').
    """
    __slots__ = ("t", "src", "lines", "rank", "node", "ev", "tag")

    def __init__(self, t, src, lines, rank=None, node=None, ev=(), tag=""):
        self.t, self.src, self.lines, self.rank, self.node = t, src, lines, rank, node
        self.ev, self.tag = tuple(ev), tag


class Mass:
    """The same kind of message from many ranks/nodes; renderers sample and de-duplicate."""

    def __init__(self, key, members, tfn, mk, src="app", keep=(3, 10), force=(), ev=(), full_k=1):
        self.key, self.members, self.tfn, self.mk, self.src = key, members, tfn, mk, src
        self.keep, self.force, self.ev, self.full_k = keep, tuple(force), tuple(ev), full_k


class Scn:
    def __init__(self, job, cause):
        self.job = job
        self.cause = cause
        self.healthy = cause is None
        self.init_rank = None
        self.init_node = None
        self.node_level = False  # initiator is a node, not a rank
        self.t_fail = None
        self.t_end = None
        self.evs = []
        self.masses = []
        self.kern = {}        # ni -> [(t, line)]
        self.health = {}      # ni -> [(check, message)]
        self.ras = None       # dict for NCCL RAS output
        self.fr = None        # flight recorder analysis
        self.pyspy = {}       # rank -> lines
        self.strag = None     # straggler report info
        self.dl_rank = None
        self.state = "FAILED"
        self.exit_code = "1:0"
        self.notes = ""
        self.hb = None        # FT heartbeat/section timeout info
        self.ft_recover = False
        self.train_stop = None
        self.slow = None
        self.kill_at = None
        self.collateral_first = None
        self.smi = {}         # ni -> nvidia-smi -q excerpt lines

    def ev(self, t, src, lines, **kw):
        self.evs.append(Ev(t, src, lines, **kw))

    def add_kern(self, ni, t, msg):
        self.kern.setdefault(ni, []).append((t, msg))


# --------------------------------------------------------------------------------------
# text builders
# --------------------------------------------------------------------------------------

def tb(frames, tail):
    out = ["Traceback (most recent call last):"]
    for f, ln, fn, code in frames:
        out.append(f'  File "{f}", line {ln}, in {fn}')
        if code:
            out.append(f"    {code}")
    return out + tail


def entry_frames(job, where="train"):
    site = job.torch_site()
    if job.framework == "megatron":
        fr = [("/workspace/Megatron-LM/pretrain_gpt.py", 297, "<module>", "pretrain("),
              ("/workspace/Megatron-LM/megatron/training/training.py", 386, "pretrain",
               "iteration, num_floating_point_operations_so_far = train(")]
        if where == "data":
            return fr + [("/workspace/Megatron-LM/megatron/training/training.py", 1400, "train",
                          "train_step(forward_step_func,"),
                         ("/workspace/Megatron-LM/megatron/training/training.py", 760, "train_step",
                          "losses_reduced = forward_backward_func("),
                         ("/workspace/Megatron-LM/megatron/core/pipeline_parallel/schedules.py", 1512,
                          "forward_backward_pipelining_without_interleaving", "output_tensor, num_tokens = forward_step("),
                         ("/workspace/Megatron-LM/megatron/core/pipeline_parallel/schedules.py", 275, "forward_step",
                          "output_tensor, loss_func = forward_step_func(data_iterator, model)"),
                         ("/workspace/Megatron-LM/pretrain_gpt.py", 206, "forward_step",
                          "tokens, labels, loss_mask, attention_mask, position_ids = get_batch("),
                         ("/workspace/Megatron-LM/pretrain_gpt.py", 138, "get_batch",
                          "batch = get_batch_on_this_tp_rank(data_iterator)"),
                         ("/workspace/Megatron-LM/megatron/training/utils.py", 308, "get_batch_on_this_tp_rank",
                          "data = next(data_iterator)"),
                         (f"{site}/utils/data/dataloader.py", 701, "__next__", "data = self._next_data()"),
                         (f"{site}/utils/data/dataloader.py", 1465, "_next_data", "return self._process_data(data)"),
                         (f"{site}/utils/data/dataloader.py", 1491, "_process_data", "data.reraise()"),
                         (f"{site}/_utils.py", 715, "reraise", "raise exception")]
        return fr + [("/workspace/Megatron-LM/megatron/training/training.py", 1400, "train",
                      "train_step(forward_step_func,"),
                     ("/workspace/Megatron-LM/megatron/training/training.py", 760, "train_step",
                      "losses_reduced = forward_backward_func("),
                     ("/workspace/Megatron-LM/megatron/core/pipeline_parallel/schedules.py", 1512,
                      "forward_backward_pipelining_without_interleaving", "output_tensor, num_tokens = forward_step("),
                     ("/workspace/Megatron-LM/megatron/core/pipeline_parallel/schedules.py", 275, "forward_step",
                      "output_tensor, loss_func = forward_step_func(data_iterator, model)")]
    if job.framework == "nemo":
        fr = [(job.script(), 87, "main", "trainer.fit(model)"),
              ("/usr/local/lib/python3.10/dist-packages/lightning/pytorch/trainer/trainer.py", 538, "fit",
               "call._call_and_handle_interrupt("),
              ("/usr/local/lib/python3.10/dist-packages/lightning/pytorch/trainer/call.py", 46,
               "_call_and_handle_interrupt", "return trainer.strategy.launcher.launch(trainer_fn, *args, trainer=trainer, **kwargs)"),
              ("/usr/local/lib/python3.10/dist-packages/lightning/pytorch/loops/fit_loop.py", 205, "run",
               "self.advance()"),
              ("/usr/local/lib/python3.10/dist-packages/lightning/pytorch/loops/training_epoch_loop.py", 250,
               "advance", "batch_output = self.automatic_optimization.run(trainer.optimizers[0], batch_idx, kwargs)"),
              ("/opt/NeMo/nemo/collections/nlp/models/language_modeling/megatron_gpt_model.py", 704,
               "training_step", "losses_reduced_per_micro_batch = self.fwd_bwd_step(dataloader_iter, False)")]
        return fr
    return [(job.script(), 594, "<module>", "trainer.train()"),
            (f"{site}/distributed/elastic/multiprocessing/errors/__init__.py", 355, "wrapper",
             "return f(*args, **kwargs)"),
            (job.script(), 512, "train", "self.train_step(data_iterator)"),
            (job.script(), 431, "train_step", "loss = self.forward_backward_step(input_dict, labels)"),
            (job.script(), 388, "forward_backward_step", "pred = model_parts[0](inputs)")]


def cuda_err_tail(msg):
    return [f"RuntimeError: CUDA error: {msg}",
            "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
            "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
            "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
            ""]


def cpp_frames(job, kind, rng):
    site = job.torch_site()
    lib = f"{site}/lib"
    a = lambda: "0x7f" + hexs(rng, 10)
    if kind == "timeout":
        fr = [f"frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 ({a()} in {lib}/libc10.so)",
              f"frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 ({a()} in {lib}/libtorch_cuda.so)",
              f"frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 ({a()} in {lib}/libtorch_cuda.so)",
              f"frame #3: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d ({a()} in {lib}/libtorch_cuda.so)",
              f"frame #4: <unknown function> + 0xdc253 ({a()} in /lib/x86_64-linux-gnu/libstdc++.so.6)",
              f"frame #5: <unknown function> + 0x94ac3 ({a()} in /lib/x86_64-linux-gnu/libc.so.6)",
              f"frame #6: clone + 0x44 ({a()} in /lib/x86_64-linux-gnu/libc.so.6)"]
    elif kind == "cuda":
        fr = [f"frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 ({a()} in {lib}/libc10.so)",
              f"frame #1: c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64 ({a()} in {lib}/libc10.so)",
              f"frame #2: c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118 ({a()} in {lib}/libc10_cuda.so)",
              f"frame #3: c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x56 ({a()} in {lib}/libtorch_cuda.so)",
              f"frame #4: c10d::ProcessGroupNCCL::WorkNCCL::isCompleted() + 0xa0 ({a()} in {lib}/libtorch_cuda.so)",
              f"frame #5: c10d::ProcessGroupNCCL::watchdogHandler() + 0x1da ({a()} in {lib}/libtorch_cuda.so)",
              f"frame #6: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d ({a()} in {lib}/libtorch_cuda.so)",
              f"frame #7: <unknown function> + 0xdc253 ({a()} in /lib/x86_64-linux-gnu/libstdc++.so.6)",
              f"frame #8: <unknown function> + 0x94ac3 ({a()} in /lib/x86_64-linux-gnu/libc.so.6)",
              f"frame #9: clone + 0x44 ({a()} in /lib/x86_64-linux-gnu/libc.so.6)"]
    else:
        fr = [f"frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 ({a()} in {lib}/libc10.so)",
              f"frame #1: c10d::ProcessGroupNCCL::checkForNCCLErrorsInternal(std::shared_ptr<c10d::NCCLComm>&) + 0x220 ({a()} in {lib}/libtorch_cuda.so)",
              f"frame #2: c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException() + 0x7c ({a()} in {lib}/libtorch_cuda.so)",
              f"frame #3: c10d::ProcessGroupNCCL::watchdogHandler() + 0x213 ({a()} in {lib}/libtorch_cuda.so)",
              f"frame #4: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d ({a()} in {lib}/libtorch_cuda.so)",
              f"frame #5: <unknown function> + 0xdc253 ({a()} in /lib/x86_64-linux-gnu/libstdc++.so.6)",
              f"frame #6: <unknown function> + 0x94ac3 ({a()} in /lib/x86_64-linux-gnu/libc.so.6)",
              f"frame #7: clone + 0x44 ({a()} in /lib/x86_64-linux-gnu/libc.so.6)"]
    return fr


OPS = [("ALLREDUCE", 1.0), ("_ALLGATHER_BASE", 8.0), ("_REDUCE_SCATTER_BASE", 0.125), ("ALLREDUCE", 1.0)]


def nccl_line_no(job, key):
    table = {"timeout": (563, 616, 632), "detected": (1537, 1785, 1664), "fail": (577, 630, 668),
             "down": (583, 636, 674), "term": (1414, 1595, 1901), "dump": (1316, 1575, 1700),
             "observed": (1312, 1922, 1794), "recv": (1340, 1987, 1858), "first": (1301, 1569, 1688)}
    v = table[key]
    return v[0] if not job.torch_new else (v[1] if job.torch_ver < "2.6" else v[2])


def watchdog_lines(job, r, t, seq, op, numel, ran_ms, full, last_enq=None, rng=None, dump_from=None,
                   err=None):
    """What one rank prints when its NCCL watchdog fires (timeout or async NCCL error)."""
    to = job.timeout_s * 1000
    pgp = job.pg(r)
    enq = last_enq if last_enq is not None else seq
    nout = int(numel * dict(OPS).get(op, 1.0)) if op != "ALLREDUCE" else numel
    work = f"WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={numel}, NumelOut={nout}, Timeout(ms)={to})"
    L = []
    c = lambda key, msg, lvl="E": job.cpp(r, t, lvl, f"ProcessGroupNCCL.cpp:{nccl_line_no(job, key)}", msg)
    if err is None:
        first = f"[Rank {r}] Watchdog caught collective operation timeout: {work} ran for {ran_ms} milliseconds before timing out."
        L.append(c("timeout", first))
    else:
        first = err
    L.append(c("detected", f"{pgp} Exception (either an error or timeout) detected by watchdog at work: {seq}, "
                           f"last enqueued NCCL work: {enq}, last completed NCCL work: {seq - 1}."))
    if not full:
        return job.wrap(r, L)
    if job.torch_new and err is None:
        if dump_from is None or dump_from == r:
            L.append(c("first", f"{pgp} First PG on this rank to signal dumping."))
            L.append(c("recv", f"{pgp} Received a dump signal due to a collective timeout from this local rank and we will "
                               f"try our best to dump the debug info. Last enqueued NCCL work: {enq}, last completed NCCL "
                               f"work: {seq - 1}.This is most likely caused by incorrect usages of collectives, e.g., wrong "
                               f"sizes used across ranks, the order of collectives is not same for all ranks or the scheduled "
                               f"collective, for some reason, didn't run. Additionally, this can be caused by GIL deadlock or "
                               f"other reasons such as network errors or bugs in the communications library (e.g. NCCL), etc. "))
        else:
            L.append(c("observed", f"{pgp} Observed flight recorder dump signal from another rank via TCPStore."))
            L.append(c("recv", f"{pgp} Received a dump signal due to a collective timeout from  rank {dump_from} and we will "
                               f"try our best to dump the debug info. Last enqueued NCCL work: {enq}, last completed NCCL "
                               f"work: {seq - 1}.This is most likely caused by incorrect usages of collectives, e.g., wrong "
                               f"sizes used across ranks, the order of collectives is not same for all ranks or the scheduled "
                               f"collective, for some reason, didn't run. Additionally, this can be caused by GIL deadlock or "
                               f"other reasons such as network errors or bugs in the communications library (e.g. NCCL), etc. "))
        L.append(c("dump", f"{pgp} ProcessGroupNCCL preparing to dump debug info. Include stack trace: 1"))
    L.append(c("fail", f"{pgp} Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA "
                       f"kernels, subsequent GPU operations might run on corrupted/incomplete data."))
    L.append(c("down", f"{pgp} To avoid data inconsistency, we are taking the entire process down."))
    if err is None:
        what = f"{pgp} Process group watchdog thread terminated with exception: {first}"
    else:
        what = f"{pgp} Process group watchdog thread terminated with exception: {err}"
    L.append(c("term", what))
    L.append("terminate called after throwing an instance of 'c10::DistBackendError'")
    L.append(f"  what():  {what}")
    if err is None:
        L.append(f"Exception raised from checkTimeout at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:{nccl_line_no(job, 'timeout') + 2} (most recent call first):")
        L += cpp_frames(job, "timeout", rng or random.Random(r))
    else:
        L.append(f"Exception raised from checkForNCCLErrorsInternal at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2055 (most recent call first):")
        L += cpp_frames(job, "nccl", rng or random.Random(r))
    L.append("")
    return job.wrap(r, L)


def nccl_remote_err(job, peer_ip, hca, newfmt=None):
    v = tuple(int(x) for x in job.nccl_ver.split("."))
    port = 30000 + zlib.crc32(peer_ip.encode()) % 30000
    if v >= (2, 23, 0):
        return (f"NET/IB: Got completion from peer {peer_ip}<{port}> with status=12 opcode=0 len=0 "
                f"vendor err 129 (Send) hca {hca}")
    return f"NET/IB : Got completion from peer {peer_ip}<{port}> with status=12 opcode=0 len=0 vendor err 129 (Send)"


def dist_backend_err(job, last):
    return (f"NCCL error: remote process exited or there was a network error, NCCL version {job.nccl_ver}\n"
            f"ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\n"
            f"Last error:\n{last}")


def nvrm_xid(job, local, xid, pid, msg, name="python"):
    if pid is None:
        return f"NVRM: Xid ({job.bus_short(local)}): {xid}, pid='<unknown>', name=<unknown>, {msg}"
    return f"NVRM: Xid ({job.bus_short(local)}): {xid}, pid={pid}, name={name}, {msg}"


def gpu_uuid(job, ni, local):
    r = random.Random(f"{job.seed}/{job.idx}/uuid/{ni}/{local}")
    return f"GPU-{hexs(r, 8)}-{hexs(r, 4)}-{hexs(r, 4)}-{hexs(r, 4)}-{hexs(r, 12)}"


def gpu_serial(job, ni, local):
    r = random.Random(f"{job.seed}/{job.idx}/sn/{ni}/{local}")
    return str(r.randint(1320000000000, 1659999999999))


# --------------------------------------------------------------------------------------
# startup noise and the training log of the rank that prints it
# --------------------------------------------------------------------------------------

def log_rank(job):
    """Megatron prints iteration lines from the last rank, torchtitan/nemo from rank 0."""
    return job.world - 1 if job.framework == "megatron" else 0


def batch_header(job, scn, rng):
    t = 0.0
    L = [f"START TIME: {job.t_abs(0).strftime('%a %b %d %H:%M:%S')} UTC {job.t_abs(0).year}",
         f"SLURM_JOB_ID={job.jobid}",
         f"SLURM_JOB_NODELIST={job.nodelist}",
         f"SLURM_NNODES={job.nnodes}  SLURM_NTASKS={job.world if job.launch == 'srun' else job.nnodes}"
         f"  GPUS_PER_NODE={job.gpn}",
         f"MASTER_ADDR={job.master} MASTER_PORT={job.port}",
         f"NCCL_DEBUG={'INFO' if scn.nccl_info else 'WARN'} NCCL_IB_TIMEOUT={rng.choice([20, 22, 23])} "
         f"NCCL_IB_RETRY_CNT={rng.choice([7, 10, 13])} TORCH_NCCL_ASYNC_ERROR_HANDLING={rng.choice([1, 3])}",
         f"+ srun -l --kill-on-bad-exit={1 if job.kill_on_bad_exit else 0} --ntasks-per-node="
         f"{job.gpn if job.launch == 'srun' else 1} --cpu-bind=none --container-image={rng.choice(['nvcr.io#nvidia/pytorch:24.05-py3', 'nvcr.io#nvidia/nemo:24.09', '/lustre/images/train-v41.sqsh', 'ghcr.io#org/trainer:2025.02'])} "
         + ("python -u " + job.script() if job.launch == "srun" else
            f"torchrun --nnodes={job.nnodes} --nproc-per-node={job.gpn} --rdzv-backend=c10d "
            f"--rdzv-endpoint={job.master}:{job.port} --tee 3 {job.script()}")]
    scn.ev(t, "batch", L)


def startup(job, scn, rng):
    """Startup chatter: every rank warns a bit, rank 0 says a lot."""
    g0 = 25.0 + rng.uniform(0, 30)
    site = job.torch_site()
    r0 = 0
    # transient connection refusals while the store comes up (harmless, retried)
    refused = Members(job, "rank", ids=rng.sample(range(job.world), min(job.world, rng.randint(40, 900))))
    where = f"socket.cpp:{rng.choice([697, 752, 764])}"

    def mk_ref(r, t, full):
        return job.wrap(r, [job.cpp(r, t, "W", where, f"[c10d] The client socket has failed to connect to "
                                                          f"[{job.master}]:{job.port} (errno: 111 - Connection refused).")])
    scn.masses.append(Mass("sock_refused", refused, lambda r: g0 + frac(r, 3) * 20, mk_ref, keep=(2, 6)))
    fw = rng.choice([
        (f"/usr/local/lib/python3.10/dist-packages/transformer_engine/pytorch/module/base.py:{rng.randint(600, 900)}: "
         "FutureWarning: `torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
         "`torch.amp.custom_fwd(args..., device_type='cuda')` instead.", "  @torch.cuda.amp.custom_fwd"),
        (f"{site}/_utils.py:831: UserWarning: TypedStorage is deprecated. It will be removed in the future and "
         "UntypedStorage will be the only storage class. This should only matter to you if you are using storages "
         "directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead.",
         "  return self.fget.__get__(instance, owner)()"),
        (f"/usr/local/lib/python3.10/dist-packages/apex/normalization/fused_layer_norm.py:{rng.randint(500, 700)}: "
         "FutureWarning: `torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use "
         "`torch.amp.custom_bwd(args..., device_type='cuda')` instead.", "  @torch.cuda.amp.custom_bwd"),
    ])
    allr = Members(job, "rank")
    scn.masses.append(Mass("deprec", allr, lambda r: g0 + 40 + frac(r, 5) * 30,
                           lambda r, t, full: job.wrap(r, list(fw)), keep=(2, 5)))
    t = g0 + 5
    if job.framework == "megatron":
        L = ["using world size: %d, data-parallel size: %d, context-parallel size: 1, tensor-model-parallel size: %d, "
             "pipeline-model-parallel size: %d " % (job.world, job.dp, job.tp, job.pp),
             "WARNING: Setting args.overlap_p2p_comm and args.align_param_gather to False since non-interleaved "
             "schedule does not support overlapping p2p communication and aligned param AG",
             "> initializing torch distributed ...",
             f"> initialized tensor model parallel with size {job.tp}",
             f"> initialized pipeline model parallel with size {job.pp}",
             "> setting random seeds to 1234 ...",
             "> compiling dataset index builder ...",
             "make: Entering directory '/workspace/Megatron-LM/megatron/core/datasets'",
             "make: Nothing to be done for 'default'.",
             "make: Leaving directory '/workspace/Megatron-LM/megatron/core/datasets'",
             f">>> done with dataset index builder. Compilation time: {rng.uniform(0.05, 0.3):.3f} seconds"]
        scn.ev(t, "app", job.wrap(r0, L), rank=r0)
    elif job.framework == "torchtitan":
        L = [f"[titan] {job.ts_py(t, 0)} - root - INFO - Starting job: {job.jobname}",
             f"[titan] {job.ts_py(t, 0)} - root - INFO - Building {3 if job.pp > 1 else 2}-D device mesh with "
             f"['pp', 'dp_shard', 'tp'], [{job.pp}, {job.world // (job.pp * job.tp)}, {job.tp}]",
             f"[titan] {job.ts_py(t + 1, 0)} - root - INFO - [GC] Initial GC collection. 0.00 seconds.",
             f"[titan] {job.ts_py(t + 2, 0)} - root - INFO - Loading tokenizer from tokenizer.model"]
        scn.ev(t, "app", job.wrap(r0, L), rank=r0)
    else:
        L = [f"[NeMo I {job.ts_py(t, 0)[:19]} megatron_init:314] Rank 0 has data parallel group : [0, {job.tp * job.pp}, "
             f"{2 * job.tp * job.pp}, ...]",
             f"[NeMo I {job.ts_py(t, 0)[:19]} megatron_init:331] All data parallel group ranks with context parallel "
             f"combined: [[0, {job.tp * job.pp}, ...], ...]",
             f"[NeMo I {job.ts_py(t, 0)[:19]} megatron_init:345] Rank 0 has model parallel group: [0, 1, ..., "
             f"{job.tp * job.pp - 1}]",
             f"[NeMo W {job.ts_py(t, 0)[:19]} nemo_logging:349] /usr/local/lib/python3.10/dist-packages/lightning/"
             f"pytorch/trainer/connectors/logger_connector/logger_connector.py:75: Starting from v1.9.0, "
             f"`tensorboardX` has been removed as a dependency of the `lightning.pytorch` package, due to potential "
             f"conflicts with other packages in the ML ecosystem."]
        scn.ev(t, "app", job.wrap(r0, L), rank=r0)
    if scn.nccl_info:
        t2 = g0 + 70
        ib = " ".join(f"[{i}]{job.nic(i if job.gpn == 8 else i)[0]}:1/IB" for i in range(job.gpn))
        L = [job.nccl(0, "INFO", f"Bootstrap : Using ib0:{job.ip(0)}<0>"),
             job.nccl(0, "INFO", "NET/Plugin: Loaded net plugin NCCL RDMA SHARP (v8)"),
             job.nccl(0, "INFO", "cudaDriverVersion " + {"12.2": "12020", "12.4": "12040", "12.6": "12060", "12.8": "12080"}[job.cuda]),
             job.nccl(0, "INFO", f"NCCL version {job.nccl_ver}+cuda{job.cuda}"),
             job.nccl(0, "INFO", f"NET/IB : Using {ib} ; OOB ib0:{job.ip(0)}<0>"),
             job.nccl(0, "INFO", "Using network IB"),
             job.nccl(0, "INFO", f"comm 0x{hexs(rng, 12)} rank 0 nranks {job.world} cudaDev 0 nvmlDev 0 busId "
                                 f"{job.bus(0).split(':')[-1]}000 commId 0x{hexs(rng, 16)} - Init START")]
        scn.ev(t2, "app", job.wrap(0, L), rank=0)

        def mk_init(r, t, full):
            ni = job.node_of(r)
            return job.wrap(r, [job.nccl(r, "INFO", f"comm 0x{hexs(random.Random(r), 12)} rank {r} nranks {job.world} "
                                                    f"cudaDev {job.local(r)} busId {job.bus(job.local(r)).split(':')[-1]}000"
                                                    f" localSize {job.gpn} used {rng.randint(300, 900)}M - Init COMPLETE")])
        scn.masses.append(Mass("init_complete", allr, lambda r: t2 + 30 + frac(r, 9) * 25, mk_init, keep=(3, 8)))
        scn.ev(t2 + 60, "app", job.wrap(0, [job.nccl(0, "INFO", f"Init timings - ncclCommInitRank: rank 0 nranks "
                                                              f"{job.world} total {rng.uniform(20, 90):.2f} (kernels 0.21, "
                                                              f"alloc 0.08, bootstrap {rng.uniform(5, 40):.2f}, allgathers "
                                                              f"{rng.uniform(1, 9):.2f}, topo 0.44, graphs 0.05, connections "
                                                              f"{rng.uniform(3, 20):.2f}, rest 0.02)")]), rank=0)
    t3 = g0 + 160 + rng.uniform(0, 200)
    if job.framework == "megatron":
        L = [f"time to initialize megatron (seconds): {t3 - 20:.3f}",
             f"[after megatron is initialized] datetime: {job.ts_br(t3, 0)[1:-1]} ",
             "building GPT model ...",
             f" > number of parameters on (tensor, pipeline) model parallel rank (0, 0): "
             f"{int(job.params_b * 1e9 / (job.tp * job.pp) * rng.uniform(0.9, 1.1))}",
             "> building train, validation, and test datasets ...",
             "(min, max) time across ranks (ms):",
             f"    model-and-optimizer-setup ......................: ({rng.uniform(3000, 6000):.2f}, {rng.uniform(6000, 9000):.2f})",
             f"    train/valid/test-data-iterators-setup ..........: ({rng.uniform(9000, 20000):.2f}, {rng.uniform(20000, 60000):.2f})",
             "training ...",
             f"[before the start of training step] datetime: {job.ts_br(t3 + 60, 0)[1:-1]} "]
        if job.start_iter:
            L.insert(4, f" loading checkpoint from {job.ckpt_dir} at iteration {job.start_iter}")
            L.insert(5, f"  successfully loaded checkpoint from {job.ckpt_dir} [ t 1/{job.tp}, p 1/{job.pp} ] "
                        f"at iteration {job.start_iter}")
        scn.ev(t3, "app", job.wrap(0, L), rank=0)
    return t3 + 90


def iter_line(job, t, it, ms, loss, lr, gnorm, tflops):
    if job.framework == "megatron":
        total = job.start_iter + 500000
        return (f" {job.ts_br(t, job.node_of(job.world - 1))} iteration {it:>8d}/{total:>8d} | consumed samples: "
                f"{it * job.gbs:>12d} | elapsed time per iteration (ms): {ms:.1f} | throughput per GPU (TFLOP/s/GPU): "
                f"{tflops:.1f} | learning rate: {lr:.6E} | global batch size: {job.gbs:>5d} | lm loss: {loss:.6E} | "
                f"loss scale: 1.0 | grad norm: {gnorm:.3f} | number of skipped iterations:   0 | number of nan "
                f"iterations:   0 |")
    if job.framework == "torchtitan":
        mem = job.gpu_mem * 0.78
        return (f"[titan] {job.ts_py(t, 0)} - root - INFO - \x1b[31mstep: {it:>5d}  \x1b[32mloss: {loss:7.4f}  "
                f"\x1b[33mmemory: {mem:5.2f}GiB({mem / job.gpu_mem * 100:.2f}%)  \x1b[34mtps: "
                f"{int(job.seq * job.gbs / job.dp / (ms / 1000)):,}  \x1b[36mtflops: {tflops:,.2f}  "
                f"\x1b[35mmfu: {tflops / 9.89:.2f}%\x1b[39m")
    return (f"Training epoch 0, iteration {it}/{job.start_iter + 250000} | lr: {lr:.4g} | consumed_samples: "
            f"{it * job.gbs} | global_batch_size: {job.gbs} | global_step: {it} | reduced_train_loss: {loss:.4f} | "
            f"train_step_timing in s: {ms / 1000:.2f}")


def train_iters(job, scn, rng, t_from, t_to, it_from, slow=None, stop_at=None):
    """(t, it, ms) for each logged iteration between t_from and t_to."""
    out = []
    t = t_from
    it = it_from
    base = job.iter_s
    while t < t_to:
        f = 1.0
        if slow is not None and t >= slow[0]:
            f = slow[1]
        dt = base * f * rng.uniform(0.985, 1.02) * job.log_interval
        t += dt
        it += job.log_interval
        if t > t_to or (stop_at is not None and t > stop_at):
            break
        out.append((t, it, dt / job.log_interval * 1000))
    return out


def training_lines(job, scn, rng, t_from, t_to, it_from, slow=None, strag_every=0, strag_rank=None,
                   strag_kind="etpt"):
    """Lines of the logging rank (and rank 0's straggler detector) between two times."""
    evs = []
    lr_rank = log_rank(job)
    loss0 = rng.uniform(1.7, 2.6)
    peak = {"H1": 480, "GH": 500, "H2": 520, "GB": 1100, "B2": 1050}.get(job.gpu[:2], 450)
    n = 0
    for (t, it, ms) in train_iters(job, scn, rng, t_from, t_to, it_from, slow=slow):
        loss = loss0 - 0.0000025 * it + rng.gauss(0, 0.03)
        tflops = peak * 0.82 * (job.iter_s * 1000 / ms) * rng.uniform(0.98, 1.01)
        lr = job.lr_max * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, it / job.lr_decay))))
        line = iter_line(job, t, it, ms, loss, lr, abs(rng.gauss(0.25, 0.08)), tflops)
        evs.append(Ev(t, "app", job.wrap(lr_rank, [line]), rank=lr_rank, tag="iter"))
        scn.last_iter = it
        scn.last_iter_t = t
        n += 1
        if it % job.save_interval < job.log_interval and job.framework == "megatron":
            tt = t + 1.0
            evs.append(Ev(tt, "app", job.wrap(0, [
                f"saving checkpoint at iteration {it:>7d} to {job.ckpt_dir} in torch_dist format",
                f"  successfully saved checkpoint from iteration {it:>7d} to {job.ckpt_dir} "
                f"[ t 1/{job.tp}, p 1/{job.pp} ]",
                f"(min, max) time across ranks (ms):",
                f"    save-checkpoint ................................: ({rng.uniform(20000, 60000):.2f}, "
                f"{rng.uniform(60000, 90000):.2f})"]), rank=0, tag="ckpt"))
        if strag_every and n % strag_every == 0 and job.framework in ("megatron", "nemo"):
            evs.append(straggler_detector_line(job, rng, t + 0.5, ms, strag_rank, strag_kind, peak))
    return evs


def straggler_detector_line(job, rng, t, ms, srank, kind, peak):
    """Megatron-core StragglerDetector report (logged by rank 0)."""
    W = job.world
    r = lambda: rng.randrange(W)
    mn = ms * rng.uniform(0.93, 0.97)
    mx = ms * rng.uniform(0.985, 1.0)
    mnr, mxr = r(), r()
    pw_lo, pw_hi = rng.uniform(560, 610) * 1000, rng.uniform(680, 700) * 1000
    tmp_lo, tmp_hi = rng.randint(44, 52), rng.randint(62, 72)
    clk_lo, clk_hi = rng.choice([1755, 1830, 1920]), 1980
    dr_lo, dr_hi = rng.uniform(0.8, 3.0), rng.uniform(8, 60)
    e_lo = peak * 0.80 * rng.uniform(0.96, 0.99)
    e_hi = peak * 0.80 * rng.uniform(1.0, 1.02)
    elo_r, ehi_r, clk_r, tmp_r, drr = r(), r(), r(), r(), r()
    if srank is not None:
        if kind == "etpt":
            e_lo *= rng.uniform(0.55, 0.75)
            elo_r = srank
            mxr = srank
            clk_lo, clk_r = rng.choice([1095, 1230, 1350, 1410]), srank
            if rng.random() < 0.6:
                tmp_hi, tmp_r = rng.randint(86, 93), srank
        elif kind == "drtt":
            dr_hi, drr = rng.uniform(90000, 900000), srank
    line = (f"{job.ts_br(t, 0)} | MnRtt/Rnk: {mn:.2f}ms/{mnr} | MxRtt/Rnk: {mx:.2f}ms/{mxr} | "
            f"MnPwr/Rnk: {pw_lo:.0f}W/{r()} | MxPwr/Rnk: {pw_hi:.0f}W/{r()} | MnTmp/Rnk: {tmp_lo}C/{r()} | "
            f"MxTmp/Rnk: {tmp_hi}C/{tmp_r} | MnUtl/Rnk: {rng.randint(88, 97)}%/{r()} | MxUtl/Rnk: 100%/{r()} | "
            f"MnClk/Rnk: {clk_lo}MHz/{clk_r} | MxClk/Rnk: {clk_hi}MHz/{r()} | MnDRtt/Rnk: {dr_lo:.2f}ms/{r()} | "
            f"MxDRtt/Rnk: {dr_hi:.2f}ms/{drr} | MnEtpt/Rnk: {e_lo:.2f}TF/{elo_r} | MxEtpt/Rnk: {e_hi:.2f}TF/{ehi_r}")
    lines = [("INFO:megatron.core.utils:" if job.framework == "megatron" else "") + line]
    if srank is not None and kind == "etpt" and rng.random() < 0.7:
        k = 4
        lows = sorted([(e_lo, srank)] + [(peak * 0.8 * rng.uniform(0.955, 0.975), r()) for _ in range(k - 1)])
        highs = sorted([(peak * 0.8 * rng.uniform(1.005, 1.02), r()) for _ in range(k)])
        lines.append(("INFO:megatron.core.utils:" if job.framework == "megatron" else "") +
                     f"^^^^ Bottom {k} Ranks with lowest  Etpt(TF): " + " ".join(f"{a:.2f}/{b}," for a, b in lows))
        lines.append(("INFO:megatron.core.utils:" if job.framework == "megatron" else "") +
                     f"^^^^ Top    {k} Ranks with highest Etpt(TF): " + " ".join(f"{a:.2f}/{b}," for a, b in highs))
    return Ev(t, "app", job.wrap(0, lines), rank=0, tag="strag",
              ev=("rank",) if srank is not None else ())


# --------------------------------------------------------------------------------------
# collateral damage: watchdog timeouts, peer errors, exits, srun / torchrun summaries
# --------------------------------------------------------------------------------------

def coll_point(job, rng):
    seq = rng.randint(30000, 2_500_000)
    op, _ = rng.choice(OPS)
    numel = rng.choice([1, 262144, 1048576, 16777216, 134217728, 268435456])
    return seq, op, numel


def add_exit(scn, members, tfn, status, t_min, ev=(), t_hint=None):
    scn.exits.append(dict(members=members, tfn=tfn, status=status, t_min=t_min, ev=tuple(ev)))


def add_watchdog(scn, rng, members, t0, seq, op, numel, key="watchdog", enq=None, abort=True, spread=4.0,
                 dump_from=None, per_rank=None):
    job = scn.job
    T = job.timeout_s

    def tfn(r):
        return t0 + T + 0.3 + frac(r, 11) * spread

    if dump_from is None and job.torch_new:
        dump_from = members.sample(rng, 1)[0] if members.count() else None

    def mk(r, t, full):
        ran = int((t - t0) * 1000)
        s, o, n = (per_rank(r) if per_rank else (seq, op, numel))
        return watchdog_lines(job, r, t, s, o, n, ran, full, last_enq=(enq if enq is not None else s + rng.randint(0, 2)),
                              rng=random.Random(f"{job.seed}/{r}"), dump_from=dump_from)
    scn.masses.append(Mass(key, members, tfn, mk, keep=(4, 14), full_k=rng.randint(1, 2)))
    if abort:
        status = rng.choice(["Aborted", "Aborted (core dumped)"])
        add_exit(scn, members, lambda r: tfn(r) + 1.2 + frac(r, 13) * 2.5, status, t0 + T + 1.5)
    return t0 + T + spread + 4


def add_peer_errors(scn, rng, peer_ranks, t0, target_ni, seq, op, numel, kind="ib", key="peer_err", abort=True):
    """Ranks talking to a dead/broken node see transport errors a few seconds later."""
    job = scn.job
    mem = Members(job, "rank", ids=peer_ranks)
    delay = rng.uniform(6, 40) if kind == "ib" else rng.uniform(0.5, 5)

    def tfn(r):
        return t0 + delay + frac(r, 17) * 6

    def mk(r, t, full):
        nic = job.nic(job.local(r))[0]
        port = 30000 + zlib.crc32(f"{r}".encode()) % 30000
        if kind == "ib":
            w = nccl_remote_err(job, job.ip(target_ni), nic)
        elif kind == "reset":
            w = f"socketProgressOpt: Call to recv from {job.ip(target_ni)}<{port}> failed : Connection reset by peer"
        else:
            w = f"socketProgress: Connection closed by remote peer {job.ip(target_ni)}<{port}>"
        L = job.wrap(r, [job.nccl(r, "WARN", w, k=2)])
        err = f"[Rank {r}] " + dist_backend_err(job, w)
        return L + watchdog_lines(job, r, t + 0.05, seq, op, numel, 0, full, rng=random.Random(r), err=err)
    scn.masses.append(Mass(key, mem, tfn, mk, keep=(2, 8), full_k=1, ev=("node_ip",)))
    if abort:
        add_exit(scn, mem, lambda r: tfn(r) + 1.0 + frac(r, 19), rng.choice(["Aborted", "Aborted (core dumped)"]),
                 t0 + delay + 1.0)
    return t0 + delay + 8


def neighbours(job, ni, local, k=2):
    out = []
    for d in (-1, 1, 2, -2)[:k]:
        nj = ni + d
        if 0 <= nj < job.nnodes:
            out.append(nj * job.gpn + local)
    return out


TORCHRUN_STATUS = {"Exited with exit code 1": (1, None), "Aborted": (-6, "SIGABRT"),
                   "Aborted (core dumped)": (-6, "SIGABRT"), "Killed": (-9, "SIGKILL"),
                   "Terminated": (-15, "SIGTERM"), "Segmentation fault (core dumped)": (-11, "SIGSEGV"),
                   "Segmentation fault": (-11, "SIGSEGV"), "Out Of Memory": (-9, "SIGKILL"),
                   "Bus error (core dumped)": (-7, "SIGBUS")}


def resolve_kill(scn, rng):
    """srun --kill-on-bad-exit=1 (or a torchrun agent exiting) ends everything soon after the first failure."""
    job = scn.job
    if not job.kill_on_bad_exit or not scn.exits:
        return
    bad = [e for e in scn.exits if e["status"] not in ("Terminated",)]
    if not bad:
        return
    first = min(bad, key=lambda e: e["t_min"])
    t_kill = first["t_min"] + (1.0 if job.launch == "srun" else rng.uniform(2.0, 6.0))
    # drop everything rank-produced that would have happened after the kill
    keep_m = []
    for m in scn.masses:
        if m.src in ("app", "agent") and m.members.count():
            t_lo = min(m.tfn(x) for x in m.members.sample(random.Random(1), 6))
            if t_lo > t_kill + 0.5:
                continue
        keep_m.append(m)
    scn.masses = keep_m
    scn.evs = [e for e in scn.evs if not (e.src == "app" and e.t > t_kill + 0.5 and e.tag != "keep")]
    kept = [e for e in scn.exits if e["t_min"] <= t_kill + 0.5]
    small = set()
    big = None
    for e in kept:
        p = e["members"].pool_small()
        if p is not None and len(p) <= 4096 and e["members"].ids is not None:
            small.update(p)
        else:
            big = e
    if big is None:
        rest = Members(job, "rank", exclude=small)
    else:
        rest = Members(job, "rank", ids=[x for x in big["members"].exclude if x not in small])
    scn.exits = kept
    if rest.count():
        add_exit(scn, rest, lambda r: t_kill + 0.5 + frac(r, 23) * 3, "Terminated", t_kill + 0.5)
    scn.kill_at = t_kill
    sid = f"{job.jobid}.0"
    scn.ev(t_kill, "srun", [f"srun: Terminating StepId={sid}"])
    scn.ev(t_kill + 0.3, "stepd", [f"slurmstepd: error: *** STEP {sid} ON {job.hosts[0]} CANCELLED AT "
                                   f"{job.ts_slurm(t_kill + 0.3, 0)} ***"])
    scn.t_end = max(scn.t_end or 0, t_kill + 40)
    if rng.random() < 0.5:
        scn.ev(t_kill + 32.5, "srun", [f"srun: Force Terminated StepId={sid}"])


def rank_exit(scn, r):
    """(t, status, ev) of rank r's exit, earliest group wins."""
    best = None
    for e in scn.exits:
        if e["members"].contains(r):
            t = e["tfn"](r)
            if best is None or t < best[0]:
                best = (t, e["status"], e["ev"])
    return best


def special_nodes(scn):
    s = set()
    for e in scn.exits:
        p = e["members"].ids
        if p is not None and len(p) <= 64:
            s.update(scn.job.node_of(r) for r in p if e["members"].contains(r))
    return s


def elastic_prefix(job, t, ni, level, where):
    if job.torch_new:
        return f"{job.ts_elastic(t, ni, level)} {job.agent_pid(ni)} torch/distributed/elastic/{where}]"
    lvl = {"W": "WARNING", "E": "ERROR", "I": "INFO"}[level]
    mod = "torch.distributed.elastic." + where.split(".py")[0].replace("/", ".")
    return f"[{job.ts_py(t, ni)}] {mod}: [{lvl}]"


def torchrun_tb(job, sig=None):
    site = job.torch_site()
    fr = [("/usr/local/bin/torchrun", 8, "<module>", "sys.exit(main())"),
          (f"{site}/distributed/elastic/multiprocessing/errors/__init__.py", 355, "wrapper", "return f(*args, **kwargs)"),
          (f"{site}/distributed/run.py", 919, "main", "run(args)"),
          (f"{site}/distributed/run.py", 910, "run", "elastic_launch("),
          (f"{site}/distributed/launcher/api.py", 138, "__call__",
           "return launch_agent(self._config, self._entrypoint, list(args))")]
    if sig:
        fr += [(f"{site}/distributed/launcher/api.py", 260, "launch_agent", "result = agent.run()"),
               (f"{site}/distributed/elastic/metrics/api.py", 137, "wrapper", "result = f(*args, **kwargs)"),
               (f"{site}/distributed/elastic/agent/server/api.py", 711, "run", "result = self._invoke_run(role)"),
               (f"{site}/distributed/elastic/agent/server/api.py", 864, "_invoke_run", "time.sleep(monitor_interval)"),
               (f"{site}/distributed/elastic/multiprocessing/api.py", 84, "_terminate_process_handler",
                'raise SignalException(f"Process {os.getpid()} got signal: {sigval}", sigval=sigval)')]
        return tb(fr, [f"torch.distributed.elastic.multiprocessing.api.SignalException: Process {sig} got signal: 15"])
    fr += [(f"{site}/distributed/launcher/api.py", 269, "launch_agent", "raise ChildFailedError(")]
    return tb(fr, ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: "])


def agent_block(scn, ni, t_base=None):
    """What one node's torchrun agent prints when its workers die (or when srun kills it)."""
    job = scn.job
    info = []
    for r in range(ni * job.gpn, (ni + 1) * job.gpn):
        x = rank_exit(scn, r)
        if x:
            info.append((x[0], r, x[1]))
    if not info:
        return None, None
    info.sort()
    t0, r0, st0 = info[0]
    L = []
    if st0 == "Terminated":
        L.append(elastic_prefix(job, t0, ni, "W", "agent/server/api.py:704") +
                 " Received Signals.SIGTERM death signal, shutting down workers")
        for (t, r, st) in info:
            L.append(elastic_prefix(job, t0 + 0.01, ni, "W", "multiprocessing/api.py:897") +
                     f" Sending process {job.pid(r)} closing signal SIGTERM")
        L += torchrun_tb(job, sig=job.agent_pid(ni))
        return t0 + 2.0, L
    code0, sig0 = TORCHRUN_STATUS.get(st0, (1, None))
    others = [(t, r, st) for (t, r, st) in info[1:] if t - t0 < 1.5 and st != "Terminated"]
    killed = [(t, r, st) for (t, r, st) in info[1:] if (t, r, st) not in others]
    for (t, r, st) in killed:
        L.append(elastic_prefix(job, t0 + 0.2, ni, "W", "multiprocessing/api.py:897") +
                 f" Sending process {job.pid(r)} closing signal SIGTERM")
    L.append(elastic_prefix(job, t0 + 1.1, ni, "E", "multiprocessing/api.py:869") +
             f" failed (exitcode: {code0}) local_rank: {job.local(r0)} (pid: {job.pid(r0)}) of binary: /usr/bin/python3")
    L += torchrun_tb(job)
    name = os.path.basename(job.script())

    def entry(i, t, r, st):
        code, sig = TORCHRUN_STATUS.get(st, (1, None))
        d = job.local_time(t, ni)
        tbtxt = (f"Signal {-code} ({sig}) received by PID {job.pid(r)}" if sig else
                 "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
        return [f"[{i}]:",
                f"  time      : {d.strftime('%Y-%m-%d_%H:%M:%S')}",
                f"  host      : {job.host(ni)}",
                f"  rank      : {r} (local_rank: {job.local(r)})",
                f"  exitcode  : {code} (pid: {job.pid(r)})",
                f"  error_file: <N/A>",
                f"  traceback : {tbtxt}"]
    L += ["============================================================", f"{name} FAILED",
          "------------------------------------------------------------", "Failures:"]
    if others:
        for i, (t, r, st) in enumerate(others, 1):
            L += entry(i, t, r, st)
    else:
        L.append("  <NO_OTHER_FAILURES>")
    L += ["------------------------------------------------------------", "Root Cause (first observed failure):"]
    L += entry(0, t0, r0, st0)
    L.append("============================================================")
    return t0 + 1.5, L


def render_exits(scn, rng):
    """Turn exit groups into srun error lines (srun -l python) or agent blocks (srun -l torchrun)."""
    job = scn.job
    sp = special_nodes(scn)
    init_ni = scn.init_node

    def node_line(ni):
        by = {}
        tmax = 0
        for r in range(ni * job.gpn, (ni + 1) * job.gpn):
            x = rank_exit(scn, r)
            if x:
                by.setdefault(x[1], []).append(r)
                tmax = max(tmax, x[0])
        L = []
        for st, rs in sorted(by.items(), key=lambda kv: kv[1][0]):
            word = "task" if len(rs) == 1 else "tasks"
            L.append(f"srun: error: {job.host(ni)}: {word} {ranges_str(rs)}: {st}")
        return tmax + 0.2, L

    if job.launch == "srun":
        for ni in sorted(sp):
            # slurmstepd reports tasks as they exit: one line per batch of tasks with the same fate
            groups = {}
            for r in range(ni * job.gpn, (ni + 1) * job.gpn):
                x = rank_exit(scn, r)
                if x:
                    key = (x[1], x[2], round(x[0] / 5.0))
                    groups.setdefault(key, []).append((x[0], r))
            for (st, evf, _), lst in groups.items():
                rs = [r for _, r in lst]
                word = "task" if len(rs) == 1 else "tasks"
                scn.ev(max(t for t, _ in lst) + 0.2, "srun", [f"srun: error: {job.host(ni)}: {word} {ranges_str(rs)}: {st}"],
                       node=ni, ev=evf, tag="exit")
        rest = Members(job, "node", exclude=sp)
        if rest.count() and any(e["members"].ids is None for e in scn.exits):
            cache = {}

            def tfn(ni):
                if ni not in cache:
                    cache[ni] = node_line(ni)
                return cache[ni][0]

            def mk(ni, t, full):
                if ni not in cache:
                    cache[ni] = node_line(ni)
                return cache[ni][1]
            scn.masses.append(Mass("srun_exit", rest, tfn, mk, src="srun", keep=(3, 12)))
    else:
        for ni in sorted(sp):
            t, L = agent_block(scn, ni)
            if L:
                evf = ()
                for e in scn.exits:
                    if e["ev"] and any(e["members"].contains(r) for r in range(ni * job.gpn, (ni + 1) * job.gpn)):
                        x = agent_first(scn, ni)
                        if x is not None and e["members"].contains(x):
                            evf = e["ev"]
                scn.ev(t, "agent", L, node=ni, ev=evf, tag="exit")
                scn.ev(t + 0.4, "srun", [f"srun: error: {job.host(ni)}: task {ni}: Exited with exit code 1"], node=ni,
                       tag="exit", ev=tuple(x for x in evf if x == "node"))
        rest = Members(job, "node", exclude=sp)
        if rest.count() and any(e["members"].ids is None for e in scn.exits):
            cache = {}

            def get(ni):
                if ni not in cache:
                    cache[ni] = agent_block(scn, ni)
                return cache[ni]

            scn.masses.append(Mass("agent_exit", rest, lambda ni: (get(ni)[0] or 0), lambda ni, t, f: get(ni)[1] or [],
                                   src="agent", keep=(1, 3)))
            scn.masses.append(Mass("srun_exit", rest, lambda ni: (get(ni)[0] or 0) + 0.4,
                                   lambda ni, t, f: [f"srun: error: {job.host(ni)}: task {ni}: Exited with exit code 1"],
                                   src="srun", keep=(3, 10)))


def agent_first(scn, ni):
    job = scn.job
    best = None
    for r in range(ni * job.gpn, (ni + 1) * job.gpn):
        x = rank_exit(scn, r)
        if x and (best is None or x[0] < best[0]):
            best = (x[0], r)
    return best[1] if best else None


# --------------------------------------------------------------------------------------
# scenarios: one builder per cause
# --------------------------------------------------------------------------------------

def pick_init(scn, rng, avoid_logging=True):
    job = scn.job
    while True:
        r = rng.randrange(job.world)
        if avoid_logging and r in (0, job.world - 1):
            continue
        if job.node_of(r) in (0, job.nnodes - 1):
            continue
        break
    ni = job.node_of(r)
    if rng.random() < 0.3:  # the culprit's clock is off: its lines look "late" next to the others
        job.skews[ni] = rng.choice([-1, 1]) * rng.uniform(3, 75)
    return r, ni


def timeline(scn, rng, t_train0):
    """Training up to the failure: an early window and the last ~hour, the middle is elided by renderers."""
    job = scn.job
    t_fail = t_train0 + job.run_hours * 3600
    scn.t_fail = t_fail
    per_line = job.iter_s * job.log_interval
    w1 = min(t_train0 + per_line * rng.randint(12, 50), t_fail - 4000)
    w2 = t_fail - per_line * rng.randint(30, 110)
    if w2 <= w1 + per_line * 5:
        w2 = w1 + per_line * 5
    it0 = job.start_iter
    first = training_lines(job, scn, rng, t_train0, w1, it0)
    it_w2 = it0 + int((w2 - t_train0) / job.iter_s)
    it_w2 -= it_w2 % job.log_interval
    scn.gap = (w1, w2, int((w2 - w1) / (job.iter_s * job.log_interval)))
    scn.it_w2 = it_w2
    scn.t_train0 = t_train0
    return first, w2, it_w2


def finish_training(scn, rng, w2, it_w2, t_stop, **kw):
    evs = training_lines(scn.job, scn, rng, w2, t_stop, it_w2, **kw)
    scn.evs += evs
    return evs


def survivors_after_death(scn, rng, r, ni, t_dead, seq, op, numel, kind=None, exclude_extra=()):
    """A rank died at t_dead: peers see transport errors, the rest wait for the NCCL watchdog."""
    job = scn.job
    kind = kind or rng.choice(["ib", "ib", "closed", "reset"])
    peers = neighbours(job, ni, job.local(r), k=rng.choice([2, 2, 4]))
    excl = set([r] + peers) | set(exclude_extra)
    add_peer_errors(scn, rng, peers, t_dead, ni, seq, op, numel, kind=kind)
    rest = Members(job, "rank", exclude=excl)
    return add_watchdog(scn, rng, rest, t_dead - rng.uniform(0, 3), seq, op, numel)


def cuda_watchdog_err(job, r, t, msg, rng):
    """A CUDA error surfacing through the NCCL watchdog thread (no Python traceback)."""
    pgp = job.pg(r)
    body = [f"CUDA error: {msg}",
            "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
            "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
            "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", ""]
    L = [job.cpp(r, t, "E", f"ProcessGroupNCCL.cpp:{nccl_line_no(job, 'term')}",
                 f"{pgp} Process group watchdog thread terminated with exception: {body[0]}")] + body[1:]
    L += ["Exception raised from c10_cuda_check_implementation at /pytorch/c10/cuda/CUDAException.cpp:43 (most recent call first):"]
    L += cpp_frames(job, "cuda", rng)
    L += ["", "terminate called after throwing an instance of 'c10::DistBackendError'",
          f"  what():  {pgp} Process group watchdog thread terminated with exception: CUDA error: {msg}"] + body[1:4]
    return job.wrap(r, L)


def b_gpu_hardware(scn, rng):
    job = scn.job
    r, ni = pick_init(scn, rng)
    l = job.local(r)
    scn.init_rank, scn.init_node = r, ni
    t = scn.t_fail
    seq, op, numel = coll_point(job, rng)
    v = rng.choice(["79", "79", "79", "119", "62", "120"])
    pid = job.pid(r)
    if v == "79":
        scn.add_kern(ni, t - 0.4, nvrm_xid(job, l, 79, None if rng.random() < 0.5 else pid, "GPU has fallen off the bus."))
        scn.add_kern(ni, t - 0.4, f"NVRM: GPU {job.bus(l)}:00.0: GPU has fallen off the bus.")
        scn.add_kern(ni, t - 0.39, f"NVRM: GPU at PCI:{job.bus(l)}:00: {gpu_uuid(job, ni, l)}")
        scn.add_kern(ni, t - 0.39, f"NVRM: GPU Board Serial Number: {gpu_serial(job, ni, l)}")
        scn.add_kern(ni, t - 0.38, "NVRM: A GPU crash dump has been created. If possible, please run")
        scn.add_kern(ni, t - 0.38, "NVRM: nvidia-bug-report.sh as root to collect this data before")
        scn.add_kern(ni, t - 0.38, "NVRM: the NVIDIA kernel module is unloaded.")
        scn.health[ni] = [("nvidia-smi", f"Unable to determine the device handle for GPU{job.bus(l).upper()}:00.0: Unknown Error"),
                          ("check_nv_healthmon", f"GPU {l} ({job.bus(l)}:00.0) has fallen off the bus (Xid 79)")]
        scn.smi[ni] = [f"Unable to determine the device handle for GPU{job.bus(l).upper()}:00.0: Unknown Error",
                       "No devices were found" if rng.random() < 0.2 else
                       f"{job.gpn - 1} of {job.gpn} GPUs enumerated"]
        msg = rng.choice(["unspecified launch failure", "unknown error"])
        scn.ev(t + 0.8, "app", cuda_watchdog_err(job, r, t + 0.8, msg, rng), rank=r, ev=("rank",))
        add_exit(scn, Members(job, "rank", ids=[r]), lambda x: t + 1.6, rng.choice(["Aborted", "Aborted (core dumped)"]),
                 t + 1.6, ev=("rank", "node"))
        scn.t_end = survivors_after_death(scn, rng, r, ni, t + 1.6, seq, op, numel)
        scn.notes = f"GPU {l} of {job.host(ni)} fell off the bus (Xid 79); rank {r} died, everybody else followed."
    else:
        xid = int(v)
        if xid in (119, 120):
            fn = rng.choice([76, 10, 103])
            scn.add_kern(ni, t, nvrm_xid(job, l, xid, pid,
                                         f"Timeout after 6s of waiting for RPC response from GPU{l} GSP! Expected "
                                         f"function {fn} ({'GSP_RM_CONTROL' if fn == 76 else 'FREE' if fn == 10 else 'GSP_RM_ALLOC'}) "
                                         f"(0x{hexs(rng, 8)} 0x{rng.randint(1, 9):x})."))
            scn.add_kern(ni, t, f"NVRM: GPU{l} GSP RPC buffer contains function {fn} and data 0x{hexs(rng, 16)} "
                                f"0x{hexs(rng, 16)}.")
            scn.add_kern(ni, t + 0.1, f"NVRM: GPU{l} RPC history (CPU -> GPU):")
            scn.add_kern(ni, t + 0.1, "NVRM:     entry function                   data0              data1              ts_start           ts_end             duration actively_polling")
            for _ in range(3):
                scn.add_kern(ni, t + 0.1, f"NVRM:      0    {fn:<8d} {'GSP_RM_CONTROL' if fn == 76 else 'FREE':<15s}  0x{hexs(rng, 16)} "
                                          f"0x{hexs(rng, 16)} 0x{hexs(rng, 16)} 0x0000000000000000          y")
            for k in range(rng.randint(2, 5)):
                scn.add_kern(ni, t + 6 * (k + 1), nvrm_xid(job, l, xid, pid, f"Timeout after 45s of waiting for RPC "
                                                                              f"response from GPU{l} GSP! Expected function "
                                                                              f"{fn} (0x{hexs(rng, 8)} 0x0)."))
            scn.add_kern(ni, t + 40, f"NVRM: Rate limiting GSP RPC error prints for GPU at PCI:{job.bus(l)}:00 (printing 1 of every 30).  The GPU likely needs to be reset.")
            scn.health[ni] = [("dcgm", f"GPU {l}: GSP firmware not responding (Xid {xid}); GPU reset required"),
                              ("nvidia-smi", f"GPU {job.bus(l).upper()}:00.0: Timeout waiting for GSP; reset required")]
            scn.smi[ni] = [f"GPU {job.bus(l).upper()}:00.0: Unable to communicate with GPU (GSP timeout), "
                           f"GPU requires reset"]
        else:
            scn.add_kern(ni, t, nvrm_xid(job, l, 62, pid, f"{rng.randint(0, 9999):04d}({rng.randint(0, 9999):04d}) "
                                                          f"{hexs(rng, 8)} {hexs(rng, 8)}"))
            scn.add_kern(ni, t + 0.2, f"NVRM: GPU at PCI:{job.bus(l)}:00: {gpu_uuid(job, ni, l)}")
            scn.add_kern(ni, t + 0.2, f"NVRM: GPU Board Serial Number: {gpu_serial(job, ni, l)}")
            scn.health[ni] = [("dcgm", f"GPU {l}: Internal micro-controller halt detected (Xid 62), GPU reset required")]
            scn.smi[ni] = [f"GPU {job.bus(l).upper()}:00.0: Retired pages / Recovery action: GPU Reset Required"]
        # the process is stuck in the driver: no output from it, the others time out around it
        rest = Members(job, "rank", exclude=[r])
        t_end = add_watchdog(scn, rng, rest, t, seq, op, numel)
        add_exit(scn, Members(job, "rank", ids=[r]), lambda x: t_end + 30, "Killed", t_end + 30)
        scn.t_end = t_end + 40
        scn.notes = (f"GPU {l} of {job.host(ni)} (rank {r}) stopped responding (Xid {xid}); the process hung in the "
                     f"driver, all other ranks hit the NCCL watchdog timeout.")


def b_ecc(scn, rng):
    job = scn.job
    r, ni = pick_init(scn, rng)
    l = job.local(r)
    scn.init_rank, scn.init_node = r, ni
    t = scn.t_fail
    seq, op, numel = coll_point(job, rng)
    pid = job.pid(r)
    if rng.random() < 0.5:
        scn.add_kern(ni, t - 0.1, nvrm_xid(job, l, 48, pid, f"An uncorrectable double bit error (DBE) has been detected on "
                                                            f"GPU in the framebuffer at physAddr 0x{hexs(rng, 10)}."))
    scn.add_kern(ni, t - 0.05, nvrm_xid(job, l, 63, pid, "Row Remapper: New row (0x%s) marked for remapping, reset gpu to "
                                                         "activate." % hexs(rng, 9)))
    if rng.random() < 0.6:
        scn.add_kern(ni, t, nvrm_xid(job, l, 64, pid, f"Row Remapper Error: failed to remap row 0x{hexs(rng, 9)} "
                                                      f"(bank {rng.randint(0, 15)}): no spare rows left"))
    msg = "uncorrectable ECC error encountered"
    if rng.random() < 0.5:
        scn.ev(t + 0.5, "app", cuda_watchdog_err(job, r, t + 0.5, msg, rng), rank=r, ev=("rank",))
        st = rng.choice(["Aborted", "Aborted (core dumped)"])
    else:
        L = tb(entry_frames(job), [(f"  File \"{job.torch_site()}/nn/modules/module.py\", line 1747, in _call_impl"),
                                   "    return forward_call(*args, **kwargs)"] + cuda_err_tail(msg))
        scn.ev(t + 0.5, "app", job.wrap(r, L), rank=r, ev=("rank",))
        st = "Exited with exit code 1"
    add_exit(scn, Members(job, "rank", ids=[r]), lambda x: t + 1.4, st, t + 1.4, ev=("rank", "node"))
    scn.health[ni] = [("dcgm", f"Page Retirement/Row Remap: Fail - GPU: {l}"),
                      ("nvidia-smi", f"GPU {job.bus(l).upper()}:00.0 Remapped Rows Pending: Yes, Remapping Failure "
                                     f"Occurred: Yes, Volatile Uncorrectable ECC (DRAM): {rng.randint(1, 6)}")]
    scn.smi[ni] = ["    Remapped Rows",
                   "        Correctable Error                 : 0",
                   f"        Uncorrectable Error               : {rng.randint(1, 4)}",
                   "        Pending                           : Yes",
                   "        Remapping Failure Occurred        : Yes",
                   "    ECC Errors",
                   "        Volatile",
                   "            SRAM Correctable              : 0",
                   "            SRAM Uncorrectable            : 0",
                   "            DRAM Correctable              : 0",
                   f"            DRAM Uncorrectable            : {rng.randint(1, 6)}"]
    scn.t_end = survivors_after_death(scn, rng, r, ni, t + 1.4, seq, op, numel)
    scn.notes = f"Uncorrectable HBM ECC error on GPU {l} of {job.host(ni)} (rank {r}); row remapping failed."


def b_nvlink(scn, rng):
    job = scn.job
    r, ni = pick_init(scn, rng)
    l = job.local(r)
    scn.init_rank, scn.init_node = None, ni
    scn.node_level = True
    t = scn.t_fail
    seq, op, numel = coll_point(job, rng)
    link = rng.randint(0, 17)
    scn.add_kern(ni, t - 0.2, nvrm_xid(job, l, 74, job.pid(r),
                                       f"NVLink: fatal error detected on link {link}(0x0, 0x0, 0x{rng.choice(['10000', '20000', '400000'])}, "
                                       f"0x0, 0x0, 0x0, 0x0)"))
    if job.gpn == 8 and rng.random() < 0.6:
        sw = rng.randint(0, 3)
        port = rng.randint(0, 63)
        scn.add_kern(ni, t - 0.25, f"nvidia-nvswitch{sw}: SXid (PCI:0000:{['05', '06', '07', '08'][sw]}:00.0): 20034, "
                                   f"Fatal, Link {port} LTSSM Fault Up")
        scn.add_kern(ni, t - 0.25, f"nvidia-nvswitch{sw}: SXid (PCI:0000:{['05', '06', '07', '08'][sw]}:00.0): 20034, "
                                   f"Severity 5 Engine instance {port} Sub-engine instance 00")
        scn.add_kern(ni, t - 0.24, f"nvidia-nvswitch{sw}: SXid (PCI:0000:{['05', '06', '07', '08'][sw]}:00.0): 20034, "
                                   f"Data {{0x{hexs(rng, 8)}, 0x{hexs(rng, 8)}, 0x00000000, 0x00000000}}")
    affected = sorted(set([r] + rng.sample(range(ni * job.gpn, (ni + 1) * job.gpn), rng.randint(0, job.gpn - 1))))
    for k, x in enumerate(affected):
        tt = t + 0.3 + k * 0.07
        L = job.wrap(x, [job.nccl(x, "WARN", "Cuda failure 'uncorrectable NVLink error was detected during the execution'", k=1)])
        if rng.random() < 0.5:
            L += job.wrap(x, [job.nccl(x, "INFO", f"transport/p2p.cc:{rng.choice([275, 423])} -> 1", k=1)])
        L += cuda_watchdog_err(job, x, tt + 0.2, "uncorrectable NVLink error was detected during the execution", rng)
        scn.ev(tt, "app", L, rank=x, node=ni, ev=("node",))
    add_exit(scn, Members(job, "rank", ids=affected), lambda x: t + 1.5 + frac(x, 3), "Aborted (core dumped)", t + 1.5,
             ev=("node",))
    scn.health[ni] = [("dcgm", f"NVLink: GPU {l} link {link} is DOWN (fatal error, Xid 74)"),
                      ("nvidia-smi nvlink -s", f"GPU {l}: Link {link}: <inactive>")]
    scn.smi[ni] = [f"GPU {l}: {job.gpu} (UUID: {gpu_uuid(job, ni, l)})"] + \
                  [f"\t Link {k}: {'<inactive>' if k == link else '26.562 GB/s'}" for k in range(18)]
    scn.t_end = survivors_after_death(scn, rng, r, ni, t + 1.5, seq, op, numel, exclude_extra=affected)
    scn.notes = f"NVLink fatal error (Xid 74) on GPU {l} link {link} of {job.host(ni)}; {len(affected)} local ranks failed."


def b_network(scn, rng):
    job = scn.job
    r, ni = pick_init(scn, rng)
    l = job.local(r)
    scn.init_rank, scn.init_node = None, ni
    scn.node_level = True
    t = scn.t_fail
    seq, op, numel = coll_point(job, rng)
    dev, pci, ifn = job.nic(l)
    v = rng.choice(["linkdown", "fatal", "module"])
    if v == "module":
        scn.add_kern(ni, t - 2, f"mlx5_core {pci}: mlx5_port_module_event:{rng.choice([1145, 1167, 1172])}:(pid 0): Port "
                                f"module event[error]: module {l}, Cable error, {rng.choice(['High Temperature', 'Bus stuck (I2C or data shorted)', 'Power budget exceeded'])}")
    if v == "fatal":
        scn.add_kern(ni, t - 1, f"mlx5_core {pci}: poll_health:{rng.choice([803, 955])}:(pid 0): Fatal error 1 detected")
        scn.add_kern(ni, t - 1, f"mlx5_core {pci}: print_health_info:{rng.choice([424, 431])}:(pid 0): PCI slot 4 is unavailable")
        scn.add_kern(ni, t - 0.9, f"mlx5_core {pci}: mlx5_trigger_health_work:{rng.choice([760, 772])}:(pid 0): "
                                  f"new health works are not permitted at this stage")
    scn.add_kern(ni, t - 0.5, f"mlx5_core {pci} {ifn}: Link down")
    if rng.random() < 0.5:
        scn.add_kern(ni, t - 0.4, f"infiniband {dev}: mlx5_ib_event:{rng.choice([3145, 3211])}:(pid 0): warning: event on port 1")
    for k in range(rng.randint(0, 3)):
        scn.add_kern(ni, t + 20 + k * 37, f"mlx5_core {pci} {ifn}: Link up")
        scn.add_kern(ni, t + 22 + k * 37, f"mlx5_core {pci} {ifn}: Link down")
    rail = [x for x in range(ni * job.gpn, (ni + 1) * job.gpn) if job.local(x) == l or (job.gpn == 4 and job.local(x) == l)]
    for x in rail:
        ev = "async fatal event: local catastrophic error" if v == "fatal" else \
             ("Got async error event: port error" if job.nccl_ver >= "2.23" else "Got async event : port error")
        scn.ev(t - 0.3, "app", job.wrap(x, [job.nccl(x, "WARN", f"NET/IB : {dev}:1 {ev}", k=3)]), rank=x, node=ni,
               ev=("node",))
        nb = neighbours(job, ni, job.local(x), 2)
        w = nccl_remote_err(job, job.ip(job.node_of(nb[0])), dev)
        L = job.wrap(x, [job.nccl(x, "WARN", w, k=2)])
        L += watchdog_lines(job, x, t + 9, seq, op, numel, 0, True, rng=rng, err=f"[Rank {x}] " + dist_backend_err(job, w))
        scn.ev(t + 9, "app", L, rank=x, node=ni, ev=("node",))
    add_exit(scn, Members(job, "rank", ids=rail), lambda x: t + 10.5, "Aborted (core dumped)", t + 10.5, ev=("node",))
    peers = []
    for x in rail:
        peers += neighbours(job, ni, job.local(x), 2)
    add_peer_errors(scn, rng, peers, t, ni, seq, op, numel, kind="ib")
    rest = Members(job, "rank", exclude=set(rail) | set(peers))
    scn.t_end = add_watchdog(scn, rng, rest, t, seq, op, numel)
    scn.health[ni] = [("check_hw_ib", f"No IB port {dev}:1 is ACTIVE (LinkUp 400 Gb/sec)."),
                      ("ibstat", f"{dev} port 1: State: Down  Physical state: {rng.choice(['Polling', 'Disabled', 'LinkErrorRecovery'])}")]
    scn.notes = f"NIC {dev} ({ifn}) on {job.host(ni)} lost its link ({v}); IB errors on the rail, the rest timed out."


def b_cuda_oom(scn, rng):
    job = scn.job
    r, ni = pick_init(scn, rng)
    scn.init_rank, scn.init_node = r, ni
    t = scn.t_fail
    seq, op, numel = coll_point(job, rng)
    l = job.local(r)
    tot = job.gpu_mem
    free = rng.uniform(0.05, 1.4)
    alloc = tot - free - rng.uniform(1.0, 4.0)
    ask = rng.choice([1.0, 2.0, 3.5, 4.0, 8.0, 12.25, 20.0])
    name = "torch.OutOfMemoryError" if job.torch_new else "torch.cuda.OutOfMemoryError"
    site = job.torch_site()
    tail = [f'  File "{site}/nn/modules/module.py", line 1747, in _call_impl', "    return forward_call(*args, **kwargs)",
            f'  File "/usr/local/lib/python3.10/dist-packages/transformer_engine/pytorch/module/layernorm_mlp.py", '
            f'line {rng.randint(1400, 1600)}, in forward', "    out = fwd_fn(*args)",
            f"{name}: CUDA out of memory. Tried to allocate {ask:.2f} GiB. GPU {l} has a total capacity of {tot:.2f} GiB "
            f"of which {free * 1024:.2f} MiB is free. Including non-PyTorch memory, this process has {tot - free:.2f} GiB "
            f"memory in use. Of the allocated memory {alloc:.2f} GiB is allocated by PyTorch, and "
            f"{tot - free - alloc - 0.6:.2f} GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory "
            f"is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See "
            f"documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"]
    L = tb(entry_frames(job), tail)
    scn.ev(t, "app", job.wrap(r, L), rank=r, ev=("rank",))
    add_exit(scn, Members(job, "rank", ids=[r]), lambda x: t + 2.5, "Exited with exit code 1", t + 2.5,
             ev=("rank", "node"))
    scn.t_end = survivors_after_death(scn, rng, r, ni, t + 2.5, seq, op, numel)
    scn.notes = f"Rank {r} ({job.host(ni)} GPU {l}) ran out of GPU memory (asked {ask} GiB) after a long-sequence batch."


def b_illegal(scn, rng):
    job = scn.job
    r, ni = pick_init(scn, rng)
    scn.init_rank, scn.init_node = r, ni
    t = scn.t_fail
    seq, op, numel = coll_point(job, rng)
    l = job.local(r)
    pid = job.pid(r)
    if rng.random() < 0.5:
        msg = "an illegal memory access was encountered"
        scn.add_kern(ni, t - 0.2, nvrm_xid(job, l, 31, pid, f"Ch {rng.randint(8, 64):08x}, intr 00000000. MMU Fault: ENGINE "
                                                            f"GRAPHICS GPC{rng.randint(0, 7)} GPCCLIENT_T1_{rng.randint(0, 9)} "
                                                            f"faulted @ 0x7f{hexs(rng, 2)}_{hexs(rng, 8)}. Fault is of type "
                                                            f"FAULT_PDE ACCESS_TYPE_VIRT_READ"))
        if rng.random() < 0.5:
            scn.ev(t, "app", cuda_watchdog_err(job, r, t, msg, rng), rank=r, ev=("rank",))
            st = "Aborted (core dumped)"
        else:
            L = tb(entry_frames(job), [f'  File "/workspace/kernels/fused_moe.py", line {rng.randint(100, 400)}, in forward',
                                       "    torch.cuda.synchronize()"] + cuda_err_tail(msg))
            scn.ev(t, "app", job.wrap(r, L), rank=r, ev=("rank",))
            st = "Exited with exit code 1"
    else:
        msg = "device-side assert triggered"
        scn.add_kern(ni, t - 0.2, nvrm_xid(job, l, 43, pid, f"Ch {rng.randint(8, 64):08x}"))
        A = []
        for k in range(rng.randint(3, 9)):
            A.append(f"/pytorch/aten/src/ATen/native/cuda/Indexing.cu:1289: indexSelectLargeIndex: block: "
                     f"[{rng.randint(0, 9000)},0,0], thread: [{rng.randint(0, 127)},0,0] Assertion "
                     f"`srcIndex < srcSelectDimSize` failed.")
        L = A + tb(entry_frames(job), [f'  File "{job.torch_site()}/nn/functional.py", line 2551, in embedding',
                                       "    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)"]
                   + cuda_err_tail(msg))
        scn.ev(t, "app", job.wrap(r, L), rank=r, ev=("rank",))
        st = "Exited with exit code 1"
    add_exit(scn, Members(job, "rank", ids=[r]), lambda x: t + 1.8, st, t + 1.8, ev=("rank", "node"))
    scn.t_end = survivors_after_death(scn, rng, r, ni, t + 1.8, seq, op, numel)
    scn.notes = f"Rank {r} hit a CUDA {msg} in a custom kernel; the others followed."


PY_EXC = [
    ("data", lambda j, rng: ["FileNotFoundError: [Errno 2] No such file or directory: "
                             f"'{j.base_dir}/data/{j.model.split('-')[0]}_mix/shard_{rng.randint(0, 99999):05d}.bin'"]),
    ("data", lambda j, rng: [f"ValueError: cannot reshape array of size {rng.randint(1000, 9000)} into shape "
                             f"({j.seq + 1},)"]),
    ("data", lambda j, rng: [f"KeyError: '{rng.choice(['input_ids', 'text', 'tokens', 'loss_mask'])}'"]),
    ("data", lambda j, rng: [f"UnicodeDecodeError: 'utf-8' codec can't decode byte 0x{hexs(rng, 2)} in position "
                             f"{rng.randint(0, 4000)}: invalid start byte"]),
    ("model", lambda j, rng: [f"RuntimeError: shape '[{rng.choice([1, 2, 4])}, {j.seq}, {rng.choice([8, 16, 64])}, 128]' "
                              f"is invalid for input of size {rng.randint(10 ** 7, 10 ** 8)}"]),
    ("model", lambda j, rng: [f"AssertionError: expected {j.seq} tokens per sample, got {j.seq - rng.randint(1, 40)}"]),
    ("model", lambda j, rng: ["TypeError: 'NoneType' object is not subscriptable"]),
    ("model", lambda j, rng: [f"IndexError: index {rng.randint(128257, 200000)} is out of bounds for dimension 0 with "
                              f"size 128256"]),
]


def b_python_exc(scn, rng):
    job = scn.job
    r, ni = pick_init(scn, rng)
    scn.init_rank, scn.init_node = r, ni
    t = scn.t_fail
    seq, op, numel = coll_point(job, rng)
    kind, fn = rng.choice(PY_EXC)
    exc = fn(job, rng)
    if kind == "data":
        L = tb(entry_frames(job, "data"), ["FileNotFoundError: Caught FileNotFoundError in DataLoader worker process 3."
                                           if exc[0].startswith("FileNotFound") else
                                           f"{exc[0].split(':')[0]}: Caught {exc[0].split(':')[0]} in DataLoader worker "
                                           f"process {rng.randint(0, 7)}.",
                                           "Original Traceback (most recent call last):",
                                           f'  File "{job.torch_site()}/utils/data/_utils/worker.py", line 351, in _worker_loop',
                                           "    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]",
                                           f'  File "/workspace/data/indexed_dataset.py", line {rng.randint(200, 700)}, in __getitem__',
                                           "    sample = self._read(idx)"] + exc)
    else:
        L = tb(entry_frames(job), [f'  File "/workspace/model/attention.py", line {rng.randint(80, 500)}, in forward',
                                   "    q = q.view(b, s, self.num_heads, self.head_dim)"] + exc)
    scn.ev(t, "app", job.wrap(r, L), rank=r, ev=("rank",))
    add_exit(scn, Members(job, "rank", ids=[r]), lambda x: t + 2.0, "Exited with exit code 1", t + 2.0,
             ev=("rank", "node"))
    scn.t_end = survivors_after_death(scn, rng, r, ni, t + 2.0, seq, op, numel)
    scn.notes = f"Uncaught {exc[0].split(':')[0]} on rank {r} ({job.host(ni)})."


def oom_kern(job, ni, t, pid, comm, rss_kb, local, rng):
    cg = f"/slurm/uid_{job.uid}/job_{job.jobid}"
    L = [f"{comm} invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0",
         f"CPU: {rng.randint(0, 191)} PID: {pid + rng.randint(1, 60)} Comm: {comm} Tainted: P           OE     "
         f"5.15.0-{rng.randint(90, 130)}-generic #{rng.randint(100, 140)}-Ubuntu",
         "Call Trace:", " <TASK>", " dump_stack_lvl+0x4a/0x63", " dump_header+0x4a/0x1f3",
         " oom_kill_process.cold+0xb/0x10", " out_of_memory+0x1bd/0x4f0", " mem_cgroup_out_of_memory+0x136/0x150",
         " try_charge_memcg+0x6c0/0x790", " </TASK>",
         f"memory: usage {rss_kb + rng.randint(1000, 90000)}kB, limit {rss_kb + rng.randint(1000, 90000)}kB, failcnt "
         f"{rng.randint(10, 9000)}",
         f"Memory cgroup stats for {cg}:",
         f"oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0-1,oom_memcg={cg},"
         f"task_memcg={cg}/step_0/user/task_{local},task={comm},pid={pid},uid={job.uid}",
         f"Memory cgroup out of memory: Killed process {pid} ({comm}) total-vm:{rss_kb + rng.randint(10 ** 7, 9 * 10 ** 7)}kB, "
         f"anon-rss:{rss_kb}kB, file-rss:{rng.randint(100000, 900000)}kB, shmem-rss:{rng.randint(0, 4000000)}kB, "
         f"UID:{job.uid} pgtables:{rng.randint(100000, 500000)}kB oom_score_adj:0"]
    return [(t + k * 0.001, x) for k, x in enumerate(L)]


def b_host_oom(scn, rng):
    job = scn.job
    r, ni = pick_init(scn, rng)
    scn.init_rank, scn.init_node = r, ni
    t = scn.t_fail
    seq, op, numel = coll_point(job, rng)
    worker = rng.random() < 0.45
    rss = rng.randint(150, 420) * 1024 * 1024
    if worker:
        wpid = job.pid(r) + 1000 + rng.randint(1, 900)
        for tt, x in oom_kern(job, ni, t, wpid, "pt_data_worker" if rng.random() < 0.5 else "python", rss // 8, job.local(r), rng):
            scn.add_kern(ni, tt, x)
        L = tb(entry_frames(job, "data")[:-3] +
               [(f"{job.torch_site()}/utils/data/dataloader.py", 1328, "_next_data", "idx, data = self._get_data()"),
                (f"{job.torch_site()}/utils/data/dataloader.py", 1284, "_get_data", "success, data = self._try_get_data()"),
                (f"{job.torch_site()}/utils/data/dataloader.py", 1145, "_try_get_data",
                 "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e")],
               [f"RuntimeError: DataLoader worker (pid(s) {wpid}) exited unexpectedly"])
        scn.ev(t + 3, "app", job.wrap(r, L), rank=r, ev=("rank",))
        st = "Exited with exit code 1"
        te = t + 4
    else:
        for tt, x in oom_kern(job, ni, t, job.pid(r), "python", rss, job.local(r), rng):
            scn.add_kern(ni, tt, x)
        st = "Out Of Memory" if job.launch == "srun" else "Killed"
        te = t + 0.5
    scn.ev(t + 1.0, "stepd", [f"slurmstepd: error: Detected 1 oom_kill event in StepId={job.jobid}.0. Some of the step "
                              f"tasks have been OOM Killed."], node=ni)
    add_exit(scn, Members(job, "rank", ids=[r]), lambda x: te, st, te, ev=("rank", "node"))
    scn.t_end = survivors_after_death(scn, rng, r, ni, te, seq, op, numel)
    scn.exit_code = "0:125" if rng.random() < 0.3 else "1:0"
    scn.state = "OUT_OF_MEMORY" if not worker and rng.random() < 0.5 else "FAILED"
    scn.notes = (f"Host memory cgroup OOM on {job.host(ni)}: the kernel killed "
                 f"{'a dataloader worker of' if worker else 'the training process of'} rank {r}.")


def b_crash(scn, rng):
    job = scn.job
    r, ni = pick_init(scn, rng)
    scn.init_rank, scn.init_node = r, ni
    t = scn.t_fail
    seq, op, numel = coll_point(job, rng)
    site = job.torch_site()
    v = rng.choice(["segv", "segv", "abrt"])
    if v == "segv":
        L = ["Fatal Python error: Segmentation fault", "",
             f"Thread 0x00007f{hexs(rng, 10)} (most recent call first):",
             '  File "/usr/lib/python3.10/threading.py", line 324 in wait',
             '  File "/usr/lib/python3.10/threading.py", line 607 in wait',
             '  File "/usr/local/lib/python3.10/dist-packages/tqdm/_monitor.py", line 60 in run',
             '  File "/usr/lib/python3.10/threading.py", line 1016 in _bootstrap_inner',
             '  File "/usr/lib/python3.10/threading.py", line 973 in _bootstrap', "",
             f"Current thread 0x00007f{hexs(rng, 10)} (most recent call first):",
             f'  File "{site}/autograd/graph.py", line 768 in _engine_run_backward',
             f'  File "{site}/autograd/__init__.py", line 289 in backward',
             '  File "/workspace/Megatron-LM/megatron/core/pipeline_parallel/schedules.py", line 360 in backward_step'
             if job.framework != "torchtitan" else f'  File "{job.script()}", line 440 in forward_backward_step',
             "  ...", "",
             "Extension modules: numpy.core._multiarray_umath, numpy.core._multiarray_tests, numpy.linalg._umath_linalg, "
             "torch._C, torch._C._fft, torch._C._linalg, torch._C._nested, torch._C._nn, torch._C._sparse, "
             "torch._C._special, zstandard.backend_c, yaml._yaml, sentencepiece._sentencepiece (total: 97)"]
        st = "Segmentation fault (core dumped)" if job.launch == "srun" else "Segmentation fault"
        if rng.random() < 0.6:
            scn.add_kern(ni, t, f"python[{job.pid(r)}]: segfault at {rng.choice(['0', '8', '18', '7f' + hexs(rng, 10)])} "
                                f"ip 00007f{hexs(rng, 10)} sp 00007ff{hexs(rng, 9)} error {rng.choice([4, 6])} in "
                                f"{rng.choice(['libtorch_cuda.so', 'libc.so.6', 'libnccl.so.2', '_C.cpython-310-x86_64-linux-gnu.so'])}"
                                f"[7f{hexs(rng, 6)}0000+{hexs(rng, 7)}] likely on CPU {rng.randint(0, 191)} "
                                f"(core {rng.randint(0, 47)}, socket {rng.randint(0, 1)})")
            scn.add_kern(ni, t, f"Code: {' '.join(hexs(rng, 2) for _ in range(20))} <{hexs(rng, 2)}> "
                                f"{' '.join(hexs(rng, 2) for _ in range(10))}")
    else:
        L = [rng.choice(["double free or corruption (!prev)", "free(): invalid next size (fast)",
                         "corrupted size vs. prev_size", "malloc(): unsorted double linked list corrupted"])]
        st = "Aborted (core dumped)"
    scn.ev(t, "app", job.wrap(r, L), rank=r, ev=("rank",))
    add_exit(scn, Members(job, "rank", ids=[r]), lambda x: t + 0.3, st, t + 0.3, ev=("rank", "node"))
    scn.t_end = survivors_after_death(scn, rng, r, ni, t + 0.3, seq, op, numel)
    scn.notes = f"Rank {r} on {job.host(ni)} died from {'SIGSEGV' if v == 'segv' else 'SIGABRT (heap corruption)'}; no hardware errors."


def b_preempt(scn, rng):
    job = scn.job
    t = scn.t_fail
    v = rng.choice(["preempt", "preempt", "timelimit", "requeue"])
    why = "DUE TO TIME LIMIT" if v == "timelimit" else "DUE TO PREEMPTION"
    h0 = job.hosts[0]
    scn.ev(t, "srun", ["srun: Job step aborted: Waiting up to 32 seconds for job step to finish."])
    scn.ev(t + 0.1, "stepd", [f"slurmstepd: error: *** JOB {job.jobid} ON {h0} CANCELLED AT {job.ts_slurm(t, 0)} {why} ***"])
    scn.ev(t + 0.2, "stepd", [f"slurmstepd: error: *** STEP {job.jobid}.0 ON {h0} CANCELLED AT {job.ts_slurm(t, 0)} {why} ***"])
    allr = Members(job, "rank")
    if job.framework == "megatron" and rng.random() < 0.6:
        scn.ev(t + 2, "app", job.wrap(0, [f"exiting program after receiving SIGTERM. datetime: {job.ts_br(t + 2, 0)[1:-1]}"]),
               rank=0)
    stuck = rng.sample(range(job.world), rng.randint(1, 12)) if rng.random() < 0.4 else []
    add_exit(scn, Members(job, "rank", exclude=stuck), lambda r: t + 1.0 + frac(r, 29) * 3, "Terminated", t + 1.0)
    if stuck:
        add_exit(scn, Members(job, "rank", ids=stuck), lambda r: t + 32.5, "Killed", t + 32.5)
        scn.ev(t + 32.3, "srun", ["srun: got SIGCONT", "srun: forcing job termination"])
    scn.state = {"timelimit": "TIMEOUT", "preempt": "PREEMPTED", "requeue": "PREEMPTED"}[v]
    scn.exit_code = "0:15"
    scn.t_end = t + 40
    scn.preempt_kind = v
    scn.notes = {"timelimit": "Job reached its wall-clock limit; Slurm sent SIGTERM to every task.",
                 "preempt": "A higher-priority reservation preempted the job (PreemptMode=CANCEL).",
                 "requeue": "Preempted for a maintenance reservation; job was requeued by Slurm."}[v]


HANG_STACKS = [
    ["wait (threading.py:324)", "result (concurrent/futures/_base.py:453)",
     "maybe_finalize_async_save (megatron/training/checkpointing.py:{n})", "train (megatron/training/training.py:1422)",
     "pretrain (megatron/training/training.py:386)", "<module> (pretrain_gpt.py:297)"],
    ["recv_into (ssl.py:1307)", "readinto (socket.py:720)", "_read_status (http/client.py:279)",
     "begin (http/client.py:318)", "getresponse (http/client.py:1375)", "_send_metrics (trainer/telemetry.py:{n})",
     "log_step (trainer/telemetry.py:88)", "train (megatron/training/training.py:1461)"],
    ["_flatten_dense_tensors (torch/_utils.py:526)", "allreduce_grads (megatron/core/distributed/finalize_model_grads.py:{n})",
     "finalize_model_grads (megatron/core/distributed/finalize_model_grads.py:244)",
     "forward_backward_pipelining_without_interleaving (megatron/core/pipeline_parallel/schedules.py:1594)"],
    ["acquire (filelock/_api.py:{n})", "__enter__ (filelock/_api.py:376)", "get_cached_index (data/blended_dataset.py:212)",
     "__getitem__ (data/blended_dataset.py:96)", "fetch (torch/utils/data/_utils/fetch.py:52)"],
]


def pyspy_dump(job, r, frames, rng, thread="MainThread", state="idle"):
    L = [f"Process {job.pid(r)}: /usr/bin/python3 -u {job.script()} --distributed-timeout-minutes {job.timeout_s // 60} ...",
         "Python v3.10.12 (/usr/bin/python3.10)", "",
         f"Thread {job.pid(r)} ({state}): \"{thread}\""]
    L += ["    " + f.replace("{n}", str(rng.randint(100, 900))) for f in frames]
    L += ["", f"Thread {job.pid(r) + 71} (idle): \"Thread-2 (_pin_memory_loop)\"", "    select (selectors.py:416)",
          "    wait (multiprocessing/connection.py:931)", "    _poll (multiprocessing/connection.py:424)",
          "    poll (multiprocessing/connection.py:257)", "    get (multiprocessing/queues.py:113)",
          "    do_one_step (torch/utils/data/_utils/pin_memory.py:31)",
          "    _pin_memory_loop (torch/utils/data/_utils/pin_memory.py:55)"]
    return L


def pyspy_waiting(job, r, rng):
    if rng.random() < 0.5:
        fr = ["training_log (megatron/training/training.py:{n})", "train (megatron/training/training.py:1469)",
              "pretrain (megatron/training/training.py:386)", "<module> (pretrain_gpt.py:297)"]
    else:
        fr = ["synchronize (torch/cuda/__init__.py:954)", "train_step (megatron/training/training.py:{n})",
              "train (megatron/training/training.py:1400)", "pretrain (megatron/training/training.py:386)",
              "<module> (pretrain_gpt.py:297)"]
    return pyspy_dump(job, r, fr, rng, state="active")


def b_hang(scn, rng):
    job = scn.job
    r, ni = pick_init(scn, rng)
    scn.init_rank, scn.init_node = r, ni
    t = scn.t_fail
    seq, op, numel = coll_point(job, rng)
    others = Members(job, "rank", exclude=[r])
    t_end = add_watchdog(scn, rng, others, t, seq, op, numel, enq=seq)
    scn.hang_seq = (seq, op, numel)
    if job.launch == "torchrun":
        add_exit(scn, Members(job, "rank", ids=[r]), lambda x: t_end + 1.0, "Terminated", t_end + 1.0)
        scn.t_end = t_end + 20
    else:
        tk = t_end + rng.uniform(300, 5400)
        scn.ev(tk, "srun", ["srun: Job step aborted: Waiting up to 32 seconds for job step to finish."])
        scn.ev(tk + 0.1, "stepd", [f"slurmstepd: error: *** JOB {job.jobid} ON {job.hosts[0]} CANCELLED AT "
                                   f"{job.ts_slurm(tk, 0)} ***"])
        add_exit(scn, Members(job, "rank", ids=[r]), lambda x: tk + 32.4, "Killed", tk + 32.4)
        scn.state = "CANCELLED"
        scn.exit_code = "0:9"
        scn.t_end = tk + 40
    stack = rng.choice(HANG_STACKS)
    scn.pyspy[r] = pyspy_dump(job, r, stack, rng)
    scn.ras = dict(kind="counts", low=[r], seq=seq, op=op)
    scn.fr = dict(kind="missing", ranks=[r], seq=seq, op=op, numel=numel)
    scn.hb = dict(kind="section", rank=r)
    scn.notes = (f"Rank {r} ({job.host(ni)}) stopped making progress ({stack[0].split(' ')[0]}); every other rank "
                 f"waited in {op} #{seq} until the {job.timeout_s}s NCCL timeout.")


FS_KERN = {
    "lustre": lambda job, rng, fsip: [
        f"Lustre: {rng.randint(3000, 9000)}:0:(client.c:2310:ptlrpc_expire_one_request()) @@@ Request sent has timed out "
        f"for slow reply: [sent {rng.randint(1700000000, 1760000000)}/real {rng.randint(1700000000, 1760000000)}]  "
        f"req@{hexs(rng, 16)} x{rng.randint(10 ** 15, 10 ** 16)}/t0(0) o3->scratch-OST{rng.randint(0, 255):04x}-osc-ff"
        f"ff{hexs(rng, 12)}@{fsip}@o2ib:6/4 lens 488/440 e 0 to 1 dl {rng.randint(1700000000, 1760000000)} ref 2 "
        f"fl Rpc:Xr/0/ffffffff rc 0/-1 job:'python.{job.uid}'",
        f"Lustre: scratch-OST{rng.randint(0, 255):04x}-osc-ffff{hexs(rng, 12)}: Connection to scratch-OST"
        f"{rng.randint(0, 255):04x} (at {fsip}@o2ib) was lost; in progress operations using this service will wait for "
        f"recovery to complete"],
    "nfs": lambda job, rng, fsip: [f"nfs: server {fsip} not responding, still trying"] * 2,
    "weka": lambda job, rng, fsip: [f"wekafs: [{rng.randint(1000, 9999)}] request timeout to backend {fsip}, retrying "
                                    f"(op=READ, ino={rng.randint(10 ** 8, 10 ** 9)})"],
    "gpfs": lambda job, rng, fsip: [f"mmfs: [E] The TCP connection to IP address {fsip} some-nsd-{rng.randint(1, 40):02d} "
                                    f"(socket {rng.randint(30, 90)}) state is unexpected: ca_state=4 unacked=3"],
}


def b_dl_stall(scn, rng):
    job = scn.job
    r, ni = pick_init(scn, rng)
    scn.init_rank, scn.init_node = r, ni
    scn.dl_rank = r
    t = scn.t_fail
    seq, op, numel = coll_point(job, rng)
    fsip = f"10.{rng.randint(200, 250)}.{rng.randint(0, 9)}.{rng.randint(2, 250)}"
    wpid = job.pid(r) + 1200 + rng.randint(1, 400)
    kern_on = rng.random() < 0.85
    if kern_on:
        for k, x in enumerate(FS_KERN[job.fs](job, rng, fsip)):
            scn.add_kern(ni, t - 30 + k * 12, x)
        for k in range(rng.randint(1, 3)):
            tt = t + 123 * (k + 1)
            scn.add_kern(ni, tt, f"INFO: task pt_data_worker:{wpid + k} blocked for more than {120 * (k + 1) + rng.randint(1, 5)} seconds.")
            scn.add_kern(ni, tt, f"      Tainted: P           OE     5.15.0-{rng.randint(90, 130)}-generic #{rng.randint(100, 140)}-Ubuntu")
            scn.add_kern(ni, tt, "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.")
            scn.add_kern(ni, tt, f"task:pt_data_worker  state:D stack:0     pid:{wpid + k} ppid:{job.pid(r)} flags:0x00000002")
    stack = ["_recv (multiprocessing/connection.py:379)", "recv_bytes (multiprocessing/connection.py:216)",
             "get (multiprocessing/queues.py:113)", "_try_get_data (torch/utils/data/dataloader.py:1133)",
             "_get_data (torch/utils/data/dataloader.py:1284)", "_next_data (torch/utils/data/dataloader.py:1328)",
             "__next__ (torch/utils/data/dataloader.py:701)", "get_batch_on_this_tp_rank (megatron/training/utils.py:308)",
             "get_batch (pretrain_gpt.py:138)", "forward_step (pretrain_gpt.py:206)"]
    scn.pyspy[r] = pyspy_dump(job, r, stack, rng)
    dl_to = rng.choice([0, 0, 300, 600, 1200])
    if dl_to and dl_to < job.timeout_s:
        tt = t + dl_to
        L = tb(entry_frames(job, "data")[:-3] +
               [(f"{job.torch_site()}/utils/data/dataloader.py", 1284, "_get_data", "success, data = self._try_get_data()"),
                (f"{job.torch_site()}/utils/data/dataloader.py", 1145, "_try_get_data",
                 "raise RuntimeError(f'DataLoader timed out after {timeout} seconds') from e")],
               [f"RuntimeError: DataLoader timed out after {dl_to} seconds"])
        scn.ev(tt, "app", job.wrap(r, L), rank=r, ev=("rank",))
        add_exit(scn, Members(job, "rank", ids=[r]), lambda x: tt + 2, "Exited with exit code 1", tt + 2, ev=("rank", "node"))
        scn.t_end = survivors_after_death(scn, rng, r, ni, tt + 2, seq, op, numel)
        scn.ras = dict(kind="counts", low=[r], seq=seq, op=op)
    else:
        others = Members(job, "rank", exclude=[r])
        t_end = add_watchdog(scn, rng, others, t, seq, op, numel, enq=seq)
        if job.launch == "torchrun":
            add_exit(scn, Members(job, "rank", ids=[r]), lambda x: t_end + 1.0, "Terminated", t_end + 1.0)
            scn.t_end = t_end + 20
        else:
            tk = t_end + rng.uniform(300, 3600)
            scn.ev(tk, "srun", ["srun: Job step aborted: Waiting up to 32 seconds for job step to finish."])
            scn.ev(tk + 0.1, "stepd", [f"slurmstepd: error: *** JOB {job.jobid} ON {job.hosts[0]} CANCELLED AT "
                                       f"{job.ts_slurm(tk, 0)} ***"])
            add_exit(scn, Members(job, "rank", ids=[r]), lambda x: tk + 32.4, "Killed", tk + 32.4)
            scn.state = "CANCELLED"
            scn.exit_code = "0:9"
            scn.t_end = tk + 40
        scn.ras = dict(kind="counts", low=[r], seq=seq, op=op)
        scn.fr = dict(kind="missing", ranks=[r], seq=seq, op=op, numel=numel)
    scn.hb = dict(kind="storage", rank=r)
    if kern_on:
        scn.health[ni] = [("check_fs_mount", f"{job.base_dir.split('/')[1]} mount on {job.host(ni)} is not responding "
                                             f"(stat timed out after 30s)")]
    scn.fs_ip = fsip
    scn.notes = (f"Rank {r} on {job.host(ni)} blocked reading training data ({job.fs} client lost its server "
                 f"{fsip}); the other ranks waited in {op} until the NCCL timeout.")


def fp(job, seq, op, shape, dtype="Float"):
    return (f"CollectiveFingerPrint(SequenceNumber={seq}, OpType={op}, TensorShape=[{shape}], TensorDtypes={dtype}, "
            f"TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), "
            f"requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))")


def b_mismatch(scn, rng):
    job = scn.job
    r, ni = pick_init(scn, rng)
    scn.init_rank, scn.init_node = r, ni
    t = scn.t_fail
    seq, op, numel = coll_point(job, rng)
    v = rng.choice(["detail", "watchdog", "watchdog"])
    op2 = rng.choice([o for o in ["ALLGATHER", "BROADCAST", "_REDUCE_SCATTER_BASE", "ALLREDUCE"] if o != op])
    if v == "detail":
        s2 = rng.randint(20, 4000)
        a = fp(job, s2, "ALLREDUCE", numel)
        b = fp(job, s2, op2 if op2 != "ALLREDUCE" else "BROADCAST", max(1, numel // 4))
        site = job.torch_site()
        frames = entry_frames(job)[:3] + [(f"{site}/distributed/c10d_logger.py", 83, "wrapper",
                                           "return func(*args, **kwargs)"),
                                          (f"{site}/distributed/distributed_c10d.py", 2501, "all_reduce",
                                           "work = group.allreduce([tensor], opts)")]
        allr = Members(job, "rank", exclude=[r])

        def mk(x, tt, full):
            L = tb(frames, [f"RuntimeError: Detected mismatch between collectives on ranks. Rank {x} is running "
                            f"collective: {a}, but Rank {r} is running collective: {b}.Collectives differ in the "
                            f"following aspects: \t Op type: ALLREDUCEvs {b.split('OpType=')[1].split(',')[0]}"
                            f"  Tensor Tensor shapes: {numel}vs {max(1, numel // 4)}"]) if full else \
                [f"RuntimeError: Detected mismatch between collectives on ranks. Rank {x} is running collective: {a}, "
                 f"but Rank {r} is running collective: {b}."]
            return job.wrap(x, L)
        scn.masses.append(Mass("detail_mismatch", allr, lambda x: t + 1 + frac(x, 31) * 5, mk, keep=(3, 8),
                               ev=("rank",)))
        own = tb(frames, [f"RuntimeError: Detected mismatch between collectives on ranks. Rank {r} is running "
                          f"collective: {b}, but Rank 0 is running collective: {a}."])
        scn.ev(t + 1.5, "app", job.wrap(r, own), rank=r, ev=("rank",))
        add_exit(scn, Members(job, "rank"), lambda x: t + 3 + frac(x, 37) * 6, "Exited with exit code 1", t + 3)
        scn.t_end = t + 20
        scn.mm_kind = "detail"
    else:
        n2 = numel if rng.random() < 0.5 else max(1, numel - rng.randint(1, 4096))
        o2 = op if n2 != numel else op2
        others = Members(job, "rank", exclude=[r])
        t_end = add_watchdog(scn, rng, others, t, seq, op, numel, enq=seq)
        L = watchdog_lines(job, r, t + job.timeout_s + 1.7, seq, o2, n2, job.timeout_s * 1000 + 1700, True,
                           last_enq=seq, rng=rng)
        scn.ev(t + job.timeout_s + 1.7, "app", L, rank=r, ev=("rank",), tag="mm")
        add_exit(scn, Members(job, "rank", ids=[r]), lambda x: t + job.timeout_s + 3.5,
                 rng.choice(["Aborted", "Aborted (core dumped)"]), t + job.timeout_s + 3.5)
        scn.t_end = t_end
        scn.mm_kind = "watchdog"
        scn.mm = (seq, op, numel, o2, n2)
    scn.ras = dict(kind="opmismatch", low=[r], seq=seq, op=op, op2=op2)
    scn.fr = dict(kind="mismatch", ranks=[r], seq=seq, op=op, numel=numel, op2=op2)
    scn.notes = (f"Rank {r} issued a different collective ({op2 if v == 'detail' else 'size/op mismatch'}) than the rest "
                 f"at the same sequence number (a rank-dependent code path).")


def b_straggler(scn, rng, w2, it_w2):
    """Persistent slow rank/node. Returns True when training lines were generated here."""
    job = scn.job
    r, ni = pick_init(scn, rng)
    node_lvl = rng.random() < 0.3
    scn.init_rank, scn.init_node = (None if node_lvl else r), ni
    scn.node_level = node_lvl
    t_slow = w2 + rng.uniform(300, 1500)
    fac = rng.uniform(1.18, 1.7)
    scn.slow = (t_slow, fac)
    l = job.local(r)
    if node_lvl:
        dev, pci, ifn = job.nic(l)
        scn.add_kern(ni, t_slow - 40, f"mlx5_core {pci} {ifn}: Link down")
        scn.add_kern(ni, t_slow - 37, f"mlx5_core {pci} {ifn}: Link up")
        scn.health[ni] = [("ibstat", f"{dev} port 1: Rate: 100 (expected 400)  Physical state: LinkUp  "
                                     f"(link retrained at reduced width 1X)")]
    else:
        if rng.random() < 0.5:
            bus = job.bus(l)
            scn.add_kern(ni, -86400 * 2.3, f"nvidia {bus}:00.0: 63.008 Gb/s available PCIe bandwidth, limited by 16.0 GT/s "
                                           f"PCIe x4 link at {job.pcie_port(l)} (capable of "
                                           f"504.112 Gb/s with 32.0 GT/s PCIe x16 link)")
            port = job.pcie_port(l)
            for k in range(rng.randint(2, 6)):
                tt = t_slow - rng.uniform(30, 900) + k * rng.uniform(1, 200)
                scn.add_kern(ni, tt, f"pcieport {port}: AER: Corrected error received: {bus}:00.0")
                scn.add_kern(ni, tt, f"nvidia {bus}:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, "
                                     f"(Receiver ID)")
                scn.add_kern(ni, tt, f"nvidia {bus}:00.0:   device [10de:{job.pci_id()}] error status/mask=00000001/0000e000")
                scn.add_kern(ni, tt, f"nvidia {bus}:00.0:    [ 0] RxErr                  (First)")
            scn.health[ni] = [("dcgm", f"PCIe: GPU {l} link width x4 (expected x16)")]
        else:
            scn.smi[ni] = ["    Clocks Event Reasons",
                           "        Idle                              : Not Active",
                           "        Applications Clocks Setting       : Not Active",
                           "        SW Power Cap                      : Not Active",
                           "        HW Slowdown                       : Active",
                           "            HW Thermal Slowdown           : Active",
                           "            HW Power Brake Slowdown       : Not Active",
                           "        SW Thermal Slowdown               : Active",
                           f"    Temperature",
                           f"        GPU Current Temp                  : {rng.randint(87, 95)} C",
                           f"        GPU T.Limit Temp                  : -{rng.randint(1, 4)} C"]
            scn.health[ni] = [("dcgm", f"GPU {l}: clocks throttled (HW thermal slowdown), temperature {rng.randint(87, 95)}C")]
    srank = r if not node_lvl else None
    t_stop = w2 + rng.uniform(2400, 9000)
    evs = training_lines(job, scn, rng, w2, t_stop, it_w2, slow=scn.slow, strag_every=rng.choice([1, 2, 3]),
                         strag_rank=(srank if srank is not None else ni * job.gpn + rng.randrange(job.gpn)))
    scn.evs += evs
    scn.t_fail = t_slow
    end = rng.choice(["cancel", "cancel", "running"])
    if end == "cancel":
        tk = t_stop + rng.uniform(5, 60)
        scn.ev(tk, "srun", ["srun: Job step aborted: Waiting up to 32 seconds for job step to finish."])
        scn.ev(tk + 0.1, "stepd", [f"slurmstepd: error: *** JOB {job.jobid} ON {job.hosts[0]} CANCELLED AT "
                                   f"{job.ts_slurm(tk, 0)} ***"])
        add_exit(scn, Members(job, "rank"), lambda x: tk + 1 + frac(x, 41) * 2, "Terminated", tk + 1)
        scn.state = "CANCELLED"
        scn.exit_code = "0:15"
        scn.t_end = tk + 40
    else:
        scn.state = "RUNNING"
        scn.exit_code = "0:0"
        scn.t_end = t_stop + 30
    scn.strag = dict(rank=srank, node=ni, fac=fac, t_slow=t_slow, ranks=([srank] if srank is not None else
                                                                          list(range(ni * job.gpn, (ni + 1) * job.gpn))))
    scn.notes = (f"{'Node ' + job.host(ni) + ' (degraded NIC)' if node_lvl else 'Rank %d on %s (GPU %d)' % (r, job.host(ni), l)}"
                 f" is persistently slow; iteration time grew by x{fac:.2f} and the job was "
                 f"{'cancelled by the user' if end == 'cancel' else 'still running when the bundle was taken'}.")
    return True


def b_unknown(scn, rng):
    job = scn.job
    t = scn.t_fail
    seq, op, numel = coll_point(job, rng)
    v = rng.choice(["silent_timeout", "silent_timeout", "node_fail", "silent_exit"])
    scn.unk_kind = v
    if v == "silent_timeout":
        allr = Members(job, "rank")
        scn.t_end = add_watchdog(scn, rng, allr, t, seq, op, numel, enq=seq)
        scn.ras = dict(kind="stuck_all", seq=seq, op=op)
        scn.notes = "Every rank timed out in the same collective; nothing in the attached logs shows why."
    elif v == "node_fail":
        r, ni = pick_init(scn, rng)
        scn.init_node = ni
        scn.node_level = True
        scn.ev(t + rng.uniform(30, 90), "srun", [f"srun: error: Node failure on {job.host(ni)}"], node=ni, ev=("node",))
        peers = []
        for l in range(job.gpn):
            peers += neighbours(job, ni, l, 2)
        add_peer_errors(scn, rng, peers, t, ni, seq, op, numel, kind=rng.choice(["closed", "ib"]))
        rest = Members(job, "rank", exclude=set(peers) | set(range(ni * job.gpn, (ni + 1) * job.gpn)))
        scn.t_end = add_watchdog(scn, rng, rest, t, seq, op, numel)
        tn = t + rng.uniform(100, 300)
        scn.ev(tn, "stepd", [f"slurmstepd: error: *** JOB {job.jobid} ON {job.hosts[0]} CANCELLED AT "
                             f"{job.ts_slurm(tn, 0)} DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***"])
        scn.state = "NODE_FAIL"
        scn.exit_code = "0:0"
        scn.add_kern(ni, t + 420, "Linux version 5.15.0-119-generic (buildd@lcy02-amd64-075) (gcc (Ubuntu 11.4.0-1ubuntu1~22.04) "
                                  "11.4.0, GNU ld (GNU Binutils for Ubuntu) 2.38) #129-Ubuntu SMP Fri Aug 2 19:25:20 UTC 2024")
        scn.add_kern(ni, t + 420, "Command line: BOOT_IMAGE=/vmlinuz-5.15.0-119-generic root=UUID=%s ro console=tty0 "
                                  "console=ttyS0,115200n8 pci=realloc=off iommu=pt" % (hexs(rng, 8) + "-" + hexs(rng, 4)))
        scn.node_rebooted = ni
        scn.notes = f"{job.host(ni)} dropped out (node failure, rebooted); no kernel messages before the reboot."
    else:
        r, ni = pick_init(scn, rng)
        scn.init_rank, scn.init_node = r, ni
        add_exit(scn, Members(job, "rank", ids=[r]), lambda x: t, "Exited with exit code 1", t, ev=("rank", "node"))
        scn.t_end = survivors_after_death(scn, rng, r, ni, t, seq, op, numel)
        scn.notes = f"Rank {r} on {job.host(ni)} exited with status 1 without printing anything."


def b_healthy(scn, rng):
    job = scn.job
    # scary but harmless: a link flap that NCCL rode through, a correctable ECC burst
    ni = rng.randrange(1, job.nnodes - 1)
    l = rng.randrange(job.gpn)
    dev, pci, ifn = job.nic(l)
    t = scn.t_fail - rng.uniform(3000, 20000)
    scn.add_kern(ni, t, f"mlx5_core {pci} {ifn}: Link down")
    scn.add_kern(ni, t + rng.uniform(0.5, 4), f"mlx5_core {pci} {ifn}: Link up")
    x = ni * job.gpn + l
    ev = "Got async error event: port error" if job.nccl_ver >= "2.23" else "Got async event : port error"
    scn.ev(t + 0.2, "app", job.wrap(x, [job.nccl(x, "WARN", f"NET/IB : {dev}:1 {ev}", k=3)]), rank=x, tag="keep")
    ev2 = "Got async error event: port active" if job.nccl_ver >= "2.23" else "Got async event : port active"
    scn.ev(t + 4.5, "app", job.wrap(x, [job.nccl(x, "WARN", f"NET/IB : {dev}:1 {ev2}", k=3)]), rank=x, tag="keep")
    scn.flap = (ni, t)
    scn.state = rng.choice(["COMPLETED", "COMPLETED", "RUNNING"])
    scn.exit_code = "0:0"
    scn.notes = ("Healthy run: a transient IB link flap on %s (NCCL rode through it) and startup connection retries."
                 % job.host(ni))


# --------------------------------------------------------------------------------------
# rendering
# --------------------------------------------------------------------------------------

class Render:
    def __init__(self, scn, rng):
        self.scn, self.job, self.rng = scn, scn.job, rng
        self.dd = Dedup(rng)

    def label(self, src, rank=None, node=None):
        job = self.job
        if src == "app":
            if job.launch == "srun":
                return f"{rank:>{job.rank_w}}: "
            return f"{job.node_of(rank):>{job.node_w}}: "
        if src == "agent":
            return f"{node:>{job.node_w}}: "
        return ""

    def stream(self, srcs, t_lo=-1e18, t_hi=1e18, node=None, dedup=True, kmul=1.0, gap=True, tags_skip=()):
        """[(line, evidence-flags)] of an aggregated (or one node's) output, in arrival order."""
        job, scn, rng = self.job, self.scn, self.rng
        items = []
        for i, e in enumerate(scn.evs):
            if e.src not in srcs or not t_lo <= e.t <= t_hi or e.tag in tags_skip:
                continue
            if node is not None:
                if e.src == "app" and job.node_of(e.rank) != node:
                    continue
                if e.src == "agent" and e.node != node:
                    continue
                if e.src in ("srun", "stepd", "batch"):
                    continue
            lab = self.label(e.src, e.rank, e.node)
            items.append((e.t, i, [(lab + x, e.ev) for ln in e.lines for x in ln.split("\n")]))
        for j, m in enumerate(scn.masses):
            if m.src not in srcs:
                continue
            if node is not None:
                if m.src in ("srun", "stepd", "batch"):
                    continue
                for x in m.members.on_node(node):
                    t = m.tfn(x)
                    if not t_lo <= t <= t_hi:
                        continue
                    lab = self.label(m.src, x if m.members.unit == "rank" else None,
                                     x if m.members.unit == "node" else None)
                    items.append((t, 10 ** 6 + j, [(lab + y, m.ev) for ln in m.mk(x, t, True) for y in ln.split("\n")]))
                continue
            lo, hi = m.keep
            k = max(1, int(rng.randint(lo, hi) * kmul))
            pick = [x for x in m.members.sample(rng, k, force=m.force) if t_lo <= m.tfn(x) <= t_hi]
            if not pick:
                continue
            pick.sort(key=m.tfn)
            block = []
            shorts = []
            for n, x in enumerate(pick):
                t = m.tfn(x)
                ls = m.mk(x, t, n < m.full_k)
                if n >= m.full_k or len(pick) == 1:
                    shorts.append(len(ls))
                lab = self.label(m.src, x if m.members.unit == "rank" else None, x if m.members.unit == "node" else None)
                block += [(lab + y, m.ev) for ln in ls for y in ln.split("\n")]
            per = sum(shorts) / len(shorts) if shorts else 1
            removed = int((m.members.count() - len(pick)) * per)
            if dedup and removed > 0:
                block.append((self.dd.note(removed), ()))
            items.append((m.tfn(pick[0]), 10 ** 6 + j, block))
        if gap and "app" in srcs and getattr(scn, "gap", None) and (node is None or node in (0, job.node_of(log_rank(job)))):
            w1, w2, n = scn.gap
            if t_lo <= w1 + 1 <= t_hi and n > 0:
                extra = n * rng.randint(1, 3) + rng.randint(0, 40)
                it_a = job.start_iter + int((w1 - scn.t_train0) / job.iter_s)
                note = rng.choice([f"[... {commas(extra)} lines trimmed (iterations ~{it_a} - {scn.it_w2}) ...]",
                                   f"... <{commas(extra)} lines of routine training output removed> ...",
                                   f"[snip: {commas(extra)} lines]"])
                items.append((w1 + 1, -1, [(note, ())]))
        items.sort(key=lambda x: (x[0], x[1]))
        out = []
        for it in items:
            out += it[2]
        return out

    def kern_log(self, ni, t_lo, t_hi, rng=None):
        job, scn = self.job, self.scn
        rng = rng or random.Random(f"{job.seed}/{job.idx}/kern/{ni}")
        ev = list(scn.kern.get(ni, []))
        noise = []
        t = t_lo + rng.uniform(0, 600)
        while t < t_hi:
            noise.append((t, kern_noise(job, ni, rng)))
            t += rng.expovariate(1 / 900.0)
        if getattr(scn, "node_rebooted", None) == ni:
            cut = min(x[0] for x in ev) if ev else t_hi
            noise = [x for x in noise if x[0] < scn.t_fail - 5 or x[0] > cut]
        inwin = [x for x in ev if t_lo <= x[0] <= t_hi]
        self.kern_hit = bool(inwin) and not scn.healthy and ni == scn.init_node
        lines = sorted(inwin + noise, key=lambda x: x[0])
        return [job.kern(t, ni, m) for t, m in lines]


def kern_noise(job, ni, rng):
    c = rng.random()
    if c < 0.18:
        return "nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid context, skipping further processing"
    if c < 0.30:
        return (f"perf: interrupt took too long ({rng.randint(2501, 9000)} > {rng.randint(2000, 2500)}), lowering "
                f"kernel.perf_event_max_sample_rate to {rng.choice([79750, 63750, 50750, 39750])}")
    if c < 0.42:
        return (f"ib0: multicast join failed for ff12:401b:ffff:0000:0000:0000:ffff:ffff, status -22")
    if c < 0.52:
        return "mce: [Hardware Error]: Machine check events logged"
    if c < 0.60:
        return (f"EDAC skx MC{rng.randint(0, 3)}: 1 CE memory read error on CPU_SrcID#{rng.randint(0, 1)}_MC#"
                f"{rng.randint(0, 3)}_Chan#{rng.randint(0, 2)}_DIMM#0 (channel:{rng.randint(0, 2)} slot:0 page:0x"
                f"{hexs(rng, 6)} offset:0x0 grain:32 syndrome:0x0 - err_code:0x0000:0x009f socket:{rng.randint(0, 1)} "
                f"imc:{rng.randint(0, 3)} rank:0 bg:1 ba:{rng.randint(0, 3)} row:0x{hexs(rng, 4)} col:0x{hexs(rng, 3)})")
    if c < 0.70:
        return f"INFO: NMI handler (ghes_notify_nmi) took too long to run: {rng.uniform(1, 9):.3f} msecs"
    if c < 0.80:
        return (f"audit: type=1400 audit({rng.randint(1700000000, 1760000000)}.{rng.randint(100, 999)}:"
                f"{rng.randint(100, 9999)}): apparmor=\"DENIED\" operation=\"open\" class=\"file\" "
                f"profile=\"snap.lxd.activate\" name=\"/proc/{rng.randint(1000, 99999)}/mountinfo\" pid="
                f"{rng.randint(1000, 99999)} comm=\"snap-exec\" requested_mask=\"r\" denied_mask=\"r\" fsuid=0 ouid=0")
    if c < 0.88:
        return f"hrtimer: interrupt took {rng.randint(10000, 90000)} ns"
    if c < 0.94:
        return (f"IPv4: martian source {job.ip(ni)} from 10.{rng.randint(0, 255)}.{rng.randint(0, 255)}."
                f"{rng.randint(1, 254)}, on dev ib0")
    return f"TCP: request_sock_TCP: Possible SYN flooding on port {job.port}. Sending cookies.  Check SNMP counters."


def sacct_text(scn):
    job = scn.job
    el = scn.t_end if scn.t_end else scn.t_fail
    el = max(60, int(el))
    h, m, s = el // 3600, (el % 3600) // 60, el % 60
    elapsed = f"{h:02d}:{m:02d}:{s:02d}" if h < 24 else f"{h // 24}-{h % 24:02d}:{m:02d}:{s:02d}"
    nl = job.nodelist if len(job.nodelist) <= 15 else job.nodelist[:14] + "+"
    st = scn.state
    ex = scn.exit_code
    if st == "CANCELLED":
        st = f"CANCELLED by {job.uid}"
    step_st = {"PREEMPTED": "CANCELLED", "TIMEOUT": "CANCELLED", "NODE_FAIL": "CANCELLED",
               "OUT_OF_MEMORY": "OUT_OF_ME+"}.get(scn.state, scn.state)
    if step_st.startswith("CANCELLED") and scn.state == "CANCELLED":
        step_st = f"CANCELLED by {job.uid}"
    rows = [("JobID", "JobName", "Partition", "AllocCPUS", "State", "ExitCode", "Elapsed", "NNodes", "NodeList"),
            ("-" * 12, "-" * 10, "-" * 10, "-" * 10, "-" * 10, "-" * 8, "-" * 10, "-" * 8, "-" * 15),
            (str(job.jobid), job.jobname[:9] + "+", job.partition, str(job.nnodes * 224), st[:10], ex, elapsed,
             str(job.nnodes), nl),
            (f"{job.jobid}.bat+", "batch", "", "224", step_st[:10], ex, elapsed, "1", job.hosts[0]),
            (f"{job.jobid}.ext+", "extern", "", str(job.nnodes * 224), "COMPLETED" if st != "RUNNING" else "RUNNING",
             "0:0", elapsed, str(job.nnodes), nl),
            (f"{job.jobid}.0", "python" if job.launch == "srun" else "torchrun", "",
             str(job.world if job.launch == "srun" else job.nnodes), step_st[:10], ex, elapsed, str(job.nnodes), nl)]
    w = [12, 10, 10, 10, 10, 8, 10, 8, 15]
    out = []
    for row in rows:
        out.append(" ".join((c.ljust(w[i]) if i in (0, 1, 8) else c.rjust(w[i])) for i, c in enumerate(row)))
    return out


def ras_text(scn, rng, t_snap):
    """Output of the `ncclras` client run on one node while the job was stuck."""
    job = scn.job
    ras = scn.ras or dict(kind="ok")
    kind = ras["kind"]
    drv = {"535": 12020, "550": 12040, "560": 12060, "570": 12080}[job.driver[:3]]
    rt = drv if rng.random() < 0.5 else {12020: 12020, 12040: 12020, 12060: 12040, 12080: 12060}[drv]
    L = [f"$ ncclras    # run on {job.hosts[rng.randrange(job.nnodes)]} at {job.local_time(t_snap, 0).strftime('%H:%M:%S')}",
         f"NCCL version {job.nccl_ver} compiled with CUDA {job.cuda}",
         f"CUDA runtime version {rt}, driver version {drv}", "",
         "Job summary", "===========", "",
         "  Nodes  Processes         GPUs  Processes     GPUs",
         "(total)   per node  per process    (total)  (total)",
         f"{job.nnodes:7d}  {job.gpn:9d}  {1:11d}  {job.world:9d}  {job.world:7d}", "",
         f"Communicators... ({rng.uniform(0.2, 3.5):.3f}s)", "============="]
    L.append("")
    L.append("Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors")
    L.append("    #  in group  per comm  per node  per comm  in group")
    err0 = {"ok": "OK", "counts": "MISMATCH", "opmismatch": "MISMATCH", "stuck_all": "OK", "dead": "INCOMPLETE"}[kind]
    ntp = job.world // job.tp
    groups = [(1, job.nnodes, str(job.gpn), job.world, job.world, err0),
              (ntp, 1 if job.tp <= job.gpn else job.tp // job.gpn, str(job.tp if job.tp <= job.gpn else job.gpn),
               job.tp, job.world, "OK"),
              (job.world // job.dp, min(job.nnodes, job.dp), "1", job.dp, job.world, "OK"),
              (job.world // job.pp, job.pp, "1", job.pp, job.world, "OK")]
    if kind in ("counts", "opmismatch"):
        groups[2] = (groups[2][0], groups[2][1], groups[2][2], groups[2][3], groups[2][4], "MISMATCH")
    for i, (nc, nn, rpn, rpc, rig, er) in enumerate(groups):
        L.append(f"{i:5d}  {nc:8d}  {nn:8d}  {rpn:>8s}  {rpc:8d}  {rig:8d}  {'RUNNING':>8s}  {er:>6s}")
    L += ["", "Errors", "======", ""]
    if kind == "dead":
        dead = ras["ranks"]
        L.append("DEAD")
        L.append(f"  {len(dead)} job process{'es are' if len(dead) > 1 else ' is'} considered dead (unreachable via the RAS network)")
        for r in dead[:10]:
            L.append(f"  Process {job.pid(r)} on node {job.ip(job.node_of(r))} managing GPU {job.local(r)}")
        L.append("")
        L.append(f"#0-0 ({job.ras_hash}) INCOMPLETE")
        L.append(f"  Missing communicator data from {len(dead)} rank{'s' if len(dead) > 1 else ''}")
        for r in dead[:10]:
            L.append(f"  Rank {r} -- GPU {job.local(r)} managed by process {job.pid(r)} on node {job.ip(job.node_of(r))}")
        L.append("")
    L += ["Warnings", "========", ""]
    if kind in ("counts", "opmismatch"):
        r = ras["low"][0]
        seq = ras["seq"]
        fn = {"ALLREDUCE": "AllReduce", "_ALLGATHER_BASE": "AllGather", "ALLGATHER": "AllGather",
              "_REDUCE_SCATTER_BASE": "ReduceScatter", "BROADCAST": "Broadcast"}
        opname = fn.get(ras["op"], "AllReduce")
        cnt = seq // rng.randint(2, 4)
        L.append(f"#0-0 ({job.ras_hash}) MISMATCH")
        L.append(f"  Communicator ranks have different {opname} operation counts")
        L.append(f"  {job.world - 1} ranks have launched up to operation {cnt}")
        L.append(f"  Rank {r} has launched up to operation {cnt - 1} -- GPU {job.local(r)} managed by process "
                 f"{job.pid(r)} on node {job.ip(job.node_of(r))}")
        if kind == "opmismatch":
            o2 = fn.get(ras.get("op2", "ALLGATHER"), "AllGather")
            c2 = cnt // 3
            L.append(f"  Communicator ranks have different {o2} operation counts")
            L.append(f"  {job.world - 1} ranks have launched up to operation {c2}")
            L.append(f"  Rank {r} has launched up to operation {c2 + 1} -- GPU {job.local(r)} managed by process "
                     f"{job.pid(r)} on node {job.ip(job.node_of(r))}")
        L.append("")
        hsh = hexs(rng, 16)
        L.append(f"#2-{rng.randint(0, 60)} ({hsh}) MISMATCH")
        L.append(f"  Communicator ranks have different {opname} operation counts")
        L.append(f"  {job.dp - 1} ranks have launched up to operation {cnt // 2}")
        L.append(f"  Rank {(r // job.tp) % job.dp} has launched up to operation {cnt // 2 - 1} -- GPU {job.local(r)} "
                 f"managed by process {job.pid(r)} on node {job.ip(job.node_of(r))}")
        L.append("")
    return L, (kind in ("counts", "opmismatch", "dead"))


# --------------------------------------------------------------------------------------
# scenario assembly
# --------------------------------------------------------------------------------------

BUILDERS = {
    "gpu_hardware": b_gpu_hardware, "ecc_memory": b_ecc, "nvlink": b_nvlink, "network": b_network,
    "cuda_oom": b_cuda_oom, "illegal_memory_access": b_illegal, "python_exception": b_python_exc,
    "host_oom_kill": b_host_oom, "crash_signal": b_crash, "preemption": b_preempt, "hang": b_hang,
    "data_loader_stall": b_dl_stall, "collective_mismatch": b_mismatch, "unknown": b_unknown,
}


def build(job, cause, rng, ft=False):
    scn = Scn(job, cause)
    scn.exits = []
    scn.nccl_info = rng.random() < 0.3
    job.strag_on = job.framework in ("megatron", "nemo") and (cause == "straggler" or rng.random() < 0.35)
    batch_header(job, scn, rng)
    t_train0 = startup(job, scn, rng)
    first, w2, it_w2 = timeline(scn, rng, t_train0)
    scn.evs += first
    if cause == "straggler":
        b_straggler(scn, rng, w2, it_w2)
    elif cause is None:
        finish_training(scn, rng, w2, it_w2, scn.t_fail, strag_every=3 if job.strag_on else 0)
        b_healthy(scn, rng)
        if scn.state == "COMPLETED":
            t = scn.last_iter_t + 2
            L = []
            if job.framework == "megatron":
                L = [f"[after training is done] datetime: {job.ts_br(t, 0)[1:-1]} ",
                     f"saving checkpoint at iteration {scn.last_iter:>7d} to {job.ckpt_dir} in torch_dist format",
                     f"  successfully saved checkpoint from iteration {scn.last_iter:>7d} to {job.ckpt_dir} "
                     f"[ t 1/{job.tp}, p 1/{job.pp} ]"]
            elif job.framework == "torchtitan":
                L = [f"[titan] {job.ts_py(t, 0)} - root - INFO - Training completed",
                     f"[titan] {job.ts_py(t + 40, 0)} - root - INFO - Sleeping 2 seconds for other ranks to complete"]
            else:
                L = [f"`Trainer.fit` stopped: `max_steps={scn.last_iter}` reached."]
            scn.ev(t, "app", job.wrap(0, L), rank=0)
            scn.ev(t + 60, "batch", [f"END TIME: {job.t_abs(t + 60).strftime('%a %b %d %H:%M:%S')} UTC {job.t_abs(t).year}"])
            scn.t_end = t + 60
        else:
            scn.t_end = scn.t_fail + 30
    else:
        dl = cause == "data_loader_stall"
        finish_training(scn, rng, w2, it_w2, scn.t_fail, strag_every=3 if job.strag_on and not dl else 0)
        BUILDERS[cause](scn, rng)
        if dl and job.strag_on and job.framework in ("megatron", "nemo"):
            peak = 450
            for k in range(rng.randint(2, 4)):
                tt = scn.t_fail - 600 * (k + 1) + rng.uniform(-60, 60)
                scn.evs.append(straggler_detector_line(job, rng, tt, job.iter_s * 1000 * 1.3, scn.dl_rank, "drtt", peak))
    if ft:
        prepare_ft(scn, rng)
        if cause in ("straggler", "preemption"):
            render_exits(scn, rng)
    elif cause is not None:
        resolve_kill(scn, rng)
        render_exits(scn, rng)
    if scn.t_end is None:
        scn.t_end = scn.t_fail + 60
    return scn


class Bundle:
    def __init__(self):
        self.files = {}
        self.flags = set()
        self.why = {}

    def add(self, path, items, node_file=False):
        lines = []
        for x in items:
            if isinstance(x, tuple):
                ln, fl = x
                self.flags.update(fl)
                if node_file and fl:
                    self.flags.add("node")
                if fl:
                    self.why.setdefault(path, set()).update(fl)
                lines.append(ln)
            else:
                lines.append(x)
        self.files[path] = "\n".join(lines) + "\n"

    def flag(self, *f):
        self.flags.update(f)
        self.why.setdefault("<attachment>", set()).update(f)


def has_cause_kern(scn, ni):
    return ni is not None and bool(scn.kern.get(ni)) and not scn.healthy and scn.cause != "straggler" or \
        (scn.cause == "straggler" and ni == scn.init_node and bool(scn.kern.get(ni)))


def first_watchdog_rank(pairs):
    for ln, _ in pairs:
        if "Watchdog caught collective operation timeout" in ln and "[Rank " in ln:
            try:
                return int(ln.split("[Rank ")[1].split("]")[0])
            except ValueError:
                pass
    return None


# --------------------------------------------------------------------------------------
# layout 1: the aggregated `srun -l` output the user de-duplicated
# --------------------------------------------------------------------------------------

def lay_srun(scn, rng, B):
    job = scn.job
    R = Render(scn, rng)
    pairs = R.stream({"batch", "app", "agent", "srun", "stepd"})
    if rng.random() < 0.25:
        # the user cut the head: "the first 40k lines are just startup"
        cut = next((i for i, (ln, fl) in enumerate(pairs) if "iteration" in ln or "step:" in ln or
                    "Training epoch" in ln), 0)
        if cut > 5:
            pairs = [(f"[... first {commas(cut * rng.randint(40, 400))} lines (startup) removed ...]", ())] + pairs[cut:]
    B.add(f"slurm-{job.jobid}.out", pairs)
    if rng.random() < 0.6:
        B.add("sacct.txt", [f"$ sacct -j {job.jobid} --format=JobID,JobName,Partition,AllocCPUS,State,ExitCode,"
                            f"Elapsed,NNodes,NodeList"] + sacct_text(scn))
    ni = scn.init_node
    t0 = scn.t_fail - 3600
    t1 = (scn.t_end or scn.t_fail) + 600
    if has_cause_kern(scn, ni) and rng.random() < 0.45:
        B.add(f"dmesg-{job.host(ni)}.txt", R.kern_log(ni, t0, t1))
        if R.kern_hit:
            B.flag("node")
    if scn.healthy and getattr(scn, "flap", None) and rng.random() < 0.5:
        fn, ft = scn.flap
        B.add(f"dmesg-{job.host(fn)}.txt", R.kern_log(fn, ft - 3600, ft + 3600))
    if rng.random() < 0.25:
        oj = rng.randrange(1, job.nnodes - 1)
        if oj != ni:
            B.add(f"dmesg-{job.host(oj)}.txt", R.kern_log(oj, t0, t1))
    if rng.random() < 0.5:
        wr = first_watchdog_rank(pairs)
        hrs = (scn.t_fail - getattr(scn, "t_train0", 0)) / 3600
        txt = [f"# {job.jobname} ({job.world} GPUs, {job.nnodes} nodes), job {job.jobid}", "",
               f"Job {'died' if scn.state not in ('COMPLETED', 'RUNNING') else 'looked odd'} after ~{hrs:.0f}h. The raw "
               f"slurm output was {rng.randint(2, 40) / 10:.1f} GB so I de-duplicated it (kept a few of each repeated "
               f"message) before attaching."]
        if wr is not None and rng.random() < 0.7:
            txt.append(f"The first error I can see is the NCCL watchdog on rank {wr}, is that node bad?")
        elif scn.healthy:
            txt.append("There are some NCCL WARN lines and link down messages, should I be worried?")
        txt.append("")
        B.add("NOTES.md", txt)


# --------------------------------------------------------------------------------------
# layout 2: per-node output files (srun --output=%j-%N.out), only a sample attached
# --------------------------------------------------------------------------------------

def lay_nodes(scn, rng, B):
    job = scn.job
    R = Render(scn, rng)
    d = f"job-{job.jobid}"
    ni = scn.init_node
    S = {0, job.nnodes - 1}
    S.update(rng.sample(range(1, job.nnodes - 1), rng.randint(3, 6)))
    inc = ni is not None and rng.random() < 0.65
    if inc:
        S.add(ni)
    if ni is not None and rng.random() < 0.35:
        S.add(min(job.nnodes - 1, ni + 1))
    S = sorted(S)
    for x in S:
        pairs = R.stream({"app", "agent"}, node=x)
        if not pairs:
            pairs = [("", ())]
        B.add(f"{d}/logs/{job.jobid}-{job.host(x)}.out", pairs, node_file=(x == ni))
    B.add(f"{d}/slurm-{job.jobid}.out", R.stream({"batch", "srun", "stepd"}))
    kn = []
    for x in S:
        p = 0.75 if x == ni else 0.35
        if rng.random() < p:
            kn.append(x)
            B.add(f"{d}/kernel/{job.host(x)}.log", R.kern_log(x, scn.t_fail - 5400, (scn.t_end or scn.t_fail) + 900))
            if R.kern_hit:
                B.flag("node")
    why = []
    if inc:
        why.append("nodes whose logs contained something other than the usual NCCL timeout spam")
    note = [f"Job {job.jobid} - {job.jobname}", f"Nodes: {job.nnodes} x {job.gpn} GPU ({job.nodelist})",
            f"Tasks: {job.world if job.launch == 'srun' else job.nnodes} (srun -l, one log file per node: "
            f"logs/%j-%N.out)", "",
            f"The job wrote {job.nnodes} per-node logs ({rng.randint(3, 90)} GB in total). Attached is a sample of "
            f"{len(S)}: the first and last node (rank 0 / last rank print the training progress), "
            f"{'a few random ones and ' + why[0] if why else 'and a few picked at random'}.",
            f"Kernel logs (journalctl -k) attached for {len(kn)} of them." if kn else
            "No kernel logs attached (we did not have access to the nodes in time).",
            "Clocks on the nodes are NTP-synced, mostly.", ""]
    B.add(f"{d}/README.txt", note)


# --------------------------------------------------------------------------------------
# layout 4: the operator's triage bundle (tail of the log, NCCL RAS, health checks, kernel logs)
# --------------------------------------------------------------------------------------

def lay_ops(scn, rng, B):
    job = scn.job
    R = Render(scn, rng)
    ni = scn.init_node
    pairs = R.stream({"batch", "app", "agent", "srun", "stepd"}, kmul=0.7, t_lo=scn.gap[1] - 1)
    K = rng.randint(150, 900)
    tail = pairs[-K:] if len(pairs) > K else pairs
    raw_n = len(pairs) * rng.randint(300, 3000)
    B.add(f"slurm-{job.jobid}.out.tail", [(f"==> tail -n {commas(K * rng.randint(30, 80))} slurm-{job.jobid}.out "
                                           f"({commas(raw_n)} lines total), repeated lines collapsed <==", ())] + tail)
    files = ["slurm tail"]
    # NCCL RAS, taken while the job was stuck
    alive = scn.kill_at is None or scn.kill_at - scn.t_fail > 300
    ras = scn.ras
    died = scn.init_rank is not None and any(e["ev"] and "rank" in e["ev"] and e["members"].contains(scn.init_rank)
                                             for e in scn.exits)
    if ras is None and died and alive and scn.cause in (
            "gpu_hardware", "ecc_memory", "cuda_oom", "illegal_memory_access", "python_exception", "host_oom_kill",
            "crash_signal") and job.timeout_s >= 600:
        scn.ras = dict(kind="dead", ranks=[scn.init_rank])
    if job.ras and alive and (scn.ras is not None or scn.healthy) and scn.state != "PREEMPTED" and rng.random() < 0.85:
        t_snap = scn.t_fail + rng.uniform(60, max(90, job.timeout_s - 60)) if not scn.healthy else scn.t_fail - 600
        L, named = ras_text(scn, rng, t_snap)
        B.add(f"ncclras-{job.local_time(t_snap, 0).strftime('%H%M')}.txt", L)
        files.append("ncclras")
        if named and scn.init_rank is not None:
            B.flag("rank", "node_ip")
        if rng.random() < 0.75:
            ips = [(job.ip(x), job.host(x)) for x in sorted(set(rng.sample(range(job.nnodes), min(20, job.nnodes)) +
                                                                 ([ni] if ni is not None else [])))]
            B.add("node-ips.txt", ["$ for n in $(scontrol show hostnames $SLURM_JOB_NODELIST | head -400); do getent hosts $n; done | grep -f ras_ips"] +
                  [f"{ip:<16s}{h}" for ip, h in ips])
            B.flag("ipmap")
    # health checks run by the epilog on every node of the job
    bad = sorted(scn.health)
    L = [f"# epilog health check, job {job.jobid}, {job.nnodes} nodes", f"# {job.ts_slurm((scn.t_end or scn.t_fail) + 90, 0)}", ""]
    fails = [x for x in bad]
    L.append(f"SUMMARY: {job.nnodes - len(fails)} PASS, {len(fails)} FAIL, 0 SKIPPED")
    for x in fails:
        for chk, msg in scn.health[x]:
            L.append(f"FAIL {job.host(x):<14s} {chk:<22s} {msg}")
    for _ in range(rng.randint(0, 3)):
        y = rng.randrange(job.nnodes)
        if y not in bad:
            L.append(f"WARN {job.host(y):<14s} {'check_nv_ecc':<22s} {rng.randint(1, 40)} correctable (SBE) errors on GPU "
                     f"{rng.randrange(job.gpn)} since boot (threshold 1000)")
    B.add(f"health/epilog-{job.jobid}.txt", L)
    if ni is not None and ni in scn.health:
        B.flag("node")
    # sinfo -R
    L = [f"$ sinfo -R -n {job.nodelist}", "REASON               USER      TIMESTAMP           NODELIST"]
    for x in fails:
        reason = scn.health[x][0][0] + ": " + scn.health[x][0][1]
        L.append(f"{reason[:20]:<20s} root      {job.ts_slurm((scn.t_end or scn.t_fail) + 95, 0)} {job.host(x)}")
    if rng.random() < 0.5:
        L.append(f"{'kernel panic, RMA':<20s} {'slurm':<9s} {job.ts_slurm(-86400 * rng.randint(2, 30), 0)} "
                 f"{job.prefix}{job.nums[-1] + rng.randint(3, 40):0{job.width}d}")
    B.add("sinfo-R.txt", L)
    # kernel logs
    kn = set(fails)
    if ni is not None and rng.random() < 0.55:
        kn.add(ni)
    kn.add(rng.randrange(job.nnodes))
    for x in sorted(kn):
        B.add(f"kern/{job.host(x)}.log", R.kern_log(x, scn.t_fail - 3600, (scn.t_end or scn.t_fail) + 600))
        if R.kern_hit:
            B.flag("node")
    for x, L in sorted(scn.smi.items()):
        if rng.random() < 0.7:
            B.add(f"nvidia-smi-{job.host(x)}.txt", [f"$ nvidia-smi -q   # on {job.host(x)}"] + L)
            if x == ni:
                B.flag("node")
    if scn.pyspy and rng.random() < 0.75:
        for r, L in sorted(scn.pyspy.items()):
            B.add(f"pyspy/{job.host(job.node_of(r))}-pid{job.pid(r)}.txt",
                  [f"$ tr '\\0' '\\n' < /proc/{job.pid(r)}/environ | grep -E '^(RANK|LOCAL_RANK)='",
                   f"RANK={r}", f"LOCAL_RANK={job.local(r)}",
                   f"$ py-spy dump --pid {job.pid(r)}   # on {job.host(job.node_of(r))}"] + L)
            if r == scn.init_rank:
                B.flag("rank", "node")
        for _ in range(rng.randint(1, 3)):
            r2 = rng.randrange(job.world)
            if r2 != scn.init_rank:
                B.add(f"pyspy/{job.host(job.node_of(r2))}-pid{job.pid(r2)}.txt",
                      [f"$ tr '\\0' '\\n' < /proc/{job.pid(r2)}/environ | grep -E '^(RANK|LOCAL_RANK)='",
                       f"RANK={r2}", f"LOCAL_RANK={job.local(r2)}",
                       f"$ py-spy dump --pid {job.pid(r2)}   # on {job.host(job.node_of(r2))}"] + pyspy_waiting(job, r2, rng))
    if scn.fr and job.torch_new and rng.random() < 0.55:
        B.add("fr_trace_analysis.txt", fr_text(scn, rng))
        if scn.init_rank is not None:
            B.flag("rank")
    if rng.random() < 0.7:
        B.add("sacct.txt", sacct_text(scn))
    hyp = ""
    wr = first_watchdog_rank(tail)
    if wr is not None and rng.random() < 0.4:
        hyp = f"User thinks rank {wr} is the problem (first NCCL timeout in the log)."
    B.add("TICKET.md", [f"## INC-{rng.randint(10000, 99999)}: job {job.jobid} ({job.jobname}) "
                        f"{'failed' if scn.state not in ('RUNNING', 'COMPLETED') else 'needs a look'}",
                        "", f"- partition `{job.partition}`, {job.nnodes} nodes / {job.world} GPUs, user `{job.user}`",
                        f"- state: {scn.state}", f"- attached: {', '.join(sorted(set(os.path.dirname(p) or p for p in B.files)))}",
                        f"- {hyp}" if hyp else "- no hypothesis yet", ""])


def fr_text(scn, rng):
    job = scn.job
    fr = scn.fr
    r = fr["ranks"][0]
    op = {"ALLREDUCE": "nccl:all_reduce", "_ALLGATHER_BASE": "nccl:_allgather_base", "ALLGATHER": "nccl:all_gather",
          "_REDUCE_SCATTER_BASE": "nccl:_reduce_scatter_base", "BROADCAST": "nccl:broadcast"}
    L = [f"$ python -m torch.distributed.flight_recorder.fr_trace {job.base_dir}/fr_dumps/{job.jobid} --prefix nccl_trace_rank_ -j",
         f"loaded {job.world} dump files",
         ""]
    if fr["kind"] == "missing":
        L += [f"Not all ranks joining collective {fr['seq']} at entry {rng.randint(100, 2000)}",
              "group info: 0:default_pg",
              f"collective: {op.get(fr['op'], 'nccl:all_reduce')}",
              f"missing ranks: {{{r}}}",
              f"input sizes: [[{fr['numel']}]]",
              f"output sizes: [[{fr['numel']}]]",
              f"expected ranks: {job.world}",
              "collective state: scheduled",
              "collective stack trace:",
              "  all_reduce at /usr/local/lib/python3.12/dist-packages/torch/distributed/distributed_c10d.py:2501",
              "  wrapper at /usr/local/lib/python3.12/dist-packages/torch/distributed/c10d_logger.py:83"]
    else:
        L += [f"Collective {fr['seq']} at entry {rng.randint(100, 2000)} mismatched",
              "group info: 0:default_pg",
              f"collective: {op.get(fr['op'], 'nccl:all_reduce')}",
              f"mismatch: rank {r} issued {op.get(fr['op2'], 'nccl:all_gather')} while {job.world - 1} ranks issued "
              f"{op.get(fr['op'], 'nccl:all_reduce')}",
              f"input sizes: [[{fr['numel']}]]  (rank {r}: [[{max(1, fr['numel'] // 8)}]])",
              "collective state: scheduled"]
    return L + [""]


# --------------------------------------------------------------------------------------
# layout 3: in-job restart with the NVIDIA resiliency launcher (ft_launcher)
# --------------------------------------------------------------------------------------

def ftl_prefix(job, t, ni, level, fname, line, wr="-", wlr="-"):
    lvl = {"I": "INFO", "W": "WARNING", "E": "ERROR", "D": "DEBUG"}[level]
    return (f"{job.ts_py(t, ni)} [{lvl}] [{job.host(ni)}] [workload:{wr}({wlr}) infra:{ni}(0)] "
            f"{fname}:{line} ")


def ft_node_mass(scn, key, t0, spread, level, fname, line, msg, exclude=(), keep=(2, 6)):
    job = scn.job
    mem = Members(job, "node", exclude=exclude)
    scn.masses.append(Mass(key, mem, lambda ni: t0 + frac(ni, len(key)) * spread,
                           lambda ni, t, f: [ftl_prefix(job, t, ni, level, fname, line) + msg(ni)], src="ftl", keep=keep))


HW = ("gpu_hardware", "ecc_memory", "nvlink", "network")
DETERMINISTIC = ("cuda_oom", "python_exception")


def prepare_ft(scn, rng):
    """Re-shape a scenario into what an in-job-restart run looks like (before exits are rendered)."""
    job = scn.job
    cause = scn.cause
    max_r = rng.choice([2, 3, 3, 5])
    scn.ft_max = max_r
    ft_to = rng.choice([300, 600, 900, 1200])
    if cause in ("hang", "data_loader_stall") and rng.random() < 0.7:
        ft_to = min(ft_to, max(240, job.timeout_s - 120))
    L0 = [ftl_prefix(job, 5, 0, "I", "launcher.py", 2735) + f"Using nproc_per_node={job.gpn}."]
    scn.ev(5, "ftl", L0, node=0)
    ft_node_mass(scn, "ft_start", 20, 25, "I", "launcher.py", 655,
                 lambda ni: "[default] starting workers for entrypoint: python3")
    scn.ev(31, "ftl", [ftl_prefix(job, 31, 0, "I", "api.py", 683) + "[default] Rendezvous complete for workers. Result:",
                       "  restart_count=0", f"  master_addr={job.master}", f"  master_port={job.port}",
                       "  group_rank=0", f"  group_world_size={job.nnodes}",
                       f"  local_ranks={list(range(job.gpn))}", f"  role_ranks={list(range(job.gpn))}",
                       f"  global_ranks={list(range(job.gpn))}", f"  role_world_sizes={[job.world] * job.gpn}",
                       f"  global_world_sizes={[job.world] * job.gpn}", ""], node=0)
    ft_node_mass(scn, "ft_trainstart", getattr(scn, "t_train0", 400) + 5, 20, "I", "launcher.py", 359,
                 lambda ni: "Training started")
    if cause is None or cause == "straggler":
        if job.framework == "nemo" or rng.random() < 0.5:
            add_nvrx_straggler(scn, rng)
        return
    if cause == "preemption":
        t = scn.t_fail
        ft_node_mass(scn, "ft_sigterm", t + 0.2, 1.5, "W", "launcher.py", 571,
                     lambda ni: "Received Signals.SIGTERM death signal, shutting down workers, timeout 15.0 sec.")
        ft_node_mass(scn, "ft_stop", t + 0.4, 1.5, "I", "launcher.py", 1002,
                     lambda ni: "Stopping workers... Timeout = 15 sec.")
        return
    exits = sorted(scn.exits, key=lambda e: e["t_min"])
    t_ex = exits[0]["t_min"] if exits else 1e18
    t_ft = scn.t_fail + ft_to
    stuck = [scn.init_rank] if cause in ("hang",) else []
    if t_ex < t_ft:
        t_det = t_ex + 1.0
        e0 = exits[0]
        mem0 = e0["members"].sample(rng, 1)
        det_node = job.node_of(mem0[0]) if mem0 else (scn.init_node or 0)
        via = "exit"
    else:
        t_det = t_ft + 3
        via = "timeout"
        det_node = None
        sec = rng.random() < 0.6
        if sec:
            msg = lambda r, t: f"[Cycle 0] Section 'step' has been open for {t - scn.t_fail + 12:.2f} seconds. Timeout is {ft_to:.2f} seconds."
        else:
            msg = lambda r, t: f"[Cycle 0] Did not get subsequent heartbeat. Waited {ft_to:.2f} seconds."
        mem = Members(job, "rank", exclude=stuck)
        scn.masses.append(Mass("ft_timeout", mem, lambda r: t_ft + frac(r, 43) * 4,
                               lambda r, t, f: [ftl_prefix(job, t, job.node_of(r), "W", "rank_monitor_server.py",
                                                           522 if sec else 497, r, job.local(r)) + msg(r, t)],
                               src="ftl", keep=(3, 10)))
        for r in stuck:
            t = t_ft + 2.5
            scn.ev(t, "ftl", [ftl_prefix(job, t, job.node_of(r), "W", "rank_monitor_server.py", 539, r, job.local(r)) +
                              f"[Cycle 0] Was out of section for {t - scn.t_fail + 40:.2f} seconds. Timeout is "
                              f"{ft_to:.2f} seconds."], node=job.node_of(r), ev=("rank", "node"))
    # workers are stopped right after detection: nothing rank-produced after that survives
    cut = t_det + 6
    scn.masses = [m for m in scn.masses if m.src not in ("app",) or
                  min(m.tfn(x) for x in m.members.sample(random.Random(2), 6)) < cut]
    scn.evs = [e for e in scn.evs if not (e.src == "app" and e.t > cut)]
    scn.exits = []
    if via == "exit":
        scn.ev(t_det, "ftl", [ftl_prefix(job, t_det, det_node, "I", "launcher.py", 716) +
                              f"[default] Worker group FAILED. {max_r}/{max_r} attempts left; will restart worker group"],
               node=det_node, ev=(("node",) if det_node == scn.init_node else ()))
        ft_node_mass(scn, "ft_detect", t_det + 1, 4, "I", "api.py", 902,
                     lambda ni: f"[default] Detected 1 new nodes from group_rank={det_node}; will restart worker group",
                     exclude=[det_node])
    else:
        ft_node_mass(scn, "ft_failed", t_det, 3, "I", "launcher.py", 716,
                     lambda ni: f"[default] Worker group FAILED. {max_r}/{max_r} attempts left; will restart worker group")
    ft_node_mass(scn, "ft_stop", t_det + 1.5, 3, "I", "launcher.py", 1002, lambda ni: "Stopping workers... Timeout = 15 sec.")
    # what happens on the next cycles
    t_r = t_det + rng.uniform(60, 200)
    ni = scn.init_node
    dl_storage = cause == "data_loader_stall" and rng.random() < 0.6
    hw_like = cause in HW or dl_storage
    if hw_like and ni is not None:
        chk, what = {"network": ("NIC link state health check", "has unhealthy NIC link(s)."),
                     "data_loader_stall": ("Storage health check", "has unhealthy storage state.")}.get(
            cause, ("GPU health check", "has an unhealthy GPU."))
        m = f"Node {job.host(ni)} {what}"
        scn.ev(t_r + 4, "ftl", [ftl_prefix(job, t_r + 4, ni, "E", "ft_rendezvous_barrier.py", 2618) +
                                f"{chk} failed for node {job.host(ni)}: {m}",
                                ftl_prefix(job, t_r + 4.2, ni, "E", "launcher.py", 1713) +
                                f"Agent .run() raised UnhealthyNodeException: {m}",
                                ftl_prefix(job, t_r + 4.2, ni, "I", "launcher.py", 1722) +
                                "Single job deployment: exiting with code 1 for policy handling."],
               node=ni, ev=("node",))
        scn.ev(t_r + 5, "srun", [f"srun: error: {job.host(ni)}: task {ni}: Exited with exit code 1"], node=ni,
               ev=("node",))
        tk = t_r + 5.5
        scn.ev(tk, "srun", [f"srun: Terminating StepId={job.jobid}.0"])
        scn.ev(tk + 0.3, "stepd", [f"slurmstepd: error: *** STEP {job.jobid}.0 ON {job.hosts[0]} CANCELLED AT "
                                   f"{job.ts_slurm(tk, 0)} ***"])
        ft_node_mass(scn, "ft_sigterm2", tk + 0.5, 2, "W", "launcher.py", 571,
                     lambda x: "Received Signals.SIGTERM death signal, shutting down workers, timeout 15.0 sec.",
                     exclude=[ni])
        scn.ev(tk + 2, "srun", [f"srun: error: {job.host(x)}: task {x}: Exited with exit code 1"
                                for x in sorted(rng.sample([y for y in range(job.nnodes) if y != ni],
                                                           min(6, job.nnodes - 1)))] +
               [Dedup(rng).note(job.nnodes - 7)])
        scn.state = "FAILED"
        scn.t_end = tk + 40
        return
    if cause == "unknown" and getattr(scn, "unk_kind", "") == "node_fail":
        scn.state = "NODE_FAIL"
        scn.t_end = max(scn.t_end or 0, t_det + 300)
        return
    crash_type = via == "exit" and bool(exits[0]["ev"])
    first_status = exits[0]["status"] if exits else "Exited with exit code 1"
    recur = cause in DETERMINISTIC or (cause == "collective_mismatch" and getattr(scn, "mm_kind", "") == "detail") or \
        (cause == "illegal_memory_access") or (cause in ("crash_signal", "host_oom_kill") and rng.random() < 0.5) or \
        (cause in ("hang", "unknown", "collective_mismatch", "data_loader_stall", "gpu_hardware") and rng.random() < 0.35)
    seq_lines = [e for e in scn.evs if e.src == "app" and e.ev and scn.t_fail - 5 <= e.t <= t_det + 5]
    cyc_len = rng.uniform(600, 3000)
    t = t_r
    cycles = max_r if recur else 1
    fail_node = det_node
    for c in range(1, cycles + 1):
        scn.ev(t + 10, "ftl", [ftl_prefix(job, t + 10, 0, "I", "api.py", 683) +
                               "[default] Rendezvous complete for workers. Result:", f"  restart_count={c}",
                               f"  master_addr={job.master}", f"  master_port={job.port}", "  group_rank=0",
                               f"  group_world_size={job.nnodes}", ""], node=0)
        ckpt_it = (scn.last_iter if hasattr(scn, "last_iter") else job.start_iter) // job.save_interval * job.save_interval
        ts = t + rng.uniform(200, 400)
        scn.ev(ts, "app", job.wrap(0, [f" loading checkpoint from {job.ckpt_dir} at iteration {ckpt_it}",
                                       f"  successfully loaded checkpoint from {job.ckpt_dir} [ t 1/{job.tp}, p 1/{job.pp} ] "
                                       f"at iteration {ckpt_it}"]), rank=0, tag="keep")
        if not recur:
            evs = training_lines(job, scn, rng, ts + 60, ts + 60 + job.iter_s * job.log_interval * rng.randint(20, 60),
                                 ckpt_it, strag_every=3 if job.strag_on else 0)
            for e in evs:
                e.tag = "keep"
            scn.evs += evs
            scn.state = "RUNNING"
            scn.exit_code = "0:0"
            scn.ft_recover = True
            scn.t_end = evs[-1].t + 30 if evs else ts + 300
            return
        tf = ts + 60 + cyc_len
        left = max_r - c
        if crash_type:
            for e in seq_lines:
                tn = tf + (e.t - scn.t_fail)
                scn.evs.append(Ev(tn, e.src, retime(job, e.lines, tn, job.node_of(e.rank) if e.rank is not None else 0),
                                  rank=e.rank, node=e.node, ev=e.ev, tag="keep"))
            fail_node = scn.init_node
            if left > 0:
                scn.ev(tf + 3, "ftl", [ftl_prefix(job, tf + 3, fail_node, "I", "launcher.py", 716) +
                                       f"[default] Worker group FAILED. {left}/{max_r} attempts left; will restart "
                                       f"worker group"], node=fail_node, ev=("node",))
            tdet = tf + 3
        elif via == "timeout":
            tdet = tf + ft_to + 3
            cyc = c
            mem = Members(job, "rank", exclude=stuck)
            scn.masses.append(Mass(f"ft_timeout{c}", mem, lambda r, tf=tf: tf + ft_to + frac(r, 47) * 4,
                                   lambda r, tt, f, cyc=cyc, tf=tf: [ftl_prefix(job, tt, job.node_of(r), "W",
                                                                                "rank_monitor_server.py", 497, r,
                                                                                job.local(r)) +
                                                                     f"[Cycle {cyc}] Did not get subsequent heartbeat. "
                                                                     f"Waited {ft_to:.2f} seconds."],
                                   src="ftl", keep=(3, 8)))
            for r in stuck:
                tt = tf + ft_to + 2.5
                scn.ev(tt, "ftl", [ftl_prefix(job, tt, job.node_of(r), "W", "rank_monitor_server.py", 539, r,
                                              job.local(r)) +
                                   f"[Cycle {c}] Was out of section for {ft_to + 41.3:.2f} seconds. Timeout is "
                                   f"{ft_to:.2f} seconds."], node=job.node_of(r), ev=("rank", "node"))
            if left > 0:
                ft_node_mass(scn, f"ft_failed{c}", tdet, 3, "I", "launcher.py", 716,
                             lambda x, left=left: f"[default] Worker group FAILED. {left}/{max_r} attempts left; will "
                                                  f"restart worker group")
            fail_node = rng.randrange(job.nnodes)
        else:
            tdet = tf + job.timeout_s + 5
            fail_node = rng.randrange(job.nnodes)
            if fail_node == scn.init_node:
                fail_node = (fail_node + 1) % job.nnodes
            if left > 0:
                scn.ev(tdet, "ftl", [ftl_prefix(job, tdet, fail_node, "I", "launcher.py", 716) +
                                     f"[default] Worker group FAILED. {left}/{max_r} attempts left; will restart "
                                     f"worker group"], node=fail_node)
        t = tdet + rng.uniform(60, 200)
    # out of restarts: the launcher of the failing node gives up
    tfin = t
    blk_scn = Scn(job, cause)
    if crash_type:
        who, st, evf = scn.init_rank if scn.init_rank is not None else scn.init_node * job.gpn, first_status, ("rank", "node")
    else:
        who = fail_node * job.gpn + rng.randrange(job.gpn)
        st, evf = rng.choice(["Aborted", "Terminated"]), ()
    blk_scn.exits = [dict(members=Members(job, "rank", ids=[who]), tfn=lambda x: tfin - 1,
                          status=st, t_min=tfin - 1, ev=evf)]
    tb_, L = agent_block(blk_scn, fail_node)
    scn.ev(tfin, "agent", (L or []), node=fail_node, ev=evf)
    scn.ev(tfin, "ftl", [ftl_prefix(job, tfin, fail_node, "E", "launcher.py", 1728) +
                         "Agent .run() ended with terminal worker-group failure: worker group FAILED"], node=fail_node,
           ev=tuple(x for x in evf if x == "node"))
    scn.ev(tfin + 1, "srun", [f"srun: error: {job.host(fail_node)}: task {fail_node}: Exited with exit code 1"],
           node=fail_node, ev=tuple(x for x in evf if x == "node"))
    scn.ev(tfin + 1.5, "srun", [f"srun: Terminating StepId={job.jobid}.0"])
    scn.ev(tfin + 1.8, "stepd", [f"slurmstepd: error: *** STEP {job.jobid}.0 ON {job.hosts[0]} CANCELLED AT "
                                 f"{job.ts_slurm(tfin + 1.8, 0)} ***"])
    scn.state = "FAILED"
    scn.t_end = tfin + 40


GLOG_RE = re.compile(r"\b([EWIF])(\d{4}) (\d\d:\d\d:\d\d)\.(\d{9})\b")


def retime(job, lines, t, ni):
    """Lines replayed in a later restart cycle get that cycle's timestamps."""
    stamp = job.ts_glog(t, ni, "E")[1:]
    return [GLOG_RE.sub(lambda m: m.group(1) + stamp, ln) for ln in lines]


def add_nvrx_straggler(scn, rng):
    """NeMo StragglerDetectionCallback reports (nvidia-resiliency-ext)."""
    job = scn.job
    st = scn.strag
    t = (st["t_slow"] if st else scn.t_fail - 3000) + rng.uniform(120, 600)
    end = scn.t_end or scn.t_fail
    every = rng.choice([300, 600, 900])
    k = 0
    while t < end and k < 12:
        lines = []
        worst = []
        if st:
            for r in st["ranks"]:
                worst.append((r, job.node_of(r), rng.uniform(0.45, 0.74) if st["rank"] is not None else rng.uniform(0.62, 0.79)))
            ids = ", ".join(f"StragglerId(rank={r}, node='{job.host(n)}')" for r, n, _ in worst)
            lines.append(f"[NeMo W {job.ts_py(t, 0)[:19]} straggler_det_callback:125] STRAGGLER DETECTION WARNING: "
                         f"Some GPUs have worse relative performance. Affected ranks: {{{ids}}}")
        n = 4
        while len(worst) < n:
            r = rng.randrange(job.world)
            worst.append((r, job.node_of(r), rng.uniform(0.9, 0.97)))
        worst.sort(key=lambda x: x[2])
        best = [(r, job.node_of(r), rng.uniform(0.99, 1.0)) for r in rng.sample(range(job.world), n)]
        lines.append(f"[NeMo I {job.ts_py(t, 0)[:19]} straggler_det_callback:162] ")
        lines.append("GPU relative performance:")
        lines.append(f" Worst performing {n}/{job.world} ranks:")
        lines += [f"  Rank={r} Node={job.host(x)} Score={s:.2f}" for r, x, s in worst[:n]]
        lines.append(f" Best performing {n}/{job.world} ranks:")
        lines += [f"  Rank={r} Node={job.host(x)} Score={s:.2f}" for r, x, s in sorted(best, key=lambda y: -y[2])]
        scn.ev(t, "app", job.wrap(0, lines), rank=0, ev=(("rank", "node") if st else ()), tag="keep")
        t += every
        k += 1


def lay_ft(scn, rng, B):
    job = scn.job
    R = Render(scn, rng)
    B.add(f"slurm-{job.jobid}.out", R.stream({"batch", "app", "agent", "srun", "stepd"}))
    R2 = Render(scn, rng)

    def lab(src, rank=None, node=None):
        return f"{node:>{job.node_w}}: " if node is not None else (f"{job.node_of(rank):>{job.node_w}}: " if rank is not None else "")
    R2.label = lab
    B.add(f"ft_launcher-{job.jobid}.log", R2.stream({"ftl"}, gap=False))
    ni = scn.init_node
    if has_cause_kern(scn, ni) and rng.random() < 0.35:
        B.add(f"{job.host(ni)}-kern.log", R.kern_log(ni, scn.t_fail - 3600, scn.t_fail + 3600))
        if R.kern_hit:
            B.flag("node")
    if rng.random() < 0.5:
        B.add("sacct.txt", sacct_text(scn))


# --------------------------------------------------------------------------------------
# one run, the whole set
# --------------------------------------------------------------------------------------

LAYOUT_FN = {"srun_aggregate": lay_srun, "node_sample": lay_nodes, "ft_injob": lay_ft, "ops_triage": lay_ops}


def gen_run(out, seed, i, cause, layout):
    rng = random.Random(f"blind33:{seed}:{i}:{cause}:{layout}")
    job = Job(rng, seed, i)
    ft = layout == "ft_injob"
    if ft:
        job.launch = "torchrun"
        job.kill_on_bad_exit = False
        if job.framework == "torchtitan":
            job.framework = rng.choice(["nemo", "megatron"])
    scn = build(job, cause, rng, ft=ft)
    B = Bundle()
    LAYOUT_FN[layout](scn, rng, B)
    fl = B.flags
    rank = node = None
    if not scn.healthy:
        if scn.init_rank is not None and "rank" in fl:
            rank = scn.init_rank
        if scn.init_node is not None and ("node" in fl or ("node_ip" in fl and "ipmap" in fl)):
            node = job.host(scn.init_node)
    initiator = None if (rank is None and node is None) else {"rank": rank, "node": node}
    name = f"run-{i:03d}-{layout}"
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    for p, txt in sorted(B.files.items()):
        fp_ = os.path.join(d, p)
        os.makedirs(os.path.dirname(fp_), exist_ok=True)
        with open(fp_, "w") as f:
            f.write(txt)
    truth = {"healthy": scn.healthy, "cause": cause, "initiator": initiator, "layout": layout,
             "notes": (f"[job {job.jobid}: {job.world} GPUs on {job.nnodes} nodes x {job.gpn}] " + scn.notes +
                       (" The in-job restart recovered the job." if scn.ft_recover else ""))}
    if scn.init_node is not None and initiator is None and not scn.healthy:
        truth["notes"] += (f" (Actual culprit {'rank %s / ' % scn.init_rank if scn.init_rank is not None else ''}"
                           f"{job.host(scn.init_node)} is not identifiable from the attached files.)")
    with open(os.path.join(d, "truth.json"), "w") as f:
        json.dump(truth, f, indent=2)
        f.write("\n")
    if os.environ.get("BLIND33_DEBUG"):
        sys.stderr.write(f"{name} {cause} {initiator} " +
                         "; ".join(f"{k}:{sorted(v)}" for k, v in sorted(B.why.items())) + "\n")
    return name, truth


def plan(seed, n):
    rng = random.Random(f"blind33-plan:{seed}")
    order = CAUSES[:]
    rng.shuffle(order)
    off = {c: rng.randrange(len(LAYOUTS)) for c in CAUSES}
    seen = {}
    runs = []
    k = 0
    h = rng.randrange(len(LAYOUTS))
    for i in range(n):
        if i % 7 == 3:
            runs.append((i, None, LAYOUTS[h % len(LAYOUTS)]))
            h += 1
            continue
        c = order[k % len(order)]
        k += 1
        j = seen.get(c, 0)
        seen[c] = j + 1
        runs.append((i, c, LAYOUTS[(j + off[c]) % len(LAYOUTS)]))
    return runs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    counts = {}
    for i, c, lay in plan(a.seed, a.n):
        name, t = gen_run(a.out, a.seed, i, c, lay)
        key = c or "healthy"
        counts[key] = counts.get(key, 0) + 1
    print(json.dumps(dict(sorted(counts.items())), indent=1))


if __name__ == "__main__":
    main()
