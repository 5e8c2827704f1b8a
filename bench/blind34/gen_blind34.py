#!/usr/bin/env python3
"""gen_blind34 -- blind generator of HOSTILE / AWKWARD log bundles around ordinary
distributed-training failures (and healthy runs).

Written blind: without reading the diagnosis tool's code, rules, tests, docs, its
real-log corpus or any other generator.  Python 3.11, standard library only.

    python3 gen_blind34.py --out DIR --n 60 --seed S

writes DIR/run-NNN-<layout>/ (each < 1 MB) with truth.json and prints per-cause
counts as JSON.  Output is deterministic per seed (string-seeded random.Random,
fixed archive timestamps, no set/hash ordering).
"""
import argparse
import bz2
import datetime as _dt
import gzip
import io
import json
import lzma
import math
import os
import random
import shutil
import struct
import sys
import tarfile
import time
import zipfile
import zlib

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill",
          "crash_signal", "preemption", "hang", "data_loader_stall",
          "collective_mismatch", "straggler", "unknown"]
LAYOUTS = ["rotated_tee", "powershell_paste", "node_bundles", "k8s_pods",
           "deepspeed_pdsh"]
RUN_BUDGET = 985_000

# version, nccl, log style, python, cuda
TORCH = [
    ("2.0.1", "2.14.3", "old", "3.10", "11.8"),
    ("2.1.2", "2.18.1", "old", "3.10", "12.1"),
    ("2.2.2", "2.19.3", "mid", "3.10", "12.1"),
    ("2.3.1", "2.20.5", "mid", "3.11", "12.1"),
    ("2.4.1", "2.20.5", "new", "3.11", "12.4"),
    ("2.5.1", "2.21.5", "new", "3.11", "12.4"),
    ("2.6.0", "2.21.5", "new", "3.12", "12.6"),
]
GPU_MODELS = [
    ("NVIDIA A100-SXM4-80GB", ["07", "0f", "47", "4e", "87", "90", "b7", "bd"], 81920, 79.15, "535.161.08"),
    ("NVIDIA H100 80GB HBM3", ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"], 81559, 79.10, "550.54.15"),
    ("NVIDIA A100-SXM4-40GB", ["07", "0f", "47", "4e", "87", "90", "b7", "bd"], 40960, 39.39, "525.125.06"),
    ("NVIDIA H100 80GB HBM3", ["19", "3b", "4c", "5d", "9b", "bb", "cb", "db"], 81559, 79.10, "560.35.03"),
]
USERS = ["jsmith", "alopez", "mkowalski", "tnguyen", "rpatel", "hmueller", "lchen", "sdubois", "kyamada"]
PROJECTS = ["llm-pretrain", "vit-finetune", "llama-sft", "moe-exp", "asr-conformer",
            "sdxl-train", "bert-mlm", "codegen-7b", "mistral-dpo"]
KERNELS = ["5.15.0-105-generic #115-Ubuntu", "5.15.0-91-generic #101-Ubuntu",
           "6.5.0-35-generic #35~22.04.1-Ubuntu", "6.8.0-45-generic #45-Ubuntu"]


def pick(rng, seq):
    return seq[rng.randrange(len(seq))]


def chance(rng, p):
    return rng.random() < p


# ---------------------------------------------------------------- time formats
def d_py(d):
    return d.strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (d.microsecond // 1000)


def d_glog(level, d, nine=False):
    frac = "%06d" % d.microsecond
    if nine:
        frac += "%03d" % ((d.microsecond * 7 + d.second * 131) % 1000)
    return "%s%02d%02d %s.%s" % (level, d.month, d.day, d.strftime("%H:%M:%S"), frac)


def d_syslog(d):
    return "%s %2d %s" % (d.strftime("%b"), d.day, d.strftime("%H:%M:%S"))


def d_ctime(d):
    return "%s %2d %s" % (d.strftime("%a %b"), d.day, d.strftime("%H:%M:%S %Y"))


def d_iso(d):
    return d.strftime("%Y-%m-%dT%H:%M:%S")


def hms(sec):
    sec = int(max(sec, 0))
    h, m, s = sec // 3600, (sec % 3600) // 60, sec % 60
    return "%d:%02d:%02d" % (h, m, s) if h else "%02d:%02d" % (m, s)


# ---------------------------------------------------------------- binary fakes
def png_bytes(rng, w=420, h=260):
    rows = [bytearray(b"\xff" * w) for _ in range(h)]
    x0, y0 = 40, h - 30
    for y in range(10, y0 + 1):
        rows[y][x0] = 0
    for x in range(x0, w - 8):
        rows[y0][x] = 0
    v = 0.0
    for x in range(x0 + 1, w - 8):
        f = (x - x0) / (w - x0)
        base = 0.15 + 0.8 * math.exp(-4.0 * f)
        v = 0.7 * v + 0.3 * rng.gauss(0, 0.035)
        y = int(10 + (1 - min(max(base + v, 0), 1)) * (y0 - 12))
        for dy in (0, 1):
            if 0 <= y + dy < h:
                rows[y + dy][x] = 40
    raw = b"".join(b"\x00" + bytes(r) for r in rows)

    def chunk(t, data):
        return struct.pack(">I", len(data)) + t + data + struct.pack(">I", zlib.crc32(t + data) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
            + chunk(b"tEXt", b"Software\x00matplotlib version3.8.2, https://matplotlib.org/")
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def pt_bytes(rng, n=None):
    n = n or rng.randrange(2500, 7000)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        items = [("archive/data.pkl", b"\x80\x02}q\x00(X\x05\x00\x00\x00modelq\x01" + rng.randbytes(300)),
                 ("archive/byteorder", b"little"),
                 ("archive/data/0", rng.randbytes(n)),
                 ("archive/data/1", rng.randbytes(n // 3)),
                 ("archive/version", b"3\n"),
                 ("archive/.data/serialization_id", str(rng.randrange(10**18, 10**19)).encode())]
        for fn, data in items:
            z.writestr(zipfile.ZipInfo(fn, date_time=(1980, 1, 1, 0, 0, 0)), data)
    return buf.getvalue()


def core_bytes(rng, n=None):
    n = n or rng.randrange(4000, 12000)
    hdr = b"\x7fELF" + bytes([2, 1, 1, 0]) + b"\x00" * 8
    hdr += struct.pack("<HHIQQQIHHHHHH", 4, 62, 1, 0, 64, 0, 0, 64, 56, rng.randrange(20, 60), 0, 0, 0)
    return hdr + rng.randbytes(n)


def tfevents_bytes(rng, n=5):
    out = b""
    for _ in range(n):
        data = b"\t" + rng.randbytes(8) + b"\x1a" + rng.randbytes(rng.randrange(20, 90))
        out += struct.pack("<Q", len(data)) + rng.randbytes(4) + data + rng.randbytes(4)
    return out


def gz(data):
    return gzip.compress(data, compresslevel=6, mtime=0)


def tar_gz(members, mtime):
    """members: list of (path, bytes)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tf:
        seen = []
        for path, data in members:
            parts = path.split("/")
            for i in range(1, len(parts)):
                d = "/".join(parts[:i])
                if d not in seen:
                    seen.append(d)
                    ti = tarfile.TarInfo(d)
                    ti.type = tarfile.DIRTYPE
                    ti.mode = 0o755
                    ti.mtime = mtime
                    ti.uname = ti.gname = "root"
                    tf.addfile(ti)
            ti = tarfile.TarInfo(path)
            ti.size = len(data)
            ti.mode = 0o644
            ti.mtime = mtime
            ti.uname = ti.gname = "root"
            tf.addfile(ti, io.BytesIO(data))
    return gz(buf.getvalue())


def zip_bytes(members, when):
    buf = io.BytesIO()
    dt = (when.year, when.month, when.day, when.hour, when.minute, when.second // 2 * 2)
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in members:
            zi = zipfile.ZipInfo(path, date_time=dt)
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
    return buf.getvalue()


# ---------------------------------------------------------------- encodings
def ps_utf16(text, wrap_first_err=None):
    """What Windows PowerShell 5.1 '>' writes: UTF-16LE + BOM, CRLF; bytes that came
    through a native command are decoded with the OEM code page (cp437), so UTF-8
    sequences turn into mojibake; bare CR from progress bars become line breaks."""
    raw = text.encode("utf-8").decode("cp437")
    raw = raw.replace("\r\n", "\n").replace("\r", "\n")
    lines = raw.split("\n")
    if raw.endswith("\n"):
        lines = lines[:-1]
    return b"\xff\xfe" + ("\r\n".join(lines) + "\r\n").encode("utf-16-le")


def mixed_latin1(lines_with_flag):
    out = []
    for text, latin in lines_with_flag:
        out.append(text.encode("latin-1", "replace") if latin else text.encode("utf-8"))
    return b"".join(out)


# ---------------------------------------------------------------- job model
class Job:
    def __init__(self, rng, layout, cause, idx, slim=0):
        self.rng = rng
        self.layout = layout
        self.cause = cause
        self.idx = idx
        self.slim = slim
        self.healthy = cause is None
        (self.torch, self.nccl, self.style, self.pyver, self.cuda) = pick(rng, TORCH)
        self.tv = tuple(int(x) for x in self.torch.split(".")[:2])
        nn = {"rotated_tee": pick(rng, [1, 1, 2]), "powershell_paste": pick(rng, [1, 2, 2, 3]),
              "node_bundles": pick(rng, [2, 2, 3, 4]), "k8s_pods": pick(rng, [2, 3, 4]),
              "deepspeed_pdsh": pick(rng, [2, 2, 3])}[layout]
        if cause in ("network",):
            nn = max(nn, 2)
        if slim >= 2:
            nn = min(nn, 2)
        self.nnodes = nn
        gpn = pick(rng, [2, 4, 8]) if layout == "k8s_pods" else pick(rng, [8, 8, 4])
        if slim >= 2:
            gpn = min(gpn, 4)
        self.gpn = gpn
        self.world = nn * gpn
        gm = pick(rng, GPU_MODELS)
        self.gpu_name, buses, self.gpu_mib, self.gpu_gib, self.driver = gm
        self.buses = buses[:gpn]
        self.kernel = pick(rng, KERNELS)
        self.user = pick(rng, USERS)
        self.proj = pick(rng, PROJECTS)
        self.jobid = rng.randrange(400000, 9800000)
        self.ps_variant = pick(rng, ["ssh", "slurm"]) if layout == "powershell_paste" else None
        self.slurm = layout == "node_bundles" or self.ps_variant == "slurm"
        self.k8s = layout == "k8s_pods"
        self.launcher = "deepspeed" if layout == "deepspeed_pdsh" else "torchrun"
        self.kjob = pick(rng, ["llama-ft", "pt-7b", "mm-train", "bert-pt"]) + "-" + "%04x" % rng.randrange(65536)
        self.hosts, self.machines = self._hosts(rng)
        base_ip = "10.%d.%d." % (rng.randrange(0, 250), rng.randrange(0, 250))
        o = rng.randrange(10, 200)
        self.ips = [base_ip + str(o + i * pick(rng, [1, 1, 2])) for i in range(nn)]
        self.skew = [rng.uniform(-2.5, 2.5)] + [rng.uniform(-20, 20) * pick(rng, [0.1, 1, 1, 3]) for _ in range(nn - 1)]
        self.ctrl_skew = rng.uniform(-1.5, 1.5)
        self.t0 = _dt.datetime(pick(rng, [2023, 2024, 2024, 2025]), rng.randrange(1, 13), rng.randrange(1, 28),
                               rng.randrange(0, 24), rng.randrange(0, 60), rng.randrange(0, 60),
                               rng.randrange(0, 1000000))
        self.uptime0 = [rng.uniform(3e4, 4e6) for _ in range(nn)]
        self.agent_pid = [rng.randrange(2000, 3900000) for _ in range(nn)]
        self.pid = {}
        for n in range(nn):
            b = self.agent_pid[n] + rng.randrange(40, 400)
            for l in range(gpn):
                self.pid[n * gpn + l] = b
                b += pick(rng, [1, 1, 1, 2])
        env = pick(rng, ["docker", "conda", "venv"])
        py = "python" + self.pyver
        if env == "docker":
            self.site = "/usr/local/lib/%s/dist-packages" % py
            self.python = "/usr/bin/python3"
            self.torchrun_bin = "/usr/local/bin/torchrun"
        elif env == "conda":
            self.site = "/opt/conda/lib/%s/site-packages" % py
            self.python = "/opt/conda/bin/python"
            self.torchrun_bin = "/opt/conda/bin/torchrun"
        else:
            self.site = "/home/%s/venvs/%s/lib/%s/site-packages" % (self.user, self.proj, py)
            self.python = "/home/%s/venvs/%s/bin/python" % (self.user, self.proj)
            self.torchrun_bin = "/home/%s/venvs/%s/bin/torchrun" % (self.user, self.proj)
        if self.k8s:
            self.workdir = "/workspace/" + self.proj
        elif self.slurm:
            self.workdir = "/scratch/%s/%s" % (self.user, self.proj)
        else:
            self.workdir = "/home/%s/%s" % (self.user, self.proj)
        self.script = pick(rng, ["train.py", "pretrain.py", "finetune.py", "main.py"])
        self.script_path = self.workdir + "/" + self.script
        self.timeout_ms = pick(rng, [600000, 600000, 1800000])
        self.step_time = rng.uniform(0.35, 1.6)
        self.t_train0 = rng.uniform(55, 150)
        self.total_steps = pick(rng, [8000, 20000, 30000, 50000, 100000])
        self.fail_step = rng.randrange(350, 4200)
        self.log_every = pick(rng, [10, 20, 25, 50])
        while self.fail_step / self.log_every > 180:
            self.log_every *= 2
        self.t_fail = self.t_step(self.fail_step)
        self.nccl_debug = chance(rng, 0.5) and slim < 2
        self.parallel = "zero" if self.launcher == "deepspeed" else pick(rng, ["ddp", "ddp", "fsdp"])
        self.fmt = pick(rng, ["custom", "hf", "megatron"]) if self.launcher == "torchrun" else "ds"
        self.tqdm = (self.fmt in ("hf", "custom") and chance(rng, 0.75)) or layout == "rotated_tee"
        self.tqdm_budget = [2600, 900, 300, 120][min(slim, 3)]
        self.huge_line = chance(rng, 0.45)
        self.huge_kb = [rng.randrange(120, 330), 60, 20, 0][min(slim, 3)]
        self.ansi = chance(rng, 0.35 if layout != "k8s_pods" else 0.7)
        self.monitor = 5.0 if self.style == "old" else pick(rng, [5.0, 0.1])
        self.colls_per_step = {"ddp": pick(rng, [2, 3, 4]), "fsdp": pick(rng, [48, 66, 98]), "zero": pick(rng, [6, 12])}[self.parallel]
        self.numel = {"ddp": pick(rng, [6553600, 26214400, 13107200]),
                      "fsdp": pick(rng, [544997376, 136249344, 68124672]),
                      "zero": pick(rng, [500000000, 200000000])}[self.parallel]
        self.optype = {"ddp": "ALLREDUCE", "fsdp": "_ALLGATHER_BASE", "zero": "_REDUCE_SCATTER_BASE"}[self.parallel]
        self.kill_on_bad_exit = (self.slurm and chance(rng, 0.6)) or self.k8s
        self.record = chance(rng, 0.35)
        self.per_rank_timing = chance(rng, 0.3) or cause == "straggler"
        self.timing_every = pick(rng, [100, 200, 250])
        while self.fail_step / self.timing_every > 12:
            self.timing_every *= 2
        self.lr = pick(rng, [3e-4, 1.5e-4, 2e-5, 1e-4, 6e-4])
        self.mbs = pick(rng, [1, 2, 4, 8, 16])
        self.seq = pick(rng, [2048, 4096, 1024, 8192])
        self.ln = {"mod": rng.randrange(380, 520), "main": rng.randrange(300, 370), "train": rng.randrange(180, 290)}
        self.runid = "%x" % rng.randrange(16**7, 16**8)

    # -- naming
    def _hosts(self, rng):
        nn = self.nnodes
        if self.layout == "rotated_tee":
            pat = pick(rng, ["dgx-a100-%02d", "lambda-h100-%d", "gpu%02d", "mlbox-%d"])
        elif self.layout in ("powershell_paste", "node_bundles"):
            pat = pick(rng, ["gpu-node-%03d", "hgx%03d", "a100-%03d", "nid%06d", "dgx%03d"])
        elif self.layout == "deepspeed_pdsh":
            pat = pick(rng, ["node%d", "worker-%d", "gpu%d", "trn-%02d"])
        else:
            pat = None
        if pat:
            start = rng.randrange(1, 90)
            hosts = []
            cur = start
            for _ in range(nn):
                hosts.append(pat % cur)
                cur += pick(rng, [1, 1, 1, 2, 5])
            return hosts, list(hosts)
        pods = [self.kjob + "-master-0"] + ["%s-worker-%d" % (self.kjob, i) for i in range(nn - 1)]
        if chance(rng, 0.5):
            h = "%08x" % rng.randrange(16**8)
            machines = ["gke-train-gpu-pool-%s-%s" % (h, "".join(pick(rng, "abcdefghjkmnpqrstvwxz0123456789") for _ in range(4))) for _ in range(nn)]
        else:
            machines = ["ip-10-%d-%d-%d.ec2.internal" % (rng.randrange(0, 8), rng.randrange(0, 255), rng.randrange(2, 254)) for _ in range(nn)]
        return pods, machines

    def node_of(self, r):
        return r // self.gpn

    def local_of(self, r):
        return r % self.gpn

    def ranks_on(self, n):
        return list(range(n * self.gpn, (n + 1) * self.gpn))

    def t_step(self, step):
        return self.t_train0 + step * self.step_time + 0.004 * math.sin(step * 1.7)

    def seq_at(self, step):
        return 3 + step * self.colls_per_step

    def local(self, node, t):
        if node is None:
            return self.t0 + _dt.timedelta(seconds=t + self.ctrl_skew)
        return self.t0 + _dt.timedelta(seconds=t + self.skew[node])

    def uptime(self, node, t):
        return self.uptime0[node] + t

    def rp(self, r):
        """rank prefix used by torch >= 2.2 on tracebacks / C++ logs."""
        return "[rank%d]:" % r if self.style in ("mid", "new") else ""

    def busid(self, r):
        return "0000:%s:00" % self.buses[self.local_of(r)]

    def stream_node(self, s):
        k = s[0]
        if k in ("o", "e"):
            return self.node_of(s[1])
        if k in ("a", "k", "s"):
            return s[1]
        if k == "r":
            return 0
        return None


class Sim:
    def __init__(self, job):
        self.job = job
        self.ev = []

    def add(self, t, stream, text, key=False):
        self.ev.append((t, len(self.ev), stream, text, key))

    def lines(self, t, stream, lines, key=False, dt=0.00002):
        for i, l in enumerate(lines):
            self.add(t + i * dt, stream, l, key)

    def render(self, streams, t_min=None, t_max=None):
        want = {}
        for s in streams:
            want[s] = True
        sel = [e for e in self.ev if e[2] in want and (t_min is None or e[0] >= t_min) and (t_max is None or e[0] < t_max)]
        sel.sort(key=lambda e: (e[0], e[1]))
        out = []
        for t, _, s, text, key in sel:
            if callable(text):
                text = text(self.job.local(self.job.stream_node(s), t))
            out.append((t, s, text, key))
        return out


def join_items(items, label=None, keep_cr=True):
    """Join rendered items into text; items whose text starts with '\\r' are progress
    bar refreshes written without newline (later lines get glued to them)."""
    buf = []
    open_bar = False
    for t, s, text, key in items:
        pre = label(s) if label else ""
        if text.startswith("\r"):
            if not keep_cr:
                continue
            buf.append(text if open_bar else pre + text)
            open_bar = True
        else:
            if open_bar:
                buf.append(text + "\n")
                open_bar = False
            else:
                buf.append(pre + text + "\n")
    if open_bar:
        buf.append("\n")
    return "".join(buf)


def node_streams(job, n, agent=True, slurm=False):
    s = []
    if agent:
        s.append(("a", n))
    if slurm:
        s.append(("s", n))
    for r in job.ranks_on(n):
        s += [("o", r), ("e", r)]
    return s


class Extras:
    def __init__(self):
        self.nvsmi = {}        # node -> text (table)
        self.nvsmi_q = {}      # node -> text (-q)
        self.pyspy = {}        # rank -> text
        self.cores = []        # (node, pid, comm)
        self.sched = None      # dict(kind=..., node=...)
        self.pod_state = {}    # node -> dict
        self.fabric = {}       # node -> text
        self.reboot = {}       # node -> t of hard reboot
        self.lost_tail = {}    # rank -> t after which output lost (NULs)
        self.key_nodes = []    # nodes whose kernel log holds decisive evidence
        self.key_ranks = []    # ranks whose own output holds decisive evidence
        self.truth_rank = None
        self.truth_node = None
        self.notes = []
        self.t_end = None
        self.err_tb = {}       # rank -> traceback lines (for @record summaries)
        self.nodefail = None
        self.oom_nodes = []
        self.still_running = False
        self.cancel_by_user = None
        self.quirks = []


# ---------------------------------------------------------------- text fragments
def cpp(job, r, level, where, msg):
    """A c10 / ProcessGroupNCCL log line in the style of the torch version."""
    if job.style == "old":
        return "[%s %s] %s" % (level, where, msg)
    if job.style == "mid":
        return "[rank%d]:[%s %s] %s" % (r, level, where, msg)
    return lambda d: "[rank%d]:[%s %s] %s" % (r, d_glog(level, d, nine=True), where, msg)


def pylines(job, r, lines):
    p = job.rp(r)
    if not p:
        return list(lines)
    return [p + " " + l for l in lines]


def caret(job, code):
    """Python 3.11+ position markers; omitted when they would span the whole line."""
    if job.pyver not in ("3.11", "3.12") or "(" not in code or code.startswith(("raise", "for ", "with ")):
        return None
    if code.startswith("return "):
        off = len("return ")
    elif " = " in code and code.index(" = ") < code.index("("):
        off = code.index(" = ") + 3
    else:
        return None
    end = code.rfind(")")
    if end < off:
        return None
    return " " * (4 + off) + "^" * (end + 1 - off)


def traceback(job, frames, exc_lines):
    L = ["Traceback (most recent call last):"]
    for f, ln, fn, code in frames:
        L.append('  File "%s", line %d, in %s' % (f, ln, fn))
        if code:
            L.append("    " + code)
            c = caret(job, code)
            if c and (ln % 2 == 0):
                L.append(c)
    return L + list(exc_lines)


def f_module(job):
    s = job.site
    a = {"old": (1501, 1510), "mid": (1532, 1541), "new": (1736, 1747)}[job.style]
    if job.style == "old":
        return [(s + "/torch/nn/modules/module.py", a[0], "_call_impl", "return forward_call(*args, **kwargs)")]
    return [(s + "/torch/nn/modules/module.py", a[0], "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
            (s + "/torch/nn/modules/module.py", a[1], "_call_impl", "return forward_call(*args, **kwargs)")]


def f_user(job, where):
    S = job.script_path
    ln = job.ln
    fr = [(S, ln["mod"], "<module>", "main()"),
          (S, ln["main"], "main", "train(cfg, model, optimizer, train_loader, scheduler)")]
    s = job.site
    if where == "fwd":
        fr.append((S, ln["train"] + 14, "train", "outputs = model(**batch)"))
        fr += f_module(job)
        if job.parallel == "fsdp":
            fr.append((s + "/torch/distributed/fsdp/fully_sharded_data_parallel.py", 849, "forward", "output = self._fsdp_wrapped_module(*args, **kwargs)"))
        else:
            fr.append((s + "/torch/nn/parallel/distributed.py", 1636 if job.style == "new" else 1519, "forward", "else self._run_ddp_forward(*inputs, **kwargs)"))
            fr.append((s + "/torch/nn/parallel/distributed.py", 1454 if job.style == "new" else 1355, "_run_ddp_forward", "return self.module(*inputs, **kwargs)  # type: ignore[index]"))
        fr += f_module(job)
        fr.append((s + "/transformers/models/llama/modeling_llama.py", 1189, "forward", "outputs = self.model("))
        fr += f_module(job)
        fr.append((s + "/transformers/models/llama/modeling_llama.py", 1001, "forward", "layer_outputs = decoder_layer("))
    elif where == "bwd":
        fr.append((S, ln["train"] + 19, "train", "loss.backward()"))
        fr.append((s + "/torch/_tensor.py", 581 if job.style == "new" else 492, "backward", "torch.autograd.backward("))
        fr.append((s + "/torch/autograd/__init__.py", 347 if job.style == "new" else 251, "backward", "_engine_run_backward(" if job.style == "new" else "Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"))
        if job.style == "new":
            fr.append((s + "/torch/autograd/graph.py", 825, "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"))
    elif where == "data":
        fr.append((S, ln["train"], "train", "for step, batch in enumerate(train_loader, start=start_step):"))
        fr.append((s + "/torch/utils/data/dataloader.py", 701 if job.style == "new" else 633, "__next__", "data = self._next_data()"))
    elif where == "allreduce":
        fr.append((S, ln["train"] + 31, "train", "dist.all_reduce(loss_t, op=dist.ReduceOp.AVG)"))
        fr.append((s + "/torch/distributed/c10d_logger.py", 83 if job.style == "new" else 47, "wrapper", "return func(*args, **kwargs)"))
        fr.append((s + "/torch/distributed/distributed_c10d.py", 2501 if job.style == "new" else 2050, "all_reduce", "work = group.allreduce([tensor], opts)"))
    elif where == "opt":
        fr.append((S, ln["train"] + 23, "train", "optimizer.step()"))
        fr.append((s + "/torch/optim/optimizer.py", 487 if job.style == "new" else 373, "wrapper", "out = func(*args, **kwargs)"))
        fr.append((s + "/torch/optim/adamw.py", 220 if job.style == "new" else 184, "step", "adamw("))
    elif where == "save":
        fr.append((S, ln["train"] + 44, "train", "save_checkpoint(model, optimizer, step, cfg.output_dir)"))
        fr.append((S, 88, "save_checkpoint", "torch.save(state, path)"))
        fr.append((s + "/torch/serialization.py", 850 if job.style == "new" else 618, "save", "with _open_zipfile_writer(f) as opened_zipfile:"))
        fr.append((s + "/torch/serialization.py", 689 if job.style == "new" else 466, "__exit__", "self.file_like.write_end_of_file()"))
    elif where == "step":
        fr.append((S, ln["train"] + 8, "train", "batch = {k: v.to(device, non_blocking=True) for k, v in batch.items()}"))
    return fr


def cuda_err_lines(job, msg):
    L = ["RuntimeError: CUDA error: " + msg,
         "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
         "For debugging consider passing CUDA_LAUNCH_BLOCKING=1"]
    if job.tv >= (2, 1):
        L[-1] += "" if job.tv >= (2, 2) else "."
        L.append("Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.")
    L.append("")
    return L


def cpp_frames(job, rng, what="checkTimeout", n=6):
    lib = job.site + "/torch/lib/"
    base = rng.randrange(0x7f0000000000, 0x7fff00000000) & ~0xfff
    names = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "libc10.so"),
             ("c10d::ProcessGroupNCCL::WorkNCCL::%s(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2" % what, "libtorch_cuda.so"),
             ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x233", "libtorch_cuda.so"),
             ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", "libtorch_cuda.so"),
             ("<unknown function> + 0xdc253", "/lib/x86_64-linux-gnu/libstdc++.so.6"),
             ("<unknown function> + 0x94ac3", "/lib/x86_64-linux-gnu/libc.so.6"),
             ("<unknown function> + 0x126850", "/lib/x86_64-linux-gnu/libc.so.6")]
    out = []
    for i, (fn, so) in enumerate(names[:n + 1]):
        path = so if so.startswith("/") else lib + so
        out.append("frame #%d: %s (0x%x in %s)" % (i, fn, base + rng.randrange(0x1000, 0x900000), path))
    return out


def watchdog_timeout_lines(job, rng, r, seq, op, numel, ran_ms):
    """Lines a rank prints when its NCCL watchdog times out (then SIGABRT)."""
    to = job.timeout_ms
    if job.tv >= (2, 1):
        work = "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (seq, op, numel, numel if op == "ALLREDUCE" or op == "BROADCAST" else numel * (job.world if op.startswith("_ALLGATHER") else 1), to)
    else:
        work = "WorkNCCL(SeqNum=%d, OpType=%s, Timeout(ms)=%d)" % (seq, op, to)
    msg = "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (r, work, ran_ms)
    L = []
    if job.style == "old":
        L.append(cpp(job, r, "E", "ProcessGroupNCCL.cpp:475", msg))
        L.append(cpp(job, r, "E", "ProcessGroupNCCL.cpp:489", "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data."))
        L.append(cpp(job, r, "E", "ProcessGroupNCCL.cpp:495", "To avoid data inconsistency, we are taking the entire process down."))
        L.append(cpp(job, r, "E", "ProcessGroupNCCL.cpp:916", "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, msg)))
        L += ["terminate called after throwing an instance of 'std::runtime_error'",
              "  what():  [Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, msg)]
        return L
    if job.style == "mid":
        L.append(cpp(job, r, "E", "ProcessGroupNCCL.cpp:563", msg))
        L.append(cpp(job, r, "E", "ProcessGroupNCCL.cpp:1537", "[PG 0 Rank %d] Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (r, seq, seq + rng.randrange(0, 3), seq - 1)))
        L.append(cpp(job, r, "E", "ProcessGroupNCCL.cpp:577", "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % r))
        L.append(cpp(job, r, "E", "ProcessGroupNCCL.cpp:583", "[Rank %d] To avoid data inconsistency, we are taking the entire process down." % r))
        L.append(cpp(job, r, "E", "ProcessGroupNCCL.cpp:1414", "[PG 0 Rank %d] Process group watchdog thread terminated with exception: %s" % (r, msg)))
        what = "[PG 0 Rank %d] Process group watchdog thread terminated with exception: %s" % (r, msg)
        where = "ProcessGroupNCCL.cpp:565"
    else:
        pg = "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % r if job.tv >= (2, 5) else "[PG 0 Rank %d]" % r
        L.append(cpp(job, r, "E", "ProcessGroupNCCL.cpp:616", msg))
        L.append(cpp(job, r, "E", "ProcessGroupNCCL.cpp:1785", "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pg, seq, seq + rng.randrange(0, 4), seq - 1)))
        L.append(cpp(job, r, "E", "ProcessGroupNCCL.cpp:630", "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % r))
        L.append(cpp(job, r, "E", "ProcessGroupNCCL.cpp:636", "[Rank %d] To avoid data inconsistency, we are taking the entire process down." % r))
        L.append(cpp(job, r, "E", "ProcessGroupNCCL.cpp:1595", "%s Process group watchdog thread terminated with exception: %s" % (pg, msg)))
        what = "%s Process group watchdog thread terminated with exception: %s" % (pg, msg)
        where = "ProcessGroupNCCL.cpp:618"
    L += ["terminate called after throwing an instance of 'c10::DistBackendError'",
          "  what():  " + what,
          "Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/%s (most recent call first):" % where]
    L += cpp_frames(job, rng)
    L.append("")
    return L


def watchdog_async_lines(job, rng, r, err):
    """Watchdog thread catching an async NCCL/CUDA error -> terminate -> SIGABRT."""
    L = []
    if job.style == "old":
        L.append(cpp(job, r, "E", "ProcessGroupNCCL.cpp:916", "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, err[0])))
        L += ["terminate called after throwing an instance of 'std::runtime_error'", "  what():  [Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, err[0])]
        L += err[1:]
        return L
    pg = ("[PG ID 0 PG GUID 0(default_pg) Rank %d]" % r) if job.tv >= (2, 5) else "[PG 0 Rank %d]" % r
    L.append(cpp(job, r, "E", "ProcessGroupNCCL.cpp:1595" if job.style == "new" else "ProcessGroupNCCL.cpp:1316", "%s Process group watchdog thread terminated with exception: %s" % (pg, err[0])))
    L += ["terminate called after throwing an instance of 'c10::DistBackendError'",
          "  what():  %s Process group watchdog thread terminated with exception: %s" % (pg, err[0])]
    L += err[1:]
    L.append("Exception raised from checkForNCCLErrors at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % (1812 if job.style == "new" else 1380))
    L += cpp_frames(job, rng, "checkAndSetException", 5)
    L.append("")
    return L


def nccl_tag(job, r, tid_off=0):
    n = job.node_of(r)
    return "%s:%d:%d [%d]" % (job.hosts[n], job.pid[r], job.pid[r] + tid_off, job.local_of(r))


def remote_err_block(job, r, last_error):
    ncclv = job.nccl
    if job.tv >= (2, 2):
        head = "NCCL error: remote process exited or there was a network error, NCCL version %s" % ncclv
    else:
        head = "NCCL error: remote process exited or there was a network error, NCCL version %s" % ncclv
    return [head, "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
            "Last error:", last_error]


# ---------------------------------------------------------------- normal run
WARNINGS = [
    ("{site}/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.5 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants.", "  return fn(*args, **kwargs)"),
    ("{site}/transformers/training_args.py:1525: FutureWarning: `evaluation_strategy` is deprecated and will be removed in version 4.46 of \U0001f917 Transformers. Use `eval_strategy` instead", "  warnings.warn("),
    ("{site}/torch/_utils.py:831: UserWarning: TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class. This should only matter to you if you are using storages directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()", "  return self.fget.__get__(instance, owner)()"),
    ("{site}/torch/distributed/fsdp/_init_utils.py:440: UserWarning: FSDP is switching to use `NO_SHARD` instead of ShardingStrategy.FULL_SHARD since the world size is 1.", "  warnings.warn("),
    ("{workdir}/{script}:97: FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', args...)` instead.", "  scaler = torch.cuda.amp.GradScaler(enabled=cfg.fp16)"),
    ("{site}/torch/nn/modules/module.py:1747: FutureWarning: `torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', args...)` instead.", "  return forward_call(*args, **kwargs)"),
]


def emit_startup(job, sim):
    rng = job.rng
    ws = [w for w in WARNINGS if job.parallel == "fsdp" or "FSDP" not in w[0]]
    ws = [ws[i] for i in sorted(rng.sample(range(len(ws)), 2))]
    for n in range(job.nnodes):
        if job.launcher == "torchrun" and job.gpn > 1:
            t = 0.4 + rng.random()
            if job.style == "old":
                sim.lines(t, ("a", n), ["WARNING:torch.distributed.run:", "*****************************************",
                                        "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
                                        "*****************************************"])
            elif job.style == "mid":
                sim.lines(t, ("a", n), [lambda d: "[%s] torch.distributed.run: [WARNING] " % d_py(d), lambda d: "[%s] torch.distributed.run: [WARNING] *****************************************" % d_py(d),
                                        lambda d: "[%s] torch.distributed.run: [WARNING] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. " % d_py(d),
                                        lambda d: "[%s] torch.distributed.run: [WARNING] *****************************************" % d_py(d)])
            else:
                ap = job.agent_pid[n]
                msgs = ["", "*****************************************",
                        "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
                        "*****************************************"]
                sim.lines(t, ("a", n), [(lambda m, ap: (lambda d: "W%s %d torch/distributed/run.py:793] %s" % (d.strftime("%m%d %H:%M:%S.") + "%06d" % (d.microsecond // 1000 * 1000), ap, m)))(m, ap) for m in msgs])
            if job.style != "old" and chance(rng, 0.6):
                sim.add(t + 0.3, ("a", n), c10d_warn(job, "socket.cpp:697", "[c10d] The server socket cannot be initialized on [::]:29500 (errno: 97 - Address family not supported by protocol)."))
    for r in range(job.world):
        t = 6 + rng.random() * 8
        for w1, w2 in ws:
            sim.lines(t, ("e", r), [w1.format(site=job.site, workdir=job.workdir, script=job.script), w2])
            t += 0.2 + rng.random()
    # rank 0 banner / config
    t = 3.0 + rng.random()
    out0 = ("o", 0)
    sim.add(t, out0, logf(job, 0, "INFO", "Starting run %s  (torch %s, cuda %s, nccl %s)" % (job.runid, job.torch, job.cuda, job.nccl)))
    sim.add(t + 0.01, out0, logf(job, 0, "INFO", "world_size=%d nodes=%d gpus_per_node=%d master=%s:29500" % (job.world, job.nnodes, job.gpn, job.ips[0])))
    if job.huge_line and job.huge_kb > 0:
        sim.add(t + 0.05, out0, "config: " + huge_config(job))
    else:
        cfg = {"model": "llama-%s" % pick(rng, ["7b", "13b", "1.3b"]), "micro_batch_size": job.mbs, "seq_len": job.seq,
               "lr": job.lr, "warmup_steps": 2000, "max_steps": job.total_steps, "bf16": True,
               "data_path": "%s/data/tokenized" % job.workdir, "save_every": 1000}
        sim.add(t + 0.05, out0, "config: " + json.dumps(cfg))
    # NCCL init
    if job.nccl_debug:
        for r in range(job.world):
            tt = 28 + rng.random() * 6 + job.node_of(r) * 0.05
            tag = nccl_tag(job, r)
            tagt = nccl_tag(job, r, rng.randrange(40, 400))
            L = []
            if r == 0:
                L.append("%s NCCL INFO NCCL version %s+cuda%s" % (tag, job.nccl, job.cuda))
            n = job.node_of(r)
            iface = "eth0" if not job.k8s else "eth0"
            L += ["%s NCCL INFO cudaDriverVersion %d" % (tag, {"535.161.08": 12020, "550.54.15": 12040, "525.125.06": 12000, "560.35.03": 12060}[job.driver]),
                  "%s NCCL INFO Bootstrap : Using %s:%s<0>" % (tag, iface, job.ips[n]),
                  "%s NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation" % tag,
                  "%s NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB ; OOB %s:%s<0>" % (tagt, iface, job.ips[n]),
                  "%s NCCL INFO Using network IB" % tagt,
                  "%s NCCL INFO comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId 0x%x - Init START" % (tagt, 0x55d000000000 + r * 4096, r, job.world, job.local_of(r), job.local_of(r), job.buses[job.local_of(r)], 0x8d1f2c3b4a5e6f70),
                  "%s NCCL INFO Channel 00/0 : %d[%d] -> %d[%d] via P2P/IPC/read" % (tagt, r, job.local_of(r), (r + 1) % job.world, (r + 1) % job.gpn),
                  "%s NCCL INFO Connected all rings" % tagt, "%s NCCL INFO Connected all trees" % tagt,
                  "%s NCCL INFO threadThresholds 8/8/64 | %d/8/64 | 512 | 512" % (tagt, job.world * 8),
                  "%s NCCL INFO comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId 0x%x - Init COMPLETE" % (tagt, 0x55d000000000 + r * 4096, r, job.world, job.local_of(r), job.local_of(r), job.buses[job.local_of(r)], 0x8d1f2c3b4a5e6f70)]
            sim.lines(tt, ("o", r), L, dt=0.01)


def c10d_warn(job, where, msg, level="W"):
    if job.style == "new":
        return lambda d: "[%s %s] %s" % (d_glog(level, d, nine=True), where, msg)
    return "[%s %s] %s" % (level, where, msg)


def logf(job, r, level, msg):
    """The training script's logging format (ANSI-coloured when job.ansi)."""
    if job.ansi:
        col = {"INFO": "\x1b[32m", "WARNING": "\x1b[33m", "ERROR": "\x1b[31m"}[level]
        return lambda d: "\x1b[32m%s\x1b[0m | %s%-8s\x1b[0m | \x1b[36m%s\x1b[0m:\x1b[36mtrain\x1b[0m:\x1b[36m%d\x1b[0m - %s%s\x1b[0m" % (
            d.strftime("%Y-%m-%d %H:%M:%S.") + "%03d" % (d.microsecond // 1000), col, level, job.script[:-3], 100 + len(msg) % 300, "\x1b[1m" if level != "INFO" else "", msg)
    return lambda d: "[%s][%s][%s] - %s" % (d_py(d), job.script[:-3], level, msg)


def huge_config(job):
    rng = job.rng
    target = job.huge_kb * 1024
    files = []
    size = 0
    i = rng.randrange(0, 500)
    bucket = pick(rng, ["s3://corp-ml-data", "gs://team-llm-shards", "/lustre/datasets"])
    while size < target:
        f = "%s/%s/v3/shard-%06d.tar" % (bucket, pick(rng, ["web", "code", "books", "wiki"]), i)
        files.append(f)
        size += len(f) + 4
        i += rng.randrange(1, 4)
    cfg = {"run_name": job.runid, "model": {"arch": "llama", "hidden": 4096, "layers": 32, "heads": 32, "vocab": 32000},
           "optim": {"lr": job.lr, "betas": [0.9, 0.95], "wd": 0.1}, "batch": {"micro": job.mbs, "seq_len": job.seq},
           "data": {"train_files": files, "shuffle_buffer": 10000}}
    return json.dumps(cfg, separators=(",", ":"))


def step_line(job, step, loss, dt_step, tok_s):
    lr = job.lr * min(1.0, step / 2000.0)
    if job.fmt == "megatron":
        return lambda d: " [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | learning rate: %.3E | global batch size: %5d | lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f | number of skipped iterations:   0 | number of nan iterations:   0 |" % (
            d.strftime("%Y-%m-%d %H:%M:%S"), step, job.total_steps, step * job.mbs * job.world, dt_step * 1000, lr, job.mbs * job.world, loss, 0.6 + (step % 7) * 0.05)
    if job.fmt == "hf":
        return "{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %.3e, 'epoch': %.2f}" % (loss, 0.5 + (step % 11) * 0.07, lr, step / 9000.0)
    if job.fmt == "ds":
        return lambda d: "[%s] [INFO] [logging.py:96:log_dist] [Rank 0] step=%d, skipped=0, lr=[%.6e], mom=[(0.9, 0.95)]" % (d_py(d), step, lr)
    return logf(job, 0, "INFO", "step %d/%d | loss %.4f | lr %.3e | grad_norm %.3f | %d tok/s | %.1f ms/step" % (step, job.total_steps, loss, lr, 0.5 + (step % 13) * 0.05, tok_s, dt_step * 1000))


def tqdm_bar(n, total, elapsed, rate, desc="", post=""):
    pct = int(100 * n / total)
    frac = n / total * 10
    full = int(frac)
    parts = " \u258f\u258e\u258d\u258c\u258b\u258a\u2589"
    bar = "\u2588" * full
    if full < 10:
        bar += parts[int((frac - full) * 8)] + " " * (9 - full)
    rem = (total - n) / rate if rate > 0 else 0
    return "\r%s%3d%%|%s| %d/%d [%s<%s, %5.2fit/s%s]" % (desc, pct, bar, n, total, hms(elapsed), hms(rem), rate, post)


def emit_training(job, sim, last_step, slow=None):
    """Rank-0 progress up to last_step (exclusive); slow = (onset_step, rank_or_ranks, factor)."""
    rng = job.rng
    loss = rng.uniform(2.2, 3.4)
    for step in range(job.log_every, last_step, job.log_every):
        t = job.t_step(step)
        dstep = job.step_time
        if slow and step >= slow[0]:
            dstep = job.step_time * slow[2]
            t = job.t_step(slow[0]) + (step - slow[0]) * dstep
        loss = max(0.9, loss - rng.uniform(0, 0.02) + rng.gauss(0, 0.01))
        tok = int(job.mbs * job.seq * job.world / dstep)
        sim.add(t, ("o", 0), step_line(job, step, loss, dstep, tok))
        if job.launcher == "deepspeed" and step % (job.log_every * 2) == 0:
            sim.add(t + 0.001, ("o", 0), (lambda ss, dd: (lambda d: "[%s] [INFO] [timer.py:260:stop] epoch=0/micro_step=%d/global_step=%d, RunningAvgSamplesPerSec=%.2f, CurrSamplesPerSec=%.2f, MemAllocated=%.1fGB, MaxMemAllocated=%.1fGB" % (d_py(d), ss, ss, job.mbs * job.world / dd, job.mbs * job.world / dd * 1.01, job.gpu_gib * 0.31, job.gpu_gib * 0.62)))(step, dstep))
    if job.tqdm and job.launcher == "torchrun":
        n_up = min(last_step, job.tqdm_budget)
        every = max(1, last_step // max(n_up, 1))
        desc = pick(rng, ["", "Epoch 0: ", "train: "])
        for step in range(0, last_step, every):
            t = job.t_step(step) + 0.0005
            if slow and step >= slow[0]:
                t = job.t_step(slow[0]) + (step - slow[0]) * job.step_time * slow[2]
            el = t - job.t_train0
            rate = step / el if el > 0 else 0.0
            sim.add(t, ("e", 0), tqdm_bar(step, job.total_steps, el, rate, desc))
    # per-rank timing
    if job.per_rank_timing:
        for step in range(job.timing_every, last_step, job.timing_every):
            t = job.t_step(step) + 0.002
            fb = job.step_time * 1000 * 0.78
            for r in range(job.world):
                tt = t
                mine = fb * rng.uniform(0.97, 1.04)
                wait = job.step_time * 1000 * 0.05 * rng.uniform(0.5, 1.5)
                if slow and step >= slow[0]:
                    tt = job.t_step(slow[0]) + (step - slow[0]) * job.step_time * slow[2]
                    if r in slow[1]:
                        mine = fb * slow[2] * rng.uniform(0.98, 1.03)
                        wait = rng.uniform(1, 8)
                    else:
                        wait = fb * (slow[2] - 1) * rng.uniform(0.97, 1.03)
                elif chance(rng, 0.01):
                    mine *= 1.4   # harmless one-off hiccup
                data = rng.uniform(1, 6)
                sim.add(tt + r * 0.0001, ("o", r), logf(job, r, "INFO", "[rank %d] step %d timing: fwd_bwd %.1f ms | allreduce_wait %.1f ms | data %.1f ms" % (r, step, mine, wait, data)))


def pos_at(job, t):
    return max(1, int((t - job.t_train0) / job.step_time))


# ---------------------------------------------------------------- failure plan
SIGNAMES = {6: "SIGABRT", 7: "SIGBUS", 9: "SIGKILL", 11: "SIGSEGV", 15: "SIGTERM"}


class Plan:
    def __init__(self):
        self.self_exit = {}      # rank -> (t, exitcode)
        self.stuck = []          # ranks that never exit by themselves
        self.t_coll = None       # start of the collective the survivors wait in
        self.mode = "watchdog"   # how ranks on other nodes notice: 'fast' | 'watchdog'
        self.sigterm_nodes = {}  # node -> t  (agent receives SIGTERM from outside)
        self.dead_nodes = {}     # node -> t  (node/container vanished, nothing reported)
        self.wd = {}             # rank -> (seq, op, numel) for watchdog text
        self.last_error = None   # fn(rank) -> 'Last error:' text for fast collateral
        self.no_fast_py = False


def poll(job, rng):
    if job.launcher == "deepspeed":
        return rng.uniform(0.05, 1.0)
    return rng.uniform(0.02, job.monitor)


def agent_msg(job, n, level, mod, line, msg):
    lv = {"W": "WARNING", "E": "ERROR", "I": "INFO"}[level]
    if job.style == "old":
        return "%s:torch.distributed.elastic.%s:%s" % (lv, mod, msg)
    if job.style == "mid":
        return lambda d: "[%s] torch.distributed.elastic.%s: [%s] %s" % (d_py(d), mod, lv, msg)
    ap = job.agent_pid[n]
    pre = "site-packages/" if (job.tv >= (2, 5) and "site-packages" in job.site) else ""
    path = "torch/distributed/elastic/" + mod.replace(".", "/") + ".py"
    return lambda d: "%s%s %d %s%s:%d] %s" % (level, d.strftime("%m%d %H:%M:%S.") + "%03d000" % (d.microsecond // 1000), ap, pre, path, line, msg)


def torchrun_tb(job, kind):
    s = job.site
    new = job.style == "new"
    fr = [(job.torchrun_bin, 8, "<module>", "sys.exit(main())"),
          (s + "/torch/distributed/elastic/multiprocessing/errors/__init__.py", 355 if new else 346, "wrapper", "return f(*args, **kwargs)"),
          (s + "/torch/distributed/run.py", 919 if new else 806, "main", "run(args)"),
          (s + "/torch/distributed/run.py", 910 if new else 797, "run", "elastic_launch("),
          (s + "/torch/distributed/launcher/api.py", 138 if new else 134, "__call__", "return launch_agent(self._config, self._entrypoint, list(args))")]
    if kind == "child":
        fr.append((s + "/torch/distributed/launcher/api.py", 269 if new else 264, "launch_agent", "raise ChildFailedError("))
        return traceback(job, fr, [])
    fr += [(s + "/torch/distributed/launcher/api.py", 260 if new else 255, "launch_agent", "result = agent.run()"),
           (s + "/torch/distributed/elastic/metrics/api.py", 137 if new else 129, "wrapper", "result = f(*args, **kwargs)"),
           (s + "/torch/distributed/elastic/agent/server/api.py", 711 if new else 727, "run", "result = self._invoke_run(role)"),
           (s + "/torch/distributed/elastic/agent/server/api.py", 870 if new else 862, "_invoke_run", "time.sleep(monitor_interval)"),
           (s + "/torch/distributed/elastic/multiprocessing/api.py", 84 if new else 62, "_terminate_process_handler", 'raise SignalException(f"Process {os.getpid()} got signal: {sigval}", sigval=sigval)')]
    return traceback(job, fr, [])


def fqdn(job, n):
    h = job.hosts[n]
    if job.slurm and job.jobid % 2 == 0:
        return h + ".cluster.local"
    return h


def summary_lines(job, ex, n, failures):
    def entry(idx, r, t, code):
        d = job.local(n, t)
        pid = job.pid[r]
        ef = "<N/A>"
        if code < 0:
            tb = ["  traceback : Signal %d (%s) received by PID %d" % (-code, SIGNAMES.get(-code, "SIG%d" % -code), pid)]
        elif job.record and r in ex.err_tb:
            ef = "/tmp/torchelastic_%s/%s_%s/attempt_0/%d/error.json" % (job.runid[:8], job.jobid if job.slurm else "none", job.runid[-6:], job.local_of(r))
            tbl = ex.err_tb[r]
            tb = ["  traceback : " + tbl[0]] + ["    " + l for l in tbl[1:] if l]
        else:
            tb = ["  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"]
        return (["[%d]:" % idx, "  time      : %s" % d.strftime("%Y-%m-%d_%H:%M:%S"), "  host      : %s" % fqdn(job, n),
                 "  rank      : %d (local_rank: %d)" % (r, job.local_of(r)), "  exitcode  : %d (pid: %d)" % (code, pid),
                 "  error_file: %s" % ef] + tb)
    L = ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "=" * 60, "%s FAILED" % job.script, "-" * 60, "Failures:"]
    if len(failures) == 1:
        L.append("  <NO_OTHER_FAILURES>")
    else:
        for i, f in enumerate(failures[1:], 1):
            L += entry(i, *f)
    L += ["-" * 60, "Root Cause (first observed failure):"] + entry(0, *failures[0]) + ["=" * 60]
    return L


def ds_cmd(job, r):
    return "['%s', '-u', '%s', '--local_rank=%d', '--deepspeed', '--deepspeed_config', 'ds_config.json']" % (job.python, job.script, job.local_of(r))


def collateral_lines(job, rng, r, kind, plan):
    n = job.node_of(r)
    if kind == "wd":
        seq, op, numel = plan.wd.get(r, (job.seq_at(job.fail_step), job.optype, job.numel))
        return watchdog_timeout_lines(job, rng, r, seq, op, numel, job.timeout_ms + rng.randrange(5, 900))
    peer_n = (n + 1) % job.nnodes
    last = plan.last_error(r) if plan.last_error else None
    if last is None:
        if chance(rng, 0.25):
            last = "NET/IB : Got completion from peer %s<%d> with status=12 opcode=%d len=0 vendor err 129 (Recv) localGid ::ffff:%s remoteGids::ffff:%s" % (
                job.ips[peer_n], rng.randrange(32768, 60999), pick(rng, [0, 1, 129]), job.ips[n], job.ips[peer_n])
        else:
            last = "socketProgress: Connection closed by remote peer %s<%d>" % (job.hosts[peer_n] if not job.k8s else job.ips[peer_n], rng.randrange(32768, 60999))
    blk = remote_err_block(job, r, last)
    L = []
    if job.nccl_debug:
        L.append("%s misc/socket.cc:%d NCCL WARN %s" % (nccl_tag(job, r, 211), 538, last) if last.startswith("socket") else
                 "%s transport/net_ib.cc:%d NCCL WARN %s" % (nccl_tag(job, r, 211), 1295, last))
        L.append("%s NCCL INFO transport/net.cc:1302 -> 6" % nccl_tag(job, r, 211))
        L.append("%s NCCL INFO proxy.cc:698 -> 6" % nccl_tag(job, r, 211))
        L.append("%s NCCL INFO proxy.cc:878 -> 6 [Progress Thread]" % nccl_tag(job, r, 211))
    if kind == "async":
        return L + watchdog_async_lines(job, rng, r, blk)
    where = "bwd" if job.parallel == "ddp" else pick(rng, ["fwd", "bwd"])
    exc = "torch.distributed.DistBackendError" if job.tv >= (2, 1) else "RuntimeError"
    loc = "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d" % (1970 if job.style == "new" else 1331)
    exl = ["%s: NCCL error in: %s, remote process exited or there was a network error, NCCL version %s" % (exc, loc, job.nccl),
           blk[1], blk[2], blk[3]]
    return L + pylines(job, r, traceback(job, f_user(job, where), exl))


def propagate(job, sim, plan, ex):
    rng = job.rng
    exits = {}     # r -> [t_exit, code, kind, t_react]
    for r, (t, c) in plan.self_exit.items():
        exits[r] = [t, c, "self", t]
    killed = {}    # r -> t (terminated by agent / vanished)
    react = {}     # r -> (t, kind) collateral reaction (printed if before the rank's end)
    agent = {}     # n -> dict(kind, detect)
    for n, t in plan.dead_nodes.items():
        agent[n] = {"kind": "dead", "detect": t}
        for r in job.ranks_on(n):
            killed[r] = t
            exits.pop(r, None)
    for n, t in plan.sigterm_nodes.items():
        agent[n] = {"kind": "sigterm", "detect": t + rng.uniform(0, 0.3), "by": "external"}
        for r in job.ranks_on(n):
            if r not in exits or exits[r][0] > t:
                exits.pop(r, None)
                killed[r] = t + rng.uniform(0.05, 0.6)

    def local_kill(n):
        d = agent[n]["detect"]
        for r in job.ranks_on(n):
            if r in exits and exits[r][0] <= d:
                continue
            exits.pop(r, None)
            if r not in killed:
                killed[r] = d + rng.uniform(0.02, 0.5)

    for n in range(job.nnodes):
        if n in agent:
            continue
        own = [exits[r][0] for r in job.ranks_on(n) if r in exits]
        if own:
            agent[n] = {"kind": "fail", "detect": min(own) + poll(job, rng)}
            local_kill(n)
    deaths = [v[0] for v in exits.values()] + list(killed.values())
    t_first = min(deaths) if deaths else None
    for r in range(job.world):
        if job.node_of(r) in agent or r in exits or r in killed or r in plan.stuck:
            continue
        if plan.mode == "fast" and t_first is not None:
            tr = t_first + rng.uniform(0.3, 6.0)
            kind = "async" if (plan.no_fast_py or chance(rng, 0.5)) else "py"
            exits[r] = [tr + rng.uniform(0.2, 2.0), 1 if kind == "py" else -6, kind, tr]
            react[r] = (tr, kind)
        else:
            tr = plan.t_coll + job.timeout_ms / 1000.0 + rng.uniform(0.005, 0.15)
            exits[r] = [tr + rng.uniform(0.05, 0.6), -6, "wd", tr]
            react[r] = (tr, "wd")
    for n in range(job.nnodes):
        if n in agent:
            continue
        own = [exits[r][0] for r in job.ranks_on(n) if r in exits]
        if own:
            agent[n] = {"kind": "fail", "detect": min(own) + poll(job, rng)}
            local_kill(n)
    for n, a in agent.items():
        a["exit"] = a["detect"] + (rng.uniform(0.6, 4.0) if a["kind"] != "dead" else 0)
    # scheduler / controller tears down the rest
    fails = [a["exit"] for a in agent.values() if a["kind"] in ("fail", "dead")]
    t_k = None
    if job.kill_on_bad_exit and fails and job.launcher == "torchrun":
        t_k = min(fails) + (rng.uniform(0.3, 1.5) if job.slurm else rng.uniform(4, 25))
        if plan.dead_nodes:
            t_k = min(fails) + rng.uniform(20, 120)
        for n in range(job.nnodes):
            if n in agent and agent[n]["detect"] <= t_k:
                continue
            agent[n] = {"kind": "sigterm", "detect": t_k + rng.uniform(0, 0.4), "by": "scheduler"}
            agent[n]["exit"] = agent[n]["detect"] + rng.uniform(0.5, 3)
            for r in job.ranks_on(n):
                if r in exits and exits[r][0] <= t_k:
                    continue
                exits.pop(r, None)
                killed[r] = agent[n]["detect"] + rng.uniform(0.02, 0.5)
    # ---- emit rank collateral (also for ranks killed after they already printed it)
    for r, (tr, kind) in sorted(react.items()):
        end = exits[r][0] if r in exits else killed.get(r)
        if end is not None and tr >= end:
            continue
        if r in killed and r not in exits and kind != "wd" and tr + 0.2 > end:
            continue
        sim.lines(tr, ("e", r), collateral_lines(job, rng, r, kind, plan), dt=0.0003)
    # survivors of the store host noticing the TCPStore going away
    if job.style == "new" and 0 in agent and agent[0]["kind"] != "dead":
        for r in range(job.gpn, job.world):
            end = exits[r][0] if r in exits else killed.get(r, 0)
            if end - agent[0]["exit"] > 2 and chance(rng, 0.35):
                sim.add(agent[0]["exit"] + rng.uniform(0.5, 2), ("e", r), cpp(job, r, "W", "ProcessGroupNCCL.cpp:1342",
                        "[PG ID 0 PG GUID 0(default_pg) Rank %d] Failed to check the \"should dump\" flag on TCPStore, (maybe TCPStore server has shut down too early), with error: Connection reset by peer" % r))
    # ---- emit agent output
    for n in range(job.nnodes):
        a = agent.get(n)
        if not a or a["kind"] == "dead":
            continue
        d = a["detect"]
        local = job.ranks_on(n)
        failures = sorted([(r, exits[r][0], exits[r][1]) for r in local if r in exits and exits[r][0] <= d and exits[r][1] != 0], key=lambda x: x[1])
        term = [r for r in local if r in killed]
        if job.launcher == "deepspeed":
            emit_ds_agent(job, sim, n, a, failures, term)
            continue
        if a["kind"] == "sigterm":
            sim.add(d, ("a", n), agent_msg(job, n, "W", "agent.server.api", 719 if job.style == "new" else 0, "Received Signals.SIGTERM death signal, shutting down workers" if job.style != "old" else "Received 15 death signal, shutting down workers"))
            for i, r in enumerate(local):
                sim.add(d + 0.001 * (i + 1), ("a", n), agent_msg(job, n, "W", "multiprocessing.api", 897, "Sending process %d closing signal SIGTERM" % job.pid[r]))
            sim.lines(a["exit"], ("a", n), torchrun_tb(job, "signal") + ["torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % job.agent_pid[n]])
            continue
        if not failures:
            continue
        for i, r in enumerate(term):
            sim.add(d + 0.001 * (i + 1), ("a", n), agent_msg(job, n, "W", "multiprocessing.api", 897, "Sending process %d closing signal SIGTERM" % job.pid[r]))
        r0, t0_, c0 = failures[0]
        sim.add(a["exit"] - 0.2, ("a", n), agent_msg(job, n, "E", "multiprocessing.api", 869, "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (c0, job.local_of(r0), job.pid[r0], job.python)))
        sim.lines(a["exit"] - 0.1, ("a", n), torchrun_tb(job, "child") + summary_lines(job, ex, n, failures))
    # ---- scheduler lines
    if job.slurm:
        emit_slurm_fail(job, sim, ex, agent, t_k, plan)
    if job.launcher == "deepspeed":
        for n in range(job.nnodes):
            a = agent.get(n)
            if a and a["kind"] != "dead":
                code = 1
                loc = [exits[r][1] for r in job.ranks_on(n) if r in exits and exits[r][0] <= a["detect"] and exits[r][1] != 0]
                if loc:
                    code = loc[0] & 0xFF
                sim.add(a["exit"] + 0.3, ("r", 0), "pdsh@%s: %s: ssh exited with exit code %d" % (job.hosts[0], job.hosts[n], code))
    ex.agent = agent
    ex.exits = exits
    ex.killed = killed
    ts = [a["exit"] for a in agent.values()] + [v[0] for v in exits.values()] + list(killed.values())
    ex.t_end = max(ts) + 2 if ts else job.t_fail + 60


def emit_ds_agent(job, sim, n, a, failures, term):
    d = a["detect"]

    def L(level, where, msg):
        return lambda dd: "[%s] [%s] [%s] %s" % (d_py(dd), level, where, msg)
    for i, r in enumerate(job.ranks_on(n)):
        sim.add(d + 0.01 * i, ("a", n), L("INFO", "launch.py:315:sigkill_handler", "Killing subprocess %d" % job.pid[r]))
    if failures:
        r0, _, c0 = failures[0]
        sim.add(d + 0.01 * job.gpn + 0.2, ("a", n), L("ERROR", "launch.py:321:sigkill_handler", "%s exits with return code = %d" % (ds_cmd(job, r0), c0)))


def slurm_host_list(job):
    hs = job.hosts
    import re as _re
    m = [_re.match(r"^(.*?)(\d+)$", h) for h in hs]
    if all(m) and len(set(x.group(1) for x in m)) == 1:
        pre = m[0].group(1)
        w = len(m[0].group(2))
        nums = [int(x.group(2)) for x in m]
        parts = []
        i = 0
        while i < len(nums):
            j = i
            while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
                j += 1
            parts.append(("%0*d" % (w, nums[i])) if i == j else ("%0*d-%0*d" % (w, nums[i], w, nums[j])))
            i = j + 1
        return pre + "[" + ",".join(parts) + "]" if len(hs) > 1 else hs[0]
    return ",".join(hs)


def emit_slurm_fail(job, sim, ex, agent, t_k, plan):
    rng = job.rng
    jid = job.jobid
    newslurm = job.jobid % 3 != 0
    for n, a in sorted(agent.items(), key=lambda x: x[1]["exit"]):
        if a["kind"] == "fail":
            if n in ex.oom_nodes:
                sim.add(a["exit"] - 0.5, ("s", n), "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % jid if newslurm else
                        "slurmstepd: error: Detected 1 oom-kill event(s) in step %d.0 cgroup. Some of your processes may have been killed by the cgroup out-of-memory handler." % jid)
                sim.add(a["exit"] + 0.05, ("s", 0), "srun: error: %s: task %d: Out Of Memory" % (job.hosts[n], n))
            else:
                sim.add(a["exit"] + 0.05, ("s", 0), "srun: error: %s: task %d: Exited with exit code 1" % (job.hosts[n], n))
        elif a["kind"] == "sigterm" and a.get("by") == "scheduler":
            sim.add(a["exit"] + 0.05, ("s", 0), "srun: error: %s: task %d: Terminated" % (job.hosts[n], n))
    if plan.dead_nodes:
        n = list(plan.dead_nodes)[0]
        t = plan.dead_nodes[n] + rng.uniform(60, 300)
        sim.add(t, ("s", 0), "srun: error: Node failure on %s" % job.hosts[n])
        sim.add(t + 0.5, ("s", 0), (lambda d: "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***" % (jid, job.hosts[0], d_iso(d))))
        sim.add(t + 0.6, ("s", 0), "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
        ex.sched = {"kind": "nodefail", "node": n, "t": t}
    if t_k is not None:
        sim.add(t_k, ("s", 0), ("srun: Terminating StepId=%d.0" % jid) if newslurm else ("srun: Terminating job step %d.0" % jid))
        sim.add(t_k + 0.2, ("s", 0), (lambda d: "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (jid, job.hosts[0], d_iso(d))))
    if ex.sched is None:
        ex.sched = {"kind": "oom" if ex.oom_nodes else "failed"}


def emit_slurm_cancel(job, sim, ex, t, why):
    jid = job.jobid
    tail = {"timelimit": " DUE TO TIME LIMIT", "preempt": " DUE TO PREEMPTION", "user": ""}[why]
    sim.add(t, ("s", 0), (lambda d: "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s%s ***" % (jid, job.hosts[0], d_iso(d), tail)))
    sim.add(t + 0.01, ("s", 0), (lambda d: "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s%s ***" % (jid, job.hosts[0], d_iso(d), tail)))
    sim.add(t + 0.02, ("s", 0), "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
    if why != "user":
        sim.add(t + 0.03, ("s", 0), "srun: got SIGCONT")
        sim.add(t + 31, ("s", 0), "srun: forcing job termination")


# ---------------------------------------------------------------- kernel log
def kmsg(job, ex, n, t, msg, style, host=None, user=False):
    host = host or job.machines[n]
    rb = ex.reboot.get(n)
    up = job.uptime(n, t) if (rb is None or t < rb) else (t - rb - 0.0)
    d = job.local(n, t)
    if msg.startswith("@"):
        if style in ("dmesg", "dmesgT") or not user:
            return None
        proc, text = msg[1:].split("|", 1)
        if style == "kernlog3339":
            return "%s.%06d+00:00 %s %s: %s" % (d.strftime("%Y-%m-%dT%H:%M:%S"), d.microsecond, host, proc, text)
        return "%s %s %s: %s" % (d_syslog(d), host, proc, text)
    if style == "dmesg":
        return "[%12.6f] %s" % (up, msg)
    if style == "dmesgT":
        return "[%s] %s" % (d_ctime(d), msg)
    if style == "kernlog":
        return "%s %s kernel: [%12.6f] %s" % (d_syslog(d), host, up, msg)
    if style == "kernlog3339":
        return "%s.%06d+00:00 %s kernel: %s" % (d.strftime("%Y-%m-%dT%H:%M:%S"), d.microsecond, host, msg)
    return "%s %s kernel: %s" % (d_syslog(d), host, msg)


def kernel_text(job, sim, ex, n, style, t_min=None, t_max=None, boot_only=False, user=False):
    items = sim.render([("k", n)], t_min, t_max)
    out = []
    rb = ex.reboot.get(n)
    for t, s, text, key in items:
        if boot_only and rb is not None and t < rb:
            continue
        l = kmsg(job, ex, n, t, text, style, user=user)
        if l is not None:
            out.append(l)
    return "\n".join(out) + ("\n" if out else "")


def syslog_text(job, sim, ex, n, t_min, t_max):
    """journalctl-style text for node n including userspace lines (systemd-logind, kubelet)."""
    out = []
    for t, s, text, key in sim.render([("k", n)], t_min, t_max):
        l = kmsg(job, ex, n, t, text, "journal", user=True)
        if l is not None:
            out.append(l)
    return "\n".join(out) + "\n"


KNOISE = [
    "perf: interrupt took too long (2513 > 2500), lowering kernel.perf_event_max_sample_rate to 79500",
    "TCP: request_sock_TCP: Possible SYN flooding on port 29500. Sending cookies.  Check SNMP counters.",
    "nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid context, skipping further processing",
    "EDAC MC1: 1 CE memory read error on CPU_SrcID#1_MC#0_Chan#2_DIMM#0 (channel:2 slot:0 page:0x1f3c2a offset:0x340 grain:32 syndrome:0x0 - err_code:0x0000:0x009f socket:1 imc:0 rank:0 bg:1 ba:2 row:0x3e1a col:0x1b0)",
    "hrtimer: interrupt took 45123 ns",
    "kauditd_printk_skb: 14 callbacks suppressed",
    "audit: type=1400 audit(%d.512:3121): apparmor=\"DENIED\" operation=\"open\" class=\"file\" profile=\"snap.lxd.activate\" name=\"/proc/sys/kernel/hostname\" pid=%d comm=\"lxd\" requested_mask=\"r\" denied_mask=\"r\" fsuid=0 ouid=0",
    "bash (%d): drop_caches: 3",
    "docker0: port 1(veth3f2a1c9) entered blocking state",
    "IPv6: ADDRCONF(NETDEV_CHANGE): veth3f2a1c9: link becomes ready",
    "INFO: NMI handler (perf_event_nmi_handler) took too long to run: 1.287 msecs",
    "process 'usr/bin/python3' launched '/bin/sh' with NULL argv: empty string added",
]


def emit_kernel_noise(job, sim, ex, t_end):
    rng = job.rng
    for n in range(job.nnodes):
        k = rng.randrange(6, 16)
        for _ in range(k):
            t = rng.uniform(-9000, t_end + 400)
            m = pick(rng, KNOISE)
            if "%d" in m:
                m = m % tuple(rng.randrange(1000, 99999) for _ in range(m.count("%d")))
            sim.add(t, ("k", n), m)
        if chance(rng, 0.3):
            t = rng.uniform(-8000, t_end)
            sim.add(t, ("k", n), "nfs: server %s not responding, still trying" % pick(rng, ["fs01", "nas-home", "storage01"]))
            sim.add(t + rng.uniform(5, 40), ("k", n), "nfs: server %s OK" % pick(rng, ["fs01", "nas-home", "storage01"]))
        if chance(rng, 0.3):
            t = rng.uniform(-8000, -100)
            sim.add(t, ("k", n), "mlx5_core 0000:%s:00.0 mlx5_%d: Port: 1 Link DOWN" % (pick(rng, ["0c", "2b", "5e", "9d"]), rng.randrange(0, 8)))
            sim.add(t + rng.uniform(2, 9), ("k", n), "mlx5_core 0000:%s:00.0 mlx5_%d: Port: 1 Link ACTIVE" % (pick(rng, ["0c", "2b", "5e", "9d"]), rng.randrange(0, 8)))
        if not job.k8s:
            sim.add(rng.uniform(1, 5), ("k", n), "@systemd[1]|Started Session %d of User %s." % (rng.randrange(100, 9000), job.user))


def boot_lines(job, sim, n, t):
    sim.lines(t, ("k", n), ["Linux version %s (buildd@lcy02-amd64-054) (x86_64-linux-gnu-gcc-12 (Ubuntu 12.3.0-1ubuntu1~22.04) 12.3.0, GNU ld (GNU Binutils for Ubuntu) 2.38) %s SMP PREEMPT_DYNAMIC" % (job.kernel.split()[0], job.kernel.split()[1]),
                            "Command line: BOOT_IMAGE=/vmlinuz-%s root=UUID=5b0e0c9c-2f0e-4a51-9b7e-6f1c2d3e4f50 ro pci=realloc=off iommu=pt" % job.kernel.split()[0],
                            "BIOS-provided physical RAM map:",
                            "DMI: Supermicro SYS-421GE-TNRT/X13DEG-OAD, BIOS 2.1 02/14/2024"], dt=0.0001)
    sim.add(t + 41.2, ("k", n), "nvidia: loading out-of-tree module taints kernel.")
    sim.add(t + 41.9, ("k", n), "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  %s  Release Build  (dvs-builder@U16-I3-B04-3-1)" % job.driver)


# ---------------------------------------------------------------- nvidia-smi
def nvsmi_table(job, n, t, util=None, err_gpu=None, mem=None):
    d = job.local(n, t)
    L = [d_ctime(d).replace("  ", " "),
         "+-----------------------------------------------------------------------------------------+",
         "| NVIDIA-SMI %-9s            Driver Version: %-9s      CUDA Version: %-5s    |" % (job.driver, job.driver, "12.%d" % (2 + int(job.driver[:3]) % 5 % 3)),
         "|-----------------------------------------+------------------------+----------------------+",
         "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |",
         "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |",
         "|                                         |                        |               MIG M. |",
         "|=========================================+========================+======================|"]
    for g in range(job.gpn):
        bus = "00000000:%s:00.0" % job.buses[g].upper()
        if err_gpu == g:
            L.append("|  %d  %-22s  On  |   %s Off |                 ERR! |" % (g, job.gpu_name[7:29], bus))
            L.append("| ERR!  ERR!  ERR!              ERR! / ERR! |   ERR! /  %6dMiB |    ERR!      Default |" % job.gpu_mib)
        else:
            u = util[g] if util else 0
            m = mem[g] if mem else 4
            L.append("|   %d  %-22s  On  |   %s Off |                    0 |" % (g, job.gpu_name[7:29], bus))
            L.append("| N/A   %2dC    P0            %3dW /  700W |  %6dMiB /  %6dMiB |    %3d%%      Default |" % (34 + u // 5, 90 + u * 5 if u < 100 else 480, m, job.gpu_mib, u))
        L.append("|                                         |                        |             Disabled |")
        L.append("+-----------------------------------------+------------------------+----------------------+")
    L += ["", "+-----------------------------------------------------------------------------------------+",
          "| Processes:                                                                              |",
          "|  GPU   GI   CI        PID   Type   Process name                              GPU Memory |",
          "|        ID   ID                                                               Usage      |",
          "|=========================================================================================|"]
    if util:
        for g in range(job.gpn):
            r = n * job.gpn + g
            if g != err_gpu:
                L.append("|    %d   N/A  N/A   %8d      C   %-40s %7dMiB |" % (g, job.pid[r], job.python[-40:], (mem[g] if mem else 60000) - 500))
    else:
        L.append("|  No running processes found                                                             |")
    L.append("+-----------------------------------------------------------------------------------------+")
    return "\n".join(L) + "\n"


def nvsmi_q(job, n, t, bad_gpu=None, ecc=None, throttle=None):
    d = job.local(n, t)
    L = ["", "==============NVSMI LOG==============", "",
         "Timestamp                                 : %s" % d_ctime(d),
         "Driver Version                            : %s" % job.driver,
         "CUDA Version                              : 12.%d" % (2 + int(job.driver[:3]) % 5 % 3), "",
         "Attached GPUs                             : %d" % job.gpn]
    for g in range(job.gpn):
        bad = g == bad_gpu
        L += ["GPU 00000000:%s:00.0" % job.buses[g].upper(),
              "    Product Name                          : %s" % job.gpu_name,
              "    Serial Number                         : 16523210%05d" % (4000 + g * 37 + n * 101),
              "    GPU UUID                              : GPU-%08x-%04x-%04x-%04x-%012x" % (0x2c5b0000 + g * 77 + n, 0x1f00 + g, 0x4a00 + n, 0x9b00 + g, 0x7e3c00000000 + g * 999 + n),
              "    Clocks Event Reasons" if job.driver >= "535" else "    Clocks Throttle Reasons",
              "        Idle                              : Not Active",
              "        Applications Clocks Setting       : Not Active",
              "        SW Power Cap                      : Not Active",
              "        HW Slowdown                       : %s" % ("Active" if (bad and throttle) else "Not Active"),
              "            HW Thermal Slowdown           : %s" % ("Active" if (bad and throttle == "thermal") else "Not Active"),
              "            HW Power Brake Slowdown       : %s" % ("Active" if (bad and throttle == "power") else "Not Active"),
              "        Sync Boost                        : Not Active",
              "        SW Thermal Slowdown               : %s" % ("Active" if (bad and throttle == "thermal") else "Not Active"),
              "        Display Clock Setting             : Not Active",
              "    ECC Mode",
              "        Current                           : Enabled",
              "        Pending                           : Enabled",
              "    ECC Errors",
              "        Volatile",
              "            SRAM Correctable              : 0",
              "            SRAM Uncorrectable            : 0",
              "            DRAM Correctable              : %d" % ((3 if bad and ecc else 0) + (g * 7 + n) % 3),
              "            DRAM Uncorrectable            : %d" % (2 if bad and ecc else 0),
              "        Aggregate",
              "            SRAM Correctable              : 0",
              "            SRAM Uncorrectable            : 0",
              "            DRAM Correctable              : %d" % (12 + g * 5 + n),
              "            DRAM Uncorrectable            : %d" % (2 if bad and ecc else 0),
              "    Remapped Rows",
              "        Correctable Error                 : 0",
              "        Uncorrectable Error               : %d" % (1 if bad and ecc else 0),
              "        Pending                           : %s" % ("Yes" if bad and ecc else "No"),
              "        Remapping Failure Occurred        : %s" % ("Yes" if bad and ecc == "fail" else "No"),
              "    Temperature",
              "        GPU Current Temp                  : %d C" % (88 if (bad and throttle == "thermal") else 41 + g),
              "        GPU Shutdown Temp                 : 92 C",
              "        GPU Slowdown Temp                 : 89 C",
              "    Clocks",
              "        Graphics                          : %d MHz" % (1005 if (bad and throttle) else 1980 if "H100" in job.gpu_name else 1410),
              "        SM                                : %d MHz" % (1005 if (bad and throttle) else 1980 if "H100" in job.gpu_name else 1410),
              ""]
    return "\n".join(L) + "\n"


def pyspy_text(job, r, t, kind):
    d = job.local(job.node_of(r), t)
    pid = job.pid[r]
    py = "python%s" % job.pyver
    S = job.script
    L = ["Process %d: %s -u %s --config configs/%s.yaml" % (pid, job.python, S, job.proj), "Python v%s.%d (%s)" % (job.pyver, 12 if job.pyver == "3.10" else 9, job.python if "python" in job.python else "/usr/bin/" + py), ""]
    if kind == "deadlock":
        L += ["Thread %d (idle): \"MainThread\"" % pid,
              "    _acquire_restore (threading.py:275)",
              "    wait (threading.py:324)",
              "    put (queue.py:140)",
              "    log_metrics (%s:%d)" % (S, 131),
              "    train (%s:%d)" % (S, job.ln["train"] + 37),
              "    main (%s:%d)" % (S, job.ln["main"]),
              "    <module> (%s:%d)" % (S, job.ln["mod"]),
              "Thread %d (idle): \"Thread-2 (_writer_loop)\"" % (pid + 97),
              "    wait (threading.py:320)",
              "    _flush (%s:%d)" % (S, 152),
              "    _writer_loop (%s:%d)" % (S, 160)]
    elif kind == "gpu":
        L += ["Thread %d (active): \"MainThread\"" % pid,
              "    synchronize (torch/cuda/__init__.py:954)",
              "    train (%s:%d)" % (S, job.ln["train"] + 21),
              "    main (%s:%d)" % (S, job.ln["main"]),
              "    <module> (%s:%d)" % (S, job.ln["mod"])]
    else:  # data
        L += ["Thread %d (idle): \"MainThread\"" % pid,
              "    _poll (multiprocessing/connection.py:440)",
              "    poll (multiprocessing/connection.py:257)",
              "    get (multiprocessing/queues.py:113)",
              "    _try_get_data (torch/utils/data/dataloader.py:1133)",
              "    _get_data (torch/utils/data/dataloader.py:1294)",
              "    _next_data (torch/utils/data/dataloader.py:1332)",
              "    __next__ (torch/utils/data/dataloader.py:701)",
              "    train (%s:%d)" % (S, job.ln["train"]),
              "    main (%s:%d)" % (S, job.ln["main"]),
              "    <module> (%s:%d)" % (S, job.ln["mod"]),
              "Thread %d (idle): \"Thread-1 (_pin_memory_loop)\"" % (pid + 41),
              "    wait (threading.py:324)",
              "    get (queue.py:180)",
              "    do_one_step (torch/utils/data/_utils/pin_memory.py:31)",
              "    _pin_memory_loop (torch/utils/data/_utils/pin_memory.py:54)"]
    L.append("")
    return "# py-spy dump --pid %d   (%s on %s)\n" % (pid, d.strftime("%Y-%m-%d %H:%M:%S"), job.hosts[job.node_of(r)]) + "\n".join(L) + "\n"


# ---------------------------------------------------------------- cause stories
def pick_rank(job, avoid0=True):
    rng = job.rng
    if avoid0 and job.world > 1 and chance(rng, 0.8):
        return rng.randrange(1, job.world)
    return rng.randrange(0, job.world)


def comm(job):
    return "pt_main_thread" if job.tv >= (2, 2) else "python3"


def app_cuda_failure(job, sim, plan, r, t, msg, key=True):
    """rank r hits a sticky CUDA error: python traceback (exit 1) or watchdog (SIGABRT)."""
    rng = job.rng
    if chance(rng, 0.55):
        lines = pylines(job, r, traceback(job, f_user(job, pick(rng, ["fwd", "bwd", "opt", "step"])), cuda_err_lines(job, msg)))
        sim.lines(t, ("e", r), lines, key=key)
        plan.self_exit[r] = (t + rng.uniform(0.3, 2.5), 1)
        return "traceback"
    err = ["CUDA error: " + msg, "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
           "For debugging consider passing CUDA_LAUNCH_BLOCKING=1"]
    if job.tv >= (2, 1):
        err.append("Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.")
    err.append("")
    sim.lines(t, ("e", r), watchdog_async_lines(job, rng, r, err), key=key)
    plan.self_exit[r] = (t + rng.uniform(0.05, 0.5), -6)
    return "watchdog"


def st_gpu_hardware(job, sim, ex):
    rng = job.rng
    r = pick_rank(job)
    n, l = job.node_of(r), job.local_of(r)
    t = job.t_fail + rng.uniform(0, job.step_time)
    bus, pid = job.busid(r), job.pid[r]
    K = ("k", n)
    plan = Plan()
    plan.t_coll = t + 0.05
    plan.mode = pick(rng, ["fast", "watchdog"])
    v = pick(rng, ["xid79", "xid79", "xid119", "xid62"])
    if v == "xid79":
        L = []
        if chance(rng, 0.5):
            L += ["pcieport 0000:%02x:01.0: AER: Uncorrected (Fatal) error received: %s.0" % (max(int(job.buses[l], 16) - 3, 1), bus),
                  "nvidia %s.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, (Receiver ID)" % bus]
        L += ["NVRM: Xid (PCI:%s): 79, pid=%d, name=%s, GPU has fallen off the bus." % (bus, pid, comm(job)),
              "NVRM: GPU %s.0: GPU has fallen off the bus." % bus,
              "NVRM: GPU at PCI:%s: GPU-%08x-%04x-4a%02x-9b%02x-7e3c%08x" % (bus, 0x2c5b0000 + l * 77 + n, 0x1f00 + l, n, l, l * 999 + n),
              "NVRM: A GPU crash dump has been created. If possible, please run",
              "NVRM: nvidia-bug-report.sh as root to collect this data before",
              "NVRM: the NVIDIA kernel module is unloaded."]
        sim.lines(t, K, L, key=True, dt=0.0007)
        how = app_cuda_failure(job, sim, plan, r, t + rng.uniform(0.2, 3), pick(rng, ["unspecified launch failure", "unknown error"]))
        ex.nvsmi[n] = "Unable to determine the device handle for GPU%s.0: Unknown Error\n" % bus.upper()
        if chance(rng, 0.4):
            ex.reboot[n] = t + rng.uniform(1500, 5000)
            boot_lines(job, sim, n, ex.reboot[n])
        ex.truth_rank = r
        ex.notes.append("Xid 79: GPU %s (local GPU %d) on %s fell off the bus; rank %d died with a CUDA error (%s)" % (bus, l, job.hosts[n], r, how))
    elif v == "xid119":
        for k in range(3):
            sim.add(t + 6 * k, K, "NVRM: Xid (PCI:%s): 119, pid=%d, name=%s, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a4c 0x4)." % (bus, pid, comm(job), l), key=True)
        sim.lines(t + 18.1, K, ["NVRM: GPU%d GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x0000000020800a4c 0x0000000000000004." % l,
                                "NVRM: GPU%d RPC history (CPU -> GSP):" % l,
                                "NVRM:     entry function                   data0              data1              ts_start           ts_end             duration actively_polling",
                                "NVRM:      0    76 GSP_RM_CONTROL          0x0000000020800a4c 0x0000000000000004 0x00062a1f3c9b2e10 0x0000000000000000          y",
                                "NVRM:     -1    76 GSP_RM_CONTROL          0x0000000020801a0f 0x0000000000000000 0x00062a1f3c9a0c41 0x00062a1f3c9a0c55     20us  "], key=True)
        sim.add(t + 41, K, "NVRM: Xid (PCI:%s): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)" % bus, key=True)
        plan.stuck = [r]
        plan.mode = "watchdog"
        util = [100] * job.gpn
        ex.nvsmi[n] = nvsmi_table(job, n, t + job.timeout_ms / 2000.0, util=util, err_gpu=l, mem=[int(job.gpu_mib * 0.8)] * job.gpn)
        ex.truth_rank = r
        ex.notes.append("Xid 119 GSP RPC timeout on %s GPU %s (local %d); rank %d stuck in the driver, the other ranks hit the NCCL watchdog" % (job.hosts[n], bus, l, r))
    else:
        sim.add(t, K, "NVRM: Xid (PCI:%s): 62, pid=%d, name=%s, 0000(0000) 00000000 00000000" % (bus, pid, comm(job)), key=True)
        sim.add(t + 0.2, K, "NVRM: Xid (PCI:%s): 45, pid=%d, name=%s, Ch 00000010" % (bus, pid, comm(job)))
        app_cuda_failure(job, sim, plan, r, t + rng.uniform(0.2, 2), "unspecified launch failure")
        ex.nvsmi[n] = nvsmi_table(job, n, t + 1200, util=None, err_gpu=l)
        ex.truth_rank = r
        ex.notes.append("Xid 62 (internal micro-controller halt) on %s GPU %s; rank %d died" % (job.hosts[n], bus, r))
    ex.truth_node = n
    ex.key_nodes.append(n)
    ex.key_ranks.append(r)
    ex.victim = r
    return plan


def st_ecc_memory(job, sim, ex):
    rng = job.rng
    r = pick_rank(job)
    n, l = job.node_of(r), job.local_of(r)
    t = job.t_fail + rng.uniform(0, job.step_time)
    bus, pid = job.busid(r), job.pid[r]
    K = ("k", n)
    plan = Plan()
    plan.t_coll = t + 0.05
    plan.mode = pick(rng, ["fast", "watchdog"])
    if chance(rng, 0.6):
        sim.add(t, K, "NVRM: Xid (PCI:%s): 48, pid=%d, name=%s, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (bus, pid, comm(job), rng.randrange(0, 12), rng.randrange(0, 2)), key=True)
    sim.add(t + 0.003, K, "NVRM: Xid (PCI:%s): 63, pid=%d, name=%s, Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % (bus, pid, comm(job), rng.randrange(0x100000, 0x3ffffff)), key=True)
    how = app_cuda_failure(job, sim, plan, r, t + rng.uniform(0.05, 1.5), "uncorrectable ECC error encountered")
    ecc = pick(rng, ["pending", "fail"])
    ex.nvsmi_q[n] = nvsmi_q(job, n, t + rng.uniform(900, 4000), bad_gpu=l, ecc=ecc)
    ex.truth_rank, ex.truth_node = r, n
    ex.key_nodes.append(n)
    ex.key_ranks.append(r)
    ex.victim = r
    ex.notes.append("uncorrectable ECC (DBE) on %s GPU %s; rank %d: 'uncorrectable ECC error encountered' (%s); nvidia-smi -q shows remap %s" % (job.hosts[n], bus, r, how, ecc))
    return plan


def st_nvlink(job, sim, ex):
    rng = job.rng
    n = rng.randrange(job.nnodes)
    a = rng.randrange(job.gpn)
    b = (a + rng.randrange(1, job.gpn)) % job.gpn if job.gpn > 1 else a
    t = job.t_fail + rng.uniform(0, job.step_time)
    K = ("k", n)
    plan = Plan()
    plan.t_coll = t + 0.05
    plan.mode = pick(rng, ["fast", "watchdog"])
    for i, g in enumerate(sorted({a: 1, b: 1})):
        r = n * job.gpn + g
        sim.add(t + i * 0.0004, K, "NVRM: Xid (PCI:0000:%s:00): 74, pid=%d, name=%s, NVLink: fatal error detected on link %d(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)" % (job.buses[g], job.pid[r], comm(job), rng.randrange(0, 18)), key=True)
    if chance(rng, 0.5):
        sw = rng.randrange(0, 4)
        port = rng.randrange(0, 64)
        sim.add(t - 0.002, K, "nvidia-nvswitch%d: SXid (PCI:0000:%02x:00.0): 20034, Fatal, Link %d LTSSM Fault Up" % (sw, 5 + sw, port), key=True)
        d = job.local(n, t)
        ex.fabric[n] = "\n".join([
            "[%s] [INFO] [tid %d] Fabric Manager version %s is running" % ((job.local(n, -86400 * 3)).strftime("%b %d %Y %H:%M:%S"), 1843, job.driver),
            "[%s] [INFO] [tid %d] Successfully configured all the available NVSwitches to route GPU NVLink traffic." % ((job.local(n, -86400 * 3 + 40)).strftime("%b %d %Y %H:%M:%S"), 1843),
            "[%s] [ERROR] [tid %d] detected NVSwitch fatal error %d on fid 0 on NVSwitch pci bus id 00000000:%02x:00.0 physical id %d port %d" % (d.strftime("%b %d %Y %H:%M:%S"), 2143, 20034, 5 + sw, sw, port),
            "[%s] [ERROR] [tid %d] NVSwitch fatal error detected, GPU partition or system reset is required" % (d.strftime("%b %d %Y %H:%M:%S"), 2143)]) + "\n"
    victims = sorted({a: 1, b: 1})
    for i, g in enumerate(victims):
        r = n * job.gpn + g
        tt = t + rng.uniform(0.05, 2.0)
        if chance(rng, 0.5):
            msg = "uncorrectable NVLink error was detected during the execution"
            app_cuda_failure(job, sim, plan, r, tt, msg)
        else:
            L = []
            if job.nccl_debug:
                L.append("%s transport/p2p.cc:275 NCCL WARN Cuda failure 'uncorrectable NVLink error was detected during the execution'" % nccl_tag(job, r, 9))
            exc = "torch.distributed.DistBackendError" if job.tv >= (2, 1) else "RuntimeError"
            L += pylines(job, r, traceback(job, f_user(job, "bwd" if job.parallel == "ddp" else "fwd"), [
                "%s: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % (exc, 1970 if job.style == "new" else 1331, job.nccl),
                "ncclUnhandledCudaError: Call to CUDA function failed.", "Last error:", "Cuda failure 'uncorrectable NVLink error was detected during the execution'"]))
            sim.lines(tt, ("e", r), L, key=True)
            plan.self_exit[r] = (tt + rng.uniform(0.3, 2), 1)
        ex.key_ranks.append(r)
    ex.truth_node = n
    ex.key_nodes.append(n)
    ex.notes.append("NVLink fatal error (Xid 74) on %s local GPUs %s; ranks %s died with NVLink/NCCL errors" % (job.hosts[n], victims, [n * job.gpn + g for g in victims]))
    return plan


def st_network(job, sim, ex):
    rng = job.rng
    n = rng.randrange(job.nnodes)
    t = job.t_fail + rng.uniform(0, job.step_time)
    K = ("k", n)
    plan = Plan()
    plan.t_coll = t
    plan.mode = pick(rng, ["fast", "fast", "watchdog"])
    v = pick(rng, ["ib", "ib", "roce", "eth"])
    hca = rng.randrange(0, 8)
    pbus = pick(rng, ["0c", "2b", "5e", "9d", "bd", "1a"])
    if v == "ib":
        sim.add(t, K, "mlx5_core 0000:%s:00.0 mlx5_%d: Port: 1 Link DOWN" % (pbus, hca), key=True)
        if chance(rng, 0.5):
            sim.add(t + rng.uniform(20, 200), K, "mlx5_core 0000:%s:00.0 mlx5_%d: Port: 1 Link INIT" % (pbus, hca))
    elif v == "roce":
        sim.add(t, K, "mlx5_core 0000:%s:00.0 ens%df%dnp%d: Link down" % (pbus, hca + 1, 0, 0), key=True)
        sim.add(t + 0.002, K, "mlx5_core 0000:%s:00.0: mlx5_port_module_event:1142:(pid 0): Port module event[error]: module %d, Cable error, Bad cable" % (pbus, hca), key=True)
    else:
        sim.add(t, K, "ice 0000:%s:00.0 ens%df0: NIC Link is Down" % (pbus, hca + 1), key=True)
        sim.add(t + 0.01, K, "bond0: (slave ens%df0): link status definitely down, disabling slave" % (hca + 1), key=True)
    te_base = t + rng.uniform(4, 25)
    mine = [r for r in job.ranks_on(n) if chance(rng, 0.7)] or [job.ranks_on(n)[0]]
    others = [m for m in range(job.nnodes) if m != n]
    for r in mine:
        peer = pick(rng, others)
        if v == "eth":
            last = "NET/Socket : Call to recv from %s<%d> failed : Connection timed out" % (job.ips[peer], rng.randrange(32768, 60999))
        else:
            last = "NET/IB : Got completion from peer %s<%d> with status=12 opcode=%d len=0 vendor err 129 (Send) localGid ::ffff:%s remoteGids::ffff:%s" % (
                job.ips[peer], rng.randrange(32768, 60999), pick(rng, [0, 1, 2]), job.ips[n], job.ips[peer])
        tt = te_base + rng.uniform(0, 3)
        L = []
        if job.nccl_debug:
            L.append("%s %s NCCL WARN %s" % (nccl_tag(job, r, 207), "transport/net_socket.cc:499" if v == "eth" else "transport/net_ib.cc:1295", last))
            L.append("%s NCCL INFO transport/net.cc:1302 -> 6" % nccl_tag(job, r, 207))
            L.append("%s NCCL INFO proxy.cc:698 -> 6" % nccl_tag(job, r, 207))
        blk = remote_err_block(job, r, last)
        if chance(rng, 0.5):
            exc = "torch.distributed.DistBackendError" if job.tv >= (2, 1) else "RuntimeError"
            L += pylines(job, r, traceback(job, f_user(job, "bwd" if job.parallel == "ddp" else "fwd"),
                                           ["%s: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d, remote process exited or there was a network error, NCCL version %s" % (exc, 1970 if job.style == "new" else 1331, job.nccl)] + blk[1:]))
            plan.self_exit[r] = (tt + rng.uniform(0.3, 2), 1)
        else:
            L += watchdog_async_lines(job, rng, r, blk)
            plan.self_exit[r] = (tt + rng.uniform(0.05, 0.4), -6)
        sim.lines(tt, ("e", r), L, key=True)

    def last_error(rr):
        if v == "eth":
            return "socketProgress: Connection closed by remote peer %s<%d>" % (job.ips[n], rng.randrange(32768, 60999))
        return "NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:%s remoteGids::ffff:%s" % (
            job.ips[n], rng.randrange(32768, 60999), job.ips[job.node_of(rr)], job.ips[n])
    plan.last_error = last_error
    ex.truth_node = n
    ex.key_nodes.append(n)
    ex.key_ranks += mine
    ex.notes.append("%s link down on %s (%s); its ranks %s got NCCL transport errors to several peers, other nodes' errors point at %s" % (v.upper(), job.hosts[n], job.ips[n], mine, job.ips[n]))
    return plan


def st_cuda_oom(job, sim, ex):
    rng = job.rng
    r = pick_rank(job)
    n, l = job.node_of(r), job.local_of(r)
    t = job.t_fail + rng.uniform(0, job.step_time)
    plan = Plan()
    plan.t_coll = t + 0.05
    plan.mode = pick(rng, ["fast", "watchdog", "watchdog"])
    tot = job.gpu_gib
    req = pick(rng, [2.0, 1.5, 4.0, 0.5, 8.0, 3.25])
    free = rng.uniform(0.05, req * 0.9)
    alloc = tot - free - rng.uniform(1, 3)
    resv = rng.uniform(0.3, 2.5)
    if job.tv < (2, 2):
        msg = ["torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB (GPU %d; %.2f GiB total capacity; %.2f GiB already allocated; %.2f GiB free; %.2f GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF" % (req, l, tot, alloc, free, alloc + resv)]
    else:
        cls = "torch.OutOfMemoryError" if job.tv >= (2, 5) else "torch.cuda.OutOfMemoryError"
        msg = ["%s: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of %.2f GiB of which %.2f GiB is free. Including non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)" % (cls, req, l, tot, free, tot - free, alloc, resv)]
    where = pick(rng, ["fwd", "bwd", "opt"])
    tb = traceback(job, f_user(job, where), msg)
    sim.lines(t, ("e", r), pylines(job, r, tb), key=True)
    ex.err_tb[r] = tb
    plan.self_exit[r] = (t + rng.uniform(0.4, 3), 1)
    ex.truth_rank, ex.truth_node = r, n
    ex.key_ranks.append(r)
    ex.victim = r
    ex.notes.append("rank %d (%s, local GPU %d) CUDA OOM in %s at step ~%d (tried %.2f GiB)" % (r, job.hosts[n], l, where, job.fail_step, req))
    return plan


def st_illegal_memory_access(job, sim, ex):
    rng = job.rng
    r = pick_rank(job)
    n, l = job.node_of(r), job.local_of(r)
    t = job.t_fail + rng.uniform(0, job.step_time)
    plan = Plan()
    plan.t_coll = t + 0.05
    plan.mode = pick(rng, ["fast", "watchdog"])
    v = pick(rng, ["assert", "ima", "ima_wd"])
    pre = "/pytorch/aten/src/ATen/native/cuda/" if job.tv >= (2, 5) else "../aten/src/ATen/native/cuda/"
    if v == "assert":
        kind = pick(rng, ["index", "nll"])
        L = []
        for k in range(rng.randrange(3, 9)):
            if kind == "index":
                L.append("%sIndexing.cu:1289: indexSelectLargeIndex: block: [%d,0,0], thread: [%d,0,0] Assertion `srcIndex < srcSelectDimSize` failed." % (pre, rng.randrange(0, 512), rng.randrange(0, 128)))
            else:
                L.append("%sLoss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [%d,0,0] Assertion `t >= 0 && t < n_classes` failed." % (pre, rng.randrange(0, 32)))
        sim.lines(t, ("e", r), L, key=True)
        tb = traceback(job, f_user(job, "fwd"), cuda_err_lines(job, "device-side assert triggered"))
        sim.lines(t + 0.01, ("e", r), pylines(job, r, tb), key=True)
        ex.err_tb[r] = tb
        plan.self_exit[r] = (t + rng.uniform(0.4, 2.5), 1)
        what = "device-side assert (%s)" % kind
    elif v == "ima":
        tb = traceback(job, f_user(job, pick(rng, ["fwd", "bwd"])), cuda_err_lines(job, "an illegal memory access was encountered"))
        sim.lines(t, ("e", r), pylines(job, r, tb), key=True)
        ex.err_tb[r] = tb
        plan.self_exit[r] = (t + rng.uniform(0.4, 2.5), 1)
        what = "illegal memory access (traceback)"
    else:
        app = Plan()
        sim_err = ["CUDA error: an illegal memory access was encountered",
                   "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
                   "For debugging consider passing CUDA_LAUNCH_BLOCKING=1", ""]
        sim.lines(t, ("e", r), watchdog_async_lines(job, rng, r, sim_err), key=True)
        plan.self_exit[r] = (t + rng.uniform(0.05, 0.4), -6)
        what = "illegal memory access caught by the NCCL watchdog thread (SIGABRT)"
    if chance(rng, 0.5):
        bus = job.busid(r)
        if chance(rng, 0.5):
            sim.add(t - 0.01, ("k", n), "NVRM: Xid (PCI:%s): 13, pid=%d, name=%s, Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (bus, job.pid[r], comm(job), rng.randrange(0, 8), rng.randrange(0, 9), rng.randrange(0, 2)))
            sim.add(t - 0.0098, ("k", n), "NVRM: Xid (PCI:%s): 13, pid=%d, name=%s, Graphics Exception: ESR 0x%x=0x%x 0x%x=0x24 0x%x=0x%x 0x%x=0x174" % (bus, job.pid[r], comm(job), 0x50da30, 0x102000e, 0x50da34, 0x50da28, 0x4c1eb72, 0x50da2c))
        else:
            sim.add(t - 0.01, ("k", n), "NVRM: Xid (PCI:%s): 31, pid=%d, name=%s, Ch 00000008, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_%d faulted @ 0x7f%02x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (bus, job.pid[r], comm(job), rng.randrange(0, 8), rng.randrange(0, 255), rng.randrange(0, 2**32)))
        sim.add(t + 0.5, ("k", n), "NVRM: Xid (PCI:%s): 43, pid=%d, name=%s, Ch 00000008" % (bus, job.pid[r], comm(job)))
    ex.truth_rank, ex.truth_node = r, n
    ex.key_ranks.append(r)
    ex.victim = r
    ex.notes.append("rank %d on %s: %s" % (r, job.hosts[n], what))
    return plan


PY_EXC = [
    ("data_worker", None),
    ("collate", "KeyError: 'attention_mask'"),
    ("fwd", "ValueError: Expected input batch_size (%d) to match target batch_size (%d)."),
    ("data", "FileNotFoundError: [Errno 2] No such file or directory: '%s/data/tokenized/shard_%05d.bin'"),
    ("data", "json.decoder.JSONDecodeError: Unterminated string starting at: line 1 column %d (char %d)"),
    ("save", "RuntimeError: [enforce fail at inline_container.cc:603] . unexpected pos %d vs %d"),
    ("step", "AssertionError: loss is nan at step %d (rank %d)"),
    ("fwd", "RuntimeError: shape '[%d, %d, 32, 128]' is invalid for input of size %d"),
]


def st_python_exception(job, sim, ex):
    rng = job.rng
    r = pick_rank(job, avoid0=chance(rng, 0.6))
    n = job.node_of(r)
    t = job.t_fail + rng.uniform(0, job.step_time)
    plan = Plan()
    plan.t_coll = t + 0.05
    plan.mode = pick(rng, ["fast", "watchdog", "watchdog"])
    where, msg = pick(rng, PY_EXC)
    s = job.site
    if where == "data_worker":
        a = job.seq + 1
        b = rng.randrange(200, job.seq)
        inner = ["Original Traceback (most recent call last):",
                 '  File "%s/torch/utils/data/_utils/worker.py", line 309, in _worker_loop' % s,
                 "    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]",
                 '  File "%s/torch/utils/data/_utils/fetch.py", line 55, in fetch' % s,
                 "    return self.collate_fn(data)",
                 '  File "%s/torch/utils/data/_utils/collate.py", line 316, in default_collate' % s,
                 "    return collate(batch, collate_fn_map=default_collate_fn_map)",
                 '  File "%s/torch/utils/data/_utils/collate.py", line 150, in collate' % s,
                 "    return elem_type({key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem})",
                 '  File "%s/torch/utils/data/_utils/collate.py", line 213, in collate_tensor_fn' % s,
                 "    return torch.stack(batch, 0, out=out)",
                 "RuntimeError: stack expects each tensor to be equal size, but got [%d] at entry 0 and [%d] at entry %d" % (a, b, rng.randrange(1, job.mbs + 2)), ""]
        fr = f_user(job, "data") + [(s + "/torch/utils/data/dataloader.py", 1344 if job.style == "new" else 1326, "_next_data", "return self._process_data(data)"),
                                    (s + "/torch/utils/data/dataloader.py", 1370 if job.style == "new" else 1372, "_process_data", "data.reraise()"),
                                    (s + "/torch/_utils.py", 706 if job.style == "new" else 694, "reraise", "raise exception")]
        tb = traceback(job, fr, ["RuntimeError: Caught RuntimeError in DataLoader worker process %d." % rng.randrange(0, 8)] + inner)
        what = "collate error in a DataLoader worker (stack expects equal size)"
    else:
        if "batch_size" in msg:
            msg = msg % (job.mbs * job.seq, job.mbs * job.seq - rng.randrange(1, 40))
        elif "shard_" in msg:
            msg = msg % (job.workdir, rng.randrange(0, 4000))
        elif "Unterminated" in msg:
            c = rng.randrange(200, 90000)
            msg = msg % (c, c - 1)
        elif "unexpected pos" in msg:
            p = rng.randrange(10**9, 9 * 10**9)
            msg = msg % (p, p - rng.randrange(64, 4096))
        elif "loss is nan" in msg:
            msg = msg % (job.fail_step, r)
        elif "is invalid" in msg:
            a1 = job.mbs
            msg = msg % (a1, job.seq, a1 * (job.seq - rng.randrange(1, 9)) * 4096)
        fr = f_user(job, "data" if where in ("data", "collate") else where)
        if where == "data":
            fr += [(s + "/torch/utils/data/dataloader.py", 757, "_next_data", "data = self._dataset_fetcher.fetch(index)  # may raise StopIteration"),
                   (s + "/torch/utils/data/_utils/fetch.py", 52, "fetch", "data = [self.dataset[idx] for idx in possibly_batched_index]"),
                   (job.workdir + "/data.py", rng.randrange(40, 160), "__getitem__", "sample = self._load(self.index[idx])")]
        if where == "collate":
            fr += [(job.workdir + "/data.py", rng.randrange(160, 260), "collate", "masks = [ex['attention_mask'] for ex in examples]")]
        tb = traceback(job, fr, [msg])
        if where == "save":
            tb = traceback(job, fr, ["OSError: [Errno 28] No space left on device", "", "During handling of the above exception, another exception occurred:", ""]) + traceback(job, fr[-2:], [msg])
        what = msg.split(":")[0]
    sim.lines(t, ("e", r), pylines(job, r, tb), key=True)
    ex.err_tb[r] = tb
    plan.self_exit[r] = (t + rng.uniform(0.3, 2.5), 1)
    ex.truth_rank, ex.truth_node = r, n
    ex.key_ranks.append(r)
    ex.victim = r
    ex.notes.append("uncaught %s on rank %d (%s)" % (what, r, job.hosts[n]))
    return plan


def oom_kernel_block(job, rng, n, victim_pid, vcomm, memcg):
    gb = rng.randrange(480, 2000)
    L = ["%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0" % pick(rng, ["pt_main_thread", "python3", "pt_data_worker", "kworker/u256:3"]),
         "CPU: %d PID: %d Comm: python3 Tainted: P           OE     %s" % (rng.randrange(0, 128), victim_pid + rng.randrange(1, 50), job.kernel.replace(" ", " ")),
         "Hardware name: Supermicro SYS-421GE-TNRT/X13DEG-OAD, BIOS 2.1 02/14/2024",
         "Call Trace:", " <TASK>", " dump_stack_lvl+0x48/0x70", " dump_header+0x4f/0x1f0", " oom_kill_process+0x10b/0x220",
         " out_of_memory+0x233/0x540", " __alloc_pages_slowpath.constprop.0+0xc7b/0xe70" if not memcg else " mem_cgroup_out_of_memory+0x13a/0x150",
         " </TASK>"]
    if memcg:
        L.append("memory: usage %dkB, limit %dkB, failcnt %d" % (gb * 1048576, gb * 1048576, rng.randrange(1, 9000)))
    L += ["Mem-Info:", "active_anon:%d inactive_anon:%d isolated_anon:0" % (rng.randrange(10**8, 4 * 10**8), rng.randrange(10**6, 10**7)),
          "Tasks state (memory values in pages):",
          "[  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name"]
    for k in range(3):
        p = victim_pid - 3 + k * 2
        L.append("[%7d]  1000 %7d %9d %8d %14d        0             0 python3" % (p, p, rng.randrange(10**7, 9 * 10**7), rng.randrange(10**6, 3 * 10**7), rng.randrange(10**7, 9 * 10**7)))
    if memcg:
        L.append("oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=%s,mems_allowed=0-1,oom_memcg=%s,task_memcg=%s,task=%s,pid=%d,uid=1000" % ("/", memcg, memcg, vcomm, victim_pid))
        L.append("Memory cgroup out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:1000 pgtables:%dkB oom_score_adj:0" % (victim_pid, vcomm, rng.randrange(10**8, 4 * 10**8), rng.randrange(5 * 10**7, 2 * 10**8), rng.randrange(10**5, 10**6), rng.randrange(10**3, 10**6), rng.randrange(10**5, 10**6)))
    else:
        L.append("oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/user.slice/user-1000.slice/session-%d.scope,task=%s,pid=%d,uid=1000" % (rng.randrange(2, 900), vcomm, victim_pid))
        L.append("Out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:1000 pgtables:%dkB oom_score_adj:0" % (victim_pid, vcomm, rng.randrange(10**8, 4 * 10**8), rng.randrange(5 * 10**7, 2 * 10**8), rng.randrange(10**5, 10**6), rng.randrange(10**3, 10**6), rng.randrange(10**5, 10**6)))
    L.append("oom_reaper: reaped process %d (%s), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB" % (victim_pid, vcomm))
    return L


def st_host_oom_kill(job, sim, ex):
    rng = job.rng
    r = pick_rank(job, avoid0=False)
    n = job.node_of(r)
    t = job.t_fail + rng.uniform(0, job.step_time)
    plan = Plan()
    plan.t_coll = t + 0.05
    plan.mode = pick(rng, ["fast", "watchdog"])
    vopts = ["main", "main", "worker"] + (["pod", "pod"] if job.k8s else [])
    v = pick(rng, vopts)
    if job.slurm:
        memcg = "/slurm/uid_1000/job_%d/step_0" % job.jobid
    elif job.k8s:
        memcg = "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%08x_%04x.slice/cri-containerd-%016x.scope" % (rng.randrange(16**8), rng.randrange(16**4), rng.randrange(16**16))
    else:
        memcg = None
    if v == "worker":
        wpid = job.pid[r] + rng.randrange(300, 3000)
        sim.lines(t, ("k", n), oom_kernel_block(job, rng, n, wpid, "pt_data_worker" if job.tv >= (2, 3) else "python3", memcg), key=True, dt=0.0001)
        s = job.site
        fr = f_user(job, "data") + [(s + "/torch/utils/data/dataloader.py", 1329, "_next_data", "idx, data = self._get_data()"),
                                    (s + "/torch/utils/data/dataloader.py", 1295, "_get_data", "success, data = self._try_get_data()"),
                                    (s + "/torch/utils/data/dataloader.py", 1133, "_try_get_data", "data = self._data_queue.get(timeout=timeout)"),
                                    ("/usr/lib/python%s/multiprocessing/queues.py" % job.pyver, 113, "get", "if not self._poll(timeout):"),
                                    ("/usr/lib/python%s/multiprocessing/connection.py" % job.pyver, 257, "poll", "return self._poll(timeout)"),
                                    ("/usr/lib/python%s/multiprocessing/connection.py" % job.pyver, 440, "_poll", "r = wait([self], timeout)"),
                                    (s + "/torch/utils/data/_utils/signal_handling.py", 67, "handler", "_error_if_any_worker_fails()")]
        tb = traceback(job, fr, ["RuntimeError: DataLoader worker (pid %d) is killed by signal: Killed. " % wpid, "",
                                 "The above exception was the direct cause of the following exception:", ""])
        tb += traceback(job, f_user(job, "data") + [(s + "/torch/utils/data/dataloader.py", 1146, "_try_get_data", "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e")],
                        ["RuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly" % wpid])
        sim.lines(t + rng.uniform(0.2, 4), ("e", r), pylines(job, r, tb), key=True)
        ex.err_tb[r] = tb
        plan.self_exit[r] = (t + rng.uniform(4.5, 7), 1)
        ex.truth_rank = r
        ex.key_ranks.append(r)
        what = "DataLoader worker pid %d of rank %d" % (wpid, r)
    elif v == "main":
        sim.lines(t, ("k", n), oom_kernel_block(job, rng, n, job.pid[r], comm(job), memcg), key=True, dt=0.0001)
        plan.self_exit[r] = (t + rng.uniform(0.05, 0.3), -9)
        ex.truth_rank = r
        ex.lost_tail[r] = t - rng.uniform(0.5, 30)
        what = "rank %d main process pid %d" % (r, job.pid[r])
    else:
        sim.lines(t, ("k", n), oom_kernel_block(job, rng, n, job.pid[r], comm(job), memcg), key=True, dt=0.0001)
        plan.dead_nodes[n] = t + rng.uniform(0.2, 1.5)
        ex.pod_state[n] = {"reason": "OOMKilled", "code": 137}
        what = "whole container of pod %s (memory limit)" % job.hosts[n]
        ex.cut_pod = n
    if job.slurm:
        ex.oom_nodes.append(n)
    ex.truth_node = n
    ex.key_nodes.append(n)
    ex.victim = r
    ex.notes.append("host/cgroup OOM killer on %s killed %s%s" % (job.hosts[n], what, " (cgroup %s)" % memcg if memcg else " (global OOM)"))
    return plan


def st_crash_signal(job, sim, ex):
    rng = job.rng
    r = pick_rank(job)
    n = job.node_of(r)
    t = job.t_fail + rng.uniform(0, job.step_time)
    plan = Plan()
    plan.t_coll = t + 0.05
    plan.mode = pick(rng, ["fast", "watchdog"])
    v = pick(rng, ["segv", "segv", "abort", "bus"])
    py = "/usr/lib/python%s" % job.pyver
    s = job.site
    S = job.script_path
    stack = ["Thread 0x%012x (most recent call first):" % rng.randrange(0x7f0000000000, 0x7fffffffffff),
             '  File "%s/threading.py", line 324 in wait' % py, '  File "%s/threading.py", line 607 in wait' % py,
             '  File "%s/tqdm/_monitor.py", line 60 in run' % s, '  File "%s/threading.py", line 1016 in _bootstrap_inner' % py,
             '  File "%s/threading.py", line 973 in _bootstrap' % py, "",
             "Current thread 0x%012x (most recent call first):" % rng.randrange(0x7f0000000000, 0x7fffffffffff)]
    if v == "bus":
        stack += ['  File "%s/data.py", line %d in __getitem__' % (job.workdir, rng.randrange(40, 140)),
                  '  File "%s/torch/utils/data/_utils/fetch.py", line 52 in fetch' % s,
                  '  File "%s/torch/utils/data/dataloader.py", line 757 in _next_data' % s,
                  '  File "%s/torch/utils/data/dataloader.py", line 701 in __next__' % s]
    else:
        stack += ['  File "%s/torch/autograd/graph.py", line 825 in _engine_run_backward' % s,
                  '  File "%s/torch/autograd/__init__.py", line 347 in backward' % s,
                  '  File "%s/torch/_tensor.py", line 581 in backward' % s]
    stack += ['  File "%s", line %d in train' % (S, job.ln["train"] + 19), '  File "%s", line %d in main' % (S, job.ln["main"]),
              '  File "%s", line %d in <module>' % (S, job.ln["mod"]), ""]
    if job.pyver in ("3.11", "3.12"):
        stack += ["Extension modules: numpy.core._multiarray_umath, numpy.core._multiarray_tests, numpy.linalg._umath_linalg, torch._C, torch._C._dynamo.autograd_compiler, torch._C._dynamo.eval_frame, torch._C._dynamo.guards, torch._C._fft, torch._C._linalg, torch._C._nn, torch._C._sparse, torch._C._special, yaml._yaml, sentencepiece._sentencepiece, regex._regex (total: %d)" % rng.randrange(40, 110)]
    faulthandler = chance(rng, 0.7)
    L = []
    if v == "segv":
        code = -11
        if faulthandler:
            L = ["Fatal Python error: Segmentation fault", ""] + stack
        if chance(rng, 0.7):
            lib = pick(rng, ["libtorch_cpu.so", "libc.so.6", "libnccl.so.2", "flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so", "libgomp-a34b3233.so.1"])
            lk = "%s[%d]: segfault at %x ip %016x sp %016x error %d in %s[%x+%x]" % (comm(job), job.pid[r], pick(rng, [0, 8, 0x18, 0x7f3c00000000 + rng.randrange(0, 0xffff)]), rng.randrange(0x7f0000000000, 0x7fffffffffff), rng.randrange(0x7ffc00000000, 0x7fffffffffff), pick(rng, [4, 6, 14]), lib, rng.randrange(0x7f0000000000, 0x7fffffffffff) & ~0xfff, rng.randrange(0x100000, 0x1c5e2000))
            if job.kernel.startswith("6."):
                lk += " likely on CPU %d (core %d, socket %d)" % (rng.randrange(0, 96), rng.randrange(0, 48), rng.randrange(0, 2))
            sim.add(t + 0.001, ("k", n), lk, key=True)
            sim.add(t + 0.0012, ("k", n), "Code: 48 8b 47 08 48 85 c0 74 0a 48 8b 00 c3 66 0f 1f 44 00 00 31 c0 c3 0f 1f 80 00 00 00 00 f3 0f 1e fa <48> 8b 07 48 8b 40 18 ff e0")
        what = "SIGSEGV"
    elif v == "abort":
        code = -6
        L = [pick(rng, ["free(): invalid pointer", "double free or corruption (!prev)", "corrupted size vs. prev_size", "munmap_chunk(): invalid pointer"])]
        if faulthandler:
            L += ["Fatal Python error: Aborted", ""] + stack
        what = "SIGABRT from glibc heap corruption check"
    else:
        code = -7
        L = ["Fatal Python error: Bus error", ""] + stack
        what = "SIGBUS while reading a memory-mapped dataset file"
    if L:
        sim.lines(t, ("e", r), L, key=True)
    plan.self_exit[r] = (t + rng.uniform(0.01, 0.2), code)
    if chance(rng, 0.6):
        ex.cores.append((n, job.pid[r], comm(job)))
    ex.lost_tail[r] = t - rng.uniform(0.5, 20)
    ex.truth_rank, ex.truth_node = r, n
    ex.key_ranks.append(r)
    ex.victim = r
    ex.notes.append("rank %d on %s died with %s (%s), no hardware evidence" % (r, job.hosts[n], SIGNAMES[-code], what))
    return plan


def st_preemption(job, sim, ex):
    rng = job.rng
    t = job.t_fail + rng.uniform(0, job.step_time)
    plan = Plan()
    plan.t_coll = t
    plan.mode = pick(rng, ["fast", "watchdog"])
    if job.slurm:
        why = pick(rng, ["timelimit", "preempt"])
        t = math.ceil((t + job.ctrl_skew) / 60.0) * 60.0 - job.ctrl_skew + rng.uniform(0.0, 0.9)
        job.time_limit = t
        emit_slurm_cancel(job, sim, ex, t, why)
        for n in range(job.nnodes):
            plan.sigterm_nodes[n] = t + rng.uniform(0.01, 0.3)
        ex.sched = {"kind": why}
        ex.notes.append("Slurm cancelled the job %s; every torchrun agent got SIGTERM" % ("at its time limit" if why == "timelimit" else "for a higher-priority job (PREEMPTED)"))
    elif job.k8s:
        which = list(range(job.nnodes)) if chance(rng, 0.35) else [rng.randrange(job.nnodes)]
        for n in which:
            tt = t + rng.uniform(0, 2)
            plan.sigterm_nodes[n] = tt
            ex.pod_state[n] = {"reason": "Terminated", "code": 143, "message": "Pod was terminated in response to imminent node shutdown."}
            lpid, kpid = rng.randrange(700, 1500), rng.randrange(1500, 3000)
            sim.add(tt - rng.uniform(5, 25), ("k", n), "@systemd-logind[%d]|Power key pressed short." % lpid, key=True)
            sim.add(tt - 2, ("k", n), (lambda kp: (lambda d: "@kubelet[%d]|I%s.%06d %7d nodeshutdown_manager_linux.go:265] \"Shutdown manager detected new shutdown event, isNodeShuttingDownNow\" event=true" % (kp, d.strftime("%m%d %H:%M:%S"), d.microsecond, kp)))(kpid), key=True)
            sim.add(tt - 1.9, ("k", n), "@systemd-logind[%d]|System is powering down." % lpid, key=True)
            ex.key_nodes.append(n)
        ex.preempt_nodes = which
        if len(which) == 1:
            ex.truth_node = which[0]
        ex.notes.append("spot/preemptible node(s) %s shut down; pods terminated 'in response to imminent node shutdown'" % [job.machines[n] for n in which])
    else:
        which = list(range(job.nnodes)) if (job.nnodes == 1 or chance(rng, 0.5)) else [rng.randrange(job.nnodes)]
        for n in which:
            tt = t + rng.uniform(0, 2)
            plan.sigterm_nodes[n] = tt
            lpid = rng.randrange(700, 1500)
            sim.add(tt - rng.uniform(3, 20), ("k", n), "@systemd-logind[%d]|Power key pressed short." % lpid, key=True)
            sim.add(tt - 1.5, ("k", n), "@systemd-logind[%d]|Powering off..." % lpid, key=True)
            sim.add(tt - 1.4, ("k", n), "@systemd-logind[%d]|System is powering down." % lpid, key=True)
            ex.key_nodes.append(n)
        if len(which) == 1 and job.nnodes > 1:
            ex.truth_node = which[0]
        ex.preempt_nodes = which
        ex.notes.append("cloud spot VM(s) %s reclaimed (ACPI power-button shutdown); launchers got SIGTERM" % [job.hosts[n] for n in which])
    if chance(rng, 0.5):
        for n in plan.sigterm_nodes:
            r0 = n * job.gpn
            sim.add(plan.sigterm_nodes[n] + 0.02, ("o", r0), logf(job, r0, "WARNING", "[rank %d] caught signal 15 (SIGTERM), trying to save an emergency checkpoint to %s/checkpoints/emergency" % (r0, job.workdir)))
    return plan


def st_hang(job, sim, ex):
    rng = job.rng
    r = pick_rank(job)
    n, l = job.node_of(r), job.local_of(r)
    t = job.t_fail + rng.uniform(0, job.step_time * 0.8)
    plan = Plan()
    plan.stuck = [r]
    plan.t_coll = t + rng.uniform(0.05, 0.4)
    plan.mode = "watchdog"
    kind = pick(rng, ["deadlock", "deadlock", "gpu"])
    if chance(rng, 0.55):
        ex.pyspy[r] = pyspy_text(job, r, plan.t_coll + job.timeout_ms / 1000.0 * rng.uniform(0.3, 0.8), kind)
    if kind == "deadlock" and chance(rng, 0.5):
        util = [100] * job.gpn
        util[l] = 0
        ex.nvsmi[n] = nvsmi_table(job, n, plan.t_coll + job.timeout_ms / 1000.0 * 0.5, util=util, mem=[int(job.gpu_mib * rng.uniform(0.6, 0.9))] * job.gpn)
    if job.per_rank_timing and chance(rng, 0.5):
        sim.add(t, ("o", r), logf(job, r, "INFO", "[rank %d] entering metrics flush (queue depth %d)" % (r, rng.randrange(500, 4000))), key=True)
    ex.truth_rank, ex.truth_node = r, n
    ex.need_all_ranks = not (ex.pyspy or ex.nvsmi)
    ex.key_ranks.append(r)
    ex.notes.append("rank %d on %s stopped making progress (%s) at step ~%d; every other rank timed out in %s SeqNum %d" % (r, job.hosts[n], "CPU-side deadlock" if kind == "deadlock" else "spinning GPU kernel", job.fail_step, job.optype, job.seq_at(job.fail_step)))
    return plan


def st_data_loader_stall(job, sim, ex):
    rng = job.rng
    r = pick_rank(job)
    n = job.node_of(r)
    t = job.t_fail + rng.uniform(0, job.step_time)
    plan = Plan()
    plan.t_coll = t + rng.uniform(0.1, 0.5)
    plan.mode = pick(rng, ["fast", "watchdog"])
    fs = pick(rng, ["nfs", "lustre"])
    K = ("k", n)
    t_io = t - rng.uniform(30, 200)
    if fs == "nfs":
        srv = pick(rng, ["fs01", "nas-data", "storage02"])
        sim.add(t_io, K, "nfs: server %s not responding, still trying" % srv, key=True)
        sim.add(t_io + 0.3, K, "nfs: server %s not responding, still trying" % srv, key=True)
    else:
        ost = rng.randrange(0, 64)
        sim.add(t_io, K, "Lustre: scratch-OST%04x-osc-ffff9e3c4c1f%04x: Connection to scratch-OST%04x (at 10.10.1.%d@o2ib) was lost; in progress operations using this service will wait for recovery to complete" % (ost, rng.randrange(16**4), ost, rng.randrange(2, 250)), key=True)
        sim.add(t_io + 0.01, K, "LustreError: 11-0: scratch-OST%04x-osc-ffff9e3c4c1f%04x: operation ost_read to node 10.10.1.%d@o2ib failed: rc = -107" % (ost, rng.randrange(16**4), rng.randrange(2, 250)), key=True)
    wpid = job.pid[r] + rng.randrange(300, 3000)
    sim.lines(t_io + 130, K, ["INFO: task pt_data_worker:%d blocked for more than 120 seconds." % wpid if job.tv >= (2, 3) else "INFO: task python3:%d blocked for more than 120 seconds." % wpid,
                              "      Tainted: P           OE     %s" % job.kernel,
                              "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.",
                              "task:pt_data_worker  state:D stack:0     pid:%d   ppid:%d  flags:0x00000002" % (wpid, job.pid[r]),
                              "Call Trace:", " <TASK>", " __schedule+0x2cd/0x890", " schedule+0x69/0x110", " io_schedule+0x46/0x80",
                              " folio_wait_bit_common+0x136/0x330", " filemap_get_pages+0x5f4/0x6b0" if fs == "nfs" else " ll_file_read_iter+0x1d4/0x300 [lustre]",
                              " filemap_read+0xb9/0x330", " vfs_read+0x1f1/0x3a0", " ksys_read+0x67/0xf0", " do_syscall_64+0x59/0x90", " </TASK>"], key=True)
    waits = sorted(rng.uniform(6, 90) for _ in range(rng.randrange(2, 5)))
    for k, w in enumerate(waits):
        tt = t - (len(waits) - k) * rng.uniform(8, 30)
        sim.add(tt, ("o", r), logf(job, r, "WARNING", "[rank %d] slow dataloader: waited %.1fs for batch (step %d)" % (r, w, job.fail_step - (len(waits) - k) * rng.randrange(1, 6))), key=True)
    v = pick(rng, ["timeout", "stall"])
    if v == "timeout":
        dl_to = 300 if job.timeout_ms <= 600000 else 900
        s = job.site
        fr = f_user(job, "data") + [(s + "/torch/utils/data/dataloader.py", 1329, "_next_data", "idx, data = self._get_data()"),
                                    (s + "/torch/utils/data/dataloader.py", 1285, "_get_data", "success, data = self._try_get_data()"),
                                    (s + "/torch/utils/data/dataloader.py", 1146, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e")]
        tb = traceback(job, fr, ["RuntimeError: DataLoader timed out after %d seconds" % dl_to])
        sim.lines(t + dl_to, ("e", r), pylines(job, r, tb), key=True)
        ex.err_tb[r] = tb
        plan.self_exit[r] = (t + dl_to + rng.uniform(0.3, 2), 1)
        plan.t_coll = t + 0.2
        what = "DataLoader(timeout=%d) raised" % dl_to
    else:
        plan.stuck = [r]
        plan.mode = "watchdog"
        if chance(rng, 0.6):
            ex.pyspy[r] = pyspy_text(job, r, plan.t_coll + job.timeout_ms / 1000.0 * 0.5, "data")
        what = "rank stuck waiting for its DataLoader; peers timed out in the collective"
    ex.truth_rank, ex.truth_node = r, n
    ex.key_nodes.append(n)
    ex.key_ranks.append(r)
    ex.notes.append("%s I/O stall on %s: rank %d's loader blocked (%s)" % (fs, job.hosts[n], r, what))
    return plan


def st_collective_mismatch(job, sim, ex):
    rng = job.rng
    r = pick_rank(job)
    n = job.node_of(r)
    t = job.t_fail + rng.uniform(0, job.step_time)
    plan = Plan()
    plan.t_coll = t
    plan.mode = "watchdog"
    seq = job.seq_at(job.fail_step)
    odd_op = pick(rng, ["BROADCAST", "ALLGATHER", "ALLREDUCE"])
    if odd_op == job.optype:
        odd_op = "BROADCAST"
    v = pick(rng, ["detail", "silent", "silent"])
    odd_numel = 1 if odd_op != "ALLREDUCE" else rng.randrange(1, 4096)
    if v != "detail" or chance(rng, 0.5):
        sim.add(t - 0.01, ("o", r), logf(job, r, "WARNING", pick(rng, ["[rank %d] batch had 0 valid tokens after filtering, skipping optimizer step" % r,
                                                                        "[rank %d] early-stop patience exhausted, broadcasting stop flag" % r,
                                                                        "[rank %d] end of shard reached, starting eval pass" % r])), key=True)
    if v == "detail":
        opts = "TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))"
        optl = "TensorOptions(dtype=long int, device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))"
        shape = job.numel if job.parallel == "ddp" else 1
        a = "CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%d], TensorDtypes=Float, TensorDeviceTypes=%s)" % (seq, "ALLREDUCE", shape, opts)
        b = "CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%d], TensorDtypes=Long, TensorDeviceTypes=%s)" % (seq, odd_op, odd_numel, optl)
        msg = "RuntimeError: Detected mismatch between collectives on ranks. Rank 0 is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects: \t Op type: ALLREDUCEvs %s\t Tensor Tensor shapes: [%d]vs [%d]\t Tensor Tensor dtypes: Floatvs Long" % (a, r, b, odd_op, shape, odd_numel)
        for rr in range(job.world):
            tt = t + rng.uniform(0.0, 0.6)
            fr = f_user(job, "allreduce")
            if rr == r:
                fr = fr[:2] + [(job.script_path, job.ln["train"] + 57, "train", "dist.broadcast(stop_flag, src=0)" if odd_op == "BROADCAST" else "dist.all_gather(gathered, local_count)" if odd_op == "ALLGATHER" else "dist.all_reduce(ntok)")] + fr[3:]
            fr += [(job.site + "/torch/distributed/distributed_c10d.py", 2501 if job.style == "new" else 2050, "all_reduce", "work = group.allreduce([tensor], opts)")]
            sim.lines(tt, ("e", rr), pylines(job, rr, traceback(job, fr, [msg])), key=(rr == r or rr == 0))
            plan.self_exit[rr] = (tt + rng.uniform(0.3, 2.5), 1)
        what = "TORCH_DISTRIBUTED_DEBUG=DETAIL fingerprint check raised on every rank"
    else:
        for rr in range(job.world):
            plan.wd[rr] = (seq, job.optype, job.numel)
        plan.wd[r] = (seq, odd_op, odd_numel)
        tw = plan.t_coll + job.timeout_ms / 1000.0 + rng.uniform(0.005, 0.1)
        sim.lines(tw, ("e", r), watchdog_timeout_lines(job, rng, r, seq, odd_op, odd_numel, job.timeout_ms + rng.randrange(5, 300)), key=True, dt=0.0003)
        plan.self_exit[r] = (tw + rng.uniform(0.05, 0.3), -6)
        peer = (r + 1) % job.gpn + job.node_of(r) * job.gpn if job.gpn > 1 else (r + 1) % job.world
        tp = tw + rng.uniform(0.001, 0.03)
        sim.lines(tp, ("e", peer), watchdog_timeout_lines(job, rng, peer, seq, job.optype, job.numel, job.timeout_ms + rng.randrange(5, 300)), dt=0.0003)
        plan.self_exit[peer] = (tp + rng.uniform(0.05, 0.3), -6)
        what = "no debug: all ranks hit the NCCL watchdog; rank %d's WorkNCCL is %s NumelIn=%d while the others show %s NumelIn=%d" % (r, odd_op, odd_numel, job.optype, job.numel)
    ex.truth_rank, ex.truth_node = r, n
    ex.key_ranks.append(r)
    ex.need_all_ranks = False
    ex.notes.append("rank %d issued %s at SeqNum %d while the rest issued %s (%s)" % (r, odd_op, seq, job.optype, what))
    return plan


def st_straggler(job, sim, ex):
    rng = job.rng
    v = pick(rng, ["gpu_thermal", "gpu_power", "node_cpu", "gpu_thermal"])
    onset = rng.randrange(60, max(100, job.fail_step // 2))
    factor = rng.uniform(1.5, 3.0)
    job.per_rank_timing = True
    if v.startswith("gpu"):
        r = pick_rank(job)
        n, l = job.node_of(r), job.local_of(r)
        slow = [r]
        ex.nvsmi_q[n] = nvsmi_q(job, n, job.t_step(onset) + 600, bad_gpu=l, throttle="thermal" if v == "gpu_thermal" else "power")
        ex.truth_rank, ex.truth_node = r, n
        what = "GPU %d of %s throttled (%s): rank %d ~%.1fx slower from step %d" % (l, job.hosts[n], v[4:], r, factor, onset)
    else:
        n = rng.randrange(job.nnodes)
        slow = job.ranks_on(n)
        t0 = job.t_step(onset)
        for k in range(rng.randrange(3, 7)):
            sim.add(t0 + k * rng.uniform(30, 300), ("k", n), "mce: CPU%d: Package temperature above threshold, cpu clock throttled (total events = %d)" % (rng.randrange(0, 96), rng.randrange(1000, 90000)), key=True)
        ex.truth_node = n
        if job.nnodes == 1:
            ex.truth_rank = None
        what = "all ranks on %s ~%.1fx slower from step %d (CPU package thermal throttling)" % (job.hosts[n], factor, onset)
    emit_training(job, sim, job.fail_step, slow=(onset, slow, factor))
    t_end = job.t_step(onset) + (job.fail_step - onset) * job.step_time * factor
    if job.slurm and chance(rng, 0.6):
        tc = t_end + rng.uniform(5, 60)
        emit_slurm_cancel(job, sim, ex, tc, "user")
        plan = Plan()
        plan.t_coll = tc
        for m in range(job.nnodes):
            plan.sigterm_nodes[m] = tc + rng.uniform(0.01, 0.3)
        ex.cancel_by_user = tc
        ex.sched = {"kind": "user"}
        propagate(job, sim, plan, ex)
        end = "user scancel'ed the job"
    else:
        ex.still_running = True
        ex.t_end = t_end + rng.uniform(5, 60)
        end = "job still running when logs were collected"
    ex.key_ranks += slow
    ex.notes.append("straggler: %s; %s" % (what, end))
    ex.straggler = True
    return None


def st_unknown(job, sim, ex):
    rng = job.rng
    r = pick_rank(job)
    n = job.node_of(r)
    t = job.t_fail + rng.uniform(0, job.step_time)
    plan = Plan()
    plan.t_coll = t + 0.05
    plan.mode = pick(rng, ["fast", "watchdog"])
    opts = ["silent", "silent", "sigkill"] + (["nodefail", "nodefail", "nodefail"] if job.slurm and job.nnodes > 1 else [])
    v = pick(rng, opts)
    ex.unknown_rank = r
    if v == "silent":
        plan.self_exit[r] = (t, 1)
        if chance(rng, 0.5):
            ex.lost_tail[r] = t - rng.uniform(1, 40)
        ex.truth_rank, ex.truth_node = r, n
        ex.notes.append("rank %d on %s exited with code 1 and printed nothing (its own log is cut/NUL-filled); nothing in kernel or scheduler logs" % (r, job.hosts[n]))
    elif v == "sigkill":
        plan.self_exit[r] = (t, -9)
        ex.truth_rank, ex.truth_node = r, n
        ex.notes.append("rank %d on %s got SIGKILL (exit -9) but the collected kernel log shows no OOM killer and nothing else explains it" % (r, job.hosts[n]))
    else:
        n = rng.randrange(1, job.nnodes)
        plan.dead_nodes[n] = t
        ex.reboot[n] = t + rng.uniform(240, 900)
        boot_lines(job, sim, n, ex.reboot[n])
        ex.nodefail = n
        ex.truth_node = n
        ex.notes.append("node %s vanished (Slurm NODE FAILURE, machine rebooted) with no kernel/GPU evidence of why" % job.hosts[n])
    ex.unknown = v
    return plan


STORIES = {"gpu_hardware": st_gpu_hardware, "ecc_memory": st_ecc_memory, "nvlink": st_nvlink, "network": st_network,
           "cuda_oom": st_cuda_oom, "illegal_memory_access": st_illegal_memory_access, "python_exception": st_python_exception,
           "host_oom_kill": st_host_oom_kill, "crash_signal": st_crash_signal, "preemption": st_preemption, "hang": st_hang,
           "data_loader_stall": st_data_loader_stall, "collective_mismatch": st_collective_mismatch, "straggler": st_straggler,
           "unknown": st_unknown}


def st_healthy(job, sim, ex):
    rng = job.rng
    job.total_steps = job.fail_step + rng.randrange(0, 3) * job.log_every
    last = job.total_steps
    emit_training(job, sim, last + 1)
    t = job.t_step(last) + rng.uniform(0.5, 3)
    sim.add(t, ("o", 0), logf(job, 0, "INFO", "Saving final checkpoint to %s/checkpoints/step_%d" % (job.workdir, last)))
    t += rng.uniform(5, 40)
    sim.add(t, ("o", 0), logf(job, 0, "INFO", "Training completed: %d steps in %s" % (last, hms(t - job.t_train0))))
    if job.tqdm and job.launcher == "torchrun":
        sim.add(t - 0.5, ("e", 0), tqdm_bar(last, last, t - job.t_train0, last / (t - job.t_train0)))
    if job.style == "new" and chance(rng, 0.6):
        for r in range(job.world):
            sim.add(t + 1 + rng.uniform(0, 1.5), ("e", r), cpp(job, r, "W", "ProcessGroupNCCL.cpp:1250", "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only recently been added since it's a common misuse. To learn more, see https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())"))
    if job.style != "old" and job.nnodes > 1 and chance(rng, 0.5):
        for n in range(1, job.nnodes):
            sim.add(t + 3 + rng.uniform(0, 2), ("a", n), c10d_warn(job, "socket.cpp:%d" % (464 if job.style == "mid" else 487), "[c10d] recvValue failed on SocketImpl(fd=%d, addr=[%s]:%d, remote=[%s]:29500): Connection reset by peer" % (rng.randrange(3, 90), job.hosts[n], rng.randrange(32768, 60999), job.hosts[0])))
    if chance(rng, 0.3):
        rr = rng.randrange(job.world)
        sim.add(job.t_step(rng.randrange(50, last)), ("o", rr), logf(job, rr, "WARNING", "[rank %d] non-finite grad norm detected (inf), skipping optimizer step (loss scale -> %d)" % (rr, pick(rng, [32768, 16384, 8192]))))
    if chance(rng, 0.35):
        n = rng.randrange(job.nnodes)
        tt = job.t_step(rng.randrange(50, last))
        hca = rng.randrange(0, 8)
        sim.add(tt, ("k", n), "mlx5_core 0000:%s:00.0 mlx5_%d: Port: 1 Link DOWN" % (pick(rng, ["0c", "5e"]), hca))
        sim.add(tt + rng.uniform(1.5, 4), ("k", n), "mlx5_core 0000:%s:00.0 mlx5_%d: Port: 1 Link ACTIVE" % (pick(rng, ["0c", "5e"]), hca))
        ex.notes.append("harmless: short IB link flap on %s (recovered in seconds, training continued)" % job.hosts[n])
    if chance(rng, 0.3):
        n = rng.randrange(job.nnodes)
        ex.nvsmi_q[n] = nvsmi_q(job, n, t + 60)
    if job.launcher == "deepspeed":
        for n in range(job.nnodes):
            for i, r in enumerate(job.ranks_on(n)):
                sim.add(t + 4 + 0.02 * i, ("a", n), (lambda p: (lambda d: "[%s] [INFO] [launch.py:351:main] Process %d exits successfully." % (d_py(d), p)))(job.pid[r]))
    ex.t_end = t + 8
    ex.agent = {}
    ex.exits = {}
    ex.killed = {}
    ex.notes.append("healthy: %d steps completed" % last)


# ---------------------------------------------------------------- deepspeed startup
def emit_ds_startup(job, sim):
    rng = job.rng
    info = {}
    for n in range(job.nnodes):
        info[job.hosts[n]] = list(range(job.gpn))
    import base64
    wi = base64.urlsafe_b64encode(json.dumps(info).encode()).decode()
    R = lambda where, msg, lvl="INFO": (lambda d: "[%s] [%s] [%s] %s" % (d_py(d), lvl, where, msg))
    sim.lines(-3.0, ("r", 0), [R("real_accelerator.py:203:get_accelerator", "Setting ds_accelerator to cuda (auto detect)"),
                               R("runner.py:463:main", "Using IP address of %s for node %s" % (job.ips[0], job.hosts[0])),
                               R("multinode_runner.py:80:get_cmd", "Running on the following workers: %s" % ",".join(job.hosts)),
                               R("runner.py:568:main", "cmd = pdsh -S -f 1024 -w %s export PYTHONPATH=%s;  cd %s; %s -u -m deepspeed.launcher.launch --world_info=%s --node_rank=%%n --master_addr=%s --master_port=29500 %s --deepspeed --deepspeed_config ds_config.json" % (",".join(job.hosts), job.workdir, job.workdir, job.python, wi, job.ips[0], job.script))], dt=0.4)
    gm = {}
    for n in range(job.nnodes):
        gm[job.hosts[n]] = job.ranks_on(n)
    for n in range(job.nnodes):
        t = -0.5 + rng.random()
        sim.lines(t, ("a", n), [R("real_accelerator.py:203:get_accelerator", "Setting ds_accelerator to cuda (auto detect)"),
                                R("launch.py:146:main", "WORLD INFO DICT: %s" % repr(info)),
                                R("launch.py:152:main", "nnodes=%d, num_local_procs=%d, node_rank=%d" % (job.nnodes, job.gpn, n)),
                                R("launch.py:163:main", "global_rank_mapping=defaultdict(<class 'list'>, %s)" % repr(gm)),
                                R("launch.py:164:main", "dist_world_size=%d" % job.world),
                                R("launch.py:166:main", "Setting CUDA_VISIBLE_DEVICES=%s" % ",".join(str(i) for i in range(job.gpn)))], dt=0.001)
    for r in range(job.world):
        t = 15 + rng.random() * 4
        sim.add(t, ("o", r), R("comm.py:637:init_distributed", "cdb=None"))
    sim.add(19.5, ("o", 0), R("comm.py:668:init_distributed", "Initializing TorchBackend in DeepSpeed with backend nccl"))
    sim.add(40.2, ("o", 0), R("logging.py:96:log_dist", "[Rank 0] DeepSpeed info: version=%s, git-hash=unknown, git-branch=unknown" % pick(rng, ["0.12.6", "0.13.1", "0.14.4", "0.15.4"])))
    sim.add(41.0, ("o", 0), R("logging.py:96:log_dist", "[Rank 0] Creating torch.bfloat16 ZeRO stage %d optimizer" % pick(rng, [1, 2, 3])))
    sim.add(41.1, ("o", 0), R("stage_1_and_2.py:148:__init__", "Reduce bucket size 500000000"))


# ---------------------------------------------------------------- writer helpers
def rend(job, sim, ex, streams, t_max=None, t_min=None):
    items = sim.render(streams, t_min, t_max)
    lt = ex.lost_tail
    if lt:
        items = [it for it in items if not (it[1][0] == "o" and it[1][1] in lt and it[0] > lt[it[1][1]])]
    return items


def slurm_label(job):
    def lab(s):
        if s[0] in ("o", "e"):
            return "%d: " % job.node_of(s[1])
        if s[0] == "a":
            return "%d: " % s[1]
        return ""
    return lab


def cut_tail(data, rng, frac=None):
    """Cut the last line mid-way (process killed / disk full while writing)."""
    if len(data) < 40:
        return data
    body = data.rstrip(b"\n")
    i = body.rfind(b"\n")
    last = body[i + 1:]
    if len(last) < 8:
        return body
    k = int(len(last) * (frac if frac else rng.uniform(0.2, 0.8)))
    return body[:i + 1] + last[:k]


def nul_run(rng, lo=1, hi=5):
    return b"\x00" * (4096 * rng.randrange(lo, hi + 1) - rng.randrange(0, 1500))


def true_t(job, n, dt):
    return (dt - job.t0).total_seconds() - (job.skew[n] if n is not None else job.ctrl_skew)


def add_day_noise(job, sim, ex, t_from, t_to):
    rng = job.rng
    for n in range(job.nnodes):
        k = int((t_to - t_from) / 86400.0 * 5) + 1
        for _ in range(min(k, 30)):
            t = rng.uniform(t_from, t_to)
            if ex.reboot.get(n) and abs(t - ex.reboot[n]) < 120:
                continue
            m = pick(rng, KNOISE[:6] + KNOISE[8:])
            if "%d" in m:
                m = m % tuple(rng.randrange(1000, 99999) for _ in range(m.count("%d")))
            sim.add(t, ("k", n), m)


def kern_files(job, sim, ex, n, t_collect, prefix, style, rot_hour, lost_at_crash=True):
    """Return list of (name, bytes) for kern.log, kern.log.1, kern.log.2.gz ... rotated daily."""
    rng = job.rng
    d_c = job.local(n, t_collect)
    bounds = []
    day = _dt.datetime(d_c.year, d_c.month, d_c.day, rot_hour, 25, rng.randrange(0, 59))
    if day > d_c:
        day -= _dt.timedelta(days=1)
    for k in range(5):
        bounds.append(true_t(job, n, day - _dt.timedelta(days=k)))
    out = []
    hi = t_collect
    for k, lo in enumerate(bounds):
        if hi < -86400 * 4:
            break
        items = sim.render([("k", n)], lo, hi)
        lines = []
        crash_done = False
        rb = ex.reboot.get(n)
        for t, s, text, key in items:
            if rb is not None and t >= rb and not crash_done and lost_at_crash and lo <= rb < hi:
                lines.append(None)
                crash_done = True
            l = kmsg(job, ex, n, t, text, style)
            if l is not None:
                lines.append(l)
        data = b""
        for l in lines:
            data += nul_run(rng, 1, 3) if l is None else (l + "\n").encode("utf-8")
        name = prefix + ("" if k == 0 else ".%d" % k)
        if k >= 2:
            out.append((name + ".gz", gz(data)))
        else:
            out.append((name, data))
        hi = lo
    return out


def has_key(items):
    return any(it[3] for it in items)


def sacct_text(job, ex):
    el = ex.t_end if ex.t_end else 3600
    if job.healthy:
        st, ec = "COMPLETED", "0:0"
    elif ex.still_running:
        st, ec = "RUNNING", "0:0"
    elif ex.sched and ex.sched.get("kind") == "timelimit":
        st, ec = "TIMEOUT", "0:0"
    elif ex.sched and ex.sched.get("kind") == "preempt":
        st, ec = "PREEMPTED", "0:0"
    elif ex.sched and ex.sched.get("kind") == "nodefail":
        st, ec = "NODE_FAIL", "1:0"
    elif ex.sched and ex.sched.get("kind") == "user":
        st, ec = "CANCELLED+", "0:0"
    elif ex.sched and ex.sched.get("kind") == "oom":
        st, ec = "OUT_OF_ME+", "0:125"
    else:
        st, ec = "FAILED", "1:0"
    sst = {"COMPLETED": "COMPLETED", "RUNNING": "RUNNING", "TIMEOUT": "CANCELLED", "PREEMPTED": "CANCELLED", "NODE_FAIL": "NODE_FAIL",
           "CANCELLED+": "CANCELLED", "OUT_OF_ME+": "OUT_OF_ME+", "FAILED": "FAILED"}[st]
    sec = "0:15" if sst == "CANCELLED" else ec

    def e(s):
        s = int(s)
        dd, s = divmod(s, 86400)
        return ("%d-" % dd if dd else "") + "%02d:%02d:%02d" % (s // 3600, s % 3600 // 60, s % 60)

    def f(v, w):
        v = str(v)
        return (v[:w - 1] + "+") if len(v) > w else v.rjust(w)
    nl = slurm_host_list(job)
    jn = job.proj[:10]
    rows = [("JobID", "JobName", "Partition", "State", "ExitCode", "Elapsed", "NodeList")]
    rows.append((str(job.jobid), jn, "gpu", st, ec, e(el + 30), nl))
    rows.append(("%d.batch" % job.jobid, "batch", "", sst if sst != "RUNNING" else "RUNNING", sec if sst == "CANCELLED" else ec, e(el + 30), job.hosts[0]))
    rows.append(("%d.extern" % job.jobid, "extern", "", "COMPLETED" if st != "RUNNING" else "RUNNING", "0:0", e(el + 31), nl))
    rows.append(("%d.0" % job.jobid, "torchrun", "", sst, sec if sst == "CANCELLED" else ec, e(el), nl))
    W = [12, 10, 10, 10, 8, 10, 15]
    out = [" ".join(f(c, w) for c, w in zip(rows[0], W)) + " ", " ".join("-" * w for w in W) + " "]
    for row in rows[1:]:
        out.append(" ".join(f(c, w) for c, w in zip(row, W)) + " ")
    return "\n".join(out) + "\n"


GERMAN_DAYS = ["Mo", "Di", "Mi", "Do", "Fr", "Sa", "So"]
GERMAN_MON = ["Jan", "Feb", "M\u00e4r", "Apr", "Mai", "Jun", "Jul", "Aug", "Sep", "Okt", "Nov", "Dez"]


def job_banner(job, latin):
    d = job.local(0, -4)
    if latin:
        return [("Jobstart: %s %d. %s %s CEST %d\n" % (GERMAN_DAYS[d.weekday()], d.day, GERMAN_MON[d.month - 1], d.strftime("%H:%M:%S"), d.year), True),
                ("Knoten: %s  (%d GPUs je Knoten)\n" % (slurm_host_list(job), job.gpn), True),
                ("Projekt: Vortraining Gr\u00f6\u00dfe %s - L\u00e4ufe f\u00fcr J\u00fcrgen, Verzeichnis %s\n" % (pick(job.rng, ["7B", "13B", "1.3B"]), job.workdir), True),
                ("The following have been reloaded with a version change:\n", False),
                ("  1) cuda/12.1 => cuda/%s     2) nccl/2.18 => nccl/%s\n" % (job.cuda, job.nccl), False),
                ("\n", False)]
    return [("Job %d starting at %s on %s\n" % (job.jobid, d.strftime("%a %b %d %H:%M:%S %Z%Y").replace("  ", " "), slurm_host_list(job)), False),
            ("MASTER_ADDR=%s MASTER_PORT=29500 WORLD_SIZE=%d\n" % (job.hosts[0], job.world), False)]


def torchrun_cmd(job, n):
    return "%s --nnodes=%d --nproc_per_node=%d --rdzv_id=%s --rdzv_backend=c10d --rdzv_endpoint=%s:29500 %s --config configs/%s.yaml" % (
        "torchrun", job.nnodes, job.gpn, job.jobid if job.slurm else job.runid, job.hosts[0], job.script, job.proj)


def old_attempt(job, n, days_back, fail=False):
    """Console text of an earlier, shorter attempt on node n (healthy unless fail)."""
    import copy
    rng = random.Random("old/%d/%d/%s/%.9f" % (job.idx, n, days_back, job.rng.random()))
    j2 = copy.copy(job)
    j2.rng = rng
    j2.t0 = job.t0 - _dt.timedelta(days=days_back, seconds=rng.randrange(3600, 40000))
    j2.agent_pid = [rng.randrange(2000, 3900000) for _ in range(job.nnodes)]
    j2.pid = {}
    for m in range(job.nnodes):
        b = j2.agent_pid[m] + rng.randrange(40, 400)
        for l in range(job.gpn):
            j2.pid[m * job.gpn + l] = b + l
    j2.fail_step = rng.randrange(150, 700)
    j2.log_every = 25
    j2.t_fail = j2.t_step(j2.fail_step)
    j2.tqdm_budget = 80
    j2.huge_line = False
    j2.per_rank_timing = False
    j2.nccl_debug = False
    j2.runid = "%x" % rng.randrange(16**7, 16**8)
    j2.cause = "cuda_oom" if fail else None
    j2.healthy = not fail
    j2.kill_on_bad_exit = False
    j2.record = False
    sim2 = Sim(j2)
    ex2 = Extras()
    emit_startup(j2, sim2)
    if fail:
        emit_training(j2, sim2, j2.fail_step)
        plan = st_cuda_oom(j2, sim2, ex2)
        plan.mode = "fast"
        propagate(j2, sim2, plan, ex2)
    else:
        st_healthy(j2, sim2, ex2)
    return join_items(rend(j2, sim2, ex2, node_streams(j2, n)))


# ---------------------------------------------------------------- layout: rotated_tee
def w_rotated(job, sim, ex):
    rng = job.rng
    files = {}
    multi = job.nnodes > 1
    quirks = []
    t_col = ex.t_end + rng.uniform(600, 86400 * 0.8)
    deep_kernel = (not job.healthy) and ex.key_nodes and chance(rng, 0.35)
    if deep_kernel:
        t_col = ex.t_end + 86400 * rng.uniform(2.05, 2.9)
        quirks.append("kernel evidence only in an older gzip-rotated kern.log.N.gz (logs collected 2-3 days later)")
    add_day_noise(job, sim, ex, -86400 * 4, t_col)
    for n in range(job.nnodes):
        base = (job.hosts[n] + "/") if multi else ""
        items = rend(job, sim, ex, node_streams(job, n))
        split = (not job.healthy) and has_key(items) and chance(rng, 0.4)
        olds = []
        nold = rng.randrange(1, 4)
        for k in range(nold):
            fail_old = job.healthy and k == 0 and chance(rng, 0.4)
            olds.append(old_attempt(job, n, 1 + k * rng.randrange(1, 4), fail=fail_old).encode("utf-8"))
            if fail_old:
                quirks.append("an OLDER rotated attempt on %s crashed with CUDA OOM (fixed since)" % job.hosts[n])
        if split:
            lastkey = max(it[0] for it in items if it[3])
            t_rot = lastkey + rng.uniform(0.005, 1.5)
            p1 = join_items([it for it in items if it[0] < t_rot]).encode("utf-8")
            p2 = join_items([it for it in items if it[0] >= t_rot]).encode("utf-8")
            if chance(rng, 0.5) and len(p1) < 360000:
                cur = b"\x00" * len(p1) + p2
                quirks.append("%strain.log starts with %d NUL bytes (logrotate copytruncate while tee kept its offset); the error itself is in train.log.1" % (base, len(p1)))
            else:
                cur = p2
                quirks.append("%strain.log rotated right after the error: decisive lines are in train.log.1" % base)
            seq = [cur, p1] + olds
        else:
            cur = join_items(items).encode("utf-8")
            seq = [cur] + olds
        if n in ex.reboot:
            cut = max(0, len(seq[0]) - rng.randrange(2000, 9000))
            if not split and has_key(items):
                lastkey = max(it[0] for it in items if it[3])
                keep = len(join_items([it for it in items if it[0] <= lastkey + 0.01]).encode("utf-8")) - 1
                cut = max(cut, keep)
            seq[0] = seq[0][:cut] + nul_run(rng, 1, 3)
            quirks.append("%strain.log ends in a NUL run (node hard-rebooted)" % base)
        for k, data in enumerate(seq):
            name = base + "logs/train.log" + ("" if k == 0 else ".%d" % k)
            if k >= 2:
                files[name + ".gz"] = gz(data)
            else:
                files[name] = data
        # kernel
        kb = base + "var/log/kern.log" if multi else "system/kern.log"
        style = pick(rng, ["kernlog", "kernlog", "kernlog3339"])
        for name, data in kern_files(job, sim, ex, n, t_col, kb, style, 0 if chance(rng, 0.5) else 6):
            files[name] = data
        if n in ex.preempt_nodes:
            files[(base if multi else "system/") + ("var/log/syslog" if multi else "syslog")] = "".join(
                kmsg(job, ex, n, it[0], it[2], "journal", user=True) + "\n" for it in sim.render([("k", n)], ex.t_end - 7200, t_col) if it[2].startswith("@")).encode()
        if n in ex.nvsmi:
            files[base + "nvidia-smi.txt"] = ex.nvsmi[n].encode()
        if n in ex.nvsmi_q:
            files[base + "nvidia-smi-q.log"] = ex.nvsmi_q[n].encode()
        if n in ex.fabric:
            files[base + ("var/log/" if multi else "system/") + "fabricmanager.log"] = ex.fabric[n].encode()
    for r, txt in ex.pyspy.items():
        files["py-spy-dump-%d.txt" % job.pid[r]] = txt.encode()
    for (n, pid, c) in ex.cores:
        files[((job.hosts[n] + "/") if multi else "") + "core.%d" % pid] = core_bytes(rng)
        quirks.append("core dump core.%d next to the logs" % pid)
    if chance(rng, 0.6):
        files["loss.png"] = png_bytes(rng)
    if chance(rng, 0.5):
        files["checkpoints/step_%d.pt" % (job.fail_step // 500 * 500 or 250)] = pt_bytes(rng)
    if chance(rng, 0.5):
        files["nohup.out"] = b""
        quirks.append("empty nohup.out")
    quirks.append("tee'd console log with bare-CR tqdm refreshes%s" % (" and ANSI colours" if job.ansi else ""))
    ex.quirks += quirks
    ex.all_ranks_visible = True
    return files


# ---------------------------------------------------------------- layout: powershell_paste
def ps_wrap_first_stderr(job, items, label, cmdline, exe="ssh"):
    """Render items; the first stderr-stream line gets PowerShell's NativeCommandError block."""
    out = []
    done = False
    open_bar = False
    for t, s, text, key in items:
        is_err = s[0] in ("e", "a")
        pre = label(s) if label else ""
        if text.startswith("\r"):
            out.append(text if open_bar else pre + text)
            open_bar = True
            continue
        line = text if open_bar else pre + text
        open_bar = False
        if is_err and not done and line.strip():
            done = True
            first = line.split("\r")[0]
            out.append("%s : %s\n" % (exe, first))
            out.append("At line:1 char:1\n")
            out.append("+ %s\n" % cmdline)
            out.append("+ " + "~" * min(len(cmdline), 120) + "\n")
            out.append("    + CategoryInfo          : NotSpecified: (%s:String) [], RemoteException\n" % first[:60])
            out.append("    + FullyQualifiedErrorId : NativeCommandError\n")
            out.append(" \n")
            rest = line[len(first):]
            if rest:
                out.append(rest + "\n")
            continue
        out.append(line + "\n")
    return "".join(out)


def w_powershell(job, sim, ex):
    rng = job.rng
    files = {}
    quirks = ["UTF-16LE+BOM CRLF files written by Windows PowerShell redirection (UTF-8 bytes mojibaked via cp437, tqdm CRs turned into lines)"]
    t_col = ex.t_end + rng.uniform(300, 30000)
    zip_members = []
    if job.ps_variant == "ssh":
        for n in range(job.nnodes):
            items = rend(job, sim, ex, node_streams(job, n))
            cmd = 'ssh %s "cd %s && %s"' % (job.hosts[n], job.workdir, torchrun_cmd(job, n)) + " 2>&1 > %s" % ("out_%s.txt" % job.hosts[n])
            text = ps_wrap_first_stderr(job, items, None, cmd)
            files["out_%s.txt" % job.hosts[n]] = ps_utf16(text)
        files["err.txt"] = b""
        quirks.append("per-node console captures via ssh with NativeCommandError wrapper; empty err.txt")
    else:
        lab = slurm_label(job)
        streams = []
        for n in range(job.nnodes):
            streams += node_streams(job, n, slurm=True)
        items = rend(job, sim, ex, streams)
        latin = chance(rng, 0.4)
        banner = "".join(t for t, _ in job_banner(job, False))
        full = banner + join_items(items, label=lab)
        name = "slurm-%d" % job.jobid
        lines = full.split("\n")
        keyidx = [i for i, it in enumerate(items) if it[3]]
        if len(lines) > 700 and chance(rng, 0.6):
            ntail = rng.randrange(150, 500)
            keyl = [i for i, l in enumerate(lines) if any(k in l for k in ("Traceback", "Error", "Xid", "error:", "Watchdog caught"))]
            if keyl and chance(rng, 0.6):
                # the user tailed just the launcher summary: decisive lines only in the .gz
                first_sum = max(i for i, l in enumerate(lines) if "ChildFailedError" in l or "srun: error" in l or "SignalException" in l) if any(("ChildFailedError" in l or "srun: error" in l or "SignalException" in l) for l in lines) else len(lines) - 60
                ntail = max(25, len(lines) - first_sum + rng.randrange(2, 30))
            tail = "\n".join(lines[-ntail - 1:])
            files[name + ".txt"] = ps_utf16(tail)
            files[name + ".out.gz"] = gz(full.encode("utf-8"))
            quirks.append("slurm-%d.txt is only `tail -n %d`; the full log is in slurm-%d.out.gz" % (job.jobid, ntail, job.jobid))
        else:
            files[name + ".txt"] = ps_utf16(full)
        files["sacct.txt"] = ps_utf16(sacct_text(job, ex))
    # kernel / gpu snapshots for the interesting nodes
    want = list(ex.key_nodes) or ([rng.randrange(job.nnodes)] if chance(rng, 0.6) else [])
    for n in want:
        h = job.hosts[n]
        if n in ex.preempt_nodes:
            txt = syslog_text(job, sim, ex, n, ex.t_end - 4000, t_col)
            nm = "journalctl_%s" % h
        elif n in ex.reboot and t_col > ex.reboot[n]:
            txt = kernel_text(job, sim, ex, n, "journal", ex.t_end - 4000, ex.reboot[n])
            nm = "journalctl_k_b-1_%s" % h
            quirks.append("node rebooted: kernel evidence only in the previous-boot journal %s" % nm)
        else:
            txt = kernel_text(job, sim, ex, n, "dmesgT", -20000, t_col)
            nm = "dmesg_%s" % h
        data = ps_utf16(txt)
        if chance(rng, 0.35):
            zip_members.append((nm + ".txt", data))
        else:
            files[nm] = data
    for n, txt in ex.nvsmi.items():
        files["nvidia-smi_%s.txt" % job.hosts[n]] = ps_utf16(txt)
    for n, txt in ex.nvsmi_q.items():
        zip_members.append(("nvidia-smi-q_%s.txt" % job.hosts[n], ps_utf16(txt)))
    for r, txt in ex.pyspy.items():
        files["pyspy_rank%d.txt" % r] = ps_utf16(txt)
    for n, txt in ex.fabric.items():
        zip_members.append(("fabricmanager_%s.log" % job.hosts[n], txt.encode()))
    if zip_members:
        files["logs.zip"] = zip_bytes(zip_members, job.local(0, t_col))
        quirks.append("some evidence only inside logs.zip")
    notes = pick(rng, ["It crashed again \u201cat random\u201d \u2013 I think it\u2019s NCCL?? Same config worked last week.",
                       "Training stops after a few hours. Attached everything I could get. \u2014 sorry for the format",
                       "No idea what happened, see the output \u201cout\u201d files. GPU util looked fine in the dashboard.",
                       "Job died overnight. We didn\u2019t change anything \u2013 maybe the cluster?"])
    files["notes.txt"] = notes.encode("cp1252", "replace")
    files["Screenshot 2024-%02d-%02d %02d%02d%02d.png" % (rng.randrange(1, 13), rng.randrange(1, 28), rng.randrange(0, 24), rng.randrange(0, 60), rng.randrange(0, 60))] = png_bytes(rng, 360, 220)
    for (n, pid, c) in ex.cores:
        files["core.%d" % pid] = core_bytes(rng)
    quirks.append("notes.txt in cp1252 with smart quotes")
    ex.quirks += quirks
    ex.all_ranks_visible = True
    return files


# ---------------------------------------------------------------- layout: node_bundles
def w_bundles(job, sim, ex):
    rng = job.rng
    files = {}
    quirks = []
    t_col = ex.t_end + rng.uniform(200, 20000)
    lab = slurm_label(job)
    streams = [("s", n) for n in range(job.nnodes)] + [("a", n) for n in range(job.nnodes)]
    latin = chance(rng, 0.55)
    out = mixed_latin1(job_banner(job, latin)) + join_items(rend(job, sim, ex, streams), label=lab).encode("utf-8")
    files["slurm-%d.out" % job.jobid] = out
    if latin:
        quirks.append("slurm-%d.out mixes Latin-1 (job script echo, German locale) with UTF-8" % job.jobid)
    quirks.append("worker output only in per-rank torchelastic --log-dir files inside per-node archives")
    files["sacct.txt"] = sacct_text(job, ex).encode()
    collect = ["# collect_job_logs.sh %d  (run by ops at %s)" % (job.jobid, job.local(0, t_col).strftime("%Y-%m-%d %H:%M:%S"))]
    runbase = "torchelastic/%s_%s" % (job.jobid, "%08x" % rng.randrange(16**8))
    truncate_node = None
    cand = [n for n in range(job.nnodes) if n not in ex.key_nodes and all(job.node_of(r) != n for r in ex.key_ranks) and n != ex.nodefail]
    if cand and job.nnodes >= 3 and chance(rng, 0.45):
        truncate_node = pick(rng, cand)
    ex.all_ranks_visible = truncate_node is None and ex.nodefail is None
    for n in range(job.nnodes):
        h = job.hosts[n]
        if n == ex.nodefail:
            files["%s.tar.gz" % h] = b""
            collect.append("[%s] ssh: connect to host %s port 22: Connection timed out" % (h, h))
            collect.append("[%s] FAILED - wrote empty %s.tar.gz" % (h, h))
            quirks.append("%s.tar.gz is empty (node unreachable at collection)" % h)
            continue
        mem = []
        for r in job.ranks_on(n):
            d = "%s/%s/attempt_0/%d/" % (h, runbase, job.local_of(r))
            so = join_items(rend(job, sim, ex, [("o", r)])).encode("utf-8")
            se = join_items(rend(job, sim, ex, [("e", r)])).encode("utf-8")
            if r in ex.lost_tail:
                if n in ex.reboot or chance(rng, 0.5):
                    so = so + nul_run(rng, 1, 4)
                    quirks.append("rank %d stdout.log ends in NUL bytes (unflushed buffer lost)" % r)
                else:
                    so = cut_tail(so, rng)
                    quirks.append("rank %d stdout.log cut mid-line" % r)
            mem.append((d + "stdout.log", so))
            mem.append((d + "stderr.log", se))
            if job.record and r in ex.err_tb and ex.exits.get(r, [0, 0])[1] == 1:
                ej = {"message": {"message": ex.err_tb[r][-1], "extraInfo": {"py_callstack": "\n".join(ex.err_tb[r]), "timestamp": str(int((job.local(n, ex.exits[r][0]) - _dt.datetime(1970, 1, 1)).total_seconds()))}}}
                mem.append((d + "error.json", json.dumps(ej).encode()))
        if n in ex.reboot and t_col > ex.reboot[n]:
            mem.append(("%s/dmesg.txt" % h, kernel_text(job, sim, ex, n, "dmesg", None, t_col, boot_only=True).encode()))
            for name, data in kern_files(job, sim, ex, n, t_col, "%s/var/log/kern.log" % h, "kernlog", 6)[:2]:
                mem.append((name, data))
            quirks.append("%s rebooted: dmesg.txt is post-reboot; pre-crash kernel lines only in var/log/kern.log(.1), with a NUL run" % h)
        else:
            mem.append(("%s/dmesg.txt" % h, kernel_text(job, sim, ex, n, "dmesg", -30000, t_col).encode()))
        if n in ex.nvsmi:
            mem.append(("%s/nvidia-smi.txt" % h, ex.nvsmi[n].encode()))
        elif chance(rng, 0.5):
            mem.append(("%s/nvidia-smi.txt" % h, nvsmi_table(job, n, t_col).encode()))
        if n in ex.nvsmi_q:
            mem.append(("%s/nvidia-smi-q.txt" % h, ex.nvsmi_q[n].encode()))
        if n in ex.fabric:
            mem.append(("%s/fabricmanager.log" % h, ex.fabric[n].encode()))
        for r, txt in ex.pyspy.items():
            if job.node_of(r) == n:
                mem.append(("%s/py-spy/%d.txt" % (h, job.pid[r]), txt.encode()))
        for (cn, pid, c) in ex.cores:
            if cn == n:
                mem.append(("%s/cores/core.%s.%d" % (h, c, pid), core_bytes(rng)))
                quirks.append("core dump inside %s archive" % h)
        mtime = int((job.local(n, t_col) - _dt.datetime(1970, 1, 1)).total_seconds())
        if chance(rng, 0.3):
            blob = zip_bytes(mem, job.local(n, t_col))
            fname = "%s.zip" % h
        else:
            blob = tar_gz(mem, mtime)
            fname = "%s.tar.gz" % h
        if n == truncate_node:
            blob = blob[: int(len(blob) * rng.uniform(0.3, 0.7))]
            if fname.endswith(".zip"):
                collect.append("[%s] zip I/O error: No space left on device" % h)
                collect.append("[%s] zip error: Output file write failure (write error on zip file)" % h)
            else:
                collect.append("[%s] tar: %s: Wrote only 4096 of 10240 bytes" % (h, fname))
                collect.append("[%s] gzip: stdout: No space left on device" % h)
            quirks.append("%s is truncated (disk full during collection)" % fname)
        else:
            collect.append("[%s] ok  %s  %d bytes" % (h, fname, len(blob)))
        files[fname] = blob
    files["collect.log"] = ("\n".join(collect) + "\n").encode()
    if chance(rng, 0.4):
        files["%s/checkpoints/latest.pt" % job.proj] = pt_bytes(rng)
    if chance(rng, 0.3):
        files["slurm-%d.err" % job.jobid] = b""
        quirks.append("empty slurm .err")
    ex.quirks += quirks
    return files


# ---------------------------------------------------------------- layout: k8s_pods
def k8s_age(sec):
    sec = max(1, int(sec))
    if sec < 120:
        return "%ds" % sec
    if sec < 7200:
        return "%dm" % (sec // 60)
    if sec < 172800:
        return "%dh" % (sec // 3600)
    return "%dd" % (sec // 86400)


def w_k8s(job, sim, ex):
    rng = job.rng
    files = {}
    quirks = []
    t_col = ex.t_end + rng.uniform(120, 7200)
    job.image = pick(rng, ["24.03", "24.05", "23.10", "24.10"])
    ex.all_ranks_visible = True
    key_pods = set(job.node_of(r) for r in ex.key_ranks) | set(ex.key_nodes)
    for n in range(job.nnodes):
        pod = job.hosts[n]
        items = rend(job, sim, ex, node_streams(job, n))
        data = join_items(items).encode("utf-8")
        if getattr(ex, "cut_pod", None) == n:
            data = cut_tail(data, rng)
            quirks.append("%s log ends mid-line (container OOMKilled)" % pod)
        elif n not in key_pods and chance(rng, 0.3) and len(data) > 20000:
            if chance(rng, 0.5):
                lines = data.split(b"\n")
                k = rng.randrange(200, 600)
                data = b"\n".join(lines[-k:])
                quirks.append("%s fetched with --tail=%d" % (pod, k))
            else:
                lim = rng.randrange(15000, max(16000, len(data) // 2))
                data = data[:lim]
                quirks.append("%s fetched with --limit-bytes=%d (ends mid-line)" % (pod, lim))
            ex.all_ranks_visible = False
        comp = None
        if n in key_pods and not job.healthy and chance(rng, 0.5):
            comp = pick(rng, ["gz", "xz", "bz2"])
            quirks.append("decisive pod log %s only as .%s" % (pod, comp))
        elif len(data) > 150000 or chance(rng, 0.25):
            comp = pick(rng, ["gz", "xz", "bz2"])
        name = "%s.log" % pod
        if comp == "gz":
            files[name + ".gz"] = gz(data)
        elif comp == "xz":
            files[name + ".xz"] = lzma.compress(data, preset=6)
        elif comp == "bz2":
            files[name + ".bz2"] = bz2.compress(data, 9)
        else:
            files[name] = data
    # describe pods
    D = []
    evs = []
    for n in range(job.nnodes):
        pod = job.hosts[n]
        st = ex.pod_state.get(n)
        a = getattr(ex, "agent", {}).get(n)
        if job.healthy:
            state, reason, code, msg = "Terminated", "Completed", 0, None
        elif ex.still_running:
            state, reason, code, msg = "Running", None, None, None
        elif st:
            state, reason, code, msg = "Terminated", st["reason"], st["code"], st.get("message")
        elif a and a["kind"] == "sigterm":
            state, reason, code, msg = "Terminated", "Error", 1, None
        elif a:
            state, reason, code, msg = "Terminated", "Error", 1, None
        else:
            state, reason, code, msg = "Running", None, None, None
        start = job.local(n, -40)
        fin = job.local(n, (a["exit"] if a and "exit" in a else ex.t_end))
        D += ["Name:             %s" % pod, "Namespace:        ml-%s" % job.user, "Priority:         0",
              "Service Account:  default", "Node:             %s/%s" % (job.machines[n], job.ips[n]),
              "Start Time:       %s +0000" % start.strftime("%a, %d %b %Y %H:%M:%S"),
              "Labels:           training.kubeflow.org/job-name=%s" % job.kjob,
              "                  training.kubeflow.org/operator-name=pytorchjob-controller",
              "                  training.kubeflow.org/replica-index=%d" % (0 if n == 0 else n - 1),
              "                  training.kubeflow.org/replica-type=%s" % ("master" if n == 0 else "worker"),
              "Status:           %s" % ({"Completed": "Succeeded", None: "Running"}.get(reason, "Failed"))]
        if msg:
            D += ["Reason:           Terminated", "Message:          %s" % msg]
        D += ["IP:               10.%d.%d.%d" % (52 + n, rng.randrange(0, 255), rng.randrange(2, 254)),
              "Containers:", "  pytorch:",
              "    Container ID:  containerd://%064x" % rng.randrange(16**63, 16**64),
              "    Image:         nvcr.io/nvidia/pytorch:%s-py3" % job.image,
              "    Command:", "      torchrun", "    Args:", "      --nnodes=%d" % job.nnodes, "      --nproc_per_node=%d" % job.gpn, "      %s" % job.script]
        if state == "Running":
            D += ["    State:          Running", "      Started:      %s +0000" % start.strftime("%a, %d %b %Y %H:%M:%S")]
        else:
            D += ["    State:          Terminated", "      Reason:       %s" % reason, "      Exit Code:    %d" % code,
                  "      Started:      %s +0000" % start.strftime("%a, %d %b %Y %H:%M:%S"),
                  "      Finished:     %s +0000" % fin.strftime("%a, %d %b %Y %H:%M:%S")]
        D += ["    Ready:          %s" % ("True" if state == "Running" else "False"), "    Restart Count:  0",
              "    Limits:", "      memory:          %dGi" % pick(rng, [400, 900, 1200]), "      nvidia.com/gpu:  %d" % job.gpn,
              "    Environment:", "      NCCL_DEBUG:       %s" % ("INFO" if job.nccl_debug else "WARN"),
              "      PYTHONUNBUFFERED:  1",
              "Events:", "  Type     Reason     Age   From               Message", "  ----     ------     ----  ----               -------"]
        age = t_col - (-40)
        D += ["  Normal   Scheduled  %-5s default-scheduler  Successfully assigned ml-%s/%s to %s" % (k8s_age(age), job.user, pod, job.machines[n]),
              "  Normal   Pulled     %-5s kubelet            Container image already present on machine" % k8s_age(age - 5),
              "  Normal   Created    %-5s kubelet            Created container pytorch" % k8s_age(age - 6),
              "  Normal   Started    %-5s kubelet            Started container pytorch" % k8s_age(age - 6)]
        if st and st["reason"] == "Terminated":
            D.append("  Normal   Killing    %-5s kubelet            Stopping container pytorch" % k8s_age(t_col - ex.t_end + 30))
        D.append("")
        D.append("")
        if st and st["reason"] == "OOMKilled":
            evs.append((ex.t_end - 5, "Warning", "SystemOOM", "node/%s" % job.machines[n], "System OOM encountered, victim process: %s, pid: %d" % (comm(job), job.pid.get(getattr(ex, "victim", n * job.gpn), 0))))
        if st and st["reason"] == "Terminated":
            evs.append((ex.t_end - 20, "Normal", "NodeNotReady", "pod/%s" % pod, "Node is not ready"))
    crlf = chance(rng, 0.4)
    if crlf:
        quirks.append("kubectl describe/events saved with CRLF line endings")
    files["describe_pods.txt"] = (("\r\n" if crlf else "\n").join(D) + ("\r\n" if crlf else "\n")).encode()
    if not job.healthy and not ex.still_running:
        mc = ex.pod_state.get(0, {}).get("code", 1)
        evs.append((ex.t_end + 2, "Normal", "ExitedWithCode", "pytorchjob/%s" % job.kjob, "Pod: ml-%s.%s exited with code %d" % (job.user, job.hosts[0], mc)))
        evs.append((ex.t_end + 3, "Normal", "PyTorchJobFailed", "pytorchjob/%s" % job.kjob, "PyTorchJob %s is failed because 1 Master replica(s) failed." % job.kjob))
    if evs:
        E = ["LAST SEEN   TYPE      REASON             OBJECT                                   MESSAGE"]
        for t, ty, rs, ob, ms in sorted(evs):
            E.append("%-11s %-9s %-18s %-40s %s" % (k8s_age(t_col - t), ty, rs, ob, ms))
        files["events.txt"] = (("\r\n" if crlf else "\n").join(E) + ("\r\n" if crlf else "\n")).encode()
    knodes = sorted(set(ex.key_nodes)) or ([rng.randrange(job.nnodes)] if chance(rng, 0.5) else [])
    for n in knodes:
        m = job.machines[n]
        style = "journal" if n in ex.preempt_nodes else pick(rng, ["dmesgT", "journal"])
        txt = kernel_text(job, sim, ex, n, style, -6000, t_col, user=(style == "journal"))
        nm = "node-%s.%s" % (m, "dmesg" if style == "dmesgT" else "journal")
        if chance(rng, 0.3):
            files[nm + ".gz"] = gz(txt.encode())
            quirks.append("node kernel log only gzip-compressed (%s.gz)" % nm)
        else:
            files[nm] = txt.encode()
    for n, txt in ex.nvsmi.items():
        files["nvidia-smi-%s.txt" % job.machines[n]] = txt.encode()
    for n, txt in ex.nvsmi_q.items():
        files["nvidia-smi-q-%s.txt" % job.machines[n]] = txt.encode()
    for r, txt in ex.pyspy.items():
        files["pyspy-%s-rank%d.txt" % (job.hosts[job.node_of(r)], r)] = txt.encode()
    for n, txt in ex.fabric.items():
        files["fabricmanager-%s.log" % job.machines[n]] = txt.encode()
    for r, tl in sorted(ex.lost_tail.items()):
        so = join_items(rend(job, sim, ex, [("o", r), ("e", r)], t_max=tl)).encode("utf-8")
        files["pvc/%s/rank%d.log" % (job.runid, r)] = so + nul_run(rng, 1, 4)
        quirks.append("pvc/%s/rank%d.log ends in NUL bytes (unflushed writes lost)" % (job.runid, r))
    for (n, pid, c) in ex.cores:
        files["pvc/%s/core.%d" % (job.runid, pid)] = core_bytes(rng)
    if chance(rng, 0.5):
        files["pvc/%s/loss_curve.png" % job.runid] = png_bytes(rng)
    if chance(rng, 0.4):
        files["pvc/%s/ckpt/step_%06d.pt" % (job.runid, max(1, job.fail_step // 1000) * 1000)] = pt_bytes(rng)
    if chance(rng, 0.3):
        files["%s.previous.log" % job.hosts[-1]] = b""
        quirks.append("empty kubectl logs --previous output")
    if job.ansi:
        quirks.append("ANSI-coloured (loguru-style) training log lines")
    ex.quirks += quirks
    return files


# ---------------------------------------------------------------- layout: deepspeed_pdsh
FR_BASH = [("%s: bash: ligne 1 : /home/%s/mod\u00e8les/activer.sh: Aucun fichier ou dossier de ce type", True),
           ("%s: bash: avertissement : setlocale : LC_ALL : impossible de changer le param\u00e8tre r\u00e9gional (fr_FR.UTF-8)", True),
           ("%s: ulimit: max locked memory: valeur illimit\u00e9e", True)]


def w_deepspeed(job, sim, ex):
    rng = job.rng
    files = {}
    quirks = []
    t_col = ex.t_end + rng.uniform(300, 50000)

    def lab(s):
        if s[0] in ("o", "e"):
            return "%s: " % job.hosts[job.node_of(s[1])]
        if s[0] == "a":
            return "%s: " % job.hosts[s[1]]
        return ""
    streams = [("r", 0)]
    for n in range(job.nnodes):
        streams += node_streams(job, n)
    items = rend(job, sim, ex, streams)
    # pdsh relays the runner's own lines (node 0 agent) unprefixed only for the runner part; node lines prefixed
    text = join_items(items, label=lab)
    latin = chance(rng, 0.5)
    parts = []
    if latin:
        pos = text.find("\n", text.find("cmd = pdsh")) + 1
        head, tail = text[:pos], text[pos:]
        parts.append((head, False))
        for n in range(1, job.nnodes):
            for tmpl, lat in FR_BASH[:rng.randrange(1, 4)]:
                s = tmpl % ((job.hosts[n], job.user) if tmpl.count("%s") == 2 else (job.hosts[n],))
                parts.append((s + "\n", True))
        parts.append((tail, False))
        quirks.append("'output' mixes Latin-1 (French bash messages from remote shells) and UTF-8")
    else:
        parts.append((text, False))
    data = mixed_latin1(parts)
    files["output"] = data
    files["stderr"] = b""
    quirks.append("main log named 'output' (no extension) with pdsh host prefixes; empty 'stderr'")
    key_ranks = set(ex.key_ranks)
    ex.all_ranks_visible = True
    for r in range(job.world):
        so = join_items(rend(job, sim, ex, [("o", r), ("e", r)]), keep_cr=False).encode("utf-8")
        if r in ex.lost_tail:
            so = so + nul_run(rng, 1, 3)
        name = "logs/rank_%02d.log" % r
        if r in key_ranks and not job.healthy and chance(rng, 0.5):
            c = pick(rng, ["xz", "bz2"])
            quirks.append("decisive per-rank log %s only as .%s" % (name, c))
        elif chance(rng, 0.6):
            c = pick(rng, ["xz", "bz2", "gz"])
        else:
            c = None
        if c == "xz":
            files[name + ".xz"] = lzma.compress(so, preset=6)
        elif c == "bz2":
            files[name + ".bz2"] = bz2.compress(so, 9)
        elif c == "gz":
            files[name + ".gz"] = gz(so)
        else:
            files[name] = so
    files["hostfile"] = "".join("%s slots=%d\n" % (h, job.gpn) for h in job.hosts).encode()
    files["ds_config.json"] = json.dumps({"train_micro_batch_size_per_gpu": job.mbs, "gradient_accumulation_steps": pick(rng, [1, 2, 4, 8]),
                                          "bf16": {"enabled": True}, "zero_optimization": {"stage": pick(rng, [1, 2, 3]), "overlap_comm": True, "contiguous_gradients": True},
                                          "gradient_clipping": 1.0, "steps_per_print": job.log_every, "wall_clock_breakdown": False}, indent=2).encode()
    knodes = sorted(set(ex.key_nodes)) or ([rng.randrange(job.nnodes)] if chance(rng, 0.5) else [])
    for n in knodes:
        h = job.hosts[n]
        if chance(rng, 0.5) or (n in ex.reboot):
            t_c2 = ex.t_end + 86400 * rng.uniform(1.1, 2.8)
            add_day_noise(job, sim, ex, ex.t_end, t_c2)
            for name, blob in kern_files(job, sim, ex, n, t_c2, "%s-kern.log" % h, "kernlog", 6):
                files[name] = blob
            quirks.append("kernel log of %s in rotated/compressed kern.log files" % h)
        else:
            files["dmesg-%s" % h] = kernel_text(job, sim, ex, n, pick(rng, ["dmesg", "dmesgT"]), -9000, t_col).encode()
    for n in ex.preempt_nodes:
        files["syslog-%s" % job.hosts[n]] = syslog_text(job, sim, ex, n, ex.t_end - 5000, t_col).encode()
    for n, txt in ex.nvsmi.items():
        files["nvidia-smi-%s" % job.hosts[n]] = txt.encode()
    for n, txt in ex.nvsmi_q.items():
        files["nvidia-smi-q-%s.txt" % job.hosts[n]] = txt.encode()
    for r, txt in ex.pyspy.items():
        files["pyspy.%d" % job.pid[r]] = txt.encode()
    for n, txt in ex.fabric.items():
        files["fabricmanager-%s.log" % job.hosts[n]] = txt.encode()
    for (n, pid, c) in ex.cores:
        files["core"] = core_bytes(rng)
        quirks.append("core dump named 'core'")
    host0 = job.hosts[0]
    files["runs/events.out.tfevents.%d.%s.%d.0" % (int((job.t0 - _dt.datetime(1970, 1, 1)).total_seconds()), host0, job.pid[0])] = tfevents_bytes(rng, rng.randrange(3, 9))
    if chance(rng, 0.5):
        files["loss.png"] = png_bytes(rng)
    if chance(rng, 0.4):
        files["checkpoints/global_step%d/mp_rank_00_model_states.pt" % (job.fail_step // 500 * 500 or 500)] = pt_bytes(rng)
    ex.quirks += quirks
    return files


WRITERS = {"rotated_tee": w_rotated, "powershell_paste": w_powershell, "node_bundles": w_bundles,
           "k8s_pods": w_k8s, "deepspeed_pdsh": w_deepspeed}


# ---------------------------------------------------------------- assembly
def build_run(seed, i, layout, cause, slim):
    rng = random.Random("blind34/%s/%d/%d" % (seed, i, slim))
    job = Job(rng, layout, cause, i, slim)
    sim = Sim(job)
    ex = Extras()
    ex.preempt_nodes = []
    emit_startup(job, sim)
    if job.launcher == "deepspeed":
        emit_ds_startup(job, sim)
    if cause is None:
        st_healthy(job, sim, ex)
    elif cause == "straggler":
        st_straggler(job, sim, ex)
    else:
        emit_training(job, sim, job.fail_step)
        plan = STORIES[cause](job, sim, ex)
        propagate(job, sim, plan, ex)
        if cause == "unknown" and ex.truth_rank is not None:
            # the only trace of the initiator is its launcher's failure report: keep the
            # rank only when that launcher really reported it as a failure
            r = ex.truth_rank
            a = ex.agent.get(job.node_of(r))
            if not (a and a["kind"] == "fail" and r in ex.exits and ex.exits[r][0] <= a["detect"]):
                ex.truth_rank, ex.truth_node = None, None
                ex.notes.append("the scheduler tore the initiator's node down before its launcher reported the exit, so no file names the initiator")
    emit_kernel_noise(job, sim, ex, ex.t_end)
    files = WRITERS[layout](job, sim, ex)
    # initiator
    init = None
    if cause is not None:
        rank, node = ex.truth_rank, ex.truth_node
        if getattr(ex, "need_all_ranks", False) and not getattr(ex, "all_ranks_visible", True):
            rank, node = None, None
        if rank is not None or node is not None:
            init = {"rank": rank, "node": job.hosts[node] if node is not None else None}
    notes = "; ".join(ex.notes)
    notes += " | job: %d node(s) x %d GPU, torch %s (%s log style), launcher %s%s" % (
        job.nnodes, job.gpn, job.torch, job.style, job.launcher, ", slurm" if job.slurm else (", kubernetes" if job.k8s else ""))
    if job.huge_line and job.huge_kb > 0:
        ex.quirks.append("rank 0 printed its config as a single ~%d KB line" % job.huge_kb)
    if ex.quirks:
        notes += " | files: " + "; ".join(ex.quirks)
    truth = {"healthy": cause is None, "cause": cause, "initiator": init, "layout": layout, "notes": notes}
    return files, truth


def plan_runs(n, seed):
    rng = random.Random("blind34-order/%s" % seed)
    order = CAUSES[:]
    rng.shuffle(order)
    lays = LAYOUTS[:]
    rng.shuffle(lays)
    runs = []
    k = 0
    for i in range(n):
        if i % 7 == 3:
            runs.append((i, lays[(i // 7) % len(lays)], None))
        else:
            runs.append((i, lays[(k + k // len(order)) % len(lays)], order[k % len(order)]))
            k += 1
    return runs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    counts = {"healthy": 0}
    for c in CAUSES:
        counts[c] = 0
    for i, layout, cause in plan_runs(a.n, a.seed):
        for slim in range(4):
            files, truth = build_run(a.seed, i, layout, cause, slim)
            size = sum(len(b) for b in files.values()) + 2000
            if size < RUN_BUDGET:
                break
        d = os.path.join(a.out, "run-%03d-%s" % (i, layout))
        if os.path.isdir(d):
            shutil.rmtree(d)
        for rel, data in files.items():
            p = os.path.join(d, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "wb") as fh:
                fh.write(data)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "truth.json"), "w") as fh:
            json.dump(truth, fh, indent=2)
            fh.write("\n")
        counts["healthy" if cause is None else cause] += 1
    print(json.dumps(counts, indent=1))


if __name__ == "__main__":
    main()
