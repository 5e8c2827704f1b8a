#!/usr/bin/env python3
"""blind52 -- the shortest pastes.

Generates what people paste into a GitHub issue / forum post / chat when asking
for help with a failed (or suspicious-looking but healthy) distributed GPU
training job: ONE short file (1..40 lines), cut from a bigger log by a human.

Written blind (from knowledge of what torch / NCCL / the NVIDIA driver / the
kernel / Slurm print), standard library only.

    python3 gen_blind52.py --out DIR --n 60 --seed S
"""
import argparse
import json
import os
import random
import sys

CAUSES = [
    "gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
    "illegal_memory_access", "python_exception", "host_oom_kill",
    "crash_signal", "preemption", "hang", "data_loader_stall",
    "collective_mismatch", "straggler", "unknown",
]

# --------------------------------------------------------------------------
# context: random choices shared by a paste (hosts, paths, redaction, ...)
# --------------------------------------------------------------------------

HOST_STYLES = [
    lambda r: "gpu-node-%03d" % r.randint(1, 240),
    lambda r: "dgx-h100-%02d" % r.randint(1, 64),
    lambda r: "ip-10-%d-%d-%d" % (r.randint(0, 31), r.randint(0, 255), r.randint(2, 250)),
    lambda r: "hgx-b%02d-r%d" % (r.randint(1, 40), r.randint(1, 8)),
    lambda r: "compute-%d-%d" % (r.randint(0, 9), r.randint(1, 60)),
    lambda r: "a100-sxm-%02d" % r.randint(1, 32),
    lambda r: "train-worker-%d" % r.randint(0, 15),
]

PYENVS = [
    ("/usr/local/lib/python3.10/dist-packages", "/usr/local/bin"),
    ("/opt/conda/lib/python3.11/site-packages", "/opt/conda/bin"),
    ("/home/{user}/miniconda3/envs/train/lib/python3.10/site-packages", "/home/{user}/miniconda3/envs/train/bin"),
    ("/home/{user}/.venv/lib/python3.12/site-packages", "/home/{user}/.venv/bin"),
    ("/usr/lib/python3/dist-packages", "/usr/bin"),
]

USERS = ["jli", "mkovacs", "ubuntu", "ahmed", "sofia", "tnguyen", "root", "pwang", "dr_k"]
PROJECTS = ["llm-pretrain", "vit-finetune", "speech", "recsys", "nanogpt", "diffusion", "mt5-sft"]
SCRIPTS = ["train.py", "main.py", "pretrain.py", "finetune.py", "run_clm.py", "train_ddp.py"]


class Ctx:
    def __init__(self, r):
        self.r = r
        self.user = r.choice(USERS)
        style = r.choice(HOST_STYLES)
        seen = []
        while len(seen) < 6:
            h = style(r)
            if h not in seen:
                seen.append(h)
        self.hosts = seen
        # how the user treats hostnames: keep, redact fully, or redact digits
        self.host_mode = r.choices(["keep", "xxx", "angle"], [0.55, 0.25, 0.20])[0]
        sp, bindir = r.choice(PYENVS)
        self.redact_paths = r.random() < 0.3
        u = "<user>" if self.redact_paths else self.user
        self.sp = sp.format(user=u)
        self.bindir = bindir.format(user=u)
        self.proj = "/home/%s/%s" % (u, r.choice(PROJECTS)) if r.random() < 0.7 else "/workspace/%s" % r.choice(PROJECTS)
        self.script = r.choice(SCRIPTS)
        self.new_torch = r.random() < 0.65       # [rankN]: prefixes, 2.3+ formats
        self.keep_ts = r.random() < 0.4          # keep syslog / dmesg timestamps
        self.nccl_ver = r.choice(["2.18.1", "2.18.6", "2.19.3", "2.20.5", "2.21.5", "2.23.4"])
        self.torch_ver = r.choice(["2.3.1", "2.4.0", "2.4.1", "2.5.1", "2.6.0"]) if self.new_torch else r.choice(["1.13.1", "2.0.1", "2.1.2"])
        self.month = r.randint(1, 12)
        self.day = r.randint(1, 28)
        self.year = r.choice([2023, 2024, 2025])
        self.hh = r.randint(0, 23)
        self.mm = r.randint(0, 59)
        self.ss = r.randint(0, 59)
        self.jobid = r.randint(100000, 9999999)
        self.nnodes = r.choice([1, 2, 2, 4, 4, 8, 16])
        self.nproc = r.choice([8, 8, 8, 4])
        self.world = self.nnodes * self.nproc
        self._picks = {}

    def pick(self, key, options):
        """same source line for the same call site within one paste"""
        if key not in self._picks:
            self._picks[key] = self.r.choice(options)
        return self._picks[key]

    # hostnames -------------------------------------------------------------
    def host(self, i=0):
        h = self.hosts[i % len(self.hosts)]
        if self.host_mode == "keep":
            return h
        if self.host_mode == "angle":
            return "<hostname>" if i == 0 else "<hostname%d>" % i
        out = []
        for ch in h:
            out.append("X" if ch.isdigit() else ch)
        s = "".join(out)
        return s

    def host_known(self, i=0):
        """node name for truth.json, or None when the paste hides it."""
        if self.host_mode == "keep":
            return self.hosts[i % len(self.hosts)]
        return None

    def ip(self, i=0):
        if self.host_mode != "keep" and self.r.random() < 0.5:
            return "10.x.x.x"
        return "10.%d.%d.%d" % (i + 3, (i * 37 + 11) % 250, (i * 53 + 20) % 250)

    # time ------------------------------------------------------------------
    def tick(self, secs):
        t = self.hh * 3600 + self.mm * 60 + self.ss + secs
        t %= 86400
        self.hh, self.mm, self.ss = t // 3600, (t // 60) % 60, t % 60

    def hms(self):
        return "%02d:%02d:%02d" % (self.hh, self.mm, self.ss)

    def glog(self, lvl="E"):
        """glog-like timestamp used by c10 (new torch): E1007 14:22:31.123456789"""
        return "%s%02d%02d %s.%09d" % (lvl, self.month, self.day, self.hms(), self.r.randint(0, 999999999))

    def syslog(self):
        mon = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][self.month - 1]
        return "%s %2d %s" % (mon, self.day, self.hms())

    def dmesg_T(self):
        mon = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][self.month - 1]
        dow = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][(self.day + self.month) % 7]
        return "[%s %s %2d %s %d]" % (dow, mon, self.day, self.hms(), self.year)

    def iso(self):
        return "%d-%02d-%02dT%s" % (self.year, self.month, self.day, self.hms())

    def torchrun_time(self):
        return "%d-%02d-%02d_%s" % (self.year, self.month, self.day, self.hms())

    # prefixes -------------------------------------------------------------
    def rk(self, rank):
        """torch>=2.3 prefixes python-side stderr lines with [rankN]:"""
        return "[rank%d]:" % rank if self.new_torch else ""

    def c10(self, rank, lvl, fileline):
        if self.new_torch:
            return "[rank%d]:[%s %s] " % (rank, self.glog(lvl), fileline)
        return "[%s %s] " % (lvl, fileline)

    def pid(self):
        return self.r.randint(1200, 480000)


def PCI(r):
    return "0000:%02x:00" % r.choice([0x07, 0x0f, 0x18, 0x3b, 0x47, 0x4e, 0x5e, 0x87, 0x90, 0xb5, 0xb7, 0xbd, 0xc2, 0xdb])


# --------------------------------------------------------------------------
# reusable fragments
# --------------------------------------------------------------------------

def tb_frames(c, rank, frames):
    """python traceback lines with optional [rankN]: prefix."""
    p = c.rk(rank)
    out = [p + "Traceback (most recent call last):"]
    for f, ln, fn, code in frames:
        out.append(p + '  File "%s", line %d, in %s' % (f, ln, fn))
        if code:
            out.append(p + "    " + code)
    return out


def user_frames(c, depth=3):
    r = c.r
    fr = [("%s/%s" % (c.proj, c.script), r.randint(300, 900), "<module>", "main()"),
          ("%s/%s" % (c.proj, c.script), r.randint(150, 299), "main", "trainer.train()")]
    if depth >= 3:
        fr.append(("%s/trainer.py" % c.proj, r.randint(80, 600), "train",
                   r.choice(["loss = self.training_step(batch)", "self._run_epoch(epoch)", "out = self.model(**batch)"])))
    return fr


def childfailed(c, failures, root, script=None, other_none=False):
    """torchrun's ChildFailedError summary block.
    failures / root: dicts with rank, local, host, exitcode, pid, traceback lines."""
    script = script or c.script
    lines = []
    lines.append("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ")
    lines.append("=" * 60)
    lines.append("%s FAILED" % script)
    lines.append("-" * 60)
    lines.append("Failures:")
    if not failures:
        lines.append("  <NO_OTHER_FAILURES>")
    for i, f in enumerate(failures):
        lines.extend(_cf_entry(c, i + 1, f))
    lines.append("-" * 60)
    lines.append("Root Cause (first observed failure):")
    lines.extend(_cf_entry(c, 0, root))
    lines.append("=" * 60)
    return lines


def _cf_entry(c, idx, f):
    ec = f["exitcode"]
    out = ["[%d]:" % idx,
           "  time      : %s" % f.get("time", c.torchrun_time()),
           "  host      : %s" % f["host"],
           "  rank      : %d (local_rank: %d)" % (f["rank"], f["local"]),
           "  exitcode  : %d (pid: %d)" % (ec, f.get("pid", c.pid())),
           "  error_file: %s" % f.get("error_file", "<N/A>")]
    if "tb" in f:
        out.append("  traceback : " + f["tb"][0])
        for l in f["tb"][1:]:
            out.append("  " + l)
    elif ec < 0:
        sig = {-6: "SIGABRT", -9: "SIGKILL", -11: "SIGSEGV", -15: "SIGTERM", -7: "SIGBUS"}[ec]
        out.append("  traceback : Signal %d (%s) received by PID %d" % (-ec, sig, f.get("pid", 0)))
    else:
        out.append("  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
    return out


def fix_sig_pid(f):
    f.setdefault("pid", random.Random(str(f)).randint(1200, 480000))
    return f


def torchrun_launcher_tb(c):
    sp = c.sp
    r = c.r
    return ["Traceback (most recent call last):",
            '  File "%s/torchrun", line 8, in <module>' % c.bindir,
            "    sys.exit(main())",
            '  File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line %d, in wrapper' % (sp, r.choice([346, 348, 355])),
            "    return f(*args, **kwargs)",
            '  File "%s/torch/distributed/run.py", line %d, in main' % (sp, r.choice([812, 879, 901, 919])),
            "    run(args)",
            '  File "%s/torch/distributed/run.py", line %d, in run' % (sp, r.choice([803, 870, 892, 910])),
            "    elastic_launch(",
            '  File "%s/torch/distributed/launcher/api.py", line %d, in __call__' % (sp, r.choice([133, 138])),
            "    return launch_agent(self._config, self._entrypoint, list(args))",
            '  File "%s/torch/distributed/launcher/api.py", line %d, in launch_agent' % (sp, r.choice([260, 264, 269])),
            "    raise ChildFailedError("]


def watchdog_block(c, rank, seq, op, numel, timeout_ms, short=False):
    r = c.r
    ran = timeout_ms + r.randint(3, 900)
    L = []
    work = "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (
        seq, op, numel, numel * (c.world if op == "_ALLGATHER_BASE" else 1), timeout_ms)
    if c.new_torch:
        L.append(c.c10(rank, "E", "ProcessGroupNCCL.cpp:%d" % c.pick("wd", [607, 616, 632])) +
                 "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (rank, work, ran))
        if not short:
            L.append(c.c10(rank, "E", "ProcessGroupNCCL.cpp:%d" % c.pick("tmo", [1664, 1682])) +
                     "[PG ID 0 PG GUID 0(default_pg) Rank %d] Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (rank, seq, seq, seq - 1))
            L.append(c.c10(rank, "E", "ProcessGroupNCCL.cpp:%d" % c.pick("some", [630, 646])) +
                     "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.")
            L.append(c.c10(rank, "E", "ProcessGroupNCCL.cpp:%d" % c.pick("avoid", [636, 652])) +
                     "To avoid data inconsistency, we are taking the entire process down.")
    else:
        L.append("[E ProcessGroupNCCL.cpp:%d] [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (
            c.pick("wd_old", [474, 475, 563]), rank, work, ran))
        if not short:
            L.append("[E ProcessGroupNCCL.cpp:%d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % c.pick("some_old", [488, 489, 577]))
            L.append("[E ProcessGroupNCCL.cpp:%d] To avoid data inconsistency, we are taking the entire process down." % c.pick("avoid_old", [494, 495, 583]))
    return L


def cuda_err_tail(c, rank, msg):
    p = c.rk(rank)
    out = [p + "RuntimeError: CUDA error: " + msg,
           p + "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
           p + "For debugging consider passing CUDA_LAUNCH_BLOCKING=1"]
    if c.new_torch or c.r.random() < 0.5:
        out[-1] += "."
        out.append(p + "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.")
    return out


def nccl_prefix(c, host_i, dev, pid=None, tid=None):
    pid = pid or c.pid()
    tid = tid or pid + c.r.randint(30, 900)
    return "%s:%d:%d [%d]" % (c.host(host_i), pid, tid, dev)


def tqdm_line(c, frac=None):
    r = c.r
    tot = r.choice([1000, 2500, 5000, 12500, 30000])
    cur = int(tot * (frac if frac is not None else r.random()))
    pct = int(100 * cur / tot)
    bar = "\u2588" * (pct // 10) + " " * (10 - pct // 10)
    rate = r.uniform(0.8, 6.5)
    el = int(cur / rate)
    rem = int((tot - cur) / rate)
    f = lambda t: ("%d:%02d:%02d" % (t // 3600, t // 60 % 60, t % 60)) if t >= 3600 else ("%02d:%02d" % (t // 60, t % 60))
    return "%s:%4d%%|%s| %d/%d [%s<%s, %.2fit/s]" % (
        r.choice(["Epoch 0", "Training", "train"]), pct, bar, cur, tot, f(el), f(rem), rate)


def step_log(c, step, loss=None):
    r = c.r
    loss = loss if loss is not None else r.uniform(1.6, 3.2)
    return r.choice([
        "step %d | loss %.4f | lr %.2e | grad_norm %.3f | %.0f tok/s" % (step, loss, r.uniform(1e-5, 3e-4), r.uniform(0.2, 1.8), r.uniform(9e4, 4e5)),
        "{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %.2e, 'epoch': %.2f}" % (loss, r.uniform(0.2, 2.0), r.uniform(1e-6, 5e-5), r.uniform(0.01, 3)),
        "[it %d] loss=%.3f lr=%.3g" % (step, loss, r.uniform(1e-5, 3e-4)),
    ])


# --------------------------------------------------------------------------
# templates: each returns dict(lines, file, layout, cause, initiator, notes)
# cause may differ from the scheduled cause when the paste honestly cannot
# show it (then it is "unknown"); the scheduler only asks templates of the
# scheduled cause, and "unknown" templates cover ambiguous pastes.
# --------------------------------------------------------------------------

def init(rank=None, node=None):
    if rank is None and node is None:
        return None
    return {"rank": rank, "node": node}


# ---------------- gpu_hardware ----------------

def t_gpu_xid79_kernel(c):
    r = c.r
    pci = PCI(r)
    h = c.host(0)
    L = []
    L.append(r.choice(["admin sent me this from the node, job died at the same time:",
                       "our sysadmin says this is from syslog on the node that crashed",
                       "from /var/log/syslog on %s:" % h]))
    L.append("")
    pre = (c.syslog() + " " + h + " kernel: ") if c.keep_ts else "kernel: "
    L.append(pre + "NVRM: Xid (PCI:%s): 79, pid=%s, name=%s, GPU has fallen off the bus." % (
        pci, r.choice(["'<unknown>'", str(c.pid())]), r.choice(["<unknown>", "python3", "pt_main_thread"])))
    L.append(pre + "NVRM: GPU %s.0: GPU has fallen off the bus." % pci)
    if r.random() < 0.6:
        L.append(pre + "NVRM: A GPU crash dump has been created. If possible, please run")
        L.append(pre + "NVRM: nvidia-bug-report.sh as root to collect this data before")
        L.append(pre + "NVRM: the NVIDIA kernel module is unloaded.")
    return dict(lines=L, file=r.choice(["paste.txt", "error.txt", "syslog_excerpt.txt"]), layout="kernel_line",
                cause="gpu_hardware", initiator=init(None, c.host_known(0)),
                notes="Xid 79 (fallen off the bus) on one node; rank mapping not given")


def t_gpu_smi_lost(c):
    r = c.r
    rank = r.randrange(c.world)
    L = []
    L.append("$ torchrun --nproc_per_node=%d %s --config configs/%s.yaml" % (c.nproc, c.script, r.choice(["base", "7b", "large"])))
    L.append("...")
    L.append(step_log(c, r.randint(1000, 40000)))
    L += cuda_err_tail(c, rank, r.choice(["unspecified launch failure", "unknown error"]))[:2]
    L.append("")
    L.append(r.choice(["after that nvidia-smi on the box says:", "and now nvidia-smi gives:", "nvidia-smi afterwards:"]))
    L.append("(venv) %s@%s:~$ nvidia-smi" % (c.user, c.host(0)))
    pci = PCI(r).upper().replace("0000:", "00000000:")
    L.append(r.choice([
        "Unable to determine the device handle for GPU%s.0: GPU is lost.  Reboot the system to recover this GPU" % pci,
        "Unable to determine the device handle for GPU%s.0: Unknown Error" % pci]))
    L.append("")
    L.append(r.choice(["rebooting fixes it for a few days. is the card dying?", "other GPUs on the node look fine", "any idea??"]))
    return dict(lines=L, file=r.choice(["error.txt", "log.txt", "paste.txt"]), layout="nvidia_smi",
                cause="gpu_hardware", initiator=init(None, c.host_known(0)),
                notes="GPU lost per nvidia-smi after launch failure; rank not determinable")


def t_gpu_gsp_dmesg(c):
    r = c.r
    pci = PCI(r)
    g = r.randint(0, 7)
    L = ["$ sudo dmesg -T | grep -i -E 'xid|nvrm' | tail"]
    pid = c.pid()
    for k in range(r.randint(2, 4)):
        ts = (c.dmesg_T() + " ") if c.keep_ts else ""
        L.append(ts + "NVRM: Xid (PCI:%s): 119, pid=%d, name=python3, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function %d (%s) (0x%08x 0x%x)." % (
            (pci, pid, g) + ((76, "GSP_RM_CONTROL", r.randint(0x20800000, 0x2080ffff), r.choice([4, 8, 0x5c])) if k % 2 == 0 else (10, "FREE", r.randint(0xc1d00000, 0xc1d0ffff), 0x0))))
        c.tick(r.randint(6, 40))
    ts = (c.dmesg_T() + " ") if c.keep_ts else ""
    L.append(ts + "NVRM: Xid (PCI:%s): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)" % pci)
    L.append("")
    L.append("training on that node hangs then NCCL timeout. this is %s btw" % c.host(0))
    return dict(lines=L, file=r.choice(["dmesg.txt", "paste.txt"]), layout="dmesg_grep",
                cause="gpu_hardware", initiator=init(None, c.host_known(0)),
                notes="GSP RPC timeout Xid 119 + reset required on one node")


# ---------------- ecc_memory ----------------

def t_ecc_traceback(c):
    r = c.r
    rank = r.randrange(c.world)
    L = tb_frames(c, rank, user_frames(c) + [
        ("%s/torch/nn/modules/module.py" % c.sp, r.choice([1553, 1562, 1736]), "_call_impl", "return forward_call(*args, **kwargs)"),
        ("%s/model.py" % c.proj, r.randint(40, 400), "forward", "x = self.mlp(self.ln_2(x))")])
    L += cuda_err_tail(c, rank, "uncorrectable ECC error encountered")
    if r.random() < 0.5:
        L.append("")
        L.append("always the same node, ranks %d-%d. happened twice this week" % (rank - rank % c.nproc, rank - rank % c.nproc + c.nproc - 1))
    ini = init(rank if c.new_torch else None, None)
    return dict(lines=L, file=r.choice(["traceback.txt", "error.txt"]), layout="traceback",
                cause="ecc_memory", initiator=ini,
                notes="CUDA reports uncorrectable ECC error on the rank that raised")


def t_ecc_dmesg(c):
    r = c.r
    pci = PCI(r)
    h = c.host(0)
    L = [r.choice(["dmesg from %s:" % h, "kernel log (grep NVRM):", "admin pasted this"])]
    pre = lambda: ((c.syslog() + " " + h + " kernel: ") if c.keep_ts else "")
    pid = c.pid()
    L.append(pre() + "NVRM: Xid (PCI:%s): 48, pid=%d, name=python, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (
        pci, pid, r.randint(0, 11), r.randint(0, 1)))
    c.tick(1)
    if r.random() < 0.6:
        L.append(pre() + "NVRM: Xid (PCI:%s): 64, pid=%d, name=python, Row Remapper Error: row remapping failed, 0x%08x" % (pci, pid, r.randint(1, 0xffffff)))
    else:
        L.append(pre() + "NVRM: Xid (PCI:%s): 95, pid=%d, name=python, Uncontained: FBHUB. RST: Yes, D-RST: No" % (pci, pid))
    L.append(pre() + "NVRM: Xid (PCI:%s): 45, pid=%d, name=python, Ch 0000000%d" % (pci, pid, r.randint(0, 9)))
    return dict(lines=L, file=r.choice(["dmesg.txt", "paste.txt"]), layout="kernel_line",
                cause="ecc_memory", initiator=init(None, c.host_known(0)),
                notes="Xid 48 DBE with row-remap failure / uncontained ECC on one node")


def t_ecc_smi(c):
    r = c.r
    g = r.randint(0, 7)
    L = ["$ nvidia-smi -q -i %d -d ECC,ROW_REMAPPER" % g, "", "==============NVSMI LOG==============", "",
         "Attached GPUs                             : 8",
         "GPU 00000000:%s.0" % PCI(r)[5:].upper(),
         "    ECC Errors",
         "        Volatile",
         "            SRAM Correctable              : 0",
         "            SRAM Uncorrectable            : 0",
         "            DRAM Correctable              : %d" % r.randint(0, 40),
         "            DRAM Uncorrectable            : %d" % r.randint(1, 6),
         "        Aggregate",
         "            SRAM Correctable              : 0",
         "            SRAM Uncorrectable            : 0",
         "            DRAM Correctable              : %d" % r.randint(40, 400),
         "            DRAM Uncorrectable            : %d" % r.randint(6, 20),
         "    Remapped Rows",
         "        Correctable Error                 : %d" % r.randint(0, 3),
         "        Uncorrectable Error               : %d" % r.randint(4, 9),
         "        Pending                           : Yes",
         "        Remapping Failure Occurred        : Yes"]
    L.append("")
    rk = c.nproc * r.randrange(c.nnodes) + g
    if r.random() < 0.5:
        L.append("this is GPU %d on %s, the job keeps dying on this node with 'CUDA error: unknown error'" % (g, c.host(0)))
        ini = init(None, c.host_known(0))
    else:
        L.append("ran this on the node where rank %d died (local rank %d = GPU %d, no CUDA_VISIBLE_DEVICES remap)" % (rk, g, g))
        ini = init(rk, None)
    return dict(lines=L, file="nvidia-smi-q.txt", layout="nvidia_smi",
                cause="ecc_memory", initiator=ini,
                notes="uncorrectable DRAM ECC and row remapping failure on one GPU")


# ---------------- nvlink ----------------

def t_nvlink_xid74(c):
    r = c.r
    h = c.host(0)
    L = ["$ journalctl -k --since '2 hours ago' | grep -i xid"]
    pcis = [PCI(r) for _ in range(r.randint(1, 3))]
    pid = c.pid()
    for p in pcis:
        link = r.randint(0, 17)
        pre = (c.syslog() + " " + h + " kernel: ") if c.keep_ts else "kernel: "
        L.append(pre + "NVRM: Xid (PCI:%s): 74, pid=%d, name=python3, NVLink: fatal error detected on link %d(0x%x, 0x0, 0x%x, 0x0, 0x0, 0x0, 0x0)" % (
            p, pid, link, r.choice([0x0, 0x10000, 0x100]), r.choice([0x0, 0x10, 0x20000])))
        c.tick(r.randint(0, 2))
    if r.random() < 0.5:
        L.append("...")
        L.append("then NCCL errors on every rank of that node, other node just timed out")
    return dict(lines=L, file=r.choice(["xid.txt", "paste.txt", "kernel.log"]), layout="dmesg_grep",
                cause="nvlink", initiator=init(None, c.host_known(0)),
                notes="Xid 74 NVLink fatal error")


def t_nvlink_nccl(c):
    r = c.r
    rank = r.randrange(c.world)
    dev = rank % c.nproc
    pre = nccl_prefix(c, 0, dev)
    L = []
    L.append("%s enqueue.cc:%d NCCL WARN Cuda failure 'uncorrectable NVLink error detected during the execution'" % (pre, r.choice([1477, 1556, 1973])))
    L.append("%s NCCL INFO group.cc:%d -> 1" % (pre, r.choice([93, 232, 276])))
    L.append("")
    p = c.rk(rank)
    L.append(p + "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % (
        r.choice([1970, 2006, 3356]), c.nccl_ver))
    L.append(p + "ncclUnhandledCudaError: Call to CUDA function failed.")
    L.append(p + "Last error:")
    L.append(p + "Cuda failure 'uncorrectable NVLink error detected during the execution'")
    ini = init(rank if c.new_torch else None, c.host_known(0))
    return dict(lines=L, file=r.choice(["error.txt", "nccl_error.txt", "log.txt"]), layout="nccl_block",
                cause="nvlink", initiator=ini, notes="uncorrectable NVLink error reported by CUDA via NCCL")


def t_nvlink_smi(c):
    r = c.r
    g = r.randint(0, 7)
    L = ["$ nvidia-smi nvlink -s -i %d" % g,
         "GPU %d: NVIDIA H100 80GB HBM3 (UUID: GPU-%08x-%04x-%04x-%04x-%012x)" % (g, r.getrandbits(32), r.getrandbits(16), r.getrandbits(16), r.getrandbits(16), r.getrandbits(48))]
    dead = sorted(r.sample(range(18), r.randint(1, 4)))
    for l in range(18):
        L.append("\t Link %d: %s" % (l, "<inactive>" if l in dead else "26.562 GB/s"))
    L.append("")
    L.append("and fabric manager log:")
    L.append("[%s] [ERROR] [tid %d] detected NVSwitch fatal error %d on fid 0 switch id 0x%x link %d" % (
        "%02d/%02d/%d %s" % (c.month, c.day, c.year, c.hms()), c.pid(), r.choice([12028, 24007, 20034]), r.getrandbits(40), r.randint(0, 63)))
    return dict(lines=L, file=r.choice(["nvlink.txt", "paste.txt"]), layout="nvidia_smi",
                cause="nvlink", initiator=None, notes="inactive NVLink links + NVSwitch fatal error; host not named")


# ---------------- network ----------------

def t_net_ib_linkdown(c):
    r = c.r
    rank = r.randrange(c.world)
    dev = rank % c.nproc
    L = []
    pre = nccl_prefix(c, 1, dev)
    peer = c.ip(0)
    for k in range(r.randint(1, 3)):
        L.append("%s transport/net_ib.cc:%d NCCL WARN NET/IB : Got completion from peer %s<%d> with status=12 opcode=%d len=0 vendor err 129 (%s) localGid ::ffff:%s remoteGids::ffff:%s" % (
            pre, r.choice([1714, 1695, 2160]), peer, r.randint(30000, 60000), r.choice([0, 1, 32616]), r.choice(["Recv", "Send"]), c.ip(1), peer))
        L.append("%s NCCL INFO transport/net.cc:%d -> 6" % (pre, r.choice([1298, 1302, 1381])))
    L.append("[snip]")
    L.append("admin found this on the other node (%s) at the same minute:" % c.host(0))
    pre2 = (c.syslog() + " " + c.host(0) + " kernel: ") if c.keep_ts else ""
    port = r.choice(["ibp12s0", "ibp75s0", "ib0", "ibs3"])
    bus = "0000:%02x:00.0" % r.choice([0x0c, 0x4b, 0x8a, 0xc9])
    L.append(pre2 + "mlx5_core %s %s: Link down" % (bus, port))
    if r.random() < 0.5:
        L.append(pre2 + "mlx5_core %s: mlx5_port_module_event:%d:(pid 0): Port module event[error]: module %d, Cable error, High Temperature" % (bus, r.choice([1131, 1195]), r.randint(0, 7)))
    c.tick(r.randint(20, 90))
    L.append(pre2 + "mlx5_core %s %s: Link up" % (bus, port))
    return dict(lines=L, file=r.choice(["paste.txt", "error.txt"]), layout="snip_mix",
                cause="network", initiator=init(None, c.host_known(0)),
                notes="IB retry-exceeded completions on a peer + link down/up flap on the named node")


def t_net_eth_bond(c):
    r = c.r
    h = c.host(0)
    L = [r.choice(["only on this node, NCCL uses socket transport (no IB here):", "NCCL_SOCKET_IFNAME=bond0, log of the node that dropped:"])]
    pre = nccl_prefix(c, 0, r.randint(0, 7))
    L.append("%s misc/socket.cc:%d NCCL WARN socketProgressOpt: Call to recv from %s<%d> failed : %s" % (
        pre, r.choice([50, 538, 580]), c.ip(2), r.randint(30000, 60000), r.choice(["No route to host", "Connection timed out"])))
    L.append("%s NCCL INFO misc/socket.cc:%d -> 6" % (pre, r.choice([58, 585, 825])))
    L.append("")
    L.append("dmesg:")
    eth = r.choice(["enp65s0f0", "eth2", "ens7f1"])
    drv = r.choice(["mlx5_core 0000:41:00.0", "ice 0000:41:00.0", "bnxt_en 0000:41:00.0"])
    ts = lambda: ((c.dmesg_T() + " ") if c.keep_ts else "")
    L.append(ts() + "%s %s: Link down" % (drv, eth) if "mlx5" in drv else ts() + "%s %s: NIC Link is Down" % (drv, eth))
    L.append(ts() + "bond0: (slave %s): link status definitely down, disabling slave" % eth)
    L.append(ts() + "bond0: now running without any active interface!")
    return dict(lines=L, file=r.choice(["log.txt", "paste.txt"]), layout="annotated",
                cause="network", initiator=init(None, c.host_known(0)),
                notes="ethernet bond lost its only slave; socket recv fails")


def t_net_efa(c):
    r = c.r
    rank = r.randrange(c.world)
    L = [c.rk(rank) + "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d, remote process exited or there was a network error, NCCL version %s" % (
        r.choice([1970, 2006]), c.nccl_ver),
         c.rk(rank) + "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
         c.rk(rank) + "Last error:",
         c.rk(rank) + "NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Recv)" % (c.ip(0), r.randint(30000, 60000)),
         "",
         r.choice(["ibstat on %s afterwards: port 1 State: Down, Physical state: Polling. ranks on the other nodes only show this error" % c.host(0),
                   "`ibstat` on %s shows mlx5_%d  State: Down / Physical state: Disabled after the crash" % (c.host(0), r.randint(0, 7)),
                   ])]
    return dict(lines=L, file=r.choice(["error.txt", "paste.txt"]), layout="annotated",
                cause="network", initiator=init(None, c.host_known(0)),
                notes="remote error + user's ibstat showing a port down on one node")


# ---------------- cuda_oom ----------------

def t_oom_new(c):
    r = c.r
    rank = r.randrange(c.world)
    p = c.rk(rank)
    total = r.choice([79.11, 79.19, 39.39, 23.64, 139.72])
    alloc = r.choice([0.5, 1.0, 2.0, 3.91, 7.82, 15.63])
    free = r.uniform(0.1, min(alloc, 2))
    used = total - free
    byt = used - r.uniform(0.6, 3)
    L = tb_frames(c, rank, user_frames(c, 2) + [
        ("%s/torch/_tensor.py" % c.sp, r.choice([521, 525, 581]), "backward", "torch.autograd.backward("),
        ("%s/torch/autograd/__init__.py" % c.sp, r.choice([289, 347]), "backward", "_engine_run_backward("),
        ("%s/torch/autograd/graph.py" % c.sp, r.choice([768, 825]), "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")])
    L.append(p + "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of %.2f GiB of which %.2f GiB is free. Including non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)" % (
        alloc, rank % c.nproc, total, free, used, byt, r.uniform(50, 900)))
    if r.random() < 0.5:
        L.insert(0, r.choice(["happens at eval after ~2h, train steps are fine", "batch size 8 per gpu, seq 4096"]))
    return dict(lines=L, file=r.choice(["traceback.txt", "error.txt", "oom.txt"]), layout="traceback",
                cause="cuda_oom", initiator=init(rank if c.new_torch else None, None),
                notes="CUDA OOM on one rank")


def t_oom_old(c):
    r = c.r
    L = ["  File \"%s/torch/nn/functional.py\", line %d, in %s" % (c.sp, r.choice([1856, 2546, 5373]), r.choice(["softmax", "layer_norm", "multi_head_attention_forward"])),
         "    " + r.choice(["ret = input.softmax(dim)", "return torch.layer_norm(input, normalized_shape, weight, bias, eps, torch.backends.cudnn.enabled)"]),
         "RuntimeError: CUDA out of memory. Tried to allocate %d.00 MiB (GPU %d; %.2f GiB total capacity; %.2f GiB already allocated; %.2f MiB free; %.2f GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF" % (
             r.choice([20, 64, 256, 512, 1024]), r.randint(0, 3), 39.59, r.uniform(36, 38), r.uniform(2, 60), r.uniform(37.5, 38.5))]
    if r.random() < 0.5:
        L.insert(0, "...")
    L.append("")
    L.append(r.choice(["this is with DDP on 4x A100 40GB, works with 1 gpu", "(only the last lines, full log is huge)"]))
    return dict(lines=L, file=r.choice(["error.txt", "log.txt"]), layout="traceback",
                cause="cuda_oom", initiator=None, notes="old-format CUDA OOM, rank not shown")


def t_oom_summary(c):
    r = c.r
    rank = r.randrange(c.world)
    L = ["[...]", c.rk(rank) + "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of 79.10 GiB of which %d.%02d MiB is free." % (
        r.choice([1.0, 2.5, 4.0]), rank % c.nproc, r.randint(10, 900), r.randint(0, 99)) + " Including non-PyTorch memory, this process has 78.%02d GiB memory in use. (rest cut)" % r.randint(10, 99)]
    L.append("W%02d%02d %s %d torch/distributed/elastic/multiprocessing/api.py:%d] Sending process %d closing signal SIGTERM" % (
        c.month, c.day, c.hms() + ".%06d" % r.randint(0, 999999), c.pid(), r.choice([890, 897]), c.pid()) if c.new_torch else
             "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process %d closing signal SIGTERM" % c.pid())
    L.append("...")
    L += childfailed(c, [], fix_sig_pid({"rank": rank, "local": rank % c.nproc, "host": c.host(0), "exitcode": 1}))
    return dict(lines=L, file="output.log", layout="snip_mix",
                cause="cuda_oom", initiator=init(rank, c.host_known(0)),
                notes="OOM line + torchrun summary naming same rank")


# ---------------- illegal_memory_access ----------------

def t_ima_assert(c):
    r = c.r
    rank = r.randrange(c.world)
    L = []
    kern = r.choice([
        ("../aten/src/ATen/native/cuda/IndexKernel.cu", 92, "operator()", "`-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"`"),
        ("../aten/src/ATen/native/cuda/Loss.cu", 250, "nll_loss_forward_reduce_cuda_kernel_2d", "`t >= 0 && t < n_classes`"),
        ("../aten/src/ATen/native/cuda/Indexing.cu", 1236, "indexSelectSmallIndex", "`srcIndex < srcSelectDimSize`")])
    for t in sorted(r.sample(range(128), r.randint(3, 6))):
        L.append("%s:%d: %s: block: [%d,0,0], thread: [%d,0,0] Assertion %s failed." % (kern[0], kern[1], kern[2], r.randint(0, 40), t, kern[3]))
    L.append("...")
    L += tb_frames(c, rank, user_frames(c, 2) + [("%s/trainer.py" % c.proj, r.randint(100, 400), "training_step", "loss.item()")])[:3]
    L.append(c.rk(rank) + "  ...")
    L += cuda_err_tail(c, rank, "device-side assert triggered")
    return dict(lines=L, file=r.choice(["error.txt", "traceback.txt"]), layout="traceback",
                cause="illegal_memory_access", initiator=init(rank if c.new_torch else None, None),
                notes="device-side assertion (index out of range)")


def t_ima_watchdog(c):
    r = c.r
    rank = r.randrange(c.world)
    L = []
    msg = "CUDA error: an illegal memory access was encountered"
    if c.new_torch:
        L.append(c.c10(rank, "E", "ProcessGroupNCCL.cpp:%d" % r.choice([1595, 1747])) + "[PG ID 0 PG GUID 0(default_pg) Rank %d] Process group watchdog thread terminated with exception: %s" % (rank, msg))
    else:
        L.append("[E ProcessGroupNCCL.cpp:%d] [Rank %d] NCCL watchdog thread terminated with exception: %s" % (r.choice([915, 1182]), rank, msg))
    L.append("CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.")
    L.append("For debugging consider passing CUDA_LAUNCH_BLOCKING=1")
    L.append("Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.")
    L.append("")
    L.append("Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):")
    L.append("frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x%x (0x7f%010x in %s/torch/lib/libc10.so)" % (r.randint(0x40, 0xa0), r.getrandbits(36), c.sp))
    L.append("[frames trimmed]")
    L.append("")
    L.append(r.choice(["we use a custom fused attention kernel (triton), only with seq len > 8k", "only rank %d prints this, the others print watchdog timeouts after 30 min" % rank]))
    ini = init(rank, None)
    return dict(lines=L, file=r.choice(["log.txt", "paste.txt"]), layout="annotated",
                cause="illegal_memory_access", initiator=ini,
                notes="illegal memory access surfaced in the NCCL watchdog of the faulting rank")


def t_ima_xid31(c):
    r = c.r
    pci = PCI(r)
    h = c.host(0)
    pre = (c.syslog() + " " + h + " kernel: ") if c.keep_ts else "kernel: "
    L = ["grep Xid /var/log/kern.log"]
    L.append(pre + "NVRM: Xid (PCI:%s): 31, pid=%d, name=python, Ch 0000%04x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC%d GPCCLIENT_T1_%d faulted @ 0x7f%02x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (
        pci, c.pid(), r.randint(8, 0x40), r.randint(0, 7), r.randint(0, 15), r.randint(0, 255), r.getrandbits(32)))
    L.append("")
    L.append(r.choice(["same time the job died with 'an illegal memory access was encountered'. is it hardware?",
                       "python side said: RuntimeError: CUDA error: an illegal memory access was encountered"]))
    return dict(lines=L, file="paste.txt", layout="kernel_line",
                cause="illegal_memory_access", initiator=init(None, c.host_known(0)) if c.keep_ts else None,
                notes="Xid 31 MMU fault from the application process (app bug, not HW)")


# ---------------- python_exception ----------------

EXC = [
    ("KeyError", "'input_ids'", "batch = {k: v.to(device) for k, v in batch.items()}", "ids = batch['input_ids']"),
    ("FileNotFoundError", "[Errno 2] No such file or directory: '/data/shards/train-00{:03d}.arrow'", "ds = load_shard(path)", "with open(path, 'rb') as f:"),
    ("ValueError", "Expected input batch_size (16) to match target batch_size (12).", "loss = criterion(logits, labels)", "return F.cross_entropy(input, target)"),
    ("AssertionError", "", "assert x.size(1) <= self.block_size", None),
    ("TypeError", "unsupported operand type(s) for +: 'NoneType' and 'Tensor'", "h = h + self.pos_emb(pos)", None),
    ("ZeroDivisionError", "division by zero", "avg = total_tokens / num_valid", None),
]


def _exc(c):
    r = c.r
    e = r.choice(EXC)
    msg = e[1].format(r.randint(0, 511)) if "{" in e[1] else e[1]
    return e, msg


def t_py_rank_tb(c):
    r = c.r
    rank = r.randrange(1, c.world)
    e, msg = _exc(c)
    fr = user_frames(c) + [("%s/data.py" % c.proj if e[0] in ("KeyError", "FileNotFoundError") else "%s/model.py" % c.proj, r.randint(20, 300), "__call__", e[2])]
    if e[3]:
        fr.append(("%s/utils.py" % c.proj, r.randint(10, 200), "helper", e[3]))
    L = tb_frames(c, rank, fr)
    L.append(c.rk(rank) + ("%s: %s" % (e[0], msg) if msg else e[0]))
    if not c.new_torch:
        L.insert(0, "(rank %d)" % rank if r.random() < 0.5 else "this is from rank %d, others are fine until they time out" % rank)
    return dict(lines=L, file=r.choice(["traceback.txt", "error.txt"]), layout="traceback",
                cause="python_exception", initiator=init(rank, None),
                notes="uncaught %s on one rank" % e[0])


def t_py_record_summary(c):
    r = c.r
    rank = r.randrange(c.world)
    e, msg = _exc(c)
    tbl = ["Traceback (most recent call last):",
           '  File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line %d, in wrapper' % (c.sp, r.choice([346, 355])),
           "    return f(*args, **kwargs)",
           '  File "%s/%s", line %d, in main' % (c.proj, c.script, r.randint(100, 400)),
           "    " + e[2],
           ("%s: %s" % (e[0], msg)) if msg else e[0]]
    L = torchrun_launcher_tb(c) + childfailed(c, [], fix_sig_pid({"rank": rank, "local": rank % c.nproc, "host": c.host(0), "exitcode": 1,
                                                                   "error_file": "/tmp/torchelastic_%s/none_%s/attempt_0/%d/error.json" % (
                                                                       "".join(r.choice("abcdefghijklmnopqrstuvwxyz0123456789_") for _ in range(8)),
                                                                       "".join(r.choice("abcdefghijklmnopqrstuvwxyz0123456789_") for _ in range(8)), rank % c.nproc),
                                                                   "tb": tbl}))
    L = L[-34:]
    return dict(lines=L, file=r.choice(["error.txt", "output.log"]), layout="childfailed_summary",
                cause="python_exception", initiator=init(rank, c.host_known(0)),
                notes="@record'ed entrypoint: summary carries the %s traceback" % e[0])


def t_py_hf(c):
    r = c.r
    L = ["$ accelerate launch --multi_gpu --num_processes %d %s" % (c.nproc, c.script)]
    L.append(tqdm_line(c, r.uniform(0.1, 0.9)))
    rank = r.randrange(c.nproc)
    L += tb_frames(c, rank, [("%s/%s" % (c.proj, c.script), r.randint(200, 500), "<module>", "trainer.train()"),
                             ("%s/transformers/trainer.py" % c.sp, r.choice([1938, 2052, 2123]), "train", "return inner_training_loop("),
                             ("%s/transformers/trainer.py" % c.sp, r.choice([2236, 2345, 2427]), "_inner_training_loop", "for step, inputs in enumerate(epoch_iterator):"),
                             ("%s/collator.py" % c.proj, r.randint(20, 90), "__call__", "labels = [f['labels'] for f in features]")])
    L.append(c.rk(rank) + "KeyError: 'labels'")
    L.append("")
    L.append("happens at the very first eval step")
    return dict(lines=L, file="log.txt", layout="traceback",
                cause="python_exception", initiator=init(rank if c.new_torch else None, None),
                notes="KeyError in user collator")


# ---------------- host_oom_kill ----------------

def t_hoom_kernel(c):
    r = c.r
    h = c.host(0)
    pre = lambda: ((c.syslog() + " " + h + " kernel: ") if c.keep_ts else ((c.dmesg_T() + " ") if r.random() < 0.3 else ""))
    pid = c.pid()
    L = [r.choice(["dmesg on the node:", "from `dmesg -T | tail`:", "admin: your job got OOM killed, see"])]
    if r.random() < 0.5:
        L.append(pre() + "%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0" % r.choice(["python", "pt_data_worker", "python3"]))
        L.append("[...]")
    cg = r.random() < 0.5
    L.append(pre() + ("Memory cgroup out of memory: " if cg else "Out of memory: ") +
             "Killed process %d (python) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (
                 pid, r.randint(180, 900) * 10 ** 6, r.randint(60, 240) * 10 ** 6, r.randint(100000, 900000), r.randint(0, 2000000), r.choice([0, 1000, 1042]), r.randint(200000, 600000)))
    L.append(pre() + "oom_reaper: reaped process %d (python), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB" % pid)
    return dict(lines=L, file=r.choice(["dmesg.txt", "paste.txt"]), layout="kernel_line",
                cause="host_oom_kill", initiator=init(None, c.host_known(0) if c.keep_ts else None),
                notes="kernel OOM killer killed a training process")


def t_hoom_slurm(c):
    r = c.r
    rank = r.randrange(c.world)
    L = ["$ tail -n 25 slurm-%d.out" % c.jobid]
    L.append(step_log(c, r.randint(100, 9000)))
    L.append("W%02d%02d %s %d torch/distributed/elastic/multiprocessing/api.py:%d] Sending process %d closing signal SIGTERM" % (
        c.month, c.day, c.hms() + ".%06d" % r.randint(0, 999999), c.pid(), r.choice([890, 897]), c.pid()))
    fails = []
    L += childfailed(c, fails, fix_sig_pid({"rank": rank, "local": rank % c.nproc, "host": c.host(0), "exitcode": -9}))
    L.append("slurmstepd: error: Detected %d oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % (r.randint(1, 3), c.jobid))
    L.append("srun: error: %s: task 0: Out Of Memory" % c.host(0))
    return dict(lines=L, file="slurm-%d.out" % c.jobid, layout="slurm_tail",
                cause="host_oom_kill", initiator=init(rank if c.nnodes == 1 else None, c.host_known(0)),
                notes="Slurm cgroup oom_kill event, torchrun reports SIGKILL")


def t_hoom_killed_remark(c):
    r = c.r
    L = ["(venv) %s@%s:~/%s$ python -m torch.distributed.run --nproc_per_node %d %s" % (c.user, c.host(0), r.choice(PROJECTS), c.nproc, c.script),
         tqdm_line(c, r.uniform(0.0, 0.05)),
         r.choice(["Map (num_proc=32):  71%|███████   | 1420000/2000000 [03:12<01:18, 7384.21 examples/s]",
                   "Tokenizing: 88%|████████▊ | 880/1000 [11:02<01:30, 1.33it/s]"]),
         "Killed",
         "",
         r.choice(["htop shows RAM (512GB) filling up completely right before this, swap too",
                   "free -h right before it dies: Mem: total 250Gi used 247Gi free 1.1Gi",
                   "dmesg says 'Out of memory: Killed process' for python"])]
    return dict(lines=L, file=r.choice(["log.txt", "paste.txt"]), layout="killed_context",
                cause="host_oom_kill", initiator=None,
                notes="bare 'Killed' with user's memory evidence")


def t_hoom_email(c):
    r = c.r
    L = ["Slurm Job_id=%d Name=%s Failed, Run time %02d:%02d:%02d, OUT_OF_MEMORY" % (
        c.jobid, r.choice(["pretrain", "ft_llama", "ddp_job", "train.sh"]), r.randint(0, 30), r.randint(0, 59), r.randint(0, 59))]
    if r.random() < 0.5:
        L.append("")
        L.append("^ that's all I got in the email, the .out file just stops")
    return dict(lines=L, file="paste.txt", layout="slurm_email",
                cause="host_oom_kill", initiator=None, notes="Slurm mail says OUT_OF_MEMORY")


# ---------------- crash_signal ----------------

def t_crash_segv_bash(c):
    r = c.r
    L = [step_log(c, r.randint(10, 5000)), step_log(c, r.randint(5001, 9000)),
         r.choice(["Segmentation fault (core dumped)", "Segmentation fault"])]
    L.insert(0, "$ python %s --ddp" % c.script if r.random() < 0.5 else "...")
    L.append("")
    L.append(r.choice(["no traceback at all, just this. pytorch %s, custom CUDA extension compiled from source" % c.torch_ver,
                       "happens at random steps. core file is 40GB, not sure what to look at"]))
    return dict(lines=L, file=r.choice(["log.txt", "output.log"]), layout="killed_context",
                cause="crash_signal", initiator=None, notes="segfault without hardware evidence")


def t_crash_summary_segv(c):
    r = c.r
    c.nnodes = 1
    c.world = c.nproc
    rank = r.randrange(c.world)
    L = childfailed(c, [], fix_sig_pid({"rank": rank, "local": rank, "host": c.host(0), "exitcode": -11}))
    L.insert(0, "single node, %d GPUs. only this at the end:" % c.nproc)
    return dict(lines=L, file="error.txt", layout="childfailed_summary",
                cause="crash_signal", initiator=init(rank, c.host_known(0)),
                notes="single-node torchrun summary: one local worker SIGSEGV, no other failures")


def t_crash_fatal_python(c):
    r = c.r
    L = ["Fatal Python error: Segmentation fault", "",
         "Thread 0x%016x (most recent call first):" % r.getrandbits(48),
         '  File "%s/threading.py", line 324 in wait' % c.sp.replace("/site-packages", "").replace("/dist-packages", ""),
         '  File "%s/threading.py", line 607 in wait' % c.sp.replace("/site-packages", "").replace("/dist-packages", ""),
         '  File "%s/tqdm/_monitor.py", line 60 in run' % c.sp,
         "", "Current thread 0x%016x (most recent call first):" % r.getrandbits(48),
         '  File "%s/%s", line %d in %s' % (c.sp, r.choice(["deepspeed/ops/adam/fused_adam.py", "apex/optimizers/fused_adam.py", "my_ext/ops.py"]), r.randint(100, 200), r.choice(["step", "forward"])),
         '  File "%s/torch/optim/optimizer.py", line %d in wrapper' % (c.sp, r.choice([391, 484])),
         '  File "%s/trainer.py", line %d in train_step' % (c.proj, r.randint(100, 300)),
         "  ...", "",
         "Extension modules: numpy.core._multiarray_umath, torch._C, torch._C._fft, torch._C._linalg, ... (total: %d)" % r.randint(40, 120)]
    return dict(lines=L, file=r.choice(["traceback.txt", "error.txt"]), layout="traceback",
                cause="crash_signal", initiator=None, notes="faulthandler segfault dump in an optimizer extension")


def t_crash_bus(c):
    r = c.r
    L = ["ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).",
         "Traceback (most recent call last):",
         '  File "%s/torch/utils/data/dataloader.py", line %d, in _try_get_data' % (c.sp, r.choice([1133, 1243, 1251])),
         "    data = self._data_queue.get(timeout=timeout)",
         "...",
         "RuntimeError: DataLoader worker (pid %d) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit." % c.pid(),
         "",
         "running in docker, didn't set --shm-size"]
    if r.random() < 0.5:
        L = L[:1] + L[5:]
    return dict(lines=L, file="error.txt", layout="traceback",
                cause="crash_signal", initiator=None, notes="SIGBUS in DataLoader worker (shm exhaustion)")


# ---------------- preemption ----------------

def t_pre_slurm_tl(c):
    r = c.r
    h = c.host(0)
    why = r.choice(["TIME LIMIT", "PREEMPTION", "TIME LIMIT"])
    L = [step_log(c, r.randint(10000, 90000))]
    if r.random() < 0.5:
        L.append("slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %d-%02d-%02dT%s DUE TO %s ***" % (c.jobid, h, c.year, c.month, c.day, c.hms(), why))
    L.append("slurmstepd: error: *** JOB %d ON %s CANCELLED AT %d-%02d-%02dT%s DUE TO %s ***" % (c.jobid, h, c.year, c.month, c.day, c.hms(), why))
    L.append("W%02d%02d %s %d torch/distributed/elastic/agent/server/api.py:%d] Received Signals.SIGTERM death signal, shutting down workers" % (
        c.month, c.day, c.hms() + ".%06d" % r.randint(0, 999999), c.pid(), r.choice([704, 719])) if c.new_torch else
             "WARNING:torch.distributed.elastic.agent.server.api:Received 15 death signal, shutting down workers")
    L.append("srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
    L.append("")
    L.append(r.choice(["is there a way to checkpoint before this?", "why does it get cancelled? my checkpoints are fine"]))
    return dict(lines=L, file="slurm-%d.out" % c.jobid, layout="slurm_tail",
                cause="preemption", initiator=None, notes="Slurm cancelled job due to %s" % why.lower())


def t_pre_email(c):
    r = c.r
    st = r.choice(["TIMEOUT", "PREEMPTED"])
    L = ["Slurm Job_id=%d Name=%s Failed, Run time %s, %s" % (
        c.jobid, r.choice(["pretrain_7b", "vit_l", "ddp"]), r.choice(["2-00:00:14", "1-00:00:29", "23:59:51", "03:41:07"]), st)]
    L.append("")
    L.append("got this email, anything I can do?")
    return dict(lines=L, file="paste.txt", layout="slurm_email", cause="preemption",
                initiator=None, notes="Slurm mail %s" % st)


def t_pre_k8s(c):
    r = c.r
    pod = "%s-worker-%d" % (r.choice(["pytorchjob-llm", "train-7b", "ddp"]), r.randint(0, 7))
    L = ["$ kubectl describe pod %s | tail -n 12" % pod]
    kind = r.randint(0, 1)
    if kind == 0:
        L += ["Status:           Failed", "Reason:           Evicted",
              "Message:          The node was low on resource: ephemeral-storage. Threshold quantity: 10%%, available: %dKi. Container pytorch was using %dKi, request is 0, has larger consumption of ephemeral-storage." % (r.randint(100000, 900000), r.randint(10 ** 7, 2 * 10 ** 8))]
    else:
        L += ["Status:           Failed", "Reason:           Terminated",
              "Message:          Pod was terminated in response to imminent node shutdown."]
    L += ["Events:", "  Type     Reason     Age   From     Message", "  ----     ------     ----  ----     -------",
          "  Warning  %s  %dm   kubelet  %s" % ("Evicted   " if kind == 0 else "NodeShutdown", r.randint(2, 50),
                                           "The node was low on resource: ephemeral-storage." if kind == 0 else "Node is shutting down (spot VM preempted)")]
    return dict(lines=L, file="paste.txt", layout="k8s_describe", cause="preemption",
                initiator=None, notes="pod evicted / node shut down by the platform")


# ---------------- hang ----------------

def t_hang_watchdogs(c):
    r = c.r
    seq = r.randint(2000, 90000)
    op = r.choice(["ALLREDUCE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE"])
    numel = r.choice([1, 8388608, 262144000, 65536])
    tmo = r.choice([600000, 1800000])
    ranks = sorted(r.sample(range(c.world), min(c.world, r.randint(2, 4))))
    L = [r.choice(["training just freezes at step %d, GPU util stays 100%% on all gpus, no error until this:" % r.randint(500, 20000),
                   "stuck for %d min then:" % (tmo // 60000)])]
    for rk in ranks:
        L += watchdog_block(c, rk, seq, op, numel, tmo, short=True)
    L.append("[... same for all ranks ...]")
    return dict(lines=L, file=r.choice(["log.txt", "paste.txt"]), layout="nccl_block", cause="hang",
                initiator=None, notes="all ranks time out on the same collective; culprit not visible")


def t_hang_pyspy(c):
    r = c.r
    bad = r.randrange(c.world)
    pid = c.pid()
    L = ["all ranks except %d are in the allreduce (py-spy shows ProcessGroupNCCL wait). rank %d:" % (bad, bad),
         "$ py-spy dump --pid %d" % pid,
         "Process %d: python -u %s" % (pid, c.script),
         "Python v3.%d.%d (%s/python3)" % (r.choice([10, 11]), r.randint(1, 14), c.bindir),
         "",
         "Thread %d (active): \"MainThread\"" % pid,
         "    synchronize (torch/cuda/__init__.py:%d)" % r.choice([792, 801, 892]),
         "    %s (%s:%d)" % (r.choice(["log_metrics", "timed_step"]), "trainer.py", r.randint(60, 400)),
         "    train (trainer.py:%d)" % r.randint(60, 400),
         "    main (%s:%d)" % (c.script, r.randint(60, 400)),
         "    <module> (%s:%d)" % (c.script, r.randint(400, 600)),
         "Thread %d (idle): \"Thread-2 (_pin_memory_loop)\"" % c.pid(),
         "    select (selectors.py:415)",
         "    _pin_memory_loop (torch/utils/data/_utils/pin_memory.py:%d)" % r.choice([53, 59]),
         "",
         "nvidia-smi shows that GPU at 100% util, 0 W change, no progress for 40 min"]
    return dict(lines=L, file="pyspy.txt", layout="pyspy", cause="hang",
                initiator=init(bad, None), notes="one rank stuck in cuda synchronize, others in collective")


def t_hang_desync(c):
    r = c.r
    seq = r.randint(100, 50000)
    bad = r.randrange(c.world)
    L = []
    good = [x for x in range(c.world) if x != bad][:2]
    for g in good:
        L += watchdog_block(c, g, seq, "ALLREDUCE", r.choice([1, 4096]), 1800000, short=True)
        if c.new_torch:
            L.append(c.c10(g, "E", "ProcessGroupNCCL.cpp:%d" % c.pick("tmo", [1664, 1682])) +
                     "[PG ID 0 PG GUID 0(default_pg) Rank %d] Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (g, seq, seq, seq - 1))
    L.append("...")
    L.append(r.choice(["rank %d's log stops at step %d, it never prints 'step done' and has no watchdog error at all." % (bad, r.randint(100, 9000)),
                       "rank %d never logged anything after the forward of step %d (we print per-rank). no error on that rank." % (bad, r.randint(100, 9000))]))
    return dict(lines=L, file="log.txt", layout="annotated", cause="hang",
                initiator=init(bad, None), notes="one rank stopped progressing (per user per-rank logs); others time out")


# ---------------- data_loader_stall ----------------

def t_dl_timeout(c):
    r = c.r
    rank = r.randrange(c.world)
    tmo = r.choice([120, 300, 600, 1800])
    L = tb_frames(c, rank, user_frames(c, 2) + [
        ("%s/torch/utils/data/dataloader.py" % c.sp, r.choice([630, 701]), "__next__", "data = self._next_data()"),
        ("%s/torch/utils/data/dataloader.py" % c.sp, r.choice([1328, 1448]), "_next_data", "idx, data = self._get_data()"),
        ("%s/torch/utils/data/dataloader.py" % c.sp, r.choice([1284, 1402]), "_get_data", "success, data = self._try_get_data()"),
        ("%s/torch/utils/data/dataloader.py" % c.sp, r.choice([1145, 1256]), "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e")])
    L.append(c.rk(rank) + "RuntimeError: DataLoader timed out after %d seconds" % tmo)
    if r.random() < 0.6:
        L.insert(0, r.choice(["data is on NFS, other ranks fine", "we set timeout=%d on the loader to catch this" % tmo]))
    return dict(lines=L, file="traceback.txt", layout="traceback", cause="data_loader_stall",
                initiator=init(rank if c.new_torch else None, None), notes="DataLoader timeout on one rank")


def t_dl_pyspy_nfs(c):
    r = c.r
    rank = r.randrange(c.world)
    L = ["rank %d (py-spy), the other ranks are waiting in the NCCL allreduce:" % rank,
         "Thread %d (idle): \"MainThread\"" % c.pid(),
         "    wait (threading.py:%d)" % r.choice([320, 324]),
         "    get (queue.py:%d)" % r.choice([180, 171]),
         "    _try_get_data (torch/utils/data/dataloader.py:%d)" % r.choice([1133, 1243]),
         "    _next_data (torch/utils/data/dataloader.py:%d)" % r.choice([1318, 1448]),
         "    __next__ (torch/utils/data/dataloader.py:%d)" % r.choice([631, 701]),
         "    train (trainer.py:%d)" % r.randint(60, 400),
         "",
         "its workers:",
         "Thread %d (active): \"MainThread\"" % c.pid(),
         "    read (%s:%d)" % (r.choice(["PIL/ImageFile.py", "webdataset/tariterators.py", "datasets/arrow_reader.py"]), r.randint(100, 500)),
         "    __getitem__ (dataset.py:%d)" % r.randint(30, 200),
         "",
         "and dmesg on %s:" % c.host(0),
         ((c.dmesg_T() + " ") if c.keep_ts else "") + "nfs: server %s not responding, still trying" % r.choice(["nas01", "storage-02", "10.10.0.5"])]
    return dict(lines=L, file="pyspy.txt", layout="pyspy", cause="data_loader_stall",
                initiator=init(rank, c.host_known(0)), notes="rank blocked on DataLoader; worker stuck on NFS read")


def t_dl_worker_log(c):
    r = c.r
    rank = r.randrange(c.world)
    L = ["[rank %d] step %d data_time %.2fs compute %.2fs" % (rank, s, r.uniform(0.01, 0.06), r.uniform(0.5, 0.7)) for s in range(100, 103)]
    L.append("[rank %d] step %d data_time %.2fs compute %.2fs" % (rank, 103, r.uniform(410, 1700), r.uniform(0.5, 0.7)))
    L.append("[snip]")
    L += watchdog_block(c, (rank + 1) % c.world, r.randint(500, 5000), "ALLREDUCE", 1, 1800000, short=True)
    L.append("")
    L.append("only rank %d ever shows the huge data_time, it reads from a different (lazy-loaded S3) shard list" % rank)
    return dict(lines=L, file="log.txt", layout="annotated", cause="data_loader_stall",
                initiator=init(rank, None), notes="one rank's data loading took ~minutes; others time out")


# ---------------- collective_mismatch ----------------

def fp(op, shape, dt="Float", seq=None):
    s = "CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%s], TensorDtypes=%s, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))" % (
        seq, op, shape, dt)
    return s


def t_cm_detail(c):
    r = c.r
    a, b = r.sample(range(c.world), 2)
    seq = r.randint(5, 3000)
    kind = r.randint(0, 1)
    if kind == 0:
        o1, o2 = r.sample(["ALLREDUCE", "BROADCAST", "ALLGATHER", "REDUCE_SCATTER", "_ALLGATHER_BASE"], 2)
        s1 = s2 = str(r.choice([1, 1024, 4096]))
        diff = "  Op type: %svs %s" % (o1, o2)
    else:
        o1 = o2 = "ALLREDUCE"
        s1, s2 = str(r.randint(10 ** 6, 10 ** 8)), str(r.randint(10 ** 6, 10 ** 8))
        diff = "  Tensor Tensor shapes: %svs %s" % (s1, s2)
    p = c.rk(a)
    L = [r.choice(["with TORCH_DISTRIBUTED_DEBUG=DETAIL I get:", "set TORCH_DISTRIBUTED_DEBUG=DETAIL as suggested:"]),
         p + "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects: %s" % (
             a, fp(o1, s1, "BFloat16", seq), b, fp(o2, s2, "BFloat16", seq), diff)]
    return dict(lines=L, file="error.txt", layout="traceback", cause="collective_mismatch",
                initiator=None, notes="PG wrapper detected mismatched collectives")


def t_cm_watchdog_ops(c):
    r = c.r
    seq = r.randint(200, 20000)
    ranks = sorted(r.sample(range(c.world), 3))
    ops = ["ALLREDUCE", "ALLREDUCE", "BROADCAST"]
    r.shuffle(ops)
    L = ["timeouts from three ranks (cut), note the OpType:"]
    for rk, op in zip(ranks, ops):
        L += watchdog_block(c, rk, seq, op, 1 if op == "BROADCAST" else 262144, 600000, short=True)
    L.append("")
    L.append(r.choice(["the broadcast is our early-stopping flag, maybe only some ranks reach it?", "no idea why it's different"]))
    return dict(lines=L, file="paste.txt", layout="nccl_block", cause="collective_mismatch",
                initiator=None, notes="same SeqNum but different OpType across ranks")


# ---------------- straggler ----------------

def t_strag_table(c):
    r = c.r
    slow = r.randrange(c.world)
    L = ["per-rank step time (ms), averaged over the last 200 steps:"]
    base = r.uniform(700, 1400)
    ranks = sorted(set(r.sample(range(c.world), min(c.world, 7)) + [slow]))
    for rk in ranks:
        t = base * (r.uniform(1.35, 1.9) if rk == slow else r.uniform(0.97, 1.03))
        L.append("rank %3d  fwd %.0f  bwd %.0f  opt %.0f  total %.0f" % (rk, t * 0.3, t * 0.6, t * 0.1, t))
    L.append("")
    L.append(r.choice(["rank %d is always slow, the whole job runs at its speed. swapping the data shard doesn't change it. (it is on %s)" % (slow, c.host(slow // c.nproc)),
                       "throughput dropped 35%% after the node swap, rank %d lags every step" % slow]))
    node = c.host_known(slow // c.nproc) if "(it is on" in L[-1] else None
    return dict(lines=L, file="timings.txt", layout="step_times", cause="straggler",
                initiator=init(slow, node), notes="one rank persistently slower")


def t_strag_thermal(c):
    r = c.r
    g = r.randint(0, 7)
    L = ["one node is ~40%% slower than the rest. nvidia-smi -q -d PERFORMANCE on it, GPU %d:" % g,
         "    Clocks Event Reasons" if r.random() < 0.5 else "    Clocks Throttle Reasons",
         "        Idle                              : Not Active",
         "        Applications Clocks Setting       : Not Active",
         "        SW Power Cap                      : Not Active",
         "        HW Slowdown                       : Active",
         "            HW Thermal Slowdown           : Active",
         "            HW Power Brake Slowdown       : Not Active",
         "        Sync Boost                        : Not Active",
         "        SW Thermal Slowdown               : Active",
         "        Display Clock Setting             : Not Active",
         "",
         "GPU temp 91C, others 60C. no errors, just slow"]
    return dict(lines=L, file="nvidia-smi.txt", layout="nvidia_smi", cause="straggler",
                initiator=None, notes="thermal slowdown on one GPU makes its node a straggler")


def t_strag_iters(c):
    r = c.r
    h = c.host(1)
    L = []
    for k in range(5):
        ms = r.uniform(900, 1100)
        c.tick(int(ms * 10 / 1000))
        L.append(" [%s] iteration %6d/%6d | consumed samples: %9d | elapsed time per iteration (ms): %.1f | learning rate: %.3E | lm loss: %.6E |" % (
            c.iso().replace("T", " "), 1000 + k * 10, 100000, (1000 + k * 10) * 512, ms, 2.9e-4, r.uniform(2.1, 2.4)))
    L.append("... after adding %s to the job:" % h)
    c.tick(r.randint(3600, 30000))
    for k in range(5):
        ms = r.uniform(1550, 1800)
        c.tick(int(ms * 10 / 1000))
        L.append(" [%s] iteration %6d/%6d | consumed samples: %9d | elapsed time per iteration (ms): %.1f | learning rate: %.3E | lm loss: %.6E |" % (
            c.iso().replace("T", " "), 2000 + k * 10, 100000, (2000 + k * 10) * 512, ms, 2.9e-4, r.uniform(2.0, 2.3)))
    L.append("without that node it's back to ~1000ms. nccl-tests on it alone look ok")
    return dict(lines=L, file="log.txt", layout="step_times", cause="straggler",
                initiator=init(None, c.host_known(1)), notes="adding one node slows every iteration")


# ---------------- unknown ----------------

def t_unk_summary_exit1(c):
    r = c.r
    rank = r.randrange(c.world)
    L = childfailed(c, [], fix_sig_pid({"rank": rank, "local": rank % c.nproc, "host": c.host(0), "exitcode": 1}))
    if r.random() < 0.5:
        L = torchrun_launcher_tb(c)[-4:] + L
    L.append("")
    L.append(r.choice(["what does this mean??", "no other error in the output", "any ideas? it ran fine yesterday"]))
    return dict(lines=L, file=r.choice(["error.txt", "output.log"]), layout="childfailed_summary", cause="unknown",
                initiator=None, notes="only torchrun's summary with exitcode 1; the real error is not in the paste")


def t_unk_nccl_remote(c):
    r = c.r
    rank = r.randrange(c.world)
    p = c.rk(rank)
    kind = r.randint(0, 1)
    L = [p + "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d, %s, NCCL version %s" % (
        r.choice([1970, 2006, 3356]), ["unhandled system error (run with NCCL_DEBUG=INFO for details)", "remote process exited or there was a network error"][kind], c.nccl_ver),
         p + ["ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ",
              "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely."][kind],
         p + "Last error:",
         p + r.choice(["socketProgress: Connection closed by remote peer %s<%d>" % (c.host(1), r.randint(30000, 60000)),
                       "NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Recv)" % (c.ip(1), r.randint(30000, 60000)),
                       "socketStartConnect: Connect to %s<%d> failed : Connection refused" % (c.ip(1), r.randint(30000, 60000))])]
    if r.random() < 0.5:
        L.insert(0, "this is all I see on rank %d, multi-node (%d nodes)" % (rank, max(2, c.nnodes)))
    return dict(lines=L, file="error.txt", layout="nccl_block", cause="unknown",
                initiator=None, notes="survivor-side NCCL error: peer vanished, why is not shown")


def t_unk_srun(c):
    r = c.r
    L = ["srun: error: %s: task %d: Exited with exit code %d" % (c.host(r.randint(0, 3)), r.randrange(c.world), r.choice([1, 1, 134, 137])),
         "srun: launch/slurm: _step_signal: Terminating StepId=%d.0" % c.jobid,
         "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %d-%02d-%02dT%s ***" % (c.jobid, c.host(0), c.year, c.month, c.day, c.hms()),
         "srun: error: %s: tasks %d-%d: Terminated" % (c.host(1), c.nproc, 2 * c.nproc - 1),
         "srun: Force Terminated StepId=%d.0" % c.jobid]
    L.append("")
    L.append("that's the end of slurm-%d.out. no traceback above it" % c.jobid)
    return dict(lines=L, file="slurm-%d.out" % c.jobid, layout="slurm_tail", cause="unknown",
                initiator=None, notes="srun step teardown without the task's error")


def t_unk_sigabrt_sigkill(c):
    r = c.r
    rank = r.randrange(c.world)
    ec = r.choice([-6, -9])
    L = [r.choice(["after ~2h of training:", "randomly, anywhere from 20min to 6h in:"])]
    L += childfailed(c, [], fix_sig_pid({"rank": rank, "local": rank % c.nproc, "host": c.host(0), "exitcode": ec}))
    return dict(lines=L, file="error.txt", layout="childfailed_summary", cause="unknown",
                initiator=None, notes="summary shows signal %d; could be watchdog abort / external kill" % -ec)


def t_unk_nodefail(c):
    r = c.r
    L = ["Slurm Job_id=%d Name=%s Failed, Run time %s, NODE_FAIL" % (c.jobid, r.choice(["pretrain", "llm", "ft"]), r.choice(["05:12:44", "17:03:09", "1-02:11:40"]))]
    L.append("")
    L.append(r.choice(["and the .out file just ends mid-line", "no idea which node"]))
    return dict(lines=L, file="paste.txt", layout="slurm_email", cause="unknown",
                initiator=None, notes="NODE_FAIL mail; the reason for the node failure is not shown")


def t_unk_killed_bare(c):
    r = c.r
    L = [step_log(c, r.randint(100, 9000)), step_log(c, r.randint(9001, 20000)), "Killed", ""]
    L.insert(0, "$ ./run.sh")
    L.append(r.choice(["no other output. what killed it?", "why?"]))
    return dict(lines=L, file="log.txt", layout="killed_context", cause="unknown",
                initiator=None, notes="bare 'Killed' (SIGKILL) with nothing saying who sent it")


# ---------------- healthy ----------------

def h_destroy(c):
    r = c.r
    L = [step_log(c, r.randint(9000, 20000)), r.choice(["Training complete. Saved final checkpoint to ckpt/final.pt", "***** train metrics *****", "Done!"])]
    for rk in sorted(r.sample(range(c.nproc), r.randint(1, 3))):
        if c.new_torch:
            L.append("[rank%d]:[W%02d%02d %s.%09d ProcessGroupNCCL.cpp:%d] Warning: WARNING: destroy_process_group() was not called before program exit, which can leak resources. For more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())" % (
                rk, c.month, c.day, c.hms(), r.randint(0, 999999999), c.pick("dpg", [1250, 1479, 1496, 1538])))
        else:
            L.append("[W ProcessGroupNCCL.cpp:%d] Warning: WARNING: process group has NOT been destroyed before it is deleted." % c.pick("dpg", [1250, 1374]))
    L.append("")
    L.append(r.choice(["is this warning a problem? the results look fine", "should I worry about this?"]))
    return dict(lines=L, file=r.choice(["log.txt", "output.log"]), layout="warning_q", notes="destroy_process_group warning at normal exit")


def h_tcpstore(c):
    r = c.r
    rk = r.randint(1, c.nproc - 1)
    L = [r.choice(["Training finished. Final eval loss 1.%03d" % r.randint(100, 999), "100%%|██████████| %d/%d [4:02:11<00:00, 1.21it/s]" % (5000, 5000)])]
    L.append("[rank%d]:[W%02d%02d %s.%09d ProcessGroupNCCL.cpp:%d] [PG ID 0 PG GUID 0(default_pg) Rank %d] Failed to check the \"should dump\" flag on TCPStore, (maybe TCPStore server has shut down too early), with error: %s" % (
        rk, c.month, c.day, c.hms(), r.randint(0, 999999999), r.choice([1659, 1662, 1771]), rk, r.choice(["Broken pipe", "Connection reset by peer", "failed to recv, got 0 bytes"])))
    L.append("[rank%d]:[W%02d%02d %s.%09d TCPStore.cpp:%d] [c10d] recvValue failed on SocketImpl(fd=%d, addr=[%s]:%d, remote=[%s]:29500): failed to recv, got 0 bytes" % (
        rk, c.month, c.day, c.hms(), r.randint(0, 999999999), r.choice([106, 125]), r.randint(40, 140), c.host(0), r.randint(30000, 60000), c.host(0)))
    L.append("Exception raised from recvBytes at /pytorch/torch/csrc/distributed/c10d/Utils.hpp:%d (most recent call first):" % r.choice([653, 670, 678]))
    L.append("frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x98 (0x7f%010x in %s/torch/lib/libc10.so)" % (r.getrandbits(36), c.sp))
    L.append("[... frames cut ...]")
    L.append("")
    L.append("job exit code is 0 and checkpoints are all saved. can I ignore this?")
    return dict(lines=L, file="log.txt", layout="warning_q", notes="TCPStore heartbeat warning after rank0 exited at the end")


def h_deprecation(c):
    r = c.r
    L = ["$ python -m torch.distributed.launch --nproc_per_node=%d %s" % (c.nproc, c.script),
         "%s/torch/distributed/launch.py:%d: FutureWarning: The module torch.distributed.launch is deprecated" % (c.sp, r.choice([181, 183, 208])),
         "and will be removed in future. Use torchrun.",
         "Note that --use-env is set by default in torchrun.",
         "If your script expects `--local-rank` argument to be set, please",
         "change it to read from `os.environ['LOCAL_RANK']` instead. See ",
         "https://pytorch.org/docs/stable/distributed.html#launch-utility for ",
         "further instructions",
         "",
         "  warnings.warn(",
         "*****************************************",
         "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
         "*****************************************"]
    if r.random() < 0.5:
        L.append("%s/%s:%d: FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', args...)` instead." % (c.proj, c.script, r.randint(40, 200)))
        L.append("  scaler = torch.cuda.amp.GradScaler()")
    L.append(step_log(c, 10))
    L.append("")
    L.append("training runs, just want to know if these warnings matter")
    return dict(lines=L, file="output.log", layout="warning_q", notes="deprecation warnings at start; run proceeds")


def h_nccl_info(c):
    r = c.r
    pre = nccl_prefix(c, 0, 0)
    L = ["%s NCCL INFO Bootstrap : Using eth0:%s<0>" % (pre, c.ip(0)),
         "%s NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation" % pre,
         "%s NCCL INFO cudaDriverVersion %d" % (pre, r.choice([12020, 12040, 12060])),
         "NCCL version %s+cuda12.%d" % (c.nccl_ver, r.randint(1, 4)),
         "%s NCCL INFO NET/IB : No device found." % pre,
         "%s NCCL INFO NET/Socket : Using [0]eth0:%s<0>" % (pre, c.ip(0)),
         "%s NCCL INFO Using network Socket" % pre,
         "%s NCCL INFO comm 0x%x rank 0 nranks %d cudaDev 0 nvmlDev 0 busId %s000 commId 0x%x - Init COMPLETE" % (pre, r.getrandbits(40), c.nproc, PCI(r)[5:7], r.getrandbits(60)),
         "",
         r.choice(["single node, %d GPUs." % c.nproc + " is 'No device found' bad? training speed seems normal", "does 'No plugin found' mean NCCL is broken?"])]
    return dict(lines=L, file="nccl_init.txt", layout="warning_q", notes="NCCL INFO init on a single node; socket fallback is normal")


def h_rdzv_shutdown(c):
    r = c.r
    L = [r.choice(["Epoch 9: 100%|██████████| 1250/1250 [05:31<00:00, 3.77it/s, loss=0.412]", "saving final model... done"])]
    if c.new_torch:
        L.append("W%02d%02d %s.%06d %d torch/distributed/elastic/rendezvous/dynamic_rendezvous.py:%d] The node '%s_%d_0' has failed to shutdown the rendezvous '%s' due to an error of type RendezvousConnectionError." % (
            c.month, c.day, c.hms(), r.randint(0, 999999), c.pid(), r.choice([1173, 1232, 1361]), c.host(1), c.pid(), r.choice(["none", "job42", "ddp_rdzv"])))
    else:
        L.append("WARNING:torch.distributed.elastic.rendezvous.dynamic_rendezvous:The node '%s_%d_0' has failed to shutdown the rendezvous '%s' due to an error of type RendezvousConnectionError." % (
            c.host(1), c.pid(), r.choice(["none", "job42"])))
    L.append("[W socket.cpp:%d] [c10d] The client socket has failed to connect to [%s]:29400 (errno: 111 - Connection refused)." % (r.choice([464, 601, 663]), c.host(0)))
    L.append("")
    L.append("this shows up on the second node at the very end, exit code 0 everywhere. harmless?")
    return dict(lines=L, file="paste.txt", layout="warning_q", notes="rendezvous shutdown warning after success")


def h_nccl_warn_exit(c):
    r = c.r
    dev = r.randint(0, 7)
    pre = nccl_prefix(c, 1, dev)
    L = [step_log(c, r.randint(20000, 30000)), "saved checkpoint step_%d" % r.randint(20000, 30000),
         "%s NCCL INFO comm 0x%x rank %d nranks %d cudaDev %d busId %s000 - Destroy COMPLETE" % (pre, r.getrandbits(40), 8 + dev, 16, dev, PCI(r)[5:7]),
         "%s misc/socket.cc:%d NCCL WARN socketProgressOpt: Call to recv from %s<%d> failed : Connection reset by peer" % (pre, r.choice([50, 538]), c.ip(0), r.randint(30000, 60000)),
         "%s NCCL INFO misc/socket.cc:%d -> 6" % (pre, r.choice([58, 585])),
         "%s NCCL INFO bootstrap.cc:%d -> 6" % (pre, r.choice([77, 99])),
         "",
         "this is printed after the last checkpoint, when rank 0 already exited. all processes exit 0. bug?"]
    return dict(lines=L, file="log.txt", layout="warning_q", notes="NCCL socket WARN at teardown after a successful run")


# --------------------------------------------------------------------------

TEMPLATES = {
    "gpu_hardware": [t_gpu_xid79_kernel, t_gpu_smi_lost, t_gpu_gsp_dmesg],
    "ecc_memory": [t_ecc_traceback, t_ecc_dmesg, t_ecc_smi],
    "nvlink": [t_nvlink_xid74, t_nvlink_nccl, t_nvlink_smi],
    "network": [t_net_ib_linkdown, t_net_eth_bond, t_net_efa],
    "cuda_oom": [t_oom_new, t_oom_old, t_oom_summary],
    "illegal_memory_access": [t_ima_assert, t_ima_watchdog, t_ima_xid31],
    "python_exception": [t_py_rank_tb, t_py_record_summary, t_py_hf],
    "host_oom_kill": [t_hoom_kernel, t_hoom_slurm, t_hoom_killed_remark, t_hoom_email],
    "crash_signal": [t_crash_segv_bash, t_crash_summary_segv, t_crash_fatal_python, t_crash_bus],
    "preemption": [t_pre_slurm_tl, t_pre_email, t_pre_k8s],
    "hang": [t_hang_watchdogs, t_hang_pyspy, t_hang_desync],
    "data_loader_stall": [t_dl_timeout, t_dl_pyspy_nfs, t_dl_worker_log],
    "collective_mismatch": [t_cm_detail, t_cm_watchdog_ops],
    "straggler": [t_strag_table, t_strag_thermal, t_strag_iters],
    "unknown": [t_unk_summary_exit1, t_unk_nccl_remote, t_unk_srun, t_unk_sigabrt_sigkill, t_unk_nodefail, t_unk_killed_bare],
}
HEALTHY = [h_destroy, h_tcpstore, h_deprecation, h_nccl_info, h_rdzv_shutdown, h_nccl_warn_exit]


# --------------------------------------------------------------------------
# human "paste" post-processing
# --------------------------------------------------------------------------

def decorate(r, c, lines, layout):
    out = list(lines)
    # a code fence (markdown) around the paste now and then
    if r.random() < 0.18:
        out = ["```"] + out + ["```"]
    # some users paste from a terminal with trailing whitespace / CRLF
    if r.random() < 0.1:
        out = [l + " " if l and r.random() < 0.3 else l for l in out]
    # cap to 40 lines: humans trim the middle with "..."
    if len(out) > 40:
        head = out[:18]
        tail = out[-20:]
        out = head + [r.choice(["...", "[snip]", "(... %d lines removed ...)" % (len(out) - 38)])] + tail
    return out


def build(seed, n):
    order = list(CAUSES)
    random.Random("blind52-order|%s" % seed).shuffle(order)
    off = random.Random("blind52-offset|%s" % seed)
    tmpl_off = {k: off.randrange(len(v)) for k, v in sorted(TEMPLATES.items())}
    h_off = off.randrange(len(HEALTHY))
    used = {k: 0 for k in CAUSES}
    h_used = 0
    k = 0
    runs = []
    for i in range(n):
        rr = random.Random("blind52|%s|%d" % (seed, i))
        c = Ctx(rr)
        if i % 7 == 3:
            fn = HEALTHY[(h_off + h_used) % len(HEALTHY)]
            h_used += 1
            res = fn(c)
            res.update(cause=None, initiator=None, healthy=True)
        else:
            cause = order[k % len(order)]
            k += 1
            lst = TEMPLATES[cause]
            fn = lst[(tmpl_off[cause] + used[cause]) % len(lst)]
            used[cause] += 1
            res = fn(c)
            res["healthy"] = False
        res["lines"] = decorate(rr, c, res["lines"], res["layout"])
        # a node can only be named when the paste shows it
        ini = res.get("initiator")
        if ini is not None:
            text = "\n".join(res["lines"])
            if ini.get("node") is not None and ini["node"] not in text:
                ini["node"] = None
            if ini.get("rank") is None and ini.get("node") is None:
                res["initiator"] = None
        res["template"] = fn.__name__
        runs.append(res)
    return runs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args(argv)
    seed = str(a.seed)
    os.makedirs(a.out, exist_ok=True)
    runs = build(seed, a.n)
    counts = {}
    for i, res in enumerate(runs):
        d = os.path.join(a.out, "run-%03d-%s" % (i, res["layout"]))
        os.makedirs(d, exist_ok=True)
        text = "\n".join(res["lines"]).rstrip("\n") + "\n"
        with open(os.path.join(d, res["file"]), "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        truth = {"healthy": res["healthy"], "cause": res["cause"], "initiator": res["initiator"],
                 "layout": res["layout"], "notes": res["notes"]}
        with open(os.path.join(d, "truth.json"), "w", encoding="utf-8") as f:
            json.dump(truth, f, indent=2)
            f.write("\n")
        key = "healthy" if res["healthy"] else res["cause"]
        counts[key] = counts.get(key, 0) + 1
    print(json.dumps({k: counts[k] for k in sorted(counts)}, indent=None))
    return 0


if __name__ == "__main__":
    sys.exit(main())
