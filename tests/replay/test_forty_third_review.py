"""Runs the forty-third session's second review built, where a new reading had turned a right
diagnosis wrong: each must keep the diagnosis the earlier code gave (tests/replay/data/review43/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of

DATA = Path(__file__).parent / "data" / "review43"

# the run -> its first incident's (cause, rank, node), and a text its evidence must hold
EXPECTED: dict[str, tuple[Cause, int | None, str | None, str]] = {
    # an application Xid naming the engine worker's own pid, then the engine hung and was stopped in
    # order: the server's orderly shutdown does not make the fault another process's
    "vllm_xid_hang": (Cause.ILLEGAL_MEMORY_ACCESS, 1, "dgx-a100-80", "Xid"),
    # the kernel's clock eight hours behind the container's: Xid 79 names the engine's pid
    "zone_79": (Cause.GPU_HARDWARE, None, "dgx-a100-80", "fallen off the bus"),
    # a training script's exception, then Prometheus scraping /metrics (GET 200) for minutes: no progress
    "exc_metrics1": (Cause.PYTHON_EXCEPTION, None, None, "KeyError"),
    # two Ray jobs in one console: the first's success says nothing of the second's failure
    "rayjobs2": (Cause.CUDA_OOM, None, "10.0.0.4", "out of memory"),
    # the engine's own exception, then an unrelated client's 400: the engine's, not a handled request's
    "vllm_dead_plain": (Cause.PYTHON_EXCEPTION, None, None, "AssertionError"),
    # the training program itself not found on g1302, the other tasks' data preparation bar after it
    "execve_map": (Cause.PYTHON_EXCEPTION, None, "g1302", "execve"),
    # Ray's memory monitor killed a worker on 10.10.28.21; other nodes' engines went on, then the
    # killed node's actor died: the kill, not survived
    "ray_kill_died": (Cause.HOST_OOM_KILL, None, "10.10.28.21", "memory pressure"),
    # one node's link down and staying down, two others flapping back up within a second: that node's
    "fabric_one": (Cause.NETWORK, None, "nid001604", "Link is Down"),
    # Open MPI's frames after a trainer's "Training completed" and its final save: a crash in the save
    "save_crash_nohdr": (Cause.CRASH_SIGNAL, None, "gpu-node-3", ""),
    # a hung V0 engine reporting zero throughput between its shared-memory waits: a hang, no progress
    "vllm_hang1": (Cause.HANG, None, None, ""),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_review_runs_keep_their_diagnosis(name: str, tmp_path: Path, ruleset: RuleSet) -> None:
    files = {str(p.relative_to(DATA / name)): p.read_text() for p in sorted((DATA / name).rglob("*")) if p.is_file()}
    seen = incidents_of(tmp_path, files, ruleset)
    cause, rank, node, text = EXPECTED[name]
    assert seen and (seen[0].cause, seen[0].rank, seen[0].node) == (cause, rank, node), seen[:2]
    assert not text or any(text in e for e in seen[0].evidence), seen[0].evidence
