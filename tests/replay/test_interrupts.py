"""A job someone stopped with Ctrl-C (or a SIGINT from its shell or launcher): every rank raises
KeyboardInterrupt. Nothing failed on its own, so it reads as stopped from outside and is not
resubmitted; an exception or a collective timeout before the interrupt keeps its own reading."""

from __future__ import annotations

from pathlib import Path

from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of, write_run


def interrupt(rank: int) -> str:
    return (f"[rank{rank}]: Traceback (most recent call last):\n"
            f'[rank{rank}]:   File "/workspace/train.py", line 211, in <module>\n'
            f"[rank{rank}]:     loss.backward()\n"
            f"[rank{rank}]: KeyboardInterrupt\n")


def test_every_rank_interrupted_is_a_job_stopped_from_outside(tmp_path: Path, ruleset: RuleSet) -> None:
    log = "step 41 | loss 2.31\n" + interrupt(0) + interrupt(1)
    report = replay_path(write_run(tmp_path, {"train.log": log}), ruleset)
    [incident] = report.incidents
    assert incident.cause is Cause.PREEMPTION
    assert (incident.remediation.drain_node, incident.remediation.resubmit) == (False, False)
    assert "interrupt" in incident.explanation


def test_an_exception_before_the_interrupt_is_the_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("[rank1]: ValueError: batch 17 has no labels\n" + interrupt(0))
    [incident] = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert (incident.cause, incident.rank) == (Cause.PYTHON_EXCEPTION, 1)


def test_a_hung_job_someone_interrupted_is_not_stopped_from_outside(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("[rank0]:[E1202 10:10:00.000000 111 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective "
           "operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) "
           "ran for 600002 milliseconds before timing out.\n" + interrupt(1))
    incidents = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert incidents and incidents[0].cause is not Cause.PREEMPTION


def test_interrupted_while_waiting_in_a_collective_is_a_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    """Someone pressed Ctrl-C on a job whose ranks all waited in dist.barrier(): it had hung."""
    def waiting(rank: int) -> str:
        return (f"[rank{rank}]: Traceback (most recent call last):\n"
                f'[rank{rank}]:   File "/workspace/train.py", line 211, in <module>\n'
                f"[rank{rank}]:     dist.barrier()\n"
                f'[rank{rank}]:   File "/usr/lib/python3/dist-packages/torch/distributed/distributed_c10d.py", '
                f"line 4166, in barrier\n"
                f"[rank{rank}]:     work.wait()\n"
                f"[rank{rank}]: KeyboardInterrupt\n")
    [incident] = incidents_of(tmp_path, {"train.log": waiting(0) + waiting(1)}, ruleset)
    assert incident.cause is Cause.HANG
    assert "barrier" in incident.explanation
    assert not incident.drain  # (nor resubmitted: someone stopped it; see below)
    report = replay_path(tmp_path, ruleset)
    assert report.incidents[0].remediation.resubmit is False


AGENT = ("W0616 16:14:04.056000 3791882 site-packages/torch/distributed/elastic/agent/server/api.py:739] Received "
         "{sig} death signal, shutting down workers\n"
         "W0616 16:14:04.059000 3791882 site-packages/torch/distributed/elastic/multiprocessing/api.py:1012] Sending "
         "process 3792016 closing signal {name}\n")


def test_the_launcher_interrupted_with_nothing_failed_is_a_hang_not_resubmitted(tmp_path: Path,
                                                                                ruleset: RuleSet) -> None:
    """A paste that begins with '^C' and torchrun's agent passing SIGINT on to its workers, nothing
    failing before: someone stopped a job that had stopped progressing. Not resubmitted for them."""
    report = replay_path(write_run(tmp_path, {"train.log": "^C" + AGENT.format(sig=2, name="SIGINT")}), ruleset)
    [incident] = report.incidents
    assert incident.cause is Cause.HANG
    assert (incident.remediation.drain_node, incident.remediation.resubmit) == (False, False)
    assert "interrupted (SIGINT" in incident.explanation
    # with the agent's own closing traceback, which names the signal by its number
    closing = ("torch.distributed.elastic.multiprocessing.api.SignalException: Process 3791882 got signal: 2\n")
    report = replay_path(write_run(tmp_path / "c", {"train.log": "^C" + AGENT.format(sig=2, name="SIGINT") + closing}),
                         ruleset)
    assert [(i.cause, i.remediation.resubmit) for i in report.incidents] == [(Cause.HANG, False)]
    # the scheduler's SIGTERM is no one at the keyboard
    got = incidents_of(tmp_path / "b", {"train.log": AGENT.format(sig=15, name="SIGTERM")}, ruleset)
    assert all(g.cause is not Cause.HANG for g in got)
