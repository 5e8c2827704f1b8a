"""Serving and RL layouts: vllm-mp-tp (multiproc executor), vllm-ray-pp (Ray executor, multi-node),
sglang-server (TP/DP/EP scheduler processes), k8s-llm-serving (TGI shards / Triton TRT-LLM under
LeaderWorkerSet), rl-ray-grpo (verl / OpenRLHF trainers + vLLM rollout actors on Ray)."""
from b8common import (T, Out, EvList, make_nodes, kernel_render, xid_lines, oom_kill_lines, segfault_kernel,
                      mlx5_down_lines, oom_text, hexid, alnum, IB_PCI, CUDA_ASYNC, watchdog_timeout, nccl_prefix,
                      ib_completion_warn)
import b8common as C
from b8train import Job
from b8accel import _truth, _set, _kern, Res

PYL = "/usr/local/lib/python3.12/dist-packages"
MODELS = ["meta-llama/Llama-3.3-70B-Instruct", "Qwen/Qwen2.5-72B-Instruct", "deepseek-ai/DeepSeek-V3",
          "mistralai/Mixtral-8x22B-Instruct-v0.1", "Qwen/Qwen3-235B-A22B", "meta-llama/Llama-3.1-405B-Instruct-FP8"]


def _xid_for(cause, rng):
    if cause == "gpu_hardware":
        return rng.choice([79, 79, 119, 154])
    if cause == "ecc_memory":
        return rng.choice([48, 94, 95, 64])
    return 74


def _pyfr(path, ln, fn, code):
    return ['  File "%s", line %d, in %s' % (path, ln, fn), "    " + code]


def _cuda_exc_for(cause, xid):
    if cause == "ecc_memory":
        return "RuntimeError: CUDA error: uncorrectable ECC error encountered"
    if cause == "illegal_memory_access":
        return "RuntimeError: CUDA error: an illegal memory access was encountered"
    if xid == 74:
        return "RuntimeError: CUDA error: uncorrectable NVLink error detected during the execution"
    return rng_free_choice(xid)


def rng_free_choice(xid):
    return "RuntimeError: CUDA error: unspecified launch failure" if xid in (119, 154) else "RuntimeError: CUDA error: unknown error"


def _access_log(rng, E, t0, t1, client_ips, path="/v1/chat/completions", fmt="uvicorn", errors=0.0):
    t = t0
    while t < t1:
        t += rng.expovariate(1.0 / rng.uniform(0.3, 4))
        if t >= t1:
            break
        code = 200
        if rng.random() < errors:
            code = rng.choice([400, 400, 404, 422, 429])
        ip = rng.choice(client_ips)
        if fmt == "uvicorn":
            E.add(t, "INFO:     %s:%d - \"POST %s HTTP/1.1\" %d %s" % (ip, rng.randint(30000, 65000), path, code,
                                                                  {200: "OK", 400: "Bad Request", 404: "Not Found", 422: "Unprocessable Entity", 429: "Too Many Requests"}[code]))
        else:
            E.add(t, "[%s] INFO:     %s:%d - \"POST /generate HTTP/1.1\" %d" % (T.sec(t), ip, rng.randint(30000, 65000), code))


# =========================================================================== vLLM multiproc executor
def layout_vllm_mp(rng, cause, run):
    out = Out()
    tp = rng.choice([2, 4, 8, 8])
    nodes = make_nodes(rng, 1, rng.choice(["gpu-h100", "dgx", "aws", "gcp"]), gpus=8)
    job = Job(rng, nodes, 8)
    nd = nodes[0]
    host = nd.name.split(".")[0]
    ver = rng.choice(["0.8.5", "0.9.1", "0.9.2", "0.10.0"])
    newpfx = ver >= "0.10"
    model = rng.choice(MODELS[:4] + MODELS[5:])
    t0 = C.pick_base_time(rng)
    api_pid = rng.randint(1000, 90000)
    core_pid = api_pid + rng.randint(200, 400)
    wpid = [core_pid + 40 + i * rng.choice([1, 2, 3]) + i for i in range(tp)]
    tr = _truth(cause)
    E = EvList()

    def api(t, lvl, src, msg):
        E.add(t, ("(APIServer pid=%d) " % api_pid if newpfx else "") + "%s %s [%s] %s" % (lvl, T.vllm(t), src, msg))

    def core(t, lvl, src, msg):
        E.add(t, ("(EngineCore_0 pid=%d) " % core_pid if newpfx else "") + "%s %s [%s] %s" % (lvl, T.vllm(t), src, msg))

    def wk(r, t, lvl, src, msg):
        E.add(t, "(VllmWorker rank=%d pid=%d) %s %s [%s] %s" % (r, wpid[r], lvl, T.vllm(t), src, msg))

    def wraw(r, t, msg):
        E.add(t, "(VllmWorker rank=%d pid=%d) %s" % (r, wpid[r], msg))

    api(t0, "INFO", "api_server.py:1395", "vLLM API server version %s" % ver)
    api(t0 + 0.01, "INFO", "cli_args.py:325", "non-default args: {'model': '%s', 'tensor_parallel_size': %d, 'max_model_len': %d, 'gpu_memory_utilization': %.2f}" % (model, tp, rng.choice([32768, 65536, 131072]), rng.choice([0.9, 0.92, 0.95])))
    core(t0 + 9, "INFO", "core.py:69", "Initializing a V1 LLM engine (v%s) with config: model='%s', speculative_config=None, tokenizer='%s', dtype=torch.bfloat16, tensor_parallel_size=%d, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, seed=0" % (ver, model, model, tp))
    core(t0 + 9.2, "WARNING", "multiproc_worker_utils.py:307", "Reducing Torch parallelism from 104 threads to 1 to avoid unnecessary CPU contention. Set OMP_NUM_THREADS in the external environment to tune this value as needed.")
    core(t0 + 9.3, "INFO", "shm_broadcast.py:289", "vLLM message queue communication handle: Handle(local_reader_ranks=%s, buffer_handle=(%d, 16777216, 10, 'psm_%s'), local_subscribe_addr='ipc:///tmp/%s-%s-%s-%s-%s', remote_subscribe_addr=None, remote_addr_ipv6=False)" % (list(range(tp)), tp, hexid(rng, 8), hexid(rng, 8), hexid(rng, 4), hexid(rng, 4), hexid(rng, 4), hexid(rng, 12)))
    for r in range(tp):
        tt = t0 + 14 + r * 0.05
        wk(r, tt, "INFO", "parallel_state.py:1076", "rank %d in world size %d is assigned as DP rank 0, PP rank 0, TP rank %d, EP rank %d" % (r, tp, r, r))
        wk(r, tt + 0.3, "INFO", "gpu_model_runner.py:1770", "Starting to load model %s..." % model)
        if r == 0 or rng.random() < 0.3:
            wk(r, tt + 0.5, "WARNING", "custom_all_reduce.py:137", "Custom allreduce is disabled because your platform lacks GPU P2P capability or P2P test failed. To silence this warning, specify disable_custom_all_reduce=True explicitly.") if rng.random() < 0.2 else None
        wk(r, tt + 70, "INFO", "gpu_model_runner.py:1802", "Model loading took %.4f GiB and %.6f seconds" % (rng.uniform(16, 38), rng.uniform(40, 90)))
    core(t0 + 110, "INFO", "kv_cache_utils.py:716", "GPU KV cache size: %s tokens" % "{:,}".format(rng.randint(200000, 1900000)))
    core(t0 + 110.1, "INFO", "kv_cache_utils.py:720", "Maximum concurrency for 131,072 tokens per request: %.2fx" % rng.uniform(3, 20))
    for r in range(tp):
        wk(r, t0 + 130 + r * 0.01, "INFO", "gpu_model_runner.py:2330", "Graph capturing finished in %d secs, took %.2f GiB" % (rng.randint(12, 30), rng.uniform(0.4, 1.6)))
    core(t0 + 131, "INFO", "core.py:172", "init engine (profile, create kv cache, warmup model) took %.2f seconds" % rng.uniform(50, 90))
    api(t0 + 132, "INFO", "launcher.py:29", "Available routes are:")
    api(t0 + 132.1, "INFO", "launcher.py:37", "Route: /v1/chat/completions, Methods: POST")
    E.add(t0 + 132.2, "INFO:     Started server process [%d]" % api_pid)
    E.add(t0 + 132.3, "INFO:     Waiting for application startup.")
    E.add(t0 + 132.4, "INFO:     Application startup complete.")
    tserve = t0 + 135
    t_fail = tserve + rng.uniform(600, 20000)
    clients = ["10.%d.%d.%d" % (rng.randint(0, 40), rng.randint(0, 250), rng.randint(2, 250)) for _ in range(rng.randint(1, 4))]
    # periodic stats
    t = tserve
    while t < t_fail - 10:
        t += 10
        if rng.random() < 0.15:
            api(t, "INFO", "loggers.py:118", "Engine 000: Avg prompt throughput: %.1f tokens/s, Avg generation throughput: %.1f tokens/s, Running: %d reqs, Waiting: 0 reqs, GPU KV cache usage: %.1f%%, Prefix cache hit rate: %.1f%%" % (rng.uniform(100, 9000), rng.uniform(200, 4000), rng.randint(1, 64), rng.uniform(2, 60), rng.uniform(0, 70)))
    _access_log(rng, E, tserve, t_fail, clients, errors=0.03 if cause else 0.12)
    kern = {}
    c = rng.randrange(tp)
    gpu = c
    if cause is None:
        v = rng.random()
        if v < 0.4:
            for _ in range(rng.randint(1, 3)):
                tt = rng.uniform(tserve, t_fail)
                api(tt, "ERROR", "serving_chat.py:203", "Error in preprocessing prompt inputs")
                E.add(tt + 0.001, "Traceback (most recent call last):")
                E.add(tt + 0.002, '  File "%s/vllm/entrypoints/openai/serving_engine.py", line 877, in _validate_input' % PYL)
                E.add(tt + 0.003, "ValueError: This model's maximum context length is 131072 tokens. However, you requested 140512 tokens in the messages, Please reduce the length of the messages.")
        for _ in range(rng.randint(1, 4)):
            tt = rng.uniform(tserve, t_fail)
            api(tt, "INFO", "async_llm.py:430", "Aborted request chatcmpl-%s." % hexid(rng, 32))
        api(t_fail, "INFO", "launcher.py:80", "Shutting down FastAPI HTTP server.")
        E.add(t_fail + 0.2, "INFO:     Shutting down")
        for r in range(tp):
            if rng.random() < 0.5:
                wk(r, t_fail + 0.5, "INFO", "multiproc_executor.py:520", "Parent process exited, terminating worker")
        if rng.random() < 0.6:
            E.add(t_fail + 0.9, "/usr/lib/python3.12/multiprocessing/resource_tracker.py:279: UserWarning: resource_tracker: There appear to be 1 leaked shared_memory objects to clean up at shutdown")
            E.add(t_fail + 0.91, "  warnings.warn('resource_tracker: There appear to be %d '")
            E.add(t_fail + 0.92, "[rank0]:[W%s ProcessGroupNCCL.cpp:1496] Warning: WARNING: destroy_process_group() was not called before program exit, which can leak resources. For more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())" % T.c10d(t_fail + 0.92, "")[1:])
        E.add(t_fail + 1, "INFO:     Waiting for application shutdown.")
        E.add(t_fail + 1.1, "INFO:     Application shutdown complete.")
        tr["notes"] = "Healthy vLLM server: request validation errors, aborted requests and teardown warnings at a normal shutdown (SIGTERM from the operator)."
        fin = t_fail + 2
    else:
        fin = t_fail + 5
        pidc = wpid[c]
        died = False
        if cause in ("gpu_hardware", "ecc_memory", "nvlink", "illegal_memory_access", "cuda_oom", "python_exception"):
            exc = None
            if cause in ("gpu_hardware", "ecc_memory", "nvlink"):
                xid = _xid_for(cause, rng)
                kern[0] = [(t_fail - 0.3 + i * 0.001, l) for i, l in enumerate("\n".join(xid_lines(rng, nd.pci[gpu], xid, pidc, "VLLM::Worker" if newpfx else "python3")).split("\n"))]
                exc = _cuda_exc_for(cause, xid)
                _set(tr, job, c, drain=True)
                tr["notes"] = "Xid %d on GPU %d (PCI %s) of %s, used by TP worker %d; the worker raised a CUDA error and EngineCore died." % (xid, gpu, nd.pci[gpu], host, c)
                if xid in (79, 154) and rng.random() < 0.5:
                    exc = None  # the worker just dies, no python traceback
            elif cause == "illegal_memory_access":
                exc = "RuntimeError: CUDA error: an illegal memory access was encountered"
                _set(tr, job, c)
                tr["notes"] = "Illegal memory access in a MoE/attention kernel on TP worker %d (no Xid 13/31 decoy beyond the usual MMU fault)." % c
                if rng.random() < 0.5:
                    kern[0] = [(t_fail - 0.2, xid_lines(rng, nd.pci[gpu], 31, pidc, "python3")[0])]
            elif cause == "cuda_oom":
                exc = oom_text(rng, gpu, 79.19 if "h100" in host or rng.random() < 0.5 else 139.81)
                _set(tr, job, c)
                tr["notes"] = "CUDA OOM in TP worker %d while serving a burst of long prompts (sampler logits buffer); EngineCore died and the API server returned 500s." % c
            else:
                exc = rng.choice(["AssertionError: Expected block table to have at least 2049 entries, got 2048",
                                  "IndexError: index 151936 is out of bounds for dimension 0 with size 151936",
                                  "TypeError: unsupported operand type(s) for *: 'NoneType' and 'float'"])
                _set(tr, job, c)
                tr["notes"] = "Python exception in TP worker %d during execute_model: %s" % (c, exc[:60])
            if exc:
                wk(c, t_fail, "ERROR", "multiproc_executor.py:546", "WorkerProc hit an exception.")
                lines = ["Traceback (most recent call last):"] + _pyfr(PYL + "/vllm/v1/executor/multiproc_executor.py", 541, "worker_busy_loop", "output = func(*args, **kwargs)") \
                    + _pyfr(PYL + "/vllm/v1/worker/gpu_worker.py", 337, "execute_model", "output = self.model_runner.execute_model(scheduler_output,") \
                    + _pyfr(PYL + "/vllm/v1/worker/gpu_model_runner.py", 1485, "execute_model", "sampler_output = self.sampler(" if cause == "cuda_oom" else "model_output = self.model(") \
                    + [exc] + (CUDA_ASYNC if "CUDA error" in exc else []) + [""]
                for i, l in enumerate(lines):
                    wk(c, t_fail + 0.001 * (i + 1), "ERROR", "multiproc_executor.py:546", l)
                core(t_fail + 0.1, "ERROR", "core.py:586", "EngineCore encountered a fatal error.")
                core(t_fail + 0.101, "ERROR", "core.py:586", "Traceback (most recent call last):")
                core(t_fail + 0.102, "ERROR", "core.py:586", '  File "%s/vllm/v1/executor/multiproc_executor.py", line 246, in get_response' % PYL)
                core(t_fail + 0.103, "ERROR", "core.py:586", "    raise RuntimeError(")
                core(t_fail + 0.104, "ERROR", "core.py:586", "RuntimeError: Worker failed with error '%s', please check the stack trace above for the root cause" % exc.split(": ", 1)[-1][:200])
                # other workers also complain after the engine tears down
            else:
                died = True
        elif cause == "host_oom_kill":
            rss = rng.randint(60, 180) * 1024 * 1024
            kern[0] = [(t_fail - 0.05 + i * 0.0005, l) for i, l in enumerate(oom_kill_lines(rng, pidc, "VLLM::Worker" if newpfx else "python3", rss))]
            _set(tr, job, c)
            tr["notes"] = "Kernel OOM killer killed TP worker %d (pid %d) on %s (host RAM exhausted by CPU KV-offload buffers); the executor saw it die." % (c, pidc, host)
            died = True
        elif cause == "crash_signal":
            kern[0] = [(t_fail - 0.01, segfault_kernel(rng, "VLLM::Worker" if newpfx else "python3", pidc, "_C.abi3.so"))]
            wraw(c, t_fail - 0.02, "*** SIGSEGV received at time=%d on cpu %d ***" % (int(t_fail), rng.randint(0, 100)))
            wraw(c, t_fail - 0.019, "PC: @     0x7f%s  (unknown)  vllm::cross_device_reduce_1stage<>()" % hexid(rng, 10))
            wraw(c, t_fail - 0.018, "    @     0x7f%s       1408  (unknown)" % hexid(rng, 10))
            _set(tr, job, c)
            tr["notes"] = "TP worker %d segfaulted in a custom all-reduce kernel launch (abseil SIGSEGV trace + kernel segfault line); no hardware fault." % c
            died = True
        elif cause == "hang":
            _set(tr, job, c)
            fin = t_fail + 1800
            for k in range(rng.randint(3, 8)):
                core(t_fail + 60 * (k + 1), "WARNING", "shm_broadcast.py:466", "No available shared memory broadcast block found in 60 second. This typically happens when some processes are hanging or doing some time-consuming work (e.g. compilation).")
            E.add(t_fail + 600, "INFO:     %s:%d - \"GET /health HTTP/1.1\" 200 OK" % (rng.choice(clients), rng.randint(30000, 60000)))
            dumps = []
            for r in range(tp):
                dumps += ["Process %d: VLLM::Worker_TP%d" % (wpid[r], r), "Python v3.12.9 (/usr/bin/python3.12)", "",
                          'Thread %d (idle): "MainThread"' % wpid[r]]
                if r == c:
                    dumps += ["    _wait_for_lock (%s/filelock/_api.py:332)" % PYL, "    acquire (%s/filelock/_api.py:297)" % PYL,
                              "    get_lora_tokenizer (%s/vllm/transformers_utils/tokenizer_group.py:98)" % PYL,
                              "    execute_model (%s/vllm/v1/worker/gpu_model_runner.py:1402)" % PYL]
                else:
                    dumps += ["    all_reduce (%s/vllm/distributed/device_communicators/pynccl.py:131)" % PYL,
                              "    all_reduce (%s/vllm/distributed/parallel_state.py:318)" % PYL,
                              "    forward (%s/vllm/model_executor/layers/linear.py:1340)" % PYL,
                              "    execute_model (%s/vllm/v1/worker/gpu_model_runner.py:1455)" % PYL]
                dumps += ["    worker_busy_loop (%s/vllm/v1/executor/multiproc_executor.py:541)" % PYL, ""]
            out.add("debug/py-spy-workers.txt", ["$ for p in $(pgrep -f VLLM::Worker); do py-spy dump --pid $p; done"] + dumps)
            out.add("debug/nvidia-smi.txt", ["| %3d  NVIDIA H100 80GB HBM3        On  |   00000000:%s:00.0 Off |                    0 |" % (g, nd.pci[g]) + "\n| N/A   %dC    P0            %3dW /  700W |   %5dMiB /  81559MiB |    %3d%%      Default |" % (rng.randint(40, 60), rng.randint(110, 200) if g != c else 75, rng.randint(70000, 76000), 100 if g != c else 0) for g in range(tp)])
            tr["notes"] = "TP worker %d blocked on a tokenizer file lock; the others spin in an all-reduce (py-spy), shm_broadcast warns every 60 s, GPU %d idle at 0%%; operator killed the pod." % (c, c)
        if died:
            core(t_fail + 0.4, "ERROR", "multiproc_executor.py:140", "Worker proc VllmWorker-%d died unexpectedly, shutting down executor." % c)
            if rng.random() < 0.5:
                E.add(t_fail + 0.45, "/usr/lib/python3.12/multiprocessing/resource_tracker.py:279: UserWarning: resource_tracker: There appear to be 1 leaked shared_memory objects to clean up at shutdown")
        if cause != "hang":
            api(t_fail + 0.5, "ERROR", "async_llm.py:419", "AsyncLLM output_handler failed.")
            E.add(t_fail + 0.501, "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.")
            api(t_fail + 0.55, "ERROR", "core_client.py:562", "Engine core proc EngineCore_0 died unexpectedly, shutting down client.")
            for k in range(rng.randint(2, 8)):
                E.add(t_fail + 0.6 + k * 0.01, "INFO:     %s:%d - \"POST /v1/chat/completions HTTP/1.1\" 500 Internal Server Error" % (rng.choice(clients), rng.randint(30000, 65000)))
            for r in range(tp):
                if r != c and rng.random() < 0.4:
                    wk(r, t_fail + 0.7, "WARNING", "multiproc_executor.py:484", "Parent process exited, terminating worker")
            E.add(t_fail + 1, "INFO:     Shutting down")
            E.add(t_fail + 1.2, "INFO:     Finished server process [%d]" % api_pid)
    fname = rng.choice(["vllm-serve.log", "server.log", "pod-logs/%s-%s.log" % (rng.choice(["vllm-llama", "inference"]), alnum(rng, 5))])
    out.add(fname, E.lines())
    _kern(rng, out, job, kern, t0, fin, "node", extra_nodes=1)
    R = Res()
    R.truth = tr
    return out, R


# =========================================================================== vLLM Ray executor, PP across nodes
def layout_vllm_ray(rng, cause, run):
    out = Out()
    nn = rng.choice([2, 2, 3, 4])
    nodes = make_nodes(rng, nn, rng.choice(["aws", "gpu-h100", "fqdn", "gcp"]), gpus=8)
    job = Job(rng, nodes, 8, tp=8, pp=nn)
    W = job.world
    t0 = C.pick_base_time(rng)
    model = rng.choice(MODELS[2:])
    ver = rng.choice(["0.8.5", "0.9.2", "0.10.1"])
    tr = _truth(cause)
    E = EvList()
    wpid = {r: job.pid[r] for r in range(W)}

    def rw(r, t, msg):
        E.add(t, "(RayWorkerWrapper pid=%d, ip=%s) %s" % (wpid[r], job.node(r).ip, msg))

    def vl(t, lvl, src, msg):
        E.add(t, "%s %s [%s] %s" % (lvl, T.vllm(t), src, msg))

    vl(t0, "INFO", "api_server.py:1395", "vLLM API server version %s" % ver)
    vl(t0 + 5, "INFO", "ray_utils.py:334", "Connecting to existing Ray cluster at address: %s:6379..." % nodes[0].ip)
    E.add(t0 + 5.5, "%s\tINFO worker.py:1747 -- Connecting to existing Ray cluster at address: %s:6379..." % (T.pylog(t0 + 5.5), nodes[0].ip))
    E.add(t0 + 5.6, "%s\tINFO worker.py:1918 -- Connected to Ray cluster. View the dashboard at http://127.0.0.1:8265 " % T.pylog(t0 + 5.6))
    vl(t0 + 6, "INFO", "ray_distributed_executor.py:177", "use_ray_spmd_worker: True")
    for r in range(W):
        rw(r, t0 + 20 + r * 0.002, "INFO %s [parallel_state.py:1076] rank %d in world size %d is assigned as DP rank 0, PP rank %d, TP rank %d, EP rank %d" % (T.vllm(t0 + 20), r, W, r // 8, r % 8, r % 8))
    if rng.random() < 0.6:
        E.add(t0 + 21, "(RayWorkerWrapper pid=%d, ip=%s) %s [repeated %dx across cluster] (Ray deduplicates logs by default. Set RAY_DEDUP_LOGS=0 to disable log deduplication, or see https://docs.ray.io/en/master/ray-observability/user-guides/configure-logging.html#log-deduplication for more options.)" % (wpid[1], nodes[0].ip, "INFO %s [utils.py:1071] Found nccl from library libnccl.so.2" % T.vllm(t0 + 21), W - 1))
    vl(t0 + 160, "INFO", "kv_cache_utils.py:716", "GPU KV cache size: %s tokens" % "{:,}".format(rng.randint(300000, 1500000)))
    E.add(t0 + 170, "INFO:     Application startup complete.")
    tserve = t0 + 171
    t_fail = tserve + rng.uniform(900, 30000)
    clients = ["10.%d.%d.%d" % (rng.randint(0, 40), rng.randint(0, 250), rng.randint(2, 250)) for _ in range(3)]
    _access_log(rng, E, tserve, min(t_fail, tserve + 900), clients, errors=0.05)
    c = rng.randrange(8, W) if rng.random() < 0.8 else rng.randrange(W)
    ni = job.ni(c)
    ndc = nodes[ni]
    kern = {}
    raylet = {}
    fin = t_fail + 30
    wid = hexid(rng, 56)
    nid = hexid(rng, 56)
    actor = hexid(rng, 32)
    if cause is None:
        for _ in range(rng.randint(1, 3)):
            tt = rng.uniform(tserve, t_fail)
            vl(tt, "WARNING", "protocol.py:58", "The following fields were present in the request but ignored: {'logprobs_mode'}")
        E.add(tserve + 30, "(raylet, ip=%s) [%s] [gcs_client] Failed to get the resource load: GrpcUnavailable: RPC Error message: failed to connect to all addresses; RPC Error Details:  (retrying)" % (nodes[-1].ip, T.pylog(tserve + 30)) if rng.random() < 0.5 else "")
        vl(t_fail, "INFO", "launcher.py:80", "Shutting down FastAPI HTTP server.")
        E.add(t_fail + 1, "(RayWorkerWrapper pid=%d, ip=%s) [W%s ProcessGroupNCCL.cpp:1496] Warning: WARNING: destroy_process_group() was not called before program exit, which can leak resources. (function operator())" % (wpid[1], nodes[0].ip, T.c10d(t_fail + 1, "")[1:]))
        E.add(t_fail + 2, "INFO:     Application shutdown complete.")
        tr["notes"] = "Healthy Ray-backed vLLM server; a transient raylet GCS warning, ignored request fields and teardown warnings at shutdown."
        fin = t_fail + 3
    else:
        errtype, detail = None, ""
        if cause in ("gpu_hardware", "ecc_memory"):
            xid = _xid_for(cause, rng)
            kern[ni] = [(t_fail - 0.5 + i * 0.001, l) for i, l in enumerate("\n".join(xid_lines(rng, ndc.pci[c % 8], xid, wpid[c], "ray::RayWorkerW")).split("\n"))]
            _set(tr, job, c, drain=True)
            tr["notes"] = "Xid %d on GPU %d of %s (PP stage %d, TP rank %d, global rank %d); its Ray worker died, the driver got ActorDiedError." % (xid, c % 8, ndc.name, c // 8, c % 8, c)
            errtype = "died"
            if xid in (48, 94, 95, 64) or rng.random() < 0.4:
                rw(c, t_fail, "ERROR %s [worker_base.py:620] Error executing method 'execute_model'. This might cause deadlock in distributed execution." % T.vllm(t_fail))
                rw(c, t_fail + 0.001, "RuntimeError: CUDA error: %s" % ("uncorrectable ECC error encountered" if cause == "ecc_memory" else "unspecified launch failure"))
        elif cause == "host_oom_kill":
            _set(tr, job, c)
            used = rng.uniform(0.951, 0.99)
            raylet[ni] = ["[%s I %d %d] (raylet) memory_monitor.cc:%d: Node memory usage %.2f exceeds threshold 0.95" % (T.pylog(t_fail - 1), rng.randint(100, 999), rng.randint(100, 999), 101, used),
                          "[%s I %d %d] (raylet) node_manager.cc:%d: Killing worker with task %s because memory usage exceeds threshold; worker id %s, pid %d" % (T.pylog(t_fail), rng.randint(100, 999), rng.randint(100, 999), 3090, "RayWorkerWrapper.execute_model_spmd", wid[:28], wpid[c])]
            detail = ("Task was killed due to the node running low on memory.\nMemory on the node (IP: %s, ID: %s) where the task (actor ID: %s, name=RayWorkerWrapper.__init__, pid=%d, memory used=%.2fGB) was running was %.2fGB / %.2fGB (%.6f), which exceeds the memory usage threshold of 0.95. Ray killed this worker (ID: %s) because it was the most recently scheduled task; to see more information about memory usage on this node, use `ray logs raylet.out -ip %s`. To see the logs of the worker, use `ray logs worker-%s*out -ip %s. Top 10 memory users:\nPID\tMEM(GB)\tCOMMAND\n%d\t%.2f\tray::RayWorkerWrapper.execute_model_spmd"
                      % (ndc.ip, nid, actor, wpid[c], rng.uniform(60, 200), used * 2015.5, 2015.5, used, wid, ndc.ip, wid, ndc.ip, wpid[c], rng.uniform(60, 200)))
            errtype = "oom"
            tr["notes"] = "Ray memory monitor on %s killed the worker of global rank %d (host memory > 95%%); the driver raised ray.exceptions.OutOfMemoryError." % (ndc.name, c)
        elif cause == "network":
            _set(tr, job, ni=ni, drain=True)
            tr["rank"] = job.lowest(ni)
            tr["rank_inferable"] = False
            ibk = rng.randrange(8)
            kern[ni] = [(t_fail - 2 + i * 0.01, l) for i, l in enumerate(mlx5_down_lines(rng, IB_PCI[ibk], "mlx5_%d" % ibk, "ibp%ss0" % IB_PCI[ibk]))]
            for r in (job.lowest(ni) + rng.randrange(8), (job.lowest(ni) + 8 + rng.randrange(8)) % W):
                rw(r, t_fail, ib_completion_warn(rng, job.node(r).name, wpid[r], r % 8, nodes[(job.ni(r) + 1) % nn].ip if job.ni(r) == ni else ndc.ip, job.node(r).ip, "mlx5_%d" % ibk if job.ni(r) == ni else "mlx5_%d" % rng.randrange(8)))
            errtype = "nccl"
            tr["notes"] = "HCA mlx5_%d on %s failed (kernel log); PP send/recv between stages broke with NET/IB completion errors on both sides; node named by the kernel log, not by rank." % (ibk, ndc.name)
        elif cause == "cuda_oom":
            _set(tr, job, c)
            errtype = "exc"
            detail = oom_text(rng, c % 8)
            tr["notes"] = "CUDA OOM on PP stage %d TP rank %d (global rank %d) during a long-prefill batch; the driver received RayTaskError(OutOfMemoryError)." % (c // 8, c % 8, c)
        elif cause == "preemption":
            _set(tr, job, ni=ni)
            tr["rank"] = None
            tr["rank_inferable"] = False
            errtype = "node"
            out.add("cloud-events.txt", ["%s  compute.instances.preempted  %s  zone=%s  Instance was preempted." % (T.iso_z(t_fail - 25), ndc.name, rng.choice(["us-central1-a", "us-east5-b"])),
                                         "%s  compute.instances.stop  %s  (by system)" % (T.iso_z(t_fail - 24), ndc.name)])
            tr["notes"] = "Spot node %s was preempted; Ray marked it dead (missed heartbeats) and its workers' actors died." % ndc.name
        if errtype == "oom":
            E.add(t_fail + 0.3, "(raylet, ip=%s) [%s] Killing worker pid %d because memory usage exceeds threshold" % (ndc.ip, T.pylog(t_fail), wpid[c]) if rng.random() < 0 else "")
        if errtype == "node":
            E.add(t_fail + 10, "(raylet) The node with node id: %s and address: %s and node name: %s has been marked dead because the detector has missed too many heartbeats from it. This can happen when a \t(1) raylet crashes unexpectedly (OOM, etc.) \n\t(2) raylet has lagging heartbeats due to slow network or busy workload." % (nid, ndc.ip, ndc.ip))
        vl(t_fail + 12, "ERROR", "core.py:586", "EngineCore encountered a fatal error.")
        vl(t_fail + 12.001, "ERROR", "core.py:586", "Traceback (most recent call last):")
        E.add(t_fail + 12.002, '  File "%s/vllm/executor/ray_distributed_executor.py", line 470, in _driver_execute_model' % PYL)
        E.add(t_fail + 12.003, "    return ray.get(self.forward_dag.execute(execute_model_req))" if errtype != "node" else "    return ray.get(refs)")
        if errtype in ("died", "node"):
            E.add(t_fail + 12.01, "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.")
            E.add(t_fail + 12.011, "\tclass_name: RayWorkerWrapper")
            E.add(t_fail + 12.012, "\tactor_id: %s" % actor)
            E.add(t_fail + 12.013, "\tpid: %d" % wpid[c])
            E.add(t_fail + 12.014, "\tname: ")
            E.add(t_fail + 12.015, "\tnamespace: %s" % hexid(rng, 8) + "-" + hexid(rng, 4))
            E.add(t_fail + 12.016, "\tip: %s" % ndc.ip)
            if errtype == "died":
                E.add(t_fail + 12.017, "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors.")
            else:
                E.add(t_fail + 12.017, "The actor died because its node has died. Node Id: %s" % nid)
                E.add(t_fail + 12.018, "\tthe actor's node was terminated unexpectedly: health check failed due to missing too many heartbeats")
        elif errtype == "oom":
            E.add(t_fail + 12.01, "ray.exceptions.OutOfMemoryError: " + detail.replace("\n", "\n", 1))
        elif errtype == "exc":
            E.add(t_fail + 12.01, "ray.exceptions.RayTaskError(OutOfMemoryError): ray::RayWorkerWrapper.execute_model_spmd() (pid=%d, ip=%s, actor_id=%s, repr=<vllm.executor.ray_utils.RayWorkerWrapper object at 0x7f%s>)" % (wpid[c], ndc.ip, actor, hexid(rng, 9)))
            E.add(t_fail + 12.011, '  File "%s/vllm/executor/ray_utils.py", line 135, in execute_model_spmd' % PYL)
            E.add(t_fail + 12.012, "    output = self.worker._execute_model_spmd(execute_model_req,")
            E.add(t_fail + 12.013, detail)
        else:  # nccl
            E.add(t_fail + 12.01, "ray.exceptions.RayTaskError(DistBackendError): ray::RayWorkerWrapper.execute_model_spmd() (pid=%d, ip=%s, actor_id=%s)" % (wpid[job.lowest((ni + 1) % nn)], nodes[(ni + 1) % nn].ip, actor))
            E.add(t_fail + 12.011, "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, remote process exited or there was a network error, NCCL version 2.21.5")
            E.add(t_fail + 12.012, "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.")
            E.add(t_fail + 12.013, "Last error:")
            E.add(t_fail + 12.014, "NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Send)" % (ndc.ip, rng.randint(30000, 60000)))
        vl(t_fail + 13, "ERROR", "async_llm.py:419", "AsyncLLM output_handler failed.")
        E.add(t_fail + 13.1, "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.")
        E.add(t_fail + 13.2, "INFO:     %s:%d - \"GET /health HTTP/1.1\" 503 Service Unavailable" % (clients[0], rng.randint(30000, 60000)))
        E.add(t_fail + 14, "INFO:     Shutting down")
    out.add(rng.choice(["serve_driver.log", "vllm-ray.out"]), [l for l in E.lines() if l])
    # ray session logs of the culprit node (or a random one for healthy)
    rn = ni if cause else rng.randrange(nn)
    rl = ["[%s I %d %d] (raylet) main.cc:%d: Setting cluster ID to: %s" % (T.pylog(t0 - 300), rng.randint(100, 999), rng.randint(100, 999), 180, hexid(rng, 56)),
          "[%s I %d %d] (raylet) worker_pool.cc:%d: Started worker process with pid %d, the token is 0" % (T.pylog(t0 + 8), rng.randint(100, 999), rng.randint(100, 999), 532, wpid[rn * 8])]
    rl += raylet.get(rn, [])
    if cause in ("gpu_hardware", "ecc_memory") or (cause == "host_oom_kill"):
        rl.append("[%s W %d %d] (raylet) worker_pool.cc:%d: Worker %s (pid=%d) exited unexpectedly: %s" % (T.pylog(t_fail + 0.2), rng.randint(100, 999), rng.randint(100, 999), 612, wid, wpid[c], "SIGKILL" if cause == "host_oom_kill" else "exit code -6 (SIGABRT)"))
    out.add("ray/%s/session_latest/logs/raylet.out" % nodes[rn].name.split(".")[0], rl)
    _kern(rng, out, job, kern, t0, fin, "nodes")
    R = Res()
    R.truth = tr
    return out, R


# =========================================================================== SGLang
def layout_sglang(rng, cause, run):
    out = Out()
    tp = rng.choice([4, 8, 8, 16])
    dp = rng.choice([1, 1, 2]) if tp >= 8 else 1
    ep = tp if rng.random() < 0.5 else 1
    nn = max(1, tp // 8)
    nodes = make_nodes(rng, nn, rng.choice(["gpu-h100", "dgx", "plain", "aws"]), gpus=8)
    job = Job(rng, nodes, min(8, tp))
    t0 = C.pick_base_time(rng)
    model = rng.choice(MODELS)
    tr = _truth(cause)
    c = rng.randrange(tp)
    ni = job.ni(c)
    nd = nodes[ni]
    logs = [EvList() for _ in range(nn)]
    spid = {r: job.pid[r] for r in range(tp)}

    def tag(r):
        s = ""
        if dp > 1:
            s += "DP%d " % ((r * dp) // tp)
        s += "TP%d" % r
        if ep > 1:
            s += " EP%d" % r
        return s

    def sl(r, t, msg):
        logs[job.ni(r)].add(t, "[%s %s] %s" % (T.sec(t), tag(r), msg))

    def top(t, msg, n=0):
        logs[n].add(t, "[%s] %s" % (T.sec(t), msg))

    ver = rng.choice(["0.4.6.post5", "0.4.9.post2", "0.5.0rc0"])
    top(t0, "server_args=ServerArgs(model_path='%s', tp_size=%d, dp_size=%d, ep_size=%d, nnodes=%d, node_rank=0, dist_init_addr='%s:5000', mem_fraction_static=0.87, chunked_prefill_size=8192, watchdog_timeout=300, enable_dp_attention=%s)" % (model, tp, dp, ep, nn, nodes[0].ip, dp > 1))
    for r in range(tp):
        sl(r, t0 + 8 + r * 0.01, "Init torch distributed begin.")
        sl(r, t0 + 11 + r * 0.01, "sglang is using nccl==2.21.5")
        sl(r, t0 + 12 + r * 0.01, "Load weight begin. avail mem=%.2f GB" % rng.uniform(77, 78.5))
        sl(r, t0 + 80 + r * 0.01, "Load weight end. type=%s, dtype=torch.bfloat16, avail mem=%.2f GB, mem usage=%.2f GB." % (rng.choice(["Qwen2ForCausalLM", "LlamaForCausalLM", "DeepseekV3ForCausalLM"]), rng.uniform(30, 45), rng.uniform(30, 40)))
        sl(r, t0 + 82 + r * 0.01, "KV Cache is allocated. #tokens: %d, K size: %.2f GB, V size: %.2f GB" % (rng.randint(300000, 900000), rng.uniform(8, 17), rng.uniform(8, 17)))
        sl(r, t0 + 83 + r * 0.01, "Capture cuda graph begin. This can take up to several minutes. avail mem=%.2f GB" % rng.uniform(3, 6))
    top(t0 + 120, "INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)")
    top(t0 + 121, "The server is fired up and ready to roll!")
    t_fail = t0 + 130 + rng.uniform(600, 25000)
    t = t0 + 130
    while t < t_fail - 30:
        t += rng.uniform(20, 200)
        sl(0, t, "Decode batch. #running-req: %d, #token: %d, token usage: %.2f, cuda graph: True, gen throughput (token/s): %.2f, #queue-req: %d" % (rng.randint(1, 120), rng.randint(2000, 300000), rng.uniform(0.01, 0.7), rng.uniform(300, 3500), rng.randint(0, 9)))
        if rng.random() < 0.3:
            sl(0, t + 1, "Prefill batch. #new-seq: %d, #new-token: %d, #cached-token: %d, token usage: %.2f, #running-req: %d, #queue-req: %d" % (rng.randint(1, 8), rng.randint(100, 8192), rng.randint(0, 4000), rng.uniform(0.01, 0.7), rng.randint(1, 120), rng.randint(0, 9)))
    kern = {}
    if cause is None:
        for _ in range(rng.randint(1, 4)):
            tt = rng.uniform(t0 + 130, t_fail)
            top(tt, "INFO:     %s:%d - \"POST /v1/chat/completions HTTP/1.1\" 400 Bad Request" % ("10.1.%d.%d" % (rng.randint(0, 9), rng.randint(2, 200)), rng.randint(30000, 60000)))
            sl(0, tt + 0.01, "Abort request %s" % hexid(rng, 32))
        if rng.random() < 0.5:
            sl(0, t0 + 85, "Ignore import error when loading sglang.srt.models.mllama4: No module named 'transformers.models.llama4'")
        top(t_fail, "Received sigterm, shutting down." if rng.random() < 0 else "INFO:     Shutting down")
        top(t_fail + 0.5, "INFO:     Finished server process [%d]" % job.tpid[0])
        tr["notes"] = "Healthy SGLang server: client 400s and aborted requests, a missing optional model import; normal shutdown."
        fin = t_fail + 1
    else:
        fin = t_fail + 10
        exc = None
        sig = None
        if cause in ("gpu_hardware", "ecc_memory", "nvlink"):
            xid = _xid_for(cause, rng)
            lg = c % 8
            kern[ni] = [(t_fail - 0.2 + i * 0.001, l) for i, l in enumerate("\n".join(xid_lines(rng, nd.pci[lg], xid, spid[c], "sglang::schedul", link=rng.randint(0, 17))).split("\n"))]
            _set(tr, job, c, drain=True)
            exc = "RuntimeError: CUDA error: " + ("uncorrectable ECC error encountered" if cause == "ecc_memory" else "uncorrectable NVLink error detected during the execution" if cause == "nvlink" else "unspecified launch failure")
            tr["notes"] = "Xid %d on GPU %d of %s; TP%d's scheduler hit a CUDA error and the launcher killed the server." % (xid, lg, nd.name, c)
            if cause == "nvlink" and rng.random() < 0.5:
                exc = None
                tr["rank_inferable"] = False
                tr["rank"] = job.lowest(ni)
                tr["notes"] = "Xid 74 NVLink error on GPU %d of %s seen only in the kernel log; the DeepEP all-to-all stalled and the scheduler watchdog fired on every TP rank." % (lg, nd.name)
        elif cause == "cuda_oom":
            _set(tr, job, c)
            exc = oom_text(rng, c % 8)
            tr["notes"] = "CUDA OOM in TP%d's scheduler (forward of a large prefill batch with mem_fraction_static=0.87)." % c
        elif cause == "illegal_memory_access":
            _set(tr, job, c)
            exc = "RuntimeError: CUDA error: an illegal memory access was encountered"
            tr["notes"] = "Illegal memory access in TP%d's forward (MoE kernel); scheduler exception, server killed." % c
        elif cause == "python_exception":
            _set(tr, job, c)
            exc = rng.choice(["AssertionError: req.extend_input_len=0 must be positive", "KeyError: 'reasoning_content'", "ValueError: Unknown grammar backend output: None"])
            tr["notes"] = "Python exception in TP%d's scheduler (%s)." % (c, exc[:50])
        elif cause == "crash_signal":
            _set(tr, job, c)
            sig = True
            kern[ni] = [(t_fail, segfault_kernel(rng, "sglang::schedul", spid[c], "libnccl.so.2"))]
            tr["notes"] = "TP%d's scheduler process segfaulted in libnccl (kernel segfault line names its pid); parent received SIGQUIT." % c
        elif cause == "hang":
            _set(tr, job, c)
            tr["notes"] = "TP%d stopped progressing (py-spy in the watchdog dump shows it in a grammar compile); the scheduler watchdog fired on the others." % c
        if exc:
            sl(c, t_fail, "Scheduler hit an exception: Traceback (most recent call last):")
            lines = _pyfr(PYL + "/sglang/srt/managers/scheduler.py", 2651, "run_scheduler_process", "scheduler.event_loop_overlap()" if rng.random() < 0.5 else "scheduler.event_loop_normal()") \
                + _pyfr(PYL + "/torch/utils/_contextlib.py", 116, "decorate_context", "return func(*args, **kwargs)") \
                + _pyfr(PYL + "/sglang/srt/managers/scheduler.py", 742, "event_loop_overlap", "batch_result = self.run_batch(batch)") \
                + _pyfr(PYL + "/sglang/srt/managers/tp_worker.py", 210, "forward_batch_generation", "logits_output, can_run_cuda_graph = self.model_runner.forward(") \
                + [exc] + (CUDA_ASYNC if "CUDA error" in exc else []) + [""]
            for i, l in enumerate(lines):
                logs[ni].add(t_fail + 0.0001 * (i + 1), l)
            top(t_fail + 0.3, "Received sigquit from a child process. It usually means the child failed.")
            for r in range(tp):
                if r != c and rng.random() < 0.15:
                    sl(r, t_fail + 0.5, "[W%s ProcessGroupNCCL.cpp:1250] Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL." % T.c10d(t_fail + 0.5, "")[1:])
        elif sig:
            logs[ni].add(t_fail - 0.01, "Fatal Python error: Segmentation fault")
            logs[ni].add(t_fail - 0.009, "")
            logs[ni].add(t_fail - 0.008, "Thread 0x%s (most recent call first):" % hexid(rng, 12))
            logs[ni].add(t_fail - 0.007, '  File "%s/sglang/srt/distributed/device_communicators/pynccl.py", line 142 in all_reduce' % PYL)
            logs[ni].add(t_fail - 0.006, '  File "%s/sglang/srt/managers/scheduler.py", line 742 in event_loop_overlap' % PYL)
            top(t_fail + 0.3, "Received sigquit from a child process. It usually means the child failed.")
        else:  # watchdog (hang, or nvlink kernel-only)
            fin = t_fail + 300
            for r in range(tp):
                if r == c and cause == "hang":
                    continue
                sl(r, t_fail + 300 + r * 0.01, "Scheduler watchdog timeout (self.watchdog_timeout=300, self.soft=False)")
                if r == 0:
                    sl(r, t_fail + 300.1, "self.cur_batch.batch_size()=%d, self.cur_batch.reqs=[Req(rid=%s, input_ids=[...])]" % (rng.randint(1, 40), hexid(rng, 32)))
            if cause == "hang":
                sl(c, t_fail + 301, "Pyspy dump for PID %d:" % spid[c])
                logs[ni].extend(t_fail + 301.01, ['Thread %d (active): "MainThread"' % spid[c],
                                                  "    _compile_grammar (%s/xgrammar/compiler.py:214)" % PYL,
                                                  "    init_value_impl (%s/sglang/srt/constrained/xgrammar_backend.py:161)" % PYL,
                                                  "    process_input_requests (%s/sglang/srt/managers/scheduler.py:1041)" % PYL,
                                                  "    event_loop_overlap (%s/sglang/srt/managers/scheduler.py:718)" % PYL], 0.001)
            top(t_fail + 302, "Received sigquit from a child process. It usually means the child failed.")
        top(fin + 1, "Killed")
    for i in range(nn):
        out.add("sglang-node%d.log" % i if nn > 1 else rng.choice(["sglang_server.log", "launch_server.out"]), logs[i].lines())
    _kern(rng, out, job, kern, t0, fin, "dmesg", extra_nodes=1)
    R = Res()
    R.truth = tr
    return out, R


# =========================================================================== K8s serving: TGI or Triton TRT-LLM under LWS
def _describe(pod, node, ns, ctr, image, restarts, last_reason, last_code, state, t_start, t_fin, events, gpus):
    L = ["Name:             %s" % pod, "Namespace:        %s" % ns, "Priority:         0", "Service Account:  default",
         "Node:             %s/%s" % (node.name, node.ip), "Start Time:       %s" % T.dmesg_T(t_start), "Labels:           app=%s" % pod.rsplit("-", 2)[0],
         "Status:           Running", "IP:               10.244.%d.%d" % (len(pod) % 60, len(node.name) * 3 % 250), "Containers:", "  %s:" % ctr,
         "    Image:          %s" % image]
    if state == "CrashLoopBackOff":
        L += ["    State:          Waiting", "      Reason:       CrashLoopBackOff"]
    else:
        L += ["    State:          Running", "      Started:      %s" % T.dmesg_T(t_fin + 5)]
    if last_reason:
        L += ["    Last State:     Terminated", "      Reason:       %s" % last_reason, "      Exit Code:    %d" % last_code,
              "      Started:      %s" % T.dmesg_T(t_start), "      Finished:     %s" % T.dmesg_T(t_fin)]
    L += ["    Ready:          %s" % ("False" if state == "CrashLoopBackOff" else "True"), "    Restart Count:  %d" % restarts,
          "    Limits:", "      memory:          %dGi" % rng_mem(pod), "      nvidia.com/gpu:  %d" % gpus,
          "    Liveness:   http-get http://:8080/health delay=600s timeout=5s period=10s #success=1 #failure=3",
          "Conditions:", "  Type              Status", "  Ready             %s" % ("False" if state == "CrashLoopBackOff" else "True"),
          "Events:", "  Type     Reason     Age                 From     Message", "  ----     ------     ----                ----     -------"]
    L += events
    return L


def rng_mem(pod):
    return 200 + (len(pod) * 37) % 300


def layout_k8s_serving(rng, cause, run):
    out = Out()
    tgi = rng.random() < 0.5
    nn = 1 if tgi else rng.choice([1, 2])
    nodes = make_nodes(rng, nn, rng.choice(["gcp", "aws", "gpu-h100"]), gpus=8)
    gpn = rng.choice([4, 8]) if tgi else 8
    job = Job(rng, nodes, gpn)
    W = job.world
    for nd in nodes:
        nd.k8s_node = nd.name
    t0 = C.pick_base_time(rng)
    ns = rng.choice(["inference", "llm-serving", "default"])
    base = rng.choice(["tgi-llama70b", "tgi-qwen72b"]) if tgi else rng.choice(["trtllm-405b", "triton-llama"])
    pods = ["%s-%s-%s" % (base, hexid(rng, 10)[:9], alnum(rng, 5)) for _ in range(nn)] if tgi else ["%s-0" % base] + ["%s-0-%d" % (base, i) for i in range(1, nn)]
    tr = _truth(cause)
    c = rng.randrange(W)
    ni = job.ni(c)
    nd = nodes[ni]
    t_fail = t0 + 400 + rng.uniform(300, 20000)
    kern = {}
    logs = [EvList() for _ in range(nn)]
    restarts, last_reason, last_code, state = 0, None, 0, "Running"
    events = []
    fin = t_fail + 60
    if tgi:
        L = logs[0]

        def tg(t, lvl, tgt, msg, shard=None):
            if shard is None:
                L.add(t, "%s %s text_generation_launcher: %s" % (T.iso_z(t), lvl.rjust(5), msg))
            else:
                L.add(t, "%s %s shard-manager: text_generation_launcher: %s rank=%d" % (T.iso_z(t), lvl.rjust(5), msg, shard))
        tg(t0, "INFO", "", "Args { model_id: \"%s\", num_shard: Some(%d), sharded: Some(true), max_input_tokens: Some(8191), max_total_tokens: Some(8192), port: 8080, .. }" % (rng.choice(MODELS[:2]), gpn))
        for r in range(gpn):
            tg(t0 + 1 + r * 0.01, "INFO", "", "Starting shard", r)
        for r in range(gpn):
            tg(t0 + 90 + r * 0.1, "INFO", "", "Shard ready in %.1fs" % rng.uniform(80, 95), r)
        L.add(t0 + 100, "%s  INFO text_generation_router::server: router/src/server.rs:2049: Connected" % T.iso_z(t0 + 100))
        t = t0 + 100
        while t < t_fail - 5:
            t += rng.uniform(5, 300)
            L.add(t, "%s  INFO chat_completions{total_time=\"%.6fs\" validation_time=\"%dµs\" queue_time=\"%dµs\" inference_time=\"%.6fs\" time_per_token=\"%.6fms\" seed=\"None\"}: text_generation_router::server: router/src/server.rs:%d: Success" % (T.iso_z(t), rng.uniform(0.3, 9), rng.randint(200, 900), rng.randint(40, 900), rng.uniform(0.3, 9), rng.uniform(14, 30), 622))
        if cause is None:
            for _ in range(rng.randint(1, 3)):
                tt = rng.uniform(t0 + 100, t_fail)
                L.add(tt, "%s ERROR chat_completions: text_generation_router::infer: router/src/infer/mod.rs:%d: `inputs` tokens + `max_new_tokens` must be <= 8192. Given: 8011 `inputs` tokens and 512 `max_new_tokens`" % (T.iso_z(tt), 110))
            L.add(t_fail, "%s  INFO text_generation_launcher: Terminating webserver" % T.iso_z(t_fail))
            for r in range(gpn):
                tg(t_fail + 1 + r * 0.01, "INFO", "", "Terminating shard", r)
                tg(t_fail + 2 + r * 0.01, "INFO", "", "shard terminated", r)
            tr["notes"] = "Healthy TGI pod: input-length validation errors answered with 422 and a rolling-update shutdown."
            fin = t_fail + 3
        else:
            if cause in ("gpu_hardware", "ecc_memory"):
                xid = _xid_for(cause, rng)
                kern[0] = [(t_fail - 0.4 + i * 0.001, l) for i, l in enumerate("\n".join(xid_lines(rng, nd.pci[c], xid, job.pid[c], "python")).split("\n"))]
                _set(tr, job, c, drain=True)
                exc = "RuntimeError: CUDA error: " + ("uncorrectable ECC error encountered" if cause == "ecc_memory" else "unspecified launch failure")
                tr["notes"] = "Xid %d on GPU %d of node %s; TGI shard %d crashed with a CUDA error; pod restarted, now CrashLoopBackOff because the GPU is gone." % (xid, c, nd.name, c)
                state, restarts, last_reason, last_code = "CrashLoopBackOff", rng.randint(3, 7), "Error", 1
            elif cause == "cuda_oom":
                _set(tr, job, c)
                exc = oom_text(rng, c)
                tr["notes"] = "CUDA OOM in TGI shard %d during warmup after a restart with a bigger max_batch_prefill_tokens; launcher reports the shard failed." % c
                state, restarts, last_reason, last_code = "CrashLoopBackOff", rng.randint(2, 5), "Error", 1
            elif cause == "host_oom_kill":
                _set(tr, job, ni=0)
                tr["rank"] = None
                tr["rank_inferable"] = False
                exc = None
                state, restarts, last_reason, last_code = "Running", 1, "OOMKilled", 137
                tr["notes"] = "Container memory limit hit while shards loaded safetensors; kubelet reports OOMKilled (exit 137) for the whole container, no shard named."
            elif cause == "crash_signal":
                _set(tr, job, c)
                exc = "SIG"
                state, restarts, last_reason, last_code = "Running", 1, "Error", 1
                tr["notes"] = "TGI shard %d was killed by SIGSEGV (flash-attention kernel); launcher shut the other shards down; pod restarted once." % c
            if exc and exc != "SIG":
                L.add(t_fail - 0.01, "%s ERROR text_generation_launcher: Method Decode encountered an error." % T.iso_z(t_fail - 0.01))
                tg(t_fail, "ERROR", "", "Shard complete standard error output:\n\nTraceback (most recent call last):\n  File \"/opt/conda/lib/python3.11/site-packages/text_generation_server/interceptor.py\", line 24, in intercept\n    return await response\n  File \"/opt/conda/lib/python3.11/site-packages/text_generation_server/models/flash_causal_lm.py\", line 1812, in generate_token\n    out, speculative_logits = self.forward(batch, adapter_data)\n" + exc, c)
                L.add(t_fail + 0.2, "%s ERROR batch{batch_size=%d}:decode:decode{size=%d}:decode{size=%d}: text_generation_router_v3::client: backends/v3/src/client/mod.rs:45: Server error: %s" % (T.iso_z(t_fail + 0.2), rng.randint(1, 30), rng.randint(1, 30), rng.randint(1, 30), exc.split(": ", 1)[-1][:120]))
                L.add(t_fail + 0.5, "%s ERROR text_generation_launcher: Shard %d crashed" % (T.iso_z(t_fail + 0.5), c))
            elif exc == "SIG":
                L.add(t_fail, "%s ERROR text_generation_launcher: Shard %d crashed" % (T.iso_z(t_fail), c))
                L.add(t_fail + 0.01, "%s ERROR text_generation_launcher: Shard process was signaled to shutdown with signal 11" % T.iso_z(t_fail))
                kern[0] = [(t_fail - 0.01, segfault_kernel(rng, "python", job.pid[c], "flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so"))]
            if exc:
                for r in range(gpn):
                    if r != c:
                        tg(t_fail + 0.6 + r * 0.01, "INFO", "", "Terminating shard", r)
                L.add(t_fail + 1, "%s ERROR text_generation_launcher: Webserver Crashed" % T.iso_z(t_fail + 1) if rng.random() < 0.3 else "%s  INFO text_generation_launcher: Shutting down shards" % T.iso_z(t_fail + 1))
    else:
        # Triton + TRT-LLM leader/worker via mpirun
        for ni2 in range(nn):
            for r in range(ni2 * 8, ni2 * 8 + 8):
                logs[ni2].add(t0 + 20 + r * 0.01, "[TensorRT-LLM][INFO] MPI size: %d, MPI local size: 8, rank: %d" % (W, r))
                logs[ni2].add(t0 + 60 + r * 0.01, "[TensorRT-LLM][INFO] [MemUsageChange] Allocated %.2f GiB for max tokens in paged KV cache (%d)." % (rng.uniform(20, 40), rng.randint(300000, 900000)))
        logs[0].add(t0 + 90, "I%s %d grpc_server.cc:2558] Started GRPCInferenceService at 0.0.0.0:8001" % (T.dt(t0 + 90).strftime("%m%d %H:%M:%S.%f"), job.tpid[0]))
        logs[0].add(t0 + 90.1, "I%s %d http_server.cc:4704] Started HTTPService at 0.0.0.0:8000" % (T.dt(t0 + 90).strftime("%m%d %H:%M:%S.%f"), job.tpid[0]))
        if cause is None:
            logs[0].add(t_fail, "Signal (15) received.")
            logs[0].add(t_fail + 1, "I%s %d server.cc:305] Waiting for in-flight requests to complete." % (T.dt(t_fail).strftime("%m%d %H:%M:%S.%f"), job.tpid[0]))
            logs[0].add(t_fail + 2, "[TensorRT-LLM][WARNING] Device 0 peer access Device 1 is not available." if rng.random() < 0.5 else "I%s %d model_lifecycle.cc:617] successfully unloaded 'tensorrt_llm' version 1" % (T.dt(t_fail).strftime("%m%d %H:%M:%S.%f"), job.tpid[0]))
            tr["notes"] = "Healthy Triton/TRT-LLM deployment; normal SIGTERM shutdown during a rollout."
            fin = t_fail + 3
        else:
            if cause in ("gpu_hardware", "ecc_memory"):
                xid = _xid_for(cause, rng)
                kern[ni] = [(t_fail - 0.4 + i * 0.001, l) for i, l in enumerate("\n".join(xid_lines(rng, nd.pci[c % 8], xid, job.pid[c], "tritonserver")).split("\n"))]
                _set(tr, job, c, drain=True)
                logs[ni].add(t_fail, "[TensorRT-LLM][ERROR] Encountered an error in forwardAsync function: [TensorRT-LLM][ERROR] CUDA runtime error in cudaEventSynchronize(get()): %s (/workspace/tensorrt_llm/cpp/include/tensorrt_llm/runtime/cudaEvent.h:66)" % ("uncorrectable ECC error encountered" if cause == "ecc_memory" else "unspecified launch failure"))
                logs[ni].add(t_fail + 0.5, "--------------------------------------------------------------------------")
                logs[ni].add(t_fail + 0.51, "Primary job  terminated normally, but 1 process returned\na non-zero exit code. Per user-direction, the job has been aborted.")
                logs[ni].add(t_fail + 0.6, "--------------------------------------------------------------------------\nmpirun detected that one or more processes exited with non-zero status, thus causing\nthe job to be terminated. The first process to do so was:\n\n  Process name: [[%d,1],%d]\n  Exit code:    1\n--------------------------------------------------------------------------" % (rng.randint(10000, 60000), c))
                tr["notes"] = "Xid %d on GPU %d of %s; TRT-LLM MPI rank %d failed in forwardAsync (rank named by mpirun's 'Process name'); pod restarted." % (xid, c % 8, nd.name, c)
                state, restarts, last_reason, last_code = "CrashLoopBackOff", rng.randint(2, 6), "Error", 1
            elif cause == "cuda_oom":
                _set(tr, job, c)
                logs[ni].add(t_fail, "[TensorRT-LLM][ERROR] [MPI_Rank %d] tensorrt_llm::common::TllmException: [TensorRT-LLM][ERROR] CUDA runtime error in ::cudaMallocAsync(ptr, n, mCudaStream->get()): out of memory (/workspace/tensorrt_llm/cpp/tensorrt_llm/runtime/tllmBuffers.h:125)" % c)
                logs[ni].add(t_fail + 1, "--------------------------------------------------------------------------\nmpirun noticed that process rank %d with PID %d on node %s exited on signal 6 (Aborted).\n--------------------------------------------------------------------------" % (c, job.pid[c], pods[ni]))
                tr["notes"] = "TRT-LLM rank %d ran out of GPU memory (cudaMallocAsync) when the LoRA cache grew; mpirun reported the abort." % c
                state, restarts, last_reason, last_code = "Running", 1, "Error", 134
            elif cause == "host_oom_kill":
                _set(tr, job, ni=ni)
                tr["rank"] = None
                tr["rank_inferable"] = False
                state, restarts, last_reason, last_code = "Running", 1, "OOMKilled", 137
                logs[ni].add(t_fail, "--------------------------------------------------------------------------\nmpirun noticed that process rank %d with PID %d on node %s exited on signal 9 (Killed).\n--------------------------------------------------------------------------" % (c, job.pid[c], pods[ni]))
                tr["rank"] = c
                tr["rank_inferable"] = True
                tr["notes"] = "Pod %s hit its memory limit (OOMKilled in kubectl describe); mpirun saw rank %d killed by signal 9." % (pods[ni], c)
            elif cause == "crash_signal":
                _set(tr, job, c)
                kern[ni] = [(t_fail - 0.01, segfault_kernel(rng, "tritonserver", job.pid[c], "libtensorrt_llm.so"))]
                logs[ni].add(t_fail, "Signal (11) received.")
                logs[ni].add(t_fail + 0.01, " 0# 0x000055E0%s in /opt/tritonserver/bin/tritonserver\n 1# 0x00007F%s in /usr/lib/x86_64-linux-gnu/libc.so.6\n 2# 0x00007F%s in /opt/tritonserver/backends/tensorrtllm/libtensorrt_llm.so" % (hexid(rng, 8), hexid(rng, 10), hexid(rng, 10)))
                logs[ni].add(t_fail + 1, "--------------------------------------------------------------------------\nmpirun noticed that process rank %d with PID %d on node %s exited on signal 11 (Segmentation fault).\n--------------------------------------------------------------------------" % (c, job.pid[c], pods[ni]))
                tr["notes"] = "TRT-LLM rank %d (tritonserver) segfaulted in libtensorrt_llm.so; mpirun names the rank." % c
                state, restarts, last_reason, last_code = "Running", 1, "Error", 139
    # kubectl describe + events
    for i, p in enumerate(pods):
        ev = []
        if cause is not None and i == ni:
            ev += ["  Normal   Pulled     %s (x%d over %s)  kubelet  Container image already present on machine" % (T.k8s_age(3600), restarts + 1, T.k8s_age(t_fail - t0 + 3600))]
            if state == "CrashLoopBackOff":
                ev += ["  Warning  BackOff    %s (x%d over %s)  kubelet  Back-off restarting failed container %s in pod %s_%s(%s)" % (T.k8s_age(30), restarts * 7, T.k8s_age(1800), "server", p, ns, hexid(rng, 8) + "-" + hexid(rng, 4))]
            if cause in ("gpu_hardware", "ecc_memory"):
                ev += ["  Warning  UnexpectedAdmissionError  %s  kubelet  Allocate failed due to requested number of devices unavailable for nvidia.com/gpu. Requested: %d, Available: %d, which is unexpected" % (T.k8s_age(20), 8 if not tgi else gpn, (8 if not tgi else gpn) - 1)]
            if cause is not None and last_reason != "OOMKilled":
                ev += ["  Warning  Unhealthy  %s (x3 over %s)  kubelet  Liveness probe failed: Get \"http://10.244.3.17:8080/health\": dial tcp 10.244.3.17:8080: connect: connection refused" % (T.k8s_age(60), T.k8s_age(90))]
        elif rng.random() < 0.3:
            ev += ["  Warning  Unhealthy  %s  kubelet  Readiness probe failed: HTTP probe failed with statuscode: 503" % T.k8s_age(t_fail - t0)]
        img = "ghcr.io/huggingface/text-generation-inference:%s" % rng.choice(["3.0.1", "3.2.3", "2.4.1"]) if tgi else "nvcr.io/nvidia/tritonserver:%s-trtllm-python-py3" % rng.choice(["24.12", "25.03", "25.05"])
        out.add("kubectl/describe-pod-%s.txt" % p, _describe(p, nodes[i], ns, "server", img, restarts if i == ni else 0, last_reason if i == ni else None, last_code, state if i == ni else "Running", t0, t_fail + 1, ev or ["  <none>"], gpn if tgi else 8))
        out.add("pod-logs/%s%s.log" % (p, "" if cause is None or i != ni or restarts == 0 else ".previous"), logs[i].lines())
    gp = ["NAME%sREADY   STATUS             RESTARTS        AGE" % (" " * (max(len(p) for p in pods) - 1))]
    for i, p in enumerate(pods):
        st = state if (cause is not None and i == ni) else "Running"
        rs = restarts if (cause is not None and i == ni) else 0
        rdy = "0/1" if st == "CrashLoopBackOff" else "1/1"
        gp.append("%s   %s     %-18s %-15s %s" % (p.ljust(max(len(p) for p in pods) + 2), rdy, st, str(rs) + ((" (%s ago)" % T.k8s_age(120)) if rs else ""), T.k8s_age(t_fail - t0 + 300)))
    if not tgi:
        gp.insert(0, "$ kubectl get lws %s -o wide  # LeaderWorkerSet size=%d" % (base, nn))
    out.add("kubectl/get-pods.txt", gp)
    if tr.get("node") and cause is not None:
        tr["node_aliases"] = list(tr["node_aliases"]) + [pods[ni]]
    _kern(rng, out, job, kern, t0, fin, "nodes", extra_nodes=0)
    R = Res()
    R.truth = tr
    return out, R


# =========================================================================== RL on Ray: verl / OpenRLHF
def layout_rl_ray(rng, cause, run):
    out = Out()
    verl = rng.random() < 0.5
    nn = rng.choice([1, 2, 2, 4]) if cause != "network" else rng.choice([2, 4])
    nodes = make_nodes(rng, nn, rng.choice(["aws", "gpu-h100", "nid", "fqdn"]), gpus=8)
    job = Job(rng, nodes, 8)
    W = job.world
    t0 = C.pick_base_time(rng)
    tr = _truth(cause)
    E = EvList()
    pids = {r: job.pid[r] for r in range(W)}
    # OpenRLHF: first half actor trainers, second half vLLM engines; verl: colocated WorkerDict (hybrid engine)
    if verl:
        role = {r: "WorkerDict" for r in range(W)}
    else:
        half = W // 2
        role = {r: ("PolicyModelActor" if r < half else "LLMRayActor") for r in range(W)}

    def ap(r, t, msg):
        E.add(t, "(%s pid=%d, ip=%s) %s" % (role[r], pids[r], job.node(r).ip, msg))

    if verl:
        E.add(t0, "%s\tINFO worker.py:1832 -- Started a local Ray instance. View the dashboard at 127.0.0.1:8265 " % T.pylog(t0) if nn == 1 else "%s\tINFO worker.py:1747 -- Connecting to existing Ray cluster at address: %s:6379..." % (T.pylog(t0), nodes[0].ip))
        E.add(t0 + 2, "(TaskRunner pid=%d) TaskRunner hostname: %s, PID: %d" % (pids[0] - 5, nodes[0].name, pids[0] - 5))
        E.add(t0 + 3, "(TaskRunner pid=%d) Using dataset class: RLHFDataset" % (pids[0] - 5))
        for r in range(0, W, max(1, W // 4)):
            ap(r, t0 + 40, "Model config after override: Qwen2Config {")
    else:
        E.add(t0, "[%s] [INFO] [openrlhf] placement group created: bundles=[{'GPU': 1, 'CPU': 1}] * %d, strategy=PACK" % (T.sec(t0), W))
        for r in range(W // 2, W, 2):
            ap(r, t0 + 30, "INFO %s [llm_engine.py:447] init engine (profile, create kv cache, warmup model) took %.2f seconds" % (T.vllm(t0 + 30), rng.uniform(20, 60)))
        ap(0, t0 + 60, "[%s] [INFO] [deepspeed] DeepSpeed info: version=0.16.4, git-hash=unknown, git-branch=unknown" % T.sec(t0 + 60))
        ap(0, t0 + 70, "init_process_group: master_address=%s, master_port=%d, world_size=%d, group_name=openrlhf" % (nodes[0].ip, rng.randint(20000, 40000), W // 2 + 1))
    step_s = rng.uniform(60, 400)
    n_ok = rng.randint(5, 80)
    tt = t0 + 120
    t_fail = tt + n_ok * step_s
    step = 0
    while tt < t_fail - step_s:
        step += 1
        tt += step_s * rng.uniform(0.9, 1.1)
        if verl:
            E.add(tt, "(TaskRunner pid=%d) step:%d - actor/entropy:%.3f - actor/pg_loss:%.4f - actor/grad_norm:%.3f - critic/score/mean:%.3f - response_length/mean:%.1f - timing_s/gen:%.2f - timing_s/update_actor:%.2f - timing_s/step:%.2f" % (pids[0] - 5, step, rng.uniform(0.3, 0.6), rng.uniform(-0.05, 0.05), rng.uniform(0.1, 0.6), rng.uniform(0.2, 0.8), rng.uniform(300, 1800), step_s * 0.55, step_s * 0.3, step_s))
        else:
            ap(0, tt, "Train epoch [1/1]: %d%%|%s| %d/%d [%s, policy_loss=%.3f, kl=%.4f, reward=%.3f, response_length=%.0f]" % (int(100 * step / (n_ok + 20)), "█" * (step * 20 // (n_ok + 20)), step, n_ok + 20, "%02d:%02d:%02d" % (int(tt - t0) // 3600, (int(tt - t0) // 60) % 60, int(tt - t0) % 60), rng.uniform(-0.1, 0.1), rng.uniform(0, 0.02), rng.uniform(0.1, 0.9), rng.uniform(300, 1800)))
    c = rng.randrange(W) if verl else rng.randrange(W // 2, W)
    if cause in ("cuda_oom", "python_exception") and not verl:
        c = rng.randrange(W // 2)
    ni = job.ni(c)
    nd = nodes[ni]
    kern = {}
    fin = t_fail + 60
    actor = hexid(rng, 32)
    if cause is None:
        r2 = rng.randrange(W)
        E.add(t_fail - 3 * step_s, "(raylet, ip=%s) A worker died or was killed while executing a task by an unexpected system error. To troubleshoot the problem, check the logs for the dead worker. RayTask ID: %s Worker ID: %s Node ID: %s Worker IP address: %s Worker port: %d Worker PID: %d Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file." % (job.node(r2).ip, hexid(rng, 48), hexid(rng, 56), hexid(rng, 56), job.node(r2).ip, rng.randint(10000, 11000), rng.randint(100000, 200000)))
        E.add(t_fail - 3 * step_s + 2, "(raylet, ip=%s) [%s] Restarting actor RewardManagerWorker %s (num_restarts=1, max_restarts=3)" % (job.node(r2).ip, T.pylog(t_fail - 3 * step_s + 2), hexid(rng, 32)) if rng.random() < 0 else "")
        E.add(t_fail - 3 * step_s + 5, "%s\tWARNING actor_manager.py:211 -- The reward worker (a CPU-only Ray task for sandboxed code execution) was restarted; retrying %d pending tasks." % (T.pylog(t_fail - 3 * step_s + 5), rng.randint(2, 30)) if rng.random() < 0 else "(TaskRunner pid=%d) WARNING: reward function timed out on 3 samples, assigning score 0.0" % (pids[0] - 5))
        ap(0, t_fail - 10, "WARNING %s [utils.py:120] FlashInfer sampler not available, falling back to PyTorch-native top-p/top-k sampling" % T.vllm(t_fail - 10) if rng.random() < 0.5 else "[W%s CUDAAllocatorConfig.h:28] Warning: expandable_segments not supported on this platform (function operator())" % T.c10d(t_fail, "")[1:])
        E.add(t_fail, "(TaskRunner pid=%d) Training finished. Final validation metrics: {'val-core/openai/gsm8k/reward/mean@1': %.3f}" % (pids[0] - 5, rng.uniform(0.6, 0.9)) if verl else "[%s] [INFO] [openrlhf] Saving final model to ./checkpoint/qwen2.5-7b-grpo" % T.sec(t_fail))
        tr["notes"] = "Healthy RL run: a CPU reward-worker died and was restarted by Ray, reward timeouts and fallback warnings; training finished."
        fin = t_fail + 5
    else:
        died = False
        if cause in ("gpu_hardware", "ecc_memory"):
            xid = _xid_for(cause, rng)
            kern[ni] = [(t_fail - 0.4 + i * 0.001, l) for i, l in enumerate("\n".join(xid_lines(rng, nd.pci[c % 8], xid, pids[c], "ray::" + role[c][:10])).split("\n"))]
            _set(tr, job, c, drain=True)
            died = True
            tr["notes"] = "Xid %d on GPU %d of %s hosting %s (pid %d); the actor died and the driver got ActorDiedError." % (xid, c % 8, nd.name, role[c], pids[c])
        elif cause == "host_oom_kill":
            _set(tr, job, c)
            used = rng.uniform(0.951, 0.99)
            tot = rng.choice([1007.5, 2015.5, 1511.6])
            E.add(t_fail + 1, "(raylet, ip=%s) [%s] Task was killed due to the node running low on memory." % (nd.ip, T.pylog(t_fail)) if rng.random() < 0 else "")
            died = "oom"
            detail = ("Task was killed due to the node running low on memory.\nMemory on the node (IP: %s, ID: %s) where the task (actor ID: %s, name=%s.__init__, pid=%d, memory used=%.2fGB) was running was %.2fGB / %.2fGB (%.6f), which exceeds the memory usage threshold of 0.95. Ray killed this worker (ID: %s) because it was the most recently scheduled task; to see more information about memory usage on this node, use `ray logs raylet.out -ip %s`."
                      % (nd.ip, hexid(rng, 56), actor, role[c], pids[c], rng.uniform(90, 300), used * tot, tot, used, hexid(rng, 56), nd.ip))
            tr["notes"] = "Ray memory monitor killed %s pid %d on %s (gathering full weights to CPU for the weight sync); ray.exceptions.OutOfMemoryError." % (role[c], pids[c], nd.name)
        elif cause == "hang":
            _set(tr, job, c)
            grp = "actor_rollout_wg" if verl else "openrlhf"
            trainers = [r for r in range(W) if (verl or r < W // 2) and r != c]
            to = rng.choice([600000, 1800000])
            for r in trainers[:min(len(trainers), 6)]:
                for i, l in enumerate(watchdog_timeout(rng, r if verl else 0, t_fail + to / 1000.0, rng.randint(2, 400), "BROADCAST", rng.choice([544997376, 136249344]), to, pg="1", pgname=grp, ver="2.5")):
                    ap(r, t_fail + to / 1000.0 + i * 1e-4, l)
            # the stuck rollout worker
            E.add(t_fail + 60, "(raylet, ip=%s) [%s] Worker %s has been blocked in %s.update_weight for over 60 seconds." % (nd.ip, T.pylog(t_fail + 60), hexid(rng, 12), role[c]) if rng.random() < 0 else "")
            out.add("debug/ray-stack-%s.txt" % nd.name.split(".")[0], ["$ ray stack", "Stack dump for %s   ray::%s.update_weight" % (pids[c], role[c]),
                                                                       "Process %d: ray::%s.update_weight" % (pids[c], role[c]), "Python v3.10.12 (/usr/bin/python3.10)", "",
                                                                       'Thread %d (idle): "MainThread"' % pids[c],
                                                                       "    _wait_for_disk_lru (%s/vllm/model_executor/model_loader/weight_utils.py:388)" % C.PY,
                                                                       "    load_weights (%s/vllm/model_executor/models/qwen2.py:512)" % C.PY,
                                                                       "    update_weight (/workspace/openrlhf/trainer/ray/vllm_worker_wrap.py:41)" if not verl else "    update_weight (/workspace/verl/verl/workers/sharding_manager/fsdp_vllm.py:177)",
                                                                       "    _resume_span (%s/ray/util/tracing/tracing_helper.py:467)" % C.PY])
            fin = t_fail + to / 1000.0 + 5
            tr["notes"] = "Rollout worker %s (pid %d on %s) never entered the weight broadcast (ray stack shows it elsewhere); trainer ranks hit the NCCL watchdog on BROADCAST in group %s." % (role[c], pids[c], nd.name, grp)
        elif cause == "network":
            _set(tr, job, ni=ni, drain=True)
            tr["rank"] = job.lowest(ni)
            tr["rank_inferable"] = False
            ibk = rng.randrange(8)
            kern[ni] = [(t_fail - 2 + i * 0.01, l) for i, l in enumerate(mlx5_down_lines(rng, IB_PCI[ibk], "mlx5_%d" % ibk, "ibp%ss0" % IB_PCI[ibk]))]
            r0 = job.lowest(ni)
            ap(r0, t_fail, ib_completion_warn(rng, nd.name, pids[r0], 0, nodes[(ni + 1) % nn].ip, nd.ip, "mlx5_%d" % ibk))
            died = "nccl"
            tr["notes"] = "mlx5_%d on %s went down during the trainer->rollout weight broadcast; NCCL IB completion errors, RayTaskError(DistBackendError) in the driver; node named only by kernel log / IPs." % (ibk, nd.name)
            if nn == 1:
                tr.update({"cause": "network"})
        elif cause == "cuda_oom":
            _set(tr, job, c)
            died = "exc"
            detail = oom_text(rng, c % 8)
            tr["notes"] = "CUDA OOM in trainer %s rank %d during log-prob recompute of long responses; RayTaskError(OutOfMemoryError)." % (role[c], c)
        elif cause == "python_exception":
            _set(tr, job, c)
            died = "exc"
            detail = rng.choice(["KeyError: 'ground_truth'", "ValueError: math_verify timed out and returned None for reward", "AssertionError: len(responses)=511 != batch_size*n=512"])
            tr["notes"] = "Python exception in %s (rank %d): %s" % (role[c], c, detail)
        tail = t_fail + 2 if cause != "hang" else fin
        if died is True:
            E.add(tail, "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.\n\tclass_name: %s\n\tactor_id: %s\n\tpid: %d\n\tnamespace: %s\n\tip: %s\nThe actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors." % (role[c], actor, pids[c], hexid(rng, 8) + "-" + hexid(rng, 4), nd.ip))
        elif died == "oom":
            E.add(tail, "ray.exceptions.OutOfMemoryError: " + detail)
        elif died == "exc":
            ap(c, t_fail, "Traceback (most recent call last):")
            E.add(tail, "ray.exceptions.RayTaskError(%s): ray::%s.%s() (pid=%d, ip=%s, actor_id=%s, repr=<%s object at 0x7f%s>)" % (detail.split(":")[0].split(".")[-1], role[c], "compute_log_prob" if cause == "cuda_oom" else "generate_sequences", pids[c], nd.ip, actor, role[c], hexid(rng, 9)))
            E.add(tail + 0.001, "  File \"%s/ray/util/tracing/tracing_helper.py\", line 463, in _resume_span\n    return method(self, *_args, **_kwargs)" % C.PY)
            E.add(tail + 0.002, detail)
        elif died == "nccl":
            E.add(tail, "ray.exceptions.RayTaskError(DistBackendError): ray::%s.update_weight() (pid=%d, ip=%s, actor_id=%s)\ntorch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, remote process exited or there was a network error, NCCL version 2.21.5\nncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\nLast error:\nNET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Send)" % (role[job.lowest((ni + 1) % nn)], pids[(job.lowest((ni + 1) % nn))], nodes[(ni + 1) % nn].ip, actor, nd.ip, rng.randint(30000, 60000)))
        if cause == "hang":
            E.add(tail + 1, "(TaskRunner pid=%d) ray.exceptions.RayTaskError(DistBackendError): ray::WorkerDict.actor_rollout_update_actor()" % (pids[0] - 5) if verl else "ray.exceptions.RayTaskError(DistBackendError): ray::PolicyModelActor.broadcast_to_vllm()")
        E.add(tail + 3, "%s\tERROR worker.py:420 -- Unhandled error (suppress with 'RAY_IGNORE_UNHANDLED_ERRORS=1'): ray::%s" % (T.pylog(tail + 3), role[c]) if rng.random() < 0.4 else "")
    out.add(rng.choice(["driver.log", "main_ppo.log" if verl else "train_grpo_ray.log"]), [l for l in E.lines() if l])
    # Ray session logs for the culprit node
    if cause is not None:
        wf = "ray/%s/session_latest/logs/worker-%s-%s-%d.err" % (nd.name.split(".")[0], hexid(rng, 56), "%08x" % rng.randint(1, 40), pids[c])
        if cause in ("gpu_hardware", "ecc_memory"):
            out.add(wf, [":actor_name:%s" % role[c], "[%s E %d %d] core_worker.cc:%d: Unhandled exception: RuntimeError: CUDA error: %s" % (T.pylog(t_fail), pids[c], pids[c] + 50, 780, "uncorrectable ECC error encountered" if cause == "ecc_memory" else "unspecified launch failure"), "*** SIGABRT received at time=%d on cpu %d ***" % (int(t_fail), rng.randint(0, 200))])
        else:
            out.add(wf, [":actor_name:%s" % role[c], "[%s] %s" % (T.pylog(t0 + 40), "Actor started on %s" % nd.ip)])
        if cause == "host_oom_kill":
            out.add("ray/%s/session_latest/logs/raylet.out" % nd.name.split(".")[0], ["[%s I 1 1] (raylet) memory_monitor.cc:101: Node memory usage %.2f exceeds threshold 0.95" % (T.pylog(t_fail - 1), used),
                                                                                        "[%s I 1 1] (raylet) node_manager.cc:3090: Killing worker with pid %d (actor %s) because memory usage exceeds threshold" % (T.pylog(t_fail), pids[c], role[c])])
    _kern(rng, out, job, kern, t0, fin, "nodes")
    R = Res()
    R.truth = tr
    return out, R


LAYOUTS = {
    "vllm-mp-tp": (layout_vllm_mp, ["gpu_hardware", "ecc_memory", "nvlink", "illegal_memory_access", "cuda_oom", "python_exception", "host_oom_kill", "crash_signal", "hang"]),
    "vllm-ray-pp": (layout_vllm_ray, ["gpu_hardware", "ecc_memory", "host_oom_kill", "network", "cuda_oom", "preemption"]),
    "sglang-server": (layout_sglang, ["gpu_hardware", "ecc_memory", "nvlink", "cuda_oom", "illegal_memory_access", "python_exception", "crash_signal", "hang"]),
    "k8s-llm-serving": (layout_k8s_serving, ["gpu_hardware", "ecc_memory", "cuda_oom", "host_oom_kill", "crash_signal"]),
    "rl-ray-grpo": (layout_rl_ray, ["gpu_hardware", "ecc_memory", "host_oom_kill", "hang", "network", "cuda_oom", "python_exception"]),
}
