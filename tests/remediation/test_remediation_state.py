"""The remediation state database found corrupt on opening: moved aside (kept), a fresh one
started with the breaker open, so the lost claims and budgets cannot let anything be drained or
resubmitted twice before a person has looked."""

from __future__ import annotations

from pathlib import Path

from detector.remediation.config import BudgetConfig
from detector.remediation.model import Plan
from detector.remediation.state import RemediationStore
from tests.support.remediation import FakeClock, make_incident

GARBAGE = b"SQLite format 3\x00" + b"\xde\xad\xbe\xef" * 4096
PLAN = Plan(drain=True, resubmit=True, node="n1", reasons=())


def test_a_corrupt_database_is_replaced_with_the_breaker_open(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    path.write_bytes(GARBAGE)
    warnings: list[str] = []
    store = RemediationStore(path, FakeClock(), warn=warnings.append)
    assert store.replaced is not None and store.replaced.read_bytes() == GARBAGE  # never lost
    assert store.replaced.name.startswith("state.sqlite3.corrupt-")
    assert len(warnings) == 1 and str(path) in warnings[0] and str(store.replaced) in warnings[0]
    assert "reset-breaker" in warnings[0]
    breaker = store.breaker()
    assert breaker.open and str(store.replaced) in breaker.reason
    admission = store.admit(make_incident(), PLAN, budget=BudgetConfig(), job="j", job_nodes=8, dry_run=False)
    assert admission.duplicate is None
    assert not admission.plan.drain and not admission.plan.resubmit  # notify only
    store.reset_breaker("operator")
    second = store.admit(make_incident("inc-2"), PLAN, budget=BudgetConfig(), job="j", job_nodes=8, dry_run=False)
    assert second.plan.drain  # after a person's reset, as usual


def test_a_sound_database_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    first = RemediationStore(path, FakeClock())
    first.admit(make_incident(), PLAN, budget=BudgetConfig(), job="j", job_nodes=8, dry_run=False)
    warnings: list[str] = []
    again = RemediationStore(path, FakeClock(), warn=warnings.append)
    assert again.replaced is None and warnings == []
    assert again.previous("inc-1") is not None
    assert list(tmp_path.glob("*.corrupt-*")) == []


def test_the_replacement_is_in_the_audit_log(tmp_path: Path) -> None:
    import json

    from detector.remediation.build import open_state
    from detector.remediation.config import parse_remediation

    cfg = parse_remediation({"state_dir": str(tmp_path / "state")}, "watch.yaml", base_dir=tmp_path, environ={})
    cfg.state_db.parent.mkdir(parents=True, exist_ok=True)
    cfg.state_db.write_bytes(GARBAGE)
    store, _audit = open_state(cfg, FakeClock())
    assert store.replaced is not None
    records = [json.loads(line) for line in cfg.audit_log.read_text().splitlines()]
    assert any(r.get("state") == "open" and str(store.replaced) in json.dumps(r) for r in records), records
