"""``rankdoctor remediate``: act on an incident, show what was done, re-arm the breaker.

    rankdoctor remediate INCIDENT.json --config FILE [--act] [--no-verify] [--json]
    rankdoctor remediate --status --config FILE [--json]
    rankdoctor remediate --reset-breaker --config FILE [--by NAME]

Without ``--act`` (and without ``act: true`` in the config) nothing is changed: the decision and
the commands that would run are printed. Exit status: 0 done (or dry-run, or nothing to do),
1 an action or the verification failed, 2 a usage, config or input error.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from detector.errors import RankdoctorError
from detector.remediation.audit import Redactor, decision_to_dict, verification_to_dict
from detector.remediation.build import build_remediator, open_state
from detector.remediation.config import RemediationConfig, load_remediation_config
from detector.remediation.exec.process import CommandRunner
from detector.remediation.hooks.base import HttpPoster
from detector.remediation.hooks.registry import EntryPoints, installed_entry_points
from detector.remediation.incidentfile import read_incident
from detector.remediation.model import Decision, Outcome, Verification, VerifyStatus
from detector.remediation.state import StatusSnapshot
from detector.support.clock import Clock


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="rankdoctor remediate",
        description="Run the remediation policy and hooks for an incident (dry-run unless "
                    "--act), show what was done (--status), re-arm the breaker.")
    p.add_argument("incident", nargs="?", type=Path,
                   help="an incident object (JSON), one line of a sidecar's incident file, or a "
                        "whole report (its first incident); '-' reads it from standard input "
                        "(rankdoctor replay RUN --format json | rankdoctor remediate - --config ...)")
    p.add_argument("--config", required=True, type=Path, help="config file with 'remediation:'")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--status", action="store_true", help="show the breaker, drains, and "
                                                             "recent decisions")
    mode.add_argument("--reset-breaker", action="store_true",
                      help="close the breaker after a person checked why it opened")
    p.add_argument("--act", action="store_true", help="act (default: dry-run)")
    p.add_argument("--no-verify", action="store_true",
                   help="do not wait for the resubmitted job to progress")
    p.add_argument("--by", default=None, help="who resets the breaker (default: $USER)")
    p.add_argument("--json", action="store_true", help="print JSON")
    return p


def _when(ts: float | None) -> str:
    if ts is None:
        return "-"
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _shown(text: str) -> str:
    """Text for a terminal: an incident file is untrusted (its id, node and reasons may carry escape
    sequences), so control characters are shown as escapes; line breaks stay."""
    from detector.report.safe_text import clean_line

    return clean_line(text, newlines=True)


def format_decision(d: Decision) -> str:
    ini = d.incident.initiator
    where = f" on {ini.node}" if ini.node else ""
    rank = f" (rank {ini.rank})" if ini.rank is not None else ""
    lines = [f"incident {d.incident.id}: {d.incident.cause.value}{where}{rank}, "
             f"confidence {d.incident.confidence:.2f}"]
    planned = [a for a, on in (("drain " + (d.plan.node or "?"), d.plan.drain),
                               ("resubmit", d.plan.resubmit)) if on] or ["notify only"]
    lines.append(f"decision: {d.outcome.value}: {', '.join(planned)}")
    lines += [f"  why: {r}" for r in d.reasons]
    for o in d.outcomes:
        lines.append(f"  {o.action.value:<10} {o.hook:<12} {o.result.status.value:<8} "
                     f"{o.result.detail}")
        lines += [f"      $ {shlex.join(c)}" for c in o.result.commands]
        lines += [f"      skipped {s}" for s in o.result.skipped]
    if d.outcome is Outcome.DRY_RUN:
        lines.append("dry-run: nothing was changed (pass --act, or act: true in the config)")
    return "\n".join(lines)


def format_verification(v: Verification) -> str:
    return f"verification: {v.status.value} after {v.elapsed_s:.1f} s: {v.detail}"


def format_status(s: StatusSnapshot, cfg: RemediationConfig) -> str:
    b = s.breaker
    lines = [("breaker: OPEN since " + _when(b.at) + f": {b.reason}") if b.open
             else "breaker: closed" + (f" (reset {_when(b.at)} by {b.by})" if b.at else ""),
             f"drains in the last hour: {s.drains_last_hour} of "
             f"{cfg.budget.max_drains_per_hour}", "recent incidents:"]
    lines += [f"  {_when(r.at)} {r.id} {r.cause} node={r.node or '-'} job={r.job or '-'} "
              f"{r.outcome}: {r.summary}" for r in s.incidents] or ["  none"]
    lines.append("verifications:")
    lines += [f"  {_when(at)} {iid} {status} step={step}: {detail}"
              for iid, at, status, step, detail in s.verifications] or ["  none"]
    return "\n".join(lines)


def status_to_dict(s: StatusSnapshot) -> dict[str, Any]:
    b = s.breaker
    return {
        "breaker": {"open": b.open, "reason": b.reason, "at": _when(b.at) if b.at else None,
                    "by": b.by},
        "drains_last_hour": s.drains_last_hour,
        "incidents": [{"id": r.id, "at": _when(r.at), "cause": r.cause, "node": r.node,
                       "job": r.job, "outcome": r.outcome, "summary": r.summary}
                      for r in s.incidents],
        "verifications": [{"incident_id": i, "at": _when(at), "status": st, "step": step,
                           "detail": det} for i, at, st, step, det in s.verifications],
    }


def main(
    argv: Sequence[str],
    *,
    environ: Mapping[str, str] | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    runner: CommandRunner | None = None,
    clock: Clock | None = None,
    poster: HttpPoster | None = None,
    entry_points: EntryPoints = installed_entry_points,
) -> int:
    """``argv`` is what follows the word ``remediate``."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    env = dict(os.environ) if environ is None else dict(environ)
    try:
        args = parser().parse_args(list(argv))
    except SystemExit as exc:  # argparse printed the usage
        return int(exc.code or 0) if not isinstance(exc.code, str) else 2
    try:
        cfg = load_remediation_config(args.config, environ=env)
        if args.status or args.reset_breaker:
            if args.incident is not None or args.act:
                raise RankdoctorError("--status and --reset-breaker take no incident or --act")
            store, audit = open_state(cfg, clock)
            if args.status:
                snap = store.status()
                out.write(json.dumps(status_to_dict(snap), indent=2) + "\n" if args.json
                          else _shown(format_status(snap, cfg)) + "\n")
                return 0
            by = args.by or env.get("USER") or "operator"
            before = store.reset_breaker(by)
            audit.breaker("reset", before.reason if before.open else "was closed", by)
            out.write(f"breaker closed (was open: {before.reason})\n" if before.open
                      else "breaker was already closed\n")
            return 0
        if args.incident is None:
            raise RankdoctorError("give an INCIDENT.json (or --status / --reset-breaker)")
        incident = read_incident(args.incident)
        remediator = build_remediator(cfg, environ=env, act=args.act or cfg.act, runner=runner,
                                      clock=clock, poster=poster, entry_points=entry_points)
    except RankdoctorError as exc:
        err.write(f"rankdoctor remediate: error: {exc}\n")
        return 2
    redact = Redactor(s for h in remediator.hooks for s in h.secrets)
    decision = remediator.handle(incident)
    verification = None
    if decision.verify is not None and not args.no_verify:
        if not args.json:
            out.write(_shown(redact(format_decision(decision))) + "\n")
            out.write(f"verifying: waiting up to {decision.verify.deadline_s:g} s for progress "
                      f"past step {decision.verify.baseline_step} in "
                      f"{', '.join(decision.verify.logs)}\n")
            out.flush()
        verification = remediator.verify(decision)
    if args.json:
        doc = {"decision": decision_to_dict(decision),
               "verification": verification_to_dict(verification) if verification else None}
        out.write(redact(json.dumps(doc, indent=2, ensure_ascii=False)) + "\n")
    else:
        if decision.verify is None or args.no_verify:
            out.write(_shown(redact(format_decision(decision))) + "\n")
        if verification is not None:
            out.write(_shown(redact(format_verification(verification))) + "\n")
    failed = decision.outcome is Outcome.FAILED or (
        verification is not None and verification.status is VerifyStatus.FAILED)
    return 1 if failed else 0
