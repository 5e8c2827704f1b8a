"""The sidecar under real torchrun jobs (torch CPU, gloo, 4 ranks, tests/jobs/train_ddp.py), one
fault per test: each must give exactly one incident naming the right rank and cause.

Each job takes ~15-30 s on two cores (most of it the ranks' start-up). The sidecar follows the
torchrun log dir, the console and a kernel-log file, and sees the rank processes (same host).
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.sidecar import SidecarProc, TorchJob, brief

pytestmark = pytest.mark.slow

XID79 = "[ 1234.567890] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"


@pytest.fixture
def cleanup() -> Iterator[list[object]]:
    """Things to kill at the end whatever happens (jobs first, then sidecars)."""
    items: list[object] = []
    yield items
    for item in items:
        if isinstance(item, TorchJob):
            item.kill()
    for item in items:
        if isinstance(item, SidecarProc):
            item.kill()


def sidecar_args(tmp: Path, *extra: str) -> list[str]:
    (tmp / "logs").mkdir(parents=True, exist_ok=True)
    kern = tmp / "kern.log"
    if not kern.exists():
        kern.write_text("[    0.000000] Linux version 6.1.0 (test kernel log)\n")
    return ["--logs", str(tmp / "logs"), str(tmp / "console.log"), "--kmsg", str(kern), "--no-nvml",
            "--state", str(tmp / "state"), "--node", "node01", *extra]


def only_incident(sidecar: SidecarProc, quiet_s: float = 3.0) -> dict[str, object]:
    first = sidecar.wait_incidents(1, timeout=60)
    time.sleep(quiet_s)  # anything that would make a second incident arrives by now
    found = sidecar.incidents()
    assert len(found) == 1, "expected exactly one incident, got:\n" + "\n".join(brief(i) for i in found)
    assert found[0]["id"] == first[0]["id"]
    return found[0]


def test_sigkill_of_one_rank(tmp_path: Path, cleanup: list[object]) -> None:
    sidecar = SidecarProc(tmp_path, sidecar_args(tmp_path))
    cleanup.append(sidecar)
    job = TorchJob(tmp_path, fault="sigkill", rank=1, step=6, steps=14)
    cleanup.insert(0, job)
    assert job.wait(120) is not None, "torchrun did not end after the SIGKILL"
    incident = only_incident(sidecar)
    assert incident["cause"] == "unknown", brief(incident)  # a bare SIGKILL: who killed it is not said
    assert incident["initiator"]["rank"] == 1, brief(incident)  # type: ignore[index]
    assert incident["initiator"]["node"] == "node01"  # type: ignore[index]
    assert set(incident["collateral_ranks"]) == {0, 2, 3}  # type: ignore[arg-type]
    assert sidecar.stop() == 0


def test_exception_in_one_rank(tmp_path: Path, cleanup: list[object]) -> None:
    sidecar = SidecarProc(tmp_path, sidecar_args(tmp_path))
    cleanup.append(sidecar)
    job = TorchJob(tmp_path, fault="exception", rank=2, step=6, steps=14)
    cleanup.insert(0, job)
    assert job.wait(120) is not None
    incident = only_incident(sidecar)
    assert incident["cause"] == "python_exception", brief(incident)
    assert incident["initiator"]["rank"] == 2, brief(incident)  # type: ignore[index]
    texts = [e["text"] for e in incident["evidence"]]  # type: ignore[attr-defined]
    assert any("injected fault: bad batch at step 6" in t for t in texts)
    assert sidecar.stop() == 0


def test_torchrun_stopped_by_sigterm_is_a_preemption(tmp_path: Path, cleanup: list[object]) -> None:
    """A scheduler's preemption or a user's scancel: SIGTERM to torchrun itself while its workers
    train (found by running real jobs under the sidecar: it said unknown where replay says
    preemption)."""
    sidecar = SidecarProc(tmp_path, sidecar_args(tmp_path))
    cleanup.append(sidecar)
    # (the workers take 8 s to save a checkpoint: torchrun's own traceback, written once they have
    # gone, comes long after the sidecar has read its "Received 15 death signal")
    job = TorchJob(tmp_path, steps=60, extra=("--save-on-sigterm", "8"))
    cleanup.insert(0, job)
    job.wait_for_step(4)
    os.kill(job.proc.pid, signal.SIGTERM)  # (torchrun is the leader of its own session)
    assert job.wait(120) is not None, "torchrun did not end after its SIGTERM"
    incident = only_incident(sidecar)
    assert incident["cause"] == "preemption", brief(incident) + "\n" + job.console_text()[-2000:]
    assert sidecar.stop() == 0


def test_a_straggler_is_said_live_and_the_failure_after_it_too(tmp_path: Path, cleanup: list[object]) -> None:
    """Rank 2 runs 80 ms slower from step 3 and rank 1 raises at step 250: the sidecar says the
    straggler while the job runs (it said nothing: stragglers were replay's alone) and still
    reports the exception as its own incident (the straggler opens no episode)."""
    sidecar = SidecarProc(tmp_path, sidecar_args(tmp_path))
    cleanup.append(sidecar)
    job = TorchJob(tmp_path, fault="slow", rank=2, step=3, steps=400, step_sleep=0.05,
                   extra=("--slow-ms", "80", "--fault", "exception", "--fault-rank", "1", "--fault-step", "250"))
    cleanup.insert(0, job)
    first = sidecar.wait_incidents(1, timeout=120)
    assert first[0]["cause"] == "straggler", brief(first[0])
    assert first[0]["initiator"]["rank"] == 2, brief(first[0])  # type: ignore[index]
    assert job.proc.poll() is None, "the straggler was said only after the job ended"
    assert job.wait(180) is not None
    found = sidecar.wait_incidents(2, timeout=60)
    time.sleep(3.0)
    found = sidecar.incidents()
    assert [(i["cause"], i["initiator"]["rank"]) for i in found] == [  # type: ignore[index]
        ("straggler", 2), ("python_exception", 1)], "\n".join(brief(i) for i in found)
    assert sidecar.stop() == 0


def test_a_healthy_job_has_no_straggler(tmp_path: Path, cleanup: list[object]) -> None:
    sidecar = SidecarProc(tmp_path, sidecar_args(tmp_path))
    cleanup.append(sidecar)
    job = TorchJob(tmp_path, steps=300, step_sleep=0.05)
    cleanup.insert(0, job)
    assert job.wait(180) == 0
    time.sleep(12.0)  # (a check of the step history runs every 10 s)
    assert sidecar.incidents() == [], "\n".join(brief(i) for i in sidecar.incidents())
    assert sidecar.stop() == 0


def test_rank_hanging_before_all_reduce(tmp_path: Path, cleanup: list[object]) -> None:
    """The gloo timeout is 120 s; the hang must be reported long before it, from the stall."""
    sidecar = SidecarProc(tmp_path, sidecar_args(tmp_path, "--hang-floor", "4"))
    cleanup.append(sidecar)
    job = TorchJob(tmp_path, fault="hang", rank=3, step=8, steps=30, pg_timeout=120)
    cleanup.insert(0, job)
    job.wait_for_step(7)
    stalled_at = time.monotonic()
    incident = only_incident(sidecar, quiet_s=2.0)
    waited = time.monotonic() - stalled_at
    said = brief(incident) + "\nsidecar stderr:\n" + sidecar.stderr()[-3000:]  # what it saw, when this fails
    assert incident["cause"] == "hang", said
    assert incident["initiator"]["rank"] == 3, said  # type: ignore[index]
    assert waited < 60, f"hang reported {waited:.0f} s after the last step: not before the 120 s timeout"
    assert job.proc.poll() is None, "the job ended before the hang was reported"
    assert sidecar.stop() == 0


def test_xid_for_the_gpu_of_one_rank_and_rotation_loses_no_line(tmp_path: Path, cleanup: list[object]) -> None:
    """A healthy job; rank 0's log is rotated by rename mid-run, then an Xid 79 is written to the
    kernel log for the GPU mapped to rank 2. One incident (gpu_hardware, rank 2); every line of
    the rotated log read exactly once."""
    sidecar = SidecarProc(tmp_path, sidecar_args(tmp_path, "--rank-gpu", "2=0000:3b:00"))
    cleanup.append(sidecar)
    job = TorchJob(tmp_path, steps=16, ckpt_every=50)
    cleanup.insert(0, job)
    job.wait_for_step(3)
    logs = sorted((tmp_path / "logs").glob("*/attempt_0/0/stderr.log"))
    assert logs, "torchrun log dir not there"
    rank0 = logs[0]
    rotated = rank0.with_name("stderr.log.1")
    rank0.rename(rotated)  # the rank keeps writing to the renamed file; nothing re-creates it
    job.wait_for_step(6)
    with open(tmp_path / "kern.log", "a") as fh:
        fh.write(XID79)
    incident = only_incident(sidecar, quiet_s=1.0)
    assert incident["cause"] == "gpu_hardware", brief(incident)
    assert incident["initiator"]["rank"] == 2, brief(incident)  # type: ignore[index]
    assert incident["initiator"]["gpu"] == "0000:3b:00"  # type: ignore[index]
    assert incident["remediation"]["drain_node"] is True  # type: ignore[index]
    assert job.wait(120) == 0
    time.sleep(1.0)
    assert sidecar.stop() == 0
    with sqlite3.connect(tmp_path / "state" / "sidecar.sqlite3") as db:
        offset, line = db.execute("SELECT offset, line FROM offsets WHERE path = ?", (str(rank0),)).fetchone()
    data = rotated.read_bytes()
    assert offset == len(data), "the rotated log was not read to its end"
    assert line - 1 == data.count(b"\n"), "lines were lost or read twice"
    assert b"training finished" in data


def test_restarted_sidecar_resumes_without_duplicates(tmp_path: Path, cleanup: list[object]) -> None:
    """SIGTERM the sidecar mid-run and start it again on the same state: no line re-read or
    skipped, and the failure after the restart is reported once."""
    args = sidecar_args(tmp_path)
    incidents = tmp_path / "incidents.jsonl"
    first = SidecarProc(tmp_path, args, name="first", incidents=incidents)
    cleanup.append(first)
    job = TorchJob(tmp_path, fault="exception", rank=1, step=12, steps=20)
    cleanup.insert(0, job)
    job.wait_for_step(4)
    assert first.stop() == 0
    time.sleep(1.0)  # lines written while no sidecar runs
    second = SidecarProc(tmp_path, args, name="second", incidents=incidents)
    cleanup.append(second)
    assert job.wait(120) is not None
    incident = only_incident(second)
    assert incident["cause"] == "python_exception" and incident["initiator"]["rank"] == 1, brief(incident)  # type: ignore[index]
    time.sleep(1.0)
    assert second.stop() == 0
    with sqlite3.connect(tmp_path / "state" / "sidecar.sqlite3") as db:
        rows = db.execute("SELECT path, offset, line FROM offsets").fetchall()
    assert len(rows) >= 5
    for path, offset, line in rows:
        if path.endswith("kern.log"):
            continue  # followed from its end: its first line was never read
        data = Path(path).read_bytes()
        assert offset == len(data), f"{path}: read to {offset} of {len(data)} bytes"
        newlines = data.count(b"\n")
        assert line - 1 == newlines, f"{path}: {line - 1} lines counted, {newlines} in the file"
    lines = [json.loads(x) for x in incidents.read_text().splitlines() if x.strip()]
    assert len(lines) == 1
