"""The sidecar's remediation series: each hook call by how it ended, decisions, verifications,
errors and the time of the last failure — from SidecarMetrics alone (an injected clock) and
through the remediation package's worker as the sidecar wires it (``build_remediation``)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from prometheus_client import generate_latest

from detector.remediation.model import (
    Action,
    Decision,
    HookOutcome,
    HookResult,
    Outcome,
    Plan,
    Status,
    Verification,
    VerifyStatus,
)
from detector.sidecar.config import SidecarConfig
from detector.sidecar.metrics import SidecarMetrics
from detector.sidecar.service import build_remediation
from tests.support.remediation import make_incident
from tests.support.sidecar import metric

T = 1_796_000_000.0


class Clock:
    def __init__(self) -> None:
        self.now = T

    def __call__(self) -> float:
        return self.now


def scrape(m: SidecarMetrics) -> str:
    return generate_latest(m.registry).decode()


def outcome(hook: str, action: Action, status: Status) -> HookOutcome:
    return HookOutcome(hook, action, HookResult(status, "x"))


def decision(result: Outcome) -> Decision:
    return Decision(make_incident(), "n1", "slurm:1", result, Plan(True, False, "n1", ()), (), (), None, None, T)


def test_hook_calls_are_counted_by_outcome_and_failures_timed() -> None:
    clock = Clock()
    m = SidecarMetrics("train", "node01", clock=clock)
    assert metric(scrape(m), "rankdoctor_remediation_last_failure_timestamp_seconds") is None
    m.remediation_hook(outcome("slurm", Action.DRAIN, Status.OK))
    m.remediation_hook(outcome("webhook", Action.NOTIFY, Status.DRY_RUN))
    assert metric(scrape(m), "rankdoctor_remediation_last_failure_timestamp_seconds") is None  # nothing failed
    m.remediation_hook(outcome("webhook", Action.NOTIFY, Status.FAILED))
    m.remediation_hook(outcome("webhook", Action.NOTIFY, Status.FAILED))
    clock.now = T + 5
    m.remediation_hook(outcome("slurm", Action.RESUBMIT, Status.TIMEOUT))
    text = scrape(m)
    base = {"training_job": "train", "node": "node01"}
    actions = "rankdoctor_remediation_actions_total"
    assert metric(text, actions, **base, hook="slurm", action="drain", outcome="ok") == 1
    assert metric(text, actions, **base, hook="webhook", action="notify", outcome="dry_run") == 1
    assert metric(text, actions, **base, hook="webhook", action="notify", outcome="failed") == 2
    assert metric(text, actions, **base, hook="slurm", action="resubmit", outcome="timeout") == 1
    assert metric(text, "rankdoctor_remediation_last_failure_timestamp_seconds", **base) == T + 5


def test_decisions_verifications_and_errors() -> None:
    clock = Clock()
    m = SidecarMetrics("train", "node01", clock=clock)
    m.remediation_result(decision(Outcome.ACTED), None)
    m.remediation_result(decision(Outcome.FAILED), None)
    m.remediation_result(decision(Outcome.ACTED), Verification("inc-1", VerifyStatus.VERIFIED, "ok"))
    text = scrape(m)
    assert metric(text, "rankdoctor_remediation_decisions_total", outcome="acted") == 1
    assert metric(text, "rankdoctor_remediation_decisions_total", outcome="failed") == 1
    assert metric(text, "rankdoctor_remediation_verifications_total", outcome="verified") == 1
    assert metric(text, "rankdoctor_remediation_last_failure_timestamp_seconds") is None
    clock.now = T + 60
    m.remediation_result(decision(Outcome.ACTED), Verification("inc-1", VerifyStatus.FAILED, "no progress"))
    assert metric(scrape(m), "rankdoctor_remediation_last_failure_timestamp_seconds") == T + 60
    clock.now = T + 90
    m.remediation_error("decision")
    text = scrape(m)
    assert metric(text, "rankdoctor_remediation_errors_total", stage="decision") == 1
    assert metric(text, "rankdoctor_remediation_last_failure_timestamp_seconds") == T + 90


def test_the_sidecars_worker_counts_failed_and_timed_out_hooks(tmp_path: Path) -> None:
    """build_remediation wires the metrics: a hook exiting 3 and one that hangs past its
    timeout are in /metrics as soon as the worker has handled the incident."""
    hooks = [{"type": "command", "name": "fails", "actions": ["notify"], "timeout_s": 5,
              "argv": [sys.executable, "-c", "import sys; sys.exit(3)"]},
             {"type": "command", "name": "hangs", "actions": ["notify"], "timeout_s": 0.5,
              "argv": [sys.executable, "-c", "import time; time.sleep(30)"]}]
    config = SidecarConfig(logs=(), node="node01", metrics_addr=None, act=True, state_dir=tmp_path / "state",
                           remediation={"state_dir": str(tmp_path / "rem"), "hook_retries": 0,
                                        "verify": {"enabled": False}, "hooks": hooks})
    m = SidecarMetrics(config.job, "node01")
    worker, closer = build_remediation(config, {}, m)
    try:
        assert worker.submit(make_incident())
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and metric(scrape(m), "rankdoctor_remediation_decisions_total") is None:
            time.sleep(0.1)
    finally:
        closer.close(timeout=5.0)
    text = scrape(m)
    actions = "rankdoctor_remediation_actions_total"
    assert metric(text, actions, hook="fails", action="notify", outcome="failed") == 1, text
    assert metric(text, actions, hook="hangs", action="notify", outcome="timeout") == 1, text
    assert metric(text, "rankdoctor_remediation_decisions_total", node="node01", outcome="failed") == 1
    assert (metric(text, "rankdoctor_remediation_last_failure_timestamp_seconds") or 0) > time.time() - 60


def test_evidence_dropped_past_the_cap_is_a_counter() -> None:
    metrics = SidecarMetrics("job1", "n1")
    dropped = [0]
    metrics.add_evidence(lambda: (), lambda: 10, lambda: (), lambda: dropped[0])
    assert 'rankdoctor_evidence_dropped_total{training_job="job1"} 0.0' in generate_latest(metrics.registry).decode()
    dropped[0] = 4880
    assert 'rankdoctor_evidence_dropped_total{training_job="job1"} 4880.0' in generate_latest(metrics.registry).decode()


def test_the_audit_log_names_the_watchs_job_where_no_hook_does(tmp_path: Path) -> None:
    """(a sidecar tester: with `job: wjob` and a webhook, the audit log said "job": "unknown")"""
    hooks = [{"type": "command", "name": "ok", "actions": ["drain", "notify"], "timeout_s": 5,
              "argv": [sys.executable, "-c", "pass"]}]
    config = SidecarConfig(logs=(), node="node01", job="wjob", metrics_addr=None, act=False,
                           state_dir=tmp_path / "state",
                           remediation={"state_dir": str(tmp_path / "rem"), "verify": {"enabled": False}, "hooks": hooks})
    worker, closer = build_remediation(config, {})
    try:
        assert worker.submit(make_incident())
        audit = tmp_path / "rem" / "audit.jsonl"
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not (audit.exists() and '"decision"' in audit.read_text()):
            time.sleep(0.1)
    finally:
        closer.close(timeout=5.0)
    records = [json.loads(line) for line in audit.read_text().splitlines() if line.strip()]
    decisions = [r for r in records if r.get("kind") == "decision"]
    assert decisions and all(r["job"] == "wjob" for r in decisions), records
