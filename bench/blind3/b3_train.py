"""Normal life of a training job: start-up chatter, NCCL init, progress lines,
harmless warnings, and the reusable error blocks (tracebacks, c10d watchdog
aborts, NCCL remote errors) that fault injectors and launchers use."""
from b3_core import fmt, GPU_NAME, GPU_MEM_GIB, hexid

# --------------------------------------------------------------------------
# versions and source line numbers per torch release (plausible, consistent)
# --------------------------------------------------------------------------
SRC = {
    200: dict(wd=475, some=489, avoid=495, term=916, exc=None, tmo=None, dump=None, prep=None, fatal=None),
    201: dict(wd=475, some=489, avoid=495, term=916, exc=None, tmo=None, dump=None, prep=None, fatal=None),
    202: dict(wd=754, some=768, avoid=774, term=1282, exc=None, tmo=None, dump=None, prep=None, fatal=None),
    203: dict(wd=565, some=579, avoid=585, term=1414, exc=1537, tmo=1582, dump=1346, prep=1167, fatal=1224),
    204: dict(wd=607, some=621, avoid=627, term=1418, exc=1664, tmo=1709, dump=1743, prep=1533, fatal=1273),
    205: dict(wd=616, some=630, avoid=636, term=1595, exc=1785, tmo=1834, dump=1890, prep=1575, fatal=1345),
    206: dict(wd=632, some=684, avoid=690, term=1895, exc=2271, tmo=2283, dump=2001, prep=1742, fatal=1440),
}
ELASTIC_LINES = {
    200: dict(omp=791, failed=798, sigterm=850, deathsig=680, main=794, run=785, launch=250, call=134),
    201: dict(omp=793, failed=798, sigterm=850, deathsig=680, main=806, run=797, launch=264, call=134),
    202: dict(omp=793, failed=826, sigterm=833, deathsig=734, main=812, run=803, launch=263, call=135),
    203: dict(omp=757, failed=826, sigterm=833, deathsig=734, main=879, run=870, launch=263, call=133),
    204: dict(omp=779, failed=869, sigterm=897, deathsig=734, main=919, run=910, launch=269, call=138),
    205: dict(omp=793, failed=869, sigterm=897, deathsig=705, main=919, run=910, launch=260, call=138),
    206: dict(omp=792, failed=874, sigterm=900, deathsig=705, main=918, run=909, launch=270, call=138),
}


def src(job):
    return SRC[min(max(job.tv(), 200), 206)]


def elines(job):
    return ELASTIC_LINES[min(max(job.tv(), 200), 206)]


def torch_src_prefix(job):
    return "/opt/pytorch/pytorch" if job.flags.get("ngc") else ".."


# --------------------------------------------------------------------------
# start-up
# --------------------------------------------------------------------------

def nccl_init_lines(job, r, t):
    rng = job.rng
    rk = job.ranks[r]
    nd = job.nodes[rk.node]
    pid = rk.pid
    head0 = "%s:%d:%d [%d]" % (nd.nccl_host, pid, pid, rk.local)
    lines = []
    if r == 0:
        lines.append("%s NCCL INFO NCCL version %s+cuda%s" % (head0, job.nccl, job.cuda))
    oob = nd.ib_ip or nd.ip
    ifname = job.flags.get("oob_if", "eth0")
    lines.append("%s NCCL INFO cudaDriverVersion %d" % (head0, int(job.cuda.split(".")[0]) * 1000 + int(job.cuda.split(".")[1]) * 10))
    lines.append("%s NCCL INFO Bootstrap : Using %s:%s<0>" % (head0, ifname, oob))
    if job.fabric == "efa":
        lines.append("%s NCCL INFO NET/OFI Initializing aws-ofi-nccl 1.9.1-aws" % head0)
        lines.append("%s NCCL INFO NET/OFI Selected Provider is efa (found 4 nics)" % head0)
        lines.append("%s NCCL INFO Using network Libfabric" % head0)
    else:
        lines.append("%s NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin." % head0)
        if job.fabric == "ib":
            devs = " ".join("[%d]mlx5_%d:1/IB" % (i, i) for i in range(min(job.gpn, 8)))
            lines.append("%s NCCL INFO NET/IB : Using %s ; OOB %s:%s<0>" % (head0, devs, ifname, oob))
            lines.append("%s NCCL INFO Using network IB" % head0)
        elif job.fabric == "roce":
            devs = " ".join("[%d]mlx5_%d:1/RoCE" % (i, i) for i in range(min(job.gpn, 4)))
            lines.append("%s NCCL INFO NET/IB : Using %s ; OOB %s:%s<0>" % (head0, devs, ifname, oob))
            lines.append("%s NCCL INFO Using network IB" % head0)
        else:
            lines.append("%s NCCL INFO NET/IB : No device found." % head0)
            lines.append("%s NCCL INFO NET/Socket : Using [0]%s:%s<0>" % (head0, ifname, oob))
            lines.append("%s NCCL INFO Using network Socket" % head0)
    head = "%s:%d:%d [%d]" % (nd.nccl_host, pid, rk.tid, rk.local)
    comm = job.flags.setdefault("comm_%d" % r, "0x5%s" % rng.choice("5678") + hexid(rng, 10))
    cid = job.flags.setdefault("commId", "0x" + hexid(rng, 16))
    lines.append("%s NCCL INFO comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId %s - Init START"
                 % (head, comm, r, job.world, rk.local, rk.local, rk.busid, cid))
    if job.tv() >= 204 and rng.random() < 0.5:
        lines.append("%s NCCL INFO comm %s rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL 0"
                     % (head, comm, r, job.world, len(job.nodes), job.gpn, rk.local))
    nxt = (r + 1) % job.world
    via = ("P2P/CUMEM/read" if job.nccl >= "2.19" else "P2P/IPC/read") if job.ranks[nxt].node == rk.node else ("NET/IB/%d/GDRDMA" % rk.local if job.fabric in ("ib", "roce") else "NET/Socket/0")
    lines.append("%s NCCL INFO Channel 00/0 : %d[%d] -> %d[%d] via %s" % (head, r, rk.local, nxt, job.ranks[nxt].local, via))
    lines.append("%s NCCL INFO Connected all rings" % head)
    lines.append("%s NCCL INFO comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId %s - Init COMPLETE"
                 % (head, comm, r, job.world, rk.local, rk.local, rk.busid, cid))
    for i, ln in enumerate(lines):
        job.out(r, t + i * 0.003, ln, "out")


HARMLESS_RANK_WARNINGS = [
    ("{site}/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be "
     "passed explicitly. In version 2.4 we will raise an exception if use_reentrant is not passed. use_reentrant=False is "
     "recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs "
     "for more details on the differences between the two variants.\n  return fn(*args, **kwargs)"),
    ("{site}/torch/_utils.py:831: UserWarning: TypedStorage is deprecated. It will be removed in the future and "
     "UntypedStorage will be the only storage class. This should only matter to you if you are using storages directly.  "
     "To access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()\n  return self.fget.__get__(instance, owner)()"),
    ("{site}/torch/distributed/fsdp/fully_sharded_data_parallel.py:690: FutureWarning: FSDP.state_dict_type() and "
     "FSDP.set_state_dict_type() are being deprecated. Please use APIs, get_state_dict() and set_state_dict(), which can support "
     "different parallelisms, FSDP1, FSDP2, DDP. API doc: https://pytorch.org/docs/stable/distributed.checkpoint.html"
     "#torch.distributed.checkpoint.state_dict.get_state_dict .Tutorial: https://pytorch.org/tutorials/recipes/distributed_checkpoint_recipe.html .\n  warnings.warn("),
    ("{site}/transformers/tokenization_utils_base.py:1601: FutureWarning: `clean_up_tokenization_spaces` was not set. "
     "It will be set to `True` by default. This behavior will be depracted in transformers v4.45, and will be then set to "
     "`False` by default. For more details check this issue: https://github.com/huggingface/transformers/issues/31884\n  warnings.warn("),
    ("{site}/torch/nn/modules/module.py:1562: UserWarning: Using a target size (torch.Size([8])) that is different to "
     "the input size (torch.Size([8, 1])). This will likely lead to incorrect results due to broadcasting. Please ensure "
     "they have the same size.\n  return forward_call(*args, **kwargs)"),
]



def c10d_barrier_warning(job, r, t):
    if job.tv() >= 204:
        job.c10d(r, t, "W", "ProcessGroupNCCL.cpp:4115" if job.tv() < 205 else "ProcessGroupNCCL.cpp:4561",
                 "%s using GPU %d to perform barrier as devices used by this process are currently unknown. This can "
                 "potentially cause a hang if this rank to GPU mapping is incorrect.Specify device_ids in barrier() to "
                 "force use of a particular device,or call init_process_group() with a device_id."
                 % (job.pg(r), job.ranks[r].local))


def startup(job, t_launch):
    """Per-rank start-up output. Returns the time training steps start."""
    rng = job.rng
    fw = job.framework
    t_imp = t_launch + rng.uniform(4, 25)
    master = job.nodes[0].host
    banner = job.flags.get("banner", "fairseq")
    big = job.world > 64
    for rk in job.ranks:
        r = rk.r
        t = t_imp + rng.uniform(0, 3.0)
        nd = job.nodes[rk.node]
        if job.flags.get("socket_warn") and rk.node != 0 and rng.random() < 0.5:
            for k in range(rng.randint(1, 3)):
                if job.tv() >= 203:
                    job.out(r, t + k * 10, "[W%s socket.cpp:%d] [c10d] The client socket has failed to connect to "
                            "[%s]:29500 (errno: 99 - Cannot assign requested address)."
                            % (fmt(job.tnode(rk.node, t + k * 10), "glog_ns", job.tz), 697 if job.tv() < 205 else 752, master))
                else:
                    job.out(r, t + k * 10, "[W socket.cpp:601] [c10d] The client socket has failed to connect to "
                            "[%s]:29500 (errno: 99 - Cannot assign requested address)." % master)
            t += 30
        if fw == "lightning" or fw == "nemo":
            job.out(r, t, "Initializing distributed: GLOBAL_RANK: %d, MEMBER: %d/%d" % (r, r + 1, job.world))
        elif fw == "deepspeed":
            job.out(r, t, "[%s] [INFO] [comm.py:652:init_distributed] cdb=None" % fmt(job.tnode(rk.node, t), "pylog", job.tz), "out")
            if r == 0:
                job.out(r, t + 0.01, "[%s] [INFO] [comm.py:683:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl"
                        % fmt(job.tnode(rk.node, t), "pylog", job.tz), "out")
        elif fw == "megatron":
            if r == 0:
                job.out(r, t, "> initializing torch distributed ...", "out")
        elif banner == "fairseq" and not big:
            job.out(r, t, "| distributed init (rank %d): env://, gpu %d" % (r, rk.local), "out")
        if banner == "host":
            job.ulog(r, t + 0.2, "I", "rank %d/%d local_rank %d on %s (pid %d), cuda:%d" % (r, job.world, rk.local, nd.nccl_host, rk.pid, rk.local))
        elif banner == "ulog0" and r == 0:
            job.ulog(r, t, "I", "world_size=%d nodes=%d gpus_per_node=%d" % (job.world, len(job.nodes), job.gpn))
    t_nccl = t_imp + rng.uniform(20, 90)
    job.flags["t_nccl_init"] = t_nccl
    if job.nccl_debug:
        limit = job.world if job.world <= 64 else 0
        for rk in job.ranks:
            if rk.r < limit or rk.local == 0 or rk.r == 0:
                nccl_init_lines(job, rk.r, t_nccl + rng.uniform(0, 4.0))
    # framework banners on rank 0 and harmless warnings
    t = t_nccl + rng.uniform(5, 15)
    if fw == "megatron":
        job.out(0, t, "> initialized tensor model parallel with size %d\n> initialized pipeline model parallel with size %d\n"
                "> setting random seeds to 1234 ...\nbuilding GPT model ..." % (job.flags.get("tp", 1), job.flags.get("pp", 1)), "out")
    elif fw in ("lightning", "nemo"):
        job.out(0, t, "-" * 100 + "\ndistributed_backend=nccl\nAll distributed processes registered. Starting with %d processes\n" % job.world + "-" * 100 + "\n", "err")
        for rk in job.ranks:
            if rk.r < 64:
                job.out(rk.r, t + 0.5, "LOCAL_RANK: %d - CUDA_VISIBLE_DEVICES: [%s]" % (rk.local, ",".join(str(i) for i in range(job.gpn))))
    elif fw == "deepspeed":
        job.out(0, t, "[%s] [INFO] [logging.py:128:log_dist] [Rank 0] DeepSpeed info: version=0.14.4, git-hash=unknown, git-branch=unknown"
                % fmt(job.tnode(0, t), "pylog", job.tz), "out")
        job.out(0, t + 2, "[%s] [INFO] [logging.py:128:log_dist] [Rank 0] Creating ZeRO Offload" % fmt(job.tnode(0, t + 2), "pylog", job.tz), "out")
    elif fw == "hf":
        job.out(0, t, "[INFO|trainer.py:2243] %s >> ***** Running training *****\n[INFO|trainer.py:2244] %s >>   Num examples = 1,482,113\n"
                "[INFO|trainer.py:2245] %s >>   Num Epochs = 1\n[INFO|trainer.py:2246] %s >>   Instantaneous batch size per device = 4\n"
                "[INFO|trainer.py:2249] %s >>   Total train batch size (w. parallel, distributed & accumulation) = %d"
                % tuple([fmt(job.tnode(0, t), "pylog", job.tz)] * 5 + [4 * 8 * job.world]), "err")
    elif fw == "composer":
        job.out(0, t, "******************************\nConfig:\nnode_name: unknown because NODENAME environment variable not set\nnum_gpus_per_node: %d\nnum_nodes: %d\nrank_zero_seed: 17\n******************************" % (job.gpn, len(job.nodes)), "out")
    if rng.random() < 0.3:
        # one very long line: the full argparse Namespace / config dump
        keys = []
        base = ["lr", "min_lr", "weight_decay", "adam_beta1", "adam_beta2", "adam_eps", "clip_grad", "seq_length", "micro_batch_size",
                "global_batch_size", "hidden_size", "ffn_hidden_size", "num_layers", "num_attention_heads", "num_query_groups", "kv_channels",
                "max_position_embeddings", "rotary_base", "vocab_size", "make_vocab_size_divisible_by", "init_method_std", "attention_dropout",
                "hidden_dropout", "bf16", "fp16", "loss_scale_window", "initial_loss_scale", "log_interval", "save_interval", "eval_interval",
                "eval_iters", "tensor_model_parallel_size", "pipeline_model_parallel_size", "sequence_parallel", "use_flash_attn",
                "recompute_granularity", "distributed_backend", "distributed_timeout_minutes", "data_path", "split", "tokenizer_type",
                "tokenizer_model", "save", "load", "seed", "num_workers", "dataloader_type", "train_iters", "lr_warmup_iters", "lr_decay_style"]
        for i in range(rng.randint(120, 400)):
            k = base[i % len(base)] + ("" if i < len(base) else "_%d" % (i // len(base)))
            v = rng.choice(["None", "True", "False", str(rng.randint(0, 65536)), "%.6g" % rng.uniform(0, 1), "'%s'" % rng.choice(["cosine", "selective", "nccl", "/lustre/data/tok/c4_text_document", "GPTSentencePieceTokenizer"])])
            keys.append("%s=%s" % (k, v))
        job.out(0, t + 0.5, "Namespace(%s)" % ", ".join(keys), "out")
    if job.flags.get("harmless_warn", True):
        w = HARMLESS_RANK_WARNINGS[job.flags.get("warn_idx", 0) % len(HARMLESS_RANK_WARNINGS)]
        for rk in job.ranks:
            if job.world <= 64 or rk.local == 0:
                job.out(rk.r, t + rng.uniform(20, 40), w.format(site=job.site))
    if job.tv() >= 204 and job.flags.get("barrier_warn"):
        for rk in job.ranks:
            if job.world <= 64 or rk.local == 0:
                c10d_barrier_warning(job, rk.r, t + rng.uniform(1, 3))
    t_train = t + rng.uniform(40, 240)
    return t_train


# --------------------------------------------------------------------------
# progress
# --------------------------------------------------------------------------

def _bar(frac, width=10):
    full = int(frac * width)
    parts = " ▏▎▍▌▋▊▉"
    rem = int((frac * width - full) * 8)
    s = "█" * full
    if full < width:
        s += parts[rem] if rem else " "
        s += " " * (width - full - 1)
    return s


def tq_interval(sec):
    sec = int(sec)
    if sec >= 3600:
        return "%d:%02d:%02d" % (sec // 3600, sec % 3600 // 60, sec % 60)
    return "%02d:%02d" % (sec // 60, sec % 60)


def progress(job, t_start, steps, step_time, step0=0, total=None, slow=None, ckpt_every=0, skip_nan=None, until=None):
    """Emit progress lines for steps step0+1 .. step0+steps starting at t_start.

    slow: dict rank -> factor of compute time (straggler); affects per-rank logs.
    Returns (t_after, last_step, step_times list)."""
    rng = job.rng
    fw = job.framework
    total = total or max(step0 + steps * 3, 10000)
    every = job.flags.get("log_every", 10)
    per_rank = job.flags.get("per_rank_log", False)
    t = t_start
    last = step0
    slow = slow or {}
    slow_factor = max(slow.values()) if slow else 1.0
    slow_from = job.flags.get("slow_from_step", 0)
    loss = job.flags.get("loss0", 2.9)
    loss_scale = 65536
    for s in range(step0 + 1, step0 + steps + 1):
        base = step_time * rng.uniform(0.97, 1.04)
        eff = base
        if slow and s >= slow_from:
            eff = base * slow_factor
        t += eff
        if until is not None and t > until:
            t -= eff
            break
        last = s
        loss = max(0.6, loss - rng.uniform(0.0, 0.0025) + rng.uniform(-0.01, 0.01))
        if ckpt_every and s % ckpt_every == 0:
            ck = rng.uniform(25, 140)
            if fw == "megatron":
                job.out(0, t + 0.2, "saving checkpoint at iteration %8d to /lustre/ckpt/%s in torch_dist format" % (s, job.jobname), "out")
                job.out(0, t + ck, "  successfully saved checkpoint from iteration %8d to /lustre/ckpt/%s [ t 1/%d, p 1/%d ]"
                        % (s, job.jobname, job.flags.get("tp", 1), job.flags.get("pp", 1)), "out")
            elif fw == "deepspeed":
                job.out(0, t + 0.2, "[%s] [INFO] [logging.py:128:log_dist] [Rank 0] [Torch] Checkpoint global_step%d is about to be saved!"
                        % (fmt(job.tnode(0, t), "pylog", job.tz), s), "out")
                job.out(0, t + ck, "[%s] [INFO] [engine.py:3536:_save_zero_checkpoint] zero checkpoint saved /fsx/ckpt/global_step%d/bf16_zero_pp_rank_0_mp_rank_00_optim_states.pt"
                        % (fmt(job.tnode(0, t + ck), "pylog", job.tz), s), "out")
            else:
                job.ulog(0, t + 0.2, "I", "saving checkpoint step_%d to /checkpoints/%s/step_%d (async=False)" % (s, job.jobname, s))
                job.ulog(0, t + ck, "I", "checkpoint step_%d saved in %.1fs" % (s, ck))
            t += ck
        if skip_nan and s in skip_nan:
            if fw == "deepspeed":
                job.out(0, t, "[%s] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: %d, reducing to %d"
                        % (fmt(job.tnode(0, t), "pylog", job.tz), loss_scale, loss_scale // 2), "out")
                loss_scale //= 2
            else:
                for rk in job.ranks[: min(job.world, 8)]:
                    job.ulog(rk.r, t, "W", "non-finite loss (nan) at step %d, skipping optimizer step (skipped=%d)" % (s, skip_nan.index(s) + 1))
        if s % every != 0:
            continue
        _emit_progress(job, t, s, total, eff, loss, slow if s >= slow_from else None, base)
    return t, last


def _emit_progress(job, t, s, total, eff, loss, slow, base):
    rng = job.rng
    fw = job.framework
    lr = 3e-4 * min(1.0, s / 2000.0)
    if fw == "megatron":
        r = job.world - 1
        tflops = 400.0 * base / eff * rng.uniform(0.98, 1.01)
        job.out(r, t, " [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | "
                "throughput per GPU (TFLOP/s/GPU): %.1f | learning rate: %.6E | global batch size: %5d | lm loss: %.6E | "
                "loss scale: 1.0 | grad norm: %.3f | number of skipped iterations:   0 | number of nan iterations:   0 |"
                % (fmt(job.tnode(job.ranks[r].node, t), "plain", job.tz), s, total, s * 512, eff * 1000, tflops, lr,
                   512, loss, rng.uniform(0.2, 1.5)), "out")
        if slow and job.flags.get("megatron_straggler"):
            sr = max(slow, key=lambda k: slow[k])
            fast = [x for x in range(job.world) if x not in slow]
            mn = fast[int(rng.random() * len(fast))] if fast else 0
            job.out(0, t + 0.01, " [%s] | MnRtt/Rnk: %.2fms/%d | MxRtt/Rnk: %.2fms/%d | MnPwr/Rnk: %.2fW/%d | MxPwr/Rnk: %.2fW/%d | "
                    "MnTmp/Rnk: %.2fC/%d | MxTmp/Rnk: %.2fC/%d | MnUtl/Rnk: %.2f%%/%d | MxUtl/Rnk: %.2f%%/%d | MnClk/Rnk: %.2fMHz/%d | MxClk/Rnk: %.2fMHz/%d"
                    % (fmt(job.tnode(0, t), "plain", job.tz), base * 820, mn, base * 820 * slow[sr], sr,
                       rng.uniform(380, 420), sr, rng.uniform(640, 700), mn, rng.uniform(38, 45), mn,
                       rng.uniform(86, 92) if job.flags.get("thermal") else rng.uniform(55, 62), sr,
                       rng.uniform(60, 75), sr, 100.0, mn, rng.uniform(1095, 1400), sr, 1980.0, mn), "out")
    elif fw == "deepspeed":
        job.out(0, t, "[%s] [INFO] [logging.py:128:log_dist] [Rank 0] step=%d, skipped=0, lr=[%.6e], mom=[(0.9, 0.95)]"
                % (fmt(job.tnode(0, t), "pylog", job.tz), s, lr), "out")
        job.out(0, t + 0.001, "[%s] [INFO] [timer.py:264:stop] epoch=0/micro_step=%d/global_step=%d, RunningAvgSamplesPerSec=%.3f, "
                "CurrSamplesPerSec=%.3f, MemAllocated=%.2fGB, MaxMemAllocated=%.2fGB"
                % (fmt(job.tnode(0, t), "pylog", job.tz), s * 4, s, 32 / base, 32 / eff, 21.3, 61.82), "out")
    elif fw == "hf":
        frac = s / float(total)
        el = int(s * eff)
        rem = int((total - s) * eff)
        job.out_raw(0, t, "\r%3d%%|%s| %d/%d [%s<%s, %5.2fs/it]" % (
            int(frac * 100), _bar(frac), s, total, tq_interval(el), tq_interval(rem), eff), "err")
        if s % (job.flags.get("log_every", 10) * 5) == 0:
            job.out_raw(0, t + 0.01, "\n{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %.4e, 'epoch': %.2f}\n"
                        % (loss, rng.uniform(0.2, 1.2), lr, frac), "out")
    elif fw in ("lightning", "nemo"):
        frac = s / float(total)
        el = int(s * eff)
        rem = int((total - s) * eff)
        extra = ("v_num=%d, train_loss=%.3f" % (job.flags.get("vnum", 3), loss)) if fw == "lightning" else (
            "reduced_train_loss=%.3f, global_step=%d.0, consumed_samples=%d.0, train_step_timing in s=%.3f" % (loss, s - 1, s * 512, eff))
        job.out_raw(0, t, "\rEpoch 0: %3d%%|%s| %d/%d [%s<%s, %.2fit/s, %s]" % (
            int(frac * 100), _bar(frac), s, total, tq_interval(el), tq_interval(rem), 1.0 / eff, extra), "err")
    elif fw == "composer":
        job.out(0, t, "[batch=%d/%d]:\n\t Train time/batch: %d\n\t Train time/sample: %d\n\t Train loss/train/total: %.4f\n"
                "\t Train throughput/batches_per_sec: %.4f\n\t Train time/remaining_estimate: %.4f"
                % (s, total, s - 1, (s - 1) * 256, loss, 1.0 / eff, (total - s) * eff / 3600.0), "out")
    elif fw == "jax":
        job.ulog(0, t, "I", "step=%d loss=%.4f step_time=%.3fs tokens/s=%.0f" % (s, loss, eff, 2.0e6 * job.flags.get("step_time", 1.0) / eff), name="train.py:312")
    else:
        per_rank = job.flags.get("per_rank_log", False)
        targets = [rk.r for rk in job.ranks] if per_rank else [0]
        for r in targets:
            comp = base * 0.78
            wait = eff - comp
            if slow and r in slow:
                comp = base * 0.78 * slow[r]
                wait = max(0.004, eff - comp)
            comp *= rng.uniform(0.98, 1.02)
            if per_rank:
                rtag = "" if job.userfmt in ("bracket", "json", "epoch") else "[rank %d] " % r
                job.ulog(r, t + rng.uniform(0, 0.02), "I",
                         "%sstep %d | loss %.4f | lr %.2e | step_time %.3fs | fwd_bwd %.3fs | allreduce_wait %.3fs | tok/s/gpu %.0f"
                         % (rtag, s, loss + rng.uniform(-0.06, 0.06), lr, eff, comp, wait, 4096 * 8 / eff))
            else:
                job.ulog(r, t, "I", "step %d/%d | loss %.4f | lr %.2e | step_time %.3fs | tok/s %.0f | mem %.1fGiB"
                         % (s, total, loss, lr, eff, 4096 * 8 * job.world / eff, 61.2))


# --------------------------------------------------------------------------
# error blocks
# --------------------------------------------------------------------------

def frames_watchdog(job, where="checkTimeout"):
    lib = job.site + "/torch/lib"
    rng = job.rng
    base = 0x7F0000000000 + rng.randint(0x100, 0xFFFF) * 0x1000000
    s = src(job)
    loc = "%s/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d" % (torch_src_prefix(job), s["wd"] + 11 if where == "checkTimeout" else s["exc"] + 240 if s["exc"] else 1904)
    out = ["Exception raised from %s at %s (most recent call first):" % (where, loc)]
    fr = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "libc10.so"),
          ("c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x282"
           if where == "checkTimeout" else "c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException() + 0x5c", "libtorch_cuda.so"),
          ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x233", "libtorch_cuda.so"),
          ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", "libtorch_cuda.so"),
          ("<unknown function> + 0x145c0", "libtorch.so"),
          ("<unknown function> + 0x94ac3", "/lib/x86_64-linux-gnu/libc.so.6"),
          ("<unknown function> + 0x126850", "/lib/x86_64-linux-gnu/libc.so.6")]
    for i, (fn, so) in enumerate(fr):
        path = so if so.startswith("/") else "%s/%s" % (lib, so)
        out.append("frame #%d: %s (0x%x in %s)" % (i, fn, base + rng.randint(0x1000, 0xFFFFFF), path))
    return "\n".join(out)


def workstr(job, w):
    if job.tv() >= 201:
        return "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (
            w["seq"], w["op"], w["nin"], w["nout"], job.timeout_ms)
    return "WorkNCCL(SeqNum=%d, OpType=%s, Timeout(ms)=%d)" % (w["seq"], w["op"], job.timeout_ms)


def watchdog_timeout(job, r, t, w, ran_ms, last_enq, last_comp, abort=True):
    """Emit the c10d watchdog timeout + abort as printed by the installed torch.
    Returns the time the process dies (SIGABRT)."""
    s = src(job)
    v = job.tv()
    wd = "%s Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (
        "[Rank %d]" % r, workstr(job, w), ran_ms)
    pfx = "../torch" if not job.flags.get("ngc") else "/opt/pytorch/pytorch/torch"
    if v < 203:
        job.c10d(r, t, "E", "ProcessGroupNCCL.cpp:%d" % s["wd"], wd)
        if not abort:
            return None
        job.c10d(r, t + 0.001, "E", "ProcessGroupNCCL.cpp:%d" % s["some"], "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.")
        job.c10d(r, t + 0.002, "E", "ProcessGroupNCCL.cpp:%d" % s["avoid"], "To avoid data inconsistency, we are taking the entire process down.")
        job.c10d(r, t + 0.003, "E", "ProcessGroupNCCL.cpp:%d" % s["term"], "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, wd))
        job.out(r, t + 0.004, "terminate called after throwing an instance of 'std::runtime_error'\n  what():  [Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, wd))
        return t + 0.1
    job.c10d(r, t, "E", "ProcessGroupNCCL.cpp:%d" % s["wd"], wd)
    if v >= 206:
        job.c10d(r, t + 0.0002, "E", "ProcessGroupNCCL.cpp:%d" % s["exc"], "%s  failure detected by watchdog at work sequence id: %d PG status: last enqueued work: %d, last completed work: %d"
                 % (job.pg(r), w["seq"], last_enq, last_comp))
        job.c10d(r, t + 0.0003, "E", "ProcessGroupNCCL.cpp:670", "Stack trace of the failed collective not found, potentially because FlightRecorder is disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value.")
    else:
        job.c10d(r, t + 0.0002, "E", "ProcessGroupNCCL.cpp:%d" % s["exc"], "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d."
                 % (job.pg(r), w["seq"], last_enq, last_comp))
        job.c10d(r, t + 0.0003, "E", "ProcessGroupNCCL.cpp:%d" % s["tmo"], "%s Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d."
                 % (job.pg(r), w["seq"], last_enq, last_comp))
    if not abort:
        return None
    job.c10d(r, t + 0.0004, "E", "ProcessGroupNCCL.cpp:%d" % s["some"], "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % r)
    job.c10d(r, t + 0.0005, "E", "ProcessGroupNCCL.cpp:%d" % s["avoid"], "[Rank %d] To avoid data inconsistency, we are taking the entire process down." % r)
    if v >= 204 and job.flags.get("flight_recorder", True):
        job.c10d(r, t + 0.0006, "E", "ProcessGroupNCCL.cpp:%d" % s["dump"],
                 "%s Received a dump signal due to a collective timeout from this local rank and we will try our best to dump the debug info. "
                 "Last enqueued NCCL work: %d, last completed NCCL work: %d.This is most likely caused by incorrect usages of collectives, e.g., wrong "
                 "sizes used across ranks, the order of collectives is not same for all ranks or the scheduled collective, for some reason, didn't run. "
                 "Additionally, this can be caused by GIL deadlock or other reasons such as network errors or bugs in the communications library (e.g. NCCL), etc. "
                 % (job.pg(r), last_enq, last_comp))
        job.c10d(r, t + 0.0007, "E", "ProcessGroupNCCL.cpp:%d" % s["prep"], "%s ProcessGroupNCCL preparing to dump debug info. Include stack trace: 1" % job.pg(r))
    msg = "%s Process group watchdog thread terminated with exception: %s" % (job.pg(r), wd)
    job.c10d(r, t + 0.001, "E", "ProcessGroupNCCL.cpp:%d" % s["term"], msg)
    fr = frames_watchdog(job)
    job.out(r, t + 0.0011, fr)
    job.out(r, t + 0.0012, "terminate called after throwing an instance of 'c10::DistBackendError'\n  what():  %s\n%s" % (msg, fr))
    return t + job.rng.uniform(0.3, 8.0) if v >= 204 else t + 0.2


def dump_signal_from_peer(job, r, t, from_rank, last_enq, last_comp):
    """A rank that did not time out itself gets the flight-recorder dump signal via TCPStore (torch>=2.4)."""
    s = src(job)
    job.c10d(r, t, "E", "ProcessGroupNCCL.cpp:%d" % s["dump"],
             "%s Received a dump signal due to a collective timeout from  rank %d and we will try our best to dump the debug info. "
             "Last enqueued NCCL work: %d, last completed NCCL work: %d.This is most likely caused by incorrect usages of collectives, e.g., wrong "
             "sizes used across ranks, the order of collectives is not same for all ranks or the scheduled collective, for some reason, didn't run. "
             "Additionally, this can be caused by GIL deadlock or other reasons such as network errors or bugs in the communications library (e.g. NCCL), etc. "
             % (job.pg(r), from_rank, last_enq, last_comp))
    job.c10d(r, t + 0.001, "E", "ProcessGroupNCCL.cpp:%d" % s["prep"], "%s ProcessGroupNCCL preparing to dump debug info. Include stack trace: 1" % job.pg(r))
    tdie = t + job.rng.uniform(60, 125)
    job.c10d(r, tdie, "F", "ProcessGroupNCCL.cpp:%d" % s["fatal"], "%s %s Terminating the process after attempting to dump debug info, due to collective timeout or exception."
             % (job.pg(r), job.pg(r)))
    return tdie + 0.05


def store_dump_flag_warning(job, r, t):
    if job.tv() >= 204:
        job.c10d(r, t, "W", "ProcessGroupNCCL.cpp:%d" % (1282 if job.tv() < 205 else 1376),
                 "%s Failed to check the \"should dump\" flag on TCPStore, (maybe TCPStore server has shut down too early), with error: Connection reset by peer" % job.pg(r))


def nccl_remote_error(job, r, t, last_error, kind="remote", via="watchdog"):
    """NCCL async error surfacing in torch. Returns death time."""
    v = job.tv()
    if kind == "remote":
        head = "NCCL error: remote process exited or there was a network error, NCCL version %s" % job.nccl
        body = "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\nLast error:\n%s" % last_error
    elif kind == "system":
        head = "NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % job.nccl
        body = "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. \nLast error:\n%s" % last_error
    elif kind == "cuda":
        head = "NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % job.nccl
        body = "ncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\n%s" % last_error
    else:
        head = "NCCL error: internal error - please report this issue to the NCCL developers, NCCL version %s" % job.nccl
        body = "ncclInternalError: Internal check failed.\nLast error:\n%s" % last_error
    pfx = torch_src_prefix(job)
    if via == "python" or v < 202:
        tb = ("Traceback (most recent call last):\n  File \"/workspace/%s\", line %d, in <module>\n    main()\n"
              "  File \"/workspace/%s\", line %d, in main\n    loss = train_step(model, batch)\n"
              "  File \"/workspace/%s\", line %d, in train_step\n    dist.all_reduce(stats, op=dist.ReduceOp.SUM)\n"
              "  File \"%s/torch/distributed/c10d_logger.py\", line 83, in wrapper\n    return func(*args, **kwargs)\n"
              "  File \"%s/torch/distributed/distributed_c10d.py\", line %d, in all_reduce\n    work = group.allreduce([tensor], opts)\n"
              "torch.distributed.DistBackendError: NCCL error in: %s/torch/csrc/distributed/c10d/NCCLUtils.hpp:%d, %s\n%s"
              % (job.script, 512, job.script, 470, job.script, 233, job.site, job.site,
                 2288 if v >= 204 else 2050, pfx, 317 if v >= 204 else 219, head.replace("NCCL error: ", ""), body))
        job.pytrace(r, t, tb)
        return t + job.rng.uniform(0.5, 3)
    s = src(job)
    msg = "%s Process group watchdog thread terminated with exception: %s\n%s" % (job.pg(r), head, body)
    fr = frames_watchdog(job, "checkForNCCLErrorsInternal")
    job.c10d(r, t, "E", "ProcessGroupNCCL.cpp:%d" % s["term"], msg)
    job.out(r, t + 0.001, fr)
    job.out(r, t + 0.002, "terminate called after throwing an instance of 'c10::DistBackendError'\n  what():  %s\n%s" % (msg, fr))
    return t + job.rng.uniform(0.2, 2.0)


def py_traceback(job, frames, exc_line, chained=None):
    """frames: list of (file, line, func, code)."""
    out = ["Traceback (most recent call last):"]
    for f, ln, fn, code in frames:
        out.append('  File "%s", line %d, in %s' % (f, ln, fn))
        if code:
            out.append("    " + code)
    out.append(exc_line)
    txt = "\n".join(out)
    if chained:
        txt = chained + "\n\nThe above exception was the direct cause of the following exception:\n\n" + txt
    return txt


def user_frames(job, depth="step"):
    sc = "/workspace/" + job.script if not job.flags.get("script_path") else job.flags["script_path"]
    fr = [(sc, 618, "<module>", "main(cfg)"),
          (sc, 571, "main", "train(cfg, model, optimizer, train_loader)"),
          (sc, 402, "train", "loss = train_step(model, batch, optimizer, scaler)")]
    if depth == "data":
        fr = fr[:2] + [(sc, 388, "train", "for step, batch in enumerate(train_loader, start=start_step):")]
    return fr


def cuda_oom_text(job, r, gib_try, free_mib):
    total = GPU_MEM_GIB.get(job.board, 79.1)
    used = total - free_mib / 1024.0
    alloc = used - job.rng.uniform(0.6, 3.0)
    reserved = job.rng.uniform(0.3, 2.5)
    if job.tv() >= 203:
        return ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of %.2f GiB of which "
                "%.2f MiB is free. Including non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated memory %.2f GiB is "
                "allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try "
                "setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  "
                "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
                % (gib_try, job.ranks[r].local, total, free_mib, used, alloc, reserved))
    return ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB (GPU %d; %.2f GiB total capacity; %.2f GiB already "
            "allocated; %.2f MiB free; %.2f GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting "
            "max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF"
            % (gib_try, job.ranks[r].local, total, alloc, free_mib, alloc + reserved))


def cuda_err_text(job, msg):
    return ("RuntimeError: CUDA error: %s\nCUDA kernel errors might be asynchronously reported at some other API call, so the "
            "stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with "
            "`TORCH_USE_CUDA_DSA` to enable device-side assertions.\n" % msg)


def model_frames(job):
    site = job.site
    return [(site + "/torch/nn/modules/module.py", 1553 if job.tv() >= 204 else 1518, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
            (site + "/torch/nn/modules/module.py", 1562 if job.tv() >= 204 else 1527, "_call_impl", "return forward_call(*args, **kwargs)"),
            ("/workspace/model/transformer.py", 288, "forward", "h = layer(h, freqs_cis, mask)")]


def gpu_name(job):
    return GPU_NAME.get(job.board, "NVIDIA H100 80GB HBM3")
