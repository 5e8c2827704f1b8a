"""The forty-fourth session's collective readings: one rank's watchdog a few collectives behind
all the others', in a collective of another size (the others completed what it waits in)."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of


def _watchdog(rank: int, seq: int, numel: int, pg: str = "") -> str:
    return (f"[rank{rank}]:[E ProcessGroupNCCL.cpp:563] [Rank {rank}]{pg} Watchdog caught collective operation "
            f"timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn={numel}, NumelOut={numel}, "
            f"Timeout(ms)=600000) ran for {600010 + rank} milliseconds before timing out.")


def test_one_rank_behind_in_a_collective_of_another_size_is_a_mismatch(tmp_path: Path, ruleset: RuleSet) -> None:
    # rank 2 waits in #959, a 545M-element all-reduce; ranks 0, 1, 3 and 4 completed #959 to #962
    # and wait in #963, a 2,560-element one: their calls paired with different ones of rank 2's
    lines = [_watchdog(r, 959 if r == 2 else 963, 544997376 if r == 2 else 2560) for r in range(5)]
    seen = incidents_of(tmp_path, {"train.log": "\n".join(lines) + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.COLLECTIVE_MISMATCH and seen[0].rank == 2, seen


def test_one_collective_behind_or_the_same_size_or_named_groups_stay_a_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    # one apart: the others finished #962 and wait in #963 while rank 2 never finished #962
    one = [_watchdog(r, 962 if r == 2 else 963, 544997376 if r == 2 else 2560) for r in range(5)]
    seen = incidents_of(tmp_path / "one", {"train.log": "\n".join(one) + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.HANG and seen[0].rank == 2, seen
    # the same size: nothing says they paired different calls
    same = [_watchdog(r, 959 if r == 2 else 963, 2560) for r in range(5)]
    seen = incidents_of(tmp_path / "same", {"train.log": "\n".join(same) + "\n"}, ruleset)
    assert seen and seen[0].cause is not Cause.COLLECTIVE_MISMATCH, seen
    # a process group that is not the default one numbers its own collectives
    named = [_watchdog(r, 959 if r == 2 else 963, 544997376 if r == 2 else 2560,
                       " [PG ID 3 PG GUID 3 Rank 0]" if r == 2 else " [PG ID 0 PG GUID 0(default_pg) Rank 0]")
             for r in range(5)]
    seen = incidents_of(tmp_path / "named", {"train.log": "\n".join(named) + "\n"}, ruleset)
    assert seen and seen[0].cause is not Cause.COLLECTIVE_MISMATCH, seen


def test_the_same_reading_where_every_line_names_the_default_group(tmp_path: Path, ruleset: RuleSet) -> None:
    lines = [_watchdog(r, 959 if r == 2 else 963, 544997376 if r == 2 else 2560,
                       " [PG ID 0 PG GUID 0(default_pg) Rank 0]") for r in range(5)]
    seen = incidents_of(tmp_path, {"train.log": "\n".join(lines) + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.COLLECTIVE_MISMATCH and seen[0].rank == 2, seen
