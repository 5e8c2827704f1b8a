"""Follow one file by its path, like ``tail -F``, handing out complete lines only.

- **Rotation by rename**: the renamed file keeps being read (the writer may still write to it)
  until a new file appears at the path; then its remainder is read and the new file followed
  from its start.
- **copytruncate / truncation**: the file shrinking below what was read, or its first bytes
  changing, means it was truncated;
  the lines written after the last read are recovered from the copy (a sibling ``NAME.1``,
  ``NAME-2026...`` whose first bytes are the same) when there is one, then the file is read
  from its start. Lines written between the copy and the truncation are lost: that race is
  inherent to copytruncate.
- **Deletion and re-creation**: as rotation by rename.
- **Partial lines** are held until their newline arrives (or the file is rotated away); a line
  longer than ``MAX_PARTIAL`` is cut there.
- **Offsets**: :meth:`FileTailer.offset` is what to save; a tailer built with it resumes at the
  first unread complete line when the file is still the same (device, inode, first bytes).

Line numbers continue across rotations of the same path, so that evidence keys stay unique.
"""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path

from detector.sidecar.state import Offset

FINGERPRINT = 256
MAX_READ = 4 << 20  # per file per read() call
MAX_PARTIAL = 1 << 20
ROTATED = re.compile(r"\.(?:\d{1,4}|gz|bz2|xz|zst|lz4|old|bak)$|[-_.]\d{8}(?:[-_T]?\d{2,6})?$")


def is_rotated_name(name: str) -> bool:
    """``stderr.log.1``, ``rank0.log-20261130``, ``x.log.gz``: rotated copies, not live files."""
    return ROTATED.search(name) is not None


class FileTailer:
    def __init__(self, path: Path, *, saved: Offset | None = None, from_end: bool = False) -> None:
        self.path = path
        self._saved = saved
        self._from_end = from_end and path.exists()  # a file that appears later is new: read it all
        self._fd: int | None = None
        self.dev = 0
        self.ino = 0
        self._pos = 0  # bytes of the current file consumed (including the partial line)
        self._partial = b""
        self.line = 1  # the number of the next complete line handed out
        self._fp = b""  # the current file's first bytes
        self.events: list[str] = []  # rotations/truncations seen (for logs and tests)
        self.opened_once = False

    # --- public ---

    def read(self) -> list[tuple[bytes, int]]:
        """New complete lines as (data, number of the first line); :attr:`line` minus the
        number is how many. Never raises for a missing
        file (it may appear later); other I/O errors propagate."""
        out: list[tuple[bytes, int]] = []
        if self._fd is None and not self._open():
            return out
        self._read_available(out)
        return out

    def check_path(self) -> list[tuple[bytes, int]]:
        """Look at the path again: rotated, deleted, re-created? Returns lines read meanwhile."""
        out: list[tuple[bytes, int]] = []
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            if self._fd is not None:
                self._read_available(out)  # renamed away: keep reading what the writer appends
            return out
        if self._fd is None:
            if self._open():
                self._read_available(out)
            return out
        if (st.st_dev, st.st_ino) != (self.dev, self.ino):
            self._read_available(out)  # the remainder of the old file
            self._flush_partial(out)
            self._close_fd()
            self.events.append("rotated")
            if self._open(fresh=True):
                self._read_available(out)
        return out

    def offset(self) -> Offset | None:
        """The position to save: the first byte of the partial line, and its line number."""
        if self._fd is None and not self.opened_once:
            return self._saved
        return Offset(str(self.path), self.dev, self.ino, self._pos - len(self._partial), self.line, self._fp)

    def close(self) -> None:
        self._close_fd()

    # --- internals ---

    def _open(self, *, fresh: bool = False) -> bool:
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except FileNotFoundError:
            return False
        except IsADirectoryError:
            return False
        st = os.fstat(fd)
        self._fd = fd
        self.dev, self.ino = st.st_dev, st.st_ino
        self._fp = os.pread(fd, FINGERPRINT, 0)
        self._partial = b""
        self._pos = 0
        saved = None if fresh else self._saved
        self._saved = None
        if saved is not None and self._same_file(saved, st.st_size):
            self._pos = saved.offset
            self.line = saved.line
        elif saved is not None:
            self.line = saved.line  # a different file at the same path: keep numbering on
            self.events.append("replaced")
        elif self._from_end and not self.opened_once:
            self._pos = st.st_size
        self.opened_once = True
        return True

    def _same_file(self, saved: Offset, size: int) -> bool:
        if size < saved.offset:
            return False
        if saved.fingerprint:
            return self._fp[: len(saved.fingerprint)] == saved.fingerprint
        return (saved.dev, saved.ino) == (self.dev, self.ino)

    def _read_available(self, out: list[tuple[bytes, int]]) -> None:
        fd = self._fd
        if fd is None:
            return
        size = os.fstat(fd).st_size
        truncated = size < self._pos
        if not truncated and self._pos and self._fp and os.pread(fd, len(self._fp), 0) != self._fp:
            truncated = True  # truncated and written again past where we were since the last look
        if truncated:
            self.events.append("truncated")
            self._recover_from_copy(out)
            self._flush_partial(out)
            self._pos = 0
            self._fp = os.pread(fd, FINGERPRINT, 0)
        budget = MAX_READ
        while self._pos < size and budget > 0:
            want = min(size - self._pos, budget)
            try:
                data = os.pread(fd, want, self._pos)
            except OSError as exc:
                if exc.errno in (errno.EAGAIN, errno.EINTR):
                    break
                raise
            if not data:
                break
            self._pos += len(data)
            if len(self._fp) < FINGERPRINT:
                self._fp = os.pread(fd, FINGERPRINT, 0)
            budget -= len(data)
            self._emit(data, out)

    def _recover_from_copy(self, out: list[tuple[bytes, int]]) -> None:
        """copytruncate: the bytes after ``_pos`` that the copy holds and we have not read."""
        if not self._fp or self._pos == 0:
            return
        folder = self.path.parent
        try:
            names = os.listdir(folder)
        except OSError:
            return
        best: tuple[float, Path] | None = None
        for name in names:
            if name == self.path.name or not name.startswith(self.path.name) or not is_rotated_name(name):
                continue
            candidate = folder / name
            try:
                st = candidate.stat()
                if st.st_size < self._pos:
                    continue
                with open(candidate, "rb") as fh:
                    if fh.read(len(self._fp)) != self._fp:
                        continue
            except OSError:
                continue
            if best is None or st.st_mtime > best[0]:
                best = (st.st_mtime, candidate)
        if best is None:
            return
        try:
            with open(best[1], "rb") as fh:
                fh.seek(self._pos)
                rest = fh.read(MAX_READ)
        except OSError:
            return
        if rest:
            self.events.append(f"recovered {len(rest)} bytes from {best[1].name}")
            self._emit(rest, out)

    def _emit(self, data: bytes, out: list[tuple[bytes, int]]) -> None:
        buf = self._partial + data if self._partial else data
        nl = buf.rfind(b"\n")
        if nl < 0:
            self._partial = buf
            if len(buf) > MAX_PARTIAL:
                self._flush_partial(out)
            return
        complete = buf[: nl + 1]
        self._partial = buf[nl + 1 :]
        out.append((complete, self.line))
        self.line += complete.count(b"\n")

    def _flush_partial(self, out: list[tuple[bytes, int]]) -> None:
        if self._partial:
            out.append((self._partial + b"\n", self.line))
            self.line += 1
            self._partial = b""

    def _close_fd(self) -> None:
        if self._fd is not None:
            try:
                os.close(self._fd)
            finally:
                self._fd = None
