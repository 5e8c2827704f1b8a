"""Horovod's stall inspector lists, per stalled tensor, the ranks ready to reduce it. Two tensors
whose ready ranks have none in common were submitted in place of each other: a collective
mismatch, with the rank alone on its side named; one set of ready ranks alone (some ranks late)
stays what it was."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of

WARNING = ("WARNING: One or more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks "
           "and are waiting for remainder of ranks for more than 60 seconds. This may indicate that different ranks "
           "are trying to submit different tensors or that only subset of ranks is submitting tensors, which will "
           "cause deadlock. Stalled ops: ")


def test_ready_ranks_apart_are_a_mismatch_on_the_odd_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    # (as pasted: the report's list of stalled ops broken over lines)
    log = (WARNING + "HorovodAllreduce_loss_Mean_0 [ready ranks: 3], \n"
           "DistributedMomentumOptimizer_Allreduce/HorovodAllreduce_gradients_dense_BiasAdd_grad_0 [ready ranks: 2, 0, 1]\n")
    [incident] = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert (incident.cause, incident.rank) == (Cause.COLLECTIVE_MISMATCH, 3)
    assert "submitted different collectives" in incident.explanation


def test_the_report_on_one_line_as_horovod_prints_it(tmp_path: Path, ruleset: RuleSet) -> None:
    log = (WARNING + "DistributedMomentumOptimizer_Allreduce/HorovodAllreduce_gradients_dense_BiasAdd_grad_0 "
           "[ready ranks: 2, 0, 1], HorovodAllreduce_loss_Mean_0 [ready ranks: 3]\n")
    [incident] = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert (incident.cause, incident.rank) == (Cause.COLLECTIVE_MISMATCH, 3)


def test_one_set_of_ready_ranks_is_no_mismatch(tmp_path: Path, ruleset: RuleSet) -> None:
    log = (WARNING + "allreduce.conv1.weight [ready ranks: 0, 7, 3, 2, 4, 6], "
           "allreduce.bn1.weight [ready ranks: 0, 7, 3, 2, 4, 6]\n")
    assert all(i.cause is not Cause.COLLECTIVE_MISMATCH for i in incidents_of(tmp_path, {"train.log": log}, ruleset))


def _stalled_table(rows: dict[int, str]) -> str:
    """mpirun --timestamp-output's ctime and tag before each line of the "Stalled ranks:" table."""
    lead = "Fri Oct 23 17:16:00 2020[0]<stderr>:"
    head = (lead + "[2020-10-23 17:16:00.707119: W horovod/common/stall_inspector.cc:105] One or more tensors were "
            "submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting for remainder of "
            "ranks for more than 60 seconds.\n" + lead + "Stalled ranks:\n")
    return head + "".join(f"{lead}{r}: [{names}]\n" for r, names in rows.items())


def test_stalled_ranks_each_missing_what_the_other_submitted_are_a_mismatch(tmp_path: Path, ruleset: RuleSet) -> None:
    rows = {0: "horovod_allreduce.noname.691941"} | {r: "horovod_allreduce.noname.691943" for r in range(1, 8)}
    [incident] = incidents_of(tmp_path, {"train.log": _stalled_table(rows)}, ruleset)
    assert (incident.cause, incident.rank) == (Cause.COLLECTIVE_MISMATCH, 0)
    assert "each side submitted what the other lacks" in incident.explanation


def test_stalled_ranks_behind_others_or_cut_lists_are_no_mismatch(tmp_path: Path, ruleset: RuleSet) -> None:
    # rank 3 misses what rank 4 misses and more (it is further behind): no side submitted what the other lacks
    rows = {3: "horovod_allreduce.5, horovod_allreduce.6", 4: "horovod_allreduce.6"}
    assert all(i.cause is not Cause.COLLECTIVE_MISMATCH
               for i in incidents_of(tmp_path / "a", {"train.log": _stalled_table(rows)}, ruleset))
    # a list Horovod cut short says nothing about what is not shown
    rows = {3: "horovod_allreduce.5, horovod_allreduce.6 ...", 4: "horovod_allreduce.6, horovod_allreduce.7 ..."}
    assert all(i.cause is not Cause.COLLECTIVE_MISMATCH
               for i in incidents_of(tmp_path / "b", {"train.log": _stalled_table(rows)}, ruleset))
