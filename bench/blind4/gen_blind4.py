#!/usr/bin/env python3
"""blind4: an independent generator of failed (and healthy) multi-GPU training runs.

    python3 bench/blind4/gen_blind4.py --out DIR --n 60 --seed 1

Writes DIR/run-NNN-<layout>/ with the files a user would hand over after a
failure, plus truth.json. Standard library only; same seed -> same bytes.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from b4_common import Run, short, hexid                             # noqa: E402
from b4_frameworks import Plan, startup, run_normal, SCRIPTS, loss_at  # noqa: E402
from b4_faults import INJECT, decoys, settle, set_truth             # noqa: E402
from b4_layouts import SPECS, ALL_CAUSES                            # noqa: E402
from b4_custom import CUSTOM                                         # noqa: E402
from b4_render import coll, gz, job_end                             # noqa: E402
from b4_text import ts_py, c10, destroy_warning, ib_completion_error, nccl_async_error  # noqa: E402
from b4_common import ts_sec                                        # noqa: E402

MAX_BYTES = 1_000_000
LAYOUTS = list(SPECS) + list(CUSTOM)


# ------------------------------------------------------------------ scheduling
def schedule(n: int, seed: int):
    rng = random.Random("blind4-schedule-%d" % seed)
    n_healthy = max(1, round(n / 7.0)) if n >= 3 else 0
    causes = []
    while len(causes) < n - n_healthy:
        c = ALL_CAUSES[:]
        rng.shuffle(c)
        causes += c
    causes = causes[:n - n_healthy] + [None] * n_healthy
    rng.shuffle(causes)
    used = {l: 0 for l in LAYOUTS}
    plan = []
    for c in causes:
        ok = [l for l in LAYOUTS if c is None or c in (SPECS[l][2] if l in SPECS else CUSTOM[l][1])]
        m = min(used[l] for l in ok)
        cand = [l for l in ok if used[l] == m]
        l = rng.choice(cand)
        used[l] += 1
        plan.append((l, c))
    return plan


# ------------------------------------------------------------------ one run
def completion_lines(run: Run, fw: str, plan: Plan, t_end: float):
    rng = run.rng
    n0 = run.ranks[0].node
    last = run.world - 1
    if fw == "megatron":
        run.emit(last, t_end - 1, "[after training is done] datetime: %s " % ts_sec(run.e(t_end - 1, run.ranks[last].node)), "out")
        if rng.random() < 0.5:
            run.emit(0, t_end - 0.5, "exiting program after %.3f minutes" % (t_end / 60.0), "out")
    elif fw == "torchtitan":
        run.emit(0, t_end - 2, "[rank0]:[titan] %s - root - INFO - Sleeping 2 seconds for other ranks to complete" % ts_py(run.e(t_end - 2, n0)), "out")
        run.emit(0, t_end - 0.1, "[rank0]:[titan] %s - root - INFO - Training completed" % ts_py(run.e(t_end - 0.1, n0)), "out")
    elif fw == "hf_trainer":
        run.emit(0, t_end - 3, "{'train_runtime': %.4f, 'train_samples_per_second': %.3f, 'train_steps_per_second': %.3f, 'train_loss': %.4f, 'epoch': 3.0}" % (
            t_end - plan.t_train0, plan.gbs / plan.dt, 1 / plan.dt, loss_at(run.meta.get("last_logged_step", 1000), rng)), "out")
        run.emit(0, t_end - 2, "***** train metrics *****\n  epoch                    =        3.0\n  train_loss               =     %.4f\n  train_runtime            = %s" % (
            loss_at(run.meta.get("last_logged_step", 1000), rng), ts_sec(run.e(t_end))[11:]), "out")
    elif fw in ("lightning", "nemo2"):
        run.emit(0, t_end - 1, "`Trainer.fit` stopped: `max_steps=%d` reached." % run.meta.get("last_logged_step", plan.total_steps), "err")
    elif fw == "deepspeed":
        run.emit(0, t_end - 1, "[%s] [INFO] [logging.py:128:log_dist] [Rank 0] [Torch] Checkpoint global_step%d is ready now!" % (ts_py(run.e(t_end - 1, n0)), run.meta.get("last_logged_step", 1000)), "out")
    else:
        run.emit(0, t_end - 1, "%s | INFO | train | done. final step %d, total time %.1f h" % (ts_sec(run.e(t_end - 1, n0)), run.meta.get("last_logged_step", 0), t_end / 3600), "out")
    for x in run.ranks:
        run.set_exit(x.r, t_end + rng.uniform(0.2, 4), "code", 0)


def pick_culprit(run: Run) -> int:
    rng = run.rng
    W = run.world
    u = rng.random()
    if u < 0.12:
        return 0
    if u < 0.25:
        return W - 1
    return rng.randrange(W)


def healthy_restart(run: Run, plan: Plan):
    """torchrun_logdir: attempt_0 died on a transient NCCL error and attempt_1 recovered."""
    rng = run.rng
    nd = rng.choice(run.nodes)
    t_r = -rng.uniform(1800, 6 * 3600)
    txt = {}
    for x in run.ranks_on(nd):
        peer = rng.choice([n for n in run.nodes if n is not nd] or [nd])
        line = "%s:%d:%d [%d] transport/net_ib.cc:2357 NCCL WARN NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:%s remoteGids::ffff:%s hca %s" % (
            nd.host, x.pid - 900, x.pid - 810, x.local, peer.ip, rng.randint(33000, 60000), nd.ip, peer.ip, nd.ib_ifs[0])
        txt[x.r] = line + "\n[rank%d]:[E%s ProcessGroupNCCL.cpp:1595] [PG ID 0 PG GUID 0(default_pg) Rank %d] Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version %s\nncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\nLast error:\n%s\n" % (
            x.r, "%02d%02d 00:00:00.000000000" % (1, 1), x.r, run.nccl, line.split("NCCL WARN ")[1])
    run.meta["healthy_restart"] = txt
    run.meta["restart_nodes"] = {nd.idx}
    run.meta["restart_t"] = t_r


def build(seed: int, idx: int, layout: str, cause, shrink: int = 0) -> Run:
    rng = random.Random("blind4/%d/%d/%d" % (seed, idx, shrink))
    run = Run(rng, idx, layout, cause)
    run.meta["shrink"] = shrink
    if layout in CUSTOM:
        CUSTOM[layout][0](run)
        finalize(run)
        return run
    setup, render, _ = SPECS[layout]
    setup(run)
    if shrink:
        shrink_topology(run, shrink)
    fw = run.meta["fw"]
    plan = Plan(run, fw)
    W = run.world
    nn = len(run.nodes)
    # how long it ran before the fault
    u = rng.random()
    vol = "high" if (u < 0.14 and not shrink and layout in ("slurm_srun_l", "slurm_per_task", "torchrun_logdir", "single_node", "user_bundle", "k8s_pytorchjob")) else "normal"
    run.meta["volume"] = vol
    if vol == "high":
        plan.log_interval = 1
        plan.dt = rng.uniform(0.3, 1.2)
        n_steps = rng.randint(5000, 9000) if fw in ("megatron", "composer") else rng.randint(9000, 24000)
    else:
        n_steps = int(rng.choice([rng.uniform(15, 300), rng.uniform(300, 3000), rng.uniform(3000, 30000)]))
    cap_h = 120 if layout in ("k8s_pytorchjob", "gke_jobset_json", "ray_rl", "torchrun_logdir", "sagemaker") else 44
    n_steps = max(5, min(n_steps, int((cap_h * 3600 * rng.uniform(0.3, 1.0) - plan.t_train0) / plan.dt)))
    t_f = plan.t_of(plan.start_step + n_steps) + rng.uniform(0.05, 0.9) * plan.dt
    t_limit = t_f + run.pg_timeout + rng.uniform(2, 6) * 3600
    run.meta["t_fault"] = t_f
    ctx = {}
    if cause is not None:
        ctx["culprit"] = pick_culprit(run)
    if cause == "network" and nn == 1:
        cause = run.cause = "nvlink"
    if cause == "python_exception" and rng.random() < 0.15:
        ctx["jobwide"] = True
    if cause == "straggler":
        run.meta["host_lines"] = True
        t_end = t_f + rng.uniform(1800, 6 * 3600)
        plan.slow_from = plan.t_train0 + (t_f - plan.t_train0) * rng.uniform(0.2, 0.7)
        factor = rng.uniform(1.25, 2.2)
        plan.slow_ranks = {ctx["culprit"]: factor}
        if fw == "megatron":
            variant = "megatron"
        elif fw == "plain" and W <= 32:
            variant = "per_rank"
        else:
            variant = rng.choice(["nvsmi", "per_rank"]) if W <= 32 else "nvsmi"
        ctx.update(variant=variant, factor=factor, t_end=t_end)
        run.meta["volume"] = "normal"
    if cause == "preemption":
        if layout in ("k8s_pytorchjob", "gke_jobset_json") and rng.random() < 0.6:
            ctx["kind"] = "node"
            ctx["node"] = run.ranks[ctx["culprit"]].node
        else:
            ctx["reason"] = rng.choice(["PREEMPTION", "TIME LIMIT"]) if layout.startswith("slurm") or layout in ("user_bundle", "torchrun_logdir", "openmpi_tagged", "single_node", "pbs_pals", "lsf_jsrun") else "PREEMPTION"
            if layout in ("pbs_pals", "lsf_jsrun", "sagemaker"):
                ctx["reason"] = "TIME LIMIT"
    if cause == "host_oom_kill":
        if layout in ("k8s_pytorchjob", "gke_jobset_json"):
            ctx["variant"] = "container"
        elif layout == "ray_rl":
            ctx["variant"] = "ray"
    if cause == "gpu_hardware" and layout in ("pbs_pals", "lsf_jsrun", "azureml", "sagemaker") and rng.random() < 0.5:
        ctx["variant"] = "xid79"
    if layout == "slurm_attempts":
        per_job = int(3.2 * 3600 / plan.dt)
        plan.start_step = max(plan.start_step, rng.randint(3, 5) * per_job)
        plan.start_step -= plan.start_step % 10
    end_step = plan.start_step + n_steps + (int(ctx["t_end"] / plan.dt) if "t_end" in ctx else 0)
    if plan.total_steps < end_step * 1.1:
        plan.total_steps = int(end_step * rng.uniform(1.3, 4.0)) // 1000 * 1000 + 1000
    # --- normal output
    startup(run, fw, plan, nn)
    t_stop = ctx.get("t_end", t_f)
    if not ctx.get("jobwide") and fw not in ("verl", "openrlhf"):
        run_normal(run, fw, plan, t_stop, nn, max_lines=30000 if vol == "high" else 2500)
    # --- the fault
    if cause is None:
        t_end = t_f
        if layout == "torchrun_logdir" and rng.random() < 0.5 and nn > 1:
            healthy_restart(run, plan)
        completion_lines(run, fw, plan, t_end)
        set_truth(run, None, None, None, False, rng.choice(["healthy run to completion", "healthy run; noisy warnings only", "healthy run with checkpoint pauses and skipped steps"]))
        if run.meta.get("healthy_restart"):
            run.truth["notes"] = "healthy: attempt_0 died on a transient NCCL error, torchrun restarted and attempt_1 completed"
        if fw == "deepspeed" and rng.random() < 0.6:
            for k in range(rng.randint(1, 6)):
                tt = rng.uniform(plan.t_train0, t_end)
                run.emit(0, tt, "[%s] [INFO] [loss_scaler.py:%d:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: %d, reducing to %d" % (
                    ts_py(run.e(tt, run.ranks[0].node)), rng.choice([183, 190]), 2 ** (17 - k), 2 ** (16 - k)), "out")
    else:
        if cause == "host_oom_kill" and ctx.get("variant") == "container":
            oom_container(run, plan, t_f, ctx)
        elif cause == "host_oom_kill" and ctx.get("variant") == "ray":
            oom_ray(run, plan, t_f, ctx)
        else:
            INJECT[cause](run, fw, plan, t_f, ctx)
        if run.truth.get("rank") is not None and cause not in ("straggler", "hang", "data_loader_stall", "collective_mismatch"):
            from b4_faults import ev
            ev(run, "launcher", run.truth["rank"])
        if cause == "straggler":
            if rng.random() < 0.5:
                completion_lines(run, fw, plan, ctx["t_end"])
            else:
                run.meta["user_cancel"] = True
                t_limit = ctx["t_end"]
                for x in run.ranks:
                    run.set_exit(x.r, t_limit + rng.uniform(0, 2), "signal", 15)
                run.meta["hit_limit"] = True
        if cause == "preemption" and ctx.get("reason") == "TIME LIMIT":
            run.meta["preempt_job"] = "TIME LIMIT"
    t_end_dec = ctx.get("t_end", t_f)
    decoys(run, plan, t_end_dec, cause is None)
    settle(run, run.meta["policy"], t_limit)
    if run.meta.get("preempt_job") == "TIME LIMIT":
        run.meta["hit_limit"] = True
    render(run, plan)
    if run.meta.get("volume") == "high":
        rotate_biggest(run)
    finalize(run)
    return run


def shrink_topology(run: Run, shrink: int):
    """Halve the number of nodes (re-run of setup cannot be partial, so cut the tail)."""
    keep = max(1, len(run.nodes) >> shrink)
    if keep >= len(run.nodes):
        return
    run.nodes = run.nodes[:keep]
    run.ranks = [rk for rk in run.ranks if rk.node in run.nodes]


def oom_container(run: Run, plan: Plan, t_f: float, ctx: dict):
    from b4_faults import pick_coll, propagate, oom_cgroups, must, ev
    from b4_text import oom_kill_block
    rng = run.rng
    nd = run.ranks[ctx["culprit"]].node
    local = run.ranks_on(nd)
    victim = rng.choice(local)
    cg, tcg = oom_cgroups(run, victim)
    oom_kill_block(run, nd, t_f, victim.pid, "python", cg, tcg, sorted((x.pid, "python", rng.randint(5 * 10 ** 6, 9 * 10 ** 6)) for x in local))
    for x in local:
        run.set_exit(x.r, t_f + rng.uniform(0.01, 0.3), "signal", 9)
    run.meta["k8s_oom_pod"] = nd
    propagate(run, plan, [x.r for x in local], t_f, "dead", pick_coll(run, plan, plan.step_at(t_f)), quick_p=0.5)
    must(run, "launcher", None)
    set_truth(run, "host_oom_kill", nd.first_rank, nd, False, "pod %s hit its memory limit; the container was OOMKilled (exit 137)" % nd.host, rank_known=False)


def oom_ray(run: Run, plan: Plan, t_f: float, ctx: dict):
    from b4_faults import pick_coll, propagate, must, ev
    rng = run.rng
    r = ctx["culprit"]
    nd = run.ranks[r].node
    run.set_exit(r, t_f + 0.05, "signal", 9)
    run.meta["ray_oom"] = True
    propagate(run, plan, [r], t_f, "dead", pick_coll(run, plan, plan.step_at(t_f)), quick_p=0.5)
    ev(run, "launcher", r)
    must(run, "launcher", None)
    set_truth(run, "host_oom_kill", r, nd, False, "Ray's memory monitor killed rank %d's actor on %s (node memory above threshold)" % (r, nd.host))


def rotate_biggest(run: Run):
    """logrotate-style: big log -> log, log.1, log.2.gz"""
    rng = run.rng
    cands = [(len(v), p) for p, v in run.files.items() if isinstance(v, str) and not p.endswith(".json")]
    if not cands:
        return
    size, p = max(cands)
    if size < 200_000:
        return
    txt = run.files[p]
    lines = txt.split("\n")
    n = len(lines)
    if run.layout.startswith("slurm") or run.layout == "torchrun_logdir":
        # the user gzipped the big file before handing it over
        del run.files[p]
        run.files[p + ".gz"] = gz(txt)
        return
    a, b = int(n * rng.uniform(0.35, 0.5)), int(n * rng.uniform(0.86, 0.93))
    if run.layout == "k8s_pytorchjob":
        # kubelet rotation, copied from /var/log/pods/<ns>_<pod>_<uid>/pytorch/ on the node
        pod = p.rsplit("/", 1)[-1][:-4]
        base = "var-log-pods/%s_%s_%s/pytorch/" % (run.meta.get("ns", "default"), pod, run.meta.setdefault("poduid", "%s-%s-%s-%s-%s" % (
            hexid(rng, 8), hexid(rng, 4), hexid(rng, 4), hexid(rng, 4), hexid(rng, 12))).replace("_", "-"))
        del run.files[p]
        from b4_common import dt as _dt
        t1 = run.t0 + run.meta.get("t_fault", 0) * 0.45
        t2 = run.t0 + run.meta.get("t_fault", 0) * 0.9
        run.files[base + "0.log.%s.gz" % _dt(t1).strftime("%Y%m%d-%H%M%S")] = gz("\n".join(lines[:a]) + "\n")
        run.files[base + "0.log.%s.gz" % _dt(t2).strftime("%Y%m%d-%H%M%S")] = gz("\n".join(lines[a:b]) + "\n")
        run.files[base + "0.log"] = "\n".join(lines[b:])
        return
    run.files[p + ".2.gz"] = gz("\n".join(lines[:a]) + "\n")
    if rng.random() < 0.5 and (b - a) * 120 < 350_000:
        run.files[p + ".1"] = "\n".join(lines[a:b]) + "\n"      # logrotate delaycompress
    else:
        run.files[p + ".1.gz"] = gz("\n".join(lines[a:b]) + "\n")
    run.files[p] = "\n".join(lines[b:])


# ------------------------------------------------------------------ truth
def rank_inferable(run: Run) -> bool:
    T = run.truth
    if T["cause"] is None or T["rank"] is None:
        return True
    if not T.get("rank_known", True):
        return False
    c = coll(run)
    r = T["rank"]
    W = run.world
    mapping = (run.meta.get("nccl_info") and r in c["ranks"]) or r in c["pid_ranks"]
    for (kind, key) in run.meta.get("evidence", []):
        if kind == "rank" and key in c["ranks"]:
            return True
        if kind == "launcher" and key in c["launcher_ranks"]:
            return True
        if kind in ("kernel", "kernel_pid") and key in c["kernel"] and mapping:
            return True
        if kind == "kernel_self" and key in c["kernel"]:
            return True
        if kind == "extra" and key in c["extras"]:
            return True
        if kind == "extra_map" and key in c["extras"] and mapping:
            return True
        if kind == "peers" and any(x in c["ranks"] for x in range(W) if x != key):
            return True
        if kind == "all" and len(c["ranks"]) >= W:
            # absence reasoning only works if every other rank visibly timed out
            others_ok = all(any("Watchdog caught collective operation timeout" in x for (_, _, x) in run.rank_lines(q)) for q in range(W) if q != r)
            if others_ok:
                return True
    return False


def finalize(run: Run):
    T = run.truth
    nd = T.get("node_obj")
    aliases = []
    if nd is not None:
        for a in [short(nd.host)] + list(nd.aliases) + ([nd.k8s_node] if nd.k8s_node else []) + [nd.ip]:
            if a and a != nd.host and a not in aliases:
                aliases.append(a)
    run.truth_json = {
        "cause": T["cause"],
        "healthy": T["cause"] is None,
        "rank": T["rank"],
        "node": T["node"],
        "drain": bool(T["drain"]),
        "rank_inferable": bool(rank_inferable(run)),
        "node_aliases": aliases,
        "layout": run.layout,
        "notes": T["notes"] if T["notes"].endswith(".") else T["notes"] + ".",
    }


def total_bytes(run: Run) -> int:
    return sum(len(v.encode("utf-8")) if isinstance(v, str) else len(v) for v in run.files.values())


def write_run(out: str, run: Run):
    d = os.path.join(out, "run-%03d-%s" % (run.idx, run.layout))
    os.makedirs(d, exist_ok=True)
    for p in sorted(run.files):
        fp = os.path.join(d, p)
        os.makedirs(os.path.dirname(fp), exist_ok=True)
        v = run.files[p]
        with open(fp, "wb") as f:
            f.write(v.encode("utf-8") if isinstance(v, str) else v)
    with open(os.path.join(d, "truth.json"), "w", encoding="utf-8") as f:
        json.dump(run.truth_json, f, indent=2)
        f.write("\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default=None, help="comma list of layouts to restrict to (debugging)")
    ap.add_argument("-q", "--quiet", action="store_true")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    sched = schedule(a.n, a.seed)
    for i, (layout, cause) in enumerate(sched):
        if a.only and layout not in a.only.split(","):
            continue
        run = None
        for shrink in range(5):
            run = build(a.seed, i, layout, cause, shrink)
            if total_bytes(run) <= MAX_BYTES:
                break
        write_run(a.out, run)
        if not a.quiet:
            t = run.truth_json
            print("run-%03d %-16s %-22s rank=%-5s node=%-28s inferable=%-5s files=%d bytes=%d" % (
                i, layout, t["cause"], t["rank"], t["node"], t["rank_inferable"], len(run.files), total_bytes(run)))


if __name__ == "__main__":
    main()
