#!/usr/bin/env python3
"""blind59 - "the network fabric": multi-node GPU training runs whose failures (and false
alarms) involve InfiniBand, RoCE, EFA, NCCL transports, TCPStore rendezvous, bonding, MTU,
DNS and firewalls, next to GPU / memory / software / scheduler causes that only show up as
network errors on the peers.

usage: python3 gen_blind59.py --out DIR --n 60 --seed S
Standard library only; deterministic per seed."""
import argparse
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from b59_core import mk_rng, Job, K8S_STYLES, SLURM_STYLES, TORCHRUN_STYLES  # noqa: E402
from b59_common import Ctx, kernel_noise, boot_kernel_lines, prune_after_death  # noqa: E402
import b59_causes_a as A  # noqa: E402
import b59_causes_b as Bc  # noqa: E402
import b59_fabric as F  # noqa: E402
from b59_noise import add_noise  # noqa: E402
from b59_layouts import LAYOUTS  # noqa: E402

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom", "illegal_memory_access",
          "python_exception", "host_oom_kill", "crash_signal", "preemption", "hang", "data_loader_stall",
          "collective_mismatch", "straggler", "unknown"]

RUNNERS = {"gpu_hardware": A.run_gpu_hardware, "ecc_memory": A.run_ecc_memory, "nvlink": A.run_nvlink,
           "network": A.run_network, "straggler": A.run_straggler,
           "cuda_oom": Bc.run_cuda_oom, "illegal_memory_access": Bc.run_illegal_memory_access,
           "python_exception": Bc.run_python_exception, "host_oom_kill": Bc.run_host_oom_kill,
           "crash_signal": Bc.run_crash_signal, "preemption": Bc.run_preemption, "hang": Bc.run_hang,
           "data_loader_stall": Bc.run_data_loader_stall, "collective_mismatch": Bc.run_collective_mismatch,
           "unknown": Bc.run_unknown}

LAYOUT_W = [("slurm", 3), ("torchrun", 2), ("k8s", 2), ("paste", 2), ("fabric", 2)]
TRANSPORT_W = {"slurm": [("ib", 6), ("roce", 3), ("socket", 1)],
               "torchrun": [("ib", 3), ("roce", 3), ("efa", 2), ("socket", 2)],
               "k8s": [("efa", 5), ("roce", 3), ("ib", 2)],
               "paste": [("ib", 4), ("roce", 3), ("efa", 2), ("socket", 1)],
               "fabric": [("ib", 7), ("roce", 3)]}
SIZES = [((2, 1), 1), ((2, 2), 1), ((2, 4), 2), ((2, 8), 4), ((3, 8), 1), ((4, 8), 5), ((6, 8), 1),
         ((8, 8), 4), ((16, 8), 3), ((32, 8), 2), ((64, 8), 1), ((128, 8), 1)]


def build_job(R, cause):
    lw = LAYOUT_W if cause not in ("network", "straggler") else [(l, w * (2 if l == "fabric" else 1)) for l, w in LAYOUT_W]
    layout = R.wpick(lw)
    transport = R.wpick(TRANSPORT_W[layout])
    nn, gpn = R.wpick(SIZES)
    if layout == "fabric" and transport == "efa":
        transport = "ib"
    if (transport == "efa" or cause == "nvlink") and gpn not in (4, 8):
        gpn = 8
    if layout == "slurm" or layout == "fabric":
        style = R.pick(SLURM_STYLES)
    elif layout == "k8s":
        style = {"efa": "eks", "ib": R.pick(["aks", "onprem"]), "roce": R.pick(["gke", "onprem"])}[transport]
    else:
        style = "ec2" if transport == "efa" else R.pick(TORCHRUN_STYLES)
    k8s_pods = layout == "k8s" and R.chance(0.4)
    job = Job(R, layout, transport, nn, gpn, style, k8s_pods=k8s_pods)
    if layout == "k8s":
        name = R.pick(["%s-pretrain" % job.model.split("-")[0], "train-%s" % R.hexs(5), job.model.replace(".", "-")])
        if R.chance(0.5):
            job.pod = {h: ("%s-master-0" % name if i == 0 else "%s-worker-%d" % (name, i - 1)) for i, h in enumerate(job.nodes)}
        else:
            job.pod = {h: "%s-workers-0-%d-%s" % (name, i, R.hexs(5)) for i, h in enumerate(job.nodes)}
    return job


def attach_extras(ctx):
    job, R, B = ctx.job, ctx.R, ctx.B
    # a second, uninvolved host's kernel log now and then
    if R.chance(0.5):
        h = R.pick(job.nodes)
        if h not in ctx.attach_dmesg:
            ctx.attach_dmesg.append(h)
    t1 = (ctx.t_fail or ctx.t_init + 3600) + 600
    for h in ctx.attach_dmesg:
        boot_kernel_lines(ctx, h)
        kernel_noise(ctx, h, ctx.t_init - 3000, t1)
    # healthy comparison copies of per-host fabric views
    if job.transport == "ib":
        have = set(a.host for a in B.arts_named("ibstat"))
        if have or job.layout == "fabric":
            for h in R.sample(job.nodes, min(len(job.nodes), R.randint(1, 4))):
                if h not in have:
                    B.art("ibstat:%s" % h, h, F.ibstat(job, h))
                    have.add(h)
    if job.layout == "fabric" and job.transport == "ib" and not B.arts_named("ibdiagnet"):
        B.art("ibdiagnet", None, F.ibdiagnet(job, R, job.lt((ctx.t_fail or ctx.t_init) + R.uniform(900, 5000), job.nodes[0]),
                                             A.ibdiag_unrelated(ctx), []))
    if job.layout == "fabric" and job.transport == "roce" and not B.arts_named("hw_counters"):
        for h in R.sample(job.nodes, min(len(job.nodes), 2)):
            B.art("hw_counters:%s" % h, h, F.hw_counters(job, h, R.randrange(job.gpn), R))


def truth_of(ctx, W):
    surv = W.survived

    def ok(groups):
        for g in groups:
            if callable(g):
                if g(surv):
                    return True
            elif all(e in surv for e in g):
                return True
        return False
    healthy = ctx.cause is None
    init = None
    if not healthy:
        rank = ctx.truth_rank if ctx.truth_rank is not None and ok(ctx.rank_groups) else None
        node = ctx.truth_node if ctx.truth_node is not None and ok(ctx.node_groups) else None
        if rank is not None and node is None and ctx.job.node(rank) == ctx.truth_node:
            # the rank's own log names its host (prefix or file path)
            node = ctx.truth_node if any(e in surv for e in ("own", "strag_rep", "seqlow", "pyspy", "dlwait", "mismatch", "oddop")) else None
        init = {"rank": rank, "node": node}
    return {"healthy": healthy, "cause": ctx.cause, "initiator": init, "layout": ctx.job.layout, "notes": ctx.notes}


def make_run(seed, i, cause, outdir):
    R = mk_rng("blind59", seed, i)
    job = build_job(R, cause)
    ctx = Ctx(job, R, cause)
    if cause is None:
        Bc.run_healthy(ctx)
    else:
        RUNNERS[cause](ctx)
        if cause != "unknown":
            add_noise(ctx, R.randint(0, 2))
    attach_extras(ctx)
    prune_after_death(ctx)
    name = "run-%03d-%s" % (i, job.layout)
    path = os.path.join(outdir, name)
    if os.path.exists(path):
        shutil.rmtree(path)
    os.makedirs(path)
    W = LAYOUTS[job.layout](ctx, path)
    truth = truth_of(ctx, W)
    if os.environ.get("B59_CHECK"):
        lost = sorted(set(x.eid for x in ctx.B.recs + ctx.B.arts if x.protect and x.eid) - W.survived)
        if lost:
            print("warning: %s: protected evidence not written: %s" % (name, ", ".join(lost)), file=sys.stderr)
    with open(os.path.join(path, "truth.json"), "w", encoding="utf-8") as f:
        json.dump(truth, f, indent=2, sort_keys=True)
        f.write("\n")
    return truth


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    order = list(CAUSES)
    mk_rng("blind59-order", a.seed).shuffle(order)
    counts = {c: 0 for c in CAUSES}
    counts["healthy"] = 0
    k = 0
    for i in range(a.n):
        if i % 7 == 3:
            cause = None
        else:
            cause = order[k % len(order)]
            k += 1
        t = make_run(a.seed, i, cause, a.out)
        counts["healthy" if t["healthy"] else t["cause"]] += 1
    print(json.dumps(counts, indent=2))


if __name__ == "__main__":
    main()
