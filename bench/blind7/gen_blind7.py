#!/usr/bin/env python3
"""blind7: generator of whole job folders of long, failed (or healthy) multi-GPU training runs.

    python3 bench/blind7/gen_blind7.py --out DIR --n 60 --seed 1

Standard library only.  Same --seed -> same bytes.  See README.md next to this file.
"""
import argparse
import gzip
import json
import os
import random
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from b7_core import (slurm_dur, ts_py, ts_iso, ts_plain, ts_syslog, ts_journal, ts_ctime, ts_slurm, ts_date_cmd, ts_glog, ts_torchrun_dir,
                     hostlist, hms_dur, ranges)
from b7_sim import build_job, plan_training, simulate_training, startup_all, finalize, make_names
from b7_scen import Scenario, CAUSES, add_decoys
from b7_text import agent_line

LAYOUTS = {
    "slurm_task_files": dict(launcher="srun", sched="slurm", trainers=["megatron", "plain", "titan", "deepspeed", "fairseq", "megatron"],
                             nodes=(2, 64), naming=["gpu-dash", "nid", "fqdn", "pcluster"]),
    "slurm_srun_l": dict(launcher="srun", sched="slurm", trainers=["megatron", "deepspeed", "plain", "timm", "mmengine"],
                         nodes=(2, 32), naming=["gpu-dash", "nid", "fqdn"]),
    "torchrun_logdir": dict(launcher="torchrun", sched="slurm", trainers=["titan", "plain", "hf", "composer", "megatron"],
                            nodes=(2, 32), naming=["gpu-dash", "nid", "aws", "pcluster", "fqdn"]),
    "per_node_torchrun": dict(launcher="torchrun", sched="slurm", trainers=["titan", "megatron", "plain", "hf"],
                              nodes=(2, 64), naming=["gpu-dash", "nid", "aws", "fqdn"]),
    "k8s_pytorchjob": dict(launcher="k8s", sched="k8s", trainers=["hf", "titan", "plain", "composer", "deepspeed"],
                           nodes=(2, 32), naming=["k8s"]),
    "deepspeed_pdsh": dict(launcher="deepspeed", sched="none", trainers=["deepspeed"], nodes=(2, 16), naming=["gpu-dash", "fqdn", "aws"]),
    "pbs_mpirun": dict(launcher="mpirun", sched="pbs", trainers=["timm", "fairseq", "plain", "mmengine"], nodes=(2, 16),
                       naming=["gpu-dash", "nid", "fqdn"], torch=["2.1.2", "2.3.1", "2.4.1", "2.5.1"]),
    "nemo_expdir": dict(launcher="srun", sched="slurm", trainers=["nemo"], nodes=(2, 32), naming=["gpu-dash", "nid", "pcluster"],
                        torch=["2.3.1", "2.4.1", "2.5.1", "2.6.0"]),
    "requeue_chain": dict(launcher="srun", sched="slurm", trainers=["megatron", "titan", "plain", "deepspeed"], nodes=(2, 16),
                          naming=["gpu-dash", "nid", "fqdn", "pcluster"]),
    "azureml_job": dict(launcher="azureml", sched="azureml", trainers=["hf", "plain", "deepspeed"], nodes=(2, 16), naming=["azure"],
                        gpus=["A100", "H100", "A100_40"], kernel=False),
}

# causes that need host evidence the layout cannot carry
INCOMPATIBLE = {
    "azureml_job": {"gpu_hardware", "nvlink", "host_oom_kill", "network"},
}

SCRIPT = {"megatron": ("pretrain_gpt.py", "--tensor-model-parallel-size 8 --pipeline-model-parallel-size 2 --use-mcore-models --bf16 --use-distributed-optimizer"),
          "deepspeed": ("train.py", "--deepspeed --deepspeed_config ds_config.json"),
          "hf": ("run_clm.py", "--model_name_or_path meta-llama/Llama-3.1-8B --bf16 --fsdp 'full_shard auto_wrap'"),
          "titan": ("torchtitan/train.py", "--job.config_file ./torchtitan/models/llama3/train_configs/llama3_70b.toml"),
          "composer": ("train.py", "yamls/pretrain/mpt-7b.yaml"),
          "mmengine": ("tools/train.py", "configs/swin/swin-large_upernet_8xb2-160k_cityscapes-1024x1024.py --launcher pytorch"),
          "fairseq": ("fairseq-train", "data-bin/wiki103 --task masked_lm --criterion masked_lm --arch roberta_large --fp16"),
          "timm": ("train.py", "--model vit_large_patch14_clip_224 --data-dir /data/imagenet --amp --epochs 300"),
          "nemo": ("examples/nlp/language_modeling/megatron_gpt_pretraining.py", "--config-path=conf --config-name=megatron_gpt_config"),
          "plain": ("train.py", "--config configs/pretrain.yaml")}


# =======================================================================================
# rendering helpers
# =======================================================================================
def logical_lines(j, r, streams=("o", "e"), trim=True):
    death = j.fates.get(r, {}).get("t") if trim else None
    out = []
    pend = []
    pend_t = None
    for t, seq, st, text in sorted(j.R[r], key=lambda e: (e[0], e[1])):
        if st not in streams:
            continue
        if death is not None and t > death + 0.3:
            continue
        if text.startswith("\r"):
            pend.append(text)
            pend_t = t
            continue
        if pend:
            out.append((t, seq, "".join(pend) + "\r" + text if text else "".join(pend)))
            pend = []
            continue
        out.append((t, seq, text))
    if pend:
        out.append((pend_t, 10 ** 12, "".join(pend) + "\x00NOEOL"))
    return out


def to_text(lines, rng=None, truncate=False):
    s = []
    noeol = False
    for i, (t, seq, text) in enumerate(lines):
        if text.endswith("\x00NOEOL"):
            text = text[:-6]
            noeol = i == len(lines) - 1
        s.append(text)
    if truncate and s and rng is not None and len(s[-1]) > 20:
        s[-1] = s[-1][: rng.randint(8, len(s[-1]) - 5)]
        noeol = True
    body = "\n".join(s)
    return body + ("" if noeol or not s else "\n")


def killed_hard(j, r):
    f = j.fates.get(r)
    return f is not None and f["code"] in (-9, -6, -11) and f["how"] in ("killed_by_srun", "killed_by_mpirun", "oom", "external", "sig")


KFILE = {"syslog": "kern.log", "dmesg_T": "dmesg-T.txt", "dmesg": "dmesg.txt", "journal": "journalctl-k.txt", "iso": "dmesg-iso.txt"}


def kernel_text(j, n, t_from, t_to, fmt, boot=False):
    lines = sorted(j.K[n.idx], key=lambda e: (e[0], e[1]))
    out = []
    if boot and fmt in ("dmesg", "dmesg_T", "iso"):
        pre = [(n.boot + 0.0, "Linux version %s (buildd@lcy02-amd64-%03d) (x86_64-linux-gnu-gcc-11 (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0, GNU ld (GNU Binutils for Ubuntu) 2.38) #%d-Ubuntu SMP" % (j.kernel_ver, j.rng.randint(1, 120), j.rng.randint(60, 130))),
               (n.boot + 0.0, "Command line: BOOT_IMAGE=/boot/vmlinuz-%s root=UUID=%s ro iommu=pt pci=realloc=off numa_balancing=disable" % (j.kernel_ver, "%08x-%04x-%04x-%04x-%012x" % (j.rng.randrange(1 << 32), j.rng.randrange(1 << 16), j.rng.randrange(1 << 16), j.rng.randrange(1 << 16), j.rng.randrange(1 << 48)))),
               (n.boot + 0.0, "DMI: %s" % j.hw_name),
               (n.boot + 2.1, "pci 0000:00:00.0: [8086:09a2] type 00 class 0x088000"),
               (n.boot + 21.3, "nvidia: loading out-of-tree module taints kernel."),
               (n.boot + 21.9, "nvidia-nvlink: Nvlink Core is being initialized, major device number 506"),
               (n.boot + 22.4, "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  %s  Release Build  (dvs-builder@U16-I3-B03-4-3)  Tue Aug 27 18:36:44 UTC 2024" % j.gpu["driver"]),
               (n.boot + 24.0, "mlx5_core 0000:0c:00.0: firmware version: 28.39.1002"),
               (n.boot + 31.5, "EXT4-fs (nvme0n1p2): mounted filesystem with ordered data mode. Quota mode: none."),
               (n.boot + 40.2, "Lustre: Lustre: Build Version: 2.15.4")]
        lines = sorted([(t, 0, x) for t, x in pre] + [e for e in lines if e[0] >= n.boot], key=lambda e: (e[0], e[1]))
        boot_end = n.boot + 60
        lines = [e for e in lines if e[0] <= boot_end or e[0] >= t_from]
        t_from = n.boot
    for t, seq, text in lines:
        if t < t_from or t > t_to:
            continue
        up = t - n.boot
        wc = t + n.skew
        if fmt == "syslog":
            out.append("%s %s kernel: [%12.6f] %s" % (ts_syslog(wc), n.short, up, text))
        elif fmt == "journal":
            out.append("%s %s kernel: %s" % (ts_journal(wc), n.short, text))
        elif fmt == "dmesg_T":
            out.append("[%s] %s" % (ts_ctime(wc + n.dmesg_drift, n.kern_locale), text))
        elif fmt == "iso":
            out.append("%s %s" % (ts_iso(wc, 6, "+00:00").replace(".", ","), text))
        else:
            out.append("[%12.6f] %s" % (up, text))
    return "\n".join(out) + ("\n" if out else "")


def pick_kern_fmt(rng, j):
    for n in j.nodes:
        n.kern_fmt = j.kern_fmt
        if j.kern_fmt == "dmesg_T":
            n.dmesg_drift = rng.choice([0, 0, 0.8, 3.2, -2.5, 41.0])
            n.kern_locale = "de" if rng.random() < 0.15 else "C"


def gz(data):
    return gzip.compress(data, compresslevel=6, mtime=0)


def rotate(name, text, max_bytes, keep, gz_from):
    """split text at line boundaries into name, name.1, ... (older = higher index)."""
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return {name: data}
    chunks = []
    lines = text.splitlines(keepends=True)
    cur = []
    size = 0
    for ln in reversed(lines):
        b = len(ln.encode("utf-8"))
        if size + b > max_bytes and cur:
            chunks.append("".join(reversed(cur)))
            cur = []
            size = 0
        cur.append(ln)
        size += b
    if cur:
        chunks.append("".join(reversed(cur)))
    out = {}
    for i, c in enumerate(chunks[: keep + 1]):
        if i == 0:
            out[name] = c.encode("utf-8")
        elif i >= gz_from:
            out["%s.%d.gz" % (name, i)] = gz(c.encode("utf-8"))
        else:
            out["%s.%d" % (name, i)] = c.encode("utf-8")
    return out


# =======================================================================================
# scheduler / launcher framing
# =======================================================================================
def slurm_header(j, rng, extra_env=()):
    loc = rng.choice(["C", "C", "C", "de", "fr"])
    hl = hostlist([n.short for n in j.nodes])
    L = ["+ date", ts_date_cmd(j.clk(0, j.t0), loc),
         "SLURM_JOB_ID=%d" % j.jobid, "SLURM_JOB_NAME=%s" % j.jobname, "SLURM_JOB_NODELIST=%s" % hl, "SLURM_NNODES=%d" % len(j.nodes),
         "SLURM_NTASKS=%d" % (j.world if j.launcher == "srun" else len(j.nodes)), "MASTER_ADDR=%s MASTER_PORT=%d" % (j.nodes[0].short, j.master_port)]
    env = ["NCCL_DEBUG=%s" % ("INFO" if j.nccl_detail else "WARN"), "NCCL_SOCKET_IFNAME=%s" % j.nodes[0].iface, "TORCH_NCCL_ASYNC_ERROR_HANDLING=1",
           "CUDA_DEVICE_MAX_CONNECTIONS=1", "OMP_NUM_THREADS=8", "PYTHONUNBUFFERED=1"]
    if j.nccl_detail == 1:
        env.append("NCCL_DEBUG_SUBSYS=INIT")
    if j.net == "ib":
        env.append("NCCL_IB_HCA=%s" % ",".join("mlx5_%d" % h for h in j.hca_ids))
    L += ["export %s" % e for e in env + list(extra_env)]
    if rng.random() < 0.5 or getattr(j, "timelimit", None):
        lim = getattr(j, "timelimit", None) or max(86400, int((j.t_last - j.t0) / 86400 + 1) * 86400)
        L.append("+ scontrol show job %d | grep -E 'RunTime|Partition'" % j.jobid)
        L.append("   RunTime=00:00:01 TimeLimit=%s TimeMin=N/A" % slurm_dur(lim))
        L.append("   Partition=%s AllocNode:Sid=%s:%d" % (rng.choice(["gpu", "batch", "h100", "a100-long", "pretrain"]), rng.choice(["login01", "login-2", "slurm-head"]), rng.randint(1000, 99999)))
    if rng.random() < 0.4:
        L.append("+ nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,ecc.errors.uncorrected.volatile.total --format=csv")
        L.append("index, name, pci.bus_id, driver_version, ecc.errors.uncorrected.volatile.total")
        for l in range(j.gpn):
            L.append("%d, %s, 00000000:%s:00.0, %s, 0" % (l, j.gpu["name"], j.gpu["bus"][l].upper(), j.gpu["driver"]))
    return L


def slurm_footer(j, rng, t):
    if rng.random() < 0.5 or len(j.fates) < j.world:
        return []
    state = "COMPLETED (exit code 0)" if all(f["code"] == 0 for f in j.fates.values()) else rng.choice(["FAILED (exit code 1)", "FAILED (exit code 1)", "CANCELLED"])
    wall = t - j.t0
    return ["", "Job ID: %d" % j.jobid, "Cluster: %s" % rng.choice(["eos", "cluster", "hpc2", "gpucl"]), "User/Group: %s/%s" % (j.user, rng.choice(["users", "ml", "research"])),
            "State: %s" % state, "Nodes: %d" % len(j.nodes), "Cores per node: %d" % rng.choice([96, 112, 128, 192]),
            "CPU Utilized: %s" % slurm_dur(wall * rng.uniform(6, 40)), "CPU Efficiency: %.2f%% of %s core-walltime" % (rng.uniform(4, 30), slurm_dur(wall * 96 * len(j.nodes))),
            "Job Wall-clock time: %s" % slurm_dur(wall), "Memory Utilized: %.2f GB" % rng.uniform(200, 1500), "Memory Efficiency: %.2f%% of %.2f TB" % (rng.uniform(10, 70), 2.0 * len(j.nodes))]


def sched_end_lines(j, rng):
    """scheduler-level end lines for external kills (preemption / time limit / scancel)."""
    v = getattr(j, "kill_reason", None)
    tk = getattr(j, "kill_t", None)
    if tk is None:
        return
    n0 = j.nodes[0].short
    if j.sched_kind == "k8s" and v in ("cleanup", "sigterm"):
        return
    if j.sched_kind == "slurm":
        when = ts_slurm(j.clk(0, tk))
        if v == "preempt":
            j.sched(tk, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (j.jobid, n0, when))
        elif v == "timelimit":
            j.sched(tk, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (j.jobid, n0, when))
        elif v == "scancel":
            j.sched(tk, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s ***" % (j.jobid, n0, when))
        else:
            j.sched(tk, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (j.jobid, n0, when))
        if j.launcher == "srun" or rng.random() < 0.5:
            j.sched(tk + 0.2, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
            j.sched(tk + 0.3, "srun: forcing job termination")
            if j.launcher == "srun":
                for n in j.nodes:
                    j.sched(tk + rng.uniform(0.5, 3), "srun: error: %s: tasks %s: Terminated" % (n.short, ranges(n.ranks)))
            else:
                for n in j.nodes:
                    j.sched(tk + rng.uniform(0.5, 3), "srun: error: %s: task %d: Terminated" % (n.short, n.idx))
    elif j.sched_kind == "pbs":
        if v in ("preempt", "timelimit", "sigterm"):
            lim = int(tk - j.t0) // 3600 * 3600 or 3600
            j.sched(tk, "=>> PBS: job killed: walltime %d exceeded limit %d" % (int(tk - j.t0) + 17, lim))


# =======================================================================================
# run assembly
# =======================================================================================
def simulate_job(rng, layout, cfg, cause, carry=None, t0=None, resume=None, names_pool=None, lines_scale=1.0, force_healthy_finish=None, jobid=None):
    j = build_job(rng, layout, cfg, t0=t0, carry=carry)
    if jobid:
        j.jobid = jobid
        j.rdzv_id = str(jobid)
    if names_pool is not None:
        # attempts pick their nodes from the cluster's pool
        picks = sorted(rng.sample(range(len(names_pool)), len(j.nodes)))
        for n, k in zip(j.nodes, picks):
            nd = names_pool[k]
            n.name, n.short, n.ip, n.aliases = nd["name"], nd["short"], nd["ip"], list(nd["aliases"])
    j.sched_kind = cfg["sched"]
    j.has_kernel = cfg.get("kernel", True)
    j.kern_fmt = cfg.get("kern_fmt") or rng.choice(["syslog", "syslog", "dmesg_T", "dmesg", "journal", "iso"])
    pick_kern_fmt(rng, j)
    j.script_name, j.script_args = SCRIPT[j.trainer]
    j.python_bin = "/usr/bin/python3" if "dist-packages" in j.pylib else j.pylib.split("/lib/")[0] + "/bin/python"
    j.mpi_jobfam = rng.randint(1000, 65000)
    j.ds_node_exit = {}
    j.t_last = j.t0
    j.user_scancel_t = None
    if resume is not None:
        j.resume_step = resume
    else:
        j.resume_step = None
    S = Scenario(j, rng, cause)
    lt = int(rng.randint(300, 2200) * lines_scale)
    p = plan_training(j, rng, healthy_finish=(cause is None) or bool(force_healthy_finish), lines_target=max(120, lt))
    j.F = p.F
    from b7_sim import setup_chatter
    if lines_scale < 0.6:
        j.nccl_detail = min(j.nccl_detail, 1)
    if lines_scale < 0.3:
        j.nccl_detail = 0
    setup_chatter(j, rng, p.F - p.resume)
    if lines_scale < 0.3:
        j.chatter = None
    S.pre()
    if S.healthy_finish and cause is not None:
        # straggler that still completes: make the plan end at total
        j.model["total"] = p.F
    t_init = startup_all(j, rng, j.t0 + rng.uniform(3, 25))
    t_train = j.tr.startup(t_init)
    add_decoys(S, t_train, t_train + (p.F - p.resume) * j.model["step_s"])
    tF = simulate_training(j, rng, p, t_train, slow=S.slow, per_rank_every=S.per_rank_every, strag=S.strag)
    j.t_last = tF
    S.post(tF)
    secondary_fault(j, rng, S)
    fin = dict(S.fin)
    still = fin.pop("still_running", None)
    j.kill_reason = fin.get("kill_reason")
    j.kill_t = fin.get("kill_all_at")
    if j.kill_reason in (None,) and j.kill_t is not None:
        j.kill_reason = "scancel"
    if still is None:
        finalize(j, rng, **fin)
    else:
        j.t_last = still + rng.uniform(30, 600)
    sched_end_lines(j, rng)
    j.S_obj = S
    return j, S, p


DIES = {"gpu_hardware", "ecc_memory", "nvlink", "network", "host_oom_kill", "cuda_oom", "illegal_memory_access",
        "python_exception", "crash_signal", "collective_mismatch", "data_loader_stall"}


def secondary_fault(j, rng, S):
    """a later, collateral fault on another node (the earlier fault stays the cause)"""
    if S.cause not in DIES or len(j.nodes) < 3 or rng.random() > 0.22 or not j.fates:
        return
    t1 = min(f["t"] for f in j.fates.values())
    bad_nodes = {j.node_of[r] for r, f in j.fates.items() if abs(f["t"] - t1) < 1e-6}
    if S.node:
        bad_nodes |= {n.idx for n in j.nodes if n.name == S.node}
    cands = [r for r, f in j.fates.items() if f["t"] > t1 + 5 and j.node_of[r] not in bad_nodes and f["code"] == -6]
    if not cands:
        return
    r2 = rng.choice(cands)
    n2 = j.node(r2)
    t2 = j.fates[r2]["t"] - rng.uniform(0.1, 0.4)
    kinds = ["segv_abort", "oom_core"]
    if S.cause == "host_oom_kill":
        kinds = ["segv_abort"]
    if S.cause == "crash_signal":
        kinds = ["oom_core"]
    k = rng.choice(kinds)
    if k == "segv_abort":
        j.emit(r2, t2, "Fatal Python error: Segmentation fault\n\nThread 0x%016x (most recent call first):\n  <no Python frame>\n\nCurrent thread 0x%016x (most recent call first):\n  File \"%s/torch/cuda/streams.py\", line 225 in synchronize\n  File \"%s/%s\", line %d in train_step"
               % (0x7f0000000000 + rng.randrange(1 << 36), 0x7f0000000000 + rng.randrange(1 << 36), j.pylib, j.workdir, j.script_name, rng.randint(200, 700)), "e")
        base = 0x7f0000000000 + (rng.randrange(1 << 28) << 12)
        j.kern(n2.idx, t2 + 0.01, "pt_nccl_watchdg[%d]: segfault at 0 ip %016x sp %016x error 4 in libnccl.so.2[%x+%x] likely on CPU %d (core %d, socket %d)"
               % (j.tid[r2] + 37, base + rng.randrange(0x100000), 0x7f0000000000 + rng.randrange(1 << 36), base, 0x1c3f000, rng.randint(0, 111), rng.randint(0, 55), rng.randint(0, 1)))
        j.fates[r2] = dict(t=t2 + 0.05, code=-11, how="sig")
        S.notes.append("Later, rank %d on %s segfaulted inside NCCL while aborting (collateral, not the cause)." % (r2, n2.name))
    else:
        from b7_text import oom_killer_lines
        j.kern(n2.idx, t2, "\n".join(oom_killer_lines(j, n2, j.pid[r2], "python", int(rng.uniform(0.2, 0.35) * 2048 * 1024 * 1024), None, "systemd-coredum")))
        j.fates[r2] = dict(t=t2 + 0.05, code=-9, how="oom")
        j.oom_ranks.add(r2)
        S.notes.append("Later, the OOM killer on %s killed rank %d while aborted processes were dumping core (collateral, not the cause)." % (n2.name, r2))


def choose_cause_layout(rng, n, seed):
    """balanced mix: ~1/7 healthy, the rest cycles through the 14 causes; layouts balanced too."""
    n_h = max(1, round(n / 7))
    causes = [None] * n_h
    pool = list(CAUSES)
    rng.shuffle(pool)
    while len(causes) < n:
        causes.append(pool[(len(causes) - n_h) % len(pool)])
    rng.shuffle(causes)
    lays = list(LAYOUTS)
    counts = {k: 0 for k in lays}
    out = []
    for c in causes:
        ok = [k for k in lays if c not in INCOMPATIBLE.get(k, set())]
        m = min(counts[k] for k in ok)
        cand = [k for k in ok if counts[k] == m]
        k = rng.choice(cand)
        counts[k] += 1
        out.append((c, k))
    return out


def gen_run(seed, idx, cause, layout, scale=1.0):
    rng = random.Random(seed * 1000003 + idx * 7919 + 17)
    cfg = dict(LAYOUTS[layout])
    files = {}
    if layout == "requeue_chain":
        files, truth = render_requeue(rng, cfg, cause, scale)
        return files, truth
    if layout == "k8s_pytorchjob":
        cfg["naming"] = ["k8s"]
    j, S, p = simulate_job(rng, layout, cfg, cause, lines_scale=scale)
    if layout == "k8s_pytorchjob":
        pass
    files = RENDER[layout](j, rng, S)
    for (host, pid), (t, txt) in sorted(S.pyspy.items()):
        files["debug/py-spy-%s-%d.txt" % (host.split(".")[0], pid)] = txt.encode()
    if S.gpu_csv:
        files.update(gpu_csv_files(j, rng, S))
    truth = S.truth()
    truth["layout"] = layout
    return files, truth


def gpu_csv_files(j, rng, S):
    g = S.gpu_csv
    out = {}
    nodes = list(range(len(j.nodes))) if len(j.nodes) <= 8 else sorted(set([g["node"]] + rng.sample(range(len(j.nodes)), 3)))
    t_from = max(j.train_t0, g["s0_t"] - 3 * 3600)
    t_to = j.t_last
    step = 300 if (t_to - t_from) < 40 * 3600 else 900
    for ni in nodes:
        n = j.nodes[ni]
        rows = ["timestamp, index, pci.bus_id, temperature.gpu, clocks.sm [MHz], power.draw [W], utilization.gpu [%], clocks_throttle_reasons.active"]
        t = t_from
        while t < t_to:
            for l in range(j.gpn):
                hot = ni == g["node"] and l == g["local"] and (t >= g["s0_t"] or not g["thermal"])
                if hot and g["thermal"]:
                    rows.append("%s, %d, 00000000:%s:00.0, %d, %d MHz, %.2f W, 100 %%, 0x0000000000000040" % (
                        ts_plain(j.clk(n, t), 3).replace("-", "/"), l, j.gpu["bus"][l].upper(), rng.randint(86, 92), rng.randint(1290, 1500), rng.uniform(420, 520)))
                else:
                    rows.append("%s, %d, 00000000:%s:00.0, %d, %d MHz, %.2f W, %d %%, 0x0000000000000000" % (
                        ts_plain(j.clk(n, t), 3).replace("-", "/"), l, j.gpu["bus"][l].upper(), rng.randint(55, 71), rng.randint(1965, 1980), rng.uniform(560, 690), rng.randint(96, 100)))
            t += step
        out["monitoring/%s-gpu.csv" % n.short] = ("\n".join(rows) + "\n").encode()
    return out


# =======================================================================================
# layouts
# =======================================================================================
def add_kernel_files(files, j, rng, prefix, key="short", t_pad=(31 * 3600, 900)):
    if j.layout == "azureml_job":
        return
    t_from = j.t0 - t_pad[0]
    t_to = j.t_last + t_pad[1]
    for n in j.nodes:
        has = bool(j.K[n.idx])
        if not has and len(j.nodes) > 16 and rng.random() < 0.5:
            continue
        fmt = n.kern_fmt
        name = getattr(n, key) if key != "k8s" else n.k8s_node
        boot = fmt in ("dmesg", "dmesg_T", "iso")
        txt = kernel_text(j, n, t_from, t_to, fmt, boot=boot)
        if fmt == "syslog" and rng.random() < 0.5:
            # logrotate: kern.log, kern.log.1, kern.log.2.gz (delaycompress)
            t_from = j.t0 - rng.uniform(3, 8) * 3600
            txt = kernel_text(j, n, t_from, t_to, fmt)
            older = kernel_text(j, n, j.t0 - 40 * 3600, t_from, fmt)
            files["%s/%s/kern.log" % (prefix, name)] = txt.encode()
            if older:
                files["%s/%s/kern.log.1" % (prefix, name)] = older.encode()
            files["%s/%s/kern.log.2.gz" % (prefix, name)] = gz(kernel_text(j, n, j.t0 - 200 * 3600, j.t0 - 40 * 3600, fmt).encode())
        else:
            files["%s/%s/%s" % (prefix, name, KFILE[fmt])] = txt.encode()


def render_slurm_task_files(j, rng, S):
    files = {}
    lines = [(j.t0, 0, x) for x in slurm_header(j, rng)]
    lines.append((j.t0 + 1, 1, "+ srun --kill-on-bad-exit=%d --output=logs/%%x-%%j-%%t.out --ntasks-per-node=%d python -u %s %s" % (1 if j.kill_on_bad_exit else 0, j.gpn, j.script_name, j.script_args)))
    lines += [(t, s, x) for t, s, x in j.S]
    lines.sort(key=lambda e: (e[0], e[1]))
    body = "\n".join(x for _, _, x in lines) + "\n" + "\n".join(slurm_footer(j, rng, j.t_last))
    files["slurm-%d.out" % j.jobid] = body.encode()
    for r in range(j.world):
        ll = logical_lines(j, r)
        files["logs/%s-%d-%d.out" % (j.jobname, j.jobid, r)] = to_text(ll, rng, truncate=killed_hard(j, r) and rng.random() < 0.3).encode()
    add_kernel_files(files, j, rng, "node-logs")
    return files


def render_slurm_srun_l(j, rng, S):
    files = {}
    w = len(str(j.world - 1))
    allm = []
    for r in range(j.world):
        for t, seq, text in logical_lines(j, r):
            allm.append((t, seq, "%*d: %s" % (w, r, text.replace("\x00NOEOL", ""))))
    hdr = [(j.t0, 0, x) for x in slurm_header(j, rng)]
    hdr.append((j.t0 + 1, 1, "+ srun -l --kill-on-bad-exit=%d --ntasks-per-node=%d --cpu-bind=none python -u %s %s" % (1 if j.kill_on_bad_exit else 0, j.gpn, j.script_name, j.script_args)))
    allm += hdr + [(t, s, x) for t, s, x in j.S]
    allm.sort(key=lambda e: (e[0], e[1]))
    body = "\n".join(x for _, _, x in allm) + "\n" + "\n".join(slurm_footer(j, rng, j.t_last))
    name = rng.choice(["%s-%d.out" % (j.jobname, j.jobid), "slurm-%d.out" % j.jobid])
    files[name] = body.encode()
    add_kernel_files(files, j, rng, "node-logs")
    return files


def node_console(j, rng, n, tee=False, local_filter=None, prefix_ts=False):
    """what a per-node torchrun writes to its stdout/stderr (agent + worker output)"""
    allm = []
    for r in n.ranks:
        if local_filter is not None and j.local[r] not in local_filter:
            continue
        for t, seq, text in logical_lines(j, r):
            tx = text.replace("\x00NOEOL", "")
            if tee:
                tx = "[default%d]:%s" % (j.local[r], tx)
            allm.append((t, seq, tx))
    ag = []
    t_a = j.t0 + 2
    ag.append((t_a, 0, agent_line(j, n, t_a, "W", "torch/distributed/run.py:793", "\n*****************************************\nSetting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. \n*****************************************")))
    if j.torch_minor <= 3 or rng.random() < 0.3:
        ag.append((t_a + 0.5, 0, agent_line(j, n, t_a + 0.5, "I", "torch/distributed/launcher/api.py:188", "Starting elastic_operator with launch configs:\n  entrypoint       : %s\n  min_nodes        : %d\n  max_nodes        : %d\n  nproc_per_node   : %d\n  run_id           : %s\n  rdzv_backend     : c10d\n  rdzv_endpoint    : %s:%d\n  rdzv_configs     : {'timeout': 900}\n  max_restarts     : 0\n  monitor_interval : 0.1\n  log_dir          : %s\n  metrics_cfg      : {}\n" % (j.script_name, len(j.nodes), len(j.nodes), j.gpn, j.rdzv_id, j.nodes[0].name, j.master_port, getattr(j, "log_dir", "/tmp/torchelastic_%s" % ("%08x" % rng.randrange(1 << 32)))))))
    for tt, seq, stream, text in j.A[n.idx]:
        ag.append((tt, seq, text))
    allm += ag
    allm.sort(key=lambda e: (e[0], e[1]))
    out = []
    for t, seq, x in allm:
        for ln in x.split("\n"):
            out.append(("%s " % ts_iso(j.clk(n, t), 9) if prefix_ts else "") + ln)
    return "\n".join(out) + "\n"


def render_per_node_torchrun(j, rng, S):
    files = {}
    hdr = slurm_header(j, rng)
    hdr.append("+ srun --ntasks-per-node=1 --output=logs/%%x-%%j-%%N.out torchrun --nnodes=%d --nproc-per-node=%d --rdzv-backend=c10d --rdzv-endpoint=%s:%d --rdzv-id=%s %s %s"
               % (len(j.nodes), j.gpn, j.nodes[0].short, j.master_port, j.rdzv_id, j.script_name, j.script_args))
    sl = [(j.t0, 0, x) for x in hdr] + [(t, s, x) for t, s, x in j.S]
    sl.sort(key=lambda e: (e[0], e[1]))
    files["slurm-%d.out" % j.jobid] = ("\n".join(x for _, _, x in sl) + "\n" + "\n".join(slurm_footer(j, rng, j.t_last))).encode()
    for n in j.nodes:
        files["logs/%s-%d-%s.out" % (j.jobname, j.jobid, n.short)] = node_console(j, rng, n).encode()
    add_kernel_files(files, j, rng, "node-logs")
    return files


def render_torchrun_logdir(j, rng, S):
    files = {}
    j.log_dir = "%s/torchelastic/%d" % (j.model["out_dir"], j.jobid)
    hdr = slurm_header(j, rng)
    lab = rng.random() < 0.5
    hdr.append("+ srun %s--ntasks-per-node=1 torchrun --nnodes=%d --nproc-per-node=%d --rdzv-backend=c10d --rdzv-endpoint=%s:%d --rdzv-id=%s --log-dir=%s --redirects=3 --tee=3 --local-ranks-filter=0 %s %s"
               % ("-l " if lab else "", len(j.nodes), j.gpn, j.nodes[0].short, j.master_port, j.rdzv_id, j.log_dir, j.script_name, j.script_args))
    allm = [(j.t0, 0, x) for x in hdr] + [(t, s, x) for t, s, x in j.S]
    for n in j.nodes:
        con = []
        t_a = j.t0 + 2 + rng.random()
        con.append((t_a, 0, agent_line(j, n, t_a, "W", "torch/distributed/run.py:793", "\n*****************************************\nSetting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. \n*****************************************")))
        for r in n.ranks:
            if j.local[r] != 0:
                continue
            for t, seq, text in logical_lines(j, r):
                con.append((t, seq, "[default0]:" + text.replace("\x00NOEOL", "")))
        for tt, seq, stream, text in j.A[n.idx]:
            con.append((tt, seq, text))
        for t, seq, x in con:
            for ln in x.split("\n"):
                allm.append((t, seq, ("%d: " % n.idx if lab else "") + ln))
        # per-rank files
        sub = "%s_%s" % (j.rdzv_id, "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789_") for _ in range(8)))
        for r in n.ranks:
            base = "torchelastic/%d/%s/attempt_0/%d" % (j.jobid, sub, j.local[r])
            files[base + "/stdout.log"] = to_text(logical_lines(j, r, ("o",))).encode()
            files[base + "/stderr.log"] = to_text(logical_lines(j, r, ("e",))).encode()
    allm.sort(key=lambda e: (e[0], e[1]))
    files["slurm-%d.out" % j.jobid] = ("\n".join(x for _, _, x in allm) + "\n" + "\n".join(slurm_footer(j, rng, j.t_last))).encode()
    add_kernel_files(files, j, rng, "journal")
    return files


def render_k8s(j, rng, S):
    files = {}
    ts = rng.random() < 0.4
    jobn = j.k8s_job
    for n in j.nodes:
        files["pods/%s.log" % n.name] = node_console(j, rng, n, prefix_ts=ts).encode()
    # describe + events
    ev = []
    t_c = j.t0 - rng.uniform(20, 200)
    ev.append((t_c, "Normal", "SuccessfulCreatePod", "pytorchjob/%s" % jobn, "Created pod: %s" % j.nodes[0].name))
    for n in j.nodes:
        ev.append((t_c + 0.3, "Normal", "Scheduled", "pod/%s" % n.name, "Successfully assigned %s/%s to %s" % (j.k8s_ns, n.name, n.k8s_node)))
        ev.append((t_c + rng.uniform(2, 60), "Normal", "Pulled", "pod/%s" % n.name, "Container image \"%s\" already present on machine" % j.k8s_image))
        ev.append((j.t0 - 1, "Normal", "Started", "pod/%s" % n.name, "Started container pytorch"))
    failed = any(f["code"] != 0 for f in j.fates.values())
    pre = getattr(j, "preempted_pod", None)
    if pre is not None:
        n = j.nodes[pre]
        ev.append((j.preempt_t, "Normal", "Killing", "pod/%s" % n.name, "Stopping container pytorch"))
        ev.append((j.preempt_t + rng.uniform(20, 40), "Normal", "NodeNotReady", "node/%s" % n.k8s_node, "Node %s status is now: NodeNotReady" % n.k8s_node))
        files["kubectl-describe-pod-%s.txt" % n.name] = ("Name:             %s\nNamespace:        %s\nNode:             %s/%s\nStatus:           Failed\nReason:           Terminated\nMessage:          Pod was terminated in response to imminent node shutdown.\nIP:               %s\nContainers:\n  pytorch:\n    Image:          %s\n    State:          Terminated\n      Reason:       Error\n      Exit Code:    143\n      Started:      %s\n      Finished:     %s\n" % (
            n.name, j.k8s_ns, n.k8s_node, n.ip, n.ip, j.k8s_image, ts_iso(j.t0, 0), ts_iso(j.preempt_t + 5, 0))).encode()
    kr = getattr(j, "kill_reason", None)
    if kr in ("cleanup", "sigterm") and j.kill_t:
        if kr == "sigterm":
            kn = j.nodes[rng.randrange(len(j.nodes))].k8s_node
            ev.append((j.kill_t - rng.uniform(30, 90), "Normal", "NodeNotSchedulable", "node/%s" % kn, "Node %s status is now: NodeNotSchedulable" % kn))
        for n in j.nodes:
            if kr == "cleanup" and all(j.fates.get(r, {}).get("how") != "external" for r in n.ranks):
                continue
            ev.append((j.kill_t - 0.5, "Normal", "Killing", "pod/%s" % n.name, "Stopping container pytorch"))
    running = len(j.fates) < j.world
    if running:
        pass
    elif failed:
        tf = j.t_last + rng.uniform(1, 20)
        first = min(((f["t"], r) for r, f in j.fates.items() if f["code"] != 0))
        fn = j.node(first[1])
        role = "Master" if fn.idx == 0 else "Worker"
        ev.append((tf, "Normal", "ExitedWithCode", "pytorchjob/%s" % jobn, "Pod: %s.%s exited with code 1" % (j.k8s_ns, fn.name)))
        ev.append((tf + 1, "Warning", "PyTorchJobFailed", "pytorchjob/%s" % jobn, "PyTorchJob %s/%s has failed because 1 %s replica(s) failed." % (j.k8s_ns, jobn, role)))
    else:
        tf = j.t_last + 5
        ev.append((tf, "Normal", "PyTorchJobSucceeded", "pytorchjob/%s" % jobn, "PyTorchJob %s/%s successfully completed." % (j.k8s_ns, jobn)))
    ev.sort(key=lambda e: e[0])
    rows = ["LASTSEEN               TYPE      REASON                OBJECT                              MESSAGE"]
    for t, ty, rs, ob, msg in ev:
        rows.append("%-22s %-9s %-21s %-35s %s" % (ts_iso(t, 0), ty, rs, ob, msg))
    files["kubectl-get-events.txt"] = ("\n".join(rows) + "\n").encode()
    # pod statuses
    st = ["NAME%sREADY   STATUS      RESTARTS   AGE    IP            NODE" % (" " * (max(len(n.name) for n in j.nodes) - 1))]
    for n in j.nodes:
        codes = [j.fates[r]["code"] for r in n.ranks if r in j.fates]
        status = "Running" if running else ("Completed" if all(c == 0 for c in codes) else "Error")
        if pre is not None and n.idx == pre:
            status = "Terminated"
        st.append("%-*s   0/1     %-10s  0          %-6s %-13s %s" % (max(len(x.name) for x in j.nodes), n.name, status, "%dh" % max(1, int((j.t_last - j.t0) / 3600)), n.ip, n.k8s_node))
    files["kubectl-get-pods-wide.txt"] = ("\n".join(st) + "\n").encode()
    desc = ["Name:         %s" % jobn, "Namespace:    %s" % j.k8s_ns, "API Version:  kubeflow.org/v1", "Kind:         PyTorchJob", "Spec:",
            "  Pytorch Replica Specs:", "    Master:", "      Replicas:        1", "      Restart Policy:  Never", "    Worker:", "      Replicas:        %d" % (len(j.nodes) - 1),
            "      Restart Policy:  Never", "  Run Policy:", "    Backoff Limit:  0", "Status:", "  Conditions:"]
    desc += ["    Last Transition Time:  %s" % ts_iso(j.t0 - 30, 0), "    Message:               PyTorchJob %s is created." % jobn, "    Reason:                PyTorchJobCreated", "    Status:                True", "    Type:                  Created"]
    desc += ["    Last Transition Time:  %s" % ts_iso(j.t0, 0), "    Message:               PyTorchJob %s/%s is running." % (j.k8s_ns, jobn), "    Reason:                PyTorchJobRunning", "    Status:                False", "    Type:                  Running"]
    if running:
        desc += ["    Last Transition Time:  %s" % ts_iso(j.t0, 0), "    Message:               PyTorchJob %s/%s is running." % (j.k8s_ns, jobn), "    Reason:                PyTorchJobRunning", "    Status:                True", "    Type:                  Running"]
    elif failed:
        first = min(((f["t"], r) for r, f in j.fates.items() if f["code"] != 0))
        fn = j.node(first[1])
        desc += ["    Last Transition Time:  %s" % ts_iso(tf, 0), "    Message:               PyTorchJob %s/%s has failed because 1 %s replica(s) failed." % (j.k8s_ns, jobn, "Master" if fn.idx == 0 else "Worker"),
                 "    Reason:                PyTorchJobFailed", "    Status:                True", "    Type:                  Failed"]
    else:
        desc += ["    Last Transition Time:  %s" % ts_iso(tf, 0), "    Message:               PyTorchJob %s/%s successfully completed." % (j.k8s_ns, jobn), "    Reason:                PyTorchJobSucceeded", "    Status:                True", "    Type:                  Succeeded"]
    if running:
        desc += ["  Replica Statuses:", "    Master:", "      Active: 1", "    Worker:", "      Active: %d" % (len(j.nodes) - 1), "  Start Time:  %s" % ts_iso(j.t0, 0)]
    else:
        desc += ["  Replica Statuses:", "    Master:", "      %s: 1" % ("Failed" if failed and j.node(first[1]).idx == 0 else "Succeeded" if not failed else "Active"),
                 "    Worker:", "      %s: %d" % ("Failed" if failed else "Succeeded", len(j.nodes) - 1), "  Start Time:  %s" % ts_iso(j.t0, 0)]
    files["kubectl-describe-pytorchjob.txt"] = ("\n".join(desc) + "\n").encode()
    add_kernel_files(files, j, rng, "node-journal", key="k8s")
    return files


def render_deepspeed_pdsh(j, rng, S):
    files = {}
    launch_host = j.nodes[0]
    allm = []
    t = j.t0
    hl = ",".join(n.name for n in j.nodes)
    wi = "{%s}" % ", ".join("'%s': [%s]" % (n.name, ", ".join(str(x) for x in range(j.gpn))) for n in j.nodes)
    allm.append((t, 0, "[%s] [INFO] [runner.py:463:main] Using IP address of %s for node %s" % (ts_py(j.clk(0, t)), launch_host.ip, launch_host.name)))
    allm.append((t, 1, "[%s] [INFO] [multinode_runner.py:80:get_cmd] Running on the following workers: %s" % (ts_py(j.clk(0, t)), hl)))
    allm.append((t, 2, "[%s] [INFO] [runner.py:568:main] cmd = pdsh -S -f 1024 -w %s export PYTHONPATH=%s; export NCCL_DEBUG=%s; export NCCL_IB_HCA=%s;  cd %s; %s -u -m deepspeed.launcher.launch --world_info=%s --node_rank=%%n --master_addr=%s --master_port=%d %s %s"
                 % (ts_py(j.clk(0, t)), hl, j.workdir, "INFO" if j.nccl_detail else "WARN", ",".join("mlx5_%d" % h for h in j.hca_ids), j.workdir, j.python_bin, "eyJ" + "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") for _ in range(60)), launch_host.ip, j.master_port, j.script_name, j.script_args)))
    for n in j.nodes:
        pre = n.name + ": "
        tt = t + rng.uniform(1, 4)
        ll = [("INFO", "launch.py:146:main", "WORLD INFO DICT: %s" % wi), ("INFO", "launch.py:152:main", "nnodes=%d, num_local_procs=%d, node_rank=%d" % (len(j.nodes), j.gpn, n.idx)),
              ("INFO", "launch.py:163:main", "global_rank_mapping=defaultdict(<class 'list'>, {%s})" % ", ".join("'%s': [%s]" % (m.name, ", ".join(str(x) for x in m.ranks)) for m in j.nodes)),
              ("INFO", "launch.py:164:main", "dist_world_size=%d" % j.world), ("INFO", "launch.py:168:main", "Setting CUDA_VISIBLE_DEVICES=%s" % ",".join(str(x) for x in range(j.gpn)))]
        for lvl, src, msg in ll:
            allm.append((tt, 3, pre + "[%s] [%s] [%s] %s" % (ts_py(j.clk(n, tt)), lvl, src, msg)))
        for r in n.ranks:
            allm.append((tt + 0.1, 4, pre + "[%s] [INFO] [launch.py:256:main] process %d spawned with command: ['%s', '-u', '%s', '--local_rank=%d', %s]" % (ts_py(j.clk(n, tt + 0.1)), j.pid[r], j.python_bin, j.script_name, j.local[r], ", ".join("'%s'" % a for a in j.script_args.split()))))
        for r in n.ranks:
            for t2, seq, text in logical_lines(j, r):
                allm.append((t2, seq, pre + text.replace("\x00NOEOL", "")))
        for t2, seq, st, text in j.A[n.idx]:
            allm.append((t2, seq, pre + text))
        if n.idx in j.ds_node_exit:
            te, code = j.ds_node_exit[n.idx]
            allm.append((te + 0.5, 10 ** 9, "pdsh@%s: %s: ssh exited with exit code %d" % (launch_host.short, n.name, code)))
    if getattr(j, "kill_reason", None) == "ctrl_c" and j.kill_t:
        tk = j.kill_t - 1.5
        allm.append((tk, 10 ** 9, "^Cpdsh@%s: interrupt (one more within 1 sec to abort)" % launch_host.short))
        allm.append((tk, 10 ** 9 + 1, "pdsh@%s:  (^Z within 1 sec to cancel pending threads)" % launch_host.short))
        for n in j.nodes:
            allm.append((tk, 10 ** 9 + 2, "pdsh@%s: %s: command in progress" % (launch_host.short, n.name)))
        allm.append((tk + 0.6, 10 ** 9 + 3, "^Cpdsh@%s: interrupt (one more within 1 sec to abort)" % launch_host.short))
        for n in j.nodes:
            allm.append((tk + 0.7, 10 ** 9 + 4, "pdsh@%s: sending SIGTERM to ssh %s" % (launch_host.short, n.name)))
    allm.sort(key=lambda e: (e[0], e[1]))
    txt = "\n".join(x for _, _, x in allm) + "\n"
    files.update(rotate("train.log", txt, rng.choice([400000, 700000, 10 ** 9]), 4, rng.choice([2, 3])))
    add_kernel_files(files, j, rng, "syslog")
    return files


def render_pbs_mpirun(j, rng, S):
    files = {}
    tsout = rng.random() < 0.5
    allm = []
    host_hdr = ["----------------------------------------", "PBS Job %d.%s" % (j.jobid, rng.choice(["pbs01", "sched", "polaris-pbs-01"])),
                "Nodes: %s" % " ".join(n.short for n in j.nodes), "----------------------------------------",
                "+ mpirun -np %d --map-by ppr:%d:node --bind-to none --tag-output %s-x NCCL_DEBUG -x MASTER_ADDR -x MASTER_PORT %s%s %s" % (j.world, j.gpn, "--timestamp-output " if tsout else "", "python -u " if j.script_name.endswith(".py") else "", j.script_name, j.script_args)]
    for x in host_hdr:
        allm.append((j.t0, 0, x))
    for r in range(j.world):
        for t, seq, text in logical_lines(j, r):
            st = "stdout"
            tag = "%s[1,%d]<%s>:" % (ts_ctime(j.clk(r, t)) if tsout else "", r, st)
            allm.append((t, seq, tag + text.replace("\x00NOEOL", "")))
    # stderr tagging: re-tag lines that came from stderr
    allm2 = []
    err_set = {}
    for r in range(j.world):
        for t, seq, st, text in j.R[r]:
            if st == "e":
                err_set[seq] = True
    for t, seq, x in allm:
        if seq in err_set:
            x = x.replace("]<stdout>:", "]<stderr>:", 1)
        allm2.append((t, seq, x))
    allm2 += [(t, s, x) for t, s, x in j.S]
    allm2.sort(key=lambda e: (e[0], e[1]))
    files["%s.o%d" % (j.jobname, j.jobid)] = ("\n".join(x for _, _, x in allm2) + "\n").encode()
    add_kernel_files(files, j, rng, "dmesg")
    return files


def render_nemo(j, rng, S):
    files = {}
    exp = "nemo_experiments/%s/%s" % (j.run_name, ts_torchrun_dir(j.clk(0, j.t0)).replace(":", "-"))
    hdr = slurm_header(j, rng)
    hdr.append("+ srun --ntasks-per-node=%d --container-image=nvcr.io/nvidia/nemo:24.07 python -u %s %s" % (j.gpn, j.script_name, j.script_args))
    allm = [(j.t0, 0, x) for x in hdr] + [(t, s, x) for t, s, x in j.S]
    for r in range(j.world):
        ll = logical_lines(j, r)
        for t, seq, text in ll:
            allm.append((t, seq, text.replace("\x00NOEOL", "")))
        ns = getattr(j, "nemo_seqs", set())
        mine = [(t, s, x) for t, s, x in ll if s in ns]
        files["%s/nemo_log_globalrank-%d_localrank-%d.txt" % (exp, r, j.local[r])] = to_text(mine).encode()
        if r == 0:
            errs = []
            keep = False
            for t, s_, x in ll:
                if x.startswith("[NeMo "):
                    keep = x.startswith("[NeMo W") or x.startswith("[NeMo E")
                if keep and s_ in ns:
                    errs.append((t, s_, x))
            files["%s/nemo_error_log.txt" % exp] = to_text(errs).encode()
            files["%s/lightning_logs.txt" % exp] = to_text([(t, s, x) for t, s, x in ll if x.startswith(("GPU available", "TPU available", "HPU available", "Initializing distributed", "LOCAL_RANK", "`Trainer", "Epoch 0, global step", "---", "distributed_backend", "All distributed"))]).encode()
    allm.sort(key=lambda e: (e[0], e[1]))
    files["slurm-%d.out" % j.jobid] = ("\n".join(x for _, _, x in allm) + "\n" + "\n".join(slurm_footer(j, rng, j.t_last))).encode()
    files["%s/cmd-args.log" % exp] = ("%s %s\n" % (j.script_name, j.script_args)).encode()
    files["%s/hparams.yaml" % exp] = ("cfg:\n  micro_batch_size: %d\n  global_batch_size: %d\n  tensor_model_parallel_size: %d\n  pipeline_model_parallel_size: %d\n  encoder_seq_length: %d\n" % (j.model["mbs"], j.model["gbs"], j.model["tp"], j.model["pp"], j.model["seq"])).encode()
    add_kernel_files(files, j, rng, "node-logs")
    return files


def render_azureml(j, rng, S):
    files = {}
    for r in range(j.world):
        files["user_logs/std_log_process_%d.txt" % r] = to_text(logical_lines(j, r)).encode()
    lw = []
    t = j.t0 - 40
    lw.append("%s | INFO | Starting the daemon thread to refresh tokens in background for process with pid = %d" % (ts_iso(t, 6), j.nodes[0].agent_pid))
    for n in j.nodes:
        lw.append("%s | INFO | Node %s (%s) joined; process_count_per_node=%d" % (ts_iso(t + 5, 6), n.name, n.ip, j.gpn))
    bad = sorted((f["t"], r) for r, f in j.fates.items() if f["code"] != 0)
    if getattr(j, "kill_reason", None) == "lowpri" and j.kill_t:
        lw.append("%s | WARNING | Low priority compute node %s is being preempted (VM evicted); sending SIGTERM to all user processes" % (ts_iso(j.kill_t - 2, 6), j.nodes[rng.randrange(len(j.nodes))].name))
        lw.append("%s | INFO | Job preempted; it will be requeued when capacity is available" % ts_iso(j.t_last + 3, 6))
    elif len(j.fates) < j.world:
        pass
    elif bad:
        tb, rb = bad[0]
        lw.append("%s | ERROR | Process %d (rank %d) exited with code %d" % (ts_iso(tb + 1, 6), j.pid[rb], rb, j.fates[rb]["code"] if j.fates[rb]["code"] > 0 else 128 - j.fates[rb]["code"]))
        lw.append("%s | INFO | Job failed, terminating remaining processes" % ts_iso(j.t_last + 2, 6))
    else:
        lw.append("%s | INFO | All processes exited with code 0" % ts_iso(j.t_last + 2, 6))
    files["system_logs/lifecycler/execution-wrapper.log"] = ("\n".join(lw) + "\n").encode()
    return files


RENDER = {
    "slurm_task_files": render_slurm_task_files,
    "slurm_srun_l": render_slurm_srun_l,
    "torchrun_logdir": render_torchrun_logdir,
    "per_node_torchrun": render_per_node_torchrun,
    "k8s_pytorchjob": render_k8s,
    "deepspeed_pdsh": render_deepspeed_pdsh,
    "pbs_mpirun": render_pbs_mpirun,
    "nemo_expdir": render_nemo,
    "azureml_job": render_azureml,
}


def render_requeue(rng, cfg, cause, scale):
    """several Slurm attempts of the same run (each its own job id); the last one counts."""
    n_att = rng.choice([2, 2, 3, 3, 4])
    launcher = rng.choice(["srun", "torchrun"])
    cfg = dict(cfg)
    cfg["launcher"] = launcher
    nn = None
    files = {}
    carry = None
    t0 = 1700000000 + rng.randint(0, 60000000)
    resume = 0
    pool = None
    earlier_causes = ["preemption", "preemption", "gpu_hardware", "network", "hang", "ecc_memory", "python_exception"]
    truth = None
    for a in range(n_att):
        last = a == n_att - 1
        c = cause if last else rng.choice(earlier_causes)
        if carry is None:
            j, S, p = simulate_job(rng, "requeue_chain", cfg, c, t0=t0, resume=resume, lines_scale=scale * 0.55)
            pool = make_names(rng, j.naming, len(j.nodes) * 2)
            # keep first attempt's own names in the pool (overwrite first entries)
            for k, n in enumerate(j.nodes):
                pool[k] = dict(name=n.name, short=n.short, ip=n.ip, aliases=n.aliases)
            cfg["force_nodes"] = len(j.nodes)
        else:
            j, S, p = simulate_job(rng, "requeue_chain", cfg, c, carry=carry, t0=t0, resume=resume, names_pool=pool, lines_scale=scale * 0.55, jobid=next_jobid)
        sub = RENDER["slurm_task_files" if launcher == "srun" else "per_node_torchrun"](j, rng, S)
        for (host, pid), (t, txt) in sorted(S.pyspy.items()):
            sub["debug/py-spy-%s-%d.txt" % (host.split(".")[0], pid)] = txt.encode()
        if S.gpu_csv:
            sub.update(gpu_csv_files(j, rng, S))
        for k, v in sub.items():
            files["attempts/%d/%s" % (j.jobid, k)] = v
        if last:
            truth = S.truth()
            truth["layout"] = "requeue_chain"
            prev = " ".join("%d" % x for x in [])
            truth["notes"] = ("Last of %d attempts (job %d) counts. " % (n_att, j.jobid)) + truth["notes"]
        carry = j
        next_jobid = j.jobid + rng.randint(3, 4000)
        resume = getattr(j, "last_ckpt", j.resume_step) or j.resume_step
        t0 = j.t_last + rng.uniform(120, 4 * 3600)
    return files, truth


# =======================================================================================
def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-bytes", type=int, default=4_800_000)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    if os.path.isdir(args.out):
        for old in os.listdir(args.out):
            if old.startswith("run-") and os.path.isdir(os.path.join(args.out, old)):
                shutil.rmtree(os.path.join(args.out, old))
    plan = choose_cause_layout(rng, args.n, args.seed)
    os.makedirs(args.out, exist_ok=True)
    for i, (cause, layout) in enumerate(plan):
        scale = 1.0
        for attempt in range(5):
            files, truth = gen_run(args.seed, i, cause, layout, scale)
            size = sum(len(v) for v in files.values())
            if size <= args.max_bytes:
                break
            scale *= 0.5
        d = os.path.join(args.out, "run-%03d-%s" % (i + 1, layout))
        if os.path.exists(d):
            shutil.rmtree(d)
        for rel, data in sorted(files.items()):
            p = os.path.join(d, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "wb") as fh:
                fh.write(data if isinstance(data, bytes) else data.encode("utf-8"))
        with open(os.path.join(d, "truth.json"), "w") as fh:
            json.dump(truth, fh, indent=2, sort_keys=True)
            fh.write("\n")
        print("%s  %-20s %-22s %8d bytes  %d files" % (os.path.basename(d), layout, truth["cause"], size, len(files) + 1))


if __name__ == "__main__":
    main()
