"""Where an incident goes: one JSON line appended to the incidents file (the report's incident
object plus ``detected_at``), a line on the terminal, the metrics counter, and remediation
(a non-blocking hand-off; dry-run unless ``--act``)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol, TextIO

from detector.report.jsonfmt import incident_to_dict
from detector.types import GPU_FAULTS, Cause, Incident


class IncidentHandler(Protocol):
    """The remediation package's RemediationWorker (``submit`` returns at once)."""

    def submit(self, incident: Incident, replaces: str | None = None) -> bool: ...


def incident_line(incident: Incident, detected_at: float, replaces: str | None = None) -> dict[str, Any]:
    data = incident_to_dict(incident)
    data["detected_at"] = datetime.fromtimestamp(detected_at, tz=UTC).isoformat()
    if replaces is not None:
        data["replaces"] = replaces
    return data


def summary(incident: Incident, replaces: str | None = None) -> str:
    ini = incident.initiator
    who = "rank ?" if ini.rank is None else f"rank {ini.rank}"
    if ini.node:
        who += f" on {ini.node}"
    if ini.gpu:
        who += f" (GPU {ini.gpu})"
    again = ""
    if replaces is not None:
        # (a GPU's fault told after the failure it explains; else a reading that named the rank)
        again = (f" (replaces {replaces}: this GPU fault explains that failure)" if incident.cause in GPU_FAULTS
                 else f" (replaces {replaces}, which named no rank)")
    return (f"INCIDENT {incident.cause.value}: {who}, confidence {incident.confidence:.2f}{again}; "
            f"{incident.explanation}")


def _silence(stream: TextIO) -> None:
    """Point ``stream``'s file descriptor at /dev/null, so that the interpreter's flush of it at
    exit does not fail again (a closed pipe's "Exception ignored ... BrokenPipeError")."""
    try:
        fd = stream.fileno()
        null = os.open(os.devnull, os.O_WRONLY)
    except (OSError, ValueError, AttributeError):
        return
    try:
        os.dup2(null, fd)
    except OSError:
        pass
    finally:
        os.close(null)


class IncidentSink:
    def __init__(self, path: Path | None, *, out: TextIO | None, count: Callable[[str], None],
                 handler: IncidentHandler | None = None, warn: Callable[[str], None] = lambda _m: None) -> None:
        self._path = path
        self._out = out
        self._count = count
        self._handler = handler
        self._warn = warn
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)

    def emit(self, incident: Incident, detected_at: float, replaces: str | None = None) -> dict[str, Any]:
        """Report ``incident``; ``replaces``: the id of an earlier incident of the same failure that
        named no rank, which this one replaces (written as the line's ``replaces``)."""
        data = incident_line(incident, detected_at, replaces)
        text = json.dumps(data, ensure_ascii=False)
        # Counted before it is written, so that whoever sees the incident in the file also sees
        # it in rankdoctor_incidents_total (a scrape right after the append found it missing).
        self._count(incident.cause.value)
        if self._path is not None:
            try:
                with open(self._path, "a", encoding="utf-8") as fh:
                    fh.write(text + "\n")
                    fh.flush()
                    os.fsync(fh.fileno())
            except OSError as exc:
                self._warn(f"cannot append to {self._path}: {exc.strerror or exc}")
        if self._out is not None:
            try:
                print(summary(incident, replaces), file=self._out, flush=True)
            except (OSError, ValueError) as exc:  # (ValueError: the stream was closed)
                # a full disk or a reader that left (a pipe): the summaries stop, the watch goes
                # on (the incidents file, the counters and the remediation have them)
                self._warn(f"cannot print incident summaries any more, stopped printing them: "
                           f"{getattr(exc, 'strerror', None) or exc}")
                _silence(self._out)
                self._out = None
        if incident.cause is Cause.STRAGGLER:
            return data  # (said, not acted on: a slow rank of a running job is an operator's call)
        if self._handler is not None and not self._handler.submit(incident, replaces):
            self._warn(f"remediation queue full: incident {incident.id} not handed over")
        return data
