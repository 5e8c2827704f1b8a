"""Shared by the sidecar's and the remediation's state databases (SQLite): recognising a
corrupt database file and moving it aside, so that a fresh one can be started without losing
the old file (it stays next to the new one for a person to look at)."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

# SQLITE_CORRUPT and SQLITE_NOTADB (primary result codes): the file is damaged or not SQLite.
# Everything else (locked, busy, disk full, I/O error, cannot open) is not corruption.
_CORRUPT_CODES = frozenset({11, 26})


class CorruptDatabase(sqlite3.DatabaseError):
    """``PRAGMA quick_check`` found problems in a database that opened."""


def is_corrupt(exc: BaseException) -> bool:
    """Whether an exception from SQLite says the database file itself is damaged."""
    if isinstance(exc, CorruptDatabase):
        return True
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return (code & 0xFF) in _CORRUPT_CODES
    text = str(exc).lower()
    return "malformed" in text or "not a database" in text


def check_intact(db: sqlite3.Connection) -> None:
    """Raises (CorruptDatabase or SQLite's own error) unless ``PRAGMA quick_check`` says ok.
    Reads every page of the file: meant for small databases, once, when they are opened."""
    rows = db.execute("PRAGMA quick_check(5)").fetchall()
    if [tuple(r) for r in rows] != [("ok",)]:
        raise CorruptDatabase("; ".join(str(r[0]) for r in rows) or "quick_check found problems")


def set_aside(path: Path, now: float | None = None) -> Path:
    """Rename ``path`` (with its ``-wal`` and ``-shm`` files, so that they still go together) to
    ``NAME.corrupt-<UTC time>`` in the same folder; never overwrites. Returns the new path."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(time.time() if now is None else now))
    base = path.with_name(f"{path.name}.corrupt-{stamp}")
    target = base
    n = 0
    while any(Path(f"{target}{s}").exists() for s in ("", "-wal", "-shm")):
        n += 1
        target = base.with_name(f"{base.name}-{n}")
    os.rename(path, target)  # the database first: without it the others mean nothing
    for suffix in ("-wal", "-shm", "-journal"):
        side = Path(f"{path}{suffix}")
        if side.exists():
            os.rename(side, Path(f"{target}{suffix}"))
    return target
