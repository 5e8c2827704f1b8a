"""Lines of stacks beside CUDA and NCCL, from the fifteenth session's development cases
(replay_logs/real/ES-*): XLA's device-memory exhaustion on TPU and in older PJRT, and Ascend
HCCL's collective, socket-link and listen failures (CANN's EI0002 and EI0006); and from the
sixteenth session's (the fifteenth's set-aside, promoted): AMD GPUs' page faults, Neuron's graph
mismatch, JAX's wait for TPU hosts, libfabric's failed transfer, inference engines without KV-cache
memory under Ray, and pyxis failing to start a container; store ports and names, nccl-tests' wrong
values, and srun's exits placing an unprefixed error on its node."""

from __future__ import annotations

from pathlib import Path

from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of, write_run


def test_xla_on_tpu_unable_to_reserve_device_memory_is_an_out_of_memory(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "2023-03-23 02:02:25.057202: E tensorflow/compiler/xla/xla_client/xla_util.cc:90]   OP_REQUIRES failed at "
        "tpu_execute_op.cc:266 : RESOURCE_EXHAUSTED: Attempting to reserve 10.51G at the bottom of memory. That was "
        "not possible. There are 8.97G free, 0B reserved, and 8.97G reservable.\n"
        "Exception in device=TPU:6: RESOURCE_EXHAUSTED: From /job:localservice/replica:0/task:0:\n")}, ruleset)
    assert [g.cause for g in got] == [Cause.CUDA_OOM]


def test_an_older_pjrt_allocation_failure_is_an_out_of_memory_not_the_traceback_after_it(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "2021-07-21 16:15:16.513776: E external/org_tensorflow/tensorflow/compiler/xla/pjrt/pjrt_stream_executor_client"
        ".cc:1981] Execution of replica 0 failed: Resource exhausted: Failed to allocate request for 32.00MiB "
        "(33554432B) on device ordinal 0\n"
        "Traceback (most recent call last):\n"
        '  File "resharding_example.py", line 47, in <module>\n'
        "RuntimeError: Resource exhausted: Failed to allocate request for 32.00MiB (33554432B) on device ordinal 0\n")},
        ruleset)
    assert [g.cause for g in got][:1] == [Cause.CUDA_OOM]


def test_hccl_notify_wait_timeouts_alone_are_a_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "npuSynchronizeDevice:/usr1/02/workspace/torch_npu/csrc/core/npu/NPUStream.cpp:370 NPU error, error code is 107020.\n"
        "EI0002: The wait execution of the Notify register times out. Reason: The Notify register has not received the "
        "Notify record from remote rank [4294967295].base information: [streamID:[1], taskID[39], taskType[Notify Wait]\n")},
        ruleset)
    assert [g.cause for g in got] == [Cause.HANG]


def test_hccl_links_that_never_formed_are_the_network_not_a_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "[PID: 749] 2025-12-29-03:16:15.787.356 Get_Socket_Timeout(EI0006): Getting socket times out. Reason: 1. The "
        "remote does not initiate a connect request. some NPUs in the cluster are abnormal.    2. The remote does not "
        "initiate a connect request because the collective communication operator is started too late.\n"
        "        TraceBack (most recent call last):\n")}, ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.NETWORK, False)]


def test_hccl_unable_to_listen_on_its_port_is_the_network_of_that_host(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "[ERROR] HCCL(2717288,python3):2025-07-23-03:47:57.070.463 [hccl_socket.cc:100] [2717288][HcclSocket][Listen] "
        "socket type[1], listen on ip[192.168.20.160] and specific port[16666] fail. Please check the port status and "
        "whether the port is been using by other process.\n"
        "[ERROR] HCCL(2717288,python3):2025-07-23-03:47:57.070.472 [hccl_communicator.cc:2307] [2717288][InitNic]call "
        "trace: hcclRet -> 19\n"
        "[ERROR] HCCL(2717288,python3):2025-07-23-03:49:57.177.194 [hccl_socket_manager.cc:778] [2734049][Wait]"
        "[LinkEstablish]wait socket establish timeout, role[1] rank[12] timeout[120]\n")}, ruleset)
    assert [g.cause for g in got] == [Cause.NETWORK]
    assert any("listen on ip[192.168.20.160]" in e for e in got[0].evidence)


_END_OF_SEQUENCE = (
    "2018-09-21 19:23:01.075834: W tensorflow/core/common_runtime/base_collective_executor.cc:203] "
    "BaseCollectiveExecutor::StartAbort Out of range: End of sequence\n"
    "\t [[{{node IteratorGetNext}} = IteratorGetNext[output_shapes=[[?,10], [?,1]], output_types=[DT_FLOAT, DT_INT64]]]]\n")


def test_tensorflows_end_of_sequence_warning_at_an_epochs_end_alone_is_no_incident(tmp_path: Path, ruleset: RuleSet) -> None:
    # ES-tensorflow-22484: one worker's iterator reached the end of its data; training went on
    got = incidents_of(tmp_path, {"train.log": "INFO:tensorflow:loss = 0.6660614, step = 1500 (0.288 sec)\n" + _END_OF_SEQUENCE},
                       ruleset)
    assert got == []


def test_the_end_of_sequence_abort_that_cancels_the_other_workers_collectives_is_a_mismatch(tmp_path: Path, ruleset: RuleSet) -> None:
    # AM-tensorflow-33531: MultiWorkerMirroredStrategy, the last partial batch
    got = incidents_of(tmp_path, {"worker.log": _END_OF_SEQUENCE + (
        "2019-10-19 12:14:21.635764: W tensorflow/core/common_runtime/base_collective_executor.cc:216] "
        "BaseCollectiveExecutor::StartAbort Cancelled: [_Derived_]Cancelled\n"
        "Additional GRPC error information:\n")}, ruleset)
    assert [g.cause for g in got] == [Cause.COLLECTIVE_MISMATCH]


def test_a_grpc_peer_no_address_of_which_answers_is_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    # ES-tensorflow-62880: a parameter-server worker cannot reach the parameter server
    got = incidents_of(tmp_path, {"train.log": (
        "It is treated as a transient connectivity failure for now.\n"
        "ERROR:tensorflow:Remote function on worker /job:worker/replica:0/task:1 failed with UnavailableError():failed "
        "to connect to all addresses\n")}, ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.NETWORK, False)]


def test_neurons_collectives_waiting_past_their_timeout_are_a_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": "".join(
        f"2023-Aug-01 16:14:43.02{r:02d} 332066:3325{r:02d} [{r}] include/socket.h:579 CCOM WARN Timeout waiting for "
        "RX (waited 120 sec) - retrying\n" for r in range(4))
        + "2023-Aug-01 16:14:43.0303 332066:332473 [26] bootstrap.cc:89 CCOM WARN Timeout waiting for incoming "
          "connection (waited 120 sec)\n"}, ruleset)
    assert [g.cause for g in got] == [Cause.HANG]


def test_an_ascend_event_wait_timeout_alone_is_a_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "EE9999: Inner Error!\n"
        "EE9999 The error from device(chipId:3, dieId:0), serial number is 1, event wait timeout occurred during task "
        "execution, stream_id:122, sq_id:122, task_id:790, event_id=73, timeout=1980.\n")}, ruleset)
    assert [g.cause for g in got] == [Cause.HANG]


_AMD_PAGE_FAULT = (
    "[Tue Sep  9 02:30:28 2025] amdgpu 0000:a6:00.0: amdgpu:   cookie node_id 2 fault from die AID0.XCD1\n"
    "[Tue Sep  9 02:30:28 2025] amdgpu 0000:a6:00.0: amdgpu: VM_L2_PROTECTION_FAULT_STATUS:0x00341051\n"
    "[Tue Sep  9 02:30:28 2025] amdgpu 0000:a6:00.0: amdgpu:          Faulty UTCL2 client ID: TCP (0x8)\n"
    "[Tue Sep  9 02:30:28 2025] amdgpu 0000:a6:00.0: amdgpu:          PERMISSION_FAULTS: 0x5\n")


def test_an_amd_gpus_page_fault_in_the_kernel_log_is_an_illegal_access_that_drains_nothing(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"dmesg.txt": _AMD_PAGE_FAULT}, ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.ILLEGAL_MEMORY_ACCESS, False)]
    assert any("VM_L2_PROTECTION_FAULT_STATUS" in e for e in got[0].evidence)


def test_a_page_fault_status_of_zero_is_no_fault(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"dmesg.txt": _AMD_PAGE_FAULT.replace("0x00341051", "0x00000000")}, ruleset)
    assert got == []


def test_rocms_memory_access_fault_on_a_rank_is_an_illegal_access_of_that_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "[rank3]: Memory access fault by GPU node-5 (Agent handle: 0x55d6c3e2a2b0) on address 0x7f2d3c000000. "
        "Reason: Page not present or supervisor privilege.\n")}, ruleset)
    assert [(g.cause, g.rank, g.drain) for g in got] == [(Cause.ILLEGAL_MEMORY_ACCESS, 3, False)]


def test_neuron_ranks_loading_graphs_with_different_collectives_are_a_mismatch(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "2023-Oct-27 14:18:42.0222 35560:35755 ERROR   ENC:validate_neff_cc_ops                    [nec_dev 0] "
        "mismatching number of cc ops, expected 6 received 3. Check if ranks 1 and 0 are using the same neff\n"
        "2023-Oct-27 14:18:42.0222 35560:35755 ERROR   ENC:enc_load_operations                     [nec_dev 0] "
        "failed to validate neff across the replica group\n"
        "RuntimeError: INTERNAL: Nrt::Load failed on NeuronCores 0-0(2): nrt_load status=1, error message=\"Non specific "
        "failure\".\n")}, ruleset)
    assert [g.cause for g in got][:1] == [Cause.COLLECTIVE_MISMATCH]


_TPU_WAIT = ("UserWarning: TPU backend initialization is taking more than 60.0 seconds. Did you run your code on all "
             "TPU hosts? See https://jax.readthedocs.io/en/latest/multi_process.html for more information.\n")


def test_a_log_that_ends_waiting_for_the_other_tpu_hosts_is_a_hang_at_start(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": _TPU_WAIT}, ruleset)
    assert [g.cause for g in got] == [Cause.HANG]
    assert "every host" in got[0].explanation


def test_the_tpu_wait_followed_by_training_is_no_incident(tmp_path: Path, ruleset: RuleSet) -> None:
    steps = "".join(f"I1201 10:0{i}:00.000000 140 train.py:300] step {i}, loss 2.{9 - i}\n" for i in range(6))
    assert incidents_of(tmp_path, {"train.log": _TPU_WAIT + steps}, ruleset) == []


def test_a_libfabric_transfer_that_completed_with_an_error_is_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "ofi_process_cq:196 NCCL WARN NET/OFI Request completed with error. RC: 107.\n"
        "Error: Inappropriate ioctl for device.\n")}, ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.NETWORK, False)]


def test_the_exception_at_the_end_of_a_ray_traceback_is_the_workers_and_names_the_cause(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "Traceback (most recent call last):\n"
        '  File "/workspace/verl/trainer/main_ppo.py", line 77, in run_ppo\n'
        "    ray.get(runner.run.remote(config))\n"
        "ray.exceptions.RayTaskError(ValueError): ray::TaskRunner.run() (pid=239082, ip=192.168.100.8, "
        "actor_id=694a55ad70568964cb986ed701000000, repr=<main_ppo.TaskRunner object at 0x7241c1b089d0>)\n"
        '  File "/workspace/verl/trainer/main_ppo.py", line 242, in run\n'
        "    trainer.init_workers()\n"
        "ray.exceptions.RayTaskError(ValueError): ray::WorkerDict.actor_rollout_init_model() (pid=239450, "
        "ip=192.168.100.9, actor_id=415e97a811c421b11a495d6b01000000, repr=<WorkerDict object at 0x792471eca680>)\n"
        '  File "/workspace/verl/workers/rollout/vllm_rollout/vllm_rollout_spmd.py", line 166, in __init__\n'
        "    self.inference_engine = LLM(\n"
        "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
        "initializing the engine.\n")}, ruleset)
    # the innermost header's worker (its node) raised it; the out-of-memory error, not the header's class
    assert [(g.cause, g.node, g.drain) for g in got] == [(Cause.CUDA_OOM, "192.168.100.9", False)]


def test_a_ray_header_with_nothing_more_specific_below_stays_the_python_exception(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "ray.exceptions.RayTaskError(KeyError): ray::TrainTrainable.train() (pid=1042, ip=10.0.0.7, actor_id=37d8, "
        "repr=TorchTrainer)\n"
        '  File "train.py", line 12, in train_func\n'
        "KeyError: 'labels'\n")}, ruleset)
    assert [(g.cause, g.node) for g in got] == [(Cause.PYTHON_EXCEPTION, "10.0.0.7")]


def test_pyxis_failing_to_start_a_container_is_that_tasks_failure_not_the_segfault_in_enroots_log(
        tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"slurm.out": (
        "22: slurmstepd: error: pyxis: container start failed with error code: 1\n"
        "22: slurmstepd: error: pyxis: printing enroot log file:\n"
        "22: slurmstepd: error: pyxis:     /etc/enroot/hooks.d/10-shadow.sh: line 70: 3474706 Broken pipe             "
        "yes 2> /dev/null\n"
        "22: slurmstepd: error: pyxis:          3474707 Segmentation fault      (core dumped) | pwck -R "
        '"${ENROOT_ROOTFS}" /etc/shadow > /dev/null 2>&1\n')}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.UNKNOWN, 22)]


_BIND6_IN_USE = "[W socket.cpp:426] [c10d] The server socket has failed to bind to [::]:38429 (errno: 98 - Address already in use).\n"


def test_a_log_that_ends_on_the_stores_ipv6_port_held_again_and_again_is_a_port_in_use(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"output.log": _BIND6_IN_USE * 4}, ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.NETWORK, False)]
    assert "port was held" in got[0].explanation


def test_the_stores_ipv6_port_held_once_before_training_is_nothing(tmp_path: Path, ruleset: RuleSet) -> None:
    steps = "".join(f"epoch 0 iter {i} loss 2.{9 - i}\n" for i in range(6))
    assert incidents_of(tmp_path, {"output.log": _BIND6_IN_USE + steps}, ruleset) == []
    assert incidents_of(tmp_path, {"output.log": _BIND6_IN_USE}, ruleset) == []



def test_nccl_tests_finding_wrong_values_is_the_network_not_the_exit_that_follows(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"job.out": (
        " 0: #  Rank  0 Group  0 Pid  88640 on  nid005112 device  0 [0x01] NVIDIA GH200 120GB\n"
        " 0:     16777216       4194304     float     sum      -1   2095.2    8.01   15.01      0   2088.8    8.03   "
        "15.06   4832\n"
        " 0: # Out of bounds values : 1 FAILED\n"
        " 0: # Avg bus bandwidth    : 25.9779 \n"
        "srun: error: nid005112: tasks 0-3: Exited with exit code 1\n")}, ruleset)
    assert [(g.cause, g.drain) for g in got][:1] == [(Cause.NETWORK, False)]
    assert incidents_of(tmp_path / "ok", {"job.out": " 0: # Out of bounds values : 0 OK\n"}, ruleset) == []


def test_a_store_port_the_user_may_not_listen_on_is_the_network_with_its_own_advice(tmp_path: Path, ruleset: RuleSet) -> None:
    report = replay_path(write_run(tmp_path, {"train.log": (
        "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "The server socket has failed to bind to [::]:98 (errno: 13 - Permission denied). The server socket has "
        "failed to bind to 0.0.0.0:98 (errno: 13 - Permission denied).\n")}), ruleset)
    (inc,) = report.incidents
    assert (inc.cause, inc.remediation.drain_node) == (Cause.NETWORK, False)
    assert "port 98" in inc.remediation.fix and "1024" in inc.remediation.fix


def test_a_log_that_ends_on_an_unresolvable_store_host_is_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    line = ("[W socket.cpp:601] [c10d] The IPv6 network addresses of (user, 53821) cannot be retrieved (gai error: -3 - "
            "Temporary failure in name resolution).\n")
    got = incidents_of(tmp_path, {"train.log": line}, ruleset)
    assert [g.cause for g in got] == [Cause.NETWORK]
    assert "(user)" in got[0].explanation
    steps = "".join(f"{{'loss': 0.{9 - i}, 'epoch': {i}}}\n" for i in range(6))
    assert incidents_of(tmp_path / "trained", {"train.log": line + steps}, ruleset) == []


def test_a_store_that_gave_up_waiting_for_its_clients_is_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"head.log": (
        "torch.distributed.DistStoreError: Timed out after 601 seconds waiting for clients. 1/2 clients joined.\n")},
        ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.NETWORK, False)]


_TEARDOWN = (
    "node-0:3901:4244 [0] NCCL INFO [Service thread] Connection closed by localRank 1\n"
    "W1127 01:26:40.846000 3834 site-packages/torch/distributed/elastic/multiprocessing/api.py:900] Sending process "
    "3902 closing signal SIGTERM\n")


def test_a_ranks_cut_traceback_before_the_launchers_teardown_is_that_ranks_exception(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"rlhf.log": (
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/opt/swift/cli/rlhf.py", line 7, in <module>\n'
        "[rank0]:     rlhf_main()\n"
        '[rank0]:   File "/opt/swift/llm/train/sft.py", line 254, in train\n'
        "[rank0]:     trainer.train(trainer.args.resume_from_checkp\n" + _TEARDOWN)}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.PYTHON_EXCEPTION, 0)]


def test_a_helper_threads_traceback_during_the_teardown_says_nothing_of_the_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": _TEARDOWN + (
        "Exception in thread Thread-2:\n"
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3.10/threading.py", line 1016, in _bootstrap_inner\n'
        "    self.run()\n")}, ruleset)
    assert [g.cause for g in got] == [Cause.UNKNOWN]



def test_srun_exits_all_on_one_node_place_the_unprefixed_error_there(tmp_path: Path, ruleset: RuleSet) -> None:
    tail = ("srun: error: ga007: task 0: Exited with exit code 1\n"
            "slurmstepd: error: *** STEP 24600735.0 ON ga007 CANCELLED AT 2022-09-07T22:31:09 ***\n"
            "srun: error: ga007: task 1: Exited with exit code 1\n")
    error = "NameError: name 'log_writer' is not defined\n"
    got = incidents_of(tmp_path, {"train_0.out": error + error + tail}, ruleset)
    assert [(g.cause, g.rank, g.node) for g in got] == [(Cause.PYTHON_EXCEPTION, None, "ga007")]
    # exits on two nodes: the error's node is not known
    two = tail.replace("ga007: task 1", "ga008: task 1")
    got = incidents_of(tmp_path / "two", {"train_0.out": error + two}, ruleset)
    assert [(g.cause, g.node) for g in got] == [(Cause.PYTHON_EXCEPTION, None)]


def test_libfabric_efa_completion_errors_towards_a_peer_are_the_network_of_that_host(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "libfabric:451707:1708520807::efa:cq:efa_rdm_txe_handle_error():737<warn> err: 5, message: Invalid address My "
        "EFA addr: fi_addr_efa://[fe80::13:c2ff:fe6f:f03d]:0:1072483550 My host id: i-0db7083f3fcbebb65\n"
        "ip-172-31-69-127:451707:453373 [4] NCCL INFO Channel 00/0 : 0[4] -> 8[4] [send] via NET/AWS Libfabric/4/GDRDMA\n")},
        ruleset)
    assert [g.cause for g in got] == [Cause.NETWORK]
    assert any("Invalid address" in e for e in got[0].evidence)


def test_fabric_manager_failing_a_multicast_team_is_the_nvlink_fabric(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"fabricmanager.log": (
        "[Oct 31 2023 21:11:20] [INFO] [tid 527113] Received an inband message:  Message header details: magic Id:adbc "
        "request Id:3b794938a9edb4d3 status:0 type:2 length:46\n"
        "[Oct 31 2023 21:11:20] [ERROR] [tid 527118] failed to find the GPU handle 12766911663723876521 in the multicast "
        "team request setup 4285537028137661651.\n")}, ruleset)
    assert [g.cause for g in got] == [Cause.NVLINK]


def test_paddles_newer_launcher_naming_the_failed_container_is_that_ranks_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "LAUNCH INFO 2022-11-03 16:46:13,726 Pod failed\n"
        "LAUNCH ERROR 2022-11-03 16:46:13,727 Container failed !!!\n"
        "Container rank 3 status failed cmd ['/usr/bin/python', '-u', 'run_pretrain.py'] code 1 log "
        "output/log/workerlog.3\n")}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.UNKNOWN, 3)]


def test_a_watchdog_timeout_cut_to_its_cpp_origin_is_still_a_collective_timeout(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "Exception raised from checkTimeout at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:565 (most "
        "recent call first):\n"
        "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x55 (0x7f8c4a5805a5 in libc10.so)\n"
        "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout() + 0x1f3 (0x7f8c197996d3 in libtorch_hip.so)\n"
        "W0308 20:45:28.241000 139974302275392 torch/distributed/elastic/multiprocessing/api.py:851] Sending process "
        "5627 closing signal SIGTERM\n")}, ruleset)
    assert [g.cause for g in got] == [Cause.HANG]


def test_an_ascend_stream_that_never_drained_is_a_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "W NPUStream.cpp:409] Warning: NPU warning, error code is 507046[Error]: \n"
        "EE1002: 2024-09-03-16:50:00.041.231 Stream synchronize timeout. rtDeviceSynchronize execute failed, "
        "reason=[stream sync timeout]\n")}, ruleset)
    assert [g.cause for g in got] == [Cause.HANG]


def test_the_failed_containers_exit_code_is_read_as_any_launchers(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "LAUNCH ERROR 2022-11-03 16:46:13,727 Container failed !!!\n"
        "Container rank 2 status failed cmd ['/usr/bin/python', '-u', 'tools/train.py', '--eval'] code -6 log "
        "output/workerlog.2\n")}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.CRASH_SIGNAL, 2)]


_FLAP = ("Jan 28 04:46:36 node009 kernel: [542571.974920] mlx5_core 0000:41:00.0 ibp65s0: Link down\n"
         "Jan 28 04:46:40 node009 kernel: [542576.821157] mlx5_core 0000:41:00.0 ibp65s0: Link up\n")


def test_a_link_that_flapped_and_recovered_hours_before_the_failure_is_not_its_cause(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"node009/kern.log": _FLAP, "node009/train.log": (
        "[rank3]:[E128 16:30:55.000000 1 train.py:10] step 900 failed\n"
        "2026-01-28 16:30:55,000 [rank3]: Traceback (most recent call last):\n"
        '[rank3]:   File "train.py", line 10, in <module>\n'
        "[rank3]: KeyError: 'labels'\n")}, ruleset)
    assert [(g.cause, g.drain) for g in got][:1] == [(Cause.PYTHON_EXCEPTION, False)]
    assert all(g.cause is not Cause.NETWORK for g in got)


def test_a_flap_just_before_the_ranks_network_errors_stays_their_cause(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"node009/kern.log": _FLAP, "node009/train.log": (
        "2026-01-28 04:46:38 node009:2231:2301 [3] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from "
        "peer 10.42.0.2<47534> with error 12, opcode 0, len 0, vendor err 129\n")}, ruleset)
    assert [g.cause for g in got][:1] == [Cause.NETWORK]


def test_a_link_down_that_never_came_back_stays_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"node009/kern.log": _FLAP.splitlines(keepends=True)[0], "node009/train.log": (
        "2026-01-28 16:30:55,000 [rank3]: KeyError: 'labels'\n")}, ruleset)
    assert Cause.NETWORK in [g.cause for g in got]


_DEAD = "[rank50]: FileNotFoundError: [Errno 2] No such file or directory: '/lustre/shard_01873.bin'\n"
_PEER_ERROR = ("ip-10-0-10-249:117145:117224 [2] transport/net_ib.cc:2357 NCCL WARN NET/IB : Got completion from peer "
               "10.0.14.110<37564> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid fe80::3642:0baf hca mlx5_6\n")


def test_network_errors_towards_the_host_of_a_rank_that_died_of_its_own_failure_are_its_consequence(
        tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"ip-10-0-14-110/train.log": _DEAD, "ip-10-0-10-249/train.log": _PEER_ERROR}, ruleset)
    assert [(g.cause, g.rank, g.node, g.drain) for g in got][:1] == [(Cause.PYTHON_EXCEPTION, 50, "ip-10-0-14-110", False)]


def test_network_errors_towards_another_host_stay_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"ip-10-0-14-110/train.log": _DEAD,
                                  "ip-10-0-10-249/train.log": _PEER_ERROR.replace("10.0.14.110<", "10.0.99.7<")}, ruleset)
    assert Cause.NETWORK in [g.cause for g in got]


def test_paddles_workerlog_files_are_the_workers_of_their_node(tmp_path: Path, ruleset: RuleSet) -> None:
    ok = "I1103 16:46:10.000000 1 train.py:10] epoch 0 step 10 loss 2.5\n"
    got = incidents_of(tmp_path, {
        "log/workerlog.0": ok, "log/workerlog.1": ok,
        "log/workerlog.2": ok + "Traceback (most recent call last):\n  File \"train.py\", line 12, in <module>\n"
                               "ValueError: cannot reshape array of size 12 into shape (5,)\n",
        "log/workerlog.3": ok}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.PYTHON_EXCEPTION, 2)]
