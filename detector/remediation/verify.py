"""Verifying that a resubmitted job resumed: it logs progress past the checkpoint's step.

The log files (globs) are marked (inode, size, the last bytes) just before the resubmission;
afterwards only what the new attempt writes is read: new files from their start, files that were
truncated or replaced (a requeued Slurm job's output) from their start, files appended to from
the mark. A line matching ``step_pattern`` (named group ``step``) with a step above the baseline, and
not matching ``ignore_pattern`` (checkpoint and resume lines name the checkpoint's own step),
verifies the resumption. Nothing before the deadline is a failure.
"""

from __future__ import annotations

import glob
import os
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import BinaryIO

from detector.remediation.model import FileMark, Verification, VerifyPlan, VerifyStatus
from detector.support.clock import Clock

READ_CHUNK = 4 * 1024 * 1024
SIGNATURE_BYTES = 64


def expand(globs: Iterable[str]) -> list[str]:
    out: dict[str, None] = {}
    for pattern in globs:
        for path in sorted(glob.glob(pattern, recursive=True)):
            if os.path.isfile(path):
                out[path] = None
    return list(out)


def snapshot(globs: Iterable[str]) -> tuple[FileMark, ...]:
    """Where every file the globs match ends now."""
    out = []
    for path in expand(globs):
        try:
            with open(path, "rb") as f:
                st = os.fstat(f.fileno())
                out.append(FileMark(path, st.st_ino, st.st_size, _tail(f, st.st_size)))
        except OSError:
            continue
    return tuple(out)


def _tail(f: BinaryIO, offset: int) -> bytes:
    """The bytes just before ``offset``: a signature of what was already read."""
    start = max(0, offset - SIGNATURE_BYTES)
    f.seek(start)
    return f.read(offset - start)


@dataclass
class _Tail:
    inode: int
    offset: int
    signature: bytes
    partial: bytes = field(default=b"")


class ResumedLogs:
    """New complete lines written to the files matching ``globs`` since ``marks``.

    A file is read from its start when it is new, replaced (another inode), shorter than what
    was read, or no longer holds the bytes last read (truncated and rewritten past the old
    size between two polls)."""

    def __init__(self, globs: Iterable[str], marks: Iterable[FileMark]) -> None:
        self._globs = tuple(globs)
        self._tails = {m.path: _Tail(m.inode, m.size, m.signature) for m in marks}

    def poll(self) -> list[tuple[str, str]]:
        lines: list[tuple[str, str]] = []
        for path in expand(self._globs):
            try:
                with open(path, "rb") as f:
                    st = os.fstat(f.fileno())
                    tail = self._tails.get(path)
                    if (tail is None or tail.inode != st.st_ino or st.st_size < tail.offset
                            or _tail(f, tail.offset) != tail.signature):
                        tail = self._tails[path] = _Tail(st.st_ino, 0, b"")
                    f.seek(tail.offset)
                    data = f.read(READ_CHUNK)
                    tail.offset += len(data)
                    tail.signature = _tail(f, tail.offset)
            except OSError:
                continue
            chunks = (tail.partial + data).split(b"\n")
            tail.partial = chunks.pop()
            lines.extend((path, c.decode("utf-8", "replace")) for c in chunks)
        return lines


class ResumptionVerifier:
    def __init__(self, clock: Clock, *, step_pattern: str, ignore_pattern: str | None,
                 poll_s: float = 1.0) -> None:
        self._clock = clock
        self._step = re.compile(step_pattern)
        self._ignore = re.compile(ignore_pattern) if ignore_pattern else None
        self._poll_s = poll_s

    def progress_step(self, line: str) -> int | None:
        if self._ignore is not None and self._ignore.search(line):
            return None
        match = self._step.search(line)
        if match is None:
            return None
        try:
            return int(match.group("step"))
        except (IndexError, ValueError):
            return None

    def verify(self, plan: VerifyPlan, cancel: threading.Event | None = None) -> Verification:
        if not plan.logs:
            return Verification(plan.incident_id, VerifyStatus.SKIPPED,
                                "no logs to follow (set remediation.verify.logs)")
        follower = ResumedLogs(plan.logs, plan.snapshot)
        highest: int | None = None
        while True:
            for path, line in follower.poll():
                step = self.progress_step(line)
                if step is None:
                    continue
                highest = step if highest is None else max(highest, step)
                if step > plan.baseline_step:
                    return Verification(
                        plan.incident_id, VerifyStatus.VERIFIED,
                        f"step {step} > checkpoint step {plan.baseline_step} in {path}",
                        step=step, file=path, elapsed_s=self._clock.time() - plan.started)
            elapsed = self._clock.time() - plan.started
            if elapsed >= plan.deadline_s or (cancel is not None and cancel.is_set()):
                seen = f"highest step seen {highest}" if highest is not None else "no step seen"
                why = "cancelled" if cancel is not None and cancel.is_set() else (
                    f"no progress past step {plan.baseline_step} within {plan.deadline_s:g} s")
                return Verification(plan.incident_id, VerifyStatus.FAILED, f"{why} ({seen})",
                                    step=highest, elapsed_s=elapsed)
            self._clock.sleep(min(self._poll_s, max(0.0, plan.deadline_s - elapsed)))
