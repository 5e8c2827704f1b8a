"""The sidecar's state in SQLite: where each followed file was read up to, which incidents were
reported, and small facts to resume with (the kernel log's last record). A restarted sidecar
neither re-reads nor skips lines and does not report an incident twice.

One connection, used from the sidecar's main loop only. Without a state directory the store
lives in memory (same code, nothing survives a restart).

The database must never stop detection: a write waits at most ``BUSY_TIMEOUT_S`` for another
process's lock, and writes that fail (locked, disk full) are kept in memory, retried, and
reported through :attr:`SidecarStore.error` (the runner turns it into the ``state`` source). A
corrupt database file is moved aside and a fresh one started.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TypeVar

from detector.errors import RankdoctorError
from detector.support.sqlite import check_intact, is_corrupt, set_aside

BUSY_TIMEOUT_S = 0.05  # the longest one write waits for another process's lock (main loop)
RETRY_S = 1.0  # after a failed write, the next try; writes queue in memory meanwhile
OPEN_TIMEOUT_S = 5.0  # opening, before the main loop runs
CLOSE_TIMEOUT_S = 2.0  # the last write, at shutdown

_V = TypeVar("_V")
LOCK_FILE = "watch.lock"  # held by the one watch that uses a state folder (its pid written in it)


def hold_state_dir(directory: Path) -> IO[str] | None:
    """Take ``directory`` (a watch's state folder) for this process: an exclusive lock on its
    :data:`LOCK_FILE`, held while the returned file stays open (the kernel lets it go when the
    process ends, however it ends). Two watches sharing a folder would each read the other's
    offsets and reported incidents as their own and report or skip each other's: the second is
    refused. Raises RankdoctorError when another process holds it; None where the file system
    takes no locks."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / LOCK_FILE
    fh = open(path, "a+", encoding="utf-8")  # noqa: SIM115 (held open: the lock lives with it)
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        fh.seek(0)
        holder = fh.read(300).split()
        fh.close()
        who = ""
        if holder and holder[0].isdigit():
            who = f" (pid {holder[0]}" + (f" on {holder[1]}" if len(holder) > 1 else "") + ")"
        raise RankdoctorError(f"the state folder {directory} is in use by another rankdoctor watch{who}: give each "
                              "watch its own (--state, or state_dir in its config), or stop the other one") from None
    except OSError:  # (a file system without locks: the caller goes on unguarded, and says so)
        fh.close()
        return None
    fh.seek(0)
    fh.truncate()
    fh.write(f"{os.getpid()} {socket.gethostname()}\n")
    fh.flush()
    return fh

_SCHEMA = """
CREATE TABLE IF NOT EXISTS offsets (
    path TEXT PRIMARY KEY,
    dev INTEGER NOT NULL,
    ino INTEGER NOT NULL,
    offset INTEGER NOT NULL,
    line INTEGER NOT NULL,
    fingerprint BLOB NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS reported (
    incident_id TEXT PRIMARY KEY,
    attempt INTEGER,
    rank INTEGER,
    node TEXT,
    cause TEXT NOT NULL,
    at REAL NOT NULL,
    keys TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""


@dataclass(frozen=True, slots=True)
class Offset:
    """How far a file was read: byte offset of the first unread complete line and its number."""

    path: str
    dev: int
    ino: int
    offset: int
    line: int
    # to recognise the file again: its first bytes and the bytes just before the offset, as the
    # tailer encodes them (rotation.encode_fingerprint; older states hold the first bytes only)
    fingerprint: bytes


@dataclass(frozen=True, slots=True)
class ReportedRecord:
    incident_id: str
    attempt: int | None
    rank: int | None
    node: str | None
    cause: str
    at: float
    keys: tuple[str, ...]


class SidecarStore:
    """The sidecar's state. Reads go to the database (what is waiting to be written first);
    writes never raise and never wait long: each waits at most ``busy_timeout_s`` for another
    process's lock, and one that fails (locked, disk full, I/O error) stays queued in memory,
    is retried at most every ``retry_s`` (:meth:`flush`, every write) and sets :attr:`error`
    until it succeeds. The main loop so never stalls on the database."""

    def __init__(
        self,
        directory: Path | None,
        *,
        warn: Callable[[str], None] = lambda _m: None,
        busy_timeout_s: float = BUSY_TIMEOUT_S,
        retry_s: float = RETRY_S,
        clock: Callable[[], float] = time.monotonic,
        connect: Callable[..., sqlite3.Connection] = sqlite3.connect,
    ) -> None:
        self.persistent = directory is not None
        self.path: Path | None = None
        self._warn = warn
        self._busy_timeout_s = busy_timeout_s
        self._retry_s = retry_s
        self._clock = clock
        self._connect = connect
        self._offsets: dict[str, tuple[Offset, float]] = {}  # waiting to be written
        self._reported: dict[str, ReportedRecord] = {}
        self._meta: dict[str, str] = {}
        self._retry_at = 0.0
        self.error: str | None = None  # why the last write failed; None once everything is saved
        if directory is not None:
            self.path = directory / "sidecar.sqlite3"
            directory.mkdir(parents=True, exist_ok=True)
            try:
                self._db = self._open_file(self.path)
            except sqlite3.OperationalError as exc:
                # (a full disk, an I/O error: watching goes on with the state in memory, as when
                # the disk fills while it runs; a restart forgets it)
                self._warn(f"state database {self.path} cannot be opened ({exc}); state kept in memory: a restarted "
                           "sidecar reads files again from their start and may report an incident again")
                self.persistent = False
                self.error = str(exc)
                self._db = self._open(":memory:")
        else:
            self._db = self._open(":memory:")

    def _open(self, target: str) -> sqlite3.Connection:
        # opening (before the main loop runs) may wait longer for a lock than a write later
        db = self._connect(target, timeout=OPEN_TIMEOUT_S, isolation_level=None, check_same_thread=False)
        try:
            db.execute("PRAGMA journal_mode=WAL" if target != ":memory:" else "PRAGMA journal_mode=MEMORY")
            db.execute("PRAGMA synchronous=NORMAL")
            if target != ":memory:":
                check_intact(db)
            db.executescript(_SCHEMA)
            db.execute(f"PRAGMA busy_timeout = {max(0, int(self._busy_timeout_s * 1000))}")
        except BaseException:
            db.close()
            raise
        return db

    def _open_file(self, path: Path) -> sqlite3.Connection:
        """A corrupt database is moved aside (kept, never deleted) and a fresh one started:
        without it nothing would be detected at all. What is lost is where each file was read
        up to (files are read again from their start, as backlog) and which incidents were
        reported (one may be reported again)."""
        try:
            return self._open(str(path))
        except sqlite3.DatabaseError as exc:
            if not is_corrupt(exc):
                raise
            moved = set_aside(path)
            self._warn(f"state database {path} is corrupt ({exc}); moved it aside to {moved} and started "
                       "a fresh one: files are read again from their start and an incident reported before "
                       "may be reported again")
        return self._open(str(path))

    # --- writing (queued, never raising) ---

    @property
    def pending(self) -> int:
        """How many writes wait in memory for the database."""
        return len(self._offsets) + len(self._reported) + len(self._meta)

    def flush(self, *, force: bool = False) -> bool:
        """Write what is queued, in one transaction; True when nothing is left waiting. After a
        failure the next try is ``retry_s`` later (``force``: now)."""
        if not self.pending:
            return True
        now = self._clock()
        if self.error is not None and not force and now < self._retry_at:
            return False
        offsets, reported, meta = dict(self._offsets), dict(self._reported), dict(self._meta)
        try:
            self._db.execute("BEGIN IMMEDIATE")
            if offsets:
                self._db.executemany(
                    "INSERT INTO offsets (path, dev, ino, offset, line, fingerprint, updated) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET dev=excluded.dev, "
                    "ino=excluded.ino, offset=excluded.offset, line=excluded.line, "
                    "fingerprint=excluded.fingerprint, updated=excluded.updated",
                    [(o.path, o.dev, o.ino, o.offset, o.line, o.fingerprint, at) for o, at in offsets.values()],
                )
            if reported:
                self._db.executemany(
                    "INSERT OR REPLACE INTO reported (incident_id, attempt, rank, node, cause, at, keys) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [(r.incident_id, r.attempt, r.rank, r.node, r.cause, r.at, json.dumps(list(r.keys)))
                     for r in reported.values()],
                )
            if meta:
                self._db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", list(meta.items()))
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            if self._db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK")
            self._retry_at = now + self._retry_s
            self.error = f"{exc} ({self.path or 'memory'}; {self.pending} writes kept in memory)"
            return False
        _forget(self._offsets, offsets)
        _forget(self._reported, reported)
        _forget(self._meta, meta)
        self.error = None
        return not self.pending

    # --- offsets ---

    def offset(self, path: str) -> Offset | None:
        """Raises sqlite3.Error when the database cannot be read."""
        queued = self._offsets.get(path)
        if queued is not None:
            return queued[0]
        row = self._db.execute(
            "SELECT path, dev, ino, offset, line, fingerprint FROM offsets WHERE path = ?", (path,)
        ).fetchone()
        if row is None:
            return None
        return Offset(row[0], int(row[1]), int(row[2]), int(row[3]), int(row[4]), bytes(row[5]))

    def save_offsets(self, offsets: list[Offset], now: float) -> None:
        for o in offsets:
            self._offsets[o.path] = (o, now)
        self.flush()

    # --- reported incidents ---

    def add_reported(self, record: ReportedRecord) -> None:
        self._reported[record.incident_id] = record
        self.flush()

    def reported_since(self, since: float) -> list[ReportedRecord]:
        rows = self._db.execute(
            "SELECT incident_id, attempt, rank, node, cause, at, keys FROM reported WHERE at >= ? ORDER BY at",
            (since,),
        ).fetchall()
        found = {r[0]: ReportedRecord(r[0], r[1], r[2], r[3], r[4], float(r[5]), tuple(json.loads(r[6])))
                 for r in rows}
        found.update((k, r) for k, r in self._reported.items() if r.at >= since)
        return sorted(found.values(), key=lambda r: r.at)

    # --- small facts ---

    def get_meta(self, key: str) -> str | None:
        if key in self._meta:
            return self._meta[key]
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self._meta[key] = value
        self.flush()

    def close(self, timeout_s: float = CLOSE_TIMEOUT_S) -> None:
        """The last try to write what is queued may wait ``timeout_s`` for a lock; what still
        cannot be written is said (``warn``) and lost."""
        if self.pending:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute(f"PRAGMA busy_timeout = {max(0, int(timeout_s * 1000))}")
            if not self.flush(force=True):
                self._warn(f"state not saved: {self.error}; on restart files may be read again "
                           "from older offsets and an incident reported again")
        self._db.close()


def _forget(queue: dict[str, _V], written: dict[str, _V]) -> None:
    """Drop what was written from the queue, unless it was replaced meanwhile."""
    for key, value in written.items():
        if queue.get(key) is value:
            del queue[key]
