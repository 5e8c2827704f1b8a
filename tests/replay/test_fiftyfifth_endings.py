"""Runs of the fifty-fifth session's blind generators (development seeds; copied with their truth)
that an ending read wrong, each mended in general:

- an exception Python ignored at exit, whose line another rule than the uncaught-exception one
  claimed ("RuntimeError: DataLoader worker (pid 812) is killed by signal: Terminated." in an exit
  callback), and the DataLoader's pin-memory thread's traceback at exit: teardown, not the run's
  failure (a healthy run read unknown or hang);
- an exception class named by its module ("torch._dynamo.exc.FailOnRecompileLimitHit"), not by an
  Error suffix: the uncaught exception on its rank (read hang, another rank);
- the heartbeat's "should dump" warnings after training completed (Lightning's "`Trainer.fit`
  stopped", Megatron's "[after training is done]"), whose "Connection reset by peer" on the same
  line stayed a failure: a healthy run (read unknown)."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.types import Cause

DATA = Path(__file__).parent / "data" / "review55"


@pytest.mark.parametrize("run", ["atexit_loader_terminated", "pin_memory_thread_at_exit",
                                 "lightning_should_dump_after_fit", "megatron_should_dump_after_training"])
def test_noise_at_the_end_of_a_finished_run_is_no_incident(run: str, ruleset: RuleSet) -> None:
    report = replay_path(DATA / run, ruleset)
    assert not report.incidents, [(i.cause, i.initiator.rank, i.explanation[:200]) for i in report.incidents]


@pytest.mark.parametrize(("run", "rank"), [("dynamo_recompile_limit_hit", 5)])
def test_the_uncaught_exception_is_the_failure(run: str, rank: int, ruleset: RuleSet) -> None:
    report = replay_path(DATA / run, ruleset)
    assert report.incidents, "no incident"
    first = report.incidents[0]
    assert (first.cause, first.initiator.rank) == (Cause.PYTHON_EXCEPTION, rank), first.explanation


@pytest.mark.parametrize(("run", "cause", "rank"), [
    # a GPU's uncorrectable ECC error raised in an exit handler (an async checkpoint's close()):
    # still the GPU's fault, its node to drain (the broader exit-handler reading made it teardown)
    ("rv_atexit_ecc_at_exit", Cause.ECC_MEMORY, 1),
    # a loader worker killed (SIGKILL) in an iterator's finaliser, the rank then killed too
    ("rv_oom_worker_in_del_then_main_killed", Cause.DATA_LOADER_STALL, 3),
    # a metrics client's caught requests.exceptions.ReadTimeout, a CUDA OOM on another rank a
    # minute later (a module's "exceptions." class read as an uncaught exception took the initiator)
    ("rv_mlflow_timeout_then_oom", Cause.CUDA_OOM, 1),
    # an HTTP client's "Connection reset by peer" (urllib3's ProtocolError) on a rank after another
    # rank's illegal memory access: read as a peer's reset, collateral (an 'unless' for HTTP clients
    # let the uncaught exception's reading take the initiator: reverted; a blind generator's run)
    ("http_reset_after_illegal_access", Cause.ILLEGAL_MEMORY_ACCESS, 7),
])
def test_a_run_keeps_its_cause(run: str, cause: Cause, rank: int, ruleset: RuleSet) -> None:
    report = replay_path(DATA / run, ruleset)
    first = report.incidents[0]
    assert (first.cause, first.initiator.rank) == (cause, rank), first.explanation
