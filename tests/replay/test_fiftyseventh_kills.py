"""A rank killed by SIGKILL while its process read the model's weights into host memory ("Loading
checkpoint shards", no training after it) was "unknown", where the threads that end so say the
host ran out of memory: it is read as the OOM killer's, inferred (no OOM-killer line), with the
bar as evidence; a kill after training began stays unknown."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.replay import replay_path
from detector.rules.engine import RuleSet

KILLED = ("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 2 (pid: 29736) of "
          "binary: /opt/conda/bin/python3.10")
TEARDOWN = ("WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 29734 closing signal SIGTERM")


def _write(tmp_path: Path, lines: list[str]) -> Path:
    (tmp_path / "console.log").write_text("\n".join(lines) + "\n")
    return tmp_path


@pytest.mark.parametrize("bar", [
    "Loading checkpoint shards:  14%|███████                                          | 1/7 [00:13<01:22, 13.68s/it]",
    "Loading checkpoint shards: 100%|██████████| 7/7 [01:31<00:00, 13.01s/it]",
])
def test_a_rank_killed_as_it_loads_its_weights_is_a_host_oom_kill(tmp_path: Path, ruleset: RuleSet, bar: str) -> None:
    report = replay_path(_write(tmp_path, ["[INFO] building model", bar, TEARDOWN, KILLED]), ruleset)
    assert [(i.cause.value, i.initiator.rank) for i in report.incidents] == [("host_oom_kill", 2)]
    incident = report.incidents[0]
    assert incident.confidence <= 0.5 and "no OOM-killer line was read" in incident.explanation
    assert any(f.rule == "torch.weight_loading_progress" for f in incident.evidence)


def test_a_kill_printed_behind_the_bar_is_one_as_it_loads(tmp_path: Path, ruleset: RuleSet) -> None:
    """(tqdm ends its bar with no line feed: the launcher's line joins it)"""
    line = "Loading checkpoint shards:  57% 4/7 [00:37<00:28,  9.42s/it]" + KILLED
    report = replay_path(_write(tmp_path, [line]), ruleset)
    assert [(i.cause.value, i.initiator.rank) for i in report.incidents] == [("host_oom_kill", 2)]


def test_a_rank_killed_after_training_began_stays_unknown(tmp_path: Path, ruleset: RuleSet) -> None:
    """(training after the bar: the kill came later, from whoever sent it; and without a bar at all)"""
    bar = "Loading checkpoint shards: 100%|██████████| 7/7 [01:31<00:00, 13.01s/it]"
    steps = [f"{{'loss': {2.0 - i / 100:.4f}, 'learning_rate': 1e-05, 'epoch': {i / 100:.2f}}}" for i in range(30)]
    progress = [f" {i}%|██        | {i}/100 [00:{i:02d}<01:10, 1.21s/it]" for i in range(1, 30)]
    for body in (steps + progress, []):
        report = replay_path(_write(tmp_path, [bar, *body, TEARDOWN, KILLED] if body else [TEARDOWN, KILLED]), ruleset)
        assert [(i.cause.value, i.initiator.rank) for i in report.incidents] == [("unknown", 2)], body[:1]
