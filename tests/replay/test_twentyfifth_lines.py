"""The twenty-fifth session's cases: an exception a program caught and logged while it trained
on, and NCCL skipping an InfiniBand device it could not open, read as no failure; the same
lines where the run stopped on them stay its failure."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import causes_of

CLIENT_ERROR = """Monitoring call failed: rpc process closed
Traceback (most recent call last):
  File "/app/monitor/agent.py", line 1027, in run
    raw_output = client.review(batch)
  File "/usr/local/lib/python3.12/dist-packages/monitor/client.py", line 921, in review
    return await response_future
monitor.errors.MonitorError: rpc process closed
"""


def _steps(first: int, count: int) -> str:
    return "".join(f"[2026-03-23 04:{(first + i) // 60 % 60:02d}:{(first + i) % 60:02d}] INFO: step:{first + i}/20000 "
                   f"train_loss:2.{i % 10}31 train_time:{(first + i) * 84}ms step_avg:84.00ms\n" for i in range(count))


def test_an_exception_training_went_on_long_after_is_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    text = _steps(0, 20) + CLIENT_ERROR + _steps(20, 150)
    assert causes_of(tmp_path / "went-on", {"train.log": text}, ruleset) == []


def test_an_exception_that_ends_the_training_stays_the_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    # the same lines, with only a few steps after them (the last ones a buffered stdout flushed)
    text = _steps(0, 150) + CLIENT_ERROR + _steps(150, 5)
    assert causes_of(tmp_path / "stopped", {"train.log": text}, ruleset)[:1] == [Cause.PYTHON_EXCEPTION]


def test_an_error_logged_again_after_the_program_went_on_past_it_twice_is_no_failure(tmp_path: Path,
                                                                                 ruleset: RuleSet) -> None:
    text = CLIENT_ERROR + _steps(0, 120) + CLIENT_ERROR + _steps(120, 120) + CLIENT_ERROR + "Stage completed\n"
    assert causes_of(tmp_path / "third", {"train.log": text}, ruleset) == []


def test_the_same_error_again_after_one_run_it_survived_stays_the_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    # once gone on past, then the same error ends the log: as likely a second launch failing as
    # the first did, so it stays the failure
    text = CLIENT_ERROR + _steps(0, 120) + CLIENT_ERROR
    assert causes_of(tmp_path / "second", {"train.log": text}, ruleset)[:1] == [Cause.PYTHON_EXCEPTION]


IB_OPEN = """[2026-03-18 14:38:12] pgut1-0:871784:871848 [5] ibvwrap.c:94 NCCL WARN Call to ibv_open_device failed
[2026-03-18 14:38:12] pgut1-0:871784:871848 [5] p2p_plugin.c:565 NCCL WARN NET/IB : Unable to open device mlx5_an0
"""


def test_nccl_skipping_a_device_it_cannot_open_is_no_network_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    assert causes_of(tmp_path / "open", {"train.log": "NCCL version 2.27.5+cuda12.9\n" + IB_OPEN + _steps(0, 30)},
                     ruleset) == []
    # another verbs call failing is still the network's failure
    failed = IB_OPEN.replace("ibv_open_device failed", "ibv_modify_qp failed with 110 Connection timed out")
    assert causes_of(tmp_path / "modify", {"train.log": failed}, ruleset)[:1] == [Cause.NETWORK]
