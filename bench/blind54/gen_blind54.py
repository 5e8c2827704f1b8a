#!/usr/bin/env python3
"""blind54: synthetic log bundles from acceptance tests, burn-ins and
benchmark runs on multi-GPU clusters (nccl-tests, MLPerf reference runs,
torch.distributed sanity scripts, PyTorch distributed unit tests, DCGM diag +
gpu-burn, HPL, vLLM tensor-parallel throughput benchmarks).

Usage: python3 gen_blind54.py --out DIR --n 60 --seed S
Standard library only; deterministic per seed.
"""
import argparse
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from b54_common import CAUSES  # noqa: E402
import b54_nccltests  # noqa: E402
import b54_mlperf  # noqa: E402
import b54_torchbench  # noqa: E402
import b54_diag  # noqa: E402
import b54_infer  # noqa: E402

LAYOUTS = [
    ("nccl_tests", b54_nccltests.gen, b54_nccltests.CAUSES),
    ("mlperf", b54_mlperf.gen, b54_mlperf.CAUSES),
    ("torch_sanity", b54_torchbench.gen_sanity, b54_torchbench.SANITY_CAUSES),
    ("pytest_dist", b54_torchbench.gen_pytest, b54_torchbench.PYTEST_CAUSES),
    ("dcgm_burn", b54_diag.gen_dcgm, b54_diag.DCGM_CAUSES),
    ("hpl", b54_diag.gen_hpl, b54_diag.HPL_CAUSES),
    ("vllm_tp", b54_infer.gen, b54_infer.CAUSES),
]
BY_NAME = {name: (fn, causes) for name, fn, causes in LAYOUTS}
MAX_BYTES = 1000 * 1000


def plan(n, seed):
    rng = random.Random("blind54-plan-%s" % seed)
    order = list(CAUSES)
    rng.shuffle(order)
    cand = {}
    for c in CAUSES:
        ls = [name for name, _, cs in LAYOUTS if c in cs]
        rng.shuffle(ls)
        cand[c] = ls
    healthy_ls = [name for name, _, _ in LAYOUTS]
    rng.shuffle(healthy_ls)
    used_pair, used_layout = {}, {name: 0 for name, _, _ in LAYOUTS}
    out, k = [], 0
    for i in range(n):
        if i % 7 == 3:
            cause = None
            ls = healthy_ls
        else:
            cause = order[k % len(order)]
            k += 1
            ls = cand[cause]
        best = min(ls, key=lambda L: (used_pair.get((cause, L), 0), used_layout[L], ls.index(L)))
        used_pair[(cause, best)] = used_pair.get((cause, best), 0) + 1
        used_layout[best] += 1
        out.append((i, cause, best))
    return out


def validate(truth):
    assert set(truth) == {"healthy", "cause", "initiator", "layout", "notes"}, truth
    assert isinstance(truth["healthy"], bool)
    if truth["healthy"]:
        assert truth["cause"] is None
    else:
        assert truth["cause"] in CAUSES, truth["cause"]
    ini = truth["initiator"]
    if ini is not None:
        assert set(ini) == {"rank", "node"}
        assert ini["rank"] is None or isinstance(ini["rank"], int)
        assert ini["node"] is None or isinstance(ini["node"], str)
    assert isinstance(truth["notes"], str) and truth["notes"]


def generate(out_dir, n, seed):
    os.makedirs(out_dir, exist_ok=True)
    counts = {}
    for i, cause, layout in plan(n, seed):
        fn, _ = BY_NAME[layout]
        rng = random.Random("blind54-%s-%d-%s-%s" % (seed, i, layout, cause))
        files, t = fn(rng, cause)
        ini = t.get("initiator")
        if ini is not None and ini.get("rank") is None and ini.get("node") is None:
            ini = None
        truth = {"healthy": cause is None, "cause": cause, "initiator": ini,
                 "layout": layout, "notes": t.get("notes") or ""}
        validate(truth)
        d = os.path.join(out_dir, "run-%03d-%s" % (i, layout))
        os.makedirs(d, exist_ok=True)
        total = 0
        for name in sorted(files):
            data = files[name]
            if len(data.encode()) + total > MAX_BYTES - 4096:
                data = data[: max(0, MAX_BYTES - 4096 - total)]
            total += len(data.encode())
            with open(os.path.join(d, name), "w") as f:
                f.write(data)
        with open(os.path.join(d, "truth.json"), "w") as f:
            json.dump(truth, f, indent=2)
            f.write("\n")
        key = cause or "healthy"
        counts[key] = counts.get(key, 0) + 1
    return {k: counts[k] for k in sorted(counts)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args(argv)
    print(json.dumps(generate(a.out, a.n, a.seed), indent=2))


if __name__ == "__main__":
    main()
