"""A job torchrun restarts (``--max-restarts``) whose next attempt fails too: followed through its
console alone (no ``--log-dir``), no line names an attempt, so the restarted job's failure at its
first step - before any progress closed the episode - was taken for the first one's and never
reported. The processes of a later attempt, seen on the host, now start a new episode: the
second failure is reported too (a real torchrun job under a real ``rankdoctor watch``)."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from detector.attribution.attribute import RunFacts, attribute
from detector.rules.engine import RuleSet
from detector.sidecar.config import DetectionConfig
from detector.sidecar.gate import IncidentGate
from detector.sidecar.state import SidecarStore
from detector.types import Cause, Finding, Role, Severity
from tests.support.sidecar import NOW, REPO, TORCHRUN, TRAIN, SidecarProc, kill_group


def _exception(rank: int, t: float, line: int) -> Finding:
    return Finding(rule="python.uncaught_exception", role=Role.INITIATOR, cause=Cause.PYTHON_EXCEPTION,
                   severity=Severity.ERROR, text=f"[rank{rank}]: RuntimeError: injected fault", file="console.log",
                   line=line, time=datetime.fromtimestamp(t, tz=UTC), rank=rank, node="n1")


def _report(gate: IncidentGate, findings: list[Finding], now: float) -> list[int | None]:
    # (as the engine does: evidence from before the episode's start is no longer attributed)
    findings = [f for f in findings if f.time is None or f.time.timestamp() >= gate.episode_start]
    gate.observe(findings, now)
    due = gate.due(now)
    assert due is not None
    return [i.initiator.rank for i in gate.select(attribute(RunFacts(tuple(findings))), due, now)]


@pytest.mark.parametrize("told", ["after the report", "before the report"])
def test_a_new_attempt_opens_a_new_episode(told: str) -> None:
    gate = IncidentGate(DetectionConfig(settle_s=0.0, collateral_wait_s=0.0), SidecarStore(None))
    first = _exception(1, NOW, 10)
    if told == "before the report":  # (the first failure still settling or held as the workers start again)
        gate.observe([first], NOW)
        gate.new_attempt(NOW + 2)
        assert _report(gate, [first], NOW + 3) == [1]
    else:
        assert _report(gate, [first], NOW) == [1]
        gate.new_attempt(NOW + 2)
    assert gate.episode_start == NOW + 2
    assert _report(gate, [first, _exception(2, NOW + 5, 60)], NOW + 5) == [2]


def test_without_a_new_attempt_a_second_exception_is_the_same_failure() -> None:
    gate = IncidentGate(DetectionConfig(settle_s=0.0, collateral_wait_s=0.0), SidecarStore(None))
    first = _exception(1, NOW, 10)
    assert _report(gate, [first], NOW) == [1]
    assert _report(gate, [first, _exception(2, NOW + 5, 60)], NOW + 5) == []


@pytest.fixture
def processes() -> Iterator[list[object]]:
    items: list[object] = []
    yield items
    for item in items:
        if isinstance(item, SidecarProc):
            item.kill()
        elif isinstance(item, subprocess.Popen):
            kill_group(item)
            item.wait(timeout=10)


def test_a_restarted_job_that_fails_again_is_reported_twice(tmp_path: Path, processes: list[object]) -> None:
    logs = tmp_path / "watched"
    logs.mkdir()
    console = logs / "console.log"
    sidecar = SidecarProc(tmp_path, ["--logs", str(logs), "--no-nvml", "--no-remediate", "--state", str(tmp_path / "state")],
                          metrics_addr="")
    processes.append(sidecar)
    argv = [TORCHRUN, "--standalone", "--nproc-per-node=4", "--max-restarts=1", str(TRAIN), "--steps", "12",
            "--step-sleep", "0.2", "--pg-timeout", "20",
            "--fault", "exception", "--fault-rank", "1", "--fault-step", "5", "--fault-attempt", "0",
            "--fault", "exception", "--fault-rank", "2", "--fault-step", "1", "--fault-attempt", "1"]
    env = dict(os.environ, OMP_NUM_THREADS="1", TORCH_DISABLE_SHARE_RDZV_TCP_STORE="1")
    with open(console, "ab") as out:
        job = subprocess.Popen(argv, cwd=REPO, stdout=out, stderr=subprocess.STDOUT, env=env, stdin=subprocess.DEVNULL,
                               start_new_session=True)
    processes.append(job)
    assert job.wait(timeout=180) != 0
    found = sidecar.wait_incidents(2, timeout=60)
    assert [(i["cause"], i["initiator"]["rank"]) for i in found] == [("python_exception", 1), ("python_exception", 2)]
    time.sleep(2)  # (nothing more: the teardowns' lines are each failure's own)
    assert len(sidecar.incidents()) == 2


def test_an_unconfirmed_exception_waits_longer_where_steps_are_slow() -> None:
    from detector.sidecar.gate import SLOW_STEPS_WAIT_S

    gate = IncidentGate(DetectionConfig(settle_s=0.0, confirm_wait_s=5.0), SidecarStore(None))
    first = _exception(1, NOW, 10)
    gate.observe([first], NOW)
    incidents = attribute(RunFacts((first,)))
    assert gate.held_until(incidents) == NOW + 5.0
    assert gate.held_until(incidents, 0.2) == NOW + 5.0  # (fast steps: the configured wait)
    assert gate.held_until(incidents, 3.0) == NOW + 9.0  # (three steps of 3 s)
    assert gate.held_until(incidents, 600.0) == NOW + SLOW_STEPS_WAIT_S


def test_a_restart_seen_while_a_caught_exception_was_held_opens_one_episode() -> None:
    """(a reviewer: the workers started again while an exception was held, which the job then
    went on after; the mark of the restart stayed, and closed the episode the next failure opened:
    that failure's next line was reported again)"""
    gate = IncidentGate(DetectionConfig(settle_s=0.0, collateral_wait_s=0.0, confirm_wait_s=5.0), SidecarStore(None))
    caught = _exception(1, NOW, 10)
    gate.observe([caught], NOW)
    gate.new_attempt(NOW + 1)
    due = gate.due(NOW + 6)
    assert due is not None
    gate.drop_caught(attribute(RunFacts((caught,))), due)
    gate.configure(DetectionConfig(settle_s=0.0, collateral_wait_s=0.0, confirm_wait_s=0.0))
    failure = _exception(2, NOW + 20, 60)
    assert _report(gate, [failure], NOW + 20) == [2]
    assert _report(gate, [failure, _exception(3, NOW + 21, 61)], NOW + 21) == []


def test_a_caught_chained_connection_reset_is_held_like_the_exception_it_caused() -> None:
    """(a reviewer: "ConnectionResetError ... The above exception was the direct cause of ...
    RuntimeError: upload failed", caught: the reset's line - collateral, marked as the traceback's -
    was taken for a peer's error confirming the exception, and it was reported at once)"""
    import dataclasses

    from detector.types import RAISED

    gate = IncidentGate(DetectionConfig(settle_s=0.0, collateral_wait_s=0.0, confirm_wait_s=5.0), SidecarStore(None))
    reset = Finding(rule="python.connection_lost", role=Role.COLLATERAL, cause=None, severity=Severity.WARNING,
                    text="[rank1]: ConnectionResetError: [Errno 104] Connection reset by peer", file="console.log",
                    line=9, time=datetime.fromtimestamp(NOW, tz=UTC), rank=1, node="n1")
    raised = dataclasses.replace(reset, fields=((RAISED, "1"),))
    wrapped = _exception(1, NOW, 14)
    for collateral, held in ((raised, True), (reset, False)):
        gate.observe([collateral, wrapped], NOW)
        incidents = attribute(RunFacts((collateral, wrapped)))
        assert (gate.held_until(incidents) is not None) is held


def test_workers_of_a_later_attempt_or_of_a_new_launch_are_told_to_the_gate(ruleset: RuleSet) -> None:
    """(a reviewer: attempts count from 0 again when the job is launched anew into the followed
    folder - a requeue, a rerun - and its restart was never above the first launch's last attempt)"""
    from detector.types import RankProcess
    from tests.sidecar.test_sidecar_units import engine

    eng = engine(ruleset)
    told: list[float] = []
    eng.gate.new_attempt = told.append  # type: ignore[method-assign]

    def procs(attempt: int, first_pid: int) -> list[RankProcess]:
        return [RankProcess(r, r, first_pid + r, attempt, "n1", None) for r in range(2)]

    for n, (attempt, pid) in enumerate([(0, 100), (1, 200), (2, 300)]):
        eng.on_processes(procs(attempt, pid))
        eng.tick(NOW + n)
    assert told == [NOW + 1, NOW + 2]
    eng.on_processes([])
    eng.tick(NOW + 10)
    eng.on_processes(procs(0, 1000))  # the job launched again: a new episode too
    eng.tick(NOW + 20)
    eng.on_processes(procs(1, 1100))  # and its workers restarted
    eng.tick(NOW + 30)
    assert told == [NOW + 1, NOW + 2, NOW + 20, NOW + 30]
    eng.on_processes(procs(1, 1100))  # (the same processes again: nothing)
    eng.tick(NOW + 40)
    assert len(told) == 4
