"""Lines from the fifth session's development cases (replay_logs/real/J-*, L-*): a bare SIGKILL
names its rank but not who killed it, mpirun's line with a redacted PID, NCCL's older NET/IB
completion error, Ray's raylet OOM report, and NCCL proxy chatter at the end of a good run."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of


def test_mpirun_signal_9_with_a_redacted_pid_names_the_rank_and_says_what_to_check(tmp_path: Path, ruleset: RuleSet) -> None:
    # J-awareofhistory-2: the reporter replaced PID and node with x's
    got = incidents_of(tmp_path, {"train.log": (
        "Primary job  terminated normally, but 1 process returned\n"
        "a non-zero exit code. Per user-direction, the job has been aborted.\n"
        "mpirun noticed that process rank 1 with PID xxxxxx on node xxxxxxxx exited on signal 9 (Killed).\n")}, ruleset)
    assert [(g.cause, g.rank, g.drain) for g in got] == [(Cause.UNKNOWN, 1, False)]
    assert got[0].confidence <= 0.5
    assert "SIGKILL" in got[0].explanation and "OOM killer" in got[0].explanation
    assert any("exited on signal 9" in e for e in got[0].evidence)


def test_the_older_net_ib_completion_error_without_a_peer_is_the_nodes_network(tmp_path: Path, ruleset: RuleSet) -> None:
    # J-nccltests-24: NCCL 2.x before "from peer" was printed
    got = incidents_of(tmp_path, {"all_reduce_perf.log": (
        "gpu4:5633:5633 [0] NCCL INFO Launch mode Group/CGMD\n"
        "mlx5: gpu5: got completion with error:\n"
        "gpu5:6252:6325 [0] transport/net_ib.cu:788 NCCL WARN NET/IB : Got completion with error 4, opcode 1, len 0, vendor err 81\n"
        "gpu5:6252:6325 [0] NCCL INFO include/net.h:34 -> 2\n")}, ruleset)
    assert [(g.cause, g.node) for g in got] == [(Cause.NETWORK, "gpu5")]


def test_the_raylets_oom_report_is_a_host_oom_kill_on_its_node(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "(raylet) [2025-12-07 09:57:19,206 E 393463 393463] (raylet) node_manager.cc:3277: 2 Workers (tasks / actors) "
        "killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: 8289f87b78d161ae, "
        "IP: 172.24.0.226) over the last time period.\n")}, ruleset)
    assert [(g.cause, g.node, g.drain) for g in got] == [(Cause.HOST_OOM_KILL, "172.24.0.226", False)]


def test_nccl_proxy_chatter_after_every_test_passed_is_no_incident(tmp_path: Path, ruleset: RuleSet) -> None:
    # J-deepep-41: the processes exit one after another; their proxy threads complain
    got = incidents_of(tmp_path, {"test.log": (
        "[testing] Running with FP8, with top-k (async=True, previous=False) ... passed\n"
        "0bc8f5b83646:2374:2994 [0] proxy.cc:1458 NCCL WARN [Service thread] Accept failed Resource temporarily unavailable\n"
        "0bc8f5b83646:2374:2994 [0] proxy.cc:1497 NCCL WARN [Service thread] Could not receive type from localRank 0, res=3, closed=0\n"
        "0bc8f5b83646:2374:2994 [0] proxy.cc:1521 NCCL WARN [Proxy Service 0] Failed to execute operation Close from rank 0, retcode 3\n")}, ruleset)
    assert got == []


def test_proxy_errors_beside_a_real_failure_still_count(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered\n"
        "node07:2231:2290 [1] proxy.cc:1509 NCCL WARN [Service thread] Could not receive type from localRank 3, res=3, closed=1\n")}, ruleset)
    assert [(g.cause, g.rank) for g in got][:1] == [(Cause.ILLEGAL_MEMORY_ACCESS, 3)]


def test_a_failure_table_that_only_says_exit_code_1_is_that_ranks_exception(tmp_path: Path, ruleset: RuleSet) -> None:
    # L-torchtitan-3817: the paste ends inside the table's traceback; exit code 1 is Python's
    # exit on an uncaught exception
    table = (
        "Root Cause (first observed failure):\n"
        "[0]:\n"
        "  time      : 2026-06-29_14:19:03\n"
        "  host      : isk-cyd003\n"
        "  rank      : 7 (local_rank: 7)\n"
        "  exitcode  : 1 (pid: 297621)\n"
        "  error_file: /tmp/torchelastic_j7ep4i57/none_35x7otyl/attempt_0/7/error.json\n"
        "  traceback : Traceback (most recent call last):\n")
    got = incidents_of(tmp_path, {"torchrun.log": table}, ruleset)
    assert [(g.cause, g.rank, g.node) for g in got] == [(Cause.PYTHON_EXCEPTION, 7, "isk-cyd003")]


def test_exit_code_1_gives_way_to_what_the_logs_say(tmp_path: Path, ruleset: RuleSet) -> None:
    table = (
        "[rank2]: RuntimeError: CUDA error: an illegal memory access was encountered\n"
        "Root Cause (first observed failure):\n"
        "[0]:\n"
        "  time      : 2026-06-29_14:19:03\n"
        "  host      : node01\n"
        "  rank      : 5 (local_rank: 5)\n"
        "  exitcode  : 1 (pid: 297621)\n")
    got = incidents_of(tmp_path, {"torchrun.log": table}, ruleset)
    assert [(g.cause, g.rank) for g in got][:1] == [(Cause.ILLEGAL_MEMORY_ACCESS, 2)]


def test_an_unhandled_system_error_alone_is_the_network_without_a_drain(tmp_path: Path, ruleset: RuleSet) -> None:
    # L-insightface-1444: NCCL 2.4 in containers on a bridge network
    got = incidents_of(tmp_path, {"node1.log": (
        "    work = _default_pg.broadcast([tensor], opts)\n"
        "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:518, unhandled system error, "
        "NCCL version 2.4.8\n")}, ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.NETWORK, False)]


def test_the_oom_killers_task_table_alone_is_a_host_oom_kill(tmp_path: Path, ruleset: RuleSet) -> None:
    # H-llamafactory-3230: the pasted dmesg holds only the task table
    got = incidents_of(tmp_path, {"dmesg.log": (
        "[17798674.374310] [ 201965]  1000 201965  5861879    47747  2015232    30009          -998 python\n"
        "[17798674.374495] [ 202779]  1000 202779 274650088 243385180 1957441536     7930          -998 python\n"
        "[17798674.374519] [ 202780]  1000 202780 33475461  2529507 25161728     3314          -998 python\n")}, ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.HOST_OOM_KILL, False)]


def test_a_ray_task_error_names_the_worker_node_and_a_cuda_error_is_the_applications(tmp_path: Path, ruleset: RuleSet) -> None:
    # I-slime-1297
    got = incidents_of(tmp_path, {"train.log": (
        "    raise value.as_instanceof_cause()\n"
        "ray.exceptions.RayTaskError(AcceleratorError): ray::MegatronTrainRayActor.train() (pid=76563, ip=10.1.49.166, "
        "actor_id=37d82bcbdafcda12f1eef52b02000000, repr=<actor object at 0x7fbbb1353e60>)\n")}, ruleset)
    assert [(g.cause, g.node, g.drain) for g in got] == [(Cause.ILLEGAL_MEMORY_ACCESS, "10.1.49.166", False)]
    other = incidents_of(tmp_path / "b", {"train.log": (
        "ray.exceptions.RayTaskError(ValueError): ray::TrainTrainable.train() (pid=1042, ip=10.0.0.7, actor_id=37d8)\n")}, ruleset)
    assert [(g.cause, g.node) for g in other] == [(Cause.PYTHON_EXCEPTION, "10.0.0.7")]


def test_an_mpijob_evicted_by_kubernetes_is_preempted(tmp_path: Path, ruleset: RuleSet) -> None:
    # H-mpioperator-647: the MPIJob's status conditions
    got = incidents_of(tmp_path, {"kubectl.log": (
        "  - lastTransitionTime: \"2024-08-15T04:01:42Z\"\n"
        "    message: 1/8 workers are evicted\n"
        "    reason: MPIJobEvicted\n"
        "    status: \"True\"\n"
        "    type: Failed\n")}, ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.PREEMPTION, False)]


def test_a_store_read_that_came_back_empty_is_only_context(tmp_path: Path, ruleset: RuleSet) -> None:
    """The store's host closing its socket is also what a good run's end looks like (rank 0
    finishes first): the line is read, but alone it is no incident."""
    got = incidents_of(tmp_path, {"train.log": (
        "[rank101]:[W703 01:01:05.364835151 TCPStore.cpp:138] [c10d] recvValueWithTimeout failed on SocketImpl(fd=90, "
        "addr=[cw-h100-220-057]:43518, remote=[cw-h100-192-053]:56789): Failed to recv, got 0 bytes. Connection was "
        "likely closed. Did the remote server shutdown or crash?\n")}, ruleset)
    assert got == []


def test_a_timeout_then_the_ranks_own_connections_closing_is_a_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    # H-telechat52b-8: the proxy thread notes its own rank's abort after the watchdog timeout
    got = incidents_of(tmp_path, {"rank0.log": (
        "[E ProcessGroupNCCL.cpp:475] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12046, "
        "OpType=_ALLGATHER_BASE, Timeout(ms)=1800000) ran for 1800122 milliseconds before timing out.\n"
        "pod-6bd4bc4f59-kxc6g:6566:6787 [0] NCCL INFO [Service thread] Connection closed by localRank 0\n"
        "[E ProcessGroupNCCL.cpp:489] Some NCCL operations have failed or timed out. Due to the asynchronous nature of "
        "CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.\n")}, ruleset)
    assert [g.cause for g in got] == [Cause.HANG]
    # a peer's socket reset before the timeout: a peer was lost first
    got = incidents_of(tmp_path / "b", {"rank0.log": (
        "pod-6bd4bc4f59-kxc6g:6566:6787 [0] misc/socket.cc:50 NCCL WARN socketProgressOpt: Call to recv from "
        "10.0.0.2<33759> failed : Connection reset by peer\n"
        "[E ProcessGroupNCCL.cpp:475] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12046, "
        "OpType=_ALLGATHER_BASE, Timeout(ms)=1800000) ran for 1800122 milliseconds before timing out.\n")}, ruleset)
    assert [g.cause for g in got] != [Cause.HANG]


def test_a_horovod_stall_report_behind_a_collectors_stamp_and_replica_label(tmp_path: Path, ruleset: RuleSet) -> None:
    # H-polyaxon-657: Polyaxon stamps each line "<time> UTC master.0 -- " before Open MPI's tag
    stall = ("One or more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and are "
             "waiting for remainder of ranks for more than 60 seconds. This may indicate that different ranks are "
             "trying to submit different tensors or that only subset of ranks is submitting tensors, which will cause deadlock.")
    got = incidents_of(tmp_path, {"train.log": (
        f"2020-01-15 22:44:33 UTC master.0 -- [1,1]<stderr>:{stall}\n\n"
        "2020-01-15 22:44:33 UTC master.0 -- [1,1]<stderr>:Stalled ranks:\n\n"
        "2020-01-15 22:44:33 UTC master.0 -- [1,1]<stderr>:0: [HorovodAllreduce][1,1]<stderr>:\n")}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.HANG, 0)]


def test_untimed_local_closes_before_a_teardown_are_no_lost_peer(tmp_path: Path, ruleset: RuleSet) -> None:
    # B-accelerate-2960: NCCL's INFO notes of its own ranks aborting, then the watchdog's teardown
    got = incidents_of(tmp_path, {"train.log": (
        "SH-IDC1-10-140-24-95:214031:214765 [0] NCCL INFO [Service thread] Connection closed by localRank 3\n"
        "SH-IDC1-10-140-24-95:214034:214764 [3] NCCL INFO [Service thread] Connection closed by localRank 3\n"
        "[rank11]:[E726 10:59:44.365679787 ProcessGroupNCCL.cpp:621] [Rank 11] Some NCCL operations have failed or "
        "timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on "
        "corrupted/incomplete data.\n")}, ruleset)
    assert [g.cause for g in got] == [Cause.HANG]


def test_socket_calls_failing_under_nccl_with_no_rank_dying_are_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    # M-nccl-193: two pods on an overlay network, both sides of the same broken connection
    got = incidents_of(tmp_path, {
        "pod_a.log": "worker0-0d9gnb:15:91 [3] include/socket.h 398 NCCL WARN Call to write failed : Connection reset by peer.\n",
        "pod_b.log": "worker1-7xk2p:15:91 [3] include/socket.h 398 NCCL WARN Call to recv failed : Connection reset by peer.\n",
    }, ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.NETWORK, False)]


def test_a_watchdog_abort_named_only_in_what_is_the_ranks_own_timeout(tmp_path: Path, ruleset: RuleSet) -> None:
    # M-discoscene-5: torchelastic reports the abort (-6) of the rank whose watchdog fired
    got = incidents_of(tmp_path, {"train.log": (
        "terminate called after throwing an instance of 'std::runtime_error'\n"
        "  what():  [Rank 7] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=806, OpType=BROADCAST, "
        "Timeout(ms)=1800000) ran for 1800385 milliseconds before timing out.\n"
        "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 561635 closing signal SIGTERM\n"
        "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -6) local_rank: 7 (pid: 561642) of "
        "binary: /usr/bin/python\n")}, ruleset)
    assert [g.cause for g in got] == [Cause.HANG]


def test_jaxs_coordination_service_names_the_task_that_stopped(tmp_path: Path, ruleset: RuleSet) -> None:
    # I-archobjective-26: the process index is the rank; why it died is not said
    got = incidents_of(tmp_path, {"train.log": (
        "I1115 16:00:39.451247 140641718562816 trainer.py:501] Training: step 198\n"
        "2022-11-15 16:03:15.140058: E external/org_tensorflow/tensorflow/core/distributed_runtime/coordination/"
        "coordination_service.cc:954] /job:jax_worker/replica:0/task:37 has been set to ERROR in coordination service: "
        "UNAVAILABLE: Task /job:jax_worker/replica:0/task:37 heartbeat timeout. This indicates that the remote task has "
        "failed, got preempted, or crashed unexpectedly.\n")}, ruleset)
    assert [(g.cause, g.rank, g.drain) for g in got] == [(Cause.UNKNOWN, 37, False)]


def test_deepspeeds_disagreement_between_ranks_is_a_mismatch(tmp_path: Path, ruleset: RuleSet) -> None:
    # O-lightning-19096: ZeRO-3 compares its parameter ids across ranks
    got = incidents_of(tmp_path, {"train.log": (
        "RuntimeError: disagreement between rank0 and rank2: rank0: [-4866073977605047075, -4957833660337767236], "
        "rank2: [2, 3, 4, 6, 34]\n")}, ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.COLLECTIVE_MISMATCH, False)]


def _timeout(rank: int, stamp: str, enqueued: int = 7040) -> str:
    return (f"[rank{rank}]:[E0902 {stamp} ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog caught collective operation "
            f"timeout: WorkNCCL(SeqNum=7040, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for "
            f"1800083 milliseconds before timing out.\n"
            f"[rank{rank}]:[E0902 {stamp} ProcessGroupNCCL.cpp:1804] [PG ID 0 PG GUID 0(default_pg) Rank {rank}] "
            f"Timeout at NCCL work: 7040, last enqueued NCCL work: {enqueued}, last completed NCCL work: 7039.\n")


def test_an_application_xid_on_a_gpu_whose_rank_lived_on_is_another_processs(tmp_path: Path, ruleset: RuleSet) -> None:
    """An Xid 31 ends its process's CUDA context at once; the rank on that GPU still started a
    collective 30 minutes later: the fault was another process's (blind generator, seed 6)."""
    files = {"node01/kern.log": (
        "Sep  2 08:58:16 node01 kernel: [4929910.897957] NVRM: Xid (PCI:0000:4e:00): 31, pid=77179, name=python, "
        "channel 0x00000009, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC3 GPCCLIENT_T1_4 faulted @ 0x7f2a_3c000000. "
        "Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ\n")}
    for r in range(4):
        files[f"node01/rank{r}.log"] = (
            f"[rank{r}]:node01:10286{r}:1028843 [{r}] NCCL INFO comm 0x55d0c8abe4ba rank {r} nranks 4 cudaDev {r} "
            f"nvmlDev {r} busId {('1b000', '2c000', '3d000', '4e000')[r]} commId 0x3fa1 - Init COMPLETE\n"
            f"[rank{r}]:2024-09-02 08:30:00,000 - INFO - step 100\n" + _timeout(r, "09:30:25.314748236"))
    got = incidents_of(tmp_path, files, ruleset)
    assert [g.cause for g in got] == [Cause.HANG]
    # the same Xid with the rank's log ending at it: the rank's own fault
    files["node01/rank3.log"] = files["node01/rank3.log"].split("[rank3]:[E0902")[0]
    got = incidents_of(tmp_path / "b", files, ruleset)
    assert [(g.cause, g.rank) for g in got][:1] == [(Cause.ILLEGAL_MEMORY_ACCESS, 3)]


def test_a_rank_behind_the_others_outweighs_several_silent_ranks(tmp_path: Path, ruleset: RuleSet) -> None:
    # 16 ranks: 13 report the timeout, 3 are silent; rank 9 enqueued one collective fewer
    text = "".join(f"[rank{r}]:2024-09-02 08:30:00,000 - INFO - step 100\n" for r in range(16))
    text += "".join(_timeout(r, "09:30:25.314748236", 7039 if r == 9 else 7040) for r in range(16) if r not in (0, 1, 12))
    got = incidents_of(tmp_path, {"train.log": text}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.HANG, 9)]


def test_ranks_1_to_3_timing_out_without_rank_0_point_at_rank_0(tmp_path: Path, ruleset: RuleSet) -> None:
    # O-yolov5-4409: torch 1.8's watchdog line has no SeqNum; rank 0 is busy evaluating
    line = ("[E ProcessGroupNCCL.cpp:566] [Rank {r}] Watchdog caught collective operation timeout: "
            "WorkNCCL(OpType=BROADCAST, Timeout(ms)=60000) ran for 66854 milliseconds before timing out.\n")
    got = incidents_of(tmp_path, {"train.log": "".join(line.format(r=r) for r in (1, 2, 3))}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.HANG, 0)]
    # two of four ranks silent: nothing singles one out
    got = incidents_of(tmp_path / "b", {"train.log": "".join(line.format(r=r) for r in (2, 3))}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.HANG, None)]


def test_nvidia_smis_critical_xid_event_names_the_gpu_not_the_fault(tmp_path: Path, ruleset: RuleSet) -> None:
    # J-gcp-aiinfra-383: the paste ends inside the traceback; nvidia-smi saw an Xid on GPU 04:00
    got = incidents_of(tmp_path, {"pod.log": (
        "GPU 00000000:04:00.0: Detected Critical Xid Error\n"
        "Traceback (most recent call last):\n"
        '  File "/workspace/Megatron-LM/pretrain_gpt.py", line 220, in <module>\n')}, ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.UNKNOWN, False)]
    assert "GPU 0000:04:00" in got[0].explanation


def test_the_oom_killers_victim_not_the_first_row_of_its_task_table(tmp_path: Path, ruleset: RuleSet) -> None:
    """Every candidate has a row; the 'Killed process' line names the victim (review finding)."""
    rows = "".join(f"[17798674.3744{r}5] [ 100{r}]  1000 100{r} 33475461  2529507 25161728     3314          0 python\n"
                   for r in range(4))
    files = {"node01/kern.log": rows + "[17798674.375000] Out of memory: Killed process 1002 (python) total-vm:1234kB, "
                                       "anon-rss:1000kB, file-rss:0kB, shmem-rss:0kB\n"}
    for r in range(4):
        files[f"node01/rank{r}.log"] = (f"[rank{r}]:node01:100{r}:2000 [{r}] NCCL INFO comm 0x55 rank {r} nranks 4 cudaDev {r} "
                                        f"busId {r + 1}b000 - Init COMPLETE\n")
    got = incidents_of(tmp_path, files, ruleset)
    assert [(g.cause, g.rank) for g in got][:1] == [(Cause.HOST_OOM_KILL, 2)]


def test_an_xid_whose_rank_stopped_there_stays_its_fault_whatever_the_launcher_says_later(tmp_path: Path, ruleset: RuleSet) -> None:
    """The launcher's line about the rank, printed 30 minutes later, is no sign of the rank being
    alive (review finding): only a collective the rank began after the fault is."""
    files = {"node01/kern.log": (
        "Sep  2 08:58:16 node01 kernel: [4929910.897957] NVRM: Xid (PCI:0000:4e:00): 31, pid=77179, name=python, "
        "channel 0x00000009, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC3 faulted @ 0x7f2a_3c000000.\n")}
    for r in range(4):
        files[f"node01/rank{r}.log"] = (
            f"[rank{r}]:node01:10286{r}:1028843 [{r}] NCCL INFO comm 0x55d0c8abe4ba rank {r} nranks 4 cudaDev {r} "
            f"nvmlDev {r} busId {('1b000', '2c000', '3d000', '4e000')[r]} commId 0x3fa1 - Init COMPLETE\n"
            f"[rank{r}]:2024-09-02 08:30:00,000 - INFO - step 100\n" + ("" if r == 3 else _timeout(r, "09:30:25.314748236")))
    files["node01/agent.log"] = ("[2024-09-02 09:31:00,000] torch.distributed.elastic.multiprocessing.api: [ERROR] failed "
                                 "(exitcode: -6) local_rank: 3 (pid: 102863) of binary: /usr/bin/python\n")
    got = incidents_of(tmp_path, files, ruleset)
    assert [(g.cause, g.rank) for g in got][:1] == [(Cause.ILLEGAL_MEMORY_ACCESS, 3)]


def test_system_errors_with_one_rank_silent_are_no_network_verdict(tmp_path: Path, ruleset: RuleSet) -> None:
    """Older NCCL prints 'unhandled system error' on the survivors when a peer dies: with a rank
    that logged and then fell silent, the network is not concluded (review finding)."""
    text = "".join(f"[rank{r}]:2024-09-02 08:30:00,000 - INFO - step 100\n" for r in range(8))
    text += "".join(f"[rank{r}]: RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:518, unhandled "
                    "system error, NCCL version 2.4.8\n" for r in range(8) if r != 3)
    got = incidents_of(tmp_path, {"train.log": text}, ruleset)
    assert got and got[0].cause is not Cause.NETWORK


def test_a_good_runs_end_stays_clean(tmp_path: Path, ruleset: RuleSet) -> None:
    """At a good run's end rank 0 (the store) exits first; the others' store reads come back empty
    and NCCL notes the local closes (review finding): no incident."""
    text = "".join(f"[rank{r}]:2024-09-02 08:30:00,000 - INFO - step 100 loss 1.2\n" for r in range(4))
    text += "[rank0]:2024-09-02 08:31:00,000 - INFO - Training completed. Saving final checkpoint.\n"
    text += "".join(
        f"[rank{r}]:[W902 08:31:05.364835151 TCPStore.cpp:138] [c10d] recvValueWithTimeout failed on SocketImpl(fd=90, "
        f"addr=[node01]:43518, remote=[node01]:29500): Failed to recv, got 0 bytes. Connection was likely closed. Did "
        f"the remote server shutdown or crash?\n"
        f"node01:100{r}:2000 [{r}] NCCL INFO [Service thread] Connection closed by localRank 0\n" for r in (1, 2, 3))
    assert incidents_of(tmp_path, {"train.log": text}, ruleset) == []


def test_the_one_rank_that_logged_but_never_timed_out_is_the_hung_one(tmp_path: Path, ruleset: RuleSet) -> None:
    text = "".join(f"[rank{r}]:2024-09-02 08:30:00,000 - INFO - step 100\n" for r in range(8))
    text += "".join(_timeout(r, "09:30:25.314748236") for r in range(8) if r != 5)
    got = incidents_of(tmp_path, {"train.log": text}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.HANG, 5)]


def _xid_run(extra_agent: str, train_lines: str) -> dict[str, str]:
    files = {"node01/kern.log": (
        "Jan 29 17:31:28 node01 kernel: NVRM: Xid (PCI:0000:3b:00): 31, pid=53080, name=python, channel 0x00000009, "
        "intr 00000000. MMU Fault: ENGINE GRAPHICS GPC3 faulted @ 0x7f2a_3c000000.\n")}
    log = "".join(f"[rank{r}]:node01:110016{r}:1100810 [{r}] NCCL INFO comm 0x55d0 rank {r} nranks 4 cudaDev {r} nvmlDev {r} "
                  f"busId {('1b000', '3b000', '5b000', '7b000')[r]} commId 0x3fa1 - Init COMPLETE\n" for r in range(4))
    files["node01/train.log"] = log + train_lines + extra_agent
    return files


def test_an_app_xid_whose_ranks_process_the_launcher_later_signalled_is_another_processs(tmp_path: Path, ruleset: RuleSet) -> None:
    """blind seed 10: a preempted job whose node kept an app Xid of another process; rank 1's
    process was still there to be sent SIGTERM (untimed lines), so the Xid was not its end."""
    agent = ("WARNING:torch.distributed.elastic.agent.server.api:Received Signals.SIGTERM death signal, shutting down workers\n"
             + "".join(f"WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 110016{r} closing signal SIGTERM\n"
                       for r in range(4)))
    got = incidents_of(tmp_path, _xid_run(agent, ""), ruleset)
    assert not got or got[0].cause is not Cause.ILLEGAL_MEMORY_ACCESS


def test_a_small_logs_first_stamp_may_come_late(tmp_path: Path, ruleset: RuleSet) -> None:
    """blind seed 10: 250 untimed launcher and NCCL lines, then the run starts at 19:43 and ends
    well; the node's app Xid of 18:57 is from before the job."""
    steps = "".join(f"[rank0]:[INFO|trainer.py:2128] 2025-01-29 19:{m:02d}:47,996 >> step {m}\n" for m in range(43, 60))
    files = _xid_run("", "".join(f"[rank{r % 4}]:node01:1100160:1100810 [0] NCCL INFO Channel 0{r % 8}/0 : 0[0] -> 1[1] via P2P/IPC\n"
                                  for r in range(250)) + steps)
    files["node01/kern.log"] = files["node01/kern.log"].replace("17:31:28", "18:57:21")
    assert incidents_of(tmp_path, files, ruleset) == []


@pytest.mark.parametrize(("line", "hour"), [
    ("[INFO|trainer.py:2128] 2025-11-03 19:43:47,996 >> ***** Running training *****", 19),  # transformers' examples
    ("[INFO|2024-05-08 12:00:00] llamafactory.hparams.parser:355 >> Process rank: 0", 12),  # LLaMA-Factory
    ("[WARNING|logging.py:313] 2024-01-01 10:00:00,000 >> You're using a fast tokenizer", 10),
])
def test_a_level_header_before_the_stamp(line: str, hour: int) -> None:
    from detector.sources.timestamps import parse_timestamp

    stamp = parse_timestamp(line, year=2025)
    assert stamp is not None and stamp.time is not None and stamp.time.hour == hour
    assert parse_timestamp("[INFO] no stamp here", year=2025) is None
