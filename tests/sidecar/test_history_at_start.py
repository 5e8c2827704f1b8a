"""The watch started with no state in a folder that also holds finished runs (a shared /logs of
every past run): their lines, stamped hours before, are read but attributed to no incident, so
their old failures are not reported as new (they were: three old runs' failures at once, and the
live job's failure, in the same episode, never); the live job's failure is reported on its own.
A sidecar tester's scenario, with ``--history 3600`` (detection.history_s; the default, 0,
attributes every line as before: tests and jobs stamped with fixed dates)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.sidecar import SidecarProc, TorchJob, brief

pytestmark = pytest.mark.slow

OLD_RUN = """\
2026-12-06 08:00:01,000 INFO [rank0] started rank 0 world_size 2
2026-12-06 08:00:02,000 INFO [rank0] step 1 | loss 1.0 | step_ms 50.0
[rank0]: Traceback (most recent call last):
[rank0]:   File "/work/train.py", line 88, in <module>
[rank0]: RuntimeError: CUDA error: an illegal memory access was encountered
"""


@pytest.fixture
def cleanup() -> Iterator[list[object]]:
    items: list[object] = []
    yield items
    for item in items:
        if isinstance(item, TorchJob):
            item.kill()
    for item in items:
        if isinstance(item, SidecarProc):
            item.kill()


def _old_runs(logs: Path, count: int) -> None:
    two_hours_ago = time.time() - 7200
    for i in range(count):
        run = logs / f"old-run-{i}"
        run.mkdir(parents=True)
        for rank in (0, 1):
            path = run / f"rank{rank}.log"
            path.write_text(OLD_RUN.replace("rank0", f"rank{rank}").replace("rank 0", f"rank {rank}"))
            os.utime(path, (two_hours_ago, two_hours_ago))


@pytest.mark.parametrize("history", ["3600", "0"])
def test_old_runs_beside_the_live_job(tmp_path: Path, cleanup: list[object], history: str | None) -> None:
    logs = tmp_path / "logs"
    _old_runs(logs, 3)
    kern = tmp_path / "kern.log"
    kern.write_text("[    0.000000] Linux version 6.1.0 (test kernel log)\n")
    args = ["--logs", str(logs), str(tmp_path / "console.log"), "--kmsg", str(kern), "--no-nvml",
            "--state", str(tmp_path / "state"), "--node", "node01", "--history", history]
    sidecar = SidecarProc(tmp_path, args)
    cleanup.append(sidecar)
    if history == "0":  # (every file read: the old runs' failures come at once)
        found = sidecar.wait_incidents(1, timeout=60)
        assert any(i["cause"] == "illegal_memory_access" for i in found), [brief(i) for i in found]
        assert sidecar.stop() == 0
        return
    job = TorchJob(tmp_path, fault="exception", rank=1, step=6, steps=14, log_dir=logs / "live")
    cleanup.insert(0, job)
    assert job.wait(120) is not None
    found = sidecar.wait_incidents(1, timeout=60)
    time.sleep(3.0)
    found = sidecar.incidents()
    said = "\n".join(brief(i) for i in found) + "\nsidecar stderr:\n" + sidecar.stderr()[-3000:]
    assert len(found) == 1, said
    assert found[0]["cause"] == "python_exception" and found[0]["initiator"]["rank"] == 1, said  # type: ignore[index]
    assert sidecar.stop() == 0
