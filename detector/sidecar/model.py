"""Values the sidecar's sources hand to its engine (through the :class:`Inbox`), and the
:class:`Source` role. Frozen, slotted dataclasses; no logic beyond the queue."""

from __future__ import annotations

import queue
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from detector.sources.runs import LogFile
from detector.types import Cause, Finding, RankInfo, RankProcess


@dataclass(frozen=True, slots=True)
class Chunk:
    """Complete lines of one followed file, as read."""

    file: LogFile
    data: bytes  # whole lines, each ending with a newline
    base_line: int  # the number of the first line of ``data``
    received: float  # epoch seconds when read
    backlog: bool = False  # read at start-up from what was already there (times are the lines' own)
    lines: int = -1  # how many lines ``data`` holds, when the reader counted them

    def line_count(self) -> int:
        return self.lines if self.lines >= 0 else self.data.count(b"\n")


@dataclass(frozen=True, slots=True)
class LiveFindings:
    """Evidence a source produced itself (a process exit, an NVML poll) rather than a line."""

    source: str
    findings: tuple[Finding, ...]




@dataclass(frozen=True, slots=True)
class Processes:
    """The rank processes alive now (replaces the previous list)."""

    alive: tuple[RankProcess, ...]


@dataclass(frozen=True, slots=True)
class GpuProcesses:
    """Which processes run on which GPU (NVML), to join GPUs to ranks by pid."""

    by_gpu: tuple[tuple[str, tuple[int, ...]], ...]  # normalised PCI id -> pids


@dataclass(frozen=True, slots=True)
class ElasticErrorFile:
    """A torchelastic error.json that appeared (the child's exception, written as it died)."""

    file: LogFile


@dataclass(frozen=True, slots=True)
class External:
    """The coordinator's view of the job: every node's exported evidence (replaces the last)."""

    findings: tuple[Finding, ...]
    ranks: tuple[RankInfo, ...]


class SourceState(StrEnum):
    UP = "up"
    DOWN = "down"  # failing; retried with backoff
    OFF = "off"  # not available here (no driver, no URL); not retried


@dataclass(frozen=True, slots=True)
class SourceStatus:
    source: str
    state: SourceState
    detail: str = ""


Item = Chunk | LiveFindings | Processes | GpuProcesses | ElasticErrorFile | External | SourceStatus


class Inbox:
    """What sources (threads or the main loop) hand to the engine, in order of arrival."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[Item | None] = queue.SimpleQueue()

    def put(self, item: Item) -> None:
        self._queue.put(item)

    def wake(self) -> None:
        """Make a waiting :meth:`drain` return (signals, shutdown)."""
        self._queue.put(None)

    def drain(self, timeout: float) -> Iterator[Item]:
        """Items that arrive within ``timeout`` seconds (at least one wait), then all queued."""
        try:
            first = self._queue.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return
        if first is not None:
            yield first
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return
            if item is not None:
                yield item


class Source(Protocol):
    """One live input. ``start`` may start threads (they only ever ``put`` into the inbox);
    ``poll`` runs on the sidecar's main loop and must be cheap; neither may block for long.
    A source that fails raises; the runner reports it (a down metric, a warning), keeps the
    others going and retries it with backoff."""

    name: str

    def start(self, inbox: Inbox) -> None: ...

    def poll(self, now: float) -> None: ...

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Suspect:
    """A stalled rank that is not where its peers are (what a hang discriminator returns): why,
    the cause its stack points at (``hang``, ``data_loader_stall``, ``collective_mismatch``), the
    place and stack excerpt (innermost first), and the basis (``stack`` or ``process_state``)."""

    rank: int
    reason: str
    cause: Cause = Cause.HANG
    place: str = ""
    excerpt: tuple[str, ...] = ()
    basis: str = "stack"
