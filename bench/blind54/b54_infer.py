"""Tensor-parallel inference throughput benchmarks (vLLM benchmark_throughput)."""
from b54_common import (Ctx, kfile, render_kernel, kernel_noise, xid_line, oom_kill_lines,
                        segv_kline, nccl_prefix, slurm_preempt)
from b54_torchfail import py_tb, CUDA_HINT

CAUSES = ["gpu_hardware", "nvlink", "cuda_oom", "illegal_memory_access", "python_exception",
          "host_oom_kill", "crash_signal", "preemption", "hang", "unknown"]

MODELS = [("meta-llama/Llama-3.1-70B-Instruct", 131.4 / 8), ("Qwen/Qwen2.5-72B-Instruct", 135.4 / 8),
          ("mistralai/Mixtral-8x22B-Instruct-v0.1", 262.0 / 8)]


def gen(rng, cause):
    ctx = Ctx(rng, nnodes=1, gpn=8)
    host = ctx.hosts[0]
    tp = rng.choice([4, 8])
    model, wgib = rng.choice(MODELS)
    ver = rng.choice(["0.6.3.post1", "0.6.4", "0.7.2"])
    ks = rng.choice(["syslog", "dmesg"])
    drv = ctx.ranks[0]
    workers = ctx.ranks[1:tp]
    t = [0.0]

    def ts():
        t[0] += rng.uniform(0.05, 3)
        return ctx.at(t[0]).strftime("%m-%d %H:%M:%S")

    def W(r, lvl, src, msg):
        pre = "" if r is drv else "(VllmWorkerProcess pid=%d) " % r.pid
        return "%s%s %s %s] %s" % (pre, lvl, ts(), src, msg)

    out = ["$ python benchmarks/benchmark_throughput.py --model %s --tensor-parallel-size %d --input-len 1024 --output-len 256 --num-prompts 2000" % (model, tp),
           "INFO %s __init__.py:207] Automatically detected platform cuda." % ts(),
           "Namespace(backend='vllm', dataset=None, input_len=1024, output_len=256, n=1, num_prompts=2000, model='%s', tokenizer=None, quantization=None, tensor_parallel_size=%d, seed=0, trust_remote_code=False, max_model_len=None, dtype='auto', gpu_memory_utilization=%.2f, enforce_eager=False, kv_cache_dtype='auto', device='auto', enable_prefix_caching=False)" % (model, tp, rng.choice([0.9, 0.92, 0.95])),
           W(drv, "INFO", "config.py:510", "This model supports multiple tasks: {'generate', 'embed'}. Defaulting to 'generate'."),
           W(drv, "INFO", "config.py:1310", "Defaulting to use mp for distributed inference"),
           W(drv, "INFO", "llm_engine.py:234", "Initializing an LLM engine (v%s) with config: model='%s', speculative_config=None, tokenizer='%s', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=131072, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=%d, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, seed=0, served_model_name=%s" % (ver, model, model, tp, model)),
           W(drv, "WARNING", "multiproc_gpu_executor.py:53", "Reducing Torch parallelism from 112 threads to 1 to avoid unnecessary CPU contention. Set OMP_NUM_THREADS in the external environment to tune this value as needed."),
           W(drv, "INFO", "custom_cache_manager.py:17", "Setting Triton cache manager to: vllm.triton_utils.custom_cache_manager:CustomCacheManager")]
    for w in workers:
        out.append(W(w, "INFO", "multiproc_worker_utils.py:215", "Worker ready; awaiting tasks"))
    out.append(W(drv, "INFO", "utils.py:961", "Found nccl from library libnccl.so.2"))
    out.append(W(drv, "INFO", "pynccl.py:69", "vLLM is using nccl==%s" % ctx.nccl))
    for r in [drv] + workers:
        if rng.random() < 0.4:
            out.append("%s NCCL INFO comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId 0x%x - Init COMPLETE" % (
                nccl_prefix(ctx, r), rng.getrandbits(44), r.local, tp, r.local, r.local, r.bus, rng.getrandbits(60)))
    out.append(W(drv, "INFO", "custom_all_reduce_utils.py:242", "reading GPU P2P access cache from /root/.cache/vllm/gpu_p2p_access_cache_for_0,1,2,3,4,5,6,7.json"))
    out.append(W(drv, "INFO", "shm_broadcast.py:236", "vLLM message queue communication handle: Handle(connect_ip='127.0.0.1', local_reader_ranks=%s, buffer=<vllm.distributed.device_communicators.shm_broadcast.ShmRingBuffer object at 0x7f%09x>, local_subscribe_port=%d, remote_subscribe_port=None)" % (
        list(range(1, tp)), rng.getrandbits(36), rng.randint(40000, 60000))))
    out.append(W(drv, "INFO", "model_runner.py:1072", "Starting to load model %s..." % model))
    out.append("Loading safetensors checkpoint shards: 100%% Completed | 30/30 [00:%02d<00:00,  1.%02dit/s]" % (rng.randint(10, 59), rng.randint(0, 99)))
    for r in [drv] + workers:
        out.append(W(r, "INFO", "model_runner.py:1077", "Loading model weights took %.4f GB" % (wgib * 8 / tp)))
    truth = {"initiator": None, "notes": ""}
    kern = []
    bad = rng.choice(workers)
    died = None
    if cause in (None, "hang", "gpu_hardware", "nvlink", "illegal_memory_access", "crash_signal", "host_oom_kill", "unknown", "preemption"):
        out.append(W(drv, "INFO", "distributed_gpu_executor.py:57", "# GPU blocks: %d, # CPU blocks: %d" % (rng.randint(9000, 40000), rng.randint(3000, 7000))))
        out.append(W(drv, "INFO", "model_runner.py:1402", "Capturing cudagraphs for decoding. This may lead to unexpected consequences if the model is not static."))
        out.append(W(drv, "INFO", "model_runner.py:1530", "Graph capturing finished in %d secs, took %.2f GiB" % (rng.randint(8, 30), rng.uniform(0.3, 1.5))))
    total = 2000
    if cause is None:
        out.append("Processed prompts: 100%%|##########| %d/%d [02:%02d<00:00, %.2fit/s, est. speed input: %.2f toks/s, output: %.2f toks/s]" % (
            total, total, rng.randint(0, 59), rng.uniform(12, 16), rng.uniform(12000, 16000), rng.uniform(3000, 4000)))
        if rng.random() < 0.5:
            out.insert(len(out) - 1, W(drv, "WARNING", "scheduler.py:1481", "Sequence group 1873 is preempted by PreemptionMode.RECOMPUTE mode because there is not enough KV cache space. This can affect the end-to-end performance. Increase gpu_memory_utilization or tensor_parallel_size to provide more KV cache memory. total_num_cumulative_preemption=1"))
        out.append("Throughput: %.2f requests/s, %.2f total tokens/s, %.2f output tokens/s" % (rng.uniform(12, 16), rng.uniform(15000, 20000), rng.uniform(3000, 4000)))
        truth["notes"] = "healthy TP benchmark; KV-cache preemption warning and P2P cache lines are harmless"
    else:
        done = rng.randint(100, 1500)
        out.append("Processed prompts:  %d%%|#         | %d/%d [00:%02d<01:%02d, 13.1it/s, est. speed input: 13421.77 toks/s, output: 3355.44 toks/s]" % (
            100 * done // total, done, total, rng.randint(10, 59), rng.randint(10, 59)))
        secs = t[0] + 60
        if cause == "cuda_oom":
            out.append(W(bad, "ERROR", "multiproc_worker_utils.py:236", "Exception in worker VllmWorkerProcess while processing method determine_num_available_blocks."))
            out.append(py_tb([("/usr/local/lib/python3.10/dist-packages/vllm/worker/worker.py", 205, "determine_num_available_blocks", "self.model_runner.profile_run()")],
                       "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB. GPU %d has a total capacity of 79.10 GiB of which 1.62 GiB is free. Process %d has 77.47 GiB memory in use." % (bad.local, bad.pid)))
            truth["notes"] = "OOM on TP rank %d (GPU %d) during profiling" % (bad.local, bad.local)
            truth["initiator"] = {"rank": bad.local, "node": None}
        elif cause == "python_exception":
            out.append(py_tb([("benchmarks/benchmark_throughput.py", 431, "<module>", "main(args)"),
                              ("/usr/local/lib/python3.10/dist-packages/vllm/engine/llm_engine.py", 621, "_add_processed_request", "self._validate_model_inputs(processed_inputs, lora_request)")],
                             "ValueError: The decoder prompt (length 133120) is longer than the maximum model length of 131072. Make sure that `max_model_len` is no smaller than the number of text tokens."))
            truth["notes"] = "ValueError in the driver process (rank 0)"
            truth["initiator"] = {"rank": 0, "node": None}
            out.append(W(drv, "INFO", "multiproc_worker_utils.py:141", "Terminating local vLLM worker processes"))
        elif cause in ("gpu_hardware", "nvlink", "illegal_memory_access"):
            xid = {"gpu_hardware": rng.choice([79, 119]), "nvlink": 74, "illegal_memory_access": 31}[cause]
            msg = {"gpu_hardware": "unspecified launch failure", "nvlink": "unspecified launch failure",
                   "illegal_memory_access": "an illegal memory access was encountered"}[cause]
            if cause != "illegal_memory_access" or rng.random() < 0.5:
                kern.append((secs, xid_line(ctx, bad, xid, secs, "python3", ks)))
            out.append(W(bad, "ERROR", "multiproc_worker_utils.py:236", "Exception in worker VllmWorkerProcess while processing method start_worker_execution_loop."))
            out.append(py_tb([("/usr/local/lib/python3.10/dist-packages/vllm/distributed/device_communicators/custom_all_reduce.py", 268, "all_reduce", "ops.all_reduce(self._ptr, inp, out, self.buffer_ptrs[self.rank], self.max_size)")],
                             "RuntimeError: CUDA error: %s\n%s" % (msg, CUDA_HINT.rstrip())).replace("\n", "\n(VllmWorkerProcess pid=%d) " % bad.pid).join(["(VllmWorkerProcess pid=%d) " % bad.pid, ""]))
            died = (bad, -6)
            truth["notes"] = "%s on worker GPU %d (%s)" % (cause, bad.local, bad.pci)
            truth["initiator"] = {"rank": None, "node": host} if kern else None
        elif cause in ("crash_signal", "host_oom_kill", "unknown"):
            code = {"crash_signal": -11, "host_oom_kill": -9, "unknown": 1}[cause]
            if cause == "crash_signal" and rng.random() < 0.6:
                kern.append((secs, segv_kline(ctx, bad, secs, "libcuda.so.%s" % ctx.driver, ks)))
            if cause == "host_oom_kill":
                kern += oom_kill_lines(ctx, host, secs, bad.pid, "python3", ks, cgroup=True)
            died = (bad, code)
            truth["notes"] = {"crash_signal": "worker pid %d segfaulted", "host_oom_kill": "kernel OOM killer killed worker pid %d",
                              "unknown": "worker pid %d exited with code 1 without a message"}[cause] % bad.pid
            truth["initiator"] = {"rank": None, "node": host} if cause != "unknown" and kern else None
        elif cause == "hang":
            for k in range(rng.randint(3, 8)):
                out.append(W(drv, "WARNING", "shm_broadcast.py:396", "No available shared memory broadcast block found in 60 second. This typically happens when some processes are hanging."))
            out.append("^CTraceback (most recent call last):")
            out.append('  File "/usr/local/lib/python3.10/dist-packages/vllm/distributed/device_communicators/shm_broadcast.py", line 393, in acquire_write')
            out.append("KeyboardInterrupt")
            truth["notes"] = "a TP worker stopped responding; driver waits on the shm broadcast queue until the user hits Ctrl-C"
        elif cause == "preemption":
            out.append(slurm_preempt(ctx, secs))
            out.append(W(drv, "INFO", "multiproc_worker_utils.py:141", "Terminating local vLLM worker processes"))
            truth["notes"] = "inference benchmark job preempted by the scheduler"
        if died:
            r, code = died
            out.append(W(drv, "ERROR", "multiproc_worker_utils.py:123", "Worker VllmWorkerProcess pid %d died, exit code: %d" % (r.pid, code)))
            out.append(W(drv, "INFO", "multiproc_worker_utils.py:127", "Killing local vLLM worker processes"))
            if rng.random() < 0.5:
                out.append("/usr/lib/python3.10/multiprocessing/resource_tracker.py:254: UserWarning: resource_tracker: There appear to be 1 leaked shared_memory objects to clean up at shutdown")
    files = {"bench.log": "\n".join(out) + "\n"}
    if kern:
        files[kfile(ks, host)] = render_kernel(kern + kernel_noise(ctx, host, secs - 900, ks, 4))
    return files, truth
