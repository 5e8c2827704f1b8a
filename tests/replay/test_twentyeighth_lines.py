"""The twenty-eighth session's cases: the AWS OFI plugin's error completion with no request,
TensorFlow's collectives finding mismatched shapes or a closed socket, amdgpu's MES firmware no
longer answering, and PBS killing a job for its memory."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import causes_of, incidents_of


def test_ofi_operation_with_null_context_completed_with_error_is_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("8h200-2:14630:14695 [1] NCCL INFO Channel 07/0 : 1[1] -> 0[0] [send] via NET/AWS Libfabric/1/GDRDMA\n"
            "8h200-2:14630:14692 [0] process_err_completion:1723 NCCL WARN NET/OFI Operation with NULL context "
            "completed with error\n")
    assert causes_of(tmp_path / "ofi", {"log.txt": text}, ruleset)[:1] == [Cause.NETWORK]


def test_tensorflow_collective_shape_mismatch(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("2019-11-11 11:45:07.182013: W tensorflow/core/common_runtime/base_collective_executor.cc:217] "
            "BaseCollectiveExecutor::StartAbort Cancelled: [_Derived_]Cancelled\n"
            "2019-11-11 11:45:07.182077: W tensorflow/core/framework/op_kernel.cc:1655] OP_REQUIRES failed at "
            "collective_ops.cc:253 : Invalid argument: Shape mismatch in the collective instance 106. Op at device "
            "/job:worker/replica:0/task:1/device:CPU:0 expected shape [49] but another member in the group expected "
            "shape [64].\n")
    seen = incidents_of(tmp_path / "tf", {"worker1.log": text}, ruleset)
    assert seen and seen[0].cause is Cause.COLLECTIVE_MISMATCH and not seen[0].drain, seen


def test_tensorflow_collective_aborted_by_a_closed_socket_is_a_lost_peer(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ('tensorflow.python.framework.errors_impl.UnavailableError: Collective ops is aborted by: Collective ops is '
            'aborted by: Socket closed\n')
    seen = incidents_of(tmp_path / "tf", {"log.txt": text}, ruleset)
    # a worker that lost a peer: something failed, this worker does not say what
    assert seen and seen[0].cause is Cause.UNKNOWN and not seen[0].drain, seen
    assert any("Socket closed" in e for e in seen[0].evidence), seen


def test_tensorflows_own_abort_warning_at_shutdown_is_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("Training finished.\n"
            "2023-09-23 13:45:45.546039: W tensorflow/core/common_runtime/base_collective_executor.cc:217] "
            "BaseCollectiveExecutor::StartAbort Unavailable: Collective ops is aborted by: Socket closed\n")
    assert causes_of(tmp_path / "tf", {"log.txt": text}, ruleset) == []


def test_amdgpu_mes_firmware_not_answering_is_a_hung_gpu(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("[  950.818166] amdgpu 0000:c5:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE\n"
            "[  950.818174] amdgpu 0000:c5:00.0: amdgpu: MES might be in unrecoverable state, issue a GPU reset\n"
            "[  950.818199] amdgpu 0000:c5:00.0: amdgpu: GPU reset begin!. Source:  3\n")
    assert causes_of(tmp_path / "mes", {"dmesg.txt": text}, ruleset)[:1] == [Cause.GPU_HARDWARE]


def test_pbs_memory_kill_names_the_rank_mpirun_saw_killed(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("Training time: 421.66s\n"
            "------------------------------------------------------------------------\n"
            "Job 124452549 has exceeded memory allocation on node gadi-gpu-v100-0109.gadi.nci.org.au\n"
            'Process "pt_main_thread", pid 2528901, rss 12930043904, vmem 64778096640\n'
            "------------------------------------------------------------------------\n"
            "mpirun noticed that process rank 0 with PID 0 on node gadi-gpu-v100-0109 exited on signal 9 (Killed).\n")
    seen = incidents_of(tmp_path / "pbs", {"job.o124452549": text}, ruleset)
    assert seen and seen[0].cause is Cause.HOST_OOM_KILL and seen[0].rank == 0, seen
    assert seen[0].node is not None and seen[0].node.startswith("gadi-gpu-v100-0109"), seen


def test_pbs_torque_memory_kill(tmp_path: Path, ruleset: RuleSet) -> None:
    for n, line in enumerate(("=>> PBS: job killed: mem 270532kb exceeded limit 262144kb",
                              "=>> PBS: job killed: vmem 2210586624 exceeded limit 2147483648",
                              "=>> PBS: job killed: mem job total 8591548 kb exceeded limit 8388608 kb")):
        assert causes_of(tmp_path / f"torque{n}", {"job.o77": line + "\n"}, ruleset)[:1] == [Cause.HOST_OOM_KILL], line


def test_pbs_memory_kill_on_a_short_named_rank_log(tmp_path: Path, ruleset: RuleSet) -> None:
    """PBS names the node by its full name, NCCL's lines of the rank by its short one: one host."""
    files = {"job.o1": ("Job 1 has exceeded memory allocation on node gpu-0109.cluster.example.org\n"
                        "mpirun noticed that process rank 0 with PID 0 on node gpu-0109 exited on signal 9 (Killed).\n"),
             "rank.0/stdout": "gpu-0109:2528901:2528901 [0] NCCL INFO cudaDriverVersion 12020\n"}
    seen = incidents_of(tmp_path / "short", files, ruleset)
    assert seen and seen[0].cause is Cause.HOST_OOM_KILL and seen[0].rank == 0, seen


def test_nccl_keeping_an_ib_and_a_roce_port_apart_is_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("[1,1]<stdout>:[2025-09-23 18:31:18] a2ap-dgx011:122213:122213 [7] transport/net_ib.cc:587 NCCL WARN "
            "NET/IB : Attempted to merge incompatible devices: [1]mlx5_1:1/IB and [2]mlx5_2:1/RoCE. Try selecting "
            "NICs of only one link type using NCCL_IB_HCA\n")
    assert causes_of(tmp_path / "merge", {"log.txt": text}, ruleset) == []


def test_an_older_amdgpu_ring_timeout_without_the_drivers_tag(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("kvě 25 19:29:48 bc250 kernel: amdgpu 0000:01:00.0: ring sdma0 timeout, signaled seq=309, emitted seq=313\n"
            "kvě 25 19:29:48 bc250 kernel: amdgpu 0000:01:00.0: Starting sdma0 ring reset\n")
    assert causes_of(tmp_path / "sdma", {"journal.txt": text}, ruleset)[:1] == [Cause.GPU_HARDWARE]


def test_tensorflow_ring_with_inconsistent_output_shapes(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("2019-10-14 22:36:01.352450: E tensorflow/core/common_runtime/ring_alg.cc:279] Aborting RingReduce with "
            "Internal: Inconsistent output shapes, got [4], but expected is [2].\n")
    assert causes_of(tmp_path / "tf", {"worker0.log": text}, ruleset)[:1] == [Cause.COLLECTIVE_MISMATCH]
