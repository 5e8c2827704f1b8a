"""The remediation breaker in /metrics: read from the remediation state on each scrape (a reset
by another process shows at once), no sample while remediation is off or its state unreadable."""

from __future__ import annotations

from pathlib import Path

from prometheus_client import generate_latest

from detector.remediation.state import RemediationStore
from detector.sidecar.metrics import SidecarMetrics
from detector.support.clock import SystemClock


def _scrape(m: SidecarMetrics) -> str:
    return generate_latest(m.registry).decode()


def test_no_sample_while_remediation_is_off() -> None:
    m = SidecarMetrics("train-42", "node01")
    text = _scrape(m)
    assert "# TYPE rankdoctor_remediation_breaker_open gauge" in text
    assert "rankdoctor_remediation_breaker_open{" not in text


def test_the_breaker_follows_the_state_database(tmp_path: Path) -> None:
    store = RemediationStore(tmp_path / "state.db", SystemClock())
    m = SidecarMetrics("train-42", "node01")
    m.add_breaker(lambda: store.breaker().open)
    assert 'rankdoctor_remediation_breaker_open{node="node01",training_job="train-42"} 0.0' in _scrape(m)
    with store._transaction() as db:  # what the store does when a budget is exceeded
        db.execute("INSERT OR REPLACE INTO breaker (id, open, reason, at, by) VALUES (1, 1, 'budget', 1.0, 'rankdoctor')")
    assert store.breaker().open
    assert 'rankdoctor_remediation_breaker_open{node="node01",training_job="train-42"} 1.0' in _scrape(m)
    store.reset_breaker("alice")
    assert 'rankdoctor_remediation_breaker_open{node="node01",training_job="train-42"} 0.0' in _scrape(m)


def test_an_unreadable_state_gives_no_sample_not_a_failed_scrape() -> None:
    def broken() -> bool:
        raise OSError("database is locked")

    m = SidecarMetrics("train-42", "node01")
    m.add_breaker(broken)
    assert "rankdoctor_remediation_breaker_open{" not in _scrape(m)


def test_a_locked_state_database_gives_no_sample_quickly(tmp_path: Path) -> None:
    """Another process holds the database's write lock: the scrape does not wait for it."""
    import sqlite3
    import time

    store = RemediationStore(tmp_path / "state.db", SystemClock())
    m = SidecarMetrics("train-42", "node01")
    m.add_breaker(lambda: (b.open if (b := store.breaker_now()) is not None else None))
    lock = sqlite3.connect(tmp_path / "state.db", isolation_level=None)
    lock.execute("BEGIN EXCLUSIVE")
    try:
        started = time.monotonic()
        text = _scrape(m)
        assert time.monotonic() - started < 1.0
        assert "rankdoctor_remediation_breaker_open{" not in text
    finally:
        lock.execute("ROLLBACK")
        lock.close()
    assert 'rankdoctor_remediation_breaker_open{node="node01",training_job="train-42"} 0.0' in _scrape(m)
