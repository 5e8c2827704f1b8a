"""The forty-sixth session's review: run folders a reviewer built where the session's new readings
of a job's attempts and of runtimes' fatal lines turned a right diagnosis wrong
(tests/replay/data/review46/), with a pod's description kept as a guard."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of

DATA = Path(__file__).parent / "data" / "review46"


def _folder(name: str) -> dict[str, str]:
    return {str(p.relative_to(DATA / name)): p.read_text() for p in sorted((DATA / name).rglob("*")) if p.is_file()}


def test_one_pods_restart_is_no_attempt_of_the_job(tmp_path: Path, ruleset: RuleSet) -> None:
    # worker-1's container ran out of GPU memory and restarted; the other pods ran on through it
    # (begun a second after worker-1's first container) and timed out waiting for it
    seen = incidents_of(tmp_path, _folder("prevpod_sibling"), ruleset)
    assert seen and seen[0].cause is Cause.CUDA_OOM, seen


def test_a_pod_that_never_restarted_keeps_its_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    # worker-0 restarted after a start-up error and trained to its end; master-0 never restarted,
    # and its checkpoint save failed
    seen = incidents_of(tmp_path, _folder("prevpod_unpaired_fail"), ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION and seen[0].rank == 0, seen


@pytest.mark.parametrize("name", ["array_overlap", "array_overlap_ids"])
def test_side_by_side_slurm_outputs_are_no_requeue(name: str, tmp_path: Path, ruleset: RuleSet) -> None:
    # two array tasks (or two jobs) ran at once for an hour and a half, the later one loading a
    # model's "checkpoint shards": task 0's KeyError is not cleared by task 1's clean end
    seen = incidents_of(tmp_path, _folder(name), ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION and seen[0].rank == 5, seen


def test_xlas_fatal_word_that_another_task_died_is_no_crash_of_its_own(tmp_path: Path, ruleset: RuleSet) -> None:
    # the survivors' "Terminating process because the coordinator detected missing heartbeats"
    seen = incidents_of(tmp_path, _folder("jax_heartbeat_tf"), ruleset)
    assert not seen or seen[0].cause is not Cause.CRASH_SIGNAL, seen


def test_an_uploads_retries_after_the_failure_are_no_attempts(tmp_path: Path, ruleset: RuleSet) -> None:
    # "Attempt 1/10: uploading", "Attempt 2/10: ..." a few lines apart after the traceback
    seen = incidents_of(tmp_path, _folder("marker_upload_after_fail"), ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION and seen[0].rank == 3, seen


def test_a_pods_description_of_its_oom_kill_still_counts(tmp_path: Path, ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path, _folder("prevpod_describe"), ruleset)
    assert seen and seen[0].cause is Cause.HOST_OOM_KILL, seen


# --- the second review ----------------------------------------------------------------------------


def test_a_port_flap_the_job_never_trained_on_after_is_its_cause(tmp_path: Path, ruleset: RuleSet) -> None:
    # the port came back, but no step followed: the ranks timed out ten minutes later
    seen = incidents_of(tmp_path, _folder("flap_hang_10min"), ruleset)
    assert seen and seen[0].cause is Cause.NETWORK and seen[0].rank == 9, seen


def test_an_attempt_that_failed_at_once_keeps_the_attempts(tmp_path: Path, ruleset: RuleSet) -> None:
    # attempt 2/3's "Unable to create step" four lines before attempt 3/3, which trained to its end
    seen = incidents_of(tmp_path, _folder("marker_fast_fail_between"), ruleset)
    assert not seen, seen


@pytest.mark.parametrize("name", ["relaunch_healthcheck_next_day", "relaunch_healthcheck_same_host"])
def test_a_gpu_check_run_after_the_job_is_not_its_last_launch(name: str, tmp_path: Path, ruleset: RuleSet) -> None:
    # torchrun's GPU check the next day (it passed), saved beside the job's log of two launches
    seen = incidents_of(tmp_path, _folder(name), ruleset)
    assert seen and seen[0].cause is Cause.ECC_MEMORY and seen[0].node == "trn-15", seen


def test_a_resume_flag_on_side_by_side_outputs_is_no_requeue(tmp_path: Path, ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path, _folder("array_overlap_resume_flag"), ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION and seen[0].rank == 5, seen


# --- the third review -----------------------------------------------------------------------------


def test_an_uploads_retry_loop_of_several_lines_a_try_is_no_attempts(tmp_path: Path, ruleset: RuleSet) -> None:
    # "Attempt 1/10: uploading", its errors, "Attempt 1/10: aws exited with code 1, retrying",
    # "Attempt 2/10: ..." after the job's traceback: a count repeated before the last is a retry's
    seen = incidents_of(tmp_path, _folder("upload_retries_multiline"), ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION and seen[0].rank == 3, seen


@pytest.mark.parametrize("name", ["array_overlap_task_requeued", "array_overlap_task_resumes"])
def test_side_by_side_outputs_on_one_clock_are_no_requeue(name: str, tmp_path: Path, ruleset: RuleSet) -> None:
    # the later task was itself requeued (or resumes), but both outputs are the program's own
    # stamps on one clock, an hour and a half side by side
    seen = incidents_of(tmp_path, _folder(name), ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION and seen[0].rank == 5, seen


def test_an_undated_kernel_fault_of_a_host_the_last_attempt_left_stays_with_its_attempt(
        tmp_path: Path, ruleset: RuleSet) -> None:
    # attempt 2 ran with --exclude=gpu-a01 after its GPU fell off the bus; gpu-a01's dmesg has
    # no dates: the last attempt's KeyError is the job's failure
    seen = incidents_of(tmp_path, _folder("marked_attempts_undated_dmesg_b"), ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION and seen[0].rank == 5, seen


def test_an_eval_run_after_the_failed_training_leaves_its_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    # the batch script ran "torchrun --standalone eval.py" on one host after the training died
    seen = incidents_of(tmp_path, _folder("eval_after_failed_training"), ruleset)
    assert seen and seen[0].node == "gpu-a02", seen


def test_a_port_that_keeps_flapping_is_the_suspect(tmp_path: Path, ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path, _folder("port_flapping_repeatedly"), ruleset)
    assert seen and seen[0].cause is Cause.NETWORK and seen[0].rank == 9, seen


def test_an_nvlink_fault_of_another_gpu_hours_later_is_no_launch_failures_cause(
        tmp_path: Path, ruleset: RuleSet) -> None:
    # rank 3's launch failure with its own process's Xid 13 at that second; an Xid 74 on another
    # GPU three and a half hours later
    seen = incidents_of(tmp_path, _folder("launch_failure_iso_zones"), ruleset)
    assert any(i.cause is Cause.ILLEGAL_MEMORY_ACCESS and i.rank == 3 for i in seen), seen
