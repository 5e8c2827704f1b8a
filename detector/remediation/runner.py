"""Running external commands: argument lists only, no shell, a hard timeout.

``SubprocessRunner`` is ``subprocess.run(argv, shell=False, timeout=…)`` with one difference that
matters for hooks: the command gets its own process group, and on timeout the whole group is
killed, so a grandchild holding the pipes open cannot make the runner hang after the timeout.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class CommandResult:
    argv: tuple[str, ...]
    returncode: int  # 127 when the program could not be started; -9 after a timeout
    stdout: str
    stderr: str
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    def summary(self, limit: int = 300) -> str:
        """One line for records: the exit status and the end of stderr (or stdout)."""
        if self.timed_out:
            return "timed out"
        text = (self.stderr.strip() or self.stdout.strip()).replace("\n", " | ")
        if len(text) > limit:
            text = "…" + text[-limit:]
        return f"exit {self.returncode}" + (f": {text}" if text else "")


class CommandRunner(Protocol):
    def __call__(
        self,
        argv: Sequence[str],
        *,
        timeout: float,
        stdin: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> CommandResult:
        """Run ``argv`` (never through a shell) with ``env`` added to the environment; return
        within about ``timeout`` seconds."""
        ...


class SubprocessRunner:
    """The production runner. ``base_env`` replaces the inherited environment when given."""

    def __init__(self, base_env: Mapping[str, str] | None = None) -> None:
        self._base_env = dict(base_env) if base_env is not None else None

    def __call__(
        self,
        argv: Sequence[str],
        *,
        timeout: float,
        stdin: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> CommandResult:
        args = tuple(argv)
        if not args or not all(isinstance(a, str) for a in args):
            raise ValueError(f"argv must be a non-empty list of strings, not {argv!r}")
        full_env: dict[str, str] | None = None
        if env or self._base_env is not None:
            full_env = dict(self._base_env if self._base_env is not None else os.environ)
            full_env.update(env or {})
        try:
            proc = subprocess.Popen(
                list(args),
                shell=False,
                stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=full_env,
                start_new_session=True,
            )
        except OSError as exc:
            return CommandResult(args, 127, "", f"cannot run {args[0]}: {exc.strerror or exc}")
        try:
            out, err = proc.communicate(input=stdin, timeout=max(0.01, timeout))
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            try:
                out, err = proc.communicate(timeout=5)
            except subprocess.TimeoutExpired:  # pragma: no cover - the group ignored SIGKILL
                out, err = "", ""
            return CommandResult(args, -9, out or "", err or "", timed_out=True)
        return CommandResult(args, proc.returncode, out, err)


def _kill_group(proc: subprocess.Popen[str]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()


def remaining(deadline: float, now: float, floor: float = 0.5) -> float:
    """Seconds left before ``deadline`` (at least ``floor``, so a command still gets a try)."""
    return max(floor, deadline - now)
