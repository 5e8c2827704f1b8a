"""A GPU's fault told after the failure it explains: the driver writes its Xid when it gives up on
the GPU (seconds after the rank was killed, a minute after it hung), DCGM's counter shows it a
scrape later. The sidecar first reads the failure without it (a bare SIGKILL, a hang) and reports
that; the GPU's fault then replaces it, once, as gpu_hardware on that rank (before, it was dropped as
the same episode's and the node was never drained). Remediation drains for it but does not
resubmit the job a second time where it was resubmitted for the first reading."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from detector.remediation.model import Outcome
from detector.sidecar.config import DetectionConfig
from detector.sidecar.gate import IncidentGate
from detector.sidecar.state import SidecarStore
from detector.types import RULE_PROCESS_EXITED, Cause, Role
from tests.sidecar.test_sidecar_units import finding
from tests.support.remediation import make, make_incident
from tests.support.sidecar import NOW, SidecarProc, TorchJob, brief

XID79 = "[ 1240.004211] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"


def _gate() -> IncidentGate:
    return IncidentGate(DetectionConfig(settle_s=0.0, collateral_wait_s=0.0, exit_wait_s=0.0), SidecarStore(None))


def _select(gate: IncidentGate, findings: list, now: float) -> list:  # type: ignore[type-arg]
    from detector.attribution.attribute import RunFacts, attribute

    gate.observe(findings, now)
    due = gate.due(now)
    assert due is not None
    return gate.select(attribute(RunFacts(tuple(findings))), due, now)


def test_a_gpu_fault_after_a_hang_replaces_it_once() -> None:
    gate = _gate()
    hang = finding("nccl.desync_rank_stuck", Role.INITIATOR, Cause.HANG, 1, NOW, line=5)
    first = _select(gate, [hang], NOW)
    assert [(i.cause, i.initiator.rank) for i in first] == [(Cause.HANG, 1)]
    xid = finding("xid.fallen_off_bus", Role.INITIATOR, Cause.GPU_HARDWARE, 1, NOW + 60, line=None)
    second = _select(gate, [hang, xid], NOW + 60)
    assert [(i.cause, i.initiator.rank) for i in second] == [(Cause.GPU_HARDWARE, 1)]
    assert gate.replaced_by(second[0].id) == first[0].id
    # once: another GPU line of the same fault says nothing new
    again = finding("xid.gpu_reset_required", Role.INITIATOR, Cause.GPU_HARDWARE, 1, NOW + 61, line=9)
    assert _select(gate, [hang, xid, again], NOW + 61) == []


def test_a_gpu_fault_of_another_rank_replaces_nothing() -> None:
    gate = _gate()
    exited = finding(RULE_PROCESS_EXITED, Role.INITIATOR, Cause.UNKNOWN, 1, NOW, line=None)
    assert [i.initiator.rank for i in _select(gate, [exited], NOW)] == [1]
    other = finding("xid.fallen_off_bus", Role.INITIATOR, Cause.GPU_HARDWARE, 3, NOW + 5, line=None)
    assert _select(gate, [exited, other], NOW + 5) == []


def test_a_gpu_no_rank_uses_or_a_fault_long_after_replaces_nothing() -> None:
    """(a reviewer: another job's GPU on the node, its Xid 25 s after the hang, replaced the hang
    and drained the node; any GPU fault hours later would have)"""
    gate = _gate()
    hang = finding("nccl.desync_rank_stuck", Role.INITIATOR, Cause.HANG, 1, NOW, line=5)
    assert [i.cause for i in _select(gate, [hang], NOW)] == [Cause.HANG]
    other_job = finding("xid.fallen_off_bus", Role.INITIATOR, Cause.GPU_HARDWARE, None, NOW + 25, line=None)
    assert _select(gate, [hang, other_job], NOW + 25) == []
    much_later = finding("xid.gpu_reset_required", Role.INITIATOR, Cause.GPU_HARDWARE, 1, NOW + 1800, line=11)
    assert _select(gate, [hang, other_job, much_later], NOW + 1800) == []


def test_the_replacing_incident_drains_but_does_not_resubmit_again(tmp_path: Path) -> None:
    rem, runner, _ = make(tmp_path)
    hang = make_incident("hang-1", cause=Cause.HANG, drain=False)
    first = rem.handle(hang)
    assert first.outcome is Outcome.ACTED and first.plan.resubmit and not first.plan.drain
    requeues = sum(1 for call in runner.calls if "requeue" in call[0])
    gpu = make_incident("gpu-1", cause=Cause.GPU_HARDWARE)
    second = rem.handle(gpu, replaces="hang-1")
    assert second.plan.drain and not second.plan.resubmit, second.reasons
    assert any("resubmitted for incident hang-1" in r for r in second.reasons)
    assert sum(1 for call in runner.calls if "requeue" in call[0]) == requeues
    # without a first incident acted on, the GPU fault's incident resubmits as ever
    fresh, _, _ = make(tmp_path / "fresh")
    assert fresh.handle(make_incident("gpu-2", cause=Cause.GPU_HARDWARE), replaces="hang-9").plan.resubmit


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


@pytest.mark.slow
def test_a_real_job_killed_then_the_xid_of_its_gpu(tmp_path: Path, cleanup: list[object]) -> None:
    """A real torchrun job (4 ranks) whose rank 1 is SIGKILLed; the kernel log's Xid 79 for rank
    1's GPU comes 4 s after the first incident: a second incident, gpu_hardware on rank 1, that
    replaces the first."""
    (tmp_path / "logs").mkdir()
    kern = tmp_path / "kern.log"
    kern.write_text("[    0.000000] Linux version 6.1.0 (test kernel log)\n")
    sidecar = SidecarProc(tmp_path, ["--logs", str(tmp_path / "logs"), str(tmp_path / "console.log"), "--kmsg", str(kern),
                                     "--no-nvml", "--state", str(tmp_path / "state"), "--node", "node01",
                                     "--rank-gpu", "1=0000:3b:00"])
    cleanup.append(sidecar)
    job = TorchJob(tmp_path, fault="sigkill", rank=1, step=6, steps=14)
    cleanup.insert(0, job)
    assert job.wait(120) is not None
    first = sidecar.wait_incidents(1, timeout=60)
    time.sleep(4.0)
    with open(kern, "a") as fh:
        fh.write(XID79)
    found = sidecar.wait_incidents(2, timeout=60)
    said = "\n".join(brief(i) for i in found) + "\nsidecar stderr:\n" + sidecar.stderr()[-3000:]
    assert first[0]["cause"] != "gpu_hardware", said
    assert found[1]["cause"] == "gpu_hardware" and found[1]["initiator"]["rank"] == 1, said  # type: ignore[index]
    assert found[1]["replaces"] == first[0]["id"], said
    assert found[1]["remediation"]["drain_node"] is True  # type: ignore[index]
    time.sleep(2.0)
    assert len(sidecar.incidents()) == 2, said
    assert sidecar.stop() == 0
