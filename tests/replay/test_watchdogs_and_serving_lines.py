"""Lines from the sixth session's T and U development cases: SGLang's scheduler watchdog and the
shell's "Killed" that follows it, a watchdog timeout line that a terminal wrapped, CUDA's
"unknown error" in a watchdog, DeepSpeed's list-length disagreement, a Ray raylet sent SIGTERM,
and Horovod's stall warnings (a warning mid-training, a hang at the initial broadcast)."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of


def test_sglangs_watchdog_then_killed_is_a_hang_not_an_oom_kill(tmp_path: Path, ruleset: RuleSet) -> None:
    # U-sglang-3752: every TP scheduler's watchdog fires, the server kills its tree
    lines = "".join(f"[2025-03-09 00:57:15 TP{i}] Watchdog timeout (self.watchdog_timeout=300)\n" for i in range(4))
    got = incidents_of(tmp_path, {"server.log": lines + (
        "[2025-03-09 00:57:20] Received sigquit from a child proces. It usually means the child failed.\n"
        "Killed\n")}, ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.HANG, False)]


def test_killed_hours_after_a_torch_timeout_is_still_the_oom_killers(tmp_path: Path, ruleset: RuleSet) -> None:
    # only a watchdog that kills its server itself explains the shell's "Killed"
    got = incidents_of(tmp_path, {"slurm-1234.out": (
        "[rank1]:[E1130 10:30:00.000000 1 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=3, OpType=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600100 "
        "milliseconds before timing out.\n"
        "[rank0]:2025-11-30 14:00:00,000 INFO step 1000 loss 1.2\n"
        "/var/spool/slurmd/job01234/slurm_script: line 28:  8156 Killed                  python3 train.py\n")},
        ruleset)
    assert got and got[0].cause is Cause.HOST_OOM_KILL


def test_killed_without_a_timeout_before_it_is_still_the_oom_killers(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"server.log": (
        "[2025-03-09 00:50:00 TP0] Decode batch. #running-req: 8\n"
        "Killed\n"
        "[2025-03-09 00:57:15 TP0] Watchdog timeout (self.watchdog_timeout=300)\n")}, ruleset)
    assert got and got[0].cause is Cause.HOST_OOM_KILL


def test_a_watchdog_line_wrapped_before_its_work_is_a_timeout(tmp_path: Path, ruleset: RuleSet) -> None:
    # U-milabench-269: a runner's tag before each line, the WorkNCCL part on the next line
    text = "".join(
        f"bench.cn-d004 [stderr] [rank{r}]:[E909 09:55:29.307629539 ProcessGroupNCCL.cpp:607] [Rank {r}] Watchdog "
        "caught collective operation timeout: \n"
        "WorkNCCL(SeqNum=2070, OpType=REDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600034 "
        "milliseconds before timing out.\n" for r in (11, 12, 14))
    got = incidents_of(tmp_path, {"train.log": text}, ruleset)
    assert [g.cause for g in got] == [Cause.HANG]
    assert sum("Watchdog caught collective operation timeout" in e for e in got[0].evidence) == 3


def test_cuda_unknown_error_in_a_watchdog_names_the_rank_not_a_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    # T-vllm-2682: a Ray worker's prefix before torch 2.1's watchdog line
    got = incidents_of(tmp_path, {"serve.log": (
        "(RayWorkerVllm pid=5304) [E ProcessGroupNCCL.cpp:916] [Rank 7] NCCL watchdog thread terminated with "
        "exception: CUDA error: unknown error\n"
        "(RayWorkerVllm pid=5304) For debugging consider passing CUDA_LAUNCH_BLOCKING=1.\n")}, ruleset)
    assert [(g.cause, g.rank, g.drain) for g in got] == [(Cause.UNKNOWN, 7, False)]


def test_deepspeeds_list_length_disagreement_is_a_collective_mismatch(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "[rank7]: RuntimeError: Detected a disagreement on list length between rank0 and rank7: \n"
        "[rank7]:  rank0: 30815 \n"
        "[rank7]:  rank7: 30833\n")}, ruleset)
    assert [g.cause for g in got] == [Cause.COLLECTIVE_MISMATCH]


def test_a_raylet_sent_sigterm_after_a_good_run_is_no_incident(tmp_path: Path, ruleset: RuleSet) -> None:
    # `ray stop` (or KubeRay deleting the pod) after the job finished sends the raylet SIGTERM too
    got = incidents_of(tmp_path, {
        "driver.log": "2025-02-11 20:07:55,000 INFO Training finished successfully\n",
        "raylet.err": (
            "[2025-02-11 20:08:00,117 I 4121 4121] main.cc:483: received SIGTERM. Existing local drain request = None\n"
            "[2025-02-11 20:08:00,117 I 4121 4121] main.cc:284: Raylet graceful shutdown triggered, reason = "
            "EXPECTED_TERMINATION, reason message = received SIGTERM\n")}, ruleset)
    assert got == []


def test_horovod_stall_reports_repeated_for_minutes_are_a_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    # the inspector warns again each minute the stall lasts: rank 1 never came
    got = incidents_of(tmp_path, {"train.log": "".join(
        f"[1,0]<stderr>:[2019-04-13 13:{m:02d}:31.851506: W horovod/common/operations.cc:588] "
        f"HorovodAllreduce_gradients_{i}_0 [missing ranks: 1]\n" for m in range(30, 50) for i in range(2))}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.HANG, 1)]


def test_horovod_stall_warnings_mid_training_alone_are_no_incident(tmp_path: Path, ruleset: RuleSet) -> None:
    # U-horovod-403: the job went on; rank 0 was late on a gradient allreduce
    got = incidents_of(tmp_path, {"train.log": (
        "WARNING: One or more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and "
        "are waiting for remainder of ranks for more than 60 seconds. This may indicate that different ranks are "
        "trying to submit different tensors or that only subset of ranks is submitting tensors, which will cause "
        "deadlock.\n"
        "Stalled ops:\n"
        "HorovodAllreduce_gradients_197_model_0_0_f1_l_last_add_1_grad_Reshape_1_0 [missing ranks: 0]\n"
        "HorovodAllreduce_gradients_197_model_0_0_f1_l_last_mul_2_grad_Reshape_0 [missing ranks: 0]\n")}, ruleset)
    assert got == []


def test_a_rank_missing_from_the_initial_broadcast_is_a_hang_on_it(tmp_path: Path, ruleset: RuleSet) -> None:
    # H-horovod-1012: the variables' broadcast never completed; rank 1 never joined
    got = incidents_of(tmp_path, {"train.log": "".join(
        f"[1,0]<stderr>:[2019-04-13 13:53:31.8515{i}: W horovod/common/operations.cc:588] HorovodBroadcast_{name}_0 "
        "[missing ranks: 1]\n" for i, name in enumerate(("dense_1_bias", "global_step", "conv2d_1_kernel")))}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.HANG, 1)]


BAR = "train: Scanning labels...  97%|██▉| {n}/45049 [01:07<00:18, 66.12it/s]"
WATCHDOG = ("[E ProcessGroupNCCL.cpp:567] [Rank {r}] Watchdog caught collective operation timeout: "
            "WorkNCCL(OpType=ALLREDUCE, Timeout(ms)=60000) ran for 67434 milliseconds before timing out.\n")


def test_a_progress_bar_drawn_again_after_the_watchdogs_is_a_straggler(tmp_path: Path, ruleset: RuleSet) -> None:
    # Q-yolov5-4400: rank 0 scans the labels alone while ranks 1-3 wait in a barrier (60 s timeout)
    got = incidents_of(tmp_path, {"train.log": (
        BAR.format(n=43830) + WATCHDOG.format(r=1) + WATCHDOG.format(r=3) + WATCHDOG.format(r=2)
        + BAR.format(n=43843) + "[E ProcessGroupNCCL.cpp:327] Some NCCL operations have failed or timed out.\n")},
        ruleset)
    assert [(g.cause, g.rank, g.drain) for g in got] == [(Cause.STRAGGLER, 0, False)]
    assert "progress bar" in got[0].explanation


def test_a_progress_bar_redrawn_at_the_same_count_is_no_progress(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        BAR.format(n=43830) + WATCHDOG.format(r=1) + WATCHDOG.format(r=3) + WATCHDOG.format(r=2)
        + BAR.format(n=43830) + "\n")}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.HANG, 0)]


def test_a_progress_bar_that_stopped_before_the_watchdogs_is_still_a_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    # the bar's last drawing is where rank 0 stopped: no bar after the watchdogs' lines
    got = incidents_of(tmp_path, {"train.log": (
        BAR.format(n=43830) + WATCHDOG.format(r=1) + WATCHDOG.format(r=3) + WATCHDOG.format(r=2)
        + "[E ProcessGroupNCCL.cpp:327] Some NCCL operations have failed or timed out.\n")}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.HANG, 0)]


WD = ("[rank{r}]:[E120 05:15:13.042532067 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught collective operation "
      "timeout: WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={n}, NumelOut={n}, Timeout(ms)=1800000) ran for 1800096 "
      "milliseconds before timing out.\n"
      "[rank{r}]:[E120 05:15:13.042708659 ProcessGroupNCCL.cpp:1785] [PG ID 0 PG GUID 0(default_pg) Rank {r}] Exception "
      "(either an error or timeout) detected by watchdog at work: {seq}, last enqueued NCCL work: {enq}, last "
      "completed NCCL work: {done}.\n")


def test_a_rank_that_completed_the_collective_its_peer_waits_in_is_a_mismatch(tmp_path: Path, ruleset: RuleSet) -> None:
    # W-torchtune-pr2266: rank 1 completed #422, rank 0 is stuck in #420
    got = incidents_of(tmp_path, {"train.log": (
        WD.format(r=0, seq=420, op="_REDUCE_SCATTER_BASE", n=8208384, enq=426, done=419)
        + WD.format(r=1, seq=423, op="_REDUCE_SCATTER_BASE", n=64, enq=424, done=422))}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.COLLECTIVE_MISMATCH, None)]
    assert "completed collective #422" in got[0].explanation


def test_one_rank_a_collective_behind_the_others_is_a_hang_on_it(tmp_path: Path, ruleset: RuleSet) -> None:
    # the others completed #100 and wait in #101; rank 2 waits in #100
    got = incidents_of(tmp_path, {"train.log": "".join(
        WD.format(r=r, seq=100 if r == 2 else 101, op="ALLREDUCE", n=64, enq=100 if r == 2 else 101,
                  done=99 if r == 2 else 100) for r in range(4))}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.HANG, 2)]


def test_a_subgroups_numbering_is_not_compared_with_the_default_groups(tmp_path: Path, ruleset: RuleSet) -> None:
    sub = WD.format(r=0, seq=5, op="ALLGATHER", n=1024, enq=5, done=4).replace("[PG ID 0 PG GUID 0(default_pg) Rank 0]",
                                                                              "[PG 1 Rank 0]")
    got = incidents_of(tmp_path, {"train.log": sub + WD.format(r=1, seq=300, op="ALLREDUCE", n=1024, enq=300, done=299)},
                       ruleset)
    assert [g.cause for g in got] != [Cause.COLLECTIVE_MISMATCH]


def test_ranks_one_collective_apart_in_order_are_no_mismatch(tmp_path: Path, ruleset: RuleSet) -> None:
    # rank 1 waits in #421 having completed #420 while rank 0 waits in #421 too: a hang
    got = incidents_of(tmp_path, {"train.log": (
        WD.format(r=0, seq=421, op="ALLREDUCE", n=64, enq=421, done=420)
        + WD.format(r=1, seq=421, op="ALLREDUCE", n=64, enq=421, done=420))}, ruleset)
    assert [g.cause for g in got] == [Cause.HANG]


def test_point_to_point_work_is_numbered_on_its_pair_only(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        WD.format(r=0, seq=420, op="SEND", n=64, enq=420, done=419)
        + WD.format(r=1, seq=423, op="RECV", n=64, enq=423, done=422))}, ruleset)
    assert [g.cause for g in got] != [Cause.COLLECTIVE_MISMATCH]


def test_abseils_signal_report_behind_a_pasted_ray_prefix_is_a_crash_on_its_node(tmp_path: Path, ruleset: RuleSet) -> None:
    # Z-vllm-12568: the paste shows the ESC of Ray's colours as "^["
    got = incidents_of(tmp_path, {"server.log": (
        "^[[36m(RayWorkerWrapper pid=4823, ip=10.233.68.253)^[[0m *** SIGSEGV received at time=1739339449 on cpu 57 ***\n"
        "^[[36m(RayWorkerWrapper pid=4823, ip=10.233.68.253)^[[0m PC: @     0x7ee184049b8a  (unknown)  "
        "addProxyOpIfNeeded()\n")}, ruleset)
    assert [(g.cause, g.node) for g in got] == [(Cause.CRASH_SIGNAL, "10.233.68.253")]


def test_mpichs_banner_names_the_host_and_the_signal_of_the_process_that_failed(tmp_path: Path, ruleset: RuleSet) -> None:
    # Z-llamacpp-4792: exit code 134 is SIGABRT; the exit string is the clean-up's SIGTERM
    got = incidents_of(tmp_path, {"console.log": (
        "===================================================================================\n"
        "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n"
        "=   PID 108257 RUNNING AT jetson@node1\n"
        "=   EXIT CODE: 134\n"
        "=   CLEANING UP REMAINING PROCESSES\n"
        "===================================================================================\n"
        "YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Terminated (signal 15)\n")}, ruleset)
    assert [(g.cause, g.node) for g in got] == [(Cause.CRASH_SIGNAL, "node1")]
    assert any("SIGABRT" in e for e in got[0].evidence)


def test_a_rank_read_by_one_rule_places_another_rules_finding_on_the_line(tmp_path: Path, ruleset: RuleSet) -> None:
    # Z-trtllm-4708
    got = incidents_of(tmp_path, {"output.log": (
        "[05/27/2025-21:12:36] [TRT-LLM] [E] Failed to initialize executor on rank 3: [TensorRT-LLM][ERROR] CUDA runtime "
        "error in cudaMemsetAsync(fc1_act_sf_flat, 0x0, n, stream): an illegal memory access was encountered\n")}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.ILLEGAL_MEMORY_ACCESS, 3)]


def test_a_ray_node_marked_dead_is_named_with_its_cause_unknown(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"console.log": (
        "(raylet) The node with node id: 0f219779261fab027e79667e6451e061ded81c76f07d05584652d818 and address: "
        "10.0.0.51 and node name: 10.0.0.51 has been marked dead because the detector has missed too many heartbeats "
        "from it.\n")}, ruleset)
    assert [(g.cause, g.node, g.drain) for g in got] == [(Cause.UNKNOWN, "10.0.0.51", False)]


def test_nccl_errors_that_say_nothing_more_are_an_unknown_failure_not_no_incident(tmp_path: Path, ruleset: RuleSet) -> None:
    # Z-trtllm-213: every rank's plugin reports NCCL's internal error, and the job aborted
    got = incidents_of(tmp_path, {"output.log": "".join(
        "Failed, NCCL error /src/tensorrt_llm/cpp/tensorrt_llm/plugins/ncclPlugin/allreducePlugin.cpp:295 'internal "
        "error - please report this issue to the NCCL developers'\n" for _ in range(4)) + (
        "Primary job  terminated normally, but 1 process returned\n"
        "a non-zero exit code. Per user-direction, the job has been aborted.\n")}, ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.UNKNOWN, False)]
    assert got[0].evidence


def test_tgis_shard_ended_by_a_signal_names_the_shard(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"console.log": (
        "2024-10-01T07:43:22.342900Z ERROR shard-manager: text_generation_launcher: Shard process was signaled to "
        "shutdown with signal 6 rank=0\n"
        "2024-10-01T07:43:22.392453Z ERROR text_generation_launcher: Shard 0 crashed\n")}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.CRASH_SIGNAL, 0)]


def test_tensorflows_failed_cuinit_is_no_incident(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "2025-01-01 10:00:00.000000: E tensorflow/stream_executor/cuda/cuda_driver.cc:271] failed call to cuInit: "
        "CUDA_ERROR_UNKNOWN: unknown error\n"
        "2025-01-01 10:00:05 step 1 loss 2.3\n"
        "2025-01-01 10:10:00 Training complete.\n")}, ruleset)
    assert got == []
