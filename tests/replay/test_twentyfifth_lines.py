"""The twenty-fifth session's cases: an exception a program caught and logged while it trained
on, and NCCL skipping an InfiniBand device it could not open, read as no failure; the same
lines where the run stopped on them stay its failure."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import causes_of, incidents_of

CLIENT_ERROR = """Monitoring call failed: rpc process closed
Traceback (most recent call last):
  File "/app/monitor/agent.py", line 1027, in run
    raw_output = client.review(batch)
  File "/usr/local/lib/python3.12/dist-packages/monitor/client.py", line 921, in review
    return await response_future
monitor.errors.MonitorError: rpc process closed
"""


def _steps(first: int, count: int) -> str:
    return "".join(f"[2026-03-23 04:{(first + i) // 60 % 60:02d}:{(first + i) % 60:02d}] INFO: step:{first + i}/20000 "
                   f"train_loss:2.{i % 10}31 train_time:{(first + i) * 84}ms step_avg:84.00ms\n" for i in range(count))


def test_an_exception_training_went_on_long_after_is_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    text = _steps(0, 20) + CLIENT_ERROR + _steps(20, 150)
    assert causes_of(tmp_path / "went-on", {"train.log": text}, ruleset) == []


def test_an_exception_that_ends_the_training_stays_the_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    # the same lines, with only a few steps after them (the last ones a buffered stdout flushed)
    text = _steps(0, 150) + CLIENT_ERROR + _steps(150, 5)
    assert causes_of(tmp_path / "stopped", {"train.log": text}, ruleset)[:1] == [Cause.PYTHON_EXCEPTION]


def test_the_same_error_ending_the_log_after_runs_that_went_on_stays_the_failure(tmp_path: Path,
                                                                                 ruleset: RuleSet) -> None:
    # a job resumed twice that fails the same way each time: the last one ends the log
    text = CLIENT_ERROR + _steps(0, 120) + CLIENT_ERROR + _steps(120, 120) + CLIENT_ERROR
    assert causes_of(tmp_path / "third", {"train.log": text}, ruleset)[:1] == [Cause.PYTHON_EXCEPTION]


def test_steps_a_buffered_stdout_flushed_after_the_crash_do_not_hide_it(tmp_path: Path, ruleset: RuleSet) -> None:
    short = "".join(f"step {i} loss 2.31\n" for i in range(150))
    text = short + CLIENT_ERROR + short + "srun: error: node07: task 0: Exited with exit code 1\n"
    assert causes_of(tmp_path / "flushed", {"slurm-1.out": text}, ruleset)[:1] == [Cause.PYTHON_EXCEPTION]


def test_one_ranks_crash_in_a_file_of_several_ranks_is_not_hidden_by_the_others_steps(tmp_path: Path,
                                                                                   ruleset: RuleSet) -> None:
    def steps(rank: int, first: int, count: int) -> str:
        return "".join(f"{rank}: step {first + i} loss 2.31 lr 0.0003 tokens/s 51234\n" for i in range(count))
    crash = "".join(f"1: {line}\n" for line in CLIENT_ERROR.splitlines())
    text = steps(0, 0, 20) + steps(1, 0, 20) + crash + steps(0, 20, 150)
    seen = incidents_of(tmp_path / "srun-l", {"slurm-2.out": text}, ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION and seen[0].rank == 1, seen


IB_OPEN = """[2026-03-18 14:38:12] pgut1-0:871784:871848 [5] ibvwrap.c:94 NCCL WARN Call to ibv_open_device failed
[2026-03-18 14:38:12] pgut1-0:871784:871848 [5] p2p_plugin.c:565 NCCL WARN NET/IB : Unable to open device mlx5_an0
"""


def test_nccl_skipping_a_device_it_cannot_open_is_no_network_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    assert causes_of(tmp_path / "open", {"train.log": "NCCL version 2.27.5+cuda12.9\n" + IB_OPEN + _steps(0, 30)},
                     ruleset) == []
    # another verbs call failing is still the network's failure
    failed = IB_OPEN.replace("ibv_open_device failed", "ibv_modify_qp failed with 110 Connection timed out")
    assert causes_of(tmp_path / "modify", {"train.log": failed}, ruleset)[:1] == [Cause.NETWORK]


def _rank_traceback(rank: int, exc: str) -> str:
    return (f"{rank}: [rank{rank}]: Traceback (most recent call last):\n"
            f'{rank}: [rank{rank}]:   File "/work/pretrain_gpt.py", line 43, in <module>\n'
            f"{rank}: [rank{rank}]:     pretrain(\n"
            f'{rank}: [rank{rank}]:   File "/work/megatron/training/training.py", line 1077, in train_step\n'
            f"{rank}: [rank{rank}]:     if grad or other:\n"
            f"{rank}: [rank{rank}]: {exc}\n")


def test_the_same_exception_on_two_ranks_is_the_one_srun_saw_exit_first(tmp_path: Path, ruleset: RuleSet) -> None:
    exc = "RuntimeError: Boolean value of Tensor with more than one value is ambiguous"
    text = (_rank_traceback(0, exc) + _rank_traceback(1, exc)
            + "srun: error: nid006997: task 1: Exited with exit code 1\n"
            + "0: [2026-05-26T22:33:49.044] error: *** STEP 2400413.1 ON nid006975 CANCELLED AT 2026-05-26T22:33:49 "
              "DUE TO TASK FAILURE ***\n"
            + "srun: error: nid006975: task 0: Terminated\n")
    (seen,) = incidents_of(tmp_path / "srun", {"2400413.err": text}, ruleset)
    assert seen.cause is Cause.PYTHON_EXCEPTION and seen.rank == 1, seen
    # the other way round (rank 1's traceback printed first, task 0 exiting first): rank 0 is the one
    swapped = (_rank_traceback(1, exc) + _rank_traceback(0, exc)
               + "srun: error: nid006975: task 0: Exited with exit code 1\n"
               + "1: [2026-05-26T22:33:49.044] error: *** STEP 2400413.1 ON nid006997 CANCELLED AT 2026-05-26T22:33:49 "
                 "DUE TO TASK FAILURE ***\n"
               + "srun: error: nid006997: task 1: Terminated\n")
    (seen,) = incidents_of(tmp_path / "swapped", {"2400413.err": swapped}, ruleset)
    assert seen.cause is Cause.PYTHON_EXCEPTION and seen.rank == 0, seen


def test_srun_tasks_that_are_nodes_do_not_name_the_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    # one torchrun a node: srun's task 1 is the second node (ranks 8-15), not global rank 1
    exc = "RuntimeError: Boolean value of Tensor with more than one value is ambiguous"
    text = ("1: [rank9]: Traceback (most recent call last):\n"
            '1: [rank9]:   File "/work/pretrain_gpt.py", line 43, in <module>\n'
            f"1: [rank9]: {exc}\n"
            "0: [rank1]: Traceback (most recent call last):\n"
            '0: [rank1]:   File "/work/pretrain_gpt.py", line 43, in <module>\n'
            f"0: [rank1]: {exc}\n"
            "srun: error: nid2: task 1: Exited with exit code 1\n"
            "srun: error: nid1: task 0: Terminated\n")
    (seen,) = incidents_of(tmp_path / "nodes", {"slurm-3.err": text}, ruleset)
    assert seen.cause is Cause.PYTHON_EXCEPTION and seen.rank == 9, seen


PADDLE_INTERRUPT = """Traceback (most recent call last):
  File "train_paddle.py", line 91, in train_epoch
    output = self.model(clip_q, clip_k)
  File "/usr/local/lib/python3.7/site-packages/paddle/fluid/dygraph/varbase_patch_methods.py", line 119, in set_value
    value_np = value.numpy()
KeyboardInterrupt
terminate called without an active exception


--------------------------------------
C++ Traceback (most recent call last):
--------------------------------------
0   paddle::framework::SignalHandle(char const*, int)
1   paddle::platform::GetCurrentTraceBackString()

----------------------
Error Message Summary:
----------------------
FatalError: `Process abort signal` is detected by the operating system.
  [TimeInfo: *** Aborted at 1614912721 (unix time) try "date -d @1614912721" if you are using GNU date ***]
  [SignalInfo: *** SIGABRT (@0x6e57) received by PID 28247 (TID 0x7fdb84d13700) from PID 28247 ***]
"""


def test_an_abort_on_the_way_out_after_ctrl_c_is_still_a_stop_from_outside(tmp_path: Path, ruleset: RuleSet) -> None:
    files = {f"workerlog.{r}": _steps(0, 10) + PADDLE_INTERRUPT for r in range(2)}
    assert causes_of(tmp_path / "interrupted", files, ruleset)[:1] == [Cause.PREEMPTION]
    # an abort of its own, with no interrupt before it, stays the rank's failure
    own = {f"workerlog.{r}": _steps(0, 10) + PADDLE_INTERRUPT.split("terminate called")[1] for r in range(2)}
    assert causes_of(tmp_path / "own", own, ruleset)[:1] != [Cause.PREEMPTION]


def test_argparse_error_under_a_parser_description_with_spaces(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("usage: MAE linear probing for image classification [--batch_size BATCH_SIZE]\n"
            "                                                   [--epochs EPOCHS]\n"
            "MAE linear probing for image classification: error: unrecognized arguments: --finetune /ckpt.pth\n"
            "srun: error: ga005: task 0: Exited with exit code 2\n")
    (seen,) = incidents_of(tmp_path / "argparse", {"probe.out": text}, ruleset)
    assert seen.cause is Cause.PYTHON_EXCEPTION and "unrecognized arguments" in " ".join(seen.evidence), seen


def _nccl_test(name: str, body: str) -> str:
    ranks = "".join(f"#  Rank  {r} Group  0 Pid {39733 + r} on node{r // 4} device  {r % 4} [0000:{r + 10}:00] "
                    "NVIDIA H100 80GB HBM3\n" for r in range(8))
    return ("# nccl-tests version 2.17.6 nccl-headers=22807 nccl-library=22807\n"
            f"# Collective test starting: {name}\n"
            "# nThread 1 nGpus 1 minBytes 33554432 maxBytes 17179869184 step: 2(factor) warmup iters: 5 iters: 20\n"
            "#\n# Using devices\n" + ranks + "#\n"
            "#       size         count      type   redop    root     time   algbw   busbw  #wrong\n"
            "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)\n" + body)


FAILED = ("node0: Test NCCL failure common.cu:401 'remote process exited or there was a network error / '\n"
          " .. node0 pid 39733: Test failure common.cu:519\n .. node0 pid 39733: Test failure alltoall.cu:348\n")
PASSED = "".join(f"    {33554432 << i:>10}   {8388608 << i:>10}     float    none      -1   5123.4    6.55    6.55       0\n"
                 for i in range(8)) + "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 6.61\n#\n"


def test_a_failed_test_of_an_nccl_tests_sweep_stays_failed_when_the_next_test_passes(tmp_path: Path,
                                                                                     ruleset: RuleSet) -> None:
    sweep = _nccl_test("alltoall_perf", FAILED) + _nccl_test("sendrecv_perf", PASSED)
    assert causes_of(tmp_path / "sweep", {"nccl_N2_G4_cnode2-003_cnode2-012.log": sweep}, ruleset)[:1] == [Cause.NETWORK]


# how a Slurm job's output ends when someone cancels it (scancel)
SCANCEL = ("srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n"
           "slurmstepd: error: *** JOB 272162 ON node01 CANCELLED AT 2024-07-10T15:46:57 ***\n"
           "0: slurmstepd: error: *** STEP 272162.0 ON node01 CANCELLED AT 2024-07-10T15:46:57 ***\n")


def test_a_job_cancelled_while_its_store_host_never_resolved_is_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    unresolved = "".join(f"{r}: [W socket.cpp:653] [c10d] The IPv6 network addresses of (nodeai[01,05], 53394) cannot be "
                         "retrieved (gai error: -2 - Name or service not known).\n" for _ in range(30) for r in (1, 0))
    text = (":::MLLOG {\"namespace\": \"\", \"time_ms\": 1720626290000, \"event_type\": \"INTERVAL_START\", "
            "\"key\": \"init_start\", \"value\": null}\n" + unresolved
            + SCANCEL)
    assert causes_of(tmp_path / "unresolved", {"output.txt": text}, ruleset)[:1] == [Cause.NETWORK]
    # cancelled with nothing said before it: someone cancelled the job
    quiet = text.replace(unresolved, "")
    assert causes_of(tmp_path / "quiet", {"output.txt": quiet}, ruleset)[:1] == [Cause.PREEMPTION]


def test_the_ascend_runtime_failing_to_allocate_memory_is_the_out_of_memory(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("Traceback (most recent call last):\n"
            '  File "/usr/local/lib/python3.11/site-packages/triton/backends/ascend/driver.py", line 358, in get_current_stream\n'
            "    return _npu_getCurrentRawStream(device)\n"
            "RuntimeError: The Inner error is reported as above. The process exits for this inner error, and the current "
            "working operator name is SelfAttentionOperation.\n"
            "[ERROR] 2025-12-27-01:06:16 (PID:2334, Device:2, RankID:-1) ERR00100 PTA call acl api failed.\n"
            "[PID: 2334] 2025-12-27-01:06:16.338.761 Memory_Allocation_Failure(EL0004): Failed to allocate memory.\n"
            "        Possible Cause: Available memory is insufficient.\n")
    assert causes_of(tmp_path / "npu", {"rank2.log": text}, ruleset)[:1] == [Cause.CUDA_OOM]


def test_an_npu_kernel_fault_then_the_stream_sync_failing_is_the_fault(tmp_path: Path, ruleset: RuleSet) -> None:
    fault = ("        The error from device(chipId:0, dieId:0), serial number is 5, there is an exception of fftsplus "
             "aivector error, core id is 14, error code = 0x800000, dump info: pc start: 0x12c0c3b31ca4\n"
             "        The extend info: errcode:(0x800000, 0, 0) errorStr: The DDR address of the MTE instruction is out "
             "of range. fixp_error0 info: 0x6000064\n")
    sync = ("[2026-01-14 12:10:44 DP16 TP16 EP16] Scheduler hit an exception: Traceback (most recent call last):\n"
            '  File "/usr/local/lib/python3.11/site-packages/sglang/srt/managers/scheduler.py", line 2650, in run\n'
            "    self.event_loop_overlap()\n"
            "RuntimeError: ACL stream synchronize failed, error code:507011\n")
    assert causes_of(tmp_path / "fault", {"d1.log": fault + sync}, ruleset)[:1] == [Cause.ILLEGAL_MEMORY_ACCESS]
    # the sync failure alone says only that something on the device failed, not a bug of the program
    alone = causes_of(tmp_path / "sync", {"d1.log": sync}, ruleset)
    assert alone and alone[0] is not Cause.PYTHON_EXCEPTION, alone


def test_a_retry_that_went_on_before_a_scancel_leaves_it_a_cancel(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("NCCL version 2.21.5+cuda12.4\n"
            "node01:1234:1300 [0] NCCL INFO Call to connect returned Connection refused, retrying\n"
            + "".join(f"processing shard {i}\n" for i in range(40))
            + SCANCEL)
    assert causes_of(tmp_path / "retry", {"output.txt": text}, ruleset)[:1] == [Cause.PREEMPTION]


def test_ranks_that_lost_their_connection_to_one_host_name_it(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("Traceback (most recent call last):\n"
            '  File "/home/user/pid_diffusion/cm/dist_util.py", line 88, in sync_params\n'
            "    dist.broadcast(p, 0)\n"
            '  File "/usr/lib/python3.9/site-packages/torch/distributed/distributed_c10d.py", line 1408, in broadcast\n'
            "    work.wait()\n"
            "RuntimeError: [/opt/conda/conda-bld/pytorch_1670525551200/work/third_party/gloo/gloo/transport/tcp/pair.cc:598] "
            "Connection closed by peer [10.0.1.17]:22780\n")
    (seen,) = incidents_of(tmp_path / "gloo", {"issue.log": text}, ruleset)
    assert seen.node == "10.0.1.17" and not seen.drain, seen
