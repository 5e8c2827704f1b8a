"""A torchrun failure summary pasted from its root cause on (its header, the ChildFailedError
line, cut away) was not read as one: the entry's exit took the time of the stamped line above it
(another rank's, pasted out of order, an hour earlier) and looked like the first failure."""

from __future__ import annotations

from pathlib import Path

from detector.replay import replay_path
from detector.rules.engine import RuleSet

TIMEOUT = ("[rank{r}]:[E724 18:18:05.{ms}000 ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught collective operation "
           "timeout: WorkNCCL(SeqNum=88213, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for "
           "600031 milliseconds before timing out.")
TABLE = [
    "Root Cause (first observed failure):",
    "[0]:",
    "  time      : 2025-07-24_18:18:11",
    "  host      : gpu-node-2",
    "  rank      : 1 (local_rank: 1)",
    "  exitcode  : -6 (pid: 41822)",
    "  error_file: <N/A>",
    "  traceback : Signal 6 (SIGABRT) received by PID 41822",
    "============================================================",
]


def test_a_summary_pasted_from_its_root_cause_keeps_its_entries_times(tmp_path: Path, ruleset: RuleSet) -> None:
    lines = [TIMEOUT.format(r=0, ms=112), TIMEOUT.format(r=2, ms=214), "earlier, from rank 3's log:",
             "[rank3]: 2025-07-24 17:23:05,001 INFO iteration 88212 | loss 2.31",
             "[rank3]: 2025-07-24 17:23:05,002 INFO waiting for batch 88213", *TABLE]
    (tmp_path / "issue.md").write_text("\n".join(lines) + "\n")
    report = replay_path(tmp_path, ruleset)
    assert report.incidents and report.incidents[0].cause.value != "crash_signal", report.incidents
    exits = [f for i in report.incidents for f in i.evidence if f.rule == "torchelastic.exitcode" and f.rank == 1]
    assert exits and all(f.time is not None and f.time.hour == 18 and f.time.minute == 18 for f in exits), exits



DATA = Path(__file__).parent / "data" / "review57"


def test_a_pause_in_the_steps_of_a_job_every_agent_says_ended_well_is_no_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    """(a generated run: the rank's log ends at iteration 40, Megatron's validation having rerun a
    spiky loss; every node's agent says its worker group succeeded a minute or more later: the
    stall statistics read a hang of a job that finished)"""
    import shutil

    run = tmp_path / "run"
    shutil.copytree(DATA / "spiky_rerun_completed", run)
    assert replay_path(run, ruleset).incidents == ()
