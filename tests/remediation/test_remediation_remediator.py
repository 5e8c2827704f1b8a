"""The remediator with fakes: dry-run, order of actions, idempotency, budgets and the breaker,
the audit log, hung hooks, verification and paging, the non-blocking worker."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from detector.remediation.exec.process import SubprocessRunner
from detector.remediation.hooks.base import HookEnv
from detector.remediation.model import (
    Action,
    Decision,
    HookCall,
    HookResult,
    Outcome,
    Status,
    Verification,
    VerifyStatus,
)
from detector.remediation.remediator import Remediator
from detector.remediation.worker import RemediationWorker
from detector.support.clock import SystemClock
from detector.support.settings import Settings
from detector.types import Cause
from tests.support.remediation import (
    SECRET_URL,
    FakeClock,
    FakeRunner,
    checkpoint,
    make,
    make_incident,
    slurm_responder,
)


def audit(rem: Remediator) -> list[dict[str, Any]]:
    return [json.loads(line) for line in rem.audit.path.read_text().splitlines()]


def test_dry_run_changes_nothing(tmp_path: Path) -> None:
    checkpoint(tmp_path, 10)
    rem, runner, poster = make(tmp_path, act=False)
    d = rem.handle(make_incident())
    assert d.outcome is Outcome.DRY_RUN
    assert d.plan.drain and d.plan.resubmit
    assert all(argv[1:3] == ("show", "job") for argv in runner.argvs)  # only lookups
    assert poster.posts == []
    assert [(o.action, o.result.status) for o in d.outcomes] == [
        (Action.CHECKPOINT, Status.DRY_RUN), (Action.DRAIN, Status.DRY_RUN),
        (Action.RESUBMIT, Status.DRY_RUN), (Action.NOTIFY, Status.DRY_RUN)]
    assert rem.store.previous("inc-1") is None  # not claimed: --act may still act
    assert audit(rem)[0]["dry_run"] is True and audit(rem)[0]["outcome"] == "dry_run"


def test_act_drains_then_resubmits_then_notifies(tmp_path: Path) -> None:
    checkpoint(tmp_path, 10)
    checkpoint(tmp_path, 20)
    rem, runner, poster = make(tmp_path)
    d = rem.handle(make_incident())
    assert d.outcome is Outcome.ACTED, d
    changing = [a for a in runner.argvs if a[1:3] != ("show", "job") and a[1] != "show"]
    assert changing == [
        ("scontrol", "update", "NodeName=n1", "State=DRAIN",
         "Reason=rankdoctor: gpu_hardware inc-1"),
        ("scontrol", "requeue", "1234"),
    ]
    assert d.checkpoint is not None and d.checkpoint.step == 20
    assert d.verify is not None and d.verify.baseline_step == 20
    text = json.loads(poster.posts[0][1])["text"]
    assert "slurm drain: n1 is IDLE+DRAIN; slurm resubmit: requeued job 1234" in text


def test_an_incident_acts_at_most_once_across_restarts(tmp_path: Path) -> None:
    rem, _runner, _ = make(tmp_path)
    assert rem.handle(make_incident()).outcome is Outcome.ACTED
    # a new process on the same state dir (a restarted sidecar)
    again, runner2, poster2 = make(tmp_path)
    d = again.handle(make_incident())
    assert d.outcome is Outcome.DUPLICATE
    assert [a for a in runner2.argvs if "show" not in a] == [] and poster2.posts == []
    assert "already handled (acted)" in d.reasons[0]


def test_application_fault_never_drains(tmp_path: Path) -> None:
    rem, runner, poster = make(tmp_path)
    d = rem.handle(make_incident(cause=Cause.PYTHON_EXCEPTION, drain=True))
    assert d.outcome is Outcome.NOTIFIED
    assert runner.argvs == []
    assert len(poster.posts) == 1
    assert "never drains" in json.loads(poster.posts[0][1])["text"]


def test_preemption_resubmits_without_draining(tmp_path: Path) -> None:
    rem, runner, _ = make(tmp_path)
    d = rem.handle(make_incident(cause=Cause.PREEMPTION, drain=False))
    assert d.outcome is Outcome.ACTED
    assert [a for a in runner.argvs if "show" not in a] == [("scontrol", "requeue", "1234")]


def test_low_confidence_only_notifies(tmp_path: Path) -> None:
    rem, runner, poster = make(tmp_path)
    assert rem.handle(make_incident(confidence=0.3)).outcome is Outcome.NOTIFIED
    assert runner.argvs == [] and len(poster.posts) == 1


def test_third_drain_in_an_hour_opens_the_breaker_until_reset(tmp_path: Path) -> None:
    clock = FakeClock()
    rem, runner, _poster = make(tmp_path, clock=clock)
    for i, node in enumerate(["n1", "n2"]):
        assert rem.handle(make_incident(f"inc-{i}", node=node)).outcome is Outcome.ACTED
        clock.advance(60)
    third = rem.handle(make_incident("inc-3", node="n3"))
    assert third.outcome is Outcome.NOTIFIED
    assert not third.plan.drain and "drain 3 in the last hour" in " ".join(third.reasons)
    assert rem.store.breaker().open
    drains = [a for a in runner.argvs if a[1] == "update"]
    assert [a[2] for a in drains] == ["NodeName=n1", "NodeName=n2"]
    # open even an hour later, and it blocks resubmission too
    clock.advance(7200)
    blocked = rem.handle(make_incident("inc-4", cause=Cause.PREEMPTION, drain=False))
    assert blocked.outcome is Outcome.NOTIFIED and "breaker is open" in " ".join(blocked.reasons)
    rem.store.reset_breaker("alice")  # a person's reset also restarts the budgets
    assert rem.handle(make_incident("inc-5", node="n4")).outcome is Outcome.ACTED
    assert rem.store.status().drains_last_hour == 1
    kinds = [r["kind"] for r in audit(rem)]
    assert kinds.count("breaker") == 1 and kinds.count("decision") == 5


def test_fraction_of_the_jobs_nodes(tmp_path: Path) -> None:
    runner = FakeRunner([slurm_responder("IDLE+DRAIN", num_nodes=4)])  # 25 % of 4 = 1 node
    rem, _, _ = make(tmp_path, runner=runner, extra="  budget: {max_drains_per_hour: 10}\n")
    assert rem.handle(make_incident("a", node="n1")).outcome is Outcome.ACTED
    second = rem.handle(make_incident("b", node="n2"))
    assert second.outcome is Outcome.NOTIFIED
    assert "max_drain_fraction 0.25 of 4 nodes (at most 1)" in " ".join(second.reasons)
    assert rem.store.breaker().open


def test_a_failed_drain_does_not_resubmit(tmp_path: Path) -> None:
    rem, runner, poster = make(tmp_path, runner=FakeRunner([slurm_responder("IDLE")]))
    d = rem.handle(make_incident())
    assert d.outcome is Outcome.FAILED
    assert ("scontrol", "requeue", "1234") not in runner.argvs
    assert "the drain failed" in " ".join(d.reasons)
    # retried once (hook_retries default 1), then recorded as failed; the drain is not counted
    assert sum(1 for a in runner.argvs if a[1] == "update") == 2
    assert rem.store.status().drains_last_hour == 0
    assert len(poster.posts) == 1


def test_audit_log_has_every_decision_with_evidence_and_no_secrets(tmp_path: Path) -> None:
    rem, _, _ = make(tmp_path)
    rem.handle(make_incident("inc-a"))
    rem.handle(make_incident("inc-b", cause=Cause.CUDA_OOM))
    rem.handle(make_incident("inc-a"))
    text = rem.audit.path.read_text()
    assert "XOXB-SECRET" not in text and "tok-SECRET-1" not in text
    records = audit(rem)
    assert [(r["incident_id"], r["outcome"]) for r in records] == [
        ("inc-a", "acted"), ("inc-b", "notified"), ("inc-a", "duplicate")]
    first = records[0]
    assert first["incident"]["evidence"][0]["text"].startswith("NVRM: Xid")
    assert first["plan"]["reasons"] == ["gpu_hardware on n1: drain, resubmit"]
    assert first["actions"][1]["commands"][0][:2] == ["scontrol", "update"]


class HangingHook:
    """A plugin stuck in Python code forever."""

    def __init__(self, release: threading.Event) -> None:
        self.release = release

    @property
    def name(self) -> str:
        return "hang"

    @property
    def actions(self) -> frozenset[Action]:
        return frozenset({Action.NOTIFY})

    def plan(self, call: HookCall) -> HookResult:
        return HookResult(Status.DRY_RUN)

    def run(self, call: HookCall) -> HookResult:
        self.release.wait()
        return HookResult(Status.OK, "too late")


def test_hung_hooks_time_out_and_are_recorded(tmp_path: Path) -> None:
    release = threading.Event()

    def factory(settings: Settings, env: HookEnv) -> HangingHook:
        settings.done()
        return HangingHook(release)

    class EP:
        name = "hang"
        value = "tests:hang"

        def load(self) -> Any:
            return factory

    hooks = """\
    - {type: hang, timeout_s: 0.3, retries: 0}
    - {type: command, argv: [sleep, "30"], timeout_s: 0.5, retries: 1}
    - {type: slurm, job_id: "1", resubmit: none}
"""
    rem, _, _ = make(tmp_path, hooks=hooks, clock=SystemClock(), runner=SubprocessRunner(),
                     entry_points=lambda: [EP()])
    start = time.monotonic()
    d = rem.handle(make_incident(cause=Cause.PYTHON_EXCEPTION))
    elapsed = time.monotonic() - start
    try:
        statuses = {o.hook: (o.result.status, o.attempts) for o in d.outcomes}
        assert statuses == {"hang": (Status.TIMEOUT, 1), "command": (Status.TIMEOUT, 2)}
        assert d.outcome is Outcome.FAILED
        assert elapsed < 6, elapsed
        assert [r["actions"][0]["status"] for r in audit(rem)] == ["timeout"]
    finally:
        release.set()


def test_verification_sees_progress_past_the_checkpoint(tmp_path: Path) -> None:
    checkpoint(tmp_path, 10)
    logs = tmp_path / "logs"
    logs.mkdir()
    old = logs / "attempt_0.log"
    old.write_text("[rank0] step 11 | loss 1.0\n[rank0] step 12 | loss 1.0\n")  # before
    rem, _, poster = make(tmp_path, clock=SystemClock())
    d = rem.handle(make_incident())
    assert d.verify is not None
    new = logs / "attempt_1.log"
    new.write_text("resumed from checkpoint step 10\ncheckpoint saved step 10 path x\n"
                   "[rank0] step 11 | loss 0.9\n")
    v = rem.verify(d)
    assert v is not None and v.status is VerifyStatus.VERIFIED
    assert (v.step, v.file) == (11, str(new))
    assert rem.store.status().verifications[0][2] == "verified"
    assert len(poster.posts) == 1  # no page


def test_failed_verification_pages(tmp_path: Path) -> None:
    checkpoint(tmp_path, 10)
    (tmp_path / "logs").mkdir()
    log = tmp_path / "logs" / "job.log"
    log.write_text("step 12 | old attempt\n")
    rem, _, poster = make(tmp_path)  # FakeClock: the deadline passes without waiting
    d = rem.handle(make_incident())
    log.write_text("step 3\nresumed from checkpoint step 10\n")  # truncated, no progress past 10
    v = rem.verify(d)
    assert v is not None and v.status is VerifyStatus.FAILED
    assert "no progress past step 10 within 60 s (highest step seen 3)" in v.detail
    page = json.loads(poster.posts[-1][1])
    assert page["event"] == "verification_failed"
    assert page["text"].startswith("rankdoctor: resumption NOT verified")
    assert [r["kind"] for r in audit(rem)] == ["decision", "verification", "page"]


def test_worker_does_not_block_the_caller(tmp_path: Path) -> None:
    release = threading.Event()
    started = threading.Event()

    class SlowRunner(FakeRunner):
        def __call__(self, argv: Any, **kw: Any) -> Any:
            started.set()
            release.wait(10)
            return super().__call__(argv, **kw)

    runner = SlowRunner([slurm_responder()])
    rem, _, _ = make(tmp_path, runner=runner, clock=SystemClock())
    results: list[tuple[Decision, Verification | None]] = []
    done = threading.Event()

    def on_result(d: Decision, v: Verification | None) -> None:
        results.append((d, v))
        if len(results) == 2:
            done.set()

    worker = RemediationWorker(rem, verify=False, on_result=on_result)
    t0 = time.monotonic()
    assert worker.submit(make_incident("w1"))
    assert worker.submit(make_incident("w2", cause=Cause.CUDA_OOM))
    assert time.monotonic() - t0 < 0.1
    assert started.wait(5)
    release.set()
    assert done.wait(30)
    worker.close()
    assert [(d.incident.id, d.outcome) for d, _ in results] == [
        ("w1", Outcome.ACTED), ("w2", Outcome.NOTIFIED)]


def test_no_drain_hook_means_notify_only(tmp_path: Path) -> None:
    rem, _runner, _poster = make(tmp_path, hooks=f'    - {{type: webhook, url: "{SECRET_URL}"}}\n')
    d = rem.handle(make_incident())
    assert d.outcome is Outcome.NOTIFIED and not d.plan.drain
    assert "no configured hook drains nodes" in " ".join(d.reasons)


@pytest.mark.parametrize("node", ["-n1", "n1;x"])
def test_bad_node_names_never_reach_a_command(tmp_path: Path, node: str) -> None:
    rem, runner, _ = make(tmp_path)
    d = rem.handle(make_incident(node=node))
    assert d.outcome is Outcome.NOTIFIED and runner.argvs == []
