#!/usr/bin/env python3
"""blind3: independent generator of failed (and healthy) multi-GPU training runs.

    python3 bench/blind3/gen_blind3.py --out DIR --n 60 --seed 1

Writes DIR/run-NNN-<layout>/ with the files the job would leave behind plus a
truth.json.  Standard library only; the same --seed gives the same bytes.
"""
import argparse
import gzip
import io
import json
import os
import random
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from b3_core import Job                                  # noqa: E402
from b3_sim import resolve                               # noqa: E402
import b3_train as T                                     # noqa: E402
import b3_faults as F                                    # noqa: E402
import b3_layouts as L                                   # noqa: E402
import b3_jax as J                                       # noqa: E402

CAUSES = [c for c in L.ALL_CAUSES if c is not None]
MAX_BYTES = 1000000
T0_BASE = 1706745600     # 2024-02-01


def gz_bytes(text):
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0) as g:
        g.write(text.encode("utf-8"))
    return buf.getvalue()


def schedule_causes(master, n):
    n_healthy = max(1, int(round(n / 7.0))) if n >= 4 else (1 if n >= 2 else 0)
    faulty = n - n_healthy
    lst = []
    order = CAUSES[:]
    master.shuffle(order)
    i = 0
    while len(lst) < faulty:
        lst.append(order[i % len(order)])
        i += 1
    lst += [None] * n_healthy
    master.shuffle(lst)
    return lst


def pick_layout(rng, cause, counts, layouts):
    cands = [l for l in layouts if l.supports(cause)]
    m = min(counts[l.name] for l in cands)
    best = [l for l in cands if counts[l.name] == m]
    return best[int(rng.random() * len(best))]


def build_run(seed, idx, cause, layout, attempt):
    rng = random.Random("blind3:%d:%d:%d" % (seed, idx, attempt))
    job = Job(rng, idx, layout.name)
    job.t0 = T0_BASE + rng.uniform(0, 480) * 86400
    job.tz = rng.choice([0.0, 0.0, 1.0, 2.0, -5.0, -7.0, 8.0, 9.0, 5.5])
    if layout.name in ("sagemaker", "gke-jobset-json", "k8s-pytorchjob", "azureml", "ray-train"):
        job.tz = 0.0
    if isinstance(layout, J.JaxSlurm):
        return J.run(job, layout, cause, attempt)
    layout.build(job, cause)
    if attempt:
        job.verbosity *= 0.5 ** attempt
        job.flags["per_rank_log"] = job.flags.get("per_rank_log") and attempt < 2
        if attempt >= 2:
            job.nccl_debug = False
    t_launch = job.t0 + rng.uniform(3, 40)
    t_train = T.startup(job, t_launch)
    ctx = F.Ctx(job, t_train, job.flags.get("step_time", 1.0))
    truth = F.INJECTORS[cause](job, ctx)
    resolve(job, layout.policy(job))
    add_decoys(job, truth, rng)
    files = layout.render(job, truth)
    for k, v in job.extra_files.items():
        files.setdefault(k, v)
    return job, truth, files


def add_decoys(job, truth, rng):
    """Harmless or later, unrelated-looking noise in the kernel logs."""
    if not job.flags.get("has_kernel"):
        return
    t_last = max([e[0] for e in job.end.values()] or [job.t0 + 3600])
    for nd in job.nodes:
        if rng.random() < 0.35:
            F.decoy_kernel_noise(job, nd.idx, job.t0, t_last)
    if truth["cause"] is not None and rng.random() < 0.25:
        d = F.decoy_old_xid(job, rng.randrange(len(job.nodes)))
        if d:
            truth["notes"] += "; decoy: Xid %s from an earlier job %.1f days before" % (d[2], (job.t0 - d[0]) / 86400.0)
    if truth["cause"] not in (None, "network", "straggler") and rng.random() < 0.3:
        fails = [e[0] for e in job.end.values() if e[1] != 0]
        if fails:
            avoid = [truth["node"]] if truth["node"] is not None else []
            d = F.decoy_later_fault(job, min(fails) + rng.uniform(20, 400), avoid)
            if d:
                truth["notes"] += "; decoy: %s after the failure" % d


def truth_record(job, layout, truth):
    node = None
    aliases = []
    if truth["node"] is not None:
        node, aliases = layout.node_truth(job, truth["node"])
    rec = {
        "cause": truth["cause"],
        "healthy": truth["cause"] is None,
        "rank": truth["rank"] if truth["cause"] is not None else None,
        "node": node,
        "drain": bool(truth["drain"]),
        "rank_inferable": bool(truth["rank_inferable"]) if truth["rank"] is not None else False,
        "node_aliases": aliases,
        "layout": layout.name,
        "notes": truth["notes"],
    }
    if rec["healthy"]:
        rec["rank_inferable"] = False
    return rec


def encode_files(files):
    out = {}
    for path in sorted(files):
        v = files[path]
        if v is None:
            continue
        if isinstance(v, tuple) and v[0] == "GZ":
            out[path] = gz_bytes(v[1])
        elif isinstance(v, bytes):
            out[path] = v
        else:
            out[path] = v.encode("utf-8")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only-layout", default=None, help="debug: restrict to one layout")
    ap.add_argument("--only-cause", default=None, help="debug: restrict to one cause (use 'healthy' for None)")
    a = ap.parse_args(argv)
    master = random.Random("blind3-master:%d" % a.seed)
    causes = schedule_causes(master, a.n)
    if a.only_cause:
        causes = [None if a.only_cause == "healthy" else a.only_cause] * a.n
    layouts = L.LAYOUTS + [J.JaxSlurm()]
    if a.only_layout:
        layouts = [l for l in layouts if l.name == a.only_layout]
    counts = dict((l.name, 0) for l in layouts)
    os.makedirs(a.out, exist_ok=True)
    summary = []
    for i, cause in enumerate(causes):
        lrng = random.Random("blind3-layout:%d:%d" % (a.seed, i))
        layout = pick_layout(lrng, cause, counts, layouts)
        counts[layout.name] += 1
        for attempt in range(4):
            job, truth, files = build_run(a.seed, i, cause, layout, attempt)
            enc = encode_files(files)
            size = sum(len(v) for v in enc.values())
            if size <= MAX_BYTES:
                break
        rec = truth_record(job, layout, truth)
        d = os.path.join(a.out, "run-%03d-%s" % (i, layout.name))
        if os.path.isdir(d):
            shutil.rmtree(d)
        os.makedirs(d)
        for path, data in enc.items():
            p = os.path.join(d, path)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "wb") as f:
                f.write(data)
        with open(os.path.join(d, "truth.json"), "w", encoding="utf-8") as f:
            json.dump(rec, f, indent=2, sort_keys=False)
            f.write("\n")
        summary.append((os.path.basename(d), rec["cause"], rec["rank"], rec["node"], size))
    for s in summary:
        print("%-32s %-22s rank=%-5s node=%-40s %7d bytes" % (s[0], s[1], s[2], s[3], s[4]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
