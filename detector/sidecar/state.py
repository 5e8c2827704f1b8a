"""The sidecar's state in SQLite: where each followed file was read up to, which incidents were
reported, and small facts to resume with (the kernel log's last record). A restarted sidecar
neither re-reads nor skips lines and does not report an incident twice.

One connection, used from the sidecar's main loop only. Without a state directory the store
lives in memory (same code, nothing survives a restart).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

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
    fingerprint: bytes  # the file's first bytes (up to FINGERPRINT), to recognise it again


@dataclass(frozen=True, slots=True)
class ReportedRecord:
    incident_id: str
    attempt: int | None
    rank: int | None
    node: str | None
    cause: str
    at: float
    keys: tuple[str, ...]


class StateStore:
    def __init__(self, directory: Path | None) -> None:
        if directory is not None:
            directory.mkdir(parents=True, exist_ok=True)
            target = str(directory / "sidecar.sqlite3")
        else:
            target = ":memory:"
        self._db = sqlite3.connect(target, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL" if directory is not None else "PRAGMA journal_mode=MEMORY")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        self.persistent = directory is not None

    # --- offsets ---

    def offset(self, path: str) -> Offset | None:
        row = self._db.execute(
            "SELECT path, dev, ino, offset, line, fingerprint FROM offsets WHERE path = ?", (path,)
        ).fetchone()
        if row is None:
            return None
        return Offset(row[0], int(row[1]), int(row[2]), int(row[3]), int(row[4]), bytes(row[5]))

    def save_offsets(self, offsets: list[Offset], now: float) -> None:
        if not offsets:
            return
        with self._db:
            self._db.execute("BEGIN")
            self._db.executemany(
                "INSERT INTO offsets (path, dev, ino, offset, line, fingerprint, updated) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET dev=excluded.dev, "
                "ino=excluded.ino, offset=excluded.offset, line=excluded.line, "
                "fingerprint=excluded.fingerprint, updated=excluded.updated",
                [(o.path, o.dev, o.ino, o.offset, o.line, o.fingerprint, now) for o in offsets],
            )
            self._db.execute("COMMIT")

    # --- reported incidents ---

    def add_reported(self, record: ReportedRecord) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO reported (incident_id, attempt, rank, node, cause, at, keys) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (record.incident_id, record.attempt, record.rank, record.node, record.cause, record.at,
             json.dumps(list(record.keys))),
        )

    def reported_since(self, since: float) -> list[ReportedRecord]:
        rows = self._db.execute(
            "SELECT incident_id, attempt, rank, node, cause, at, keys FROM reported WHERE at >= ? ORDER BY at",
            (since,),
        ).fetchall()
        return [
            ReportedRecord(r[0], r[1], r[2], r[3], r[4], float(r[5]), tuple(json.loads(r[6]))) for r in rows
        ]

    # --- small facts ---

    def get_meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def close(self) -> None:
        self._db.close()
