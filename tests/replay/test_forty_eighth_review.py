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
