"""Training-framework dressing: startup banners, step/iteration lines, harmless
warnings, checkpoint chatter, W&B noise, and realistic Python call stacks.
"""
from __future__ import annotations

import math

from b4_common import pickn, Run, ts_py, ts_sec, ts_glog, ts_vllm, ts_py_dot, hexid
from b4_text import c10, pgl, sp, nccl_init_info

TORCH_FWS = ["megatron", "nemo2", "torchtitan", "deepspeed", "hf_trainer", "lightning", "composer", "plain"]

SCRIPTS = {
    "megatron": "pretrain_gpt.py", "nemo2": "/opt/NeMo/examples/llm/pretrain/llama3_70b.py", "torchtitan": "torchtitan/train.py",
    "deepspeed": "train_sft.py", "hf_trainer": "run_clm.py", "lightning": "train.py", "composer": "train.py",
    "plain": "train.py", "verl": "verl.trainer.main_ppo", "openrlhf": "openrlhf.cli.train_ppo_ray",
}


class Plan:
    """Timeline of the normal (fault-free) part of a job."""

    def __init__(self, run: Run, fw: str):
        rng = run.rng
        self.fw = fw
        self.t_init = rng.uniform(6, 45)
        self.t_train0 = self.t_init + rng.uniform(25, 400)
        self.dt = rng.choice([0.35, 0.8, 1.6, 2.9, 4.1, 6.5, 9.8, 13.0]) * rng.uniform(0.9, 1.1)
        self.start_step = rng.choice([0, 0, 0, rng.randint(1, 60) * 500])
        self.total_steps = pickn(run, [5000, 20000, 100000, 250000, 500000])
        self.log_interval = rng.choice([1, 1, 5, 10, 10, 20, 50, 100])
        self.ckpt_interval = pickn(run, [250, 500, 1000, 2000])
        self.cps = rng.choice([3, 5, 8, 13, 24, 41])       # collectives per step on the default PG
        self.seq0 = rng.randint(12, 140)
        self.gbs = pickn(run, [256, 512, 1024, 2048, 4096])
        self.seqlen = pickn(run, [2048, 4096, 8192])
        self.lr = rng.choice([3e-4, 1.5e-4, 6e-5, 2e-5, 1e-4])
        self.tflops = rng.uniform(180, 620)
        self.slow_ranks: dict = {}                         # rank -> factor (straggler)
        self.slow_from = None
        self.nan_skips = set()
        self.ckpt_pause = rng.uniform(15, 180)

    def step_at(self, t: float) -> int:
        if t < self.t_train0:
            return self.start_step
        return self.start_step + int((t - self.t_train0) / self.dt)

    def t_of(self, step: int) -> float:
        return self.t_train0 + (step - self.start_step) * self.dt

    def seq_at(self, step: int) -> int:
        return self.seq0 + (step - self.start_step) * self.cps


def loss_at(step: int, rng) -> float:
    base = 1.9 + 8.5 * math.exp(-step / 900.0) + 0.7 * math.exp(-step / 30000.0)
    return base * (1 + rng.uniform(-0.02, 0.02))


def lr_at(plan: Plan, step: int) -> float:
    warm = 2000
    if step < warm:
        return plan.lr * (step + 1) / warm
    return plan.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, step / plan.total_steps))))


# ------------------------------------------------------------------ call stacks
def train_frames(run: Run, fw: str, depth: str = "step") -> list:
    """Frames from the entry script down into the training step."""
    s = lambda rel: sp(run, rel)
    if fw == "megatron":
        base = "/workspace/Megatron-LM" if run.rng.random() < 0.6 else "/opt/megatron-lm"
        fr = [("%s/pretrain_gpt.py" % base, 285, "<module>", "pretrain("),
              ("%s/megatron/training/training.py" % base, 386, "pretrain", "iteration, num_floating_point_operations_so_far = train("),
              ("%s/megatron/training/training.py" % base, 1447, "train", "train_step(forward_step_func,"),
              ("%s/megatron/training/training.py" % base, 754, "train_step", "losses_reduced = forward_backward_func("),
              ("%s/megatron/core/pipeline_parallel/schedules.py" % base, 1504, "forward_backward_pipelining_without_interleaving", "output_tensor, num_tokens = forward_step("),
              ("%s/megatron/core/pipeline_parallel/schedules.py" % base, 275, "forward_step", "output_tensor, loss_func = forward_step_func(data_iterator, model)")]
    elif fw == "nemo2":
        fr = [("/opt/NeMo/examples/llm/pretrain/llama3_70b.py", 93, "<module>", "run.run(recipe, executor=executor)"),
              (s("nemo/collections/llm/api.py"), 150, "pretrain", "return train("),
              (s("nemo/collections/llm/api.py"), 107, "train", "trainer.fit(model, data)"),
              (s("lightning/pytorch/trainer/trainer.py"), 538, "fit", "call._call_and_handle_interrupt("),
              (s("lightning/pytorch/loops/fit_loop.py"), 216, "run", "self.advance()"),
              (s("lightning/pytorch/loops/training_epoch_loop.py"), 250, "advance", "batch_output = self.automatic_optimization.run(trainer.optimizers[0], batch_idx, kwargs)"),
              (s("nemo/lightning/megatron_parallel.py"), 301, "forward", "microbatch_outputs = step()")]
    elif fw == "torchtitan":
        fr = [("/workspace/torchtitan/torchtitan/train.py", 683, "<module>", "trainer.train()"),
              (s("torch/distributed/elastic/multiprocessing/errors/__init__.py"), 355, "wrapper", "return f(*args, **kwargs)"),
              ("/workspace/torchtitan/torchtitan/train.py", 591, "train", "self.train_step(data_iterator)"),
              ("/workspace/torchtitan/torchtitan/train.py", 517, "train_step", "loss = self.forward_backward_step(input_dict, labels)"),
              ("/workspace/torchtitan/torchtitan/train.py", 478, "forward_backward_step", "pred = model_parts[0](inputs)")]
    elif fw == "deepspeed":
        fr = [("/home/%s/proj/train_sft.py" % run.meta.get("user", "user"), 412, "<module>", "main()"),
              ("/home/%s/proj/train_sft.py" % run.meta.get("user", "user"), 377, "main", "loss = model_engine(batch)"),
              (s("deepspeed/utils/nvtx.py"), 18, "wrapped_fn", "ret_val = func(*args, **kwargs)"),
              (s("deepspeed/runtime/engine.py"), 1914, "forward", "loss = self.module(*inputs, **kwargs)")]
    elif fw == "hf_trainer":
        fr = [("/app/run_clm.py", 653, "<module>", "main()"),
              ("/app/run_clm.py", 601, "main", "train_result = trainer.train(resume_from_checkpoint=checkpoint)"),
              (s("transformers/trainer.py"), 2245, "train", "return inner_training_loop("),
              (s("transformers/trainer.py"), 2560, "_inner_training_loop", "tr_loss_step = self.training_step(model, inputs, num_items_in_batch)"),
              (s("transformers/trainer.py"), 3736, "training_step", "loss = self.compute_loss(model, inputs, num_items_in_batch=num_items_in_batch)")]
    elif fw == "lightning":
        fr = [("/home/%s/lit/train.py" % run.meta.get("user", "user"), 144, "<module>", "trainer.fit(model, datamodule=dm)"),
              (s("lightning/pytorch/trainer/trainer.py"), 538, "fit", "call._call_and_handle_interrupt("),
              (s("lightning/pytorch/trainer/call.py"), 46, "_call_and_handle_interrupt", "return trainer.strategy.launcher.launch(trainer_fn, *args, trainer=trainer, **kwargs)"),
              (s("lightning/pytorch/loops/fit_loop.py"), 216, "run", "self.advance()"),
              (s("lightning/pytorch/loops/training_epoch_loop.py"), 250, "advance", "batch_output = self.automatic_optimization.run(trainer.optimizers[0], batch_idx, kwargs)")]
    elif fw == "composer":
        fr = [("/llm-foundry/scripts/train/train.py", 596, "<module>", "main(cfg)"),
              ("/llm-foundry/scripts/train/train.py", 580, "main", "trainer.fit()"),
              (s("composer/trainer/trainer.py"), 2235, "fit", "self._train_loop()"),
              (s("composer/trainer/trainer.py"), 2451, "_train_loop", "total_loss_dict = self._train_batch(use_grad_scaling)"),
              (s("composer/trainer/trainer.py"), 2679, "_train_batch", "self._train_microbatches(microbatches, total_loss_dict)")]
    else:
        fr = [("/work/%s/train.py" % run.meta.get("user", "user"), 318, "<module>", "main(args)"),
              ("/work/%s/train.py" % run.meta.get("user", "user"), 271, "main", "loss = train_step(model, batch, optimizer, scaler)"),
              ("/work/%s/train.py" % run.meta.get("user", "user"), 188, "train_step", "logits = model(batch[\"input_ids\"])")]
    return fr


def module_frames(run: Run) -> list:
    s = lambda rel: sp(run, rel)
    return [(s("torch/nn/modules/module.py"), 1751, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
            (s("torch/nn/modules/module.py"), 1762, "_call_impl", "return forward_call(*args, **kwargs)")]


def data_frames(run: Run, fw: str) -> list:
    s = lambda rel: sp(run, rel)
    fr = list(train_frames(run, fw)[:2])
    fr += [(s("torch/utils/data/dataloader.py"), 708, "__next__", "data = self._next_data()"),
           (s("torch/utils/data/dataloader.py"), 1458, "_next_data", "idx, data = self._get_data()")]
    return fr


# ------------------------------------------------------------------ warnings
def harmless_warnings(run: Run, r: int, t: float, fw: str):
    rng = run.rng
    L = pgl(run)
    pool = []
    pool.append(c10(run, r, t, "W", "ProcessGroupNCCL.cpp:%d" % pickn(run, [4561, 4843, 5012]),
                    "%s using GPU %d to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect. Specify device_ids in barrier() to force use of a particular device, or call init_process_group() with a device_id." % ("[PG ID 0 PG GUID 0 Rank %d] " % r, run.ranks[r].local)))
    pool.append(c10(run, r, t, "W", "Utils.hpp:%d" % pickn(run, [135, 164]),
                    "Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated; use TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function operator())"))
    pool.append("%s:295: FutureWarning: `torch.cpu.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cpu', args...)` instead.\n"
                "  with torch.enable_grad(), device_autocast_ctx, torch.cpu.amp.autocast(**ctx.cpu_autocast_kwargs):  # type: ignore[attr-defined]" % sp(run, "torch/utils/checkpoint.py"))
    pool.append("%s:1040: FutureWarning: You are using `torch.load` with `weights_only=False` (the current default value), which uses the default pickle module implicitly. It is possible to construct malicious pickle data which will execute arbitrary code during unpickling (See https://github.com/pytorch/pytorch/blob/main/SECURITY.md#untrusted-models for more details). In a future release, the default value for `weights_only` will be flipped to `True`. This limits the functions that could be executed during unpickling. Arbitrary objects will no longer be allowed to be loaded via this mode unless they are explicitly allowlisted by the user via `torch.serialization.add_safe_globals`. We recommend you start setting `weights_only=True` for any use case where you don't have full control of the loaded file. Please open an issue on GitHub for any issues related to this experimental feature.\n"
                "  return torch.load(io.BytesIO(b))" % sp(run, "torch/serialization.py"))
    if fw in ("megatron", "nemo2"):
        pool.append("%s:%d: UserWarning: flash-attn v3 may provide important feature support or performance improvement. Please install flash-attn v3 by \n"
                    "(1) git clone https://github.com/Dao-AILab/flash-attention.git\n(2) cd flash-attention/ && git checkout 3ba6f82 && git submodule update --init && cd hopper/ && python setup.py install\n"
                    "(3) python_path=`python -c \"import site; print(site.getsitepackages()[0])\"`\n(4) mkdir -p $python_path/flash_attn_3\n(5) wget -P $python_path/flash_attn_3 https://raw.githubusercontent.com/Dao-AILab/flash-attention/3ba6f82/hopper/flash_attn_interface.py\n"
                    "  warnings.warn(" % (sp(run, "transformer_engine/pytorch/attention.py"), pickn(run, [3200, 3415, 3591])))
        pool.append("%s:%d: UserWarning: The torch.cuda.*DtypeTensor constructors are no longer recommended. It's best to use methods such as torch.tensor(data, dtype=*, device='cuda') to create tensors. (Triggered internally at /opt/pytorch/pytorch/torch/csrc/tensor/python_tensor.cpp:78.)\n"
                    "  _C._set_default_tensor_type(t)" % (sp(run, "torch/__init__.py"), pickn(run, [1144, 1236])))
    if fw in ("hf_trainer", "deepspeed"):
        pool.append("`use_cache=True` is incompatible with gradient checkpointing. Setting `use_cache=False`.")
        pool.append("%s:%d: UserWarning: `torch.utils.checkpoint`: the use_reentrant parameter should be passed explicitly. In version 2.5 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants.\n"
                    "  return fn(*args, **kwargs)" % (sp(run, "torch/_dynamo/eval_frame.py"), 632))
    k = rng.randint(1, min(3, len(pool)))
    for i, w in enumerate(rng.sample(pool, k)):
        run.emit(r, t + i * 0.01, w)


def wandb_lines(run: Run, r: int, t: float, proj: str, runid: str):
    user = run.meta.get("user", "user")
    L = ["wandb: Currently logged in as: %s (%s-team) to https://api.wandb.ai. Use `wandb login --relogin` to force relogin" % (user, user),
         "wandb: Tracking run with wandb version 0.%d.%d" % (run.rng.choice([18, 19]), run.rng.randint(1, 9)),
         "wandb: Run data is saved locally in %s/wandb/run-%s-%s" % (run.meta.get("workdir", "/workspace"), ts_sec(run.e(t)).replace("-", "").replace(" ", "_").replace(":", ""), runid),
         "wandb: Run `wandb offline` to turn off syncing.",
         "wandb: Syncing run %s" % run.meta.get("expname", "exp"),
         "wandb: ⭐️ View project at https://wandb.ai/%s-team/%s" % (user, proj),
         "wandb: 🚀 View run at https://wandb.ai/%s-team/%s/runs/%s" % (user, proj, runid)]
    for i, ln in enumerate(L):
        run.emit(r, t + i * 0.05, ln, "err")


# ------------------------------------------------------------------ per-framework lines
def startup(run: Run, fw: str, plan: Plan, nnodes: int):
    rng = run.rng
    W = run.world
    commid = hexid(rng, 16)
    nccl_info = run.meta.get("nccl_info", False)
    for rk in run.ranks:
        r = rk.r
        t = plan.t_init + rng.uniform(0, 3) + (rk.node.idx * 0.05)
        if nccl_info:
            full = W <= 32 or rk.local == 0
            nccl_init_info(run, r, t, nnodes, commid, full=full)
        if rng.random() < 0.5 or r == 0:
            harmless_warnings(run, r, t + rng.uniform(0.5, 20), fw)
    if run.meta.get("host_lines"):
        form = rng.choice(["%s | INFO | dist | rank %d/%d on %s (local_rank %d, device cuda:%d)",
                           "[host %s] global rank %d of %d, node %s, local_rank %d, cuda:%d",
                           "hostname=%s rank=%d world_size=%d node=%s local_rank=%d device=%d"])
        for rk in run.ranks:
            tt = plan.t_init + rng.uniform(0.2, 2.5)
            if form.startswith("%s |"):
                txt = form % (ts_sec(run.e(tt, rk.node)), rk.r, W, rk.node.host, rk.local, rk.local)
            elif form.startswith("[host"):
                txt = form % (rk.node.host.split(".")[0], rk.r, W, rk.node.host, rk.local, rk.local)
            else:
                txt = form % (rk.node.host, rk.r, W, rk.node.host.split(".")[0], rk.local, rk.local)
            run.emit(rk.r, tt, txt, "out")
    r0 = 0
    t = plan.t_init + 0.1
    E = lambda r_, tt, s, st="out": run.emit(r_, tt, s, st)
    if fw == "megatron":
        tp = rng.choice([1, 2, 4, 8]) if run.gpn >= 4 else 1
        pp = rng.choice([1, 1, 2, 4]) if W >= 16 else 1
        run.meta["tp"], run.meta["pp"] = tp, pp
        lines = ["using world size: %d, data-parallel size: %d, context-parallel size: 1, hierarchical context-parallel sizes: None, tensor-model-parallel size: %d, encoder-tensor-model-parallel size: 0, pipeline-model-parallel size: %d, encoder-pipeline-model-parallel size: 0" % (W, max(1, W // (tp * pp)), tp, pp),
                 "WARNING: Setting args.overlap_p2p_comm and args.align_param_gather to False since non-interleaved schedule does not support overlapping p2p communication and aligned param AG",
                 "using torch.bfloat16 for parameters ...",
                 "------------------------ arguments ------------------------",
                 "  accumulate_allreduce_grads_in_fp32 .............. True",
                 "  distributed_timeout_minutes ..................... %d" % (run.pg_timeout // 60),
                 "  global_batch_size ............................... %d" % plan.gbs,
                 "  log_interval .................................... %d" % plan.log_interval,
                 "  save_interval ................................... %d" % plan.ckpt_interval,
                 "  seq_length ...................................... %d" % plan.seqlen,
                 "  tensor_model_parallel_size ...................... %d" % tp,
                 "  pipeline_model_parallel_size .................... %d" % pp,
                 "-------------------- end of arguments ---------------------",
                 "setting number of microbatches to constant %d" % rng.choice([8, 16, 32, 64]),
                 "> building GPT2BPETokenizer tokenizer ..." if rng.random() < 0.3 else "> building HuggingFaceTokenizer tokenizer ...",
                 "> initializing torch distributed ...",
                 "> initialized tensor model parallel with size %d" % tp,
                 "> initialized pipeline model parallel with size %d" % pp,
                 "> setting random seeds to 1234 ...",
                 "> compiling dataset index builder ...",
                 ">>> done with dataset index builder. Compilation time: %.3f seconds" % rng.uniform(0.05, 0.4),
                 "time to initialize megatron (seconds): %.3f" % rng.uniform(20, 120),
                 "[after megatron is initialized] datetime: %s " % ts_sec(run.e(t + 30, run.ranks[0].node)),
                 "building GPT model ...",
                 " > number of parameters on (tensor, pipeline) model parallel rank (0, 0): %d" % rng.randint(10 ** 9, 9 * 10 ** 9)]
        if plan.start_step:
            lines.append(" loading checkpoint from /lustre/fsw/%s/checkpoints at iteration %d" % (run.meta.get("user", "user"), plan.start_step))
            lines.append("  successfully loaded checkpoint from /lustre/fsw/%s/checkpoints [ t 1/%d, p 1/%d ] at iteration %d" % (run.meta.get("user", "user"), tp, pp, plan.start_step))
        lines += ["[after model, optimizer, and learning rate scheduler are built] datetime: %s " % ts_sec(run.e(plan.t_train0 - 20, run.ranks[0].node)),
                  "> building train, validation, and test datasets ...",
                  " > datasets target sizes (minimum size):",
                  "    train:      %d" % (plan.total_steps * plan.gbs),
                  "[after dataloaders are built] datetime: %s " % ts_sec(run.e(plan.t_train0 - 5, run.ranks[0].node)),
                  "done with setup ...",
                  "training ...",
                  "[before the start of training step] datetime: %s " % ts_sec(run.e(plan.t_train0, run.ranks[0].node))]
        for i, ln in enumerate(lines):
            E(0, t + i * 0.3 if i < 22 else plan.t_train0 - 30 + i * 0.5, ln)
    elif fw == "nemo2":
        lines = ["[NeMo W %s nemo_logging:405] /opt/NeMo/nemo/collections/llm/gpt/model/base.py:33: UserWarning: Apex is not installed." % ts_sec(run.e(t)),
                 "GPU available: True (cuda), used: True",
                 "TPU available: False, using: 0 TPU cores",
                 "HPU available: False, using: 0 HPUs",
                 "[NeMo I %s nemo_logging:393] Experiments will be logged at /nemo_run/experiments/%s" % (ts_sec(run.e(t)), run.meta.get("expname", "exp")),
                 "[NeMo I %s nemo_logging:393] Fixing mis-match between ddp-config & mcore-optimizer config" % ts_sec(run.e(t + 2)),
                 "[NeMo I %s nemo_logging:393] Rank 0 has data parallel group : [%s]" % (ts_sec(run.e(t + 3)), ", ".join(str(x) for x in range(0, min(W, 64), max(1, W // 8)))),
                 "[NeMo I %s nemo_logging:393] All data parallel group ranks with context parallel combined: ..." % ts_sec(run.e(t + 3)),
                 "[NeMo I %s nemo_logging:393] Ranks 0 has data parallel rank: 0" % ts_sec(run.e(t + 3)),
                 "[NeMo I %s nemo_logging:393] Padded vocab_size: 128256, original vocab_size: 128256, dummy tokens: 0." % ts_sec(run.e(t + 10)),
                 "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/%d" % W,
                 "----------------------------------------------------------------------------------------------------",
                 "distributed_backend=nccl",
                 "All distributed processes registered. Starting with %d processes" % W,
                 "----------------------------------------------------------------------------------------------------",
                 "",
                 "[NeMo I %s nemo_logging:393] Copying Trainer's 'max_steps' (%d) to LR scheduler's 'max_steps'." % (ts_sec(run.e(t + 20)), plan.total_steps),
                 "[NeMo I %s num_microbatches_calculator:228] setting number of microbatches to constant 32" % ts_sec(run.e(t + 20)),
                 "  | Name   | Type     | Params | Mode ",
                 "----------------------------------------------",
                 "0 | module | GPTModel | 8.8 B  | train",
                 "----------------------------------------------"]
        for i, ln in enumerate(lines):
            E(0, t + i * 0.5, ln)
    elif fw == "torchtitan":
        ttn = lambda tt: ts_py(run.e(tt, run.ranks[0].node))
        lines = ["[titan] %s - root - INFO - Starting job: Llama 3 %s training" % (ttn(t), rng.choice(["8B", "70B", "405B"])),
                 "[titan] %s - root - INFO - Building 1-D device mesh with ['dp_shard'], [%d]" % (ttn(t + 0.2), W),
                 "[titan] %s - root - INFO - [GC] Initial GC collection. 0.00 seconds." % ttn(t + 0.3),
                 "[titan] %s - root - INFO - Loading tokenizer from tokenizer.json" % ttn(t + 0.4),
                 "[titan] %s - root - INFO - Preparing c4 dataset from allenai/c4" % ttn(t + 1),
                 "[titan] %s - root - INFO - Building llama3 8B with TransformerModelArgs(_enforced='This field is used to enforce all fields have defaults.', dim=4096, n_layers=32, n_heads=32, n_kv_heads=8, vocab_size=128256, multiple_of=1024, ffn_dim_multiplier=1.3, norm_eps=1e-05, rope_theta=500000, max_seq_len=%d, depth_init=True, use_flex_attn=False, attn_mask_type='causal', eos_id=0)" % (ttn(t + 3), plan.seqlen),
                 "[titan] %s - root - INFO - CUDA capacity: %s with %.2fGiB memory" % (ttn(t + 4), run.meta.get("gpuname", "NVIDIA H100 80GB HBM3"), {"NVIDIA A100-SXM4-80GB": 79.15, "NVIDIA H200": 139.81, "NVIDIA B200": 178.36}.get(run.meta.get("gpuname"), 79.11)),
                 "[titan] %s - root - INFO - Applied FSDP to the model" % ttn(t + 6),
                 "[titan] %s - root - INFO - CUDA memory usage for model: 3.77GiB(4.77%%)" % ttn(t + 8),
                 "[titan] %s - root - INFO - Checkpointing active. Checkpoints will be loaded from and saved to ./outputs/checkpoint" % ttn(t + 9),
                 "[titan] %s - root - INFO - Trainer is initialized with local batch size 2, global batch size %d, gradient accumulation steps 1, sequence length %d, total steps %d (warmup 200)" % (ttn(t + 9), 2 * W, plan.seqlen, plan.total_steps),
                 "[titan] %s - root - INFO - Training starts at step %d." % (ttn(plan.t_train0), plan.start_step + 1)]
        for i, ln in enumerate(lines):
            E(0, t + i * 0.4, "[rank0]:" + ln)
    elif fw == "deepspeed":
        for rk in run.ranks:
            if rk.local == 0 or W <= 16:
                tt = plan.t_init - 3 + rng.uniform(0, 1)
                E(rk.r, tt, "[%s] [INFO] [real_accelerator.py:%d:get_accelerator] Setting ds_accelerator to cuda (auto detect)" % (ts_py(run.e(tt, rk.node)), pickn(run, [203, 219, 222])))
                E(rk.r, tt + 2, "[%s] [INFO] [comm.py:%d:init_distributed] cdb=None" % (ts_py(run.e(tt + 2, rk.node)), pickn(run, [652, 658, 745])))
        E(0, t, "[%s] [INFO] [comm.py:%d:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl" % (ts_py(run.e(t)), pickn(run, [683, 689, 776])))
        v = rng.choice(["0.15.4", "0.16.2", "0.16.4", "0.17.1"])
        run.meta["ds_ver"] = v
        for i, ln in enumerate(["[%s] [INFO] [logging.py:128:log_dist] [Rank 0] DeepSpeed info: version=%s, git-hash=unknown, git-branch=unknown" % (ts_py(run.e(t + 20)), v),
                                "[%s] [INFO] [config.py:733:__init__] Config mesh_device None world_size = %d" % (ts_py(run.e(t + 20)), W),
                                "[%s] [INFO] [logging.py:128:log_dist] [Rank 0] DeepSpeed Flops Profiler Enabled: False" % ts_py(run.e(t + 22)),
                                "[%s] [INFO] [logging.py:128:log_dist] [Rank 0] Creating ZeRO Offload" % ts_py(run.e(t + 23)),
                                "[%s] [INFO] [utils.py:781:see_memory_usage] Stage 3 initialize beginning" % ts_py(run.e(t + 23)),
                                "[%s] [INFO] [utils.py:782:see_memory_usage] MA 13.2 GB         Max_MA 13.2 GB         CA 13.4 GB         Max_CA 13 GB " % ts_py(run.e(t + 23)),
                                "[%s] [INFO] [utils.py:789:see_memory_usage] CPU Virtual Memory:  used = %.2f GB, percent = %.1f%%" % (ts_py(run.e(t + 23)), rng.uniform(100, 600), rng.uniform(8, 40)),
                                "[%s] [INFO] [stage3.py:%d:__init__] Reduce bucket size 500000000" % (ts_py(run.e(t + 24)), pickn(run, [167, 170])),
                                "[%s] [INFO] [logging.py:128:log_dist] [Rank 0] DeepSpeed Final Optimizer = DeepSpeedZeroOptimizer_Stage3" % ts_py(run.e(t + 30))]):
            E(0, t + 20 + i * 0.5, ln)
    elif fw == "hf_trainer":
        for i, ln in enumerate(["***** Running training *****", "  Num examples = %s" % format(plan.gbs * plan.total_steps, ","), "  Num Epochs = 3",
                                "  Instantaneous batch size per device = 4", "  Total train batch size (w. parallel, distributed & accumulation) = %d" % plan.gbs,
                                "  Gradient Accumulation steps = %d" % max(1, plan.gbs // (4 * W)), "  Total optimization steps = %s" % format(plan.total_steps, ","),
                                "  Number of trainable parameters = %s" % format(rng.randint(10 ** 9, 8 * 10 ** 9), ",")]):
            E(0, plan.t_train0 - 2 + i * 0.01, ln, "out")
    elif fw == "lightning":
        for rk in run.ranks:
            E(rk.r, plan.t_init + rk.r * 0.01, "Initializing distributed: GLOBAL_RANK: %d, MEMBER: %d/%d" % (rk.r, rk.r + 1, W), "err")
            E(rk.r, plan.t_init + 5, "LOCAL_RANK: %d - CUDA_VISIBLE_DEVICES: [%s]" % (rk.local, ",".join(str(i) for i in range(run.gpn))), "out")
        E(0, plan.t_init + 1, "----------------------------------------------------------------------------------------------------\ndistributed_backend=nccl\nAll distributed processes registered. Starting with %d processes\n----------------------------------------------------------------------------------------------------\n" % W, "err")
    elif fw == "composer":
        for i, ln in enumerate(["%s: rank0[%d][MainThread]: INFO: composer.trainer.trainer: Run name: %s" % (ts_py(run.e(t)), run.ranks[0].pid, run.meta.get("expname", "exp")),
                                "%s: rank0[%d][MainThread]: INFO: composer.utils.reproducibility: Setting seed to 17" % (ts_py(run.e(t + 1)), run.ranks[0].pid),
                                "%s: rank0[%d][MainThread]: INFO: composer.trainer.trainer: Stepping schedulers every batch. To step schedulers every epoch, set `step_schedulers_every_batch=False`." % (ts_py(run.e(t + 30)), run.ranks[0].pid),
                                "%s: rank0[%d][MainThread]: INFO: composer.trainer.trainer: Using precision Precision.AMP_BF16" % (ts_py(run.e(t + 30)), run.ranks[0].pid),
                                "******************************", "Config:", "enabled_algorithms/GradientClipping: true", "node_name: unknown because NODENAME environment variable not set",
                                "num_gpus_per_node: %d" % run.gpn, "num_nodes: %d" % nnodes, "rank_zero_seed: 17", "******************************"]):
            E(0, t + i * 0.2, ln)
    else:  # plain
        E(0, t, "%s | INFO | train | world_size=%d nodes=%d gpus_per_node=%d backend=nccl" % (ts_sec(run.e(t)), W, nnodes, run.gpn))
        E(0, t + 1, "%s | INFO | train | model params: %.2fB, dtype=bfloat16, fsdp=%s" % (ts_sec(run.e(t + 1)), rng.uniform(0.3, 13), rng.choice(["FULL_SHARD", "HYBRID_SHARD", "SHARD_GRAD_OP"])))
    if run.meta.get("wandb") and fw not in ("composer",):
        wandb_lines(run, 0, plan.t_train0 - 10, run.meta.get("expname", "exp"), hexid(rng, 8))


def step_line(run: Run, fw: str, plan: Plan, step: int, t: float, it_ms: float, skipped: int = 0, nan: int = 0) -> tuple:
    """Return (rank, stream, text) for one logged step."""
    rng = run.rng
    W = run.world
    loss = loss_at(step, rng)
    lr = lr_at(plan, step)
    gn = rng.uniform(0.15, 0.6) if step > 500 else rng.uniform(0.8, 4.0)
    tflops = plan.tflops * (plan.dt * 1000 / it_ms)
    node0 = run.ranks[0].node
    if fw == "megatron":
        r = W - 1
        txt = (" [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | throughput per GPU (TFLOP/s/GPU): %.1f | "
               "learning rate: %.6E | global batch size: %5d | lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f | number of skipped iterations: %3d | number of nan iterations: %3d |"
               % (ts_sec(run.e(t, run.ranks[r].node)), step, plan.total_steps, step * plan.gbs, it_ms, tflops, lr, plan.gbs, loss, gn, skipped, nan))
        return (r, "out", txt)
    if fw == "nemo2":
        r = W - 1 if run.meta.get("pp", 1) > 1 else 0
        txt = ("Training epoch 0, iteration %d/%d | lr: %.4g | global_batch_size: %d | global_step: %d | reduced_train_loss: %.4f | train_step_timing in s: %.3f | consumed_samples: %d"
               % (step, plan.total_steps - 1, lr, plan.gbs, step, loss, it_ms / 1000.0, (step + 1) * plan.gbs))
        return (r, "out", txt)
    if fw == "torchtitan":
        mem = run.meta.setdefault("tt_mem", rng.uniform(40, 70)) + rng.uniform(-0.02, 0.02)
        tps = int(plan.seqlen * 2 / (it_ms / 1000.0))
        if run.meta.get("ansi"):
            txt = ("[rank0]:[titan] %s - root - INFO - \x1b[31mstep: %2d  \x1b[32mloss: %7.4f  \x1b[38;2;180;60;0mgrad_norm: %7.4f  \x1b[33mmemory: %5.2fGiB(%.2f%%)  \x1b[34mtps: %s  \x1b[36mtflops: %.2f  \x1b[35mmfu: %.2f%%\x1b[39m"
                   % (ts_py(run.e(t, node0)), step, loss, gn, mem, mem / 79.11 * 100, format(tps, ","), tflops, tflops / 989 * 100))
        else:
            txt = ("[rank0]:[titan] %s - root - INFO - step: %2d  loss: %7.4f  grad_norm: %7.4f  memory: %5.2fGiB(%.2f%%)  tps: %s  tflops: %.2f  mfu: %.2f%%"
                   % (ts_py(run.e(t, node0)), step, loss, gn, mem, mem / 79.11 * 100, format(tps, ","), tflops, tflops / 989 * 100))
        return (0, "out", txt)
    if fw == "deepspeed":
        if step % (plan.log_interval * 2) == 0:
            txt = ("[%s] [INFO] [logging.py:128:log_dist] [Rank 0] step=%d, skipped=%d, lr=[%.6e], mom=[[0.9, 0.95]]"
                   % (ts_py(run.e(t, node0)), step, skipped, lr))
        else:
            txt = ("[%s] [INFO] [timer.py:264:stop] epoch=0/micro_step=%d/global_step=%d, RunningAvgSamplesPerSec=%.2f, CurrSamplesPerSec=%.2f, MemAllocated=%.2fGB, MaxMemAllocated=%.2fGB"
                   % (ts_py(run.e(t, node0)), step * 4, step, plan.gbs / (plan.dt), plan.gbs / (it_ms / 1000.0), rng.uniform(14, 30), rng.uniform(40, 72)))
        return (0, "out", txt)
    if fw == "hf_trainer":
        txt = "{'loss': %.4f, 'grad_norm': %.6f, 'learning_rate': %.4e, 'epoch': %.2f}" % (loss, gn, lr, step / max(1, plan.total_steps / 3))
        return (0, "out", txt)
    if fw == "lightning":
        pct = 100.0 * step / plan.total_steps
        txt = "Epoch 0: %3d%%|%s| %d/%d [%s<%s, %.2fit/s, v_num=%d, train_loss=%.3f]" % (
            int(pct), _bar(pct), step, plan.total_steps, _hms((t - plan.t_train0)), _hms((plan.total_steps - step) * plan.dt), 1000.0 / it_ms, run.idx % 7, loss)
        return (0, "err", "\r" + txt)
    if fw == "composer":
        txt = ("[batch=%d/%d]:\n\t Train time/batch: %d\n\t Train time/sample: %d\n\t Train time/batch_in_epoch: %d\n\t Train loss/train/total: %.4f\n"
               "\t Train metrics/train/LanguageCrossEntropy: %.4f\n\t Train throughput/batches_per_sec: %.4f\n\t Train lr-DecoupledAdamW/group0: %.4e"
               % (step, plan.total_steps, step - 1, (step - 1) * plan.gbs, step - 1, loss, loss, 1000.0 / it_ms, lr))
        return (0, "out", txt)
    txt = "%s | INFO | train | step %d | loss %.4f | lr %.2e | grad_norm %.3f | %.2f s/it | %d tok/s/gpu" % (
        ts_sec(run.e(t, node0)), step, loss, lr, gn, it_ms / 1000.0, int(plan.seqlen * plan.gbs / W / (it_ms / 1000.0)))
    return (0, "out", txt)


def _bar(pct: float) -> str:
    n = int(pct / 10)
    return ("█" * n + " " * (10 - n))[:10]


def _hms(s: float) -> str:
    s = int(max(0, s))
    h, m, x = s // 3600, (s // 60) % 60, s % 60
    return "%d:%02d:%02d" % (h, m, x) if h else "%02d:%02d" % (m, x)


def checkpoint_lines(run: Run, fw: str, plan: Plan, step: int, t: float):
    rng = run.rng
    node0 = run.ranks[0].node
    if fw == "megatron":
        run.emit(0, t, "saving checkpoint at iteration %7d to /lustre/fsw/%s/checkpoints in torch_dist format" % (step, run.meta.get("user", "user")), "out")
        run.emit(0, t + plan.ckpt_pause, "  successfully saved checkpoint from iteration %7d to /lustre/fsw/%s/checkpoints [ t 1/%d, p 1/%d ]" % (step, run.meta.get("user", "user"), run.meta.get("tp", 1), run.meta.get("pp", 1)), "out")
        run.emit(0, t + plan.ckpt_pause + 0.1, "(min, max) time across ranks (ms):\n    save-checkpoint ................................: (%.2f, %.2f)" % (plan.ckpt_pause * 1000 - rng.uniform(5, 90), plan.ckpt_pause * 1000), "out")
    elif fw == "torchtitan":
        run.emit(0, t, "[rank0]:[titan] %s - root - INFO - Saving the checkpoint (or staging if async is enabled)." % ts_py(run.e(t, node0)), "out")
        run.emit(0, t + plan.ckpt_pause, "[rank0]:[titan] %s - root - INFO - [GC] GC collection invoked by checkpointer. 0.04 seconds." % ts_py(run.e(t + plan.ckpt_pause, node0)), "out")
        run.emit(0, t + plan.ckpt_pause, "[rank0]:[titan] %s - root - INFO - Finished saving the checkpoint (or staging if async is enabled)in %.2f seconds." % (ts_py(run.e(t + plan.ckpt_pause, node0)), plan.ckpt_pause), "out")
    elif fw == "deepspeed":
        run.emit(0, t, "[%s] [INFO] [logging.py:128:log_dist] [Rank 0] [Torch] Checkpoint global_step%d is about to be saved!" % (ts_py(run.e(t, node0)), step), "out")
        run.emit(0, t + plan.ckpt_pause, "[%s] [INFO] [torch_checkpoint_engine.py:%d:commit] [Torch] Checkpoint global_step%d is ready now!" % (ts_py(run.e(t + plan.ckpt_pause, node0)), rng.choice([33, 39]), step), "out")
    elif fw == "nemo2":
        run.emit(0, t + plan.ckpt_pause, "[NeMo I %s nemo_logging:393] Global Checkpoint Save : Rank: 0 : Iteration: %d : Start time: %.3fs : Save duration: %.3fs" % (ts_sec(run.e(t + plan.ckpt_pause, node0)), step, run.e(t), plan.ckpt_pause), "out")
    elif fw == "plain":
        run.emit(0, t + plan.ckpt_pause, "%s | INFO | ckpt | saved checkpoint step_%d to s3://%s-ckpt/%s/ in %.1fs" % (ts_sec(run.e(t + plan.ckpt_pause, node0)), step, run.meta.get("user", "user"), run.meta.get("expname", "exp"), plan.ckpt_pause), "out")


def run_normal(run: Run, fw: str, plan: Plan, t_end: float, nnodes: int, completed: bool = False, max_lines: int = 4000):
    """Emit normal training output from t_train0 to t_end."""
    rng = run.rng
    s_end = plan.step_at(t_end)
    n = s_end - plan.start_step
    li = plan.log_interval
    # keep volume bounded unless the run asks for a huge log (then it will be rotated/gzipped)
    while n // li > max_lines:
        li *= 2 if li < 10 else 5
    run.meta["eff_log_interval"] = li
    skipped = 0
    nans = 0
    last_ckpt = None
    for step in range(plan.start_step + li - (plan.start_step % li), s_end + 1, li):
        t = plan.t_of(step)
        slow = max(plan.slow_ranks.values()) if (plan.slow_ranks and plan.slow_from is not None and t >= plan.slow_from) else 1.0
        it_ms = plan.dt * 1000 * slow * rng.uniform(0.97, 1.04)
        if step in plan.nan_skips:
            skipped += 1
            nans += 1 if fw == "megatron" else 0
        r, st, txt = step_line(run, fw, plan, step, t, it_ms, skipped, nans)
        run.emit(r, t, txt, st)
        if run.meta.get("ansi_noise") and step % (li * 7) == 0 and fw == "hf_trainer":
            pct = 100.0 * step / plan.total_steps
            run.emit(0, t + 0.01, "\r %3d%%|%s| %d/%d [%s<%s, %.2fs/it]" % (int(pct), _bar(pct), step, plan.total_steps, _hms(t - plan.t_train0), _hms((plan.total_steps - step) * plan.dt), it_ms / 1000), "err")
        if step and step % plan.ckpt_interval < li and step != plan.start_step and fw in ("megatron", "torchtitan", "deepspeed", "nemo2", "plain"):
            ck = step - step % plan.ckpt_interval
            if ck != last_ckpt and ck > plan.start_step:
                last_ckpt = ck
                checkpoint_lines(run, fw, plan, ck, plan.t_of(ck))
    run.meta["last_logged_step"] = s_end
    return s_end


def megatron_straggler_report(run: Run, plan: Plan, t_end: float, slow_rank: int, factor: float, clock_low: int):
    """Megatron --log-straggler lines (rank 0) naming the min/max ranks."""
    rng = run.rng
    W = run.world
    li = max(plan.log_interval, 10)
    s0 = plan.start_step + li
    s_end = plan.step_at(t_end)
    step = s0
    cnt = 0
    while step <= s_end and cnt < 3000:
        t = plan.t_of(step) + 0.02
        slow_now = plan.slow_from is not None and t >= plan.slow_from
        base = plan.dt * 1000 * 0.93
        fast_r = rng.randrange(W)
        mn = base * rng.uniform(0.97, 1.0)
        if slow_now:
            mx, mxr = base * factor * rng.uniform(0.98, 1.03), slow_rank
            clk_min, clk_r = clock_low + rng.randint(-15, 15), slow_rank
            tmp_max, tmp_r = rng.randint(84, 91), slow_rank
            et_min, et_min_r = plan.tflops / factor, slow_rank
        else:
            mxr = rng.randrange(W)
            mx = base * rng.uniform(1.0, 1.05)
            clk_min, clk_r = 1980 - rng.choice([0, 15, 30]), rng.randrange(W)
            tmp_max, tmp_r = rng.randint(58, 70), rng.randrange(W)
            et_min, et_min_r = plan.tflops * rng.uniform(0.96, 0.99), mxr
        line = ("[%s] | MnRtt/Rnk: %.2fms/%d | MxRtt/Rnk: %.2fms/%d | MnPwr/Rnk: %.2fW/%d | MxPwr/Rnk: %.2fW/%d | MnTmp/Rnk: %.2fC/%d | MxTmp/Rnk: %.2fC/%d | "
                "MnUtl/Rnk: %.2f%%/%d | MxUtl/Rnk: %.2f%%/%d | MnClk/Rnk: %.2fMHz/%d | MxClk/Rnk: %.2fMHz/%d | MnDRtt/Rnk: %.2fms/%d | MxDRtt/Rnk: %.2fms/%d | MnEtpt/Rnk: %.2fTF/%d | MxEtpt/Rnk: %.2fTF/%d"
                % (ts_sec(run.e(t, run.ranks[0].node)), mn, fast_r, mx, mxr, rng.uniform(450, 560), rng.randrange(W), rng.uniform(650, 700), rng.randrange(W),
                   rng.randint(38, 50), rng.randrange(W), tmp_max, tmp_r, rng.uniform(60, 95), rng.randrange(W), 100.0, rng.randrange(W),
                   clk_min, clk_r, 1980.0, rng.randrange(W), rng.uniform(1, 5), rng.randrange(W), rng.uniform(20, 140), rng.randrange(W),
                   et_min, et_min_r, plan.tflops * rng.uniform(1.0, 1.02), fast_r))
        run.emit(0, t, "INFO:megatron.core.utils:" + line, "err")
        step += li
        cnt += 1
