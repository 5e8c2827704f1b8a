#!/usr/bin/env python3
"""gen_blind17.py -- synthetic "what people attach to an issue" bundles of failed
(or healthy-but-scary) multi-GPU PyTorch/NCCL jobs, each with a truth.json.

Written blind: without reading the diagnosis tool's code, rules, tests or corpus.
Standard library only.  Deterministic for a given --seed.

    python3 gen_blind17.py --out DIR --n 60 --seed 1
"""
import argparse
import json
import math
import os
import re
import random
import sys
from datetime import datetime, timedelta, timezone

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill",
          "crash_signal", "preemption", "hang", "data_loader_stall",
          "collective_mismatch", "straggler", "unknown"]
LAYOUTS = ["torchrun_issue", "single_rank_paste", "slurm_out",
           "windows_paste", "launcher_pdsh", "k8s_pods"]
DRAIN_CAUSES = ("gpu_hardware", "ecc_memory", "nvlink")

# (torch version string, torch minor, cuda, nccl version, python)
TORCH_VERSIONS = [
    ("2.0.1+cu118", 0, "11.8", "2.18.1", "3.10"),   # user LD_PRELOADs newer NCCL
    ("2.1.2+cu121", 1, "12.1", "2.18.1", "3.10"),
    ("2.1.0a0+32f93b1", 1, "12.2", "2.18.5", "3.10"),  # NGC 23.09
    ("2.2.2+cu121", 2, "12.1", "2.19.3", "3.10"),
    ("2.3.1+cu121", 3, "12.1", "2.20.5", "3.11"),
    ("2.4.1+cu124", 4, "12.4", "2.20.5", "3.11"),
    ("2.5.1+cu124", 5, "12.4", "2.21.5", "3.11"),
    ("2.6.0+cu126", 6, "12.6", "2.24.3", "3.12"),
    ("2.7.1+cu128", 7, "12.8", "2.26.2", "3.12"),
    ("2.8.0+cu128", 8, "12.8", "2.27.3", "3.12"),
    ("2.9.0+cu128", 9, "12.8", "2.27.5", "3.12"),
]

GPU_MODELS = {
    "a100": dict(name="NVIDIA A100-SXM4-80GB", mem=81920, cap="79.15 GiB", watts=400,
                 bus=["07", "0f", "47", "4e", "87", "90", "b7", "bd"], nvlink=True, ecc=True,
                 driver="535.161.08", cudadrv="12.2"),
    "h100": dict(name="NVIDIA H100 80GB HBM3", mem=81559, cap="79.11 GiB", watts=700,
                 bus=["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"], nvlink=True, ecc=True,
                 driver="550.90.07", cudadrv="12.4"),
    "a100_40": dict(name="NVIDIA A100-SXM4-40GB", mem=40960, cap="39.39 GiB", watts=400,
                    bus=["07", "0f", "47", "4e", "87", "90", "b7", "bd"], nvlink=True, ecc=True,
                    driver="525.147.05", cudadrv="12.0"),
    "l40s": dict(name="NVIDIA L40S", mem=46068, cap="44.42 GiB", watts=350,
                 bus=["01", "21", "41", "61", "81", "a1", "c1", "e1"], nvlink=False, ecc=True,
                 driver="550.54.15", cudadrv="12.4"),
    "rtx4090": dict(name="NVIDIA GeForce RTX 4090", mem=24564, cap="23.64 GiB", watts=450,
                    bus=["01", "02", "41", "42", "81", "82", "c1", "c2"], nvlink=False, ecc=False,
                    driver="551.86", cudadrv="12.4"),
}

OP_TYPES = ["ALLREDUCE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE", "ALLREDUCE", "BROADCAST",
            "ALLREDUCE", "COALESCED"]


# ----------------------------------------------------------------------------- time helpers
def dtu(t, off_h=0.0):
    return datetime.fromtimestamp(t, tz=timezone.utc) + timedelta(hours=off_h)


def frac_ns(t):
    return int(round((t - int(t)) * 1e9)) % 1000000000


def ts_c10(t):  # c10 glog style used by torch >= 2.4: month not zero padded, ns
    d = dtu(t)
    return "%d%02d %s.%09d" % (d.month, d.day, d.strftime("%H:%M:%S"), frac_ns(t))


def ts_pyglog(t):  # torch python glog-ish formatter (agent logs 2.4+)
    d = dtu(t)
    return "%s.%03d000" % (d.strftime("%m%d %H:%M:%S"), frac_ns(t) // 1000000)


def ts_bracket_ms(t, off=0.0):
    d = dtu(t, off)
    return "%s,%03d" % (d.strftime("%Y-%m-%d %H:%M:%S"), frac_ns(t) // 1000000)


def ts_dmesg_T(t, off):
    d = dtu(t, off)
    return "[" + d.strftime("%a %b ") + ("%2d" % d.day) + d.strftime(" %H:%M:%S %Y") + "]"


def ts_journal(t, off):
    return dtu(t, off).strftime("%b %d %H:%M:%S")


def ts_slurm(t, off):
    return dtu(t, off).strftime("%Y-%m-%dT%H:%M:%S")


def ts_k8s(t):
    return dtu(t).strftime("%a, %d %b %Y %H:%M:%S +0000")


def ts_elastic(t):
    return dtu(t).strftime("%Y-%m-%d_%H:%M:%S")


def human_age(sec):
    sec = int(sec)
    if sec < 120:
        return "%ds" % sec
    if sec < 3600 * 3:
        return "%dm" % (sec // 60)
    if sec < 86400 * 2:
        return "%dh" % (sec // 3600)
    return "%dd" % (sec // 86400)


# ----------------------------------------------------------------------------- a line
class L:
    """One emitted line.  t: epoch seconds (true time), text: as printed,
    tags: evidence tags that a renderer records when it includes the line."""
    __slots__ = ("t", "text", "tags", "src")

    def __init__(self, t, text, tags=(), src=None):
        self.t = t
        self.text = text
        self.tags = tuple(tags)
        self.src = src


def lines_at(t, block, tags=(), src=None, dt=0.0):
    out = []
    for i, s in enumerate(block.split("\n")):
        out.append(L(t + i * dt, s, tags, src))
    return out


# ----------------------------------------------------------------------------- version tables
# ProcessGroupNCCL.cpp line numbers by torch minor (approximate, per release)
PGN = {
    0: dict(wd=475, some=489, down=495, term=916, chk=477, err=1271, barrier=3317),
    1: dict(wd=475, some=489, down=495, term=916, chk=477, err=1271, barrier=3405),
    2: dict(wd=523, some=537, down=543, term=1182, chk=525, err=1207, desync=1203, barrier=3612),
    3: dict(wd=563, some=577, down=583, term=1414, tmo=1537, chk=565, err=1427, desync=1526, barrier=3826),
    4: dict(wd=607, some=621, down=627, term=1595, det=1664, tmo=1713, chk=609, err=1802, desync=1690,
            destroy=1250, barrier=4115),
    5: dict(wd=616, some=630, down=636, term=1595, det=1785, tmo=1834, chk=618, err=2027, desync=1811,
            destroy=1250, barrier=4115),
    6: dict(wd=632, some=646, down=652, term=1895, det=1897, tmo=1946, chk=634, err=2203, desync=1923,
            destroy=1491, barrier=4713),
    7: dict(wd=685, some=699, down=705, term=2017, det=2042, tmo=2091, chk=687, err=2376, desync=2068,
            destroy=1522, barrier=4950),
    8: dict(wd=690, some=704, down=710, term=2052, det=2067, tmo=2116, chk=692, err=2411, desync=2093,
            destroy=1538, barrier=5014),
    9: dict(wd=690, some=704, down=710, term=2052, det=2067, tmo=2116, chk=692, err=2411, desync=2093,
            destroy=1538, barrier=5030),
}
AGENT_LN = {  # torch/distributed/elastic/multiprocessing/api.py (send, failed), run.py banner, agent api death
    0: (699, 673, 785, 723), 1: (727, 700, 798, 735), 2: (826, 800, 803, 727), 3: (833, 806, 757, 727),
    4: (897, 869, 793, 704), 5: (900, 874, 793, 704), 6: (766, 882, 792, 719), 7: (766, 882, 774, 725),
    8: (766, 882, 774, 725), 9: (766, 882, 770, 725),
}
NET_IB_LN = {18: 1295, 19: 1696, 20: 1696, 21: 2081, 22: 2081, 23: 2245, 24: 2245, 25: 2245, 26: 2281, 27: 2281}

PY_WARNINGS = [
    ("{site}/torch/distributed/distributed_c10d.py:{ln}: UserWarning: barrier(): using the device under "
     "current context. You can specify `device_id` in `init_process_group` to mute this warning.", None),
    ("{site}/torch/utils/checkpoint.py:{ln}: UserWarning: torch.utils.checkpoint: the use_reentrant parameter "
     "should be passed explicitly. In version 2.5 we will raise an exception if use_reentrant is not passed. "
     "use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can "
     "pass use_reentrant=True. Refer to docs for more details on the differences between the two variants.",
     "  return fn(*args, **kwargs)"),
    ("{site}/torch/_utils.py:{ln}: UserWarning: TypedStorage is deprecated. It will be removed in the future "
     "and UntypedStorage will be the only storage class. This should only matter to you if you are using "
     "storages directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of "
     "tensor.storage()", "  return self.fget.__get__(instance, owner)()"),
    ("{work}/train.py:{ln}: FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
     "`torch.amp.GradScaler('cuda', args...)` instead.", "  scaler = torch.cuda.amp.GradScaler()"),
    ("{site}/transformers/tokenization_utils_base.py:{ln}: FutureWarning: `clean_up_tokenization_spaces` was not "
     "set. It will be set to `True` by default. This behavior will be depracted in transformers v4.45, and "
     "will be then set to `False` by default. For more details check this issue: "
     "https://github.com/huggingface/transformers/issues/31884", "  warnings.warn("),
    ("{site}/torch/nn/parallel/distributed.py:{ln}: UserWarning: find_unused_parameters=True was specified in "
     "DDP constructor, but did not find any unused parameters in the forward pass. This flag results in an "
     "extra traversal of the autograd graph every iteration,  which can adversely affect performance. If your "
     "model indeed never has any unused parameters in the forward pass, consider turning this flag off.",
     "  Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"),
]

PY_EXCEPTIONS = [
    # (user code frames, exception lines)
    ("data", ["KeyError: 'input_ids'"]),
    ("data", ["FileNotFoundError: [Errno 2] No such file or directory: '/mnt/datasets/{dset}/shard-{shard:05d}.parquet'"]),
    ("collate", ["RuntimeError: stack expects each tensor to be equal size, but got [3, 224, 224] at entry 0 "
                 "and [1, 224, 224] at entry {e}"]),
    ("model", ["RuntimeError: The size of tensor a ({a}) must match the size of tensor b ({b}) at non-singleton "
               "dimension 1"]),
    ("model", ["ValueError: Expected input batch_size ({a}) to match target batch_size ({b})."]),
    ("loss", ["AssertionError: loss is nan at step {step}"]),
    ("ckpt", ["OSError: [Errno 122] Disk quota exceeded"]),
    ("model", ["IndexError: index out of range in self"]),
]


class Sim:
    """One synthetic job.  Holds topology, timeline and cause; produces per-rank,
    per-agent and per-node line streams that the layout renderers assemble."""

    def __init__(self, seed, idx, layout, cause):
        self.seed, self.idx, self.layout = seed, idx, layout
        self.cause = cause
        self.healthy = cause is None
        self.rng = random.Random("blind17|%s|%d" % (seed, idx))
        self.tags = {}
        self.notes = []
        self.decoys = []
        self._stack()
        self._topology()
        self._timeline()
        self._culprit()
        self._variant()
        self._sets()

    # ------------------------------------------------------------------ setup
    def rrng(self, r, salt=""):
        return random.Random("blind17|%s|%d|%s|%s" % (self.seed, self.idx, r, salt))

    def _stack(self):
        rng = self.rng
        pool = TORCH_VERSIONS
        if self.layout == "torchrun_issue":
            pool = [v for v in pool if v[1] >= 2]
        self.torch, self.minor, self.cuda, self.nccl, self.py = rng.choice(pool)
        self.nccl_minor = int(self.nccl.split(".")[1])
        c = self.cause
        if self.layout == "windows_paste":
            gp = ["rtx4090", "rtx4090", "l40s", "a100", "h100"]
        else:
            gp = ["a100", "a100", "h100", "h100", "h100", "a100_40", "l40s"]
        if c == "nvlink":
            gp = [g for g in gp if GPU_MODELS[g]["nvlink"]] or ["a100"]
        if c == "ecc_memory":
            gp = [g for g in gp if GPU_MODELS[g]["ecc"]]
        self.gpu = rng.choice(gp)
        self.G = GPU_MODELS[self.gpu]
        envs = [("/usr/local/lib/python{py}/dist-packages", "/usr/bin/python", "/usr/local/bin/torchrun"),
                ("/opt/conda/lib/python{py}/site-packages", "/opt/conda/bin/python", "/opt/conda/bin/torchrun"),
                ("/home/{user}/miniconda3/envs/{env}/lib/python{py}/site-packages",
                 "/home/{user}/miniconda3/envs/{env}/bin/python", "/home/{user}/miniconda3/envs/{env}/bin/torchrun"),
                ("/home/{user}/venvs/{env}/lib/python{py}/site-packages", "/home/{user}/venvs/{env}/bin/python3",
                 "/home/{user}/venvs/{env}/bin/torchrun")]
        site, pybin, trbin = rng.choice(envs if self.layout != "k8s_pods" else envs[:2])
        self.user = rng.choice(["ubuntu", "jchen", "mlops", "akumar", "svc-train", "lena", "root"])
        self.envname = rng.choice(["llm", "train", "py310", "ft", "torch2"])
        fill = dict(py=self.py, user=self.user, env=self.envname)
        self.site, self.pybin, self.trbin = site.format(**fill), pybin.format(**fill), trbin.format(**fill)
        if self.user == "root":
            self.site, self.pybin, self.trbin = [x.replace("/home/root/", "/root/") for x in
                                                 (self.site, self.pybin, self.trbin)]
        self.osrel = rng.choice([("Ubuntu 22.04.4 LTS (x86_64)", "(Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0", "glibc-2.35",
                                  ["5.15.0-105-generic #115-Ubuntu", "5.15.0-91-generic #101-Ubuntu",
                                   "6.5.0-1024-gcp #26~22.04.1-Ubuntu", "6.8.0-45-generic #45~22.04.1-Ubuntu"]),
                                 ("Ubuntu 20.04.6 LTS (x86_64)", "(Ubuntu 9.4.0-1ubuntu1~20.04.2) 9.4.0", "glibc-2.31",
                                  ["5.4.0-182-generic #202-Ubuntu", "5.15.0-107-generic #117~20.04.1-Ubuntu"]),
                                 ("Rocky Linux 9.4 (Blue Onyx) (x86_64)", "(GCC) 11.4.1 20231218 (Red Hat 11.4.1-3)",
                                  "glibc-2.34", ["5.14.0-427.22.1.el9_4.x86_64 #1"])])
        self.kver = rng.choice(self.osrel[3])
        self.proj = rng.choice(["llm-pretrain", "vit-ddp", "ft-llama", "diffusion", "asr-conformer", "gpt-neox-ft",
                                "recsys", "mae"])
        self.work = rng.choice(["/workspace/", "/home/%s/" % self.user, "/mnt/code/"]) + self.proj
        self.script = rng.choice(["train.py", "pretrain.py", "main.py", "train_ddp.py", "finetune.py"])
        fw = {"torchrun_issue": ["plain", "hf", "lightning"], "single_rank_paste": ["plain", "hf", "megatron"],
              "slurm_out": ["plain", "lightning", "megatron", "hf"], "windows_paste": ["hf", "plain", "lightning"],
              "launcher_pdsh": ["deepspeed"], "k8s_pods": ["plain", "hf", "megatron"]}[self.layout]
        self.fw = rng.choice(fw)
        self.pyfaulthandler = rng.random() < 0.35

    def _topology(self):
        rng, lay, c = self.rng, self.layout, self.cause
        if lay == "torchrun_issue":
            nn, gpn = rng.choice([1, 1, 1, 2, 2, 2, 4]), rng.choice([8, 8, 8, 4, 2])
        elif lay == "single_rank_paste":
            nn, gpn = rng.choice([1, 2, 4, 4, 8, 8, 16, 32]), 8
        elif lay == "slurm_out":
            nn, gpn = rng.choice([1, 2, 4, 8, 8, 16, 32, 64]), rng.choice([8, 8, 4])
        elif lay == "windows_paste":
            nn, gpn = 1, rng.choice([2, 2, 4, 4, 8])
        elif lay == "launcher_pdsh":
            nn, gpn = rng.choice([2, 2, 4, 4, 8, 16, 32]), 8
        else:
            nn, gpn = rng.choice([2, 2, 4, 4, 8, 16]), rng.choice([8, 8, 4])
        if c in ("network",) and nn == 1:
            nn = 2
        if c == "preemption" and lay in ("launcher_pdsh", "k8s_pods") and nn == 1:
            nn = 2
        if lay == "windows_paste" and c == "network":
            nn = 2
        if self.gpu in ("rtx4090",) and gpn == 8 and lay != "windows_paste":
            gpn = 4
        while nn * gpn > 512:
            nn //= 2
        self.nn, self.gpn, self.world = nn, gpn, nn * gpn
        # hostnames
        a, b = rng.randrange(1, 250), rng.randrange(0, 250)
        base = rng.randrange(2, 120)
        self.ips = ["10.%d.%d.%d" % (a, b + (base + i) // 250, (base + i) % 250 + 1) for i in range(nn)]
        if lay == "k8s_pods":
            job = rng.choice(["llm-pretrain", "ft-job", "pytorchjob-7b", "bert-ddp", "train-run"])
            self.kjob = job + "-" + "".join(rng.choice("abcdefghjkmnpqrstuvwxz23456789") for _ in range(5))
            self.hosts = ["%s-master-0" % self.kjob] + ["%s-worker-%d" % (self.kjob, i) for i in range(nn - 1)]
            pool = rng.choice(["gke-ml-a3-pool-%s-%s", "gke-train-gpu-np-%s-%s", "aks-gpunp-%s-vmss%s"])
            h = "".join(rng.choice("0123456789abcdef") for _ in range(8))
            self.knodes = []
            for i in range(nn):
                suf = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(4))
                self.knodes.append(pool % (h, suf))
            self.pod_ips = ["10.%d.%d.%d" % (rng.randrange(40, 120), rng.randrange(0, 250), rng.randrange(2, 250))
                            for _ in range(nn)]
            self.ips = self.pod_ips
            self.aliases = [[self.knodes[i], self.pod_ips[i]] for i in range(nn)]
        else:
            styles = {
                "torchrun_issue": ["gpu-node-%02d", "dgx-%02d", "ubuntu-h100-%d", "ml-box%d", "worker%d", "hgx%02d"],
                "single_rank_paste": ["gpu%03d", "ip", "node%02d", "dgx-a100-%03d", "cn-g%03d"],
                "slurm_out": ["nid%06d", "gpu-dy-p5-%d", "hpc-gpu-%03d", "della-h%05d", "jwb%04d", "gn%03d"],
                "windows_paste": ["DESKTOP-%s", "lab-4090-%d", "ws-%s"],
                "launcher_pdsh": ["node%02d", "a3-vm-%d", "worker-%d", "ip", "gpu-%02d"],
            }[lay]
            if lay == "windows_paste" and (nn > 1 or c in ("network", "gpu_hardware", "ecc_memory", "nvlink",
                                                             "host_oom_kill", "crash_signal", "preemption")):
                styles = ["lab-4090-%d", "ws-%s", "gpubox%d"]
            st = rng.choice(styles)
            if "a100" in st and not self.gpu.startswith("a100"):
                st = st.replace("-a100", "")
            start = rng.choice([0, 1, 1, rng.randrange(2, 300)])
            hosts = []
            for i in range(nn):
                if st == "ip":
                    hosts.append("ip-" + self.ips[i].replace(".", "-"))
                elif st.endswith("%s"):
                    hosts.append(st % "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789") for _ in range(7)))
                else:
                    hosts.append(st % (start + i))
            self.hosts = hosts
            dom = rng.choice([".cluster.local", ".ec2.internal", ".hpc.example.edu", ".int", ""])
            if hosts[0].startswith("ip-"):
                dom = ".ec2.internal"
            self.aliases = []
            for i, h in enumerate(hosts):
                al = [self.ips[i]]
                if dom:
                    al.insert(0, h + dom)
                self.aliases.append(al)
            self.domain = dom
        self.master = self.hosts[0]
        self.port = rng.choice([29500, 29500, 29400, 12355, 23456, 6000])
        self.agent_pid = [rng.randrange(1000, 90000) if lay != "k8s_pods" else rng.choice([1, 7, 8, 14])
                          for _ in range(nn)]
        self.wpid0 = [p + rng.randrange(20, 400) for p in self.agent_pid]
        self.local_tz = rng.choice([0, 0, 0, -7, -4, -5, 1, 2, 8, 5.5, 9])
        # container logs in UTC; bare-metal consoles in local time
        self.log_off = 0 if lay in ("k8s_pods",) or rng.random() < 0.4 else self.local_tz
        if lay == "windows_paste" or (lay == "torchrun_issue" and rng.random() < 0.7):
            self.log_off = self.local_tz
        self.skew = [0.0] * nn
        for i in range(nn):
            self.skew[i] = rng.gauss(0, 0.6)
        if nn > 2 and rng.random() < 0.3:
            bad = rng.randrange(1, nn)
            self.skew[bad] += rng.choice([-1, 1]) * rng.uniform(15, 95)
            self.notes.append("clock skew %+.0fs on %s" % (self.skew[bad], self.hosts[bad]))

    def node_of(self, r):
        return r // self.gpn

    def lrank(self, r):
        return r % self.gpn

    def pid(self, r):
        return self.wpid0[self.node_of(r)] + self.lrank(r)

    def bus(self, r):
        return self.G["bus"][self.lrank(r) % 8]

    def _timeline(self):
        rng = self.rng
        start = datetime(2023, 6, 1, tzinfo=timezone.utc).timestamp()
        self.t0 = start + rng.uniform(0, 820 * 86400) + rng.random()
        self.init_dur = rng.uniform(18, 110) + (20 if self.nn > 8 else 0)
        self.t_train0 = self.t0 + self.init_dur
        self.step_time = rng.choice([0.32, 0.55, 0.9, 1.3, 2.1, 3.4, 5.2]) * rng.uniform(0.85, 1.15)
        if self.cause == "straggler":
            self.slow_factor = rng.uniform(1.6, 3.5)
        else:
            self.slow_factor = 1.0
        eff = self.step_time * self.slow_factor
        if self.healthy:
            dur = rng.uniform(1200, 6 * 3600)
            self.total_steps = max(50, int(dur / eff) // 10 * 10)
            self.fail_step = self.total_steps
        else:
            self.fail_step = int(math.exp(rng.uniform(math.log(25), math.log(min(40000, 40 * 3600 / eff)))))
            self.total_steps = max(self.fail_step * 2, rng.choice([5000, 10000, 20000, 50000, 100000]))
            self.total_steps = max(self.total_steps, (self.fail_step // 1000 + 2) * 1000)
        self.t_fail = self.t_train0 + self.fail_step * eff + rng.uniform(0, eff)
        self.colls_per_step = rng.choice([1, 2, 3, 6, 12, 40])
        self.seq_fail = 12 + self.fail_step * self.colls_per_step + rng.randrange(self.colls_per_step)
        default_to = 1800000 if self.minor <= 1 else 600000
        self.timeout_ms = default_to if rng.random() < 0.6 else rng.choice([1800000, 3600000, 1200000, 5400000])
        self.T = self.timeout_ms / 1000.0
        self.fail_op = rng.choice(OP_TYPES)
        big = rng.choice([466119168, 544997376, 9801523, 131334144, 25690112, 1, 33554432])
        self.numel_in = big
        self.numel_out = big if self.fail_op in ("ALLREDUCE", "BROADCAST") else (
            big * self.gpn if "ALLGATHER" in self.fail_op else max(1, big // self.gpn))
        if self.fail_op == "COALESCED":
            self.numel_out = big * 8
        self.log_every = max(1, [1, 5, 10, 10, 20, 50, 100][rng.randrange(7)])
        while self.fail_step / self.log_every > 220:
            self.log_every *= 2
        self.dl_workers = rng.choice([2, 4, 8, 8, 16])

    def _culprit(self):
        rng, c = self.rng, self.cause
        self.culprit = None
        self.cnode = None
        if c in (None, "unknown", "network", "preemption"):
            pass
        else:
            if rng.random() < 0.1:
                self.culprit = 0
            else:
                self.culprit = rng.randrange(1, self.world) if self.world > 1 else 0
            self.cnode = self.node_of(self.culprit)
        if c == "network":
            if rng.random() < 0.75 or self.nn == 2:
                self.cnode = rng.randrange(self.nn)
        if c == "preemption":
            if self.layout in ("launcher_pdsh", "k8s_pods") and self.nn > 1:
                self.cnode = rng.randrange(1, self.nn) if rng.random() < 0.8 else 0

    def _variant(self):
        rng, c, lay = self.rng, self.cause, self.layout
        v = None
        if c == "gpu_hardware":
            v = rng.choice(["xid79", "xid79", "xid119", "xid62", "xid154"])
        elif c == "ecc_memory":
            v = rng.choice(["xid48", "xid94", "xid95"]) if self.gpu != "l40s" else "xid48"
        elif c == "nvlink":
            v = rng.choice(["xid74_wd", "xid74_tb"])
        elif c == "illegal_memory_access":
            v = rng.choice(["tb", "wd", "tb"])
        elif c == "crash_signal":
            v = rng.choice(["segv", "segv", "segv_fh", "bus"])
        elif c == "host_oom_kill":
            v = rng.choice(["direct", "direct", "dlworker"])
        elif c == "hang":
            opts = ["desync", "pyspy", "sigint"]
            if self.minor < 2:
                opts = ["pyspy", "sigint"]
            if lay == "slurm_out":
                opts = [o for o in opts if o != "sigint"] + ["pyspy"]
            v = rng.choice(opts)
        elif c == "data_loader_stall":
            opts = ["dltimeout", "sigint", "pyspy"]
            if lay == "slurm_out":
                opts = ["dltimeout", "dltimeout", "pyspy"]
            v = rng.choice(opts)
        elif c == "collective_mismatch":
            v = rng.choice(["detail", "ddp", "opdiff"])
        elif c == "straggler":
            if self.fw == "megatron":
                v = rng.choice(["megatron", "megatron", "slowest"])
            else:
                v = rng.choice(["per_rank", "slowest"])
            if v == "per_rank" and self.world > 32:
                v = "slowest"
            self.strag_end = rng.choice(["finish", "killed", "sigint"])
            if lay == "slurm_out" and self.strag_end == "sigint":
                self.strag_end = "killed"
            eff = self.step_time * self.slow_factor
            if self.fail_step * eff < 1500:
                self.fail_step = int(rng.uniform(1500, 20000) / eff)
                self.t_fail = self.t_train0 + self.fail_step * eff + rng.uniform(0, eff)
                self.seq_fail = 12 + self.fail_step * self.colls_per_step
                self.total_steps = max(self.total_steps, (self.fail_step // 1000 + 2) * 1000)
            if self.strag_end == "finish":
                self.total_steps = self.fail_step
        elif c == "unknown":
            v = rng.choice(["all_timeout", "all_timeout", "internal", "exit1_noinfo"])
        elif c == "network":
            v = "ib" if self.nccl_minor >= 18 and self.layout != "windows_paste" else "socket"
            if self.layout == "windows_paste" or rng.random() < 0.2:
                v = "socket"
        elif c == "preemption":
            v = {"slurm_out": "slurm", "k8s_pods": "spot_node", "launcher_pdsh": "gce_spot",
                 "torchrun_issue": "vm_shutdown", "windows_paste": "vm_shutdown",
                 "single_rank_paste": "vm_shutdown"}[lay]
        elif c == "cuda_oom":
            v = rng.choice(["fwd", "bwd", "optim"])
        elif c == "python_exception":
            v = rng.randrange(len(PY_EXCEPTIONS))
        self.variant = v
        # launch mechanics
        self.srun_mode = None
        if lay == "slurm_out":
            self.srun_mode = rng.choice(["per_gpu", "per_gpu", "torchrun"])
            self.kill_on_bad_exit = rng.random() < 0.4
        else:
            self.kill_on_bad_exit = False
        self.uses_agent = not (lay == "slurm_out" and self.srun_mode == "per_gpu")
        self.flavor = ("openmpi" if rng.random() < 0.3 else "pdsh") if lay == "launcher_pdsh" else None
        self.gpu_bind_one = lay == "slurm_out" and rng.random() < 0.5
        n_dbg = rng.random()
        pinfo = 0.55 if self.world <= 16 else (0.3 if self.world <= 64 else 0.12)
        self.nccl_debug = "INFO" if n_dbg < pinfo else ("WARN" if n_dbg < pinfo + 0.25 else None)
        if c == "network" and self.nccl_debug is None and rng.random() < 0.5:
            self.nccl_debug = "WARN"
        if c == "collective_mismatch" and v == "ddp":
            self.fail_step = 0
            self.t_fail = self.t_train0 - rng.uniform(2, 8)
            self.seq_fail = rng.randrange(1, 4)
        hr = self.rrng(0, "hdecoy")
        self.hd = set()
        if self.healthy:
            pool = ["oom", "tb", "ncclwarn", "sock", "xid", "destroy" if self.minor >= 4 else "oom"]
            self.hd = set(hr.sample(pool, hr.choice([2, 2, 3])))
            if "ncclwarn" in self.hd and not self.nccl_debug:
                self.nccl_debug = "WARN"
        else:
            if self.nccl_debug and hr.random() < 0.3:
                self.hd.add("ncclwarn")
            if hr.random() < 0.3:
                self.hd.add("sock")
            if hr.random() < 0.12:
                self.hd.add("tb")
            if hr.random() < 0.4:
                self.hd.add("xid")
        while self.end_step() / float(self.log_every) > 220:
            self.log_every *= 2
        self.desync = (c == "hang" and v == "desync")
        self.dist_debug_detail = (c == "collective_mismatch" and v == "detail")
        self.dl_timeout = rng.choice([120, 300, 600]) if (c == "data_loader_stall" and v == "dltimeout") else 0
        if self.dl_timeout and self.dl_timeout >= self.T:
            self.timeout_ms = 1800000
            self.T = 1800.0

    def _sets(self):
        """Which ranks see which collateral symptom."""
        rng = self.rng
        self.remote_set = set()
        self.netfail = {}
        self.bad_hca_local = None
        c = self.cause
        crashers = ("gpu_hardware", "ecc_memory", "nvlink", "cuda_oom", "illegal_memory_access",
                    "python_exception", "host_oom_kill", "crash_signal")
        if c in crashers or (c == "data_loader_stall" and self.variant == "dltimeout") or (
                c == "preemption" and self.cnode is not None):
            p = rng.choice([0.0, 0.15, 0.35])
            for r in range(self.world):
                if self.cnode is not None and self.node_of(r) != self.cnode and rng.random() < p:
                    self.remote_set.add(r)
        if c == "network":
            if self.cnode is not None:
                bl = rng.randrange(self.gpn)
                self.bad_hca_local = bl
                bad = self.cnode * self.gpn + bl
                nb = sorted({(self.cnode + 1) % self.nn, (self.cnode - 1) % self.nn} - {self.cnode})
                self.netfail[bad] = [self.ips[n] for n in nb]
                for n in nb:
                    self.netfail[n * self.gpn + bl] = [self.ips[self.cnode]]
                    if rng.random() < 0.5:
                        self.netfail[n * self.gpn + (bl + 1) % self.gpn] = [self.ips[self.cnode]]
            else:
                k = max(2, self.nn // 2)
                nodes = rng.sample(range(self.nn), min(k, self.nn))
                for n in nodes:
                    peer = rng.choice([m for m in range(self.nn) if m != n])
                    self.netfail[n * self.gpn + rng.randrange(self.gpn)] = [self.ips[peer]]
                self.bad_hca_local = None
        if c == "straggler":
            self.t_end = self.t_fail
        self.t_kill = self.t_fail + rng.uniform(0.6, 4.5)

    # ------------------------------------------------------------------ formatting primitives
    def rp(self, r):
        return "[rank%d]:" % r if self.minor >= 2 else ""

    def pgp(self, r):
        if self.minor <= 2:
            return "[Rank %d]" % r
        if self.minor <= 4:
            return "[PG 0 Rank %d]" % r if self.minor == 3 else "[PG 0 (default_pg) Rank %d]" % r
        return "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % r

    def c10(self, r, lvl, ln, msg, t, file="ProcessGroupNCCL.cpp"):
        if self.minor >= 4:
            head = "[%s%s %s:%d]" % (lvl, ts_c10(t + self.skew[self.node_of(r)] + self.log_off * 3600), file, ln)
        else:
            head = "[%s %s:%d]" % (lvl, file, ln)
        return self.rp(r) + head + " " + msg

    def pyprefix(self, r):
        return "[rank%d]: " % r if self.minor >= 2 else ""

    def tb(self, r, t, frames, exc, tags=(), chained=None):
        """Python traceback.  frames: [(file, line, func, code)], exc: list of str."""
        out = []
        blocks = []
        if chained:
            blocks.append(chained)
        blocks.append((frames, exc))
        care = self.py in ("3.11", "3.12")
        for bi, (frs, ex) in enumerate(blocks):
            if bi > 0:
                out += ["", "The above exception was the direct cause of the following exception:", ""]
            out.append("Traceback (most recent call last):")
            for (f, ln, fn, code) in frs:
                out.append('  File "%s", line %d, in %s' % (f, ln, fn))
                if code:
                    out.append("    " + code)
                    if care and " = " in code and "(" in code.split(" = ", 1)[1] and \
                            self.rrng(r, "care%d" % ln).random() < 0.5:
                        s = code.find(" = ") + 3
                        out.append("    " + " " * s + "^" * max(3, len(code) - s))
            out += ex
        pre = self.pyprefix(r)
        return [L(t + i * 1e-4, pre + s, tags) for i, s in enumerate(out)]

    def nccl_pre(self, r, tidoff=0):
        n = self.node_of(r)
        p = self.pid(r)
        return "%s:%d:%d [%d]" % (self.hosts[n], p, p + tidoff, self.lrank(r) if not self.per_gpu_visible()
                                  else 0)

    def per_gpu_visible(self):
        return self.layout == "slurm_out" and self.srun_mode == "per_gpu" and self.gpu_bind_one

    def cpp_frames(self, r, kind):
        rr = self.rrng(r, "cf" + kind)
        lib = self.site + "/torch/lib/"
        bases = {}

        def A(so="x"):
            if so not in bases:
                bases[so] = 0x7f0000000000 + rr.randrange(16 ** 6) * 4096
            return "0x%x" % (bases[so] + rr.randrange(0x40000, 0x2000000))
        if kind == "timeout":
            fr = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "libc10.so"),
                  ("c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, "
                   "std::ratio<1l, 1000l> > >) + 0x1d2", "libtorch_cuda.so"),
                  ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x233", "libtorch_cuda.so"),
                  ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", "libtorch_cuda.so")]
        elif kind == "ncclerr":
            fr = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "libc10.so"),
                  ("c10d::ProcessGroupNCCL::checkForNCCLErrorsInternal(std::shared_ptr<c10d::NCCLComm>&) + 0x220",
                   "libtorch_cuda.so"),
                  ("c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException() + 0x7b", "libtorch_cuda.so"),
                  ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x171", "libtorch_cuda.so"),
                  ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", "libtorch_cuda.so")]
        else:  # cuda error in watchdog
            fr = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "libc10.so"),
                  ("c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64",
                   "libc10.so"),
                  ("c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118",
                   "libc10_cuda.so"),
                  ("c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x56",
                   "libtorch_cuda.so"),
                  ("c10d::ProcessGroupNCCL::WorkNCCL::isCompleted() + 0xa0", "libtorch_cuda.so"),
                  ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x1da", "libtorch_cuda.so"),
                  ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", "libtorch_cuda.so")]
        out = []
        for i, (fn, so) in enumerate(fr):
            out.append("frame #%d: %s (%s in %s%s)" % (i, fn, A(so), lib, so))
        k = len(fr)
        bstd = 0x7f0000000000 + rr.randrange(16 ** 6) * 4096
        blc = 0x7f0000000000 + rr.randrange(16 ** 6) * 4096
        out.append("frame #%d: <unknown function> + 0xdc253 (0x%x in /lib/x86_64-linux-gnu/libstdc++.so.6)" % (
            k, bstd + 0xdc253))
        out.append("frame #%d: <unknown function> + 0x94ac3 (0x%x in /lib/x86_64-linux-gnu/libc.so.6)" % (
            k + 1, blc + 0x94ac3))
        out.append("frame #%d: <unknown function> + 0x126850 (0x%x in /lib/x86_64-linux-gnu/libc.so.6)" % (
            k + 2, blc + 0x126850))
        out.append("")
        return out

    # ------------------------------------------------------------------ fates
    def fate(self, r):
        c, v = self.cause, self.variant
        if c is None:
            return "complete"
        if c == "straggler":
            return {"finish": "complete", "killed": "killed", "sigint": "sigint_all"}[self.strag_end]
        if c == "preemption":
            if self.cnode is None or self.node_of(r) == self.cnode:
                return "preempt"
            return "remote" if r in self.remote_set else "timeout"
        if c == "network":
            return "netfail" if r in self.netfail else "timeout"
        if c == "unknown":
            return "internal" if v == "internal" else "timeout"
        if c == "collective_mismatch":
            return "mismatch" if v in ("detail", "ddp") else "timeout"
        if c == "hang" or (c == "data_loader_stall" and v in ("pyspy", "sigint")):
            if r == self.culprit:
                return "stuck"
            if v == "sigint":
                return "blocked"
            return "timeout"
        if r == self.culprit:
            return "culprit"
        if self.kill_on_bad_exit:
            return "sigterm"
        if self.uses_agent and self.node_of(r) == self.cnode:
            return "sigterm"
        return "remote" if r in self.remote_set else "timeout"

    def kill_domain(self):
        if self.layout == "launcher_pdsh" and self.flavor == "openmpi":
            return "global"
        if self.layout == "slurm_out" and self.srun_mode == "per_gpu":
            return "global" if self.kill_on_bad_exit else "none"
        return "node"

    def node_poll(self, n):
        return self.rrng(n, "poll").uniform(0.05, 0.9 if self.minor >= 3 else 4.5)

    def node_kill(self, n):
        if not hasattr(self, "_nk"):
            self._nk = {}
        if n not in self._nk:
            ts = [self.t_exit_nat(r)[1] for r in range(n * self.gpn, (n + 1) * self.gpn)
                  if self.t_exit_nat(r)[0] is not None]
            self._nk[n] = (min(ts) + self.node_poll(n)) if ts else None
        return self._nk[n]

    def global_kill(self):
        if not hasattr(self, "_gk"):
            ts = [self.t_exit_nat(r)[1] for r in range(self.world) if self.t_exit_nat(r)[0] is not None]
            if self.cause == "preemption":
                ts = [self.t_fail + 1.5]
            self._gk = (min(ts) + self.rrng(0, "gk").uniform(0.8, 2.0)) if ts else None
        return self._gk

    def dead_at(self, r):
        """Time at which a launcher kills rank r before it exits on its own (None: not killed)."""
        dom = self.kill_domain()
        if dom == "none":
            return None
        k = self.node_kill(self.node_of(r)) if dom == "node" else self.global_kill()
        if k is None:
            return None
        code, tn = self.t_exit_nat(r)
        if code is not None and tn <= k:
            return None
        return k

    def t_exit(self, r):
        code, tn = self.t_exit_nat(r)
        if code is None or self.dead_at(r) is not None:
            return None, None
        return code, tn

    def t_exit_nat(self, r):
        """(exit code or None if not reported as failure, time)."""
        f = self.fate(r)
        rr = self.rrng(r, "tx")
        c, v = self.cause, self.variant
        if f == "culprit":
            t = self.t_culprit_err() + rr.uniform(0.05, 0.4)
            code = 1
            if c in ("illegal_memory_access",) and v == "wd":
                code = -6
            if c in ("gpu_hardware", "ecc_memory") and self.hw_via_wd():
                code = -6
            if c == "nvlink" and v == "xid74_wd":
                code = -6
            if c == "crash_signal":
                code = -7 if v == "bus" else -11
            if c == "host_oom_kill" and v == "direct":
                code = -9
            return code, t
        if f in ("timeout", "internal"):
            if c == "collective_mismatch":
                return -6, self.t_fail + self.T + 0.15 + (0 if r == self.culprit else rr.uniform(0.001, 0.04))
            return -6, self.t_fail + self.T + rr.uniform(0.3, 2.5) + (rr.uniform(0, 1) if c == "unknown" else 0)
        if f in ("remote", "netfail"):
            return -6, self.t_remote(r)
        if f == "mismatch":
            return 1, self.t_fail + 0.1 + rr.uniform(0.0, 0.04)
        return None, None

    def hw_via_wd(self):
        return self.rrng(0, "hwwd").random() < 0.5

    def t_culprit_err(self):
        c = self.cause
        if c == "data_loader_stall":
            return self.t_fail + self.dl_timeout
        return self.t_fail

    def t_remote(self, r):
        rr = self.rrng(r, "trem")
        if self.cause == "network":
            return self.t_fail + rr.uniform(8, 70)
        return self.t_culprit_err() + rr.uniform(1.5, 45)

    def first_failure(self):
        best = None
        for r in self.rank_sample(full=True):
            code, t = self.t_exit(r)
            if code is not None and (best is None or t < best[1]):
                best = (r, t)
        return best

    def rank_sample(self, full=False):
        if full or self.world <= 64:
            return list(range(self.world))
        s = set(range(0, self.world, max(1, self.world // 48)))
        for r in [self.culprit, self.world - 1] + list(self.netfail):
            if r is not None:
                s.add(r)
        if self.cnode is not None:
            s.update(range(self.cnode * self.gpn, self.cnode * self.gpn + self.gpn))
        return sorted(s)

    # ------------------------------------------------------------------ per-rank streams
    def rank_lines(self, r, detail=True):
        rr = self.rrng(r, "lines")
        out = []
        if detail:
            out += self.startup(r, self.t0 + rr.uniform(4, 14) + self.init_dur * 0.3)
            if self.nccl_debug == "INFO":
                out += self.nccl_init(r, self.t_train0 - rr.uniform(3, 9))
            if self.nccl_debug:
                out += self.benign_nccl_warn(r)
        out += self.progress(r, detail)
        out += self.ending(r)
        out.sort(key=lambda x: x.t)
        d = self.dead_at(r)
        if d is not None:
            out = [x for x in out if x.t <= d + 0.002]
        return out

    def benign_nccl_warn(self, r):
        rr = self.rrng(0, "bnw")
        if "ncclwarn" not in self.hd:
            return []
        t = self.t_train0 - 3 + self.rrng(r, "bnw").uniform(0, 1)
        if not self.uses_ib():
            self.decoys.append("benign NCCL WARN (libibverbs missing, falls back to sockets)")
            return [L(t, "%s misc/ibvwrap.cc:%d NCCL WARN Failed to open libibverbs.so[.1]" % (
                self.nccl_pre(r, 1), 87 if self.nccl_minor < 20 else 129), ("decoy",))]
        self.decoys.append("benign NCCL WARN (IB async event: GID table change)")
        if self.lrank(r) in (0, 3):
            return [L(t + 600 + rr.uniform(0, 3000), "%s transport/net_ib.cc:%d NCCL WARN NET/IB : mlx5_%d:1 Got async "
                      "event : GID table change" % (self.nccl_pre(r, 7), 95 if self.nccl_minor < 21 else 113,
                                                    self.lrank(r)), ("decoy",))]
        return []

    def startup(self, r, t):
        rng = self.rrng(0, "warnsel")
        out = []
        picks = rng.sample(range(len(PY_WARNINGS)), rng.choice([0, 1, 2, 2]))
        rr = self.rrng(r, "st")
        for k in picks:
            w, second = PY_WARNINGS[k]
            if k == 4 and self.fw != "hf":
                continue
            txt = w.format(site=self.site, work=self.work, ln=rng.randrange(80, 4000))
            out.append(L(t + rr.uniform(0, 20), txt))
            if second:
                out.append(L(t + rr.uniform(20, 21), second))
        if self.minor >= 5 and rng.random() < 0.5:
            out.append(L(t + 25 + rr.uniform(0, 2), self.c10(
                r, "W", PGN[self.minor]["barrier"],
                "%s  using GPU %d to perform barrier as devices used by this process are currently unknown. This can "
                "potentially cause a hang if this rank to GPU mapping is incorrect.Specify device_ids in barrier() to "
                "force use of a particular device,or call init_process_group() with a device_id." % (
                    self.pgp(r).replace(" (default_pg)", "").replace("(default_pg)", ""),
                    0 if self.per_gpu_visible() else self.lrank(r)), t + 25)))
        if r == 0:
            params = rng.choice(["124.4M", "1.3B", "6.74B", "7.24B", "13.0B", "305M", "86.6M"])
            out.append(L(t + 26, "world_size=%d, global_batch=%d, micro_batch=%d, grad_accum=%d" % (
                self.world, self.world * rng.choice([2, 4, 8]) * rng.choice([1, 2, 4]), rng.choice([1, 2, 4, 8]),
                rng.choice([1, 2, 4]))))
            out.append(L(t + 27, "model parameters: %s" % params))
            if "tb" in self.hd:
                out += self.healthy_decoy_handled(t + 30)
        return out

    def healthy_decoy_handled(self, t):
        """A handled traceback printed by rank 0 (wandb/hub retries)."""
        rng = self.rrng(0, "hdh")
        self.decoys.append("handled exception traceback (metrics upload retry)")
        return lines_at(t, (
            "wandb: WARNING Network error (ConnectionError), entering retry loop.\n"
            "Traceback (most recent call last):\n"
            '  File "%s/urllib3/connectionpool.py", line 793, in urlopen\n'
            "    response = self._make_request(\n"
            '  File "%s/urllib3/connectionpool.py", line 537, in _make_request\n'
            "    response = conn.getresponse()\n"
            "urllib3.exceptions.ProtocolError: ('Connection aborted.', ConnectionResetError(104, "
            "'Connection reset by peer'))\n"
            "wandb: Network error resolved after 0:00:%02d, resuming normal operation." % (
                self.site, self.site, rng.randrange(10, 59))), ("decoy",))

    def nccl_init(self, r, t):
        rr = self.rrng(r, "ni")
        n, l = self.node_of(r), self.lrank(r)
        P = lambda k=0: self.nccl_pre(r, k)
        out = []
        ip = self.ips[n]
        iface = "eth0" if self.layout != "k8s_pods" else "eth0"
        tid = rr.randrange(60, 900)
        if r == 0:
            out.append(L(t, "%s NCCL INFO Bootstrap : Using %s:%s<0>" % (P(), iface, ip)))
        else:
            out.append(L(t, "%s NCCL INFO Bootstrap : Using %s:%s<0>" % (P(), iface, ip)))
        if self.nccl_minor >= 20:
            out.append(L(t + 0.01, "%s NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal network "
                                    "plugin." % P()))
        else:
            out.append(L(t + 0.01, "%s NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object "
                                    "file: No such file or directory No plugin found (libnccl-net.so), using internal "
                                    "implementation" % P()))
        out.append(L(t + 0.02, "%s NCCL INFO cudaDriverVersion %d" % (P(), int(float(self.G["cudadrv"]) * 1000))))
        if r == 0:
            out.append(L(t + 0.03, "NCCL version %s+cuda%s" % (self.nccl, self.cuda)))
        multi = self.nn > 1
        if multi and self.layout != "windows_paste":
            hcas = " ".join("[%d]mlx5_%d:1/IB" % (i, i) for i in range(min(8, self.gpn)))
            out.append(L(t + 0.2, "%s NCCL INFO NET/IB : Using %s ; OOB %s:%s<0>" % (P(), hcas, iface, ip)))
            out.append(L(t + 0.21, "%s NCCL INFO Using network IB" % P()))
        else:
            if multi:
                out.append(L(t + 0.2, "%s NCCL INFO NET/IB : No device found." % P()))
                out.append(L(t + 0.2, "%s NCCL INFO NET/Socket : Using [0]%s:%s<0>" % (P(), iface, ip)))
                out.append(L(t + 0.21, "%s NCCL INFO Using network Socket" % P()))
            else:
                out.append(L(t + 0.21, "%s NCCL INFO Using network Socket" % P()))
        comm = "0x%x" % ((0x55d000000000 + rr.randrange(16 ** 8)) & ~0xf)
        self._commid = getattr(self, "_commid", "0x%016x" % self.rrng(0, "cid").randrange(16 ** 16))
        busid = self.bus(r) + "000"
        cd = 0 if self.per_gpu_visible() else l
        tags = ("B1", "P1") if r == self.culprit else ()
        if self.nccl_minor >= 23:
            out.append(L(t + 0.3, "%s NCCL INFO ncclCommInitRank comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId "
                                  "%s commId %s - Init START" % (P(), comm, r, self.world, cd, l, busid, self._commid),
                         tags))
        else:
            out.append(L(t + 0.3, "%s NCCL INFO comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId %s - "
                                  "Init START" % (P(), comm, r, self.world, cd, l, busid, self._commid), tags))
        out.append(L(t + 0.35, "%s NCCL INFO Setting affinity for GPU %d to %s" % (
            P(), l, "ffffffff,00000000,ffffffff" if l < 4 else "ffffffff,00000000,ffffffff,00000000")))
        if r == 0:
            nch = rr.choice([2, 4, 8, 16, 24, 32])
            ring = " ".join("%4d" % x for x in range(min(self.world, 16)))
            for ch in range(min(nch, 4)):
                out.append(L(t + 0.4 + ch * 0.001, "%s NCCL INFO Channel %02d/%02d : %s" % (P(), ch, nch, ring)))
        nxt = (r + 1) % self.world
        prv = (r - 1) % self.world
        out.append(L(t + 0.45, "%s NCCL INFO Trees [0] %d/-1/-1->%d->%d [1] %d/-1/-1->%d->%d" % (
            P(), nxt, r, prv, nxt, r, prv)))
        out.append(L(t + 0.46, "%s NCCL INFO P2P Chunksize set to %d" % (P(), rr.choice([131072, 524288]))))
        same_node = self.node_of(nxt) == n
        if self.nccl_minor >= 19:
            a, b = "%d[%d]" % (r, l), "%d[%d]" % (nxt, self.lrank(nxt))
        else:
            a, b = "%d[%s]" % (r, busid), "%d[%s000]" % (nxt, self.bus(nxt))
        if same_node:
            via = "P2P/IPC/read" if self.G["nvlink"] else ("P2P/direct pointer" if self.gpu != "rtx4090" else "SHM/direct/direct")
        else:
            via = "NET/IB/%d/GDRDMA" % l if self.layout != "windows_paste" else "NET/Socket/0"
        for ch in range(2):
            out.append(L(t + 0.5 + ch * 0.001, "%s NCCL INFO Channel %02d/0 : %s -> %s via %s" % (P(tid), ch, a, b, via)))
        out.append(L(t + 0.8, "%s NCCL INFO Connected all rings" % P(tid)))
        out.append(L(t + 0.9, "%s NCCL INFO Connected all trees" % P(tid)))
        out.append(L(t + 0.95, "%s NCCL INFO threadThresholds 8/8/64 | %d/8/64 | 512 | 512" % (P(tid), 8 * self.world)))
        out.append(L(t + 0.96, "%s NCCL INFO %d coll channels, 0 collnet channels, 0 nvls channels, %d p2p channels, "
                               "%d p2p channels per peer" % (P(tid), 8, 32, 2 if self.nn > 1 else 32)))
        if self.nccl_minor >= 23:
            out.append(L(t + 1.2, "%s NCCL INFO ncclCommInitRank comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId "
                                  "%s commId %s localSize %d used %d bytes on core %d - Init COMPLETE" % (
                                      P(), comm, r, self.world, cd, l, busid, self._commid, self.gpn,
                                      rr.randrange(10 ** 8, 6 * 10 ** 8), rr.randrange(0, 96)), tags))
        else:
            out.append(L(t + 1.2, "%s NCCL INFO comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId %s - "
                                  "Init COMPLETE" % (P(), comm, r, self.world, cd, l, busid, self._commid), tags))
        return out

    # ------------------------------------------------------------------ training progress
    def loss_at(self, s):
        rng = random.Random("%s|%d|loss|%d" % (self.seed, self.idx, s))
        return 1.7 + 7.5 * math.exp(-s / 2500.0) + rng.gauss(0, 0.04)

    def end_step(self):
        if self.healthy or (self.cause == "straggler" and self.strag_end == "finish"):
            return self.total_steps
        return self.fail_step

    def step_t(self, s):
        return self.t_train0 + s * self.step_time * self.slow_factor

    def printer(self):
        return self.world - 1 if self.fw == "megatron" else 0

    def progress(self, r, detail=True):
        out = []
        fw = self.fw
        rng = self.rrng(0, "prog")
        end = self.end_step()
        le = self.log_every
        total = self.total_steps
        eff = self.step_time * self.slow_factor
        lr0 = rng.choice([3e-4, 1e-4, 2e-5, 6e-4, 1.5e-4])
        gbs = self.world * rng.choice([4, 8, 16])
        ts_pre = rng.random() < 0.5
        epochs = rng.choice([1, 3])
        printer = self.printer()
        steps = list(range(le, end + 1, le))
        if r == printer:
            for s in steps:
                t = self.step_t(s) + rng.uniform(0, 0.05)
                loss = self.loss_at(s)
                lr = lr0 * min(1.0, s / 500.0)
                ms = eff * 1000 * rng.uniform(0.97, 1.04)
                if fw == "plain":
                    txt = "step %6d/%d | loss %.4f | lr %.3e | grad_norm %.3f | %.1f ms/it | %.1fk tok/s" % (
                        s, total, loss, lr, rng.uniform(0.2, 1.6), ms, gbs * 2048 / (ms / 1000) / 1000)
                    if ts_pre:
                        txt = "[%s] " % ts_bracket_ms(t, self.log_off)[:19] + txt
                    out.append(L(t, txt, src="prog"))
                elif fw == "hf":
                    pct = int(100 * s / total)
                    out.append(L(t - 0.01, self.tqdm_bar(s, total, t - self.t_train0, eff), src="bar"))
                    out.append(L(t, "{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %.3e, 'epoch': %.2f}" % (
                        loss, rng.uniform(0.2, 2.0), lr, s / float(total) * epochs)))
                elif fw == "lightning":
                    out.append(L(t, self.tqdm_bar(s, total, t - self.t_train0, eff, epoch=0, loss=loss), src="bar"))
                elif fw == "megatron":
                    out.append(L(t, " [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration "
                                    "(ms): %.1f | learning rate: %.6E | global batch size: %5d | lm loss: %.6E | loss "
                                    "scale: 1.0 | grad norm: %.3f | number of skipped iterations:   0 | number of nan "
                                    "iterations:   0 |" % (dtu(t, self.log_off).strftime("%Y-%m-%d %H:%M:%S"), s, total,
                                                           s * gbs, ms, lr, gbs, loss, rng.uniform(0.2, 2.0))))
                    if self.cause == "straggler" and self.variant == "megatron" and s % (le * 2) == 0:
                        fb = ms * 0.8
                        out += lines_at(t + 0.001, "(min, max) time across ranks (ms):\n"
                                                   "    forward-backward ...............................: (%.2f, %.2f)\n"
                                                   "    optimizer ......................................: (%.2f, %.2f)" % (
                                                       fb / self.slow_factor * 0.97, fb, 12.1 + rng.random(),
                                                       14.9 + rng.random()))
                elif fw == "deepspeed":
                    if s % (le * 2) == 0 or s == steps[-1]:
                        out.append(L(t, "[%s] [INFO] [logging.py:96:log_dist] [Rank 0] step=%d, skipped=0, lr=[%.6e], "
                                        "mom=[(0.9, 0.95)]" % (ts_bracket_ms(t, self.log_off), s, lr)))
                        out.append(L(t + 0.001, "[%s] [INFO] [timer.py:260:stop] epoch=0/micro_step=%d/global_step=%d, "
                                                "RunningAvgSamplesPerSec=%.2f, CurrSamplesPerSec=%.2f, MemAllocated=%.2fGB, "
                                                "MaxMemAllocated=%.2fGB" % (ts_bracket_ms(t, self.log_off), s * 2, s,
                                                                            gbs / eff, gbs / ms * 1000,
                                                                            rng.uniform(10, 30), rng.uniform(40, 70))))
                    out.append(L(t + 0.002, "step %d loss %.4f" % (s, loss)))
                if self.cause == "straggler" and self.variant == "slowest" and s % le == 0:
                    mx = eff * rng.uniform(0.98, 1.03)
                    fast = rng.choice([x for x in range(self.world) if x != self.culprit])
                    out.append(L(t + 0.003, "it %d: step time max %.2fs (rank %d) min %.2fs (rank %d) mean %.2fs" % (
                        s, mx, self.culprit, self.step_time * rng.uniform(0.95, 1.0), fast,
                        mx * 0.97), ("R",)))
            if "oom" in self.hd and steps:
                s = steps[min(len(steps) - 1, 2)]
                t = self.step_t(s) + 1
                rr = self.rrng(0, "oomd")
                gi = rr.randrange(self.gpn)
                self.decoys.append("caught CUDA OOM, retried with smaller micro-batch")
                out.append(L(t, "WARNING:__main__:caught torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
                                "%.2f GiB. GPU %d has a total capacity of %s of which %d.%02d MiB is free. -- retrying "
                                "step %d with micro_batch_size=%d" % (rr.choice([1.0, 2.0, 3.5]), gi, self.G["cap"],
                                                                      rr.randrange(20, 700), rr.randrange(100), s,
                                                                      rr.choice([2, 4])), ("decoy",)))
        # per-rank timing lines
        if self.cause == "straggler" and self.variant == "per_rank" or (
                self.healthy and self.rrng(0, "prt").random() < 0.15):
            rr = self.rrng(r, "prt")
            every = le * (5 if self.world > 16 else 2)
            for s in range(every, end + 1, every):
                t = self.step_t(s) + rr.uniform(0.01, 0.2)
                base = self.step_time * 1000 * 0.7 * rr.uniform(0.95, 1.05)
                if r == self.culprit:
                    fb = base * self.slow_factor
                    wait = rr.uniform(2, 15)
                    tags = ("R",)
                else:
                    fb = base
                    wait = base * (self.slow_factor - 1) + rr.uniform(5, 30)
                    tags = ()
                out.append(L(t, "[rank %d] it %d: fwd_bwd=%.0fms opt=%.0fms data=%.0fms allreduce_wait=%.0fms" % (
                    r, s, fb, base * 0.05, rr.uniform(3, 25), wait), tags))
        return out

    def tqdm_bar(self, s, total, elapsed, per, epoch=None, loss=None):
        pct = int(100 * s / total)
        w = 10
        full = int(w * s / total)
        frac = (w * s / float(total)) - full
        parts = " ▏▎▍▌▋▊▉"
        bar = "█" * full + (parts[int(frac * 8)] if full < w else "") + " " * max(0, w - full - 1)
        bar = bar[:w]
        rem = (total - s) * per

        def hms(x):
            x = int(x)
            h, m, sec = x // 3600, (x % 3600) // 60, x % 60
            return "%d:%02d:%02d" % (h, m, sec) if h else "%02d:%02d" % (m, sec)
        rate = ("%.2fs/it" % per) if per >= 1 else ("%.2fit/s" % (1 / per))
        if epoch is not None:
            return "Epoch %d: %3d%%|%s| %d/%d [%s<%s, %s, v_num=%d, train_loss=%.3f]" % (
                epoch, pct, bar, s, total, hms(elapsed), hms(rem), rate, self.idx % 7, loss)
        return "%3d%%|%s| %d/%d [%s<%s, %s]" % (pct, bar, s, total, hms(elapsed), hms(rem), rate)

    # ------------------------------------------------------------------ python frames
    def frames(self, where):
        W, S, site = self.work, self.script, self.site
        rng = self.rrng(0, "frames")
        lm, lmain, ltrain = rng.randrange(380, 700), rng.randrange(300, 380), rng.randrange(150, 300)
        head = [("%s/%s" % (W, S), lm, "<module>", "main()"),
                ("%s/%s" % (W, S), lmain, "main", rng.choice(["train(cfg, model, optimizer, train_loader)",
                                                             "trainer.train()", "run_training(args)"]))]
        v = self.minor
        mod = [("%s/torch/nn/modules/module.py" % site, [1518, 1511, 1532, 1553, 1736, 1739, 1751, 1773, 1773, 1775][v],
                "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
               ("%s/torch/nn/modules/module.py" % site, [1527, 1520, 1541, 1562, 1747, 1750, 1762, 1784, 1784, 1786][v],
                "_call_impl", "return forward_call(*args, **kwargs)")]
        if where == "item":
            return head + [("%s/%s" % (W, S), ltrain, "train", "running_loss += loss.item()")]
        if where == "sync":
            return head + [("%s/%s" % (W, S), ltrain, "train", "torch.cuda.synchronize()"),
                           ("%s/torch/cuda/__init__.py" % site, [792, 801, 783, 792, 892, 954, 985, 1040, 1083, 1083][v],
                            "synchronize", "return torch._C._cuda_synchronize()")]
        if where == "fwd":
            return head + [("%s/%s" % (W, S), ltrain, "train", "outputs = model(**batch)")] + mod + [
                ("%s/torch/nn/parallel/distributed.py" % site, [1156, 1519, 1523, 1593, 1643, 1643, 1645, 1637, 1637, 1637][v],
                 "forward", "else self._run_ddp_forward(*inputs, **kwargs)"),
                ("%s/torch/nn/parallel/distributed.py" % site, [1110, 1355, 1359, 1411, 1459, 1459, 1461, 1463, 1463, 1463][v],
                 "_run_ddp_forward", "return self.module(*inputs, **kwargs)  # type: ignore[index]")] + mod + [
                ("%s/model.py" % W, rng.randrange(100, 300), "forward", "x = block(x, attn_mask)")] + mod + [
                ("%s/model.py" % W, rng.randrange(40, 99), "forward",
                 "att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))")]
        if where == "bwd":
            fr = head + [("%s/%s" % (W, S), ltrain, "train", "loss.backward()"),
                         ("%s/torch/_tensor.py" % site, [487, 492, 522, 525, 521, 581, 626, 648, 648, 647][v], "backward",
                          "torch.autograd.backward("),
                         ("%s/torch/autograd/__init__.py" % site, [200, 251, 266, 267, 289, 347, 353, 354, 354, 364][v],
                          "backward", "_engine_run_backward(" if v >= 4 else
                          "Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")]
            if v >= 4:
                fr.append(("%s/torch/autograd/graph.py" % site, [0, 0, 0, 0, 768, 825, 823, 824, 824, 829][v],
                           "_engine_run_backward",
                           "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"))
            return fr
        if where == "optim":
            return head + [("%s/%s" % (W, S), ltrain, "train", "optimizer.step()"),
                           ("%s/torch/optim/optimizer.py" % site, [280, 373, 385, 391, 484, 487, 493, 485, 485, 517][v],
                            "wrapper", "out = func(*args, **kwargs)"),
                           ("%s/torch/optim/adamw.py" % site, [171, 184, 187, 188, 227, 220, 209, 247, 247, 247][v],
                            "step", "adamw("),
                           ("%s/torch/optim/adamw.py" % site, [321, 335, 339, 340, 767, 767, 149, 149, 149, 149][v],
                            "adamw", "func(") if v < 6 else
                           ("%s/torch/optim/adam.py" % site, 154, "adam", "func("),
                           ("%s/torch/optim/adamw.py" % site, [566, 599, 603, 606, 604, 608, 0, 0, 0, 0][v] or 720,
                            "_multi_tensor_adamw", "exp_avg_sq_sqrt = torch._foreach_sqrt(device_exp_avg_sqs)")]
        if where == "loader":
            return head + [("%s/%s" % (W, S), ltrain, "train", "for step, batch in enumerate(train_loader):"),
                           ("%s/torch/utils/data/dataloader.py" % site, [634, 630, 631, 631, 630, 701, 708, 733, 733, 741][v],
                            "__next__", "data = self._next_data()"),
                           ("%s/torch/utils/data/dataloader.py" % site, [1329, 1328, 1329, 1329, 1327, 1448, 1458, 1491, 1491, 1499][v],
                            "_next_data", "idx, data = self._get_data()"),
                           ("%s/torch/utils/data/dataloader.py" % site, [1295, 1294, 1295, 1295, 1293, 1412, 1420, 1453, 1453, 1461][v],
                            "_get_data", "success, data = self._try_get_data()"),
                           ]
        if where == "coll":
            return head + [("%s/%s" % (W, S), ltrain, "train", "dist.all_reduce(loss_t, op=dist.ReduceOp.AVG)"),
                           ("%s/torch/distributed/c10d_logger.py" % site, [47, 47, 72, 75, 79, 83, 81, 81, 81, 81][v],
                            "wrapper", "return func(*args, **kwargs)"),
                           ("%s/torch/distributed/distributed_c10d.py" % site,
                            [1700, 2050, 2288, 2219, 2288, 2501, 2806, 2810, 2810, 2830][v],
                            "all_reduce", "work = group.allreduce([tensor], opts)")]
        return head + [("%s/%s" % (W, S), ltrain, "train", "loss = criterion(outputs, labels)")]

    def cuda_err_lines(self, msg):
        out = ["RuntimeError: CUDA error: %s" % msg,
               "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
               "might be incorrect.",
               "For debugging consider passing CUDA_LAUNCH_BLOCKING=1"]
        if self.minor >= 1:
            out.append("Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.")
        out.append("")
        return out

    # ------------------------------------------------------------------ endings
    def ending(self, r):
        f = self.fate(r)
        if f == "complete":
            return self.complete_lines(r)
        if f == "culprit":
            return self.culprit_lines(r)
        if f == "timeout":
            return self.timeout_lines(r)
        if f in ("remote", "netfail"):
            return self.remote_lines(r)
        if f == "internal":
            return self.internal_lines(r)
        if f == "mismatch":
            return self.mismatch_lines(r)
        if f == "stuck":
            return self.stuck_lines(r)
        if f == "sigint_all":
            return self.kbint(r, self.t_fail + self.rrng(r, "ki").uniform(0, 0.3), self.rrng(r, "kw").choice(
                ["item", "fwd", "bwd", "item"]), ())
        if f in ("preempt", "killed") and self.fw == "lightning":
            t = self.t_fail + self.rrng(r, "pl").uniform(0, 0.3)
            return [L(t, "[rank: %d] Received SIGTERM: 15" % r), L(t + 0.001, "Bypassing SIGTERM: 15")]
        return []

    def complete_lines(self, r):
        t = self.step_t(self.end_step()) + 2
        out = []
        if r == self.printer():
            if self.fw == "hf":
                out.append(L(t, "{'train_runtime': %.4f, 'train_samples_per_second': %.3f, 'train_steps_per_second': "
                                "%.3f, 'train_loss': %.6f, 'epoch': %.1f}" % (t - self.t_train0, 12.3 + self.idx % 7,
                                                                               1 / self.step_time, self.loss_at(0) / 3,
                                                                               1.0)))
            elif self.fw == "lightning":
                out.append(L(t, "`Trainer.fit` stopped: `max_steps=%d` reached." % self.total_steps))
            elif self.fw == "deepspeed":
                out.append(L(t, "[%s] [INFO] [engine.py:3524:save_checkpoint] Saving model checkpoint: "
                                "/checkpoints/%s/global_step%d/mp_rank_00_model_states.pt" % (
                                    ts_bracket_ms(t, self.log_off), self.proj, self.total_steps)))
                out.append(L(t + 1, "training finished"))
            else:
                out.append(L(t, "Training finished: %d steps in %.1f h, final loss %.4f" % (
                    self.total_steps, (t - self.t_train0) / 3600, self.loss_at(self.total_steps))))
                out.append(L(t + 0.5, "saved checkpoint to /checkpoints/%s/final.pt" % self.proj))
        if self.minor >= 4 and ("destroy" in self.hd or self.rrng(0, "destroyw").random() < 0.5):
            out.append(L(t + 3 + self.rrng(r, "dw").uniform(0, 1), self.c10(
                r, "W", PGN[self.minor]["destroy"],
                "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal "
                "program exit, the application should call destroy_process_group to ensure that any pending NCCL "
                "operations have finished in this process. In rare cases this process can exit before this point and "
                "block the progress of another member of the process group. This constraint has always been present, "
                " but this warning has only recently been added since PyTorch 2.4 (function operator())", t + 3)))
        return out

    def wd_core(self, r, t, seq, op, nin, nout, enq, comp, ran, extra=None, tags=()):
        v, P = self.minor, PGN[self.minor]
        work = "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (
            seq, op, nin, nout, self.timeout_ms)
        if v <= 0:
            work = "WorkNCCL(SeqNum=%d, OpType=%s, Timeout(ms)=%d)" % (seq, op, self.timeout_ms)
        wmsg = "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (
            r, work, ran)
        out = [L(t, self.c10(r, "E", P["wd"], wmsg, t), tags)]
        if v >= 4:
            out.append(L(t + 0.0003, self.c10(r, "E", P["det"], "%s Exception (either an error or timeout) detected by "
                                                               "watchdog at work: %d, last enqueued NCCL work: %d, last "
                                                               "completed NCCL work: %d." % (self.pgp(r), seq, enq, comp),
                                              t + 0.0003), tags))
        if v >= 3:
            out.append(L(t + 0.0005, self.c10(r, "E", P["tmo"], "%s Timeout at NCCL work: %d, last enqueued NCCL work: "
                                                               "%d, last completed NCCL work: %d." % (
                                                                   self.pgp(r), seq, enq, comp), t + 0.0005), tags))
        if extra:
            out += extra
        some = "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, " \
               "subsequent GPU operations might run on corrupted/incomplete data."
        down = "To avoid data inconsistency, we are taking the entire process down."
        if v >= 3:
            some, down = "[Rank %d] " % r + some, "[Rank %d] " % r + down
        out.append(L(t + 0.001, self.c10(r, "E", P["some"], some, t + 0.001)))
        out.append(L(t + 0.0011, self.c10(r, "E", P["down"], down, t + 0.0011)))
        if v >= 4 and self.rrng(0, "fr").random() < 0.4:
            out.append(L(t + 0.002, self.c10(r, "E", P["det"] + 19, "%s ProcessGroupNCCL preparing to dump debug info. "
                                                                    "Include stack trace: 1" % self.pgp(r), t + 0.002)))
        if v <= 1:
            term = "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, wmsg)
        elif v == 2:
            term = "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, wmsg)
        else:
            term = "%s Process group watchdog thread terminated with exception: %s" % (self.pgp(r), wmsg)
        out.append(L(t + 0.01, self.c10(r, "E", P["term"], term, t + 0.01)))
        exc = "std::runtime_error" if v <= 1 else "c10::DistBackendError"
        blk = ["terminate called after throwing an instance of '%s'" % exc, "  what():  " + term]
        if v >= 2:
            blk.append("Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d "
                       "(most recent call first):" % P["chk"])
            blk += self.cpp_frames(r, "timeout")
        out += lines_at(t + 0.02, "\n".join(blk), dt=1e-5)
        return out

    def timeout_lines(self, r):
        code, tx = self.t_exit_nat(r)
        t = tx - 0.3
        rr = self.rrng(r, "to")
        seq, op, nin, nout = self.seq_fail, self.fail_op, self.numel_in, self.numel_out
        enq = seq + (0 if self.cause == "unknown" else self.rrng(0, "enq").randrange(0, 3))
        comp = seq - 1
        tags = ()
        c = self.cause
        if c == "collective_mismatch":
            if r == self.culprit:
                op = "BROADCAST" if self.fail_op != "BROADCAST" else "ALLREDUCE"
                nin = nout = self.rrng(0, "odd").choice([1, 2, 8])
                tags = ("M1", "M:%d" % r)
            else:
                tags = ("M0", "M:%d" % r)
        extra = None
        if self.desync and self.minor >= 2:
            txt = self.c10(r, "E", PGN[self.minor]["desync"], "%s " % self.pgp(r), t + 0.0007)
            extra = [L(t + 0.0007, txt),
                     L(t + 0.0007, "\t - To our best knowledge, ranks [%d] are the lagging ranks that caused this "
                                   "timeout. They never joined any collectives" % self.culprit, ("R",))]
        ran = int(self.timeout_ms + (tx - self.t_fail - self.T) * 1000 + rr.randrange(0, 900))
        return self.wd_core(r, t, seq, op, nin, nout, enq, comp, ran, extra, tags)

    def last_error_peer(self, r):
        rr = self.rrng(r, "lep")
        if self.cause == "network":
            return self.netfail[r][0]
        if self.cnode is not None:
            return self.ips[self.cnode]
        return self.ips[rr.randrange(self.nn)]

    def ib_err(self, r, peer):
        rr = self.rrng(r, "iberr")
        port = rr.randrange(32768, 61000)
        if self.nccl_minor >= 21:
            return "NET/IB : Got completion from peer %s<%d> with status=12 opcode=%d len=0 vendor err 129 (%s) " \
                   "localGid ::ffff:%s remoteGids::ffff:%s" % (peer, port, rr.choice([0, 1, 129]),
                                                               rr.choice(["Recv", "Send"]),
                                                               self.ips[self.node_of(r)], peer)
        return "NET/IB : Got completion from peer %s<%d> with error 12, opcode %d, len 0, vendor err 129 (%s)" % (
            peer, port, rr.choice([0, 1, 129]), rr.choice(["Recv", "Send"]))

    def sock_err(self, r, peer):
        rr = self.rrng(r, "sockerr")
        port = rr.randrange(32768, 61000)
        if rr.random() < 0.5:
            return "socketProgressOpt: Call to recv from %s<%d> failed : Connection reset by peer" % (peer, port)
        return "socketProgress: Connection closed by remote peer %s<%d>" % (peer, port)

    def uses_ib(self):
        return self.nn > 1 and self.layout != "windows_paste" and not (
            self.cause == "network" and self.variant == "socket")

    def remote_lines(self, r):
        code, tx = self.t_exit_nat(r)
        t = tx - 0.5
        peer = self.last_error_peer(r)
        rr = self.rrng(r, "rem")
        out = []
        net = self.cause == "network"
        if self.uses_ib() and (net or rr.random() < 0.6):
            last = self.ib_err(r, peer)
            is_ib = True
        else:
            last = self.sock_err(r, peer)
            is_ib = False
        ntags = ("N",) if net else ()
        if self.nccl_debug:
            if net and self.cnode is not None and self.node_of(r) == self.cnode and is_ib:
                out.append(L(t - rr.uniform(5, 20), "%s transport/net_ib.cc:%d NCCL WARN NET/IB : mlx5_%d:1 Got async "
                                                   "event : port error" % (self.nccl_pre(r, 7),
                                                                          95 if self.nccl_minor < 21 else 113,
                                                                          self.lrank(r)), ntags))
            if is_ib:
                fl = "transport/net_ib.cc:%d" % NET_IB_LN.get(self.nccl_minor, 2081)
            else:
                fl = "misc/socket.cc:%d" % (49 if self.nccl_minor < 19 else 62)
            pre = self.nccl_pre(r, rr.randrange(40, 400))
            out.append(L(t - 0.2, "%s %s NCCL WARN %s" % (pre, fl, last), ntags))
            if is_ib:
                out.append(L(t - 0.2, "%s NCCL INFO transport/net.cc:%d -> 6" % (pre, 1008 if self.nccl_minor < 20
                                                                                      else 1298)))
                out.append(L(t - 0.2, "%s NCCL INFO proxy.cc:%d -> 6" % (pre, 679 if self.nccl_minor < 20 else 694)))
                out.append(L(t - 0.2, "%s NCCL INFO proxy.cc:%d -> 6 [%s Thread]" % (
                    pre, 858 if self.nccl_minor < 20 else 874, "Proxy" if self.nccl_minor < 19 else "Progress")))
            out.append(L(t - 0.19, ""))
        v, P = self.minor, PGN[self.minor]
        nerr = "NCCL error: remote process exited or there was a network error, NCCL version %s" % self.nccl
        body = ["ncclRemoteError: A call failed possibly due to a network error or a remote process exiting "
                "prematurely.", "Last error:", last]
        if v >= 4:
            out.append(L(t, self.c10(r, "E", P["det"], "%s Exception (either an error or timeout) detected by watchdog "
                                                       "at work: %d, last enqueued NCCL work: %d, last completed NCCL "
                                                       "work: %d." % (self.pgp(r), self.seq_fail, self.seq_fail + 1,
                                                                      self.seq_fail - 1), t)))
        if v >= 3:
            out.append(L(t + 0.001, self.c10(r, "E", P["some"], "[Rank %d] Some NCCL operations have failed or timed "
                                                               "out. Due to the asynchronous nature of CUDA kernels, "
                                                               "subsequent GPU operations might run on "
                                                               "corrupted/incomplete data." % r, t + 0.001)))
            out.append(L(t + 0.0011, self.c10(r, "E", P["down"], "[Rank %d] To avoid data inconsistency, we are taking "
                                                                "the entire process down." % r, t + 0.0011)))
            term = "%s Process group watchdog thread terminated with exception: %s" % (self.pgp(r), nerr)
        else:
            term = "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, nerr)
        out.append(L(t + 0.002, self.c10(r, "E", P["term"], term, t + 0.002), ntags))
        out += lines_at(t + 0.0021, "\n".join(body), ntags, dt=1e-5)
        exc = "std::runtime_error" if v <= 1 else "c10::DistBackendError"
        blk = []
        if v >= 2:
            blk += ["Exception raised from checkForNCCLErrorsInternal at ../torch/csrc/distributed/c10d/"
                    "ProcessGroupNCCL.cpp:%d (most recent call first):" % P["err"]] + self.cpp_frames(r, "ncclerr")
        blk += ["terminate called after throwing an instance of '%s'" % exc, "  what():  " + term] + body
        out += lines_at(t + 0.01, "\n".join(blk), dt=1e-5)
        return out

    def internal_lines(self, r):
        code, tx = self.t_exit_nat(r)
        t = tx - 0.2
        v, P = self.minor, PGN[self.minor]
        nerr = "NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % self.nccl
        term = ("%s Process group watchdog thread terminated with exception: %s" % (self.pgp(r), nerr)) if v >= 3 else \
            ("[Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, nerr))
        out = [L(t, self.c10(r, "E", P["term"], term, t))]
        body = ["ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ",
                "Last error:", ""]
        out += lines_at(t + 0.0001, "\n".join(body), dt=1e-5)
        exc = "std::runtime_error" if v <= 1 else "c10::DistBackendError"
        out += lines_at(t + 0.01, "\n".join(["terminate called after throwing an instance of '%s'" % exc,
                                             "  what():  " + term] + body), dt=1e-5)
        return out

    def odd_fp(self, seq, odd):
        if odd:
            return "CollectiveFingerPrint(SequenceNumber=%d, OpType=BROADCAST, TensorShape=[1], TensorDtypes=Long, " \
                   "TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), " \
                   "requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))" % seq
        return "CollectiveFingerPrint(SequenceNumber=%d, OpType=ALLREDUCE, TensorShape=[%d], TensorDtypes=Float, " \
               "TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), " \
               "requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))" % (
                   seq, self.numel_in)

    def mismatch_lines(self, r):
        code, tx = self.t_exit_nat(r)
        c = self.culprit
        other = (0 if c != 0 else 1) if r == c else c
        tags = ("M1", "M:%d" % r) if r == c else ("M0", "M:%d" % r)
        if self.variant == "detail":
            seq = self.seq_fail % 100000
            msg = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, " \
                  "but Rank %d is running collective: %s." % (r, self.odd_fp(seq, r == c), other,
                                                              self.odd_fp(seq, other == c))
            fr = self.frames("coll")
            if r == c:
                fr = fr[:2] + [("%s/%s" % (self.work, self.script), fr[2][1] + 17, "train",
                                "dist.broadcast(stop_flag, src=0)"),
                               fr[3], ("%s/torch/distributed/distributed_c10d.py" % self.site, fr[4][1] - 300,
                                       "broadcast", "work = group.broadcast([tensor], opts)")]
            return self.tb(r, tx - 0.05, fr, [msg], tags)
        # ddp
        p_norm = self.rrng(0, "np").randrange(150, 900)
        p_r = p_norm + 1 if r == c else p_norm
        p_o = p_norm + 1 if other == c else p_norm
        site = self.site
        fr = self.frames("x")[:2] + [
            ("%s/%s" % (self.work, self.script), self.rrng(0, "ddpl").randrange(90, 200), "build_model",
             "model = DDP(model, device_ids=[local_rank])"),
            ("%s/torch/nn/parallel/distributed.py" % site, [676, 795, 822, 822, 825, 827, 835, 835, 835, 835][self.minor],
             "__init__", "_verify_param_shape_across_processes(self.process_group, parameters)"),
            ("%s/torch/distributed/utils.py" % site, [268, 282, 288, 288, 294, 294, 297, 297, 297, 297][self.minor],
             "_verify_param_shape_across_processes",
             "return dist._verify_params_across_processes(process_group, tensors, logger)")]
        msg = "RuntimeError: DDP expects same model across all ranks, but Rank %d has %d params, while rank %d has " \
              "inconsistent %d params." % (r, p_r, other, p_o)
        return self.tb(r, tx - 0.05, fr, [msg], tags)

    def kbint(self, r, t, where, tags):
        fr = self.frames(where) if where in ("item", "fwd", "bwd", "optim", "loader", "sync") else where
        return self.tb(r, t, fr, ["KeyboardInterrupt"], tags)

    def stuck_frames(self):
        site, W = self.site, self.work
        rng = self.rrng(0, "stuck")
        pyl = "/usr/lib/python%s" % self.py if "dist-packages" in site else site.rsplit("/site-packages", 1)[0]
        if self.cause == "data_loader_stall":
            return self.frames("loader") + [
                ("%s/torch/utils/data/dataloader.py" % site, [1133, 1132, 1133, 1133, 1131, 1243, 1251, 1284, 1284, 1292][self.minor],
                 "_try_get_data", "data = self._data_queue.get(timeout=timeout)"),
                ("%s/multiprocessing/queues.py" % pyl, 113, "get", "if not self._poll(timeout):"),
                ("%s/multiprocessing/connection.py" % pyl, 257, "poll", "return self._poll(timeout)"),
                ("%s/multiprocessing/connection.py" % pyl, 440, "_poll", "r = wait([self], timeout)"),
                ("%s/multiprocessing/connection.py" % pyl, 1136, "wait", "ready = selector.select(timeout)"),
                ("%s/selectors.py" % pyl, 415, "select", "fd_event_list = self._selector.poll(timeout)")]
        k = rng.randrange(3)
        fr = self.frames("x")[:2]
        if k == 0:
            return fr + [("%s/%s" % (W, self.script), rng.randrange(200, 400), "train",
                          "wait_for_file(os.path.join(ckpt_dir, 'READY'))"),
                         ("%s/utils/sync.py" % W, rng.randrange(20, 80), "wait_for_file", "time.sleep(poll_s)")]
        if k == 1:
            return fr + [("%s/%s" % (W, self.script), rng.randrange(200, 400), "train", "logger.info(msg)"),
                         ("%s/logging/__init__.py" % pyl, 1489, "info", "self._log(INFO, msg, args, **kwargs)"),
                         ("%s/logging/__init__.py" % pyl, 1634, "_log", "self.handle(record)"),
                         ("%s/logging/__init__.py" % pyl, 1644, "handle", "self.callHandlers(record)"),
                         ("%s/logging/__init__.py" % pyl, 1706, "callHandlers", "hdlr.handle(record)"),
                         ("%s/logging/__init__.py" % pyl, 976, "handle", "self.acquire()"),
                         ("%s/logging/__init__.py" % pyl, 927, "acquire", "self.lock.acquire()")]
        return fr + [("%s/%s" % (W, self.script), rng.randrange(200, 400), "train",
                      "metrics_client.push(step=step, **stats)"),
                     ("%s/utils/metrics.py" % W, rng.randrange(30, 90), "push",
                      "resp = self.session.post(self.url, json=payload)"),
                     ("%s/requests/sessions.py" % site, 637, "post", 'return self.request("POST", url, data=data, json=json, **kwargs)'),
                     ("%s/ssl.py" % pyl, 1134, "read", "return self._sslobj.read(len, buffer)")]

    def stuck_lines(self, r):
        if self.variant == "sigint":
            t = self.t_int()
            return self.kbint(r, t, self.stuck_frames(), ("R",))
        return []

    def t_int(self):
        return self.t_fail + self.rrng(0, "tint").uniform(0.25, 0.7) * self.T

    # ------------------------------------------------------------------ culprit
    def oom_msg(self, r):
        rr = self.rrng(r, "oom")
        gi = 0 if self.per_gpu_visible() else self.lrank(r)
        cap = float(self.G["cap"].split()[0])
        want = rr.choice([1.0, 2.0, 3.91, 4.0, 7.81, 16.0, 1.53, 20.0])
        free = rr.uniform(0.05, min(want * 0.9, 1.9))
        inuse = cap - free
        alloc = inuse - rr.uniform(0.6, 3.5)
        resv = rr.uniform(0.1, 2.5)
        ty = "torch.OutOfMemoryError" if self.minor >= 4 else "torch.cuda.OutOfMemoryError"
        fmt_free = ("%.2f GiB" % free) if free >= 1 else ("%.2f MiB" % (free * 1024))
        if self.minor == 0:
            return "%s: CUDA out of memory. Tried to allocate %.2f GiB (GPU %d; %s total capacity; %.2f GiB already " \
                   "allocated; %s free; %.2f GiB reserved in total by PyTorch) If reserved memory is >> allocated " \
                   "memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory " \
                   "Management and PYTORCH_CUDA_ALLOC_CONF" % (ty, want, gi, self.G["cap"], alloc, fmt_free,
                                                             alloc + resv)
        who = ("Process %d has %.2f GiB memory in use." % (self.pid(r), inuse)) if self.minor <= 2 else \
            ("Including non-PyTorch memory, this process has %.2f GiB memory in use." % inuse)
        return "%s: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of %s of which %s is " \
               "free. %s Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f MiB is reserved by " \
               "PyTorch but unallocated. If reserved but unallocated memory is large try setting " \
               "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for " \
               "Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)" % (
                   ty, want, gi, self.G["cap"], fmt_free, who, alloc, resv * 1024)

    def wd_cuda_block(self, r, t, msg, tags):
        v, P = self.minor, PGN[self.minor]
        if v >= 3:
            term = "%s Process group watchdog thread terminated with exception: CUDA error: %s" % (self.pgp(r), msg)
        else:
            term = "[Rank %d] NCCL watchdog thread terminated with exception: CUDA error: %s" % (r, msg)
        tail = ["CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
                "might be incorrect.", "For debugging consider passing CUDA_LAUNCH_BLOCKING=1"]
        if v >= 1:
            tail.append("Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.")
        tail.append("")
        out = [L(t, self.c10(r, "E", P["term"], term, t), tags)]
        out += lines_at(t + 0.0001, "\n".join(tail), dt=1e-5)
        exc = "c10::Error" if v <= 1 else "c10::DistBackendError"
        blk = ["terminate called after throwing an instance of '%s'" % exc, "  what():  " + term] + tail[:-1]
        blk.append("Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:%d (most "
                   "recent call first):" % (44 if v <= 1 else 43))
        blk += self.cpp_frames(r, "cuda")
        out += lines_at(t + 0.01, "\n".join(blk), tags, dt=1e-5)
        return out

    def nccl_cuda_warn(self, r, t, msg):
        if not self.nccl_debug:
            return []
        rr = self.rrng(r, "ncw")
        pre = self.nccl_pre(r, rr.randrange(40, 400))
        return [L(t - 0.01, "%s %s NCCL WARN Cuda failure '%s'" % (pre, rr.choice(["proxy.cc:%d" % (
            1386 if self.nccl_minor < 20 else 1494), "enqueue.cc:%d" % (1550 if self.nccl_minor < 20 else 1976)]),
            msg), ("R",))]

    def hw_msg(self):
        c, v = self.cause, self.variant
        if c == "ecc_memory":
            return "uncorrectable ECC error encountered"
        if c == "nvlink":
            return "uncorrectable NVLink error detected during the execution"
        if v in ("xid119", "xid154"):
            return "unknown error"
        return "unspecified launch failure" if self.rrng(0, "hwm").random() < 0.7 else "unknown error"

    def culprit_lines(self, r):
        c, v = self.cause, self.variant
        t = self.t_culprit_err()
        rr = self.rrng(r, "cul")
        R = ("R",)
        site = self.site
        if c == "python_exception":
            kind, exc = PY_EXCEPTIONS[v]
            fill = dict(dset=rr.choice(["c4-en", "pile-dedup", "laion-400m", "librispeech", "imagenet-21k"]),
                        shard=rr.randrange(0, 4096), e=rr.randrange(1, 64), a=rr.choice([4096, 2048, 512, 32]),
                        b=rr.choice([4097, 2047, 513, 31]), step=self.fail_step)
            exl = [e.format(**fill) for e in exc]
            etype = exl[0].split(":")[0]
            if kind in ("data", "collate"):
                w = rr.randrange(self.dl_workers)
                fr = self.frames("loader")
                fr = fr[:-1] + [("%s/torch/utils/data/dataloader.py" % site, fr[-1][1] + 38, "_next_data",
                                 "return self._process_data(data)"),
                                ("%s/torch/utils/data/dataloader.py" % site, fr[-1][1] + 64, "_process_data",
                                 "data.reraise()"),
                                ("%s/torch/_utils.py" % site, [644, 694, 705, 722, 706, 733, 750, 750, 750, 750][self.minor],
                                 "reraise", "raise exception")]
                inner = ["%s: Caught %s in DataLoader worker process %d." % (etype, etype, w),
                         "Original Traceback (most recent call last):",
                         '  File "%s/torch/utils/data/_utils/worker.py", line %d, in _worker_loop' % (
                             site, [308, 308, 309, 308, 351, 351, 349, 349, 349, 349][self.minor]),
                         "    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]",
                         '  File "%s/torch/utils/data/_utils/fetch.py", line %d, in fetch' % (
                             site, 54 if kind == "collate" else 51),
                         "    return self.collate_fn(data)" if kind == "collate" else
                         "    data = [self.dataset[idx] for idx in possibly_batched_index]"]
                if kind == "collate":
                    inner += ['  File "%s/torch/utils/data/_utils/collate.py", line 277, in default_collate' % site,
                              "    return collate(batch, collate_fn_map=default_collate_fn_map)",
                              '  File "%s/torch/utils/data/_utils/collate.py", line 214, in collate' % site,
                              "    return elem_type({key: collate([d[key] for d in batch], collate_fn_map="
                              "collate_fn_map) for key in elem})",
                              '  File "%s/torch/utils/data/_utils/collate.py", line 155, in collate' % site,
                              "    return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)",
                              '  File "%s/torch/utils/data/_utils/collate.py", line 272, in collate_tensor_fn' % site,
                              "    return torch.stack(batch, 0, out=out)"]
                else:
                    inner += ['  File "%s/data.py", line %d, in __getitem__' % (self.work, rr.randrange(40, 140)),
                              "    ids = example[\"input_ids\"]" if etype == "KeyError" else
                              "    table = pq.read_table(self.files[shard_id])"]
                if etype == "FileNotFoundError":
                    inner += ['  File "%s/pyarrow/parquet/core.py", line 1776, in read_table' % site,
                              "    dataset = ParquetDataset("]
                inner += exl
                return self.tb(r, t, fr, inner, R)
            if kind == "model":
                return self.tb(r, t, self.frames("fwd"), exl, R)
            if kind == "loss":
                fr = self.frames("x")[:2] + [("%s/%s" % (self.work, self.script), rr.randrange(200, 300), "train",
                                              'assert torch.isfinite(loss), f"loss is nan at step {step}"')]
                return self.tb(r, t, fr, exl, R)
            if kind == "ckpt":
                fr = self.frames("x")[:2] + [
                    ("%s/%s" % (self.work, self.script), rr.randrange(200, 300), "train",
                     "save_checkpoint(model, optimizer, step, args.ckpt_dir)"),
                    ("%s/%s" % (self.work, self.script), rr.randrange(60, 120), "save_checkpoint",
                     "torch.save(state, os.path.join(ckpt_dir, f\"step_{step}_rank{rank}.pt\"))"),
                    ("%s/torch/serialization.py" % site, [441, 619, 628, 628, 651, 850, 965, 964, 964, 967][self.minor],
                     "save", "with _open_zipfile_writer(f) as opened_zipfile:"),
                    ("%s/torch/serialization.py" % site, [291, 492, 501, 501, 525, 716, 786, 785, 785, 788][self.minor],
                     "__exit__", "self.file_like.write_end_of_file()")]
                exl = ["RuntimeError: [enforce fail at inline_container.cc:595] . unexpected pos 1280704704 vs "
                       "1280704592"] if rr.random() < 0.5 else exl
                return self.tb(r, t, fr, exl, R)
            return self.tb(r, t, self.frames("fwd"), exl, R)
        if c == "cuda_oom":
            return self.tb(r, t, self.frames(v), [self.oom_msg(r)], R)
        if c == "illegal_memory_access":
            msg = "an illegal memory access was encountered"
            if v == "wd":
                return self.wd_cuda_block(r, t, msg, R)
            return self.tb(r, t, self.frames(rr.choice(["item", "sync", "bwd"])), self.cuda_err_lines(msg), R)
        if c in ("gpu_hardware", "ecc_memory"):
            msg = self.hw_msg()
            out = self.nccl_cuda_warn(r, t, msg)
            if self.hw_via_wd():
                return out + self.wd_cuda_block(r, t, msg, R)
            return out + self.tb(r, t, self.frames(rr.choice(["item", "sync", "optim"])), self.cuda_err_lines(msg), R)
        if c == "nvlink":
            msg = self.hw_msg()
            out = self.nccl_cuda_warn(r, t, msg)
            if v == "xid74_wd":
                return out + self.wd_cuda_block(r, t, msg, R)
            ln = [1275, 1331, 1691, 1970, 2027, 2100, 2199, 2380, 2400, 2400][self.minor]
            exl = ["torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
                   "ProcessGroupNCCL.cpp:%d, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version "
                   "%s" % (ln, self.nccl), "ncclUnhandledCudaError: Call to CUDA function failed.", "Last error:",
                   "Cuda failure '%s'" % msg]
            return out + self.tb(r, t, self.frames("coll"), exl, R)
        if c == "crash_signal":
            if v == "segv_fh":
                return self.faulthandler(r, t)
            if v == "bus":
                return self.faulthandler(r, t, "Bus error")
            return []
        if c == "host_oom_kill":
            if v == "dlworker":
                wpid = self.dl_worker_pid(r)
                pyl = "/usr/lib/python%s" % self.py if "dist-packages" in site else site.rsplit("/site-packages", 1)[0]
                ln = [1133, 1132, 1133, 1133, 1131, 1243, 1251, 1284, 1284, 1292][self.minor]
                ch = ([("%s/torch/utils/data/dataloader.py" % site, ln, "_try_get_data",
                        "data = self._data_queue.get(timeout=timeout)"),
                       ("%s/multiprocessing/queues.py" % pyl, 113, "get", "if not self._poll(timeout):"),
                       ("%s/multiprocessing/connection.py" % pyl, 257, "poll", "return self._poll(timeout)"),
                       ("%s/multiprocessing/connection.py" % pyl, 440, "_poll", "r = wait([self], timeout)"),
                       ("%s/multiprocessing/connection.py" % pyl, 1136, "wait", "ready = selector.select(timeout)"),
                       ("%s/selectors.py" % pyl, 415, "select", "fd_event_list = self._selector.poll(timeout)"),
                       ("%s/torch/utils/data/_utils/signal_handling.py" % site, 73 if self.minor >= 3 else 66, "handler",
                        "_error_if_any_worker_fails()")],
                      ["RuntimeError: DataLoader worker (pid %d) is killed by signal: Killed. " % wpid])
                fr = self.frames("loader") + [("%s/torch/utils/data/dataloader.py" % site, ln + 13, "_try_get_data",
                                               "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited "
                                               "unexpectedly') from e")]
                return self.tb(r, t + 1.5, fr, ["RuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly" % wpid],
                               R, chained=ch)
            return []
        if c == "data_loader_stall":
            pyl = "/usr/lib/python%s" % self.py if "dist-packages" in site else site.rsplit("/site-packages", 1)[0]
            ln = [1133, 1132, 1133, 1133, 1131, 1243, 1251, 1284, 1284, 1292][self.minor]
            ch = ([("%s/torch/utils/data/dataloader.py" % site, ln, "_try_get_data",
                    "data = self._data_queue.get(timeout=timeout)"),
                   ("%s/multiprocessing/queues.py" % pyl, 114, "get", "raise Empty")], ["_queue.Empty"])
            fr = self.frames("loader") + [("%s/torch/utils/data/dataloader.py" % site, ln + 12, "_try_get_data",
                                           "raise RuntimeError(f'DataLoader timed out after {timeout} seconds') from e")]
            return self.tb(r, t, fr, ["RuntimeError: DataLoader timed out after %d seconds" % self.dl_timeout], R,
                           chained=ch)
        return []

    def dl_worker_pid(self, r):
        return self.pid(r) + 200 + self.gpn * 3 + self.rrng(r, "dlw").randrange(self.dl_workers) + self.lrank(r) * 20

    def faulthandler(self, r, t, what="Segmentation fault"):
        rr = self.rrng(r, "fh")
        site, W = self.site, self.work
        pyl = "/usr/lib/python%s" % self.py if "dist-packages" in site else site.rsplit("/site-packages", 1)[0]
        fr = self.frames(rr.choice(["bwd", "fwd"]))
        cur = ["Fatal Python error: %s" % what, "",
               "Thread 0x%016x (most recent call first):" % (0x7f0000000000 + rr.randrange(16 ** 10)),
               '  File "%s/threading.py", line 324 in wait' % pyl,
               '  File "%s/threading.py", line 607 in wait' % pyl,
               '  File "%s/tqdm/_monitor.py", line 60 in run' % site,
               '  File "%s/threading.py", line 1016 in _bootstrap_inner' % pyl,
               '  File "%s/threading.py", line 973 in _bootstrap' % pyl, "",
               "Current thread 0x%016x (most recent call first):" % (0x7f0000000000 + rr.randrange(16 ** 10))]
        for (f, ln, fn, code) in reversed(fr):
            cur.append('  File "%s", line %d in %s' % (f, ln, fn))
        cur += ["", "Extension modules: numpy.core._multiarray_umath, numpy.core._multiarray_tests, numpy.linalg."
                    "_umath_linalg, numpy.fft._pocketfft_internal, numpy.random._common, numpy.random.bit_generator, "
                    "numpy.random._bounded_integers, numpy.random._mt19937, numpy.random.mtrand, torch._C, "
                    "torch._C._fft, torch._C._linalg, torch._C._nested, torch._C._nn, torch._C._sparse, "
                    "torch._C._special, yaml._yaml, psutil._psutil_linux, psutil._psutil_posix (total: 27)"]
        tag = ("FH",)
        return lines_at(t, "\n".join(cur), tag, dt=1e-5)

    # ------------------------------------------------------------------ torchrun agent
    def agent_fmt(self, n, lvl, mod, ln, msg, t):
        v = self.minor
        LV = {"W": "WARNING", "E": "ERROR", "I": "INFO"}[lvl]
        tt = t + self.skew[n]
        if v <= 1:
            return "%s:%s:%s" % (LV, mod, msg)
        if v <= 3:
            return "[%s] %s: [%s] %s" % (ts_bracket_ms(tt, self.log_off), mod, LV, msg)
        pre = ""
        if v >= 5:
            pre = self.site.rstrip("/").split("/")[-1] + "/"
        return "%s%s %d %s%s:%d] %s" % (lvl, ts_pyglog(tt + self.log_off * 3600), self.agent_pid[n], pre,
                                        mod.replace(".", "/") + ".py", ln, msg)

    def fqdn(self, n):
        if self.layout == "k8s_pods":
            return self.hosts[n]
        if getattr(self, "domain", "") and self.rrng(0, "fq").random() < 0.5:
            return self.hosts[n] + self.domain
        return self.hosts[n]

    def sig_name(self, code):
        return {-6: "Signal 6 (SIGABRT)", -9: "Signal 9 (SIGKILL)", -11: "Signal 11 (SIGSEGV)", -7: "Signal 7 (SIGBUS)",
                -15: "Signal 15 (SIGTERM)"}.get(code, "Signal %d" % -code)

    def launcher_tb(self, kind="child"):
        v = self.minor
        site = self.site
        trl = 33 if self.trbin.endswith("torchrun") and "conda" in self.trbin else 8
        fr = [(self.trbin, trl, "<module>", "sys.exit(main())"),
              ("%s/torch/distributed/elastic/multiprocessing/errors/__init__.py" % site,
               [346, 346, 347, 347, 355, 355, 355, 355, 355, 357][v], "wrapper", "return f(*args, **kwargs)"),
              ("%s/torch/distributed/run.py" % site, [794, 806, 812, 879, 919, 919, 918, 892, 892, 936][v], "main",
               "run(args)"),
              ("%s/torch/distributed/run.py" % site, [785, 797, 803, 870, 910, 910, 909, 883, 883, 927][v], "run",
               "elastic_launch("),
              ("%s/torch/distributed/launcher/api.py" % site, [134, 134, 135, 132, 138, 138, 138, 139, 139, 156][v],
               "__call__", "return launch_agent(self._config, self._entrypoint, list(args))")]
        if kind == "child":
            fr.append(("%s/torch/distributed/launcher/api.py" % site,
                       [259, 268, 268, 263, 269, 269, 270, 270, 270, 293][v], "launch_agent", "raise ChildFailedError("))
            exc = ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: "]
        else:
            fr += [("%s/torch/distributed/launcher/api.py" % site, [241, 250, 250, 246, 255, 255, 261, 261, 261, 283][v],
                    "launch_agent", "result = agent.run()"),
                   ("%s/torch/distributed/elastic/metrics/api.py" % site, [129, 129, 123, 123, 124, 137, 138, 138, 138, 138][v],
                    "wrapper", "result = f(*args, **kwargs)"),
                   ("%s/torch/distributed/elastic/agent/server/api.py" % site,
                    [723, 727, 727, 727, 680, 696, 711, 711, 711, 715][v], "run", "result = self._invoke_run(role)"),
                   ("%s/torch/distributed/elastic/agent/server/api.py" % site,
                    [865, 869, 868, 868, 835, 855, 870, 870, 870, 876][v], "_invoke_run", "time.sleep(monitor_interval)"),
                   ("%s/torch/distributed/elastic/multiprocessing/api.py" % site,
                    [62, 62, 62, 62, 79, 84, 84, 84, 84, 84][v], "_terminate_process_handler",
                    'raise SignalException(f"Process {os.getpid()} got signal: {sigval}", sigval=sigval)')]
            exc = []
        out = ["Traceback (most recent call last):"]
        for f, ln, fn, code in fr:
            out.append('  File "%s", line %d, in %s' % (f, ln, fn))
            out.append("    " + code)
        return out + exc

    def failure_block(self, n, entries, root):
        """entries: [(rank, code, t)], root: the first of them."""
        def fmt(idx, e):
            r, code, t = e
            tb = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html" if code > 0 else \
                "%s received by PID %d" % (self.sig_name(code), self.pid(r))
            return ["[%d]:" % idx,
                    "  time      : %s" % ts_elastic(t + self.skew[n] + self.log_off * 3600),
                    "  host      : %s" % self.fqdn(n),
                    "  rank      : %d (local_rank: %d)" % (r, self.lrank(r)),
                    "  exitcode  : %d (pid: %d)" % (code, self.pid(r)),
                    "  error_file: <N/A>",
                    "  traceback : %s" % tb]
        others = [e for e in entries if e is not root]
        body_f = []
        if others:
            for i, e in enumerate(others):
                body_f += fmt(i + 1, e)
        else:
            body_f = ["  <NO_OTHER_FAILURES>"]
        rootl = fmt(0, root)
        title = "%s FAILED" % self.script
        lines = ["Failures:"] + body_f + ["Root Cause (first observed failure):"] + rootl
        width = max(len(title), max(len(x) for x in lines))
        blk = ["=" * width, title, "-" * width, "Failures:"] + body_f + ["-" * width,
                                                                          "Root Cause (first observed failure):"] + rootl + [
            "=" * width]
        return blk

    def agent_lines(self, n):
        rng = self.rrng(n, "agent")
        v = self.minor
        mod_api = "torch.distributed.elastic.multiprocessing.api"
        mod_agent = "torch.distributed.elastic.agent.server.api"
        send_ln, fail_ln, banner_ln, death_ln = AGENT_LN[v]
        out = []
        t = self.t0 + rng.uniform(0.3, 1.5)
        if self.gpn > 1:
            banner = ["", "*****************************************",
                      "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your "
                      "system being overloaded, please further tune the variable for optimal performance in your "
                      "application as needed. ", "*****************************************"]
            if v <= 1:
                out.append(L(t, "WARNING:torch.distributed.run:"))
                out += [L(t + 1e-4 * (i + 1), x) for i, x in enumerate(banner[1:])]
            else:
                out += [L(t + 1e-4 * i, self.agent_fmt(n, "W", "torch.distributed.run", banner_ln, x, t))
                        for i, x in enumerate(banner)]
        if n > 0 and "sock" in self.hd:
            # store not up yet: the classic scary-but-benign connect retries
            for k in range(rng.randrange(1, 4)):
                tt = t + 1 + k * rng.uniform(0.5, 2)
                msg = "[c10d] The client socket has failed to connect to [%s]:%d (errno: 111 - Connection refused)." % (
                    self.master, self.port)
                if v >= 4:
                    out.append(L(tt, "[W%s socket.cpp:%d] %s" % (ts_c10(tt + self.skew[n] + self.log_off * 3600),
                                                                 752 if v < 7 else 767, msg),
                                 ("decoy",)))
                else:
                    out.append(L(tt, "[W socket.cpp:%d] %s" % (601 if v < 2 else 663, msg), ("decoy",)))
            self.decoys.append("c10d client socket connect retries (store not up yet)")
        local = list(range(n * self.gpn, (n + 1) * self.gpn))
        fates = [self.fate(r) for r in local]
        send = (lambda pid, sig: "Closing process %d via signal %s" % (pid, sig)) if v >= 6 else \
            (lambda pid, sig: "Sending process %d closing signal %s" % (pid, sig))
        c = self.cause
        if "preempt" in fates or (c == "straggler" and self.strag_end == "killed" and self.srun_mode != "per_gpu") \
                or (c in ("hang", "data_loader_stall") and self.variant == "sigint") or \
                (c == "straggler" and self.strag_end == "sigint"):
            sig = 2 if ("sigint" in (self.variant, getattr(self, "strag_end", None))) else 15
            ts = self.t_int() if c in ("hang", "data_loader_stall") else self.t_fail
            signame = "SIGINT" if sig == 2 else "SIGTERM"
            dm = ("Received %d death signal, shutting down workers" % sig) if v >= 6 else \
                ("Received Signals.%s death signal, shutting down workers" % signame)
            out.append(L(ts + 0.01, self.agent_fmt(n, "W", mod_agent, death_ln, dm, ts + 0.01)))
            for r in local:
                out.append(L(ts + 0.02, self.agent_fmt(n, "W", mod_api, send_ln, send(self.pid(r), signame), ts + 0.02)))
            if sig == 2:
                for r in local:
                    if self.fate(r) == "blocked":
                        m = ("Unable to shutdown process %d via %d, forcefully exiting via 9" % (self.pid(r), sig)) \
                            if v >= 6 else ("Unable to shutdown process %d via Signals.%s, forcefully exiting via "
                                            "Signals.SIGKILL" % (self.pid(r), signame))
                        out.append(L(ts + 30.1, self.agent_fmt(n, "W", mod_api, send_ln + 8, m, ts + 30.1)))
            out += lines_at(ts + 31, "\n".join(self.launcher_tb("signal") + [
                "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: %d" % (
                    self.agent_pid[n], sig)]), dt=1e-5)
            return out
        ex = []
        for r in local:
            code, tt = self.t_exit(r)
            if code is not None:
                ex.append((r, code, tt))
        if not ex:
            return out
        ex.sort(key=lambda e: (int(e[2]), e[0]))
        root = ex[0]
        tf = min(e[2] for e in ex)
        poll = tf + self.node_poll(n)
        listed = [e for e in ex if e[2] <= poll]
        root = sorted(listed, key=lambda e: (int(e[2]), e[0]))[0]
        alive = [r for r in local if r not in [e[0] for e in listed]]
        for r in alive:
            out.append(L(poll + 0.01, self.agent_fmt(n, "W", mod_api, send_ln, send(self.pid(r), "SIGTERM"), poll + 0.01)))
        tt = poll + rng.uniform(0.5, 3.5)
        out.append(L(tt, self.agent_fmt(n, "E", mod_api, fail_ln, "failed (exitcode: %d) local_rank: %d (pid: %d) of "
                                                                  "binary: %s" % (root[1], self.lrank(root[0]),
                                                                                  self.pid(root[0]), self.pybin), tt)))
        tb = self.launcher_tb("child") + self.failure_block(n, sorted(listed, key=lambda e: e[0]), root)
        tags = ("R",) if root[0] == self.culprit and self.fate(root[0]) == "culprit" else ()
        out += lines_at(tt + 0.01, "\n".join(tb), tags, dt=1e-5)
        return out

    # ------------------------------------------------------------------ deepspeed launcher (per node)
    def ds_lines(self, n):
        rng = self.rrng(n, "ds")
        out = []
        t = self.t0 + rng.uniform(1, 3) + self.skew[n]
        ts = lambda x: "[%s]" % ts_bracket_ms(x, self.log_off)
        wi = "{" + ", ".join("'%s': [%s]" % (h, ", ".join(str(i) for i in range(self.gpn))) for h in self.hosts) + "}"
        out.append(L(t, "%s [INFO] [launch.py:146:main] WORLD INFO DICT: %s" % (ts(t), wi)))
        out.append(L(t, "%s [INFO] [launch.py:152:main] nnodes=%d, num_local_procs=%d, node_rank=%d" % (
            ts(t), self.nn, self.gpn, n)))
        grm = "{" + ", ".join("'%s': [%s]" % (h, ", ".join(str(i * self.gpn + k) for k in range(self.gpn)))
                              for i, h in enumerate(self.hosts)) + "}"
        out.append(L(t, "%s [INFO] [launch.py:163:main] global_rank_mapping=defaultdict(<class 'list'>, %s)" % (
            ts(t), grm)))
        out.append(L(t, "%s [INFO] [launch.py:164:main] dist_world_size=%d" % (ts(t), self.world)))
        out.append(L(t, "%s [INFO] [launch.py:166:main] Setting CUDA_VISIBLE_DEVICES=%s" % (
            ts(t), ",".join(str(i) for i in range(self.gpn)))))
        out.append(L(t, "%s [INFO] [launch.py:253:main] process %d spawned with command: ['%s', '-u', '%s', "
                        "'--local_rank=0', '--deepspeed', '--deepspeed_config', 'ds_config.json']" % (
                            ts(t), self.pid(n * self.gpn), self.pybin, self.script)))
        local = list(range(n * self.gpn, (n + 1) * self.gpn))
        ex = []
        for r in local:
            code, tt = self.t_exit(r)
            if code is not None:
                ex.append((r, code, tt))
        if self.fate(local[0]) == "preempt" or (self.cause == "straggler" and self.strag_end != "finish"):
            return out
        if self.cause in ("hang", "data_loader_stall") and self.variant == "sigint":
            return out
        if not ex:
            return out
        ex.sort(key=lambda e: e[2])
        root = ex[0]
        tt = root[2] + rng.uniform(0.2, 2.0) + self.skew[n]
        for r in local:
            out.append(L(tt, "%s [INFO] [launch.py:319:sigkill_handler] Killing subprocess %d" % (ts(tt), self.pid(r))))
        tags = ("R",) if root[0] == self.culprit and self.fate(root[0]) == "culprit" else ()
        out.append(L(tt + 0.01, "%s [ERROR] [launch.py:325:sigkill_handler] ['%s', '-u', '%s', '--local_rank=%d', "
                                "'--deepspeed', '--deepspeed_config', 'ds_config.json'] exits with return code = %d" % (
                                    ts(tt + 0.01), self.pybin, self.script, self.lrank(root[0]), root[1]), tags))
        return out

    # ------------------------------------------------------------------ node-side artifacts
    def decoy_node(self):
        if not hasattr(self, "_decoy_node"):
            rng = self.rrng(0, "decoyn")
            cands = [n for n in range(self.nn) if n != self.cnode]
            self._decoy_node = rng.choice(cands) if cands and "xid" in self.hd else None
            if self._decoy_node is None and self.nn == 1 and "xid" in self.hd and self.cnode is None:
                self._decoy_node = 0
        return self._decoy_node

    def kernel_events(self, n):
        """-> list of (t, prog, msg, tags) in true time for node n."""
        rng = self.rrng(n, "kern")
        ev = []
        drv = self.G["driver"]
        kver = self.kver
        span = max(600.0, self.t_fail - self.t0)
        noise = [
            "perf: interrupt took too long (%d > %d), lowering kernel.perf_event_max_sample_rate to %d" % (
                rng.randrange(2500, 4000), 2500, rng.choice([79750, 63750, 50000])),
            "IPv6: ADDRCONF(NETDEV_CHANGE): veth%07x: link becomes ready" % rng.randrange(16 ** 7),
            "docker0: port %d(veth%07x) entered forwarding state" % (rng.randrange(1, 6), rng.randrange(16 ** 7)),
            'audit: type=1400 audit(%d.%03d:%d): apparmor="DENIED" operation="open" profile="snap.lxd.activate" '
            'name="/proc/%d/mounts" pid=%d comm="snap-exec" requested_mask="r" denied_mask="r" fsuid=0 ouid=0' % (
                int(self.t0) - 3600, rng.randrange(1000), rng.randrange(100, 900), rng.randrange(2000, 9000),
                rng.randrange(2000, 9000)),
            "EXT4-fs (nvme1n1): mounted filesystem with ordered data mode. Opts: (null). Quota mode: none.",
            "Lustre: Mounted lustre-client",
            "IPv4: martian source 10.%d.%d.%d from 10.%d.%d.1, on dev docker0" % (
                rng.randrange(250), rng.randrange(250), rng.randrange(250), rng.randrange(250), rng.randrange(250)),
        ]
        for k in range(rng.randrange(4, 10)):
            ev.append((self.t0 + rng.uniform(-2 * 86400, span + 300), "kernel", rng.choice(noise), ()))
        boot = self.t0 - self.rrng(n, "boot").uniform(2, 40) * 86400
        build = {"535.161.08": "Tue Mar  5 22:42:40 UTC 2024", "550.90.07": "Fri May 31 09:35:42 UTC 2024",
                 "525.147.05": "Thu Nov  2 07:53:16 UTC 2023", "550.54.15": "Tue Mar  5 22:23:56 UTC 2024",
                 "551.86": "Mon Mar 18 11:02:11 UTC 2024"}.get(drv, "Tue Mar  5 22:42:40 UTC 2024")
        ev.append((boot + 6.2, "kernel", "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  %s  %s" % (drv, build), ()))
        ev.append((boot + 6.9, "kernel", "nvidia-uvm: Loaded the UVM driver, major device number %d." % (
            self.rrng(0, "uvm").choice([506, 508, 510])), ()))
        if n == 0 and self.world >= 64:
            ev.append((self.t0 + rng.uniform(5, 40), "kernel",
                       "TCP: request_sock_TCP: Possible SYN flooding on port %d. Sending cookies.  Check SNMP counters."
                       % self.port, ("decoy",)))
        if self.decoy_node() == n:
            b = rng.choice(self.G["bus"][:self.gpn])
            boot0 = self.t0 - self.rrng(n, "boot").uniform(2, 40) * 86400
            when = boot0 + rng.uniform(0.2, 0.95) * (self.t0 - boot0) if rng.random() < 0.7 else \
                self.t0 - rng.uniform(600, 7200)
            x = rng.choice([43, 13, 31, 43])
            msg = {43: "NVRM: Xid (PCI:0000:%s:00): 43, pid=%d, name=python3, Ch 00000008" % (b, rng.randrange(2000, 90000)),
                   13: "NVRM: Xid (PCI:0000:%s:00): 13, pid=%d, name=python, Graphics SM Warp Exception on (GPC 2, TPC 1, "
                       "SM 0): Out Of Range Address" % (b, rng.randrange(2000, 90000)),
                   31: "NVRM: Xid (PCI:0000:%s:00): 31, pid=%d, name=pt_main_thread, Ch 00000010, intr 10000000. MMU "
                       "Fault: ENGINE GRAPHICS GPCCLIENT_T1_3 faulted @ 0x7f2e_c4000000. Fault is of type FAULT_PDE "
                       "ACCESS_TYPE_VIRT_READ" % (b, rng.randrange(2000, 90000))}[x]
            ev.append((when, "kernel", msg, ("decoy",)))
            self.decoys.append("old benign Xid %d on %s (before this job)" % (x, self.hosts[n]))
        c, v = self.cause, self.variant
        if self.cnode == n and c is not None:
            r = self.culprit
            t = self.t_fail - rng.uniform(0.05, 1.5)
            if r is not None:
                b = self.bus(r)
                xp = ("pid=%d, name=python" % self.pid(r)) if rng.random() < 0.6 else "pid='<unknown>', name=<unknown>"
                ptag = ("B2", "P2") if "pid=%d" % self.pid(r) in xp else ("B2",)
            if c == "gpu_hardware":
                if v in ("xid79", "xid154"):
                    if rng.random() < 0.4:
                        ev.append((t - 0.3, "kernel", "pcieport 0000:%02x:01.0: AER: Uncorrected (Fatal) error received: "
                                                      "0000:%s:00.0" % (int(b, 16) - 1, b), ("B2",)))
                    ev.append((t, "kernel", "NVRM: Xid (PCI:0000:%s:00): 79, %s, GPU has fallen off the bus." % (b, xp), ptag))
                    ev.append((t + 0.001, "kernel", "NVRM: GPU 0000:%s:00.0: GPU has fallen off the bus." % b, ("B2",)))
                    ev.append((t + 0.002, "kernel", "NVRM: GPU 0000:%s:00.0: GPU serial number is %d." % (
                        b, rng.randrange(10 ** 12, 10 ** 13)), ()))
                    if v == "xid154":
                        ev.append((t + 0.004, "kernel", "NVRM: Xid (PCI:0000:%s:00): 154, GPU recovery action changed "
                                                        "from 0x0 (None) to 0x2 (Node Reboot Required)" % b, ("B2",)))
                    ev += [(t + 0.003, "kernel", "NVRM: A GPU crash dump has been created. If possible, please run", ()),
                           (t + 0.003, "kernel", "NVRM: nvidia-bug-report.sh as root to collect this data before", ()),
                           (t + 0.003, "kernel", "NVRM: the NVIDIA kernel module is unloaded.", ())]
                elif v == "xid119":
                    for k in range(rng.randrange(2, 4)):
                        ev.append((t - 20 + k * 7, "kernel", "NVRM: Xid (PCI:0000:%s:00): 119, %s, Timeout after 6s of "
                                                             "waiting for RPC response from GPU%d GSP! Expected function "
                                                             "76 (GSP_RM_CONTROL) (0x20800a4c 0x4)." % (
                                                                 b, xp, self.lrank(r)), ptag))
                    ev.append((t - 5, "kernel", "NVRM: GPU%d GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and "
                                                "data 0x0000000020800a4c 0x0000000000000004." % self.lrank(r), ()))
                else:
                    ev.append((t, "kernel", "NVRM: Xid (PCI:0000:%s:00): 62, %s, 0000d2b3 00000000 00000000 00000000 "
                                            "00000000 00000000 00000000 00000000" % (b, xp), ptag))
                    ev.append((t + 0.2, "kernel", "NVRM: Xid (PCI:0000:%s:00): 45, pid=%d, name=python, Ch 00000010" % (
                        b, self.pid(r)), ("B2", "P2")))
            elif c == "ecc_memory":
                if v == "xid48":
                    ev.append((t, "kernel", "NVRM: Xid (PCI:0000:%s:00): 48, %s, An uncorrectable double bit error "
                                            "(DBE) has been detected on GPU in the framebuffer at partition %d, "
                                            "subpartition %d." % (b, xp, rng.randrange(8), rng.randrange(2)), ptag))
                elif v == "xid94":
                    ev.append((t, "kernel", "NVRM: Xid (PCI:0000:%s:00): 94, %s, Contained: SM (0x1). RST: No, "
                                            "D-RST: No" % (b, xp), ptag))
                else:
                    ev.append((t, "kernel", "NVRM: Xid (PCI:0000:%s:00): 95, %s, Uncontained: FBHUB. RST: Yes, "
                                            "D-RST: No" % (b, xp), ptag))
                ev.append((t + 0.01, "kernel", "NVRM: Xid (PCI:0000:%s:00): 63, pid='<unknown>', name=<unknown>, Row "
                                               "Remapper: New row (0x%016x) marked for remapping, reset gpu to activate."
                                               % (b, rng.randrange(16 ** 9)), ("B2",)))
            elif c == "nvlink":
                link = rng.randrange(12 if self.gpu != "h100" else 18)
                ev.append((t, "kernel", "NVRM: Xid (PCI:0000:%s:00): 74, %s, NVLink: fatal error detected on link "
                                        "%d(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)" % (b, xp, link), ptag))
                if self.gpu == "h100" and rng.random() < 0.6:
                    ev.append((t + 0.002, "kernel", "nvidia-nvswitch%d: SXid (PCI:0000:%02x:00.0): 20034, Fatal, Link %d "
                                                    "LTSSM Fault Up" % (rng.randrange(4), rng.choice([5, 6, 7, 8]),
                                                                        rng.randrange(64)), ()))
            elif c == "host_oom_kill":
                kp = self.pid(r) if v == "direct" else self.dl_worker_pid(r)
                inv = self.pid(n * self.gpn + rng.randrange(self.gpn))
                memcg = self.layout in ("slurm_out", "k8s_pods")
                anon = rng.randrange(60, 240) * 1024 * 1024
                blk = [("python invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, "
                        "oom_score_adj=0", ()),
                       ("CPU: %d PID: %d Comm: python Tainted: P           OE     %s" % (rng.randrange(128), inv, kver), ()),
                       ("Call Trace:", ()), (" <TASK>", ()), (" dump_stack_lvl+0x4a/0x63", ()),
                       (" dump_header+0x4a/0x1f4", ()), (" oom_kill_process.cold+0xb/0x10", ()),
                       (" out_of_memory+0x1bd/0x500", ()),
                       (" mem_cgroup_out_of_memory+0x13a/0x150" if memcg else
                        " __alloc_pages_slowpath.constprop.0+0xbcc/0xce0", ()), (" </TASK>", ()),
                       ("oom-kill:constraint=%s,nodemask=(null),cpuset=%s,mems_allowed=0-1,%s,task=python,pid=%d,uid=%d" % (
                           "CONSTRAINT_MEMCG" if memcg else "CONSTRAINT_NONE",
                           "/" if not memcg else ("slurm_%s" % self.hosts[n] if self.layout == "slurm_out" else "cri-containerd-%08x.scope" % rng.randrange(16 ** 8)),
                           ("oom_memcg=/slurm/uid_1000/job_%d,task_memcg=/slurm/uid_1000/job_%d/step_0/user/task_0" % (
                               self.jobid(), self.jobid())) if self.layout == "slurm_out" else
                           ("oom_memcg=/kubepods.slice/kubepods-burstable.slice,task_memcg=/kubepods.slice" if memcg
                            else "global_oom,task_memcg=/user.slice/user-1000.slice/session-4.scope"), kp, 1000), ()),
                       ("%s: Killed process %d (python) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, "
                        "UID:1000 pgtables:%dkB oom_score_adj:0" % (
                            "Memory cgroup out of memory" if memcg else "Out of memory", kp,
                            anon + rng.randrange(10 ** 8), anon, rng.randrange(10 ** 5, 10 ** 6),
                            rng.randrange(10 ** 5, 4 * 10 ** 6), rng.randrange(10 ** 5, 5 * 10 ** 5)),
                        ("P2",) if v == "direct" else ())]
                for i, (m, tg) in enumerate(blk):
                    ev.append((t - 0.02 + i * 1e-4, "kernel", m, tg))
            elif c == "crash_signal" and v != "bus":
                base = 0x7f0000000000 + rng.randrange(16 ** 6) * 4096
                lib = rng.choice(["libtorch_cuda.so", "libnccl.so.2", "libc10.so", "libcuda.so.%s" % drv,
                                  "_C.cpython-%s-x86_64-linux-gnu.so" % self.py.replace(".", "")])
                ev.append((t + 0.001, "kernel", "python[%d]: segfault at %x ip %016x sp %016x error %d in %s[%x+%x] "
                                                "likely on CPU %d (core %d, socket %d)" % (
                                                    self.pid(r), rng.choice([0, 8, 0x18, 0x7f3a00000010]),
                                                    base + rng.randrange(16 ** 5), 0x7ffc00000000 + rng.randrange(16 ** 8),
                                                    rng.choice([4, 6, 14]), lib, base, rng.randrange(16 ** 6, 16 ** 7),
                                                    rng.randrange(96), rng.randrange(48), rng.randrange(2)), ("P2",)))
                ev.append((t + 0.0011, "kernel", "Code: 48 8b 47 08 48 85 c0 74 0b 48 8b 00 c3 0f 1f 80 00 00 00 00 <48> "
                                                 "8b 07 c3 66 2e 0f 1f 84 00 00 00 00 00 90 f3 0f 1e fa", ()))
            elif c == "data_loader_stall" and rng.random() < 0.5:
                fs = rng.choice(["fs01", "nas-02", "10.%d.0.5" % rng.randrange(250)])
                ev.append((t - 40, "kernel", "nfs: server %s not responding, still trying" % fs, ()))
                ev.append((t - 10, "kernel", "nfs: server %s not responding, still trying" % fs, ()))
                wp = self.dl_worker_pid(r)
                ev.append((t + 100, "kernel", "INFO: task pt_data_worker:%d blocked for more than 122 seconds." % wp, ()))
                ev.append((t + 100.001, "kernel", "      Tainted: P           OE     %s" % kver, ()))
                ev.append((t + 100.002, "kernel",
                           '"echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.', ()))
            elif c == "preemption" and False:
                lp = rng.randrange(600, 1500)
                ev += [(self.t_fail - 0.5, "systemd-logind[%d]" % lp, "Power key pressed.", ("N",)),
                       (self.t_fail - 0.4, "systemd-logind[%d]" % lp, "Powering Off...", ("N",)),
                       (self.t_fail - 0.39, "systemd-logind[%d]" % lp, "System is powering down.", ("N",)),
                       (self.t_fail + 0.1, "systemd[1]", "Stopping Session %d of User %s..." % (
                           rng.randrange(1, 9), self.user), ())]
        if c == "preemption" and (self.cnode == n or self.cnode is None):
            lp = rng.randrange(600, 1500)
            ev += [(self.t_fail - 0.5, "systemd-logind[%d]" % lp, "Power key pressed.", ("N",)),
                   (self.t_fail - 0.4, "systemd-logind[%d]" % lp, "Powering Off...", ("N",)),
                   (self.t_fail - 0.39, "systemd-logind[%d]" % lp, "System is powering down.", ("N",)),
                   (self.t_fail + 0.1, "systemd[1]", "Stopping Session %d of User %s..." % (
                       rng.randrange(1, 9), self.user), ())]
        if c == "network":
            hb = ["0c", "1c", "5c", "8c", "9c", "bc", "cc", "dc"]
            if self.cnode == n and self.bad_hca_local is not None:
                bl = self.bad_hca_local
                t = self.t_fail - rng.uniform(1, 6)
                dev = "0000:%s:00.0" % hb[bl]
                ifn = "ibp%ds0" % int(hb[bl], 16)
                ev.append((t, "kernel", "mlx5_core %s %s: Link down" % (dev, ifn), ("N",)))
                if rng.random() < 0.5:
                    ev.append((t + 0.2, "kernel", "mlx5_core %s: mlx5_port_module_event:1163:(pid 0): Port module "
                                                  "event[error]: module %d, Cable error, Bus stuck (I2C or data "
                                                  "shorted)" % (dev, bl), ("N",)))
                ev.append((t + rng.uniform(40, 400), "kernel", "mlx5_core %s %s: Link up" % (dev, ifn), ("N",)))
            elif self.cnode is None and n in [self.node_of(r) for r in self.netfail] and rng.random() < 0.5:
                t = self.t_fail - rng.uniform(1, 6)
                k = rng.randrange(self.gpn)
                ev.append((t, "kernel", "mlx5_core 0000:%s:00.0 ibp%ds0: Link down" % (hb[k], int(hb[k], 16)), ()))
                ev.append((t + rng.uniform(3, 30), "kernel", "mlx5_core 0000:%s:00.0 ibp%ds0: Link up" % (
                    hb[k], int(hb[k], 16)), ()))
        ev.sort(key=lambda e: e[0])
        return ev

    def jobid(self):
        return 100000 + self.rrng(0, "jobid").randrange(10 ** 6, 9 * 10 ** 6) % 8900000

    def fmt_kernel(self, n, evs, style, host=None):
        """style: dmesg_T | dmesg_raw | journal"""
        off = self.local_tz
        boot = self.t0 - self.rrng(n, "boot").uniform(2, 40) * 86400
        out = []
        h = host or self.hosts[n]
        for (t, prog, msg, tags) in evs:
            tt = t + self.skew[n]
            if style == "dmesg_T":
                if prog != "kernel":
                    continue
                out.append(L(t, "%s %s" % (ts_dmesg_T(tt, off), msg), tags))
            elif style == "dmesg_raw":
                if prog != "kernel":
                    continue
                out.append(L(t, "[%12.6f] %s" % (tt - boot, msg), tags))
            else:
                out.append(L(t, "%s %s %s: %s" % (ts_journal(tt, off), h, prog, msg), tags))
        return out

    def nvsmi_q(self, n, t, display=None):
        """nvidia-smi -q excerpt for node n."""
        rng = self.rrng(n, "nvq")
        off = self.local_tz
        d = dtu(t + self.skew[n], off)
        c, v = self.cause, self.variant
        cul_here = self.culprit is not None and self.cnode == n
        out = [L(t, ""), L(t, "==============NVSMI LOG=============="), L(t, ""),
               L(t, "Timestamp                                 : %s" % d.strftime("%a %b %d %H:%M:%S %Y")),
               L(t, "Driver Version                            : %s" % self.G["driver"]),
               L(t, "CUDA Version                              : %s" % self.G["cudadrv"]), L(t, ""),
               L(t, "Attached GPUs                             : %d" % self.gpn)]
        disp = display or ["ECC", "REMAP", "PERF", "TEMP"]
        for l in range(self.gpn):
            r = n * self.gpn + l
            b = self.G["bus"][l]
            bad = cul_here and r == self.culprit
            if bad and c == "gpu_hardware" and v in ("xid79", "xid154"):
                out.append(L(t, "Unable to determine the device handle for GPU0000:%s:00.0: Unknown Error" % b.upper(),
                             ("B2",)))
                continue
            tg = ("B2",) if bad else ()
            out.append(L(t, "GPU 00000000:%s:00.0" % b.upper(), tg))
            out.append(L(t, "    Product Name                          : %s" % self.G["name"]))
            out.append(L(t, "    GPU UUID                              : GPU-%08x-%04x-%04x-%04x-%012x" % (
                rng.randrange(16 ** 8), rng.randrange(16 ** 4), rng.randrange(16 ** 4), rng.randrange(16 ** 4),
                rng.randrange(16 ** 12))))
            out.append(L(t, "    Minor Number                          : %d" % l))
            if "ECC" in disp and self.G["ecc"]:
                dram_u = rng.choice([1, 2, 4]) if (bad and c == "ecc_memory") else 0
                agg_c = rng.choice([0, 0, 0, 3, 12]) if not bad else rng.randrange(0, 40)
                out += [L(t, "    ECC Mode"), L(t, "        Current                           : Enabled"),
                        L(t, "        Pending                           : Enabled"), L(t, "    ECC Errors"),
                        L(t, "        Volatile"),
                        L(t, "            SRAM Correctable              : 0"),
                        L(t, "            SRAM Uncorrectable Parity     : 0"),
                        L(t, "            SRAM Uncorrectable SEC-DED    : 0"),
                        L(t, "            DRAM Correctable              : %d" % (agg_c // 3)),
                        L(t, "            DRAM Uncorrectable            : %d" % dram_u, tg if dram_u else ()),
                        L(t, "        Aggregate"),
                        L(t, "            SRAM Correctable              : 0"),
                        L(t, "            SRAM Uncorrectable Parity     : 0"),
                        L(t, "            SRAM Uncorrectable SEC-DED    : 0"),
                        L(t, "            DRAM Correctable              : %d" % agg_c),
                        L(t, "            DRAM Uncorrectable            : %d" % dram_u, tg if dram_u else ())]
            if "REMAP" in disp and self.G["ecc"]:
                pend = bad and c == "ecc_memory"
                out += [L(t, "    Remapped Rows"),
                        L(t, "        Correctable Error                 : 0"),
                        L(t, "        Uncorrectable Error               : %d" % (rng.choice([1, 2]) if pend else 0),
                          tg if pend else ()),
                        L(t, "        Pending                           : %s" % ("Yes" if pend else "No"), tg if pend else ()),
                        L(t, "        Remapping Failure Occurred        : No")]
            if "TEMP" in disp:
                hot = bad and c == "straggler"
                out += [L(t, "    Temperature"),
                        L(t, "        GPU Current Temp                  : %d C" % (rng.randrange(87, 94) if hot else
                                                                                   rng.randrange(34, 62)),
                          tg if hot else ()),
                        L(t, "        GPU Shutdown Temp                 : 92 C" if self.gpu != "h100" else
                          "        GPU Shutdown Temp                 : 92 C"),
                        L(t, "        GPU Slowdown Temp                 : 89 C" if self.gpu != "h100" else
                          "        GPU Slowdown Temp                 : 89 C")]
            if "PERF" in disp:
                hot = bad and c == "straggler"
                key = "Clocks Event Reasons" if self.G["driver"] >= "535" else "Clocks Throttle Reasons"
                out += [L(t, "    Performance State                     : P0"),
                        L(t, "    %s" % key),
                        L(t, "        Idle                              : Not Active"),
                        L(t, "        Applications Clocks Setting       : Not Active"),
                        L(t, "        SW Power Cap                      : %s" % ("Active" if rng.random() < 0.2 and not hot
                                                                                 else "Not Active")),
                        L(t, "        HW Slowdown                       : %s" % ("Active" if hot else "Not Active"),
                          tg if hot else ()),
                        L(t, "            HW Thermal Slowdown           : %s" % ("Active" if hot else "Not Active"),
                          tg if hot else ()),
                        L(t, "            HW Power Brake Slowdown       : Not Active"),
                        L(t, "        Sync Boost                        : Not Active"),
                        L(t, "        SW Thermal Slowdown               : %s" % ("Active" if hot else "Not Active")),
                        L(t, "        Display Clock Setting             : Not Active")]
        return out

    def nvlink_status(self, n, t):
        rng = self.rrng(n, "nvl")
        out = []
        nl = 18 if self.gpu == "h100" else 12
        bw = "26.562 GB/s" if self.gpu == "h100" else "25 GB/s"
        bad_link = rng.randrange(nl)
        for l in range(self.gpn):
            r = n * self.gpn + l
            bad = self.cause == "nvlink" and r == self.culprit and self.cnode == n
            out.append(L(t, "GPU %d: %s (UUID: GPU-%08x-%04x-%04x-%04x-%012x)" % (
                l, self.G["name"], rng.randrange(16 ** 8), rng.randrange(16 ** 4), rng.randrange(16 ** 4),
                rng.randrange(16 ** 4), rng.randrange(16 ** 12)), ("B2",) if bad else ()))
            for k in range(nl):
                if bad and k in (bad_link, (bad_link + 1) % nl):
                    out.append(L(t, "\t Link %d: <inactive>" % k, ("B2",)))
                else:
                    out.append(L(t, "\t Link %d: %s" % (k, bw)))
        return out

    def nvsmi_table(self, n, t):
        rng = self.rrng(n, "nvt")
        d = dtu(t + self.skew[n], self.local_tz)
        G = self.G
        c, v = self.cause, self.variant
        out = [d.strftime("%a %b %d %H:%M:%S %Y") + "       ",
               "+---------------------------------------------------------------------------------------+",
               "| NVIDIA-SMI %-21s Driver Version: %-14s CUDA Version: %-9s|" % (G["driver"], G["driver"], G["cudadrv"]),
               "|-----------------------------------------+----------------------+----------------------+",
               "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |",
               "| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |",
               "|                                         |                      |               MIG M. |",
               "|=========================================+======================+======================|"]
        tags = []
        nm = G["name"].replace("NVIDIA ", "")
        if len(nm) > 20:
            nm = nm[:17] + "..."
        for l in range(self.gpn):
            r = n * self.gpn + l
            bad = self.culprit == r and self.cnode == n
            b = G["bus"][l].upper()
            mem_used = rng.randrange(int(G["mem"] * 0.6), int(G["mem"] * 0.97)) if not self.healthy else rng.randrange(3, 900)
            if t > self.t_fail and not self.healthy:
                mem_used = rng.randrange(3, 900)
            ecc = "0" if G["ecc"] else "N/A"
            fan = "N/A" if G["watts"] >= 350 and self.gpu != "rtx4090" else "%d%%" % rng.randrange(30, 70)
            temp = rng.randrange(30, 60)
            pw = rng.randrange(60, int(G["watts"] * 0.4))
            util = rng.randrange(0, 5)
            tg = ()
            nm31 = G["name"] if len(G["name"]) <= 30 else G["name"][:27] + "..."
            if bad and c == "gpu_hardware" and v in ("xid79", "xid154"):
                row1 = "|%4d  %-31s%-4s| %s:00.0 Off |%21s |" % (l, nm31, "On", "00000000:" + b, "ERR!")
                row2 = "|%-4s %5s %6s %22s |%21s |%21s |" % ("ERR!", "ERR!", "ERR!", "ERR! / ERR!",
                                                           "ERR!MiB / %dMiB" % G["mem"], "ERR!      Default")
                tg = ("B2",)
            else:
                if bad and c == "ecc_memory":
                    ecc = str(rng.choice([1, 2]))
                    tg = ("B2",)
                if bad and c == "straggler":
                    temp = rng.randrange(87, 94)
                    pw = int(G["watts"] * 0.55)
                    util = 100
                    tg = ("B2",)
                elif c == "straggler" or self.healthy:
                    util = rng.randrange(92, 101)
                    pw = rng.randrange(int(G["watts"] * 0.7), G["watts"])
                row1 = "|%4d  %-31s%-4s| %s:00.0 Off |%21s |" % (l, nm31, "On", "00000000:" + b, ecc)
                row2 = "| %3s   %3s    P0%24s |%21s |%7d%%%13s |" % (
                    fan, "%dC" % temp, "%dW / %dW" % (pw, G["watts"]), "%dMiB / %dMiB" % (mem_used, G["mem"]),
                    util, "Default")
            out += [row1, row2, "|                                         |                      |             Disabled |",
                    "+-----------------------------------------+----------------------+----------------------+"]
            tags += [tg, tg, (), ()]
        res = [L(t, x) for x in out[:8]] + [L(t, x, tg) for x, tg in zip(out[8:], tags)]
        res += [L(t, ""), L(t, "+---------------------------------------------------------------------------------------+"),
                L(t, "| Processes:                                                                            |"),
                L(t, "|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |"),
                L(t, "|        ID   ID                                                             Usage      |"),
                L(t, "|=======================================================================================|"),
                L(t, "|  No running processes found                                                           |"),
                L(t, "+---------------------------------------------------------------------------------------+")]
        return res

    def pyspy(self, r, t, stuck=True):
        rr = self.rrng(r, "pyspy")
        pid = self.pid(r)
        pyl = "/usr/lib/python%s" % self.py if "dist-packages" in self.site else self.site.rsplit("/site-packages", 1)[0]
        out = ["Process %d: %s -u %s --config configs/%s.yaml" % (pid, self.pybin, self.script, self.proj),
               "Python v%s.%d (%s)" % (self.py, rr.randrange(4, 15), self.pybin), ""]
        if stuck:
            fr = self.stuck_frames()
            state = "idle"
        else:
            fr = self.frames("item")
            state = "active"
        out.append('Thread %d (%s): "MainThread"' % (pid, state))
        for (f, ln, fn, code) in reversed(fr):
            short = f.replace(self.site + "/", "").replace(self.work + "/", "").replace(pyl + "/", "")
            out.append("    %s (%s:%d)" % (fn, short, ln))
        out.append('Thread %d (idle): "Thread-%d (_pin_memory_loop)"' % (pid + rr.randrange(30, 90), rr.randrange(1, 4)))
        out += ["    select (selectors.py:415)", "    wait (multiprocessing/connection.py:1136)",
                "    _poll (multiprocessing/connection.py:440)", "    poll (multiprocessing/connection.py:257)",
                "    get (multiprocessing/queues.py:113)", "    do_one_step (torch/utils/data/_utils/pin_memory.py:31)",
                "    _pin_memory_loop (torch/utils/data/_utils/pin_memory.py:58)", "    run (threading.py:1010)",
                "    _bootstrap_inner (threading.py:1073)", "    _bootstrap (threading.py:1030)"]
        tags = ("R",) if stuck else ()
        return [L(t, x, tags if i < 2 + len(fr) + 2 else ()) for i, x in enumerate(out)]

    def collect_env(self):
        rng = self.rrng(0, "env")
        osn = self.osrel
        tv = self.torch.split("+")[0]
        pyfull = "%s.%d" % (self.py, rng.randrange(4, 15))
        lines = ["Collecting environment information...",
                 "PyTorch version: %s" % self.torch, "Is debug build: False",
                 "CUDA used to build PyTorch: %s" % self.cuda, "ROCM used to build PyTorch: N/A", "",
                 "OS: %s" % osn[0], "GCC version: %s" % osn[1], "Clang version: Could not collect",
                 "CMake version: version 3.%d.%d" % (rng.randrange(22, 30), rng.randrange(0, 6)),
                 "Libc version: %s" % osn[2], "",
                 "Python version: %s (main, %s) [GCC 11.2.0] (64-bit runtime)" % (
                     pyfull, rng.choice(["Mar 21 2024, 17:11:11", "Jun  6 2024, 19:30:16", "Oct  3 2024, 15:10:48"])),
                 "Python platform: Linux-%s-x86_64-with-%s" % (
                     self.kver.split()[0].replace(".x86_64", ""), osn[2]),
                 "Is CUDA available: True", "CUDA runtime version: %s.%d" % (self.cuda, rng.randrange(40, 130)),
                 "CUDA_MODULE_LOADING set to: LAZY", "GPU models and configuration: "]
        for l in range(self.gpn):
            lines.append("GPU %d: %s" % (l, self.G["name"]))
        lines += ["", "Nvidia driver version: %s" % self.G["driver"],
                  "cuDNN version: Probably one of the following:",
                  "/usr/lib/x86_64-linux-gnu/libcudnn.so.%s" % rng.choice(["8.9.7", "9.1.0", "8.9.2"]),
                  "HIP runtime version: N/A", "MIOpen runtime version: N/A", "Is XNNPACK available: True", "",
                  "CPU:", "Architecture:                       x86_64",
                  "CPU op-mode(s):                     32-bit, 64-bit",
                  "Address sizes:                      52 bits physical, 57 bits virtual",
                  "Byte Order:                         Little Endian",
                  "CPU(s):                             %d" % rng.choice([128, 192, 224, 256]),
                  "Model name:                         %s" % rng.choice(
                      ["AMD EPYC 7763 64-Core Processor", "Intel(R) Xeon(R) Platinum 8480+",
                       "AMD EPYC 9654 96-Core Processor", "Intel(R) Xeon(R) Platinum 8468"]),
                  "Thread(s) per core:                 2", "Socket(s):                          2",
                  "NUMA node(s):                       2", "", "Versions of relevant libraries:",
                  "[pip3] numpy==%s" % rng.choice(["1.26.4", "1.24.4", "2.1.2"]),
                  "[pip3] torch==%s" % self.torch,
                  "[pip3] triton==%s" % {0: "2.0.0", 1: "2.1.0", 2: "2.2.0", 3: "2.3.1", 4: "3.0.0", 5: "3.1.0",
                                         6: "3.2.0", 7: "3.3.1", 8: "3.4.0", 9: "3.5.0"}[self.minor],
                  "[pip3] nvidia-nccl-cu12==%s" % self.nccl]
        if self.fw == "hf":
            lines.append("[pip3] transformers==%s" % rng.choice(["4.40.2", "4.44.2", "4.46.3", "4.51.3"]))
        if self.fw == "deepspeed":
            lines.append("[pip3] deepspeed==%s" % rng.choice(["0.12.6", "0.14.4", "0.15.4", "0.16.9"]))
        if self.fw == "lightning":
            lines.append("[pip3] lightning==%s" % rng.choice(["2.2.5", "2.4.0", "2.5.0"]))
        lines.append("[conda] Could not collect")
        return "\n".join(lines)

    # ------------------------------------------------------------------ rendering helpers
    def take(self, lines, rank_ctx=False):
        for x in lines:
            for tg in x.tags:
                if tg == "FH" and rank_ctx:
                    tg = "R"
                self.tags[tg] = self.tags.get(tg, 0) + 1
        return lines

    def node_console(self, n, detail=True, agent=True):
        ls = []
        for r in range(n * self.gpn, (n + 1) * self.gpn):
            ls += self.rank_lines(r, detail)
        if agent:
            ls += self.agent_lines(n)
        ls.sort(key=lambda x: x.t)
        return ls

    @staticmethod
    def flatten(lines, mode):
        out, pend = [], []
        for x in lines:
            if x.src == "bar":
                pend.append(x)
                continue
            if pend:
                if mode == "file":
                    out.append(L(pend[0].t, "".join("\r" + p.text for p in pend), ()))
                else:
                    out.append(L(pend[-1].t, pend[-1].text, ()))
                pend = []
            out.append(x)
        if pend:
            out.append(L(pend[0].t, "".join("\r" + p.text for p in pend) if mode == "file" else pend[-1].text, ()))
        return out

    def first_err_idx(self, lines):
        tf = self.t_fail - 0.5
        for i, x in enumerate(lines):
            if x.t >= tf and x.src != "bar":
                return i
        return len(lines)

    def paste_cut(self, lines, rng, top=True, bottom=True):
        """What a user copies out of a scrollback: from some point before the error to some point after the
        evidence (never cutting evidence of the first error cluster)."""
        if not lines:
            return lines, False
        fe = self.first_err_idx(lines)
        ev_idx = [i for i, x in enumerate(lines) if set(x.tags) & {"R", "M0", "M1", "N", "FH", "B2", "P2"}]
        must = max([min(len(lines) - 1, fe + 25)] + [i + 1 for i in ev_idx])
        if self.healthy or (self.cause == "straggler" and self.strag_end == "finish"):
            must = len(lines) - 1
        start = 0
        topcut = False
        if top and rng.random() < 0.7 and fe > 60:
            start = max(0, fe - rng.randrange(25, 140))
            topcut = start > 0
        end = len(lines)
        if bottom and rng.random() < 0.6 and must + 2 < len(lines):
            end = rng.randrange(must + 1, len(lines))
        res = lines[start:end]
        return res, topcut

    def snip_wave(self, lines, budget, rng):
        """Remove the middle of the collateral wave when a merged file gets too big."""
        size = sum(len(x.text) + 1 for x in lines)
        if size <= budget:
            return lines
        t_w = self.t_fail + 0.5 * self.T if self.cause not in ("preemption",) else self.t_fail + 5
        a = next((i for i, x in enumerate(lines) if x.t >= t_w), len(lines))
        ev = set(i for i, x in enumerate(lines) if set(x.tags) & {"R", "M1", "FH"})
        keep_head = lines[:a]
        wave = lines[a:]
        head_size = sum(len(x.text) + 1 for x in keep_head)
        if head_size > budget:
            # head too large (noisy start): drop the middle of the head instead, keep evidence lines
            k1 = int(len(keep_head) * 0.25)
            k2 = int(len(keep_head) * 0.55)
            mid = [x for i, x in enumerate(keep_head[k1:k2]) if (i + k1) in ev]
            keep_head = keep_head[:k1] + [L(keep_head[k1].t, "[... %d lines snipped ...]" % (k2 - k1))] + mid + \
                keep_head[k2:]
            head_size = sum(len(x.text) + 1 for x in keep_head)
        room = max(20000, budget - head_size)
        tot = sum(len(x.text) + 1 for x in wave)
        if tot <= room:
            return keep_head + wave
        acc, i1 = 0, 0
        while i1 < len(wave) and acc < room * 0.55:
            acc += len(wave[i1].text) + 1
            i1 += 1
        acc, i2 = 0, len(wave)
        while i2 > i1 and acc < room * 0.4:
            i2 -= 1
            acc += len(wave[i2].text) + 1
        keepm = [x for j, x in enumerate(wave[i1:i2]) if (a + i1 + j) in ev]
        return keep_head + wave[:i1] + [L(wave[i1].t, "[... %d lines snipped, the other ranks print the same ...]" % (
            i2 - i1 - len(keepm)))] + keepm + wave[i2:]

    def kernel_tail(self, n, style, k, filt=None, host=None):
        ev = self.kernel_events(n)
        lim = self.t_fail + self.T + 900 if not self.healthy else self.t_fail + 600
        ev = [e for e in ev if e[0] <= lim]
        if filt:
            ev = [e for e in ev if filt(e[2])]
        ls = self.fmt_kernel(n, ev, style, host)
        return ls[-k:]

    def hw_filter(self, m):
        return any(s in m for s in ("NVRM", "Xid", "AER", "nvswitch", "mlx5", "oom", "Out of memory", "segfault",
                                    "Killed process", "nfs:", "blocked for more"))

    def txt(self, lines):
        return "\n".join(x.text for x in lines) + "\n"

    def shell_prompt(self, n, cmd, color=False):
        h = self.hosts[n]
        home = "/root" if self.user == "root" else "/home/" + self.user
        d = self.work.replace(home, "~")
        if color:
            return "\x1b[01;32m%s@%s\x1b[00m:\x1b[01;34m%s\x1b[00m$ %s" % (self.user, h, d, cmd)
        env = "(%s) " % self.envname if "envs" in self.site or "venvs" in self.site else ""
        return "%s%s@%s:%s$ %s" % (env, self.user, h, d, cmd)

    def torchrun_cmd(self, n=0):
        if self.nn > 1:
            return "torchrun --nnodes=%d --nproc_per_node=%d --node_rank=%d --rdzv_backend=c10d --rdzv_endpoint=%s:%d " \
                   "%s --config configs/%s.yaml" % (self.nn, self.gpn, n, self.master, self.port, self.script, self.proj)
        return "torchrun --standalone --nproc_per_node=%d %s --config configs/%s.yaml" % (self.gpn, self.script, self.proj)

    def wall_msg(self, n):
        t = self.t_fail - 0.6
        d = dtu(t + self.skew[n], self.local_tz)
        return [L(t, ""), L(t, "Broadcast message from root@%s on pts/%d (%s):" % (
            self.hosts[n], self.rrng(n, "pts").randrange(0, 4), d.strftime("%a %Y-%m-%d %H:%M:%S ") + self.tzname()),
                 ("N",)),
                L(t, ""), L(t, "The system will power off now!", ("N",)), L(t, "")]

    # ------------------------------------------------------------------ layout 1: GitHub issue with torchrun paste
    def render_torchrun_issue(self):
        rng = self.rrng(0, "L1")
        c = self.cause
        hwc = c in ("gpu_hardware", "ecc_memory", "nvlink")
        if self.cnode is not None and c != "network":
            if hwc and self.cnode != 0 and rng.random() < 0.4:
                shown = [0]
            else:
                shown = [self.cnode]
                if self.cnode != 0 and rng.random() < 0.5:
                    shown = [0, self.cnode]
        elif c == "network":
            nodes = sorted({self.node_of(r) for r in self.netfail})
            shown = [nodes[0]] if rng.random() < 0.5 or len(nodes) == 1 else nodes[:2]
        else:
            shown = [0] if self.nn == 1 or rng.random() < 0.6 else [0, rng.randrange(1, self.nn)]
        if c == "straggler" and self.node_of(self.printer()) not in shown:
            shown.append(self.node_of(self.printer()))
        shown = sorted(set(shown))
        pastes = []
        for n in shown:
            lines = self.flatten(self.node_console(n), "tty")
            pre = [L(self.t0 - 1, self.shell_prompt(n, self.torchrun_cmd(n)))]
            if c == "preemption":
                k = self.first_err_idx(lines)
                lines = lines[:k] + self.wall_msg(n) + lines[k:]
                lines.append(L(self.t_fail + 32, "Connection to %s closed by remote host." % self.ips[n], ("N",)))
            cut, topcut = self.paste_cut(lines, rng)
            if not topcut:
                cut = pre + cut
            else:
                cut = [L(cut[0].t, "...")] + cut
            self.take(cut)
            pastes.append((n, cut))
        # what the user writes
        hours = (self.t_fail - self.t_train0) / 3600.0
        gpus = "%d x %s" % (self.world, self.G["name"].replace("NVIDIA ", ""))
        if self.healthy:
            intro = rng.choice([
                "Training runs to completion but the log is full of scary messages (NCCL WARN, c10d socket errors, a "
                "caught OOM). Are these safe to ignore? Setup: %s." % gpus,
                "Not sure if this is a bug: the job finishes fine on %s but prints errors/warnings during startup and "
                "at exit. Pasting the output." % gpus])
        elif c == "straggler":
            intro = "Training on %s is much slower than expected (%.1f s/it, I expected ~%.1f s/it from single-node " \
                    "runs). No errors. Is this a known DDP/NCCL perf issue?" % (gpus, self.step_time * self.slow_factor,
                                                                                self.step_time)
        else:
            intro = rng.choice([
                "My multi-%s job on %s crashes after ~%.1f h. Output below (NCCL_DEBUG=%s)." % (
                    "node" if self.nn > 1 else "GPU", gpus, max(0.1, hours), self.nccl_debug or "unset"),
                "Training dies at step %d with the error below. It happened twice now, at different steps. Any "
                "idea what is going on?" % self.fail_step,
                "I get the following error when training with torchrun on %s. It worked fine for ~%d steps." % (
                    gpus, self.fail_step)])
        body = ["### 🐛 Describe the bug", "", intro, ""]
        if self.nn > 1:
            body += ["Launched on each node with:", "", "```", self.torchrun_cmd(0).replace("--node_rank=0", "--node_rank=$NODE_RANK"),
                     "```", ""]
        for n, cut in pastes:
            lab = "Output on `%s` (node_rank %d):" % (self.hosts[n], n) if self.nn > 1 else "Output:"
            body += [lab, "", "```", self.txt(cut).rstrip("\n"), "```", ""]
        extra = []
        if hwc or (c == "network" and self.cnode is not None and rng.random() < 0.5) or \
                (c == "host_oom_kill" and (self.variant == "direct" or rng.random() < 0.6)) or \
                (c == "crash_signal" and self.variant != "bus" and rng.random() < 0.6) or \
                (c in ("unknown", None) and rng.random() < 0.25):
            n = self.cnode if self.cnode is not None else rng.randrange(self.nn)
            if hwc and rng.random() < 0.3:
                ls = self.nvsmi_table(n, self.t_fail + rng.uniform(120, 1800))
                extra += ["`nvidia-smi` on `%s` after the crash:" % self.hosts[n], "", "```"]
                extra += [x.text for x in self.take(ls)] + ["```", ""]
            else:
                style = rng.choice(["dmesg_T", "dmesg_T", "journal"])
                ls = self.kernel_tail(n, style, rng.randrange(6, 20),
                                      filt=self.hw_filter if rng.random() < 0.7 else None)
                cmd = "sudo dmesg -T | grep -iE 'nvrm|xid|mlx5|oom|segfault' | tail" if style == "dmesg_T" else \
                    "journalctl -k --since today | tail -n 20"
                extra += ["`%s` on `%s`:" % (cmd, self.hosts[n]), "", "```"]
                extra += [x.text for x in self.take(ls)] + ["```", ""]
        if (c == "hang" and self.variant == "pyspy") or (c == "data_loader_stall" and self.variant == "pyspy"):
            r = self.culprit
            extra += ["I ran `py-spy dump` on every rank while it was stuck. All of them sit in "
                      "`synchronize`/`item` except local rank %d on `%s` (global rank %d):" % (
                          self.lrank(r), self.hosts[self.node_of(r)], r), "", "```"]
            extra += [x.text for x in self.take(self.pyspy(r, self.t_fail + 300))] + ["```", ""]
        if c == "straggler" and (self.variant == "megatron" or rng.random() < 0.4):
            n = self.cnode
            extra += ["`nvidia-smi -q -d PERFORMANCE,TEMPERATURE` on `%s` during the run:" % self.hosts[n], "", "```"]
            extra += [x.text for x in self.take(self.nvsmi_q(n, self.t_fail - 600, ["PERF", "TEMP"]))] + ["```", ""]
        body += extra
        body += ["### Versions", "", self.collect_env(), ""]
        body.append("cc @%s" % " @".join(rng.sample(["H-Huang", "awgu", "kwen2501", "wanchaol", "fegin", "fduwjj",
                                                     "wz337", "wconstab", "d4l3k", "c-p-i-o"], 4)))
        return {"issue.md": "\n".join(body) + "\n"}

    # ------------------------------------------------------------------ layout 2: one rank's log + one node artifact
    def printed_ranks(self, exclude=None):
        out = [x for x in range(self.world) if x != exclude and self.dead_at(x) is None and
               self.fate(x) not in ("sigterm", "blocked", "stuck")]
        return out or [x for x in range(self.world) if x != exclude] or [0]

    def render_single_rank(self):
        rng = self.rrng(0, "L2")
        c, v = self.cause, self.variant
        if c == "collective_mismatch" and v == "opdiff":
            self.variant = v = rng.choice(["detail", "ddp"])
            if v == "ddp":
                self.fail_step = 0
                self.t_fail = self.t_train0 - 3
                self.seq_fail = 2
            self.dist_debug_detail = v == "detail"
            self.notes.append("opdiff re-dealt to %s for single-rank layout" % v)
        if c == "straggler" and v == "per_rank":
            self.variant = v = "slowest"
        hwc = c in ("gpu_hardware", "ecc_memory", "nvlink")
        aux = None
        auxnode = None
        if c in ("python_exception", "cuda_oom", "illegal_memory_access", "collective_mismatch") or \
                (c == "data_loader_stall" and v in ("dltimeout", "sigint")) or (c == "hang" and v == "sigint") or \
                (c == "host_oom_kill" and v == "dlworker"):
            r = self.culprit
            if c == "collective_mismatch" and rng.random() < 0.5:
                r = rng.choice(self.printed_ranks(self.culprit))
            aux = rng.choice(["dmesg", "nvsmi", None])
        elif hwc:
            if rng.random() < 0.5:
                r = self.culprit
            else:
                r = rng.choice(self.printed_ranks(self.culprit))
            aux = rng.choice(["dmesg", "dmesg", "journal", "nvsmi"]) if c != "nvlink" else rng.choice(
                ["dmesg", "journal", "nvlink"])
            if aux == "nvsmi" and c == "gpu_hardware" and v not in ("xid79", "xid154"):
                aux = "dmesg"
            auxnode = self.cnode
        elif c == "network":
            r = rng.choice(sorted(self.netfail))
            aux = "dmesg" if self.cnode is not None and rng.random() < 0.6 else None
            auxnode = self.cnode if self.cnode is not None else self.node_of(r)
        elif c in ("host_oom_kill", "crash_signal"):
            if c == "crash_signal" and v == "segv_fh" and rng.random() < 0.6:
                r = self.culprit
            else:
                r = rng.choice(self.printed_ranks(self.culprit))
            aux = "dmesg" if not (c == "crash_signal" and v == "bus") else None
            if c == "crash_signal" and v == "bus":
                r = self.culprit
        elif c == "preemption":
            r = rng.randrange(self.world)
            aux = "journal_all"
            auxnode = 0 if self.cnode is None else self.cnode
        elif c in ("hang", "data_loader_stall"):
            r = rng.choice(self.printed_ranks(self.culprit))
            aux = "pyspy" if v == "pyspy" else None
        elif c == "straggler":
            r = self.printer() if v == "slowest" else self.printer()
            aux = "nvsmi_perf" if v == "megatron" or rng.random() < 0.3 else None
        elif self.healthy:
            r = 0 if "tb" in self.hd else (self.printer() if "oom" in self.hd else rng.choice(self.printed_ranks()))
            aux = "dmesg" if "xid" in self.hd or rng.random() < 0.3 else None
            if aux:
                auxnode = self.decoy_node() if self.decoy_node() is not None else self.node_of(r)
        else:
            r = rng.choice(self.printed_ranks())
            aux = rng.choice(["dmesg", "dmesg", None])
        if aux in ("dmesg", "nvsmi", "journal") and not (hwc or c in ("network", "host_oom_kill", "crash_signal")) \
                and auxnode is None:
            auxnode = self.node_of(r) if rng.random() < 0.7 else rng.randrange(self.nn)
        elif aux in ("dmesg", "journal") and c in ("host_oom_kill", "crash_signal"):
            auxnode = self.cnode
        elif aux in ("nvsmi_perf",):
            auxnode = self.cnode
        files = {}
        n = self.node_of(r)
        lines = self.flatten(self.rank_lines(r, True), "file")
        fname = rng.choice(["rank%d.log" % r, "%s_rank%d.log" % (self.hosts[n], r), "train_rank%02d.txt" % r,
                            "attempt_0_%d_stderr.log" % self.lrank(r), "log_%d.txt" % r])
        # attempt_0/<local_rank>/stderr.log names only the local rank
        rank_named = fname.startswith(("rank", "train_rank", "log_")) or "_rank" in fname
        host_named = self.hosts[n] in fname
        lines = self.take(lines, rank_ctx=rank_named)
        files[fname] = self.txt(lines)
        if self.healthy:
            note0 = ["Training finished fine, but the logs are full of warnings/errors like the ones attached. Are they "
                     "something to worry about?"]
        elif v == "sigint" and c in ("hang", "data_loader_stall"):
            note0 = ["Training got stuck at step %d (no progress for ~%d min, GPU util 0%% everywhere) so I pressed "
                     "Ctrl-C." % (self.fail_step, int((self.t_int() - self.t_fail) / 60))]
        else:
            note0 = []
        note = note0 + ["Attaching the log of one worker (%s%s)%s." % (
            "global rank %d" % r if rank_named else "local rank %d" % self.lrank(r),
            "" if host_named else ", node `%s`" % self.hosts[n],
            "" if self.healthy else " -- the others look the same up to the point where they die"),
                "Job: %d nodes x %d GPUs (%s), torch %s, NCCL %s." % (self.nn, self.gpn, self.G["name"], self.torch,
                                                                      self.nccl)]
        if aux in ("dmesg", "journal", "journal_all"):
            style = {"dmesg": rng.choice(["dmesg_T", "dmesg_raw"]), "journal": "journal", "journal_all": "journal"}[aux]
            ls = self.kernel_tail(auxnode, style, rng.randrange(18, 40))
            an = "%s_%s.txt" % ({"dmesg_T": "dmesg", "dmesg_raw": "dmesg", "journal": "journalctl"}[style],
                                self.hosts[auxnode])
            files[an] = self.txt(self.take(ls))
            note.append("`%s` is from `%s`." % (an, self.hosts[auxnode]))
        elif aux == "nvsmi" or aux == "nvsmi_perf":
            auxnode = auxnode if aux == "nvsmi_perf" or hwc else self.node_of(r)
            ls = self.nvsmi_q(auxnode, self.t_fail + rng.uniform(60, 3000) if aux == "nvsmi" else self.t_fail - 900,
                              ["ECC", "REMAP"] if aux == "nvsmi" else ["PERF", "TEMP"])
            an = "nvidia-smi-q_%s.txt" % self.hosts[auxnode]
            files[an] = self.txt(self.take(ls))
            note.append("nvidia-smi -q from `%s` %s." % (self.hosts[auxnode], "after the crash" if aux == "nvsmi"
                                                         else "while training"))
        elif aux == "nvlink":
            an = "nvlink_status_%s.txt" % self.hosts[auxnode]
            files[an] = self.txt(self.take(self.nvlink_status(auxnode, self.t_fail + 600)))
            note.append("`nvidia-smi nvlink -s` on `%s`." % self.hosts[auxnode])
        elif aux == "pyspy":
            cr = self.culprit
            an = rng.choice(["pyspy_rank%d.txt" % cr, "py-spy-dump-%s-%d.txt" % (self.hosts[self.node_of(cr)], self.pid(cr))])
            ls = self.pyspy(cr, self.t_fail + 400)
            if an.startswith("pyspy_rank"):
                self.take(ls)
            else:
                self.take([L(x.t, x.text) for x in ls])
            files[an] = self.txt(ls)
            note.append("While it was stuck I dumped the one process whose GPU util was 0%%: `%s`." % an)
        files["comment.md"] = "\n".join(note) + "\n"
        return files

    # ------------------------------------------------------------------ layout 3: slurm-<jobid>.out + sacct
    def nodelist(self, idxs=None):
        hs = [self.hosts[i] for i in (idxs if idxs is not None else range(self.nn))]
        m = [re.match(r"^(.*?)(\d+)$", h) for h in hs]
        if all(m) and len({x.group(1) for x in m}) == 1:
            pre = m[0].group(1)
            w = len(m[0].group(2))
            nums = sorted(int(x.group(2)) for x in m)
            rngs, s = [], nums[0]
            prev = s
            for x in nums[1:] + [None]:
                if x is not None and x == prev + 1:
                    prev = x
                    continue
                rngs.append(("%0*d" % (w, s)) if s == prev else ("%0*d-%0*d" % (w, s, w, prev)))
                if x is not None:
                    s = prev = x
            if len(nums) == 1:
                return hs[0]
            return "%s[%s]" % (pre, ",".join(rngs))
        return ",".join(hs)

    @staticmethod
    def ranges(nums):
        nums = sorted(nums)
        out, s, p = [], None, None
        for x in nums + [None]:
            if s is None:
                s = p = x
                continue
            if x is not None and x == p + 1:
                p = x
                continue
            out.append(str(s) if s == p else "%d-%d" % (s, p))
            s = p = x
        return ",".join(out)

    def sigdesc(self, code):
        return {1: "Exited with exit code 1", -6: "Aborted (core dumped)", -11: "Segmentation fault (core dumped)",
                -9: "Killed", -7: "Bus error (core dumped)"}.get(code, "Exited with exit code %d" % code)

    def render_slurm(self):
        rng = self.rrng(0, "L3")
        c, v = self.cause, self.variant
        jobid = self.jobid()
        per_gpu = self.srun_mode == "per_gpu"
        ntasks = self.world if per_gpu else self.nn
        width = len(str(ntasks - 1))
        off = self.local_tz
        body = []
        t0 = self.t0 - 2
        hdr = ["+ export MASTER_ADDR=%s" % self.master, "+ MASTER_ADDR=%s" % self.master,
               "+ export MASTER_PORT=%d" % self.port, "+ MASTER_PORT=%d" % self.port,
               "SLURM_JOB_ID=%d SLURM_JOB_NODELIST=%s SLURM_NNODES=%d SLURM_NTASKS=%d" % (
                   jobid, self.nodelist(), self.nn, ntasks),
               dtu(t0, off).strftime("%a %b %d %H:%M:%S ") + self.tzname() + dtu(t0, off).strftime(" %Y")]
        if self.nccl_debug:
            hdr.insert(4, "+ export NCCL_DEBUG=%s" % self.nccl_debug)
        if self.desync:
            hdr.insert(4, "+ export TORCH_NCCL_DESYNC_DEBUG=1")
        if self.dist_debug_detail:
            hdr.insert(4, "+ export TORCH_DISTRIBUTED_DEBUG=DETAIL")
        body += [L(t0 + i * 1e-3, x) for i, x in enumerate(hdr)]
        lab = lambda k: "%*d: " % (width, k)
        merged = []
        if per_gpu:
            sample = self.rank_sample()
            det = set(sample[:16]) | ({self.culprit} if self.culprit is not None else set())
            if self.cnode is not None:
                det |= set(range(self.cnode * self.gpn, (self.cnode + 1) * self.gpn))
            for r in sample:
                for x in self.flatten(self.rank_lines(r, r in det), "file"):
                    merged.append(L(x.t + self.skew[self.node_of(r)] * 0, lab(r) + x.text if x.text else lab(r),
                                    x.tags))
        else:
            for n in range(self.nn):
                cons = self.flatten(self.node_console(n, detail=(n in (0, self.cnode) or self.nn <= 8)), "file")
                for x in cons:
                    merged.append(L(x.t, lab(n) + x.text, x.tags))
        merged.sort(key=lambda x: x.t)
        body += merged
        # slurm's own messages
        tail = []
        host0 = self.hosts[0]
        exits = []
        if per_gpu:
            for r in range(self.world):
                code, tt = self.t_exit(r)
                if code is not None:
                    exits.append((r, code, tt))
        else:
            for n in range(self.nn):
                ex = [self.t_exit(r) for r in range(n * self.gpn, (n + 1) * self.gpn)]
                ex = [e for e in ex if e[0] is not None]
                if ex:
                    exits.append((n, 1, min(e[1] for e in ex) + rng.uniform(2, 6)))
        exits.sort(key=lambda e: e[2])
        ts = lambda t: ts_slurm(t, off)
        if c == "preemption":
            tp = self.t_fail
            tail += [L(tp, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (
                jobid, host0, ts(tp)), ("N",)),
                     L(tp + 0.2, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."),
                     L(tp + 0.3, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (
                         jobid, host0, ts(tp)), ("N",))]
        elif c == "straggler" and self.strag_end == "killed":
            tp = self.t_fail
            tail += [L(tp, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (
                jobid, host0, ts(tp))),
                     L(tp + 0.2, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."),
                     L(tp + 0.3, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (
                         jobid, host0, ts(tp)))]
        elif exits:
            first = exits[0]
            if c == "host_oom_kill":
                tail.append(L(first[2] + 0.5, "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of "
                                              "the step tasks have been OOM Killed." % jobid, ("N",)))
            groups = {}
            killed_after = self.kill_on_bad_exit
            for (k, code, tt) in exits:
                if killed_after and tt > first[2] + 5:
                    continue
                node = self.node_of(k) if per_gpu else k
                desc = self.sigdesc(code)
                if c == "host_oom_kill" and per_gpu and k == self.culprit and v == "direct":
                    desc = "Out Of Memory"
                groups.setdefault((node, desc), []).append((k, tt))
            for (node, desc), ks in sorted(groups.items(), key=lambda g: min(x[1] for x in g[1])):
                tt = max(x[1] for x in ks) + (rng.uniform(0.1, 0.4) if killed_after else rng.uniform(0.5, 3))
                nums = [x[0] for x in ks]
                tags = ("R",) if (per_gpu and self.culprit in nums and len(nums) == 1 and
                                  self.fate(self.culprit) == "culprit") else ()
                tail.append(L(tt, "srun: error: %s: task%s %s: %s" % (self.hosts[node], "s" if len(nums) > 1 else "",
                                                                      self.ranges(nums), desc), tags))
            if killed_after:
                tk = first[2] + rng.uniform(0.6, 2)
                tail += [L(tk, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."),
                         L(tk + 0.1, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (
                             jobid, host0, ts(tk)))]
                rest = [k for k in (range(self.world) if per_gpu else range(self.nn)) if k not in
                        [e[0] for e in exits if e[2] <= first[2] + 5]]
                byn = {}
                for k in rest:
                    byn.setdefault(self.node_of(k) if per_gpu else k, []).append(k)
                for node, ks in sorted(byn.items()):
                    tail.append(L(tk + 1 + node * 0.01, "srun: error: %s: task%s %s: Terminated" % (
                        self.hosts[node], "s" if len(ks) > 1 else "", self.ranges(ks))))
                tail.append(L(tk + 2, "srun: Terminating StepId=%d.0" % jobid))
        dl = self.stuck_deadline()
        if dl:
            tail += [L(dl, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (
                jobid, host0, ts(dl))),
                     L(dl + 0.2, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."),
                     L(dl + 0.3, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (
                         jobid, host0, ts(dl))),
                     L(dl + 1.5, "srun: error: %s: task %d: Terminated" % (self.hosts[self.cnode], self.culprit))]
        tail.sort(key=lambda x: x.t)
        body += tail
        body = self.snip_wave(body, 750000, rng)
        body = self.take(body, rank_ctx=per_gpu)
        files = {"slurm-%d.out" % jobid: self.txt(body)}
        # sacct
        end = (body[-1].t if body else self.t_fail) + 3
        el = end - self.t0
        if self.healthy or (c == "straggler" and self.strag_end == "finish"):
            st, ec, st0, ec0 = "COMPLETED", "0:0", "COMPLETED", "0:0"
        elif c == "preemption":
            st, ec, st0, ec0 = "PREEMPTED", "0:0", "CANCELLED", "0:15"
        elif c == "straggler" or dl:
            st, ec, st0, ec0 = "TIMEOUT", "0:0", "CANCELLED", "0:15"
        elif c == "host_oom_kill":
            st, ec, st0, ec0 = "OUT_OF_MEMORY", "0:125", "OUT_OF_MEMORY", "0:125"
        else:
            st, ec, st0, ec0 = "FAILED", "1:0", "FAILED" if not self.kill_on_bad_exit else "CANCELLED", \
                               "1:0" if not self.kill_on_bad_exit else "0:9"
        h = int(el) // 3600
        elapsed = "%02d:%02d:%02d" % (h, (int(el) % 3600) // 60, int(el) % 60) if h < 24 else \
            "%d-%02d:%02d:%02d" % (h // 24, h % 24, (int(el) % 3600) // 60, int(el) % 60)
        nl = self.nodelist()
        w = max(15, len(nl) + 1)
        rows = [("JobID", "JobName", "Partition", "State", "ExitCode", "Elapsed", "NodeList")]
        part = rng.choice(["gpu", "batch", {"a100": "a100", "a100_40": "a100", "h100": "h100-long"}.get(self.gpu, "gpu")])
        rows.append(("%d" % jobid, self.proj[:10], part, st, ec, elapsed, nl))
        rows.append(("%d.batch" % jobid, "batch", "", st0 if st != "COMPLETED" else "COMPLETED",
                     ec if st != "PREEMPTED" else "0:15", elapsed, self.hosts[0]))
        rows.append(("%d.extern" % jobid, "extern", "", "COMPLETED", "0:0", elapsed, nl))
        rows.append(("%d.0" % jobid, "python" if per_gpu else "torchrun", "", st0, ec0, elapsed, nl))
        wid = [12, 10, 10, 13, 8, 10, w]
        out = [" ".join(("%*s" % (wid[i], x)) if i != 0 else ("%-*s" % (wid[i], x)) for i, x in enumerate(rows[0])),
               " ".join("-" * x for x in wid)]
        for row in rows[1:]:
            out.append(" ".join(("%-*s" % (wid[i], x)) if i in (0,) else ("%*s" % (wid[i], x)) for i, x in enumerate(row)))
        files["sacct.txt"] = "$ sacct -j %d --format=JobID,JobName,Partition,State,ExitCode,Elapsed,NodeList%%%d\n" % (
            jobid, w) + "\n".join(out) + "\n"
        if rng.random() < 0.6:
            files["job.sbatch"] = self.sbatch(jobid)
        hwc = c in ("gpu_hardware", "ecc_memory", "nvlink")
        if hwc or (c == "network" and self.cnode is not None and rng.random() < 0.6) or \
                (c in ("unknown", None) and rng.random() < 0.3):
            if rng.random() < 0.55:
                rows = [("REASON", "USER", "TIMESTAMP", "NODELIST")]
                tr = ts(self.t_fail + rng.uniform(120, 900))
                if self.cnode is not None and c != "network":
                    reason = {"gpu_hardware": "nhc: GPU %s gone (xid)", "ecc_memory": "nhc: GPU %s row remap pending",
                              "nvlink": "nhc: GPU %s NVLink down"}[c] % self.bus(self.culprit).upper() if hwc else ""
                    rows.append((reason, "root", tr, self.hosts[self.cnode]))
                elif c == "network" and self.cnode is not None:
                    rows.append(("nhc: ib port mlx5_%d down" % self.bad_hca_local, "root", tr, self.hosts[self.cnode]))
                other = "gpu-maint-%02d" % rng.randrange(1, 40) if not self.hosts[0][-1].isdigit() else \
                    self.hosts[0][:-2] + "%02d" % rng.randrange(60, 99)
                rows.append((rng.choice(["bad PSU, ticket INC0%d" % rng.randrange(10 ** 5, 10 ** 6), "reboot",
                                         "Not responding", "Kill task failed"]), rng.choice(["root", "slurm"]),
                             ts(self.t0 - rng.uniform(3600, 86400 * 5)), other))
                self.decoys.append("unrelated drained node %s in sinfo -R" % other)
                lines = ["$ sinfo -R"] + ["%-40s %-9s %-19s %s" % r for r in rows]
                ls = [L(0, x, ("B2",) if (hwc and i == 2) else (("N",) if i == 2 else ())) for i, x in enumerate(lines)]
                files["sinfo_R.txt"] = self.txt(self.take(ls))
            else:
                n = self.cnode if self.cnode is not None else rng.randrange(self.nn)
                ls = self.kernel_tail(n, "dmesg_T", rng.randrange(15, 35))
                files["dmesg_%s.txt" % self.hosts[n]] = self.txt(self.take(ls))
        elif c == "straggler" and self.variant == "megatron":
            n = self.cnode
            files["nvidia-smi_%s.txt" % self.hosts[n]] = self.txt(self.take(self.nvsmi_q(n, self.t_fail - 1200,
                                                                                         ["PERF", "TEMP"])))
        elif (c in ("hang", "data_loader_stall") and v == "pyspy"):
            r = self.culprit
            ls = self.pyspy(r, self.t_fail + 500)
            files["pyspy_task%d.txt" % (r if per_gpu else self.node_of(r))] = self.txt(
                self.take(ls) if per_gpu else [L(x.t, x.text) for x in ls])
            if not per_gpu:
                # torchrun mode: user says which local rank
                files["pyspy_note.txt"] = "py-spy dump of local rank %d on %s (the only process at 0%% GPU util)\n" % (
                    self.lrank(r), self.hosts[self.node_of(r)])
                self.take([L(0, "", ("R",))])
        return files

    def tzname(self):
        return {0: "UTC", -7: "PDT", -4: "EDT", -5: "CDT", 1: "CET", 2: "CEST", 8: "CST", 5.5: "IST", 9: "JST"}.get(
            self.local_tz, "UTC")

    def stuck_deadline(self):
        """slurm per-task launch without --kill-on-bad-exit: a silently stuck task keeps the step alive."""
        if not (self.layout == "slurm_out" and self.srun_mode == "per_gpu" and not self.kill_on_bad_exit):
            return None
        if self.culprit is None or self.fate(self.culprit) != "stuck":
            return None
        last = max(self.t_exit(r)[1] or 0 for r in range(self.world))
        h = int((last - self.t0) // 3600) + 1 + self.rrng(0, "dl").randrange(0, 6)
        return self.t0 + h * 3600 + 2

    def slurm_limit(self):
        if self.cause == "straggler" and self.strag_end == "killed":
            m = int((self.t_fail - self.t0) // 60) + 1
            return "%02d:%02d:00" % (m // 60, m % 60)
        if self.stuck_deadline():
            h = int((self.stuck_deadline() - self.t0) // 3600)
            return "%02d:00:00" % h
        return self.rrng(0, "tl").choice(["24:00:00", "48:00:00", "12:00:00", "2-00:00:00"])

    def sbatch(self, jobid):
        rng = self.rrng(0, "sb")
        per_gpu = self.srun_mode == "per_gpu"
        lines = ["#!/bin/bash", "#SBATCH --job-name=%s" % self.proj, "#SBATCH --nodes=%d" % self.nn,
                 "#SBATCH --ntasks-per-node=%d" % (self.gpn if per_gpu else 1),
                 "#SBATCH --gpus-per-node=%d" % self.gpn, "#SBATCH --cpus-per-task=%d" % (
                     rng.choice([8, 12, 16]) if per_gpu else rng.choice([64, 96, 128])),
                 "#SBATCH --time=%s" % self.slurm_limit(),
                 "#SBATCH --output=slurm-%j.out", "#SBATCH --exclusive", ""]
        if self.gpu_bind_one and per_gpu:
            lines.insert(5, "#SBATCH --gpus-per-task=1")
        lines += ["export MASTER_ADDR=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n 1)",
                  "export MASTER_PORT=%d" % self.port]
        if self.nccl_debug:
            lines.append("export NCCL_DEBUG=%s" % self.nccl_debug)
        lines.append("")
        kb = " --kill-on-bad-exit=1" if self.kill_on_bad_exit else ""
        if per_gpu:
            lines.append("srun --label%s python -u %s --config configs/%s.yaml" % (kb, self.script, self.proj))
        else:
            lines.append("srun --label%s torchrun --nnodes=$SLURM_NNODES --nproc_per_node=%d --rdzv_backend=c10d "
                         "--rdzv_endpoint=$MASTER_ADDR:$MASTER_PORT %s --config configs/%s.yaml" % (
                             kb, self.gpn, self.script, self.proj))
        return "\n".join(lines) + "\n"

    # ------------------------------------------------------------------ layout 4: Windows/notebook-ish CRLF paste
    def ansi_decorate(self, x, rng):
        t = x.text
        if x.src == "bar":
            return t
        if x.src == "prog":
            d = dtu(x.t, self.log_off)
            return "\x1b[32m%s.%03d\x1b[0m | \x1b[1mINFO    \x1b[0m | \x1b[36m__main__\x1b[0m:\x1b[36mtrain\x1b[0m:" \
                   "\x1b[36m%d\x1b[0m - \x1b[1m%s\x1b[0m" % (d.strftime("%Y-%m-%d %H:%M:%S"), frac_ns(x.t) // 1000000,
                                                          212, t.split("] ", 1)[-1])
        if "Warning:" in t and ("UserWarning" in t or "FutureWarning" in t):
            return "\x1b[33m" + t + "\x1b[0m"
        if t.startswith("WARNING:") or t.startswith("wandb: WARNING"):
            return "\x1b[33m" + t + "\x1b[0m"
        if "wandb:" in t:
            return t.replace("wandb:", "\x1b[34m\x1b[1mwandb\x1b[0m:")
        return t

    def render_windows(self):
        rng = self.rrng(0, "L4")
        c, v = self.cause, self.variant
        color = rng.random() < 0.7
        wrapw = rng.choice([None, 120, 160, 200])
        files = {}
        out = []
        for n in range(self.nn):
            if self.nn > 1:
                out.append(L(self.t0 - 2, "===== %s (node_rank %d) =====" % (self.hosts[n], n)))
            lines = self.node_console(n)
            if c == "preemption":
                k = self.first_err_idx(lines)
                lines = lines[:k] + self.wall_msg(n) + lines[k:]
            lines = self.flatten(lines, "file")
            pr = L(self.t0 - 1, self.shell_prompt(n, self.torchrun_cmd(n) if self.fw != "hf" or rng.random() < 0.5 else
                                                  "accelerate launch --multi_gpu --num_processes %d %s" % (
                                                      self.gpn, self.script), color))
            out.append(pr)
            cut, topcut = self.paste_cut(lines, rng, top=rng.random() < 0.5, bottom=rng.random() < 0.4)
            if topcut:
                out.append(L(cut[0].t, "..."))
            out += cut
            if c == "preemption":
                out.append(L(self.t_fail + 32, "Connection to %s closed by remote host." % self.ips[n], ("N",)))
        # after the crash, the user types more commands into the same terminal
        hwc = c in ("gpu_hardware", "ecc_memory", "nvlink")
        n = self.cnode if self.cnode is not None else 0
        if c != "preemption":
            if hwc or (c == "straggler" and rng.random() < 0.6) or (c in (None, "unknown") and rng.random() < 0.5) or \
                    (c in ("cuda_oom",) and rng.random() < 0.5):
                tt = self.t_fail + 60 if c != "straggler" else self.t_fail - 300
                out.append(L(tt, self.shell_prompt(n, "nvidia-smi", color)))
                out += self.nvsmi_table(n, tt)
            if hwc and (c == "nvlink" or rng.random() < 0.5 or (c == "gpu_hardware" and v not in ("xid79", "xid154"))) \
                    or c in ("host_oom_kill", "network") or \
                    (c == "crash_signal" and v != "bus" and rng.random() < 0.7):
                tt = self.t_fail + 90
                out.append(L(tt, self.shell_prompt(n, "sudo dmesg -T | tail -n 25", color)))
                out += self.kernel_tail(n, "dmesg_T", 25)
            if (c in ("hang", "data_loader_stall") and v == "pyspy"):
                r = self.culprit
                tt = self.t_fail + 200
                out.append(L(tt, self.shell_prompt(self.node_of(r), "sudo py-spy dump --pid %d   # local rank %d, "
                                                                    "the one at 0%% util" % (self.pid(r), self.lrank(r)),
                                                   color), ("R",)))
                out += self.pyspy(r, tt)
        self.take(out)
        txt = []
        for x in out:
            s = self.ansi_decorate(x, rng) if color else x.text
            if wrapw and len(s) > wrapw and "\r" not in s:
                while len(s) > wrapw:
                    txt.append(s[:wrapw])
                    s = s[wrapw:]
            txt.append(s)
        files[rng.choice(["output.txt", "log.txt", "error.txt", "console_output.txt"])] = "\r\n".join(txt) + "\r\n"
        return files

    # ------------------------------------------------------------------ layout 5: deepspeed over pdsh / openmpi tags
    def render_launcher(self):
        rng = self.rrng(0, "L5")
        c, v = self.cause, self.variant
        flavor = self.flavor
        self.ompi_job = rng.randrange(10000, 60000)
        files = {}
        off = self.log_off
        ts = lambda t: "[%s]" % ts_bracket_ms(t, off)
        t = self.t0 - 3
        head = [L(t, "%s [INFO] [real_accelerator.py:203:get_accelerator] Setting ds_accelerator to cuda (auto detect)" % ts(t))]
        hostlist = ",".join(self.hosts)
        if flavor == "pdsh":
            head += [L(t + 1, "%s [INFO] [runner.py:463:main] Using IP address of %s for node %s" % (
                ts(t + 1), self.ips[0], self.hosts[0])),
                     L(t + 1, "%s [INFO] [multinode_runner.py:80:get_cmd] Running on the following workers: %s" % (
                         ts(t + 1), hostlist)),
                     L(t + 1, "%s [INFO] [runner.py:568:main] cmd = pdsh -S -f 1024 -w %s export PYTHONPATH=%s; "
                              " cd %s; %s -u -m deepspeed.launcher.launch --world_info=%s --node_rank=%%n "
                              "--master_addr=%s --master_port=%d %s --deepspeed --deepspeed_config ds_config.json" % (
                                  ts(t + 1), hostlist, self.work, self.work, self.pybin,
                                  "eyJ" + "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
                                                  for _ in range(40)) + "fQ==", self.ips[0], self.port, self.script))]
        else:
            head += [L(t + 1, "%s [INFO] [runner.py:568:main] cmd = mpirun -n %d -hostfile hostfile --mca btl ^openib "
                              "--mca btl_tcp_if_include eth0 --tag-output -x UCX_TLS=tcp -x NCCL_DEBUG=%s %s -u %s "
                              "--deepspeed --deepspeed_config ds_config.json" % (
                                  ts(t + 1), self.world, self.nccl_debug or "WARN", self.pybin, self.script))]
        merged = []
        sample = set(self.rank_sample())
        det_nodes = {0, self.cnode} if self.nn > 8 else set(range(self.nn))
        for n in range(self.nn):
            node_lines = []
            if flavor == "pdsh":
                node_lines += self.ds_lines(n)
            for r in range(n * self.gpn, (n + 1) * self.gpn):
                if r not in sample and self.nn > 8:
                    continue
                rl = self.flatten(self.rank_lines(r, n in det_nodes), "file")
                if flavor == "openmpi":
                    rl = [L(x.t, "[1,%d]<%s>:%s" % (r, self.stream_of(x), x.text), x.tags) for x in rl]
                node_lines += rl
            if flavor == "pdsh":
                node_lines = [L(x.t, "%s: %s" % (self.hosts[n], x.text), x.tags) for x in node_lines]
            merged += node_lines
        merged.sort(key=lambda x: x.t)
        tail = []
        if flavor == "pdsh":
            for n in range(self.nn):
                local = range(n * self.gpn, (n + 1) * self.gpn)
                if c == "preemption" and self.cnode == n:
                    tail.append(L(self.t_fail + 1, "pdsh@%s: %s: ssh exited with exit code 255" % (
                        self.hosts[0], self.hosts[n])))
                    continue
                ex = [self.t_exit(r) + (r,) for r in local]
                ex = [e for e in ex if e[0] is not None]
                if ex:
                    e = min(ex, key=lambda e: e[1])
                    code = e[0] if e[0] > 0 else 256 + e[0]
                    tail.append(L(e[1] + rng.uniform(1, 4), "pdsh@%s: %s: ssh exited with exit code %d" % (
                        self.hosts[0], self.hosts[n], code)))
        else:
            exits = sorted([(self.t_exit(r)[1], r, self.t_exit(r)[0]) for r in range(self.world)
                            if self.t_exit(r)[0] is not None])
            if exits:
                tt, r, code = exits[0]
                tags = ("R",) if r == self.culprit and self.fate(r) == "culprit" else ()
                tail += [L(tt + 1, "-" * 74), L(tt + 1, "Primary job  terminated normally, but 1 process returned"),
                         L(tt + 1, "a non-zero exit code. Per user-direction, the job has been aborted."),
                         L(tt + 1, "-" * 74), L(tt + 2, "-" * 74)]
                if code > 0:
                    tail += [L(tt + 2, "mpirun detected that one or more processes exited with non-zero status, thus "
                                       "causing"), L(tt + 2, "the job to be terminated. The first process to do so was:"),
                             L(tt + 2, ""), L(tt + 2, "  Process name: [[%d,1],%d]" % (self.ompi_job, r),
                                              tags),
                             L(tt + 2, "  Exit code:    %d" % code)]
                else:
                    sn = {6: "Aborted", 11: "Segmentation fault", 9: "Killed", 7: "Bus error"}[-code]
                    tail += [L(tt + 2, "mpirun noticed that process rank %d with PID %d on node %s exited on signal %d "
                                       "(%s)." % (r, self.pid(r), self.hosts[self.node_of(r)], -code, sn), tags)]
                tail.append(L(tt + 2, "-" * 74))
            elif c == "preemption":
                tail += [L(self.t_fail + 3, "-" * 74),
                         L(self.t_fail + 3, "ORTE has lost communication with a remote daemon."), L(self.t_fail + 3, ""),
                         L(self.t_fail + 3, "  HNP daemon   : [[%d,0],0] on node %s" % (self.ompi_job, self.hosts[0])),
                         L(self.t_fail + 3, "  Remote daemon: [[%d,0],%d] on node %s" % (
                             self.ompi_job, self.cnode or 1, self.hosts[self.cnode or 1])),
                         L(self.t_fail + 3, ""),
                         L(self.t_fail + 3, "This is usually due to either a failure of the TCP network"),
                         L(self.t_fail + 3, "connection to the node, or possibly an internal failure of"),
                         L(self.t_fail + 3, "the daemon itself. We cannot recover from this failure, and"),
                         L(self.t_fail + 3, "therefore will terminate the job."), L(self.t_fail + 3, "-" * 74)]
        body = head + merged + sorted(tail, key=lambda x: x.t)
        body = self.snip_wave(body, 700000, rng)
        self.take(body, rank_ctx=(flavor == "openmpi"))
        files["deepspeed_launch.log" if flavor == "pdsh" else "mpirun_output.log"] = self.txt(body)
        files["hostfile"] = "\n".join("%s slots=%d" % (h, self.gpn) for h in self.hosts) + "\n"
        if rng.random() < 0.5:
            files["ds_config.json"] = json.dumps({
                "train_micro_batch_size_per_gpu": rng.choice([1, 2, 4]), "gradient_accumulation_steps": rng.choice([1, 4, 8]),
                "bf16": {"enabled": True}, "zero_optimization": {"stage": rng.choice([1, 2, 3]), "overlap_comm": True,
                                                                 "contiguous_gradients": True},
                "gradient_clipping": 1.0, "steps_per_print": self.log_every * 2, "wall_clock_breakdown": False},
                indent=2) + "\n"
        hwc = c in ("gpu_hardware", "ecc_memory", "nvlink")
        if hwc or c in ("host_oom_kill",) or (c == "network" and self.cnode is not None) or \
                (c == "crash_signal" and v != "bus") or (c in (None, "unknown") and rng.random() < 0.35):
            pat = "xid|nvrm" if hwc or c in (None, "unknown") else ("mlx5" if c == "network" else
                                                                      ("oom|killed process" if c == "host_oom_kill"
                                                                       else "segfault"))
            lines = ["$ pdsh -w %s 'sudo dmesg -T | grep -iE \"%s\" | tail -n 5' | sort" % (self.nodelist(), pat)]
            ls = []
            for n in range(self.nn):
                ks = self.kernel_tail(n, "dmesg_T", 5, filt=lambda m: any(
                    p.strip('"').lower() in m.lower() for p in pat.split("|")))
                ls += [L(x.t, "%s: %s" % (self.hosts[n], x.text), x.tags) for x in ks]
            ls.sort(key=lambda x: x.text.split(":")[0])
            files["dmesg_all_nodes.txt"] = "\n".join(lines) + "\n" + self.txt(self.take(ls))
        if c == "preemption":
            n = self.cnode if self.cnode is not None else 1
            tp = self.t_fail - 25
            zone = rng.choice(["us-central1-a", "us-east4-b", "europe-west4-c"])
            row = "%-62s %-28s %-44s %-11s %-6s %s" % (
                "systemevent-%d-%x-%08x-%08x" % (int(tp) * 1000, rng.randrange(16 ** 13), rng.randrange(16 ** 8),
                                                 rng.randrange(16 ** 8)),
                "compute.instances.preempted", "%s/instances/%s" % (zone, self.hosts[n]), "200", "DONE",
                dtu(tp, self.local_tz).strftime("%Y-%m-%dT%H:%M:%S.000") + ("%+03d:00" % int(self.local_tz)))
            hdr = "%-62s %-28s %-44s %-11s %-6s %s" % ("NAME", "TYPE", "TARGET", "HTTP_STATUS", "STATUS", "TIMESTAMP")
            files["gcloud_operations.txt"] = "$ gcloud compute operations list --filter=\"operationType=" \
                                             "compute.instances.preempted\"\n%s\n%s\n" % (hdr, row)
            self.take([L(0, row, ("N",))])
        if c in ("hang", "data_loader_stall") and v == "pyspy":
            r = self.culprit
            ls = self.pyspy(r, self.t_fail + 400)
            files["pyspy_%s_localrank%d.txt" % (self.hosts[self.node_of(r)], self.lrank(r))] = self.txt(self.take(ls))
        if c == "straggler" and (v == "megatron" or rng.random() < 0.3):
            n = self.cnode
            files["nvidia-smi-q_%s.txt" % self.hosts[n]] = self.txt(self.take(self.nvsmi_q(n, self.t_fail - 900,
                                                                                           ["PERF", "TEMP"])))
        return files

    @staticmethod
    def stream_of(x):
        t = x.text
        if x.src == "bar" or t.startswith(("[rank", "Traceback", "  ", "terminate called", "Exception raised", "frame #",
                                           "/", "\t", "Fatal Python", "Thread 0x", "Current thread", "Extension modules",
                                           "WARNING:", "wandb:", "urllib3", "The above exception", "KeyboardInterrupt",
                                           "ncclRemoteError", "ncclSystemError", "Last error", "NET/IB", "socketProgress",
                                           "CUDA kernel errors", "For debugging", "Compile with")) or \
                (":" in t.split(" ")[0] and "Error" in t.split(" ")[0]):
            return "stderr"
        return "stdout"

    # ------------------------------------------------------------------ layout 6: kubectl logs of several pods
    def render_k8s(self):
        rng = self.rrng(0, "L6")
        c, v = self.cause, self.variant
        ns = rng.choice(["ml-team", "training", "default", "research", "kubeflow-user"])
        pods = [0]
        if self.cnode is not None and self.cnode not in pods:
            pods.append(self.cnode)
        if self.node_of(self.printer()) not in pods and (c == "straggler" or rng.random() < 0.5):
            pods.append(self.node_of(self.printer()))
        if c == "network":
            for r in sorted(self.netfail):
                if self.node_of(r) not in pods and len(pods) < 3:
                    pods.append(self.node_of(r))
        others = [n for n in range(self.nn) if n not in pods]
        pods += rng.sample(others, min(len(others), rng.choice([0, 1, 2])))
        if self.nn <= 3:
            pods = list(range(self.nn))
        pods = sorted(set(pods))
        if rng.random() < 0.3 and self.cnode not in (None, 0) and c in ("gpu_hardware", "ecc_memory", "nvlink") and \
                len(pods) > 1:
            pods.remove(self.cnode)   # user attached the wrong pods
            self.notes.append("culprit pod's log not attached")
        sep = rng.choice(["==> %s <==", "--- %s ---", "########## kubectl logs -n %s %%s ##########" % ns,
                          "$ kubectl logs %s"])
        stamps = rng.random() < 0.3
        out = []
        for n in pods:
            out.append(L(0, ""))
            out.append(L(0, sep % self.hosts[n]))
            lines = self.flatten(self.node_console(n), "file")
            if c == "host_oom_kill" and n == self.cnode and self.k8s_oom_whole():
                # the container's memory cgroup killed everything, the agent never got to print its summary
                lines = [x for x in lines if x.t < self.t_fail + 0.5]
            if len(lines) > 3000:
                lines = lines[:200] + [L(lines[200].t, "...")] + lines[-2500:]
            for x in lines:
                txt = x.text
                if stamps:
                    d = dtu(x.t + self.skew[n])
                    txt = "%s.%09dZ %s" % (d.strftime("%Y-%m-%dT%H:%M:%S"), frac_ns(x.t), txt)
                out.append(L(x.t, txt, x.tags))
        self.take(out)
        files = {"pod_logs.txt": self.txt(out).lstrip("\n")}
        # kubectl get pods -o wide
        gp = ["NAME%s READY   STATUS      RESTARTS   AGE   IP            NODE%s NOMINATED NODE   READINESS GATES" % (
            " " * (len(self.hosts[0]) - 3), " " * (max(len(k) for k in self.knodes) - 3))]
        age = human_age(max(self.t_fail, self.t0 + 60) + 600 - self.t0)
        for n in range(self.nn):
            st = "Completed" if self.healthy or (c == "straggler" and self.strag_end == "finish") else "Error"
            if c == "host_oom_kill" and n == self.cnode and self.k8s_oom_whole():
                st = "OOMKilled"
            if c == "preemption" and n == self.cnode:
                st = "Terminated"
            gp.append("%-*s 0/1     %-11s %-10s %-5s %-13s %-*s <none>           <none>" % (
                len(self.hosts[0]) + 1, self.hosts[n], st, "0", age, self.pod_ips[n],
                max(len(k) for k in self.knodes) + 1, self.knodes[n]))
        if rng.random() < 0.7:
            files["get_pods.txt"] = "$ kubectl get pods -n %s -o wide\n" % ns + "\n".join(gp) + "\n"
        # describe
        dpods = []
        if self.cnode is not None and (rng.random() < 0.8 or c == "preemption"):
            dpods.append(self.cnode)
        if not dpods or rng.random() < 0.3:
            dpods.append(0 if 0 not in dpods else (pods[-1]))
        desc = []
        for n in sorted(set(dpods)):
            desc += self.describe_pod(n, ns, rng) + [""]
        files["describe_pod.txt"] = "\n".join(desc)
        hwc = c in ("gpu_hardware", "ecc_memory", "nvlink")
        if hwc or (c == "network" and self.cnode is not None and rng.random() < 0.6) or \
                (c == "crash_signal" and v != "bus" and rng.random() < 0.5) or (c in (None, "unknown") and rng.random() < 0.3):
            n = self.cnode if self.cnode is not None else rng.randrange(self.nn)
            hdr = "$ kubectl debug node/%s -it --image=ubuntu -- chroot /host dmesg -T | tail -n 30" % self.knodes[n]
            ls = self.kernel_tail(n, "dmesg_T", 30, host=self.knodes[n])
            files["node_dmesg.txt"] = hdr + "\n" + self.txt(self.take(ls))
            self._filename_hosts = [self.knodes[n]]
        if c in ("hang", "data_loader_stall") and v == "pyspy":
            r = self.culprit
            ls = self.pyspy(r, self.t_fail + 420)
            files["pyspy.txt"] = "$ kubectl exec -n %s %s -- py-spy dump --pid %d   # local rank %d, GPU util 0%%\n" % (
                ns, self.hosts[self.node_of(r)], self.pid(r), self.lrank(r)) + self.txt(self.take(ls))
        if c == "straggler" and (v == "megatron" or rng.random() < 0.3):
            n = self.cnode
            files["nvidia-smi.txt"] = "$ kubectl exec -n %s %s -- nvidia-smi -q -d PERFORMANCE,TEMPERATURE\n" % (
                ns, self.hosts[n]) + self.txt(self.take(self.nvsmi_q(n, self.t_fail - 900, ["PERF", "TEMP"])))
        return files

    def k8s_oom_whole(self):
        """cgroup OOM took the whole container (pod OOMKilled) vs only one worker (agent survives)."""
        return self.cause == "host_oom_kill" and self.variant == "direct" and self.rrng(0, "oomw").random() < 0.5

    def describe_pod(self, n, ns, rng):
        c = self.cause
        pod = self.hosts[n]
        rtype = "master" if n == 0 else "worker"
        ridx = 0 if n == 0 else n - 1
        img = rng.choice(["nvcr.io/nvidia/pytorch:24.05-py3", "pytorch/pytorch:%s-cuda%s-cudnn9-runtime" % (
            self.torch.split("+")[0], self.cuda), "us-docker.pkg.dev/acme-ml/train/%s:%s" % (
            self.proj, "".join(rng.choice("0123456789abcdef") for _ in range(7)))])
        start = self.t0 - rng.uniform(60, 400)
        fin = None
        reason, code, status, msg = "Error", 1, "Failed", None
        ex = [self.t_exit(r) for r in range(n * self.gpn, (n + 1) * self.gpn)]
        ex = [e for e in ex if e[0] is not None]
        fin = (min(e[1] for e in ex) + rng.uniform(2, 6)) if ex else self.t_fail + rng.uniform(2, 40)
        if self.healthy or (c == "straggler" and self.strag_end == "finish"):
            reason, code, status = "Completed", 0, "Succeeded"
            fin = self.step_t(self.total_steps) + 10
        elif c == "host_oom_kill" and n == self.cnode and self.k8s_oom_whole():
            reason, code = "OOMKilled", 137
            fin = self.t_fail + 0.5
        elif c == "preemption" and n == self.cnode:
            reason, code, status = "Error", 143, "Failed"
            msg = "Pod was terminated in response to imminent node shutdown."
            fin = self.t_fail + 31
        elif c == "straggler":
            reason, code = "Error", 130 if self.strag_end == "sigint" else 143
        lines = ["Name:             %s" % pod, "Namespace:        %s" % ns, "Priority:         0",
                 "Service Account:  default", "Node:             %s/%s" % (self.knodes[n], "10.%d.0.%d" % (
                     rng.randrange(120, 130), rng.randrange(2, 250))),
                 "Start Time:       %s" % ts_k8s(start),
                 "Labels:           training.kubeflow.org/job-name=%s" % self.kjob,
                 "                  training.kubeflow.org/operator-name=pytorchjob-controller",
                 "                  training.kubeflow.org/replica-index=%d" % ridx,
                 "                  training.kubeflow.org/replica-type=%s" % rtype,
                 "Annotations:      <none>", "Status:           %s" % status]
        if msg:
            lines += ["Reason:           Terminated", "Message:          %s" % msg]
        lines += ["IP:               %s" % self.pod_ips[n], "IPs:", "  IP:           %s" % self.pod_ips[n],
                  "Controlled By:  PyTorchJob/%s" % self.kjob, "Containers:", "  pytorch:",
                  "    Container ID:  containerd://%s" % "".join(rng.choice("0123456789abcdef") for _ in range(64)),
                  "    Image:         %s" % img, "    Port:          %d/TCP" % self.port, "    Host Port:     0/TCP",
                  "    Command:", "      torchrun", "    Args:", "      --nnodes=%d" % self.nn,
                  "      --nproc_per_node=%d" % self.gpn, "      --rdzv_backend=c10d",
                  "      --rdzv_endpoint=%s:%d" % (self.hosts[0], self.port), "      %s" % self.script,
                  "    State:          Terminated", "      Reason:       %s" % reason, "      Exit Code:    %d" % code,
                  "      Started:      %s" % ts_k8s(start + 20), "      Finished:     %s" % ts_k8s(fin),
                  "    Ready:          False", "    Restart Count:  0", "    Limits:",
                  "      memory:          %dGi" % rng.choice([512, 900, 1200]),
                  "      nvidia.com/gpu:  %d" % self.gpn, "    Requests:", "      cpu:             %d" % rng.choice([48, 90, 180]),
                  "      memory:          %dGi" % rng.choice([512, 900, 1200]), "      nvidia.com/gpu:  %d" % self.gpn,
                  "    Environment:", "      PYTHONUNBUFFERED:  1"]
        if self.nccl_debug:
            lines.append("      NCCL_DEBUG:        %s" % self.nccl_debug)
        lines += ["      PET_NNODES:        %d" % self.nn, "      PET_NODE_RANK:     %d" % n,
                  "    Mounts:", "      /dev/shm from dshm (rw)", "      /data from dataset (ro)",
                  "Conditions:", "  Type              Status", "  Initialized       True ",
                  "  Ready             False ", "  ContainersReady   False ", "  PodScheduled      True ",
                  "QoS Class:                   Burstable",
                  "Node-Selectors:              cloud.google.com/gke-accelerator=%s" % (
                      "nvidia-h100-80gb" if self.gpu == "h100" else "nvidia-a100-80gb"),
                  "Tolerations:                 nvidia.com/gpu:NoSchedule op=Exists",
                  "                             node.kubernetes.io/not-ready:NoExecute op=Exists for 300s",
                  "Events:"]
        now = max(fin, self.t_fail) + rng.uniform(300, 3000)
        ev = [("Normal", "Scheduled", now - start, "default-scheduler",
               "Successfully assigned %s/%s to %s" % (ns, pod, self.knodes[n])),
              ("Normal", "Pulled", now - start - 5, "kubelet", 'Container image "%s" already present on machine' % img),
              ("Normal", "Created", now - start - 6, "kubelet", "Created container pytorch"),
              ("Normal", "Started", now - start - 7, "kubelet", "Started container pytorch")]
        tags = []
        if c == "preemption" and n == self.cnode:
            ev += [("Warning", "NodeShutdown", now - self.t_fail + 1, "kubelet",
                    "Pod was terminated in response to imminent node shutdown."),
                   ("Normal", "Killing", now - self.t_fail, "kubelet", "Stopping container pytorch"),
                   ("Warning", "NodeNotReady", now - self.t_fail - 40, "node-controller", "Node is not ready")]
        if c == "host_oom_kill" and n == self.cnode and not self.k8s_oom_whole():
            ev.append(("Warning", "OOMKilling", now - self.t_fail, "kernel-monitor",
                       "Memory cgroup out of memory: Killed process %d (python)" % (
                           self.pid(self.culprit) if self.variant == "direct" else self.dl_worker_pid(self.culprit))))
        if rng.random() < 0.3:
            ev.append(("Warning", "FailedMount", now - start + 20, "kubelet",
                       'MountVolume.SetUp failed for volume "kube-api-access-%s" : object "%s"/"kube-root-ca.crt" not '
                       'registered' % ("".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(5)), ns)))
            self.decoys.append("benign FailedMount event")
        lines += ["  Type     Reason        Age   From               Message",
                  "  ----     ------        ----  ----               -------"]
        for (ty, rs, age, frm, m) in sorted(ev, key=lambda e: -e[2]):
            lines.append("  %-8s %-13s %-5s %-18s %s" % (ty, rs, human_age(max(1, age)), frm, m))
        ls = [L(0, x, ("N",) if ("imminent node shutdown" in x or "OOMKill" in x) else ()) for x in lines]
        self.take(ls)
        return lines

    # ------------------------------------------------------------------ truth
    def rank_inferable(self):
        t = self.tags
        if self.truth_rank() is None:
            return False
        if t.get("R"):
            return True
        if t.get("B1") and t.get("B2"):
            return True
        if t.get("P1") and t.get("P2"):
            return True
        ms = [k for k in t if k.startswith("M:")]
        if self.cause == "collective_mismatch":
            if self.variant in ("detail", "ddp") and len(ms) >= 2:
                return True
            if self.variant == "opdiff" and t.get("M1") and len(ms) >= 3:
                return True
        return False

    def truth_rank(self):
        if self.cause in (None, "network", "preemption", "unknown"):
            return None
        return self.culprit

    def truth_node(self, blob):
        if self.cnode is None:
            return None, []
        if self.cause == "preemption" and self.layout not in ("launcher_pdsh", "k8s_pods"):
            return None, []
        host = self.hosts[self.cnode]
        als = list(self.aliases[self.cnode])
        if self.layout == "k8s_pods":
            als = [self.knodes[self.cnode], self.pod_ips[self.cnode]]
        cands = [host] + als
        for cnd in cands:
            if cnd in blob:
                return cnd, [a for a in cands if a != cnd]
        return None, []

    def render(self):
        fn = {"torchrun_issue": self.render_torchrun_issue, "single_rank_paste": self.render_single_rank,
              "slurm_out": self.render_slurm, "windows_paste": self.render_windows,
              "launcher_pdsh": self.render_launcher, "k8s_pods": self.render_k8s}[self.layout]
        files = fn()
        blob = "\n".join(list(files.keys()) + list(files.values()))
        node, als = self.truth_node(blob)
        c = self.cause
        drain = bool(c in DRAIN_CAUSES or (c == "network" and self.cnode is not None))
        if node is None and drain:
            # drain needs a node; every hardware rendering names the host somewhere
            node = self.hosts[self.cnode]
            als = list(self.aliases[self.cnode])
            self.notes.append("host not spelled in files")
        rank = self.truth_rank()
        inf = self.rank_inferable()
        vdesc = {
            None: "healthy run (finishes)",
            "gpu_hardware": "GPU hardware fault (%s) on culprit's GPU; culprit CUDA error, others collateral" % self.variant,
            "ecc_memory": "uncorrectable ECC (%s) on culprit's GPU" % self.variant,
            "nvlink": "NVLink fatal error (Xid 74) on culprit's GPU (%s)" % self.variant,
            "network": "network failure (%s, %s)" % (self.variant, "one node: HCA mlx5_%s link down" % self.bad_hca_local
                                                     if self.cnode is not None else "fabric-wide, several nodes"),
            "cuda_oom": "CUDA OOM in %s on culprit" % self.variant,
            "illegal_memory_access": "illegal memory access on culprit (%s)" % self.variant,
            "python_exception": "python exception on culprit (%s)" % PY_EXCEPTIONS[self.variant][1][0][:40]
            if isinstance(self.variant, int) else "python exception",
            "host_oom_kill": "host OOM killer killed culprit (%s)" % self.variant,
            "crash_signal": "culprit died by signal (%s)" % self.variant,
            "preemption": "preemption (%s)" % self.variant,
            "hang": "culprit silently stuck (%s); others time out" % self.variant,
            "data_loader_stall": "culprit's DataLoader stalled (%s)" % self.variant,
            "collective_mismatch": "culprit called a different collective (%s)" % self.variant,
            "straggler": "culprit %.1fx slower (%s), job %s" % (self.slow_factor, self.variant,
                                                               getattr(self, "strag_end", "")),
            "unknown": "all ranks fail with no initiator evidence (%s)" % self.variant,
        }[c]
        notes = "world=%d (%d nodes x %d %s); torch %s, NCCL %s; launcher/fw=%s; NCCL_DEBUG=%s; timeout=%ds; %s" % (
            self.world, self.nn, self.gpn, self.G["name"], self.torch, self.nccl, self.fw, self.nccl_debug,
            int(self.T), vdesc)
        if self.notes:
            notes += "; " + "; ".join(self.notes)
        dec = sorted(set(self.decoys))
        if dec:
            notes += "; decoys: " + ", ".join(dec)
        truth = {"cause": c, "healthy": self.healthy, "rank": rank, "node": node, "drain": drain,
                 "rank_inferable": bool(inf), "node_aliases": als, "layout": self.layout, "notes": notes}
        return files, truth


# ----------------------------------------------------------------------------- driver
def plan(n, seed):
    rng = random.Random("blind17-plan|%s" % seed)
    order = CAUSES[:]
    rng.shuffle(order)
    causes, k = [], 0
    for i in range(n):
        if i % 7 == 3:
            causes.append(None)
        else:
            causes.append(order[k % len(order)])
            k += 1
    lays = []
    while len(lays) < n:
        b = LAYOUTS[:]
        rng.shuffle(b)
        lays += b
    return causes, lays[:n]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args(argv)
    causes, lays = plan(a.n, a.seed)
    os.makedirs(a.out, exist_ok=True)
    counts = {}
    for i in range(a.n):
        sim = Sim(a.seed, i, lays[i], causes[i])
        files, truth = sim.render()
        d = os.path.join(a.out, "run-%03d-%s" % (i, lays[i]))
        if os.path.isdir(d):
            for old in os.listdir(d):
                if os.path.isfile(os.path.join(d, old)):
                    os.remove(os.path.join(d, old))
        os.makedirs(d, exist_ok=True)
        total = 0
        for name in sorted(files):
            data = files[name].encode("utf-8")
            total += len(data)
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
        with open(os.path.join(d, "truth.json"), "w") as f:
            json.dump(truth, f, indent=2, sort_keys=True)
            f.write("\n")
        if total > 1000000:
            print("WARNING: %s is %d bytes" % (d, total), file=sys.stderr)
        key = truth["cause"] or "healthy"
        counts[key] = counts.get(key, 0) + 1
    print(json.dumps(dict(sorted(counts.items())), indent=None))


if __name__ == "__main__":
    main()
