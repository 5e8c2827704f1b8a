"""Lines from the fifteenth session's development cases (replay_logs/real/EJ-*, EM-*, EO-*): runs
whose processes never connected (a store nobody reached, a firewall Open MPI names, an API server
kubectl cannot reach, torch < 1.12's store connect timeout), a network transport NCCL_NET names
and the host lacks, NCCL < 2.7's peerless "Connection closed by remote peer", and torchrun's
ChildFailedError kept without its summary."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of


def test_a_store_no_client_reached_while_the_client_timed_out_connecting_is_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    # EM-sirzzangblog-20260409: a security-group rule removed between the two nodes; the server's
    # wait for clients is no collective timeout, so the client is no silent (hung) rank
    got = incidents_of(tmp_path, {
        "master-0.log": (
            "[init] host=nccl-master-0 rank=0 ws=2 master=nccl-master:29500\n"
            "Traceback (most recent call last):\n"
            '  File "/tmp/allreduce.py", line 4, in <module>\n'
            "torch.distributed.DistStoreError: Timed out after 121 seconds waiting for clients. 1/2 clients joined.\n"),
        "worker-1.log": (
            "[init] host=nccl-worker-0 rank=1 ws=2 master=nccl-master:29500\n"
            "[E419 13:27:42.301344821 socket.cpp:1011] [c10d] The client socket has timed out after 120000ms "
            "while trying to connect to (nccl-master, 29500).\n"
            "torch.distributed.DistNetworkError: The client socket has timed out after 120000ms while trying to "
            "connect to (nccl-master, 29500).\n")}, ruleset)
    assert [(g.cause, g.drain) for g in got][:1] == [(Cause.NETWORK, False)]


def test_a_watchdog_timeout_beside_a_silent_rank_is_still_a_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    # (the control: a collective timeout on three of four ranks still singles out the fourth)
    lines = "".join(
        f"[rank{r}]:[E1130 17:40:34.227531 1220 ProcessGroupNCCL.cpp:607] [Rank {r}] Watchdog caught collective "
        "operation timeout: WorkNCCL(SeqNum=41, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran "
        "for 600046 milliseconds before timing out.\n" for r in (0, 1, 2))
    got = incidents_of(tmp_path, {"train.log": "[rank3]:[W1130 17:30:34.000000 1221 train.py:10] step 40 loss 1.0\n" + lines},
                       ruleset)
    assert [(g.cause, g.rank) for g in got][:1] == [(Cause.HANG, 3)]


def test_open_mpi_unable_to_complete_a_tcp_connection_is_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"log.txt": (
        "------------------------------------------------------------\n"
        "A process or daemon was unable to complete a TCP connection\n"
        "to another process:\n"
        "  Local host:    psxi1mzh8\n"
        "  Remote host:   psfwnezg3\n"
        "This is usually caused by a firewall on the remote host. Please\n"
        "check that any firewall (e.g., iptables) has been disabled and\n"
        "try again.\n")}, ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.NETWORK, False)]


def test_kubexec_that_cannot_reach_the_api_server_is_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"launcher.log": (
        "+ POD_NAME=caffe-mpi-test-worker-1\n"
        "+ /opt/kube/kubectl exec caffe-mpi-test-worker-1 -- /bin/sh -c  orted -mca ess \"env\"\n"
        "Unable to connect to the server: Connection timed out\n"
        "Unable to connect to the server: Connection timed out\n"
        "--------------------------------------------------------------------------\n"
        "ORTE was unable to reliably start one or more daemons.\n")}, ruleset)
    assert [g.cause for g in got] == [Cause.NETWORK]


def test_the_old_store_connect_timeout_is_the_network_not_an_exception(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"error.txt": (
        "Traceback (most recent call last):\n"
        '  File "/opt/conda/lib/python3.8/site-packages/torch/distributed/rendezvous.py", line 157, in _tcp_rendezvous_handler\n'
        "RuntimeError: connect() timed out. Original timeout was 900000 ms.\n")}, ruleset)
    assert [g.cause for g in got] == [Cause.NETWORK]


def test_a_network_transport_nccl_net_names_and_the_host_lacks_is_the_network_without_a_drain(tmp_path: Path, ruleset: RuleSet) -> None:
    # EO-cscsdocs: NCCL_NET="AWS Libfabric" with the plugin not loaded; nccl-tests says "invalid usage"
    got = incidents_of(tmp_path, {"train.log": (
        "nid006352: Test NCCL failure common.cu:958 'invalid usage (run with NCCL_DEBUG=WARN for details)\n"
        "nid006352:34157:34217 [1] net.cc:626 NCCL WARN Error: network AWS Libfabric not found.\n")}, ruleset)
    assert [(g.cause, g.node, g.drain) for g in got] == [(Cause.NETWORK, "nid006352", False)]


def test_nccl_before_2_7_closing_a_socket_without_naming_the_peer_is_read(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"fragment.log": (
        "seyun:17283:17549 [3] include/socket.h:371 WARN Connection closed by remote peer\n"
        "seyun:17283:17549 [3] INFO transport/net_socket.cu:166 -> 2\n"
        "seyun:17281:17552 [1] INFO bootstrap.cu:259 -> 2\n"
        "seyun:17281:17552 [1] INFO init.cu:413 -> 2\n")}, ruleset)
    assert got and any("Connection closed by remote peer" in e for e in got[0].evidence)


def test_childfailederror_kept_alone_is_a_failure_whose_cause_is_unknown(tmp_path: Path, ruleset: RuleSet) -> None:
    # EO-gitcodeblog-93c1a995: the name is torchrun's summary header, no worker's own exception
    got = incidents_of(tmp_path, {"train.log": (
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError\n"
        "Total persistent parameters: 333312 in 141 params\n")}, ruleset)
    assert [g.cause for g in got] == [Cause.UNKNOWN]


_KERNEL_ECC = (
    "Aug 10 15:36:05 gpu-node-a kernel: NVRM: Xid (PCI:0000:55:00): 48, An uncorrectable double bit error (DBE) "
    "has been detected on GPU in the framebuffer at physAddr 0xe9b9107e0 partition 3, subpartition 0.\n"
    "Aug 10 15:36:05 gpu-node-a kernel: NVRM: Xid (PCI:0000:55:00): 63, pid=2187734, name=python, Row Remapper: "
    "New row (0x0000000e9b9107e0) marked for remapping, reset gpu to activate.\n")
_RANK1_ECC = (
    "[rank1]:[E810 15:36:05.945860779 ProcessGroupNCCL.cpp:1899] [PG ID 0 PG GUID 0(default_pg) Rank 1] Process "
    "group watchdog thread terminated with exception: CUDA error: uncorrectable ECC error encountered\n"
    "terminate called after throwing an instance of 'c10::DistBackendError'\n")
_RANK0_TIMEOUT = (
    "[rank0]:[E810 15:46:05.718597139 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=51753, OpType=ALLREDUCE, NumelIn=5057683, NumelOut=5057683, Timeout(ms)=600000) ran "
    "for 600072 milliseconds before timing out.\n")


def test_a_ranks_ecc_error_and_the_kernels_xid_of_that_moment_are_one_fault_of_that_rank_and_node(tmp_path: Path, ruleset: RuleSet) -> None:
    # EM-sirzzangblog-20260811: the rank logs name no host, the kernel log names the only node
    got = incidents_of(tmp_path, {"kernel.log": _KERNEL_ECC, "rank1.log": _RANK1_ECC, "rank0.log": _RANK0_TIMEOUT}, ruleset)
    assert [(g.cause, g.rank, g.node, g.drain) for g in got] == [(Cause.ECC_MEMORY, 1, "gpu-node-a", True)]


def test_with_a_second_node_named_the_kernels_xid_goes_to_the_unplaced_rank_only_on_a_node_of_no_rank(
        tmp_path: Path, ruleset: RuleSet) -> None:
    # (forty-third session) rank 0 runs on gpu-node-b; the kernel's ECC fault on gpu-node-a, where
    # no log places a rank, and rank 1's own ECC error of the same second: rank 1 ran on gpu-node-a
    other = "gpu-node-b:2231:2231 [0] NCCL INFO comm 0x55d0c8a0 rank 0 nranks 2 cudaDev 0 busId 55000 - Init COMPLETE\n"
    got = incidents_of(tmp_path / "b", {"kernel.log": _KERNEL_ECC, "rank1.log": _RANK1_ECC, "rank0.log": _RANK0_TIMEOUT,
                                        "nccl.log": other}, ruleset)
    assert [(g.cause, g.rank, g.node) for g in got][:1] == [(Cause.ECC_MEMORY, 1, "gpu-node-a")], got
    # a rank the logs place on gpu-node-a (rank 2): the fault may be its, not the unplaced rank's
    placed = other + "gpu-node-a:3131:3131 [0] NCCL INFO comm 0x55d0c8b0 rank 2 nranks 3 cudaDev 0 busId 55000 - Init COMPLETE\n"
    got = incidents_of(tmp_path / "a", {"kernel.log": _KERNEL_ECC, "rank1.log": _RANK1_ECC, "rank0.log": _RANK0_TIMEOUT,
                                        "nccl.log": placed}, ruleset)
    assert (Cause.ECC_MEMORY, 1, "gpu-node-a") not in [(g.cause, g.rank, g.node) for g in got]
    assert any(g.cause is Cause.ECC_MEMORY and g.node == "gpu-node-a" for g in got)


def test_accelerates_shape_check_before_a_collective_is_a_collective_mismatch(tmp_path: Path, ruleset: RuleSet) -> None:
    # EO-hfaccelerate: ACCELERATE_DEBUG_MODE caught different shapes before the broadcast hung
    got = incidents_of(tmp_path, {"train.log": (
        "Traceback (most recent call last):\n"
        '  File "/home/user/test.py", line 15, in main\n'
        "    broadcast_tensor = broadcast(tensor)\n"
        "accelerate.utils.operations.DistributedOperationException:\n"
        "\n"
        "Cannot apply desired operation due to shape mismatches. All shapes across devices must be valid.\n"
        "\n"
        "Operation: `accelerate.utils.operations.broadcast`\n"
        "Input shapes:\n"
        "  - Process 0: [1, 5]\n"
        "  - Process 1: [1, 2, 5]\n")}, ruleset)
    assert [g.cause for g in got] == [Cause.COLLECTIVE_MISMATCH]
