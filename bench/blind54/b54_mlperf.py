"""MLPerf Training reference runs: :::MLLOG lines inside a Slurm job log."""
import json
from b54_common import (Ctx, CAUSES as ALL, nccl_info_lines, py_warnings, BENIGN_NCCL_WARN,
                        nccl_prefix, kfile, render_kernel, kernel_noise)
from b54_torchfail import compose, render

CAUSES = list(ALL)

BENCH = [
    # name, script, eval target, higher_is_better, samples/epoch, epochs
    ("resnet", "train_imagenet.py", 0.759, True, 1281167, 40),
    ("bert", "run_pretraining.py", 0.720, True, 0, 0),
    ("llama2_70b_lora", "train.py", 0.925, False, 0, 0),
    ("retinanet", "train.py", 0.340, True, 1170301, 6),
]


class MLLog:
    def __init__(self, ctx, script):
        self.ctx, self.script = ctx, script
        self.ms0 = int((ctx.t0.timestamp()) * 1000)
        self.lines = []   # (secs, rank, text)

    def ev(self, secs, key, value=None, etype="POINT_IN_TIME", **meta):
        md = {"file": "/workspace/%s" % self.script, "lineno": self.ctx.rng.randint(40, 900)}
        md.update(meta)
        d = {"namespace": "", "time_ms": self.ms0 + int(secs * 1000), "event_type": etype,
             "key": key, "value": value, "metadata": md}
        self.lines.append((secs, 0, ":::MLLOG " + json.dumps(d)))


def gen(rng, cause):
    ctx = Ctx(rng, nnodes=rng.choice([1, 2, 2, 4, 8]))
    name, script, target, hib, spe, epochs = rng.choice(BENCH)
    launcher = rng.choice(["torchrun", "srun"])
    style = "srun_l" if launcher == "srun" else "torchrun_tee"
    ks = rng.choice(["syslog", "dmesg", "dmesg_T"])
    m = MLLog(ctx, script)
    ev = []
    pre = ["+ echo 'STARTING TIMING RUN AT %s'" % ctx.iso(0), "STARTING TIMING RUN AT %s" % ctx.iso(0),
           "running benchmark %s" % name,
           "pyxis: imported docker image: nvcr.io/nvdlfwea/mlperfv%d/%s:%s" % (rng.choice([31, 40, 41]), name, rng.choice(["20240412", "latest", "20241003.pytorch"]))]
    if launcher == "torchrun":
        pre.append("+ srun -l --ntasks-per-node=1 torchrun --nnodes=%d --nproc_per_node=%d --rdzv_backend=c10d --rdzv_endpoint=%s:29500 --tee 3 %s" % (
            ctx.nnodes, ctx.gpn, ctx.hosts[0], script) if ctx.nnodes > 1 else "+ torchrun --standalone --nproc_per_node=%d --tee 3 %s" % (ctx.gpn, script))
        if rng.random() < 0.6:
            pre.append("WARNING:torch.distributed.run:")
            pre.append("*****************************************")
            pre.append("Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ")
            pre.append("*****************************************")
    else:
        pre.append("+ srun -l --mpi=pmix --ntasks=%d --ntasks-per-node=%d --container-image=... ./run_and_time.sh" % (ctx.world, ctx.gpn))
    # noise from a few ranks
    for w in py_warnings(ctx, rng.randint(1, 3)):
        ev.append((rng.uniform(1, 20), rng.randint(0, ctx.world - 1), w))
    for r in ctx.ranks[:: max(1, ctx.world // 3)]:
        if rng.random() < 0.5:
            ev.append((rng.uniform(20, 40), r.rank, "\n".join(nccl_info_lines(ctx, r, rng.randint(1, 4), ib=ctx.nnodes > 1))))
    if rng.random() < 0.5:
        r = ctx.pick_rank()
        ev.append((rng.uniform(20, 40), r.rank, "%s %s" % (nccl_prefix(ctx, r), rng.choice(BENIGN_NCCL_WARN[:2]))))
    m.ev(1, "cache_clear", True)
    m.ev(2, "init_start", None, "INTERVAL_START")
    m.ev(3, "submission_benchmark", name)
    m.ev(3, "submission_org", rng.choice(["reference", "NVIDIA", "acme-labs"]))
    m.ev(3, "submission_platform", "%dx%s" % (ctx.nnodes, rng.choice(["DGXH100", "XE9680", "SYS-821GE"])))
    m.ev(3, "global_batch_size", ctx.world * rng.choice([8, 16, 32, 64]))
    m.ev(3, "seed", rng.randint(1, 65535))
    m.ev(3, "opt_base_learning_rate", rng.choice([0.0004, 0.00036, 2.5, 0.0001]))
    t = rng.uniform(120, 400)
    m.ev(t, "init_stop", None, "INTERVAL_END")
    m.ev(t + 0.01, "run_start", None, "INTERVAL_START")
    run_t0 = t
    nblocks = rng.randint(6, 14)
    per = rng.uniform(120, 400)
    fail_block = rng.randint(2, nblocks - 2) if cause else None
    straggler = None
    if cause == "straggler":
        straggler = ctx.pick_rank()
        per *= rng.uniform(1.3, 1.7)
    score = 0.2 if hib else 3.4
    res = None
    for b in range(nblocks):
        bs = run_t0 + b * per
        if fail_block is not None and b == fail_block and cause != "straggler":
            res = compose(ctx, cause, bs + rng.uniform(10, per - 10), script, launcher, "train", ks)
            break
        m.ev(bs, "block_start", None, "INTERVAL_START", first_epoch_num=b + 1, epoch_count=1)
        if rng.random() < 0.4:
            ev.append((bs + per * 0.3, 0, "[%s] step %d: loss %.4f, lr %.3e, %.1f samples/s" % (
                ctx.iso(bs + per * 0.3), (b + 1) * 500, 2.5 / (b + 1) + rng.uniform(0, 0.1), 1e-4, rng.uniform(9000, 12000))))
        if straggler is not None:
            for r in ctx.ranks[:: max(1, ctx.world // 6)] + [straggler]:
                slow = r is straggler
                ev.append((bs + per * 0.5 + r.rank * 1e-3, r.rank, "[timer] rank %d host %s block %d: iter %.3fs (fwd %.3fs bwd %.3fs comm-wait %.3fs)" % (
                    r.rank, r.host, b + 1, (1.9 if slow else 1.2) * rng.uniform(0.98, 1.03), 0.41 * (1.8 if slow else 1),
                    0.63 * (1.8 if slow else 1), 0.02 if slow else 0.71)))
        m.ev(bs + per * 0.9, "eval_start", None, "INTERVAL_START", epoch_num=b + 1)
        score = score + (target - score) * rng.uniform(0.3, 0.5) if b < nblocks - 1 else (target + 0.003 if hib else target - 0.004)
        m.ev(bs + per * 0.95, "eval_accuracy", round(score, 4), epoch_num=b + 1)
        m.ev(bs + per * 0.96, "eval_stop", None, "INTERVAL_END", epoch_num=b + 1)
        m.ev(bs + per * 0.97, "block_stop", None, "INTERVAL_END", first_epoch_num=b + 1)
    files, truth = {}, {"initiator": None, "notes": ""}
    tail = []
    kern = []
    if res is None:
        tend = run_t0 + nblocks * per
        m.ev(tend, "run_stop", None, "INTERVAL_END", status="success")
        tail.append("ENDING TIMING RUN AT %s" % ctx.iso(tend + 5))
        tail.append("RESULT,%s,,%d,%s,%s" % (name, int(tend - run_t0 + 5), "root", ctx.iso(0)))
        if cause == "straggler":
            truth["initiator"] = {"rank": straggler.rank, "node": straggler.host}
            truth["notes"] = "rank %d on %s runs ~1.6x slower every block; others spend the difference in comm-wait; time-to-train far over the usual" % (straggler.rank, straggler.host)
        else:
            truth["notes"] = "healthy MLPerf run reaching target; benign warnings only"
            if rng.random() < 0.4:
                r = ctx.pick_rank()
                ev.append((run_t0 + 30, r.rank, "[rank%d]:[W%s ProcessGroupNCCL.cpp:4043] Warning: TORCH_NCCL_AVOID_RECORD_STREAMS is the default now, this environment variable is thus deprecated. (function operator())" % (
                    r.rank, ctx.glog_ts(run_t0 + 30, r.host))))
    else:
        ev += res["ev"]
        tail = res["tail"]
        truth["initiator"] = res["initiator"]
        truth["notes"] = res["note"]
        kern = res["kern"]
        if cause == "preemption" and rng.random() < 0.3:
            m.ev(max(e[0] for e in ev + m.lines) + 1, "run_stop", None, "INTERVAL_END", status="aborted")
    body = "\n".join(pre) + "\n" + render(ctx, ev, style, m.lines, tail)
    files["slurm-%d.out" % ctx.jobid] = body
    if rng.random() < 0.4:
        ml = [l for _, _, l in sorted(m.lines, key=lambda x: x[0])]
        files["mllog.txt"] = "\n".join(ml) + "\n"
    if kern:
        files[kfile(ks, res["kern_host"])] = render_kernel(kern)
    elif cause is None and rng.random() < 0.2:
        files[kfile(ks, ctx.hosts[0])] = render_kernel(kernel_noise(ctx, ctx.hosts[0], 50, ks, 6))
    return files, truth
