"""Remediation off the detection path, for the sidecar.

``submit(incident)`` returns at once; a worker thread runs ``Remediator.handle`` (bounded by the
hooks' timeouts) and starts each verification in its own thread (minutes), so neither a slow
hook nor a long verification delays detection or the next incident. ``on_result`` is told of each
decision and verification, ``on_error`` of each step that raised (``decision``, ``verification``;
written to the audit log as an ``error`` record); neither callback can stop the worker.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable

from detector.remediation.model import Decision, Verification
from detector.remediation.remediator import Remediator
from detector.types import Incident

ResultCallback = Callable[[Decision, Verification | None], None]
ErrorCallback = Callable[[str], None]


class RemediationWorker:
    def __init__(self, remediator: Remediator, *, verify: bool = True,
                 on_result: ResultCallback | None = None, on_error: ErrorCallback | None = None,
                 max_queue: int = 1000) -> None:
        self._remediator = remediator
        self._verify = verify
        self._on_result = on_result
        self._on_error = on_error
        self._queue: queue.Queue[tuple[Incident, str | None] | None] = queue.Queue(max_queue)
        self._cancel = threading.Event()
        self._verifiers: list[threading.Thread] = []
        self._thread = threading.Thread(target=self._loop, name="rankdoctor-remediation",
                                        daemon=True)
        self._thread.start()

    def submit(self, incident: Incident, replaces: str | None = None) -> bool:
        """Queue an incident (``replaces``: the id of the earlier incident of the same failure
        it replaces); False (and nothing queued) when the queue is full."""
        try:
            self._queue.put_nowait((incident, replaces))
        except queue.Full:
            return False
        return True

    def _report(self, decision: Decision, verification: Verification | None) -> None:
        if self._on_result is not None:
            with contextlib.suppress(Exception):  # a failing callback must not stop remediation
                self._on_result(decision, verification)

    def _error(self, stage: str, incident_id: str, detail: str) -> None:
        """A step raised: an audit record and the callback, neither of which may stop the worker
        (the audit log may be what failed)."""
        with contextlib.suppress(Exception):
            self._remediator.audit.write("error", {"incident_id": incident_id, "detail": detail})
        if self._on_error is not None:
            with contextlib.suppress(Exception):
                self._on_error(stage)

    def _loop(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            incident, replaces = item
            try:
                decision = self._remediator.handle(incident, replaces)
            except Exception as exc:  # keep serving the next incidents
                self._error("decision", incident.id, f"{type(exc).__name__}: {exc}")
                continue
            self._report(decision, None)
            if self._verify and decision.verify is not None:
                thread = threading.Thread(target=self._verify_one, args=(decision,),
                                          name="rankdoctor-verify", daemon=True)
                self._verifiers.append(thread)
                thread.start()

    def _verify_one(self, decision: Decision) -> None:
        try:
            result = self._remediator.verify(decision, self._cancel)
        except Exception as exc:  # recorded; the sidecar keeps running
            self._error("verification", decision.incident.id, f"verification: {exc}")
            return
        self._report(decision, result)

    def close(self, timeout: float = 10.0) -> None:
        """Stop taking incidents, cancel running verifications, wait up to ``timeout``."""
        self._cancel.set()
        try:
            self._queue.put(None, timeout=timeout)
        except queue.Full:
            return
        self._thread.join(timeout)
        for thread in self._verifiers:
            thread.join(timeout)
