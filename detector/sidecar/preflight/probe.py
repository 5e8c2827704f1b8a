"""A probe's answer, and the outside world the probes look at."""

from __future__ import annotations

import os
import shutil
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

YAMA_SCOPE = Path("/proc/sys/kernel/yama/ptrace_scope")


class Level(StrEnum):
    OK = "OK"
    WARN = "WARN"
    FAIL = "FAIL"


@dataclass(frozen=True, slots=True)
class Probe:
    level: Level
    what: str
    detail: str
    fix: str = ""

    def line(self) -> str:
        """One line, whatever the detail holds (a multi-line config error is joined)."""
        text = f"{self.level.value:<4}  {self.what}: {self.detail}"
        if self.fix and self.level is not Level.OK:
            text += f" -- fix: {self.fix}"
        return " / ".join(part.strip() for part in text.splitlines() if part.strip())


def _http_get(url: str, timeout: float) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers={"User-Agent": "rankdoctor-check"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as resp:  # http(s) only, checked before
            return int(resp.status), resp.read(1 << 20)
    except urllib.error.HTTPError as exc:
        return int(exc.code), b""


def _nvml() -> Any:
    import pynvml

    return pynvml


@dataclass
class Outside:
    """What the probes look at; tests replace any of it."""

    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    which: Callable[[str], str | None] = shutil.which
    http_get: Callable[[str, float], tuple[int, bytes]] = _http_get
    nvml_loader: Callable[[], Any] = _nvml
    proc_status: Path = Path("/proc/self/status")
    yama_scope: Path = YAMA_SCOPE
    euid: Callable[[], int] = os.geteuid
    timeout_s: float = 3.0
