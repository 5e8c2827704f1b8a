"""From an incident to actions: policy, breaker and budgets, hooks in order, audit, verification.

``Remediator.handle(incident)`` decides and acts (bounded by the hooks' timeouts and retries);
``Remediator.verify(decision)`` then follows the new attempt's logs until it progresses past the
checkpoint or the deadline passes (minutes: the sidecar runs it off its detection path, see
:mod:`detector.remediation.worker`). ``on_hook``, when set, is told of every hook call as it ends
(decisions and pages; the sidecar counts them in ``/metrics``).
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial

from detector.remediation.audit import AuditLog
from detector.remediation.calls import call_hook, inspect_with_timeout
from detector.remediation.config import RemediationConfig
from detector.remediation.exec.argv import drain_reason, safe_token
from detector.remediation.exec.templates import render
from detector.remediation.hooks.registry import BoundHook
from detector.remediation.model import (
    Action,
    Checkpoint,
    Decision,
    Event,
    HookCall,
    HookOutcome,
    JobFacts,
    Outcome,
    Plan,
    Status,
    Verification,
    VerifyPlan,
    VerifyStatus,
)
from detector.remediation.policy import decide
from detector.remediation.state import RemediationStore
from detector.remediation.verify import ResumptionVerifier, snapshot
from detector.report.jsonfmt import incident_to_dict
from detector.support.clock import Clock
from detector.types import Incident

GOOD = (Status.OK, Status.DRY_RUN, Status.SKIPPED)

HookListener = Callable[[HookOutcome], None]


def summarize(plan: Plan, outcomes: Sequence[HookOutcome], reasons: Sequence[str]) -> str:
    """One line for people: what was done, or why only a notification."""
    done = [f"{o.hook} {o.action.value}: {o.result.detail}" for o in outcomes
            if o.action is not Action.NOTIFY and o.result.status is not Status.SKIPPED]
    if not plan.drain and not plan.resubmit:
        return "Notify only: " + "; ".join(reasons) if reasons else "Notify only."
    return "; ".join(done) if done else "; ".join(reasons)


class _Calls:
    """Builds the HookCalls of one incident (checked node, safe reason and token)."""

    def __init__(self, incident: Incident, node: str | None) -> None:
        self.incident = incident
        self.node = node
        self.json = json.dumps(incident_to_dict(incident), ensure_ascii=False)
        self.token = safe_token(incident.id)
        self.reason = drain_reason(incident.cause.value, incident.id)

    def make(self, action: Action, event: Event, summary: str,
             checkpoint: Checkpoint | None) -> HookCall:
        return HookCall(action=action, event=event, incident=self.incident,
                        incident_json=self.json, incident_token=self.token, node=self.node,
                        reason=self.reason, summary=summary, checkpoint=checkpoint,
                        deadline=0.0)


# how the handling of an incident ended when it may have resubmitted the job (in_progress: it runs)
RESUBMITTED_FOR = frozenset({Outcome.ACTED.value, "in_progress"})


class Remediator:
    def __init__(self, *, config: RemediationConfig, hooks: Sequence[BoundHook],
                 store: RemediationStore, audit: AuditLog, verifier: ResumptionVerifier, clock: Clock,
                 act: bool, on_hook: HookListener | None = None) -> None:
        self.config = config
        self.hooks = tuple(hooks)
        self.store = store
        self.audit = audit
        self.verifier = verifier
        self.clock = clock
        self.act = act
        self.on_hook = on_hook
        # the job's name where no hook tells its scheduler's key (the sidecar's --job / job:)
        self.job_name: str | None = None
        self._lock = threading.Lock()  # one incident at a time per process

    def hooks_for(self, action: Action) -> tuple[BoundHook, ...]:
        return tuple(h for h in self.hooks if action in h.hook.actions)

    def _call_all(self, action: Action, calls: _Calls, event: Event, summary: str,
                  checkpoint: Checkpoint | None) -> list[HookOutcome]:
        call = calls.make(action, event, summary, checkpoint)
        outcomes: list[HookOutcome] = []
        for bound in self.hooks_for(action):
            outcome = call_hook(bound, call, dry_run=not self.act, clock=self.clock)
            outcomes.append(outcome)
            if self.on_hook is not None:
                with contextlib.suppress(Exception):  # a failing listener must not stop remediation
                    self.on_hook(outcome)
        return outcomes

    def _fit_to_hooks(self, plan: Plan) -> Plan:
        if plan.drain and not self.hooks_for(Action.DRAIN):
            return replace(plan, drain=False, resubmit=False, reasons=(
                *plan.reasons, "no configured hook drains nodes: notify only"))
        if plan.resubmit and not self.hooks_for(Action.RESUBMIT):
            return replace(plan, resubmit=False, reasons=(
                *plan.reasons, "no configured hook resubmits jobs"))
        return plan

    def job_facts(self) -> JobFacts:
        for bound in self.hooks:
            inspector = bound.inspector
            if inspector is None:
                continue
            deadline = self.clock.monotonic() + bound.timeout_s
            facts = inspect_with_timeout(partial(inspector.inspect_job, deadline),
                                         bound.timeout_s)
            if isinstance(facts, JobFacts) and facts.key is not None:
                return facts
        return JobFacts()

    # --- the sidecar's hand-off ---

    def handle(self, incident: Incident, replaces: str | None = None) -> Decision:
        """Decide and act on one incident (dry-run unless ``act``); always audited. ``replaces``:
        the id of the sidecar's earlier incident of the same failure that this one replaces (a
        GPU's fault told after the hang it explains): where that one was acted on, the job was
        resubmitted for it already, and this one only drains."""
        with self._lock:
            return self._handle(incident, replaces)

    def _handle(self, incident: Incident, replaces: str | None = None) -> Decision:
        dry_run = not self.act
        cfg = self.config
        plan = self._fit_to_hooks(decide(incident, min_confidence=cfg.min_confidence))
        if plan.resubmit and replaces is not None and self.store.outcome_of(replaces) in RESUBMITTED_FOR:
            plan = replace(plan, resubmit=False, reasons=(
                *plan.reasons, f"the job was resubmitted for incident {replaces}, which this one replaces: "
                               "not resubmitting it again"))
        facts = self.job_facts() if (plan.drain or plan.resubmit) else JobFacts()
        job = facts.key or self.job_name or "unknown"
        nodes = facts.nodes if facts.nodes is not None else cfg.budget.job_nodes
        admission = self.store.admit(incident, plan, budget=cfg.budget, job=job,
                                     job_nodes=nodes, dry_run=dry_run)
        if admission.duplicate is not None:
            seen = admission.duplicate
            decision = Decision(incident, plan.node, job, Outcome.DUPLICATE, plan,
                                (f"already handled ({seen.outcome}); nothing done",), (), None,
                                None, self.clock.time())
            self.audit.decision(decision, dry_run)
            return decision
        plan = admission.plan
        if admission.breaker_opened and not dry_run:
            self.audit.breaker("open", admission.breaker_opened, "rankdoctor")
        reasons = list(plan.reasons)
        calls = _Calls(incident, plan.node)
        outcomes: list[HookOutcome] = []
        checkpoint: Checkpoint | None = None
        verify_plan: VerifyPlan | None = None
        if plan.resubmit:  # read-only: where the job will resume from
            found = self._call_all(Action.CHECKPOINT, calls, Event.DECISION, "", None)
            outcomes += found
            checkpoint = next((o.result.checkpoint for o in found if o.result.checkpoint), None)
        if plan.drain:
            drained = self._call_all(Action.DRAIN, calls, Event.DECISION, "", checkpoint)
            outcomes += drained
            ok = all(o.result.status in GOOD for o in drained)
            if not dry_run:
                self.store.drain_done(incident.id, ok)
            if not ok:
                plan = replace(plan, resubmit=False)
                reasons.append("the drain failed: not resubmitting while the node may still "
                               "take the job")
        if plan.resubmit:
            verify_plan, resubmitted = self._resubmit(incident, calls, checkpoint, facts)
            outcomes += resubmitted
        summary = summarize(plan, outcomes, reasons)
        outcomes += self._call_all(Action.NOTIFY, calls, Event.DECISION, summary, checkpoint)
        if dry_run:
            outcome = Outcome.DRY_RUN
        elif any(o.result.status not in GOOD for o in outcomes):
            outcome = Outcome.FAILED
        else:
            outcome = Outcome.ACTED if plan.drain or plan.resubmit else Outcome.NOTIFIED
        decision = Decision(incident, plan.node, job, outcome, plan, tuple(reasons),
                            tuple(outcomes), checkpoint, verify_plan, self.clock.time())
        if not dry_run:
            self.store.finish(incident.id, outcome.value, summary)
        self.audit.decision(decision, dry_run)
        return decision

    def _resubmit(self, incident: Incident, calls: _Calls, checkpoint: Checkpoint | None,
                  facts: JobFacts) -> tuple[VerifyPlan | None, list[HookOutcome]]:
        vcfg = self.config.verify
        old_logs = [*render(vcfg.logs, {"job_id": facts.job_id}), *facts.logs]
        snap = snapshot(old_logs)
        started = self.clock.time()
        outcomes = self._call_all(Action.RESUBMIT, calls, Event.DECISION, "", checkpoint)
        if self.act and vcfg.enabled and all(o.result.status is Status.OK for o in outcomes):
            new_id = next((o.result.job_id for o in outcomes if o.result.job_id), facts.job_id)
            logs = tuple(dict.fromkeys([*render(vcfg.logs, {"job_id": new_id}), *facts.logs]))
            baseline = checkpoint.step if checkpoint and checkpoint.step is not None else 0
            return VerifyPlan(incident.id, baseline, logs, snap, started,
                              vcfg.deadline_s), outcomes
        return None, outcomes

    def verify(self, decision: Decision,
               cancel: threading.Event | None = None) -> Verification | None:
        """Follow the resubmitted job's logs (blocks up to the deadline); record the result and
        page through the NOTIFY hooks when resumption was not seen. None if nothing to verify."""
        if decision.verify is None:
            return None
        result = self.verifier.verify(decision.verify, cancel)
        self.store.record_verification(result)
        self.audit.verification(result)
        if result.status is VerifyStatus.FAILED:
            calls = _Calls(decision.incident, decision.node)
            summary = f"Resubmitted, but resumption was not verified: {result.detail}"
            paged = self._call_all(Action.NOTIFY, calls, Event.VERIFICATION_FAILED, summary,
                                   decision.checkpoint)
            self.audit.write("page", {"incident_id": decision.incident.id,
                                      "summary": summary,
                                      "results": [f"{o.hook}: {o.result.status.value} "
                                                  f"{o.result.detail}" for o in paged]})
        return result
