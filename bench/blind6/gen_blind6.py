#!/usr/bin/env python3
"""blind6: generator of failed multi-GPU training runs *as people paste them*.

    python3 bench/blind6/gen_blind6.py --out DIR --n 60 --seed 1

writes DIR/run-NNN-<layout>/ with the files a user would hand over (an issue, a forum
post, a chat log, an e-mail, tail output, a terminal capture, OCR text, attachments...)
and truth.json.  Standard library only; the same seed gives the same bytes.
"""
import argparse
import copy
import gzip
import json
import os
import random
import re
import shutil
import sys

sys.dont_write_bytecode = True  # keep bench/blind6 free of __pycache__
HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import b6lines as L  # noqa: E402
from b6base import Piece  # noqa: E402
from b6causes import CAUSES  # noqa: E402
from b6paste import Paste, LAYOUTS  # noqa: E402
from b6world import World  # noqa: E402
import b6text as T  # noqa: E402

CAUSE_LIST = ["gpu_hardware", "ecc_memory", "nvlink", "network", "host_oom_kill", "cuda_oom", "illegal_memory_access",
              "python_exception", "crash_signal", "hang", "collective_mismatch", "data_loader_stall", "preemption", "straggler"]

STACKS = ["torchrun", "torchrun", "slurm_srun", "slurm_srun", "slurm_torchrun", "slurm_torchrun", "deepspeed", "mpirun",
          "sagemaker", "k8s", "k8s", "accelerate", "ray", "azureml"]

SCHEMES = {
    "torchrun": ["aws", "gpu-model", "plain", "dgx", "oci", "fqdn"],
    "slurm_srun": ["cray", "xname", "gpu-model", "fqdn", "euro", "plain", "dgx"],
    "slurm_torchrun": ["cray", "gpu-model", "fqdn", "euro", "dgx", "aws"],
    "deepspeed": ["plain", "aws", "gpu-model", "dgx"],
    "mpirun": ["plain", "fqdn", "cray", "oci"],
    "sagemaker": ["sagemaker"],
    "k8s": ["pod"],
    "accelerate": ["aws", "plain", "gpu-model"],
    "ray": ["ray", "aws"],
    "azureml": ["azure"],
}

STYLES = {
    "torchrun": ["hf", "megatron", "plain", "lightning", "composer", "plain"],
    "slurm_srun": ["lightning", "nemo", "megatron", "plain"],
    "slurm_torchrun": ["megatron", "hf", "plain", "nemo"],
    "deepspeed": ["deepspeed", "deepspeed", "hf"],
    "mpirun": ["plain", "hf"],
    "sagemaker": ["hf", "plain"],
    "k8s": ["hf", "plain", "megatron", "composer"],
    "accelerate": ["hf", "hf", "plain"],
    "ray": ["plain", "lightning", "hf"],
    "azureml": ["hf", "plain"],
}

LANGS = ["en"] * 14 + ["zh", "zh", "ru", "de", "es", "ja", "pt", "ko", "fr"]


def pick_size(rng, cause, stack, layout):
    nn = rng.choices([1, 2, 3, 4, 8, 16, 32, 64], weights=[18, 24, 4, 18, 14, 10, 7, 5])[0]
    gpn = rng.choices([8, 4, 2, 1], weights=[70, 15, 8, 7])[0]
    if stack == "sagemaker":
        gpn = 8
        nn = min(nn, 16)
    if stack in ("k8s", "ray", "azureml") and nn == 1:
        nn = 2
    if cause in ("network",) or (cause == "preemption" and stack not in ("slurm_srun", "slurm_torchrun")):
        nn = max(nn, 2)
    if cause == "nvlink":
        gpn = 8
    if nn * gpn < 2:
        gpn = 2
    if layout == "tailcat" and nn * gpn > 32:
        nn = max(1, 32 // gpn)
    return nn, gpn


def make_scenario(rng, cause, stack, layout):
    nn, gpn = pick_size(rng, cause, stack, layout)
    scheme = rng.choice(SCHEMES[stack])
    w = World(rng, stack, nn, gpn, scheme)
    style = rng.choice(STYLES[stack])
    sc = CAUSES[cause](rng, w, stack, style)
    sc.setup()
    if cause == "network" and sc.variant != "fabric":
        sc.node_level = True
    if cause == "nvlink" and sc.variant == "sxid":
        sc.node_level = True
    if cause == "preemption" and sc.truth_node is not None:
        sc.node_level = True
    if cause == "host_oom_kill" and getattr(sc, "variant", "") == "k8s" and not sc.rank_inferable:
        sc.node_level = True
    sc.compute_fates()
    sc.pieces = sc.build_pieces()
    return sc


def late_fault_decoy(rng, sc):
    """A second, later fault on another node (the earlier one stays the cause)."""
    w = sc.w
    others = [n for n in range(w.nnodes) if n != sc.cnode]
    if not others:
        return None
    n = rng.choice(others)
    t = sc.t_end_job + rng.uniform(300, 3600)
    h = w.hosts[n]
    kind = rng.choice(["xid79", "link", "xid43", "mce"])
    if kind == "xid79":
        txt = [L.xid_text(rng.choice(h.pcis), 79, None, None, "GPU has fallen off the bus.")]
    elif kind == "link":
        txt = [f"mlx5_core 0000:{rng.choice(['0c', '3b', '86'])}:00.0 ibp12s0: Link down",
               f"mlx5_core 0000:{rng.choice(['0c', '3b', '86'])}:00.0 ibp12s0: Link up"]
    elif kind == "xid43":
        txt = [L.xid_text(rng.choice(h.pcis), 43, rng.randint(1000, 99999), "python", "Ch 00000008")]
    else:
        txt = ["mce: [Hardware Error]: Machine check events logged",
               "EDAC MC1: 1 UE memory read error on CPU_SrcID#1_MC#0_Chan#0_DIMM#0 (channel:0 slot:0 page:0x1f3a2 offset:0x0 grain:32)"]
    style = rng.choice(["dmesgT", "iso", "syslog"])
    lines = [(L.kline(w, n, t + i, x, style), False) for i, x in enumerate(txt)]
    return Piece(f"decoy_n{n}", "kernel", lines, node=n, title=f"dmesg on {h.name}")


def cancelled_attempt(rng, sc):
    """A later run the user killed with Ctrl-C (to be ignored per the user's text)."""
    w = sc.w
    t = sc.t_end_job + rng.uniform(3600, 7200)
    lines = []
    for i in range(rng.randint(3, 8)):
        d = w.local_dt(t + i * 30, 0)
        lines.append(f"{d.strftime('%Y-%m-%d %H:%M:%S')},{rng.randint(0, 999):03d} INFO step={i * 10 + 10} loss={rng.uniform(2, 3):.4f}")
    lines.append("^C" + L.agent_line(w, 0, t + 300, "W", "torch.distributed.elastic.agent.server.api",
                                     "Received Signals.SIGINT death signal, shutting down workers", 741))
    for r in w.ranks_on(0)[:4]:
        lines.append(L.agent_line(w, 0, t + 300, "W", "torch.distributed.elastic.multiprocessing.api",
                                  f"Sending process {w.pid(r) + 5000} closing signal SIGINT", 897))
    lines += ["Traceback (most recent call last):", f'  File "{w.workdir}/{w.script}", line 512, in <module>', "    main()",
              "KeyboardInterrupt"]
    return [(x, False) for x in lines]


def prior_attempts(rng, cause, stack, base_sc):
    """Earlier attempts of the job with other failures (the last attempt is the truth)."""
    out = []
    k = rng.randint(1, 2)
    pool = [c for c in ["cuda_oom", "python_exception", "hang", "crash_signal"] if c != cause]
    for i in range(k):
        c = rng.choice(pool)
        sub = random.Random(rng.random())
        w2 = copy.copy(base_sc.w)
        # an earlier submission: it started days before the run the user asks about
        w2.t0 = base_sc.w.t0 - (k - i) * rng.uniform(86400 * 1.2, 86400 * 3)
        sc2 = CAUSES[c](sub, w2, stack, rng.choice(STYLES[stack]))
        sc2.fault_step = sub.randint(5, 2500)
        sc2.t_fault = sc2.t_train + sc2.fault_step * sc2.step_time
        sc2.seq = sc2.fault_step * sc2.coll_per_step + 2
        sc2.setup()
        sc2.compute_fates()
        P = sc2.build_pieces()
        name = "summary" if "summary" in P and rng.random() < 0.5 else ("rank%d" % sc2.culprit if sc2.culprit is not None else "rank0")
        if name not in P:
            name = "rank0"
        lines = T.keep_tail(T.join_cr(P[name].lines, "terminal"), rng.randint(10, 30))
        intro = rng.choice(["First attempt:", "attempt 1:", "Original run:", "Run 1 (bs=32):"]) if i == 0 else "then:"
        out.append((intro, lines))
    return out


BIG_KINDS = ["namespace", "tensor", "config"]


def big_line(rng, sc, size):
    """A ~200 KB single line: an argparse dump, a printed tensor or a config dump."""
    kind = rng.choice(BIG_KINDS)
    parts = []
    n = 0
    if kind == "tensor":
        head = f"DEBUG logits[{rng.randrange(sc.w.world)}] = tensor([["
        while n < size:
            v = "%.4f" % rng.uniform(-8, 8)
            parts.append(v)
            n += len(v) + 2
        return head + ", ".join(parts) + f"]], device='cuda:{rng.randrange(sc.w.gpn)}', dtype=torch.bfloat16)"
    if kind == "namespace":
        head = "Namespace("
        i = 0
        while n < size:
            v = f"arg_{i}={rng.choice(['None', 'True', 'False', str(rng.randint(0, 99999)), repr('x' * rng.randint(1, 30))])}"
            parts.append(v)
            n += len(v) + 2
            i += 1
        return head + ", ".join(parts) + ")"
    head = "model config: {\"vocab\": ["
    while n < size:
        v = '"' + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9))) + '"'
        parts.append(v)
        n += len(v) + 2
    return head + ", ".join(parts) + "], \"hidden_size\": 4096}"


def hostile(rng, sc, paste, files, layout, lang):
    """Bits that must not stop a reader: gz attachments, huge lines, NULs, bad encodings, empty files."""
    names = list(files)
    main = names[0]
    culs = sc.culprits() if sc.culprit is not None else [0]
    # a gzip'd full rank log next to the pasted excerpt
    if layout not in ("ocr", "screen") and rng.random() < 0.18:
        rr = culs[0] if rng.random() < 0.6 else 0
        lines = T.join_cr(sc.rank_file(rr), "file")
        data = ("\n".join(t for t, _ in lines) + "\n").encode("utf-8")
        if paste.ip_redacted:
            data = T.redact_ips(data.decode("utf-8"), paste.ip_style).encode("utf-8")
        nm = rng.choice([f"rank{rr}.log.gz", f"log_rank_{rr}.txt.gz", f"worker{rr}.out.gz"])
        files[nm] = gzip.compress(data, compresslevel=6, mtime=0)
        files[main] = files[main] + f"\n(full log of rank {rr} attached: {nm})\n".encode("utf-8")
    # a 200 KB single line somewhere (a printed tensor, an args dump)
    if layout != "ocr" and rng.random() < 0.12:
        cand = [n for n in files if not n.endswith(".gz") and files[n] and n not in paste.note_files] or [main]
        tgt = rng.choice(cand)
        data = files[tgt].decode("utf-8", "surrogateescape")
        lines = data.split("\n")
        pos = rng.randint(1, max(1, len(lines) // 3))
        lines.insert(pos, big_line(rng, sc, rng.randint(150_000, 230_000)))
        files[tgt] = "\n".join(lines).encode("utf-8", "surrogateescape")
    # NUL run / garbage in an attached rank log (crashed mid-write)
    rk = [n for n in files if re.search(r"(rank|worker|process_)\d+.*\.(log|txt|out|err)$", n) and files[n]]
    if rk and rng.random() < 0.4:
        tgt = rng.choice(rk)
        data = files[tgt]
        if rng.random() < 0.5:
            cut = rng.randint(len(data) // 2, len(data))
            data = data[:cut] + b"\x00" * rng.randint(64, 8192) + data[cut:]
        else:
            data = data + b"\x00" * rng.randint(16, 512)
        files[tgt] = data
    # a paste saved by a Windows editor in cp1252 (smart quotes, ellipsis, mojibake for box chars)
    if lang in ("en", "de", "fr", "es", "pt") and layout in ("email", "issue", "forum", "attach", "jira", "so") and rng.random() < 0.2:
        txt = files[main].decode("utf-8", "replace")
        txt = txt.replace("... ", "\u2026 ").replace(" - ", " \u2013 ")
        txt = re.sub(r"(?m)^(I|We|Our|Hi|Hello)( .*)?don't", lambda m: m.group(0).replace("'", "\u2019"), txt)
        files[main] = txt.encode("cp1252", "replace")
    # an empty file in the bundle
    if rng.random() < 0.07:
        files[rng.choice(["stderr.txt", f"rank{rng.randrange(sc.w.world)}.err", "dmesg_empty.txt", "core.txt"])] = b""


def all_text(files):
    blob = []
    for nm, data in files.items():
        if nm.endswith(".gz"):
            try:
                data = gzip.decompress(data)
            except OSError:
                pass
        blob.append(data.decode("utf-8", "replace"))
    return "\n".join(blob)


def plan(n, seed):
    rng = random.Random(f"blind6-plan-{seed}")
    n_healthy = max(1, round(n / 7))
    causes = [None] * n_healthy
    i = 0
    while len(causes) < n:
        causes.append(CAUSE_LIST[i % len(CAUSE_LIST)])
        i += 1
    rng.shuffle(causes)
    layouts = [LAYOUTS[j % len(LAYOUTS)] for j in range(n)]
    rng.shuffle(layouts)
    return causes, layouts


def make_run(idx, seed, cause, layout, outdir):
    rng = random.Random(f"blind6-{seed}-{idx}")
    stack = rng.choice(STACKS)
    if layout == "attempts" and stack in ("mpirun", "sagemaker"):
        stack = "torchrun"
    sc = make_scenario(rng, cause, stack, layout)
    lang = rng.choice(LANGS)
    if layout in ("ocr", "email", "jira") and rng.random() < 0.5:
        lang = "en"
    paste = Paste(sc, rng, layout, lang)
    if cause not in (None, "straggler") and sc.w.nnodes > 1 and layout not in ("ocr", "tailcat") and rng.random() < 0.18:
        dec = late_fault_decoy(rng, sc)
        if dec is not None:
            paste.P[dec.name] = dec
            paste.forced = [dec.name]
    if layout == "attempts":
        if rng.random() < 0.3 and cause is not None:
            paste.after = [(rng.choice(["second run:", "then I restarted it:", "2nd try:"]), cancelled_attempt(rng, sc))]
        else:
            paste.prior = prior_attempts(rng, cause, stack, sc)
    files = paste.render()
    hostile(rng, sc, paste, files, layout, lang)
    w = sc.w
    text = all_text(files)
    # node identity must be readable somewhere; if not, users usually paste their hostfile / nodelist
    node_name = w.hosts[sc.truth_node].name if sc.truth_node is not None else None
    aliases = w.hosts[sc.truth_node].aliases() if sc.truth_node is not None else []
    if paste.ip_redacted:
        aliases = [a for a in aliases if not re.fullmatch(r"\d+\.\d+\.\d+\.\d+", a)]
        if node_name and re.fullmatch(r"\d+\.\d+\.\d+\.\d+", node_name):
            pass
    if node_name and node_name not in text and not any(a in text for a in aliases):
        main = next(iter(files))
        add = ["", "hostfile:" if sc.stack in ("deepspeed", "mpirun") else "nodes (in rank order):", "```"]
        for h in w.hosts:
            add.append(f"{h.name} slots={w.gpn}" if sc.stack in ("deepspeed", "mpirun") else h.name)
        add.append("```")
        add.append(f"(--nproc_per_node={w.gpn})")
        files[main] = files[main] + ("\n".join(add) + "\n").encode("utf-8")
        text = all_text(files)
    rank_inf = bool(paste.rank_evident()) if sc.truth_rank is not None else False
    truth = {
        "cause": sc.cause,
        "healthy": bool(sc.healthy),
        "rank": sc.truth_rank if not sc.healthy else None,
        "node": node_name if not sc.healthy else None,
        "drain": bool(sc.drain and sc.cause in ("gpu_hardware", "ecc_memory", "nvlink", "network")),
        "rank_inferable": rank_inf,
        "node_aliases": aliases if node_name else [],
        "layout": f"{layout}-{stack.replace('_', '-')}",
        "notes": (sc.notes or "").strip() + (f" [user paste: {layout}, lang {lang}]" if layout else ""),
    }
    if sc.cause == "network" and getattr(sc, "variant", "") == "fabric":
        truth["drain"] = False
    d = os.path.join(outdir, f"run-{idx:03d}-{truth['layout']}")
    if os.path.exists(d):
        shutil.rmtree(d)
    os.makedirs(d)
    for nm, data in files.items():
        p = os.path.join(d, nm)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data)
    with open(os.path.join(d, "truth.json"), "w", encoding="utf-8") as f:
        json.dump(truth, f, indent=2, ensure_ascii=False)
        f.write("\n")
    return truth


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    causes, layouts = plan(a.n, a.seed)
    for i in range(a.n):
        make_run(i, a.seed, causes[i], layouts[i], a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
