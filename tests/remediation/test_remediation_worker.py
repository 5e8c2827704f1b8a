"""The worker and the remediator's hook listener as the sidecar uses them for /metrics: every
hook call (decisions and pages) is reported as it ends; a step that raises is reported and
the worker keeps serving, even when the audit log is what fails; failing callbacks change nothing."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from detector.remediation.model import Action, Decision, HookOutcome, Outcome, Status, Verification, VerifyStatus
from detector.remediation.worker import RemediationWorker
from detector.types import Cause, Incident
from tests.support.remediation import FakePoster, FakeRunner, checkpoint, make, make_incident, slurm_responder


def test_every_hook_call_is_reported_as_it_ends(tmp_path: Path) -> None:
    seen: list[HookOutcome] = []
    rem, _, _ = make(tmp_path, runner=FakeRunner([slurm_responder("IDLE")]), poster=FakePoster(status=500))
    rem.on_hook = seen.append
    d = rem.handle(make_incident())
    assert d.outcome is Outcome.FAILED
    assert seen == list(d.outcomes)  # the same outcomes as the decision (and the audit log)
    assert {(o.hook, o.action, o.result.status) for o in seen} == {
        ("checkpoint", Action.CHECKPOINT, Status.OK), ("slurm", Action.DRAIN, Status.FAILED),
        ("webhook", Action.NOTIFY, Status.FAILED)}


def test_pages_after_a_failed_verification_are_reported(tmp_path: Path) -> None:
    checkpoint(tmp_path, 10)
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "job.log").write_text("step 12\n")
    seen: list[HookOutcome] = []
    rem, _, _ = make(tmp_path)
    rem.on_hook = seen.append
    d = rem.handle(make_incident())
    before = len(seen)
    v = rem.verify(d)
    assert v is not None and v.status is VerifyStatus.FAILED
    assert [(o.hook, o.action, o.result.status) for o in seen[before:]] == [("webhook", Action.NOTIFY, Status.OK)]


def test_a_failing_listener_changes_nothing(tmp_path: Path) -> None:
    rem, _, poster = make(tmp_path)

    def broken(_o: HookOutcome) -> None:
        raise RuntimeError("listener bug")

    rem.on_hook = broken
    assert rem.handle(make_incident()).outcome is Outcome.ACTED
    assert len(poster.posts) == 1


@pytest.mark.parametrize("audit_broken", [False, True])
def test_a_step_that_raises_is_reported_and_the_worker_goes_on(tmp_path: Path, audit_broken: bool) -> None:
    rem, _, _ = make(tmp_path)
    real = rem.handle

    def handle(incident: Incident, replaces: str | None = None) -> Decision:
        if incident.id == "bad":
            raise RuntimeError("state store gone")
        return real(incident, replaces)

    rem.handle = handle  # type: ignore[method-assign]
    if audit_broken:  # the error record cannot be written either
        real_write = rem.audit.write

        def write(kind: str, record: Any) -> None:
            if kind == "error":
                raise OSError(28, "No space left on device")
            real_write(kind, record)
        rem.audit.write = write  # type: ignore[method-assign]
    errors: list[str] = []
    results: list[Decision] = []
    done = threading.Event()

    def on_result(d: Decision, _v: Verification | None) -> None:
        results.append(d)
        done.set()

    def on_error(stage: str) -> None:
        errors.append(stage)
        raise RuntimeError("callback bug")  # must not stop the worker either

    worker = RemediationWorker(rem, verify=False, on_result=on_result, on_error=on_error)
    try:
        assert worker.submit(make_incident("bad"))
        assert worker.submit(make_incident("good", cause=Cause.CUDA_OOM))
        assert done.wait(10)
    finally:
        worker.close()
    assert errors == ["decision"]
    assert [d.incident.id for d in results] == ["good"]
    if not audit_broken:
        assert '"kind": "error"' in rem.audit.path.read_text()
