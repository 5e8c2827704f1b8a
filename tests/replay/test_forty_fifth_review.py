"""The forty-fifth session's review: run folders a reviewer built where the session's new readings
turned a right diagnosis wrong (tests/replay/data/review45/), with the kernel and journal folders
that held up kept as guards."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of

DATA = Path(__file__).parent / "data" / "review45"


def _folder(name: str) -> dict[str, str]:
    return {str(p.relative_to(DATA / name)): p.read_text() for p in sorted((DATA / name).rglob("*")) if p.is_file()}


@pytest.mark.parametrize("name", ["old_nfs_episode_in_dmesg", "gpu_driver_hang_after_nfs_blip"])
def test_a_storage_episode_that_starved_no_data_loader_leaves_the_hang(name: str, tmp_path: Path, ruleset: RuleSet) -> None:
    # an NFS episode hours from the hang whose blocked task is an rsync, or an eight-second blip
    # with only the trainer itself blocked, in the GPU driver, at the hang's time
    seen = incidents_of(tmp_path, _folder(name), ruleset)
    assert seen and seen[0].cause is Cause.HANG and seen[0].rank == 11, seen


def test_a_python_service_in_the_nodes_journal_is_no_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    # journalctl -o json of the node: WALinuxAgent (identifier python3) logs a traceback; the
    # training job never wrote to the journal
    seen = incidents_of(tmp_path, _folder("journal_json_daemon_traceback"), ruleset)
    assert not seen, seen
    seen = incidents_of(tmp_path / "b", _folder("journal_json_daemon_traceback_hang"), ruleset)
    assert seen and seen[0].cause is Cause.HANG and seen[0].rank == 11, seen


@pytest.mark.parametrize(("name", "cause"), [("journal_json_azure_xid79", Cause.GPU_HARDWARE),
                                             ("journal_json_linkdown", Cause.NETWORK),
                                             ("journal_json_nfs_hang", Cause.DATA_LOADER_STALL),
                                             ("journal_json_oom", Cause.HOST_OOM_KILL)])
def test_a_nodes_json_journal_keeps_its_kernel_faults(name: str, cause: Cause, tmp_path: Path, ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path, _folder(name), ruleset)
    assert seen and seen[0].cause is cause, seen


@pytest.mark.parametrize("name", ["maxmin_rotating_healthy", "slowest_report_rotating_healthy"])
def test_slowest_rank_reports_that_name_changing_ranks_are_healthy(name: str, tmp_path: Path, ruleset: RuleSet) -> None:
    # the slowest rank changes from report to report; one rank is named in 4 of the last 20,
    # the last one among them
    seen = incidents_of(tmp_path, _folder(name), ruleset)
    assert not seen, seen


def test_every_rank_at_its_last_step_then_rank_0_uploading_is_healthy(tmp_path: Path, ruleset: RuleSet) -> None:
    # all 8 ranks print step 10000/10000; rank 0 says training completed and uploads for half an
    # hour (640 lines); torchrun's group succeeds
    seen = incidents_of(tmp_path, _folder("upload_after_training"), ruleset)
    assert not seen, seen


def test_an_ascend_aicore_exception_that_is_a_multi_bit_ecc_error_is_the_devices_memory(
        tmp_path: Path, ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path, _folder("ascend_aicore_ecc"), ruleset)
    assert seen and seen[0].cause is Cause.ECC_MEMORY, seen


DATA_B = Path(__file__).parent / "data" / "review45b"  # (the second review's)


def _folder_b(name: str) -> dict[str, str]:
    return {str(p.relative_to(DATA_B / name)): p.read_text() for p in sorted((DATA_B / name).rglob("*")) if p.is_file()}


@pytest.mark.parametrize(("name", "cause", "rank"), [
    # a job's per-task files ("train_%t.log", pod logs) side by side are no attempts, whatever
    # the clocks of their first stamped lines say
    ("srun_per_task_files_oom", Cause.CUDA_OOM, None),
    ("srun_per_task_save_fails", Cause.PYTHON_EXCEPTION, None),
    ("pod_logs_zoned_clock_ecc", Cause.ECC_MEMORY, 3),
    # the job resubmitted under a new id after a clean restart: its own failure is the verdict
    ("array_then_resubmitted_job_oom", Cause.CUDA_OOM, 2),
    # a retry loop's count before the traceback of its last try is no word that it went on
    ("retry_exhausted_traceback", Cause.PYTHON_EXCEPTION, 2),
    # an adapter's catastrophic error the job survived is still the node's fault
    ("completed_after_hca_catastrophic", Cause.NETWORK, None),
    # a rank 45% slower than the fastest, report after report
    ("maxmin_consistent_straggler_145", Cause.STRAGGLER, 13),
    # an earlier attempt's GPU fault on the node the last attempt ran on again is kept
    ("requeue_xid79_same_node", Cause.GPU_HARDWARE, None),
])
def test_the_second_reviews_runs(name: str, cause: Cause, rank: int | None, tmp_path: Path, ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path, _folder_b(name), ruleset)
    assert seen and seen[0].cause is cause and (rank is None or seen[0].rank == rank), seen


def test_an_earlier_attempts_gpu_fault_on_a_node_the_last_attempt_left_is_dropped(tmp_path: Path, ruleset: RuleSet) -> None:
    # the requeued job's last attempt ran on gpu-05, not on gpu-03 whose GPU fell off the bus, and
    # ended with exit code 0
    seen = incidents_of(tmp_path, _folder_b("requeue_xid79_then_ok"), ruleset)
    assert not seen, seen


DATA_C = Path(__file__).parent / "data" / "review45c"  # (the third review's)


@pytest.mark.parametrize(("name", "cause", "rank"), [
    # a wrapper's retry on the same two hosts after a GPU's ECC error: the node is still suspect
    ("wrapper_retry_ecc_same_nodes", Cause.ECC_MEMORY, 5),
    # the requeued attempt's lines name no host: nothing says it left the faulty node
    ("requeue_ecc_last_file_names_no_host", Cause.ECC_MEMORY, 3),
    # "validation completed" before the last attempt's output stops is no word that it ended well
    ("requeue_last_hangs_after_eval_completed", Cause.ILLEGAL_MEMORY_ACCESS, 3),
    # a later job of another id in the submit folder (a conversion) is no resubmission
    ("slurm_dir_failed_train_then_convert_job", Cause.ILLEGAL_MEMORY_ACCESS, 3),
])
def test_the_third_reviews_runs(name: str, cause: Cause, rank: int, tmp_path: Path, ruleset: RuleSet) -> None:
    files = {str(p.relative_to(DATA_C / name)): p.read_text() for p in sorted((DATA_C / name).rglob("*")) if p.is_file()}
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen and seen[0].cause is cause and seen[0].rank == rank, seen
