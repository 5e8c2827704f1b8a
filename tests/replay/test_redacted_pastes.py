"""Pastes whose author masked the machine's names before posting: a PCI id (``PCI:...``,
``0000:xx:00``), a host (``xxxxxxxx``, ``<hostname>``, ``HOSTNAME``). The failure is read as it
would be unmasked; a masked name never becomes a node to name or drain."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.rules.engine import RuleSet
from detector.support.hosts import placeholder_host
from detector.types import Cause
from tests.support.replaying import incidents_of


@pytest.mark.parametrize("pci", ["PCI:0000:xx:00", "PCI:XXXX:XX:XX", "PCI:...", "0000:**:00.0"])
def test_an_xid_with_a_masked_pci_id_is_still_read(tmp_path: Path, ruleset: RuleSet, pci: str) -> None:
    log = f"[ 1234.567890] NVRM: Xid ({pci}): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
    [incident] = incidents_of(tmp_path, {"dmesg.txt": log}, ruleset)
    assert incident.cause is Cause.GPU_HARDWARE
    assert incident.node is None


def test_an_application_xid_with_a_masked_pci_id_stays_the_application_s(tmp_path: Path, ruleset: RuleSet) -> None:
    log = "NVRM: Xid (PCI:0000:XX:XX): 13, pid=1234, name=python, Graphics SM Warp Exception on (GPC 1, TPC 0)\n"
    [incident] = incidents_of(tmp_path, {"dmesg.txt": log}, ruleset)
    assert (incident.cause, incident.drain) == (Cause.ILLEGAL_MEMORY_ACCESS, False)


@pytest.mark.parametrize("host", ["xxx", "XXXXXXXX", "<hostname>", "HOSTNAME", "host-xxx", "***"])
def test_a_masked_nccl_host_is_no_node(tmp_path: Path, ruleset: RuleSet, host: str) -> None:
    log = (f"{host}:1234:1240 [0] misc/ibvwrap.cc:262 NCCL WARN NET/IB : Got async event : port error\n"
           f"{host}:1234:1240 [0] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer "
           "10.0.0.2<42444> with error 12, opcode 0, len 0, vendor err 129 (Recv)\n")
    [incident] = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert (incident.cause, incident.node) == (Cause.NETWORK, None)


def test_the_same_lines_from_a_named_host_name_it(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("gpu-node-07:1234:1240 [0] misc/ibvwrap.cc:262 NCCL WARN NET/IB : Got async event : port error\n")
    [incident] = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert (incident.cause, incident.node) == (Cause.NETWORK, "gpu-node-07")


def test_mpirun_with_a_masked_node_keeps_the_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("mpirun noticed that process rank 1 with PID xxxxxx on node xxxxxxxx exited on signal 11 "
           "(Segmentation fault).\n")
    [incident] = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert (incident.cause, incident.rank, incident.node) == (Cause.CRASH_SIGNAL, 1, None)


@pytest.mark.parametrize("name", ["xxx", "XXXX", "x.x.x.x", "***", "<host>", "host", "HOSTNAME", "node",
                                  "gpu-xxx-01", "node.***", "${HOSTNAME}", "{hostname}", "(none)", "unknown"])
def test_placeholders(name: str) -> None:
    assert placeholder_host(name)


@pytest.mark.parametrize("name", ["node15", "gpu-node-07", "dgx-a100-01", "ip-10-0-0-1", "xavier", "box", "hostA",
                                  "nid001321", "x1000c0s0b0n0", "trainer-worker-xxx2q", "nxxx01"])
def test_real_names(name: str) -> None:
    assert not placeholder_host(name)


@pytest.mark.parametrize("node", ["-oProxyCommand=touch${IFS}/tmp/x", "-E/tmp/append", "$(id)", "x;id", "'q'"])
def test_a_node_name_no_host_could_have_is_no_node_nor_an_ssh_argument(tmp_path: Path, ruleset: RuleSet,
                                                                      node: str) -> None:
    """A log line's "node" that no host name could be ("-oProxyCommand=..." is an ssh option even
    quoted) names no node, and the command to run gets no ssh in front of it."""
    from detector.replay import replay_path
    from tests.support.replaying import write_run

    log = f"mpirun noticed that process rank 3 with PID 4242 on node {node} exited on signal 11 (Segmentation fault).\n"
    [incident] = replay_path(write_run(tmp_path, {"mpirun.out": log}), ruleset).incidents
    assert (incident.cause, incident.initiator.rank, incident.initiator.node) == (Cause.CRASH_SIGNAL, 3, None)
    assert "ssh" not in incident.remediation.verify
    assert node not in incident.remediation.verify


def test_the_verify_command_goes_over_ssh_only_to_a_host_shaped_node() -> None:
    from detector.attribution.advice import _on

    assert _on("gpu-node-07", "nvidia-smi") == "ssh gpu-node-07 nvidia-smi"
    assert _on("fe80::1%eth0", "nvidia-smi") == "ssh fe80::1%eth0 nvidia-smi"
    assert _on("-oProxyCommand=sh", "nvidia-smi") == "nvidia-smi"
