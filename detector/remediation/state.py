"""Remediation state in SQLite: handled incidents, drains, the breaker, verifications.

It survives sidecar restarts and is shared by every process using the same ``state_dir`` (the
sidecar and an operator's ``rankdoctor remediate``): claiming an incident, checking the budgets
and reserving a drain happen in one ``BEGIN IMMEDIATE`` transaction, so an incident acts at most
once and two processes cannot both take the last drain of the hour. A person's reset of the
breaker also restarts the budgets: only drains after the reset count.

A database found corrupt on opening is moved aside (``NAME.corrupt-<time>``, never deleted) and
a fresh one started with the breaker open: what it knew (claimed incidents, drains counted) is
gone, so nothing is drained or resubmitted until a person resets the breaker.
"""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from detector.remediation.budget import HOUR_S, over_budget
from detector.remediation.config import BudgetConfig
from detector.remediation.model import Plan, Verification
from detector.support.clock import Clock
from detector.support.sqlite import check_intact, is_corrupt, set_aside
from detector.types import Incident

SCHEMA = """
CREATE TABLE IF NOT EXISTS incidents (
    id TEXT PRIMARY KEY, at REAL NOT NULL, cause TEXT, node TEXT, job TEXT,
    outcome TEXT NOT NULL, summary TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS drains (
    at REAL NOT NULL, node TEXT NOT NULL, job TEXT NOT NULL, incident_id TEXT NOT NULL,
    status TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS breaker (
    id INTEGER PRIMARY KEY CHECK (id = 1), open INTEGER NOT NULL, reason TEXT NOT NULL,
    at REAL NOT NULL, by TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS verifications (
    incident_id TEXT NOT NULL, at REAL NOT NULL, status TEXT NOT NULL, step INTEGER,
    detail TEXT NOT NULL);
"""
COUNTED = ("reserved", "ok")


@dataclass(frozen=True, slots=True)
class IncidentRecord:
    id: str
    at: float
    cause: str | None
    node: str | None
    job: str | None
    outcome: str
    summary: str


@dataclass(frozen=True, slots=True)
class BreakerState:
    open: bool
    reason: str = ""
    at: float | None = None
    by: str = ""


@dataclass(frozen=True, slots=True)
class Clearance:
    """The store's answer before acting: a duplicate, or the plan as the breaker and budgets
    allow it (``breaker_opened`` says why the breaker opened just now)."""

    duplicate: IncidentRecord | None
    plan: Plan
    breaker_opened: str | None = None


@dataclass(frozen=True, slots=True)
class StatusSnapshot:
    breaker: BreakerState
    drains_last_hour: int
    incidents: tuple[IncidentRecord, ...]
    verifications: tuple[tuple[str, float, str, int | None, str], ...]


def _notify_only(plan: Plan, reason: str) -> Plan:
    return replace(plan, drain=False, resubmit=False, reasons=(*plan.reasons, reason))


def _stderr_warning(message: str) -> None:
    print(f"rankdoctor: warning: {message}", file=sys.stderr, flush=True)


class RemediationStore:
    def __init__(self, path: Path, clock: Clock, *,
                 warn: Callable[[str], None] = _stderr_warning) -> None:
        self.path = path
        self._clock = clock
        self._warn = warn
        self.replaced: Path | None = None  # where a corrupt database found on opening was moved
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            inode = path.stat().st_ino
        except OSError:
            inode = None
        try:
            self._create()
        except sqlite3.DatabaseError as exc:
            if not is_corrupt(exc):
                raise
            self._replace_corrupt(exc, inode)

    def _create(self) -> None:
        with self._connect() as db:
            check_intact(db)  # small; read once, on opening
            db.executescript(SCHEMA)

    def _replace_corrupt(self, exc: sqlite3.DatabaseError, inode: int | None) -> None:
        """Move the corrupt file aside (kept for a person) and start a fresh database whose
        breaker is open. The fresh one does not know which incidents were already claimed nor
        the drains that count against the budgets; with the breaker open nothing is drained or
        resubmitted (notify only) until a person has looked and run ``--reset-breaker``."""
        try:
            same = inode is not None and self.path.stat().st_ino == inode
        except OSError:
            same = False
        if not same:  # another process replaced it meanwhile: use its fresh database
            self._create()
            return
        moved = set_aside(self.path)
        self.replaced = moved
        reason = f"the remediation state database was corrupt and was replaced (old file: {moved})"
        with self._transaction() as db:  # tables and open breaker at once: no admission in between
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute("INSERT OR REPLACE INTO breaker (id, open, reason, at, by) VALUES (1, 1, ?, ?, 'rankdoctor')",
                       (reason, self._clock.time()))
        self._warn(
            f"remediation state database {self.path} is corrupt ({exc}); moved it aside to {moved} and started a "
            "fresh one. The incidents it had claimed and the drains counted against the budgets are forgotten, "
            "so an incident handled before could be acted on again: the breaker is open (notify only, no drain "
            "or resubmit) until a person checks and runs 'rankdoctor remediate --reset-breaker'")

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        try:
            yield db
        finally:
            db.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    # --- reading ---

    def previous(self, incident_id: str) -> IncidentRecord | None:
        with self._connect() as db:
            return _record(db, incident_key(incident_id))

    def breaker(self) -> BreakerState:
        with self._connect() as db:
            return _breaker(db)

    def breaker_now(self, wait_s: float = 0.05) -> BreakerState | None:
        """The breaker as it is now, waiting at most ``wait_s`` for a lock another process holds
        (a metrics scrape must not hang on it); None when it cannot be read."""
        try:
            db = sqlite3.connect(self.path, timeout=wait_s, isolation_level=None)
            try:
                return _breaker(db)
            finally:
                db.close()
        except sqlite3.Error:
            return None

    def status(self, limit: int = 20) -> StatusSnapshot:
        with self._connect() as db:
            rows = db.execute("SELECT id, at, cause, node, job, outcome, summary FROM incidents "
                              "ORDER BY at DESC LIMIT ?", (limit,)).fetchall()
            ver = db.execute("SELECT incident_id, at, status, step, detail FROM verifications "
                             "ORDER BY at DESC LIMIT ?", (limit,)).fetchall()
            return StatusSnapshot(_breaker(db), self._drains_last_hour(db),
                                  tuple(IncidentRecord(*r) for r in rows), tuple(ver))

    def _drains_last_hour(self, db: sqlite3.Connection) -> int:
        since = max(self._clock.time() - HOUR_S, _reset_at(db))
        row = db.execute("SELECT COUNT(*) FROM drains WHERE at >= ? AND status IN (?, ?)",
                         (since, *COUNTED)).fetchone()
        return int(row[0])

    # --- admitting an incident ---

    def admit(self, incident: Incident, plan: Plan, *, budget: BudgetConfig, job: str,
              job_nodes: int | None, dry_run: bool) -> Clearance:
        """Check duplicate, breaker and budgets; unless ``dry_run``, claim the incident and
        reserve the drain (or open the breaker) in the same transaction."""
        if dry_run:
            with self._connect() as db:
                return self._admit(db, incident, plan, budget, job, job_nodes, write=False)
        with self._transaction() as db:
            return self._admit(db, incident, plan, budget, job, job_nodes, write=True)

    def _admit(self, db: sqlite3.Connection, incident: Incident, plan: Plan,
               budget: BudgetConfig, job: str, job_nodes: int | None, *,
               write: bool) -> Clearance:
        now = self._clock.time()
        seen = _record(db, incident_key(incident.id))
        if seen is not None:
            return Clearance(seen, plan)
        opened = None
        breaker = _breaker(db)
        if breaker.open and (plan.drain or plan.resubmit):
            plan = _notify_only(plan, f"breaker is open ({breaker.reason}): notify only until "
                                      "a person runs 'rankdoctor remediate --reset-breaker'")
        if plan.drain and plan.node is not None:
            drained = [r[0] for r in db.execute(
                "SELECT DISTINCT node FROM drains WHERE job = ? AND at >= ? AND status IN (?, ?)",
                (job, _reset_at(db), *COUNTED))]
            over = over_budget(budget, drains_last_hour=self._drains_last_hour(db),
                               job_drained=drained, node=plan.node, job_nodes=job_nodes)
            if over is not None:
                opened = over
                verb = "opens" if write else "would open"
                plan = _notify_only(plan, f"{over}: the breaker {verb}; notify only")
                if write:
                    db.execute("INSERT OR REPLACE INTO breaker (id, open, reason, at, by) "
                               "VALUES (1, 1, ?, ?, 'rankdoctor')", (over, now))
            elif write:
                db.execute("INSERT INTO drains (at, node, job, incident_id, status) "
                           "VALUES (?, ?, ?, ?, 'reserved')", (now, plan.node, job, incident_key(incident.id)))
        if write:
            db.execute("INSERT INTO incidents (id, at, cause, node, job, outcome) "
                       "VALUES (?, ?, ?, ?, ?, 'in_progress')",
                       (incident_key(incident.id), now, incident.cause.value, plan.node, job))
        return Clearance(None, plan, opened)

    # --- after acting ---

    def drain_done(self, incident_id: str, ok: bool) -> None:
        with self._connect() as db:
            db.execute("UPDATE drains SET status = ? WHERE incident_id = ? AND status = "
                       "'reserved'", ("ok" if ok else "failed", incident_key(incident_id)))

    def finish(self, incident_id: str, outcome: str, summary: str) -> None:
        with self._connect() as db:
            db.execute("UPDATE incidents SET outcome = ?, summary = ? WHERE id = ?",
                       (outcome, summary, incident_key(incident_id)))

    def outcome_of(self, incident_id: str) -> str | None:
        """How the handling of ``incident_id`` ended (``in_progress`` while it runs), or None:
        never handled (or only in a dry run, which records nothing)."""
        with self._connect() as db:
            seen = _record(db, incident_key(incident_id))
        return seen.outcome if seen is not None else None

    def record_verification(self, v: Verification) -> None:
        with self._connect() as db:
            db.execute("INSERT INTO verifications (incident_id, at, status, step, detail) "
                       "VALUES (?, ?, ?, ?, ?)",
                       (incident_key(v.incident_id), self._clock.time(), v.status.value, v.step, v.detail))

    def reset_breaker(self, by: str) -> BreakerState:
        """Close the breaker; returns the state it had."""
        with self._transaction() as db:
            before = _breaker(db)
            db.execute("INSERT OR REPLACE INTO breaker (id, open, reason, at, by) "
                       "VALUES (1, 0, ?, ?, ?)", ("reset", self._clock.time(), by))
            return before


def incident_key(incident_id: str) -> str:
    """The id an incident is kept under: its words joined by one space (the same incident with a
    space or a line break added to its id, by hand or by a tool that wrote the file again, is no
    new one: it acted a second time, a second drain and requeue)."""
    return " ".join(incident_id.split()) or incident_id


def _record(db: sqlite3.Connection, incident_id: str) -> IncidentRecord | None:
    row = db.execute("SELECT id, at, cause, node, job, outcome, summary FROM incidents "
                     "WHERE id = ?", (incident_id,)).fetchone()
    return IncidentRecord(*row) if row else None


def _reset_at(db: sqlite3.Connection) -> float:
    """When a person last reset the breaker: budgets count only drains after it."""
    row = db.execute("SELECT at FROM breaker WHERE id = 1 AND open = 0").fetchone()
    return float(row[0]) if row else 0.0


def _breaker(db: sqlite3.Connection) -> BreakerState:
    row = db.execute("SELECT open, reason, at, by FROM breaker WHERE id = 1").fetchone()
    if row is None:
        return BreakerState(False)
    return BreakerState(bool(row[0]), row[1], row[2], row[3])
