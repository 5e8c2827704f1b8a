"""Lines from the sixth session's W and X development cases: the AWS OFI (EFA) plugin's
failures (and its failed start, after which NCCL falls back to sockets), gloo's missing network
interface and its read timeouts, a verbs call whose name has a digit, and argparse rejecting the
launcher's --local-rank."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of


def test_the_ofi_plugin_failing_to_open_its_address_vector_is_that_hosts_network(tmp_path: Path, ruleset: RuleSet) -> None:
    # X-awsofinccl-24
    got = incidents_of(tmp_path, {"train.log": (
        "[1,23]<stdout>:ip-172-32-45-165:72593:73427 [7] NCCL INFO Ring 00 : 23 -> 24 [send] via NET/AWS Libfabric/0\n"
        "[1,23]<stdout>:ip-172-32-45-165:72593:73427 [7] create_nccl_ofi_component:459 NCCL WARN NET/OFI Couldn't "
        "open AV. RC: -22, ERROR: Invalid argument\n")}, ruleset)
    assert [(g.cause, g.rank, g.node) for g in got] == [(Cause.NETWORK, 23, "ip-172-32-45-165")]


def test_the_ofi_plugins_failed_start_with_a_socket_fallback_is_no_incident(tmp_path: Path, ruleset: RuleSet) -> None:
    # X-awsome-386: NCCL goes on over TCP
    got = incidents_of(tmp_path, {"train.log": (
        "(RayTrainWorker pid=954, ip=10.67.132.202) p5-1:954:3133 [6] nccl_net_ofi_create_plugin:1067 NCCL WARN "
        "NET/OFI aws-ofi-nccl initialization failed\n"
        "(RayTrainWorker pid=954, ip=10.67.132.202) p5-1:954:3133 [6] NCCL INFO Using network Socket\n")}, ruleset)
    assert got == []


def test_gloo_without_its_interface_is_the_network_setup(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"test_gloo.log": (
        "    pg = ProcessGroupGloo(prefix_store, rank, world_size, timeout=timeout)\n"
        "RuntimeError: [enforce fail at /root/pytorch/third_party/gloo/gloo/transport/tcp/device.cc:83] ifa != "
        "nullptr. Unable to find address for: bond1\n")}, ruleset)
    assert [g.cause for g in got] == [Cause.NETWORK]
    assert any("bond1" in e for e in got[0].evidence)


def test_gloo_read_timeouts_on_both_nodes_are_the_network_a_reset_is_not(tmp_path: Path, ruleset: RuleSet) -> None:
    line = ("[2026-06-17 06:48:3{s} TP{r}] RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:538] "
            "Read error [{peer}]:35672: Connection {how}\n")
    got = incidents_of(tmp_path / "a", {
        "node0.log": "".join(line.format(s=1, r=r, peer="10.0.0.2", how="timed out") for r in range(4)),
        "node1.log": "".join(line.format(s=0, r=r, peer="10.0.0.1", how="timed out") for r in range(4, 8))}, ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.NETWORK, False)]
    # G-rvc-1882: a reset by the peer is most often the peer's process ending
    got = incidents_of(tmp_path / "b", {"train.log": line.format(s=1, r=0, peer="10.0.0.2", how="reset by peer")},
                       ruleset)
    assert [g.cause for g in got] != [Cause.NETWORK]


def test_a_verbs_call_with_a_digit_in_its_name(tmp_path: Path, ruleset: RuleSet) -> None:
    # W-msswift-6107
    got = incidents_of(tmp_path, {"train.log": (
        "[2025-10-13 10:12:54] iv-node-7:1458548:1480527 [0] misc/ibvwrap.cc:182 NCCL WARN Call to ibv_reg_mr_iova2 "
        "failed with error Invalid argument\n"
        "[rank10]: RuntimeError: NCCL Error 2: unhandled system error (run with NCCL_DEBUG=INFO for details)\n")}, ruleset)
    assert [(g.cause, g.node) for g in got][:1] == [(Cause.NETWORK, "iv-node-7")]


def test_argparse_rejecting_the_launchers_local_rank_is_the_scripts_error(tmp_path: Path, ruleset: RuleSet) -> None:
    # W-violet-17: torch 2's launcher passes --local-rank, the script reads --local_rank
    got = incidents_of(tmp_path, {"train.log": "".join(
        f"usage: main_pretrain.py [-h] [--local_rank LOCAL_RANK]\n"
        f"main_pretrain.py: error: unrecognized arguments: --local-rank={r}\n" for r in range(2))}, ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.PYTHON_EXCEPTION, False)]
    assert any("unrecognized arguments: --local-rank" in e for e in got[0].evidence)
