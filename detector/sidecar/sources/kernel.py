"""The kernel log, live: ``/dev/kmsg`` records or ``journalctl -k -f`` output. (A plain file —
a ``dmesg -w`` capture, a test's file — is followed by :class:`~detector.sidecar.sources.logs.LogFollower`.)

``/dev/kmsg``: opened non-blocking; each ``read()`` returns one record
``PRIORITY,SEQUENCE,TIMESTAMP_US,FLAGS;MESSAGE`` (the buffer must hold 8 KiB); reading starts
at the end of the ring buffer unless asked to start at its beginning, and after a restart it
skips records it already saw (their sequence numbers are saved). ``EPIPE`` means records were
overwritten before they were read: the reader notes it and goes on with the next record.
Continuation lines (`` KEY=VALUE``) are dropped. Records keep their text as the reader's kernel
timestamps parser understands it; their time is when they were read.
"""

from __future__ import annotations

import errno
import fcntl
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

from detector.sidecar.model import Chunk, Inbox
from detector.sidecar.state import SidecarStore
from detector.sources.runs import FileKind, LogFile

RECORD_BUF = 8192
MAX_RECORDS = 10_000  # per poll
_SEQ_KEY = "kmsg_seq"
JOURNAL_ARGV = ("journalctl", "-k", "-f", "-o", "short-iso", "-n", "0", "--no-pager")


def parse_record(raw: bytes) -> tuple[int | None, bytes]:
    """``b"4,1234,5678,-;NVRM: ..."`` -> (1234, the record as one line without continuations)."""
    head, _, _rest = raw.partition(b"\n")
    prefix, sep, _message = head.partition(b";")
    seq: int | None = None
    if sep:
        parts = prefix.split(b",")
        if len(parts) >= 2 and parts[1].isdigit() and len(parts[1]) <= 20:  # a u64 in the kernel
            seq = int(parts[1])
    return seq, head


class KmsgSource:
    name = "kernel"

    def __init__(self, path: Path, *, node: str | None, store: SidecarStore, from_start: bool = False) -> None:
        self._path = path
        self._node = node
        self._store = store
        self._from_start = from_start
        self._fd: int | None = None
        self._inbox: Inbox | None = None
        self._line = 1
        self._last_seq: int | None = None
        self.overwritten = 0
        self.file = LogFile(path, str(path), FileKind.KERNEL, node=node)

    def start(self, inbox: Inbox) -> None:
        self._inbox = inbox
        fd = os.open(self._path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        saved = self._store.get_meta(_SEQ_KEY)
        self._last_seq = int(saved) if saved and saved.isdigit() else None
        if self._from_start or self._last_seq is not None:
            os.lseek(fd, 0, os.SEEK_SET)  # the oldest record still in the ring buffer
        else:
            os.lseek(fd, 0, os.SEEK_END)
        self._fd = fd

    def poll(self, now: float) -> None:
        if self._fd is None or self._inbox is None:
            return
        lines: list[bytes] = []
        for _ in range(MAX_RECORDS):
            try:
                raw = os.read(self._fd, RECORD_BUF)
            except BlockingIOError:
                break
            except OSError as exc:
                if exc.errno == errno.EPIPE:
                    self.overwritten += 1  # records overwritten before we read them; go on
                    continue
                if exc.errno == errno.EINTR:
                    continue
                raise
            if not raw:
                break
            seq, line = parse_record(raw)
            if seq is not None and self._last_seq is not None and seq <= self._last_seq:
                continue
            if seq is not None:
                self._last_seq = seq
            lines.append(line)
        if lines:
            data = b"\n".join(lines) + b"\n"
            self._inbox.put(Chunk(self.file, data, self._line, now))
            self._line += len(lines)
            if self._last_seq is not None:
                self._store.set_meta(_SEQ_KEY, str(self._last_seq))

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


class JournalSource:
    """``journalctl -k -f`` as a child process; restarted (with backoff) when it exits."""

    name = "kernel"

    def __init__(self, *, node: str | None, argv: Sequence[str] = JOURNAL_ARGV) -> None:
        self._argv = list(argv)
        self._proc: subprocess.Popen[bytes] | None = None
        self._inbox: Inbox | None = None
        self._partial = b""
        self._line = 1
        self.file = LogFile(Path("journalctl-k"), "journalctl -k", FileKind.KERNEL, node=node)

    def start(self, inbox: Inbox) -> None:
        self._inbox = inbox
        self._proc = subprocess.Popen(self._argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                      stdin=subprocess.DEVNULL, start_new_session=True)
        assert self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)

    def poll(self, now: float) -> None:
        proc = self._proc
        if proc is None or proc.stdout is None or self._inbox is None:
            return
        data = b""
        while True:
            try:
                piece = os.read(proc.stdout.fileno(), 1 << 16)
            except BlockingIOError:
                break
            if not piece:
                break
            data += piece
        if data:
            buf = self._partial + data
            nl = buf.rfind(b"\n")
            if nl >= 0:
                complete, self._partial = buf[: nl + 1], buf[nl + 1 :]
                self._inbox.put(Chunk(self.file, complete, self._line, now))
                self._line += complete.count(b"\n")
            else:
                self._partial = buf
        if proc.poll() is not None:
            code = proc.returncode
            self._proc = None
            raise OSError(f"journalctl exited with status {code}")

    def close(self) -> None:
        if self._proc is not None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                self._proc.kill()
            self._proc = None
