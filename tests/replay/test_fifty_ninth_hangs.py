"""A job that hung and was then stopped from outside: its ranks stopped making progress long
before torchrun's agent got its SIGTERM (a person or a script killed it), which is a hang, not a
preemption; one that trained up to the signal was preempted. And a torchrun failure table whose
every entry is a SIGABRT, beside the Flight Recorder analyser's word of the rank missing from the
collective the others wait in: the aborts are the watchdog's, the missing rank hung."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from detector.replay import replay_path
from detector.rules.engine import RuleSet

START = datetime(2025, 3, 1, 21, 0, 0)


def _run(root: Path, *, silent_minutes: int, note: str | None = None) -> None:
    for node in ("r24u04", "r25u20"):
        for local in range(2):
            d = root / node / "job-3ba895a2" / "attempt_0" / str(local)
            d.mkdir(parents=True)
            steps = [f"{(START + timedelta(seconds=30 * i)):%Y-%m-%d %H:%M:%S},000 INFO step {i * 10} | loss 3.1 | "
                     "0.61 s/it" for i in range(40)]
            if note:
                steps.append(f"{(START + timedelta(seconds=30 * 39 + 5)):%Y-%m-%d %H:%M:%S},000 INFO {note}")
            (d / "stdout.log").write_text("\n".join(steps) + "\n")
        stop = START + timedelta(seconds=30 * 39) + timedelta(minutes=silent_minutes)
        (root / node / "torchrun.log").write_text(
            f"[{stop:%Y-%m-%d %H:%M:%S},774] torch.distributed.elastic.agent.server.api: [WARNING] Received "
            "Signals.SIGTERM death signal, shutting down workers\n")


def _cause(root: Path, ruleset: RuleSet) -> str | None:
    incidents = replay_path(root, ruleset).incidents
    return incidents[0].cause.value if incidents else None


def test_a_job_stopped_long_after_its_ranks_stalled_hung(tmp_path: Path, ruleset: RuleSet) -> None:
    _run(tmp_path, silent_minutes=40)
    assert _cause(tmp_path, ruleset) == "hang"


def test_a_job_stopped_in_a_checkpoints_pause_was_preempted(tmp_path: Path, ruleset: RuleSet) -> None:
    """(12 minutes of silence after "Saving model checkpoint": the stop came in the save)"""
    _run(tmp_path, silent_minutes=12, note="Saving model checkpoint to /ckpt/checkpoint-390")
    assert _cause(tmp_path, ruleset) == "preemption"


def test_a_sigterm_before_a_table_of_sigabrt_exits_is_no_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    """torchrun's agent got SIGTERM, then its table lists the workers' SIGABRT exits: a stop from
    outside went first, not the watchdog's abort of a hung collective."""
    entries = []
    for i, r in enumerate((4, 5, 6, 7)):
        entries += [f"[{i}]:", "  time      : 2026-03-03_14:21:53", "  host      : sh19-15n13",
                    f"  rank      : {r} (local_rank: {r})", f"  exitcode  : -6 (pid: 37344{r:02d})",
                    "  error_file: <N/A>", f"  traceback : Signal 6 (SIGABRT) received by PID 37344{r:02d}"]
    (tmp_path / "console.log").write_text("\n".join([
        "[2026-03-03 14:21:50,774] torch.distributed.elastic.agent.server.api: [WARNING] Received Signals.SIGTERM "
        "death signal, shutting down workers",
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
        "============================================================", "train.py FAILED",
        "------------------------------------------------------------", "Failures:", *entries[7:],
        "------------------------------------------------------------", "Root Cause (first observed failure):",
        *entries[:7], "============================================================", ""]))
    assert _cause(tmp_path, ruleset) != "hang"


def test_a_job_stopped_while_it_trained_was_preempted(tmp_path: Path, ruleset: RuleSet) -> None:
    _run(tmp_path, silent_minutes=0)
    assert _cause(tmp_path, ruleset) == "preemption"


def test_a_table_of_sigabrt_exits_beside_the_flight_recorders_missing_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    entries = []
    for i, r in enumerate((4, 6, 7)):
        entries += [f"[{i + 1}]:", "  time      : 2026-03-03_14:21:53", "  host      : sh19-15n13",
                    f"  rank      : {r} (local_rank: {r})", f"  exitcode  : -6 (pid: 37344{r:02d})",
                    "  error_file: <N/A>", f"  traceback : Signal 6 (SIGABRT) received by PID 37344{r:02d}"]
    (tmp_path / "ticket.md").write_text("\n".join([
        "# NCCL hang?", "", "Stuck at step 258; nothing printed until the watchdog killed everything.", "", "```",
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
        "============================================================", "train.py FAILED",
        "------------------------------------------------------------", "Failures:", *entries,
        "------------------------------------------------------------", "Root Cause (first observed failure):",
        "[0]:", "  time      : 2026-03-03_14:21:53", "  host      : sh19-15n13", "  rank      : 5 (local_rank: 5)",
        "  exitcode  : -6 (pid: 3734494)", "  error_file: <N/A>", "  traceback : Signal 6 (SIGABRT) received by PID 3734494",
        "============================================================", "```", "",
        "```", "$ torchfrtrace /tmp/fr_dumps --prefix nccl_trace_rank_ -j",
        "Not all ranks joining collective: sequence number: 276", "internal record id: 288",
        "group info: 0:default_pg", "collective: nccl:all_gather", "missing ranks: {19}", "input sizes: [[1]]",
        "output sizes: [[1]]", "world size: 24", "```", ""]))
    incidents = replay_path(tmp_path, ruleset).incidents
    assert incidents and (incidents[0].cause.value, incidents[0].initiator.rank) == ("hang", 19), incidents


def test_a_slow_gpus_throttle_mask_before_a_ctrl_c_is_the_straggler(tmp_path: Path, ruleset: RuleSet) -> None:
    """nvidia-smi --query-gpu's clocks_throttle_reasons.active of a GPU in thermal slowdown (0x60)
    beside a run that someone stopped with Ctrl-C: the slow GPU is told first, the stop second."""
    (tmp_path / "train.log").write_text(
        " 12%|#2        | 118/1000 [21:52<2:43:30, 11.12s/it]\n"
        "Traceback (most recent call last):\n"
        '  File "train.py", line 88, in <module>\n'
        "    trainer.train()\n"
        "KeyboardInterrupt\n")
    (tmp_path / "gpu_query_ml-ws02.txt").write_text(
        "$ nvidia-smi --query-gpu=index,temperature.gpu,clocks.sm,clocks.max.sm,power.draw,"
        "clocks_throttle_reasons.active --format=csv\n"
        "index, temperature.gpu, clocks.sm [MHz], clocks.max.sm [MHz], power.draw [W], clocks_throttle_reasons.active\n"
        "0, 69, 1408, 1410, 338.00, 0x0000000000000000\n"
        "1, 87, 703, 1410, 219.00, 0x0000000000000060\n")
    incidents = replay_path(tmp_path, ruleset).incidents
    assert [i.cause.value for i in incidents][:2] == ["straggler", "preemption"], incidents
