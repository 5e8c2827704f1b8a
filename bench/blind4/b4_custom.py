"""Self-contained generators for stacks that are not torch-PG training:
multi-node vLLM / SGLang serving and JAX multi-host (MaxText-style) training."""
from __future__ import annotations

from b4_common import pickn, Run, host_names, make_topology, short, hexid, ts_py, ts_sec, ts_vllm, ts_glog, ts_slurm, ts_ctime
from b4_text import xid, gpu_uuid, oom_kill_block, segfault_line, mlx_pci, site, busid
from b4_render import coll, got_rank, got_kernel, join, kernel_file, gz
from b4_layouts import base_setup, ALL_CAUSES

VLLM_CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "host_oom_kill", "cuda_oom", "illegal_memory_access",
               "python_exception", "crash_signal", "hang"]
JAX_CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "host_oom_kill", "cuda_oom", "illegal_memory_access",
              "python_exception", "crash_signal", "hang", "preemption"]


def _truth(run: Run, cause, rank, node, drain, notes, rank_known=True):
    run.truth = {"cause": cause, "healthy": cause is None, "rank": rank, "node": node.host if node is not None else None,
                 "drain": drain, "rank_known": rank_known, "node_obj": node, "notes": notes}


def _kernel_fault(run: Run, cause: str, nd, gi: int, pid: int, t: float) -> str:
    """Kernel evidence for hardware-ish causes; returns CUDA-ish error text for the app."""
    rng = run.rng
    pci = nd.pci[gi]
    if cause == "gpu_hardware":
        run.kern(nd, t, xid(pci, 79, pid, "python3", "GPU has fallen off the bus."))
        run.kern(nd, t + 1e-5, "NVRM: GPU %s.0: GPU has fallen off the bus." % pci)
        run.kern(nd, t + 2e-5, "NVRM: GPU at PCI:%s: %s" % (pci, gpu_uuid(rng)))
        return "unspecified launch failure", "CUDA_ERROR_LAUNCH_FAILED"
    if cause == "ecc_memory":
        run.kern(nd, t, xid(pci, 48, "'<unknown>'", "<unknown>", "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition 0." % rng.randint(0, 11)))
        run.kern(nd, t + 0.01, xid(pci, 63, "'<unknown>'", "<unknown>", "Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % rng.randint(0x10000, 0xfffffff)))
        return "uncorrectable ECC error encountered", "CUDA_ERROR_ECC_UNCORRECTABLE"
    if cause == "nvlink":
        run.kern(nd, t, xid(pci, 74, pid, "python3", "NVLink: fatal error detected on link %d(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)" % rng.randint(0, 17)))
        return "uncorrectable NVLink error detected during the execution", "CUDA_ERROR_NVLINK_UNCORRECTABLE"
    if cause == "illegal_memory_access":
        run.kern(nd, t, "NVRM: Xid (PCI:%s): 31, pid=%d, name=python3, Ch %08x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC%d GPCCLIENT_T1_%d faulted @ 0x7f%02x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE" % (
            pci, pid, rng.randint(8, 64), rng.randint(0, 7), rng.randint(0, 15), rng.randint(0, 255), rng.randint(0, 2 ** 32 - 1)))
        return "an illegal memory access was encountered", "CUDA_ERROR_ILLEGAL_ADDRESS"
    return "unknown error", "CUDA_ERROR_UNKNOWN"


# ================================================================== vLLM / SGLang multi-node serving
def build_vllm(run: Run):
    rng = run.rng
    cause = run.cause
    nn = rng.choice([2, 2, 2, 4])
    gpn = 8
    style = rng.choice(["gpu", "ec2", "plain", "fqdn"])
    base_setup(run, nn, gpn, style, "plain", set())
    engine = "sglang" if (rng.random() < 0.35 and cause not in ("host_oom_kill", "crash_signal", "network")) else "vllm"
    run.meta["engine"] = engine
    W = run.world
    model = rng.choice(["deepseek-ai/DeepSeek-V3", "meta-llama/Llama-3.1-405B-Instruct-FP8", "Qwen/Qwen3-235B-A22B", "moonshotai/Kimi-K2-Instruct"])
    ver = rng.choice(["0.8.5", "0.9.2", "0.10.1.1", "0.10.2"]) if engine == "vllm" else rng.choice(["0.4.6.post5", "0.4.9.post2", "0.5.0rc2"])
    t_up = rng.uniform(240, 900)
    t_f = t_up + rng.uniform(600, 40000)
    r = rng.randrange(W) if cause else None
    if r is not None and r < gpn and rng.random() < 0.6:
        r += gpn          # faults on the worker node are the more common report
    rk = run.ranks[r] if r is not None else None
    head = run.nodes[0]
    H = []    # head log (t, text)
    col = run.meta.get("ansi")

    def wp(x):   # worker prefix (Ray)
        p = "(RayWorkerWrapper pid=%d, ip=%s)" % (x.pid, x.node.ip)
        return ("\x1b[36m%s\x1b[0m " % p) if col else p + " "

    def vl(t, lvl, src, msg, node=head):
        return "%s %s [%s] %s" % (lvl, ts_vllm(run.e(t, node)), src, msg)

    def sg(t, tp, msg, node=head):
        return "[%s%s] %s" % (ts_sec(run.e(t, node)), (" TP%d" % tp) if tp is not None else "", msg)

    files = {}
    if engine == "vllm":
        H.append((0, vl(0, "INFO", "__init__.py:239", "Automatically detected platform cuda.")))
        H.append((1, vl(1, "INFO", "api_server.py:1043", "vLLM API server version %s" % ver)))
        H.append((1.1, vl(1.1, "INFO", "api_server.py:1044", "args: Namespace(model='%s', tensor_parallel_size=%d, pipeline_parallel_size=%d, distributed_executor_backend='ray', max_model_len=32768, gpu_memory_utilization=0.92, ...)" % (model, gpn, nn))))
        H.append((5, vl(5, "INFO", "ray_utils.py:335", "Connecting to existing Ray cluster at address: %s:6379..." % head.ip)))
        H.append((6, vl(6, "INFO", "ray_distributed_executor.py:176", "use_ray_spmd_worker: True")))
        for x in run.ranks:
            H.append((20 + x.r * 0.01, wp(x) + vl(20, "INFO", "parallel_state.py:1004", "rank %d in world size %d is assigned as DP rank 0, PP rank %d, TP rank %d, EP rank %d" % (x.r, W, x.r // gpn, x.r % gpn, x.r % gpn), x.node)))
        for x in run.ranks[::gpn]:
            H.append((25, wp(x) + vl(25, "INFO", "pynccl.py:69", "vLLM is using nccl==%s" % run.nccl, x.node)))
        H.append((t_up - 200, vl(t_up - 200, "INFO", "default_loader.py:262", "Loading weights took %.2f seconds" % rng.uniform(40, 180))))
        H.append((t_up - 190, vl(t_up - 190, "INFO", "gpu_model_runner.py:1892", "Model loading took %.4f GiB and %.6f seconds" % (rng.uniform(40, 75), rng.uniform(60, 200)))))
        H.append((t_up - 100, vl(t_up - 100, "INFO", "kv_cache_utils.py:716", "GPU KV cache size: %s tokens" % format(rng.randint(200000, 2000000), ","))))
        H.append((t_up - 40, vl(t_up - 40, "INFO", "gpu_model_runner.py:2340", "Graph capturing finished in %d secs, took %.2f GiB" % (rng.randint(15, 60), rng.uniform(0.5, 3)))))
        H.append((t_up, vl(t_up, "INFO", "api_server.py:1081", "Starting vLLM API server 0 on http://0.0.0.0:8000")))
        H.append((t_up + 0.1, "INFO:     Started server process [%d]" % run.ranks[0].pid))
        H.append((t_up + 0.1, "INFO:     Waiting for application startup."))
        H.append((t_up + 0.2, "INFO:     Application startup complete."))
    else:
        for x in run.ranks:
            H.append((10 + x.r * 0.01, sg(10, x.r, "Init torch distributed begin.", x.node)))
        H.append((30, sg(30, 0, "Load weight begin. avail mem=%.2f GB" % rng.uniform(76, 78))))
        H.append((t_up - 60, sg(t_up - 60, 0, "Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail mem=%.2f GB, mem usage=%.2f GB." % (rng.uniform(5, 15), rng.uniform(60, 70)))))
        H.append((t_up - 50, sg(t_up - 50, 0, "KV Cache is allocated. #tokens: %d, K size: %.2f GB, V size: %.2f GB" % (rng.randint(300000, 900000), rng.uniform(5, 9), rng.uniform(5, 9)))))
        H.append((t_up - 30, sg(t_up - 30, 0, "Capture cuda graph end. Time elapsed: %.2f s" % rng.uniform(20, 60))))
        H.append((t_up, sg(t_up, None, "INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)")))
        H.append((t_up + 5, sg(t_up + 5, None, "The server is fired up and ready to roll!")))
    # serving chatter
    t = t_up + 10
    t_stop = t_f if cause else t_up + rng.uniform(3000, 30000)
    n = 0
    while t < t_stop and n < 1800:
        if engine == "vllm":
            if rng.random() < 0.3:
                H.append((t, vl(t, "INFO", "loggers.py:118", "Engine 000: Avg prompt throughput: %.1f tokens/s, Avg generation throughput: %.1f tokens/s, Running: %d reqs, Waiting: %d reqs, GPU KV cache usage: %.1f%%, Prefix cache hit rate: %.1f%%" % (
                    rng.uniform(100, 30000), rng.uniform(200, 9000), rng.randint(1, 256), rng.randint(0, 20), rng.uniform(1, 90), rng.uniform(0, 60)))))
            else:
                H.append((t, "INFO:     10.%d.%d.%d:%d - \"POST /v1/chat/completions HTTP/1.1\" 200 OK" % (rng.randint(0, 9), rng.randint(0, 255), rng.randint(2, 250), rng.randint(30000, 60000))))
        else:
            if rng.random() < 0.4:
                H.append((t, sg(t, 0, "Decode batch. #running-req: %d, #token: %d, token usage: %.2f, cuda graph: True, gen throughput (token/s): %.2f, #queue-req: %d, " % (
                    rng.randint(1, 200), rng.randint(1000, 400000), rng.uniform(0, 0.9), rng.uniform(100, 5000), rng.randint(0, 30)))))
            else:
                H.append((t, sg(t, None, "INFO:     10.%d.%d.%d:%d - \"POST /v1/chat/completions HTTP/1.1\" 200 OK" % (rng.randint(0, 9), rng.randint(0, 255), rng.randint(2, 250), rng.randint(30000, 60000)))))
        t += rng.uniform(2, 30)
        n += 1
    if rng.random() < 0.3:
        # decoy: a client disconnect / bad request that is harmless
        tt = t_up + rng.uniform(100, max(200, t_stop - t_up - 10))
        H.append((tt, vl(tt, "ERROR", "serving_chat.py:838", "Error in chat completion stream generator.") if engine == "vllm" else sg(tt, None, "Abort request %s" % hexid(rng, 32))))
        if engine == "vllm":
            H.append((tt + 0.01, "asyncio.exceptions.CancelledError"))
    notes = ""
    if cause is None:
        te = t_stop + 5
        if engine == "vllm":
            H += [(te, "INFO:     Shutting down"), (te + 0.5, "INFO:     Waiting for application shutdown."), (te + 0.6, "INFO:     Application shutdown complete."),
                  (te + 1, vl(te + 1, "INFO", "launcher.py:80", "Shutting down FastAPI HTTP server."))]
        else:
            H += [(te, sg(te, None, "INFO:     Shutting down")), (te + 0.6, sg(te + 0.6, None, "INFO:     Finished server process [%d]" % run.ranks[0].pid))]
        _truth(run, None, None, None, False, "healthy serving run, stopped by the operator with Ctrl-C")
    else:
        nd = rk.node
        cm, _ = _kernel_fault(run, cause, nd, rk.local, rk.pid, t_f) if cause in ("gpu_hardware", "ecc_memory", "nvlink", "illegal_memory_access") else (None, None)
        err = None
        if cause in ("gpu_hardware", "ecc_memory", "nvlink", "illegal_memory_access"):
            err = "RuntimeError: CUDA error: %s\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n" % cm
            notes = {"gpu_hardware": "Xid 79 on %s GPU %d took down TP rank %d", "ecc_memory": "double-bit ECC (Xid 48) on %s GPU %d, rank %d raised the ECC CUDA error",
                     "nvlink": "Xid 74 NVLink error on %s GPU %d, rank %d", "illegal_memory_access": "illegal memory access in a kernel on %s GPU %d (rank %d); app-caused MMU fault Xid 31"}[cause] % (nd.host, rk.local, r)
        elif cause == "cuda_oom":
            err = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %s. GPU %d has a total capacity of 79.11 GiB of which %s is free. Including non-PyTorch memory, this process has 78.%02d GiB memory in use. Of the allocated memory 74.%02d GiB is allocated by PyTorch, with 1.%02d GiB allocated in private pools (e.g., CUDA Graphs), and 612.00 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)" % (
                rng.choice(["1.53 GiB", "896.00 MiB", "3.12 GiB"]), rk.local, rng.choice(["311.88 MiB", "88.06 MiB"]), rng.randint(10, 99), rng.randint(10, 99), rng.randint(10, 99))
            notes = "CUDA OOM on rank %d (%s) under a long-context batch" % (r, nd.host)
        elif cause == "python_exception":
            err = rng.choice(["AssertionError: num_new_tokens (0) must be > 0", "IndexError: index 131072 is out of bounds for dimension 0 with size 131072",
                              "ValueError: Expected a tensor of shape [4096, 7168] but got [4096, 7680] for expert weight w13 (EP rank %d)" % (r % 8)])
            notes = "%s raised in worker rank %d only" % (err.split(":")[0], r)
        if err is not None:
            tb = ["Traceback (most recent call last):",
                  '  File "%s/vllm/worker/worker_base.py", line 620, in execute_method' % site(run) if engine == "vllm" else '  File "%s/sglang/srt/managers/scheduler.py", line 2530, in run_scheduler_process' % site(run),
                  "    return run_method(self, method, args, kwargs)" if engine == "vllm" else "    scheduler.event_loop_overlap()",
                  '  File "%s/vllm/v1/worker/gpu_model_runner.py", line 1521, in execute_model' % site(run) if engine == "vllm" else '  File "%s/sglang/srt/managers/tp_worker.py", line 226, in forward_batch_generation' % site(run),
                  "    model_output = self.model(" if engine == "vllm" else "    logits_output, can_run_cuda_graph = self.model_runner.forward(",
                  ] + err.split("\n")
            if engine == "vllm":
                for i, x in enumerate(["ERROR %s [worker_base.py:628] Error executing method 'execute_model'. This might cause deadlock in distributed execution." % ts_vllm(run.e(t_f, nd))] + tb):
                    H.append((t_f + i * 1e-4, wp(rk) + x))
                te = t_f + rng.uniform(0.2, 2)
                ex = err.split("\n")[0].split(":")[0]
                for i, x in enumerate([vl(te, "ERROR", "core.py:402", "EngineCore encountered a fatal error."), "Traceback (most recent call last):",
                                       '  File "%s/vllm/v1/engine/core.py", line 393, in run_engine_core' % site(run), "    engine_core.run_busy_loop()",
                                       '  File "%s/ray/_private/worker.py", line 2771, in get' % site(run), "    values, debugger_breakpoint = worker.get_objects(object_refs, timeout=timeout)",
                                       "ray.exceptions.RayTaskError(%s): \x1b[36mray::RayWorkerWrapper.execute_method()\x1b[39m (pid=%d, ip=%s, actor_id=%s, repr=<vllm.executor.ray_utils.RayWorkerWrapper object at 0x7f%s>)" % (ex, rk.pid, nd.ip, hexid(rng, 32), hexid(rng, 9))] + err.split("\n")[:1] +
                                      [vl(te + 0.5, "ERROR", "async_llm.py:420", "AsyncLLM output_handler failed."), "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.",
                                       "INFO:     Shutting down", "INFO:     Finished server process [%d]" % run.ranks[0].pid]):
                    H.append((te + i * 1e-3, x))
            else:
                for i, x in enumerate(["Scheduler hit an exception: " + tb[0]] + tb[1:]):
                    H.append((t_f + i * 1e-4, sg(t_f, r, x, nd) if i == 0 else x, nd.idx))
                H.append((t_f + 1, sg(t_f + 1, None, "Received sigquit from a child process. It usually means the child failed.", nd), nd.idx))
        elif cause == "network":
            k = rng.randrange(len(nd.ib_ifs))
            run.kern(nd, t_f, "mlx5_core %s %s: Link down" % (mlx_pci(nd, k), "ibp%ds0" % int(mlx_pci(nd, k).split(":")[1], 16)))
            other = run.nodes[0] if nd.idx != 0 else run.nodes[1]
            x = run.ranks[nd.first_rank + rng.randrange(gpn)]
            msg = "NET/IB : Got completion from peer %s<%d> with status=12 opcode=%d len=0 vendor err 129 (Send) localGid ::ffff:%s remoteGids::ffff:%s hca %s" % (other.ip, rng.randint(33000, 62000), rng.choice([0, 1]), nd.ip, other.ip, nd.ib_ifs[k])
            for i, y in enumerate(["%s:%d:%d [%d] transport/net_ib.cc:2357 NCCL WARN %s" % (nd.host, x.pid, x.pid + 90, x.local, msg),
                                   "%s:%d:%d [%d] NCCL INFO transport/net.cc:1349 -> 6" % (nd.host, x.pid, x.pid + 90, x.local)]):
                H.append((t_f + 10 + i * 1e-4, (wp(x) if engine == "vllm" else "") + y))
            err2 = "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, remote process exited or there was a network error, NCCL version %s\nncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\nLast error:\n%s" % (run.nccl, msg)
            for i, y in enumerate(["Traceback (most recent call last):"] + err2.split("\n")):
                H.append((t_f + 11 + i * 1e-4, (wp(x) if engine == "vllm" else sg(t_f + 11, x.r, "", nd)) + y))
            notes = "IB link down on %s; NCCL transport errors on its TP ranks" % nd.host
            _truth(run, cause, nd.first_rank, nd, True, notes, rank_known=False)
        elif cause == "host_oom_kill":
            pids = [(x.pid, "ray::RayWorkerWrapper", rng.randint(10 ** 7, 3 * 10 ** 7)) for x in run.ranks_on(nd)]
            if rng.random() < 0.5:
                oom_kill_block(run, nd, t_f, rk.pid, "ray::RayWorkerW", "/", "/", pids, constraint="CONSTRAINT_NONE")
            msg = ("ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.\nMemory on the node (IP: %s, ID: %s) where the task (actor ID: %s, name=RayWorkerWrapper.__init__, pid=%d, memory used=%.2fGB) was running was %.2fGB / %.2fGB (%.6f), which exceeds the memory usage threshold of 0.95. Ray killed this worker (ID: %s) because it was the most recently scheduled task; to see more information about memory usage on this node, use `ray logs raylet.out -ip %s`. To see the logs of the worker, use `ray logs worker-%s*out -ip %s. Top 10 memory users:\nPID\tMEM(GB)\tCOMMAND\n%d\t%.2f\tray::RayWorkerWrapper.execute_method\n%d\t%.2f\tray::RayWorkerWrapper.execute_method"
                   % (nd.ip, hexid(rng, 56), hexid(rng, 32), rk.pid, rng.uniform(150, 400), rng.uniform(1830, 1900), 1930.0, rng.uniform(0.951, 0.99), hexid(rng, 56), nd.ip, hexid(rng, 56), nd.ip, rk.pid, rng.uniform(150, 400), rk.pid + 3, rng.uniform(30, 90)))
            for i, y in enumerate(msg.split("\n")):
                H.append((t_f + 2 + i * 1e-4, y))
            notes = "host memory exhausted on %s; Ray's memory monitor killed rank %d's worker" % (nd.host, r)
        elif cause == "crash_signal":
            lines = ["*** SIGSEGV received at time=%d on cpu %d ***" % (int(run.e(t_f, nd)), rng.randint(0, 191)),
                     "PC: @     0x7f%s  (unknown)  (unknown)" % hexid(rng, 10),
                     "    @     0x7f%s       3392  (unknown)" % hexid(rng, 10),
                     "    @     0x7f%s  (unknown)  (unknown)" % hexid(rng, 10),
                     "[%s] *** SIGSEGV received at time=%d on cpu %d ***" % (ts_sec(run.e(t_f, nd)), int(run.e(t_f, nd)), rng.randint(0, 191)),
                     "Fatal Python error: Segmentation fault"]
            for i, y in enumerate(lines):
                H.append((t_f + i * 1e-4, (wp(rk) if engine == "vllm" else "") + y))
            run.kern(nd, t_f, segfault_line(run, "ray::RayWorkerW", rk.pid, "libcuda.so.%s" % run.driver, rng.randint(0, 191)))
            H.append((t_f + 3, "%s A worker died or was killed while executing a task by an unexpected system error. To troubleshoot the problem, check the logs for the dead worker. RayTask ID: %s Worker ID: %s Node ID: %s Worker IP address: %s Worker port: %d Worker PID: %d Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors." % (
                "\x1b[33m(raylet, ip=%s)\x1b[0m" % nd.ip if col else "(raylet, ip=%s)" % nd.ip, hexid(rng, 48), hexid(rng, 56), hexid(rng, 56), nd.ip, rng.randint(10000, 20000), rk.pid)))
            notes = "SIGSEGV in rank %d's worker (native code)" % r
        elif cause == "hang":
            tt = t_f + 60
            if engine == "vllm":
                for k in range(rng.randint(3, 9)):
                    H.append((tt + 60 * k, vl(tt + 60 * k, "WARNING", "shm_broadcast.py:467", "No available shared memory broadcast block found in 60 second. This typically happens when some processes are hanging or doing some time-consuming work (e.g. compilation).")))
            else:
                H.append((t_f + 300, sg(t_f + 300, 0, "Scheduler watchdog timeout (self.watchdog_timeout=300, self.soft=False)")))
            for x in run.ranks:
                if x.r == r:
                    continue
                te = t_f + 600 + rng.uniform(0.1, 3)
                H.append((te, (wp(x) if engine == "vllm" else "[%s TP%d] " % (ts_sec(run.e(te, x.node)), x.r)) + "[rank%d]:[E%s ProcessGroupNCCL.cpp:632] [Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=ALLREDUCE, NumelIn=%d, NumelOut=%d, Timeout(ms)=600000) ran for %d milliseconds before timing out." % (
                    x.r, ts_glog(run.e(te, x.node), "", ns=True), x.r, 918273 + x.r * 0, 7168 * 64, 7168 * 64, 600000 + rng.randint(10, 90))))
            notes = "TP rank %d stopped making progress; the other workers' NCCL watchdogs timed out (only the silent rank is missing)" % r
        if not run.truth:
            _truth(run, cause, r, nd, cause in ("gpu_hardware", "ecc_memory", "nvlink"), notes)
        got_kernel_needed = cause in ("gpu_hardware", "ecc_memory", "nvlink", "network")
        if got_kernel_needed or rng.random() < 0.3:
            kernel_file(run, nd, "dmesg-%s.txt" % short(nd.host), window=(-rng.uniform(600, 20000), t_f + 1200))
    H.sort(key=lambda z: z[0])
    if engine == "sglang":
        import re as _re
        per = {nd.idx: [] for nd in run.nodes}
        cur = 0
        for ent in H:
            t, x = ent[0], ent[1]
            if len(ent) > 2:
                cur = ent[2]
            else:
                m = _re.match(r"^\[[0-9: -]+ TP(\d+)\]", x)
                if m:
                    cur = run.ranks[int(m.group(1))].node.idx
                elif x.startswith("[20"):
                    cur = 0
            per[cur].append(x)
        for nd in run.nodes:
            hdr = "%s@%s:~$ python3 -m sglang.launch_server --model-path %s --tp %d --dist-init-addr %s:5000 --nnodes %d --node-rank %d --trust-remote-code --host 0.0.0.0 --port 30000" % (
                run.meta["user"], short(nd.host), model, W, head.ip, nn, nd.idx)
            run.add_file("node%d.log" % nd.idx, join([hdr] + per[nd.idx]))
    H = [(e[0], e[1]) for e in H]
    if engine == "vllm":
        run.add_file(rng.choice(["vllm_serve.log", "server.log", "vllm-%s.out" % ts_sec(run.e(0))[:10]]), join([x for (_, x) in H]))
        if rng.random() < 0.4:
            run.add_file("ray_status.txt", "======== Autoscaler status: %s ========\nNode status\n---------------------------------------------------------------\nActive:\n%s\nPending:\n (no pending nodes)\nRecent failures:\n (no failures)\n\nResources\n---------------------------------------------------------------\nUsage:\n 0.0/%d.0 CPU\n %d.0/%d.0 GPU\n" % (
                ts_py(run.e(t_up + 30)), "\n".join(" 1 node_%s" % hexid(rng, 56) for _ in run.nodes), 224 * nn, W, W))

    c = coll(run)
    c["ranks"].update(range(W))
    if cause == "hang":
        c["ranks"] = set(range(W))
    run.meta["evidence"] = [("rank", r)] if r is not None else []
    if cause == "hang":
        run.meta["evidence"] = [("extra", "all_workers_visible")]
        c["extras"].add("all_workers_visible")
    if cause in ("host_oom_kill", "crash_signal"):
        c["launcher_ranks"].add(r)
    return run


# ================================================================== JAX multi-host (one process per host)
def build_jax(run: Run):
    rng = run.rng
    cause = run.cause
    nn = rng.choice([2, 4, 4, 8, 16])
    base_setup(run, nn, 8, rng.choice(["gpu", "nid", "plain", "ec2"]), "plain", set())
    P = nn
    coord = run.nodes[0]
    port = pickn(run, [1234, 8476, 12355])
    dt = rng.uniform(1.5, 9)
    t0 = rng.uniform(60, 300)
    nsteps = rng.randint(200, 6000)
    t_f = t0 + nsteps * dt + rng.uniform(0, dt)
    k = rng.randrange(P) if cause else None
    if k == 0 and rng.random() < 0.6 and P > 1:
        k = rng.randrange(1, P)
    procs = {i: [] for i in range(P)}

    def gl(i, t, lvl, src, msg):
        nd = run.nodes[i]
        procs[i].append((t, "%s %d %s] %s" % (ts_glog(run.e(t, nd), lvl), run.ranks[nd.first_rank].pid + 3, src, msg)))

    for i in range(P):
        nd = run.nodes[i]
        if i == 0:
            gl(i, 1, "I", "distributed.py:106", "Starting JAX distributed service on [::]:%d" % port)
        procs[i].append((0.5, "+ echo \"host=$(hostname) JAX_PROCESS_ID=${SLURM_PROCID:-%d} COORD=%s:%d\"" % (i, coord.ip, port)))
        procs[i].append((0.6, "host=%s JAX_PROCESS_ID=%d COORD=%s:%d" % (nd.host, i, coord.ip, port)))
        gl(i, 2, "I", "distributed.py:119", "Connecting to JAX distributed service on %s:%d" % (coord.ip, port))
        procs[i].append((5, "System Information: Jax Version: %s" % rng.choice(["0.4.35", "0.5.3", "0.6.2"])))
        procs[i].append((5.1, "System Information: Jaxlib Version: %s" % rng.choice(["0.4.35", "0.5.3", "0.6.2"])))
        procs[i].append((6, "Num_devices: %d, shape (1, %d, 1, 1, 1, 8, 1, 1, 1, 1, 1, 1)" % (P * 8, P)))
        if i == 0:
            procs[i].append((30, "number parameters: %.3f billion" % rng.uniform(7, 70)))
            procs[i].append((31, "Per train step:\n Total TFLOPs: %.2f \n split as %.2f%% learnable weight flops and %.2f%% attention flops" % (rng.uniform(1000, 9000), rng.uniform(85, 95), rng.uniform(5, 15))))
    t_end = t_f if cause else t0 + nsteps * dt
    s = 0
    t = t0
    li = rng.choice([1, 1, 10])
    cnt = 0
    while t < t_end and cnt < 6000:
        for i in range(P) if rng.random() < 0.15 else [0]:
            procs[i].append((t + 0.01 * i, "completed step: %d, seconds: %.3f, TFLOP/s/device: %.3f, Tokens/s/device: %.3f, total_weights: %d, loss: %.3f" % (
                s, dt * rng.uniform(0.98, 1.02), rng.uniform(380, 460), rng.uniform(3000, 5200), pickn(run, [524288, 1048576]), 2 + 8 * 2.71828 ** (-s / 700) + rng.uniform(-0.02, 0.02))))
        s += li
        t += dt * li
        cnt += 1
    notes = ""
    exits = {}
    if cause is None:
        for i in range(P):
            procs[i].append((t_end + 2, "Saving checkpoint to gs://%s-ckpt/%s/checkpoints/%d" % (run.meta["user"], run.meta["expname"], s)))
        _truth(run, None, None, None, False, "healthy MaxText-style run to completion")
    elif cause == "preemption":
        for i in range(P):
            gl(i, t_f, "W", "preemption_sync_manager.cc:152", "Preemption notice received (SIGTERM); synchronizing preemption sync point")
        _truth(run, cause, None, None, False, "the whole slice was preempted; every host got SIGTERM")
        run.meta["preempt_job"] = "PREEMPTION"
    else:
        nd = run.nodes[k]
        pid = run.ranks[nd.first_rank].pid + 3
        gi = rng.randrange(8)
        coord_err = None
        if cause in ("gpu_hardware", "ecc_memory", "nvlink", "illegal_memory_access"):
            cm, code = _kernel_fault(run, cause, nd, gi, pid, t_f)
            procs[k].append((t_f + 0.3, "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to execute XLA Runtime executable: run time error: custom call 'xla.gpu.func.launch' failed: %s: %s; current tracing scope: fusion.%d; current profiling annotation: XlaModule:#hlo_module=jit_train_step,program_id=%d#." % (
                code, cm, rng.randint(100, 9000), rng.randint(10, 99))))
            notes = "%s on host %s GPU %d (process %d)" % ({"gpu_hardware": "Xid 79", "ecc_memory": "Xid 48 DBE", "nvlink": "Xid 74", "illegal_memory_access": "illegal address (app-caused Xid 31)"}[cause], nd.host, gi, k)
        elif cause == "cuda_oom":
            procs[k].append((t_f, "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate %d bytes." % pickn(run, [12884901888, 3221225472, 8589934592])))
            notes = "XLA RESOURCE_EXHAUSTED on process %d" % k
        elif cause == "python_exception":
            tb = ["Traceback (most recent call last):", '  File "/app/MaxText/train.py", line 1023, in <module>', "    app.run(main)",
                  '  File "/app/MaxText/input_pipeline/_grain_data_processing.py", line 211, in __next__', "    return next(self._iter)",
                  "ValueError: Could not decode example 918273 from /gcs/data/shard-%05d.array_record: truncated record" % rng.randint(0, 4000)]
            for i, x in enumerate(tb):
                procs[k].append((t_f + i * 1e-4, x))
            notes = "input-pipeline ValueError on process %d only" % k
        elif cause == "crash_signal":
            for i, x in enumerate(["*** SIGSEGV received at time=%d on cpu %d ***" % (int(run.e(t_f, nd)), rng.randint(0, 191)), "PC: @     0x7f%s  (unknown)  (unknown)" % hexid(rng, 10),
                                   "    @     0x7f%s       3392  (unknown)" % hexid(rng, 10), "Fatal Python error: Segmentation fault"]):
                procs[k].append((t_f + i * 1e-4, x))
            run.kern(nd, t_f, segfault_line(run, "python3", pid, "xla_extension.so", rng.randint(0, 191)))
            notes = "SIGSEGV in process %d" % k
        elif cause == "host_oom_kill":
            oom_kill_block(run, nd, t_f, pid, "python3", "/", "/", [(pid, "python3", rng.randint(10 ** 8, 3 * 10 ** 8))], constraint="CONSTRAINT_NONE")
            notes = "OOM killer killed process %d on %s" % (k, nd.host)
        elif cause == "network":
            kk = rng.randrange(len(nd.ib_ifs))
            run.kern(nd, t_f, "mlx5_core %s %s: Link down" % (mlx_pci(nd, kk), "ibp%ds0" % int(mlx_pci(nd, kk).split(":")[1], 16)))
            peer = run.nodes[(k + 1) % P]
            w = "NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:%s remoteGids::ffff:%s hca %s" % (peer.ip, rng.randint(33000, 60000), nd.ip, peer.ip, nd.ib_ifs[kk])
            procs[k].append((t_f + 9, "%s:%d:%d [%d] transport/net_ib.cc:2357 NCCL WARN %s" % (nd.host, pid, pid + 77, gi, w)))
            procs[k].append((t_f + 9.5, "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to execute XLA Runtime executable: run time error: custom call 'xla.gpu.all_reduce' failed: external/xla/xla/service/gpu/runtime/nccl_api.cc:%d: NCCL operation ncclGroupEnd() failed: remote process exited or there was a network error. Last NCCL warning(error) log entry (may be unrelated) '%s'." % (pickn(run, [519, 637]), w)))
            notes = "IB link down on %s" % nd.host
        elif cause == "hang":
            tt = t_f + pickn(run, [600, 900, 1800])
            for i in range(P):
                if i == k:
                    continue
                gl(i, tt + rng.uniform(0, 1), "E", "coordination_service_agent.cc:%d" % pickn(run, [332, 349]), "Polled an error from coordination service (this can be an error from this or another task).")
                procs[i].append((tt + 1, "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Id: checkpoint_step_%d. This usually happens because a task triggered the barrier too early or too slowly. Please look at the task logs (both timed out and first task) to debug further.\n# of tasks that reached the barrier: %d/%d.\nThe first task at the barrier: /job:jax_worker/replica:0/task:0. Some timed out task names:\n/job:jax_worker/replica:0/task:%d\n" % (s, P - 1, P, k)))
            notes = "process %d stopped progressing before a checkpoint barrier; the others' barrier timed out naming it" % k
        if cause != "hang":
            tc = t_f + rng.uniform(20, 120)
            for i in range(P):
                if i == k:
                    continue
                gl(i, tc + rng.uniform(0, 2), "E", "coordination_service_agent.cc:%d" % pickn(run, [332, 349]), "Polled an error from coordination service (this can be an error from this or another task).")
                gl(i, tc + rng.uniform(2, 3), "F", "client.h:77", "Terminating process because the JAX distributed service detected fatal errors. This most likely indicates that another task died; see the other task logs for more details. Disable Python buffering, i.e. `python -u`, to be sure to see all the previous output. absl::Status: UNAVAILABLE: The following tasks are unhealthy (stopped sending heartbeats):\n/job:jax_worker/replica:0/task:%d\nThe tasks have crashed. Check the task logs for an earlier error to debug further. [type.googleapis.com/tensorflow.CoordinationServiceError='']" % k)
        _truth(run, cause, k, nd, cause in ("gpu_hardware", "ecc_memory", "nvlink", "network"), notes, rank_known=True)
        if cause in ("gpu_hardware", "ecc_memory", "nvlink", "network", "host_oom_kill") or rng.random() < 0.3:
            kernel_file(run, nd, "%s-dmesg.txt" % short(nd.host), style=rng.choice(["dmesg_T", "journal", "dmesg"]), window=(-rng.uniform(600, 20000), t_f + 1200))
    # one log per process/host, or srun -l in one file
    if rng.random() < 0.5:
        for i in range(P):
            procs[i].sort(key=lambda z: z[0])
            run.add_file("jax-worker-%d.log" % i, join([x for (_, x) in procs[i]]))
    else:
        jid = run.meta["jobid"]
        w = len(str(P - 1))
        items = []
        for i in range(P):
            items += [(t, "\n".join("%*d: %s" % (w, i, y) for y in x.split("\n"))) for (t, x) in procs[i]]
        if cause == "preemption":
            items.append((t_f + 1, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (jid, short(coord.host), ts_slurm(run.e(t_f + 1)))))
        elif cause is not None:
            items.append((t_f + 130, "srun: error: %s: task %d: %s" % (short(run.nodes[k].host), k, {"host_oom_kill": "Out Of Memory", "crash_signal": "Segmentation fault (core dumped)"}.get(cause, "Exited with exit code 1"))))
        items.sort(key=lambda z: z[0])
        run.add_file("slurm-%d.out" % jid, join([x for (_, x) in items]))
    if cause == "preemption" and not any(p.startswith("slurm-") for p in run.files):
        run.add_file("gke-events.txt", "LAST SEEN   TYPE      REASON          OBJECT          MESSAGE\n%s   Warning   Preempted       node/%s   Preemption notice received; all VMs in the slice are being preempted\n" % (
            "%dm" % rng.randint(5, 90), short(coord.host)))
    c = coll(run)
    c["ranks"].update(range(P))
    run.meta["evidence"] = [("rank", k)] if k is not None else []
    run.meta["evidence"].append(("peers", k))
    return run


CUSTOM = {"vllm_serving": (build_vllm, VLLM_CAUSES), "jax_multihost": (build_jax, JAX_CAUSES)}
