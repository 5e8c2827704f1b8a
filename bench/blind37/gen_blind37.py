#!/usr/bin/env python3
"""blind37 -- synthetic log bundles of distributed GPU training jobs that run under
resilience layers (torchrun elastic restarts, Slurm requeue / dependency chains,
Kubernetes JobSet / Job restarts, TorchFT replica groups, NVIDIA Resiliency Extension
ft_launcher and in-process restart, Ray Train FailureConfig, DeepSpeed elastic).

Written blind: message formats come from general knowledge of what the real
programs print, spot-checked against public sources; no code, rules, tests or
corpora of the diagnosis tool were consulted.

Usage:  python3 gen_blind37.py --out DIR --n 60 --seed S
Standard library only.  Deterministic per seed.
"""
import argparse
import datetime as _dt
import json
import os
import random
import shutil
import sys

CAUSES = [
    "gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
    "illegal_memory_access", "python_exception", "host_oom_kill", "crash_signal",
    "preemption", "hang", "data_loader_stall", "collective_mismatch", "straggler",
    "unknown",
]

LAYOUTS = [
    "torchrun_elastic", "slurm_requeue", "slurm_chain", "k8s_jobset",
    "torchft_replicas", "nvrx_ft_launcher", "megatron_inprocess", "ray_train",
    "deepspeed_elastic",
]

INF = float("inf")

# ----------------------------------------------------------------------------
# time formatting (all times are float epoch seconds, rendered as naive UTC-ish
# local wall clock; each host adds its own clock skew before formatting)
# ----------------------------------------------------------------------------

def _d(t):
    return _dt.datetime(1970, 1, 1) + _dt.timedelta(seconds=t)


def f_iso_ms(t):          # 2024-05-01 12:00:00,123
    d = _d(t)
    return d.strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (d.microsecond // 1000)


def f_iso_dot_ms(t):      # 2024-05-01 12:00:00.123
    d = _d(t)
    return d.strftime("%Y-%m-%d %H:%M:%S") + ".%03d" % (d.microsecond // 1000)


def f_iso_s(t):           # 2024-05-01 12:00:00
    return _d(t).strftime("%Y-%m-%d %H:%M:%S")


def f_slurm(t):           # 2024-05-01T12:00:00
    return _d(t).strftime("%Y-%m-%dT%H:%M:%S")


def f_k8s(t):             # 2024-05-01T12:00:00Z
    return _d(t).strftime("%Y-%m-%dT%H:%M:%SZ")


def f_k8s_ns(t):          # 2024-05-01T12:00:00.123456789Z
    d = _d(t)
    return d.strftime("%Y-%m-%dT%H:%M:%S") + ".%06d%03dZ" % (d.microsecond, (int(t * 1e9) % 1000))


def f_glog(t):            # 0501 12:00:00.123456
    d = _d(t)
    return d.strftime("%m%d %H:%M:%S") + ".%06d" % d.microsecond


def f_glog_ns(t):         # 0501 12:00:00.123456789
    d = _d(t)
    return d.strftime("%m%d %H:%M:%S") + ".%06d%03d" % (d.microsecond, int(t * 1e9) % 1000)


def f_ctime(t):           # Wed May  1 12:00:00 2024
    d = _d(t)
    return d.strftime("%a %b ") + ("%2d" % d.day) + d.strftime(" %H:%M:%S %Y")


def f_syslog(t):          # May  1 12:00:00
    d = _d(t)
    return d.strftime("%b ") + ("%2d" % d.day) + d.strftime(" %H:%M:%S")


def f_torchelastic(t):    # 2024-05-01_12:00:00
    return _d(t).strftime("%Y-%m-%d_%H:%M:%S")


def f_hms(sec):
    sec = int(max(0, sec))
    return "%d:%02d:%02d" % (sec // 3600, (sec % 3600) // 60, sec % 60)


def f_elapsed(sec):       # sacct Elapsed 01:02:03 or 1-02:03:04
    sec = int(max(0, sec))
    d, rem = divmod(sec, 86400)
    h, rem = divmod(rem, 3600)
    m, s = divmod(rem, 60)
    if d:
        return "%d-%02d:%02d:%02d" % (d, h, m, s)
    return "%02d:%02d:%02d" % (h, m, s)


def f_age(sec):           # kubectl ages: 5m12s, 3h4m, 2d
    sec = int(max(0, sec))
    if sec < 120:
        return "%ds" % sec
    if sec < 600:
        return "%dm%ds" % (sec // 60, sec % 60)
    if sec < 3 * 3600:
        return "%dm" % (sec // 60)
    if sec < 8 * 3600:
        return "%dh%dm" % (sec // 3600, (sec % 3600) // 60)
    if sec < 2 * 86400:
        return "%dh" % (sec // 3600)
    return "%dd" % (sec // 86400)


# ----------------------------------------------------------------------------
# run context
# ----------------------------------------------------------------------------

GPU_PCI_H100 = ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"]
GPU_PCI_A100 = ["07", "0f", "47", "4e", "87", "90", "b7", "bd"]
NIC_PCI = ["0c", "1c", "4b", "5e", "8c", "9c", "cb", "dc"]


class Host:
    def __init__(self, name, ip, skew, boot, gpu_pci, idx):
        self.name = name
        self.ip = ip
        self.skew = skew
        self.boot = boot
        self.gpu_pci = gpu_pci
        self.idx = idx
        self.agent_pid = 0

    def c(self, t):
        """host wall clock for true time t"""
        return t + self.skew


class Run:
    """Per-run configuration: style knobs, cluster, paths."""

    def __init__(self, rng, layout, idx):
        self.rng = rng
        self.layout = layout
        self.idx = idx
        r = rng
        self.t0 = 1711000000 + r.randint(0, 48000000) + r.random()
        self.tstyle = r.choice(["basic", "bracket", "bracket", "glog", "glog", "glog"])
        self.torch_ver = {"basic": r.choice(["2.0.1", "2.1.2"]),
                          "bracket": r.choice(["2.2.2", "2.3.1"]),
                          "glog": r.choice(["2.4.1", "2.5.1", "2.6.0", "2.7.1"])}[self.tstyle]
        self.nccl_ver = {"basic": r.choice(["2.18.1", "2.18.3"]),
                         "bracket": r.choice(["2.19.3", "2.20.5"]),
                         "glog": r.choice(["2.20.5", "2.21.5", "2.23.4", "2.26.2"])}[self.tstyle]
        self.cuda_ver = {"basic": r.choice(["11.8", "12.1"]), "bracket": r.choice(["12.1", "12.2", "12.4"]),
                         "glog": r.choice(["12.4", "12.6", "12.8"])}[self.tstyle]
        pyv = r.choice(["3.10", "3.10", "3.11", "3.12"])
        self.pyv = pyv
        env = r.choice(["ngc", "conda", "venv"])
        self.user = r.choice(["mchen", "akumar", "jdoe", "svc-train", "lrossi", "tnguyen", "pwang"])
        if env == "ngc":
            self.site = "/usr/local/lib/python%s/dist-packages" % pyv
            self.pybin = "/usr/bin/python"
            self.torchrun_bin = "/usr/local/bin/torchrun"
        elif env == "conda":
            self.site = "/opt/conda/lib/python%s/site-packages" % pyv
            self.pybin = "/opt/conda/bin/python"
            self.torchrun_bin = "/opt/conda/bin/torchrun"
        else:
            user = self.user
            self.site = "/home/%s/.venv/lib/python%s/site-packages" % (user, pyv)
            self.pybin = "/home/%s/.venv/bin/python3" % user
            self.torchrun_bin = "/home/%s/.venv/bin/torchrun" % user
        self.script = r.choice(["train.py", "pretrain.py", "run_train.py", "main.py", "train_lm.py"])
        self.workdir = r.choice(["/workspace", "/home/%s/proj/llm" % self.user, "/mnt/code/trainer",
                                 "/lustre/fsw/%s/repo" % self.user])
        self.ckpt_dir = r.choice(["/checkpoints/%s" % self.user, "/lustre/fsw/%s/ckpt" % self.user,
                                  "/mnt/shared/ckpt/run-%04d" % r.randint(1, 9999), "s3://ml-ckpt/llm-%d" % r.randint(10, 99)])
        self.model = r.choice(["llama3-8b", "llama2-13b", "gpt-1.3b", "mixtral-8x7b", "qwen2-7b", "llama3-70b", "gpt-350m", "t5-xl"])
        self.gpu_kind = r.choice(["H100", "H100", "H100", "A100", "H200"])
        self.gpu_mem = {"H100": 79.11, "A100": 79.15, "H200": 139.81}[self.gpu_kind]
        self.gpn = 8 if r.random() < 0.85 else 4
        self.monitor_interval = 0.1 if self.tstyle == "glog" else 5.0
        self.wd_timeout = r.choice([600, 600, 600, 1800, 1800, 300, 900])
        self.prefix_style = r.choice(["rank", "rank", "none", "default"]) if self.tstyle != "basic" else r.choice(["none", "default"])
        self.framework = r.choice(["plain", "plain", "hf", "titan"])
        self.step_time = r.uniform(0.35, 4.5)
        self.log_every = r.choice([10, 20, 50, 100])
        self.total_steps = r.choice([2000, 5000, 10000, 20000, 50000])
        self.ckpt_every = r.choice([200, 250, 500, 1000])
        self.job_name = r.choice(["llm-pretrain", "sft-run", "moe-exp", "pt-base", "ft-7b", "cpt-run", "lm-train"])
        self.master_port = r.choice([29500, 29500, 29400, 6000, 12355, 23456])
        self.rdzv_id = r.choice(["job", "%s-%d" % (self.job_name, r.randint(100, 999)), "%d" % r.randint(10000, 99999)])
        self.pid_base = r.randint(20000, 3000000)
        self.hosts = []
        self.noise_pool_seed = r.random()
        self.notes = []

    def pid(self):
        self.pid_base += self.rng.randint(3, 41)
        return self.pid_base

    # --- path helpers
    def tp(self, rel):
        return "%s/torch/%s" % (self.site, rel)


def make_hosts(run, n, style=None):
    r = run.rng
    style = style or r.choice(["gpu", "node", "dgx", "ip", "a3", "cw"])
    base = r.randint(1, 180)
    subnet = r.randint(0, 200)
    hosts = []
    used = set()
    pci = GPU_PCI_A100 if run.gpu_kind == "A100" else GPU_PCI_H100
    num = base
    for i in range(n):
        num += r.choice([1, 1, 1, 2, 3, 7])
        while num in used:
            num += 1
        used.add(num)
        ip = "10.%d.%d.%d" % (r.randint(0, 60), subnet + num // 250, num % 250 + 2)
        if style == "gpu":
            name = "gpu%03d" % num
        elif style == "node":
            name = "node-%03d" % num
        elif style == "dgx":
            name = "dgx-%s-%03d" % (run.gpu_kind.lower(), num)
        elif style == "ip":
            name = "ip-" + ip.replace(".", "-")
        elif style == "a3":
            name = "a3-highgpu-%d-%03d" % (run.gpn, num)
        else:
            name = "g%dn%03d" % (r.randint(1, 9), num)
        skew = r.gauss(0, 1.2)
        if r.random() < 0.12:
            skew += r.choice([-1, 1]) * r.uniform(8, 95)
        boot = run.t0 - r.uniform(3 * 86400, 80 * 86400)
        h = Host(name, ip, skew, boot, pci[:run.gpn] if run.gpn == 8 else pci[::2][:run.gpn], i)
        h.agent_pid = run.pid()
        hosts.append(h)
    return hosts


# ----------------------------------------------------------------------------
# small text helpers
# ----------------------------------------------------------------------------

def hexaddr(r, base=0x7f):
    return "0x%02x%010x" % (base, r.getrandbits(40))


def uuid4(r):
    h = "%032x" % r.getrandbits(128)
    return "%s-%s-4%s-%s%s-%s" % (h[:8], h[8:12], h[13:16], "89ab"[int(h[16], 16) % 4], h[17:20], h[20:32])


def gpu_uuid(r):
    return "GPU-" + uuid4(r)


def gib(x):
    return "%.2f GiB" % x


def human_bytes_k(kb):
    return "%dkB" % kb


def cpp_frames(run, r, kind="watchdog", n=None):
    lib = run.tp("lib")
    frames = []
    if kind == "watchdog":
        items = [
            ("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "libc10.so"),
            ("c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2", "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x233", "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", "libtorch_cuda.so"),
            ("<unknown function> + 0xdc253", "/lib/x86_64-linux-gnu/libstdc++.so.6"),
            ("<unknown function> + 0x94ac3", "/lib/x86_64-linux-gnu/libc.so.6"),
            ("clone + 0x44", "/lib/x86_64-linux-gnu/libc.so.6"),
        ]
    elif kind == "cuda":
        items = [
            ("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "libc10.so"),
            ("c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64", "libc10.so"),
            ("c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118", "libc10_cuda.so"),
            ("<unknown function> + 0x1de8b76", "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x58", "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::WorkNCCL::isCompleted() + 0x70", "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x1f8", "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", "libtorch_cuda.so"),
            ("<unknown function> + 0xdc253", "/lib/x86_64-linux-gnu/libstdc++.so.6"),
            ("<unknown function> + 0x94ac3", "/lib/x86_64-linux-gnu/libc.so.6"),
            ("clone + 0x44", "/lib/x86_64-linux-gnu/libc.so.6"),
        ]
    else:
        items = [
            ("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "libc10.so"),
            ("<unknown function> + 0x11c4a01", "libtorch_cuda.so"),
            ("<unknown function> + 0xdc253", "/lib/x86_64-linux-gnu/libstdc++.so.6"),
            ("<unknown function> + 0x94ac3", "/lib/x86_64-linux-gnu/libc.so.6"),
            ("clone + 0x44", "/lib/x86_64-linux-gnu/libc.so.6"),
        ]
    if n:
        items = items[:n]
    for i, (fn, so) in enumerate(items):
        path = so if so.startswith("/") else "%s/%s" % (lib, so)
        frames.append("frame #%d: %s (%s in %s)" % (i, fn, hexaddr(r), path))
    return frames


def py_tb(frames, exc_lines):
    out = ["Traceback (most recent call last):"]
    for (f, ln, fn, code) in frames:
        out.append('  File "%s", line %d, in %s' % (f, ln, fn))
        if code:
            out.append("    " + code)
    out.extend(exc_lines)
    return out


def app_frames(run, where="step"):
    """frames of the user training script leading to a given call site"""
    s = "%s/%s" % (run.workdir, run.script)
    fw = run.framework
    fr = [(s, run.rng.randint(500, 900), "<module>", "main()")]
    if fw == "hf":
        fr.append((s, run.rng.randint(300, 480), "main", "train_result = trainer.train(resume_from_checkpoint=checkpoint)"))
        fr.append(("%s/transformers/trainer.py" % run.site, 2123, "train", "return inner_training_loop("))
        if where == "data":
            fr.append(("%s/transformers/trainer.py" % run.site, 2427, "_inner_training_loop", "batch_samples, num_items_in_batch = self.get_batch_samples(epoch_iterator, num_batches)"))
            fr.append(("%s/accelerate/data_loader.py" % run.site, 552, "__iter__", "current_batch = next(dataloader_iter)"))
        else:
            fr.append(("%s/transformers/trainer.py" % run.site, 2481, "_inner_training_loop", "tr_loss_step = self.training_step(model, inputs, num_items_in_batch)"))
            fr.append(("%s/transformers/trainer.py" % run.site, 3612, "training_step", "self.accelerator.backward(loss, **kwargs)"))
    elif fw == "titan":
        fr.append((s, run.rng.randint(400, 600), "main", "trainer.train()"))
        fr.append(("%s/torchtitan/train.py" % run.workdir, 531, "train", "self.train_step(data_iterator)"))
        if where == "data":
            fr.append(("%s/torchtitan/train.py" % run.workdir, 388, "train_step", "input_dict, labels = self.next_batch(data_iterator)"))
        else:
            fr.append(("%s/torchtitan/train.py" % run.workdir, 455, "train_step", "loss = self.forward_backward_step(input_dict, labels)"))
    else:
        fr.append((s, run.rng.randint(300, 480), "main", "train(cfg, model, optimizer, loader)"))
        if where == "data":
            fr.append((s, run.rng.randint(150, 290), "train", "batch = next(data_iter)"))
        else:
            fr.append((s, run.rng.randint(150, 290), "train", "loss = train_step(model, batch, optimizer, scaler)"))
            fr.append((s, run.rng.randint(90, 149), "train_step", "loss.backward()"))
    return fr


def tqdm_line(step, total, elapsed, rate):
    pct = int(100.0 * step / max(1, total))
    fill = int(10 * step / max(1, total))
    part = " ▏▎▍▌▋▊▉"[int(80 * step / max(1, total)) % 8] if fill < 10 else ""
    bar = "█" * fill + (part if fill < 10 else "")
    bar = bar + " " * (10 - len(bar))
    remain = (total - step) * rate
    return "%3d%%|%s| %d/%d [%s<%s, %5.2fs/it]" % (pct, bar[:10], step, total, f_hms(elapsed)[2 if elapsed < 3600 else 0:],
                                                 f_hms(remain)[2 if remain < 3600 else 0:], rate)

# ----------------------------------------------------------------------------
# Rank-level simulation of one attempt ("segment") of a collective training job
# ----------------------------------------------------------------------------

WARN_POOL = [
    ["{site}/torch/utils/checkpoint.py:295: FutureWarning: `torch.cpu.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cpu', args...)` instead.",
     "  with torch.enable_grad(), device_autocast_ctx, torch.cpu.amp.autocast(**ctx.cpu_autocast_kwargs):  # type: ignore[attr-defined]"],
    ["{site}/torch/_utils.py:831: UserWarning: TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class. This should only matter to you if you are using storages directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
     "  return self.fget.__get__(instance, owner)()"],
    ["{site}/torch/distributed/fsdp/_init_utils.py:440: UserWarning: FSDP is switching to use `NO_SHARD` instead of ShardingStrategy.SHARD_GRAD_OP since the world size is 1.",
     "  warnings.warn("],
    ["{site}/transformers/training_args.py:1575: FutureWarning: `evaluation_strategy` is deprecated and will be removed in version 4.46 of 🤗 Transformers. Use `eval_strategy` instead",
     "  warnings.warn("],
    ["{site}/torch/utils/data/dataloader.py:617: UserWarning: This DataLoader will create 16 worker processes in total. Our suggested max number of worker in current system is 12, which is smaller than what this DataLoader is going to create. Please be aware that excessive worker creation might get DataLoader running slow or even freeze, lower the worker number to avoid potential slowness/freeze if necessary.",
     "  warnings.warn("],
    ["{site}/torch/nn/modules/module.py:1747: UserWarning: Using a non-full backward hook when the forward contains multiple autograd Nodes is deprecated and will be removed in future versions. This hook will be missing some grad_input. Please use register_full_backward_hook to get the documented behavior.",
     "  warnings.warn(\"Using a non-full backward hook when the forward contains multiple autograd Nodes \""],
    ["{site}/torch/distributed/c10d_logger.py:83: FutureWarning: `torch.distributed._all_gather_base` is a private function and will be deprecated. Please use `torch.distributed.all_gather_into_tensor` instead.",
     "  return func(*args, **kwargs)"],
    ["{site}/requests/__init__.py:109: RequestsDependencyWarning: urllib3 (2.2.1) or chardet (None)/charset_normalizer (3.3.2) doesn't match a supported version!",
     "  warnings.warn("],
]

CPP_WARN_POOL = [
    ("W", "ProcessGroupNCCL.cpp:4115", "Warning: {pg}using GPU {lr} to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect.Specify device_ids in barrier() to force use of a particular device,or call init_process_group() with a device_id."),
    ("W", "CUDAAllocatorConfig.h:28", "Warning: expandable_segments not supported on this platform (function operator())"),
    ("W", "Utils.hpp:164", "Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated; use TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function operator())"),
    ("W", "socket.cpp:752", "[c10d] The client socket cannot be initialized to connect to [localhost]:{port} (errno: 97 - Address family not supported by protocol)."),
]


class Sim:
    """One attempt: per-rank stdout/stderr lines, host kernel lines, and exits."""

    def __init__(self, run, hosts, t0, step0, attempt_no=0, restart_count=0, world_ranks=None):
        self.run = run
        self.r = run.rng
        self.hosts = hosts
        self.gpn = run.gpn
        self.world = len(hosts) * self.gpn
        self.ranks = []          # rank -> (host, local_rank, pid)
        for h in hosts:
            for lr in range(self.gpn):
                self.ranks.append((h, lr, run.pid()))
        self.out = [[] for _ in range(self.world)]
        self.kern = {h.name: [] for h in hosts}
        self.exits = {}          # rank -> (t, exitcode)
        self.hung = set()
        self.t0 = t0
        self.step0 = step0
        self.step = step0
        self.last_ckpt = step0
        self.attempt_no = attempt_no
        self.restart_count = restart_count
        self.extra = {}          # extra files (name -> text)
        self.init = None         # dict(rank=, host=) established initiator for a fault
        self.t_fault = None
        self.t_ready = t0
        self.t_end = None
        self.seq = 0
        self.op = self.r.choice(["ALLREDUCE", "ALLREDUCE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE"])
        self.numel = self.r.choice([262144, 1048576, 4194304, 16777216, 67108864, 131072000])
        self.note = ""
        self.slow = {}           # rank -> factor (straggler)
        self.stop_lines = {}     # rank -> t after which output is suppressed (killed)
        self.pg_txt = "[PG ID 0 PG GUID 0(default_pg) Rank %d]" if run.torch_ver >= "2.5" else "[PG 0 Rank %d]"
        self.nccl_debug = None
        self.info_ranks = []
        self._t_prog = t0

    # ---------------------------------------------------------------- helpers
    def nccl_info_has(self, rank):
        return rank in getattr(self, "info_ranks", [])

    def host_of(self, rank):
        return self.ranks[rank][0]

    def rank_of(self, host, lr):
        return self.hosts.index(host) * self.gpn + lr

    def emit(self, rank, t, text):
        self.out[rank].append((t, text))

    def emit_many(self, rank, t, lines, dt=0.0003):
        for i, ln in enumerate(lines):
            self.out[rank].append((t + i * dt, ln))
        return t + len(lines) * dt

    def klog(self, host, t, msg):
        self.kern[host.name].append((t, msg))

    def cpp(self, rank, t, level, fileline, msg):
        """c10 logging line (without launcher prefix)."""
        run = self.run
        h = self.host_of(rank)
        if run.tstyle == "glog":
            return "[%s%s %s] %s" % (level, f_glog_ns(h.c(t)), fileline, msg)
        return "[%s %s] %s" % (level, fileline, msg)

    def pg(self, rank):
        return self.pg_txt % rank

    def nccl(self, rank, t, level, msg, src=None):
        h, lr, pid = self.ranks[rank]
        tid = pid + self.r.choice([0, 0, 7, 19, 33, 121])
        if level == "WARN" and src:
            return "%s:%d:%d [%d] %s NCCL WARN %s" % (h.name, pid, tid, lr, src, msg)
        return "%s:%d:%d [%d] NCCL %s %s" % (h.name, pid, tid, lr, level, msg)

    def seq_for_step(self, step):
        return 37 + step * self.r.choice([1, 2, 3, 4]) if not self.seq else self.seq

    # ---------------------------------------------------------------- startup
    def startup(self, nccl_debug=None, resume_step=None, quiet=False):
        run, r = self.run, self.r
        t = self.t0 + r.uniform(4, 14)
        warn_sel = r.sample(range(len(WARN_POOL)), r.randint(1, 3))
        noisy_ranks = list(range(self.world)) if self.world <= 16 else sorted(r.sample(range(self.world), self.world // 2))
        if quiet:
            noisy_ranks = [0]
        for rank in noisy_ranks:
            tt = t + r.uniform(0, 6)
            for wi in warn_sel:
                for ln in WARN_POOL[wi]:
                    self.emit(rank, tt, ln.format(site=run.site))
                    tt += 0.001
            if r.random() < 0.35:
                lvl, fl, msg = CPP_WARN_POOL[r.randrange(len(CPP_WARN_POOL))]
                self.emit(rank, tt + 1, self.cpp(rank, tt + 1, lvl, fl, msg.format(pg=self.pg(rank) + " " if run.tstyle == "glog" else "", lr=self.ranks[rank][1], port=run.master_port)))
        t_nccl = t + r.uniform(8, 30)
        self.nccl_debug = nccl_debug
        self.info_ranks = []
        self.oob_if = getattr(run, "oob_if", None) or run.rng.choice(["eth0", "ens3", "bond0", "ibp12s0"])
        run.oob_if = self.oob_if
        if nccl_debug:
            h0, _, pid0 = self.ranks[0]
            self.emit(0, t_nccl, self.nccl(0, t_nccl, "INFO", "Bootstrap : Using %s:%s<0>" % (self.oob_if, h0.ip)))
            self.emit(0, t_nccl + 0.01, self.nccl(0, t_nccl, "INFO", "NCCL version %s+cuda%s" % (run.nccl_ver, run.cuda_ver)))
            for rank in range(self.world):
                h, lr, pid = self.ranks[rank]
                tt = t_nccl + 0.2 + r.uniform(0, 2)
                if nccl_debug == "INFO" and (self.world <= 16 or rank % 4 == 0 or rank < 8):
                    self.info_ranks.append(rank)
                    comm = hexaddr(r, 0x55)
                    cid = r.getrandbits(60)
                    lines = [
                        "NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin." if run.nccl_ver >= "2.19" else
                        "NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation",
                        "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB [4]mlx5_4:1/IB [5]mlx5_5:1/IB [6]mlx5_6:1/IB [7]mlx5_7:1/IB ; OOB %s:%s<0>" % (self.oob_if, h.ip),
                        "Using network IB",
                        "comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId 0x%x - Init START" % (comm, rank, self.world, lr, lr, h.gpu_pci[lr], cid),
                        "Connected all rings",
                        "Connected all trees",
                        "comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId 0x%x - Init COMPLETE" % (comm, rank, self.world, lr, lr, h.gpu_pci[lr], cid),
                    ]
                    if run.nccl_ver < "2.19":
                        lines[3] = "cudaDev %d busId %s000 commId 0x%x - Init START" % (lr, h.gpu_pci[lr], cid)
                        lines[6] = "comm %s rank %d nranks %d cudaDev %d busId %s000 commId 0x%x - Init COMPLETE" % (comm, rank, self.world, lr, h.gpu_pci[lr], cid)
                    for ln in lines:
                        self.emit(rank, tt, self.nccl(rank, tt, "INFO", ln))
                        tt += r.uniform(0.001, 0.2)
        self.t_ready = t_nccl + r.uniform(15, 90)
        # rank0 banner / resume
        t = self.t_ready - r.uniform(5, 12)
        lines = []
        if run.framework == "titan":
            lines.append("[titan] %s - root - INFO - Starting job: %s training" % (f_iso_ms(self.host_of(0).c(t)), run.model))
            lines.append("[titan] %s - root - INFO - Building %dD device mesh with ['dp_shard'], [%d]" % (f_iso_ms(self.host_of(0).c(t)), 1, self.world))
        elif run.framework == "hf":
            lines.append("***** Running training *****")
            lines.append("  Num examples = %s" % format(r.randint(10**6, 5 * 10**7), ","))
            lines.append("  Num Epochs = %d" % r.choice([1, 1, 2, 3]))
            lines.append("  Instantaneous batch size per device = %d" % r.choice([1, 2, 4, 8]))
            lines.append("  Total optimization steps = %s" % format(run.total_steps, ","))
        elif run.framework == "megatron":
            pass
        else:
            lines.append("[%s][%s][INFO] world_size=%d model=%s global_batch=%d seq_len=%d" % (
                f_iso_ms(self.host_of(0).c(t)), "train", self.world, run.model, r.choice([256, 512, 1024, 2048]), r.choice([2048, 4096, 8192])))
        if resume_step is not None and resume_step > 0:
            ck = "%s/step_%d" % (run.ckpt_dir, resume_step)
            if run.framework == "hf":
                lines.append("  Continuing training from checkpoint, will skip to saved global_step")
                lines.append("  Continuing training from global step %d" % resume_step)
            elif run.framework == "titan":
                lines.append("[titan] %s - root - INFO - Loading the checkpoint at step %d." % (f_iso_ms(self.host_of(0).c(t)), resume_step))
                lines.append("[titan] %s - root - INFO - Finished loading the checkpoint in %.2f seconds." % (f_iso_ms(self.host_of(0).c(t + 20)), r.uniform(8, 90)))
            elif run.framework == "megatron":
                lines.append(" loading distributed checkpoint from %s at iteration %d" % (run.ckpt_dir, resume_step))
                lines.append("  successfully loaded checkpoint from %s [ t 1/%d, p 1/%d ] at iteration %d" % (run.ckpt_dir, r.choice([1, 2, 4, 8]), r.choice([1, 2, 4]), resume_step))
            else:
                lines.append("[%s][ckpt][INFO] Resuming from checkpoint step %d (%s)" % (f_iso_ms(self.host_of(0).c(t)), resume_step, ck))
        elif run.framework == "plain":
            lines.append("[%s][ckpt][INFO] No checkpoint found in %s, starting from scratch" % (f_iso_ms(self.host_of(0).c(t)), run.ckpt_dir))
        self.emit_many(0, t, lines, 0.01)
        self.step = self.step0
        self.last_ckpt = self.step0
        return self.t_ready

    # ---------------------------------------------------------------- progress
    def loss_at(self, step):
        import math
        return 1.9 + 6.5 * math.exp(-step / 2500.0) + self.r.uniform(-0.06, 0.06)

    def progress_line(self, t, step, st, slow_rank=None):
        run, r = self.run, self.r
        h = self.host_of(0)
        loss = self.loss_at(step)
        lr = 3e-4 * min(1.0, step / 500.0 + 0.01)
        if run.framework == "hf":
            elapsed = t - self.t_ready
            if r.random() < 0.5:
                return ["{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %.3e, 'epoch': %.2f}" % (loss, r.uniform(0.2, 1.4), lr, step / run.total_steps),
                        tqdm_line(step, run.total_steps, elapsed + step * 0.0, st)]
            return [tqdm_line(step, run.total_steps, elapsed, st)]
        if run.framework == "titan":
            mem = r.uniform(0.55, 0.92) * run.gpu_mem
            return ["[titan] %s - root - INFO - step: %d  loss: %7.4f  memory: %.2fGiB(%.2f%%)  tps: %s  tflops: %.2f  mfu: %.2f%%" % (
                f_iso_ms(h.c(t)), step, loss, mem, 100 * mem / run.gpu_mem, format(int(8192 / st), ","), 380 / st * r.uniform(0.9, 1.1), 38 / st * r.uniform(0.9, 1.1))]
        if run.framework == "deepspeed":
            h = self.host_of(0)
            return ["[%s] [INFO] [logging.py:128:log_dist] [Rank 0] step=%d, skipped=0, lr=[%.6e], mom=[(0.9, 0.95)]" % (f_iso_ms(h.c(t)), step, lr),
                    "steps: %d loss: %.4f iter time (s): %.3f samples/sec: %.3f" % (step, loss, st, 512 / st)]
        if run.framework == "megatron":
            return [" [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | learning rate: %.6E | global batch size: %5d | lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f | number of skipped iterations:   0 | number of nan iterations:   0 |" % (
                f_iso_s(h.c(t)), step, run.total_steps, step * 1024, st * 1000, lr, 1024, loss, r.uniform(0.2, 1.5))]
        return ["[%s][train][INFO] step %d/%d | loss %.4f | lr %.2e | grad_norm %.3f | %.1f ms/step | %.2fM tok/s" % (
            f_iso_ms(h.c(t)), step, run.total_steps, loss, lr, r.uniform(0.2, 1.5), st * 1000, 8.0 / st * self.world / 64)]

    def ckpt_lines(self, t, step):
        run, r = self.run, self.r
        h = self.host_of(0)
        if run.framework == "hf":
            return ["Saving model checkpoint to ./output/checkpoint-%d" % step,
                    "Configuration saved in ./output/checkpoint-%d/config.json" % step]
        if run.framework == "titan":
            return ["[titan] %s - root - INFO - Saving the checkpoint (or staging if async is enabled)." % f_iso_ms(h.c(t)),
                    "[titan] %s - root - INFO - [GC] GC collection invoked by checkpointer. 0.03 seconds." % f_iso_ms(h.c(t + 0.5)),
                    "[titan] %s - root - INFO - Finished saving the checkpoint (or staging if async is enabled)in %.2f seconds." % (f_iso_ms(h.c(t + 9)), r.uniform(4, 40))]
        if run.framework == "megatron":
            return ["saving checkpoint at iteration %7d to %s in torch_dist format" % (step, run.ckpt_dir),
                    "  successfully saved checkpoint from iteration %7d to %s [ t 1/4, p 1/2 ]" % (step, run.ckpt_dir)]
        return ["[%s][ckpt][INFO] Saved checkpoint step %d to %s/step_%d (%.1fs)" % (f_iso_ms(h.c(t)), step, run.ckpt_dir, step, r.uniform(5, 60))]

    def progress(self, t_to, slow_factor=1.0, slow_from=None, max_lines=160):
        """advance training from current state until t_to. returns last step."""
        run, r = self.run, self.r
        t = max(self.t_ready, self._t_prog)
        st_base = run.step_time
        step = self.step
        le = run.log_every
        n_est = (t_to - t) / st_base / le
        if n_est > max_lines:
            le = int(le * (n_est / max_lines) // 10 * 10 + 10)
        while True:
            f = slow_factor if (slow_from is not None and t >= slow_from) else 1.0
            st = st_base * f * r.uniform(0.97, 1.04)
            nxt = t + st * le
            if nxt > t_to or step + le > run.total_steps:
                break
            t = nxt
            step += le
            self.emit_many(0, t, self.progress_line(t, step, st), 0.001)
            if step // run.ckpt_every > (step - le) // run.ckpt_every:
                ck = (step // run.ckpt_every) * run.ckpt_every
                self.emit_many(0, t + 0.5, self.ckpt_lines(t + 0.5, ck), 0.05)
                self.last_ckpt = ck
                t += r.uniform(3, 20)
        self.step = step
        self._t_prog = t
        return step

    def finish_success(self):
        """train to the end and exit 0 everywhere."""
        run, r = self.run, self.r
        remaining = run.total_steps - self.step
        t_end = self._t_prog_or_ready() + remaining * run.step_time * 1.01 + 5
        self.progress(t_end)
        t = max(self._t_prog, t_end - 2)
        h = self.host_of(0)
        if run.framework == "hf":
            self.emit_many(0, t, ["", "", "Training completed. Do not forget to share your model on huggingface.co/models =)", "",
                                   "{'train_runtime': %.4f, 'train_samples_per_second': %.3f, 'train_steps_per_second': %.3f, 'train_loss': %.4f, 'epoch': 1.0}" % (t - self.t_ready, r.uniform(10, 300), 1 / run.step_time, self.loss_at(run.total_steps) + 0.2),
                                   "Saving model checkpoint to ./output"], 0.01)
        elif run.framework == "titan":
            self.emit_many(0, t, ["[titan] %s - root - INFO - Training completed" % f_iso_ms(h.c(t)),
                                   "[titan] %s - root - INFO - Sleeping 2 seconds for other ranks to complete" % f_iso_ms(h.c(t + 0.1))], 0.01)
        elif run.framework == "megatron":
            self.emit_many(0, t, ["saving checkpoint at iteration %7d to %s in torch_dist format" % (run.total_steps, run.ckpt_dir),
                                   "  successfully saved checkpoint from iteration %7d to %s [ t 1/4, p 1/2 ]" % (run.total_steps, run.ckpt_dir),
                                   "[after training is done] datetime: %s " % f_iso_s(h.c(t + 30))], 0.5)
        else:
            self.emit_many(0, t, ["[%s][train][INFO] reached max_steps=%d, saving final checkpoint" % (f_iso_ms(h.c(t)), run.total_steps),
                                   "[%s][ckpt][INFO] Saved checkpoint step %d to %s/step_%d (%.1fs)" % (f_iso_ms(h.c(t + 30)), run.total_steps, run.ckpt_dir, run.total_steps, r.uniform(10, 60)),
                                   "[%s][train][INFO] done. total time %s" % (f_iso_ms(h.c(t + 31)), f_hms(t - self.t0))], 0.3)
        for rank in range(self.world):
            self.exits[rank] = (t + 35 + r.uniform(0, 4), 0)
        self.step = run.total_steps
        self.t_end = t + 40
        return self.t_end

    def _t_prog_or_ready(self):
        return max(self.t_ready, self._t_prog)

    # ------------------------------------------------------------ collateral
    def wd_block(self, rank, t, seq, op=None, numel=None, last_done=None, ran_ms=None):
        """NCCL watchdog timeout block for one rank; returns lines"""
        run, r = self.run, self.r
        op = op or self.op
        numel = numel or self.numel
        tmo = run.wd_timeout * 1000
        ran = ran_ms or (tmo + r.randint(5, 400))
        last_done = seq - 1 if last_done is None else last_done
        work = "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (seq, op, numel, numel * (self.world if op == "_ALLGATHER_BASE" else 1) if op != "_REDUCE_SCATTER_BASE" else numel // self.world, tmo)
        first = "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (rank, work, ran)
        L = []
        if run.tstyle == "basic":
            L.append(self.cpp(rank, t, "E", "ProcessGroupNCCL.cpp:475", first))
            L.append(self.cpp(rank, t, "E", "ProcessGroupNCCL.cpp:489", "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data."))
            L.append(self.cpp(rank, t, "E", "ProcessGroupNCCL.cpp:495", "To avoid data inconsistency, we are taking the entire process down."))
            L.append(self.cpp(rank, t, "E", "ProcessGroupNCCL.cpp:916", "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (rank, first)))
            L.append("terminate called after throwing an instance of 'std::runtime_error'")
            L.append("  what():  [Rank %d] NCCL watchdog thread terminated with exception: %s" % (rank, first))
            return L
        if run.tstyle == "bracket":
            L.append(self.cpp(rank, t, "E", "ProcessGroupNCCL.cpp:563", first))
            L.append(self.cpp(rank, t, "E", "ProcessGroupNCCL.cpp:1537", "%s Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (self.pg(rank), seq, seq, last_done)))
            L.append(self.cpp(rank, t, "E", "ProcessGroupNCCL.cpp:577", "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % rank))
            L.append(self.cpp(rank, t, "E", "ProcessGroupNCCL.cpp:583", "[Rank %d] To avoid data inconsistency, we are taking the entire process down." % rank))
            L.append(self.cpp(rank, t, "E", "ProcessGroupNCCL.cpp:1414", "%s Process group watchdog thread terminated with exception: %s" % (self.pg(rank), first)))
            L.append("Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:565 (most recent call first):")
            L.extend(cpp_frames(run, r, "watchdog", 5))
            L.append("")
            L.append("terminate called after throwing an instance of 'c10::DistBackendError'")
            L.append("  what():  %s Process group watchdog thread terminated with exception: %s" % (self.pg(rank), first))
            L.append("Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:565 (most recent call first):")
            L.extend(cpp_frames(run, r, "watchdog", 5))
            return L
        L.append(self.cpp(rank, t, "E", "ProcessGroupNCCL.cpp:616", first))
        L.append(self.cpp(rank, t, "E", "ProcessGroupNCCL.cpp:1785", "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (self.pg(rank), seq, seq, last_done)))
        L.append(self.cpp(rank, t, "E", "ProcessGroupNCCL.cpp:1834", "%s Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (self.pg(rank), seq, seq, last_done)))
        L.append(self.cpp(rank, t, "E", "ProcessGroupNCCL.cpp:630", "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % rank))
        L.append(self.cpp(rank, t, "E", "ProcessGroupNCCL.cpp:636", "[Rank %d] To avoid data inconsistency, we are taking the entire process down." % rank))
        L.append(self.cpp(rank, t, "E", "ProcessGroupNCCL.cpp:1595", "%s Process group watchdog thread terminated with exception: %s" % (self.pg(rank), first)))
        L.append("Exception raised from checkTimeout at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:618 (most recent call first):")
        L.extend(cpp_frames(run, r, "watchdog", 5))
        L.append("")
        L.append("terminate called after throwing an instance of 'c10::DistBackendError'")
        L.append("  what():  %s Process group watchdog thread terminated with exception: %s" % (self.pg(rank), first))
        L.append("Exception raised from checkTimeout at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:618 (most recent call first):")
        L.extend(cpp_frames(run, r, "watchdog", 4))
        L.append("")
        L.append("Exception raised from ncclCommWatchdog at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1601 (most recent call first):")
        L.extend(cpp_frames(run, r, "other", 4))
        return L

    def survivors_watchdog(self, t_f, seq, exclude=(), jitter=(0.0, 2.5), op_for=None, last_done_for=None, dump_hint_from=None):
        """all ranks except exclude/hung/exited time out on the collective."""
        run, r = self.run, self.r
        for rank in range(self.world):
            if rank in exclude or rank in self.exits or rank in self.hung:
                continue
            t = t_f + run.wd_timeout + r.uniform(*jitter)
            op = op_for(rank) if op_for else None
            ld = last_done_for(rank) if last_done_for else None
            self.emit_many(rank, t, self.wd_block(rank, t, seq, op=op, last_done=ld))
            self.exits[rank] = (t + r.uniform(0.2, 1.5), -6)

    def remote_err_block(self, rank, t, last_error, kind="remote"):
        run, r = self.run, self.r
        if kind == "remote":
            emsg = "NCCL error: remote process exited or there was a network error, NCCL version %s" % run.nccl_ver
            ename = "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely."
        else:
            emsg = "NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % run.nccl_ver
            ename = "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. "
        L = []
        if run.tstyle == "basic" or run.nccl_ver < "2.19" and kind == "remote":
            emsg = "NCCL error: unhandled system error, NCCL version %s" % run.nccl_ver
            ename = "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. "
        L.append(self.cpp(rank, t, "E", "ProcessGroupNCCL.cpp:1664" if run.tstyle == "glog" else "ProcessGroupNCCL.cpp:1182",
                          "%s Process group watchdog thread terminated with exception: %s" % (self.pg(rank), emsg)))
        L.append(ename)
        L.append("Last error:")
        L.append(last_error)
        L.append("Exception raised from checkForNCCLErrorsInternal at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2027 (most recent call first):")
        L.extend(cpp_frames(run, r, "other", 4))
        L.append("")
        L.append("terminate called after throwing an instance of 'c10::DistBackendError'")
        L.append("  what():  %s Process group watchdog thread terminated with exception: %s" % (self.pg(rank), emsg))
        L.append(ename)
        L.append("Last error:")
        L.append(last_error)
        return L

    def dist_backend_tb(self, rank, emsg_lines, where="step"):
        run = self.run
        fr = app_frames(run, where)
        fr = fr + [
            (run.tp("distributed/c10d_logger.py"), 83, "wrapper", "return func(*args, **kwargs)"),
            (run.tp("distributed/distributed_c10d.py"), 2501, "all_reduce", "work = group.allreduce([tensor], opts)"),
        ]
        return py_tb(fr, emsg_lines)

# ----------------------------------------------------------------------------
# Fault injection: what the initiator, the kernel and the survivors print
# ----------------------------------------------------------------------------

CUDA_ASYNC = ["CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
              "For debugging consider passing CUDA_LAUNCH_BLOCKING=1"]


def cuda_tail(run):
    if run.torch_ver >= "2.1":
        return CUDA_ASYNC + ["Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", ""]
    return CUDA_ASYNC + [""]


def cuda_wd_exit(sim, rank, t, err):
    """the rank's own watchdog trips over a CUDA error -> abort (-6)"""
    run, r = sim.run, sim.r
    L = []
    if run.tstyle == "basic":
        L.append("terminate called after throwing an instance of 'c10::Error'")
        L.append("  what():  CUDA error: %s" % err)
        L.extend(cuda_tail(run))
        L.append("Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:44 (most recent call first):")
        L.extend(cpp_frames(run, r, "cuda", 6))
    else:
        L.append(sim.cpp(rank, t, "E", "ProcessGroupNCCL.cpp:1595" if run.tstyle == "glog" else "ProcessGroupNCCL.cpp:1414",
                         "%s Process group watchdog thread terminated with exception: CUDA error: %s" % (sim.pg(rank), err)))
        L.extend(cuda_tail(run))
        L.append("Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):")
        L.extend(cpp_frames(run, r, "cuda", 8))
        L.append("")
        L.append("terminate called after throwing an instance of 'c10::DistBackendError'")
        L.append("  what():  %s Process group watchdog thread terminated with exception: CUDA error: %s" % (sim.pg(rank), err))
        L.extend(cuda_tail(run))
        L.append("Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):")
        L.extend(cpp_frames(run, r, "cuda", 5))
    sim.emit_many(rank, t, L)
    sim.exits[rank] = (t + r.uniform(0.3, 2.0), -6)


def cuda_py_exit(sim, rank, t, err, where="step"):
    run, r = sim.run, sim.r
    fr = app_frames(run, where)
    if where == "step":
        fr.append((run.tp("_tensor.py"), 581 if run.torch_ver >= "2.4" else 522, "backward", "torch.autograd.backward("))
        fr.append((run.tp("autograd/__init__.py"), 347 if run.torch_ver >= "2.4" else 266, "backward", "_engine_run_backward("))
    L = py_tb(fr, ["RuntimeError: CUDA error: %s" % err] + cuda_tail(run)[:-1])
    sim.emit_many(rank, t, L)
    sim.exits[rank] = (t + r.uniform(1.0, 6.0), 1)


def allreduce_frames(run):
    fr = app_frames(run, "step")
    last = fr[-1]
    fr = fr[:-1] + [(last[0], last[1], last[2], "dist.all_reduce(loss_sum, op=dist.ReduceOp.SUM)" if run.framework != "hf" else "self.accelerator.backward(loss, **kwargs)")]
    fr.append((run.tp("distributed/c10d_logger.py"), 83 if run.torch_ver >= "2.4" else 75, "wrapper", "return func(*args, **kwargs)"))
    fr.append((run.tp("distributed/distributed_c10d.py"), 2501 if run.torch_ver >= "2.4" else 2219, "all_reduce", "work = group.allreduce([tensor], opts)"))
    return fr


def kern_nvrm(h, lr):
    return "PCI:0000:%s:00" % h.gpu_pci[lr]


# ---------------------------------------------------------------- causes

def fault_gpu_hardware(sim, h, lr, t, v=None):
    r, run = sim.r, sim.run
    rank = sim.rank_of(h, lr)
    pid = sim.ranks[rank][2]
    pci = h.gpu_pci[lr]
    v = v or r.choice(["xid79_err", "xid79_err", "xid79_silent", "xid119"])
    info = {"rank": rank, "node": h.name, "variant": v}
    if v.startswith("xid79"):
        sim.klog(h, t, "NVRM: GPU at PCI:0000:%s:00: %s" % (pci, gpu_uuid(r)))
        sim.klog(h, t + 0.001, "NVRM: Xid (PCI:0000:%s:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." % pci)
        sim.klog(h, t + 0.002, "NVRM: GPU 0000:%s:00.0: GPU has fallen off the bus." % pci)
        if r.random() < 0.6:
            sim.klog(h, t + 0.01, "NVRM: Xid (PCI:0000:%s:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)" % pci)
        sim.klog(h, t + 0.3, "NVRM: A GPU crash dump has been created. If possible, please run")
        sim.klog(h, t + 0.301, "NVRM: nvidia-bug-report.sh as root to collect this data before")
        sim.klog(h, t + 0.302, "NVRM: the NVIDIA kernel module is unloaded.")
        if v == "xid79_err":
            cuda_wd_exit(sim, rank, t + r.uniform(0.5, 25), r.choice(["unspecified launch failure", "unknown error"]))
        else:
            sim.hung.add(rank)
            info["rank"] = rank if sim.nccl_info_has(rank) else None
            sim.extra["nvidia-smi_%s.txt" % h.name] = "Unable to determine the device handle for GPU0000:%s:00.0: Unknown Error\n" % pci.upper()
        seq = sim.seq_for_step(sim.step)
        sim.survivors_watchdog(t, seq, exclude=(rank,))
        info["desc"] = "GPU %d (PCI %s) on %s fell off the bus (Xid 79)" % (lr, pci, h.name)
    else:
        gi = lr
        for k in range(r.randint(2, 4)):
            tk = t + k * 6.2
            sim.klog(h, tk, "NVRM: Xid (PCI:0000:%s:00): 119, pid=%d, name=python3, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a4c 0x4)." % (pci, pid, gi))
            if k == 0:
                sim.klog(h, tk + 0.001, "NVRM: GPU%d GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x0000000020800a4c 0x0000000000000004." % gi)
                sim.klog(h, tk + 0.002, "NVRM: GPU%d RPC history (CPU -> GSP):" % gi)
                sim.klog(h, tk + 0.003, "NVRM:     entry function                   data0              data1              ts_start           ts_end             duration actively_polling")
        sim.klog(h, t + 30, "NVRM: Xid (PCI:0000:%s:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)" % pci)
        cuda_wd_exit(sim, rank, t + r.uniform(40, min(240, run.wd_timeout * 0.6)), "unspecified launch failure")
        sim.survivors_watchdog(t, sim.seq_for_step(sim.step), exclude=(rank,))
        info["desc"] = "GSP RPC timeouts (Xid 119) then reset required on GPU %d of %s" % (lr, h.name)
    return info


def fault_ecc_memory(sim, h, lr, t, v=None):
    r, run = sim.r, sim.run
    rank = sim.rank_of(h, lr)
    pid = sim.ranks[rank][2]
    pci = h.gpu_pci[lr]
    v = v or r.choice(["dbe48", "dbe48", "remap64"])
    if v == "dbe48":
        sim.klog(h, t, "NVRM: Xid (PCI:0000:%s:00): 48, pid=%d, name=python3, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (pci, pid, r.randint(0, 11), r.randint(0, 1)))
        sim.klog(h, t + 0.02, "NVRM: Xid (PCI:0000:%s:00): 63, pid=%d, name=python3, Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % (pci, pid, r.getrandbits(24)))
    else:
        sim.klog(h, t, "NVRM: Xid (PCI:0000:%s:00): 48, pid=%d, name=python3, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (pci, pid, r.randint(0, 11), r.randint(0, 1)))
        sim.klog(h, t + 0.02, "NVRM: Xid (PCI:0000:%s:00): 64, pid=%d, name=python3, Row Remapper Error: (0x%016x) - All reserved rows for bank are remapped" % (pci, pid, r.getrandbits(24)))
    te = t + r.uniform(0.05, 3)
    if r.random() < 0.5:
        cuda_py_exit(sim, rank, te, "uncorrectable ECC error encountered")
    else:
        cuda_wd_exit(sim, rank, te, "uncorrectable ECC error encountered")
    sim.survivors_watchdog(t, sim.seq_for_step(sim.step), exclude=(rank,))
    if r.random() < 0.5:
        sim.extra["nvidia-smi-q-ECC_%s.txt" % h.name] = nvsmi_ecc(run, h, lr, t, remap_fail=(v == "remap64"))
    return {"rank": rank, "node": h.name, "variant": v,
            "desc": "uncorrectable ECC (Xid 48, row remap %s) on GPU %d of %s" % ("failure" if v == "remap64" else "pending", lr, h.name)}


def nvsmi_ecc(run, h, bad_lr, t, remap_fail=False):
    r = run.rng
    out = ["", "==============NVSMI LOG==============", "",
           "Timestamp                                 : %s" % f_ctime(h.c(t + r.uniform(600, 4000))),
           "Driver Version                            : %s" % r.choice(["535.161.08", "550.54.15", "550.90.07", "560.35.03"]),
           "CUDA Version                              : %s" % run.cuda_ver, "",
           "Attached GPUs                             : %d" % run.gpn]
    for lr, pci in enumerate(h.gpu_pci):
        bad = lr == bad_lr
        out += ["GPU 00000000:%s:00.0" % pci.upper(),
                "    ECC Mode",
                "        Current                           : Enabled",
                "        Pending                           : Enabled",
                "    ECC Errors",
                "        Volatile",
                "            SRAM Correctable              : 0",
                "            SRAM Uncorrectable Parity     : 0",
                "            SRAM Uncorrectable SEC-DED    : 0",
                "            DRAM Correctable              : %d" % (r.randint(0, 3) if not bad else r.randint(2, 40)),
                "            DRAM Uncorrectable            : %d" % (0 if not bad else r.randint(1, 4)),
                "        Aggregate",
                "            SRAM Correctable              : 0",
                "            SRAM Uncorrectable Parity     : 0",
                "            SRAM Uncorrectable SEC-DED    : 0",
                "            DRAM Correctable              : %d" % (r.randint(0, 12) if not bad else r.randint(20, 300)),
                "            DRAM Uncorrectable            : %d" % (0 if not bad else r.randint(2, 9)),
                "    Remapped Rows",
                "        Correctable Error                 : %d" % (0 if not bad else r.randint(0, 3)),
                "        Uncorrectable Error               : %d" % (0 if not bad else r.randint(1, 8)),
                "        Pending                           : %s" % ("Yes" if bad and not remap_fail else "No"),
                "        Remapping Failure Occurred        : %s" % ("Yes" if bad and remap_fail else "No"),
                ""]
    return "\n".join(out) + "\n"


def fault_nvlink(sim, h, lr, t, v=None):
    r, run = sim.r, sim.run
    rank = sim.rank_of(h, lr)
    pid = sim.ranks[rank][2]
    link = r.randint(0, 17)
    regs = r.choice(["0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0", "0x10000, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0", "0x0, 0x0, 0x0, 0x0, 0x100000, 0x0, 0x0"])
    v = v or r.choice(["xid74_cuda", "xid74_cuda", "xid74_hang"])
    if v == "xid74_hang":
        sim.klog(h, t, "NVRM: Xid (%s): 74, pid='<unknown>', name=<unknown>, NVLink: fatal error detected on link %d(%s)" % (kern_nvrm(h, lr), link, regs))
    else:
        sim.klog(h, t, "NVRM: Xid (%s): 74, pid=%d, name=python3, NVLink: fatal error detected on link %d(%s)" % (kern_nvrm(h, lr), pid, link, regs))
    other = (lr + r.randint(1, sim.gpn - 1)) % sim.gpn
    if r.random() < 0.6:
        sim.klog(h, t + 0.004, "NVRM: Xid (%s): 74, pid='<unknown>', name=<unknown>, NVLink: fatal error detected on link %d(%s)" % (kern_nvrm(h, other), r.randint(0, 17), regs))
    if r.random() < 0.5:
        sw = r.randint(0, 3)
        bus = ["c1", "c2", "c3", "c4"][sw]
        lk = r.randint(0, 63)
        sim.klog(h, t + 0.01, "nvidia-nvswitch%d: SXid (PCI:0000:%s:00.0): 24007, Fatal, Link %02d sourcetrack TCEN0 crumbstore ECC DBE Error" % (sw, bus, lk))
        sim.klog(h, t + 0.011, "nvidia-nvswitch%d: SXid (PCI:0000:%s:00.0): 24007, Severity 1 Engine instance %d Sub-engine instance 00" % (sw, bus, lk))
    seq = sim.seq_for_step(sim.step)
    info = {"rank": rank, "node": h.name, "variant": v}
    if v == "xid74_cuda":
        te = t + r.uniform(0.1, 4)
        L = []
        if sim.nccl_debug:
            L.append(sim.nccl(rank, te, "WARN", "Cuda failure 'uncorrectable NVLink error detected during the execution'", src="enqueue.cc:1482"))
        fr = allreduce_frames(run)
        L += py_tb(fr, ["torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % run.nccl_ver,
                        "ncclUnhandledCudaError: Call to CUDA function failed.",
                        "Last error:",
                        "Cuda failure 'uncorrectable NVLink error detected during the execution'"])
        sim.emit_many(rank, te, L)
        sim.exits[rank] = (te + r.uniform(1, 5), 1)
        sim.survivors_watchdog(t, seq, exclude=(rank,))
        info["desc"] = "NVLink fatal error (Xid 74) on GPU %d of %s" % (lr, h.name)
    else:
        info["rank"] = None
        sim.survivors_watchdog(t, seq)
        info["desc"] = "NVLink fatal error (Xid 74) on %s; collectives hung" % h.name
    return info


def ib_completion(run, r, peer_ip, my_ip, status_new=True):
    hca = "mlx5_%d" % r.randint(0, 7)
    port = r.randint(30000, 60000)
    if run.nccl_ver >= "2.19" and status_new:
        return "NET/IB : Got completion from peer %s<%d> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_SEND(0) reqSize=%d vendor_err=129 req_type=Send localGid ::ffff:%s remoteGids::ffff:%s hca %s" % (peer_ip, port, r.choice([0, 4096, 524288]), my_ip, peer_ip, hca)
    return "NET/IB : Got completion from peer %s<%d> with error 12, opcode %d, len %d, vendor err 129 (Recv) localGid ::ffff:%s remoteGids::ffff:%s hca %s" % (peer_ip, port, r.choice([0, 129]), r.choice([0, 32764]), my_ip, peer_ip, hca)


def fault_network(sim, h, lr, t, v=None):
    r, run = sim.r, sim.run
    v = v or r.choice(["ib_retry", "ib_retry", "roce_down", "socket"])
    nic = r.randint(0, 7)
    npci = NIC_PCI[nic]
    if v == "ib_retry":
        sim.klog(h, t - r.uniform(0.5, 8), "mlx5_core 0000:%s:00.0: mlx5_port_module_event:1151:(pid 0): Port module event[error]: module %d, Cable error, Bus stuck (I2C or data shorted)" % (npci, nic))
        sim.klog(h, t - 0.2, "mlx5_core 0000:%s:00.0: Port %d state changed from ACTIVE to DOWN" % (npci, 1) if r.random() < 0.5 else
                 "infiniband mlx5_%d: mlx5_ib_event:3034:(pid 0): port 1 state changed to DOWN" % nic)
    elif v == "roce_down":
        dev = "enp%ds0f0np0" % int(npci, 16)
        sim.klog(h, t - 0.3, "mlx5_core 0000:%s:00.0 %s: Link down" % (npci, dev))
        sim.klog(h, t + r.uniform(20, 90), "mlx5_core 0000:%s:00.0 %s: Link up" % (npci, dev))
    else:
        dev = r.choice(["ens3f0", "enp65s0f1", "eth0"])
        sim.klog(h, t - 0.3, "ice 0000:%s:00.0 %s: NIC Link is Down" % (npci, dev))
        sim.klog(h, t + r.uniform(10, 60), "ice 0000:%s:00.0 %s: NIC Link is up 100 Gbps Full Duplex, Requested FEC: RS-FEC, Negotiated FEC: RS-FEC, Autoneg Advertised: On, Autoneg Negotiated: False, Flow Control: None" % (npci, dev))
    hi = sim.hosts.index(h)
    peers = [x for x in sim.hosts if x is not h]
    peer_hosts = r.sample(peers, min(len(peers), r.randint(1, 2))) if peers else []
    involved = []
    for rank in range(sim.world):
        hh = sim.host_of(rank)
        if hh is h or hh in peer_hosts:
            involved.append(rank)
    seq = sim.seq_for_step(sim.step)
    for rank in involved:
        hh, llr, pid = sim.ranks[rank]
        te = t + r.uniform(0.5, 25)
        peer = (r.choice(peer_hosts) if peer_hosts else h) if hh is h else h
        if hh is h:
            last = ib_completion(run, r, peer.ip, hh.ip) if v != "socket" else "socketProgress: Connection closed by remote peer %s<%d>" % (peer.name, r.randint(30000, 60000))
        else:
            last = ib_completion(run, r, h.ip, hh.ip) if v != "socket" else "socketProgress: Connection closed by remote peer %s<%d>" % (h.name, r.randint(30000, 60000))
        L = []
        if sim.nccl_debug:
            if v == "socket":
                L.append(sim.nccl(rank, te - 0.01, "WARN", "Net : Connection closed by remote peer %s<%d>" % (peer.ip, r.randint(30000, 60000)), src="misc/socket.cc:47"))
            else:
                L.append(sim.nccl(rank, te - 0.01, "WARN", last, src="transport/net_ib.cc:%d" % r.choice([1696, 2243, 1447])))
            L.append(sim.nccl(rank, te - 0.005, "INFO", "transport/net.cc:1301 -> 6" if v != "socket" else "transport/net_socket.cc:486 -> 6"))
            L.append(sim.nccl(rank, te - 0.004, "INFO", "proxy.cc:708 -> 6"))
        if r.random() < 0.55:
            L += sim.remote_err_block(rank, te, last, kind="remote" if run.nccl_ver >= "2.19" else "system")
            code = -6
        else:
            fr = allreduce_frames(run)
            L += py_tb(fr, ["torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % (r.choice([1970, 2006, 3059]), run.nccl_ver),
                            "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ",
                            "Last error:", last])
            code = 1
        sim.emit_many(rank, te, L)
        sim.exits[rank] = (te + r.uniform(0.5, 3), code)
    sim.survivors_watchdog(t, seq)
    return {"rank": None, "node": h.name, "variant": v,
            "desc": "NIC/link failure on %s (%s); NCCL transport errors between %s and its peers" % (h.name, v, h.name)}


def oom_msg(run, r, lr, big=None):
    alloc = big or r.choice([0.5, 1.0, 2.0, 3.5, 4.0, 7.81, 12.0, 16.0])
    total = run.gpu_mem
    free = r.uniform(0.2, min(alloc, 3.0))
    used = total - free - 0.45
    pyt = used - r.uniform(0.8, 3.0)
    resv = r.uniform(0.3, 5.0)
    if run.torch_ver >= "2.1":
        exc = "torch.OutOfMemoryError" if run.torch_ver >= "2.5" else "torch.cuda.OutOfMemoryError"
        return ("%s: CUDA out of memory. Tried to allocate %s. GPU %d has a total capacity of %s of which %s is free. "
                "Including non-PyTorch memory, this process has %s memory in use. Of the allocated memory %s is allocated by PyTorch, "
                "and %s is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
                "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  "
                "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)") % (
            exc, gib(alloc), lr, gib(total), "%.2f MiB" % (free * 1024) if free < 1 else gib(free), gib(used), gib(pyt - resv), gib(resv))
    return ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate %s (GPU %d; %s total capacity; %s already allocated; "
            "%s free; %s reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid "
            "fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF") % (
        gib(alloc), lr, gib(total), gib(pyt - resv), "%.2f MiB" % (free * 1024), gib(pyt))


def fault_cuda_oom(sim, h, lr, t, v=None):
    r, run = sim.r, sim.run
    rank = sim.rank_of(h, lr)
    v = v or r.choice(["bwd", "fwd", "eval"])
    fr = app_frames(run, "step")
    if v == "fwd":
        fr = fr[:-1] + [(fr[-1][0], fr[-1][1] - 7, "train_step", "logits = model(batch[\"input_ids\"])"),
                        (run.tp("nn/modules/module.py"), 1736, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
                        (run.tp("nn/modules/module.py"), 1747, "_call_impl", "return forward_call(*args, **kwargs)"),
                        (run.tp("nn/functional.py"), 2140, "softmax", "ret = input.softmax(dim)")]
    elif v == "eval":
        s = "%s/%s" % (run.workdir, run.script)
        fr = [fr[0], (s, r.randint(300, 480), "main", "val_loss = evaluate(model, val_loader)"),
              (s, r.randint(60, 99), "evaluate", "out = model(**batch)"),
              (run.tp("nn/modules/module.py"), 1747, "_call_impl", "return forward_call(*args, **kwargs)")]
    else:
        fr.append((run.tp("_tensor.py"), 581 if run.torch_ver >= "2.4" else 522, "backward", "torch.autograd.backward("))
        fr.append((run.tp("autograd/graph.py"), 825 if run.torch_ver >= "2.4" else 744, "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"))
    te = t + r.uniform(0.01, 1)
    sim.emit_many(rank, te, py_tb(fr, [oom_msg(run, r, lr)]))
    sim.exits[rank] = (te + r.uniform(1.0, 8.0), 1)
    sim.survivors_watchdog(t, sim.seq_for_step(sim.step), exclude=(rank,))
    return {"rank": rank, "node": h.name, "variant": v, "desc": "CUDA OOM on rank %d (%s)" % (rank, v)}


def fault_illegal_memory_access(sim, h, lr, t, v=None):
    r, run = sim.r, sim.run
    rank = sim.rank_of(h, lr)
    pid = sim.ranks[rank][2]
    v = v or r.choice(["ima_py", "ima_wd", "assert"])
    te = t + r.uniform(0.01, 2)
    if v == "assert":
        blk = r.randint(100, 4000)
        L = []
        for k in range(r.randint(6, 20)):
            L.append("%s/aten/src/ATen/native/cuda/IndexKernel.cu:%d: operator(): block: [%d,0,0], thread: [%d,0,0] Assertion `-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"` failed." % (
                r.choice(["/opt/pytorch/pytorch", "/pytorch", "../aten/src/ATen/.."]).replace("/aten/src/ATen/..", ""), r.choice([92, 93, 94]), blk, 32 * k + r.randint(0, 31)))
        sim.emit_many(rank, te, L)
        cuda_py_exit(sim, rank, te + 0.05, "device-side assert triggered")
        desc = "device-side assert (index out of bounds) on rank %d" % rank
    elif v == "ima_wd":
        cuda_wd_exit(sim, rank, te, "an illegal memory access was encountered")
        desc = "illegal memory access reported by rank %d's NCCL watchdog" % rank
    else:
        cuda_py_exit(sim, rank, te, "an illegal memory access was encountered")
        desc = "illegal memory access on rank %d" % rank
    if v != "assert" and r.random() < 0.7:
        if r.random() < 0.5:
            sim.klog(h, t, "NVRM: Xid (%s): 31, pid=%d, name=python3, Ch 00000010, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_%d faulted @ 0x7f%02x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (kern_nvrm(h, lr), pid, r.randint(0, 15), r.randint(0, 255), r.getrandbits(32)))
        else:
            sim.klog(h, t, "NVRM: Xid (%s): 13, pid=%d, name=python3, Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (kern_nvrm(h, lr), pid, r.randint(0, 7), r.randint(0, 8), r.randint(0, 1)))
            sim.klog(h, t + 0.001, "NVRM: Xid (%s): 13, pid=%d, name=python3, Graphics Exception: ESR 0x%06x=0x%x 0x%06x=0x0 0x%06x=0x%x 0x%06x=0x174" % (kern_nvrm(h, lr), pid, r.getrandbits(24), r.getrandbits(28), r.getrandbits(24), r.getrandbits(24), r.getrandbits(20), r.getrandbits(24)))
            sim.klog(h, t + 0.5, "NVRM: Xid (%s): 43, pid=%d, name=python3, Ch 00000008" % (kern_nvrm(h, lr), pid))
    sim.survivors_watchdog(t, sim.seq_for_step(sim.step), exclude=(rank,))
    return {"rank": rank, "node": h.name, "variant": v, "desc": desc}


PY_EXC = [
    ("single", "data", ["KeyError: 'input_ids'"], "KeyError in collate for a malformed sample"),
    ("single", "data", ["ValueError: Expected input batch_size (4096) to match target batch_size (4095)."], "batch size mismatch on a short shard"),
    ("single", "step", ["RuntimeError: Loss is nan, stopping training"], "NaN loss guard raised"),
    ("single", "data", ["UnicodeDecodeError: 'utf-8' codec can't decode byte 0x8b in position 1: invalid start byte"], "corrupt (gzipped) shard read as text"),
    ("single", "data", ["json.decoder.JSONDecodeError: Unterminated string starting at: line 1 column 5120 (char 5119)"], "truncated jsonl record"),
    ("all", "step", ["AttributeError: 'NoneType' object has no attribute 'shape'"], "code bug hit on all ranks after resume"),
    ("all", "ckpt", ["KeyError: 'optimizer.state.0.exp_avg'"], "checkpoint/optimizer state mismatch on resume"),
    ("rank0", "ckpt", ["OSError: [Errno 122] Disk quota exceeded"], "rank 0 failed writing checkpoint"),
    ("single", "step", ["AssertionError: expected sequence length 4096, got 4104"], "assertion in packing"),
    ("single", "data", ["FileNotFoundError: [Errno 2] No such file or directory: '/data/tokenized/shard_%05d.bin'"], "missing data shard"),
]


def fault_python_exception(sim, h, lr, t, v=None):
    r, run = sim.r, sim.run
    cands = PY_EXC if v is None else [p for p in PY_EXC if p[0] == v] or PY_EXC
    kind, where, exc, desc = r.choice(cands)
    exc = [e.replace("%05d", "%05d" % r.randint(0, 4000)) if "%05d" in e else e for e in exc]
    if kind == "all":
        targets = list(range(sim.world))
        info = {"rank": None, "node": None}
    elif kind == "rank0":
        targets = [0]
        h = sim.host_of(0)
        info = {"rank": 0, "node": h.name}
    else:
        rank = sim.rank_of(h, lr)
        targets = [rank]
        info = {"rank": rank, "node": h.name}
    s = "%s/%s" % (run.workdir, run.script)
    for rank in targets:
        te = t + (r.uniform(0, 3) if kind == "all" else r.uniform(0, 0.5))
        if where == "data":
            fr = app_frames(run, "data") + [
                (run.tp("utils/data/dataloader.py"), 701 if run.torch_ver >= "2.4" else 631, "__next__", "data = self._next_data()"),
                (run.tp("utils/data/dataloader.py"), 1465 if run.torch_ver >= "2.4" else 1346, "_next_data", "return self._process_data(data)"),
                (run.tp("utils/data/dataloader.py"), 1491 if run.torch_ver >= "2.4" else 1372, "_process_data", "data.reraise()"),
                (run.tp("_utils.py"), 715 if run.torch_ver >= "2.4" else 694, "reraise", "raise exception")]
            lines = py_tb(fr, ["%s: Caught %s in DataLoader worker process %d." % (exc[0].split(":")[0], exc[0].split(":")[0], r.randint(0, 7)),
                               "Original Traceback (most recent call last):",
                               '  File "%s", line 309, in _worker_loop' % run.tp("utils/data/_utils/worker.py"),
                               "    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]",
                               '  File "%s", line 52, in fetch' % run.tp("utils/data/_utils/fetch.py"),
                               "    data = [self.dataset[idx] for idx in possibly_batched_index]",
                               '  File "%s/data.py", line %d, in __getitem__' % (run.workdir, r.randint(40, 160)),
                               "    sample = self._load(idx)"] + exc)
        elif where == "ckpt":
            fr = [app_frames(run, "step")[0], (s, r.randint(300, 480), "main", "save_checkpoint(step, model, optimizer)" if kind == "rank0" else "load_checkpoint(cfg.resume, model, optimizer)"),
                  (run.tp("distributed/checkpoint/state_dict_saver.py" if kind == "rank0" else "optim/optimizer.py"), r.randint(100, 900), "save" if kind == "rank0" else "load_state_dict", None)]
            lines = py_tb(fr, exc)
        else:
            lines = py_tb(app_frames(run, "step"), exc)
        sim.emit_many(rank, te, lines)
        sim.exits[rank] = (te + r.uniform(0.8, 6.0), 1)
    sim.survivors_watchdog(t, sim.seq_for_step(sim.step), exclude=targets)
    info.update({"variant": kind, "desc": "uncaught %s (%s)" % (exc[0].split(":")[0], desc)})
    return info


def oom_kill_kern(sim, h, t, pid, comm="python3", cgroup=None):
    r = sim.r
    cpu = r.randint(0, 127)
    L = ["%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0" % r.choice([comm, "pt_data_worker", "python3"]),
         "CPU: %d PID: %d Comm: %s Tainted: P           OE     %s #%d-Ubuntu" % (cpu, pid + r.randint(1, 50), comm, r.choice(["5.15.0-1053-nvidia", "6.5.0-1019-nvidia", "5.15.0-105-generic"]), r.randint(40, 120)),
         "Hardware name: %s" % ("Google Google Compute Engine/Google Compute Engine, BIOS Google 01/01/2011" if getattr(h, "node", h).name.startswith("gke-") else
                                "Amazon EC2 p5.48xlarge/, BIOS 1.0 10/16/2017" if getattr(h, "node", h).name.startswith("ip-") else
                                r.choice(["NVIDIA DGXH100/DGXH100, BIOS 1.2.5 09/26/2023", "Supermicro SYS-821GE-TNHR/X13DEG-OAD, BIOS 2.1 04/02/2024"])),
         "Call Trace:", " <TASK>", " dump_stack_lvl+0x48/0x70", " dump_header+0x4a/0x240", " oom_kill_process+0x10d/0x1c0", " out_of_memory+0x103/0x350",
         " </TASK>"]
    if cgroup:
        L.append("memory: usage %dkB, limit %dkB, failcnt %d" % (cgroup, cgroup, r.randint(1, 900)))
        L.append("oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=%s,mems_allowed=0-1,oom_memcg=/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice,task_memcg=/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice/cri-containerd-%s.scope,task=%s,pid=%d,uid=0" % (
            "cri-containerd-%s.scope" % ("%x" % r.getrandbits(64)), "%x" % r.getrandbits(32), "%x" % r.getrandbits(32), "%x" % r.getrandbits(64), comm, pid))
        L.append("Memory cgroup out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:0 pgtables:%dkB oom_score_adj:%d" % (
            pid, comm, r.randint(10**8, 9 * 10**8), r.randint(5 * 10**7, 2 * 10**8), r.randint(10**5, 10**6), r.randint(10**5, 10**7), r.randint(10**5, 10**6), r.choice([0, 936, 1000])))
    else:
        L.append("Mem-Info:")
        L.append("active_anon:%d inactive_anon:%d isolated_anon:0" % (r.randint(10**8, 3 * 10**8) // 4096, r.randint(10**6, 10**7) // 4096))
        L.append("oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/user.slice/user-%d.slice/session-%d.scope,task=%s,pid=%d,uid=%d" % (
            r.randint(1000, 60000), r.randint(1, 9000), comm, pid, r.randint(1000, 60000)))
        L.append("Out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (
            pid, comm, r.randint(10**8, 9 * 10**8), r.randint(5 * 10**7, 2 * 10**8), r.randint(10**5, 10**6), r.randint(10**5, 10**7), r.randint(1000, 60000), r.randint(10**5, 10**6)))
    L.append("oom_reaper: reaped process %d (%s), now anon-rss:0kB, file-rss:0kB, shmem-rss:%dkB" % (pid, comm, r.randint(0, 10**6)))
    for i, ln in enumerate(L):
        sim.klog(h, t + i * 0.0002, ln)


def fault_host_oom_kill(sim, h, lr, t, v=None):
    r, run = sim.r, sim.run
    rank = sim.rank_of(h, lr)
    pid = sim.ranks[rank][2]
    v = v or r.choice(["main", "main", "worker", "cgroup"])
    seq = sim.seq_for_step(sim.step)
    if v == "worker":
        wpid = pid + r.randint(60, 400)
        oom_kill_kern(sim, h, t, wpid, comm="pt_data_worker" if run.torch_ver >= "2.1" else "python3")
        te = t + r.uniform(0.5, 6)
        fr = app_frames(run, "data") + [
            (run.tp("utils/data/dataloader.py"), 701 if run.torch_ver >= "2.4" else 631, "__next__", "data = self._next_data()"),
            (run.tp("utils/data/dataloader.py"), 1448 if run.torch_ver >= "2.4" else 1329, "_next_data", "idx, data = self._get_data()"),
            (run.tp("utils/data/dataloader.py"), 1295, "_get_data", "success, data = self._try_get_data()"),
            (run.tp("utils/data/dataloader.py"), 1146, "_try_get_data", "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e")]
        L = py_tb(fr, ["RuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly" % wpid])
        if r.random() < 0.5:
            L = py_tb([(run.tp("utils/data/_utils/signal_handling.py"), 73, "handler", "_error_if_any_worker_fails()")],
                      ["RuntimeError: DataLoader worker (pid %d) is killed by signal: Killed. " % wpid]) + ["", "The above exception was the direct cause of the following exception:", ""] + L
        sim.emit_many(rank, te, L)
        sim.exits[rank] = (te + r.uniform(1, 5), 1)
        sim.survivors_watchdog(t, seq, exclude=(rank,))
        return {"rank": rank, "node": h.name, "variant": v, "desc": "kernel OOM killer killed a DataLoader worker of rank %d on %s" % (rank, h.name)}
    if v == "cgroup":
        lim = r.choice([512, 768, 1024, 1536]) * 1024 * 1024
        oom_kill_kern(sim, h, t, pid, comm="python3", cgroup=lim)
    else:
        oom_kill_kern(sim, h, t, pid, comm="python3")
    sim.exits[rank] = (t + 0.05, -9)
    sim.survivors_watchdog(t, seq, exclude=(rank,))
    return {"rank": rank, "node": h.name, "variant": v, "desc": "host OOM killer (%s) killed rank %d (pid %d) on %s" % (v, rank, pid, h.name)}


def fault_crash_signal(sim, h, lr, t, v=None):
    r, run = sim.r, sim.run
    rank = sim.rank_of(h, lr)
    pid = sim.ranks[rank][2]
    v = v or r.choice(["segv", "segv", "abrt", "bus"])
    te = t + r.uniform(0, 0.2)
    stack = ['  File "%s", line %d in backward' % (run.tp("autograd/graph.py"), 825),
             '  File "%s", line %d in backward' % (run.tp("autograd/__init__.py"), 347),
             '  File "%s", line %d in backward' % (run.tp("_tensor.py"), 581),
             '  File "%s/%s", line %d in train_step' % (run.workdir, run.script, r.randint(90, 149)),
             '  File "%s/%s", line %d in train' % (run.workdir, run.script, r.randint(150, 290)),
             '  File "%s/%s", line %d in main' % (run.workdir, run.script, r.randint(300, 480)),
             '  File "%s/%s", line %d in <module>' % (run.workdir, run.script, r.randint(500, 900))]
    if v == "segv":
        L = ["Fatal Python error: Segmentation fault", "", "Thread 0x%016x (most recent call first):" % r.getrandbits(47), "  <no Python frame>", "",
             "Current thread 0x%016x (most recent call first):" % r.getrandbits(47)] + stack
        if r.random() < 0.5:
            L.append("")
            L.append("Extension modules: numpy.core._multiarray_umath, numpy.core._multiarray_tests, torch._C, torch._C._fft, torch._C._linalg, torch._C._nested, torch._C._nn, torch._C._sparse, torch._C._special, yaml._yaml, sentencepiece._sentencepiece (total: %d)" % r.randint(30, 90))
        code = -11
        base = (0x7f0000000000 + (r.getrandbits(28) << 12))
        sim.klog(h, t, "python3[%d]: segfault at %x ip %016x sp %016x error %d in %s[%x+%x]" % (
            pid, r.choice([0, 8, 0x18, 0x10]), base + r.getrandbits(24), 0x7ffd00000000 + r.getrandbits(32), r.choice([4, 6]), r.choice(["libtorch_cpu.so", "libc.so.6", "libnccl.so.2", "libtorch_cuda.so", "libcuda.so.1"]), base, (r.getrandbits(12) + 1) << 16))
        sim.klog(h, t + 0.001, "Code: %s" % " ".join("%02x" % r.getrandbits(8) for _ in range(24)))
        desc = "SIGSEGV in rank %d (no hardware errors logged)" % rank
    elif v == "bus":
        L = ["Fatal Python error: Bus error", "", "Current thread 0x%016x (most recent call first):" % r.getrandbits(47)] + stack[2:]
        code = -7
        desc = "SIGBUS in rank %d" % rank
    else:
        L = [r.choice(["double free or corruption (!prev)", "free(): invalid pointer", "corrupted size vs. prev_size", "malloc(): unsorted double linked list corrupted"]),
             "Fatal Python error: Aborted", "", "Current thread 0x%016x (most recent call first):" % r.getrandbits(47)] + stack
        code = -6
        desc = "glibc heap corruption abort (SIGABRT) in rank %d" % rank
    sim.emit_many(rank, te, L)
    sim.exits[rank] = (te + 0.01, code)
    sim.survivors_watchdog(t, sim.seq_for_step(sim.step), exclude=(rank,))
    return {"rank": rank, "node": h.name, "variant": v, "desc": desc}


def pyspy_dump(run, r, pid, kind):
    s = run.script
    head = ["Process %d: %s -u %s/%s --config configs/%s.yaml" % (pid, run.pybin, run.workdir, s, run.model),
            "Python v%s.%d (%s)" % (run.pyv, r.randint(4, 14), run.pybin), ""]
    sp = run.site.split("/")[-1]
    if kind == "data":
        main = ["wait (threading.py:%d)" % r.choice([320, 324, 355]),
                "get (multiprocessing/queues.py:113)" if r.random() < 0.5 else "get (queue.py:180)",
                "_try_get_data (torch/utils/data/dataloader.py:1133)",
                "_get_data (torch/utils/data/dataloader.py:1294)",
                "_next_data (torch/utils/data/dataloader.py:1332)",
                "__next__ (torch/utils/data/dataloader.py:631)",
                "train (%s:%d)" % (s, r.randint(150, 290)),
                "main (%s:%d)" % (s, r.randint(300, 480)),
                "<module> (%s:%d)" % (s, r.randint(500, 900))]
        status = "idle"
    elif kind == "io":
        main = ["read (fsspec/implementations/local.py:%d)" % r.randint(300, 400),
                "_read_shard (data.py:%d)" % r.randint(40, 160),
                "__getitem__ (data.py:%d)" % r.randint(40, 160),
                "train (%s:%d)" % (s, r.randint(150, 290)),
                "main (%s:%d)" % (s, r.randint(300, 480)),
                "<module> (%s:%d)" % (s, r.randint(500, 900))]
        status = "active"
    elif kind == "sync":
        main = ["synchronize (torch/cuda/__init__.py:%d)" % r.choice([792, 954, 985]),
                "log_metrics (utils/metrics.py:%d)" % r.randint(20, 90),
                "train (%s:%d)" % (s, r.randint(150, 290)),
                "main (%s:%d)" % (s, r.randint(300, 480)),
                "<module> (%s:%d)" % (s, r.randint(500, 900))]
        status = "active"
    else:   # lock deadlock
        main = ["_wait_for_tstate_lock (threading.py:1116)",
                "join (threading.py:1096)",
                "wait_for_async_save (utils/checkpoint.py:%d)" % r.randint(40, 200),
                "train (%s:%d)" % (s, r.randint(150, 290)),
                "main (%s:%d)" % (s, r.randint(300, 480)),
                "<module> (%s:%d)" % (s, r.randint(500, 900))]
        status = "idle"
    out = head + ['Thread %d (%s): "MainThread"' % (pid, status)] + ["    " + m for m in main]
    out += ['Thread %d (idle): "Thread-2 (_pin_memory_loop)"' % (pid + r.randint(40, 90)),
            "    select (selectors.py:415)", "    wait (multiprocessing/connection.py:947)", "    _poll (multiprocessing/connection.py:440)",
            "    poll (multiprocessing/connection.py:257)", "    get (multiprocessing/queues.py:113)",
            "    do_one_step (torch/utils/data/_utils/pin_memory.py:%d)" % r.choice([31, 33]),
            "    _pin_memory_loop (torch/utils/data/_utils/pin_memory.py:%d)" % r.choice([54, 58]),
            "    run (threading.py:982)", "    _bootstrap_inner (threading.py:1045)", "    _bootstrap (threading.py:1002)"]
    return "\n".join(out) + "\n"


def dump_signal_lines(sim, rank, t, from_rank, seq_done):
    """torch>=2.4 flight-recorder dump signal seen on a rank that did NOT time out itself"""
    return [sim.cpp(rank, t, "E", "ProcessGroupNCCL.cpp:1374", "%s Received a dump signal due to a collective timeout from  rank %d and we will try our best to dump the debug info. Last enqueued NCCL work: %d, last completed NCCL work: %d.This is most likely caused by incorrect usages of collectives, e.g., wrong sizes used across ranks, the order of collectives is not same for all ranks or the scheduled collective, for some reason, didn't run. Additionally, this can be caused by GIL deadlock or other reasons such as network errors or bugs in the communications library (e.g. NCCL), etc. " % (sim.pg(rank), from_rank, seq_done, seq_done)),
            sim.cpp(rank, t + 0.01, "E", "ProcessGroupNCCL.cpp:1192", "%s ProcessGroupNCCL preparing to dump debug info. Include stack trace: 1" % sim.pg(rank))]


def fault_hang(sim, h, lr, t, v=None):
    r, run = sim.r, sim.run
    rank = sim.rank_of(h, lr)
    pid = sim.ranks[rank][2]
    v = v or r.choice(["pyspy", "fr", "fr", "plain"] if run.tstyle == "glog" else ["pyspy", "pyspy", "plain"])
    sim.hung.add(rank)
    seq = sim.seq_for_step(sim.step)
    sim.survivors_watchdog(t, seq, exclude=(rank,))
    info = {"rank": rank, "node": h.name, "variant": v}
    if v == "fr":
        first = min((sim.exits[k][0] for k in sim.exits), default=t + run.wd_timeout)
        from_rank = min(sim.exits, key=lambda k: sim.exits[k][0]) if sim.exits else 0
        sim.emit_many(rank, first + r.uniform(0.5, 3), dump_signal_lines(sim, rank, first + 1, from_rank, seq - 1))
        info["desc"] = "rank %d stopped issuing collectives (last enqueued %d while others at %d)" % (rank, seq - 1, seq)
    elif v == "pyspy":
        kind = r.choice(["sync", "lock"])
        sim.extra["py-spy-dump_%s_pid%d.txt" % (h.name, pid)] = pyspy_dump(run, r, pid, kind)
        info["desc"] = "rank %d stuck in %s (py-spy), others timed out" % (rank, "cuda synchronize" if kind == "sync" else "a thread join/lock")
    else:
        info["rank"] = None
        info["node"] = None
        info["desc"] = "one rank stopped progressing; only watchdog timeouts of the others visible"
    return info


def fault_data_loader_stall(sim, h, lr, t, v=None):
    r, run = sim.r, sim.run
    rank = sim.rank_of(h, lr)
    pid = sim.ranks[rank][2]
    v = v or r.choice(["timeout", "pyspy", "fs"])
    seq = sim.seq_for_step(sim.step)
    info = {"rank": rank, "node": h.name, "variant": v}
    if v == "timeout":
        dlt = min(r.choice([120, 300, 480]), int(run.wd_timeout * 0.8))
        te = t + dlt + r.uniform(0, 2)
        fr = app_frames(run, "data") + [
            (run.tp("utils/data/dataloader.py"), 701 if run.torch_ver >= "2.4" else 631, "__next__", "data = self._next_data()"),
            (run.tp("utils/data/dataloader.py"), 1448 if run.torch_ver >= "2.4" else 1329, "_next_data", "idx, data = self._get_data()"),
            (run.tp("utils/data/dataloader.py"), 1284, "_get_data", "success, data = self._try_get_data()"),
            (run.tp("utils/data/dataloader.py"), 1145, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {timeout} seconds') from e")]
        sim.emit_many(rank, te, py_tb(fr, ["RuntimeError: DataLoader timed out after %d seconds" % dlt]))
        sim.exits[rank] = (te + r.uniform(1, 4), 1)
        info["desc"] = "rank %d's DataLoader produced nothing for %ds (DataLoader timeout)" % (rank, dlt)
    else:
        sim.hung.add(rank)
        if v == "pyspy":
            sim.extra["py-spy-dump_%s_pid%d.txt" % (h.name, pid)] = pyspy_dump(run, r, pid, r.choice(["data", "io"]))
            info["desc"] = "rank %d blocked waiting for its DataLoader (py-spy)" % rank
        else:
            srv = r.choice(["nfs01", "fs-data-02", "10.0.0.%d" % r.randint(2, 250)])
            if r.random() < 0.5:
                sim.klog(h, t - r.uniform(30, 200), "nfs: server %s not responding, still trying" % srv)
            else:
                sim.klog(h, t - r.uniform(30, 200), "Lustre: %d:0:(client.c:2340:ptlrpc_expire_one_request()) @@@ Request sent has timed out for slow reply: [sent %d/real %d]  req@%s x%d/t0(0) o4->scratch-OST00%02x-osc-ff%s@10.%d.%d.%d@o2ib:6/4 lens 488/448 e 0 to 1 dl %d ref 2 fl Rpc:XQr/2/ffffffff rc 0/-1 job:'%s'" % (
                    r.randint(1000, 90000), int(t) - 300, int(t) - 300, hexaddr(r, 0xff), r.randint(10**14, 10**15), r.randint(0, 255), "%x" % r.getrandbits(40), r.randint(0, 9), r.randint(0, 255), r.randint(1, 254), int(t), "python3.%d" % r.randint(1000, 60000)))
            for k in range(r.randint(1, 3)):
                tk = t + 121 + k * 122
                sim.klog(h, tk, "INFO: task pt_data_worker:%d blocked for more than %d seconds." % (pid + r.randint(50, 400), 120 + k * 122))
                sim.klog(h, tk + 0.001, "      Tainted: P           OE      %s #%d-Ubuntu" % (r.choice(["5.15.0-1053-nvidia", "6.5.0-1019-nvidia"]), r.randint(40, 120)))
                sim.klog(h, tk + 0.002, "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.")
            info["rank"] = None
            info["desc"] = "filesystem stall on %s; its ranks blocked reading data" % h.name
    sim.survivors_watchdog(t, seq, exclude=(rank,))
    return info


def fault_collective_mismatch(sim, h, lr, t, v=None):
    r, run = sim.r, sim.run
    v = v or r.choice(["detail", "wd_ops", "wd_ops"])
    rank = sim.rank_of(h, lr) if r.random() < 0.4 else 0
    h = sim.host_of(rank)
    seq = sim.seq_for_step(sim.step)
    info = {"rank": rank, "node": h.name, "variant": v}
    if v == "detail":
        other = (rank + 1) % sim.world
        fp_a = "CollectiveFingerPrint(SequenceNumber=%d, OpType=BROADCAST, TensorShape=[1], TensorDtypes=Long, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))" % seq
        fp_b = "CollectiveFingerPrint(SequenceNumber=%d, OpType=ALLREDUCE, TensorShape=[%d], TensorDtypes=BFloat16, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))" % (seq, sim.numel)
        for k in range(sim.world):
            te = t + r.uniform(0.1, 5)
            if k == rank:
                msg = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects: \t Op type: BROADCASTvs ALLREDUCE  Tensor Tensor shapes: 1vs %d  Tensor Tensor dtypes: Longvs BFloat16" % (rank, fp_a, other, fp_b, sim.numel)
            else:
                msg = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects: \t Op type: ALLREDUCEvs BROADCAST  Tensor Tensor shapes: %dvs 1  Tensor Tensor dtypes: BFloat16vs Long" % (k, fp_b, rank, fp_a, sim.numel)
            fr = app_frames(run, "step")[:-1] + [("%s/%s" % (run.workdir, run.script), r.randint(150, 290), "train", "dist.broadcast(stop_flag, src=0)" if k == rank else "dist.all_reduce(loss_sum)"),
                                                 (run.tp("distributed/c10d_logger.py"), 83, "wrapper", "return func(*args, **kwargs)")]
            if k < 24 or k == rank:
                sim.emit_many(k, te, py_tb(fr, [msg]))
            sim.exits[k] = (te + r.uniform(0.5, 4), 1)
        info["desc"] = "rank %d issued BROADCAST while the others issued ALLREDUCE (TORCH_DISTRIBUTED_DEBUG=DETAIL)" % rank
    else:
        numel_b = r.choice([1, 2, 8])

        def op_for(k):
            return "BROADCAST" if k == rank else None

        # the odd rank entered its collective first, so its watchdog fires first
        sim.survivors_watchdog(t - 0.8, seq, op_for=op_for, exclude=[k for k in range(sim.world) if k != rank], jitter=(0.0, 0.2))
        sim.survivors_watchdog(t, seq, op_for=op_for)
        # patch the odd rank's numel for realism
        out = sim.out[rank]
        for i, (tt, ln) in enumerate(out):
            if "OpType=BROADCAST, NumelIn=" in ln:
                ln = ln.replace("NumelIn=%d, NumelOut=%d" % (sim.numel, sim.numel * (sim.world if sim.op == "_ALLGATHER_BASE" else 1) if sim.op != "_REDUCE_SCATTER_BASE" else sim.numel // sim.world), "NumelIn=%d, NumelOut=%d" % (numel_b, numel_b))
                out[i] = (tt, ln)
        info["desc"] = "rank %d waiting in BROADCAST at SeqNum %d while all others wait in %s" % (rank, seq, sim.op)
    return info


def fault_straggler(sim, h, lr, t, v=None):
    """t = time the slowdown began; caller decides how the job ends."""
    r = sim.r
    rank = sim.rank_of(h, lr)
    info = {"rank": rank, "node": h.name, "variant": v or "gpu"}
    info["desc"] = "rank %d on %s persistently slow" % (rank, h.name)
    return info


def fault_unknown(sim, h, lr, t, v=None):
    r, run = sim.r, sim.run
    rank = sim.rank_of(h, lr)
    v = v or r.choice(["exit1", "sigkill", "exit1"])
    if v == "exit1":
        sim.exits[rank] = (t, 1)
        desc = "rank %d exited with code 1 without printing a traceback" % rank
    else:
        sim.exits[rank] = (t, -9)
        desc = "rank %d was SIGKILLed; no OOM/kernel/scheduler record" % rank
    sim.survivors_watchdog(t, sim.seq_for_step(sim.step), exclude=(rank,))
    return {"rank": rank, "node": h.name, "variant": v, "desc": desc}


FAULTS = {
    "gpu_hardware": fault_gpu_hardware, "ecc_memory": fault_ecc_memory, "nvlink": fault_nvlink,
    "network": fault_network, "cuda_oom": fault_cuda_oom, "illegal_memory_access": fault_illegal_memory_access,
    "python_exception": fault_python_exception, "host_oom_kill": fault_host_oom_kill, "crash_signal": fault_crash_signal,
    "hang": fault_hang, "data_loader_stall": fault_data_loader_stall, "collective_mismatch": fault_collective_mismatch,
    "straggler": fault_straggler, "unknown": fault_unknown,
}

# ----------------------------------------------------------------------------
# torchrun / elastic agent layer (also used for ft_launcher and DeepSpeed's
# DSElasticAgent, which share most of the torch elastic agent behaviour)
# ----------------------------------------------------------------------------

M_API = ("torch.distributed.elastic.agent.server.api", "torch/distributed/elastic/agent/server/api.py")
M_MP = ("torch.distributed.elastic.multiprocessing.api", "torch/distributed/elastic/multiprocessing/api.py")
M_LEA = ("torch.distributed.elastic.agent.server.local_elastic_agent", "torch/distributed/elastic/agent/server/local_elastic_agent.py")
M_RUN = ("torch.distributed.run", "torch/distributed/run.py")
M_LAPI = ("torch.distributed.launcher.api", "torch/distributed/launcher/api.py")
M_DYN = ("torch.distributed.elastic.rendezvous.dynamic_rendezvous", "torch/distributed/elastic/rendezvous/dynamic_rendezvous.py")
M_FT = ("nvidia_resiliency_ext.fault_tolerance.launcher", "nvidia_resiliency_ext/fault_tolerance/launcher.py")
M_DS = ("deepspeed.elasticity.elastic_agent", "deepspeed/elasticity/elastic_agent.py")



def is_cpp(text):
    return len(text) > 3 and text[0] == "[" and text[1] in "EWIF" and (text[2] == " " or text[2].isdigit())


def prefix_line(run, rank, lr, text):
    ps = run.prefix_style
    if ps == "none":
        return text
    if ps == "default":
        return "[default%d]:%s" % (lr, text)
    if is_cpp(text):
        return "[rank%d]:%s" % (rank, text)
    return "[rank%d]: %s" % (rank, text)


class Agent:
    """one elastic agent (torchrun process) on one host"""

    def __init__(self, run, host, max_restarts, launcher="torchrun", info=True, entry=None):
        self.run = run
        self.h = host
        self.max_restarts = max_restarts
        self.remaining = max_restarts
        self.launcher = launcher
        self.info = info
        self.entry = entry or run.script
        self.lines = []
        self.round = 0
        self.pid = host.agent_pid

    def log(self, t, level, mod, msg, lineno=None):
        run, h = self.run, self.h
        if level == "INFO" and not self.info:
            return
        name, path = mod
        ln = lineno
        if ln is None:
            ln = {M_API: 713, M_MP: 897, M_LEA: 255, M_RUN: 793, M_LAPI: 188, M_DYN: 1114, M_FT: 636, M_DS: 139}.get(mod, 700)
            if mod == M_API or mod == M_FT or mod == M_DS:
                for pre, n in (("[default] Rendezvous'ing", 683), ("[default] Rendezvous complete", 525), ("[default] Starting worker", 689),
                               ("[default] Worker group", 889), ("[default] Stopping", 710), ("[default] Detected", 906),
                               ("[default] worker group successfully", 873), ("Done waiting", 1222), ("Received Signals", 724)):
                    if msg.startswith(pre):
                        ln = n + (0 if mod == M_API else 37 if mod == M_FT else -730)
                        break
            if mod == M_DS and ln < 50:
                ln = 139
        msgs = msg.split("\n")
        if run.tstyle == "glog":
            for m in msgs:
                self.lines.append((t, "%s%s %d %s:%d] %s" % (level[0], f_glog(h.c(t)), self.pid, path, ln, m)))
                t += 0.000001
        elif run.tstyle == "bracket":
            for m in msgs:
                self.lines.append((t, "[%s] %s: [%s] %s" % (f_iso_ms(h.c(t)), name, level, m)))
                t += 0.000001
        else:
            self.lines.append((t, "%s:%s:%s" % (level, name, msgs[0])))
            for m in msgs[1:]:
                self.lines.append((t, m))

    def raw(self, t, lines):
        for i, ln in enumerate(lines):
            self.lines.append((t + i * 0.0001, ln))

    @property
    def mod(self):
        return {"torchrun": M_API, "ft_launcher": M_FT, "ds_elastic": M_DS}[self.launcher]

    # ------------------------------------------------------------------ phases
    def launch_banner(self, t, nnodes, nproc, rdzv_host, attempt_log_dir=True):
        run = self.run
        if self.launcher == "ds_elastic":
            return
        if nproc > 1:
            self.log(t, "WARNING", M_RUN, "\n*****************************************\nSetting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. \n*****************************************")
        if self.info:
            self.log(t + 0.01, "INFO", M_LAPI, "Starting elastic_operator with launch configs:\n  entrypoint       : %s\n  min_nodes        : %s\n  max_nodes        : %s\n  nproc_per_node   : %d\n  run_id           : %s\n  rdzv_backend     : c10d\n  rdzv_endpoint    : %s:%d\n  rdzv_configs     : {'timeout': 900}\n  max_restarts     : %d\n  monitor_interval : %s\n  log_dir          : /tmp/torchelastic_%s\n  metrics_cfg      : {}\n" % (
                self.entry, nnodes.split(":")[0], nnodes.split(":")[-1], nproc, run.rdzv_id, rdzv_host.name, run.master_port, self.max_restarts,
                "0.1" if run.tstyle == "glog" else "5", "%08x" % run.rng.getrandbits(32)))

    def rendezvous(self, t, node_rank, world_nodes, restart_count, master, world, gpn, first=False):
        run = self.run
        self.log(t, "INFO", self.mod, "[default] Rendezvous'ing worker group")
        if self.info:
            self.log(t + 0.5, "INFO", M_DYN, "The node '%s_%d_0' has joined round %d of the rendezvous '%s' as rank %d in a world of size %d." % (
                self.h.name, self.pid, self.round, run.rdzv_id, node_rank, world_nodes))
            if run.tstyle != "basic":
                g = [node_rank * gpn + i for i in range(gpn)]
                self.log(t + 0.6, "INFO", self.mod, "[default] Rendezvous complete for workers. Result:\n  restart_count=%d\n  master_addr=%s\n  master_port=%d\n  group_rank=%d\n  group_world_size=%d\n  local_ranks=%s\n  role_ranks=%s\n  global_ranks=%s\n  role_world_sizes=%s\n  global_world_sizes=%s\n" % (
                    restart_count, master.name, run.master_port, node_rank, world_nodes, list(range(gpn)), g, g, [world] * gpn, [world] * gpn))
            self.log(t + 0.7, "INFO", self.mod, "[default] Starting worker group")
            if run.tstyle != "basic":
                self.log(t + 0.71, "INFO", M_LEA, "Environment variable 'TORCHELASTIC_ENABLE_FILE_TIMER' not found. Do not start FileTimerServer.")
                if run.torch_ver >= "2.3":
                    self.log(t + 0.72, "INFO", M_LEA, "Environment variable 'TORCHELASTIC_HEALTH_CHECK_PORT' not found. Do not start health check.")
        self.round += 1

    def stop_local(self, t, alive, hung, reason_kill=False):
        """send SIGTERM to alive local workers. alive: list of (rank,lr,pid). returns kill times per rank."""
        kills = {}
        for (rank, lr, pid) in alive:
            self.log(t, "WARNING", M_MP, "Sending process %d closing signal SIGTERM" % pid)
            kills[rank] = t + 0.02
            t += 0.0004
        for (rank, lr, pid) in alive:
            if rank in hung:
                self.log(t + 30, "WARNING", M_MP, "Unable to shutdown process %d via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL" % pid)
                kills[rank] = t + 30.05
        return kills

    def failed_line(self, t, code, lr, pid):
        run = self.run
        self.log(t, "ERROR", M_MP, "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (code, lr, pid, run.pybin))

    def restart_msg(self, t, state="FAILED"):
        self.log(t, "INFO", self.mod, "[default] Worker group %s. %d/%d attempts left; will restart worker group" % (state, self.remaining, self.max_restarts))
        self.remaining -= 1
        self.log(t + 0.001, "INFO", self.mod, "[default] Stopping worker group")

    def membership_msg(self, t, n_new, from_group_rank):
        self.log(t, "INFO", self.mod, "[default] Detected %d new nodes from group_rank=%d; will restart worker group" % (n_new, from_group_rank))
        self.log(t + 0.001, "INFO", self.mod, "[default] Stopping worker group")

    def tb_head(self):
        run = self.run
        if self.launcher == "ft_launcher":
            bin_ = run.torchrun_bin.replace("torchrun", "ft_launcher")
            nv = "%s/nvidia_resiliency_ext/fault_tolerance" % run.site
            return [(bin_, 8, "<module>", "sys.exit(main())"),
                    (run.tp("distributed/elastic/multiprocessing/errors/__init__.py"), 355, "wrapper", "return f(*args, **kwargs)"),
                    ("%s/launcher.py" % nv, 1987, "main", "run(args)"),
                    ("%s/launcher.py" % nv, 1970, "run", "elastic_launch("),
                    ("%s/launcher.py" % nv, 1577, "__call__", "return launch_agent(self._config, self._entrypoint, list(args))")]
        if self.launcher == "ds_elastic":
            return [("/usr/lib/python%s/runpy.py" % run.pyv, 196, "_run_module_as_main", 'return _run_code(code, main_globals, None,'),
                    ("/usr/lib/python%s/runpy.py" % run.pyv, 86, "_run_code", "exec(code, run_globals)"),
                    ("%s/deepspeed/launcher/launch.py" % run.site, 362, "<module>", "main()"),
                    ("%s/deepspeed/launcher/launch.py" % run.site, 243, "main", "result = ds_agent.run()")]
        return [(run.torchrun_bin, 8, "<module>", "sys.exit(main())"),
                (run.tp("distributed/elastic/multiprocessing/errors/__init__.py"), 355 if run.torch_ver >= "2.4" else 346, "wrapper", "return f(*args, **kwargs)"),
                (run.tp("distributed/run.py"), 919 if run.torch_ver >= "2.4" else 812, "main", "run(args)"),
                (run.tp("distributed/run.py"), 910 if run.torch_ver >= "2.4" else 803, "run", "elastic_launch("),
                (run.tp("distributed/launcher/api.py"), 138 if run.torch_ver >= "2.4" else 135, "__call__", "return launch_agent(self._config, self._entrypoint, list(args))")]

    def child_failed(self, t, failures, entry_name=None, record_tb=None):
        """failures: list of (rank, lr, code, pid, t_fail). Root cause first."""
        run = self.run
        fr = self.tb_head()
        if self.launcher != "ds_elastic":
            fr.append((run.tp("distributed/launcher/api.py"), 269 if run.torch_ver >= "2.4" else 264, "launch_agent", "raise ChildFailedError("))
        L = py_tb(fr, ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: "])
        bar = "=" * 60
        sep = "-" * 60
        L.append(bar)
        L.append("%s FAILED" % (entry_name or self.entry))
        L.append(sep)
        L.append("Failures:")
        root = failures[0]
        others = failures[1:]

        def block(i, f):
            rank, lr, code, pid, tf = f
            out = ["[%d]:" % i,
                   "  time      : %s" % f_torchelastic(self.h.c(tf)),
                   "  host      : %s" % self.h.name,
                   "  rank      : %d (local_rank: %d)" % (rank, lr),
                   "  exitcode  : %d (pid: %d)" % (code, pid)]
            if record_tb and rank in record_tb:
                out.append("  error_file: /tmp/torchelastic_%08x/%s_%s/attempt_%d/%d/error.json" % (run.rng.getrandbits(32), run.rdzv_id, "%06x" % run.rng.getrandbits(24), self.max_restarts - self.remaining, lr))
                tbl = record_tb[rank]
                out.append("  traceback : " + tbl[0])
                out.extend("    " + x for x in tbl[1:])
            else:
                out.append("  error_file: <N/A>")
                if code < 0:
                    sig = {-6: "SIGABRT", -9: "SIGKILL", -11: "SIGSEGV", -7: "SIGBUS", -15: "SIGTERM"}.get(code, "SIG%d" % -code)
                    out.append("  traceback : Signal %d (%s) received by PID %d" % (-code, sig, pid))
                else:
                    out.append("  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
            return out

        if not others:
            L.append("  <NO_OTHER_FAILURES>")
        else:
            for i, f in enumerate(others):
                L.extend(block(i + 1, f))
        L.append(sep)
        L.append("Root Cause (first observed failure):")
        L.extend(block(0, root))
        L.append(bar)
        self.raw(t, L)

    def signal_exc(self, t, sig=15):
        run = self.run
        self.log(t, "WARNING", self.mod if self.launcher != "torchrun" else M_API, "Received Signals.%s death signal, shutting down workers" % ("SIGTERM" if sig == 15 else "SIGINT"))
        return t + 0.01

    def signal_tb(self, t, sig=15):
        run = self.run
        fr = self.tb_head() + [
            (run.tp("distributed/launcher/api.py"), 255 if run.torch_ver >= "2.4" else 250, "launch_agent", "result = agent.run()"),
            (run.tp("distributed/elastic/metrics/api.py"), 137 if run.torch_ver >= "2.4" else 129, "wrapper", "result = f(*args, **kwargs)"),
            (run.tp("distributed/elastic/agent/server/api.py"), 711 if run.torch_ver >= "2.4" else 727, "run", "result = self._invoke_run(role)"),
            (run.tp("distributed/elastic/agent/server/api.py"), 864 if run.torch_ver >= "2.4" else 868, "_invoke_run", "time.sleep(monitor_interval)"),
            (run.tp("distributed/elastic/multiprocessing/api.py"), 84 if run.torch_ver >= "2.4" else 62, "_terminate_process_handler", "raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)")]
        self.raw(t, py_tb(fr, ["torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: %d" % (self.pid, sig)]))

    def rdzv_closed_tb(self, t, store_gone=False):
        run = self.run
        fr = self.tb_head() + [
            (run.tp("distributed/launcher/api.py"), 255 if run.torch_ver >= "2.4" else 250, "launch_agent", "result = agent.run()"),
            (run.tp("distributed/elastic/metrics/api.py"), 137 if run.torch_ver >= "2.4" else 129, "wrapper", "result = f(*args, **kwargs)"),
            (run.tp("distributed/elastic/agent/server/api.py"), 711 if run.torch_ver >= "2.4" else 727, "run", "result = self._invoke_run(role)"),
            (run.tp("distributed/elastic/agent/server/api.py"), 899 if run.torch_ver >= "2.4" else 902, "_invoke_run", "self._restart_workers(self._worker_group)"),
            (run.tp("distributed/elastic/agent/server/api.py"), 702 if run.torch_ver >= "2.4" else 711, "_restart_workers", "self._initialize_workers(worker_group)"),
            (run.tp("distributed/elastic/agent/server/api.py"), 683 if run.torch_ver >= "2.4" else 692, "_initialize_workers", "self._rendezvous(worker_group)"),
            (run.tp("distributed/elastic/agent/server/api.py"), 500 if run.torch_ver >= "2.4" else 551, "_rendezvous", "rdzv_info = spec.rdzv_handler.next_rendezvous()"),
            (run.tp("distributed/elastic/rendezvous/dynamic_rendezvous.py"), 1162 if run.torch_ver >= "2.4" else 1031, "next_rendezvous", "self._op_executor.run(join_op, deadline, self._get_deadline)")]
        if store_gone:
            fr.append((run.tp("distributed/elastic/rendezvous/dynamic_rendezvous.py"), 648, "run", "has_set = self._state_holder.sync()"))
            fr.append((run.tp("distributed/elastic/rendezvous/c10d_rendezvous_backend.py"), 113, "get_state", "base64_state: bytes = self._call_store(\"get\", self._key)"))
            exc = ["torch.distributed.DistNetworkError: failed to recv, got 0 bytes", "",
                   "The above exception was the direct cause of the following exception:", "", "Traceback (most recent call last):",
                   '  File "%s", line 8, in <module>' % run.torchrun_bin, "    sys.exit(main())", "  [...]",
                   "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has failed. See inner exception for details."]
        else:
            fr.append((run.tp("distributed/elastic/rendezvous/dynamic_rendezvous.py"), 677 if run.torch_ver >= "2.4" else 655, "run", "raise RendezvousClosedError"))
            exc = ["torch.distributed.elastic.rendezvous.api.RendezvousClosedError"]
        self.raw(t, py_tb(fr, exc))

    def success(self, t):
        self.log(t, "INFO", self.mod, "[default] worker group successfully finished. Waiting 300 seconds for other agents to finish.")

    def done_waiting(self, t, el):
        self.log(t, "INFO", self.mod, "Done waiting for other agents. Elapsed: %.9f seconds" % el)


# ----------------------------------------------------------------------------
# elastic job driver: runs a list of segments through per-host agents
# ----------------------------------------------------------------------------

class ElasticJob:
    def __init__(self, run, hosts, max_restarts, launcher="torchrun", nnodes=None, info=True,
                 kill_all_on_exit=False, nccl_debug=None, entry=None):
        self.run = run
        self.hosts = hosts
        self.launcher = launcher
        self.agents = {h.name: Agent(run, h, max_restarts, launcher, info, entry) for h in hosts}
        self.nnodes = nnodes or str(len(hosts))
        self.kill_all = kill_all_on_exit
        self.nccl_debug = nccl_debug
        self.host_lines = {h.name: [] for h in hosts}
        self.kern = {h.name: [] for h in hosts}
        self.extra = {}
        self.exit = {}           # host -> (t, code) of torchrun process
        self.restart_count = 0
        self.store_host = hosts[0]
        self.sims = []
        self.events = []

    def _merge_sim(self, sim, kills):
        run = self.run
        for rank in range(sim.world):
            h, lr, pid = sim.ranks[rank]
            tk = kills.get(rank, INF)
            for (t, text) in sim.out[rank]:
                if t <= tk:
                    self.host_lines[h.name].append((t, prefix_line(run, rank, lr, text)))
        for hn, kl in sim.kern.items():
            self.kern.setdefault(hn, []).extend(kl)
        self.extra.update(sim.extra)

    def launch(self, t, hosts, rdzv_retry=False, first=False):
        """agents start / rendezvous. returns time workers start."""
        run, r = self.run, self.run.rng
        for i, h in enumerate(hosts):
            ag = self.agents[h.name]
            tt = t + r.uniform(0, 4 if first else 1)
            if first:
                ag.launch_banner(tt, self.nnodes, run.gpn, self.store_host)
                if rdzv_retry and h is not self.store_host and i == 1:
                    for k in range(r.randint(2, 4)):
                        tk = tt + 1 + k * r.uniform(1, 10)
                        if run.tstyle == "glog":
                            ag.lines.append((tk, "[W%s socket.cpp:752] [c10d] The client socket has failed to connect to [%s]:%d (errno: 111 - Connection refused)." % (f_glog_ns(h.c(tk)), self.store_host.name, run.master_port)))
                        else:
                            ag.lines.append((tk, "[W socket.cpp:601] [c10d] The client socket has failed to connect to [%s]:%d (errno: 111 - Connection refused)." % (self.store_host.name, run.master_port)))
                    tt += 40
        t_start = t + (45 if rdzv_retry else r.uniform(2, 12))
        for i, h in enumerate(hosts):
            self.agents[h.name].rendezvous(t_start - r.uniform(0.5, 3), i, len(hosts), self.restart_count, self.store_host, len(hosts) * run.gpn, run.gpn)
        return t_start

    def new_sim(self, t_start, hosts, step0, attempt_no, quiet=False):
        sim = Sim(self.run, hosts, t_start, step0, attempt_no, self.restart_count)
        sim.startup(nccl_debug=self.nccl_debug, resume_step=step0, quiet=quiet)
        self.sims.append(sim)
        return sim

    # ------------------------------------------------------------- endings
    def _local(self, sim, h):
        base = sim.hosts.index(h) * sim.gpn
        return [(base + lr, lr, sim.ranks[base + lr][2]) for lr in range(sim.gpn)]

    def _first_fail(self, sim, h, upto=INF):
        best = None
        for (rank, lr, pid) in self._local(sim, h):
            if rank in sim.exits and sim.exits[rank][1] != 0 and sim.exits[rank][0] <= upto:
                if best is None or sim.exits[rank][0] < best[0]:
                    best = (sim.exits[rank][0], rank, lr, pid, sim.exits[rank][1])
        return best

    def _failures_at(self, sim, h, T):
        fl = []
        for (rank, lr, pid) in self._local(sim, h):
            if rank in sim.exits and sim.exits[rank][1] != 0 and sim.exits[rank][0] <= T:
                fl.append((rank, lr, sim.exits[rank][1], pid, T))
        return fl

    def end_success(self, sim):
        run, r = self.run, self.run.rng
        kills = {}
        last = 0
        for h in sim.hosts:
            te = max(sim.exits[rk][0] for (rk, _, _) in self._local(sim, h)) + run.monitor_interval
            self.agents[h.name].success(te)
            last = max(last, te)
            self.exit[h.name] = (te + r.uniform(0.2, 2), 0)
        for h in sim.hosts:
            self.agents[h.name].done_waiting(last + r.uniform(0.1, 1.5), last - (self.exit[h.name][0] - 2) if last > self.exit[h.name][0] else r.uniform(0.01, 2))
        self._merge_sim(sim, kills)
        return last + 2

    def propagate(self, sim, h0, T0, window=25.0, hosts=None):
        """peers of a dead/failed host see NCCL errors soon after (remote process exited)."""
        run, r = self.run, self.run.rng
        for h in (hosts or sim.hosts):
            if h is h0:
                continue
            f = self._first_fail(sim, h)
            if f and f[0] <= T0 + window:
                continue
            local = [x for x in self._local(sim, h) if x[0] not in sim.hung and not (x[0] in sim.exits and sim.exits[x[0]][0] <= T0 + window)]
            if not local:
                continue
            for (rk, lr, pid) in r.sample(local, r.randint(1, len(local))):
                te = T0 + r.uniform(0.5, window - 2)
                u = r.random()
                if u < 0.35:
                    last = "socketProgress: Connection closed by remote peer %s<%d>" % (h0.name, r.randint(30000, 60000))
                elif u < 0.6:
                    last = "Net : Call to recv from %s<%d> failed : Connection reset by peer" % (h0.ip, r.randint(30000, 60000))
                else:
                    last = ib_completion(run, r, h0.ip, h.ip)
                sim.emit_many(rk, te, sim.remote_err_block(rk, te, last, kind="remote" if run.nccl_ver >= "2.19" else "system"))
                sim.exits[rk] = (te + r.uniform(0.3, 1.5), -6)

    def end_restart(self, sim, order_hint=None):
        """a failure with restarts left: every agent sees its group fail and restarts."""
        run, r = self.run, self.run.rng
        ff = {h.name: self._first_fail(sim, h) for h in sim.hosts}
        cand = [(v[0], h) for h in sim.hosts for v in [ff[h.name]] if v]
        cand.sort(key=lambda x: x[0])
        t0, h0 = cand[0]
        T0 = t0 + run.monitor_interval * r.uniform(0.2, 1.0)
        self.propagate(sim, h0, T0)
        ff = {h.name: self._first_fail(sim, h) for h in sim.hosts}
        kills = {}
        ends = []
        g0 = sim.hosts.index(h0)
        for h in sim.hosts:
            ag = self.agents[h.name]
            f = ff[h.name]
            if f and ag.remaining > 0:
                Th = T0 if h is h0 else f[0] + run.monitor_interval * r.uniform(0.2, 1.0)
                ag.failed_line(Th, f[4], f[2], f[3])
                ag.restart_msg(Th + 0.002)
            else:
                Th = T0 + r.uniform(0.3, 8) + (run.monitor_interval if run.tstyle == "glog" else r.uniform(0, 5))
                ag.membership_msg(Th, 1, g0)
            self.events.append(("restart", h.name, Th))
            alive = [(rk, lr, pid) for (rk, lr, pid) in self._local(sim, h) if not (rk in sim.exits and sim.exits[rk][0] <= Th)]
            kk = ag.stop_local(Th + 0.01, alive, sim.hung)
            kills.update(kk)
            for (rk, lr, pid) in self._local(sim, h):
                if rk in sim.exits and sim.exits[rk][0] <= Th:
                    kills[rk] = sim.exits[rk][0] + 1
            ends.append(max([Th + 0.5] + list(kk.values())))
        self._merge_sim(sim, kills)
        self.restart_count += 1
        return max(ends) + r.uniform(1, 6)

    def end_final(self, sim, t_cancel=None):
        """failure with restarts exhausted on the detecting host."""
        run, r = self.run, self.run.rng
        ff = {h.name: self._first_fail(sim, h) for h in sim.hosts}
        cand = sorted([(ff[h.name][0], h) for h in sim.hosts if ff[h.name]], key=lambda x: x[0])
        kills = {}
        if not cand:
            return self.end_sigterm(sim, t_cancel or (sim.t_ready + 3600), sim.hosts)
        t0, h0 = cand[0]
        ag0 = self.agents[h0.name]
        T0 = t0 + run.monitor_interval * r.uniform(0.2, 1.0)
        f = ff[h0.name]
        ag0.failed_line(T0, f[4], f[2], f[3])
        fails = self._failures_at(sim, h0, T0)
        fails.sort(key=lambda x: x[0])
        alive = [(rk, lr, pid) for (rk, lr, pid) in self._local(sim, h0) if not (rk in sim.exits and sim.exits[rk][0] <= T0)]
        kk = ag0.stop_local(T0 + 0.01, alive, sim.hung)
        kills.update(kk)
        t_cf = max([T0 + r.uniform(0.5, 4)] + [v + 0.2 for v in kk.values()])
        ag0.child_failed(t_cf, fails, record_tb=getattr(sim, "record_tb", None))
        self.exit[h0.name] = (t_cf + 0.1, 1)
        for (rk, lr, pid) in self._local(sim, h0):
            if rk in sim.exits and sim.exits[rk][0] <= T0:
                kills[rk] = sim.exits[rk][0] + 1
        end = t_cf
        store_gone = h0 is self.store_host
        for h in sim.hosts:
            if h is h0:
                continue
            ag = self.agents[h.name]
            local = self._local(sim, h)
            if self.kill_all:
                Tk = t_cf + r.uniform(0.3, 3)
                ag.signal_exc(Tk)
                alive = [(rk, lr, pid) for (rk, lr, pid) in local if not (rk in sim.exits and sim.exits[rk][0] <= Tk)]
                kills.update(ag.stop_local(Tk + 0.01, alive, sim.hung))
                for (rk, lr, pid) in local:
                    if rk in sim.exits and sim.exits[rk][0] <= Tk:
                        kills[rk] = sim.exits[rk][0] + 1
                ag.signal_tb(max([Tk + r.uniform(0.5, 5)] + [v + 0.1 for k_, v in kills.items() if sim.host_of(k_) is h]))
                self.exit[h.name] = (Tk + 6, 1)
                end = max(end, Tk + 6)
                continue
            f = ff[h.name]
            if store_gone and run.tstyle == "glog":
                for (rk, lr, pid) in local:
                    if rk in sim.hung or not (rk in sim.exits and sim.exits[rk][0] <= t_cf):
                        if r.random() < 0.7:
                            tt = t_cf + r.uniform(0.5, 30)
                            sim.emit(rk, tt, sim.cpp(rk, tt, "W", "ProcessGroupNCCL.cpp:1324", "%s Failed to check the \"should dump\" flag on TCPStore, (maybe TCPStore server has shut down too early), with error: %s" % (sim.pg(rk), r.choice(["Connection reset by peer", "Broken pipe", "failed to recv, got 0 bytes"]))))
            if not f:
                Tk = t_cancel or (t_cf + r.uniform(1800, 7200))
                ag.signal_exc(Tk)
                alive = [(rk, lr, pid) for (rk, lr, pid) in local]
                kills.update(ag.stop_local(Tk + 0.01, alive, sim.hung))
                ag.signal_tb(Tk + 2)
                self.exit[h.name] = (Tk + 3, 1)
                end = max(end, Tk + 3)
                continue
            Th = f[0] + run.monitor_interval * r.uniform(0.2, 1.0)
            ag.failed_line(Th, f[4], f[2], f[3])
            fl = self._failures_at(sim, h, Th)
            alive = [(rk, lr, pid) for (rk, lr, pid) in local if not (rk in sim.exits and sim.exits[rk][0] <= Th)]
            if ag.remaining > 0:
                ag.restart_msg(Th + 0.002)
                kk = ag.stop_local(Th + 0.01, alive, sim.hung)
                kills.update(kk)
                tr = max([Th + 0.5] + list(kk.values())) + 0.2
                ag.log(tr, "INFO", ag.mod, "[default] Rendezvous'ing worker group")
                ag.rdzv_closed_tb(tr + r.uniform(0.05, 2), store_gone=store_gone)
                self.exit[h.name] = (tr + 3, 1)
                end = max(end, tr + 3)
            else:
                kk = ag.stop_local(Th + 0.01, alive, sim.hung)
                kills.update(kk)
                tcf = max([Th + r.uniform(0.5, 4)] + [v + 0.2 for v in kk.values()])
                ag.child_failed(tcf, fl)
                self.exit[h.name] = (tcf + 0.1, 1)
                end = max(end, tcf)
            for (rk, lr, pid) in local:
                if rk in sim.exits and sim.exits[rk][0] <= Th:
                    kills[rk] = sim.exits[rk][0] + 1
        self._merge_sim(sim, kills)
        return end

    def end_sigterm(self, sim, Tk, hosts, graceful=False):
        """scheduler sends SIGTERM to the agents on `hosts` at Tk (preemption / cancel / time limit)."""
        run, r = self.run, self.run.rng
        kills = {}
        end = Tk
        for h in hosts:
            ag = self.agents[h.name]
            t = Tk + r.uniform(0, 1.5)
            ag.signal_exc(t)
            local = self._local(sim, h)
            alive = [(rk, lr, pid) for (rk, lr, pid) in local if not (rk in sim.exits and sim.exits[rk][0] <= t)]
            if graceful and sim.hosts.index(h) == 0:
                # rank 0 catches SIGTERM, saves a checkpoint (app-level handler)
                st = sim.step
                sim.last_ckpt = st
                sim.emit_many(0, t + 0.1, self._sigterm_save_lines(sim, t, st), 0.2)
                kk = ag.stop_local(t + 0.01, alive, sim.hung)
                for k in kk:
                    kk[k] = max(kk[k], t + 25)
            else:
                kk = ag.stop_local(t + 0.01, alive, sim.hung)
            kills.update(kk)
            for (rk, lr, pid) in local:
                if rk in sim.exits and sim.exits[rk][0] <= t:
                    kills[rk] = sim.exits[rk][0] + 1
            tb_t = max([t + 0.5] + list(kk.values())) + 0.1
            ag.signal_tb(tb_t)
            self.exit[h.name] = (tb_t + 0.2, 1)
            end = max(end, tb_t + 0.2)
        self._merge_sim(sim, kills)
        return end

    def _sigterm_save_lines(self, sim, t, step):
        run = self.run
        h = sim.host_of(0)
        ck = (step // run.ckpt_every) * run.ckpt_every
        if run.framework == "hf":
            return ["Received SIGTERM, saving checkpoint before exit", "Saving model checkpoint to ./output/checkpoint-%d" % step]
        if run.framework == "titan":
            return ["[titan] %s - root - WARNING - Received signal 15, saving checkpoint at step %d" % (f_iso_ms(h.c(t)), step)]
        return ["[%s][train][WARNING] caught SIGTERM at step %d; writing emergency checkpoint" % (f_iso_ms(h.c(t)), step),
                "[%s][ckpt][INFO] Saved checkpoint step %d to %s/step_%d (%.1fs)" % (f_iso_ms(h.c(t + 20)), step, run.ckpt_dir, step, run.rng.uniform(8, 20))]

    def host_text(self, hn, extra_lines=None):
        L = list(self.host_lines[hn]) + list(self.agents[hn].lines) + list(extra_lines or [])
        L.sort(key=lambda x: x[0])
        return [x[1] for x in L]

# ----------------------------------------------------------------------------
# Story planning: which faults happen in which attempt, and how the job ends
# ----------------------------------------------------------------------------

TRANSIENT_FIRST = ["network", "gpu_hardware", "host_oom_kill", "cuda_oom", "unknown", "hang", "crash_signal",
                   "nvlink", "ecc_memory", "data_loader_stall", "python_exception", "illegal_memory_access"]


class Seg(dict):
    pass


class Story:
    def __init__(self):
        self.cause = None
        self.healthy = True
        self.kind = "clean"
        self.segs = []
        self.rdzv_retry = False
        self.truth_seg = None       # index of the segment whose fault is the truth
        self.question = "why did it fail"

    def n_restarts(self):
        return sum(1 for s in self.segs[:-1] if s["ev"] != "success")


def plan_story(rng, cause, n_hosts, gpn, allow_preempt_routine=True, allow_scaleup=False):
    r = rng
    st = Story()
    st.cause = cause
    st.healthy = cause is None
    bad_host = r.randrange(1, n_hosts) if n_hosts > 1 else 0
    bad_lr = r.randrange(gpn)

    def fseg(c, recovered, host=None, lr=None, variant=None):
        return Seg(ev="fault", cause=c, host=bad_host if host is None else host, lr=bad_lr if lr is None else lr,
                   variant=variant, recovered=recovered)

    if cause is None:
        k = r.choice(["clean", "preempt", "rdzv", "preempt_rdzv", "preempt2", "clean_scary"] + (["scaleup"] if allow_scaleup else []))
        if not allow_preempt_routine and k.startswith("preempt"):
            k = r.choice(["clean", "rdzv", "clean_scary"])
        st.kind = "healthy_" + k
        st.rdzv_retry = "rdzv" in k
        if k.startswith("preempt"):
            st.segs.append(Seg(ev="preempt", graceful=r.random() < 0.6, routine=True, recovered=True))
            if k == "preempt2":
                st.segs.append(Seg(ev="preempt", graceful=True, routine=True, recovered=True))
        if k == "scaleup":
            st.segs.append(Seg(ev="scaleup", recovered=True))
        st.segs.append(Seg(ev="success"))
        return st

    weights = {"exhaust": 3, "switch": 3, "single": 2, "recovered": 2}
    if cause == "preemption":
        weights = {"exhaust": 3, "switch": 2, "single": 3, "recovered": 0}
    if cause in ("python_exception",):
        weights["exhaust"] = 4
    if cause == "straggler":
        weights = {"exhaust": 1, "switch": 2, "single": 3, "recovered": 2}
    if cause == "unknown":
        weights["recovered"] = 1
    kinds = [k for k in weights if weights[k] > 0]
    kind = r.choices(kinds, [weights[k] for k in kinds])[0]
    st.kind = kind
    st.rdzv_retry = r.random() < 0.15
    if kind == "exhaust":
        n = r.choice([2, 3, 3, 4])
        if cause == "preemption":
            for i in range(n - 1):
                st.segs.append(Seg(ev="preempt", graceful=r.random() < 0.4, routine=False, recovered=True, node=True))
            st.segs.append(Seg(ev="preempt", graceful=False, routine=False, recovered=False, node=r.random() < 0.5, final=True))
        else:
            v = None
            for i in range(n):
                st.segs.append(fseg(cause, i < n - 1, variant=v))
        st.question = "restarts exhausted: why did it fail"
    elif kind == "switch":
        first = r.choice([c for c in TRANSIENT_FIRST if c != cause])
        other_host = r.randrange(n_hosts)
        if first in ("network", "gpu_hardware", "host_oom_kill", "ecc_memory", "nvlink") and n_hosts > 1:
            while other_host == bad_host:
                other_host = r.randrange(n_hosts)
        st.segs.append(fseg(first, True, host=other_host, lr=r.randrange(gpn)))
        if r.random() < 0.35 and allow_preempt_routine:
            st.segs.append(Seg(ev="preempt", graceful=True, routine=True, recovered=True))
        if cause == "preemption":
            st.segs.append(Seg(ev="preempt", graceful=False, routine=False, recovered=False, node=r.random() < 0.4, final=True))
        else:
            st.segs.append(fseg(cause, False))
        st.question = "first restart cause differs from the final one"
    elif kind == "single":
        if r.random() < 0.4 and allow_preempt_routine:
            st.segs.append(Seg(ev="preempt", graceful=True, routine=True, recovered=True))
        if cause == "preemption":
            st.segs.append(Seg(ev="preempt", graceful=r.random() < 0.3, routine=False, recovered=False, node=r.random() < 0.3, final=True))
        else:
            st.segs.append(fseg(cause, False))
    else:  # recovered
        if r.random() < 0.3 and allow_preempt_routine:
            st.segs.append(Seg(ev="preempt", graceful=True, routine=True, recovered=True))
        st.segs.append(fseg(cause, True))
        st.segs.append(Seg(ev="success"))
        st.question = "why did it restart (job completed)"
    # truth segment
    if kind == "recovered":
        st.truth_seg = max(i for i, s in enumerate(st.segs) if s["ev"] == "fault")
    else:
        st.truth_seg = len(st.segs) - 1
    return st


# ----------------------------------------------------------------------------
# kernel log formatting and harmless noise
# ----------------------------------------------------------------------------

KERN_NOISE = [
    "perf: interrupt took too long (%d > %d), lowering kernel.perf_event_max_sample_rate to %d",
    "EDAC MC%d: 1 CE memory read error on CPU_SrcID#%d_MC#0_Chan#1_DIMM#0 (channel:1 slot:0 page:0x%x offset:0x0 grain:32 syndrome:0x0 - err_code:0x0000:0x009f)",
    "nvme nvme%d: I/O %d QID %d timeout, completion polled",
    "IPv6: ADDRCONF(NETDEV_CHANGE): ib%d: link becomes ready",
    "mlx5_core 0000:%s:00.0: mlx5_pcie_event:299:(pid %d): PCIe slot advertised sufficient power (27W).",
    "audit: type=1400 audit(%d.%03d:%d): apparmor=\"DENIED\" operation=\"open\" class=\"file\" profile=\"snap.lxd.activate\" name=\"/proc/%d/mounts\" pid=%d comm=\"snap-exec\" requested_mask=\"r\" denied_mask=\"r\" fsuid=0 ouid=0",
    "NFS: state manager: check lease failed on NFSv4 server %s with error 10008",
    "TCP: request_sock_TCP: Possible SYN flooding on port %d. Sending cookies.  Check SNMP counters.",
    "workqueue: nfs4_renew_state [nfsv4] hogged CPU for >10000us 4 times, consider switching to WQ_UNBOUND",
    "igb 0000:%s:00.0 eno1: igb: eno1 NIC Link is Up 1000 Mbps Full Duplex, Flow Control: RX",
]


def kern_noise(run, h, t_from, t_to, n):
    r = run.rng
    out = []
    for _ in range(n):
        t = r.uniform(t_from, t_to)
        k = r.randrange(len(KERN_NOISE))
        tpl = KERN_NOISE[k]
        if k == 0:
            a = r.randint(2501, 9000)
            msg = tpl % (a, a - r.randint(1, 500), r.choice([79500, 63000, 50000, 39750]))
        elif k == 1:
            msg = tpl % (r.randint(0, 3), r.randint(0, 1), r.getrandbits(20))
        elif k == 2:
            msg = tpl % (r.randint(0, 3), r.randint(1, 900), r.randint(1, 64))
        elif k == 3:
            msg = tpl % r.randint(0, 7)
        elif k == 4:
            msg = tpl % (r.choice(NIC_PCI), r.randint(100, 9000))
        elif k == 5:
            p = r.randint(1000, 90000)
            msg = tpl % (int(t), r.randint(0, 999), r.randint(100, 9999), p, p)
        elif k == 6:
            msg = tpl % r.choice(["nfs01", "home-nfs", "10.0.0.4"])
        elif k == 7:
            msg = tpl % run.master_port
        elif k == 9:
            msg = tpl % r.choice(["01", "02", "c4"])
        else:
            msg = tpl
        out.append((t, msg))
    return out


def fmt_kern(run, h, lines, style):
    out = []
    for (t, msg) in sorted(lines, key=lambda x: x[0]):
        if style == "T":
            out.append("[%s] %s" % (f_ctime(h.c(t)), msg))
        elif style == "raw":
            out.append("[%12.6f] %s" % (t - h.boot, msg))
        else:
            out.append("%s %s kernel: %s" % (f_syslog(h.c(t)), h.name, msg))
    return out


IMPORTANT_RE = None


def _important(line):
    global IMPORTANT_RE
    if IMPORTANT_RE is None:
        import re
        IMPORTANT_RE = re.compile(r"Traceback|Error|error|Exception|FAILED|Fatal|fatal|Xid|Signal|SIG[A-Z]+|exitcode|Killed|killed|"
                                  r"oom|OOM|Watchdog|watchdog|Timeout|timed out|CANCELLED|WARN |STRAGGLER|straggler|MxRtt|slowest|"
                                  r"Detected|restart|Restart|Rendezvous|rendezvous|attempts left|terminate|what\(\)|Segmentation|Bus error|"
                                  r"corrupt|double free|dump|heartbeat|Section|quorum|Quorum|mismatch|DataLoader|Resuming|resume|checkpoint|"
                                  r"NestedRestarter|State Transition|FailurePolicy|Snippet|srun:|slurmstepd|\[chain\]|wrapper|Root Cause|"
                                  r"rank      :|host      :|time      :|error_file|traceback :|frame #|File \"|^\s+\S")
    return bool(IMPORTANT_RE.search(line))


def truncate_middle(rng, lines, keep_head=None, keep_tail=None, marker=True, protect=None):
    """users trim long logs: they cut long stretches of repetitive progress/noise, never the errors."""
    n = len(lines)
    if n < 400:
        return lines
    imp = [_important(x) for x in lines]
    # find runs of unimportant lines
    runs = []
    start = None
    for i in range(n + 1):
        if i < n and not imp[i]:
            if start is None:
                start = i
        else:
            if start is not None and i - start >= 60:
                runs.append((i - start, start, i))
            start = None
    if not runs:
        return lines
    runs.sort(reverse=True)
    cuts = sorted(runs[:rng.choice([1, 1, 2])], key=lambda x: x[1])
    out = []
    pos = 0
    for (ln, a, b) in cuts:
        keep_a = a + rng.randint(5, 20)
        keep_b = b - rng.randint(5, 20)
        if keep_b - keep_a < 30:
            continue
        out.extend(lines[pos:keep_a])
        if marker:
            out.extend(["", "[... %d lines removed ...]" % (keep_b - keep_a), ""] if rng.random() < 0.6 else ["..."])
        pos = keep_b
    out.extend(lines[pos:])
    return out

# ----------------------------------------------------------------------------
# generic segment executor on top of ElasticJob
# ----------------------------------------------------------------------------

def seg_duration(run, step0, short=False):
    r = run.rng
    remaining = max(100, run.total_steps - step0)
    frac = r.uniform(0.02, 0.08) if short else r.uniform(0.08, 0.45)
    steps = max(25, int(remaining * frac))
    dur = steps * run.step_time
    return max(240.0, min(dur, r.uniform(3, 9) * 3600))


def record_tb_from(sim, ranks):
    out = {}
    for rk in ranks:
        lines = [x[1] for x in sim.out[rk]]
        try:
            i = max(k for k, ln in enumerate(lines) if ln.startswith("Traceback (most recent call last):"))
        except ValueError:
            continue
        tb = lines[i:i + 40]
        out[rk] = tb
    return out


def straggler_reports(sim, slow_rank, t_s, t_e, style, node_level=False):
    """periodic straggler/performance reports printed by rank 0 (or rank 0 of the job)."""
    run, r = sim.run, sim.r
    h0 = sim.host_of(0)
    slow_host = sim.host_of(slow_rank)
    slow_ranks = [sim.rank_of(slow_host, lr) for lr in range(sim.gpn)] if node_level else [slow_rank]
    period = r.choice([300, 600, 900])
    t = t_s + period * r.uniform(0.5, 1.0)
    n = 0
    while t < t_e and n < 12:
        n += 1
        if style == "nvrx":
            worst = sorted(slow_ranks)[:5]
            scores = {k: r.uniform(0.45, 0.72) for k in worst}
            others = [k for k in range(sim.world) if k not in worst]
            L = []
            L.append("STRAGGLER DETECTION WARNING: Some GPUs have worse relative performance. Affected ranks: {%s}" % ", ".join(str(k) for k in worst))
            L.append("")
            L.append("GPU relative performance:")
            nw = min(5, sim.world)
            L.append(" Worst performing %d/%d ranks:" % (nw, sim.world))
            rows = [(k, scores[k]) for k in worst] + [(k, r.uniform(0.95, 0.99)) for k in r.sample(others, max(0, nw - len(worst)))]
            rows.sort(key=lambda x: x[1])
            for k, sc in rows[:nw]:
                L.append("  Rank=%d Node=%s Score=%.2f" % (k, sim.host_of(k).name, sc))
            L.append(" Best performing %d/%d ranks:" % (nw, sim.world))
            for k in r.sample(others, min(nw, len(others))):
                L.append("  Rank=%d Node=%s Score=%.2f" % (k, sim.host_of(k).name, r.uniform(0.99, 1.0)))
            sim.emit_many(0, t, L, 0.0001)
        elif style == "minmax":
            sr = r.choice(slow_ranks)
            fast = r.choice([k for k in range(sim.world) if k not in slow_ranks])
            base = run.step_time * 1000
            sim.emit(0, t, "[%s] | MnRtt/Rnk: %.2fms/%d | MxRtt/Rnk: %.2fms/%d | MnPwr/Rnk: %.2fW/%d | MxPwr/Rnk: %.2fW/%d | MnTmp/Rnk: %.2fC/%d | MxTmp/Rnk: %.2fC/%d | MnUtl/Rnk: %.2f%%/%d | MxUtl/Rnk: %.2f%%/%d | MnClk/Rnk: %.2fMHz/%d | MxClk/Rnk: %.2fMHz/%d | MnDRtt/Rnk: %.2fms/%d | MxDRtt/Rnk: %.2fms/%d | MnEtpt/Rnk: %.2fTF/%d | MxEtpt/Rnk: %.2fTF/%d" % (
                f_iso_s(h0.c(t)), base * 0.98, fast, base * r.uniform(1.6, 2.4), sr, r.uniform(300, 420), sr, r.uniform(650, 700), fast,
                r.uniform(45, 55), fast, r.uniform(78, 92) if not node_level else r.uniform(60, 70), sr, r.uniform(40, 60), r.choice([k for k in range(sim.world) if k != sr]), 100.0, fast,
                r.uniform(990, 1410), sr, 1980.0, fast, r.uniform(0.5, 2), fast, r.uniform(60, 400), sr, r.uniform(180, 260), sr, r.uniform(480, 520), fast))
        else:
            sr = r.choice(slow_ranks)
            med = run.step_time * 1000 * r.uniform(0.8, 0.9)
            sim.emit(0, t, "[%s][perf][WARNING] step-time skew: slowest rank %d (%s) fwd+bwd %.1f ms vs median %.1f ms (x%.2f)" % (
                f_iso_ms(h0.c(t)), sr, sim.host_of(sr).name, med * r.uniform(1.6, 2.5), med, r.uniform(1.6, 2.5)))
        t += period * r.uniform(0.9, 1.1)


def run_segment(job, seg, t_start, step0, hosts, attempt_no, end_mode, short=False, straggler_style="plain", kill_hosts=None, post_fault=None):
    run, r = job.run, job.run.rng
    sim = job.new_sim(t_start, hosts, step0, attempt_no)
    res = {"sim": sim, "info": None}
    ev = seg["ev"]
    dur = seg_duration(run, step0, short=short)
    if ev == "success":
        sim.finish_success()
        res["t_end"] = job.end_success(sim)
    elif ev == "scaleup":
        tk = sim.t_ready + dur
        sim.progress(tk)
        res["t_end"] = job.end_membership(sim, tk)
    elif ev == "preempt":
        tk = sim.t_ready + dur
        sim.progress(tk)
        if seg.get("node"):
            cand = [h for h in hosts if h is not job.store_host] or hosts
            h = cand[seg.get("host", 1) % len(cand)] if "host" in seg else r.choice(cand)
            res["info"] = {"rank": None, "node": h.name, "desc": "node %s preempted/reclaimed (SIGTERM to its agent)" % h.name}
            res["t_end"] = job.end_node_loss(sim, h, tk, final=(end_mode != "restart"))
            res["lost_host"] = h
        else:
            res["info"] = {"rank": None, "node": None, "desc": "scheduler sent SIGTERM to the whole job"}
            res["t_end"] = job.end_sigterm(sim, tk, kill_hosts or hosts, graceful=seg.get("graceful", False))
    else:
        c = seg["cause"]
        h = hosts[seg["host"] % len(hosts)]
        lr = seg["lr"] % run.gpn
        if c == "straggler":
            t_s = sim.t_ready + dur * r.uniform(0.05, 0.3)
            sim.progress(t_s)
            node_level = r.random() < 0.3
            info = fault_straggler(sim, h, lr, t_s, seg.get("variant"))
            if node_level:
                info["rank"] = None
                info["desc"] = "all ranks on %s persistently slow" % h.name
            slow = r.uniform(1.5, 2.6)
            ending = seg.get("strag_end") or r.choice(["terminate", "terminate", "slow_finish"])
            if ending == "slow_finish" and end_mode == "final":
                remaining = run.total_steps - sim.step
                t_e = t_s + remaining * run.step_time * slow + 60
                straggler_reports(sim, sim.rank_of(h, lr), t_s, t_e, straggler_style, node_level)
                sim.progress(t_e, slow_factor=slow, slow_from=t_s)
                sim.finish_success()
                res["t_end"] = job.end_success(sim)
                info["desc"] += "; job finished but ~%.1fx slower" % slow
            else:
                t_e = t_s + dur * r.uniform(0.5, 1.2)
                straggler_reports(sim, sim.rank_of(h, lr), t_s, t_e, straggler_style, node_level)
                sim.progress(t_e, slow_factor=slow, slow_from=t_s)
                h0 = sim.host_of(0)
                if run.framework == "titan":
                    msg = "[titan] %s - root - ERROR - Detected stragglers. Terminating training..." % f_iso_ms(h0.c(t_e))
                else:
                    msg = "[%s][straggler][ERROR] Detected stragglers. Terminating training..." % f_iso_ms(h0.c(t_e))
                sim.emit(0, t_e + 1, msg)
                for k in range(sim.world):
                    sim.exits[k] = (t_e + r.uniform(20, 40), 0)
                sim.t_end = t_e + 40
                res["t_end"] = job.end_success(sim)
                info["desc"] += "; straggler detection terminated training"
            res["info"] = info
        else:
            t_f = sim.t_ready + dur
            sim.progress(t_f)
            info = FAULTS[c](sim, h, lr, t_f, seg.get("variant"))
            seg["variant"] = info.get("variant")
            if post_fault:
                post_fault(job, sim, t_f, info)
            if c == "python_exception" and r.random() < 0.35:
                sim.record_tb = record_tb_from(sim, [k for k in range(sim.world) if k in sim.exits and sim.exits[k][1] == 1][:3])
            res["info"] = info
            if end_mode == "restart":
                res["t_end"] = job.end_restart(sim)
            else:
                res["t_end"] = job.end_final(sim)
    res["step"] = sim.step
    res["ckpt"] = sim.last_ckpt
    return res


def _end_membership(self, sim, tk):
    run, r = self.run, self.run.rng
    kills = {}
    ends = []
    for i, h in enumerate(sim.hosts):
        ag = self.agents[h.name]
        Th = tk + r.uniform(0.1, 6)
        ag.membership_msg(Th, 1, i)
        alive = self._local(sim, h)
        kk = ag.stop_local(Th + 0.01, alive, sim.hung)
        kills.update(kk)
        ends.append(Th + 1)
    self._merge_sim(sim, kills)
    return max(ends) + r.uniform(2, 8)


def _end_node_loss(self, sim, h, tk, final=False):
    """one node's agent gets SIGTERM (spot reclaim / preemption); the rest see errors."""
    run, r = self.run, self.run.rng
    ag = self.agents[h.name]
    ag.signal_exc(tk)
    local = self._local(sim, h)
    kk = ag.stop_local(tk + 0.01, local, sim.hung)
    for rk, lr, pid in local:
        sim.exits[rk] = (tk + 0.03, -15)
    ag.signal_tb(tk + r.uniform(0.5, 3))
    self.exit[h.name] = (tk + 4, 1)
    for rank in range(sim.world):
        hh = sim.host_of(rank)
        if hh is h or rank in sim.exits:
            continue
        if r.random() < (0.6 if self.launcher != "ds_elastic" else 0.2):
            te = tk + r.uniform(1, 40)
            last = "socketProgress: Connection closed by remote peer %s<%d>" % (h.name, r.randint(30000, 60000)) if r.random() < 0.5 else ib_completion(run, r, h.ip, hh.ip)
            sim.emit_many(rank, te, sim.remote_err_block(rank, te, last, kind="remote" if run.nccl_ver >= "2.19" else "system"))
            sim.exits[rank] = (te + r.uniform(0.5, 2), -6)
    sim.survivors_watchdog(tk, sim.seq_for_step(sim.step))
    rest = [x for x in sim.hosts if x is not h]
    saved = sim.hosts
    # agents on the remaining hosts handle their own failures
    sim_hosts_backup = sim.hosts
    kills_h = {rk: tk + 0.03 for rk, _, _ in local}
    self._skip = h
    if final:
        end = self._end_final_subset(sim, rest, kills_h)
    else:
        end = self._end_restart_subset(sim, rest, kills_h)
    self._skip = None
    return end


def _end_restart_subset(self, sim, rest, pre_kills):
    run, r = self.run, self.run.rng
    ff = {h.name: self._first_fail(sim, h) for h in rest}
    cand = sorted([(ff[h.name][0], h) for h in rest if ff[h.name]], key=lambda x: x[0])
    kills = dict(pre_kills)
    if not cand:
        self._merge_sim(sim, kills)
        return max(pre_kills.values()) + 5
    T0 = cand[0][0] + run.monitor_interval
    ends = []
    for h in rest:
        ag = self.agents[h.name]
        f = ff[h.name]
        if f and ag.remaining > 0:
            Th = f[0] + run.monitor_interval * r.uniform(0.2, 1)
            ag.failed_line(Th, f[4], f[2], f[3])
            ag.restart_msg(Th + 0.002)
        elif self.launcher == "ds_elastic" and ag.remaining > 0:
            Th = T0 + r.uniform(0.3, 8)
            ag.restart_msg(Th, state="HEALTHY")
        else:
            Th = T0 + r.uniform(0.3, 8)
            ag.membership_msg(Th, 1, sim.hosts.index(cand[0][1]))
        self.events.append(("restart", h.name, Th))
        local = self._local(sim, h)
        alive = [(rk, lr, pid) for (rk, lr, pid) in local if not (rk in sim.exits and sim.exits[rk][0] <= Th)]
        kk = ag.stop_local(Th + 0.01, alive, sim.hung)
        kills.update(kk)
        for (rk, lr, pid) in local:
            if rk in sim.exits and sim.exits[rk][0] <= Th:
                kills[rk] = sim.exits[rk][0] + 1
        ends.append(max([Th + 0.5] + list(kk.values())))
    self._merge_sim(sim, kills)
    self.restart_count += 1
    return max(ends) + r.uniform(1, 6)


def _end_final_subset(self, sim, rest, pre_kills):
    # simplest faithful behaviour: each remaining agent fails on its own with no restarts left
    run, r = self.run, self.run.rng
    kills = dict(pre_kills)
    end = max(pre_kills.values())
    for h in rest:
        ag = self.agents[h.name]
        ag.remaining = 0
        f = self._first_fail(sim, h)
        local = self._local(sim, h)
        if not f:
            continue
        Th = f[0] + run.monitor_interval * r.uniform(0.2, 1)
        ag.failed_line(Th, f[4], f[2], f[3])
        fl = self._failures_at(sim, h, Th)
        alive = [(rk, lr, pid) for (rk, lr, pid) in local if not (rk in sim.exits and sim.exits[rk][0] <= Th)]
        kk = ag.stop_local(Th + 0.01, alive, sim.hung)
        kills.update(kk)
        for (rk, lr, pid) in local:
            if rk in sim.exits and sim.exits[rk][0] <= Th:
                kills[rk] = sim.exits[rk][0] + 1
        tcf = max([Th + r.uniform(0.5, 4)] + [v + 0.2 for v in kk.values()])
        ag.child_failed(tcf, fl)
        self.exit[h.name] = (tcf + 0.1, 1)
        end = max(end, tcf)
    self._merge_sim(sim, kills)
    return end


ElasticJob.end_membership = _end_membership
ElasticJob.end_node_loss = _end_node_loss
ElasticJob._end_restart_subset = _end_restart_subset
ElasticJob._end_final_subset = _end_final_subset

# ----------------------------------------------------------------------------
# layouts
# ----------------------------------------------------------------------------

def fault_gpu_gone_at_start(sim, h, lr, t, prev):
    """GPU lost in a previous attempt and the node was re-admitted without a reset."""
    r, run = sim.r, sim.run
    rank = sim.rank_of(h, lr)
    pci = h.gpu_pci[lr]
    sim.klog(h, t - r.uniform(1, 5), "NVRM: GPU 0000:%s:00.0: RmInitAdapter failed! (0x23:0x65:1426)" % pci)
    sim.klog(h, t - r.uniform(0.5, 1), "NVRM: GPU 0000:%s:00.0: rm_init_adapter failed, device minor number %d" % (pci, lr))
    fr = [("%s/%s" % (run.workdir, run.script), r.randint(500, 900), "<module>", "main()"),
          ("%s/%s" % (run.workdir, run.script), r.randint(20, 80), "main", "torch.cuda.set_device(local_rank)"),
          (run.tp("cuda/__init__.py"), 478 if run.torch_ver >= "2.4" else 404, "set_device", "torch._C._cuda_setDevice(device)")]
    sim.emit_many(rank, t, py_tb(fr, ["RuntimeError: CUDA error: unknown error"] + cuda_tail(run)[:-1]))
    sim.exits[rank] = (t + r.uniform(0.5, 2), 1)
    sim.survivors_watchdog(t, 1, exclude=(rank,))
    return {"rank": rank, "node": h.name, "variant": "gone", "desc": "GPU %d on %s (lost earlier, Xid 79) fails CUDA init after the node was re-admitted" % (lr, h.name)}


def exec_story(run, story, job, hosts, spare_hosts, opts):
    """run all segments through one ElasticJob (inner restarts). returns infos list, t_end."""
    r = run.rng
    t_start = job.launch(run.t0, hosts, rdzv_retry=story.rdzv_retry, first=True)
    cur = list(hosts)
    step = 0
    infos = []
    t_end = t_start
    prev_variant = {}
    for i, seg in enumerate(story.segs):
        last = i == len(story.segs) - 1
        end_mode = "final" if last else "restart"
        if seg["ev"] == "preempt" and not seg.get("node") and not last:
            seg["node"] = True
        if seg["ev"] == "fault":
            key = (seg["cause"], seg["host"], seg["lr"])
            if key in prev_variant and seg.get("variant") is None:
                seg["variant"] = prev_variant[key]
        short = i > 0 and seg["ev"] == "fault" and any(s["ev"] == "fault" and s["cause"] == seg["cause"] for s in story.segs[:i])
        if seg["ev"] == "fault" and seg["cause"] == "gpu_hardware" and str(seg.get("variant", "")).startswith("xid79") and short:
            sim = job.new_sim(t_start, cur, step, i)
            h = cur[seg["host"] % len(cur)]
            info = fault_gpu_gone_at_start(sim, h, seg["lr"] % run.gpn, sim.t_ready - r.uniform(10, 30), seg["variant"])
            t_end = job.end_restart(sim) if end_mode == "restart" else job.end_final(sim)
            res = {"info": info, "t_end": t_end, "ckpt": step, "step": step}
        else:
            res = run_segment(job, seg, t_start, step, cur, i, end_mode, short=short, straggler_style=opts.get("straggler_style", "plain"))
        if seg["ev"] == "fault":
            prev_variant[(seg["cause"], seg["host"], seg["lr"])] = seg.get("variant")
        infos.append(res["info"])
        t_end = res["t_end"]
        if last:
            break
        if res.get("lost_host") is not None:
            cur = [h for h in cur if h is not res["lost_host"]]
        if seg["ev"] == "scaleup" and spare_hosts:
            nh = spare_hosts.pop(0)
            job.agents[nh.name].launch_banner(t_end - r.uniform(5, 30), job.nnodes, run.gpn, job.store_host)
            cur.append(nh)
        step = res["ckpt"]
        t_start = job.launch(t_end, cur, first=False)
    return infos, t_end


def pick_nccl_debug(r):
    return r.choice([None, None, "WARN", "INFO", "INFO"])


def truth_from(story, infos, layout, extra_note=""):
    if story.healthy:
        desc = {"clean": "ran to completion", "clean_scary": "ran to completion; a few alarming-looking but harmless lines",
                "preempt": "one planned preemption, resumed from checkpoint, completed", "preempt2": "two planned preemptions, resumed each time, completed",
                "rdzv": "one transient rendezvous/connection retry at startup, then completed", "preempt_rdzv": "transient rendezvous retry plus one planned preemption, completed",
                "scaleup": "a node joined mid-run (membership change, routine restart), completed"}.get(story.kind.replace("healthy_", ""), story.kind)
        return {"healthy": True, "cause": None, "initiator": None, "layout": layout, "notes": "healthy: " + desc}
    info = infos[story.truth_seg] or {}
    init = {"rank": info.get("rank"), "node": info.get("node")}
    if init["rank"] is None and init["node"] is None:
        init = None
    seq = []
    for s, inf in zip(story.segs, infos):
        if s["ev"] == "fault":
            seq.append(s["cause"])
        elif s["ev"] == "preempt":
            seq.append("preemption" + ("(routine)" if s.get("routine") else ""))
        elif s["ev"] == "scaleup":
            seq.append("scale-up")
    which = "cause of the fault the machinery recovered from (job then completed)" if story.kind == "recovered" else "cause of the failure that finally ended the job"
    notes = "%s [story=%s; attempt events: %s]. truth = %s: %s. %s" % (
        story.question, story.kind, " -> ".join(seq) + (" -> success" if story.segs[-1]["ev"] == "success" else ""), which,
        info.get("desc", ""), extra_note)
    return {"healthy": False, "cause": story.cause, "initiator": init, "layout": layout, "notes": notes.strip()}


STALE_SCARY = [
    "NVRM: Xid (PCI:0000:%s:00): 13, pid=%d, name=python, Graphics SM Warp Exception on (GPC 1, TPC 3, SM 0): Out Of Range Address",
    "NVRM: Xid (PCI:0000:%s:00): 43, pid=%d, name=python, Ch 00000008",
    "NVRM: Xid (PCI:0000:%s:00): 31, pid=%d, name=jupyter-lab, Ch 00000009, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_2 faulted @ 0x7f33_12000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ",
]


def attach_kern(run, files, job_kern, hosts, fault_hosts, style, name_fmt, t_from, t_to, always_noise=None):
    """operators attach dmesg/journal of the suspicious node(s); sometimes of a healthy one too.
    Stale events from before the job (a previous user's crash) are harmless."""
    r = run.rng
    if always_noise is None:
        always_noise = r.random() < 0.35
    for h in hosts:
        kl = list(job_kern.get(h.name, []))
        has = bool(kl)
        if not has and not (always_noise and r.random() < 0.4):
            continue
        if h.name not in fault_hosts and not has and r.random() < 0.5:
            continue
        kl += kern_noise(run, h, t_from - 3600, t_to + 600, r.randint(3, 12))
        if r.random() < 0.3 and h.gpu_pci and h.name not in fault_hosts:
            ts = t_from - r.uniform(2 * 3600, 30 * 3600)
            kl.append((ts, r.choice(STALE_SCARY) % (r.choice(h.gpu_pci), r.randint(1000, 900000))))
        files[name_fmt % h.name] = "\n".join(fmt_kern(run, h, kl, style)) + "\n"


def layout_torchrun_elastic(run, story):
    r = run.rng
    nh = r.choice([2, 2, 3, 4]) if run.gpn == 8 else r.choice([2, 3, 4, 6])
    if len(story.segs) >= 3 and nh * run.gpn > 24:
        nh = max(2, 24 // run.gpn)
    n_node_loss = sum(1 for s in story.segs[:-1] if s["ev"] == "preempt")
    nh = max(nh, n_node_loss + 2)
    hosts = make_hosts(run, nh + 1)
    spare = [hosts[-1]]
    hosts = hosts[:-1]
    n_restart_events = len(story.segs) - 1
    exhausted = not story.healthy and story.kind != "recovered"
    max_r = n_restart_events + (0 if exhausted else r.randint(1, 3))
    any_node = any(s["ev"] == "preempt" for s in story.segs[:-1]) or any(s["ev"] == "scaleup" for s in story.segs)
    nnodes = "%d:%d" % (max(1, nh - 1), nh + (1 if any(s["ev"] == "scaleup" for s in story.segs) else 0)) if (any_node or r.random() < 0.4) else str(nh)
    job = ElasticJob(run, hosts + spare, max_r, "torchrun", nnodes, info=r.random() < 0.8, nccl_debug=pick_nccl_debug(r))
    infos, t_end = exec_story(run, story, job, hosts, spare, {"straggler_style": "plain"})
    files = {}
    fmt = r.choice(["%s.log", "torchrun_%s.log", "train-%s.out", "logs/%s.txt"])
    used = [h for h in hosts + spare if job.agents[h.name].lines]
    for h in used:
        lines = job.host_text(h.name)
        if r.random() < 0.35:
            lines = truncate_middle(r, lines)
        files[fmt % h.name] = "\n".join(lines) + "\n"
    cmd = "%s --nnodes=%s --nproc-per-node=%d --max-restarts=%d --rdzv-backend=c10d --rdzv-endpoint=%s:%d --rdzv-id=%s \\\n    %s --config configs/%s.yaml" % (
        "torchrun", nnodes, run.gpn, max_r, hosts[0].name, run.master_port, run.rdzv_id, run.script, run.model)
    files["launch.sh"] = "#!/bin/bash\n# started on every node via pdsh\nexport NCCL_DEBUG=%s\nexport LOGLEVEL=%s\nexport TORCH_NCCL_ASYNC_ERROR_HANDLING=1\n%s\n" % (
        job.nccl_debug or "WARN", "INFO" if job.agents[hosts[0].name].info else "WARNING", cmd)
    fault_hosts = [i["node"] for i in infos if i and i.get("node")]
    attach_kern(run, files, job.kern, hosts + spare, fault_hosts, r.choice(["T", "raw", "journal"]), r.choice(["dmesg-%s.txt", "kern-%s.log", "%s.dmesg"]), run.t0, t_end)
    for k, v in job.extra.items():
        files[k] = v
    return files, truth_from(story, infos, "torchrun_elastic")

# ----------------------------------------------------------------------------
# helpers shared by the scheduler-level layouts
# ----------------------------------------------------------------------------

def _host_timed(self, hn):
    L = list(self.host_lines[hn]) + list(self.agents[hn].lines)
    L.sort(key=lambda x: x[0])
    return L


ElasticJob.host_timed = _host_timed


def kill_host_abruptly(job, sim, h, t):
    """container/node disappears: its agent and ranks print nothing after t."""
    ag = job.agents[h.name]
    ag.lines = [x for x in ag.lines if x[0] <= t]
    base = sim.hosts.index(h) * sim.gpn
    for lr in range(sim.gpn):
        rk = base + lr
        sim.out[rk] = [x for x in sim.out[rk] if x[0] <= t]
        sim.exits[rk] = (t, -9)
    job.exit[h.name] = (t, 137)


def end_final_with_dead(job, sim, dead_host, t_dead):
    """one host vanished (pod OOMKilled / node lost); survivors fail afterwards."""
    run, r = job.run, job.run.rng
    kill_host_abruptly(job, sim, dead_host, t_dead)
    rest = [h for h in sim.hosts if h is not dead_host]
    job.propagate(sim, dead_host, t_dead, window=40.0, hosts=rest)
    kills = {}
    base = sim.hosts.index(dead_host) * sim.gpn
    for lr in range(sim.gpn):
        kills[base + lr] = t_dead
    return job._end_final_subset(sim, rest, kills)


def compress_nodelist(names):
    import re
    groups = {}
    order = []
    for n in names:
        m = re.match(r"^(.*?)(\d+)$", n)
        if not m:
            groups.setdefault(n, None)
            order.append((n, None))
            continue
        pre, num = m.group(1), m.group(2)
        if pre not in groups or groups[pre] is None:
            groups[pre] = []
            order.append((pre, True))
        groups[pre].append(num)
    out = []
    for pre, isnum in order:
        if not isnum:
            out.append(pre)
            continue
        nums = sorted(groups[pre], key=int)
        if len(nums) == 1:
            out.append(pre + nums[0])
            continue
        ranges = []
        start = prev = nums[0]
        for x in nums[1:]:
            if int(x) == int(prev) + 1:
                prev = x
                continue
            ranges.append(start if start == prev else "%s-%s" % (start, prev))
            start = prev = x
        ranges.append(start if start == prev else "%s-%s" % (start, prev))
        out.append("%s[%s]" % (pre, ",".join(ranges)))
    return ",".join(out)


def slurm_hosts(run, n):
    r = run.rng
    style = r.choice(["gpu", "node", "dgx", "cw"])
    return make_hosts(run, n, style=style)


def sacct_text(run, rows, steps):
    hdr = "%-16s %-20s %-10s %-11s %-8s %-10s %-28s %-19s %-19s" % ("JobID", "JobName", "Partition", "State", "ExitCode", "Elapsed", "NodeList", "Start", "End")
    sep = " ".join("-" * w for w in (16, 20, 10, 11, 8, 10, 28, 19, 19))
    out = [hdr, sep]
    for row in rows + steps:
        out.append("%-16s %-20s %-10s %-11s %-8s %-10s %-28s %-19s %-19s" % row)
    return "\n".join(out) + "\n"


def run_outer_attempt(run, seg, hosts, t, step, attempt_no, launcher="torchrun", kill_all=True, nccl_debug=None, info=True,
                      rdzv_retry=False, max_restarts=0, straggler_style="plain", entry=None, dead_on_oom=False, keep_node=False):
    """one scheduler-level attempt = a fresh launcher process per node (max_restarts=0 by default)."""
    r = run.rng
    for h in hosts:
        h.agent_pid = run.pid()
    job = ElasticJob(run, hosts, max_restarts, launcher, str(len(hosts)), info=info, kill_all_on_exit=kill_all, nccl_debug=nccl_debug, entry=entry)
    t_start = job.launch(t, hosts, rdzv_retry=rdzv_retry, first=True)
    if seg["ev"] == "preempt" and seg.get("node") and not keep_node:
        seg = Seg(seg)
        seg["node"] = False
    if dead_on_oom and seg["ev"] == "fault" and seg["cause"] == "host_oom_kill":
        sim = job.new_sim(t_start, hosts, step, attempt_no)
        h = hosts[seg["host"] % len(hosts)]
        lr = seg["lr"] % run.gpn
        t_f = sim.t_ready + seg_duration(run, step)
        sim.progress(t_f)
        info_ = fault_host_oom_kill(sim, h, lr, t_f, "cgroup")
        info_["rank"] = None
        info_["variant"] = "pod_oomkilled"
        info_["desc"] = "container memory limit hit on %s: cgroup OOM killer, pod OOMKilled (exit 137)" % h.name
        t_end = end_final_with_dead(job, sim, h, t_f + 0.2)
        res = {"sim": sim, "info": info_, "t_end": t_end, "step": sim.step, "ckpt": sim.last_ckpt, "dead": h}
    else:
        res = run_segment(job, seg, t_start, step, hosts, attempt_no, "final", straggler_style=straggler_style)
    res["job"] = job
    res["hosts"] = hosts
    res["t_launch"] = t
    return res


def srun_merge(job, hosts, label=True, width=0):
    L = []
    for i, h in enumerate(hosts):
        for (t, text) in job.host_timed(h.name):
            L.append((t, ("%*d: %s" % (width, i, text)) if label else text))
    L.sort(key=lambda x: x[0])
    return L


def slurm_step_end_lines(run, res, jobid, stepno, kill_on_bad_exit, hosts):
    """srun/slurmstepd messages at the end of a failed step."""
    r = run.rng
    job = res["job"]
    out = []
    ex = sorted([(job.exit[h.name][0], i, h) for i, h in enumerate(hosts) if h.name in job.exit and job.exit[h.name][1] != 0])
    if not ex:
        return out
    t0, i0, h0 = ex[0]
    code = job.exit[h0.name][1]
    if code == 137:
        out.append((t0 + 0.5, "srun: error: %s: task %d: Killed" % (h0.name, i0)))
    else:
        out.append((t0 + 0.5, "srun: error: %s: task %d: Exited with exit code %d" % (h0.name, i0, code)))
    if kill_on_bad_exit:
        out.append((t0 + 0.6, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
        for (t, i, h) in ex[1:]:
            out.append((t0 + 0.7 + r.uniform(0, 0.3), "slurmstepd: error: *** STEP %d.%d ON %s CANCELLED AT %s ***" % (jobid, stepno, h.name, f_slurm(h.c(t0 + 0.7)))))
        for (t, i, h) in ex[1:]:
            out.append((t + 0.5, "srun: error: %s: task %d: Terminated" % (h.name, i)))
    else:
        for (t, i, h) in ex[1:]:
            out.append((t + 0.5, "srun: error: %s: task %d: Exited with exit code %d" % (h.name, i, job.exit[h.name][1])))
    info = res.get("info") or {}
    if info.get("variant") in ("main", "worker", "cgroup", "pod_oomkilled") and "OOM" in info.get("desc", "") + "oom":
        hn = info.get("node")
        out.append((t0 + 1.5, "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.%d. Some of the step tasks have been OOM Killed." % (jobid, stepno)))
    return out


# ----------------------------------------------------------------------------
# Slurm requeue layout (one slurm-<jobid>.out, --open-mode=append)
# ----------------------------------------------------------------------------

def _attempt_hosts(run, story, pool, n, i, seg, prev_hosts, prev_info, same_bad=True):
    """hosts for attempt i: same allocation unless a node was drained after a hardware fault."""
    r = run.rng
    if prev_hosts is None:
        return pool[:n]
    hosts = list(prev_hosts)
    if prev_info and prev_info.get("node") and story.kind != "exhaust" and r.random() < 0.7:
        bad = [h for h in hosts if h.name == prev_info["node"]]
        spare = [h for h in pool if h not in hosts]
        if bad and spare and bad[0] is not hosts[0]:
            hosts[hosts.index(bad[0])] = spare[0]
    return hosts


def preempt_or_timelimit(run, seg):
    r = run.rng
    if seg.get("final") and r.random() < 0.45:
        return "TIME LIMIT"
    return "PREEMPTION"



def slurm_outer(run, story, chain=False):
    r = run.rng
    n = r.choice([2, 2, 3, 4]) if run.gpn == 8 else r.choice([2, 4])
    if len(story.segs) >= 3:
        n = min(n, 3)
    pool = slurm_hosts(run, n + 2)
    base_id = r.randint(100000, 9999999)
    cfg = {"n": n, "pool": pool, "part": r.choice(["batch", "gpu", "a3", "h100", "train", "preemptible"]),
           "max_rq": (len(story.segs) - 1) if not (story.healthy or story.kind == "recovered") else len(story.segs) - 1 + r.randint(1, 3),
           "kill_on_bad": r.random() < 0.6, "label": r.random() < 0.75, "nccl_debug": pick_nccl_debug(r),
           "info": r.random() < 0.5, "tlimit": r.choice(["04:00:00", "12:00:00", "24:00:00", "2-00:00:00"])}
    attempts = []
    infos = []
    t = run.t0
    step = 0
    prev_hosts = None
    prev_info = None
    fails_in_row = 0
    if chain and not (story.healthy or story.kind == "recovered"):
        cfg["max_rq"] = sum(1 for s_ in story.segs[:-1] if s_["ev"] == "fault")
    jobid = base_id
    jobids = [base_id]
    for _ in story.segs:
        jobids.append(jobids[-1] + r.randint(1, 400))
    tag = "[chain]" if chain else "[requeue-wrapper]"
    for i, seg in enumerate(story.segs):
        last = i == len(story.segs) - 1
        if chain:
            jobid = jobids[i]
        hosts = _attempt_hosts(run, story, pool, n, i, seg, prev_hosts, prev_info)
        t_att = t + (r.uniform(30, 1800) if i > 0 else 0)
        nl = compress_nodelist([h.name for h in hosts])
        L = []
        L.append((t_att - 2, "%s | SLURM_JOB_ID=%d SLURM_RESTART_COUNT=%d SLURM_JOB_NODELIST=%s" % (
            f_ctime(hosts[0].c(t_att - 2)), jobid, 0 if chain else i, nl)))
        if chain:
            if i > 0:
                pj = attempts[-1]
                L.append((t_att - 1.95, "%s previous job %d ended %s; failed attempts so far: %d (MAX_RESTARTS=%d)" % (tag, pj["jobid"], pj["state"], fails_in_row, cfg["max_rq"])))
            L.append((t_att - 1.9, "%s submitted follow-up job %d (--dependency=afterany:%d)" % (tag, jobids[i + 1], jobid)))
        L.append((t_att - 1.8, "MASTER_ADDR=%s MASTER_PORT=%d NNODES=%d" % (hosts[0].name, run.master_port, n)))
        res = run_outer_attempt(run, seg, hosts, t_att, step, i, kill_all=cfg["kill_on_bad"], nccl_debug=cfg["nccl_debug"], info=cfg["info"],
                                rdzv_retry=(i == 0 and story.rdzv_retry), straggler_style="plain", dead_on_oom=False)
        job = res["job"]
        L += srun_merge(job, hosts, label=cfg["label"])
        te = res["t_end"]
        state, exitc = "COMPLETED", "0:0"
        ok = True
        if seg["ev"] == "preempt":
            why = preempt_or_timelimit(run, seg) if last else "PREEMPTION"
            tk = min(job.exit[h.name][0] for h in hosts) - 1.0
            L.append((tk - 0.3, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO %s ***" % (jobid, hosts[0].name, f_slurm(hosts[0].c(tk)), why)))
            L.append((tk - 0.2, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
            for h in hosts:
                L.append((tk - 0.1, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO %s ***" % (jobid, h.name, f_slurm(h.c(tk)), why)))
            state = "PREEMPTED" if why == "PREEMPTION" else "TIMEOUT"
            exitc = "0:15" if why == "PREEMPTION" else "0:0"
            if not last and not chain:
                state = "REQUEUED" if r.random() < 0.5 else "PREEMPTED"
            if last:
                res["info"]["desc"] = "job cancelled DUE TO %s and not resumed" % why
                if chain:
                    L.append((te + 30, "%s job ended by %s; %s" % (tag, why.lower(), "no follow-up submitted (chain budget exhausted)" if story.kind == "exhaust" else "follow-up job was not queued (allocation expired)")))
            ok = not seg.get("routine") is False
        elif seg["ev"] == "fault":
            L += slurm_step_end_lines(run, res, jobid, 0, cfg["kill_on_bad"], hosts)
            tw = te + r.uniform(2, 40)
            stopped_clean = all(job.exit[h.name][1] == 0 for h in hosts if h.name in job.exit)
            if stopped_clean:
                if res["step"] >= run.total_steps:
                    L.append((tw, "%s srun finished rc=0; training complete" % tag))
                else:
                    L.append((tw, "%s srun finished rc=0 at step %d/%d (training stopped early)" % (tag, res["step"], run.total_steps)))
            if not last:
                fails_in_row += 1
                if chain:
                    L.append((tw + 0.1, "%s srun rc=%d; follow-up job will resume from the latest checkpoint" % (tag, 0 if stopped_clean else 1)))
                    state, exitc = ("COMPLETED", "0:0") if stopped_clean else ("FAILED", "1:0")
                else:
                    L.append((tw + 0.1, "%s srun exited with rc=%d; SLURM_RESTART_COUNT=%d < MAX_RESTARTS=%d -> scontrol requeue %d" % (tag, 0 if stopped_clean else 1, i, cfg["max_rq"], jobid)))
                    L.append((tw + 3, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO JOB REQUEUE ***" % (jobid, hosts[0].name, f_slurm(hosts[0].c(tw + 3)))))
                    state, exitc = "REQUEUED", "0:0"
            else:
                fails_in_row += 1
                if stopped_clean:
                    if res["step"] < run.total_steps:
                        L.append((tw + 0.1, "%s application requested stop; not resubmitting%s" % (tag, "; cancelling follow-up job %d" % jobids[i + 1] if chain else "")))
                elif chain:
                    L.append((tw, "%s srun rc=%d; %d failed attempts > MAX_RESTARTS=%d -> max restarts exceeded; cancelling follow-up job %d" % (tag, 0 if stopped_clean else 1, fails_in_row, cfg["max_rq"], jobids[i + 1])))
                else:
                    L.append((tw, "%s srun exited with rc=%d; SLURM_RESTART_COUNT=%d >= MAX_RESTARTS=%d -> max restarts exceeded, giving up" % (tag, 0 if stopped_clean else 1, i, cfg["max_rq"])))
                state, exitc = ("FAILED", "1:0") if not stopped_clean else ("COMPLETED", "0:0")
        else:
            L.append((te + 1, "%s srun finished rc=0; training complete" % tag))
            fails_in_row = 0
        if seg["ev"] == "preempt":
            fails_in_row = fails_in_row if not seg.get("routine") else fails_in_row
        infos.append(res["info"])
        attempts.append({"jobid": jobid, "hosts": hosts, "res": res, "lines": L, "state": state, "exitc": exitc, "t_att": t_att, "te": te, "nl": nl})
        step = res["ckpt"]
        prev_hosts = hosts
        prev_info = res["info"]
        t = te + 5
    cfg["next_id"] = jobids[len(story.segs)]
    return attempts, infos, cfg


def slurm_sacct(run, attempts, cfg, chain):
    rows = []
    for a in attempts:
        h0 = a["hosts"][0]
        rows.append(("%d" % a["jobid"], run.job_name[:20], cfg["part"], a["state"], a["exitc"], f_elapsed(a["te"] - a["t_att"]), a["nl"],
                     f_slurm(h0.c(a["t_att"])), f_slurm(h0.c(a["te"] + 5))))
    fin = attempts[-1]
    h0 = fin["hosts"][0]
    st = fin["state"]
    steps = [("%d.batch" % fin["jobid"], "batch", "", "CANCELLED" if st in ("PREEMPTED", "TIMEOUT") else st, fin["exitc"] if st == "FAILED" else ("0:15" if st in ("PREEMPTED", "TIMEOUT") else "0:0"), rows[-1][5], h0.name, rows[-1][7], rows[-1][8]),
             ("%d.extern" % fin["jobid"], "extern", "", "COMPLETED", "0:0", rows[-1][5], fin["nl"], rows[-1][7], rows[-1][8]),
             ("%d.0" % fin["jobid"], "torchrun", "", st if st in ("FAILED", "COMPLETED") else "CANCELLED", fin["exitc"], rows[-1][5], fin["nl"], rows[-1][7], rows[-1][8])]
    if chain and fin["state"] == "FAILED":
        rows.append(("%d" % cfg["next_id"], run.job_name[:20], cfg["part"], "CANCELLED+", "0:0", "00:00:00", "None assigned", "Unknown", f_slurm(h0.c(fin["te"] + 40))))
    cmd = "$ sacct -j %s %s--format=JobID,JobName%%20,Partition,State,ExitCode,Elapsed,NodeList%%28,Start,End\n" % (
        ",".join(str(a["jobid"]) for a in attempts) if chain else attempts[0]["jobid"], "" if chain else "--duplicates ")
    return cmd + sacct_text(run, rows, steps)


def slurm_sbatch(run, cfg, chain):
    lines = ["#!/bin/bash", "#SBATCH --job-name=%s" % run.job_name, "#SBATCH --nodes=%d" % cfg["n"], "#SBATCH --ntasks-per-node=1",
             "#SBATCH --gpus-per-node=%d" % run.gpn, "#SBATCH --partition=%s" % cfg["part"], "#SBATCH --time=%s" % cfg["tlimit"]]
    if chain:
        lines += ["#SBATCH --output=slurm-%j.out", "", "MAX_RESTARTS=%d   # consecutive failed attempts before the chain stops" % cfg["max_rq"],
                  "NEXT=$(sbatch --parsable --dependency=afterany:$SLURM_JOB_ID $0)", 'echo "[chain] submitted follow-up job $NEXT (--dependency=afterany:$SLURM_JOB_ID)"']
    else:
        lines += ["#SBATCH --requeue", "#SBATCH --open-mode=append", "#SBATCH --output=slurm-%j.out", "", "MAX_RESTARTS=%d" % cfg["max_rq"]]
    lines += ['echo "$(date) | SLURM_JOB_ID=$SLURM_JOB_ID SLURM_RESTART_COUNT=${SLURM_RESTART_COUNT:-0} SLURM_JOB_NODELIST=$SLURM_JOB_NODELIST"',
              "export MASTER_ADDR=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n1)",
              "srun %s%storchrun --nnodes=$SLURM_NNODES --nproc-per-node=%d --rdzv-backend=c10d --rdzv-endpoint=$MASTER_ADDR:%d %s --resume latest" % (
                  "--kill-on-bad-exit=1 " if cfg["kill_on_bad"] else "", "--label " if cfg["label"] else "", run.gpn, run.master_port, run.script),
              "rc=$?", ""]
    return "\n".join(lines)


def slurm_layout_common(run, story, chain):
    r = run.rng
    attempts, infos, cfg = slurm_outer(run, story, chain)
    files = {}
    if chain:
        for a in attempts:
            out = [x[1] for x in sorted(a["lines"], key=lambda x: x[0])]
            if r.random() < 0.3:
                out = truncate_middle(r, out)
            files["slurm-%d.out" % a["jobid"]] = "\n".join(out) + "\n"
    else:
        L = []
        for a in attempts:
            L += a["lines"]
        out = [x[1] for x in sorted(L, key=lambda x: x[0])]
        if r.random() < 0.4:
            out = truncate_middle(r, out)
        files["slurm-%d.out" % attempts[0]["jobid"]] = "\n".join(out) + "\n"
    files["sacct.txt"] = slurm_sacct(run, attempts, cfg, chain)
    files["submit.sbatch" if chain else "train.sbatch"] = slurm_sbatch(run, cfg, chain)
    allk, extra = _collect_kern([a["res"]["job"] for a in attempts])
    fault_hosts = [i["node"] for i in infos if i and i.get("node")]
    attach_kern(run, files, allk, cfg["pool"], fault_hosts, r.choice(["T", "journal"]), r.choice(["dmesg_%s.txt", "%s-kern.log"]), run.t0, attempts[-1]["te"])
    files.update(extra)
    return files, infos


def layout_slurm_requeue(run, story):
    files, infos = slurm_layout_common(run, story, chain=False)
    return files, truth_from(story, infos, "slurm_requeue")


def layout_slurm_chain(run, story):
    files, infos = slurm_layout_common(run, story, chain=True)
    return files, truth_from(story, infos, "slurm_chain")


# ----------------------------------------------------------------------------
# Kubernetes JobSet layout
# ----------------------------------------------------------------------------

def rand_suffix(r, n=5):
    al = "bcdfghjklmnpqrstvwxz2456789"
    return "".join(r.choice(al) for _ in range(n))


def k8s_events_text(events, t_now):
    hdr = "%-10s %-8s %-24s %-58s %s" % ("LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE")
    out = ["$ kubectl get events -n %s --sort-by=.lastTimestamp" % "training", hdr]
    for (t, typ, reason, obj, msg) in sorted(events, key=lambda x: x[0]):
        if t_now - t > 3600 * 1.0:
            continue   # events expire after 1h
        out.append("%-10s %-8s %-24s %-58s %s" % (f_age(t_now - t), typ, reason, obj, msg))
    return "\n".join(out) + "\n"


def layout_k8s_jobset(run, story):
    r = run.rng
    n = r.choice([2, 2, 3, 4]) if run.gpn == 8 else r.choice([2, 4])
    if len(story.segs) >= 3:
        n = min(n, 3)
    cluster = r.choice(["ml-prod", "train-us-c1", "research", "gpu-west"])
    pool_id = "%08x" % r.getrandbits(32)
    nodes = []
    for i in range(n + 2):
        h = make_hosts(run, 1, style="ip")[0]
        h.name = "gke-%s-a3-pool-%s-%s" % (cluster, pool_id, rand_suffix(r, 4))
        nodes.append(h)
    js = run.job_name
    ns = "training"
    max_restarts = (len(story.segs) - 1) if story.kind == "exhaust" or (not story.healthy and story.kind != "recovered") else len(story.segs) - 1 + r.randint(1, 3)
    image = r.choice(["nvcr.io/nvidia/pytorch:24.07-py3", "us-docker.pkg.dev/%s/train/llm:%s" % (cluster, "%07x" % r.getrandbits(28)), "ghcr.io/acme/trainer:v%d.%d.%d" % (r.randint(0, 3), r.randint(0, 20), r.randint(0, 9))])
    ts_logs = r.random() < 0.4
    keep_prev = r.random() < 0.55 or (not story.healthy and story.truth_seg < len(story.segs) - 1)
    nccl_debug = pick_nccl_debug(r)
    info = r.random() < 0.6
    events = []
    files = {}
    infos = []
    t = run.t0
    step = 0
    node_sel = nodes[:n]
    attempts = []
    for i, seg in enumerate(story.segs):
        last = i == len(story.segs) - 1
        # node re-use: same nodes unless the bad one got cordoned (not when the story says it was re-admitted)
        if i > 0 and infos[-1] and infos[-1].get("node_obj") is not None and story.kind != "exhaust" and r.random() < 0.7:
            bad = infos[-1]["node_obj"]
            spare = [x for x in nodes if x not in node_sel]
            if bad in node_sel and spare:
                node_sel = [spare[0] if x is bad else x for x in node_sel]
        pods = []
        for k, nd in enumerate(node_sel):
            ph = Host("%s-workers-0-%d-%s" % (js, k, rand_suffix(r)), "10.%d.%d.%d" % (r.randint(0, 60), r.randint(0, 255), r.randint(2, 250)), nd.skew, nd.boot, nd.gpu_pci, k)
            ph.node = nd
            ph.agent_pid = 1 if r.random() < 0.3 else r.randint(7, 90)
            pods.append(ph)
        t_att = t + (r.uniform(20, 240) if i > 0 else 0)
        for ph in pods:
            events.append((t_att - 8, "Normal", "Scheduled", "pod/" + ph.name, "Successfully assigned %s/%s to %s" % (ns, ph.name, ph.node.name)))
            events.append((t_att - 6, "Normal", "Pulled", "pod/" + ph.name, 'Container image "%s" already present on machine' % image))
            events.append((t_att - 5, "Normal", "Created", "pod/" + ph.name, "Created container pytorch"))
            events.append((t_att - 4.5, "Normal", "Started", "pod/" + ph.name, "Started container pytorch"))
        for k in range(len(pods)):
            events.append((t_att - 9, "Normal", "SuccessfulCreate", "job/%s-workers-%d" % (js, 0), "Created pod: %s" % pods[k].name))
        res = run_outer_attempt(run, seg, pods, t_att, step, i, kill_all=True, nccl_debug=nccl_debug, info=info,
                                rdzv_retry=(i == 0 and story.rdzv_retry), dead_on_oom=True, keep_node=True)
        inf = res["info"]
        if inf and inf.get("node"):
            pod = [p for p in pods if p.name == inf["node"]]
            if pod:
                inf["pod"] = pod[0].name
                inf["node"] = pod[0].node.name
                inf["node_obj"] = pod[0].node
        infos.append(inf)
        te = res["t_end"]
        job = res["job"]
        # per-pod container results
        pod_state = {}
        for ph in pods:
            code = job.exit.get(ph.name, (te, 0))[1]
            reason = "Completed" if code == 0 else "Error"
            if code == 137:
                reason = "OOMKilled"
            pod_state[ph.name] = (reason, code, job.exit.get(ph.name, (te, 0))[0])
        if seg["ev"] == "preempt":
            lost = res.get("lost_host")
            if lost is not None:
                pod_state[lost.name] = ("Terminated", 143, job.exit.get(lost.name, (te, 1))[0] - 3)
                events.append((te - 30, "Normal", "RemovingNode", "node/" + lost.node.name, "Node %s event: Removing Node %s from Controller" % (lost.node.name, lost.node.name)))
                inf["node"] = lost.node.name
                inf["desc"] = "spot/preemptible node %s reclaimed (pod %s terminated by node shutdown)" % (lost.node.name, lost.name)
                inf["pod"] = lost.name
            else:
                for ph in pods:
                    events.append((te - 40, "Normal", "Killing", "pod/" + ph.name, "Stopping container pytorch"))
                events.append((te - 41, "Normal", "Preempted", "workload/jobset-%s-%s" % (js, rand_suffix(r)), "Preempted to accommodate a workload (UID: %s) due to prioritization in the ClusterQueue" % uuid4(r)))
                inf["desc"] = "workload preempted by the queueing system (Kueue); all pods terminated"
        first_bad = sorted([(v[2], k) for k, v in pod_state.items() if v[1] != 0])
        if first_bad and not last:
            events.append((first_bad[0][0] + 1, "Warning", "BackoffLimitExceeded", "job/%s-workers-0" % js, "Job has reached the specified backoff limit"))
            for ph in pods:
                if ph.name != first_bad[0][1]:
                    events.append((first_bad[0][0] + 2, "Normal", "Killing", "pod/" + ph.name, "Stopping container pytorch"))
        attempts.append({"pods": pods, "res": res, "state": pod_state, "t_att": t_att, "te": te})
        step = res["ckpt"]
        t = te + 5
    fin = attempts[-1]
    t_now = fin["te"] + r.uniform(300, 2400)
    last_seg = story.segs[-1]
    failed = any(v[1] != 0 for v in fin["state"].values())
    if failed:
        events.append((fin["te"] + 2, "Warning", "BackoffLimitExceeded", "job/%s-workers-0" % js, "Job has reached the specified backoff limit"))
        if len(attempts) - 1 >= max_restarts:
            events.append((fin["te"] + 3, "Warning", "ReachedMaxRestarts", "jobset/" + js, "jobset failed due to reaching max number of restarts"))
        else:
            events.append((fin["te"] + 3, "Warning", "FailedJobs", "jobset/" + js, "jobset failed due to one or more job failures"))
    else:
        events.append((fin["te"] + 3, "Normal", "AllJobsCompleted", "jobset/" + js, "jobset completed successfully"))
    # files
    files["kubectl_events.txt"] = k8s_events_text(events, t_now)
    gp = ["$ kubectl get pods -n %s -l jobset.sigs.k8s.io/jobset-name=%s -o wide" % (ns, js),
          "%-44s %-6s %-11s %-9s %-6s %-14s %-52s %-15s %s" % ("NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE", "READINESS GATES")]
    for ph in fin["pods"]:
        st = fin["state"][ph.name]
        gp.append("%-44s %-6s %-11s %-9s %-6s %-14s %-52s %-15s %s" % (ph.name, "0/1", st[0] if st[0] != "Terminated" else "Error", "0", f_age(t_now - fin["t_att"]), ph.ip, ph.node.name, "<none>", "<none>"))
    files["kubectl_get_pods.txt"] = "\n".join(gp) + "\n"
    for ph in fin["pods"]:
        lines = fin["res"]["job"].host_timed(ph.name)
        if ts_logs:
            out = ["%s %s" % (f_k8s_ns(ph.c(tt)), tx) for tt, tx in lines]
        else:
            out = [tx for tt, tx in lines]
        if r.random() < 0.3:
            out = truncate_middle(r, out)
        files["logs/%s.log" % ph.name] = "\n".join(out) + "\n"
    if keep_prev and len(attempts) > 1:
        for ai, a in enumerate(attempts[:-1]):
            for ph in a["pods"]:
                lines = a["res"]["job"].host_timed(ph.name)
                out = ["%s %s" % (f_k8s_ns(ph.c(tt)), tx) for tt, tx in lines]
                if r.random() < 0.5:
                    out = truncate_middle(r, out)
                out = ["# exported from loki: {namespace=\"%s\", pod=\"%s\", container=\"pytorch\", node=\"%s\", jobset_restart_attempt=\"%d\"}" % (ns, ph.name, ph.node.name, ai)] + out
                files["logs/previous-attempts/restart-%d/%s.log" % (ai, ph.name)] = "\n".join(out) + "\n"
    # describe the first failed pod of the final attempt
    bad = sorted([(v[2], k) for k, v in fin["state"].items() if v[1] != 0])
    if bad:
        pn = bad[0][1]
        ph = [p for p in fin["pods"] if p.name == pn][0]
        st = fin["state"][pn]
        files["kubectl_describe_pod_%s.txt" % pn] = k8s_describe(run, ph, st, js, ns, image, len(attempts) - 1, fin["t_att"], t_now, last_seg)
    files["jobset_status.yaml"] = jobset_yaml(run, js, ns, len(attempts) - 1, max_restarts, failed, fin["te"], story, nodes[0], nn=len(fin["pods"]))
    # node kernel logs (from `kubectl debug node/...`), keyed by node name
    allk = {}
    extra = {}
    for a in attempts:
        for ph in a["pods"]:
            kl = a["res"]["job"].kern.get(ph.name, [])
            if kl:
                allk.setdefault(ph.node.name, []).extend(kl)
        extra.update(a["res"]["job"].extra)
    fault_nodes = [i_["node"] for i_ in infos if i_ and i_.get("node")]
    attach_kern(run, files, allk, nodes, fault_nodes, "journal", "node-%s.journal.txt", run.t0, fin["te"])
    for k, v in extra.items():
        files[k] = v
    for inf in infos:
        if inf:
            inf.pop("node_obj", None)
    truth = truth_from(story, infos, "k8s_jobset", extra_note="(initiator.node is the Kubernetes node; the pod was %s)" % (infos[story.truth_seg] or {}).get("pod", "n/a") if not story.healthy and (infos[story.truth_seg] or {}).get("pod") else "")
    return files, truth


def k8s_describe(run, ph, st, js, ns, image, attempt, t_start, t_now, seg):
    r = run.rng
    reason, code, tf = st
    L = ["Name:             %s" % ph.name, "Namespace:        %s" % ns, "Priority:         %d" % r.choice([0, 1000, 100000]),
         "Service Account:  default", "Node:             %s/%s" % (ph.node.name, ph.node.ip), "Start Time:       %s" % _dt_rfc(ph.c(t_start - 9)),
         "Labels:           batch.kubernetes.io/controller-uid=%s" % uuid4(r),
         "                  batch.kubernetes.io/job-completion-index=%d" % ph.idx,
         "                  jobset.sigs.k8s.io/jobset-name=%s" % js,
         "                  jobset.sigs.k8s.io/job-index=0",
         "                  jobset.sigs.k8s.io/replicatedjob-name=workers",
         "                  jobset.sigs.k8s.io/restart-attempt=%d" % attempt,
         "Annotations:      batch.kubernetes.io/job-completion-index: %d" % ph.idx,
         "Status:           Failed"]
    if reason == "Terminated":
        L += ["Reason:           Terminated", "Message:          Pod was terminated in response to imminent node shutdown."]
    L += ["IP:               %s" % ph.ip, "Controlled By:  Job/%s-workers-0" % js, "Containers:", "  pytorch:",
          "    Container ID:  containerd://%064x" % r.getrandbits(256), "    Image:         %s" % image,
          "    Command:", "      torchrun", "    Args:", "      --nnodes=$(NNODES)", "      --nproc-per-node=%d" % run.gpn, "      --rdzv-endpoint=%s-workers-0-0.%s:%d" % (js, js, run.master_port), "      %s" % run.script,
          "    State:          Terminated",
          "      Reason:       %s" % ("Error" if reason == "Terminated" else reason),
          "      Exit Code:    %d" % code,
          "      Started:      %s" % _dt_rfc(ph.c(t_start - 4.5)),
          "      Finished:     %s" % _dt_rfc(ph.c(tf)),
          "    Ready:          False", "    Restart Count:  0",
          "    Limits:", "      memory:          %dGi" % r.choice([1024, 1536, 1800]), "      nvidia.com/gpu:  %d" % run.gpn,
          "    Requests:", "      cpu:             %d" % r.choice([96, 180, 200]), "      memory:          %dGi" % r.choice([1024, 1536, 1800]), "      nvidia.com/gpu:  %d" % run.gpn,
          "    Environment:", "      NCCL_DEBUG:  WARN", "      NNODES:      (v1:metadata.annotations['jobset.sigs.k8s.io/parallelism'])",
          "Conditions:", "  Type                        Status"]
    if reason == "Terminated":
        L.append("  DisruptionTarget            True ")
    L += ["  PodReadyToStartContainers   False ", "  Initialized                 True ", "  Ready                       False ",
          "  ContainersReady             False ", "  PodScheduled                True ",
          "QoS Class:                   Burstable", "Node-Selectors:              cloud.google.com/gke-accelerator=nvidia-h100-80gb",
          "Tolerations:                 nvidia.com/gpu:NoSchedule op=Exists", "Events:                      <none>"]
    return "\n".join(L) + "\n"


def _dt_rfc(t):
    d = _d(t)
    return d.strftime("%a, %d %b %Y %H:%M:%S +0000")


def jobset_yaml(run, js, ns, restarts, max_restarts, failed, te, story, h, nn=2):
    r = run.rng
    ts = f_k8s(h.c(te + 3))
    cond = ["  - lastTransitionTime: \"%s\"" % ts]
    if failed:
        if restarts >= max_restarts:
            cond += ["    message: jobset failed due to reaching max number of restarts", "    reason: ReachedMaxRestarts"]
        else:
            cond += ["    message: jobset failed due to one or more job failures", "    reason: FailedJobs"]
        cond += ["    status: \"True\"", "    type: Failed"]
    else:
        cond += ["    message: jobset completed successfully", "    reason: AllJobsCompleted", "    status: \"True\"", "    type: Completed"]
    return "\n".join(["apiVersion: jobset.x-k8s.io/v1alpha2", "kind: JobSet", "metadata:", "  name: %s" % js, "  namespace: %s" % ns,
                      "spec:", "  failurePolicy:", "    maxRestarts: %d" % max_restarts, "  replicatedJobs:", "  - name: workers", "    replicas: 1",
                      "    template:", "      spec:", "        backoffLimit: 0", "        completionMode: Indexed", "        parallelism: %d" % nn, "        completions: %d" % nn,
                      "status:", "  conditions:"] + cond + ["  restarts: %d" % restarts, "  terminalState: %s" % ("Failed" if failed else "Completed")]) + "\n"


def _collect_kern(attempt_jobs):
    allk = {}
    extra = {}
    for job in attempt_jobs:
        for hn, kl in job.kern.items():
            allk.setdefault(hn, []).extend(kl)
        extra.update(job.extra)
    return allk, extra


# ----------------------------------------------------------------------------
# NVIDIA Resiliency Extension: ft_launcher (in-job restart) under Slurm
# ----------------------------------------------------------------------------

def nvrx_post_fault_factory(run, hb_timeout, newfmt, section):
    r = run.rng

    def post(job, sim, t_f, info):
        # rank monitors kill ranks that stopped heart-beating long before the NCCL watchdog fires
        kill_t = t_f + hb_timeout
        for rk in range(sim.world):
            ex = sim.exits.get(rk)
            stuck = rk in sim.hung or (ex is not None and ex[0] > kill_t and ex[1] == -6)
            if not stuck:
                continue
            h, lr, pid = sim.ranks[rk]
            tk = kill_t + r.uniform(0, 4)
            ag = job.agents[h.name]
            tag = "RankMonitorServer%d@%s:%d" % (pid + 3, h.name, rk) if newfmt else "RankMonitorServer:%d" % rk
            cyc = "[Cycle %d] " % job.restart_count if newfmt else ""
            if section:
                msg = "%sSection 'step' has been open for %.2f seconds. Timeout is %.2f seconds." % (cyc, hb_timeout + r.uniform(0.5, 3), hb_timeout)
            else:
                msg = "%sDid not get subsequent heartbeat. Waited %.2f seconds." % (cyc, hb_timeout)
            ag.lines.append((tk, "[%s] [WARNING] [%s] %s" % (f_iso_ms(h.c(tk)), tag, msg)))
            sim.out[rk] = [x for x in sim.out[rk] if x[0] <= tk]
            sim.exits[rk] = (tk + 0.2, -9)
            if rk in sim.hung:
                sim.hung.discard(rk)
    return post


def nested_restarter_lines(job, run):
    """[NestedRestarter] markers written by the rank monitors' restarter logger."""
    r = run.rng
    for (kind, hn, T) in job.events:
        ag = job.agents[hn]
        h = ag.h
        for stage, dt in (("state=handling stage=starting", 0.05), ("state=handling stage=processing", 0.4), ("state=handling stage=completed", 12 + r.uniform(0, 20))):
            if kind != "restart" and stage.endswith("completed"):
                continue
            ag.lines.append((T + dt, "[%s] [ALWAYS] [RankMonitorServer.Restarter] [NestedRestarter] name=[InJob] %s" % (f_iso_ms(h.c(T + dt)), stage)))


def layout_nvrx_ft_launcher(run, story):
    r = run.rng
    nh = r.choice([2, 2, 3, 4]) if run.gpn == 8 else r.choice([2, 4])
    if len(story.segs) >= 3:
        nh = min(nh, 3)
    n_node_loss = sum(1 for s in story.segs[:-1] if s["ev"] == "preempt")
    nh = max(nh, n_node_loss + 2)
    run.wd_timeout = r.choice([1800, 1800, 3600])
    hb = r.choice([300.0, 600.0, 900.0])
    newfmt = r.random() < 0.5
    section = r.random() < 0.4
    hosts = slurm_hosts(run, nh + 1)
    spare = [hosts[-1]]
    hosts = hosts[:-1]
    n_events = len(story.segs) - 1
    exhausted = not story.healthy and story.kind != "recovered"
    max_r = n_events + (0 if exhausted else r.randint(1, 3))
    nccl_debug = pick_nccl_debug(r)
    job = ElasticJob(run, hosts + spare, max_r, "ft_launcher", "%d:%d" % (max(1, nh - 1), nh) if n_node_loss else str(nh), info=r.random() < 0.7, nccl_debug=nccl_debug)
    post = nvrx_post_fault_factory(run, hb, newfmt, section)
    # heartbeat/section timeouts fire long before the NCCL watchdog: keep variants whose evidence survives
    for sg in story.segs:
        if sg["ev"] != "fault":
            continue
        c = sg["cause"]
        if c == "hang":
            sg["variant"] = "pyspy"
        elif c == "collective_mismatch":
            sg["variant"] = "detail"
        elif c == "data_loader_stall":
            sg["variant"] = r.choice(["pyspy", "fs", "timeout"])
    if any(sg["ev"] == "fault" and sg["cause"] == "data_loader_stall" for sg in story.segs):
        hb = max(hb, 600.0)
    # wrap run_segment to pass post_fault
    orig = run_segment

    def rs(job_, seg, t_start, step0, hosts_, attempt_no, end_mode, **kw):
        kw["post_fault"] = post
        kw["straggler_style"] = "nvrx"
        return orig(job_, seg, t_start, step0, hosts_, attempt_no, end_mode, **kw)
    g = globals()
    g["run_segment"] = rs
    try:
        infos, t_end = exec_story(run, story, job, hosts, spare, {"straggler_style": "nvrx"})
    finally:
        g["run_segment"] = orig
    nested_restarter_lines(job, run)
    for h in hosts:
        ag = job.agents[h.name]
        t0 = min([x[0] for x in ag.lines] or [run.t0])
        ag.lines.append((t0 + 0.5, "[%s] [ALWAYS] [RankMonitorServer.Restarter] [NestedRestarter] name=[InJob] state=initialize" % f_iso_ms(h.c(t0 + 0.5))))
        fin = "state=finalized" if story.segs[-1]["ev"] == "success" else "state=aborted"
        te = job.exit.get(h.name, (t_end, 0))[0]
        ag.lines.append((te - 0.2, "[%s] [ALWAYS] [RankMonitorServer.Restarter] [NestedRestarter] name=[InJob] %s" % (f_iso_ms(h.c(te - 0.2)), fin)))
    jobid = r.randint(100000, 9999999)
    L = []
    used = [h for h in hosts + spare if job.agents[h.name].lines]
    for i, h in enumerate(used):
        for (t, text) in job.host_timed(h.name):
            L.append((t, "%d: %s" % (i, text)))
    ex = sorted([(job.exit[h.name][0], i, h) for i, h in enumerate(used) if h.name in job.exit and job.exit[h.name][1] != 0])
    for (t, i, h) in ex:
        L.append((t + 0.5, "srun: error: %s: task %d: Exited with exit code %d" % (h.name, i, job.exit[h.name][1])))
    out = [x[1] for x in sorted(L, key=lambda x: x[0])]
    if r.random() < 0.35:
        out = truncate_middle(r, out)
    files = {"slurm-%d.out" % jobid: "\n".join(out) + "\n"}
    files["run_ft.sbatch"] = "\n".join([
        "#!/bin/bash", "#SBATCH --nodes=%d" % nh, "#SBATCH --ntasks-per-node=1", "#SBATCH --gpus-per-node=%d" % run.gpn, "#SBATCH --output=slurm-%j.out", "",
        "srun -l ft_launcher --nnodes=%s --nproc-per-node=%d --max-restarts=%d \\" % (job.nnodes, run.gpn, max_r),
        "    --rdzv-backend=c10d --rdzv-endpoint=$MASTER_ADDR:%d \\" % run.master_port,
        "    --ft-param-initial_rank_heartbeat_timeout=%d --ft-param-rank_heartbeat_timeout=%d \\" % (int(hb) * 2, int(hb)),
        "    %s --config configs/%s.yaml" % (run.script, run.model), ""])
    fault_hosts = [i_["node"] for i_ in infos if i_ and i_.get("node")]
    attach_kern(run, files, job.kern, hosts + spare, fault_hosts, r.choice(["T", "journal"]), "dmesg-%s.log", run.t0, t_end)
    files.update(job.extra)
    return files, truth_from(story, infos, "nvrx_ft_launcher")


# ----------------------------------------------------------------------------
# DeepSpeed elastic training (DSElasticAgent) launched over pdsh
# ----------------------------------------------------------------------------

def layout_deepspeed_elastic(run, story):
    r = run.rng
    run.framework = "deepspeed"
    nh = r.choice([2, 3, 4]) if run.gpn == 8 else r.choice([2, 4])
    if len(story.segs) >= 3:
        nh = min(nh, 3)
    n_node_loss = sum(1 for s in story.segs[:-1] if s["ev"] == "preempt")
    nh = max(nh, n_node_loss + 2)
    hosts = make_hosts(run, nh + 1, style=r.choice(["node", "gpu", "ip"]))
    spare = [hosts[-1]]
    hosts = hosts[:-1]
    n_events = len(story.segs) - 1
    exhausted = not story.healthy and story.kind != "recovered"
    max_r = n_events + (0 if exhausted else r.randint(1, 3))
    job = ElasticJob(run, hosts + spare, max_r, "ds_elastic", "%d:%d" % (max(1, nh - 1), nh + 1), info=r.random() < 0.7, nccl_debug=pick_nccl_debug(r))
    infos, t_end = exec_story(run, story, job, hosts, spare, {"straggler_style": "plain"})
    h0 = hosts[0]
    L = []
    t0 = run.t0 - r.uniform(3, 8)
    mbs = r.choice([1, 2, 4])
    valid = sorted(set([run.gpn * k for k in range(max(1, nh - 1), nh + 2)]))
    L.append((t0, "[%s] [INFO] [real_accelerator.py:203:get_accelerator] Setting ds_accelerator to cuda (auto detect)" % f_iso_ms(h0.c(t0))))
    L.append((t0 + 0.5, "[%s] [INFO] [runner.py:607:main] cmd = pdsh -S -f 1024 -w %s export PYTHONPATH=%s; cd %s; %s -u -m deepspeed.launcher.launch --world_info=%s --node_rank=%%n --master_addr=%s --master_port=%d --enable_elastic_training --max_elastic_nodes=%d --min_elastic_nodes=%d %s --deepspeed --deepspeed_config ds_config.json" % (
        f_iso_ms(h0.c(t0 + 0.5)), ",".join(h.name for h in hosts), run.workdir, run.workdir, run.pybin, "eyJ" + "".join(r.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") for _ in range(60)), h0.name, run.master_port, nh + 1, max(1, nh - 1), run.script)))
    for h in hosts:
        L.append((t0 + 1.5, "%s: [%s] [INFO] [launch.py:146:main] WORLD INFO DICT: {%s}" % (h.name, f_iso_ms(h.c(t0 + 1.5)), ", ".join("'%s': %s" % (x.name, list(range(run.gpn))) for x in hosts))))
        L.append((t0 + 1.6, "%s: [%s] [INFO] [launch.py:152:main] nnodes=%d, num_local_procs=%d, node_rank=%d" % (h.name, f_iso_ms(h.c(t0 + 1.6)), nh, run.gpn, hosts.index(h))))
    sims = job.sims
    for s in sims:
        tt = s.t_ready - 3
        s.emit(0, tt, "[%s] [INFO] [elasticity.py:%d:compute_elastic_config] Valid World Size (GPUs / Model Parallel Size): %s" % (f_iso_ms(s.host_of(0).c(tt)), r.choice([292, 301, 306]), valid))
        s.emit(0, tt + 0.1, "[%s] [INFO] [config.py:%d:__init__] Elastic config: train_batch_size=%d micro_batch_size=%d gradient_accumulation_steps=%d (world_size=%d)" % (
            f_iso_ms(s.host_of(0).c(tt)), r.choice([733, 747]), 1024, mbs, max(1, 1024 // (mbs * s.world)), s.world))
    # the sims were already merged by the agents; re-merge the new lines for rank 0 only
    for s in sims:
        h = s.host_of(0)
        extra = [(t_, prefix_line(run, 0, 0, tx)) for (t_, tx) in s.out[0] if "elasticity.py" in tx or "Elastic config" in tx]
        job.host_lines[h.name].extend(extra)
    used = [h for h in hosts + spare if job.agents[h.name].lines]
    for h in used:
        for (t, text) in job.host_timed(h.name):
            L.append((t, "%s: %s" % (h.name, text)))
    for h in used:
        if h.name in job.exit and job.exit[h.name][1] != 0:
            L.append((job.exit[h.name][0] + 0.3, "pdsh@%s: %s: ssh exited with exit code %d" % (h0.name, h.name, job.exit[h.name][1])))
    out = [x[1] for x in sorted(L, key=lambda x: x[0])]
    if r.random() < 0.35:
        out = truncate_middle(r, out)
    files = {r.choice(["ds_train.log", "deepspeed_launch.log", "train_%s.log" % run.job_name]): "\n".join(out) + "\n"}
    files["ds_config.json"] = json.dumps({
        "train_batch_size": 1024, "train_micro_batch_size_per_gpu": mbs, "bf16": {"enabled": True},
        "zero_optimization": {"stage": r.choice([1, 2, 3])},
        "elasticity": {"enabled": True, "max_train_batch_size": 2048, "micro_batch_sizes": [1, 2, 4], "min_gpus": run.gpn * max(1, nh - 1),
                       "max_gpus": run.gpn * (nh + 1), "min_time": 20, "version": 0.2, "ignore_non_elastic_batch_info": True,
                       "num_gpus_per_node": run.gpn}}, indent=2) + "\n"
    files["hostfile"] = "\n".join("%s slots=%d" % (h.name, run.gpn) for h in hosts) + "\n"
    fault_hosts = [i_["node"] for i_ in infos if i_ and i_.get("node")]
    attach_kern(run, files, job.kern, hosts + spare, fault_hosts, r.choice(["T", "raw"]), "dmesg_%s.txt", run.t0, t_end)
    files.update(job.extra)
    return files, truth_from(story, infos, "deepspeed_elastic")


# ----------------------------------------------------------------------------
# Ray Train (v2 controller, FailureConfig(max_failures=N))
# ----------------------------------------------------------------------------

DEDUP_HINT = ("(Ray deduplicates logs by default. Set RAY_DEDUP_LOGS=0 to disable log deduplication, or see "
              "https://docs.ray.io/en/master/ray-observability/user-guides/configure-logging.html#log-deduplication for more options.)")


def ray_worker_lines(sim, kills, wid_of):
    """(RayTrainWorker pid=..., ip=...) prefixed worker output with Ray's cross-cluster dedup."""
    r = sim.r
    raw = []
    for rank in range(sim.world):
        h, lr, pid = sim.ranks[rank]
        tk = kills.get(rank, INF)
        for (t, text) in sim.out[rank]:
            if t <= tk:
                raw.append((t, rank, text))
    raw.sort(key=lambda x: x[0])
    out = []
    seen = {}
    hint = False
    for (t, rank, text) in raw:
        h, lr, pid = sim.ranks[rank]
        key = text
        if key in seen and t - seen[key][0] < 5.0:
            seen[key][1] += 1
            continue
        if key in seen and seen[key][1] > 0:
            t0, cnt, pr = seen[key]
            out.append((t0 + 5.0, "%s %s [repeated %dx across cluster]%s" % (pr, key, cnt, (" " + DEDUP_HINT) if not hint else "")))
            hint = True
        pr = "(RayTrainWorker pid=%d, ip=%s)" % (pid, h.ip)
        seen[key] = [t, 0, pr]
        out.append((t, "%s %s" % (pr, text)))
    for key, (t0, cnt, pr) in seen.items():
        if cnt > 0:
            out.append((t0 + 5.0, "%s %s [repeated %dx across cluster]%s" % (pr, key, cnt, (" " + DEDUP_HINT) if not hint else "")))
            hint = True
    return out


def ray_error_snippet(sim, rank, info):
    """text Ray Train puts in '[Rank N Error Snippet]'"""
    r, run = sim.r, sim.run
    h, lr, pid = sim.ranks[rank]
    code = sim.exits[rank][1]
    if code < 0 or info.get("ray_memmon"):
        if info.get("ray_memmon"):
            used = r.uniform(1700, 1950)
            return ["ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.",
                    "Memory on the node (IP: %s, ID: %s) where the task (actor ID: %s, name=RayTrainWorker.__init__, pid=%d, memory used=%.2fGB) was running was %.2fGB / %.2fGB (%.5f), which exceeds the memory usage threshold of 0.95. Ray killed this worker (ID: %s) because it was the most recently scheduled task; to see more information about memory usage on this node, use `ray logs raylet.out -ip %s`. To see the logs of the worker, use `ray logs worker-%s*out -ip %s. Top 10 memory users:" % (
                        h.ip, "%056x" % r.getrandbits(224), "%032x" % r.getrandbits(128), pid, r.uniform(40, 90), used, 2000.0, used / 2000.0, "%056x" % r.getrandbits(224), h.ip, "%056x" % r.getrandbits(224), h.ip),
                    "PID\tMEM(GB)\tCOMMAND", "%d\t%.2f\tray::RayTrainWorker.train_fn" % (pid, r.uniform(40, 90)), "%d\t%.2f\tray::RayTrainWorker.train_fn" % (pid + 11, r.uniform(40, 90)),
                    "Refer to the documentation on how to address the out of memory issue: https://docs.ray.io/en/latest/ray-core/scheduling/ray-oom-prevention.html. Consider provisioning more memory on this node or reducing task parallelism by requesting more CPUs per task. To adjust the kill threshold, set the environment variable `RAY_memory_usage_threshold` when starting Ray. To disable worker killing, set the environment variable `RAY_memory_monitor_refresh_ms` to zero."]
        if info.get("node_dead"):
            det = "The actor is dead because its node has died. Node Id: %s" % ("%056x" % r.getrandbits(224))
        else:
            det = ("The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. "
                   "There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors.")
        return ["ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.",
                "\tclass_name: RayTrainWorker", "\tactor_id: %s" % ("%032x" % r.getrandbits(128)), "\tpid: %d" % pid,
                "\tnamespace: %s" % uuid4(r), "\tip: %s" % h.ip, det]
    # python-level error: the last traceback printed by that rank
    lines = [x[1] for x in sim.out[rank]]
    idx = [i for i, ln in enumerate(lines) if ln.startswith("Traceback (most recent call last):")]
    if idx:
        tb = lines[idx[-1]:idx[-1] + 30]
        return tb
    tail = [ln for ln in lines[-8:]]
    return tail or ["RuntimeError: worker exited with code %d" % code]


def layout_ray_train(run, story):
    r = run.rng
    nh = r.choice([2, 2, 3, 4]) if run.gpn == 8 else r.choice([2, 4])
    if len(story.segs) >= 3:
        nh = min(nh, 3)
    n_node_loss = sum(1 for s in story.segs[:-1] if s["ev"] == "preempt")
    nh = max(nh, n_node_loss + 2)
    hosts = make_hosts(run, nh + 2, style="ip")
    head = hosts[-1]
    spare = hosts[-2]
    hosts = hosts[:nh]
    exhausted = not story.healthy and story.kind != "recovered"
    max_fail = (len(story.segs) - 1) if exhausted else len(story.segs) - 1 + r.randint(1, 3)
    ctl = run.pid()
    ray_job_no = r.randint(1, 9)
    sub = "raysubmit_%s" % "".join(r.choice("ABCDEFGHIJKLMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz123456789") for _ in range(16))
    D = []
    t = run.t0

    def ctl_line(tt, msg):
        D.append((tt, "(TrainController pid=%d) %s" % (ctl, msg)))

    D.append((t - 5, "%s\tINFO job_manager.py:531 -- Runtime env is setting up." % f_iso_dot_ms(head.c(t - 5))))
    D.append((t - 3, "%s\tINFO worker.py:1832 -- Connecting to existing Ray cluster at address: %s:6379..." % (f_iso_dot_ms(head.c(t - 3)), head.ip)))
    D.append((t - 2.5, "%s\tINFO worker.py:2003 -- Connected to Ray cluster. View the dashboard at \x1b[1m\x1b[32m%s:8265 \x1b[39m\x1b[22m" % (f_iso_dot_ms(head.c(t - 2.5)), head.ip)))
    ctl_line(t - 1, "[State Transition] INITIALIZING -> SCHEDULING.")
    infos = []
    step = 0
    cur = list(hosts)
    errors = 0
    extra = {}
    kern = {}
    last_snip = (0, [])
    t_end = t
    for i, seg in enumerate(story.segs):
        last = i == len(story.segs) - 1
        ctl_line(t, "Attempting to start training worker group of size %d with the following resources: [{'GPU': 1}] * %d" % (len(cur) * run.gpn, len(cur) * run.gpn))
        ctl_line(t + r.uniform(8, 40), "[State Transition] SCHEDULING -> RUNNING.")
        sim = Sim(run, cur, t + 45, step, i)
        sim.startup(nccl_debug=None, resume_step=step)
        info = None
        dur = seg_duration(run, step)
        ev = seg["ev"]
        kills = {}
        if ev == "success":
            sim.finish_success()
            te = sim.t_end
            ctl_line(te + 2, "[State Transition] RUNNING -> FINISHED.")
            D += ray_worker_lines(sim, kills, None)
            t_end = te + 3
            infos.append(None)
            break
        if ev == "preempt":
            tk = sim.t_ready + dur
            sim.progress(tk)
            cand = [h for h in cur if h is not cur[0]] or cur
            lost = r.choice(cand)
            for lr in range(run.gpn):
                rk = sim.rank_of(lost, lr)
                sim.exits[rk] = (tk, -9)
            sim.survivors_watchdog(tk, sim.seq_for_step(sim.step))
            D.append((tk + 30, "(autoscaler +%dm%ds) Removing 1 nodes of type gpu-worker (lost; spot instance interrupted)." % (r.randint(1, 59), r.randint(0, 59))))
            D.append((tk + 12, "%s\tWARNING worker.py:2263 -- The node with node id: %s and address: %s and node name: %s has been marked dead because the detector has missed too many heartbeats from it. This can happen when a \t(1) raylet crashes unexpectedly (OOMs, etc.) \n\t(2) raylet has lagging heartbeats due to slow network or busy workload." % (
                f_iso_dot_ms(head.c(tk + 12)), "%056x" % r.getrandbits(224), lost.ip, lost.ip)))
            info = {"rank": None, "node": lost.ip, "desc": "spot node %s interrupted; its workers' actors died" % lost.ip, "node_dead": True}
            first = sim.rank_of(lost, 0)
            t_dec = tk + 13
        else:
            c = seg["cause"]
            h = cur[seg["host"] % len(cur)]
            lr = seg["lr"] % run.gpn
            if c == "straggler":
                t_s = sim.t_ready + dur * 0.2
                sim.progress(t_s)
                info = fault_straggler(sim, h, lr, t_s)
                slow = r.uniform(1.5, 2.5)
                remaining = run.total_steps - sim.step
                te = t_s + remaining * run.step_time * slow + 60
                straggler_reports(sim, sim.rank_of(h, lr), t_s, te, "plain")
                sim.progress(te, slow_factor=slow, slow_from=t_s)
                sim.finish_success()
                info["desc"] += "; job finished ~%.1fx slower" % slow
                ctl_line(sim.t_end + 2, "[State Transition] RUNNING -> FINISHED.")
                D += ray_worker_lines(sim, kills, None)
                infos.append(info)
                t_end = sim.t_end + 3
                break
            t_f = sim.t_ready + dur
            sim.progress(t_f)
            if c == "host_oom_kill" and r.random() < 0.6:
                rk = sim.rank_of(h, lr)
                sim.exits[rk] = (t_f + 0.5, -9)
                sim.survivors_watchdog(t_f, sim.seq_for_step(sim.step), exclude=(rk,))
                info = {"rank": rk, "node": h.ip, "variant": "ray_memmon", "ray_memmon": True, "desc": "Ray memory monitor killed rank %d's worker on %s (node memory above threshold)" % (rk, h.ip)}
                D.append((t_f + 3, "(raylet, ip=%s) node_manager.cc:3193: 1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: %s, IP: %s) over the last time period. To see more information about the Workers killed on this node, use `ray logs raylet.out -ip %s`" % (
                    h.ip, "%056x" % r.getrandbits(224), h.ip, h.ip)))
            else:
                info = FAULTS[c](sim, h, lr, t_f, seg.get("variant"))
                for x in cur:
                    if info.get("node") == x.name:
                        info["node"] = x.ip
            exits = sorted((v[0], k) for k, v in sim.exits.items() if v[1] != 0)
            first = exits[0][1] if exits else sim.rank_of(h, lr)
            t_dec = (exits[0][0] if exits else t_f) + r.uniform(0.5, 3)
        for rk in range(sim.world):
            if rk not in sim.exits or sim.exits[rk][0] > t_dec:
                kills[rk] = t_dec + 0.5
        D += ray_worker_lines(sim, kills, None)
        errors += 1
        snippet = ray_error_snippet(sim, first, info or {})
        last_snip = (first, snippet)
        decision = "FailureDecision.RETRY" if not last else "FailureDecision.RAISE"
        body = "Training failed due to worker errors:\n[Rank %d Error Snippet]:\n%s" % (first, "\n".join(snippet))
        ctl_line(t_dec + 1, "[FailurePolicy] Decision: %s, Error source: worker group, Error count / maximum errors allowed: %d/%d, Error: %s" % (decision, errors, max_fail, body.split("\n")[0]))
        for ln in body.split("\n")[1:]:
            ctl_line(t_dec + 1.001, ln)
        for k, v in sim.kern.items():
            kern.setdefault(k, []).extend(v)
        extra.update({k.replace(cur[0].name, cur[0].ip): v for k, v in sim.extra.items()})
        if info and info.get("rank") is not None and r.random() < 0.6:
            hh, _, pid = sim.ranks[info["rank"]]
            wl = [tx for (tt, tx) in sim.out[info["rank"]]]
            if wl:
                extra["ray_logs/%s/worker-%s-%02d000000-%d.err" % (hh.ip, "%056x" % r.getrandbits(224), ray_job_no, pid)] = "\n".join(wl) + "\n"
        infos.append(info)
        t_end = t_dec + 5
        if last:
            ctl_line(t_dec + 2, "[State Transition] RUNNING -> ERRORED.")
            break
        ctl_line(t_dec + 2, "[State Transition] RUNNING -> RESTARTING.")
        ctl_line(t_dec + 3, "[State Transition] RESTARTING -> SCHEDULING.")
        if ev == "preempt":
            cur = [x for x in cur if x is not lost] + [spare]
        step = sim.last_ckpt
        if ev == "preempt" and seg.get("graceful"):
            step = sim.step
        t = t_dec + r.uniform(20, 200)
        ctl_line(t - 1, "Restoring training from the latest checkpoint: Checkpoint(filesystem=local, path=%s/checkpoint_%06d)" % (run.ckpt_dir.replace("s3://", "/mnt/"), step // run.ckpt_every if run.ckpt_every else 0))
    # driver traceback and job summary
    fin_fail = story.segs[-1]["ev"] != "success" and not (story.segs[-1]["ev"] == "fault" and story.segs[-1]["cause"] == "straggler")
    if fin_fail:
        tb = ["Traceback (most recent call last):",
              '  File "/home/ray/%s", line %d, in <module>' % (run.script, r.randint(90, 200)),
              "    result = trainer.fit()",
              '  File "%s/ray/train/v2/api/data_parallel_trainer.py", line %d, in fit' % (run.site, r.choice([141, 172, 188])),
              "    raise result.error",
              "ray.train.WorkerGroupError: Training failed due to worker errors:"]
        D.append((t_end, "\n".join(tb)))
        fr_, sn_ = last_snip
        D.append((t_end + 0.01, "[Rank %d Error Snippet]:\n%s" % (fr_, "\n".join(sn_))))
        D.append((t_end + 2, "\n---------------------------------------\nJob '%s' failed\n---------------------------------------\n\nStatus message: Job entrypoint command failed with exit code 1, last available logs (truncated to 20,000 chars):" % sub))
    else:
        D.append((t_end + 2, "\n------------------------------------------\nJob '%s' succeeded\n------------------------------------------" % sub))
    out = [x[1] for x in sorted(D, key=lambda x: x[0])]
    if r.random() < 0.35:
        out = truncate_middle(r, out)
    files = {"ray_job_%s.log" % sub: "$ ray job logs %s\n" % sub + "\n".join(out) + "\n"}
    files["train_job.py.excerpt"] = "\n".join([
        "trainer = TorchTrainer(", "    train_loop_per_worker=train_fn,",
        "    scaling_config=ScalingConfig(num_workers=%d, use_gpu=True)," % (nh * run.gpn),
        "    run_config=RunConfig(name=\"%s\", storage_path=\"%s\"," % (run.job_name, run.ckpt_dir),
        "                         failure_config=FailureConfig(max_failures=%d))," % max_fail, ")", "result = trainer.fit()", ""])
    # kernel logs: keyed by host name -> write under ip
    byip = {}
    for h in hosts + [spare]:
        if h.name in kern:
            byip[h.name] = kern[h.name]
    fault_hosts = [h.name for h in hosts + [spare] if i_node_match(infos, h)]
    attach_kern(run, files, byip, hosts + [spare], fault_hosts, r.choice(["T", "journal"]), "dmesg_%s.txt", run.t0, t_end)
    files.update(extra)
    return files, truth_from(story, infos, "ray_train", extra_note="(nodes identified by IP as Ray reports them)")


def i_node_match(infos, h):
    return any(i and i.get("node") in (h.ip, h.name) for i in infos)


# ----------------------------------------------------------------------------
# TorchFT replica groups + lighthouse
# ----------------------------------------------------------------------------

def layout_torchft_replicas(run, story):
    r = run.rng
    run.framework = "titan"
    R = r.choice([2, 3, 3, 4])
    gh = make_hosts(run, R + 1, style=r.choice(["node", "gpu", "cw"]))
    spare = gh[-1]
    groups = gh[:R]
    lh_host = Host("lighthouse-0" if r.random() < 0.5 else "%s-lighthouse" % run.job_name, "10.0.0.%d" % r.randint(2, 250), r.gauss(0, 0.5), run.t0 - 86400, [], 99)
    final_fail = not story.healthy and story.kind != "recovered"
    min_rep = R if final_fail else max(1, R - 1)
    join_ms = r.choice([10000, 30000, 60000])
    nccl_debug = pick_nccl_debug(r)
    info_log = r.random() < 0.6
    # restart budget per group
    gidx = lambda seg: seg.get("host", 0) % R
    restarts_on = {}
    for s_ in story.segs[:-1]:
        if s_["ev"] in ("fault",):
            restarts_on[gidx(s_)] = restarts_on.get(gidx(s_), 0) + 1
    jobs = {}
    for g, h in enumerate(groups):
        k = restarts_on.get(g, 0) + (0 if final_fail else r.randint(1, 2))
        jobs[g] = ElasticJob(run, [h], k, "torchrun", "1", info=info_log, nccl_debug=nccl_debug)
    rid = {g: "replica_%d:%s" % (g, uuid4(r)) for g in range(R)}
    old_jobs = []
    LH = []
    qid = [0]

    def lh(t, lvl, msg):
        LH.append((t, "[%s %-5s torchft::lighthouse] %s" % (f_k8s(lh_host.c(t)), lvl, msg)))

    def quorum(t, members, step):
        qid[0] += 1
        lh(t, "INFO", "Next quorum status: Valid quorum found [%d/%d participants healthy][%d heartbeating][shrink_only=false]" % (len(members), len(members), len(members)))
        lh(t + 0.0005, "INFO", "Detected quorum change, bumping quorum_id to %d" % qid[0])
        parts = ", ".join('QuorumMember { replica_id: "%s", address: "http://%s:%d", store_address: "%s:%d", step: %d, world_size: %d, shrink_only: false, commit_failures: 0, data: "" }' % (
            rid[g], groups[g].name, 29600 + g, groups[g].name, 29500, step, run.gpn) for g in members)
        lh(t + 0.001, "INFO", "Quorum! Quorum { quorum_id: %d, participants: [%s], created: Some(Timestamp { seconds: %d, nanos: %d }) }" % (qid[0], parts, int(t), r.randint(0, 999999999)))

    def mgr(sim, g, rank, t, step, msg, lvl="INFO"):
        sim.emit(rank, t, "[titan] %s - torchft.manager - %s - [%s/%d - step %d] %s" % (f_iso_ms(sim.host_of(rank).c(t)), lvl, rid[g], rank, step, msg))

    lh(run.t0 - 60, "INFO", "Lighthouse listening on: http://%s:29510" % lh_host.name)
    t = run.t0
    sims = {}
    for g, h in enumerate(groups):
        ts = jobs[g].launch(t + r.uniform(0, 20), [h], first=True)
        sims[g] = jobs[g].new_sim(ts, [h], 0, 0)
        for lr in range(run.gpn):
            sims[g].emit(lr, sims[g].t_ready - 1, "[titan] %s - torchft.manager - INFO - Manager %s listening on http://%s:%d" % (f_iso_ms(h.c(sims[g].t_ready - 1)), rid[g], h.name, 29600 + g)) if lr == 0 else None
        lh(sims[g].t_ready - 0.5, "INFO", "got quorum request for replica %s" % rid[g])
    t_q = max(s.t_ready for s in sims.values())
    quorum(t_q, list(range(R)), 0)
    for g in range(R):
        mgr(sims[g], g, 0, t_q + 0.2, 0, "reconfiguring for quorum_id=%d store_prefixed_addr='%s:29500/torchft/%d/0'" % (qid[0], groups[0].name, qid[0]))
    alive = list(range(R))
    infos = []
    step = 0
    t_cur = t_q
    t_end = t_cur
    for i, seg in enumerate(story.segs):
        last = i == len(story.segs) - 1
        ev = seg["ev"]
        dur = seg_duration(run, step)
        if ev == "success":
            for g in alive:
                sims[g].finish_success()
                t_end = max(t_end, jobs[g].end_success(sims[g]))
            infos.append(None)
            break
        g = gidx(seg)
        if g not in alive:
            g = alive[0]
        t_f = t_cur + dur
        for gg in alive:
            sims[gg].progress(t_f)
            if r.random() < 0.5:
                mgr(sims[gg], gg, 0, t_f - run.step_time * 0.5, sims[gg].step, "should_commit=True enough_replicas=True, errored=None")
        st_now = sims[g].step
        sim = sims[g]
        h = groups[g]
        info = None
        if ev == "preempt":
            if seg.get("node") or not last:
                t_end = jobs[g].end_sigterm(sim, t_f, [h], graceful=False)
                info = {"rank": None, "node": h.name, "desc": "replica group %d's node %s preempted (SIGTERM)" % (g, h.name)}
            else:
                for gg in alive:
                    t_end = max(t_end, jobs[gg].end_sigterm(sims[gg], t_f + r.uniform(0, 2), [groups[gg]], graceful=False))
                info = {"rank": None, "node": None, "desc": "whole job cancelled/preempted by the scheduler (SIGTERM to every replica group)"}
                infos.append(info)
                break
        elif seg["cause"] == "straggler":
            info = fault_straggler(sim, h, seg["lr"] % run.gpn, t_f)
            info["rank"] = None
            info["desc"] = "replica group %d (%s) persistently slow; others wait for it at every quorum/allreduce" % (g, h.name)
            slow = r.uniform(1.4, 2.2)
            remaining = run.total_steps - sim.step
            te = t_f + remaining * run.step_time * slow + 60
            tt = t_f + 60
            n = 0
            while tt < te and n < 40:
                lh(tt, "INFO", "Next quorum status: Valid quorum with %d participants, waiting for 1 healthy but not participating stragglers due to join timeout [%d/%d participants healthy][%d heartbeating][shrink_only=false]" % (len(alive) - 1, len(alive) - 1, len(alive), len(alive)))
                tt += r.uniform(120, 900)
                n += 1
            for gg in alive:
                sims[gg].progress(te, slow_factor=slow, slow_from=t_f)
                sims[gg].finish_success()
                t_end = max(t_end, jobs[gg].end_success(sims[gg]))
            info["desc"] += "; finished ~%.1fx slower" % slow
            infos.append(info)
            break
        else:
            info = FAULTS[seg["cause"]](sim, h, seg["lr"] % run.gpn, t_f, seg.get("variant"))
            seg["variant"] = info.get("variant")
            if seg["recovered"]:
                t_end = jobs[g].end_restart(sim)
            else:
                t_end = jobs[g].end_final(sim)
            info["desc"] = "replica group %d: %s" % (g, info.get("desc", ""))
        infos.append(info)
        # the other replica groups notice: cross-replica allreduce times out, step skipped, quorum shrinks
        t_det = t_f + r.uniform(20, 70)
        for gg in alive:
            if gg == g:
                continue
            sg = sims[gg]
            for rk in sorted(set([0] + r.sample(range(run.gpn), min(run.gpn, 2)))):
                mgr(sg, gg, rk, t_det + r.uniform(0, 0.5), sg.step, "got exception in future -- skipping remaining: %s" % r.choice([
                    "future did not complete within 0:01:00", "NCCL communicator was aborted on rank %d." % (rk + gg * 0), "Timed out waiting 60000ms for recv operation to complete"]), "ERROR")
                mgr(sg, gg, rk, t_det + 0.6, sg.step, "should_commit=False enough_replicas=True, errored=%s" % "ExceptionWithTraceback('future did not complete within 0:01:00')")
        alive2 = [x for x in alive if x != g]
        t_q2 = t_det + r.uniform(1, 6)
        if len(alive2) >= min_rep:
            quorum(t_q2, alive2, st_now)
            for gg in alive2:
                mgr(sims[gg], gg, 0, t_q2 + 0.3, sims[gg].step, "reconfiguring for quorum_id=%d store_prefixed_addr='%s:29500/torchft/%d/0'" % (qid[0], groups[alive2[0]].name, qid[0]))
        else:
            tt = t_q2
            for k in range(r.randint(4, 9)):
                lh(tt, "INFO", "Next quorum status: New quorum not ready, only have %d participants, need min_replicas %d [%d/%d participants healthy][%d heartbeating][shrink_only=false]" % (len(alive2), min_rep, len(alive2), len(alive2), len(alive2)))
                tt += r.uniform(20, 120)
        if ev == "fault" and not seg["recovered"] or (ev == "preempt" and last):
            if len(alive2) < min_rep:
                # survivors block in quorum until quorum_timeout
                qt = r.choice([300, 600, 900])
                for gg in alive2:
                    sg = sims[gg]
                    te = t_q2 + qt + r.uniform(0, 3)
                    tb = py_tb([("%s/torchtitan/train.py" % run.workdir, 540, "train", "self.train_step(data_iterator)"),
                                ("%s/torchtitan/train.py" % run.workdir, 436, "train_step", "self.ft_manager.start_quorum()"),
                                ("%s/torchft/manager.py" % run.site, 612, "start_quorum", "self.wait_quorum()"),
                                ("%s/torchft/manager.py" % run.site, 631, "wait_quorum", "self._quorum_future.result()"),
                                ("/usr/lib/python%s/concurrent/futures/_base.py" % run.pyv, 456, "result", "return self.__get_result()"),
                                ("%s/torchft/manager.py" % run.site, 659, "_async_quorum", "quorum = self._client._quorum(")],
                               ['RuntimeError: status: Cancelled, message: "lighthouse quorum timed out: deadline has elapsed", details: [], metadata: MetadataMap { headers: {} }'])
                    for rk in range(run.gpn):
                        sg.emit_many(rk, te + r.uniform(0, 1), tb)
                        sg.exits[rk] = (te + r.uniform(1, 3), 1)
                    jobs[gg].agents[groups[gg].name].remaining = 0
                    t_end = max(t_end, jobs[gg].end_final(sg))
            alive = alive2
            break
        if ev == "fault" and seg["recovered"] or ev == "preempt":
            # the replica group comes back (torchrun restart or replacement node) and heals from a peer
            if ev == "preempt":
                old_jobs.append((g, jobs[g]))
                groups[g] = spare
                jobs[g] = ElasticJob(run, [spare], 1, "torchrun", "1", info=info_log, nccl_debug=nccl_debug)
                tl = t_end + r.uniform(60, 400)
                ts = jobs[g].launch(tl, [spare], first=True)
            else:
                ts = jobs[g].launch(t_end, [groups[g]], first=False)
            rid[g] = "replica_%d:%s" % (g, uuid4(r))
            sims[g] = jobs[g].new_sim(ts, [groups[g]], 0, i + 1, quiet=True)
            s2 = sims[g]
            lh(s2.t_ready - 0.5, "INFO", "got quorum request for replica %s" % rid[g])
            lh(s2.t_ready - 0.4, "INFO", "Next quorum status: Valid quorum with %d participants, waiting for 1 healthy but not participating stragglers due to join timeout [%d/%d participants healthy][%d heartbeating][shrink_only=false]" % (len(alive2), len(alive2), len(alive2) + 1, len(alive2) + 1))
            for gg in alive2:
                sims[gg].progress(s2.t_ready)
            max_step = max(sims[gg].step for gg in alive2)
            quorum(s2.t_ready + 1, sorted(alive2 + [g]), max_step)
            src = alive2[0]
            mgr(sims[src], src, 0, s2.t_ready + 1.5, sims[src].step, "peers need recovery from us [%d]" % sorted(alive2 + [g]).index(g))
            mgr(s2, g, 0, s2.t_ready + 1.5, 0, "healing required, fetching checkpoint metadata from recover_src_manager_address='http://%s:%d' max_step=%d" % (groups[src].name, 29600 + src, max_step))
            mgr(s2, g, 0, s2.t_ready + 2.0, 0, "fetching checkpoint from recover_src_replica_rank=%d with checkpoint_metadata='http://%s:%d/checkpoint/'" % (sorted(alive2 + [g]).index(src), groups[src].name, r.randint(30000, 60000)))
            mgr(s2, g, 0, s2.t_ready + r.uniform(20, 90), max_step, "applying pending state dict")
            mgr(s2, g, 0, s2.t_ready + r.uniform(91, 95), max_step, "Loaded state dict.")
            s2.step = max_step
            s2.step0 = max_step
            s2.last_ckpt = max_step
            alive = sorted(alive2 + [g])
            t_cur = s2.t_ready + 100
            step = max_step
        else:
            alive = alive2
            t_cur = t_q2
    files = {}
    for g, job in [(g_, jobs[g_]) for g_ in range(R)] + old_jobs:
        for h in job.hosts:
            lines = [x[1] for x in job.host_timed(h.name)]
            if not lines:
                continue
            if r.random() < 0.3:
                lines = truncate_middle(r, lines)
            files["replica_group_%d_%s.log" % (g, h.name)] = "\n".join(lines) + "\n"
    lhl = [x[1] for x in sorted(LH, key=lambda x: x[0])]
    files["lighthouse.log"] = "$ torchft_lighthouse --min_replicas %d --quorum_tick_ms 100 --join_timeout_ms %d\n" % (min_rep, join_ms) + "\n".join(lhl) + "\n"
    allk, extra = _collect_kern(list(jobs.values()) + [j_ for _, j_ in old_jobs])
    fault_hosts = [i_["node"] for i_ in infos if i_ and i_.get("node")]
    attach_kern(run, files, allk, gh, fault_hosts, r.choice(["T", "journal"]), "dmesg-%s.txt", run.t0, t_end)
    files.update(extra)
    note = "(rank is the rank inside the affected replica group)"
    return files, truth_from(story, infos, "torchft_replicas", extra_note=note)


# ----------------------------------------------------------------------------
# Megatron-LM with NVRx in-process restart (srun launches one process per GPU)
# ----------------------------------------------------------------------------

PROC_DEATH = {"host_oom_kill", "crash_signal", "unknown"}


def layout_megatron_inprocess(run, story):
    r = run.rng
    run.framework = "megatron"
    run.prefix_style = "none"
    nh = r.choice([2, 2, 3, 4]) if run.gpn == 8 else r.choice([2, 4])
    if len(story.segs) >= 3:
        nh = min(nh, 3)
    hosts = slurm_hosts(run, nh)
    jobid = r.randint(100000, 9999999)
    world = nh * run.gpn
    max_iter = len(story.segs) + r.randint(0, 2) if (story.healthy or story.kind == "recovered") else len(story.segs)
    soft, hard = r.choice([(60, 90), (120, 180), (300, 360)])
    t = run.t0
    step = 0
    infos = []
    L = []
    pids = None
    nccl_debug = pick_nccl_debug(r)
    allk = {}
    extra = {}

    def lab(rank, text):
        return "%d: %s" % (rank, text)

    def nts(h, tt):
        return "[%s]" % _d(h.c(tt)).strftime("%Y-%m-%d %H:%M:%S.%f")

    def dump(sim, upto):
        for rk in range(world):
            for (tt, tx) in sim.out[rk]:
                if tt <= upto:
                    L.append((tt, lab(rk, tx)))
        for k_, v in sim.kern.items():
            allk.setdefault(k_, []).extend(v)
        extra.update(sim.extra)

    L.append((t - 3, "+ srun --label --kill-on-bad-exit=1 python -u pretrain_gpt.py --inprocess-restart --inprocess-max-iterations %d --inprocess-soft-timeout %d --inprocess-hard-timeout %d ..." % (max_iter, soft, hard)))
    t_end = t
    for i, seg in enumerate(story.segs):
        last = i == len(story.segs) - 1
        sim = Sim(run, hosts, t + (0 if i == 0 else r.uniform(5, 40)), step, i)
        if pids is None:
            pids = [x[2] for x in sim.ranks]
        else:
            sim.ranks = [(h_, lr_, pids[k]) for k, (h_, lr_, _) in enumerate(sim.ranks)]
        sim.startup(nccl_debug=nccl_debug, resume_step=step, quiet=(i > 0))
        if i > 0:
            sim.emit(0, sim.t_ready - 8, " loading local (non-persistent) checkpoint for iteration %d" % step)
        ev = seg["ev"]
        dur = seg_duration(run, step)
        if ev == "success":
            sim.finish_success()
            dump(sim, INF)
            t_end = sim.t_end
            infos.append(None)
            break
        if ev == "preempt":
            tk = sim.t_ready + dur
            sim.progress(tk)
            dump(sim, tk)
            why = "PREEMPTION" if not (last and r.random() < 0.4) else "TIME LIMIT"
            L.append((tk, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO %s ***" % (jobid, hosts[0].name, f_slurm(hosts[0].c(tk)), why)))
            for h in hosts:
                L.append((tk + 0.1, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO %s ***" % (jobid, h.name, f_slurm(h.c(tk)), why)))
            infos.append({"rank": None, "node": None, "desc": "Slurm cancelled the job DUE TO %s" % why})
            t_end = tk + 2
            if last:
                break
            L.append((tk + 200, "%s | SLURM_JOB_ID=%d SLURM_RESTART_COUNT=%d (requeued)" % (f_ctime(hosts[0].c(tk + 200)), jobid, i + 1)))
            pids = None
            step = sim.step if seg.get("graceful") else sim.last_ckpt
            t = tk + r.uniform(300, 1500)
            continue
        c = seg["cause"]
        h = hosts[seg["host"] % nh]
        lr = seg["lr"] % run.gpn
        if c == "straggler":
            t_s = sim.t_ready + dur * 0.2
            sim.progress(t_s)
            info = fault_straggler(sim, h, lr, t_s)
            slow = r.uniform(1.5, 2.4)
            remaining = run.total_steps - sim.step
            te = t_s + remaining * run.step_time * slow + 60
            straggler_reports(sim, sim.rank_of(h, lr), t_s, te, "minmax")
            sim.progress(te, slow_factor=slow, slow_from=t_s)
            sim.finish_success()
            dump(sim, INF)
            info["desc"] += "; run finished ~%.1fx slower (MxRtt/MnClk always name the same rank)" % slow
            infos.append(info)
            t_end = sim.t_end
            break
        if c == "hang":
            seg["variant"] = seg.get("variant") or r.choice(["pyspy", "fr"])
        elif c == "collective_mismatch":
            seg["variant"] = "detail"      # soft timeouts fire long before NCCL watchdogs could show the op mismatch
        elif c == "data_loader_stall" and seg.get("variant") not in ("pyspy", "fs"):
            seg["variant"] = r.choice(["pyspy", "fs"])
        t_f = sim.t_ready + dur
        sim.progress(t_f)
        info = FAULTS[c](sim, h, lr, t_f, seg.get("variant"))
        seg["variant"] = info.get("variant")
        init_rank = info.get("rank")
        exits = sorted((v[0], k) for k, v in sim.exits.items() if v[1] != 0)
        stall = c in ("hang", "data_loader_stall", "collective_mismatch") and seg["variant"] not in ("timeout", "detail")
        if stall or (c in ("gpu_hardware", "nvlink") and not exits):
            kind = "SOFT_TIMEOUT"
            t_first = t_f + soft
            first_rank = init_rank
        else:
            t_first, first_rank = exits[0] if exits else (t_f + soft, init_rank or 0)
            code = sim.exits[first_rank][1]
            kind = "TERMINATED" if code in (-9, -11, -7, -6) else "EXCEPTION"
        if kind == "SOFT_TIMEOUT" and c == "hang" and seg["variant"] == "fr":
            # the flight-recorder dump on the stuck rank happens at the soft timeout instead of the NCCL timeout
            rk = init_rank
            sim.out[rk] = [x for x in sim.out[rk] if x[0] <= t_f]
            if run.tstyle == "glog" and rk is not None:
                sim.emit_many(rk, t_first - 0.5, dump_signal_lines(sim, rk, t_first - 0.5, (rk + 1) % world, sim.seq_for_step(sim.step) - 1))
        t_cut = t_first + r.uniform(0.5, 3)
        dump(sim, t_cut)
        if kind == "SOFT_TIMEOUT":
            aff = "{%d}" % first_rank if first_rank is not None else "{%s}" % ", ".join(str(x) for x in sorted(r.sample(range(world), min(world, 8))))
        else:
            aff = "{%d}" % first_rank
        for rk in range(world):
            hh = sim.host_of(rk)
            tt = t_cut + r.uniform(0.01, 1.5)
            if kind == "EXCEPTION" and rk == first_rank:
                lines = [x[1] for x in sim.out[rk] if x[0] <= t_cut]
                exc = [x for x in lines if x and not x.startswith(" ") and ":" in x and not x.startswith("Traceback") and not x.startswith("[")]
                L.append((tt - 0.005, lab(rk, "%s rank=%d fn_ex: %s" % (nts(hh, tt), rk, exc[-1] if exc else "RuntimeError"))))
            if kind == "TERMINATED" and rk == first_rank:
                continue
            L.append((tt, lab(rk, "%s rank=%d term_ex: RankShouldRestart: Interruption.%s affecting ranks %s" % (nts(hh, tt), rk, kind, aff))))
            L.append((tt + 0.01, lab(rk, "[%s] [ALWAYS] [InprocessRestarter%d@%s:%d] [NestedRestarter] name=[InProcess] state=handling stage=starting" % (f_iso_ms(hh.c(tt)), pids[rk], hh.name, rk))))
        if c in ("gpu_hardware", "ecc_memory", "nvlink", "illegal_memory_access") and init_rank is not None:
            L.append((t_cut + 2, lab(init_rank, "%s rank=%d health_ex: HealthCheckError" % (nts(h, t_cut + 2), init_rank))))
        infos.append(info)
        t_end = t_cut + 5
        if last:
            te = t_cut + r.uniform(5, 30)
            rk0 = first_rank if first_rank is not None else 0
            hh = sim.host_of(rk0)
            if story.kind == "exhaust":
                L.append((te, lab(rk0, "%s rank=%d restart_ex: RestartAbort: reached --inprocess-max-iterations=%d" % (nts(hh, te), rk0, max_iter))))
            L.append((te + 1, "srun: error: %s: task %d: Exited with exit code 1" % (hh.name, rk0)))
            L.append((te + 1.1, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
            for h_ in hosts:
                L.append((te + 1.2, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (jobid, h_.name, f_slurm(h_.c(te + 1.2)))))
            t_end = te + 3
            break
        step = sim.last_ckpt if r.random() < 0.5 else sim.step
        t = t_cut + r.uniform(15, 60)
        for rk in range(world):
            hh = sim.host_of(rk)
            L.append((t - 1, lab(rk, "[%s] [ALWAYS] [InprocessRestarter%d@%s:%d] [NestedRestarter] name=[InProcess] state=handling stage=completed" % (f_iso_ms(hh.c(t - 1)), pids[rk], hh.name, rk))))
    out = [x[1] for x in sorted(L, key=lambda x: x[0])]
    if r.random() < 0.35:
        out = truncate_middle(r, out)
    files = {"slurm-%d.out" % jobid: "\n".join(out) + "\n"}
    files["pretrain_gpt.sbatch"] = "\n".join([
        "#!/bin/bash", "#SBATCH --nodes=%d" % nh, "#SBATCH --ntasks-per-node=%d" % run.gpn, "#SBATCH --gpus-per-node=%d" % run.gpn, "#SBATCH --requeue", "",
        "srun --label --kill-on-bad-exit=1 python -u pretrain_gpt.py \\", "    --inprocess-restart --inprocess-max-iterations %d \\" % max_iter,
        "    --inprocess-soft-timeout %d --inprocess-hard-timeout %d \\" % (soft, hard), "    --non-persistent-save-interval 100 --non-persistent-ckpt-type local \\",
        "    --log-straggler --straggler-minmax-count 4 \\", "    ${MODEL_ARGS} ${DATA_ARGS}", ""])
    fault_hosts = [i_["node"] for i_ in infos if i_ and i_.get("node")]
    attach_kern(run, files, allk, hosts, fault_hosts, r.choice(["T", "journal"]), "dmesg_%s.txt", run.t0, t_end)
    files.update(extra)
    return files, truth_from(story, infos, "megatron_inprocess")

# ----------------------------------------------------------------------------
# main
# ----------------------------------------------------------------------------

LAYOUT_FUNCS = {}


def register_layouts():
    g = globals()
    for name in LAYOUTS:
        fn = g.get("layout_" + name)
        if fn:
            LAYOUT_FUNCS[name] = fn


def layout_opts(name):
    """story-planner options per layout"""
    if name in ("torchrun_elastic", "deepspeed_elastic", "nvrx_ft_launcher"):
        return {"allow_preempt_routine": True, "allow_scaleup": name != "nvrx_ft_launcher"}
    return {"allow_preempt_routine": True, "allow_scaleup": False}


def add_scary_harmless(run, files, story):
    """healthy runs: sprinkle lines that look alarming but are not the cause."""
    r = run.rng
    if not story.healthy:
        return
    keys = [k for k in files if k.endswith((".log", ".out", ".txt")) and "truth" not in k]
    if not keys:
        return
    k = r.choice(keys)
    txt = files[k].rstrip("\n").split("\n")
    pos = r.randint(min(len(txt) - 1, 20), max(min(len(txt) - 1, 20), len(txt) - 5)) if len(txt) > 25 else len(txt) // 2
    pick = r.choice([
        "[W CUDAAllocatorConfig.h:28] Warning: expandable_segments not supported on this platform (function operator())",
        "wandb: WARNING Serializing object of type dict that is 1051016 bytes",
        "wandb: Network error (ReadTimeout), entering retry loop.",
        "[W ProcessGroupNCCL.cpp:4561] Warning: TORCH_NCCL_AVOID_RECORD_STREAMS is the default now, this environment variable is thus deprecated. (function operator())",
        "%s/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.4 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants." % run.site,
        "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 32768.0",
        "[rank0]:[W reducer.cpp:1389] Warning: find_unused_parameters=True was specified in DDP constructor, but did not find any unused parameters in the forward pass. This flag results in an extra traversal of the autograd graph every iteration,  which can adversely affect performance. If your model indeed never has any unused parameters in the forward pass, consider turning this flag off. Note that this warning may be a false positive if your model has flow control causing later iterations to have unused parameters. (function operator())",
    ])
    txt.insert(pos, pick)
    files[k] = "\n".join(txt) + "\n"


def write_run(outdir, name, files, truth):
    d = os.path.join(outdir, name)
    os.makedirs(d, exist_ok=True)
    for fn in sorted(files):
        p = os.path.join(d, fn)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8") as f:
            f.write(files[fn])
    with open(os.path.join(d, "truth.json"), "w", encoding="utf-8") as f:
        json.dump(truth, f, indent=2)
        f.write("\n")


def assign(n, seed):
    rng = random.Random("blind37-assign-%s" % seed)
    order = list(CAUSES)
    rng.shuffle(order)
    try:
        lay_off = int(seed) % 3
    except ValueError:
        lay_off = rng.randrange(3)
    plan = []
    k = 0
    cause_count = {}
    healthy_count = 0
    for i in range(n):
        if i % 7 == 3:
            lay = LAYOUTS[(healthy_count * 4 + lay_off * 3) % len(LAYOUTS)]
            healthy_count += 1
            plan.append((None, lay))
            continue
        c = order[k % len(order)]
        k += 1
        j = cause_count.get(c, 0)
        cause_count[c] = j + 1
        lay = LAYOUTS[(CAUSES.index(c) * 4 + j * 3 + lay_off + (j // 3) * 2) % len(LAYOUTS)]
        plan.append((c, lay))
    return plan


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    ap.add_argument("--only-layout", default=None, help="debug: force one layout")
    a = ap.parse_args(argv)
    register_layouts()
    os.makedirs(a.out, exist_ok=True)
    plan = assign(a.n, a.seed)
    counts = {c: 0 for c in CAUSES}
    counts["healthy"] = 0
    per_layout = {}
    for i, (cause, lay) in enumerate(plan):
        if a.only_layout:
            lay = a.only_layout
        rng = random.Random("blind37-run-%s-%d" % (a.seed, i))
        run = Run(rng, lay, i)
        opts = layout_opts(lay)
        st = plan_story(rng, cause, 4, run.gpn, **opts)
        if lay != "slurm_requeue" and lay != "slurm_chain" and cause == "straggler":
            # straggler detection ends training from inside; restart-after-straggler only via an outer layer
            if st.kind in ("recovered", "exhaust"):
                st = plan_story(random.Random("blind37-re-%s-%d" % (a.seed, i)), cause, 4, run.gpn, **opts)
                tries = 0
                while st.kind in ("recovered", "exhaust") and tries < 10:
                    tries += 1
                    st = plan_story(random.Random("blind37-re-%s-%d-%d" % (a.seed, i, tries)), cause, 4, run.gpn, **opts)
        files, truth = LAYOUT_FUNCS[lay](run, st)
        add_scary_harmless(run, files, st)
        name = "run-%03d-%s" % (i, lay)
        d = os.path.join(a.out, name)
        if os.path.isdir(d):
            shutil.rmtree(d)
        write_run(a.out, name, files, truth)
        counts["healthy" if truth["healthy"] else truth["cause"]] += 1
        per_layout[lay] = per_layout.get(lay, 0) + 1
    print(json.dumps({"counts": counts, "layouts": per_layout, "n": a.n, "seed": a.seed}, indent=1))


if __name__ == "__main__":
    main()
