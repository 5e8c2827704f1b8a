"""The sidecar's state database failing under the main loop: locked by another process, disk
full, corrupt. Writes never raise nor wait long; they queue in memory and are saved later, the
failure shows as the ``state`` source. (End to end, with a real ``rankdoctor watch``:
tests/reliability/test_reliability_deps.py and tests/reliability/test_reliability_tailer.py.)"""

from __future__ import annotations

import dataclasses
import io
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from detector.sidecar.config import DetectionConfig, ProcessConfig, PrometheusConfig, SidecarConfig
from detector.sidecar.model import Chunk, Inbox
from detector.sidecar.service import Outside, Sidecar
from detector.sidecar.sources.logs import LogFollower
from detector.sidecar.state import Offset, ReportedRecord, SidecarStore
from detector.support.sqlite import is_corrupt, set_aside

GARBAGE = b"SQLite format 3\x00" + b"\xde\xad\xbe\xef" * 4096


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


class Flaky:
    """A connection whose writes fail with ``error`` while ``failing`` (as a full disk does:
    after BEGIN, in the middle of the transaction)."""

    def __init__(self, db: sqlite3.Connection, error: str) -> None:
        self.db = db
        self.error = error
        self.failing = False
        self.begins = 0

    def execute(self, sql: str, *args: Any) -> Any:
        if sql.startswith("BEGIN"):
            self.begins += 1
        return self.db.execute(sql, *args)

    def executemany(self, sql: str, rows: Any) -> Any:
        if self.failing:
            raise sqlite3.OperationalError(self.error)
        return self.db.executemany(sql, rows)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.db, name)


def flaky_store(directory: Path | None, error: str = "database or disk is full",
                **kw: Any) -> tuple[SidecarStore, list[Flaky]]:
    made: list[Flaky] = []

    def connect(*args: Any, **kwargs: Any) -> Any:
        made.append(Flaky(sqlite3.connect(*args, **kwargs), error))
        return made[-1]

    return SidecarStore(directory, connect=connect, **kw), made


def off(path: str, line: int) -> Offset:
    return Offset(path, 1, 2, line * 10, line, b"head")


def test_a_locked_database_neither_blocks_nor_loses_writes(tmp_path: Path) -> None:
    clock = Clock()
    store = SidecarStore(tmp_path, clock=clock)
    lock = sqlite3.connect(tmp_path / "sidecar.sqlite3", isolation_level=None)
    lock.execute("BEGIN EXCLUSIVE")
    try:
        started = time.monotonic()
        store.save_offsets([off("/l/a.log", 5)], now=1.0)
        store.add_reported(ReportedRecord("inc-1", None, 1, "n1", "crash", 50.0, ("k",)))
        store.set_meta("episode", "50.0")
        blocked = time.monotonic() - started
        assert blocked < 0.5, f"the writes waited {blocked:.2f} s for the lock"  # was 5 s each
        assert store.error is not None and "locked" in store.error
        assert store.pending == 3
        # what is queued is what the store answers
        assert store.offset("/l/a.log") == off("/l/a.log", 5)
        assert [r.incident_id for r in store.reported_since(0.0)] == ["inc-1"]
        assert store.get_meta("episode") == "50.0"
    finally:
        lock.execute("ROLLBACK")
        lock.close()
    assert not store.flush()  # the retry waits for retry_s
    clock.t += 1.0
    assert store.flush() and store.error is None and store.pending == 0
    store.close()
    again = SidecarStore(tmp_path)
    assert again.offset("/l/a.log") == off("/l/a.log", 5)
    assert [r.keys for r in again.reported_since(0.0)] == [("k",)]
    assert again.get_meta("episode") == "50.0"
    again.close()


def test_failed_writes_are_retried_once_per_retry_s_and_rolled_back(tmp_path: Path) -> None:
    clock = Clock()
    store, (db,) = flaky_store(tmp_path, clock=clock, retry_s=1.0)
    db.failing = True
    begins = db.begins
    for i in range(20):  # every poll saves; only the first try reaches the database
        store.save_offsets([off("/l/a.log", i)], now=float(i))
    assert db.begins == begins + 1
    assert store.error is not None and "disk is full" in store.error
    assert not db.in_transaction  # rolled back: the next BEGIN works
    assert store.offset("/l/a.log") == off("/l/a.log", 19)  # the newest, in memory
    clock.t += 1.0
    store.save_offsets([], now=30.0)
    assert db.begins == begins + 2 and store.pending == 1
    db.failing = False  # space again
    clock.t += 1.0
    store.save_offsets([off("/l/b.log", 3)], now=31.0)
    assert store.error is None and store.pending == 0
    store.close()
    again = SidecarStore(tmp_path)
    assert again.offset("/l/a.log") == off("/l/a.log", 19) and again.offset("/l/b.log") == off("/l/b.log", 3)
    again.close()


def test_close_says_when_the_state_could_not_be_saved(tmp_path: Path) -> None:
    warnings: list[str] = []
    store, (db,) = flaky_store(tmp_path, warn=warnings.append)
    db.failing = True
    store.save_offsets([off("/l/a.log", 1)], now=1.0)
    assert warnings == []  # the runner reports a failing store (the state source)
    store.close()
    assert len(warnings) == 1 and "not saved" in warnings[0] and "disk is full" in warnings[0]


def test_a_corrupt_database_is_moved_aside_and_a_fresh_one_started(tmp_path: Path) -> None:
    path = tmp_path / "sidecar.sqlite3"
    path.write_bytes(GARBAGE)
    warnings: list[str] = []
    store = SidecarStore(tmp_path, warn=warnings.append)
    (moved,) = tmp_path.glob("sidecar.sqlite3.corrupt-*")
    assert moved.read_bytes() == GARBAGE  # never lost
    assert len(warnings) == 1 and str(path) in warnings[0] and str(moved) in warnings[0]
    store.save_offsets([off("/l/a.log", 2)], now=1.0)
    assert store.error is None
    store.close()
    assert SidecarStore(tmp_path).offset("/l/a.log") == off("/l/a.log", 2)


def test_set_aside_never_overwrites_and_keeps_the_wal_with_its_database(tmp_path: Path) -> None:
    path = tmp_path / "x.sqlite3"
    names = []
    for i in range(2):
        path.write_bytes(b"db%d" % i)
        Path(f"{path}-wal").write_bytes(b"wal%d" % i)
        names.append(set_aside(path, now=0.0))
    assert names[0] != names[1]
    assert [n.read_bytes() for n in names] == [b"db0", b"db1"]
    assert [Path(f"{n}-wal").read_bytes() for n in names] == [b"wal0", b"wal1"]
    assert not path.exists()


def test_only_damage_counts_as_corrupt(tmp_path: Path) -> None:
    bad = tmp_path / "bad.sqlite3"
    bad.write_bytes(GARBAGE)
    with pytest.raises(sqlite3.DatabaseError) as damaged:
        sqlite3.connect(bad).execute("SELECT * FROM sqlite_master").fetchall()
    assert is_corrupt(damaged.value)
    good = tmp_path / "good.sqlite3"
    holder = sqlite3.connect(good, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN EXCLUSIVE")
    with pytest.raises(sqlite3.OperationalError) as locked:
        sqlite3.connect(good, timeout=0.01).execute("INSERT INTO t VALUES (1)")
    holder.execute("ROLLBACK")
    assert not is_corrupt(locked.value)
    assert not is_corrupt(sqlite3.OperationalError("database or disk is full"))


def test_the_follower_reads_on_while_offsets_cannot_be_saved(tmp_path: Path) -> None:
    log = tmp_path / "rank_0.log"
    log.write_text("")
    store, (db,) = flaky_store(tmp_path / "state")
    db.failing = True
    follower = LogFollower([str(log)], node="n1", store=store, poll_s=0.0, check_s=0.0, observer_factory=None)
    inbox = Inbox()
    follower.start(inbox)
    got: list[bytes] = []
    try:
        for i in range(5):
            with open(log, "a") as fh:
                fh.write(f"step {i}\n")
            follower.poll(float(10 + i * 2))  # saves every second: each poll saves; none raises
            got.extend(item.data for item in inbox.drain(0.0) if isinstance(item, Chunk))
        assert b"".join(got) == b"".join(b"step %d\n" % i for i in range(5))
        assert store.error is not None and store.offset(str(log)) is not None
    finally:
        follower.close()
        store.close()


class UnreadableStore(SidecarStore):
    def __init__(self, failures: int) -> None:
        super().__init__(None)
        self.failures = failures

    def offset(self, path: str) -> Offset | None:
        if self.failures:
            self.failures -= 1
            raise sqlite3.DatabaseError("database disk image is malformed")
        return super().offset(path)


@pytest.mark.parametrize("failures", [1, 5])
def test_a_file_whose_offset_cannot_be_read_is_followed_all_the_same(tmp_path: Path, failures: int) -> None:
    log = tmp_path / "rank_0.log"
    log.write_text("old line\n")
    warnings: list[str] = []
    follower = LogFollower([str(log)], node="n1", store=UnreadableStore(failures), poll_s=0.0, check_s=0.0,
                           rescan_s=0.0, observer_factory=None, warn=warnings.append)
    inbox = Inbox()
    follower.start(inbox)
    try:
        assert follower.files == []  # not yet: read its offset first
        for i in range(4):
            follower.poll(float(i))
        chunks = [item for item in inbox.drain(0.0) if isinstance(item, Chunk)]
        assert [c.data for c in chunks] == [b"old line\n"]
        assert chunks[0].backlog  # what was there at start-up stays backlog
        assert len(warnings) == (1 if failures == 1 else 2)
    finally:
        follower.close()


def test_the_main_loop_goes_on_and_says_so_while_the_state_is_locked(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "rank_0.log").write_text("")
    config = SidecarConfig(logs=(str(logs),), node="node01", metrics_addr=None, remediate=False, nvml=False,
                           state_dir=tmp_path / "state", incidents=tmp_path / "incidents.jsonl",
                           processes=ProcessConfig(enabled=False), detection=DetectionConfig(settle_s=0.2),
                           prometheus=PrometheusConfig())
    err = io.StringIO()
    sidecar = Sidecar(config, Outside(out=io.StringIO(), err=err, observer_factory=None))

    def up() -> float | None:
        return sidecar.metrics.registry.get_sample_value(
            "rankdoctor_source_up", {"training_job": config.job, "node": "node01", "source": "state"})

    sidecar.start()
    try:
        assert up() == 1.0
        lock = sqlite3.connect(tmp_path / "state" / "sidecar.sqlite3", isolation_level=None)
        lock.execute("BEGIN EXCLUSIVE")
        try:
            with open(logs / "rank_0.log", "a") as fh:
                fh.write("step 1 | loss 1.0\n")
            longest = 0.0
            end = time.monotonic() + 2.5  # two or three saves
            while time.monotonic() < end:
                started = time.monotonic()
                sidecar.step()
                longest = max(longest, time.monotonic() - started)
            assert longest < 0.5, f"a turn of the main loop took {longest:.2f} s"
            assert up() == 0.0
            assert err.getvalue().count("source state is down") == 1  # once, not per poll
            assert "database is locked" in err.getvalue()
            assert sidecar.engine.lines_read == 1
        finally:
            lock.execute("ROLLBACK")
            lock.close()
        end = time.monotonic() + 1.5
        while time.monotonic() < end:
            sidecar.step()
        assert up() == 1.0 and "source state is up again" in err.getvalue()
        assert sidecar.store.pending == 0
    finally:
        sidecar.shutdown()


def test_a_reload_says_that_a_changed_rules_list_waits_for_a_restart(tmp_path: Path) -> None:
    """SIGHUP after the config file's 'rules:' list changed: the sidecar says the new list takes
    effect after a restart (it printed "rules reloaded" and kept the old list in silence)."""
    from detector.sidecar.config import load_config

    logs = tmp_path / "logs"
    logs.mkdir()
    first = tmp_path / "ur"
    first.mkdir()
    (first / "site.yaml").write_text("rules: []\n")
    cfg = tmp_path / "watch.yaml"
    cfg.write_text(f"logs: [{logs}]\nnvml: false\nrules: [{first}]\nstate_dir: {tmp_path / 'state'}\n")
    config = dataclasses.replace(load_config(cfg, environ={}), metrics_addr=None, remediate=False,
                                 processes=ProcessConfig(enabled=False))
    err = io.StringIO()
    sidecar = Sidecar(config, Outside(out=io.StringIO(), err=err, observer_factory=None))
    sidecar.reload()
    assert "takes effect after a restart" not in err.getvalue()
    cfg.write_text(f"logs: [{logs}]\nnvml: false\nrules: [{tmp_path / 'other'}]\nstate_dir: {tmp_path / 'state'}\n")
    sidecar.reload()
    assert "a changed 'rules:' list takes effect after a restart" in err.getvalue()
    sidecar.shutdown()
