"""The audit log: one JSON object per line for every decision, verification and breaker change.

Records carry the incident with its evidence, the plan and why, and each hook's outcome with the
commands it ran. Secrets (webhook URLs, tokens) are masked in every line before it is written.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from detector.errors import ConfigError
from detector.remediation.model import Decision, HookOutcome, Plan, Verification
from detector.report.jsonfmt import incident_to_dict
from detector.support.clock import Clock

MASK = "***"


class Redactor:
    """Replaces each secret (longest first) with ``***``."""

    def __init__(self, secrets: Iterable[str]) -> None:
        plain = {s for s in secrets if s and len(s) >= 4}
        # records are JSON: a secret holding '"', '\\' or control characters is written escaped
        escaped = {json.dumps(s, ensure_ascii=False)[1:-1] for s in plain}
        self._secrets = sorted(plain | escaped, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, MASK)
        return text


def outcome_to_dict(o: HookOutcome) -> dict[str, Any]:
    r = o.result
    return {
        "hook": o.hook,
        "action": o.action.value,
        "status": r.status.value,
        "detail": r.detail,
        "commands": [list(c) for c in r.commands],
        "attempts": o.attempts,
        "checkpoint": {"path": r.checkpoint.path, "step": r.checkpoint.step}
        if r.checkpoint else None,
        "job_id": r.job_id,
        "skipped": list(r.skipped),
    }


def plan_to_dict(plan: Plan) -> dict[str, Any]:
    return {"drain": plan.drain, "resubmit": plan.resubmit, "node": plan.node,
            "reasons": list(plan.reasons)}


def decision_to_dict(d: Decision) -> dict[str, Any]:
    return {
        "incident_id": d.incident.id,
        "cause": d.incident.cause.value,
        "node": d.node,
        "job": d.job,
        "outcome": d.outcome.value,
        "plan": plan_to_dict(d.plan),
        "reasons": list(d.reasons),
        "actions": [outcome_to_dict(o) for o in d.outcomes],
        "checkpoint": {"path": d.checkpoint.path, "step": d.checkpoint.step}
        if d.checkpoint else None,
        "verify": {"baseline_step": d.verify.baseline_step, "logs": list(d.verify.logs),
                   "deadline_s": d.verify.deadline_s} if d.verify else None,
    }


def verification_to_dict(v: Verification) -> dict[str, Any]:
    return {"incident_id": v.incident_id, "status": v.status.value, "detail": v.detail,
            "step": v.step, "file": v.file, "elapsed_s": round(v.elapsed_s, 3)}


class AuditLog:
    def __init__(self, path: Path, clock: Clock, redact: Redactor) -> None:
        self.path = path
        self._clock = clock
        self._redact = redact
        self._lock = threading.Lock()
        try:  # before anything acts: an action whose record cannot be kept is not taken
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8"):
                pass
        except OSError as exc:
            raise ConfigError(str(path), None,
                              f"the audit log cannot be written ({exc.strerror or exc}): set remediation.audit_log "
                              "to a file this user can append to") from None

    def write(self, kind: str, record: Mapping[str, Any]) -> None:
        now = datetime.fromtimestamp(self._clock.time(), UTC).isoformat()
        line = json.dumps({"time": now, "kind": kind, **record}, ensure_ascii=False,
                          default=str)
        line = self._redact(line) + "\n"
        try:
            with self._lock, self.path.open("a", encoding="utf-8") as f:
                f.write(line)
                f.flush()
        except OSError as exc:
            # the file went away or filled up after the start: the record goes to standard error
            # rather than nowhere (an action taken is never left unrecorded)
            sys.stderr.write(f"rankdoctor: audit log {self.path}: cannot append ({exc.strerror or exc}); "
                             f"the record: {line}")

    def decision(self, d: Decision, dry_run: bool) -> None:
        self.write("decision", {"dry_run": dry_run, **decision_to_dict(d),
                                "incident": incident_to_dict(d.incident)})

    def verification(self, v: Verification) -> None:
        self.write("verification", verification_to_dict(v))

    def breaker(self, state: str, reason: str, by: str) -> None:
        self.write("breaker", {"state": state, "reason": reason, "by": by})
