"""Trainer log formats (Megatron-LM, DeepSpeed, HF Trainer, torchtitan, Composer, MMEngine,
fairseq, timm, NeMo/Lightning, plain).  Each trainer writes start-up output, periodic
step lines, evaluations and checkpoint saves into the Job's rank streams."""
import math

from b7_core import ts_py, ts_plain, ts_mm, hms_dur

ANSI = {"red": "\x1b[31m", "green": "\x1b[32m", "yellow": "\x1b[33m", "blue": "\x1b[34m", "magenta": "\x1b[35m",
        "cyan": "\x1b[36m", "reset": "\x1b[39m", "bold": "\x1b[1m", "r0": "\x1b[0m"}


def fmt_int(n):
    return "{:,}".format(int(n))


class Trainer:
    name = "plain"
    intervals = [1, 5, 10, 20, 50, 100]
    tqdm = False
    per_rank_timing = False

    def __init__(self, job):
        self.job = job
        self.rng = job.rng

    @property
    def m(self):
        return self.job.model

    # ranks whose stdout carries the step lines
    def log_ranks(self):
        return [0]

    def e(self, r, t, text, stream="o"):
        self.job.emit(r, t, text, stream)

    def all_ranks_startup(self, r, t):
        pass

    def startup(self, t):
        return t

    def step(self, s, t, m):
        pass

    def progress(self, s, t, m):
        pass

    def evaluate(self, s, t0, t1, m):
        pass

    def ckpt(self, s, t0, t1):
        pass

    def finish(self, t):
        pass

    def resume_lines(self, r, t, step):
        pass


# =======================================================================================
class Megatron(Trainer):
    name = "megatron"
    intervals = [1, 5, 10, 10, 20, 50]

    def log_ranks(self):
        return [self.job.world - 1]

    def all_ranks_startup(self, r, t):
        j = self.job
        if j.torch_minor >= 4 and self.rng.random() < 0.7:
            self.e(r, t, "%s/torch/utils/checkpoint.py:1399: FutureWarning: `torch.cpu.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cpu', args...)` instead.\n  with device_autocast_ctx, torch.cpu.amp.autocast(**cpu_autocast_kwargs), recompute_context:  # type: ignore[attr-defined]" % j.pylib, "e")

    def args_dump(self):
        m = self.m
        j = self.job
        args = {
            "accumulate_allreduce_grads_in_fp32": True, "adam_beta1": 0.9, "adam_beta2": 0.95, "adam_eps": 1e-08,
            "add_bias_linear": False, "add_position_embedding": False, "add_qkv_bias": False, "async_save": None,
            "attention_dropout": 0.0, "attention_softmax_in_fp32": False, "barrier_with_L1_time": True, "bf16": True,
            "bias_dropout_fusion": True, "bias_swiglu_fusion": True, "calculate_per_token_loss": False,
            "check_for_nan_in_loss_and_grad": True, "ckpt_format": "torch_dist", "clip_grad": 1.0,
            "context_parallel_size": 1, "data_cache_path": m["data_dir"] + "/index-cache",
            "data_parallel_size": m["dp"], "data_path": "['%s']" % m["data_path"], "dataloader_type": "single",
            "distributed_backend": "nccl", "distributed_timeout_minutes": j.pg_timeout // 60, "eval_interval": m["eval_every"],
            "eval_iters": 10, "exit_duration_in_mins": None, "exit_interval": None, "exit_signal_handler": False,
            "ffn_hidden_size": m["ffn"], "fp16": False, "fp8": None, "global_batch_size": m["gbs"],
            "gradient_accumulation_fusion": True, "group_query_attention": True, "hidden_dropout": 0.0,
            "hidden_size": m["hidden"], "init_method_std": 0.008, "kv_channels": 128, "load": m["ckpt_dir"],
            "local_rank": 0, "log_interval": j.log_interval, "log_straggler": j.megatron_straggler, "log_throughput": True,
            "log_timers_to_tensorboard": True, "lr": m["lr"], "lr_decay_iters": m["total"], "lr_decay_style": "cosine",
            "lr_warmup_iters": m["warmup"], "make_vocab_size_divisible_by": 128, "manual_gc": True, "manual_gc_interval": 100,
            "max_position_embeddings": m["seq"], "micro_batch_size": m["mbs"], "min_lr": m["lr"] / 10, "mmap_bin_files": True,
            "norm_epsilon": 1e-05, "normalization": "RMSNorm", "num_attention_heads": m["heads"], "num_layers": m["layers"],
            "num_query_groups": 8, "num_workers": 2, "optimizer": "adam", "overlap_grad_reduce": True,
            "overlap_param_gather": True, "params_dtype": "torch.bfloat16", "pipeline_model_parallel_size": m["pp"],
            "position_embedding_type": "rope", "rank": 0, "recompute_granularity": "selective", "rotary_base": 500000,
            "save": m["ckpt_dir"], "save_interval": m["ckpt_every"], "seed": 1234, "seq_length": m["seq"],
            "sequence_parallel": m["tp"] > 1, "split": "969,30,1", "straggler_minmax_count": 1, "swiglu": True,
            "tensor_model_parallel_size": m["tp"], "tensorboard_dir": m["out_dir"] + "/tensorboard",
            "timing_log_level": j.megatron_timing, "tokenizer_type": "HuggingFaceTokenizer", "train_iters": m["total"],
            "transformer_impl": "transformer_engine", "untie_embeddings_and_output_weights": True,
            "use_distributed_optimizer": True, "use_flash_attn": True, "use_mcore_models": True,
            "weight_decay": 0.1, "world_size": j.world,
        }
        out = ["------------------------ arguments ------------------------"]
        for k in sorted(args):
            out.append("  %s %s %s" % (k, "." * (48 - len(k)), args[k]))
        out.append("-------------------- end of arguments ---------------------")
        return out

    def startup(self, t):
        j, m, rng = self.job, self.m, self.rng
        r = 0
        e = lambda tt, s: self.e(r, tt, s)
        e(t, "using world size: %d, data-parallel size: %d, context-parallel size: 1, hierarchical context-parallel sizes: None, tensor-model-parallel size: %d, encoder-tensor-model-parallel size: 0, pipeline-model-parallel size: %d, encoder-pipeline-model-parallel size: 0"
          % (j.world, m["dp"], m["tp"], m["pp"]))
        e(t, "Number of virtual stages per pipeline stage: None")
        e(t, "using torch.bfloat16 for parameters ...")
        e(t, "\n".join(self.args_dump()))
        e(t + 0.5, "INFO:megatron.core.num_microbatches_calculator:setting number of microbatches to constant %d" % max(1, m["gbs"] // (m["mbs"] * m["dp"])))
        e(t + 0.6, "> building HuggingFaceTokenizer tokenizer ...")
        e(t + 1.9, " > padded vocab (size: 128256) with 0 dummy tokens (new size: 128256)")
        e(t + 1.9, "WARNING:megatron.core.rerun_state_machine:RerunStateMachine initialized in mode RerunMode.DISABLED")
        e(t + 2.0, "> initializing torch distributed ...")
        e(t + 9.0, "> initialized tensor model parallel with size %d" % m["tp"])
        e(t + 9.0, "> initialized pipeline model parallel with size %d" % m["pp"])
        e(t + 9.1, "> setting random seeds to 1234 ...")
        e(t + 9.2, "> compiling dataset index builder ...")
        e(t + 9.2, "make: Entering directory '%s/megatron/core/datasets'" % j.workdir)
        e(t + 9.3, "make: Nothing to be done for 'default'.")
        e(t + 9.3, "make: Leaving directory '%s/megatron/core/datasets'" % j.workdir)
        e(t + 9.3, ">>> done with dataset index builder. Compilation time: 0.%03d seconds" % rng.randint(40, 200))
        e(t + 9.4, "> compiling and loading fused kernels ...")
        t2 = t + 14 + rng.random() * 30
        e(t2, ">>> done with compiling and loading fused kernels. Compilation time: %.3f seconds" % (t2 - t - 9.4))
        e(t2 + 0.1, "time to initialize megatron (seconds): %.3f" % (t2 - t + rng.random() * 20))
        e(t2 + 0.1, "[after megatron is initialized] datetime: %s " % ts_plain(j.clk(0, t2)))
        e(t2 + 0.2, "building GPT model ...")
        t3 = t2 + 8 + rng.random() * 10
        per = m["params"] / (m["tp"] * m["pp"])
        e(t3, " > number of parameters on (tensor, pipeline) model parallel rank (0, 0): %d" % int(per))
        e(t3 + 0.1, "INFO:megatron.core.distributed.distributed_data_parallel:Setting up DistributedDataParallel with config DistributedDataParallelConfig(grad_reduce_in_fp32=True, overlap_grad_reduce=True, overlap_param_gather=True, align_param_gather=False, use_distributed_optimizer=True, num_distributed_optimizer_instances=1, check_for_nan_in_grad=True, bucket_size=%d, average_in_collective=False, fp8_param_gather=False)" % max(40000000, 1000000 * m["dp"]))
        nb = rng.randint(8, 40)
        e(t3 + 0.1, "INFO:megatron.core.distributed.param_and_grad_buffer:Number of buckets for gradient all-reduce / reduce-scatter: %d" % nb)
        lay = m["layers"] // m["pp"]
        for b in range(min(nb, 6)):
            e(t3 + 0.1, "Params for bucket %d (%d elements):" % (b + 1, 40000000 + rng.randint(0, 9000000)))
            L = lay - 1 - b
            for p in ["mlp.linear_fc2.weight", "mlp.linear_fc1.weight", "mlp.linear_fc1.layer_norm_weight", "self_attention.linear_proj.weight",
                      "self_attention.linear_qkv.weight", "self_attention.linear_qkv.layer_norm_weight"]:
                e(t3 + 0.1, "\tmodule.decoder.layers.%d.%s" % (max(L, 0), p))
        e(t3 + 0.2, "INFO:megatron.core.optimizer:Setting up optimizer with config OptimizerConfig(optimizer='adam', lr=%s, min_lr=%s, decoupled_lr=None, decoupled_min_lr=None, weight_decay=0.1, fp16=False, bf16=True, params_dtype=torch.bfloat16, use_precision_aware_optimizer=False, main_grads_dtype=torch.float32, main_params_dtype=torch.float32, exp_avg_dtype=torch.float32, exp_avg_sq_dtype=torch.float32, loss_scale=None, initial_loss_scale=4294967296, min_loss_scale=1.0, loss_scale_window=1000, hysteresis=2, adam_beta1=0.9, adam_beta2=0.95, adam_eps=1e-08, sgd_momentum=0.9, use_distributed_optimizer=True, overlap_param_gather_with_optimizer_step=False, clip_grad=1.0, log_num_zeros_in_grad=False, barrier_with_L1_time=True, timers=<megatron.core.timers.Timers object at 0x7f%010x>, config_logger_dir='')"
          % (m["lr"], m["lr"] / 10, rng.randrange(1 << 36)))
        e(t3 + 0.2, "> learning rate decay style: cosine")
        t4 = t3 + 1
        if j.resume_step:
            e(t4, " loading checkpoint from %s at iteration %d" % (m["ckpt_dir"], j.resume_step))
            t4 += 20 + rng.random() * 90
            e(t4, " checkpoint version 3.0")
            e(t4, "  successfully loaded checkpoint from %s [ t %d/%d, p %d/%d ] at iteration %d" % (m["ckpt_dir"], 1, m["tp"], 1, m["pp"], j.resume_step))
            e(t4, "(min, max) time across ranks (ms):\n    load-checkpoint ................................: (%.2f, %.2f)" % ((t4 - t3) * 1000 - 300, (t4 - t3) * 1000))
        else:
            e(t4, "WARNING: could not find the metadata file %s/latest_checkpointed_iteration.txt" % m["ckpt_dir"])
            e(t4, "    will not load any checkpoints and will start from random")
        e(t4 + 0.1, "[after model, optimizer, and learning rate scheduler are built] datetime: %s " % ts_plain(j.clk(0, t4)))
        e(t4 + 0.1, "> building train, validation, and test datasets ...")
        e(t4 + 0.1, " > datasets target sizes (minimum size):")
        e(t4 + 0.1, "    train:      %d\n    validation: %d\n    test:       %d" % (m["total"] * m["gbs"], (m["total"] // m["eval_every"] + 1) * 10 * m["gbs"], 10 * m["gbs"]))
        e(t4 + 0.2, "INFO:megatron.core.datasets.blended_megatron_dataset_config:Let split_matrix = [(0, 0.969), (0.969, 0.999), (0.999, 1.0)]")
        e(t4 + 0.2, "> building train, validation, and test datasets for GPT ...")
        e(t4 + 0.3, "INFO:megatron.core.datasets.indexed_dataset:Load the _IndexReader from %s.idx" % m["data_path"])
        for s in ["Extract the sequence lengths", "Extract the sequence pointers", "Extract the document indices"]:
            e(t4 + 0.5, "INFO:megatron.core.datasets.indexed_dataset:\t" + s)
        nseq = rng.randint(50000000, 400000000)
        e(t4 + 0.6, "INFO:megatron.core.datasets.indexed_dataset:> total number of sequences: %d" % nseq)
        e(t4 + 0.6, "INFO:megatron.core.datasets.indexed_dataset:> total number of documents: %d" % nseq)
        h = "%032x" % rng.randrange(1 << 128)
        for split in ["train", "valid", "test"]:
            e(t4 + 1, "INFO:megatron.core.datasets.gpt_dataset:Load the GPTDataset %s indices" % split)
            for what in ["document", "sample", "shuffle"]:
                e(t4 + 1, "INFO:megatron.core.datasets.gpt_dataset:\tLoad the %s index from %s-GPTDataset-%s-%s_index.npy" % (what, h, split, what))
            e(t4 + 1.5, "INFO:megatron.core.datasets.gpt_dataset:> total number of samples: %d" % (m["total"] * m["gbs"] // (1 if split == "train" else 90)))
        t5 = t4 + 5 + rng.random() * 20
        e(t5, "> finished creating GPT datasets ...")
        e(t5, "[after dataloaders are built] datetime: %s " % ts_plain(j.clk(0, t5)))
        e(t5, "done with setup ...")
        e(t5, "(min, max) time across ranks (ms):\n    model-and-optimizer-setup ......................: (%.2f, %.2f)\n    train/valid/test-data-iterators-setup ..........: (%.2f, %.2f)"
          % ((t4 - t2) * 1000, (t4 - t2) * 1000 + 40, (t5 - t4) * 1000 - 300, (t5 - t4) * 1000))
        e(t5, "training ...")
        e(t5, "Setting rerun_state_machine.current_iteration to %d..." % j.resume_step)
        e(t5, "[before the start of training step] datetime: %s " % ts_plain(j.clk(0, t5)))
        return t5 + 1

    def step(self, s, t, m):
        j = self.job
        r = self.log_ranks()[0]
        line = (" [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | throughput per GPU (TFLOP/s/GPU): %.1f | learning rate: %.6E | global batch size: %5d | lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f | number of skipped iterations: %3d | number of nan iterations: %3d |"
                % (ts_plain(j.clk(r, t)), s, self.m["total"], s * self.m["gbs"], m["iter_ms"], m["tflops"], m["lr"], self.m["gbs"], m["loss"], m["gnorm"], m["skipped"], m["nan"]))
        self.e(r, t, line)
        if s == j.first_logged_step:
            self.e(r, t, "[Rank %d] (after %d iterations) memory (MB) | allocated: %.1f | max allocated: %.1f | reserved: %.1f | max reserved: %.1f"
                   % (r, s, m["mem"] * 1024 * 0.55, m["mem"] * 1024 * 0.93, m["mem"] * 1024, m["mem"] * 1024))
        if j.megatron_timing and (s // j.log_interval) % 5 == 0:
            it = m["iter_ms"]
            self.e(r, t, "(min, max) time across ranks (ms):\n    forward-backward ...............................: (%.2f, %.2f)\n    forward-compute ................................: (%.2f, %.2f)\n    backward-compute ...............................: (%.2f, %.2f)\n    batch-generator ................................: (%.2f, %.2f)\n    layernorm-grads-all-reduce .....................: (%.2f, %.2f)\n    embedding-grads-all-reduce .....................: (%.2f, %.2f)\n    all-grads-sync .................................: (%.2f, %.2f)\n    params-all-gather ..............................: (%.2f, %.2f)\n    optimizer-copy-to-main-grad ....................: (%.2f, %.2f)\n    optimizer-clip-main-grad .......................: (%.2f, %.2f)\n    optimizer-count-zeros ..........................: (0.00, 0.00)\n    optimizer-inner-step ...........................: (%.2f, %.2f)\n    optimizer-copy-main-to-model-params ............: (%.2f, %.2f)\n    optimizer ......................................: (%.2f, %.2f)"
                   % (it * 0.9, it * 0.91, it * 0.3, it * 0.42, it * 0.45, it * 0.6, 0.8, m["data_ms"] + 1.2, 0.02, 0.03, 0.02, 0.05, 12.3, 14.1, 20.2, 22.4,
                      2.1, 2.3, 4.4, 5.0, 9.0, 9.8, 3.0, 3.3, it * 0.06, it * 0.065))
        if j.megatron_straggler and m.get("strag"):
            sr, sl = m["strag"]
            mn = m["iter_ms"] * 0.93
            mx = m["iter_ms"] * (0.95 + sl * 0.8 if sl > 0 else 0.953)
            fast = m["fast_rank"]
            th = bool(m.get("thermal"))
            R = self.rng
            W = j.world
            self.e(0, t, "INFO:megatron.core.utils:[%s] | MnRtt/Rnk: %.2fms/%d | MxRtt/Rnk: %.2fms/%d | MnPwr/Rnk: %.2fW/%d | MxPwr/Rnk: %.2fW/%d | MnTmp/Rnk: %.2fC/%d | MxTmp/Rnk: %.2fC/%d | MnUtl/Rnk: %.2f%%/%d | MxUtl/Rnk: %.2f%%/%d | MnClk/Rnk: %.2fMHz/%d | MxClk/Rnk: %.2fMHz/%d | MnDRtt/Rnk: %.2fms/%d | MxDRtt/Rnk: %.2fms/%d | MnEtpt/Rnk: %.2fTF/%d | MxEtpt/Rnk: %.2fTF/%d"
                   % (ts_plain(j.clk(0, t)), mn, fast, mx, sr,
                      (420000 + R.random() * 40000) if th else (600000 + R.random() * 30000), sr if th else fast,
                      680000 + R.random() * 20000, (sr + 3) % W,
                      41 + R.random() * 6, fast, (86 + R.random() * 4) if th else (63 + R.random() * 5), sr if th else (fast + 5) % W,
                      88 + R.random() * 5, (sr + 1) % W, 100.0, fast,
                      (1395 + R.random() * 40) if th else (1950 + R.random() * 25), sr if th else (fast + 7) % W, 1980.0, 0,
                      0.9 + R.random(), fast, m["data_ms"] + R.random() * 4, (fast + 9) % W,
                      m["tflops"] * (1 - sl) * 0.97, sr, m["tflops"] * 1.04, fast))

    def evaluate(self, s, t0, t1, m):
        r = self.log_ranks()[0]
        bar = "-" * 114
        self.e(r, t1, "%s\n validation loss at iteration %d | lm loss value: %.6E | lm loss PPL: %.6E | \n%s" % (bar, s, m["vloss"], math.exp(m["vloss"]), bar))

    def ckpt(self, s, t0, t1):
        m = self.m
        self.e(0, t0, "saving checkpoint at iteration %7d to %s in torch_dist format" % (s, m["ckpt_dir"]))
        self.e(0, t1, "  successfully saved checkpoint from iteration %7d to %s [ t %d/%d, p %d/%d ]" % (s, m["ckpt_dir"], 1, m["tp"], 1, m["pp"]))
        self.e(0, t1, "(min, max) time across ranks (ms):\n    save-checkpoint ................................: (%.2f, %.2f)" % ((t1 - t0) * 1000 - 55, (t1 - t0) * 1000))

    def finish(self, t):
        m = self.m
        self.e(0, t, "[after training is done] datetime: %s " % ts_plain(self.job.clk(0, t)))
        self.e(0, t + 1, "saving checkpoint at iteration %7d to %s in torch_dist format" % (m["total"], m["ckpt_dir"]))
        self.e(0, t + 60, "  successfully saved checkpoint from iteration %7d to %s [ t %d/%d, p %d/%d ]" % (m["total"], m["ckpt_dir"], 1, m["tp"], 1, m["pp"]))
        r = self.log_ranks()[0]
        bar = "-" * 114
        self.e(r, t + 80, "%s\n validation loss at the end of training for val data | lm loss value: %.6E | lm loss PPL: %.6E | \n%s" % (bar, self.job.final_vloss, math.exp(self.job.final_vloss), bar))


# =======================================================================================
class DeepSpeed(Trainer):
    name = "deepspeed"
    intervals = [1, 10, 10, 20, 50]

    def ds(self, r, t, src, msg, lvl="INFO"):
        self.e(r, t, "[%s] [%s] [%s] %s" % (ts_py(self.job.clk(r, t)), lvl, src, msg))

    def all_ranks_startup(self, r, t):
        self.ds(r, t, "real_accelerator.py:219:get_accelerator", "Setting ds_accelerator to cuda (auto detect)")
        self.ds(r, t + 2.5, "comm.py:652:init_distributed", "cdb=None")

    def startup(self, t):
        j, m, rng = self.job, self.m, self.rng
        self.ds(0, t + 2.6, "comm.py:683:init_distributed", "Initializing TorchBackend in DeepSpeed with backend nccl")
        t += 30 + rng.random() * 40
        self.ds(0, t, "logging.py:128:log_dist", "[Rank 0] DeepSpeed info: version=%s, git-hash=unknown, git-branch=unknown" % j.ds_ver)
        self.ds(0, t, "config.py:733:__init__", "Config mesh_device None world_size = %d" % j.world)
        self.ds(0, t + 3, "logging.py:128:log_dist", "[Rank 0] DeepSpeed Flops Profiler Enabled: False")
        self.ds(0, t + 3, "logging.py:128:log_dist", "[Rank 0] Using client Optimizer as basic optimizer")
        self.ds(0, t + 3, "logging.py:128:log_dist", "[Rank 0] Removing param_group that has no 'params' in the basic Optimizer")
        self.ds(0, t + 3, "logging.py:128:log_dist", "[Rank 0] DeepSpeed Basic Optimizer = FusedAdam")
        self.ds(0, t + 3, "utils.py:59:is_zero_supported_optimizer", "Checking ZeRO support for optimizer=FusedAdam type=<class 'deepspeed.ops.adam.fused_adam.FusedAdam'>")
        self.ds(0, t + 3, "logging.py:128:log_dist", "[Rank 0] Creating torch.bfloat16 ZeRO stage %d optimizer" % j.zero_stage)
        self.ds(0, t + 3, "stage_1_and_2.py:149:__init__", "Reduce bucket size 500000000")
        self.ds(0, t + 3, "stage_1_and_2.py:150:__init__", "Allgather bucket size 500000000")
        self.ds(0, t + 3, "stage_1_and_2.py:151:__init__", "CPU Offload: False")
        self.ds(0, t + 3, "stage_1_and_2.py:152:__init__", "Round robin gradient partitioning: False")
        t += 20 + rng.random() * 30
        self.ds(0, t, "utils.py:781:see_memory_usage", "Before initializing optimizer states")
        self.ds(0, t, "utils.py:782:see_memory_usage", "MA %.2f GB         Max_MA %.2f GB         CA %.2f GB         Max_CA %d GB " % (m["mem"] * 0.3, m["mem"] * 0.34, m["mem"] * 0.36, int(m["mem"] * 0.4)))
        self.ds(0, t, "utils.py:789:see_memory_usage", "CPU Virtual Memory:  used = %.2f GB, percent = %.1f%%" % (120 + rng.random() * 200, 8 + rng.random() * 20))
        self.ds(0, t + 2, "stage_1_and_2.py:544:__init__", "optimizer state initialized")
        self.ds(0, t + 2, "logging.py:128:log_dist", "[Rank 0] DeepSpeed Final Optimizer = DeepSpeedZeroOptimizer")
        self.ds(0, t + 2, "logging.py:128:log_dist", "[Rank 0] DeepSpeed using configured LR scheduler = WarmupDecayLR")
        self.ds(0, t + 2, "logging.py:128:log_dist", "[Rank 0] DeepSpeed LR Scheduler = <deepspeed.runtime.lr_schedules.WarmupDecayLR object at 0x7f%010x>" % rng.randrange(1 << 36))
        self.ds(0, t + 2, "logging.py:128:log_dist", "[Rank 0] step=0, skipped=0, lr=[0.0], mom=[(0.9, 0.95)]")
        self.ds(0, t + 2, "config.py:997:print", "DeepSpeedEngine configuration:")
        cfg = [("activation_checkpointing_config", '{\n    "partition_activations": false, \n    "contiguous_memory_optimization": false, \n    "cpu_checkpointing": false, \n    "number_checkpoints": null, \n    "synchronize_checkpoint_boundary": false, \n    "profile": false\n}'),
               ("amp_enabled", "False"), ("amp_params", "False"), ("bfloat16_enabled", "True"), ("checkpoint_parallel_write_pipeline", "False"),
               ("checkpoint_tag_validation_enabled", "True"), ("communication_data_type", "None"), ("dataloader_drop_last", "False"),
               ("disable_allgather", "False"), ("dump_state", "False"), ("elasticity_enabled", "False"), ("fp16_enabled", "False"),
               ("global_rank", "0"), ("grad_accum_dtype", "None"), ("gradient_accumulation_steps", str(m["ga"])),
               ("gradient_clipping", "1.0"), ("gradient_predivide_factor", "1.0"), ("optimizer_name", "adamw"),
               ("optimizer_params", "{'lr': %s, 'betas': [0.9, 0.95], 'eps': 1e-08, 'weight_decay': 0.1}" % m["lr"]),
               ("pipeline", "{'stages': 'auto', 'partition': 'best', 'seed_layers': False, 'activation_checkpoint_interval': 0, 'pipe_partitioned': True, 'grad_partitioned': True}"),
               ("prescale_gradients", "False"), ("scheduler_name", "WarmupDecayLR"),
               ("scheduler_params", "{'warmup_min_lr': 0, 'warmup_max_lr': %s, 'warmup_num_steps': %d, 'total_num_steps': %d}" % (m["lr"], m["warmup"], m["total"])),
               ("steps_per_print", str(j.log_interval)), ("train_batch_size", str(m["gbs"])), ("train_micro_batch_size_per_gpu", str(m["mbs"])),
               ("wall_clock_breakdown", "False"), ("world_size", str(j.world)), ("zero_allow_untested_optimizer", "False"),
               ("zero_config", "stage=%d contiguous_gradients=True reduce_scatter=True reduce_bucket_size=500000000 use_multi_rank_bucket_allreduce=True allgather_partitions=True allgather_bucket_size=500000000 overlap_comm=True load_from_fp32_weights=True elastic_checkpoint=False offload_param=None offload_optimizer=None sub_group_size=1000000000 cpu_offload_param=None cpu_offload_use_pin_memory=None cpu_offload=None prefetch_bucket_size=50000000 param_persistence_threshold=100000 model_persistence_threshold=sys.maxsize max_live_parameters=1000000000 max_reuse_distance=1000000000 gather_16bit_weights_on_model_save=False use_all_reduce_for_fetch_params=False stage3_gather_fp16_weights_on_model_save=False ignore_unused_parameters=True legacy_stage1=False round_robin_gradients=False zero_hpz_partition_size=1 zero_quantized_weights=False zero_quantized_nontrainable_weights=False zero_quantized_gradients=False mics_shard_size=-1 mics_hierarchical_params_gather=False memory_efficient_linear=True pipeline_loading_checkpoint=False override_module_apply=True" % j.zero_stage),
               ("zero_enabled", "True"), ("zero_force_ds_cpu_optimizer", "True"), ("zero_optimization_stage", str(j.zero_stage))]
        for k, v in cfg:
            self.ds(0, t + 2, "config.py:1001:print", "  %s %s %s" % (k, "." * max(1, 29 - len(k)), v))
        self.ds(0, t + 2, "config.py:987:print_user_config", "  json = {\n    \"train_batch_size\": %d, \n    \"train_micro_batch_size_per_gpu\": %d, \n    \"gradient_accumulation_steps\": %d, \n    \"bf16\": {\n        \"enabled\": true\n    }, \n    \"zero_optimization\": {\n        \"stage\": %d, \n        \"overlap_comm\": true\n    }, \n    \"steps_per_print\": %d, \n    \"wall_clock_breakdown\": false\n}" % (m["gbs"], m["mbs"], m["ga"], j.zero_stage, j.log_interval))
        if j.resume_step:
            self.ds(0, t + 3, "torch_checkpoint_engine.py:27:load", "[Torch] Loading checkpoint from %s/global_step%d/mp_rank_00_model_states.pt..." % (m["ckpt_dir"], j.resume_step))
            t += 40 + rng.random() * 60
            self.ds(0, t, "torch_checkpoint_engine.py:29:load", "[Torch] Loaded checkpoint from %s/global_step%d/mp_rank_00_model_states.pt." % (m["ckpt_dir"], j.resume_step))
            self.ds(0, t, "engine.py:3090:_load_zero_checkpoint", "loading %d zero partition checkpoints for rank 0" % j.world)
        return t + 5

    def step(self, s, t, m):
        j = self.job
        self.ds(0, t, "logging.py:128:log_dist", "[Rank 0] step=%d, skipped=%d, lr=[%s], mom=[(0.9, 0.95)]" % (s, m["skipped"], repr(round(m["lr"], 10))))
        sps = self.m["gbs"] / m["step_s"]
        self.ds(0, t, "timer.py:264:stop", "epoch=0/micro_step=%d/global_step=%d, RunningAvgSamplesPerSec=%.10f, CurrSamplesPerSec=%.10f, MemAllocated=%.2fGB, MaxMemAllocated=%.2fGB"
                % (s * self.m["ga"], s, sps * (0.99 + self.rng.random() * 0.01), sps, m["mem"] * 0.6, m["mem"] * 0.93))
        self.e(0, t, "steps: %d loss: %.4f iter time (s): %.3f samples/sec: %.3f" % (s, m["loss"], m["step_s"], sps))
        if m.get("overflow"):
            self.ds(0, t - 0.5, "loss_scaler.py:190:update_scale", "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: %d, reducing to %d" % (m["overflow"], m["overflow"] // 2))

    def ckpt(self, s, t0, t1):
        j, m = self.job, self.m
        d = "%s/global_step%d" % (m["ckpt_dir"], s)
        self.ds(0, t0, "logging.py:128:log_dist", "[Rank 0] Saving model checkpoint: %s/mp_rank_00_model_states.pt" % d)
        self.ds(0, t0, "torch_checkpoint_engine.py:21:save", "[Torch] Saving %s/mp_rank_00_model_states.pt..." % d)
        self.ds(0, t0 + (t1 - t0) * 0.3, "torch_checkpoint_engine.py:23:save", "[Torch] Saved %s/mp_rank_00_model_states.pt." % d)
        for r in range(j.world):
            if j.world > 64 and r % j.gpn:
                continue
            tt = t0 + (t1 - t0) * (0.4 + 0.55 * self.rng.random())
            self.ds(r, tt - 3, "torch_checkpoint_engine.py:21:save", "[Torch] Saving %s/bf16_zero_pp_rank_%d_mp_rank_00_optim_states.pt..." % (d, r))
            self.ds(r, tt, "torch_checkpoint_engine.py:23:save", "[Torch] Saved %s/bf16_zero_pp_rank_%d_mp_rank_00_optim_states.pt." % (d, r))
            self.ds(r, tt, "engine.py:3536:_save_zero_checkpoint", "zero checkpoint saved %s/bf16_zero_pp_rank_%d_mp_rank_00_optim_states.pt" % (d, r))
            self.ds(r, tt + 0.2, "torch_checkpoint_engine.py:33:commit", "[Torch] Checkpoint global_step%d is ready now!" % s)

    def finish(self, t):
        self.e(0, t, "Training finished after %d steps." % self.m["total"])


# =======================================================================================
class HF(Trainer):
    name = "hf"
    intervals = [10, 10, 25, 50]
    tqdm = True

    def all_ranks_startup(self, r, t):
        j = self.job
        self.e(r, t, "%s - WARNING - __main__ - Process rank: %d, device: cuda:%d, n_gpu: 1, distributed training: True, compute dtype: torch.bfloat16"
               % (ts_plain(j.clk(r, t)).replace("-", "/"), r, j.local[r]), "e")
        self.e(r, t + 40, "`use_cache=True` is incompatible with gradient checkpointing. Setting `use_cache=False`.", "e")

    def startup(self, t):
        j, m, rng = self.job, self.m, self.rng
        self.e(0, t, "%s - INFO - __main__ - Training/evaluation parameters TrainingArguments(" % ts_plain(j.clk(0, t)).replace("-", "/"), "e")
        ta = [("_n_gpu", 1), ("accelerator_config", "{'split_batches': False, 'dispatch_batches': None, 'even_batches': True, 'use_seedable_sampler': True, 'non_blocking': False, 'gradient_accumulation_kwargs': None}"),
              ("adam_beta1", 0.9), ("adam_beta2", 0.95), ("adam_epsilon", 1e-08), ("bf16", True), ("dataloader_num_workers", 8),
              ("ddp_timeout", j.pg_timeout), ("deepspeed", None), ("eval_steps", m["eval_every"]), ("eval_strategy", "IntervalStrategy.STEPS"),
              ("fsdp", "[<FSDPOption.FULL_SHARD: 'full_shard'>, <FSDPOption.AUTO_WRAP: 'auto_wrap'>]"), ("gradient_accumulation_steps", m["ga"]),
              ("gradient_checkpointing", True), ("learning_rate", m["lr"]), ("local_rank", 0), ("log_level", "passive"),
              ("logging_dir", m["out_dir"] + "/runs"), ("logging_steps", j.log_interval), ("lr_scheduler_type", "SchedulerType.COSINE"),
              ("max_steps", m["total"]), ("num_train_epochs", 3.0), ("output_dir", m["out_dir"]), ("per_device_train_batch_size", m["mbs"]),
              ("report_to", "['wandb']"), ("run_name", j.run_name), ("save_steps", m["ckpt_every"]), ("save_strategy", "SaveStrategy.STEPS"),
              ("save_total_limit", 3), ("seed", 42), ("warmup_steps", m["warmup"]), ("weight_decay", 0.1)]
        for k, v in ta:
            self.e(0, t, "%s=%s," % (k, v), "e")
        self.e(0, t, ")", "e")
        t += 60 + rng.random() * 200
        self.e(0, t, "***** Running training *****", "e")
        self.e(0, t, "  Num examples = %s" % fmt_int(m["total"] * m["gbs"] // 3), "e")
        self.e(0, t, "  Num Epochs = 3", "e")
        self.e(0, t, "  Instantaneous batch size per device = %d" % m["mbs"], "e")
        self.e(0, t, "  Total train batch size (w. parallel, distributed & accumulation) = %s" % fmt_int(m["gbs"]), "e")
        self.e(0, t, "  Gradient Accumulation steps = %d" % m["ga"], "e")
        self.e(0, t, "  Total optimization steps = %s" % fmt_int(m["total"]), "e")
        self.e(0, t, "  Number of trainable parameters = %s" % fmt_int(m["params"]), "e")
        if j.resume_step:
            self.e(0, t, "  Continuing training from checkpoint, will skip to saved global_step", "e")
            self.e(0, t, "  Continuing training from epoch 0", "e")
            self.e(0, t, "  Continuing training from global step %d" % j.resume_step, "e")
        return t + 1

    def bar(self, s, t, step_s):
        tot = self.m["total"]
        pct = int(100 * s / tot)
        filled = int(10 * s / tot)
        frac = (10 * s / tot) - filled
        part = " ▏▎▍▌▋▊▉"[int(frac * 8)] if filled < 10 else ""
        b = "█" * filled + (part if filled < 10 else "") + " " * max(0, 10 - filled - (1 if filled < 10 else 0))
        el = t - self.job.train_t0
        rem = (tot - s) * step_s
        return "\r%3d%%|%s| %d/%d [%s<%s, %s]" % (pct, b, s, tot, hms_dur(el), hms_dur(rem), ("%.2fs/it" % step_s) if step_s >= 1 else ("%.2fit/s" % (1 / step_s)))

    def progress(self, s, t, m):
        self.e(0, t, self.bar(s, t, m["step_s"]), "e")

    def step(self, s, t, m):
        self.e(0, t + 0.01, "{'loss': %s, 'grad_norm': %s, 'learning_rate': %s, 'epoch': %s}" % (round(m["loss"], 4), round(m["gnorm"], 6), repr(float("%.6g" % m["lr"])), round(3.0 * s / self.m["total"], 2)))

    def evaluate(self, s, t0, t1, m):
        self.e(0, t1, "{'eval_loss': %s, 'eval_runtime': %.4f, 'eval_samples_per_second': %.3f, 'eval_steps_per_second': %.3f, 'epoch': %s}"
               % (round(m["vloss"], 6), t1 - t0, 4096 / (t1 - t0), 64 / (t1 - t0), round(3.0 * s / self.m["total"], 2)))

    def ckpt(self, s, t0, t1):
        d = "%s/checkpoint-%d" % (self.m["out_dir"], s)
        self.e(0, t0, "Saving model checkpoint to %s" % d, "e")
        self.e(0, t0 + 1, "Configuration saved in %s/config.json" % d, "e")
        self.e(0, t0 + 1, "Configuration saved in %s/generation_config.json" % d, "e")
        self.e(0, t1 - 2, "The model is bigger than the maximum size per checkpoint (5GB) and is going to be split in %d checkpoint shards. You can find where each parameters has been saved in the index located at %s/model.safetensors.index.json." % (max(2, int(self.m["params"] / 2.5e9)), d), "e")
        self.e(0, t1, "tokenizer config file saved in %s/tokenizer_config.json" % d, "e")
        self.e(0, t1, "Special tokens file saved in %s/special_tokens_map.json" % d, "e")
        if s > 3 * self.m["ckpt_every"]:
            self.e(0, t1 + 0.5, "Deleting older checkpoint [%s/checkpoint-%d] due to args.save_total_limit" % (self.m["out_dir"], s - 3 * self.m["ckpt_every"]), "e")

    def finish(self, t):
        self.e(0, t, "\n\nTraining completed. Do not forget to share your model on huggingface.co/models =)\n\n", "e")
        el = t - self.job.train_t0
        self.e(0, t, "{'train_runtime': %.4f, 'train_samples_per_second': %.3f, 'train_steps_per_second': %.3f, 'train_loss': %.6f, 'epoch': 3.0}" % (el, self.m["total"] * self.m["gbs"] / el, self.m["total"] / el, self.job.final_vloss + 0.05))


# =======================================================================================
class Titan(Trainer):
    name = "titan"
    intervals = [1, 10, 10, 25, 50]

    def tl(self, r, t, msg, lvl="INFO"):
        self.e(r, t, "[titan] %s - root - %s - %s" % (ts_py(self.job.clk(r, t)), lvl, msg), "e")

    def all_ranks_startup(self, r, t):
        if r == 0 or self.job.world <= 64:
            self.tl(r, t, "Starting job: %s" % self.job.run_name)
            self.tl(r, t + 0.2, "Building %d-D device mesh with ['dp_shard', 'tp'], [%d, %d]" % (2, self.job.world // self.m["tp"], self.m["tp"]))
            self.tl(r, t + 0.3, "[GC] Initial GC collection. 0.00 seconds.")

    def startup(self, t):
        j, m = self.job, self.m
        self.tl(0, t + 1, "Peak FLOPS used for computing MFU: %.3e" % (j.gpu["peak"] * 1e12))
        self.tl(0, t + 1, "Building tiktoken tokenizer locally from ./assets/tokenizer/original/tokenizer.model")
        self.tl(0, t + 1.5, "TikTokenizer built: #words 128256, BOS ID 128000, EOS ID 128001")
        self.tl(0, t + 1.5, "Preparing c4 dataset from %s" % m["data_path"])
        self.tl(0, t + 9, "Building llama3 %s with ModelArgs(dim=%d, n_layers=%d, n_heads=%d, n_kv_heads=8, vocab_size=128256, multiple_of=4096, ffn_dim_multiplier=1.3, norm_eps=1e-05, rope_theta=500000, max_seq_len=%d, depth_init=True, norm_type='rmsnorm')" % (m["name"], m["hidden"], m["layers"], m["heads"], m["seq"]))
        self.e(0, t + 9, "[titan] %s - root - INFO - %sModel llama3 %s %ssize: %s total parameters%s" % (ts_py(j.clk(0, t + 9)), ANSI["blue"], m["name"], ANSI["red"], fmt_int(m["params"]), ANSI["reset"]), "e")
        self.tl(0, t + 10, "Applied Tensor Parallelism to the model")
        self.tl(0, t + 10, "Applied selective activation checkpointing to the model")
        self.tl(0, t + 11, "Applied FSDP to the model")
        self.tl(0, t + 12, "CUDA memory usage for model: %.2fGiB(%.2f%%)" % (m["mem"] * 0.12, m["mem"] * 0.12 / j.gpu["cap_gib"] * 100))
        self.tl(0, t + 12, "Checkpointing active. Checkpoints are loaded from and saved to %s" % m["ckpt_dir"])
        if j.resume_step:
            self.tl(0, t + 13, "Loading the checkpoint at step %d." % j.resume_step)
            self.tl(0, t + 80, "[GC] GC collection for checkpoint loading. 0.09 seconds.")
            self.tl(0, t + 80, "Finished loading the checkpoint in %.2f seconds." % (60 + self.rng.random() * 10))
        self.tl(0, t + 81, "Training starts at step %d, with local batch size %d, global batch size %d, sequence length %d, total steps %d (warmup %d)" % (j.resume_step + 1, m["mbs"], m["gbs"], m["seq"], m["total"], m["warmup"]))
        return t + 82

    def step(self, s, t, m):
        A = ANSI
        self.e(0, t, "[titan] %s - root - INFO - %sstep: %2d  %sloss: %7.4f  %sgrad_norm: %7.4f  %smemory: %5.2fGiB(%.2f%%)  %stps: %s  %stflops: %.2f  %smfu: %.2f%%%s"
               % (ts_py(self.job.clk(0, t)), A["red"], s, A["green"], m["loss"], A["yellow"], m["gnorm"], A["cyan"], m["mem"], m["mem"] / self.job.gpu["cap_gib"] * 100,
                  A["blue"], fmt_int(m["tps_gpu"]), A["magenta"], m["tflops"], A["magenta"], m["mfu"], A["reset"]), "e")
        if s % 1000 < self.job.log_interval:
            self.tl(0, t + 0.05, "[GC] Performing periodical GC collection. 0.%02d seconds." % self.rng.randint(3, 12))

    def ckpt(self, s, t0, t1):
        self.tl(0, t0, "Saving the checkpoint (or staging if async is enabled).")
        self.tl(0, t1 - 0.1, "[GC] GC collection invoked by checkpointer. 0.0%d seconds." % self.rng.randint(1, 9))
        self.tl(0, t1, "Finished saving the checkpoint (or staging if async is enabled)in %.2f seconds." % (t1 - t0))

    def finish(self, t):
        self.tl(0, t, "Sleeping 2 seconds for other ranks to complete")
        self.tl(0, t + 2, "Training completed")


# =======================================================================================
class Composer(Trainer):
    name = "composer"
    intervals = [10, 10, 20, 50]

    def startup(self, t):
        j, m = self.job, self.m
        self.e(0, t, "%s: rank0[%d][MainThread]: INFO: __main__: Building tokenizer..." % (ts_py(j.clk(0, t)), j.pid[0]), "e")
        self.e(0, t + 5, "%s: rank0[%d][MainThread]: INFO: __main__: Initializing model..." % (ts_py(j.clk(0, t + 5)), j.pid[0]), "e")
        self.e(0, t + 20, "%s: rank0[%d][MainThread]: INFO: __main__: Building train loader..." % (ts_py(j.clk(0, t + 20)), j.pid[0]), "e")
        self.e(0, t + 30, "%s: rank0[%d][MainThread]: INFO: __main__: Building trainer..." % (ts_py(j.clk(0, t + 30)), j.pid[0]), "e")
        self.e(0, t + 31, "cfg:\n  max_seq_len: %d\n  global_seed: 17\n  run_name: %s\n  model:\n    name: mpt_causal_lm\n    d_model: %d\n    n_heads: %d\n    n_layers: %d\n  optimizer:\n    name: decoupled_lionw\n    lr: %s\n  max_duration: %dba\n  eval_interval: %dba\n  global_train_batch_size: %d\n  save_interval: %dba\n  save_folder: %s"
               % (m["seq"], j.run_name, m["hidden"], m["heads"], m["layers"], m["lr"], m["total"], m["eval_every"], m["gbs"], m["ckpt_every"], m["ckpt_dir"]))
        self.e(0, t + 60, "%s: rank0[%d][MainThread]: INFO: __main__: Starting training..." % (ts_py(j.clk(0, t + 60)), j.pid[0]), "e")
        self.e(0, t + 60, "******************************\nConfig:\nenabled_algorithms/GradientClipping: true\nnode_name: unknown because NODENAME environment variable not set\nnum_gpus_per_node: %d\nnum_nodes: %d\nrank_zero_seed: 17\n\n******************************" % (j.gpn, len(j.nodes)))
        return t + 61

    def step(self, s, t, m):
        m_ = self.m
        self.e(0, t, "[batch=%d/%d]:\n\t Train time/batch: %d\n\t Train time/sample: %d\n\t Train time/batch_in_epoch: %d\n\t Train time/sample_in_epoch: %d\n\t Train time/token: %d\n\t Train time/token_in_epoch: %d\n\t Train trainer/device_train_microbatch_size: %d\n\t Train loss/train/total: %.4f\n\t Train metrics/train/LanguageCrossEntropy: %.4f\n\t Train metrics/train/LanguagePerplexity: %.4f\n\t Train throughput/batches_per_sec: %.4f\n\t Train throughput/samples_per_sec: %.4f\n\t Train throughput/device/batches_per_sec: %.4f\n\t Train throughput/device/samples_per_sec: %.4f\n\t Train throughput/tokens_per_sec: %.4f\n\t Train throughput/device/tokens_per_sec: %.4f\n\t Train throughput/flops_per_sec: %.4e\n\t Train throughput/device/flops_per_sec: %.4e\n\t Train throughput/device/mfu: %.4f\n\t Train time/train: %.4f\n\t Train time/val: %.4f\n\t Train time/total: %.4f\n\t Train lr-DecoupledLionW/group0: %.4e\n\t Train time/remaining_estimate: %.4f"
               % (s, m_["total"], s - 1, (s - 1) * m_["gbs"], s - 1, (s - 1) * m_["gbs"], (s - 1) * m_["gbs"] * m_["seq"], (s - 1) * m_["gbs"] * m_["seq"], m_["mbs"],
                  m["loss"], m["loss"], math.exp(min(m["loss"], 20)), 1 / m["step_s"], m_["gbs"] / m["step_s"], 1 / m["step_s"] / self.job.world, m_["gbs"] / m["step_s"] / self.job.world,
                  m["tps"], m["tps_gpu"], m["tflops"] * 1e12 * self.job.world, m["tflops"] * 1e12, m["mfu"] / 100, (t - self.job.train_t0) / 3600, 0.02, (t - self.job.train_t0) / 3600 + 0.05, m["lr"], (m_["total"] - s) * m["step_s"] / 3600))

    def evaluate(self, s, t0, t1, m):
        self.e(0, t1, "[Eval batch=%d/%d] Eval on eval data:\n\t Eval metrics/eval/LanguageCrossEntropy: %.4f\n\t Eval metrics/eval/LanguagePerplexity: %.4f\n\t Eval time/eval: %.4f" % (64, 64, m["vloss"], math.exp(m["vloss"]), t1 - t0))

    def ckpt(self, s, t0, t1):
        j = self.job
        self.e(0, t1, "%s: rank0[%d][MainThread]: INFO: composer.callbacks.checkpoint_saver: Saving checkpoint to %s/ep0-ba%d-rank0.pt" % (ts_py(j.clk(0, t1)), j.pid[0], self.m["ckpt_dir"], s), "e")

    def finish(self, t):
        j = self.job
        self.e(0, t, "%s: rank0[%d][MainThread]: INFO: __main__: Done." % (ts_py(j.clk(0, t)), j.pid[0]), "e")


# =======================================================================================
class MMEngine(Trainer):
    name = "mmengine"
    intervals = [10, 20, 50, 50]

    def mm(self, t, msg, lvl="INFO"):
        self.e(0, t, "%s - mmengine - %s - %s" % (ts_mm(self.job.clk(0, t)), lvl, msg))

    def startup(self, t):
        j, m = self.job, self.m
        self.mm(t, "\n------------------------------------------------------------\nSystem environment:\n    sys.platform: linux\n    Python: 3.10.14 (main, May  6 2024, 19:42:50) [GCC 11.2.0]\n    CUDA available: True\n    MUSA available: False\n    numpy_random_seed: 1613729410\n    GPU 0,1,2,3,4,5,6,7: %s\n    CUDA_HOME: /usr/local/cuda\n    NVCC: Cuda compilation tools, release %s, V%s.131\n    GCC: gcc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0\n    PyTorch: %s\n    TorchVision: 0.%d.1\n    OpenCV: 4.10.0\n    MMEngine: 0.10.5\n\nRuntime environment:\n    cudnn_benchmark: True\n    mp_cfg: {'mp_start_method': 'fork', 'opencv_num_threads': 0}\n    dist_cfg: {'backend': 'nccl'}\n    seed: 1613729410\n    Distributed launcher: pytorch\n    Distributed training: True\n    GPU number: %d\n------------------------------------------------------------\n"
                % (j.gpu["name"], j.gpu["cuda"], j.gpu["cuda"], j.torch_ver, 15 + j.torch_minor, j.world))
        cfg = ["Config:", "crop_size = (\n    1024,\n    1024,\n)", "data_preprocessor = dict(\n    bgr_to_rgb=True,\n    mean=[\n        123.675,\n        116.28,\n        103.53,\n    ],\n    pad_val=0,\n    seg_pad_val=255,\n    size=(\n        1024,\n        1024,\n    ),\n    std=[\n        58.395,\n        57.12,\n        57.375,\n    ],\n    type='SegDataPreProcessor')",
               "data_root = '%s'" % m["data_path"], "dataset_type = 'CityscapesDataset'", "default_hooks = dict(\n    checkpoint=dict(by_epoch=False, interval=%d, type='CheckpointHook'),\n    logger=dict(interval=%d, log_metric_by_epoch=False, type='LoggerHook'),\n    param_scheduler=dict(type='ParamSchedulerHook'),\n    sampler_seed=dict(type='DistSamplerSeedHook'),\n    timer=dict(type='IterTimerHook'),\n    visualization=dict(type='SegVisualizationHook'))" % (m["ckpt_every"], j.log_interval),
               "env_cfg = dict(\n    cudnn_benchmark=True,\n    dist_cfg=dict(backend='nccl'),\n    mp_cfg=dict(mp_start_method='fork', opencv_num_threads=0))", "launcher = 'pytorch'", "load_from = None", "log_level = 'INFO'",
               "model = dict(\n    backbone=dict(\n        embed_dims=%d,\n        num_heads=[\n            6,\n            12,\n            24,\n            48,\n        ],\n        type='SwinTransformer'),\n    decode_head=dict(\n        channels=512,\n        num_classes=19,\n        type='UPerHead'),\n    type='EncoderDecoder')" % (m["hidden"] // 32),
               "optim_wrapper = dict(\n    optimizer=dict(betas=(0.9, 0.999), lr=%s, type='AdamW', weight_decay=0.05),\n    type='AmpOptimWrapper')" % m["lr"],
               "train_cfg = dict(max_iters=%d, type='IterBasedTrainLoop', val_interval=%d)" % (m["total"], m["eval_every"]),
               "train_dataloader = dict(\n    batch_size=%d,\n    num_workers=8,\n    persistent_workers=True,\n    sampler=dict(shuffle=True, type='InfiniteSampler'))" % m["mbs"],
               "work_dir = '%s'" % m["out_dir"]]
        self.mm(t + 1, "\n".join(cfg) + "\n")
        self.mm(t + 20, "Hooks will be executed in the following order:\nbefore_run:\n(VERY_HIGH   ) RuntimeInfoHook\n(BELOW_NORMAL) LoggerHook\n --------------------\nafter_train_iter:\n(VERY_HIGH   ) RuntimeInfoHook\n(NORMAL      ) IterTimerHook\n(BELOW_NORMAL) LoggerHook\n(LOW         ) ParamSchedulerHook\n(VERY_LOW    ) CheckpointHook\n --------------------")
        if j.resume_step:
            self.mm(t + 40, "Load checkpoint from %s/iter_%d.pth" % (m["out_dir"], j.resume_step))
            self.mm(t + 41, "resumed epoch: 0, iter: %d" % j.resume_step)
        self.mm(t + 42, "Checkpoints will be saved to %s." % m["out_dir"])
        return t + 43

    def step(self, s, t, m):
        eta = (self.m["total"] - s) * m["step_s"]
        d, rem = divmod(int(eta), 86400)
        etas = ("%d day%s, " % (d, "s" if d > 1 else "") if d else "") + hms_dur(rem) if rem >= 3600 or d else "0:" + hms_dur(rem)
        self.mm(t, "Iter(train) [%*d/%d]  base_lr: %.4e lr: %.4e  eta: %s  time: %.4f  data_time: %.4f  memory: %d  grad_norm: %.4f  loss: %.4f  decode.loss_ce: %.4f  decode.acc_seg: %.4f  aux.loss_ce: %.4f  aux.acc_seg: %.4f"
                % (len(str(self.m["total"])), s, self.m["total"], self.m["lr"], m["lr"], etas, m["step_s"], m["data_ms"] / 1000, int(m["mem"] * 1024 * 0.7), m["gnorm"], m["loss"] * 0.6, m["loss"] * 0.43, 80 + 15 * self.rng.random(), m["loss"] * 0.17, 75 + 15 * self.rng.random()))

    def evaluate(self, s, t0, t1, m):
        for k in (50, 100, 150, 200, 250):
            self.mm(t0 + (t1 - t0) * k / 250, "Iter(val) [%3d/250]    eta: %s  time: %.4f  data_time: %.4f  memory: %d  " % (k, hms_dur((t1 - t0) * (250 - k) / 250), (t1 - t0) / 250, 0.004, 3012))
        self.mm(t1, "per class results:\n\n+---------------+-------+-------+\n|     Class     |  IoU  |  Acc  |\n+---------------+-------+-------+\n|      road     | 98.%02d | 99.%02d |\n|    sidewalk   | 85.%02d | 92.%02d |\n|    building   | 92.%02d | 96.%02d |\n+---------------+-------+-------+"
                % tuple(self.rng.randint(10, 99) for _ in range(6)))
        self.mm(t1, "Iter(val) [250/250]    aAcc: %.4f  mIoU: %.4f  mAcc: %.4f  data_time: 0.0040  time: %.4f" % (96 + self.rng.random(), 78 + self.rng.random() * 3, 85 + self.rng.random() * 3, (t1 - t0) / 250))

    def ckpt(self, s, t0, t1):
        self.mm(t0, "Saving checkpoint at %d iterations" % s)

    def finish(self, t):
        self.mm(t, "Saving checkpoint at %d iterations" % self.m["total"])


# =======================================================================================
class Fairseq(Trainer):
    name = "fairseq"
    intervals = [100, 100, 200]

    def fl(self, r, t, mod, msg):
        self.e(r, t, "%s | INFO | %s | %s" % (ts_plain(self.job.clk(r, t)), mod, msg))

    def all_ranks_startup(self, r, t):
        j = self.job
        self.fl(r, t, "fairseq.distributed.utils", "distributed init (rank %d): tcp://%s:%d" % (r, j.nodes[0].name, j.master_port))
        self.fl(r, t + 3, "fairseq.distributed.utils", "initialized host %s as rank %d" % (j.node(r).name, r))

    def startup(self, t):
        j, m = self.job, self.m
        cfg = ("{'_name': None, 'common': {'_name': None, 'no_progress_bar': True, 'log_interval': %d, 'log_format': 'simple', 'log_file': None, 'aim_repo': None, 'aim_run_hash': None, 'tensorboard_logdir': '%s/tb', 'wandb_project': None, 'azureml_logging': False, 'seed': 1, 'cpu': False, 'tpu': False, 'bf16': False, 'memory_efficient_bf16': False, 'fp16': True, 'memory_efficient_fp16': False, 'fp16_no_flatten_grads': False, 'fp16_init_scale': 128, 'fp16_scale_window': None, 'fp16_scale_tolerance': 0.0, 'on_cpu_convert_precision': False, 'min_loss_scale': 0.0001, 'threshold_loss_scale': None, 'amp': False, 'amp_batch_retries': 2, 'amp_init_scale': 128, 'amp_scale_window': None, 'user_dir': None, 'empty_cache_freq': 0, 'all_gather_list_size': 16384, 'model_parallel_size': 1, 'quantization_config_path': None, 'profile': False, 'reset_logging': False, 'suppress_crashes': False, 'use_plasma_view': False, 'plasma_path': '/tmp/plasma'}, 'distributed_training': {'_name': None, 'distributed_world_size': %d, 'distributed_num_procs': %d, 'distributed_rank': 0, 'distributed_backend': 'nccl', 'distributed_init_method': 'tcp://%s:%d', 'distributed_port': %d, 'device_id': 0, 'distributed_no_spawn': False, 'ddp_backend': 'c10d', 'ddp_comm_hook': 'none', 'bucket_cap_mb': 25, 'fix_batches_to_gpus': False, 'find_unused_parameters': False, 'gradient_as_bucket_view': False, 'fast_stat_sync': False, 'heartbeat_timeout': -1, 'broadcast_buffers': False, 'slowmo_momentum': None, 'slowmo_base_algorithm': 'localsgd', 'localsgd_frequency': 3, 'nprocs_per_node': %d, 'pipeline_model_parallel': False, 'zero_sharding': 'none', 'fp16': True, 'memory_efficient_fp16': False, 'tpu': False, 'no_reshard_after_forward': False, 'fp32_reduce_scatter': False, 'cpu_offload': False, 'use_sharded_state': False, 'not_fsdp_flatten_parameters': False}, 'dataset': {'_name': None, 'num_workers': 4, 'skip_invalid_size_inputs_valid_test': True, 'max_tokens': 4096, 'batch_size': None, 'required_batch_size_multiple': 8, 'data_buffer_size': 10, 'train_subset': 'train', 'valid_subset': 'valid', 'validate_interval': 1, 'validate_interval_updates': %d, 'disable_validation': False, 'max_tokens_valid': 4096, 'num_shards': 1, 'shard_id': 0}, 'optimization': {'_name': None, 'max_epoch': 0, 'max_update': %d, 'stop_time_hours': 0.0, 'clip_norm': 0.0, 'sentence_avg': False, 'update_freq': [%d], 'lr': [%s], 'stop_min_lr': -1.0, 'use_bmuf': False, 'skip_remainder_batch': False}, 'checkpoint': {'_name': None, 'save_dir': '%s', 'restore_file': 'checkpoint_last.pt', 'save_interval': 1, 'save_interval_updates': %d, 'keep_interval_updates': 5, 'keep_last_epochs': -1, 'keep_best_checkpoints': -1, 'no_save': False, 'no_epoch_checkpoints': True, 'no_last_checkpoints': False, 'no_save_optimizer_state': False, 'best_checkpoint_metric': 'loss', 'maximize_best_checkpoint_metric': False, 'patience': -1, 'checkpoint_suffix': '', 'checkpoint_shard_count': 1, 'load_checkpoint_on_all_dp_ranks': False, 'write_checkpoints_asynchronously': False, 'model_parallel_size': 1}, 'task': {'_name': 'masked_lm', 'data': '%s', 'sample_break_mode': 'complete', 'tokens_per_sample': 512, 'mask_prob': 0.15}, 'criterion': {'_name': 'masked_lm', 'tpu': False}, 'optimizer': {'_name': 'adam', 'adam_betas': '(0.9,0.98)', 'adam_eps': 1e-06, 'weight_decay': 0.01, 'use_old_adam': False, 'fp16_adam_stats': False, 'tpu': False, 'lr': [%s]}, 'lr_scheduler': {'_name': 'polynomial_decay', 'warmup_updates': %d, 'force_anneal': None, 'end_learning_rate': 0.0, 'power': 1.0, 'total_num_update': %d, 'lr': [%s]}}"
               % (j.log_interval, m["out_dir"], j.world, j.world, j.nodes[0].name, j.master_port, j.master_port, j.gpn, m["eval_every"], m["total"], m["ga"], m["lr"], m["ckpt_dir"], m["ckpt_every"], m["data_path"], m["lr"], m["warmup"], m["total"], m["lr"]))
        self.fl(0, t, "fairseq_cli.train", cfg)
        self.fl(0, t + 5, "fairseq.tasks.masked_lm", "dictionary: 50264 types")
        self.fl(0, t + 6, "fairseq.data.data_utils", "loaded 3,401 examples from: %s/valid" % m["data_path"])
        self.fl(0, t + 20, "fairseq_cli.train", "RobertaModel(\n  (encoder): RobertaEncoder(\n    (sentence_encoder): TransformerEncoder(\n      (dropout_module): FairseqDropout()\n      (embed_tokens): Embedding(50265, %d, padding_idx=1)\n      (embed_positions): LearnedPositionalEmbedding(514, %d, padding_idx=1)\n      (layers): ModuleList(\n        (0-%d): %d x TransformerEncoderLayerBase(\n          (self_attn): MultiheadAttention(\n            (k_proj): Linear(in_features=%d, out_features=%d, bias=True)\n          )\n        )\n      )\n    )\n  )\n)" % (m["hidden"], m["hidden"], m["layers"] - 1, m["layers"], m["hidden"], m["hidden"]))
        self.fl(0, t + 20, "fairseq_cli.train", "task: MaskedLMTask")
        self.fl(0, t + 20, "fairseq_cli.train", "model: RobertaModel")
        self.fl(0, t + 20, "fairseq_cli.train", "num. shared model params: %s (num. trained: %s)" % (fmt_int(m["params"]), fmt_int(m["params"])))
        self.fl(0, t + 21, "fairseq.trainer", "detected shared parameter: encoder.sentence_encoder.embed_tokens.weight <- encoder.lm_head.weight")
        self.fl(0, t + 22, "fairseq.utils", "***********************CUDA enviroments for all %d workers***********************" % j.world)
        for r in range(min(j.world, 64)):
            self.fl(0, t + 22, "fairseq.utils", "rank %3d: capabilities =  %d.0  ; total memory = %.3f GB ; name = %-27s" % (r, j.gpu["arch"] // 10, j.gpu["cap_gib"], j.gpu["name"]))
        self.fl(0, t + 22, "fairseq.utils", "***********************CUDA enviroments for all %d workers***********************" % j.world)
        self.fl(0, t + 22, "fairseq_cli.train", "training on %d devices (GPUs/TPUs)" % j.world)
        self.fl(0, t + 22, "fairseq_cli.train", "max tokens per device = 4096 and max sentences per device = None")
        if j.resume_step:
            self.fl(0, t + 60, "fairseq.trainer", "Loaded checkpoint %s/checkpoint_last.pt (epoch 3 @ %d updates)" % (m["ckpt_dir"], j.resume_step))
        else:
            self.fl(0, t + 23, "fairseq.trainer", "No existing checkpoint found %s/checkpoint_last.pt" % m["ckpt_dir"])
        self.fl(0, t + 61, "fairseq.trainer", "begin training epoch 1")
        self.fl(0, t + 61, "fairseq_cli.train", "Start iterating over samples")
        return t + 62

    def step(self, s, t, m):
        spe = max(1000, self.m["total"] // 8)
        ep = (s - 1) // spe + 1
        self.fl(0, t, "train_inner", "epoch %03d:  %5d / %d loss=%.3f, nll_loss=%.3f, ppl=%.2f, wps=%d, ups=%.2f, wpb=%d, bsz=%d, num_updates=%d, lr=%.5g, gnorm=%.3f, loss_scale=%d, train_wall=%d, gb_free=%.1f, wall=%d"
                % (ep, (s - 1) % spe + 1, spe, m["loss"] * 1.44, m["loss"] * 1.44, 2 ** (m["loss"] * 1.44), int(m["tps"]), 1 / m["step_s"], int(self.m["gbs"] * 512), self.m["gbs"], s, m["lr"], m["gnorm"], m.get("lscale", 64), int(m["step_s"] * self.job.log_interval), self.job.gpu["cap_gib"] - m["mem"], int(t - self.job.train_t0)))
        if m.get("overflow"):
            self.e(0, t - 1, "%s | INFO | fairseq.trainer | NOTE: gradient overflow detected, ignoring gradient, setting loss scale to: %d" % (ts_plain(self.job.clk(0, t - 1)), m["overflow"] // 2))

    def evaluate(self, s, t0, t1, m):
        self.fl(0, t1, "valid", "epoch %03d | valid on 'valid' subset | loss %.3f | nll_loss %.3f | ppl %.2f | wps %d | wpb %d | bsz %d | num_updates %d" % (1, m["vloss"] * 1.44, m["vloss"] * 1.44, 2 ** (m["vloss"] * 1.44), 210000, 510, 1, s))

    def ckpt(self, s, t0, t1):
        self.fl(0, t1, "fairseq.checkpoint_utils", "Saved checkpoint %s/checkpoint_1_%d.pt (epoch 1 @ %d updates, score %.3f) (writing took %.3f seconds)" % (self.m["ckpt_dir"], s, s, self.job.final_vloss * 1.44, t1 - t0))

    def finish(self, t):
        self.fl(0, t, "fairseq_cli.train", "done training in %.1f seconds" % (t - self.job.train_t0))


# =======================================================================================
class Timm(Trainer):
    name = "timm"
    intervals = [50, 100, 100]

    def all_ranks_startup(self, r, t):
        j = self.job
        self.e(r, t, "Training in distributed mode with multiple processes, 1 device per process.Process %d, total %d, device cuda:%d." % (r, j.world, j.local[r]), "e")

    def startup(self, t):
        j, m = self.job, self.m
        self.e(0, t + 5, "Model vit_large_patch14_clip_224 created, param count:%d" % int(m["params"]), "e")
        self.e(0, t + 5, "Data processing configuration for current model + dataset:\n\tinput_size: (3, 224, 224)\n\tinterpolation: bicubic\n\tmean: (0.48145466, 0.4578275, 0.40821073)\n\tstd: (0.26862954, 0.26130258, 0.27577711)\n\tcrop_pct: 1.0\n\tcrop_mode: center", "e")
        self.e(0, t + 6, "Learning rate (%s) calculated from base learning rate (0.001) and effective global batch size (%d) with linear scaling." % (m["lr"], m["gbs"]), "e")
        self.e(0, t + 7, "Using native Torch AMP. Training in mixed precision.", "e")
        self.e(0, t + 7, "Using native Torch DistributedDataParallel.", "e")
        if j.resume_step:
            self.e(0, t + 30, "Restoring model state from checkpoint...\nRestoring optimizer state from checkpoint...\nRestoring AMP loss scaler state from checkpoint...\nLoaded checkpoint '%s/last.pth.tar' (epoch %d)" % (m["out_dir"], j.resume_step // 1251), "e")
        self.e(0, t + 31, "Scheduled epochs: %d. LR stepped per epoch." % (m["total"] // 1251 + 1), "e")
        return t + 32

    def step(self, s, t, m):
        spe = 1251
        ep = s // spe
        i = s % spe
        bs = self.m["gbs"]
        self.e(0, t, "Train: %d [%4d/%d (%3.0f%%)]  Loss: %.3f (%.3f)  Time: %.3fs, %7.2f/s  (%.3fs, %7.2f/s)  LR: %.3e  Data: %.3f (%.3f)"
               % (ep, i, spe, 100.0 * i / spe, m["loss"], m["loss"] * 1.01, m["step_s"], bs / m["step_s"], m["step_s"] * 1.01, bs / m["step_s"] / 1.01, m["lr"], m["data_ms"] / 1000, m["data_ms"] / 1000 * 1.1), "e")

    def evaluate(self, s, t0, t1, m):
        for k in (0, 20, 40, 48):
            self.e(0, t0 + (t1 - t0) * k / 48, "Test: [%4d/48]  Time: %.3f (%.3f)  Loss:  %.4f (%.4f)  Acc@1: %.4f (%.4f)  Acc@5: %.4f (%.4f)" % (k, 0.3, 0.31, m["vloss"], m["vloss"], 70 + self.rng.random() * 10, 72.1, 90 + self.rng.random() * 5, 91.2), "e")

    def ckpt(self, s, t0, t1):
        self.e(0, t1, "Current checkpoints:\n ('%s/checkpoint-%d.pth.tar', %.5f)\n" % (self.m["out_dir"], s // 1251, 72 + self.rng.random() * 8), "e")

    def finish(self, t):
        self.e(0, t, "*** Best metric: %.5f (epoch %d)" % (80 + self.rng.random() * 3, max(0, self.m["total"] // 1251 - self.rng.randint(0, 3))), "e")


# =======================================================================================
class NeMo(Trainer):
    name = "nemo"
    intervals = [10, 10, 20]
    tqdm = True

    def nl(self, r, t, msg, lvl="I", mod="nemo_logging:393"):
        j = self.job
        s0 = j.seq + 1
        self.e(r, t, "[NeMo %s %s %s] %s" % (lvl, ts_plain(j.clk(r, t)), mod, msg))
        if not hasattr(j, "nemo_seqs"):
            j.nemo_seqs = set()
        j.nemo_seqs.update(range(s0, j.seq + 1))

    def all_ranks_startup(self, r, t):
        j = self.job
        m = self.m
        tp, pp = m["tp"], m["pp"]
        dp_group = list(range(r % (tp * pp), j.world, tp * pp))
        tp_group = list(range(r - r % tp, r - r % tp + tp))
        self.e(r, t, "Initializing distributed: GLOBAL_RANK: %d, MEMBER: %d/%d" % (r, r + 1, j.world), "e")
        short = lambda g: str(g) if len(g) <= 16 else str(g[:16])[:-1] + ", ...]"
        self.nl(r, t + 3, "Rank %d has data parallel group : %s" % (r, short(dp_group)), mod="megatron_init:263")
        self.nl(r, t + 3, "Rank %d has combined group of data parallel and context parallel : %s" % (r, short(dp_group)), mod="megatron_init:269")
        self.nl(r, t + 3, "Rank %d has tensor model parallel group: %s" % (r, tp_group), mod="megatron_init:298")
        self.nl(r, t + 3, "Rank %d has tensor model parallel rank: %d" % (r, r % tp), mod="megatron_init:299")
        self.nl(r, t + 3, "Rank %d has pipeline model parallel group: %s" % (r, short(list(range(r % (j.world // pp), j.world, j.world // pp)))), mod="megatron_init:328")
        self.nl(r, t + 3, "Rank %d has embedding group: %s" % (r, [0, j.world - j.world // pp] if pp > 1 else [r]), mod="megatron_init:340")
        self.nl(r, t + 3, "Rank %d has pipeline model parallel rank %d" % (r, r // (j.world // pp)), mod="megatron_init:346")
        self.e(r, t + 6, "LOCAL_RANK: %d - CUDA_VISIBLE_DEVICES: [%s]" % (j.local[r], ",".join(str(i) for i in range(j.gpn))), "e")

    def startup(self, t):
        j, m = self.job, self.m
        self.nl(0, t, "\n\n************** Experiment configuration ***********")
        self.nl(0, t, "\nname: megatron_gpt\nrestore_from_path: null\ntrainer:\n  devices: %d\n  num_nodes: %d\n  accelerator: gpu\n  precision: bf16-mixed\n  logger: false\n  enable_checkpointing: false\n  use_distributed_sampler: false\n  max_epochs: null\n  max_steps: %d\n  log_every_n_steps: %d\n  val_check_interval: %d\n  limit_val_batches: 32\n  gradient_clip_val: 1.0\nexp_manager:\n  explicit_log_dir: %s\n  exp_dir: null\n  name: megatron_gpt\n  create_checkpoint_callback: true\n  checkpoint_callback_params:\n    monitor: val_loss\n    save_top_k: 3\n    mode: min\n    every_n_train_steps: %d\n  resume_if_exists: true\n  resume_ignore_no_checkpoint: true\nmodel:\n  micro_batch_size: %d\n  global_batch_size: %d\n  tensor_model_parallel_size: %d\n  pipeline_model_parallel_size: %d\n  encoder_seq_length: %d\n  num_layers: %d\n  hidden_size: %d\n  num_attention_heads: %d\n"
                % (j.gpn, len(j.nodes), m["total"], j.log_interval, m["eval_every"], m["out_dir"], m["ckpt_every"], m["mbs"], m["gbs"], m["tp"], m["pp"], m["seq"], m["layers"], m["hidden"], m["heads"]))
        self.nl(0, t + 1, "Experiments will be logged at %s" % m["out_dir"], mod="exp_manager:396")
        self.e(0, t + 2, "GPU available: True (cuda), used: True\nTPU available: False, using: 0 TPU cores\nHPU available: False, using: 0 HPUs", "e")
        self.nl(0, t + 4, "%s/lightning/pytorch/trainer/connectors/logger_connector/result.py:431: It is recommended to use `self.log('global_batch_size', ..., sync_dist=True)` when logging on epoch level in distributed setting to accumulate the metric across devices." % j.pylib, lvl="W", mod="nemo_logging:349")
        self.nl(0, t + 4, "The model: MegatronGPTModel() does not have field.name: virtual_pipeline_model_parallel_size in its cfg. Add this key to cfg or config_mapping to make to make it configurable.", lvl="W", mod="megatron_base_model:1199")
        self.e(0, t + 20, "----------------------------------------------------------------------------------------------------\ndistributed_backend=nccl\nAll distributed processes registered. Starting with %d processes\n----------------------------------------------------------------------------------------------------\n" % j.world, "e")
        self.nl(0, t + 40, "Number of model parameters on device: %.2e. Number of precise model parameters on device: %d." % (m["params"] / (m["tp"] * m["pp"]), int(m["params"] / (m["tp"] * m["pp"]))), mod="megatron_gpt_model:1600")
        if j.resume_step:
            self.nl(0, t + 41, "Resuming training from checkpoint: %s/checkpoints/megatron_gpt--val_loss=%.2f-step=%d-consumed_samples=%.1f-last.ckpt" % (m["out_dir"], j.final_vloss + 0.2, j.resume_step, j.resume_step * m["gbs"] * 1.0), mod="exp_manager:775")
        self.e(0, t + 45, "\n  | Name  | Type     | Params | Mode \n-------------------------------------------\n0 | model | GPTModel | %.1f B  | train\n-------------------------------------------\n%.1f B     Trainable params\n0         Non-trainable params\n%.1f B     Total params\n%.3f Total estimated model params size (MB)\n" % (m["params"] / 1e9 / (m["tp"] * m["pp"]), m["params"] / 1e9 / (m["tp"] * m["pp"]), m["params"] / 1e9 / (m["tp"] * m["pp"]), m["params"] / (m["tp"] * m["pp"]) * 4 / 1e6), "o")
        self.nl(0, t + 50, "Optimizer config = MegatronDistributedFusedAdam (\nParameter Group 0\n    betas: [0.9, 0.95]\n    bias_correction: True\n    eps: 1e-08\n    lr: %s\n    weight_decay: 0.1\n)" % m["lr"], mod="modelPT:748")
        self.nl(0, t + 50, "Scheduler \"<nemo.core.optim.lr_scheduler.CosineAnnealing object at 0x7f%010x>\" \nwill be used during training (effective maximum steps = %d) - \nParameters : \n(warmup_steps: %d\nconstant_steps: 0\nmin_lr: %s\nmax_steps: %d\n)" % (self.rng.randrange(1 << 36), m["total"], m["warmup"], m["lr"] / 10, m["total"]), mod="lr_scheduler:923")
        return t + 55

    def bar(self, s, t, m):
        tot = self.m["total"]
        pct = int(100 * s / tot)
        filled = int(10 * s / tot)
        b = "█" * filled + " " * (10 - filled)
        return "\rEpoch 0: :  %2d%%|%s| %d/%d [%s<%s, reduced_train_loss=%.3f, global_step=%.1f, consumed_samples=%.3e, train_step_timing in s=%.3f]" % (
            pct, b, s, tot, hms_dur(t - self.job.train_t0), hms_dur((tot - s) * m["step_s"]), m["loss"], s - 1, s * self.m["gbs"], m["step_s"])

    def progress(self, s, t, m):
        if s % max(1, self.job.log_interval // 2) == 0:
            self.e(0, t, self.bar(s, t, m), "e")

    def step(self, s, t, m):
        pass

    def evaluate(self, s, t0, t1, m):
        self.e(0, t1, "\rValidation DataLoader 0: 100%%|██████████| 32/32 [00:%02d<00:00,  %.2fit/s]" % (int(t1 - t0) % 60, 32 / (t1 - t0)), "e")
        self.e(0, t1 + 0.1, "Epoch 0, global step %d: 'val_loss' reached %.5f (best %.5f), saving model to '%s/checkpoints/megatron_gpt--val_loss=%.2f-step=%d-consumed_samples=%.1f.ckpt' as top 3"
               % (s - 1, m["vloss"], m["vloss"], self.m["out_dir"], m["vloss"], s - 1, s * self.m["gbs"] * 1.0), "e")

    def ckpt(self, s, t0, t1):
        self.nl(0, t1, "Async finalization time took %.3f s" % (0.01 + self.rng.random() * 0.05), mod="dist_ckpt_io:421")

    def finish(self, t):
        self.e(0, t, "`Trainer.fit` stopped: `max_steps=%d` reached." % self.m["total"], "e")


# =======================================================================================
class Plain(Trainer):
    name = "plain"
    intervals = [1, 5, 10, 20, 50]

    def pl(self, r, t, msg, lvl="INFO"):
        self.e(r, t, "%s %s %s" % (ts_py(self.job.clk(r, t)), lvl, msg))

    def all_ranks_startup(self, r, t):
        j = self.job
        self.pl(r, t, "[rank %d] world_size=%d local_rank=%d device=cuda:%d host=%s" % (r, j.world, j.local[r], j.local[r], j.node(r).name))

    def startup(self, t):
        j, m = self.job, self.m
        self.pl(0, t, "config: model=%s params=%.2fB seq_len=%d global_batch=%d micro_batch=%d lr=%s warmup=%d total_steps=%d" % (m["name"], m["params"] / 1e9, m["seq"], m["gbs"], m["mbs"], m["lr"], m["warmup"], m["total"]))
        self.pl(0, t + 2, "dataset: %s (%d shards)" % (m["data_path"], m["shards"]))
        self.pl(0, t + 30, "model built in 28.1s; FSDP wrapped %d blocks; activation checkpointing: selective" % m["layers"])
        if j.resume_step:
            self.pl(0, t + 31, "resuming from %s/step_%07d" % (m["ckpt_dir"], j.resume_step))
            self.pl(0, t + 95, "restored model/optimizer/dataloader state at step %d" % j.resume_step)
        self.pl(0, t + 96, "compiling model (torch.compile mode=max-autotune-no-cudagraphs) ...")
        self.pl(0, t + 180, "compile finished, starting training loop")
        return t + 181

    def step(self, s, t, m):
        j = self.job
        if getattr(j, "plain_json", None) is None:
            j.plain_json = self.rng.random() < 0.35
        if j.plain_json:
            self.e(0, t, '{"ts": %.3f, "level": "INFO", "rank": 0, "event": "train_step", "step": %d, "loss": %.4f, "lr": %.3e, "grad_norm": %.3f, "step_time_s": %.3f, "tokens_per_s": %d, "mfu": %.3f, "mem_gib": %.1f}'
                   % (j.clk(0, t), s, m["loss"], m["lr"], m["gnorm"], m["step_s"], int(m["tps"]), m["mfu"] / 100, m["mem"]))
            return
        self.pl(0, t, "step %6d | loss %.4f | lr %.3e | grad_norm %.3f | step_time %.3fs | tok/s %s | tflops/gpu %.1f | mfu %.1f%% | mem %.1fGiB"
                % (s, m["loss"], m["lr"], m["gnorm"], m["step_s"], fmt_int(m["tps"]), m["tflops"], m["mfu"], m["mem"]))

    def evaluate(self, s, t0, t1, m):
        self.pl(0, t1, "eval @ step %d | val_loss %.4f | val_ppl %.2f | took %.1fs" % (s, m["vloss"], math.exp(m["vloss"]), t1 - t0))

    def ckpt(self, s, t0, t1):
        self.pl(0, t0, "saving checkpoint to %s/step_%07d ..." % (self.m["ckpt_dir"], s))
        self.pl(0, t1, "checkpoint step_%07d saved in %.1fs" % (s, t1 - t0))

    def finish(self, t):
        self.pl(0, t, "training finished: %d steps" % self.m["total"])


TRAINERS = {c.name: c for c in [Megatron, DeepSpeed, HF, Titan, Composer, MMEngine, Fairseq, Timm, NeMo, Plain]}
