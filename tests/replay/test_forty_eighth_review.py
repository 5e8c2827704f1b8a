"""Run folders a helper reviewer built against the forty-eighth session's changes, where a new
reading had turned a right diagnosis wrong (each fixed): a death that came after the network
errors taken as their cause; a data-loading episode that had ended read as the hang's cause; an
earlier stage's completion read as the end of a later stage that failed."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.types import Cause

DATA = Path(__file__).parent / "data" / "review48"


@pytest.mark.parametrize("run", ["I2_ib_errors_before_the_loader_death_own_host_peer",
                                 "I3_ib_errors_before_a_segfault_own_host_peer",
                                 "I4_ib_status12_and_flush_then_later_segfault"])
def test_a_death_after_the_network_errors_is_not_their_cause(run: str, ruleset: RuleSet) -> None:
    # InfiniBand errors from a node's address, then minutes later (or lines below) a rank of that
    # node dies at the teardown: the network failure came first
    report = replay_path(DATA / run, ruleset)
    assert report.incidents and report.incidents[0].cause is Cause.NETWORK


@pytest.mark.parametrize("run", ["L3_data_episode_recovered_then_hang", "L5_data_episode_recovered_pyspy_elsewhere"])
def test_a_data_loading_episode_that_ended_is_not_the_hangs_cause(run: str, ruleset: RuleSet) -> None:
    # rank 5's batches came late for a while, then it trained on normally and stopped (a py-spy
    # dump, in L5, shows it in torch.cuda.synchronize): a hang on rank 5
    report = replay_path(DATA / run, ruleset)
    assert report.incidents[0].cause is Cause.HANG and report.incidents[0].initiator.rank == 5


@pytest.mark.parametrize("run", ["S2_stage2_node0_died_after_stage1_completed", "S2b_stage2_died_flat_files"])
def test_an_earlier_stages_completion_does_not_end_a_later_stage(run: str, ruleset: RuleSet) -> None:
    # the pretraining stage said it completed; the fine-tuning stage after it stopped at step 100
    # and node 1's agent then lost the store: the run failed
    report = replay_path(DATA / run, ruleset)
    assert report.incidents and report.incidents[0].cause is Cause.HANG


# --- the second reviewer's: inputs ---------------------------------------------------------------


def test_a_requeued_jobs_attempts_beside_a_rotated_trainer_log(ruleset: RuleSet) -> None:
    # slurm-5746418_0.out failed on a GPU, slurm-5746418_1.out trained to its end; the trainer's
    # train.log and train.log.1 beside them are no attempts of their own: healthy
    assert replay_path(DATA / "two_attempt_groups", ruleset).incidents == ()


def test_a_code_archives_readme_is_no_log(ruleset: RuleSet) -> None:
    # a repository's "Download ZIP" beside a healthy run: its README quotes an out-of-memory traceback
    assert replay_path(DATA / "code_zip_readme", ruleset).incidents == ()


def test_json_step_records_between_stamped_lines_have_their_own_times(ruleset: RuleSet) -> None:
    # print(json.dumps({...})) step records, each with its own time, between stamped logging
    # lines, to "saving final checkpoint": no stall
    assert replay_path(DATA / "json_print_metrics_final_ckpt", ruleset).incidents == ()


def test_structlog_records_that_speak_of_a_rank(ruleset: RuleSet) -> None:
    report = replay_path(DATA / "structlog_json_crash", ruleset)
    assert report.incidents[0].cause is Cause.ILLEGAL_MEMORY_ACCESS and report.incidents[0].initiator.rank == 2


def test_a_tar_member_that_cannot_be_written_leaves_the_others(ruleset: RuleSet) -> None:
    # node08.tar.gz holds a file named like a folder of it: that member is left out, not the rest
    report = replay_path(DATA / "tar_collision", ruleset)
    assert report.incidents[0].cause is Cause.ILLEGAL_MEMORY_ACCESS and report.incidents[0].initiator.rank == 4
    assert any("not unpacked (File exists)" in w for w in report.warnings)
    assert not any("rankdoctor-archive-" in w for w in report.warnings)  # (no scratch path shown)
