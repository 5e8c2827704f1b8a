"""Readings of the tenth session's development cases (replay_logs/real, letters CA, CC, CE, CG, CH), each
on a log written here in the shape the real paste had: an error the program says it caught,
the one exit mpirun names, stall and Flight Recorder reports that list missing ranks, timeouts
one collective apart, and an error line no prefix places beside a rank's death."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of

_CAUGHT = ("(pid=3959, ip=172.31.41.219) | WARNING: ran out of memory with exception: CUDA out of memory. "
           "Tried to allocate 1.50 GiB (GPU 0; 15.75 GiB total capacity; 11.71 GiB already allocated; "
           "584.94 MiB free; 2.38 GiB cached);\n(pid=3959, ip=172.31.41.219)  Skipping batch\n")


def test_an_out_of_memory_error_the_program_caught_is_no_incident(tmp_path: Path, ruleset: RuleSet) -> None:
    assert incidents_of(tmp_path, {"train.log": _CAUGHT * 4}, ruleset) == []


def test_a_caught_out_of_memory_error_whose_recovery_failed_is_the_cause(tmp_path: Path, ruleset: RuleSet) -> None:
    failed = (_CAUGHT + "Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n"
              "    main()\n  File \"train.py\", line 5, in main\n    trainer.train_step(batch)\n")
    [incident] = incidents_of(tmp_path, {"train.log": failed}, ruleset)
    assert incident.cause is Cause.CUDA_OOM
    assert any("ran out of memory with exception" in e for e in incident.evidence)


_MPIRUN_FIRST = """node05:44741:44741 [0] NCCL INFO Launch mode Parallel
-------------------------------------------------------
Primary job  terminated normally, but 1 process returned
a non-zero exit code.. Per user-direction, the job has been aborted.
-------------------------------------------------------
--------------------------------------------------------------------------
mpirun detected that one or more processes exited with non-zero status, thus causing
the job to be terminated. The first process to do so was:

  Process name: [[11192,1],{rank}]
  Exit code:    {code}
--------------------------------------------------------------------------
"""


def test_the_process_mpirun_says_exited_first_is_the_initiator(tmp_path: Path, ruleset: RuleSet) -> None:
    [incident] = incidents_of(tmp_path / "a", {"console.log": _MPIRUN_FIRST.format(rank=8, code=3)}, ruleset)
    assert (incident.cause, incident.rank) == (Cause.UNKNOWN, 8)  # an exit code says who, not what
    [incident] = incidents_of(tmp_path / "b", {"console.log": _MPIRUN_FIRST.format(rank=2, code=1)}, ruleset)
    assert (incident.cause, incident.rank) == (Cause.PYTHON_EXCEPTION, 2)


def test_horovod_s_pytorch_stall_report_names_the_missing_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    stall = ("WARNING: One or more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks "
             "and are waiting for remainder of ranks for more than 60 seconds. This may indicate that different ranks "
             "are trying to submit different tensors or that only subset of ranks is submitting tensors, which will "
             "cause deadlock. \nStalled ops:\nallreduce.avg_loss [missing ranks: 1]\n")
    [incident] = incidents_of(tmp_path, {"train.log": stall * 3}, ruleset)
    assert (incident.cause, incident.rank) == (Cause.HANG, 1)


_FR_TRACE = """Not all ranks joining collective: sequence number: 31117
internal record id: 31116
group info: 0:default_pg
collective: nccl:all_reduce
missing ranks: {missing}
input sizes: [[1571911]]
output sizes: [[1571911]]
world size: 8
expected ranks: {{0, 1, 2, 3, 4, 5, 6, 7}}
collective state: scheduled
"""


def test_the_flight_recorder_analyser_s_missing_ranks_make_a_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    [incident] = incidents_of(tmp_path / "a", {"output.log": _FR_TRACE.format(missing="{3, 4, 5, 6, 7}")}, ruleset)
    assert (incident.cause, incident.rank) == (Cause.HANG, None)  # five missing: none stands out
    assert "ranks 3, 4, 5, 6, 7 never joined" in incident.explanation
    [incident] = incidents_of(tmp_path / "b", {"output.log": _FR_TRACE.format(missing="{5}")}, ruleset)
    assert (incident.cause, incident.rank) == (Cause.HANG, 5)


_TIMEOUT = ("stderr: [E ProcessGroupNCCL.cpp:821] [Rank {rank}] Watchdog caught collective operation timeout: "
            "WorkNCCL(SeqNum={seq}, OpType={op}, Timeout(ms)=1800000) ran for 1808182 milliseconds before timing out.\n")


def test_timeouts_one_collective_apart_are_a_hang_not_a_mismatch(tmp_path: Path, ruleset: RuleSet) -> None:
    apart = _TIMEOUT.format(rank=1, seq=1, op="BROADCAST") + _TIMEOUT.format(rank=0, seq=2, op="ALLGATHER")
    [incident] = incidents_of(tmp_path / "a", {"console.log": apart}, ruleset)
    assert (incident.cause, incident.rank) == (Cause.HANG, 1)  # the rank behind
    # at one sequence number, two collectives: the ranks called different ones
    same = (_TIMEOUT.format(rank=1, seq=7, op="BROADCAST") + _TIMEOUT.format(rank=0, seq=7, op="ALLGATHER")
            + _TIMEOUT.format(rank=2, seq=7, op="ALLGATHER"))
    [incident] = incidents_of(tmp_path / "b", {"console.log": same}, ruleset)
    assert incident.cause is Cause.COLLECTIVE_MISMATCH


def test_an_error_no_prefix_places_says_what_killed_the_worker_that_died(tmp_path: Path, ruleset: RuleSet) -> None:
    failed = "Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:455 'an illegal memory access was encountered'\n"
    log = ("[rank0]:[W731 09:09:48.669694584 ProcessGroupNCCL.cpp:5188] Guessing device ID based on global rank. "
           "This can cause a hang if rank to GPU mapping is heterogeneous.\n" + failed * 2
           + "(EngineCore pid=58154) ERROR 07-31 09:09:51 [multiproc_executor.py:284] Worker proc VllmWorker-2 died "
           "unexpectedly (exit code: None), shutting down executor.\n")
    [incident] = incidents_of(tmp_path, {"console.log": log}, ruleset)
    assert incident.cause is Cause.ILLEGAL_MEMORY_ACCESS
    assert incident.confidence <= 0.6  # the worker's death and the error may be two processes'
    assert any("illegal memory access" in e for e in incident.evidence)


ONE_CAUSE = {
    # glog's failure signal handler (PaddlePaddle, Caffe2)
    "glog-sigsegv": ("PC: @                0x0 (unknown)\n*** SIGSEGV (@0x50) received by PID 12833 (TID 0x7f56686c9700) "
                     "from PID 80; stack trace: ***\n    @     0x7f54bff14ea7 freeRing()\n    @     0x7f54bff10cc5 "
                     "ncclCommInitAll\n", Cause.CRASH_SIGNAL, None),
    # PaddlePaddle's launcher names the trainer that ended with an error, and no more
    "paddle-trainer-aborted": ("[2021/08/26 07:33:27] root INFO: save model in outputs/table_rare/latest\n"
                               "INFO 2021-08-26 07:33:44,620 launch_utils.py:327] terminate all the procs\n"
                               "ERROR 2021-08-26 07:33:44,620 launch_utils.py:584] ABORT!!! Out of all 2 trainers, the "
                               "trainer process with rank=[1] was aborted. Please check its log.\n", Cause.UNKNOWN, 1),
    # a store client that tried every address of the store's host and gave up
    "store-any-address": (("[W113 11:30:03.000000000 socket.cpp:697] [c10d] The client socket has failed to connect to "
                           "node01.internal.example.cn:62018 (system error: 10060 - ???).\n") * 3
                          + "[E113 11:30:26.000000000 socket.cpp:753] [c10d] The client socket has failed to connect to "
                          "any network address of (node01.internal.example.cn, 62018).\n"
                          "Traceback (most recent call last):\n", Cause.NETWORK, None),
    # the store's port taken, as torch 2.x built without IPv6 says it
    "store-port-ipv6-0": ("RuntimeError: The server socket has failed to listen on any local network address. port: "
                          "29500, useIpv6: 0, code: -98, name: EADDRINUSE, message: address already in use\n",
                          Cause.NETWORK, None),
    # NCCL retrying a connection its peer refuses, as the log's last words (the job stuck there)
    "nccl-refused-to-the-end": ("GPU9:10330:10330 [0] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>\n"
                                + "GPU9:10330:10399 [0] NCCL INFO Call to connect returned Connection refused, retrying\n" * 3,
                                Cause.NETWORK, None),
    # TensorPipe's InfiniBand transport (torch.distributed.rpc)
    "tensorpipe-ibv": ("    _set_and_start_rpc_agent(agent)\n"
                       "RuntimeError: In operator() at tensorpipe/common/ibv.h:172 \"\": Invalid argument\n",
                       Cause.NETWORK, None),
    # torch 1.x's store port taken, its binds printed on lines of their own
    "store-port-binds-below": ("RuntimeError: The server socket has failed to listen on any local network address. \n"
                               "The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use). \n"
                               "The server socket has failed to bind to ?UNKNOWN? (errno: 98 - Address already in use).\n",
                               Cause.NETWORK, None),
    # TensorFlow 1.x's out-of-memory error as Horovod's mpirun tags it
    "tf1-oom-see-above": ("[1,1]<stderr>:    self._traceback = tf_stack.extract_stack()\n[1,1]<stderr>:\n"
                          "[1,1]<stderr>:ResourceExhaustedError (see above for traceback): OOM when allocating tensor with "
                          "shape[2,1023,50257] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator "
                          "GPU_0_bfc\n", Cause.CUDA_OOM, 1),
    # the TPU runtime's failure signal handler
    "tpu-runtime-sigsegv": ("*** SIGSEGV (@(nil)), see gl__________41#s15 received by PID 11743 (TID 12350) on cpu 17; "
                            "stack trace: ***\nPC: @     0x7facba4a8de2  (unknown)  (unknown)\n", Cause.CRASH_SIGNAL, None),
}


@pytest.mark.parametrize("name", sorted(ONE_CAUSE))
def test_one_log_one_cause(name: str, tmp_path: Path, ruleset: RuleSet) -> None:
    log, cause, rank = ONE_CAUSE[name]
    [incident] = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert (incident.cause, incident.rank) == (cause, rank)


def test_refused_retries_that_led_somewhere_are_no_incident(tmp_path: Path, ruleset: RuleSet) -> None:
    retried = ("GPU9:10330:10399 [0] NCCL INFO Call to connect returned Connection refused, retrying\n" * 3
               + "GPU9:10330:10399 [0] NCCL INFO Connected all rings\n" + "GPU9:10330:10330 [0] NCCL INFO comm 0x5 rank 1 "
               "nranks 2 cudaDev 0 busId 3b000 - Init COMPLETE\n" * 6)
    assert incidents_of(tmp_path, {"train.log": retried}, ruleset) == []


def test_a_data_bar_cut_by_a_wait_in_main_process_first_is_rank_0_s(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("Running tokenizer on dataset:  47%|####7     | 3169000/6811963 [30:11<38:27, 1578.58 examples/s]"
           "Traceback (most recent call last):\n"
           "  File \"src/train_sft.py\", line 25, in main\n"
           "    with training_args.main_process_first(desc=\"dataset map pre-processing\"):\n"
           "  File \"/envs/lib/python3.9/site-packages/transformers/training_args.py\", line 1891, in main_process_first\n"
           "    torch.distributed.barrier()\n"
           "RuntimeError: [1] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value "
           "store by key '0', but store->get('0') got error: Socket Timeout\n")
    [incident] = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert (incident.cause, incident.rank) == (Cause.STRAGGLER, 0)


def test_a_straggler_no_line_places_is_advised_as_a_rank_not_rank_none() -> None:
    from detector.attribution.advice import remediation_for
    from detector.types import Initiator

    unplaced = remediation_for(Cause.STRAGGLER, Initiator(), has_hardware_evidence=False, anchor=None)
    assert "None" not in unplaced.fix and unplaced.fix.startswith("A rank")
    placed = remediation_for(Cause.STRAGGLER, Initiator(rank=3), has_hardware_evidence=False, anchor=None)
    assert placed.fix.startswith("Rank 3 is slower")


def _step(rank: int, i: int) -> str:
    return f"[rank{rank}]:2026-11-30 10:{i // 60:02d}:{i % 60:02d},000 INFO step {i} | loss 1.0 | step_ms 800\n"


def test_a_caught_oom_is_not_the_cause_of_another_rank_s_later_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    caught = ("[rank2]:2026-11-30 10:00:30,000 | WARNING: ran out of memory with exception: CUDA out of memory. "
              "Tried to allocate 1.50 GiB (GPU 2; 15.75 GiB total capacity)\n[rank2]: Skipping batch\n")
    log = ("".join(_step(r, i) for i in range(30) for r in (2, 7)) + caught
           + "".join(_step(r, i) for i in range(30, 50) for r in (2, 7))
           + "[rank7]:2026-11-30 10:01:00,000 RuntimeError: CUDA error: an illegal memory access was encountered\n")
    [incident] = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert (incident.cause, incident.rank) == (Cause.ILLEGAL_MEMORY_ACCESS, 7)


def test_a_caught_oom_beside_start_up_retries_is_still_no_incident(tmp_path: Path, ruleset: RuleSet) -> None:
    log = "node07:2231:2301 [3] NCCL INFO Call to connect returned Connection refused, retrying\n" + _CAUGHT * 3
    assert incidents_of(tmp_path, {"train.log": log}, ruleset) == []


def test_ranks_that_disagree_at_the_lower_of_two_collectives_mismatched(tmp_path: Path, ruleset: RuleSet) -> None:
    log = (_TIMEOUT.format(rank=0, seq=7, op="ALLGATHER") + _TIMEOUT.format(rank=1, seq=7, op="ALLGATHER")
           + _TIMEOUT.format(rank=2, seq=7, op="BROADCAST") + _TIMEOUT.format(rank=3, seq=8, op="ALLREDUCE"))
    [incident] = incidents_of(tmp_path, {"console.log": log}, ruleset)
    assert incident.cause is Cause.COLLECTIVE_MISMATCH


def test_one_stall_report_at_pytorch_s_initial_broadcast_is_a_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    stall = ("WARNING: One or more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks "
             "and are waiting for remainder of ranks for more than 60 seconds. This may indicate that different ranks "
             "are trying to submit different tensors or that only subset of ranks is submitting tensors, which will "
             "cause deadlock. \nStalled ops:\nbroadcast.fc1.weight [missing ranks: 1]\n")
    [incident] = incidents_of(tmp_path, {"train.log": stall}, ruleset)
    assert (incident.cause, incident.rank) == (Cause.HANG, 1)
