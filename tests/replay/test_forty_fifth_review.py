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
