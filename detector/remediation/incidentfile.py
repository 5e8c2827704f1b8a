"""Reading the incident to act on: one incident object (a report's ``incidents`` entry or one
line of the sidecar's incident file) or a whole report (its first incident)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from detector.errors import InputError
from detector.report.jsonfmt import incident_from_dict
from detector.support.userfile import read_user_file
from detector.types import Incident

MAX_BYTES = 64 * 1024 * 1024


def parse_incident_document(text: str, where: str) -> Incident:
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        lines = [ln for ln in text.splitlines() if ln.strip()]
        if len(lines) > 1:
            raise InputError(where, f"holds {len(lines)} lines, not one JSON document: pass one "
                                    "incident (one line of the incident file) or a report"
                             ) from None
        raise InputError(where, f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
                         ) from None
    except ValueError as exc:  # an integer of more than 4300 digits
        raise InputError(where, f"not usable JSON: {str(exc)[:120]}") from None
    except RecursionError:
        raise InputError(where, "JSON nested too deeply") from None
    if isinstance(data, Mapping) and "incidents" in data:
        incidents = data["incidents"]
        if not isinstance(incidents, list):
            raise InputError(where, "'incidents' must be a list")
        if not incidents:
            raise InputError(where, "the report has no incidents: nothing to remediate")
        return incident_from_dict(incidents[0], f"{where}: incidents[0]")
    return incident_from_dict(data, where)


def read_incident(path: Path) -> Incident:
    """The incident in the file ``path``, or on standard input when ``path`` is ``-`` (``rankdoctor
    replay RUN --format json | rankdoctor remediate - --config ...``)."""
    where = str(path)
    if where == "-":
        import sys

        if sys.stdin is None:
            raise InputError("-", "standard input is closed")
        data = sys.stdin.buffer.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            raise InputError("-", f"larger than {MAX_BYTES} bytes")
        try:
            return parse_incident_document(data.decode("utf-8"), "-")
        except UnicodeDecodeError:
            raise InputError("-", "not UTF-8 text") from None
    try:  # a regular file (a device never ends, a FIFO waits for a writer), MAX_BYTES at most
        text = read_user_file(path, MAX_BYTES).decode("utf-8")
    except InputError as exc:
        if exc.detail.startswith("larger than"):
            raise InputError(where, f"larger than {MAX_BYTES} bytes") from None
        raise
    except UnicodeDecodeError:
        raise InputError(where, "not UTF-8 text") from None
    return parse_incident_document(text, where)
