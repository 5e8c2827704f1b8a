#!/usr/bin/env python3
"""blind53 - synthetic *relayed* log bundles of failed / healthy multi-GPU training jobs.

Each run folder holds what reached the person diagnosing the failure after one or more
relays (email quoting, chat exports, ticket comments, GitHub issue text, line-numbered
editor copies, OCR of a screenshot, pager captures, PDF postmortems, terminal recordings)
plus truth.json.  Standard library only; deterministic per seed.

    python3 gen_blind53.py --out DIR --n 60 --seed S

Written blind: no code, rules, tests, docs or corpus of the tool under test were read.
"""
import argparse
import datetime as dt
import json
import os
import re
import sys
import time

import random

CAUSES = [
    "gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
    "illegal_memory_access", "python_exception", "host_oom_kill", "crash_signal",
    "preemption", "hang", "data_loader_stall", "collective_mismatch", "straggler", "unknown",
]

LAYOUTS = [
    "email_quote", "slack_export", "chat_copy", "ticket_export", "github_issue",
    "editor_lines", "ocr_screenshot", "pager_less", "pdf_postmortem", "term_recording",
    "mixed_relay",
]

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
BUS_IDS = ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"]
BUS_IDS4 = ["07", "46", "85", "c7"]

PEOPLE = [
    ("Priya Raman", "priya.raman", "priya"), ("Tomasz Kowalski", "tkowalski", "tomasz"),
    ("Mei Lin", "mei.lin", "mlin"), ("Jordan Ellis", "jellis", "jordan"),
    ("Ahmed Nasser", "anasser", "ahmed.n"), ("Sofia Greco", "sgreco", "sofia"),
    ("Kenji Watanabe", "kwatanabe", "kenji"), ("Laura Bianchi", "lbianchi", "laura.b"),
    ("Daniel Okafor", "dokafor", "dan.o"), ("Hannah Schulz", "hschulz", "hannah"),
    ("Ravi Shankar", "rshankar", "ravi"), ("Elena Petrova", "epetrova", "elena"),
]
ADMINS = [
    ("Marcus Boyd", "mboyd", "marcus-hpc"), ("Olga Ivanova", "oivanova", "olga.sre"),
    ("Sam Patel", "spatel", "sam-infra"), ("Grace Kim", "gkim", "grace.ops"),
]
DOMAINS = ["lab.example.org", "corp.example.com", "research.example.net"]


# ----------------------------------------------------------------------------------
# job model and basic formatters
# ----------------------------------------------------------------------------------
class Job:
    def __init__(self, rng):
        self.rng = rng
        self.nnodes = rng.choice([1, 1, 2, 2, 2, 4, 4, 8])
        self.gpn = rng.choice([8, 8, 8, 4])
        self.world = self.nnodes * self.gpn
        pat = rng.choice(["gpu-{:03d}", "node{:02d}", "dgx-b{:02d}", "hgx-r{:02d}n{}",
                          "ip-10-{}-{}-{}", "a100-{:03d}", "h100-pod{}-{:02d}",
                          "cn-g{:03d}"])
        base = rng.randint(1, 60)
        hosts = []
        for k in range(self.nnodes):
            n = base + k * rng.choice([1, 1, 1, 2])
            if pat == "hgx-r{:02d}n{}":
                hosts.append(pat.format(rng.randint(1, 12), n))
            elif pat == "ip-10-{}-{}-{}":
                hosts.append(pat.format(rng.randint(0, 3), rng.randint(0, 255), n + 10))
            elif pat == "h100-pod{}-{:02d}":
                hosts.append(pat.format(rng.randint(1, 4), n))
            else:
                hosts.append(pat.format(n))
        # keep unique
        seen = []
        for h in hosts:
            while h in seen:
                h = h + "x"
            seen.append(h)
        self.hosts = seen
        self.ips = ["10.%d.%d.%d" % (rng.randint(1, 200), rng.randint(0, 30), 10 + i * 3 + rng.randint(0, 2))
                    for i in range(self.nnodes)]
        self.skew = [0.0] + [rng.uniform(-45.0, 45.0) for _ in range(self.nnodes - 1)]
        self.newfmt = rng.random() < 0.65
        if self.newfmt:
            self.prefix = "rank"
        else:
            self.prefix = rng.choice(["default", "srun", "rank"]) if self.nnodes == 1 else rng.choice(["srun", "rank"])
        self.slurm = self.prefix == "srun" or rng.random() < 0.6
        year = rng.choice([2023, 2024, 2024, 2025])
        self.t0 = dt.datetime(year, rng.randint(1, 12), rng.randint(1, 28),
                              rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59))
        self.jobid = rng.randint(120000, 9899999)
        self.script = rng.choice(["train.py", "pretrain_gpt.py", "main.py", "run_clm.py",
                                  "finetune.py", "train_llm.py", "trainer/run.py"])
        self.workdir = rng.choice(["/workspace", "/home/%s/proj" % rng.choice(PEOPLE)[1],
                                   "/mnt/shared/code/llm", "/opt/app"])
        pyv = rng.choice(["3.10", "3.10", "3.11", "3.9"])
        self.pyv = pyv
        self.site = rng.choice(["/usr/local/lib/python%s/dist-packages" % pyv,
                                "/opt/conda/lib/python%s/site-packages" % pyv,
                                "/home/%s/.venv/lib/python%s/site-packages" % (rng.choice(PEOPLE)[1], pyv)])
        self.pybin = rng.choice(["/usr/bin/python3", "/opt/conda/bin/python", "/usr/bin/python"])
        self.torchver = rng.choice(["2.3.1", "2.4.0", "2.4.1", "2.5.1"]) if self.newfmt else \
            rng.choice(["1.13.1", "2.0.1", "2.1.2", "2.2.2"])
        self.ncclver = rng.choice(["2.20.5", "2.21.5", "2.19.3"]) if self.newfmt else \
            rng.choice(["2.14.3", "2.18.1", "2.18.6", "2.19.3"])
        self.timeout_ms = rng.choice([600000, 1800000, 1800000, 900000])
        self.ifname = rng.choice(["ib0", "eth0", "enp12s0f0", "bond0", "ens5"])
        self.fabric = rng.choice(["IB", "IB", "RoCE", "Socket"]) if self.nnodes > 1 else "P2P"
        self.base_pid = [rng.randint(2000, 90000) for _ in range(self.nnodes)]
        self.agent_pid = [self.base_pid[k] - rng.randint(5, 40) for k in range(self.nnodes)]
        self.seq = rng.randint(300, 250000)
        self.gpu_model = rng.choice(["NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB",
                                     "NVIDIA A100-SXM4-40GB", "NVIDIA H100 80GB HBM3"])
        self.gpumem = 79.11 if "80GB" in self.gpu_model else 39.39
        self.driver = rng.choice(["535.129.03", "535.161.08", "550.54.15", "550.90.07", "525.125.06"])
        self.model = rng.choice(["llama-7b", "gpt-1.3b", "vit-h14", "mistral-7b-ft", "t5-xl",
                                 "resnet152", "llama2-13b-sft"])
        self.step_s = rng.uniform(0.35, 4.0)

    # --- identity helpers
    def node_of(self, r):
        return r // self.gpn

    def lrank(self, r):
        return r % self.gpn

    def host_of(self, r):
        return self.hosts[self.node_of(r)]

    def pid(self, r):
        return self.base_pid[self.node_of(r)] + self.lrank(r) + 1

    def bus(self, lr):
        b = BUS_IDS if self.gpn == 8 else BUS_IDS4
        return b[lr % len(b)]

    def clock(self, node, t):
        return self.t0 + dt.timedelta(seconds=t + self.skew[node])

    def pfx(self, r):
        if self.prefix == "rank":
            return "[rank%d]:" % r
        if self.prefix == "default":
            return "[default%d]:" % self.lrank(r)
        return "%d: " % r

    def glog(self, node, t, sev="E"):
        c = self.clock(node, t)
        return "%s%d%02d %s.%06d" % (sev, c.month, c.day, c.strftime("%H:%M:%S"), c.microsecond)

    def c10(self, r, t, src, msg, sev="E"):
        node = self.node_of(r)
        if self.newfmt:
            c = self.clock(node, t)
            ns = "%06d%03d" % (c.microsecond, self.rng.randint(0, 999))
            return "[rank%d]:[%s%d%02d %s.%s %s] %s" % (r, sev, c.month, c.day, c.strftime("%H:%M:%S"), ns, src, msg)
        return "%s[%s %s] %s" % (self.pfx(r), sev, src, msg)

    def app(self, r, t, msg, lvl="INFO"):
        c = self.clock(self.node_of(r), t)
        return "%s[%s,%03d][%s][%s] %s" % (self.pfx(r), c.strftime("%Y-%m-%d %H:%M:%S"), c.microsecond // 1000,
                                           lvl, self.script.split("/")[-1].replace(".py", ""), msg)

    def nccl(self, r, msg, lvl="INFO", tid=None):
        pid = self.pid(r)
        tid = tid if tid is not None else pid + self.rng.choice([0, 0, 180, 211, 377])
        return "%s%s:%d:%d [%d] NCCL %s %s" % (self.pfx(r), self.host_of(r), pid, tid, self.lrank(r), lvl, msg)

    def ncclw(self, r, src, msg):
        pid = self.pid(r)
        tid = pid + self.rng.choice([96, 180, 211, 377, 402])
        return "%s%s:%d:%d [%d] %s NCCL WARN %s" % (self.pfx(r), self.host_of(r), pid, tid, self.lrank(r), src, msg)

    def agent(self, node, t, msg, sev="W", mod="api.py:897"):
        if self.newfmt:
            c = self.clock(node, t)
            return "%s%d%02d %s.%06d %d torch/distributed/elastic/multiprocessing/%s] %s" % (
                sev, c.month, c.day, c.strftime("%H:%M:%S"), c.microsecond, self.agent_pid[node], mod, msg)
        lvl = {"W": "WARNING", "E": "ERROR", "I": "INFO"}[sev]
        return "%s:torch.distributed.elastic.multiprocessing.api:%s" % (lvl, msg)

    def tb(self, r, frames, exc_lines):
        out = [self.pfx(r) + "Traceback (most recent call last):"]
        for f, ln, fn, code in frames:
            out.append(self.pfx(r) + '  File "%s", line %d, in %s' % (f, ln, fn))
            if code:
                out.append(self.pfx(r) + "    " + code)
        for e in exc_lines:
            out.append(self.pfx(r) + e)
        return out

    def user_frames(self, depth=3):
        s = "%s/%s" % (self.workdir, self.script)
        fr = [(s, self.rng.randint(380, 720), "<module>", "main()"),
              (s, self.rng.randint(300, 370), "main", "trainer.fit(model, train_loader)")]
        if depth >= 3:
            fr.append(("%s/trainer/loop.py" % self.workdir, self.rng.randint(80, 260), "fit",
                       "loss = self.training_step(batch, step)"))
        return fr


def pick(rng, seq):
    return seq[rng.randrange(len(seq))]


# ----------------------------------------------------------------------------------
# scenario container
# ----------------------------------------------------------------------------------
class Sc:
    def __init__(self, job, rng):
        self.job = job
        self.rng = rng
        self.ev = []          # (t, order, node, [lines], tag)
        self.dmesg = {}       # node -> [(t, msg)]
        self.extras = []      # (kind, title, [lines], is_key)
        self.cause = None
        self.healthy = False
        self.init_rank = None
        self.init_node = None
        self.rank_known = False
        self.node_known = False
        self.notes = ""
        self.question = ""
        self.guesses = []
        self.answer = ""
        self.hide_key = False
        self.dmesg_key = False
        self.summaries = {}
        self.final_exits = {}
        self.last_step = 0
        self.key_summary = ""
        self.t_end = 0.0
        self._o = 0

    def con(self, t, node, lines, tag="noise"):
        self._o += 1
        self.ev.append((t, self._o, node, list(lines), tag))

    def dm(self, node, t, msg):
        self.dmesg.setdefault(node, []).append((t, msg))

    def extra(self, kind, title, lines, key=True):
        self.extras.append((kind, title, list(lines), key))

    def sorted_ev(self):
        return sorted(self.ev, key=lambda e: (e[0], e[1]))


# ----------------------------------------------------------------------------------
# noise
# ----------------------------------------------------------------------------------
WARN_LINES = [
    "{site}/torch/utils/data/dataloader.py:557: UserWarning: This DataLoader will create 16 worker processes in total. "
    "Our suggested max number of worker in current system is 12, which is smaller than what this DataLoader is going to create. "
    "Please be aware that excessive worker creation might get DataLoader running slow or even freeze, lower the worker number to avoid potential slowness/freeze if necessary.",
    "{site}/torch/_utils.py:831: UserWarning: TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class. "
    "This should only matter to you if you are using storages directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
    "{site}/transformers/utils/generic.py:441: FutureWarning: `torch.utils._pytree._register_pytree_node` is deprecated. Please use `torch.utils._pytree.register_pytree_node` instead.",
    "{site}/torch/cuda/amp/grad_scaler.py:120: FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', args...)` instead.",
    "{site}/torch/optim/lr_scheduler.py:143: UserWarning: Detected call of `lr_scheduler.step()` before `optimizer.step()`. "
    "In PyTorch 1.1.0 and later, you should call them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`.",
    "{site}/torch/nn/parallel/distributed.py:1214: UserWarning: find_unused_parameters=True was specified in DDP constructor, but did not find any unused parameters in the forward pass.",
    "`use_cache=True` is incompatible with gradient checkpointing. Setting `use_cache=False`.",
    "{site}/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly.",
]


def noise_startup(sc, t):
    j, rng = sc.job, sc.rng
    for n in range(j.nnodes):
        if j.slurm and n == 0:
            pass
        lines = []
        if not j.newfmt:
            lines.append("WARNING:torch.distributed.run:")
            lines.append("*****************************************")
            lines.append("Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your "
                         "system being overloaded, please further tune the variable for optimal performance in your application as needed. ")
            lines.append("*****************************************")
        else:
            hdr = "W%d%02d %s.%06d %d torch/distributed/run.py:793] " % (
                j.clock(n, t).month, j.clock(n, t).day, j.clock(n, t).strftime("%H:%M:%S"),
                j.clock(n, t).microsecond, j.agent_pid[n])
            lines.append(hdr)
            lines.append(hdr + "*****************************************")
            lines.append(hdr + "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, "
                         "to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ")
            lines.append(hdr + "*****************************************")
        sc.con(t + n * 0.3, n, lines, "noise")
    # NCCL init chatter
    t1 = t + rng.uniform(20, 60)
    for r in range(j.world):
        n = j.node_of(r)
        ll = []
        if r == 0:
            ll.append(j.nccl(r, "Bootstrap : Using %s:%s<0>" % (j.ifname, j.ips[0])))
            ll.append(j.nccl(r, "NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation"))
            ll.append(j.nccl(r, "cudaDriverVersion %d" % rng.choice([12020, 12040, 12030])))
            ll.append("%sNCCL version %s+cuda12.%d" % (j.pfx(r), j.ncclver, rng.choice([1, 2, 4])))
        if j.lrank(r) == 0 and j.nnodes > 1:
            if j.fabric in ("IB", "RoCE"):
                ll.append(j.nccl(r, "NET/IB : Using [0]mlx5_0:1/%s [1]mlx5_1:1/%s [2]mlx5_2:1/%s [3]mlx5_3:1/%s ; OOB %s:%s<0>" % (
                    j.fabric, j.fabric, j.fabric, j.fabric, j.ifname, j.ips[n])))
                ll.append(j.nccl(r, "Using network IB"))
            elif j.fabric == "Socket":
                ll.append(j.nccl(r, "NET/Socket : Using [0]%s:%s<0>" % (j.ifname, j.ips[n])))
                ll.append(j.nccl(r, "Using network Socket"))
        if rng.random() < (0.5 if j.world <= 16 else 0.15) or r < 2:
            ll.append(j.nccl(r, "comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId 0x%016x - Init COMPLETE" % (
                rng.randint(0x55d000000000, 0x55dfffffffff), r, j.world, j.lrank(r), j.lrank(r), j.bus(j.lrank(r)),
                rng.getrandbits(64))))
        if ll:
            sc.con(t1 + r * 0.01 + rng.uniform(0, 0.2), n, ll, "noise")
    # python warnings
    for _ in range(rng.randint(1, 4)):
        r = rng.randrange(j.world)
        w = pick(rng, WARN_LINES).format(site=j.site)
        ls = [j.pfx(r) + w]
        if "Warning:" in w and "{" not in w and rng.random() < 0.6:
            ls.append(j.pfx(r) + "  warnings.warn(")
        sc.con(t1 + rng.uniform(1, 30), j.node_of(r), ls, "noise")
    return t1 + 40


def tqdm_bar(rng, step, total, t_el, rate, extra=""):
    frac = step / float(total)
    width = 10
    full = int(frac * width)
    part = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"][int((frac * width - full) * 8)] if full < width else ""
    bar = "█" * full + part
    bar = bar + " " * (width - len(bar))
    rem = (total - step) * rate
    def hms(s):
        s = int(s)
        return ("%d:%02d:%02d" % (s // 3600, s % 3600 // 60, s % 60)) if s >= 3600 else ("%02d:%02d" % (s // 60, s % 60))
    return "%3d%%|%s| %d/%d [%s<%s, %5.2fs/it%s]" % (int(frac * 100), bar, step, total, hms(t_el), hms(rem), rate, extra)


def noise_progress(sc, t_start, t_end, step0, every=None, total_steps=None, tag="noise"):
    """rank-0 training progress between t_start and t_end; returns last step."""
    j, rng = sc.job, sc.rng
    if every is None:
        every = max(j.step_s * 50, (t_end - t_start) / 30.0)
    t = t_start
    step = step0
    loss = rng.uniform(1.8, 3.2)
    total = total_steps or (step0 + int((t_end - t_start) / j.step_s) + rng.randint(1000, 90000))
    style = rng.choice(["log", "log", "tqdm", "megatron"])
    k = 0
    while t < t_end and k < 45:
        step = step0 + int((t - t_start) / j.step_s)
        loss = max(0.4, loss - rng.uniform(-0.02, 0.05))
        if style == "log":
            line = j.app(0, t, "step %d/%d | loss %.4f | lr %.3e | grad_norm %.3f | %.0f tok/s/gpu" % (
                step, total, loss, rng.uniform(1e-5, 3e-4), rng.uniform(0.2, 3.0), rng.uniform(1800, 9000)))
        elif style == "tqdm":
            line = j.pfx(0) + "Epoch %d: " % (step // 5000) + tqdm_bar(rng, step % 5000 or 1, 5000, (step % 5000) * j.step_s, j.step_s,
                                                                    ", loss=%.3f" % loss)
        else:
            line = j.pfx(0) + " iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | learning rate: %.3E | global batch size: %5d | lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f | number of skipped iterations:   0 | number of nan iterations:   0 |" % (
                step, total, step * 512, j.step_s * 1000 * rng.uniform(0.97, 1.03), rng.uniform(1e-5, 3e-4), 512, loss,
                rng.uniform(0.2, 2.0))
        sc.con(t, 0, [line], tag)
        t += every * rng.uniform(0.8, 1.2)
        k += 1
    return step


# ----------------------------------------------------------------------------------
# failure machinery: watchdog / remote-error collateral, torchrun summaries
# ----------------------------------------------------------------------------------
SIGNAMES = {6: "SIGABRT", 9: "SIGKILL", 11: "SIGSEGV", 7: "SIGBUS", 15: "SIGTERM"}
CUDA_TAIL = [
    "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
    "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
]


def c10_frames(j, rng, where, n=None):
    n = n or rng.randint(2, 6)
    names = ["c10::Error::Error(c10::SourceLocation, std::string) + 0x57",
             "c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2",
             "c10d::ProcessGroupNCCL::watchdogHandler() + 0x233",
             "c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x10c",
             "<unknown function> + 0xdc253",
             "<unknown function> + 0x94ac3",
             "clone + 0x44"]
    libs = ["libc10.so", "libtorch_cuda.so", "libtorch_cuda.so", "libtorch_cuda.so", "libstdc++.so.6", "libc.so.6", "libc.so.6"]
    out = ["Exception raised from %s at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % (
        where, rng.choice([565, 618, 1418, 1521]))]
    for i in range(min(n, len(names))):
        lib = libs[i]
        path = ("%s/torch/lib/%s" % (j.site, lib)) if lib.startswith("lib") and "torch" in lib or lib == "libc10.so" else \
            "/lib/x86_64-linux-gnu/%s" % lib
        out.append("frame #%d: %s (0x%012x in %s)" % (i, names[i], rng.randint(0x7f0000000000, 0x7fffffffffff), path))
    out.append("")
    return out


def workstr(j, seq, op, numel):
    return "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (
        seq, op, numel, numel * (j.world if op == "_ALLGATHER_BASE" else 1), j.timeout_ms)


def watchdog_lines(sc, r, t, seq, op, numel, last_enq=None):
    j, rng = sc.job, sc.rng
    ran = j.timeout_ms + rng.randint(3, 950)
    msg = "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (
        r, workstr(j, seq, op, numel), ran)
    P = j.pfx(r)
    if j.newfmt:
        le = last_enq if last_enq is not None else seq + rng.choice([0, 0, 1, 2])
        out = [j.c10(r, t, "ProcessGroupNCCL.cpp:616", msg),
               j.c10(r, t, "ProcessGroupNCCL.cpp:1785",
                     "[PG 0 (default_pg) Rank %d] Exception (either an error or timeout) detected by watchdog at work: %d, "
                     "last enqueued NCCL work: %d, last completed NCCL work: %d." % (r, seq, le, seq - 1)),
               j.c10(r, t, "ProcessGroupNCCL.cpp:630",
                     "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, "
                     "subsequent GPU operations might run on corrupted/incomplete data." % r),
               j.c10(r, t, "ProcessGroupNCCL.cpp:636", "[Rank %d] To avoid data inconsistency, we are taking the entire process down." % r),
               j.c10(r, t + 0.001, "ProcessGroupNCCL.cpp:1595",
                     "[PG 0 (default_pg) Rank %d] Process group watchdog thread terminated with exception: %s" % (r, msg))]
        if rng.random() < 0.5:
            out.append(P + "terminate called after throwing an instance of 'c10::DistBackendError'")
            out.append(P + "  what():  [PG 0 (default_pg) Rank %d] Process group watchdog thread terminated with exception: %s" % (r, msg))
            out += [P + x for x in c10_frames(j, rng, "checkTimeout")]
    else:
        out = [j.c10(r, t, "ProcessGroupNCCL.cpp:475", msg),
               j.c10(r, t, "ProcessGroupNCCL.cpp:489", "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, "
                     "subsequent GPU operations might run on corrupted/incomplete data."),
               j.c10(r, t, "ProcessGroupNCCL.cpp:495", "To avoid data inconsistency, we are taking the entire process down."),
               j.c10(r, t, "ProcessGroupNCCL.cpp:916", "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, msg)),
               P + "terminate called after throwing an instance of 'std::runtime_error'",
               P + "  what():  [Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, msg)]
        if rng.random() < 0.4:
            out += [P + x for x in c10_frames(j, rng, "ncclCommWatchdog")]
    return out


def remote_lines(sc, r, t, lasterr):
    j, rng = sc.job, sc.rng
    P = j.pfx(r)
    head = "NCCL error: remote process exited or there was a network error, NCCL version %s" % j.ncclver
    tail = ["ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
            "Last error:", lasterr]
    if rng.random() < 0.5:
        fr = j.user_frames(2) + [("%s/torch/distributed/c10d_logger.py" % j.site, 79, "wrapper", "return func(*args, **kwargs)"),
                                 ("%s/torch/distributed/distributed_c10d.py" % j.site, rng.choice([2288, 2501]), "all_reduce",
                                  "work = group.allreduce([tensor], opts)")]
        exc = ["torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d, "
               "remote process exited or there was a network error, NCCL version %s" % (rng.choice([1970, 2027, 1275]), j.ncclver)] + tail
        return j.tb(r, fr, exc), 1
    if j.newfmt:
        out = [j.c10(r, t, "ProcessGroupNCCL.cpp:1595", "[PG 0 (default_pg) Rank %d] Process group watchdog thread terminated with exception: %s" % (r, head))]
    else:
        out = [j.c10(r, t, "ProcessGroupNCCL.cpp:916", "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, head))]
    out += [P + x for x in tail]
    out.append(P + "terminate called after throwing an instance of '%s'" % ("c10::DistBackendError" if j.newfmt else "std::runtime_error"))
    out.append(P + "  what():  %s" % head)
    return out, -6


def childfailed(j, n, t_exit, root, others):
    """root/others: (rank, code). Returns torchrun main traceback + summary box."""
    def entry(idx, r, code, t):
        c = j.clock(n, t)
        tb = ("To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html" if code > 0 else
              "Signal %d (%s) received by PID %d" % (-code, SIGNAMES.get(-code, "SIG%d" % -code), j.pid(r)))
        return ["[%d]:" % idx,
                "  time      : %s" % c.strftime("%Y-%m-%d_%H:%M:%S"),
                "  host      : %s" % j.hosts[n],
                "  rank      : %d (local_rank: %d)" % (r, j.lrank(r)),
                "  exitcode  : %d (pid: %d)" % (code, j.pid(r)),
                "  error_file: <N/A>",
                "  traceback : %s" % tb]
    runpy = "%s/torch/distributed/run.py" % j.site
    out = ["Traceback (most recent call last):",
           '  File "%s", line 8, in <module>' % ("/usr/local/bin/torchrun" if "dist-packages" in j.site else "/opt/conda/bin/torchrun"),
           "    sys.exit(main())",
           '  File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line %d, in wrapper' % (j.site, 355 if j.newfmt else 346),
           "    return f(*args, **kwargs)",
           '  File "%s", line %d, in main' % (runpy, 919 if j.newfmt else 806),
           "    run(args)",
           '  File "%s", line %d, in run' % (runpy, 910 if j.newfmt else 797),
           "    elastic_launch(",
           '  File "%s/torch/distributed/launcher/api.py", line %d, in __call__' % (j.site, 138 if j.newfmt else 134),
           "    return launch_agent(self._config, self._entrypoint, list(args))",
           '  File "%s/torch/distributed/launcher/api.py", line %d, in launch_agent' % (j.site, 269 if j.newfmt else 264),
           "    raise ChildFailedError(",
           "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
           "============================================================",
           "%s FAILED" % j.script,
           "------------------------------------------------------------",
           "Failures:"]
    if others:
        for i, (r, code, t) in enumerate(others):
            out += entry(i + 1, r, code, t)
    else:
        out.append("  <NO_OTHER_FAILURES>")
    out += ["------------------------------------------------------------",
            "Root Cause (first observed failure):"]
    out += entry(0, root[0], root[1], root[2])
    out.append("============================================================")
    return out


def resolve(sc, exits, t_fail, mode, lasterr=None, seq=None, op="ALLREDUCE", numel=None, exclude=(),
            special_lines=None):
    """exits: rank -> (t, code) fixed by the scenario (their own lines already emitted).
    Adds collateral for the other ranks, kills late ranks per node, emits agent summaries."""
    j, rng = sc.job, sc.rng
    seq = seq or j.seq
    numel = numel or rng.choice([1, 2048, 65536, 131072000, 50331648, 262144])
    mode = getattr(sc, "force_mode", None) or mode
    tent = dict(exits)
    t_first_any = min([v[0] for v in exits.values()] or [t_fail])
    for r in range(j.world):
        if r in tent or r in exclude:
            continue
        if mode == "timeout":
            tt = t_fail + j.timeout_ms / 1000.0 + rng.uniform(0.0, 4.0)
        else:
            tt = t_first_any + rng.uniform(0.4, 25.0)
        tent[r] = (tt, None)
    final = {}
    node_first = {}
    for n in range(j.nnodes):
        ranks = [r for r in range(n * j.gpn, (n + 1) * j.gpn) if r in tent]
        if not ranks:
            continue
        ex = sorted((tent[r][0], r) for r in ranks)
        t0 = ex[0][0]
        node_first[n] = t0
        for tt, r in ex:
            if tt <= t0 + 1.2:
                final[r] = tent[r]
    summaries = {}
    for r in sorted(final):
        tt, code = final[r]
        if code is None:
            if special_lines and r in special_lines:
                lines, code = special_lines[r](r, tt)
            elif mode == "timeout":
                lines, code = watchdog_lines(sc, r, tt, seq, op, numel), -6
            else:
                src = sc.init_node if sc.init_node is not None else 0
                lines, code = remote_lines(sc, r, tt, lasterr or "socketProgress: Connection closed by remote peer %s<%d>" % (
                    j.hosts[src], rng.randint(30000, 60000)))
            final[r] = (tt, code)
            sc.con(tt, j.node_of(r), lines, "coll")
    # survivors' store errors
    if j.nnodes > 1 and rng.random() < 0.6:
        n0 = 0
        if 0 in node_first:
            for n in range(1, j.nnodes):
                if n in node_first and node_first[n] > node_first[0] + 1:
                    r = n * j.gpn + rng.randrange(j.gpn)
                    tt = node_first[0] + rng.uniform(0.5, 3)
                    sc.con(tt, n, [j.c10(r, tt, "TCPStore.cpp:%d" % rng.choice([125, 106]),
                                         "[c10d] recvValue failed on SocketImpl(fd=%d, addr=[%s]:%d, remote=[%s]:29500): Connection reset by peer" % (
                                             rng.randint(40, 120), j.hosts[n], rng.randint(33000, 60000), j.hosts[n0]), sev="W")
                                   if j.newfmt else
                                   j.pfx(r) + "[W socket.cpp:601] [c10d] recv failed: Connection reset by peer"], "coll")
    # agents
    user_node = 0
    for n in sorted(node_first):
        ranks = [r for r in range(n * j.gpn, (n + 1) * j.gpn)]
        failed = sorted([(final[r][0], r) for r in ranks if r in final])
        t0, root = failed[0]
        ta = t0 + rng.uniform(0.2, 2.0)
        lines = []
        for r in ranks:
            if r not in final:
                lines.append(j.agent(n, ta, "Sending process %d closing signal SIGTERM" % j.pid(r)))
        lines.append(j.agent(n, ta + 0.3, "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (
            final[root][1], j.lrank(root), j.pid(root), j.pybin), sev="E", mod="api.py:869" if j.newfmt else "api.py:869"))
        others = [(r, final[r][1], final[r][0]) for _, r in failed[1:]]
        lines += childfailed(j, n, t0, (root, final[root][1], t0), others)
        tag = "key" if (sc.init_rank is not None and root == sc.init_rank and sc.cause not in ("unknown",)) else "tail"
        summaries[n] = (root, final[root][1])
        sc.con(ta, n, lines, tag)
        if j.slurm:
            sc.con(ta + rng.uniform(1, 5), n, ["srun: error: %s: task %d: Exited with exit code 1" % (j.hosts[n], n)], "tail")
    if j.slurm and node_first:
        tl = max(node_first.values()) + 6
        sc.con(tl, 0, ["srun: Job step aborted: Waiting up to 32 seconds for job step to finish."]
               if rng.random() < 0.5 else ["srun: launch/slurm: _step_signal: Terminating StepId=%d.0" % j.jobid], "tail")
    sc.summaries = summaries
    sc.final_exits = final
    sc.t_end = max([v[0] for v in final.values()] or [t_fail]) + 10
    return final


# ----------------------------------------------------------------------------------
# scenario builders (one per cause)
# ----------------------------------------------------------------------------------
def run_until(sc, lo=1500, hi=40000):
    t = noise_startup(sc, 0.0)
    tf = t + sc.rng.uniform(lo, hi)
    sc.last_step = noise_progress(sc, t, tf - 3, 0)
    return tf


def choose_init(sc, lr_any=True):
    j, rng = sc.job, sc.rng
    r = rng.randrange(j.world)
    if j.world > 1 and r == 0 and rng.random() < 0.7:
        r = rng.randrange(1, j.world)
    sc.init_rank = r
    sc.init_node = j.node_of(r)
    return r


def xid_prefix(j, lr):
    return "NVRM: Xid (PCI:0000:%s:00): " % j.bus(lr)


def dmesg_noise(sc, n, t):
    j, rng = sc.job, sc.rng
    pool = ["audit: type=1400 audit(%d.%03d:%d): apparmor=\"DENIED\" operation=\"open\" profile=\"snap.lxd.daemon\" name=\"/proc/%d/mounts\"" % (
                1700000000 + rng.randint(0, 9999999), rng.randint(0, 999), rng.randint(100, 9999), rng.randint(100, 9999)),
            "IPv6: ADDRCONF(NETDEV_CHANGE): veth%x: link becomes ready" % rng.getrandbits(24),
            "docker0: port 1(veth%x) entered forwarding state" % rng.getrandbits(24),
            "nvidia-peermem: module verification failed: signature and/or required key missing - tainting kernel",
            "EXT4-fs (nvme0n1p2): mounted filesystem with ordered data mode. Quota mode: none.",
            "Lustre: Mounted scratch-client" if rng.random() < 0.5 else "NFS: Registering the id_resolver key type",
            "perf: interrupt took too long (2513 > 2500), lowering kernel.perf_event_max_sample_rate to 79500",
            "nvidia-nvswitch: Probing device 0000:05:00.0, Vendor Id = 0x10de, Device Id = 0x22a3, Class = 0x068000",
            "systemd-journald[812]: Data hash table of /var/log/journal/%032x/system.journal has a fill level at 75.0 (8533 of 11377 items, 6553600 file size, 767 bytes per hash table item), suggesting rotation." % rng.getrandbits(128)]
    for _ in range(rng.randint(2, 5)):
        sc.dm(n, t - rng.uniform(100, 30000), pick(rng, pool))


def b_gpu_hardware(sc):
    j, rng = sc.job, sc.rng
    r = choose_init(sc)
    n, lr = j.node_of(r), j.lrank(r)
    tf = run_until(sc)
    kind = rng.choice(["79", "79", "62", "119", "reset"])
    X = xid_prefix(j, lr)
    dmesg_noise(sc, n, tf)
    if kind in ("79", "reset"):
        sc.dm(n, tf, X + "79, pid=%d, name=%s, GPU has fallen off the bus." % (j.pid(r), rng.choice(["python", "python3", "pt_main_thread"])))
        sc.dm(n, tf, "NVRM: GPU 0000:%s:00.0: GPU has fallen off the bus." % j.bus(lr))
        sc.dm(n, tf + 0.01, "NVRM: GPU 0000:%s:00.0: GPU serial number is %d." % (j.bus(lr), rng.randint(1650000000000, 1659999999999)))
        sc.dm(n, tf + 0.02, "NVRM: A GPU crash dump has been created. If possible, please run")
        sc.dm(n, tf + 0.02, "NVRM: nvidia-bug-report.sh as root to collect this data before")
        sc.dm(n, tf + 0.02, "NVRM: the NVIDIA kernel module is unloaded.")
        sc.key_summary = "Xid 79 (GPU fallen off the bus)"
        smi = ["$ nvidia-smi", "Unable to determine the device handle for GPU0000:%s:00.0: Unknown Error" % j.bus(lr).upper()]
        if kind == "reset":
            smi += ["$ nvidia-smi -i %d -q | grep -i -A2 reset" % lr, "    GPU Reset Status", "        Reset Required                    : Yes",
                    "        Drain and Reset Recommended       : No"]
        sc.extra("nvsmi", "nvidia-smi on %s" % j.hosts[n], smi, key=False)
    elif kind == "62":
        sc.dm(n, tf, X + "62, pid='<unknown>', name=<unknown>, %04x(%04x) 00000000 00000000" % (rng.getrandbits(16), rng.getrandbits(16)))
        sc.dm(n, tf + 0.4, X + "45, pid=%d, name=python, Ch 00000008" % j.pid(r))
        sc.key_summary = "Xid 62 (internal micro-controller halt)"
    else:
        sc.dm(n, tf, X + "119, pid=%d, name=python, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x%08x 0x%x)." % (
            j.pid(r), lr, rng.getrandbits(32), rng.choice([4, 8, 0x20])))
        sc.dm(n, tf + 0.001, "NVRM: GPU%d GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x%016x 0x%016x." % (lr, rng.getrandbits(32), rng.getrandbits(8)))
        sc.dm(n, tf + 0.002, "NVRM: GPU%d RPC history (CPU -> GPU):" % lr)
        sc.dm(n, tf + 6.1, X + "119, pid=%d, name=python, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 10 (FREE) (0x%x 0x0)." % (
            j.pid(r), lr, rng.getrandbits(28)))
        sc.key_summary = "Xid 119 (GSP RPC timeout)"
    sc.node_known = True
    sc.dmesg_key = True
    exits = {}
    excl = ()
    if rng.random() < 0.7:
        err = rng.choice(["unspecified launch failure", "unknown error", "an illegal memory access was encountered"
                          if kind == "79" and rng.random() < 0.2 else "unspecified launch failure"])
        tt = tf + rng.uniform(0.5, 12)
        if rng.random() < 0.5:
            ls = j.tb(r, j.user_frames(), ["RuntimeError: CUDA error: %s" % err] + CUDA_TAIL)
            exits[r] = (tt, 1)
        else:
            ls = [j.c10(r, tt, "ProcessGroupNCCL.cpp:1182" if not j.newfmt else "ProcessGroupNCCL.cpp:1595",
                        "[Rank %d] NCCL watchdog thread terminated with exception: CUDA error: %s" % (r, err))] + \
                 [j.pfx(r) + x for x in CUDA_TAIL] + \
                 [j.pfx(r) + "terminate called after throwing an instance of 'c10::DistBackendError'",
                  j.pfx(r) + "  what():  [Rank %d] NCCL watchdog thread terminated with exception: CUDA error: %s" % (r, err)]
            exits[r] = (tt, -6)
        sc.con(tt, n, ls, "key")
        sc.rank_known = True
        mode = rng.choice(["timeout", "remote"])
    else:
        excl = (r,)
        mode = "timeout"
    resolve(sc, exits, tf, mode, exclude=excl)
    if not sc.rank_known:
        sc.init_rank = None
    sc.notes = "GPU %d on %s failed (%s) under rank %s; peers hit NCCL %s." % (
        lr, j.hosts[n], sc.key_summary, r, "watchdog timeouts" if mode == "timeout" else "remote errors")
    sc.question_hint = "GPU"


def b_ecc_memory(sc):
    j, rng = sc.job, sc.rng
    r = choose_init(sc)
    n, lr = j.node_of(r), j.lrank(r)
    tf = run_until(sc)
    err = "uncorrectable ECC error encountered"
    if rng.random() < 0.5:
        ls = j.tb(r, j.user_frames(), ["RuntimeError: CUDA error: %s" % err] + CUDA_TAIL)
        code = 1
    else:
        ls = [j.c10(r, tf, "ProcessGroupNCCL.cpp:1595" if j.newfmt else "ProcessGroupNCCL.cpp:1182",
                    "[Rank %d] NCCL watchdog thread terminated with exception: CUDA error: %s" % (r, err))] + \
             [j.pfx(r) + x for x in CUDA_TAIL] + \
             [j.pfx(r) + "terminate called after throwing an instance of 'c10::DistBackendError'",
              j.pfx(r) + "  what():  CUDA error: %s" % err]
        code = -6
    sc.con(tf, n, ls, "key")
    sc.rank_known = True
    smi = ["$ nvidia-smi -q -i %d -d ECC,ROW_REMAPPER" % lr, "",
           "==============NVSMI LOG==============", "",
           "Timestamp                                 : %s" % j.clock(n, tf + 3600).strftime("%a %b %d %H:%M:%S %Y"),
           "Driver Version                            : %s" % j.driver, "Attached GPUs                             : %d" % j.gpn,
           "GPU 00000000:%s:00.0" % j.bus(lr).upper(),
           "    ECC Mode", "        Current                           : Enabled", "        Pending                           : Enabled",
           "    ECC Errors", "        Volatile",
           "            SRAM Correctable              : 0", "            SRAM Uncorrectable            : 0",
           "            DRAM Correctable              : %d" % rng.randint(0, 40),
           "            DRAM Uncorrectable            : %d" % rng.randint(1, 6),
           "        Aggregate",
           "            SRAM Correctable              : %d" % rng.randint(0, 3), "            SRAM Uncorrectable            : 0",
           "            DRAM Correctable              : %d" % rng.randint(10, 400),
           "            DRAM Uncorrectable            : %d" % rng.randint(2, 12),
           "    Remapped Rows",
           "        Correctable Error                 : %d" % rng.randint(0, 3),
           "        Uncorrectable Error               : %d" % rng.randint(1, 8)]
    fail = rng.random() < 0.5
    smi += ["        Pending                           : %s" % ("No" if fail else "Yes"),
            "        Remapping Failure Occurred        : %s" % ("Yes" if fail else "No")]
    sc.extra("nvsmi", "nvidia-smi -q on %s (GPU %d)" % (j.hosts[n], lr), smi, key=True)
    sc.node_known = True
    if rng.random() < 0.5:
        sc.dm(n, tf - 0.2, xid_prefix(j, lr) + "63, pid=%d, name=python, Row Remapper: New row (0x%08x) marked for remapping, reset gpu to activate." % (
            j.pid(r), rng.getrandbits(28)))
    dmesg_noise(sc, n, tf)
    resolve(sc, {r: (tf, code)}, tf, rng.choice(["timeout", "remote"]))
    sc.key_summary = "uncorrectable ECC error"
    sc.notes = "Uncorrectable DRAM ECC error on GPU %d of %s (rank %d)%s; other ranks collateral." % (
        lr, j.hosts[n], r, ", row remapping failed" if fail else ", row remap pending")


def b_nvlink(sc):
    j, rng = sc.job, sc.rng
    if j.gpn < 8 and rng.random() < 0.5:
        pass
    r = choose_init(sc)
    n, lr = j.node_of(r), j.lrank(r)
    tf = run_until(sc)
    link = rng.randint(0, 17)
    sc.dm(n, tf, xid_prefix(j, lr) + "74, pid=%d, name=python, NVLink: fatal error detected on link %d(0x%x, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)" % (
        j.pid(r), link, rng.choice([0x10000, 0x20000, 0x8000])))
    if rng.random() < 0.5:
        sc.dm(n, tf + 0.3, xid_prefix(j, lr) + "74, pid=%d, name=python, NVLink: Link %d is DOWN" % (j.pid(r), link))
    dmesg_noise(sc, n, tf)
    sc.node_known = True
    sc.dmesg_key = True
    if rng.random() < 0.5:
        fm = ["[%s] [ERROR] [tid %d] detected NVSwitch fatal error %d on fid 0 on NVSwitch pci bus id 00000000:%02x:00.0 physical id %d port %d" % (
            j.clock(n, tf).strftime("%b %d %Y %H:%M:%S"), rng.randint(1000, 9000), rng.choice([12028, 12021, 20034]),
            rng.choice([5, 6, 7, 8]), rng.randint(0, 3), rng.randint(0, 63)),
              "[%s] [ERROR] [tid %d] NVSwitch fatal error detected on GPU 0000:%s:00.0, attempting to reset the fabric partition" % (
            j.clock(n, tf + 1).strftime("%b %d %Y %H:%M:%S"), rng.randint(1000, 9000), j.bus(lr))]
        sc.extra("fabricmanager", "/var/log/fabricmanager.log on %s" % j.hosts[n], fm, key=False)
    tt = tf + rng.uniform(0.1, 3)
    msg = "Cuda failure 'uncorrectable NVLink error detected during the execution'"
    ls = [j.ncclw(r, "%s:%d" % (rng.choice(["enqueue.cc", "proxy.cc", "transport/p2p.cc"]), rng.randint(100, 1700)), msg)]
    fr = j.user_frames(2) + [("%s/torch/distributed/distributed_c10d.py" % j.site, 2288, "all_reduce", "work = group.allreduce([tensor], opts)")]
    ls += j.tb(r, fr, ["torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % (
        rng.choice([1970, 2027, 1275]), j.ncclver),
                       "ncclUnhandledCudaError: Call to CUDA function failed.", "Last error:", msg])
    sc.con(tt, n, ls, "key")
    sc.rank_known = True
    if rng.random() < 0.5:
        sc.extra("nvsmi", "nvidia-smi nvlink -e -i %d on %s" % (lr, j.hosts[n]),
                 ["$ nvidia-smi nvlink -e -i %d" % lr, "GPU %d: %s (UUID: GPU-%08x-%04x-%04x-%04x-%012x)" % (
                     lr, j.gpu_model, rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(48))] +
                 sum([["\t Link %d: Replay Errors: %d" % (k, 0 if k != link else rng.randint(50, 900)),
                       "\t Link %d: Recovery Errors: %d" % (k, 0 if k != link else rng.randint(3, 40)),
                       "\t Link %d: CRC Errors: %d" % (k, 0 if k != link else rng.randint(100, 9000))] for k in range(max(0, link - 1), link + 2)], []),
                 key=False)
    resolve(sc, {r: (tt, 1)}, tf, rng.choice(["remote", "timeout"]))
    sc.key_summary = "Xid 74 NVLink fatal error"
    sc.notes = "NVLink link %d on GPU %d of %s failed (Xid 74); rank %d got an uncorrectable NVLink CUDA error." % (link, lr, j.hosts[n], r)


def b_network(sc):
    j, rng = sc.job, sc.rng
    if j.nnodes == 1:
        # rebuild as two nodes: network cause needs at least two hosts
        j.nnodes = 2
        j.world = 2 * j.gpn
        j.hosts = j.hosts + [j.hosts[0] + "b"] if len(j.hosts) < 2 else j.hosts
        j.ips = j.ips + ["10.3.1.%d" % rng.randint(20, 200)]
        j.skew = j.skew + [rng.uniform(-30, 30)]
        j.base_pid = j.base_pid + [rng.randint(2000, 90000)]
        j.agent_pid = j.agent_pid + [j.base_pid[1] - 7]
        if j.fabric == "P2P":
            j.fabric = rng.choice(["IB", "RoCE", "Socket"])
    n = rng.randrange(j.nnodes)
    sc.init_node = n
    sc.init_rank = None
    tf = run_until(sc)
    dmesg_noise(sc, n, tf)
    port = rng.randint(0, 3)
    nic_bus = rng.choice(["0c", "1f", "4b", "c1", "d2"])
    if j.fabric in ("IB", "RoCE"):
        dev = "ib%d" % port if j.fabric == "IB" else "ens%df0np0" % rng.randint(1, 9)
        sc.dm(n, tf - 1.5, "mlx5_core 0000:%s:00.0: mlx5_port_module_event:1137:(pid 0): Port module event[error]: module %d, Cable error, %s" % (
            nic_bus, port, rng.choice(["Bad or shorted cable/module", "High Temperature", "Bus stuck (I2C or data shorted)"])))
        sc.dm(n, tf - 1.0, "mlx5_core 0000:%s:00.0 %s: Link down" % (nic_bus, dev))
        for k in range(rng.randint(1, 4)):
            r = n * j.gpn + rng.randrange(j.gpn)
            sc.con(tf + k * 0.01, n, [j.ncclw(r, "transport/net_ib.cc:%d" % rng.choice([93, 101]), "NET/IB : Got async event : port error")], "key")
        peer = (n + 1) % j.nnodes
        rp = peer * j.gpn + rng.randrange(j.gpn)
        lasterr = "NET/IB : Got completion from peer %s<%d> with status=12 opcode=%d len=0 vendor err 129 (%s) localGid ::ffff:%s remoteGids::ffff:%s" % (
            j.ips[n], rng.randint(30000, 60000), rng.choice([0, 1, 2]), rng.choice(["Recv", "Send"]), j.ips[peer], j.ips[n])
        sc.con(tf + 8, peer, [j.ncclw(rp, "transport/net_ib.cc:%d" % rng.choice([1238, 1696, 1909]), lasterr),
                              j.nccl(rp, "transport/net.cc:%d -> 6" % rng.choice([1130, 1302, 1137])),
                              j.nccl(rp, "proxy.cc:698 -> 6"),
                              j.nccl(rp, "proxy.cc:878 -> 6 [Progress Thread]")], "coll")
        sc.key_summary = "IB/RoCE port error / link down on %s" % j.hosts[n]
    else:
        dev = j.ifname
        sc.dm(n, tf - 0.5, "%s 0000:%s:00.0 %s: NIC Link is Down" % (rng.choice(["bnxt_en", "ice", "i40e"]), nic_bus, dev))
        if rng.random() < 0.6:
            sc.dm(n, tf + 40, "%s 0000:%s:00.0 %s: NIC Link is Up, 100000 Mbps full duplex, Flow control: none" % (
                rng.choice(["bnxt_en", "ice"]), nic_bus, dev))
        peer = (n + 1) % j.nnodes
        rp = peer * j.gpn + rng.randrange(j.gpn)
        lasterr = "socketProgressOpt: Call to recv from %s<%d> failed : Connection timed out" % (j.ips[n], rng.randint(30000, 60000))
        sc.con(tf + 3, peer, [j.ncclw(rp, "misc/socket.cc:%d" % rng.choice([538, 49, 580]), lasterr),
                              j.nccl(rp, "transport/net_socket.cc:%d -> 6" % rng.choice([484, 560]))], "coll")
        sc.key_summary = "NIC link down on %s" % j.hosts[n]
    # the node with the link fault: its ranks either time out or remote-error
    sc.dmesg_key = True
    sc.node_known = True
    resolve(sc, {}, tf + 5, rng.choice(["remote", "remote", "timeout"]), lasterr=lasterr)
    sc.notes = "Network link fault on %s (%s); all ranks failed in NCCL; no single rank initiated." % (j.hosts[n], sc.key_summary)


OOM_FRAMES = [
    ("{site}/torch/nn/modules/module.py", 1553, "_call_impl", "return forward_call(*args, **kwargs)"),
    ("{wd}/model/attention.py", 211, "forward", "attn = torch.softmax(scores, dim=-1)"),
]


def b_cuda_oom(sc):
    j, rng = sc.job, sc.rng
    r = choose_init(sc)
    n, lr = j.node_of(r), j.lrank(r)
    tf = run_until(sc, 200, 20000)
    tried = rng.choice(["1.25 GiB", "2.00 GiB", "768.00 MiB", "4.50 GiB", "320.00 MiB"])
    free = rng.choice(["412.81 MiB", "1.02 GiB", "96.19 MiB", "660.00 MiB"])
    inuse = "%.2f GiB" % (j.gpumem - rng.uniform(0.1, 1.1))
    alloc = "%.2f GiB" % (j.gpumem - rng.uniform(3, 9))
    fr = j.user_frames() + [(f.format(site=j.site, wd=j.workdir), ln, fn, code) for f, ln, fn, code in OOM_FRAMES]
    if j.newfmt or rng.random() < 0.5:
        exc = ["torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %s. GPU %d has a total capacity of %.2f GiB of which %s is free. "
               "Process %d has %s memory in use. Of the allocated memory %s is allocated by PyTorch, and %s is reserved by PyTorch but unallocated. "
               "If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  "
               "See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)" % (
                   tried, lr, j.gpumem, free, j.pid(r), inuse, alloc, rng.choice(["1.87 GiB", "512.40 MiB", "3.02 GiB"]))]
    else:
        exc = ["torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate %s (GPU %d; %.2f GiB total capacity; %s already allocated; %s free; "
               "%.2f GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  "
               "See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF" % (tried, lr, j.gpumem, alloc, free, j.gpumem - 0.8)]
    sc.con(tf, n, j.tb(r, fr, exc), "key")
    sc.rank_known = True
    sc.node_known = j.nnodes == 1
    resolve(sc, {r: (tf + 0.2, 1)}, tf, rng.choice(["timeout", "remote", "remote"]))
    sc.key_summary = "CUDA OOM"
    sc.notes = "Rank %d (GPU %d on %s) ran out of GPU memory (tried to allocate %s); other ranks collateral." % (r, lr, j.hosts[n], tried)


def b_illegal_memory_access(sc):
    j, rng = sc.job, sc.rng
    r = choose_init(sc)
    n, lr = j.node_of(r), j.lrank(r)
    tf = run_until(sc, 60, 20000)
    var = rng.choice(["ima_py", "ima_wd", "assert"])
    if var == "assert":
        ls = []
        for k in range(rng.randint(2, 6)):
            ls.append(j.pfx(r) + "../aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [%d,0,0], thread: [%d,0,0] Assertion "
                      "`-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"` failed." % (rng.randint(0, 4000), rng.randint(0, 127)))
        ls += j.tb(r, j.user_frames() + [("%s/torch/nn/functional.py" % j.site, 2264, "embedding",
                                          "return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)")],
                   ["RuntimeError: CUDA error: device-side assert triggered"] + CUDA_TAIL)
        code = 1
        sc.key_summary = "device-side assert"
    elif var == "ima_py":
        ls = j.tb(r, j.user_frames(), ["RuntimeError: CUDA error: an illegal memory access was encountered"] + CUDA_TAIL)
        code = 1
        sc.key_summary = "illegal memory access"
    else:
        head = "[Rank %d] NCCL watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered" % r
        ls = [j.c10(r, tf, "ProcessGroupNCCL.cpp:1595" if j.newfmt else "ProcessGroupNCCL.cpp:1182", head)] + \
             [j.pfx(r) + x for x in CUDA_TAIL] + [j.pfx(r) + "", j.pfx(r) + "Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):"] + \
             [j.pfx(r) + "terminate called after throwing an instance of 'c10::DistBackendError'", j.pfx(r) + "  what():  " + head]
        code = -6
        sc.key_summary = "illegal memory access (watchdog)"
    sc.con(tf, n, ls, "key")
    sc.rank_known = True
    sc.node_known = j.nnodes == 1
    if rng.random() < 0.5:
        X = xid_prefix(j, lr)
        x = rng.choice(["13", "31", "43"])
        if x == "13":
            sc.dm(n, tf - 0.01, X + "13, pid=%d, name=python, Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (
                j.pid(r), rng.randint(0, 7), rng.randint(0, 8), rng.randint(0, 1)))
            sc.dm(n, tf - 0.01, X + "13, pid=%d, name=python, Graphics Exception: ESR 0x%x=0x%x 0x%x=0x0 0x%x=0x%x 0x%x=0x174" % (
                j.pid(r), 0x51a730, rng.getrandbits(28), 0x51a734, 0x51a728, rng.getrandbits(28), 0x51a72c))
        elif x == "31":
            sc.dm(n, tf - 0.01, X + "31, pid=%d, name=python, Ch %08x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_%d faulted @ 0x7f%02x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (
                j.pid(r), rng.randint(8, 40), rng.randint(0, 15), rng.randint(0, 255), rng.getrandbits(32)))
        else:
            sc.dm(n, tf + 0.01, X + "43, pid=%d, name=python, Ch %08x" % (j.pid(r), rng.randint(8, 40)))
        sc.node_known = True
    resolve(sc, {r: (tf + 0.3, code)}, tf, rng.choice(["timeout", "remote"]))
    sc.notes = "Rank %d on %s hit %s (application bug); peers collateral." % (r, j.hosts[n], sc.key_summary)


PY_EXC = [
    (("{wd}/data/collate.py", 57, "__call__", "input_ids = [ex[\"input_ids\"] for ex in batch]"), ["KeyError: 'input_ids'"]),
    (("{site}/torch/nn/functional.py", 3086, "cross_entropy", "return torch._C._nn.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index, label_smoothing)"),
     ["ValueError: Expected input batch_size (12) to match target batch_size (16)."]),
    (("{wd}/model/rope.py", 88, "apply_rotary", "return (x * cos) + (rotate_half(x) * sin)"),
     ["RuntimeError: The size of tensor a (4096) must match the size of tensor b (4097) at non-singleton dimension 1"]),
    (("{wd}/data/shards.py", 132, "_open_shard", "self._fh = open(path, \"rb\")"),
     ["FileNotFoundError: [Errno 2] No such file or directory: '/mnt/data/shards/train-00417-of-01024.arrow'"]),
    (("{wd}/trainer/loop.py", 301, "training_step", "assert torch.isfinite(loss), f\"loss is {loss.item()} at step {step}\""),
     ["AssertionError: loss is nan at step 18233"]),
    (("{wd}/utils/checkpoint.py", 64, "save", "torch.save(state, tmp_path)"),
     ["RuntimeError: [enforce fail at inline_container.cc:595] . unexpected pos 3221225536 vs 3221225424"]),
    (("{wd}/data/tokenize.py", 41, "__getitem__", "text = f.read().decode(\"utf-8\")"),
     ["UnicodeDecodeError: 'utf-8' codec can't decode byte 0x8b in position 1: invalid start byte"]),
    (("{wd}/trainer/loop.py", 188, "log_metrics", "self.tb.add_scalar(k, v.item(), step)"),
     ["AttributeError: 'float' object has no attribute 'item'"]),
]


def b_python_exception(sc):
    j, rng = sc.job, sc.rng
    r = choose_init(sc)
    n = j.node_of(r)
    tf = run_until(sc, 60, 30000)
    (f, ln, fn, code), exc = pick(rng, PY_EXC)
    fr = j.user_frames() + [(f.format(site=j.site, wd=j.workdir), ln, fn, code)]
    ls = j.tb(r, fr, exc)
    if "DataLoader" not in exc[0] and rng.random() < 0.3 and "data" in f:
        ls = [j.pfx(r) + "Original Traceback (most recent call last):"] + ls[1:]
        ls = j.tb(r, j.user_frames(2) + [("%s/torch/utils/data/dataloader.py" % j.site, 1465, "_process_data", "data.reraise()"),
                                         ("%s/torch/_utils.py" % j.site, 722, "reraise", "raise exception")],
                  [exc[0].split(":")[0] + ": Caught %s in DataLoader worker process %d." % (exc[0].split(":")[0], rng.randint(0, 7))]) + ls
    sc.con(tf, n, ls, "key")
    sc.rank_known = True
    sc.node_known = j.nnodes == 1
    resolve(sc, {r: (tf + 0.1, 1)}, tf, rng.choice(["timeout", "remote", "remote"]))
    sc.key_summary = exc[0].split(":")[0]
    sc.notes = "Uncaught %s on rank %d (%s); other ranks collateral." % (sc.key_summary, r, j.hosts[n])


def b_host_oom_kill(sc):
    j, rng = sc.job, sc.rng
    r = choose_init(sc)
    n, lr = j.node_of(r), j.lrank(r)
    tf = run_until(sc, 300, 30000)
    dmesg_noise(sc, n, tf)
    var = rng.choice(["main", "main", "worker"])
    victim = j.pid(r) if var == "main" else j.pid(r) + rng.randint(200, 900)
    vname = "python" if var == "main" else rng.choice(["pt_data_worker", "python"])
    cg = rng.random() < 0.5
    sc.dm(n, tf - 0.3, "%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0" % rng.choice(["python", "pt_data_worker", "pt_main_thread"]))
    if cg:
        sc.dm(n, tf - 0.25, "memory: usage %dkB, limit %dkB, failcnt %d" % (rng.randint(500, 520) * 1048576 // 1, 524288000, rng.randint(1, 900)))
        sc.dm(n, tf - 0.2, "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0-1,oom_memcg=/slurm/uid_%d/job_%d,task_memcg=/slurm/uid_%d/job_%d/step_0/task_%d,task=%s,pid=%d,uid=%d" % (
            rng.randint(1000, 60000), j.jobid, 1000, j.jobid, n, vname, victim, rng.randint(1000, 60000)))
        sc.dm(n, tf, "Memory cgroup out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (
            victim, vname, rng.randint(60, 200) * 1048576, rng.randint(40, 120) * 1048576, rng.randint(100000, 900000), rng.randint(1000, 80000), rng.randint(1000, 60000), rng.randint(80000, 400000)))
    else:
        sc.dm(n, tf - 0.2, "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/system.slice/docker-%012x.scope,task=%s,pid=%d,uid=0" % (
            rng.getrandbits(48), vname, victim))
        sc.dm(n, tf, "Out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:0 pgtables:%dkB oom_score_adj:0" % (
            victim, vname, rng.randint(60, 200) * 1048576, rng.randint(40, 120) * 1048576, rng.randint(100000, 900000), rng.randint(1000, 80000), rng.randint(80000, 400000)))
    sc.dmesg_key = True
    sc.dm(n, tf + 0.4, "oom_reaper: reaped process %d (%s), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB" % (victim, vname))
    sc.node_known = True
    if var == "main":
        sc.rank_known = True  # pid in dmesg == pid in torchrun summary (kept as key)
        exits = {r: (tf + 0.5, -9)}
    else:
        ls = j.tb(r, j.user_frames(2) + [("%s/torch/utils/data/dataloader.py" % j.site, 1133, "_try_get_data", "data = self._data_queue.get(timeout=timeout)")],
                  ["RuntimeError: DataLoader worker (pid %d) is killed by signal: Killed. " % victim])
        sc.con(tf + 1.5, n, ls, "key")
        sc.rank_known = True
        exits = {r: (tf + 1.6, 1)}
    if j.slurm:
        sc.con(tf + 30, n, ["slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % j.jobid], "key")
    resolve(sc, exits, tf, rng.choice(["remote", "timeout"]))
    sc.key_summary = "host OOM killer"
    sc.notes = "Kernel OOM killer on %s killed %s (pid %d) of rank %d; rest collateral." % (
        j.hosts[n], "the rank's main process" if var == "main" else "a DataLoader worker", victim, r)


def b_crash_signal(sc):
    j, rng = sc.job, sc.rng
    r = choose_init(sc)
    n = j.node_of(r)
    tf = run_until(sc, 60, 30000)
    var = rng.choice(["segv", "segv", "abort", "bus"])
    P = j.pfx(r)
    if var == "segv":
        ls = [P + "Fatal Python error: Segmentation fault", P + "",
              P + "Thread 0x%016x (most recent call first):" % rng.getrandbits(47),
              P + '  File "%s/threading.py", line 324 in wait' % ("/usr/lib/python" + j.pyv),
              P + '  File "%s/threading.py", line 607 in wait' % ("/usr/lib/python" + j.pyv), P + "",
              P + "Current thread 0x%016x (most recent call first):" % rng.getrandbits(47),
              P + '  File "%s/ops/fused_kernels.py", line %d in forward' % (j.workdir, rng.randint(40, 300)),
              P + '  File "%s/torch/nn/modules/module.py", line 1562 in _call_impl' % j.site,
              P + '  File "%s/%s", line %d in main' % (j.workdir, j.script, rng.randint(200, 400)), P + "",
              P + "Extension modules: numpy.core._multiarray_umath, torch._C, torch._C._fft, (total: %d)" % rng.randint(20, 90)]
        code = -11
        if rng.random() < 0.5:
            sc.dm(n, tf, "python[%d]: segfault at %x ip %016x sp %016x error 4 in %s[%x+%x]" % (
                j.pid(r), rng.choice([0, 8, 0x18]), rng.getrandbits(47), rng.getrandbits(47),
                rng.choice(["libfused_ops.so", "libc.so.6", "_C.cpython-310-x86_64-linux-gnu.so"]), rng.getrandbits(44), rng.getrandbits(20)))
            sc.node_known = True
        sc.key_summary = "SIGSEGV"
    elif var == "abort":
        ls = [P + rng.choice(["free(): invalid pointer", "double free or corruption (!prev)", "corrupted size vs. prev_size"])]
        code = -6
        sc.key_summary = "SIGABRT (heap corruption)"
    else:
        ls = [P + "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm)."]
        ls += j.tb(r, j.user_frames(2) + [("%s/torch/utils/data/_utils/signal_handling.py" % j.site, 67, "handler", "_error_if_any_worker_fails()")],
                   ["RuntimeError: DataLoader worker (pid %d) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. "
                    "Please try to raise your shared memory limit." % (j.pid(r) + rng.randint(100, 800))])
        code = 1
        sc.key_summary = "SIGBUS in DataLoader worker (shm)"
    sc.con(tf, n, ls, "key")
    sc.rank_known = True
    sc.node_known = sc.node_known or j.nnodes == 1
    resolve(sc, {r: (tf + 0.05, code)}, tf, rng.choice(["remote", "timeout"]))
    sc.notes = "Rank %d on %s crashed with %s; no hardware evidence." % (r, j.hosts[n], sc.key_summary)


def b_preemption(sc):
    j, rng = sc.job, sc.rng
    tf = run_until(sc, 3000, 80000)
    var = rng.choice(["timelimit", "preempt", "k8s", "spot"]) if j.slurm else rng.choice(["k8s", "spot", "timelimit"])
    n_hit = None
    if var in ("timelimit", "preempt"):
        j.slurm = True
        why = "TIME LIMIT" if var == "timelimit" else "PREEMPTION"
        sc.con(tf, 0, ["slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO %s ***" % (
            j.jobid, j.hosts[0], j.clock(0, tf).strftime("%Y-%m-%dT%H:%M:%S"), why)], "key")
        if rng.random() < 0.6:
            sc.con(tf + 0.1, 0, ["slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO %s ***" % (
                j.jobid, j.hosts[0], j.clock(0, tf).strftime("%Y-%m-%dT%H:%M:%S"), why)], "key")
        sc.key_summary = "Slurm cancelled the job due to %s" % why.lower()
    elif var == "k8s":
        sc.extra("k8s", "kubectl describe pod (events)", [
            "Events:", "  Type     Reason     Age    From     Message", "  ----     ------     ----   ----     -------",
            "  Normal   Preempting  %dm   default-scheduler  Preempted by ml-prod/%s-%04x on node %s" % (
                rng.randint(2, 50), rng.choice(["serving", "inference", "prod-train"]), rng.getrandbits(16), j.hosts[0]),
            "  Normal   Killing    %dm   kubelet  Stopping container pytorch" % rng.randint(2, 50)], key=True)
        sc.key_summary = "pod preempted by higher-priority workload"
    else:
        n_hit = rng.randrange(j.nnodes)
        sc.extra("cloud", "instance event (%s)" % j.hosts[n_hit], [
            rng.choice(["EC2 Spot Instance interruption notice: instance %s (i-0%015x) will be stopped at %s" % (
                j.hosts[n_hit], rng.getrandbits(60), j.clock(0, tf + 120).strftime("%Y-%m-%dT%H:%M:%SZ")),
                        "compute.instances.preempted: Instance %s was preempted. (zone us-central1-a)" % j.hosts[n_hit]])], key=True)
        sc.key_summary = "spot/preemptible instance reclaimed"
        sc.init_node = n_hit
        sc.node_known = True
    nodes = range(j.nnodes) if n_hit is None else [n_hit]
    for n in nodes:
        ta = tf + rng.uniform(0.1, 2)
        ls = [j.agent(n, ta, "Received Signals.SIGTERM death signal, shutting down workers" if j.newfmt else
                      "Received Signals.SIGTERM death signal, shutting down workers", sev="W", mod="api.py:%d" % (rng.choice([704, 868])))]
        for lr in range(j.gpn):
            ls.append(j.agent(n, ta + 0.01, "Sending process %d closing signal SIGTERM" % j.pid(n * j.gpn + lr)))
        if rng.random() < 0.5:
            r0 = n * j.gpn
            sc.con(ta + 0.02, n, [j.app(r0, ta + 0.02, "SIGTERM received, trying to save checkpoint before exit", "WARNING")], "coll")
        ls += ["Traceback (most recent call last):",
               '  File "%s/torch/distributed/elastic/agent/server/api.py", line %d, in run' % (j.site, 680),
               "    result = self._invoke_run(role)",
               '  File "%s/torch/distributed/elastic/agent/server/api.py", line %d, in _invoke_run' % (j.site, 835),
               "    time.sleep(monitor_interval)",
               '  File "%s/torch/distributed/elastic/multiprocessing/api.py", line %d, in _terminate_process_handler' % (j.site, 79),
               "    raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)",
               "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % j.agent_pid[n]]
        sc.con(ta + 3, n, ls, "key" if n_hit is not None else "tail")
    if n_hit is not None:
        for n in range(j.nnodes):
            if n != n_hit:
                r = n * j.gpn + rng.randrange(j.gpn)
                sc.con(tf + 4, n, [j.c10(r, tf + 4, "TCPStore.cpp:125", "[c10d] recvValue failed on SocketImpl(fd=77, addr=[%s]:41412, remote=[%s]:29500): Connection reset by peer" % (
                    j.hosts[n], j.hosts[0]), sev="W")], "coll")
        resolve(sc, {}, tf + 3, "remote")
    sc.t_end = tf + 20
    sc.notes = "Job terminated by the scheduler/cloud (%s); no rank at fault." % sc.key_summary


def pyspy(j, rng, r, frames, title_hint=""):
    out = ["Process %d: %s -u %s/%s --config configs/%s.yaml" % (j.pid(r), j.pybin, j.workdir, j.script, j.model),
           "Python v%s.%d (%s%s)" % (j.pyv, rng.randint(4, 14), "/usr/bin/python", j.pyv), "",
           "Thread %d (idle): \"MainThread\"" % j.pid(r)]
    out += ["    %s" % f for f in frames]
    out += ["Thread %d (idle): \"Thread-%d (_pin_memory_loop)\"" % (j.pid(r) + rng.randint(50, 300), rng.randint(1, 4)),
            "    _wait_for_tstate_lock (threading.py:1116)" if False else "    wait (threading.py:%d)" % rng.choice([320, 324]),
            "    get (queue.py:180)", "    _pin_memory_loop (torch/utils/data/_utils/pin_memory.py:%d)" % rng.choice([54, 59])]
    return out


def b_hang(sc):
    j, rng = sc.job, sc.rng
    r = choose_init(sc)
    n = j.node_of(r)
    tf = run_until(sc, 600, 40000)
    frames = pick(rng, [
        ["acquire (threading.py:...)".replace("...", "%d" % rng.randint(100, 330)),
         "log_metrics (%s/utils/metrics.py:%d)" % (j.workdir, rng.randint(30, 90)),
         "training_step (%s/trainer/loop.py:%d)" % (j.workdir, rng.randint(200, 320))],
        ["recv_into (ssl.py:1303)", "readinto (socket.py:705)", "_read_status (http/client.py:279)",
         "getresponse (http/client.py:1375)", "post (%s/requests/api.py:115)" % j.site,
         "push_metrics (%s/utils/telemetry.py:%d)" % (j.workdir, rng.randint(20, 80))],
        ["join (threading.py:1096)", "wait_for_upload (%s/utils/ckpt_async.py:%d)" % (j.workdir, rng.randint(40, 140)),
         "save_checkpoint (%s/utils/checkpoint.py:%d)" % (j.workdir, rng.randint(50, 120))],
        ["synchronize (torch/cuda/__init__.py:%d)" % rng.choice([783, 792, 801]),
         "_wait_ema (%s/trainer/ema.py:%d)" % (j.workdir, rng.randint(20, 80)),
         "training_step (%s/trainer/loop.py:%d)" % (j.workdir, rng.randint(200, 320))]])
    frames = [f.replace(j.site + "/", "") for f in frames] + [
        "fit (%s/trainer/loop.py:%d)" % (j.workdir, rng.randint(90, 180)), "main (%s/%s:%d)" % (j.workdir, j.script, rng.randint(300, 380)),
        "<module> (%s/%s:%d)" % (j.workdir, j.script, rng.randint(400, 700))]
    seq = j.seq
    has_spy = rng.random() < 0.7
    if has_spy:
        sc.extra("pyspy", "py-spy dump --pid %d on %s (rank %d)" % (j.pid(r), j.hosts[n], r), pyspy(j, rng, r, frames), key=True)
        sc.rank_known = True
        sc.node_known = True
    resolve(sc, {}, tf, "timeout", seq=seq, exclude=(r,))
    if not has_spy:
        sc.init_rank = None
        sc.init_node = None
    sc.key_summary = "hang (all other ranks time out at the same SeqNum)"
    sc.notes = "Rank %d on %s stopped issuing collectives (stuck in %s); every other rank hit the NCCL watchdog at SeqNum %d." % (
        r, j.hosts[n], frames[0].split(" ")[0], seq)


def b_data_loader_stall(sc):
    j, rng = sc.job, sc.rng
    r = choose_init(sc)
    n = j.node_of(r)
    tf = run_until(sc, 600, 40000)
    var = rng.choice(["timeout_exc", "pyspy", "pyspy_nfs"])
    mount = rng.choice(["/mnt/nfs/datasets", "/lustre/proj/data", "/mnt/fsx/corpus", "/data/shared"])
    nfs_srv = rng.choice(["nas01", "fs-data02", "10.20.0.5", "storage-a"])
    exits = {}
    excl = (r,)
    if var == "timeout_exc":
        tos = j.timeout_ms // 1000
        to = rng.choice([x for x in (300, 600, 1200) if x < tos - 60] or [tos // 2])
        ls = j.tb(r, j.user_frames() + [("%s/torch/utils/data/dataloader.py" % j.site, 1328, "_next_data", "idx, data = self._get_data()"),
                                        ("%s/torch/utils/data/dataloader.py" % j.site, 1284, "_get_data", "success, data = self._try_get_data(self._timeout)"),
                                        ("%s/torch/utils/data/dataloader.py" % j.site, 1145, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds')" if False else
                                         "raise RuntimeError('DataLoader timed out after {} seconds'.format(self._timeout)) from e")],
                  ["RuntimeError: DataLoader timed out after %d seconds" % to])
        # dataloader timeout may fire before or after the peers' watchdog
        tt = tf + to
        sc.con(tt, n, ls, "key")
        exits[r] = (tt, 1)
        excl = ()
        sc.key_summary = "DataLoader timed out"
    else:
        frames = ["poll (multiprocessing/connection.py:%d)" % rng.choice([257, 424]),
                  "wait (multiprocessing/connection.py:931)" if rng.random() < 0.5 else "_poll (multiprocessing/connection.py:424)",
                  "get (multiprocessing/queues.py:113)",
                  "_try_get_data (torch/utils/data/dataloader.py:1133)", "_get_data (torch/utils/data/dataloader.py:1284)",
                  "_next_data (torch/utils/data/dataloader.py:1328)", "__next__ (torch/utils/data/dataloader.py:631)",
                  "fit (%s/trainer/loop.py:%d)" % (j.workdir, rng.randint(90, 180)),
                  "main (%s/%s:%d)" % (j.workdir, j.script, rng.randint(300, 380))]
        spy = pyspy(j, rng, r, frames)
        wpid = j.pid(r) + rng.randint(100, 900)
        spy += ["", "Process %d: pt_data_worker" % wpid, "Python v%s (/usr/bin/python%s)" % (j.pyv, j.pyv), "",
                "Thread %d (idle): \"MainThread\"" % wpid, "    read (%s/data/shards.py:%d)" % (j.workdir, rng.randint(100, 160)),
                "    _load_sample (%s/data/shards.py:%d)" % (j.workdir, rng.randint(160, 220)),
                "    __getitem__ (%s/data/dataset.py:%d)" % (j.workdir, rng.randint(30, 90)),
                "    fetch (torch/utils/data/_utils/fetch.py:51)", "    _worker_loop (torch/utils/data/_utils/worker.py:309)"]
        sc.extra("pyspy", "py-spy dump of rank %d (pid %d) on %s and its dataloader worker" % (r, j.pid(r), j.hosts[n]), spy, key=True)
        sc.key_summary = "rank blocked in DataLoader"
        if var == "pyspy_nfs":
            for k in range(rng.randint(2, 5)):
                sc.dm(n, tf - 200 + k * 180, "nfs: server %s not responding, still trying" % nfs_srv)
            sc.dm(n, tf + 120, "INFO: task pt_data_worker:%d blocked for more than 122 seconds." % wpid)
            sc.dm(n, tf + 120, "      Tainted: P           OE     5.15.0-%d-generic #%d-Ubuntu" % (rng.randint(80, 120), rng.randint(80, 130)))
            sc.dm(n, tf + 120, "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.")
            sc.key_summary += " (NFS server not responding)"
    if rng.random() < 0.6:
        # slow data times on rank r before the stall
        for k in range(3):
            tt = tf - 600 + k * 200
            sc.con(tt, n, [j.app(r, tt, "step %d data_time %.1fs (p50 %.2fs)" % (sc.last_step - 30 + k * 10, rng.uniform(20, 200), rng.uniform(0.01, 0.05)), "WARNING")], "key")
    sc.rank_known = True
    sc.node_known = True if (var != "timeout_exc" or j.nnodes == 1) else False
    resolve(sc, exits, tf, "timeout", exclude=excl)
    sc.notes = "Rank %d on %s stalled in data loading from %s (%s); peers hit the NCCL watchdog." % (r, j.hosts[n], mount, sc.key_summary)


def b_collective_mismatch(sc):
    j, rng = sc.job, sc.rng
    r = choose_init(sc)
    if r == 0 and j.world > 1:
        r = sc.init_rank = 1
    n = j.node_of(r)
    tf = run_until(sc, 30, 20000)
    seq = j.seq
    good, bad = rng.choice([("ALLREDUCE", "BROADCAST"), ("ALLREDUCE", "ALLGATHER"), ("_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE"),
                            ("ALLREDUCE", "BARRIER"), ("BROADCAST", "ALLREDUCE")])
    var = rng.choice(["detail", "watchdog"])
    if var == "detail":
        fp = "CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%d], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))"
        shp = rng.choice([1, 4096, 1024, 131072])
        reporters = [x for x in range(j.world) if x != r]
        rng.shuffle(reporters)
        exits = {}
        for k, q in enumerate(sorted(reporters[:min(len(reporters), rng.randint(2, 4))])):
            fr = j.user_frames(2) + [("%s/torch/distributed/c10d_logger.py" % j.site, 79, "wrapper", "return func(*args, **kwargs)"),
                                     ("%s/torch/distributed/distributed_c10d.py" % j.site, 2288, good.lower().strip("_").replace("_base", ""),
                                      "work = group.allreduce([tensor], opts)")]
            ls = j.tb(q, fr, ["RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s." % (
                q, fp % (seq, good, shp), r, fp % (seq, bad, shp))])
            tt = tf + k * 0.01
            sc.con(tt, j.node_of(q), ls, "key")
            exits[q] = (tt + 0.1, 1)
        resolve(sc, exits, tf, "remote")
    else:
        numel = rng.choice([4096, 65536, 1048576])
        bad_numel = numel if bad != good else numel * 2
        spec = {r: (lambda rr, tt: (watchdog_lines(sc, rr, tt, seq, bad, bad_numel), -6))}
        # make sure the odd rank's watchdog line is kept (key)
        sc._odd = r
        resolve(sc, {r: (tf + j.timeout_ms / 1000.0, None)}, tf, "timeout", seq=seq, op=good, numel=numel, special_lines=spec)
        for i, e in enumerate(sc.ev):
            if e[4] == "coll" and any(("OpType=%s" % bad) in l for l in e[3]):
                sc.ev[i] = (e[0], e[1], e[2], e[3], "key")
    sc.rank_known = True
    sc.node_known = j.nnodes == 1
    sc.key_summary = "collective mismatch (%s vs %s at SeqNum %d)" % (good, bad, seq)
    sc.notes = "Rank %d issued %s while all other ranks issued %s at sequence %d." % (r, bad, good, seq)


def b_straggler(sc):
    j, rng = sc.job, sc.rng
    node_level = j.nnodes > 1 and rng.random() < 0.4
    r = choose_init(sc)
    n = j.node_of(r)
    t = noise_startup(sc, 0.0)
    t_end = t + rng.uniform(4000, 30000)
    noise_progress(sc, t, t_end, 0)
    slow = set(range(n * j.gpn, (n + 1) * j.gpn)) if node_level else {r}
    base = j.step_s * 1000 * 0.6
    for k in range(rng.randint(3, 6)):
        tt = t + (t_end - t) * (k + 1) / 7.0
        step = int((tt - t) / j.step_s)
        lines = []
        show = sorted(set(rng.sample(range(j.world), min(j.world, 6))) | slow) if j.world > 16 else list(range(j.world))
        for q in show:
            if q in slow:
                comp = base * rng.uniform(1.6, 2.3)
                wait = rng.uniform(2, 15)
            else:
                comp = base * rng.uniform(0.97, 1.03)
                wait = base * rng.uniform(0.6, 1.3)
            lines.append(j.app(q, tt, "timing step=%d fwd_bwd_ms=%.0f allreduce_wait_ms=%.0f data_ms=%.0f" % (
                step, comp, wait, rng.uniform(1, 9))))
        sc.con(tt, 0, lines, "key")
    has_smi = rng.random() < 0.6
    if has_smi:
        lr = j.lrank(r)
        smi = ["$ nvidia-smi -q -d PERFORMANCE,TEMPERATURE -i %d" % lr, "GPU 00000000:%s:00.0" % j.bus(lr).upper(),
               "    Clocks Event Reasons" if j.newfmt else "    Clocks Throttle Reasons",
               "        Idle                              : Not Active",
               "        Applications Clocks Setting       : Not Active",
               "        SW Power Cap                      : Not Active",
               "        HW Slowdown                       : Active",
               "            HW Thermal Slowdown           : Active",
               "            HW Power Brake Slowdown       : Not Active",
               "        Sync Boost                        : Not Active",
               "        SW Thermal Slowdown               : Active",
               "    Temperature",
               "        GPU Current Temp                  : %d C" % rng.randint(86, 94),
               "        GPU T.Limit Temp                  : %d C" % rng.randint(-4, 1),
               "        Memory Current Temp               : %d C" % rng.randint(88, 99)]
        sc.extra("nvsmi", "nvidia-smi on %s" % j.hosts[n], smi, key=True)
    if node_level:
        sc.init_rank = None
        sc.rank_known = False
    else:
        sc.rank_known = True
    sc.node_known = has_smi
    sc.t_end = t_end
    sc.key_summary = "straggler"
    sc.notes = "%s is persistently ~2x slower in compute; everyone else waits in allreduce. Job not crashed, just slow." % (
        ("node %s" % j.hosts[n]) if node_level else ("rank %d (%s)" % (r, j.hosts[n])))


def b_healthy(sc):
    j, rng = sc.job, sc.rng
    sc.healthy = True
    t = noise_startup(sc, 0.0)
    t_end = t + rng.uniform(2000, 40000)
    last = noise_progress(sc, t, t_end, 0)
    scary = rng.choice(["grad_overflow", "pg_not_destroyed", "barrier_gpu", "dl_workers", "caffe2", "nccl_plugin", "link_flap",
                        "ecc_corrected"])
    tt = t + (t_end - t) * rng.uniform(0.2, 0.9)
    r = rng.randrange(j.world)
    if scary == "grad_overflow":
        l = [j.pfx(0) + "[2m[INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768".replace("[2m", "")]
        q = "is the OVERFLOW / skipping step thing bad?"
    elif scary == "pg_not_destroyed":
        l = [j.c10(r, t_end + 2, "ProcessGroupNCCL.cpp:1250" if j.newfmt else "ProcessGroupNCCL.cpp:1168",
                   "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only been added since PyTorch 2.4 (function operator())", sev="W")]
        tt = t_end + 2
        q = "job finished but every rank prints 'process group has NOT been destroyed' at the end — did something go wrong?"
    elif scary == "barrier_gpu":
        l = [j.c10(r, t + 5, "ProcessGroupNCCL.cpp:4115", "[PG 0 Rank %d]  using GPU %d to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect.Specify device_ids in barrier() to force use of a particular device,or call init_process_group() with a device_id." % (r, j.lrank(r)), sev="W")]
        tt = t + 5
        q = "saw 'This can potentially cause a hang' at startup, should I fix this before the big run?"
    elif scary == "dl_workers":
        l = [j.pfx(r) + WARN_LINES[0].format(site=j.site), j.pfx(r) + "  warnings.warn(_create_warning_msg("]
        q = "does the DataLoader 'might get DataLoader running slow or even freeze' warning matter?"
    elif scary == "caffe2":
        l = [j.pfx(r) + "[W pthreadpool-cpp.cc:90] Warning: Leaking Caffe2 thread-pool after fork. (function pthreadpool)"] * rng.randint(2, 6)
        q = "tons of 'Leaking Caffe2 thread-pool after fork' warnings — memory leak?"
    elif scary == "nccl_plugin":
        l = [j.nccl(0, "NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation"),
             j.nccl(0, "NET/IB : No device found.")]
        q = "NCCL says 'No device found' and 'cannot open shared object file' — is NCCL broken on this box?"
    elif scary == "link_flap":
        nn = rng.randrange(j.nnodes)
        sc.dm(nn, tt, "mlx5_core 0000:c1:00.0 ib%d: Link down" % rng.randint(0, 3))
        sc.dm(nn, tt + rng.uniform(1, 4), "mlx5_core 0000:c1:00.0 ib0: Link up")
        l = [j.app(0, tt + 30, "step %d | loss %.4f | throughput unchanged" % (int((tt - t) / j.step_s), rng.uniform(1, 2)))]
        q = "admins saw an IB link flap on %s during my run; the run finished — do I need to rerun?" % j.hosts[nn]
    else:
        lr = rng.randrange(j.gpn)
        sc.extra("nvsmi", "nvidia-smi -q -d ECC on %s" % j.hosts[0], [
            "GPU 00000000:%s:00.0" % j.bus(lr).upper(), "    ECC Errors", "        Volatile",
            "            SRAM Correctable              : %d" % rng.randint(1, 12), "            SRAM Uncorrectable            : 0",
            "            DRAM Correctable              : %d" % rng.randint(0, 4), "            DRAM Uncorrectable            : 0",
            "    Remapped Rows", "        Correctable Error                 : 0", "        Uncorrectable Error               : 0",
            "        Pending                           : No", "        Remapping Failure Occurred        : No"], key=True)
        l = []
        q = "nvidia-smi shows non-zero 'Correctable' ECC counts on one GPU, the job ran fine. Should we drain it?"
    if l:
        sc.con(tt, j.node_of(r) if scary not in ("grad_overflow", "nccl_plugin", "link_flap") else 0, l, "key")
    ls = [j.app(0, t_end, "Training complete. Saved final checkpoint to /checkpoints/%s/step_%d" % (j.model, last))]
    sc.con(t_end, 0, ls, "tail")
    for n in range(j.nnodes):
        msg = "[default] worker group successfully finished. Waiting 300 seconds for other agents to finish."
        sc.con(t_end + 5 + n * 0.2, n, [("INFO:torch.distributed.elastic.agent.server.api:" + msg) if not j.newfmt else
                                        "I%d%02d %s.%06d %d torch/distributed/elastic/agent/server/api.py:879] %s" % (
                                            j.clock(n, t_end).month, j.clock(n, t_end).day, j.clock(n, t_end + 5).strftime("%H:%M:%S"),
                                            rng.randint(0, 999999), j.agent_pid[n], msg)], "tail")
    sc.t_end = t_end + 10
    sc.question = q
    sc.key_summary = "healthy (harmless %s)" % scary
    sc.notes = "Run completed normally; the flagged line (%s) is harmless." % scary


def b_unknown(sc):
    j, rng = sc.job, sc.rng
    hidden = rng.choice(["python_exception", "cuda_oom", "crash_signal", "illegal_memory_access", "host_oom_kill"])
    sc.force_mode = "remote"
    BUILDERS[hidden](sc)
    how = rng.choice(["missing_node_log", "screenshot_lost", "only_slurm"])
    sc.hide_key = True
    sc.hidden_cause = hidden
    sc.unknown_how = how
    sc.dmesg = {}
    sc.dmesg_key = False
    sc.extras = [e for e in sc.extras if not e[3]]
    sc.extras = [e for e in sc.extras if e[0] not in ("nvsmi", "fabricmanager")]
    sc.init_rank = None
    sc.init_node = None
    sc.rank_known = sc.node_known = False
    sc.notes = ("Underlying failure was %s but the relayed material lost it (%s): only collateral survives." % (hidden, how))
    sc.key_summary = "unknown"


BUILDERS = {
    "gpu_hardware": b_gpu_hardware, "ecc_memory": b_ecc_memory, "nvlink": b_nvlink, "network": b_network,
    "cuda_oom": b_cuda_oom, "illegal_memory_access": b_illegal_memory_access, "python_exception": b_python_exception,
    "host_oom_kill": b_host_oom_kill, "crash_signal": b_crash_signal, "preemption": b_preemption, "hang": b_hang,
    "data_loader_stall": b_data_loader_stall, "collective_mismatch": b_collective_mismatch, "straggler": b_straggler,
    "unknown": b_unknown,
}


# ----------------------------------------------------------------------------------
# what the reporter copies: console excerpt, dmesg greps, extra attachments
# ----------------------------------------------------------------------------------
TRIM = "\x00TRIM"


def excerpt(sc, budget=None):
    rng, j = sc.rng, sc.job
    evs = sc.sorted_ev()
    keep = []
    noise_idx = [i for i, e in enumerate(evs) if e[4] == "noise"]
    head = set(noise_idx[:rng.randint(0, 6)])
    tailnoise = set(noise_idx[-rng.randint(1, 5):]) if noise_idx else set()
    coll_idx = [i for i, e in enumerate(evs) if e[4] == "coll"]
    nc = rng.randint(2, 5)
    coll_keep = set(coll_idx[:nc]) | (set(coll_idx[-1:]) if coll_idx and rng.random() < 0.5 else set())
    if sum(len(evs[i][3]) for i in coll_idx) < 40:
        coll_keep = set(coll_idx)
    tail_idx = [i for i, e in enumerate(evs) if e[4] == "tail"]
    # the reporter's own node (node 0) summary, plus one other at random
    tail_keep = set(i for i in tail_idx if evs[i][2] == 0 or rng.random() < 0.35)
    if not tail_keep and tail_idx:
        tail_keep = {tail_idx[-1]}
    for i, e in enumerate(evs):
        tag = e[4]
        if tag == "key" and not sc.hide_key:
            keep.append(i)
        elif i in head or i in tailnoise or i in coll_keep or i in tail_keep:
            keep.append(i)
    out = []
    prev = -1
    for i in keep:
        if prev >= 0 and i != prev + 1:
            out.append(TRIM)
        elif prev < 0 and i > 0 and rng.random() < 0.5:
            out.append(TRIM)
        lines = evs[i][3]
        if evs[i][4] == "coll" and len(lines) > 9 and rng.random() < 0.5:
            lines = lines[:rng.randint(3, 6)] + [TRIM]
        out.extend(lines)
        prev = i
    if len(out) > 700:
        out = out[:150] + [TRIM] + out[-500:]
    return out


def render_dmesg(sc, n, style, grep=False):
    j, rng = sc.job, sc.rng
    items = sorted(sc.dmesg.get(n, []))
    if grep:
        pat = re.compile(r"xid|nvrm|oom|killed process|mlx5|link|nfs|segfault|blocked|nvlink|memory", re.I)
        items = [it for it in items if pat.search(it[1])]
    boot = rng.uniform(86400 * 3, 86400 * 90)
    out = []
    for t, m in items:
        c = j.clock(n, t)
        if style == "T":
            out.append("[%s %s %2d %s %d] %s" % (DAYS[c.weekday()], MONTHS[c.month - 1], c.day, c.strftime("%H:%M:%S"), c.year, m))
        elif style == "raw":
            out.append("[%12.6f] %s" % (boot + t, m))
        else:
            out.append("%s %s kernel: %s" % (c.strftime("%b %d %H:%M:%S"), j.hosts[n], m))
    return out


def dmesg_cmd(sc, n, style, grep):
    c = {"T": "sudo dmesg -T", "raw": "dmesg", "journal": "journalctl -k --since '%s'" % sc.job.clock(n, 0).strftime("%Y-%m-%d")}[style]
    if grep:
        c += " | grep -iE 'xid|nvrm|oom|mlx5|nfs|segfault|nvlink|link'"
    return c


def gather(sc):
    """Return materials dict for relays."""
    rng, j = sc.rng, sc.job
    m = {"console": excerpt(sc), "attach": []}
    for n in sorted(sc.dmesg):
        if not sc.dmesg[n]:
            continue
        if sc.dmesg_key or rng.random() < 0.5:
            style = rng.choice(["T", "T", "raw", "journal"])
            grep = rng.random() < 0.6
            lines = render_dmesg(sc, n, style, grep)
            if not lines:
                lines = render_dmesg(sc, n, style, False)
            title = "%s on %s" % (dmesg_cmd(sc, n, style, grep), j.hosts[n])
            m["attach"].append(("dmesg", title, ["[%s]$ %s" % (j.hosts[n], dmesg_cmd(sc, n, style, grep))] + lines, sc.dmesg_key, n))
    for kind, title, lines, key in sc.extras:
        if key or rng.random() < 0.6:
            m["attach"].append((kind, title, lines, key, None))
    return m


# ----------------------------------------------------------------------------------
# relay damage helpers
# ----------------------------------------------------------------------------------
def wrap_hard(line, width):
    if len(line) <= width:
        return [line]
    out = []
    while len(line) > width:
        cut = line.rfind(" ", int(width * 0.6), width)
        if cut <= 0:
            cut = width
        out.append(line[:cut])
        line = line[cut:].lstrip(" ") if cut != width else line[cut:]
    out.append(line)
    return out


def trims(rng, lines, marker):
    return [marker if l == TRIM else l for l in lines]


PROTECT = re.compile(r"(Xid|NVRM|ECC|NVLink|OutOfMemory|out of memory|illegal|SIG[A-Z]+|Segmentation|oom|Killed|CANCELLED|PREEMPT|"
                     r"TIME LIMIT|preempt|DataLoader|mismatch|OpType|SeqNum|timed out|Timeout|fallen|port error|Link|rank\d+|Rank|"
                     r"exitcode|Signal|Error|error|assert|NCCL|WARN|nfs|host|pid|\d+\)?:?$)")
OCR_SWAP = {"l": "1", "1": "l", "I": "l", "O": "0", "0": "O", "rn": "m", "m": "rn", "S": "5", "5": "S", ",": ".", "\"": "''", "|": "I"}


def ocr_line(rng, line, rate):
    toks = line.split(" ")
    out = []
    for tk in toks:
        if tk and not PROTECT.search(tk) and rng.random() < rate:
            op = rng.random()
            if op < 0.55:
                keys = [k for k in OCR_SWAP if k in tk]
                if keys:
                    k = rng.choice(keys)
                    pos = tk.find(k)
                    tk = tk[:pos] + OCR_SWAP[k] + tk[pos + len(k):]
            elif op < 0.7 and len(tk) > 3:
                p = rng.randrange(1, len(tk) - 1)
                tk = tk[:p] + rng.choice(["~", "'", ".", "`", "\u00a2", "\u00e9", ""]) + tk[p + 1:]
            elif op < 0.85:
                tk = tk + " "
            else:
                out.append(tk)
                tk = None
                if out:
                    out[-1] = out[-1] + (toks[0] if False else "")
        if tk is not None:
            out.append(tk)
    s = " ".join(out)
    if rng.random() < rate * 0.6:
        s = s.replace("  ", " ", 1)
    return s


def ansi(line):
    if re.search(r"\b(Error|ERROR|error:|Traceback|FAILED|\[E|NCCL WARN|Killed)", line):
        return "\x1b[31m" + line + "\x1b[0m"
    if re.search(r"\b(Warning|WARNING|UserWarning|FutureWarning|\[W)", line):
        return "\x1b[33m" + line + "\x1b[0m"
    if "INFO" in line and "NCCL" not in line:
        return "\x1b[32m" + line[:line.find("INFO")] + "INFO\x1b[0m" + line[line.find("INFO") + 4:]
    return line


def fmt_time12(c):
    h = c.hour % 12 or 12
    return "%d:%02d %s" % (h, c.minute, "AM" if c.hour < 12 else "PM")


class Narr:
    """People and words around the log."""
    def __init__(self, sc):
        rng, j = sc.rng, sc.job
        self.rep = pick(rng, PEOPLE)
        others = [p for p in PEOPLE if p != self.rep]
        self.col = pick(rng, others)
        self.adm = pick(rng, ADMINS)
        self.dom = pick(rng, DOMAINS)
        self.t = j.clock(0, sc.t_end) + dt.timedelta(minutes=rng.randint(20, 900))
        n = j.nnodes
        what = "%d-node %s run" % (n, j.model) if n > 1 else "%d-GPU %s run" % (j.world, j.model)
        if sc.healthy:
            self.q = "Quick question about my %s (job %d) - it finished fine, but %s" % (what, j.jobid, sc.question)
        elif sc.cause == "straggler":
            self.q = pick(rng, ["My %s (job %d) is way slower than last week (~%dx). Nothing crashed. Per-rank timings below." % (what, j.jobid, 2),
                                "Throughput on job %d dropped a lot, loss looks fine. Any idea? Timing lines below." % j.jobid])
        else:
            self.q = pick(rng, ["My %s (job %d) died again overnight. Log tail below, can someone take a look?" % (what, j.jobid),
                                "Job %d crashed after ~%dh. Not sure if it's my code or the cluster." % (j.jobid, max(1, int(sc.t_end / 3600))),
                                "Our %s failed. Pasting what I have." % what,
                                "Training job %d exited, torchrun says FAILED. Log below." % j.jobid])
        if getattr(sc, "unknown_how", None) == "missing_node_log":
            self.q += " I only have the output that came back to the submit node; the per-node logs were on local scratch and are gone."
        elif getattr(sc, "unknown_how", None) == "screenshot_lost":
            self.q += " The actual error was in a screenshot I took but I lost it, sorry."
        elif getattr(sc, "unknown_how", None) == "only_slurm":
            self.q += " This is literally all that's in the .out file."
        gs = ["Looks like an NCCL timeout, probably the network again?", "did you change the batch size recently?",
              "we had maintenance on the storage yesterday fwiw", "Could be a bad node, I'd check dmesg.",
              "Is this the same thing as last Tuesday?", "The ChildFailedError just says which process died first, look further up.",
              "Try NCCL_DEBUG=INFO next time", "+1 seeing something similar on my job"]
        self.guesses = rng.sample(gs, 3)
        if sc.healthy:
            self.answer = pick(rng, ["That one is harmless, you can ignore it.", "Known noise, nothing to worry about since the run completed.",
                                     "That's benign - your job finished with exit code 0."])
        else:
            self.answer = pick(rng, ["Pulled the node logs, attaching.", "Here's what the kernel log says on the node.",
                                     "Attaching what I found on the hosts.", "Checked the nodes, see below."])
        self.sig_rep = pick(rng, ["Thanks,\n%s" % self.rep[0].split()[0], "Cheers,\n%s" % self.rep[0].split()[0],
                                  "Best,\n%s" % self.rep[0], "-- \n%s\nML Research" % self.rep[0]])
        self.sig_adm = "%s\n--\n%s | %s\n%s" % (pick(rng, ["Regards,", "Best,", "Thanks,"]), self.adm[0],
                                                  pick(rng, ["HPC Operations", "Cluster Support", "ML Platform SRE"]),
                                                  "Please do not reply to the ticket bot address.")

    def email(self, p):
        return "%s@%s" % (p[1], self.dom)


# ----------------------------------------------------------------------------------
# relays
# ----------------------------------------------------------------------------------
def att_text(a):
    kind, title, lines, key, n = a
    return title, lines


def r_email(sc, m, nr):
    rng, j = sc.rng, sc.job
    files = {}
    width = rng.choice([72, 76, 78, 998])
    con = trims(rng, m["console"], rng.choice(["[...]", "...", "<snip>", "[trimmed]"]))
    body = []
    for l in con:
        body += wrap_hard(l, width) if width < 900 else [l]
    t1 = nr.t
    t2 = t1 + dt.timedelta(minutes=rng.randint(10, 300))
    subj = "job %d failed" % j.jobid if not sc.healthy else "harmless? warning in job %d" % j.jobid
    inner = ["Hi all,", ""] + wrap_hard(nr.q, 72) + [""] + body + [""] + nr.sig_rep.split("\n")
    nested = rng.random() < 0.4
    if nested:
        # colleague forwarded it, original quoted at second level
        mid = [nr.guesses[0], "", "On %s, %s <%s> wrote:" % (t1.strftime("%a, %b %d, %Y at %H:%M"), nr.rep[0], nr.email(nr.rep))]
        mid += ["> " + l if l else ">" for l in inner]
        inner = mid + ["", nr.col[0].split()[0]]
        quoted_from = nr.col
    else:
        quoted_from = nr.rep
    out = ["From: %s <%s>" % (nr.adm[0], nr.email(nr.adm)),
           "To: %s <%s>" % (nr.rep[0], nr.email(nr.rep)),
           "Cc: ml-infra@%s" % nr.dom,
           "Date: %s" % t2.strftime("%a, %d %b %Y %H:%M:%S +0000"),
           "Subject: Re: %s%s" % ("Fwd: " if nested else "", subj),
           "Content-Type: text/plain; charset=utf-8; format=flowed", ""]
    reply = [nr.answer if (sc.healthy or m["attach"]) else nr.guesses[2], ""]
    attach_files = []
    for a in m["attach"]:
        title, lines = att_text(a)
        if rng.random() < 0.5:
            fn = "attachments/%s.txt" % re.sub(r"[^A-Za-z0-9_.-]+", "_", title)[:60].strip("_")
            files[fn] = "\n".join(lines) + "\n"
            attach_files.append(fn.split("/")[-1])
        else:
            reply += ["%s:" % title, ""] + ["    " + l for l in lines] + [""]
    if attach_files:
        reply += ["(attached: %s)" % ", ".join(attach_files), ""]
    out += reply + nr.sig_adm.split("\n") + [""]
    out.append("On %s, %s <%s> wrote:" % (t1.strftime("%a, %b %d, %Y at %I:%M %p"), quoted_from[0], nr.email(quoted_from)))
    for l in inner:
        if l.startswith(">"):
            out.append(">" + l)
        else:
            out.append("> " + l if l else ">")
    files[rng.choice(["email_thread.txt", "Re_ %s.eml" % subj.replace(" ", "_"), "mail_export.txt"])] = "\n".join(out) + "\n"
    return files


def slack_escape(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def chunks(lines, maxc):
    out, cur, size = [], [], 0
    for l in lines:
        if size + len(l) > maxc and cur:
            out.append(cur)
            cur, size = [], 0
        cur.append(l)
        size += len(l) + 1
    if cur:
        out.append(cur)
    return out


def r_slack(sc, m, nr):
    rng, j = sc.rng, sc.job
    chan = rng.choice(["ml-infra", "gpu-cluster-help", "training-alerts", "llm-team"])
    users = {}
    for p in (nr.rep, nr.col, nr.adm):
        users[p[1]] = "U0%s" % "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789") for _ in range(8))
    msgs = []
    t = nr.t
    def add(p, text, files=None):
        nonlocal t
        t = t + dt.timedelta(seconds=rng.randint(15, 900))
        ts = "%d.%06d" % (int(t.replace(tzinfo=dt.timezone.utc).timestamp()), rng.randint(0, 999999))
        d = {"client_msg_id": "%08x-%04x-%04x-%04x-%012x" % (rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(48)),
             "type": "message", "text": text, "user": users[p[1]], "ts": ts,
             "user_profile": {"real_name": p[0], "display_name": p[2], "name": p[1]}, "team": "T01ABCDEF"}
        if files:
            d["files"] = files
        msgs.append(d)
    add(nr.rep, slack_escape(nr.q))
    con = trims(rng, m["console"], "...")
    parts = chunks(con, rng.choice([2500, 3500, 3900]))
    for k, part in enumerate(parts):
        add(nr.rep, "```" + slack_escape("\n".join(part)) + "```" + (" (%d/%d)" % (k + 1, len(parts)) if len(parts) > 1 and rng.random() < 0.5 else ""))
        if k == 0 and len(parts) > 1 and rng.random() < 0.6:
            add(nr.col, slack_escape(nr.guesses[0]))
    if getattr(sc, "unknown_how", None) == "screenshot_lost":
        add(nr.rep, "", files=[{"id": "F0%09d" % rng.randint(0, 10**9), "name": "image.png", "mode": "hidden_by_limit", "title": "image.png"}])
    add(nr.col, slack_escape(nr.guesses[1]))
    for a in m["attach"]:
        title, lines = att_text(a)
        add(nr.adm, slack_escape("%s %s:" % (nr.answer if a is m["attach"][0] else "also", title)) + "\n```" + slack_escape("\n".join(lines)) + "```")
    if not m["attach"]:
        add(nr.adm, slack_escape(nr.answer if sc.healthy else nr.guesses[2]))
    files = {"slack_export/%s/%s.json" % (chan, nr.t.strftime("%Y-%m-%d")): json.dumps(msgs, indent=4, ensure_ascii=False) + "\n",
             "slack_export/users.json": json.dumps([{"id": users[p[1]], "name": p[1], "real_name": p[0]} for p in (nr.rep, nr.col, nr.adm)], indent=4) + "\n",
             "slack_export/channels.json": json.dumps([{"id": "C0%08d" % rng.randint(0, 10**8), "name": chan, "created": 1600000000 + rng.randint(0, 10**8)}], indent=4) + "\n"}
    return files


def r_chat(sc, m, nr, flavor=None, with_attach_inline=True):
    rng, j = sc.rng, sc.job
    flavor = flavor or rng.choice(["teams", "discord", "mattermost"])
    t = nr.t
    out = []
    if flavor == "discord":
        out += ["=" * 62, "Guild: %s" % rng.choice(["ML Lab", "OpenTrain Community", "GPU Cluster Users"]),
                "Channel: Text Channels / %s" % rng.choice(["infra-help", "training", "cluster-issues"]), "=" * 62, ""]
    def hdr(p):
        nonlocal t
        t = t + dt.timedelta(seconds=rng.randint(20, 1200))
        if flavor == "teams":
            return "%s %s" % (p[0], fmt_time12(t)) if rng.random() < 0.5 else "%s, %s %s" % (p[0], t.strftime("%m/%d"), fmt_time12(t))
        if flavor == "discord":
            return "[%d/%d/%d %s] %s" % (t.month, t.day, t.year, fmt_time12(t), p[2])
        return "%s  %s" % (p[2], fmt_time12(t))
    def msg(p, lines):
        out.append(hdr(p))
        out.extend(lines)
        out.append("")
    msg(nr.rep, [nr.q])
    con = trims(rng, m["console"], rng.choice(["...", "(...)", "[cut]"]))
    parts = chunks(con, rng.choice([1800, 3000, 4000]))
    fence = flavor != "teams" or rng.random() < 0.3
    for k, part in enumerate(parts):
        body = (["```"] + part + ["```"]) if fence else part
        if flavor == "teams" and k == 0 and rng.random() < 0.5:
            body = body[:12] + ["See more"] if len(body) > 40 and rng.random() < 0.3 else body
        msg(nr.rep, body)
        if k == 0 and len(parts) > 1:
            msg(nr.col, [nr.guesses[0]])
    if getattr(sc, "unknown_how", None) == "screenshot_lost":
        msg(nr.rep, ["[image]" if flavor == "teams" else "{Attachments}\nhttps://cdn.example.invalid/attachments/%d/image.png" % rng.getrandbits(40)])
    msg(nr.col, [nr.guesses[1]])
    if with_attach_inline:
        for a in m["attach"]:
            title, lines = att_text(a)
            msg(nr.adm, ["%s" % title] + (["```"] + lines + ["```"] if fence else lines))
    msg(nr.adm if m["attach"] or sc.healthy else nr.col, [nr.answer if sc.healthy else nr.guesses[2]])
    name = {"teams": "teams_chat_copy.txt", "discord": "discord_%s.txt" % rng.choice(["infra-help", "export"]),
            "mattermost": "mattermost_thread.txt"}[flavor]
    return {name: "\n".join(out) + "\n"}


def r_ticket(sc, m, nr):
    rng, j = sc.rng, sc.job
    flavor = rng.choice(["jira", "servicenow", "zendesk"])
    t = nr.t
    con = trims(rng, m["console"], "...")
    out = []
    comments = []
    def when():
        nonlocal t
        t = t + dt.timedelta(minutes=rng.randint(5, 240))
        return t
    if flavor == "jira":
        key = "%s-%d" % (rng.choice(["MLINFRA", "HPC", "GPUOPS"]), rng.randint(100, 9999))
        out += ["[%s] %s Created: %s  Updated: %s" % (key, "Training job %d %s" % (j.jobid, "question" if sc.healthy else "failed"),
                                                     t.strftime("%d/%b/%y"), (t + dt.timedelta(hours=5)).strftime("%d/%b/%y")),
                "Status:\tOpen", "Project:\t%s" % key.split("-")[0], "Components:\tcluster", "Priority:\t%s" % rng.choice(["Major", "Minor", "Critical"]),
                "Reporter:\t%s" % nr.rep[0], "Assignee:\t%s" % nr.adm[0], "", "Description",
                nr.q, "{noformat}"] + con + ["{noformat}", "", "Comments"]
        def comment(p, lines):
            out.extend(["Comment by %s [ %s ]" % (p[0], when().strftime("%d/%b/%y %I:%M %p")), ""] + lines + [""])
        fmt = lambda ls: ["{code}"] + ls + ["{code}"]
        fname = "%s.txt" % key
    elif flavor == "servicenow":
        key = "INC%07d" % rng.randint(0, 9999999)
        out += ["Number: %s" % key, "Caller: %s" % nr.rep[0], "Category: High Performance Computing", "Short description: GPU job %d %s" % (
            j.jobid, "warning" if sc.healthy else "failure"), "Assignment group: HPC-Support", "", "Description:", nr.q, ""] + con + ["", "Activity:"]
        def comment(p, lines):
            out.extend(["%s - %s (%s)" % (when().strftime("%Y-%m-%d %H:%M:%S"), p[0], rng.choice(["Additional comments", "Work notes"]))] + lines + [""])
        fmt = lambda ls: ls
        fname = "%s_activity.txt" % key
    else:
        key = "%d" % rng.randint(10000, 99999)
        out += ["Ticket #%s  -  GPU job %d" % (key, j.jobid), "Requester: %s <%s>" % (nr.rep[0], nr.email(nr.rep)), "Status: Open", "",
                nr.rep[0], t.strftime("%b %d, %Y, %H:%M"), "", nr.q, ""] + con + [""]
        def comment(p, lines):
            out.extend([p[0] + ("" if p != nr.adm else " (%s)" % rng.choice(["HPC Support", "Agent"])), when().strftime("%b %d, %Y, %H:%M"), ""] + lines + [""])
        fmt = lambda ls: ls
        fname = "zendesk_ticket_%s.txt" % key
    comment(nr.adm, [nr.guesses[0]])
    if getattr(sc, "unknown_how", None) == "screenshot_lost":
        comment(nr.rep, ["Attachment: screenshot-1.png (deleted)"])
    for a in m["attach"]:
        title, lines = att_text(a)
        comment(nr.adm, ["%s %s" % (nr.answer, title)] + fmt(lines))
    comment(nr.rep, [nr.guesses[1]])
    if sc.healthy:
        comment(nr.adm, [nr.answer, "Resolving."])
    return {fname: "\n".join(out) + "\n"}


def r_github(sc, m, nr):
    rng, j = sc.rng, sc.job
    con = trims(rng, m["console"], "...")
    num = rng.randint(200, 140000)
    title = pick(rng, ["NCCL watchdog timeout during training", "Training crashes after several hours", "ChildFailedError with torchrun on %d nodes" % j.nnodes,
                       "[Bug] job fails with %d GPUs" % j.world]) if not sc.healthy else pick(rng, ["Is this warning a problem?", "[Question] scary log line"])
    ver = ["PyTorch version: %s+cu121" % j.torchver, "Is debug build: False", "CUDA used to build PyTorch: 12.1", "ROCM used to build PyTorch: N/A", "",
           "OS: Ubuntu 22.04.4 LTS (x86_64)", "Python version: %s.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0] (64-bit runtime)" % j.pyv,
           "Is CUDA available: True", "GPU models and configuration:"] + ["GPU %d: %s" % (k, j.gpu_model) for k in range(j.gpn)] + [
           "", "Nvidia driver version: %s" % j.driver, "", "Versions of relevant libraries:", "[pip3] numpy==1.26.4", "[pip3] torch==%s" % j.torchver,
           "[pip3] nvidia-nccl-cu12==%s" % j.ncclver]
    browser = rng.random() < 0.4
    big = len(con) > 60
    out = []
    if browser:
        out += [title + " #%d" % num, "Open", "%s opened this issue %s · %d comments" % (nr.rep[2], nr.t.strftime("on %b %d, %Y"), rng.randint(1, 6)), "Comments", "@%s" % nr.rep[2],
                "%s commented %s" % (nr.rep[2], nr.t.strftime("on %b %d, %Y")), "", "🐛 Describe the bug", "", nr.q, ""]
        if big:
            out += ["Full log"] + con[:rng.randint(5, 20)] + ["Expand"] + con[20:] if False else ["▶ Full log", ""] + con
        else:
            out += con
        out += ["", "Versions", ""] + ver + ["", "@%s" % nr.col[2], "%s commented %s" % (nr.col[2], (nr.t + dt.timedelta(days=1)).strftime("on %b %d, %Y")),
                                             "", nr.guesses[0], ""]
        if rng.random() < 0.5:
            out += ["Load more…", "%d hidden items" % rng.randint(2, 20), ""]
    else:
        out += ["### 🐛 Describe the bug", "", nr.q, ""]
        if big:
            out += ["<details>", "<summary>Full log (click to expand)</summary>", "", "```"] + con + ["```", "", "</details>", ""]
        else:
            out += ["```"] + con + ["```", ""]
        out += ["### Versions", "", "<details>", "", "```"] + ver + ["```", "", "</details>", "",
                "cc @%s" % rng.choice(["H-Huang", "kwen2501", "wconstab", "fduwjj"]) if rng.random() < 0.3 else ""]
    for a in m["attach"]:
        title2, lines = att_text(a)
        if browser:
            out += ["@%s" % nr.adm[2], "%s commented %s" % (nr.adm[2], (nr.t + dt.timedelta(days=1)).strftime("on %b %d, %Y")), "",
                    "%s %s" % (nr.answer, title2)] + lines + [""]
        else:
            out += ["", "---", "**Comment by @%s:** %s `%s`" % (nr.adm[2], nr.answer, title2), "", "```"] + lines + ["```"]
    if getattr(sc, "unknown_how", None) == "screenshot_lost":
        out += ["", "![image](https://github.com/user-attachments/assets/%08x-%04x)" % (rng.getrandbits(32), rng.getrandbits(16)), "(image no longer available)"]
    name = "issue_%d.md" % num if not browser else "issue_%d_page.txt" % num
    return {name: "\n".join(out) + "\n"}


def r_editor(sc, m, nr):
    rng, j = sc.rng, sc.job
    style = rng.choice(["pipe", "colon", "L", "vim"])
    start = rng.randint(40, 50000)
    ln = start
    out = []
    if rng.random() < 0.5:
        out += ["# excerpt from %s (%s)" % (rng.choice(["slurm-%d.out" % j.jobid, "train_%d.log" % j.jobid, "stdout.log"]),
                                            rng.choice(["VS Code", "less -N", "Sublime Text", "Notepad++", "vim"])), ""]
    w = len(str(start + len(m["console"]) * 30)) + 1
    for l in m["console"]:
        if l == TRIM:
            ln += rng.randint(5, 5000)
            out.append({"pipe": " " * w + " | ...", "colon": "...", "L": "...", "vim": "~"}[style] if rng.random() < 0.7 else "")
            continue
        if style == "pipe":
            out.append("%*d | %s" % (w, ln, l))
        elif style == "colon":
            out.append("%d:%s" % (ln, l))
        elif style == "L":
            out.append("L%d %s" % (ln, l))
        else:
            out.append("%*d %s" % (w, ln, l))
        ln += 1
    files = {rng.choice(["log_excerpt.txt", "selected_lines.txt", "train_log_L%d-L%d.txt" % (start, ln)]): "\n".join(out) + "\n"}
    if m["attach"]:
        note = [nr.q, ""]
        for a in m["attach"]:
            title, lines = att_text(a)
            note += ["== %s ==" % title] + ["%d: %s" % (k + 1, l) for k, l in enumerate(lines)] + [""]
        files["notes_from_%s.txt" % nr.adm[1]] = "\n".join(note) + "\n"
    else:
        files["README_from_user.txt"] = nr.q + "\n"
    return files


def r_ocr(sc, m, nr):
    rng, j = sc.rng, sc.job
    cols = rng.choice([100, 120, 140, 160])
    rows = rng.choice([50, 60, 72])
    rate = rng.uniform(0.02, 0.07)
    con = [l for l in m["console"]]
    # a screenshot shows the bottom of the terminal; keep key lines by dropping from the top
    screen = []
    for l in con:
        if l == TRIM:
            continue
        screen += wrap_hard(l, cols) if rng.random() < 0.8 else [l[:cols]]
    shots = [screen[i:i + rows] for i in range(0, len(screen), rows)] or [[]]
    out = []
    for k, shot in enumerate(shots):
        name = rng.choice(["Screenshot %s.png" % (nr.t + dt.timedelta(seconds=7 * k)).strftime("%Y-%m-%d at %H.%M.%S"),
                           "IMG_%04d.jpg" % rng.randint(1000, 9999), "image (%d).png" % rng.randint(1, 30)])
        out += ["", "===== OCR (tesseract %s) of %s [%d/%d] =====" % (rng.choice(["5.3.0", "4.1.1", "5.3.4"]), name, k + 1, len(shots)), ""]
        for l in shot:
            d = ocr_line(rng, l, rate)
            if rng.random() < 0.03:
                out.append("")
            out.append(d)
    files = {"screenshot_ocr.txt": "\n".join(out) + "\n"}
    if m["attach"]:
        for a in m["attach"]:
            title, lines = att_text(a)
            if rng.random() < 0.5:
                fn = re.sub(r"[^A-Za-z0-9_.-]+", "_", title)[:50].strip("_") + "_ocr.txt"
                files[fn] = "OCR text from phone photo of %s\n\n" % title + "\n".join(ocr_line(rng, x, rate * 0.6) for x in lines) + "\n"
            else:
                files.setdefault("admin_reply.txt", nr.answer + "\n\n")
                files["admin_reply.txt"] += title + "\n" + "\n".join(lines) + "\n\n"
    files["message.txt"] = nr.q + ("\n\n(screenshot attached, OCR'd by the helpdesk bot)\n")
    return files


def r_pager(sc, m, nr):
    rng, j = sc.rng, sc.job
    H = rng.choice([40, 48, 55])
    width = rng.choice([160, 200, 211])
    lines = []
    for l in m["console"]:
        if l == TRIM:
            lines.append(None)
        else:
            lines += wrap_hard(l, width) if len(l) > width else [l]
    out = []
    screen = []
    total = len(lines) + rng.randint(200, 30000)
    pos = 0
    fname = rng.choice(["slurm-%d.out" % j.jobid, "train.log", "output.log"])
    for l in lines:
        if l is None:
            if screen:
                out += screen
                screen = []
            out.append("/" + rng.choice(["Error", "error", "NCCL WARN", "FAILED", "Traceback", "rank"]) if rng.random() < 0.5 else ":")
            out.append("...skipping...")
            continue
        screen.append(l)
        pos += 1
        if len(screen) >= H:
            out += screen
            screen = []
            out.append(rng.choice([":", ":", "%s lines %d-%d/%d %d%%" % (fname, pos - H + 1, pos, total, 100 * pos // total)]))
    out += screen
    out.append("(END)")
    files = {"less_capture.txt": "\n".join(out) + "\n"}
    for a in m["attach"]:
        title, ls = att_text(a)
        fn = re.sub(r"[^A-Za-z0-9_.-]+", "_", title)[:50].strip("_") + ".txt"
        files[fn] = "\n".join(ls + ["(END)"]) + "\n"
    files["message.txt"] = "From %s:\n%s\n" % (nr.rep[0], nr.q)
    return files


def hyphenate_prose(rng, text, width):
    words = text.split()
    out, cur = [], ""
    for w in words:
        if len(cur) + 1 + len(w) > width:
            room = width - len(cur) - 2
            if len(w) > 7 and room >= 3 and rng.random() < 0.6 and w.isalpha():
                cut = max(3, min(room, len(w) - 3))
                out.append((cur + " " + w[:cut] + "-").strip())
                cur = w[cut:]
                continue
            out.append(cur)
            cur = w
        else:
            cur = (cur + " " + w).strip()
    if cur:
        out.append(cur)
    return out


def r_pdf(sc, m, nr):
    rng, j = sc.rng, sc.job
    inc = "INC-%d" % rng.randint(100, 9999)
    W = rng.choice([82, 90, 95])
    body = []
    body += ["Incident Review: training job %d" % j.jobid, ""]
    body += ["1. Summary", ""] + hyphenate_prose(rng, ("On %s the %d-GPU training job %d for the %s model %s. This document collects the logs that were "
                                                        "gathered at the time. Authors: %s, %s.") % (
        nr.t.strftime("%B %d, %Y"), j.world, j.jobid, j.model, "completed, but a log line raised concern" if sc.healthy else
        ("ran slower than expected" if sc.cause == "straggler" else "terminated unexpectedly"), nr.rep[0], nr.adm[0]), W) + [""]
    body += ["2. Impact", ""] + hyphenate_prose(rng, "Approximately %d GPU-hours were lost and the checkpoint from step %d had to be reloaded." % (
        rng.randint(20, 4000), max(0, sc.last_step - rng.randint(100, 2000))) if not sc.healthy else "No GPU-hours were lost.", W) + [""]
    body += ["3. Timeline (times as reported by each host; host clocks were not synchronised)", ""]
    body += ["  %s  job started" % j.clock(0, 0).strftime("%H:%M"), "  %s  last progress line" % j.clock(0, max(0, sc.t_end - 900)).strftime("%H:%M"),
             "  %s  on-call paged" % nr.t.strftime("%H:%M"), ""]
    body += ["4. Initial assessment", ""] + hyphenate_prose(rng, "Preliminary view from the on-call engineer: %s Final root cause to be confirmed from the appendices." % nr.guesses[0], W) + [""]
    body += ["Appendix A. Console output (excerpt)", ""]
    for l in m["console"]:
        if l == TRIM:
            body.append("[...]")
            continue
        for k, part in enumerate(wrap_hard(l, W)):
            body.append(part)
    for i, a in enumerate(m["attach"]):
        title, lines = att_text(a)
        body += ["", "Appendix %s. %s" % ("BCDEFG"[i % 6], title), ""]
        for l in lines:
            body += wrap_hard(l, W)
    if getattr(sc, "unknown_how", None) == "screenshot_lost":
        body += ["", "Figure 1: [image could not be extracted]"]
    # paginate
    PL = rng.choice([52, 58, 64])
    pages = [body[i:i + PL] for i in range(0, len(body), PL)]
    out = []
    for k, pg in enumerate(pages):
        hdr = ["%s    %s" % (rng.choice(["ML Platform - Incident Review", "Postmortem"]) if k == 0 or True else "", inc), ""]
        ftr = ["", "%s%sPage %d of %d" % ("Internal - do not distribute", " " * max(2, W - 40), k + 1, len(pages))]
        out.append("\n".join(hdr + pg + ftr))
    return {"postmortem_%s.txt" % inc: "\f".join(out) + "\n", "pdftotext.log": "pdftotext -layout postmortem_%s.pdf postmortem_%s.txt\n" % (inc, inc)}


def r_term(sc, m, nr):
    rng, j = sc.rng, sc.job
    cast = rng.random() < 0.4
    lines = []
    for l in m["console"]:
        if l == TRIM:
            continue
        lines.append(l)
    # redraw progress bars with \r
    rendered = []
    for l in lines:
        if "it/s" in l or "s/it" in l:
            base = l
            frames = []
            for k in range(rng.randint(2, 6)):
                frames.append(base.replace("|", "|", 1))
            rendered.append("\r".join(frames))
        else:
            rendered.append(ansi(l))
    cmd = rng.choice(["srun --nodes=%d torchrun --nproc_per_node=%d %s" % (j.nnodes, j.gpn, j.script),
                      "torchrun --nnodes=%d --nproc_per_node=%d --rdzv_backend=c10d --rdzv_endpoint=%s:29500 %s" % (j.nnodes, j.gpn, j.hosts[0], j.script)])
    rc = 0 if sc.healthy or sc.cause == "straggler" else 1
    if cast:
        hdr = {"version": 2, "width": rng.choice([160, 211, 238]), "height": rng.choice([48, 52, 60]),
               "timestamp": int(nr.t.replace(tzinfo=dt.timezone.utc).timestamp()) - 7200, "env": {"SHELL": "/bin/bash", "TERM": "xterm-256color"}}
        out = [json.dumps(hdr)]
        tt = 0.0
        out.append(json.dumps([round(tt, 6), "o", "\x1b[01;32m%s@%s\x1b[00m:\x1b[01;34m%s\x1b[00m$ %s\r\n" % (nr.rep[1], j.hosts[0], j.workdir, cmd)]))
        for l in rendered:
            tt += rng.uniform(0.001, 3.0)
            out.append(json.dumps([round(tt, 6), "o", l + "\r\n"], ensure_ascii=False))
        out.append(json.dumps([round(tt + 1, 6), "o", "\x1b[01;32m%s@%s\x1b[00m:\x1b[01;34m%s\x1b[00m$ " % (nr.rep[1], j.hosts[0], j.workdir)]))
        files = {"session.cast": "\n".join(out) + "\n"}
    else:
        start = j.clock(0, 0)
        out = ['Script started on %s [COMMAND="%s" TERM="xterm-256color" TTY="/dev/pts/%d" COLUMNS="211" LINES="52"]' % (
            start.strftime("%Y-%m-%d %H:%M:%S+00:00"), cmd, rng.randint(0, 9))]
        out += [l for l in rendered]
        out.append('Script done on %s [COMMAND_EXIT_CODE="%d"]' % (j.clock(0, sc.t_end).strftime("%Y-%m-%d %H:%M:%S+00:00"), rc))
        files = {"typescript": "\r\n".join(out) + "\r\n"}
    extra = [nr.q, ""]
    for a in m["attach"]:
        title, ls = att_text(a)
        extra += ["--- %s ---" % title] + ls + [""]
    files["note.txt"] = "\n".join(extra) + "\n"
    return files


def r_mixed(sc, m, nr):
    rng, j = sc.rng, sc.job
    m2 = dict(m)
    files = r_chat(sc, m2, nr, flavor=rng.choice(["teams", "mattermost", "discord"]), with_attach_inline=False)
    for a in m["attach"]:
        kind, title, lines, key, n = a
        if kind == "dmesg":
            fn = "dmesg_%s.txt" % j.hosts[n]
        elif kind == "nvsmi":
            fn = "nvidia-smi_%s.txt" % re.sub(r"[^A-Za-z0-9_.-]+", "_", title.split(" on ")[-1])
        elif kind == "pyspy":
            fn = "py-spy_dump_rank.txt"
        else:
            fn = re.sub(r"[^A-Za-z0-9_.-]+", "_", title)[:50].strip("_") + ".txt"
        hdr = "# %s (collected by %s)\n" % (title, nr.adm[1])
        files["attachments/" + fn] = hdr + "\n".join(lines) + "\n"
    if rng.random() < 0.4:
        files.update({("forwarded_" + k): v for k, v in r_email(sc, {"console": m["console"][-40:], "attach": []}, nr).items() if not k.startswith("attachments/")})
    return files


RELAYS = {"email_quote": r_email, "slack_export": r_slack, "chat_copy": r_chat, "ticket_export": r_ticket,
          "github_issue": r_github, "editor_lines": r_editor, "ocr_screenshot": r_ocr, "pager_less": r_pager,
          "pdf_postmortem": r_pdf, "term_recording": r_term, "mixed_relay": r_mixed}


# ----------------------------------------------------------------------------------
# driver
# ----------------------------------------------------------------------------------
def build_run(seed, i, cause, layout):
    rng = random.Random("blind53:%s:%d" % (seed, i))
    job = Job(rng)
    sc = Sc(job, rng)
    sc.cause = cause
    if cause is None:
        b_healthy(sc)
    else:
        BUILDERS[cause](sc)
    if not sc.hide_key and sc.init_rank is not None and sc.init_node is not None:
        root = sc.summaries.get(sc.init_node)
        if root and root[0] == sc.init_rank:
            sc.node_known = True
    if job.nnodes == 1 and sc.init_node is not None and not sc.hide_key:
        sc.node_known = True
    m = gather(sc)
    nr = Narr(sc)
    files = RELAYS[layout](sc, m, nr)
    init = None
    if not sc.healthy and cause not in ("unknown",):
        rk = sc.init_rank if sc.rank_known else None
        nd = job.hosts[sc.init_node] if (sc.node_known and sc.init_node is not None) else None
        alltext = "".join(files[k] for k in sorted(files))
        if rk is not None and nd is None and job.nnodes == 1 and job.hosts[0] in alltext:
            nd = job.hosts[0]
        if nd is not None and nd not in alltext:
            nd = None
        if rk is not None or nd is not None:
            init = {"rank": rk, "node": nd}
    truth = {"healthy": sc.healthy, "cause": None if sc.healthy else cause, "initiator": init, "layout": layout,
             "notes": sc.notes + " [relay: %s; world=%d on %d node(s); torch %s]" % (layout, job.world, job.nnodes, job.torchver)}
    return files, truth


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args(argv)
    rng = random.Random("blind53-plan:%s" % a.seed)
    order = list(CAUSES)
    rng.shuffle(order)
    lays = list(LAYOUTS)
    rng.shuffle(lays)
    os.makedirs(a.out, exist_ok=True)
    counts = {}
    k = 0
    for i in range(a.n):
        if i % 7 == 3:
            cause = None
        else:
            cause = order[k % len(order)]
            k += 1
        layout = lays[(i + (i // len(lays))) % len(lays)]
        files, truth = build_run(a.seed, i, cause, layout)
        d = os.path.join(a.out, "run-%03d-%s" % (i, layout))
        os.makedirs(d, exist_ok=True)
        for rel in sorted(files):
            pth = os.path.join(d, rel)
            os.makedirs(os.path.dirname(pth), exist_ok=True)
            with open(pth, "w", encoding="utf-8", newline="") as f:
                f.write(files[rel])
        with open(os.path.join(d, "truth.json"), "w") as f:
            json.dump(truth, f, indent=2)
            f.write("\n")
        key = "healthy" if truth["healthy"] else truth["cause"]
        counts[key] = counts.get(key, 0) + 1
    print(json.dumps({k2: counts[k2] for k2 in sorted(counts)}, indent=1))


if __name__ == "__main__":
    main()
