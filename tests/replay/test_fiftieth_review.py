"""Run folders a helper reviewer built against the fiftieth session's changes, where a new reading
had turned a right diagnosis wrong (each mended), by two reviewers: a job's word that it ended well that is not the
word on the failed process - Slurm's accounting of a batch script whose last command exited 0
after torchrun failed, a training operator's success of another job (a name that begins this
job's pods' names, the same name run again and failed, a namespace's other job), DeepSpeed's
workers exiting well before a later stage failed; a DeepSpeed exit line whose arguments hold
brackets; a step-time summary whose "slowest=1.43s" was read as rank 1; an nvidia-smi
monitor's tables read as one table's state; an exception that ended its rank read as retried
(another rank's word before it, other ranks' progress after it, the teardown's aborts); and a
mismatch within one process group missed where several groups timed out."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.types import Cause

DATA = Path(__file__).parent / "data" / "review50"


@pytest.mark.parametrize(("run", "cause", "rank"), [
    # the batch script ran torchrun without srun and ended with an echo: sacct's rows all 0:0
    ("sacct_noscript_step", Cause.CUDA_OOM, 3),
    # the training operator's success is of "llama-sft", the pods are llama-sft-v2's
    ("k8s_prefix_job", Cause.CUDA_OOM, 1),
    # the same job name applied again: its earlier success and its new failure in one event list
    ("k8s_same_name_rerun", Cause.CUDA_OOM, 1),
    # the namespace's pods of two jobs, one of which succeeded
    ("k8s_namespace_two_jobs_getpods", Cause.CUDA_OOM, 1),
    # the pod's log saved as master.log; the events hold another job's success and this one's failure
    ("k8s_unnamed_logs", Cause.CUDA_OOM, 1),
    # DeepSpeed's SFT stage exited well, then the evaluation ran out of GPU memory
    ("ds_then_eval_fails", Cause.CUDA_OOM, 0),
    # then a torchrun stage raised
    ("ds_then_torchrun_fails", Cause.PYTHON_EXCEPTION, 2),
    # a rank's exit line whose arguments hold "[q_proj,k_proj,v_proj,o_proj]"
    ("ds_rank0_fails_bracket_args", Cause.PYTHON_EXCEPTION, 3),
    # rank 5's evaluation ran out of memory, it said it retries with a smaller batch and the retry
    # ran out too; rank 0 evaluated on, the others hung in the metrics' all-reduce. srun printed
    # rank 5's end after the others' aborts, or within a range of aborted tasks, or the user
    # cancelled the hung step
    ("srun_eval_oom_retry_failed_rank_exits_last", Cause.CUDA_OOM, 5),
    ("srun_eval_oom_rank_in_aborted_range", Cause.CUDA_OOM, 5),
    ("srun_eval_oom_retry_failed_then_user_cancel", Cause.CUDA_OOM, 5),
    # one torchrun a node under srun: srun's task numbers are nodes, not ranks
    ("torchrun_per_node_keyerror_after_skipping", Cause.PYTHON_EXCEPTION, 5),
    ("torchrun_per_node_oom_retry_outside_except", Cause.CUDA_OOM, 5),
    ("torchrun_oom_retry_failed_no_srun_lines", Cause.CUDA_OOM, 5),
    # rank 13's fatal IndexError just after rank 0's "Skipping step" line; the aborts' stacks
    # push both out of the file's tail (the other ranks' steps after it, stamped late too)
    ("pretail_overflow_skipping_before_fatal_traceback", Cause.PYTHON_EXCEPTION, 13),
    ("pretail_late_flushed_step_lines", Cause.PYTHON_EXCEPTION, 13),
    # (a blind generator's run, bench/blind12 seed 1) a CloudWatch export of one pod's lines and
    # the operator's "PyTorchJob pretrain-s5sb is failed because ...", whose stream is the
    # operator's, no node of the job: the pod's torchrun still names local rank 0 as rank 0
    ("blind12_cloudwatch_operator_failed", Cause.PYTHON_EXCEPTION, 0),
    # (bench/blind30 seed 1) rank 0's tensorboard write failed "(ignored)" and training went on;
    # hours later the OOM killer took rank 12 and the others' watchdogs reported the remote
    # process gone, no wait that ran out: the ignored exception is still no failure
    ("blind30_pbs_ignored_tensorboard_then_oom_kill", Cause.HOST_OOM_KILL, 12),
])
def test_a_reading_that_turned_a_right_diagnosis_wrong_is_mended(run: str, cause: Cause, rank: int,
                                                                  ruleset: RuleSet) -> None:
    report = replay_path(DATA / run, ruleset)
    assert report.incidents, run
    first = report.incidents[0]
    assert (first.cause, first.initiator.rank) == (cause, rank), (run, first.cause, first.initiator.rank)


def test_a_second_deepspeed_stage_ended_by_the_time_limit_is_no_finished_job(ruleset: RuleSet) -> None:
    report = replay_path(DATA / "ds_stage2_timelimit", ruleset)
    assert report.incidents and report.incidents[0].cause is Cause.PREEMPTION


@pytest.mark.parametrize("run", ["slowest_no_rank_timing", "slowest_no_rank_timing_healthy"])
def test_a_step_time_summary_naming_no_rank_names_no_straggler(run: str, ruleset: RuleSet) -> None:
    # "fastest=1.23s slowest=1.43s median=1.33s": no rank in it
    report = replay_path(DATA / run, ruleset)
    assert not any(i.cause is Cause.STRAGGLER for i in report.incidents)


def test_an_nvidia_smi_monitors_tables_each_tell_their_own_time(ruleset: RuleSet) -> None:
    # a table every half hour: GPU 1 reads ERR! only in the 11:00 table, rank 0 ran out of GPU
    # memory at 09:50; the GPU's fault is the 11:00 table's, not a state since before
    report = replay_path(DATA / "smi_monitor_err_after_crash", ruleset)
    oom = [i for i in report.incidents if i.cause is Cause.CUDA_OOM]
    gpu = [i for i in report.incidents if i.cause is Cause.GPU_HARDWARE]
    assert oom and oom[0].initiator.rank == 0
    assert gpu and gpu[0].first_evidence_time is not None and gpu[0].first_evidence_time.hour == 11


@pytest.mark.parametrize(("run", "rank"), [
    # two data-parallel groups (GUID 1 and 2) each with the same mismatch at #10642
    ("pg_two_dp_groups_op_mismatch", None),
    # rank 3's extra all-gather in the default group, ranks 0-2's metrics all-reduce of group 1
    # timing out too
    ("pg_default_mismatch_plus_subgroup_timeout", 3),
])
def test_a_mismatch_within_one_process_group_is_read_where_several_groups_time_out(run: str, rank: int | None,
                                                                                  ruleset: RuleSet) -> None:
    report = replay_path(DATA / run, ruleset)
    assert report.incidents and report.incidents[0].cause is Cause.COLLECTIVE_MISMATCH
    assert report.incidents[0].initiator.rank == rank
