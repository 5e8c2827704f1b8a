#!/usr/bin/env python3
"""blind8: generator of failed (and some healthy) multi-process GPU job log folders.

    python3 bench/blind8/gen_blind8.py --out DIR --n 60 --seed 1

Writes DIR/run-NNN-<layout>/ with the files the job would leave plus truth.json.
Standard library only; the same seed gives the same bytes."""
import argparse
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import b8common as C  # noqa: E402
import b8train  # noqa: E402
import b8accel  # noqa: E402
import b8serve  # noqa: E402

GROUPS = {
    "serve": b8serve.LAYOUTS,
    "train": dict(list(b8train.LAYOUTS.items()) + list(b8accel.LAYOUTS.items())),
}
DRAINABLE = ("gpu_hardware", "ecc_memory", "nvlink", "network")
KEYS = ["cause", "healthy", "rank", "node", "drain", "rank_inferable", "node_aliases", "layout", "notes"]
DEFAULT_PY = "/usr/local/lib/python3.10/dist-packages"


def plan(rng, n):
    runs = []
    for i in range(n):
        group = "serve" if rng.random() < 0.5 else "train"
        lays = GROUPS[group]
        if rng.random() < 1.0 / 7:
            runs.append((rng.choice(sorted(lays)), None))
            continue
        causes = sorted({c for _, cs in lays.values() for c in cs})
        cause = rng.choice(causes)
        runs.append((rng.choice(sorted(k for k, (_, cs) in lays.items() if cause in cs)), cause))
    return runs


def normalise(tr, layout, notes):
    t = dict(tr)
    cause = t.get("cause")
    out = {
        "cause": cause,
        "healthy": cause is None,
        "rank": None if cause is None else t.get("rank"),
        "node": None if cause is None else t.get("node"),
        "drain": bool(t.get("drain")) and cause in DRAINABLE,
        "rank_inferable": bool(t.get("rank_inferable", True)) if cause is not None else False,
        "node_aliases": [] if cause is None else [a for a in list(t.get("node_aliases") or []) if a != t.get("node")],
        "layout": layout,
        "notes": t.get("notes") or notes or ("Healthy run." if cause is None else ""),
    }
    if out["rank"] is None and cause is not None:
        out["rank_inferable"] = False
    return out


def gen_one(layout, cause, seed, idx):
    fn = GROUPS["serve"].get(layout) or GROUPS["train"][layout]
    fn = fn[0]
    C.set_py(DEFAULT_PY)
    rng = random.Random("blind8:%d:%d:%s:%s" % (seed, idx, layout, cause))
    out, S = fn(rng, cause, {})
    C.set_py(DEFAULT_PY)
    truth = normalise(S.truth, layout, getattr(S, "notes", ""))
    return out, truth


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--layout", action="append", help="restrict to these layouts (repeatable)")
    a = ap.parse_args(argv)
    rng = random.Random(a.seed)
    runs = plan(rng, a.n)
    if a.layout:
        allk = dict(GROUPS["serve"], **GROUPS["train"])
        runs = []
        for i in range(a.n):
            lay = a.layout[i % len(a.layout)]
            cs = allk[lay][1]
            runs.append((lay, None if rng.random() < 1.0 / 7 else rng.choice(cs)))
    os.makedirs(a.out, exist_ok=True)
    for i, (layout, cause) in enumerate(runs):
        out, truth = gen_one(layout, cause, a.seed, i)
        d = os.path.join(a.out, "run-%03d-%s" % (i + 1, layout))
        files = dict(out.files)
        files["truth.json"] = (json.dumps(truth, indent=2) + "\n").encode("utf-8")
        for rel in sorted(files):
            p = os.path.join(d, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "wb") as f:
                f.write(files[rel])
    print("wrote %d runs to %s" % (len(runs), a.out))


if __name__ == "__main__":
    main()
