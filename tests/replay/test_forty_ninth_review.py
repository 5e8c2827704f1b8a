"""Run folders helper reviewers built against the forty-ninth session's changes, where a new
reading had turned a right diagnosis wrong (each fixed): Python's "Exception ignored in" at a
dying process's exit, a message's advice to "fall back", or a launcher's SIGTERM after a fatal
exception read as the program's word that it went on; a final save that began and never ended
read as the end of a finished run; a script's two stages read as two attempts; a job's restart
count echoed twice by each node read as its requeues; the nodes a resubmission was given placing
an undated kernel fault in it; and two unrelated faults hours apart read as a kernel log's zone."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.types import Cause

DATA = Path(__file__).parent / "data" / "review49"


@pytest.mark.parametrize(("run", "rank"), [("B1-exception-ignored-after-fatal", 1), ("B8-paddle-sigterm-after-fatal", 1),
                                           ("B7-dynamo-fall-back-to-eager-noblank", 1), ("E2-maxsteps-save-crash-rank3", 3)])
def test_a_fatal_exception_is_not_read_as_one_the_program_went_on_from(run: str, rank: int, ruleset: RuleSet) -> None:
    # the traceback is followed by Python's "Exception ignored in: <function ...__del__>" (or,
    # in B7, by torch.compile's advice to "fall back to eager"; in B8 by the launcher's SIGTERM;
    # in E2 the job had said it reached max_steps): the exception ended its rank
    report = replay_path(DATA / run, ruleset)
    assert report.incidents[0].cause is Cause.PYTHON_EXCEPTION and report.incidents[0].initiator.rank == rank


def test_an_old_cuda_oom_followed_by_exception_ignored_is_the_failure(ruleset: RuleSet) -> None:
    report = replay_path(DATA / "B4b-oom-old-format", ruleset)
    assert report.incidents[0].cause is Cause.CUDA_OOM and report.incidents[0].initiator.rank == 1


def test_a_final_save_that_began_and_never_ended_is_no_finished_run(ruleset: RuleSet) -> None:
    # Megatron said training is done, began its last save and hung there; the kernel lost a GPU
    report = replay_path(DATA / "E1d-megatron-done-save-hang-xid", ruleset)
    assert report.incidents and report.incidents[0].cause is Cause.GPU_HARDWARE


def test_a_scripts_two_stages_are_not_two_attempts(ruleset: RuleSet) -> None:
    # "+ srun ... pretrain.py" ran out of GPU memory on task 3; "+ srun ... evaluate.py" then ran
    # well: the pretraining's failure is the run's
    report = replay_path(DATA / "R1d-srun-two-stages-oom-then-eval", ruleset)
    assert report.incidents and report.incidents[0].cause is Cause.CUDA_OOM and report.incidents[0].initiator.rank == 3


def test_a_restart_count_each_node_echoed_is_no_requeue(ruleset: RuleSet) -> None:
    # resubmitted by hand after a quota error, each node's launcher echoing SLURM_RESTART_COUNT=0;
    # the resubmission finished: healthy, as a resubmitted job whose last attempt ended well is
    report = replay_path(DATA / "R3c-resubmitted-after-quota-error-restart-count-echoed-per-node", ruleset)
    assert not report.incidents


def test_an_undated_kernel_fault_stays_with_the_attempt_whose_lines_name_its_node(ruleset: RuleSet) -> None:
    # the resubmission was given node-006 again but failed on its own (a KeyError on rank 11):
    # node-006's undated Xid is the first attempt's
    report = replay_path(DATA / "N1-resubmitted-untimed-dmesg-node-in-last-nodelist", ruleset)
    assert report.incidents[0].cause is Cause.PYTHON_EXCEPTION and report.incidents[0].initiator.rank == 11


def test_two_faults_hours_apart_are_not_a_kernel_logs_zone(ruleset: RuleSet) -> None:
    # GPU 5 showed ERR! in the first attempt and fell off the bus 2 h 27 min later in the second;
    # the kernel log keeps the ranks' clock
    report = replay_path(DATA / "Z1-gpu-lost-twice-smi-err", ruleset)
    assert report.incidents[0].cause is Cause.GPU_HARDWARE and report.incidents[0].initiator.rank == 5
    assert report.incidents[0].remediation.drain_node
