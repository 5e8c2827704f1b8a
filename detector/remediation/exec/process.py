"""Running external commands: argument lists only, no shell, a hard timeout.

``SubprocessRunner`` is ``subprocess.run(argv, shell=False, timeout=…)`` with the differences that
matter for hooks: the command gets its own process group, and on timeout the whole group is
killed, so a grandchild holding the pipes open cannot make the runner hang after the timeout;
output is decoded leniently (invalid UTF-8 becomes U+FFFD, it does not fail the call) and only
:data:`MAX_OUTPUT` bytes of each stream are kept (the start of stdout, where ``sbatch`` prints
the job id; the end of stderr, where the error is), so a program flooding its output cannot
exhaust the sidecar's memory.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Protocol

MAX_OUTPUT = 1 << 20  # bytes kept of a command's stdout (its start) and stderr (its end)


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
                env=full_env,
                start_new_session=True,
            )
        except OSError as exc:
            return CommandResult(args, 127, "", f"cannot run {args[0]}: {exc.strerror or exc}")
        assert proc.stdout is not None and proc.stderr is not None
        out, err = bytearray(), bytearray()
        threads = [threading.Thread(target=_keep, args=(proc.stdout, out, True), daemon=True),
                   threading.Thread(target=_keep, args=(proc.stderr, err, False), daemon=True)]
        if stdin is not None:
            threads.append(threading.Thread(target=_feed, args=(proc.stdin, stdin), daemon=True))
        for thread in threads:
            thread.start()
        timed_out = False
        try:
            proc.wait(timeout=max(0.01, timeout))
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(proc)
            with contextlib.suppress(subprocess.TimeoutExpired):  # the group ignored SIGKILL
                proc.wait(timeout=5)
        for thread in threads:
            thread.join(timeout=5)  # a grandchild in its own session may hold a pipe open
        text_out, text_err = _text(out), _text(err)
        if timed_out:
            return CommandResult(args, -9, text_out, text_err, timed_out=True)
        return CommandResult(args, proc.returncode, text_out, text_err)


def _keep(pipe: IO[bytes], kept: bytearray, head: bool) -> None:
    """Read ``pipe`` to its end, keeping its first (``head``) or last MAX_OUTPUT bytes."""
    try:
        while chunk := pipe.read(1 << 16):
            if head:
                if len(kept) < MAX_OUTPUT:
                    kept += chunk[: MAX_OUTPUT - len(kept)]
            else:
                kept += chunk
                if len(kept) > MAX_OUTPUT:
                    del kept[: len(kept) - MAX_OUTPUT]
    except (OSError, ValueError):
        pass
    finally:
        pipe.close()


def _feed(pipe: IO[bytes] | None, text: str) -> None:
    """Write the stdin text in its own thread: a program that does not read it cannot block
    the runner (the timeout still applies)."""
    if pipe is None:
        return
    try:
        pipe.write(text.encode("utf-8", "replace"))
    except (BrokenPipeError, OSError, ValueError):
        pass
    finally:
        with contextlib.suppress(OSError):
            pipe.close()


def _text(data: bytearray) -> str:
    return bytes(data).decode("utf-8", "replace")


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()


def remaining(deadline: float, now: float, floor: float = 0.5) -> float:
    """Seconds left before ``deadline`` (at least ``floor``, so a command still gets a try)."""
    return max(floor, deadline - now)
