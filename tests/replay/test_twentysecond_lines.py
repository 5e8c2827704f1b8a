"""The twenty-second session's cases: a torchrun summary cut after its exit code; srun failing to
launch a step's tasks; a GPU whose kernel driver timed a job out (Intel xe, i915, amdgpu); AWS
Neuron's runtime failure record; a peer refusing every connection behind NCCL's bare "internal
error"; SkyPilot's controller seeing its cluster preempted; the teardown after Megatron said it
was exiting, or after DeepSpeed's workers exited well; NCCL finding no network plugin on a node;
the tail of Ray's memory monitor report; the ROCm runtime's unplaced "HW Exception ... GPU Hang"
before a rank's abort; a native crash handler's segfault banner; SGLang's traceback headers."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import causes_of, incidents_of


def test_a_summary_cut_after_the_exit_code_still_names_the_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
           "============================================================\n"
           "./train_gpt_demo.py FAILED\n"
           "------------------------------------------------------------\n"
           "Failures:\n  <NO_OTHER_FAILURES>\n"
           "------------------------------------------------------------\n"
           "Root Cause (first observed failure):\n[0]:\n"
           "  time      : 2023-03-07_06:11:16\n  host      : zztf-gpu02\n"
           "  rank      : 0 (local_rank: 0)\n  exitcode  : 1")
    got = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert [(i.cause, i.rank, i.node) for i in got][:1] == [(Cause.PYTHON_EXCEPTION, 0, "zztf-gpu02")]


def test_srun_failing_to_launch_the_tasks_is_a_failure_of_unknown_cause(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("pyxis: imported docker image: docker://hpcreid/openmpi:230130\n"
           "srun: error: slurm_receive_msgs: [[n1.cluster]:6818] failed: Socket timed out on send/recv operation\n"
           "srun: error: Task launch for StepId=96.0 failed on node n2: No such process\n"
           "srun: error: Application launch failed: Socket timed out on send/recv operation\n"
           "srun: Job step aborted\n")
    got = incidents_of(tmp_path, {"96.e": log}, ruleset)
    assert [(i.cause, i.node, i.drain) for i in got][:1] == [(Cause.UNKNOWN, "n2", False)]


def test_a_gpu_job_the_driver_timed_out_and_reset_is_the_gpu(tmp_path: Path, ruleset: RuleSet) -> None:
    for line in ("[Tue Aug  4 20:51:21 2026] xe 0000:2b:00.0: [drm] Tile0: GT0: Timedout job: seqno=1484958, "
                 "lrc_seqno=1484958, guc_id=0, flags=0x73 in no process [-1]\n",
                 "[ 3012.445566] amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 timeout, signaled seq=881, emitted seq=883\n"):
        run = tmp_path / line[:12].strip("[ ]").replace(" ", "_").replace(":", "")
        log = line + line.split("] ", 1)[0] + "] " + line.split("] ", 1)[1].split(":", 1)[0] + ": reset done\n"
        assert causes_of(run, {"dmesg.txt": log}, ruleset)[:1] == [Cause.GPU_HARDWARE]


def test_neuron_s_runtime_failure_is_a_failure_of_unknown_cause(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("2025-Jun-28 22:19:15.504560  8652:8728  ERROR   NRT:nrt_infodump                            "
           "Driver version: 2.19.64.0\n"
           "2025-Jun-28 22:19:15.506590  8652:8728  ERROR   NRT:nrt_infodump                            "
           "Failure: NRT_INVALID in nrt_load()\n")
    assert causes_of(tmp_path, {"train.log": log}, ruleset)[:1] == [Cause.UNKNOWN]


def test_a_peer_refusing_every_connection_explains_nccl_s_internal_error(tmp_path: Path, ruleset: RuleSet) -> None:
    retry = "lrdn1629:236813:236852 [1] NCCL INFO Call to connect returned Connection refused, retrying\n"
    log = ("RuntimeError: NCCL error in: /src/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1269, internal error, "
           "NCCL version 2.14.3\n"
           "lrdn1629:236813:236813 [1] NCCL INFO Bootstrap : Using ib0:10.128.31.149<0>\n"
           "lrdn1629:236813:236852 [1] NCCL INFO Using network IB\n" + retry * 3 + "....\n")
    assert causes_of(tmp_path, {"train.log": log}, ruleset)[:1] == [Cause.NETWORK]


def test_a_bare_internal_error_with_a_cut_traceback_stays_unknown(tmp_path: Path, ruleset: RuleSet) -> None:
    # a traceback cut before its exception line is the internal error's own, not another exception
    log = ("Traceback (most recent call last):\n"
           '  File "/work/train.py", line 12, in <module>\n'
           "    dist.barrier()\n"
           "RuntimeError: NCCL error in: /src/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1269, internal error, "
           "NCCL version 2.14.3\n"
           "Traceback (most recent call last):\n"
           '  File "/work/train.py", line 12, in <module>\n')
    assert causes_of(tmp_path, {"train.log": log}, ruleset)[:1] == [Cause.UNKNOWN]


def test_skypilot_s_controller_seeing_its_cluster_preempted_is_a_preemption(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("(bert-qa pid=920210) I 05-04 00:52:46 controller.py:100] The cluster is preempted.\n"
           "(bert-qa pid=920210) I 05-04 00:52:46 spot_state.py:99] === Recovering... ===\n"
           "(bert-qa pid=920210) E 05-04 00:53:16 backend_utils.py:999] Failed to cancel jobs on cluster bert-qa-39.\n")
    assert causes_of(tmp_path, {"controller.log": log}, ruleset)[:1] == [Cause.PREEMPTION]


_STORE_GONE = ('{r}: [rank{r}]:[W618 16:59:36.27{r}899873 ProcessGroupNCCL.cpp:1815] [PG ID 0 PG GUID 0(default_pg) '
               'Rank {r}] Failed to check the "should dump" flag on TCPStore, (maybe TCPStore server has shut down '
               "too early), with error: Failed to recv, got 0 bytes. Connection was likely closed.\n")


def _megatron(last: str) -> str:
    steps = "".join(f"3:  [2026-06-18 16:59:24.{100 + i:06d}] iteration {i:>8}/     200 | consumed samples: {4 * i:>12} | "
                    f"elapsed time per iteration (ms): 16.5 | lm loss: 1.0E+01 |\n" for i in range(1, 20))
    return steps + last


def test_store_errors_after_megatron_said_it_is_exiting_are_its_shutdown(tmp_path: Path, ruleset: RuleSet) -> None:
    out = _megatron("0: [exiting program after consuming all available data at iteration 19] datetime: "
                    "2026-06-18 16:59:24.372064 \nEND TIME: Thu Jun 18 16:59:38 CEST 2026\n")
    err = "".join(_STORE_GONE.format(r=r) for r in (1, 2))
    assert causes_of(tmp_path, {"2561509.out": out, "2561509.err": err}, ruleset) == []


def test_store_errors_without_a_word_of_exiting_are_still_read(tmp_path: Path, ruleset: RuleSet) -> None:
    out = _megatron("0: [2026-06-18 16:59:24.372064] saving checkpoint at iteration 19\n")
    err = "".join(_STORE_GONE.format(r=r) for r in (1, 2))
    assert causes_of(tmp_path, {"2561509.out": out, "2561509.err": err}, ruleset) != []


_DS_OK = "v100x16-{n}: [2026-04-11 11:24:0{s},202] [INFO] [launch.py:367:main] Process 1438{s}7 exits successfully.\n"
_DS_RESET = ("v100x16-{n}: [rank{r}]:[W411 11:24:0{s}.688070690 TCPStore.cpp:125] [c10d] recvValue failed on "
             "SocketImpl(fd=114, addr=[v100x16-{n}]:45678, remote=[v100x16-1]:29500): Connection reset by peer\n"
             "v100x16-{n}: [rank{r}]:[W411 11:24:0{s}.692755094 ProcessGroupNCCL.cpp:1771] [PG ID 0 PG GUID 0(default_pg) "
             'Rank {r}] Failed to check the "should dump" flag on TCPStore, (maybe TCPStore server has shut down too '
             "early), with error: Connection reset by peer\n")


def test_store_resets_after_deepspeed_s_workers_exited_well_are_the_shutdown(tmp_path: Path, ruleset: RuleSet) -> None:
    log = (_DS_OK.format(n=2, s=1) + _DS_RESET.format(n=1, r=3, s=2) + _DS_OK.format(n=1, s=3)
           + _DS_RESET.format(n=2, r=11, s=4))
    assert causes_of(tmp_path, {"train.log": log}, ruleset) == []


def test_a_worker_that_failed_keeps_the_store_resets_in_play(tmp_path: Path, ruleset: RuleSet) -> None:
    failed = ("v100x16-1: [2026-04-11 11:24:05,999] [ERROR] [launch.py:324:sigkill_handler] ['/usr/bin/python3', "
              "'-u', 'pretrain_gpt.py', '--local_rank=3'] exits with return code = 1\n")
    log = (_DS_OK.format(n=2, s=1) + _DS_RESET.format(n=1, r=3, s=2) + failed + _DS_RESET.format(n=2, r=11, s=6))
    assert causes_of(tmp_path, {"train.log": log}, ruleset) != []


def test_no_network_plugin_on_a_node_is_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    log = "".join(f"{r}: torch.distributed.DistBackendError: NCCL error in: /opt/pytorch/torch/csrc/distributed/c10d/"
                  f"NCCLUtils.cpp:93, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.29.3\n"
                  f"{r}: ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\n"
                  f"{r}: Last error:\n{r}: Failed to initialize any NET plugin\n" for r in (34, 35))
    log += "srun: error: nid006742: tasks 32-35: Exited with exit code 1\n"
    got = incidents_of(tmp_path, {"2611382.err": log}, ruleset)
    assert [(i.cause, i.node) for i in got][:1] == [(Cause.NETWORK, "nid006742")]


def test_the_tail_of_ray_s_memory_monitor_report_is_the_host_s_memory(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("2025-04-24 18:57:03,337 INFO cli.py:86 -- Status message: Job entrypoint command failed with exit code 1\n"
           "95412   14.05   ray::LLMRayActor\n95410   13.86   ray::LLMRayActor\n"
           "Refer to the documentation on how to address the out of memory issue: https://docs.ray.io/en/latest/"
           "ray-core/scheduling/ray-oom-prevention.html. Consider provisioning more memory on this node.\n")
    assert causes_of(tmp_path, {"driver.log": log}, ruleset)[:1] == [Cause.HOST_OOM_KILL]


def test_an_unplaced_gpu_hang_before_a_rank_s_abort_is_the_gpu(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("HW Exception by GPU node-4 (Agent handle: 0x1ebc04e0) reason :GPU Hang\n"
           "HW Exception by GPU node-4 (Agent handle: 0x2df30600) reason :GPU Hang\n"
           "W0902 15:10:48.626000 819010 torch/distributed/elastic/multiprocessing/api.py:900] Sending process 819027 "
           "closing signal SIGTERM\n"
           "E0902 15:10:49.013000 819010 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: -6) "
           "local_rank: 0 (pid: 819025) of binary: /usr/bin/python3\n")
    got = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert [(i.cause, i.rank) for i in got][:1] == [(Cause.GPU_HARDWARE, 0)]


def test_a_crash_handler_s_segfault_banner_is_a_crash(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("> !!!!!!! Segfault encountered !!!!!!!\n"
           '>   File "./nptl/pthread_kill.c", line 44, in __pthread_kill_implementation\n'
           '>   File "<unknown>", line 0, in cuMemCreate\n'
           '>   File "misc/cudawrap.cc", line 92, in ncclCuMemHostEnable()\n')
    assert causes_of(tmp_path, {"train.log": log}, ruleset)[:1] == [Cause.CRASH_SIGNAL]


def test_sglang_s_header_gives_its_traceback_s_exception_the_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("[2025-01-20 19:10:07] Received sigquit from a child proces. It usually means the child failed.\n"
           "[2025-01-20 19:10:07 TP1] Scheduler hit an exception: Traceback (most recent call last):\n"
           '  File "/env/sglang/srt/managers/scheduler.py", line 1652, in run_scheduler_process\n'
           "    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, dp_rank)\n"
           '  File "/env/sglang/srt/models/qwen2.py", line 353, in load_weights\n'
           "    param = params_dict[name]\n"
           "KeyError: 'layers.0.self_attn.qkv_proj.weight'\n")
    got = incidents_of(tmp_path, {"server.log": log}, ruleset)
    assert [(i.cause, i.rank) for i in got][:1] == [(Cause.PYTHON_EXCEPTION, 1)]


def test_sglang_s_header_past_the_first_pipeline_stage_names_no_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("[2025-06-30 08:49:10 PP1 TP2] Scheduler hit an exception: Traceback (most recent call last):\n"
           '  File "/env/sglang/srt/managers/scheduler.py", line 1652, in run_scheduler_process\n'
           "ValueError: bad shape\n")
    got = incidents_of(tmp_path, {"server.log": log}, ruleset)
    assert [(i.cause, i.rank) for i in got][:1] == [(Cause.PYTHON_EXCEPTION, None)]


def test_sglang_s_header_alone_at_a_paste_s_end_is_an_exception_at_low_confidence(tmp_path: Path,
                                                                                  ruleset: RuleSet) -> None:
    log = ('[TP0] Scheduler hit an exception:\n  File "sglang/srt/managers/scheduler.py", line 1431, in event_loop_overla')
    got = incidents_of(tmp_path, {"node0.log": log}, ruleset)
    assert [(i.cause, i.rank) for i in got] == [(Cause.PYTHON_EXCEPTION, 0)]
    assert got[0].confidence < 0.5


def test_nccl_tests_failure_is_placed_by_its_host_pid_and_rank_table(tmp_path: Path, ruleset: RuleSet) -> None:
    table = "".join(f"#  Rank {r:>2} Group  0 Pid  {62767 + r} on {'node0' if r < 2 else 'node1'} device  {r % 2} "
                    f"[0000:{19 + r}:00] NVIDIA H800\n" for r in range(4))
    log = ("# nccl-tests version 2.17.6 nccl-headers=22807 nccl-library=22807\n# Using devices\n" + table
           + "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)  #wrong\n"
           "     2097152         32768     float    none      -1 node1: Test CUDA failure common.cu:389 "
           "'an illegal memory access was encountered'\n"
           " .. node1 pid 62770: Test failure common.cu:519\n"
           " .. node1 pid 62770: Test failure common.cu:532\n")
    got = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert [(i.cause, i.rank, i.node) for i in got][:1] == [(Cause.ILLEGAL_MEMORY_ACCESS, 3, "node1")]


def test_network_failures_of_other_transports_are_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    lines = (
        "[1,13]<stdout>:nccl-tests-worker-1:35:89 [5] ofi_process_cq:1039 NCCL WARN NET/OFI Request 0x7fbb944701b8 "
        "completed with error. RC: 20. Error: unknown error.\n",
        "(VllmWorker rank=3 pid=50935) ERROR 09-10 03:36:31 [multiproc_executor.py:527]         Transport init error. "
        "Reason: [Create][DestLink]Create Dest error! creakLink para:rank[7]-localUserrank[7]-localIpAddr[192.168.1.3]\n",
        "E1210 03:24:54.778028 2548307 ascend_direct_transport.cpp:820] Failed to connect to target: 172.16.100.99:25389, "
        "status: 103900\n",
        "[Wed Jul 29 14:40:27 2026] mlx5_bond_0/1: QP 51291 error: local length error (0x8e 0x0 0x0)\n",
    )
    for n, line in enumerate(lines):
        assert causes_of(tmp_path / str(n), {"train.log": line}, ruleset)[:1] == [Cause.NETWORK], line


_STALL = ("[2021-04-10 21:28:20.658706: W horovod/common/stall_inspector.cc:105] One or more tensors were submitted to "
          "be reduced, gathered or broadcasted by subset of ranks and are waiting for remainder of ranks for more than "
          "60 seconds. This may indicate that different ranks are trying to submit different tensors or that only "
          "subset of ranks is submitting tensors, which will cause deadlock.\n")


def test_a_log_that_ends_on_horovod_s_stall_report_is_a_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    log = "Epoch 1/10\n" + _STALL
    got = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert [i.cause for i in got] == [Cause.HANG]
    assert got[0].confidence < 0.5


def test_a_stall_report_that_training_went_on_after_is_no_incident(tmp_path: Path, ruleset: RuleSet) -> None:
    steps = "".join(f"34/34 [==============================] - 75s 2s/step - loss: 9.{n} - acc: 0.39\n" for n in range(8))
    log = "Epoch 1/10\n" + _STALL + "Epoch 2/10\n" + steps
    assert causes_of(tmp_path, {"train.log": log}, ruleset) == []


def test_glog_s_fatal_check_is_the_program_s_assertion_or_its_socket(tmp_path: Path, ruleset: RuleSet) -> None:
    check = ("F1122 13:50:47.079037 63929 user_op.cpp:299] Check failed: it != arg2tensor_desc_.end() Cannot find "
             "input_arg_name : out input_arg_index : 0\n*** Check failure stack trace: ***\n")
    sock = ("F0911 14:31:16.057638  5678 SocketChannel.cpp:54] Check failed: len >= 0  peer=10.75.60.42: "
            "Connection timed out [110]\n*** Check failure stack trace: ***\n")
    oom = ("F0903 14:31:26.106397 92421 syncedmem.cpp:56] Check failed: error == cudaSuccess (2 vs. 0)  out of memory\n"
           "*** Check failure stack trace: ***\n")
    assert causes_of(tmp_path / "a", {"train.log": check}, ruleset)[:1] == [Cause.PYTHON_EXCEPTION]
    assert causes_of(tmp_path / "b", {"train.log": sock}, ruleset)[:1] == [Cause.NETWORK]
    assert causes_of(tmp_path / "c", {"train.log": oom}, ruleset)[:1] == [Cause.CUDA_OOM]


_CLONE_OOM = ("/opt/conda/lib/python3.9/site-packages/torch/distributed/fsdp/fully_sharded_data_parallel.py:2224: "
              "UserWarning: Failed to clone() tensor with name gpt_neox.layers.9.attention.query_key_value.weight. "
              "Error: CUDA out of memory. Tried to allocate 432.00 MiB (GPU 4; 39.56 GiB total capacity; 36.19 GiB "
              "already allocated; 326.56 MiB free; 37.90 GiB reserved in total by PyTorch)\n")


def test_an_oom_inside_a_python_warning_was_caught(tmp_path: Path, ruleset: RuleSet) -> None:
    log = "[1,mpirank:4,algo-1]<stderr>:" + _CLONE_OOM + "[1,mpirank:4,algo-1]<stdout>:{'loss': 1.93, 'epoch': 1.0}\n"
    assert causes_of(tmp_path, {"train.log": log}, ruleset) == []


def test_errors_before_sagemaker_reported_success_did_not_stop_the_run(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("[1,mpirank:3,algo-1]<stderr>:RuntimeError: CUDA error: out of memory\n"
           "[1,mpirank:3,algo-1]<stdout>:{'train_runtime': 812.4, 'epoch': 1.0}\n"
           "2023-04-28 20:40:35,874 sagemaker-training-toolkit INFO     Reporting training SUCCESS\n")
    assert causes_of(tmp_path, {"train.log": log}, ruleset) == []


def test_an_unstamped_line_right_before_sglang_s_header_is_that_rank_s(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("Starting GPU coredump generation, set the CUDA_COREDUMP_SHOW_PROGRESS environment variable to 1 to enable "
           "more verbose output\n"
           "[2025-05-27 04:36:06 DP1 TP4] Scheduler hit an exception: Traceback (most recent call last):\n"
           '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2385, in run_scheduler_process\n')
    got = incidents_of(tmp_path, {"decode.log": log}, ruleset)
    assert [(i.cause, i.rank) for i in got][:1] == [(Cause.ILLEGAL_MEMORY_ACCESS, 4)]


def test_sglang_s_launcher_names_the_rank_whose_scheduler_died(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ('  File "/sgl-workspace/sglang/python/sglang/srt/entrypoints/engine.py", line 1277, in _wait_for_scheduler_ready\n'
           "    raise _scheduler_died_error(i, scheduler_procs[i])\n"
           "RuntimeError: Rank 2 scheduler died during initialization (exit code: -3). If exit code is -9 (SIGKILL), a "
           "common cause is the OS OOM killer. Run `dmesg -T | grep -i oom` to check.\n")
    got = incidents_of(tmp_path, {"server.log": log}, ruleset)
    assert [(i.cause, i.rank) for i in got][:1] == [(Cause.PYTHON_EXCEPTION, 2)]


def test_tgi_s_span_rank_after_a_shard_s_error_names_the_shard(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("    raise ValueError(\n\n"
           "ValueError: `num_heads` must be divisible by `num_shards` (got `num_heads`: 71 and `num_shards`: 2\n"
           " rank=1\n"
           "2023-12-16T09:36:24.632149Z ERROR text_generation_launcher: Shard 1 failed to start\n"
           "2023-12-16T09:36:24.632181Z  INFO text_generation_launcher: Shutting down shards\n")
    got = incidents_of(tmp_path, {"launcher.log": log}, ruleset)
    assert [(i.cause, i.rank) for i in got][:1] == [(Cause.PYTHON_EXCEPTION, 1)]


def test_torch_2_s_store_port_in_use_without_the_port_is_the_port_in_use(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("[W1201 10:00:00.000000 123 socket.cpp:464] [c10d] The server socket has failed to bind to [::]:29500 "
           "(errno: 98 - Address already in use).\n"
           "RuntimeError: The server socket has failed to listen on any local network address. useIpv6: 0, code: -98, "
           "name: EADDRINUSE, message: address already in use\n")
    got = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert [(i.cause, i.drain) for i in got][:1] == [(Cause.NETWORK, False)]


def test_start_up_and_runtime_failures_of_other_stacks_are_failures_of_their_own(tmp_path: Path,
                                                                                   ruleset: RuleSet) -> None:
    cases = (
        ("2024-04-12 23:39:41.656900: E external/xla/xla/pjrt/distributed/client.cc:96] Coordination service agent "
         "in error status: DEADLINE_EXCEEDED: Deadline Exceeded\n", Cause.UNKNOWN),
        ("(train_lm_task pid=39298, ip=10.130.0.55) E0827 23:43:41.200122   39475 synchronous_driver.cc:820] "
         "[/dev/accel0 tpu1013:pe1:0] !!!! FATAL ERROR !!!! for [/dev/accel0 tpu1013:pe1:0] , fatal_error: true\n",
         Cause.UNKNOWN),
        ("slurmstepd: error:  mpi/pmix_v3: pmixp_coll_ring_reset_if_to: adas-ml [0]: pmixp_coll_ring.c:742: "
         "0x14ce0c02cb20: collective timeout seq=0\n", Cause.UNKNOWN),
        ("launch failed on x4201c0s4b0n0: Couldn't forward RPC launch(...) to child\n", Cause.UNKNOWN),
        ("[2025-05-13 02:25:58.64217] [error] [36815] [hccl_runner.cpp:132] AllGatherHcclRunner:0 "
         "HcclCommInitRootInfo fail, error:2, rank:1, rankSize:4\n", Cause.UNKNOWN),
        ('{"name": "torchelastic.worker.status.FAILED", "source": "WORKER", "timestamp": 0, "metadata": '
         '{"run_id": "none", "global_rank": 1, "group_rank": 0}}\n', Cause.UNKNOWN),
        ("INFO:tensorflow:loss = 9.76, step = 0\nERROR:tensorflow:Model diverged with loss = NaN.\n",
         Cause.PYTHON_EXCEPTION),
    )
    for n, (log, cause) in enumerate(cases):
        assert causes_of(tmp_path / str(n), {"train.log": log}, ruleset)[:1] == [cause], log


def test_ofi_s_completion_error_echoed_by_a_remote_error_does_not_outrun_a_death(tmp_path: Path,
                                                                                 ruleset: RuleSet) -> None:
    oom = ("2024-04-26 01:45:08,100 INFO [rank 2] step 89963\n"
           "[rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU 2 has a total "
           "capacity of 79.15 GiB of which 2.71 GiB is free.\n")
    # the peer's lines borrow a stamp 45 s early (its node's clock is behind)
    peer = ("2024-04-26 01:44:25,284 INFO [rank 19] data: opened shard 00315-of-00512\n"
            "[rank19]:[E ProcessGroupNCCL.cpp:1595] [PG 0 Rank 19] Process group watchdog thread terminated with "
            "exception: NCCL error: remote process exited or there was a network error, NCCL version 2.20.5\n"
            "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\n"
            "Last error:\n"
            "NET/OFI Request 0x7fc6255398f1 completed with error. RC: 21. Error: 4 (Interrupted system call). "
            "Completed length: 0, Request: { dev: 3, size: 0, state: CREATED, direction: RECV }\n")
    got = incidents_of(tmp_path, {"node1/rank2.log": oom, "node12/rank19.log": peer}, ruleset)
    assert [(i.cause, i.rank) for i in got][:1] == [(Cause.CUDA_OOM, 2)]


def test_a_later_stamped_line_after_sglang_s_traceback_is_not_its_rank_s(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("[2025-05-12 22:56:59 TP0 EP0] Decode batch. #running-req: 19, #token: 244499, token usage: 0.23\n"
           "[2025-05-12 22:57:45 TP3 EP3] Scheduler hit an exception: Traceback (most recent call last):\n"
           '  File "/usr/local/lib/python3.12/dist-packages/sglang/srt/managers/scheduler.py", line 2651, in run_scheduler_process\n'
           "    scheduler.event_loop_overlap()\n"
           "KeyError: 'reasoning_content'\n\n"
           "[2025-05-12 22:57:45] Received sigquit from a child process. It usually means the child failed.\n"
           "[2025-05-12 22:57:56] Killed\n")
    got = incidents_of(tmp_path, {"sglang_server.log": log}, ruleset)
    assert [(i.cause, i.rank) for i in got][:1] == [(Cause.PYTHON_EXCEPTION, 3)]
