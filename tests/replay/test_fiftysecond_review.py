"""Run folders helper reviewers built against the fifty-second session's changes, where a new
reading had turned a right diagnosis wrong (each mended): a GBK banner before a trainer's own
UTF-8 lines, an HTML page's text saved in Windows-1252, a scheduler's output named for a date-like
job id, a trainer's segfault beside an evaluator's polling, a socket's reset in a process that had
destroyed only one of its communicators or set up a new one, Slurm's mail of a preemption followed
by the requeued job's completion, and TensorFlow's AbortedError of a storage call."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.types import Cause

DATA = Path(__file__).parent / "data" / "review52"


@pytest.mark.parametrize(("run", "cause", "rank"), [
    # a GBK banner, then the trainer's UTF-8 lines: a checkpoint's save retried, training completed
    ("mixed_gbk_echo_retry", None, None),
    # a page's text saved in Windows-1252, its entities escaped: rank 1's CUDA OOM
    ("html_cp1252_nccl", Cause.CUDA_OOM, 1),
    # srun -o slurm-%j.%4t.out with job id 20240117: rank 2's KeyError
    ("datelike_jobid_padded_task", Cause.PYTHON_EXCEPTION, 2),
    # the trainer segfaults; only an evaluator's polling goes on after it
    ("A3_train_segv_sidecar_evaluator", Cause.CRASH_SIGNAL, None),
    # a 2-rank group destroyed, the world communicator's socket reset 200 steps later
    ("A3_subgroup_destroyed_world_comm_reset", Cause.NETWORK, None),
    # a sweep's first trial destroyed its communicator, the second trial's is reset
    ("A1_sweep_second_trial_socket_reset", Cause.NETWORK, None),
    # Slurm's mails: preempted, then the requeued job completed
    ("S5_preempted_requeued_completed_mails", None, None),
    # a Keras run's AbortedError of a checkpoint's save to cloud storage: its own exception
    ("T1_tf_gcs_checkpoint_aborted", Cause.PYTHON_EXCEPTION, None),
])
def test_reviewers_runs(ruleset: RuleSet, run: str, cause: Cause | None, rank: int | None) -> None:
    report = replay_path(DATA / run, ruleset)
    if cause is None:
        assert report.incidents == (), [(i.cause, i.initiator.rank) for i in report.incidents]
        return
    assert report.incidents, run
    first = report.incidents[0]
    assert first.cause is cause, (first.cause, first.explanation)
    if rank is not None:
        assert first.initiator.rank == rank, first.initiator
