#!/usr/bin/env python3
"""gen_blind38.py - synthetic log bundles of failed and healthy distributed GPU training jobs.

Theme: RED HERRINGS AND FALSE ALARMS.  Half of the runs are healthy (or recovered) but contain
alarming-looking lines; the other half fail, but the loudest / first error is not the cause.

Written blind: message formats come from general knowledge of what torchrun, PyTorch c10d,
NCCL, the NVIDIA driver, the Linux kernel, Slurm, Kubernetes and DeepSpeed print, spot-checked
against public issue threads.  Standard library only.

usage: python3 gen_blind38.py --out DIR --n 60 --seed S
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from datetime import datetime, timedelta

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill", "crash_signal",
          "preemption", "hang", "data_loader_stall", "collective_mismatch", "straggler",
          "unknown"]
LAYOUTS = ["slurm", "torchrun_logdir", "k8s", "deepspeed", "paste"]
# every layout can express every cause (evidence differs); kept explicit for the README
LAYOUT_CAUSES = {lay: list(CAUSES) for lay in LAYOUTS}

TORCH = {
    # style: version, nccl, cuda, torchrun traceback line numbers, c10d line numbers
    "v20": dict(ver="2.0.1", nccl="2.14.3", cu="11.8", run_main=794, run_run=785, api_call=134,
                api_la=250, api_run=241, err_wrap=346, mp_sig=62, mp_fail=673, mp_term=608,
                ag_run=723, ag_inv=858, ag_sleep=858, met=129, py="3.10"),
    "v22": dict(ver="2.2.2", nccl="2.19.3", cu="12.1", run_main=812, run_run=803, api_call=135,
                api_la=268, api_run=254, err_wrap=347, mp_sig=82, mp_fail=835, mp_term=727,
                ag_run=727, ag_inv=869, ag_sleep=869, met=123, py="3.10"),
    "v24": dict(ver="2.4.1", nccl="2.20.5", cu="12.4", run_main=901, run_run=892, api_call=133,
                api_la=264, api_run=255, err_wrap=348, mp_sig=83, mp_fail=833, mp_term=858,
                ag_run=680, ag_inv=835, ag_sleep=835, met=124, py="3.10"),
    "v26": dict(ver="2.6.0", nccl="2.21.5", cu="12.4", run_main=919, run_run=910, api_call=138,
                api_la=269, api_run=260, err_wrap=355, mp_sig=84, mp_fail=869, mp_term=897,
                ag_run=711, ag_inv=870, ag_sleep=870, met=137, py="3.11"),
}

BUS = {"h100": ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"],
       "a100": ["07", "0f", "47", "4e", "87", "90", "b7", "bd"]}
GPU_NAME = {"h100": "NVIDIA H100 80GB HBM3", "a100": "NVIDIA A100-SXM4-80GB"}
GPU_MEM = {"h100": ("79.11", 81559), "a100": ("79.15", 81920)}

OPS_DDP = [("ALLREDUCE", 26214400), ("ALLREDUCE", 25165824), ("ALLREDUCE", 6553600)]
OPS_FSDP = [("_REDUCE_SCATTER_BASE", 544997376, 68124672), ("_ALLGATHER_BASE", 68124672, 544997376)]


def ctime(d: datetime) -> str:
    """dmesg -T / date(1) style: 'Tue Jun 18 12:34:56 2024'."""
    return d.strftime("%a %b ") + f"{d.day:2d}" + d.strftime(" %H:%M:%S %Y")


def hexaddr(rng, pre="7f"):
    return "0x" + pre + "".join(rng.choice("0123456789abcdef") for _ in range(10))


class Ent:
    """An output stream of one entity (rank, launcher agent, scheduler)."""

    def __init__(self, job):
        self.job = job
        self.blks = []   # (t_sort, seq, stream, attempt, [lines])

    def add(self, t, lines, stream="err"):
        if isinstance(lines, str):
            lines = lines.split("\n")
        self.blks.append((t, self.job.nextseq(), stream, self.job.attempt, list(lines)))


class Job:
    def __init__(self, rng: random.Random, layout: str, run_idx: int):
        self.rng = rng
        r = rng
        self.layout = layout
        self.run_idx = run_idx
        self.launcher = "deepspeed" if layout == "deepspeed" else "torchrun"
        if layout == "paste" and r.random() < 0.25:
            self.launcher = "deepspeed"
        self.gpn = r.choice([8, 8, 8, 4])
        self.nnodes = r.choice([2, 2, 3, 4])
        if layout == "paste" and r.random() < 0.2:
            self.nnodes = 1
        if self.gpn == 4 and self.nnodes < 3 and r.random() < 0.5:
            self.nnodes += 1
        self.world = self.gpn * self.nnodes
        self.gpu = r.choice(["h100", "h100", "a100"])
        self.tv = r.choice(["v20", "v22", "v24", "v24", "v26"])
        if self.launcher == "deepspeed" and self.tv == "v20":
            self.tv = "v22"
        self.T = TORCH[self.tv]
        self.seq = 0
        self.attempt = 0
        y = r.choice([2024, 2024, 2025])
        self.t0 = datetime(y, r.randint(1, 12), r.randint(1, 28), r.randint(0, 23),
                           r.randint(0, 59), r.randint(0, 59))
        # clock skew per node (node 0 is the reference); one node sometimes far off
        self.skew = [0.0] + [round(r.uniform(-2.5, 2.5), 3) for _ in range(self.nnodes - 1)]
        if self.nnodes > 1 and r.random() < 0.3:
            k = r.randrange(1, self.nnodes)
            self.skew[k] = round(r.choice([-1, 1]) * r.uniform(8, 75), 3)
        # hosts
        self.k8s_job = None
        if layout == "slurm":
            pre = r.choice(["gpu", "dgx", "hpc-g", "node", "a3-"])
            base = r.randint(1, 180)
            self.hosts = [f"{pre}{base + i:03d}" for i in range(self.nnodes)]
        elif layout == "k8s":
            self.k8s_job = r.choice(["llm-ft", "pretrain-7b", "sft-run", "vit-large", "mt5-train"]) + "-" + \
                "".join(r.choice("abcdefghjkmnpqrstuvwxyz23456789") for _ in range(5))
            self.hosts = [f"{self.k8s_job}-master-0"] + [f"{self.k8s_job}-worker-{i}" for i in range(self.nnodes - 1)]
            pool = r.choice(["gke-train-a3-pool", "aks-gpunp-vmss", "ip-10-12"])
            self.k8s_nodes = []
            for i in range(self.nnodes):
                if pool.startswith("gke"):
                    self.k8s_nodes.append(f"{pool}-{r.randint(0x1000, 0xffff):04x}-{''.join(r.choice('abcdefghijklmnopqrstuvwxyz0123456789') for _ in range(4))}")
                elif pool.startswith("aks"):
                    self.k8s_nodes.append(f"{pool}{r.randint(0, 99):06d}")
                else:
                    self.k8s_nodes.append(f"ip-10-12-{r.randint(0, 255)}-{r.randint(1, 254)}.ec2.internal")
        elif layout == "deepspeed":
            if r.random() < 0.5:
                self.hosts = [f"worker-{i}" for i in range(self.nnodes)]
            else:
                self.hosts = [f"ip-10-0-{r.randint(0, 255)}-{r.randint(1, 254)}" for _ in range(self.nnodes)]
        else:
            pre = r.choice(["node", "h100-r", "trn", "gpu-node-"])
            base = r.randint(0, 40)
            self.hosts = [f"{pre}{base + i:02d}" for i in range(self.nnodes)]
        self.ips = [f"10.{r.randint(0, 200)}.{r.randint(0, 255)}.{r.randint(2, 250)}" for _ in range(self.nnodes)]
        # processes
        self.agent_pid = [r.randint(2000, 400000) for _ in range(self.nnodes)]
        self.pids = []
        for n in range(self.nnodes):
            b = self.agent_pid[n] + r.randint(3, 90)
            for lrk in range(self.gpn):
                self.pids.append(b + lrk)
        self.tids = [p + r.randint(40, 900) for p in self.pids]
        env = r.choice(["container", "conda", "venv"])
        pyv = self.T["py"]
        if env == "container":
            self.site = f"/usr/local/lib/python{pyv}/dist-packages"
            self.pybin = "/usr/bin/python"
            self.bindir = "/usr/local/bin"
            self.wd = "/workspace"
        elif env == "conda":
            u = r.choice(["alice", "jchen", "mlops", "svc-train", "kpatel"])
            self.site = f"/home/{u}/miniconda3/envs/train/lib/python{pyv}/site-packages"
            self.pybin = f"/home/{u}/miniconda3/envs/train/bin/python"
            self.bindir = f"/home/{u}/miniconda3/envs/train/bin"
            self.wd = f"/home/{u}/code/{r.choice(['llm', 'vision', 'trainer'])}"
        else:
            self.site = f"/opt/venv/lib/python{pyv}/site-packages"
            self.pybin = "/opt/venv/bin/python3"
            self.bindir = "/opt/venv/bin"
            self.wd = "/app"
        self.tlib = f"{self.site}/torch/lib"
        self.app = r.choice(["hf", "megatron", "custom"]) if self.launcher == "torchrun" else r.choice(["hf", "custom"])
        self.script = {"hf": r.choice(["train.py", "run_clm.py", "finetune.py"]),
                       "megatron": "pretrain_gpt.py", "custom": r.choice(["train.py", "main.py", "train_ddp.py"])}[self.app]
        self.fsdp = r.random() < 0.4
        self.timeout_ms = r.choice([600000, 600000, 1800000])
        self.nccl_info = r.random() < 0.35
        self.master_port = r.choice([29500, 29500, 29400, 23456, 12355])
        self.jobid = r.randint(100000, 9999999)
        self.record = r.random() < 0.4   # @record decorator -> error.json
        self.step_time = round(r.uniform(0.35, 4.5), 3)
        self.total_steps = r.choice([2000, 5000, 10000, 20000, 50000, 100000])
        self.log_every = r.choice([10, 20, 50, 100])
        self.lr_peak = r.choice([3e-4, 2e-4, 1e-4, 2e-5, 1e-5, 6e-4])
        self.loss0 = r.uniform(7.5, 11.0) if self.app == "megatron" else r.uniform(2.2, 4.5)
        self.loss_floor = self.loss0 * r.uniform(0.2, 0.45)
        self.kfmt = r.choice(["ctime", "uptime", "journal"])
        self.boot = [r.uniform(3 * 86400, 60 * 86400) for _ in range(self.nnodes)]
        self.bus = BUS[self.gpu]
        self.out_files = {}        # relpath -> text (final)
        self.R = [Ent(self) for _ in range(self.world)]
        self.A = [Ent(self) for _ in range(self.nnodes)]
        self.S = Ent(self)
        self.K = [[] for _ in range(self.nnodes)]
        self.dmesg_nodes = []      # nodes whose kernel log is attached
        self.events = []           # k8s events (t, type, reason, object, message)
        self.files = {}
        self.notes = []
        self.rank_markers = []     # list of conjunctions [(path_sub, text), ...]
        self.node_markers = []
        self.exit_info = {}        # rank -> (t, code)
        self.end_t = None
        self.seqno = r.randint(300, 4000)
        self.tseq = None
        self.kill_on_bad_exit = r.random() < 0.6
        self.ds_fp16 = r.random() < 0.5
        self.nccl_ib = r.random() < 0.75
        self.hca = [f"mlx5_{i}" for i in range(r.choice([4, 8]))]
        self.tee = r.random() < 0.5
        self.k8s_ts = r.random() < 0.5
        self.srun_label = r.random() < 0.55
        self.pspy = {}
        drvs = ["525.85.12", "535.129.03", "535.183.01", "550.54.15", "550.90.07", "560.35.03"]
        if self.gpu == "a100":
            drvs = ["470.199.02"] + drvs
        self.drv = r.choice(drvs)
        self.cuda_drv = {"470": "11.4", "525": "12.0", "535": "12.2", "550": "12.4", "560": "12.6"}[self.drv.split(".")[0]]
        self.drv_new = int(self.drv.split(".")[0]) >= 530
        self.bus_all = BUS[self.gpu]
        self.truth_rank = None
        self.truth_node = None
        self.slow = None
        self.s_start = 0
        self.train_t0 = 0.0
        self.total_steps = max(200, int(r.uniform(2400, 50000) / self.step_time) // 100 * 100)
        self.uuids = {}

    def uuid(self, lrk, n):
        k = (lrk, n)
        if k not in self.uuids:
            h = lambda m: "".join(self.rng.choice("0123456789abcdef") for _ in range(m))
            self.uuids[k] = f"{h(8)}-{h(4)}-{h(4)}-{h(4)}-{h(12)}"
        return self.uuids[k]

    def step_t(self, s):
        st = self.step_time
        if self.slow is None or s < self.slow[0]:
            return self.train_t0 + (s - self.s_start) * st
        return self.train_t0 + (self.slow[0] - self.s_start) * st + (s - self.slow[0]) * st * self.slow[1]

    def new_pids(self):
        r = self.rng
        self.agent_pid = [r.randint(2000, 400000) for _ in range(self.nnodes)]
        self.pids = []
        for n in range(self.nnodes):
            b = self.agent_pid[n] + r.randint(3, 90)
            for lrk in range(self.gpn):
                self.pids.append(b + lrk)
        self.tids = [p + r.randint(40, 900) for p in self.pids]

    # ---------------------------------------------------------------- basics
    def nextseq(self):
        self.seq += 1
        return self.seq

    def node(self, rank):
        return rank // self.gpn

    def lr(self, rank):
        return rank % self.gpn

    def loc(self, n, t) -> datetime:
        return self.t0 + timedelta(seconds=t + self.skew[n])

    def pci(self, lrk):
        return f"0000:{self.bus[lrk]}:00"

    def ns(self):
        return f"{self.rng.randint(0, 999):03d}"

    # ---------------------------------------------------------------- prefixes
    def cpp(self, rank, t, lvl, fl, msg):
        """c10 (glog-like) line from a rank."""
        if self.tv == "v20":
            return f"[{lvl} {fl}] {msg}"
        if self.tv == "v22":
            return f"[rank{rank}]:[{lvl} {fl}] {msg}"
        d = self.loc(self.node(rank), t)
        return f"[rank{rank}]:[{lvl}{d:%m%d %H:%M:%S}.{d.microsecond:06d}{int(t * 1e9) % 1000:03d} {fl}] {msg}"

    def pg(self, rank):
        if self.tv in ("v20", "v22"):
            return f"[Rank {rank}]"
        if self.tv == "v24":
            if not hasattr(self, "_pgs"):
                self._pgs = self.rng.random() < 0.6
            return f"[PG 0 (default_pg) Rank {rank}]" if self._pgs else f"[PG 0 Rank {rank}]"
        return f"[PG ID 0 PG GUID 0(default_pg) Rank {rank}]"

    def pyprefix(self, rank, lines):
        """Python-level stderr lines; torch >= 2.3 launches prefix them with [rankN]:"""
        if self.tv in ("v24", "v26"):
            return [f"[rank{rank}]: {ln}" if ln else f"[rank{rank}]:" for ln in lines]
        return lines

    def agent_log(self, n, t, lvl, mod, ln, msg):
        """torchrun agent logging line."""
        if self.tv == "v20":
            name = {"W": "WARNING", "E": "ERROR", "I": "INFO"}[lvl]
            return f"{name}:{mod.replace('/', '.').removesuffix('.py')}:{msg}"
        d = self.loc(n, t)
        if self.tv == "v22":
            name = {"W": "WARNING", "E": "ERROR", "I": "INFO"}[lvl]
            return f"[{d:%Y-%m-%d %H:%M:%S},{d.microsecond // 1000:03d}] {mod.replace('/', '.').removesuffix('.py')}: [{name}] {msg}"
        return f"{lvl}{d:%m%d %H:%M:%S}.{d.microsecond:06d}"[:-3] + f"000 {self.agent_pid[n]} {mod}:{ln}] {msg}"

    def nccl(self, rank, lvl_src, msg, tid=None):
        """NCCL debug line: host:pid:tid [dev] NCCL INFO ..."""
        n = self.node(rank)
        tid = tid if tid is not None else self.tids[rank]
        if lvl_src == "INFO":
            return f"{self.hosts[n]}:{self.pids[rank]}:{tid} [{self.lr(rank)}] NCCL INFO {msg}"
        return f"{self.hosts[n]}:{self.pids[rank]}:{tid} [{self.lr(rank)}] {lvl_src} NCCL WARN {msg}"

    def klog(self, n, t, text):
        self.K[n].append((t, text))

    def kfmt_line(self, n, t, text, fmt=None):
        fmt = fmt or self.kfmt
        d = self.loc(n, t)
        if fmt == "ctime":
            return f"[{ctime(d)}] {text}"
        if fmt == "journal":
            return f"{d:%b} {d.day:2d} {d:%H:%M:%S} {self.khost(n)} kernel: {text}"
        up = self.boot[n] + t
        return f"[{up:13.6f}] {text}"

    def khost(self, n):
        return self.k8s_nodes[n] if self.layout == "k8s" else self.hosts[n]

    def ds_log(self, n, t, lvl, where, msg):
        d = self.loc(n, t)
        return f"[{d:%Y-%m-%d %H:%M:%S},{d.microsecond // 1000:03d}] [{lvl}] [{where}] {msg}"

    def pylog(self, n, t, lvl, msg, name="__main__"):
        d = self.loc(n, t)
        ts = f"{d:%Y-%m-%d %H:%M:%S},{d.microsecond // 1000:03d}"
        if self.app == "hf":
            return f"{d:%m/%d/%Y %H:%M:%S} - {lvl} - {name} - {msg}"
        if self.app == "megatron":
            return f"[{d:%Y-%m-%d %H:%M:%S}] {msg}"
        key = (lvl, name, msg.split(" ")[0].split("=")[0])
        if not hasattr(self, "_pyln"):
            self._pyln = {}
        if key not in self._pyln:
            self._pyln[key] = self.rng.randint(80, 400)
        where = self.script if name == "__main__" else f"{name}.py"
        return f"{ts} {lvl} [{where}:{self._pyln[key]}] {msg}"


# ====================================================================== text builders
def tb(frames, exc):
    out = ["Traceback (most recent call last):"]
    for f, ln, fn, code in frames:
        out.append(f'  File "{f}", line {ln}, in {fn}')
        if code:
            out.append(f"    {code}")
    out.extend(exc.split("\n"))
    return out


def app_frames(job: Job, where: str):
    """Python frames of the training script down to `where` in {step, data, fwd, save, eval, init}."""
    s, w, r = job.site, job.wd, job.rng
    sc = f"{w}/{job.script}"
    mod = "_wrapped_call_impl" if job.tv != "v20" else "_call_impl"
    fr = []
    if job.app == "hf":
        fr += [(sc, r.randint(280, 420), "<module>", "main()"),
               (sc, r.randint(200, 270), "main", "train_result = trainer.train(resume_from_checkpoint=checkpoint)"),
               (f"{s}/transformers/trainer.py", 1938, "train", "return inner_training_loop("),
               ]
        if where == "data":
            fr += [(f"{s}/transformers/trainer.py", 2236, "_inner_training_loop", "for step, inputs in enumerate(epoch_iterator):"),
                   (f"{s}/accelerate/data_loader.py", 550, "__iter__", "current_batch = next(dataloader_iter)")]
        elif where == "eval":
            fr += [(f"{s}/transformers/trainer.py", 2327, "_inner_training_loop", "self._maybe_log_save_evaluate(tr_loss, grad_norm, model, trial, epoch, ignore_keys_for_eval)"),
                   (f"{s}/transformers/trainer.py", 2787, "_maybe_log_save_evaluate", "metrics = self._evaluate(trial, ignore_keys_for_eval)")]
        elif where == "save":
            fr += [(f"{s}/transformers/trainer.py", 2327, "_inner_training_loop", "self._maybe_log_save_evaluate(tr_loss, grad_norm, model, trial, epoch, ignore_keys_for_eval)"),
                   (f"{s}/transformers/trainer.py", 2807, "_maybe_log_save_evaluate", "self._save_checkpoint(model, trial, metrics=metrics)"),
                   (f"{s}/transformers/trainer.py", 2890, "_save_checkpoint", "self.save_model(output_dir, _internal_call=True)")]
        else:
            fr += [(f"{s}/transformers/trainer.py", 2279, "_inner_training_loop", "tr_loss_step = self.training_step(model, inputs)"),
                   (f"{s}/transformers/trainer.py", 3318, "training_step", "loss = self.compute_loss(model, inputs)"),
                   (f"{s}/transformers/trainer.py", 3363, "compute_loss", "outputs = model(**inputs)"),
                   (f"{s}/torch/nn/modules/module.py", 1553 if job.tv != "v20" else 1501, mod, "return self._call_impl(*args, **kwargs)" if job.tv != "v20" else "return forward_call(*args, **kwargs)"),
                   (f"{s}/torch/nn/parallel/distributed.py", 1636, "forward", "else self._run_ddp_forward(*inputs, **kwargs)"),
                   (f"{s}/torch/nn/parallel/distributed.py", 1454, "_run_ddp_forward", "return self.module(*inputs, **kwargs)  # type: ignore[index]"),
                   (f"{s}/transformers/models/llama/modeling_llama.py", 1189, "forward", "outputs = self.model("),
                   (f"{s}/transformers/models/llama/modeling_llama.py", 1001, "forward", "layer_outputs = decoder_layer("),
                   (f"{s}/transformers/models/llama/modeling_llama.py", 734, "forward", "hidden_states, self_attn_weights, present_key_value = self.self_attn(")]
    elif job.app == "megatron":
        fr += [(sc, 230, "<module>", "pretrain("),
               (f"{w}/megatron/training/training.py", 349, "pretrain", "iteration, num_floating_point_operations_so_far = train("),
               (f"{w}/megatron/training/training.py", 1230, "train", "train_step(forward_step_func,")]
        if where == "data":
            fr += [(f"{w}/megatron/training/training.py", 736, "train_step", "losses_reduced = forward_backward_func("),
                   (f"{w}/megatron/core/pipeline_parallel/schedules.py", 451, "forward_backward_no_pipelining", "output_tensor, num_tokens = forward_step("),
                   (f"{w}/megatron/core/pipeline_parallel/schedules.py", 274, "forward_step", "output_tensor, loss_func = forward_step_func(data_iterator, model)"),
                   (sc, 182, "forward_step", "tokens, labels, loss_mask, attention_mask, position_ids = get_batch("),
                   (sc, 116, "get_batch", "batch = get_batch_on_this_tp_rank(data_iterator)"),
                   (f"{w}/megatron/training/utils.py", 317, "get_batch_on_this_tp_rank", "data = next(data_iterator)")]
        elif where == "save":
            fr = fr[:2] + [(f"{w}/megatron/training/training.py", 1292, "train", "save_checkpoint_and_time(iteration, model, optimizer,"),
                           (f"{w}/megatron/training/training.py", 1014, "save_checkpoint_and_time", "save_checkpoint(iteration, model, optimizer, opt_param_scheduler,")]
        else:
            fr += [(f"{w}/megatron/training/training.py", 736, "train_step", "losses_reduced = forward_backward_func("),
                   (f"{w}/megatron/core/pipeline_parallel/schedules.py", 451, "forward_backward_no_pipelining", "output_tensor, num_tokens = forward_step("),
                   (f"{w}/megatron/core/pipeline_parallel/schedules.py", 274, "forward_step", "output_tensor, loss_func = forward_step_func(data_iterator, model)"),
                   (sc, 195, "forward_step", "output_tensor = model(tokens, position_ids, attention_mask,"),
                   (f"{s}/torch/nn/modules/module.py", 1553, mod, "return self._call_impl(*args, **kwargs)")]
    else:
        fr += [(sc, r.randint(300, 520), "<module>", "main(args)"),
               (sc, r.randint(240, 299), "main", "train_one_epoch(model, loader, optimizer, scaler, epoch, args)")]
        if where == "data":
            fr += [(sc, r.randint(120, 200), "train_one_epoch", "for step, batch in enumerate(loader):")]
        elif where == "save":
            fr += [(sc, r.randint(120, 200), "train_one_epoch", "save_checkpoint(model, optimizer, step, args.ckpt_dir)"),
                   (f"{w}/utils/checkpoint.py", r.randint(20, 90), "save_checkpoint", "torch.save(state, path)")]
        elif where == "eval":
            fr += [(sc, r.randint(120, 200), "train_one_epoch", "metrics = evaluate(model, val_loader, args)"),
                   (sc, r.randint(60, 119), "evaluate", "logits = model(batch[\"input\"].cuda(non_blocking=True))")]
        else:
            fr += [(sc, r.randint(120, 200), "train_one_epoch", "loss = model(batch[\"input\"].cuda(non_blocking=True), batch[\"target\"].cuda(non_blocking=True))"),
                   (f"{s}/torch/nn/modules/module.py", 1553 if job.tv != "v20" else 1501, mod, "return self._call_impl(*args, **kwargs)" if job.tv != "v20" else "return forward_call(*args, **kwargs)"),
                   (f"{s}/torch/nn/parallel/distributed.py", 1636, "forward", "else self._run_ddp_forward(*inputs, **kwargs)"),
                   (f"{s}/torch/nn/parallel/distributed.py", 1454, "_run_ddp_forward", "return self.module(*inputs, **kwargs)  # type: ignore[index]"),
                   (f"{w}/model.py", r.randint(100, 300), "forward", "x = blk(x)"),
                   (f"{w}/model.py", r.randint(40, 99), "forward", "x = x + self.attn(self.ln_1(x))")]
    if where == "data" and job.app in ("hf", "custom"):
        fr += [(f"{s}/torch/utils/data/dataloader.py", 630, "__next__", "data = self._next_data()"),
               (f"{s}/torch/utils/data/dataloader.py", 1344, "_next_data", "return self._process_data(data)"),
               (f"{s}/torch/utils/data/dataloader.py", 1370, "_process_data", "data.reraise()"),
               (f"{s}/torch/_utils.py", 706, "reraise", "raise exception")]
    return fr


def cxx_frames(job: Job, kind="watchdog"):
    r = job.rng
    lib = job.tlib
    b1, b2 = hexaddr(r), hexaddr(r)
    if job.tv in ("v20", "v22") and kind == "watchdog":
        return ["frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (%s in %s/libc10.so)" % (b1, lib),
                "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1e6 (%s in %s/libtorch_cuda.so)" % (b2, lib),
                "frame #2: c10d::ProcessGroupNCCL::workCleanupLoop() + 0x19d (%s in %s/libtorch_cuda.so)" % (hexaddr(r), lib),
                "frame #3: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x119 (%s in %s/libtorch_cuda.so)" % (hexaddr(r), lib),
                "frame #4: <unknown function> + 0xdc253 (%s in /lib/x86_64-linux-gnu/libstdc++.so.6)" % hexaddr(r),
                "frame #5: <unknown function> + 0x94ac3 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % hexaddr(r),
                "frame #6: <unknown function> + 0x126850 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % hexaddr(r), ""]
    fr = ["frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (%s in %s/libc10.so)" % (b1, lib)]
    if kind == "nccl":
        return fr + ["frame #1: c10d::ProcessGroupNCCL::checkForNCCLErrorsInternal(std::shared_ptr<c10d::NCCLComm>&) + 0x220 (%s in %s/libtorch_cuda.so)" % (b2, lib),
                     "frame #2: c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException() + 0x7c (%s in %s/libtorch_cuda.so)" % (hexaddr(r), lib),
                     "frame #3: c10d::ProcessGroupNCCL::watchdogHandler() + 0x180 (%s in %s/libtorch_cuda.so)" % (hexaddr(r), lib),
                     "frame #4: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x10c (%s in %s/libtorch_cuda.so)" % (hexaddr(r), lib),
                     "frame #5: <unknown function> + 0xdbbf4 (%s in /lib/x86_64-linux-gnu/libstdc++.so.6)" % hexaddr(r),
                     "frame #6: <unknown function> + 0x94ac3 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % hexaddr(r),
                     "frame #7: <unknown function> + 0x126850 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % hexaddr(r), ""]
    if kind == "cuda":
        return fr + ["frame #1: c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64 (%s in %s/libc10.so)" % (b2, lib),
                     "frame #2: c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118 (%s in %s/libc10_cuda.so)" % (hexaddr(r), lib),
                     "frame #3: c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x56 (%s in %s/libtorch_cuda.so)" % (hexaddr(r), lib),
                     "frame #4: c10d::ProcessGroupNCCL::WorkNCCL::isCompleted() + 0x58 (%s in %s/libtorch_cuda.so)" % (hexaddr(r), lib),
                     "frame #5: c10d::ProcessGroupNCCL::watchdogHandler() + 0x1a0 (%s in %s/libtorch_cuda.so)" % (hexaddr(r), lib),
                     "frame #6: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x10c (%s in %s/libtorch_cuda.so)" % (hexaddr(r), lib),
                     "frame #7: <unknown function> + 0xdbbf4 (%s in /lib/x86_64-linux-gnu/libstdc++.so.6)" % hexaddr(r),
                     "frame #8: <unknown function> + 0x94ac3 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % hexaddr(r),
                     "frame #9: <unknown function> + 0x126850 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % hexaddr(r), ""]
    if kind == "watchdog":
        fr += ["frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 (%s in %s/libtorch_cuda.so)" % (b2, lib),
               "frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 (%s in %s/libtorch_cuda.so)" % (hexaddr(r), lib)]
    else:
        fr += ["frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException() + 0x5f (%s in %s/libtorch_cuda.so)" % (b2, lib),
               "frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x1f0 (%s in %s/libtorch_cuda.so)" % (hexaddr(r), lib)]
    fr += ["frame #3: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x10c (%s in %s/libtorch_cuda.so)" % (hexaddr(r), lib),
           "frame #4: <unknown function> + 0xd6df4 (%s in /lib/x86_64-linux-gnu/libstdc++.so.6)" % hexaddr(r),
           "frame #5: <unknown function> + 0x8609 (%s in /lib/x86_64-linux-gnu/libpthread.so.0)" % hexaddr(r),
           "frame #6: clone + 0x43 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % hexaddr(r), ""]
    return fr


def wd_line_nums(job):
    return {"v20": (828, 455, 460, 916, 828), "v22": (523, 537, 543, 1182, 525),
            "v24": (607, 621, 627, 1601, 609), "v26": (616, 630, 636, 1834, 618)}[job.tv]


def workstr(job, seq, op, nin, nout, ran_ms):
    if job.tv == "v20":
        return f"WorkNCCL(SeqNum={seq}, OpType={op}, Timeout(ms)={job.timeout_ms}) ran for {ran_ms} milliseconds before timing out."
    return (f"WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={nin}, NumelOut={nout}, "
            f"Timeout(ms)={job.timeout_ms}) ran for {ran_ms} milliseconds before timing out.")


def watchdog_timeout_block(job, rank, t, seq, op, nin, nout, last_enq=None, last_comp=None):
    """Lines printed by one rank whose collective timed out; returns lines."""
    r = job.rng
    ran = job.timeout_ms + r.randint(3, 95)
    ws = workstr(job, seq, op, nin, nout, ran)
    l_wd, l_some, l_avoid, l_term, l_chk = wd_line_nums(job)
    L = []
    L.append(job.cpp(rank, t, "E", f"ProcessGroupNCCL.cpp:{l_wd}", f"[Rank {rank}] Watchdog caught collective operation timeout: {ws}"))
    if job.tv in ("v24", "v26"):
        le = last_enq if last_enq is not None else seq + r.choice([0, 1, 2])
        lc = last_comp if last_comp is not None else seq - 1
        ln1 = 1664 if job.tv == "v24" else 1785
        ln2 = 1709 if job.tv == "v24" else 1834
        L.append(job.cpp(rank, t + 0.001, "E", f"ProcessGroupNCCL.cpp:{ln1}", f"{job.pg(rank)} Exception (either an error or timeout) detected by watchdog at work: {seq}, last enqueued NCCL work: {le}, last completed NCCL work: {lc}."))
        L.append(job.cpp(rank, t + 0.3, "E", f"ProcessGroupNCCL.cpp:{ln2}", f"{job.pg(rank)} Timeout at NCCL work: {seq}, last enqueued NCCL work: {le}, last completed NCCL work: {lc}."))
    who = f"[Rank {rank}] " if job.tv != "v22" else ""
    if job.tv == "v20":
        who = ""
    L.append(job.cpp(rank, t + 0.3, "E", f"ProcessGroupNCCL.cpp:{l_some}", f"{who}Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data."))
    L.append(job.cpp(rank, t + 0.3, "E", f"ProcessGroupNCCL.cpp:{l_avoid}", f"{who}To avoid data inconsistency, we are taking the entire process down."))
    if job.tv == "v20":
        L += ["terminate called after throwing an instance of 'std::runtime_error'",
              f"  what():  [Rank {rank}] Watchdog caught collective operation timeout: {ws}"]
        if r.random() < 0.5:
            L += ["Fatal Python error: Aborted", "", f"Thread 0x{r.randint(0x7f0000000000, 0x7fffffffffff):016x} (most recent call first):", "  <no Python frame>", ""]
        return L
    if job.tv == "v22":
        L.append(job.cpp(rank, t + 0.3, "E", f"ProcessGroupNCCL.cpp:{l_term}", f"[Rank {rank}] NCCL watchdog thread terminated with exception: [Rank {rank}] Watchdog caught collective operation timeout: {ws}"))
        L.append(f"Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:{l_chk} (most recent call first):")
        L += cxx_frames(job)
        L += ["terminate called after throwing an instance of 'c10::DistBackendError'",
              f"  what():  [Rank {rank}] NCCL watchdog thread terminated with exception: [Rank {rank}] Watchdog caught collective operation timeout: {ws}",
              f"Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:{l_chk} (most recent call first):"]
        L += cxx_frames(job)
        return L
    src = "/pytorch/torch/csrc/distributed/c10d" if job.tv == "v26" else "../torch/csrc/distributed/c10d"
    L.append(job.cpp(rank, t + 0.31, "E", f"ProcessGroupNCCL.cpp:{l_term}", f"{job.pg(rank)} Process group watchdog thread terminated with exception: [Rank {rank}] Watchdog caught collective operation timeout: {ws}"))
    L.append(f"Exception raised from checkTimeout at {src}/ProcessGroupNCCL.cpp:{l_chk} (most recent call first):")
    L += cxx_frames(job)
    L += ["terminate called after throwing an instance of 'c10::DistBackendError'",
          f"  what():  {job.pg(rank)} Process group watchdog thread terminated with exception: [Rank {rank}] Watchdog caught collective operation timeout: {ws}",
          f"Exception raised from checkTimeout at {src}/ProcessGroupNCCL.cpp:{l_chk} (most recent call first):"]
    L += cxx_frames(job)
    return L


def watchdog_async_error_block(job, rank, t, err_lines):
    """A rank whose watchdog found an async NCCL/CUDA error (not a timeout): abort."""
    first = err_lines[0]
    rest = err_lines[1:]
    l_wd, l_some, l_avoid, l_term, l_chk = wd_line_nums(job)
    L = []
    if job.tv == "v20":
        L.append(job.cpp(rank, t, "E", "ProcessGroupNCCL.cpp:455", "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data."))
        L.append(job.cpp(rank, t, "E", "ProcessGroupNCCL.cpp:460", "To avoid data inconsistency, we are taking the entire process down."))
        L += ["terminate called after throwing an instance of 'std::runtime_error'", f"  what():  {first}"] + rest
        return L
    src = "/pytorch/torch/csrc/distributed/c10d" if job.tv == "v26" else "../torch/csrc/distributed/c10d"
    if job.tv in ("v24", "v26"):
        ln1 = 1664 if job.tv == "v24" else 1785
        L.append(job.cpp(rank, t, "E", f"ProcessGroupNCCL.cpp:{ln1}", f"{job.pg(rank)} Exception (either an error or timeout) detected by watchdog at work: {job.tseq}, last enqueued NCCL work: {job.tseq}, last completed NCCL work: {job.tseq - 1}."))
    who = f"[Rank {rank}] " if job.tv != "v22" else ""
    L.append(job.cpp(rank, t, "E", f"ProcessGroupNCCL.cpp:{l_some}", f"{who}Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data."))
    L.append(job.cpp(rank, t, "E", f"ProcessGroupNCCL.cpp:{l_avoid}", f"{who}To avoid data inconsistency, we are taking the entire process down."))
    head = f"{job.pg(rank)} Process group watchdog thread terminated with exception: " if job.tv != "v22" else f"[Rank {rank}] NCCL watchdog thread terminated with exception: "
    L.append(job.cpp(rank, t, "E", f"ProcessGroupNCCL.cpp:{l_term}", head + first))
    L += rest
    csrc = "/pytorch/c10/cuda" if job.tv == "v26" else "../c10/cuda"
    isn = "NCCL error" in first
    exr = (f"Exception raised from checkForNCCLErrorsInternal at {src}/ProcessGroupNCCL.cpp:{job.rng.choice([1723, 2027, 1695])} (most recent call first):"
           if isn else f"Exception raised from c10_cuda_check_implementation at {csrc}/CUDAException.cpp:43 (most recent call first):")
    if not isn:
        rest = rest + [""]
    L.append(exr)
    L += cxx_frames(job, "nccl" if isn else "cuda")
    L += ["terminate called after throwing an instance of 'c10::DistBackendError'", f"  what():  {head}{first}"] + rest
    L.append(exr)
    L += cxx_frames(job, "nccl" if isn else "cuda")[:3] + ["frame #3: <unknown function> + 0xe5d8b2 (%s in %s/libtorch_cuda.so)" % (hexaddr(job.rng), job.tlib), ""]
    return L


def cuda_err_lines(msg, dsa=True):
    L = [f"CUDA error: {msg}",
         "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
         "For debugging consider passing CUDA_LAUNCH_BLOCKING=1"]
    if dsa:
        L[-1] += "."
        L.append("Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.")
    return L


def nccl_remote_err(job, rank, peer_node, transport):
    """Error text (list of lines) a survivor sees when a peer vanished / network failed."""
    r = job.rng
    ver = job.T["nccl"]
    if transport == "ib":
        pip = job.ips[peer_node]
        last = (f"NET/IB : Got completion from peer {pip}<{r.randint(32768, 65535)}> with status=12 opcode={r.choice([0, 1, 32616, 5327])} "
                f"len=0 vendor err 129 (Recv) localGid ::ffff:{job.ips[job.node(rank)]} remoteGids::ffff:{pip} hca {r.choice(job.hca)}")
    else:
        last = f"socketProgress: Connection closed by remote peer {job.hosts[peer_node]}<{r.randint(32768, 65535)}>"
        if r.random() < 0.5:
            last = f"socketProgressOpt: Call to recv from {job.ips[peer_node]}<{r.randint(32768, 65535)}> failed : Connection reset by peer"
    return [f"NCCL error: remote process exited or there was a network error, NCCL version {ver}",
            "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
            "Last error:", last]


def summary_block(job, n, failures, fname=None):
    """torchrun ChildFailedError block (agent stderr).  failures: list of dict sorted, first = root cause."""
    T, s = job.T, job.site
    L = ["Traceback (most recent call last):",
         f'  File "{job.bindir}/torchrun", line 8, in <module>', "    sys.exit(main())",
         f'  File "{s}/torch/distributed/elastic/multiprocessing/errors/__init__.py", line {T["err_wrap"]}, in wrapper',
         "    return f(*args, **kwargs)",
         f'  File "{s}/torch/distributed/run.py", line {T["run_main"]}, in main', "    run(args)",
         f'  File "{s}/torch/distributed/run.py", line {T["run_run"]}, in run', "    elastic_launch(",
         f'  File "{s}/torch/distributed/launcher/api.py", line {T["api_call"]}, in __call__',
         "    return launch_agent(self._config, self._entrypoint, list(args))",
         f'  File "{s}/torch/distributed/launcher/api.py", line {T["api_la"]}, in launch_agent',
         "    raise ChildFailedError(",
         "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
         "============================================================",
         f"{fname or job.script} FAILED",
         "------------------------------------------------------------",
         "Failures:"]

    def one(i, f):
        d = job.loc(n, f["t"])
        code = f["code"]
        out = [f"[{i}]:", f"  time      : {d:%Y-%m-%d_%H:%M:%S}", f"  host      : {job.hosts[n]}",
               f"  rank      : {f['rank']} (local_rank: {job.lr(f['rank'])})",
               f"  exitcode  : {code} (pid: {job.pids[f['rank']]})"]
        if code < 0:
            sig = {-6: "SIGABRT", -9: "SIGKILL", -11: "SIGSEGV", -7: "SIGBUS", -15: "SIGTERM"}[code]
            out += ["  error_file: <N/A>", f"  traceback : Signal {-code} ({sig}) received by PID {job.pids[f['rank']]}"]
        elif f.get("error_file") and job.record:
            out += [f"  error_file: {f['error_file']}", "  traceback : " + f["tb"][0]] + ["    " + x for x in f["tb"][1:]]
        else:
            out += ["  error_file: <N/A>", "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"]
        return out
    if len(failures) == 1:
        L.append("  <NO_OTHER_FAILURES>")
    else:
        for i, f in enumerate(failures[1:], 1):
            L += one(i, f)
    L += ["------------------------------------------------------------", "Root Cause (first observed failure):"]
    L += one(0, failures[0])
    L.append("============================================================")
    return L


def signal_exc_block(job, n, sig=15):
    T, s = job.T, job.site
    return ["Traceback (most recent call last):",
            f'  File "{job.bindir}/torchrun", line 8, in <module>', "    sys.exit(main())",
            f'  File "{s}/torch/distributed/elastic/multiprocessing/errors/__init__.py", line {T["err_wrap"]}, in wrapper',
            "    return f(*args, **kwargs)",
            f'  File "{s}/torch/distributed/run.py", line {T["run_main"]}, in main', "    run(args)",
            f'  File "{s}/torch/distributed/run.py", line {T["run_run"]}, in run', "    elastic_launch(",
            f'  File "{s}/torch/distributed/launcher/api.py", line {T["api_call"]}, in __call__',
            "    return launch_agent(self._config, self._entrypoint, list(args))",
            f'  File "{s}/torch/distributed/launcher/api.py", line {T["api_run"]}, in launch_agent',
            "    result = agent.run()",
            f'  File "{s}/torch/distributed/elastic/metrics/api.py", line {T["met"]}, in wrapper',
            "    result = f(*args, **kwargs)",
            f'  File "{s}/torch/distributed/elastic/agent/server/api.py", line {T["ag_run"]}, in run',
            "    result = self._invoke_run(role)",
            f'  File "{s}/torch/distributed/elastic/agent/server/api.py", line {T["ag_inv"]}, in _invoke_run',
            "    time.sleep(monitor_interval)",
            f'  File "{s}/torch/distributed/elastic/multiprocessing/api.py", line {T["mp_sig"]}, in _terminate_process_handler',
            '    raise SignalException(f"Process {os.getpid()} got signal: {sigval}", sigval=sigval)',
            f"torch.distributed.elastic.multiprocessing.api.SignalException: Process {job.agent_pid[n]} got signal: {sig}"]


# ====================================================================== startup / training / teardown
WARN_POOL = [
    lambda j: [f"{j.site}/torch/utils/checkpoint.py:{464 if j.tv != 'v20' else 31}: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.4 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants.",
               "  warnings.warn("],
    lambda j: [f"{j.site}/transformers/training_args.py:1525: FutureWarning: `evaluation_strategy` is deprecated and will be removed in version 4.46 of 🤗 Transformers. Use `eval_strategy` instead",
               "  warnings.warn("],
    lambda j: [f"{j.wd}/{j.script}:{j.rng.randint(60, 200)}: FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', args...)` instead.",
               "  scaler = torch.cuda.amp.GradScaler(enabled=args.fp16)"],
    lambda j: [f"{j.wd}/{j.script}:{j.rng.randint(60, 200)}: FutureWarning: `torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', args...)` instead.",
               "  with torch.cuda.amp.autocast(dtype=torch.bfloat16):"],
    lambda j: ["`use_cache=True` is incompatible with gradient checkpointing. Setting `use_cache=False`."],
    lambda j: [f"{j.site}/torch/_utils.py:831: UserWarning: TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class. This should only matter to you if you are using storages directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
               "  return self.fget.__get__(instance, owner)()"],
    lambda j: [f"{j.site}/torch/distributed/fsdp/_state_dict_utils.py:773: UserWarning: When using ``NO_SHARD`` for ``ShardingStrategy``, full_state_dict will be returned.",
               "  warnings.warn("],
    lambda j: [f"{j.site}/datasets/load.py:1461: FutureWarning: The repository for wikitext contains custom code which must be executed to correctly load the dataset. You can inspect the repository content at https://hf.co/datasets/wikitext",
               "You can avoid this message in future by passing the argument `trust_remote_code=True`.",
               "Passing `trust_remote_code=True` will be mandatory to load this dataset from the next major release of `datasets`.",
               "  warnings.warn("],
]

CPP_WARN_POOL = [
    ("reducer.cpp:1389", "Warning: find_unused_parameters=True was specified in DDP constructor, but did not find any unused parameters in the forward pass. This flag results in an extra traversal of the autograd graph every iteration,  which can adversely affect performance. If your model indeed never has any unused parameters in the forward pass, consider turning this flag off. Note that this warning may be a false positive if your model has flow control causing later iterations to have unused parameters. (function operator())"),
    ("reducer.cpp:325", "Warning: Grad strides do not match bucket view strides. This may indicate grad was not created according to the gradient layout contract, or that the param's strides changed since DDP was constructed.  This is not an error, but may impair performance."),
    ("Utils.hpp:133", "Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated; use TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function getCvarInt)"),
    ("Utils.hpp:164", "Warning: Environment variable NCCL_BLOCKING_WAIT is deprecated; use TORCH_NCCL_BLOCKING_WAIT instead (function getCvarBool)"),
]


def emit_agent_start(job, n, t):
    if job.launcher != "torchrun":
        return
    if job.rng.random() < 0.75 and job.gpn > 1:
        msgs = ["", "*****************************************",
                "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
                "*****************************************"]
        if job.tv == "v20":
            job.A[n].add(t, ["WARNING:torch.distributed.run:"] + msgs[1:])
        else:
            job.A[n].add(t, [job.agent_log(n, t, "W", "torch/distributed/run.py", 793, m) for m in msgs])


def emit_ds_runner(job, t):
    import base64
    wi = base64.b64encode(json.dumps({h: list(range(job.gpn)) for h in job.hosts}).encode()).decode()
    job.S.add(t, [job.ds_log(0, t, "INFO", "runner.py:463:main", f"Using IP address of {job.ips[0]} for node {job.hosts[0]}"),
                  job.ds_log(0, t, "INFO", "multinode_runner.py:80:get_cmd", "Running on the following workers: " + ",".join(job.hosts)),
                  job.ds_log(0, t, "INFO", "runner.py:568:main",
                             f"cmd = pdsh -S -f 1024 -w {','.join(job.hosts)} export PYTHONPATH={job.wd}; export NCCL_DEBUG={'INFO' if job.nccl_info else 'WARN'}; "
                             f"cd {job.wd}; {job.pybin} -u -m deepspeed.launcher.launch --world_info={wi} --node_rank=%n --master_addr={job.ips[0]} "
                             f"--master_port={job.master_port} {job.script} --deepspeed --deepspeed_config ds_config.json")])


def emit_ds_node_start(job, n, t):
    if n == 0:
        emit_ds_runner(job, t - 1.5)
    wi = "{" + ", ".join(f"'{h}': {list(range(job.gpn))}" for h in job.hosts) + "}"
    gm = "{" + ", ".join(f"'{h}': {list(range(i * job.gpn, (i + 1) * job.gpn))}" for i, h in enumerate(job.hosts)) + "}"
    L = [job.ds_log(n, t, "INFO", "launch.py:139:main", f"0 NCCL_IB_HCA={','.join(job.hca)}") if job.nccl_ib else None,
         job.ds_log(n, t, "INFO", "launch.py:146:main", f"WORLD INFO DICT: {wi}"),
         job.ds_log(n, t, "INFO", "launch.py:152:main", f"nnodes={job.nnodes}, num_local_procs={job.gpn}, node_rank={n}"),
         job.ds_log(n, t, "INFO", "launch.py:163:main", f"global_rank_mapping=defaultdict(<class 'list'>, {gm})"),
         job.ds_log(n, t, "INFO", "launch.py:164:main", f"dist_world_size={job.world}"),
         job.ds_log(n, t, "INFO", "launch.py:168:main", f"Setting CUDA_VISIBLE_DEVICES={','.join(str(i) for i in range(job.gpn))}"),
         job.ds_log(n, t, "INFO", "launch.py:256:main", f"process {job.pids[n * job.gpn]} spawned with command: ['{job.pybin}', '-u', '{job.script}', '--local_rank=0', '--deepspeed', '--deepspeed_config', 'ds_config.json']")]
    job.A[n].add(t, [x for x in L if x])


def nccl_init_lines(job, rank, t):
    r = job.rng
    n = job.node(rank)
    L = []
    iface = r.choice(["eth0", "ens5", "bond0", "enp6s0"]) if not hasattr(job, "iface") else job.iface
    job.iface = iface
    ip = job.ips[n]
    if rank == 0:
        L.append(job.nccl(rank, "INFO", f"Bootstrap : Using {iface}:{ip}<0>"))
    else:
        L.append(job.nccl(rank, "INFO", f"Bootstrap : Using {iface}:{ip}<0>"))
    L.append(job.nccl(rank, "INFO", "NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation"))
    mj, mn = job.cuda_drv.split(".")
    L.append(job.nccl(rank, "INFO", f"cudaDriverVersion {int(mj) * 1000 + int(mn) * 10}"))
    if rank == 0:
        L.append(f"NCCL version {job.T['nccl']}+cuda{job.T['cu']}")
    if job.nccl_ib:
        L.append(job.nccl(rank, "INFO", "NET/IB : Using " + " ".join(f"[{i}]{h}:1/IB" for i, h in enumerate(job.hca)) + f" [RO]; OOB {iface}:{ip}<0>"))
        L.append(job.nccl(rank, "INFO", "Using network IB"))
    else:
        L.append(job.nccl(rank, "INFO", "NET/IB : No device found."))
        L.append(job.nccl(rank, "INFO", f"NET/Socket : Using [0]{iface}:{ip}<0>"))
        L.append(job.nccl(rank, "INFO", "Using network Socket"))
    comm = "0x" + "".join(r.choice("0123456789abcdef") for _ in range(12))
    cid = "0x" + "".join(r.choice("0123456789abcdef") for _ in range(16)) if not hasattr(job, "commid") else job.commid
    job.commid = cid
    lrk = job.lr(rank)
    L.append(job.nccl(rank, "INFO", f"comm {comm} rank {rank} nranks {job.world} cudaDev {lrk} nvmlDev {lrk} busId {job.bus[lrk]}000 commId {cid} - Init START"))
    L.append(job.nccl(rank, "INFO", f"Setting affinity for GPU {lrk} to {'ffffffff,ffffffff' if lrk < job.gpn // 2 else 'ffffffff,ffffffff,00000000,00000000'}"))
    for ch in range(2):
        nxt = (rank + 1) % job.world
        via = "P2P/IPC" if job.node(nxt) == n else ("NET/IB/0/GDRDMA" if job.nccl_ib else "NET/Socket/0")
        if job.node(nxt) == n:
            L.append(job.nccl(rank, "INFO", f"Channel {ch:02d}/0 : {rank}[{lrk}] -> {nxt}[{job.lr(nxt)}] via {via}"))
        else:
            L.append(job.nccl(rank, "INFO", f"Channel {ch:02d}/0 : {rank}[{lrk}] -> {nxt}[{job.lr(nxt)}] [send] via {via}"))
    L.append(job.nccl(rank, "INFO", "Connected all rings"))
    L.append(job.nccl(rank, "INFO", "Connected all trees"))
    L.append(job.nccl(rank, "INFO", f"comm {comm} rank {rank} nranks {job.world} cudaDev {lrk} nvmlDev {lrk} busId {job.bus[lrk]}000 commId {cid} - Init COMPLETE"))
    return L


def emit_rank_start(job, t):
    """Per-rank startup noise, returns time when training starts."""
    r = job.rng
    if not hasattr(job, "warn_sel"):
        ok = [i for i in range(len(WARN_POOL)) if not (job.app != "hf" and i in (1, 4, 7))]
        job.warn_sel = [WARN_POOL[i](job) for i in r.sample(ok, k=r.randint(1, 3))]
        job.cwarn_sel = r.sample(range(len(CPP_WARN_POOL)), k=r.randint(0, 2))
    warns, cwarn = job.warn_sel, job.cwarn_sel
    for rank in range(job.world):
        n = job.node(rank)
        ts = t + r.uniform(2, 9)
        if job.launcher == "deepspeed":
            lines = []
            if r.random() < 0.7:
                lines += [" [WARNING]  async_io requires the dev libaio .so object and headers but these were not found.",
                          " [WARNING]  async_io: please install the libaio-dev package with apt",
                          " [WARNING]  If libaio is already installed (perhaps from source), try setting the CFLAGS and LDFLAGS environment variables to where it can be found."]
            lines += [job.ds_log(n, ts, "INFO", "comm.py:637:init_distributed", "cdb=None")]
            if rank == 0:
                lines.append(job.ds_log(n, ts, "INFO", "comm.py:668:init_distributed", "Initializing TorchBackend in DeepSpeed with backend nccl"))
            job.R[rank].add(ts, lines, "out")
        for w in warns:
            if rank == 0 or r.random() < 0.8:
                job.R[rank].add(ts + 20 + r.uniform(0, 5), w)
        if job.nccl_info:
            job.R[rank].add(ts + 25 + r.uniform(0, 3), nccl_init_lines(job, rank, ts + 25), "out")
        for c in cwarn:
            if r.random() < 0.85:
                fl, msg = CPP_WARN_POOL[c]
                job.R[rank].add(ts + 31 + r.uniform(0, 2), [job.cpp(rank, ts + 31, "W", fl, msg)])
    tr = t + r.uniform(40, 150)
    emit_rank0_header(job, tr - 2)
    return tr


def emit_rank0_header(job, t):
    r = job.rng
    d = job.loc(0, t)
    ts = f"{d:%Y-%m-%d %H:%M:%S},{d.microsecond // 1000:03d}"
    gbs = r.choice([256, 512, 1024, 64, 128])
    if job.app == "hf":
        L = [f"[INFO|trainer.py:2134] {ts} >> ***** Running training *****",
             f"[INFO|trainer.py:2135] {ts} >>   Num examples = {r.randint(10000, 3000000):,}",
             f"[INFO|trainer.py:2136] {ts} >>   Num Epochs = {r.choice([1, 2, 3])}",
             f"[INFO|trainer.py:2137] {ts} >>   Instantaneous batch size per device = {r.choice([1, 2, 4, 8])}",
             f"[INFO|trainer.py:2140] {ts} >>   Total train batch size (w. parallel, distributed & accumulation) = {gbs}",
             f"[INFO|trainer.py:2141] {ts} >>   Gradient Accumulation steps = {r.choice([1, 2, 4, 8])}",
             f"[INFO|trainer.py:2142] {ts} >>   Total optimization steps = {job.total_steps:,}",
             f"[INFO|trainer.py:2143] {ts} >>   Number of trainable parameters = {r.randint(1000000000, 8000000000):,}"]
    elif job.app == "megatron":
        L = ["> building GPT model ...",
             f" > number of parameters on (tensor, pipeline) model parallel rank (0, 0): {r.randint(800000000, 7000000000)}",
             f"[after model, optimizer, and learning rate scheduler are built] datetime: {d:%Y-%m-%d %H:%M:%S} ",
             "> building train, validation, and test datasets ...",
             f" > datasets target sizes (minimum size):\n    train:      {job.total_steps * gbs}\n    validation: {gbs * 100}\n    test:       {gbs * 10}",
             "done with setup ...",
             "training ...",
             f"[before the start of training step] datetime: {d:%Y-%m-%d %H:%M:%S} "]
    else:
        L = [job.pylog(0, t, "INFO", f"world_size={job.world} nodes={job.nnodes} gpus_per_node={job.gpn} backend=nccl"),
             job.pylog(0, t, "INFO", f"model: {r.choice(['gpt2-xl', 'vit_h14', 'llama-7b', 'resnet152', 'tx-1.3b'])} params={r.uniform(0.2, 7.5):.2f}B  fsdp={job.fsdp}"),
             job.pylog(0, t, "INFO", f"global_batch={gbs} micro_batch={r.choice([2, 4, 8, 16])} lr={job.lr_peak:g} warmup={r.choice([500, 1000, 2000])} max_steps={job.total_steps}")]
    L2 = []
    for x in L:
        L2 += x.split("\n")
    job.R[0].add(t, L2, "out")


def loss_at(job, s, spike=0.0):
    tau = job.total_steps * 0.15
    import math
    v = job.loss_floor + (job.loss0 - job.loss_floor) * math.exp(-s / tau) + job.rng.gauss(0, 0.03 * job.loss0 / 3)
    return max(0.05, v + spike)


def lr_at(job, s):
    wu = min(1000, job.total_steps // 10)
    if s < wu:
        return job.lr_peak * s / wu
    import math
    return job.lr_peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * (s - wu) / max(1, job.total_steps - wu))))


def fmt_hms(sec):
    sec = int(sec)
    h, m, s = sec // 3600, (sec % 3600) // 60, sec % 60
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


def progress_line(job, s, t, st, spike=0.0, skipped=0):
    r = job.rng
    loss = loss_at(job, s, spike)
    lr = lr_at(job, s)
    gn = abs(r.gauss(0.9, 0.25)) + (spike * 3 if spike else 0)
    if job.launcher == "deepspeed":
        L = [job.ds_log(0, t, "INFO", "logging.py:96:log_dist", f"[Rank 0] step={s}, skipped={skipped}, lr=[{lr:.6e}], mom=[(0.9, 0.95)]"),
             f"steps: {s} loss: {loss:.4f} iter time (s): {st:.3f} samples/sec: {job.world * 4 / st:.3f}"]
        return L
    if job.app == "hf":
        ep = s / job.total_steps * 1.0
        pct = int(100 * s / job.total_steps)
        bar = "█" * (pct // 10) + (" " * (10 - pct // 10))
        el = t - job.train_t0
        rem = (job.total_steps - s) * st
        tq = f"{pct:3d}%|{bar}| {s}/{job.total_steps} [{fmt_hms(el)}<{fmt_hms(rem)}, {st:.2f}s/it]"
        if r.random() < 0.5:
            tq = "\r".join([tq.replace(f"{s}/", f"{s - k}/") for k in range(min(3, job.log_every), 0, -1)] + [tq])
        return [tq, "{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %.4e, 'epoch': %.2f}" % (loss, gn, lr, ep)]
    if job.app == "megatron":
        d = job.loc(0, t)
        gbs = 512
        return [f" [{d:%Y-%m-%d %H:%M:%S}] iteration {s:8d}/{job.total_steps:8d} | consumed samples: {s * gbs:12d} | "
                f"elapsed time per iteration (ms): {st * 1000:.1f} | learning rate: {lr:.6E} | global batch size: {gbs:5d} | "
                f"lm loss: {loss:.6E} | loss scale: 1.0 | grad norm: {gn:.3f} | number of skipped iterations: {skipped:3d} | number of nan iterations:   0 |"]
    return [job.pylog(0, t, "INFO", f"step={s} loss={loss:.4f} lr={lr:.3e} grad_norm={gn:.3f} step_time={st:.2f}s tok/s/gpu={int(4096 * 4 / st)}")]


def emit_training(job, t_a, t_b, s_a, spikes=None):
    """rank 0 progress from t_a to t_b (job.train_t0/job.s_start define the step clock)."""
    st = job.step_time
    fac = job.slow[1] if job.slow else 1.0
    nsteps = int((t_b - t_a) / (st * (1 + fac) / 2))
    le = job.log_every
    while nsteps / le > 110:
        le *= 2
    job.log_every_eff = le
    spikes = spikes or {}
    s = ((s_a // le) + 1) * le
    last = s_a
    while True:
        t = job.step_t(s)
        if t > t_b:
            break
        cur = st * (fac if job.slow and s >= job.slow[0] else 1.0)
        job.R[0].add(t, progress_line(job, s, t, cur * job.rng.uniform(0.97, 1.04), spikes.get(s, 0.0)), "out")
        last = s
        s += le
    return last


def emit_success_end(job, t, step):
    """Clean completion on every rank, returns end time."""
    r = job.rng
    if job.app == "hf":
        rt = t - job.train_t0
        job.R[0].add(t, ["", "", "Training completed. Do not forget to share your model on huggingface.co/models =)", "", "",
                         "{'train_runtime': %.4f, 'train_samples_per_second': %.3f, 'train_steps_per_second': %.3f, 'train_loss': %.4f, 'epoch': %.2f}"
                         % (rt, step * 64 / rt, step / rt, loss_at(job, step) * 1.15, step / job.total_steps),
                         f"{int(100 * step / job.total_steps):3d}%|{'█' * int(10 * step / job.total_steps):<10}| {step}/{job.total_steps} [{fmt_hms(rt)}<{'00:00' if step >= job.total_steps else fmt_hms((job.total_steps - step) * job.step_time)}, {job.step_time:.2f}s/it]"], "out")
        job.R[0].add(t + 3, [f"[INFO|trainer.py:3478] {job.loc(0, t + 3):%Y-%m-%d %H:%M:%S},{r.randint(0, 999):03d} >> Saving model checkpoint to /checkpoints/{job.script.split('.')[0]}/final"], "out")
    elif job.app == "megatron":
        job.R[0].add(t, [f"[after training is done] datetime: {job.loc(0, t):%Y-%m-%d %H:%M:%S} ",
                         f"saving checkpoint at iteration {step:8d} to /checkpoints/gpt in torch_dist format",
                         f"  successfully saved checkpoint from iteration {step:8d} to /checkpoints/gpt [ t 1/1, p 1/1 ]"], "out")
    else:
        job.R[0].add(t, [job.pylog(0, t, "INFO", f"reached max_steps={step}; saving final checkpoint"),
                         job.pylog(0, t + 8, "INFO", f"saved checkpoint to /ckpt/run-{job.jobid % 10000}/step_{step}.pt"),
                         job.pylog(0, t + 9, "INFO", "done.")], "out")
    tend = t + r.uniform(10, 25)
    for rank in range(job.world):
        job.exit_info[rank] = (tend + r.uniform(0, 1.5), 0)
    if job.launcher == "deepspeed":
        for n in range(job.nnodes):
            L = [job.ds_log(n, tend + 2, "INFO", "launch.py:351:main", f"Process {job.pids[n * job.gpn + k]} exits successfully.") for k in range(job.gpn)]
            job.A[n].add(tend + 2, L)
    job.end_t = tend + 3
    return tend + 3


# ====================================================================== collateral engine
def py_collective_tb(job, rank, exc_lines):
    s = job.site
    sc = f"{job.wd}/{job.script}"
    fr = app_frames(job, "step")[:2]
    fr += [(sc, job.rng.randint(100, 220), "train_one_epoch" if job.app == "custom" else "training_step", "loss_avg = reduce_mean(loss.detach())"),
           (f"{job.wd}/utils/dist.py", job.rng.randint(10, 60), "reduce_mean", "dist.all_reduce(t, op=dist.ReduceOp.SUM)"),
           (f"{s}/torch/distributed/c10d_logger.py", 83 if job.tv != "v20" else 47, "wrapper", "return func(*args, **kwargs)"),
           (f"{s}/torch/distributed/distributed_c10d.py", 2501 if job.tv != "v20" else 1700, "all_reduce", "work.wait()" if job.tv != "v20" else "work = default_pg.allreduce([tensor], opts)")]
    return job.pyprefix(rank, tb(fr, "\n".join(exc_lines)))


def survivor_error(job, rank, t, peer_node, transport, style):
    """Lines + exit code of a survivor that noticed a dead/unreachable peer."""
    err = nccl_remote_err(job, rank, peer_node, transport)
    if job.tv == "v20":
        if style == "py":
            exc = [f"RuntimeError: NCCL communicator was aborted on rank {rank}.  Original reason for failure was: NCCL error: remote process exited or there was a network error, NCCL version {job.T['nccl']}"]
            return py_collective_tb(job, rank, exc), 1
        return watchdog_async_error_block(job, rank, t, err), -6
    if style == "py":
        src = "../torch/csrc/distributed/c10d" if job.tv != "v26" else "/pytorch/torch/csrc/distributed/c10d"
        exc = [f"torch.distributed.DistBackendError: NCCL error in: {src}/ProcessGroupNCCL.cpp:{job.rng.choice([1970, 2006, 3071])}, remote process exited or there was a network error, NCCL version {job.T['nccl']}"] + err[1:]
        return py_collective_tb(job, rank, exc), 1
    return watchdog_async_error_block(job, rank, t, err), -6


def tcpstore_reset_lines(job, rank, t):
    n = job.node(rank)
    fd = job.rng.randint(40, 140)
    L = [job.cpp(rank, t, "W", "TCPStore.cpp:125", f"[c10d] recvValue failed on SocketImpl(fd={fd}, addr=[{job.hosts[n]}]:{job.rng.randint(33000, 60999)}, remote=[{job.hosts[0]}]:{job.master_port}): Connection reset by peer"),
         f"Exception raised from recvBytes at {'/pytorch' if job.tv == 'v26' else '..'}/torch/csrc/distributed/c10d/Utils.hpp:{job.rng.choice([670, 675, 679])} (most recent call first):",
         "frame #0: c10::Error::Error(c10::SourceLocation, std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >) + 0x98 (%s in %s/libc10.so)" % (hexaddr(job.rng), job.tlib),
         "frame #1: <unknown function> + 0x5ba8bfe (%s in %s/libtorch_cpu.so)" % (hexaddr(job.rng), job.tlib),
         "frame #2: <unknown function> + 0x5baafcf (%s in %s/libtorch_cpu.so)" % (hexaddr(job.rng), job.tlib),
         "frame #3: c10d::TCPStore::check(std::vector<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >, std::allocator<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > > > const&) + 0x2a (%s in %s/libtorch_cpu.so)" % (hexaddr(job.rng), job.tlib),
         "frame #4: c10d::ProcessGroupNCCL::heartbeatMonitor() + 0x379 (%s in %s/libtorch_cuda.so)" % (hexaddr(job.rng), job.tlib),
         "",
         job.cpp(rank, t + 0.01, "W", "ProcessGroupNCCL.cpp:1662" if job.tv == "v26" else "ProcessGroupNCCL.cpp:1319",
                 f"{'[PG ID 0 PG GUID 0 Rank %d]' % rank if job.tv == 'v26' else '[PG 0 Rank %d]' % rank} Failed to check the \"should dump\" flag on TCPStore, (maybe TCPStore server has shut down too early), with error: Connection reset by peer")]
    return L


def simulate(job, plan):
    """Turn a failure plan into rank / agent / scheduler output.

    plan keys: init (rank|None), mode ('exit'|'hang'|'node_death'), t_x, code, init_blocks,
    dstate, peer ('remote'|'timeout'), transport, coll (seq, op, nin, nout), t_coll,
    mismatch {rank: (op, nin, nout)}, extra_fail {rank: (t, code, lines)}, dead_node
    """
    r = job.rng
    W = job.world
    init = plan.get("init")
    mode = plan["mode"]
    seq, op, nin, nout = plan["coll"]
    job.tseq = seq
    T = job.timeout_ms / 1000.0
    fail = {}        # rank -> (t, code, lines, stream)
    hung = set()
    if mode == "exit":
        fail[init] = (plan["t_x"], plan["code"], None, None)
    elif mode == "hang" and not plan.get("mismatch_hang_self"):
        hung.add(init)
        for rk in plan.get("hung_extra", []):
            hung.add(rk)
    dead_node = plan.get("dead_node")
    for rk, v in plan.get("extra_fail", {}).items():
        fail[rk] = (v[0], v[1], v[2], "err")
    # survivors
    t_coll = plan.get("t_coll", plan.get("t_x"))
    for rk in range(W):
        if rk in fail or rk in hung:
            continue
        n = job.node(rk)
        if dead_node is not None and n == dead_node:
            fail[rk] = (plan["t_x"] + r.uniform(0, 0.05), -9, [], "err")
            continue
        if mode == "exit" and init is not None and n == job.node(init):
            continue   # agent will SIGTERM them
        if plan["peer"] == "remote":
            tt = plan["t_x"] + r.uniform(0.8, 25.0)
            style = "py" if r.random() < 0.35 else "wd"
            lines, code = survivor_error(job, rk, tt, job.node(init) if init is not None else dead_node,
                                         plan["transport"], style)
            fail[rk] = (tt, code, lines, "err")
        else:
            tt = t_coll + T + r.uniform(0.05, 3.0)
            mm = plan.get("mismatch", {})
            o, a, b = mm.get(rk, (op, nin, nout))
            sq = plan.get("mismatch_seq", {}).get(rk, seq)
            le = sq + r.choice([0, 1, 2]) if mode != "hang" else sq + r.choice([1, 2])
            lines = watchdog_timeout_block(job, rk, tt, sq, o, a, b, le, sq - 1)
            fail[rk] = (tt, -6, lines, "err")
    # initiator's own blocks (added after the agents when the output is 'buffered')
    if not plan.get("buffered"):
        for (t, lines, stream) in plan.get("init_blocks", []):
            job.R[init if init is not None else 0].add(t, lines, stream)
    printed_other = []
    # per-node agent handling
    node_exit = {}
    det = {}
    for n in range(job.nnodes):
        rks = [rk for rk in range(n * job.gpn, (n + 1) * job.gpn)]
        ft = [fail[rk][0] for rk in rks if rk in fail]
        det[n] = (min(ft) + r.uniform(0.2, 4.5)) if ft else None
    gkill = None
    if job.layout == "slurm" and job.kill_on_bad_exit:
        cand = [det[n] + 1.2 for n in det if det[n] is not None and not (dead_node is not None and n == dead_node)]
        if dead_node is not None:
            cand.append(plan["t_x"] + r.uniform(0.5, 2))
        gkill = min(cand) + r.uniform(0.3, 1.5) if cand else None
    elif job.layout == "k8s":
        cand = [det[n] + 1.0 for n in det if det[n] is not None]
        gkill = (min(cand) + r.uniform(8, 40)) if cand else None
    job.node_exit = {}
    store_gone = None
    for n in range(job.nnodes):
        rks = list(range(n * job.gpn, (n + 1) * job.gpn))
        dn = det[n]
        sigterm_agent = gkill is not None and (dn is None or gkill < dn) and not (dead_node == n)
        if dead_node == n:
            # the whole node vanished: processes and agent died without a word
            for rk in rks:
                job.exit_info[rk] = (plan["t_x"], -9)
            job.node_exit[n] = (plan["t_x"], "killed")
            if n == 0:
                store_gone = plan["t_x"]
            continue
        cutoff = gkill if sigterm_agent else dn
        failed = []
        for rk in rks:
            if rk in fail and fail[rk][0] <= (cutoff if cutoff is not None else 1e18):
                t, code, lines, stream = fail[rk]
                if lines:
                    job.R[rk].add(t, lines, stream or "err")
                    if init is not None and n != job.node(init):
                        printed_other.append(t)
                failed.append((t, rk, code))
        failed.sort()
        if sigterm_agent:
            tk = gkill
            tsx = emit_agent_signal(job, n, tk, [rk for rk in rks if rk not in [f[1] for f in failed]], hung) or (tk + 1.0)
            for rk in rks:
                job.exit_info.setdefault(rk, (tk + 0.5, -15))
            for (t, rk, code) in failed:
                job.exit_info[rk] = (t, code)
            job.node_exit[n] = (tsx, "sigterm")
            if n == 0:
                store_gone = tk + 1.0
            continue
        if dn is None:
            # nobody failed here (e.g. hung only) - should not happen without gkill
            job.node_exit[n] = (None, "running")
            continue
        # the failures observed in the same monitor tick
        listed = [f for f in failed if f[0] <= dn]
        for (t, rk, code) in listed:
            job.exit_info[rk] = (t, code)
        others = [rk for rk in rks if rk not in [f[1] for f in listed]]
        tend = emit_agent_failure(job, n, dn, listed, others, hung if plan.get("dstate") else set(), plan)
        for rk in others:
            job.exit_info.setdefault(rk, (dn + 0.4, -15))
        job.node_exit[n] = (tend, "exit1")
        if n == 0:
            store_gone = tend
    if plan.get("buffered"):
        cands = printed_other + [v[0] - 2.5 for k, v in job.node_exit.items() if v[1] == "sigterm" and v[0] is not None]
        tb0 = (min(cands) + r.uniform(0.4, 2.0)) if cands else None
        for (t, lines, stream) in plan.get("init_blocks", []):
            job.R[init].add(max(t, tb0) if tb0 is not None else t, lines, stream)
    # survivors whose TCPStore (hosted on node 0) vanished while they were still alive
    if store_gone is not None and job.tv in ("v24", "v26") and job.nnodes > 1:
        for rk in range(job.gpn, W):
            n = job.node(rk)
            ex = job.exit_info.get(rk, (1e18, 0))[0]
            tt = store_gone + r.uniform(0.3, 4.0)
            if tt < ex and r.random() < 0.6:
                job.R[rk].add(tt, tcpstore_reset_lines(job, rk, tt))
    job.gkill = gkill
    if job.launcher == "deepspeed":
        for n, v in sorted(job.node_exit.items()):
            if v[1] in ("exit1", "killed", "sigterm") and v[0] is not None:
                code = {"exit1": 1, "killed": 137, "sigterm": 143}[v[1]]
                job.S.add(v[0] + 0.5, [f"pdsh@{job.hosts[0]}: {job.hosts[n]}: ssh exited with exit code {code}"])
    ends = [v[0] for v in job.node_exit.values() if v[0] is not None]
    job.end_t = max(ends) if ends else plan["t_x"] + 60
    emit_sched_end(job, plan)


def emit_agent_failure(job, n, t, listed, others, dstate_ranks, plan):
    """Launcher agent on node n noticed failures `listed` at time t; returns agent exit time."""
    r = job.rng
    if job.launcher == "deepspeed":
        L = []
        for k in range(job.gpn):
            L.append(job.ds_log(n, t, "INFO", "launch.py:319:sigkill_handler", f"Killing subprocess {job.pids[n * job.gpn + k]}"))
        t0, rk, code = listed[0]
        L.append(job.ds_log(n, t + 0.6, "ERROR", "launch.py:325:sigkill_handler",
                            f"['{job.pybin}', '-u', '{job.script}', '--local_rank={job.lr(rk)}', '--deepspeed', '--deepspeed_config', 'ds_config.json'] exits with return code = {code}"))
        job.A[n].add(t, L)
        return t + 1.0
    L = []
    T = job.T
    for rk in others:
        L.append(job.agent_log(n, t, "W", "torch/distributed/elastic/multiprocessing/api.py", T["mp_term"], f"Sending process {job.pids[rk]} closing signal SIGTERM"))
    t2 = t + r.uniform(0.3, 3.0)
    for rk in others:
        if rk in dstate_ranks:
            t2 += 30
            L.append(job.agent_log(n, t2, "W", "torch/distributed/elastic/multiprocessing/api.py", T["mp_term"] + 12,
                                   f"Unable to shutdown process {job.pids[rk]} via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL"))
    t0, rk0, c0 = listed[0]
    L.append(job.agent_log(n, t2, "E", "torch/distributed/elastic/multiprocessing/api.py", T["mp_fail"],
                           f"failed (exitcode: {c0}) local_rank: {job.lr(rk0)} (pid: {job.pids[rk0]}) of binary: {job.pybin}"))
    job.A[n].add(t, L)
    fails = []
    for (t_, rk, code) in listed:
        d = dict(rank=rk, t=t_, code=code)
        if code == 1 and plan.get("tb") and rk == plan.get("init"):
            d["error_file"] = f"/tmp/torchelastic_{''.join(r.choice('abcdefghijklmnopqrstuvwxyz0123456789_') for _ in range(8))}/none_{''.join(r.choice('abcdefghijklmnopqrstuvwxyz0123456789') for _ in range(8))}/attempt_{job.attempt}/{job.lr(rk)}/error.json"
            d["tb"] = plan["tb"]
        fails.append(d)
    job.A[n].add(t2 + 0.2, summary_block(job, n, fails))
    job.summaries = getattr(job, "summaries", []) + [(n, fails)]
    return t2 + 0.5


def emit_agent_signal(job, n, t, workers, hung):
    """Launcher agent on node n got SIGTERM (scheduler kill / preemption)."""
    r = job.rng
    if job.launcher == "deepspeed":
        L = [job.ds_log(n, t, "INFO", "launch.py:319:sigkill_handler", f"Killing subprocess {job.pids[n * job.gpn + k]}") for k in range(job.gpn)]
        L.append(job.ds_log(n, t + 0.5, "ERROR", "launch.py:325:sigkill_handler",
                            f"['{job.pybin}', '-u', '{job.script}', '--local_rank=0', '--deepspeed', '--deepspeed_config', 'ds_config.json'] exits with return code = -15"))
        job.A[n].add(t, L)
        return
    T = job.T
    L = [job.agent_log(n, t, "W", "torch/distributed/elastic/agent/server/api.py", T["ag_sleep"] - 147, "Received Signals.SIGTERM death signal, shutting down workers")]
    for rk in workers:
        L.append(job.agent_log(n, t, "W", "torch/distributed/elastic/multiprocessing/api.py", T["mp_term"], f"Sending process {job.pids[rk]} closing signal SIGTERM"))
    job.A[n].add(t, L)
    job.A[n].add(t + r.uniform(0.5, 3), signal_exc_block(job, n, 15))
    return t + 3.2


def emit_sched_end(job, plan):
    r = job.rng
    if job.layout == "slurm":
        L = []
        t_last = 0
        items = sorted((v[0] or job.end_t, n, v[1]) for n, v in job.node_exit.items())
        cancelled_printed = False
        for (t, n, st) in items:
            if st == "exit1":
                job.S.add(t + 0.3, [f"srun: error: {job.hosts[n]}: task {n}: Exited with exit code 1"])
            elif st == "sigterm":
                if not cancelled_printed:
                    d = job.loc(0, job.gkill)
                    job.S.add(job.gkill - 0.1, [f"slurmstepd: error: *** STEP {job.jobid}.0 ON {job.hosts[0]} CANCELLED AT {d:%Y-%m-%dT%H:%M:%S} ***",
                                                "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."])
                    cancelled_printed = True
                job.S.add(t + 0.3, [f"srun: error: {job.hosts[n]}: task {n}: Terminated"])
            elif st == "killed":
                job.S.add(t + r.uniform(1, 4), [f"srun: error: {job.hosts[n]}: task {n}: Killed"])
            t_last = max(t_last, t)
        if job.nnodes > 1 and not cancelled_printed and r.random() < 0.5:
            job.S.add(t_last + 1, ["srun: launch/slurm: _step_signal: Terminating StepId=%d.0" % job.jobid])
    elif job.layout == "k8s" and plan.get("restart"):
        for n, v in job.node_exit.items():
            if v[1] in ("exit1", "killed"):
                job.events.append(((v[0] or job.end_t) + 1, "Normal", "PyTorchJobRestarting", f"pytorchjob/{job.k8s_job}",
                                   f"PyTorchJob {job.k8s_job} is restarting because 1 {'Master' if n == 0 else 'Worker'} replica(s) failed."))
                job.events.append(((v[0] or job.end_t) + 5, "Normal", "Pulled", f"pod/{job.hosts[n]}", "Container image already present on machine"))
                job.events.append(((v[0] or job.end_t) + 6, "Normal", "Started", f"pod/{job.hosts[n]}", "Started container pytorch"))
    elif job.layout == "k8s":
        failed_pods = sorted((v[0] or job.end_t, n) for n, v in job.node_exit.items() if v[1] in ("exit1", "killed"))
        first = failed_pods[0][1] if failed_pods else 0
        tfj = (failed_pods[0][0] if failed_pods else job.end_t) + r.uniform(1, 5)
        job.events.append((tfj, "Normal", "PyTorchJobFailed", f"pytorchjob/{job.k8s_job}",
                           f"PyTorchJob training/{job.k8s_job} is failed because 1 {'Master' if first == 0 else 'Worker'} replica(s) failed."))
        if job.gkill:
            for n, v in job.node_exit.items():
                if v[1] == "sigterm":
                    job.events.append((job.gkill, "Normal", "Killing", f"pod/{job.hosts[n]}", "Stopping container pytorch"))


# ====================================================================== evidence helpers
def ev_rank_text(job, rank, text):
    n, lrk = job.node(rank), job.lr(rank)
    job.rank_markers.append([((job.hosts[n] + "/", f"/{lrk}/std"), text)])
    job.rank_markers.append([("", f"[rank{rank}]: {text}")])
    job.rank_markers.append([("", f"[rank{rank}]:{text}")])
    job.rank_markers.append([((job.hosts[n] + "/torchrun",), f"[default{lrk}]:{text}")])


def ev_summary_root(job, rank, code, text):
    """rank established by torchrun / deepspeed launcher attribution plus the error text."""
    n, lrk = job.node(rank), job.lr(rank)
    job.rank_markers.append([("", f"host      : {job.hosts[n]}\n  rank      : {rank} (local_rank: {lrk})\n  exitcode  : {code} (pid: {job.pids[rank]})"),
                             ("", text)])
    job.rank_markers.append([("", f"{job.hosts[n]}: "), ("", f"'--local_rank={lrk}', '--deepspeed', '--deepspeed_config', 'ds_config.json'] exits with return code = {code}"), ("", text)])


def ev_node_text(job, n, text, path_sub=""):
    job.node_markers.append([(path_sub, text)])


def xid_line(job, lrk, code, body, pid=None, name=None):
    if job.drv_new:
        p = f"pid={pid}, name={name}" if pid else "pid='<unknown>', name=<unknown>"
        return f"NVRM: Xid (PCI:{job.pci(lrk)}): {code}, {p}, {body}"
    p = f"pid={pid}, " if pid else ""
    return f"NVRM: Xid (PCI:{job.pci(lrk)}): {code}, {p}{body}"


def kernel_noise(job, n):
    r = job.rng
    L = []
    for _ in range(r.randint(3, 9)):
        t = r.uniform(-7200, (job.end_t or 20000))
        L.append((t, r.choice([
            f"IPv6: ADDRCONF(NETDEV_CHANGE): veth{''.join(r.choice('0123456789abcdef') for _ in range(7))}: link becomes ready",
            f"docker0: port {r.randint(1, 9)}(veth{''.join(r.choice('0123456789abcdef') for _ in range(7))}) entered forwarding state",
            f"perf: interrupt took too long ({r.randint(2501, 4000)} > 2500), lowering kernel.perf_event_max_sample_rate to {r.choice([79750, 63750, 50000])}",
            f"audit: type=1400 audit({int((job.loc(n, t) - datetime(1970, 1, 1)).total_seconds())}.{r.randint(100, 999)}:{r.randint(100, 999)}): apparmor=\"DENIED\" operation=\"open\" profile=\"snap.lxd.activate\" name=\"/proc/{r.randint(1000, 99999)}/mounts\" pid={r.randint(1000, 99999)} comm=\"snap-exec\" requested_mask=\"r\" denied_mask=\"r\" fsuid=0 ouid=0",
            f"nvidia-peermem: module verification failed: signature and/or required key missing - tainting kernel" if r.random() < 0.3 else f"TCP: request_sock_TCP: Possible SYN flooding on port {job.master_port}. Sending cookies.  Check SNMP counters.",
            f"EXT4-fs (nvme{r.randint(0, 3)}n1): mounted filesystem with ordered data mode. Quota mode: none.",
            f"NVRM: GPU at PCI:{job.pci(r.randrange(job.gpn))}: GPU-{''.join(r.choice('0123456789abcdef') for _ in range(8))}-{''.join(r.choice('0123456789abcdef') for _ in range(4))}-{''.join(r.choice('0123456789abcdef') for _ in range(4))}-{''.join(r.choice('0123456789abcdef') for _ in range(4))}-{''.join(r.choice('0123456789abcdef') for _ in range(12))}" if r.random() < 0.2 else f"mlx5_core 0000:{r.choice(['0c', '1a', '3b', '5e', '9c', 'c1'])}:00.0: mlx5_fw_tracer_handle_traces:{r.randint(700, 760)}:(pid {r.randint(100, 900)}): FWTracer: Events were lost",
        ])))
    job.K[n] = L + job.K[n]


def nvsmi_q(job, n, t, ecc=None, remap=None, throttle=None, lost=None):
    """nvidia-smi -q -d ECC,ROW_REMAPPER[,PERFORMANCE] output for node n."""
    ecc = ecc or {}
    remap = remap or {}
    throttle = throttle or {}
    d = job.loc(n, t)
    L = ["", "==============NVSMI LOG==============", "",
         f"Timestamp                                 : {ctime(d)}",
         f"Driver Version                            : {job.drv}",
         f"CUDA Version                              : {job.cuda_drv}", "",
         f"Attached GPUs                             : {8 if job.gpn == 8 or job.rng.random() < 0.8 else job.gpn}"]
    for k in range(job.gpn):
        bid = f"00000000:{job.bus[k].upper()}:00.0"
        if lost is not None and lost == k:
            L.append(f"Unable to determine the device handle for GPU{bid}: Unknown Error")
            continue
        L.append(f"GPU {bid}")
        if throttle is not None and "perf" in throttle:
            sl = throttle.get(k)
            L += ["    Performance State                     : P0",
                  "    Clocks Event Reasons" if job.tv in ("v24", "v26") else "    Clocks Throttle Reasons",
                  "        Idle                              : Not Active",
                  "        Applications Clocks Setting       : Not Active",
                  f"        SW Power Cap                      : {'Active' if sl == 'power' else 'Not Active'}",
                  f"        HW Slowdown                       : {'Active' if sl in ('hw', 'thermal') else 'Not Active'}",
                  f"            HW Thermal Slowdown           : {'Active' if sl == 'thermal' else 'Not Active'}",
                  f"            HW Power Brake Slowdown       : {'Active' if sl == 'hw' else 'Not Active'}",
                  "        Sync Boost                        : Not Active",
                  f"        SW Thermal Slowdown               : {'Active' if sl == 'thermal' else 'Not Active'}",
                  "        Display Clock Setting             : Not Active"]
        e = ecc.get(k, {})
        vc, vu, ac, au = e.get("vc", 0), e.get("vu", 0), e.get("ac", e.get("vc", 0) + job.rng.choice([0, 0, 0, 2, 5])), e.get("au", e.get("vu", 0))
        L += ["    ECC Mode", "        Current                           : Enabled", "        Pending                           : Enabled",
              "    ECC Errors", "        Volatile",
              "            SRAM Correctable              : 0", "            SRAM Uncorrectable            : 0",
              f"            DRAM Correctable              : {vc}", f"            DRAM Uncorrectable            : {vu}",
              "        Aggregate",
              "            SRAM Correctable              : 0", "            SRAM Uncorrectable            : 0",
              f"            DRAM Correctable              : {ac}", f"            DRAM Uncorrectable            : {au}"]
        m = remap.get(k, {})
        L += ["    Remapped Rows",
              f"        Correctable Error                 : {m.get('c', 0)}",
              f"        Uncorrectable Error               : {m.get('u', 0)}",
              f"        Pending                           : {'Yes' if m.get('pending') else 'No'}",
              f"        Remapping Failure Occurred        : {'Yes' if m.get('fail') else 'No'}",
              "        Bank Remap Availability Histogram",
              f"            Max                           : {640 - m.get('u', 0) - m.get('c', 0)} bank(s)",
              "            High                          : 0 bank(s)",
              "            Partial                       : 0 bank(s)",
              f"            Low                           : {1 if m.get('fail') else 0} bank(s)",
              "            None                          : 0 bank(s)", ""]
    return "\n".join(L) + "\n"


def default_coll(job, step):
    r = job.rng
    c = getattr(job, "_coll", None)
    if c is not None and c[0] == job.attempt:
        return c[1]
    if job.fsdp:
        op, a, b = r.choice(OPS_FSDP)
    else:
        op, a = r.choice(OPS_DDP)
        b = a
    res = (job.seqno + step * r.choice([3, 4, 6]) + r.randint(0, 2), op, a, b)
    job._coll = (job.attempt, res)
    job.tseq = res[0]
    return res


def pick_init(job, allow0=0.15):
    r = job.rng
    if job.world == 1 or r.random() < allow0:
        return 0
    return r.randrange(1, job.world)


# ====================================================================== causes
def oom_msg(job, lrk, pid):
    r = job.rng
    tot, _ = GPU_MEM[job.gpu]
    ask = r.choice(["20.00 MiB", "256.00 MiB", "1.95 GiB", "2.00 GiB", "3.91 GiB", "7.81 GiB", "896.00 MiB"])
    free = r.choice(["11.69 MiB", "15.81 MiB", "3.44 MiB", "1.06 GiB", "401.81 MiB"])
    alloc = round(float(tot) - r.uniform(3.5, 7.0), 2)
    resv = round(float(tot) - alloc - r.uniform(0.2, 1.8), 2)
    if job.tv == "v20":
        return (f"torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate {ask} (GPU {lrk}; {tot} GiB total capacity; "
                f"{alloc} GiB already allocated; {free} free; {round(alloc + resv, 2)} GiB reserved in total by PyTorch) If reserved memory is >> allocated memory "
                "try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF")
    name = "torch.OutOfMemoryError" if job.tv in ("v24", "v26") else "torch.cuda.OutOfMemoryError"
    return (f"{name}: CUDA out of memory. Tried to allocate {ask}. GPU {lrk} has a total capacity of {tot} GiB of which {free} is free. "
            f"Process {pid} has {round(float(tot) - 0.6, 2)} GiB memory in use. Of the allocated memory {alloc} GiB is allocated by PyTorch, and "
            f"{resv} GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
            "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  "
            "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")


def backward_frames(job):
    s = job.site
    sc = f"{job.wd}/{job.script}"
    if job.app == "hf":
        fr = app_frames(job, "step")[:4] + [(f"{s}/transformers/trainer.py", 3341, "training_step", "self.accelerator.backward(loss, **kwargs)"),
                                            (f"{s}/accelerate/accelerator.py", 2159, "backward", "loss.backward(**kwargs)")]
    elif job.app == "megatron":
        fr = app_frames(job, "step")[:6] + [(f"{job.wd}/megatron/core/pipeline_parallel/schedules.py", 468, "forward_backward_no_pipelining", "backward_step(input_tensor, output_tensor, output_tensor_grad, model_type, config)"),
                                            (f"{job.wd}/megatron/core/pipeline_parallel/schedules.py", 366, "backward_step", "custom_backward(output_tensor[0], output_tensor_grad[0])"),
                                            (f"{job.wd}/megatron/core/pipeline_parallel/schedules.py", 150, "custom_backward", "Variable._execution_engine.run_backward(")]
        return fr
    else:
        fr = app_frames(job, "step")[:2] + [(sc, job.rng.randint(120, 220), "train_one_epoch",
                                            "scaler.scale(loss).backward()" if job.rng.random() < 0.5 else "loss.backward()")]
    fr += [(f"{s}/torch/_tensor.py", 521 if job.tv != "v20" else 487, "backward", "torch.autograd.backward("),
           (f"{s}/torch/autograd/__init__.py", 289 if job.tv != "v20" else 200, "backward", "_engine_run_backward(" if job.tv != "v20" else "Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"),
           ]
    if job.tv != "v20":
        fr.append((f"{s}/torch/autograd/graph.py", 768, "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"))
    return fr


def init_exit_plan(job, init, t, lines, code, tb_for_summary=None, peer=None, step=0):
    r = job.rng
    return dict(init=init, mode="exit", t_x=t + r.uniform(0.3, 2.5), code=code,
                init_blocks=[(t, lines, "err")], peer=peer or r.choice(["remote", "timeout", "timeout"]),
                transport="ib" if job.nccl_ib else "socket", coll=default_coll(job, step),
                t_coll=t + r.uniform(-1, 1), tb=tb_for_summary)


def cause_gpu_hardware(job, t, step):
    r = job.rng
    init = pick_init(job)
    n, lrk = job.node(init), job.lr(init)
    job.dmesg_nodes.append(n)
    v = r.choice(["xid79", "xid79", "gsp119", "xid62"])
    job.truth_node, job.truth_rank = n, init
    if v in ("xid79", "xid62"):
        if v == "xid79":
            xl = xid_line(job, lrk, 79, "GPU has fallen off the bus.")
            job.klog(n, t - 0.4, f"NVRM: GPU at PCI:{job.pci(lrk)}: GPU-{job.uuid(lrk, n)}")
            job.klog(n, t - 0.4, f"NVRM: GPU Board Serial Number: {r.randint(1320000000000, 1659999999999)}")
            job.klog(n, t - 0.4, xl)
            job.klog(n, t - 0.39, f"NVRM: GPU {job.pci(lrk)}.0: GPU has fallen off the bus.")
            job.klog(n, t - 0.38, "NVRM: A GPU crash dump has been created. If possible, please run")
            job.klog(n, t - 0.38, "NVRM: nvidia-bug-report.sh as root to collect this data before")
            job.klog(n, t - 0.38, "NVRM: the NVIDIA kernel module is unloaded.")
            job.notes.append(f"Xid 79 (GPU fell off the bus) on {job.hosts[n]} GPU {lrk} ({job.pci(lrk)}), rank {init}")
            job.files[f"nvidia-smi-{job.khost(n)}.txt"] = nvsmi_q(job, n, t + 900, lost=lrk)
        else:
            xl = xid_line(job, lrk, 62, f"Internal micro-controller halt (0x{r.randint(0x100, 0xfff):x})", pid=job.pids[init], name="pt_main_thread")
            job.klog(n, t - 0.3, xl)
            job.klog(n, t - 0.2, xid_line(job, lrk, 45, "Ch 00000010", pid=job.pids[init], name="pt_main_thread") if job.drv_new else xid_line(job, lrk, 45, "Ch 00000010"))
            job.notes.append(f"Xid 62 (internal micro-controller halt) on {job.hosts[n]} GPU {lrk}, rank {init}")
        ev_node_text(job, n, xl)
        msg = "unspecified launch failure" if r.random() < 0.6 else "unknown error"
        if r.random() < 0.5:
            err = cuda_err_lines(msg, job.tv != "v20")
            lines = watchdog_async_error_block(job, init, t, err)
            job.rank_markers.append([("", f"Rank {init}] Process group watchdog thread terminated with exception: CUDA error: {msg}")])
            job.rank_markers.append([("", f"[Rank {init}] NCCL watchdog thread terminated with exception: CUDA error: {msg}")])
            code = -6
            tbl = None
        else:
            fr = app_frames(job, "step")
            tbl = tb(fr, "RuntimeError: " + "\n".join(cuda_err_lines(msg, job.tv != "v20")))
            lines = job.pyprefix(init, tbl)
            ev_rank_text(job, init, f"RuntimeError: CUDA error: {msg}")
            ev_summary_root(job, init, 1, f"RuntimeError: CUDA error: {msg}")
            code = 1
        job.rank_markers.append([("", xl), ("", f"rank {init} nranks {job.world} cudaDev {lrk} nvmlDev {lrk} busId {job.bus[lrk]}000")])
        return init_exit_plan(job, init, t, lines, code, tbl, step=step)
    # GSP timeout -> the rank hangs; everybody else times out
    for k in range(r.randint(3, 7)):
        xl = xid_line(job, lrk, 119, f"Timeout after 6s of waiting for RPC response from GPU{lrk} GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a4c 0x{r.choice(['4', '8', '1c'])}).",
                      pid=job.pids[init], name="pt_main_thread")
        job.klog(n, t + 6 * k, xl)
        if k == 0:
            ev_node_text(job, n, xl)
            x0 = xl
    if job.drv_new and r.random() < 0.6:
        job.klog(n, t + 40, f"NVRM: Xid (PCI:{job.pci(lrk)}): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)")
    job.notes.append(f"GSP RPC timeout (Xid 119) on {job.hosts[n]} GPU {lrk}; rank {init} hung, all others hit the NCCL watchdog")
    plan = dict(init=init, mode="hang", t_x=t, t_coll=t + r.uniform(0, 2), dstate=True, peer="timeout",
                transport="ib", coll=default_coll(job, step))
    job.rank_markers.append([("", x0), ("", f"pid: {job.pids[init]})")])
    job.rank_markers.append([("", x0), ("", f"rank {init} nranks {job.world} cudaDev {lrk} nvmlDev {lrk} busId {job.bus[lrk]}000")])
    hang_markers(job, init, plan["coll"][0])
    return plan


def hang_markers(job, init, seq):
    """Rank is established if every other rank's watchdog line is visible."""
    conj = []
    for rk in range(job.world):
        if rk != init:
            conj.append(("", f"[Rank {rk}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq},"))
    if job.world > 1:
        job.rank_markers.append(conj)


def cause_ecc_memory(job, t, step):
    r = job.rng
    init = pick_init(job)
    n, lrk = job.node(init), job.lr(init)
    job.truth_node, job.truth_rank = n, init
    job.dmesg_nodes.append(n)
    if job.drv_new:
        x48 = xid_line(job, lrk, 48, f"An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at physAddr 0x{r.randint(0x100000000, 0x13fffffff):x} partition {r.randint(0, 7)}, subpartition {r.randint(0, 1)}.")
    else:
        x48 = xid_line(job, lrk, 48, f"An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition {r.randint(0, 7)}, subpartition {r.randint(0, 1)}.")
    job.klog(n, t - 0.2, x48)
    fail = r.random() < 0.45
    if fail:
        x2 = xid_line(job, lrk, 64, f"Row Remapper Error: (0x{r.randint(0x100000000, 0x3ffffffff):016x}) - All reserved rows for bank are remapped")
        job.files[f"nvidia-smi-q-{job.khost(n)}.txt"] = nvsmi_q(job, n, t + 1200, ecc={lrk: {"vu": r.randint(1, 3), "vc": r.randint(0, 40)}},
                                                               remap={lrk: {"u": r.randint(8, 12), "fail": True, "c": r.randint(0, 3)}})
    else:
        x2 = xid_line(job, lrk, 63, "Row Remapper: New row marked for remapping, reset gpu to activate.")
        job.files[f"nvidia-smi-q-{job.khost(n)}.txt"] = nvsmi_q(job, n, t + 1200, ecc={lrk: {"vu": r.randint(1, 2), "vc": r.randint(0, 9)}},
                                                               remap={lrk: {"u": 1, "pending": True}})
    job.klog(n, t - 0.1, x2)
    if r.random() < 0.6:
        job.klog(n, t + 0.2, xid_line(job, lrk, 45, "Ch 00000008", pid=job.pids[init], name="pt_main_thread") if job.drv_new else xid_line(job, lrk, 45, "Ch 00000008"))
    ev_node_text(job, n, x48)
    job.notes.append(f"uncorrectable ECC (Xid 48 + {'Xid 64 row-remap failure' if fail else 'Xid 63 remap pending'}) on {job.hosts[n]} GPU {lrk}; rank {init}")
    msg = "uncorrectable ECC error encountered"
    job.rank_markers.append([("", x48), ("", f"rank {init} nranks {job.world} cudaDev {lrk} nvmlDev {lrk} busId {job.bus[lrk]}000")])
    if r.random() < 0.5:
        fr = app_frames(job, "step") if r.random() < 0.5 else backward_frames(job)
        tbl = tb(fr, "RuntimeError: " + "\n".join(cuda_err_lines(msg, job.tv != "v20")))
        ev_rank_text(job, init, f"RuntimeError: CUDA error: {msg}")
        ev_summary_root(job, init, 1, f"RuntimeError: CUDA error: {msg}")
        return init_exit_plan(job, init, t, job.pyprefix(init, tbl), 1, tbl, step=step)
    lines = watchdog_async_error_block(job, init, t, cuda_err_lines(msg, job.tv != "v20"))
    job.rank_markers.append([("", f"Rank {init}] Process group watchdog thread terminated with exception: CUDA error: {msg}")])
    job.rank_markers.append([("", f"[Rank {init}] NCCL watchdog thread terminated with exception: CUDA error: {msg}")])
    return init_exit_plan(job, init, t, lines, -6, step=step)


def cause_nvlink(job, t, step):
    r = job.rng
    init = pick_init(job)
    n, lrk = job.node(init), job.lr(init)
    job.truth_node, job.truth_rank = n, init
    job.dmesg_nodes.append(n)
    link = r.randint(0, 17)
    regs = r.choice(["(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)", "(0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)", "(0x10000, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)"])
    x74 = xid_line(job, lrk, 74, f"NVLink: fatal error detected on link {link}{regs}")
    job.klog(n, t - 0.3, x74)
    peer_l = (lrk + r.randint(1, job.gpn - 1)) % job.gpn
    if r.random() < 0.5:
        job.klog(n, t - 0.29, xid_line(job, peer_l, 74, f"NVLink: fatal error detected on link {r.randint(0, 17)}{regs}"))
    if job.gpn == 8 and r.random() < 0.5:
        sw = r.randint(0, 3)
        job.klog(n, t - 0.35, f"nvidia-nvswitch{sw}: SXid (PCI:0000:{r.choice(['05', '06', '07', '08'])}:00.0): 20034, Fatal, Link {r.randint(0, 63)} LTSSM Fault Up")
    ev_node_text(job, n, x74)
    job.notes.append(f"NVLink fatal error (Xid 74) on {job.hosts[n]} GPU {lrk}; rank {init} hit it first")
    msg = "uncorrectable NVLink error was detected during the execution"
    job.rank_markers.append([("", x74), ("", f"rank {init} nranks {job.world} cudaDev {lrk} nvmlDev {lrk} busId {job.bus[lrk]}000")])
    if r.random() < 0.5:
        fr = backward_frames(job)
        tbl = tb(fr, "RuntimeError: " + "\n".join(cuda_err_lines(msg, job.tv != "v20")))
        ev_rank_text(job, init, f"RuntimeError: CUDA error: {msg}")
        ev_summary_root(job, init, 1, f"RuntimeError: CUDA error: {msg}")
        return init_exit_plan(job, init, t, job.pyprefix(init, tbl), 1, tbl, step=step)
    warn = ["", job.nccl(init, "enqueue.cc:1451", f"Cuda failure '{msg}'")] + ([job.nccl(init, "INFO", "enqueue.cc:1468 -> 1")] if job.nccl_info else [])
    src = "../torch/csrc/distributed/c10d" if job.tv != "v26" else "/pytorch/torch/csrc/distributed/c10d"
    exc = [f"torch.distributed.DistBackendError: NCCL error in: {src}/ProcessGroupNCCL.cpp:{r.choice([1970, 2006, 3071])}, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version {job.T['nccl']}",
           "ncclUnhandledCudaError: Call to CUDA function failed.", "Last error:", f"Cuda failure '{msg}'"]
    if job.tv == "v20":
        exc[0] = f"RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1269, unhandled cuda error, NCCL version {job.T['nccl']}"
    tbl = py_collective_tb(job, init, exc)
    ev_rank_text(job, init, exc[0])
    ev_summary_root(job, init, 1, exc[0])
    job.rank_markers.append([((job.hosts[n],), f"{job.hosts[n]}:{job.pids[init]}:{job.tids[init]} [{lrk}] enqueue.cc:1451 NCCL WARN Cuda failure '{msg}'")])
    return init_exit_plan(job, init, t, warn + tbl, 1, tbl, step=step)


def cause_network(job, t, step):
    r = job.rng
    if job.nnodes == 1:
        job.nnodes_forced = True
    n = r.randrange(job.nnodes)
    job.truth_node, job.truth_rank = n, None
    job.dmesg_nodes.append(n)
    ib = job.nccl_ib
    dev_bus = r.choice(["0c", "1a", "3b", "5e", "9c", "c1", "d2"])
    if ib:
        k1 = f"mlx5_core 0000:{dev_bus}:00.0: Port module event[error]: module {r.randint(0, 7)}, Cable error, Bus stuck (I2C or data shorted)" if r.random() < 0.4 else \
            f"mlx5_core 0000:{dev_bus}:00.0 ibp{int(dev_bus, 16)}s0: Link down"
        if r.random() < 0.5:
            k1 = f"mlx5_core 0000:{dev_bus}:00.0 ens{r.randint(1, 12)}f0np0: Link down"
    else:
        k1 = f"{r.choice(['i40e', 'ice', 'bnxt_en'])} 0000:{dev_bus}:00.0 {job.iface if hasattr(job, 'iface') else 'ens5'}: NIC Link is Down"
    job.klog(n, t - r.uniform(0.5, 3), k1)
    if r.random() < 0.5:
        job.klog(n, t + r.uniform(20, 90), k1.replace("Link down", "Link up").replace("NIC Link is Down", "NIC Link is Up 100 Gbps Full Duplex, Flow Control: None").replace("Port module event[error]", "Port module event").replace(", Cable error, Bus stuck (I2C or data shorted)", ", Cable plugged"))
    ev_node_text(job, n, k1)
    job.notes.append(f"NIC/link failure on {job.hosts[n]} ({k1.split(' ')[0]} {dev_bus}); every cross-node peer reported a network error")
    # every rank talking across nodes errors out
    extra = {}
    coll = default_coll(job, step)
    job.tseq = coll[0]
    for rk in range(job.world):
        rn = job.node(rk)
        tt = t + r.uniform(2.0, 25.0)
        peer = n if rn != n else r.choice([x for x in range(job.nnodes) if x != n])
        pre = []
        if rn == n and ib and r.random() < 0.8:
            pre = ["", job.nccl(rk, "net_ib.cc:%d" % r.choice([95, 119, 1104]), "NET/IB : Got async event : port error")]
            if rk % job.gpn == 0:
                job.node_markers.append([("", f"{job.hosts[n]}:{job.pids[rk]}:{job.tids[rk]} [{job.lr(rk)}] net_ib.cc")])
        if r.random() < 0.7:
            if ib:
                w = ["", job.nccl(rk, "transport/net_ib.cc:%d" % r.choice([1429, 1615, 1696]),
                                  f"NET/IB : Got completion from peer {job.ips[peer]}<{r.randint(32768, 65535)}> with status=12 opcode={r.choice([0, 1])} len=0 vendor err 129 (Send) localGid ::ffff:{job.ips[rn]} remoteGids::ffff:{job.ips[peer]} hca {r.choice(job.hca)}")]
                if job.nccl_info:
                    w += [job.nccl(rk, "INFO", "transport/net.cc:1302 -> 6"), job.nccl(rk, "INFO", "proxy.cc:698 -> 6"), job.nccl(rk, "INFO", "proxy.cc:878 -> 6 [Progress Thread]")]
            else:
                w = ["", job.nccl(rk, "misc/socket.cc:49", f"socketProgress: Connection closed by remote peer {job.hosts[peer]}<{r.randint(32768, 65535)}>")]
                if job.nccl_info:
                    w += [job.nccl(rk, "INFO", "misc/socket.cc:749 -> 6")]
            pre += w
        lines, code = survivor_error(job, rk, tt, peer, "ib" if ib else "socket", "py" if r.random() < 0.3 else "wd")
        extra[rk] = (tt, code, pre + lines)
    return dict(init=None, mode="none", t_x=t, peer="remote", transport="ib" if ib else "socket", coll=coll,
                extra_fail=extra)


def cause_cuda_oom(job, t, step):
    r = job.rng
    init = pick_init(job)
    n, lrk = job.node(init), job.lr(init)
    job.truth_node, job.truth_rank = n, init
    msg = oom_msg(job, lrk, job.pids[init])
    fr = backward_frames(job) if r.random() < 0.5 else app_frames(job, "step")
    if r.random() < 0.4 and job.app != "megatron":
        fr = fr + [(f"{job.site}/torch/nn/modules/module.py", 1562, "_call_impl", "return forward_call(*args, **kwargs)"),
                   (f"{job.site}/transformers/models/llama/modeling_llama.py" if job.app == "hf" else f"{job.wd}/model.py", r.randint(300, 700), "forward",
                    "attn_weights = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query_states.dtype)")]
    tbl = tb(fr, msg)
    job.notes.append(f"rank {init} ran out of GPU memory at step ~{step} (long batch); others collateral")
    head = msg.split(":")[0]
    ev_rank_text(job, init, msg[:60])
    ev_summary_root(job, init, 1, "CUDA out of memory. Tried to allocate")
    return init_exit_plan(job, init, t, job.pyprefix(init, tbl), 1, tbl, step=step)


def cause_illegal_memory_access(job, t, step):
    r = job.rng
    init = pick_init(job)
    n, lrk = job.node(init), job.lr(init)
    job.truth_node, job.truth_rank = n, init
    v = r.choice(["assert", "ima_py", "ima_wd"])
    if v == "assert":
        kern = r.choice([
            ("/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:93" if job.tv == "v26" else "../aten/src/ATen/native/cuda/IndexKernel.cu:92",
             "operator()", "Assertion `-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"` failed."),
            ("/pytorch/aten/src/ATen/native/cuda/Loss.cu:250" if job.tv == "v26" else "../aten/src/ATen/native/cuda/Loss.cu:250",
             "nll_loss_forward_reduce_cuda_kernel_2d", "Assertion `t >= 0 && t < n_classes` failed."),
            ("/pytorch/aten/src/ATen/native/cuda/ScatterGatherKernel.cu:365" if job.tv == "v26" else "../aten/src/ATen/native/cuda/ScatterGatherKernel.cu:365",
             "operator()", "Assertion `idx_dim >= 0 && idx_dim < index_size && \"index out of bounds\"` failed.")])
        blk = r.randint(0, 4000)
        dev = [f"{kern[0]}: {kern[1]}: block: [{blk},0,0], thread: [{th},0,0] {kern[2]}" for th in sorted(r.sample(range(0, 128), r.randint(3, 12)))]
        msg = "device-side assert triggered"
        tbl = tb(app_frames(job, "step"), "RuntimeError: " + "\n".join(cuda_err_lines(msg, job.tv != "v20")))
        job.R[init].add(t - 0.05, dev, "out")
        ev_rank_text(job, init, f"RuntimeError: CUDA error: {msg}")
        ev_summary_root(job, init, 1, f"RuntimeError: CUDA error: {msg}")
        job.notes.append(f"device-side assert (index out of range) on rank {init}")
        return init_exit_plan(job, init, t, job.pyprefix(init, tbl), 1, tbl, step=step)
    msg = "an illegal memory access was encountered"
    if r.random() < 0.7:
        job.dmesg_nodes.append(n)
        if r.random() < 0.5:
            xl = xid_line(job, lrk, 31, f"Ch 0000000{r.randint(1, 9)}, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_{r.randint(0, 15)} faulted @ 0x7f{r.randint(0x10, 0xff):02x}_{r.randint(0x10000000, 0xffffffff):08x}. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ",
                          pid=job.pids[init], name="pt_main_thread")
        else:
            xl = xid_line(job, lrk, 13, f"Graphics SM Warp Exception on (GPC {r.randint(0, 7)}, TPC {r.randint(0, 8)}, SM {r.randint(0, 1)}): Out Of Range Address",
                          pid=job.pids[init], name="pt_main_thread")
            job.klog(n, t - 0.1, xid_line(job, lrk, 13, f"Graphics Exception: ESR 0x{r.randint(0x500000, 0x50ffff):x}=0x{r.randint(0x10000000, 0x1fffffff):x} 0x{r.randint(0, 0xff):x}=0x0 0x0=0x0 0x0=0x0", pid=job.pids[init], name="pt_main_thread"))
        job.klog(n, t - 0.11, xl)
        job.klog(n, t + 0.3, xid_line(job, lrk, 43, f"Ch 0000000{r.randint(1, 9)}", pid=job.pids[init], name="pt_main_thread") if job.drv_new else xid_line(job, lrk, 43, f"Ch 0000000{r.randint(1, 9)}"))
        job.rank_markers.append([("", xl), ("", f"pid: {job.pids[init]})")])
        job.rank_markers.append([("", xl), ("", f"{job.hosts[n]}:{job.pids[init]}:")])
        ev_node_text(job, n, xl)
    job.notes.append(f"illegal memory access on rank {init} (app-side fault, Xid 13/31/43 attributed to its pid when dmesg attached)")
    if v == "ima_py":
        fr = app_frames(job, "step")[:3] + [(f"{job.wd}/{job.script}", r.randint(100, 300), "train_one_epoch" if job.app != "hf" else "training_step", "running_loss += loss.item()")]
        tbl = tb(fr, "RuntimeError: " + "\n".join(cuda_err_lines(msg, job.tv != "v20")))
        ev_rank_text(job, init, f"RuntimeError: CUDA error: {msg}")
        ev_summary_root(job, init, 1, f"RuntimeError: CUDA error: {msg}")
        return init_exit_plan(job, init, t, job.pyprefix(init, tbl), 1, tbl, step=step)
    lines = watchdog_async_error_block(job, init, t, cuda_err_lines(msg, job.tv != "v20"))
    job.rank_markers.append([("", f"Rank {init}] Process group watchdog thread terminated with exception: CUDA error: {msg}")])
    job.rank_markers.append([("", f"[Rank {init}] NCCL watchdog thread terminated with exception: CUDA error: {msg}")])
    return init_exit_plan(job, init, t, lines, -6, step=step)


def worker_exc(job, exc_name, inner_frames, inner_exc, wid):
    s = job.site
    lines = [f"{exc_name}: Caught {exc_name} in DataLoader worker process {wid}.", "Original Traceback (most recent call last):",
             f'  File "{s}/torch/utils/data/_utils/worker.py", line 308, in _worker_loop',
             "    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]",
             f'  File "{s}/torch/utils/data/_utils/fetch.py", line 51, in fetch',
             "    data = [self.dataset[idx] for idx in possibly_batched_index]",
             f'  File "{s}/torch/utils/data/_utils/fetch.py", line 51, in <listcomp>',
             "    data = [self.dataset[idx] for idx in possibly_batched_index]"]
    for f, ln, fn, code in inner_frames:
        lines += [f'  File "{f}", line {ln}, in {fn}', f"    {code}"]
    lines.append(inner_exc)
    return "\n".join(lines)


def cause_python_exception(job, t, step):
    r = job.rng
    init = pick_init(job)
    n = job.node(init)
    job.truth_node, job.truth_rank = n, init
    w = job.wd
    v = r.choice(["keyerror", "filenotfound", "valueerror", "assert", "typeerror", "jsondecode", "indexerror"])
    shard = f"{r.randint(0, 2047):05d}"
    if v == "keyerror":
        exc = worker_exc(job, "KeyError", [(f"{w}/data.py", r.randint(40, 160), "__getitem__", "ids = sample[\"input_ids\"]")], "KeyError: 'input_ids'", r.randint(0, 7))
        fr, key = app_frames(job, "data"), "KeyError: Caught KeyError in DataLoader worker process"
    elif v == "filenotfound":
        exc = worker_exc(job, "FileNotFoundError", [(f"{w}/data.py", r.randint(40, 160), "__getitem__", "with open(self.files[idx], \"rb\") as f:")],
                         f"FileNotFoundError: [Errno 2] No such file or directory: '/data/shards/train-{shard}-of-02048.tar'", r.randint(0, 7))
        fr, key = app_frames(job, "data"), "FileNotFoundError: Caught FileNotFoundError in DataLoader worker process"
    elif v == "valueerror":
        exc = f"ValueError: Expected input batch_size ({r.choice([8, 16, 4])}) to match target batch_size ({r.choice([7, 15, 3])})."
        fr, key = app_frames(job, "step"), exc
    elif v == "assert":
        exc = "AssertionError: sequence length exceeds max_position_embeddings"
        fr = app_frames(job, "step") + [(f"{w}/model.py" if job.app != "hf" else f"{job.site}/transformers/models/llama/modeling_llama.py", r.randint(100, 600), "forward", "assert T <= self.config.n_positions, \"sequence length exceeds max_position_embeddings\"")]
        key = exc
    elif v == "typeerror":
        exc = "TypeError: unsupported operand type(s) for +: 'NoneType' and 'Tensor'"
        fr, key = app_frames(job, "step"), exc
    elif v == "jsondecode":
        exc = worker_exc(job, "JSONDecodeError", [(f"{w}/data.py", r.randint(40, 160), "__getitem__", "rec = json.loads(line)"),
                                                  ("/usr/lib/python3.10/json/__init__.py", 346, "loads", "return _default_decoder.decode(s)"),
                                                  ("/usr/lib/python3.10/json/decoder.py", 337, "decode", "obj, end = self.raw_decode(s, idx=_w(s, 0).end())"),
                                                  ("/usr/lib/python3.10/json/decoder.py", 353, "raw_decode", "obj, end = self.scan_once(s, idx)")],
                         f"json.decoder.JSONDecodeError: Unterminated string starting at: line 1 column {r.randint(100, 9000)} (char {r.randint(100, 9000)})", r.randint(0, 7))
        exc = exc.replace("JSONDecodeError: Caught JSONDecodeError", "json.decoder.JSONDecodeError: Caught JSONDecodeError", 1)
        fr, key = app_frames(job, "data"), "Caught JSONDecodeError in DataLoader worker process"
    else:
        exc = "IndexError: index out of range in self"
        fr = app_frames(job, "step") + [(f"{job.site}/torch/nn/functional.py", 2264, "embedding", "return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)")]
        key = exc
        # CPU embedding? keep: happens when ids land on cpu path
    tbl = tb(fr, exc)
    job.notes.append(f"uncaught {v} exception on rank {init} at step ~{step}")
    ev_rank_text(job, init, key)
    ev_summary_root(job, init, 1, key.split(":")[0])
    return init_exit_plan(job, init, t, job.pyprefix(init, tbl), 1, tbl, step=step)


def cause_host_oom_kill(job, t, step):
    r = job.rng
    init = pick_init(job)
    n, lrk = job.node(init), job.lr(init)
    job.truth_node, job.truth_rank = n, init
    job.dmesg_nodes.append(n)
    v = r.choice(["rank", "rank", "worker"])
    victim = job.pids[init] if v == "rank" else job.pids[init] + r.randint(200, 3000)
    vname = "pt_main_thread" if v == "rank" else r.choice(["pt_data_worker", "python"])
    cg = job.layout in ("slurm", "k8s") and r.random() < 0.7
    kver = r.choice(["5.15.0-105-generic #115-Ubuntu", "5.4.0-182-generic #202-Ubuntu", "6.8.0-45-generic #45~22.04.1-Ubuntu"])
    L = [(t - 0.5, f"{vname} invoked oom-killer: gfp_mask=0x{r.choice(['140cca', '100cca', 'cc0'])}(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0"),
         (t - 0.5, f"CPU: {r.randint(0, 95)} PID: {victim + r.randint(1, 40)} Comm: {vname} Tainted: P           OE     {kver}"),
         (t - 0.5, "Call Trace:"), (t - 0.5, " <TASK>"), (t - 0.5, " dump_stack_lvl+0x4a/0x63"), (t - 0.5, " dump_header+0x4a/0x1f4"),
         (t - 0.5, " oom_kill_process.cold+0xb/0x10"), (t - 0.5, " out_of_memory+0x1bd/0x4f0"),
         (t - 0.5, " mem_cgroup_out_of_memory+0x13a/0x150" if cg else " __alloc_pages_slowpath.constprop.0+0xccd/0xe30"),
         (t - 0.5, " </TASK>")]
    total_vm = r.randint(60, 400) * 1024 * 1024
    rss = r.randint(40, 220) * 1024 * 1024
    if cg:
        L.append((t - 0.45, f"memory: usage {r.randint(900, 1900) * 1024 * 1024}kB, limit {r.choice([1000, 1500, 1800]) * 1024 * 1024 // 1}kB, failcnt {r.randint(1, 900)}"))
        L.append((t - 0.45, f"oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset={'kubepods-pod' + ''.join(r.choice('0123456789abcdef') for _ in range(8)) if job.layout == 'k8s' else 'step_0'},mems_allowed=0-1,oom_memcg=/{'kubepods.slice' if job.layout == 'k8s' else 'slurm/uid_1000/job_%d' % job.jobid},task_memcg=/{'kubepods.slice' if job.layout == 'k8s' else 'slurm/uid_1000/job_%d/step_0' % job.jobid},task={vname},pid={victim},uid=1000"))
        kill = f"Memory cgroup out of memory: Killed process {victim} ({vname}) total-vm:{total_vm}kB, anon-rss:{rss}kB, file-rss:{r.randint(100000, 900000)}kB, shmem-rss:{r.randint(0, 9000000)}kB, UID:1000 pgtables:{r.randint(100000, 600000)}kB oom_score_adj:0"
    else:
        L.append((t - 0.45, f"oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/user.slice/user-1000.slice/session-{r.randint(1, 900)}.scope,task={vname},pid={victim},uid=1000"))
        kill = f"Out of memory: Killed process {victim} ({vname}) total-vm:{total_vm}kB, anon-rss:{rss}kB, file-rss:{r.randint(100000, 900000)}kB, shmem-rss:{r.randint(0, 9000000)}kB, UID:1000 pgtables:{r.randint(100000, 600000)}kB oom_score_adj:0"
    L.append((t - 0.4, kill))
    for tt, x in L:
        job.klog(n, tt, x)
    ev_node_text(job, n, kill)
    job.host_oom = dict(node=n, cg=cg, kill=kill, victim=victim, vname=vname)
    job.notes.append(f"host OOM killer ({'cgroup' if cg else 'global'}) killed {vname} pid {victim} on {job.hosts[n]} (rank {init}{' DataLoader worker' if v == 'worker' else ''})")
    if v == "rank":
        job.rank_markers.append([("", kill), ("", f"(pid: {victim})")])
        job.rank_markers.append([("", kill), ("", f"{job.hosts[n]}:{victim}:")])
        return dict(init=init, mode="exit", t_x=t - 0.4, code=-9, init_blocks=[], peer=r.choice(["remote", "timeout"]),
                    transport="ib" if job.nccl_ib else "socket", coll=default_coll(job, step), t_coll=t)
    exc = f"RuntimeError: DataLoader worker (pid {victim}) is killed by signal: Killed. "
    fr = app_frames(job, "data")[:-4] + [(f"{job.site}/torch/utils/data/dataloader.py", 1328, "_next_data", "idx, data = self._get_data()"),
                                         (f"{job.site}/torch/utils/data/dataloader.py", 1294, "_get_data", "success, data = self._try_get_data()"),
                                         (f"{job.site}/torch/utils/data/dataloader.py", 1145, "_try_get_data", "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e")]
    pre = tb(fr[:-1] + [(f"{job.site}/torch/utils/data/dataloader.py", 1132, "_try_get_data", "data = self._data_queue.get(timeout=timeout)"),
                        ("/usr/lib/python3.10/multiprocessing/queues.py", 113, "get", "if not self._poll(timeout):"),
                        ("/usr/lib/python3.10/multiprocessing/connection.py", 257, "poll", "return self._poll(timeout)"),
                        ("/usr/lib/python3.10/multiprocessing/connection.py", 424, "_poll", "r = wait([self], timeout)"),
                        ("/usr/lib/python3.10/multiprocessing/connection.py", 931, "wait", "ready = selector.select(timeout)"),
                        ("/usr/lib/python3.10/selectors.py", 416, "select", "fd_event_list = self._selector.poll(timeout)"),
                        (f"{job.site}/torch/utils/data/_utils/signal_handling.py", 66, "handler", "_error_if_any_worker_fails()")], exc)
    tbl = pre + ["", "The above exception was the direct cause of the following exception:", ""] + \
        tb(fr, f"RuntimeError: DataLoader worker (pid(s) {victim}) exited unexpectedly")
    job.rank_markers.append([("", kill), ("", f"DataLoader worker (pid {victim}) is killed by signal: Killed.")])
    ev_rank_text(job, init, f"RuntimeError: DataLoader worker (pid(s) {victim}) exited unexpectedly")
    return init_exit_plan(job, init, t, job.pyprefix(init, tbl), 1, tbl, step=step)


def cause_crash_signal(job, t, step):
    r = job.rng
    init = pick_init(job)
    n, lrk = job.node(init), job.lr(init)
    job.truth_node, job.truth_rank = n, init
    v = r.choice(["segv", "segv", "abort", "bus"])
    py = job.T["py"]
    lines = []
    if v in ("segv", "bus"):
        code = -11 if v == "segv" else -7
        if r.random() < 0.65:
            tid1 = f"0x{r.randint(0x7f0000000000, 0x7fffffffffff):016x}"
            tid2 = f"0x{r.randint(0x7f0000000000, 0x7fffffffffff):016x}"
            lines = [f"Fatal Python error: {'Segmentation fault' if v == 'segv' else 'Bus error'}", "",
                     f"Thread {tid1} (most recent call first):",
                     f'  File "/usr/lib/python{py}/threading.py", line 324 in wait',
                     f'  File "/usr/lib/python{py}/threading.py", line 607 in wait',
                     f'  File "{job.site}/tqdm/_monitor.py", line 60 in run',
                     f'  File "/usr/lib/python{py}/threading.py", line 1016 in _bootstrap_inner',
                     f'  File "/usr/lib/python{py}/threading.py", line 973 in _bootstrap', "",
                     f"Current thread {tid2} (most recent call first):"]
            if v == "segv":
                lines += [f'  File "{job.wd}/ops/fused_rope.py", line {r.randint(30, 120)} in forward',
                          f'  File "{job.site}/torch/autograd/function.py", line 574 in apply',
                          f'  File "{job.wd}/model.py", line {r.randint(100, 300)} in forward',
                          f'  File "{job.site}/torch/nn/modules/module.py", line 1562 in _call_impl',
                          f'  File "{job.site}/torch/nn/modules/module.py", line 1553 in _wrapped_call_impl']
            else:
                lines += [f'  File "{job.site}/numpy/core/memmap.py", line 268 in __getitem__' if r.random() < 0.5 else f'  File "{job.wd}/data.py", line {r.randint(40, 160)} in __getitem__',
                          f'  File "{job.site}/torch/utils/data/_utils/fetch.py", line 51 in <listcomp>',
                          f'  File "{job.site}/torch/utils/data/_utils/fetch.py", line 51 in fetch']
            lines += [f'  File "{job.wd}/{job.script}", line {r.randint(120, 200)} in train_one_epoch',
                      f'  File "{job.wd}/{job.script}", line {r.randint(240, 299)} in main',
                      f'  File "{job.wd}/{job.script}", line {r.randint(300, 520)} in <module>', "",
                      "Extension modules: numpy.core._multiarray_umath, numpy.core._multiarray_tests, numpy.linalg._umath_linalg, torch._C, torch._C._fft, torch._C._linalg, torch._C._nested, torch._C._nn, torch._C._sparse, torch._C._special, "
                      f"yaml._yaml, regex._regex, pyarrow.lib, pandas._libs.tslibs.np_datetime (total: {r.randint(60, 140)})"]
            ev_rank_text(job, init, lines[0]) if job.tv in ("v24", "v26") else None
        if r.random() < 0.6 and v == "segv":
            job.dmesg_nodes.append(n)
            lib = r.choice(["fused_rope_cuda.cpython-310-x86_64-linux-gnu.so", "libtorch_cpu.so", "libgomp.so.1"])
            kl = f"pt_main_thread[{job.pids[init]}]: segfault at {r.choice(['0', '8', '18', '7f3c00000000'])} ip {hexaddr(r)[2:]:0>16} sp {hexaddr(r, '7ff')[2:]:0>16} error {r.choice([4, 6])} in {lib}[{hexaddr(r)[2:]}+{r.randint(0x10000, 0x2000000):x}]"
            if r.random() < 0.5:
                kl += f" likely on CPU {r.randint(0, 95)} (core {r.randint(0, 47)}, socket {r.randint(0, 1)})"
            job.klog(n, t, kl)
            job.rank_markers.append([("", kl), ("", f"(pid: {job.pids[init]})")])
            ev_node_text(job, n, kl)
        job.notes.append(f"{'SIGSEGV in a custom extension' if v == 'segv' else 'SIGBUS while reading an mmap-ed shard that was truncated'} on rank {init}; no hardware errors")
    else:
        code = -6
        lines = [r.choice(["free(): invalid pointer", "double free or corruption (!prev)", "malloc(): corrupted top size", "free(): invalid next size (fast)"])]
        job.notes.append(f"glibc heap corruption abort (SIGABRT) on rank {init}")
        if job.tv in ("v24", "v26"):
            lines = job.pyprefix(init, lines) if r.random() < 0.3 else lines
        job.rank_markers.append([("", lines[0]), ("", f"Root Cause (first observed failure):\n[0]:"), ("", f"host      : {job.hosts[n]}\n  rank      : {init} (local_rank: {lrk})\n  exitcode  : -6 (pid: {job.pids[init]})")])
    sig = {-11: "SIGSEGV", -7: "SIGBUS", -6: "SIGABRT"}[code]
    if code != -6:
        job.rank_markers.append([("", f"{job.hosts[n]}: "), ("", f"'--local_rank={lrk}', '--deepspeed', '--deepspeed_config', 'ds_config.json'] exits with return code = {code}")])
    # signal name in torchrun summary establishes the rank when it is the first failure on its node
    job.rank_markers.append([("", f"rank      : {init} (local_rank: {lrk})\n  exitcode  : {code} (pid: {job.pids[init]})\n  error_file: <N/A>\n  traceback : Signal {-code} ({sig})")] if code != -6 else [("", "__never__")])
    job.rank_markers.append([((job.hosts[n] + "/", f"/{lrk}/std"), lines[0] if lines else "__never__")])
    return dict(init=init, mode="exit", t_x=t + 0.05, code=code, init_blocks=[(t, lines, "err")] if lines else [],
                peer=r.choice(["remote", "timeout"]), transport="ib" if job.nccl_ib else "socket",
                coll=default_coll(job, step), t_coll=t)


def sigterm_all(job, t, who="all", spread=1.5):
    """Every launcher gets SIGTERM (scheduler / cloud) at ~t."""
    r = job.rng
    job.node_exit = {}
    for n in range(job.nnodes):
        tn = t + r.uniform(0, spread)
        rks = list(range(n * job.gpn, (n + 1) * job.gpn))
        te = emit_agent_signal(job, n, tn, rks, set()) or (tn + 2)
        for rk in rks:
            job.exit_info[rk] = (tn + 0.5, -15)
        job.node_exit[n] = (te, "sigterm")
        if job.launcher == "deepspeed":
            job.S.add(te + 0.5, [f"pdsh@{job.hosts[0]}: {job.hosts[n]}: ssh exited with exit code 143"])
    job.end_t = t + spread + 4


def cause_preemption(job, t, step):
    r = job.rng
    job.truth_node, job.truth_rank = None, None
    lay = job.layout
    job.preempt = None
    if lay == "slurm":
        v = r.choice(["PREEMPTION", "TIME LIMIT", "PREEMPTION"])
        job.preempt = v
        sigterm_all(job, t)
        d = job.loc(0, t)
        job.S.add(t - 0.2, [f"slurmstepd: error: *** JOB {job.jobid} ON {job.hosts[0]} CANCELLED AT {d:%Y-%m-%dT%H:%M:%S} DUE TO {v} ***"])
        if r.random() < 0.6:
            job.S.add(t - 0.1, [f"slurmstepd: error: *** STEP {job.jobid}.0 ON {job.hosts[0]} CANCELLED AT {d:%Y-%m-%dT%H:%M:%S} DUE TO {v} ***"])
        job.S.add(t + 0.5, ["srun: Job step aborted: Waiting up to 32 seconds for job step to finish.", "srun: got SIGCONT", "srun: forcing job termination"])
        for n in range(job.nnodes):
            job.S.add(t + 3 + n * 0.1, [f"srun: error: {job.hosts[n]}: task {n}: Terminated"])
        job.notes.append(f"slurm cancelled the job DUE TO {v}; every process got SIGTERM")
        return None
    if lay == "k8s":
        v = r.choice(["preempted", "spot"])
        job.preempt = v
        sigterm_all(job, t, spread=3)
        if v == "preempted":
            job.events.append((t - 1, "Normal", "Preempted", f"pod/{job.hosts[0]}", f"Preempted by pod {r.randint(10**7, 10**8 - 1):x}-{r.randint(1000, 9999)} on node {job.k8s_nodes[0]}"))
            for n in range(job.nnodes):
                job.events.append((t - 0.5 + n * 0.1, "Normal", "Killing", f"pod/{job.hosts[n]}", "Stopping container pytorch"))
            job.notes.append("pods preempted by a higher-priority workload (PriorityClass); SIGTERM everywhere")
        else:
            n = r.randrange(job.nnodes)
            job.events.append((t - 25, "Warning", "NodeShutdown", f"node/{job.k8s_nodes[n]}", "Node is shutting down; spot instance reclaimed by the cloud provider"))
            job.events.append((t - 1, "Normal", "Killing", f"pod/{job.hosts[n]}", "Stopping container pytorch"))
            for k in range(job.nnodes):
                if k != n:
                    job.events.append((t + 30, "Normal", "Killing", f"pod/{job.hosts[k]}", "Stopping container pytorch"))
            job.files[f"describe-pod-{job.hosts[n]}.txt"] = describe_pod(job, n, "Terminated", "Pod was terminated in response to imminent node shutdown.", 143)
            job.truth_node = n
            job.node_markers.append([("", "Node is shutting down"), ("", f"pod/{job.hosts[n]}")])
            job.notes.append(f"spot node {job.k8s_nodes[n]} reclaimed (pod {job.hosts[n]}); SIGTERM to the job")
        job.events.append((t + 40, "Normal", "PyTorchJobFailed" if r.random() < 0.5 else "PyTorchJobRestarting", f"pytorchjob/{job.k8s_job}",
                           f"PyTorchJob {job.k8s_job} is failed because 1 Worker replica(s) failed." if r.random() < 0.5 else f"PyTorchJob {job.k8s_job} is restarting because 1 Worker replica(s) failed."))
        return None
    # cloud VMs without a scheduler (torchrun over ssh, deepspeed/pdsh, pasted logs)
    v = r.choice(["spot", "timeout_wrapper"])
    job.preempt = v
    if v == "timeout_wrapper":
        sigterm_all(job, t)
        hrs = r.choice([12, 24, 48])
        job.preempt_hours = hrs
        job.notes.append(f"launcher wrapped in `timeout {hrs}h`; wall-clock limit reached and SIGTERM sent to every launcher (time limit)")
        return None
    n = r.randrange(job.nnodes) if job.nnodes > 1 else 0
    job.truth_node = n
    sp = r.choice(["aws", "gcp"])
    rk0 = n * job.gpn
    if sp == "aws":
        msg = job.pylog(n, t - 115, "WARNING", f"spot interruption notice from IMDS: {{\"action\": \"terminate\", \"time\": \"{job.loc(n, t):%Y-%m-%dT%H:%M:%SZ}\"}}", name="spot_watcher")
    else:
        msg = job.pylog(n, t - 28, "WARNING", "metadata server: instance/preempted=TRUE; VM will be stopped in ~30s", name="spot_watcher")
    job.R[rk0].add(t - (115 if sp == "aws" else 28), [msg], "out")
    job.node_markers.append([("", msg)])
    job.notes.append(f"spot VM {job.hosts[n]} reclaimed by the cloud provider; its processes vanished, peers failed")
    job.dmesg_nodes = [x for x in job.dmesg_nodes if x != n]
    return dict(init=None, mode="node_death", dead_node=n, t_x=t, peer=r.choice(["remote", "timeout"]),
                transport="ib" if job.nccl_ib else "socket", coll=default_coll(job, step), t_coll=t)


def describe_pod(job, n, state, message, code, reason=None):
    d = job.t0
    L = [f"Name:             {job.hosts[n]}", "Namespace:        training", "Priority:         0",
         f"Node:             {job.k8s_nodes[n]}/{job.ips[n]}", f"Start Time:       {d:%a, %d %b %Y %H:%M:%S} +0000",
         f"Labels:           training.kubeflow.org/job-name={job.k8s_job}",
         f"                  training.kubeflow.org/replica-index={0 if n == 0 else n - 1}",
         f"                  training.kubeflow.org/replica-type={'master' if n == 0 else 'worker'}",
         f"Status:           {'Failed' if code else 'Succeeded'}"]
    if message:
        L.append(f"Message:          {message}")
    L += [f"IP:               {job.ips[n]}", "Containers:", "  pytorch:",
          f"    Image:         {job.rng.choice(['nvcr.io/nvidia/pytorch:24.05-py3', 'pytorch/pytorch:2.4.1-cuda12.4-cudnn9-devel', 'us-docker.pkg.dev/acme/train/trainer:v57'])}",
          f"    Command:", "      torchrun", f"      --nnodes={job.nnodes}", f"      --nproc-per-node={job.gpn}", f"      {job.script}",
          f"    State:          {state}"]
    if reason:
        L.append(f"      Reason:       {reason}")
    L += [f"      Exit Code:    {code}", "    Ready:          False", "    Restart Count:  0",
          "    Limits:", f"      memory:          {job.rng.choice(['1400Gi', '1800Gi', '900Gi'])}", f"      nvidia.com/gpu:  {job.gpn}",
          "Conditions:", "  Type              Status", "  Ready             False"]
    return "\n".join(L) + "\n"


def cause_hang(job, t, step):
    r = job.rng
    init = pick_init(job, 0.3)
    n = job.node(init)
    job.truth_node, job.truth_rank = n, init
    coll = default_coll(job, step)
    v = r.choice(["lock", "loop", "ckpt"])
    job.notes.append({"lock": f"rank {init} deadlocked in a Python lock (metrics thread) and never entered collective {coll[0]}",
                      "loop": f"rank {init} spun in a retry loop waiting for a flag file and never entered collective {coll[0]}",
                      "ckpt": f"rank {init} blocked in a rank-local checkpoint upload and never entered collective {coll[0]}"}[v])
    plan = dict(init=init, mode="hang", t_x=t, t_coll=t + r.uniform(0, 2), dstate=False, peer="timeout", transport="ib", coll=coll)
    hang_markers(job, init, coll[0])
    if r.random() < 0.45:
        job.pspy[init] = (t + job.timeout_ms / 1000.0 - r.uniform(60, 400), v)
        job.rank_markers.append([(f"py-spy", f"Process {job.pids[init]}:")])
    return plan


def cause_data_loader_stall(job, t, step):
    r = job.rng
    v = r.choice(["timeout", "nfs_node", "pyspy"])
    coll = default_coll(job, step)
    fs = r.choice(["nas01", "fsx-lustre", "10.20.0.5", "filer-b"])
    init = pick_init(job)
    n = job.node(init)
    if v in ("nfs_node", "pyspy") or r.random() < 0.5:
        job.dmesg_nodes.append(n)
        if "lustre" in fs:
            k1 = f"LustreError: 11-0: {fs}-OST00{r.randint(10, 99)}-osc-ffff{r.randint(0x1000, 0xffff):04x}: operation ost_read to node 10.20.0.{r.randint(2, 60)}@tcp failed: rc = -107"
            k2 = f"Lustre: {fs}-OST00{r.randint(10, 99)}-osc-ffff{r.randint(0x1000, 0xffff):04x}: Connection to {fs}-OST00{r.randint(10, 99)} (at 10.20.0.{r.randint(2, 60)}@tcp) was lost; in progress operations using this service will wait for recovery to complete"
        else:
            k1 = f"nfs: server {fs} not responding, still trying"
            k2 = f"nfs: server {fs} not responding, still trying"
        job.klog(n, t - r.uniform(5, 60), k1)
        job.klog(n, t + r.uniform(1, 30), k2)
        job.klog(n, t + 122 + r.uniform(0, 3), f"INFO: task pt_data_worker:{job.pids[init] + r.randint(100, 900)} blocked for more than 122 seconds.")
        job.klog(n, t + 122.1, "      Tainted: P           OE     5.15.0-105-generic #115-Ubuntu")
        job.klog(n, t + 122.1, "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.")
        ev_node_text(job, n, k1)
    if v == "timeout":
        to = r.choice([300, 600, 900]) if job.timeout_ms > 900000 else r.choice([120, 300])
        job.truth_node, job.truth_rank = n, init
        exc = f"RuntimeError: DataLoader timed out after {to} seconds"
        fr = app_frames(job, "data")[:-4] + [(f"{job.site}/torch/utils/data/dataloader.py", 1328, "_next_data", "idx, data = self._get_data()"),
                                             (f"{job.site}/torch/utils/data/dataloader.py", 1284, "_get_data", "success, data = self._try_get_data()"),
                                             (f"{job.site}/torch/utils/data/dataloader.py", 1145, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e" if False else "raise RuntimeError(f\"DataLoader timed out after {self._timeout} seconds\") from e")]
        tbl = tb(fr, exc)
        job.notes.append(f"rank {init}'s DataLoader starved (shared storage {fs} stalled on {job.hosts[n]}) and raised after {to}s")
        ev_rank_text(job, init, exc)
        ev_summary_root(job, init, 1, exc)
        p = init_exit_plan(job, init, t + to, job.pyprefix(init, tbl), 1, tbl, peer="remote" if r.random() < 0.5 else "timeout", step=step)
        return p
    if v == "nfs_node":
        # every rank on node n stalls in the input pipeline: only the node is known
        job.truth_node, job.truth_rank = n, None
        job.notes.append(f"shared storage {fs} stopped responding on {job.hosts[n]}; all its ranks blocked in data loading (D state) while the rest waited in the collective")
        hung = list(range(n * job.gpn, (n + 1) * job.gpn))
        plan = dict(init=hung[0], mode="hang", t_x=t, t_coll=t + r.uniform(0, 2), dstate=True, peer="timeout", transport="ib", coll=coll)
        plan["hung_extra"] = hung
        return plan
    job.truth_node, job.truth_rank = n, init
    job.notes.append(f"rank {init} blocked reading from {fs} inside its DataLoader; py-spy dump attached")
    job.pspy[init] = (t + job.timeout_ms / 1000.0 - r.uniform(60, 400), "data")
    job.rank_markers.append([("py-spy", f"Process {job.pids[init]}:")])
    hang_markers(job, init, coll[0])
    return dict(init=init, mode="hang", t_x=t, t_coll=t + r.uniform(0, 2), dstate=True, peer="timeout", transport="ib", coll=coll)


def cause_collective_mismatch(job, t, step):
    r = job.rng
    init = pick_init(job, 0.2)
    n = job.node(init)
    job.truth_node, job.truth_rank = n, init
    seq, op, nin, nout = default_coll(job, step)
    v = r.choice(["detail", "op", "seq"])
    if v == "detail":
        other = r.choice(["BROADCAST", "ALLGATHER", "REDUCE"]) if op == "ALLREDUCE" else "ALLREDUCE"
        topts = "TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))"
        shape_ok = f"[{nin}]"
        shape_odd = f"[{r.choice([1, 2, 8, 1024])}]"

        def fp(o, sh, dt):
            return f"CollectiveFingerPrint(SequenceNumber={seq % 100000}, OpType={o}, TensorShape={sh}, TensorDtypes={dt}, TensorDeviceTypes={topts})"
        good = fp(op, shape_ok, "Float")
        odd = fp(other, shape_odd, "Long")
        extra = {}
        for rk in range(job.world):
            tt = t + r.uniform(0.05, 1.5)
            if rk == init:
                msg = f"RuntimeError: Detected mismatch between collectives on ranks. Rank {rk} is running collective: {odd}, but Rank {0 if init != 0 else 1} is running collective: {good}."
            else:
                msg = f"RuntimeError: Detected mismatch between collectives on ranks. Rank {rk} is running collective: {good}, but Rank {init} is running collective: {odd}."
            if job.tv in ("v24", "v26"):
                msg += f"Collectives differ in the following aspects: \t Op type: {op if rk != init else other}vs {other if rk != init else op}  Tensor Tensor shapes: {(shape_ok if rk != init else shape_odd)[1:-1]}vs {(shape_odd if rk != init else shape_ok)[1:-1]}  Tensor Tensor dtypes: {'Float' if rk != init else 'Long'}vs {'Long' if rk != init else 'Float'}"
            fr = app_frames(job, "step")[:2] + [(f"{job.wd}/{job.script}", r.randint(100, 300), "train_one_epoch" if job.app != "hf" else "training_step", "sync_metrics(metrics)"),
                                                (f"{job.wd}/utils/dist.py", r.randint(60, 120), "sync_metrics", "dist.all_gather(out, t)" if other != "ALLREDUCE" else "dist.all_reduce(t)"),
                                                (f"{job.site}/torch/distributed/c10d_logger.py", 83, "wrapper", "return func(*args, **kwargs)"),
                                                (f"{job.site}/torch/distributed/distributed_c10d.py", 3167, "all_gather", "work = group.allgather([tensor_list], [tensor])")]
            lines = job.pyprefix(rk, tb(fr, msg))
            extra[rk] = (tt, 1, lines)
        job.rank_markers.append([("", f"Rank {init} is running collective: CollectiveFingerPrint(SequenceNumber={seq % 100000}, OpType={other}")])
        job.notes.append(f"TORCH_DISTRIBUTED_DEBUG=DETAIL: rank {init} issued {other} while the rest issued {op} (rank-dependent branch)")
        return dict(init=None, mode="none", t_x=t, peer="remote", transport="ib", coll=(seq, op, nin, nout), extra_fail=extra, tb=None)
    if v == "op":
        other = "BROADCAST" if op == "ALLREDUCE" else "ALLREDUCE"
        mm = {init: (other, r.choice([1, 2, 16]), r.choice([1, 2, 16]))}
        mm[init] = (other, mm[init][1], mm[init][1])
        job.notes.append(f"rank {init} entered {other} (SeqNum {seq}) while all other ranks entered {op}; everyone timed out")
        job.rank_markers.append([("", f"[Rank {init}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType={other}"),
                                 ("", f"Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType={op}")])
        plan = dict(init=init, mode="hang", t_x=t, t_coll=t + r.uniform(0, 1), dstate=False, peer="timeout", transport="ib",
                    coll=(seq, op, nin, nout), mismatch=mm)
        plan["mismatch_hang_self"] = True
        return plan
    # seq: the initiator skipped one collective and is one ahead
    job.notes.append(f"rank {init} skipped a collective (NaN-guard branch) and waits at SeqNum {seq + 1} while the others wait at {seq}")
    job.rank_markers.append([("", f"[Rank {init}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq + 1},"),
                             ("", f"Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq},")])
    plan = dict(init=init, mode="hang", t_x=t, t_coll=t + r.uniform(0, 1), dstate=False, peer="timeout", transport="ib",
                coll=(seq, op, nin, nout), mismatch_seq={init: seq + 1})
    plan["mismatch_hang_self"] = True
    return plan


def cause_straggler(job, t, step):
    """Called after training was emitted with job.slow set. Adds per-rank evidence and the ending."""
    r = job.rng
    init = job.slow_rank
    n, lrk = job.node(init), job.lr(init)
    job.truth_node, job.truth_rank = n, init
    s_slow, fac = job.slow
    v = job.slow_ev
    if v == "perrank":
        le = job.log_every_eff * r.choice([5, 10])
        s = ((s_slow // le) + 1) * le
        shown = 0
        while shown < 6:
            ts = job.step_t(s)
            if ts > t:
                break
            for rk in range(job.world):
                base = job.step_time * 1000 * r.uniform(0.55, 0.62)
                if rk == init:
                    comp = base * fac * r.uniform(0.97, 1.03)
                    wait = r.uniform(3, 25)
                else:
                    comp = base * r.uniform(0.97, 1.03)
                    wait = base * (fac - 1) * r.uniform(0.9, 1.05) + r.uniform(3, 25)
                d = job.loc(job.node(rk), ts)
                job.R[rk].add(ts + r.uniform(0, 0.3), [f"{d:%Y-%m-%d %H:%M:%S},{d.microsecond // 1000:03d} INFO [timing] rank={rk} step={s} fwd_bwd_ms={comp:.1f} allreduce_wait_ms={wait:.1f} data_ms={r.uniform(2, 9):.1f}"], "out")
            s += le
            shown += 1
        job.rank_markers.append([("", f"INFO [timing] rank={init} step=")])
        job.notes.append(f"rank {init} ({job.hosts[n]} GPU {lrk}) computes {fac:.1f}x slower from step ~{s_slow}; every other rank waits in allreduce")
    else:
        kind = r.choice(["thermal", "hw"])
        job.files[f"nvidia-smi-q-{job.khost(n)}.txt"] = nvsmi_q(job, n, t - r.uniform(300, 3000), throttle={"perf": 1, lrk: kind})
        job.node_markers.append([(job.khost(n), "HW Slowdown                       : Active")])
        job.rank_markers.append([(job.khost(n), "HW Slowdown                       : Active"), ("", f"rank {init} nranks {job.world} cudaDev {lrk} nvmlDev {lrk} busId {job.bus[lrk]}000")])
        job.notes.append(f"GPU {lrk} on {job.hosts[n]} (rank {init}) clock-throttled ({'HW thermal slowdown' if kind == 'thermal' else 'HW power brake'}); whole job ran {fac:.1f}x slower")
    # ending
    lay = job.layout
    if lay == "paste" and r.random() < 0.6:
        job.end_t = t
        job.still_running = True
        job.notes.append("job still running when the user pasted the logs")
        return None
    if lay == "slurm":
        how = r.choice(["user", "TIME LIMIT"])
        sigterm_all(job, t)
        d = job.loc(0, t)
        job.S.add(t - 0.2, [f"slurmstepd: error: *** JOB {job.jobid} ON {job.hosts[0]} CANCELLED AT {d:%Y-%m-%dT%H:%M:%S}{'' if how == 'user' else ' DUE TO TIME LIMIT'} ***"])
        job.S.add(t + 0.5, ["srun: Job step aborted: Waiting up to 32 seconds for job step to finish."])
        for n in range(job.nnodes):
            job.S.add(t + 3.5 + n * 0.1, [f"srun: error: {job.hosts[n]}: task {n}: Terminated"])
        job.straggler_end = how
        job.notes.append("user cancelled the slow job" if how == "user" else "slow job ran into its time limit (the TIME LIMIT line is a consequence, not the cause)")
    else:
        sigterm_all(job, t)
        if lay == "k8s":
            for k in range(job.nnodes):
                job.events.append((t - 0.5, "Normal", "Killing", f"pod/{job.hosts[k]}", "Stopping container pytorch"))
        job.straggler_end = "user"
        job.notes.append("operator stopped the slow job")
    return None


def cause_unknown(job, t, step):
    r = job.rng
    v = r.choice(["node_death", "silent_exit"]) if job.nnodes > 1 else "silent_exit"
    if v == "node_death":
        n = r.randrange(job.nnodes)
        job.truth_rank = None
        job.truth_node = n
        job.unknown_dead = n
        job.dmesg_nodes = [x for x in job.dmesg_nodes if x != n]
        job.node_markers.append([("", f"srun: error: {job.hosts[n]}: task {n}: Killed")])
        job.node_markers.append([("", f"remote peer {job.hosts[n]}<")])
        job.node_markers.append([("", f"from peer {job.ips[n]}<")])
        job.node_markers.append([("", f"Call to recv from {job.ips[n]}<")])
        job.node_markers.append([("", f"pdsh@{job.hosts[0]}: {job.hosts[n]}: ssh exited with exit code 137")])
        job.notes.append(f"every process on {job.hosts[n]} was SIGKILLed at once; no kernel log, no OOM record, no scheduler reason available")
        return dict(init=None, mode="node_death", dead_node=n, t_x=t, peer=r.choice(["remote", "remote", "timeout"]),
                    transport="ib" if job.nccl_ib else "socket", coll=default_coll(job, step), t_coll=t)
    init = pick_init(job)
    n = job.node(init)
    job.truth_node, job.truth_rank = n, init
    job.notes.append(f"rank {init} exited with status 1 without printing anything (stderr not captured / sys.exit in a helper); cause unknowable")
    job.rank_markers.append([("", f"host      : {job.hosts[n]}\n  rank      : {init} (local_rank: {job.lr(init)})\n  exitcode  : 1 (pid: {job.pids[init]})")])
    job.rank_markers.append([("", f"{job.hosts[n]}: "), ("", f"'--local_rank={job.lr(init)}', '--deepspeed', '--deepspeed_config', 'ds_config.json'] exits with return code = 1")])
    return dict(init=init, mode="exit", t_x=t, code=1, init_blocks=[], peer=r.choice(["remote", "timeout"]),
                transport="ib" if job.nccl_ib else "socket", coll=default_coll(job, step), t_coll=t)


CAUSE_FN = {"gpu_hardware": cause_gpu_hardware, "ecc_memory": cause_ecc_memory, "nvlink": cause_nvlink,
            "network": cause_network, "cuda_oom": cause_cuda_oom, "illegal_memory_access": cause_illegal_memory_access,
            "python_exception": cause_python_exception, "host_oom_kill": cause_host_oom_kill,
            "crash_signal": cause_crash_signal, "preemption": cause_preemption, "hang": cause_hang,
            "data_loader_stall": cause_data_loader_stall, "collective_mismatch": cause_collective_mismatch,
            "straggler": cause_straggler, "unknown": cause_unknown}


# ====================================================================== herrings
def agent_cpp(job, n, t, lvl, fl, msg):
    if job.tv in ("v20", "v22"):
        return f"[{lvl} {fl}] {msg}"
    d = job.loc(n, t)
    return f"[{lvl}{d:%m%d %H:%M:%S}.{d.microsecond:06d}{job.ns()} {fl}] {msg}"


def hh_rdzv_retry(job, t0):
    r = job.rng
    if job.launcher != "torchrun" or job.nnodes < 2:
        return False
    k = r.choice([x for x in range(1, job.nnodes)])
    late = r.uniform(20, 180)
    fl = {"v20": "socket.cpp:601", "v22": "socket.cpp:663", "v24": "socket.cpp:752", "v26": "socket.cpp:752"}[job.tv]
    for n in range(1, job.nnodes):
        L = []
        tt = t0 + 0.5
        if r.random() < 0.6:
            L.append(agent_cpp(job, n, tt, "W", fl.replace("601", "436").replace("663", "464").replace("752", "540"), f"[c10d] The server socket cannot be initialized on [::]:{job.master_port} (errno: 97 - Address family not supported by protocol)."))
        nret = int(late / r.choice([1, 2, 5])) if n == k else r.randint(1, 4)
        nret = min(nret, 40)
        for i in range(nret):
            L.append(agent_cpp(job, n, tt + i * (late / max(1, nret)), "W", fl, f"[c10d] The client socket has failed to connect to [{job.hosts[0]}]:{job.master_port} (errno: 111 - Connection refused)."))
        if n == k and job.tv in ("v24", "v26"):
            L.append(agent_cpp(job, n, tt + late * 0.6, "W", "socket.cpp:781" if job.tv == "v24" else "socket.cpp:798",
                               f"[c10d] The client socket has timed out after {r.choice([1, 5, 60])}000ms while trying to connect to ({job.hosts[0]}, {job.master_port}). Retrying..."))
        job.A[n].add(tt, L)
    job.notes.append(f"herring: c10d rendezvous connect retries ('Connection refused'/timeout) on worker agents for ~{int(late)}s while {job.hosts[0]} came up late; rendezvous then succeeded")
    return late


def hh_nccl_warn_benign(job, t_init, t_end, wrong_rank=None):
    r = job.rng
    cand = [x for x in range(job.world) if x != wrong_rank] if wrong_rank is not None else list(range(job.world))
    if wrong_rank is not None:
        cand = [x for x in range(job.world) if x != job.truth_rank and (job.truth_node is None or job.node(x) != job.truth_node)] or \
            [x for x in range(job.world) if x != job.truth_rank]
    x = r.choice(cand)
    kind = r.choice(["gid", "teardown"]) if job.nccl_ib else "teardown"
    if kind == "gid":
        job.R[x].add(t_init + r.uniform(30, 90), ["", job.nccl(x, f"net_ib.cc:{r.choice([95, 119])}", "NET/IB : Got async event : GID table change")], "out")
        txt = f"NCCL WARN 'Got async event : GID table change' on rank {x} at init"
    else:
        if t_end is None:
            t_end = job.exit_info.get(x, (job.end_t or t_init + 600, 0))[0] - r.uniform(0.3, 0.8)
            tt = t_end
        else:
            tt = t_end + r.uniform(0.2, 3)
        job.R[x].add(tt, ["", job.nccl(x, "proxy.cc:%d" % r.choice([1458, 1497]), "[Service thread] Accept failed Resource temporarily unavailable"),
                          "", job.nccl(x, "proxy.cc:1521", f"[Proxy Service {x}] Failed to execute operation Close from rank {x}, retcode 3")], "out")
        txt = f"NCCL WARN '[Proxy Service {x}] Failed to execute operation Close' on rank {x} during teardown"
    job.notes.append(f"herring: benign {txt}")
    return x


def hh_teardown_reset(job, t_end):
    r = job.rng
    if job.tv in ("v24", "v26"):
        for rk in r.sample(range(job.world), k=min(job.world, r.randint(2, 6))):
            if rk == 0:
                continue
            tt = t_end + r.uniform(0.1, 2)
            job.R[rk].add(tt, tcpstore_reset_lines(job, rk, tt))
        job.R[0].add(t_end - 0.3, [job.cpp(0, t_end - 0.3, "W", "ProcessGroupNCCL.cpp:1250" if job.tv == "v26" else "ProcessGroupNCCL.cpp:1168",
                                           "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only been added since PyTorch 2.4 (function operator())")])
        job.notes.append("herring: 'recvValue failed ... Connection reset by peer' / 'Failed to check the \"should dump\" flag' at teardown after a successful finish (rank 0 hosting the TCPStore exited first)")
        if r.random() < 0.4 and job.world > 2:
            for rk in r.sample(range(1, job.world), k=min(2, job.world - 1)):
                tt = t_end - r.uniform(0.5, 2)
                seq = job.seqno + job.total_steps * 3 + r.randint(0, 400)
                L = [job.cpp(rk, tt, "E", "ProcessGroupNCCL.cpp:542", f"[Rank {rk}] Collective WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=196608, NumelOut=196608, Timeout(ms)={job.timeout_ms}) raised the following async exception: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version {job.T['nccl']}"),
                     "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ", "Last error:", "",
                     f"Exception raised from checkForNCCLErrorsInternal at {'/pytorch' if job.tv == 'v26' else '..'}/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2027 (most recent call first):"] + cxx_frames(job, "nccl")
                job.R[rk].add(tt, L)
            job.notes.append("herring: NCCL 'unhandled system error' async exceptions logged by two ranks after the last step; the job still saved and exited 0")
    else:
        for n in range(1, job.nnodes):
            if job.launcher == "torchrun":
                nm = f"{job.hosts[n]}_{job.agent_pid[n]}_0"
                job.A[n].add(t_end + r.uniform(1, 4), [job.agent_log(n, t_end + 2, "W", "torch/distributed/elastic/rendezvous/dynamic_rendezvous.py", 1173,
                                                                   f"The node '{nm}' has failed to shutdown the rendezvous '{job.jobid if job.layout == 'slurm' else 'none'}' due to an error of type RendezvousConnectionError.")])
        rk = r.randrange(1, job.world) if job.world > 1 else 0
        tt = t_end + r.uniform(0.2, 2)
        job.R[rk].add(tt, [f"[W socket.cpp:{r.choice([558, 601])}] [c10d] recvValue failed: Connection reset by peer"] if job.tv == "v20" else
                      [job.cpp(rk, tt, "W", "TCPStore.cpp:125" if False else "socket.cpp:436", f"[c10d] recvVector failed on SocketImpl(fd={r.randint(20, 90)}, addr=[{job.hosts[job.node(rk)]}]:{r.randint(33000, 60999)}, remote=[{job.hosts[0]}]:{job.master_port}): Connection reset by peer")])
        job.notes.append("herring: rendezvous-shutdown RendezvousConnectionError / 'Connection reset by peer' after a successful finish")


def hh_foreign_xid(job, t_a, t_b):
    r = job.rng
    n = r.randrange(job.nnodes)
    job.dmesg_nodes.append(n)
    other_pid = r.randint(500000, 4000000)
    other_name = r.choice(["python3", "python", "jupyter-lab", "ray::IDLE", "blender"])
    code = r.choice([13, 43, 31])
    if job.gpn < 8:
        lrk = r.randint(job.gpn, 7)
        tt = r.uniform(t_a, t_b)
        where = f"GPU {job.bus_all[lrk]} which this job does not use (it has GPUs 0-{job.gpn - 1})"
        pci = f"0000:{job.bus_all[lrk]}:00"
    else:
        lrk = r.randrange(job.gpn)
        tt = -r.uniform(1800, 5 * 3600)
        where = f"GPU {lrk} {int(-tt / 60)} minutes before this job started"
        pci = job.pci(lrk)
        job.kfmt = r.choice(["ctime", "journal"])
    body = {13: f"Graphics SM Warp Exception on (GPC {r.randint(0, 7)}, TPC {r.randint(0, 8)}, SM {r.randint(0, 1)}): Out Of Range Address",
            43: f"Ch 000000{r.randint(10, 99)}",
            31: f"Ch 0000000{r.randint(1, 9)}, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_{r.randint(0, 15)} faulted @ 0x7f{r.randint(0x10, 0xff):02x}_{r.randint(0x10000000, 0xffffffff):08x}. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ"}[code]
    line = f"NVRM: Xid (PCI:{pci}): {code}, pid={other_pid}, name={other_name}, {body}" if job.drv_new else f"NVRM: Xid (PCI:{pci}): {code}, pid={other_pid}, {body}"
    job.klog(n, tt, line)
    if code == 13:
        job.klog(n, tt + 0.01, f"NVRM: Xid (PCI:{pci}): 43, pid={other_pid}, name={other_name}, Ch 000000{r.randint(10, 99)}" if job.drv_new else f"NVRM: Xid (PCI:{pci}): 43, pid={other_pid}, Ch 000000{r.randint(10, 99)}")
    job.notes.append(f"herring: Xid {code} on {job.hosts[n]} from another user's process (pid {other_pid}, {other_name}) on {where}")
    if job.gpn < 8:
        job.files[f"nvidia-smi-{job.khost(n)}.txt"] = nvsmi_plain(job, n, t_b - r.uniform(60, 600), foreign=(lrk, other_pid, other_name))


def nvsmi_plain(job, n, t, foreign=None):
    r = job.rng
    d = job.loc(n, t)
    name = GPU_NAME[job.gpu]
    tot = GPU_MEM[job.gpu][1]
    L = [f"{ctime(d)}       ",
         "+---------------------------------------------------------------------------------------+",
         f"| NVIDIA-SMI {job.drv:<21}Driver Version: {job.drv:<15}CUDA Version: {job.cuda_drv}     |",
         "|-----------------------------------------+----------------------+----------------------+",
         "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |",
         "| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |",
         "|=========================================+======================+======================|"]
    procs = []
    for k in range(8):
        ours = k < job.gpn
        used = r.randint(60000, tot - 2000) if ours else (r.randint(2000, 30000) if foreign and k == foreign[0] else 4)
        util = r.randint(85, 100) if ours else (r.randint(0, 40) if foreign and k == foreign[0] else 0)
        L.append(f"|  {k:>2}  {name[:20]:<20}           On  | 00000000:{job.bus_all[k].upper()}:00.0 Off |                    0 |")
        L.append(f"| N/A   {r.randint(30, 70)}C    P0            {r.randint(80, 690):>3}W / 700W |  {used:>6}MiB / {tot}MiB |    {util:>3}%      Default |")
        L.append("|                                         |                      |             Disabled |")
        L.append("+-----------------------------------------+----------------------+----------------------+")
        if ours:
            procs.append((k, job.pids[n * job.gpn + k], job.pybin.split("/")[-1], used - 500))
        elif foreign and k == foreign[0]:
            procs.append((k, foreign[1], foreign[2], used - 300))
    L += ["", "+---------------------------------------------------------------------------------------+",
          "| Processes:                                                                            |",
          "|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |",
          "|        ID   ID                                                             Usage      |",
          "|=======================================================================================|"]
    for k, pid, nm, mem in procs:
        L.append(f"|    {k}   N/A  N/A  {pid:>9}      C   {nm:<38}{mem:>6}MiB |")
    L.append("+---------------------------------------------------------------------------------------+")
    return "\n".join(L) + "\n"


def hh_correctable_ecc(job, t):
    r = job.rng
    n = r.randrange(job.nnodes)
    lrk = r.randrange(job.gpn)
    vc = r.randint(3, 60)
    job.files[f"nvidia-smi-q-{job.khost(n)}.txt"] = nvsmi_q(job, n, t, ecc={lrk: {"vc": vc, "ac": vc + r.randint(0, 200)}}, remap={lrk: {"c": r.randint(0, 2)}})
    if r.random() < 0.6:
        rk = n * job.gpn + lrk
        tt = t - r.uniform(100, 2000)
        job.R[rk].add(tt, [job.pylog(n, tt, "WARNING", f"gpu_health: GPU {lrk} ecc.errors.corrected.volatile.total increased {vc - r.randint(1, 3)} -> {vc} (uncorrected 0)", name="gpu_health")], "out")
    job.notes.append(f"herring: correctable (single-bit) ECC count {vc} on {job.hosts[n]} GPU {lrk}, uncorrectable 0, no pending remap")


def hh_retried_io(job, t):
    r = job.rng
    rk = r.randrange(job.world)
    n = job.node(rk)
    shard = f"{r.randint(0, 4095):05d}"
    fs = r.choice(["nas01", "10.20.0.5", "filer-a"])
    v = r.choice(["nfs", "s3"])
    if v == "nfs":
        job.dmesg_nodes.append(n)
        job.klog(n, t - 5, f"nfs: server {fs} not responding, still trying")
        job.klog(n, t + r.uniform(8, 40), f"nfs: server {fs} OK")
        msg = f"read of /mnt/data/shards/train-{shard}.tar failed: [Errno 5] Input/output error; retrying (1/5) in 10s"
    else:
        msg = f"read of s3://train-data/shards/train-{shard}.tar failed: botocore.exceptions.ReadTimeoutError: Read timeout on endpoint URL: \"https://train-data.s3.amazonaws.com/shards/train-{shard}.tar\"; retrying (1/5)"
    job.R[rk].add(t, [job.pylog(n, t, "WARNING", msg, name="data")], "err")
    job.R[rk].add(t + 11, [job.pylog(n, t + 11, "INFO", f"retry succeeded for train-{shard}.tar", name="data")], "err")
    job.notes.append(f"herring: a single I/O error on rank {rk} ({v}) that was retried successfully")


def hh_deprecation_tb(job, t):
    r = job.rng
    v = r.choice(["flash", "apex"])
    for rk in range(job.world):
        if rk != 0 and r.random() < 0.5:
            continue
        n = job.node(rk)
        tt = t + r.uniform(0, 3)
        if v == "flash":
            L = [job.pylog(n, tt, "WARNING", "flash_attn import failed, falling back to torch SDPA attention", name="model") if job.app != "megatron" else "WARNING: flash_attn import failed, falling back to torch SDPA attention",
                 "Traceback (most recent call last):", f'  File "{job.wd}/model.py", line {r.randint(10, 30)}, in <module>', "    from flash_attn import flash_attn_func",
                 f'  File "{job.site}/flash_attn/__init__.py", line 3, in <module>', "    from flash_attn.flash_attn_interface import (",
                 f'  File "{job.site}/flash_attn/flash_attn_interface.py", line 10, in <module>', "    import flash_attn_2_cuda as flash_attn_cuda",
                 f"ImportError: {job.site}/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi"]
        else:
            L = [f"{job.site}/torch/distributed/distributed_c10d.py:{r.randint(2400, 4000)}: UserWarning: torch.distributed._all_gather_base is a private function and will be deprecated. Please use torch.distributed.all_gather_into_tensor instead.",
                 "  warnings.warn(",
                 "Warning: apex was installed without --cpp_ext.  Falling back to Python flatten and unflatten.",
                 f"{job.site}/apex/__init__.py:68: FutureWarning: apex.amp is deprecated and will be removed by the end of February 2023. Use [PyTorch AMP](https://pytorch.org/docs/stable/amp.html)",
                 "  warnings.warn(msg, FutureWarning)"]
        job.R[rk].add(tt, L, "err")
    job.notes.append("herring: a traceback printed at WARNING level during import (optional dependency fallback / deprecation)")


def hh_loss_spike(job, s_a, s_b):
    r = job.rng
    le = getattr(job, "log_every_eff", job.log_every)
    if s_b - s_a < 4 * le:
        return {}
    s = ((r.randint(s_a + le, s_b - 2 * le) // le) * le)
    sp = {s: r.uniform(2.5, 6.0) * (job.loss0 / 4), s + le: r.uniform(0.3, 1.0)}
    job.notes.append(f"herring: loss spike at step {s} that recovered within {2 * le} steps")
    return sp


def hh_eval_oom_retry(job, t):
    r = job.rng
    rk = r.randrange(job.world)
    n = job.node(rk)
    msg = oom_msg(job, job.lr(rk), job.pids[rk])
    bs = r.choice([64, 32, 128])
    L = [job.pylog(n, t, "WARNING", f"eval: CUDA OOM at eval batch size {bs}; emptying cache and retrying with {bs // 2}", name="eval"),
         "Traceback (most recent call last):",
         f'  File "{job.wd}/eval_utils.py", line {r.randint(40, 120)}, in run_eval',
         "    logits = model(batch)",
         f'  File "{job.site}/torch/nn/modules/module.py", line 1553, in _wrapped_call_impl', "    return self._call_impl(*args, **kwargs)",
         msg]
    job.R[rk].add(t, job.pyprefix(rk, L) if r.random() < 0.5 else L, "err")
    job.R[rk].add(t + 40, [job.pylog(n, t + 40, "INFO", f"eval done with batch size {bs // 2}: val_loss={r.uniform(1.5, 3.5):.4f}", name="eval")], "out")
    job.notes.append(f"herring: CUDA OOM during evaluation on rank {rk}, caught and retried with a smaller batch")


def hh_caught_exception(job, t):
    r = job.rng
    rk = 0 if r.random() < 0.6 else r.randrange(job.world)
    n = job.node(rk)
    v = r.choice(["s3", "hub", "bleu"])
    if v == "s3":
        L = [job.pylog(n, t, "ERROR", f"checkpoint upload to s3://ckpt-bucket/run-{job.jobid % 9999}/step_{r.randint(1, 50) * 1000} failed; will retry at next save", name="ckpt"),
             "Traceback (most recent call last):",
             f'  File "{job.wd}/utils/upload.py", line {r.randint(20, 80)}, in upload_dir', "    s3.upload_file(str(p), bucket, key)",
             f'  File "{job.site}/boto3/s3/inject.py", line 145, in upload_file', "    return transfer.upload_file(",
             f'  File "{job.site}/botocore/httpsession.py", line 493, in send', "    raise EndpointConnectionError(endpoint_url=request.url, error=e)",
             'botocore.exceptions.EndpointConnectionError: Could not connect to the endpoint URL: "https://ckpt-bucket.s3.us-east-1.amazonaws.com/"']
    elif v == "hub":
        L = [job.pylog(n, t, "WARNING", "push_to_hub failed, continuing training", name="callbacks"),
             "Traceback (most recent call last):",
             f'  File "{job.site}/huggingface_hub/utils/_errors.py", line 304, in hf_raise_for_status', "    response.raise_for_status()",
             f'  File "{job.site}/requests/models.py", line 1024, in raise_for_status', "    raise HTTPError(http_error_msg, response=self)",
             "requests.exceptions.HTTPError: 502 Server Error: Bad Gateway for url: https://huggingface.co/api/models/acme/ckpt/preupload/main"]
    else:
        L = [job.pylog(n, t, "ERROR", "metric computation failed, logging NaN", name="eval"),
             "Traceback (most recent call last):",
             f'  File "{job.wd}/eval_utils.py", line {r.randint(40, 120)}, in compute_metrics', "    precision = tp / (tp + fp)",
             "ZeroDivisionError: division by zero"]
    job.R[rk].add(t, L, "err")
    job.notes.append(f"herring: unrelated exception caught and logged on rank {rk} ({v}) long before the end")


def hh_old_xid(job):
    r = job.rng
    n = r.randrange(job.nnodes)
    job.dmesg_nodes.append(n)
    job.kfmt = r.choice(["ctime", "journal"])
    days = r.uniform(2, 12)
    lrk = r.randrange(job.gpn)
    tt = -days * 86400
    code = r.choice([79, 48, 74, 119])
    body = {79: "GPU has fallen off the bus.", 48: "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 2, subpartition 0.",
            74: f"NVLink: fatal error detected on link {r.randint(0, 17)}(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)",
            119: f"Timeout after 6s of waiting for RPC response from GPU{lrk} GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a4c 0x4)."}[code]
    job.klog(n, tt, xid_line(job, lrk, code, body))
    if code == 79:
        job.klog(n, tt + 0.01, f"NVRM: GPU {job.pci(lrk)}.0: GPU has fallen off the bus.")
    job.klog(n, tt + r.uniform(3600, 7200), f"NVRM: loading NVIDIA UNIX x86_64 Kernel Module  {job.drv}  {r.choice(['Wed Oct 25 18:45:12 UTC 2023', 'Tue Mar 12 21:55:07 UTC 2024', 'Fri Jun 28 01:42:26 UTC 2024'])}")
    job.old_xid_boot = tt + r.uniform(3500, 7000)
    job.notes.append(f"herring: dmesg on {job.hosts[n]} still holds Xid {code} from {days:.1f} days before the run (GPU was reset / driver reloaded since)")


def hh_monitor_agent(job, t):
    r = job.rng
    v = r.choice(["wandb", "nvml"])
    rk = 0 if v == "wandb" else r.randrange(job.world)
    n = job.node(rk)
    if v == "wandb":
        L = [f"wandb: Network error (ConnectionError), entering retry loop.",
             f"wandb: ERROR Error while calling W&B API: An internal error occurred. Please contact support. (<Response [500]>)"]
        job.R[rk].add(t, L, "err")
        job.R[rk].add(t + r.uniform(30, 300), ["wandb: Network error resolved after 0:02:41.533212, resuming normal operation."], "err")
        job.notes.append("herring: wandb monitoring errors (network retry loop / API 500) in the same log")
    else:
        lrk = r.randrange(job.gpn)
        L = ["Exception in thread gpu-monitor:", "Traceback (most recent call last):",
             f'  File "/usr/lib/python{job.T["py"]}/threading.py", line 1016, in _bootstrap_inner', "    self.run()",
             f'  File "{job.wd}/utils/gpumon.py", line {r.randint(20, 90)}, in run',
             f"    power = pynvml.nvmlDeviceGetTotalEnergyConsumption(self.handles[{lrk}])",
             f'  File "{job.site}/pynvml.py", line {r.randint(2000, 2600)}, in nvmlDeviceGetTotalEnergyConsumption', "    _nvmlCheckReturn(ret)",
             f'  File "{job.site}/pynvml.py", line 979, in _nvmlCheckReturn', "    raise NVMLError(ret)",
             "pynvml.NVMLError_NotSupported: Not Supported"]
        job.R[rk].add(t, L, "err")
        job.notes.append(f"herring: the job's own GPU-monitor thread crashed on rank {rk} (NVML 'Not Supported' for an energy counter on GPU {lrk}); training unaffected")


def hh_planned_shutdown(job, t, step):
    """Job stops itself on purpose (time budget / SIGUSR1 from the scheduler) and exits 0."""
    r = job.rng
    v = "usr1" if job.layout == "slurm" and r.random() < 0.6 else "budget"
    if v == "usr1":
        msg = f"Received SIGUSR1 (scheduler grace signal): saving checkpoint at step {step} and exiting cleanly; resubmit to continue"
    else:
        msg = f"Reached time budget (--max-time {r.choice(['04:00:00', '08:00:00', '11:30:00'])}) at step {step}: saving checkpoint and exiting"
    job.R[0].add(t, [job.pylog(0, t, "WARNING", msg)] if job.app != "megatron" else [f"exiting program after {r.choice([240, 480, 690])} minutes", f"saving checkpoint at iteration {step:8d} to /checkpoints/gpt in torch_dist format"], "out")
    for rk in range(1, job.world):
        if r.random() < 0.3:
            tt = t + r.uniform(20, 60)
            if job.tv in ("v24", "v26"):
                job.R[rk].add(tt, [job.cpp(rk, tt, "W", "ProcessGroupNCCL.cpp:1662" if job.tv == "v26" else "ProcessGroupNCCL.cpp:1319",
                                           f"{'[PG ID 0 PG GUID 0 Rank %d]' % rk if job.tv == 'v26' else '[PG 0 Rank %d]' % rk} Failed to check the \"should dump\" flag on TCPStore, (maybe TCPStore server has shut down too early), with error: Broken pipe"),
                                   job.cpp(rk, tt + 0.05, "W", "TCPStore.cpp:106", f"[c10d] sendBytes failed on SocketImpl(fd={r.randint(40, 140)}, addr=[{job.hosts[job.node(rk)]}]:{r.randint(33000, 60999)}, remote=[{job.hosts[0]}]:{job.master_port}): Broken pipe")])
            elif job.nccl_info:
                job.R[rk].add(tt, [job.nccl(rk, "INFO", f"[Service thread] Connection closed by localRank {r.randrange(job.gpn)}")], "out")
    job.notes.append(f"herring: planned early stop ({'SIGUSR1 grace signal' if v == 'usr1' else 'time budget'}) with watchdog/TCPStore noise at shutdown; exit status 0")
    job.planned = v


PREV_KINDS = ["oom_start", "nccl_flake", "ckpt_missing", "pyexc"]


def emit_prev_attempt(job, t, avoid_cause=None, restartable=True):
    """An earlier attempt in the same output that failed for another reason.  Returns next start time."""
    r = job.rng
    kinds = [k for k in PREV_KINDS if not (avoid_cause == "cuda_oom" and k == "oom_start")
             and not (avoid_cause == "network" and k == "nccl_flake") and not (avoid_cause == "python_exception" and k in ("pyexc", "ckpt_missing"))]
    kind = r.choice(kinds)
    for n in range(job.nnodes):
        if job.launcher == "torchrun":
            emit_agent_start(job, n, t + r.uniform(0, 2))
        else:
            emit_ds_node_start(job, n, t + r.uniform(0, 2))
    tr = emit_rank_start(job, t + 3)
    job.train_t0 = tr
    job.s_start = 0
    x = pick_init(job, 0.3)
    if kind == "oom_start":
        tf = tr + r.uniform(20, 120)
        tbl = tb(app_frames(job, "step"), oom_msg(job, job.lr(x), job.pids[x]))
        desc = f"CUDA OOM at startup on rank {x} (batch too large)"
    elif kind == "ckpt_missing":
        tf = tr - 5
        tbl = tb([(f"{job.wd}/{job.script}", r.randint(300, 500), "<module>", "main(args)"),
                  (f"{job.wd}/{job.script}", r.randint(200, 299), "main", "state = torch.load(args.resume, map_location=\"cpu\")"),
                  (f"{job.site}/torch/serialization.py", 1065, "load", "with _open_file_like(f, 'rb') as opened_file:"),
                  (f"{job.site}/torch/serialization.py", 468, "_open_file_like", "return _open_file(name_or_buffer, mode)"),
                  (f"{job.site}/torch/serialization.py", 449, "__init__", "super().__init__(open(name, mode))")],
                 f"FileNotFoundError: [Errno 2] No such file or directory: '/ckpt/run-{job.jobid % 9999}/step_{r.randint(1, 40) * 1000}.pt'")
        desc = f"resume checkpoint path missing on rank {x}"
    elif kind == "pyexc":
        tf = tr + r.uniform(300, 4000)
        emit_training(job, tr, tf, 0)
        tbl = tb(app_frames(job, "step"), "RuntimeError: The size of tensor a (4097) must match the size of tensor b (4096) at non-singleton dimension 1")
        desc = f"shape error on rank {x} (bad sample)"
    else:
        tf = tr + r.uniform(300, 4000)
        emit_training(job, tr, tf, 0)
        lines, code = survivor_error(job, x, tf, (job.node(x) + 1) % job.nnodes if job.nnodes > 1 else 0, "ib" if job.nccl_ib else "socket", "py")
        tbl = None
        desc = f"transient NCCL network error on rank {x}"
    if kind != "nccl_flake":
        lines = job.pyprefix(x, tbl)
    job.R[x].add(tf, lines, "err")
    restart = restartable and job.layout == "torchrun_logdir"
    if restart:
        # torchrun --max-restarts: the agents restart the worker group
        for n in range(job.nnodes):
            td = tf + r.uniform(0.5, 3)
            L = []
            for rk in range(n * job.gpn, (n + 1) * job.gpn):
                if rk != x:
                    L.append(job.agent_log(n, td, "W", "torch/distributed/elastic/multiprocessing/api.py", job.T["mp_term"], f"Sending process {job.pids[rk]} closing signal SIGTERM"))
            if n == job.node(x):
                L.append(job.agent_log(n, td + 1, "W", "torch/distributed/elastic/agent/server/api.py", job.T["ag_inv"] + 20,
                                       f"[default] Worker group FAILED. {r.choice([2, 3])}/3 attempts left; will restart worker group"))
            job.A[n].add(td, L)
            for rk in range(n * job.gpn, (n + 1) * job.gpn):
                job.exit_info[rk] = (td, 1 if rk == x else -15)
        tnext = tf + r.uniform(15, 60)
    else:
        plan = dict(init=x, mode="exit", t_x=tf + 0.5, code=1, init_blocks=[], peer=r.choice(["remote", "timeout"]) if kind == "nccl_flake" else "timeout",
                    transport="ib" if job.nccl_ib else "socket", coll=default_coll(job, 10), t_coll=tf, restart=True)
        if kind in ("ckpt_missing", "oom_start"):
            plan["peer"] = "timeout"
        simulate(job, plan)
        gap = {"slurm": r.uniform(60, 300), "k8s": r.uniform(10, 120), "deepspeed": r.uniform(300, 3600), "paste": r.uniform(120, 3600)}.get(job.layout, 60)
        tnext = job.end_t + gap
        if job.layout == "slurm":
            d = job.loc(0, job.end_t + 1)
            job.S.add(job.end_t + 1, [f"[{d:%Y-%m-%d %H:%M:%S}] srun exited with status 1; retry 2/3 in {int(gap)}s",
                                      f"[{job.loc(0, tnext - 1):%Y-%m-%d %H:%M:%S}] starting attempt 2/3 (resume from latest checkpoint)"])
    job.prev_desc = desc
    job.prev_last_step = max(0, int((tf - tr) / job.step_time))
    job.attempt = 1
    job.exit_info = {}
    job.node_exit = {}
    job.summaries = []
    job.new_pids()
    if hasattr(job, "commid"):
        del job.commid
    return tnext


# ====================================================================== py-spy
def pyspy_dump(job, rank, t, kind):
    r = job.rng
    py = job.T["py"]
    s = job.site
    L = [f"Process {job.pids[rank]}: {job.pybin} -u {job.script} --config configs/{r.choice(['7b', '13b', 'base'])}.yaml",
         f"Python v{py}.{r.randint(4, 14)} ({job.pybin})", "",
         f"Thread {job.pids[rank]} (idle): \"MainThread\"" if kind in ("data", "lock") else f"Thread {job.pids[rank]} (active): \"MainThread\""]
    if kind == "data":
        L += ["    _recv (multiprocessing/connection.py:384)" if r.random() < 0.5 else "    wait (threading.py:324)",
              "    get (multiprocessing/queues.py:113)",
              f"    _try_get_data ({s}/torch/utils/data/dataloader.py:1133)",
              f"    _get_data ({s}/torch/utils/data/dataloader.py:1294)",
              f"    _next_data ({s}/torch/utils/data/dataloader.py:1328)",
              f"    __next__ ({s}/torch/utils/data/dataloader.py:630)"]
    elif kind == "lock":
        L += ["    acquire (threading.py:?)" if False else "    wait (threading.py:320)",
              "    wait (threading.py:607)",
              f"    flush ({job.wd}/utils/metrics.py:{r.randint(40, 120)})",
              f"    log_step ({job.wd}/utils/metrics.py:{r.randint(121, 200)})"]
    elif kind == "ckpt":
        L += ["    write (shutil.py:?)".replace("?", "198"), f"    copyfileobj (shutil.py:198)", f"    _upload_shard ({job.wd}/utils/upload.py:{r.randint(20, 80)})",
              f"    save_checkpoint ({job.wd}/utils/checkpoint.py:{r.randint(40, 120)})"]
    else:
        L += [f"    wait_for_flag ({job.wd}/utils/sync.py:{r.randint(10, 60)})", "    sleep (time.py)" if False else f"    _poll ({job.wd}/utils/sync.py:{r.randint(61, 90)})"]
    L += [f"    train_one_epoch ({job.wd}/{job.script}:{r.randint(120, 200)})", f"    main ({job.wd}/{job.script}:{r.randint(240, 299)})",
          f"    <module> ({job.wd}/{job.script}:{r.randint(300, 520)})",
          f"Thread {job.pids[rank] + r.randint(50, 300)} (idle): \"Thread-{r.randint(2, 9)} (_pin_memory_loop)\"",
          "    select (selectors.py:416)", "    wait (multiprocessing/connection.py:931)", "    _poll (multiprocessing/connection.py:424)",
          "    poll (multiprocessing/connection.py:257)", "    get (multiprocessing/queues.py:113)",
          f"    do_one_step ({s}/torch/utils/data/_utils/pin_memory.py:31)",
          f"    _pin_memory_loop ({s}/torch/utils/data/_utils/pin_memory.py:54)",
          "    run (threading.py:953)", "    _bootstrap_inner (threading.py:1016)", "    _bootstrap (threading.py:973)"]
    return "\n".join(L) + "\n"


# ====================================================================== rendering
def blk_lines(blks, prefix="", attempt=None, stream=None):
    out = []
    for (t, seq, st, att, lines) in blks:
        if attempt is not None and att != attempt:
            continue
        if stream is not None and st != stream:
            continue
        out.append((t, seq, [prefix + x for x in lines]))
    return out


def merged(items):
    items.sort(key=lambda x: (x[0], x[1]))
    res = []
    for _, _, lines in items:
        res.extend(lines)
    return res


def node_console(job, n, label="", ranks=True, attempt=None):
    items = blk_lines(job.A[n].blks, label, attempt)
    if ranks:
        for rk in range(n * job.gpn, (n + 1) * job.gpn):
            items += blk_lines(job.R[rk].blks, label, attempt)
    return items


def kernel_text(job, n, t_collect):
    fmt = job.kfmt
    L = sorted([x for x in job.K[n] if x[0] <= t_collect], key=lambda x: x[0])
    if fmt == "uptime":
        # an uptime-stamped dmesg cannot show lines from before the last boot
        L = [x for x in L if self_boot_ok(job, n, x[0])]
    return "\n".join(job.kfmt_line(n, t, txt) for t, txt in L) + "\n"


def self_boot_ok(job, n, t):
    return job.boot[n] + t > 0


def collect_time(job):
    return (job.end_t or 0) + job.rng.uniform(120, 3600)


def render_kernel_files(job, files, path_fn):
    tc = collect_time(job)
    seen = []
    for n in job.dmesg_nodes:
        if n in seen:
            continue
        seen.append(n)
        kernel_noise(job, n)
        files[path_fn(n)] = kernel_text(job, n, tc)


def render_pyspy(job, files, path_fn):
    for rk, (t, kind) in sorted(job.pspy.items()):
        files[path_fn(rk)] = f"$ py-spy dump --pid {job.pids[rk]}\n" + pyspy_dump(job, rk, t, kind)


def render_slurm(job):
    r = job.rng
    files = {}
    items = []
    d0 = job.loc(0, -3)
    hdr = [f"START TIME: {ctime(d0)}", f"SLURM_JOB_ID={job.jobid}", f"SLURM_JOB_NODELIST={','.join(job.hosts)}",
           f"MASTER_ADDR={job.hosts[0]} MASTER_PORT={job.master_port} NNODES={job.nnodes} GPUS_PER_NODE={job.gpn}",
           f"+ srun {'--label ' if job.srun_label else ''}{'--kill-on-bad-exit=1 ' if job.kill_on_bad_exit else ''}torchrun --nnodes={job.nnodes} --nproc-per-node={job.gpn} "
           f"--rdzv-backend=c10d --rdzv-endpoint={job.hosts[0]}:{job.master_port} --rdzv-id={job.jobid} {job.script} --config configs/train.yaml"]
    items.append((-3, 0, hdr))
    for n in range(job.nnodes):
        items += node_console(job, n, f"{n}: " if job.srun_label else "")
    items += blk_lines(job.S.blks)
    out = merged(items)
    if not job.healthy_end and r.random() < 0.2:
        pass
    elif job.healthy_end:
        out.append(f"END TIME: {ctime(job.loc(0, job.end_t + 1))}")
    files[f"slurm-{job.jobid}.out"] = "\n".join(out) + "\n"
    render_kernel_files(job, files, lambda n: f"dmesg-{job.hosts[n]}.txt")
    render_pyspy(job, files, lambda rk: f"py-spy-{job.hosts[job.node(rk)]}-{job.pids[rk]}.txt")
    if r.random() < 0.7 or job.cause in ("host_oom_kill", "preemption"):
        files["sacct.txt"] = sacct_text(job)
    return files


def sacct_text(job):
    st = job.sacct_state
    L = ["JobID           JobName  Partition    Account  AllocCPUS      State ExitCode ",
         "------------ ---------- ---------- ---------- ---------- ---------- -------- "]
    cpus = job.nnodes * job.rng.choice([96, 128, 192])
    rows = [(f"{job.jobid}", "train", "gpu"), (f"{job.jobid}.batch", "batch", ""), (f"{job.jobid}.extern", "extern", ""), (f"{job.jobid}.0", "torchrun", "")]
    for jid, nm, part in rows:
        s, ec = st
        if nm == "extern":
            s, ec = "COMPLETED", "0:0"
        if nm == "batch" and s.startswith("CANCELLED"):
            s, ec = "CANCELLED", "0:15"
        L.append(f"{jid:<12} {nm:>10} {part:>10} {'ml-research':>10} {cpus if nm != 'batch' else cpus // job.nnodes:>10} {s:>10} {ec:>8} ")
    return "\n".join(L) + "\n"


def render_logdir(job):
    r = job.rng
    files = {}
    runid = f"{r.choice(['none', 'exp', str(job.jobid)])}_{''.join(r.choice('abcdefghijklmnopqrstuvwxyz0123456789_') for _ in range(8))}"
    for n in range(job.nnodes):
        h = job.hosts[n]
        items = blk_lines(job.A[n].blks)
        if job.tee:
            for rk in range(n * job.gpn, (n + 1) * job.gpn):
                items += blk_lines(job.R[rk].blks, f"[default{job.lr(rk)}]:")
        files[f"{h}/torchrun.log"] = "\n".join(merged(items)) + "\n"
        for rk in range(n * job.gpn, (n + 1) * job.gpn):
            for att in range(job.attempt + 1):
                base = f"{h}/logs/{runid}/attempt_{att}/{job.lr(rk)}"
                for stn, fn in (("out", "stdout.log"), ("err", "stderr.log")):
                    ls = merged(blk_lines(job.R[rk].blks, "", att, stn))
                    files[f"{base}/{fn}"] = ("\n".join(ls) + "\n") if ls else ""
                ej = getattr(job, "error_json", {}).get((rk, att))
                if ej:
                    files[f"{base}/error.json"] = ej
    render_kernel_files(job, files, lambda n: f"{job.hosts[n]}/dmesg.txt")
    render_pyspy(job, files, lambda rk: f"{job.hosts[job.node(rk)]}/py-spy-{job.pids[rk]}.txt")
    return files


def render_k8s(job):
    r = job.rng
    files = {}
    for n in range(job.nnodes):
        for att in range(job.attempt + 1):
            items = node_console(job, n, "", True, att)
            items.sort(key=lambda x: (x[0], x[1]))
            out = []
            for t, _, lines in items:
                d = job.loc(n, t)
                for i, ln in enumerate(lines):
                    out.append((f"{d:%Y-%m-%dT%H:%M:%S}.{d.microsecond:06d}{(int(t * 1e9) + 37 * i) % 1000:03d}Z " if job.k8s_ts else "") + ln)
            if not out:
                continue
            name = f"pods/{job.hosts[n]}.log" if att == job.attempt else f"pods/{job.hosts[n]}.previous.log"
            files[name] = "\n".join(out) + "\n"
    tc = collect_time(job)
    ev = []
    for n in range(job.nnodes):
        ev.append((-20, "Normal", "Scheduled", f"pod/{job.hosts[n]}", f"Successfully assigned training/{job.hosts[n]} to {job.k8s_nodes[n]}"))
        ev.append((-8, "Normal", "Pulled", f"pod/{job.hosts[n]}", "Container image already present on machine" if r.random() < 0.6 else f"Successfully pulled image in {r.uniform(20, 300):.3f}s"))
        ev.append((-6, "Normal", "Created", f"pod/{job.hosts[n]}", "Created container pytorch"))
        ev.append((-5, "Normal", "Started", f"pod/{job.hosts[n]}", "Started container pytorch"))
    ev.append((-21, "Normal", "PyTorchJobCreated", f"pytorchjob/{job.k8s_job}", f"PyTorchJob {job.k8s_job} is created."))
    ev += job.events
    ev = [e for e in ev if tc - e[0] < 3600 * 3]
    ev.sort(key=lambda e: e[0])
    L = ["LAST SEEN   TYPE      REASON                 OBJECT                                   MESSAGE"]
    for t, ty, rs, ob, msg in ev:
        age = tc - t
        ag = f"{int(age)}s" if age < 120 else (f"{int(age // 60)}m" if age < 7200 else f"{int(age // 3600)}h")
        L.append(f"{ag:<11} {ty:<9} {rs:<22} {ob:<40} {msg}")
    files["events.txt"] = "\n".join(L) + "\n"
    P = ["NAME" + " " * 28 + "READY   STATUS      RESTARTS   AGE   IP             NODE"]
    for n in range(job.nnodes):
        st = job.pod_status.get(n, "Completed")
        P.append(f"{job.hosts[n]:<32}0/1     {st:<11} {job.attempt:<10} {int((tc + 20) // 60)}m   {job.ips[n]:<14} {job.k8s_nodes[n]}")
    files["get-pods-o-wide.txt"] = "\n".join(P) + "\n"
    render_kernel_files(job, files, lambda n: f"node-{job.k8s_nodes[n]}-dmesg.txt")
    render_pyspy(job, files, lambda rk: f"py-spy-{job.hosts[job.node(rk)]}-{job.pids[rk]}.txt")
    return files


def ds_text(job):
    r = job.rng
    import base64
    wi = base64.b64encode(json.dumps({h: list(range(job.gpn)) for h in job.hosts}).encode()).decode()
    items = []
    for n in range(job.nnodes):
        items += node_console(job, n, f"{job.hosts[n]}: ")
    for (t, seq, st, att, lines) in job.S.blks:
        items.append((t, seq, lines))
    return merged(items)


def render_deepspeed(job):
    files = {"train.log": "\n".join(ds_text(job)) + "\n",
             "hostfile": "".join(f"{h} slots={job.gpn}\n" for h in job.hosts)}
    render_kernel_files(job, files, lambda n: f"dmesg-{job.hosts[n]}.txt")
    render_pyspy(job, files, lambda rk: f"py-spy-{job.hosts[job.node(rk)]}-{job.pids[rk]}.txt")
    return files


def render_paste(job):
    r = job.rng
    if job.launcher == "deepspeed":
        lines = ds_text(job)
    else:
        items = []
        for n in range(job.nnodes):
            items += node_console(job, n, "")
        items += blk_lines(job.S.blks)
        lines = merged(items)
    N = len(lines)
    tail = r.randint(90, 260)
    head = r.randint(8, 30)
    if N <= head + tail + 20:
        excerpt = lines
    else:
        # users keep the beginning and the end; some also keep the first scary block in the middle
        mid = []
        first_err = next((i for i, ln in enumerate(lines) if ("Traceback" in ln or "NCCL WARN" in ln or "Watchdog caught" in ln) and head < i < N - tail), None)
        if first_err is not None and r.random() < 0.5:
            mid = ["..."] + lines[first_err:first_err + r.randint(8, 25)]
        excerpt = lines[:head] + mid + [f"[... {N - tail - head - len(mid)} lines omitted ...]"] + lines[N - tail:]
    env = [f"- PyTorch: {job.T['ver']}+cu{job.T['cu'].replace('.', '')}", f"- NCCL: {job.T['nccl']}", f"- Python: {job.T['py']}",
           f"- Driver: {job.drv}", f"- Hardware: {job.nnodes} node(s) x {job.gpn} x {GPU_NAME[job.gpu]}",
           f"- Launcher: {'deepspeed (pdsh)' if job.launcher == 'deepspeed' else 'torchrun'}"]
    if job.paste_title is None:
        job.paste_title = choose_title(job, excerpt)
    title = job.paste_title
    body = [f"# {title}", "", "### Environment", ""] + env + ["", "### Description", "", job.paste_desc, "", "### Logs", "",
                                                                "```"] + excerpt + ["```", ""]
    files = {}
    if job.dmesg_nodes and r.random() < 0.7:
        n = job.dmesg_nodes[0]
        kt = kernel_text(job, n, collect_time(job)).strip("\n").split("\n")
        body += [f"Our admin also sent `dmesg -T` from {job.hosts[n]}:" if job.kfmt == "ctime" else f"`dmesg` from {job.hosts[n]} (collected by the admin):", "", "```"] + kt[-25:] + ["```", ""]
    for k, v in job.files.items():
        if k.startswith("nvidia-smi") and r.random() < 0.6:
            body += [f"`{k.replace('.txt', '').replace('-', ' ', 1)}` output:", "", "```"] + v.strip("\n").split("\n") + ["```", ""]
    for rk, (t, kind) in sorted(job.pspy.items()):
        body += [f"py-spy dump of one of the processes on {job.hosts[job.node(rk)]}:", "", "```", f"$ py-spy dump --pid {job.pids[rk]}"] + pyspy_dump(job, rk, t, kind).strip("\n").split("\n") + ["```", ""]
    files["issue.md"] = "\n".join(body) + "\n"
    return files


# ====================================================================== run assembly
FH_LIST = ["buffered_first", "nccl_warn_wrong_rank", "caught_exception", "old_xid", "monitor_agent", "prev_attempt"]
HH_LIST = ["nccl_warn_benign", "teardown_reset", "foreign_xid", "correctable_ecc", "retried_io", "loss_spike",
           "deprecation_tb", "rdzv_retry", "planned_shutdown", "eval_oom_retry", "recovered_restart", "monitor_agent",
           "old_xid", "caught_exception"]


def eval_markers(files, markers):
    for conj in markers:
        ok = True
        for ps, text in conj:
            pt = (ps,) if isinstance(ps, str) else ps
            if not any(all(p in path for p in pt) and text in content for path, content in files.items()):
                ok = False
                break
        if ok and conj:
            return True
    return False


def paste_texts(job, healthy):
    r = job.rng
    if healthy:
        job.paste_title = r.choice(["Lots of NCCL / c10d errors in the log but training finished - safe to ignore?",
                                    "Scary warnings and tracebacks during multi-node training, is something wrong?",
                                    "Connection reset by peer at the end of training"])
        job.paste_desc = (f"Training on {job.nnodes} node(s) finished and the final checkpoint looks fine, but the log is full of warnings/tracebacks "
                          "(see below). Should I worry about these? I cut the middle of the log because it is long.")
        return
    if getattr(job, "still_running", False):
        job.paste_title = "Multi-node training much slower than expected (throughput dropped)"
        job.paste_desc = (f"Same config ran at ~{job.step_time:.2f}s/it last week. Now it gets slower after a while and stays slow. "
                          "No errors at all as far as I can tell. Log of the running job below.")
        return
    job.paste_title = None
    job.paste_desc = (f"Running {job.script} on {job.nnodes} node(s) x {job.gpn} GPUs. After a while the job dies with the errors below. "
                      "I only kept the beginning and the end of the log since it is very long.")


def choose_title(job, lines):
    pats = [("Watchdog caught collective operation timeout", "Watchdog caught collective operation timeout / NCCL timeout during training"),
            ("ncclRemoteError", "ncclRemoteError: remote process exited or there was a network error"),
            ("SignalException", "torchrun: SignalException: Process got signal: 15"),
            ("OutOfMemoryError", "CUDA out of memory on one rank in multi-node training"),
            ("CUDA error:", None),
            ("Connection reset by peer", "Training crashes: Connection reset by peer"),
            ("NCCL WARN", "NCCL WARN messages then the job dies"),
            ("ChildFailedError", "torch.distributed.elastic.multiprocessing.errors.ChildFailedError"),
            ("exits with return code", "deepspeed launcher: exits with return code"),
            ("Traceback", "Training crashed with a traceback (multi-node)")]
    r = job.rng
    order = list(pats)
    if r.random() < 0.4:
        order = [order[-3]] + order   # many users just quote the final ChildFailedError
    for p, ttl in order:
        for ln in lines:
            if p in ln and "FutureWarning" not in ln and "UserWarning" not in ln:
                if ttl is None:
                    k = ln.find("CUDA error:")
                    return ln[k:k + 90].strip() + " during training"
                return ttl
    return "Multi-node training job died, no idea why"


def build_run(seed, i, layout, healthy, cause, hh_index):
    rng = random.Random(f"blind38:{seed}:{i}:{layout}:{cause}")
    job = Job(rng, layout, i)
    if cause in ("network", "unknown") and job.nnodes == 1:
        job = Job(random.Random(f"blind38:{seed}:{i}:{layout}:{cause}:multi"), "slurm" if False else layout, i)
        while job.nnodes == 1:
            job = Job(random.Random(f"blind38:{seed}:{i}:{layout}:{cause}:{rng.random()}"), layout, i)
    r = job.rng
    job.cause = cause
    job.healthy_end = False
    job.sacct_state = ("FAILED", "1:0")
    job.pod_status = {}
    job.error_json = {}
    herrings = []
    if healthy:
        first = HH_LIST[hh_index % len(HH_LIST)]
        herrings = [first] + r.sample([h for h in HH_LIST if h != first], k=r.randint(1, 2))
        if "recovered_restart" in herrings and "planned_shutdown" in herrings:
            herrings.remove("planned_shutdown")
    else:
        pool = [h for h in FH_LIST if not (h == "buffered_first" and layout not in ("slurm", "deepspeed", "paste"))]
        herrings = r.sample(pool, k=r.choice([1, 2, 2]))
    job.herrings = herrings
    t = 0.0
    if ("prev_attempt" in herrings) or ("recovered_restart" in herrings):
        t = emit_prev_attempt(job, 0.0, avoid_cause=cause)
    for n in range(job.nnodes):
        if job.launcher == "torchrun":
            emit_agent_start(job, n, t + r.uniform(0, 3))
        else:
            emit_ds_node_start(job, n, t + r.uniform(0, 3))
    late = 0.0
    if "rdzv_retry" in herrings:
        late = hh_rdzv_retry(job, t) or 0.0
    tr = emit_rank_start(job, t + late + 2)
    job.train_t0 = tr
    job.s_start = 0 if job.attempt == 0 else (getattr(job, "prev_last_step", 0) // 500) * 500
    job.s_start = min(job.s_start, job.total_steps // 3)
    total = job.total_steps
    span = total - job.s_start
    if cause == "straggler":
        job.slow_rank = pick_init(job)
        job.slow = (job.s_start + int(r.uniform(0.05, 0.35) * span), round(r.uniform(1.45, 2.6), 2))
        job.slow_ev = "perrank" if (job.app == "custom" or r.random() < 0.5) else "nvsmi"
    if healthy:
        s_end = total
        if "planned_shutdown" in herrings:
            s_end = job.s_start + int(r.uniform(0.3, 0.8) * span)
        t_end = job.step_t(s_end)
        # estimate the effective log interval first (for the loss-spike herring)
        le = job.log_every
        while ((t_end - tr) / job.step_time) / le > 110:
            le *= 2
        job.log_every_eff = le
        spikes = hh_loss_spike(job, job.s_start, s_end) if "loss_spike" in herrings else {}
        step = emit_training(job, tr, t_end, job.s_start, spikes)
        if spikes and job.launcher == "deepspeed":
            s_sp = min(spikes)
            job.R[0].add(job.step_t(s_sp) - 0.1, [f"[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768"], "out")
        window = (tr + 60, max(tr + 120, t_end - 60))
        for h in herrings:
            tt = r.uniform(*window)
            if h == "foreign_xid":
                hh_foreign_xid(job, tr, t_end)
            elif h == "correctable_ecc":
                hh_correctable_ecc(job, t_end + r.uniform(-600, 600))
            elif h == "retried_io":
                hh_retried_io(job, tt)
            elif h == "deprecation_tb":
                hh_deprecation_tb(job, tr - r.uniform(20, 35))
            elif h == "eval_oom_retry":
                hh_eval_oom_retry(job, tt)
            elif h == "monitor_agent":
                hh_monitor_agent(job, tt)
            elif h == "old_xid":
                hh_old_xid(job)
            elif h == "caught_exception":
                hh_caught_exception(job, tt)
            elif h == "nccl_warn_benign":
                pass
            elif h == "recovered_restart":
                job.notes.append(f"herring: attempt 1 failed ({job.prev_desc}); the restarted attempt resumed and completed")
        if "planned_shutdown" in herrings:
            hh_planned_shutdown(job, t_end + 1, s_end)
            t_end += r.uniform(40, 90)
        emit_success_end(job, t_end, s_end)
        if "nccl_warn_benign" in herrings:
            hh_nccl_warn_benign(job, tr - 40, job.end_t - 3)
        if "teardown_reset" in herrings:
            hh_teardown_reset(job, job.end_t - 2)
        job.healthy_end = True
        job.sacct_state = ("COMPLETED", "0:0")
        job.node_exit = {n: (job.end_t, "ok") for n in range(job.nnodes)}
        if layout == "k8s":
            job.events.append((job.end_t + 5, "Normal", "PyTorchJobSucceeded", f"pytorchjob/{job.k8s_job}", f"PyTorchJob {job.k8s_job} is successfully completed."))
    else:
        frac = r.uniform(0.1, 0.85)
        s_f = job.s_start + int(frac * span)
        t_f = job.step_t(s_f)
        step = emit_training(job, tr, t_f, job.s_start)
        for h in herrings:
            tt = r.uniform(tr + 30, max(tr + 60, t_f - 120))
            if h == "caught_exception":
                hh_caught_exception(job, tt)
            elif h == "monitor_agent":
                hh_monitor_agent(job, tt)
            elif h == "old_xid":
                hh_old_xid(job)
        default_coll(job, step)
        plan = CAUSE_FN[cause](job, t_f, step)
        if plan is not None:
            if "buffered_first" in herrings and plan["mode"] == "exit" and plan.get("init_blocks") and job.nnodes > 1:
                plan["peer"] = "remote"
                plan["buffered"] = True
            elif "buffered_first" in herrings:
                job.herrings.remove("buffered_first")
            if job.host_oom_info() and job.layout == "slurm" and job.host_oom["cg"]:
                d = job.loc(job.host_oom["node"], t_f + 2)
                job.S.add(t_f + 2, [f"slurmstepd: error: Detected 1 oom_kill event in StepId={job.jobid}.0. Some of the step tasks have been OOM Killed."])
                job.node_markers.append([("", f"Detected 1 oom_kill event in StepId={job.jobid}.0")])
                job.sacct_state = ("OUT_OF_MEMORY", "0:125")
            if job.host_oom_info() and job.layout == "k8s":
                n = job.host_oom["node"]
                job.events.append((t_f, "Warning", "OOMKilling", f"node/{job.k8s_nodes[n]}", job.host_oom["kill"]))
            simulate(job, plan)
            if plan.get("buffered"):
                job.notes.append("herring: the initiator's traceback reached the combined log only after a collateral rank's error (output relay/buffering), so the first traceback in the file is not the cause")
        if "nccl_warn_wrong_rank" in herrings:
            hh_nccl_warn_benign(job, tr - 40, None, wrong_rank=True)
        if cause == "preemption":
            job.sacct_state = ("PREEMPTED", "0:0") if job.preempt == "PREEMPTION" else (("TIMEOUT", "0:0") if job.preempt == "TIME LIMIT" else job.sacct_state)
        if cause == "straggler":
            job.sacct_state = ("CANCELLED by 1000", "0:0") if getattr(job, "straggler_end", "") == "user" else ("TIMEOUT", "0:0")
        for h in herrings:
            if h == "prev_attempt":
                job.notes.append(f"herring: the same output also holds an earlier attempt that failed differently ({job.prev_desc})")
        if layout == "k8s":
            for n, v in getattr(job, "node_exit", {}).items():
                job.pod_status[n] = "Error" if v[1] in ("exit1", "killed", "sigterm") else "Running"
    # error.json for python exceptions when the script uses @record
    if not healthy and job.record and job.truth_rank is not None:
        for (n, fails) in getattr(job, "summaries", []):
            for f in fails:
                if f.get("error_file") and f.get("tb"):
                    tbt = "\n".join(f["tb"])
                    fi = max([i for i, x in enumerate(f["tb"]) if x.startswith("  File ")] or [0])
                    msg = "\n".join(f["tb"][fi + 2:]) or f["tb"][-1]
                    job.error_json[(f["rank"], job.attempt)] = json.dumps({"message": {"message": msg, "extraInfo": {
                        "py_callstack": tbt, "timestamp": str(int((job.loc(n, f["t"]) - datetime(1970, 1, 1)).total_seconds()))}}})
    if layout == "paste":
        paste_texts(job, healthy)
    files = {"slurm": render_slurm, "torchrun_logdir": render_logdir, "k8s": render_k8s,
             "deepspeed": render_deepspeed, "paste": render_paste}[layout](job) if layout != "paste" else None
    if layout == "paste":
        files = render_paste(job)
    else:
        for k, v in job.files.items():
            files[k] = v
    # size guard (< 1 MB per run)
    for k in list(files):
        if len(files[k].encode()) > 700_000:
            t = files[k]
            files[k] = t[:250_000] + "\n[... truncated by the uploader: file too large ...]\n" + t[-400_000:]
    # truth
    if healthy:
        init = None
    else:
        rank_ok = job.truth_rank is not None and eval_markers(files, job.rank_markers)
        node_ok = job.truth_node is not None and (rank_ok or eval_markers(files, job.node_markers)) and \
            any(job.hosts[job.truth_node] in v for v in files.values())
        init = {"rank": job.truth_rank if rank_ok else None, "node": job.hosts[job.truth_node] if node_ok else None}
        if init["rank"] is None and init["node"] is None:
            init = None
        if job.truth_rank is not None and not rank_ok:
            job.notes.append(f"(rank {job.truth_rank} is the real initiator but the attached logs do not establish it)")
        if layout == "k8s" and job.truth_node is not None and node_ok:
            job.notes.append(f"(pod {job.hosts[job.truth_node]} ran on node {job.k8s_nodes[job.truth_node]})")
    truth = {"healthy": bool(healthy), "cause": None if healthy else cause, "initiator": init, "layout": layout,
             "notes": "; ".join(job.notes) if job.notes else ("clean run" if healthy else "")}
    return files, truth


def _host_oom_info(self):
    return getattr(self, "host_oom", None)


Job.host_oom_info = _host_oom_info


# ====================================================================== main
def seed_num(seed):
    try:
        return int(seed)
    except ValueError:
        return random.Random(f"blind38-seed:{seed}").randint(0, 1000)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args(argv)
    seed = str(a.seed)
    sn = seed_num(seed)
    order = list(CAUSES)
    random.Random(f"blind38-order:{seed}").shuffle(order)
    os.makedirs(a.out, exist_ok=True)
    counts = {c: 0 for c in CAUSES}
    counts["healthy"] = 0
    k_fail = 0
    k_healthy = 0
    for i in range(a.n):
        healthy = (i % 2 == 1)
        if healthy:
            cause = None
            layout = LAYOUTS[(k_healthy + sn) % len(LAYOUTS)]
            hh = k_healthy
            k_healthy += 1
        else:
            cause = order[k_fail % len(order)]
            occ = k_fail // len(order)
            cap = [l for l in LAYOUTS if cause in LAYOUT_CAUSES[l]]
            layout = cap[(CAUSES.index(cause) + 2 * sn + occ) % len(cap)]
            hh = 0
            k_fail += 1
        files, truth = build_run(seed, i, layout, healthy, cause, hh)
        d = os.path.join(a.out, f"run-{i:03d}-{layout}")
        if os.path.isdir(d):
            import shutil
            shutil.rmtree(d)
        os.makedirs(d)
        for rel, txt in sorted(files.items()):
            p = os.path.join(d, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w", encoding="utf-8") as f:
                f.write(txt)
        with open(os.path.join(d, "truth.json"), "w", encoding="utf-8") as f:
            json.dump(truth, f, indent=2)
            f.write("\n")
        counts["healthy" if healthy else cause] += 1
    print(json.dumps(counts, indent=1))


if __name__ == "__main__":
    main()
