"""The forty-fourth session's stragglers: a rank whose last timing lines fall on steps too few of
its peers printed a line for, and a trainer's own step-time reports that name the slowest rank."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of


def _timing_lines(slow: int, steps_of: dict[int, range]) -> list[str]:
    lines = []
    for step in range(260, 380, 20):
        minute = 25 + (step - 260) // 10
        for rank in sorted(steps_of):
            if step not in steps_of[rank]:
                continue
            compute = 9.74 if rank == slow else 3.55 + 0.03 * (rank % 5)
            lines.append(f"[2026-09-26 14:{minute:02d}:40,215] [INFO] [trainer.log_step_time:88] "
                         f"[RANK:{rank}] rank {rank} step {step} time 11.46s (compute {compute:.2f}s, dataloader 0.01s)")
    return lines


def test_a_rank_whose_last_lines_have_too_few_peers_is_still_the_straggler(tmp_path: Path, ruleset: RuleSet) -> None:
    # every rank prints the same total (the all-reduce waits for the slowest); rank 9's compute is
    # 2.7 times its peers'. The console holds three to six lines a rank: rank 9's last two steps
    # were printed by one other rank only, so no peer median there judges it - they must not
    # end its streak
    steps_of = {rank: range(260, 320 + 1) if rank % 3 else range(260, 300 + 1) for rank in range(16)}
    steps_of[9] = range(260, 360 + 1)
    steps_of[1] = range(260, 360 + 1)
    seen = incidents_of(tmp_path, {"console.log": "\n".join(_timing_lines(9, steps_of)) + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.STRAGGLER and seen[0].rank == 9, seen


def test_even_ranks_on_the_same_uneven_lines_are_healthy(tmp_path: Path, ruleset: RuleSet) -> None:
    steps_of = {rank: range(260, 320 + 1) if rank % 3 else range(260, 300 + 1) for rank in range(16)}
    steps_of[9] = range(260, 360 + 1)
    steps_of[1] = range(260, 360 + 1)
    seen = incidents_of(tmp_path, {"console.log": "\n".join(_timing_lines(-1, steps_of)) + "\n"}, ruleset)
    assert not seen, seen


def _report(step: int, slow: int | None, slow_s: float) -> list[str]:
    out = [f"step {step} | loss 5.{step % 97:02d} | lr 2.5e-04 | 5.9{step % 7} s/it"]
    head = f"[straggler] step-time report (16 ranks): median compute 2.2{step % 5}s, p99 2.3{step % 4}s"
    out.append(head + (f", slowest rank {slow} (gpu63, local 6) {slow_s:.2f}s; others wait in all_reduce"
                       if slow is not None else ""))
    return out


def test_step_time_reports_that_name_the_same_slowest_rank_name_the_straggler(tmp_path: Path, ruleset: RuleSet) -> None:
    # rank 0's output only (a W&B run's output.log): the trainer's own report names rank 14 on
    # gpu63 the slowest, at twice the median, report after report; no other log places it
    lines = [line for step in range(100, 1100, 100) for line in _report(step, None, 0.0)]
    lines += [line for step in range(1100, 2500, 100) for line in _report(step, 14, 4.6 + 0.01 * (step % 30))]
    seen = incidents_of(tmp_path, {"output.log": "\n".join(lines) + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.STRAGGLER and seen[0].rank == 14 and seen[0].node == "gpu63", seen


def test_reports_whose_slowest_rank_changes_or_barely_lags_name_no_straggler(tmp_path: Path, ruleset: RuleSet) -> None:
    # jitter: a different slowest rank each time, or the same one 5% over the median
    changing = [line for i, step in enumerate(range(100, 2500, 100)) for line in _report(step, i % 16, 4.6)]
    assert not incidents_of(tmp_path / "a", {"output.log": "\n".join(changing) + "\n"}, ruleset)
    close = [line for step in range(100, 2500, 100) for line in _report(step, 14, 2.33)]
    assert not incidents_of(tmp_path / "b", {"output.log": "\n".join(close) + "\n"}, ruleset)
