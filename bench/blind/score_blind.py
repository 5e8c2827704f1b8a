#!/usr/bin/env python3
"""Score rankdoctor on the blind runs written by gen_blind.py.

    python3 score_blind.py RUNS_DIR [--rankdoctor PATH] [--json out.json]

Runs `rankdoctor replay RUN --format json` on every run folder (a subprocess, timed), compares the
first incident with truth.json and prints: cause accuracy, initiator accuracy (rank when the truth
has one, else node), node accuracy, healthy runs with no incident, false and missed drains, a
per-cause confusion table, median/max time per run, and the misses.
Standard library only.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

# the rankdoctor beside this interpreter (a venv), else the one on PATH
DEFAULT_RD = (str(Path(sys.executable).parent / "rankdoctor") if (Path(sys.executable).parent / "rankdoctor").exists()
              else shutil.which("rankdoctor") or "rankdoctor")


def short(h):
    return None if h is None else str(h).split(".")[0].lower()


def node_ok(truth, got):
    if truth.get("node") is None:
        return got is None
    names = {short(truth["node"])} | {short(a) for a in truth.get("node_aliases", [])}
    return short(got) in names


def run_one(rd, path, timeout):
    t = time.perf_counter()
    try:
        p = subprocess.run([rd, "replay", path, "--format", "json", "--no-progress"], capture_output=True,
                           text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, time.perf_counter() - t, "timeout after %ds" % timeout
    el = time.perf_counter() - t
    try:
        return json.loads(p.stdout), el, None if p.returncode in (0, 1, 2, 3) else "rc=%d" % p.returncode
    except json.JSONDecodeError:
        return None, el, "rc=%d, no JSON: %s" % (p.returncode, (p.stderr or p.stdout)[-300:])


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--rankdoctor", default=DEFAULT_RD)
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--json", help="also write per-run results here")
    a = ap.parse_args(argv)
    runs = sorted(d for d in os.listdir(a.dir) if os.path.isfile(os.path.join(a.dir, d, "truth.json")))
    rows = []
    for d in runs:
        path = os.path.join(a.dir, d)
        with open(os.path.join(path, "truth.json")) as fh:
            truth = json.load(fh)
        rep, el, err = run_one(a.rankdoctor, path, a.timeout)
        incs = (rep or {}).get("incidents") or []
        top = incs[0] if incs else None
        got_cause = top["cause"] if top else ("healthy" if rep is not None else "ERROR")
        ini = (top or {}).get("initiator") or {}
        got_rank, got_node = ini.get("rank"), ini.get("node")
        any_drain = any(((i.get("remediation") or {}).get("drain_node")) for i in incs)
        top_drain = bool(((top or {}).get("remediation") or {}).get("drain_node"))
        tc = "healthy" if truth["healthy"] else truth["cause"]
        cause_ok = got_cause == tc
        if truth["healthy"]:
            init_ok = not incs
            init_applicable = False
        elif truth.get("rank") is not None and truth.get("rank_inferable", True):
            init_ok = got_rank == truth["rank"]
            init_applicable = True
        elif truth.get("node") is not None:
            init_ok = node_ok(truth, got_node)
            init_applicable = True
        else:
            init_ok, init_applicable = None, False
        rows.append({"run": d, "truth": truth, "cause": got_cause, "rank": got_rank, "node": got_node,
                     "n_incidents": len(incs), "drain_top": top_drain, "drain_any": any_drain,
                     "cause_ok": cause_ok, "init_ok": init_ok, "init_applicable": init_applicable,
                     "node_ok": (node_ok(truth, got_node) if truth.get("node") is not None else None),
                     "seconds": el, "error": err,
                     "explanation": (top or {}).get("explanation"),
                     "confidence": (top or {}).get("confidence")})
        print("%-32s %-20s -> %-20s rank %s/%s node %s/%s %.2fs%s" % (
            d, tc, got_cause, truth.get("rank"), got_rank, truth.get("node"), got_node, el,
            " ERR " + err if err else ""), file=sys.stderr)

    n = len(rows)
    failed = [r for r in rows if not r["truth"]["healthy"]]
    healthy = [r for r in rows if r["truth"]["healthy"]]
    app = [r for r in rows if r["init_applicable"]]
    withnode = [r for r in rows if r["node_ok"] is not None]
    print("\n== rankdoctor blind benchmark: %s (%d runs) ==" % (a.dir, n))
    print("cause accuracy (all runs, healthy = no incident): %d/%d = %.1f%%" % (
        sum(r["cause_ok"] for r in rows), n, 100.0 * sum(r["cause_ok"] for r in rows) / max(1, n)))
    print("cause accuracy (failed runs only):                %d/%d = %.1f%%" % (
        sum(r["cause_ok"] for r in failed), len(failed), 100.0 * sum(r["cause_ok"] for r in failed) / max(1, len(failed))))
    print("initiator accuracy (rank if truth has one, else node): %d/%d = %.1f%%" % (
        sum(bool(r["init_ok"]) for r in app), len(app), 100.0 * sum(bool(r["init_ok"]) for r in app) / max(1, len(app))))
    print("node accuracy (runs whose truth names a node):    %d/%d = %.1f%%" % (
        sum(bool(r["node_ok"]) for r in withnode), len(withnode),
        100.0 * sum(bool(r["node_ok"]) for r in withnode) / max(1, len(withnode))))
    print("healthy runs with no incident: %d/%d" % (sum(r["n_incidents"] == 0 for r in healthy), len(healthy)))
    fd = [r for r in rows if r["drain_any"] and not r["truth"]["drain"]]
    md = [r for r in rows if r["truth"]["drain"] and not r["drain_top"]]
    print("false drains (any incident drains, truth says no): %d   missed drains (truth drains, top incident does not): %d/%d" % (
        len(fd), len(md), sum(r["truth"]["drain"] for r in rows)))
    errs = [r for r in rows if r["error"]]
    if errs:
        print("tool errors: %d (%s)" % (len(errs), "; ".join("{}: {}".format(r["run"], r["error"]) for r in errs[:5])))
    secs = [r["seconds"] for r in rows]
    print("time per run: median {:.2f}s, max {:.2f}s ({})".format(statistics.median(secs), max(secs),
                                                          max(rows, key=lambda r: r["seconds"])["run"]))
    # confusion table
    truths = sorted({("healthy" if r["truth"]["healthy"] else r["truth"]["cause"]) for r in rows})
    gots = sorted({r["cause"] for r in rows})
    w = max(len(x) for x in truths + gots + ["truth \\ got"]) + 1
    print("\nconfusion (rows = truth, columns = rankdoctor's top cause):")
    abbrev = {g: g[:9] for g in gots}
    print("%-*s" % (w, "truth \\ got") + " ".join("%9s" % abbrev[g] for g in gots) + "   ok/n")
    for t in truths:
        rs = [r for r in rows if ("healthy" if r["truth"]["healthy"] else r["truth"]["cause"]) == t]
        print("%-*s" % (w, t) + " ".join("%9s" % (sum(r["cause"] == g for r in rs) or ".") for g in gots)
              + "   %d/%d" % (sum(r["cause_ok"] for r in rs), len(rs)))
    # per layout
    print("\nper layout (cause ok / initiator ok / n):")
    for lay in sorted({r["truth"]["layout"] for r in rows}):
        rs = [r for r in rows if r["truth"]["layout"] == lay]
        print("  %-16s %2d / %2d / %2d" % (lay, sum(r["cause_ok"] for r in rs), sum(bool(r["init_ok"]) for r in rs), len(rs)))
    # misses
    miss = [r for r in rows if not r["cause_ok"] or r["init_ok"] is False or r in fd]
    print("\nmisses (%d):" % len(miss))
    for r in miss:
        t = r["truth"]
        what = []
        if not r["cause_ok"]:
            what.append("cause")
        if r["init_ok"] is False:
            what.append("initiator")
        if r in fd:
            what.append("false-drain")
        print("- %s [%s] truth: %s rank=%s node=%s drain=%s | rankdoctor: %s rank=%s node=%s drain=%s incidents=%d conf=%s" % (
            r["run"], ",".join(what), "healthy" if t["healthy"] else t["cause"], t.get("rank"), t.get("node"), t["drain"],
            r["cause"], r["rank"], r["node"], r["drain_any"], r["n_incidents"], r["confidence"]))
        if "ranks" in t:  # (gen_blind.py's runs describe themselves; gen_blind2.py's carry notes)
            print("    (%d ranks, %d nodes, era %s, NCCL INFO %s, kernel log %s, launcher %s, steps %s)" % (
                t["ranks"], t["nodes"], t["torch_era"], t["nccl_debug_info"], t["kernel_log"], t["launcher"], t["step_format"]))
        elif t.get("notes"):
            print("    (%s: %s)" % (t.get("layout"), t["notes"][:300]))
        if r["explanation"]:
            print("    says: {}".format(r["explanation"][:300]))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1, default=str)


if __name__ == "__main__":
    main()
