"""srun's per-node lines about a large job's watchdog aborts ("srun: error: nid002380: tasks
64-71: Aborted (core dumped)") were crash_signal initiators where none of those tasks' ranks left a
line of its own (a large job's output samples a few ranks) and the line had no time of its own;
and the one task srun reports Killed among them all, which never timed out itself, is the rank the
others waited for (it ignored the stop), not a kill nothing explains."""

from __future__ import annotations

from pathlib import Path

from detector.replay import replay_path
from detector.rules.engine import RuleSet

TIMEOUT = ("{r}: [rank{r}]:[E1207 20:41:{s:02d}.311000 ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught collective "
           "operation timeout: WorkNCCL(SeqNum=51202, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) "
           "ran for 600{s:03d} milliseconds before timing out.")


def _out(tmp_path: Path, srun: list[str]) -> Path:
    lines = [*(TIMEOUT.format(r=r, s=10 + r) for r in (0, 1, 2, 9)), *srun]
    (tmp_path / "slurm-9167288.out").write_text("\n".join(lines) + "\n")
    return tmp_path


def test_the_one_task_killed_among_aborted_ones_is_the_stuck_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    srun = ["srun: error: nid002380: tasks 8-15: Aborted (core dumped)",
            "srun: error: nid002379: tasks 0-5,7: Aborted (core dumped)",
            "srun: error: nid002379: task 6: Killed"]
    incident = replay_path(_out(tmp_path, srun), ruleset).incidents[0]
    assert (incident.cause.value, incident.initiator.rank) == ("hang", 6), incident.explanation


def test_a_line_of_several_tasks_aborts_after_the_timeouts_is_their_watchdogs(tmp_path: Path, ruleset: RuleSet) -> None:
    """(srun's lines in the launcher's log, apart from the ranks' stamped output: no time)"""
    _out(tmp_path, [])
    (tmp_path / "launcher.log").write_text("srun: error: nid002380: tasks 8,10-15: Aborted (core dumped)\n"
                                           "srun: error: nid002379: tasks 0-7: Aborted (core dumped)\n")
    report = replay_path(tmp_path, ruleset)
    # (the ranks timed out in a collective and none stands out: a hang, no rank named)
    assert [(i.cause.value, i.initiator.rank) for i in report.incidents] == [("hang", None)]
