"""NCCL's error return traced through its code ("NCCL INFO bootstrap.cc:275 -> 2"), the only sign a
paste kept of a network failure when its WARN line is gone: a system or remote error in the
socket, bootstrap, network-transport or proxy code reads as network when nothing else failed;
an internal error there (the proxy's own teardown) and a CUDA error do not."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of

INIT = ("nd20-01:191191:191191 [0] NCCL INFO Bootstrap : Using ib0:10.0.0.1<0>\n"
        "nd20-01:191191:191191 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so).\n")


def trace(src: str, code: int) -> str:
    return (f"nd20-01:191191:219889 [0] NCCL INFO {src}:621 -> {code}\n"
            f"nd20-01:191191:219889 [0] NCCL INFO init.cc:1303 -> {code}\n"
            f"nd20-01:191191:219889 [0] NCCL INFO group.cc:64 -> {code} [Async thread]\n")


@pytest.mark.parametrize(("src", "code"), [("misc/socket.cc", 2), ("bootstrap.cc", 2), ("transport/net_ib.cc", 6)])
def test_a_network_error_traced_alone_is_network(tmp_path: Path, ruleset: RuleSet, src: str, code: int) -> None:
    [incident] = incidents_of(tmp_path, {"train.log": INIT + trace(src, code)}, ruleset)
    assert (incident.cause, incident.drain) == (Cause.NETWORK, False)


@pytest.mark.parametrize(("src", "code"), [("misc/socket.cc", 3), ("proxy.cc", 3), ("transport/net.cc", 1)])
def test_other_traces_alone_are_no_incident(tmp_path: Path, ruleset: RuleSet, src: str, code: int) -> None:
    assert incidents_of(tmp_path, {"train.log": INIT + trace(src, code)}, ruleset) == []


def test_a_rank_s_own_failure_outranks_the_trace(tmp_path: Path, ruleset: RuleSet) -> None:
    log = INIT + "[rank0]: RuntimeError: CUDA error: an illegal memory access was encountered\n" + trace("proxy.cc", 2)
    [incident] = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert incident.cause is Cause.ILLEGAL_MEMORY_ACCESS


def test_a_worker_whose_name_does_not_resolve_is_the_network_s(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("ssh: Could not resolve hostname job-worker-5.job: Name or service not known\n"
           "ORTE was unable to reliably start one or more daemons.\n")
    [incident] = incidents_of(tmp_path, {"launcher.log": log}, ruleset)
    assert (incident.cause, incident.drain) == (Cause.NETWORK, False)
