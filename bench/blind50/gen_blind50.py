#!/usr/bin/env python3
"""blind50 - synthetic incident bundles of distributed GPU training jobs, with
hardware-health tool outputs attached (nvidia-smi, dcgmi, ibstat, mlxlink,
ethtool, ipmitool, sensors, lspci, journalctl, nccl-tests, NHC ...).

Written blind (from general knowledge of what these programs print), standard
library only.  Usage:

    python3 gen_blind50.py --out DIR --n 60 --seed S

Writes DIR/run-NNN-<layout>/ folders, each with the files an operator would
attach plus truth.json, and prints per-cause counts as JSON.
"""
import argparse
import json
import os
import random
import sys
from datetime import datetime, timezone

CAUSES = [
    "gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
    "illegal_memory_access", "python_exception", "host_oom_kill",
    "crash_signal", "preemption", "hang", "data_loader_stall",
    "collective_mismatch", "straggler", "unknown",
]

LAYOUTS = ["slurm_nhc", "k8s_dcgm", "dgx_ticket", "ib_fabric", "cloud_vm",
           "pdsh_deepspeed"]

# which causes each layout can express (all of them, by design, except where
# the layout has no plausible channel for it)
LAYOUT_CAUSES = {
    "slurm_nhc": list(CAUSES),
    "k8s_dcgm": list(CAUSES),
    "dgx_ticket": list(CAUSES),
    "ib_fabric": list(CAUSES),
    "cloud_vm": list(CAUSES),
    "pdsh_deepspeed": [c for c in CAUSES if c != "preemption"] + ["preemption"],
}

GPU_MODELS = {
    "A100": dict(name="NVIDIA A100-SXM4-80GB", mem=81920, arch="Ampere",
                 remap=True, pid="20b2", power=400, vbios="92.00.36.00.02"),
    "H100": dict(name="NVIDIA H100 80GB HBM3", mem=81559, arch="Hopper",
                 remap=True, pid="2330", power=700, vbios="96.00.89.00.01"),
    "V100": dict(name="Tesla V100-SXM2-32GB", mem=32768, arch="Volta",
                 remap=False, pid="1db5", power=300, vbios="88.00.80.00.01"),
}
DRIVERS = [("535.129.03", "12.2"), ("535.161.08", "12.2"), ("550.54.15", "12.4"),
           ("550.90.07", "12.4"), ("525.147.05", "12.0"), ("545.23.08", "12.3")]
NCCL_VERSIONS = ["2.18.6", "2.19.3", "2.20.5", "2.21.5"]
TORCH_VERSIONS = ["2.1.2", "2.2.2", "2.3.1", "2.4.0"]
BUS_IDS_8 = ["18", "2A", "3A", "5D", "9A", "AB", "BA", "DB"]
BUS_IDS_4 = ["07", "0B", "48", "4C"]
SIGNAMES = {6: "SIGABRT", 9: "SIGKILL", 11: "SIGSEGV", 7: "SIGBUS", 15: "SIGTERM"}


# --------------------------------------------------------------------------
# time helpers
# --------------------------------------------------------------------------
def dt(t):
    return datetime.fromtimestamp(t, timezone.utc)


def f_py(t):
    d = dt(t)
    return d.strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (d.microsecond // 1000)


def f_glog(t, lvl="E"):
    d = dt(t)
    return "%s%s %s.%06d" % (lvl, d.strftime("%m%d"), d.strftime("%H:%M:%S"), d.microsecond)


def f_journal(t):
    return dt(t).strftime("%b %d %H:%M:%S")


def f_iso(t):
    return dt(t).strftime("%Y-%m-%dT%H:%M:%S")


def f_torchrun(t):
    return dt(t).strftime("%Y-%m-%d_%H:%M:%S")


def f_ctime(t):
    return dt(t).strftime("%a %b %d %H:%M:%S %Y")


# --------------------------------------------------------------------------
# scenario
# --------------------------------------------------------------------------
class Sc:
    """Everything that happened in one run, in true time.  Renderers apply the
    per-node clock skew and the layout's formatting."""

    def __init__(self, rng, idx, layout, cause):
        self.rng = rng
        self.idx = idx
        self.layout = layout
        self.cause = cause
        self.healthy = cause is None
        r = rng
        self.model_key = r.choice(["A100", "A100", "H100", "H100", "V100"])
        self.gpu = GPU_MODELS[self.model_key]
        self.driver, self.cuda = r.choice(DRIVERS)
        self.nccl = r.choice(NCCL_VERSIONS)
        self.torch = r.choice(TORCH_VERSIONS)
        self.new_torch = self.torch >= "2.2"
        nn = r.choice([1, 2, 2, 2, 3, 4, 4]) if layout != "cloud_vm" else r.choice([1, 2, 2, 4])
        if cause in ("network", "straggler", "collective_mismatch") and nn == 1:
            nn = 2
        self.gpn = 8 if self.model_key != "V100" or r.random() < 0.5 else 4
        if nn >= 3 and self.gpn == 8 and r.random() < 0.3:
            self.gpn = 4
        self.nn = nn
        self.world = nn * self.gpn
        self.hosts = make_hosts(r, layout, nn)
        self.bus = BUS_IDS_8 if self.gpn == 8 else BUS_IDS_4
        # clock skew per node (seconds); one node occasionally badly off
        self.skew = [0.0] + [round(r.uniform(-2.5, 2.5), 3) for _ in range(nn - 1)]
        if nn > 1 and r.random() < 0.25:
            j = r.randrange(1, nn)
            self.skew[j] += r.choice([-1, 1]) * r.uniform(30, 95)
        r.shuffle(self.skew)
        y = r.choice([2023, 2024, 2024, 2025])
        self.t0 = datetime(y, r.randint(1, 12), r.randint(1, 28), r.randint(0, 23),
                           r.randint(0, 59), r.randint(0, 59), tzinfo=timezone.utc).timestamp()
        self.master = self.hosts[0]
        self.port = r.choice([29500, 29400, 6000, 12355])
        self.pids = {rk: r.randint(20000, 250000) for rk in range(self.world)}
        self.agent_pid = {n: r.randint(1000, 19999) for n in range(nn)}
        self.timeout_ms = r.choice([600000, 600000, 1800000, 1200000])
        self.script = r.choice(["train.py", "pretrain_gpt.py", "main.py", "train_llm.py",
                                "finetune.py"])
        self.model_name = r.choice(["llama-7b", "gpt-1.3b", "llama2-13b", "mixtral-lite",
                                    "vit-h14", "t5-3b", "gpt-neox-2.7b"])
        self.rank_lines = {rk: [] for rk in range(self.world)}
        self.agent_lines = {n: [] for n in range(nn)}
        self.kern = {n: [] for n in range(nn)}     # (t, facility, text)
        self.kern_prev_boot = {n: [] for n in range(nn)}
        self.exits = {}          # rank -> (t, exitcode)
        self.sched = []          # (t, text) scheduler/orchestrator events
        self.notes = []
        self.init_rank = None
        self.init_node = None
        self.rank_known = False
        self.node_known = False
        self.end_t = None
        self.job_state = "COMPLETED"
        self.hw = {n: make_node_hw(r, self, n) for n in range(nn)}
        self.hc_nodes = []       # nodes on which health tools were run
        self.hc_time = None
        self.transient = False
        self.rebooted = set()
        self.nccl_test = None    # dict describing post-incident nccl-tests
        self.steps_per_s = r.uniform(0.3, 2.5)
        self.iters_logged_every = r.choice([1, 5, 10, 10, 20])
        self.seq_base = r.randint(800, 40000)
        self.jobid = r.randint(100000, 9999999)
        self.net = "ib" if layout in ("slurm_nhc", "dgx_ticket", "ib_fabric", "pdsh_deepspeed") else \
            r.choice(["roce", "efa", "socket"]) if layout == "cloud_vm" else r.choice(["ib", "roce"])
        if layout == "cloud_vm" and self.net == "efa" and self.model_key == "V100":
            self.net = "socket"

    # helpers ---------------------------------------------------------------
    def node_of(self, rk):
        return rk // self.gpn

    def lr(self, rk):
        return rk % self.gpn

    def ranks_on(self, n):
        return list(range(n * self.gpn, (n + 1) * self.gpn))

    def add(self, rk, t, kind, text):
        self.rank_lines[rk].append((t, kind, text))

    def agent(self, n, t, kind, text):
        self.agent_lines[n].append((t, kind, text))

    def k(self, n, t, text, fac="kernel", prev=False):
        (self.kern_prev_boot if prev else self.kern)[n].append((t, fac, text))

    def ip(self, n):
        return "10.%d.%d.%d" % (self.idx % 200 + 10, 12 + n // 250, (n * 7 + 11) % 250 + 2)


def make_hosts(r, layout, nn):
    if layout == "slurm_nhc":
        pre = r.choice(["gpu", "hpc-gpu", "a100n", "node", "g"])
        start = r.randint(1, 180)
        w = r.choice([3, 4])
        step = r.choice([1, 1, 2, 3])
        return ["%s%0*d" % (pre, w, start + i * step) for i in range(nn)]
    if layout == "k8s_dcgm":
        pool = r.choice(["gpu-pool", "a100-pool", "h100-nodes", "trainpool"])
        cl = r.choice(["gke-ml-prod", "aks-train", "ml-cluster"])
        return ["%s-%s-%s-%s" % (cl, pool, "%08x" % r.getrandbits(32), "".join(r.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(4))) for _ in range(nn)]
    if layout == "dgx_ticket":
        pre = r.choice(["dgx", "dgxh100-", "su1-dgx", "pod2-dgx"])
        start = r.randint(1, 60)
        return ["%s%02d" % (pre, start + i) for i in range(nn)]
    if layout == "ib_fabric":
        rack = r.randint(1, 12)
        return ["r%02du%02d-gpu" % (rack, 4 * i + r.randint(1, 3)) for i in range(nn)]
    if layout == "cloud_vm":
        if r.random() < 0.5:
            return ["ip-172-31-%d-%d" % (r.randint(0, 63), r.randint(2, 254)) for _ in range(nn)]
        return ["train-%s-%d" % ("".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(5)), i) for i in range(nn)]
    # pdsh_deepspeed
    pre = r.choice(["worker-", "ml", "gpu-node-"])
    return ["%s%d" % (pre, i + r.randint(0, 1) * 10) for i in range(nn)]


def make_node_hw(r, sc, n):
    gpus = []
    for g in range(sc.gpn):
        gpus.append(dict(
            bus="00000000:%s:00.0" % sc.bus[g],
            serial="%d" % r.randint(1320000000000, 1659999999999),
            uuid="GPU-%08x-%04x-%04x-%04x-%012x" % (r.getrandbits(32), r.getrandbits(16), r.getrandbits(16), r.getrandbits(16), r.getrandbits(48)),
            temp=r.randint(29, 38), mem_temp=r.randint(31, 42), power=r.uniform(55, 95),
            sram_corr=0, dram_corr=0, dram_unc=0, sram_unc=0,
            agg_sram_corr=0, agg_dram_corr=0, agg_dram_unc=0,
            remap_corr=0, remap_unc=0, remap_pending="No", remap_fail="No",
            ret_sbe=0, ret_dbe=0, pending_bl="No",
            throttle=[], lost=False, reset_required=False, xid=0,
            nvlink_err={}, link_down=[],
        ))
    nics = []
    rate = r.choice([200, 400]) if sc.model_key == "H100" else r.choice([100, 200])
    for i in range(r.choice([1, 2, 4, 8]) if sc.gpn == 8 else r.choice([1, 2])):
        nics.append(dict(name="mlx5_%d" % i, state="Active", phys="LinkUp",
                         rate=rate,
                         lid=r.randint(2, 900), guid="0x%016x" % r.getrandbits(64),
                         symerr=0, linkdown=0, rcverr=0, crc=0, discards=r.choice([0, 0, 0, 17, 212]),
                         pci="0000:%02x:00.0" % r.choice([0x0c, 0x1f, 0x47, 0x5e, 0x8e, 0xa9, 0xc6, 0xe4])))
    return dict(gpus=gpus, nics=nics, sel=[], aer_ce=0, aer_ue=0, lnk_downgraded=None,
                cpu_temp=r.randint(38, 58), psu_fail=False, nfs_stall=False)


# --------------------------------------------------------------------------
# training-log content
# --------------------------------------------------------------------------
PY_WARNINGS = [
    "/usr/local/lib/python3.10/dist-packages/torch/_utils.py:831: UserWarning: TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class. This should only matter to you if you are using storages directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()\n  return self.fget.__get__(instance, owner)()",
    "/opt/conda/lib/python3.10/site-packages/torch/cuda/amp/grad_scaler.py:126: FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', args...)` instead.",
    "/usr/local/lib/python3.10/dist-packages/transformers/utils/generic.py:441: UserWarning: torch.utils._pytree._register_pytree_node is deprecated. Please use torch.utils._pytree.register_pytree_node instead.\n  _torch_pytree._register_pytree_node(",
    "/opt/conda/lib/python3.10/site-packages/torch/distributed/fsdp/_init_utils.py:440: UserWarning: FSDP is switching to use `NO_SHARD` instead of ShardingStrategy.FULL_SHARD since the world size is 1.",
    "/usr/local/lib/python3.10/dist-packages/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.4 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants.",
    "/opt/conda/lib/python3.10/site-packages/apex/__init__.py:68: DeprecatedFeatureWarning: apex.amp is deprecated and will be removed by the end of February 2023. Use [PyTorch AMP](https://pytorch.org/docs/stable/amp.html)",
    "/usr/local/lib/python3.10/dist-packages/torch/nn/modules/module.py:1501: UserWarning: Using a target size (torch.Size([8, 1])) that is different to the input size (torch.Size([8])). This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.",
]
GLOG_WARNINGS = [
    ("W", "socket.cpp:464] [c10d] The server socket cannot be initialized on [::]:{port} (errno: 97 - Address family not supported by protocol)."),
    ("W", "Utils.hpp:133] Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated; use TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function getCvarInt)"),
    ("W", "ProcessGroupNCCL.cpp:1850] Warning: 0NCCL_AVOID_RECORD_STREAMS=1 has no effect for point-to-point collectives. (function operator())"),
    ("W", "CUDAAllocatorConfig.h:28] Warning: expandable_segments not supported on this platform (function operator())"),
]


def gl(sc, rk, t, lvl, text):
    sc.add(rk, t, "glog:" + lvl, text)


def nccl_line(sc, rk, t, text, lvl="INFO"):
    n = sc.node_of(rk)
    sc.add(rk, t, "raw", "%s:%d:%d [%d] NCCL %s %s" % (sc.hosts[n], sc.pids[rk], sc.pids[rk] + 113 + sc.lr(rk), sc.lr(rk), lvl, text))


def nccl_warn(sc, rk, t, msg, src=None):
    if src is None:
        src = "transport/net_ib.cc:1295" if msg.startswith("NET/IB") else "misc/socket.cc:49" if msg.startswith("socket") else "include/alloc.h:125" if "alloc" in msg.lower() else "transport/net.cc:1107" if msg.startswith("NET/OFI") is False else "nccl_ofi_rdma.c:1853"
    n = sc.node_of(rk)
    sc.add(rk, t, "raw", "%s:%d:%d [%d] %s NCCL WARN %s" % (sc.hosts[n], sc.pids[rk], sc.pids[rk] + 131 + sc.lr(rk), sc.lr(rk), src, msg))


def emit_startup(sc, t):
    r = sc.rng
    for n in range(sc.nn):
        if r.random() < 0.7:
            sc.agent(n, t - 3, "agentwarn", "\n*****************************************\nSetting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. \n*****************************************")
    verbose_nccl = r.random() < 0.6
    warn_pick = r.sample(PY_WARNINGS, r.randint(1, 3))
    glw = r.sample(GLOG_WARNINGS, r.randint(0, 2))
    for rk in range(sc.world):
        tt = t + r.uniform(0.5, 4.0)
        for lvl, w in glw:
            gl(sc, rk, tt, lvl, w.format(port=sc.port))
        for w in warn_pick:
            if rk == 0 or r.random() < 0.5:
                sc.add(rk, tt + 1, "raw", w)
        if rk == 0:
            sc.add(rk, tt + 2, "py:INFO", "Initializing torch.distributed with backend=nccl world_size=%d master=%s:%d" % (sc.world, sc.master, sc.port))
            nccl_line(sc, rk, tt + 3, "Bootstrap : Using %s:%s<0>" % (r.choice(["eth0", "ens1f0", "bond0", "enp6s0"]), sc.ip(0)))
            sc.add(rk, tt + 3.1, "raw", "NCCL version %s+cuda%s" % (sc.nccl, sc.cuda))
        if verbose_nccl and (rk == 0 or rk % sc.gpn == 0 or r.random() < 0.3):
            nccl_line(sc, rk, tt + 3.2, "cudaDriverVersion %d" % (int(sc.cuda.split(".")[0]) * 1000 + int(sc.cuda.split(".")[1]) * 10))
            nccl_line(sc, rk, tt + 3.3, "NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation")
            if sc.net == "ib":
                nccl_line(sc, rk, tt + 3.4, "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB eth0:%s<0>" % sc.ip(sc.node_of(rk)))
                nccl_line(sc, rk, tt + 3.5, "Using network IB")
            elif sc.net == "roce":
                nccl_line(sc, rk, tt + 3.4, "NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE ; OOB eth0:%s<0>" % sc.ip(sc.node_of(rk)))
                nccl_line(sc, rk, tt + 3.5, "Using network IB")
            elif sc.net == "efa":
                nccl_line(sc, rk, tt + 3.4, "NET/OFI Using aws-ofi-nccl 1.7.4-aws")
                nccl_line(sc, rk, tt + 3.45, "NET/OFI Selected Provider is efa (found 4 nics)")
                nccl_line(sc, rk, tt + 3.5, "Using network AWS Libfabric")
            else:
                nccl_line(sc, rk, tt + 3.4, "NET/IB : No device found.")
                nccl_line(sc, rk, tt + 3.45, "NET/Socket : Using [0]eth0:%s<0>" % sc.ip(sc.node_of(rk)))
                nccl_line(sc, rk, tt + 3.5, "Using network Socket")
            if r.random() < 0.3:
                nccl_line(sc, rk, tt + 3.6, "NCCL_P2P_LEVEL set by environment to NVL")
            nccl_line(sc, rk, tt + 4.5, "comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId 0x%x - Init COMPLETE"
                      % (0x55d0a0000000 + r.getrandbits(24), rk, sc.world, sc.lr(rk), sc.lr(rk), sc.bus[sc.lr(rk)].lower(), 0x3e5a00000000 + sc.idx))
    return t + 6


def emit_training(sc, t, t_end, step0=0, slow=None, slow_factor=1.0, stop_rank_at=None):
    """Rank-0 progress lines from t to t_end.  Returns (t_last_logged, last_step)."""
    r = sc.rng
    style = sc.rng.choice(["megatron", "simple", "hf"]) if not hasattr(sc, "_style") else sc._style
    sc._style = style
    step = step0
    base_ms = 1000.0 / sc.steps_per_s
    every = sc.iters_logged_every
    tt = t
    lines = []
    cap = 260
    while True:
        ms = base_ms * r.uniform(0.97, 1.04) * (slow_factor if slow is not None else 1.0)
        tt += ms / 1000.0 * every
        step += every
        if tt >= t_end:
            break
        loss = 2.2 + 6.0 / (1 + step / 300.0) + r.uniform(-0.05, 0.05)
        lr = 3e-4 * min(1.0, step / 2000.0)
        if style == "megatron":
            txt = (" iteration %8d/  500000 | consumed samples: %12d | elapsed time per iteration (ms): %.1f | learning rate: %.3E | global batch size: %5d | lm loss: %.6E | loss scale: %.1f | grad norm: %.3f | number of skipped iterations:   0 | number of nan iterations:   0 |"
                   % (step, step * 1024, ms, lr, 1024, loss, r.choice([65536.0, 131072.0, 1.0]), r.uniform(0.3, 1.4)))
            kind = "raw"
        elif style == "simple":
            txt = "step %d | loss %.4f | lr %.2e | step_time %.3fs | tokens/s %d | mfu %.1f%%" % (
                step, loss, lr, ms / 1000, int(4096 * 256 * 1000 / ms), 38 + r.uniform(-2, 2) - (10 if slow else 0))
            kind = "py:INFO"
        else:
            txt = "{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %.3e, 'epoch': %.2f}" % (loss, r.uniform(0.2, 2), lr, step / 5000.0)
            kind = "raw"
        lines.append((tt, kind, txt))
    if len(lines) > cap:
        lines = lines[:20] + lines[-(cap - 20):]
    for l in lines:
        sc.rank_lines[0].append(l)
    if style == "hf" and lines and r.random() < 0.7:
        # a tqdm bar snapshot, as flushed into a redirected file (\r progress)
        tot = step0 + 20000
        cur = lines[-1]
        sc.add(0, cur[0] + 0.01, "raw", " %d%%|%s| %d/%d [%s<%s, %.2fit/s]" % (
            100 * step // tot, "\u2588" * (10 * step // tot) + " " * (10 - 10 * step // tot), step, tot,
            "1:%02d:%02d" % (r.randint(0, 59), r.randint(0, 59)), "9:%02d:%02d" % (r.randint(0, 59), r.randint(0, 59)), sc.steps_per_s))
    # periodic checkpoint + eval noise
    if r.random() < 0.6 and t_end - t > 600:
        tc = t + (t_end - t) * r.uniform(0.3, 0.8)
        sc.add(0, tc, "py:INFO", "Saving checkpoint to /checkpoints/%s/step_%d" % (sc.model_name, int(step0 + (tc - t) * sc.steps_per_s)))
        sc.add(0, tc + r.uniform(20, 90), "py:INFO", "Checkpoint saved in %.1fs" % r.uniform(20, 90))
    last = lines[-1][0] if lines else t
    return last, step


# --------------------------------------------------------------------------
# failure propagation (collateral damage)
# --------------------------------------------------------------------------
OPS = ["ALLREDUCE", "ALLREDUCE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE", "BROADCAST", "ALLGATHER"]


def pg_prefix(sc, rk):
    return "[PG 0 Rank %d]" % rk if sc.new_torch else "[Rank %d]" % rk


def watchdog_timeout(sc, rk, t, seq, op, numel, ran_ms):
    gl(sc, rk, t, "E", "ProcessGroupNCCL.cpp:%d] %s Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d) ran for %d milliseconds before timing out."
       % (616 if sc.new_torch else 475, pg_prefix(sc, rk), seq, op, numel, numel * (sc.world if "GATHER" in op else 1), sc.timeout_ms, ran_ms))


def abort_lines(sc, rk, t, reason_lines, exc="c10::DistBackendError"):
    """The NCCL watchdog tearing the process down (SIGABRT)."""
    gl(sc, rk, t + 0.01, "E", "ProcessGroupNCCL.cpp:%d] %s Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % (1537 if sc.new_torch else 489, pg_prefix(sc, rk)))
    gl(sc, rk, t + 0.02, "E", "ProcessGroupNCCL.cpp:%d] %s To avoid data inconsistency, we are taking the entire process down." % (1543 if sc.new_torch else 495, pg_prefix(sc, rk)))
    if sc.new_torch:
        gl(sc, rk, t + 0.03, "E", "ProcessGroupNCCL.cpp:1182] %s Process group watchdog thread terminated with exception: %s" % (pg_prefix(sc, rk), reason_lines[0]))
    sc.add(rk, t + 0.04, "raw", "terminate called after throwing an instance of '%s'" % exc)
    sc.add(rk, t + 0.05, "raw", "  what():  " + reason_lines[0])
    for l in reason_lines[1:]:
        sc.add(rk, t + 0.05, "raw", l)
    sc.add(rk, t + 0.06, "raw", "Exception raised from %s at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % (
        "checkTimeout" if "timeout" in reason_lines[0] else "checkForNCCLErrorsInternal", 565 if sc.new_torch else 455))
    sc.add(rk, t + 0.06, "raw", "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (0x7f%x in /usr/local/lib/python3.10/dist-packages/torch/lib/libc10.so)" % sc.rng.getrandbits(36))
    sc.add(rk, t + 0.06, "raw", "frame #1: <unknown function> + 0x%x (0x7f%x in /usr/local/lib/python3.10/dist-packages/torch/lib/libtorch_cuda.so)" % (sc.rng.getrandbits(24), sc.rng.getrandbits(36)))
    sc.add(rk, t + 0.06, "raw", "frame #2: <unknown function> + 0xdc253 (0x7f%x in /lib/x86_64-linux-gnu/libstdc++.so.6)" % sc.rng.getrandbits(36))
    sc.add(rk, t + 0.06, "raw", "frame #3: <unknown function> + 0x94ac3 (0x7f%x in /lib/x86_64-linux-gnu/libc.so.6)" % sc.rng.getrandbits(36))
    sc.add(rk, t + 0.07, "raw", "")


def remote_error_reason(sc, rk, peer_node, kind="closed"):
    peer = "%s<%d>" % (sc.ip(peer_node) if sc.rng.random() < 0.6 else sc.hosts[peer_node], sc.rng.randint(30000, 60999))
    if sc.net in ("ib", "roce") and kind != "closed_sock":
        last = "NET/IB : Got completion from peer %s with status=12 opcode=%d len=0 vendor err 129 (Send) localGid ::ffff:%s remoteGidsfe80::%x" % (
            peer, sc.rng.choice([0, 1, 2]), sc.ip(sc.node_of(rk)), sc.rng.getrandbits(32)) if kind == "ib" else \
            "NET/IB : Got completion from peer %s with error 5, opcode 0, len 0, vendor err 249 (Recv) localGid ::ffff:%s remoteGid ::ffff:%s" % (peer, sc.ip(sc.node_of(rk)), sc.ip(peer_node))
    elif sc.net == "efa" and kind != "closed_sock":
        last = "NET/OFI Request 0x7f%x completed with error. RC: 15. Error: 4353 (Connection reset by peer). Completed length: 0, Request: { dev: 0, size: 0, state: CREATED, type: RECV }" % sc.rng.getrandbits(32)
    else:
        last = "socketProgress: Connection closed by remote peer %s" % peer
    return ["NCCL error: remote process exited or there was a network error, NCCL version %s" % sc.nccl,
            "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
            "Last error:", last]


def agent_terminate(sc, n, t, exclude, why_rank=None, reason_code=None):
    """Torchrun on node n stops its remaining workers with SIGTERM."""
    for rk in sc.ranks_on(n):
        if rk in sc.exits or rk in exclude:
            continue
        t += sc.rng.uniform(0.0002, 0.003)
        sc.agent(n, t, "agentwarn", "Sending process %d closing signal SIGTERM" % sc.pids[rk])
        sc.exits[rk] = (t + 0.5, -15)


def agent_failed(sc, n, t, failures, binary="/usr/bin/python3"):
    """failures: list of (rank, t, exitcode, traceback-hint).  First = root cause."""
    failures = sorted(failures, key=lambda x: x[1])
    root = failures[0]
    sc.agent(n, t, "agenterr", "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (root[2], sc.lr(root[0]), sc.pids[root[0]], binary))
    def blk(i, f):
        rk, tf, ec, _ = f
        tb = ("Signal %d (%s) received by PID %d" % (-ec, SIGNAMES.get(-ec, "SIG?"), sc.pids[rk])) if ec < 0 else \
            "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
        return ("[%d]:\n  time      : %s\n  host      : %s\n  rank      : %d (local_rank: %d)\n  exitcode  : %d (pid: %d)\n  error_file: <N/A>\n  traceback : %s"
                % (i, f_torchrun(tf + sc.skew[n]), sc.hosts[n], rk, sc.lr(rk), ec, sc.pids[rk], tb))
    others = failures[1:]
    body = ["Traceback (most recent call last):",
            '  File "/usr/local/bin/torchrun", line 8, in <module>',
            "    sys.exit(main())",
            '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py", line %d, in wrapper' % (348 if sc.new_torch else 346),
            "    return f(*args, **kwargs)",
            '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/run.py", line %d, in main' % (812 if sc.new_torch else 806),
            "    run(args)",
            '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/run.py", line %d, in run' % (803 if sc.new_torch else 797),
            "    elastic_launch(",
            '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/launcher/api.py", line 135, in __call__',
            "    return launch_agent(self._config, self._entrypoint, list(args))",
            '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/launcher/api.py", line 268, in launch_agent',
            "    raise ChildFailedError(",
            "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
            "=" * 60, "%s FAILED" % sc.script, "-" * 60, "Failures:"]
    if others:
        for i, f in enumerate(others[:6]):
            body.append(blk(i + 1, f))
    else:
        body.append("  <NO_OTHER_FAILURES>")
    body += ["-" * 60, "Root Cause (first observed failure):", blk(0, root), "=" * 60]
    sc.agent(n, t + 0.4, "raw", "\n".join(body))
    sc.node_exit = getattr(sc, "node_exit", {})
    sc.node_exit[n] = (t + 0.6, 1)


def agent_signal(sc, n, t, sig=15):
    sc.agent(n, t, "agentwarn", "Received %d death signal, shutting down workers" % sig)
    for rk in sc.ranks_on(n):
        if rk in sc.exits:
            continue
        sc.agent(n, t + 0.01, "agentwarn", "Sending process %d closing signal %s" % (sc.pids[rk], SIGNAMES.get(sig, "SIGTERM")))
        sc.exits[rk] = (t + 0.4, -sig)
    sc.agent(n, t + 1.2, "raw", "\n".join([
        "Traceback (most recent call last):",
        '  File "/usr/local/bin/torchrun", line 8, in <module>',
        "    sys.exit(main())",
        "  ...",
        '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/elastic/multiprocessing/api.py", line %d, in _terminate_process_handler' % (79 if sc.new_torch else 62),
        "    raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)",
        "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: %d" % (sc.agent_pid[n], sig)]))
    sc.node_exit = getattr(sc, "node_exit", {})
    sc.node_exit[n] = (t + 1.3, 128 + sig if sig != 15 else 1)


def propagate_crash(sc, init_rank, t_fail, ec, flavor=None, seq=None, op="ALLREDUCE", remote_kind="closed",
                    local_peers_error=False, root_local=None):
    """The initiator exited at t_fail with exitcode ec.  Build what everybody
    else prints.  flavor: remote_err | timeout | sched_kill."""
    r = sc.rng
    sc.exits[init_rank] = (t_fail, ec)
    n0 = sc.node_of(init_rank)
    seq = seq or (sc.seq_base + r.randint(0, 5000))
    numel = r.choice([262144, 1048576, 33554432, 67108864, 8])
    flavor = flavor or r.choice(["remote_err", "remote_err", "timeout"])
    # local node: agent notices within a second or two
    t_agent = t_fail + r.uniform(0.2, 2.5)
    local_fail = [(init_rank, t_fail, ec, None)]
    if local_peers_error:
        for rk in sc.ranks_on(n0):
            if rk != init_rank and r.random() < 0.4:
                te = t_fail + r.uniform(0.01, 0.15)
                abort_lines(sc, rk, te, remote_error_reason(sc, rk, n0, "closed_sock"))
                sc.exits[rk] = (te + 0.1, -6)
                local_fail.append((rk, te + 0.1, -6, None))
    agent_terminate(sc, n0, t_agent, [])
    agent_failed(sc, n0, t_agent + 0.8, local_fail)
    t_first_node_exit = t_agent + 1.5
    # other nodes
    for n in range(sc.nn):
        if n == n0:
            continue
        if flavor == "remote_err":
            fails = []
            for rk in sc.ranks_on(n):
                te = t_fail + r.uniform(1.5, 25.0)
                if r.random() < 0.5 and rk % 2 == 0:
                    nccl_warn(sc, rk, te - 0.2, remote_error_reason(sc, rk, n0, remote_kind)[-1])
                abort_lines(sc, rk, te, remote_error_reason(sc, rk, n0, remote_kind))
                fails.append((rk, te + 0.1, -6, None))
            fails.sort(key=lambda x: x[1])
            first = fails[0]
            sc.exits[first[0]] = (first[1], -6)
            already = [f for f in fails if f[1] < first[1] + 0.3]
            for f in already:
                sc.exits[f[0]] = (f[1], -6)
            agent_terminate(sc, n, first[1] + 0.5, [])
            agent_failed(sc, n, first[1] + 1.2, already)
            # ranks killed by SIGTERM shouldn't have printed their abort text after that:
            trim_after(sc, n, first[1] + 0.6)
        elif flavor == "timeout":
            t_op = t_fail - r.uniform(0.05, 0.5)
            fails = []
            if n0 == 0 and sc.new_torch and r.random() < 0.7:
                for rk in sc.ranks_on(n)[:2]:
                    gl(sc, rk, t_fail + r.uniform(60, 120), "W", "ProcessGroupNCCL.cpp:1220] %s Failed to check the \"should dump\" flag on TCPStore, (maybe TCPStore server has shut down too early), with error: Connection reset by peer" % pg_prefix(sc, rk))
            for rk in sc.ranks_on(n):
                ran = sc.timeout_ms + r.randint(5, 900)
                te = t_op + ran / 1000.0
                watchdog_timeout(sc, rk, te, seq, op, numel, ran)
                if sc.new_torch:
                    gl(sc, rk, te + 0.001, "E", "ProcessGroupNCCL.cpp:%d] %s Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (1664, pg_prefix(sc, rk), seq, seq, seq - 1))
                abort_lines(sc, rk, te + 0.01, ["[%s] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d) ran for %d milliseconds before timing out." % (pg_prefix(sc, rk)[1:-1], seq, op, numel, numel, sc.timeout_ms, ran)])
                fails.append((rk, te + 0.1, -6, None))
            fails.sort(key=lambda x: x[1])
            already = [f for f in fails if f[1] < fails[0][1] + 0.2]
            for f in already:
                sc.exits[f[0]] = (f[1], -6)
            agent_terminate(sc, n, fails[0][1] + 0.5, [])
            agent_failed(sc, n, fails[0][1] + 1.0, already)
            trim_after(sc, n, fails[0][1] + 0.6)
        else:  # sched_kill: scheduler/launcher tears the other nodes down
            tk = t_first_node_exit + r.uniform(0.5, 32)
            agent_signal(sc, n, tk, 15)
            for rk in sc.ranks_on(n):
                if r.random() < 0.3:
                    sc.add(rk, tk + 0.05, "raw", "[rank%d]: torch.distributed.DistNetworkError: Connection reset by peer" % rk if sc.new_torch else "RuntimeError: Connection reset by peer")
    sc.end_t = max([v[0] for v in sc.exits.values()] + [v[0] for v in getattr(sc, "node_exit", {}).values()])
    return seq


def trim_after(sc, n, t_cut):
    """Workers SIGTERMed at t_cut print nothing after it (unless they already exited)."""
    for rk in sc.ranks_on(n):
        ex = sc.exits.get(rk)
        if ex and ex[1] == -15:
            sc.rank_lines[rk] = [l for l in sc.rank_lines[rk] if l[0] <= t_cut]


def propagate_stuck(sc, culprit, t_stuck, seq, op, numel, culprit_op=None, culprit_times_out=False, notimeout_ranks=()):
    """All ranks but the culprit enqueue `seq` at ~t_stuck and time out."""
    r = sc.rng
    fails_by_node = {n: [] for n in range(sc.nn)}
    for rk in range(sc.world):
        if rk == culprit and not culprit_times_out:
            continue
        if rk in notimeout_ranks:
            continue
        o = culprit_op if (rk == culprit and culprit_op) else op
        ran = sc.timeout_ms + r.randint(3, 400)
        te = t_stuck + r.uniform(0, 0.4) + ran / 1000.0
        watchdog_timeout(sc, rk, te, seq, o, numel if rk != culprit else (numel if culprit_op is None else numel // sc.world), ran)
        if sc.new_torch:
            gl(sc, rk, te + 0.001, "E", "ProcessGroupNCCL.cpp:1664] %s Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pg_prefix(sc, rk), seq, seq, seq - 1))
        abort_lines(sc, rk, te + 0.01, ["[%s] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d) ran for %d milliseconds before timing out." % (pg_prefix(sc, rk)[1:-1], seq, o, numel, numel, sc.timeout_ms, ran)])
        fails_by_node[sc.node_of(rk)].append((rk, te + 0.1, -6, None))
    for n in range(sc.nn):
        fl = sorted(fails_by_node[n], key=lambda x: x[1])
        if not fl:
            continue
        already = [f for f in fl if f[1] < fl[0][1] + 0.25]
        for f in already:
            sc.exits[f[0]] = (f[1], -6)
        agent_terminate(sc, n, fl[0][1] + 0.5, [])
        agent_failed(sc, n, fl[0][1] + 1.0, already)
        trim_after(sc, n, fl[0][1] + 0.6)
    sc.end_t = max([v[0] for v in sc.exits.values()] + [v[0] for v in getattr(sc, "node_exit", {}).values()])


# --------------------------------------------------------------------------
# causes
# --------------------------------------------------------------------------
def pci_short(sc, g):
    return "0000:%s:00" % sc.bus[g].lower()


def xid(sc, n, t, g, code, pid, name, msg, prev=False):
    sc.k(n, t, "NVRM: Xid (PCI:%s): %d, pid=%s, name=%s, %s" % (pci_short(sc, g), code, pid, name, msg), prev=prev)
    sc.hw[n]["gpus"][g]["xid"] = code


def py_traceback(sc, rk, t, frames, exc_line, extra=()):
    pre = "[rank%d]: " % rk if sc.new_torch else ""
    sc.add(rk, t, "raw", pre + "Traceback (most recent call last):")
    for f, ln, fn, code in frames:
        sc.add(rk, t, "raw", pre + '  File "%s", line %d, in %s' % (f, ln, fn))
        sc.add(rk, t, "raw", pre + "    " + code)
    for l in exc_line.split("\n"):
        sc.add(rk, t, "raw", pre + l)
    for l in extra:
        sc.add(rk, t, "raw", pre + l)


def train_frames(sc, deep="step"):
    s = "/workspace/%s" % sc.script
    fr = [(s, sc.rng.randint(400, 900), "<module>", "main(args)"),
          (s, sc.rng.randint(200, 399), "main", "trainer.fit(model, train_loader)"),
          ("/workspace/trainer.py", sc.rng.randint(100, 600), "fit", "loss = self.train_step(batch)")]
    if deep == "step":
        fr += [("/workspace/trainer.py", sc.rng.randint(600, 800), "train_step", "self.scaler.scale(loss).backward()"),
               ("/usr/local/lib/python3.10/dist-packages/torch/_tensor.py", 522 if sc.new_torch else 492, "backward", "torch.autograd.backward("),
               ("/usr/local/lib/python3.10/dist-packages/torch/autograd/__init__.py", 266 if sc.new_torch else 251, "backward", "Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")]
    elif deep == "fwd":
        fr += [("/workspace/trainer.py", sc.rng.randint(600, 800), "train_step", "out = self.model(**batch)"),
               ("/usr/local/lib/python3.10/dist-packages/torch/nn/modules/module.py", 1532, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
               ("/workspace/model/attention.py", sc.rng.randint(60, 300), "forward", "attn = torch.matmul(q, k.transpose(-2, -1)) * self.scale")]
    elif deep == "data":
        fr += [("/workspace/trainer.py", sc.rng.randint(100, 600), "fit", "for step, batch in enumerate(loader):"),
               ("/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py", 631, "__next__", "data = self._next_data()"),
               ("/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py", 1329 if sc.new_torch else 1318, "_next_data", "idx, data = self._get_data()")]
    return fr


CUDA_TAIL = ["CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
             "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.",
             "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", ""]


def pick_culprit(sc, prefer_not_zero=True):
    r = sc.rng
    rk = r.randrange(sc.world)
    if prefer_not_zero and rk == 0 and sc.world > 1 and r.random() < 0.8:
        rk = r.randrange(1, sc.world)
    return rk


def hc_choose(sc, bad_node):
    """Which nodes the operator ran the health tools on."""
    r = sc.rng
    if bad_node is None:
        sc.hc_nodes = sorted(r.sample(range(sc.nn), r.randint(1, sc.nn)))
        return
    x = r.random()
    if x < 0.6 or sc.nn == 1:
        sc.hc_nodes = [bad_node]
    elif x < 0.8:
        other = [n for n in range(sc.nn) if n != bad_node]
        sc.hc_nodes = [r.choice(other)]
        sc.notes.append("health tools were run on %s, not on the node where the fault happened (%s)" % (sc.hosts[sc.hc_nodes[0]], sc.hosts[bad_node]))
    else:
        sc.hc_nodes = list(range(sc.nn))


def irrelevant_noise(sc):
    """Alarming-but-irrelevant counters on some nodes."""
    r = sc.rng
    for n in range(sc.nn):
        hw = sc.hw[n]
        if r.random() < 0.45:
            g = hw["gpus"][r.randrange(sc.gpn)]
            g["sram_corr"] = r.randint(1, 40)
            g["agg_sram_corr"] = g["sram_corr"] + r.randint(0, 300)
            g["agg_dram_corr"] = r.choice([0, 0, 2, 17])
            if sc.gpu["remap"] and r.random() < 0.4:
                g["remap_corr"] = r.randint(1, 3)
        if r.random() < 0.35:
            hw["gpus"][r.randrange(sc.gpn)]["throttle"].append("sw_power")
        if r.random() < 0.5:
            d = r.randint(60, 400)
            hw["sel"].append((sc.t0 - d * 86400 - r.randint(0, 86000), "Memory #0x%02x" % r.choice([0x87, 0x8a, 0x3c]), "Correctable ECC", "Asserted"))
        if r.random() < 0.3:
            hw["sel"].append((sc.t0 - r.randint(30, 200) * 86400, "Power Supply #0x%02x" % r.choice([0x51, 0x52]), "Power Supply AC lost", "Asserted"))
            hw["sel"].append((sc.t0 - r.randint(1, 29) * 86400, "Power Supply #0x%02x" % 0x51, "Power Supply AC lost", "Deasserted"))
        if r.random() < 0.35:
            hw["aer_ce"] = r.randint(1, 30)
            for _ in range(min(hw["aer_ce"], 3)):
                tt = sc.t0 + r.uniform(-7200, 20000)
                sc.k(n, tt, "pcieport 0000:%02x:01.0: AER: Corrected error received: 0000:%02x:00.0" % (r.choice([0x15, 0x58, 0x97]), r.choice([0x16, 0x59, 0x98])))
                sc.k(n, tt, "nvme 0000:%02x:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)" % r.choice([0x16, 0x59, 0x98]))
        if r.random() < 0.25 and len(hw["nics"]) > 1:
            nic = hw["nics"][-1]
            nic["state"], nic["phys"] = "Down", "Disabled"
            nic["unused"] = True
        if r.random() < 0.2:
            sc.k(n, sc.t0 - r.uniform(3600, 30000), "NVRM: Xid (PCI:%s): 13, pid=%d, name=python3, Graphics SM Warp Exception on (GPC 1, TPC 2, SM 0): Out Of Range Address" % (pci_short(sc, r.randrange(sc.gpn)), r.randint(1000, 99999)))
        if r.random() < 0.3:
            sc.k(n, sc.t0 + r.uniform(10, 8000), "nvidia-nvlink: IBMNPU: ... "[:0] + "perf: interrupt took too long (%d > %d), lowering kernel.perf_event_max_sample_rate to %d" % (r.randint(2600, 9000), r.randint(2500, 2599), r.choice([79000, 63000, 50000])))


def c_gpu_hardware(sc, t, tf):
    r = sc.rng
    rk = pick_culprit(sc)
    n, g = sc.node_of(rk), sc.lr(rk)
    code = r.choice([79, 79, 79, 119, 120, 62, 95])
    pid = sc.pids[rk]
    if code == 79:
        sc.k(n, tf - 0.4, "NVRM: GPU at PCI:%s: %s" % (pci_short(sc, g), sc.hw[n]["gpus"][g]["uuid"]))
        sc.k(n, tf - 0.4, "NVRM: GPU Board Serial Number: %s" % sc.hw[n]["gpus"][g]["serial"])
        xid(sc, n, tf - 0.4, g, 79, "'<unknown>'", "<unknown>", "GPU has fallen off the bus.")
        sc.k(n, tf - 0.39, "NVRM: GPU %s.0: GPU has fallen off the bus." % pci_short(sc, g))
        if r.random() < 0.5:
            sc.k(n, tf - 0.5, "pcieport 0000:%02x:01.0: AER: Uncorrected (Fatal) error received: 0000:%s.0" % (int(sc.bus[g], 16) - 3, pci_short(sc, g)[5:]))
        sc.hw[n]["gpus"][g]["lost"] = True
        errmsg = r.choice(["unspecified launch failure", "unknown error"])
    elif code in (119, 120):
        xid(sc, n, tf - 6, g, 119, pid, "python", "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a4c 0x4)." % g) if code == 119 else \
            xid(sc, n, tf - 6, g, 120, "'<unknown>'", "<unknown>", "GSP task timeout @ pc:0x%x, task: 1" % r.getrandbits(26))
        sc.k(n, tf - 5.9, "NVRM: GPU%d GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x0000000020800a4c 0x0000000000000004." % g)
        sc.k(n, tf - 5.9, "NVRM: GPU%d RPC history (CPU -> GSP):" % g)
        sc.hw[n]["gpus"][g]["reset_required"] = True
        errmsg = "unspecified launch failure"
    elif code == 62:
        xid(sc, n, tf - 0.3, g, 62, "'<unknown>'", "<unknown>", "%08x %08x %08x %08x %08x %08x %08x %08x" % tuple(r.getrandbits(20) for _ in range(8)))
        sc.hw[n]["gpus"][g]["reset_required"] = True
        errmsg = "unspecified launch failure"
    else:
        xid(sc, n, tf - 0.3, g, 95, pid, "python", "Uncontained: FBHUB. RST: Yes, D-RST: No")
        sc.hw[n]["gpus"][g]["reset_required"] = True
        sc.hw[n]["gpus"][g]["dram_unc"] = 1
        errmsg = "uncorrectable ECC error encountered" if r.random() < 0.3 else "unspecified launch failure"
    if r.random() < 0.5:
        py_traceback(sc, rk, tf, train_frames(sc, "step"), "RuntimeError: CUDA error: %s" % errmsg, CUDA_TAIL)
        ec = 1
    else:
        abort_lines(sc, rk, tf, ["CUDA error: %s" % errmsg] + CUDA_TAIL[:3], exc="c10::Error")
        ec = -6
    sc.init_rank, sc.init_node = rk, n
    sc.rank_known = sc.node_known = True
    propagate_crash(sc, rk, tf + 0.1, ec)
    sc.notes.append("GPU %d (%s) on %s: Xid %d; rank %d died with CUDA error '%s'" % (g, sc.bus[g], sc.hosts[n], code, rk, errmsg))
    hw_post(sc, n, g)


def hw_post(sc, n, g):
    """Decide tool placement and whether the fault still shows (transient)."""
    r = sc.rng
    hc_choose(sc, n)
    if r.random() < 0.35:
        sc.transient = True
        sc.rebooted.add(n)
        gg = sc.hw[n]["gpus"][g]
        gg["lost"] = False
        gg["reset_required"] = False
        gg["dram_unc"] = 0
        gg["link_down"] = []
        gg["remap_pending"] = "No"
        sc.notes.append("node %s was rebooted/GPU reset before the health tools ran; they look clean (transient)" % sc.hosts[n])
        # move current-boot kernel events to previous boot
        sc.kern_prev_boot[n] = sc.kern[n]
        sc.kern[n] = []


def c_ecc_memory(sc, t, tf):
    r = sc.rng
    rk = pick_culprit(sc)
    n, g = sc.node_of(rk), sc.lr(rk)
    gg = sc.hw[n]["gpus"][g]
    if sc.gpu["remap"]:
        sc.k(n, tf - 0.2, "NVRM: Xid (PCI:%s): 63, pid=%d, name=python, Row Remapper: New row (0x%08x) marked for remapping, reset gpu to activate." % (pci_short(sc, g), sc.pids[rk], r.getrandbits(28)))
        if r.random() < 0.4:
            xid(sc, n, tf - 0.21, g, 48, sc.pids[rk], "python", "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (r.randint(0, 15), r.randint(0, 1)))
        gg.update(dram_unc=r.randint(1, 3), remap_unc=gg["remap_unc"] + 1, remap_pending="Yes")
        gg["agg_dram_unc"] = gg["dram_unc"] + r.choice([0, 0, 1])
        if r.random() < 0.3:
            gg["remap_fail"] = "Yes"
    else:
        xid(sc, n, tf - 0.2, g, 48, sc.pids[rk], "python", "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (r.randint(0, 7), r.randint(0, 1)))
        gg.update(dram_unc=r.randint(1, 2), ret_dbe=r.randint(1, 2), pending_bl="Yes")
        gg["agg_dram_unc"] = gg["dram_unc"] + r.randint(0, 2)
    if r.random() < 0.6:
        py_traceback(sc, rk, tf, train_frames(sc, r.choice(["step", "fwd"])), "RuntimeError: CUDA error: uncorrectable ECC error encountered", CUDA_TAIL)
        ec = 1
    else:
        nccl_warn(sc, rk, tf - 0.01, "Cuda failure 'uncorrectable ECC error encountered'", "enqueue.cc:%d" % r.choice([1134, 1586]))
        abort_lines(sc, rk, tf, ["NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % sc.nccl,
                                 "ncclUnhandledCudaError: Call to CUDA function failed.", "Last error:",
                                 "Cuda failure 'uncorrectable ECC error encountered'"])
        ec = -6
    sc.init_rank, sc.init_node = rk, n
    sc.rank_known = sc.node_known = True
    propagate_crash(sc, rk, tf + 0.1, ec)
    sc.notes.append("uncorrectable DRAM ECC error on GPU %d of %s (rank %d)" % (g, sc.hosts[n], rk))
    hc_choose(sc, n)
    if r.random() < 0.3:
        # GPU was reset before the tools ran: volatile counts gone, aggregate / remap history remain
        sc.transient = True
        gg["dram_unc"] = 0
        gg["remap_pending"] = "No"
        gg["pending_bl"] = "No"
        sc.notes.append("GPU reset before tools: volatile ECC counters are 0, aggregate/remapped-row counts still show it")


def c_nvlink(sc, t, tf):
    r = sc.rng
    rk = pick_culprit(sc)
    n, g = sc.node_of(rk), sc.lr(rk)
    link = r.randrange(12 if sc.model_key != "V100" else 6)
    xid(sc, n, tf - 1.0, g, 74, sc.pids[rk], "python", "NVLink: fatal error detected on link %d(0x0, 0x0, 0x%x, 0x0, 0x0, 0x0, 0x0)" % (link, r.choice([0x10000, 0x20000, 0x100])))
    if sc.model_key == "H100" and r.random() < 0.6:
        sc.k(n, tf - 1.1, "nvidia-nvswitch%d: SXid (PCI:0000:%02x:00.0): 24007, Fatal, Link %d sourcetrack timeout error (First)" % (r.randrange(4), r.choice([5, 6, 7, 8]), r.randrange(64)))
        sc.k(n, tf - 1.1, "nvidia-nvswitch%d: SXid (PCI:0000:%02x:00.0): 24007, Severity 5 Engine instance %d Sub-engine instance 00" % (0, 5, r.randrange(64)))
    gg = sc.hw[n]["gpus"][g]
    gg["link_down"] = [link]
    gg["nvlink_err"] = {link: dict(replay=r.randint(100, 4000), recovery=r.randint(3, 40), crc=r.randint(10, 900))}
    if r.random() < 0.55:
        nccl_warn(sc, rk, tf - 0.02, "Cuda failure '%s'" % r.choice(["unspecified launch failure", "an illegal memory access was encountered"]), "proxy.cc:%d" % r.choice([1493, 1520]))
        abort_lines(sc, rk, tf, ["NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % sc.nccl,
                                 "ncclUnhandledCudaError: Call to CUDA function failed.", "Last error:", "Cuda failure 'unspecified launch failure'"])
        sc.init_rank, sc.rank_known = rk, True
        propagate_crash(sc, rk, tf + 0.1, -6)
    else:
        # the intra-node collective just stops: everybody times out
        seq = sc.seq_base + r.randint(0, 5000)
        propagate_stuck(sc, -1, tf, seq, r.choice(OPS[:4]), r.choice([1048576, 33554432]))
        sc.init_rank, sc.rank_known = None, False
    sc.init_node, sc.node_known = n, True
    sc.notes.append("NVLink fatal error (Xid 74) on GPU %d link %d of %s" % (g, link, sc.hosts[n]))
    hw_post(sc, n, g)


def c_network(sc, t, tf):
    r = sc.rng
    n = r.randrange(sc.nn)
    if n == 0 and sc.nn > 1 and r.random() < 0.6:
        n = r.randrange(1, sc.nn)
    hw = sc.hw[n]
    nic = hw["nics"][r.randrange(len([x for x in hw["nics"] if not x.get("unused")]) or 1)]
    pci = nic["pci"]
    ifn = "ibp%ds0" % int(pci[5:7], 16)
    if sc.net in ("ib", "roce"):
        if r.random() < 0.5:
            sc.k(n, tf - 2, "mlx5_core %s: mlx5_port_module_event:1164:(pid 0): Port module event[error]: module 0, Cable error, %s" % (pci, r.choice(["Bus stuck (I2C or data shorted)", "High Temperature", "Cable is unplugged"])))
        nm = ifn if sc.net == "ib" else "enp%ds0np0" % int(pci[5:7], 16)
        sc.k(n, tf - 1.5, "mlx5_core %s %s: Link down" % (pci, nm))
        flap = r.random() < 0.6
        if flap:
            sc.k(n, tf + r.uniform(5, 90), "mlx5_core %s %s: Link up" % (pci, nm))
        nic.update(linkdown=r.randint(1, 6), symerr=r.randint(200, 90000), rcverr=r.randint(10, 3000), crc=r.randint(50, 20000))
        if not flap:
            nic.update(state="Down", phys="Polling")
        msg = "NET/IB : Got completion from peer %s<%d> with status=12 opcode=%d len=0 vendor err 129 (Send) localGid ::ffff:%s remoteGidsfe80::%x" % (
            sc.ip((n + 1) % sc.nn), r.randint(30000, 60000), r.choice([0, 2]), sc.ip(n), r.getrandbits(32))
    elif sc.net == "efa":
        sc.k(n, tf - 1, "efa 0000:%02x:00.0: Failed to process command %d (opcode %d) comp_status %d err %d" % (r.choice([0x10, 0x20, 0x31]), r.randint(1, 9), r.randint(1, 20), r.randint(1, 3), -110))
        nic.update(crc=r.randint(1, 10), linkdown=1)
        msg = "NET/OFI Request 0x7f%x completed with error. RC: 21. Error: 12345 (Transport retry counter exceeded). Completed length: 0" % r.getrandbits(32)
        flap = True
    else:
        sc.k(n, tf - 3, "ena 0000:00:%02x.0 eth0: Found a Tx that wasn't completed on time, qid %d, index %d." % (r.choice([5, 6]), r.randint(0, 7), r.randint(0, 1023)))
        sc.k(n, tf - 1, "ena 0000:00:%02x.0 eth0: Keep alive watchdog timeout." % 5)
        sc.k(n, tf - 1, "ena 0000:00:05.0: Trigger reset is on")
        sc.k(n, tf + 4, "ena 0000:00:05.0: Device reset completed successfully, Driver info: Elastic Network Adapter (ENA) v2.8.9g")
        msg = "socketProgressOpt: Call to recv from %s<%d> failed : Connection reset by peer" % (sc.ip((n + 1) % sc.nn), r.randint(30000, 60000))
        flap = True
    # the bad node's ranks and their ring neighbours error out at about the same time
    bad = sc.ranks_on(n)
    t_err = tf
    fails_by_node = {}
    for rk in range(sc.world):
        nd = sc.node_of(rk)
        if nd == n or r.random() < 0.35:
            te = t_err + r.uniform(0.0, 8.0) + (0 if nd == n else r.uniform(0, 10))
            if r.random() < 0.6:
                nccl_warn(sc, rk, te - 0.01, msg if nd == n else remote_error_reason(sc, rk, n, "ib")[-1])
            if r.random() < 0.5:
                py_traceback(sc, rk, te, train_frames(sc, "step")[:3] + [
                    ("/usr/local/lib/python3.10/dist-packages/torch/distributed/c10d_logger.py", 75 if sc.new_torch else 47, "wrapper", "return func(*args, **kwargs)"),
                    ("/usr/local/lib/python3.10/dist-packages/torch/distributed/distributed_c10d.py", 2288 if sc.new_torch else 2050, "all_reduce", "work = group.allreduce([tensor], opts)")],
                    "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version %s\nncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. \nLast error:\n%s" % (r.choice([1970, 2006, 1691]), sc.nccl, msg if nd == n else remote_error_reason(sc, rk, n, "ib")[-1]))
                ec = 1
            else:
                abort_lines(sc, rk, te, remote_error_reason(sc, rk, n, "ib") if nd != n else
                            ["NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % sc.nccl,
                             "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ", "Last error:", msg])
                ec = -6
            fails_by_node.setdefault(nd, []).append((rk, te + 0.1, ec, None))
    for nd in range(sc.nn):
        fl = sorted(fails_by_node.get(nd, []), key=lambda x: x[1])
        if not fl:
            # the rest of that node times out later
            seq = sc.seq_base
            for rk in sc.ranks_on(nd):
                ran = sc.timeout_ms + r.randint(3, 500)
                watchdog_timeout(sc, rk, tf + ran / 1000.0, seq, "ALLREDUCE", 1048576, ran)
                fl.append((rk, tf + ran / 1000.0 + 0.1, -6, None))
            fl.sort(key=lambda x: x[1])
        already = [f for f in fl if f[1] < fl[0][1] + 0.3]
        for f in already:
            sc.exits[f[0]] = (f[1], f[2])
        agent_terminate(sc, nd, fl[0][1] + 0.4, [])
        agent_failed(sc, nd, fl[0][1] + 1.0, already)
        trim_after(sc, nd, fl[0][1] + 0.5)
    sc.end_t = max(v[0] for v in sc.exits.values())
    sc.init_rank, sc.init_node, sc.node_known = None, n, True
    sc.bad_nic = (n, nic["name"])
    sc.notes.append("%s link on %s (%s) went down%s; NCCL errors on both sides" % (sc.net.upper(), sc.hosts[n], nic["name"], " and came back (flap)" if flap else ""))
    hc_choose(sc, n)
    if flap:
        sc.transient = True
    sc.nccl_test = dict(bad_node=n, flap=flap)


def app_crash_common(sc, rk, tf, ec, note, hc=True):
    sc.init_rank, sc.init_node = rk, sc.node_of(rk)
    sc.rank_known = sc.node_known = True
    propagate_crash(sc, rk, tf + 0.1, ec, flavor=sc.rng.choice(["remote_err", "timeout", "sched_kill"]) if sc.layout in ("slurm_nhc", "pdsh_deepspeed") else None)
    sc.notes.append(note)
    if hc:
        hc_choose(sc, sc.node_of(rk) if sc.rng.random() < 0.6 else None)


def c_cuda_oom(sc, t, tf):
    r = sc.rng
    rk = pick_culprit(sc)
    g = sc.lr(rk)
    tot = sc.gpu["mem"] / 1024.0 - 0.85
    req = r.choice([1.0, 2.0, 3.91, 7.83, 512 / 1024.0, 16.0])
    free = r.uniform(0.05, min(req, 1.5))
    alloc = tot - free - r.uniform(0.5, 3)
    if sc.new_torch:
        msg = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of %.2f GiB of which %.2f GiB is free. Process %d has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
               % (req, g, tot, free, sc.pids[rk], tot - free, alloc, tot - free - alloc))
    else:
        msg = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB (GPU %d; %.2f GiB total capacity; %.2f GiB already allocated; %.2f GiB free; %.2f GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF"
               % (req, g, tot, alloc, free, tot - free))
    py_traceback(sc, rk, tf, train_frames(sc, r.choice(["fwd", "step"])), msg)
    app_crash_common(sc, rk, tf, 1, "CUDA OOM on rank %d (long batch); others collateral" % rk)


def c_illegal(sc, t, tf):
    r = sc.rng
    rk = pick_culprit(sc)
    n, g = sc.node_of(rk), sc.lr(rk)
    v = r.choice(["iae", "assert", "iae_wd"])
    if v == "assert":
        for i in range(r.randint(2, 6)):
            sc.add(rk, tf - 0.01, "raw", "../aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [%d,0,0], thread: [%d,0,0] Assertion `-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"` failed." % (r.randint(0, 4000), r.randint(0, 127)))
        py_traceback(sc, rk, tf, train_frames(sc, "fwd"), "RuntimeError: CUDA error: device-side assert triggered", CUDA_TAIL)
        xid(sc, n, tf - 0.02, g, 43, sc.pids[rk], "python", "Ch 000000%02x" % r.randint(8, 40))
        ec = 1
    elif v == "iae":
        py_traceback(sc, rk, tf, train_frames(sc, r.choice(["fwd", "step"])), "RuntimeError: CUDA error: an illegal memory access was encountered", CUDA_TAIL)
        xid(sc, n, tf - 0.02, g, 13 if r.random() < 0.5 else 31, sc.pids[rk], "python",
            "Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (r.randint(0, 7), r.randint(0, 8), r.randint(0, 1)) if r.random() < 0.5 else
            "Ch 0000000a, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_%d faulted @ 0x7f%x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (r.randint(0, 15), r.getrandbits(12), r.getrandbits(32)))
        ec = 1
    else:
        abort_lines(sc, rk, tf, ["CUDA error: an illegal memory access was encountered"] + CUDA_TAIL[:3], exc="c10::Error")
        xid(sc, n, tf - 0.02, g, 31, sc.pids[rk], "python", "Ch 00000010, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_%d faulted @ 0x7f%x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE" % (r.randint(0, 15), r.getrandbits(12), r.getrandbits(32)))
        ec = -6
    app_crash_common(sc, rk, tf, ec, "app-level illegal memory access / device assert on rank %d (%s); Xid from the app, hardware fine" % (rk, v))


PY_EXC = [
    ("KeyError: 'attention_mask'", "data"),
    ("ValueError: Loss is NaN at step {step}; aborting", "step"),
    ("FileNotFoundError: [Errno 2] No such file or directory: '/data/shards/train-{n:05d}-of-02048.arrow'", "data"),
    ("RuntimeError: The size of tensor a (4097) must match the size of tensor b (4096) at non-singleton dimension 1", "fwd"),
    ("AssertionError: sequence length 8193 exceeds max_position_embeddings 8192", "fwd"),
    ("TypeError: unsupported operand type(s) for +: 'NoneType' and 'int'", "step"),
    ("OSError: [Errno 122] Disk quota exceeded", "step"),
    ("json.decoder.JSONDecodeError: Expecting ',' delimiter: line 1 column 8193 (char 8192)", "data"),
]


def c_python_exception(sc, t, tf):
    r = sc.rng
    rk = pick_culprit(sc)
    exc, deep = r.choice(PY_EXC)
    exc = exc.format(step=r.randint(1000, 90000), n=r.randint(0, 2047))
    fr = train_frames(sc, deep)
    if deep == "data":
        sc.add(rk, tf - 0.01, "raw", ("[rank%d]: " % rk if sc.new_torch else "") + "Traceback (most recent call last):")
        py_traceback(sc, rk, tf, fr, exc.split(":")[0] + ": Caught %s in DataLoader worker process %d.\nOriginal %s" % (exc.split(":")[0], r.randint(0, 7), "Traceback (most recent call last):\n  File \"/workspace/data/dataset.py\", line %d, in __getitem__\n    sample = self._load(idx)\n%s" % (r.randint(40, 200), exc)))
    else:
        py_traceback(sc, rk, tf, fr, exc)
    app_crash_common(sc, rk, tf, 1, "uncaught %s on rank %d" % (exc.split(":")[0], rk))


def c_host_oom(sc, t, tf):
    r = sc.rng
    rk = pick_culprit(sc)
    n = sc.node_of(rk)
    pid = sc.pids[rk]
    rss = r.randint(90, 480) * 1024 * 1024
    cg = sc.layout == "k8s_dcgm" or r.random() < 0.4
    sc.k(n, tf - 0.3, "python invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=%d" % (r.choice([0, 0, 1000, -997]) if not cg else 939))
    sc.k(n, tf - 0.3, "CPU: %d PID: %d Comm: python Tainted: P           OE     5.15.0-%d-generic #%d-Ubuntu" % (r.randint(0, 127), pid, r.randint(80, 120), r.randint(80, 130)))
    if cg:
        sc.k(n, tf - 0.29, "memory: usage %dkB, limit %dkB, failcnt %d" % (rss + 1000, rss + 1000, r.randint(1, 900)))
        sc.k(n, tf - 0.28, "Memory cgroup out of memory: Killed process %d (python) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:%d" % (pid, rss * 2, rss, r.randint(100000, 900000), r.randint(0, 9999999), r.choice([0, 1000]), r.randint(100000, 900000), 939 if sc.layout == "k8s_dcgm" else 0))
    else:
        sc.k(n, tf - 0.29, "Mem-Info:")
        sc.k(n, tf - 0.29, "active_anon:%d inactive_anon:%d isolated_anon:0" % (r.randint(10 ** 7, 10 ** 8), r.randint(10 ** 5, 10 ** 6)))
        sc.k(n, tf - 0.28, "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/user.slice/user-1000.slice/session-4.scope,task=python,pid=%d,uid=1000" % pid)
        sc.k(n, tf - 0.28, "Out of memory: Killed process %d (python) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:0kB, UID:1000 pgtables:%dkB oom_score_adj:0" % (pid, rss * 2, rss, r.randint(100000, 900000), r.randint(100000, 900000)))
    sc.k(n, tf + 0.5, "oom_reaper: reaped process %d (python), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB" % pid)
    if sc.layout == "slurm_nhc":
        sc.sched.append((tf + 20, "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % sc.jobid))
    sc.init_rank, sc.init_node = rk, n
    sc.rank_known = sc.node_known = True
    propagate_crash(sc, rk, tf, -9)
    if cg and sc.layout == "k8s_dcgm":
        sc.k8s_oom = n
    sc.notes.append("host OOM killer (%s) killed rank %d (pid %d) on %s" % ("cgroup" if cg else "global", rk, pid, sc.hosts[n]))
    hc_choose(sc, n if r.random() < 0.5 else None)


def c_crash_signal(sc, t, tf):
    r = sc.rng
    rk = pick_culprit(sc)
    n = sc.node_of(rk)
    v = r.choice(["segv", "segv", "abrt", "bus"])
    if v == "segv":
        sc.add(rk, tf, "raw", "Fatal Python error: Segmentation fault")
        sc.add(rk, tf, "raw", "")
        sc.add(rk, tf, "raw", "Thread 0x%016x (most recent call first):" % (0x7f0000000000 + r.getrandbits(36)))
        sc.add(rk, tf, "raw", '  File "/usr/lib/python3.10/threading.py", line 324 in wait')
        sc.add(rk, tf, "raw", '  File "/usr/lib/python3.10/threading.py", line 607 in wait')
        sc.add(rk, tf, "raw", "")
        sc.add(rk, tf, "raw", "Current thread 0x%016x (most recent call first):" % (0x7f0000000000 + r.getrandbits(36)))
        sc.add(rk, tf, "raw", '  File "/workspace/ext/fused_ops.py", line %d in forward' % r.randint(30, 200))
        sc.add(rk, tf, "raw", '  File "/usr/local/lib/python3.10/dist-packages/torch/nn/modules/module.py", line 1541 in _call_impl')
        sc.add(rk, tf, "raw", '  File "/workspace/trainer.py", line %d in train_step' % r.randint(600, 800))
        sc.add(rk, tf, "raw", "")
        sc.add(rk, tf, "raw", "Extension modules: numpy.core._multiarray_umath, torch._C, torch._C._fft, yaml._yaml, %s (total: %d)" % ("fused_ops_cuda", r.randint(40, 90)))
        sc.k(n, tf, "python[%d]: segfault at %x ip 00007f%08x sp 00007ffd%08x error %d in %s[7f%x+%x] likely on CPU %d (core %d, socket %d)" % (
            sc.pids[rk], r.choice([0, 8, 0x18, 0x7f3e0]), r.getrandbits(32), r.getrandbits(32), r.choice([4, 6]), r.choice(["fused_ops_cuda.so", "libtorch_cpu.so", "libc.so.6"]), r.getrandbits(36), r.getrandbits(24), r.randint(0, 95), r.randint(0, 47), r.randint(0, 1)))
        ec = -11
    elif v == "abrt":
        sc.add(rk, tf, "raw", r.choice(["free(): invalid pointer", "double free or corruption (!prev)", "corrupted size vs. prev_size"]))
        ec = -6
    else:
        sc.add(rk, tf, "raw", "Fatal Python error: Bus error")
        sc.add(rk, tf, "raw", "")
        sc.add(rk, tf, "raw", "Current thread 0x%016x (most recent call first):" % (0x7f0000000000 + r.getrandbits(36)))
        sc.add(rk, tf, "raw", '  File "/usr/local/lib/python3.10/dist-packages/numpy/core/memmap.py", line 268 in __getitem__')
        sc.add(rk, tf, "raw", '  File "/workspace/data/indexed_dataset.py", line %d in get' % r.randint(200, 500))
        ec = -7
    app_crash_common(sc, rk, tf, ec, "process crashed with %s on rank %d (software; no hardware evidence)" % (SIGNAMES.get(-ec), rk))


def c_preemption(sc, t, tf):
    r = sc.rng
    lay = sc.layout
    how = r.choice(["preempt", "timelimit"]) if lay in ("slurm_nhc", "pdsh_deepspeed", "dgx_ticket", "ib_fabric") else \
        r.choice(["evict", "preempt"]) if lay == "k8s_dcgm" else r.choice(["spot", "maintenance"])
    sc.preempt_how = how
    if lay in ("slurm_nhc", "pdsh_deepspeed", "dgx_ticket", "ib_fabric"):
        sc.sched.append((tf, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO %s ***" % (sc.jobid, sc.hosts[0], f_iso(tf + sc.skew[0]), "PREEMPTION" if how == "preempt" else "TIME LIMIT")))
        if how == "timelimit":
            sc.sched.insert(0, (tf - 0.5, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (sc.jobid, sc.hosts[0], f_iso(tf + sc.skew[0]))))
        sc.job_state = "PREEMPTED" if how == "preempt" else "TIMEOUT"
    elif lay == "k8s_dcgm":
        sc.job_state = "Evicted" if how == "evict" else "Preempted"
    else:
        sc.job_state = how
    for n in range(sc.nn):
        agent_signal(sc, n, tf + r.uniform(0.01, 1.5) + (0 if n == 0 else r.uniform(0, 2)), 15)
        for rk in sc.ranks_on(n):
            if rk == 0 or r.random() < 0.2:
                sc.add(rk, tf + 0.3, "py:WARNING", "Received SIGTERM, attempting to save emergency checkpoint..." if r.random() < 0.5 else "SIGTERM received, exiting")
    sc.end_t = tf + 5
    sc.notes.append("job terminated by the scheduler/cloud (%s)" % how)
    hc_choose(sc, None)


def c_hang(sc, t, tf):
    r = sc.rng
    rk = pick_culprit(sc)
    seq = sc.seq_base + r.randint(0, 4000)
    op = r.choice(OPS[:4])
    sc.hang_rank = rk
    sc.pyspy = r.random() < 0.55 or sc.layout == "dgx_ticket"
    sc.hang_where = r.choice([
        [("/workspace/trainer.py", 712, "train_step", "self._maybe_log_grad_stats()"), ("/workspace/utils/metrics.py", 88, "_maybe_log_grad_stats", "with self._lock:")],
        [("/workspace/trainer.py", 640, "train_step", "if self.should_eval(step): self.evaluate()"), ("/workspace/trainer.py", 901, "evaluate", "for b in self.eval_loader:"), ("/usr/lib/python3.10/threading.py", 320, "wait", "waiter.acquire()")],
        [("/workspace/trainer.py", 733, "train_step", "torch.cuda.synchronize()")],
    ])
    propagate_stuck(sc, rk, tf, seq, op, r.choice([1048576, 33554432, 262144]))
    sc.init_rank, sc.init_node = (rk, sc.node_of(rk)) if sc.pyspy else (None, None)
    sc.rank_known = sc.node_known = sc.pyspy
    sc.notes.append("rank %d stopped progressing (%s); all others timed out in SeqNum %d%s" % (
        rk, sc.hang_where[-1][2], seq, "; py-spy dump attached" if sc.pyspy else "; nothing in the bundle singles it out"))
    hc_choose(sc, sc.node_of(rk) if r.random() < 0.5 else None)


def c_data_stall(sc, t, tf):
    r = sc.rng
    rk = pick_culprit(sc)
    n = sc.node_of(rk)
    fs = r.choice(["nfs", "lustre", "fuse"])
    if fs == "nfs":
        srv = r.choice(["nfs01", "fs-data", "10.20.0.5"])
        sc.k(n, tf - 50, "nfs: server %s not responding, still trying" % srv)
        sc.k(n, tf + 70, "INFO: task pt_data_worker:%d blocked for more than 120 seconds." % (sc.pids[rk] + r.randint(5, 200)))
        sc.k(n, tf + 70, "      Tainted: P           OE     5.15.0-105-generic #115-Ubuntu")
        sc.k(n, tf + 70, "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.")
        sc.k(n, tf + 70, " rpc_wait_bit_killable+0x24/0xa0 [sunrpc]")
        if r.random() < 0.5:
            sc.k(n, tf + sc.timeout_ms / 1000 + 200, "nfs: server %s OK" % srv)
    elif fs == "lustre":
        sc.k(n, tf - 40, "Lustre: %d:0:(client.c:2310:ptlrpc_expire_one_request()) @@@ Request sent has timed out for slow reply: [sent %d/real %d]  req@%016x x%d/t0(0) o3->scratch-OST%04x-osc-ffff%x@10.40.1.%d@o2ib:6/4 lens 488/440 e 0 to 1 dl %d ref 2 fl Rpc:X/0/ffffffff rc 0/-1" % (
            r.randint(1000, 9999), int(tf - 140), int(tf - 140), r.getrandbits(64), r.getrandbits(40), r.randint(0, 63), r.getrandbits(32), r.randint(2, 30), int(tf - 40)))
        sc.k(n, tf - 39, "Lustre: scratch-OST%04x-osc-ffff%x: Connection to scratch-OST%04x (at 10.40.1.%d@o2ib) was lost; in progress operations using this service will wait for recovery to complete" % (3, r.getrandbits(32), 3, 7))
        sc.k(n, tf + 70, "INFO: task python:%d blocked for more than 120 seconds." % (sc.pids[rk] + r.randint(5, 200)))
    else:
        sc.k(n, tf + 70, "INFO: task pt_data_worker:%d blocked for more than 120 seconds." % (sc.pids[rk] + r.randint(5, 200)))
        sc.k(n, tf + 70, " fuse_simple_request+0x1a4/0x2c0")
    seq = sc.seq_base + r.randint(0, 4000)
    v = r.choice(["timeout_only", "dl_timeout", "slowlog"])
    if v == "slowlog":
        for i in range(r.randint(1, 3)):
            sc.add(rk, tf - 300 + i * 90, "py:WARNING", "[rank%d] data loading is slow: waited %.1fs for batch (avg 0.04s)" % (rk, r.uniform(20, 90)))
    if v == "dl_timeout" and sc.timeout_ms >= 1200000:
        dlt = r.choice([600, 900])
        py_traceback(sc, rk, tf + dlt, train_frames(sc, "data") + [("/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py", 1146, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e")],
                     "RuntimeError: DataLoader timed out after %d seconds" % dlt)
        sc.init_rank, sc.init_node = rk, n
        sc.rank_known = sc.node_known = True
        propagate_crash(sc, rk, tf + dlt + 0.1, 1, flavor="timeout", seq=seq)
    else:
        propagate_stuck(sc, rk, tf, seq, "ALLREDUCE", 1048576)
        sc.init_rank, sc.init_node = (rk, n) if v == "slowlog" else (None, n)
        sc.rank_known = v == "slowlog"
        sc.node_known = True
    sc.pyspy = sc.layout == "dgx_ticket" or r.random() < 0.3
    if sc.pyspy:
        sc.hang_rank = rk
        sc.hang_where = train_frames(sc, "data")[2:] + [("/usr/lib/python3.10/multiprocessing/queues.py", 113, "get", "if not self._poll(timeout):"), ("/usr/lib/python3.10/multiprocessing/connection.py", 424, "_poll", "r = wait([self], timeout)")]
        sc.init_rank, sc.rank_known = rk, True
    sc.notes.append("rank %d stuck reading training data (%s stall on %s, variant %s)" % (rk, fs, sc.hosts[n], v))
    hc_choose(sc, n if r.random() < 0.5 else None)
    if not sc.rank_known and (n not in sc.hc_nodes or sc.layout in ("pdsh_deepspeed", "dgx_ticket")):
        # the kernel messages naming the node are not in the bundle
        sc.node_known = False


def c_mismatch(sc, t, tf):
    r = sc.rng
    rk = pick_culprit(sc)
    seq = r.randint(20, 3000)
    good = r.choice(["ALLREDUCE", "_ALLGATHER_BASE"])
    bad = r.choice([o for o in ["BROADCAST", "ALLGATHER", "_REDUCE_SCATTER_BASE", "BARRIER"] if o != good])
    if r.random() < 0.5:
        # TORCH_DISTRIBUTED_DEBUG=DETAIL: every rank raises
        fp = lambda o, shp: "CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%s], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))" % (seq, o, shp)
        shp = str(r.choice([4096, 1048576, 262144]))
        fails = {}
        for x in range(sc.world):
            other = rk if x != rk else (0 if rk != 0 else 1)
            mine_op, other_op = (good, bad) if x != rk else (bad, good)
            te = tf + r.uniform(0, 1.5)
            py_traceback(sc, x, te, train_frames(sc, "step")[:3] + [("/usr/local/lib/python3.10/dist-packages/torch/distributed/distributed_c10d.py", 2288, "all_reduce" if mine_op == "ALLREDUCE" else "broadcast", "work = group.%s([tensor], opts)" % ("allreduce" if mine_op == "ALLREDUCE" else "broadcast"))],
                         "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects: \t Op type: %s vs %s" % (x, fp(mine_op, shp), other, fp(other_op, shp), mine_op, other_op))
            fails.setdefault(sc.node_of(x), []).append((x, te + 0.1, 1, None))
        for n, fl in fails.items():
            fl.sort(key=lambda z: z[1])
            already = fl[:r.randint(1, len(fl))]
            for f in already:
                sc.exits[f[0]] = (f[1], 1)
            agent_terminate(sc, n, fl[0][1] + 0.6, [])
            agent_failed(sc, n, fl[0][1] + 1.0, already)
            trim_after(sc, n, fl[0][1] + 0.7)
        sc.end_t = max(v[0] for v in sc.exits.values())
        sc.notes.append("rank %d issued %s while the others issued %s at seq %d (DETAIL debug mode)" % (rk, bad, good, seq))
    else:
        propagate_stuck(sc, rk, tf, seq, good, 1048576, culprit_op=bad, culprit_times_out=True)
        sc.notes.append("rank %d issued %s while the others issued %s at seq %d; all time out, the odd OpType shows in rank %d's watchdog line" % (rk, bad, good, seq, rk))
    sc.init_rank, sc.init_node = rk, sc.node_of(rk)
    sc.rank_known = sc.node_known = True
    hc_choose(sc, None)


def c_unknown(sc, t, tf):
    r = sc.rng
    v = r.choice(["silent_exit", "silent_exit", "all_remote"])
    if v == "silent_exit":
        rk = pick_culprit(sc)
        ec = r.choice([1, -9, -15, 255 - 256 if False else 1])
        sc.init_rank, sc.init_node = rk, sc.node_of(rk)
        sc.rank_known = sc.node_known = True
        propagate_crash(sc, rk, tf, ec)
        sc.notes.append("rank %d exited (code %d) without printing anything; no kernel/hardware evidence" % (rk, ec))
        hc_choose(sc, sc.node_of(rk))
    else:
        seq = sc.seq_base + r.randint(0, 4000)
        propagate_stuck(sc, -1, tf, seq, "ALLREDUCE", 1048576)
        sc.notes.append("every rank timed out in the same collective; no rank or hardware stands out")
        hc_choose(sc, None)


def c_straggler(sc, t, tf):
    r = sc.rng
    n = r.randrange(sc.nn)
    g = r.randrange(sc.gpn)
    rk = n * sc.gpn + g
    v = r.choice(["thermal", "pcie", "nic", "power"])
    hw = sc.hw[n]
    if v == "thermal":
        hw["gpus"][g]["throttle"] += ["hw_slowdown", "hw_thermal"]
        hw["gpus"][g]["temp"] = r.randint(86, 92)
        hw["sel"].append((tf - r.uniform(3600, 20000), "Fan #0x%02x" % r.choice([0x30, 0x32, 0x34]), "Lower Critical going low", "Asserted"))
        hw["fan_fail"] = True
    elif v == "pcie":
        hw["lnk_downgraded"] = g
    elif v == "nic":
        nic = hw["nics"][0]
        nic["rate"] = nic["rate"] // 2 if r.random() < 0.5 else nic["rate"] // 4
        nic["degraded"] = True
        nic["symerr"] = r.randint(1000, 50000)
    else:
        hw["gpus"][g]["throttle"] += ["hw_slowdown", "hw_power_brake"]
        hw["psu_fail"] = True
        hw["sel"].append((tf - r.uniform(3600, 40000), "PS%d Status" % r.randint(1, 6), "Power Supply Failure detected", "Asserted"))
    sc.straggler = dict(node=n, gpu=g, rank=rk, v=v)
    per_rank_logs = r.random() < 0.5
    if per_rank_logs:
        for i in range(r.randint(3, 8)):
            tt = t + (tf - t) * (0.3 + i * 0.08)
            sc.add(0, tt, "py:WARNING", "slowest rank in last 100 steps: rank %d (%s) fwd+bwd %.2fs vs median %.2fs" % (rk, sc.hosts[n], r.uniform(1.6, 2.4), r.uniform(0.75, 0.95)))
    sc.init_rank = rk if (per_rank_logs and v != "nic") else None
    sc.rank_known = sc.init_rank is not None
    sc.init_node, sc.node_known = n, True
    sc.job_state = "RUNNING"
    sc.end_t = tf
    sc.notes.append("%s is persistently slow (%s); job kept running at reduced speed" % (sc.hosts[n], v))
    hc_choose(sc, n)
    sc.nccl_test = dict(bad_node=n, slow=True) if v in ("nic", "pcie") else sc.nccl_test


CAUSE_FN = {
    "gpu_hardware": c_gpu_hardware, "ecc_memory": c_ecc_memory, "nvlink": c_nvlink,
    "network": c_network, "cuda_oom": c_cuda_oom, "illegal_memory_access": c_illegal,
    "python_exception": c_python_exception, "host_oom_kill": c_host_oom,
    "crash_signal": c_crash_signal, "preemption": c_preemption, "hang": c_hang,
    "data_loader_stall": c_data_stall, "collective_mismatch": c_mismatch,
    "straggler": c_straggler, "unknown": c_unknown,
}


def build(sc):
    r = sc.rng
    irrelevant_noise(sc)
    t = emit_startup(sc, sc.t0)
    if sc.healthy:
        dur = r.uniform(1200, 20000)
        emit_training(sc, t, t + dur)
        te = t + dur + r.uniform(1, 30)
        sc.add(0, te, "py:INFO", "Training finished: %d steps in %.1f h" % (int(dur * sc.steps_per_s), dur / 3600))
        if sc.new_torch and r.random() < 0.5:
            for rk in range(sc.world):
                if r.random() < 0.4:
                    gl(sc, rk, te + 2, "W", "ProcessGroupNCCL.cpp:1168] Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only appeared since PyTorch 2.4 (function operator())")
        for n in range(sc.nn):
            sc.agent(n, te + 3 + r.uniform(0, 2), "agentinfo", "[default] worker group successfully finished. Waiting 300 seconds for other agents to finish.")
            sc.agent(n, te + 4 + r.uniform(0, 2), "agentinfo", "Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish")
            if n > 0 and r.random() < 0.4:
                sc.agent(n, te + 6, "raw", "[W socket.cpp:%d] [c10d] recvValue failed on SocketImpl(fd=%d, addr=[%s]:%d, remote=[%s]:%d): Connection reset by peer" % (
                    r.choice([428, 581]), r.randint(3, 40), sc.hosts[n], r.randint(30000, 60000), sc.master, sc.port))
        for rk in range(sc.world):
            sc.exits[rk] = (te + 3, 0)
        sc.end_t = te + 8
        sc.job_state = "COMPLETED"
        hc_choose(sc, None)
        sc.notes.append("healthy run; counters/noise that look alarming are irrelevant")
        if r.random() < 0.3:
            sc.nccl_test = dict(bad_node=None)
    else:
        dur = r.uniform(900, 30000)
        tf = t + dur
        if sc.cause == "straggler":
            tm = t + dur * r.uniform(0.2, 0.6)
            _, st = emit_training(sc, t, tm)
            emit_training(sc, tm, tf, step0=st, slow=True, slow_factor=r.uniform(1.6, 2.3))
        else:
            emit_training(sc, t, tf)
        CAUSE_FN[sc.cause](sc, t, tf)
        if sc.job_state == "COMPLETED":
            sc.job_state = "FAILED"
        if sc.nccl_test is None and r.random() < 0.35:
            sc.nccl_test = dict(bad_node=None)
    sc.hc_time = sc.end_t + r.uniform(600, 6 * 3600)


# --------------------------------------------------------------------------
# rendering of training logs
# --------------------------------------------------------------------------
def render_rank_line(sc, rk, l):
    t, kind, text = l
    t += sc.skew[sc.node_of(rk)]
    if kind == "raw":
        return text
    if kind.startswith("py:"):
        lvl = kind[3:]
        if sc.pyfmt == 0:
            return "%s - %s - %s" % (f_py(t), lvl, text)
        if sc.pyfmt == 1:
            return "[%s][%s][rank%d] %s" % (f_py(t), lvl, rk, text)
        return "%s | %-7s | %s" % (f_py(t)[:-4], lvl, text)
    lvl = kind.split(":")[1]
    if sc.new_torch:
        return "[rank%d]:[%s %d torch/csrc/distributed/c10d/%s" % (rk, f_glog(t, lvl), sc.pids[rk] + 17, text)
    return "[%s %s" % (lvl, text)


def render_agent_line(sc, n, l):
    t, kind, text = l
    t += sc.skew[n]
    if kind == "raw":
        return text
    lvl = {"agentwarn": "W", "agenterr": "E", "agentinfo": "I"}[kind]
    mod = "torch.distributed.elastic.multiprocessing.api" if kind != "agentinfo" else "torch.distributed.elastic.agent.server.api"
    if text.startswith("\n****"):
        mod = "torch.distributed.run"
    if sc.new_torch:
        path = mod.replace(".", "/") + ".py"
        return "%s %d %s:%d] %s" % (f_glog(t, lvl), sc.agent_pid[n] * 7 + 139, path, {"W": 897, "E": 862, "I": 864}[lvl], text)
    return "%s:%s:%s" % ({"W": "WARNING", "E": "ERROR", "I": "INFO"}[lvl], mod, text)


def node_stream(sc, n, worker_prefix=True):
    """Merged (time-sorted) output of torchrun + its workers on node n."""
    items = []
    for i, l in enumerate(sc.agent_lines[n]):
        items.append((l[0], 0, i, render_agent_line(sc, n, l)))
    for rk in sc.ranks_on(n):
        pre = "[default%d]:" % sc.lr(rk) if worker_prefix else ""
        for i, l in enumerate(sc.rank_lines[rk]):
            txt = render_rank_line(sc, rk, l)
            items.append((l[0], 1 + sc.lr(rk), i, "\n".join(pre + x for x in txt.split("\n"))))
    items.sort(key=lambda x: (x[0], x[1], x[2]))
    out = []
    for it in items:
        out.extend(it[3].split("\n"))
    return out


def maybe_truncate(sc, lines, keep_head=40, keep_tail=400):
    if len(lines) > keep_head + keep_tail + 50 and sc.rng.random() < 0.6:
        cut = len(lines) - keep_head - keep_tail
        return lines[:keep_head] + ["", "... [%d lines trimmed] ..." % cut if sc.rng.random() < 0.5 else "[...]", ""] + lines[-keep_tail:]
    return lines


# --------------------------------------------------------------------------
# health tool outputs
# --------------------------------------------------------------------------
def gpu_clean_after(sc, n):
    return n in sc.rebooted


def t_tool(sc, n, extra=0):
    return sc.hc_time + sc.skew[n] + extra


def nvidia_smi_table(sc, n):
    r = random.Random("%s-smi-%d" % (sc.idx, n))
    hw = sc.hw[n]
    lines = [f_ctime(t_tool(sc, n)) + "       ",
             "+---------------------------------------------------------------------------------------+",
             "| NVIDIA-SMI %-22s Driver Version: %-14s CUDA Version: %-9s|" % (sc.driver, sc.driver, sc.cuda),
             "|-----------------------------------------+----------------------+----------------------+",
             "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |",
             "| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |",
             "|                                         |                      |               MIG M. |",
             "|=========================================+======================+======================|"]
    for i, g in enumerate(hw["gpus"]):
        if g["lost"]:
            lines.append("|   %d  %-20s           On  | %s ERR! |                 ERR! |" % (i, sc.gpu["name"][7:27], g["bus"]))
            lines.append("|ERR!  ERR! ERR!             ERR! / ERR! |    ERR! /  ERR!      |   ERR!     Default   |")
            lines.append("|                                         |                      |                 ERR! |")
        else:
            lines.append("|   %d  %-20s           On  | %s Off |  %19s |" % (i, sc.gpu["name"][7:27], g["bus"], str(g["dram_unc"]) if g["dram_unc"] else "0"))
            lines.append("| N/A   %2dC    P0            %3dW / %3dW |      %2dMiB / %5dMiB |      0%%      Default |" % (g["temp"], int(g["power"]), sc.gpu["power"], r.randint(2, 7), sc.gpu["mem"]))
            lines.append("|                                         |                      |             Disabled |")
        lines.append("+-----------------------------------------+----------------------+----------------------+")
    lines += ["", "+---------------------------------------------------------------------------------------+",
              "| Processes:                                                                            |",
              "|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |",
              "|        ID   ID                                                             Usage      |",
              "|=======================================================================================|",
              "|  No running processes found                                                           |",
              "+---------------------------------------------------------------------------------------+"]
    return lines


THROTTLE_KEYS = [("idle", "Idle"), ("app_clk", "Applications Clocks Setting"), ("sw_power", "SW Power Cap"),
                 ("hw_slowdown", "HW Slowdown"), ("hw_thermal", "HW Thermal Slowdown"), ("hw_power_brake", "HW Power Brake Slowdown"),
                 ("sync_boost", "Sync Boost"), ("sw_thermal", "SW Thermal Slowdown"), ("display", "Display Clock Setting")]


def nvidia_smi_q(sc, n):
    hw = sc.hw[n]
    newfmt = sc.driver >= "535"
    out = ["", "==============NVSMI LOG==============", "",
           "Timestamp                                 : %s" % f_ctime(t_tool(sc, n)),
           "Driver Version                            : %s" % sc.driver,
           "CUDA Version                              : %s" % sc.cuda, "",
           "Attached GPUs                             : %d" % sc.gpn]
    for i, g in enumerate(hw["gpus"]):
        if g["lost"]:
            out.append("Unable to determine the device handle for GPU%s: Unknown Error" % g["bus"][4:] if i == 0 else "GPU %s" % g["bus"])
            if i != 0:
                out.append("    Unable to determine the device handle for gpu %s: Unknown Error" % g["bus"][4:])
            continue
        running = sc.cause == "straggler" and not sc.healthy and sc.straggler["node"] == n
        out += ["GPU %s" % g["bus"],
                "    Product Name                          : %s" % sc.gpu["name"],
                "    Product Brand                         : %s" % ("NVIDIA" if sc.model_key != "V100" else "Tesla"),
                "    Product Architecture                  : %s" % sc.gpu["arch"],
                "    Persistence Mode                      : Enabled",
                "    Serial Number                         : %s" % g["serial"],
                "    GPU UUID                              : %s" % g["uuid"],
                "    VBIOS Version                         : %s" % sc.gpu["vbios"],
                "    GPU Reset Status",
                "        Reset Required                    : %s" % ("Yes" if g["reset_required"] else "No"),
                "        Drain and Reset Recommended       : %s" % ("Yes" if g["reset_required"] or g["remap_fail"] == "Yes" else "No"),
                "    PCI",
                "        Bus                               : 0x%s" % g["bus"][9:11],
                "        Bus Id                            : %s" % g["bus"],
                "        GPU Link Info",
                "            PCIe Generation",
                "                Max                       : %d" % (5 if sc.model_key == "H100" else 4 if sc.model_key == "A100" else 3),
                "                Current                   : %d" % (1 if hw["lnk_downgraded"] == i else (5 if sc.model_key == "H100" else 4 if sc.model_key == "A100" else 3)),
                "            Link Width",
                "                Max                       : 16x",
                "                Current                   : %s" % ("8x" if hw["lnk_downgraded"] == i else "16x"),
                "        Replays Since Reset               : %d" % (sc.rng.randint(50, 900) if hw["lnk_downgraded"] == i else 0),
                "    Performance State                     : P0",
                "    Clocks %s" % ("Event Reasons" if newfmt else "Throttle Reasons")]
        for key, label in THROTTLE_KEYS:
            act = key in g["throttle"] or (key == "idle" and not running and not g["throttle"])
            out.append("        %-34s: %s" % (label, "Active" if act else "Not Active"))
        out += ["    FB Memory Usage",
                "        Total                             : %d MiB" % sc.gpu["mem"],
                "        Used                              : %d MiB" % (sc.gpu["mem"] - 1200 if running else 4),
                "    ECC Mode",
                "        Current                           : Enabled",
                "        Pending                           : Enabled",
                "    ECC Errors",
                "        Volatile"]
        if newfmt:
            out += ["            SRAM Correctable              : %d" % g["sram_corr"],
                    "            SRAM Uncorrectable Parity     : 0",
                    "            SRAM Uncorrectable SEC-DED    : %d" % g["sram_unc"],
                    "            DRAM Correctable              : %d" % g["dram_corr"],
                    "            DRAM Uncorrectable            : %d" % g["dram_unc"],
                    "        Aggregate",
                    "            SRAM Correctable              : %d" % g["agg_sram_corr"],
                    "            SRAM Uncorrectable Parity     : 0",
                    "            SRAM Uncorrectable SEC-DED    : 0",
                    "            DRAM Correctable              : %d" % g["agg_dram_corr"],
                    "            DRAM Uncorrectable            : %d" % g["agg_dram_unc"],
                    "            SRAM Threshold Exceeded       : No"]
        else:
            out += ["            SRAM Correctable              : %d" % g["sram_corr"],
                    "            SRAM Uncorrectable            : %d" % g["sram_unc"],
                    "            DRAM Correctable              : %d" % g["dram_corr"],
                    "            DRAM Uncorrectable            : %d" % g["dram_unc"],
                    "        Aggregate",
                    "            SRAM Correctable              : %d" % g["agg_sram_corr"],
                    "            SRAM Uncorrectable            : 0",
                    "            DRAM Correctable              : %d" % g["agg_dram_corr"],
                    "            DRAM Uncorrectable            : %d" % g["agg_dram_unc"]]
        out += ["    Retired Pages"]
        if sc.gpu["remap"]:
            out += ["        Single Bit ECC                    : N/A", "        Double Bit ECC                    : N/A",
                    "        Pending Page Blacklist            : N/A",
                    "    Remapped Rows",
                    "        Correctable Error                 : %d" % g["remap_corr"],
                    "        Uncorrectable Error               : %d" % g["remap_unc"],
                    "        Pending                           : %s" % g["remap_pending"],
                    "        Remapping Failure Occurred        : %s" % g["remap_fail"],
                    "        Bank Remap Availability Histogram",
                    "            Max                           : %d bank(s)" % (639 - g["remap_unc"] - g["remap_corr"]),
                    "            High                          : 0 bank(s)", "            Partial                       : %d bank(s)" % (g["remap_unc"] + g["remap_corr"]),
                    "            Low                           : 0 bank(s)", "            None                          : 0 bank(s)"]
        else:
            out += ["        Single Bit ECC                    : %d" % g["ret_sbe"], "        Double Bit ECC                    : %d" % g["ret_dbe"],
                    "        Pending Page Blacklist            : %s" % g["pending_bl"],
                    "    Remapped Rows                         : N/A"]
        out += ["    Temperature",
                "        GPU Current Temp                  : %d C" % g["temp"],
                "        GPU T.Limit Temp                  : %s" % ("N/A" if not newfmt else "%d C" % max(1, 87 - g["temp"])),
                "        GPU Shutdown Temp                 : 92 C",
                "        GPU Slowdown Temp                 : 89 C" if sc.model_key != "H100" else "        GPU Slowdown Temp                 : 87 C",
                "        Memory Current Temp               : %d C" % g["mem_temp"],
                "    GPU Power Readings",
                "        Power Draw                        : %.2f W" % (g["power"] if not running else sc.gpu["power"] * 0.8),
                "        Current Power Limit               : %.2f W" % sc.gpu["power"],
                "    Clocks",
                "        Graphics                          : %d MHz" % (sc.rng.randint(900, 1100) if "hw_slowdown" in g["throttle"] else (1980 if sc.model_key == "H100" else 1410 if sc.model_key == "A100" else 1530) if running else 210),
                "        SM                                : %d MHz" % (sc.rng.randint(900, 1100) if "hw_slowdown" in g["throttle"] else (1980 if sc.model_key == "H100" else 1410 if sc.model_key == "A100" else 1530) if running else 210),
                "        Memory                            : %d MHz" % (2619 if sc.model_key == "H100" else 1593 if sc.model_key == "A100" else 877),
                "    Processes                             : %s" % ("None" if not running else "")]
        if running:
            out += ["        GPU instance ID                   : N/A", "        Compute instance ID               : N/A",
                    "        Process ID                        : %d" % sc.pids[n * sc.gpn + i], "        Type                              : C",
                    "        Name                              : /usr/bin/python3", "        Used GPU Memory                   : %d MiB" % (sc.gpu["mem"] - 1600)]
        out.append("")
    return out


def dcgmi_diag(sc, n, level):
    hw = sc.hw[n]
    W = 48
    def row(a, b):
        return "| %-25s | %-46s |" % (a, b)
    def sep(name):
        return "|-----  %s  %s+%s|" % (name, "-" * (18 - len(name)), "-" * W)
    fails = {}
    def f(test, gi, msg):
        fails.setdefault(test, []).append((gi, msg))
    lost = [i for i, g in enumerate(hw["gpus"]) if g["lost"]]
    if lost:
        return ["Error: Diagnostic could not be run while GPU %d is lost: Detected GPU %d is lost (GPU is lost)." % (lost[0], lost[0]),
                "Error: Unable to complete diagnostic for group %d. Return: (-37) GPU is lost." % 2147483647]
    for i, g in enumerate(hw["gpus"]):
        if g["reset_required"]:
            f("Deployment", i, "GPU %d requires a reset (GPU_RESET_REQUIRED)" % i)
        if g["remap_pending"] == "Yes" or g["pending_bl"] == "Yes" or g["remap_fail"] == "Yes":
            f("Page Retirement/Row Remap", i, "GPU %d had uncorrectable memory errors and row remapping is pending/failed. Drain the GPU and reset it or reboot the node." % i if sc.gpu["remap"] else "GPU %d has pending page retirements. Drain the GPU and reset it or reboot the node." % i)
        if g["dram_unc"]:
            f("GPU Memory", i, "GPU %d had a volatile DBE ECC error (count %d) during the test." % (i, g["dram_unc"]))
        if g["link_down"]:
            f("PCIe", i, "GPU %d NvLink link %d is currently down Run a field diagnostic on the GPU." % (i, g["link_down"][0]))
        if hw["lnk_downgraded"] == i:
            f("PCIe", i, "GPU %d: PCIe link width/generation is degraded (x8 Gen1 vs x16 expected)" % i)
        if "hw_thermal" in g["throttle"] and level >= 3:
            f("Targeted Power", i, "Detected clocks event due to thermal violation in GPU %d for 14342013 us. Verify that the cooling on this machine is functional, including external, thermal material interface, fans, and any other components." % i)
        if "hw_power_brake" in g["throttle"] and level >= 3:
            f("Targeted Power", i, "Detected clocks event due to power brake violation in GPU %d. Check the power supplies." % i)
    out = ["Successfully ran diagnostic for group.",
           "+---------------------------+------------------------------------------------+",
           "| Diagnostic                | Result                                         |",
           "+===========================+================================================+",
           sep("Metadata"),
           row("DCGM Version", sc.dcgm_ver),
           row("Driver Version Detected", sc.driver),
           row("GPU Device IDs Detected", ",".join([sc.gpu["pid"]] * sc.gpn)),
           sep("Deployment")]
    def res(test):
        if test in fails:
            return "Fail - GPU: %s" % ", ".join(str(x[0]) for x in fails[test])
        return "Pass"
    for tname in ["Denylist", "NVML Library", "CUDA Main Library", "Permissions and OS Blocks", "Persistence Mode",
                  "Environment Variables", "Page Retirement/Row Remap", "Graphics Processes", "Inforom"]:
        rr = res(tname) if tname != "Graphics Processes" or not (sc.cause == "straggler" and sc.straggler["node"] == n) else "Warn"
        if tname == "Denylist" and "Deployment" in fails:
            rr = res("Deployment")
        out.append(row(tname, rr))
        for gi, msg in fails.get(tname if tname != "Denylist" else "Deployment", []):
            out.append(row("Warning", msg[:46]))
            while len(msg) > 46:
                msg = msg[46:]
                out.append(row("", msg[:46]))
    out.append("+-----  Integration  -------+------------------------------------------------+")
    if level >= 2:
        out.append(row("PCIe", res("PCIe")))
        for gi, msg in fails.get("PCIe", []):
            for j in range(0, len(msg), 46):
                out.append(row("Warning" if j == 0 else "", msg[j:j + 46]))
    else:
        out.append(row("PCIe", "Skip - All"))
    out.append("+-----  Hardware  ----------+------------------------------------------------+")
    out.append(row("GPU Memory", res("GPU Memory") if level >= 2 else "Skip - All"))
    for gi, msg in fails.get("GPU Memory", []) if level >= 2 else []:
        for j in range(0, len(msg), 46):
            out.append(row("Warning" if j == 0 else "", msg[j:j + 46]))
    out.append(row("Diagnostic", res("Diagnostic") if level >= 3 else "Skip - All"))
    out.append("+-----  Stress  ------------+------------------------------------------------+")
    for tname in ["Targeted Stress", "Targeted Power", "Memory Bandwidth", "EUD Test"]:
        rr = res(tname) if level >= 3 else "Skip - All"
        if tname == "EUD Test":
            rr = "Skip - All"
        out.append(row(tname, rr))
        for gi, msg in fails.get(tname, []) if level >= 3 else []:
            for j in range(0, len(msg), 46):
                out.append(row("Warning" if j == 0 else "", msg[j:j + 46]))
    out.append("+---------------------------+------------------------------------------------+")
    return out


def dcgmi_health(sc, n):
    hw = sc.hw[n]
    items = []
    for i, g in enumerate(hw["gpus"]):
        sub = []
        if g["lost"]:
            sub.append(("Failure", "PCIe system: Failure", "- GPU %d is lost (fallen off the bus)." % i))
        if g["dram_unc"]:
            sub.append(("Failure", "Memory system: Failure", "- Detected a volatile double-bit ECC error in GPU %d." % i))
        if g["remap_pending"] == "Yes" or g["pending_bl"] == "Yes":
            sub.append(("Warning", "Memory system: Warning", "- GPU %d has a row remap pending; reset the GPU to activate it." % i if sc.gpu["remap"] else "- GPU %d has pending page retirements." % i))
        if g["remap_fail"] == "Yes":
            sub.append(("Failure", "Memory system: Failure", "- GPU %d had a row remap failure. Drain the GPU and run a field diagnostic." % i))
        if g["link_down"]:
            sub.append(("Failure", "NVLink system: Failure", "- GPU %d's NvLink link %d is currently down" % (i, g["link_down"][0])))
        elif g["nvlink_err"] and not gpu_clean_after(sc, n):
            sub.append(("Warning", "NVLink system: Warning", "- Detected %d NvLink CRC errors on GPU %d's link" % (list(g["nvlink_err"].values())[0]["crc"], i)))
        if "hw_thermal" in g["throttle"]:
            sub.append(("Warning", "Thermal system: Warning", "- Detected clocks event due to thermal violation in GPU %d. Verify that the cooling on this machine is functional." % i))
        if "hw_power_brake" in g["throttle"]:
            sub.append(("Warning", "Power system: Warning", "- Detected clocks event due to power violation in GPU %d." % i))
        if g["xid"] in (79, 62, 95, 119, 120) and not gpu_clean_after(sc, n) and not g["lost"]:
            sub.append(("Failure", "Driver system: Failure", "- Detected a critical XID error %d on GPU %d." % (g["xid"], i)))
        if hw["lnk_downgraded"] == i:
            sub.append(("Warning", "PCIe system: Warning", "- Detected PCIe replay rate above threshold on GPU %d." % i))
        if sub:
            items.append((i, sub))
    overall = "Healthy" if not items else ("Failure" if any(s[0] == "Failure" for _, ss in items for s in ss) else "Warning")
    out = ["+---------------------------+----------------------------------------------------------+",
           "| Health Monitor Report                                                                |",
           "+===========================+==========================================================+",
           "| %-25s | %-56s |" % ("Overall Health", overall)]
    for i, sub in items:
        st = "Failure" if any(s[0] == "Failure" for s in sub) else "Warning"
        out.append("| %-25s | %-56s |" % ("GPU ID: %d" % i, st))
        for s in sub:
            out.append("| %-25s | %-56s |" % ("", s[1]))
            msg = s[2]
            for j in range(0, len(msg), 56):
                out.append("| %-25s | %-56s |" % ("", msg[j:j + 56]))
    out.append("+---------------------------+----------------------------------------------------------+")
    return out


def journal_k(sc, n, prev=False, fmt="journal", since=None):
    hw_host = sc.hosts[n]
    evs = sorted(sc.kern_prev_boot[n] if prev else sc.kern[n], key=lambda x: x[0])
    r = random.Random("%s-j-%d-%s" % (sc.idx, n, prev))
    boot = sc.t0 - r.uniform(86400, 40 * 86400) if not prev else sc.t0 - r.uniform(86400, 40 * 86400)
    if not prev and n in sc.rebooted:
        boot = sc.end_t + r.uniform(120, 900)
    base = [(boot + 3.1, "kernel", "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  %s  " % sc.driver),
            (boot + 4.2, "kernel", "nvidia-nvlink: Nvlink Core is being initialized, major device number 508"),
            (boot + 9.8, "kernel", "mlx5_core %s: firmware version: 28.39.1002" % sc.hw[n]["nics"][0]["pci"]),
            (boot + 12.0, "kernel", "IPv6: ADDRCONF(NETDEV_CHANGE): %s: link becomes ready" % r.choice(["eth0", "ens1f0np0", "bond0"]))]
    if not prev and sc.rng.random() < 0.5:
        base.append((sc.t0 + r.uniform(100, 2000), "kernel", "audit: type=1400 audit(%d.%03d:%d): apparmor=\"DENIED\" operation=\"open\" class=\"file\" profile=\"snap.lxd.activate\" name=\"/proc/%d/mountinfo\"" % (int(sc.t0), r.randint(0, 999), r.randint(100, 999), r.randint(100, 9999))))
    evs = sorted(base + evs, key=lambda x: x[0])
    out = []
    if fmt == "journal":
        out.append("-- Logs begin at %s, end at %s. --" % (dt(boot + sc.skew[n]).strftime("%a %Y-%m-%d %H:%M:%S UTC"), dt(t_tool(sc, n)).strftime("%a %Y-%m-%d %H:%M:%S UTC")))
        for t, fac, text in evs:
            if t > sc.hc_time:
                continue
            out.append("%s %s kernel: %s" % (f_journal(t + sc.skew[n]), hw_host, text))
    else:
        for t, fac, text in evs:
            if t > sc.hc_time or t < boot:
                continue
            out.append("[%12.6f] %s" % (t - boot, text) if fmt == "dmesg" else "[%s] %s" % (f_ctime(t + sc.skew[n]), text))
    return out


def ipmi_sel(sc, n):
    r = random.Random("%s-sel-%d" % (sc.idx, n))
    evs = [(sc.t0 - r.randint(200, 900) * 86400, "Event Logging Disabled #0x%02x" % 0x07, "Log area reset/cleared", "Asserted")]
    evs += sc.hw[n]["sel"]
    for g in sc.hw[n]["gpus"]:
        if g["lost"] or g["xid"] == 79:
            evs.append((sc.end_t - 1, "Critical Interrupt #0x%02x" % r.choice([0x23, 0x24]), "Bus Uncorrectable error", "Asserted"))
            break
    evs.sort(key=lambda x: x[0])
    out = []
    for i, (t, sensor, ev, st) in enumerate(evs):
        tt = t + sc.skew[n]
        out.append("%4x | %s | %s | %s | %s | %s" % (i + 1, dt(tt).strftime("%m/%d/%Y"), dt(tt).strftime("%H:%M:%S"), sensor, ev, st))
    return out


def sensors_out(sc, n):
    r = random.Random("%s-sens-%d" % (sc.idx, n))
    hot = sc.hw[n].get("fan_fail")
    out = []
    for s in range(2):
        out += ["coretemp-isa-%04d" % s, "Adapter: ISA adapter",
                "Package id %d:  %+.1f°C  (high = +80.0°C, crit = +90.0°C)" % (s, sc.hw[n]["cpu_temp"] + r.uniform(-3, 3))]
        for c in range(4):
            out.append("Core %d:        %+.1f°C  (high = +80.0°C, crit = +90.0°C)" % (c, sc.hw[n]["cpu_temp"] + r.uniform(-6, 2)))
        out.append("")
    out += ["mlx5-pci-%s" % sc.hw[n]["nics"][0]["pci"][5:].replace(":", "").replace(".", ""), "Adapter: PCI adapter",
            "sensor0:      %+.1f°C  (crit = +105.0°C, highest = %+.1f°C)" % (r.uniform(48, 62), r.uniform(62, 70)), ""]
    out += ["nvme-pci-%04x" % r.choice([0x100, 0x8100]), "Adapter: PCI adapter",
            "Composite:    %+.1f°C  (low  = -273.1°C, high = +84.8°C)" % r.uniform(33, 45),
            "                       (crit = +84.8°C)", ""]
    if hot:
        out += ["ipmi-acpi-0 (via ipmi-sensors)", "Adapter: ACPI interface",
                "FAN1:        0 RPM  (min = 1800 RPM) ALARM", "FAN2:     %d RPM  (min = 1800 RPM)" % r.randint(9000, 12000), ""]
    return out


def lspci_gpu(sc, n):
    hw = sc.hw[n]
    out = []
    for i, g in enumerate(hw["gpus"][: min(sc.gpn, 4 if hw["lnk_downgraded"] is None else sc.gpn)]):
        down = hw["lnk_downgraded"] == i
        ce = hw["aer_ce"] > 0 and i == 0
        out += ["%s.0 3D controller: NVIDIA Corporation Device %s (rev a1)" % (g["bus"][9:11].lower() + ":00", sc.gpu["pid"]),
                "\tSubsystem: NVIDIA Corporation Device 1463",
                "\tControl: I/O- Mem+ BusMaster+ SpecCycle- MemWINV- VGASnoop- ParErr+ Stepping- SERR+ FastB2B- DisINTx+",
                "\tStatus: Cap+ 66MHz- UDF- FastB2B- ParErr- DEVSEL=fast >TAbort- <TAbort- <MAbort- >SERR- <PERR- INTx-",
                "\tLatency: 0",
                "\tInterrupt: pin A routed to IRQ %d" % (300 + i),
                "\tCapabilities: [68] Express (v2) Endpoint, MSI 00",
                "\t\tDevCtl:\tCorrErr- NonFatalErr+ FatalErr+ UnsupReq-",
                "\t\tDevSta:\tCorrErr%s NonFatalErr- FatalErr%s UnsupReq- AuxPwr- TransPend-" % ("+" if (ce or down) else "-", "+" if g["lost"] else "-"),
                "\t\tLnkCap:\tPort #0, Speed %s, Width x16, ASPM not supported" % ("32GT/s" if sc.model_key == "H100" else "16GT/s"),
                "\t\tLnkSta:\tSpeed %s, Width %s" % (("2.5GT/s (downgraded)", "x8 (downgraded)") if down else (("32GT/s" if sc.model_key == "H100" else "16GT/s") + " (ok)", "x16 (ok)")),
                "\tCapabilities: [100 v1] Virtual Channel",
                "\tCapabilities: [420 v2] Advanced Error Reporting",
                "\t\tUESta:\tDLP- SDES- TLP- FCP- CmpltTO%s CmpltAbrt- UnxCmplt- RxOF- MalfTLP- ECRC- UnsupReq- ACSViol-" % ("+" if g["lost"] else "-"),
                "\t\tUEMsk:\tDLP- SDES- TLP- FCP- CmpltTO- CmpltAbrt- UnxCmplt- RxOF- MalfTLP- ECRC- UnsupReq- ACSViol-",
                "\t\tUESvrt:\tDLP+ SDES+ TLP- FCP+ CmpltTO- CmpltAbrt- UnxCmplt- RxOF+ MalfTLP+ ECRC- UnsupReq- ACSViol-",
                "\t\tCESta:\tRxErr%s BadTLP- BadDLLP%s Rollover- Timeout- AdvNonFatalErr-" % ("+" if (ce or down) else "-", "+" if down else "-"),
                "\t\tCEMsk:\tRxErr- BadTLP- BadDLLP- Rollover- Timeout- AdvNonFatalErr+",
                "\tKernel driver in use: nvidia", "\tKernel modules: nvidiafb, nouveau, nvidia_drm, nvidia", ""]
    return out


def ibstat_out(sc, n):
    out = []
    for nic in sc.hw[n]["nics"]:
        out += ["CA '%s'" % nic["name"], "\tCA type: MT%s" % ("4129" if nic["rate"] >= 400 or sc.model_key == "H100" else "4123"),
                "\tNumber of ports: 1", "\tFirmware version: %s" % ("28.39.1002" if sc.model_key == "H100" else "20.37.1014"),
                "\tHardware version: 0", "\tNode GUID: %s" % nic["guid"], "\tSystem image GUID: %s" % nic["guid"],
                "\tPort 1:", "\t\tState: %s" % nic["state"], "\t\tPhysical state: %s" % nic["phys"],
                "\t\tRate: %d" % (nic["rate"] if nic["state"] == "Active" else 10),
                "\t\tBase lid: %d" % (nic["lid"] if nic["state"] == "Active" else 65535), "\t\tLMC: 0", "\t\tSM lid: 1",
                "\t\tCapability mask: 0xa751e848", "\t\tPort GUID: %s" % nic["guid"],
                "\t\tLink layer: %s" % ("InfiniBand" if sc.net == "ib" else "Ethernet"), ""]
    return out


def ibv_devinfo_out(sc, n):
    out = []
    for nic in sc.hw[n]["nics"]:
        st = "PORT_ACTIVE (4)" if nic["state"] == "Active" else "PORT_DOWN (1)"
        out += ["hca_id:\t%s" % nic["name"], "\ttransport:\t\t\tInfiniBand (0)", "\tfw_ver:\t\t\t\t%s" % ("28.39.1002" if sc.model_key == "H100" else "20.37.1014"),
                "\tnode_guid:\t\t\t%s" % nic["guid"][2:].zfill(16), "\tvendor_id:\t\t\t0x02c9", "\tvendor_part_id:\t\t\t%s" % ("4129" if sc.model_key == "H100" else "4123"),
                "\thw_ver:\t\t\t\t0x0", "\tboard_id:\t\t\tMT_000000%d" % (223 if sc.model_key != "H100" else 838), "\tphys_port_cnt:\t\t\t1",
                "\t\tport:\t1", "\t\t\tstate:\t\t\t%s" % st, "\t\t\tmax_mtu:\t\t4096 (5)", "\t\t\tactive_mtu:\t\t4096 (5)",
                "\t\t\tsm_lid:\t\t\t1", "\t\t\tport_lid:\t\t%d" % nic["lid"], "\t\t\tport_lmc:\t\t0x00",
                "\t\t\tlink_layer:\t\t%s" % ("InfiniBand" if sc.net == "ib" else "Ethernet"), ""]
    return out


def mlxlink_out(sc, n, nic):
    down = nic["state"] != "Active"
    spd = {100: "IB-EDR", 200: "IB-HDR", 400: "IB-NDR", 50: "IB-HDR", 25: "IB-EDR"}.get(nic["rate"], "IB-HDR")
    out = ["", "Operational Info", "----------------",
           "State                              : %s" % ("Polling" if down else "Active"),
           "Physical state                     : %s" % ("Polling" if down else "LinkUp"),
           "Speed                              : %s" % ("N/A" if down else spd),
           "Width                              : %s" % ("N/A" if down else ("1x" if nic.get("degraded") else "4x")),
           "FEC                                : %s" % ("N/A" if down else "Standard LL RS-FEC - RS(271,257)"),
           "Loopback Mode                      : No Loopback", "Auto Negotiation                   : ON", "",
           "Supported Info", "--------------",
           "Enabled Link Speed                 : 0x000000%02x (%s)" % (0xf2, "NDR,HDR,EDR,FDR,SDR" if sc.model_key == "H100" else "HDR,EDR,FDR,FDR10,SDR"),
           "Supported Cable Speed              : 0x000000%02x (%s)" % (0xf2, "NDR,HDR,EDR,FDR,SDR" if sc.model_key == "H100" else "HDR,EDR,FDR,FDR10,SDR"), "",
           "Troubleshooting Info", "--------------------",
           "Status Opcode                      : %d" % (0 if not down and not nic["symerr"] else (1024 if down else 0)),
           "Group Opcode                       : %s" % ("N/A" if not down else "PHY FW"),
           "Recommendation                     : %s" % ("No issue was observed" if not down else "Check cable connection / replace cable or transceiver"), "",
           "Physical Counters and BER Info", "------------------------------",
           "Time Since Last Clear [Min]        : %.1f" % ((sc.hc_time - sc.t0) / 60 + 3000),
           "Effective Physical Errors          : %d" % (nic["symerr"] // 10),
           "Effective Physical BER             : %s" % ("15E-255" if not nic["symerr"] else "%dE-%d" % (sc.rng.randint(1, 9), sc.rng.randint(9, 12))),
           "Raw Physical Errors Per Lane       : %s" % ",".join(str(nic["symerr"] // 4 + k) for k in range(4)),
           "Raw Physical BER                   : %s" % ("1E-12" if not nic["symerr"] else "%dE-%d" % (sc.rng.randint(1, 9), sc.rng.randint(6, 8))),
           "Link Down Counter                  : %d" % nic["linkdown"],
           "Link Error Recovery Counter        : %d" % (nic["linkdown"] * 2 + (1 if nic["symerr"] else 0)), "",
           "Tool Information", "----------------",
           "Firmware Version                   : %s" % ("28.39.1002" if sc.model_key == "H100" else "20.37.1014"),
           "MFT Version                        : mft 4.26.1-3", ""]
    return out


def ethtool_S(sc, n, nic):
    r = random.Random("%s-eth-%d-%s" % (sc.idx, n, nic["name"]))
    pk = r.randint(10 ** 9, 10 ** 11)
    rows = [("rx_packets", pk), ("rx_bytes", pk * 3900), ("tx_packets", pk + r.randint(-10 ** 6, 10 ** 6)), ("tx_bytes", pk * 3870),
            ("rx_csum_unnecessary", r.randint(10 ** 5, 10 ** 7)), ("rx_out_of_buffer", r.choice([0, 0, 12, 301])),
            ("rx_discards_phy", nic["discards"]), ("rx_crc_errors_phy", nic["crc"]), ("rx_symbol_err_phy", nic["symerr"]),
            ("rx_pause_ctrl_phy", r.randint(0, 90000)), ("tx_pause_ctrl_phy", r.randint(0, 40000)),
            ("rx_prio3_pause", r.randint(0, 60000)), ("tx_prio3_pause", r.randint(0, 30000)),
            ("link_down_events_phy", nic["linkdown"]), ("rx_corrected_bits_phy", r.randint(0, 10 ** 6)),
            ("module_unplug", 0), ("module_bus_stuck", 1 if nic["linkdown"] and r.random() < 0.3 else 0)]
    return ["NIC statistics:"] + ["     %s: %d" % kv for kv in rows]


def ibdiagnet_summary(sc):
    r = random.Random("%s-ibd" % sc.idx)
    bad = getattr(sc, "bad_nic", None)
    errs, warns = [], []
    for n in range(sc.nn):
        for nic in sc.hw[n]["nics"]:
            if nic.get("unused"):
                continue
            if nic["state"] != "Active":
                errs.append("-E- Port %s/%s/P1 (lid N/A) is DOWN; expected link to switch %s port %d" % (sc.hosts[n], nic["name"], "leaf%02d" % r.randint(1, 16), r.randint(1, 40)))
            if nic["symerr"] > 0:
                warns.append("-W- lid=0x%04x dev=%s %s/%s/P1\n        Performance Monitor counter     : Value\n        symbol_error_counter            : %d       (threshold=1)\n        link_downed_counter             : %d       (threshold=1)" % (nic["lid"], "4129" if sc.model_key == "H100" else "4123", sc.hosts[n], nic["name"], nic["symerr"], nic["linkdown"]))
            if nic.get("degraded"):
                warns.append("-W- Link %s/%s/P1 <--> leaf%02d/P%d is running at width 1x, while both ends support 4x" % (sc.hosts[n], nic["name"], r.randint(1, 16), r.randint(1, 40)))
    # irrelevant switch-to-switch warnings
    if r.random() < 0.6:
        warns.append("-W- lid=0x%04x dev=54000 spine%02d/P%d\n        Performance Monitor counter     : Value\n        port_xmit_wait                  : %d     (threshold=0) (overflow)" % (r.randint(1, 400), r.randint(1, 8), r.randint(1, 64), r.randint(10 ** 6, 10 ** 9)))
    out = ["Loading IBDIAGNET from: /usr/lib64/ibdiagnet2.1.1", "-W- Topology file is not specified.",
           "Load Plugins from:", "/usr/share/ibdiagnet2.1.1/plugins/", "", "Discovery",
           "-I- Discovering ... %d nodes (%d Switches & %d CA-s) discovered." % (40 + sc.nn * 8, 24, 16 + sc.nn * 8), ""]
    out += errs + [""] + warns + [""]
    out += ["Summary",
            "-I- Stage                     Warnings   Errors     Comment   ",
            "-I- Discovery                 0          0                    ",
            "-I- Lids Check                0          0                    ",
            "-I- Links Check               0          %-10d           " % len(errs),
            "-I- Subnet Manager            0          0                    ",
            "-I- Port Counters             %-10d 0                    " % len([w for w in warns if "counter" in w]),
            "-I- Nodes Information         0          0                    ",
            "-I- Speed / Width checks      %-10d 0                    " % len([w for w in warns if "width" in w]),
            "-I- Virtualization            0          0                    ",
            "-I- Partition Keys            0          0                    ",
            "-I- Alias GUIDs               0          0                    ",
            "-I- Temperature Sensing       0          0                    ", "",
            "-I- You can find detailed errors/warnings in: /var/tmp/ibdiagnet2/ibdiagnet2.log"]
    return out


def all_reduce_perf(sc):
    r = random.Random("%s-nccl" % sc.idx)
    nt = sc.nccl_test or {}
    bad = nt.get("bad_node")
    nodes = list(range(sc.nn))
    if bad is not None and r.random() < 0.3 and sc.nn > 1:
        nodes = [x for x in nodes if x != bad]
    tested_bad = bad is not None and bad in nodes
    fails_now = tested_bad and nt.get("flap") is False
    np_ = len(nodes) * sc.gpn
    peak = {"H100": 360.0, "A100": 185.0, "V100": 120.0}[sc.model_key] if len(nodes) > 1 else {"H100": 480.0, "A100": 230.0, "V100": 130.0}[sc.model_key]
    if sc.net == "socket" and len(nodes) > 1:
        peak = 9.0
    if tested_bad and (nt.get("slow") or nt.get("flap")):
        peak *= r.uniform(0.3, 0.55) if nt.get("slow") else 1.0
    out = ["$ mpirun -np %d -H %s -x NCCL_DEBUG=WARN ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 1" % (np_, ",".join("%s:%d" % (sc.hosts[x], sc.gpn) for x in nodes)),
           "# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0",
           "#", "# Using devices"]
    for i, x in enumerate(nodes):
        for g in range(sc.gpn):
            out.append("#  Rank %2d Group  0 Pid %6d on %s device  %d [0x%s] %s" % (i * sc.gpn + g, r.randint(1000, 99999), sc.hosts[x], g, sc.bus[g].lower(), sc.gpu["name"]))
    out += ["#", "#                                                              out-of-place                       in-place          ",
            "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
            "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       "]
    size = 8
    tot = 0.0
    k = 0
    while size <= 8 * 1024 ** 3:
        frac = size / (size + 4 * 1024 ** 2)
        bus = peak * frac * r.uniform(0.95, 1.02)
        alg = bus * np_ / (2.0 * (np_ - 1)) if np_ > 1 else bus
        tm = max(size / (alg * 1e3), 9.0 + r.uniform(0, 6)) if alg > 0 else 0
        alg = size / (tm * 1e3)
        bus = alg * 2.0 * (np_ - 1) / np_ if np_ > 1 else alg
        if fails_now and size >= 64 * 1024 ** 2:
            hostb = sc.hosts[bad]
            out.append("%s: Test NCCL failure common.cu:%d 'remote process exited or there was a network error / ' .. %s pid %d: Test failure common.cu:%d" % (hostb, 393, hostb, r.randint(1000, 99999), 1148))
            return out
        out.append("%12d  %12d     float     sum      -1  %7.2f  %6.2f  %6.2f      0  %7.2f  %6.2f  %6.2f      0" % (size, size // 4 if size >= 4 else 0, tm, alg, bus, tm * r.uniform(0.98, 1.02), alg, bus))
        tot += bus
        k += 1
        size *= 2
    out += ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : %.4g " % (tot / k), "#"]
    return out


def nhc_log(sc, n):
    r = random.Random("%s-nhc-%d" % (sc.idx, n))
    hw = sc.hw[n]
    t = t_tool(sc, n, -120)
    msgs = []
    for i, g in enumerate(hw["gpus"]):
        if g["lost"]:
            msgs.append("check_nv_healthmon: GPU %d (%s) not found by nvidia-smi (Unknown Error)" % (i, g["bus"]))
        elif g["dram_unc"] or g["remap_pending"] == "Yes" or g["pending_bl"] == "Yes":
            msgs.append("check_gpu_ecc: GPU %d has %d volatile uncorrectable ECC errors / pending remap" % (i, g["dram_unc"]))
        elif g["reset_required"]:
            msgs.append("check_gpu_xid: GPU %d reports Xid %d, reset required" % (i, g["xid"]))
        elif g["link_down"]:
            msgs.append("check_gpu_nvlink: GPU %d NVLink %d inactive" % (i, g["link_down"][0]))
    for nic in hw["nics"]:
        if nic["state"] != "Active" and not nic.get("unused"):
            msgs.append("check_hw_ib:  No IB port %s:1 is ACTIVE (LinkUp %d Gb/sec)." % (nic["name"], nic["rate"]))
    out = ["%s [%d] /usr/sbin/nhc: Node Health Check starting." % (dt(t).strftime("%Y%m%d %H:%M:%S"), r.randint(1000, 90000)),
           "%s Running check:  \"check_fs_mount_rw -f /\"" % dt(t).strftime("%Y%m%d %H:%M:%S"),
           "%s Running check:  \"check_fs_free /tmp 10%%\"" % dt(t).strftime("%Y%m%d %H:%M:%S")]
    if r.random() < 0.3:
        out.append("%s WARNING:  nhc:  check_fs_free:  /tmp has only %d%% free (threshold 10%%), continuing" % (dt(t + 1).strftime("%Y%m%d %H:%M:%S"), r.randint(10, 14)))
    out += ["%s Running check:  \"check_hw_cpuinfo 2 %d %d\"" % (dt(t + 1).strftime("%Y%m%d %H:%M:%S"), 96, 192),
            "%s Running check:  \"check_hw_physmem 1024gb 2048gb 5%%\"" % dt(t + 1).strftime("%Y%m%d %H:%M:%S"),
            "%s Running check:  \"check_hw_ib %d\"" % (dt(t + 2).strftime("%Y%m%d %H:%M:%S"), hw["nics"][0]["rate"]),
            "%s Running check:  \"check_nv_healthmon\"" % dt(t + 3).strftime("%Y%m%d %H:%M:%S")]
    if msgs:
        out.append("%s ERROR:  nhc:  Health check failed:  %s" % (dt(t + 4).strftime("%Y%m%d %H:%M:%S"), msgs[0]))
        out.append("%s /usr/sbin/nhc: Marking node %s offline: NHC: %s" % (dt(t + 4).strftime("%Y%m%d %H:%M:%S"), sc.hosts[n], msgs[0][:60]))
    else:
        out.append("%s /usr/sbin/nhc: Node Health Check completed successfully (%ds)." % (dt(t + 6).strftime("%Y%m%d %H:%M:%S"), r.randint(4, 30)))
    return out, msgs


def nvidia_bug_report(sc, n):
    out = ["____________________________________________", "",
           "Start of NVIDIA bug report log file.  Please include this file, along",
           "with a detailed description of your problem, when reporting a graphics",
           "driver bug via the NVIDIA Linux forum (see forums.developer.nvidia.com)",
           "or by sending email to 'linux-bugs@nvidia.com'.", "",
           "nvidia-bug-report.sh Version: %d" % sc.rng.randint(33000000, 34999999), "",
           "Date: %s" % dt(t_tool(sc, n)).strftime("%a %d %b %Y %I:%M:%S %p UTC"),
           "uname: Linux %s 5.15.0-105-generic #115-Ubuntu SMP Mon Apr 15 09:52:04 UTC 2024 x86_64 x86_64 x86_64 GNU/Linux" % sc.hosts[n],
           "command line flags: ", "", "____________________________________________", "",
           "*** /proc/driver/nvidia/version",
           "*** ls: -r--r--r-- 1 root root 0 %s /proc/driver/nvidia/version" % dt(t_tool(sc, n)).strftime("%Y-%m-%d %H:%M:%S.000000000 +0000"),
           "NVRM version: NVIDIA UNIX x86_64 Kernel Module  %s  Wed Nov  1 20:37:41 UTC 2023" % sc.driver,
           "GCC version:  gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04) ", "",
           "____________________________________________", "",
           "*** (excerpt by operator) journalctl -b -0 -k | grep -iE 'nvrm|xid|nvlink|nvswitch' ", ""]
    nv = [l for l in journal_k(sc, n) if any(k in l for k in ("NVRM", "nvswitch", "nvlink"))]
    out += nv if nv else ["(no matching lines)"]
    if sc.kern_prev_boot[n]:
        out += ["", "____________________________________________", "", "*** journalctl -b -1 -k (previous boot, excerpt)", ""]
        out += [l for l in journal_k(sc, n, prev=True) if not l.startswith("--")][-30:]
    out += ["", "____________________________________________", "", "*** /usr/bin/nvidia-smi --query", ""]
    out += nvidia_smi_q(sc, n)[:140]
    out += ["[... output trimmed ...]", "", "____________________________________________", "", "End of NVIDIA bug report log file."]
    return out


def pyspy_dump(sc):
    rk = sc.hang_rank
    n = sc.node_of(rk)
    out = []
    for x in sc.ranks_on(n):
        out += ["Process %d: /usr/bin/python3 -u %s --config configs/%s.yaml" % (sc.pids[x], sc.script, sc.model_name),
                "Python v3.10.12 (/usr/bin/python3.10)", "",
                "Thread %d (idle): \"MainThread\"" % sc.pids[x]]
        if x == rk:
            for f, ln, fn, code in reversed(train_frames(sc, "none")[:3] + sc.hang_where):
                out.append("    %s (%s:%d)" % (fn, f, ln))
        else:
            for f, ln, fn, code in reversed(train_frames(sc, "none")[:3] + [
                    ("/workspace/trainer.py", 760, "train_step", "self.optimizer.step()"),
                    ("/usr/local/lib/python3.10/dist-packages/torch/distributed/fsdp/_runtime_utils.py", 1101, "_post_backward_hook", "_reduce_grad(state, handle)"),
                    ("/usr/local/lib/python3.10/dist-packages/torch/cuda/streams.py", 225, "synchronize", "super().synchronize()")]):
                out.append("    %s (%s:%d)" % (fn, f, ln))
        out += ["Thread %d (idle): \"Thread-2 (_pin_memory_loop)\"" % (sc.pids[x] + 40),
                "    select (selectors.py:416)", "    _poll (multiprocessing/connection.py:424)", ""]
    return out


# --------------------------------------------------------------------------
# layouts
# --------------------------------------------------------------------------
def node_stream_t(sc, n, worker_prefix=True):
    items = []
    for i, l in enumerate(sc.agent_lines[n]):
        items.append((l[0], 0, i, render_agent_line(sc, n, l), l))
    for rk in sc.ranks_on(n):
        pre = "[default%d]:" % sc.lr(rk) if worker_prefix else ""
        for i, l in enumerate(sc.rank_lines[rk]):
            txt = render_rank_line(sc, rk, l)
            items.append((l[0], 1 + sc.lr(rk), i, "\n".join(pre + x for x in txt.split("\n")), l))
    items.sort(key=lambda x: (x[0], x[1], x[2]))
    out = []
    for it in items:
        for x in it[3].split("\n"):
            out.append((it[0], x))
    return out


def W(path, lines):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def hc_tools_basic(sc, base, n, level, with_q=True, journal=True, prefix=""):
    if with_q:
        W(os.path.join(base, prefix + "nvidia-smi-q.txt"), ["$ nvidia-smi -q"] + nvidia_smi_q(sc, n))
    W(os.path.join(base, prefix + "nvidia-smi.txt"), ["$ nvidia-smi"] + nvidia_smi_table(sc, n))
    W(os.path.join(base, prefix + "dcgmi-diag-r%d.txt" % level), ["$ dcgmi diag -r %d" % level] + dcgmi_diag(sc, n, level))
    if journal:
        W(os.path.join(base, prefix + "journalctl-k.txt"), ["$ journalctl -k --no-pager --since '%s'" % dt(sc.t0 - 3600 + sc.skew[n]).strftime("%Y-%m-%d %H:%M")] + journal_k(sc, n))
        if sc.kern_prev_boot[n] and sc.rng.random() < 0.6:
            W(os.path.join(base, prefix + "journalctl-k-b-1.txt"), ["$ journalctl -k -b -1 --no-pager | tail -n 200"] + journal_k(sc, n, prev=True)[-200:])


def lay_slurm(sc, d):
    r = sc.rng
    streams = []
    for n in range(sc.nn):
        for t, l in node_stream_t(sc, n, worker_prefix=r.random() < 0.5):
            streams.append((t, n, "%d: %s" % (n, l)))
    pairs = [(t, l) for t, _, l in sorted(streams, key=lambda x: (x[0], x[1]))]
    idx = maybe_truncate(sc, list(range(len(pairs))))
    body = []
    lastt = sc.t0
    for x in idx:
        if isinstance(x, int):
            lastt = pairs[x][0]
            body.append((lastt, pairs[x][1]))
        else:
            body.append((lastt, x))
    ne = getattr(sc, "node_exit", {})
    tail = list(sorted(sc.sched))
    for n, (t, ec) in sorted(ne.items(), key=lambda x: x[1][0]):
        if ec != 0:
            tail.append((t + 0.5, "srun: error: %s: task %d: %s" % (sc.hosts[n], n, "Exited with exit code %d" % ec if sc.cause != "preemption" else "Terminated")))
    if ne and not sc.healthy and sc.cause != "preemption" and r.random() < 0.6:
        t1 = min(v[0] for v in ne.values())
        tail.append((t1 + 0.6, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
    merged = [(t, 0, i, l) for i, (t, l) in enumerate(body)] + [(t, 1, i, l) for i, (t, l) in enumerate(sorted(tail))]
    merged.sort(key=lambda x: (x[0], x[1], x[2]))
    lines = [x[3] for x in merged]
    W(os.path.join(d, "slurm-%d.out" % sc.jobid), lines)
    st = {"FAILED": "FAILED", "COMPLETED": "COMPLETED", "PREEMPTED": "PREEMPTED", "TIMEOUT": "TIMEOUT", "RUNNING": "RUNNING"}.get(sc.job_state, "FAILED")
    ex = "0:0" if st == "COMPLETED" else "1:0" if st == "FAILED" else "0:15"
    W(os.path.join(d, "sacct.txt"), ["$ sacct -j %d --format=JobID,JobName,Partition,NNodes,State,ExitCode,Elapsed,NodeList" % sc.jobid,
                                     "JobID           JobName  Partition   NNodes      State ExitCode    Elapsed        NodeList ",
                                     "------------ ---------- ---------- -------- ---------- -------- ---------- --------------- ",
                                     "%-12d %10s %10s %8d %10s %8s %10s %s" % (sc.jobid, sc.model_name[:10], "gpu", sc.nn, st, ex, "%02d:%02d:%02d" % ((sc.end_t - sc.t0) // 3600 % 24, (sc.end_t - sc.t0) // 60 % 60, (sc.end_t - sc.t0) % 60), ",".join(sc.hosts)[:40]),
                                     "%-12s %10s %10s %8d %10s %8s %10s %s" % ("%d.batch" % sc.jobid, "batch", "", 1, st if st != "PREEMPTED" else "CANCELLED", ex, "", sc.hosts[0]),
                                     "%-12s %10s %10s %8d %10s %8s %10s %s" % ("%d.0" % sc.jobid, "torchrun", "", sc.nn, st if st not in ("PREEMPTED", "TIMEOUT") else "CANCELLED", ex, "", ",".join(sc.hosts)[:40])])
    reasons = []
    for n in sc.hc_nodes:
        b = os.path.join(d, "health", sc.hosts[n])
        hc_tools_basic(sc, b, n, r.choice([1, 2, 2, 3]))
        nl, msgs = nhc_log(sc, n)
        W(os.path.join(b, "nhc.log"), nl)
        if msgs:
            reasons.append((n, msgs[0]))
    # NHC in the epilog may also have drained the real culprit even if the operator looked elsewhere
    if sc.init_node is not None and sc.init_node not in sc.hc_nodes and sc.cause in ("gpu_hardware", "ecc_memory", "nvlink") and not sc.transient:
        reasons.append((sc.init_node, "check_gpu_xid: GPU reports Xid %d" % max(g["xid"] for g in sc.hw[sc.init_node]["gpus"])))
    if reasons or r.random() < 0.5:
        rows = ["$ sinfo -R", "REASON               USER      TIMESTAMP           NODELIST"]
        if r.random() < 0.6:
            rows.append("%-20s %-9s %s %s" % ("maintenance PSU swap", "admin", f_iso(sc.t0 - r.randint(3, 60) * 86400), "gpu%03d" % r.randint(200, 300)))
        for n, m in reasons:
            rows.append("%-20s %-9s %s %s" % (("NHC: " + m)[:20], "root", f_iso(sc.hc_time + sc.skew[n] - 100), sc.hosts[n]))
        W(os.path.join(d, "sinfo-R.txt"), rows)
    if r.random() < 0.4:
        lines = ["Successfully retrieved statistics for job: %d. " % sc.jobid,
                 "+------------------------------------------------------------------------------+",
                 "| GPU ID: %-70s|" % "All",
                 "+====================================+=========================================+"]
        lines.append("|-----  Event Stats  ----------------+-----------------------------------------|")
        n0 = sc.init_node if sc.init_node is not None else 0
        gs = sc.hw[n0]["gpus"]
        sbe = sum(g["sram_corr"] for g in gs)
        dbe = sum(g["dram_unc"] or (1 if g["agg_dram_unc"] and sc.cause == "ecc_memory" else 0) for g in gs)
        xids = [g["xid"] for g in gs if g["xid"]]
        lines += ["| Single Bit ECC Errors              | %-40d|" % sbe,
                  "| Double Bit ECC Errors              | %-40d|" % dbe,
                  "| PCIe Replay Warnings               | %-40d|" % 0,
                  "| Critical XID Errors                | %-40s|" % (str(len([x for x in xids if x not in (13, 31, 43)])) if xids else "0"),
                  "+------------------------------------+-----------------------------------------+",
                  "(dcgm job stats collected by prolog/epilog on %s)" % sc.hosts[n0]]
        W(os.path.join(d, "dcgm-job-stats-%d.txt" % sc.jobid), lines)


def lay_k8s(sc, d):
    r = sc.rng
    job = "%s-%s" % (sc.model_name.replace(".", ""), r.choice(["pt", "ft", "pretrain"]))
    for n in range(sc.nn):
        pod = "%s-master-0" % job if n == 0 else "%s-worker-%d" % (job, n - 1)
        lines = [l for _, l in node_stream_t(sc, n, worker_prefix=r.random() < 0.4)]
        if getattr(sc, "k8s_oom", None) == n:
            # the whole container got OOMKilled: the log just stops
            tcut = sc.exits[sc.init_rank][0]
            lines = [l for t, l in node_stream_t(sc, n) if t <= tcut]
        W(os.path.join(d, "logs", pod + ".log"), maybe_truncate(sc, lines))
    desc = []
    for n in range(sc.nn):
        pod = "%s-master-0" % job if n == 0 else "%s-worker-%d" % (job, n - 1)
        ex = getattr(sc, "node_exit", {}).get(n, (sc.end_t, 0))
        reason, code = ("Completed", 0) if sc.healthy else ("Error", ex[1] if ex[1] else 1)
        if getattr(sc, "k8s_oom", None) == n:
            reason, code = "OOMKilled", 137
        if sc.cause == "preemption":
            reason, code = ("Error", 143)
        desc += ["Name:             %s" % pod, "Namespace:        ml-training", "Node:             %s/%s" % (sc.hosts[n], sc.ip(n)),
                 "Status:           %s" % ("Succeeded" if sc.healthy else "Failed"),
                 "Containers:", "  pytorch:", "    Image:          nvcr.io/nvidia/pytorch:%s-py3" % r.choice(["23.10", "24.01", "24.03"]),
                 "    State:          Terminated", "      Reason:       %s" % reason, "      Exit Code:    %d" % code,
                 "      Started:      %s" % dt(sc.t0 + sc.skew[n]).strftime("%a, %d %b %Y %H:%M:%S +0000"),
                 "      Finished:     %s" % dt(ex[0] + sc.skew[n]).strftime("%a, %d %b %Y %H:%M:%S +0000"),
                 "    Limits:", "      cpu:             %d" % r.choice([96, 180]), "      memory:          %dGi" % r.choice([900, 1600]), "      nvidia.com/gpu:  %d" % sc.gpn,
                 "Events:", "  Type     Reason     Age   From               Message", "  ----     ------     ----  ----               -------"]
        if sc.cause == "preemption":
            if sc.job_state == "Evicted":
                desc.append("  Warning  Evicted    %dm   kubelet            The node was low on resource: ephemeral-storage. Threshold quantity: %dGi, available: %dMi. Container pytorch was using %dGi, request is 0, has larger consumption of ephemeral-storage." % (r.randint(5, 50), r.randint(20, 60), r.randint(100, 900), r.randint(100, 400)) if n == 0 else "  Normal   Killing    %dm   kubelet            Stopping container pytorch" % r.randint(5, 50))
            else:
                desc.append("  Normal   Preempted  %dm   default-scheduler  Preempted by ml-prod/%s-%x on node %s" % (r.randint(5, 50), r.choice(["infer", "eval"]), r.getrandbits(20), sc.hosts[n]))
                desc.append("  Normal   Killing    %dm   kubelet            Stopping container pytorch" % r.randint(5, 50))
        elif not sc.healthy and r.random() < 0.5:
            desc.append("  Warning  BackOff    %dm   kubelet            Back-off restarting failed container pytorch in pod %s" % (r.randint(1, 30), pod))
        desc.append("")
    W(os.path.join(d, "kubectl-describe-pods.txt"), desc)
    if sc.init_node is not None and sc.cause in ("gpu_hardware", "ecc_memory", "nvlink") and r.random() < 0.6:
        n = sc.init_node
        g = [i for i, x in enumerate(sc.hw[n]["gpus"]) if x["xid"]]
        W(os.path.join(d, "kubectl-describe-node-%s.txt" % sc.hosts[n]), [
            "Name:               %s" % sc.hosts[n], "Conditions:",
            "  Type                 Status  LastHeartbeatTime                 Reason                       Message",
            "  ----                 ------  -----------------                 ------                       -------",
            "  GpuXidError          True    %s   XidCriticalError             Node condition GpuXidError is now: True, reason: XidCriticalError, message: \"Xid %d on GPU %s\"" % (f_iso(sc.end_t), sc.hw[n]["gpus"][g[0]]["xid"] if g else 0, sc.hw[n]["gpus"][g[0]]["bus"] if g else "?"),
            "  MemoryPressure       False   %s   KubeletHasSufficientMemory   kubelet has sufficient memory available" % f_iso(sc.hc_time),
            "  Ready                True    %s   KubeletReady                 kubelet is posting ready status" % f_iso(sc.hc_time),
            "Allocatable:", "  nvidia.com/gpu:     %d" % (sc.gpn - (0 if sc.transient else 1))])
    for n in sc.hc_nodes:
        h = sc.hosts[n]
        W(os.path.join(d, "dcgm", "%s-dcgmi-health-c.txt" % h), ["$ kubectl exec -n gpu-operator nvidia-dcgm-%s -- dcgmi health -c" % h[-4:]] + dcgmi_health(sc, n))
        lvl = r.choice([1, 2])
        W(os.path.join(d, "dcgm", "%s-dcgmi-diag-r%d.txt" % (h, lvl)), ["$ kubectl exec -n gpu-operator nvidia-dcgm-%s -- dcgmi diag -r %d" % (h[-4:], lvl)] + dcgmi_diag(sc, n, lvl))
        W(os.path.join(d, "nodes", h, "nvidia-smi.txt"), nvidia_smi_table(sc, n))
        W(os.path.join(d, "nodes", h, "dmesg-T.txt"), journal_k(sc, n, fmt="ctime"))


def lay_ticket(sc, d):
    r = sc.rng
    for n in range(sc.nn):
        lines = [l for _, l in node_stream_t(sc, n, worker_prefix=True)]
        W(os.path.join(d, "training", "node%d_%s.log" % (n, sc.hosts[n])), maybe_truncate(sc, lines))
    when = f_iso(sc.end_t + sc.skew[0]) if sc.end_t else "?"
    tk = ["INC-%d  GPU training job %s" % (r.randint(10000, 99999), "completed, user asks for node review" if sc.healthy else "failed / stalled"),
          "Reported by: %s" % r.choice(["ml-research", "llm-pretrain", "vision-team"]),
          "Job: %d  nodes: %s  approx time (UTC): %s" % (sc.jobid, ", ".join(sc.hosts), when), "",
          "Operator actions:"]
    for n in sc.hc_nodes:
        tk.append("- collected nvidia-bug-report, SEL, sensors, lspci, dcgmi diag -r 3 on %s%s" % (sc.hosts[n], " (after reboot)" if n in sc.rebooted else ""))
    if sc.nccl_test:
        tk.append("- ran nccl-tests all_reduce_perf across the allocation afterwards")
    if getattr(sc, "pyspy", False) and getattr(sc, "hang_rank", None) is not None:
        tk.append("- user attached py-spy dumps taken while the job was stuck")
    tk += ["", "Attachments below. No root cause assigned yet."]
    W(os.path.join(d, "TICKET.txt"), tk)
    for n in sc.hc_nodes:
        b = os.path.join(d, "postmortem", sc.hosts[n])
        W(os.path.join(b, "nvidia-bug-report.log"), nvidia_bug_report(sc, n))
        W(os.path.join(b, "ipmitool-sel-list.txt"), ["$ ipmitool sel list"] + ipmi_sel(sc, n))
        W(os.path.join(b, "sensors.txt"), ["$ sensors"] + sensors_out(sc, n))
        W(os.path.join(b, "lspci-vvv-nvidia.txt"), ["$ lspci -vvv -d 10de:"] + lspci_gpu(sc, n))
        W(os.path.join(b, "dcgmi-diag-r3.txt"), ["$ dcgmi diag -r 3"] + dcgmi_diag(sc, n, 3))
    if sc.nccl_test:
        W(os.path.join(d, "postmortem", "nccl-tests", "all_reduce_perf.txt"), all_reduce_perf(sc))
    if getattr(sc, "pyspy", False) and getattr(sc, "hang_rank", None) is not None:
        W(os.path.join(d, "postmortem", "py-spy-%s.txt" % sc.hosts[sc.node_of(sc.hang_rank)]), ["$ for p in $(pgrep -f %s); do py-spy dump --pid $p; done" % sc.script] + pyspy_dump(sc))


def lay_fabric(sc, d):
    r = sc.rng
    for n in range(sc.nn):
        lines = [l for _, l in node_stream_t(sc, n, worker_prefix=r.random() < 0.5)]
        W(os.path.join(d, "logs", "train-%s.log" % sc.hosts[n]), maybe_truncate(sc, lines))
    W(os.path.join(d, "fabric", "ibdiagnet2-summary.txt"), ["$ ibdiagnet --pc -P all=1"] + ibdiagnet_summary(sc))
    nodes = sorted(set(sc.hc_nodes + ([sc.init_node] if sc.init_node is not None and r.random() < 0.5 else [])))
    for n in nodes:
        b = os.path.join(d, "fabric", sc.hosts[n])
        W(os.path.join(b, "ibstat.txt"), ["$ ibstat"] + ibstat_out(sc, n))
        if r.random() < 0.5:
            W(os.path.join(b, "ibv_devinfo.txt"), ["$ ibv_devinfo"] + ibv_devinfo_out(sc, n))
        for nic in sc.hw[n]["nics"][:2] if not getattr(sc, "bad_nic", None) or sc.bad_nic[0] != n else [x for x in sc.hw[n]["nics"] if x["name"] == sc.bad_nic[1]] + sc.hw[n]["nics"][:1]:
            W(os.path.join(b, "mlxlink-%s.txt" % nic["name"]), ["$ mlxlink -d %s -c" % nic["name"]] + mlxlink_out(sc, n, nic))
        if sc.net == "roce":
            W(os.path.join(b, "ethtool-S.txt"), ["$ ethtool -S %s" % "enp%ds0np0" % int(sc.hw[n]["nics"][0]["pci"][5:7], 16)] + ethtool_S(sc, n, sc.hw[n]["nics"][0]))
        W(os.path.join(b, "journalctl-k.txt"), ["$ journalctl -k --no-pager"] + journal_k(sc, n))
        if n in sc.hc_nodes:
            W(os.path.join(d, "gpu", sc.hosts[n], "nvidia-smi-q.txt"), ["$ nvidia-smi -q"] + nvidia_smi_q(sc, n))
    if sc.nccl_test or r.random() < 0.5:
        sc.nccl_test = sc.nccl_test or dict(bad_node=None)
        W(os.path.join(d, "nccl-tests", "all_reduce_perf-%s.log" % dt(sc.hc_time).strftime("%Y%m%d-%H%M")), all_reduce_perf(sc))


def lay_cloud(sc, d):
    r = sc.rng
    for n in range(sc.nn):
        lines = [l for _, l in node_stream_t(sc, n, worker_prefix=r.random() < 0.6)]
        W(os.path.join(d, "torchrun-%s.log" % sc.hosts[n]), maybe_truncate(sc, lines))
    for n in sc.hc_nodes:
        h = sc.hosts[n]
        W(os.path.join(d, "diag", h, "dmesg.txt"), journal_k(sc, n, fmt="dmesg"))
        W(os.path.join(d, "diag", h, "nvidia-smi-q.txt"), nvidia_smi_q(sc, n))
        if r.random() < 0.6:
            W(os.path.join(d, "diag", h, "dcgmi-diag-r2.txt"), ["$ sudo dcgmi diag -r 2"] + dcgmi_diag(sc, n, 2))
        if sc.net == "efa":
            hwc = ["$ for f in /sys/class/infiniband/rdmap*/ports/1/hw_counters/*; do echo \"$f $(cat $f)\"; done"]
            for i in range(4):
                for k, v in [("lifespan", 12), ("rdma_read_bytes", r.randint(10 ** 9, 10 ** 12)), ("rdma_read_resp_bytes", r.randint(10 ** 9, 10 ** 12)),
                             ("recv_bytes", r.randint(10 ** 10, 10 ** 13)), ("rx_drops", 0), ("retrans_bytes", r.randint(0, 10 ** 6)),
                             ("retrans_pkts", r.randint(0, 900)), ("retrans_timeout_events", (sc.hw[n]["nics"][0]["crc"] if i == 0 else 0)),
                             ("impaired_remote_conn_events", (sc.hw[n]["nics"][0]["linkdown"] if i == 0 else 0)), ("unresponsive_remote_events", 0)]:
                    hwc.append("/sys/class/infiniband/rdmap%ds27/ports/1/hw_counters/%s %d" % (16 + i * 16, k, v))
            W(os.path.join(d, "diag", h, "efa-hw-counters.txt"), hwc)
        elif sc.net == "socket":
            nic = dict(sc.hw[n]["nics"][0])
            W(os.path.join(d, "diag", h, "ethtool-S-eth0.txt"), ["$ ethtool -S eth0", "NIC statistics:",
                 "     tx_timeout: %d" % (1 if getattr(sc, "bad_nic", (None,))[0] == n else 0),
                 "     suspend: 0", "     resume: 0", "     wd_expired: %d" % (1 if getattr(sc, "bad_nic", (None,))[0] == n else 0),
                 "     interface_up: %d" % (2 if getattr(sc, "bad_nic", (None,))[0] == n else 1), "     interface_down: %d" % (1 if getattr(sc, "bad_nic", (None,))[0] == n else 0),
                 "     admin_q_pause: 0", "     bw_in_allowance_exceeded: %d" % r.choice([0, 0, 1523, 88012]),
                 "     bw_out_allowance_exceeded: %d" % r.choice([0, 0, 341]), "     pps_allowance_exceeded: 0",
                 "     conntrack_allowance_exceeded: 0", "     linklocal_allowance_exceeded: %d" % r.choice([0, 12])])
        else:
            W(os.path.join(d, "diag", h, "ethtool-S.txt"), ["$ ethtool -S eth1"] + ethtool_S(sc, n, sc.hw[n]["nics"][0]))
    if sc.cause == "preemption":
        n = r.randrange(sc.nn)
        if sc.job_state == "spot":
            W(os.path.join(d, "diag", sc.hosts[n], "imds-spot-instance-action.json"),
              [json.dumps({"action": "terminate", "time": f_iso(sc.end_t - 115) + "Z"})])
        else:
            W(os.path.join(d, "cloud-operations.txt"), ["$ gcloud compute operations list --filter='targetLink~%s'" % sc.hosts[n],
                                                        "NAME                                                  TYPE                          TARGET          HTTP_STATUS  STATUS  TIMESTAMP",
                                                        "systemevent-%d-%x  compute.instances.%s  %s  200          DONE    %s" % (int(sc.end_t), r.getrandbits(24), "preempted" if r.random() < 0.5 else "hostMaintenance", sc.hosts[n], f_iso(sc.end_t - 30) + ".000-00:00")])
    if sc.nccl_test:
        W(os.path.join(d, "all_reduce_perf.txt"), all_reduce_perf(sc))


def lay_pdsh(sc, d):
    r = sc.rng
    out = []
    ds_ver = r.choice(["0.12.6", "0.13.1", "0.14.0", "0.14.4"])
    out.append("[%s] [INFO] [runner.py:568:main] cmd = pdsh -S -f 1024 -w %s export PYTHONPATH=/workspace; cd /workspace; /usr/bin/python3 -u -m deepspeed.launcher.launch --world_info=eyJ... --node_rank=%%n --master_addr=%s --master_port=%d %s --deepspeed_config ds_config.json" % (f_py(sc.t0 - 5)[:-4] + "," + f_py(sc.t0 - 5)[-3:], ",".join(sc.hosts), sc.master, sc.port, sc.script))
    items = []
    for n in range(sc.nn):
        h = sc.hosts[n]
        items.append((sc.t0 - 2, n, "%s: [%s] [INFO] [launch.py:146:main] WORLD INFO DICT: {%s}" % (h, f_py(sc.t0 - 2 + sc.skew[n]), ", ".join("'%s': [%s]" % (x, ", ".join(str(i) for i in range(sc.gpn))) for x in sc.hosts))))
        items.append((sc.t0 - 1.9, n, "%s: [%s] [INFO] [launch.py:163:main] dist_world_size=%d" % (h, f_py(sc.t0 - 1.9 + sc.skew[n]), sc.world)))
        for i, l in enumerate(sc.agent_lines[n]):
            t, kind, text = l
            ts = f_py(t + sc.skew[n])
            if text.startswith("Sending process"):
                items.append((t, n, "%s: [%s] [INFO] [launch.py:315:sigkill_handler] Killing subprocess %s" % (h, ts, text.split()[2])))
            elif text.startswith("failed (exitcode"):
                ec = int(text.split("exitcode: ")[1].split(")")[0])
                lr = int(text.split("local_rank: ")[1].split()[0])
                items.append((t, n, "%s: [%s] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python3', '-u', '%s', '--local_rank=%d', '--deepspeed_config', 'ds_config.json'] exits with return code = %d" % (h, ts, sc.script, lr, ec)))
            elif text.startswith("Received"):
                items.append((t, n, "%s: [%s] [INFO] [launch.py:315:sigkill_handler] Main process received SIGTERM, exiting" % (h, ts)))
            elif "successfully finished" in text:
                items.append((t, n, "%s: [%s] [INFO] [launch.py:347:main] Process %d exits successfully." % (h, ts, sc.pids[n * sc.gpn])))
        for rk in sc.ranks_on(n):
            for i, l in enumerate(sc.rank_lines[rk]):
                for x in render_rank_line(sc, rk, l).split("\n"):
                    items.append((l[0], n, "%s: %s" % (h, x)))
        if n in getattr(sc, "node_exit", {}) and not sc.healthy:
            items.append((sc.node_exit[n][0] + 0.5, n, "pdsh@%s: %s: ssh exited with exit code %d" % (sc.hosts[0], h, sc.node_exit[n][1] if sc.node_exit[n][1] else 1)))
    items.sort(key=lambda x: (x[0], x[1]))
    out += [x[2] for x in items]
    for t, txt in sorted(sc.sched):
        out.append(txt)
    W(os.path.join(d, "train.log"), maybe_truncate(sc, out))
    rep = ["# node health check (site script gpu_node_check.sh v%d.%d) run %s" % (r.randint(1, 3), r.randint(0, 9), f_iso(sc.hc_time))]
    for n in sc.hc_nodes:
        hw = sc.hw[n]
        rep.append("== %s ==" % sc.hosts[n])
        ok_gpus = len([g for g in hw["gpus"] if not g["lost"]])
        rep.append("[%s] gpu count: %d/%d" % ("PASS" if ok_gpus == sc.gpn else "FAIL", ok_gpus, sc.gpn))
        for i, g in enumerate(hw["gpus"]):
            if g["lost"]:
                continue
            st = "PASS"
            det = "dram_unc=%d sram_corr=%d remap_pending=%s" % (g["dram_unc"], g["sram_corr"], g["remap_pending"] if sc.gpu["remap"] else g["pending_bl"])
            if g["dram_unc"] or g["remap_pending"] == "Yes" or g["pending_bl"] == "Yes" or g["remap_fail"] == "Yes":
                st = "FAIL"
            elif g["sram_corr"]:
                st = "WARN"
            rep.append("[%s] gpu%d ecc: %s" % (st, i, det))
            if g["throttle"]:
                rep.append("[%s] gpu%d clocks_event_reasons: %s" % ("WARN" if g["throttle"] != ["sw_power"] else "INFO", i, ",".join(g["throttle"])))
            if g["link_down"]:
                rep.append("[FAIL] gpu%d nvlink: link %d inactive" % (i, g["link_down"][0]))
            if g["reset_required"]:
                rep.append("[FAIL] gpu%d reset required" % i)
        for nic in hw["nics"]:
            rep.append("[%s] %s port1: %s/%s rate %d" % ("PASS" if nic["state"] == "Active" else ("INFO" if nic.get("unused") else "FAIL"), nic["name"], nic["state"], nic["phys"], nic["rate"]))
        rep.append("[%s] pcie link: %s" % ("PASS" if hw["lnk_downgraded"] is None else "FAIL", "all x16" if hw["lnk_downgraded"] is None else "gpu%d x8 2.5GT/s" % hw["lnk_downgraded"]))
        rep.append("[%s] kernel log: %d NVRM Xid lines since boot" % ("PASS" if not any("Xid" in x[2] for x in sc.kern[n]) else "WARN", len([x for x in sc.kern[n] if "Xid" in x[2]])))
        rep.append("")
        W(os.path.join(d, "hw", sc.hosts[n], "sensors.txt"), sensors_out(sc, n))
        W(os.path.join(d, "hw", sc.hosts[n], "lspci-vvv.txt"), lspci_gpu(sc, n))
        W(os.path.join(d, "hw", sc.hosts[n], "ipmitool-sel-list.txt"), ipmi_sel(sc, n))
        if r.random() < 0.5:
            W(os.path.join(d, "hw", sc.hosts[n], "dmesg.txt"), journal_k(sc, n, fmt="dmesg"))
    W(os.path.join(d, "node_health_check.txt"), rep)
    if sc.nccl_test:
        W(os.path.join(d, "hw", "all_reduce_perf.txt"), all_reduce_perf(sc))


LAYOUT_FN = {"slurm_nhc": lay_slurm, "k8s_dcgm": lay_k8s, "dgx_ticket": lay_ticket, "ib_fabric": lay_fabric,
             "cloud_vm": lay_cloud, "pdsh_deepspeed": lay_pdsh}


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------
def plan(n, seed):
    r = random.Random("blind50-plan-%s" % seed)
    order = list(CAUSES)
    r.shuffle(order)
    loff = r.randrange(len(LAYOUTS))
    runs = []
    k = 0
    for i in range(n):
        if i % 7 == 3:
            cause = None
        else:
            cause = order[k % len(order)]
            k += 1
        # rotate layouts so that, across consecutive runs, each layout meets every cause
        lay = LAYOUTS[(i + loff + i // len(LAYOUTS)) % len(LAYOUTS)]
        if cause is not None and cause not in LAYOUT_CAUSES[lay]:
            lay = LAYOUTS[(LAYOUTS.index(lay) + 1) % len(LAYOUTS)]
        runs.append((i, lay, cause))
    return runs


def gen_one(out, seed, i, lay, cause):
    rng = random.Random("blind50-%s-%d-%s-%s" % (seed, i, lay, cause))
    sc = Sc(rng, i, lay, cause)
    sc.pyfmt = rng.randrange(3)
    sc.dcgm_ver = rng.choice(["3.1.8", "3.2.6", "3.3.5", "3.3.7"])
    build(sc)
    d = os.path.join(out, "run-%03d-%s" % (i, lay))
    os.makedirs(d, exist_ok=True)
    LAYOUT_FN[lay](sc, d)
    if getattr(sc, "pyspy", False) and getattr(sc, "hang_rank", None) is not None and lay != "dgx_ticket":
        W(os.path.join(d, "py-spy-dump-%s.txt" % sc.hosts[sc.node_of(sc.hang_rank)]),
          ["$ for p in $(pgrep -f '%s'); do py-spy dump --pid $p; done" % sc.script] + pyspy_dump(sc))
    init = None
    if not sc.healthy and (sc.rank_known or sc.node_known):
        init = {"rank": sc.init_rank if sc.rank_known else None,
                "node": sc.hosts[sc.init_node] if (sc.node_known and sc.init_node is not None) else None}
        if init["rank"] is None and init["node"] is None:
            init = None
    truth = {"healthy": sc.healthy, "cause": cause, "initiator": init, "layout": lay,
             "notes": "; ".join(sc.notes) + ("; transient fault, tools look clean on the bad node" if sc.transient and "transient" not in "; ".join(sc.notes) else "")}
    with open(os.path.join(d, "truth.json"), "w") as f:
        json.dump(truth, f, indent=2)
    return truth


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    counts = {c: 0 for c in CAUSES}
    counts["healthy"] = 0
    for i, lay, cause in plan(a.n, a.seed):
        gen_one(a.out, a.seed, i, lay, cause)
        counts[cause or "healthy"] += 1
    print(json.dumps(counts, indent=1))


if __name__ == "__main__":
    main()
