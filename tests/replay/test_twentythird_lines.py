"""The twenty-third session's cases: Ray Train's controller retrying a worker group that could not
start and then training on; NCCL failing to free a communicator as vLLM's workers destroy their
process groups after the work finished; a device-side assert in the traceback torchelastic's
summary prints for the rank that failed; SkyPilot's "Cluster is preempted or failed"; NCCL's
InfiniBand transport warning of a DOCA failure; a collector's stamp and pod name before
"[rankN]:"; UCX failing to create an InfiniBand address handle; every rank destroying its
communicator after the store's host left; a JAX barrier that timed out; a Ray actor raising the
same caught error again and again; detectron2's log.txt.rankN files and its launches appended to
one log.txt, some ended by hand without an error between them."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import causes_of, incidents_of

RAY = "\x1b[36m(TrainController pid=152042)\x1b[0m "
WORKER = "\x1b[36m(RayTrainWorker pid=3684, ip=10.0.103.116)\x1b[0m "


def _ray_train(after: str) -> str:
    head = [RAY + "[State Transition] INITIALIZING -> SCHEDULING.",
            RAY + "[FailurePolicy] RETRY",
            RAY + "  Source: controller",
            RAY + "Error: Training failed due to controller error:",
            RAY + "The worker group startup timed out after 60.0 seconds waiting for 2 workers.",
            RAY + "Traceback (most recent call last):",
            RAY + '  File "/opt/ray/train/v2/_internal/execution/controller/controller.py", line 414, in _start_worker_group',
            RAY + "    self._worker_group = self.worker_group_cls.create(",
            RAY + '  File "/opt/ray/train/v2/_internal/execution/worker_group/worker_group.py", line 299, in _start_impl',
            RAY + "    raise WorkerGroupStartupTimeoutError(",
            RAY + "ray.train.ControllerError: Training failed due to controller error:",
            RAY + "The worker group startup timed out after 60.0 seconds waiting for 2 workers.",
            after,
            RAY + "[State Transition] RESCHEDULING -> SCHEDULING.",
            RAY + "[State Transition] SCHEDULING -> RUNNING."]
    steps = [WORKER + f"{{'loss': {2.0 - i / 100:.3f}, 'learning_rate': 1e-05, 'epoch': {i / 40:.3f}}}" for i in range(40)]
    return "\n".join(head + steps) + "\n"


def test_ray_train_retrying_a_worker_group_that_then_trains_is_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    log = _ray_train(RAY + "[State Transition] SCHEDULING -> RESCHEDULING.")
    assert causes_of(tmp_path / "retried", {"train.log": log}, ruleset) == []
    # (without the controller's retry, the same error is the run's failure)
    got = causes_of(tmp_path / "failed", {"train.log": _ray_train(RAY + "[State Transition] SCHEDULING -> ERRORED.")}, ruleset)
    assert got[:1] == [Cause.PYTHON_EXCEPTION]


VLLM = "\x1b[36m(MapWorker(MapBatches(vLLMEngineStageUDF)) pid=3192, ip=10.0.49.196)\x1b[0m "


def _teardown(rank: int, frames: list[str]) -> list[str]:
    me = VLLM + f"\x1b[1;36m(VllmWorker rank={rank} pid={3400 + rank})\x1b[0;0m "
    return [me + "Traceback (most recent call last):",
            me + '  File "/opt/vllm/v1/executor/multiproc_executor.py", line 287, in shutdown',
            me + "    destroy_model_parallel()",
            *[me + f for f in frames],
            me + "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:133, "
                 "unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5",
            me + "ncclUnhandledCudaError: Call to CUDA function failed.",
            me + "Last error:",
            me + "Cuda failure 'out of memory'"]


def test_nccl_failing_as_the_process_groups_are_destroyed_is_the_shutdown_s(tmp_path: Path, ruleset: RuleSet) -> None:
    destroy = ['  File "/opt/torch/distributed/distributed_c10d.py", line 2168, in destroy_process_group',
               "    _shutdown_backend(pg)",
               '  File "/opt/torch/distributed/distributed_c10d.py", line 1815, in _shutdown_backend',
               "    backend._shutdown()"]
    done = ["2025-04-29 15:42:40,080\tINFO streaming_executor.py:218 -- Dataset dataset_36_0 execution finished in 686.56 seconds",
            VLLM + "Shutting down vLLM engine"]
    log = "\n".join(done + _teardown(3, destroy) + _teardown(2, destroy)) + "\n"
    assert causes_of(tmp_path / "teardown", {"train.log": log}, ruleset) == []
    # (the same error in a collective of the work itself stays the cause)
    working = ['  File "/opt/torch/distributed/distributed_c10d.py", line 2501, in all_reduce',
               "    work = group.allreduce([tensor], opts)"]
    log = "\n".join(done[:1] + _teardown(3, working)) + "\n"
    assert causes_of(tmp_path / "working", {"train.log": log}, ruleset)[:1] == [Cause.CUDA_OOM]


def _summary(traceback: list[str]) -> str:
    lines = ["E0529 09:14:54.123000 162307 torch/distributed/elastic/multiprocessing/api.py:882] failed (exitcode: -6) "
             "local_rank: 1 (pid: 162380) of binary: /usr/bin/python3",
             "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
             "============================================================",
             "train.py FAILED",
             "------------------------------------------------------------",
             "Failures:",
             "[1]:",
             "  time      : 2026-05-29_09:14:54", "  host      : f59652d27037", "  rank      : 0 (local_rank: 0)",
             "  exitcode  : -15 (pid: 162379)", "  error_file: <N/A>", "  traceback : Signal 15 (SIGTERM) received by PID 162379",
             "------------------------------------------------------------",
             "Root Cause (first observed failure):",
             "[0]:",
             "  time      : 2026-05-29_09:14:51", "  host      : f59652d27037", "  rank      : 1 (local_rank: 1)",
             "  exitcode  : -6 (pid: 162380)", "  error_file: /tmp/torchelastic_9n/attempt_0/1/error.json",
             "  traceback : Traceback (most recent call last):",
             *traceback,
             "============================================================"]
    return "\n".join(lines) + "\n"


def test_the_error_in_a_failed_rank_s_summary_entry_is_that_rank_s(tmp_path: Path, ruleset: RuleSet) -> None:
    frames = [f'    File "/opt/model/layer{i}.py", line {100 + i}, in forward\n      x = self.inner(x)' for i in range(80)]
    frames = "\n".join(frames).split("\n")
    log = _summary([*frames, "  RuntimeError: Triton Error [CUDA]: device-side assert triggered", "  "])
    got = incidents_of(tmp_path / "assert", {"train.log": log}, ruleset)
    assert [(i.cause, i.rank, i.node) for i in got][:1] == [(Cause.ILLEGAL_MEMORY_ACCESS, 1, "f59652d27037")]
    # (an entry without an error of its own: the abort is what the summary says)
    got = incidents_of(tmp_path / "abort", {"train.log": _summary(['    File "/opt/train.py", line 9, in main', "      step()"])}, ruleset)
    assert [(i.cause, i.rank) for i in got][:1] == [(Cause.CRASH_SIGNAL, 1)]


def test_skypilot_s_cluster_preempted_or_failed_is_a_preemption(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("I 09-12 22:49:49 controller.py:545] Cluster is preempted or failed. Recovering...\n"
           "I 09-12 22:49:49 recovery_strategy.py:501]   Traceback: Traceback (most recent call last):\n"
           'I 09-12 22:49:49 recovery_strategy.py:501]   File "/opt/sky/jobs/recovery_strategy.py", line 421, in _launch\n')
    assert causes_of(tmp_path, {"controller.log": log}, ruleset)[:1] == [Cause.PREEMPTION]


def test_a_warning_of_nccl_s_infiniband_transport_is_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    log = "".join(f"worker-0:862519:86255{g} [{g}] transport/net_ib/gdaki/gin_host_gdaki.cc:431 (gdakiConnectQp) NCCL WARN DOCA failure 21\n"
                  f"worker-0:862519:86255{g} [{g}] NCCL INFO transport/net_ib/gdaki/gin_host_gdaki.cc:683 (ncclGinGdakiCreateContext) -> 2\n"
                  for g in (0, 1))
    got = incidents_of(tmp_path / "doca", {"nccl-tests.log": log}, ruleset)
    assert [(i.cause, i.node) for i in got][:1] == [(Cause.NETWORK, "worker-0")]
    # (the subnet manager's news, and a device NCCL could not open and went on without, are not)
    log = ("gpu1:5021:5386 [0] transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : client reregistration\n"
           "gpu1:5021:5386 [0] transport/net_ib.cc:301 NCCL WARN NET/IB : Unable to open device mlx5_3\n")
    assert causes_of(tmp_path / "news", {"train.log": log}, ruleset) == []
    # (a completion error its own rule could not read, garbled, after a rank died: not claimed)
    log = ("2025-07-08 01:41:39,100 [default0]:torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 768.00 MiB.\n"
           "2025-07-08 01:41:40,282 [default2]:dgx-a100-27:812298:812561 [2] transport/net_ib.cc:2264 NCCL WARN NET/IB : "
           "Got completion from peer 10.42.30.6<51550> with status=12 opcode=1 len=65536 vendor crr 129 (Recv)\n")
    assert causes_of(tmp_path / "garbled", {"train.log": log}, ruleset)[:1] == [Cause.CUDA_OOM]


def test_a_collector_s_stamp_and_pod_before_the_rank_prefix(tmp_path: Path, ruleset: RuleSet) -> None:
    lead = "2026-01-09 17:40:31.1692{} master-0 >> "
    log = "\n".join([lead.format(10) + " validation loss at iteration 10000 | lm loss value: 3.893978E-01",
                     lead.format(13) + "[rank7]: Traceback (most recent call last):",
                     lead.format(45) + '[rank7]:   File "/opt/swift/cli/_megatron/sft.py", line 7, in <module>',
                     lead.format(49) + "[rank7]:     megatron_sft_main()",
                     lead.format(55) + "[rank7]: OSError: [Errno 28] No space left on device"]) + "\n"
    got = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert [(i.cause, i.rank, i.node) for i in got][:1] == [(Cause.PYTHON_EXCEPTION, 7, "master-0")]


def test_ucx_failing_to_create_an_infiniband_address_handle_is_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("ib_device.c:1171 UCX  ERROR   ibv_create_ah(dlid=49152 sl=0 port=1 src_path_bits=0 dgid=::ffff:10.0.0.40 "
           "flow_label=0xffffffff sgid_index=3 traffic_class=106) for RC DEVX QP connect on mlx5_bond_0 failed: Connection timed out\n"
           "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n"
           "slurmstepd: error: *** JOB 150 ON hgx CANCELLED AT 2024-10-02T03:03:04 ***\n")
    assert causes_of(tmp_path, {"slurm-150.out": log}, ruleset)[:1] == [Cause.NETWORK]


def _store_left(rank: int, host: str, *, destroyed: bool) -> list[str]:
    lines = [f'[rank{rank}]:[W819 19:26:57.159800401 ProcessGroupNCCL.cpp:1783] [PG ID 0 PG GUID 0(default_pg) Rank {rank}] '
             'Failed to check the "should dump" flag on TCPStore, (maybe TCPStore server has shut down too early), '
             "with error: Failed to recv, got 0 bytes. Connection was likely closed."]
    if destroyed:
        lines.append(f"{host}:5652{rank}:5652{rank} [{rank % 4}] NCCL INFO comm 0xa62f43{rank} rank {rank} nranks 8 "
                     f"cudaDev {rank % 4} busId e4000 - Destroy COMPLETE")
    return lines


def test_the_store_gone_before_each_rank_destroyed_its_communicator_is_the_shutdown(tmp_path: Path, ruleset: RuleSet) -> None:
    log = "\n".join(_store_left(3, "x3115c0s29b0n0", destroyed=True) + _store_left(7, "x3115c0s33b0n0", destroyed=True)) + "\n"
    assert causes_of(tmp_path / "destroyed", {"test.log": log}, ruleset) == []
    log = "\n".join(_store_left(3, "x3115c0s29b0n0", destroyed=True) + _store_left(7, "x3115c0s33b0n0", destroyed=False)) + "\n"
    assert causes_of(tmp_path / "one_not", {"test.log": log}, ruleset) != []


def test_a_jax_barrier_that_timed_out_is_a_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("Traceback (most recent call last):\n"
           '  File "/opt/levanter/src/levanter/utils/jax_utils.py", line 104, in multihost_broadcast_sync\n'
           '    client.wait_at_barrier(f"multihost_broadcast_sync{_sync_counter}", timeout_in_ms=int(timeout * 1000.0))\n'
           "jaxlib._jax.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Id: multihost_broadcast_sync1\n")
    assert causes_of(tmp_path, {"tpu_worker.log": log}, ruleset)[:1] == [Cause.HANG]


def _actor_errors(pids: list[int], steps: int) -> str:
    lines = []
    for n, pid in enumerate(pids):
        me = f"\x1b[36m(CursorLoopWorker pid={pid})\x1b[0m "
        lines += [me + "ERROR:2025-11-19 19:07:43,953:Traceback (most recent call last):",
                  me + '  File "/opt/cursor/env_and_state.py", line 266, in _extract_action',
                  me + '    raise ValueError(f"step {self.step_idx} - extract action failed from: {output_text}")',
                  me + f"ValueError: step 0 - extract action failed from: Thought: sample {n}",
                  me + f"ERROR:2025-11-19 19:07:43,953:Error extracting action for item {n}"]
    lines += [f"\x1b[36m(TaskRunner pid=99)\x1b[0m step:{i} - actor/loss:0.01 - timing_s/step:520.3" for i in range(1, steps)]
    return "\n".join(lines) + "\n"


def test_an_actor_raising_the_same_error_again_and_again_survived_it(tmp_path: Path, ruleset: RuleSet) -> None:
    caught = _actor_errors([2036800, 2036796, 2036800, 2036796, 2036800, 2036796], steps=40)
    assert causes_of(tmp_path / "caught", {"verl_demo.log": caught}, ruleset) == []
    # (twice from a pid is no proof it lived on: the error stays)
    once = _actor_errors([2036800, 2036796, 2036800], steps=40)
    assert causes_of(tmp_path / "twice", {"verl_demo.log": once}, ruleset)[:1] == [Cause.PYTHON_EXCEPTION]


def _detectron_launch(world: int, *, oom: bool, iters: int) -> list[str]:
    lines = [f"[12/30 03:33:42] detectron2 INFO: Rank of current process: 0. World size: {world}",
             "[12/30 03:33:44] detectron2 INFO: Environment info:",
             "sys.platform            linux",
             "Python                  3.8.10 (default, Mar 15 2022, 12:22:08) [GCC 9.4.0]",
             "numpy                   1.24.1",
             "detectron2              0.6 @/tmp/detection/detectron2",
             "[12/30 03:33:45] detectron2 INFO: Command line arguments: Namespace(config_file='configs/coco.yaml', num_gpus=6)",
             "[12/30 03:33:46] d2.engine.defaults INFO: Model: GeneralizedRCNN(",
             "[12/30 03:33:50] d2.data.build INFO: Using training sampler TrainingSampler",
             "[12/30 03:33:52] d2.engine.train_loop INFO: Starting training from iteration 0"]
    lines += [f"[12/30 03:{34 + i // 60:02d}:{i % 60:02d}] d2.utils.events INFO:  eta: 1:10:00  iter: {i * 20}  total_loss: 1.2  "
              "lr: 0.02  max_mem: 1646M" for i in range(iters)]
    if oom:
        lines += ["Traceback (most recent call last):",
                  '  File "/opt/torch/nn/modules/_functions.py", line 101, in forward',
                  "    return torch.batch_norm_elemt(input, weight, bias, mean, invstd, eps)",
                  "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 110.00 MiB (GPU 0; 23.70 GiB total capacity)",
                  "[12/30 03:32:51] d2.engine.hooks INFO: Total training time: 0:00:08 (0:00:00 on hooks)"]
    return lines


def test_detectron2_s_rank_files_and_launches_appended_to_its_log(tmp_path: Path, ruleset: RuleSet) -> None:
    # launches: one stopped by hand (no error), one out of memory, one stopped by hand, then the last, training
    launches = (_detectron_launch(2, oom=False, iters=300) + _detectron_launch(3, oom=True, iters=5)
                + _detectron_launch(2, oom=False, iters=300) + _detectron_launch(6, oom=False, iters=400))
    rank1 = "\n".join(line.replace("process: 0.", "process: 1.") for line in _detectron_launch(6, oom=False, iters=400)) + "\n"
    files = {"log.txt": "\n".join(launches) + "\n", "log.txt.rank1": rank1}
    assert causes_of(tmp_path / "recovered", files, ruleset) == []
    # (the out-of-memory error in the last launch is its failure, on rank 0: log.txt is rank 0's)
    files["log.txt"] = "\n".join(launches + _detectron_launch(6, oom=True, iters=5)) + "\n"
    got = incidents_of(tmp_path / "failed", files, ruleset)
    assert [(i.cause, i.rank) for i in got][:1] == [(Cause.CUDA_OOM, 0)]


def test_skypilot_s_older_task_prefix_is_taken_off(tmp_path: Path, ruleset: RuleSet) -> None:
    me = "(axolotl-hi-2-spot, pid=16959) "
    log = "\n".join([me + "Traceback (most recent call last):",
                     me + '  File "/workspace/axolotl/src/axolotl/train.py", line 126, in train',
                     me + "    trainer.train(resume_from_checkpoint=resume_from_checkpoint)",
                     me + "ValueError: Output directory (./lora-out) already exists and is not empty."]) + "\n"
    got = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert [i.cause for i in got][:1] == [Cause.PYTHON_EXCEPTION]
    from detector.sources.prefixes import strip_prefix
    assert strip_prefix(me + '  File "/x.py", line 1, in f').message == '  File "/x.py", line 1, in f'
