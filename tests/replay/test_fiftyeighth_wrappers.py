"""Wrappers that only pass on another process's failure are not the failure: Ray's
RayTaskError(ChildFailedError) (a task that ran torchrun says a worker failed; the worker's own
lines say which and why) and vLLM's EngineDeadError ("EngineCore encountered an issue. See stack
trace (above)"); vLLM's "Worker proc VllmWorker-N died unexpectedly" below that worker's NCCL
watchdog's takedown is the takedown's consequence, not a death of its own with no reason."""

from __future__ import annotations

from pathlib import Path

from detector.replay import replay_path
from detector.rules.engine import RuleSet

DATA = Path(__file__).parent / "data" / "wrappers58"


def test_rays_word_that_torchrun_failed_is_not_the_failure(ruleset: RuleSet) -> None:
    """(the driver's file has one stamp, hours before the trainer's lines: its wrapper would be
    the run's first failure)"""
    incident = replay_path(DATA / "ray_child_failed", ruleset).incidents[0]
    assert (incident.cause.value, incident.initiator.rank) == ("cuda_oom", 3)
    assert not [f for f in incident.evidence if f.rule == "launcher.ray_task_error" and f.role.value == "initiator"]


def test_a_vllm_worker_taken_down_by_its_watchdog_is_a_hang(ruleset: RuleSet) -> None:
    report = replay_path(DATA / "vllm_engine_dead", ruleset)
    assert [i.cause.value for i in report.incidents] == ["hang"]
    initiators = [f for f in report.incidents[0].evidence if f.role.value == "initiator"]
    assert not any(f.rule in ("python.uncaught_exception", "launcher.vllm_worker_died") for f in initiators)


def test_a_vllm_worker_that_died_with_no_word_before_stays_unknown(tmp_path: Path, ruleset: RuleSet) -> None:
    """(no watchdog line above it: the executor's word is all there is)"""
    (tmp_path / "serve.log").write_text("\n".join([
        "INFO 07-04 17:20:01 [core.py:58] Initializing a V1 LLM engine (v0.10.1) with config: model='Qwen/Qwen3-32B'",
        "ERROR 07-04 17:35:16 [multiproc_executor.py:140] Worker proc VllmWorker-1 died unexpectedly, shutting down executor.",
    ]) + "\n")
    report = replay_path(tmp_path, ruleset)
    assert [(i.cause.value, i.initiator.rank) for i in report.incidents] == [("unknown", 1)]
