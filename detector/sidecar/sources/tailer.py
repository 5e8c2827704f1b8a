"""Follow one file by its path, like ``tail -F``, handing out complete lines only.

- **Rotation by rename**: the renamed file keeps being read (the writer may still write to it)
  until a new file appears at the path; then its remainder is read and the new file followed
  from its start.
- **copytruncate / truncation**: the file shrinking below what was read, or its first bytes
  changing, means it was truncated; so does a file that was empty at every look being modified
  and found empty (or holding other lines) next to a fresh rotated copy. The lines written after
  the last read are recovered from the copy (a sibling ``NAME.1``, ``NAME-2026...`` that holds
  what was read, or, for a file empty at the last look, that was written since) when there is
  one, then the file is read from its start. Lines written between the copy and the truncation
  are lost: that race is inherent to copytruncate.
- **Deletion and re-creation**: as rotation by rename.
- **Symbolic links**: a path that was not a link when the tailer was made is opened with
  ``O_NOFOLLOW``: a followed file replaced by a link is refused (an ``OSError`` naming it), so
  whoever can write the log folder cannot make the sidecar read another file through it.
- **Partial lines** are held until their newline arrives (or the file is rotated away); a line
  longer than ``MAX_PARTIAL`` is cut there.
- **Offsets**: :meth:`FileTailer.offset` is what to save. A tailer built with it finds the file
  again by device, inode and content (its first bytes and the bytes just before the offset):
  at the path, or -- renamed or copy-truncated while nothing was following -- among the rotated
  siblings, whose unread lines it reads before the file now at the path. A different file at the
  path (a new attempt's log with the same banner) is read from its top.

Line numbers continue across rotations of the same path, so that evidence keys stay unique.
Rotated siblings and content fingerprints: :mod:`detector.sidecar.sources.rotation`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections import deque
from pathlib import Path

from detector.sidecar.sources.rotation import (
    decode_fingerprint,
    encode_fingerprint,
    find_saved,
    holds,
    open_sibling,
    rotated_siblings,
    sibling_holds,
)
from detector.sidecar.state import Offset

FINGERPRINT = 256
MAX_READ = 4 << 20  # per file per read() call
MAX_PARTIAL = 1 << 20


class FileTailer:
    def __init__(self, path: Path, *, saved: Offset | None = None, from_end: bool = False,
                 allow_link: bool | None = None) -> None:
        self.path = path
        self._saved = saved
        self._from_end = from_end and path.exists()  # a file that appears later is new: read it all
        # a path that is a link now was made so by whoever configured it; one that becomes a link is not followed
        self._allow_link = os.path.islink(path) if allow_link is None else allow_link
        self._fd: int | None = None
        self.dev = 0
        self.ino = 0
        self._pos = 0  # bytes of the current file consumed (including the partial line)
        self._partial = b""
        self.line = 1  # the number of the next complete line handed out
        self._fp = b""  # the current file's first bytes
        self._tail = b""  # the bytes of the current file just before the first unconsumed line
        self._mtime_ns = 0  # the current file's modification time at the last look
        # while the file was empty at every look: its rotated siblings then (ids -> mtime)
        self._empty_view: dict[tuple[int, int], tuple[int, int]] | None = None  # ids -> (mtime, size)
        # files followed before, or read as copies: device, inode, first bytes (inodes are reused)
        self._left: deque[tuple[int, int, bytes]] = deque(maxlen=32)
        self.events: list[str] = []  # rotations/truncations seen (for logs and tests)
        self.opened_once = False
        self.more = False  # the last read stopped at its budget with bytes of the file still unread

    # --- public ---

    @property
    def is_open(self) -> bool:
        """Whether the tailer holds a descriptor of its file now."""
        return self._fd is not None

    def read(self) -> list[tuple[bytes, int]]:
        """New complete lines as (data, number of the first line); :attr:`line` minus the
        number is how many. Never raises for a missing
        file (it may appear later); other I/O errors propagate."""
        out: list[tuple[bytes, int]] = []
        self.more = False  # (set again by a read that stops at its budget; a failed read says nothing more)
        if self._fd is None and not self._open(out):
            return out
        self._read_available(out)
        return out

    def check_path(self) -> list[tuple[bytes, int]]:
        """Look at the path again: rotated, deleted, re-created? Returns lines read meanwhile."""
        out: list[tuple[bytes, int]] = []
        try:
            st = os.stat(self.path) if self._allow_link else os.lstat(self.path)
        except FileNotFoundError:
            if self._fd is not None:
                self._read_available(out)  # renamed away: keep reading what the writer appends
            return out
        if self._fd is None:
            if self._open(out):
                self._read_available(out)
            return out
        if (st.st_dev, st.st_ino) != (self.dev, self.ino):
            if not self._leave(out):
                return out  # the old file still has unread bytes: on with them at the next look
            self.events.append("replaced by a symbolic link" if stat.S_ISLNK(st.st_mode) else "rotated")
            if self._open(out, fresh=True):
                self._read_available(out)
        return out

    def behind(self) -> int:
        """Bytes of the open file not read yet (0 when none is open)."""
        if self._fd is None:
            return 0
        try:
            return max(0, os.fstat(self._fd).st_size - self._pos)
        except OSError:
            return 0

    def offset(self) -> Offset | None:
        """The position to save: the first byte of the partial line, and its line number."""
        if self._fd is None and not self.opened_once:
            return self._saved
        return Offset(str(self.path), self.dev, self.ino, self._pos - len(self._partial), self.line,
                      encode_fingerprint(self._fp, self._tail))

    def close(self) -> None:
        self._close_fd()

    # --- internals ---

    def _open_fd(self, path: Path) -> tuple[int, os.stat_result] | None:
        """A descriptor on ``path`` and its status; None when there is no file to read there."""
        flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
        if not self._allow_link:
            flags |= getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(path, flags)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno == errno.ELOOP and not self._allow_link:
                raise OSError(errno.ELOOP, "is a symbolic link now; not followed (it was a file when first seen)",
                              str(path)) from None
            raise
        try:
            st = os.fstat(fd)
        except OSError:
            os.close(fd)
            raise
        if not stat.S_ISREG(st.st_mode):
            os.close(fd)
            kind = "a directory" if stat.S_ISDIR(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode) else "not a regular file"
            raise OSError(errno.EINVAL, f"is {kind} now; not read", str(path))
        return fd, st

    def _adopt(self, fd: int, st: os.stat_result, *, pos: int, tail: bytes) -> None:
        self._fd = fd
        self.dev, self.ino = st.st_dev, st.st_ino
        self._fp = os.pread(fd, FINGERPRINT, 0)
        self._partial = b""
        self._pos = pos
        self._tail = tail
        self._mtime_ns = st.st_mtime_ns
        self._empty_view = None
        self.opened_once = True

    def _open(self, out: list[tuple[bytes, int]], *, fresh: bool = False) -> bool:
        saved = None if fresh else self._saved
        if saved is not None:
            if not self._open_saved(saved, out):
                return False  # nothing there yet: keep the saved offset for when it appears
            self._saved = None
            return True
        self._saved = None
        opened = self._open_fd(self.path)
        if opened is None:
            return False
        fd, st = opened
        pos, tail = 0, b""
        if self._from_end and not self.opened_once:
            pos = st.st_size
            tail = os.pread(fd, min(FINGERPRINT, pos), pos - min(FINGERPRINT, pos)) if pos else b""
        self._adopt(fd, st, pos=pos, tail=tail)
        return True

    def _open_saved(self, saved: Offset, out: list[tuple[bytes, int]]) -> bool:
        opened: list[int] = []  # descriptors not yet adopted: closed if anything raises
        try:
            return self._resume(saved, out, opened)
        except BaseException:
            for fd in opened:
                if fd != self._fd:
                    with contextlib.suppress(OSError):
                        os.close(fd)
            raise

    def _resume(self, saved: Offset, out: list[tuple[bytes, int]], opened: list[int]) -> bool:
        """Resume where ``saved`` left off: the same file at the path; else the file renamed away
        (same device and inode) or its copy among the rotated siblings, whose unread rest is read
        before the file at the path is followed from its top (with no file at the path, the
        sibling is followed until one appears, as after a rename); else the file at the path is
        another one, read from its top."""
        head, tail = decode_fingerprint(saved.fingerprint)
        at_path = self._open_fd(self.path)
        ids = None
        if at_path is not None:
            opened.append(at_path[0])
            fd, st = at_path
            ids = (st.st_dev, st.st_ino)
            if ids == (saved.dev, saved.ino) and holds(fd, st.st_size, saved.offset, head, tail):
                self._adopt(fd, st, pos=saved.offset, tail=tail)
                self.line = saved.line
                return True
        sibling = find_saved(self.path, saved, head, tail, exclude=ids)
        if sibling is not None:
            opened.append(sibling[0])
        if sibling is None and at_path is not None and saved.offset and holds(at_path[0], at_path[1].st_size,
                                                                                saved.offset, head, tail):
            fd, st = at_path  # the same content under another inode (copied back, another file system)
            self._adopt(fd, st, pos=saved.offset, tail=tail)
            self.line = saved.line
            self.events.append("resumed by content")
            return True
        if sibling is not None:
            fd, st, name = sibling
            self._adopt(fd, st, pos=saved.offset, tail=tail)
            self.line = saved.line
            self.events.append(f"resumed in {name}")
            if at_path is None:
                return True
            if not self._leave(out):  # more than one read's worth left there: check_path switches later
                os.close(at_path[0])
                return True
            fd, st = at_path
            self._adopt(fd, st, pos=0, tail=b"")
            return True
        if at_path is None:
            return False
        fd, st = at_path
        self._adopt(fd, st, pos=0, tail=b"")
        self.line = saved.line  # a different file at the same path: keep numbering on
        self.events.append("replaced")
        return True

    def _read_available(self, out: list[tuple[bytes, int]]) -> None:
        fd = self._fd
        if fd is None:
            return
        st = os.fstat(fd)
        size = st.st_size
        truncated = size < self._pos
        if not truncated and self._pos and self._fp and os.pread(fd, len(self._fp), 0) != self._fp:
            truncated = True  # truncated and written again past where we were since the last look
        end = self._pos - len(self._partial)
        if (not truncated and size > self._pos and self._tail and end >= len(self._tail)
                and os.pread(fd, len(self._tail), end - len(self._tail)) != self._tail):
            truncated = True  # ...with the same first bytes (a banner): the bytes before our position differ
        if truncated:
            self.events.append("truncated")
            self._recover_from_copy(out)
            self._flush_partial(out)
            self._pos = 0
            self._tail = b""
            self._fp = os.pread(fd, FINGERPRINT, 0)
            self._empty_view = None
        elif self._pos == 0 and not self._fp and self._empty_view is not None and st.st_mtime_ns != self._mtime_ns:
            self._recover_unseen_copy(out, fd, size)  # empty at the last look, and modified since
        if self._pos == 0 and size == 0 and (self._empty_view is None or st.st_mtime_ns != self._mtime_ns):
            self._empty_view = {(s.st_dev, s.st_ino): (s.st_mtime_ns, s.st_size) for _, s in rotated_siblings(self.path)}
        self._mtime_ns = st.st_mtime_ns
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
        self.more = budget <= 0 and self._pos < size

    def _recover_from_copy(self, out: list[tuple[bytes, int]]) -> None:
        """copytruncate: the bytes after ``_pos`` that the copy holds and we have not read."""
        if not self._fp or self._pos == 0:
            return
        end = self._pos - len(self._partial)
        best: tuple[int, Path] | None = None
        for candidate, st in rotated_siblings(self.path):
            if (st.st_size >= self._pos and (best is None or st.st_mtime_ns > best[0])
                    and sibling_holds(candidate, end, self._fp, self._tail)):
                best = (st.st_mtime_ns, candidate)
        if best is not None:
            self._take_copy(best[1], self._pos, out)

    def _recover_unseen_copy(self, out: list[tuple[bytes, int]], fd: int, size: int) -> None:
        """A file empty at every look so far was modified: if a rotated copy appeared since the
        last look (a file that was not there, or was and has been written since) and does not
        begin as the file does, the file was copy-truncated in between and the copy holds lines
        never read."""
        view = self._empty_view or {}
        live = os.pread(fd, FINGERPRINT, 0) if size else b""
        best: tuple[int, Path, int] | None = None
        for candidate, st in rotated_siblings(self.path):
            ids = (st.st_dev, st.st_ino)
            known = view.get(ids)
            if ids == (self.dev, self.ino) or not st.st_size or (known is not None and known[0] == st.st_mtime_ns):
                continue
            # a file that was there already (a renamed log its writer still appends to): only
            # what it gained since; a new one (the copy): all of it
            start = 0 if known is None else known[1]
            if st.st_size <= start:
                continue
            opened = open_sibling(candidate)
            if opened is None:
                continue
            try:
                first = os.pread(opened[0], FINGERPRINT, 0)
            except OSError:
                continue
            finally:
                os.close(opened[0])
            if self._was_left(ids, first):
                continue
            n = min(len(first), len(live))
            if start == 0 and n and first[:n] == live[:n]:
                continue  # a copy of what the file holds now, not of what it lost
            if best is None or st.st_mtime_ns > best[0]:
                best = (st.st_mtime_ns, candidate, start)
        if best is not None:
            self.events.append("truncated while empty at the last look")
            self._take_copy(best[1], best[2], out)
            self._flush_partial(out)
            self._tail = b""  # what follows is the file's own

    def _take_copy(self, path: Path, start: int, out: list[tuple[bytes, int]]) -> None:
        opened = open_sibling(path)
        if opened is None:
            return
        fd, st = opened
        try:
            rest = os.pread(fd, MAX_READ, start)
            head = os.pread(fd, FINGERPRINT, 0)
        except OSError:
            rest = head = b""
        finally:
            os.close(fd)
        self._left.append((st.st_dev, st.st_ino, head))
        if rest:
            self.events.append(f"recovered {len(rest)} bytes from {path.name}")
            self._emit(rest, out)

    def _leave(self, out: list[tuple[bytes, int]]) -> bool:
        """Another file is at the path: read the current one's remainder (one read's worth at a
        time, :data:`MAX_READ`) and, once it is all read, close it. False while some is left."""
        self._read_available(out)
        fd = self._fd
        if fd is not None and os.fstat(fd).st_size > self._pos:
            return False
        self._flush_partial(out)
        self._left.append((self.dev, self.ino, self._fp))
        self._close_fd()
        return True

    def _was_left(self, ids: tuple[int, int], first: bytes) -> bool:
        """Whether a file with these ids and first bytes is one followed or copied before."""
        for dev, ino, head in self._left:
            n = min(len(head), len(first))
            if (dev, ino) == ids and n and first[:n] == head[:n]:  # (an inode freed and reused is another file)
                return True
        return False

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
        self._tail = (self._tail + complete[-FINGERPRINT:])[-FINGERPRINT:]
        out.append((complete, self.line))
        self.line += complete.count(b"\n")

    def _flush_partial(self, out: list[tuple[bytes, int]]) -> None:
        if self._partial:
            self._tail = (self._tail + self._partial[-FINGERPRINT:])[-FINGERPRINT:]
            out.append((self._partial + b"\n", self.line))
            self.line += 1
            self._partial = b""

    def _close_fd(self) -> None:
        if self._fd is not None:
            try:
                os.close(self._fd)
            finally:
                self._fd = None

