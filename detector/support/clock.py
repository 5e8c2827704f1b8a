"""The clock remediation runs on: wall time for budgets and records, monotonic for deadlines."""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    def time(self) -> float:
        """Seconds since the epoch (budgets, audit records)."""
        ...

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back (deadlines, timeouts)."""
        ...

    def sleep(self, seconds: float) -> None: ...


class SystemClock:
    def time(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(max(0.0, seconds))
