"""A log writer that rotates its own file the ways logrotate and log handlers do, and a
FileTailer reading it at random moments (no tests here); used by
tests/reliability/test_reliability_tailer.py and ``bench/bench_reliability.py rotate``."""

from __future__ import annotations

import os
import random
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from detector.sidecar.sources.tailer import FileTailer

OPS = ("write", "write", "write", "write", "rename", "copytruncate", "truncate", "recreate", "restart", "poll")


@dataclass
class Torture:
    """A writer that rotates its own log the ways logrotate and log handlers do, and a reader
    (FileTailer) polled at random moments. ``written`` and ``seen`` are line payloads."""

    path: Path
    rng: random.Random
    line_bytes: int = 60
    written: list[str] = field(default_factory=list)
    seen: list[str] = field(default_factory=list)
    rotations: int = 0
    restarts: int = 0
    generation: int = 0
    since_poll: set[str] = field(default_factory=set)  # rotations since the reader last looked

    def __post_init__(self) -> None:
        self.fh = open(self.path, "ab")  # noqa: SIM115 - O_APPEND, like a logging handler
        self.tailer = FileTailer(self.path)

    def _take(self, pieces: list[tuple[bytes, int]]) -> None:
        for data, _first in pieces:
            for raw in data.split(b"\n")[:-1]:
                self.seen.append(raw.decode())

    def poll(self) -> None:
        self._take(self.tailer.check_path())
        self._take(self.tailer.read())
        self.since_poll.clear()

    def write(self, n: int) -> None:
        for _ in range(n):
            payload = f"{len(self.written):08d} " + "x" * self.rng.randint(0, self.line_bytes)
            self.fh.write(payload.encode() + b"\n")
            self.written.append(payload)
        self.fh.flush()

    def _reopen(self) -> None:
        self.fh.close()
        self.fh = open(self.path, "ab")  # noqa: SIM115

    def step(self, op: str) -> None:
        self.generation += 1
        if op == "write":
            self.write(self.rng.randint(1, 40))
        elif op == "poll":
            self.poll()
        elif op == "rename":  # logrotate's default; the writer reopens its path
            self.poll()  # rotations are slower than the follower's check: see RELIABILITY.md
            os.rename(self.path, self.path.with_name(f"{self.path.name}.{self.generation}"))
            self.write(self.rng.randint(0, 3))  # the writer still writes to the renamed file...
            self._reopen()  # ...until it reopens
            self.rotations += 1
            self.since_poll.add(op)
        elif op == "copytruncate":  # the writer keeps its O_APPEND descriptor
            self.poll()  # (the file may be empty then)
            self.write(self.rng.randint(0, 20))  # written after the last read: only in the copy
            shutil.copyfile(self.path, self.path.with_name(f"{self.path.name}-2026113{self.generation:04d}"))
            os.truncate(self.path, 0)
            self.rotations += 1
            self.since_poll.add(op)
        elif op == "truncate":  # no copy: unread lines would be lost, so the reader is caught up
            self.poll()
            os.truncate(self.path, 0)
        elif op == "recreate":
            self.poll()
            self.write(self.rng.randint(0, 3))
            os.unlink(self.path)
            self._reopen()
            self.since_poll.add(op)
        elif op == "restart":  # the sidecar restarts from its saved offset
            saved = self.tailer.offset()
            # what a restarted reader cannot know (RELIABILITY.md): lines in a deleted file it did
            # not read, and a copytruncate of a file that was empty when its offset was saved
            if "recreate" in self.since_poll or ("copytruncate" in self.since_poll and saved and saved.offset == 0):
                self.poll()
                saved = self.tailer.offset()
            self.tailer.close()
            self.tailer = FileTailer(self.path, saved=saved)
            self.restarts += 1

    def finish(self) -> None:
        for _ in range(3):
            self.poll()
        self.fh.close()
        self.tailer.close()
