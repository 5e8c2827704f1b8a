#!/usr/bin/env python3
"""blind60 - "memory in all its forms": a blind log-bundle generator.

Writes run folders of synthetic distributed-training failures and healthy runs
whose common thread is memory: CUDA OOM in its many spellings, host OOM kills,
shared memory, GPU memory hardware, leaks, fragmentation, and the collateral
they cause on the other ranks, plus the non-memory causes in the same setting.

    python3 gen_blind60.py --out DIR --n 60 --seed S

Standard library only; deterministic per seed.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import shutil
import sys
from dataclasses import dataclass, field

CAUSES = [
    "gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
    "illegal_memory_access", "python_exception", "host_oom_kill", "crash_signal",
    "preemption", "hang", "data_loader_stall", "collective_mismatch", "straggler",
    "unknown",
]
LAYOUTS = ["slurm", "torchrun", "k8s", "deepspeed", "paste"]

# --------------------------------------------------------------------------
# software eras: what a given stack prints
# --------------------------------------------------------------------------
ERAS = [
    dict(name="1.13", torch="1.13.1+cu117", nccl="2.14.3", cuda="11.7", py="3.8",
         rankpfx=False, glog="old", oom=1, timeout=1800000, pg="", fr=False,
         oomexc="RuntimeError", cudaexc="RuntimeError", agent="old", ncclts=False,
         driver="515.65.01"),
    dict(name="2.1", torch="2.1.2+cu121", nccl="2.18.1", cuda="12.1", py="3.10",
         rankpfx=False, glog="nots", oom=2, timeout=1800000, pg="", fr=False,
         oomexc="torch.cuda.OutOfMemoryError", cudaexc="RuntimeError", agent="old",
         ncclts=False, driver="535.104.05"),
    dict(name="2.3", torch="2.3.1+cu121", nccl="2.20.5", cuda="12.1", py="3.10",
         rankpfx=True, glog="ranknots", oom=3, timeout=600000, pg="[PG 0 Rank {r}]",
         fr=False, oomexc="torch.cuda.OutOfMemoryError", cudaexc="RuntimeError",
         agent="new", ncclts=False, driver="535.161.08"),
    dict(name="2.5", torch="2.5.1+cu124", nccl="2.21.5", cuda="12.4", py="3.11",
         rankpfx=True, glog="full", oom=3, timeout=600000,
         pg="[PG ID 0 PG GUID 0(default_pg) Rank {r}]", fr=False,
         oomexc="torch.OutOfMemoryError", cudaexc="RuntimeError", agent="new",
         ncclts=False, driver="550.90.07"),
    dict(name="2.7", torch="2.7.1+cu128", nccl="2.26.2", cuda="12.8", py="3.12",
         rankpfx=True, glog="full", oom=3, timeout=600000,
         pg="[PG ID 0 PG GUID 0(default_pg) Rank {r}]", fr=True,
         oomexc="torch.OutOfMemoryError", cudaexc="torch.AcceleratorError",
         agent="new", ncclts=True, driver="570.133.20"),
    dict(name="2.9", torch="2.9.0+cu129", nccl="2.27.7", cuda="12.9", py="3.12",
         rankpfx=True, glog="full", oom=3, timeout=600000,
         pg="[PG ID 0 PG GUID 0(default_pg) Rank {r}]", fr=True,
         oomexc="torch.OutOfMemoryError", cudaexc="torch.AcceleratorError",
         agent="new", ncclts=True, driver="580.82.07"),
    dict(name="2.13", torch="2.13.0+cu130", nccl="2.29.2", cuda="13.0", py="3.12",
         rankpfx=True, glog="full", oom=3, timeout=600000,
         pg="[PG ID 0 PG GUID 0(default_pg) Rank {r}]", fr=True,
         oomexc="torch.OutOfMemoryError", cudaexc="torch.AcceleratorError",
         agent="new", ncclts=True, driver="580.159.04"),
]

GPUS = [
    dict(model="NVIDIA H100 80GB HBM3", cap=79.11, bus=["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"], dom="0000"),
    dict(model="NVIDIA A100-SXM4-80GB", cap=79.15, bus=["07", "0f", "47", "4e", "87", "90", "b7", "bd"], dom="0000"),
    dict(model="NVIDIA A100-SXM4-40GB", cap=39.39, bus=["07", "0f", "47", "4e", "87", "90", "b7", "bd"], dom="0000"),
    dict(model="NVIDIA H200", cap=139.72, bus=["19", "3b", "4c", "5d", "9b", "bb", "cb", "db"], dom="0000"),
    dict(model="NVIDIA GB200", cap=184.0, bus=["01", "01", "01", "01"], dom="0008"),
]

# --------------------------------------------------------------------------
# host names (varied on purpose)
# --------------------------------------------------------------------------


def host_pool(rng: random.Random, n: int, layout: str) -> list[str]:
    if layout == "k8s":
        style = rng.choice(["gke", "eks", "aks", "plain"])
        out = []
        used: list[str] = []
        for i in range(n):
            while True:
                if style == "gke":
                    h = "gke-a3-mega-gpu-np-%s-%s" % (
                        rng.choice(["7f3c2a1b", "b81e09d4", "4c2d7a90"]),
                        "".join(rng.choice("abcdefghjkmnpqrstvwxz23456789") for _ in range(4)))
                elif style == "eks":
                    h = "ip-10-%d-%d-%d.ec2.internal" % (rng.randint(0, 3), rng.randint(0, 255), rng.randint(2, 254))
                elif style == "aks":
                    h = "aks-ndh100-%d-vmss%06x" % (rng.choice([31298715, 20458811]), rng.randint(0, 4095))
                else:
                    h = "node-gpu-h100-%02d" % rng.randint(1, 96)
                if h not in used:
                    used.append(h)
                    out.append(h)
                    break
        return out
    style = rng.choice(["gpu-a", "dgx", "node", "nid", "hgx", "cn", "awsip", "gn"])
    base = rng.randint(1, 400)
    out = []
    for i in range(n):
        k = base + i
        if style == "gpu-a":
            out.append("gpu-%s%03d" % (rng.choice("ab") if i == 0 else out[0][4], k))
        elif style == "dgx":
            out.append("dgx-h100-%03d" % k)
        elif style == "node":
            out.append("node%04d" % k)
        elif style == "nid":
            out.append("nid%06d" % (1000 + k))
        elif style == "hgx":
            out.append("hgx-r%02d-u%02d" % (1 + k // 8, 2 + 4 * (k % 8)))
        elif style == "cn":
            out.append("cn-g%03d" % k)
        elif style == "awsip":
            out.append("ip-172-31-%d-%d" % (16 + k // 200, 10 + k % 200))
        else:
            out.append("gn%03d" % k)
    return out


# --------------------------------------------------------------------------
# lines and the run model
# --------------------------------------------------------------------------


@dataclass
class L:
    t: float                 # true time (seconds since epoch)
    text: str
    tags: tuple = ()         # "init", "pid:H:P", "pidmap:H:P:R", "xid:H:B", "busmap:H:B:R"
    rv: bool = False         # the text itself names the origin rank
    hv: bool = False         # the text itself names the origin host


@dataclass
class Exit:
    t: float
    code: int                # 0 ok, 1 exception, negative = killed by signal


def fmt_bytes_gib(x: float) -> str:
    if x >= 1.0:
        return "%.2f GiB" % x
    return "%.2f MiB" % (x * 1024)


class Run:
    def __init__(self, rng: random.Random, idx: int, layout: str, cause: str | None, req: dict | None = None):
        req = req or {}
        self.rng = rng
        self.idx = idx
        self.layout = layout
        self.cause = cause
        self.healthy = cause is None
        self.notes = ""
        self.init_rank: int | None = None
        self.init_host: str | None = None
        self.want_rank = False     # truth asks for rank if evidence survives
        self.want_host = False
        era_w = [1, 2, 3, 4, 3, 2, 2]
        self.era = rng.choices(ERAS, weights=era_w)[0]
        self.gpu = rng.choices(GPUS, weights=[5, 3, 1, 2, 0])[0]
        if "gpu" in req:
            self.gpu = GPUS[req["gpu"]]
            if self.gpu["model"] == "NVIDIA GB200":
                self.era = rng.choice(ERAS[4:])
        size = rng.choices([2, 4, 8, 16, 32, 64, 128, 256, 512, 1024],
                           weights=[2, 3, 4, 4, 5, 5, 4, 3, 2, 2])[0]
        if layout == "paste" and size > 256:
            size = rng.choice([16, 64, 256])
        if "max_world" in req:
            size = min(size, req["max_world"])
        gpn = 8 if size >= 8 else size
        if self.gpu["model"] == "NVIDIA GB200":
            gpn = min(4, size)
        if size >= 8 and rng.random() < 0.12 and self.gpu["model"] != "NVIDIA GB200":
            gpn = 4
        if req.get("min_gpn", 1) > gpn:
            gpn = req["min_gpn"]
            size = max(size, gpn)
        if req.get("min_nodes", 1) * gpn > size:
            size = req["min_nodes"] * gpn
        if req.get("one_node"):
            size = gpn
        self.world = size
        self.gpn = gpn
        self.nnodes = max(1, size // gpn)
        self.hosts = host_pool(rng, self.nnodes, layout)
        self.skew = {h: 0.0 for h in self.hosts}
        for h in self.hosts:
            r = rng.random()
            if r < 0.45:
                self.skew[h] = 0.0
            elif r < 0.85:
                self.skew[h] = round(rng.uniform(-3.0, 3.0), 3)
            else:
                self.skew[h] = round(rng.uniform(-95.0, 95.0), 3)
        self.boot = {h: rng.uniform(2e5, 3e6) for h in self.hosts}
        start = dt.datetime(2024, 1, 8, tzinfo=dt.timezone.utc).timestamp()
        self.t0 = start + rng.uniform(0, 1000 * 86400)
        self.t0 = float(int(self.t0)) + rng.random()
        self.pids = {}
        pid_base = {h: rng.randint(3000, 3_900_000) for h in self.hosts}
        for r in range(self.world):
            h = self.host_of(r)
            self.pids[r] = pid_base[h] + 3 + self.local_of(r) * rng.randint(1, 3) + (self.local_of(r) * 7)
        self.agent_pid = {h: pid_base[h] for h in self.hosts}
        self.kpid = dict(self.pids)
        if layout == "k8s":
            for h in self.hosts:
                self.agent_pid[h] = rng.choice([1, 7, 8, 13])
            for r in range(self.world):
                self.pids[r] = self.agent_pid[self.host_of(r)] + 20 + self.local_of(r) * rng.randint(2, 4) + self.local_of(r)
        self.nccl_debug = rng.random() < 0.6
        self.timeout_ms = self.era["timeout"]
        if rng.random() < 0.25:
            self.timeout_ms = rng.choice([600000, 1800000, 3600000, 900000])
        self.step_time = round(rng.uniform(0.35, 9.0), 3)
        self.job_id = rng.randint(100000, 9999999)
        self.model = rng.choice(["llama-8b", "llama3-70b-sft", "mixtral-8x7b-pt", "gpt-neox-20b",
                                 "vit-h14-pretrain", "qwen2-7b-dpo", "t5-xxl-ft", "sdxl-unet-ft",
                                 "mistral-7b-cpt", "deit-b-distill", "dit-xl-2"])
        self.script = rng.choice(["train.py", "pretrain_gpt.py", "run_clm.py", "main.py",
                                  "train_sft.py", "fsdp_train.py", "finetune.py"])
        self.workdir = rng.choice(["/workspace", "/home/%s/proj" % rng.choice(["ajones", "mli", "tkumar", "svc-train"]),
                                   "/mnt/lustre/%s/run" % rng.choice(["llm", "vision", "research"]),
                                   "/opt/ml/code", "/scratch/%s/%s" % (rng.choice(["kw2231", "rpatel"]), "exp")])
        self.site = "/usr/local/lib/python%s/dist-packages" % self.era["py"] if rng.random() < 0.5 else \
            "/opt/conda/lib/python%s/site-packages" % self.era["py"]
        self.rank_lines: dict[int, list[L]] = {}
        self.kern: dict[str, list[L]] = {}
        self.agent: dict[str, list[L]] = {}
        self.sched: list[L] = []
        self.extra: dict[str, list[L]] = {}
        self.exits: dict[int, Exit] = {}
        self.node_reason: dict[str, str] = {}      # k8s pod termination reason per host
        self.k8s_events: list[tuple[float, str, str, str, str]] = []  # t, type, reason, object, msg
        self.featured: list[int] = []
        self.t_end = self.t0
        self.attempts = 1
        self.restarted_ok = False
        self.extra_ctx: dict[str, tuple[int | None, str | None]] = {}   # extra file -> (rank, host) shown
        self.scancel = None
        self.slurm_reason = None   # e.g. "PREEMPTION", "TIME LIMIT"
        self.slurm_oom_event: str | None = None
        self.k8s_limits_gi = rng.choice([256, 400, 640, 900, 1200])
        self.paste_blocks: list[tuple[str, list[L], int | None, str | None]] = []
        self.dl_workers = rng.choice([2, 4, 6, 8, 10, 12])
        self.pod: dict[str, str] = {}
        self.kjob = ""
        if layout == "k8s":
            self.kjob = rng.choice(["llm-pretrain", "sft-run", "pt-job", "mm-train", "dpo"]) + "-" + \
                "".join(rng.choice("0123456789abcdef") for _ in range(5))
            kind = rng.choice(["pytorchjob", "jobset", "indexed"])
            self.kkind = kind
            for i, h in enumerate(self.hosts):
                if kind == "pytorchjob":
                    self.pod[h] = "%s-master-0" % self.kjob if i == 0 else "%s-worker-%d" % (self.kjob, i - 1)
                elif kind == "jobset":
                    self.pod[h] = "%s-workers-0-%d-%s" % (self.kjob, i, "".join(rng.choice("bcdfghjklmnpqrstvwxz") for _ in range(5)))
                else:
                    self.pod[h] = "%s-%d-%s" % (self.kjob, i, "".join(rng.choice("bcdfghjklmnpqrstvwxz") for _ in range(5)))
        self.slurm_kob = layout == "slurm" and rng.random() < 0.45
        self.slurm_torchrun = layout == "slurm" and rng.random() < 0.3
        self.per_node_agent = layout in ("torchrun", "k8s", "deepspeed") or self.slurm_torchrun
        self._src: dict[str, int] = {}
        self.total_steps = 0
        self.last_step = 0
        self.shm_small = False
        self.oomd_journal = False
        self.unk_hide: list[str] = []
        self.k137 = False
        self.map_ok = False
        self.podmap: dict[str, bool] = {}
        self.rdzv: dict[str, bool] = {}
        self.banner_style = 3
        self.memlog_style = 0
        self.prog_style = "kv"
        self.mem_peak = 60.0
        self.mem_base = 40.0
        self.logstyle = rng.randrange(4)
        self.logname = rng.choice(["train", "__main__", "trainer", "root", "llm.train"])
        self.t_train = self.t0 + rng.uniform(45, 240)

    def src(self, key: str, choices: list) -> int:
        """A source line number that stays fixed within one run (one binary per job)."""
        if key not in self._src:
            self._src[key] = self.rng.choice(choices)
        return self._src[key]

    def driver_major(self) -> int:
        return int(self.era["driver"].split(".")[0])

    # ---- topology ----
    def host_of(self, r: int) -> str:
        return self.hosts[min(r // self.gpn, self.nnodes - 1)]

    def local_of(self, r: int) -> int:
        return r % self.gpn

    def node_index(self, h: str) -> int:
        return self.hosts.index(h)

    def ranks_on(self, h: str) -> list[int]:
        i = self.node_index(h)
        return list(range(i * self.gpn, min(self.world, (i + 1) * self.gpn)))

    def bus(self, r: int) -> str:
        b = self.gpu["bus"]
        return b[self.local_of(r) % len(b)]

    def pci(self, r: int) -> str:
        if self.gpu["model"] == "NVIDIA GB200":
            return "%s:%02x:00" % ("%04d" % (8 + self.local_of(r)), 1)
        return "%s:%s:00" % (self.gpu["dom"], self.bus(r))

    def nccl_busid(self, r: int) -> str:
        if self.gpu["model"] == "NVIDIA GB200":
            return "%d001000" % (8 + self.local_of(r))
        return "%x000" % int(self.bus(r), 16)

    def bus_key(self, r: int) -> str:
        return self.pci(r)

    # ---- time formatting (host-local clocks) ----
    def lt(self, h: str | None, t: float) -> dt.datetime:
        s = self.skew.get(h, 0.0) if h else 0.0
        return dt.datetime.fromtimestamp(t + s, dt.timezone.utc)

    def ts_py(self, h, t) -> str:
        d = self.lt(h, t)
        return d.strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (d.microsecond // 1000)

    def ts_iso(self, h, t) -> str:
        return self.lt(h, t).strftime("%Y-%m-%dT%H:%M:%S")

    def ts_glog(self, h, t) -> str:
        d = self.lt(h, t)
        ns = d.microsecond * 1000 + self.rng.randint(0, 999)
        return d.strftime("%m%d %H:%M:%S") + ".%09d" % ns

    def ts_glog_us(self, h, t) -> str:
        d = self.lt(h, t)
        return d.strftime("%m%d %H:%M:%S") + ".%06d" % d.microsecond

    # ---- emitters ----
    def rl(self, r: int, t: float, text: str, tags=(), rv=False, hv=False) -> None:
        self.rank_lines.setdefault(r, []).append(L(t, text, tuple(tags), rv, hv))
        if r not in self.featured:
            self.featured.append(r)

    def rpfx(self, r: int) -> str:
        return "[rank%d]: " % r if self.era["rankpfx"] else ""

    def tb(self, r: int, t: float, lines: list[str], tags=(), key_last: int = 1) -> None:
        """An uncaught exception's stderr lines on rank r; the last key_last lines are tagged."""
        n = len(lines)
        for i, s in enumerate(lines):
            tg = tags if i >= n - key_last else ()
            self.rl(r, t + i * 1e-4, self.rpfx(r) + s, tg, rv=self.era["rankpfx"])

    def glog(self, r: int, t: float, lvl: str, src: str, msg: str, tags=()) -> None:
        h = self.host_of(r)
        g = self.era["glog"]
        if g == "old" or g == "nots":
            s = "[%s %s] %s" % (lvl, src, msg)
            rv = "Rank %d]" % r in msg or "[Rank %d" % r in msg
        elif g == "ranknots":
            s = "[rank%d]:[%s %s] %s" % (r, lvl, src, msg)
            rv = True
        else:
            s = "[rank%d]:[%s%s %s] %s" % (r, lvl, self.ts_glog(h, t), src, msg)
            rv = True
        self.rl(r, t, s, tags, rv=rv)

    def kp(self, r: int) -> int:
        """The pid the node's kernel sees (differs from the container's view under Kubernetes)."""
        return self.kpid[r]

    def inner(self, r: int) -> str:
        """The host name a rank's own process sees (a pod name under Kubernetes)."""
        h = self.host_of(r)
        return self.pod.get(h, h)

    def nccl(self, r: int, t: float, lvl: str, msg: str, src: str = "", tags=(), tid: int | None = None) -> None:
        h = self.host_of(r)
        if tid is None:
            tid = self.pids[r] + 60 + self.local_of(r)
        pre = "%s:%d:%d [%d] " % (self.inner(r), self.pids[r], tid, self.local_of(r))
        if lvl == "WARN":
            ts = "[%s] " % self.lt(h, t).strftime("%Y-%m-%d %H:%M:%S") if self.era["ncclts"] else ""
            self.rl(r, t - 1e-4, "", (), hv=False)
            self.rl(r, t, "%s%s%s NCCL WARN %s" % (ts, pre, src, msg), tags, hv=True,
                    rv=("rank %d " % r) in msg)
        else:
            self.rl(r, t, "%sNCCL INFO %s" % (pre, msg), tags, hv=True, rv=(" rank %d " % r) in msg)

    def klog(self, h: str, t: float, text: str, tags=()) -> None:
        self.kern.setdefault(h, []).append(L(t, text, tuple(tags), hv=False))

    def alog(self, h: str, t: float, text: str, tags=(), rv=False) -> None:
        self.agent.setdefault(h, []).append(L(t, text, tuple(tags), rv=rv))

    def ex(self, r: int, t: float, code: int) -> None:
        if r not in self.exits:
            self.exits[r] = Exit(t, code)

    def pylog(self, r: int, t: float, lvl: str, msg: str, tags=(), rv=False) -> None:
        h = self.host_of(r)
        st = self.logstyle
        if st == 0:
            s = "[%s][%s][%s] - %s" % (self.ts_py(h, t), self.logname, lvl, msg)
        elif st == 1:
            s = "%s | %-7s | %s" % (self.ts_py(h, t)[:19], lvl, msg)
        elif st == 2:
            s = "[%s] [%s] [%s] %s" % (self.ts_py(h, t), lvl, self.logname, msg)
        else:
            s = "%s - %s - %s - %s" % (self.ts_py(h, t), self.logname, lvl, msg)
        self.rl(r, t, s, tags, rv=rv)

    def xl(self, name: str, t: float, text: str, tags=(), rv=False, hv=False) -> None:
        self.extra.setdefault(name, []).append(L(t, text, tuple(tags), rv, hv))


# --------------------------------------------------------------------------
# noise: start-up, NCCL init, progress, harmless memory chatter
# --------------------------------------------------------------------------


def hexid(rng: random.Random, n: int = 12) -> str:
    return "0x" + "".join(rng.choice("0123456789abcdef") for _ in range(n))


def choose_featured(R: Run, focus: list[int], n_other: int | None = None) -> None:
    rng = R.rng
    feat = [0]
    for f in focus:
        if f is not None and f not in feat:
            feat.append(f)
    for f in focus:
        if f is None:
            continue
        sib = [x for x in R.ranks_on(R.host_of(f)) if x not in feat]
        rng.shuffle(sib)
        feat.extend(sib[: rng.randint(1, 3)])
    if n_other is None:
        n_other = rng.randint(2, 7)
    pool = list(range(R.world))
    rng.shuffle(pool)
    for x in pool[: n_other * 3]:
        if len(feat) >= len(focus) + 4 + n_other:
            break
        if x not in feat:
            feat.append(x)
    R.featured = sorted(feat)


def banner(R: Run, r: int, t: float) -> None:
    st = R.banner_style
    h = R.inner(r)
    if st == 0:
        R.rl(r, t, "| distributed init (rank %d): env://, gpu %d" % (r, R.local_of(r)), rv=True)
    elif st == 1:
        R.rl(r, t, "[init] rank=%d local_rank=%d world_size=%d host=%s pid=%d" % (
            r, R.local_of(r), R.world, h, R.pids[r]), ("pidmap:%s:%d:%d" % (R.host_of(r), R.pids[r], r),
                                                       "rankhost:%d:%s" % (r, R.host_of(r))), rv=True, hv=True)
    elif st == 2:
        R.pylog(r, t, "INFO", "Initialized process group: rank %d/%d on %s (cuda:%d)" % (r, R.world, h, R.local_of(r)),
                ("rankhost:%d:%s" % (r, R.host_of(r)),), rv=True)
        R.rank_lines[r][-1].hv = True


def nccl_init(R: Run, r: int, t: float) -> None:
    rng = R.rng
    h = R.inner(r)
    if r == 0:
        R.nccl(r, t, "INFO", "NCCL version %s+cuda%s" % (R.era["nccl"], R.era["cuda"]))
    if R.local_of(r) == 0 or rng.random() < 0.3:
        R.nccl(r, t + 0.01, "INFO", "Bootstrap : Using %s:10.%d.%d.%d<0>" % (
            rng.choice(["eth0", "ens3", "bond0", "enp6s0"]), rng.randint(0, 200), rng.randint(0, 255), rng.randint(2, 250)))
        if R.layout != "k8s" or rng.random() < 0.5:
            R.nccl(r, t + 0.03, "INFO", "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/IB [2]mlx5_4:1/IB [3]mlx5_5:1/IB "
                   "[4]mlx5_6:1/IB [5]mlx5_9:1/IB [6]mlx5_10:1/IB [7]mlx5_11:1/IB ; OOB %s:10.%d.0.%d<0>" % (
                       rng.choice(["eth0", "bond0"]), rng.randint(0, 50), rng.randint(2, 250)))
    if rng.random() < 0.4:
        R.nccl(r, t + 0.05, "INFO", "Setting affinity for GPU %d to ffff,ffff0000,00000000" % R.local_of(r))
    if rng.random() < 0.25:
        R.nccl(r, t + 0.3, "INFO", "Allocated %d bytes of shared memory in /dev/shm/nccl-%s" % (
            rng.choice([9637892, 5967876, 14156132]), "".join(rng.choice("ABCDEFGHabcdefgh0123456789") for _ in range(6))))
    bus = R.nccl_busid(r)
    R.nccl(r, t + 0.6 + rng.random() * 0.3, "INFO",
           "comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId %s - Init COMPLETE" % (
               hexid(rng, 12), r, R.world, R.local_of(r), R.local_of(r), bus, hexid(rng, 16)),
           tags=("pidmap:%s:%d:%d" % (R.host_of(r), R.pids[r], r), "busmap:%s:%s:%d" % (R.host_of(r), R.bus_key(r), r),
                 "rankhost:%d:%s" % (r, R.host_of(r))))
    R.rank_lines[r][-1].rv = True


def progress(R: Run, t_a: float, t_b: float, r0: int = 0, n_lines: int | None = None,
             s0: int = 0) -> int:
    """Rank r0's periodic training log between t_a and t_b. Returns the last step logged."""
    rng = R.rng
    if t_b <= t_a:
        return 0
    steps = max(1, int((t_b - t_a) / R.step_time))
    if n_lines is None:
        n_lines = rng.randint(25, 90)
    every = max(1, steps // n_lines)
    for nice in (1, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000):
        if nice >= every:
            every = nice
            break
    total = R.total_steps or int(steps * rng.uniform(1.3, 4.0)) + 100
    R.total_steps = total
    loss = rng.uniform(2.2, 9.5)
    st = R.prog_style
    s = every
    last = s0
    while s <= steps:
        t = t_a + s * R.step_time + rng.uniform(-0.2, 0.2)
        s_log = s + s0
        if s_log > total:
            break
        loss = max(0.35, loss * rng.uniform(0.985, 1.004))
        lr = 3e-4 * min(1.0, s / 2000.0)
        mem_a = R.mem_base + rng.uniform(-0.4, 0.4)
        if st == "kv":
            msg = "step %d/%d | loss %.4f | lr %.2e | grad_norm %.3f | %d tok/s/gpu | mem %.1fG (max %.1fG)" % (
                s_log, total, loss, lr, rng.uniform(0.2, 1.6), int(rng.uniform(2800, 3400) / max(0.5, R.step_time) * 2),
                mem_a, R.mem_peak)
            R.pylog(r0, t, "INFO", msg)
        elif st == "hf":
            R.rl(r0, t, "{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %.3e, 'epoch': %.2f}" % (
                loss, rng.uniform(0.2, 2.0), lr, s_log / max(1.0, total / 3.0)))
        elif st == "tqdm":
            pct = int(100 * s_log / total)
            el = s_log * R.step_time
            rem = max(0, total - s_log) * R.step_time
            R.rl(r0, t, "%3d%%|%s| %d/%d [%s<%s, %.2fs/it]" % (
                pct, ("\u2588" * (pct // 10)).ljust(10), s_log, total, hms(el), hms(rem), R.step_time))
        else:
            h = R.host_of(r0)
            R.rl(r0, t, "[%s] [INFO] [logging.py:128:log_dist] [Rank 0] step=%d, skipped=%d, lr=[%.6g], mom=[(0.9, 0.95)]" % (
                R.ts_py(h, t), s_log, rng.randint(0, 3), lr))
            if rng.random() < 0.5:
                R.rl(r0, t + 0.01, "[%s] [INFO] [timer.py:264:stop] epoch=0/micro_step=%d/global_step=%d, "
                     "RunningAvgSamplesPerSec=%.4f, CurrSamplesPerSec=%.4f, MemAllocated=%.2fGB, MaxMemAllocated=%.2fGB" % (
                         R.ts_py(h, t), s_log * 4, s_log, rng.uniform(20, 60), rng.uniform(20, 60), mem_a, R.mem_peak))
        last = s_log
        if rng.random() < 0.04:
            R.pylog(r0, t + 1, "INFO", "Saving checkpoint to /ckpt/%s/step_%07d" % (R.model, s_log))
        s += every
    return last


def hms(x: float) -> str:
    x = int(x)
    h, m, s = x // 3600, (x // 60) % 60, x % 60
    return "%d:%02d:%02d" % (h, m, s) if h else "%02d:%02d" % (m, s)


def memlog(R: Run, r: int, t: float, alloc: float, reserved: float, peak: float) -> None:
    st = R.memlog_style
    if st == 0:
        R.pylog(r, t, "INFO", "[mem] rank %d alloc=%.2fGiB reserved=%.2fGiB max_alloc=%.2fGiB" % (r, alloc, reserved, peak),
                rv=True)
    elif st == 1:
        R.pylog(r, t, "INFO", "memory: allocated %.1f GB | reserved %.1f GB | peak %.1f GB | frag %.1f%%" % (
            alloc, reserved, peak, 100.0 * (reserved - alloc) / max(reserved, 0.1)))
    else:
        R.rl(r, t, "[%s] [INFO] [utils.py:781:see_memory_usage] MA %.2f GB         Max_MA %.2f GB         CA %.2f GB         Max_CA %d GB " % (
            R.ts_py(R.host_of(r), t), alloc, peak, reserved, int(reserved + 1)))


def memory_summary(R: Run, r: int, t: float, retries: int, ooms: int) -> None:
    ta = R.rng.randint(4000, 90000)
    R.tot_res = R.rng.randint(200, 900)
    rows = [
        "|===========================================================================|",
        "|                  PyTorch CUDA memory summary, device ID %-2d                |" % R.local_of(r),
        "|---------------------------------------------------------------------------|",
        "|            CUDA OOMs: %-2d           |        cudaMalloc retries: %-4d      |" % (ooms, retries),
        "|===========================================================================|",
        "|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |",
        "|---------------------------------------------------------------------------|",
        "| Allocated memory      | %7d MiB | %7d MiB | %7d GiB | %7d GiB |" % (
            int(R.mem_base * 1024), int(R.mem_peak * 1024), ta, ta - int(R.mem_base) - 1),
        "| Reserved memory       | %7d MiB | %7d MiB | %7d GiB | %7d GiB |" % (
            int((R.mem_base + 6) * 1024), int(min(R.gpu["cap"] - 1, R.mem_peak + 5) * 1024), R.tot_res, R.tot_res - R.rng.randint(40, 70)),
        "|---------------------------------------------------------------------------|",
        "| Oversize allocations  |       0    |       0    |       0    |       0    |",
        "|===========================================================================|",
    ]
    for i, s in enumerate(rows):
        R.rl(r, t + i * 1e-4, s)


def decoys(R: Run, t_a: float, t_b: float, k: int) -> None:
    """Harmless memory chatter that real healthy jobs print."""
    rng = R.rng
    if t_b <= t_a + 10:
        return
    kinds = ["summary", "hwm", "shm_banner", "dl_workers", "expandable", "nccl_shm"]
    if R.era["name"] in ("2.13",):
        kinds += ["retry_warn", "retry_warn"]
    if R.prog_style == "ds" or R.layout == "deepspeed":
        kinds += ["ds_flush", "ds_flush"]
    if R.era["name"] in ("2.5", "2.7", "2.9", "2.13"):
        kinds += ["inductor"]
    if "vit" in R.model or "deit" in R.model or "unet" in R.model or "dit" in R.model:
        kinds += ["cudnn_plan"]
    picks = [rng.choice(kinds) for _ in range(k)]
    for kind in picks:
        t = rng.uniform(t_a, t_b)
        r = rng.choice(R.featured)
        h = R.host_of(r)
        if kind == "summary":
            memory_summary(R, r, t, rng.randint(1, 40), 0)
        elif kind == "hwm":
            R.pylog(r, t, "INFO", "peak memory (high-water mark) %.2f GiB of %.2f GiB (%.1f%%), reserved %.2f GiB" % (
                R.mem_peak, R.gpu["cap"], 100 * R.mem_peak / R.gpu["cap"], min(R.gpu["cap"] - 0.3, R.mem_peak + 3.1)))
        elif kind == "shm_banner":
            for rr in R.featured[:1]:
                t0 = R.t0 + 1
                for i, s in enumerate([
                    "NOTE: The SHMEM allocation limit is set to the default of 64MB.  This may be",
                    "   insufficient for PyTorch.  NVIDIA recommends the use of the following flags:",
                    "   docker run --gpus all --ipc=host --ulimit memlock=-1 --ulimit stack=67108864 ...",
                ]):
                    R.rl(rr, t0 + i * 1e-3, s)
        elif kind == "dl_workers":
            R.rl(r, R.t_train - 5 + rng.random(), "%s/torch/utils/data/dataloader.py:617: UserWarning: This DataLoader will "
                 "create %d worker processes in total. Our suggested max number of worker in current system is %d, which is "
                 "smaller than what this DataLoader is going to create. Please be aware that excessive worker creation might "
                 "get DataLoader running slow or even freeze, lower the worker number to avoid potential slowness/freeze if "
                 "necessary." % (R.site, R.dl_workers * 2, R.dl_workers))
        elif kind == "expandable":
            R.pylog(r, R.t0 + 3, "INFO", "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,garbage_collection_threshold:0.8")
        elif kind == "nccl_shm" and R.nccl_debug:
            R.nccl(r, R.t_train - 2, "INFO", "Allocated %d bytes of shared memory in /dev/shm/nccl-%s" % (
                rng.choice([9637892, 5967876]), "".join(rng.choice("ABCDEFabcdef0123456789") for _ in range(6))))
        elif kind == "retry_warn":
            n = rng.randint(2, 12)
            for j in range(n):
                tt = t + j * rng.uniform(0.5, 40)
                R.rl(r, tt, "[rank%d]:[W%s CUDACachingAllocator.cpp:3933] memory allocation failed with OOM on device %d "
                     "while trying to allocate %d bytes (free: %d, total: %d)." % (
                         r, R.ts_glog(h, tt), R.local_of(r), rng.choice([20971520, 2097152, 268435456, 1073741824]),
                         rng.randint(3_000_000, 90_000_000), int(R.gpu["cap"] * 1073741824)))
        elif kind == "ds_flush":
            n = rng.randint(1, 5)
            for j in range(n):
                tt = t + j * rng.uniform(20, 300)
                R.rl(r, tt, "[%s] [WARNING] [stage3.py:%d:step] %d pytorch allocator cache flushes since last step. this "
                     "happens when there is high memory pressure and is detrimental to performance. if this is happening "
                     "frequently consider adjusting settings to reduce memory consumption. If you are unable to make the "
                     "cache flushes go away consider adding get_accelerator().empty_cache() calls in your training loop to "
                     "ensure that all ranks flush their caches at the same time" % (
                         R.ts_py(h, tt), rng.choice([2069, 2117, 2191]), rng.randint(1, 4)))
        elif kind == "inductor":
            tt = R.t_train + rng.uniform(5, 90)
            R.rl(r, tt, "%sW%s %d %s/torch/_inductor/select_algorithm.py:1847] [0/0] Runtime error during autotuning: " % (
                "[rank%d]:" % r if R.era["rankpfx"] else "", R.ts_glog_us(h, tt), R.pids[r], R.site.split("/", 3)[-1]))
            R.rl(r, tt + 1e-4, "out of resource: shared memory, Required: %d, Hardware limit: %d. Reducing block sizes "
                 "or `num_stages` may help.. " % (rng.choice([262144, 294912, 327680]), 232448))
            R.rl(r, tt + 2e-4, "Ignoring this choice.")
        elif kind == "cudnn_plan":
            R.rl(r, t, "%s/torch/nn/modules/conv.py:456: UserWarning: Plan failed with a cudnnException: "
                 "CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: cudnnFinalize Descriptor Failed cudnn_status: "
                 "CUDNN_STATUS_NOT_SUPPORTED (Triggered internally at ../aten/src/ATen/native/cudnn/Conv_v8.cpp:919.)" % R.site)
            R.rl(r, t + 1e-3, "  return F.conv2d(input, weight, bias, self.stride,")


def base(R: Run, focus: list, t_stop: float, n_other: int | None = None, n_decoys: int | None = None) -> None:
    """Featured ranks, start-up lines, progress until t_stop, a few harmless memory lines."""
    rng = R.rng
    choose_featured(R, [f for f in focus if f is not None], n_other)
    R.banner_style = rng.choice([0, 1, 1, 2, 3])
    R.memlog_style = rng.randrange(3)
    R.prog_style = rng.choice(["kv", "kv", "hf", "tqdm"] + (["ds", "ds", "ds"] if R.layout == "deepspeed" else []))
    R.mem_peak = round(R.gpu["cap"] * rng.uniform(0.62, 0.93), 2)
    R.mem_base = round(R.mem_peak * rng.uniform(0.55, 0.8), 2)
    for r in R.featured:
        if R.banner_style != 3:
            banner(R, r, R.t0 + rng.uniform(10, 35))
        if R.nccl_debug:
            nccl_init(R, r, R.t_train - rng.uniform(3, 12))
    R.last_step = progress(R, R.t_train, t_stop)
    if n_decoys is None:
        n_decoys = rng.choice([0, 1, 1, 2, 3])
    decoys(R, R.t_train, t_stop, n_decoys)


# --------------------------------------------------------------------------
# collateral: what the other ranks print when one of them is gone
# --------------------------------------------------------------------------

OPS = [("ALLREDUCE", "nccl:all_reduce"), ("_ALLGATHER_BASE", "nccl:_all_gather_base"),
       ("_REDUCE_SCATTER_BASE", "nccl:_reduce_scatter_base"), ("BROADCAST", "nccl:broadcast"),
       ("ALLGATHER", "nccl:all_gather")]


def watchdog(R: Run, r: int, t: float, seq: int, op: str, numel: int, last_done: int | None = None,
             abort: bool = True) -> None:
    rng = R.rng
    to = R.timeout_ms
    ran = to + rng.randint(3, 900)
    e = R.era
    pg = e["pg"].format(r=r) if e["pg"] else "[Rank %d]" % r
    if last_done is None:
        last_done = seq - 1
    work = "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (seq, op, numel, numel, to)
    msg = "%s Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (
        "[Rank %d]" % r if not e["pg"] else pg, work, ran)
    g = e["glog"]
    if g in ("old", "nots"):
        R.glog(r, t, "E", "ProcessGroupNCCL.cpp:%d" % R.src("pg2892", [475, 737, 828]), msg)
        if abort:
            R.glog(r, t + 0.2, "E", "ProcessGroupNCCL.cpp:%d" % R.src("pg90944", [489, 750]), "[Rank %d] NCCL watchdog thread "
                   "terminated with exception: %s" % (r, msg))
            R.rl(r, t + 0.3, "terminate called after throwing an instance of 'std::runtime_error'")
            R.rl(r, t + 0.31, "  what():  [Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, msg), rv=True)
            R.rl(r, t + 0.4, "Fatal Python error: Aborted")
    elif g == "ranknots":
        R.glog(r, t, "E", "ProcessGroupNCCL.cpp:%d" % 563, msg)
        R.glog(r, t + 0.01, "E", "ProcessGroupNCCL.cpp:%d" % 1537, "%s Timeout at NCCL work: %d, last enqueued NCCL work: %d, "
               "last completed NCCL work: %d." % (pg, seq, seq, last_done))
        if abort:
            R.glog(r, t + 0.02, "E", "ProcessGroupNCCL.cpp:577", "[Rank %d] Some NCCL operations have failed or timed out. Due "
                   "to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % r)
            R.glog(r, t + 0.03, "E", "ProcessGroupNCCL.cpp:583", "[Rank %d] To avoid data inconsistency, we are taking the "
                   "entire process down." % r)
            R.glog(r, t + 0.04, "E", "ProcessGroupNCCL.cpp:1414", "%s Process group watchdog thread terminated with exception: %s"
                   % (pg, msg))
            R.rl(r, t + 0.05, "terminate called after throwing an instance of 'c10::DistBackendError'")
    else:
        R.glog(r, t, "E", "ProcessGroupNCCL.cpp:%d" % R.src("pg74618", [616, 632, 655]), msg)
        R.glog(r, t + 0.01, "E", "ProcessGroupNCCL.cpp:%d" % R.src("pg65384", [1785, 2168, 2214]), "%s failure detected by watchdog "
               "at work sequence id: %d PG status: last enqueued work: %d, last completed work: %d" % (pg, seq, seq, last_done))
        if not e["fr"]:
            R.glog(r, t + 0.02, "E", "ProcessGroupNCCL.cpp:%d" % 667, "Stack trace of the failed collective not found, "
                   "potentially because FlightRecorder is disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE "
                   "to a non-zero value.")
        else:
            R.glog(r, t + 0.02, "E", "ProcessGroupNCCL.cpp:%d" % 1695, "%s Received a dump signal due to a collective timeout "
                   "from this local rank and we will try our best to dump the debug info. Last enqueued NCCL work: %d, last "
                   "completed NCCL work: %d." % (pg, seq, last_done))
        if abort:
            R.glog(r, t + 0.03, "E", "ProcessGroupNCCL.cpp:%d" % 681, "[Rank %d] Some NCCL operations have failed or timed out. "
                   "Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % r)
            R.glog(r, t + 0.04, "E", "ProcessGroupNCCL.cpp:%d" % 695, "[Rank %d] To avoid data inconsistency, we are taking the "
                   "entire process down." % r)
            R.glog(r, t + 0.05, "E", "ProcessGroupNCCL.cpp:%d" % 1595, "%s Process group watchdog thread terminated with "
                   "exception: %s" % (pg, msg))
            R.rl(r, t + 0.06, "terminate called after throwing an instance of 'c10::DistBackendError'")
            R.rl(r, t + 0.061, "  what():  %s Process group watchdog thread terminated with exception: %s" % (pg, msg), rv=True)


def remote_error(R: Run, r: int, t: float, peer: int, how: str) -> None:
    """A rank that notices quickly that its peer is gone (socket closed / IB error / local proxy)."""
    rng = R.rng
    e = R.era
    ph = R.inner(peer)
    tags_h = ("nameh",)
    if how == "local":
        R.nccl(r, t, "INFO", "[Service thread] Connection closed by localRank %d" % R.local_of(peer), tags=("namelocal",))
    elif how == "socket":
        named = rng.random() < 0.6
        peer_s = ph if named else "10.%d.%d.%d" % (rng.randint(0, 9), rng.randint(0, 255), rng.randint(2, 250))
        R.nccl(r, t, "WARN", "socketProgress: Connection closed by remote peer %s<%d>" % (peer_s, rng.randint(30000, 60999)),
               src="misc/socket.cc:%d" % rng.choice([47, 52, 63]), tags=tags_h if named else ())
    else:
        st = "status=12 opcode=0 len=0 vendor err 129 (Recv)" if e["name"] not in ("1.13", "2.1") else \
            "error 12, opcode 0, len 0, vendor err 129"
        R.nccl(r, t, "WARN", "NET/IB : Got completion from peer 10.%d.%d.%d<%d> with %s" % (
            rng.randint(0, 9), rng.randint(0, 255), rng.randint(2, 250), rng.randint(30000, 60999), st),
            src="transport/net_ib.cc:%d" % rng.choice([1696, 2167, 1373]))
    if rng.random() < 0.7:
        exc = "torch.distributed.DistBackendError" if e["name"] not in ("1.13", "2.1") else "RuntimeError"
        msg = "NCCL error: remote process exited or there was a network error, NCCL version %s" % e["nccl"]
        pg = e["pg"].format(r=r) if e["pg"] else "[Rank %d]" % r
        R.glog(r, t + rng.uniform(0.5, 3), "E", "ProcessGroupNCCL.cpp:%d" % R.src("pg75034", [1316, 1595, 1887]),
               "%s Process group watchdog thread terminated with exception: %s" % (pg, msg))
        R.rl(r, t + 3.1, "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.")
        R.rl(r, t + 3.11, "terminate called after throwing an instance of '%s'" % (
            "c10::DistBackendError" if exc != "RuntimeError" else "std::runtime_error"))


def teardown(R: Run, r0: int | None, t_fail: float, code: int, mode: str | None = None,
             dead_ranks: list[int] | None = None, skip: tuple = (), t_wait: float | None = None) -> float:
    """Exits for every rank after rank r0 (or dead_ranks) went away at t_fail with `code`.

    mode: "timeout" (peers wait for the collective timeout), "remote" (peers see the
    connection drop), or None (chosen at random). Returns the job end time.
    """
    rng = R.rng
    dead = list(dead_ranks) if dead_ranks else [r0]
    for d in dead:
        R.ex(d, t_fail + rng.uniform(0.2, 2.0), code)
    if mode is None:
        mode = rng.choice(["timeout", "timeout", "remote"])
    seq = rng.randint(2000, 400000)
    op, _ = rng.choice(OPS[:3])
    numel = rng.choice([262144000, 131072000, 50331648, 1, 8388608])
    dead_hosts = []
    for d in dead:
        if R.host_of(d) not in dead_hosts:
            dead_hosts.append(R.host_of(d))
    first = min(R.exits[d].t for d in dead)
    if t_wait is None:
        t_wait = first
    t_last = first
    kill_all = R.layout == "slurm" and R.slurm_kob
    for r in range(R.world):
        if r in R.exits or r in skip:
            continue
        h = R.host_of(r)
        if kill_all:
            te = first + rng.uniform(0.5, 3.0)
            R.ex(r, te, -15)
            continue
        if h in dead_hosts and R.per_node_agent:
            te = first + rng.uniform(0.8, 6.0)
            if r in R.featured and rng.random() < 0.35 and mode == "remote":
                remote_error(R, r, first + rng.uniform(0.01, 0.25), dead[0], "local")
            R.ex(r, te, -15)
            continue
        if mode == "timeout":
            te = max(first + 1.0, t_wait + R.timeout_ms / 1000.0 + rng.uniform(-30, 40))
            if r in R.featured:
                watchdog(R, r, te, seq, op, numel)
            R.ex(r, te + rng.uniform(0.3, 2.0), -6)
        else:
            te = first + rng.uniform(1.5, 45)
            if r in R.featured:
                remote_error(R, r, te, dead[0], rng.choice(["socket", "ib", "socket"]))
            R.ex(r, te + rng.uniform(3, 5), -6)
        t_last = max(t_last, R.exits[r].t)
    R.t_end = max(t_last, max(e.t for e in R.exits.values())) + rng.uniform(2, 20)
    return R.t_end


def finish_ok(R: Run, t_end: float) -> None:
    for r in range(R.world):
        R.ex(r, t_end + R.rng.uniform(0, 4), 0)
    R.t_end = t_end + 6


# --------------------------------------------------------------------------
# tracebacks and error texts
# --------------------------------------------------------------------------


def frames(R: Run, kind: str) -> list[str]:
    rng = R.rng
    w, sc, site = R.workdir, R.script, R.site
    out = ["Traceback (most recent call last):",
           '  File "%s/%s", line %d, in <module>' % (w, sc, rng.randint(400, 990)),
           "    main()" if rng.random() < 0.6 else "    sys.exit(main())",
           '  File "%s/%s", line %d, in main' % (w, sc, rng.randint(200, 399))]
    if kind in ("fwd", "bwd", "opt", "fsdp", "ds3", "inductor", "conv", "matmul", "triton", "data", "dlworker"):
        out += ["    train(cfg, model, optimizer, train_loader)",
                '  File "%s/%s", line %d, in train' % (w, sc, rng.randint(100, 199))]
    if kind == "fwd" or kind == "matmul" or kind == "conv" or kind == "triton":
        out += ["    loss = model(**batch).loss" if kind != "conv" else "    loss = criterion(model(images), targets)",
                '  File "%s/torch/nn/modules/module.py", line 1736, in _wrapped_call_impl' % site,
                "    return self._call_impl(*args, **kwargs)",
                '  File "%s/torch/nn/modules/module.py", line 1747, in _call_impl' % site,
                "    return forward_call(*args, **kwargs)"]
        if kind == "conv":
            out += ['  File "%s/torch/nn/modules/conv.py", line 554, in forward' % site,
                    "    return self._conv_forward(input, self.weight, self.bias)",
                    '  File "%s/torch/nn/modules/conv.py", line 549, in _conv_forward' % site,
                    "    return F.conv2d("]
        elif kind == "triton":
            out += ['  File "%s/models/fused_ops.py", line %d, in forward' % (w, rng.randint(40, 300)),
                    "    _fused_rmsnorm_fwd[grid](x, w, y, x.stride(0), N, eps, BLOCK_N=BLOCK_N, num_warps=8)",
                    '  File "%s/triton/runtime/jit.py", line 347, in <lambda>' % site,
                    "    return lambda *args, **kwargs: self.run(grid=grid, warmup=False, *args, **kwargs)",
                    '  File "%s/triton/runtime/jit.py", line 591, in run' % site,
                    "    kernel.run(grid_0, grid_1, grid_2, stream, kernel.function, kernel.packed_metadata,"]
        else:
            out += ['  File "%s/transformers/models/llama/modeling_llama.py", line %d, in forward' % (site, rng.randint(180, 340)),
                    rng.choice(["    down_proj = self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))",
                                "    attn_weights = torch.matmul(query_states, key_states.transpose(2, 3)) * self.scaling",
                                "    logits = self.lm_head(hidden_states[:, slice_indices, :])"])]
            if kind == "matmul":
                out += ['  File "%s/torch/nn/modules/linear.py", line 125, in forward' % site,
                        "    return F.linear(input, self.weight, self.bias)"]
    elif kind == "bwd":
        out += ["    loss.backward()",
                '  File "%s/torch/_tensor.py", line 581, in backward' % site,
                "    torch.autograd.backward(",
                '  File "%s/torch/autograd/__init__.py", line 347, in backward' % site,
                "    _engine_run_backward(",
                '  File "%s/torch/autograd/graph.py", line 825, in _engine_run_backward' % site,
                "    return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"]
    elif kind == "opt":
        out += ["    optimizer.step()",
                '  File "%s/torch/optim/adamw.py", line 220, in step' % site,
                "    adamw(",
                '  File "%s/torch/optim/adamw.py", line 782, in _multi_tensor_adamw' % site,
                "    exp_avg_sq_sqrt = torch._foreach_sqrt(device_exp_avg_sqs)"]
    elif kind == "fsdp":
        out += ["    loss = model(**batch).loss",
                '  File "%s/torch/distributed/fsdp/fully_sharded_data_parallel.py", line 863, in forward' % site,
                "    args, kwargs = _pre_forward(",
                '  File "%s/torch/distributed/fsdp/_flat_param.py", line 1402, in _alloc_padded_unsharded_flat_param' % site,
                "    _alloc_storage(unsharded_flat_param, flat_param._padded_unsharded_size)"]
    elif kind == "ds3":
        out += ["    loss = model_engine(batch)",
                '  File "%s/deepspeed/runtime/zero/parameter_offload.py", line 474, in _pre_forward_module_hook' % site,
                "    self.pre_sub_module_forward_function(module)",
                '  File "%s/deepspeed/runtime/zero/partitioned_param_coordinator.py", line 338, in fetch_sub_module' % site,
                "    self.__all_gather_params(params_to_fetch, forward)",
                '  File "%s/deepspeed/runtime/zero/partition_parameters.py", line 1178, in all_gather_coalesced' % site,
                "    flat_tensor = torch.empty(tensor_size, dtype=param_list[0].ds_tensor.dtype,"]
    elif kind == "inductor":
        h = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz234567") for _ in range(40))
        out += ["    loss = compiled_step(model, batch)",
                '  File "%s/torch/_dynamo/eval_frame.py", line 655, in _fn' % site,
                "    return fn(*args, **kwargs)",
                '  File "%s/torch/_inductor/output_code.py", line 466, in __call__' % site,
                "    return self.current_callable(inputs)",
                '  File "/tmp/torchinductor_%s/%s/c%s.py", line %d, in call' % (
                    rng.choice(["root", "ajones", "svc-train"]), h[:2], h, rng.randint(900, 4000)),
                "    buf%d = empty_strided_cuda((%d, %d, %d), (%d, %d, 1), torch.bfloat16)" % (
                    rng.randint(10, 400), rng.choice([4, 8, 16]), rng.choice([4096, 8192]), rng.choice([14336, 28672]),
                    rng.choice([4096, 8192]) * 14336, 14336)]
    elif kind == "data" or kind == "dlworker":
        out += ["    for step, batch in enumerate(train_loader):",
                '  File "%s/torch/utils/data/dataloader.py", line 701, in __next__' % site,
                "    data = self._next_data()",
                '  File "%s/torch/utils/data/dataloader.py", line 1448, in _next_data' % site,
                "    idx, data = self._get_data()"]
        if kind == "dlworker":
            out += ['  File "%s/torch/utils/data/dataloader.py", line 1402, in _get_data' % site,
                    "    success, data = self._try_get_data()",
                    '  File "%s/torch/utils/data/dataloader.py", line 1256, in _try_get_data' % site,
                    "    raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e"]
    elif kind == "load":
        out += ["    state = load_checkpoint(cfg.resume_from, model, optimizer)",
                '  File "%s/utils/checkpoint.py", line %d, in load_checkpoint' % (w, rng.randint(20, 90)),
                "    sd = torch.load(path, map_location=\"cpu\", weights_only=False)",
                '  File "%s/torch/serialization.py", line 1470, in load' % site,
                "    return _load(",
                '  File "%s/torch/_utils.py", line 180, in _rebuild_tensor_v2' % site,
                "    tensor = _rebuild_tensor(storage, storage_offset, size, stride)"]
    elif kind == "ckpt":
        out += ["    save_checkpoint(cfg, model, optimizer, step)",
                '  File "%s/utils/checkpoint.py", line %d, in save_checkpoint' % (w, rng.randint(100, 200)),
                "    torch.save(state, tmp_path)",
                '  File "%s/torch/serialization.py", line 967, in save' % site,
                "    with _open_zipfile_writer(f) as opened_zipfile:",
                '  File "%s/torch/serialization.py", line 798, in __exit__' % site,
                "    self.file_like.write_end_of_file()"]
    elif kind == "eval":
        out += ["    metrics = evaluate(model, val_loader)",
                '  File "%s/%s", line %d, in evaluate' % (w, sc, rng.randint(100, 199)),
                "    logits = model(input_ids=batch[\"input_ids\"]).logits.float()"]
    elif kind == "init":
        out += ["    model = build_model(cfg).to(device)",
                '  File "%s/torch/nn/modules/module.py", line 1355, in to' % site,
                "    return self._apply(convert)",
                '  File "%s/torch/nn/modules/module.py", line 942, in _apply' % site,
                "    param_applied = fn(param)"]
    elif kind == "ddp_init":
        out += ["    model = DDP(model, device_ids=[local_rank])",
                '  File "%s/torch/nn/parallel/distributed.py", line 827, in __init__' % site,
                "    _verify_param_shape_across_processes(self.process_group, parameters)",
                '  File "%s/torch/distributed/utils.py", line 288, in _verify_param_shape_across_processes' % site,
                "    return dist._verify_params_across_processes(process_group, tensors, logger)"]
    elif kind == "newgroup":
        out += ["    tp_group = dist.new_group(ranks=tp_ranks)",
                '  File "%s/torch/distributed/c10d_logger.py", line 81, in wrapper' % site,
                "    return func(*args, **kwargs)",
                '  File "%s/torch/distributed/distributed_c10d.py", line 4125, in all_gather_into_tensor' % site,
                "    work = group._allgather_base(output_tensor, input_tensor, opts)"]
    return out


def dl_worker_tb(R: Run, wpid: int, how: str) -> list[str]:
    """The chained traceback PyTorch prints when a DataLoader worker dies of a signal."""
    site = R.site
    py = "/usr/lib/python%s" % R.era["py"]
    msg = "DataLoader worker (pid %d) is killed by signal: %s" % (wpid, how)
    if how.startswith("Bus error"):
        msg += " It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit."
    return ["Traceback (most recent call last):",
            '  File "%s/torch/utils/data/dataloader.py", line 1243, in _try_get_data' % site,
            "    data = self._data_queue.get(timeout=timeout)",
            '  File "%s/queue.py", line 180, in get' % py, "    self.not_empty.wait(remaining)",
            '  File "%s/threading.py", line 324, in wait' % py, "    gotit = waiter.acquire(True, timeout)",
            '  File "%s/torch/utils/data/_utils/signal_handling.py", line 73, in handler' % site,
            "    _error_if_any_worker_fails()",
            "RuntimeError: " + msg, "",
            "The above exception was the direct cause of the following exception:", ""] + frames(R, "dlworker") + [
        "RuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly" % wpid]


def gib(x: float) -> str:
    return "%.2f GiB" % x if x >= 1 else "%.2f MiB" % (x * 1024)


def oom_text(R: Run, r: int, tried: float, free: float, alloc: float, unalloc: float) -> str:
    e = R.era
    cap = R.gpu["cap"]
    inuse = min(cap - free, alloc + unalloc + R.rng.uniform(0.4, 1.6))
    if e["oom"] == 1:
        return ("CUDA out of memory. Tried to allocate %s (GPU %d; %s total capacity; %s already allocated; %s free; %s "
                "reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to "
                "avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF" % (
                    gib(tried), R.local_of(r), gib(cap), gib(alloc), gib(free), gib(alloc + unalloc)))
    if e["oom"] == 2:
        return ("CUDA out of memory. Tried to allocate %s. GPU %d has a total capacty of %s of which %s is free. Including "
                "non-PyTorch memory, this process has %s memory in use. Of the allocated memory %s is allocated by PyTorch, "
                "and %s is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
                "max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF"
                % (gib(tried), R.local_of(r), gib(cap), gib(free), gib(inuse), gib(alloc), gib(unalloc)))
    return ("CUDA out of memory. Tried to allocate %s. GPU %d has a total capacity of %s of which %s is free. Including "
            "non-PyTorch memory, this process has %s memory in use. Of the allocated memory %s is allocated by PyTorch, and "
            "%s is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
            "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
            "Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)" % (
                gib(tried), R.local_of(r), gib(cap), gib(free), gib(inuse), gib(alloc), gib(unalloc)))


def cuda_err_lines(R: Run, text: str) -> list[str]:
    out = ["%s: CUDA error: %s" % (R.era["cudaexc"], text),
           "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
           "For debugging consider passing CUDA_LAUNCH_BLOCKING=1"]
    if R.era["name"] not in ("1.13",):
        out.append("Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.")
    return out


def pick(R: Run, p0: float = 0.08) -> int:
    if R.world <= 1:
        return 0
    if R.rng.random() < p0:
        return 0
    return R.rng.randrange(1, R.world)


def plan(R: Run, lo_h: float, hi_h: float) -> float:
    return R.t_train + R.rng.uniform(lo_h, hi_h) * 3600.0


def kernel_noise(R: Run, h: str, t_a: float, t_b: float, k: int) -> None:
    rng = R.rng
    pool = ["IPv6: ADDRCONF(NETDEV_CHANGE): veth%s: link becomes ready" % "".join(rng.choice("0123456789abcdef") for _ in range(7)),
            "nvidia-nvswitch%d: open (major=509)" % rng.randint(0, 3),
            "nvme nvme3: I/O 417 QID 41 timeout, completion polled",
            "audit: type=1400 audit(%d.%03d:%d): apparmor=\"STATUS\" operation=\"profile_replace\" profile=\"unconfined\" name=\"nvidia_modprobe\"" % (
                int(t_a), rng.randint(0, 999), rng.randint(100, 999)),
            "nfs: server %s OK" % rng.choice(["nas-01", "fs-home", "10.0.8.20"]),
            "TCP: request_sock_TCP: Possible SYN flooding on port 29500. Sending cookies.  Check SNMP counters.",
            "mlx5_core 0000:%02x:00.0: mlx5_pcie_event:301:(pid %d): PCIe slot advertised sufficient power (27W)." % (
                rng.choice([0x0c, 0x2a, 0x41, 0x5c]), rng.randint(1000, 9000)),
            "perf: interrupt took too long (2509 > 2500), lowering kernel.perf_event_max_sample_rate to 79500",
            "docker0: port 1(veth%s) entered forwarding state" % "".join(rng.choice("0123456789abcdef") for _ in range(7))]
    for _ in range(k):
        R.klog(h, rng.uniform(t_a, t_b), rng.choice(pool))


def xid_line(R: Run, r: int, xid: int, body: str, pid: bool = True) -> str:
    if pid and R.rng.random() < 0.85:
        return "NVRM: Xid (PCI:%s): %d, pid=%d, name=python3, %s" % (R.pci(r), xid, R.kp(r), body)
    if pid:
        return "NVRM: Xid (PCI:%s): %d, pid=%d, %s" % (R.pci(r), xid, R.kp(r), body)
    return "NVRM: Xid (PCI:%s): %d, pid='<unknown>', name=<unknown>, %s" % (R.pci(r), xid, body)


def gpu_uuid(R: Run, r: int) -> str:
    rng = random.Random("%s-%d-%d" % (R.host_of(r), R.local_of(r), R.idx))
    hx = "".join(rng.choice("0123456789abcdef") for _ in range(32))
    return "GPU-%s-%s-%s-%s-%s" % (hx[:8], hx[8:12], hx[12:16], hx[16:20], hx[20:])


def xid_preamble(R: Run, r: int, t: float) -> None:
    h = R.host_of(r)
    R.klog(h, t - 0.002, "NVRM: GPU at PCI:%s: %s" % (R.pci(r), gpu_uuid(R, r)))
    R.klog(h, t - 0.001, "NVRM: GPU Board Serial Number: %d" % R.rng.randint(1320000000000, 1660000000000))


# --------------------------------------------------------------------------
# scenarios: one function per variant; each fills the run and its truth
# --------------------------------------------------------------------------


def set_init(R: Run, rank: int | None, host: str | None, notes: str) -> None:
    R.init_rank = rank
    R.init_host = host
    R.notes = notes


# ---- cuda_oom ----------------------------------------------------------------

def oom_alloc(R: Run) -> None:
    rng = R.rng
    r = pick(R)
    t = plan(R, 0.1, 20)
    base(R, [r], t)
    frag = rng.random() < 0.4
    cap = R.gpu["cap"]
    tried = rng.choice([0.5, 1.0, 2.0, 3.91, 7.83, 15.66, 0.25, 1.96])
    free = rng.uniform(0.05, min(tried * 0.9, 1.2))
    if frag:
        unalloc = rng.uniform(8, 22)
        alloc = cap - free - unalloc - 0.9
        for k in range(rng.randint(3, 6)):
            tt = t - (k + 1) * rng.uniform(600, 2400)
            if tt > R.t_train:
                memlog(R, r, tt, alloc - k * 0.4, alloc + unalloc - k * 1.2, alloc + 1)
        why = "fragmentation: %.1f GiB reserved but unallocated" % unalloc
    else:
        unalloc = rng.uniform(0.1, 1.5)
        alloc = cap - free - unalloc - 0.8
        why = "a long batch pushed allocations past capacity"
        if rng.random() < 0.5:
            R.pylog(r, t - 3, "WARNING", "batch %d has seq_len %d (max seen so far %d)" % (
                rng.randint(1000, 90000), rng.choice([16384, 32768, 65536]), rng.choice([4096, 8192])))
    kind = rng.choice(["fwd", "bwd", "bwd", "opt", "fsdp", "eval"])
    lines = frames(R, kind) + ["%s: %s" % (R.era["oomexc"], oom_text(R, r, tried, free, alloc, unalloc))]
    R.tb(r, t, lines, ("init",))
    teardown(R, r, t, 1)
    set_init(R, r, R.host_of(r), "Rank %d raised the caching allocator's CUDA OOM in %s (%s); the other ranks then "
             "failed as collateral." % (r, {"fwd": "forward", "bwd": "backward", "opt": "the optimizer step", "fsdp":
                                            "an FSDP all-gather", "eval": "evaluation"}[kind], why))


def oom_cublas(R: Run) -> None:
    rng = R.rng
    r = pick(R)
    t = R.t_train + rng.uniform(20, 400)
    base(R, [r], t, n_decoys=1)
    R.pylog(0, t - 10, "INFO", "Resumed from /ckpt/%s/step_%07d" % (R.model, rng.randint(1000, 90000)))
    lines = frames(R, "matmul") + ["RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`"]
    R.tb(r, t, lines, ("init",))
    teardown(R, r, t, 1)
    set_init(R, r, R.host_of(r), "cuBLAS could not allocate its workspace on rank %d (CUBLAS_STATUS_ALLOC_FAILED, GPU memory "
             "already exhausted by the resumed state); the rest of the job died as collateral." % r)


def oom_nccl_calloc(R: Run) -> None:
    rng = R.rng
    r = pick(R)
    t = R.t_train + rng.uniform(30, 3 * 3600)
    base(R, [r], t)
    nbytes = rng.choice([6291456, 1048576, 33554432, 4194304])
    if R.nccl_debug or rng.random() < 0.5:
        if rng.random() < 0.5:
            R.nccl(r, t - 0.3, "WARN", "Failed to CUDA calloc %d bytes" % nbytes, src="include/alloc.h:%d" % rng.choice([105, 124, 213]),
                   tags=("init",))
            last = "Failed to CUDA calloc %d bytes" % nbytes
        else:
            R.nccl(r, t - 0.3, "WARN", "Cuda failure 'out of memory'", src="include/alloc.h:%d" % rng.choice([48, 185]),
                   tags=("init",))
            last = "Cuda failure 'out of memory'"
        for src in ["channel.cc:%d -> 1" % rng.randint(40, 60), "init.cc:%d -> 1" % rng.randint(400, 1500),
                    "group.cc:%d -> 1 [Async thread]" % rng.randint(60, 120)]:
            if R.nccl_debug:
                R.nccl(r, t - 0.2, "INFO", src)
    else:
        last = "Failed to CUDA calloc %d bytes" % nbytes
    exc = "torch.distributed.DistBackendError" if R.era["name"] not in ("1.13", "2.1") else "RuntimeError"
    kind = rng.choice(["newgroup", "ddp_init", "fsdp"])
    lines = frames(R, kind) + [
        "%s: NCCL error in: ../torch/csrc/distributed/c10d/%s, unhandled cuda error (run with NCCL_DEBUG=INFO for details), "
        "NCCL version %s" % (exc, rng.choice(["NCCLUtils.hpp:317", "ProcessGroupNCCL.cpp:2027", "NCCLUtils.cpp:75"]),
                             R.era["nccl"]),
        "ncclUnhandledCudaError: Call to CUDA function failed.", "Last error:", last]
    R.tb(r, t, lines, ("init",), key_last=4)
    teardown(R, r, t, 1)
    set_init(R, r, R.host_of(r), "NCCL could not allocate its device buffers on rank %d (%s) while creating a communicator; "
             "GPU memory was already full, so this is a CUDA OOM surfacing through NCCL." % (r, last))


def oom_leak(R: Run) -> None:
    rng = R.rng
    r = pick(R)
    hours = rng.uniform(5, 26)
    t = R.t_train + hours * 3600
    base(R, [r], t)
    cap = R.gpu["cap"]
    start = R.mem_base
    every = rng.choice([1800, 3600, 2700])
    k = 0
    tt = R.t_train + every
    while tt < t - 60:
        frac = (tt - R.t_train) / (t - R.t_train)
        for rr in R.featured:
            if rr == r:
                a = start + frac * (cap - 1.5 - start)
                memlog(R, rr, tt + rng.uniform(0, 2), a, min(cap - 0.4, a + 2.5), a + 0.6)
            elif rng.random() < 0.5:
                a = start + rng.uniform(-0.3, 0.3)
                memlog(R, rr, tt + rng.uniform(0, 2), a, a + 3, R.mem_peak)
        tt += every
        k += 1
    tried = rng.choice([0.5, 1.0, 0.25, 2.0])
    free = rng.uniform(0.05, 0.4)
    lines = frames(R, rng.choice(["fwd", "bwd"])) + ["%s: %s" % (R.era["oomexc"], oom_text(R, r, tried, free, cap - free - 1.6, 0.7))]
    R.tb(r, t, lines, ("init",))
    teardown(R, r, t, 1)
    set_init(R, r, R.host_of(r), "A slow GPU memory leak on rank %d (allocated memory climbing for %.0f hours while the other "
             "ranks stayed flat) ended in CUDA OOM on that rank." % (r, hours))


def oom_ds3(R: Run) -> None:
    rng = R.rng
    r = pick(R)
    t = plan(R, 0.3, 12)
    base(R, [r], t)
    h = R.host_of(r)
    n = rng.randint(3, 8)
    for j in range(n):
        tt = t - (n - j) * rng.uniform(60, 600)
        R.rl(r, tt, "[%s] [WARNING] [stage3.py:2069:step] %d pytorch allocator cache flushes since last step. this happens "
             "when there is high memory pressure and is detrimental to performance. if this is happening frequently consider "
             "adjusting settings to reduce memory consumption. If you are unable to make the cache flushes go away consider "
             "adding get_accelerator().empty_cache() calls in your training loop to ensure that all ranks flush their caches "
             "at the same time" % (R.ts_py(h, tt), 2 + j * rng.randint(1, 4)))
    cap = R.gpu["cap"]
    lines = frames(R, "ds3") + ["%s: %s" % (R.era["oomexc"], oom_text(R, r, rng.choice([1.96, 3.91, 0.98]), 0.3, cap - 4.1, 2.9))]
    R.tb(r, t, lines, ("init",))
    teardown(R, r, t, 1)
    set_init(R, r, R.host_of(r), "ZeRO-3 parameter all-gather on rank %d ran out of GPU memory after escalating allocator "
             "cache-flush warnings." % r)


def oom_inductor(R: Run) -> None:
    rng = R.rng
    if R.era["name"] in ("1.13", "2.1"):
        R.era = ERAS[3]
    r = pick(R)
    t = R.t_train + rng.uniform(60, 5 * 3600)
    base(R, [r], t)
    cap = R.gpu["cap"]
    lines = frames(R, "inductor") + ["%s: %s" % (R.era["oomexc"], oom_text(R, r, rng.choice([3.50, 7.00, 1.75]), 0.9, cap - 3.2, 1.2))]
    R.tb(r, t, lines, ("init",))
    teardown(R, r, t, 1)
    set_init(R, r, R.host_of(r), "A torch.compile (Inductor) graph on rank %d failed to allocate an intermediate buffer: CUDA "
             "OOM inside generated code." % r)


def oom_cudnn(R: Run) -> None:
    rng = R.rng
    R.model = rng.choice(["vit-h14-pretrain", "sdxl-unet-ft", "dit-xl-2", "convnext-xl-in22k"])
    r = pick(R)
    t = plan(R, 0.05, 6)
    base(R, [r], t)
    cap = R.gpu["cap"]
    if rng.random() < 0.6:
        R.rl(r, t - 40, "%s/torch/nn/modules/conv.py:456: UserWarning: Plan failed with an OutOfMemoryError: CUDA out of memory. "
             "Tried to allocate %s. GPU %d has a total capacity of %s of which %s is free. (Triggered internally at "
             "../aten/src/ATen/native/cudnn/Conv_v8.cpp:%d.)" % (R.site, gib(rng.choice([6.0, 12.0, 24.0])), R.local_of(r),
                                                                 gib(cap), gib(rng.uniform(0.5, 3)), 919))
    lines = frames(R, "conv") + ["%s: %s" % (R.era["oomexc"], oom_text(R, r, rng.choice([4.69, 9.38, 2.34]), 1.1, cap - 2.9, 0.6))]
    R.tb(r, t, lines, ("init",))
    teardown(R, r, t, 1)
    set_init(R, r, R.host_of(r), "cuDNN convolution workspace plus activations exceeded GPU memory on rank %d (CUDA OOM in "
             "conv2d)." % r)


def oom_trt(R: Run) -> None:
    rng = R.rng
    r = 0 if rng.random() < 0.7 else pick(R)
    t = plan(R, 1, 14)
    base(R, [r], t)
    R.pylog(r, t - 95, "INFO", "step %d: exporting eval engine with TensorRT (fp16, max_workspace=%dGiB)" % (
        rng.randint(5000, 90000), rng.choice([8, 16, 24])))
    for j in range(rng.randint(2, 5)):
        R.rl(r, t - 80 + j, "[TRT] [W] Tactic Device request: %dMB Available: %dMB. Device memory is insufficient to use tactic." % (
            rng.randint(3000, 9000), rng.randint(800, 2900)))
        R.rl(r, t - 79.5 + j, "[TRT] [W] Skipping tactic %d due to insufficient memory on requested size of %d detected for "
             "tactic 0x%016x." % (j, rng.randint(3, 9) * 1073741824, rng.getrandbits(60)))
    R.rl(r, t - 2, "[TRT] [E] 1: [defaultAllocator.cpp::allocate::20] Error Code 1: Cuda Runtime (out of memory)",
         tags=("init",))
    R.rl(r, t - 1.9, "[TRT] [W] Requested amount of GPU memory (%d bytes) could not be allocated. There may not be enough "
         "free memory for allocation to succeed." % (rng.choice([8, 16, 17]) * 1073741824), tags=("init",))
    R.rl(r, t - 1.5, "[TRT] [E] 2: [builder.cpp::buildSerializedNetwork::751] Error Code 2: Internal Error (Assertion engine "
         "!= nullptr failed. )")
    lines = frames(R, "eval")[:-1] + ["    engine = build_trt_engine(onnx_path, fp16=True)",
                                     '  File "%s/export/trt.py", line %d, in build_trt_engine' % (R.workdir, rng.randint(30, 120)),
                                     "    raise RuntimeError(\"TensorRT engine build failed (see [TRT] errors above)\")",
                                     "RuntimeError: TensorRT engine build failed (see [TRT] errors above)"]
    R.tb(r, t, lines, ())
    teardown(R, r, t, 1)
    set_init(R, r, R.host_of(r), "Rank %d built a TensorRT engine for in-training evaluation while the training state still "
             "held the GPU; TensorRT's allocator hit CUDA out of memory and the job stopped." % r)


def oom_stale(R: Run) -> None:
    rng = R.rng
    r = pick(R, 0.15)
    t = R.t0 + rng.uniform(20, 60)
    R.t_train = t + 30
    base(R, [r], t, n_decoys=0)
    lines = frames(R, "init") + cuda_err_lines(R, "out of memory")
    R.tb(r, t, lines, ("init",), key_last=len(cuda_err_lines(R, "out of memory")))
    teardown(R, r, t, 1)
    h = R.host_of(r)
    stale = rng.randint(1000, 3_000_000)
    for i, s in enumerate([
        "+-----------------------------------------------------------------------------------------+",
        "| Processes:                                                                              |",
        "|  GPU   GI   CI        PID   Type   Process name                              GPU Memory |",
        "|        ID   ID                                                               Usage      |",
        "|=========================================================================================|",
        "|    %d   N/A  N/A    %7d      C   python3                                    %6dMiB |" % (
            R.local_of(r), stale, int((R.gpu["cap"] - 0.6) * 1024)),
        "+-----------------------------------------------------------------------------------------+"]):
        R.xl("nvidia-smi-%s.txt" % h, R.t_end + 60 + i * 1e-3, s, tags=("init",) if i == 5 else ())
    R.extra_ctx["nvidia-smi-%s.txt" % h] = (None, h)
    set_init(R, r, h, "Rank %d could not even create its CUDA context: a stale process from an earlier job (pid %d) still "
             "held almost all memory of GPU %d on %s." % (r, stale, R.local_of(r), h))


# ---- host_oom_kill ----------------------------------------------------------

def oom_kill_block(R: Run, h: str, t: float, victim_pid: int, comm: str, memcg: str | None, rss_kb: int,
                   tags=("init",), local: int | None = None) -> None:
    rng = R.rng
    R.klog(h, t - 0.02, "%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0" % (
        rng.choice(["python3", "pt_data_worker", "pt_main_thread", comm])))
    R.klog(h, t - 0.019, "CPU: %d PID: %d Comm: %s Not tainted %s" % (
        rng.randint(0, 191), victim_pid + rng.randint(0, 40), comm, rng.choice(["5.15.0-105-generic #115-Ubuntu",
                                                                                  "6.8.0-49-generic #49~22.04.1-Ubuntu",
                                                                                  "4.18.0-513.el8.x86_64 #1"])))
    R.klog(h, t - 0.01, "Tasks state (memory values in pages):")
    if memcg:
        R.klog(h, t - 0.005, "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=%s,mems_allowed=0-1,oom_memcg=%s,"
               "task_memcg=%s,task=%s,pid=%d,uid=%d" % (memcg.split("/")[-1] or "/", memcg, memcg, comm, victim_pid, 1001))
        R.klog(h, t, "Memory cgroup out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, "
               "shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (
                   victim_pid, comm, rss_kb + rng.randint(10**7, 9 * 10**7), rss_kb, rng.randint(100, 900000),
                   rng.randint(0, 4 * 10**6), 1001, rss_kb // 500), tags=tuple(tags) + ("pid:%s:%d" % (h, victim_pid),))
    else:
        if R.layout == "k8s":
            tmc = "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice/cri-containerd-%s.scope" % (
                "".join(rng.choice("0123456789abcdef") for _ in range(8)), "".join(rng.choice("0123456789abcdef") for _ in range(16)))
        elif R.layout == "slurm":
            tmc = "/slurm/uid_1001/job_%d/step_0/task_%d" % (R.job_id, local if local is not None else rng.randint(0, max(0, R.gpn - 1)))
        else:
            tmc = "/user.slice/user-1001.slice/session-%d.scope" % rng.randint(2, 900)
        R.klog(h, t - 0.005, "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,"
               "task_memcg=%s,task=%s,pid=%d,uid=1001" % (tmc, comm, victim_pid))
        R.klog(h, t, "Out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, "
               "UID:1001 pgtables:%dkB oom_score_adj:0" % (victim_pid, comm, rss_kb + rng.randint(10**7, 9 * 10**7), rss_kb,
                                                           rng.randint(100, 900000), rng.randint(0, 4 * 10**6), rss_kb // 500),
               tags=tuple(tags) + ("pid:%s:%d" % (h, victim_pid),))
    R.klog(h, t + rng.uniform(0.05, 0.6), "oom_reaper: reaped process %d (%s), now anon-rss:0kB, file-rss:0kB, shmem-rss:%dkB" % (
        victim_pid, comm, rng.randint(0, 9000)))


def hoom_global(R: Run) -> None:
    rng = R.rng
    r = pick(R)
    h = R.host_of(r)
    at_load = rng.random() < 0.5
    t = R.t_train + rng.uniform(5, 60) if at_load else plan(R, 0.5, 20)
    base(R, [r], t)
    if at_load:
        R.pylog(0, t - 30, "INFO", "loading full checkpoint on every rank: /ckpt/%s/step_%07d (%d GB)" % (
            R.model, rng.randint(1000, 90000), rng.randint(120, 900)))
    else:
        for k in range(rng.randint(2, 5)):
            tt = t - (k + 1) * rng.uniform(900, 3000)
            if tt > R.t_train:
                R.pylog(r, tt, "INFO", "host mem: rss=%.1fGiB avail=%.1fGiB (node total %dGiB)" % (
                    120 - 15 * k, 30 + 40 * k, rng.choice([1024, 2048, 1536])))
    memcg = None
    if R.layout == "slurm" and rng.random() < 0.6:
        memcg = "/slurm/uid_1001/job_%d/step_0/task_%d" % (R.job_id, R.local_of(r))
        R.slurm_oom_event = h
    rss = rng.randint(120, 400) * 1024 * 1024
    oom_kill_block(R, h, t, R.kp(r), "python3", memcg, rss, local=R.local_of(r))
    kernel_noise(R, h, R.t0 - 3000, t + 600, rng.randint(2, 6))
    R.ex(r, t + 0.05, -9)
    teardown(R, r, t, -9)
    set_init(R, r, h, "The %s OOM killer on %s killed rank %d (pid %d, %d GiB RSS)%s; the other ranks failed as "
             "collateral." % ("cgroup" if memcg else "kernel", h, r, R.pids[r], rss // 1048576,
                              " while every rank loaded the full checkpoint into host memory" if at_load else ""))


def hoom_k8s(R: Run) -> None:
    rng = R.rng
    if R.layout != "k8s":
        return hoom_global(R)
    r = pick(R)
    h = R.host_of(r)
    t = plan(R, 0.2, 16)
    base(R, [r], t)
    uid = "".join(rng.choice("0123456789abcdef") for _ in range(8)) + "_" + "".join(rng.choice("0123456789abcdef") for _ in range(4))
    memcg = "/kubepods.slice/kubepods-pod%s.slice/cri-containerd-%s.scope" % (uid, "".join(rng.choice("0123456789abcdef") for _ in range(16)))
    group = rng.random() < 0.5
    rss = int(R.k8s_limits_gi * 1048576 / R.gpn * rng.uniform(1.0, 1.6))
    oom_kill_block(R, h, t, R.kp(r), "python3", memcg, rss)
    R.k8s_events.append((t + 1, "Warning", "OOMKilling", "node/%s" % h, "Memory cgroup out of memory: Killed process %d "
                         "(python3) total-vm:%dkB, anon-rss:%dkB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:%dkB "
                         "oom_score_adj:%d" % (R.kp(r), rss + 9000000, rss, rss // 500, rng.choice([-997, 936, 1000]))))
    if group:
        R.klog(h, t + 0.001, "Tasks in %s are going to be killed due to memory.oom.group set" % memcg)
        for x in R.ranks_on(h):
            if x != r:
                R.klog(h, t + 0.002 + 0.001 * R.local_of(x), "Memory cgroup out of memory: Killed process %d (python3) "
                       "total-vm:%dkB, anon-rss:%dkB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:%dkB oom_score_adj:%d" % (
                           R.kp(x), rss, rss // 2, rss // 900, 936))
        for x in R.ranks_on(h):
            R.ex(x, t + 0.1, -9)
        R.node_reason[h] = "OOMKilled"
        teardown(R, None, t, -9, dead_ranks=R.ranks_on(h))
        set_init(R, None, h, "Pod on %s exceeded its %dGi memory limit; with memory.oom.group the kernel killed every rank in the "
                 "container (OOMKilled, exit 137)." % (h, R.k8s_limits_gi))
    else:
        R.ex(r, t + 0.05, -9)
        R.node_reason[h] = "Error"
        teardown(R, r, t, -9)
        set_init(R, r, h, "A cgroup OOM kill inside the pod on %s took rank %d (pid %d); torchrun saw exitcode -9 and the "
                 "container exited 1, so the pod shows Error rather than OOMKilled." % (h, r, R.pids[r]))


def hoom_dlworker(R: Run) -> None:
    rng = R.rng
    r = pick(R)
    h = R.host_of(r)
    t = plan(R, 0.3, 10)
    base(R, [r], t)
    off = rng.randint(200, 9000)
    wpid = R.pids[r] + off
    memcg = "/slurm/uid_1001/job_%d/step_0/task_%d" % (R.job_id, R.local_of(r)) if R.layout == "slurm" and rng.random() < 0.5 else None
    if memcg:
        R.slurm_oom_event = h
    oom_kill_block(R, h, t - 1.5, R.kp(r) + off, rng.choice(["python3", "pt_data_worker"]), memcg, rng.randint(40, 160) * 1048576,
                   tags=(), local=R.local_of(r))
    lines = dl_worker_tb(R, wpid, "Killed.")
    R.tb(r, t, lines, ("init",), key_last=len(lines))
    teardown(R, r, t, 1)
    set_init(R, r, h, "The OOM killer on %s killed a DataLoader worker (pid %d) of rank %d (host memory, %d workers each "
             "holding decoded samples); the rank raised and the job collapsed." % (h, wpid, r, R.dl_workers))


def hoom_oomd(R: Run) -> None:
    rng = R.rng
    h = R.hosts[0] if R.nnodes == 1 else rng.choice(R.hosts)
    t = plan(R, 0.2, 8)
    base(R, [R.ranks_on(h)[0]], t)
    unit = "/user.slice/user-1001.slice/user@1001.service/app.slice/app-tmux-%d.scope" % rng.randint(1000, 99999)
    parent = "/user.slice/user-1001.slice/user@1001.service"
    pct = rng.uniform(55, 93)
    R.klog(h, t - 2, "systemd-oomd[%d]: Considered %d cgroups for killing, top candidates were:" % (rng.randint(500, 1500), rng.randint(8, 60)),
           tags=())
    R.klog(h, t - 1.99, "systemd-oomd[%d]:         Path: %s" % (812, unit))
    R.klog(h, t - 1.98, "systemd-oomd[%d]:                 Memory Pressure Limit: 0.00%%" % 812)
    R.klog(h, t - 1.97, "systemd-oomd[%d]:                 Pressure: Avg10: %.2f Avg60: %.2f Avg300: %.2f Total: %dmin %ds" % (
        812, pct, pct * 0.8, pct * 0.5, rng.randint(1, 9), rng.randint(0, 59)))
    R.klog(h, t - 1.96, "systemd-oomd[%d]:                 Current Memory Usage: %.1fG" % (812, rng.uniform(400, 1900)))
    R.klog(h, t, "systemd-oomd[812]: Killed %s due to memory pressure for %s being %.2f%% > 50.00%% for > 20s with reclaim "
           "activity" % (unit, parent, pct), tags=("init",))
    R.klog(h, t + 0.1, "systemd[%d]: %s: systemd-oomd killed %d process(es) in this unit." % (
        rng.randint(2000, 9000), unit.split("/")[-1], R.gpn * (1 + R.dl_workers) + 2), tags=())
    for x in R.ranks_on(h):
        R.ex(x, t + 0.2, -9)
    R.oomd_journal = True
    teardown(R, None, t, -9, dead_ranks=R.ranks_on(h))
    set_init(R, None, h, "systemd-oomd on %s killed the whole tmux scope running torchrun (user slice memory pressure %.0f%%), "
             "taking every local rank with it." % (h, pct))


def hoom_leak(R: Run) -> None:
    rng = R.rng
    r = pick(R)
    h = R.host_of(r)
    hours = rng.uniform(4, 30)
    t = R.t_train + hours * 3600
    base(R, [r], t)
    every = rng.choice([1800, 3600])
    tt = R.t_train + every
    total = rng.choice([1024, 2048, 1536])
    while tt < t - 60:
        frac = (tt - R.t_train) / (t - R.t_train)
        R.pylog(r, tt, "INFO", "rank %d host rss %.1f GiB (pinned %.1f GiB), node MemAvailable %.1f GiB" % (
            r, 30 + frac * (total / R.gpn * 3.5), 4 + frac * 40, total * (1 - 0.3 - frac * 0.68)), rv=True)
        tt += every
    memcg = "/slurm/uid_1001/job_%d/step_0/task_%d" % (R.job_id, R.local_of(r)) if R.layout == "slurm" and rng.random() < 0.6 else None
    if memcg:
        R.slurm_oom_event = h
    oom_kill_block(R, h, t, R.kp(r), "python3", memcg, int(total * 0.6) * 1048576, local=R.local_of(r))
    R.ex(r, t + 0.05, -9)
    teardown(R, r, t, -9)
    set_init(R, r, h, "Host memory of rank %d grew for %.0f hours (a pinned-buffer cache that never shrank) until the OOM "
             "killer on %s killed it." % (r, hours, h))


# ---- crash_signal -----------------------------------------------------------

def sig_shm_bus(R: Run) -> None:
    rng = R.rng
    r = pick(R)
    h = R.host_of(r)
    t = plan(R, 0.01, 3)
    base(R, [r], t, n_decoys=0)
    for i, s in enumerate(["NOTE: The SHMEM allocation limit is set to the default of 64MB.  This may be",
                           "   insufficient for PyTorch.  NVIDIA recommends the use of the following flags:",
                           "   docker run --gpus all --ipc=host --ulimit memlock=-1 --ulimit stack=67108864 ..."]):
        R.rl(R.featured[0], R.t0 + 1 + i * 1e-3, s)
    wpid = R.pids[r] + rng.randint(100, 3000)
    R.rl(r, t - 0.4, "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).",
         tags=("init",))
    lines = dl_worker_tb(R, wpid, "Bus error.")
    R.tb(r, t, lines, ("init",), key_last=len(lines))
    R.shm_small = True
    teardown(R, r, t, 1)
    set_init(R, r, h, "A DataLoader worker of rank %d died of SIGBUS because /dev/shm in the container was only 64MB; the "
             "rank raised and the job stopped." % r)


def sig_segv(R: Run) -> None:
    rng = R.rng
    r = pick(R)
    h = R.host_of(r)
    t = plan(R, 0.1, 18)
    base(R, [r], t)
    R.rl(r, t, "Fatal Python error: Segmentation fault", tags=("init",))
    R.rl(r, t + 0.001, "")
    R.rl(r, t + 0.002, "Thread 0x%016x (most recent call first):" % rng.getrandbits(47))
    R.rl(r, t + 0.003, '  File "%s/torch/utils/data/_utils/pin_memory.py", line 54 in do_one_step' % R.site)
    R.rl(r, t + 0.004, '  File "%s/torch/utils/data/_utils/pin_memory.py", line 81 in _pin_memory_loop' % R.site)
    R.rl(r, t + 0.005, "")
    R.rl(r, t + 0.006, "Current thread 0x%016x (most recent call first):" % rng.getrandbits(47))
    R.rl(r, t + 0.007, '  File "%s/%s", line %d in %s' % (R.workdir, rng.choice(["ops/fused_adam_ext.py", "kernels/rope.py",
                                                                              "data/packer.py"]), rng.randint(20, 300),
                                                           rng.choice(["step", "apply_rotary", "pack"])))
    R.rl(r, t + 0.008, '  File "%s/%s", line %d in train' % (R.workdir, R.script, rng.randint(100, 199)))
    R.klog(h, t + 0.01, "python3[%d]: segfault at %x ip %016x sp %016x error 4 in %s[%x+%x] likely on CPU %d (core %d, socket %d)" % (
        R.kp(r), rng.choice([0, 8, 0x18, 0x7f0000000000 + rng.getrandbits(20)]), 0x7f0000000000 + rng.getrandbits(36),
        0x7ffc00000000 + rng.getrandbits(30), rng.choice(["fused_adam_ext.cpython-310-x86_64-linux-gnu.so", "libc.so.6",
                                                          "libtorch_cpu.so"]),
        0x7f0000000000 + rng.getrandbits(30), rng.randint(0x1000, 0x9000000), rng.randint(0, 127), rng.randint(0, 63),
        rng.randint(0, 1)), tags=("init", "pid:%s:%d" % (h, R.kp(r))))
    R.ex(r, t + 0.2, -11)
    teardown(R, r, t, -11)
    set_init(R, r, h, "Rank %d segfaulted in a native extension (no Xid, no OOM on the node); the others died as collateral." % r)


def sig_heap(R: Run) -> None:
    rng = R.rng
    r = pick(R)
    h = R.host_of(r)
    t = plan(R, 0.1, 20)
    base(R, [r], t)
    msg = rng.choice(["free(): invalid pointer", "double free or corruption (!prev)", "corrupted size vs. prev_size",
                      "malloc(): unsorted double linked list corrupted", "munmap_chunk(): invalid pointer"])
    R.rl(r, t, msg, tags=("init",))
    R.rl(r, t + 0.01, "Fatal Python error: Aborted", tags=())
    R.rl(r, t + 0.011, "")
    R.rl(r, t + 0.012, "Current thread 0x%016x (most recent call first):" % rng.getrandbits(47))
    R.rl(r, t + 0.013, '  File "%s/%s", line %d in collate' % (R.workdir, "data/collator.py", rng.randint(20, 200)))
    if R.layout in ("slurm", "paste") and rng.random() < 0.5:
        R.rl(r, t + 0.02, "Aborted (core dumped)")
    R.ex(r, t + 0.1, -6)
    teardown(R, r, t, -6, mode="timeout")
    set_init(R, r, h, "glibc detected heap corruption in rank %d (%s) and aborted it (SIGABRT); the later SIGABRTs on the "
             "other ranks are watchdog aborts, i.e. collateral." % (r, msg))


def sig_bus_main(R: Run) -> None:
    rng = R.rng
    r = pick(R)
    h = R.host_of(r)
    t = plan(R, 0.05, 6)
    base(R, [r], t)
    R.pylog(r, t - 20, "INFO", "torch.multiprocessing sharing strategy: file_system; /dev/shm: %s free" % rng.choice(["61M", "12M", "3.1M"]))
    R.rl(r, t + 0.01, "Fatal Python error: Bus error", tags=("init",))
    R.rl(r, t + 0.012, "")
    R.rl(r, t + 0.013, "Current thread 0x%016x (most recent call first):" % rng.getrandbits(47))
    R.rl(r, t + 0.014, '  File "%s/torch/multiprocessing/reductions.py", line 541 in rebuild_storage_filename' % R.site)
    if R.layout in ("slurm", "paste"):
        R.rl(r, t + 0.02, "Bus error (core dumped)")
    R.shm_small = True
    R.ex(r, t + 0.1, -7)
    teardown(R, r, t, -7)
    set_init(R, r, h, "Rank %d got SIGBUS touching a shared-memory tensor after /dev/shm on %s filled up (file_system "
             "sharing strategy); no GPU fault involved." % (r, h))


# ---- python_exception -------------------------------------------------------

def py_triton_smem(R: Run) -> None:
    rng = R.rng
    r = pick(R)
    t = R.t_train + rng.uniform(30, 4 * 3600)
    base(R, [r], t)
    R.pylog(r, t - 1, "INFO", "packed batch: seq_len=%d (bucket %d)" % (rng.choice([12288, 16384, 24576]), rng.randint(5, 9)))
    exc = rng.choice(["triton.runtime.errors.OutOfResources", "triton.runtime.autotuner.OutOfResources"])
    lines = frames(R, "triton") + ["%s: out of resource: shared memory, Required: %d, Hardware limit: %d. Reducing block sizes "
                                   "or `num_stages` may help." % (exc, rng.choice([262144, 294912, 245760]),
                                                                  232448 if "H" in R.gpu["model"] else 166912)]
    R.tb(r, t, lines, ("init",))
    teardown(R, r, t, 1)
    set_init(R, r, R.host_of(r), "A custom Triton kernel on rank %d asked for more on-chip shared memory (SRAM) than the SM has "
             "for an unusually long packed batch; an uncaught OutOfResources exception, not a CUDA OOM." % r)


def py_cpu_alloc(R: Run) -> None:
    rng = R.rng
    r = pick(R)
    t = R.t_train + rng.uniform(10, 120)
    base(R, [r], t, n_decoys=1)
    n = rng.choice([34359738368, 68719476736, 17179869184, 25769803776])
    lines = frames(R, "load") + ["RuntimeError: [enforce fail at alloc_cpu.cpp:%d] data. DefaultCPUAllocator: not enough memory: "
                                 "you tried to allocate %d bytes." % (rng.choice([114, 117]), n)]
    if rng.random() < 0.5:
        lines[-1] = ("RuntimeError: [enforce fail at alloc_cpu.cpp:83] err == 0. DefaultCPUAllocator: can't allocate memory: you "
                     "tried to allocate %d bytes. Error code 12 (Cannot allocate memory)" % n)
    R.tb(r, t, lines, ("init",))
    teardown(R, r, t, 1)
    set_init(R, r, R.host_of(r), "Rank %d raised a Python exception when the CPU allocator refused a %d GiB buffer while "
             "loading the checkpoint (vm.overcommit/ulimit -v); nothing was OOM-killed." % (r, n // 1073741824))


def py_plain(R: Run) -> None:
    rng = R.rng
    r = pick(R)
    t = plan(R, 0.05, 20)
    base(R, [r], t, n_decoys=rng.choice([1, 2, 3]))
    v = rng.randrange(4)
    if v == 0:
        lines = frames(R, "data")[:-1] + ['  File "%s/data/collator.py", line %d, in __call__' % (R.workdir, rng.randint(20, 90)),
                                         "    labels = [ex[\"labels\"] for ex in batch]", "KeyError: 'labels'"]
        what = "KeyError in the collator for a malformed sample"
    elif v == 1:
        lines = frames(R, "fwd")[:-2] + ["ValueError: Expected input batch_size (%d) to match target batch_size (%d)." % (
            rng.choice([8, 16]), rng.choice([7, 15]))]
        what = "ValueError on a ragged last batch"
    elif v == 2:
        lines = frames(R, "ckpt") + ["RuntimeError: [enforce fail at inline_container.cc:%d] . PytorchStreamWriter failed writing "
                                     "file data/%d: file write failed" % (rng.choice([595, 603, 778]), rng.randint(10, 900))]
        what = "checkpoint write failed (disk full)"
    else:
        lines = frames(R, "bwd")[:3] + ['  File "%s/%s", line %d, in train' % (R.workdir, R.script, rng.randint(100, 199)),
                                        "    assert torch.isfinite(loss), f\"non-finite loss {loss.item()} at step {step}\"",
                                        "AssertionError: non-finite loss nan at step %d" % rng.randint(1000, 90000)]
        what = "AssertionError on a non-finite loss"
    R.tb(r, t, lines, ("init",))
    teardown(R, r, t, 1)
    set_init(R, r, R.host_of(r), "Rank %d died of an uncaught Python exception (%s); memory warnings elsewhere in the logs are "
             "unrelated." % (r, what))


def py_nccl_shm(R: Run) -> None:
    rng = R.rng
    h = rng.choice(R.hosts)
    ranks = R.ranks_on(h)
    r = rng.choice(ranks)
    t = R.t0 + rng.uniform(40, 120)
    R.t_train = t + 60
    base(R, [r], t, n_decoys=0)
    R.shm_small = True
    order = [r] + [x for x in ranks if x != r]
    exc = "torch.distributed.DistBackendError" if R.era["name"] not in ("1.13", "2.1") else "RuntimeError"
    for j, x in enumerate(order):
        if x != r and x not in R.featured:
            continue
        tt = t + j * rng.uniform(0.02, 0.3)
        seg = "".join(rng.choice("ABCDEFGHIJabcdefghij0123456789") for _ in range(6))
        if R.nccl_debug or x == r:
            R.nccl(x, tt - 0.1, "WARN", "Error: failed to extend /dev/shm/nccl-%s to 9637892 bytes, error: No space left on device (28)" % seg,
                   src="misc/shmutils.cc:88")
            R.nccl(x, tt - 0.05, "WARN", "Error while creating shared memory segment /dev/shm/nccl-%s (size 9637888), error: No "
                   "space left on device (28)" % seg, src="misc/shmutils.cc:132", tags=("init",) if x == r else ())
        lines = frames(R, "ddp_init") + [
            "%s: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, unhandled system error (run with "
            "NCCL_DEBUG=INFO for details), NCCL version %s" % (exc, R.era["nccl"]),
            "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ",
            "Last error:",
            "Error while creating shared memory segment /dev/shm/nccl-%s (size 9637888), error: No space left on device (28)" % seg]
        R.tb(x, tt, lines, ("init",) if x == r else (), key_last=4)
        R.ex(x, tt + 0.5, 1)
    teardown(R, r, t, 1)
    set_init(R, r, h, "NCCL could not create its /dev/shm segments on %s (container /dev/shm too small) and raised during "
             "communicator init on the local ranks there; first to raise was rank %d." % (h, r))


# ---- illegal_memory_access --------------------------------------------------

def ima_xid31(R: Run) -> None:
    rng = R.rng
    r = pick(R)
    h = R.host_of(r)
    t = plan(R, 0.1, 30)
    base(R, [r], t)
    xid_preamble(R, r, t - 0.01)
    R.klog(h, t - 0.008, xid_line(R, r, 31, "channel 0x%08x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC%d GPCCLIENT_T1_%d "
                                     "faulted @ 0x%x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_%s" % (
                                         rng.randint(2, 40), rng.randint(0, 7), rng.randint(0, 15), rng.randint(0x7f00, 0x7fff),
                                         rng.getrandbits(32), rng.choice(["READ", "WRITE"]))),
           tags=("init", "xid:%s:%s" % (h, R.bus_key(r)), "pid:%s:%d" % (h, R.kp(r))))
    kind = rng.choice(["fwd", "bwd", "opt"])
    lines = frames(R, kind) + cuda_err_lines(R, "an illegal memory access was encountered")
    R.tb(r, t, lines, ("init",), key_last=len(cuda_err_lines(R, "x")))
    if R.nccl_debug and rng.random() < 0.5:
        R.nccl(r, t + 0.3, "WARN", "Cuda failure 'an illegal memory access was encountered'", src="enqueue.cc:%d" % rng.randint(1000, 1600))
    kernel_noise(R, h, R.t0 - 5000, t + 100, rng.randint(1, 4))
    teardown(R, r, t, 1 if rng.random() < 0.6 else -6)
    set_init(R, r, h, "Rank %d hit an illegal memory access (application bug; Xid 31 MMU fault for its pid) - an application "
             "fault, not bad GPU memory." % r)


def ima_assert(R: Run) -> None:
    rng = R.rng
    r = pick(R)
    h = R.host_of(r)
    t = plan(R, 0.02, 10)
    base(R, [r], t)
    for k in range(rng.randint(2, 6)):
        R.rl(r, t - 0.01 + k * 1e-4, "../aten/src/ATen/native/cuda/Indexing.cu:1308: indexSelectLargeIndex: block: [%d,0,0], "
             "thread: [%d,0,0] Assertion `srcIndex < srcSelectDimSize` failed." % (rng.randint(0, 9000), rng.randint(0, 127)),
             tags=("init",) if k == 0 else ())
    if rng.random() < 0.6:
        xid_preamble(R, r, t)
        R.klog(h, t + 0.001, xid_line(R, r, 13, "Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Assert" % (
            rng.randint(0, 7), rng.randint(0, 8), rng.randint(0, 1))), tags=("xid:%s:%s" % (h, R.bus_key(r)),))
        R.klog(h, t + 0.002, xid_line(R, r, 13, "Graphics Exception: ESR 0x%06x=0x%x 0x%06x=0x0 0x%06x=0x%x" % (
            rng.randint(0x500000, 0x5fffff), rng.getrandbits(24), rng.randint(0x500000, 0x5fffff), rng.randint(0x500000, 0x5fffff),
            rng.getrandbits(16))))
    lines = frames(R, "fwd") + cuda_err_lines(R, "device-side assert triggered")
    R.tb(r, t + 0.05, lines, ("init",), key_last=4)
    teardown(R, r, t, 1)
    set_init(R, r, h, "A device-side assert (embedding index out of range) on rank %d; Xid 13 from the application, the GPU "
             "is fine." % r)


def ima_triton(R: Run) -> None:
    rng = R.rng
    r = pick(R)
    h = R.host_of(r)
    t = plan(R, 0.2, 12)
    base(R, [r], t)
    xid_preamble(R, r, t)
    R.klog(h, t + 0.001, xid_line(R, r, 31, "channel 0x%08x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC%d GPCCLIENT_T1_%d "
                                     "faulted @ 0x%x_%08x. Fault is of type FAULT_PTE ACCESS_TYPE_VIRT_WRITE" % (
                                         rng.randint(2, 40), rng.randint(0, 7), rng.randint(0, 15), rng.randint(0x7f00, 0x7fff),
                                         rng.getrandbits(32))), tags=("init", "xid:%s:%s" % (h, R.bus_key(r))))
    lines = frames(R, "triton") + ["RuntimeError: Triton Error [CUDA]: an illegal memory access was encountered"]
    R.tb(r, t + 0.01, lines, ("init",))
    if R.nccl_debug:
        R.nccl(r, t + 0.2, "WARN", "Cuda failure 'an illegal memory access was encountered'", src="proxy.cc:%d" % rng.randint(1400, 1900))
    teardown(R, r, t, 1)
    set_init(R, r, h, "An out-of-bounds store in a custom Triton kernel on rank %d (Xid 31 for its pid); application fault." % r)


# ---- ecc_memory -------------------------------------------------------------

def ecc_dbe(R: Run) -> None:
    rng = R.rng
    r = pick(R)
    h = R.host_of(r)
    t = plan(R, 0.5, 40)
    base(R, [r], t)
    addr = rng.getrandbits(34)
    xid_preamble(R, r, t)
    tg = ("init", "xid:%s:%s" % (h, R.bus_key(r)))
    R.klog(h, t, xid_line(R, r, 48, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at "
                             "physAddr 0x%x partition %d, subpartition %d." % (addr, rng.randint(0, 31), rng.randint(0, 3)),
                          pid=rng.random() < 0.5), tags=tg)
    R.klog(h, t + 0.05, xid_line(R, r, 63, "Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % addr),
           tags=tg)
    R.klog(h, t + 0.06, xid_line(R, r, 94, "Contained: SM (0x1). RST: No, D-RST: No"), tags=tg)
    if rng.random() < 0.7 and R.driver_major() >= 565:
        R.klog(h, t + 0.07, "NVRM: Xid (PCI:%s): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)" % R.pci(r),
               tags=tg)
    if rng.random() < 0.85:
        lines = frames(R, rng.choice(["fwd", "bwd"])) + cuda_err_lines(R, "uncorrectable ECC error encountered")
        R.tb(r, t + 0.2, lines, ("init",), key_last=4)
    kernel_noise(R, h, R.t0 - 9000, t + 100, rng.randint(1, 4))
    teardown(R, r, t, 1)
    set_init(R, r, h, "Uncorrectable HBM error (Xid 48 DBE, row marked for remapping, Xid 94 contained) on GPU %d of %s "
             "under rank %d; drain and reset that GPU." % (R.local_of(r), h, r))


def ecc_remap_fail(R: Run) -> None:
    rng = R.rng
    r = pick(R)
    h = R.host_of(r)
    t = plan(R, 0.5, 40)
    base(R, [r], t)
    tg = ("init", "xid:%s:%s" % (h, R.bus_key(r)))
    xid_preamble(R, r, t)
    R.klog(h, t, xid_line(R, r, 64, "Row Remapper Error: (0x%016x) - All reserved rows for bank are remapped" % rng.getrandbits(36),
                          pid=False), tags=tg)
    R.klog(h, t + 0.01, xid_line(R, r, 95, "Uncontained: LTC TAG (0x%x, 0x%x). RST: Yes, D-RST: No" % (rng.randint(1, 4), rng.randint(0, 3))),
           tags=tg)
    if R.nccl_debug or rng.random() < 0.5:
        R.nccl(r, t + 0.1, "WARN", "Cuda failure 'uncorrectable ECC error encountered'", src="enqueue.cc:%d" % rng.randint(1000, 1600))
    exc = "torch.distributed.DistBackendError" if R.era["name"] not in ("1.13", "2.1") else "RuntimeError"
    lines = frames(R, "bwd") + ["%s: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d, unhandled cuda error "
                                "(run with NCCL_DEBUG=INFO for details), NCCL version %s" % (exc, rng.choice([1970, 2027, 3104]),
                                                                                            R.era["nccl"]),
                                "ncclUnhandledCudaError: Call to CUDA function failed.", "Last error:",
                                "Cuda failure 'uncorrectable ECC error encountered'"]
    R.tb(r, t + 0.3, lines, ("init",), key_last=4)
    name = "nvidia-smi-q-%s.txt" % h
    busf = "0000%s:%s:00.0" % (R.gpu["dom"], R.bus(r).upper())
    for i, s in enumerate(["", "==============NVSMI LOG==============", "",
                           "Timestamp                                 : %s" % R.lt(h, t + 1800).strftime("%a %b %d %H:%M:%S %Y"),
                           "Driver Version                            : %s" % R.era["driver"],
                           "CUDA Version                              : %s" % R.era["cuda"], "",
                           "Attached GPUs                             : %d" % R.gpn,
                           "GPU %s" % busf,
                           "    Remapped Rows",
                           "        Correctable Error                 : %d" % rng.randint(0, 3),
                           "        Uncorrectable Error               : %d" % rng.randint(8, 16),
                           "        Pending                           : No",
                           "        Remapping Failure Occurred        : Yes",
                           "        Bank Remap Availability Histogram",
                           "            Max                           : %d bank(s)" % rng.randint(600, 640),
                           "            High                          : 0 bank(s)",
                           "            Partial                       : 0 bank(s)",
                           "            Low                           : 0 bank(s)",
                           "            None                          : 1 bank(s)"]):
        R.xl(name, t + 1800 + i * 1e-3, s, tags=("init",) if "Failure Occurred" in s else ())
    R.extra_ctx[name] = (None, h)
    teardown(R, r, t, 1)
    set_init(R, r, h, "GPU %d on %s ran out of spare rows (Xid 64 row-remap failure, Xid 95 uncontained); rank %d's NCCL call "
             "surfaced the ECC error. RMA candidate." % (R.local_of(r), h, r))


def ecc_dcgm(R: Run) -> None:
    rng = R.rng
    r = pick(R)
    h = R.host_of(r)
    t = plan(R, 0.5, 30)
    base(R, [r], t)
    lines = frames(R, "fwd") + cuda_err_lines(R, "uncorrectable ECC error encountered")
    R.tb(r, t, lines, ("init",), key_last=4)
    name = "dcgm-%s.prom" % h
    for g in range(R.gpn):
        rr = R.ranks_on(h)[g] if g < len(R.ranks_on(h)) else R.ranks_on(h)[0]
        lab = 'gpu="%d",UUID="%s",pci_bus_id="0000%s:%s:00.0",device="nvidia%d",modelName="%s",Hostname="%s"' % (
            g, gpu_uuid(R, rr), R.gpu["dom"], R.bus(rr).upper(), g, R.gpu["model"], h)
        bad = rr == r
        R.xl(name, t + 60 + g * 1e-3, "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL{%s} %d" % (lab, rng.randint(1, 4) if bad else 0),
             tags=("init",) if bad else ())
        R.xl(name, t + 60 + g * 1e-3 + 1e-4, "DCGM_FI_DEV_XID_ERRORS{%s,err_code=\"%d\",err_msg=\"%s\"} %d" % (
            lab, 48 if bad else 0, "Double Bit ECC Error" if bad else "", 48 if bad else 0))
        R.xl(name, t + 60 + g * 1e-3 + 2e-4, "DCGM_FI_DEV_ROW_REMAP_PENDING{%s} %d" % (lab, 1 if bad else 0))
        R.xl(name, t + 60 + g * 1e-3 + 3e-4, "DCGM_FI_DEV_FB_USED{%s} %d" % (lab, int(R.mem_peak * 1024) if not bad else 0))
    R.extra_ctx[name] = (None, h)
    teardown(R, r, t, 1)
    set_init(R, r, h, "Double-bit ECC error on GPU %d of %s (DCGM DBE counter and Xid 48) under rank %d; the other ranks "
             "timed out." % (R.local_of(r), h, r))


# ---- gpu_hardware -----------------------------------------------------------

def hw_xid79(R: Run) -> None:
    rng = R.rng
    r = pick(R)
    h = R.host_of(r)
    t = plan(R, 0.5, 40)
    base(R, [r], t)
    if rng.random() < 0.5:
        R.klog(h, t - 0.4, "pcieport 0000:%02x:01.0: AER: Uncorrected (Fatal) error received: 0000:%s.0" % (
            int(R.bus(r), 16) - 1, R.pci(r)[5:]))
    R.klog(h, t, "NVRM: Xid (PCI:%s): 79, GPU has fallen off the bus." % R.pci(r), tags=("init", "xid:%s:%s" % (h, R.bus_key(r))))
    R.klog(h, t + 0.001, "NVRM: GPU %s.0: GPU has fallen off the bus." % R.pci(r), tags=("xid:%s:%s" % (h, R.bus_key(r)),))
    R.klog(h, t + 0.5, "NVRM: nvGpuOpsReportFatalError: uvm encountered global fatal error 0x60, requiring os reboot to recover.")
    if rng.random() < 0.7:
        lines = frames(R, "fwd") + cuda_err_lines(R, rng.choice(["unspecified launch failure", "unknown error"]))
        R.tb(r, t + 0.8, lines, ("init",), key_last=4)
        teardown(R, r, t, 1)
    else:
        R.ex(r, t + R.timeout_ms / 1000 + 60, -6)
        teardown(R, r, t, -6, mode="timeout", t_wait=t)
    kernel_noise(R, h, R.t0 - 9000, t + 100, rng.randint(1, 3))
    set_init(R, r, h, "GPU %d on %s fell off the bus (Xid 79) under rank %d; reboot/drain the node." % (R.local_of(r), h, r))


def hw_gsp(R: Run) -> None:
    rng = R.rng
    r = pick(R)
    h = R.host_of(r)
    t = plan(R, 0.5, 40)
    base(R, [r], t)
    tg = ("init", "xid:%s:%s" % (h, R.bus_key(r)))
    R.klog(h, t, xid_line(R, r, 119, "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function %s (0x%x 0x%x)." % (
        R.local_of(r), rng.choice(["103 (GSP_RM_ALLOC)", "76 (GSP_RM_CONTROL)", "10 (FREE)"]), rng.randint(0x2000, 0x20ff), rng.randint(0, 8))),
        tags=tg)
    R.klog(h, t + 0.01, "NVRM: GPU%d GSP RPC buffer contains function %d (%s) and data 0x%016x 0x%016x." % (
        R.local_of(r), 76, "GSP_RM_CONTROL", rng.getrandbits(40), rng.getrandbits(20)))
    if R.driver_major() >= 565:
        R.klog(h, t + 8, "NVRM: Xid (PCI:%s): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)" % R.pci(r),
               tags=tg)
    seq = rng.randint(5000, 90000)
    # the rank itself is wedged in a CUDA call: its watchdog stalls, the peers time out
    tw = t + R.timeout_ms / 1000.0 + rng.uniform(5, 30)
    R.glog(r, t + 480 + rng.uniform(0, 30), "F" if R.era["name"] == "2.3" else "E", "ProcessGroupNCCL.cpp:%d" % R.src("pg87500", [1278, 1424]),
           "%s ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress "
           "in monitoring enqueued collectives. This typically indicates a NCCL/CUDA API (e.g., CudaEventDestroy) hang blocking "
           "the watchdog, and could be triggered by another thread holding the GIL inside a CUDA api (for example, "
           "CudaEventDestroy), or other deadlock-prone behaviors.If you suspect the watchdog is not actually stuck and a longer "
           "timeout would help, you can either increase the timeout (TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC) to larger value or "
           "disable the heartbeat monitor (TORCH_NCCL_ENABLE_MONITORING=0).If either of aforementioned helps, feel free to file "
           "an issue to PyTorch about the short timeout or false positive abort; otherwise, please attempt to debug the hang. " % (
               R.era["pg"].format(r=r) if R.era["pg"] else "[Rank %d]" % r),
           tags=("init",))
    R.ex(r, t + 480 + 35, -6)
    teardown(R, None, t + 515, -6, mode="timeout", dead_ranks=[r], t_wait=t)
    set_init(R, r, h, "GSP firmware on GPU %d of %s stopped answering (Xid 119, then Xid 154 reset required); rank %d wedged in "
             "a CUDA call and its watchdog heartbeat fired." % (R.local_of(r), h, r))


# ---- nvlink -----------------------------------------------------------------

def nvl_xid74(R: Run) -> None:
    rng = R.rng
    r = pick(R)
    h = R.host_of(r)
    t = plan(R, 0.5, 40)
    base(R, [r], t)
    link = rng.randint(0, 17)
    R.klog(h, t, xid_line(R, r, 74, "NVLink: fatal error detected on link %d(0x%x, 0x0, 0x%x, 0x0, 0x0, 0x0, 0x0)" % (
        link, rng.choice([0x10000, 0x2, 0x100]), rng.getrandbits(16)), pid=rng.random() < 0.5),
        tags=("init", "xid:%s:%s" % (h, R.bus_key(r))))
    if R.nccl_debug or rng.random() < 0.5:
        R.nccl(r, t + 0.3, "WARN", "Cuda failure 'uncorrectable NVLink error detected during the execution'",
               src="transport/p2p.cc:%d" % rng.randint(200, 900))
    lines = frames(R, "bwd") + cuda_err_lines(R, "uncorrectable NVLink error detected during the execution")
    R.tb(r, t + 0.5, lines, ("init",), key_last=4)
    teardown(R, r, t, 1)
    set_init(R, r, h, "Fatal NVLink error on link %d of GPU %d on %s (Xid 74); rank %d got the uncorrectable NVLink CUDA "
             "error." % (link, R.local_of(r), h, r))


def nvl_gb200(R: Run) -> None:
    rng = R.rng
    r = pick(R)
    h = R.host_of(r)
    t = plan(R, 0.5, 30)
    base(R, [r], t)
    link = rng.randint(0, 17)
    tg = ("init", "xid:%s:%s" % (h, R.bus_key(r)))
    R.klog(h, t, "NVRM: Xid (PCI:%s): 149, NETIR_LINK_EVT Fatal XC0 i0 Link %02d (0x%08x 0x00000000 0x00000000 0x00000000 "
           "0x00000000 0x00000000)" % (R.pci(r), link, rng.choice([0x004505c6, 0x004504c6, 0x00450dc6])), tags=tg)
    if R.driver_major() >= 565:
        R.klog(h, t + 0.2, "NVRM: Xid (PCI:%s): 154, GPU recovery action changed from 0x0 (None) to 0x4 (Drain and Reset)" % R.pci(r),
               tags=tg)
    lines = frames(R, "fwd") + cuda_err_lines(R, "uncorrectable NVLink error detected during the execution")
    R.tb(r, t + 0.6, lines, ("init",), key_last=4)
    teardown(R, r, t, 1)
    set_init(R, r, h, "NVLink5 link %d of the GPU under rank %d on %s went down fatally (Xid 149, Xid 154 drain and reset)." % (
        link, r, h))


# ---- network ----------------------------------------------------------------

def net_rail(R: Run) -> None:
    rng = R.rng
    r = pick(R, 0.0)
    h = R.host_of(r)
    t = plan(R, 0.5, 30)
    base(R, [r], t)
    hca = "mlx5_%d" % rng.choice([0, 3, 4, 5, 6, 9, 10, 11])
    nic_pci = "0000:%02x:00.0" % rng.choice([0x0c, 0x2a, 0x41, 0x5c, 0x9c, 0xbb, 0xcc, 0xdc])
    R.klog(h, t - 2.5, "mlx5_core %s: Port module event: module %d, Cable unplugged" % (nic_pci, R.local_of(r)),
           tags=("init",))
    R.klog(h, t - 2.4, "mlx5_core %s %s: Link down" % (nic_pci, rng.choice(["ibp%ds0" % int(nic_pci[5:7], 16), "ens%dnp0" % R.local_of(r)])),
           tags=("init",))
    e = R.era["name"]
    if e in ("1.13", "2.1"):
        st = "error 12, opcode 0, len 0, vendor err 129"
    elif e in ("2.3",):
        st = "status=12 opcode=0 len=0 vendor err 129 (Send) localGid ::ffff:10.%d.0.%d remoteGid ::ffff:10.%d.1.%d" % (
            rng.randint(0, 9), rng.randint(2, 250), rng.randint(0, 9), rng.randint(2, 250))
    elif e in ("2.5",):
        st = "status=12 opcode=0 len=0 vendor err 129 (Send) localGid ::ffff:10.%d.0.%d remoteGid ::ffff:10.%d.1.%d hca %s" % (
            rng.randint(0, 9), rng.randint(2, 250), rng.randint(0, 9), rng.randint(2, 250), hca)
    else:
        st = "status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_SEND(0) vendor_err=129 localGid ::ffff:10.%d.0.%d remoteGid " \
             "::ffff:10.%d.1.%d hca %s" % (rng.randint(0, 9), rng.randint(2, 250), rng.randint(0, 9), rng.randint(2, 250), hca)
    sep = "NET/IB : Got" if e in ("1.13", "2.1", "2.3") else "NET/IB: Got"
    R.nccl(r, t, "WARN", "%s completion from peer 10.%d.%d.%d<%d> with %s" % (
        sep, rng.randint(0, 9), rng.randint(0, 255), rng.randint(2, 250), rng.randint(30000, 60999), st),
        src="transport/net_ib.cc:%d" % rng.choice([1696, 2167, 2373]), tags=("init",))
    exc = "torch.distributed.DistBackendError" if e not in ("1.13", "2.1") else "RuntimeError"
    pg = R.era["pg"].format(r=r) if R.era["pg"] else "[Rank %d]" % r
    R.glog(r, t + 1, "E", "ProcessGroupNCCL.cpp:%d" % R.src("pg31810", [1316, 1595]), "%s Process group watchdog thread terminated with "
           "exception: NCCL error: remote process exited or there was a network error, NCCL version %s" % (pg, R.era["nccl"]))
    R.rl(r, t + 1.1, "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.")
    R.rl(r, t + 1.11, "Last error:")
    R.rl(r, t + 1.12, "%s completion from peer ... with %s" % (sep, st.split(" localGid")[0]))
    R.rl(r, t + 1.2, "terminate called after throwing an instance of '%s'" % ("c10::DistBackendError" if exc != "RuntimeError" else "std::runtime_error"))
    R.ex(r, t + 2, -6)
    teardown(R, r, t, -6, mode="remote")
    set_init(R, r, h, "The InfiniBand rail (%s, NIC %s) serving GPU %d on %s lost link; rank %d got IBV_WC_RETRY_EXC_ERR first "
             "and the job fell apart." % (hca, nic_pci, R.local_of(r), h, r))


def net_node(R: Run) -> None:
    rng = R.rng
    h = rng.choice(R.hosts[1:] if R.nnodes > 1 else R.hosts)
    t = plan(R, 0.5, 30)
    base(R, [R.ranks_on(h)[0]], t)
    nic = rng.choice(["bond0", "eth0", "ens3f0np0"])
    R.klog(h, t - 4, "%s: Link is Down" % nic if nic != "bond0" else "bond0: (slave ens3f0np0): link status definitely down, "
           "disabling slave", tags=("init",))
    if nic == "bond0":
        R.klog(h, t - 3.9, "bond0: now running without any active interface!", tags=("init",))
    R.klog(h, t - 3.8, "mlx5_core 0000:%02x:00.0 %s: Link down" % (rng.choice([0x0c, 0x41, 0x5c]), "ens3f0np0"))
    dead = R.ranks_on(h)
    for x in dead:
        if x in R.featured:
            R.nccl(x, t + rng.uniform(0, 20), "WARN", "socketProgressOpt: Call to recv from 10.%d.%d.%d<%d> failed : Connection timed out" % (
                rng.randint(0, 9), rng.randint(0, 255), rng.randint(2, 250), rng.randint(30000, 60999)), src="misc/socket.cc:%d" % 440)
    for x in dead:
        R.ex(x, t + R.timeout_ms / 1000 + rng.uniform(0, 30), -6)
        if x in R.featured:
            watchdog(R, x, R.exits[x].t - 0.5, rng.randint(3000, 90000), "ALLREDUCE", 1)
    teardown(R, None, t, -6, mode="remote", dead_ranks=dead)
    set_init(R, None, h, "The front-end network of %s (%s) went down; NCCL sockets to and from that node failed while its "
             "GPUs were healthy." % (h, nic))


# ---- preemption -------------------------------------------------------------

def pre_slurm(R: Run) -> None:
    rng = R.rng
    t = plan(R, 0.5, 30)
    base(R, [], t)
    R.slurm_reason = "PREEMPTION"
    h0 = R.hosts[0]
    R.sched.append(L(t, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (
        R.job_id, h0, R.ts_iso(h0, t)), ("init",)))
    for r in R.featured:
        if rng.random() < 0.5:
            R.pylog(r, t + 0.3, "WARNING", "rank %d received SIGTERM; writing emergency checkpoint" % r, rv=True)
    for r in range(R.world):
        R.ex(r, t + rng.uniform(0.5, 25), -15)
    R.t_end = t + 40
    set_init(R, None, None, "Slurm preempted the whole job (a higher-priority job took the nodes); every rank got SIGTERM "
             "together. Resubmit.")


def pre_node(R: Run) -> None:
    rng = R.rng
    if R.nnodes < 2:
        return pre_slurm(R) if R.layout == "slurm" else pre_single(R)
    h = rng.choice(R.hosts)
    t = plan(R, 0.5, 30)
    base(R, [R.ranks_on(h)[0]], t)
    dead = R.ranks_on(h)
    if R.layout == "k8s":
        R.k8s_events.append((t - 30, "Warning", "NodeShutdown", "node/%s" % h, "Shutdown manager detected shutdown event"))
        R.k8s_events.append((t - 29, "Normal", "Preempted", "node/%s" % h, "Spot VM reclaimed by the cloud provider"))
        R.node_reason[h] = "Terminated"
        R.klog(h, t - 30, "systemd-logind[%d]: Power key pressed short." % rng.randint(800, 2000), tags=("init",))
    else:
        R.klog(h, t - 30, "systemd-logind[%d]: Power key pressed short." % rng.randint(800, 2000), tags=("init",))
        R.klog(h, t - 29.5, "systemd-logind[%d]: Powering off..." % rng.randint(800, 2000), tags=("init",))
        R.klog(h, t - 29, "systemd[1]: Stopping Session %d of User %s..." % (rng.randint(2, 90), rng.choice(["ubuntu", "ec2-user", "train"])))
    for x in dead:
        if x in R.featured and rng.random() < 0.5:
            R.pylog(x, t - 28, "WARNING", "rank %d got SIGTERM (signal 15), exiting" % x, rv=True)
        R.ex(x, t - 27 + rng.uniform(0, 2), -15)
    teardown(R, None, t - 27, -15, mode=rng.choice(["remote", "timeout"]), dead_ranks=dead)
    set_init(R, None, h, "The spot/preemptible VM %s was reclaimed (ACPI power button, graceful shutdown); its ranks got "
             "SIGTERM and the others lost their peers. Resubmit." % h)


def pre_single(R: Run) -> None:
    return pre_node(R) if R.nnodes > 1 else pre_slurm(R) if R.layout == "slurm" else pre_vm1(R)


def pre_vm1(R: Run) -> None:
    rng = R.rng
    h = R.hosts[0]
    t = plan(R, 0.5, 20)
    base(R, [0], t)
    R.klog(h, t - 30, "systemd-logind[%d]: Power key pressed short." % rng.randint(800, 2000), tags=("init",))
    R.klog(h, t - 29.5, "systemd-logind[%d]: Powering off..." % rng.randint(800, 2000), tags=("init",))
    for x in range(R.world):
        R.ex(x, t - 27 + rng.uniform(0, 2), -15)
    R.t_end = t
    set_init(R, None, h, "The preemptible VM %s was reclaimed; systemd shut it down and every rank got SIGTERM." % h)


# ---- hang -------------------------------------------------------------------

def hang_rank(R: Run) -> None:
    rng = R.rng
    r = pick(R)
    h = R.host_of(r)
    t = plan(R, 0.3, 30)
    base(R, [r], t)
    seq = rng.randint(3000, 200000)
    where = rng.choice(["gc", "lock", "snapshot", "tokenizer"])
    to = R.timeout_ms / 1000.0
    op = rng.choice(["ALLREDUCE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE"])
    for x in range(R.world):
        if x == r:
            continue
        te = t + to + rng.uniform(-5, 25)
        if x in R.featured:
            watchdog(R, x, te, seq, op, rng.choice([262144000, 50331648]))
        R.ex(x, te + rng.uniform(0.3, 3), -6)
    if R.era["fr"]:
        R.glog(r, t + to + 40, "E", "ProcessGroupNCCL.cpp:1674", "%s Observed flight recorder dump signal from another rank via "
               "TCPStore." % R.era["pg"].format(r=r))
    R.ex(r, t + to + rng.uniform(40, 90), -15 if R.per_node_agent else -9)
    R.t_end = t + to + 120
    stack = {
        "gc": ['    gc.collect()  # every 500 steps', "Thread %d (idle): \"pt_autograd_0\""],
        "lock": ["    logger.info(msg)", '    emit (logging/__init__.py:1100)', '    acquire (logging/__init__.py:917)'],
        "snapshot": ["    torch.cuda.memory._dump_snapshot(path)", '    _dump_snapshot (torch/cuda/memory.py:1001)',
                     "    write (pickle file on /mnt/nfs)"],
        "tokenizer": ["    enc = tokenizer(texts, padding=True)", '    _batch_encode_plus (transformers/tokenization_utils_fast.py:528)'],
    }[where]
    name = "py-spy-dump-rank%d.txt" % r
    lines = ["Process %d: %s -u %s/%s" % (R.pids[r], "/usr/bin/python3", R.workdir, R.script),
             "Python v%s (/usr/bin/python%s)" % (R.era["py"] + ".12", R.era["py"]), "",
             "Thread %d (active): \"MainThread\"" % R.pids[r]] + ["    " + s.strip() for s in stack] + [
        "    train_step (%s/%s:%d)" % (R.workdir, R.script, rng.randint(100, 300)),
        "    train (%s/%s:%d)" % (R.workdir, R.script, rng.randint(100, 300)),
        "    main (%s/%s:%d)" % (R.workdir, R.script, rng.randint(300, 400))]
    if rng.random() < 0.8:
        for i, s in enumerate(lines):
            R.xl(name, t + to + 20 + i * 1e-3, s, tags=("init",) if i == 0 else (), rv=False)
        R.extra_ctx[name] = (r, None)
    if R.era["fr"] and rng.random() < 0.7:
        fr = "fr_trace_analysis.txt"
        out = ["Not all ranks joining collective %d at entry %d" % (seq, rng.randint(100, 1999)),
               "group info: 0:default_pg", "collective: nccl:%s" % {"ALLREDUCE": "all_reduce", "_ALLGATHER_BASE":
                                                                        "_all_gather_base", "_REDUCE_SCATTER_BASE":
                                                                        "_reduce_scatter_base"}[op],
               "missing ranks: {%d}" % r, "input sizes: [[%d]]" % rng.choice([262144000, 50331648]),
               "world size: %d" % R.world, "expected ranks: {%s}" % (", ".join(str(x) for x in range(min(R.world, 8))) +
                                                                    (", ..." if R.world > 8 else "")),
               "collective state: scheduled"]
        for i, s in enumerate(out):
            R.xl(fr, t + to + 300 + i * 1e-3, s, tags=("namer",) if s.startswith("missing") else ())
    set_init(R, r, h, "Rank %d stopped making progress (%s) and never entered collective %d; every other rank timed out "
             "waiting for it." % (r, {"gc": "a multi-minute gc.collect() over a huge heap", "lock":
                                     "deadlocked on the logging lock after a fork", "snapshot":
                                     "writing a CUDA memory snapshot to a stuck NFS mount", "tokenizer":
                                     "tokenizer thread pool deadlock after fork"}[where], seq))


# ---- data_loader_stall ------------------------------------------------------

def dl_stall(R: Run) -> None:
    rng = R.rng
    r = pick(R)
    h = R.host_of(r)
    t = plan(R, 0.3, 20)
    base(R, [r], t)
    to = R.timeout_ms / 1000.0
    for k in range(rng.randint(3, 6)):
        tt = t - (6 - k) * rng.uniform(30, 120)
        R.pylog(r, tt, "WARNING", "rank %d: data wait %.1fs for step (median %.2fs)" % (r, rng.uniform(5, 60) * (k + 1), 0.03),
                tags=("init",), rv=True)
    fs = rng.choice(["nfs: server nas-%02d not responding, still trying" % rng.randint(1, 9),
                     "Lustre: %s-OST%04x-osc-ffff%08x: Connection to %s-OST%04x (at 10.%d.%d.%d@o2ib) was lost; in progress "
                     "operations using this service will wait for recovery to complete" % ("scratch", rng.randint(0, 60),
                                                                                           rng.getrandbits(32), "scratch",
                                                                                           rng.randint(0, 60), rng.randint(0, 9),
                                                                                           rng.randint(0, 255), rng.randint(2, 250))])
    R.klog(h, t - 200, fs)
    R.klog(h, t + 130, "INFO: task pt_data_worker:%d blocked for more than 122 seconds." % (R.pids[r] + rng.randint(100, 900)))
    R.klog(h, t + 130.01, "      Not tainted 5.15.0-105-generic #115-Ubuntu")
    R.klog(h, t + 130.02, "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.")
    seq = rng.randint(3000, 200000)
    for x in range(R.world):
        if x == r:
            continue
        te = t + to + rng.uniform(-5, 25)
        if x in R.featured:
            watchdog(R, x, te, seq, "ALLREDUCE", rng.choice([262144000, 50331648]))
        R.ex(x, te + rng.uniform(0.3, 3), -6)
    if rng.random() < 0.5 and to < 1800:
        lines = frames(R, "data")[:-1] + ['  File "%s/torch/utils/data/dataloader.py", line 1262, in _try_get_data' % R.site,
                                         "    raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e",
                                         "RuntimeError: DataLoader timed out after 1800 seconds"]
        R.tb(r, t + 1800, lines, ("init",))
        R.ex(r, t + 1801, 1)
        R.t_end = t + 1810
    else:
        R.ex(r, t + to + 50, -15 if R.per_node_agent else -9)
        R.t_end = t + to + 90
        name = "py-spy-dump-rank%d.txt" % r
        for i, s in enumerate(["Process %d: /usr/bin/python3 -u %s/%s" % (R.pids[r], R.workdir, R.script), "",
                               "Thread %d (idle): \"MainThread\"" % R.pids[r],
                               "    wait (threading.py:324)", "    get (queue.py:180)",
                               "    _try_get_data (torch/utils/data/dataloader.py:1243)",
                               "    _get_data (torch/utils/data/dataloader.py:1402)",
                               "    _next_data (torch/utils/data/dataloader.py:1448)",
                               "    __next__ (torch/utils/data/dataloader.py:701)",
                               "    train (%s/%s:%d)" % (R.workdir, R.script, rng.randint(100, 200))]):
            R.xl(name, t + to + 10 + i * 1e-3, s, tags=("init",) if "dataloader.py:1243" in s else ())
        R.extra_ctx[name] = (r, None)
    set_init(R, r, h, "Rank %d starved in data loading (storage on %s stopped answering: %s); its peers hit the collective "
             "timeout first, but the stall began on rank %d." % (r, h, fs.split(":")[0], r))


# ---- collective_mismatch ----------------------------------------------------

def cm_oom_skip(R: Run) -> None:
    rng = R.rng
    r = pick(R)
    h = R.host_of(r)
    t = plan(R, 0.3, 20)
    base(R, [r], t)
    step = rng.randint(1000, 90000)
    R.pylog(r, t - 2, "WARNING", "rank %d: CUDA OOM in backward at step %d (%s) - skipping this batch" % (
        r, step, "Tried to allocate %s" % gib(rng.choice([1.0, 2.0, 3.91]))), rv=True)
    R.pylog(r, t - 1.9, "INFO", "rank %d: torch.cuda.empty_cache() done, continuing with step %d" % (r, step + 1), rv=True)
    seq = rng.randint(3000, 90000)
    opts = ("TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false "
            "(default), pinned_memory=false (default), memory_format=(nullopt))")
    odd = "CollectiveFingerPrint(SequenceNumber=%d, OpType=ALLREDUCE, TensorShape=[1], TensorDtypes=Float, %s)" % (seq, opts)
    norm = "CollectiveFingerPrint(SequenceNumber=%d, OpType=ALLREDUCE, TensorShape=[262144000], TensorDtypes=BFloat16, %s)" % (
        seq, opts)
    diff = "Collectives differ in the following aspects: \t  Tensor Tensor shapes: %svs %s  Tensor Tensor dtypes: %svs %s"
    for x in R.featured:
        if x == r:
            other = 0 if r != 0 else 1
            msg = "Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running " \
                  "collective: %s.%s" % (r, odd, other, norm, diff % ("1", "262144000", "Float", "BFloat16"))
        else:
            msg = "Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running " \
                  "collective: %s.%s" % (x, norm, r, odd, diff % ("262144000", "1", "BFloat16", "Float"))
        lines = frames(R, "bwd")[:4] + ['  File "%s/torch/distributed/distributed_c10d.py", line 2501, in all_reduce' % R.site,
                                         "    work = group.allreduce([tensor], opts)", "RuntimeError: " + msg]
        R.tb(x, t + rng.uniform(0, 2), lines, ("namer",))
    for x in range(R.world):
        R.ex(x, t + rng.uniform(2, 6), 1)
    R.t_end = t + 20
    set_init(R, r, h, "Rank %d caught a CUDA OOM and skipped its batch alone, so its next all-reduce no longer matched the "
             "other ranks' (TORCH_DISTRIBUTED_DEBUG=DETAIL caught the mismatch). The caught OOM is handled; the fault is the "
             "per-rank skip." % r)


def cm_fr(R: Run) -> None:
    rng = R.rng
    r = pick(R)
    h = R.host_of(r)
    if not R.era["fr"]:
        R.era = ERAS[4]
    t = plan(R, 0.1, 10)
    base(R, [r], t)
    seq = rng.randint(100, 90000)
    for x in range(R.world):
        te = t + R.timeout_ms / 1000 + rng.uniform(-5, 20)
        if x in R.featured:
            watchdog(R, x, te, seq, "_ALLGATHER_BASE" if x != r else "ALLREDUCE", 4096 * 4096 if x != r else 4096 * 4104)
        R.ex(x, te + 1, -6)
    R.t_end = t + R.timeout_ms / 1000 + 60
    fr = "fr_trace_analysis.txt"
    out = ["Not all ranks joining collective %d at entry %d" % (seq, rng.randint(100, 1999)), "internal record id: %d" % rng.randint(100, 9999),
           "group info: 0:default_pg", "collective: nccl:_all_gather_base", "missing ranks: {}",
           "input sizes: [[4096, 4096]]", "output sizes: [[%d, 4096]]" % (4096 * R.world), "world size: %d" % R.world,
           "collective state: scheduled",
           "error msg: Culprit rank %d; Error type: COLLECTIVE_TYPE_MISMATCH, Expected collective type: 'nccl:_all_gather_base' "
           "does not match found collective type: 'nccl:all_reduce'" % r]
    for i, s in enumerate(out):
        R.xl(fr, R.t_end + 200 + i * 1e-3, s, tags=("namer",) if "Culprit" in s else ())
    set_init(R, r, h, "Rank %d issued an all_reduce where every other rank issued _all_gather_base (a rank-conditional code "
             "path); everyone then timed out. The Flight Recorder analysis names the culprit." % r)


# ---- straggler --------------------------------------------------------------

def strag_gpu(R: Run) -> None:
    rng = R.rng
    r = pick(R)
    h = R.host_of(r)
    hours = rng.uniform(2, 14)
    t = R.t_train + hours * 3600
    base(R, [r], t)
    why = rng.choice(["HW Slowdown", "HW Thermal Slowdown", "HW Power Brake Slowdown"])
    every = rng.choice([600, 1200, 1800])
    tt = R.t_train + every
    while tt < t:
        for x in R.featured:
            slow = x == r
            R.pylog(x, tt + rng.uniform(0, 1), "INFO", "rank %d timing: fwd %.0fms bwd %.0fms opt %.0fms comm-wait %.0fms" % (
                x, (310 if not slow else 540) * rng.uniform(0.97, 1.03), (620 if not slow else 1100) * rng.uniform(0.97, 1.03),
                40 * rng.uniform(0.9, 1.1), (710 if not slow else 15) * rng.uniform(0.9, 1.1)),
                tags=("init",) if slow else (), rv=True)
        tt += every
    name = "nvidia-smi-q-%s.txt" % h
    for i, s in enumerate(["GPU %s:%s:00.0" % ("0000" + R.gpu["dom"], R.bus(r).upper()), "    Clocks Event Reasons",
                           "        Idle                              : Not Active",
                           "        Applications Clocks Setting       : Not Active",
                           "        SW Power Cap                      : Not Active",
                           "        HW Slowdown                       : %s" % ("Active" if why != "" else "Not Active"),
                           "            HW Thermal Slowdown           : %s" % ("Active" if why == "HW Thermal Slowdown" else "Not Active"),
                           "            HW Power Brake Slowdown       : %s" % ("Active" if why == "HW Power Brake Slowdown" else "Not Active"),
                           "    Clocks",
                           "        Graphics                          : %d MHz" % rng.randint(600, 990),
                           "        SM                                : %d MHz" % rng.randint(600, 990)]):
        R.xl(name, t - 100 + i * 1e-3, s, tags=("init",) if s.strip().startswith("HW Slowdown") else ())
    R.extra_ctx[name] = (None, h)
    if R.layout == "slurm" and rng.random() < 0.6:
        R.slurm_reason = "TIME LIMIT"
        R.sched.append(L(t, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (
            R.job_id, R.hosts[0], R.ts_iso(R.hosts[0], t))))
        for x in range(R.world):
            R.ex(x, t + rng.uniform(0.5, 30), -15)
        R.t_end = t + 40
    else:
        finish_ok(R, t)
    set_init(R, r, h, "GPU %d on %s ran with clocks cut (%s active) for the whole run; rank %d was ~1.8x slower in compute and "
             "every other rank waited on it." % (R.local_of(r), h, why, r))


def strag_swap(R: Run) -> None:
    rng = R.rng
    if R.nnodes < 2:
        return strag_gpu(R)
    h = rng.choice(R.hosts)
    ranks = R.ranks_on(h)
    hours = rng.uniform(2, 10)
    t = R.t_train + hours * 3600
    base(R, [ranks[0]], t)
    every = rng.choice([900, 1800])
    tt = R.t_train + every
    while tt < t:
        for x in R.featured:
            slow = x in ranks
            R.pylog(x, tt + rng.uniform(0, 1), "INFO", "rank %d: step %.2fs data %.2fs h2d %.2fs" % (
                x, R.step_time * rng.uniform(0.98, 1.02), (0.02 if not slow else rng.uniform(1.5, 4.0)),
                (0.01 if not slow else rng.uniform(0.4, 1.2))), tags=("init",) if slow else (), rv=True)
        tt += every
    name = "vmstat-%s.txt" % h
    R.xl(name, t - 50, "procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----")
    R.xl(name, t - 49.99, " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st")
    for i in range(6):
        R.xl(name, t - 49.9 + i, "%2d %2d %8d %6d %5d %6d %5d %5d %5d %5d %5d %5d %2d %2d %2d %2d  0" % (
            rng.randint(20, 90), rng.randint(4, 30), rng.randint(30_000_000, 60_000_000), rng.randint(90000, 400000),
            rng.randint(100, 2000), rng.randint(900000, 3000000), rng.randint(8000, 90000), rng.randint(9000, 120000),
            rng.randint(20000, 90000), rng.randint(9000, 99000), rng.randint(9000, 40000), rng.randint(20000, 90000),
            rng.randint(5, 20), rng.randint(20, 60), rng.randint(0, 10), rng.randint(20, 60)), tags=("init",) if i == 0 else ())
    R.extra_ctx[name] = (None, h)
    finish_ok(R, t)
    set_init(R, None, h, "%s was swapping (host memory overcommitted by a co-located job); its ranks were slow in data/H2D "
             "every step and the whole job ran at that node's pace. Nothing crashed." % h)


# ---- unknown ----------------------------------------------------------------

def unk_timeouts(R: Run) -> None:
    rng = R.rng
    t = plan(R, 0.5, 20)
    base(R, [], t)
    R.unk_hide = [rng.choice(R.hosts)] if R.nnodes > 1 else []
    seq = rng.randint(3000, 200000)
    for x in range(R.world):
        te = t + R.timeout_ms / 1000 + rng.uniform(-5, 25)
        if x in R.featured and R.host_of(x) not in R.unk_hide:
            watchdog(R, x, te, seq, "ALLREDUCE", rng.choice([262144000, 50331648]))
        R.ex(x, te + rng.uniform(0.3, 3), -6)
    R.t_end = t + R.timeout_ms / 1000 + 60
    R.featured = [x for x in R.featured if R.host_of(x) not in R.unk_hide] or [0]
    set_init(R, None, None, "Every attached rank timed out in the same all-reduce and nothing in the bundle shows which rank "
             "or node stopped first (the logs of the node that likely failed were not collected).")


def unk_137(R: Run) -> None:
    rng = R.rng
    h = rng.choice(R.hosts)
    t = plan(R, 0.5, 20)
    base(R, [R.ranks_on(h)[0]], t)
    for x in R.ranks_on(h):
        R.ex(x, t + rng.uniform(0, 0.3), -9)
    if R.layout == "k8s":
        R.node_reason[h] = "Error"
        R.k137 = True
    teardown(R, None, t, -9, dead_ranks=R.ranks_on(h))
    set_init(R, None, h, "All ranks on %s were SIGKILLed at once (exit 137) with no OOM, Xid or scheduler record in the "
             "bundle; the kill's origin is unknown." % h)


# ---- healthy ----------------------------------------------------------------

def ok_end(R: Run, t: float) -> None:
    R.pylog(0, t - 5, "INFO", "Training completed. Saving final model to /ckpt/%s/final" % R.model)
    finish_ok(R, t)


def ok_retries(R: Run) -> None:
    rng = R.rng
    if R.era["name"] != "2.13":
        R.era = ERAS[-1]
    t = plan(R, 0.5, 20)
    base(R, [pick(R)], t, n_decoys=0)
    for _ in range(rng.randint(2, 4)):
        r = rng.choice(R.featured)
        h = R.host_of(r)
        t1 = rng.uniform(R.t_train, t - 60)
        for j in range(rng.randint(3, 20)):
            tt = t1 + j * rng.uniform(0.01, 5)
            R.rl(r, tt, "[rank%d]:[W%s CUDACachingAllocator.cpp:3933] memory allocation failed with OOM on device %d while "
                 "trying to allocate %d bytes (free: %d, total: %d)." % (
                     r, R.ts_glog(h, tt), R.local_of(r), rng.choice([20971520, 2097152, 1073741824]),
                     rng.randint(2_000_000, 40_000_000), int(R.gpu["cap"] * 1073741824)), rv=True)
    memory_summary(R, rng.choice(R.featured), t - 30, rng.randint(5, 400), 0)
    ok_end(R, t)
    set_init(R, None, None, "Healthy: the caching allocator logged recoverable cudaMalloc OOM retries near full memory, "
             "freed its cache and carried on; the run finished.")


def ok_ds_flush(R: Run) -> None:
    rng = R.rng
    t = plan(R, 0.5, 20)
    base(R, [], t, n_decoys=0)
    for _ in range(rng.randint(4, 14)):
        r = rng.choice(R.featured)
        tt = rng.uniform(R.t_train, t)
        R.rl(r, tt, "[%s] [WARNING] [stage3.py:%d:step] %d pytorch allocator cache flushes since last step. this happens when "
             "there is high memory pressure and is detrimental to performance. if this is happening frequently consider "
             "adjusting settings to reduce memory consumption. If you are unable to make the cache flushes go away consider "
             "adding get_accelerator().empty_cache() calls in your training loop to ensure that all ranks flush their caches "
             "at the same time" % (R.ts_py(R.host_of(r), tt), rng.choice([1939, 2069, 2117]), rng.randint(1, 6)))
    ok_end(R, t)
    set_init(R, None, None, "Healthy: ZeRO-3 warned about allocator cache flushes under memory pressure (slow, not fatal); "
             "the run finished.")


def ok_probe(R: Run) -> None:
    rng = R.rng
    t = plan(R, 0.5, 16)
    base(R, [], t, n_decoys=1)
    cap = R.gpu["cap"]
    mb = rng.choice([64, 32, 16])
    tp = R.t_train - 40
    for r in R.featured[: rng.randint(1, 3)]:
        m = mb
        for k in range(rng.randint(1, 3)):
            R.pylog(r, tp + k * 6, "WARNING", "auto batch-size probe: micro_batch_size=%d failed: %s: %s" % (
                m, R.era["oomexc"], oom_text(R, r, rng.choice([2.0, 4.0, 8.0]), 0.4, cap - 2.1, 0.9)))
            m //= 2
        R.pylog(r, tp + 20, "INFO", "auto batch-size probe: using micro_batch_size=%d (peak %.1f GiB), gradient_accumulation_steps=%d" % (
            m, R.mem_peak, mb // m))
    memory_summary(R, 0, R.t_train - 5, rng.randint(1, 9), rng.randint(1, 3))
    ok_end(R, t)
    set_init(R, None, None, "Healthy: an auto batch-size probe caught CUDA OOMs at large micro-batches, settled on a smaller "
             "one, and the run trained to completion.")


def ok_summary(R: Run) -> None:
    rng = R.rng
    t = plan(R, 0.5, 30)
    base(R, [], t, n_decoys=rng.randint(2, 4))
    for x in R.featured:
        if rng.random() < 0.4:
            for k in range(rng.randint(2, 5)):
                tt = rng.uniform(R.t_train, t)
                memlog(R, x, tt, R.mem_base + rng.uniform(-0.5, 0.5), min(R.gpu["cap"] - 0.5, R.mem_peak + 3), R.mem_peak)
    memory_summary(R, rng.choice(R.featured), t - 100, rng.randint(0, 60), 0)
    ok_end(R, t)
    set_init(R, None, None, "Healthy: periodic memory summaries and high-water marks close to capacity, but no failure; the "
             "run finished.")


def ok_eval_oom(R: Run) -> None:
    rng = R.rng
    t = plan(R, 1, 20)
    base(R, [], t)
    for k in range(rng.randint(1, 3)):
        r = rng.choice(R.featured)
        tt = rng.uniform(R.t_train + 600, t - 100)
        R.pylog(r, tt, "WARNING", "eval: %s: CUDA out of memory. Tried to allocate %s - retrying eval with batch size %d" % (
            R.era["oomexc"], gib(rng.choice([3.91, 7.81, 1.95])), rng.choice([8, 4, 2])))
        R.pylog(r, tt + 60, "INFO", "eval: step %d val_loss %.4f ppl %.2f" % (rng.randint(1000, 90000), rng.uniform(1.5, 3), rng.uniform(4, 20)))
    ok_end(R, t)
    set_init(R, None, None, "Healthy: an evaluation pass hit CUDA OOM, caught it, retried with a smaller batch and training "
             "continued to the end.")


def ok_unrelated_oom(R: Run) -> None:
    rng = R.rng
    t = plan(R, 1, 20)
    base(R, [], t)
    h = rng.choice(R.hosts)
    comm = rng.choice(["jupyter-lab", "node_exporter", "rsync", "tensorboard", "code-server"])
    oom_kill_block(R, h, rng.uniform(R.t_train + 600, t - 300), rng.randint(2000, 3_000_000), comm, None,
                   rng.randint(2, 60) * 1048576, tags=())
    kernel_noise(R, h, R.t0, t, rng.randint(2, 5))
    ok_end(R, t)
    set_init(R, None, None, "Healthy: the kernel OOM killer on %s killed an unrelated process (%s), not a rank; training "
             "finished." % (h, comm))


def ok_xid63(R: Run) -> None:
    rng = R.rng
    t = plan(R, 1, 20)
    base(R, [], t)
    r = rng.choice(R.featured)
    h = R.host_of(r)
    tt = rng.uniform(R.t_train + 600, t - 300)
    xid_preamble(R, r, tt)
    R.klog(h, tt, xid_line(R, r, 63, "Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % rng.getrandbits(34)))
    kernel_noise(R, h, R.t0, t, rng.randint(1, 4))
    ok_end(R, t)
    set_init(R, None, None, "Healthy: a correctable-error row remap was recorded on %s (Xid 63, pending until the next GPU "
             "reset) while the job ran on; it finished cleanly." % h)


def ok_restart(R: Run) -> None:
    rng = R.rng
    r = pick(R)
    h = R.host_of(r)
    t1 = plan(R, 0.5, 8)
    base(R, [r], t1)
    kind = rng.choice(["cuda", "host"])
    if kind == "cuda":
        R.tb(r, t1, frames(R, "bwd") + ["%s: %s" % (R.era["oomexc"], oom_text(R, r, 2.0, 0.3, R.gpu["cap"] - 2.6, 1.2))])
    else:
        oom_kill_block(R, h, t1, R.kp(r), "python3", None, rng.randint(200, 500) * 1048576, tags=(), local=R.local_of(r))
    t2 = t1 + rng.uniform(60, 400)
    if R.layout in ("torchrun", "k8s") or R.slurm_torchrun:
        for hh in R.hosts:
            R.alog(hh, t1 + 3, "@AGENT:restart:%d:%d" % (r, 1 if kind == "cuda" else -9))
    elif R.layout == "slurm":
        R.sched.append(L(t1 + 5, "srun: error: %s: task %d: %s" % (h, r, "Exited with exit code 1" if kind == "cuda" else "Killed")))
        R.sched.append(L(t1 + 9, "[wrapper] attempt 1 of 3 failed (exit %d); resuming from latest checkpoint" % (1 if kind == "cuda" else 137)))
    elif R.layout == "deepspeed":
        R.alog(h, t1 + 3, "@DS:restart:%d:%d" % (r, 1 if kind == "cuda" else -9))
    else:
        R.pylog(0, t1 + 30, "INFO", "job restarted by the cluster wrapper (attempt 2)")
    ck = max(0, R.last_step - R.last_step % 500)
    R.pylog(0, t2, "INFO", "Resumed from /ckpt/%s/step_%07d" % (R.model, ck))
    t3 = t2 + rng.uniform(1, 10) * 3600
    progress(R, t2 + 30, t3, n_lines=rng.randint(10, 30), s0=ck)
    ok_end(R, t3)
    set_init(R, None, None, "Healthy in the end: rank %d hit a %s at first, the job was restarted from its checkpoint and "
             "then finished cleanly." % (r, "CUDA OOM" if kind == "cuda" else "host OOM kill"))


# --------------------------------------------------------------------------
# variant tables: (function, weight, requirements)
# --------------------------------------------------------------------------

VARIANTS: dict[str, list] = {
    "cuda_oom": [(oom_alloc, 4, {}), (oom_cublas, 1, {}), (oom_nccl_calloc, 2, {}), (oom_leak, 2, {}),
                 (oom_ds3, 1, {"layouts": ["deepspeed", "slurm", "paste"]}), (oom_inductor, 1, {}), (oom_cudnn, 1, {}),
                 (oom_trt, 1, {}), (oom_stale, 1, {})],
    "host_oom_kill": [(hoom_global, 3, {}), (hoom_k8s, 3, {"layouts": ["k8s"]}), (hoom_dlworker, 2, {}),
                      (hoom_oomd, 1, {"layouts": ["torchrun", "paste"], "one_node": True}), (hoom_leak, 2, {})],
    "crash_signal": [(sig_shm_bus, 3, {}), (sig_segv, 2, {}), (sig_heap, 2, {}), (sig_bus_main, 1, {})],
    "python_exception": [(py_triton_smem, 2, {}), (py_cpu_alloc, 2, {}), (py_plain, 2, {}), (py_nccl_shm, 2, {})],
    "illegal_memory_access": [(ima_xid31, 3, {}), (ima_assert, 2, {}), (ima_triton, 1, {})],
    "ecc_memory": [(ecc_dbe, 3, {}), (ecc_remap_fail, 2, {}), (ecc_dcgm, 2, {"layouts": ["k8s"]})],
    "gpu_hardware": [(hw_xid79, 3, {}), (hw_gsp, 2, {})],
    "nvlink": [(nvl_xid74, 3, {"min_gpn": 2}), (nvl_gb200, 1, {"gpu": 4, "min_gpn": 2})],
    "network": [(net_rail, 3, {"min_nodes": 2}), (net_node, 2, {"min_nodes": 2})],
    "preemption": [(pre_slurm, 2, {"layouts": ["slurm"]}),
                   (pre_node, 3, {"min_nodes": 2, "layouts": ["torchrun", "k8s", "deepspeed", "paste"]}),
                   (pre_vm1, 1, {"one_node": True, "layouts": ["torchrun", "paste", "deepspeed"]})],
    "hang": [(hang_rank, 1, {})],
    "data_loader_stall": [(dl_stall, 1, {})],
    "collective_mismatch": [(cm_oom_skip, 1, {}), (cm_fr, 1, {})],
    "straggler": [(strag_gpu, 2, {}), (strag_swap, 1, {"min_nodes": 2})],
    "unknown": [(unk_timeouts, 2, {"min_nodes": 2}), (unk_137, 2, {"layouts": ["k8s", "slurm", "torchrun", "deepspeed"]})],
    None: [(ok_retries, 2, {}), (ok_ds_flush, 1, {"layouts": ["deepspeed", "slurm", "paste"]}), (ok_probe, 2, {}),
           (ok_summary, 1, {}), (ok_eval_oom, 1, {}), (ok_unrelated_oom, 1, {"layouts": ["slurm", "torchrun", "k8s", "deepspeed"]}),
           (ok_xid63, 1, {"layouts": ["slurm", "torchrun", "k8s", "deepspeed"]}), (ok_restart, 2, {})],
}


# --------------------------------------------------------------------------
# rendering: documents keep, for each written line, what a reader can tell
# about where it came from (rank known? host known?)
# --------------------------------------------------------------------------


class Doc:
    def __init__(self, name: str):
        self.name = name
        self.rows: list[list] = []   # [text, L | None, rank_known, host_known]

    def raw(self, text: str) -> None:
        self.rows.append([text, None, False, False])

    def add(self, text: str, line: L | None, rk: bool, hk: bool) -> None:
        self.rows.append([text, line, rk, hk])

    def keep_tail(self, n: int, marker: str) -> None:
        if len(self.rows) > n:
            self.rows = [[marker, None, False, False]] + self.rows[-n:]

    def cut_middle(self, rng: random.Random, k: int) -> None:
        """Drop a few runs of unremarkable lines and leave a visible marker."""
        for _ in range(k):
            if len(self.rows) < 60:
                return
            a = rng.randrange(10, len(self.rows) - 30)
            n = rng.randint(5, 25)
            seg = self.rows[a:a + n]
            if any(r[1] is not None and r[1].tags for r in seg):
                continue
            marker = rng.choice(["[... %d lines omitted ...]", "<snip %d lines>", "...", "----- %d lines skipped -----"])
            if "%d" in marker:
                marker = marker % (n * rng.randint(3, 400))
            self.rows[a:a + n] = [[marker, None, False, False]]

    def text(self) -> str:
        return "\n".join(r[0] for r in self.rows) + "\n"


def hostlist(hosts: list[str]) -> str:
    """Compress consecutive numeric suffixes the way Slurm prints node lists."""
    if len(hosts) <= 4:
        return ",".join(hosts)
    import re
    m0 = re.match(r"^(.*?)(\d+)$", hosts[0])
    if not m0:
        return ",".join(hosts)
    pre, w = m0.group(1), len(m0.group(2))
    nums = []
    for h in hosts:
        m = re.match(r"^(.*?)(\d+)$", h)
        if not m or m.group(1) != pre or len(m.group(2)) != w:
            return ",".join(hosts)
        nums.append(int(m.group(2)))
    parts = []
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        parts.append(("%0*d" % (w, nums[i])) if i == j else "%0*d-%0*d" % (w, nums[i], w, nums[j]))
        i = j + 1
    return "%s[%s]" % (pre, ",".join(parts))


def ranges(xs: list[int]) -> str:
    xs = sorted(xs)
    out = []
    i = 0
    while i < len(xs):
        j = i
        while j + 1 < len(xs) and xs[j + 1] == xs[j] + 1:
            j += 1
        out.append(str(xs[i]) if i == j else "%d-%d" % (xs[i], xs[j]))
        i = j + 1
    return ",".join(out)


SIGNAME = {-9: "SIGKILL", -6: "SIGABRT", -15: "SIGTERM", -11: "SIGSEGV", -7: "SIGBUS"}


def first_failure(R: Run) -> tuple[int | None, str | None]:
    bad = sorted((e.t, r) for r, e in R.exits.items() if e.code != 0)
    if not bad:
        return None, None
    return bad[0][1], R.host_of(bad[0][1])


def exit_tags(R: Run, r: int | None, h: str | None) -> tuple:
    """Exit/summary lines about the first failure are initiator evidence when they are about the initiator."""
    fr, fh = first_failure(R)
    if R.healthy or fr is None:
        return ()
    if r is not None and R.init_rank is not None and r == R.init_rank == fr:
        return ("init",)
    if r is None and h is not None and R.init_host is not None and h == R.init_host == fh and R.init_rank is None:
        return ("init",)
    return ()


def kernel_doc(R: Run, h: str, style: str, name: str) -> Doc:
    d = Doc(name)
    lines = sorted(R.kern.get(h, []), key=lambda x: x.t)
    for ln in lines:
        if style == "journal":
            txt = "%s %s kernel: %s" % (R.lt(h, ln.t).strftime("%b %d %H:%M:%S"), h, ln.text)
            if ln.text.startswith("systemd"):
                txt = "%s %s %s" % (R.lt(h, ln.t).strftime("%b %d %H:%M:%S"), h, ln.text)
        elif style == "dmesg":
            txt = "[%12.6f] %s" % (ln.t - R.t0 + R.boot[h], ln.text)
        else:
            txt = "[%s] %s" % (R.lt(h, ln.t).strftime("%a %b %d %H:%M:%S %Y"), ln.text)
        d.add(txt, ln, False, True)
    return d


def extra_docs(R: Run, prefix: str = "") -> list[Doc]:
    out = []
    for name, lines in R.extra.items():
        d = Doc(prefix + name)
        rk_r, hk_h = R.extra_ctx.get(name, (None, None))
        for ln in sorted(lines, key=lambda x: x.t):
            d.add(ln.text, ln, rk_r is not None, hk_h is not None)
        out.append(d)
    return out


def agent_ts(R: Run, h: str, t: float, lvl: str, src: str) -> str:
    if R.era["agent"] == "old":
        mod = src.split(".py")[0].replace("/", ".")
        return "%s:%s:" % ({"W": "WARNING", "E": "ERROR", "I": "INFO"}[lvl], mod)
    return "%s%s %d %s] " % (lvl, R.ts_glog_us(h, t), R.agent_pid[h], src)


def agent_header(R: Run, h: str, rdzv: bool) -> list[tuple[float, str]]:
    t = R.t0 + 2
    out = []
    pre = agent_ts(R, h, t, "W", "torch/distributed/run.py:793")
    old = R.era["agent"] == "old"
    for i, s in enumerate(["", "*****************************************",
              "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being "
              "overloaded, please further tune the variable for optimal performance in your application as needed. ",
              "*****************************************"]):
        out.append((t, (pre if (i == 0 or not old) else "") + s))
    if rdzv:
        i = R.node_index(h)
        ranks = R.ranks_on(h)
        pre = agent_ts(R, h, t + 5, "I", "torch/distributed/elastic/agent/server/api.py:525")
        out.append((t + 5, pre + "[default] Rendezvous complete for workers. Result:"))
        for s in ["  restart_count=0", "  master_addr=%s" % R.inner(0), "  master_port=29500", "  group_rank=%d" % i,
                  "  group_world_size=%d" % R.nnodes, "  local_ranks=%s" % [R.local_of(x) for x in ranks],
                  "  role_ranks=%s" % ranks, "  global_ranks=%s" % ranks,
                  "  role_world_sizes=%s" % ([R.world] * len(ranks),),
                  "  global_world_sizes=%s" % ([R.world] * len(ranks),)]:
            out.append((t + 5, s))
    return out


def agent_exit_lines(R: Run, h: str) -> list[tuple[float, str, tuple, bool]]:
    """torchrun agent lines derived from the exits of host h: (t, text, tags, rank_visible)."""
    rng = R.rng
    ranks = R.ranks_on(h)
    ex = [(R.exits[x].t, x, R.exits[x].code) for x in ranks if x in R.exits]
    ex.sort()
    out: list[tuple[float, str, tuple, bool]] = []
    bad = [e for e in ex if e[2] not in (0, -15)]
    if not bad:
        bad = [e for e in ex if e[2] != 0]
    if not bad:
        t = max(e[0] for e in ex) if ex else R.t_end
        out.append((t + 1, agent_ts(R, h, t + 1, "I", "torch/distributed/elastic/agent/server/api.py:879") +
                    "[default] worker group successfully finished. Waiting 300 seconds for other agents to finish.", (), False))
        out.append((t + 1.1, agent_ts(R, h, t + 1.1, "I", "torch/distributed/elastic/agent/server/api.py:932") +
                    "Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish", (), False))
        out.append((t + 2, agent_ts(R, h, t + 2, "I", "torch/distributed/elastic/agent/server/api.py:946") +
                    "Done waiting for other agents. Elapsed: %.4f seconds" % rng.uniform(0.001, 40), (), False))
        return out
    t1, r1, c1 = bad[0]
    for (te, x, c) in ex:
        if c == -15 and te >= t1:
            out.append((t1 + 0.3, agent_ts(R, h, t1 + 0.3, "W", "torch/distributed/elastic/multiprocessing/api.py:897") +
                        "Sending process %d closing signal SIGTERM" % R.pids[x], (), False))
    tg = exit_tags(R, r1, None) or exit_tags(R, None, h)
    out.append((t1 + 1.5, agent_ts(R, h, t1 + 1.5, "E", "torch/distributed/elastic/multiprocessing/api.py:869") +
                "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: /usr/bin/python3" % (c1, R.local_of(r1), R.pids[r1]),
                tg, False))
    tb = ["Traceback (most recent call last):",
          '  File "/usr/local/bin/torchrun", line 8, in <module>', "    sys.exit(main())",
          '  File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper' % R.site,
          "    return f(*args, **kwargs)",
          '  File "%s/torch/distributed/launcher/api.py", line 263, in launch_agent' % R.site,
          "    raise ChildFailedError(",
          "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
          "============================================================", "%s FAILED" % R.script,
          "------------------------------------------------------------", "Failures:"]
    t2 = max([t1 + 2] + [e[0] + 0.5 for e in ex if e[2] == -15 and e[0] >= t1])
    for s in tb:
        out.append((t2, s, (), False))
    others = [e for e in bad[1:] if e[0] - t1 < 2.0][:3]
    if not others:
        out.append((t2, "  <NO_OTHER_FAILURES>", (), False))

    def block(idx: int, te: float, x: int, c: int, tags: tuple) -> None:
        out.append((t2, "[%d]:" % idx, (), False))
        out.append((t2, "  time      : %s" % R.lt(h, te).strftime("%Y-%m-%d_%H:%M:%S"), (), False))
        out.append((t2, "  host      : %s" % (R.inner(x) if rng.random() < 0.9 else "localhost"), tags, False))
        out.append((t2, "  rank      : %d (local_rank: %d)" % (x, R.local_of(x)), tags, True))
        out.append((t2, "  exitcode  : %d (pid: %d)" % (c, R.pids[x]), tags, True))
        out.append((t2, "  error_file: <N/A>", (), False))
        if c < 0:
            out.append((t2, "  traceback : Signal %d (%s) received by PID %d" % (-c, SIGNAME.get(c, "SIG"), R.pids[x]), tags, True))
        else:
            out.append((t2, "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html", (), False))

    for i, (te, x, c) in enumerate(others):
        block(i + 1, te, x, c, ())
    out.append((t2, "------------------------------------------------------------", (), False))
    out.append((t2, "Root Cause (first observed failure):", (), False))
    block(0, t1, r1, c1, tg)
    out.append((t2, "============================================================", (), False))
    return out


def restart_lines(R: Run, h: str, t: float, r: int, code: int) -> list[str]:
    pre = agent_ts(R, h, t, "W", "torch/distributed/elastic/agent/server/api.py:722")
    if R.host_of(r) != h:
        return [agent_ts(R, h, t + 8, "I", "torch/distributed/elastic/agent/server/api.py:752") +
                "[default] Detected 1 new nodes from group_rank=%d; will restart worker group" % R.node_index(R.host_of(r)),
                agent_ts(R, h, t + 9, "I", "torch/distributed/elastic/agent/server/api.py:862") + "[default] Stopping worker group",
                agent_ts(R, h, t + 14, "I", "torch/distributed/elastic/agent/server/api.py:525") +
                "[default] Rendezvous complete for workers. Result:", "  restart_count=1"]
    return [agent_ts(R, h, t - 1, "E", "torch/distributed/elastic/multiprocessing/api.py:869") +
            "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: /usr/bin/python3" % (code, R.local_of(r), R.pids[r]),
            pre + "[default] Worker group FAILED. 2/3 attempts left; will restart worker group",
            agent_ts(R, h, t + 1, "I", "torch/distributed/elastic/agent/server/api.py:862") +
            "[default] Stopping worker group",
            agent_ts(R, h, t + 6, "I", "torch/distributed/elastic/agent/server/api.py:525") +
            "[default] Rendezvous complete for workers. Result:", "  restart_count=1"]


def console_doc(R: Run, h: str, name: str, tee: bool, rdzv: bool, hk: bool) -> Doc:
    """A torchrun console: agent lines plus the node's ranks' output (optionally tee-prefixed)."""
    d = Doc(name)
    items: list[tuple[float, int, str, L | None, bool]] = []
    for (t, s) in agent_header(R, h, rdzv):
        items.append((t, 0, s, None, False))
    for x in R.ranks_on(h):
        for ln in R.rank_lines.get(x, []):
            pre = "[default%d]:" % R.local_of(x) if tee else ""
            items.append((ln.t, 1, pre + ln.text, ln, tee and rdzv))
    for ln in R.agent.get(h, []):
        if ln.text.startswith("@AGENT:restart"):
            _, _, rr, cc = ln.text.split(":")
            for s in restart_lines(R, h, ln.t, int(rr), int(cc)):
                items.append((ln.t, 2, s, None, False))
        else:
            items.append((ln.t, 2, ln.text, ln, ln.rv))
    for (t, s, tags, rv) in agent_exit_lines(R, h):
        items.append((t, 3, s, L(t, s, tags, rv, False) if tags else None, rv))
    items.sort(key=lambda x: (x[0], x[1]))
    for (t, _, s, ln, rk) in items:
        if ln is None:
            d.raw(s)
        else:
            d.add(s, ln, rk, hk)
    return d


def pick_hosts(R: Run, k_max: int, p_init: float) -> list[str]:
    rng = R.rng
    hs = [R.host_of(0)]
    if R.init_host and R.init_host not in hs and rng.random() < p_init:
        hs.append(R.init_host)
    cand = []
    for x in R.featured:
        h = R.host_of(x)
        if h not in hs and h not in cand and h not in R.unk_hide:
            cand.append(h)
    rng.shuffle(cand)
    for h in cand:
        if len(hs) >= k_max:
            break
        if rng.random() < 0.6:
            hs.append(h)
    return [h for h in R.hosts if h in hs]


def render_slurm(R: Run) -> list[Doc]:
    rng = R.rng
    d = Doc("slurm-%d.out" % R.job_id)
    label = True if R.slurm_torchrun else rng.random() < 0.6
    header = rng.random() < 0.85
    if header:
        d.raw("Job %d starting on %s at %s" % (R.job_id, R.hosts[0], R.lt(R.hosts[0], R.t0).strftime("%a %b %d %H:%M:%S UTC %Y")))
        d.raw("SLURM_JOB_NODELIST=%s  SLURM_NNODES=%d  GPUS_PER_NODE=%d  WORLD_SIZE=%d" % (
            hostlist(R.hosts), R.nnodes, R.gpn, R.world))
        d.raw("MASTER_ADDR=%s MASTER_PORT=%d" % (R.hosts[0], rng.choice([29500, 29400, 12355, 6000])))
        d.raw("torch %s  NCCL %s  driver %s  %s" % (R.era["torch"], R.era["nccl"], R.era["driver"], R.gpu["model"]))
        if R.slurm_torchrun:
            d.raw("+ srun -l --ntasks-per-node=1 torchrun --nnodes=%d --nproc-per-node=%d --node-rank=$SLURM_NODEID "
                  "--tee 3 --rdzv-endpoint=%s:29500 %s" % (R.nnodes, R.gpn, R.hosts[0], R.script))
        else:
            d.raw("+ srun %s%s--ntasks-per-node=%d --cpu-bind=none python -u %s --config configs/%s.yaml" % (
                "-l " if label else "", "--kill-on-bad-exit=1 " if R.slurm_kob else "", R.gpn, R.script, R.model))
    R.map_ok = header
    width = len(str(R.nnodes - 1 if R.slurm_torchrun else R.world - 1))
    items: list[tuple[float, int, str, L | None, bool, bool]] = []
    for x in sorted(R.rank_lines):
        for ln in R.rank_lines[x]:
            if R.slurm_torchrun:
                pre = "%*d: [default%d]:" % (width, R.node_index(R.host_of(x)), R.local_of(x))
                items.append((ln.t, 1, pre + ln.text, ln, header, False))
            elif label:
                items.append((ln.t, 1, "%*d: %s" % (width, x, ln.text), ln, True, False))
            else:
                items.append((ln.t, 1, ln.text, ln, False, False))
    for ln in R.sched:
        items.append((ln.t, 2, ln.text, ln, False, "init" in ln.tags))
    # srun's view of the exits
    bad = sorted((e.t, x, e.code) for x, e in R.exits.items() if e.code != 0)
    if bad:
        t_first = bad[0][0]
        if R.slurm_oom_event:
            items.append((t_first + 1.2, 2, "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks "
                          "have been OOM Killed." % R.job_id, None, False, False))
        groups: dict[tuple[str, int, str], list[int]] = {}
        order: list[tuple[float, tuple[str, int, str]]] = []
        for (te, x, c) in bad:
            h = R.host_of(x)
            task = R.node_index(h) if R.slurm_torchrun else x
            code = (1 if c not in (-9,) else -9) if R.slurm_torchrun else c
            desc = {1: "Exited with exit code 1", -9: "Killed", -6: "Aborted (core dumped)", -11: "Segmentation fault (core dumped)",
                    -7: "Bus error (core dumped)", -15: "Terminated"}.get(code, "Exited with exit code %d" % code)
            if code == -9 and R.slurm_oom_event == h and (x == R.init_rank or R.init_rank is None):
                desc = "Out Of Memory"
            key = (h, code, desc)
            if key not in groups:
                groups[key] = []
                order.append((te, key))
            if task not in groups[key]:
                groups[key].append(task)
        for i, (te, key) in enumerate(order):
            h, code, desc = key
            tasks = groups[key]
            txt = "srun: error: %s: task%s %s: %s" % (h, "s" if len(tasks) > 1 else "", ranges(tasks), desc)
            if R.slurm_torchrun:
                tg = exit_tags(R, None, h) if i == 0 else ()
                ln = L(te, txt, tg, False, True)
            else:
                tg = ()
                if i == 0 and len(tasks) == 1:
                    tg = exit_tags(R, tasks[0], None) or exit_tags(R, None, h)
                elif i == 0:
                    tg = exit_tags(R, None, h)
                ln = L(te, txt, tg, len(tasks) == 1, True)
            items.append((te + 0.5, 3, txt, ln, False, False))
            if i == 0 and R.slurm_kob and not R.slurm_reason:
                items.append((te + 0.6, 3, "srun: Terminating StepId=%d.0" % R.job_id, None, False, False))
                items.append((te + 0.7, 3, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (
                    R.job_id, R.hosts[0], R.ts_iso(R.hosts[0], te + 0.7)), None, False, False))
        if not R.slurm_reason:
            items.append((bad[-1][0] + 2, 3, "srun: Job step aborted: Waiting up to %d seconds for job step to finish." % rng.choice([32, 62, 122]),
                          None, False, False))
    items.sort(key=lambda x: (x[0], x[1]))
    for (t, _, s, ln, rk, hk) in items:
        if ln is None:
            d.raw(s)
        else:
            d.add(s, ln, rk, hk)
    if R.world > 16:
        d.cut_middle(rng, rng.randint(1, 4))
    if rng.random() < 0.15:
        n = rng.randint(120, 400)
        d.keep_tail(n, "==> tail -n %d slurm-%d.out <==" % (n, R.job_id))
    docs = [d]
    style = rng.choice(["journal", "dmesg", "dmesgT"])
    for h in R.hosts:
        if h not in R.kern:
            continue
        p = 0.8 if h == R.init_host else 0.35
        if rng.random() < p:
            kernel_noise(R, h, R.t0 - 4000, R.t_end, rng.randint(1, 4))
            nm = {"journal": "journalctl-k-%s.txt", "dmesg": "dmesg-%s.txt", "dmesgT": "dmesg-T-%s.log"}[style] % h
            docs.append(kernel_doc(R, h, style, nm))
    if rng.random() < 0.35:
        docs.append(sacct_doc(R))
    docs += extra_docs(R)
    return docs


def sacct_doc(R: Run) -> Doc:
    d = Doc("sacct-%d.txt" % R.job_id)
    d.raw("JobID           JobName      State ExitCode     MaxRSS        NodeList ")
    d.raw("------------ ---------- ---------- -------- ---------- --------------- ")
    bad = [e for e in R.exits.values() if e.code != 0]
    if R.healthy or not bad:
        st, ec = "COMPLETED", "0:0"
    elif R.slurm_reason == "PREEMPTION":
        st, ec = "PREEMPTED", "0:15"
    elif R.slurm_reason == "TIME LIMIT":
        st, ec = "TIMEOUT", "0:0"
    elif R.slurm_oom_event:
        st, ec = "OUT_OF_ME+", "0:125"
    else:
        st, ec = "FAILED", "1:0"
    nl = hostlist(R.hosts)[:15]
    d.raw("%-12d %10s %10s %8s %10s %15s " % (R.job_id, R.model[:10], st if st != "OUT_OF_ME+" else "OUT_OF_ME+", ec, "", nl))
    d.raw("%-12s %10s %10s %8s %10s %15s " % ("%d.batch" % R.job_id, "batch", "COMPLETED" if R.healthy else "FAILED" if st == "FAILED" else st,
                                              "0:0" if R.healthy else ec, "%dK" % R.rng.randint(9000, 90000), R.hosts[0][:15]))
    d.raw("%-12s %10s %10s %8s %10s %15s " % ("%d.0" % R.job_id, "python" if not R.slurm_torchrun else "torchrun", st, ec,
                                              "%dK" % R.rng.randint(10**7, 9 * 10**8), nl))
    return d


def render_torchrun(R: Run) -> list[Doc]:
    rng = R.rng
    hs = pick_hosts(R, rng.randint(2, 6), 0.8)
    per_rank = rng.random() < 0.5
    run_id = rng.choice(["none", "%d" % rng.randint(1000, 99999), "job_%s" % hexid(rng, 6)[2:]])
    docs = []
    style = rng.choice(["journal", "dmesg", "dmesgT"])
    for h in hs:
        rdzv = rng.random() < 0.7
        R.rdzv[h] = rdzv
        docs.append(console_doc(R, h, "%s/torchrun.log" % h, True, rdzv, True))
        if per_rank:
            for x in R.ranks_on(h):
                if x not in R.rank_lines:
                    continue
                d = Doc("%s/logs/%s/attempt_0/%d/stderr.log" % (h, run_id, R.local_of(x)))
                for ln in sorted(R.rank_lines[x], key=lambda y: y.t):
                    d.add(ln.text, ln, rdzv, True)
                docs.append(d)
        if h in R.kern and rng.random() < (0.85 if h == R.init_host else 0.4):
            kernel_noise(R, h, R.t0 - 4000, R.t_end, rng.randint(1, 4))
            docs.append(kernel_doc(R, h, style, "%s/%s" % (h, {"journal": "journal-kernel.txt", "dmesg": "dmesg.txt",
                                                                "dmesgT": "dmesg-T.txt"}[style])))
    for h in R.kern:
        if h not in hs and h == R.init_host and rng.random() < 0.6:
            docs.append(kernel_doc(R, h, style, "%s-dmesg.txt" % h))
    R.map_ok = bool(R.init_host and R.rdzv.get(R.init_host))
    docs += extra_docs(R)
    return docs


def describe_doc(R: Run, h: str) -> Doc:
    rng = R.rng
    pod = R.pod[h]
    d = Doc("describe/%s.txt" % pod)
    ex = [R.exits[x] for x in R.ranks_on(h) if x in R.exits]
    t_start = R.t0
    t_fin = max((e.t for e in ex), default=R.t_end) + rng.uniform(1, 8)
    reason = R.node_reason.get(h)
    restarts = 0
    last = None
    if reason and reason.startswith("Restarted:"):
        restarts = 1
        last = reason.split(":", 1)[1]
        reason = None
    if reason == "OOMKilled":
        st, code = "OOMKilled", 137
    elif reason == "Terminated":
        st, code = "Error", 143
    elif R.k137 and h == R.init_host:
        st, code = "Error", 137
    elif any(e.code != 0 for e in ex):
        st, code = "Error", 1
    else:
        st, code = "Completed", 0
    ip = "10.%d.%d.%d" % (rng.randint(0, 200), rng.randint(0, 255), rng.randint(2, 250))
    host_line_tags = ()
    tg = exit_tags(R, None, h) if code else ()
    rows = [("Name:             %s" % pod, ()), ("Namespace:        %s" % R.k8s_ns, ()), ("Priority:         0", ()),
            ("Service Account:  default", ()), ("Node:             %s/%s" % (h, ip), host_line_tags),
            ("Start Time:       %s" % R.lt(None, t_start).strftime("%a, %d %b %Y %H:%M:%S +0000"), ()),
            ("Labels:           %s" % ("training.kubeflow.org/job-name=%s" % R.kjob if R.kkind == "pytorchjob" else
                                      "jobset.sigs.k8s.io/jobset-name=%s" % R.kjob if R.kkind == "jobset" else
                                      "job-name=%s" % R.kjob), ()),
            ("                  %s=%d" % ("training.kubeflow.org/replica-index" if R.kkind == "pytorchjob" else
                                         "batch.kubernetes.io/job-completion-index", R.node_index(h) if R.kkind != "pytorchjob"
                                         else max(0, R.node_index(h) - 1)), ()),
            ("Status:           %s" % ("Succeeded" if code == 0 else "Failed"), ())]
    if reason == "Terminated":
        rows += [("Reason:           Terminated", tg), ("Message:          Pod was terminated in response to imminent node shutdown.", tg)]
    rows += [("IP:               %s" % ip, ()),
             ("Controlled By:    %s" % {"pytorchjob": "PyTorchJob/%s" % R.kjob, "jobset": "Job/%s-workers-0" % R.kjob,
                                        "indexed": "Job/%s" % R.kjob}[R.kkind], ()),
             ("Containers:", ()), ("  pytorch:", ()),
             ("    Container ID:  containerd://%s" % "".join(rng.choice("0123456789abcdef") for _ in range(64)), ()),
             ("    Image:         %s" % R.k8s_image, ()), ("    Port:          23456/TCP", ()),
             ("    Command:", ()), ("      torchrun", ()), ("      --nproc-per-node=%d" % R.gpn, ()),
             ("      %s" % R.script, ())]
    rows += [("    State:          Terminated", tg), ("      Reason:       %s" % st, tg), ("      Exit Code:    %d" % code, tg),
             ("      Started:      %s" % R.lt(None, t_start + 5).strftime("%a, %d %b %Y %H:%M:%S +0000"), ()),
             ("      Finished:     %s" % R.lt(None, t_fin).strftime("%a, %d %b %Y %H:%M:%S +0000"), tg)]
    if last:
        rows += [("    Last State:     Terminated", ()), ("      Reason:       %s" % last, ()),
                 ("      Exit Code:    %d" % (137 if last == "OOMKilled" else 1), ())]
    rows += [("    Ready:          False", ()), ("    Restart Count:  %d" % restarts, ()),
             ("    Limits:", ()), ("      memory:          %dGi" % R.k8s_limits_gi, ()), ("      nvidia.com/gpu:  %d" % R.gpn, ()),
             ("    Requests:", ()), ("      cpu:             %d" % rng.choice([64, 90, 180]), ()),
             ("      memory:          %dGi" % R.k8s_limits_gi, ()), ("      nvidia.com/gpu:  %d" % R.gpn, ()),
             ("    Environment:", ()), ("      NCCL_DEBUG:               %s" % ("INFO" if R.nccl_debug else "WARN"), ()),
             ("      PYTORCH_CUDA_ALLOC_CONF:  expandable_segments:True", ())]
    if R.shm_small:
        rows += [("    Mounts:", ()), ("      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access-%s (ro)" %
                                      "".join(rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(5)), ())]
    else:
        rows += [("    Mounts:", ()), ("      /dev/shm from dshm (rw)", ()),
                 ("      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access-%s (ro)" %
                  "".join(rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(5)), ())]
    rows += [("QoS Class:                   Guaranteed", ()), ("Node-Selectors:              cloud.google.com/gke-accelerator=nvidia-h100-mega-80gb", ()),
             ("Events:                      <none>", ())]
    for s, tgs in rows:
        ln = L(t_fin, s, tgs, False, True) if tgs else None
        d.add(s, ln, False, True) if ln else d.raw(s)
    return d


def render_k8s(R: Run) -> list[Doc]:
    rng = R.rng
    R.k8s_ns = rng.choice(["default", "ml-train", "research", "team-llm"])
    R.k8s_image = rng.choice(["nvcr.io/nvidia/pytorch:%s-py3" % rng.choice(["24.07", "24.10", "25.01", "25.04"]),
                              "ghcr.io/acme/trainer:%s" % hexid(rng, 7)[2:], "us-docker.pkg.dev/acme/train/llm:%d" % rng.randint(100, 999)])
    hs = pick_hosts(R, rng.randint(2, 5), 0.75)
    tee = rng.random() < 0.5
    docs = []
    show_events = rng.random() < 0.75
    sched_events = show_events and rng.random() < 0.5
    described = []
    for h in R.hosts:
        ex = [R.exits[x] for x in R.ranks_on(h) if x in R.exits]
        bad = any(e.code != 0 for e in ex) or R.node_reason.get(h)
        if (h == R.init_host and rng.random() < 0.7) or (bad and rng.random() < 0.15 and len(described) < 3):
            described.append(h)
    for h in R.hosts:
        R.podmap[h] = sched_events or h in described
    for h in hs:
        rdzv = rng.random() < 0.6
        R.rdzv[h] = rdzv
        docs.append(console_doc(R, h, "logs/%s.log" % R.pod[h], tee, rdzv, R.podmap[h]))
    for h in described:
        docs.append(describe_doc(R, h))
    if show_events:
        d = Doc("events.txt")
        d.raw("LAST SEEN   TYPE      REASON              OBJECT                                        MESSAGE")
        evs = []
        if sched_events:
            for h in R.hosts[:40]:
                evs.append((R.t0 - 3, "Normal", "Scheduled", "pod/%s" % R.pod[h], "Successfully assigned %s/%s to %s" % (
                    R.k8s_ns, R.pod[h], h), False))
        for (t, typ, reason, obj, msg) in R.k8s_events:
            key = bool(R.init_host) and obj == "node/%s" % R.init_host and reason in ("OOMKilling", "NodeShutdown", "Preempted")
            evs.append((t, typ, reason, obj, msg, key))
        for h in R.hosts:
            ex = [R.exits[x] for x in R.ranks_on(h) if x in R.exits]
            if any(e.code != 0 for e in ex) and rng.random() < 0.5:
                t = max(e.t for e in ex)
                evs.append((t + 5, "Normal", "Killing", "pod/%s" % R.pod[h], "Stopping container pytorch", False))
        if R.kkind == "pytorchjob":
            evs.append((R.t_end + 10, "Normal" if R.healthy else "Warning", "JobSucceeded" if R.healthy else "JobFailed",
                        "pytorchjob/%s" % R.kjob, "PyTorchJob %s is %s." % (
                            R.kjob, "successfully completed" if R.healthy else "failed because 1 Worker replica(s) failed"), False))
        elif R.healthy:
            evs.append((R.t_end + 10, "Normal", "Completed", "job/%s" % R.kjob, "Job completed", False))
        else:
            evs.append((R.t_end + 10, "Warning", "BackoffLimitExceeded", "job/%s" % R.kjob,
                        "Job has reached the specified backoff limit", False))
        evs.sort(key=lambda e: e[0])
        now = R.t_end + rng.uniform(600, 20000)
        for (t, typ, reason, obj, msg, key) in evs:
            age = now - t
            ag = "%dm" % (age // 60) if age < 3600 * 3 else "%dh" % (age // 3600)
            s = "%-11s %-9s %-19s %-45s %s" % (ag, typ, reason, obj, msg)
            if key:
                d.add(s, L(t, s, ("init",), False, True), False, True)
            else:
                d.raw(s)
        docs.append(d)
    style = "journal"
    for h in R.hosts:
        if h in R.kern and rng.random() < (0.7 if h == R.init_host else 0.3):
            kernel_noise(R, h, R.t0 - 4000, R.t_end, rng.randint(1, 4))
            docs.append(kernel_doc(R, h, style, "nodes/%s/journal-k.txt" % h))
    R.map_ok = bool(R.init_host and R.rdzv.get(R.init_host) and R.podmap.get(R.init_host))
    docs += extra_docs(R)
    return docs


def render_deepspeed(R: Run) -> list[Doc]:
    rng = R.rng
    h0 = R.hosts[0]
    d = Doc("deepspeed-launch.log")
    mapping = rng.random() < 0.8
    R.map_ok = mapping
    items: list[tuple[float, int, str, L | None, bool, bool]] = []
    t = R.t0
    items.append((t, 0, "[%s] [INFO] [runner.py:568:main] cmd = pdsh -S -f 1024 -w %s export NCCL_DEBUG=%s; export "
                  "PYTHONPATH=%s;  cd %s; /usr/bin/python3 -u -m deepspeed.launcher.launch --world_info=%s --node_rank=%%n "
                  "--master_addr=%s --master_port=29500 %s --deepspeed ds_config.json" % (
                      R.ts_py(h0, t), ",".join(R.hosts[:8]) + ("..." if R.nnodes > 8 else ""), "INFO" if R.nccl_debug else "WARN",
                      R.workdir, R.workdir, "eyJ" + "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") for _ in range(40)),
                      R.inner(0), R.script), None, False, False))
    show_hosts = [h for h in R.hosts if any(R.host_of(x) == h for x in R.rank_lines)] or [h0]
    for h in show_hosts:
        tt = t + 3 + rng.random()
        items.append((tt, 0, "%s: [%s] [INFO] [launch.py:146:main] WORLD INFO DICT: {%s}" % (
            h, R.ts_py(h, tt), ", ".join("'%s': %s" % (hh, list(range(R.gpn))) for hh in R.hosts[:6]) + (", ..." if R.nnodes > 6 else "")),
            None, False, False))
        items.append((tt, 0, "%s: [%s] [INFO] [launch.py:152:main] nnodes=%d, num_local_procs=%d, node_rank=%d" % (
            h, R.ts_py(h, tt), R.nnodes, R.gpn, R.node_index(h)), None, False, False))
        if mapping:
            items.append((tt, 0, "%s: [%s] [INFO] [launch.py:163:main] global_rank_mapping=defaultdict(<class 'list'>, {%s})" % (
                h, R.ts_py(h, tt), ", ".join("'%s': %s" % (hh, R.ranks_on(hh)) for hh in R.hosts[:16]) + (", ..." if R.nnodes > 16 else "")),
                None, False, False))
        items.append((tt, 0, "%s: [%s] [INFO] [launch.py:164:main] dist_world_size=%d" % (h, R.ts_py(h, tt), R.world), None, False, False))
    for x in sorted(R.rank_lines):
        h = R.host_of(x)
        for ln in R.rank_lines[x]:
            items.append((ln.t, 1, "%s: %s" % (h, ln.text), ln, False, True))
    for h in R.hosts:
        for ln in R.agent.get(h, []):
            if ln.text.startswith("@DS:restart"):
                _, _, rr, cc = ln.text.split(":")
                items.append((ln.t, 2, "%s: [%s] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python3', '-u', '%s', "
                              "'--local_rank=%d', '--deepspeed', 'ds_config.json'] exits with return code = %s" % (
                                  h, R.ts_py(h, ln.t), R.script, R.local_of(int(rr)), cc), None, False, False))
                items.append((ln.t + 20, 2, "[%s] [INFO] [runner.py:603:main] launcher exited with %s, resubmitting (attempt 2/3)" % (
                    R.ts_py(h0, ln.t + 20), cc), None, False, False))
        ranks = R.ranks_on(h)
        ex = sorted((R.exits[x].t, x, R.exits[x].code) for x in ranks if x in R.exits)
        bad = [e for e in ex if e[2] not in (0, -15)] or [e for e in ex if e[2] != 0]
        if not bad:
            if ex:
                te = max(e[0] for e in ex)
                items.append((te + 1, 3, "%s: [%s] [INFO] [launch.py:351:main] Process %d exits successfully." % (
                    h, R.ts_py(h, te + 1), R.pids[ranks[0]]), None, False, False))
            continue
        t1, r1, c1 = bad[0]
        for x in ranks:
            items.append((t1 + 0.5, 3, "%s: [%s] [INFO] [launch.py:319:sigkill_handler] Killing subprocess %d" % (
                h, R.ts_py(h, t1 + 0.5), R.pids[x]), None, False, False))
        txt = "%s: [%s] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python3', '-u', '%s', '--local_rank=%d', " \
              "'--deepspeed', 'ds_config.json'] exits with return code = %d" % (h, R.ts_py(h, t1 + 0.6), R.script, R.local_of(r1), c1)
        tg = exit_tags(R, r1, None) or exit_tags(R, None, h)
        items.append((t1 + 0.6, 3, txt, L(t1, txt, tg, mapping, True) if tg else None, mapping, True))
        items.append((t1 + 1.5, 3, "pdsh@%s: %s: ssh exited with exit code %d" % (h0, h, 1 if c1 > 0 else 128 - c1 if c1 != -9 else 137),
                      None, False, False))
    items.sort(key=lambda x: (x[0], x[1]))
    for (t, _, s, ln, rk, hk) in items:
        if ln is None:
            d.raw(s)
        else:
            d.add(s, ln, rk, hk)
    if R.world > 16:
        d.cut_middle(rng, rng.randint(1, 3))
    docs = [d]
    hf = Doc("hostfile")
    for h in R.hosts[:64]:
        hf.raw("%s slots=%d" % (h, R.gpn))
    if R.nnodes > 64:
        hf.raw("# ... %d more hosts" % (R.nnodes - 64))
    docs.append(hf)
    style = rng.choice(["journal", "dmesgT"])
    for h in R.hosts:
        if h in R.kern and rng.random() < (0.75 if h == R.init_host else 0.3):
            kernel_noise(R, h, R.t0 - 4000, R.t_end, rng.randint(1, 4))
            docs.append(kernel_doc(R, h, style, "%s.%s" % (h, "journal.txt" if style == "journal" else "dmesg.txt")))
    docs += extra_docs(R)
    return docs


def render_paste(R: Run) -> list[Doc]:
    rng = R.rng
    d = Doc("issue.md")
    hours = (max(R.t_end, R.t_train) - R.t_train) / 3600.0
    d.raw("### What happened")
    d.raw("")
    if R.healthy:
        d.raw("Not sure if this is a problem: our %d-GPU %s run (%d node%s, torch %s) %s, but the logs are full of memory "
              "warnings and I want to be sure nothing is wrong before we scale up. Excerpts below." % (
                  R.world, R.model, R.nnodes, "s" if R.nnodes > 1 else "", R.era["torch"].split("+")[0],
                  "finished" if True else ""))
    else:
        d.raw("Our %d-GPU %s job (%d node%s, torch %s, NCCL %s) died after about %.1f hours. %s Logs below are trimmed; I can "
              "attach more if needed." % (R.world, R.model, R.nnodes, "s" if R.nnodes > 1 else "", R.era["torch"].split("+")[0],
                                         R.era["nccl"], hours, rng.choice([
                                             "Is this an OOM?", "We think it's a memory problem but can't tell which.",
                                             "Same config ran fine last week.", "No idea where to start."])))
    d.raw("")

    def block(title: str, lines: list[L], rk: bool, hk: bool, pre=None) -> None:
        d.raw(title)
        d.raw("```")
        for ln in lines:
            txt = pre(ln) if pre else ln.text
            d.add(txt, ln, rk, hk)
        d.raw("```")
        d.raw("")

    r0 = R.rank_lines.get(0, [])
    r0 = sorted(r0, key=lambda x: x.t)
    if r0 and (R.init_rank != 0 or rng.random() < 0.5):
        tail = r0[-rng.randint(12, 30):]
        if rng.random() < 0.5:
            block("Tail of the log from the master node (%s), rank 0:" % R.host_of(0), tail, True, True)
        else:
            block("End of the main log:", tail, False, False)
    if R.init_rank is not None and R.init_rank in R.rank_lines and rng.random() < 0.8:
        lines = sorted(R.rank_lines[R.init_rank], key=lambda x: x.t)
        idx = [i for i, ln in enumerate(lines) if ln.tags]
        if idx:
            a = max(0, idx[0] - rng.randint(2, 10))
            b = min(len(lines), idx[-1] + rng.randint(1, 4))
            seg = lines[a:b]
            how = rng.randrange(3)
            if how == 0:
                block("First error I could find (rank %d on %s):" % (R.init_rank, R.host_of(R.init_rank)), seg, True, True)
            elif how == 1:
                block("From one of the worker logs:", seg, False, False)
            else:
                block("`grep -B5 -A5 -i error` over all logs, first hit:", seg, False, False)
    elif R.init_rank is None and R.featured:
        x = rng.choice(R.featured)
        lines = sorted(R.rank_lines.get(x, []), key=lambda y: y.t)[-12:]
        if lines:
            block("Another rank:", lines, False, False)
    kh = R.init_host if R.init_host in R.kern else (next(iter(R.kern)) if R.kern else None)
    if kh and rng.random() < 0.75:
        ks = sorted(R.kern[kh], key=lambda x: x.t)
        kd = kernel_doc(R, kh, rng.choice(["dmesg", "dmesgT", "journal"]), "x")
        if rng.random() < 0.5:
            block("`dmesg` on %s:" % kh, [L(ln.t, row[0], ln.tags) for row, ln in zip(kd.rows, ks)], False, True)
        else:
            block("dmesg from the node that failed:", [L(ln.t, row[0], ln.tags) for row, ln in zip(kd.rows, ks)], False,
                  "journal" in kd.rows[0][0] if kd.rows else False)
    for ln in R.sched:
        block("From the scheduler:", [ln], False, True)
    for name, lines in R.extra.items():
        rk_r, hk_h = R.extra_ctx.get(name, (None, None))
        lab = name
        if hk_h:
            lab = "%s (on %s)" % (name, hk_h)
        if rk_r is not None:
            lab = "%s (rank %d)" % (name, rk_r)
        block("`%s`:" % lab, sorted(lines, key=lambda x: x.t), rk_r is not None, hk_h is not None)
    d.raw("### Environment")
    d.raw("")
    d.raw("- PyTorch %s, NCCL %s, CUDA %s, driver %s" % (R.era["torch"], R.era["nccl"], R.era["cuda"], R.era["driver"]))
    d.raw("- %d x %s per node, %d node(s)" % (R.gpn, R.gpu["model"], R.nnodes))
    if R.shm_small:
        d.raw("- running in docker without `--ipc=host` (default /dev/shm)")
    R.map_ok = False
    return [d]


RENDER = {"slurm": render_slurm, "torchrun": render_torchrun, "k8s": render_k8s, "deepspeed": render_deepspeed,
          "paste": render_paste}


def evaluate(R: Run, docs: list[Doc]) -> tuple[int | None, str | None]:
    rank_ok = False
    host_ok = False
    pid_hits: list[tuple[str, str]] = []
    pidmaps: list[tuple[str, str, int]] = []
    xid_hits: list[tuple[str, str]] = []
    busmaps: list[tuple[str, str, int]] = []
    rankhosts: list[tuple[int, str]] = []
    k8s = R.layout == "k8s"
    for d in docs:
        for text, ln, rk, hk in d.rows:
            if ln is None:
                continue
            rkn = ln.rv or rk
            hkn = hk or (ln.hv and not k8s) or (rkn and R.map_ok)
            for tag in ln.tags:
                if tag == "init":
                    if rkn and R.init_rank is not None:
                        rank_ok = True
                    if hkn and R.init_host is not None:
                        host_ok = True
                elif tag == "nameh":
                    if R.init_host is not None and (not k8s or R.podmap.get(R.init_host)):
                        host_ok = True
                elif tag == "namer":
                    if R.init_rank is not None:
                        rank_ok = True
                        if R.map_ok:
                            host_ok = True
                elif tag.startswith("pid:") and hkn:
                    _, h, p = tag.split(":")
                    pid_hits.append((h, p))
                elif tag.startswith("xid:") and hkn:
                    _, h, b = tag.split(":", 2)
                    xid_hits.append((h, b))
                elif tag.startswith("pidmap:"):
                    _, h, p, r = tag.split(":")
                    pidmaps.append((h, p, int(r)))
                elif tag.startswith("rankhost:"):
                    _, rr, h = tag.split(":", 2)
                    rankhosts.append((int(rr), h))
                elif tag.startswith("busmap:"):
                    parts = tag.split(":")
                    h, r = parts[1], int(parts[-1])
                    pidmaps_b = ":".join(parts[2:-1])
                    busmaps.append((h, pidmaps_b, r))
    if R.init_rank is not None and not rank_ok:
        for (h, p) in pid_hits:
            if (h, p, R.init_rank) in pidmaps:
                rank_ok = True
        for (h, b) in xid_hits:
            if (h, b, R.init_rank) in busmaps:
                rank_ok = True
    if rank_ok and not host_ok and R.init_host is not None and (R.init_rank, R.init_host) in rankhosts:
        if not k8s or R.podmap.get(R.init_host):
            host_ok = True
    return (R.init_rank if rank_ok else None, R.init_host if host_ok else None)


# --------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------


def choose_variant(rng: random.Random, cause: str | None, layout: str):
    opts = [(f, w, req) for (f, w, req) in VARIANTS[cause] if "layouts" not in req or layout in req["layouts"]]
    fs = [o[0] for o in opts]
    ws = [o[1] for o in opts]
    i = rng.choices(range(len(fs)), weights=ws)[0]
    return opts[i][0], opts[i][2]


def generate(out: str, n: int, seed: str) -> dict:
    top = random.Random("blind60:%s" % seed)
    order = list(CAUSES)
    top.shuffle(order)
    lay: list[str] = []
    while len(lay) < n:
        blk = list(LAYOUTS)
        top.shuffle(blk)
        lay.extend(blk)
    counts: dict[str, int] = {}
    ci = 0
    os.makedirs(out, exist_ok=True)
    for i in range(n):
        if i % 7 == 3:
            cause = None
        else:
            cause = order[ci % len(order)]
            ci += 1
        layout = lay[i]
        rng = random.Random("blind60:%s:%d" % (seed, i))
        fn, req = choose_variant(rng, cause, layout)
        R = Run(rng, i, layout, cause, req)
        fn(R)
        docs = RENDER[layout](R)
        rank, host = evaluate(R, docs)
        folder = os.path.join(out, "run-%03d-%s" % (i, layout))
        if os.path.exists(folder):
            shutil.rmtree(folder)
        os.makedirs(folder)
        for d in docs:
            path = os.path.join(folder, d.name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(d.text())
        truth = {"healthy": cause is None, "cause": cause,
                 "initiator": None if cause is None else {"rank": rank, "node": host},
                 "layout": layout, "notes": R.notes}
        with open(os.path.join(folder, "truth.json"), "w", encoding="utf-8") as f:
            json.dump(truth, f, indent=2)
            f.write("\n")
        key = cause or "healthy"
        counts[key] = counts.get(key, 0) + 1
    return {k: counts[k] for k in sorted(counts)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args(argv)
    counts = generate(a.out, a.n, str(a.seed))
    print(json.dumps(counts, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
