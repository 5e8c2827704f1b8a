"""Finished vs hung (issue 13 item 4): ranks that printed the end of training and exited while one
rank stays is a hang on that rank (a teardown hang); a rank whose data ran out first, while the
others waited for it in a collective, is a hang on the rank that ran out; a run whose ranks all
finished (or whose script prints the end on rank 0 only) is healthy.

The scenarios come from scripts/scenarios/finish.py (committed ones in replay_logs/, variants
generated here); the statistics are checked live (StallTracker) and in replay; the slow tests
run a real 4-rank gloo torchrun job (tests/jobs/train_finish.py) and replay its log folder."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.stats import LogNote, NoteKind, StallTracker, StatsConfig, StepSample
from detector.types import Cause, Report
from tests.support.paths import REPLAY_LOGS, ROOT

sys.path.insert(0, str(ROOT / "scripts"))

from scenarios.finish import FinishRun, build_finish_run
from scenarios.writer import Scenario

JOB = ROOT / "tests" / "jobs" / "train_finish.py"
T0 = 1_796_000_000.0


def _generate(tmp: Path, run: FinishRun) -> Path:
    sc = Scenario(f"test_finish_{run.mode}", datetime(2026, 12, 6, 8, 0, tzinfo=UTC))
    build_finish_run(sc, run)
    folder = tmp / run.mode
    sc.logs.write(folder)
    return folder


# --- replay of the scenarios ---------------------------------------------------------------


def test_teardown_hang_names_the_rank_that_did_not_finish(ruleset: RuleSet) -> None:
    report = replay_path(REPLAY_LOGS / "teardown_hang_4r", ruleset)
    [incident] = report.incidents
    assert incident.cause is Cause.HANG
    assert (incident.initiator.rank, incident.initiator.node) == (3, "ml-box-3")
    assert incident.collateral_ranks == ()  # the others finished: not collateral
    assert "ranks 0-2 finished training and exited; rank 3 did not finish: a teardown hang" in incident.explanation
    assert not incident.remediation.drain_node
    assert "py-spy dump --pid" in incident.remediation.fix
    stall = next(f for f in incident.evidence if f.rule == "stats.stall")
    assert stall.field("finish") == "teardown"
    assert stall.field("finished_ranks") == "0,1,2"


def test_uneven_data_names_the_rank_that_ran_out(ruleset: RuleSet) -> None:
    report = replay_path(REPLAY_LOGS / "uneven_data_hang_4r", ruleset)
    [incident] = report.incidents
    assert incident.cause is Cause.HANG
    assert incident.initiator.rank == 2
    assert set(incident.collateral_ranks) == {0, 1, 3}
    assert "rank 2 finished training after step" in incident.explanation
    assert "ranks 0, 1, 3 had not finished and waited for it in a collective" in incident.explanation
    assert "ran out of data first" in incident.explanation
    assert "same number of batches" in incident.remediation.fix
    stall = next(f for f in incident.evidence if f.rule == "stats.stall" and f.rank == 2)
    assert stall.field("finish") == "left_early"
    assert stall.file is not None and stall.file.endswith("rank_2.log")  # its end-of-training line


def test_a_run_that_just_ended_is_healthy(ruleset: RuleSet) -> None:
    assert replay_path(REPLAY_LOGS / "healthy_all_finished_4r", ruleset).incidents == ()


def test_end_of_training_on_rank_0_only_is_healthy(ruleset: RuleSet, tmp_path: Path) -> None:
    folder = _generate(tmp_path, FinishRun("rank0_end_only"))
    assert replay_path(folder, ruleset).incidents == ()


def test_a_rank_still_tearing_down_when_the_logs_end_is_no_hang_yet(ruleset: RuleSet, tmp_path: Path) -> None:
    """Cancelled 10 s after the others left: rank 3 was not silent beyond its allowance."""
    folder = _generate(tmp_path, FinishRun("teardown_hang", cancel_after_s=10.0))
    report = replay_path(folder, ruleset)
    assert not any(i.cause is Cause.HANG and i.initiator.rank == 3 for i in report.incidents)


def test_a_teardown_hang_cut_by_the_time_limit_is_still_the_hang(ruleset: RuleSet, tmp_path: Path) -> None:
    folder = _generate(tmp_path, FinishRun("teardown_hang", cancel="time_limit"))
    report = replay_path(folder, ruleset)
    incident = report.incidents[0]
    assert (incident.cause, incident.initiator.rank) == (Cause.HANG, 3)
    assert "a teardown hang" in incident.explanation
    assert "the scheduler ended the job later" in incident.explanation
    assert any(f.rule == "scheduler.slurm_time_limit" for f in incident.evidence)


# --- the statistics, live ---------------------------------------------------------------------


def _feed(tracker: StallTracker, ranks: int, last: dict[int, int], ended: set[int]) -> float:
    """Steps 1..last[r] of each rank, 1 s apart; an end-of-training line for ``ended``."""
    for step in range(1, max(last.values()) + 1):
        for rank in range(ranks):
            if step <= last[rank]:
                tracker.observe(StepSample(rank, "n1", T0 + step + 0.001 * rank, step))
    end = T0 + max(last.values()) + 0.5
    for rank in sorted(ended):
        tracker.observe_note(LogNote(rank, end, NoteKind.END, "Training finished: 97 steps"))
    return end


def test_live_tracker_names_the_rank_that_did_not_finish() -> None:
    tracker = StallTracker(StatsConfig())
    end = _feed(tracker, 4, {r: 97 for r in range(4)}, ended={0, 1, 2})
    assert tracker.check(end + 10.0) == []  # within the floor
    [finding] = tracker.check(end + 40.0)
    assert finding.rank == 3
    assert finding.text.startswith("ranks 0-2 finished training and exited; rank 3 did not finish")
    assert finding.field("finish") == "teardown"


def test_live_tracker_names_the_rank_that_left_early() -> None:
    tracker = StallTracker(StatsConfig())
    end = _feed(tracker, 4, {r: 97 for r in range(4)}, ended={2})
    [finding] = tracker.check(end + 40.0)
    assert finding.rank == 2
    assert finding.field("finish") == "left_early"
    assert finding.field("unfinished_ranks") == "0,1,3"
    assert "ran out of work first" in finding.text


def test_live_tracker_all_finished_is_quiet() -> None:
    tracker = StallTracker(StatsConfig())
    end = _feed(tracker, 4, {r: 97 for r in range(4)}, ended={0, 1, 2, 3})
    assert tracker.check(end + 4000.0) == []


# --- a real torchrun job (gloo, CPU) ---------------------------------------------------------


def _torchrun(run_dir: Path, mode: str, odd: int, *, kill_after_finish_s: float | None) -> None:
    """Run tests/jobs/train_finish.py under torchrun with its logs in ``run_dir``; with
    ``kill_after_finish_s``, SIGTERM torchrun that long after the other ranks finished."""
    run_dir.mkdir(parents=True)
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=4",
               "--log-dir", str(run_dir / "logs"), "--redirects", "3", str(JOB), "--steps", "30",
               "--short-steps", "18", "--step-sleep", "0.03", "--mode", mode, "--odd-rank", str(odd)]
    with open(run_dir / "torchrun.log", "wb") as console:
        proc = subprocess.Popen(command, env=env, stdout=console, stderr=subprocess.STDOUT)
        try:
            if kill_after_finish_s is None:
                proc.wait(timeout=120)
                return
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline:
                logs = list(run_dir.glob("logs/*/attempt_0/*/stderr.log"))
                done = [p for p in logs if "Training finished" in p.read_text(errors="replace")]
                if len(done) >= 3:
                    break
                assert proc.poll() is None, "the job ended before the others finished"
                time.sleep(0.2)
            else:
                pytest.fail("the other ranks did not finish")
            time.sleep(kill_after_finish_s)
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def _only(report: Report) -> tuple[Cause, int | None, str]:
    [incident] = report.incidents
    return incident.cause, incident.initiator.rank, incident.explanation


@pytest.mark.slow
def test_real_job_teardown_hang(ruleset: RuleSet, tmp_path: Path) -> None:
    """Ranks 0-2 finish and exit; rank 3 waits forever for a helper thread; torchrun is stopped
    35 s later (past the 30 s floor of the stall allowance)."""
    _torchrun(tmp_path / "run", "teardown_hang", 3, kill_after_finish_s=35.0)
    cause, rank, explanation = _only(replay_path(tmp_path / "run", ruleset))
    assert (cause, rank) == (Cause.HANG, 3), explanation
    assert "ranks 0-2 finished training and exited; rank 3 did not finish: a teardown hang" in explanation


@pytest.mark.slow
def test_real_job_uneven_data(ruleset: RuleSet, tmp_path: Path) -> None:
    """Rank 2's IterableDataset runs out after 18 batches: it finishes and leaves; gloo tells the
    others at once that their peer is gone."""
    _torchrun(tmp_path / "run", "uneven_data", 2, kill_after_finish_s=None)
    cause, rank, explanation = _only(replay_path(tmp_path / "run", ruleset))
    assert (cause, rank) == (Cause.HANG, 2), explanation
    assert "ran out of data first" in explanation


@pytest.mark.slow
def test_real_job_that_finishes_is_healthy(ruleset: RuleSet, tmp_path: Path) -> None:
    _torchrun(tmp_path / "run", "none", 3, kill_after_finish_s=None)
    assert replay_path(tmp_path / "run", ruleset).incidents == ()
