"""Many nodes, for real: two simulated nodes on loopback (two torchrun agents with a static
rendezvous, two ranks each, each with its own log dir, console and kernel-log file), one
sidecar per node exporting its ranks' evidence on /metrics, a real Prometheus scraping both,
and a coordinator that reads the evidence back through Prometheus and names the rank and node
that started the failure. Only the coordinator hands incidents to remediation."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.prometheus import PromServer, free_port, prometheus_server  # noqa: F401 - fixture
from tests.support.sidecar import SidecarProc, TorchJob, brief

pytestmark = pytest.mark.slow


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


def node_sidecar(tmp: Path, node: str, port: int, job: str) -> SidecarProc:
    base = tmp / node
    (base / "logs").mkdir(parents=True)
    (base / "kern.log").write_text("[    0.000000] Linux version 6.1.0\n")
    return SidecarProc(base, ["--logs", str(base / "logs"), str(base / "console.log"), "--kmsg",
                              str(base / "kern.log"), "--no-nvml", "--state", str(base / "state"), "--node", node,
                              "--job", job, "--no-remediate"],
                       name=node, metrics_addr=f"127.0.0.1:{port}")


def test_coordinator_names_the_rank_and_node(tmp_path: Path, prometheus_server: PromServer,  # noqa: F811
                                             cleanup: list[object]) -> None:
    job = "coord-test"
    ports = [free_port(), free_port()]
    node_a = node_sidecar(tmp_path, "nodeA", ports[0], job)
    cleanup.append(node_a)
    node_b = node_sidecar(tmp_path, "nodeB", ports[1], job)
    cleanup.append(node_b)
    prometheus_server.set_targets([f"127.0.0.1:{p}" for p in ports])
    coordinator = SidecarProc(tmp_path, ["--coordinator", "--prometheus", prometheus_server.url, "--job", job,
                                         "--no-nvml", "--state", str(tmp_path / "coord-state")],
                              name="coordinator", metrics_addr="")
    cleanup.append(coordinator)
    master = free_port()
    jobs = []
    for rank, node in enumerate(("nodeA", "nodeB")):
        base = tmp_path / node
        j = TorchJob(base, fault="exception", rank=3, step=6, steps=14, nproc=2, nnodes=2, node_rank=rank,
                     master_port=master, log_dir=base / "logs", console=base / "console.log", name=node)
        cleanup.insert(0, j)
        jobs.append(j)
    prometheus_server.wait_for(f'rankdoctor_rank_info{{training_job="{job}",node="nodeB"}}', timeout=60)
    for j in jobs:
        assert j.wait(120) is not None, "a node's torchrun did not end"
    incidents = coordinator.wait_incidents(1, timeout=30)
    time.sleep(3.0)
    incidents = coordinator.incidents()
    assert len(incidents) == 1, "\n".join(brief(i) for i in incidents)
    incident = incidents[0]
    assert incident["initiator"]["rank"] == 3, brief(incident)
    assert incident["initiator"]["node"] == "nodeB", brief(incident)
    assert incident["cause"] == "python_exception", brief(incident)
    assert set(incident["collateral_ranks"]) >= {0, 1, 2}
    # each node's sidecar saw its own side: nodeB the initiator, nodeA only collateral
    assert any(i["initiator"]["rank"] == 3 for i in node_b.incidents()), [brief(i) for i in node_b.incidents()]
    series = prometheus_server.query(f'rankdoctor_rank_first_error_timestamp_seconds{{training_job="{job}"}}')
    assert {(s["metric"]["node"], s["metric"]["rank"]) for s in series} >= {("nodeB", "3")}
    for sidecar in (coordinator, node_a, node_b):
        assert sidecar.stop() == 0
