"""Multi-node inference and RL stacks: vLLM on Ray, verl/OpenRLHF on Ray, SGLang multi-node."""
from __future__ import annotations

from b5_core import (Run, f_c10, f_iso, f_pylog, f_ray, hexid, alnum, utc)
from b5_torch import k_xid, k_oom, kernel_noise, fmt_frames

SP = "/usr/local/lib/python3.12/dist-packages"


def vts(R, ni, t):
    d = utc(R.lt(ni, t))
    return d.strftime("%m-%d %H:%M:%S")


def cuda_exc(kind):
    msg = {"ima": "an illegal memory access was encountered", "ecc": "uncorrectable ECC error encountered",
           "lost": "unspecified launch failure", "nvlink": "uncorrectable NVLink error detected during the execution"}[kind]
    return [f"RuntimeError: CUDA error: {msg}",
            "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
            "For debugging consider passing CUDA_LAUNCH_BLOCKING=1", "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", ""]


def actor_died(R, rng, rank, why, cls):
    n = R.node_of(rank)
    aid = R.meta["actor_ids"][rank]
    ns = R.meta.setdefault("ray_ns", f"{hexid(rng, 8)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 12)}")
    head = ["ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.", f"\tclass_name: {cls}",
            f"\tactor_id: {aid}", f"\tpid: {R.pid(rank)}", f"\tnamespace: {ns}", f"\tip: {n.ip}"]
    if why == "oom_ray":
        tot = rng.choice([1007.6, 1510.2, 2015.4])
        used = tot * 0.951
        return head + [f"The actor is dead because its worker process has died. Worker exit type: NODE_OUT_OF_MEMORY Worker exit detail: Task was killed due to the node running low on memory.",
                       f"Memory on the node (IP: {n.ip}, ID: {R.meta['node_ids'][n.idx]}) where the task (actor ID: {aid}, name={cls}.__init__, pid={R.pid(rank)}, memory used={used * 0.3:.2f}GB) was running was {used:.2f}GB / {tot:.2f}GB (0.951234), which exceeds the memory usage threshold of 0.95. "
                       f"Ray killed this worker (ID: {R.meta['worker_ids'][rank]}) because it was the most recently scheduled task; to see more information about memory usage on this node, use `ray logs raylet.out -ip {n.ip}`. "
                       f"To see the logs of the worker, use `ray logs worker-{R.meta['worker_ids'][rank]}*out -ip {n.ip}. Top 10 memory users:",
                       "PID\tMEM(GB)\tCOMMAND", f"{R.pid(rank)}\t{used * 0.3:.2f}\tray::{cls}", f"{R.pid(rank) - 40}\t{used * 0.08:.2f}\tray::{cls}",
                       "Refer to the documentation on how to address the out of memory issue: https://docs.ray.io/en/latest/ray-core/scheduling/ray-oom-prevention.html. Consider provisioning more memory on this node or reducing task parallelism by requesting more CPUs per task. Set max_restarts and max_task_retries to enable retry when the task crashes due to OOM. To adjust the kill threshold, set the environment variable `RAY_memory_usage_threshold` when starting Ray. To disable worker killing, set the environment variable `RAY_memory_monitor_refresh_ms` to zero."]
    if why == "node":
        return head + [f"The actor is dead because its node has died. Node Id: {R.meta['node_ids'][n.idx]}",
                       "\tthe actor's node was terminated: received SIGTERM"]
    return head + ["The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. "
                   "There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors."]


def raylet(R, rng, ni, t, lvl, src, msg):
    return f"[{f_ray(R.lt(ni, t))} {lvl} {R.nodes[ni].agent_pid} {R.nodes[ni].agent_pid + rng.randint(1, 60)}] {src} {msg}"


# =============================================================================== vLLM on Ray
class VllmStack:
    name = "vllm-ray"
    actor = "RayWorkerWrapper"
    causes = ["gpu_hardware", "host_oom_kill", "cuda_oom", "illegal_memory_access", "network", "nvlink", "preemption", "ecc_memory"]

    def __init__(self, rng):
        self.rng = rng

    def host_style(self):
        return self.rng.choice(["aws", "gce", "gpu-dash"]), None

    def shape(self, R):
        return self.rng.choice([2, 2, 2, 3, 4]), 8

    def vl(self, R, ni, t, lvl, src, msg):
        if self.new_fmt:
            return f"{lvl} {vts(R, ni, t)} [{src}] {msg}"
        return f"{lvl} {vts(R, ni, t)} {src}] {msg}"

    def run(self, R: Run, cause):
        rng = self.rng
        self.new_fmt = rng.random() < 0.7
        W = R.world
        tp = rng.choice([8, 16]) if W >= 16 else 8
        tp = min(tp, W)
        pp = W // tp
        model = rng.choice(["deepseek-ai/DeepSeek-V3", "meta-llama/Llama-3.1-405B-Instruct", "Qwen/Qwen3-235B-A22B", "moonshotai/Kimi-K2-Instruct"])
        ver = rng.choice(["0.8.5.post1", "0.9.2", "0.10.1.1", "0.7.3"])
        t = R.t0
        R.drv(t, self.vl(R, 0, t, "INFO", "api_server.py:1090", f"vLLM API server version {ver}"))
        R.drv(t + 0.1, self.vl(R, 0, t + 0.1, "INFO", "api_server.py:1091", f"args: Namespace(model='{model}', tensor_parallel_size={tp}, pipeline_parallel_size={pp}, distributed_executor_backend='ray', max_model_len=32768, gpu_memory_utilization=0.92, ...)"))
        R.drv(t + 5, f"{f_ray(t + 5)}\tINFO worker.py:1832 -- Connecting to existing Ray cluster at address: {R.nodes[0].ip}:6379...")
        R.drv(t + 6, self.vl(R, 0, t + 6, "INFO", "ray_distributed_executor.py:176", "use_ray_spmd_worker: True" if ver >= "0.8" else "use_ray_compiled_dag: False"))
        for r in range(W):
            ni = R.node_of(r).idx
            R.out(r, t + 20 + rng.uniform(0, 3), self.vl(R, ni, t + 21, "INFO", "parallel_state.py:1004" if self.new_fmt else "parallel_state.py:957",
                                                          f"rank {r} in world size {W} is assigned as DP rank 0, PP rank {r // tp}, TP rank {r % tp}, EP rank {r % tp}"))
        for r in range(0, W, max(1, W // 4)):
            ni = R.node_of(r).idx
            R.out(r, t + 25, f"{R.node_of(r).host.split('.')[0]}:{R.pid(r)}:{R.pid(r)} [{r % R.gpn}] NCCL INFO Using network {'IB' if rng.random() < 0.6 else 'Socket'}" if rng.random() < 0.5 else
                  self.vl(R, ni, t + 25, "INFO", "custom_all_reduce_utils.py:244", "reading GPU P2P access cache from /root/.cache/vllm/gpu_p2p_access_cache_for_0,1,2,3,4,5,6,7.json"))
        R.out(0, t + 300, self.vl(R, 0, t + 300, "INFO", "model_runner.py:1115" if not self.new_fmt else "gpu_model_runner.py:1624", f"Loading model weights took {rng.uniform(40, 90):.4f} GB"))
        R.drv(t + 420, self.vl(R, 0, t + 420, "INFO", "kv_cache_utils.py:634", f"GPU KV cache size: {rng.randint(200000, 2000000):,} tokens"))
        R.drv(t + 430, "INFO:     Started server process [1]\nINFO:     Waiting for application startup.\nINFO:     Application startup complete.\nINFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)")
        dur = rng.uniform(900, 3600 * 30)
        tf = t + 430 + dur
        tt = t + 440
        while tt < tf:
            R.drv(tt, self.vl(R, 0, tt, "INFO", "loggers.py:116" if self.new_fmt else "metrics.py:351",
                              f"Engine 000: Avg prompt throughput: {rng.uniform(500, 9000):.1f} tokens/s, Avg generation throughput: {rng.uniform(200, 3000):.1f} tokens/s, Running: {rng.randint(1, 64)} reqs, Waiting: {rng.randint(0, 12)} reqs, GPU KV cache usage: {rng.uniform(5, 95):.1f}%, Prefix cache hit rate: {rng.uniform(0, 60):.1f}%"))
            if rng.random() < 0.3:
                R.drv(tt + 1, f"INFO:     10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(2, 250)}:{rng.randint(30000, 65000)} - \"POST /v1/chat/completions HTTP/1.1\" 200 OK")
            tt += (tf - t) / rng.randint(50, 120)
        for ni in range(len(R.nodes)):
            if rng.random() < 0.35:
                kernel_noise(R, rng, ni, R.t0, tf)
        if cause is None:
            if rng.random() < 0.6:
                R.drv(t + dur / 2, self.vl(R, 0, t + dur / 2, "WARNING", "scheduler.py:1754", "Sequence group cmpl-1f3c... is preempted by PreemptionMode.RECOMPUTE mode because there is not enough KV cache space. This can affect the end-to-end performance. Increase gpu_memory_utilization or tensor_parallel_size to provide more KV cache memory. total_num_cumulative_preemption=51"))
            if rng.random() < 0.5:
                R.drv(t + dur / 3, f"(raylet) [{f_ray(t + dur / 3)} W 431 431] (raylet) file_system_monitor.cc:111: /tmp/ray/session_latest is over 95% full, available space: 12.3 GB; capacity: 491 GB. Object creation will fail if spilling is required.")
            R.drv(tf, "INFO:     Shutting down\nINFO:     Waiting for application shutdown.\nINFO:     Application shutdown complete.\nINFO:     Finished server process [1]")
            R.t_end, R.exit_code = tf + 5, 0
            R.set_truth(None, notes="Healthy multi-node vLLM serving session (stopped by operator); KV-cache preemption warnings and a disk-usage warning only.")
            return
        # pick a worker on a non-head node for most faults
        cand = [r for r in range(W) if R.node_of(r).idx != 0] or list(range(1, W))
        r = rng.choice(cand)
        n = R.node_of(r)
        loc = r - n.first_rank
        pfx = "(RayWorkerWrapper pid={}, ip={})"

        def exec_err(t1, exc, frames_extra=()):
            fr = [(f"{SP}/vllm/worker/worker_base.py", 612, "execute_method", "return run_method(self, method, args, kwargs)"),
                  (f"{SP}/vllm/utils.py", 2456, "run_method", "return func(*args, **kwargs)"),
                  (f"{SP}/vllm/v1/worker/gpu_worker.py", 276, "execute_model", "output = self.model_runner.execute_model(scheduler_output)"),
                  (f"{SP}/torch/utils/_contextlib.py", 116, "decorate_context", "return func(*args, **kwargs)"),
                  (f"{SP}/vllm/v1/worker/gpu_model_runner.py", 1179, "execute_model", "hidden_states = self.model(")] + list(frames_extra)
            R.out(r, t1, self.vl(R, n.idx, t1, "ERROR", "worker_base.py:620", "Error executing method 'execute_model'. This might cause deadlock in distributed execution."))
            R.out(r, t1 + 0.001, "\n".join(fmt_frames(fr, True) + exc))

        def engine_dead(t1, because):
            R.drv(t1, self.vl(R, 0, t1, "ERROR", "core.py:387", "EngineCore encountered a fatal error."))
            R.drv(t1 + 0.01, "\n".join(["Traceback (most recent call last):",
                                        f'  File "{SP}/vllm/v1/engine/core.py", line 380, in run_engine_core', "    engine_core.run_busy_loop()",
                                        f'  File "{SP}/vllm/v1/engine/core.py", line 402, in run_busy_loop', "    self._process_engine_step()",
                                        f'  File "{SP}/vllm/v1/executor/ray_distributed_executor.py", line 60, in execute_model', "    return refs[0].get()"] + because))
            R.drv(t1 + 0.5, self.vl(R, 0, t1 + 0.5, "ERROR", "async_llm.py:399", "AsyncLLM output_handler failed."))
            R.drv(t1 + 0.6, "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.")
            R.drv(t1 + 0.7, f"INFO:     10.{rng.randint(0, 255)}.3.{rng.randint(2, 250)}:{rng.randint(30000, 65000)} - \"POST /v1/chat/completions HTTP/1.1\" 500 Internal Server Error")
            R.drv(t1 + 1, "INFO:     Shutting down\nINFO:     Finished server process [1]")

        if cause in ("gpu_hardware", "ecc_memory", "nvlink", "illegal_memory_access"):
            kind = {"gpu_hardware": "lost", "ecc_memory": "ecc", "nvlink": "nvlink", "illegal_memory_access": "ima"}[cause]
            if cause == "gpu_hardware":
                k_xid(R, rng, n.idx, tf, loc, rng.choice([79, 119]), pid=R.pid(r))
            elif cause == "ecc_memory":
                k_xid(R, rng, n.idx, tf, loc, 94, pid=R.pid(r), text="Contained: SM (0x1). RST: No, D-RST: No")
                k_xid(R, rng, n.idx, tf + 0.01, loc, 63, pid=R.pid(r), text="Row Remapper: New row marked for remapping, reset gpu to activate.")
            elif cause == "nvlink":
                k_xid(R, rng, n.idx, tf, loc, 74, pid=R.pid(r), text=f"NVLink: fatal error detected on link {rng.randint(0, 17)}(0x10000, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)")
            elif rng.random() < 0.5:
                k_xid(R, rng, n.idx, tf, loc, 31, pid=R.pid(r), text=f"Ch 00000008, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_2 faulted @ 0x7f{hexid(rng, 2)}_{hexid(rng, 8)}. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ")
            extra = [(f"{SP}/vllm/model_executor/layers/fused_moe/fused_moe.py", 1420, "fused_experts_impl", "invoke_fused_moe_kernel(")] if cause == "illegal_memory_access" else []
            exec_err(tf + 0.5, cuda_exc(kind), extra)
            engine_dead(tf + 2, [f"ray.exceptions.RayTaskError(RuntimeError): ray::RayWorkerWrapper.execute_method() (pid={R.pid(r)}, ip={n.ip}, actor_id={R.meta['actor_ids'][r]}, repr=<vllm.executor.ray_utils.RayWorkerWrapper object at 0x7f{hexid(rng, 9)}>)"] + cuda_exc(kind)[:1])
            if cause != "illegal_memory_access":
                R.meta["evidence_kernel"] = True
            R.set_truth(cause, r, n.idx, True, {"gpu_hardware": f"GPU fault (Xid) on {n.host} under vLLM worker rank {r}; its execute_model fails and the engine dies.",
                                                "ecc_memory": f"Xid 94 contained ECC error on {n.host} GPU {n.bus[loc]} (worker rank {r}).",
                                                "nvlink": f"Xid 74 NVLink fatal error on {n.host} GPU {n.bus[loc]} (worker rank {r}).",
                                                "illegal_memory_access": f"Illegal memory access in the fused MoE kernel on worker rank {r} ({n.host})."}[cause])
        elif cause == "cuda_oom":
            exec_err(tf, [f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {rng.uniform(1, 9):.2f} GiB. GPU {loc} has a total capacity of 79.19 GiB of which {rng.uniform(50, 900):.2f} MiB is free. Process {R.pid(r)} has 78.6 GiB memory in use. Of the allocated memory 71.02 GiB is allocated by PyTorch, with 1.02 GiB allocated in private pools (e.g., CUDA Graphs), and 1.15 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)", ""],
                     [(f"{SP}/vllm/v1/sample/sampler.py", 96, "forward", "logits = self.apply_penalties(logits, sampling_metadata)")])
            engine_dead(tf + 1, [f"ray.exceptions.RayTaskError(OutOfMemoryError): ray::RayWorkerWrapper.execute_method() (pid={R.pid(r)}, ip={n.ip}, actor_id={R.meta['actor_ids'][r]}, repr=<vllm.executor.ray_utils.RayWorkerWrapper object at 0x7f{hexid(rng, 9)}>)",
                                 "torch.OutOfMemoryError: CUDA out of memory."])
            R.set_truth("cuda_oom", r, n.idx, True, f"vLLM worker rank {r} on {n.host} OOMs in the sampler on a long request batch; engine dies.")
        elif cause == "host_oom_kill":
            via = rng.choice(["ray", "kernel"])
            if via == "ray":
                R.agent(n.idx, tf, raylet(R, rng, n.idx, tf, "I", "node_manager.cc:3102:",
                                          f"Killing worker with PID {R.pid(r)} because the node memory usage 0.951 exceeds threshold 0.95"))
                R.agent(n.idx, tf + 30, raylet(R, rng, n.idx, tf + 30, "E", "node_manager.cc:3069:",
                                               f"1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: {R.meta['node_ids'][n.idx]}, IP: {n.ip}) over the last time period. To see more information about the Workers killed on this node, use `ray logs raylet.out -ip {n.ip}`"))
                R.drv(tf + 30, f"(raylet, ip={n.ip}) [{f_ray(tf + 30)} E {n.agent_pid} {n.agent_pid}] (raylet) node_manager.cc:3069: 1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: {R.meta['node_ids'][n.idx]}, IP: {n.ip}) over the last time period.", "stderr")
                died = actor_died(R, rng, r, "oom_ray", "RayWorkerWrapper")
            else:
                k_oom(R, rng, n.idx, tf, R.pid(r), "ray::RayWorkerW", None, rss_gb=rng.uniform(80, 300))
                R.meta["evidence_kernel"] = True
                died = actor_died(R, rng, r, "sys", "RayWorkerWrapper")
            engine_dead(tf + 2, died)
            R.set_truth("host_oom_kill", r, n.idx, True, f"{'Ray memory monitor' if via == 'ray' else 'Linux OOM killer'} kills the vLLM worker actor of rank {r} (pid {R.pid(r)}) on {n.host}.")
        elif cause == "network":
            R.k(n.idx, tf, f"mlx5_core 0000:{rng.choice(['0c', '1a', '9a'])}:00.0: mlx5_port_event:361:(pid 0): Port: 1 Link DOWN")
            R.meta["evidence_kernel"] = True
            peer = (r + tp) % W if pp > 1 else (r + R.gpn) % W
            for x in (r, peer):
                xn = R.node_of(x)
                other = n if x == peer else R.node_of(peer)
                R.out(x, tf + 2, f"{xn.host.split('.')[0]}:{R.pid(x)}:{R.pid(x) + 77} [{x % R.gpn}] transport/net_ib.cc:1697 NCCL WARN NET/IB : Got completion from peer {other.ip}<{rng.randint(30000, 60000)}> with status=12 opcode=0 len=0 vendor err 129 (Send) localGid ::ffff:{xn.ip} remoteGids::ffff:{other.ip} hca mlx5_{rng.randint(0, 7)}")
            exec_err(tf + 3, ["torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5",
                              "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ", "Last error:",
                              f"NET/IB : Got completion from peer {R.node_of(peer).ip}<{rng.randint(30000, 60000)}> with status=12 opcode=0 len=0 vendor err 129 (Send)", ""])
            engine_dead(tf + 5, ["ray.exceptions.RayTaskError(DistBackendError): ray::RayWorkerWrapper.execute_method()"])
            R.set_truth("network", n.first_rank, n.idx, True, f"IB port down on {n.host}; NCCL on the TP/PP groups spanning it fails.")
        elif cause == "preemption":
            R.drv(tf + 20, f"{f_ray(tf + 20)}\tWARNING worker.py:2251 -- The node with node id: {R.meta['node_ids'][n.idx]} and address: {n.ip} and node name: {n.ip} has been marked dead because the detector has missed too many heartbeats from it. This can happen when a \t(1) raylet crashes unexpectedly (OOM, etc.) \n\t(2) raylet has lagging heartbeats due to slow network or busy workload.", "stderr")
            R.agent(n.idx, tf, raylet(R, rng, n.idx, tf, "I", "main.cc:", "Raylet received SIGTERM, shutting down..."))
            R.meta.setdefault("gcp_extra", []).append((tf - 1, {"insertId": alnum(rng, 12), "logName": "projects/llm-serving/logs/cloudaudit.googleapis.com%2Fsystem_event",
                                                                "protoPayload": {"methodName": "compute.instances.preempted", "resourceName": f"projects/llm-serving/zones/us-central1-a/instances/{n.host}",
                                                                                 "status": {"message": "Instance was preempted."}},
                                                                "resource": {"type": "gce_instance", "labels": {"zone": "us-central1-a"}}, "severity": "NOTICE", "timestamp": f_iso(tf - 1, 6)}))
            R.files[f"autoscaler/monitor.log"] = (f"{f_ray(tf - 2)}\tINFO autoscaler.py:{rng.randint(400, 600)} -- StandardAutoscaler: Terminating node {R.meta['node_ids'][n.idx][:8]} "
                                                   f"(ip={n.ip}, instance={n.host}): preempted (spot instance interruption)\n"
                                                   f"{f_ray(tf + 40)}\tINFO autoscaler.py:{rng.randint(400, 600)} -- StandardAutoscaler: Launching 1 new node(s) of type gpu-worker-8xh100 (1 pending)\n")
            engine_dead(tf + 25, actor_died(R, rng, r, "node", "RayWorkerWrapper"))
            R.set_truth("preemption", n.first_rank, n.idx, True, f"Spot VM {n.host} hosting vLLM workers is preempted; Ray marks the node dead and the engine dies.")
        R.t_end, R.exit_code = tf + 40, 1


# =============================================================================== verl / OpenRLHF on Ray
class RlStack:
    name = "rl-ray"
    causes = ["host_oom_kill", "ecc_memory", "gpu_hardware", "python_exception", "cuda_oom", "network", "hang"]

    def __init__(self, rng):
        self.rng = rng
        self.flavor = rng.choice(["verl", "verl", "openrlhf"])
        self.actor = "WorkerDict" if self.flavor == "verl" else "PolicyModelActor"

    def host_style(self):
        return self.rng.choice(["aws", "gpu-dash", "plain", "gce"]), None

    def shape(self, R):
        return self.rng.choice([2, 2, 4, 4, 8]), 8

    def run(self, R: Run, cause):
        rng = self.rng
        W = R.world
        t = R.t0
        verl = self.flavor == "verl"
        tr = f"(TaskRunner pid={rng.randint(2000, 9000)})" if verl else "(raylet)"
        R.drv(t, f"{f_ray(t)}\tINFO worker.py:1888 -- Started a local Ray instance. View the dashboard at \x1b[1m\x1b[32m127.0.0.1:8265 \x1b[39m\x1b[22m" if rng.random() < 0.3 else
              f"{f_ray(t)}\tINFO worker.py:1660 -- Connecting to existing Ray cluster at address: {R.nodes[0].ip}:6379...")
        for r in range(W):
            R.out(r, t + 30 + rng.uniform(0, 5), f"[{f_c10(R.lt(R.node_of(r).idx, t + 30), 'W')} socket.cpp:204] [c10d] The hostname of the client socket cannot be retrieved. err=-3" if r % 9 == 4 else
                  f"rank {r}: local_rank={r % R.gpn}, world_size={W}, init FSDP on cuda:{r % R.gpn}" if not verl else
                  f"Actor use_remove_padding=True, world_size={W}, rank={r}")
        dur = rng.uniform(1800, 3600 * 40)
        tf = t + dur
        step = rng.randint(1, 20)
        tt = t + 600
        per = rng.uniform(60, 600)
        while tt + per < tf:
            tt += per * rng.uniform(0.9, 1.2)
            step += 1
            if verl:
                R.drv(tt, f"{tr} step:{step} - global_seqlen/min:{rng.randint(400000, 600000)} - global_seqlen/max:{rng.randint(600000, 900000)} - actor/entropy:{rng.uniform(0.2, 0.6):.3f} - actor/pg_loss:{rng.uniform(-0.05, 0.05):.4f} - actor/pg_clipfrac:{rng.uniform(0, 0.01):.4f} - actor/grad_norm:{rng.uniform(0.05, 0.5):.3f} - critic/score/mean:{rng.uniform(0.1, 0.8):.3f} - response_length/mean:{rng.uniform(300, 3000):.1f} - timing_s/gen:{per * 0.5:.1f} - timing_s/update_actor:{per * 0.3:.1f} - timing_s/step:{per:.1f}")
            else:
                R.drv(tt, f"Episode [1/1]:  {int(step / 200 * 100)}%|{'█' * (step // 20)}{' ' * (10 - step // 20)}| {step}/200 [{int((tt - t) // 3600):02d}:{int((tt - t) % 3600 // 60):02d}<..., policy_loss={rng.uniform(-0.1, 0.1):.3f}, kl={rng.uniform(0, 0.02):.4f}, reward={rng.uniform(-1, 1):.3f}, return={rng.uniform(-1, 1):.3f}, response_length={rng.uniform(200, 2000):.0f}]\r")
        for ni in range(len(R.nodes)):
            if rng.random() < 0.35:
                kernel_noise(R, rng, ni, R.t0, tf)
        if cause is None:
            if rng.random() < 0.6:
                R.drv(t + dur / 2, f"(raylet) [{f_ray(t + dur / 2)} E 511 511] (raylet) node_manager.cc:3069: 1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: {R.meta['node_ids'][0]}, IP: {R.nodes[0].ip}) over the last time period. To see more information about the Workers killed on this node, use `ray logs raylet.out -ip {R.nodes[0].ip}`\n(raylet) \n(raylet) Refer to the documentation on how to address the out of memory issue: https://docs.ray.io/en/latest/ray-core/scheduling/ray-oom-prevention.html.", "stderr")
                R.drv(t + dur / 2 + 2, f"{tr} reward worker (retry 1/3) restarted after OOM kill; batch re-queued")
                R.agent(0, t + dur / 2, raylet(R, rng, 0, t + dur / 2, "I", "node_manager.cc:3102:", f"Killing worker with PID {rng.randint(200000, 300000)} (RewardManager task, retriable) because the node memory usage 0.951 exceeds threshold 0.95"))
            R.drv(tf, f"{tr} Training finished. Final validation metrics: val-core/openai/gsm8k/reward/mean@1: {rng.uniform(0.6, 0.95):.4f}" if verl else f"Saving checkpoint: ./ckpt/final")
            R.t_end, R.exit_code = tf + 10, 0
            R.set_truth(None, notes="Healthy RL run; a retriable reward task was OOM-killed by the Ray memory monitor and re-run (no rank affected).")
            return
        cand = list(range(1, W))
        r = rng.choice(cand)
        n = R.node_of(r)
        loc = r - n.first_rank
        meth = rng.choice(["actor_rollout_update_actor", "actor_rollout_compute_log_prob", "ref_compute_ref_log_prob", "actor_rollout_generate_sequences"]) if verl else "fit"
        repr_ = f"<verl.single_controller.ray.base.WorkerDict object at 0x7f{hexid(rng, 9)}>" if verl else f"<openrlhf.trainer.ray.ppo_actor.PolicyModelActor object at 0x7f{hexid(rng, 9)}>"

        def task_error(t1, excname, exc_lines, frames):
            head = f"ray.exceptions.RayTaskError({excname}): ray::{self.actor}.{meth}() (pid={R.pid(r)}, ip={n.ip}, actor_id={R.meta['actor_ids'][r]}, repr={repr_})"
            R.out(r, t1, "\n".join(fmt_frames(frames, True) + exc_lines))
            R.drv(t1 + 1, "\n".join(["Error executing job with overrides: ['algorithm.adv_estimator=grpo', 'data.train_batch_size=1024', 'trainer.n_gpus_per_node=8', f'trainer.nnodes={len(R.nodes)}']" if verl else "Traceback (most recent call last):",
                                     "Traceback (most recent call last):", '  File "/workspace/verl/verl/trainer/main_ppo.py", line 64, in run_ppo' if verl else '  File "/openrlhf/cli/train_ppo_ray.py", line 173, in train',
                                     "    ray.get(runner.run.remote(config))" if verl else "    ray.get(refs)",
                                     head] + fmt_frames(frames[-2:], True)[1:] + exc_lines[:1] + ["", "Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace." if verl else ""]), "stderr")

        fsdp = [(f"{SP}/verl/single_controller/ray/base.py", 663, "func", "return getattr(self.worker_dict[key], name)(*args, **kwargs)"),
                (f"{SP}/verl/single_controller/base/decorator.py", 540, "inner", "return func(*args, **kwargs)"),
                (f"{SP}/verl/workers/fsdp_workers.py", 631, "update_actor", "metrics = self.actor.update_policy(data=data)"),
                (f"{SP}/verl/workers/actor/dp_actor.py", 371, "update_policy", "loss.backward()")] if verl else \
               [("/openrlhf/trainer/ray/ppo_actor.py", 402, "fit", "status = self.trainer.ppo_train(kl_ctl)"),
                ("/openrlhf/trainer/ppo_trainer.py", 288, "training_step_actor", "self.strategy.backward(actor_loss, self.actor, self.actor_optim)")]
        if cause == "host_oom_kill":
            R.agent(n.idx, tf, raylet(R, rng, n.idx, tf, "I", "node_manager.cc:3102:", f"Killing worker with PID {R.pid(r)} because the node memory usage 0.953 exceeds threshold 0.95"))
            R.drv(tf + 20, f"(raylet, ip={n.ip}) [{f_ray(tf + 20)} E {n.agent_pid} {n.agent_pid}] (raylet) node_manager.cc:3069: 1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: {R.meta['node_ids'][n.idx]}, IP: {n.ip}) over the last time period. To see more information about the Workers killed on this node, use `ray logs raylet.out -ip {n.ip}`", "stderr")
            R.drv(tf + 21, "\n".join(actor_died(R, rng, r, "oom_ray", self.actor)), "stderr")
            R.set_truth("host_oom_kill", r, n.idx, True, f"Ray memory monitor kills the {self.actor} actor of rank {r} (pid {R.pid(r)}) on {n.host} during {meth} (CPU offload of optimizer states).")
        elif cause in ("ecc_memory", "gpu_hardware"):
            if cause == "ecc_memory":
                k_xid(R, rng, n.idx, tf, loc, rng.choice([48, 95]), pid=R.pid(r), text=rng.choice(["An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 3, subpartition 1.", "Uncontained: FBHUB. RST: Yes, D-RST: No"]))
                task_error(tf + 0.5, "RuntimeError", cuda_exc("ecc"), fsdp)
            else:
                k_xid(R, rng, n.idx, tf, loc, 79)
                R.drv(tf + 15, "\n".join(actor_died(R, rng, r, "sys", self.actor)), "stderr")
            R.meta["evidence_kernel"] = True
            R.set_truth(cause, r, n.idx, True, f"{'Uncorrectable ECC' if cause == 'ecc_memory' else 'GPU fell off the bus (Xid 79)'} on {n.host} GPU {n.bus[loc]} under {self.actor} rank {r}.")
        elif cause == "python_exception":
            fr = fsdp[:2] + [(f"{SP}/verl/workers/fsdp_workers.py" if verl else "/openrlhf/trainer/ppo_utils/experience_maker.py", 702, "compute_log_prob" if verl else "make_experience",
                              "micro_batches = data.split(micro_batch_size)" if verl else "action_mask = sequences.ne(eos_token_id)")]
            task_error(tf, "AssertionError", [f"AssertionError: only support equal chunk. Got size of DataProto {rng.randint(100, 999)} and chunk {rng.choice([8, 16, 32])}.", ""], fr)
            R.set_truth("python_exception", r, n.idx, True, f"{self.actor} rank {r} on {n.host} raises AssertionError while splitting its batch.")
        elif cause == "cuda_oom":
            task_error(tf, "OutOfMemoryError", [f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {rng.uniform(2, 20):.2f} GiB. GPU {loc} has a total capacity of 79.11 GiB of which {rng.uniform(100, 900):.2f} MiB is free. Process {R.pid(r)} has 78.64 GiB memory in use. Of the allocated memory 74.8 GiB is allocated by PyTorch, and 2.3 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)", ""], fsdp)
            R.set_truth("cuda_oom", r, n.idx, True, f"{self.actor} rank {r} on {n.host} runs out of GPU memory in {meth} (long responses).")
        elif cause == "network":
            R.k(n.idx, tf, f"mlx5_core 0000:{rng.choice(['0c', '1a', '9a'])}:00.0: mlx5_port_module_event:1162:(pid 0): Port module event[error]: module {rng.randint(0, 7)}, Cable error, Bad or shorted cable/module")
            R.k(n.idx, tf + 0.01, f"mlx5_core 0000:{rng.choice(['0c', '1a'])}:00.0: mlx5_port_event:361:(pid 0): Port: 1 Link DOWN")
            R.meta["evidence_kernel"] = True
            for x in range(W):
                if W > 32 and x % 4:
                    continue
                xn = R.node_of(x)
                if xn.idx == n.idx:
                    continue
                tx = tf + rng.uniform(1, 20)
                R.out(x, tx, f"{xn.host.split('.')[0]}:{R.pid(x)}:{R.pid(x) + 61} [{x % R.gpn}] transport/net_ib.cc:1697 NCCL WARN NET/IB : Got completion from peer {n.ip}<{rng.randint(30000, 60000)}> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:{xn.ip} remoteGids::ffff:{n.ip} hca mlx5_{rng.randint(0, 7)}")
            r = n.first_rank
            task_error(tf + 22, "DistBackendError", ["torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5",
                                                     "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ", ""], fsdp)
            R.set_truth("network", n.first_rank, n.idx, True, f"Bad IB cable/module on {n.host}; NCCL completions from its IP fail in the FSDP process groups.")
        elif cause == "hang":
            # one FSDP rank never enters the weight-sync broadcast; others hit the NCCL watchdog
            seq = rng.randint(2000, 90000)
            for x in range(W):
                if x == r or (W > 32 and x % 4):
                    continue
                tx = tf + 1800 + rng.uniform(0, 3)
                R.out(x, tx, f"[rank{x}]:[E{utc(R.lt(R.node_of(x).idx, tx)).month}{utc(tx).day:02d} {utc(R.lt(R.node_of(x).idx, tx)).strftime('%H:%M:%S')}.{rng.randint(10 ** 8, 10 ** 9 - 1)} ProcessGroupNCCL.cpp:616] [Rank {x}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=BROADCAST, NumelIn={rng.choice([262144000, 524288000])}, NumelOut={rng.choice([262144000, 524288000])}, Timeout(ms)=1800000) ran for 1800{rng.randint(100, 999)} milliseconds before timing out.")
            R.files[f"debug/ray-stack-{n.host}.txt"] = "\n".join([
                f"Stack dump for {self.actor} pid {R.pid(r)} (rank {r}):", "Process {0}: ray::{1}.{2}".format(R.pid(r), self.actor, meth), "Python v3.10.14", "",
                f"Thread {R.pid(r)} (idle): \"MainThread\"", "    wait (threading.py:324)", "    result (concurrent/futures/_base.py:453)",
                f"    sync_weights ({SP}/verl/workers/sharding_manager/fsdp_vllm.py:118)" if verl else "    _broadcast_to_vllm (/openrlhf/trainer/ray/ppo_actor.py:231)",
                f"    {meth} ({SP}/verl/workers/fsdp_workers.py:702)" if verl else "    fit (/openrlhf/trainer/ray/ppo_actor.py:402)", "",
                f"Thread {R.pid(r) + 90} (idle): \"vllm-engine-loop\"", "    wait (threading.py:320)", f"    _wait_for_engine ({SP}/vllm/v1/engine/core_client.py:612)", ""])
            tf += 1800
            R.set_truth("hang", r, n.idx, True, f"{self.actor} rank {r} on {n.host} blocks waiting on its colocated vLLM engine and never joins the weight-sync broadcast; the others time out (stack dump shows it).")
        R.t_end, R.exit_code = tf + 40, 1


# =============================================================================== SGLang multi-node
class SglangStack:
    name = "sglang"
    causes = ["cuda_oom", "gpu_hardware", "network", "illegal_memory_access", "crash_signal", "python_exception", "preemption"]
    slurm_launcher = "srun"

    def __init__(self, rng):
        self.rng = rng

    def host_style(self):
        return self.rng.choice(["gpu-dash", "fqdn", "aws"]), None

    def shape(self, R):
        return self.rng.choice([2, 2, 2, 4]), 8

    def sl(self, R, r, t, msg):
        ni = R.node_of(r).idx
        d = utc(R.lt(ni, t))
        return f"[{d.strftime('%Y-%m-%d %H:%M:%S')} TP{r}] {msg}" if r is not None else f"[{d.strftime('%Y-%m-%d %H:%M:%S')}] {msg}"

    def run(self, R: Run, cause):
        rng = self.rng
        W = R.world
        t = R.t0
        R.meta["image"] = "lmsysorg/sglang:v0.4.9.post2-cu126"
        model = rng.choice(["deepseek-ai/DeepSeek-R1", "deepseek-ai/DeepSeek-V3-0324", "Qwen/Qwen3-235B-A22B-FP8"])
        for n in R.nodes:
            R.out(n.first_rank, t, f"[{utc(R.lt(n.idx, t)).strftime('%Y-%m-%d %H:%M:%S')}] server_args=ServerArgs(model_path='{model}', tp_size={W}, nnodes={len(R.nodes)}, node_rank={n.idx}, dist_init_addr='{R.nodes[0].ip}:5000', trust_remote_code=True, mem_fraction_static=0.85, ...)")
        for r in range(W):
            R.out(r, t + 10 + rng.uniform(0, 3), self.sl(R, r, t + 11, f"Init torch distributed begin."))
            R.out(r, t + 60 + rng.uniform(0, 20), self.sl(R, r, t + 70, f"Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail mem={rng.uniform(14, 22):.2f} GB, mem usage={rng.uniform(40, 80):.2f} GB."))
        R.out(0, t + 200, self.sl(R, 0, t + 200, f"KV Cache is allocated. #tokens: {rng.randint(200000, 900000)}, K size: {rng.uniform(5, 20):.2f} GB, V size: {rng.uniform(5, 20):.2f} GB"))
        R.out(0, t + 260, f"[{utc(R.lt(0, t + 260)).strftime('%Y-%m-%d %H:%M:%S')}] The server is fired up and ready to roll!")
        dur = rng.uniform(900, 3600 * 20)
        tf = t + 260 + dur
        tt = t + 270
        while tt < tf:
            R.out(0, tt, self.sl(R, 0, tt, f"Decode batch. #running-req: {rng.randint(1, 128)}, #token: {rng.randint(1000, 300000)}, token usage: {rng.uniform(0.01, 0.9):.2f}, cuda graph: True, gen throughput (token/s): {rng.uniform(200, 4000):.2f}, #queue-req: {rng.randint(0, 20)}"))
            tt += (tf - t) / rng.randint(60, 150)
        for ni in range(len(R.nodes)):
            if rng.random() < 0.3:
                kernel_noise(R, rng, ni, R.t0, tf)
        if cause is None:
            R.out(rng.randrange(W), t + dur / 2, self.sl(R, 0, t + dur / 2, "Prefill out of memory. Try to lower your batch size.\nTry to allocate 8192 tokens.\nAvailable tokens: 1233, retracting 3 requests and retrying") if rng.random() < 0.5 else
                  self.sl(R, 0, t + dur / 2, "KV cache pool is full. Retract requests. #retracted_reqs: 2, #new_token_ratio: 0.4312 -> 0.7000"))
            R.t_end, R.exit_code = tf + 5, 0
            R.set_truth(None, notes="Healthy SGLang multi-node serving; KV-cache retraction messages are normal back-pressure.")
            return
        cand = [r for r in range(W) if R.node_of(r).idx != 0]
        r = rng.choice(cand)
        n = R.node_of(r)
        loc = r - n.first_rank
        sched = [(f"{SP}/sglang/srt/managers/scheduler.py", 2565, "run_scheduler_process", "scheduler.event_loop_overlap()"),
                 (f"{SP}/torch/utils/_contextlib.py", 116, "decorate_context", "return func(*args, **kwargs)"),
                 (f"{SP}/sglang/srt/managers/scheduler.py", 790, "event_loop_overlap", "batch_result = self.run_batch(batch)"),
                 (f"{SP}/sglang/srt/managers/scheduler.py", 1770, "run_batch", ") = self.tp_worker.forward_batch_generation(")]

        def sched_exc(t1, exc):
            R.out(r, t1, self.sl(R, r, t1, "Scheduler hit an exception: " + "\n".join(fmt_frames(sched, True) + exc)))
            R.out(n.first_rank, t1 + 0.3, f"[{utc(R.lt(n.idx, t1 + 0.3)).strftime('%Y-%m-%d %H:%M:%S')}] Received sigquit from a child process. It usually means the child failed.")

        def others(t1, how):
            for x in range(W):
                if x == r or (W > 16 and x % 3):
                    continue
                tx = t1 + rng.uniform(0.5, 20)
                if how == "nccl":
                    R.out(x, tx, f"[rank{x}]:[E{utc(tx).month}{utc(tx).day:02d} {utc(R.lt(R.node_of(x).idx, tx)).strftime('%H:%M:%S')}.{rng.randint(10 ** 8, 10 ** 9 - 1)} ProcessGroupNCCL.cpp:1418] [PG ID 2 PG GUID 3 Rank {x}] Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version 2.21.5\nncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\nLast error:\nsocketProgress: Connection closed by remote peer {n.host.split('.')[0]}<{rng.randint(30000, 60000)}>")

        if cause == "cuda_oom":
            sched_exc(tf, [f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {rng.uniform(0.5, 6):.2f} GiB. GPU {loc} has a total capacity of 139.72 GiB of which {rng.uniform(50, 700):.2f} MiB is free. Process {R.pid(r)} has 139.1 GiB memory in use. Of the allocated memory 130.9 GiB is allocated by PyTorch, with 2.1 GiB allocated in private pools (e.g., CUDA Graphs), and 1.9 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)", ""])
            others(tf + 1, "nccl")
            R.set_truth("cuda_oom", r, n.idx, True, f"SGLang TP{r} on {n.host} runs out of GPU memory during a large prefill; scheduler exits.")
        elif cause in ("gpu_hardware", "illegal_memory_access"):
            if cause == "gpu_hardware":
                k_xid(R, rng, n.idx, tf, loc, rng.choice([79, 119, 154]), pid=R.pid(r))
                R.meta["evidence_kernel"] = True
                sched_exc(tf + 1, cuda_exc("lost"))
            else:
                sched_exc(tf, cuda_exc("ima"))
            others(tf + 2, "nccl")
            R.set_truth(cause, r, n.idx, True, f"{'GPU fault (Xid) on' if cause == 'gpu_hardware' else 'Illegal memory access in a kernel of'} TP{r} on {n.host}.")
        elif cause == "network":
            R.k(n.idx, tf, f"mlx5_core 0000:{rng.choice(['0c', '1a', '9a'])}:00.0: mlx5_port_event:361:(pid 0): Port: 1 Link DOWN")
            R.meta["evidence_kernel"] = True
            for x in range(W):
                if W > 16 and x % 3 and x != n.first_rank:
                    continue
                xn = R.node_of(x)
                if xn.idx == n.idx and x != n.first_rank:
                    continue
                tx = tf + rng.uniform(0.5, 10)
                R.out(x, tx, self.sl(R, x, tx, "Scheduler hit an exception: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5\nncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. \nLast error:\n"
                                             + (f"NET/IB : Got completion from peer {n.ip}<{rng.randint(30000, 60000)}> with status=12 opcode=0 len=0 vendor err 129 (Send) localGid ::ffff:{xn.ip} remoteGids::ffff:{n.ip} hca mlx5_{rng.randint(0, 7)}" if xn.idx != n.idx else "NET/IB : mlx5_0:1 Got async event : port error")))
            R.set_truth("network", n.first_rank, n.idx, True, f"IB link down on {n.host}; TP all-reduces spanning it fail with completions from {n.ip}.")
        elif cause == "crash_signal":
            R.k(n.idx, tf, f"python3[{R.pid(r)}]: segfault at 8 ip 00007f{hexid(rng, 10)} sp 00007ff{hexid(rng, 9)} error 4 in sgl_kernel/common_ops.abi3.so[7f{hexid(rng, 7)}000+{hexid(rng, 6)}] likely on CPU {rng.randint(0, 191)} (core {rng.randint(0, 95)}, socket {rng.randint(0, 1)})")
            R.meta["evidence_kernel"] = True
            R.out(n.first_rank, tf + 0.5, f"[{utc(R.lt(n.idx, tf + 0.5)).strftime('%Y-%m-%d %H:%M:%S')}] Received sigquit from a child process. It usually means the child failed.")
            others(tf + 1, "nccl")
            R.set_truth("crash_signal", n.first_rank, n.idx, False, f"An SGLang scheduler process (pid {R.pid(r)}) on {n.host} segfaults in sgl_kernel; only the kernel log shows it and no log maps that pid to a TP rank.")
        elif cause == "python_exception":
            sched_exc(tf, [f"KeyError: 'expert_bias'", ""])
            others(tf + 1, "nccl")
            R.set_truth("python_exception", r, n.idx, True, f"TP{r} on {n.host} raises KeyError after a hot weight update; the other TP ranks lose it.")
        elif cause == "preemption":
            if R.meta["pf"] == "k8s":
                R.ev(tf, "node_preempt", n.idx)
                others(tf + 2, "nccl")
                R.set_truth("preemption", n.first_rank, n.idx, True, f"Node under {n.host} is preempted/shut down; its SGLang ranks get SIGTERM and peers lose them.")
            else:
                R.ev(tf, "preempt_job", None, why="PREEMPTION")
                R.meta["slurm_state"] = "PREEMPTED"
                R.set_truth("preemption", None, None, True, "Slurm preempts the whole SGLang serving job.")
        if R.meta["pf"] == "slurm" and cause != "preemption":
            R.ev(tf + 2, "task_exit", n.idx, code=1, rank=r)
        if R.meta["pf"] == "k8s" and cause != "preemption":
            R.meta["describe"] = {"node": n.idx, "reason": "Error", "code": 1 if cause != "crash_signal" else 139, "t": tf + 3}
            R.meta["pod_status"] = {n.idx: "Error"}
        R.t_end, R.exit_code = tf + 30, 1
