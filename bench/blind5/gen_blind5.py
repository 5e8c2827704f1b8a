#!/usr/bin/env python3
"""blind5: independent generator of failed (and healthy) multi-node accelerator runs.

    python3 bench/blind5/gen_blind5.py --out DIR --n 60 --seed 1

Writes DIR/run-NNN-<layout>/ with the files a real job would leave, exported the way
people collect them (kubectl/stern/Loki/Elastic/CloudWatch/GCP/Datadog/journald/syslog/CI
or the native files), plus truth.json.  Python 3.11 standard library only.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from b5_core import CAUSES, Run, hexid, alnum, f_pylog, f_ray, utc   # noqa: E402
from b5_platforms import PLATFORMS                                    # noqa: E402
from b5_export import EXPORTERS                                       # noqa: E402
import b5_torch                                                       # noqa: E402
import b5_other                                                       # noqa: E402
import b5_ray                                                         # noqa: E402

MAX_RUN_BYTES = 1_000_000

# (stack factory, platform choices, weight)
STACKS = [
    ("pytorch-nccl", lambda rng: b5_torch.TorchStack(rng, "cuda"), ["slurm", "slurm", "slurm", "k8s", "k8s", "k8s", "sagemaker", "vertex", "ssh", "ssh", "ray"], 5),
    ("pytorch-rccl", lambda rng: b5_torch.TorchStack(rng, "rocm"), ["slurm", "slurm", "k8s", "ssh"], 2),
    ("gaudi-hccl", lambda rng: b5_torch.TorchStack(rng, "hpu"), ["k8s", "ssh", "slurm"], 1),
    ("ascend-hccl", lambda rng: b5_torch.TorchStack(rng, "npu"), ["k8s", "ssh"], 1),
    ("neuron", lambda rng: b5_other.NeuronStack(rng), ["slurm", "k8s"], 1),
    ("jax", lambda rng: b5_other.JaxStack(rng), ["tpuvm", "tpuvm", "slurm", "k8s"], 2),
    ("tf-mwms", lambda rng: b5_other.TfStack(rng), ["k8s", "vertex"], 1),
    ("horovod", lambda rng: b5_other.HorovodStack(rng), ["ssh", "k8s"], 1),
    ("paddle", lambda rng: b5_other.PaddleStack(rng), ["ssh", "k8s"], 1),
    ("vllm-ray", lambda rng: b5_ray.VllmStack(rng), ["ray"], 2),
    ("rl-ray", lambda rng: b5_ray.RlStack(rng), ["ray"], 2),
    ("sglang", lambda rng: b5_ray.SglangStack(rng), ["k8s", "slurm"], 1),
]


def stack_causes(stack):
    return stack.causes[stack.device] if isinstance(stack.causes, dict) else stack.causes


def choose_stack(rng, cause=None):
    """Pick a stack; when a cause is given, only stacks that can produce it (weighted)."""
    pool = []
    for name, fac, pfs, w in STACKS:
        if cause is not None:
            probe = fac(__import__("random").Random(0))
            if cause not in stack_causes(probe):
                continue
        pool.append((name, fac, pfs, w))
    tot = sum(w for *_x, w in pool)
    x = rng.uniform(0, tot)
    for name, fac, pfs, w in pool:
        x -= w
        if x <= 0:
            return name, fac(rng), pfs
    name, fac, pfs, w = STACKS[0]
    return name, fac(rng), pfs


def k8s_operator_for(stack_name, rng):
    return {"tf-mwms": "tfjob", "horovod": "mpijob", "paddle": "paddlejob", "sglang": rng.choice(["lws", "jobset"]),
            "neuron": rng.choice(["pytorchjob", "jobset"]), "jax": "jobset",
            "ascend-hccl": rng.choice(["volcano", "pytorchjob"]), "gaudi-hccl": rng.choice(["pytorchjob", "mpijob"])}.get(
        stack_name, rng.choice(["pytorchjob", "pytorchjob", "jobset", "volcano"]))


def build_run(idx, seed):
    rng = random.Random(seed * 1_000_003 + idx * 7919 + 17)
    R = Run(rng, idx)
    R.t0 = rng.uniform(1704067200, 1759190400)   # 2024-01-01 .. 2025-09-30
    want = None if rng.random() < 1 / 7 else rng.choice(CAUSES)
    sname, stack, pfs = choose_stack(rng, want)
    pname = rng.choice(pfs)
    pf = PLATFORMS[pname](rng)
    R.meta["pf"] = pname
    ename = rng.choice(pf.exporters)
    nn, gpn = stack.shape(R) if hasattr(stack, "shape") else b5_core_shape(rng, stack)
    cap = 64 if ename in ("datadog", "elastic", "loki", "ci") else 32 if ename in ("gcp", "cloudwatch") else 512
    if cap < 512:
        R.meta["step_lines"] = (30, 80)
    if pname in ("vertex", "sagemaker"):
        cap = min(cap, 32)
    cap = min(cap, 256)
    while nn * gpn > cap and nn > 1:
        nn //= 2
    if ename in ("gcp", "cloudwatch") or pname in ("vertex", "sagemaker"):
        nn = min(nn, 8)
    style, kind = stack.host_style() if hasattr(stack, "host_style") else ("plain", None)
    if pname == "slurm":
        pf.setup(R, nn, gpn, style if style not in ("aws", "gce", "ascend", "gaudi") or rng.random() < 0.3 else "pcluster" if style == "aws" else style, kind,
                 launcher=getattr(stack, "slurm_launcher", None))
    elif pname == "k8s":
        op = k8s_operator_for(sname, rng)
        pf.setup(R, nn, gpn, operator=op)
    elif pname == "ray":
        pf.setup(R, nn, gpn, style=rng.choice(["aws", "gce", "plain", "gpu-dash"]), actor=getattr(stack, "actor", "RayTrainWorker"))
    elif pname == "ssh":
        pf.setup(R, nn, gpn, style=style if style != "aws" else rng.choice(["aws", "gpu-dash"]), kind=kind,
                 launcher=getattr(stack, "ssh_launcher", None) or rng.choice(["mpirun", "pdsh"]))
    elif pname == "sagemaker":
        pf.setup(R, nn, gpn, launcher=rng.choice(["mpi", "torchrun"]))
    else:
        pf.setup(R, nn, gpn)
    causes = stack_causes(stack)
    if pname in ("vertex", "sagemaker"):
        # no node kernel logs are reachable there: keep causes whose evidence reaches the job log
        causes = [c for c in causes if c not in ("gpu_hardware", "nvlink")]
    cause = want if (want is None or want in causes) else rng.choice(causes)
    stack.run(R, cause)
    post_platform(R, pf, stack, rng)
    streams = pf.finish(R)
    if R.meta.get("evidence_kernel") and ename in ("cloudwatch",) and not any(s.kind == "kernel" for s in streams):
        pass
    ex = EXPORTERS[ename](rng, R, pf, streams)
    files = ex.run()
    for p, c in R.files.items():
        files[p] = c
    R.layout = f"{ename}-{pname}-{sname}"
    return R, files


def b5_core_shape(rng, stack):
    from b5_core import pick_shape
    return pick_shape(rng)


def post_platform(R, pf, stack, rng):
    """Platform-specific consequences (SageMaker describe, Ray Train driver errors...)."""
    pname = pf.name
    if pname == "sagemaker":
        status = "Completed" if R.exit_code == 0 else "Failed"
        d = {"TrainingJobName": R.meta["job"], "TrainingJobStatus": status,
             "SecondaryStatus": "Completed" if status == "Completed" else ("Stopped" if R.cause == "preemption" else "Failed"),
             "ResourceConfig": {"InstanceType": "ml.p4d.24xlarge" if R.gpn == 8 else "ml.g5.12xlarge", "InstanceCount": len(R.nodes), "VolumeSizeInGB": 500},
             "TrainingStartTime": utc(R.t0 - 240).isoformat(), "TrainingEndTime": utc(R.t_end + 120).isoformat()}
        if status == "Failed":
            if R.cause == "preemption":
                d["TrainingJobStatus"] = "Stopped"
                d["FailureReason"] = "Spot capacity reclaimed: the managed spot training job was interrupted (InternalServerError)"
            else:
                em = ""
                if R.culprit_rank is not None:
                    for (t, rk, std, text) in R.app:
                        if rk == R.culprit_rank and ("Error" in text or "error" in text) and not text.lstrip().startswith("File"):
                            em = text.split("]: ", 1)[-1].strip()[:180]
                            break
                em = em.replace('"', "'")
                if R.meta.get("launcher") == "torchrun":
                    cmd = f"torchrun --nnodes {len(R.nodes)} --nproc_per_node {R.gpn} --master_addr algo-1 --master_port 7777 --node_rank 0 train.py"
                else:
                    cmd = (f"mpirun --host {','.join(f'algo-{i + 1}:{R.gpn}' for i in range(len(R.nodes)))} -np {R.world} --allow-run-as-root --tag-output --oversubscribe "
                           f"-mca btl_tcp_if_include eth0 -mca oob_tcp_if_include eth0 -x NCCL_DEBUG=WARN smddprun /opt/conda/bin/python3.10 -m mpi4py train.py")
                d["FailureReason"] = f"AlgorithmError: ExecuteUserScriptError:\nExitCode 1\nErrorMessage \"{em}\"\nCommand \"{cmd}\", exit code: 1"
        R.meta["sm_describe"] = d
    if pname == "ray" and getattr(stack, "name", "").startswith("pytorch"):
        # Ray Train driver output
        t_end = R.t_end
        R.drv(R.t0 - 20, f"{f_ray(R.t0 - 20)}\tINFO worker.py:1774 -- Connecting to existing Ray cluster at address: {R.meta['head_ip']}:6379...")
        R.drv(R.t0 - 19, f"{f_ray(R.t0 - 19)}\tINFO worker.py:1951 -- Connected to Ray cluster. View the dashboard at \x1b[1m\x1b[32mhttp://{R.meta['head_ip']}:8265 \x1b[39m\x1b[22m")
        R.drv(R.t0 - 10, f"(TrainTrainable pid={rng.randint(2000, 90000)}) Started distributed worker processes: ")
        for n in R.nodes[: min(4, len(R.nodes))]:
            R.drv(R.t0 - 9, f"(TrainTrainable pid={rng.randint(2000, 90000)}) - (node_id={R.meta['node_ids'][n.idx]}, ip={n.ip}, pid={R.pid(n.first_rank)}) world_rank={n.first_rank}, local_rank=0, node_rank={n.idx}")
        if R.exit_code != 0:
            R.drv(t_end + 2, "ray.train.base_trainer.TrainingFailedError: The Ray Train run failed. Please inspect the previous error messages for a cause. "
                             "After fixing the issue (assuming that the error is not caused by your own application logic, but rather an error such as OOM), "
                             "you can restart the run from scratch or continue this run.", "stderr")
        else:
            R.drv(t_end + 2, f"Training completed after {rng.randint(1, 40)} iterations at {utc(t_end).strftime('%Y-%m-%d %H:%M:%S')}. Total running time: {int((t_end - R.t0) // 60)}min {int((t_end - R.t0) % 60)}s")
        for (t, kind, ni, info) in R.events:
            if kind == "oom_kill" and ni is not None:
                n = R.nodes[ni]
                R.agent(ni, t + 0.3, f"[{f_ray(R.lt(ni, t + 0.3))} E {rng.randint(100, 999)} {rng.randint(100, 999)}] (raylet) node_manager.cc:3069: 1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: {R.meta['node_ids'][ni]}, IP: {n.ip}) over the last time period. To see more information about the Workers killed on this node, use `ray logs raylet.out -ip {n.ip}`")
            if kind == "node_preempt" and ni is not None:
                R.drv(t + 15, f"{f_ray(t + 15)}\tWARNING worker.py:2251 -- The node with node id: {R.meta['node_ids'][ni]} and address: {R.nodes[ni].ip} and node name: {R.nodes[ni].ip} has been marked dead because the detector has missed too many heartbeats from it. This can happen when a \t(1) raylet crashes unexpectedly (OOM, etc.) \n\t(2) raylet has lagging heartbeats due to slow network or busy workload.", "stderr")


def write_run(out_dir, idx, R, files):
    name = f"run-{idx:03d}-{R.layout}"
    d = os.path.join(out_dir, name)
    os.makedirs(d, exist_ok=True)
    total = 0
    for p in sorted(files):
        c = files[p]
        b = c if isinstance(c, (bytes, bytearray)) else c.encode("utf-8")
        total += len(b)
    if total > MAX_RUN_BYTES:
        files = shrink(files, R)
    for p in sorted(files):
        c = files[p]
        b = c if isinstance(c, (bytes, bytearray)) else c.encode("utf-8")
        fp = os.path.join(d, p)
        os.makedirs(os.path.dirname(fp), exist_ok=True)
        with open(fp, "wb") as f:
            f.write(b)
    with open(os.path.join(d, "truth.json"), "w") as f:
        json.dump(R.truth(), f, indent=2, sort_keys=True)
        f.write("\n")
    return name


STEP_RE = None


def shrink(files, R):
    """Keep runs under the size cap without touching the failure evidence: first thin out routine
    progress lines (step/iteration/loss logs), then trim the oldest part of the largest file."""
    import re
    step_re = re.compile(r"(iteration\s+\d+/|step[:= ]\s*\d+|'loss': |it/s|MnRtt/Rnk|tokens/s|Avg prompt throughput|samples/sec)")
    out = dict(files)

    def size():
        return sum(len(c if isinstance(c, (bytes, bytearray)) else c.encode()) for c in out.values())

    for _ in range(4):
        if size() <= MAX_RUN_BYTES:
            return out
        for p in sorted(out, key=lambda p: -len(out[p]) if not isinstance(out[p], (bytes, bytearray)) else 0)[:3]:
            c = out[p]
            if isinstance(c, (bytes, bytearray)) or p.endswith(".json"):
                continue
            lines = c.split("\n")
            keep, k = [], 0
            for ln in lines:
                if step_re.search(ln):
                    k += 1
                    if k % 2 == 0:
                        continue
                keep.append(ln)
            out[p] = "\n".join(keep)
    redundant = re.compile(r"(frame #\d+: |error_file: |Exception raised from |^\S*\s+time\s+: |-{30,}|={30,}|Sending process \d+ closing)")
    for p in sorted(out, key=lambda p: -len(out[p]) if not isinstance(out[p], (bytes, bytearray)) else 0)[:3]:
        if size() <= MAX_RUN_BYTES:
            return out
        c = out[p]
        if isinstance(c, (bytes, bytearray)) or p.endswith(".json"):
            continue
        lines = c.split("\n")
        seen = {}
        keep = []
        for ln in lines:
            m = redundant.search(ln)
            if m:
                key = m.group(1)[:14]
                seen[key] = seen.get(key, 0) + 1
                if seen[key] > 20:
                    continue
            keep.append(ln)
        out[p] = "\n".join(keep)
    for _ in range(12):
        if size() <= MAX_RUN_BYTES:
            break
        big = max(out, key=lambda p: len(out[p]) if not isinstance(out[p], (bytes, bytearray)) else 0)
        c = out[big]
        if isinstance(c, (bytes, bytearray)):
            break
        if big.endswith(".json") and c.lstrip().startswith(("{", "[")):
            try:
                doc = json.loads(c)
            except Exception:
                doc = None
            if isinstance(doc, list):          # gcloud: newest first -> drop the oldest tail
                doc = doc[: int(len(doc) * 0.75)]
                out[big] = json.dumps(doc, indent=1, ensure_ascii=False)
                continue
            if isinstance(doc, dict) and "events" in doc:
                doc["events"] = doc["events"][int(len(doc["events"]) * 0.25):]
                out[big] = json.dumps(doc, indent=1, ensure_ascii=False)
                continue
        lines = c.split("\n")
        cut = int(len(lines) * 0.2)
        newest_first = big.endswith((".csv", ".jsonl")) or "loki" in big
        out[big] = "\n".join(lines[:len(lines) - cut] if newest_first else lines[cut:])
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    names = []
    for i in range(args.n):
        R, files = build_run(i, args.seed)
        names.append(write_run(args.out, i, R, files))
    print(f"wrote {len(names)} runs to {args.out}")


if __name__ == "__main__":
    main()
