"""Collective-training scenarios (NCCL / RCCL) and the layouts that present them:
megatron-pp-slurm, deepspeed-moe-pdsh, fsdp2-torchrun-tee, rocm-rccl-slurm."""
from b8common import (T, Node, Out, EvList, make_nodes, kernel_render, xid_lines, oom_kill_lines,
                      segfault_kernel, mlx5_down_lines, cuda_rt_error, oom_text, watchdog_timeout,
                      nccl_prefix, nccl_init_lines, ib_completion_warn, dist_backend_error, tb,
                      faulthandler_dump, pyspy_dump, hexid, alnum, PCI_H100, PCI_A100, PCI_MI300,
                      PCI_MI250, IB_PCI, c10_frames, ansi, tqdm_bar)
import b8common as C


# =========================================================================== job model
class Job:
    def __init__(self, rng, nodes, gpn, tp=1, pp=1, ep=1):
        self.rng = rng
        self.nodes = nodes
        self.gpn = gpn
        self.world = len(nodes) * gpn
        self.tp, self.pp = tp, pp
        self.dp = self.world // (tp * pp)
        self.ep = ep
        self.pid = {}
        self.tpid = {}   # launcher (torchrun agent) pid per node
        base = rng.randint(3000, 250000)
        for ni in range(len(nodes)):
            b = base + rng.randint(0, 400) + ni * rng.randint(0, 3)
            self.tpid[ni] = b
            for lr in range(gpn):
                self.pid[ni * gpn + lr] = b + 10 + lr * rng.choice([1, 1, 2, 3]) + lr
        self.ver_nccl = rng.choice(["2.21.5", "2.20.5", "2.23.4", "2.26.2", "2.19.3"])
        self.torch = rng.choice(["2.5", "2.4", "2.6", "2.7", "2.3"])

    def ni(self, r):
        return r // self.gpn

    def lr(self, r):
        return r % self.gpn

    def node(self, r):
        return self.nodes[r // self.gpn]

    def host(self, r):
        return self.node(r).name.split(".")[0]

    def lowest(self, ni):
        return ni * self.gpn

    # Megatron default order tp-cp-ep-dp-pp: rank = tp_rank + tp*(dp_rank + dp*pp_rank)
    def coords(self, r):
        tp_r = r % self.tp
        dp_r = (r // self.tp) % self.dp
        pp_r = r // (self.tp * self.dp)
        return dp_r, pp_r, tp_r

    def rank_of(self, dp_r, pp_r, tp_r):
        return tp_r + self.tp * (dp_r + self.dp * pp_r)


CAUSES_NCCL = ["gpu_hardware", "ecc_memory", "nvlink", "network", "host_oom_kill", "cuda_oom",
               "illegal_memory_access", "python_exception", "crash_signal", "hang",
               "collective_mismatch", "data_loader_stall", "preemption", "straggler"]


class Scn:
    def __init__(self):
        self.ev = {}          # rank -> list of (t, stream, line)
        self.kern = {}        # node idx -> list of (t, text)
        self.exits = {}       # rank -> (t, code)   code>0 exit code, <0 -signal
        self.notes = ""
        self.truth = {}
        self.launcher = []    # (t, kind, data)
        self.extra_files = {}  # path -> lines
        self.t_end = 0
        self.first_fail_rank = None
        self.killed_by = None
        self.slurm_oom_task = None

    def say(self, r, t, line, stream="err"):
        self.ev.setdefault(r, []).append((t, stream, line))

    def say_many(self, r, t, lines, stream="err", dt=0.0001):
        for i, l in enumerate(lines):
            self.say(r, t + i * dt, l, stream)

    def k(self, ni, t, lines, dt=0.0):
        for i, l in enumerate(lines if isinstance(lines, list) else [lines]):
            self.kern.setdefault(ni, []).append((t + i * dt, l))


# --------------------------------------------------------------------------- framework text
def fw_paths(fw, rng):
    if fw == "megatron":
        root = rng.choice(["/workspace/Megatron-LM", "/opt/megatron-lm", "/lustre/fsw/llm/users/jdoe/Megatron-LM"])
    elif fw == "deepspeed":
        root = rng.choice(["/home/ubuntu/moe-train", "/mnt/shared/code/ds_moe", "/workspace/DeepSpeedExamples/training/moe"])
    else:
        root = rng.choice(["/workspace/torchtitan", "/home/user/code/torchtitan", "/app"])
    return root


def train_frames(fw, root, where):
    """Frames for a rank's main thread at 'where': 'step','recv','allreduce','data','ckpt','compile','a2a'."""
    P = C.PY
    if fw == "megatron":
        base = [(root + "/pretrain_gpt.py", 334, "<module>", "pretrain("),
                (root + "/megatron/training/training.py", 391, "pretrain", "iteration, num_floating_point_operations_so_far = train("),
                (root + "/megatron/training/training.py", 1385, "train", "train_step(forward_step_func,"),
                (root + "/megatron/training/training.py", 742, "train_step", "losses_reduced = forward_backward_func(")]
        if where == "recv":
            return base + [(root + "/megatron/core/pipeline_parallel/schedules.py", 1427, "forward_backward_pipelining_without_interleaving", "input_tensor = recv_forward(recv_tensor_shapes, config)"),
                           (root + "/megatron/core/pipeline_parallel/schedules.py", 1228, "recv_forward", "input_tensors.append(p2p_communication.recv_forward(tensor_shape, config))"),
                           (root + "/megatron/core/pipeline_parallel/p2p_communication.py", 377, "recv_forward", "input_tensor, _, _ = _communicate("),
                           (root + "/megatron/core/pipeline_parallel/p2p_communication.py", 347, "_communicate", "req.wait()")]
        if where == "data":
            return base + [(root + "/megatron/core/pipeline_parallel/schedules.py", 1455, "forward_backward_pipelining_without_interleaving", "output_tensor, num_tokens = forward_step("),
                           (root + "/megatron/core/pipeline_parallel/schedules.py", 275, "forward_step", "output_tensor, loss_func = forward_step_func(data_iterator, model)"),
                           (root + "/pretrain_gpt.py", 203, "forward_step", "tokens, labels, loss_mask, attention_mask, position_ids = get_batch("),
                           (root + "/pretrain_gpt.py", 148, "get_batch", "batch = get_batch_on_this_tp_rank(data_iterator)"),
                           (root + "/megatron/training/utils.py", 332, "get_batch_on_this_tp_rank", "data = next(data_iterator)"),
                           (P + "/torch/utils/data/dataloader.py", 701, "__next__", "data = self._next_data()"),
                           (P + "/torch/utils/data/dataloader.py", 757, "_next_data", "data = self._dataset_fetcher.fetch(index)  # may raise StopIteration"),
                           (root + "/megatron/core/datasets/gpt_dataset.py", 207, "__getitem__", "text, document_ids = self._query_document_sample_shuffle_indices(idx)"),
                           (root + "/megatron/core/datasets/indexed_dataset.py", 512, "get", "sequence = self.bin_reader.read(")]
        if where == "allreduce":
            return base + [(root + "/megatron/core/pipeline_parallel/schedules.py", 1530, "forward_backward_pipelining_without_interleaving", "config.finalize_model_grads_func("),
                           (root + "/megatron/core/distributed/finalize_model_grads.py", 236, "finalize_model_grads", "model_chunk.finish_grad_sync()"),
                           (root + "/megatron/core/distributed/param_and_grad_buffer.py", 320, "finish_grad_sync", "self.start_grad_sync()"),
                           (root + "/megatron/core/distributed/param_and_grad_buffer.py", 282, "start_grad_sync", "self.grad_reduce_handle = torch.distributed._reduce_scatter_base(")]
        if where == "ckpt":
            return base[:3] + [(root + "/megatron/training/training.py", 1478, "train", "save_checkpoint_and_time(iteration, model, optimizer,"),
                               (root + "/megatron/training/checkpointing.py", 412, "save_checkpoint", "async_save_request = dist_checkpointing.save(state_dict, checkpoint_name, save_strategy,")]
        return base + [(root + "/megatron/core/pipeline_parallel/schedules.py", 1455, "forward_backward_pipelining_without_interleaving", "output_tensor, num_tokens = forward_step("),
                       (root + "/megatron/core/pipeline_parallel/schedules.py", 275, "forward_step", "output_tensor, loss_func = forward_step_func(data_iterator, model)"),
                       (root + "/pretrain_gpt.py", 228, "forward_step", "output_tensor = model(tokens, position_ids, attention_mask,"),
                       (P + "/torch/nn/modules/module.py", 1736, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
                       (P + "/torch/nn/modules/module.py", 1747, "_call_impl", "return forward_call(*args, **kwargs)"),
                       (root + "/megatron/core/transformer/transformer_block.py", 511, "forward", "hidden_states, context = layer("),
                       (root + "/megatron/core/transformer/transformer_layer.py", 377, "forward", "mlp_output_with_bias = self.mlp(pre_mlp_layernorm_output)")]
    if fw == "deepspeed":
        base = [(root + "/train_moe.py", 412, "<module>", "main()"),
                (root + "/train_moe.py", 377, "main", "loss = train_step(engine, batch)"),
                (root + "/train_moe.py", 298, "train_step", "engine.backward(loss)" if where != "step" else "loss = engine(batch['input_ids'], labels=batch['labels']).loss")]
        if where in ("a2a", "step"):
            return base + [(P + "/deepspeed/utils/nvtx.py", 18, "wrapped_fn", "ret_val = func(*args, **kwargs)"),
                           (P + "/deepspeed/runtime/engine.py", 1899, "forward", "loss = self.module(*inputs, **kwargs)"),
                           (P + "/torch/nn/modules/module.py", 1747, "_call_impl", "return forward_call(*args, **kwargs)"),
                           (P + "/deepspeed/moe/layer.py", 132, "forward", "output = self.deepspeed_moe(hidden_states, used_token)"),
                           (P + "/deepspeed/moe/sharded_moe.py", 586, "forward", "dispatched_input = _AllToAll.apply(self.ep_group, dispatched_input)"),
                           (P + "/deepspeed/moe/sharded_moe.py", 95, "forward", "dist.all_to_all_single(output, input, group=group)"),
                           (P + "/deepspeed/comm/comm.py", 117, "log_wrapper", "return func(*args, **kwargs)"),
                           (P + "/deepspeed/comm/torch.py", 367, "all_to_all_single", "return torch.distributed.all_to_all_single(output=output,")]
        if where == "data":
            return base[:2] + [(root + "/train_moe.py", 361, "main", "batch = next(train_iter)"),
                               (P + "/torch/utils/data/dataloader.py", 701, "__next__", "data = self._next_data()"),
                               (P + "/torch/utils/data/dataloader.py", 1448, "_next_data", "idx, data = self._get_data()"),
                               (P + "/torch/utils/data/dataloader.py", 1402, "_get_data", "success, data = self._try_get_data()"),
                               (P + "/torch/utils/data/dataloader.py", 1256, "_try_get_data", "data = self._data_queue.get(timeout=timeout)")]
        return base + [(P + "/deepspeed/utils/nvtx.py", 18, "wrapped_fn", "ret_val = func(*args, **kwargs)"),
                       (P + "/deepspeed/runtime/engine.py", 2046, "backward", "self.allreduce_gradients()"),
                       (P + "/deepspeed/runtime/engine.py", 1963, "allreduce_gradients", "self.optimizer.overlapping_partition_gradients_reduce_epilogue()"),
                       (P + "/deepspeed/runtime/zero/stage_1_and_2.py", 865, "overlapping_partition_gradients_reduce_epilogue", "self.independent_gradient_partition_epilogue()")]
    # fsdp / torchtitan
    base = [(root + "/torchtitan/train.py", 541, "<module>", "trainer.train()"),
            (P + "/torch/distributed/elastic/multiprocessing/errors/__init__.py", 355, "wrapper", "return f(*args, **kwargs)"),
            (root + "/torchtitan/train.py", 466, "train", "self.train_step(data_iterator)")]
    if where == "data":
        return base + [(root + "/torchtitan/train.py", 398, "train_step", "input_dict, labels = self.next_batch(data_iterator)"),
                       (root + "/torchtitan/train.py", 321, "next_batch", "batch = next(data_iterator)"),
                       (root + "/torchtitan/datasets/hf_datasets.py", 143, "__iter__", "for sample in self._get_data_iter():"),
                       (P + "/datasets/iterable_dataset.py", 2093, "__iter__", "for key, example in ex_iterable:"),
                       (P + "/datasets/packaged_modules/parquet/parquet.py", 95, "_generate_tables", "for batch_idx, record_batch in enumerate("),
                       (P + "/fsspec/implementations/local.py", 377, "read", "return self.f.read(*args, **kwargs)")]
    if where == "ckpt":
        return base + [(root + "/torchtitan/train.py", 486, "train", "self.checkpointer.save("),
                       (root + "/torchtitan/components/checkpoint.py", 489, "save", "self.async_future = dcp.async_save("),
                       (P + "/torch/distributed/checkpoint/state_dict_saver.py", 283, "async_save", "staged_state_dict = storage_writer.stage(state_dict)"),
                       (P + "/torch/distributed/checkpoint/filesystem.py", 672, "stage", "staging_dict = self.state_dict_stager.stage(state_dict)"),
                       (P + "/torch/distributed/checkpoint/staging.py", 201, "stage", "return _copy_state_dict(state_dict, self.cache_staged_state_dict, type_check=self.type_check)")]
    if where == "compile":
        return base + [(root + "/torchtitan/train.py", 405, "train_step", "pred = model_parts[0](inputs)"),
                       (P + "/torch/nn/modules/module.py", 1751, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
                       (P + "/torch/_dynamo/eval_frame.py", 655, "_fn", "return fn(*args, **kwargs)"),
                       (P + "/torch/_dynamo/convert_frame.py", 1432, "__call__", "return self._torchdynamo_orig_callable("),
                       (P + "/torch/_dynamo/output_graph.py", 1548, "call_user_compiler", "raise BackendCompilerFailed(")]
    return base + [(root + "/torchtitan/train.py", 405, "train_step", "pred = model_parts[0](inputs)"),
                   (P + "/torch/nn/modules/module.py", 1751, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
                   (P + "/torch/nn/modules/module.py", 1857, "_call_impl", "args_result = hook(self, args)"),
                   (P + "/torch/distributed/fsdp/_fully_shard/_fsdp_state.py", 230, "_pre_forward", "args, kwargs = self._fsdp_param_group.pre_forward(module, args, kwargs)"),
                   (P + "/torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py", 344, "pre_forward", "self.wait_for_unshard()"),
                   (P + "/torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py", 299, "wait_for_unshard", "foreach_all_gather_copy_out(")]


def py_exception_for(fw, rng):
    """(frames_where, exception lines) for a plain Python bug on one rank."""
    opts = [
        ("step", ["RuntimeError: shape '[4, 4096, 32, 128]' is invalid for input of size 8388608"]),
        ("data", ["KeyError: 'input_ids'"]),
        ("data", ["ValueError: Sequence length 8193 exceeds max_position_embeddings 8192 for sample index 1843311"]),
        ("step", ["AssertionError: expected all tokens to be routed, got 3 dropped in capacity_factor=1.0 bucket"]),
        ("ckpt", ["OSError: [Errno 28] No space left on device"]),
        ("data", ["UnicodeDecodeError: 'utf-8' codec can't decode byte 0xe9 in position 4087: invalid continuation byte"]),
        ("step", ["IndexError: index 128256 is out of bounds for dimension 0 with size 128256"]),
        ("ckpt", ["FileNotFoundError: [Errno 2] No such file or directory: '/checkpoints/run42/iter_0004000/.metadata.tmp'"]),
    ]
    return rng.choice(opts)


# =========================================================================== scenario engine
def nccl_scenario(rng, job, cause, fw, stack, t0, n_steps_ok, step_s, timeout_ms, variant=None):
    """Build per-rank events for a collective training job that fails with `cause` (or None).
    Returns Scn.  stack: cuda|rocm"""
    S = Scn()
    W = job.world
    S.variant = variant
    root = fw_paths(fw, rng)
    S.root = root
    cuda = stack == "cuda"
    comm = rng.choice(["python3", "python", "pt_main_thread"]) if cuda else rng.choice(["python3", "python"])
    S.comm = comm
    # --------------- culprit
    c = rng.randrange(W)
    if cause in ("network",) and len(job.nodes) == 1:
        cause = "nvlink" if cuda else "gpu_hardware"
    if cause in ("host_oom_kill",) and rng.random() < 0.3:
        pass
    S.cause = cause
    # --------------- normal progress
    t_fail = t0 + n_steps_ok * step_s + rng.uniform(0, step_s)
    if cause == "straggler":
        t_fail = t0 + n_steps_ok * step_s * 1.6 + rng.uniform(0, step_s)
    S.t_fail = t_fail
    S.c = c
    node_c = job.ni(c)
    S.timeout_ms = timeout_ms
    pci = job.node(c).pci[job.lr(c)] if job.node(c).pci else "18"
    # NCCL init evidence (busId) is present in some runs
    S.nccl_info = rng.random() < 0.45
    if S.nccl_info:
        for r in range(W):
            nd = job.node(r)
            lines = nccl_init_lines(rng, nd.name, job.pid[r], job.lr(r), r, W, len(job.nodes), job.gpn,
                                    nd.pci[job.lr(r)] if nd.pci else "18", job.ver_nccl)
            S.say_many(r, t0 - rng.uniform(20, 40), lines, "out")
    # collective context
    seq = rng.randint(800, 60000)
    if fw == "deepspeed":
        op, numel = rng.choice([("ALLTOALL_BASE", rng.choice([16777216, 33554432, 8388608])), ("ALLREDUCE", rng.choice([50331648, 25165824]))])
    elif fw == "megatron":
        op, numel = rng.choice([("ALLREDUCE", rng.choice([33554432, 16777216])), ("_REDUCE_SCATTER_BASE", 201326592), ("ALLGATHER", 1)])
    else:
        op, numel = rng.choice([("_ALLGATHER_BASE", rng.choice([117440512, 58720256, 234881024])), ("_REDUCE_SCATTER_BASE", rng.choice([469762048, 234881024]))])
    S.op, S.numel, S.seq = op, numel, seq
    tr = {"cause": cause, "healthy": cause is None, "rank": None, "node": None, "drain": False,
          "rank_inferable": True, "node_aliases": []}
    S.truth = tr
    if cause is None:
        S.t_end = t0 + (n_steps_ok + 3) * step_s
        return S

    def set_node(ni):
        tr["node"] = job.nodes[ni].name
        tr["node_aliases"] = job.nodes[ni].aliases

    def victims_timeout(tv, exclude, group="default_pg", pgid="0", opx=None, nx=None, only=None, ver=None):
        """All ranks (or 'only') except 'exclude' time out in a collective at ~tv."""
        targets = only if only is not None else [r for r in range(W) if r not in exclude]
        for r in targets:
            tt = tv + rng.uniform(0, 2.5)
            lines = watchdog_timeout(rng, r if group == "default_pg" else grp_rank(r), tt, seq, opx or op, nx or numel, timeout_ms,
                                     pg=pgid, pgname=group, prefix=True, ver=job.torch)
            if group != "default_pg":
                lines = [l.replace("[rank%d]:" % grp_rank(r), "[rank%d]:" % r, 1) for l in lines]
            S.say_many(r, tt, lines)
            S.exits[r] = (tt + rng.uniform(0.2, 3), -6)

    def grp_rank(r):
        return r

    def remote_errors(tv, exclude, detail_fn, only=None):
        targets = only if only is not None else [r for r in range(W) if r not in exclude]
        for r in targets:
            tt = tv + rng.uniform(0.05, 4)
            nd = job.node(r)
            lines = [nccl_prefix(nd.name, job.pid[r], job.pid[r] + rng.randint(100, 900), job.lr(r)) + " NCCL INFO [Service thread] Connection closed by localRank %d" % rng.randrange(job.gpn)]
            frames = train_frames(fw, root, "allreduce" if fw != "deepspeed" else "a2a")
            lines += tb(frames, ["  " + "work = group.allreduce([tensor], opts)" if False else ""][:0] + dist_backend_error(rng, "remote", detail_fn(r), job.ver_nccl))
            S.say_many(r, tt, lines)
            S.exits[r] = (tt + rng.uniform(0.1, 1.5), 1)

    busy_where = "a2a" if fw == "deepspeed" else "step"
    pid_c = job.pid[c]
    host_c = job.host(c)

    # ------------------------------------------------------------------ causes
    if cause == "gpu_hardware":
        xid = rng.choice([79, 79, 119, 154, 62]) if cuda else None
        tr.update(rank=c, drain=True)
        set_node(node_c)
        if cuda:
            kl = xid_lines(rng, pci, xid, pid_c, comm, job.lr(c))
            if xid == 62:
                kl += xid_lines(rng, pci, 45, pid_c, comm)
            S.k(node_c, t_fail, kl, 0.001)
            loud = rng.random() < 0.55
            if loud:
                msg = rng.choice(["unspecified launch failure", "unknown error", "the launch timed out and was terminated"])
                lines = [nccl_prefix(host_c, pid_c, pid_c + 211, job.lr(c)) + " NCCL WARN Cuda failure %s '%s'" % ({"unspecified launch failure": "719", "unknown error": "999", "the launch timed out and was terminated": "702"}[msg], msg)]
                lines += ["[rank%d]:[%s ProcessGroupNCCL.cpp:1595] [PG ID 0 PG GUID 0(default_pg) Rank %d] Process group watchdog thread terminated with exception: CUDA error: %s" % (c, T.c10d(t_fail + 1.2), c, msg)] + C.CUDA_ASYNC
                lines += ["", "Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):"] + c10_frames(rng)
                lines += ["terminate called after throwing an instance of 'c10::DistBackendError'", "  what():  [PG ID 0 PG GUID 0(default_pg) Rank %d] Process group watchdog thread terminated with exception: CUDA error: %s" % (c, msg)]
                S.say_many(c, t_fail + 1.1, lines)
                S.exits[c] = (t_fail + 2.5, -6)
                remote_errors(t_fail + 3, [c] + [r for r in range(W) if job.ni(r) == node_c], lambda r: "NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:%s remoteGids::ffff:%s hca mlx5_%d" % (job.nodes[node_c].ip, rng.randint(30000, 60000), job.node(r).ip, job.nodes[node_c].ip, job.lr(r)))
                S.notes = "Xid %d on GPU %d (PCI %s) of %s; rank %d aborted with a CUDA error, peers saw NCCL remote errors." % (xid, job.lr(c), pci, host_c, c)
            else:
                # silent: process stuck in the driver, everyone else times out
                tr["rank_inferable"] = S.nccl_info
                victims_timeout(t_fail + timeout_ms / 1000.0, [c])
                S.notes = "Xid %d on GPU %d (PCI 0000:%s:00) of %s, rank %d hung silently in the driver; all other ranks hit the NCCL watchdog timeout%s." % (xid, job.lr(c), pci, host_c, c, "" if S.nccl_info else " (no busId->rank mapping in the logs)")
        else:
            # ROCm: amdgpu ring timeout / GPU reset
            S.k(node_c, t_fail, amd_reset_lines(rng, job, c, comm), 0.01)
            if rng.random() < 0.6:
                S.say_many(c, t_fail + 3, ["HW Exception by GPU node-%d (Agent handle: 0x%s) reason :GPU Hang" % (job.lr(c) + 2, hexid(rng, 12))])
                S.exits[c] = (t_fail + 3.5, -6)
                remote_errors(t_fail + 4, [r for r in range(W) if job.ni(r) == node_c], lambda r: "NET/IB : Got completion from peer %s<%d> with error 12, opcode 0, len 0, vendor err 129 (Recv)" % (job.nodes[node_c].ip, rng.randint(30000, 60000)))
                S.notes = "amdgpu ring timeout and GPU reset on GCD %d of %s; rank %d aborted with 'HW Exception ... GPU Hang'." % (job.lr(c), host_c, c)
            else:
                tr["rank_inferable"] = False
                victims_timeout(t_fail + timeout_ms / 1000.0, [c])
                S.notes = "amdgpu GPU hang/reset on %s visible only in the kernel log; rank %d silent, others time out." % (host_c, c)
    elif cause == "ecc_memory":
        tr.update(rank=c, drain=True)
        set_node(node_c)
        if cuda:
            xid = rng.choice([48, 94, 95, 64])
            S.k(node_c, t_fail, xid_lines(rng, pci, xid, pid_c, comm, job.lr(c)), 0.001)
            lines = [nccl_prefix(host_c, pid_c, pid_c + 211, job.lr(c)) + " NCCL WARN Cuda failure 214 'uncorrectable ECC error encountered'"]
            lines += tb(train_frames(fw, root, busy_where), cuda_rt_error("uncorrectable ECC error encountered"))
            S.say_many(c, t_fail + 0.5, ["[rank%d]: " % c + l if rng.random() < 0 else l for l in lines])
            S.exits[c] = (t_fail + 1.5, 1)
            S.notes = "Uncorrectable ECC (Xid %d) on GPU %d of %s; rank %d raised 'uncorrectable ECC error encountered'." % (xid, job.lr(c), host_c, c)
        else:
            S.k(node_c, t_fail, amd_ecc_lines(rng, job, c), 0.01)
            lines = tb(train_frames(fw, root, busy_where), ["RuntimeError: HIP error: uncorrectable ECC error encountered",
                                                             "HIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
                                                             "For debugging consider passing AMD_SERIALIZE_KERNEL=3", "Compile with `TORCH_USE_HIP_DSA` to enable device-side assertions.", ""])
            S.say_many(c, t_fail + 0.8, lines)
            S.exits[c] = (t_fail + 1.5, 1)
            S.notes = "amdgpu UMC uncorrectable ECC on GCD %d of %s; rank %d raised a HIP ECC error." % (job.lr(c), host_c, c)
        remote_errors(t_fail + 2, [c], lambda r: "socketProgress: Connection closed by remote peer %s<%d>" % (job.node(c).ip, rng.randint(30000, 60000)),
                      only=[r for r in range(W) if r != c and rng.random() < 0.25])
    elif cause == "nvlink":
        set_node(node_c)
        tr.update(drain=True)
        sw = rng.random() < 0.4
        if sw:
            # NVSwitch fatal -> node-level
            tr.update(rank=job.lowest(node_c))
            sxid = rng.choice([(24007, "Fatal", "sourcetrack TCEN0 crumbstore ECC DBE Error"), (20034, "Fatal", "LTSSM Fault Up"), (22013, "Fatal", "Minion Link DLREQ interrupt")])
            kl = ["nvidia-nvswitch%d: SXid (PCI:0000:%s:00.0): %d, %s, Link %d %s" % (rng.randint(0, 3), rng.choice(["05", "06", "07", "08"]), sxid[0], sxid[1], rng.randint(0, 63), sxid[2]),
                  "nvidia-nvswitch%d: SXid (PCI:0000:%s:00.0): %d, Severity 1 Engine instance %d Sub-engine instance 00" % (rng.randint(0, 3), rng.choice(["05", "06", "07", "08"]), sxid[0], rng.randint(0, 63)),
                  "nvidia-nvswitch%d: SXid (PCI:0000:%s:00.0): %d, Data {0x%s, 0x%s, 0x00000000, 0x00000000}" % (rng.randint(0, 3), rng.choice(["05", "06", "07", "08"]), sxid[0], hexid(rng, 8), hexid(rng, 8))]
            for lr in range(job.gpn):
                rr = job.lowest(node_c) + lr
                kl += xid_lines(rng, job.nodes[node_c].pci[lr], 74, job.pid[rr], comm, lr, link=rng.randint(0, 17))
            S.k(node_c, t_fail, kl, 0.002)
            S.notes = "Fatal NVSwitch SXid %d on %s followed by Xid 74 on all its GPUs; the node's ranks stalled and peers timed out." % (sxid[0], host_c)
        else:
            tr.update(rank=c)
            kl = xid_lines(rng, pci, 74, pid_c, comm, job.lr(c))
            S.k(node_c, t_fail, kl, 0.002)
            S.notes = "Xid 74 NVLink fatal error on GPU %d of %s (rank %d); NCCL on the node wedged and the job timed out." % (job.lr(c), host_c, c)
        if rng.random() < 0.5:
            lines = [nccl_prefix(host_c, pid_c, pid_c + 300, job.lr(c)) + " NCCL WARN Cuda failure 719 'unspecified launch failure'",
                     nccl_prefix(host_c, pid_c, pid_c + 300, job.lr(c)) + " NCCL INFO enqueue.cc:2045 -> 1"]
            lines += tb(train_frames(fw, root, busy_where), dist_backend_error(rng, "unhandled", "Cuda failure 719 'unspecified launch failure'", job.ver_nccl))
            S.say_many(c if not sw else job.lowest(node_c), t_fail + 2, lines)
            S.exits[c if not sw else job.lowest(node_c)] = (t_fail + 3, 1)
            if sw:
                tr["rank_inferable"] = True
            remote_errors(t_fail + 4, [r for r in range(W) if job.ni(r) == node_c], lambda r: "NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:%s remoteGids::ffff:%s hca mlx5_0" % (job.nodes[node_c].ip, rng.randint(30000, 60000), job.node(r).ip, job.nodes[node_c].ip), only=[r for r in range(W) if job.ni(r) != node_c and rng.random() < 0.5])
        else:
            if not sw:
                tr["rank_inferable"] = S.nccl_info
            victims_timeout(t_fail + timeout_ms / 1000.0, [c] if not sw else [])
    elif cause == "network":
        fabric = len(job.nodes) >= 4 and rng.random() < 0.2
        if fabric:
            tr.update(rank=None, node=None, drain=False, rank_inferable=False)
            for ni in range(len(job.nodes)):
                S.k(ni, t_fail + rng.uniform(0, 1), ["mlx5_core 0000:%s:00.0 ibp%ds0: Link down" % (IB_PCI[k], 12 + k) for k in rng.sample(range(8), rng.randint(2, 8))], 0.01)
            for r in range(W):
                peer = job.nodes[(job.ni(r) + 1) % len(job.nodes)]
                tt = t_fail + rng.uniform(1, 8)
                S.say_many(r, tt, [ib_completion_warn(rng, job.node(r).name, job.pid[r], job.lr(r), peer.ip, job.node(r).ip, "mlx5_%d" % job.lr(r))] +
                           tb(train_frames(fw, root, "allreduce" if fw != "deepspeed" else "a2a"), dist_backend_error(rng, "remote", "NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Send)" % (peer.ip, rng.randint(30000, 60000)), job.ver_nccl)))
                S.exits[r] = (tt + 1, 1)
            S.extra_files["sm/opensm.log"] = opensm_lines(rng, t_fail)
            S.notes = "Fabric-wide InfiniBand event (leaf switch reboot seen by opensm): links dropped on every node at once; no single node to blame."
        else:
            tr.update(rank=job.lowest(node_c), drain=True)
            set_node(node_c)
            nd = job.nodes[node_c]
            k = rng.randrange(8)
            S.k(node_c, t_fail - rng.uniform(0.5, 5), mlx5_down_lines(rng, IB_PCI[k], "mlx5_%d" % k, "ibp%ds0" % (12 + k * 10)), 0.3)
            for r in range(W):
                on = job.ni(r) == node_c
                if not on and rng.random() < 0.55:
                    continue
                tt = t_fail + rng.uniform(0.5, 20)
                if on:
                    peer = job.nodes[(node_c + 1) % len(job.nodes)]
                    w = ib_completion_warn(rng, nd.name, job.pid[r], job.lr(r), peer.ip, nd.ip, "mlx5_%d" % k, newfmt=rng.random() < 0.6)
                    det = "NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Send) localGid ::ffff:%s remoteGids::ffff:%s hca mlx5_%d" % (peer.ip, rng.randint(30000, 60000), nd.ip, peer.ip, k)
                else:
                    w = ib_completion_warn(rng, job.node(r).name, job.pid[r], job.lr(r), nd.ip, job.node(r).ip, "mlx5_%d" % job.lr(r), newfmt=rng.random() < 0.6, status=rng.choice([12, 5]))
                    det = "NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Recv)" % (nd.ip, rng.randint(30000, 60000))
                S.say_many(r, tt, [w, nccl_prefix(job.node(r).name, job.pid[r], job.pid[r] + 500, job.lr(r)) + " NCCL INFO transport/net.cc:1298 -> 6"] +
                           tb(train_frames(fw, root, "allreduce" if fw != "deepspeed" else "a2a"), dist_backend_error(rng, "remote", det, job.ver_nccl)))
                S.exits[r] = (tt + 1, 1)
            S.notes = "HCA mlx5_%d of %s (%s) failed (kernel: link down / health error); NCCL IB completion errors on that node and its peers." % (k, nd.name, nd.ip)
    elif cause == "host_oom_kill":
        tr.update(rank=c)
        set_node(node_c)
        cg = rng.random() < 0.5
        cgroup = "/slurm/uid_%d/job_%d/step_0" % (rng.randint(1000, 60000), rng.randint(10**5, 10**7)) if cg else None
        rss = rng.randint(90, 400) * 1024 * 1024
        S.k(node_c, t_fail, oom_kill_lines(rng, pid_c, comm, rss, cgroup=cgroup), 0.0005)
        S.exits[c] = (t_fail + 0.2, -9)
        S.slurm_oom_task = c
        S.notes = "Kernel OOM killer (%s) killed rank %d (pid %d) on %s%s; peers then saw the process disappear." % ("cgroup" if cg else "global", c, pid_c, host_c, " while staging an async checkpoint" if fw == "fsdp" else "")
        remote_errors(t_fail + 1, [c], lambda r: "socketProgress: Connection closed by remote peer %s<%d>" % (job.node(c).ip, rng.randint(30000, 60000)), only=[r for r in range(W) if r != c and rng.random() < 0.3])
    elif cause == "cuda_oom":
        tr.update(rank=c)
        set_node(node_c)
        where = "step"
        total = 79.11 if cuda else 191.98
        lines = tb(train_frames(fw, root, where), [oom_text(rng, job.lr(c), total_gib=total, dev="CUDA" if cuda else "HIP")])
        S.say_many(c, t_fail, lines)
        S.exits[c] = (t_fail + 1, 1)
        if fw == "megatron" and job.pp > 1:
            dp_r, pp_r, tp_r = job.coords(c)
            S.notes = "CUDA OOM on rank %d (pipeline stage %d of %d) on %s; neighbours of the stage saw send/recv failures." % (c, pp_r, job.pp, host_c)
        else:
            S.notes = "%s OOM on rank %d on %s." % ("CUDA" if cuda else "HIP", c, host_c)
        _pp_neighbours_timeout(rng, S, job, c, fw, root, t_fail + timeout_ms / 1000.0, timeout_ms, seq)
    elif cause == "illegal_memory_access":
        tr.update(rank=c)
        set_node(node_c)
        if cuda:
            S.k(node_c, t_fail, xid_lines(rng, pci, rng.choice([31, 13]), pid_c, comm), 0.001)
            if rng.random() < 0.5:
                lines = tb(train_frames(fw, root, "step"), cuda_rt_error("an illegal memory access was encountered"))
                S.say_many(c, t_fail + 0.3, lines)
                S.exits[c] = (t_fail + 1, 1)
            else:
                lines = ["[rank%d]:[%s ProcessGroupNCCL.cpp:1595] [PG ID 0 PG GUID 0(default_pg) Rank %d] Process group watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered" % (c, T.c10d(t_fail + 0.4), c)] + C.CUDA_ASYNC
                lines += ["", "Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):"] + c10_frames(rng)
                lines += ["terminate called after throwing an instance of 'c10::DistBackendError'", "  what():  [PG ID 0 PG GUID 0(default_pg) Rank %d] Process group watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered" % c]
                S.say_many(c, t_fail + 0.4, lines)
                S.exits[c] = (t_fail + 1.2, -6)
        else:
            node_id = job.lr(c) + rng.choice([1, 2])
            S.say_many(c, t_fail + 0.2, ["Memory access fault by GPU node-%d (Agent handle: 0x%s) on address 0x7f%s. Reason: Page not present or supervisor privilege." % (node_id, hexid(rng, 12), hexid(rng, 9))])
            S.k(node_c, t_fail, ["amdgpu 0000:%s:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:%d vmid:%d pasid:%d, for process %s pid %d thread %s pid %d)" % (job.nodes[node_c].pci[job.lr(c)], rng.choice([24, 40, 153]), rng.randint(1, 15), rng.randint(32768, 32800), comm, pid_c, comm, pid_c + rng.randint(1, 30)),
                                 "amdgpu 0000:%s:00.0: amdgpu:   in page starting at address 0x00007f%s000 from client 10" % (job.nodes[node_c].pci[job.lr(c)], hexid(rng, 7)),
                                 "amdgpu 0000:%s:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00%s" % (job.nodes[node_c].pci[job.lr(c)], hexid(rng, 6))], 0.0005)
            S.exits[c] = (t_fail + 0.5, -6)
        S.notes = "Illegal memory access on rank %d (%s); peers hit NCCL errors/timeouts afterwards." % (c, host_c)
        remote_errors(t_fail + 2, [c], lambda r: "socketProgress: Connection closed by remote peer %s<%d>" % (job.node(c).ip, rng.randint(30000, 60000)), only=[r for r in range(W) if r != c and job.ni(r) != node_c and rng.random() < 0.3])
    elif cause == "python_exception":
        tr.update(rank=c)
        set_node(node_c)
        where, exc = py_exception_for(fw, rng)
        if variant == "compile":
            where = "compile"
            exc = ["torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:",
                   "CompilationError: at 14:23:",
                   "    xindex = xoffset + tl.arange(0, XBLOCK)[:]",
                   "    xmask = xindex < xnumel",
                   "    x0 = xindex % 4096",
                   "                       ^",
                   "OSError: [Errno 28] No space left on device: '/tmp/torchinductor_root/triton/0/%s/triton_red_fused_add_mean_mul_pow_rsqrt_%d.json.tmp.pid_%d_%d'" % (alnum(rng, 26, "abcdefghijklmnopqrstuvwxyz234567"), rng.randint(0, 40), pid_c, rng.randint(1, 9)),
                   "",
                   "Set TORCH_LOGS=\"+dynamo\" and TORCHDYNAMO_VERBOSE=1 for more information",
                   "",
                   "",
                   "You can suppress this exception and fall back to eager by setting:",
                   "    import torch._dynamo",
                   "    torch._dynamo.config.suppress_errors = True",
                   ""]
        lines = tb(train_frames(fw, root, where), exc)
        S.say_many(c, t_fail, lines)
        S.exits[c] = (t_fail + 0.8, 1)
        S.notes = "Python exception on rank %d (%s): %s" % (c, host_c, [e for e in exc if e.strip()][0][:100] if variant != "compile" else "Inductor/Triton compile failed (no space in /tmp on that node).")
        _pp_neighbours_timeout(rng, S, job, c, fw, root, t_fail + timeout_ms / 1000.0, timeout_ms, seq)
    elif cause == "crash_signal":
        tr.update(rank=c)
        set_node(node_c)
        kind = rng.choice(["segv", "segv", "bus", "abrt"])
        if kind == "segv":
            th = [(hexid(rng, 12), False, [(C.PY + "/torch/utils/data/_utils/pin_memory.py", 52, "do_one_step"), ("/usr/lib/python3.10/threading.py", 953, "run")]),
                  (hexid(rng, 12), True, [(f, l, fn) for f, l, fn, _ in train_frames(fw, root, "step")[::-1]])]
            lines = faulthandler_dump(th, "Segmentation fault")
            lines.append("Extension modules: numpy.core._multiarray_umath, torch._C, torch._C._fft, torch._C._linalg, torch._C._nested, torch._C._nn, torch._C._sparse, torch._C._special, yaml._yaml, %s (total: %d)" % (rng.choice(["transformer_engine_torch", "apex_C", "flash_attn_2_cuda", "deep_ep_cpp"]), rng.randint(40, 120)))
            S.say_many(c, t_fail, lines)
            S.k(node_c, t_fail, [segfault_kernel(rng, comm, pid_c, rng.choice(["libtransformer_engine.so", "flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so", "libtorch_cuda.so", "libc10.so"]))])
            S.exits[c] = (t_fail + 0.1, -11)
            S.notes = "Rank %d on %s segfaulted (faulthandler + kernel segfault line), no hardware fault." % (c, host_c)
        elif kind == "bus":
            th = [(hexid(rng, 12), True, [(C.PY + "/torch/multiprocessing/reductions.py", 541, "rebuild_storage_fd"), (C.PY + "/torch/utils/data/_utils/worker.py", 349, "_worker_loop")])]
            lines = ["ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm)."] + faulthandler_dump(th, "Bus error")
            lines += tb(train_frames(fw, root, "data"), ["RuntimeError: DataLoader worker (pid %d) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit." % (pid_c + rng.randint(40, 200))])
            S.say_many(c, t_fail, lines)
            S.exits[c] = (t_fail + 1, 1)
            S.notes = "SIGBUS in a DataLoader worker of rank %d (/dev/shm exhausted) on %s." % (c, host_c)
        else:
            lines = ["terminate called after throwing an instance of 'std::system_error'", "  what():  Resource temporarily unavailable",
                     "Fatal Python error: Aborted", "", "Thread 0x%s (most recent call first):" % hexid(rng, 12),
                     '  File "/usr/lib/python3.10/threading.py", line 324 in wait', '  File "/usr/lib/python3.10/threading.py", line 607 in wait']
            S.say_many(c, t_fail, lines)
            S.exits[c] = (t_fail + 0.2, -6)
            S.notes = "Rank %d on %s aborted (std::system_error: Resource temporarily unavailable -> SIGABRT)." % (c, host_c)
        _pp_neighbours_timeout(rng, S, job, c, fw, root, t_fail + timeout_ms / 1000.0, timeout_ms, seq)
    elif cause == "hang":
        tr.update(rank=c)
        set_node(node_c)
        # culprit silent; everyone else times out; evidence: py-spy dumps or flight recorder analysis
        victims_timeout(t_fail + timeout_ms / 1000.0, [c])
        ev = rng.choice(["pyspy", "fr", "none"]) if W <= 64 else rng.choice(["pyspy", "fr"])
        if ev == "pyspy":
            S.extra_files["debug/py-spy-%s-%d.txt" % (host_c, pid_c)] = pyspy_dump(pid_c, "python3 -u %s" % ("pretrain_gpt.py" if fw == "megatron" else "train.py"), "3.10.12",
                [(pid_c, "MainThread", "active+gil", [("wait (threading.py:324)".split(" ")[0], "/usr/lib/python3.10/threading.py", 324),
                                                      ("acquire", C.PY + "/filelock/_api.py", 332),
                                                      ("__enter__", C.PY + "/filelock/_api.py", 376),
                                                      ("_maybe_log_metrics", S.root + "/utils/metrics.py", 88),
                                                      ("train_step", S.root + "/train.py", 412)]),
                 (pid_c + 77, "Thread-3 (_pin_memory_loop)", "idle", [("get", "/usr/lib/python3.10/queue.py", 180)])])
            # a healthy peer for contrast
            other = (c + 1) % W
            S.extra_files["debug/py-spy-%s-%d.txt" % (job.host(other), job.pid[other])] = pyspy_dump(job.pid[other], "python3 -u train.py", "3.10.12",
                [(job.pid[other], "MainThread", "active", [("synchronize", C.PY + "/torch/cuda/__init__.py", 954), ("_wait_for_comm", S.root + "/train.py", 431), ("train_step", S.root + "/train.py", 415)])])
            S.notes = "Rank %d (%s) blocked on a file lock in Python and never joined %s #%d; every other rank hit the watchdog; py-spy dump shows it." % (c, host_c, op, seq)
        elif ev == "fr":
            S.extra_files["debug/fr_trace_analysis.txt"] = fr_analysis(rng, job, c, seq, op, numel)
            S.notes = "Rank %d (%s) stopped before %s #%d; flight-recorder analysis names it as the missing rank; others timed out." % (c, host_c, op, seq)
        else:
            tr["rank_inferable"] = W <= 16
            S.notes = "Rank %d (%s) stopped progressing silently; every other rank reports a watchdog timeout on %s #%d (it is the only one that does not)." % (c, host_c, op, seq)
        S.killed_by = "scancel" if rng.random() < 0.4 else None
    elif cause == "data_loader_stall":
        tr.update(rank=c)
        set_node(node_c)
        victims_timeout(t_fail + timeout_ms / 1000.0, [c])
        fr = [(f, l, fn) for f, l, fn, _ in train_frames(fw, root, "data")[::-1]]
        lines = ["Timeout (0:%02d:00)!" % rng.choice([5, 10, 15]), "Thread 0x%s (most recent call first):" % hexid(rng, 12)]
        lines += ['  File "%s", line %d in %s' % x for x in fr]
        lines += [""]
        S.say_many(c, t_fail + rng.choice([300, 600, 900]), lines)
        if rng.random() < 0.6:
            S.k(node_c, t_fail - rng.uniform(5, 60), rng.choice([
                ["nfs: server %s not responding, still trying" % rng.choice(["nas02", "10.40.0.5", "vast-data.storage"])] * 3,
                ["LustreError: 11-0: lustre-OST00%02d-osc-ffff%s: operation ost_read to node 172.30.0.%d@o2ib failed: rc = -110" % (rng.randint(0, 40), hexid(rng, 12), rng.randint(2, 90)),
                 "Lustre: lustre-OST00%02d-osc-ffff%s: Connection to lustre-OST00%02d (at 172.30.0.%d@o2ib) was lost; in progress operations using this service will wait for recovery to complete" % (rng.randint(0, 40), hexid(rng, 12), rng.randint(0, 40), rng.randint(2, 90))],
                ["INFO: task python3:%d blocked for more than 120 seconds." % (pid_c + rng.randint(50, 300)), "      Tainted: P           OE     5.15.0-119-generic #129-Ubuntu",
                 "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message."]]), 30)
        S.notes = "Rank %d on %s stuck reading training data (faulthandler dump_traceback_later shows it in the dataset read); the others timed out in the next collective." % (c, host_c)
    elif cause == "collective_mismatch":
        tr.update(rank=c)
        set_node(node_c)
        detail = rng.random() < 0.5
        if detail:
            shape_ok = "[%d]" % numel
            shape_bad = "[%d]" % (numel - rng.choice([2048, 4096, 128, 1]))
            fp = lambda s, o: "CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=%s, TensorDtypes=BFloat16, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))" % (seq, o, s)
            op2 = op if rng.random() < 0.5 else ("ALLGATHER" if op != "ALLGATHER" else "ALLREDUCE")
            for r in range(W):
                tt = t_fail + rng.uniform(0, 1)
                if r == c:
                    msg = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects: \t Tensor Tensor shapes: %s vs %s" % (c, fp(shape_bad, op2), 0 if c else 1, fp(shape_ok, op), shape_bad, shape_ok)
                else:
                    msg = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects: \t Tensor Tensor shapes: %s vs %s" % (r, fp(shape_ok, op), c, fp(shape_bad, op2), shape_ok, shape_bad)
                S.say_many(r, tt, tb(train_frames(fw, root, "allreduce" if fw != "deepspeed" else "a2a"), [msg]))
                S.exits[r] = (tt + 0.5, 1)
            S.notes = "TORCH_DISTRIBUTED_DEBUG=DETAIL: rank %d issued a collective with a different shape; every rank reports the mismatch naming it." % c
        else:
            # sizes differ -> NCCL hangs; watchdog shows NumelIn different on culprit
            for r in range(W):
                tt = t_fail + timeout_ms / 1000.0 + rng.uniform(0, 2)
                n2 = numel if r != c else numel - rng.choice([2048, 4096, 1024])
                S.say_many(r, tt, watchdog_timeout(rng, r, tt, seq, op, n2, timeout_ms, prefix=True, ver=job.torch))
                S.exits[r] = (tt + 1, -6)
            S.notes = "Rank %d entered %s #%d with NumelIn differing from all other ranks; every rank timed out, only the culprit's size is odd." % (c, op, seq)
    elif cause == "preemption":
        single = rng.random() < 0.3 and len(job.nodes) > 1
        if single:
            # a cloud node reclaimed (spot) -> node-level
            tr.update(rank=job.lowest(node_c), drain=False)
            set_node(node_c)
            S.k(node_c, t_fail, ["ACPI: Power Button [PWRF]", "systemd-logind[1403]: Power key pressed short.", "systemd-logind[1403]: Powering off..."], 0.5)
            for r in range(W):
                if job.ni(r) == node_c:
                    S.say_many(r, t_fail + 1, ["[rank%d]: torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % (r, job.pid[r])])
                    S.exits[r] = (t_fail + 2, -15)
            remote_errors(t_fail + 4, [r for r in range(W) if job.ni(r) == node_c], lambda r: "socketProgress: Connection closed by remote peer %s<%d>" % (job.nodes[node_c].ip, rng.randint(30000, 60000)))
            S.preempt = "spot"
            S.notes = "Spot/preemptible node %s was reclaimed (ACPI power-off, SIGTERM to its ranks); the rest of the job lost its peers." % host_c
        else:
            tr.update(rank=None, node=None, drain=False, rank_inferable=False)
            S.preempt = rng.choice(["timelimit", "preempt"])
            for r in range(W):
                S.exits[r] = (t_fail + rng.uniform(0, 1), -15)
            S.notes = "Scheduler ended the job (%s); all ranks received SIGTERM together." % ("time limit" if S.preempt == "timelimit" else "preempted by a higher-priority job")
    elif cause == "straggler":
        tr.update(rank=c)
        set_node(node_c)
        S.straggler = c
        S.k(node_c, t0 + rng.uniform(100, 400), ["mce: CPU%d: Package temperature above threshold, cpu clock throttled (total events = %d)" % (rng.randint(0, 95), rng.randint(1000, 90000))] if rng.random() < 0.3 else [])
        S.notes = "GPU %d of %s (rank %d) throttled (HW slowdown, low SM clock); step time rose for the whole job, no crash until the job was cancelled." % (job.lr(c), host_c, c)
        S.preempt = rng.choice(["scancel", "timelimit"])
        for r in range(W):
            S.exits[r] = (t_fail + rng.uniform(0, 1), -15)
    S.t_end = max([e[0] for e in S.exits.values()] + [t_fail + 5])
    return S


def fill_timeouts(rng, S, job, group="default_pg", agent=True):
    """Launchers that do not kill the whole job on the first failure: the first failing rank's node
    loses its local workers (agent SIGTERM), every other surviving rank times out in the watchdog later."""
    if not S.exits or getattr(S, "preempt", None) in ("timelimit", "preempt", "scancel"):
        return
    tf, rf = min((v[0], r) for r, v in S.exits.items())
    for r in range(job.world):
        if agent and r not in S.exits and job.ni(r) == job.ni(rf):
            S.exits[r] = (tf + rng.uniform(0.5, 2), -15)
    tv = S.t_fail + S.timeout_ms / 1000.0
    for r in range(job.world):
        if r in S.exits or (r == S.c and S.cause in ("hang", "data_loader_stall", "gpu_hardware", "nvlink")):
            continue
        tt = max(tv, tf + 5) + rng.uniform(0, 3)
        S.say_many(r, tt, watchdog_timeout(rng, r, tt, S.seq, S.op, S.numel, S.timeout_ms, prefix=True, ver=job.torch))
        S.exits[r] = (tt + rng.uniform(0.2, 2), -6)
    if S.c not in S.exits:
        S.exits[S.c] = (max(v[0] for v in S.exits.values()) + 1, -15)
    S.t_end = max(v[0] for v in S.exits.values())


def _pp_neighbours_timeout(rng, S, job, c, fw, root, tv, timeout_ms, seq):
    """For megatron pipeline jobs, a dead stage shows as send/recv timeouts on neighbours only."""
    if fw != "megatron" or job.pp < 2 or rng.random() < 0.3:
        return
    dp_r, pp_r, tp_r = job.coords(c)
    nb = []
    if pp_r > 0:
        nb.append(job.rank_of(dp_r, pp_r - 1, tp_r))
    if pp_r < job.pp - 1:
        nb.append(job.rank_of(dp_r, pp_r + 1, tp_r))
    gid = rng.randint(3, 40)
    for r in nb:
        _, pr, _ = job.coords(r)
        tt = tv + rng.uniform(0, 2)
        opx = "RECV" if pr > pp_r else "SEND"
        lines = watchdog_timeout(rng, pr, tt, rng.randint(100, 9000), opx, rng.choice([16777216, 33554432]), timeout_ms, pg=str(gid), pgname="PIPELINE_MODEL_PARALLEL_GROUP", ver=job.torch)
        lines = [l.replace("[rank%d]:" % pr, "[rank%d]:" % r, 1) for l in lines]
        S.say_many(r, tt, lines)
    S.pp_neighbours = nb


def amd_reset_lines(rng, job, c, comm):
    pci = job.node(c).pci[job.lr(c)]
    ring = rng.choice(["gfx_0.0.0", "sdma0", "comp_1.0.0", "comp_1.2.1"])
    return ["amdgpu 0000:%s:00.0: amdgpu: ring %s timeout, signaled seq=%d, emitted seq=%d" % (pci, ring, rng.randint(10**5, 10**7), rng.randint(10**7, 10**7 + 9)),
            "amdgpu 0000:%s:00.0: amdgpu: Process information: process %s pid %d thread %s pid %d" % (pci, comm, job.pid[c], comm, job.pid[c]),
            "amdgpu 0000:%s:00.0: amdgpu: GPU reset begin!" % pci,
            "amdgpu 0000:%s:00.0: amdgpu: MODE1 reset" % pci,
            "amdgpu 0000:%s:00.0: amdgpu: GPU mode1 reset" % pci,
            "amdgpu 0000:%s:00.0: amdgpu: GPU reset(%d) failed" % (pci, rng.randint(1, 4)),
            "amdgpu 0000:%s:00.0: amdgpu: GPU reset end with ret = -110" % pci]


def amd_ecc_lines(rng, job, c):
    pci = job.node(c).pci[job.lr(c)]
    return ["amdgpu 0000:%s:00.0: amdgpu: HW error detected in UMC block" % pci,
            "amdgpu 0000:%s:00.0: amdgpu: socket: %d, die: %d, %d new uncorrectable hardware errors detected in UMC block" % (pci, 0, job.lr(c) % 2, rng.randint(1, 4)),
            "amdgpu 0000:%s:00.0: amdgpu: Error Address(PA):0x%s Row:0x%s Col:0x%s Bank:0x%s Channel:0x%s" % (pci, hexid(rng, 9), hexid(rng, 4), hexid(rng, 2), hexid(rng, 1), hexid(rng, 2)),
            "amdgpu 0000:%s:00.0: amdgpu: GPU reset begin!" % pci,
            "amdgpu 0000:%s:00.0: amdgpu: Saved bad pages %d into EEPROM" % (pci, rng.randint(1, 20))]


def opensm_lines(rng, t):
    L = []
    for i in range(rng.randint(6, 14)):
        tt = t - rng.uniform(0, 2) + i * 0.2
        L.append("%s %06d [%s] 0x01 -> Trap 128 (SM) GUID 0x%s: LID %d Port change" % (T.syslog(tt), int((tt % 1) * 1e6), hexid(rng, 8).upper(), hexid(rng, 16), rng.randint(1, 400)))
    L.append("%s %06d [%s] 0x02 -> SUBNET UP" % (T.syslog(t + 30), 0, hexid(rng, 8).upper()))
    L.append("%s %06d [%s] 0x80 -> log_notice: Reporting Generic Notice type:3 num:131 (Switch port state changed) from LID:%d GUID:0x%s" % (T.syslog(t - 1), 1, hexid(rng, 8).upper(), rng.randint(1, 50), hexid(rng, 16)))
    return L


def fr_analysis(rng, job, c, seq, op, numel):
    W = job.world
    L = ["$ python -m torch.distributed.flight_recorder.fr_trace /shared/fr_dumps/ --prefix nccl_trace_rank_ -j",
         "loaded %d dumps" % W,
         "Not all ranks joining collective %d at entry %d" % (seq, rng.randint(30, 700)),
         "group info: 0:default_pg",
         "collective: nccl:%s" % {"ALLREDUCE": "all_reduce", "_ALLGATHER_BASE": "_allgather_base", "_REDUCE_SCATTER_BASE": "_reduce_scatter_base", "ALLTOALL_BASE": "all_to_all", "ALLGATHER": "all_gather"}.get(op, op.lower()),
         "missing ranks: {%d}" % c,
         "input sizes: [[%d]]" % numel,
         "output sizes: [[%d]]" % numel,
         "expected ranks: %d" % W,
         "collective state: scheduled",
         "collective stack trace:",
         "    all_reduce at %s/torch/distributed/distributed_c10d.py:2806" % C.PY,
         "    wrapper at %s/torch/distributed/c10d_logger.py:81" % C.PY,
         ""]
    return L


# =========================================================================== progress lines
def megatron_iter_line(t, it, total, gbs, step_ms, lr, loss, gn, tflops, skipped=0, nan=0):
    return (" [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | throughput per GPU (TFLOP/s/GPU): %.1f | "
            "learning rate: %E | global batch size: %5d | lm loss: %E | loss scale: 1.0 | grad norm: %.3f | number of skipped iterations: %3d | number of nan iterations: %3d |") % (
        T.sec(t), it, total, it * gbs, step_ms, tflops, lr, gbs, loss, gn, skipped, nan)


def ds_step_lines(t, step, lr, samples_s, mem, maxmem):
    return ["%s [INFO] [logging.py:128:log_dist] [Rank 0] step=%d, skipped=0, lr=[%.8f], mom=[(0.9, 0.95)]" % (T.ds(t), step, lr),
            "%s [INFO] [timer.py:264:stop] epoch=0/micro_step=%d/global_step=%d, RunningAvgSamplesPerSec=%.3f, CurrSamplesPerSec=%.3f, MemAllocated=%.2fGB, MaxMemAllocated=%.2fGB" % (T.ds(t + 0.01), step * 4, step, samples_s, samples_s * 0.99, mem, maxmem)]


def titan_step_line(t, r, step, loss, mem, pct, tps, tfl, mfu):
    return "[rank%d]:[titan] %s - root - INFO - %sstep: %2d  %sloss: %7.4f  %smemory: %5.2fGiB(%.2f%%)  %stps: %s  %stflops: %.2f  %smfu: %.2f%%%s" % (
        r, T.pylog(t), "\x1b[31m", step, "\x1b[32m", loss, "\x1b[33m", mem, pct, "\x1b[34m", format(tps, ","), "\x1b[36m", tfl, "\x1b[35m", mfu, "\x1b[39m")


# =========================================================================== exit text helpers
SIGNAME = {6: "SIGABRT", 9: "SIGKILL", 11: "SIGSEGV", 15: "SIGTERM", 7: "SIGBUS"}


def torchrun_failure_block(rng, t, node, entries, script):
    """entries: list of (rank, local_rank, exitcode, pid); first is root cause."""
    L = ["Traceback (most recent call last):",
         '  File "/usr/local/bin/torchrun", line 8, in <module>',
         "    sys.exit(main())",
         '  File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper' % C.PY,
         "    return f(*args, **kwargs)",
         '  File "%s/torch/distributed/run.py", line 919, in main' % C.PY,
         "    run(args)",
         '  File "%s/torch/distributed/run.py", line 910, in run' % C.PY,
         "    elastic_launch(",
         '  File "%s/torch/distributed/launcher/api.py", line 138, in __call__' % C.PY,
         "    return launch_agent(self._config, self._entrypoint, list(args))",
         '  File "%s/torch/distributed/launcher/api.py", line 269, in launch_agent' % C.PY,
         "    raise ChildFailedError(",
         "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
         "============================================================",
         "%s FAILED" % script,
         "------------------------------------------------------------",
         "Failures:"]
    rest = entries[1:]
    if not rest:
        L.append("  <NO_OTHER_FAILURES>")
    for i, (r, lr, code, pid) in enumerate(rest):
        L += ["[%d]:" % (i + 1), "  time      : %s" % T.dt(t).strftime("%Y-%m-%d_%H:%M:%S"), "  host      : %s" % node,
              "  rank      : %d (local_rank: %d)" % (r, lr), "  exitcode  : %d (pid: %d)" % (code, pid), "  error_file: <N/A>",
              "  traceback : %s" % ("Signal %d (%s) received by PID %d" % (-code, SIGNAME.get(-code, "SIG?"), pid) if code < 0 else "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")]
    L.append("------------------------------------------------------------")
    L.append("Root Cause (first observed failure):")
    r, lr, code, pid = entries[0]
    L += ["[0]:", "  time      : %s" % T.dt(t).strftime("%Y-%m-%d_%H:%M:%S"), "  host      : %s" % node,
          "  rank      : %d (local_rank: %d)" % (r, lr), "  exitcode  : %d (pid: %d)" % (code, pid), "  error_file: <N/A>",
          "  traceback : %s" % ("Signal %d (%s) received by PID %d" % (-code, SIGNAME.get(-code, "SIG?"), pid) if code < 0 else "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"),
          "============================================================"]
    return L


def torchrun_agent_lines(rng, S, job, ni, t_first, script, elastic_ts=True):
    """torchrun agent output on node ni after its first local failure. Returns list of (t, line)."""
    out = []
    local = [r for r in range(job.world) if job.ni(r) == ni]
    failed = sorted([(S.exits[r][0], r) for r in local if r in S.exits])
    if not failed:
        return out
    tf, rf = failed[0]
    agent = job.tpid[ni]
    t = tf + rng.uniform(0.3, 2.0)
    for r in local:
        if r != rf:
            out.append((t, "%s %d torch/distributed/elastic/multiprocessing/api.py:%d] Sending process %d closing signal SIGTERM" % (T.elastic(t, "W"), agent, rng.choice([897, 869, 900]), job.pid[r])))
    code = S.exits[rf][1]
    out.append((t + 0.5, "%s %d torch/distributed/elastic/multiprocessing/api.py:%d] failed (exitcode: %d) local_rank: %d (pid: %d) of binary: /usr/bin/python3" % (T.elastic(t + 0.5, "E"), agent, rng.choice([869, 874]), code, job.lr(rf), job.pid[rf])))
    entries = [(rf, job.lr(rf), code, job.pid[rf])]
    for tt, r in failed[1:]:
        if tt - tf < 3:
            entries.append((r, job.lr(r), S.exits[r][1], job.pid[r]))
    for i, l in enumerate(torchrun_failure_block(rng, tf, job.nodes[ni].name.split(".")[0], entries, script)):
        out.append((t + 0.6 + i * 1e-5, l))
    return out


# =========================================================================== layouts
def _kern_files(rng, out, job, S, t0, t1, prefix="nodes", style=None, which=None):
    style = style or rng.choice(["dmesg", "dmesgT", "kernlog", "journal", "journal-iso"])
    fname = {"dmesg": "dmesg.txt", "dmesgT": "dmesg-T.txt", "kernlog": "kern.log", "journal": "journalctl-k.txt", "journal-iso": "journal-kernel.log"}[style]
    nis = which if which is not None else sorted(set(list(S.kern.keys()) + rng.sample(range(len(job.nodes)), min(len(job.nodes), rng.randint(1, 3)))))
    for ni in nis:
        nd = job.nodes[ni]
        ev = list(S.kern.get(ni, []))
        # decoys
        if rng.random() < 0.25 and ni not in S.kern:
            ev.append((t0 - rng.uniform(3, 30) * 3600, xid_lines(rng, nd.pci[0] if nd.pci else "18", rng.choice([13, 31, 43, 79]), rng.randint(2000, 90000), "python3")[0]))
        if rng.random() < 0.2:
            ev.append((rng.uniform(t0, t1), xid_lines(rng, nd.pci[rng.randrange(len(nd.pci))] if nd.pci else "18", 92, rng.randint(2000, 90000), "python3")[0] if nd.pci else "mce: [Hardware Error]: Machine check events logged"))
        lines = kernel_render(nd, ev, style, rng, t0, t1)
        out.add("%s/%s/%s" % (prefix, nd.name.split(".")[0], fname), lines)
    return style


def layout_megatron_slurm(rng, cause, run):
    """Megatron-LM / NeMo pretraining with pipeline parallelism under Slurm, --output=%x-%j-%t.out or srun -l."""
    out = Out()
    nn = rng.choice([2, 4, 4, 8, 8, 16, 32])
    gpn = 8 if rng.random() < 0.85 else 4
    tp = rng.choice([2, 4, 8]) if gpn == 8 else rng.choice([2, 4])
    pp = rng.choice([2, 4, 8])
    while (nn * gpn) % (tp * pp) != 0 or (nn * gpn) // (tp * pp) < 1:
        pp //= 2
        if pp < 1:
            pp = 1
            break
    nodes = make_nodes(rng, nn, rng.choice(["nid", "gpu-h100", "fqdn", "dgx", "plain"]), gpus=gpn, pci=PCI_H100 if rng.random() < 0.6 else PCI_A100)
    job = Job(rng, nodes, gpn, tp=tp, pp=pp)
    t0 = C.pick_base_time(rng)
    step_s = rng.uniform(2.5, 14)
    n_ok = rng.randint(40, 400)
    timeout_ms = rng.choice([600000, 1800000, 600000])
    S = nccl_scenario(rng, job, cause, "megatron", "cuda", t0 + 180, n_ok, step_s, timeout_ms)
    kill_bad = not getattr(S, "pp_neighbours", None)
    if not kill_bad:
        fill_timeouts(rng, S, job, agent=False)
    jobid = rng.randint(100000, 9999999)
    jname = rng.choice(["gpt3-175b", "llama3-70b-pt", "nemotron-15b", "mixtral-ft", "pretrain_gpt"])
    per_task = rng.random() < 0.5
    W = job.world
    # ---- rank-level output (program)
    ev = {r: [] for r in range(W)}
    for r in range(W):
        for t, st, l in S.ev.get(r, []):
            ev[r].append((t, l))
    # rank 0 startup
    r0 = ev[0]
    t = t0 + 20
    st = ["using world size: %d, data-parallel size: %d, context-parallel size: 1, hierarchical context-parallel sizes: None, tensor-model-parallel size: %d, encoder-tensor-model-parallel size: 0, pipeline-model-parallel size: %d, encoder-pipeline-model-parallel size: 0" % (W, job.dp, tp, pp),
          "WARNING: Setting args.overlap_p2p_comm and args.align_param_gather to False since non-interleaved schedule does not support overlapping p2p communication and aligned param AG",
          "using torch.bfloat16 for parameters ...",
          "------------------------ arguments ------------------------",
          "  accumulate_allreduce_grads_in_fp32 .............. True",
          "  bf16 ............................................ True",
          "  distributed_timeout_minutes ..................... %d" % (timeout_ms // 60000),
          "  global_batch_size ............................... %d" % (job.dp * rng.choice([16, 32, 64])),
          "  micro_batch_size ................................ 1",
          "  pipeline_model_parallel_size .................... %d" % pp,
          "  tensor_model_parallel_size ...................... %d" % tp,
          "  world_size ...................................... %d" % W,
          "-------------------- end of arguments ---------------------",
          "> building GPT2BPETokenizer tokenizer ..." if rng.random() < 0.3 else "> building HuggingFaceTokenizer tokenizer ...",
          "> initializing torch distributed ...",
          "> initialized tensor model parallel with size %d" % tp,
          "> initialized pipeline model parallel with size %d" % pp,
          "> setting random seeds to 1234 ...",
          "> compiling dataset index builder ...",
          "make: Entering directory '%s/megatron/core/datasets'" % S.root,
          "make: Nothing to be done for 'default'.",
          "make: Leaving directory '%s/megatron/core/datasets'" % S.root,
          ">>> done with dataset index builder. Compilation time: 0.081 seconds",
          "time to initialize megatron (seconds): %.3f" % rng.uniform(20, 90),
          "[after megatron is initialized] datetime: %s " % T.sec(t0 + 60)]
    for i, l in enumerate(st):
        r0.append((t + i * 0.01, l))
    for pr in range(pp):
        rr = job.rank_of(0, pr, 0)
        ev[rr].append((t0 + 70, " > number of parameters on (tensor, pipeline) model parallel rank (0, %d): %d" % (pr, rng.randint(10**9, 9 * 10**9))))
    last = W - 1
    gbs = job.dp * 32
    total = rng.choice([100000, 250000, 500000, 143051])
    it0 = rng.choice([0, 0, rng.randint(1000, 40000)])
    if it0:
        r0.append((t0 + 65, "  successfully loaded checkpoint from /checkpoints/%s [ t %d/%d, p %d/%d ] at iteration %d" % (jname, 0, tp, 0, pp, it0)))
    log_int = rng.choice([1, 5, 10])
    tstart = t0 + 180
    tend = S.t_fail if cause else tstart + n_ok * step_s
    it = 0
    tt = tstart
    straggle_from = tstart + (S.t_fail - tstart) * 0.35 if cause == "straggler" else None
    while tt < tend:
        it += 1
        ms = step_s * 1000 * rng.uniform(0.97, 1.03)
        if straggle_from and tt > straggle_from:
            ms *= rng.uniform(1.55, 1.75)
        tt += ms / 1000
        if it % log_int == 0 and tt < tend:
            ev[last].append((tt, megatron_iter_line(tt, it0 + it, total, gbs, ms * log_int / log_int, 3e-4 * min(1, (it0 + it) / 2000.0), 2.1 + 6 * 0.5 ** ((it0 + it) / 300.0) + rng.uniform(-0.05, 0.05), rng.uniform(0.2, 1.4), 400 * step_s * 1000 / ms)))
            if cause == "straggler" and it % (log_int * 5) == 0 and tt > tstart + 60:
                c = S.straggler
                slow = straggle_from and tt > straggle_from
                mn_clk = rng.randint(1050, 1250) if slow else rng.randint(1950, 1980)
                ev[0].append((tt + 0.01, "%s | MnRtt/Rnk: %.2fms/%d | MxRtt/Rnk: %.2fms/%d | MnPwr/Rnk: %dW/%d | MxPwr/Rnk: %dW/%d | MnTmp/Rnk: %dC/%d | MxTmp/Rnk: %dC/%d | MnUtl/Rnk: %d%%/%d | MxUtl/Rnk: %d%%/%d | MnClk/Rnk: %dMHz/%d | MxClk/Rnk: %dMHz/%d" % (
                    T.sec(tt), ms * 0.97, (c + 3) % W, ms * (1.6 if slow else 1.01), c if slow else (c + 5) % W, rng.randint(380, 450), c if slow else 2, 700, (c + 1) % W,
                    rng.randint(38, 45), (c + 2) % W, rng.randint(86, 92) if slow else rng.randint(55, 62), c if slow else 4, 91, (c + 7) % W, 100, 1, mn_clk, c if slow else 6, 1980, 0)))
        if it == 1 and rng.random() < 0.5:
            ev[last].append((tt + 0.1, "[Rank %d] (after %d iterations) memory (MB) | allocated: %.1f | max allocated: %.1f | reserved: %.1f | max reserved: %.1f" % (last, it0 + 1, rng.uniform(20000, 40000), rng.uniform(50000, 70000), rng.uniform(60000, 72000), rng.uniform(60000, 72000))))
        if it % 500 == 0:
            r0.append((tt + 0.5, "saving checkpoint at iteration %7d to /checkpoints/%s in torch_dist format" % (it0 + it, jname)))
            r0.append((tt + 25, "  successfully saved checkpoint from iteration %7d to /checkpoints/%s [ t 1/%d, p 1/%d ]" % (it0 + it, jname, tp, pp)))
            tt += 25
    if cause is None:
        r0.append((tt + 1, "[after training is done] datetime: %s " % T.sec(tt + 1)))
        r0.append((tt + 2, "saving checkpoint at iteration %7d to /checkpoints/%s in torch_dist format" % (it0 + it, jname)))
        r0.append((tt + 30, "  successfully saved checkpoint from iteration %7d to /checkpoints/%s [ t 1/%d, p 1/%d ]" % (it0 + it, jname, tp, pp)))
        if rng.random() < 0.5:
            ev[last].append((tstart + step_s * 30, "WARNING:megatron.core.optimizer.distrib_optimizer:Found NaN in grad norm, skipping iteration"))
            ev[last].append((tstart + step_s * 30.1, megatron_iter_line(tstart + step_s * 30.1, it0 + 30, total, gbs, step_s * 1000, 2.9e-4, 3.0, float('nan'), 400, skipped=1, nan=1).replace("grad norm: nan", "grad norm: nan")))
    # ---- launcher level
    slurm = []  # (t, line) to the main slurm-*.out
    tdone = S.t_end
    if cause is None:
        pass
    else:
        first = sorted([(v[0], r) for r, v in S.exits.items()])
        if getattr(S, "preempt", None) in ("timelimit", "preempt", "scancel"):
            tk = S.t_fail
            if S.preempt == "timelimit":
                slurm.append((tk, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (jobid, job.nodes[0].name.split(".")[0], T.slurm(tk))))
                slurm.append((tk + 0.1, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (jobid, job.nodes[0].name.split(".")[0], T.slurm(tk))))
            elif S.preempt == "preempt":
                slurm.append((tk, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (jobid, job.nodes[0].name.split(".")[0], T.slurm(tk))))
            else:
                slurm.append((tk, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s ***" % (jobid, job.nodes[0].name.split(".")[0], T.slurm(tk))))
            slurm.append((tk + 0.2, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
            slurm.append((tk + 3, "srun: forcing job termination"))
        elif first:
            tf, rf = first[0]
            code = S.exits[rf][1]
            nm = job.host(rf)
            if S.slurm_oom_task is not None:
                slurm.append((tf + 1, "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % jobid))
                slurm.append((tf + 1.2, "srun: error: %s: task %d: Out Of Memory" % (nm, rf)))
            elif code < 0:
                slurm.append((tf + 1, "srun: error: %s: task %d: %s" % (nm, rf, {6: "Aborted (core dumped)", 9: "Killed", 11: "Segmentation fault (core dumped)", 15: "Terminated", 7: "Bus error (core dumped)"}.get(-code, "Killed"))))
            else:
                slurm.append((tf + 1, "srun: error: %s: task %d: Exited with exit code %d" % (nm, rf, code)))
            if kill_bad:
                slurm.append((tf + 1.1, "srun: launch/slurm: _step_signal: Terminating StepId=%d.0" % jobid))
            for r in range(W if kill_bad else 0):
                if r not in S.exits:
                    S.exits[r] = (tf + rng.uniform(1.5, 4), -15)
                    ev[r].append((tf + 1.5, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (jobid, job.host(r), T.slurm(tf + 1.5))) if (r % job.gpn == 0) else (0, None))
            if getattr(S, "killed_by", None) == "scancel":
                slurm.insert(0, (S.t_fail + timeout_ms / 1000.0 - rng.uniform(60, 200), "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (jobid, job.nodes[0].name.split(".")[0], T.slurm(S.t_fail + timeout_ms / 1000.0 - 100))))
            more = [(v[0], r) for r, v in S.exits.items() if r != rf and v[1] != -15]
            for tt2, r in sorted(more)[:6 if kill_bad else 10**6]:
                c2 = S.exits[r][1]
                slurm.append((tt2 + 1.5, "srun: error: %s: task %d: %s" % (job.host(r), r, "Exited with exit code %d" % c2 if c2 > 0 else "Aborted (core dumped)")))
    # ---- files
    pre_ansi = rng.random() < 0.2
    if per_task:
        for r in range(W):
            lines = [l for t, l in sorted(ev[r], key=lambda x: x[0]) if l is not None]
            if pre_ansi:
                lines = [ansi("31", l) if ("Error" in l or "error" in l) and rng.random() < 0.5 else l for l in lines]
            out.add("%s-%d-%d.out" % (jname, jobid, r), lines)
        out.add("slurm-%d.out" % jobid, [l for t, l in sorted(slurm)])
    else:
        E = EvList()
        for r in range(W):
            for t, l in ev[r]:
                if l is None:
                    continue
                for sub in l.split("\n"):
                    E.add(t, "%d: %s" % (r, sub) if rng.random() < 0.995 else "%2d: %s" % (r, sub))
        for t, l in slurm:
            E.add(t, l)
        lines = E.lines()
        if cause is not None and rng.random() < 0.15:
            lines[-1] = lines[-1][: max(5, len(lines[-1]) // 2)]
        out.add("slurm-%d.out" % jobid, lines)
    sb = ["#!/bin/bash", "#SBATCH --job-name=%s" % jname, "#SBATCH --nodes=%d" % nn, "#SBATCH --ntasks-per-node=%d" % gpn, "#SBATCH --gpus-per-node=%d" % gpn,
          "#SBATCH --time=%s" % rng.choice(["04:00:00", "24:00:00", "48:00:00"]), "#SBATCH --exclusive",
          "#SBATCH --output=%s" % ("%x-%j-%t.out" if per_task else "slurm-%j.out"), "", "export NCCL_DEBUG=%s" % ("INFO" if S.nccl_info else "WARN"),
          "export CUDA_DEVICE_MAX_CONNECTIONS=1", "export TORCH_NCCL_ASYNC_ERROR_HANDLING=1", "",
          "srun %s--kill-on-bad-exit=%d --container-image=nvcr.io/nvidia/pytorch:24.0%d-py3 python -u %s/pretrain_gpt.py \\" % ("-l " if not per_task else "", 1 if kill_bad else 0, rng.randint(1, 9), S.root),
          "    --tensor-model-parallel-size %d --pipeline-model-parallel-size %d \\" % (tp, pp),
          "    --distributed-timeout-minutes %d --bf16 --use-distributed-optimizer ..." % (timeout_ms // 60000)]
    out.add("sbatch_%s.sh" % jname, sb)
    _kern_files(rng, out, job, S, t0, S.t_end, prefix="nodes")
    if cause == "straggler" or (cause is None and rng.random() < 0.3):
        # nvidia-smi query from the straggler node
        ni = job.ni(S.straggler) if cause == "straggler" else rng.randrange(nn)
        out.add("nodes/%s/nvidia-smi-q-d-PERFORMANCE.txt" % job.nodes[ni].name.split(".")[0], smi_perf(rng, job, ni, S.straggler if cause == "straggler" else None, S.t_fail))
    run["layout_variant"] = "per-task-output" if per_task else "srun-l"
    return out, S


def smi_perf(rng, job, ni, slow_rank, t):
    L = ["", "==============NVSMI LOG==============", "", "Timestamp                                 : %s" % T.dmesg_T(t), "Driver Version                            : 550.90.07", "CUDA Version                              : 12.4", "", "Attached GPUs                             : %d" % job.gpn]
    for lr in range(job.gpn):
        slow = slow_rank is not None and job.ni(slow_rank) == ni and job.lr(slow_rank) == lr
        L += ["GPU 00000000:%s:00.0" % job.nodes[ni].pci[lr].upper(), "    Performance State                     : P0", "    Clocks Event Reasons",
              "        Idle                              : Not Active", "        Applications Clocks Setting       : Not Active", "        SW Power Cap                      : %s" % ("Not Active"),
              "        HW Slowdown                       : %s" % ("Active" if slow else "Not Active"), "            HW Thermal Slowdown           : %s" % ("Active" if slow else "Not Active"),
              "            HW Power Brake Slowdown       : Not Active", "        Sync Boost                        : Not Active", "        SW Thermal Slowdown               : Not Active", "        Display Clock Setting             : Not Active"]
    return L


def layout_deepspeed_pdsh(rng, cause, run):
    """DeepSpeed MoE training launched by the deepspeed launcher over pdsh; one combined log with 'host: ' prefixes."""
    out = Out()
    nn = rng.choice([2, 2, 4, 4, 8])
    gpn = 8
    nodes = make_nodes(rng, nn, rng.choice(["aws", "plain", "gpu-h100", "azure"]), gpus=gpn)
    job = Job(rng, nodes, gpn, ep=rng.choice([4, 8]))
    t0 = C.pick_base_time(rng)
    step_s = rng.uniform(1.2, 6)
    n_ok = rng.randint(30, 300)
    timeout_ms = rng.choice([1800000, 600000])
    S = nccl_scenario(rng, job, cause, "deepspeed", "cuda", t0 + 240, n_ok, step_s, timeout_ms)
    fill_timeouts(rng, S, job)
    W = job.world
    E = EvList()
    master = nodes[0]
    hosts = [n.name.split(".")[0] for n in nodes]
    E.add(t0, "%s [INFO] [real_accelerator.py:219:get_accelerator] Setting ds_accelerator to cuda (auto detect)" % T.ds(t0))
    E.add(t0 + 1, "%s [INFO] [runner.py:568:main] cmd = pdsh -S -f 1024 -w %s export PYTHONPATH=%s; export NCCL_IB_HCA=mlx5; export NCCL_DEBUG=%s;  cd %s; /usr/bin/python3 -u -m deepspeed.launcher.launch --world_info=%s --node_rank=%%n --master_addr=%s --master_port=29500 train_moe.py --deepspeed --deepspeed_config ds_config.json --ep-world-size %d" % (
        T.ds(t0 + 1), ",".join(hosts), S.root, "INFO" if S.nccl_info else "WARN", S.root, alnum(rng, 120, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"), master.ip, job.ep))
    for ni, h in enumerate(hosts):
        tt = t0 + 3 + ni * 0.05
        E.add(tt, "%s: %s [INFO] [launch.py:146:main] WORLD INFO DICT: {%s}" % (h, T.ds(tt), ", ".join("'%s': [0, 1, 2, 3, 4, 5, 6, 7]" % x for x in hosts)))
        E.add(tt + 0.01, "%s: %s [INFO] [launch.py:152:main] nnodes=%d, num_local_procs=8, node_rank=%d" % (h, T.ds(tt), nn, ni))
        E.add(tt + 0.02, "%s: %s [INFO] [launch.py:164:main] dist_world_size=%d" % (h, T.ds(tt), W))
        E.add(tt + 0.03, "%s: %s [INFO] [launch.py:166:main] Setting CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7" % (h, T.ds(tt)))
        E.add(tt + 0.04, "%s: %s [INFO] [launch.py:256:main] process %d spawned with command: ['/usr/bin/python3', '-u', 'train_moe.py', '--local_rank=0', '--deepspeed', '--deepspeed_config', 'ds_config.json']" % (h, T.ds(tt), job.pid[ni * gpn]))
    for r in range(W):
        h = job.host(r)
        if r == 0:
            E.add(t0 + 30, "%s: %s [INFO] [comm.py:652:init_distributed] cdb=None" % (h, T.ds(t0 + 30)))
            E.add(t0 + 30.1, "%s: %s [INFO] [comm.py:683:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl" % (h, T.ds(t0 + 30.1)))
        if r % 8 == 0:
            E.add(t0 + 40, "%s: %s [INFO] [logging.py:128:log_dist] [Rank %d] Creating MoE layer with num_experts: %d | num_local_experts: %d | expert_parallel_size: %d" % (h, T.ds(t0 + 40), r, job.ep * 8, 8, job.ep))
        for t, st, l in S.ev.get(r, []):
            for sub in l.split("\n"):
                E.add(t, "%s: %s" % (h, sub))
    tt = t0 + 240
    step = 0
    tend = S.t_fail if cause else tt + n_ok * step_s
    slow0 = tt + (S.t_fail - tt) * 0.3 if cause == "straggler" else None
    while tt < tend:
        step += 1
        st = step_s * rng.uniform(0.95, 1.05) * (1.7 if slow0 and tt > slow0 else 1)
        tt += st
        if step % 10 == 0 and tt < tend:
            for l in ds_step_lines(tt, step, 1e-4 * min(1, step / 500.0), W * 4 / st, rng.uniform(30, 40), rng.uniform(60, 75)):
                E.add(tt, "%s: %s" % (hosts[0], l))
        if cause == "straggler" and step % 50 == 0:
            # per-rank timers printed by the user script on every rank
            for r in range(W):
                slow = slow0 and tt > slow0
                fwd = rng.uniform(300, 330) * (1.0 if not (slow and r == S.straggler) else 1.75)
                a2a = rng.uniform(80, 120) + (0 if not slow else (20 if r == S.straggler else rng.uniform(250, 300)))
                E.add(tt + 0.02, "%s: [rank%d] step %d timers: fwd_moe_ms=%.1f a2a_wait_ms=%.1f bwd_ms=%.1f" % (job.host(r), r, step, fwd, a2a, fwd * 1.9))
    if cause is None:
        E.add(tt + 1, "%s: %s [INFO] [launch.py:351:main] Process %d exits successfully." % (hosts[0], T.ds(tt + 1), job.pid[0]))
    else:
        first = sorted([(v[0], r) for r, v in S.exits.items()])
        if getattr(S, "preempt", None):
            E.add(S.t_fail, "%s: %s [INFO] [launch.py:319:sigkill_handler] Killing subprocess %d" % (hosts[0], T.ds(S.t_fail), job.pid[0]))
            E.add(S.t_fail + 0.1, "pdsh@%s: interrupt (one more within 1 sec to abort)" % hosts[0] if S.preempt == "scancel" else "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO %s ***" % (rng.randint(10**5, 10**7), hosts[0], T.slurm(S.t_fail), "TIME LIMIT" if S.preempt == "timelimit" else "PREEMPTION"))
        if first and not getattr(S, "preempt", None) or (first and getattr(S, "preempt", None) == "spot"):
            tf, rf = first[0]
            ni = job.ni(rf)
            h = hosts[ni]
            tt = tf + rng.uniform(0.5, 3)
            for r in range(ni * gpn, ni * gpn + gpn):
                E.add(tt, "%s: %s [INFO] [launch.py:319:sigkill_handler] Killing subprocess %d" % (h, T.ds(tt), job.pid[r]))
            E.add(tt + 0.2, "%s: %s [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python3', '-u', 'train_moe.py', '--local_rank=%d', '--deepspeed', '--deepspeed_config', 'ds_config.json'] exits with return code = %d" % (h, T.ds(tt + 0.2), job.lr(rf), S.exits[rf][1]))
            E.add(tt + 0.5, "pdsh@%s: %s: ssh exited with exit code %d" % (hosts[0], h, abs(S.exits[rf][1]) if S.exits[rf][1] > 0 else 1))
            for ni2 in range(nn):
                if ni2 != ni and rng.random() < 0.6:
                    fr = [r for r in range(ni2 * gpn, ni2 * gpn + gpn) if r in S.exits]
                    if fr:
                        rr = min(fr, key=lambda x: S.exits[x][0])
                        t2 = S.exits[rr][0] + 1
                        E.add(t2, "%s: %s [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python3', '-u', 'train_moe.py', '--local_rank=%d', '--deepspeed', '--deepspeed_config', 'ds_config.json'] exits with return code = %d" % (hosts[ni2], T.ds(t2), job.lr(rr), S.exits[rr][1]))
                        E.add(t2 + 0.3, "pdsh@%s: %s: ssh exited with exit code 1" % (hosts[0], hosts[ni2]))
    lines = E.lines()
    name = rng.choice(["train.log", "output.log", "run_%s.log" % T.dt(t0).strftime("%Y%m%d_%H%M")])
    if rng.random() < 0.3 and len(lines) > 400:
        k = len(lines) // 2
        out.add_gz(name + ".1.gz", lines[:k])
        out.add(name, lines[k:])
    else:
        out.add(name, lines)
    out.add("hostfile", ["%s slots=8" % h for h in hosts])
    out.add("ds_config.json", ['{', '  "train_micro_batch_size_per_gpu": 4,', '  "gradient_accumulation_steps": 4,', '  "bf16": {"enabled": true},', '  "zero_optimization": {"stage": 2, "overlap_comm": true},', '  "wall_clock_breakdown": false', '}'])
    _kern_files(rng, out, job, S, t0, S.t_end, prefix="syslogs")
    return out, S


def layout_fsdp2_torchrun(rng, cause, run):
    """FSDP2/torchtitan job with torchrun --tee 3 --log-dir: logs/<run_id>/attempt_N/<local_rank>/{stdout,stderr}.log per node,
    plus each node's agent console. Optional restart attempts."""
    out = Out()
    nn = rng.choice([1, 2, 2, 4, 4, 8])
    gpn = rng.choice([8, 8, 4])
    nodes = make_nodes(rng, nn, rng.choice(["gcp", "aws", "gpu-h100", "fqdn"]), gpus=gpn)
    job = Job(rng, nodes, gpn)
    t0 = C.pick_base_time(rng)
    step_s = rng.uniform(0.8, 5)
    n_ok = rng.randint(20, 300)
    timeout_ms = rng.choice([600000, 1800000])
    variant = "compile" if cause == "python_exception" and rng.random() < 0.5 else None
    if cause == "network" and nn == 1:
        cause = rng.choice(["nvlink", "gpu_hardware"])
    # healthy-with-restart: attempt_0 fails due to a transient rendezvous/network error and attempt_1 finishes
    restart_ok = cause is None and rng.random() < 0.5
    S = nccl_scenario(rng, job, cause, "fsdp", "cuda", t0 + 120, n_ok, step_s, timeout_ms, variant=variant)
    fill_timeouts(rng, S, job)
    W = job.world
    run_id = rng.choice(["%d" % rng.randint(1000, 99999), "titan-%s" % alnum(rng, 6), "none"])
    pfx = rng.choice(["logs", "torchrun_logs"])
    script = "torchtitan/train.py"
    attempts = [0]
    if restart_ok:
        attempts = [0, 1]
    for ni, nd in enumerate(nodes):
        h = nd.name.split(".")[0]
        agent = []
        ta = t0
        agent.append("%s %d torch/distributed/run.py:792] " % (T.elastic(ta, "W"), job.tpid[ni]))
        agent.append("%s %d torch/distributed/run.py:792] *****************************************" % (T.elastic(ta, "W"), job.tpid[ni]))
        agent.append("%s %d torch/distributed/run.py:792] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. " % (T.elastic(ta, "W"), job.tpid[ni]))
        agent.append("%s %d torch/distributed/run.py:792] *****************************************" % (T.elastic(ta, "W"), job.tpid[ni]))
        agent.append("%s %d torch/distributed/launcher/api.py:188] Starting elastic_operator with launch configs:" % (T.elastic(ta + 0.1, "I"), job.tpid[ni]))
        agent.append("%s %d torch/distributed/launcher/api.py:188]   entrypoint       : %s" % (T.elastic(ta + 0.1, "I"), job.tpid[ni], script))
        agent.append("%s %d torch/distributed/launcher/api.py:188]   min_nodes        : %d" % (T.elastic(ta + 0.1, "I"), job.tpid[ni], nn))
        agent.append("%s %d torch/distributed/launcher/api.py:188]   max_nodes        : %d" % (T.elastic(ta + 0.1, "I"), job.tpid[ni], nn))
        agent.append("%s %d torch/distributed/launcher/api.py:188]   nproc_per_node   : %d" % (T.elastic(ta + 0.1, "I"), job.tpid[ni], gpn))
        agent.append("%s %d torch/distributed/launcher/api.py:188]   run_id           : %s" % (T.elastic(ta + 0.1, "I"), job.tpid[ni], run_id))
        agent.append("%s %d torch/distributed/launcher/api.py:188]   rdzv_backend     : c10d" % (T.elastic(ta + 0.1, "I"), job.tpid[ni]))
        agent.append("%s %d torch/distributed/launcher/api.py:188]   rdzv_endpoint    : %s:29400" % (T.elastic(ta + 0.1, "I"), job.tpid[ni], nodes[0].name))
        agent.append("%s %d torch/distributed/launcher/api.py:188]   max_restarts     : %d" % (T.elastic(ta + 0.1, "I"), job.tpid[ni], 3 if restart_ok else rng.choice([0, 0, 3])))
        agent.append("%s %d torch/distributed/launcher/api.py:188]   log_dir          : /tmp/%s/%s" % (T.elastic(ta + 0.1, "I"), job.tpid[ni], pfx, run_id))
        for a in attempts:
            tb0 = t0 + 5 + a * 400
            agent.append("%s %d torch/distributed/elastic/agent/server/api.py:%d] [default] Rendezvous complete for workers. Result:" % (T.elastic(tb0, "I"), job.tpid[ni], 525))
            agent.append("  restart_count=%d" % a)
            agent.append("  master_addr=%s" % nodes[0].name)
            agent.append("  master_port=%d" % rng.randint(29500, 29600))
            agent.append("  group_rank=%d" % ni)
            agent.append("  group_world_size=%d" % nn)
            agent.append("  local_ranks=%s" % list(range(gpn)))
            agent.append("  role_ranks=%s" % list(range(ni * gpn, ni * gpn + gpn)))
            agent.append("  global_ranks=%s" % list(range(ni * gpn, ni * gpn + gpn)))
            agent.append("  role_world_sizes=%s" % [W] * 1)
            agent.append("  global_world_sizes=%s" % [W] * 1)
            agent.append("")
            agent.append("%s %d torch/distributed/elastic/multiprocessing/api.py:%d] Setting worker%d reply file to: /tmp/torchelastic_%s/%s_%s/attempt_%d/0/error.json" % (T.elastic(tb0 + 0.1, "I"), job.tpid[ni], 298, 0, alnum(rng, 8), run_id, alnum(rng, 8), a))
            if restart_ok and a == 0:
                tf = tb0 + rng.uniform(60, 300)
                agent.append("%s %d torch/distributed/elastic/agent/server/api.py:%d] [default] Worker group FAILED. 3/3 attempts left; will restart worker group" % (T.elastic(tf, "I"), job.tpid[ni], 862))
                agent.append("%s %d torch/distributed/elastic/agent/server/api.py:%d] [default] Stopping worker group" % (T.elastic(tf + 0.1, "I"), job.tpid[ni], 691))
        # per-attempt rank files
        for a in attempts:
            for lr in range(gpn):
                r = ni * gpn + lr
                base = "%s/%s/attempt_%d/%d" % (pfx, run_id, a, lr)
                so, se = [], []
                tb0 = t0 + 5 + a * 400
                if r == 0:
                    so.append("[rank0]:[titan] %s - root - INFO - Starting job: Llama 3 8B training" % T.pylog(tb0 + 3))
                    so.append("[rank0]:[titan] %s - root - INFO - Building 1-D device mesh with ['dp_shard'], [%d]" % (T.pylog(tb0 + 4), W))
                    so.append("[rank0]:[titan] %s - root - INFO - [GC] Initial GC collection. 0.00 seconds." % T.pylog(tb0 + 4.1))
                    so.append("[rank0]:[titan] %s - root - INFO - Applied FSDP to the model" % T.pylog(tb0 + 12))
                    if variant == "compile" or rng.random() < 0.4:
                        so.append("[rank0]:[titan] %s - root - INFO - Compiling each TransformerBlock with torch.compile" % T.pylog(tb0 + 12.5))
                    so.append("[rank0]:[titan] %s - root - INFO - CUDA memory usage for model: %.2fGiB(%.2f%%)" % (T.pylog(tb0 + 13), rng.uniform(3, 9), rng.uniform(4, 11)))
                    so.append("[rank0]:[titan] %s - root - INFO - Checkpointing active. Checkpoints will be loaded from and saved to ./outputs/checkpoint" % T.pylog(tb0 + 13.2))
                    so.append("[rank0]:[titan] %s - root - INFO - Training starts at step 1, with local batch size 2, global batch size %d, sequence length 8192, total steps 10000 (warmup 200)" % (T.pylog(tb0 + 13.4), 2 * W))
                if r % gpn == 0 and rng.random() < 0.5:
                    se.append("[rank%d]:%s/torch/distributed/checkpoint/state_dict_saver.py:%d: FutureWarning: `save_state_dict` is deprecated and will be removed in future versions.Please use `save` instead." % (r, C.PY, rng.choice([112, 167])))
                    se.append("[rank%d]:  warnings.warn(" % r)
                se.append("[rank%d]:[W%s ProcessGroupNCCL.cpp:%d] Warning: TORCH_NCCL_AVOID_RECORD_STREAMS is the default now, this environment variable is thus deprecated. (function operator())" % (r, T.c10d(tb0 + 2, "")[1:], rng.choice([4561, 4582])))
                tstart = t0 + 120 + (a * 400 if not (restart_ok and a == 0) else 0)
                tend = (tb0 + 200) if (restart_ok and a == 0) else (S.t_fail if cause else tstart + n_ok * step_s)
                step = 0
                tt = tstart
                slow0 = tstart + (S.t_fail - tstart) * 0.3 if cause == "straggler" else None
                while tt < tend:
                    step += 1
                    st = step_s * rng.uniform(0.97, 1.03) * (1.6 if slow0 and tt > slow0 else 1)
                    tt += st
                    if tt >= tend:
                        break
                    if step % 10 == 0 or step == 1:
                        so.append(titan_step_line(tt, r, step, 12 * 0.5 ** (step / 150.0) + 2.2 + rng.uniform(-0.03, 0.03), rng.uniform(50, 70), rng.uniform(63, 88), int(8192 * 2 / st), 8192 * 2 / st * 0.046, 8192 * 2 / st * 0.0047))
                    if step % 500 == 0:
                        so.append("[rank%d]:[titan] %s - root - INFO - Saving the checkpoint (or staging if async is enabled)." % (r, T.pylog(tt)))
                        so.append("[rank%d]:[titan] %s - root - INFO - [GC] GC collection invoked by checkpointer. 0.03 seconds." % (r, T.pylog(tt + 0.2)))
                        so.append("[rank%d]:[titan] %s - root - INFO - Finished saving the checkpoint (or staging if async is enabled)in %.2f seconds." % (r, T.pylog(tt + 4), rng.uniform(2, 8)))
                if restart_ok and a == 0:
                    if r == 0:
                        se.append("[rank0]:[W%s socket.cpp:%d] [c10d] The client socket has failed to connect to [%s]:%d (errno: 110 - Connection timed out)." % (T.c10d(tend, "")[1:], rng.choice([462, 752]), nodes[0].name, 29400))
                    se += ["[rank%d]: Traceback (most recent call last):" % r,
                           "[rank%d]:   File \"%s/torchtitan/train.py\", line 466, in train" % (r, "/workspace/torchtitan"),
                           "[rank%d]:     self.train_step(data_iterator)" % r,
                           "[rank%d]: torch.distributed.DistNetworkError: Connection reset by peer" % r] if r == (W - 1) else []
                elif cause is None:
                    if r == 0:
                        so.append("[rank0]:[titan] %s - root - INFO - Training completed" % T.pylog(tend + 1))
                        so.append("[rank0]:[titan] %s - root - INFO - Sleeping 2 seconds for other ranks to complete" % T.pylog(tend + 1.1))
                        so.append("[rank0]:[titan] %s - root - INFO - Training completed" % T.pylog(tend + 3))
                    if rng.random() < 0.3:
                        se.append("[rank%d]:[W%s ProcessGroupNCCL.cpp:%d] Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only recently been added. For more info, please refer to https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())" % (r, T.c10d(tend + 4, "")[1:], rng.choice([1250, 1496])))
                else:
                    for t, stream, l in S.ev.get(r, []):
                        for sub in l.split("\n"):
                            (so if stream == "out" else se).append(("[rank%d]:" % r + sub) if not sub.startswith("[rank") else sub)
                out.add(base + "/stdout.log", so)
                out.add(base + "/stderr.log", se)
        # agent tail
        if cause is not None:
            if getattr(S, "preempt", None) in ("timelimit", "preempt", "scancel"):
                tp_ = S.t_fail
                agent.append("%s %d torch/distributed/elastic/agent/server/api.py:%d] Received 15 death signal, shutting down workers" % (T.elastic(tp_, "W"), job.tpid[ni], 704))
                for lr in range(gpn):
                    agent.append("%s %d torch/distributed/elastic/multiprocessing/api.py:897] Sending process %d closing signal SIGTERM" % (T.elastic(tp_ + 0.01, "W"), job.tpid[ni], job.pid[ni * gpn + lr]))
                agent += ["Traceback (most recent call last):", '  File "/usr/local/bin/torchrun", line 8, in <module>', "    sys.exit(main())",
                          '  File "%s/torch/distributed/elastic/multiprocessing/api.py", line 84, in _terminate_process_handler' % C.PY,
                          "    raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)",
                          "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % job.tpid[ni]]
            else:
                for t, l in torchrun_agent_lines(rng, S, job, ni, S.t_fail, script):
                    agent.append(l)
        elif restart_ok:
            pass
        fn = rng.choice(["torchrun.log", "launcher.out", "console.log"])
        out.add("%s/%s/%s" % ("hosts", h, fn), agent)
    if cause is not None and getattr(S, "preempt", None) in ("timelimit", "preempt"):
        ev = ["%s  Warning  Preempting  pod/%s-worker-%d  Preempted by default/%s on node %s" % (T.iso_z(S.t_fail - 2), "titan-llama8b", i, "prod-inference-%s" % alnum(rng, 5), nodes[i].name) for i in range(nn)] if S.preempt == "preempt" else \
             ["%s  Warning  DeadlineExceeded  pytorchjob/titan-llama8b  Job was active longer than specified deadline" % T.iso_z(S.t_fail)]
        out.add("k8s-events.txt", ["LAST SEEN  TYPE  REASON  OBJECT  MESSAGE"] + ev)
    for k, v in S.extra_files.items():
        out.add(k, v)
    _kern_files(rng, out, job, S, t0, S.t_end, prefix="hosts")
    if cause == "straggler":
        ni = job.ni(S.straggler)
        dc = ["# Entity  GPUTL  SMCLK  TMPTR  POWER  XIDS"]
        for i in range(30):
            for lr in range(gpn):
                slow = lr == job.lr(S.straggler) and i > 8
                dc.append("GPU %d    %5d  %5d  %5d  %6.1f  %4d" % (lr, rng.randint(96, 100) if slow or i <= 8 else rng.randint(55, 70) if i > 8 else rng.randint(95, 100),
                                                            rng.randint(1095, 1250) if slow else 1980, rng.randint(84, 90) if slow else rng.randint(55, 68), rng.uniform(420, 480) if slow else rng.uniform(520, 690), 0))
        out.add("hosts/%s/dcgmi-dmon.txt" % nodes[ni].name.split(".")[0], dc)
    return out, S


def layout_rocm_slurm(rng, cause, run):
    """PyTorch on AMD MI250X/MI300X with RCCL, Slurm srun -l (labels), amdgpu kernel logs."""
    out = Out()
    mi250 = rng.random() < 0.5
    nn = rng.choice([2, 4, 8, 16, 32]) if mi250 else rng.choice([1, 2, 4, 8])
    gpn = 8
    nodes = make_nodes(rng, nn, "nid" if mi250 else rng.choice(["plain", "fqdn", "gpu-h100"]), gpus=gpn, pci=PCI_MI250 if mi250 else PCI_MI300)
    if not mi250:
        for nd in nodes:
            nd.name = nd.name.replace("gpu-h100", "mi300x").replace("gpu-a100", "mi300x").replace("hgx-h100", "mi300x").replace("h200", "mi300x")
    job = Job(rng, nodes, gpn)
    job.ver_nccl = rng.choice(["2.18.3", "2.20.5", "2.21.5"])
    t0 = C.pick_base_time(rng)
    step_s = rng.uniform(1, 8)
    n_ok = rng.randint(30, 250)
    timeout_ms = rng.choice([600000, 1800000])
    C.set_py("/opt/conda/envs/py_3.10/lib/python3.10/site-packages" if rng.random() < 0.5 else "/lustre/orion/proj123/world-shared/envs/torch-rocm/lib/python3.10/site-packages")
    if cause in ("nvlink",):
        cause = "gpu_hardware"
    S = nccl_scenario(rng, job, cause, rng.choice(["megatron", "fsdp"]) if False else "fsdp", "rocm", t0 + 150, n_ok, step_s, timeout_ms)
    C.set_py("/usr/local/lib/python3.10/dist-packages")
    W = job.world
    jobid = rng.randint(1000000, 4000000)
    E = EvList()
    E.add(t0, "+ srun -l -N %d -n %d --ntasks-per-node=8 --gpus-per-task=1 --gpu-bind=closest -c 7 python -u train.py --model llama2-13b" % (nn, W))
    for r in range(W):
        if r == 0:
            E.add(t0 + 12, "0: RCCL version %s+hip%s HEAD:%s" % (job.ver_nccl, rng.choice(["6.0", "6.1", "6.2"]), hexid(rng, 7)))
            E.add(t0 + 12.5, "0: [W%s] Warning: ROCm env var HIP_VISIBLE_DEVICES and CUDA_VISIBLE_DEVICES are both set" % T.c10d(t0 + 12.5, "")[1:] if rng.random() < 0.3 else "0: torch %s+rocm%s  device_count=1" % (rng.choice(["2.4.1", "2.5.1", "2.6.0"]), rng.choice(["6.1", "6.2"])))
            if mi250:
                E.add(t0 + 13, "0: NCCL_NET_GDR_LEVEL=3 FI_CXI_ATS=0 NCCL_SOCKET_IFNAME=hsn0 using aws-ofi-rccl plugin")
        for t, st, l in S.ev.get(r, []):
            for sub in l.split("\n"):
                E.add(t, "%d: %s" % (r, sub))
    tt = t0 + 150
    step = 0
    tend = S.t_fail if cause else tt + n_ok * step_s
    slow0 = tt + (S.t_fail - tt) * 0.3 if cause == "straggler" else None
    while tt < tend:
        step += 1
        st = step_s * rng.uniform(0.96, 1.04) * (1.5 if slow0 and tt > slow0 else 1)
        tt += st
        if tt < tend and step % 5 == 0:
            E.add(tt, "0: %s | step %6d | loss %.4f | lr %.3e | grad_norm %.3f | step_time %.3fs | tokens/s/gpu %d" % (T.sec(tt), step, 2.3 + 5 * 0.5 ** (step / 100.0), 3e-4, rng.uniform(0.2, 1.1), st, int(4096 * 4 / st)))
        if cause == "straggler" and step % 25 == 0 and tt < tend:
            for r in range(W):
                slow = slow0 and tt > slow0 and r == S.straggler
                E.add(tt + 0.001, "%d: [perf] rank=%d compute_ms=%.1f comm_wait_ms=%.1f gcd_sclk=%dMHz" % (r, r, st * 1000 * (0.55 if not (slow0 and tt > slow0) else (0.85 if slow else 0.52)), st * 1000 * (0.05 if slow else 0.3), rng.randint(900, 1100) if slow else rng.randint(1650, 1700)))
    if cause is None:
        E.add(tt + 2, "0: training finished: %d steps" % step)
    else:
        first = sorted([(v[0], r) for r, v in S.exits.items()])
        pre = getattr(S, "preempt", None)
        if pre in ("timelimit", "preempt", "scancel"):
            E.add(S.t_fail, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s%s ***" % (jobid, nodes[0].name, T.slurm(S.t_fail), " DUE TO TIME LIMIT" if pre == "timelimit" else " DUE TO PREEMPTION" if pre == "preempt" else ""))
            E.add(S.t_fail + 0.1, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
        elif first:
            tf, rf = first[0]
            code = S.exits[rf][1]
            E.add(tf + 0.5, "srun: error: %s: task %d: %s" % (job.host(rf), rf, "Out Of Memory" if S.slurm_oom_task is not None else ("Exited with exit code %d" % code if code > 0 else {6: "Aborted (core dumped)", 9: "Killed", 11: "Segmentation fault (core dumped)", 15: "Terminated"}.get(-code, "Killed"))))
            E.add(tf + 0.6, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
            if S.slurm_oom_task is not None:
                E.add(tf + 0.4, "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % jobid)
            E.add(tf + 0.7, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (jobid, nodes[0].name, T.slurm(tf + 0.7)))
            for tt2, r in first[1:5]:
                c2 = S.exits[r][1]
                E.add(tt2 + 0.5, "srun: error: %s: task %d: %s" % (job.host(r), r, "Exited with exit code %d" % c2 if c2 > 0 else "Aborted (core dumped)"))
    out.add("slurm-%d.out" % jobid, E.lines())
    for k, v in S.extra_files.items():
        out.add(k, v)
    style = _kern_files(rng, out, job, S, t0, S.t_end, prefix="dmesg")
    return out, S


LAYOUTS = {
    "megatron-pp-slurm": (layout_megatron_slurm, CAUSES_NCCL),
    "deepspeed-moe-pdsh": (layout_deepspeed_pdsh, ["gpu_hardware", "ecc_memory", "network", "host_oom_kill", "cuda_oom", "collective_mismatch", "straggler", "hang", "python_exception", "data_loader_stall", "crash_signal"]),
    "fsdp2-torchrun-tee": (layout_fsdp2_torchrun, ["python_exception", "host_oom_kill", "crash_signal", "hang", "preemption", "cuda_oom", "illegal_memory_access", "nvlink", "network", "ecc_memory", "straggler", "data_loader_stall"]),
    "rocm-rccl-slurm": (layout_rocm_slurm, ["illegal_memory_access", "gpu_hardware", "ecc_memory", "cuda_oom", "network", "crash_signal", "hang", "host_oom_kill", "preemption", "straggler", "python_exception"]),
}
