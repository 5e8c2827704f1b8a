"""Restarts: ``kill -9`` of the sidecar at random points of a run and while remediation runs.
After every restart on the same state directory, no line is lost (each followed file's saved
offset reaches its end), the incident is reported once, and the remediation hook acts once.

The long version (many kills at random moments) is ``bench/bench_reliability.py restart``.
"""

from __future__ import annotations

import json
import random
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.restart import Trainer, hook_events, setup
from tests.support.sidecar import SidecarProc


@pytest.fixture()
def procs() -> Iterator[list[SidecarProc]]:
    started: list[SidecarProc] = []
    yield started
    for sc in started:
        sc.kill()


def start(tmp: Path, args: list[str], incidents: Path, env: dict[str, str], n: int,
          monkeypatch: pytest.MonkeyPatch) -> SidecarProc:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return SidecarProc(tmp, args, name=f"sidecar{n}", incidents=incidents, metrics_addr="")


def assert_all_read(state: Path, logs: Path) -> None:
    with sqlite3.connect(state / "sidecar.sqlite3") as db:
        rows = dict(db.execute("SELECT path, offset FROM offsets").fetchall())
    for log in sorted(logs.glob("*.log")):
        size = log.stat().st_size
        assert rows.get(str(log)) == size, f"{log.name}: offset {rows.get(str(log))} of {size} bytes"


@pytest.mark.parametrize("seed", [1])
def test_kill9_at_random_points_of_a_run(tmp_path: Path, procs: list[SidecarProc], seed: int,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    logs, args, hook_log, env = setup(tmp_path, hook_sleep=0.0)
    incidents = tmp_path / "incidents.jsonl"
    trainer = Trainer(logs)
    sc = start(tmp_path, args, incidents, env, 0, monkeypatch)
    procs.append(sc)
    trainer.start()
    kills = 0
    deadline = time.monotonic() + 40
    while time.monotonic() < deadline and (trainer.is_alive() or kills < 2):
        time.sleep(rng.uniform(0.2, 1.5))
        sc.kill()  # SIGKILL, no chance to save anything
        kills += 1
        sc = start(tmp_path, args, incidents, env, kills, monkeypatch)
        procs.append(sc)
    trainer.join(30)
    found = sc.wait_incidents(1, timeout=20)
    time.sleep(2.0)  # time for a duplicate to appear, and for the hook
    assert sc.stop() == 0
    assert kills >= 2
    found = [json.loads(x) for x in incidents.read_text().splitlines() if x.strip()]
    assert len(found) == 1, [f"{i['cause']} {i['id']}" for i in found]
    assert found[0]["cause"] == "python_exception" and found[0]["initiator"]["rank"] == 2
    starts = [e for e in hook_events(hook_log) if e["event"] == "start"]
    assert len(starts) == 1, starts
    assert_all_read(tmp_path / "state", logs)


def test_kill9_while_the_hook_runs(tmp_path: Path, procs: list[SidecarProc], monkeypatch: pytest.MonkeyPatch) -> None:
    """The sidecar dies while its (2 s) notify hook runs; the restarted sidecar neither reports
    the incident again nor calls the hook again."""
    logs, args, hook_log, env = setup(tmp_path, hook_sleep=2.0)
    incidents = tmp_path / "incidents.jsonl"
    trainer = Trainer(logs, steps=50, fail_at=20)
    sc = start(tmp_path, args, incidents, env, 0, monkeypatch)
    procs.append(sc)
    trainer.start()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not any(e["event"] == "start" for e in hook_events(hook_log)):
        time.sleep(0.05)
    assert hook_events(hook_log), "the hook started"
    sc.kill()
    trainer.join(30)
    sc = start(tmp_path, args, incidents, env, 1, monkeypatch)
    procs.append(sc)
    time.sleep(3.5)  # the old hook finishes; a second call would have started by now
    assert sc.stop() == 0
    events = hook_events(hook_log)
    assert [e["event"] for e in events] == ["start", "end"], events
    assert len([x for x in incidents.read_text().splitlines() if x.strip()]) == 1
    assert_all_read(tmp_path / "state", logs)
