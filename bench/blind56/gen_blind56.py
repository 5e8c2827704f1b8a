#!/usr/bin/env python3
"""blind56 -- synthetic log bundles of failed (and healthy) distributed GPU
training jobs, where the evidence arrives the way Python and the frameworks
really present exceptions: chained tracebacks, ExceptionGroups,
multiprocessing / concurrent.futures re-raises, torch.multiprocessing.spawn's
ProcessRaisedException, torchelastic error files and ChildFailedError tables,
dynamo / inductor wrappers, Hydra's short traces, rich boxes, loguru and
better-exceptions variable annotations, faulthandler dumps, pybind11 /
c10::Error 'terminate called' blocks, log-collector cuts and interleaving.

Written blind (no access to the diagnosis tool's code, rules, tests or real
log corpus).  Standard library only.

    python3 gen_blind56.py --out DIR --n 60 --seed S
"""
import argparse
import json
import os
import random
import re
import sys
import time
from datetime import datetime, timezone

CAUSES = [
    "gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
    "illegal_memory_access", "python_exception", "host_oom_kill",
    "crash_signal", "preemption", "hang", "data_loader_stall",
    "collective_mismatch", "straggler", "unknown",
]

# --------------------------------------------------------------------------
# time formatting
# --------------------------------------------------------------------------


def _dt(ts):
    return datetime.fromtimestamp(ts, tz=timezone.utc)


def f_log(ts):
    """python logging default asctime: 2024-05-02 10:11:12,345"""
    return _dt(ts).strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % int((ts % 1) * 1000)


def f_logdot(ts):
    return _dt(ts).strftime("%Y-%m-%d %H:%M:%S") + ".%03d" % int((ts % 1) * 1000)


def f_glog(level, ts, nanos=False):
    d = _dt(ts)
    frac = "%09d" % int((ts % 1) * 1e9) if nanos else "%06d" % int((ts % 1) * 1e6)
    return "%s%s %s.%s" % (level, d.strftime("%m%d"), d.strftime("%H:%M:%S"), frac)


def f_iso(ts):
    return _dt(ts).strftime("%Y-%m-%dT%H:%M:%S")


def f_isoz(ts):
    return _dt(ts).strftime("%Y-%m-%dT%H:%M:%S") + ".%06dZ" % int((ts % 1) * 1e6)


def f_isonano(ts):
    return _dt(ts).strftime("%Y-%m-%dT%H:%M:%S") + ".%09dZ" % int((ts % 1) * 1e9)


def f_dmesgT(ts):
    d = _dt(ts)
    return "[%s %2d %s]" % (d.strftime("%a %b"), d.day, d.strftime("%H:%M:%S %Y"))


def f_syslog(ts):
    d = _dt(ts)
    return "%s %2d %s" % (d.strftime("%b"), d.day, d.strftime("%H:%M:%S"))


def f_elastic(ts):
    return _dt(ts).strftime("%Y-%m-%d_%H:%M:%S")


def f_hms(ts):
    return _dt(ts).strftime("%H:%M:%S")


def f_bracket(ts):
    return "[" + f_log(ts) + "]"


def hexid(rng, n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def addr(rng):
    return "0x7f" + hexid(rng, 10)


# --------------------------------------------------------------------------
# traceback model
# --------------------------------------------------------------------------


class Fr:
    """one traceback frame"""

    def __init__(self, file, line, func, code=None, loc=None):
        self.file = file
        self.line = line
        self.func = func
        self.code = code
        self.loc = loc or {}


class Ex:
    """an exception, possibly chained / grouped"""

    def __init__(self, etype, msg, frames, cause=None, context=None,
                 group=None, notes=None, suppress=False):
        self.etype = etype
        self.msg = msg
        self.frames = list(frames)
        self.cause = cause
        self.context = context
        self.group = group
        self.notes = notes or []
        self.suppress = suppress

    def root(self):
        e = self
        while e.cause is not None or (e.context is not None and not e.suppress):
            e = e.cause if e.cause is not None else e.context
        return e

    def final_line(self):
        return exc_only(self)[0]


def caught_at(e, func):
    """the traceback of an exception caught in frame `func` starts there"""
    for i, f in enumerate(e.frames):
        if f.func == func:
            e.frames = e.frames[i:]
            break
    return e


def exc_only(e):
    if e.msg is None or e.msg == "":
        lines = [e.etype]
    else:
        lines = (e.etype + ": " + e.msg).split("\n")
    return lines + list(e.notes)


def _caret(code):
    """Python 3.11 style caret line for a frame's code, or None."""
    c = code.rstrip()
    if c.startswith("raise ") or c.startswith("assert ") or c.startswith("for ") \
            or c.startswith("with ") or c.startswith("async with") or c.startswith("if "):
        return None
    start = 0
    if c.startswith("return "):
        start = 7
    elif c.startswith("yield "):
        start = 6
    else:
        # assignment?
        i = c.find(" = ")
        j = c.find("(")
        if i > 0 and (j < 0 or i < j):
            start = i + 3
    if start == 0:
        return None
    seg = c[start:]
    if "#" in seg:
        seg = seg[:seg.index("#")].rstrip()
    if not seg or "(" not in seg and "[" not in seg:
        return None
    return " " * start + "^" * len(seg)


def fmt_frames(frames, carets):
    out = []
    for f in frames:
        out.append('  File "%s", line %d, in %s' % (f.file, f.line, f.func))
        if f.code:
            out.append("    " + f.code)
            if carets:
                c = _caret(f.code)
                if c:
                    out.append("    " + c)
    return out


def fmt_plain(e, carets=False):
    """python's traceback.format_exception, including ExceptionGroups
    (replicates TracebackException.format's _ExceptionPrintContext)."""
    ctx = {"depth": 0, "need_close": False}
    out = []
    _fmt_exc(e, carets, ctx, out)
    return out


def _emit(ctx, lines, out, margin=None):
    ind = " " * (2 * ctx["depth"])
    if ctx["depth"]:
        ind += (margin or "|") + " "
    for l in lines:
        out.append(ind + l)


def _fmt_exc(e, carets, ctx, out):
    seq = []
    x = e
    while x is not None:
        if x.cause is not None:
            seq.append(("cause", x))
            x = x.cause
        elif x.context is not None and not x.suppress:
            seq.append(("context", x))
            x = x.context
        else:
            seq.append((None, x))
            x = None
    # seq[i] = (how x links to its predecessor, x); print oldest first
    for i in range(len(seq) - 1, -1, -1):
        ex = seq[i][1]
        if i != len(seq) - 1:
            link = seq[i][0]
            msg = "The above exception was the direct cause of the following exception:" if link == "cause" \
                else "During handling of the above exception, another exception occurred:"
            _emit(ctx, ["", msg, ""], out)
        if ex.group is None:
            if ex.frames:
                _emit(ctx, ["Traceback (most recent call last):"], out)
                _emit(ctx, fmt_frames(ex.frames, carets), out)
            _emit(ctx, exc_only(ex), out)
        else:
            top = ctx["depth"] == 0
            if top:
                ctx["depth"] += 1
            if ex.frames:
                _emit(ctx, ["Exception Group Traceback (most recent call last):"], out, margin="+" if top else None)
                _emit(ctx, fmt_frames(ex.frames, carets), out)
            _emit(ctx, exc_only(ex), out)
            n = len(ex.group)
            ctx["need_close"] = False
            for j, sub in enumerate(ex.group):
                last = j == n - 1
                if last:
                    ctx["need_close"] = True
                out.append(" " * (2 * ctx["depth"]) + ("+-" if j == 0 else "  ") + "+---------------- %d ----------------" % (j + 1))
                ctx["depth"] += 1
                _fmt_exc(sub, carets, ctx, out)
                if last and ctx["need_close"]:
                    out.append(" " * (2 * ctx["depth"]) + "+------------------------------------")
                    ctx["need_close"] = False
                ctx["depth"] -= 1
            if top:
                ctx["depth"] = 0


# ---- rich -----------------------------------------------------------------

def _rbox_line(text, width):
    inner = width - 4
    if len(text) > inner:
        text = text[:inner]
    return "│ " + text + " " * (inner - len(text)) + " │"


def fmt_rich(e, width=100, show_locals=True, rng=None):
    out = []
    chain = []
    x = e
    while x is not None:
        chain.append(x)
        if x.cause is not None:
            x = x.cause
        elif x.context is not None and not x.suppress:
            x = x.context
        else:
            x = None
    chain.reverse()
    for k, ex in enumerate(chain):
        if k > 0:
            prev = chain[k]
            if prev.cause is chain[k - 1]:
                out += ["", "The above exception was the direct cause of the following exception:", ""]
            else:
                out += ["", "During handling of the above exception, another exception occurred:", ""]
        title = " Traceback (most recent call last) "
        side = width - 2 - len(title)
        left = side // 2
        out.append("╭" + "─" * left + title + "─" * (side - left) + "╮")
        for fi, f in enumerate(ex.frames):
            head = "%s:%d in %s" % (f.file, f.line, f.func)
            inner = width - 4
            while len(head) > inner:
                out.append(_rbox_line(head[:inner], width))
                head = head[inner:]
            out.append(_rbox_line(head, width))
            out.append(_rbox_line("", width))
            ctx_lines = f.loc.get("__ctx__", [])
            n0 = f.line - len(ctx_lines)
            for j, cl in enumerate(ctx_lines):
                out.append(_rbox_line("  %4d %s" % (n0 + j, cl), width))
            if f.code:
                out.append(_rbox_line("❱ %4d %s" % (f.line, _rich_indent(f.code)), width))
            out.append(_rbox_line("", width))
            locs = [(kk, vv) for kk, vv in f.loc.items() if kk != "__ctx__"]
            if show_locals and locs:
                lw = min(width - 8, max(24, max(len(kk) + len(vv) + 6 for kk, vv in locs)))
                ttl = " locals "
                s = lw - 2 - len(ttl)
                out.append(_rbox_line("╭" + "─" * (s // 2) + ttl + "─" * (s - s // 2) + "╮", width))
                kw = max(len(kk) for kk, _ in locs)
                for kk, vv in locs:
                    body = " %s = %s" % (kk.rjust(kw), vv)
                    if len(body) > lw - 3:
                        body = body[:lw - 6] + "..."
                    out.append(_rbox_line("│" + body + " " * (lw - 2 - len(body)) + "│", width))
                out.append(_rbox_line("╰" + "─" * (lw - 2) + "╯", width))
            if fi != len(ex.frames) - 1:
                out.append(_rbox_line("", width))
        out.append("╰" + "─" * (width - 2) + "╯")
        out += exc_only(ex)
    return out


def _rich_indent(code):
    return code


# ---- better_exceptions / loguru diagnose -----------------------------------

def _annot(f, pad="    "):
    """variable annotations under the code line, better-exceptions style."""
    locs = [(k, v) for k, v in f.loc.items() if k != "__ctx__"]
    if not f.code or not locs:
        return []
    code = f.code
    cols = []
    for k, v in locs:
        m = re.search(r"(?<![\w.])%s\b" % re.escape(k), code)
        if m:
            cols.append((m.start(), v))
    cols.sort()
    if not cols:
        return []
    out = []
    for n in range(len(cols) - 1, -1, -1):
        line = [" "] * (cols[n][0] + 1)
        for m in range(n):
            line[cols[m][0]] = "│"
        line[cols[n][0]] = "└"
        out.append(pad + "".join(line).rstrip("") + " " + cols[n][1])
    return out


def fmt_better(e, carets=False):
    out = []
    chain = []
    x = e
    while x is not None:
        chain.append(x)
        x = x.cause if x.cause is not None else (x.context if not x.suppress else None)
    chain.reverse()
    for k, ex in enumerate(chain):
        if k > 0:
            if chain[k].cause is chain[k - 1]:
                out += ["", "The above exception was the direct cause of the following exception:", ""]
            else:
                out += ["", "During handling of the above exception, another exception occurred:", ""]
        out.append("Traceback (most recent call last):")
        for f in ex.frames:
            out.append('  File "%s", line %d, in %s' % (f.file, f.line, f.func))
            if f.code:
                out.append("    " + f.code)
                out += _annot(f)
        out += exc_only(ex)
    return out


def fmt_loguru_body(e, mark_index=None):
    """loguru's backtrace+diagnose body (after the 'An error has been caught' line)."""
    out = []
    chain = []
    x = e
    while x is not None:
        chain.append(x)
        x = x.cause if x.cause is not None else (x.context if not x.suppress else None)
    chain.reverse()
    for k, ex in enumerate(chain):
        if k > 0:
            if chain[k].cause is chain[k - 1]:
                out += ["", "The above exception was the direct cause of the following exception:", ""]
            else:
                out += ["", "During handling of the above exception, another exception occurred:", ""]
        out.append("Traceback (most recent call last):")
        out.append("")
        for i, f in enumerate(ex.frames):
            mark = ">" if (k == len(chain) - 1 and i == (mark_index if mark_index is not None else 1)) else " "
            out.append('%s File "%s", line %d, in %s' % (mark, f.file, f.line, f.func))
            if f.code:
                out.append("    " + f.code)
                out += _annot(f)
            out.append("")
        out += exc_only(ex)
    return out


# ---- faulthandler -----------------------------------------------------------

def fmt_fault(header, threads, ext_modules=True, rng=None):
    """threads: list of (tid_hex, is_current, frames[list of Fr] or None)
    frames are given innermost-last (like tracebacks); faulthandler prints
    most recent first."""
    out = []
    if header:
        out += [header, ""]
    for tid, cur, frames in threads:
        out.append("%s 0x%s (most recent call first):" % ("Current thread" if cur else "Thread", tid))
        if not frames:
            out.append("  <no Python frame>")
        else:
            for f in reversed(frames):
                out.append('  File "%s", line %d in %s' % (f.file, f.line, f.func))
        out.append("")
    if ext_modules:
        mods = ["numpy.core._multiarray_umath", "numpy.core._multiarray_tests", "numpy.linalg._umath_linalg",
                "numpy.fft._pocketfft_internal", "numpy.random._common", "numpy.random.bit_generator",
                "numpy.random._bounded_integers", "numpy.random._mt19937", "numpy.random.mtrand",
                "torch._C", "torch._C._fft", "torch._C._linalg", "torch._C._nested", "torch._C._nn",
                "torch._C._sparse", "torch._C._special", "yaml._yaml", "psutil._psutil_linux",
                "psutil._psutil_posix", "sentencepiece._sentencepiece", "regex._regex",
                "charset_normalizer.md", "requests.packages.charset_normalizer.md",
                "pyarrow.lib", "pyarrow._compute", "pandas._libs.tslibs.np_datetime",
                "pandas._libs.lib", "markupsafe._speedups", "PIL._imaging", "zstandard.backend_c"]
        k = rng.randint(14, len(mods)) if rng else 20
        out.append("Extension modules: %s (total: %d)" % (", ".join(mods[:k]), k + (rng.randint(20, 60) if rng else 30)))
    return out


# --------------------------------------------------------------------------
# run context: versions, topology, paths
# --------------------------------------------------------------------------

TORCH = {1: "2.1.2", 2: "2.2.2", 3: "2.3.1", 4: "2.4.1", 5: "2.5.1", 6: "2.6.0"}
NCCL = {1: "2.18.1", 2: "2.19.3", 3: "2.20.5", 4: "2.20.5", 5: "2.21.5", 6: "2.21.5"}
CUDA = {1: "12.1", 2: "12.1", 3: "12.1", 4: "12.4", 5: "12.4", 6: "12.6"}

GPUS = [("NVIDIA H100 80GB HBM3", 79.11, ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"]),
        ("NVIDIA A100-SXM4-80GB", 79.15, ["07", "0f", "47", "4e", "87", "90", "b7", "bd"]),
        ("NVIDIA H200", 139.81, ["19", "3b", "4c", "5d", "9b", "bb", "cb", "db"])]

PROJECTS = [
    dict(name="llm-pretrain", root="/workspace/llm-pretrain", script="train.py",
         trainer="llmtrain/trainer.py", model="llmtrain/model/transformer.py",
         data="llmtrain/data/packed_dataset.py", ckpt="llmtrain/checkpoint.py",
         mcls="Transformer", block="TransformerBlock", attn="CausalSelfAttention",
         dscls="PackedTokenDataset", batch="{'input_ids': tensor([[  518, 29889, ...]], device='cuda:%d'), 'labels': tensor([[29889, ...]], device='cuda:%d')}",
         fwd="logits = self.model(batch['input_ids'])", inner="h = layer(h, freqs_cis, mask)",
         blk="h = x + self.attention(self.attention_norm(x), freqs_cis, mask)",
         leaf="output = F.scaled_dot_product_attention(xq, keys, values, attn_mask=mask)",
         getitem="tokens = self._read_tokens(shard, offset)"),
    dict(name="vit-mae", root="/home/%(user)s/code/mae", script="main_pretrain.py",
         trainer="engine_pretrain.py", model="models_mae.py", data="util/datasets.py",
         ckpt="util/misc.py", mcls="MaskedAutoencoderViT", block="Block", attn="Attention",
         dscls="ImageFolderWithCaptions",
         batch="(tensor([[[[-1.7754, ...]]]], device='cuda:%d'), tensor([ 413, ...], device='cuda:%d'))",
         fwd="loss, _, _ = model(samples, mask_ratio=args.mask_ratio)", inner="x = blk(x)",
         blk="x = x + self.drop_path(self.attn(self.norm1(x)))",
         leaf="attn = (q @ k.transpose(-2, -1)) * self.scale",
         getitem="sample = self.loader(path)"),
    dict(name="sdxl-finetune", root="/mnt/shared/%(user)s/sdxl-ft", script="train_unet.py",
         trainer="sdft/loop.py", model="sdft/unet_wrapper.py", data="sdft/webdata.py",
         ckpt="sdft/ckpt.py", mcls="UNetWrapper", block="CrossAttnDownBlock", attn="FlashAttnProcessor",
         dscls="WebImageTextDataset",
         batch="{'pixel_values': tensor([[[[ 0.1294, ...]]]], device='cuda:%d'), 'input_ids': tensor(...)}",
         fwd="model_pred = self.unet(noisy_latents, timesteps, encoder_hidden_states).sample",
         inner="sample, res_samples = downsample_block(hidden_states=sample, temb=emb, encoder_hidden_states=encoder_hidden_states)",
         blk="hidden_states = attn(hidden_states, encoder_hidden_states=encoder_hidden_states).sample",
         leaf="hidden_states = flash_attn_func(query, key, value, dropout_p=0.0, causal=False)",
         getitem="image = Image.open(io.BytesIO(sample['jpg'])).convert('RGB')"),
    dict(name="asr-conformer", root="/fsx/%(user)s/asr", script="run_train.py",
         trainer="asr/train_loop.py", model="asr/conformer.py", data="asr/audio_dataset.py",
         ckpt="asr/utils/checkpointing.py", mcls="ConformerCTC", block="ConformerLayer", attn="RelPositionMultiHeadAttention",
         dscls="ShardedAudioDataset",
         batch="{'audio': tensor([[ 0.0012, ...]], device='cuda:%d'), 'audio_lens': tensor([159872, ...], device='cuda:%d')}",
         fwd="log_probs, enc_len = self.model(batch['audio'], batch['audio_lens'])", inner="x = layer(x, pos_emb, mask)",
         blk="x = x + 0.5 * self.ff1(x)",
         leaf="scores = torch.matmul(q_with_bias_u, k.transpose(-2, -1))",
         getitem="wav, sr = torchaudio.load(self.paths[idx])"),
]

USERS = ["jchen", "mlopez", "akumar", "svc-train", "rwang", "tnguyen", "ebrown", "ykim"]


class Ctx:
    def __init__(self, seed, idx, layout, cause, healthy):
        self.seed = seed
        self.idx = idx
        self.layout = layout
        self.cause = cause
        self.healthy = healthy
        self.rng = random.Random("blind56|%s|%d|%s|%s" % (seed, idx, layout, cause))
        r = self.rng
        self.tv = r.choice([1, 2, 3, 3, 4, 4, 5, 5, 6])
        self.torch_ver = TORCH[self.tv]
        self.nccl = NCCL[self.tv]
        self.cuda = CUDA[self.tv]
        self.py = r.choice(["3.10", "3.10", "3.11", "3.11"] + (["3.12"] if self.tv >= 4 else []))
        self.carets = self.py != "3.10"
        self.user = r.choice(USERS)
        env = r.choice(["ngc", "conda", "venv", "fsx"])
        if env == "ngc":
            self.sp = "/usr/local/lib/python%s/dist-packages" % self.py
            self.pylib = "/usr/lib/python%s" % self.py
            self.pybin = "/usr/bin/python"
        elif env == "conda":
            self.sp = "/opt/conda/lib/python%s/site-packages" % self.py
            self.pylib = "/opt/conda/lib/python%s" % self.py
            self.pybin = "/opt/conda/bin/python"
        elif env == "venv":
            self.sp = "/home/%s/miniconda3/envs/train/lib/python%s/site-packages" % (self.user, self.py)
            self.pylib = "/home/%s/miniconda3/envs/train/lib/python%s" % (self.user, self.py)
            self.pybin = "/home/%s/miniconda3/envs/train/bin/python" % self.user
        else:
            self.sp = "/fsx/envs/pt%s/lib/python%s/site-packages" % (self.torch_ver.replace(".", ""), self.py)
            self.pylib = "/usr/lib/python%s" % self.py
            self.pybin = "/fsx/envs/pt%s/bin/python" % self.torch_ver.replace(".", "")
        self.tp = self.sp + "/torch"
        self.proj = dict(r.choice(PROJECTS))
        self.proj["root"] = self.proj["root"] % {"user": self.user}
        g = r.choice(GPUS)
        self.gpu_name, self.gpu_mem, self.bus = g[0], g[1], list(g[2])
        self.t0 = 1700000000 + r.randint(0, 40000000) + r.random()
        self.timeout_s = r.choice([600, 600, 600, 1800, 1800, 300, 3600])
        self.jobid = str(r.randint(180000, 9900000))
        self.record = r.random() < 0.6      # @record on main -> error files + faulthandler
        self.nccl_debug = None
        self.seq0 = r.randint(2000, 90000)
        self.port = r.choice([29500, 29500, 29400, 12355, 6000, 23456])

    # -- topology ----------------------------------------------------------
    def topo(self, wmin=2, wmax=256, single=False, gpn=None):
        r = self.rng
        if single:
            g = gpn or r.choice([2, 4, 8, 8, 8])
            self.gpn, self.nn = g, 1
        else:
            g = gpn or r.choice([8, 8, 8, 4])
            opts = [n for n in [2, 3, 4, 6, 8, 12, 16, 24, 32] if wmin <= n * g <= wmax]
            if not opts:
                opts = [max(1, wmin // g)]
            self.nn = r.choice(opts)
            self.gpn = g
        self.W = self.gpn * self.nn
        style = r.choice(["gpu", "dgx", "ip", "node", "hgx", "a3"])
        base = r.randint(1, 400)
        hosts = []
        k = base
        for n in range(self.nn):
            if n:
                k += r.choice([1, 1, 1, 2])
            if style == "gpu":
                hosts.append("gpu-node-%03d" % k)
            elif style == "dgx":
                hosts.append("dgx%03d" % k)
            elif style == "ip":
                hosts.append("ip-10-%d-%d-%d" % (r.randint(0, 3), r.randint(0, 255), r.randint(2, 254)))
            elif style == "node":
                hosts.append("node%04d" % k)
            elif style == "hgx":
                hosts.append("hgx-h100-%02d" % (k % 100))
            else:
                hosts.append("a3mega-%04d" % k)
        # de-duplicate
        seen = []
        for h in hosts:
            while h in seen:
                h = h + "b"
            seen.append(h)
        self.hosts = seen
        self.host_style = style
        self.domain = r.choice(["", ".cluster.local", ".ec2.internal", ".hpc.internal"])
        sub = r.randint(0, 250)
        self.ips = ["10.%d.%d.%d" % (r.randint(0, 40), (sub + n // 200) % 256, 10 + n % 200 + r.randint(0, 40) % 40) for n in range(self.nn)]
        # ensure unique
        u = []
        for ip in self.ips:
            while ip in u:
                a, b, c, d = ip.split(".")
                ip = "%s.%s.%s.%d" % (a, b, c, (int(d) + 1) % 250 + 2)
            u.append(ip)
        self.ips = u
        if style == "ip":
            self.ips = [h.replace("ip-", "").replace("-", ".").rstrip("b") for h in self.hosts]
        self.nccl_ib = r.random() < 0.75
        self.iface = r.choice(["eth0", "ens9f0", "bond0", "enp90s0f0np0"])
        self.commid = "0x%s" % hexid(r, 16)
        self.skew = [0.0] + [r.uniform(-3.5, 3.5) for _ in range(self.nn - 1)]
        if self.nn > 2 and r.random() < 0.25:
            self.skew[r.randrange(1, self.nn)] += r.choice([-1, 1]) * r.uniform(20, 95)
        pid0 = r.randint(3000, 900000)
        self.agent_pid = [pid0 + r.randint(0, 5000) for _ in range(self.nn)]
        self.pids = []
        for n in range(self.nn):
            p = self.agent_pid[n] + r.randint(30, 300)
            for lr in range(self.gpn):
                self.pids.append(p)
                p += r.choice([1, 1, 2, 3, 7])
        return self

    def node_of(self, rank):
        return rank // self.gpn

    def lr(self, rank):
        return rank % self.gpn

    def ranks_on(self, n):
        return list(range(n * self.gpn, (n + 1) * self.gpn))

    def T(self, t, node=0):
        """true time offset -> wall clock as seen on node"""
        return self.t0 + t + self.skew[node]

    def node_name(self, n):
        return self.hosts[n] if not getattr(self, "name_by_ip", False) else self.ips[n]

    def fqdn(self, n):
        return self.hosts[n] + self.domain

    def busid(self, lr):
        return "0000:%s:00.0" % self.bus[lr % len(self.bus)]

    def pci(self, lr):
        return "PCI:0000:%s:00" % self.bus[lr % len(self.bus)]

    def nccl_busid(self, lr):
        return "%s000" % self.bus[lr % len(self.bus)]

    def u(self, path):
        return self.proj["root"] + "/" + path


# --------------------------------------------------------------------------
# frame library (line numbers follow the torch minor version, roughly)
# --------------------------------------------------------------------------

LN = {
    "wrapped": {1: 1518, 2: 1511, 3: 1532, 4: 1553, 5: 1736, 6: 1739},
    "callimpl": {1: 1527, 2: 1520, 3: 1541, 4: 1562, 5: 1747, 6: 1750},
    "ddp_fwd": {1: 1519, 2: 1523, 3: 1593, 4: 1636, 5: 1643, 6: 1643},
    "ddp_run": {1: 1355, 2: 1359, 3: 1408, 4: 1454, 5: 1459, 6: 1459},
    "fsdp_fwd": {1: 839, 2: 849, 3: 849, 4: 863, 5: 864, 6: 864},
    "t_bwd": {1: 492, 2: 522, 3: 525, 4: 521, 5: 581, 6: 626},
    "ag_bwd": {1: 251, 2: 266, 3: 267, 4: 289, 5: 347, 6: 353},
    "graph": {4: 768, 5: 825, 6: 823},
    "c10dlog": {1: 47, 2: 72, 3: 75, 4: 79, 5: 83, 6: 81},
    "allreduce": {1: 2050, 2: 2219, 3: 2288, 4: 2501, 5: 2806, 6: 2806},
    "barrier": {1: 3696, 2: 3703, 3: 3839, 4: 4166, 5: 4551, 6: 4551},
    "allgather": {1: 2709, 2: 2897, 3: 2948, 4: 3201, 5: 3710, 6: 3710},
    "broadcast": {1: 1910, 2: 2080, 3: 2140, 4: 2417, 5: 2630, 6: 2630},
    "dl_next": {1: 630, 2: 631, 3: 631, 4: 701, 5: 708, 6: 708},
    "dl_nextdata": {1: 1328, 2: 1329, 3: 1329, 4: 1448, 5: 1465, 6: 1465},
    "dl_getdata": {1: 1294, 2: 1295, 3: 1295, 4: 1412, 5: 1427, 6: 1427},
    "dl_try": {1: 1132, 2: 1133, 3: 1133, 4: 1243, 5: 1251, 6: 1251},
    "dl_proc": {1: 1370, 2: 1371, 3: 1371, 4: 1474, 5: 1491, 6: 1491},
    "reraise": {1: 694, 2: 694, 3: 705, 4: 706, 5: 733, 6: 733},
    "worker": {1: 308, 2: 308, 3: 308, 4: 351, 5: 351, 6: 351},
    "fetch": {1: 51, 2: 51, 3: 51, 4: 52, 5: 52, 6: 52},
    "sighandler": {1: 66, 2: 66, 3: 66, 4: 73, 5: 73, 6: 73},
    "spawn_wrap": {1: 69, 2: 74, 3: 75, 4: 75, 5: 90, 6: 90},
    "spawn": {1: 246, 2: 246, 3: 255, 4: 282, 5: 328, 6: 340},
    "spawn_sp": {1: 202, 2: 202, 3: 211, 4: 238, 5: 284, 6: 296},
    "spawn_join": {1: 163, 2: 163, 3: 158, 4: 189, 5: 203, 6: 215},
    "rec_wrap": {1: 346, 2: 347, 3: 347, 4: 348, 5: 355, 6: 355},
    "run_main": {1: 806, 2: 812, 3: 812, 4: 901, 5: 919, 6: 918},
    "run_run": {1: 797, 2: 803, 3: 803, 4: 892, 5: 910, 6: 909},
    "l_call": {1: 134, 2: 135, 3: 135, 4: 133, 5: 138, 6: 138},
    "l_agent": {1: 264, 2: 268, 3: 263, 4: 264, 5: 269, 6: 270},
    "l_run": {1: 255, 2: 259, 3: 254, 4: 255, 5: 260, 6: 261},
    "synchronize": {1: 801, 2: 783, 3: 792, 4: 892, 5: 985, 6: 985},
    "save": {1: 619, 2: 628, 3: 628, 4: 651, 5: 849, 6: 943},
    "save_zip": {1: 853, 2: 862, 3: 862, 4: 883, 5: 1114, 6: 1208},
    "zip_exit": {1: 499, 2: 500, 3: 500, 4: 499, 5: 690, 6: 784},
}


def ln(ctx, key):
    return LN[key].get(ctx.tv, list(LN[key].values())[-1])


def thr_line(ctx):
    return {"3.10": 324, "3.11": 331, "3.12": 359}[ctx.py]


def fr_call(ctx, selfrepr=None):
    tp = ctx.tp
    a = Fr(tp + "/nn/modules/module.py", ln(ctx, "wrapped"), "_wrapped_call_impl",
           "return self._call_impl(*args, **kwargs)",
           {"args": "(tensor(...),)", "kwargs": "{}", "self": selfrepr or "Module(...)"})
    b = Fr(tp + "/nn/modules/module.py", ln(ctx, "callimpl"), "_call_impl",
           "return forward_call(*args, **kwargs)",
           {"args": "(tensor(...),)", "forward_call": "<bound method ...forward of ...>", "kwargs": "{}",
            "self": selfrepr or "Module(...)"})
    if ctx.tv <= 1:
        return [a, b]
    return [a, b]


def fr_entry(ctx, record=None, hydra=None):
    """<module> -> main -> trainer.fit"""
    p = ctx.proj
    s = ctx.u(p["script"])
    r = ctx.rng
    if hydra is None:
        hydra = getattr(ctx, "style", "") == "hydra"
    out = [Fr(s, r.randint(180, 420), "<module>", "main()")]
    if record if record is not None else ctx.record:
        out.append(Fr(ctx.tp + "/distributed/elastic/multiprocessing/errors/__init__.py", ln(ctx, "rec_wrap"),
                      "wrapper", "return f(*args, **kwargs)"))
    if hydra:
        hy = ctx.sp + "/hydra"
        out += [Fr(hy + "/main.py", 94, "decorated_main", "_run_hydra("),
                Fr(hy + "/_internal/utils.py", 394, "_run_hydra", "_run_app("),
                Fr(hy + "/_internal/utils.py", 457, "_run_app", "run_and_report("),
                Fr(hy + "/_internal/utils.py", 223, "run_and_report", "raise ex"),
                Fr(hy + "/_internal/utils.py", 220, "run_and_report", "return func()"),
                Fr(hy + "/_internal/utils.py", 458, "<lambda>", "lambda: hydra.run("),
                Fr(hy + "/_internal/hydra.py", 132, "run", "_ = ret.return_value"),
                Fr(hy + "/core/utils.py", 260, "return_value", "raise self._return_value"),
                Fr(hy + "/core/utils.py", 186, "run_job", "ret.return_value = task_function(task_cfg)")]
    out.append(Fr(s, r.randint(90, 170), "main", "trainer.fit()",
                  {"cfg": "{'model': {...}, 'optim': {...}, 'data': {...}}", "trainer": "<Trainer object at %s>" % addr(r)}))
    return out


def fr_loop(ctx, what="step"):
    p = ctx.proj
    t = ctx.u(p["trainer"])
    r = ctx.rng
    b = p["batch"].replace("%d", "0")
    out = [Fr(t, r.randint(120, 200), "fit", "self._train_epoch(epoch)", {"epoch": str(r.randint(0, 3)), "self": "<Trainer object at %s>" % addr(r)})]
    if what == "data":
        out.append(Fr(t, r.randint(205, 260), "_train_epoch", "for step, batch in enumerate(self.train_loader):",
                      {"step": str(r.randint(1000, 90000)), "self": "<Trainer object at %s>" % addr(r)}))
    else:
        out.append(Fr(t, r.randint(205, 260), "_train_epoch", "loss = self.train_step(batch)",
                      {"batch": b, "step": str(r.randint(1000, 90000))}))
    return out


def fr_forward(ctx, depth=3):
    p = ctx.proj
    r = ctx.rng
    t = ctx.u(p["trainer"])
    m = ctx.u(p["model"])
    wrap = r.choice(["ddp", "fsdp", "none"])
    out = [Fr(t, r.randint(270, 330), "train_step", p["fwd"],
              {"batch": p["batch"].replace("%d", "0"), "self": "<Trainer object at %s>" % addr(r)})]
    out += fr_call(ctx, "DistributedDataParallel(...)" if wrap == "ddp" else "FullyShardedDataParallel(...)")
    if wrap == "ddp":
        out.append(Fr(ctx.tp + "/nn/parallel/distributed.py", ln(ctx, "ddp_fwd"), "forward",
                      "else self._run_ddp_forward(*inputs, **kwargs)"))
        out.append(Fr(ctx.tp + "/nn/parallel/distributed.py", ln(ctx, "ddp_run"), "_run_ddp_forward",
                      "return self.module(*inputs, **kwargs)  # type: ignore[index]"))
        out += fr_call(ctx, p["mcls"] + "(...)")
    elif wrap == "fsdp":
        out.append(Fr(ctx.tp + "/distributed/fsdp/fully_sharded_data_parallel.py", ln(ctx, "fsdp_fwd"), "forward",
                      "output = self._fsdp_wrapped_module(*args, **kwargs)"))
        out += fr_call(ctx, p["mcls"] + "(...)")
    if depth >= 1:
        out.append(Fr(m, r.randint(300, 420), "forward", p["inner"], {"self": p["mcls"] + "(...)"}))
    if depth >= 2:
        out += fr_call(ctx, p["block"] + "(...)")
        out.append(Fr(m, r.randint(180, 290), "forward", p["blk"], {"self": p["block"] + "(...)"}))
    if depth >= 3:
        out += fr_call(ctx, p["attn"] + "(...)")
        out.append(Fr(m, r.randint(90, 170), "forward", p["leaf"], {"self": p["attn"] + "(...)"}))
    return out


def fr_backward(ctx):
    r = ctx.rng
    t = ctx.u(ctx.proj["trainer"])
    code = r.choice(["loss.backward()", "self.scaler.scale(loss).backward()", "self.accelerator.backward(loss)"])
    out = [Fr(t, r.randint(270, 330), "train_step", code, {"loss": "tensor(%.4f, device='cuda:0', grad_fn=<DivBackward0>)" % r.uniform(1.5, 3.5)})]
    if "accelerator" in code:
        out.append(Fr(ctx.sp + "/accelerate/accelerator.py", r.choice([2151, 2196, 2246]), "backward", "loss.backward(**kwargs)"))
    out.append(Fr(ctx.tp + "/_tensor.py", ln(ctx, "t_bwd"), "backward", "torch.autograd.backward("))
    if ctx.tv >= 4:
        out.append(Fr(ctx.tp + "/autograd/__init__.py", ln(ctx, "ag_bwd"), "backward", "_engine_run_backward("))
        out.append(Fr(ctx.tp + "/autograd/graph.py", ln(ctx, "graph"), "_engine_run_backward",
                      "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"))
    else:
        out.append(Fr(ctx.tp + "/autograd/__init__.py", ln(ctx, "ag_bwd"), "backward",
                      "Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"))
    return out


def fr_item(ctx):
    r = ctx.rng
    t = ctx.u(ctx.proj["trainer"])
    return [Fr(t, r.randint(330, 360), "train_step", r.choice(["loss_val = loss.detach().item()",
                                                             "if not torch.isfinite(loss).item():",
                                                             "self.meter.update(loss.item(), n=bs)"]))]


def fr_collective(ctx, op="allreduce"):
    r = ctx.rng
    t = ctx.u(ctx.proj["trainer"])
    user = {"allreduce": "dist.all_reduce(loss_t, op=dist.ReduceOp.SUM)",
            "barrier": "dist.barrier()",
            "allgather": "dist.all_gather_into_tensor(out, local)",
            "broadcast": "dist.broadcast(flag, src=0)"}[op]
    lib = {"allreduce": ("all_reduce", "work = group.allreduce([tensor], opts)"),
           "barrier": ("barrier", "work = group.barrier(opts=opts)"),
           "allgather": ("all_gather_into_tensor", "work = group._allgather_base(output_tensor, input_tensor, opts)"),
           "broadcast": ("broadcast", "work = group.broadcast([tensor], opts)")}[op]
    out = [Fr(t, r.randint(330, 380), "train_step" if op == "allreduce" else "_sync_and_log", user)]
    out.append(Fr(ctx.tp + "/distributed/c10d_logger.py", ln(ctx, "c10dlog"), "wrapper", "return func(*args, **kwargs)"))
    out.append(Fr(ctx.tp + "/distributed/distributed_c10d.py", ln(ctx, op), lib[0], lib[1]))
    return out


def fr_dl(ctx, tail="try"):
    tp = ctx.tp
    out = [Fr(tp + "/utils/data/dataloader.py", ln(ctx, "dl_next"), "__next__", "data = self._next_data()"),
           Fr(tp + "/utils/data/dataloader.py", ln(ctx, "dl_nextdata"), "_next_data", "idx, data = self._get_data()")]
    if tail == "proc":
        out[-1] = Fr(tp + "/utils/data/dataloader.py", ln(ctx, "dl_nextdata") + 14, "_next_data", "return self._process_data(data)")
        out.append(Fr(tp + "/utils/data/dataloader.py", ln(ctx, "dl_proc"), "_process_data", "data.reraise()"))
        out.append(Fr(tp + "/_utils.py", ln(ctx, "reraise"), "reraise", "raise exception"))
    elif tail == "try":
        out.append(Fr(tp + "/utils/data/dataloader.py", ln(ctx, "dl_getdata"), "_get_data", "success, data = self._try_get_data()"))
        out.append(Fr(tp + "/utils/data/dataloader.py", ln(ctx, "dl_try") + 13, "_try_get_data",
                      "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e"))
    elif tail == "timeout":
        out.append(Fr(tp + "/utils/data/dataloader.py", ln(ctx, "dl_getdata") + 4, "_get_data",
                      "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds')"))
    return out


def fr_worker(ctx, err_line):
    """frames inside a DataLoader worker, for 'Original Traceback'"""
    p = ctx.proj
    r = ctx.rng
    out = [Fr(ctx.tp + "/utils/data/_utils/worker.py", ln(ctx, "worker"), "_worker_loop",
              "data = fetcher.fetch(index)  # type: ignore[possibly-undefined]" if ctx.tv >= 3 else "data = fetcher.fetch(index)"),
           Fr(ctx.tp + "/utils/data/_utils/fetch.py", ln(ctx, "fetch"), "fetch",
              "data = [self.dataset[idx] for idx in possibly_batched_index]")]
    if ctx.py in ("3.10", "3.11"):
        out.append(Fr(ctx.tp + "/utils/data/_utils/fetch.py", ln(ctx, "fetch"), "<listcomp>",
                      "data = [self.dataset[idx] for idx in possibly_batched_index]"))
    d = ctx.u(p["data"])
    out.append(Fr(d, r.randint(60, 140), "__getitem__", p["getitem"]))
    if err_line:
        out.append(Fr(d, r.randint(150, 230), err_line[0], err_line[1]))
    return out


def fr_wait_queue(ctx):
    return [Fr(ctx.tp + "/utils/data/dataloader.py", ln(ctx, "dl_try"), "_try_get_data", "data = self._data_queue.get(timeout=timeout)"),
            Fr(ctx.pylib + "/queue.py", 180, "get", "self.not_empty.wait(remaining)"),
            Fr(ctx.pylib + "/threading.py", thr_line(ctx), "wait", "gotit = waiter.acquire(True, timeout)"),
            Fr(ctx.tp + "/utils/data/_utils/signal_handling.py", ln(ctx, "sighandler"), "handler", "_error_if_any_worker_fails()")]


def fr_ckpt(ctx):
    r = ctx.rng
    t = ctx.u(ctx.proj["trainer"])
    c = ctx.u(ctx.proj["ckpt"])
    return [Fr(t, r.randint(380, 440), "_train_epoch", "self.save_checkpoint(step)"),
            Fr(t, r.randint(450, 520), "save_checkpoint", "save_state(self.model, self.optimizer, path)"),
            Fr(c, r.randint(30, 90), "save_state", "torch.save(state, os.path.join(path, f\"rank{rank:05d}.pt\"))")]


def cuda_err_msg(what, dsa=True):
    s = "CUDA error: %s\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1" % what
    if dsa:
        s += "\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n"
    else:
        s += ".\n"
    return s


def oom_msg(ctx, gpu_idx, rng):
    total = ctx.gpu_mem
    tried = rng.choice([0.25, 0.5, 1.0, 1.95, 2.0, 3.91, 7.81, 15.62]) if rng.random() < 0.7 else rng.choice([20, 64, 128, 256, 512])
    tried_s = ("%.2f GiB" % tried) if tried < 16 else ("%.2f MiB" % tried)
    free = rng.uniform(0.01, min(tried, 1.5) if tried < 16 else 0.05)
    free_s = "%.2f GiB" % free if free >= 1 else "%.2f MiB" % (free * 1024)
    inuse = total - free
    alloc = inuse - rng.uniform(0.6, 4.0)
    resv = rng.uniform(0.05, 3.0)
    if ctx.tv <= 1:
        return ("CUDA out of memory. Tried to allocate %s. GPU %d has a total capacty of %.2f GiB of which %s is free. "
                "Process %d has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and "
                "%.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
                "max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF"
                % (tried_s, gpu_idx, total, free_s, rng.randint(3000, 90000), inuse, alloc, resv))
    return ("CUDA out of memory. Tried to allocate %s. GPU %d has a total capacity of %.2f GiB of which %s is free. "
            "Including non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated memory %.2f GiB is "
            "allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory "
            "is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See "
            "documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
            % (tried_s, gpu_idx, total, free_s, inuse, alloc, resv))


def oom_type(ctx):
    return "torch.OutOfMemoryError" if ctx.tv >= 5 else "torch.cuda.OutOfMemoryError"


def dist_err_type(ctx):
    return "torch.distributed.DistBackendError" if ctx.tv >= 1 else "RuntimeError"


# --------------------------------------------------------------------------
# c10 / NCCL message builders
# --------------------------------------------------------------------------

def c10_line(ctx, rank, wall, level, where, msg):
    """a c10 log line as ProcessGroupNCCL prints it, by torch version"""
    if ctx.tv <= 1:
        return "[%s %s] %s" % (level, where, msg)
    if ctx.tv <= 3:
        return "[rank%d]:[%s %s] %s" % (rank, level, where, msg)
    d = _dt(wall)
    stamp = "%s%d%02d %s.%09d" % (level, d.month, d.day, d.strftime("%H:%M:%S"), int((wall % 1) * 1e9))
    return "[rank%d]:[%s %s] %s" % (rank, stamp, where, msg)


def pg_tag(ctx, rank):
    if ctx.tv <= 2:
        return "[Rank %d]" % rank
    if ctx.tv <= 4:
        return "[PG 0 Rank %d]" % rank
    return "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % rank


def cpp_frames(ctx, kind, rng):
    lib = ctx.tp + "/lib/"
    sys_ = "/lib/x86_64-linux-gnu/"
    if kind == "timeout":
        rows = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x%x" % rng.choice([0x57, 0x96, 0x98]), lib + "libc10.so"),
                ("c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2", lib + "libtorch_cuda.so"),
                (("c10d::ProcessGroupNCCL::watchdogHandler() + 0x%x" % rng.choice([0x233, 0x1a0, 0x2b0])) if ctx.tv >= 3 else "c10d::ProcessGroupNCCL::workCleanupLoop() + 0x%x" % rng.choice([0x233, 0x1a0]), lib + "libtorch_cuda.so"),
                ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x%x" % rng.choice([0x10c, 0x14d, 0x80]), lib + "libtorch_cuda.so")]
    elif kind == "cuda":
        rows = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x57", lib + "libc10.so"),
                ("c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64", lib + "libc10.so"),
                ("c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118", lib + "libc10_cuda.so"),
                ("c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x56", lib + "libtorch_cuda.so"),
                ("c10d::ProcessGroupNCCL::WorkNCCL::isCompleted() + 0x58", lib + "libtorch_cuda.so"),
                (("c10d::ProcessGroupNCCL::watchdogHandler() + 0x1d8") if ctx.tv >= 3 else "c10d::ProcessGroupNCCL::workCleanupLoop() + 0x11a", lib + "libtorch_cuda.so"),
                ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", lib + "libtorch_cuda.so")]
    elif kind == "ncclerr":
        rows = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x57", lib + "libc10.so"),
                ("c10d::ProcessGroupNCCL::checkForNCCLErrorsInternal(std::shared_ptr<c10d::NCCLComm>&) + 0x220", lib + "libtorch_cuda.so"),
                ("c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException() + 0x7c", lib + "libtorch_cuda.so"),
                ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x213", lib + "libtorch_cuda.so"),
                ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", lib + "libtorch_cuda.so")]
    elif kind == "wd":
        rows = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x57", lib + "libc10.so"),
                ("<unknown function> + 0xe5aa84", lib + "libtorch_cuda.so")]
    else:
        rows = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x57", lib + "libc10.so")]
    rows += [("<unknown function> + 0xdc253", sys_ + "libstdc++.so.6"),
             ("<unknown function> + 0x94ac3", sys_ + "libc.so.6"),
             ("clone + 0x44" if rng.random() < 0.5 else "<unknown function> + 0x126850", sys_ + "libc.so.6")]
    base = rng.randint(0x7f0000000000, 0x7fffffffffff)
    out = []
    for i, (sym, so) in enumerate(rows):
        out.append("frame #%d: %s (0x%x in %s)" % (i, sym, base + rng.randint(0, 0xfffffff), so))
    return out


def workstr(ctx, seq, op, numel, ms_ran):
    return "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d) ran for %d milliseconds before timing out." % (
        seq, op, numel, numel if op not in ("_ALLGATHER_BASE", "ALLGATHER") else numel * ctx.W, ctx.timeout_s * 1000, ms_ran)


def watchdog_timeout_lines(ctx, rank, wall, seq, op, numel, last_enq, last_comp, full=True, rng=None):
    rng = rng or ctx.rng
    ran = ctx.timeout_s * 1000 + rng.randint(3, 2600)
    w = workstr(ctx, seq, op, numel, ran)
    main = "[Rank %d] Watchdog caught collective operation timeout: %s" % (rank, w)
    L = []
    wl = wall
    if ctx.tv <= 1:
        L.append(c10_line(ctx, rank, wl, "E", "ProcessGroupNCCL.cpp:475", main))
        L.append(c10_line(ctx, rank, wl, "E", "ProcessGroupNCCL.cpp:489", "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data."))
        L.append(c10_line(ctx, rank, wl, "E", "ProcessGroupNCCL.cpp:495", "To avoid data inconsistency, we are taking the entire process down."))
        L.append(c10_line(ctx, rank, wl, "E", "ProcessGroupNCCL.cpp:916", "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (rank, main)))
        L.append("terminate called after throwing an instance of 'std::runtime_error'")
        L.append("  what():  [Rank %d] NCCL watchdog thread terminated with exception: %s" % (rank, main))
        return L
    if ctx.tv <= 3:
        L.append(c10_line(ctx, rank, wl, "E", "ProcessGroupNCCL.cpp:523" if ctx.tv == 2 else "ProcessGroupNCCL.cpp:563", main))
        if ctx.tv == 3:
            L.append(c10_line(ctx, rank, wl, "E", "ProcessGroupNCCL.cpp:1537", "%s Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pg_tag(ctx, rank), seq, last_enq, last_comp)))
        L.append(c10_line(ctx, rank, wl, "E", "ProcessGroupNCCL.cpp:537" if ctx.tv == 2 else "ProcessGroupNCCL.cpp:577", "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data."))
        L.append(c10_line(ctx, rank, wl, "E", "ProcessGroupNCCL.cpp:543" if ctx.tv == 2 else "ProcessGroupNCCL.cpp:583", "To avoid data inconsistency, we are taking the entire process down."))
        L.append(c10_line(ctx, rank, wl, "E", "ProcessGroupNCCL.cpp:1182" if ctx.tv == 2 else "ProcessGroupNCCL.cpp:1414", "%s NCCL watchdog thread terminated with exception: %s" % (pg_tag(ctx, rank), main)))
        L.append("terminate called after throwing an instance of 'c10::DistBackendError'")
        L.append("  what():  %s NCCL watchdog thread terminated with exception: %s" % (pg_tag(ctx, rank), main))
        if full:
            L.append("Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % (525 if ctx.tv == 2 else 565))
            L += cpp_frames(ctx, "timeout", rng)
            L.append("")
            L.append("Exception raised from ncclCommWatchdog at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % (1186 if ctx.tv == 2 else 1418))
            L += cpp_frames(ctx, "wd", rng)
            L.append("")
        return L
    L.append(c10_line(ctx, rank, wl, "E", "ProcessGroupNCCL.cpp:607" if ctx.tv == 4 else "ProcessGroupNCCL.cpp:616", main))
    L.append(c10_line(ctx, rank, wl + 0.0004, "E", "ProcessGroupNCCL.cpp:1664" if ctx.tv == 4 else "ProcessGroupNCCL.cpp:1785",
                      "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pg_tag(ctx, rank), seq, last_enq, last_comp)))
    L.append(c10_line(ctx, rank, wl + 0.0005, "E", "ProcessGroupNCCL.cpp:1709" if ctx.tv == 4 else "ProcessGroupNCCL.cpp:1834",
                      "%s Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pg_tag(ctx, rank), seq, last_enq, last_comp)))
    L.append(c10_line(ctx, rank, wl + 0.0005, "E", "ProcessGroupNCCL.cpp:621" if ctx.tv == 4 else "ProcessGroupNCCL.cpp:630",
                      "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % rank))
    L.append(c10_line(ctx, rank, wl + 0.0005, "E", "ProcessGroupNCCL.cpp:627" if ctx.tv == 4 else "ProcessGroupNCCL.cpp:636",
                      "[Rank %d] To avoid data inconsistency, we are taking the entire process down." % rank))
    L.append(c10_line(ctx, rank, wl + 0.0012, "E", "ProcessGroupNCCL.cpp:1515" if ctx.tv == 4 else "ProcessGroupNCCL.cpp:1595",
                      "%s Process group watchdog thread terminated with exception: %s" % (pg_tag(ctx, rank), main)))
    L.append("terminate called after throwing an instance of 'c10::DistBackendError'")
    L.append("  what():  %s Process group watchdog thread terminated with exception: %s" % (pg_tag(ctx, rank), main))
    if full:
        L.append("Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % (609 if ctx.tv == 4 else 618))
        L += cpp_frames(ctx, "timeout", rng)
        L.append("")
        L.append("Exception raised from ncclCommWatchdog at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % (1521 if ctx.tv == 4 else 1601))
        L += cpp_frames(ctx, "wd", rng)
        L.append("")
    return L


def watchdog_error_lines(ctx, rank, wall, what, frames_kind="ncclerr", full=True, rng=None):
    """watchdog caught an async error (CUDA error / NCCL error) -> abort"""
    rng = rng or ctx.rng
    L = []
    first = what.split("\n")
    if ctx.tv <= 1:
        L.append(c10_line(ctx, rank, wall, "E", "ProcessGroupNCCL.cpp:916", "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (rank, first[0])))
        L += first[1:]
        L.append("terminate called after throwing an instance of '%s'" % ("c10::Error" if frames_kind == "cuda" else "std::runtime_error"))
        L.append("  what():  [Rank %d] NCCL watchdog thread terminated with exception: %s" % (rank, first[0]))
        L += first[1:]
        if frames_kind == "cuda" and full:
            L.append("Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:44 (most recent call first):")
            L += cpp_frames(ctx, "cuda", rng)
        return L
    tag = pg_tag(ctx, rank)
    where = {2: "ProcessGroupNCCL.cpp:1182", 3: "ProcessGroupNCCL.cpp:1414", 4: "ProcessGroupNCCL.cpp:1515"}.get(ctx.tv, "ProcessGroupNCCL.cpp:1595")
    verb = "NCCL watchdog thread terminated with exception" if ctx.tv <= 3 else "Process group watchdog thread terminated with exception"
    L.append(c10_line(ctx, rank, wall, "E", where, "%s %s: %s" % (tag, verb, first[0])))
    L += first[1:]
    L.append("terminate called after throwing an instance of '%s'" % ("c10::Error" if frames_kind == "cuda" else "c10::DistBackendError"))
    L.append("  what():  %s %s: %s" % (tag, verb, first[0]))
    L += first[1:]
    if full:
        if frames_kind == "cuda":
            L.append("Exception raised from c10_cuda_check_implementation at %s/c10/cuda/CUDAException.cpp:%d (most recent call first):" % (".." if ctx.tv <= 4 else "/pytorch", 43 if ctx.tv <= 4 else 42))
            L += cpp_frames(ctx, "cuda", rng)
        else:
            L.append("Exception raised from checkForNCCLErrorsInternal at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % rng.choice([1723, 1829, 2027]))
            L += cpp_frames(ctx, "ncclerr", rng)
        L.append("")
        L.append("Exception raised from ncclCommWatchdog at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % (1186 if ctx.tv <= 2 else 1521))
        L += cpp_frames(ctx, "wd", rng)
        L.append("")
    return L


def nccl_remote_what(ctx, peer_host, peer_ip, rng, kind=None):
    kind = kind or rng.choice(["closed", "ib12", "reset", "closed"])
    if kind == "closed":
        last = "socketProgress: Connection closed by remote peer %s<%d>" % (peer_host, rng.randint(32768, 60999))
        code = "remote process exited or there was a network error"
        err = "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely."
    elif kind == "reset":
        last = "socketProgress: Connection reset by peer %s<%d>" % (peer_host, rng.randint(32768, 60999)) if rng.random() < 0.5 else \
            "socketProgressOpt: Call to recv from %s<%d> failed : Connection reset by peer" % (peer_ip, rng.randint(32768, 60999))
        code = "unhandled system error (run with NCCL_DEBUG=INFO for details)"
        err = "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. "
    else:
        last = "NET/IB : Got completion from peer %s<%d> with status=12 opcode=%d len=0 vendor err 129 (%s) localGid ::ffff:%s remoteGids::ffff:%s" % (
            peer_ip, rng.randint(32768, 60999), rng.choice([0, 1, 129]), rng.choice(["Recv", "Send"]), "10.%d.%d.%d" % (rng.randint(0, 9), rng.randint(0, 255), rng.randint(2, 250)), peer_ip)
        code = "remote process exited or there was a network error"
        err = "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely."
    return "NCCL error: %s, NCCL version %s\n%s\nLast error:\n%s" % (code, ctx.nccl, err, last)


def nccl_prefix(ctx, node, rank, tid=None):
    pid = ctx.pids[rank]
    return "%s:%d:%d [%d]" % (ctx.hosts[node], pid, tid or pid, ctx.lr(rank))


# --------------------------------------------------------------------------
# app-level noise
# --------------------------------------------------------------------------

def py_warning(ctx, which, rng):
    tp = ctx.tp
    W = {
        "ckpt": (tp + "/utils/checkpoint.py", 464 if ctx.tv <= 3 else 295, "UserWarning",
                 "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.5 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants.",
                 "return fn(*args, **kwargs)" if ctx.tv <= 3 else "return CheckpointFunction.apply(function, preserve, *args)"),
        "typed": (tp + "/_utils.py", 831, "UserWarning",
                  "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class. This should only matter to you if you are using storages directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead.",
                  "return self.fget.__get__(instance, owner)()"),
        "scaler": (ctx.u(ctx.proj["trainer"]), rng.randint(60, 110), "FutureWarning",
                   "`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', args...)` instead.",
                   "self.scaler = torch.cuda.amp.GradScaler(enabled=cfg.fp16)"),
        "autocast": (ctx.u(ctx.proj["trainer"]), rng.randint(260, 300), "FutureWarning",
                     "`torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', args...)` instead.",
                     "with torch.cuda.amp.autocast(dtype=torch.bfloat16):"),
        "load": (ctx.u(ctx.proj["ckpt"]), rng.randint(90, 140), "FutureWarning",
                 "You are using `torch.load` with `weights_only=False` (the current default value), which uses the default pickle module implicitly. It is possible to construct malicious pickle data which will execute arbitrary code during unpickling (See https://github.com/pytorch/pytorch/blob/main/SECURITY.md#untrusted-models for more details). In a future release, the default value for `weights_only` will be flipped to `True`. This limits the functions that could be executed during unpickling. Arbitrary objects will no longer be allowed to be loaded via this mode unless they are explicitly allowlisted by the user via `torch.serialization.add_safe_globals`. We recommend you start setting `weights_only=True` for any use case where you don't have full control of the loaded file. Please open an issue on GitHub for any issues related to this experimental feature.",
                 "state = torch.load(path, map_location=\"cpu\")"),
        "grad": (tp + "/autograd/graph.py" if ctx.tv >= 4 else tp + "/autograd/__init__.py", 768 if ctx.tv >= 4 else 251, "UserWarning",
                 "Grad strides do not match bucket view strides. This may indicate grad was not created according to the gradient layout contract, or that the param's strides changed since DDP was constructed.  This is not an error, but may impair performance.\ngrad.sizes() = [4096, 1, 3, 3], strides() = [9, 1, 3, 1]\nbucket_view.sizes() = [4096, 1, 3, 3], strides() = [9, 9, 3, 1] (Triggered internally at ../torch/csrc/distributed/c10d/reducer.cpp:325.)",
                 "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"),
        "sched": (tp + "/optim/lr_scheduler.py", 143 if ctx.tv <= 3 else 224, "UserWarning",
                  "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, you should call them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first value of the learning rate schedule. See more details at https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                  "warnings.warn("),
    }
    f, l, cat, msg, code = W[which]
    return "%s:%d: %s: %s\n  %s" % (f, l, cat, msg, code)


def pick_warnings(ctx, rng, k=2):
    pool = ["ckpt", "sched"]
    if ctx.tv <= 2:
        pool += ["typed"]
    if ctx.tv >= 4:
        pool += ["scaler", "autocast", "load"]
    pool += ["grad"]
    rng.shuffle(pool)
    return pool[:k]


def nccl_init_lines(ctx, rank, wall_fn, rng, verbose=True):
    n = ctx.node_of(rank)
    lr = ctx.lr(rank)
    pre = nccl_prefix(ctx, n, rank)
    tid = ctx.pids[rank] + rng.randint(40, 400)
    pre2 = nccl_prefix(ctx, n, rank, tid)
    ib = ctx.nccl_ib
    L = []
    L.append("%s NCCL INFO Bootstrap : Using %s:%s<0>" % (pre, ctx.iface, ctx.ips[n]))
    if rank == 0:
        L.append("%s NCCL INFO NCCL version %s+cuda%s" % (pre, ctx.nccl, ctx.cuda))
    if verbose:
        L.append("%s NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin." % pre2 if ctx.tv >= 4 else
                 "%s NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation" % pre2)
        L.append("%s NCCL INFO cudaDriverVersion %d" % (pre, rng.choice([12020, 12040, 12060])))
    if ib:
        L.append("%s NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/IB [2]mlx5_4:1/IB [3]mlx5_5:1/IB [4]mlx5_6:1/IB [5]mlx5_9:1/IB [6]mlx5_10:1/IB [7]mlx5_11:1/IB ; OOB %s:%s<0>" % (pre2, ctx.iface, ctx.ips[n]))
        L.append("%s NCCL INFO Using network IB" % pre2)
    else:
        L.append("%s NCCL INFO NET/IB : No device found." % pre2)
        L.append("%s NCCL INFO NET/Socket : Using [0]%s:%s<0>" % (pre2, ctx.iface, ctx.ips[n]))
        L.append("%s NCCL INFO Using network Socket" % pre2)
    cid = ctx.commid
    comm = "0x%s" % hexid(rng, 12)
    L.append("%s NCCL INFO comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId %s - Init START" % (pre2, comm, rank, ctx.W, lr, lr, ctx.nccl_busid(lr), cid))
    if verbose and rank == 0:
        L.append("%s NCCL INFO Channel 00/%02d :    0   1   2   3   4   5   6   7" % (pre2, rng.choice([16, 24, 32])))
    L.append("%s NCCL INFO comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId %s - Init COMPLETE" % (pre2, comm, rank, ctx.W, lr, lr, ctx.nccl_busid(lr), cid))
    return L


def step_line(ctx, step, total, rng, st_time, loss, fmt):
    lr_ = 3e-4 * min(1.0, step / 2000.0)
    if fmt == "ds":
        return "[Rank 0] step=%d, skipped=%d, lr=[%.6e], mom=[(0.9, 0.95)]" % (step, rng.randint(0, 3), lr_)
    if fmt == "kv":
        return "step %d/%d | loss %.4f | lr %.3e | grad_norm %.3f | %.2f s/it | tok/s/gpu %d" % (
            step, total, loss, lr_, rng.uniform(0.2, 1.6), st_time, int(4096 * 8 / st_time))
    if fmt == "dict":
        return "{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %.4e, 'epoch': %.2f}" % (loss, rng.uniform(0.2, 1.6), lr_, step / float(total) * 3)
    return "[step %6d] train/loss=%.4f train/lr=%.2e perf/step_time=%.3fs mem/max_alloc=%.1fGiB" % (step, loss, lr_, st_time, rng.uniform(40, 76))


def tqdm_line(step, total, el, rate, loss, desc="Epoch 0"):
    pct = int(100.0 * step / total)
    fill = int(pct / 10)
    bar = "█" * fill + ("▏" if fill < 10 else "") + " " * (9 - fill if fill < 10 else 0)
    def hm(s):
        s = int(s)
        h, m = divmod(s, 3600)
        m, s2 = divmod(m, 60)
        return ("%d:%02d:%02d" % (h, m, s2)) if h else ("%02d:%02d" % (m, s2))
    rem = (total - step) * rate
    return "%s: %3d%%|%s| %d/%d [%s<%s, %.2fs/it, loss=%.3f]" % (desc, pct, bar[:10], step, total, hm(el), hm(rem), rate, loss)


# --------------------------------------------------------------------------
# story: what every rank / node / scheduler did, in true time
# --------------------------------------------------------------------------

OPS = ["ALLREDUCE", "ALLREDUCE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE", "ALLREDUCE", "BROADCAST"]


class Story:
    def __init__(self, ctx, L):
        self.ctx = ctx
        self.L = L
        W = ctx.W
        self.ev = [[] for _ in range(W)]
        self.exit = {}
        self.errfile = {}
        self.kern = [[] for _ in range(ctx.nn)]
        self.extra = {}
        self.sched = []
        self.init_rank = None
        self.init_node = None
        self.notes = ""
        self.healthy = False
        self.hints = {}
        self.rng = ctx.rng
        r = self.rng
        self.t_start = r.uniform(2, 9)
        self.t_init = self.t_start + r.uniform(15, 80)
        self.t_train = self.t_init + r.uniform(20, 260)
        self.step_time = r.choice([r.uniform(0.3, 1.2), r.uniform(1.0, 2.5), r.uniform(2.5, 6.0)])
        self.total_steps = r.choice([10000, 20000, 50000, 100000, 250000, 300000])
        fs = r.randint(150, min(self.total_steps - 100, 40000))
        self.fail_step = fs
        self.t_fail = self.t_train + fs * self.step_time
        self.progress_stop = None      # true time where progress logs stop (all ranks)
        self.seq = ctx.seq0 + fs * r.choice([2, 3, 4, 6])
        self.op = r.choice(OPS)
        self.numel = r.choice([1, 8, 1024, 262144, 4194304, 26214400, 67108864, 134217728])
        self.full_ranks = set(range(W)) if W <= 32 else set(r.sample(range(W), 12 if W < 128 else 6)) | {0}
        self.p_remote = 0.0 if ctx.nn == 1 else r.choice([0.0, 0.3, 0.7, 1.0])
        self.async_raise = r.random() < 0.3        # errors re-raised in the main thread as python exceptions
        self.fault = ctx.record or r.random() < 0.15  # faulthandler enabled
        self.stalled = set()
        self.killed = {}
        self.tcpstore_reset = ctx.tv >= 3 and r.random() < 0.8

    # -- primitives --
    def add(self, rank, t, stream, kind, payload):
        self.ev[rank].append((t, stream, kind, payload))

    def txt(self, rank, t, text, stream="err"):
        self.ev[rank].append((t, stream, "txt", text))

    def log(self, rank, t, level, msg, logger=None):
        self.ev[rank].append((t, "out" if level in ("INFO", "DEBUG") else "err", "log", (level, msg, logger)))

    def exc(self, rank, t, ex, code=1, record=True):
        """uncaught exception on a rank -> rank exits"""
        ctx = self.ctx
        swallow = ctx.style == "loguru" and getattr(ctx, "loguru_swallow", False)
        self.ev[rank].append((t, "err", "exc", ex))
        if swallow:
            code = 0
        elif record and ctx.record:
            self.errfile[rank] = (t, ex)
        self.die(rank, t + self.rng.uniform(0.05, 0.6), code, "exc" if code else "ok")

    def die(self, rank, t, code, how):
        if rank not in self.exit:
            self.exit[rank] = (t, code, how)

    def wall(self, rank, t):
        return self.ctx.T(t, self.ctx.node_of(rank))

    def kmsg(self, node, t, line):
        self.kern[node].append((t, line))

    # -- faulthandler dump for a rank that aborts/segfaults --
    def fault_dump(self, rank, t, header, main_frames, current="other", collateral=False):
        """faulthandler output.  current='main': the fatal signal hit the main
        thread (segfault in an extension); 'other': a C++ thread (the NCCL
        watchdog) aborted, which Python does not know as a thread, so no
        thread is marked current."""
        if not self.fault:
            return
        if collateral and rank not in self.full_ranks:
            return
        ctx = self.ctx
        r = self.rng
        tid = lambda: "00007f" + hexid(r, 10)
        thr = []
        if r.random() < 0.6:
            thr.append((tid(), False, [
                Fr(ctx.pylib + "/threading.py", {"3.10": 973, "3.11": 1002, "3.12": 1030}[ctx.py], "_bootstrap"),
                Fr(ctx.pylib + "/threading.py", {"3.10": 1016, "3.11": 1045, "3.12": 1073}[ctx.py], "_bootstrap_inner"),
                Fr(ctx.pylib + "/threading.py", {"3.10": 953, "3.11": 982, "3.12": 1010}[ctx.py], "run"),
                Fr(ctx.tp + "/utils/data/_utils/pin_memory.py", 54 if ctx.tv >= 3 else 51, "_pin_memory_loop"),
                Fr(ctx.tp + "/utils/data/_utils/pin_memory.py", 31 if ctx.tv >= 3 else 28, "do_one_step"),
                Fr(ctx.pylib + "/multiprocessing/queues.py", 113, "get"),
            ]))
        for _ in range(r.choice([0, 1, 2, 2])):
            thr.append((tid(), False, None))      # autograd engine threads
        if r.random() < 0.4:
            thr.append((tid(), False, [
                Fr(ctx.pylib + "/threading.py", {"3.10": 973, "3.11": 1002, "3.12": 1030}[ctx.py], "_bootstrap"),
                Fr(ctx.pylib + "/threading.py", {"3.10": 1016, "3.11": 1045, "3.12": 1073}[ctx.py], "_bootstrap_inner"),
                Fr(ctx.sp + "/tqdm/_monitor.py", 60, "run"),
                Fr(ctx.pylib + "/threading.py", {"3.10": 607, "3.11": 629, "3.12": 655}[ctx.py], "wait"),
                Fr(ctx.pylib + "/threading.py", thr_line(ctx), "wait"),
            ]))
        r.shuffle(thr)
        mf = [Fr(f.file, f.line, f.func) for f in main_frames]
        thr.append((tid(), current == "main", mf))
        lines = fmt_fault(header, thr, ext_modules=(ctx.py != "3.10" or r.random() < 0.7), rng=r)
        self.txt(rank, t, "\n".join(lines))

    def main_wait_frames(self, where=None):
        ctx = self.ctx
        r = self.rng
        where = where or r.choice(["item", "bwd", "sync", "opt"])
        base = fr_entry(ctx) + fr_loop(ctx)
        if where == "item":
            return base + fr_item(ctx)
        if where == "bwd":
            return base + fr_backward(ctx)
        if where == "sync":
            return base + [Fr(ctx.u(ctx.proj["trainer"]), r.randint(330, 380), "train_step", "torch.cuda.synchronize()"),
                           Fr(ctx.tp + "/cuda/__init__.py", ln(ctx, "synchronize"), "synchronize", "return torch._C._cuda_synchronize()")]
        return base + [Fr(ctx.u(ctx.proj["trainer"]), r.randint(330, 380), "train_step", "self.optimizer.step()"),
                       Fr(ctx.tp + "/optim/optimizer.py", 484 if ctx.tv >= 4 else 373, "wrapper", "out = func(*args, **kwargs)"),
                       Fr(ctx.tp + "/optim/adamw.py", 227 if ctx.tv >= 4 else 184, "step", "adamw(")]

    # -- collateral --------------------------------------------------------
    def collateral(self, t_ev, culprits, mode, skip=()):
        """Propagate a failure: culprits died (mode='death') or stopped
        progressing (mode='stall') at t_ev."""
        ctx = self.ctx
        r = self.rng
        L = self.L
        W = ctx.W
        cset = set(culprits)
        cnodes = set(ctx.node_of(c) for c in culprits)
        if not getattr(self, "culprits", None):
            self.culprits = list(culprits)
        if self.progress_stop is None:
            self.progress_stop = t_ev
        natural = {}
        node_coll = [t_ev + r.uniform(0.0, min(self.step_time, 0.6)) for _ in range(ctx.nn)]
        for k in range(W):
            if k in cset or k in skip or k in self.exit:
                continue
            n = ctx.node_of(k)
            if mode == "death" and n in cnodes and L.get("local") is not None:
                continue
            remote_ok = mode == "death" and n not in cnodes
            if remote_ok and r.random() < self.p_remote:
                natural[k] = (t_ev + r.uniform(0.3, 45.0), "remote")
            else:
                natural[k] = (node_coll[n] + r.uniform(0.0, 0.012) + ctx.timeout_s + r.uniform(0.005, 0.08), "timeout")
        fail_t = {k: v[0] for k, v in self.exit.items() if v[1] != 0}
        for k, (t, _) in natural.items():
            fail_t[k] = t
        killed = {}
        if L.get("glob") is not None and fail_t:
            g = min(fail_t.values()) + L["glob"]
            for k in range(W):
                if k in self.exit:
                    continue
                if k not in fail_t or fail_t[k] > g:
                    killed[k] = g + r.uniform(0, 0.3)
        if L.get("local") is not None:
            changed = True
            while changed:
                changed = False
                for n in range(ctx.nn):
                    fts = [fail_t[k] for k in ctx.ranks_on(n) if k in fail_t and k not in killed]
                    if not fts:
                        continue
                    kt = min(fts) + L["local"]
                    for k in ctx.ranks_on(n):
                        if k in self.exit or k in killed:
                            continue
                        if k not in fail_t or fail_t[k] > kt:
                            killed[k] = kt + r.uniform(0, 0.2)
                            changed = True
        # emit natural failures
        for k in sorted(natural):
            if k in killed:
                continue
            t, kind = natural[k]
            self._natural(k, t, kind, culprits)
        for k in sorted(killed):
            self.die(k, killed[k], -15, "term")
        self.killed.update(killed)
        # survivors see the TCPStore server (node 0 agent / rank 0) go away
        if self.tcpstore_reset and ctx.nn > 1:
            node0_end = [self.exit[k][0] for k in ctx.ranks_on(0) if k in self.exit]
            if node0_end and len(node0_end) == ctx.gpn:
                tgone = max(node0_end) + r.uniform(0.5, 4.0)
                for k in range(W):
                    if ctx.node_of(k) == 0:
                        continue
                    if k in self.exit and self.exit[k][0] > tgone + 0.5:
                        cnt = r.randint(1, 3) if k in self.full_ranks else 1
                        for j in range(cnt):
                            tt = tgone + j * r.uniform(0.9, 1.1) + r.uniform(0, 0.05)
                            if tt >= self.exit[k][0]:
                                break
                            self.txt(k, tt, c10_line(ctx, k, self.wall(k, tt), "W", "ProcessGroupNCCL.cpp:%d" % (1263 if ctx.tv <= 4 else 1380),
                                                      "%s Failed to check the \"should dump\" flag on TCPStore, (maybe TCPStore server has shut down too early), with error: %s" % (
                                                          pg_tag(ctx, k), r.choice(["Connection reset by peer", "Connection reset by peer", "Broken pipe"]))))

    def _natural(self, k, t, kind, culprits):
        ctx = self.ctx
        r = self.rng
        full = k in self.full_ranks
        if kind == "timeout":
            op, numel = getattr(self, "op_override", {}).get(k, (self.op, self.numel))
            lines = watchdog_timeout_lines(ctx, k, self.wall(k, t), self.seq, op, numel,
                                           self.seq + r.randint(0, 3), self.seq - 1, full=full, rng=r)
            self.txt(k, t, "\n".join(lines))
            self.fault_dump(k, t + 0.01, "Fatal Python error: Aborted", self.main_wait_frames(), collateral=True)
            self.die(k, t + r.uniform(0.05, 1.5), -6, "abort")
        else:
            c = r.choice(list(culprits))
            cn = ctx.node_of(c)
            what = nccl_remote_what(ctx, ctx.fqdn(cn), ctx.ips[cn], r, self.hints.get("remote_kind"))
            if self.async_raise:
                msg = what
                if ctx.tv >= 2 and full and r.random() < 0.5:
                    msg += "\nException raised from checkForNCCLErrorsInternal at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):\n%s" % (
                        r.choice([1723, 1829, 2027]), "\n".join(cpp_frames(ctx, "ncclerr", r)))
                ex = Ex(dist_err_type(ctx), msg, fr_entry(ctx) + fr_loop(ctx) + fr_collective(ctx, r.choice(["allreduce", "allreduce", "barrier"])))
                self.exc(k, t, ex, 1)
            else:
                lines = watchdog_error_lines(ctx, k, self.wall(k, t), what, "ncclerr", full=full, rng=r)
                self.txt(k, t, "\n".join(lines))
                self.fault_dump(k, t + 0.01, "Fatal Python error: Aborted", self.main_wait_frames(), collateral=True)
                self.die(k, t + r.uniform(0.05, 1.0), -6, "abort")

    def end_time(self):
        ts = [v[0] for v in self.exit.values()]
        return max(ts) if ts else self.t_fail


# --------------------------------------------------------------------------
# cause scenarios
# --------------------------------------------------------------------------

def xid(ctx, lr, code, pid, text, unknown=False):
    if unknown:
        return "NVRM: Xid (%s): %d, pid='<unknown>', name=<unknown>, %s" % (ctx.pci(lr), code, text)
    return "NVRM: Xid (%s): %d, pid=%d, name=python, %s" % (ctx.pci(lr), code, pid, text)


def crashdump_lines():
    return ["NVRM: A GPU crash dump has been created. If possible, please run",
            "NVRM: nvidia-bug-report.sh as root to collect this data before",
            "NVRM: the NVIDIA kernel module is unloaded."]


def pick_culprit(ctx, st, p0=0.12):
    r = ctx.rng
    if ctx.W == 1 or r.random() < p0:
        return 0
    return r.randrange(1, ctx.W)


def gpu_uuid(rng):
    return "GPU-%s-%s-%s-%s-%s" % (hexid(rng, 8), hexid(rng, 4), hexid(rng, 4), hexid(rng, 4), hexid(rng, 12))


def nvsmi_table(ctx, node, bad_lr=None, bad="lost", rng=None, util_low=None):
    rng = rng or ctx.rng
    d = _dt(ctx.t0)
    drv = rng.choice(["535.161.08", "550.54.15", "550.90.07", "560.35.03"])
    L = [d.strftime("%a %b %d %H:%M:%S %Y"),
         "+-----------------------------------------------------------------------------------------+",
         "| NVIDIA-SMI %s              Driver Version: %s      CUDA Version: %s     |" % (drv, drv, ctx.cuda),
         "|-----------------------------------------+------------------------+----------------------+",
         "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |",
         "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |",
         "|=========================================+========================+======================|"]
    pre = []
    for lr in range(ctx.gpn):
        if bad_lr is not None and lr == bad_lr and bad == "lost":
            pre.append("Unable to determine the device handle for GPU%s: Unknown Error" % ("0000" + ctx.busid(lr)[4:]).upper())
            continue
        ecc = "0"
        if bad_lr is not None and lr == bad_lr and bad == "ecc":
            ecc = str(rng.randint(1, 4))
        temp = rng.randint(33, 48) if util_low is None else (rng.randint(84, 91) if lr == util_low else rng.randint(55, 70))
        util = "0%" if util_low is None else ("%d%%" % (rng.randint(97, 100)))
        perf = "P0"
        mem = "%5dMiB / %dMiB" % (rng.randint(1, 900) if util_low is None else rng.randint(60000, 78000), int(ctx.gpu_mem * 1024 + 400))
        L.append("| %3d  %-24s  On   | %s Off |%21s |" % (lr, ctx.gpu_name[:24], "00000000:" + ctx.busid(lr).upper()[5:], ecc))
        L.append("| N/A   %2dC    %s            %3dW /  700W | %22s | %8s      Default |" % (temp, perf, rng.randint(70, 690), mem, util))
        L.append("|                                         |                        |             Disabled |")
        L.append("+-----------------------------------------+------------------------+----------------------+")
    return pre + L


def sc_gpu_hardware(ctx, st):
    r = ctx.rng
    c = pick_culprit(ctx, st)
    n, lr = ctx.node_of(c), ctx.lr(c)
    t = st.t_fail
    var = r.choice(["79", "79", "79", "62", "119", "120"])
    pid = ctx.pids[c]
    uuid = gpu_uuid(r)
    if var == "79":
        st.kmsg(n, t - r.uniform(0.1, 2.0), xid(ctx, lr, 79, pid, "GPU has fallen off the bus.", unknown=r.random() < 0.5))
        st.kmsg(n, t - 0.1, "NVRM: GPU %s: GPU has fallen off the bus." % ctx.busid(lr))
        st.kmsg(n, t - 0.1, "NVRM: GPU at PCI:%s: %s" % (ctx.busid(lr)[:-2], uuid))
        st.kmsg(n, t - 0.1, "NVRM: GPU Board Serial Number: %d" % r.randint(1320000000000, 1660000000000))
        for l in crashdump_lines():
            st.kmsg(n, t - 0.05, l)
        what = r.choice(["unspecified launch failure", "unspecified launch failure", "unknown error"])
        mode = "death"
        st.extra["nvidia-smi_%s.txt" % ctx.hosts[n]] = "\n".join(nvsmi_table(ctx, n, lr, "lost"))
        st.hints["xid"] = 79
        note = "GPU %s (local %d) on %s fell off the bus (Xid 79)" % (ctx.busid(lr), lr, ctx.hosts[n])
    elif var == "62":
        st.kmsg(n, t - r.uniform(0.2, 3.0), xid(ctx, lr, 62, pid, "%08x %08x %08x %08x %08x %08x %08x %08x" % tuple(r.randint(0, 0xffff) for _ in range(8))))
        st.kmsg(n, t - 0.1, "NVRM: GPU at PCI:%s: %s" % (ctx.busid(lr)[:-2], uuid))
        for l in crashdump_lines():
            st.kmsg(n, t - 0.05, l)
        what = "unknown error"
        mode = "death"
        st.hints["xid"] = 62
        note = "Xid 62 (internal micro-controller halt) on %s GPU %s; GPU needs a reset" % (ctx.hosts[n], ctx.busid(lr))
    else:
        code = int(var)
        if code == 119:
            msg = "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function %d (%s) (0x%08x 0x%x)." % (
                lr, r.choice([76, 10, 103]), r.choice(["GSP_RM_CONTROL", "FREE", "GSP_RM_ALLOC"]), r.randint(0x20800000, 0x20809999), r.choice([4, 0x14, 0x50]))
        else:
            msg = "GSP task timeout @ pc:0x%x, task: 1" % r.randint(0x1000, 0x9fff)
        st.kmsg(n, t + r.uniform(0, 5), xid(ctx, lr, code, pid, msg))
        if code == 119:
            st.kmsg(n, t + 5.1, "NVRM: GPU%d GSP RPC buffer contains function %d (GSP_RM_CONTROL) and data 0x%016x 0x%016x." % (lr, 76, r.randint(0x20800000, 0x20809999), 4))
            st.kmsg(n, t + 5.1, "NVRM: GPU%d RPC history (CPU -> GSP):" % lr)
            st.kmsg(n, t + 5.1, "NVRM:     entry function                   data0              data1              ts_start           ts_end             duration actively_polling")
            for _ in range(3):
                st.kmsg(n, t + 5.1, "NVRM:      %d    %-4d GSP_RM_CONTROL           0x%016x 0x%016x 0x%016x 0x%016x %6dus" % (
                    _, 76, r.randint(0x20800000, 0x20809999), r.randint(0, 99), r.randint(10 ** 15, 10 ** 16), r.randint(10 ** 15, 10 ** 16), r.randint(50, 900)))
            st.kmsg(n, t + 25, xid(ctx, lr, 119, pid, "Timeout after 45s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x%08x 0x%x)." % (lr, r.randint(0x20800000, 0x20809999), 4)))
        st.kmsg(n, t + 30, "NVRM: GPU %s: rm_init_adapter failed, device minor number %d" % (ctx.busid(lr), lr) if r.random() < 0.3 else
                "NVRM: GPU %s: GPU is in an unrecoverable state, reset required" % ctx.busid(lr))
        st.hints["xid"] = code
        mode = "stall"
        what = None
        note = "GSP firmware stopped answering on %s GPU %s (Xid %d); the rank on it froze inside a CUDA call" % (ctx.hosts[n], ctx.busid(lr), code)
    if mode == "death":
        surf = r.choice(["watchdog", "py", "nccl"])
        if surf == "watchdog":
            lines = watchdog_error_lines(ctx, c, st.wall(c, t), cuda_err_msg(what).rstrip("\n"), "cuda", rng=r)
            st.txt(c, t, "\n".join(lines))
            st.fault_dump(c, t + 0.01, "Fatal Python error: Aborted", st.main_wait_frames())
            st.die(c, t + 0.3, -6, "abort")
        elif surf == "py":
            ex = Ex("RuntimeError", cuda_err_msg(what), fr_entry(ctx) + fr_loop(ctx) + r.choice([fr_item(ctx), fr_backward(ctx), fr_forward(ctx, 2)]))
            st.exc(c, t, ex)
        else:
            ex = Ex(dist_err_type(ctx), "NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s\nncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\nCuda failure '%s'" % (
                r.choice([1275, 1970, 2006]), ctx.nccl, what), fr_entry(ctx) + fr_loop(ctx) + fr_collective(ctx))
            st.exc(c, t, ex)
        st.collateral(t, [c], "death")
    else:
        st.stalled.add(c)
        st.collateral(t, [c], "stall")
    st.init_rank, st.init_node = c, n
    st.notes = note


def sc_ecc(ctx, st):
    r = ctx.rng
    c = pick_culprit(ctx, st)
    n, lr = ctx.node_of(c), ctx.lr(c)
    t = st.t_fail
    pid = ctx.pids[c]
    var = r.choice(["48", "94", "95", "remap"])
    if var == "48":
        st.kmsg(n, t - r.uniform(0.05, 1.0), xid(ctx, lr, 48, pid, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (r.randint(0, 11), r.randint(0, 1))))
        st.kmsg(n, t - 0.02, xid(ctx, lr, 63, pid, "Row Remapper: New row (0x%016x) was marked for remapping, reset gpu to activate." % r.randint(0x100000, 0xffffff)))
        note = "double-bit ECC error (Xid 48) in HBM of %s GPU %s" % (ctx.hosts[n], ctx.busid(lr))
    elif var == "94":
        st.kmsg(n, t - r.uniform(0.05, 1.0), xid(ctx, lr, 94, pid, "Contained: SM (0x%x). RST: No, D-RST: No" % r.choice([1, 2, 4])))
        note = "contained uncorrectable ECC error (Xid 94) on %s GPU %s killed the process using it" % (ctx.hosts[n], ctx.busid(lr))
    elif var == "95":
        st.kmsg(n, t - r.uniform(0.05, 1.0), xid(ctx, lr, 95, pid, "Uncontained: FBHUB. RST: Yes, D-RST: No"))
        note = "uncontained uncorrectable ECC error (Xid 95) on %s GPU %s; GPU needs reset" % (ctx.hosts[n], ctx.busid(lr))
    else:
        st.kmsg(n, t - r.uniform(0.5, 2.0), xid(ctx, lr, 48, pid, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (r.randint(0, 11), r.randint(0, 1))))
        st.kmsg(n, t - 0.1, xid(ctx, lr, 64, pid, "Row Remapper: Failed to remap row 0x%x, remapping table full" % r.randint(0x1000, 0xfffff)))
        note = "uncorrectable ECC error and row-remap failure (Xid 48+64) on %s GPU %s" % (ctx.hosts[n], ctx.busid(lr))
        st.extra["nvidia-smi-q_%s.txt" % ctx.hosts[n]] = "\n".join([
            "==============NVSMI LOG==============", "", "Timestamp                                 : %s" % _dt(ctx.T(t + 900, n)).strftime("%a %b %d %H:%M:%S %Y"),
            "Driver Version                            : 550.90.07", "CUDA Version                              : %s" % ctx.cuda, "",
            "Attached GPUs                             : %d" % ctx.gpn,
            "GPU 00000000:%s:00.0" % ctx.bus[lr].upper(),
            "    Product Name                          : %s" % ctx.gpu_name,
            "    ECC Errors",
            "        Volatile",
            "            SRAM Correctable              : 0",
            "            SRAM Uncorrectable Parity     : 0",
            "            SRAM Uncorrectable SEC-DED    : 0",
            "            DRAM Correctable              : %d" % r.randint(0, 40),
            "            DRAM Uncorrectable            : %d" % r.randint(1, 3),
            "        Aggregate",
            "            DRAM Correctable              : %d" % r.randint(40, 400),
            "            DRAM Uncorrectable            : %d" % r.randint(3, 12),
            "    Retired Pages",
            "        Single Bit ECC                    : N/A",
            "        Double Bit ECC                    : N/A",
            "        Pending Page Blacklist            : N/A",
            "    Remapped Rows",
            "        Correctable Error                 : %d" % r.randint(0, 3),
            "        Uncorrectable Error               : %d" % r.randint(8, 16),
            "        Pending                           : Yes",
            "        Remapping Failure Occurred        : Yes",
            "        Bank Remap Availability Histogram",
            "            Max                           : %d bank(s)" % r.randint(600, 640),
            "            High                          : 0 bank(s)",
            "            Partial                       : %d bank(s)" % r.randint(0, 4),
            "            Low                           : 0 bank(s)",
            "            None                          : %d bank(s)" % r.randint(1, 3)])
    what = "uncorrectable ECC error encountered"
    surf = r.choice(["watchdog", "py", "py"])
    if surf == "watchdog":
        lines = watchdog_error_lines(ctx, c, st.wall(c, t), cuda_err_msg(what).rstrip("\n"), "cuda", rng=r)
        st.txt(c, t, "\n".join(lines))
        st.fault_dump(c, t + 0.01, "Fatal Python error: Aborted", st.main_wait_frames())
        st.die(c, t + 0.3, -6, "abort")
    else:
        fr = fr_entry(ctx) + fr_loop(ctx) + r.choice([fr_item(ctx), fr_backward(ctx), fr_forward(ctx, 3)])
        ex = Ex("RuntimeError", cuda_err_msg(what), fr)
        if r.random() < 0.35:
            # the app's emergency-checkpoint handler trips over the dead context
            caught_at(ex, "fit")
            ex2 = Ex("RuntimeError", cuda_err_msg(what), fr_entry(ctx) + [Fr(ctx.u(ctx.proj["trainer"]), r.randint(150, 200), "fit", "self.save_checkpoint(step, emergency=True)")] + fr_ckpt(ctx)[1:] + [
                Fr(ctx.tp + "/serialization.py", ln(ctx, "save"), "save", "_save(obj, opened_zipfile, pickle_module, pickle_protocol, _disable_byteorder_record)"),
                Fr(ctx.tp + "/serialization.py", ln(ctx, "save_zip"), "_save", "storage = storage.cpu()")], context=ex)
            ex = ex2
        st.exc(c, t, ex)
    st.collateral(t, [c], "death")
    st.init_rank, st.init_node = c, n
    st.notes = note


def sc_nvlink(ctx, st):
    r = ctx.rng
    n = r.randrange(ctx.nn)
    t = st.t_fail
    bad = sorted(r.sample(range(ctx.gpn), min(ctx.gpn, r.choice([1, 1, 2, 3]))))
    for j, lr in enumerate(bad):
        st.kmsg(n, t - r.uniform(0.05, 1.5) + j * 0.01, xid(ctx, lr, 74, ctx.pids[n * ctx.gpn + lr],
                                                          "NVLink: fatal error detected on link %d(0x%x, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)" % (r.randint(0, 17), r.choice([0x10000, 0x20000, 0x8000]))))
    if r.random() < 0.5:
        fm = []
        for j in range(r.randint(1, 3)):
            fm.append("[%s] [ERROR] [tid %d] detected NVSwitch fatal error %d on fid 0 on NVSwitch pci bus id 00000000:%02X:00.0 physical id %d port %d" % (
                _dt(ctx.T(t - 1.0, n)).strftime("%b %d %Y %H:%M:%S"), r.randint(1000, 9000), r.choice([20034, 12028, 20001]), r.choice([5, 6, 7, 8]), r.randint(0, 3), r.randint(0, 63)))
        st.extra["nv-fabricmanager_%s.log" % ctx.hosts[n]] = "\n".join(fm)
    mode = r.choice(["death", "death", "stall"])
    loc = ctx.ranks_on(n)
    what = "uncorrectable NVLink error detected during the execution"
    if mode == "death":
        hit = [n * ctx.gpn + lr for lr in bad] + [k for k in loc if r.random() < 0.4]
        hit = sorted(set(hit))
        tt = t + r.uniform(0.05, 0.4)
        for k in hit:
            tk = tt + r.uniform(0, 0.02)
            if r.random() < 0.5:
                lines = watchdog_error_lines(ctx, k, st.wall(k, tk), "NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s\nncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\nCuda failure '%s'" % (ctx.nccl, what), "ncclerr", full=k in st.full_ranks, rng=r)
                st.txt(k, tk, "\n".join(lines))
                st.die(k, tk + r.uniform(0.1, 0.5), -6, "abort")
            else:
                ex = Ex("RuntimeError", cuda_err_msg(what), fr_entry(ctx) + fr_loop(ctx) + r.choice([fr_item(ctx), fr_backward(ctx)]))
                st.exc(k, tk, ex)
        st.collateral(tt, hit, "death")
    else:
        hit = [n * ctx.gpn + lr for lr in bad]
        st.stalled.update(hit)
        st.collateral(t, hit, "stall")
    st.init_rank, st.init_node = None, n
    st.notes = "NVLink fatal error (Xid 74) on %s GPU(s) %s" % (ctx.hosts[n], ",".join(ctx.busid(lr) for lr in bad))


def sc_network(ctx, st):
    r = ctx.rng
    if ctx.nn == 1:
        raise ValueError("network needs >1 node")
    n = r.randrange(ctx.nn)
    t = st.t_fail
    hca = r.choice(["mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9"])
    bus = r.choice(["0c", "1d", "41", "5a", "9c", "bb", "c1", "d2"])
    kind = r.choice(["ib", "ib", "roce", "sock"])
    if kind == "ib":
        st.kmsg(n, t - r.uniform(0.5, 3.0), "mlx5_core 0000:%s:00.0: mlx5_port_module_event:%d:(pid 0): Port module event[error]: module %d, Cable error, %s" % (
            bus, r.choice([1133, 1147, 1169]), r.randint(0, 7), r.choice(["High Temperature", "Bad or shorted cable/module", "Power budget exceeded"])))
        st.kmsg(n, t - 0.2, "mlx5_core 0000:%s:00.0 ibp%ds0: Link DOWN" % (bus, int(bus, 16)))
        st.kmsg(n, t + r.uniform(20, 60), "mlx5_core 0000:%s:00.0 ibp%ds0: Link UP" % (bus, int(bus, 16)))
        st.hints["remote_kind"] = "ib12"
        note = "InfiniBand port %s on %s went down (cable/module error)" % (hca, ctx.hosts[n])
    elif kind == "roce":
        st.kmsg(n, t - r.uniform(0.5, 3.0), "mlx5_core 0000:%s:00.0 enp%ds0np0: Link down" % (bus, int(bus, 16)))
        st.kmsg(n, t - 0.1, "bond0: (slave enp%ds0np0): link status definitely down, disabling slave" % int(bus, 16))
        st.hints["remote_kind"] = "ib12"
        note = "RoCE NIC on %s lost link" % ctx.hosts[n]
    else:
        st.kmsg(n, t - r.uniform(0.5, 3.0), "ena 0000:00:%02x.0 eth0: Reset reason: %d" % (r.randint(5, 8), r.choice([8, 9])))
        st.kmsg(n, t - 0.2, "ena 0000:00:%02x.0 eth0: Trigger reset is on" % r.randint(5, 8))
        st.kmsg(n, t + 2.0, "ena 0000:00:%02x.0 eth0: Device reset completed successfully, Driver info: Elastic Network Adapter (ENA) v2.12.0g" % r.randint(5, 8))
        st.hints["remote_kind"] = "reset"
        note = "primary NIC on %s reset (socket transport lost)" % ctx.hosts[n]
    # ranks on the bad node see their local device error first
    loc = ctx.ranks_on(n)
    first = []
    for k in loc:
        if r.random() < 0.7 or not first:
            tk = t + r.uniform(0.2, 8.0)
            if kind in ("ib", "roce") and ctx.nccl_debug:
                st.txt(k, tk - 0.01, "%s transport/net_ib.cc:%d NCCL WARN NET/IB : %s:1 Got async event : port error" % (nccl_prefix(ctx, n, k, ctx.pids[k] + 77), r.choice([88, 94, 105]), hca), "out")
            peer = r.choice([m for m in range(ctx.nn) if m != n])
            what = nccl_remote_what(ctx, ctx.fqdn(peer), ctx.ips[peer], r, "ib12" if kind != "sock" else "reset")
            if st.async_raise or r.random() < 0.3:
                st.exc(k, tk, Ex(dist_err_type(ctx), what, fr_entry(ctx) + fr_loop(ctx) + fr_collective(ctx)))
            else:
                lines = watchdog_error_lines(ctx, k, st.wall(k, tk), what, "ncclerr", full=k in st.full_ranks, rng=r)
                st.txt(k, tk, "\n".join(lines))
                st.die(k, tk + r.uniform(0.1, 0.6), -6, "abort")
            first.append(k)
    st.p_remote = max(st.p_remote, 0.7)
    st.collateral(t, first, "death")
    st.init_rank, st.init_node = None, n
    st.notes = note


def sc_cuda_oom(ctx, st):
    r = ctx.rng
    t = st.t_fail
    multi = ctx.W >= 4 and r.random() < 0.3
    c = pick_culprit(ctx, st)
    culprits = [c]
    if multi:
        culprits = sorted(set([c] + r.sample(range(ctx.W), r.randint(1, min(4, ctx.W - 1)))))
    where = r.choice(["fwd", "bwd", "opt", "nccl"])
    for j, k in enumerate(culprits):
        tk = t + (0 if j == 0 else r.uniform(0.0, 2.0))
        gidx = ctx.lr(k) if getattr(ctx, "all_gpus_visible", True) else 0
        if where == "nccl" and not multi:
            ex = Ex(dist_err_type(ctx), "NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s\nncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\nCuda failure 'out of memory'" % (
                r.choice([1275, 1970, 2006]), ctx.nccl), fr_entry(ctx) + fr_loop(ctx) + fr_collective(ctx, "allgather"))
        else:
            if where == "fwd" or where == "nccl":
                fr = fr_entry(ctx) + fr_loop(ctx) + fr_forward(ctx, r.randint(2, 3))
            elif where == "bwd":
                fr = fr_entry(ctx) + fr_loop(ctx) + fr_backward(ctx)
            else:
                fr = fr_entry(ctx) + fr_loop(ctx) + [Fr(ctx.u(ctx.proj["trainer"]), r.randint(330, 380), "train_step", "self.optimizer.step()"),
                                                     Fr(ctx.tp + "/optim/optimizer.py", 484 if ctx.tv >= 4 else 373, "wrapper", "out = func(*args, **kwargs)"),
                                                     Fr(ctx.tp + "/optim/optimizer.py", 89 if ctx.tv >= 4 else 76, "_use_grad", "ret = func(self, *args, **kwargs)"),
                                                     Fr(ctx.tp + "/optim/adamw.py", 216 if ctx.tv >= 4 else 173, "step", "self._init_group("),
                                                     Fr(ctx.tp + "/optim/adamw.py", 159 if ctx.tv >= 4 else 125, "_init_group",
                                                        "state[\"exp_avg_sq\"] = torch.zeros_like(")]
            ex = Ex(oom_type(ctx), oom_msg(ctx, gidx, r), fr)
            if j == 0 and r.random() < 0.3:
                # handler tries to dump a memory snapshot / save and dies again
                caught_at(ex, "fit")
                ex = Ex("RuntimeError", cuda_err_msg("out of memory"),
                        fr_entry(ctx) + [Fr(ctx.u(ctx.proj["trainer"]), r.randint(150, 200), "fit", "self._dump_debug_state(step)"),
                                         Fr(ctx.u(ctx.proj["trainer"]), r.randint(520, 560), "_dump_debug_state", "stats = {k: v.float().norm().item() for k, v in self.model.state_dict().items()}")],
                        context=ex)
        st.exc(k, tk, ex)
    st.collateral(t, culprits, "death")
    if multi:
        nodes = sorted(set(ctx.node_of(k) for k in culprits))
        st.init_rank = None
        st.init_node = ctx.node_of(culprits[0]) if len(nodes) == 1 else None
        st.notes = "CUDA OOM on several ranks at once (%s) at step %d" % (",".join(map(str, culprits)), st.fail_step)
    else:
        st.init_rank, st.init_node = c, ctx.node_of(c)
        st.notes = "CUDA OOM on rank %d (%s) at step %d (long-sequence batch)" % (c, where, st.fail_step)


DSA_ASSERTS = [
    ("IndexKernel.cu", 92, "operator()", "`-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"`"),
    ("Loss.cu", 250, "nll_loss_forward_reduce_cuda_kernel_2d", "`t >= 0 && t < n_classes`"),
    ("Indexing.cu", 1289, "indexSelectLargeIndex", "`srcIndex < srcSelectDimSize`"),
    ("ScatterGatherKernel.cu", 367, "operator()", "`idx_dim >= 0 && idx_dim < index_size && \"index out of bounds\"`"),
]


def sc_ima(ctx, st):
    r = ctx.rng
    c = pick_culprit(ctx, st)
    n, lr = ctx.node_of(c), ctx.lr(c)
    t = st.t_fail
    var = r.choice(["wd", "py", "dsa", "dsa", "misaligned"])
    if getattr(ctx, "flavor", "") == "compile" and r.random() < 0.6:
        var = "triton"
    if var in ("wd", "py", "misaligned", "triton") and r.random() < 0.55:
        code = r.choice([13, 31, 31, 43])
        if code == 13:
            st.kmsg(n, t - 0.01, xid(ctx, lr, 13, ctx.pids[c], "Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (r.randint(0, 7), r.randint(0, 8), r.randint(0, 1))))
            st.kmsg(n, t - 0.01, xid(ctx, lr, 13, ctx.pids[c], "Graphics Exception: ESR 0x%x=0x%x 0x%x=0x20 0x%x=0x%x 0x%x=0x174" % (r.randint(0x500000, 0x5fffff), r.randint(0, 0xfffffff), r.randint(0x500000, 0x5fffff), r.randint(0x500000, 0x5fffff), r.randint(0, 0xfffffff), r.randint(0x500000, 0x5fffff))))
        elif code == 31:
            st.kmsg(n, t - 0.01, xid(ctx, lr, 31, ctx.pids[c], "Ch %08x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_%d faulted @ 0x7f%02x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (
                r.randint(8, 64), r.randint(0, 15), r.randint(0, 255), r.randint(0, 0xffffffff))))
        else:
            st.kmsg(n, t - 0.01, xid(ctx, lr, 43, ctx.pids[c], "Ch %08x" % r.randint(8, 64)))
    what = "misaligned address" if var == "misaligned" else "an illegal memory access was encountered"
    if var == "wd":
        lines = watchdog_error_lines(ctx, c, st.wall(c, t), cuda_err_msg(what).rstrip("\n"), "cuda", rng=r)
        st.txt(c, t, "\n".join(lines))
        st.fault_dump(c, t + 0.01, "Fatal Python error: Aborted", st.main_wait_frames())
        st.die(c, t + 0.2, -6, "abort")
        note = "illegal memory access on rank %d surfaced in the NCCL watchdog (SIGABRT)" % c
    elif var == "triton":
        kname = r.choice(["triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_0", "triton_poi_fused_cat_index_select_3",
                          "triton_per_fused__log_softmax_gather_7"])
        fr = fr_entry(ctx) + fr_loop(ctx) + [Fr(ctx.u(ctx.proj["trainer"]), r.randint(270, 330), "train_step", ctx.proj["fwd"])] + fr_call(ctx) + \
            compiled_call_frames(ctx, r, kname)
        ex = Ex("RuntimeError", "Triton Error [CUDA]: an illegal memory access was encountered", fr)
        st.exc(c, t, ex)
        note = "illegal memory access inside inductor-generated triton kernel %s on rank %d" % (kname, c)
    elif var == "dsa":
        f, l, fn, cond = r.choice(DSA_ASSERTS)
        pre = r.choice(["../aten/src/ATen/native/cuda/", "/opt/conda/conda-bld/pytorch_%d/work/aten/src/ATen/native/cuda/" % r.randint(1700000000000, 1730000000000),
                        "/pytorch/aten/src/ATen/native/cuda/"])
        lines = []
        nb = r.randint(1, 4)
        for b in range(nb):
            for th in sorted(r.sample(range(32, 128), r.randint(6, 24))):
                lines.append("%s%s:%d: %s: block: [%d,0,0], thread: [%d,0,0] Assertion %s failed." % (pre, f, l, fn, r.randint(0, 4000), th, cond))
        st.txt(c, t - 0.05, "\n".join(lines))
        fr = fr_entry(ctx) + fr_loop(ctx) + r.choice([fr_item(ctx), fr_backward(ctx)])
        ex = Ex("RuntimeError", cuda_err_msg("device-side assert triggered"), fr)
        st.exc(c, t, ex)
        note = "device-side assert (%s) on rank %d: out-of-range index in its batch" % (f, c)
    else:
        fr = fr_entry(ctx) + fr_loop(ctx) + r.choice([fr_item(ctx), fr_backward(ctx), fr_forward(ctx, 3)])
        ex = Ex("RuntimeError", cuda_err_msg(what), fr)
        if r.random() < 0.3:
            caught_at(ex, "fit")
            ex = Ex("RuntimeError", cuda_err_msg(what), fr_entry(ctx) + [Fr(ctx.u(ctx.proj["trainer"]), r.randint(150, 200), "fit", "torch.cuda.empty_cache()"),
                                                                         Fr(ctx.tp + "/cuda/memory.py", 170 if ctx.tv <= 3 else 192, "empty_cache", "torch._C._cuda_emptyCache()")], context=ex)
        st.exc(c, t, ex)
        note = "CUDA %s on rank %d" % (what, c)
    st.collateral(t, [c], "death")
    st.init_rank, st.init_node = c, n
    st.notes = note


def compiled_call_frames(ctx, r, kname):
    tp = ctx.tp
    gen = "/tmp/torchinductor_%s/%s/c%s.py" % (ctx.user if ctx.user != "svc-train" else "root", hexid(r, 2), hexid(r, 50))
    fr = [Fr(tp + "/_dynamo/eval_frame.py", {1: 328, 2: 451, 3: 451, 4: 433, 5: 465, 6: 574}[ctx.tv], "_fn", "return fn(*args, **kwargs)")]
    fr += fr_call(ctx)
    if ctx.tv <= 3:
        fr.append(Fr(tp + "/_dynamo/external_utils.py", 17 if ctx.tv == 1 else 25, "inner", "return fn(*args, **kwargs)"))
    fr.append(Fr(tp + "/_functorch/aot_autograd.py", {1: 4153, 2: 917, 3: 917, 4: 1100, 5: 1184, 6: 1201}[ctx.tv], "forward", "return compiled_fn(full_args)"))
    fr.append(Fr(tp + "/_functorch/_aot_autograd/runtime_wrappers.py", {1: 89, 2: 89, 3: 89, 4: 331, 5: 322, 6: 328}[ctx.tv], "runtime_wrapper",
                 "all_outs = call_func_at_runtime_with_args("))
    fr.append(Fr(tp + "/_functorch/_aot_autograd/utils.py", {1: 113, 2: 113, 3: 113, 4: 124, 5: 126, 6: 126}[ctx.tv], "call_func_at_runtime_with_args",
                 "out = normalize_as_list(f(args))"))
    fr.append(Fr(tp + ("/_inductor/codecache.py" if ctx.tv <= 4 else "/_inductor/output_code.py"), {1: 908, 2: 917, 3: 917, 4: 1174, 5: 465, 6: 460}[ctx.tv], "__call__",
                 "return self.current_callable(inputs)"))
    fr.append(Fr(tp + "/_inductor/utils.py", {1: 1035, 2: 1035, 3: 1035, 4: 1977, 5: 2213, 6: 2234}[ctx.tv], "run", "return model(new_inputs)"))
    fr.append(Fr(gen, r.randint(700, 3200), "call", "%s.run(buf%d, primals_%d, buf%d, %d, %d, grid=grid(%d), stream=stream%d)" % (
        kname, r.randint(0, 40), r.randint(1, 30), r.randint(0, 40), r.choice([16384, 32768, 8192]), r.choice([4096, 5120, 8192]), r.choice([16384, 32768]), ctx.rng.randint(0, 7))))
    fr.append(Fr(tp + ("/_inductor/triton_heuristics.py" if ctx.tv <= 2 else "/_inductor/runtime/triton_heuristics.py"), {1: 540, 2: 670, 3: 670, 4: 879, 5: 989, 6: 1036}[ctx.tv], "run", "return launcher("))
    fr.append(Fr("<string>", 13, "launcher"))
    fr.append(Fr(ctx.sp + "/triton/backends/nvidia/driver.py" if ctx.tv >= 3 else ctx.sp + "/triton/compiler/compiler.py", 365 if ctx.tv >= 3 else 425, "__call__", "self.launch(*args, **kwargs)"))
    return fr


def dl_worker_exc(ctx, r, wid, inner_type, inner_msg, err_frame):
    """main-process exception re-raised from a DataLoader worker"""
    wex = Ex(inner_type, inner_msg, fr_worker(ctx, err_frame))
    orig = fmt_plain(wex, ctx.carets)
    short = inner_type.split(".")[-1]
    msg = "Caught %s in DataLoader worker process %d.\nOriginal %s" % (short, wid, "\n".join(orig))
    fr = fr_entry(ctx) + fr_loop(ctx, "data") + fr_dl(ctx, "proc")
    return Ex(inner_type, msg, fr)


def dl_killed_exc(ctx, r, wpid, sig):
    """RuntimeError: DataLoader worker (pid X) is killed by signal ... -> exited unexpectedly"""
    sigtxt = {"Killed": "Killed. ", "Segmentation fault": "Segmentation fault. ",
              "Bus error": "Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit."}[sig]
    inner = Ex("RuntimeError", "DataLoader worker (pid %d) is killed by signal: %s" % (wpid, sigtxt), fr_wait_queue(ctx))
    outer = Ex("RuntimeError", "DataLoader worker (pid(s) %d) exited unexpectedly" % wpid,
               fr_entry(ctx) + fr_loop(ctx, "data") + fr_dl(ctx, "try"), cause=inner)
    return outer


def sc_python_exception(ctx, st):
    r = ctx.rng
    c = pick_culprit(ctx, st)
    t = st.t_fail
    tr = ctx.u(ctx.proj["trainer"])
    vs = ["dl", "dl", "shape", "ckpt", "future", "procpool", "warn", "ddp", "nan", "allranks"]
    if ctx.py != "3.10":
        vs += ["taskgroup", "taskgroup"]
    if getattr(ctx, "flavor", "") == "compile":
        vs += ["dynamo", "dynamo", "lowering"]
    v = r.choice(vs)
    culprits = [c]
    if v == "dl":
        wid = r.randrange(r.choice([4, 8, 12, 16]))
        it, im, ef = r.choice([
            ("KeyError", "'caption'", ("_parse", "caption = sample[\"caption\"]")),
            ("PIL.UnidentifiedImageError", "cannot identify image file <_io.BytesIO object at %s>" % addr(r), ("_decode", "img = Image.open(io.BytesIO(raw))")),
            ("OSError", "image file is truncated (%d bytes not processed)" % r.randint(2, 40), ("_decode", "img = img.convert(\"RGB\")")),
            ("ValueError", "cannot reshape array of size %d into shape (%d,)" % (r.randint(1000, 9000), 4096), ("_read_tokens", "arr = np.frombuffer(buf, dtype=np.uint16).reshape(-1, self.seq_len + 1)")),
            ("UnicodeDecodeError", "'utf-8' codec can't decode byte 0x%02x in position %d: invalid start byte" % (r.randint(0x80, 0xff), r.randint(0, 4000)), ("_parse", "text = raw.decode(\"utf-8\")")),
        ])
        ex = dl_worker_exc(ctx, r, wid, it, im, ef)
        note = "%s raised inside DataLoader worker %d of rank %d (bad sample), re-raised in the main process" % (it, wid, c)
    elif v == "shape":
        a = r.choice([2048, 4096, 1024, 577])
        ex = Ex("RuntimeError", "The size of tensor a (%d) must match the size of tensor b (%d) at non-singleton dimension %d" % (a + 1, a, r.choice([1, 2, 3])),
                fr_entry(ctx) + fr_loop(ctx) + fr_forward(ctx, 3))
        note = "shape mismatch in forward on rank %d (one over-length sample)" % c
    elif v == "ckpt":
        c = 0 if r.random() < 0.7 else c
        culprits = [c]
        base = fr_entry(ctx) + fr_loop(ctx)[:1] + fr_ckpt(ctx)
        e1 = Ex("RuntimeError", "[enforce fail at inline_container.cc:%d] . PytorchStreamWriter failed writing file data/%d: file write failed" % (r.choice([588, 764, 778]), r.randint(3, 900)),
                base + [Fr(ctx.tp + "/serialization.py", ln(ctx, "save"), "save", "_save(obj, opened_zipfile, pickle_module, pickle_protocol, _disable_byteorder_record)"),
                        Fr(ctx.tp + "/serialization.py", ln(ctx, "save_zip"), "_save", "zip_file.write_record(name, storage, num_bytes)")])
        caught_at(e1, "save")
        e2 = Ex("RuntimeError", "[enforce fail at inline_container.cc:%d] . unexpected pos %d vs %d" % (r.choice([424, 595, 603]), r.randint(10 ** 9, 4 * 10 ** 9), r.randint(10 ** 9, 4 * 10 ** 9)),
                base + [Fr(ctx.tp + "/serialization.py", ln(ctx, "save") - 1, "save", "with _open_zipfile_writer(f) as opened_zipfile:"),
                        Fr(ctx.tp + "/serialization.py", ln(ctx, "zip_exit"), "__exit__", "self.file_like.write_end_of_file()")], context=e1)
        ex = e2
        note = "checkpoint write failed on rank %d (disk quota / full filesystem): PytorchStreamWriter chain" % c
    elif v == "future":
        path = "/checkpoints/%s/step_%07d/model_%05d-of-%05d.safetensors" % (ctx.proj["name"], st.fail_step, c, ctx.W)
        inner_t, inner_m = r.choice([("PermissionError", "[Errno 13] Permission denied: '%s'" % path),
                                     ("OSError", "[Errno 122] Disk quota exceeded: '%s'" % path),
                                     ("FileNotFoundError", "[Errno 2] No such file or directory: '%s'" % path)])
        fr = fr_entry(ctx) + fr_loop(ctx)[:1] + [
            Fr(tr, r.randint(380, 440), "_train_epoch", "self._pending_save.result()  # wait for previous async save"),
            Fr(ctx.pylib + "/concurrent/futures/_base.py", {"3.10": 451, "3.11": 449, "3.12": 449}[ctx.py], "result", "return self.__get_result()"),
            Fr(ctx.pylib + "/concurrent/futures/_base.py", 401, "__get_result", "raise self._exception"),
            Fr(ctx.pylib + "/concurrent/futures/thread.py", 58, "run", "result = self.fn(*self.args, **self.kwargs)"),
            Fr(ctx.u(ctx.proj["ckpt"]), r.randint(120, 180), "_write_shard", "save_file(tensors, path, metadata={\"format\": \"pt\"})"),
            Fr(ctx.sp + "/safetensors/torch.py", 286, "save_file", "serialize_file(_flatten(tensors), filename, metadata=metadata)")]
        ex = Ex(inner_t, inner_m, fr)
        note = "async checkpoint writer thread on rank %d failed (%s); re-raised by future.result()" % (c, inner_t)
    elif v == "procpool":
        rt = ["Traceback (most recent call last):",
              '  File "%s/concurrent/futures/process.py", line %d, in _process_worker' % (ctx.pylib, {"3.10": 246, "3.11": 261, "3.12": 263}[ctx.py]),
              "    r = call_item.fn(*call_item.args, **call_item.kwargs)"]
        if ctx.carets:
            rt.append("        " + "^" * 50)
        mline = r.randint(40, 120)
        rt += ['  File "%s", line %d, in score_batch' % (ctx.u("eval/metrics.py"), mline),
               "    refs = [normalize(x[\"reference\"]) for x in batch]"]
        if ctx.py in ("3.10", "3.11"):
            rt += ['  File "%s", line %d, in <listcomp>' % (ctx.u("eval/metrics.py"), mline),
                   "    refs = [normalize(x[\"reference\"]) for x in batch]"]
        rt += ["KeyError: 'reference'"]
        use_pool = r.random() < 0.5
        if use_pool:
            rt = ["Traceback (most recent call last):",
                  '  File "%s/multiprocessing/pool.py", line 125, in worker' % ctx.pylib,
                  "    result = (True, func(*args, **kwds))"] + (["                    " + "^" * 19] if ctx.carets else []) + [
                  '  File "%s/multiprocessing/pool.py", line 48, in mapstar' % ctx.pylib,
                  "    return list(map(*args))"] + (["           " + "^" * 16] if ctx.carets else []) + rt[4 if ctx.carets else 3:]
            inner = Ex("multiprocessing.pool.RemoteTraceback", '\n"""\n' + "\n".join(rt) + '\n"""', [])
            fr = fr_entry(ctx) + fr_loop(ctx)[:1] + [
                Fr(tr, r.randint(380, 440), "_train_epoch", "metrics = self.evaluate(step)"),
                Fr(tr, r.randint(560, 620), "evaluate", "scores = self.eval_pool.map(score_batch, chunks)"),
                Fr(ctx.pylib + "/multiprocessing/pool.py", 367, "map", "return self._map_async(func, iterable, mapstar, chunksize).get()"),
                Fr(ctx.pylib + "/multiprocessing/pool.py", 774, "get", "raise self._value")]
            ex = Ex("KeyError", "'reference'", fr, cause=inner)
            note = "evaluation multiprocessing.Pool worker on rank %d raised KeyError (RemoteTraceback chain)" % c
        inner = Ex("concurrent.futures.process._RemoteTraceback", '\n"""\n' + "\n".join(rt) + '\n"""', [])
        fr = fr_entry(ctx) + fr_loop(ctx)[:1] + [
            Fr(tr, r.randint(380, 440), "_train_epoch", "metrics = self.evaluate(step)"),
            Fr(tr, r.randint(560, 620), "evaluate", "scores = list(self.eval_pool.map(score_batch, chunks))"),
            Fr(ctx.pylib + "/concurrent/futures/process.py", {"3.10": 575, "3.11": 620, "3.12": 642}[ctx.py], "_chain_from_iterable_of_lists", "for element in iterable:"),
            Fr(ctx.pylib + "/concurrent/futures/_base.py", {"3.10": 621, "3.11": 619, "3.12": 619}[ctx.py], "result_iterator", "yield _result_or_cancel(fs.pop())"),
            Fr(ctx.pylib + "/concurrent/futures/_base.py", {"3.10": 319, "3.11": 317, "3.12": 317}[ctx.py], "_result_or_cancel", "return fut.result(timeout)"),
            Fr(ctx.pylib + "/concurrent/futures/_base.py", {"3.10": 458, "3.11": 456, "3.12": 456}[ctx.py], "result", "return self.__get_result()"),
            Fr(ctx.pylib + "/concurrent/futures/_base.py", 401, "__get_result", "raise self._exception")]
        if not use_pool:
            ex = Ex("KeyError", "'reference'", fr, cause=inner)
            note = "evaluation ProcessPoolExecutor worker on rank %d raised KeyError (RemoteTraceback chain)" % c
    elif v == "warn":
        fr = fr_entry(ctx) + fr_loop(ctx) + [
            Fr(tr, r.randint(330, 380), "train_step", "self._log_metrics(step, outputs)"),
            Fr(ctx.u("llmtrain/metrics.py" if "llm" in ctx.proj["name"] else "util/metrics.py"), r.randint(30, 90), "token_accuracy", "return float(np.asarray(correct).sum() / np.asarray(total).sum())")]
        ex = Ex("RuntimeWarning", "invalid value encountered in scalar divide", fr)
        note = "numpy RuntimeWarning turned into an exception by PYTHONWARNINGS=error on rank %d (empty batch -> 0/0)" % c
    elif v == "ddp":
        ex = Ex("RuntimeError", "Expected to have finished reduction in the prior iteration before starting a new one. This error indicates that your module has parameters that were not used in producing loss. You can enable unused parameter detection by passing the keyword argument `find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, and by \nmaking sure all `forward` function outputs participate in calculating loss. \nIf you already have done the above, then the distributed data parallel module wasn't able to locate the output tensors in the return value of your module's `forward` function. Please include the loss function and the structure of the return value of `forward` of your module when reporting this issue (e.g. list, dict, iterable).\nParameter indices which did not receive grad for rank %d: %s\n In addition, you can set the environment variable TORCH_DISTRIBUTED_DEBUG to either INFO or DETAIL to print out information about which particular parameters did not receive gradient on this rank as part of this error" % (
            c, " ".join(str(x) for x in range(r.randint(100, 300), r.randint(301, 306)))),
            fr_entry(ctx) + fr_loop(ctx) + fr_forward(ctx, 0)[:5])
        note = "DDP reducer error on rank %d (a branch skipped on that rank's batch)" % c
    elif v == "nan":
        ex = Ex("FloatingPointError", "Non-finite loss (nan) at step %d on rank %d; aborting (set trainer.skip_nan=true to skip)" % (st.fail_step, c),
                fr_entry(ctx) + fr_loop(ctx) + [Fr(tr, r.randint(330, 380), "train_step", "self._check_finite(loss, step)"),
                                                Fr(tr, r.randint(600, 640), "_check_finite", "raise FloatingPointError(")])
        note = "loss became NaN on rank %d; the app's guard raised" % c
    elif v == "taskgroup":
        sub_n = r.choice([1, 1, 2])
        subs = []
        for j in range(sub_n):
            shard = "s3://%s-data/shards/train-%05d.tar" % (ctx.proj["name"], r.randint(0, 9999))
            subs.append(Ex(r.choice(["FileNotFoundError", "botocore.exceptions.ClientError"]),
                           "An error occurred (404) when calling the HeadObject operation: Not Found" if j % 2 else "[Errno 2] No such file or directory: '%s'" % shard.replace("s3://", "/mnt/s3/"),
                           [Fr(ctx.u(ctx.proj["data"]), r.randint(200, 260), "_fetch_shard", "async with aiofiles.open(local, \"rb\") as fh:" if j % 2 == 0 else "meta = await self.client.head_object(Bucket=b, Key=k)")]))
        grp = Ex("ExceptionGroup", "unhandled errors in a TaskGroup (%d sub-exception%s)" % (sub_n, "s" if sub_n > 1 else ""),
                 [Fr(ctx.u(ctx.proj["data"]), r.randint(140, 190), "_prefetch", "async with asyncio.TaskGroup() as tg:"),
                  Fr(ctx.pylib + "/asyncio/taskgroups.py", {"3.11": 145, "3.12": 145}.get(ctx.py, 145), "__aexit__", "raise me from None")], group=subs)
        outer = Ex("RuntimeError", "prefetch of shard group %d failed" % r.randint(10, 900),
                   fr_entry(ctx) + fr_loop(ctx, "data") + [
                       Fr(ctx.tp + "/utils/data/dataloader.py", ln(ctx, "dl_next"), "__next__", "data = self._next_data()"),
                       Fr(ctx.tp + "/utils/data/dataloader.py", ln(ctx, "dl_nextdata") - 50, "_next_data", "data = self._dataset_fetcher.fetch(index)  # may raise StopIteration"),
                       Fr(ctx.tp + "/utils/data/_utils/fetch.py", 32, "fetch", "data.append(next(self.dataset_iter))"),
                       Fr(ctx.u(ctx.proj["data"]), r.randint(90, 130), "__iter__", "batch = self._loop.run_until_complete(self._prefetch(group))"),
                       Fr(ctx.pylib + "/asyncio/base_events.py", 653 if ctx.py == "3.11" else 687, "run_until_complete", "return future.result()"),
                       Fr(ctx.u(ctx.proj["data"]), r.randint(190, 200), "_prefetch", "raise RuntimeError(f\"prefetch of shard group {gid} failed\") from eg")],
                   cause=grp)
        ex = outer
        note = "async shard prefetch (asyncio.TaskGroup) on rank %d failed: ExceptionGroup with missing shard(s)" % c
    elif v == "dynamo":
        t = compile_fail_time(ctx, st, c)
        ex = dynamo_runtime_err(ctx, r)
        note = "torch.compile (dynamo) failed tracing the model on rank %d (shape of this rank's batch)" % c
    elif v == "lowering":
        t = compile_fail_time(ctx, st, c)
        ex = backend_failed(ctx, r, "LoweringException", "AssertionError: \n  target: aten.index_put_.default\n  args[0]: TensorBox(StorageBox(\n    InputBuffer(name='primals_%d', layout=FixedLayout('cuda', torch.bfloat16, size=[%d, 4096], stride=[4096, 1]))\n  ))\n  args[1]: [None, TensorBox(StorageBox(...))]\n  args[2]: TensorBox(StorageBox(...))" % (r.randint(1, 90), r.choice([32000, 128256, 50304])))
        note = "inductor lowering failed (BackendCompilerFailed) on rank %d" % c
    else:
        ex = Ex("omegaconf.errors.ConfigAttributeError", "Key 'warmup_ratio' is not in struct\n    full_key: optim.warmup_ratio\n    object_type=dict",
                fr_entry(ctx)[:-1] + [Fr(ctx.u(ctx.proj["script"]), r.randint(60, 90), "main", "sched = build_scheduler(opt, cfg.optim)"),
                                      Fr(ctx.u("llmtrain/optim.py" if "llm" in ctx.proj["name"] else "util/lr_sched.py"), r.randint(20, 60), "build_scheduler", "warmup = int(cfg.warmup_ratio * cfg.max_steps)")])
        culprits = list(range(ctx.W))
        st.t_fail = t = st.t_init + r.uniform(3, 30)
        note = "config error raised identically on every rank at startup (missing optim.warmup_ratio)"
    if culprits == list(range(ctx.W)):
        for k in culprits:
            st.exc(k, t + r.uniform(0, 0.5), ex)
        st.progress_stop = t
        st.init_rank, st.init_node = None, None
    else:
        st.exc(c, t, ex)
        st.collateral(t, [c], "death")
        st.init_rank, st.init_node = c, ctx.node_of(c)
    st.notes = note
    st.hints["pyexc"] = v


def compile_fail_time(ctx, st, c):
    """compile-time failures happen on the first step or on a recompile"""
    r = ctx.rng
    if r.random() < 0.5:
        st.fail_step = r.randint(0, 2)
        st.seq = r.randint(5, 60)
        st.t_fail = st.t_train + r.uniform(8, 150)
        st.progress_stop = st.t_fail
        return st.t_fail
    t = st.t_fail
    st.txt(c, t - r.uniform(1, 20), "\n".join(("%s %d torch/_dynamo/guards.py:%d] [0/1] [__recompiles] " % (
        f_glog("V", st.wall(c, t - 5)), ctx.pids[c], 2791 if ctx.tv >= 5 else 1425)) + l for l in [
        "Recompiling function forward in %s:%d" % (ctx.u(ctx.proj["model"]), r.randint(300, 420)),
        "    triggered by the following guard failure(s):",
        "    - 0/0: tensor 'L['x']' size mismatch at index 1. expected 2048, actual %d" % r.randint(1500, 2047)]))
    return t


def dynamo_runtime_err(ctx, r):
    a = r.choice([2048, 4096, 1024])
    msg = ("Failed running call_function <built-in function mul>(*(FakeTensor(..., device='cuda:0', size=(%d, %d, 128), dtype=torch.bfloat16), "
           "FakeTensor(..., device='cuda:0', size=(1, %d, 128), dtype=torch.bfloat16)), **{}):\n"
           "The size of tensor a (%d) must match the size of tensor b (%d) at non-singleton dimension 1)\n\n"
           "from user code:\n   File \"%s\", line %d, in forward\n    xq = xq * freqs_cis[:, :seqlen]\n") % (
        r.randint(1, 16), a + 1, a, a + 1, a, ctx.u(ctx.proj["model"]), r.randint(90, 170))
    if ctx.tv >= 5:
        msg += "\nSet TORCHDYNAMO_VERBOSE=1 for the internal stack trace (please do this especially if you're reporting a bug to PyTorch). For even more developer context, set TORCH_LOGS=\"+dynamo\"\n"
    else:
        msg += "\nSet TORCH_LOGS=\"+dynamo\" and TORCHDYNAMO_VERBOSE=1 for more information\n\n\nYou can suppress this exception and fall back to eager by setting:\n    import torch._dynamo\n    torch._dynamo.config.suppress_errors = True\n"
    fr = fr_entry(ctx) + fr_loop(ctx) + [Fr(ctx.u(ctx.proj["trainer"]), r.randint(270, 330), "train_step", ctx.proj["fwd"])] + fr_call(ctx) + dynamo_frames(ctx, r, short=ctx.tv >= 5)
    if ctx.tv >= 5:
        fr = fr[:-1]
    return Ex("torch._dynamo.exc.TorchRuntimeError", msg, fr)


def dynamo_frames(ctx, r, short=False):
    tp = ctx.tp
    if short:
        return [Fr(tp + "/_dynamo/eval_frame.py", {5: 465, 6: 574}.get(ctx.tv, 465), "_fn", "return fn(*args, **kwargs)" if ctx.tv == 5 else "raise e.remove_dynamo_frames() from None  # see TORCHDYNAMO_VERBOSE=1"),
                Fr(tp + "/_dynamo/convert_frame.py", 1269, "__call__", "return self._torchdynamo_orig_callable(")]
    cf = tp + "/_dynamo/convert_frame.py"
    out = [Fr(tp + "/_dynamo/eval_frame.py", {1: 328, 2: 489, 3: 451, 4: 433, 5: 465, 6: 574}[ctx.tv], "_fn", "return fn(*args, **kwargs)")]
    out += fr_call(ctx)
    out += [Fr(cf, {1: 490, 2: 921, 3: 921, 4: 1116, 5: 1269, 6: 1380}[ctx.tv], "catch_errors" if ctx.tv <= 3 else "__call__",
               "return callback(frame, cache_entry, hooks, frame_state, skip=1)" if ctx.tv <= 3 else "return self._torchdynamo_orig_callable("),
            Fr(cf, {1: 641, 2: 786, 3: 786, 4: 948, 5: 1064, 6: 1164}[ctx.tv], "_convert_frame", "result = inner_convert(" if ctx.tv <= 3 else "result = self._inner_convert("),
            Fr(cf, {1: 133, 2: 400, 3: 400, 4: 472, 5: 526, 6: 547}[ctx.tv], "_fn" if ctx.tv <= 1 else "_convert_frame_assert", "return _compile("),
            Fr(ctx.pylib + "/contextlib.py", 79 if ctx.py == "3.10" else 81, "inner", "return func(*args, **kwds)"),
            Fr(cf, {1: 389, 2: 676, 3: 676, 4: 817, 5: 924, 6: 1025}[ctx.tv], "_compile", "guarded_code = compile_inner(code, one_graph, hooks, transform)"),
            Fr(tp + "/_dynamo/utils.py", {1: 190, 2: 262, 3: 262, 4: 231, 5: 231, 6: 231}[ctx.tv], "time_wrapper", "r = func(*args, **kwargs)"),
            Fr(cf, {1: 569, 2: 535, 3: 535, 4: 636, 5: 666, 6: 726}[ctx.tv], "compile_inner", "out_code = transform_code_object(code, transform)"),
            Fr(tp + "/_dynamo/bytecode_transformation.py", {1: 1028, 2: 1036, 3: 1036, 4: 1185, 5: 1348, 6: 1349}[ctx.tv], "transform_code_object", "transformations(instructions, code_options)"),
            Fr(cf, {1: 150, 2: 165, 3: 165, 4: 178, 5: 231, 6: 231}[ctx.tv], "_fn", "return fn(*args, **kwargs)"),
            Fr(cf, {1: 458, 2: 500, 3: 500, 4: 582, 5: 634, 6: 640}[ctx.tv], "transform", "tracer.run()"),
            Fr(tp + "/_dynamo/symbolic_convert.py", {1: 2069, 2: 2149, 3: 2149, 4: 2451, 5: 2796, 6: 3110}[ctx.tv], "run", "super().run()"),
            Fr(tp + "/_dynamo/symbolic_convert.py", {1: 703, 2: 810, 3: 810, 4: 893, 5: 983, 6: 1050}[ctx.tv], "run", "and self.step()"),
            Fr(tp + "/_dynamo/symbolic_convert.py", {1: 663, 2: 773, 3: 773, 4: 805, 5: 895, 6: 958}[ctx.tv], "step", "self.dispatch_table[inst.opcode](self, inst)")]
    return out


def backend_failed(ctx, r, inner_type, inner_msg, extra_frames=None):
    tp = ctx.tp
    fr = fr_entry(ctx) + fr_loop(ctx) + [Fr(ctx.u(ctx.proj["trainer"]), r.randint(270, 330), "train_step", ctx.proj["fwd"])] + fr_call(ctx)
    fr += dynamo_frames(ctx, r, short=ctx.tv >= 5)
    if ctx.tv < 5:
        fr += [Fr(tp + "/_dynamo/symbolic_convert.py", {1: 2154, 2: 2255, 3: 2255, 4: 2642, 5: 2987, 6: 3301}[ctx.tv], "RETURN_VALUE", "self._return(inst)" if ctx.tv >= 4 else "self.output.compile_subgraph("),
               Fr(tp + "/_dynamo/output_graph.py", {1: 857, 2: 1001, 3: 1001, 4: 1123, 5: 1141, 6: 1144}[ctx.tv], "compile_subgraph", "self.compile_and_call_fx_graph(tx, list(reversed(stack_values)), root)"),
               Fr(tp + "/_dynamo/output_graph.py", {1: 957, 2: 1178, 3: 1178, 4: 1318, 5: 1369, 6: 1411}[ctx.tv], "compile_and_call_fx_graph", "compiled_fn = self.call_user_compiler(gm)"),
               Fr(tp + "/_dynamo/output_graph.py", {1: 1024, 2: 1251, 3: 1251, 4: 1409, 5: 1416, 6: 1465}[ctx.tv], "call_user_compiler",
                  "raise BackendCompilerFailed(self.compiler_fn, e).with_traceback("),
               Fr(tp + "/_dynamo/output_graph.py", {1: 1005, 2: 1232, 3: 1232, 4: 1390, 5: 1446, 6: 1446}[ctx.tv], "call_user_compiler", "compiled_fn = compiler_fn(gm, self.example_inputs())"),
               Fr(tp + "/_dynamo/repro/after_dynamo.py", {1: 117, 2: 117, 3: 117, 4: 129, 5: 129, 6: 129}[ctx.tv], "debug_wrapper" if ctx.tv <= 3 else "__call__", "compiled_gm = compiler_fn(gm, example_inputs)"),
               Fr(tp + "/__init__.py", {1: 1568, 2: 1729, 3: 1729, 4: 1951, 5: 2340, 6: 2340}[ctx.tv], "__call__", "return compile_fx(model_, inputs_, config_patches=self.config)"),
               Fr(tp + "/_inductor/compile_fx.py", {1: 1150, 2: 1350, 3: 1350, 4: 1505, 5: 1552, 6: 1552}[ctx.tv], "compile_fx",
                  "return aot_autograd("),
               Fr(tp + "/_inductor/graph.py", {1: 1200, 2: 1320, 3: 1320, 4: 1780, 5: 1988, 6: 2027}[ctx.tv], "compile_to_module", "mod = PyCodeCache.load_by_key_path(")]
        if extra_frames:
            fr += extra_frames
    msg = "backend='inductor' raised:\n%s: %s\n\n" % (inner_type, inner_msg)
    if ctx.tv >= 5:
        msg += "Set TORCHDYNAMO_VERBOSE=1 for the internal stack trace (please do this especially if you're reporting a bug to PyTorch). For even more developer context, set TORCH_LOGS=\"+dynamo\"\n"
    else:
        msg += "Set TORCH_LOGS=\"+dynamo\" and TORCHDYNAMO_VERBOSE=1 for more information\n\n\nYou can suppress this exception and fall back to eager by setting:\n    import torch._dynamo\n    torch._dynamo.config.suppress_errors = True\n"
    return Ex("torch._dynamo.exc.BackendCompilerFailed", msg, fr)


def oom_kill_lines(ctx, rng, pid, comm, rss_kb, cgroup=None, others=None):
    L = []
    gfp = rng.choice(["0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP)", "0x100cca(GFP_HIGHUSER_MOVABLE)", "0xcc0(GFP_KERNEL)"])
    trig = rng.choice([comm, "python", "pt_data_worker", "node_exporter", "slurmstepd"]) if not cgroup else comm
    L.append("%s invoked oom-killer: gfp_mask=%s, order=0, oom_score_adj=0" % (trig, gfp))
    L.append("CPU: %d PID: %d Comm: %s Tainted: P           OE     %s" % (rng.randint(0, 191), pid + rng.randint(-50, 50), trig,
                                                                       rng.choice(["5.15.0-1053-nvidia #54-Ubuntu", "5.15.0-105-generic #115-Ubuntu", "6.5.0-1018-aws #18~22.04.1-Ubuntu", "4.18.0-513.24.1.el8_9.x86_64 #1"])))
    L.append("Call Trace:")
    L.append(" <TASK>")
    for fn in ["dump_stack_lvl+0x48/0x70", "dump_header+0x4a/0x250", "oom_kill_process+0x10b/0x1b0", "out_of_memory+0x257/0x540",
               "mem_cgroup_out_of_memory+0x13f/0x160" if cgroup else "__alloc_pages_slowpath.constprop.0+0xd43/0xea0"]:
        L.append(" " + fn)
    L.append(" </TASK>")
    if cgroup:
        L.append("memory: usage %dkB, limit %dkB, failcnt %d" % (rss_kb + 4096, rss_kb + 4096, rng.randint(1, 900)))
    L.append("Tasks state (memory values in pages):")
    L.append("[  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name")
    for p, nm, rk in (others or []) + [(pid, comm, rss_kb)]:
        L.append("[%7d] %5d %7d %8d %8d %14d %8d %13d %s" % (p, 1000, p, rk // 4 * 3, rk // 4, rk // 90 * 1024 // 1024, 0, 0, nm))
    if cgroup:
        L.append("oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=%s,mems_allowed=0-1,oom_memcg=%s,task_memcg=%s,task=%s,pid=%d,uid=1000" % (
            cgroup.split("/")[-1], cgroup, cgroup, comm, pid))
        L.append("Memory cgroup out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:1000 pgtables:%dkB oom_score_adj:0" % (
            pid, comm, rss_kb * 3, rss_kb, rng.randint(100000, 900000), rng.randint(0, 2000000), rss_kb // 500))
    else:
        L.append("oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/user.slice/user-1000.slice/session-%d.scope,task=%s,pid=%d,uid=1000" % (
            rng.randint(1, 900), comm, pid))
        L.append("Out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:1000 pgtables:%dkB oom_score_adj:0" % (
            pid, comm, rss_kb * 3, rss_kb, rng.randint(100000, 900000), rng.randint(0, 2000000), rss_kb // 500))
    L.append("oom_reaper: reaped process %d (%s), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB" % (pid, comm))
    return L


def sc_host_oom(ctx, st):
    r = ctx.rng
    c = pick_culprit(ctx, st)
    n = ctx.node_of(c)
    t = st.t_fail
    cg = getattr(ctx, "cgroup_fmt", None)
    vs = ["main", "main", "worker", "worker"]
    if getattr(ctx, "flavor", "") == "compile":
        vs += ["compile", "compile"]
    v = r.choice(vs)
    others = [(ctx.pids[k], "python", r.randint(20, 60) * 1024 * 1024) for k in ctx.ranks_on(n) if k != c][:r.randint(2, 6)]
    cgroup = cg % {"job": ctx.jobid, "rank": c} if cg else None
    if v == "main":
        pid = ctx.pids[c]
        rss = r.randint(150, 400) * 1024 * 1024
        for l in oom_kill_lines(ctx, r, pid, "python" if r.random() < 0.7 else "pt_main_thread", rss, cgroup, others):
            st.kmsg(n, t - 0.02, l)
        st.die(c, t, -9, "kill9")
        note = "kernel OOM killer SIGKILLed rank %d (pid %d) on %s" % (c, pid, ctx.hosts[n])
    elif v == "worker":
        wpid = ctx.pids[c] + r.randint(60, 400)
        rss = r.randint(40, 120) * 1024 * 1024
        for l in oom_kill_lines(ctx, r, wpid, "pt_data_worker" if ctx.tv >= 2 and r.random() < 0.5 else "python", rss, cgroup, others):
            st.kmsg(n, t - 0.3, l)
        st.exc(c, t, dl_killed_exc(ctx, r, wpid, "Killed"))
        note = "OOM killer killed a DataLoader worker (pid %d) of rank %d on %s; main process raised 'exited unexpectedly'" % (wpid, c, ctx.hosts[n])
    else:
        t = compile_fail_time(ctx, st, c)
        wpid = ctx.pids[c] + r.randint(400, 900)
        rss = r.randint(30, 90) * 1024 * 1024
        for l in oom_kill_lines(ctx, r, wpid, "python", rss, cgroup, others):
            st.kmsg(n, t - 0.5, l)
        bp = "A process in the process pool was terminated abruptly while the future was running or pending."
        ex = backend_failed(ctx, r, "BrokenProcessPool", bp, [
            Fr(ctx.tp + "/_inductor/codecache.py", {1: 2536, 2: 2536, 3: 2536, 4: 3040, 5: 3150, 6: 3150}[ctx.tv], "wait", "kernel = result.result()" if ctx.tv >= 3 else "kernel = future.result()"),
            Fr(ctx.pylib + "/concurrent/futures/_base.py", {"3.10": 458, "3.11": 456, "3.12": 456}[ctx.py], "result", "return self.__get_result()"),
            Fr(ctx.pylib + "/concurrent/futures/_base.py", 401, "__get_result", "raise self._exception")])
        st.exc(c, t, ex)
        st.t_fail = t
        note = "inductor's parallel compile worker (pid %d) of rank %d was OOM-killed on %s -> BrokenProcessPool inside BackendCompilerFailed" % (wpid, c, ctx.hosts[n])
    st.hints["oom_pid"] = True
    st.collateral(t, [c], "death")
    st.init_rank, st.init_node = c, n
    st.notes = note


SEGV_SITES = [
    ("flash_attn_2_cuda.cpython-%s-x86_64-linux-gnu.so", "flash_attn/flash_attn_interface.py", "_flash_attn_forward", "out, q, k, v, out_padded, softmax_lse, S_dmask, rng_state = flash_attn_cuda.fwd("),
    ("libarrow.so.1500", "pyarrow/parquet/core.py", "read", "table = self._dataset.to_table("),
    ("fused_layer_norm_cuda.cpython-%s-x86_64-linux-gnu.so", "apex/normalization/fused_layer_norm.py", "forward", "output, mean, invvar = fused_layer_norm_cuda.forward_affine("),
    ("libtorch_cpu.so", "torch/_tensor.py", "__reduce_ex__", "return self._reduce_ex_internal(proto)"),
    ("cv2.abi3.so", "cv2/__init__.py", "imdecode", "return cv2_imdecode(buf, flags)"),
]


def sc_crash(ctx, st):
    r = ctx.rng
    c = pick_culprit(ctx, st)
    n = ctx.node_of(c)
    t = st.t_fail
    vs = ["segv", "segv", "abort", "wsegv", "wbus", "noactive"]
    if getattr(ctx, "flavor", "") == "compile":
        vs += ["compile", "compile"]
    v = r.choice(vs)
    pyv = ctx.py.replace(".", "")
    if v == "segv":
        so, f, fn, code = r.choice(SEGV_SITES)
        so = so % pyv if "%s" in so else so
        st.kmsg(n, t - 0.01, "python[%d]: segfault at %x ip %016x sp %016x error %d in %s[%x+%x]" % (
            ctx.pids[c], r.choice([0, 8, 0x18, 0x7f0000001000]), r.randint(0x7f0000000000, 0x7fffffffffff), r.randint(0x7ffc00000000, 0x7fffffffffff),
            r.choice([4, 6, 14]), so, r.randint(0x7f0000000000, 0x7fffffffffff) & ~0xfff, r.randint(0x100000, 0x4000000) & ~0xfff))
        st.kmsg(n, t - 0.01, "Code: " + " ".join(hexid(r, 2) for _ in range(42)) + " <" + hexid(r, 2) + "> " + " ".join(hexid(r, 2) for _ in range(21)))
        mf = fr_entry(ctx) + fr_loop(ctx)
        if "pyarrow" in f or "cv2" in f:
            mf = mf[:-1] + [Fr(ctx.u(ctx.proj["trainer"]), r.randint(205, 260), "_train_epoch", "for step, batch in enumerate(self.train_loader):")] + \
                [Fr(ctx.u(ctx.proj["data"]), r.randint(60, 140), "__iter__", "for rec in self._reader.iter(shard):"), Fr(ctx.sp + "/" + f, r.randint(100, 3000), fn, code)]
        else:
            mf = mf + fr_forward(ctx, 3) + [Fr(ctx.sp + "/" + f, r.randint(50, 1200), fn, code)]
        st.fault = True
        st.fault_dump(c, t, "Fatal Python error: Segmentation fault", mf, current="main")
        st.die(c, t + 0.05, -11, "segv")
        note = "SIGSEGV in %s on rank %d (faulthandler dump)" % (so, c)
    elif v in ("abort", "noactive"):
        if v == "abort":
            msg = r.choice(["double free or corruption (!prev)", "free(): invalid pointer", "corrupted size vs. prev_size",
                            "malloc(): unsorted double linked list corrupted"])
            st.txt(c, t, msg)
        else:
            st.txt(c, t, "terminate called without an active exception")
        mf = st.main_wait_frames(r.choice(["bwd", "opt"]))
        st.fault = True
        st.fault_dump(c, t + 0.001, "Fatal Python error: Aborted", mf, current="main")
        st.die(c, t + 0.05, -6, "abort")
        note = "process abort on rank %d (%s)" % (c, "heap corruption" if v == "abort" else "std::terminate without exception")
    elif v in ("wsegv", "wbus"):
        wpid = ctx.pids[c] + r.randint(60, 400)
        if v == "wsegv":
            st.txt(c, t - 0.2, "ERROR: Unexpected segmentation fault encountered in worker.")
            st.kmsg(n, t - 0.2, "pt_data_worker[%d]: segfault at %x ip %016x sp %016x error 4 in libjpeg.so.8.2.2[%x+%x]" % (
                wpid, r.choice([0, 0x10]), r.randint(0x7f0000000000, 0x7fffffffffff), r.randint(0x7ffc00000000, 0x7fffffffffff),
                r.randint(0x7f0000000000, 0x7fffffffffff) & ~0xfff, 0x44000))
            ex = dl_killed_exc(ctx, r, wpid, "Segmentation fault")
            note = "DataLoader worker %d of rank %d segfaulted" % (wpid, c)
        else:
            st.txt(c, t - 0.2, "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).")
            ex = dl_killed_exc(ctx, r, wpid, "Bus error")
            note = "DataLoader worker %d of rank %d died of SIGBUS (shared memory exhausted)" % (wpid, c)
        st.exc(c, t, ex)
    else:
        t = compile_fail_time(ctx, st, c)
        wpid = ctx.pids[c] + r.randint(400, 900)
        st.kmsg(n, t - 0.4, "python[%d]: segfault at 0 ip %016x sp %016x error 4 in libtriton.so[%x+%x]" % (
            wpid, r.randint(0x7f0000000000, 0x7fffffffffff), r.randint(0x7ffc00000000, 0x7fffffffffff), r.randint(0x7f0000000000, 0x7fffffffffff) & ~0xfff, 0x9000000))
        bp = "A process in the process pool was terminated abruptly while the future was running or pending."
        ex = backend_failed(ctx, r, "BrokenProcessPool", bp, [
            Fr(ctx.tp + "/_inductor/codecache.py", {1: 2536, 2: 2536, 3: 2536, 4: 3040, 5: 3150, 6: 3150}[ctx.tv], "wait", "kernel = result.result()"),
            Fr(ctx.pylib + "/concurrent/futures/_base.py", {"3.10": 458, "3.11": 456, "3.12": 456}[ctx.py], "result", "return self.__get_result()"),
            Fr(ctx.pylib + "/concurrent/futures/_base.py", 401, "__get_result", "raise self._exception")])
        st.exc(c, t, ex)
        note = "inductor compile worker (pid %d) of rank %d segfaulted in libtriton -> BrokenProcessPool" % (wpid, c)
        st.hints["kern_only"] = True
    st.collateral(t, [c], "death")
    st.init_rank, st.init_node = c, n
    st.notes = note


def sc_preemption(ctx, st):
    r = ctx.rng
    t = st.t_fail
    v = r.choice(["all", "all", "node"]) if ctx.nn > 1 and getattr(ctx, "node_preempt_ok", True) else "all"
    if getattr(ctx, "force_node_preempt", False) and ctx.nn > 1:
        v = "node"
    st.hints["preempt"] = v
    st.hints["preempt_reason"] = r.choice(["PREEMPTION", "PREEMPTION", "TIME LIMIT"]) if not getattr(ctx, "k8s", False) else "PREEMPTION"
    st.progress_stop = t
    if v == "all":
        handler = r.random() < 0.4
        for k in range(ctx.W):
            tk = t + r.uniform(0.0, 0.4) + ctx.skew[ctx.node_of(k)] * 0
            if handler and (k == 0 or k in st.full_ranks):
                st.log(k, tk + 0.01, "WARNING", "Received SIGTERM (signal 15); saving preemption checkpoint and exiting", "%s.trainer" % ctx.proj["name"].split("-")[0])
            st.die(k, tk + r.uniform(0.05, 3.0), -15, "term")
        st.sched.append((t, "preempt_all", st.hints["preempt_reason"]))
        st.init_rank, st.init_node = None, None
        st.notes = "the scheduler sent SIGTERM to the whole job (%s)" % st.hints["preempt_reason"].lower()
    else:
        n = r.randrange(ctx.nn)
        loc = ctx.ranks_on(n)
        for k in loc:
            st.die(k, t + r.uniform(0.0, 1.0), -15, "term")
        st.sched.append((t, "preempt_node", n))
        st.collateral(t + 0.5, loc, "death")
        st.init_rank, st.init_node = None, n
        st.notes = "node %s was reclaimed (spot/preemptible capacity); its ranks got SIGTERM, the rest lost their peers" % ctx.hosts[n]


def hang_frames(ctx, r, kind):
    tr = ctx.u(ctx.proj["trainer"])
    pl = ctx.pylib
    if kind == "lock":
        return fr_entry(ctx) + fr_loop(ctx) + [
            Fr(tr, r.randint(330, 380), "train_step", "logger.info(\"step %d loss %.4f\", step, loss_val)"),
            Fr(pl + "/logging/__init__.py", {"3.10": 1477, "3.11": 1489, "3.12": 1539}[ctx.py], "info", "self._log(INFO, msg, args, **kwargs)"),
            Fr(pl + "/logging/__init__.py", {"3.10": 1624, "3.11": 1634, "3.12": 1684}[ctx.py], "_log", "self.handle(record)"),
            Fr(pl + "/logging/__init__.py", {"3.10": 1634, "3.11": 1644, "3.12": 1700}[ctx.py], "handle", "self.callHandlers(record)"),
            Fr(pl + "/logging/__init__.py", {"3.10": 1696, "3.11": 1706, "3.12": 1762}[ctx.py], "callHandlers", "hdlr.handle(record)"),
            Fr(pl + "/logging/__init__.py", {"3.10": 966, "3.11": 976, "3.12": 1026}[ctx.py], "handle", "with self.lock:" if ctx.py == "3.12" else "self.acquire()"),
            Fr(pl + "/logging/__init__.py", {"3.10": 917, "3.11": 927, "3.12": 977}[ctx.py], "acquire", "self.lock.acquire()")]
    if kind == "filelock":
        return fr_entry(ctx) + fr_loop(ctx)[:1] + [
            Fr(tr, r.randint(205, 260), "_train_epoch", "self.maybe_refresh_tokenizer(step)"),
            Fr(tr, r.randint(640, 700), "maybe_refresh_tokenizer", "with FileLock(os.path.join(self.cache_dir, \"tokenizer.lock\")):"),
            Fr(ctx.sp + "/filelock/_api.py", r.choice([297, 332, 376]), "__enter__", "self.acquire()"),
            Fr(ctx.sp + "/filelock/_api.py", r.choice([264, 300, 344]), "acquire", "time.sleep(poll_interval)")]
    if kind == "queue":
        return fr_entry(ctx) + fr_loop(ctx)[:1] + [
            Fr(tr, r.randint(380, 440), "_train_epoch", "self.ckpt_queue.join()  # make sure the previous async save landed"),
            Fr(pl + "/queue.py", 90, "join", "self.all_tasks_done.wait()"),
            Fr(pl + "/threading.py", thr_line(ctx) - 4, "wait", "waiter.acquire()")]
    return fr_entry(ctx) + fr_loop(ctx, "data") + [
        Fr(ctx.u("llmtrain/data/sampler.py" if "llm" in ctx.proj["name"] else "util/sampler.py"), r.randint(60, 120), "__iter__", "while not self._epoch_ready(self.epoch):"),
        Fr(ctx.u("llmtrain/data/sampler.py" if "llm" in ctx.proj["name"] else "util/sampler.py"), r.randint(130, 160), "_epoch_ready", "return os.path.exists(self._marker(epoch)) and self._count(epoch) == self.world_size")]


def pyspy_block(ctx, k, frames, threads_extra=True, r=None, proc_pid=None, active=False):
    r = r or ctx.rng
    pid = proc_pid or ctx.pids[k]
    def short(p):
        for pre in (ctx.sp + "/", ctx.pylib + "/", ctx.proj["root"] + "/"):
            if p.startswith(pre):
                return p[len(pre):]
        return p
    L = (["== pid %d LOCAL_RANK=%d RANK=%d" % (pid, ctx.lr(k), k)] if proc_pid is None else ["== pid %d (child of %d)" % (pid, ctx.pids[k])]) + [
         "Process %d: %s -u %s %s" % (pid, ctx.pybin, ctx.u(ctx.proj["script"]), "--config configs/%s.yaml" % ctx.proj["name"]),
         "Python v%s.%d (%s)" % (ctx.py, r.randint(4, 14), ctx.pybin if "bin/python" in ctx.pybin else "/usr/bin/python3"), ""]
    L.append('Thread %d (%s): "MainThread"' % (pid, "active" if active else "idle"))
    for f in reversed(frames):
        L.append("    %s (%s:%d)" % (f.func, short(f.file), f.line))
    if threads_extra:
        tid = pid + r.randint(50, 300)
        L.append('Thread %d (idle): "Thread-%d (_pin_memory_loop)"' % (tid, r.randint(1, 4)))
        L += ["    get (multiprocessing/queues.py:113)", "    do_one_step (torch/utils/data/_utils/pin_memory.py:31)",
              "    _pin_memory_loop (torch/utils/data/_utils/pin_memory.py:54)", "    run (threading.py:%d)" % {"3.10": 953, "3.11": 982, "3.12": 1010}[ctx.py],
              "    _bootstrap_inner (threading.py:%d)" % {"3.10": 1016, "3.11": 1045, "3.12": 1073}[ctx.py],
              "    _bootstrap (threading.py:%d)" % {"3.10": 973, "3.11": 1002, "3.12": 1030}[ctx.py]]
    L.append("")
    return L


def later_dump(ctx, st, rank, t, frames, minutes):
    r = ctx.rng
    thr = [("00007f" + hexid(r, 10), False, [Fr(ctx.pylib + "/threading.py", {"3.10": 973, "3.11": 1002, "3.12": 1030}[ctx.py], "_bootstrap"),
                                           Fr(ctx.pylib + "/threading.py", {"3.10": 1016, "3.11": 1045, "3.12": 1073}[ctx.py], "_bootstrap_inner"),
                                           Fr(ctx.pylib + "/threading.py", {"3.10": 953, "3.11": 982, "3.12": 1010}[ctx.py], "run"),
                                           Fr(ctx.tp + "/utils/data/_utils/pin_memory.py", 54, "_pin_memory_loop"),
                                           Fr(ctx.tp + "/utils/data/_utils/pin_memory.py", 31, "do_one_step"),
                                           Fr(ctx.pylib + "/multiprocessing/queues.py", 113, "get")]),
           ("00007f" + hexid(r, 10), False, frames)]
    lines = fmt_fault("Timeout (0:%02d:00)!" % minutes, thr, ext_modules=False)
    st.txt(rank, t, "\n".join(lines[:-1] if lines and lines[-1] == "" else lines))


def stall_evidence(ctx, st, c, cframes, t, kind):
    """faulthandler.dump_traceback_later on every rank, a py-spy dump of the
    culprit's node, or an app heartbeat naming the laggard"""
    r = ctx.rng
    n = ctx.node_of(c)
    forms = list(getattr(ctx, "stall_forms", ["later", "pyspy", "heartbeat"]))
    minutes = [m for m in (5, 10, 15, 20) if m * 60 < ctx.timeout_s - 60]
    if not minutes:
        forms = [f for f in forms if f != "later"]
    f = r.choice(forms) if forms else "heartbeat"
    if f == "heartbeat" and c == 0:
        f = "pyspy"
    st.hints["stall_evidence"] = f
    if f == "later":
        m = r.choice(minutes)
        for k in range(ctx.W):
            if ctx.W > 32 and k != c and k not in st.full_ranks:
                continue
            tk = t + m * 60 + r.uniform(0, st.step_time)
            if k in st.exit and st.exit[k][0] < tk:
                continue
            later_dump(ctx, st, k, tk, cframes if k == c else st.main_wait_frames(r.choice(["item", "sync", "bwd"])), m)
    elif f == "pyspy":
        L = []
        for k in ctx.ranks_on(n):
            L += pyspy_block(ctx, k, cframes if k == c else st.main_wait_frames(r.choice(["item", "sync"])), r=r, active=(k != c and r.random() < 0.3))
            if kind == "dl" and k == c:
                wpid = ctx.pids[c] + r.randint(60, 400)
                st.hints["stuck_worker"] = wpid
                wfr = fr_worker(ctx, ("_read_tokens", "chunk = fh.read(nbytes)"))
                L += pyspy_block(ctx, k, wfr, threads_extra=False, r=r, proc_pid=wpid)
        st.extra["py-spy_%s.txt" % ctx.hosts[n]] = "\n".join(["$ for p in $(pgrep -f %s); do echo \"== pid $p $(tr '\\0' '\\n' < /proc/$p/environ | grep -E '^(LOCAL_)?RANK=' | xargs)\"; py-spy dump --pid $p; done" % ctx.proj["script"], ""] + L)
    else:
        period = r.choice([60, 120, 300])
        for j in range(1, r.randint(3, 8)):
            tk = t + j * period
            if 0 in st.exit and st.exit[0][0] < tk:
                break
            if c == 0:
                continue
            st.log(0, tk, "WARNING", "heartbeat: rank %d has not reported progress for %ds (last step %d); all other ranks are at step %d" % (
                c, int(j * period), st.fail_step - 1, st.fail_step), "%s.watchdog" % ctx.proj["name"].split("-")[0])
        if c == 0:
            st.hints["stall_evidence"] = "none"


def sc_hang(ctx, st):
    r = ctx.rng
    c = pick_culprit(ctx, st)
    t = st.t_fail
    kind = r.choice(["lock", "filelock", "queue", "spin"])
    fr = hang_frames(ctx, r, kind)
    st.stalled.add(c)
    stall_evidence(ctx, st, c, fr, t, "hang")
    st.collateral(t, [c], "stall")
    ev = st.hints.get("stall_evidence")
    if ev == "none":
        st.init_rank, st.init_node = None, None
    else:
        st.init_rank, st.init_node = c, ctx.node_of(c)
    st.notes = "rank %d stopped progressing (%s) while the others waited in %s SeqNum=%d until the NCCL watchdog fired" % (
        c, {"lock": "deadlocked on a logging handler lock", "filelock": "waiting forever on a FileLock on shared storage",
            "queue": "blocked joining its async-checkpoint queue", "spin": "spinning in the sampler waiting for an epoch marker"}[kind], st.op, st.seq)


def sc_dl_stall(ctx, st):
    r = ctx.rng
    c = pick_culprit(ctx, st)
    n = ctx.node_of(c)
    t = st.t_fail
    fs = r.choice(["nfs", "lustre", "nfs"])
    if fs == "nfs":
        st.kmsg(n, t - r.uniform(5, 60), "nfs: server %s not responding, still trying" % r.choice(["nas01", "fs-data", "10.%d.0.%d" % (r.randint(0, 9), r.randint(2, 200))]))
    else:
        st.kmsg(n, t - r.uniform(5, 60), "Lustre: scratch-OST%04x-osc-ffff%s: Connection to scratch-OST%04x (at 10.%d.%d.%d@o2ib) was lost; in progress operations using this service will wait for recovery to complete" % (
            r.randint(0, 60), hexid(r, 12), r.randint(0, 60), r.randint(0, 9), r.randint(0, 255), r.randint(2, 250)))
    wpid = ctx.pids[c] + r.randint(60, 400)
    for j in range(r.randint(1, 3)):
        st.kmsg(n, t + 120 * (j + 1) + r.uniform(0, 3), "INFO: task %s:%d blocked for more than %d seconds." % (r.choice(["pt_data_worker", "python"]), wpid + j, 120 * (j + 1) + r.randint(0, 3)))
        st.kmsg(n, t + 120 * (j + 1) + 0.01, "      Tainted: P           OE     5.15.0-1053-nvidia #54-Ubuntu")
        st.kmsg(n, t + 120 * (j + 1) + 0.01, "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.")
    vs = ["timeout", "timeout", "silent", "retry"]
    v = r.choice(vs)
    dl_to = r.choice([60, 120, 180, 300])
    if v == "timeout" and dl_to < ctx.timeout_s - 30:
        fr = fr_entry(ctx) + fr_loop(ctx, "data") + fr_dl(ctx, "timeout")
        st.exc(c, t + dl_to, Ex("RuntimeError", "DataLoader timed out after %d seconds" % dl_to, fr))
        st.progress_stop = t
        st.collateral(t + dl_to, [c], "death")
        note = "rank %d's DataLoader stalled on %s I/O and hit its %ds timeout" % (c, fs, dl_to)
    elif v == "retry":
        for j in range(r.randint(3, 9)):
            st.log(c, t + 5 * (j + 1) + r.uniform(0, 1), "WARNING", "Got disconnected from remote data host. Retrying in 5sec [%d/20]" % (j + 1), "datasets.utils.file_utils" if r.random() < 0.5 else "datasets.download.streaming_download_manager")
        st.stalled.add(c)
        fr = fr_entry(ctx) + fr_loop(ctx, "data") + fr_dl(ctx, "none") + [
            Fr(ctx.tp + "/utils/data/dataloader.py", ln(ctx, "dl_getdata"), "_get_data", "success, data = self._try_get_data()"),
            Fr(ctx.tp + "/utils/data/dataloader.py", ln(ctx, "dl_try"), "_try_get_data", "data = self._data_queue.get(timeout=timeout)"),
            Fr(ctx.pylib + "/queue.py", 180, "get", "self.not_empty.wait(remaining)"),
            Fr(ctx.pylib + "/threading.py", thr_line(ctx), "wait", "gotit = waiter.acquire(True, timeout)")]
        stall_evidence(ctx, st, c, fr, t, "dl")
        st.collateral(t, [c], "stall")
        note = "rank %d's streaming dataset lost its connection to the data host and kept retrying; the others timed out" % c
    else:
        st.stalled.add(c)
        fr = fr_entry(ctx) + fr_loop(ctx, "data") + fr_dl(ctx, "none") + [
            Fr(ctx.tp + "/utils/data/dataloader.py", ln(ctx, "dl_getdata"), "_get_data", "success, data = self._try_get_data()"),
            Fr(ctx.tp + "/utils/data/dataloader.py", ln(ctx, "dl_try"), "_try_get_data", "data = self._data_queue.get(timeout=timeout)"),
            Fr(ctx.pylib + "/queue.py", 180, "get", "self.not_empty.wait(remaining)"),
            Fr(ctx.pylib + "/threading.py", thr_line(ctx), "wait", "gotit = waiter.acquire(True, timeout)")]
        stall_evidence(ctx, st, c, fr, t, "dl")
        st.collateral(t, [c], "stall")
        note = "rank %d blocked waiting for its DataLoader workers (stuck reading from %s); the others hit the NCCL timeout" % (c, fs)
    if st.hints.get("stall_evidence") == "none" and v != "timeout":
        st.init_rank, st.init_node = None, n
    else:
        st.init_rank, st.init_node = c, n
    st.notes = note


FP_TAIL = "TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))"


def fingerprint(seq, op, shape, dt):
    return "CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%s], TensorDtypes=%s, %s" % (seq, op, shape, dt, FP_TAIL)


def sc_mismatch(ctx, st):
    r = ctx.rng
    t = st.t_fail
    k = 0 if r.random() < 0.4 else r.randrange(ctx.W)
    v = r.choice(["detail", "timeout", "timeout"])
    seq = st.seq
    op_main = st.op if st.op != "BROADCAST" else "ALLREDUCE"
    op_odd = r.choice(["BROADCAST", "ALLGATHER", "BARRIER", "ALLREDUCE"])
    shape_main = str(r.choice([262144, 4194304, 1024, 16777216]))
    shape_odd = str(r.choice([1, 2, 8])) if op_odd != "ALLREDUCE" else str(int(shape_main) // 2)
    if op_odd == "ALLREDUCE" and op_main == "ALLREDUCE":
        diff = "Tensor Tensor shapes: %svs %s" % (shape_odd, shape_main)
    else:
        diff = "Op type: %svs %s" % (op_odd, op_main)
    st.progress_stop = t
    if v == "detail":
        for j in range(ctx.W):
            if j == k:
                other = 0 if k != 0 else 1
                msg = "Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s." % (
                    k, fingerprint(seq, op_odd, shape_odd, "Long" if op_odd != "ALLREDUCE" else "BFloat16"), other, fingerprint(seq, op_main, shape_main, "BFloat16"))
                fr = fr_entry(ctx) + fr_loop(ctx)[:1] + fr_collective(ctx, {"BROADCAST": "broadcast", "ALLGATHER": "allgather", "BARRIER": "barrier", "ALLREDUCE": "allreduce"}[op_odd])
            else:
                msg = "Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s." % (
                    j, fingerprint(seq, op_main, shape_main, "BFloat16"), k, fingerprint(seq, op_odd, shape_odd, "Long" if op_odd != "ALLREDUCE" else "BFloat16"))
                fr = fr_entry(ctx) + fr_loop(ctx) + fr_backward(ctx)
            if ctx.tv >= 3:
                msg += "Collectives differ in the following aspects: \t %s" % diff
            st.exc(j, t + r.uniform(0, 0.8), Ex("RuntimeError", msg, fr))
        st.hints["mismatch"] = "detail"
        note = "TORCH_DISTRIBUTED_DEBUG=DETAIL caught rank %d issuing %s while the others issued %s at SequenceNumber %d" % (k, op_odd, op_main, seq)
    else:
        st.op_override = {k: (op_odd if op_odd != "BARRIER" else "ALLREDUCE", int(shape_odd))}
        old_op, old_numel = st.op, st.numel
        st.op, st.numel = op_main, int(shape_main)
        st.hints["mismatch"] = "timeout"
        st.collateral(t, [], "stall")
        note = "rank %d issued a different collective (%s, numel %s) at SeqNum %d than the rest (%s, numel %s); everyone hung until the watchdog" % (
            k, op_odd, shape_odd, seq, op_main, shape_main)
    st.init_rank, st.init_node = k, ctx.node_of(k)
    st.notes = note


def sc_straggler(ctx, st):
    r = ctx.rng
    lvl = r.choice(["rank", "rank", "node"])
    n = r.randrange(ctx.nn)
    k = r.choice(ctx.ranks_on(n))
    reason = r.choice(["thermal", "pcie", "clock", "cpu"])
    factor = r.uniform(1.35, 2.4)
    st.hints["straggler"] = dict(rank=k if lvl == "rank" else None, node=n, factor=factor, reason=reason)
    end = r.choice(["interrupt", "cancel", "running"])
    st.hints["straggler_end"] = end
    base = st.step_time
    st.step_time = base * factor
    t_end = st.t_fail
    st.progress_stop = t_end
    if reason == "thermal" and lvl == "rank":
        st.extra["nvidia-smi-q-d-PERFORMANCE_%s.txt" % ctx.hosts[n]] = "\n".join(perf_q(ctx, n, ctx.lr(k), r))
    elif reason == "pcie":
        lr = ctx.lr(k)
        st.kmsg(n, st.t_start - 300, "pcieport 0000:%02x:01.0: AER: Corrected error received: 0000:%s:00.0" % (r.randint(0x10, 0xf0), ctx.bus[lr]))
        st.kmsg(n, st.t_start - 299, "nvidia 0000:%s:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)" % ctx.bus[lr])
        st.kmsg(n, st.t_start - 200, "nvidia 0000:%s:00.0: 63.008 Gb/s available PCIe bandwidth, limited by 16.0 GT/s PCIe x4 link at 0000:%02x:01.0 (capable of 504.112 Gb/s with 32.0 GT/s PCIe x16 link)" % (ctx.bus[lr], r.randint(0x10, 0xf0)))
    elif reason == "clock":
        st.extra["nvidia-smi-q-d-CLOCK_%s.txt" % ctx.hosts[n]] = "\n".join(clock_q(ctx, n, ctx.lr(k) if lvl == "rank" else None, r))
    if end == "interrupt":
        te = t_end
        for j in range(ctx.W):
            tj = te + r.uniform(0, 0.05)
            fr = fr_entry(ctx) + fr_loop(ctx) + (fr_forward(ctx, 2) if (j == k or (lvl == "node" and ctx.node_of(j) == n)) else fr_item(ctx))
            if ctx.W > 32 and j not in st.full_ranks and j != k:
                st.die(j, tj + 0.3, -2, "int")
                continue
            st.add(j, tj, "err", "exc", Ex("KeyboardInterrupt", "", fr))
            st.die(j, tj + 0.3, -2, "int")
        st.sched.append((te, "interrupt", None))
    elif end == "cancel":
        for j in range(ctx.W):
            st.die(j, t_end + r.uniform(0, 1.0), -15, "term")
        st.sched.append((t_end, "cancel", None))
    st.init_rank = k if lvl == "rank" else None
    st.init_node = n
    st.notes = "%s %s ran %.1fx slower than the rest (%s); the job was %s" % (
        "rank %d on" % k if lvl == "rank" else "every rank of", ctx.hosts[n], factor,
        {"thermal": "GPU thermal slowdown", "pcie": "PCIe link trained down", "clock": "GPU clocks capped", "cpu": "CPU contention from a stray process"}[reason],
        {"interrupt": "interrupted by the user", "cancel": "cancelled by the user", "running": "still running when the logs were collected"}[end])


def perf_q(ctx, n, lr, r):
    L = ["==============NVSMI LOG==============", "", "Timestamp                                 : %s" % _dt(ctx.t0 + 8000).strftime("%a %b %d %H:%M:%S %Y"),
         "Driver Version                            : 550.90.07", "CUDA Version                              : %s" % ctx.cuda, "",
         "Attached GPUs                             : %d" % ctx.gpn]
    for g in range(ctx.gpn):
        hot = g == lr
        L += ["GPU 00000000:%s:00.0" % ctx.bus[g].upper(),
              "    Performance State                     : P0",
              "    Clocks Event Reasons",
              "        Idle                              : Not Active",
              "        Applications Clocks Setting       : Not Active",
              "        SW Power Cap                      : %s" % ("Not Active" if hot else r.choice(["Not Active", "Active"])),
              "        HW Slowdown                       : %s" % ("Active" if hot else "Not Active"),
              "            HW Thermal Slowdown           : %s" % ("Active" if hot else "Not Active"),
              "            HW Power Brake Slowdown       : Not Active",
              "        Sync Boost                        : Not Active",
              "        SW Thermal Slowdown               : %s" % ("Active" if hot else "Not Active"),
              "        Display Clock Setting             : Not Active"]
    return L


def clock_q(ctx, n, lr, r):
    L = ["==============NVSMI LOG==============", "", "Attached GPUs                             : %d" % ctx.gpn]
    for g in range(ctx.gpn):
        low = lr is None or g == lr
        sm = r.randint(690, 990) if low else r.randint(1755, 1980)
        L += ["GPU 00000000:%s:00.0" % ctx.bus[g].upper(),
              "    Clocks",
              "        Graphics                          : %d MHz" % sm,
              "        SM                                : %d MHz" % sm,
              "        Memory                            : 2619 MHz",
              "        Video                             : %d MHz" % (sm - 100),
              "    Applications Clocks",
              "        Graphics                          : %d MHz" % (sm if low else 1980),
              "        Memory                            : 2619 MHz",
              "    Max Clocks",
              "        Graphics                          : 1980 MHz",
              "        SM                                : 1980 MHz"]
    return L


def sc_unknown(ctx, st):
    r = ctx.rng
    c = pick_culprit(ctx, st)
    n = ctx.node_of(c)
    t = st.t_fail
    v = r.choice(["exit1", "kill9", "cut", "exit1"])
    st.hints["unknown"] = v
    if v == "exit1":
        st.die(c, t, 1, "exit")
        note = "rank %d exited with code 1 without printing anything (its stderr went elsewhere)" % c
    elif v == "kill9":
        st.die(c, t, -9, "kill9")
        note = "rank %d was SIGKILLed; nothing in the bundle says by whom (no kernel log, no scheduler message)" % c
    else:
        fr = fr_entry(ctx) + fr_loop(ctx) + fr_forward(ctx, 2)
        st.hints["cut_exc"] = True
        st.exc(c, t, Ex("RuntimeError", "<cut>", fr), record=False)
        note = "rank %d raised, but the log collector cut its traceback before the exception line" % c
    st.collateral(t, [c], "death")
    st.init_rank, st.init_node = c, n
    st.hints["unknown_visible"] = True
    st.notes = note


def sc_healthy(ctx, st):
    r = ctx.rng
    st.healthy = True
    st.fail_step = max(1000, int(round(st.fail_step / 1000.0)) * 1000)
    st.t_fail = st.t_train + st.fail_step * st.step_time
    t_end = st.t_fail
    st.total_steps = st.fail_step
    st.progress_stop = t_end
    for k in range(ctx.W):
        st.die(k, t_end + r.uniform(40, 120), 0, "ok")
    st.notes = "run completed normally"
    # scary but harmless things
    picks = r.sample(["upload_retry", "oom_probe", "exc_ignored", "wandb_reset", "pg_not_destroyed", "eval_pool_retry", "group_warn", "socket_refused"], r.randint(2, 4))
    st.hints["healthy_noise"] = picks


SCENARIOS = {
    "gpu_hardware": sc_gpu_hardware, "ecc_memory": sc_ecc, "nvlink": sc_nvlink, "network": sc_network,
    "cuda_oom": sc_cuda_oom, "illegal_memory_access": sc_ima, "python_exception": sc_python_exception,
    "host_oom_kill": sc_host_oom, "crash_signal": sc_crash, "preemption": sc_preemption, "hang": sc_hang,
    "data_loader_stall": sc_dl_stall, "collective_mismatch": sc_mismatch, "straggler": sc_straggler,
    "unknown": sc_unknown,
}


# --------------------------------------------------------------------------
# enrichment: startup, progress, scary-but-harmless lines
# --------------------------------------------------------------------------

def logged_chain_upload(ctx, r):
    sp = ctx.sp
    e1 = Ex("ConnectionResetError", "[Errno 104] Connection reset by peer", [
        Fr(sp + "/urllib3/connectionpool.py", 793, "urlopen", "response = self._make_request("),
        Fr(sp + "/urllib3/connectionpool.py", 537, "_make_request", "response = conn.getresponse()"),
        Fr(sp + "/urllib3/connection.py", 466, "getresponse", "httplib_response = super().getresponse()"),
        Fr(ctx.pylib + "/http/client.py", {"3.10": 1375, "3.11": 1378, "3.12": 1428}[ctx.py], "getresponse", "response.begin()"),
        Fr(ctx.pylib + "/http/client.py", {"3.10": 318, "3.11": 318, "3.12": 331}[ctx.py], "begin", "version, status, reason = self._read_status()"),
        Fr(ctx.pylib + "/http/client.py", {"3.10": 279, "3.11": 279, "3.12": 292}[ctx.py], "_read_status", "line = str(self.fp.readline(_MAXLINE + 1), \"iso-8859-1\")"),
        Fr(ctx.pylib + "/socket.py", 705 if ctx.py != "3.12" else 707, "readinto", "return self._sock.recv_into(b)"),
        Fr(ctx.pylib + "/ssl.py", {"3.10": 1274, "3.11": 1311, "3.12": 1252}[ctx.py], "recv_into", "return self.read(nbytes, buffer)"),
        Fr(ctx.pylib + "/ssl.py", {"3.10": 1130, "3.11": 1167, "3.12": 1104}[ctx.py], "read", "return self._sslobj.read(len, buffer)")])
    e2 = Ex("urllib3.exceptions.ProtocolError", "('Connection aborted.', ConnectionResetError(104, 'Connection reset by peer'))", [
        Fr(sp + "/requests/adapters.py", 486, "send", "resp = conn.urlopen("),
        Fr(sp + "/urllib3/connectionpool.py", 847, "urlopen", "retries = retries.increment("),
        Fr(sp + "/urllib3/util/retry.py", 470, "increment", "raise reraise(type(error), error, _stacktrace)"),
        Fr(sp + "/urllib3/util/util.py", 38, "reraise", "raise value.with_traceback(tb)")], context=e1)
    e3 = Ex("requests.exceptions.ConnectionError", "('Connection aborted.', ConnectionResetError(104, 'Connection reset by peer'))", [
        Fr(ctx.u(ctx.proj["ckpt"]), r.randint(200, 260), "_upload_with_retry", "resp = self.session.put(url, data=fh, timeout=300)"),
        Fr(sp + "/requests/sessions.py", 649, "put", "return self.request(\"PUT\", url, data=data, **kwargs)"),
        Fr(sp + "/requests/sessions.py", 589, "request", "resp = self.send(prep, **send_kwargs)"),
        Fr(sp + "/requests/sessions.py", 703, "send", "r = adapter.send(request, **kwargs)"),
        Fr(sp + "/requests/adapters.py", 501, "send", "raise ConnectionError(err, request=request)")], context=e2)
    return e3


def logged_oom_probe(ctx, r, k):
    fr = [Fr(ctx.u(ctx.proj["trainer"]), r.randint(90, 130), "_probe_micro_batch", "self.train_step(self._fake_batch(mbs), dry_run=True)")] + fr_forward(ctx, 2)[1:]
    return Ex(oom_type(ctx), oom_msg(ctx, ctx.lr(k), r), fr)


def logged_group(ctx, r):
    sub = Ex("TimeoutError", "", [Fr(ctx.u(ctx.proj["ckpt"]), r.randint(300, 340), "_put_part", "await asyncio.wait_for(self._client.put_object(**kw), timeout=120)"),
                                  Fr(ctx.pylib + "/asyncio/tasks.py", 492 if ctx.py == "3.11" else 520, "wait_for", "raise exceptions.TimeoutError() from exc")])
    return Ex("ExceptionGroup", "unhandled errors in a TaskGroup (1 sub-exception)", [
        Fr(ctx.u(ctx.proj["ckpt"]), r.randint(260, 290), "upload_async", "async with asyncio.TaskGroup() as tg:"),
        Fr(ctx.pylib + "/asyncio/taskgroups.py", 145, "__aexit__", "raise me from None")], group=[sub])


def exc_ignored_lines(ctx, r):
    return ["Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at %s>" % addr(r),
            "Traceback (most recent call last):",
            '  File "%s/utils/data/dataloader.py", line %d, in __del__' % (ctx.tp, {1: 1478, 2: 1479, 3: 1479, 4: 1604, 5: 1618, 6: 1618}[ctx.tv]),
            "    self._shutdown_workers()",
            '  File "%s/utils/data/dataloader.py", line %d, in _shutdown_workers' % (ctx.tp, {1: 1443, 2: 1443, 3: 1443, 4: 1568, 5: 1582, 6: 1582}[ctx.tv]),
            "    w.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)",
            '  File "%s/multiprocessing/process.py", line 149, in join' % ctx.pylib,
            "    assert self._parent_pid == os.getpid(), 'can only join a child process'",
            "AssertionError: can only join a child process"]


def enrich(ctx, st):
    r = ctx.rng
    W = ctx.W
    lg = "%s.trainer" % ctx.proj["name"].split("-")[0]
    verbose_ranks = set(range(W)) if W <= 64 else (set(st.full_ranks) | {0})
    warns = pick_warnings(ctx, r, r.randint(1, 3))
    for k in range(W):
        t0 = st.t_start + r.uniform(1, 6)
        if k in verbose_ranks:
            for j, w in enumerate(warns):
                st.txt(k, t0 + 2 + j + r.uniform(0, 1), py_warning(ctx, w, r))
        if ctx.nccl_debug == "INFO" and W <= 32:
            st.txt(k, st.t_init + r.uniform(0, 2), "\n".join(nccl_init_lines(ctx, k, None, r)), "out")
        elif ctx.nccl_debug == "INFO" and k in verbose_ranks and k % ctx.gpn == 0:
            st.txt(k, st.t_init + r.uniform(0, 2), "\n".join(nccl_init_lines(ctx, k, None, r, verbose=False)), "out")
        if k == 0 and ctx.nccl_debug != "INFO" and r.random() < 0.5:
            st.txt(0, st.t_init + 1, "NCCL version %s+cuda%s" % (ctx.nccl, ctx.cuda), "out")
    # rank 0 app logs
    st.log(0, st.t_start + 8, "INFO", "world_size=%d nodes=%d gpus_per_node=%d torch=%s cuda=%s nccl=%s%s" % (
        W, ctx.nn, ctx.gpn, ctx.torch_ver, ctx.cuda, ctx.nccl, (" host=%s" % ctx.hosts[0]) if ctx.nn == 1 else ""), lg)
    st.log(0, st.t_init + r.uniform(5, 15), "INFO", "model: %s  params=%.2fB  precision=bf16  wrapper=%s" % (ctx.proj["mcls"], r.uniform(0.1, 70), r.choice(["DDP", "FSDP(FULL_SHARD)", "FSDP(HYBRID_SHARD)"])), lg)
    if r.random() < 0.5:
        st.log(0, st.t_train - r.uniform(5, 30), "INFO", "resumed from checkpoint /checkpoints/%s/step_%07d (%.1fs)" % (ctx.proj["name"], r.randint(1000, 90000), r.uniform(20, 200)), lg)
    if r.random() < 0.4 and W > 1:
        st.txt(0, st.t_train + r.uniform(1, 5), "[I reducer.cpp:1114] Reducer buckets have been rebuilt in this iteration." if ctx.tv <= 1 else
               c10_line(ctx, 0, st.wall(0, st.t_train + 2), "I", "reducer.cpp:1400" if ctx.tv <= 3 else "reducer.cpp:1400", "Reducer buckets have been rebuilt in this iteration."))
    stop = st.progress_stop if st.progress_stop is not None else st.t_fail
    n_steps = max(1, int((stop - st.t_train) / st.step_time))
    every = 10
    while n_steps / every > getattr(ctx, "max_progress", 120):
        every *= 2 if str(every)[0] in "15" else 2.5
        every = int(every)
    fmt = getattr(ctx, "stepfmt", None) or r.choice(["kv", "dict", "slash"])
    use_tqdm = getattr(ctx, "tqdm_ok", True) and fmt != "ds" and r.random() < 0.35
    ctx.stepfmt = fmt
    loss = r.uniform(2.4, 3.4)
    strag = st.hints.get("straggler")
    base_t = st.step_time / (strag["factor"] if strag else 1.0)
    s = every
    step0 = max(0, st.fail_step - n_steps)
    while True:
        step = step0 + s
        t = st.t_train + s * st.step_time
        if t > stop:
            break
        loss = max(1.2, loss - r.uniform(0, 0.004) * every / 10 + r.uniform(-0.01, 0.01))
        stt = st.step_time * r.uniform(0.97, 1.04)
        if use_tqdm:
            ups = []
            for q in range(4):
                sq = step - every + (q + 1) * every // 4
                ups.append(tqdm_line(sq, st.total_steps, sq * st.step_time, stt, loss, "Epoch %d" % (sq * 3 // st.total_steps)))
            st.txt(0, t - 0.01, "\r" + "\r".join(ups))
        if not use_tqdm or r.random() < 0.3:
            st.log(0, t, "INFO", step_line(ctx, step, st.total_steps, r, stt, loss, fmt), lg)
        if strag and (s // every) % 5 == 0:
            slow = strag["rank"]
            if W <= 16 and slow is not None:
                for k in range(W):
                    comp = base_t * r.uniform(0.55, 0.62) * (strag["factor"] if k == slow else 1.0)
                    st.log(k, t + r.uniform(0, 0.2), "INFO", "[rank %d] step %d timing: fwd_bwd=%.3fs data=%.3fs comm_wait=%.3fs" % (
                        k, step, comp, r.uniform(0.002, 0.02), max(0.01, stt - comp - 0.02)), lg)
            else:
                if slow is not None:
                    st.log(0, t + 0.05, "INFO", "step %d per-rank compute time (s): min %.3f (rank %d)  median %.3f  max %.3f (rank %d)" % (
                        step, base_t * 0.55, r.randrange(W), base_t * 0.58, base_t * 0.58 * strag["factor"], slow), lg)
                else:
                    nr = ctx.ranks_on(strag["node"])
                    st.log(0, t + 0.05, "INFO", "step %d slowest ranks by compute time: %s (median %.3fs)" % (
                        step, ", ".join("%d=%.3fs" % (q, base_t * 0.58 * strag["factor"] * r.uniform(0.97, 1.03)) for q in r.sample(nr, min(4, len(nr)))), base_t * 0.58), lg)
        if r.random() < 0.02:
            st.log(0, t + 1, "INFO", "saved checkpoint to /checkpoints/%s/step_%07d (%.1fs)" % (ctx.proj["name"], step, r.uniform(15, 120)), lg)
        s += every
    st.hints["last_logged_step"] = step0 + s - every
    # healthy-run extras (and a few sprinkled into failures)
    picks = list(st.hints.get("healthy_noise", []))
    if not st.healthy and r.random() < 0.5:
        picks += r.sample(["upload_retry", "exc_ignored_start", "wandb_reset", "socket_refused", "oom_probe"], 1)
    for pk in picks:
        tt = r.uniform(st.t_train + 30, max(st.t_train + 40, stop - 30))
        if pk == "upload_retry":
            ex = logged_chain_upload(ctx, r)
            st.log(0, tt, "WARNING", "upload of checkpoint shard to object store failed (attempt 1/5), retrying in 4.0s\n" + "\n".join(fmt_plain(ex, ctx.carets)), "%s.ckpt" % ctx.proj["name"].split("-")[0])
            st.log(0, tt + r.uniform(6, 40), "INFO", "upload of checkpoint shard succeeded on attempt 2", "%s.ckpt" % ctx.proj["name"].split("-")[0])
        elif pk == "oom_probe":
            t1 = st.t_train - r.uniform(5, 15)
            for k in ([0] if W > 8 else range(W)):
                ex = logged_oom_probe(ctx, r, k)
                st.log(k, t1 + r.uniform(0, 0.5), "WARNING", "micro-batch probe: %d does not fit, trying %d\n%s" % (
                    r.choice([16, 32, 8]), r.choice([4, 8]), "\n".join(fmt_plain(ex, ctx.carets))), lg)
        elif pk in ("exc_ignored", "exc_ignored_start"):
            if st.healthy:
                for k in r.sample(range(W), min(W, r.randint(1, 4))):
                    st.txt(k, st.exit[k][0] - 0.5, "\n".join(exc_ignored_lines(ctx, r)))
            else:
                st.txt(0, st.t_train - 2, "\n".join(exc_ignored_lines(ctx, r)))
        elif pk == "wandb_reset":
            st.txt(0, tt, "wandb: Network error (ConnectionError), entering retry loop.")
            st.txt(0, tt + r.uniform(10, 60), "wandb: Network error resolved after 0:00:%02d.%d, resuming normal operation." % (r.randint(10, 59), r.randint(0, 9)))
        elif pk == "pg_not_destroyed" and ctx.tv >= 4 and st.healthy:
            for k in range(W):
                if k in verbose_ranks:
                    st.txt(k, st.exit[k][0] - 0.2, c10_line(ctx, k, st.wall(k, st.exit[k][0] - 0.2), "W", "ProcessGroupNCCL.cpp:%d" % (1250 if ctx.tv == 4 else 1479),
                                                          "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only recently been added. For more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())"))
        elif pk == "eval_pool_retry":
            ex = Ex("BrokenPipeError", "[Errno 32] Broken pipe", [Fr(ctx.u("eval/metrics.py"), r.randint(130, 170), "_score_remote", "conn.send(payload)"),
                                                                  Fr(ctx.pylib + "/multiprocessing/connection.py", 206, "send", "self._send_bytes(_ForkingPickler.dumps(obj))")])
            st.log(0, tt, "WARNING", "eval scorer connection dropped, restarting scorer pool\n" + "\n".join(fmt_plain(ex, ctx.carets)), "%s.eval" % ctx.proj["name"].split("-")[0])
        elif pk == "group_warn" and ctx.py != "3.10":
            st.log(0, tt, "WARNING", "async upload of step_%07d metadata failed; will retry with the next checkpoint\n%s" % (
                max(100, int((tt - st.t_train) / st.step_time) // 100 * 100), "\n".join(fmt_plain(logged_group(ctx, r), ctx.carets))), "%s.ckpt" % ctx.proj["name"].split("-")[0])
        elif pk == "socket_refused" and W > 1:
            for k in r.sample(range(1, W), min(W - 1, r.randint(1, 4))):
                st.txt(k, st.t_start + r.uniform(0.5, 2), "[W socket.cpp:697] [c10d] The client socket has failed to connect to [%s]:%d (errno: 111 - Connection refused)." % (ctx.fqdn(0), ctx.port) if ctx.tv <= 3 else
                       c10_line(ctx, k, st.wall(k, st.t_start + 1), "W", "socket.cpp:752", "[c10d] The client socket has failed to connect to [%s]:%d (errno: 111 - Connection refused)." % (ctx.fqdn(0), ctx.port)))
    if st.healthy:
        te = min(v[0] for v in st.exit.values())
        st.log(0, st.t_fail + r.uniform(0.5, 3), "INFO", "reached max_steps=%d; saving final checkpoint" % st.total_steps, lg)
        st.log(0, te - r.uniform(1, 5), "INFO", "training finished in %s" % hms_dur(te - st.t_start), lg)


def hms_dur(s):
    s = int(s)
    return "%d:%02d:%02d" % (s // 3600, (s % 3600) // 60, s % 60)


# --------------------------------------------------------------------------
# rendering helpers shared by layouts
# --------------------------------------------------------------------------

def fmt_logline(ctx, rank, wall, level, msg, logger, style):
    if style == "loguru":
        lv = {"WARNING": "WARNING ", "INFO": "INFO    ", "ERROR": "ERROR   ", "DEBUG": "DEBUG   "}[level]
        fn = {"INFO": "_train_epoch", "WARNING": "_train_epoch", "ERROR": "fit", "DEBUG": "_train_epoch"}[level]
        return "%s | %s | %s:%s:%d - %s" % (f_logdot(wall), lv, logger or "__main__", fn, 233 if level == "INFO" else 241, msg)
    if style == "hydra":
        return "[%s][%s][%s] - %s" % (f_log(wall), logger or "__main__", level, msg)
    if style == "ds":
        if msg.startswith("[Rank ") or msg.startswith("[deepspeed]"):
            where = "logging.py:96:log_dist" if msg.startswith("[Rank") else "loss_scaler.py:183:update_scale"
        elif msg.startswith("cdb=") or msg.startswith("Initializing TorchBackend"):
            where = "comm.py:%d:init_distributed" % (637 if msg.startswith("cdb") else 668)
        else:
            return "%s - %s - %s - %s" % (f_log(wall), level, logger or "__main__", msg)
        return "[%s] [%s] [%s] %s" % (f_log(wall), level, where, msg)
    if style == "rank":
        return "%s [rank%d] %s %s" % (f_log(wall), rank, level, msg)
    return "%s - %s - %s - %s" % (f_log(wall), level, logger or "__main__", msg)


def trim_hydra(ex):
    """hydra drops the frames above the task function unless HYDRA_FULL_ERROR=1"""
    fr = ex.frames
    for i, f in enumerate(fr):
        if f.func == "main":
            return Ex(ex.etype, ex.msg, fr[i:], ex.cause, ex.context, ex.group, ex.notes, ex.suppress)
    return ex


def has_group(ex):
    x = ex
    while x is not None:
        if x.group is not None:
            return True
        x = x.cause if x.cause is not None else (x.context if not x.suppress else None)
    return False


def render_exc(ctx, st, rank, wall, ex, style):
    r = ctx.rng
    if ex.msg == "<cut>":
        lines = fmt_plain(Ex(ex.etype, "x", ex.frames), ctx.carets)[:-1]
        keep = r.randint(3, max(4, len(lines) - 3))
        return lines[:keep]
    if style == "rich" and not has_group(ex):
        return fmt_rich(ex, width=getattr(ctx, "rich_width", 100), show_locals=getattr(ctx, "rich_locals", True))
    if style == "better" and not has_group(ex):
        return fmt_better(ex)
    if style == "loguru" and not has_group(ex):
        hdr = "%s | ERROR    | __main__:<module>:%d - An error has been caught in function '<module>', process '%s' (%d), thread 'MainThread' (%d):" % (
            f_logdot(wall), ex.frames[0].line if ex.frames else 1, getattr(ctx, "procname", "MainProcess") if not callable(getattr(ctx, "procname", None)) else ctx.procname(rank),
            ctx.pids[rank], 139000000000000 + r.randint(0, 999999999999))
        return [hdr] + fmt_loguru_body(ex, mark_index=0)
    if style == "hydra":
        head = ["Error executing job with overrides: %s" % getattr(ctx, "overrides", "[]")]
        if getattr(ctx, "hydra_full", False):
            return head + fmt_plain(ex, ctx.carets)
        return head + fmt_plain(trim_hydra(ex), ctx.carets) + ["", "Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace."]
    return fmt_plain(ex, ctx.carets)


def rank_items(ctx, st, k, style, logstyle, streams=("out", "err"), exc_filter=None):
    """-> list of (t, stream, line) for rank k, in order"""
    out = []
    last = -1e18
    n = ctx.node_of(k)
    evs = sorted(enumerate(st.ev[k]), key=lambda e: (e[1][0], e[0]))
    for _, (t, stream, kind, payload) in evs:
        if stream not in streams:
            continue
        wall = ctx.T(t, n)
        if kind == "txt":
            lines = payload.split("\n")
        elif kind == "log":
            level, msg, logger = payload
            ls = msg.split("\n")
            lines = [fmt_logline(ctx, k, wall, level, ls[0], logger, logstyle)] + ls[1:]
        elif kind == "exc":
            if exc_filter is not None:
                res = exc_filter(k, t, payload)
                if res is None:
                    continue
                lines = res
            else:
                lines = render_exc(ctx, st, k, wall, payload, style)
        else:
            lines = []
        for i, l in enumerate(lines):
            tl = max(t + i * 4e-4, last + 1e-6)
            last = tl
            out.append((tl, stream, l))
    return out


def merge(streams, rng=None):
    """streams: list of lists of (t, key, line); merge by time"""
    allv = []
    for si, s in enumerate(streams):
        for j, item in enumerate(s):
            allv.append((item[0], si, j, item))
    allv.sort(key=lambda x: (x[0], x[1], x[2]))
    return [a[3] for a in allv]


def need_kern(ctx, st, n):
    """kernel evidence the operator would certainly attach"""
    if not st.kern[n]:
        return False
    return ctx.cause in ("gpu_hardware", "nvlink", "network", "ecc_memory") or (ctx.cause == "host_oom_kill" and st.hints.get("oom_pid")) \
        or st.hints.get("kern_only")


def kern_text(ctx, st, n, style, extra_noise=True):
    r = ctx.rng
    items = list(st.kern[n])
    if extra_noise:
        base = st.t_start
        noise = ["IPv6: ADDRCONF(NETDEV_CHANGE): veth%s: link becomes ready" % hexid(r, 7),
                 "docker0: port %d(veth%s) entered forwarding state" % (r.randint(1, 9), hexid(r, 7)),
                 "nvidia-nvswitch%d: open (major=%d)" % (r.randint(0, 3), r.randint(500, 511)),
                 "NVRM: GPU at PCI:%s: %s" % (ctx.pci(0)[4:], gpu_uuid(r)),
                 "EXT4-fs (nvme0n1p1): mounted filesystem with ordered data mode. Quota mode: none.",
                 "mlx5_core 0000:%02x:00.0: mlx5_pcie_event:299:(pid %d): PCIe slot advertised sufficient power (75W)." % (r.randint(0x10, 0xf0), r.randint(100, 9000)),
                 "audit: type=1400 audit(%d.%03d:%d): apparmor=\"STATUS\" operation=\"profile_replace\" info=\"same as current profile, skipping\" profile=\"unconfined\" name=\"nvidia_modprobe\" pid=%d comm=\"apparmor_parser\"" % (
                     int(ctx.t0), r.randint(0, 999), r.randint(10, 99), r.randint(1000, 9000)),
                 "nvidia_uvm: module uses symbols nvUvmInterfaceDisableAccessCntr from proprietary module nvidia, inheriting taint.",
                 "NFSD: Using nfsdcld client tracking operations."]
        for j in range(r.randint(3, 8)):
            items.append((base - r.uniform(10, 3000), r.choice(noise)))
        if st.kern[n]:
            items.append((st.t_fail + r.uniform(200, 900), "docker0: port %d(veth%s) entered disabled state" % (r.randint(1, 9), hexid(r, 7))))
    items.sort(key=lambda x: x[0])
    boot = r.uniform(200000, 4000000)
    out = []
    for t, line in items:
        wall = ctx.T(t, n)
        if style == "T":
            out.append("%s %s" % (f_dmesgT(wall), line))
        elif style == "journal":
            out.append("%s %s kernel: %s" % (f_syslog(wall), ctx.hosts[n], line))
        else:
            out.append("[%12.6f] %s" % (boot + t, line))
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------
# torchrun (torchelastic agent) rendering
# --------------------------------------------------------------------------

SIGNAMES = {-6: "SIGABRT", -9: "SIGKILL", -11: "SIGSEGV", -15: "SIGTERM", -7: "SIGBUS", -2: "SIGINT"}


def agent_line(ctx, wall, level, mod, lineno, msg, pid):
    name = {"W": "WARNING", "E": "ERROR", "I": "INFO"}[level]
    dotted = mod.replace("/", ".").replace(".py", "")
    if ctx.tv <= 1:
        return "%s:%s:%s" % (name, dotted, msg)
    if ctx.tv <= 3:
        return "[%s] %s: [%s] %s" % (f_log(wall), dotted, name, msg)
    return "%s %d %s:%d] %s" % (f_glog(level, wall), pid, mod, lineno, msg)


def torchrun_bin(ctx):
    d = ctx.pybin.rsplit("/", 1)[0]
    return "/usr/local/bin/torchrun" if d == "/usr/bin" else d + "/torchrun"


def agent_banner(ctx, wall, pid):
    lines = ["", "*****************************************",
             "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
             "*****************************************"]
    if ctx.tv <= 1:
        return ["WARNING:torch.distributed.run:"] + lines[1:]
    return [agent_line(ctx, wall, "W", "torch/distributed/run.py", 793, l, pid) for l in lines]


def err_file_path(ctx, n, lr, logdir=None):
    r = random.Random("%s|%d|errf|%d" % (ctx.seed, ctx.idx, n))
    if logdir:
        return "%s/%s_%s/attempt_0/%d/error.json" % (logdir, ctx.run_id, hexid(r, 8), lr)
    return "/tmp/torchelastic_%s/%s_%s/attempt_0/%d/error.json" % (hexid(r, 8), ctx.run_id, hexid(r, 8), lr)


def error_json(ctx, st, k):
    t, ex = st.errfile[k]
    return {"message": {"message": "%s: %s" % (ex.etype.split(".")[-1], (ex.msg or "")),
                        "extraInfo": {"py_callstack": "\n".join(fmt_plain(ex, ctx.carets)) + "\n",
                                      "timestamp": str(int(st.wall(k, t)))}}}


def child_failed_block(ctx, st, n, failures, logdir=None, name=None):
    """failures: list of (rank, exitcode, when_true_time, has_errfile) in local-rank order"""
    name = name or ctx.proj["script"]
    recs = []
    for k, code, tdet in failures:
        lr = ctx.lr(k)
        if k in st.errfile and code != 0:
            ts = int(st.wall(k, st.errfile[k][0]))
            ef = err_file_path(ctx, n, lr, logdir)
            msg = "\n".join(fmt_plain(st.errfile[k][1], ctx.carets)) + "\n"
            msg = msg.replace("\n", "\n  ")
        else:
            ts = int(ctx.T(tdet, n))
            ef = "<N/A>"
            if code < 0:
                msg = "Signal %d (%s) received by PID %d" % (-code, SIGNAMES.get(code, "<N/A>"), ctx.pids[k])
            else:
                msg = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
        recs.append((k, lr, code, ts, ef, msg))
    root = min(range(len(recs)), key=lambda i: recs[i][3])
    fmts = []
    width = len(name + " FAILED")
    for idx, (k, lr, code, ts, ef, msg) in enumerate(recs):
        f = "[%d]:\n  time      : %s\n  host      : %s\n  rank      : %d (local_rank: %d)\n  exitcode  : %d (pid: %d)\n  error_file: %s\n  traceback : %s" % (
            idx, f_elastic(ts), ctx.fqdn(n), k, lr, code, ctx.pids[k], ef, msg)
        width = max(width, max(len(x) for x in f.split("\n")))
        fmts.append(f)
    width = min(width, 60)
    others = [fmts[i] for i in range(len(fmts)) if i != root]
    body = ["", "=" * width, name + " FAILED", "-" * width, "Failures:"]
    body += ("\n".join(others) if others else "  <NO_OTHER_FAILURES>").split("\n")
    body += ["-" * width, "Root Cause (first observed failure):"]
    body += fmts[root].split("\n")
    body += ["=" * width]
    return body, recs[root][0]


def torchrun_tb_frames(ctx, kind="child"):
    tp = ctx.tp
    fr = [Fr(torchrun_bin(ctx), 8, "<module>", "sys.exit(main())"),
          Fr(tp + "/distributed/elastic/multiprocessing/errors/__init__.py", ln(ctx, "rec_wrap"), "wrapper", "return f(*args, **kwargs)"),
          Fr(tp + "/distributed/run.py", ln(ctx, "run_main"), "main", "run(args)"),
          Fr(tp + "/distributed/run.py", ln(ctx, "run_run"), "run", "elastic_launch("),
          Fr(tp + "/distributed/launcher/api.py", ln(ctx, "l_call"), "__call__", "return launch_agent(self._config, self._entrypoint, list(args))")]
    if kind == "child":
        fr.append(Fr(tp + "/distributed/launcher/api.py", ln(ctx, "l_agent"), "launch_agent", "raise ChildFailedError("))
    else:
        fr += [Fr(tp + "/distributed/launcher/api.py", ln(ctx, "l_run"), "launch_agent", "result = agent.run()"),
               Fr(tp + "/distributed/elastic/metrics/api.py", {1: 129, 2: 124, 3: 124, 4: 124, 5: 137, 6: 138}[ctx.tv], "wrapper", "result = f(*args, **kwargs)"),
               Fr(tp + "/distributed/elastic/agent/server/api.py", {1: 723, 2: 727, 3: 727, 4: 696, 5: 711, 6: 711}[ctx.tv], "run", "result = self._invoke_run(role)"),
               Fr(tp + "/distributed/elastic/agent/server/api.py", {1: 862, 2: 868, 3: 868, 4: 855, 5: 870, 6: 870}[ctx.tv], "_invoke_run", "time.sleep(monitor_interval)"),
               Fr(tp + "/distributed/elastic/multiprocessing/api.py", {1: 62, 2: 62, 3: 79, 4: 79, 5: 84, 6: 84}[ctx.tv], "_terminate_process_handler",
                  "raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)")]
    return fr


def agent_events(ctx, st, n, logdir=None, info=False):
    """-> list of (true_t, line) printed by the torchrun agent of node n, and
    the rank named as root cause (or None)"""
    r = random.Random("%s|%d|agent|%d" % (ctx.seed, ctx.idx, n))
    apid = ctx.agent_pid[n]
    out = []
    w0 = ctx.T(st.t_start - 1.5, n)
    if ctx.gpn > 1:
        for l in agent_banner(ctx, w0, apid):
            out.append((st.t_start - 1.5, l))
    if info:
        out.append((st.t_start - 1.0, agent_line(ctx, ctx.T(st.t_start - 1, n), "I", "torch/distributed/elastic/agent/server/api.py", 847 if ctx.tv >= 4 else 833,
                                                  "[default] starting workers for entrypoint: python", apid)))
        out.append((st.t_start - 0.9, agent_line(ctx, ctx.T(st.t_start - 0.9, n), "I", "torch/distributed/elastic/agent/server/api.py", 664 if ctx.tv >= 4 else 650,
                                                  "[default] Rendezvous complete for workers. Result:", apid)))
        for l in ["  restart_count=0", "  master_addr=%s" % ctx.fqdn(0), "  master_port=%d" % ctx.port, "  group_rank=%d" % n, "  group_world_size=%d" % ctx.nn,
                  "  local_ranks=%s" % list(range(ctx.gpn)), "  role_ranks=%s" % ctx.ranks_on(n), "  global_ranks=%s" % ctx.ranks_on(n),
                  "  role_world_sizes=%s" % [ctx.W] * 1, "  global_world_sizes=%s" % [ctx.W] * 1, ""]:
            out.append((st.t_start - 0.9, l))
    loc = ctx.ranks_on(n)
    ex = {k: st.exit[k] for k in loc if k in st.exit}
    sched = [s for s in st.sched if s[1] in ("preempt_all", "interrupt", "cancel") or (s[1] == "preempt_node" and s[2] == n)]
    fails = sorted([(v[0], k) for k, v in ex.items() if v[1] != 0 and v[2] not in ("term", "int")])
    poll = r.uniform(0.05, 0.12) if ctx.tv >= 2 else r.uniform(0.2, 5.0)
    if sched and (not fails or sched[0][0] <= fails[0][0]):
        ts, kind, _ = sched[0]
        sig = "SIGINT" if kind == "interrupt" else "SIGTERM"
        tt = ts + r.uniform(0, 0.2)
        out.append((tt, agent_line(ctx, ctx.T(tt, n), "W", "torch/distributed/elastic/agent/server/api.py", 704 if ctx.tv >= 4 else 735,
                                   "Received Signals.%s death signal, shutting down workers" % sig, apid)))
        for k in loc:
            out.append((tt + 0.001, agent_line(ctx, ctx.T(tt, n), "W", "torch/distributed/elastic/multiprocessing/api.py", 897 if ctx.tv >= 4 else 836,
                                               "Sending process %d closing signal %s" % (ctx.pids[k], sig), apid)))
        e1 = Ex("torch.distributed.elastic.multiprocessing.api.SignalException", "Process %d got signal: %d" % (apid, 2 if sig == "SIGINT" else 15), torchrun_tb_frames(ctx, "signal"))
        if sig == "SIGTERM" and r.random() < 0.4:
            caught_at(e1, "launch_agent")
            e1 = Ex("torch.distributed.elastic.multiprocessing.api.SignalException", "Process %d got signal: 15" % apid,
                    torchrun_tb_frames(ctx, "child")[:5] + [
                        Fr(ctx.tp + "/distributed/launcher/api.py", ln(ctx, "l_run") + 25, "launch_agent", "agent._shutdown()"),
                        Fr(ctx.tp + "/distributed/elastic/agent/server/local_elastic_agent.py", 347 if ctx.tv >= 4 else 289, "_shutdown", "self._pcontext.close(death_sig)"),
                        Fr(ctx.tp + "/distributed/elastic/multiprocessing/api.py", 544 if ctx.tv >= 4 else 496, "close", "self._close(death_sig=death_sig, timeout=timeout)"),
                        Fr(ctx.tp + "/distributed/elastic/multiprocessing/api.py", 868 if ctx.tv >= 4 else 713, "_close", "handler.proc.wait(time_to_wait)"),
                        Fr(ctx.pylib + "/subprocess.py", 1209, "wait", "return self._wait(timeout=timeout)"),
                        Fr(ctx.pylib + "/subprocess.py", 1953, "_wait", "time.sleep(delay)"),
                        Fr(ctx.tp + "/distributed/elastic/multiprocessing/api.py", {1: 62, 2: 62, 3: 79, 4: 79, 5: 84, 6: 84}[ctx.tv], "_terminate_process_handler",
                           "raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)")], context=e1)
        for i, l in enumerate(fmt_plain(e1, ctx.carets)):
            out.append((tt + r.uniform(1, 30) * 0 + 2.0 + i * 1e-5, l))
        return out, None
    if not fails:
        if st.healthy or all(v[1] == 0 for v in ex.values()) and len(ex) == len(loc):
            te = max(v[0] for v in ex.values()) if ex else st.t_fail
            if info:
                out.append((te + 0.2, agent_line(ctx, ctx.T(te + 0.2, n), "I", "torch/distributed/elastic/agent/server/api.py", 879 if ctx.tv >= 4 else 890,
                                                 "[default] worker group successfully finished. Waiting 300 seconds for other agents to finish.", apid)))
                out.append((te + 0.9, agent_line(ctx, ctx.T(te + 0.9, n), "I", "torch/distributed/elastic/agent/server/api.py", 932 if ctx.tv >= 4 else 940,
                                                 "Done waiting for other agents. Elapsed: %.5f seconds" % r.uniform(0.1, 30), apid)))
        return out, None
    tfirst = fails[0][0]
    tdet = tfirst + poll
    included = [k for (t, k) in fails if t <= tdet]
    for k in loc:
        if k in included:
            continue
        if k in ex and ex[k][0] <= tdet:
            continue
        out.append((tdet, agent_line(ctx, ctx.T(tdet, n), "W", "torch/distributed/elastic/multiprocessing/api.py", 897 if ctx.tv >= 4 else 836,
                                     "Sending process %d closing signal SIGTERM" % ctx.pids[k], apid)))
    k0 = included[0]
    out.append((tdet + 0.01, agent_line(ctx, ctx.T(tdet + 0.01, n), "E", "torch/distributed/elastic/multiprocessing/api.py", 869 if ctx.tv >= 4 else 828,
                                        "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (ex[k0][1], ctx.lr(k0), ctx.pids[k0], ctx.pybin), apid)))
    if ctx.tv >= 2 and any(k in st.errfile for k in included) and r.random() < 0.3:
        pass
    failures = [(k, ex[k][1], tdet) for k in sorted(included)]
    body, root = child_failed_block(ctx, st, n, failures, logdir)
    tc = tdet + r.uniform(0.3, 6.0)
    ce = Ex("torch.distributed.elastic.multiprocessing.errors.ChildFailedError", "\n".join(body), torchrun_tb_frames(ctx, "child"))
    for i, l in enumerate(fmt_plain(ce, ctx.carets)):
        out.append((tc + i * 1e-5, l))
    st.hints.setdefault("agent_root", {})[n] = root
    st.hints.setdefault("agent_end", {})[n] = tc
    return out, root


# --------------------------------------------------------------------------
# layouts
# --------------------------------------------------------------------------

def pick_style(ctx, weights):
    r = ctx.rng
    tot = sum(w for _, w in weights)
    x = r.uniform(0, tot)
    for s, w in weights:
        x -= w
        if x <= 0:
            return s
    return weights[-1][0]


class Layout:
    name = "base"
    unsupported = ()

    def supports(self, cause):
        return cause not in self.unsupported

    def setup(self, ctx):
        raise NotImplementedError

    def post(self, ctx, st):
        pass

    def render(self, ctx, st):
        raise NotImplementedError


class TorchrunLogdir(Layout):
    """multi-node torchrun --log-dir: per-node launcher console + per-rank
    stdout/stderr/error.json files written by torchelastic"""
    name = "torchrun_logdir"

    def setup(self, ctx):
        r = ctx.rng
        ctx.topo(wmin=4 if ctx.cause != "network" else 8, wmax=64, gpn=r.choice([8, 8, 4]))
        if ctx.nn == 1 and ctx.cause in ("network",):
            ctx.topo(wmin=16, wmax=64, gpn=8)
        ctx.style = pick_style(ctx, [("plain", 6), ("rich", 1.5), ("loguru", 1.5), ("better", 1)])
        ctx.loguru_swallow = ctx.style == "loguru" and r.random() < 0.4
        ctx.logstyle = "loguru" if ctx.style == "loguru" else r.choice(["std", "rank"])
        ctx.nccl_debug = r.choice([None, "WARN", "INFO"])
        ctx.run_id = r.choice(["none", "%s-%s" % (ctx.proj["name"], ctx.jobid), hexid(r, 8)])
        ctx.logdir = r.choice(["/logs", "/scratch/%s/torchelastic" % ctx.user, ctx.proj["root"] + "/tel_logs"])
        ctx.rich_width = r.choice([80, 100, 120])
        ctx.rich_locals = r.random() < 0.7
        ctx.stall_forms = ["later", "pyspy", "heartbeat"]
        ctx.rank_attrib = True
        return {"local": r.uniform(0.1, 5.0), "glob": None}

    def render(self, ctx, st):
        r = ctx.rng
        files = {}
        info = r.random() < 0.5
        ctx.max_progress = 120
        for n in range(ctx.nn):
            ev, root = agent_events(ctx, st, n, ctx.logdir, info)
            ev += sched_lines(ctx, st, n)
            lines = [l for _, l in sorted(ev, key=lambda x: x[0])]
            files["%s/torchrun.log" % ctx.hosts[n]] = "\n".join(lines) + "\n"
            rid = "%s_%s" % (ctx.run_id, hexid(random.Random("%s|%d|errf|%d" % (ctx.seed, ctx.idx, n)), 8))
            for k in ctx.ranks_on(n):
                lr = ctx.lr(k)
                base = "%s/%s/%s/attempt_0/%d" % (ctx.hosts[n], ctx.logdir.strip("/").split("/")[-1], rid, lr)
                out = rank_items(ctx, st, k, ctx.style, ctx.logstyle, ("out",))
                err = rank_items(ctx, st, k, ctx.style, ctx.logstyle, ("err",))
                files[base + "/stdout.log"] = "\n".join(x[2] for x in out) + ("\n" if out else "")
                files[base + "/stderr.log"] = "\n".join(x[2] for x in err) + ("\n" if err else "")
                if k in st.errfile and st.exit.get(k, (0, 0))[1] != 0:
                    files[base + "/error.json"] = json.dumps(error_json(ctx, st, k))
        for n in range(ctx.nn):
            if st.kern[n] or (r.random() < 0.15):
                if st.kern[n] and r.random() < 0.1 and not need_kern(ctx, st, n):
                    continue
                files["%s/dmesg.txt" % ctx.hosts[n]] = kern_text(ctx, st, n, r.choice(["T", "journal", "raw"]))
        for name, txt in st.extra.items():
            files[name] = txt + ("\n" if not txt.endswith("\n") else "")
        return files



def spawnify(ctx, ex, r):
    """frames of an exception as seen inside a torch.multiprocessing.spawn child"""
    def fix(e):
        if e is None:
            return None
        fr = e.frames
        if fr and fr[0].func == "<module>":
            i = 0
            while i < len(fr) and fr[i].func in ("<module>", "wrapper", "main"):
                i += 1
            fr = [Fr(ctx.tp + "/multiprocessing/spawn.py", ln(ctx, "spawn_wrap"), "_wrap", "fn(i, *args)"),
                  Fr(ctx.u(ctx.proj["script"]), r.randint(120, 200), "main_worker", "trainer.fit()")] + fr[i:]
        return Ex(e.etype, e.msg, fr, fix(e.cause), fix(e.context), e.group, e.notes, e.suppress)
    return fix(ex)


class MpSpawn(Layout):
    """single node, python train.py -> torch.multiprocessing.spawn; one console
    file (nohup / sbatch) with every process writing to it unprefixed"""
    name = "mp_spawn"
    unsupported = ("network",)

    def setup(self, ctx):
        r = ctx.rng
        ctx.topo(single=True, gpn=r.choice([2, 4, 4, 8, 8]))
        ctx.style = pick_style(ctx, [("plain", 5), ("rich", 2), ("better", 1.5), ("loguru", 1.5)])
        ctx.loguru_swallow = ctx.style == "loguru" and r.random() < 0.3
        ctx.logstyle = "loguru" if ctx.style == "loguru" else r.choice(["std", "rank"])
        ctx.record = False
        ctx.procname = lambda rank: "SpawnProcess-%d" % (rank + 1)
        ctx.sbatch = ctx.cause == "preemption" or r.random() < 0.3
        ctx.nccl_debug = r.choice([None, None, "WARN", "INFO"])
        ctx.node_preempt_ok = False
        ctx.rich_width = r.choice([80, 100, 120])
        ctx.rich_locals = r.random() < 0.6
        ctx.stall_forms = ["later", "pyspy", "heartbeat"]
        return {"local": r.uniform(0.02, 1.5), "glob": None}

    def render(self, ctx, st):
        r = ctx.rng
        files = {}
        ctx.max_progress = 150

        def filt(k, t, ex):
            if ctx.style == "loguru":
                return render_exc(ctx, st, k, ctx.T(t, 0), spawnify(ctx, ex, r), "loguru")
            return None
        items = [rank_items(ctx, st, k, ctx.style, ctx.logstyle, exc_filter=filt) for k in range(ctx.W)]
        par = []
        t_launch = st.t_start - 2
        if ctx.sbatch:
            par.append((t_launch - 1, "+ python %s --config configs/%s.yaml --world-size %d" % (ctx.proj["script"], ctx.proj["name"], ctx.W)))
        fails = sorted((v[0], k) for k, v in st.exit.items() if v[1] != 0)
        sched = [x for x in st.sched if x[1] in ("preempt_all", "cancel", "interrupt")]
        cut = None
        if sched and (not fails or sched[0][0] <= fails[0][0]):
            ts, kind, why = sched[0]
            if kind == "interrupt":
                fr = [Fr(ctx.u(ctx.proj["script"]), r.randint(250, 300), "<module>", "mp.spawn(main_worker, args=(world_size, cfg), nprocs=world_size, join=True)"),
                      Fr(ctx.tp + "/multiprocessing/spawn.py", ln(ctx, "spawn"), "spawn", "return start_processes(fn, args, nprocs, join, daemon, start_method=\"spawn\")"),
                      Fr(ctx.tp + "/multiprocessing/spawn.py", ln(ctx, "spawn_sp"), "start_processes", "while not context.join():"),
                      Fr(ctx.tp + "/multiprocessing/spawn.py", ln(ctx, "spawn_join") - 40, "join", "ready = multiprocessing.connection.wait("),
                      Fr(ctx.pylib + "/multiprocessing/connection.py", {"3.10": 936, "3.11": 947, "3.12": 1136}[ctx.py], "wait", "ready = selector.select(timeout)"),
                      Fr(ctx.pylib + "/selectors.py", 416 if ctx.py == "3.10" else 415, "select", "fd_event_list = self._selector.poll(timeout)")]
                par.append((ts + 0.01, "^C"))
                for i, l in enumerate(render_exc(ctx, st, 0, ctx.T(ts, 0), Ex("KeyboardInterrupt", "", fr), ctx.style)):
                    par.append((ts + 0.5 + i * 1e-5, l))
            elif kind == "preempt_all":
                par.append((ts + 0.2, "slurmstepd: error: *** JOB %s ON %s CANCELLED AT %s DUE TO %s ***" % (ctx.jobid, ctx.hosts[0], f_iso(ctx.T(ts, 0)), why)))
            else:
                par.append((ts + 0.2, "slurmstepd: error: *** JOB %s ON %s CANCELLED AT %s ***" % (ctx.jobid, ctx.hosts[0], f_iso(ctx.T(ts, 0)))))
        elif fails:
            tf, k0 = fails[0]
            tj = tf + r.uniform(0.01, 0.3)
            code = st.exit[k0][1]
            if ctx.tv >= 3:
                for k in range(ctx.W):
                    if k != k0 and (k not in st.exit or st.exit[k][0] > tj):
                        par.append((tj, "%s %d torch/multiprocessing/spawn.py:%d] Terminating process %d via signal SIGTERM" % (
                            f_glog("W", ctx.T(tj, 0)), ctx.agent_pid[0], 146 if ctx.tv <= 4 else 160, ctx.pids[k])) if ctx.tv >= 4 else
                            (tj, "[%s] torch.multiprocessing.spawn: [WARNING] Terminating process %d via signal SIGTERM" % (f_log(ctx.T(tj, 0)), ctx.pids[k])))
            base = [Fr(ctx.u(ctx.proj["script"]), r.randint(250, 300), "<module>", "mp.spawn(main_worker, args=(world_size, cfg), nprocs=world_size, join=True)"),
                    Fr(ctx.tp + "/multiprocessing/spawn.py", ln(ctx, "spawn"), "spawn", "return start_processes(fn, args, nprocs, join, daemon, start_method=\"spawn\")"),
                    Fr(ctx.tp + "/multiprocessing/spawn.py", ln(ctx, "spawn_sp"), "start_processes", "while not context.join():")]
            raised = [e for e in st.ev[k0] if e[2] == "exc"]
            if code > 0 and raised and st.exit[k0][2] == "exc":
                child = spawnify(ctx, raised[-1][3], r)
                if child.msg == "<cut>":
                    tb = "\n".join(render_exc(ctx, st, k0, 0, child, "plain"))
                else:
                    tb = "\n".join(fmt_plain(child, ctx.carets))
                pe = Ex("torch.multiprocessing.spawn.ProcessRaisedException", "\n\n-- Process %d terminated with the following error:\n%s" % (k0, tb),
                        base + [Fr(ctx.tp + "/multiprocessing/spawn.py", ln(ctx, "spawn_join"), "join", "raise ProcessRaisedException(msg, error_index, failed_process.pid)")])
            elif code < 0:
                pe = Ex("torch.multiprocessing.spawn.ProcessExitedException", "process %d terminated with signal %s" % (k0, SIGNAMES.get(code, "SIG%d" % -code)),
                        base + [Fr(ctx.tp + "/multiprocessing/spawn.py", ln(ctx, "spawn_join") - 19, "join", "raise ProcessExitedException(")])
            else:
                pe = Ex("torch.multiprocessing.spawn.ProcessExitedException", "process %d terminated with exit code %d" % (k0, code),
                        base + [Fr(ctx.tp + "/multiprocessing/spawn.py", ln(ctx, "spawn_join") - 9, "join", "raise ProcessExitedException(")])
            for i, l in enumerate(render_exc(ctx, st, 0, ctx.T(tj, 0), pe, ctx.style if ctx.style != "loguru" else "plain")):
                par.append((tj + 0.2 + i * 1e-5, l))
            if ctx.tv >= 2 and r.random() < 0.5:
                par.append((tj + 0.5, "%s/multiprocessing/resource_tracker.py:%d: UserWarning: resource_tracker: There appear to be %d leaked semaphore objects to clean up at shutdown" % (
                    ctx.pylib, 224 if ctx.py == "3.10" else 254, r.randint(1, 12))))
                par.append((tj + 0.5, "  warnings.warn('resource_tracker: There appear to be %d '"))
            cut = tj + 2
        lines = merge(items + [[(t, "err", l) for t, l in par]])
        if cut is not None:
            lines = [x for x in lines if x[0] <= cut + 5]
        name = "slurm-%s.out" % ctx.jobid if ctx.sbatch else r.choice(["nohup.out", "train.log", "run_%s.log" % _dt(ctx.t0).strftime("%Y%m%d_%H%M")])
        files[name] = "\n".join(x[2] for x in lines) + "\n"
        if st.kern[0] and (r.random() < 0.85 or need_kern(ctx, st, 0)):
            files[r.choice(["dmesg.txt", "dmesg-T.txt", "kern.log"])] = kern_text(ctx, st, 0, r.choice(["T", "journal"]))
        for nm, txt in st.extra.items():
            files[nm.replace("_%s" % ctx.hosts[0], "")] = txt + "\n"
        return files


def srun_status(code):
    return {1: "Exited with exit code 1", 2: "Exited with exit code 2", -6: "Aborted (core dumped)", -9: "Killed",
            -11: "Segmentation fault (core dumped)", -15: "Terminated", -7: "Bus error (core dumped)", -2: "Interrupt"}.get(code, "Exited with exit code %d" % code)


def ranges(nums):
    nums = sorted(nums)
    out = []
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        out.append(str(nums[i]) if i == j else "%d-%d" % (nums[i], nums[j]))
        i = j + 1
    return ",".join(out)


class SlurmHydra(Layout):
    """sbatch + srun (one task per GPU, --label), Hydra app: slurm-JOBID.out
    with task labels, Hydra's own output dir for rank 0"""
    name = "slurm_hydra"

    def setup(self, ctx):
        r = ctx.rng
        ctx.topo(wmin=8, wmax=256, gpn=r.choice([8, 8, 4]))
        ctx.all_gpus_visible = False
        ctx.style = "hydra"
        ctx.hydra_full = r.random() < 0.25
        ctx.record = False
        ctx.logstyle = "hydra"
        ctx.node_preempt_ok = False
        ctx.nccl_debug = r.choice([None, None, "WARN", "INFO"])
        ctx.kobe = r.random() < 0.5
        d = _dt(ctx.t0)
        ctx.hydra_dir = "outputs/%s/%s" % (d.strftime("%Y-%m-%d"), d.strftime("%H-%M-%S"))
        ctx.ovr = ["trainer.max_steps=%d" % r.choice([20000, 50000, 100000]), "data.root=/lustre/%s/datasets/%s" % (ctx.user, ctx.proj["name"]),
                   "optim.lr=%s" % r.choice(["3e-4", "1e-4", "6e-4"]), "trainer.devices=%d" % ctx.gpn, "trainer.num_nodes=%d" % ctx.nn]
        ctx.overrides = "[" + ", ".join("'%s'" % o for o in ctx.ovr) + "]"
        ctx.cgroup_fmt = "/slurm/uid_1000/job_%(job)s/step_0/task_%(rank)d"
        ctx.rank_attrib = True
        ctx.stall_forms = ["later", "pyspy", "heartbeat"]
        return {"local": None, "glob": r.uniform(0.3, 2.0)} if ctx.kobe else {"local": None, "glob": None}

    def post(self, ctx, st):
        r = ctx.rng
        if st.healthy or st.hints.get("straggler_end") == "running":
            return
        alive = [k for k in range(ctx.W) if k not in st.exit]
        if alive and not st.sched:
            te = max([v[0] for v in st.exit.values()] or [st.t_fail]) + r.uniform(120, 2400)
            for k in alive:
                st.die(k, te + r.uniform(0, 0.5), -15, "term")
            st.sched.append((te, "scancel", None))

    def render(self, ctx, st):
        r = ctx.rng
        files = {}
        ctx.max_progress = 150
        wdt = len(str(ctx.W - 1))
        sep_err = r.random() < 0.35
        items = []
        for k in range(ctx.W):
            it = rank_items(ctx, st, k, "hydra", "hydra")
            items.append([(t, s, "%*d: %s" % (wdt, k, l)) for t, s, l in it])
        sl = []
        t_launch = st.t_start - 3
        sl.append((t_launch - 2, "out", "JOB %s on %s" % (ctx.jobid, ",".join(ctx.hosts) if ctx.nn <= 4 else "%s,...(%d nodes)" % (ctx.hosts[0], ctx.nn))))
        sl.append((t_launch - 1.9, "out", "MASTER_ADDR=%s MASTER_PORT=%d WORLD_SIZE=%d" % (ctx.hosts[0], ctx.port, ctx.W)))
        sl.append((t_launch - 1.8, "err", "+ srun --label %s--cpu-bind=none python -u %s %s" % ("--kill-on-bad-exit=1 " if ctx.kobe else "", ctx.proj["script"], " ".join(ctx.ovr))))
        # srun / slurmstepd messages
        sched = st.sched[0] if st.sched else None
        exits = sorted((v[0], k, v[1], v[2]) for k, v in st.exit.items())
        step = "%s.0" % ctx.jobid
        if sched and sched[1] in ("preempt_all", "cancel", "scancel"):
            ts = sched[0]
            why = " DUE TO %s" % sched[2] if sched[1] == "preempt_all" else ""
            sl.append((ts, "err", "slurmstepd: error: *** JOB %s ON %s CANCELLED AT %s%s ***" % (ctx.jobid, ctx.hosts[0], f_iso(ctx.T(ts, 0)), why)))
            sl.append((ts + 0.01, "err", "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
            for n in range(ctx.nn):
                sl.append((ts + 0.02, "err", "slurmstepd: error: *** STEP %s ON %s CANCELLED AT %s%s ***" % (step, ctx.hosts[n], f_iso(ctx.T(ts, n)), why)))
                if n >= 2 and r.random() < 0.6:
                    break
            sl.append((ts + 0.05, "err", "srun: forcing job termination"))
        if sched and sched[1] == "interrupt":
            ts = sched[0]
            sl.append((ts, "err", "srun: interrupt (one more within 1 sec to abort)"))
            sl.append((ts + 0.01, "err", "srun: StepId=%s tasks 0-%d: running" % (step, ctx.W - 1)))
            sl.append((ts + 0.4, "err", "srun: sending Ctrl-C to StepId=%s" % step))
            sl.append((ts + 0.41, "err", "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
        first_bad = next(((t, k, c, h) for t, k, c, h in exits if c != 0 and h not in ("term", "int")), None)
        oom_nodes = set()
        if ctx.cause == "host_oom_kill" and first_bad:
            oom_nodes.add(ctx.node_of(st.init_rank if st.init_rank is not None else first_bad[1]))
        if first_bad and ctx.kobe and not (sched and sched[0] < first_bad[0]):
            t, k, c, h = first_bad
            n = ctx.node_of(k)
            if n in oom_nodes:
                sl.append((t + 0.3, "err", "slurmstepd: error: Detected 1 oom_kill event in StepId=%s. Some of the step tasks have been OOM Killed." % step))
            sl.append((t + 0.5, "err", "srun: error: %s: task %d: %s" % (ctx.hosts[n], k, srun_status(c) if n not in oom_nodes else "Out Of Memory")))
            sl.append((t + 0.51, "err", "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
            sl.append((t + 0.6, "err", "slurmstepd: error: *** STEP %s ON %s CANCELLED AT %s ***" % (step, ctx.hosts[0], f_iso(ctx.T(t + 0.6, 0)))))
            rest = [(tt, kk, cc, hh) for tt, kk, cc, hh in exits if kk != k]
        else:
            rest = exits
        # group remaining exits by (node, status) in time windows
        groups = {}
        for tt, kk, cc, hh in rest:
            if cc == 0:
                continue
            n = ctx.node_of(kk)
            key = (n, cc if n not in oom_nodes or hh != "kill9" else "oom", int(tt // 20))
            groups.setdefault(key, []).append((tt, kk))
        for key in sorted(groups, key=lambda x: min(v[0] for v in groups[x])):
            n, cc, _ = key
            v = groups[key]
            tmax = max(x[0] for x in v)
            ks = [x[1] for x in v]
            if cc == "oom":
                sl.append((tmax + 0.2, "err", "slurmstepd: error: Detected 1 oom_kill event in StepId=%s. Some of the step tasks have been OOM Killed." % step))
                stat = "Out Of Memory"
            else:
                stat = srun_status(cc)
            sl.append((tmax + 0.5, "err", "srun: error: %s: task%s %s: %s" % (ctx.hosts[n], "s" if len(ks) > 1 else "", ranges(ks), stat)))
        if not st.healthy and exits and not (sched and sched[1] in ("preempt_all", "scancel", "cancel")) and not ctx.kobe:
            pass
        lines = merge(items + [sl])
        if sep_err:
            files["slurm-%s.out" % ctx.jobid] = "\n".join(x[2] for x in lines if x[1] == "out") + "\n"
            files["slurm-%s.err" % ctx.jobid] = "\n".join(x[2] for x in lines if x[1] == "err") + "\n"
        else:
            files["slurm-%s.out" % ctx.jobid] = "\n".join(x[2] for x in lines) + "\n"
        # hydra run dir (rank 0)
        hl = []
        for t, stream, kind, payload in sorted(st.ev[0], key=lambda e: e[0]):
            if kind == "log":
                level, msg, logger = payload
                hl.append(fmt_logline(ctx, 0, ctx.T(t, 0), level, msg.split("\n")[0], logger, "hydra"))
                hl += msg.split("\n")[1:]
        files["%s/%s.log" % (ctx.hydra_dir, ctx.proj["script"].replace(".py", ""))] = "\n".join(hl) + "\n"
        files["%s/.hydra/overrides.yaml" % ctx.hydra_dir] = "\n".join("- " + o for o in ctx.ovr) + "\n"
        files["%s/.hydra/config.yaml" % ctx.hydra_dir] = "\n".join([
            "model:", "  name: %s" % ctx.proj["mcls"], "  compile: %s" % r.choice(["false", "true"]),
            "data:", "  root: /lustre/%s/datasets/%s" % (ctx.user, ctx.proj["name"]), "  num_workers: %d" % r.choice([4, 8, 12]),
            "  timeout: %d" % r.choice([0, 0, 120, 300]),
            "optim:", "  lr: 0.0003", "  weight_decay: 0.1", "  warmup_steps: 2000",
            "trainer:", "  max_steps: %d" % st.total_steps, "  devices: %d" % ctx.gpn, "  num_nodes: %d" % ctx.nn,
            "  precision: bf16-mixed", "  log_every_n_steps: 10", ""])
        for n in range(ctx.nn):
            if st.kern[n] and (r.random() < 0.9 or need_kern(ctx, st, n)):
                files["dmesg_%s.txt" % ctx.hosts[n]] = kern_text(ctx, st, n, r.choice(["T", "journal", "raw"]))
        if r.random() < 0.5 and not st.healthy:
            state = {"preempt_all": ("PREEMPTED", "0:15") if st.hints.get("preempt_reason") == "PREEMPTION" else ("TIMEOUT", "0:0"),
                     "cancel": ("CANCELLED by 1000", "0:15"), "scancel": ("CANCELLED by 1000", "0:15")}.get(sched[1] if sched else "", None)
            if state is None:
                state = ("OUT_OF_MEMORY", "0:125") if ctx.cause == "host_oom_kill" else ("FAILED", "1:0")
            el = hms_dur(st.end_time() - st.t_start + 5)
            rows = ["JobID           JobName  Partition    Account  AllocCPUS      State ExitCode    Elapsed        NodeList ",
                    "------------ ---------- ---------- ---------- ---------- ---------- -------- ---------- --------------- ",
                    "%-12s %10s %10s %10s %10d %10s %8s %10s %15s " % (ctx.jobid, ctx.proj["name"][:10], "gpu", "ml-res", ctx.nn * 96, state[0][:10], state[1], el, ctx.hosts[0][:15]),
                    "%-12s %10s %10s %10s %10d %10s %8s %10s %15s " % (ctx.jobid + ".batch", "batch", "", "ml-res", 96, state[0][:10] if state[0] != "PREEMPTED" else "CANCELLED", state[1], el, ctx.hosts[0][:15]),
                    "%-12s %10s %10s %10s %10d %10s %8s %10s %15s " % (ctx.jobid + ".0", "python", "", "ml-res", ctx.nn * 96, state[0][:10] if state[0] not in ("PREEMPTED", "TIMEOUT") else "CANCELLED", state[1], el, ctx.hosts[0][:15])]
            files["sacct_%s.txt" % ctx.jobid] = "\n".join(rows) + "\n"
        for nm, txt in st.extra.items():
            files[nm] = txt + "\n"
        return files


def tee_prefix(ctx, k):
    return "[default%d]:" % ctx.lr(k)


def sched_lines(ctx, st, n):
    """what the batch system writes into the job's output when it kills it"""
    out = []
    for ts, kind, why in st.sched:
        if kind == "preempt_all" and not getattr(ctx, "k8s", False):
            out.append((ts - 0.02, "slurmstepd: error: *** STEP %s.0 ON %s CANCELLED AT %s DUE TO %s ***" % (ctx.jobid, ctx.hosts[n], f_iso(ctx.T(ts, n)), why)))
        elif kind == "cancel" and not getattr(ctx, "k8s", False):
            out.append((ts - 0.02, "slurmstepd: error: *** STEP %s.0 ON %s CANCELLED AT %s ***" % (ctx.jobid, ctx.hosts[n], f_iso(ctx.T(ts, n)))))
    return out


def node_console(ctx, st, n, style, logstyle, prefix=None, agent=True, info=False, logdir=None, exc_filter=None):
    """merged console of one node: torchrun agent + its workers"""
    items = []
    for k in ctx.ranks_on(n):
        it = rank_items(ctx, st, k, style, logstyle, exc_filter=exc_filter)
        if prefix:
            p = prefix(ctx, k)
            it = [(t, s, p + l) for t, s, l in it]
        items.append(it)
    root = None
    if agent:
        ev, root = agent_events(ctx, st, n, logdir, info)
        ev += sched_lines(ctx, st, n)
        items.append([(t, "err", l) for t, l in ev])
    return merge(items), root


class K8sPyTorchJob(Layout):
    """Kubeflow PyTorchJob: one pod per node running torchrun; kubectl logs per
    pod (or a log-aggregator export), kubectl describe and events"""
    name = "k8s_pytorchjob"

    def setup(self, ctx):
        r = ctx.rng
        ctx.topo(wmin=8, wmax=128, gpn=r.choice([8, 8, 4]))
        job = r.choice(["llama-ft", "pt-pretrain", "mae-vitl", "sdxl-lora", "asr-cfm"]) + "-" + hexid(r, 4)
        ctx.job = job
        ctx.k8s = True
        ctx.nodes_k8s = ctx.hosts[:]
        kstyle = r.choice(["gke", "eks", "onprem"])
        knodes = []
        for n in range(ctx.nn):
            if kstyle == "gke":
                knodes.append("gke-%s-a3-pool-%s-%s" % (r.choice(["ml", "train", "gpu"]), hexid(r, 8), hexid(r, 4)))
            elif kstyle == "eks":
                knodes.append("ip-10-%d-%d-%d.ec2.internal" % (r.randint(0, 3), r.randint(0, 255), r.randint(2, 250)))
            else:
                knodes.append("gpu-%s-%02d" % (r.choice(["h100", "a100"]), r.randint(1, 60)))
        ctx.knodes = knodes
        ctx.hosts = ["%s-master-0" % job] + ["%s-worker-%d" % (job, i) for i in range(ctx.nn - 1)]
        ctx.domain = ""
        ctx.style = pick_style(ctx, [("rich", 5), ("plain", 3), ("loguru", 2)])
        ctx.loguru_swallow = ctx.style == "loguru" and r.random() < 0.3
        ctx.logstyle = "loguru" if ctx.style == "loguru" else "std"
        ctx.rich_width = r.choice([80, 80, 100])
        ctx.rich_locals = r.random() < 0.5
        ctx.nccl_debug = r.choice([None, "WARN", "INFO"])
        ctx.run_id = ctx.job
        ctx.cgroup_fmt = "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + hexid(r, 8) + "_" + hexid(r, 4) + ".slice/cri-containerd-" + hexid(r, 16) + ".scope"
        ctx.stall_forms = ["later", "pyspy", "heartbeat"]
        return {"local": r.uniform(0.1, 5.0), "glob": None}

    def render(self, ctx, st):
        r = ctx.rng
        files = {}
        ctx.max_progress = 120
        tee = r.random() < 0.5
        ctx.rank_attrib = tee
        ts_pref = r.random() < 0.3
        collector = r.random() < 0.3
        ns = r.choice(["ml-train", "research", "default", "team-llm"])
        consoles = {}
        for n in range(ctx.nn):
            lines, root = node_console(ctx, st, n, ctx.style, ctx.logstyle, tee_prefix if tee else None, info=r.random() < 0.4)
            consoles[n] = lines
        if not collector:
            for n in range(ctx.nn):
                out = []
                for t, s, l in consoles[n]:
                    out.append((f_isonano(ctx.T(t, n)) + " " + l) if ts_pref else l)
                files["logs/%s.log" % ctx.hosts[n]] = "\n".join(out) + "\n"
        else:
            recs = []
            protect = set()
            if st.init_rank is not None:
                protect.add(ctx.node_of(st.init_rank))
            for n in range(ctx.nn):
                burst = 0
                last = -1e18
                for t, s, l in consoles[n]:
                    if n not in protect and l.startswith("frame #") and r.random() < 0.25:
                        burst += 1
                        continue
                    ing = max(last, t + r.uniform(0.5, 3.0))
                    last = ing
                    recs.append((ing, {"time": f_isonano(ctx.T(t, n)), "stream": "stderr" if s == "err" else "stdout",
                                       "kubernetes": {"namespace_name": ns, "pod_name": ctx.hosts[n], "container_name": "pytorch", "host": ctx.knodes[n]},
                                       "log": l}))
            recs.sort(key=lambda x: x[0])
            files["logs-export-%s.jsonl" % ctx.job] = "\n".join(json.dumps(x[1], ensure_ascii=False) for x in recs) + "\n"
        # describe + events
        ev = []
        t_sched = st.t_start - r.uniform(60, 600)
        for n in range(ctx.nn):
            ev.append((t_sched, "Normal", "Scheduled", "pod/%s" % ctx.hosts[n], "Successfully assigned %s/%s to %s" % (ns, ctx.hosts[n], ctx.knodes[n])))
            ev.append((t_sched + r.uniform(5, 200), "Normal", "Pulled", "pod/%s" % ctx.hosts[n], "Container image \"nvcr.io/nvidia/pytorch:%s-py3\" already present on machine" % r.choice(["24.01", "24.05", "24.09"])))
            ev.append((st.t_start - 3, "Normal", "Started", "pod/%s" % ctx.hosts[n], "Started container pytorch"))
        failed_pods = []
        for n in range(ctx.nn):
            loc = ctx.ranks_on(n)
            ex = [st.exit[k] for k in loc if k in st.exit]
            if not ex:
                continue
            tend = st.hints.get("agent_end", {}).get(n, max(v[0] for v in ex) + 1)
            sched = [s for s in st.sched if s[1] == "preempt_all" or (s[1] == "preempt_node" and s[2] == n) or s[1] in ("cancel", "interrupt")]
            if sched:
                reason, code, msg = "Error", 143, None
                if sched[0][1] == "preempt_node":
                    reason, msg = "Terminated", "Pod was terminated in response to imminent node shutdown."
                    ev.append((sched[0][0] - 25, "Warning", "NodeShutdown", "node/%s" % ctx.knodes[n], "Node %s is shutting down (spot VM preemption)" % ctx.knodes[n]))
                elif sched[0][1] == "preempt_all":
                    msg = "Preempted in order to admit critical pod" if r.random() < 0.5 else None
                    ev.append((sched[0][0] - 1, "Normal", "Preempted", "pod/%s" % ctx.hosts[n], "Preempted by pod %s on node %s" % (hexid(r, 8) + "-" + hexid(r, 4), ctx.knodes[n])))
                    ev.append((sched[0][0], "Normal", "Killing", "pod/%s" % ctx.hosts[n], "Stopping container pytorch"))
            elif all(v[1] == 0 for v in ex):
                reason, code, msg = "Completed", 0, None
            else:
                reason, code, msg = "Error", 1, None
                if ctx.cause == "host_oom_kill" and st.init_node == n:
                    reason = "OOMKilled"
                    code = 137 if all(v[1] == -9 for v in ex) else 1
                    ev.append((st.t_fail, "Warning", "OOMKilling", "node/%s" % ctx.knodes[n],
                               [l for _, l in st.kern[n] if "Killed process" in l][0] if any("Killed process" in l for _, l in st.kern[n]) else "Memory cgroup out of memory"))
            if code != 0:
                failed_pods.append(n)
            d = ["Name:             %s" % ctx.hosts[n], "Namespace:        %s" % ns, "Priority:         %d" % r.choice([0, 1000, 100000]),
                 "Service Account:  default", "Node:             %s/%s" % (ctx.knodes[n], ctx.ips[n]),
                 "Start Time:       %s" % _dt(ctx.T(t_sched, n)).strftime("%a, %d %b %Y %H:%M:%S +0000"),
                 "Labels:           training.kubeflow.org/job-name=%s" % ctx.job,
                 "                  training.kubeflow.org/replica-index=%d" % (0 if n == 0 else n - 1),
                 "                  training.kubeflow.org/replica-type=%s" % ("master" if n == 0 else "worker"),
                 "Status:           %s" % ("Succeeded" if code == 0 else "Failed")]
            if msg:
                d += ["Reason:           %s" % ("Terminated" if "shutdown" in msg else "Preempting"), "Message:          %s" % msg]
            d += ["IP:               %s" % ctx.ips[n], "Controlled By:  PyTorchJob/%s" % ctx.job, "Containers:", "  pytorch:",
                  "    Image:         nvcr.io/nvidia/pytorch:24.05-py3",
                  "    Command:", "      torchrun", "    Args:", "      --nnodes=%d" % ctx.nn, "      --nproc-per-node=%d" % ctx.gpn,
                  "      --rdzv-backend=c10d", "      --rdzv-endpoint=%s-master-0:%d" % (ctx.job, ctx.port), "      %s" % ctx.proj["script"],
                  "    State:          Terminated",
                  "      Reason:       %s" % reason,
                  "      Exit Code:    %d" % code,
                  "      Started:      %s" % _dt(ctx.T(st.t_start - 3, n)).strftime("%a, %d %b %Y %H:%M:%S +0000"),
                  "      Finished:     %s" % _dt(ctx.T(tend, n)).strftime("%a, %d %b %Y %H:%M:%S +0000"),
                  "    Ready:          False", "    Restart Count:  0",
                  "    Limits:", "      memory:          %dGi" % r.choice([900, 1600, 1800]), "      nvidia.com/gpu:  %d" % ctx.gpn,
                  "      rdma/ib:         %d" % r.choice([1, 8]) if "ec2" not in ctx.knodes[n] else "      vpc.amazonaws.com/efa:  %d" % r.choice([4, 32]),
                  "    Environment:", "      NCCL_DEBUG:        %s" % (ctx.nccl_debug or "WARN"),
                  "      PYTHONUNBUFFERED:  1", "      TORCH_NCCL_ASYNC_ERROR_HANDLING:  1",
                  "Events:                      <none>"]
            if code != 0 or r.random() < 0.2:
                files["describe/%s.txt" % ctx.hosts[n]] = "\n".join(d) + "\n"
        if failed_pods:
            f0 = min(failed_pods, key=lambda n: st.hints.get("agent_end", {}).get(n, 1e18))
            kind = "Master" if f0 == 0 else "Worker"
            ev.append((st.end_time() + 2, "Warning", "PyTorchJobFailed", "pytorchjob/%s" % ctx.job,
                       "PyTorchJob %s is failed because 1 %s replica(s) failed." % (ctx.job, kind)))
        elif st.healthy:
            ev.append((st.end_time() + 2, "Normal", "PyTorchJobSucceeded", "pytorchjob/%s" % ctx.job, "PyTorchJob %s is successfully completed." % ctx.job))
        for n in range(ctx.nn):
            if r.random() < 0.3:
                ev.append((st.t_start + r.uniform(100, 2000), "Warning", "FailedToRetrieveImagePullSecret", "pod/%s" % ctx.hosts[n],
                           "Unable to retrieve some image pull secrets (ngc-secret); attempting to pull the image may not succeed."))
        ev.sort(key=lambda x: x[0])
        tref = st.end_time() + r.uniform(300, 7200)
        rows = ["LAST SEEN   TYPE      REASON                    OBJECT                                   MESSAGE"]
        for t, ty, rs, ob, ms in ev:
            ago = tref - t
            age = "%dm" % (ago // 60) if ago < 3600 else "%dh%dm" % (ago // 3600, (ago % 3600) // 60)
            rows.append("%-11s %-9s %-25s %-40s %s" % (age, ty, rs, ob, ms))
        files["events.txt"] = "\n".join(rows) + "\n"
        for n in range(ctx.nn):
            if st.kern[n]:
                files["nodes/%s-kernel.log" % ctx.knodes[n]] = kern_text(ctx, st, n, "journal").replace(" %s kernel:" % ctx.hosts[n], " %s kernel:" % ctx.knodes[n].split(".")[0])
        for nm, txt in st.extra.items():
            files[nm] = txt + "\n"
        return files


class RayTrain(Layout):
    """Ray Train TorchTrainer: driver output with (RayTrainWorker pid=, ip=)
    prefixes, RayTaskError / ActorDiedError / TrainingFailedError chains"""
    name = "ray_train"

    def setup(self, ctx):
        r = ctx.rng
        gpn = r.choice([1, 2, 4, 8, 8]) if ctx.cause != "nvlink" else r.choice([4, 8])
        ctx.topo(wmin=2 if ctx.cause != "network" else 4, wmax=64, gpn=gpn)
        if ctx.cause == "network" and ctx.nn == 1:
            ctx.topo(wmin=4, wmax=64, gpn=max(1, gpn // 2) if gpn > 1 else 1)
            if ctx.nn == 1:
                ctx.topo(wmin=8, wmax=64, gpn=4)
        ctx.style = "plain"
        ctx.record = False
        ctx.logstyle = r.choice(["std", "rank"])
        ctx.nccl_debug = r.choice([None, None, "WARN"])
        ctx.ray_ver = r.choice(["2.9.3", "2.10.0", "2.20.0", "2.31.0", "2.35.0"])
        ctx.name_by_ip = True
        ctx.rank_attrib = True
        ctx.force_node_preempt = True
        if ctx.cause == "preemption" and ctx.nn == 1:
            ctx.topo(wmin=8, wmax=64, gpn=4)
        ctx.hosts = ["ip-%s" % ip.replace(".", "-") for ip in ctx.ips]
        ctx.stall_forms = ["later", "heartbeat", "pyspy"]
        ctx.node_preempt_ok = True
        return {"local": None, "glob": r.uniform(0.5, 4.0)}

    def post(self, ctx, st):
        if ctx.cause == "host_oom_kill" and st.init_rank is not None and st.exit.get(st.init_rank, (0, 0, ""))[2] == "kill9":
            n = st.init_node
            st.kern[n] = []
            st.hints["ray_oom"] = True

    def render(self, ctx, st):
        r = ctx.rng
        files = {}
        ctx.max_progress = 100
        rayv = ctx.ray_ver
        newray = rayv >= "2.10"
        T = lambda t: f_log(ctx.T(t, 0))
        drv = []
        t0 = st.t_start - 20
        res_dir = "/home/ray/ray_results/TorchTrainer_%s" % _dt(ctx.T(t0, 0)).strftime("%Y-%m-%d_%H-%M-%S")
        drv.append((t0, "%s\tINFO worker.py:1540 -- Connecting to existing Ray cluster at address: %s:6379..." % (T(t0), ctx.ips[0])))
        drv.append((t0 + 0.3, "%s\tINFO worker.py:1715 -- Connected to Ray cluster. View the dashboard at \x1b[1m\x1b[32mhttp://%s:8265 \x1b[39m\x1b[22m" % (T(t0 + 0.3), ctx.ips[0]) if r.random() < 0.3 else
                    "%s\tINFO worker.py:1715 -- Connected to Ray cluster. View the dashboard at http://%s:8265 " % (T(t0 + 0.3), ctx.ips[0])))
        drv.append((t0 + 2, "%s\tINFO tune.py:622 -- [output] This will use the new output engine with verbosity 1. To disable the new output and use the legacy output engine, set the environment variable RAY_AIR_NEW_OUTPUT=0. For more information, please see https://github.com/ray-project/ray/issues/36949" % T(t0 + 2)))
        drv.append((t0 + 3, ""))
        drv.append((t0 + 3, "View detailed results here: %s" % res_dir))
        drv.append((t0 + 3, "To visualize your results with TensorBoard, run: `tensorboard --logdir /tmp/ray/session_%s/artifacts/%s/TorchTrainer_%s/driver_artifacts`" % (
            _dt(ctx.T(t0 - 500, 0)).strftime("%Y-%m-%d_%H-%M-%S_%f")[:-3], _dt(ctx.T(t0, 0)).strftime("%Y-%m-%d_%H-%M-%S"), _dt(ctx.T(t0, 0)).strftime("%Y-%m-%d_%H-%M-%S"))))
        drv.append((t0 + 3, ""))
        tpid = r.randint(2000, 9000)
        drv.append((t0 + 4, "Training started without custom configuration."))
        pref_t = "(TorchTrainer pid=%d, ip=%s) " % (tpid, ctx.ips[0])
        drv.append((st.t_start - 2, pref_t + "Started distributed worker processes: "))
        for k in range(ctx.W):
            n = ctx.node_of(k)
            drv.append((st.t_start - 2, pref_t + "- (node_id=%s, ip=%s, pid=%d) world_rank=%d, local_rank=%d, node_rank=%d" % (hexid(r, 56), ctx.ips[n], ctx.pids[k], k, ctx.lr(k), n)))
        for k in range(min(ctx.W, 1)):
            drv.append((st.t_start - 1, "(RayTrainWorker pid=%d, ip=%s) Setting up process group for: env:// [rank=%d, world_size=%d]" % (ctx.pids[k], ctx.ips[0], k, ctx.W)))
        # worker lines (deduplicated like Ray does)
        items = []
        for k in range(ctx.W):
            n = ctx.node_of(k)
            pre = "(RayTrainWorker pid=%d, ip=%s) " % (ctx.pids[k], ctx.ips[n])
            it = rank_items(ctx, st, k, "plain", ctx.logstyle, exc_filter=lambda k, t, ex: None)
            items.append([(t, s, pre + l) for t, s, l in it])
        merged = merge(items + [[(t, "out", l) for t, l in drv]])
        dedup = []
        seen = {}
        import re
        for t, s, l in merged:
            m = re.match(r"^(\(RayTrainWorker pid=\d+, ip=[\d.]+\) )(.*)$", l)
            if m:
                key = re.sub(r"\d+", "N", m.group(2))
                if key in seen and t - seen[key][0] < 5.0:
                    seen[key][1] += 1
                    continue
                if key in seen and seen[key][1] > 0:
                    dedup.append((t, s, seen[key][2] + " [repeated %dx across cluster]" % seen[key][1]))
                seen[key] = [t, 0, l]
            dedup.append((t, s, l))
        for key, (t, cnt, l) in seen.items():
            if cnt > 0:
                dedup.append((t + 5, "out", l + " [repeated %dx across cluster]%s" % (cnt, " (Ray deduplicates logs by default. Set RAY_DEDUP_LOGS=0 to disable log deduplication, or see https://docs.ray.io/en/master/ray-observability/user-guides/configure-logging.html#log-deduplication for more options.)" if r.random() < 0.2 else "")))
        dedup.sort(key=lambda x: x[0])
        # failure report
        tail = []
        fails = sorted((v[0], k) for k, v in st.exit.items() if v[1] != 0 and v[2] not in ("term", "int"))
        sched = [s for s in st.sched if s[1] in ("preempt_all", "preempt_node", "cancel", "interrupt")]
        trial = "TorchTrainer_%s_00000" % hexid(r, 5)
        if fails or sched:
            tf = fails[0][0] if fails else sched[0][0]
            k0 = fails[0][1] if fails else None
            if sched and sched[0][1] == "preempt_node" and (not fails or sched[0][0] <= fails[0][0] + 5):
                tf, k0 = sched[0][0] + r.uniform(1, 5), None
            n0 = ctx.node_of(k0) if k0 is not None else (sched[0][2] if sched and sched[0][1] == "preempt_node" else 0)
            raised = [e for e in st.ev[k0] if e[2] == "exc"] if k0 is not None else []
            outer_frames = [Fr(ctx.sp + "/ray/air/execution/_internal/event_manager.py", 110, "resolve_future", "result = ray.get(future)"),
                            Fr(ctx.sp + "/ray/_private/auto_init_hook.py", 21, "auto_init_wrapper", "return fn(*args, **kwargs)"),
                            Fr(ctx.sp + "/ray/_private/client_mode_hook.py", 103, "wrapper", "return func(*args, **kwargs)"),
                            Fr(ctx.sp + "/ray/_private/worker.py", r.choice([2623, 2667, 2753]), "get", "values, debugger_breakpoint = worker.get_objects(object_refs, timeout=timeout)"),
                            Fr(ctx.sp + "/ray/_private/worker.py", r.choice([861, 864, 873]), "get_objects", "raise value.as_instanceof_cause()")]
            aid = hexid(r, 32)
            if raised and st.exit[k0][2] == "exc" and not st.hints.get("ray_oom"):
                inner = raised[-1][3]
                it = inner.etype.split(".")[-1]
                wfr = [Fr(ctx.sp + "/ray/train/_internal/worker_group.py", 33, "__execute", "raise skipped from exception_cause(skipped)"),
                       Fr(ctx.sp + "/ray/train/_internal/utils.py", 169 if newray else 129, "discard_return_wrapper", "train_func(*args, **kwargs)")]
                uf = [f for f in inner.frames if f.func not in ("<module>", "wrapper", "main")]
                body = ["%s: ray::_Inner.train() (pid=%d, ip=%s, actor_id=%s, repr=TorchTrainer)" % ("ray.exceptions.RayTaskError(%s)" % it, tpid, ctx.ips[0], hexid(r, 32)),
                        '  File "%s/ray/tune/trainable/trainable.py", line 331, in train' % ctx.sp, "    raise skipped from exception_cause(skipped)",
                        '  File "%s/ray/train/_internal/utils.py", line 57, in check_for_failure' % ctx.sp, "    ray.get(object_ref)",
                        "ray.exceptions.RayTaskError(%s): ray::_RayTrainWorker__execute.get_next() (pid=%d, ip=%s, actor_id=%s, repr=<ray.train._internal.worker_group.RayTrainWorker object at %s>)" % (
                            it, ctx.pids[k0], ctx.ips[n0], aid, addr(r))]
                for l in fmt_frames(wfr + [Fr(ctx.u(ctx.proj["script"]), r.randint(80, 160), "train_func", "trainer.fit()")] + uf, False):
                    body.append(l)
                inner_lines = fmt_plain(Ex(inner.etype, inner.msg, [], inner.cause, inner.context, inner.group, inner.notes, inner.suppress), ctx.carets)
                if inner.msg == "<cut>":
                    inner_lines = []
                body += inner_lines
                first = ["Traceback (most recent call last):"] + fmt_frames(outer_frames, ctx.carets)
                err_lines = first + body
                final_type = "ray.exceptions.RayTaskError(%s)" % it
            else:
                code = st.exit[k0][1] if k0 is not None else -15
                if st.hints.get("ray_oom"):
                    used = r.uniform(230, 245)
                    tot = used / r.uniform(0.951, 0.99)
                    msg = ("Task was killed due to the node running low on memory.\nMemory on the node (IP: %s, ID: %s) where the task (actor ID: %s, name=RayTrainWorker.__init__, pid=%d, memory used=%.2fGB) was running was %.2fGB / %.2fGB (%f), which exceeds the memory usage threshold of 0.95. Ray killed this worker (ID: %s) because it was the most recently scheduled task; to see more information about memory usage on this node, use `ray logs raylet.out -ip %s`. To see the logs of the worker, use `ray logs worker-%s*out -ip %s. Top 10 memory users:\nPID\tMEM(GB)\tCOMMAND\n%d\t%.2f\tray::RayTrainWorker.train_fn\n%d\t%.2f\tray::RayTrainWorker.train_fn\n%d\t%.2f\tray::RayTrainWorker.train_fn\n%d\t%.2f\tray::IDLE\n"
                           "Refer to the documentation on how to address the out of memory issue: https://docs.ray.io/en/latest/ray-core/scheduling/ray-oom-prevention.html. Consider provisioning more memory on this node or reducing task parallelism by requesting more CPUs per task. To adjust the kill threshold, set the environment variable `RAY_memory_usage_threshold` when starting Ray. To disable worker killing, set the environment variable `RAY_memory_monitor_refresh_ms` to zero.") % (
                        ctx.ips[n0], hexid(r, 56), aid, ctx.pids[k0], r.uniform(40, 90), used, tot, used / tot, hexid(r, 56), ctx.ips[n0], hexid(r, 56), ctx.ips[n0],
                        ctx.pids[k0], r.uniform(40, 90), ctx.pids[k0] + 3, r.uniform(20, 40), ctx.pids[k0] + 7, r.uniform(20, 40), r.randint(3000, 9000), r.uniform(0.1, 1))
                    final_type = "ray.exceptions.OutOfMemoryError"
                    dedup.append((tf + 1, "err", "(raylet, ip=%s) [%s E %d %d] (raylet) node_manager.cc:%d: 1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: %s, IP: %s) over the last time period. To see more information about the Workers killed on this node, use `ray logs raylet.out -ip %s`" % (
                        ctx.ips[n0], f_log(ctx.T(tf, n0)), r.randint(1000, 3000), r.randint(1000, 3000), r.choice([3040, 3069, 3102]), hexid(r, 56), ctx.ips[n0], ctx.ips[n0])))
                    files["ray_logs/%s/raylet.out" % ctx.ips[n0]] = "[%s I %d %d] (raylet) memory_monitor.cc:%d: Node memory usage %.2fGB / %.2fGB exceeds the threshold 0.95\n[%s I %d %d] (raylet) node_manager.cc:%d: Killing worker with PID %d (RayTrainWorker.train_fn) because the node is running low on memory.\n" % (
                        f_log(ctx.T(tf - 1, n0)), 2088, 2088, r.randint(100, 200), used, tot, f_log(ctx.T(tf - 0.2, n0)), 2088, 2088, r.randint(2900, 3100), ctx.pids[k0])
                else:
                    why = ("The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors."
                           if not (sched and sched[0][1] == "preempt_node") else
                           "The actor died because its node has died. Node Id: %s\n\tthe actor's node was terminated expectedly: received SIGTERM" % hexid(r, 56))
                    msg = "The actor died unexpectedly before finishing this task.\n\tclass_name: RayTrainWorker\n\tactor_id: %s\n\tpid: %d\n\tname: \n\tnamespace: %s\n\tip: %s\n%s" % (
                        aid, ctx.pids[k0] if k0 is not None else ctx.pids[ctx.ranks_on(n0)[0]], "%s-%s-%s-%s-%s" % (hexid(r, 8), hexid(r, 4), hexid(r, 4), hexid(r, 4), hexid(r, 12)), ctx.ips[n0], why)
                    final_type = "ray.exceptions.ActorDiedError" if newray else "ray.exceptions.RayActorError"
                    if not (sched and sched[0][1] == "preempt_node"):
                        dedup.append((tf + 0.5, "err", "(raylet, ip=%s) A worker died or was killed while executing a task by an unexpected system error. To troubleshoot the problem, check the logs for the dead worker. RayTask ID: %s Worker ID: %s Node ID: %s Worker IP address: %s Worker port: %d Worker PID: %d Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors." % (
                            ctx.ips[n0], "ffffffffffffffff" + hexid(r, 32), hexid(r, 56), hexid(r, 56), ctx.ips[n0], r.randint(10000, 11000), ctx.pids[k0] if k0 is not None else 0)))
                    else:
                        dedup.append((tf + 0.5, "err", "(autoscaler +%ds) Removing 1 nodes of type gpu-worker (preempted)." % r.randint(10, 999)))
                err_lines = ["Traceback (most recent call last):"] + fmt_frames(outer_frames, ctx.carets) + (final_type + ": " + msg).split("\n")
            te = tf + r.uniform(2, 10)
            tail.append((te, "%s\tERROR tune_controller.py:1331 -- Trial task failed for trial %s" % (T(te), trial)))
            for i, l in enumerate(err_lines):
                tail.append((te + i * 1e-5, l))
            te2 = te + 1
            tail.append((te2, ""))
            tail.append((te2, "Training errored after %d iterations at %s. Total running time: %s" % (max(1, st.hints.get("last_logged_step", 100) // 100), _dt(ctx.T(te2, 0)).strftime("%Y-%m-%d %H:%M:%S"), hms_dur(te2 - t0).replace(":", "hr ", 1).replace(":", "min ", 1) + "s")))
            tail.append((te2, "Error file: %s/%s_0_%s/error.txt" % (res_dir, trial, _dt(ctx.T(t0, 0)).strftime("%Y-%m-%d_%H-%M-%S"))))
            tail.append((te2, ""))
            tf_ex = Ex("ray.train.base_trainer.TrainingFailedError",
                       "The Ray Train run failed. Please inspect the previous error messages for a cause. After fixing the issue (assuming that the error is not caused by your own application logic, but rather an error such as OOM), you can restart the run from scratch or continue this run.\nTo continue this run, you can use: `trainer = TorchTrainer.restore(\"%s\")`.\nTo start a new run that will retry on training failures, set `train.RunConfig(failure_config=train.FailureConfig(max_failures))` in the Trainer's `run_config` with `max_failures > 0`, or `max_failures = -1` for unlimited retries." % res_dir,
                       [Fr(ctx.u(ctx.proj["script"]), r.randint(200, 260), "<module>", "result = trainer.fit()"),
                        Fr(ctx.sp + "/ray/train/base_trainer.py", r.choice([638, 661, 822]), "fit", "raise TrainingFailedError(")],
                       cause=Ex(final_type if "RayTaskError" not in final_type else final_type, "<chained>", []))
            cause_lines = err_lines[len(fmt_frames(outer_frames, ctx.carets)) + 1:]
            chain = [l for l in cause_lines] + ["", "The above exception was the direct cause of the following exception:", ""] + \
                ["Traceback (most recent call last):"] + fmt_frames(tf_ex.frames, ctx.carets) + exc_only(Ex(tf_ex.etype, tf_ex.msg, []))
            for i, l in enumerate(chain):
                tail.append((te2 + 0.5 + i * 1e-5, l))
            cut = te2 + 5
            dedup = [x for x in dedup if x[0] <= cut]
        elif st.healthy:
            te = st.end_time() + 3
            tail.append((te, ""))
            tail.append((te, "Training completed after %d iterations at %s. Total running time: %s" % (st.total_steps // 100, _dt(ctx.T(te, 0)).strftime("%Y-%m-%d %H:%M:%S"), hms_dur(te - t0))))
            tail.append((te + 1, "Result(metrics={'loss': %.4f, 'step': %d}, path='%s/TorchTrainer_%s_00000_0', filesystem='local', checkpoint=Checkpoint(filesystem=local, path=%s/TorchTrainer_%s_00000_0/checkpoint_000%03d))" % (
                r.uniform(1.5, 2.2), st.total_steps, res_dir, hexid(r, 5), res_dir, hexid(r, 5), r.randint(10, 99))))
        allv = dedup + [(t, "out", l) for t, l in tail]
        allv.sort(key=lambda x: x[0])
        files["driver.log"] = "\n".join(x[2] for x in allv) + "\n"
        # the culprit worker's own stderr file
        if st.init_rank is not None and r.random() < 0.6:
            k = st.init_rank
            it = rank_items(ctx, st, k, "plain", ctx.logstyle, ("err",), exc_filter=lambda k, t, ex: None)
            files["ray_logs/%s/worker-%s-01000000-%d.err" % (ctx.ips[ctx.node_of(k)], hexid(r, 56), ctx.pids[k])] = ":job_id:01000000\n:actor_name:RayTrainWorker\n" + "\n".join(x[2] for x in it) + "\n"
        for n in range(ctx.nn):
            if st.kern[n]:
                files["node_%s_dmesg.txt" % ctx.ips[n]] = kern_text(ctx, st, n, r.choice(["T", "raw"]))
        for nm, txt in st.extra.items():
            files[nm] = txt + "\n"
        return files


class DeepSpeedPdsh(Layout):
    """deepspeed launcher over pdsh: one console (tee'd) where every remote
    line carries the 'host: ' pdsh prefix; launch.py sigkill_handler lines"""
    name = "deepspeed_pdsh"

    def setup(self, ctx):
        r = ctx.rng
        ctx.topo(wmin=8 if ctx.cause != "network" else 16, wmax=128, gpn=8)
        ctx.hosts = ["node%d" % i if r.random() < 0 else h for i, h in enumerate(ctx.hosts)]
        ctx.style = pick_style(ctx, [("plain", 5), ("loguru", 2), ("better", 2)])
        ctx.loguru_swallow = ctx.style == "loguru" and r.random() < 0.3
        ctx.logstyle = "loguru" if ctx.style == "loguru" else "ds"
        ctx.stepfmt = "ds"
        ctx.record = False
        ctx.ds_ver = r.choice(["0.12.6", "0.13.5", "0.14.4", "0.15.4", "0.16.2"])
        ctx.nccl_debug = r.choice([None, "WARN", "INFO"])
        ctx.node_preempt_ok = False
        ctx.stall_forms = ["later", "pyspy", "heartbeat"]
        return {"local": r.uniform(0.05, 1.2), "glob": None}

    def post(self, ctx, st):
        r = ctx.rng
        # fp16/bf16 loss-scale overflow chatter and DS init lines
        for k in range(ctx.W):
            if k in st.full_ranks or ctx.W <= 32:
                st.log(k, st.t_init - r.uniform(1, 5), "INFO", "cdb=None", None)
        st.log(0, st.t_init - 0.5, "INFO", "Initializing TorchBackend in DeepSpeed with backend nccl", None)
        st.log(0, st.t_init + 5, "INFO", "[Rank 0] DeepSpeed info: version=%s, git-hash=unknown, git-branch=unknown" % ctx.ds_ver, None)
        st.log(0, st.t_init + 9, "INFO", "[Rank 0] Creating ZeRO Offload" if r.random() < 0.2 else "[Rank 0] Creating BF16 optimizer", None)
        if r.random() < 0.5:
            for j in range(r.randint(1, 4)):
                st.log(0, st.t_train + r.uniform(5, 600), "INFO", "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: %d, reducing to %d" % (2 ** (16 - j), 2 ** (15 - j)), None)

    def render(self, ctx, st):
        r = ctx.rng
        files = {}
        ctx.max_progress = 120
        T = lambda t, n=0: f_log(ctx.T(t, n))
        cmd = lambda lr: "['%s', '-u', '%s', '--local_rank=%d', '--deepspeed', 'ds_config.json']" % (ctx.pybin, ctx.proj["script"], lr)
        pre = []
        t0 = st.t_start - 6
        pre.append((t0, "[%s] [INFO] [real_accelerator.py:203:get_accelerator] Setting ds_accelerator to cuda (auto detect)" % T(t0)))
        pre.append((t0 + 1, "[%s] [INFO] [runner.py:463:main] Using IP address of %s for node %s" % (T(t0 + 1), ctx.ips[0], ctx.hosts[0])))
        pre.append((t0 + 1, "[%s] [INFO] [multinode_runner.py:80:get_cmd] Running on the following workers: %s" % (T(t0 + 1), ",".join(ctx.hosts))))
        wi = "{" + ", ".join("'%s': %s" % (h, list(range(ctx.gpn))) for h in ctx.hosts) + "}"
        pre.append((t0 + 1, "[%s] [INFO] [runner.py:568:main] cmd = pdsh -S -f 1024 -w %s export PYTHONPATH=%s; export NCCL_DEBUG=%s;  cd %s; %s -u -m deepspeed.launcher.launch --world_info=%s --node_rank=%%n --master_addr=%s --master_port=%d %s --deepspeed ds_config.json" % (
            T(t0 + 1), ",".join(ctx.hosts), ctx.proj["root"], ctx.nccl_debug or "WARN", ctx.proj["root"], ctx.pybin, hexid(r, 40), ctx.ips[0], ctx.port, ctx.proj["script"])))
        items = [[(t, "out", l) for t, l in pre]]
        node_ev = {n: [] for n in range(ctx.nn)}
        for n in range(ctx.nn):
            tl = st.t_start - 4 + r.uniform(0, 1)
            L = node_ev[n]
            L.append((tl, "[%s] [INFO] [real_accelerator.py:203:get_accelerator] Setting ds_accelerator to cuda (auto detect)" % T(tl, n)))
            L.append((tl + 1, "[%s] [INFO] [launch.py:146:main] WORLD INFO DICT: %s" % (T(tl + 1, n), wi)))
            L.append((tl + 1, "[%s] [INFO] [launch.py:152:main] nnodes=%d, num_local_procs=%d, node_rank=%d" % (T(tl + 1, n), ctx.nn, ctx.gpn, n)))
            L.append((tl + 1, "[%s] [INFO] [launch.py:163:main] global_rank_mapping=defaultdict(<class 'list'>, {%s})" % (T(tl + 1, n), ", ".join("'%s': %s" % (h, ctx.ranks_on(i)) for i, h in enumerate(ctx.hosts)))))
            L.append((tl + 1, "[%s] [INFO] [launch.py:164:main] dist_world_size=%d" % (T(tl + 1, n), ctx.W)))
            L.append((tl + 1, "[%s] [INFO] [launch.py:168:main] Setting CUDA_VISIBLE_DEVICES=%s" % (T(tl + 1, n), ",".join(str(i) for i in range(ctx.gpn)))))
            for k in ctx.ranks_on(n):
                L.append((tl + 1.2, "[%s] [INFO] [launch.py:256:main] process %d spawned with command: %s" % (T(tl + 1.2, n), ctx.pids[k], cmd(ctx.lr(k)))))
            loc = ctx.ranks_on(n)
            ex = {k: st.exit[k] for k in loc if k in st.exit}
            fails = sorted((v[0], k) for k, v in ex.items() if v[1] != 0 and v[2] not in ("term", "int"))
            sched = [s for s in st.sched if s[1] in ("preempt_all", "cancel", "interrupt")]
            if sched and (not fails or sched[0][0] <= fails[0][0]):
                ts = sched[0][0] + r.uniform(0, 0.3)
                sig = "SIGINT" if sched[0][1] == "interrupt" else "SIGTERM"
                for k in loc:
                    L.append((ts, "[%s] [INFO] [launch.py:319:sigkill_handler] Killing subprocess %d" % (T(ts, n), ctx.pids[k])))
                L.append((ts + 0.05, "[%s] [INFO] [launch.py:330:sigkill_handler] Main process received %s, exiting" % (T(ts + 0.05, n), sig)))
            elif fails:
                tdet = fails[0][0] + r.uniform(0.01, 1.0)
                code = ex[fails[0][1]][1]
                for k in loc:
                    L.append((tdet, "[%s] [INFO] [launch.py:319:sigkill_handler] Killing subprocess %d" % (T(tdet, n), ctx.pids[k])))
                L.append((tdet + 0.02, "[%s] [ERROR] [launch.py:325:sigkill_handler] %s exits with return code = %d" % (T(tdet + 0.02, n), cmd(ctx.gpn - 1), code)))
                node_ev[n].append((tdet + 0.5, "__PDSH__ %d" % (code & 0xff)))
            elif ex and len(ex) == len(loc) and all(v[1] == 0 for v in ex.values()):
                for k in loc:
                    te = ex[k][0] + 0.5
                    L.append((te, "[%s] [INFO] [launch.py:351:main] Process %d exits successfully." % (T(te, n), ctx.pids[k])))
        for n in range(ctx.nn):
            h = ctx.hosts[n]
            out = []
            for t, l in node_ev[n]:
                if l.startswith("__PDSH__"):
                    out.append((t, "err", "pdsh@%s: %s: ssh exited with exit code %s" % (ctx.hosts[0], h, l.split()[1])))
                else:
                    out.append((t, "out", "%s: %s" % (h, l)))
            items.append(out)
            for k in ctx.ranks_on(n):
                it = rank_items(ctx, st, k, ctx.style, ctx.logstyle)
                items.append([(t, s, "%s: %s" % (h, l)) for t, s, l in it])
        sch = [s for s in st.sched if s[1] == "preempt_all"]
        if sch:
            items.append([(sch[0][0] - 0.05, "err", "slurmstepd: error: *** JOB %s ON %s CANCELLED AT %s DUE TO %s ***" % (ctx.jobid, ctx.hosts[0], f_iso(ctx.T(sch[0][0], 0)), sch[0][2]))])
        lines = merge(items)
        files[r.choice(["train.log", "ds_train_%s.log" % _dt(ctx.t0).strftime("%m%d"), "output.txt"])] = "\n".join(x[2] for x in lines) + "\n"
        files["hostfile"] = "\n".join("%s slots=%d" % (h, ctx.gpn) for h in ctx.hosts) + "\n"
        files["ds_config.json"] = json.dumps({"train_micro_batch_size_per_gpu": r.choice([1, 2, 4, 8]), "gradient_accumulation_steps": r.choice([1, 2, 4, 8]),
                                              "bf16": {"enabled": True}, "zero_optimization": {"stage": r.choice([1, 2, 3]), "overlap_comm": True,
                                                                                                "contiguous_gradients": True, "reduce_bucket_size": 5e8},
                                              "gradient_clipping": 1.0, "steps_per_print": r.choice([10, 50, 100]), "wall_clock_breakdown": False}, indent=2) + "\n"
        for n in range(ctx.nn):
            if st.kern[n] and (r.random() < 0.9 or need_kern(ctx, st, n)):
                files["dmesg_%s.txt" % ctx.hosts[n]] = kern_text(ctx, st, n, r.choice(["T", "journal", "raw"]))
        for nm, txt in st.extra.items():
            files[nm] = txt + "\n"
        return files


def output_code_dump(ctx, r, rank, wall):
    pfx = "%s %d torch/_inductor/graph.py:%d] [0/0] [__output_code] " % (f_glog("V", wall), ctx.pids[rank], {1: 1199, 2: 1314, 3: 1314, 4: 1780, 5: 1988, 6: 2027}[ctx.tv])
    if ctx.tv <= 1:
        pfx = "[%s] [0/0] torch._inductor.graph.__output_code: [DEBUG] " % f_log(wall)
    code = ["Output code: ", "", "# AOT ID: ['0_forward']", "from ctypes import c_void_p, c_long, c_int", "import torch", "import math", "import random", "import os",
            "import tempfile", "from math import inf, nan", "from torch._inductor.hooks import run_intermediate_hooks", "from torch._inductor.utils import maybe_profile",
            "from torch._inductor.codegen.memory_planning import _align as align", "from torch import device, empty_strided",
            "from torch._inductor.async_compile import AsyncCompile", "from torch._inductor.select_algorithm import extern_kernels",
            "from torch._inductor.codegen.multi_kernel import MultiKernelCall", "import triton", "import triton.language as tl",
            "from torch._inductor.runtime.triton_heuristics import grid, split_scan_grid, grid_combo_kernels, start_graph, end_graph",
            "", "aten = torch.ops.aten", "inductor_ops = torch.ops.inductor", "_quantized = torch.ops._quantized",
            "assert_size_stride = torch._C._dynamo.guards.assert_size_stride", "empty_strided_cpu = torch._C._dynamo.guards._empty_strided_cpu",
            "empty_strided_cuda = torch._C._dynamo.guards._empty_strided_cuda", "reinterpret_tensor = torch._C._dynamo.guards._reinterpret_tensor",
            "alloc_from_pool = torch.ops.inductor._alloc_from_pool", "async_compile = AsyncCompile()", ""]
    for kk in range(r.randint(2, 4)):
        name = r.choice(["triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_%d", "triton_poi_fused_add_mul_silu_%d", "triton_per_fused__softmax_%d", "triton_poi_fused_cat_%d"]) % kk
        code += ["", "# kernel path: /tmp/torchinductor_%s/%s/c%s.py" % (ctx.user, hexid(r, 2), hexid(r, 50)),
                 "# Source Nodes: [%s], Original ATen: [aten.add, aten.mul]" % ", ".join(r.sample(["add", "mul", "h", "rsqrt", "mean", "silu", "to", "x_1", "pow_1"], 4)),
                 "%s = async_compile.triton('%s', '''" % (name, name), "import triton", "import triton.language as tl",
                 "from triton.compiler.compiler import AttrsDescriptor", "",
                 "from torch._inductor.runtime import triton_helpers, triton_heuristics",
                 "from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math",
                 "from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties",
                 "triton_helpers.set_driver_to_gpu()" if ctx.tv >= 6 else "",
                 "@triton_heuristics.pointwise(", "    size_hints=[%d], " % r.choice([16777216, 67108864, 8388608]),
                 "    filename=__file__,",
                 "    triton_meta={'signature': {0: '*bf16', 1: '*bf16', 2: '*bf16', 3: 'i32'}, 'device': DeviceProperties(type='cuda', index=%d, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, multi_processor_count=132), 'constants': {}, 'configs': [AttrsDescriptor(divisible_by_16=(0, 1, 2, 3), equal_to_1=())]}," % ctx.lr(rank),
                 "    inductor_meta={'autotune_hints': set(), 'kernel_name': '%s', 'mutated_arg_names': [], 'no_x_dim': False, 'num_load': 2, 'num_reduction': 0, 'backend_hash': '%s'}," % (name, hexid(r, 64).upper()),
                 "    min_elem_per_thread=0", ")", "@triton.jit",
                 "def %s(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):" % name,
                 "    xoffset = tl.program_id(0) * XBLOCK", "    xindex = xoffset + tl.arange(0, XBLOCK)[:]", "    xmask = xindex < xnumel",
                 "    x2 = xindex", "    x0 = xindex %% %d" % r.choice([4096, 5120, 8192]),
                 "    tmp0 = tl.load(in_ptr0 + (x2), None).to(tl.float32)", "    tmp2 = tl.load(in_ptr1 + (x0), None, eviction_policy='evict_last').to(tl.float32)",
                 "    tmp1 = tmp0.to(tl.float32)", "    tmp3 = tmp1 * tmp2", "    tmp4 = tmp3.to(tl.float32)",
                 "    tl.store(out_ptr0 + (x2), tmp4, None)", "''', device_str='cuda')", ""]
    code += ["", "async_compile.wait(globals())", "del async_compile", "", "def call(args):",
             "    primals_1, primals_2, primals_3 = args", "    args.clear()",
             "    assert_size_stride(primals_1, (%d, %d), (%d, 1))" % (r.choice([32000, 128256]), 4096, 4096),
             "    with torch.cuda._DeviceGuard(%d):" % ctx.lr(rank), "        torch.cuda.set_device(%d)" % ctx.lr(rank),
             "        buf0 = empty_strided_cuda((%d, 2048, 4096), (8388608, 4096, 1), torch.bfloat16)" % r.choice([1, 2, 4]),
             "        # Topologically Sorted Source Nodes: [h], Original ATen: [aten.embedding]",
             "        stream%d = get_raw_stream(%d)" % (ctx.lr(rank), ctx.lr(rank)),
             "        triton_poi_fused_embedding_0.run(primals_2, primals_1, buf0, 33554432, grid=grid(33554432), stream=stream%d)" % ctx.lr(rank),
             "    return (buf0, primals_1, primals_2, )", ""]
    return [pfx + l for l in code]


class CompileInductor(Layout):
    """torchrun --tee 3 consoles of a torch.compile'd model: dynamo / inductor /
    triton wrappers, generated-code dumps, recompile chatter"""
    name = "compile_inductor"

    def setup(self, ctx):
        r = ctx.rng
        ctx.flavor = "compile"
        if ctx.cause in ("network",) or r.random() < 0.4:
            ctx.topo(wmin=16, wmax=32, gpn=8)
        else:
            ctx.topo(single=True, gpn=8)
        ctx.style = pick_style(ctx, [("plain", 7), ("rich", 2), ("better", 1)])
        ctx.logstyle = r.choice(["std", "rank"])
        ctx.nccl_debug = r.choice([None, "WARN", "INFO"])
        ctx.run_id = r.choice(["none", hexid(r, 8)])
        ctx.rich_width = r.choice([100, 120])
        ctx.rich_locals = False
        ctx.stall_forms = ["later", "pyspy", "heartbeat"]
        ctx.node_preempt_ok = ctx.nn > 1
        ctx.rank_attrib = True
        return {"local": r.uniform(0.1, 5.0), "glob": None}

    def post(self, ctx, st):
        r = ctx.rng
        t1 = st.t_train - r.uniform(20, 120)
        if not (st.hints.get("pyexc") in ("dynamo", "lowering") or (st.init_rank is not None and any(e[2] == "exc" and "BackendCompilerFailed" in e[3].etype for e in st.ev[st.init_rank]))):
            st.txt(0, t1, "\n".join(output_code_dump(ctx, r, 0, ctx.T(t1, 0))))
        if r.random() < 0.6:
            for k in r.sample(range(ctx.W), min(ctx.W, r.randint(1, 3))):
                tt = st.t_train + r.uniform(30, 900)
                st.txt(k, tt, "\n".join(("%s %d torch/_dynamo/guards.py:%d] [0/1] [__recompiles] " % (f_glog("V", st.wall(k, tt)), ctx.pids[k], 2791 if ctx.tv >= 5 else 1425)) + l for l in [
                    "Recompiling function forward in %s:%d" % (ctx.u(ctx.proj["model"]), r.randint(300, 420)),
                    "    triggered by the following guard failure(s):",
                    "    - 0/0: tensor 'L['%s']' size mismatch at index 1. expected %d, actual %d" % (r.choice(["x", "tokens", "input_ids"]), 2048, r.randint(1500, 2047))]))
        if r.random() < 0.5:
            tt = st.t_train - r.uniform(5, 15)
            st.txt(0, tt, "\n".join(["AUTOTUNE mm(%dx4096, 4096x%d)" % (r.choice([8192, 16384]), r.choice([11008, 14336, 4096])),
                                     "  triton_mm_%d 0.%04d ms 100.0%%" % (r.randint(1, 40), r.randint(1000, 9999)),
                                     "  mm 0.%04d ms 96.2%%" % r.randint(1000, 9999),
                                     "  triton_mm_%d 0.%04d ms 88.1%%" % (r.randint(1, 40), r.randint(1000, 9999)),
                                     "SingleProcess AUTOTUNE benchmarking takes %.4f seconds and %.4f seconds precompiling" % (r.uniform(1, 9), r.uniform(0, 2))]))
        if r.random() < 0.5:
            st.txt(0, st.t_train + 1, "skipping cudagraphs due to mutated inputs (%d instances). Found from : " % r.randint(1, 4))
        sh = st.hints.get("straggler")
        if sh and sh.get("rank") is not None and r.random() < 0.7:
            k = sh["rank"]
            for j in range(8):
                tt = st.t_train + 200 * (j + 1) + r.uniform(0, 50)
                if tt > st.t_fail:
                    break
                st.txt(k, tt, "\n".join(("%s %d torch/_dynamo/guards.py:%d] [0/%d] [__recompiles] " % (f_glog("V", st.wall(k, tt)), ctx.pids[k], 2791 if ctx.tv >= 5 else 1425, j + 1)) + l for l in [
                    "Recompiling function forward in %s:%d" % (ctx.u(ctx.proj["model"]), 330),
                    "    triggered by the following guard failure(s):",
                    "    - 0/%d: tensor 'L['x']' size mismatch at index 1. expected %d, actual %d" % (j, r.randint(1500, 2048), r.randint(1500, 2048))]))
            tt = st.t_train + 1800
            if tt < st.t_fail:
                st.txt(k, tt, "%s %d torch/_dynamo/convert_frame.py:%d] torch._dynamo hit config.cache_size_limit (8)\n   function: 'forward' (%s:330)\n   last reason: 0/7: tensor 'L['x']' size mismatch at index 1. expected 1791, actual 1652\nTo log all recompilation reasons, use TORCH_LOGS=\"recompiles\".\nTo diagnose recompilation issues, see https://pytorch.org/docs/main/torch.compiler_troubleshooting.html." % (
                    f_glog("W", st.wall(k, tt)), ctx.pids[k], 844 if ctx.tv <= 4 else 919, ctx.u(ctx.proj["model"])))

    def render(self, ctx, st):
        r = ctx.rng
        files = {}
        ctx.max_progress = 100
        for n in range(ctx.nn):
            lines, root = node_console(ctx, st, n, ctx.style, ctx.logstyle, tee_prefix, info=r.random() < 0.3)
            nm = "console.log" if ctx.nn == 1 else "console_%s.log" % ctx.hosts[n]
            files[nm] = "\n".join(x[2] for x in lines) + "\n"
        for n in range(ctx.nn):
            if st.kern[n] and (r.random() < 0.85 or need_kern(ctx, st, n)):
                files["dmesg_%s.txt" % ctx.hosts[n]] = kern_text(ctx, st, n, r.choice(["T", "journal"]))
        for nm, txt in st.extra.items():
            files[nm] = txt + "\n"
        return files


def collect_env(ctx, r):
    return "\n".join([
        "Collecting environment information...",
        "PyTorch version: %s+cu%s" % (ctx.torch_ver, ctx.cuda.replace(".", "")),
        "Is debug build: False",
        "CUDA used to build PyTorch: %s" % ctx.cuda,
        "ROCM used to build PyTorch: N/A", "",
        "OS: Ubuntu 22.04.4 LTS (x86_64)",
        "GCC version: (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0",
        "Clang version: Could not collect",
        "CMake version: version 3.29.2",
        "Libc version: glibc-2.35", "",
        "Python version: %s.%d (main, %s) [GCC 11.4.0] (64-bit runtime)" % (ctx.py, r.randint(4, 14), _dt(ctx.t0 - 9e6).strftime("%b %d %Y, %H:%M:%S")),
        "Python platform: Linux-5.15.0-1053-nvidia-x86_64-with-glibc2.35",
        "Is CUDA available: True",
        "CUDA runtime version: %s.%d" % (ctx.cuda, r.randint(60, 140)),
        "CUDA_MODULE_LOADING set to: LAZY",
        "GPU models and configuration: ",
    ] + ["GPU %d: %s" % (i, ctx.gpu_name) for i in range(ctx.gpn)] + [
        "",
        "Nvidia driver version: %s" % r.choice(["535.161.08", "550.54.15", "550.90.07"]),
        "cuDNN version: Probably one of the following:",
        "/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0",
        "HIP runtime version: N/A", "MIOpen runtime version: N/A", "Is XNNPACK available: True", "",
        "Versions of relevant libraries:",
        "[pip3] numpy==%s" % r.choice(["1.26.4", "1.24.4", "2.0.1"]),
        "[pip3] torch==%s" % ctx.torch_ver,
        "[pip3] triton==%s" % {1: "2.1.0", 2: "2.2.0", 3: "2.3.1", 4: "3.0.0", 5: "3.1.0", 6: "3.2.0"}[ctx.tv],
        "[pip3] nvidia-nccl-cu12==%s" % ctx.nccl,
        "[conda] Could not collect", ""])


class IssuePaste(Layout):
    """a GitHub-issue style report: the user's description and the parts of
    the logs they chose to paste (trimmed), collect_env output attached"""
    name = "issue_paste"

    def setup(self, ctx):
        r = ctx.rng
        ctx.topo(wmin=2 if ctx.cause not in ("network",) else 16, wmax=256, gpn=r.choice([8, 8, 4]))
        ctx.style = pick_style(ctx, [("plain", 4), ("loguru", 2), ("better", 2), ("rich", 2)])
        ctx.loguru_swallow = False
        ctx.logstyle = "loguru" if ctx.style == "loguru" else "std"
        ctx.rich_width = r.choice([80, 100])
        ctx.rich_locals = r.random() < 0.5
        ctx.nccl_debug = r.choice([None, None, "WARN"])
        ctx.run_id = "none"
        ctx.stall_forms = ["later", "pyspy", "heartbeat"]
        return {"local": r.uniform(0.1, 5.0), "glob": None}

    def render(self, ctx, st):
        r = ctx.rng
        files = {}
        ctx.max_progress = 80
        cons = {}
        for n in range(ctx.nn):
            lines, root = node_console(ctx, st, n, ctx.style, ctx.logstyle, None)
            cons[n] = [x[2] for x in lines]
        hrs = (st.end_time() - st.t_start) / 3600.0
        md = []
        gpu_short = ctx.gpu_name.replace("NVIDIA ", "")
        title = r.choice(["Training crashes after ~%.0f hours on %d nodes (NCCL timeout?)" % (max(1, hrs), ctx.nn),
                          "ChildFailedError when training on %d x %d %s" % (ctx.nn, ctx.gpn, gpu_short),
                          "Multi-node job dies with SIGABRT / watchdog timeout",
                          "Random crash mid-training, no idea which rank is the problem",
                          "[distributed] job hangs then gets killed, %s" % ctx.torch_ver])
        if st.healthy:
            title = r.choice(["Lots of scary warnings/tracebacks in the log but the run finished - are these expected?",
                              "Is this traceback in my log something to worry about? (training completed)"])
        md += ["# %s" % title, "", "### 🐛 Describe the bug", ""]
        guess = r.choice(["I suspect a network/NCCL problem since the error mentions NCCL.",
                          "Not sure if this is a PyTorch bug or something with our cluster.",
                          "It worked fine on a single node.", "Same code ran for days last month on the older image.",
                          "Any pointers on how to figure out which rank is the culprit would be appreciated."])
        md += ["We are training %s on %d node(s) with %d GPUs each (%s). %s" % (
            ctx.proj["mcls"], ctx.nn, ctx.gpn, gpu_short,
            "The run finished, but the logs are full of tracebacks." if st.healthy else
            "After about %.1f hours the job died. %s" % (hrs, guess)), ""]
        md += ["Launch (same on every node):", "", "```bash",
               "torchrun --nnodes=%d --nproc-per-node=%d --rdzv-backend=c10d --rdzv-endpoint=%s:%d %s --config configs/%s.yaml" % (
                   ctx.nn, ctx.gpn, ctx.hosts[0], ctx.port, ctx.proj["script"], ctx.proj["name"]), "```", ""]
        c0 = cons[0]
        head = c0[:r.randint(4, 12)]
        tail_n = r.randint(40, 140)
        tail = c0[-tail_n:] if len(c0) > tail_n else c0
        md += ["Output on node 0 (`%s`), trimmed:" % ctx.hosts[0], "", "```"]
        md += head
        if len(c0) > len(head) + len(tail):
            md.append(r.choice(["...", "[... %d lines trimmed ...]" % (len(c0) - len(head) - len(tail)), "<snip>"]))
        md += tail
        md += ["```", ""]
        # evidence from the culprit / other nodes
        ev_needed = not st.healthy and ctx.cause not in ("preemption",)
        k = st.init_rank
        n = st.init_node
        if k is None and n is None and getattr(st, "culprits", None) and ctx.cause not in ("preemption",):
            k = st.culprits[0]
        shown_init = False
        if ev_needed and (n is not None or k is not None):
            nn_ = n if n is not None else ctx.node_of(k)
            cl = cons[nn_]
            idx = None
            strong = ("Timeout (0:", "heartbeat: rank", "Got disconnected", "Detected mismatch", "Fatal Python error", "Assertion `",
                      "ERROR: Unexpected", "free()", "double free", "corrupted", "terminate called", "An error has been caught")
            weak = ("Traceback (most recent call last)", "╭", "Exception Group Traceback")
            last_prog = max([i for i, l in enumerate(cl) if re.search(r"step[ =]+\d|'loss'|\[step ", l)] or [0])
            for group in (strong, weak):
                for i, l in enumerate(cl):
                    if i >= last_prog - 2 and any(s_ in l for s_ in group):
                        idx = i
                        break
                if idx is not None:
                    break
            if nn_ == 0:
                start_tail = len(c0) - len(tail)
                if idx is not None and idx < start_tail:
                    seg = c0[max(0, idx - 3): min(start_tail, idx + r.randint(50, 140))]
                    md += ["Further up in the same log there is also this:", "", "```"] + seg + ["```", ""]
                shown_init = True
            else:
                if idx is None:
                    idx = max(0, len(cl) - r.randint(60, 120))
                seg = cl[max(0, idx - 3): idx + r.randint(60, 160)]
                if seg:
                    md += ["On `%s`%s the output looks different:" % (ctx.hosts[nn_], " (ranks %d-%d)" % (nn_ * ctx.gpn, nn_ * ctx.gpn + ctx.gpn - 1)), "", "```"] + seg + ["```", ""]
                    shown_init = True
                    tailn = cl[-r.randint(25, 45):]
                    if not any("ChildFailedError" in l for l in seg) and any("Root Cause" in l for l in tailn):
                        md += ["and at the end of that node's log:", "", "```"] + tailn + ["```", ""]
            sev = st.hints.get("stall_evidence")
            if sev == "heartbeat":
                hb = [l for l in c0 if "heartbeat: rank" in l]
                if hb:
                    md += ["Before it died, our progress watchdog on rank 0 kept printing:", "", "```"] + hb[:6] + ["```", ""]
            elif sev == "later" and k is not None:
                own = [x[2] for x in rank_items(ctx, st, k, ctx.style, ctx.logstyle)]
                i0 = next((i for i, l in enumerate(own) if l.startswith("Timeout (0:")), None)
                if i0 is not None:
                    blk = own[i0:i0 + 40]
                    j = next((q for q in range(1, len(blk)) if blk[q].startswith("Timeout (0:") or blk[q].startswith("[rank")), len(blk))
                    md += ["We have `faulthandler.dump_traceback_later` enabled; this is the dump from local rank %d on `%s`:" % (ctx.lr(k), ctx.hosts[ctx.node_of(k)]),
                           "", "```"] + blk[:j] + ["```", ""]
            if any(st.kern[m] for m in range(ctx.nn)):
                for m in range(ctx.nn):
                    if st.kern[m]:
                        kl = kern_text(ctx, st, m, "T", extra_noise=False).strip().split("\n")
                        md += ["Our admin found this in `dmesg -T` on `%s`:" % ctx.hosts[m], "", "```"] + kl[:60] + ["```", ""]
            for nm, txt in st.extra.items():
                md += ["`%s`:" % nm.split("_")[0].replace(".txt", ""), "", "```"] + txt.split("\n")[:120] + ["```", ""]
        if st.healthy:
            idxs = [i for i, l in enumerate(c0) if ("Traceback (most recent call last)" in l or "Exception ignored" in l or "Exception Group Traceback" in l)]
            if idxs:
                i0 = idxs[0]
                md += ["This one for example (the run kept going afterwards):", "", "```"] + c0[max(0, i0 - 2): i0 + r.randint(25, 45)] + ["```", ""]
        if ctx.cause == "preemption" and not st.healthy:
            if st.hints.get("preempt") == "all":
                md += ["`sacct -j %s` shows the job as `%s`." % (ctx.jobid, "PREEMPTED" if st.hints.get("preempt_reason") == "PREEMPTION" else "TIMEOUT"), ""]
            else:
                md += ["The cloud console says the VM `%s` was preempted (spot capacity) around that time." % ctx.hosts[st.init_node], ""]
        if ctx.cause == "collective_mismatch" and st.hints.get("mismatch") == "timeout":
            kk = st.init_rank
            lines_k = [l for l in cons[ctx.node_of(kk)] if ("[Rank %d] Watchdog caught" % kk) in l]
            other = (kk + 1) % ctx.W
            lines_o = [l for l in cons[ctx.node_of(other)] if ("[Rank %d] Watchdog caught" % other) in l]
            if lines_k and lines_o:
                md += ["Interesting: the timeouts on different ranks don't even agree on the op:", "", "```"] + lines_o[:1] + lines_k[:1] + ["```", ""]
        if ctx.cause == "straggler":
            tl = [l for n_ in range(ctx.nn) for l in cons[n_] if ("compute time" in l or "timing:" in l or "slowest ranks" in l)]
            if tl:
                md += ["Our per-rank timing log (every few hundred steps):", "", "```"] + tl[-r.randint(6, 14):] + ["```", ""]
            md += ["(Throughput was also ~%.0f%% lower than usual the whole time.)" % (100 - 100 / st.hints["straggler"]["factor"]), ""]
        md += ["### Versions", "", "See attached `collect_env.txt`. torch %s, NCCL %s, Python %s." % (ctx.torch_ver, ctx.nccl, ctx.py), ""]
        files["issue.md"] = "\n".join(md) + "\n"
        files["collect_env.txt"] = collect_env(ctx, r)
        if r.random() < 0.3:
            files["node0_full.log"] = "\n".join(c0) + "\n"
        if not shown_init and ctx.cause in ("unknown",):
            st.hide_initiator = True
        return files


LAYOUTS = [TorchrunLogdir(), MpSpawn(), SlurmHydra(), K8sPyTorchJob(), RayTrain(), DeepSpeedPdsh(), CompileInductor(), IssuePaste()]


# --------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------

def rank_visible(ctx, st, files, rk):
    """can a careful reader tie the failure to this global rank?  Either the
    layout attributes every line to its rank (srun labels, per-rank files,
    --tee prefixes, Ray pid->rank table), or a rank-naming line exists."""
    if getattr(ctx, "rank_attrib", False):
        return True
    if st.hints.get("stall_evidence") == "pyspy":
        return True
    pats = [r"-- Process %d terminated with the following error", r"process %d terminated with",
            r"rank      : %d \(local_rank", r"\btask %d: ", r"heartbeat: rank %d has not",
            r"Rank %d is running (inconsistent )?collective", r"\[rank %d\] step", r"\(rank %d\)",
            r"on rank %d\b", r"\[rank%d\]:\[E", r"^\[Rank %d\] "]
    pat = re.compile("|".join(p_ % rk for p_ in pats), re.M)
    for name, txt in files.items():
        if pat.search(txt):
            return True
    return False


def build_run(seed, idx, layout, cause, healthy):
    ctx = Ctx(seed, idx, layout.name, cause or "healthy", healthy)
    L = layout.setup(ctx)
    st = Story(ctx, L)
    if healthy:
        sc_healthy(ctx, st)
    else:
        SCENARIOS[cause](ctx, st)
    layout.post(ctx, st)
    enrich(ctx, st)
    files = layout.render(ctx, st)
    init = None
    if not healthy and (st.init_rank is not None or st.init_node is not None):
        init = {"rank": st.init_rank, "node": ctx.node_name(st.init_node) if st.init_node is not None else None}
        if init["rank"] is not None and not rank_visible(ctx, st, files, init["rank"]):
            init["rank"] = None
            if init["node"] is None:
                init = None
        if getattr(st, "hide_initiator", False):
            init = None
    truth = {"healthy": healthy, "cause": None if healthy else cause, "initiator": init, "layout": layout.name,
             "notes": st.notes, "world_size": ctx.W, "nodes": ctx.nn, "torch": ctx.torch_ver, "python": ctx.py,
             "presentation": getattr(ctx, "style", "plain")}
    return files, truth


def assign(seed, n):
    r = random.Random("blind56-assign|%s" % seed)
    order = list(CAUSES)
    r.shuffle(order)
    lay_order = list(LAYOUTS)
    r.shuffle(lay_order)
    nl = len(LAYOUTS)
    soff = sum(ord(ch) for ch in str(seed)) * 3
    rot = lambda L, cause: (LAYOUTS.index(L) - CAUSES.index(cause) * 3 - soff) % nl
    use = {}
    plan = []
    k = 0
    for i in range(n):
        if i % 7 == 3:
            lay = min(lay_order, key=lambda L: (use.get((L.name, None), 0), use.get(L.name, 0), r.random()))
            use[(lay.name, None)] = use.get((lay.name, None), 0) + 1
            use[lay.name] = use.get(lay.name, 0) + 1
            plan.append((lay, None))
            continue
        cause = order[k % len(order)]
        k += 1
        cands = [L for L in lay_order if L.supports(cause)]
        lay = min(cands, key=lambda L: (use.get((L.name, cause), 0), rot(L, cause), use.get(L.name, 0)))
        use[(lay.name, cause)] = use.get((lay.name, cause), 0) + 1
        use[lay.name] = use.get(lay.name, 0) + 1
        plan.append((lay, cause))
    return plan


FAIL_MARK = re.compile(r"Traceback \(most recent call last\)|terminate called|Fatal Python error|Watchdog caught|NCCL error|"
                       r"Exception Group Traceback|out of memory|Assertion `|ERROR|Timeout \(0:|heartbeat: rank|slurmstepd|SIGTERM")


def shrink(files, limit):
    """keep a bundle under `limit` bytes the way users and collectors do:
    drop a stretch of routine lines before the first failure, then thin
    C++ frame lists, then drop the oldest part of the biggest log"""
    def total():
        return sum(len(v.encode("utf-8")) for v in files.values())
    guard = 0
    while total() > limit and guard < 12:
        guard += 1
        name = max((k for k in files if not k.endswith(".json")), key=lambda k: len(files[k]))
        lines = files[name].split("\n")
        jsonl = name.endswith(".jsonl")
        over = total() - limit
        first = next((i for i, l in enumerate(lines) if FAIL_MARK.search(l)), len(lines))
        a = max(5, len(lines) // 20)
        b = first - 20
        if b - a > 50:
            need = 0
            j = a
            while j < b and need < over + 20000:
                need += len(lines[j].encode("utf-8")) + 1
                j += 1
            cut = lines[a:j]
            lines = lines[:a] + ([] if jsonl else ["[... %d lines omitted ...]" % len(cut)]) + lines[j:]
            files[name] = "\n".join(lines)
            continue
        frames = [i for i, l in enumerate(lines) if "frame #" in l]
        if len(frames) > 40:
            drop = set(frames[20::2])
            lines = [l for i, l in enumerate(lines) if i not in drop]
            files[name] = "\n".join(lines)
            continue
        keep = int(len(lines) * 0.6)
        lines = (["[... log rotated: %d earlier lines not shown ...]" % (len(lines) - keep)] if not jsonl else []) + lines[-keep:]
        files[name] = "\n".join(lines)
    return files


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    counts = {}
    for i, (lay, cause) in enumerate(assign(args.seed, args.n)):
        files, truth = build_run(args.seed, i, lay, cause, cause is None)
        files = shrink(files, 940000)
        d = os.path.join(args.out, "run-%03d-%s" % (i, lay.name))
        if os.path.isdir(d):
            for root, dirs, fs in os.walk(d, topdown=False):
                for f in fs:
                    os.remove(os.path.join(root, f))
                for dd in dirs:
                    os.rmdir(os.path.join(root, dd))
        os.makedirs(d, exist_ok=True)
        for rel in sorted(files):
            p = os.path.join(d, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w", encoding="utf-8") as fh:
                fh.write(files[rel])
        with open(os.path.join(d, "truth.json"), "w") as fh:
            json.dump(truth, fh, indent=2, sort_keys=True)
            fh.write("\n")
        key = truth["cause"] or "healthy"
        counts[key] = counts.get(key, 0) + 1
    print(json.dumps(dict(sorted(counts.items())), indent=1))


if __name__ == "__main__":
    main()
