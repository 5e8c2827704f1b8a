"""Running ``py-spy dump --pid PID --json [--native] [--subprocesses]`` on one process and reading
its output: the threads of the process, each with its frames innermost first. A dump that cannot
be taken raises :class:`StackError`, whose ``kind`` says why (py-spy missing, ptrace denied, the
process gone, a timeout, native frames unsupported)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TOOL = "py-spy"
MAX_OUTPUT_BYTES = 8 << 20  # a dump larger than this is refused


@dataclass(frozen=True, slots=True)
class Frame:
    name: str
    path: str  # the full file name (a shared object for a native frame)
    short: str  # py-spy's short name: "train.py", "torch/autograd/graph.py", "libc.so.6"
    line: int
    native: bool

    @property
    def where(self) -> str:
        return f"{self.short}:{self.line}" if not self.native and self.line else self.short

    def text(self) -> str:
        return f"{self.name} ({self.where})"


@dataclass(frozen=True, slots=True)
class ThreadStack:
    pid: int
    tid: int | None
    name: str
    active: bool
    frames: tuple[Frame, ...]  # innermost first


def parse_dump(data: Any) -> list[ThreadStack]:
    """py-spy's ``dump --json`` output -> threads. Raises ValueError on another shape."""
    if not isinstance(data, list):
        raise ValueError("py-spy output is not a list of threads")
    out = []
    for item in data:
        if not isinstance(item, dict) or not isinstance(item.get("frames"), list):
            raise ValueError("py-spy output has a thread without frames")
        frames = []
        for fr in item["frames"]:
            if not isinstance(fr, dict):
                continue
            path = str(fr.get("filename") or "")
            line = fr.get("line")
            frames.append(Frame(
                name=str(fr.get("name") or "?"), path=path, short=str(fr.get("short_filename") or path),
                line=line if isinstance(line, int) else 0, native=fr.get("module") is not None,
            ))
        tid = item.get("os_thread_id")
        pid = item.get("pid")
        out.append(ThreadStack(pid=pid if isinstance(pid, int) else 0, tid=tid if isinstance(tid, int) else None,
                               name=str(item.get("thread_name") or ""), active=bool(item.get("active")),
                               frames=tuple(frames)))
    return out


def main_thread(threads: Sequence[ThreadStack], pid: int) -> ThreadStack | None:
    for t in threads:
        if t.pid == pid and t.tid == pid:
            return t
    return next((t for t in threads if t.pid == pid and t.name == "MainThread"), None)


class StackError(Exception):
    """A dump that could not be taken; ``kind`` is missing, denied, gone, timeout, native or failed."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def find_tool(configured: str | None) -> str | None:
    """The py-spy executable: the configured path (or name on PATH), else ``py-spy`` on PATH,
    else beside this Python (a virtual environment's ``bin``)."""
    if configured:
        if os.sep in configured:
            return configured if os.access(configured, os.X_OK) and Path(configured).is_file() else None
        return shutil.which(configured)
    found = shutil.which(TOOL)
    if found:
        return found
    beside = Path(sys.executable).parent / TOOL
    return str(beside) if os.access(beside, os.X_OK) else None


def _error_kind(text: str) -> str:
    low = text.lower()
    if "permission denied" in low or "operation not permitted" in low or "os error 1)" in low \
            or "elevated permissions" in low:
        return "denied"
    if "native" in low and ("not supported" in low or "unsupported" in low):
        return "native"
    if "no such process" in low or "no such file" in low or "check that the process is running" in low:
        return "gone"
    return "failed"


def dump(tool: str, pid: int, *, native: bool, timeout_s: float, subprocesses: bool = False) -> list[ThreadStack]:
    """``py-spy dump --pid PID --json [--native] [--subprocesses]``. Raises StackError."""
    argv = [tool, "dump", "--pid", str(pid), "--json"]
    if native:
        argv.append("--native")
    if subprocesses:
        argv.append("--subprocesses")
    try:
        proc = subprocess.run(argv, capture_output=True, timeout=timeout_s, stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired:
        raise StackError("timeout", f"py-spy took longer than {timeout_s:g} s on pid {pid}") from None
    except FileNotFoundError:
        raise StackError("missing", f"{tool} not found") from None
    except OSError as exc:
        raise StackError("failed", f"cannot run {tool}: {exc}") from None
    err = proc.stderr.decode("utf-8", "replace").strip()
    if proc.returncode != 0:
        first = next((ln for ln in err.splitlines() if ln.strip() and not ln.startswith(" ")), err[:200])
        detail = " / ".join(ln.strip() for ln in err.splitlines()[:6] if ln.strip() and "backtrace" not in ln.lower())
        raise StackError(_error_kind(err), f"py-spy exited with {proc.returncode} on pid {pid}: {detail or first}")
    if len(proc.stdout) > MAX_OUTPUT_BYTES:
        raise StackError("failed", f"py-spy output for pid {pid} is larger than {MAX_OUTPUT_BYTES} bytes")
    try:
        return parse_dump(json.loads(proc.stdout))
    except ValueError as exc:
        raise StackError("failed", f"unreadable py-spy output for pid {pid}: {exc}") from None
