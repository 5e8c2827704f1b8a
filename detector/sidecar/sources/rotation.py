"""Rotated copies of a followed file, and how the file is known again.

A rotated copy of ``NAME`` sits next to it under ``NAME`` and a rotation suffix (``NAME.1``,
``NAME-20261130``, ``NAME.1.gz``; compressed copies are not read). A file is known again by its
device and inode and by its content: an encoded *fingerprint* holds its first bytes and the bytes
just before the offset read up to (:func:`encode_fingerprint`, kept in the saved
:class:`~detector.sidecar.state.Offset`), and :func:`holds` checks a file against them.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from detector.sidecar.state import Offset

ROTATED = re.compile(r"\.(?:\d{1,4}|gz|bz2|xz|zst|lz4|old|bak)$|[-_.]\d{8}(?:[-_T]?\d{2,6})?$")
COMPRESSED = (".gz", ".bz2", ".xz", ".zst", ".lz4")
# what follows NAME in the name of a rotated copy of NAME (NAME.1, NAME-20261130, NAME.1.gz)
ROTATED_SUFFIX = re.compile(r"(?:\.(?:\d{1,4}|old|bak)(?:\.(?:gz|bz2|xz|zst|lz4))?|\.(?:gz|bz2|xz|zst|lz4)"
                            r"|[-_.]\d{8}(?:[-_T]?\d{2,6})?(?:\.(?:gz|bz2|xz|zst|lz4))?)")
_MAGIC = b"\x00rd2"  # an encoded fingerprint; older states hold the first bytes only


def is_rotated_name(name: str) -> bool:
    """``stderr.log.1``, ``rank0.log-20261130``, ``x.log.gz``: rotated copies, not live files."""
    return ROTATED.search(name) is not None


def encode_fingerprint(head: bytes, tail: bytes) -> bytes:
    """What :class:`Offset` keeps to know its file again: the first bytes and the bytes just
    before the offset."""
    return _MAGIC + len(head).to_bytes(2, "big") + head + tail


def decode_fingerprint(blob: bytes) -> tuple[bytes, bytes]:
    """(head, tail) from :func:`encode_fingerprint`; a bare blob is a head (older states)."""
    if blob.startswith(_MAGIC) and len(blob) >= len(_MAGIC) + 2:
        n = int.from_bytes(blob[4:6], "big")
        return blob[6 : 6 + n], blob[6 + n :]
    return blob, b""


def holds(fd: int, size: int, offset: int, head: bytes, tail: bytes) -> bool:
    """Whether the file on ``fd`` is the one read up to ``offset``: long enough, the same first
    bytes, the same bytes just before the offset."""
    if size < offset:
        return False
    if head and os.pread(fd, len(head), 0) != head[: max(0, min(len(head), size))]:
        return False
    return not (tail and offset >= len(tail) and os.pread(fd, len(tail), offset - len(tail)) != tail)


def rotated_siblings(path: Path) -> list[tuple[Path, os.stat_result]]:
    """Rotated, uncompressed regular files next to the path: its name and a rotation suffix."""
    folder = path.parent
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    out = []
    for name in names:
        base = path.name
        if not name.startswith(base) or not ROTATED_SUFFIX.fullmatch(name, len(base)):
            continue  # (rank10.1 is not a copy of rank1)
        if name.endswith(COMPRESSED):
            continue
        try:
            st = os.lstat(folder / name)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode):
            out.append((folder / name, st))
    return out


def open_sibling(path: Path) -> tuple[int, os.stat_result] | None:
    """A descriptor on the regular file ``path`` (never through a link) and its status; None if not."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        return None
    return fd, st


def sibling_holds(path: Path, offset: int, head: bytes, tail: bytes) -> bool:
    """Whether the sibling ``path`` is the file that was read up to ``offset`` (:func:`holds`)."""
    opened = open_sibling(path)
    if opened is None:
        return False
    fd, st = opened
    try:
        return holds(fd, st.st_size, offset, head, tail)
    except OSError:
        return False
    finally:
        os.close(fd)


def find_saved(path: Path, saved: Offset, head: bytes, tail: bytes,
               exclude: tuple[int, int] | None) -> tuple[int, os.stat_result, str] | None:
    """The file that ``saved`` was read from among the rotated siblings of ``path``: by device and
    inode, else by content; its descriptor, status and name."""
    by_content: tuple[int, Path] | None = None
    for candidate, st in rotated_siblings(path):
        ids = (st.st_dev, st.st_ino)
        if ids == exclude:
            continue
        if ids == (saved.dev, saved.ino):
            opened = open_sibling(candidate)
            if opened is None:
                continue
            fd, fst = opened
            try:
                good = holds(fd, fst.st_size, saved.offset, head, tail)
            except OSError:
                good = False
            if good and (fst.st_dev, fst.st_ino) == ids:
                return fd, fst, candidate.name
            os.close(fd)
        elif (saved.offset and head and st.st_size >= saved.offset
              and (by_content is None or st.st_mtime_ns > by_content[0])
              and sibling_holds(candidate, saved.offset, head, tail)):
            by_content = (st.st_mtime_ns, candidate)
    if by_content is None:
        return None
    opened = open_sibling(by_content[1])
    return None if opened is None else (opened[0], opened[1], by_content[1].name)
