"""Runs a reviewer of the forty-seventh session's changes built where a new reading turned a right
diagnosis wrong (tests/replay/data/review47): a notebook that plotted a run's curves, or loaded a
checkpoint to look at it, read as the run's log and its error as the run's failure; a notebook
that hid a Slurm job's ``.e``/``.o`` files (read only when nothing named as a log is there); a
container's small pids in ``[53] `` read as MPI's rank labels; an uncaught exception hours after an
old "will retry" warning (whose time its traceback took) read as the retried one, and a retry that
was the last of its tries, or with no launcher's word after it; rank 0's word that it completed,
with uneven data, read as the other ranks' when they lost the store it took with it; a stale
``train.log.bak`` of an earlier run read as the run's; a notebook that printed a checkpoint's
``world_size`` read as a run's log."""

from __future__ import annotations

from pathlib import Path

from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.types import Cause

DATA = Path(__file__).parent / "data" / "review47"


def _incidents(name: str, ruleset: RuleSet):  # type: ignore[no-untyped-def]
    return replay_path(DATA / name, ruleset).incidents


def test_a_plotting_notebooks_error_beside_a_healthy_log_is_no_failure(ruleset: RuleSet) -> None:
    # plot_loss.ipynb raised KeyError: 'val_loss' while plotting; the training log is healthy
    assert _incidents("nb1_healthy_log_plus_analysis_nb", ruleset) == ()


def test_an_evaluation_notebooks_error_does_not_hide_the_hang(ruleset: RuleSet) -> None:
    # rank 2 went silent, the others' watchdogs fired; a notebook that loaded a checkpoint failed
    # with FileNotFoundError
    incidents = _incidents("nb6_hang_logs_plus_eval_nb_error", ruleset)
    assert incidents and incidents[0].cause is Cause.HANG
    assert incidents[0].initiator.rank == 2


def test_a_notebook_does_not_hide_a_slurm_jobs_e_and_o_files(ruleset: RuleSet) -> None:
    # the job's output files have no log's suffix (read when nothing else is): rank 2's OOM
    incidents = _incidents("d1_slurm_e_o_files_plus_notebook", ruleset)
    assert incidents and incidents[0].cause is Cause.CUDA_OOM
    assert incidents[0].initiator.rank == 2


def test_a_containers_small_pids_in_brackets_are_no_mpi_ranks(ruleset: RuleSet) -> None:
    # logging's "[%(process)d] - ..." in a pod: pids 52-55; the failing rank is 1, not 53
    incidents = _incidents("m3_container_pid_labels_logged_error", ruleset)
    assert incidents and incidents[0].cause is Cause.ILLEGAL_MEMORY_ACCESS
    assert incidents[0].initiator.rank == 1


def test_an_uncaught_exception_hours_after_an_old_retry_warning_is_the_failure(ruleset: RuleSet) -> None:
    # stderr's last line before the traceback is a retry warning of hours before (whose time the
    # traceback took); the job's steps went on in stdout until rank 3 raised and torchrun said so
    incidents = _incidents("retry-warning-then-later-fatal-torchrun", ruleset)
    assert incidents and incidents[0].cause is Cause.PYTHON_EXCEPTION
    assert incidents[0].initiator.rank == 3


def test_an_uncaught_exception_that_srun_reports_is_the_failure_after_an_old_retry_warning(ruleset: RuleSet) -> None:
    for name, rank in (("retry-warning-then-later-fatal-traceback", 0),
                       ("retry-warning-then-later-fatal-srun-label-kill-on-bad-exit", 5)):
        incidents = _incidents(name, ruleset)
        assert incidents and incidents[0].cause is Cause.PYTHON_EXCEPTION, name
        assert incidents[0].initiator.rank == rank, name


def test_a_retry_that_was_the_last_of_its_tries_is_no_retry(ruleset: RuleSet) -> None:
    # "Retrying in 5sec [20/20]", then ConnectionError: the retries ran out
    incidents = _incidents("retries-exhausted-hf-streaming-mpirun", ruleset)
    assert incidents and incidents[0].cause is Cause.PYTHON_EXCEPTION
    assert incidents[0].initiator.rank == 3


def test_rank_0s_word_that_training_completed_is_not_the_other_ranks(ruleset: RuleSet) -> None:
    # uneven shards: rank 0 finished its 960 steps and left with the store; ranks 1-3, at step 950
    # of 1000, lost it: they were not done
    incidents = _incidents("store-loss-after-rank0-finished-early-uneven-shards", ruleset)
    assert incidents and incidents[0].cause is Cause.HANG
    assert incidents[0].initiator.rank == 0


def test_a_stale_copy_of_an_earlier_run_is_not_read(ruleset: RuleSet) -> None:
    # train.log.bak holds the previous run's OOM; the current train.log's rank 1 raised
    incidents = _incidents("stale-bak-previous-oom-current-keyerror", ruleset)
    assert incidents and incidents[0].cause is Cause.PYTHON_EXCEPTION
    assert incidents[0].initiator.rank == 1


def test_an_uncaught_exception_after_an_old_retry_warning_ends_the_job_with_no_launcher_to_say_so(ruleset: RuleSet) -> None:
    # nohup's stdout and stderr, no launcher: the steps stop, nothing says the job completed or
    # failed of anything else
    for name in ("retry-warning-then-later-fatal-nohup-no-exit-line", "retry-warning-then-later-fatal-torchrun-logdir"):
        incidents = _incidents(name, ruleset)
        assert incidents and incidents[0].cause is Cause.PYTHON_EXCEPTION, name


def test_a_notebook_that_prints_a_checkpoints_world_size_is_no_runs_log(ruleset: RuleSet) -> None:
    incidents = _incidents("nb-eval-notebook-prints-ckpt-args-world-size-plus-hang-logs", ruleset)
    assert incidents and incidents[0].cause is Cause.HANG
    assert incidents[0].initiator.rank == 2
