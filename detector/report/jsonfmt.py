"""The JSON report contract (``rankdoctor.report/v1``, see docs/architecture.md) in both directions."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from detector.errors import InputError
from detector.types import (
    Cause,
    Finding,
    Incident,
    Initiator,
    Remediation,
    Report,
    Role,
    Severity,
)

SCHEMA = "rankdoctor.report/v1"


def iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def finding_to_dict(finding: Finding) -> dict[str, Any]:
    return {
        "time": iso(finding.time),
        "file": finding.file,
        "line": finding.line,
        "rank": finding.rank,
        "node": finding.node,
        "rule": finding.rule,
        "role": finding.role.value,
        "text": finding.text,
    }


def incident_to_dict(incident: Incident) -> dict[str, Any]:
    ini = incident.initiator
    return {
        "id": incident.id,
        "cause": incident.cause.value,
        "initiator": {
            "rank": ini.rank,
            "local_rank": ini.local_rank,
            "node": ini.node,
            "gpu": ini.gpu,
            "pid": ini.pid,
        },
        "collateral_ranks": list(incident.collateral_ranks),
        "confidence": round(incident.confidence, 3),
        "first_evidence_time": iso(incident.first_evidence_time),
        "explanation": incident.explanation,
        "evidence": [finding_to_dict(f) for f in incident.evidence],
        "remediation": {
            "drain_node": incident.remediation.drain_node,
            "resubmit": incident.remediation.resubmit,
            "fix": incident.remediation.fix,
            "verify": incident.remediation.verify,
        },
    }


def report_to_dict(report: Report) -> dict[str, Any]:
    s = report.summary
    out = {
        "schema": SCHEMA,
        "source": report.source,
        "summary": {
            "files": s.files,
            "lines": s.lines,
            "ranks": s.ranks,
            "nodes": s.nodes,
            "start": iso(s.start),
            "end": iso(s.end),
            "node_sources": dict(s.node_sources),
        },
        "incidents": [incident_to_dict(i) for i in report.incidents],
        "warnings": list(report.warnings),
    }
    if report.recovered:  # (an added field, only where there is something to say)
        out["recovered"] = list(report.recovered)
    return out


def dumps_report(report: Report) -> str:
    text = json.dumps(report_to_dict(report), indent=2, ensure_ascii=False) + "\n"
    # (C1 controls and bidirectional overrides from log text, escaped: a terminal that shows the
    # report acts on them or shows the text reversed; the JSON means the same)
    return _TERMINAL_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


_TERMINAL_UNSAFE = re.compile("[\u0080-\u009f\u202a-\u202e\u2066-\u2069\u061c\u200e\u200f]")


# --- reading back (remediation takes incidents from reports and sidecar incident files) ---


def _opt_int(data: Mapping[str, Any], key: str, where: str) -> int | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(where, f"'{key}' must be an integer or null, not {value!r}")
    return value


def _opt_bool(data: Mapping[str, Any], key: str, where: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise InputError(where, f"'{key}' must be true or false, not {value!r}")
    return value


def _opt_str(data: Mapping[str, Any], key: str, where: str) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise InputError(where, f"'{key}' must be a string or null, not {value!r}")
    return value


def _time(value: Any, where: str) -> datetime | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InputError(where, f"time must be an ISO-8601 string, not {value!r}")
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        raise InputError(where, f"not an ISO-8601 time: {value!r}") from None


def _enum_value(enum: type[Any], value: Any, where: str, what: str) -> Any:
    try:
        return enum(value)
    except ValueError:
        known = ", ".join(m.value for m in enum)
        raise InputError(where, f"unknown {what} {value!r} (known: {known})") from None


def finding_from_dict(data: Mapping[str, Any], where: str) -> Finding:
    if not isinstance(data, Mapping):
        raise InputError(where, "each evidence entry must be an object")
    role = _enum_value(Role, data.get("role", "context"), where, "role")
    text = data.get("text")
    if not isinstance(text, str):
        raise InputError(where, "evidence 'text' must be a string")
    return Finding(
        rule=str(data.get("rule") or ""),
        role=role,
        cause=None,
        severity=Severity.INFO,
        text=text,
        file=_opt_str(data, "file", where),
        line=_opt_int(data, "line", where),
        time=_time(data.get("time"), where),
        rank=_opt_int(data, "rank", where),
        node=_opt_str(data, "node", where),
    )


def incident_from_dict(data: Any, where: str = "incident") -> Incident:
    """Build an Incident from one report incident object (or a sidecar incident line).

    Raises InputError naming what is wrong; never KeyError/TypeError.
    """
    if not isinstance(data, Mapping):
        raise InputError(where, "an incident must be a JSON object")
    for key in ("id", "cause", "initiator", "remediation"):
        if key not in data:
            raise InputError(where, f"missing key '{key}'")
    ident = data["id"]
    if not isinstance(ident, str) or not ident:
        raise InputError(where, "'id' must be a non-empty string")
    cause = _enum_value(Cause, data["cause"], where, "cause")
    ini = data["initiator"]
    if not isinstance(ini, Mapping):
        raise InputError(where, "'initiator' must be an object")
    rem = data["remediation"]
    if not isinstance(rem, Mapping):
        raise InputError(where, "'remediation' must be an object")
    collateral = data.get("collateral_ranks") or []
    if not isinstance(collateral, list) or not all(
        isinstance(r, int) and not isinstance(r, bool) for r in collateral
    ):
        raise InputError(where, "'collateral_ranks' must be a list of integers")
    confidence = data.get("confidence", 0.0)
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        raise InputError(where, "'confidence' must be a number")
    # NaN would pass every "below the minimum" check; json.loads accepts NaN and Infinity
    if not 0 <= confidence <= 1:  # (an int is compared before float() could overflow)
        raise InputError(where, "'confidence' must be a number from 0 to 1")
    evidence_raw = data.get("evidence") or []
    if not isinstance(evidence_raw, list):
        raise InputError(where, "'evidence' must be a list")
    return Incident(
        id=ident,
        cause=cause,
        initiator=Initiator(
            rank=_opt_int(ini, "rank", where),
            local_rank=_opt_int(ini, "local_rank", where),
            node=_opt_str(ini, "node", where),
            gpu=_opt_str(ini, "gpu", where),
            pid=_opt_int(ini, "pid", where),
        ),
        collateral_ranks=tuple(collateral),
        confidence=float(confidence),
        first_evidence_time=_time(data.get("first_evidence_time"), where),
        explanation=str(data.get("explanation") or ""),
        evidence=tuple(
            finding_from_dict(e, f"{where}: evidence[{i}]") for i, e in enumerate(evidence_raw)
        ),
        remediation=Remediation(
            drain_node=_opt_bool(rem, "drain_node", where),
            resubmit=_opt_bool(rem, "resubmit", where),
            fix=str(rem.get("fix") or ""),
            verify=str(rem.get("verify") or ""),
        ),
    )
