#!/usr/bin/env python3
"""blind46: synthetic log bundles of failed / healthy distributed jobs on
accelerators other than NVIDIA's (Ascend NPU, Intel Gaudi, AMD Instinct,
AWS Trainium, Intel Data Center GPU Max, Google TPU).

Written blind (no access to the diagnosis tool, its rules, tests, corpus or
the other generators).  Standard library only.

    python3 gen_blind46.py --out DIR --n 60 --seed S
"""
import argparse
import datetime as _dt
import json
import os
import random
import re
import shutil
import sys

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill",
          "crash_signal", "preemption", "hang", "data_loader_stall",
          "collective_mismatch", "straggler", "unknown"]

# ---------------------------------------------------------------------------
# time rendering
# ---------------------------------------------------------------------------
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep",
          "Oct", "Nov", "Dec"]


def _fmt(kind, d, boot):
    us = d.microsecond
    if kind == "py":        # 2024-05-01 10:00:00,123
        return d.strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (us // 1000)
    if kind == "ds":        # deepspeed [2024-05-01 10:00:00,123]
        return "[" + d.strftime("%Y-%m-%d %H:%M:%S") + ",%03d]" % (us // 1000)
    if kind in ("gE", "gW", "gI", "gF"):   # glog E0501 10:00:00.123456
        return kind[1] + d.strftime("%m%d %H:%M:%S") + ".%06d" % us
    if kind in ("cE", "cW", "cI"):         # c10 E501 10:00:00.123456789
        return kind[1] + "%d%02d " % (d.month, d.day) + d.strftime("%H:%M:%S") + ".%06d%03d" % (us, (us * 7) % 1000)
    if kind in ("tE", "tW", "tI"):         # torch elastic E0815 10:22:33.123000
        return kind[1] + d.strftime("%m%d %H:%M:%S") + ".%03d000" % (us // 1000)
    if kind == "hccl":      # 2024-08-05-18:15:21.270.506
        return d.strftime("%Y-%m-%d-%H:%M:%S") + ".%03d.%03d" % (us // 1000, us % 1000)
    if kind == "hcclsec":   # 2025-04-08-18:07:20
        return d.strftime("%Y-%m-%d-%H:%M:%S")
    if kind == "nrt":       # 2025-Jan-03 21:00:33.247541
        return "%d-%s-%02d " % (d.year, MONTHS[d.month - 1], d.day) + d.strftime("%H:%M:%S") + ".%06d" % us
    if kind == "ccom":      # 2023-Aug-01 16:14:43.0210
        return "%d-%s-%02d " % (d.year, MONTHS[d.month - 1], d.day) + d.strftime("%H:%M:%S") + ".%04d" % (us // 100)
    if kind == "dm":        # [ 1234.567890]
        up = (d - boot).total_seconds()
        return "[%12.6f]" % up
    if kind == "dmT":       # dmesg -T
        return "[" + d.strftime("%a %b %d %H:%M:%S %Y") + "]"
    if kind == "sys":       # journal: Aug 05 18:15:21
        return "%s %02d %s" % (MONTHS[d.month - 1], d.day, d.strftime("%H:%M:%S"))
    if kind == "iso":
        return d.strftime("%Y-%m-%dT%H:%M:%S")
    if kind == "isoz":
        return d.strftime("%Y-%m-%dT%H:%M:%S") + ".%06dZ" % us
    if kind == "tr":        # torchrun summary 2024-08-15_10:22:33
        return d.strftime("%Y-%m-%d_%H:%M:%S")
    if kind == "hms":
        return d.strftime("%H:%M:%S")
    if kind == "hab":       # habana logs [2024-05-01 10:00:00.123456]
        return "[" + d.strftime("%Y-%m-%d %H:%M:%S") + ".%06d]" % us
    if kind == "date":      # `date` output
        return d.strftime("%a %b %d %H:%M:%S UTC %Y")
    if kind == "epoch":
        return "%.3f" % d.timestamp()
    if kind == "xpu":       # 2024-05-01 10:00:00.123
        return d.strftime("%Y-%m-%d %H:%M:%S") + ".%03d" % (us // 1000)
    raise KeyError(kind)


_TOK = re.compile(r"\{T:([A-Za-z]+)\}")


class Clock:
    def __init__(self, t0, skew, boot_age):
        self.t0 = t0
        self.skew = skew
        self.boot = t0 - _dt.timedelta(seconds=boot_age)

    def at(self, t):
        return self.t0 + _dt.timedelta(seconds=t + self.skew)

    def render(self, t, text):
        if "{T:" not in text:
            return text
        d = self.at(t)
        return _TOK.sub(lambda m: _fmt(m.group(1), d, self.boot), text)


class Stream:
    """A file assembled from timed lines (t seconds after job start)."""

    def __init__(self, clock):
        self.clock = clock
        self.items = []
        self.n = 0

    def add(self, t, text, clock=None, prefix="", owner=None):
        for ln in text.split("\n"):
            self.items.append((t, self.n, prefix + ln, clock, owner))
            self.n += 1
            t += 1e-6

    def render(self):
        out = []
        for t, _, ln, ck, _o in sorted(self.items, key=lambda x: (x[0], x[1])):
            out.append((ck or self.clock).render(t, ln))
        return out


# ---------------------------------------------------------------------------
# generic helpers
# ---------------------------------------------------------------------------

def hexaddr(rng, lo=0x7f0000000000, hi=0x7fffffffffff):
    return "0x%x" % (rng.randrange(lo, hi) & ~0xf)


def ipaddr(rng, net="10.%d.%d"):
    return "10.%d.%d.%d" % (rng.randrange(0, 250), rng.randrange(0, 250), rng.randrange(2, 250))


def pick(rng, seq):
    return seq[rng.randrange(len(seq))]


SIGNAMES = {6: "SIGABRT", 9: "SIGKILL", 11: "SIGSEGV", 7: "SIGBUS", 15: "SIGTERM"}


def tqdm_bar(rng, desc, total, done, rate, width=40):
    pct = int(100 * done / max(1, total))
    fill = int(width * done / max(1, total))
    bar = "\u2588" * fill + " " * (width - fill)
    el = int(done / max(rate, 1e-3))
    rem = int((total - done) / max(rate, 1e-3))
    return "%s: %3d%%|%s| %d/%d [%02d:%02d<%02d:%02d, %.2fit/s]" % (
        desc, pct, bar, done, total, el // 60, el % 60, rem // 60 % 60, rem % 60, rate)


PY_WARNINGS = [
    "/usr/local/lib/python3.10/dist-packages/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.4 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants.\n  warnings.warn(",
    "/usr/local/lib/python3.10/dist-packages/transformers/deepspeed.py:24: FutureWarning: transformers.deepspeed module is deprecated and will be removed in a future version. Please import deepspeed modules directly from transformers.integrations\n  warnings.warn(",
    "/usr/local/lib/python3.10/dist-packages/torch/_utils.py:831: UserWarning: TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class. This should only matter to you if you are using storages directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()\n  return self.fget.__get__(instance, owner)()",
    "/usr/local/lib/python3.10/dist-packages/torch/distributed/fsdp/_init_utils.py:440: UserWarning: FSDP is switching to use `NO_SHARD` instead of ShardingStrategy.FULL_SHARD since the world size is 1.\n  warnings.warn(",
    "/usr/local/lib/python3.10/dist-packages/datasets/load.py:1461: FutureWarning: The repository for wikitext contains custom code which must be executed to correctly load the dataset. You can inspect the repository content at https://hf.co/datasets/wikitext\n  warnings.warn(",
    "Special tokens have been added in the vocabulary, make sure the associated word embeddings are fine-tuned or trained.",
]

MODELS = ["llama2-7b", "llama3-8b", "qwen2-7b", "mistral-7b", "gpt-neox-1.3b", "bert-large", "llama2-13b", "qwen1.5-14b"]


class Run:
    def __init__(self, rng, idx, layout, cause):
        self.rng = rng
        self.idx = idx
        self.layout = layout
        self.cause = cause
        self.healthy = cause is None
        self.files = {}          # rel path -> Stream or list[str]
        self.init_rank = None
        self.init_node = None
        self.notes = ""
        y = rng.choice([2024, 2025])
        self.t0 = _dt.datetime(y, rng.randrange(1, 13), rng.randrange(1, 28),
                               rng.randrange(0, 24), rng.randrange(0, 60), rng.randrange(0, 60),
                               rng.randrange(0, 999999))

    def stream(self, path, clock):
        s = Stream(clock)
        self.files[path] = s
        return s

    def text(self, path, lines):
        if isinstance(lines, str):
            lines = lines.split("\n")
        self.files[path] = list(lines)

    def write(self, root):
        d = os.path.join(root, "run-%03d-%s" % (self.idx, self.layout))
        if os.path.exists(d):
            shutil.rmtree(d)
        os.makedirs(d)
        for path in sorted(self.files):
            v = self.files[path]
            lines = v.render() if isinstance(v, Stream) else v
            p = os.path.join(d, path)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w", encoding="utf-8") as f:
                f.write("\n".join(lines).rstrip("\n") + "\n")
        init = None
        if self.init_rank is not None or self.init_node is not None:
            init = {"rank": self.init_rank, "node": self.init_node}
        truth = {"healthy": self.healthy, "cause": self.cause, "initiator": init,
                 "layout": self.layout, "notes": self.notes}
        with open(os.path.join(d, "truth.json"), "w") as f:
            json.dump(truth, f, indent=2)
            f.write("\n")
        return d


def truncate_head(lines, keep, marker=None):
    if len(lines) <= keep:
        return lines
    out = lines[-keep:]
    if marker:
        out = [marker] + out
    return out


# ---------------------------------------------------------------------------
# torch-style multi-node job (Ascend, Gaudi, ROCm, Neuron, XPU)
# ---------------------------------------------------------------------------

class Job:
    def __init__(self, run, P, nodes, local):
        self.run = run
        self.rng = rng = run.rng
        self.P = P
        self.N = nodes
        self.L = local
        self.W = nodes * local
        self.hosts = P.hostnames(rng, nodes)
        self.ips = [ipaddr(rng) for _ in range(nodes)]
        big = rng.random() < 0.4
        self.clocks = []
        for n in range(nodes):
            skew = 0.0 if n == 0 else (rng.uniform(-75, 75) if big else rng.uniform(-0.8, 0.8))
            self.clocks.append(Clock(run.t0, skew, rng.uniform(3600 * 5, 3600 * 24 * 40)))
        self.pids = [rng.randrange(2000, 400000) for _ in range(self.W)]
        self.agent_pid = [rng.randrange(1000, 400000) for _ in range(nodes)]
        self.exits = {}                 # rank -> (t, code)
        self.kmsg = [[] for _ in range(nodes)]   # (t, text)
        self.rank_prefix = rng.random() < 0.6
        self.streams = {}
        self.node_stream = [None] * nodes
        self.node_tag = [""] * nodes
        self.model = pick(rng, MODELS)
        self.step_s = rng.uniform(1.2, 9.0)
        self.start_train = rng.uniform(90, 400)
        self.timeout_s = pick(rng, [600, 1800, 1800, 1200, 3600])
        self.script = pick(rng, ["train.py", "pretrain_gpt.py", "run_clm.py", "finetune.py", "main.py"])
        self.jobid = rng.randrange(100000, 9999999)
        self.ended_at = None            # scheduler kill time (hang etc.)
        self.end_reason = None
        self.killed_by = None           # 'slurm_cancel', 'walltime', 'user'
        self.per_rank_timing = False
        self.total_steps = rng.choice([2000, 5000, 10000, 20000, 50000])
        self.last_step = {}

    # -- routing ----------------------------------------------------------
    def node_of(self, r):
        return r // self.L

    def lr(self, r):
        return r % self.L

    def rlog(self, r, t, text, err=False):
        n = self.node_of(r)
        pre = self.node_tag[n]
        if err and self.rank_prefix:
            pre = pre + "[rank%d]: " % r
        self.node_stream[n].add(t, text, self.clocks[n], pre, owner=r)

    def nlog(self, n, t, text):
        self.node_stream[n].add(t, text, self.clocks[n], self.node_tag[n])

    def dmesg(self, n, t, text):
        for ln in text.split("\n"):
            self.kmsg[n].append((t, ln))
            t += 1e-4

    def exit(self, r, t, code):
        if r not in self.exits:
            self.exits[r] = (t, code)

    def alive(self, r, t):
        return r not in self.exits or self.exits[r][0] > t

    # -- generic training output ------------------------------------------
    def train_progress(self, t_stop, slow=None):
        """rank 0 (and optionally all ranks) print step lines until t_stop."""
        rng = self.rng
        t = self.start_train
        step = 0
        every = pick(rng, [1, 5, 10, 10, 20])
        while t < t_stop:
            step += 1
            st = self.step_s * rng.uniform(0.97, 1.04)
            if slow is not None and slow[0] <= t:
                st *= slow[1]
            t += st
            if t >= t_stop:
                break
            self.last_step[0] = step
            if step % every == 0:
                loss = 2.2 + 8.0 / (1 + step / 300.0) + rng.uniform(-0.05, 0.05)
                tok = int(self.W * 4096 * 4 / st)
                if self.run.layout == "gaudi_deepspeed":
                    line = "{T:ds} [INFO] [logging.py:96:log_dist] [Rank 0] step=%d, skipped=0, lr=[%.6e], mom=[(0.9, 0.95)]" % (step, 3e-4 * min(1, step / 500))
                    self.rlog(0, t, line)
                    self.rlog(0, t + 0.01, "{'loss': %.4f, 'grad_norm': %.3f, 'learning_rate': %.3e, 'epoch': %.2f}" % (loss, rng.uniform(0.2, 2.5), 3e-4, step / 3000.0))
                else:
                    self.rlog(0, t, "{T:py} - INFO - trainer - step %d/%d | loss %.4f | lr %.3e | grad_norm %.3f | step_time %.2fs | tokens/s %d" % (
                        step, self.total_steps, loss, 3e-4 * min(1, step / 500), rng.uniform(0.2, 2.5), st, tok))
                if self.per_rank_timing and step % (every * 5) == 0:
                    for r in range(self.W):
                        base = st / (slow[1] if (slow is not None and slow[0] <= t) else 1.0)
                        fwd = base * rng.uniform(0.30, 0.34)
                        if slow is not None and slow[2] == r and slow[0] <= t:
                            fwd = base * rng.uniform(0.30, 0.34) * slow[1] * rng.uniform(1.0, 1.05)
                            wait = base * 0.05
                        elif slow is not None and slow[0] <= t:
                            wait = base * (slow[1] - 1) + base * rng.uniform(0.03, 0.07)
                        else:
                            wait = base * rng.uniform(0.03, 0.07)
                        self.rlog(r, t + 0.02 + r * 1e-4, "[timer rank %d] step %d fwd_bwd=%.3fs comm_wait=%.3fs data=%.3fs" % (
                            r, step, fwd * 2.5, wait, rng.uniform(0.002, 0.02)))
            if step % 500 == 0 and rng.random() < 0.5:
                self.rlog(0, t + 0.1, "{T:py} - INFO - checkpoint - saving checkpoint to /ckpt/%s/step_%d" % (self.model, step))
        self.last_step[0] = step
        return step, t

    def seq_at(self, t):
        steps = max(1, int((t - self.start_train) / self.step_s))
        return 12 + steps * pick(self.rng, [3, 5, 7])


class Platform:
    name = "?"
    dev = "cuda"
    coll = "NCCL"
    pg = "ProcessGroupNCCL.cpp"

    def hostnames(self, rng, n):
        base = rng.randrange(1, 90)
        pre = pick(rng, ["node", "gpu", "cn", "worker-"])
        return ["%s%03d" % (pre, base + i) for i in range(n)]


SITE = "/usr/local/lib/python3.10/dist-packages"


def traceback_text(job, frames, exc):
    out = ["Traceback (most recent call last):"]
    for f, ln, fn, code in frames:
        out.append('  File "%s", line %d, in %s' % (f, ln, fn))
        out.append("    " + code)
    out.append(exc)
    return "\n".join(out)


def train_frames(job, inner=None, step_call="loss = train_step(model, batch)"):
    fr = [("/workspace/%s" % job.script, pick(job.rng, [412, 508, 377, 655]), "<module>", "main()"),
          ("/workspace/%s" % job.script, pick(job.rng, [388, 471, 350, 619]), "main", "train(args, model, optimizer, loader)"),
          ("/workspace/%s" % job.script, pick(job.rng, [233, 301, 198, 266]), "train", step_call)]
    if inner:
        fr += inner
    return fr


def fw_frames(job, dev):
    return [("/workspace/%s" % job.script, 151, "train_step", "loss.backward()"),
            (SITE + "/torch/_tensor.py", 525, "backward", "torch.autograd.backward("),
            (SITE + "/torch/autograd/__init__.py", 267, "backward", "_engine_run_backward("),
            (SITE + "/torch/autograd/graph.py", 744, "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")]


def ar_frames(job):
    return [("/workspace/%s" % job.script, 163, "train_step", "dist.all_reduce(grad_buf, op=dist.ReduceOp.SUM)"),
            (SITE + "/torch/distributed/c10d_logger.py", 79, "wrapper", "return func(*args, **kwargs)"),
            (SITE + "/torch/distributed/distributed_c10d.py", 2288, "all_reduce", "work.wait()")]


PY_EXCS = [
    ([("/workspace/data/collate.py", 58, "collate_fn", "labels = torch.stack([s['labels'] for s in samples])")],
     "KeyError: 'labels'"),
    ([("/workspace/model/attention.py", 211, "forward", "attn = attn.view(bsz, self.num_heads, q_len, kv_len)")],
     "RuntimeError: shape '[4, 32, 2048, 2048]' is invalid for input of size 520093696"),
    ([("/workspace/utils/ckpt.py", 77, "load_shard", "state = torch.load(path, map_location='cpu')"),
      (SITE + "/torch/serialization.py", 997, "load", "with _open_file_like(f, 'rb') as opened_file:")],
     "FileNotFoundError: [Errno 2] No such file or directory: '/ckpt/shards/model_optim_rng_rank%d.pt'"),
    ([("/workspace/data/tokenize.py", 96, "__getitem__", "ids = ids[: self.max_len] + [self.pad_id] * (self.max_len - len(ids))")],
     "TypeError: can only concatenate list (not \"NoneType\") to list"),
    ([("/workspace/train_utils.py", 140, "check_loss", "assert torch.isfinite(loss).all(), f'non-finite loss at step {step}'")],
     "AssertionError: non-finite loss at step %d"),
    ([("/workspace/data/sampler.py", 44, "__iter__", "idx = self.index[self.offset + i]")],
     "IndexError: list index out of range"),
]


def generic_cause(job, cause):
    """Drive a cause on a torch-style job. Returns nothing; fills job."""
    run, rng, P = job.run, job.rng, job.P
    W, L = job.W, job.L
    r0 = rng.randrange(W)
    n0 = job.node_of(r0)
    t_fail = job.start_train + job.step_s * rng.randrange(40, 900)
    job.t_evidence = t_fail
    run.init_rank, run.init_node = r0, job.hosts[n0]
    fast = rng.random() < 0.55
    mode = "fast" if fast else "watchdog"

    def die(t, code, dead=None):
        job.exit(r0, t, code)
        propagate(job, r0 if dead is None else dead, t, mode)

    if cause == "gpu_hardware":
        t_end = P.hw_fault(job, r0, t_fail)
        die(t_end, job.exits[r0][1] if r0 in job.exits else 1)
        run.notes = "%s device fault on rank %d (%s); peers fail afterwards (%s)" % (P.name, r0, job.hosts[n0], mode)
    elif cause == "ecc_memory":
        t_end = P.ecc(job, r0, t_fail)
        die(t_end, job.exits[r0][1] if r0 in job.exits else 1)
        run.notes = "uncorrectable HBM ECC on the device of rank %d (%s)" % (r0, job.hosts[n0])
    elif cause == "nvlink":
        t_end = P.fabric(job, r0, t_fail)
        die(t_end, job.exits[r0][1] if r0 in job.exits else 1)
        run.notes = "chip-to-chip fabric (%s) failure on %s, first seen by rank %d" % (P.fabric_name, job.hosts[n0], r0)
    elif cause == "network":
        t_end = P.network(job, r0, t_fail)
        die(t_end, 1)
        run.notes = "host NIC / scale-out network failure on %s (rank %d fails first)" % (job.hosts[n0], r0)
    elif cause == "cuda_oom":
        t_end = P.oom(job, r0, t_fail)
        die(t_end, 1)
        run.notes = "device out of memory on rank %d" % r0
    elif cause == "illegal_memory_access":
        t_end = P.iam(job, r0, t_fail)
        die(t_end, pick(rng, [1, -6]))
        run.notes = "application device memory fault (out-of-bounds kernel) on rank %d" % r0
    elif cause == "python_exception":
        inner, exc = pick(rng, PY_EXCS)
        if "%d" in exc:
            exc = exc % (r0 if "rank" in exc else rng.randrange(100, 9000))
        job.rlog(r0, t_fail, traceback_text(job, train_frames(job, inner), exc), err=True)
        die(t_fail + 0.5, 1)
        run.notes = "uncaught %s on rank %d" % (exc.split(":")[0], r0)
    elif cause == "host_oom_kill":
        pid = job.pids[r0]
        rss = rng.randrange(180, 480) * 1024 * 1024
        n = n0
        job.dmesg(n, t_fail - 0.3, "{T:dm} python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0")
        job.dmesg(n, t_fail - 0.25, "{T:dm} Mem-Info:\n{T:dm} active_anon:%d inactive_anon:%d isolated_anon:0" % (rng.randrange(10**7, 9 * 10**7), rng.randrange(10**5, 10**6)))
        if rng.random() < 0.5:
            job.dmesg(n, t_fail - 0.2, "{T:dm} oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0-1,oom_memcg=/slurm/uid_%d/job_%d,task_memcg=/slurm/uid_%d/job_%d/step_0/task_%d,task=python3,pid=%d,uid=%d" % (
                1000 + job.run.idx, job.jobid, 1000 + job.run.idx, job.jobid, n, pid, 1000 + job.run.idx))
            job.dmesg(n, t_fail - 0.15, "{T:dm} Memory cgroup out of memory: Killed process %d (python3) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (
                pid, rss * 3, rss, rng.randrange(10**5, 10**6), rng.randrange(10**5, 10**7), 1000 + job.run.idx, rng.randrange(10**4, 10**5)))
        else:
            job.dmesg(n, t_fail - 0.2, "{T:dm} oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/user.slice,task=python3,pid=%d,uid=%d" % (pid, 1000 + job.run.idx))
            job.dmesg(n, t_fail - 0.15, "{T:dm} Out of memory: Killed process %d (python3) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (
                pid, rss * 3, rss, rng.randrange(10**5, 10**6), rng.randrange(10**5, 10**7), 1000 + job.run.idx, rng.randrange(10**4, 10**5)))
        job.dmesg(n, t_fail + 0.4, "{T:dm} oom_reaper: reaped process %d (python3), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB" % pid)
        job.host_oom = (n0, t_fail)
        die(t_fail, -9)
        run.notes = "kernel OOM killer SIGKILLed rank %d (pid %d) on %s" % (r0, pid, job.hosts[n0])
    elif cause == "crash_signal":
        v = rng.randrange(3)
        pid = job.pids[r0]
        if v == 0:
            job.rlog(r0, t_fail, "Fatal Python error: Segmentation fault\n\nThread 0x%016x (most recent call first):\n  File \"%s/torch/utils/data/_utils/pin_memory.py\", line 54 in do_one_step\n  File \"%s/torch/utils/data/_utils/pin_memory.py\", line 72 in _pin_memory_loop\n\nCurrent thread 0x%016x (most recent call first):\n  File \"/workspace/ops/fused_rope.py\", line 88 in apply_rotary\n  File \"/workspace/model/attention.py\", line 190 in forward\n  File \"%s/torch/nn/modules/module.py\", line 1541 in _call_impl\n\nExtension modules: numpy.core._multiarray_umath, torch._C, torch._C._fft, yaml._yaml, sentencepiece._sentencepiece (total: 41)" % (
                rng.randrange(2**46, 2**47), SITE, SITE, rng.randrange(2**46, 2**47), SITE))
            job.dmesg(n0, t_fail, "{T:dm} python3[%d]: segfault at 18 ip %s sp %s error 4 in fused_rope_ext.cpython-310-x86_64-linux-gnu.so[%s+1c000] likely on CPU %d (core %d, socket 0)" % (
                pid, hexaddr(rng), hexaddr(rng), hexaddr(rng), rng.randrange(0, 96), rng.randrange(0, 48)))
            code = -11
            what = "SIGSEGV in a custom C++ extension"
        elif v == 1:
            job.rlog(r0, t_fail, "terminate called after throwing an instance of 'std::runtime_error'\n  what():  [enforce fail at inline_container.cc:603] . unexpected pos 1920 vs 1846")
            code = -6
            what = "SIGABRT from a C++ exception in checkpoint writer"
        else:
            job.rlog(r0, t_fail, "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).")
            job.rlog(r0, t_fail + 0.4, traceback_text(job, train_frames(job, [
                (SITE + "/torch/utils/data/dataloader.py", 1133, "_try_get_data", "data = self._data_queue.get(timeout=timeout)"),
                (SITE + "/torch/utils/_contextlib.py", 58, "handler", "_error_if_any_worker_fails()")], step_call="batch = next(data_iter)"),
                "RuntimeError: DataLoader worker (pid %d) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit." % (pid + 7)), err=True)
            code = 1
            what = "SIGBUS in a DataLoader worker (/dev/shm exhausted)"
        die(t_fail + 0.6, code)
        run.notes = "%s on rank %d (%s); no hardware evidence" % (what, r0, job.hosts[n0])
    elif cause == "preemption":
        preempt(job, t_fail)
    elif cause == "hang":
        hang(job, r0, t_fail, "hang")
    elif cause == "data_loader_stall":
        hang(job, r0, t_fail, "data")
    elif cause == "collective_mismatch":
        mismatch(job, r0, t_fail)
    elif cause == "straggler":
        straggler(job, r0, t_fail)
    elif cause == "unknown":
        code = pick(rng, [1, 1, -9, 255 % 256])
        job.exit(r0, t_fail, code)
        propagate(job, r0, t_fail, mode)
        if rng.random() < 0.5 or code == -9:
            run.init_rank = run.init_node = None
            job.hide_node = n0 if rng.random() < 0.5 else None
        run.notes = "rank %d exited (code %d) without any message; no kernel/device evidence" % (r0, code)
    if cause not in ("hang", "data_loader_stall", "straggler", "preemption"):
        job.train_progress(t_fail)
    return r0


def propagate(job, dead, t, mode):
    """Collateral: other nodes notice the dead rank."""
    rng, P = job.rng, job.P
    n0 = job.node_of(dead)
    # local agent on dead node kills the rest (handled in launcher finish)
    if mode == "fast":
        for n in range(job.N):
            if n == n0:
                continue
            k = rng.randrange(1, min(4, job.L) + 1)
            rs = sorted(rng.sample(range(n * job.L, (n + 1) * job.L), k))
            for i, r in enumerate(rs):
                tt = t + rng.uniform(1.5, 25) + i * rng.uniform(0.01, 0.3)
                P.peer_lost(job, r, tt, n0)
                job.exit(r, tt + 0.3, 1)
    else:
        seq = job.seq_at(t)
        op = pick(rng, ["ALLREDUCE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE", "ALLREDUCE"])
        for r in range(job.W):
            if job.node_of(r) == n0:
                continue
            tt = t + job.timeout_s + rng.uniform(0.01, 2.5)
            P.watchdog(job, r, tt, seq, op, seq, seq - 1)
            job.exit(r, tt + rng.uniform(1, 6), P.wd_exit)


def preempt(job, t):
    run, rng = job.run, job.rng
    job.train_progress(t)
    v = job.P.preempt_variant(job)
    if v == "slurm_time":
        job.killed_by = ("slurm", t, "TIME LIMIT")
        run.init_rank = run.init_node = None
        run.notes = "Slurm time limit reached; scheduler SIGTERMed every task"
    elif v == "slurm_preempt":
        job.killed_by = ("slurm", t, "PREEMPTION")
        run.init_rank = run.init_node = None
        run.notes = "job preempted by a higher-priority Slurm job (requeue)"
    elif v == "pbs_walltime":
        job.killed_by = ("pbs", t, "walltime")
        run.init_rank = run.init_node = None
        run.notes = "PBS walltime exceeded; job killed"
    elif v == "spot":
        n = rng.randrange(job.N)
        job.killed_by = ("spot", t, n)
        run.init_rank, run.init_node = None, job.hosts[n]
        run.notes = "EC2 spot interruption of %s; its ranks got SIGTERM, peers lost them" % job.hosts[n]
    else:
        job.killed_by = ("k8s", t, None)
        run.init_rank = run.init_node = None
        run.notes = "pods evicted by the cluster (node drain); SIGTERM to all workers"
    for r in range(job.W):
        if v == "spot" and job.node_of(r) != job.killed_by[2]:
            continue
        job.exit(r, t + rng.uniform(0.5, 3), -15)
    if v == "spot":
        n = job.killed_by[2]
        propagate(job, n * job.L, t + 2, "fast")


def hang(job, r0, t, kind):
    run, rng, P = job.run, job.rng, job.P
    n0 = job.node_of(r0)
    job.train_progress(t)
    seq = job.seq_at(t)
    op = pick(rng, ["ALLREDUCE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE"])
    evidence = rng.random()
    if kind == "data":
        fs = pick(rng, ["nfs", "lustre", "s3fs"])
        if fs == "nfs":
            job.dmesg(n0, t - rng.uniform(5, 60), "{T:dm} nfs: server fs01.cluster.local not responding, still trying")
            job.dmesg(n0, t + 40, "{T:dm} nfs: server fs01.cluster.local not responding, still trying")
            job.dmesg(n0, t + 120, "{T:dm} INFO: task pt_data_worker:%d blocked for more than 122 seconds.\n{T:dm}       Tainted: G           OE     5.15.0-105-generic #115-Ubuntu\n{T:dm} \"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.\n{T:dm} task:pt_data_worker state:D stack:    0 pid:%d ppid:%d flags:0x00004002\n{T:dm} Call Trace:\n{T:dm}  <TASK>\n{T:dm}  __schedule+0x2cd/0x8a0\n{T:dm}  schedule+0x4e/0xc0\n{T:dm}  rpc_wait_bit_killable+0x23/0x90 [sunrpc]\n{T:dm}  nfs4_proc_getattr+0x8b/0x100 [nfsv4]" % (
                job.pids[r0] + 3, job.pids[r0] + 3, job.pids[r0]))
        elif fs == "lustre":
            job.dmesg(n0, t - rng.uniform(5, 60), "{T:dm} LustreError: 11-0: scratch-OST0012-osc-ffff9c3a4e1f8000: operation ost_read to node 10.20.1.17@o2ib failed: rc = -107\n{T:dm} Lustre: scratch-OST0012-osc-ffff9c3a4e1f8000: Connection to scratch-OST0012 (at 10.20.1.17@o2ib) was lost; in progress operations using this service will wait for recovery to complete")
        if evidence < 0.5:
            job.rlog(r0, t + job.timeout_s * 0.3, traceback_text(job, train_frames(job, [
                (SITE + "/torch/utils/data/dataloader.py", 631, "__next__", "data = self._next_data()"),
                (SITE + "/torch/utils/data/dataloader.py", 1329, "_next_data", "idx, data = self._get_data()"),
                (SITE + "/torch/utils/data/dataloader.py", 1285, "_get_data", "success, data = self._try_get_data()"),
                (SITE + "/torch/utils/data/dataloader.py", 1146, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {timeout} seconds') from e")], step_call="batch = next(data_iter)"),
                "RuntimeError: DataLoader timed out after %d seconds" % int(job.timeout_s * 0.3)), err=True)
            job.exit(r0, t + job.timeout_s * 0.3 + 0.5, 1)
            propagate(job, r0, t + job.timeout_s * 0.3 + 0.5, "fast" if rng.random() < 0.5 else "watchdog")
            run.notes = "rank %d stalled in data loading (%s) until DataLoader timeout" % (r0, fs)
            return
        run.notes = "rank %d stuck reading training data from %s; others time out in %s" % (r0, fs, op)
    else:
        run.notes = "rank %d stopped making progress (stuck in host code); peers hit the collective watchdog" % r0
    # peers time out; r0 does not
    for r in range(job.W):
        if r == r0:
            continue
        tt = t + job.timeout_s + rng.uniform(0.01, 3)
        P.watchdog(job, r, tt, seq, op, seq, seq - 1)
        job.exit(r, tt + rng.uniform(1, 6), P.wd_exit)
    dump = evidence < 0.8 or kind == "data"
    if dump:
        job.pyspy = (r0, kind)
        P.flight_recorder_hint(job, r0, t, seq)
    else:
        run.init_rank = None
        run.init_node = None if rng.random() < 0.5 else job.hosts[n0]
        if run.init_node is None:
            run.notes += " (the stuck rank cannot be singled out from the attached logs)"


def mismatch(job, r0, t):
    run, rng, P = job.run, job.rng, job.P
    job.train_progress(t)
    seq = job.seq_at(t)
    detail = rng.random() < 0.55
    bad_op = pick(rng, ["BROADCAST", "ALLGATHER", "REDUCE_SCATTER", "BARRIER"])
    if detail:
        for r in range(job.W):
            other = 0 if r0 != 0 else 1
            if r == r0:
                continue
            if rng.random() < 0.6 or r == other:
                msg = ("RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: CollectiveFingerPrint(SequenceNumber=%d, OpType=ALLREDUCE, TensorShape=[%d], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=%s, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))), but Rank %d is running collective: CollectiveFingerPrint(SequenceNumber=%d, OpType=%s)." % (
                    r, seq, rng.randrange(10**6, 10**8), P.dev, r0, seq, bad_op))
                job.rlog(r, t + rng.uniform(0.1, 2), traceback_text(job, train_frames(job, ar_frames(job)), msg), err=True)
                job.exit(r, t + rng.uniform(2, 4), 1)
        job.rlog(r0, t + 0.5, "[debug] rank %d: skipping loss all-reduce, eval step triggered (eval_every=%d)" % (r0, rng.choice([250, 500, 1000])))
        run.notes = "rank %d issued %s while all other ranks issued ALLREDUCE (TORCH_DISTRIBUTED_DEBUG=DETAIL caught it)" % (r0, bad_op)
    else:
        for r in range(job.W):
            tt = t + job.timeout_s + rng.uniform(0.01, 3)
            if r == r0:
                P.watchdog(job, r, tt, seq, bad_op, seq, seq - 1)
            else:
                P.watchdog(job, r, tt, seq, "ALLREDUCE", seq, seq - 1)
            job.exit(r, tt + rng.uniform(1, 6), P.wd_exit)
        run.notes = "rank %d entered %s at SeqNum %d while the others entered ALLREDUCE; all hung to the watchdog" % (r0, bad_op, seq)


def straggler(job, r0, t):
    run, rng, P = job.run, job.rng, job.P
    job.per_rank_timing = rng.random() < 0.7
    factor = rng.uniform(1.6, 3.2)
    t_end = t + rng.uniform(1800, 5400)
    job.train_progress(t_end, slow=(t, factor, r0))
    P.straggler_evidence(job, r0, t)
    if not job.per_rank_timing:
        run.init_rank = None
        if not getattr(job, "straggler_node_evidence", False):
            run.init_node = None
    job.killed_by = ("user", t_end, None)
    for r in range(job.W):
        job.exit(r, t_end + rng.uniform(0.5, 2), -15)
    run.notes = "device of rank %d slowed down (%.1fx) from t+%ds; the whole job ran at its pace until it was cancelled" % (r0, factor, int(t))


# ---------------------------------------------------------------------------
# launchers
# ---------------------------------------------------------------------------

def torchrun_finish(job):
    rng = job.rng
    kb = job.killed_by
    for n in range(job.N):
        ranks = list(range(n * job.L, (n + 1) * job.L))
        apid = job.agent_pid[n]
        ex = [(job.exits[r][0], r, job.exits[r][1]) for r in ranks if r in job.exits]
        if kb is not None and not (kb[0] == "spot" and kb[2] != n):
            kind, t, extra = kb
            tt = t + rng.uniform(0.05, 0.8)
            if kind == "slurm":
                pass  # slurmstepd line added by slurm wrapper
            job.nlog(n, tt, "{T:tW} %d torch/distributed/elastic/agent/server/api.py:704] Received Signals.SIGTERM death signal, shutting down workers" % apid)
            for r in ranks:
                job.nlog(n, tt + 0.01, "{T:tW} %d torch/distributed/elastic/multiprocessing/api.py:858] Sending process %d closing signal SIGTERM" % (apid, job.pids[r]))
            job.nlog(n, tt + 2.5, traceback_text(job, [
                ("/usr/local/bin/torchrun", 8, "<module>", "sys.exit(main())"),
                (SITE + "/torch/distributed/elastic/multiprocessing/errors/__init__.py", 347, "wrapper", "return f(*args, **kwargs)"),
                (SITE + "/torch/distributed/run.py", 812, "main", "run(args)"),
                (SITE + "/torch/distributed/launcher/api.py", 255, "launch_agent", "result = agent.run()"),
                (SITE + "/torch/distributed/elastic/multiprocessing/api.py", 79, "_terminate_process_handler", "raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)")],
                "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % apid))
            continue
        bad = [e for e in sorted(ex) if e[2] != 0]
        if not bad:
            if ex and all(e[2] == 0 for e in ex):
                tt = max(e[0] for e in ex) + 0.5
                job.nlog(n, tt, "{T:tI} %d torch/distributed/elastic/agent/server/api.py:680] [default] worker group successfully finished. Waiting 300 seconds for other agents to finish." % apid)
                job.nlog(n, tt + 0.01, "{T:tI} %d torch/distributed/elastic/agent/server/api.py:1506] Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish" % apid)
                job.nlog(n, tt + rng.uniform(0.5, 8), "{T:tI} %d torch/distributed/elastic/agent/server/api.py:1519] Done waiting for other agents. Elapsed: %.7f seconds" % (apid, rng.uniform(0.01, 8)))
            continue
        t_first, rf, cf = bad[0]
        t_kill = t_first + rng.uniform(0.1, 5.0)
        failures = [e for e in bad[1:] if e[0] <= t_kill]
        for r in ranks:
            if job.alive(r, t_kill):
                job.nlog(n, t_kill, "{T:tW} %d torch/distributed/elastic/multiprocessing/api.py:858] Sending process %d closing signal SIGTERM" % (apid, job.pids[r]))
                job.exits[r] = (t_kill + 0.2, -15)
        tt = t_kill + rng.uniform(0.5, 3)
        job.nlog(n, tt, "{T:tE} %d torch/distributed/elastic/multiprocessing/api.py:833] failed (exitcode: %d) local_rank: %d (pid: %d) of binary: /usr/bin/python3" % (
            apid, cf, job.lr(rf), job.pids[rf]))
        def entry(i, t_e, r, c):
            tb = ("Signal %d (%s) received by PID %d" % (-c, SIGNAMES.get(-c, "SIG?"), job.pids[r])) if c < 0 else \
                "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
            return ["[%d]:" % i,
                    "  time      : {T:tr}".replace("{T:tr}", job.clocks[n].render(t_e, "{T:tr}")),
                    "  host      : %s" % job.hosts[n],
                    "  rank      : %d (local_rank: %d)" % (r, job.lr(r)),
                    "  exitcode  : %d (pid: %d)" % (c, job.pids[r]),
                    "  error_file: <N/A>",
                    "  traceback : %s" % tb]
        summ = ["Traceback (most recent call last):",
                '  File "/usr/local/bin/torchrun", line 8, in <module>',
                "    sys.exit(main())",
                '  File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 347, in wrapper' % SITE,
                "    return f(*args, **kwargs)",
                '  File "%s/torch/distributed/run.py", line 812, in main' % SITE,
                "    run(args)",
                '  File "%s/torch/distributed/run.py", line 803, in run' % SITE,
                "    elastic_launch(",
                '  File "%s/torch/distributed/launcher/api.py", line 135, in __call__' % SITE,
                "    return launch_agent(self._config, self._entrypoint, list(args))",
                '  File "%s/torch/distributed/launcher/api.py", line 268, in launch_agent' % SITE,
                "    raise ChildFailedError(",
                "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
                "============================================================",
                "%s FAILED" % job.script,
                "------------------------------------------------------------",
                "Failures:"]
        if failures:
            for i, (t_e, r, c) in enumerate(failures):
                summ += entry(i + 1, t_e, r, c)
        else:
            summ.append("  <NO_OTHER_FAILURES>")
        summ += ["------------------------------------------------------------",
                 "Root Cause (first observed failure):"]
        summ += entry(0, t_first, rf, cf)
        summ.append("============================================================")
        job.nlog(n, tt + 0.05, "\n".join(summ))
        job.node_fail_t = getattr(job, "node_fail_t", {})
        job.node_fail_t[n] = tt


def ensure_all_exit(job):
    """Ranks still running when nothing else ends the job: nodes whose ranks
    saw nothing are killed by their agent when the rendezvous closes."""
    if job.killed_by is not None:
        return
    if not job.exits:
        return
    last = max(t for t, _ in job.exits.values())
    for n in range(job.N):
        ranks = range(n * job.L, (n + 1) * job.L)
        if all(r not in job.exits for r in ranks):
            r = job.rng.choice(list(ranks))
            tt = last + job.timeout_s + job.rng.uniform(0, 3)
            job.P.watchdog(job, r, tt, job.seq_at(last), "ALLREDUCE", job.seq_at(last), job.seq_at(last) - 1)
            job.exit(r, tt + 2, job.P.wd_exit)


def slurm_tail(job, stream, jobname):
    """srun / slurmstepd lines at the end of a combined slurm-*.out"""
    rng = job.rng
    ck = job.clocks[0]
    kb = job.killed_by
    if kb is not None and kb[0] == "slurm":
        t = kb[1]
        stream.add(t, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT {T:iso} DUE TO %s ***" % (job.jobid, job.hosts[0], kb[2]), ck)
        stream.add(t + 0.1, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.", ck)
        stream.add(t + 0.2, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT {T:iso} DUE TO %s ***" % (job.jobid, job.hosts[0], kb[2]), ck)
        return
    if kb is not None and kb[0] == "user":
        t = kb[1]
        stream.add(t, "srun: interrupt (one more within 1 sec to abort)", ck)
        stream.add(t + 0.8, "srun: sending Ctrl-C to StepId=%d.0" % job.jobid, ck)
        stream.add(t + 1.0, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT {T:iso} ***" % (job.jobid, job.hosts[0]), ck)
        return
    nft = getattr(job, "node_fail_t", {})
    if not nft:
        return
    order = sorted(nft.items(), key=lambda x: x[1])
    for i, (n, t) in enumerate(order):
        stream.add(t + 1.5, "srun: error: %s: task %d: Exited with exit code 1" % (job.hosts[n], n), job.clocks[n])
        if i == 0:
            stream.add(t + 1.6, "srun: launch/slurm: _step_signal: Terminating StepId=%d.0" % job.jobid, ck)
    if rng.random() < 0.5 and job.N > 2:
        stream.add(order[0][1] + 2, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT {T:iso} ***" % (job.jobid, job.hosts[order[-1][0]]), job.clocks[order[-1][0]])
    if getattr(job, "host_oom", None):
        n, t = job.host_oom
        stream.add(nft.get(n, t) + 2, "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % job.jobid, job.clocks[n])


def dmesg_file(job, n, base_lines):
    """dmesg of node n: boot noise + events"""
    rng = job.rng
    ck = job.clocks[n]
    s = Stream(ck)
    for t, ln in base_lines:
        s.add(t, ln)
    for t, ln in job.kmsg[n]:
        s.add(t, ln)
    return s


# ---------------------------------------------------------------------------
# platforms
# ---------------------------------------------------------------------------

class TorchPlatform(Platform):
    wd_exit = -6
    work = "WorkNCCL"
    fabric_name = "fabric"
    launcher = "torchrun"
    rank_per_dev = 1

    def dev_of(self, job, r):
        return job.lr(r) // self.rank_per_dev

    def mark(self, job, r, state):
        if not hasattr(job, "devstate"):
            job.devstate = {}
        job.devstate[(job.node_of(r), self.dev_of(job, r))] = state

    def state(self, job, n, d):
        return getattr(job, "devstate", {}).get((n, d), "ok")

    def watchdog(self, job, r, t, seq, op, enq, comp):
        ms = int(job.timeout_s * 1000)
        ran = ms + job.rng.randrange(5, 4000)
        job.rlog(r, t, "[{T:cE} %s:616] [Rank %d] Watchdog caught collective operation timeout: %s(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d) ran for %d milliseconds before timing out." % (
            self.pg, r, self.work, seq, op, 4194304, 4194304, ms, ran))
        job.rlog(r, t + 0.001, "[{T:cE} %s:1785] [PG ID 0 PG GUID 0(default_pg) Rank %d] Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued %s work: %d, last completed %s work: %d." % (
            self.pg, r, seq, self.coll, enq, self.coll, comp))
        job.rlog(r, t + 0.002, "[{T:cE} %s:630] [Rank %d] Some %s operations have failed or timed out. Due to the asynchronous nature of %s kernels, subsequent GPU operations might run on corrupted/incomplete data." % (
            self.pg, r, self.coll, self.kernels))
        job.rlog(r, t + 0.003, "[{T:cE} %s:636] [Rank %d] To avoid data inconsistency, we are taking the entire process down." % (self.pg, r))
        job.rlog(r, t + 0.004, "terminate called after throwing an instance of 'c10::DistBackendError'\n  what():  [PG ID 0 PG GUID 0(default_pg) Rank %d] Process group watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s(SeqNum=%d, OpType=%s, NumelIn=4194304, NumelOut=4194304, Timeout(ms)=%d) ran for %d milliseconds before timing out." % (
            r, r, self.work, seq, op, ms, ran))

    kernels = "CUDA"

    def flight_recorder_hint(self, job, r0, t, seq):
        pass

    def preempt_variant(self, job):
        return pick(job.rng, ["slurm_time", "slurm_preempt"])

    def straggler_evidence(self, job, r0, t):
        self.mark(job, r0, "hot")
        job.straggler_node_evidence = True

    def pyspy_file(self, job):
        if not getattr(job, "pyspy", None):
            return
        r0, kind = job.pyspy
        n0 = job.node_of(r0)
        out = []
        for r in range(n0 * job.L, (n0 + 1) * job.L):
            out.append("Process %d: /usr/bin/python3 -u /workspace/%s --config configs/%s.yaml" % (job.pids[r], job.script, job.model))
            out.append("Python v3.10.12 (/usr/bin/python3.10)")
            out.append("")
            out.append('Thread %d (idle): "MainThread"' % job.pids[r])
            if r == r0 and kind == "data":
                out += ["    poll (multiprocessing/connection.py:424)", "    _poll (multiprocessing/connection.py:257)",
                        "    get (multiprocessing/queues.py:113)", "    _try_get_data (torch/utils/data/dataloader.py:1133)",
                        "    _get_data (torch/utils/data/dataloader.py:1294)", "    _next_data (torch/utils/data/dataloader.py:1332)",
                        "    __next__ (torch/utils/data/dataloader.py:631)", "    train (/workspace/%s:231)" % job.script]
                out.append('Thread %d (idle): "pt_data_worker"' % (job.pids[r] + 3))
                out += ["    read (/workspace/data/shards.py:61)", "    __getitem__ (/workspace/data/shards.py:88)",
                        "    fetch (torch/utils/data/_utils/fetch.py:51)"]
            elif r == r0:
                out = out[:-1] + ['Thread %d (active): "MainThread"' % job.pids[r]]
                out += ["    _merge_spans (/workspace/utils/metrics.py:118)", "    compute_metrics (/workspace/utils/metrics.py:142)",
                        "    log_step (/workspace/%s:208)" % job.script, "    train (/workspace/%s:240)" % job.script]
            else:
                out += ["    synchronize (%s/%s/__init__.py:%d)" % ("torch_npu" if self.dev == "npu" else "torch", "npu" if self.dev == "npu" else "cuda", 792),
                        "    all_reduce (torch/distributed/distributed_c10d.py:2288)", "    wrapper (torch/distributed/c10d_logger.py:79)",
                        "    train_step (/workspace/%s:163)" % job.script, "    train (/workspace/%s:233)" % job.script]
            out.append("")
        job.run.text("py-spy_dump_%s.txt" % job.hosts[n0], out)


class Ascend(TorchPlatform):
    name = "Ascend"
    dev = "npu"
    coll = "HCCL"
    pg = "ProcessGroupHCCL.cpp"
    work = "WorkHCCL"
    kernels = "NPU"
    fabric_name = "HCCS"

    def hostnames(self, rng, n):
        pre = pick(rng, ["ascend-", "atlas800-", "npu-node", "ma-job-%04x-worker-" % rng.randrange(65536)])
        b = rng.randrange(0, 60)
        return ["%s%d" % (pre, b + i) for i in range(n)]

    def setup(self, job):
        for n in range(job.N):
            job.node_stream[n] = job.run.stream("train_%s.log" % job.hosts[n], job.clocks[n])
        job.plogs = {}

    def plog(self, job, r, t, text, mod="HCCL", lvl="ERROR"):
        n = job.node_of(r)
        key = (n, r)
        if key not in job.plogs:
            job.plogs[key] = Stream(job.clocks[n])
        pid = job.pids[r]
        for ln in text.split("\n"):
            job.plogs[key].add(t, "[%s] %s(%d,python3):{T:hccl} %s" % (lvl, mod, pid, ln))
            t += 1e-4

    def preamble(self, job):
        rng = job.rng
        for n in range(job.N):
            apid = job.agent_pid[n]
            job.nlog(n, 0.5, "{T:tW} %d torch/distributed/run.py:779] \n{T:tW} %d torch/distributed/run.py:779] *****************************************\n{T:tW} %d torch/distributed/run.py:779] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. \n{T:tW} %d torch/distributed/run.py:779] *****************************************" % (apid, apid, apid, apid))
            for r in range(n * job.L, (n + 1) * job.L):
                t = rng.uniform(8, 25)
                job.rlog(r, t, "%s/torch_npu/utils/path_manager.py:79: UserWarning: Warning: The /usr/local/Ascend/ascend-toolkit/latest owner does not match the current user." % SITE)
                job.rlog(r, t + 0.01, "  warnings.warn(f\"Warning: The {path} owner does not match the current user.\")")
                if rng.random() < 0.3:
                    job.rlog(r, t + 2, "%s/torch_npu/contrib/transfer_to_npu.py:292: ImportWarning: \n    *************************************************************************************************************\n    The torch.Tensor.cuda and torch.nn.Module.cuda are replaced with torch.Tensor.npu and torch.nn.Module.npu now..\n    The torch.cuda.DoubleTensor is replaced with torch.npu.FloatTensor cause the double type is not supported now..\n    The backend in torch.distributed.init_process_group set to hccl now..\n    The torch.cuda.* and torch.cuda.amp.* are replaced with torch.npu.* and torch.npu.amp.* now..\n    The device parameters have been replaced with npu in the function below:\n    torch.logspace, torch.randint, torch.hann_window, torch.rand, torch.full_like, torch.ones_like, torch.rand_like, torch.randperm, torch.arange, torch.frombuffer, torch.normal, torch._empty_per_channel_affine_quantized, torch.empty_strided, torch.empty_like, torch.scalar_tensor, torch.tril_indices, torch.bartlett_window, torch.ones, torch.sparse_coo_tensor, torch.randn, torch.kaiser_window, torch.tensor, torch.triu_indices, torch.as_tensor, torch.zeros, torch.randint_like, torch.full, torch.eye, torch._sparse_csr_tensor_unsafe, torch.empty, torch._sparse_coo_tensor_unsafe, torch.blackman_window, torch.zeros_like, torch.range, torch.sparse_csr_tensor, torch.randn_like, torch.from_file, torch._cudnn_init_dropout_state, torch._empty_affine_quantized, torch.linspace, torch.hamming_window, torch.empty_quantized, torch._pin_memory, torch.autocast, torch.load, torch.Generator, torch.set_default_device, torch.Tensor.new_empty, torch.Tensor.new_empty_strided, torch.Tensor.new_full, torch.Tensor.new_ones, torch.Tensor.new_tensor, torch.Tensor.new_zeros, torch.Tensor.to, torch.Tensor.pin_memory, torch.nn.Module.to, torch.nn.Module.to_empty\n    *************************************************************************************************************\n    \n  warnings.warn(msg, ImportWarning)" % SITE)
                if rng.random() < 0.25:
                    job.rlog(r, t + 30, "[W VariableFallbackKernel.cpp:51] Warning: CAUTION: The operator 'aten::isin.Tensor_Tensor_out' is not currently supported on the NPU backend and will fall back to run on the CPU. This may have performance implications. (function npu_cpu_fallback)")
            job.rlog(n * job.L, 40, "%s/torch_npu/distributed/distributed_c10d.py:110: UserWarning: HCCL doesn't support gather at the moment. Implemented with allgather instead.\n  warnings.warn(\"HCCL doesn't support gather at the moment. Implemented with allgather instead.\")" % SITE)
            if rng.random() < 0.4:
                job.rlog(n * job.L, 41, "[W compiler_depend.ts:615] Warning: The HCCL execution timeout %ds is less than the watchdog timeout %dms. (function ProcessGroupHCCL)" % (job.timeout_s + 36, job.timeout_s * 1000))
        job.rlog(0, 60, "{T:py} - INFO - trainer - model %s loaded, %d NPUs, global batch %d, HCCL_CONNECT_TIMEOUT=%s" % (job.model, job.W, job.W * 4, pick(rng, ["120", "1200", "600"])))
        job.rlog(0, 61, pick(rng, PY_WARNINGS))

    def healthy_noise(self, job):
        rng = job.rng
        r = rng.randrange(job.W)
        job.rlog(r, job.start_train + 300, "[W compiler_depend.ts:133] Warning: Warning: Device do not support double dtype now, dtype cast repalce with float. (function operator())")
        if rng.random() < 0.5:
            job.rlog(r, job.start_train + 500, "EI0006: %s Getting socket times out. Reason: Remote Rank did not send the data in time. Please check the reason for the rank being stuck\n        Solution: 1. Check the rank service processes with other errors or no errors in the cluster.2. If this error is reported for all NPUs, check whether the time difference between the earliest and latest errors is greater than the connect timeout interval (120s by default). If so, replace the timeout interval with a larger one.\n[W compiler_depend.ts:...] retrying HCCL link establishment (attempt 2/3) ... succeeded" % "{T:hccl}")

    def npu_err(self, job, r, t, api, code, msg, extra=""):
        n = job.node_of(r)
        txt = ("RuntimeError: %s:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:%d NPU function error: %s, error code is %d\n"
               "[ERROR] {T:hcclsec} (PID:%d, Device:%d, RankID:%d) ERR00100 PTA call acl api failed\n[Error]: %s\n        Rectify the fault based on the error information in the ascend log.%s") % (
            pick(job.rng, ["npuSynchronizeDevice", "synchronize", "operator()"]), pick(job.rng, [25, 47, 361, 479]), api, code,
            job.pids[r], self.dev_of(job, r), r, msg, extra)
        job.rlog(r, t, traceback_text(job, train_frames(job, [
            ("/workspace/%s" % job.script, 170, "train_step", "torch.npu.synchronize()"),
            (SITE + "/torch_npu/npu/utils.py", 72, "synchronize", "return torch_npu._C._npu_synchronize()")]), txt), err=True)

    def hw_fault(self, job, r, t):
        self.mark(job, r, "lost")
        d = self.dev_of(job, r)
        self.plog(job, r, t - 0.5, "[device_error_proc.cc:1389]: report device %d heartbeat lost, tsId=0" % d, mod="RUNTIME")
        self.npu_err(job, r, t, "AclrtSynchronizeDeviceWithTimeout", 507010, "The device heartbeat is lost. Check whether the device is reset or powered off.",
                     "\nEE9999: Inner Error!\n        rtDeviceSynchronizeWithTimeout execute failed, reason=[device lost heartbeat][FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]")
        job.dmesg(job.node_of(r), t - 1.2, "{T:dm} [ascend] [ERROR] [dms] [dms_heartbeat_timeout_handler %d] <kworker/%d:1:%d> device %d heartbeat timeout, health status changed to CRITICAL" % (
            rng_int(job, 800, 2000), job.rng.randrange(96), job.rng.randrange(200, 900), d))
        return t + 1.0

    def ecc(self, job, r, t):
        self.mark(job, r, "ecc")
        d = self.dev_of(job, r)
        self.plog(job, r, t - 0.3, "[device_error_proc.cc:1102]: The error from device(chipId:%d, dieId:0), serial number is %d, there is a hbm multi-bit ecc error, errorAddr=0x%x." % (
            d, job.rng.randrange(1, 99), job.rng.randrange(2**32, 2**36)), mod="RUNTIME")
        self.npu_err(job, r, t, "c10_npu::acl::AclrtSynchronizeStreamWithTimeout(stream())", 507053,
                     "Device memory (HBM) uncorrectable multi-bit ECC error, UCE ERROR.")
        job.dmesg(job.node_of(r), t - 0.4, "{T:dm} [ascend] [ERROR] [hbm] device %d HBM multi-bit ECC error detected, page isolated, need reboot to recover" % d)
        return t + 0.8

    def fabric(self, job, r, t):
        self.mark(job, r, "hccs")
        d = self.dev_of(job, r)
        n = job.node_of(r)
        self.plog(job, r, t - 2, "[hccs_link.cc:233][%d][Check][HccsLink] HCCS link of device[%d] port[%d] state changed to DOWN, crc error count[%d]" % (
            job.pids[r], d, job.rng.randrange(0, 7), job.rng.randrange(100, 9000)))
        for rr in range(n * job.L, (n + 1) * job.L):
            tt = t + job.rng.uniform(0, 1.5)
            job.rlog(rr, tt, "EI0002: [PID: %d] {T:hccl} The wait execution of the Notify register times out. Reason: The Notify register has not received the Notify record from remote rank [%d].base information: [streamID:[%d], taskID[%d], taskType[Notify Wait], tag[AllReduce_%s%%HCCS_%d]]. task information: [notify id:[0x%012x], stage:[ffffffff], remote rank:[%d]]\n        Solution: 1. Check the output of other rank processes. 2. Check whether the HCCS links of the server are normal (npu-smi info -t hccs -i <id>)." % (
                job.pids[rr], r, job.rng.randrange(2, 9), job.rng.randrange(1000, 90000), job.ips[n], job.rng.randrange(1, 64), job.rng.randrange(2**40), r), err=True)
        job.dmesg(n, t - 2.2, "{T:dm} [ascend] [ERROR] [hccs] [hccs_link_state_proc %d] device %d hccs port %d link down" % (rng_int(job, 100, 900), d, job.rng.randrange(0, 7)))
        return t + 1.6

    def network(self, job, r, t):
        n = job.node_of(r)
        d = self.dev_of(job, r)
        self.mark(job, r, "roce")
        job.roce_down = (n, d)
        self.plog(job, r, t - 1, "[transport_roce.cc:731][%d][RdmaTransport] cqe error, status[12](retry exceeded), qpn[%d], local ip[192.168.%d.%d], remote ip[192.168.%d.%d]" % (
            job.pids[r], job.rng.randrange(100, 2000), d, 10 + n, d, 10 + (n + 1) % job.N))
        self.plog(job, r, t - 0.5, "[hccl_communicator.cc:4120][%d][ExecOp]call trace: hcclRet -> 4" % job.pids[r])
        job.rlog(r, t, traceback_text(job, train_frames(job, ar_frames(job)),
                 "RuntimeError: InnerRunOpApi:torch_npu/csrc/framework/OpParamMaker.cpp:281 OPS function error: HcclAllreduce, error code is 4\n[ERROR] {T:hcclsec} (PID:%d, Device:%d, RankID:%d) ERR01100 OPS call acl api failed\nEI9999: Inner Error!\n        RDMA transport error: retry count exceeded on remote rank link, local NIC eth%d\n" % (job.pids[r], d, r, d)), err=True)
        job.dmesg(n, t - 3, "{T:dm} hns3 0000:%02x:00.0 eth%d: link down\n{T:dm} hns3 0000:%02x:00.0 eth%d: link up" % (0x80 + d, d, 0x80 + d, d) if self.dev == "npu" and job.rng.random() < 0.3 else "{T:dm} [ascend] [ERROR] [roce] device %d port 0 link status changed: DOWN" % d)
        return t + 0.6

    def oom(self, job, r, t):
        tot = 60.97 if job.rng.random() < 0.6 else 29.5
        alloc = tot - job.rng.uniform(0.5, 4)
        req = pick(job.rng, ["2.00 GiB", "512.00 MiB", "1.26 GiB", "6.00 GiB"])
        job.rlog(r, t, traceback_text(job, train_frames(job, fw_frames(job, "npu")),
                 "RuntimeError: NPU out of memory. Tried to allocate %s (NPU %d; %.2f GiB total capacity; %.2f GiB already allocated; %.2f GiB current active; %.2f MiB free; %.2f GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation." % (
                     req, self.dev_of(job, r), tot, alloc, alloc, job.rng.uniform(5, 300), alloc + 0.4)), err=True)
        return t + 0.5

    def iam(self, job, r, t):
        d = self.dev_of(job, r)
        self.npu_err(job, r, t, "c10_npu::acl::AclrtSynchronizeStreamWithTimeout(copy_stream)", 507015, "The aicore execution is abnormal. ",
                     "\nEZ9999: Inner Error!\nEZ9999[PID: %d] {T:hccl} (EZ9999):  The error from device(chipId:%d, dieId:0), serial number is %d, there is an aivec error exception, core id is %d, error code = 0, dump info: pc start: 0x%x, current: 0x%x, vec error info: 0x%x, mte error info: 0x%x, aic error mask: 0x%x.[FUNC:ProcessStarsCoreErrorInfo][FILE:device_error_core_proc.cc][LINE:347]\n        TraceBack (most recent call last):\n       The extend info: errcode:(0, 0x800, 0) errorStr: The DDR address of the MTE instruction is out of range. fixp_error0 info: 0x3, fixp_error1 info: 0x0\n       Kernel task happen error, retCode=0x31, [vector core exception].[FUNC:PreCheckTaskErr][FILE:davinci_kernel_task.cc][LINE:1493]\n       AIV Kernel happen error, retCode=0x31.[FUNC:GetError][FILE:stream.cc][LINE:1183]\n       Aicore kernel execute failed, device_id=%d, stream_id=2, report_stream_id=2, task_id=%d, flip_num=0, fault kernel_name=custom_gather_scatter_%d, fault kernel info ext=none, program id=%d, hash=%d.[FUNC:GetError][FILE:stream.cc][LINE:1183]" % (
                         job.pids[r], d, job.rng.randrange(1, 200), job.rng.randrange(0, 40), job.rng.randrange(2**40), job.rng.randrange(2**40), job.rng.randrange(2**20), job.rng.randrange(2**30), job.rng.randrange(2**24),
                         d, job.rng.randrange(1000, 60000), job.rng.randrange(1000), job.rng.randrange(100), job.rng.randrange(10**15, 10**16)))
        return t + 0.5

    def peer_lost(self, job, r, t, n_dead):
        rng = job.rng
        self.plog(job, r, t - 0.2, "[hccl_socket.cc:%d][%d][Recv] recv fail, remote ip[%s], errno[104](Connection reset by peer)" % (rng.randrange(300, 600), job.pids[r], job.ips[n_dead]))
        job.rlog(r, t, traceback_text(job, train_frames(job, ar_frames(job)),
                 "RuntimeError: InnerRunOpApi:torch_npu/csrc/framework/OpParamMaker.cpp:281 OPS function error: HcclAllreduce, error code is 7\n[ERROR] {T:hcclsec} (PID:%d, Device:%d, RankID:%d) ERR01100 OPS call acl api failed\nEI0006: [PID: %d] {T:hccl} Getting socket times out. Reason: Remote Rank did not send the data in time. Please check the reason for the rank being stuck\n        Solution: 1. Check the rank service processes with other errors or no errors in the cluster.2. If this error is reported for all NPUs, check whether the time difference between the earliest and latest errors is greater than the connect timeout interval (120s by default). If so, replace the timeout interval with a larger one." % (
                     job.pids[r], self.dev_of(job, r), r, job.pids[r])), err=True)

    def watchdog(self, job, r, t, seq, op, enq, comp):
        if job.rng.random() < 0.5:
            job.rlog(r, t - 0.5, "EI0002: [PID: %d] {T:hccl} The wait execution of the Notify register times out. Reason: The Notify register has not received the Notify record from remote rank [unknown].base information: [streamID:[%d], taskID[%d], taskType[Notify Wait], tag[%s_%s%%enp_60000_0_%d]]. task information: []\n        Solution: 1. Check the output of other rank processes. 2. Check whether the HCCL_EXEC_TIMEOUT setting is too small." % (
                job.pids[r], job.rng.randrange(2, 9), job.rng.randrange(1000, 90000), op.strip("_").title().replace("_", ""), job.ips[0], job.rng.randrange(10**15, 10**16)), err=True)
        TorchPlatform.watchdog(self, job, r, t, seq, op, enq, comp)

    def preempt_variant(self, job):
        return pick(job.rng, ["k8s", "slurm_time"])

    def side_files(self, job):
        rng = job.rng
        run = job.run
        for (n, r), s in sorted(job.plogs.items()):
            run.files["ascend_log/%s/plog/plog-%d_%s.log" % (job.hosts[n], job.pids[r], job.clocks[n].render(0, "{T:iso}").replace("-", "").replace(":", "").replace("T", ""))] = s
        nodes = sorted(set(n for (n, d) in getattr(job, "devstate", {})))
        if run.healthy or rng.random() < 0.3:
            nodes = sorted(set(nodes + [rng.randrange(job.N)]))
        for n in nodes:
            run.text("npu-smi_info_%s.txt" % job.hosts[n], self.npu_smi(job, n))
        if getattr(job, "roce_down", None):
            n, d = job.roce_down
            run.text("hccn_tool_%s.txt" % job.hosts[n], "\n".join(
                ["# for i in {0..7}; do hccn_tool -i $i -link -g; done"] +
                ["link status: %s" % ("DOWN" if i == d else "UP") for i in range(8)] +
                ["", "# hccn_tool -i %d -net_health -g" % d, "net health status: Fault"]))
        for n in range(job.N):
            if job.kmsg[n] or (rng.random() < 0.2):
                base = [(-3000, "{T:dm} drv_davinci_mini: loading out-of-tree module taints kernel."),
                        (-2999, "{T:dm} [ascend] [devmng] [devdrv_manager_init 2213] devdrv manager init success, dev num 8"),
                        (-100, "{T:dm} hns3 0000:7d:00.0 enp125s0f0: link up")]
                run.files["dmesg_%s.txt" % job.hosts[n]] = dmesg_file(job, n, base)
        self.pyspy_file(job)

    def npu_smi(self, job, n):
        rng = job.rng
        out = ["+------------------------------------------------------------------------------------------------+",
               "| npu-smi 23.0.6                   Version: 23.0.6                                               |",
               "+---------------------------+---------------+----------------------------------------------------+",
               "| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|",
               "| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |",
               "+===========================+===============+====================================================+"]
        buses = ["C1", "C2", "81", "82", "01", "02", "41", "42"]
        for d in range(8):
            st = self.state(job, n, d)
            health = {"ok": "OK", "hot": "Warning", "lost": "Critical", "ecc": "Alarm", "hccs": "Alarm", "roce": "OK"}[st]
            temp = rng.randrange(33, 48) if st != "hot" else rng.randrange(96, 106)
            pw = rng.uniform(88, 99) if st != "hot" else rng.uniform(60, 70)
            used = rng.randrange(54000, 64000) if not job.run.healthy else 3
            out.append("| %-5d 910B3               | %-13s | %-11.1f %-17d 0    / 0             |" % (d, health, pw, temp))
            out.append("| 0                         | 0000:%s:00.0  | %-11d 0    / 0          %5d/ 65536         |" % (buses[d], rng.randrange(0, 100) if st != "lost" else 0, used))
            out.append("+===========================+===============+====================================================+")
        if any(self.state(job, n, d) != "ok" for d in range(8)):
            for d in range(8):
                st = self.state(job, n, d)
                if st == "ecc":
                    out += ["", "# npu-smi info -t ecc -i %d" % d,
                            "        NPU ID                         : %d" % d,
                            "        Chip Count                     : 1",
                            "",
                            "        DDR Single Bit Error Count     : 0",
                            "        DDR Double Bit Error Count     : 0",
                            "        HBM Single Bit Error Count     : %d" % rng.randrange(0, 40),
                            "        HBM Double Bit Error Count     : %d" % rng.randrange(1, 4),
                            "        HBM Single Bit Isolated Pages Count : 0",
                            "        HBM Double Bit Isolated Pages Count : %d" % rng.randrange(1, 4)]
                elif st in ("lost", "hccs", "hot"):
                    code = {"lost": "0x80E18402", "hccs": "0x81078603", "hot": "0x80E01801"}[st]
                    out += ["", "# npu-smi info -t health -i %d" % d,
                            "        Health Status                  : %s" % {"lost": "Critical", "hccs": "Alarm", "hot": "Warning"}[st],
                            "        Error Code                     : %s" % code]
        return out


def rng_int(job, a, b):
    return job.rng.randrange(a, b)


class Rocm(TorchPlatform):
    name = "AMD Instinct"
    dev = "cuda"
    coll = "NCCL"
    kernels = "CUDA"
    fabric_name = "XGMI"

    def hostnames(self, rng, n):
        if rng.random() < 0.4:
            b = rng.randrange(1000, 9000)
            return ["frontier%05d" % (b + i) for i in range(n)]
        pre = pick(rng, ["mi300x-", "mi250-", "amd-gpu-"])
        b = rng.randrange(1, 90)
        return ["%s%02d" % (pre, b + i) for i in range(n)]

    def setup(self, job):
        job.slurm = job.run.stream("slurm-%d.out" % job.jobid, job.clocks[0])
        srun_l = job.rng.random() < 0.6
        for n in range(job.N):
            job.node_stream[n] = job.slurm
            job.node_tag[n] = ("%d: " % n) if srun_l else ""
        job.gpu = "MI300X" if "mi250" not in job.hosts[0] and "frontier" not in job.hosts[0] else "MI250X"

    def preamble(self, job):
        rng = job.rng
        job.slurm.add(0, "+ srun -l --ntasks-per-node=1 torchrun --nnodes=%d --nproc_per_node=%d --rdzv_backend=c10d --rdzv_endpoint=%s:29500 %s" % (job.N, job.L, job.hosts[0], job.script))
        for n in range(job.N):
            apid = job.agent_pid[n]
            job.nlog(n, 0.5, "{T:tW} %d torch/distributed/run.py:779] *****************************************\n{T:tW} %d torch/distributed/run.py:779] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. \n{T:tW} %d torch/distributed/run.py:779] *****************************************" % (apid, apid, apid))
        for r in range(job.W):
            if r % job.L == 0 or rng.random() < 0.15:
                job.rlog(r, 30 + rng.random(), "%s:%d:%d [%d] NCCL INFO RCCL version 2.18.3+hip6.1 HEAD:5a7f8a2" % (job.hosts[job.node_of(r)], job.pids[r], job.pids[r], job.lr(r)))
                job.rlog(r, 30.1 + rng.random(), "%s:%d:%d [%d] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [2]mlx5_2:1/RoCE [3]mlx5_3:1/RoCE ; OOB eth0:%s<0>" % (job.hosts[job.node_of(r)], job.pids[r], job.pids[r], job.lr(r), job.ips[job.node_of(r)]))
                job.rlog(r, 30.3 + rng.random(), "%s:%d:%d [%d] NCCL INFO Channel 00/32 :    0   1   2   3   4   5   6   7" % (job.hosts[job.node_of(r)], job.pids[r], job.pids[r], job.lr(r)))
        job.rlog(0, 31, "%s:%d:%d [0] NCCL INFO comm 0x%x rank 0 nranks %d cudaDev 0 busId 1000 - Init COMPLETE" % (job.hosts[0], job.pids[0], job.pids[0], rng.randrange(2**40), job.W))
        for w in rng.sample(PY_WARNINGS, 2):
            job.rlog(0, 40 + rng.random(), w)
        job.rlog(0, 55, "{T:py} - INFO - trainer - %s on %d x %s, ROCm 6.1, torch 2.4.0+rocm6.1" % (job.model, job.W, job.gpu))

    def healthy_noise(self, job):
        rng = job.rng
        r = rng.randrange(job.W)
        job.rlog(r, 35, "%s:%d:%d [%d] NCCL INFO Failed to open libibverbs.so[.1]" % (job.hosts[job.node_of(r)], job.pids[r], job.pids[r], job.lr(r)))
        job.rlog(r, 36, "%s:%d:%d [%d] NCCL WARN Missing \"iommu=pt\" from kernel command line which can lead to system instablity or hang!" % (job.hosts[job.node_of(r)], job.pids[r], job.pids[r], job.lr(r)))
        job.dmesg(job.node_of(r), 600, "{T:dm} amdgpu 0000:%02x:00.0: amdgpu: 1 correctable hardware errors detected in umc block, no user action is needed." % rng.choice([0x05, 0x15, 0x65, 0x75]))
        self.mark(job, r, "ce")

    def bus(self, job, d):
        return [0x05, 0x15, 0x65, 0x75, 0x85, 0x95, 0xe5, 0xf5][d % 8]

    def hip_err(self, job, r, t, err, code_name, extra_tb=None):
        job.rlog(r, t, traceback_text(job, train_frames(job, extra_tb or fw_frames(job, "cuda")),
                 "RuntimeError: HIP error: %s\nHIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing AMD_SERIALIZE_KERNEL=3\nCompile with `TORCH_USE_HIP_DSA` to enable device-side assertions." % err), err=True)

    def hw_fault(self, job, r, t):
        self.mark(job, r, "lost")
        n = job.node_of(r)
        d = self.dev_of(job, r)
        b = self.bus(job, d)
        job.dmesg(n, t - 4, "{T:dm} amdgpu 0000:%02x:00.0: amdgpu: ring comp_1.%d.0 timeout, signaled seq=%d, emitted seq=%d\n{T:dm} amdgpu 0000:%02x:00.0: amdgpu:  Process python3 pid %d thread python3 pid %d\n{T:dm} amdgpu 0000:%02x:00.0: amdgpu: GPU reset begin!\n{T:dm} amdgpu 0000:%02x:00.0: amdgpu: MODE1 reset\n{T:dm} amdgpu 0000:%02x:00.0: amdgpu: GPU mode1 reset\n{T:dm} amdgpu 0000:%02x:00.0: amdgpu: GPU reset failed\n{T:dm} amdgpu 0000:%02x:00.0: amdgpu: GPU reset(1) failed\n{T:dm} amdgpu 0000:%02x:00.0: amdgpu: GPU recovery failed, device is not usable" % (
            b, job.rng.randrange(4), 88123, 88125, b, job.pids[r], job.pids[r], b, b, b, b, b, b))
        job.rlog(r, t, "HW Exception by GPU node-%d (Agent handle: 0x%x) reason :GPU Hang" % (2 + d, job.rng.randrange(2**24, 2**32)))
        job.exit(r, t + 0.4, -6)
        return t + 0.4

    def ecc(self, job, r, t):
        self.mark(job, r, "ecc")
        n = job.node_of(r)
        b = self.bus(job, self.dev_of(job, r))
        job.dmesg(n, t - 1, "{T:dm} amdgpu 0000:%02x:00.0: amdgpu: socket: 0, die: %d, %d new uncorrectable hardware errors detected in UMC block\n{T:dm} amdgpu 0000:%02x:00.0: amdgpu: Uncorrectable error detected in UMC block, GPU reset required\n{T:dm} amdgpu 0000:%02x:00.0: amdgpu: %d uncorrectable hardware errors detected in total in umc block\n{T:dm} amdgpu 0000:%02x:00.0: amdgpu: GPU reset begin!\n{T:dm} amdgpu 0000:%02x:00.0: amdgpu: RAS: bad page retirement: %d pages saved to eeprom" % (
            b, job.rng.randrange(2), job.rng.randrange(1, 5), b, b, job.rng.randrange(1, 5), b, b, job.rng.randrange(1, 8)))
        self.hip_err(job, r, t, "uncorrectable ECC error encountered", "hipErrorECCNotCorrectable")
        return t + 0.5

    def fabric(self, job, r, t):
        self.mark(job, r, "xgmi")
        n = job.node_of(r)
        b = self.bus(job, self.dev_of(job, r))
        job.dmesg(n, t - 2, "{T:dm} amdgpu 0000:%02x:00.0: amdgpu: socket: 0, die: 0, %d new uncorrectable hardware errors detected in xgmi_wafl block\n{T:dm} amdgpu 0000:%02x:00.0: amdgpu: xgmi link %d error: link down, peer 0000:%02x:00.0\n{T:dm} amdgpu 0000:%02x:00.0: amdgpu: GPU reset begin!\n{T:dm} amdgpu: GPU reset begin for hive 0x%x" % (
            b, job.rng.randrange(1, 9), b, job.rng.randrange(0, 7), self.bus(job, job.rng.randrange(8)), b, job.rng.randrange(2**40)))
        for rr in range(n * job.L, (n + 1) * job.L):
            if rr == r or job.rng.random() < 0.4:
                hh = job.hosts[n]
                job.rlog(rr, t + job.rng.uniform(0, 2), "%s:%d:%d [%d] NCCL WARN hipStreamSynchronize failed : 'unspecified launch failure'\n%s:%d:%d [%d] NCCL INFO transport/p2p.cc:612 -> 1" % (hh, job.pids[rr], job.pids[rr], job.lr(rr), hh, job.pids[rr], job.pids[rr], job.lr(rr)))
        self.hip_err(job, r, t + 1, "unspecified launch failure", "hipErrorLaunchFailure", ar_frames(job))
        return t + 1.5

    def network(self, job, r, t):
        n = job.node_of(r)
        hh = job.hosts[n]
        peer = (n + 1) % job.N
        nic = job.rng.randrange(4)
        job.dmesg(n, t - 5, "{T:dm} mlx5_core 0000:%02x:00.0 ens%df0np0: Link down\n{T:dm} mlx5_core 0000:%02x:00.0: mlx5_cmd_out_err:803:(pid %d): MODIFY_QP(0x503) op_mod(0x0) failed, status bad parameter(0x3), syndrome (0x3ad0b5), err(-22)" % (
            0x0c + nic * 0x10, nic + 1, 0x0c + nic * 0x10, job.rng.randrange(100, 9000)))
        job.roce_down = (n, nic)
        job.rlog(r, t - 0.2, "%s:%d:%d [%d] NCCL WARN NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Send) localGid ::ffff:%s remoteGidsfe80::%x:%x:%x:%x hca mlx5_%d" % (
            hh, job.pids[r], job.pids[r], job.lr(r), job.ips[peer], job.rng.randrange(30000, 60000), job.ips[n], job.rng.randrange(65536), job.rng.randrange(65536), job.rng.randrange(65536), job.rng.randrange(65536), nic))
        job.rlog(r, t - 0.1, "%s:%d:%d [%d] NCCL INFO transport/net.cc:1293 -> 6" % (hh, job.pids[r], job.pids[r], job.lr(r)))
        job.rlog(r, t, traceback_text(job, train_frames(job, ar_frames(job)),
                 "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, remote process exited or there was a network error, NCCL version 2.18.3\nncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\nLast error:\nNET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Send) hca mlx5_%d" % (job.ips[peer], job.rng.randrange(30000, 60000), nic)), err=True)
        return t + 0.5

    def oom(self, job, r, t):
        tot = 191.98 if job.gpu == "MI300X" else 63.98
        used = tot - job.rng.uniform(0.1, 1.2)
        job.rlog(r, t, traceback_text(job, train_frames(job, fw_frames(job, "cuda")),
                 "torch.OutOfMemoryError: HIP out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of %.2f GiB of which %.2f MiB is free. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_HIP_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)" % (
                     job.rng.uniform(0.5, 8), self.dev_of(job, r), tot, job.rng.uniform(10, 900), used - 1, job.rng.uniform(50, 900))), err=True)
        return t + 0.5

    def iam(self, job, r, t):
        if job.rng.random() < 0.5:
            job.rlog(r, t, ":0:rocdevice.cpp            :2875: %d us: [pid:%d tid:0x%x] Callback: Queue 0x%x aborting with error : HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to access memory beyond the largest legal address. code: 0x29" % (
                job.rng.randrange(10**9, 10**10), job.pids[r], job.rng.randrange(2**44), job.rng.randrange(2**44)))
            job.exit(r, t + 0.2, -6)
        else:
            job.rlog(r, t, "Memory access fault by GPU node-%d (Agent handle: 0x%x) on address 0x%x. Reason: Page not present or supervisor privilege." % (
                2 + self.dev_of(job, r), job.rng.randrange(2**24, 2**32), job.rng.randrange(2**40, 2**47) & ~0xfff))
            job.exit(r, t + 0.2, -6)
        return t + 0.2

    def peer_lost(self, job, r, t, n_dead):
        hh = job.hosts[job.node_of(r)]
        job.rlog(r, t - 0.1, "%s:%d:%d [%d] NCCL WARN socketProgressOpt: Call to recv from %s<%d> failed : Connection reset by peer" % (hh, job.pids[r], job.pids[r], job.lr(r), job.ips[n_dead], job.rng.randrange(30000, 60000)))
        job.rlog(r, t, traceback_text(job, train_frames(job, ar_frames(job)),
                 "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, remote process exited or there was a network error, NCCL version 2.18.3\nncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\nLast error:\nsocketProgressOpt: Call to recv from %s<%d> failed : Connection reset by peer" % (job.ips[n_dead], job.rng.randrange(30000, 60000))), err=True)

    def side_files(self, job):
        rng = job.rng
        run = job.run
        nodes = sorted(set(n for (n, d), s in getattr(job, "devstate", {}).items() if s != "ce"))
        for n in range(job.N):
            if job.kmsg[n] or n in nodes:
                base = [(-5000, "{T:dm} [drm] amdgpu kernel modesetting enabled."),
                        (-4990, "{T:dm} amdgpu: Virtual CRAT table created for CPU"),
                        (-4980, "{T:dm} amdgpu 0000:05:00.0: amdgpu: RAS INFO: ras initialized successfully, hardware ability[0x7fff] ras_mask[0x7fff]")]
                run.files["dmesg_%s.txt" % job.hosts[n]] = dmesg_file(job, n, base)
        for n in nodes:
            run.text("rocm-smi_%s.txt" % job.hosts[n], self.rocm_smi(job, n))
        self.pyspy_file(job)

    def rocm_smi(self, job, n):
        rng = job.rng
        out = ["", "", "============================================ ROCm System Management Interface ============================================",
               "====================================================== Concise Info ======================================================",
               "Device  Node  IDs              Temp        Power     Partitions          SCLK     MCLK     Fan  Perf  PwrCap  VRAM%  GPU%  ",
               "              (DID,     GUID)  (Junction)  (Socket)  (Mem, Compute, ID)                                                  ",
               "=========================================================================================================================="]
        for d in range(8):
            st = self.state(job, n, d)
            if st == "lost":
                out.append("%-7d %-5d 0x74a1,   %-6d N/A         N/A       N/A, N/A, 0         N/A      N/A      0%%   unknown  N/A   N/A    N/A   " % (d, d + 2, rng.randrange(10000, 60000)))
                continue
            temp = rng.uniform(45, 70) if st != "hot" else rng.uniform(98, 110)
            sclk = rng.randrange(1900, 2100) if st != "hot" else rng.randrange(700, 1100)
            out.append("%-7d %-5d 0x74a1,   %-6d %.1f°C      %dW      NPS1, SPX, 0        %dMhz  1300Mhz  0%%   auto  750.0W  %d%%    %d%%  " % (
                d, d + 2, rng.randrange(10000, 60000), temp, rng.randrange(300, 720) if st != "hot" else rng.randrange(180, 260), sclk, rng.randrange(60, 98), rng.randrange(80, 100)))
        out.append("==========================================================================================================================")
        out.append("================================================== End of ROCm SMI Log ===================================================")
        for d in range(8):
            st = self.state(job, n, d)
            if st in ("ecc", "xgmi", "ce"):
                blk = "UMC" if st in ("ecc", "ce") else "XGMI_WAFL"
                ue = 0 if st == "ce" else rng.randrange(1, 6)
                out += ["", "$ rocm-smi -d %d --showrasinfo all" % d,
                        "============================ ROCm System Management Interface ============================",
                        "================================== RAS Info ==================================",
                        "GPU[%d]\t\t: %-12s %-10s %-17s %s" % (d, "Block", "Status", "Correctable Error", "Uncorrectable Error"),
                        "GPU[%d]\t\t: %-12s %-10s %-17d %d" % (d, "UMC", "ENABLED", 1 if st == "ce" else 0, ue if blk == "UMC" else 0),
                        "GPU[%d]\t\t: %-12s %-10s %-17d %d" % (d, "SDMA", "ENABLED", 0, 0),
                        "GPU[%d]\t\t: %-12s %-10s %-17d %d" % (d, "GFX", "ENABLED", 0, 0),
                        "GPU[%d]\t\t: %-12s %-10s %-17d %d" % (d, "XGMI_WAFL", "ENABLED", 0, ue if blk == "XGMI_WAFL" else 0),
                        "=============================================================================="]
        return out


class Gaudi(TorchPlatform):
    name = "Intel Gaudi"
    dev = "hpu"
    coll = "HCCL"
    pg = "ProcessGroupHCCL.cpp"
    work = "WorkHCCL"
    kernels = "HPU"
    fabric_name = "Gaudi scale-up ports"
    launcher = "deepspeed"

    def hostnames(self, rng, n):
        pre = pick(rng, ["gaudi2-", "hls2-", "g2-node", "sc09-gaudi"])
        b = rng.randrange(1, 60)
        return ["%s%02d" % (pre, b + i) for i in range(n)]

    def setup(self, job):
        s = job.run.stream("deepspeed_train.log", job.clocks[0])
        for n in range(job.N):
            job.node_stream[n] = s
            job.node_tag[n] = "%s: " % job.hosts[n]
        job.ds = s
        job.hab = {}

    def hlog(self, job, r, t, text, f="synapse_log.txt"):
        n = job.node_of(r)
        key = (n, f)
        if key not in job.hab:
            job.hab[key] = Stream(job.clocks[n])
        job.hab[key].add(t, "{T:hab} [%s][%d:%d] %s" % ("SYN_API" if f == "synapse_log.txt" else "HCL", job.pids[r], job.pids[r] + 17, text))

    def preamble(self, job):
        rng = job.rng
        s = job.ds
        s.add(0, "{T:ds} [INFO] [runner.py:568:main] cmd = pdsh -S -f 1024 -w %s export PYTHONPATH=/workspace; export HABANA_VISIBLE_MODULES=0,1,2,3,4,5,6,7; cd /workspace; /usr/bin/python3 -u -m deepspeed.launcher.launch --world_info=eyJ... --node_rank=%%n --master_addr=%s --master_port=29500 %s --deepspeed --deepspeed_config ds_config.json" % (
            ",".join(job.hosts), job.ips[0], job.script), job.clocks[0])
        for n in range(job.N):
            job.nlog(n, 2, "{T:ds} [INFO] [launch.py:146:main] WORLD INFO DICT: {%s}" % ", ".join("'%s': [0, 1, 2, 3, 4, 5, 6, 7]" % h for h in job.hosts))
            job.nlog(n, 2.1, "{T:ds} [INFO] [launch.py:152:main] nnodes=%d, num_local_procs=8, node_rank=%d" % (job.N, n))
            job.nlog(n, 2.2, "{T:ds} [INFO] [launch.py:253:main] process %d spawned with command: ['/usr/bin/python3', '-u', '%s', '--local_rank=0', '--deepspeed', '--deepspeed_config', 'ds_config.json']" % (job.pids[n * job.L], job.script))
            job.nlog(n, 12, "============================= HABANA PT BRIDGE CONFIGURATION =========================== \n PT_HPU_LAZY_MODE = 1\n PT_RECIPE_CACHE_PATH = \n PT_CACHE_FOLDER_DELETE = 0\n PT_HPU_RECIPE_CACHE_CONFIG = \n PT_HPU_MAX_COMPOUND_OP_SIZE = 9223372036854775807\n PT_HPU_LAZY_ACC_PAR_MODE = 1\n PT_HPU_ENABLE_REFINE_DYNAMIC_SHAPES = 0\n---------------------------: System Configuration :---------------------------\nNum CPU Cores : 160\nCPU RAM       : 1056399156 KB\n------------------------------------------------------------------------------")
            for w in rng.sample(PY_WARNINGS, 2):
                job.rlog(n * job.L, 20 + rng.random(), w)
        job.rlog(0, 50, "{T:ds} [INFO] [config.py:1000:print] DeepSpeedEngine configuration: zero_optimization stage=%d, bf16=True, hpu=True" % rng.choice([1, 2, 3]))

    def healthy_noise(self, job):
        r = job.rng.randrange(job.W)
        job.rlog(r, 45, "[WARNING|modeling_utils.py:4172] Some weights of the model checkpoint were not used when initializing the model")
        job.rlog(r, 46, "Warning: hpu graph recompile triggered (shape change), compilation took 41.2s")
        self.hlog(job, r, 300, "synDeviceGetMemoryInfo: returned synStatus 0 free 1.2GB (high watermark warning)")

    def syn_err(self, job, r, t, module, msg):
        job.rlog(r, t, traceback_text(job, train_frames(job, fw_frames(job, "hpu")),
                 "RuntimeError: [Rank:%d] FATAL ERROR :: MODULE:%s %s\n[Rank:%d] Habana exception raised from %s" % (r, module, msg, r, pick(job.rng, ["compile at graph.cpp:599", "launch at HPUDevice.cpp:488", "synchronize at HPUStream.cpp:201"]))), err=True)

    def hw_fault(self, job, r, t):
        self.mark(job, r, "lost")
        d = self.dev_of(job, r)
        job.dmesg(job.node_of(r), t - 2, "{T:dm} habanalabs hl%d: Device heartbeat failed!\n{T:dm} habanalabs hl%d: Going to reset device\n{T:dm} habanalabs hl%d: Killing CS %d.%d\n{T:dm} habanalabs hl%d: Failed to reset device, device is NOT usable\n{T:dm} habanalabs hl%d: Device is NOT usable !" % (d, d, d, job.rng.randrange(1, 9), job.rng.randrange(100, 90000), d, d))
        self.hlog(job, r, t - 1, "synStreamSynchronize failed: synStatus 26 [Generic failure], device is in reset/disabled state")
        self.syn_err(job, r, t, "PT_DEVICE", "Device acquire/launch failed: synStatus=26 [Generic failure]. Device reset detected. Check $HABANA_LOGS/ for details")
        return t + 0.5

    def ecc(self, job, r, t):
        self.mark(job, r, "ecc")
        d = self.dev_of(job, r)
        h = job.rng.randrange(6)
        job.dmesg(job.node_of(r), t - 1, "{T:dm} habanalabs hl%d: HBM%d pc%d interrupts info: WR_PAR=0, RD_PAR=0, CA_PAR=0, SERR=0, DERR=1\n{T:dm} habanalabs hl%d: HBM%d pc%d ECC info: 1ST_ERR_ADDR=0x%x, 1ST_ERR_TYPE=%d, SEC_CONT_CNT=%d, SEC_CNT=%d, DEC_CNT=%d\n{T:dm} habanalabs hl%d: Critical error, going to reset device" % (
            d, h, job.rng.randrange(8), d, h, job.rng.randrange(8), job.rng.randrange(2**24), 1, 0, job.rng.randrange(0, 9), job.rng.randrange(1, 4), d))
        self.syn_err(job, r, t, "PT_DEVICE", "synStatus=26 [Generic failure]. Device critical error (HBM double-bit ECC), device reset")
        return t + 0.5

    def fabric(self, job, r, t):
        self.mark(job, r, "port")
        d = self.dev_of(job, r)
        n = job.node_of(r)
        port = job.rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15])
        job.fabric_port = port
        job.dmesg(n, t - 3, "{T:dm} habanalabs hl%d: Port %d (internal, scale-up) link is DOWN\n{T:dm} habanalabs hl%d: Port %d: PCS link fault, rx LOS" % (d, port, d, port))
        self.hlog(job, r, t - 1, "HCL_API: collective AllReduce failed on scale-up port %d of module %d: link down, hcclSystemError" % (port, d), f="hcl.log")
        self.syn_err(job, r, t, "PT_HCCL", "HCCL collective failed: hcclSystemError (internal scale-up link down)")
        return t + 0.5

    def network(self, job, r, t):
        self.mark(job, r, "ext")
        d = self.dev_of(job, r)
        n = job.node_of(r)
        port = job.rng.choice([8, 22, 23])
        job.roce_down = (n, d, port)
        job.dmesg(n, t - 4, "{T:dm} habanalabs hl%d: Port %d (external, scale-out) link is DOWN\n{T:dm} habanalabs hl%d: Port %d: too many retransmissions, QP %d moved to error state" % (d, port, d, port, job.rng.randrange(1, 900)))
        self.hlog(job, r, t - 1, "HCL_API: scale-out send to %s failed: RDMA retry exceeded on port %d (hcclSystemError)" % (job.ips[(n + 1) % job.N], port), f="hcl.log")
        self.syn_err(job, r, t, "PT_HCCL", "HCCL collective failed: hcclSystemError (scale-out port %d)" % port)
        return t + 0.5

    def oom(self, job, r, t):
        mb = pick(job.rng, [256, 512, 1024, 2048, 4096])
        self.syn_err(job, r, t, "PT_DEVMEM", "Allocation failed for size::%d (%d)MB\nDevice memory usage: in use %.1f GB of %.1f GB" % (mb * 1024 * 1024, mb, 94.6, 94.62))
        return t + 0.5

    def iam(self, job, r, t):
        d = self.dev_of(job, r)
        job.dmesg(job.node_of(r), t - 0.5, "{T:dm} habanalabs hl%d: MMU page fault on va 0x%x\n{T:dm} habanalabs hl%d: TPC%d_QM: Engine error, TPC kernel access to unmapped address" % (d, job.rng.randrange(2**40, 2**44), d, job.rng.randrange(24)))
        self.syn_err(job, r, t, "PT_BRIDGE", "Exception in Launch thread...\nCheck $HABANA_LOGS/ for details synStatus=26 [Generic failure]. TPC kernel custom_scatter_bf16 raised page fault (address out of range)")
        return t + 0.5

    def peer_lost(self, job, r, t, n_dead):
        self.hlog(job, r, t - 0.3, "socket recv from %s failed: Connection reset by peer" % job.ips[n_dead], f="hcl.log")
        self.syn_err(job, r, t, "PT_HCCL", "HCCL collective AllReduce failed: hcclSystemError, remote peer %s closed connection" % job.ips[n_dead])

    def preempt_variant(self, job):
        return pick(job.rng, ["slurm_time", "k8s"])

    def side_files(self, job):
        rng = job.rng
        run = job.run
        for (n, f), s in sorted(job.hab.items()):
            run.files["habana_logs/%s/%s" % (job.hosts[n], f)] = s
        nodes = sorted(set(n for (n, d) in getattr(job, "devstate", {})))
        if run.healthy:
            nodes = [0]
        for n in nodes:
            run.text("hl-smi_%s.txt" % job.hosts[n], self.hl_smi(job, n))
        for n in range(job.N):
            if job.kmsg[n]:
                base = [(-4000, "{T:dm} habanalabs: loading driver, version: 1.17.0-ee698fb"),
                        (-3990, "{T:dm} habanalabs hl0: Successfully loaded firmware to device")]
                run.files["dmesg_%s.txt" % job.hosts[n]] = dmesg_file(job, n, base)
        self.pyspy_file(job)

    def hl_smi(self, job, n):
        rng = job.rng
        out = ["+-----------------------------------------------------------------------------+",
               "| HL-SMI Version:                              hl-1.17.0-fw-51.3.0.0          |",
               "| Driver Version:                                     1.17.0-ee698fb          |",
               "|-------------------------------+----------------------+----------------------+",
               "| AIP  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |",
               "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | AIP-Util  Compute M. |",
               "|===============================+======================+======================|"]
        buses = ["33", "34", "9a", "9b", "b3", "b4", "4d", "4e"]
        for d in range(8):
            st = self.state(job, n, d)
            if st == "lost":
                out.append("|   %d  HL-225              N/A  | 0000:%s:00.0     N/A |                 N/A  |" % (d, buses[d]))
                out.append("| N/A   N/A   N/A   N/A  /  N/A |     N/A /  N/A       |   N/A          N/A   |")
            else:
                ecc = rng.randrange(1, 4) if st == "ecc" else 0
                temp = rng.randrange(30, 48) if st != "hot" else rng.randrange(92, 101)
                out.append("|   %d  HL-225              N/A  | 0000:%s:00.0     N/A |                   %d  |" % (d, buses[d], ecc))
                out.append("| N/A   %dC   N/A   %dW / 600W |  %5dMiB / 98304MiB |    %2d%%           N/A |" % (temp, rng.randrange(90, 560), rng.randrange(768, 96000), rng.randrange(0, 100)))
            out.append("|-------------------------------+----------------------+----------------------+")
        extra = [d for d in range(8) if self.state(job, n, d) in ("port", "ext")]
        for d in extra:
            out += ["", "$ hl-smi -i 0000:%s:00.0 -n link" % buses[d]]
            for p in range(24):
                bad = (getattr(job, "roce_down", (None, None, -1))[2] == p and self.state(job, n, d) == "ext") or (self.state(job, n, d) == "port" and p == getattr(job, "fabric_port", -1))
                out.append("port %-2d:\t%s" % (p, "DOWN" if bad else "UP"))
        return out


class Neuron(TorchPlatform):
    name = "AWS Trainium"
    dev = "xla"
    coll = "NEURON"
    fabric_name = "NeuronLink"
    rank_per_dev = 2
    wd_exit = 1

    def hostnames(self, rng, n):
        if rng.random() < 0.5:
            b = rng.randrange(1, 60)
            return ["compute1-dy-trn132xl-%d" % (b + i) for i in range(n)]
        return ["ip-10-%d-%d-%d" % (rng.randrange(256), rng.randrange(256), rng.randrange(256)) for _ in range(n)]

    def setup(self, job):
        job.slurm = job.run.stream("slurm-%d.out" % job.jobid, job.clocks[0])
        for n in range(job.N):
            job.node_stream[n] = job.slurm
        job.monitor = {}

    def nrt(self, job, r, t, lvl, mod, msg):
        job.rlog(r, t, "{T:nrt} %d:%d %-5s  %s  %s" % (job.pids[r], job.pids[r] + job.rng.randrange(1, 400), lvl, mod, msg))

    def preamble(self, job):
        rng = job.rng
        job.slurm.add(0, "+ srun torchrun --nproc_per_node=32 --nnodes=%d --node_rank=$SLURM_NODEID --master_addr=%s --master_port=41000 %s --tensor_parallel_size 8" % (job.N, job.hosts[0], job.script))
        for n in range(job.N):
            apid = job.agent_pid[n]
            job.nlog(n, 0.5, "{T:tW} %d torch/distributed/run.py:779] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed." % apid)
            r = n * job.L
            job.rlog(r, 20, "{T:py} - torch_neuronx - INFO - NEURON_CC_FLAGS=--model-type transformer --distribution-strategy=llm-training --enable-saturate-infinity --cache_dir=/fsx/neuron_cache")
            job.rlog(r, 22, "{T:nrt}000000 %d:%d INFO  NRT:nrt_init  Neuron Runtime 2.20.22.0 built on Jul 31 2024" % (job.pids[r], job.pids[r]))
            job.rlog(r, 90, "%s:%d:%d [%d] NCCL INFO NET/OFI Selected Provider is efa (found 16 nics)" % (job.hosts[n], job.pids[r], job.pids[r], 0))
            job.rlog(r, 95, "{T:py} - Neuron - INFO - Compilation cache hit for graph MODULE_%d_SyncTensorsGraph.%d" % (rng.randrange(10**15, 10**16), rng.randrange(100, 99999)))
        for w in rng.sample(PY_WARNINGS, 2):
            job.rlog(0, 40, w)
        job.rlog(0, 100, "{T:py} - INFO - trainer - %s on %d NeuronCores (%d x trn1.32xlarge), TP=8" % (job.model, job.W, job.N))

    def healthy_noise(self, job):
        r = job.rng.randrange(job.W)
        self.nrt(job, r, 200, "WARN", "NRT:nrt_tensor_allocate", "Tensor allocation on NeuronCore: Host memory fallback enabled, performance may be degraded")
        job.rlog(r, 201, "{T:ccom} %d:%d [%d] include/socket.h:579 CCOM WARN Timeout waiting for RX (waited 120 sec) - retrying" % (job.pids[r], job.pids[r] + 9, job.lr(r)))
        job.rlog(0, 202, "2024-%02d-%02d %02d:%02d:%02d.000%03d: I neuron/collectives/bootstrap: all %d ranks connected after retry" % (1, 1, 0, 0, 0, 0, job.W))

    def exec_fail(self, job, r, t, status, name, msg):
        self.nrt(job, r, t - 0.2, "ERROR", "NRT:nrt_execute", "nrt_execute status=%d (%s) on nd%d nc%d: %s" % (status, name, self.dev_of(job, r), job.lr(r) % 2, msg))
        job.rlog(r, t, traceback_text(job, train_frames(job, [
            ("/workspace/%s" % job.script, 177, "train_step", "xm.mark_step()"),
            (SITE + "/torch_xla/core/xla_model.py", 1056, "mark_step", "torch_xla._XLAC._xla_step_marker(")]),
            "RuntimeError: Bad StatusOr access: INTERNAL: From /job:localservice/replica:0/task:0:\n2 root error(s) found.\n  (0) INTERNAL: nrt_execute status=%d, error message=\"%s\".\n\t [[{{node XRTExecute}}]]" % (status, name)), err=True)

    def hw_fault(self, job, r, t):
        self.mark(job, r, "lost")
        self.nrt(job, r, t - 1, "ERROR", "TDRV:exec_consume_infer_status_notifications", "Hardware error reported by nd%d nc%d: NeuronCore uncorrectable error, instance needs replacement" % (self.dev_of(job, r), job.lr(r) % 2))
        job.dmesg(job.node_of(r), t - 1.5, "{T:dm} neuron:ncdev_hw_error: nd%d: NeuronCore %d reported a fatal hardware error (NC UE)" % (self.dev_of(job, r), job.lr(r) % 2))
        self.exec_fail(job, r, t, 1202, "NRT_EXEC_HW_ERR_NC_UE", "NeuronCore uncorrectable hardware error")
        return t + 0.5

    def ecc(self, job, r, t):
        self.mark(job, r, "ecc")
        self.nrt(job, r, t - 1, "ERROR", "TDRV:exec_consume_infer_status_notifications", "Uncorrectable memory error is detected on nd%d HBM, metadata: 0x%x" % (self.dev_of(job, r), job.rng.randrange(2**32)))
        self.exec_fail(job, r, t, 1201, "NRT_EXEC_HW_ERR_HBM_UE", "HBM uncorrectable ECC error")
        return t + 0.5

    def fabric(self, job, r, t):
        self.mark(job, r, "link")
        self.nrt(job, r, t - 1, "ERROR", "TDRV:exec_consume_infer_status_notifications", "Device-to-device DMA error on nd%d ring link %d (NeuronLink), collectives hardware error" % (self.dev_of(job, r), job.rng.randrange(4)))
        self.exec_fail(job, r, t, 1200, "NRT_EXEC_HW_ERR_COLLECTIVES", "collectives hardware error")
        return t + 0.5

    def network(self, job, r, t):
        n = job.node_of(r)
        k = job.rng.randrange(16)
        job.dmesg(n, t - 6, "{T:dm} efa 0000:%02x:1d.0: Device reset required: admin queue completion timeout\n{T:dm} efa 0000:%02x:1d.0: Failed to process command SET_FEATURE (opcode 8) comp_status 1 err -5" % (0x10 + k, 0x10 + k))
        job.roce_down = (n, k)
        job.rlog(r, t - 0.5, "{T:ccom} %d:%d [%d] nccl_net_ofi_rdma.c:%d NCCL WARN NET/OFI Request 0x%x completed with error. RC: 5. Error: Input/output error. Completed length: 0, Request: { dev: %d, size: 0, state: CREATED, type: SEND }" % (
            job.pids[r], job.pids[r] + 11, job.lr(r), job.rng.randrange(500, 3000), job.rng.randrange(2**44), k))
        self.nrt(job, r, t - 0.2, "ERROR", "ENC:enc_network_proxy_progress", "[nec_dev %d] network proxy failed, errno -5" % self.dev_of(job, r))
        self.exec_fail(job, r, t, 1, "NRT_FAILURE", "Collective network operation failed")
        return t + 0.5

    def oom(self, job, r, t):
        self.nrt(job, r, t - 0.3, "ERROR", "TDRV:dmem_alloc_internal", "Failed to alloc DEVICE memory: %d" % pick(job.rng, [268435456, 536870912, 1073741824]))
        self.nrt(job, r, t - 0.2, "ERROR", "TDRV:dml_dump", "Wrote nrt memory alloc debug info to /tmp/nrt_mem_log_device_%d_%x.csv" % (self.dev_of(job, r), job.rng.randrange(2**32)))
        job.rlog(r, t, traceback_text(job, train_frames(job, [("/workspace/%s" % job.script, 177, "train_step", "xm.mark_step()")]),
                 "RuntimeError: Bad StatusOr access: RESOURCE_EXHAUSTED: LoadCollectives: error condition NRT_RESOURCE (4): Failed to allocate device memory for NEFF on nd%d nc%d" % (self.dev_of(job, r), job.lr(r) % 2)), err=True)
        return t + 0.5

    def iam(self, job, r, t):
        self.nrt(job, r, t - 1, "ERROR", "TDRV:exec_consume_infer_status_notifications", "DMA out-of-bounds access detected on nd%d nc%d, queue qSPCustomOp%d" % (self.dev_of(job, r), job.lr(r) % 2, job.rng.randrange(8)))
        self.exec_fail(job, r, t, 1006, "NRT_EXEC_OOB", "out of bound access in custom op")
        return t + 0.5

    def peer_lost(self, job, r, t, n_dead):
        job.rlog(r, t - 1, "{T:ccom} %d:%d [%d] include/socket.h:%d CCOM WARN Net : Connection closed by remote peer %s<%d>" % (job.pids[r], job.pids[r] + 9, job.lr(r), job.rng.randrange(300, 700), job.ips[n_dead], job.rng.randrange(30000, 60000)))
        self.exec_fail(job, r, t, 1, "NRT_FAILURE", "Connection reset by peer")

    def watchdog(self, job, r, t, seq, op, enq, comp):
        job.rlog(r, t - job.timeout_s + 120, "{T:ccom} %d:%d [%d] include/socket.h:579 CCOM WARN Timeout waiting for RX (waited 120 sec) - retrying" % (job.pids[r], job.pids[r] + 9, job.lr(r)))
        self.exec_fail(job, r, t, 5, "NRT_TIMEOUT", "Execution timed out waiting for collective %s (seq %d)" % (op.strip("_").lower(), seq))

    def preempt_variant(self, job):
        return pick(job.rng, ["spot", "slurm_time"])

    def straggler_evidence(self, job, r0, t):
        self.mark(job, r0, "hot")
        job.straggler_node_evidence = True

    def side_files(self, job):
        rng = job.rng
        run = job.run
        kb = job.killed_by
        if kb and kb[0] == "spot":
            n = kb[2]
            run.text("spot-interruption_%s.log" % job.hosts[n], [
                job.clocks[n].render(kb[1] - 120, "{T:isoz} instance-action watcher: {\"action\": \"terminate\", \"time\": \"") + job.clocks[n].render(kb[1], "{T:iso}") + "Z\"}",
                job.clocks[n].render(kb[1] - 119, "{T:isoz} spot interruption notice received, draining node %s" % job.hosts[n])])
        nodes = sorted(set(n for (n, d) in getattr(job, "devstate", {})))
        if run.healthy:
            nodes = [rng.randrange(job.N)]
        for n in nodes:
            run.text("neuron-monitor_%s.json" % job.hosts[n], self.monitor_json(job, n))
        for n in range(job.N):
            if job.kmsg[n]:
                base = [(-4000, "{T:dm} neuron: loading out-of-tree module taints kernel."),
                        (-3999, "{T:dm} Neuron Driver Started with Version:2.17.17.0-6bc3ff8e3c3e")]
                run.files["dmesg_%s.txt" % job.hosts[n]] = dmesg_file(job, n, base)
        self.pyspy_file(job)

    def monitor_json(self, job, n):
        rng = job.rng
        hw = {"mem_ecc_corrected": 0, "mem_ecc_uncorrected": 0, "sram_ecc_uncorrected": 0, "sram_ecc_corrected": 0}
        for d in range(16):
            st = self.state(job, n, d)
            if st == "ecc":
                hw["mem_ecc_uncorrected"] += rng.randrange(1, 4)
            if st == "lost":
                hw["sram_ecc_uncorrected"] += 1
        cores = {}
        for c in range(32):
            st = self.state(job, n, c // 2)
            util = 0.0 if st in ("lost", "ecc") else (rng.uniform(35, 60) if st == "hot" else rng.uniform(80, 99))
            cores[str(c)] = {"neuroncore_utilization": round(util, 2)}
        doc = {"neuron_runtime_data": [{"pid": job.pids[n * job.L], "neuron_runtime_tag": "0",
                                        "report": {"neuroncore_counters": {"period": 5.0, "neuroncores_in_use": cores, "error": ""},
                                                   "execution_stats": {"period": 5.0, "error_summary": {"generic": 0, "numerical": 0, "transient": 0, "model": 0, "runtime": 0, "hardware": hw["mem_ecc_uncorrected"] + hw["sram_ecc_uncorrected"]}}}}],
               "system_data": {"neuron_hw_counters": {"period": 5.0, "neuron_devices": [
                   dict({"neuron_device_index": d}, **({"mem_ecc_uncorrected": (1 if self.state(job, n, d) == "ecc" else 0)}),
                        **{"mem_ecc_corrected": 0, "sram_ecc_uncorrected": (1 if self.state(job, n, d) == "lost" else 0)}) for d in range(16)], "error": ""}},
               "instance_info": {"instance_type": "trn1.32xlarge", "instance_id": "i-0%016x" % rng.randrange(16**15, 16**16)}}
        return json.dumps(doc, indent=1).split("\n")


class Xpu(TorchPlatform):
    name = "Intel Data Center GPU Max"
    dev = "xpu"
    coll = "XCCL"
    pg = "ProcessGroupXCCL.cpp"
    work = "WorkXCCL"
    kernels = "XPU"
    fabric_name = "Xe Link"
    launcher = "mpiexec"
    rank_per_dev = 2

    def hostnames(self, rng, n):
        return ["x%d%dc%ds%db0n0" % (rng.randrange(1, 5), rng.randrange(100, 999), rng.randrange(8), rng.randrange(8)) for _ in range(n)]

    def setup(self, job):
        job.jobname = pick(job.rng, ["train_llm", "pretrain", "ft_job"])
        s = job.run.stream("%s.o%d" % (job.jobname, job.jobid), job.clocks[0])
        for n in range(job.N):
            job.node_stream[n] = s
        job.pbs = s

    def preamble(self, job):
        rng = job.rng
        job.pbs.add(0, "+ mpiexec -n %d -ppn 12 --cpu-bind=list:1-8:9-16:17-24:25-32:33-40:41-48:53-60:61-68:69-76:77-84:85-92:93-100 gpu_tile_compact.sh python3 %s" % (job.W, job.script))
        for r in range(job.W):
            if r % job.L == 0:
                job.rlog(r, 15, "%s/intel_extension_for_pytorch/__init__.py:147: UserWarning: The IPEX version 2.3.110+xpu is older than torch 2.3.1; some features may be unavailable" % SITE)
                job.rlog(r, 25, "2024:%02d:%02d-%02d:%02d:%02d:(%d) |CCL_WARN| did not find MPI-launcher specific variables, switch to ATL/OFI, to force enable ATL/MPI set CCL_ATL_TRANSPORT=mpi" % (1, 1, 0, 0, 0, job.pids[r]))
                job.rlog(r, 26, "2024:%02d:%02d-%02d:%02d:%02d:(%d) |CCL_WARN| value of CCL_KVS_IFACE changed to be hsn0 (default:)" % (1, 1, 0, 0, 0, job.pids[r]))
        for w in rng.sample(PY_WARNINGS, 2):
            job.rlog(0, 40, w)
        job.rlog(0, 60, "{T:py} - INFO - trainer - %s on %d XPU tiles (%d nodes x 6 Data Center GPU Max 1550), backend=ccl" % (job.model, job.W, job.N))

    def healthy_noise(self, job):
        r = job.rng.randrange(job.W)
        job.rlog(r, 300, "2024:01:01-00:00:00:(%d) |CCL_WARN| topology recognition shows PCIe connection between devices. If this is not correct, you can disable topology recognition, with CCL_TOPO_FABRIC_VERTEX_CONNECTION_CHECK=0. This will assume XeLinks across devices" % job.pids[r])
        job.dmesg(job.node_of(r), 500, "{T:dm} i915 0000:18:00.0: [drm] GT0: GUC: TLB invalidation response timed out for seqno %d" % job.rng.randrange(1000, 90000))

    def ur_err(self, job, r, t, err):
        job.rlog(r, t, traceback_text(job, train_frames(job, [
            ("/workspace/%s" % job.script, 170, "train_step", "torch.xpu.synchronize()"),
            (SITE + "/torch/xpu/__init__.py", 451, "synchronize", "return torch._C._xpu_synchronize(device)")]),
            "RuntimeError: level_zero backend failed with error: %s" % err), err=True)

    def hw_fault(self, job, r, t):
        self.mark(job, r, "lost")
        n = job.node_of(r)
        d = self.dev_of(job, r)
        b = [0x18, 0x42, 0x6c, 0x18 + 0x80, 0x42 + 0x80, 0x6c + 0x80][d]
        job.dmesg(n, t - 2, "{T:dm} i915 0000:%02x:00.0: [drm] GPU HANG: ecode 12:1:85dffffb, in python3 [%d]\n{T:dm} i915 0000:%02x:00.0: [drm] GT%d: Resetting chip for stopped heartbeat on ccs0\n{T:dm} i915 0000:%02x:00.0: [drm] *ERROR* GT%d: GuC firmware not responding, reset failed\n{T:dm} i915 0000:%02x:00.0: [drm] GT%d: device wedged, needs recovery (unbind/rebind or reboot)" % (
            b, job.pids[r], b, job.lr(r) % 2, b, job.lr(r) % 2, b, job.lr(r) % 2))
        self.ur_err(job, r, t, "20 (UR_RESULT_ERROR_DEVICE_LOST)")
        return t + 0.5

    def ecc(self, job, r, t):
        self.mark(job, r, "ecc")
        n = job.node_of(r)
        d = self.dev_of(job, r)
        job.dmesg(n, t - 1, "{T:dm} i915 0000:%02x:00.0: [drm] *ERROR* [Hardware Error]: GT%d detected HBM uncorrectable (fatal) error, HBM%d channel %d\n{T:dm} i915 0000:%02x:00.0: [drm] *ERROR* [Hardware Error]: device wedged, memory error threshold exceeded" % (0x18 + d * 0x2a, job.lr(r) % 2, job.rng.randrange(4), job.rng.randrange(8), 0x18 + d * 0x2a))
        self.ur_err(job, r, t, "20 (UR_RESULT_ERROR_DEVICE_LOST)")
        return t + 0.5

    def fabric(self, job, r, t):
        self.mark(job, r, "xelink")
        n = job.node_of(r)
        d = self.dev_of(job, r)
        job.dmesg(n, t - 3, "{T:dm} iaf iaf.%d: PORT %d.%d: link down (LQI degraded, port state FAILED)\n{T:dm} iaf iaf.%d: fabric %d: routing table update, %d ports isolated" % (d, job.rng.randrange(1, 3), job.rng.randrange(1, 9), d, d, 1))
        job.rlog(r, t - 0.1, "2024:01:01-00:00:00:(%d) |CCL_ERROR| ze_call.cpp:43 do_call: EXCEPTION: ze error at zeCommandQueueSynchronize, code: ZE_RESULT_ERROR_DEVICE_LOST" % job.pids[r])
        self.ur_err(job, r, t, "20 (UR_RESULT_ERROR_DEVICE_LOST)")
        return t + 0.5

    def network(self, job, r, t):
        n = job.node_of(r)
        k = job.rng.randrange(8)
        job.dmesg(n, t - 5, "{T:dm} cxi_core 0000:%02x:00.0: cxi%d[hsn%d] link down\n{T:dm} cxi_core 0000:%02x:00.0: cxi%d[hsn%d] PCS link down, reason: remote fault" % (0x30 + k, k, k, 0x30 + k, k, k))
        job.roce_down = (n, k)
        job.rlog(r, t, "Abort(806995599) on node %d (rank %d in comm 0): Fatal error in PMPI_Allreduce: Other MPI error, error stack:\nPMPI_Allreduce(472)...............: MPI_Allreduce(sbuf=0x%x, rbuf=0x%x, count=1, MPI_INT, MPI_SUM, comm=0x84000004) failed\nMPIDI_OFI_handle_cq_error(1062)...: OFI poll failed (ofi_events.c:1064:MPIDI_OFI_handle_cq_error:Input/output error - TRANSPORT_ERROR)" % (
            r, r, job.rng.randrange(2**44), job.rng.randrange(2**44)), err=True)
        job.exit(r, t + 0.3, 15)
        return t + 0.3

    def oom(self, job, r, t):
        if job.rng.random() < 0.5:
            job.rlog(r, t, traceback_text(job, train_frames(job, fw_frames(job, "xpu")),
                     "RuntimeError: XPU out of memory. Tried to allocate %.2f GiB (GPU %d; 64.00 GiB total capacity; %.2f GiB already allocated; %.2f GiB reserved in total by PyTorch)" % (job.rng.uniform(0.5, 6), self.dev_of(job, r), job.rng.uniform(58, 62), 63.2)), err=True)
        else:
            self.ur_err(job, r, t, "39 (UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)")
        return t + 0.5

    def iam(self, job, r, t):
        job.rlog(r, t, "Segmentation fault from GPU at 0x%x, ctx_id: %d (CCS) type: 0 (NotPresent), level: 1 (PDE), access: 1 (Write), banned: 1, aborting.\nSegmentation fault from GPU at 0x%x, ctx_id: %d (CCS) type: 0 (NotPresent), level: 1 (PDE), access: 1 (Write), banned: 1, aborting.\nAbort was called at 279 line in file:\n./shared/source/os_interface/linux/drm_neo.cpp" % (
            job.rng.randrange(2**40, 2**47) & ~0xfff, job.rng.randrange(1, 9), job.rng.randrange(2**40, 2**47) & ~0xfff, job.rng.randrange(1, 9)))
        job.exit(r, t + 0.1, -6)
        return t + 0.1

    def peer_lost(self, job, r, t, n_dead):
        job.rlog(r, t, "2024:01:01-00:00:00:(%d) |CCL_ERROR| atl_ofi_helper.hpp:1153 atl_ofi_wait_cancel_cq: fi_cq_readerr: err: 5 (Input/output error), prov_err: Connection reset by peer (%s)" % (job.pids[r], job.ips[n_dead]))
        job.rlog(r, t + 0.1, "2024:01:01-00:00:00:(%d) |CCL_ERROR| ccl_comm.cpp:184 allreduce: ... fatal error in collective, rank %d lost peer" % (job.pids[r], r))

    def watchdog(self, job, r, t, seq, op, enq, comp):
        TorchPlatform.watchdog(self, job, r, t, seq, op, enq, comp)

    def preempt_variant(self, job):
        return "pbs_walltime"

    def side_files(self, job):
        run = job.run
        nodes = sorted(set(n for (n, d) in getattr(job, "devstate", {})))
        for n in nodes:
            run.text("xpu-smi_%s.txt" % job.hosts[n], self.xpu_smi(job, n))
        for n in range(job.N):
            if job.kmsg[n]:
                base = [(-4000, "{T:dm} i915 0000:18:00.0: [drm] GT0: GuC firmware i915/pvc_guc_70.20.0.bin version 70.20.0"),
                        (-3990, "{T:dm} iaf iaf.0: IAF: fabric id 0x%x, started" % job.rng.randrange(2**16))]
                run.files["dmesg_%s.txt" % job.hosts[n]] = dmesg_file(job, n, base)
        self.pyspy_file(job)

    def xpu_smi(self, job, n):
        rng = job.rng
        out = ["$ xpu-smi health -l", "+------+---------------------------+-----------------------------------------------------------------+"]
        for d in range(6):
            st = self.state(job, n, d)
            out.append("| %d    | Core Temperature          | Status: %-10s Description: %s |" % (d, "Warning" if st == "hot" else "OK", "temperature above threshold (103C)" if st == "hot" else "All temperature sensors are healthy."))
            out.append("|      | Memory                    | Status: %-10s Description: %s |" % ("Critical" if st in ("ecc",) else "OK", "uncorrectable memory errors detected" if st == "ecc" else "All memory channels are healthy."))
            out.append("|      | Xe Link Port              | Status: %-10s Description: %s |" % ("Critical" if st == "xelink" else "OK", "port failed" if st == "xelink" else "All ports are healthy."))
            out.append("|      | Device                    | Status: %-10s Description: %s |" % ("Critical" if st == "lost" else "OK", "device wedged" if st == "lost" else "healthy"))
            out.append("+------+---------------------------+-----------------------------------------------------------------+")
        return out


def deepspeed_finish(job):
    rng = job.rng
    kb = job.killed_by
    failed_nodes = []
    for n in range(job.N):
        ranks = list(range(n * job.L, (n + 1) * job.L))
        if kb is not None:
            tt = kb[1] + rng.uniform(0.05, 0.5)
            for r in ranks:
                job.nlog(n, tt, "{T:ds} [INFO] [launch.py:316:sigkill_handler] Killing subprocess %d" % job.pids[r])
            job.nlog(n, tt + 0.3, "{T:ds} [INFO] [launch.py:328:sigkill_handler] Main process received SIGTERM, exiting")
            continue
        bad = sorted((job.exits[r][0], r, job.exits[r][1]) for r in ranks if r in job.exits and job.exits[r][1] != 0)
        if not bad:
            if all(r in job.exits for r in ranks):
                job.nlog(n, max(job.exits[r][0] for r in ranks) + 1, "{T:ds} [INFO] [launch.py:348:main] Process %d exits successfully." % job.pids[ranks[0]])
            continue
        t, rf, cf = bad[0]
        tt = t + rng.uniform(0.5, 2)
        for r in ranks:
            job.nlog(n, tt, "{T:ds} [INFO] [launch.py:316:sigkill_handler] Killing subprocess %d" % job.pids[r])
            if job.alive(r, tt):
                job.exits[r] = (tt + 0.1, -9)
        job.nlog(n, tt + 0.2, "{T:ds} [ERROR] [launch.py:322:sigkill_handler] ['/usr/bin/python3', '-u', '%s', '--local_rank=%d', '--deepspeed', '--deepspeed_config', 'ds_config.json'] exits with return code = %d" % (job.script, job.lr(rf), cf))
        failed_nodes.append((tt, n))
    for tt, n in sorted(failed_nodes):
        job.ds.add(tt + 0.5, "pdsh@%s: %s: ssh exited with exit code %d" % (job.hosts[0], job.hosts[n], 1), job.clocks[0])
    if kb is not None and kb[0] == "slurm":
        job.ds.add(kb[1], "slurmstepd: error: *** JOB %d ON %s CANCELLED AT {T:iso} DUE TO %s ***" % (job.jobid, job.hosts[0], kb[2]), job.clocks[0])


def mpiexec_finish(job):
    rng = job.rng
    kb = job.killed_by
    s = job.pbs
    if kb is not None:
        t = kb[1]
        s.add(t, "=>> PBS: job killed: walltime %d exceeded limit %d" % (int(t) + 17, int(t)), job.clocks[0])
        s.add(t + 0.5, "%s: rank 0 died from signal 15" % job.hosts[0], job.clocks[0])
        return
    bad = sorted((t, r, c) for r, (t, c) in job.exits.items() if c != 0)
    if not bad:
        return
    t, r, c = bad[0]
    n = job.node_of(r)
    lines = ["", "===================================================================================",
             "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES",
             "=   RANK %d PID %d RUNNING AT %s" % (r, job.pids[r], job.hosts[n])]
    if c < 0:
        lines.append("=   KILLED BY SIGNAL: %d (%s)" % (-c, {6: "Aborted", 9: "Killed", 11: "Segmentation fault", 7: "Bus error", 15: "Terminated"}[-c]))
    else:
        lines.append("=   EXIT CODE: %d" % c)
    lines += ["=   CLEANING UP REMAINING PROCESSES", "=   YOU CAN IGNORE THE BELOW CLEANUP MESSAGES",
              "==================================================================================="]
    s.add(t + rng.uniform(0.2, 2), "\n".join(lines), job.clocks[n])
    for rr in range(job.W):
        if job.alive(rr, t + 2):
            job.exits[rr] = (t + 2.5, -9)
    if rng.random() < 0.5:
        for k2, (t2, r2, c2) in enumerate(bad[1:4]):
            s.add(t + 2.6 + 0.01 * k2, "=   RANK %d PID %d RUNNING AT %s\n=   KILLED BY SIGNAL: 9 (Killed)" % (r2, job.pids[r2], job.hosts[job.node_of(r2)]), job.clocks[0])


TORCH_LAYOUTS = {
    "ascend_torchrun": (Ascend, (2, 4), 8),
    "gaudi_deepspeed": (Gaudi, (2, 3), 8),
    "rocm_slurm": (Rocm, (2, 4), 8),
    "neuron_slurm": (Neuron, (2, 2), 32),
    "xpu_pbs": (Xpu, (2, 3), 12),
}


def build_torch(run):
    P_cls, (a, b), L = TORCH_LAYOUTS[run.layout]
    P = P_cls()
    rng = run.rng
    job = Job(run, P, rng.randrange(a, b + 1), L)
    P.setup(job)
    P.preamble(job)
    if run.healthy:
        P.healthy_noise(job)
        step, t = job.train_progress(job.start_train + job.step_s * rng.randrange(200, 900))
        job.rlog(0, t + 1, "{T:py} - INFO - trainer - training finished: %d steps, saving final checkpoint to /ckpt/%s/final" % (step, job.model))
        for r in range(job.W):
            job.exit(r, t + rng.uniform(20, 40), 0)
        if rng.random() < 0.5:
            r = rng.randrange(1, job.W)
            job.rlog(r, t + 45, "[{T:cW} ProcessGroupNCCL.cpp:1168] Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only recently been added since ensure this is a concern. (function operator())".replace("NCCL", P.coll))
        run.notes = "healthy run; completed %d steps (harmless warnings only)" % step
    else:
        generic_cause(job, run.cause)
        ensure_all_exit(job)
    if P.launcher == "torchrun":
        torchrun_finish(job)
        if hasattr(job, "slurm"):
            slurm_tail(job, job.slurm, "train")
    elif P.launcher == "deepspeed":
        deepspeed_finish(job)
    else:
        mpiexec_finish(job)
    # a process prints nothing after it is gone
    for v in set(id(x) for x in job.node_stream):
        st = [x for x in job.node_stream if id(x) == v][0]
        st.items = [it for it in st.items if it[4] is None or it[4] not in job.exits or it[0] <= job.exits[it[4]][0] + 0.5]
    kb = job.killed_by
    if kb is not None and kb[0] == "k8s":
        job.run.text("kubectl_events.txt", [
            "LAST SEEN   TYPE      REASON             OBJECT                           MESSAGE",
            "4m12s       Warning   Evicted            pod/%s-worker-%d        The node was low on resource: ephemeral-storage. Threshold quantity: 10%%, available: 8%%." % (job.script.split(".")[0].replace("_", "-"), 1),
            "4m12s       Normal    Killing            pod/%s-worker-%d        Stopping container worker" % (job.script.split(".")[0].replace("_", "-"), 1),
            "4m10s       Normal    Killing            pod/%s-launcher         Stopping container launcher" % job.script.split(".")[0].replace("_", "-"),
            "4m01s       Warning   NodeNotReady       node/%s                  Node is draining for maintenance (cordoned by admin)" % job.hosts[-1]])
    P.side_files(job)
    if getattr(job, "hide_node", None) is not None and run.layout == "ascend_torchrun":
        del run.files["train_%s.log" % job.hosts[job.hide_node]]
    # user trimming of huge logs: the middle (training progress) is cut,
    # the start and everything from shortly before the failure is kept
    t_ev = getattr(job, "t_evidence", None)
    if t_ev is not None and rng.random() < 0.35:
        for path, v in sorted(run.files.items()):
            if isinstance(v, Stream) and path.endswith((".log", ".out")) and "plog" not in path and len(v.items) > 300:
                its = sorted(v.items, key=lambda x: (x[0], x[1]))
                head = its[:60]
                rest = [it for it in its[60:] if it[0] >= t_ev - 150]
                cut = len(its) - len(head) - len(rest)
                if cut > 50:
                    v.items = head + [(head[-1][0] + 1e-3, -1, "[... %d lines trimmed ...]" % cut, None, None)] + rest
                    break


# ---------------------------------------------------------------------------
# TPU / JAX multi-host
# ---------------------------------------------------------------------------
TPU_CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom", "illegal_memory_access",
              "python_exception", "host_oom_kill", "crash_signal", "preemption", "hang",
              "data_loader_stall", "unknown"]


def build_tpu(run):
    rng = run.rng
    acc = pick(rng, [("v4-32", 4, 4), ("v5p-64", 8, 4), ("v4-64", 8, 4), ("v5litepod-32", 8, 4)])
    name, W, chips = acc
    tid = "%08x" % rng.randrange(16**8)
    hosts = ["t1v-n-%s-w-%d" % (tid, i) for i in range(W)]
    big = rng.random() < 0.3
    clocks = [Clock(run.t0, 0 if i == 0 else (rng.uniform(-40, 40) if big else rng.uniform(-0.3, 0.3)), rng.uniform(3600, 86400 * 3)) for i in range(W)]
    logs = [run.stream("worker-%d.log" % i, clocks[i]) for i in range(W)]
    pids = [rng.randrange(1000, 90000) for _ in range(W)]
    tids = [rng.randrange(10**14, 10**15) for _ in range(W)]
    coord = "10.%d.%d.%d" % (rng.randrange(256), rng.randrange(256), rng.randrange(2, 250))
    model = pick(rng, ["llama2-7b", "gemma-7b", "mixtral-8x7b", "gpt3-6b"])
    step_s = rng.uniform(0.8, 6)
    t_start = rng.uniform(120, 600)
    devs = W * chips
    jaxv = pick(rng, ["0.4.30", "0.4.33", "0.4.35", "0.5.0"])
    journal = {}
    driver = {}

    def L(i, t, txt):
        logs[i].add(t, txt)

    def glog(i, t, lvl, src, txt):
        L(i, t, "{T:g%s} %d %s] %s" % (lvl, tids[i] % 10**9, src, txt))

    for i in range(W):
        L(i, 1, "+ python3 -u MaxText/train.py MaxText/configs/base.yml run_name=%s-%s base_output_directory=gs://ckpt-bucket/runs dataset_path=gs://data-bucket/c4 steps=%d per_device_batch_size=%d" % (model, tid[:4], 20000, rng.choice([2, 4, 8])))
        glog(i, 12, "I", "distributed.py:106", "Connecting to JAX distributed service on %s:8482" % coord)
        if i == 0:
            glog(i, 12.5, "I", "coordination_service.cc:596", "Initializing CoordinationService")
        glog(i, 20 + rng.random() * 10, "I", "xla_bridge.py:897", "Unable to initialize backend 'cuda': module 'jax._src.xla_bridge' has no attribute 'GpuAllocatorConfig'")
        glog(i, 21, "I", "xla_bridge.py:897", "Unable to initialize backend 'rocm': module 'jax._src.xla_bridge' has no attribute 'GpuAllocatorConfig'")
        L(i, 25, "System Information: Jax Version: %s" % jaxv)
        L(i, 25.1, "System Information: Jaxlib Version: %s" % jaxv)
        L(i, 25.2, "System Information: Jax Backend: PJRT C API\nTFRT TPU %s\nBuilt on Jun 20 2024 23:04:51 (1718949891) cl/644995326" % ("v4" if "v4" in name else "v5"))
        L(i, 26, "Num_devices: %d, shape (1, 1, %d, 1, 1, 1)" % (devs, devs))
        if rng.random() < 0.4:
            L(i, 27, "/usr/local/lib/python3.10/site-packages/jax/_src/interpreters/mlir.py:952: UserWarning: Some donated buffers were not usable: ShapedArray(int32[]).\nSee an explanation at https://jax.readthedocs.io/en/latest/faq.html#buffer-donation.\n  warnings.warn(\"Some donated buffers were not usable:\"")
        L(i, 30, "Creating checkpoint manager...\nCheckpoint manager created!")
        L(i, 60, "number parameters: %.3f billion" % rng.uniform(6, 47))
        if rng.random() < 0.3:
            glog(i, 61, "W", "tpu_client.cc:617", "TPU Execute is taking a long time. This might be due to a deadlock between multiple TPU cores or a very slow program.")

    cause = run.cause
    r0 = rng.randrange(W)
    t_fail = t_start + step_s * rng.randrange(50, 1500)
    t_stop = [t_fail] * W
    stop_step_offset = [0] * W
    run.init_rank, run.init_node = r0, hosts[r0]
    collateral = True
    hb = "heartbeat"
    died_at = t_fail
    state = "READY"
    health = "HEALTHY"

    def die_msg(i, t, title):
        pass

    if run.healthy:
        t_end = t_start + step_s * rng.randrange(300, 1200)
        t_stop = [t_end] * W
        collateral = False
        run.init_rank = run.init_node = None
        run.notes = "healthy run; training completed"
    elif cause == "gpu_hardware":
        driver[r0] = ["{T:gE} %d tpu_driver.cc:1203] TPU chip %d on %s reported a fatal error: chip halted (hardware fault), requires host reboot" % (pids[r0], rng.randrange(chips), hosts[r0]),
                      "{T:gE} %d tpu_driver.cc:1210] Chip health state changed: OK -> UNHEALTHY" % pids[r0]]
        L(r0, t_fail, "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Core halted unexpectedly: TPU chip %d encountered an unrecoverable hardware error; the chip is unhealthy and needs maintenance." % rng.randrange(chips))
        health = "UNHEALTHY_MAINTENANCE"
        run.notes = "TPU chip hardware fault on worker %d" % r0
    elif cause == "ecc_memory":
        driver[r0] = ["{T:gE} %d tpu_driver.cc:1188] HBM uncorrectable ECC error on chip %d, address 0x%x" % (pids[r0], rng.randrange(chips), rng.randrange(2**34))]
        L(r0, t_fail, "jaxlib.xla_extension.XlaRuntimeError: DATA_LOSS: Uncorrectable HBM ECC error detected on TPU chip; results may be corrupt.")
        run.notes = "HBM uncorrectable ECC on worker %d" % r0
    elif cause == "nvlink":
        lk = rng.randrange(6)
        driver[r0] = ["{T:gE} %d ici_manager.cc:412] ICI link %d on chip %d went down (remote chip unreachable)" % (pids[r0], lk, rng.randrange(chips)),
                      "{T:gE} %d ici_manager.cc:420] ICI link %d retrain failed after 3 attempts" % (pids[r0], lk)]
        L(r0, t_fail, "jaxlib.xla_extension.XlaRuntimeError: UNAVAILABLE: ICI link failure detected during collective (all-reduce.%d); TPU slice topology degraded." % rng.randrange(10, 200))
        run.notes = "ICI (inter-chip interconnect) link down on worker %d" % r0
    elif cause == "network":
        journal[r0] = ["{T:sys} %s kernel: gve 0000:00:04.0 ens4: Device link is down." % hosts[r0],
                       "{T:sys} %s kernel: gve 0000:00:04.0 ens4: Timeout on TX queue 3, resetting device" % hosts[r0],
                       "{T:sys} %s google_guest_agent[1187]: Error watching metadata: context deadline exceeded" % hosts[r0]]
        glog(r0, t_fail - 30, "E", "coordination_service_agent.cc:331", "Failed to send heartbeat to coordination service: UNAVAILABLE: failed to connect to all addresses; last error: UNKNOWN: ipv4:%s:8482: Failed to connect to remote host: Connection timed out" % coord)
        L(r0, t_fail, "jaxlib.xla_extension.XlaRuntimeError: UNAVAILABLE: Failed to connect to coordination service at %s:8482: Connection timed out" % coord)
        run.notes = "host NIC on worker %d lost connectivity (DCN)" % r0
    elif cause == "cuda_oom":
        for i in range(W):
            L(i, t_fail + rng.uniform(0, 1), "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used %.2fG of %.2fG hbm. Exceeded hbm capacity by %.2fG.\n\nTotal hbm usage >= %.2fG:\n    reserved        530.00M \n    program         %.2fG \n    arguments       0B \n" % (
                36.2, 31.25, 4.95, 36.7, 36.2))
        t_stop = [t_fail] * W
        collateral = False
        run.init_rank = run.init_node = None
        run.notes = "HBM OOM at compile time (eval step); same on every worker (SPMD)"
    elif cause == "illegal_memory_access":
        L(r0, t_fail, "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Core halted unexpectedly: INTERNAL: Accelerator device halted prematurely, perhaps due to an on-device check-failure. Node 0 halted unexpectedly at tag:pc TensorCoreSequencer:1:0x%x (from TensorCoreSequencer:1:0x%x): check failure: dynamic-update-slice.%d index out of bounds (custom Pallas kernel paged_attention). HLO: fusion.%d; HLO computation: main.%d" % (
            rng.randrange(4096), rng.randrange(4096), rng.randrange(10, 300), rng.randrange(10, 900), rng.randrange(100, 9000)))
        run.notes = "on-device check failure (application/compiler fault) on worker %d" % r0
    elif cause == "python_exception":
        L(r0, t_fail, "Traceback (most recent call last):\n  File \"/home/user/maxtext/MaxText/train.py\", line 781, in <module>\n    app.run(main)\n  File \"/home/user/maxtext/MaxText/train.py\", line 647, in train_loop\n    example_batch = load_next_batch(data_iterator, example_batch, config)\n  File \"/home/user/maxtext/MaxText/input_pipeline/_tfds_data_processing.py\", line 212, in __next__\n    return self._iter.__next__()\ntensorflow.python.framework.errors_impl.NotFoundError: gs://data-bucket/c4/en/3.0.1/c4-train.tfrecord-%05d-of-01024; No such object" % rng.randrange(1024))
        run.notes = "worker %d raised NotFoundError for a missing data shard" % r0
    elif cause == "host_oom_kill":
        journal[r0] = ["{T:sys} %s kernel: python3 invoked oom-killer: gfp_mask=0x140dca(GFP_HIGHUSER_MOVABLE|__GFP_COMP|__GFP_ZERO), order=0, oom_score_adj=0" % hosts[r0],
                       "{T:sys} %s kernel: Out of memory: Killed process %d (python3) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:0kB, UID:1001 pgtables:%dkB oom_score_adj:0" % (hosts[r0], pids[r0], rng.randrange(4 * 10**8, 9 * 10**8), rng.randrange(3 * 10**8, 4 * 10**8), rng.randrange(10**5, 10**6), rng.randrange(10**5, 10**6)),
                       "{T:sys} %s systemd[1]: session-3.scope: A process of this unit has been killed by the OOM killer." % hosts[r0]]
        L(r0, t_fail + 0.2, "Killed")
        run.notes = "kernel OOM killer killed the trainer on worker %d (host RAM, checkpoint restore buffers)" % r0
    elif cause == "crash_signal":
        L(r0, t_fail, "Fatal Python error: Segmentation fault\n\nThread 0x%016x (most recent call first):\n  File \"/usr/local/lib/python3.10/site-packages/grain/_src/python/shared_memory_array.py\", line 118 in unlink\n  File \"/usr/local/lib/python3.10/site-packages/grain/_src/python/data_loader.py\", line 402 in __next__\n\nExtension modules: jaxlib.cpu_feature_guard, numpy.core._multiarray_umath, grain._src.python.experimental (total: 58)\nSegmentation fault (core dumped)" % rng.randrange(2**46, 2**47))
        journal[r0] = ["{T:sys} %s kernel: python3[%d]: segfault at 0 ip %s sp %s error 4 in libc.so.6[%s+195000] likely on CPU %d (core %d, socket 0)" % (hosts[r0], pids[r0] + 31, hexaddr(rng), hexaddr(rng), hexaddr(rng), rng.randrange(96), rng.randrange(48))]
        run.notes = "SIGSEGV in a data-loader extension on worker %d" % r0
    elif cause == "preemption":
        state = "PREEMPTED"
        health = "HEALTHY"
        for i in range(W):
            L(i, t_fail + rng.uniform(0, 2), "Connection to %s closed by remote host." % ("10.%d.%d.%d" % (rng.randrange(256), rng.randrange(256), rng.randrange(256))))
        collateral = False
        run.init_rank = run.init_node = None
        run.notes = "spot/preemptible TPU slice preempted by GCE; all workers vanished at once"
    elif cause in ("hang", "data_loader_stall"):
        stop_step_offset[r0] = 1
        for i in range(W):
            if i != r0:
                for k in range(rng.randrange(2, 5)):
                    glog(i, t_fail + 60 * (k + 1), "W", "tpu_client.cc:617", "TPU Execute is taking a long time. This might be due to a deadlock between multiple TPU cores or a very slow program.")
        if cause == "data_loader_stall":
            journal[r0] = ["{T:sys} %s gcsfuse[%d]: ReadFile: stalled read of c4/en/train-%05d.array_record (retrying, attempt 7): context deadline exceeded" % (hosts[r0], rng.randrange(1000, 9000), rng.randrange(1024))]
            glog(r0, t_fail + 20, "W", "grain_pool.py:520", "Grain worker 3 has not produced an element for 600.0 seconds; input pipeline may be stalled")
            run.notes = "input pipeline on worker %d stalled on gcsfuse reads; others block in the next collective" % r0
        else:
            run.notes = "worker %d stopped issuing steps (stuck in host code); the others block in a collective until the user kills the job" % r0
        for i in range(W):
            L(i, t_fail + 3600 + rng.uniform(0, 5), "^C")
        collateral = False
    else:  # unknown
        if rng.random() < 0.5:
            run.init_rank = run.init_node = None
        run.notes = "worker %d process vanished without any message" % r0

    # progress
    for i in range(W):
        t = t_start
        step = 0
        while True:
            step += 1
            st = step_s * rng.uniform(0.98, 1.03)
            t += st
            if t >= t_stop[i] - (step_s * 1.5 if stop_step_offset[i] else 0):
                break
            if step % 10 == 0 or step < 5:
                L(i, t, "completed step: %d, seconds: %.3f, TFLOP/s/device: %.3f, Tokens/s/device: %.3f, total_weights: %d, loss: %.3f" % (
                    step, st, 120 + rng.uniform(-2, 2), 2048 * 4 / st, devs * 2048 * 4, 2.1 + 9.0 / (1 + step / 300.0)))
            if step % 1000 == 0:
                L(i, t + 0.2, "Saving checkpoint for step %d" % step)
        if run.healthy:
            L(i, t + 2, "Finished training. Waiting for checkpoint save to complete...")
            glog(i, t + 30, "I", "coordination_service_agent.cc:467", "Coordination agent has successfully shut down.")

    if collateral:
        tl = t_fail + 100 + rng.uniform(0, 5)
        victims = [i for i in range(W) if i != r0]
        for i in victims:
            tt = tl + rng.uniform(0, 3)
            if r0 == 0:
                glog(i, tt, "E", "coordination_service_agent.cc:345", "Failed to send heartbeat to coordination service: UNAVAILABLE: failed to connect to all addresses; last error: UNKNOWN: ipv4:%s:8482: Failed to connect to remote host: Connection refused" % coord)
            else:
                glog(i, tt, "E", "coordination_service_agent.cc:332", "Polled an error from coordination service (this can be an error from this or another task).")
            glog(i, tt + 0.01, "F", "client.cc:%d" % rng.choice([63, 96]), "Terminating process because the JAX distributed service detected fatal errors. This most likely indicates that another task died; see the other task logs for more details. Disable Python buffering, i.e. `python -u`, to be sure to see all the previous output. absl::Status: UNAVAILABLE: The following tasks are unhealthy (stopped sending heartbeats):\n/job:jax_worker/replica:0/task:%d\nThe tasks have crashed. Check the task logs for an earlier error to debug further." % r0)
            L(i, tt + 0.02, "*** Check failure stack trace: ***\n    @     0x7f%010x  absl::lts_20230802::log_internal::LogMessageFatal::~LogMessageFatal()\n    @     0x7f%010x  xla::DistributedRuntimeClient::...\nFatal Python error: Aborted\n\nCurrent thread 0x%016x (most recent call first):\n  <no Python frame>" % (rng.randrange(16**10), rng.randrange(16**10), rng.randrange(2**46, 2**47)))
        if 0 != r0:
            glog(0, tl - 1, "E", "coordination_service.cc:1170", "/job:jax_worker/replica:0/task:%d has been set to ERROR in coordination service: UNAVAILABLE: Task /job:jax_worker/replica:0/task:%d heartbeat timeout. This indicates that the remote task has failed, got preempted, or crashed unexpectedly. Check the task logs for an earlier error to debug further. [type.googleapis.com/tensorflow.CoordinationServiceError='']" % (r0, r0))

    # side files
    if state != "READY" or health != "HEALTHY" or rng.random() < 0.3:
        run.text("tpu-vm-describe.yaml", [
            "acceleratorConfig:", "  topology: %s" % pick(rng, ["2x2x4", "4x4x4", "2x4x4"]), "  type: %s" % name.split("-")[0].upper(),
            "acceleratorType: %s" % name,
            "createTime: '%s'" % clocks[0].render(-7200, "{T:isoz}"),
            "health: %s" % health] + (["healthDescription: The TPU had a maintenance event at %s" % clocks[0].render(t_fail, "{T:isoz}")] if health != "HEALTHY" else []) + [
            "name: projects/my-proj/locations/us-central2-b/nodes/%s-%s" % (model.split("-")[0], tid[:4]),
            "networkEndpoints:"] + sum([["- accessConfig: {}", "  ipAddress: 10.130.0.%d" % (2 + i), "  port: 8470"] for i in range(W)], []) + [
            "runtimeVersion: tpu-ubuntu2204-base",
            "schedulingConfig:", "  preemptible: %s" % ("true" if state == "PREEMPTED" or rng.random() < 0.3 else "false"),
            "state: %s" % state])
    for i, lines in sorted(driver.items()):
        s = Stream(clocks[i])
        s.add(-3000, "Log file created at: {T:iso}\nRunning on machine: %s\nLog line format: [IWEF]mmdd hh:mm:ss.uuuuuu threadid file:line] msg" % hosts[i])
        s.add(-2990, "{T:gI} %d tpu_driver.cc:312] TPU driver initialized, %d chips" % (pids[i], chips))
        for ln in lines:
            s.add(t_fail - rng.uniform(0.5, 3), ln)
        run.files["tpu_logs/%s/tpu_driver.%s.user.log.INFO" % (hosts[i], hosts[i])] = s
    for i, lines in sorted(journal.items()):
        s = Stream(clocks[i])
        s.add(-100, "{T:sys} %s systemd[1]: Started Session 3 of User user." % hosts[i])
        for k, ln in enumerate(lines):
            s.add(t_fail - 5 + k * 0.5, ln)
        run.files["journal_%s.txt" % hosts[i]] = s
    if cause == "unknown" and run.init_rank is None and rng.random() < 0.5:
        del run.files["worker-%d.log" % r0]


# ---------------------------------------------------------------------------
# driver
# ---------------------------------------------------------------------------
LAYOUTS = ["ascend_torchrun", "gaudi_deepspeed", "rocm_slurm", "neuron_slurm", "xpu_pbs", "tpu_jax"]


def supports(layout, cause):
    if layout == "tpu_jax":
        return cause in TPU_CAUSES
    return True


def plan(n, seed):
    prng = random.Random("blind46-plan:%s" % seed)
    order = list(CAUSES)
    prng.shuffle(order)
    offs = {c: prng.randrange(len(LAYOUTS)) for c in CAUSES}
    used = {c: 0 for c in CAUSES}
    hl = prng.randrange(len(LAYOUTS))
    out = []
    k = 0
    for i in range(n):
        if i % 7 == 3:
            out.append((LAYOUTS[hl % len(LAYOUTS)], None))
            hl += 1
            continue
        c = order[k % len(order)]
        k += 1
        sup = [l for l in LAYOUTS if supports(l, c)]
        lay = sup[(offs[c] + used[c]) % len(sup)]
        used[c] += 1
        out.append((lay, c))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    counts = {}
    for i, (lay, cause) in enumerate(plan(a.n, a.seed)):
        rng = random.Random("blind46:%s:%d:%s:%s" % (a.seed, i, lay, cause))
        run = Run(rng, i, lay, cause)
        if lay == "tpu_jax":
            build_tpu(run)
        else:
            build_torch(run)
        run.write(a.out)
        key = cause or "healthy"
        counts[key] = counts.get(key, 0) + 1
    print(json.dumps({k: counts[k] for k in sorted(counts)}, indent=1))


if __name__ == "__main__":
    main()
