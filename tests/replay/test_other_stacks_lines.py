"""Lines of stacks beside CUDA and NCCL, from the fifteenth session's development cases
(replay_logs/real/ES-*): XLA's device-memory exhaustion on TPU and in older PJRT, and Ascend
HCCL's collective, socket-link and listen failures (CANN's EI0002 and EI0006)."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of


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
