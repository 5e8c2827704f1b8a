"""Non-PyTorch-on-NVIDIA training stacks: AWS Neuron, JAX multi-host, TensorFlow MWMS,
Horovod (Open MPI), PaddlePaddle."""
from __future__ import annotations

from b5_core import (Run, f_glog, f_iso, f_neuron, f_pylog, hexid, alnum, utc, pick_shape)
from b5_torch import k_xid, k_oom, kernel_noise, fmt_frames


def tb_lines(frames, exc, py311=False):
    return fmt_frames(frames, py311) + exc


class BaseStack:
    causes: list = []
    device = "generic"
    slurm_launcher = None
    ssh_launcher = None

    def __init__(self, rng):
        self.rng = rng

    def host_style(self):
        return self.rng.choice(["gpu-dash", "fqdn", "plain", "aws", "gce"]), None

    def culprit(self, R, avoid_zero=True):
        return self.rng.randrange(1 if avoid_zero and R.world > 1 else 0, R.world)

    def sigterm_all(self, R, t):
        pass


# =============================================================================== AWS Neuron
class NeuronStack(BaseStack):
    name = "neuron"
    causes = ["ecc_memory", "host_oom_kill", "python_exception", "network", "preemption", "crash_signal"]
    slurm_launcher = "torchrun"

    def host_style(self):
        return self.rng.choice(["pcluster", "aws"]), "trn"

    def shape(self, R):
        rng = self.rng
        return rng.choice([2, 2, 4, 4, 8, 16]), rng.choice([32, 32, 64])

    def nrt(self, R, rank, t, lvl, mod, msg):
        n = R.node_of(rank)
        pid = R.pid(rank)
        return f"{f_neuron(R.lt(n.idx, t))} {pid}:{pid + self.rng.randint(0, 40)} {lvl:<5}  {mod:<44}{msg}"

    def step(self, R, t, step, loss, dt):
        return (f"{f_pylog(R.lt(0, t))} - INFO - step {step} step_time {dt:.3f}s throughput {self.tput / dt * self.dt:.2f} seq/s "
                f"loss {loss:.4f} grad_norm {self.rng.uniform(0.3, 2):.3f} lr {self.lr:.3e}")

    def run(self, R: Run, cause):
        rng = self.rng
        R.meta["vendor"] = "aws-neuron"
        R.meta["gpu_res"] = "aws.amazon.com/neuron"
        R.meta["image"] = "public.ecr.aws/neuron/pytorch-training-neuronx:2.1.2-neuronx-py310-sdk2.20.2-ubuntu20.04"
        self.dt = rng.uniform(1.5, 9)
        self.tput = rng.uniform(30, 400)
        self.lr = rng.uniform(1e-5, 3e-4)
        t = R.t0
        for r in range(0, R.world, max(1, R.gpn)):
            R.out(r, t + 5, f"{f_pylog(R.lt(R.node_of(r).idx, t + 5))} - INFO - Neuron Distributed: TP={rng.choice([8, 32])} PP={rng.choice([1, 4])} DP={max(1, R.world // 32)}")
        R.out(0, t + 30, self.nrt(R, 0, t + 30, "INFO", "NRT:nrt_init", f"NRT version: 2.{rng.randint(19, 23)}.{rng.randint(5, 60)}.0"))
        R.out(0, t + 31, "Compiler status PASS")
        R.out(rng.randrange(R.world), t + 40, f"{f_pylog(R.lt(0, t + 40))} WARNING neuronx_distributed: Using SPMD with NxD; XLA_USE_BF16 is deprecated, use XLA_DOWNCAST_BF16")
        dur = rng.uniform(1800, 3600 * 20)
        tf = t + dur
        step, loss = rng.randint(0, 300), rng.uniform(2, 7)
        every = max(1, int(dur / self.dt / rng.randint(40, 120)))
        tt = t + 90
        while tt + self.dt * every < tf:
            tt += self.dt * every * rng.uniform(0.98, 1.03)
            step += every
            loss *= rng.uniform(0.99, 1.0)
            R.out(0, tt, self.step(R, tt, step, loss, self.dt * rng.uniform(0.98, 1.02)), "stdout")
        for ni in range(len(R.nodes)):
            if rng.random() < 0.3:
                kernel_noise(R, rng, ni, R.t0, tf, "other")
        if cause is None:
            R.out(0, tf, f"{f_pylog(R.lt(0, tf))} - INFO - Training finished at step {step}; saving final checkpoint to /fsx/ckpt/step_{step}")
            R.out(rng.randrange(R.world), t + dur / 2, self.nrt(R, 0, t + dur / 2, "WARN", "TDRV:notification_consume_error_block",
                                                                f"Error notifications found on nd{rng.randint(0, 15)} nc{rng.randint(0, 1)}; action=INFER_ERROR_SUBTYPE_NONE; error_id=0; error string:TRAINIUM_NC_ERROR_TYPE_FP_UNDERFLOW"))
            R.t_end, R.exit_code = tf + 30, 0
            R.set_truth(None, notes="Healthy Trainium run; benign NRT FP underflow notifications.")
            return
        r = self.culprit(R)
        n = R.node_of(r)
        loc = r - n.first_rank
        fails = {}

        def others_fail(t1, spread=(5, 60), msg=None):
            for x in range(R.world):
                if x == r or R.node_of(x).idx == n.idx and cause in ("preemption",):
                    continue
                if R.world > 64 and x % 8 and R.node_of(x).idx != n.idx:
                    continue
                tx = t1 + rng.uniform(*spread)
                R.out(x, tx, self.nrt(R, x, tx, "ERROR", "NCCOM:nccl_net_ofi_rdma_recv", msg or f"Receive from rank {r} failed, peer {n.ip} unreachable (fi_cq_readerr err: 5)"))
                R.out(x, tx + 0.1, f"RuntimeError: Bad StatusOr access: INTERNAL: nrt_execute status=1200, error message=\"Collectives operation failed\"")
                fails.setdefault(R.node_of(x).idx, []).append(x)

        if cause == "ecc_memory":
            nd = loc // 2
            R.out(r, tf, self.nrt(R, r, tf, "ERROR", "TDRV:exec_consume_infer_status_notifications", f"(FATAL-RT-UNDEFINED-STATE) nd{nd} nc{loc % 2}: Detected uncorrectable memory error (HBM UE) while executing model; action=INFER_ERROR_SUBTYPE_MODULE"))
            R.out(r, tf + 0.01, self.nrt(R, r, tf, "ERROR", "NRT:nrt_execute", "Execution failed with status 1201 (NRT_EXEC_HW_ERR_HBM_UE)"))
            R.out(r, tf + 0.2, "RuntimeError: Bad StatusOr access: INTERNAL: nrt_execute status=1201, error message=\"Execution completed with hardware error\"")
            mon = []
            for k in range(3):
                tm = tf - 10 + k * 5
                mon.append('{"neuron_runtime_data":[{"pid":%d,"neuron_runtime_tag":"%d","error":"","report":{"neuron_hw_counters":{"period":5.0,"error":"","neuron_devices":[%s]}}}],"system_data":null,"instance_info":{"instance_name":"","instance_id":"i-%s","instance_type":"trn1.32xlarge","instance_availability_zone":"us-east-2b","instance_region":"us-east-2","ami_id":"ami-%s","subnet_id":"subnet-%s","error":""}}' % (
                    R.pid(r), R.pid(r), ",".join('{"neuron_device_index":%d,"mem_ecc_corrected":%d,"mem_ecc_uncorrected":%d,"sram_ecc_uncorrected":0,"sram_ecc_corrected":0}' % (d, rng.randint(0, 2), (1 if (d == nd and k >= 2) else 0)) for d in range(16)),
                    hexid(rng, 17), hexid(rng, 17), hexid(rng, 8)))
            R.files[f"monitoring/neuron-monitor-{n.host}.jsonl"] = "\n".join(mon) + "\n"
            others_fail(tf + 30)
            R.set_truth("ecc_memory", r, n.idx, True, f"Uncorrectable HBM error on Neuron device nd{nd} of {n.host}; rank {r}'s NRT reports HBM UE and neuron-monitor counts mem_ecc_uncorrected.")
        elif cause == "host_oom_kill":
            k_oom(R, rng, n.idx, tf, R.pid(r), "python3", None, rss_gb=rng.uniform(40, 120))
            R.ev(tf + 0.5, "oom_kill", n.idx, pid=R.pid(r), rss=rng.randint(10 ** 7, 10 ** 8), vm=rng.randint(10 ** 8, 10 ** 9))
            R.agent(n.idx, tf + 2, f"E{utc(R.lt(n.idx, tf + 2)).strftime('%m%d %H:%M:%S')}.000000 {n.agent_pid} torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) local_rank: {loc} (pid: {R.pid(r)}) of binary: /opt/aws_neuronx_venv_pytorch/bin/python3")
            R.meta["evidence_kernel"] = True
            others_fail(tf + 20)
            R.set_truth("host_oom_kill", r, n.idx, True, f"Host OOM killer kills rank {r} (pid {R.pid(r)}) on {n.host} while building XLA graphs; peers lose it in collectives.")
        elif cause == "python_exception":
            fr = [("/fsx/neuronx-distributed/examples/training/llama/tp_zero1_llama_hf_pretrain.py", 512, "<module>", "_mp_fn(0, args)"),
                  ("/fsx/neuronx-distributed/examples/training/llama/tp_zero1_llama_hf_pretrain.py", 441, "_mp_fn", "train_llama(flags)"),
                  ("/fsx/neuronx-distributed/examples/training/llama/tp_zero1_llama_hf_pretrain.py", 330, "train_llama", "for step, batch in enumerate(train_dataloader):"),
                  ("/fsx/neuronx-distributed/examples/training/llama/data_module.py", 88, "__getitem__", "return self.tokenizer(self.samples[idx])")]
            p = f"[rank{r}]: " if rng.random() < 0.5 else ""
            R.out(r, tf, "\n".join(p + l for l in tb_lines(fr, [f"IndexError: list index out of range", ""])))
            others_fail(tf + 15)
            R.set_truth("python_exception", r, n.idx, True, f"Rank {r} on {n.host} raises IndexError in the dataset; the rest fail in collectives.")
        elif cause == "network":
            R.k(n.idx, tf, f"efa 0000:{rng.choice(['10:1c', '20:1d', '30:1b', 'a0:1c'])}.0: Communication timeout, admin queue stuck? (cq {rng.randint(1, 9)} not progressing)")
            R.k(n.idx, tf + 3, "efa 0000:10:1c.0: Failed to process command MODIFY_QP (opcode 4) comp_status 7 err -110")
            for x in n.ranks[: min(8, len(n.ranks))]:
                R.out(x, tf + rng.uniform(1, 5), self.nrt(R, x, tf + 2, "ERROR", "NCCOM:nccl_net_ofi_rdma_send", "Send request completed with error. RC: -5. Error: 5 (Input/output error). Completed length: 0"))
            others_fail(tf + 2, msg=f"Request to peer {n.ip} timed out (fi_cq_readerr err: 110, prov_errno: 1 Remote unreachable)")
            R.meta["evidence_kernel"] = True
            R.set_truth("network", n.first_rank, n.idx, True, f"EFA device on {n.host} stops progressing; collectives to/from it fail.")
        elif cause == "crash_signal":
            R.k(n.idx, tf, f"python3[{R.pid(r)}]: segfault at 0 ip 00007f{hexid(rng, 10)} sp 00007ff{hexid(rng, 9)} error 4 in libneuronxla.so[7f{hexid(rng, 7)}000+{hexid(rng, 6)}] likely on CPU {rng.randint(0, 127)} (core {rng.randint(0, 63)}, socket {rng.randint(0, 1)})")
            R.agent(n.idx, tf + 2, f"E{utc(R.lt(n.idx, tf + 2)).strftime('%m%d %H:%M:%S')}.000000 {n.agent_pid} torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -11) local_rank: {loc} (pid: {R.pid(r)}) of binary: /opt/aws_neuronx_venv_pytorch/bin/python3")
            others_fail(tf + 10)
            R.set_truth("crash_signal", r, n.idx, True, f"Rank {r} on {n.host} segfaults in libneuronxla.so.")
        elif cause == "preemption":
            if R.meta["pf"] == "slurm":
                R.ev(tf, "preempt_job", None, why="PREEMPTION")
                R.meta["slurm_state"] = "PREEMPTED"
                R.set_truth("preemption", None, None, True, "Slurm preempts the whole Trainium job (higher-priority reservation).")
            else:
                R.ev(tf, "node_preempt", n.idx)
                others_fail(tf + 2)
                R.set_truth("preemption", n.first_rank, n.idx, True, f"Spot trn1 instance behind {n.host} is reclaimed (2-minute warning) and its workers get SIGTERM.")
        for ni, xs in fails.items():
            R.ev(tf + 70, "task_exit", ni, code=1, rank=xs[0])
        if cause not in ("preemption",) or R.culprit_node is not None:
            R.ev(tf + 5, "task_exit", n.idx, code=1, rank=r)
        R.t_end, R.exit_code = tf + 90, 1


# =============================================================================== JAX multi-host
class JaxStack(BaseStack):
    name = "jax"
    causes = ["preemption", "gpu_hardware", "hang", "host_oom_kill", "python_exception", "cuda_oom", "network", "crash_signal"]
    slurm_launcher = "srun"

    def shape(self, R):
        rng = self.rng
        return rng.choice([2, 4, 4, 8, 8, 16, 32, 64]), 1

    def host_style(self):
        return self.rng.choice(["gpu-dash", "nid", "gce"]), None

    def g(self, R, rank, t, lvl, src, msg):
        n = R.node_of(rank)
        return f"{f_glog(R.lt(n.idx, t), lvl)} {R.pid(rank):>7} {src}] {msg}"

    def run(self, R: Run, cause):
        rng = self.rng
        tpu = R.meta["pf"] == "tpuvm"
        R.meta["vendor"] = "google-tpu" if tpu else "nvidia"
        self.dt = rng.uniform(0.8, 6)
        W = R.world
        t = R.t0
        coord = f"{R.nodes[0].ip}:{rng.choice([1234, 8476, 12345])}"
        for r in range(W):
            R.out(r, t + 2 + rng.uniform(0, 3), self.g(R, r, t + 3, "I", "distributed.py:113", f"Starting JAX distributed service on {coord}" if r == 0 else f"Connecting to JAX distributed service on {coord}"))
        R.out(0, t + 9, self.g(R, 0, t + 9, "I", "train.py:88", f"jax.process_count()={W} jax.device_count()={W * (4 if tpu else 8)} devices={'TPU v5p' if tpu else 'cuda'}"))
        if tpu:
            R.out(rng.randrange(W), t + 6, f"WARNING: Logging before InitGoogleLogging() is written to STDERR")
            R.out(rng.randrange(W), t + 7, self.g(R, 0, t + 7, "W", "tpu_hal.cc:?", "TPU runtime version 2.17.0 differs from libtpu 0.0.x: continuing") if False else
                  f"{f_iso(t + 7, 6)} I tensorflow/core/tpu/tpu_api_dlsym_initializer.cc:95] Opening library: /usr/local/lib/python3.10/site-packages/libtpu/libtpu.so")
        dur = rng.uniform(1200, 3600 * 20)
        tf = t + dur
        step = rng.randint(0, 100) * 100
        every = max(1, int(dur / self.dt / rng.randint(40, 120)))
        tt = t + 60
        loss = rng.uniform(2.5, 8)
        ck_every = every * rng.choice([5, 10])
        slow = None
        if cause == "straggler":
            slow = None
        while tt + self.dt * every < tf:
            tt += self.dt * every * rng.uniform(0.98, 1.03)
            step += every
            loss *= rng.uniform(0.99, 1.0)
            R.out(0, tt, self.g(R, 0, tt, "I", "train.py:412", f"step {step}: loss={loss:.4f} learning_rate={3e-4:.2e} step_time={self.dt:.3f}s tokens/s={int(1.1e6 / self.dt):,}"))
            if step % ck_every == 0:
                R.out(0, tt + 0.5, self.g(R, 0, tt + 0.5, "I", "checkpoint_manager.py:1250", f"[process=0] Saving checkpoint for step {step}..."))
                R.out(0, tt + rng.uniform(5, 40), self.g(R, 0, tt + 20, "I", "async_checkpointer.py:287", f"Finished saving checkpoint to `gs://ckpt-bucket/run/{step}`."))
        for ni in range(len(R.nodes)):
            if not tpu and rng.random() < 0.3:
                kernel_noise(R, rng, ni, R.t0, tf)
        if cause is None:
            if rng.random() < 0.5:
                R.out(rng.randrange(W), t + dur / 3, self.g(R, 0, t, "W", "pjit.py:?", "") if False else
                      f"{f_glog(R.lt(0, t + dur / 3), 'E')} {R.pid(0)} pjrt_stream_executor_client.cc:2985] Execution of replica 0 failed: INTERNAL: Failed to allocate temporary scratch buffer; retrying with a smaller workspace")
            R.out(0, tf, self.g(R, 0, tf, "I", "train.py:455", f"Training complete at step {step}."))
            R.t_end, R.exit_code = tf + 20, 0
            R.set_truth(None, notes="Healthy multi-host JAX run; one scary but retried XLA scratch-allocation message.")
            return
        r = self.culprit(R)
        n = R.node_of(r)
        task = f"/job:jax_worker/replica:0/task:{r}"
        hb = rng.choice([100, 100, 300])

        def survivors_hb(t1, crashed=True):
            for x in range(W):
                if x == r:
                    continue
                if W > 32 and x % 4:
                    continue
                tx = t1 + rng.uniform(0, 3)
                lines = [self.g(R, x, tx, "E", "coordination_service_agent.cc:332", "Polled an error from coordination service (this can be an error from this or another task)."),
                         self.g(R, x, tx, "F", "client.h:77", "Terminating process because the JAX distributed service detected fatal errors. This most likely indicates that another task died; see the other task logs for more details. Disable Python buffering, i.e. `python -u`, to be sure to see all the previous output. "
                                + (f"absl::Status: UNAVAILABLE: The following tasks are unhealthy (stopped sending heartbeats):\n{task}\nThe tasks have crashed. Check the task logs for an earlier error, or scheduler events (e.g. preemption, eviction) to debug further."
                                   if rng.random() < 0.5 else
                                   f"absl::Status: UNAVAILABLE: Task {task} heartbeat timeout. This indicates that the remote task has failed, got preempted, or crashed unexpectedly. Check the task logs for an earlier error to debug further.")),
                         "",
                         "RPC: /tensorflow.CoordinationService/PollForError [type.googleapis.com/tensorflow.CoordinationServiceError='']",
                         "*** Check failure stack trace: ***",
                         f"    @     0x7f{hexid(rng, 10)}  absl::lts_20230802::log_internal::LogMessageFatal::~LogMessageFatal()",
                         f"    @     0x7f{hexid(rng, 10)}  xla::DistributedRuntimeClient::...",
                         "Fatal Python error: Aborted"]
                R.out(x, tx, "\n".join(lines))

        sp = "/usr/local/lib/python3.10/site-packages"
        if cause == "preemption":
            if tpu:
                R.files["gcloud-tpu-describe.txt"] = "\n".join([
                    f"$ gcloud compute tpus tpu-vm describe {R.meta['tpu_name']} --zone={R.meta['zone']}",
                    f"acceleratorType: {R.meta['tpu_name'].split('-')[0]}-{R.meta['tpu_name'].split('-')[1]}",
                    f"createTime: '{f_iso(R.t0 - 7200, 9)}'", "health: UNHEALTHY_MAINTENANCE" if rng.random() < 0.3 else "healthDescription: The TPU had a maintenance event.",
                    f"name: projects/{R.meta['project']}/locations/{R.meta['zone']}/nodes/{R.meta['tpu_name']}",
                    "schedulingConfig:", "  preemptible: true", "state: PREEMPTED", ""])
                R.meta.setdefault("gcp_extra", []).append((tf, {
                    "insertId": alnum(rng, 12), "logName": f"projects/{R.meta['project']}/logs/cloudaudit.googleapis.com%2Factivity",
                    "protoPayload": {"@type": "type.googleapis.com/google.cloud.audit.AuditLog", "methodName": "tpu.nodes.preempted" if rng.random() < 0.5 else "tpu.nodes.maintenanceEvent",
                                     "resourceName": f"projects/{R.meta['project']}/locations/{R.meta['zone']}/nodes/{R.meta['tpu_name']}",
                                     "status": {"message": "The TPU node was preempted." }, "serviceName": "tpu.googleapis.com"},
                    "resource": {"type": "tpu.googleapis.com/Node", "labels": {"node_id": R.meta["tpu_name"], "zone": R.meta["zone"]}},
                    "severity": "NOTICE", "timestamp": f_iso(tf, 6)}))
                survivors_hb(tf + hb)
                R.set_truth("preemption", None, None, True, "TPU slice preempted (Cloud audit event tpu.nodes.preempted); every host loses the coordination service.")
                # a pod slice is preempted as one unit; the first host to stop heartbeating is reported but it is not at fault
            elif R.meta["pf"] == "slurm":
                R.ev(tf, "preempt_job", None, why=rng.choice(["PREEMPTION", "TIME LIMIT"]))
                R.meta["slurm_state"] = "PREEMPTED"
                R.set_truth("preemption", None, None, True, "Slurm cancels the JAX job for preemption/time limit; all processes get SIGTERM.")
            else:
                R.ev(tf, "node_preempt", n.idx)
                survivors_hb(tf + hb)
                R.set_truth("preemption", r, n.idx, True, f"Spot node of {n.host} (process {r}) is reclaimed; other processes report its heartbeat timeout.")
        elif cause == "gpu_hardware":
            if tpu:
                R.meta.setdefault("gcp_extra", []).append((tf, {
                    "insertId": alnum(rng, 12), "logName": f"projects/{R.meta['project']}/logs/cloudaudit.googleapis.com%2Fsystem_event",
                    "protoPayload": {"@type": "type.googleapis.com/google.cloud.audit.AuditLog", "methodName": "compute.instances.hostError",
                                     "resourceName": f"projects/{R.meta['project']}/zones/{R.meta['zone']}/instances/{n.host}",
                                     "status": {"message": "Instance terminated by Compute Engine due to host error (TPU chip failure)."},
                                     "serviceName": "compute.googleapis.com"},
                    "resource": {"type": "gce_instance", "labels": {"instance_id": str(rng.randint(10 ** 18, 10 ** 19)), "zone": R.meta["zone"]}},
                    "severity": "INFO", "timestamp": f_iso(tf, 6)}))
                R.out(r, tf - 0.5, f"{f_glog(R.lt(n.idx, tf - 0.5), 'E')} {R.pid(r)} tpu_program_executor.cc:?] TPU halted: chip 2 reported HBM uncorrectable/ICI link fatal error; runtime going down" if False else
                      self.g(R, r, tf - 0.5, "F", "tpu_driver.cc:1342", "Chip 2 in unhealthy state: hardware error detected (HBM/ICI fatal). Aborting runtime."))
                survivors_hb(tf + hb)
                R.set_truth("gpu_hardware", r, n.idx, True, f"TPU host {n.host} (process {r}) hits a fatal chip error; GCE reports hostError; others see its heartbeat timeout.")
            else:
                loc = rng.randrange(len(n.bus))
                k_xid(R, rng, n.idx, tf, loc, 79)
                R.meta["evidence_kernel"] = True
                R.out(r, tf + 1, self.g(R, r, tf + 1, "E", "pjrt_stream_executor_client.cc:2985", f"Execution of replica 0 failed: INTERNAL: CUDA error: Failed to synchronize GPU stream: CUDA_ERROR_UNKNOWN: unknown error"))
                survivors_hb(tf + hb)
                R.set_truth("gpu_hardware", r, n.idx, True, f"Xid 79 (GPU fell off the bus) on {n.host}; JAX process {r} fails and the others report its heartbeat timeout.")
        elif cause == "hang":
            bid = f"orbax_checkpoint_save_{step}" if rng.random() < 0.6 else "PjRT_Client_Connect" if False else f"sync_global_devices_{rng.randint(1, 99)}"
            for x in range(W):
                if x == r or (W > 32 and x % 4):
                    continue
                tx = tf + 1800 + rng.uniform(0, 2)
                R.out(x, tx, "\n".join([self.g(R, x, tx, "E", "coordination_service_agent.cc:?", f"Barrier {bid} failed") if False else
                                        "Traceback (most recent call last):",
                                        f'  File "{sp}/orbax/checkpoint/async_checkpointer.py", line 303, in save', "    self._sync_barrier()",
                                        f'  File "{sp}/jax/experimental/multihost_utils.py", line 87, in sync_global_devices', "    client.wait_at_barrier(name, timeout_in_ms=...)",
                                        f"jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Id: {bid}. This usually happens because a task triggered the barrier too early or too slowly. Please look at the task logs (both timed out and first task) to debug further.",
                                        f"# of tasks that reached the barrier: {W - 1}/{W}.", "The first task at the barrier: /job:jax_worker/replica:0/task:0. Some timed out task names:", task]))
            R.set_truth("hang", r, n.idx, True, f"JAX process {r} on {n.host} stops before the {bid} barrier; the others time out naming task:{r}.")
            tf += 1800
        elif cause == "host_oom_kill":
            k_oom(R, rng, n.idx, tf, R.pid(r), "python3", None, rss_gb=rng.uniform(200, 900))
            R.meta["evidence_kernel"] = True
            R.ev(tf + 0.5, "oom_kill", n.idx, pid=R.pid(r), rss=rng.randint(10 ** 8, 9 * 10 ** 8), vm=rng.randint(10 ** 9, 2 * 10 ** 9))
            survivors_hb(tf + hb)
            R.set_truth("host_oom_kill", r, n.idx, True, f"Linux OOM killer kills JAX process {r} on {n.host} (host RAM during checkpoint restore); the rest report its heartbeat timeout.")
        elif cause == "python_exception":
            fr = [("/app/train.py", 455, "<module>", "app.run(main)"), (f"{sp}/absl/app.py", 308, "run", "_run_main(main, args)"),
                  ("/app/train.py", 431, "main", "batch = next(train_iter)"), ("/app/input_pipeline.py", 140, "__next__", "example = self._parse(record)"),
                  ("/app/input_pipeline.py", 97, "_parse", "tokens = example['text'].decode('utf-8')")]
            R.out(r, tf, "\n".join(tb_lines(fr, ["UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in position 1733: invalid start byte"])))
            survivors_hb(tf + hb)
            R.set_truth("python_exception", r, n.idx, True, f"Process {r} on {n.host} dies on a UnicodeDecodeError in its input pipeline; peers report the task heartbeat timeout.")
        elif cause == "cuda_oom":
            R.out(r, tf, "\n".join(tb_lines([("/app/train.py", 431, "main", "state, metrics = p_train_step(state, batch)")],
                                            [f"jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate {rng.randint(2, 30) * 1073741824 + rng.randint(0, 10 ** 8)} bytes.",
                                             "BufferAssignment OOM Debugging.", f"BufferAssignment stats:", f"             parameter allocation:    {rng.uniform(2, 20):.2f}GiB",
                                             f"              constant allocation:         0B", f"        maybe_live_out allocation:   {rng.uniform(2, 20):.2f}GiB",
                                             f"     preallocated temp allocation:   {rng.uniform(20, 60):.2f}GiB", f"                 total allocation:   {rng.uniform(60, 95):.2f}GiB"])))
            survivors_hb(tf + hb)
            R.set_truth("cuda_oom", r, n.idx, True, f"XLA RESOURCE_EXHAUSTED on process {r} ({n.host}) — larger batch on a resharded step.")
        elif cause == "network":
            if not tpu:
                R.k(n.idx, tf, f"mlx5_core 0000:{rng.choice(['0c', '1a', '9a'])}:00.0: mlx5_port_event:361:(pid 0): Port: 1 Link DOWN")
                R.meta["evidence_kernel"] = True
            else:
                R.out(r, tf, self.g(R, r, tf, "E", "dcn_transport.cc:?", "") if False else
                      self.g(R, r, tf, "E", "megascale/runtime/transport.cc:512", f"DCN transfer to slice peer {R.nodes[(n.idx + 1) % len(R.nodes)].ip} failed: UNAVAILABLE: Network is unreachable (local NIC eth1 down)"))
            for x in range(W):
                if W > 32 and x % 4 and x != r:
                    continue
                tx = tf + rng.uniform(1, 20)
                R.out(x, tx, self.g(R, x, tx, "E", "pjrt_stream_executor_client.cc:2985",
                                    f"Execution of replica 0 failed: INTERNAL: NCCL operation ncclGroupEnd() failed: unhandled system error (run with NCCL_DEBUG=INFO for details). Last NCCL warning(error) log entry (may be unrelated) 'NET/IB : Got completion from peer {n.ip}<{rng.randint(30000, 60000)}> with status=12 opcode=0 len=0 vendor err 129 (Send)'." if not tpu else
                                    f"Execution of replica 0 failed: UNAVAILABLE: DCN collective failed: peer {n.ip} unreachable"))
            R.set_truth("network", r, n.idx, True, f"Host {n.host} (process {r}) loses its {'IB link' if not tpu else 'DCN NIC'}; collectives fail with errors naming its address.")
        elif cause == "crash_signal":
            R.out(r, tf, "\n".join(["Fatal Python error: Segmentation fault", "", f"Thread 0x00007f{hexid(rng, 8)} (most recent call first):",
                                    f'  File "{sp}/jax/_src/interpreters/pxla.py", line 1297 in __call__',
                                    f'  File "{sp}/jax/_src/profiler.py", line 335 in wrapper', '  File "/app/train.py", line 431 in main', "",
                                    "Extension modules: jaxlib.cpu_feature_guard, numpy.core._multiarray_umath (total: 12)"]))
            survivors_hb(tf + hb)
            R.set_truth("crash_signal", r, n.idx, True, f"Process {r} on {n.host} segfaults inside the XLA executable call; peers report its heartbeat timeout.")
        if R.meta["pf"] == "slurm" and cause not in ("preemption",):
            R.ev(tf + 2, "task_exit", n.idx, code=1, signal=11 if cause == "crash_signal" else 9 if cause == "host_oom_kill" else None, rank=r)
            R.ev(tf + hb + 5, "step_abort", None)
        R.t_end = tf + hb + 20
        R.exit_code = 1


# =============================================================================== TensorFlow MWMS
class TfStack(BaseStack):
    name = "tf-mwms"
    causes = ["network", "host_oom_kill", "preemption", "python_exception", "cuda_oom", "gpu_hardware"]

    def shape(self, R):
        return self.rng.choice([2, 3, 4, 4, 6, 8]), 1

    def tfl(self, R, rank, t, lvl, src, msg):
        n = R.node_of(rank)
        d = utc(R.lt(n.idx, t))
        return f"{d.strftime('%Y-%m-%d %H:%M:%S')}.{d.microsecond:06d}: {lvl} {src}] {msg}"

    def run(self, R: Run, cause):
        rng = self.rng
        R.meta["image"] = "tensorflow/tensorflow:2.15.0-gpu"
        W = R.world
        t = R.t0
        cl = {"worker": [f"{n.host}:{2222}" for n in R.nodes]}
        for r in range(W):
            R.out(r, t + 1, f"TF_CONFIG={{\"cluster\": {{\"worker\": [{', '.join(chr(34) + x + chr(34) for x in cl['worker'][:3])}{', ...' if W > 3 else ''}]}}, \"task\": {{\"type\": \"worker\", \"index\": {r}}}}}", "stdout")
            R.out(r, t + 3, self.tfl(R, r, t + 3, "I", "tensorflow/core/distributed_runtime/rpc/grpc_server_lib.cc:457", f"Started server with target: grpc://{R.nodes[r].host}:2222"))
            R.out(r, t + 4, self.tfl(R, r, t + 4, "I", "external/local_xla/xla/tsl/distributed_runtime/coordination/coordination_service_agent.cc:304", f"Coordination agent has successfully connected."))
            R.out(r, t + 5, f"INFO:tensorflow:Enabled multi-worker collective ops with available devices: ['/job:worker/replica:0/task:{r}/device:CPU:0', '/job:worker/replica:0/task:{r}/device:GPU:0']")
        R.out(0, t + 6, self.tfl(R, 0, t + 6, "W", "tensorflow/core/grappler/optimizers/data/auto_shard.cc:786", "AUTO sharding policy will apply DATA sharding policy as it failed to apply FILE sharding policy because of the following reason: Did not find a shardable source, walked to a node which is not a dataset"))
        dur = rng.uniform(1200, 3600 * 10)
        tf = t + dur
        ep, nb = 1, rng.choice([1563, 2500, 782])
        tt = t + 30
        per_ep = dur / rng.uniform(2, 8)
        while tt < tf:
            R.out(0, tt, f"Epoch {ep}/{rng.choice([20, 50])}", "stdout")
            for k in range(1, 6):
                b = int(nb * k / 5)
                ttb = tt + per_ep * k / 5
                if ttb > tf:
                    break
                R.out(0, ttb, f"{b:>4}/{nb} [{'=' * int(29 * k / 5)}{'>' if k < 5 else ''}{'.' * (29 - int(29 * k / 5) - (1 if k < 5 else 0))}] - ETA: {int(per_ep * (5 - k) / 5)}s - loss: {rng.uniform(0.2, 1.5):.4f} - accuracy: {rng.uniform(0.6, 0.95):.4f}\r", "stdout")
            tt += per_ep
            ep += 1
        if cause is None:
            R.out(rng.randrange(W), t + dur / 2, self.tfl(R, 0, t + dur / 2, "W", "tensorflow/core/kernels/data/generator_dataset_op.cc:108", "Error occurred when finalizing GeneratorDataset iterator: FAILED_PRECONDITION: Python interpreter state is not initialized. The process may be terminated."))
            R.t_end, R.exit_code = tf + 10, 0
            R.set_truth(None, notes="Healthy TF MultiWorkerMirroredStrategy run with the well-known harmless GeneratorDataset finalization warning.")
            return
        r = self.culprit(R)
        n = R.node_of(r)
        task = f"/job:worker/replica:0/task:{r}"

        def survivors(t1, how):
            for x in range(W):
                if x == r:
                    continue
                tx = t1 + rng.uniform(0, 5)
                if how == "hb":
                    msg = (f"tensorflow.python.framework.errors_impl.UnavailableError: Collective ops is aborted by: Task {task} heartbeat timeout. This indicates that the remote task has failed, got preempted, or crashed unexpectedly. Check the task logs for an earlier error to debug further.\n"
                           "The error could be from a previous operation. Restart your program to reset. [Op:CollectiveReduceV2] name: ")
                else:
                    msg = (f"tensorflow.python.framework.errors_impl.UnavailableError: Collective ops is aborted by: failed to connect to all addresses; last error: UNKNOWN: ipv4:{n.ip}:2222: Failed to connect to remote host: Connection refused\n"
                           f"Additional GRPC error information from remote target {task} while calling /tensorflow.WorkerService/RecvBuf:\n:{{\"created\":\"@{tx:.9f}\",\"description\":\"Failed to pick subchannel\",\"file\":\"external/com_github_grpc_grpc/src/core/ext/filters/client_channel/client_channel.cc\",\"file_line\":3941,\"grpc_status\":14}}\n"
                           "The error could be from a previous operation. Restart your program to reset. [Op:CollectiveReduceV2] name: ")
                R.out(x, tx, "\n".join(["Traceback (most recent call last):", '  File "/app/train_mwms.py", line 118, in <module>',
                                        "    model.fit(dist_ds, epochs=args.epochs, steps_per_epoch=steps, callbacks=callbacks)",
                                        '  File "/usr/local/lib/python3.10/dist-packages/keras/src/utils/traceback_utils.py", line 70, in error_handler',
                                        "    raise e.with_traceback(filtered_tb) from None"] + msg.split("\n")))
                R.ev(tx + 1, "task_exit", x, code=1, rank=x)

        if cause == "network":
            R.k(n.idx, tf, f"{rng.choice(['ena', 'gve', 'mlx5_core'])} 0000:00:{rng.choice(['05', '06'])}.0 eth0: {rng.choice(['Link is Down', 'NIC Link is Down', 'Reset triggered by keep alive timeout'])}")
            R.meta["evidence_kernel"] = True
            survivors(tf + rng.uniform(10, 60), "conn")
            R.set_truth("network", r, n.idx, True, f"Worker {r} ({n.host}) loses its NIC; gRPC collectives to it fail with 'failed to connect'.")
        elif cause == "host_oom_kill":
            R.ev(tf, "oom_kill", n.idx, pid=R.pid(r), rss=rng.randint(10 ** 8, 3 * 10 ** 8), vm=rng.randint(10 ** 9, 2 * 10 ** 9), comm="python3")
            R.meta["pod_status"] = {n.idx: "OOMKilled"}
            R.meta["describe"] = {"node": n.idx, "reason": "OOMKilled", "code": 137, "t": tf + 1, "memlimit": rng.choice(["64Gi", "96Gi", "128Gi"])}
            k_oom(R, rng, n.idx, tf, R.pid(r), "python3", f"/kubepods/burstable/pod{hexid(rng, 8)}-{hexid(rng, 4)}/{hexid(rng, 64)}")
            survivors(tf + 100, "hb")
            R.set_truth("host_oom_kill", r, n.idx, True, f"Worker {r} ({n.host}) exceeds its memory limit and is OOMKilled; the others report its heartbeat timeout.")
        elif cause == "preemption":
            R.ev(tf, "node_preempt", n.idx)
            R.out(r, tf + 0.1, "INFO:tensorflow:Received termination notice. Checkpointing and exiting... (PreemptionCheckpointHandler)")
            survivors(tf + 100, "hb")
            R.set_truth("preemption", r, n.idx, True, f"The VM behind worker {r} ({n.host}) is preempted; TF's PreemptionCheckpointHandler logs the notice, others lose the task.")
        elif cause == "python_exception":
            R.out(r, tf, "\n".join(["Traceback (most recent call last):", '  File "/app/train_mwms.py", line 118, in <module>', "    model.fit(dist_ds, epochs=args.epochs, steps_per_epoch=steps, callbacks=callbacks)",
                                    '  File "/app/callbacks.py", line 44, in on_epoch_end', "    self.writer.write(logs['val_auc'])", "KeyError: 'val_auc'"]))
            R.ev(tf + 1, "task_exit", n.idx, code=1, rank=r)
            survivors(tf + 100, "hb")
            R.set_truth("python_exception", r, n.idx, True, f"Worker {r} ({n.host}) raises KeyError in a Keras callback; the rest report its heartbeat timeout.")
        elif cause == "cuda_oom":
            R.out(r, tf, "\n".join(["Traceback (most recent call last):", '  File "/app/train_mwms.py", line 118, in <module>', "    model.fit(dist_ds, epochs=args.epochs, steps_per_epoch=steps, callbacks=callbacks)",
                                    "tensorflow.python.framework.errors_impl.ResourceExhaustedError: Graph execution error:", "",
                                    f"OOM when allocating tensor with shape[{rng.choice([256, 512])},{rng.choice([1024, 4096])},{rng.choice([197, 577])}] and type float on /job:worker/replica:0/task:{r}/device:GPU:0 by allocator GPU_0_bfc",
                                    "\t [[{{node model/encoder/attention/softmax}}]]",
                                    "Hint: If you want to see a list of allocated tensors when OOM happens, add report_tensor_allocations_upon_oom to RunOptions for current allocation info. This isn't available when running in Eager mode.",
                                    " [Op:__inference_train_function_41233]"]))
            R.ev(tf + 1, "task_exit", n.idx, code=1, rank=r)
            survivors(tf + 100, "hb")
            R.set_truth("cuda_oom", r, n.idx, True, f"Worker {r} ({n.host}) GPU OOM (bfc allocator); the rest report its heartbeat timeout.")
        elif cause == "gpu_hardware":
            k_xid(R, rng, n.idx, tf, 0, 79)
            R.meta["evidence_kernel"] = True
            R.out(r, tf + 1, self.tfl(R, r, tf + 1, "E", "external/local_xla/xla/stream_executor/cuda/cuda_driver.cc:1155", "failed to synchronize the stop event: CUDA_ERROR_UNKNOWN: unknown error"))
            R.out(r, tf + 1.1, self.tfl(R, r, tf + 1.1, "F", "tensorflow/core/common_runtime/device/device_event_mgr.cc:223", "Unexpected Event status: 1"))
            survivors(tf + 100, "hb")
            R.set_truth("gpu_hardware", r, n.idx, True, f"Xid 79 on the GPU of worker {r} ({n.host}); TF aborts on 'Unexpected Event status' and others lose it.")
        R.t_end, R.exit_code = tf + 140, 1
        R.meta["k8s_fail_msg"] = f"TFJob {R.meta.get('job', '')} has failed because 1 Worker replica(s) failed."


# =============================================================================== Horovod
class HorovodStack(BaseStack):
    name = "horovod"
    causes = ["hang", "collective_mismatch", "crash_signal", "python_exception", "host_oom_kill", "network"]
    ssh_launcher = "horovodrun"

    def shape(self, R):
        rng = self.rng
        return rng.choice([2, 2, 4, 4, 8, 16]), rng.choice([4, 8, 8])

    def run(self, R: Run, cause):
        rng = self.rng
        R.meta["gloo"] = rng.random() < 0.3
        R.meta["image"] = "horovod/horovod:0.28.1"
        W = R.world
        t = R.t0
        if R.meta["pf"] == "ssh":
            R.drv(t - 2, f"$ horovodrun -np {W} -H {','.join(f'{n.host}:{R.gpn}' for n in R.nodes[:4])}{',...' if len(R.nodes) > 4 else ''} python train_hvd.py")
        for r in range(W):
            if r == 0:
                R.out(r, t + 5, f"[{f_pylog(R.lt(0, t + 5))}] hvd.size()={W} hvd.rank()=0 hvd.local_size()={R.gpn}", "stdout")
        dur = rng.uniform(1200, 3600 * 10)
        tf = t + dur
        nstep = rng.randint(40, 120)
        for k in range(nstep):
            tt = t + 20 + (tf - t - 20) * k / nstep
            R.out(0, tt, f"Train Epoch: {1 + k // 20} [{(k % 20) * 5120}/{102400} ({(k % 20) * 5}%)]\tLoss: {rng.uniform(0.1, 2.3):.6f}", "stdout")
        if cause is None:
            R.out(rng.randrange(W), t + dur / 3, f"[{f_pylog(R.lt(0, t + dur / 3))}: W /tmp/pip-install/horovod/common/stall_inspector.cc:107] One or more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting for remainder of ranks for more than 60 seconds. This may indicate that different ranks are trying to submit different tensors or that only subset of ranks is submitting tensors, which will cause deadlock. \nMissing ranks:\n{rng.randrange(W)}: [DistributedAdam_Allreduce/cond_{rng.randint(1, 60)}/HorovodAllreduce_grads_{rng.randint(1, 60)}_0]")
            R.out(0, tf, f"Test set: Average loss: {rng.uniform(0.05, 0.4):.4f}, Accuracy: {rng.uniform(90, 99):.2f}%", "stdout")
            R.t_end, R.exit_code = tf + 5, 0
            R.set_truth(None, notes="Healthy Horovod run; one transient 60 s stall warning that resolves (rank late after checkpoint).")
            return
        r = self.culprit(R)
        n = R.node_of(r)
        stall = "/tmp/pip-install/horovod/common/stall_inspector.cc:107"
        shut = ("horovod.common.exceptions.HorovodInternalError: Horovod has been shut down. This was caused by an exception on one of the ranks or an attempt to allreduce, allgather or broadcast a tensor after one of the ranks finished execution. "
                "If the shutdown was caused by an exception, you should see the exception in the log before the first shutdown message.")

        def others_shutdown(t1):
            for x in range(W):
                if x == r or (W > 32 and x % 6):
                    continue
                R.out(x, t1 + rng.uniform(0, 2), "\n".join(["Traceback (most recent call last):", '  File "train_hvd.py", line 211, in <module>', "    train(epoch)",
                                                             '  File "train_hvd.py", line 148, in train', "    optimizer.step()",
                                                             '  File "/usr/local/lib/python3.10/dist-packages/horovod/torch/optimizer.py", line 255, in step', "    self.synchronize()",
                                                             '  File "/usr/local/lib/python3.10/dist-packages/horovod/torch/mpi_ops.py", line 1054, in synchronize', "    mpi_lib.horovod_torch_wait_and_clear(handle)",
                                                             "RuntimeError: " + shut if rng.random() < 0.3 else shut]))

        def mpirun_exit(t1, sig=None, code=1):
            if R.meta["pf"] != "ssh":
                R.drv(t1, "--------------------------------------------------------------------------")
            if sig:
                nm = {9: "Killed", 11: "Segmentation fault", 6: "Aborted"}[sig]
                R.drv(t1 + 0.1, "--------------------------------------------------------------------------\n"
                                f"mpirun noticed that process rank {r} with PID {R.pid(r)} on node {n.host} exited on signal {sig} ({nm}).\n"
                                "--------------------------------------------------------------------------")
            else:
                R.drv(t1 + 0.1, "--------------------------------------------------------------------------\n"
                                "Primary job  terminated normally, but 1 process returned\na non-zero exit code. Per user-direction, the job has been aborted.\n"
                                "--------------------------------------------------------------------------\n"
                                "--------------------------------------------------------------------------\n"
                                "mpirun detected that one or more processes exited with non-zero status, thus causing\nthe job to be terminated. The first process to do so was:\n\n"
                                f"  Process name: [[{rng.randint(10000, 60000)},1],{r}]\n  Exit code:    {code}\n"
                                "--------------------------------------------------------------------------")

        if cause in ("hang", "collective_mismatch"):
            for k in range(rng.randint(2, 4)):
                tt = tf + 60 * (k + 1)
                if cause == "hang":
                    miss = f"Missing ranks:\n{r}: [DistributedAdam_Allreduce/cond_{rng.randint(1, 90)}/HorovodAllreduce_grads_{rng.randint(1, 90)}_0, DistributedAdam_Allreduce/cond_{rng.randint(1, 90)}/HorovodAllreduce_grads_{rng.randint(1, 90)}_0 ...]"
                else:
                    odd = "HorovodAllgather_embedding_lookup_0"
                    others_list = ", ".join(str(x) for x in range(W) if x != r)
                    miss = (f"Missing ranks:\n{r}: [HorovodAllreduce_dense_kernel_grad_0, HorovodAllreduce_dense_bias_grad_0]\n"
                            + "\n".join(f"{x}: [{odd}]" for x in range(W) if x != r and x < 12) + ("\n..." if W > 12 else ""))
                R.out(0, tt, f"[{f_pylog(R.lt(0, tt))}: W {stall}] One or more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting for remainder of ranks for more than 60 seconds. This may indicate that different ranks are trying to submit different tensors or that only subset of ranks is submitting tensors, which will cause deadlock. \n{miss}")
            tk = tf + 60 * 5
            R.ev(tk, "user_cancel", None)
            R.drv(tk, "mpirun: Forwarding signal 15 to job" if R.meta["pf"] == "ssh" else "")
            if cause == "hang":
                R.set_truth("hang", r, n.idx, True, f"Rank {r} on {n.host} stops submitting tensors; Horovod's stall inspector lists it as the missing rank until the job is killed.")
            else:
                R.set_truth("collective_mismatch", r, n.idx, True, f"Rank {r} on {n.host} submits an allgather (embedding) while all others submit the dense-gradient allreduces; the stall inspector shows the split.")
            R.t_end, R.exit_code = tk + 5, 143
            return
        if cause == "crash_signal":
            R.out(r, tf, f"[{n.host}:{R.pid(r)}] *** Process received signal ***\n[{n.host}:{R.pid(r)}] Signal: Segmentation fault (11)\n[{n.host}:{R.pid(r)}] Signal code: Address not mapped (1)\n"
                         f"[{n.host}:{R.pid(r)}] Failing at address: 0x{hexid(rng, 4)}\n[{n.host}:{R.pid(r)}] [ 0] /lib/x86_64-linux-gnu/libc.so.6(+0x42520)[0x7f{hexid(rng, 10)}]\n"
                         f"[{n.host}:{R.pid(r)}] [ 1] /usr/local/lib/python3.10/dist-packages/horovod/torch/mpi_lib_v2.cpython-310-x86_64-linux-gnu.so(+0x{hexid(rng, 5)})[0x7f{hexid(rng, 10)}]\n"
                         f"[{n.host}:{R.pid(r)}] *** End of error message ***")
            mpirun_exit(tf + 3, sig=11)
            R.set_truth("crash_signal", r, n.idx, True, f"Rank {r} on {n.host} segfaults in the Horovod extension; mpirun reports signal 11 for that rank.")
        elif cause == "python_exception":
            R.out(r, tf, "\n".join(["Traceback (most recent call last):", '  File "train_hvd.py", line 211, in <module>', "    train(epoch)",
                                    '  File "train_hvd.py", line 131, in train', "    for batch_idx, (data, target) in enumerate(train_loader):",
                                    '  File "/app/datasets/parquet_ds.py", line 57, in __getitem__', "    img = self.decode(row['image'])",
                                    "PIL.UnidentifiedImageError: cannot identify image file <_io.BytesIO object at 0x7f3c5c1b2e80>"]))
            others_shutdown(tf + 2)
            mpirun_exit(tf + 5)
            R.set_truth("python_exception", r, n.idx, True, f"Rank {r} on {n.host} raises UnidentifiedImageError; Horovod shuts down on the others; mpirun names process rank {r}.")
        elif cause == "host_oom_kill":
            k_oom(R, rng, n.idx, tf, R.pid(r), "python", None)
            R.meta["evidence_kernel"] = True
            others_shutdown(tf + 2)
            mpirun_exit(tf + 5, sig=9)
            R.set_truth("host_oom_kill", r, n.idx, True, f"Linux OOM killer kills rank {r} on {n.host}; mpirun reports signal 9 (Killed).")
        elif cause == "network":
            R.k(n.idx, tf, f"mlx5_core 0000:{rng.choice(['0c', '1a', '9a'])}:00.0: mlx5_port_event:361:(pid 0): Port: 1 Link DOWN")
            R.meta["evidence_kernel"] = True
            for x in range(W):
                if W > 32 and x % 6 and x != r:
                    continue
                tx = tf + rng.uniform(1, 10)
                R.out(x, tx, f"{R.node_of(x).host.split('.')[0]}:{R.pid(x)}:{R.pid(x) + 90} [{x - R.node_of(x).first_rank}] transport/net_ib.cc:1697 NCCL WARN NET/IB : Got completion from peer {n.ip}<{rng.randint(30000, 60000)}> with status=12 opcode=0 len=0 vendor err 129 (Send) localGid ::ffff:{R.node_of(x).ip} remoteGids::ffff:{n.ip} hca mlx5_{rng.randint(0, 3)}" if R.node_of(x).idx != n.idx else
                      f"{n.host.split('.')[0]}:{R.pid(x)}:{R.pid(x) + 90} [{x - n.first_rank}] transport/net_ib.cc:1295 NCCL WARN NET/IB : mlx5_0:1 async fatal event: port error")
            others_shutdown(tf + 15)
            mpirun_exit(tf + 20)
            R.set_truth("network", n.first_rank, n.idx, True, f"IB port on {n.host} goes down; NCCL completions to {n.ip} fail and Horovod shuts down.")
        R.t_end, R.exit_code = tf + 30, 1


# =============================================================================== PaddlePaddle
class PaddleStack(BaseStack):
    name = "paddle"
    causes = ["crash_signal", "cuda_oom", "python_exception", "network", "gpu_hardware", "host_oom_kill"]
    ssh_launcher = "paddle"

    def shape(self, R):
        rng = self.rng
        return rng.choice([2, 2, 4, 4, 8]), 8

    def launch(self, R, ni, t, lvl, msg):
        return f"LAUNCH {lvl} {f_pylog(R.lt(ni, t))} {msg}"

    def run(self, R: Run, cause):
        rng = self.rng
        R.meta["per_node_logs"] = "local"
        R.meta["image"] = "paddlepaddle/paddle:2.6.1-gpu-cuda12.0-cudnn8.9-trt8.6"
        W = R.world
        t = R.t0
        pod = [alnum(rng, 6, "abcdefghijklmnopqrstuvwxyz") for _ in R.nodes]
        for n in R.nodes:
            for ln in ["-----------  Configuration  ----------------------", "devices: None", f"elastic_level: -1", f"gpus: 0,1,2,3,4,5,6,7",
                       f"ips: {','.join(m.ip for m in R.nodes[:4])}{'...' if len(R.nodes) > 4 else ''}", "job_id: default", "log_dir: log", f"master: {R.nodes[0].ip}:8090",
                       f"nnodes: {len(R.nodes)}", "nproc_per_node: None", f"rank: {n.idx}", "run_mode: collective", "------------------------------------------------"]:
                R.agent(n.idx, t, self.launch(R, n.idx, t, "INFO", ln))
            R.agent(n.idx, t + 2, self.launch(R, n.idx, t + 2, "INFO", f"Job: default, mode collective, replicas {len(R.nodes)}[{len(R.nodes)}:{len(R.nodes)}], elastic False"))
            R.agent(n.idx, t + 3, self.launch(R, n.idx, t + 3, "INFO", f"Waiting peer start..."))
            R.agent(n.idx, t + 8, self.launch(R, n.idx, t + 8, "INFO", f"Run Pod: {pod[n.idx]}, replicas {R.gpn}, status ready"))
            R.agent(n.idx, t + 9, self.launch(R, n.idx, t + 9, "INFO", f"Watching Pod: {pod[n.idx]}, replicas {R.gpn}, status running"))
        for r in range(W):
            R.out(r, t + 12, f"I{utc(R.lt(R.node_of(r).idx, t + 12)).strftime('%m%d %H:%M:%S')}.{rng.randint(100000, 999999)} {R.pid(r)} tcp_utils.cc:130] Successfully connected to {R.nodes[0].ip}:8090" if r % 3 == 0 else
                  f"[{f_pylog(R.lt(R.node_of(r).idx, t + 12))}] [    INFO] distributed_strategy.py:160 - distributed strategy initialized")
        dur = rng.uniform(1200, 3600 * 12)
        tf = t + dur
        nstep = rng.randint(40, 120)
        for k in range(nstep):
            tt = t + 30 + (tf - t - 30) * k / nstep
            R.out(0, tt, f"[{f_pylog(R.lt(0, tt))}] [    INFO] - global step {k * 10}, epoch: 0, batch: {k * 10}, loss: {rng.uniform(1.5, 4):.6f}, avg_reader_cost: {rng.uniform(0.0001, 0.002):.5f} sec, avg_batch_cost: {rng.uniform(0.5, 2):.5f} sec, speed: {rng.uniform(0.5, 2):.2f} step/s, ips_total: {rng.randint(5000, 90000)} tokens/s, learning rate: {rng.uniform(1e-5, 1e-4):.5e}", "stdout")
        if cause is None:
            R.out(rng.randrange(W), t + 40, f"W{utc(R.lt(0, t + 40)).strftime('%m%d %H:%M:%S')}.{rng.randint(100000, 999999)} {R.pid(0)} gpu_resources.cc:119] Please NOTE: device: 0, GPU Compute Capability: 9.0, Driver API Version: 12.4, Runtime API Version: 12.0")
            for n in R.nodes:
                R.agent(n.idx, tf + 2, self.launch(R, n.idx, tf + 2, "INFO", f"Pod completed"))
                R.agent(n.idx, tf + 2.1, self.launch(R, n.idx, tf + 2.1, "INFO", "Exit code 0"))
            R.t_end, R.exit_code = tf + 3, 0
            R.set_truth(None, notes="Healthy Paddle collective run; GPU compute-capability NOTE warnings only.")
            return
        r = self.culprit(R)
        n = R.node_of(r)
        loc = r - n.first_rank
        err_tail = []
        if cause == "crash_signal":
            err_tail = ["", "", "--------------------------------------", "C++ Traceback (most recent call last):", "--------------------------------------",
                        "0   paddle::framework::StandaloneExecutor::Run(std::vector<std::string, std::allocator<std::string > > const&, bool)",
                        "1   paddle::framework::InterpreterCore::Run(std::vector<std::string, std::allocator<std::string > > const&, bool)",
                        "2   paddle::distributed::ProcessGroupNCCL::AllReduce(phi::DenseTensor*, phi::DenseTensor const&, paddle::distributed::AllreduceOptions const&, bool, bool)",
                        "", "----------------------", "Error Message Summary:", "----------------------",
                        "FatalError: `Segmentation fault` is detected by the operating system.",
                        f"  [TimeInfo: *** Aborted at {int(R.lt(n.idx, tf))} (unix time) try \"date -d @{int(R.lt(n.idx, tf))}\" if you are using GNU date ***]",
                        f"  [SignalInfo: *** SIGSEGV (@0x0) received by PID {R.pid(r)} (TID 0x7f{hexid(rng, 10)}) from PID 0 ***]", ""]
            note = f"Worker {r} (workerlog.{loc} on {n.host}) segfaults in ProcessGroupNCCL::AllReduce (Paddle FatalError SIGSEGV)."
        elif cause == "cuda_oom":
            err_tail = ["Traceback (most recent call last):", '  File "run_pretrain.py", line 498, in <module>', "    main()", '  File "run_pretrain.py", line 470, in main',
                        "    loss = model(input_ids, labels=labels)", "MemoryError: ", "", "--------------------------------------", "C++ Traceback (most recent call last):",
                        "--------------------------------------", "0   paddle::memory::allocation::CUDAAllocator::AllocateImpl(unsigned long)", "",
                        "----------------------", "Error Message Summary:", "----------------------",
                        f"ResourceExhaustedError: ", "", f"Out of memory error on GPU {loc}. Cannot allocate {rng.uniform(0.5, 8):.6f}GB memory on GPU {loc}, {rng.uniform(76, 79):.6f}GB memory has been allocated and available memory is only {rng.uniform(10, 400):.6f}MB.",
                        "", f"Please check whether there is any other process using GPU {loc}.", "1. If yes, please stop them, or start PaddlePaddle on another GPU.",
                        "2. If no, please decrease the batch size of your model. ", " (at /paddle/paddle/fluid/memory/allocation/cuda_allocator.cc:86)", ""]
            note = f"Worker {r} ({n.host}, local GPU {loc}) hits ResourceExhaustedError (GPU OOM)."
        elif cause == "python_exception":
            err_tail = ["Traceback (most recent call last):", '  File "run_pretrain.py", line 498, in <module>', "    main()", '  File "run_pretrain.py", line 455, in main',
                        "    for step, batch in enumerate(train_data_loader):", '  File "/workspace/PaddleNLP/paddlenlp/data/indexed_dataset.py", line 312, in __getitem__',
                        "    ptr, size = self._index[idx]", "IndexError: index 3948211 is out of bounds for axis 0 with size 3948210"]
            note = f"Worker {r} ({n.host}) raises IndexError in the indexed dataset."
        elif cause in ("network", "gpu_hardware"):
            if cause == "network":
                R.k(n.idx, tf, f"mlx5_core 0000:{rng.choice(['0c', '1a', '9a'])}:00.0: mlx5_port_event:361:(pid 0): Port: 1 Link DOWN")
                msg = f"ExternalError: Nccl error(5), remote process exited or there was a network error.\n  [Hint: 'ncclRemoteError'. A call failed possibly due to a network error or a remote process exiting prematurely.] (at /paddle/paddle/fluid/distributed/collective/process_group_nccl.cc:{rng.randint(150, 900)})"
                note = f"IB port on {n.host} goes down; NCCL fails on its workers first, then everywhere."
            else:
                k_xid(R, rng, n.idx, tf, loc, 79)
                msg = f"ExternalError: CUDA error(999), unknown error. \n  [Hint: 'cudaErrorUnknown'. This indicates that an unknown internal error has occurred. ] (at /paddle/paddle/phi/backends/gpu/cuda/cuda_info.cc:{rng.randint(200, 300)})"
                note = f"Xid 79 on {n.host} GPU {n.bus[loc]} (local GPU {loc}); worker {r} reports CUDA error 999."
            R.meta["evidence_kernel"] = True
            err_tail = ["Traceback (most recent call last):", '  File "run_pretrain.py", line 470, in main', "    loss.backward()", "", "----------------------",
                        "Error Message Summary:", "----------------------"] + msg.split("\n")
        elif cause == "host_oom_kill":
            k_oom(R, rng, n.idx, tf, R.pid(r), "python", None)
            R.meta["evidence_kernel"] = True
            note = f"Linux OOM killer kills worker {r} (pid {R.pid(r)}) on {n.host}."
        if err_tail:
            R.out(r, tf, "\n".join(err_tail))
        # other workers fail in NCCL after the peer disappears
        for x in range(W):
            if x == r or (W > 32 and x % 5):
                continue
            tx = tf + rng.uniform(20, 120) if cause != "network" else tf + rng.uniform(1, 20)
            R.out(x, tx, "\n".join(["----------------------", "Error Message Summary:", "----------------------",
                                    f"ExternalError: Nccl error(5), remote process exited or there was a network error.",
                                    f"  [Hint: 'ncclRemoteError'. A call failed possibly due to a network error or a remote process exiting prematurely.] (at /paddle/paddle/fluid/distributed/collective/process_group_nccl.cc:{rng.randint(150, 900)})"]))
        code = {"crash_signal": -11, "host_oom_kill": -9}.get(cause, 1)
        R.agent(n.idx, tf + 3, self.launch(R, n.idx, tf + 3, "ERROR", f"Pod {pod[n.idx]} failed ..."))
        R.agent(n.idx, tf + 3.1, self.launch(R, n.idx, tf + 3.1, "INFO", "------------------------- ERROR LOG DETAIL -------------------------"))
        for l in (err_tail[-12:] if err_tail else []):
            R.agent(n.idx, tf + 3.2, l)
        R.agent(n.idx, tf + 3.3, self.launch(R, n.idx, tf + 3.3, "ERROR", f"Container failed !!!\nContainer rank {loc} status failed cmd ['python', '-u', 'run_pretrain.py', '--config', 'pretrain.yaml'] code {code} log log/workerlog.{loc}"))
        R.agent(n.idx, tf + 3.4, self.launch(R, n.idx, tf + 3.4, "INFO", f"Exit code {code}"))
        for m in R.nodes:
            if m.idx != n.idx:
                R.agent(m.idx, tf + 130, self.launch(R, m.idx, tf + 130, "ERROR", f"Pod {pod[m.idx]} failed ..."))
                R.agent(m.idx, tf + 130.1, self.launch(R, m.idx, tf + 130.1, "INFO", "Exit code 1"))
        R.set_truth(cause, r if cause != "network" else n.first_rank, n.idx, True, note)
        R.t_end, R.exit_code = tf + 140, 1
