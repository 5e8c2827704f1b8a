"""`kubectl get pods -o wide` beside the pods' logs: the report names the Kubernetes node a pod ran
on (the host a cordon names), while the ranks keep their pods' names inside (pods of one node number
their processes alike: pid 27 in each); a pod listed on two nodes (an earlier job's listing beside
today's) is named by no node."""

from __future__ import annotations

from pathlib import Path

from detector.replay import replay_path
from detector.rules.engine import RuleSet

_TIMEOUT = ("[rank{r}]:[E313 19:50:19.088702262 ProcessGroupNCCL.cpp:607] [Rank {r}] Watchdog caught collective "
            "operation timeout: WorkNCCL(SeqNum=802633, OpType=ALLREDUCE, NumelIn=2, NumelOut=2, Timeout(ms)=600000) "
            "ran for 600011 milliseconds before timing out.")


def _pod(root: Path, r: int, last: str) -> None:
    (root / f"train-worker-{r}.log").write_text(
        f"train-worker-{r}:27:120 [0] NCCL INFO comm 0x55d0c8a2fa2{r} rank {r} nranks 4 cudaDev 0 nvmlDev {r} "
        f"busId {r + 1}b000 commId 0x3fa1b2c3d4e5f600 - Init COMPLETE\n"
        "2025-03-13 19:30:00,000 INFO step 10 loss 2.3\n" + last + "\n")


def test_pods_of_one_node_keep_their_ranks_and_the_report_names_the_node(tmp_path: Path, ruleset: RuleSet) -> None:
    for r in range(4):
        _pod(tmp_path, r, "[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered" if r == 3
             else _TIMEOUT.format(r=r))
    (tmp_path / "pods.txt").write_text(
        "NAME             READY   STATUS    RESTARTS   AGE   IP            NODE\n"
        + "".join(f"train-worker-{r}   0/1     Error     0          81m   10.20.7.8{r}    gke-a3-pool-n1\n" for r in range(4)))
    incidents = replay_path(tmp_path, ruleset).incidents
    assert incidents and incidents[0].initiator.rank == 3, incidents
    assert incidents[0].initiator.node == "gke-a3-pool-n1"
    assert "train-worker-3 (on node gke-a3-pool-n1)" in incidents[0].explanation


def test_a_pod_listed_on_two_nodes_is_named_by_neither(tmp_path: Path, ruleset: RuleSet) -> None:
    for r in range(2):
        _pod(tmp_path, r, "[rank1]: RuntimeError: CUDA error: uncorrectable ECC error encountered" if r == 1
             else _TIMEOUT.format(r=r))
    (tmp_path / "pods.txt").write_text(
        "$ kubectl get pods -o wide   # yesterday's run\n"
        "NAME             READY   STATUS      RESTARTS   AGE   IP            NODE\n"
        "train-worker-1   0/1     Completed   0          26h   10.20.7.81    gke-a3-pool-old1\n"
        "$ kubectl get pods -o wide\n"
        "NAME             READY   STATUS      RESTARTS   AGE   IP            NODE\n"
        "train-worker-1   0/1     Error       0          81m   10.20.7.91    gke-a3-pool-n1\n")
    incidents = replay_path(tmp_path, ruleset).incidents
    assert incidents and incidents[0].initiator.rank == 1, incidents
    assert incidents[0].initiator.node == "train-worker-1"


def test_kubectl_describe_pod_names_the_node_too(tmp_path: Path, ruleset: RuleSet) -> None:
    for r in range(2):
        _pod(tmp_path, r, "[rank1]: RuntimeError: CUDA error: uncorrectable ECC error encountered" if r == 1
             else _TIMEOUT.format(r=r))
    (tmp_path / "describe-pods.txt").write_text("".join(
        f"Name:             train-worker-{r}\n"
        "Namespace:        training\n"
        "Priority:         0\n"
        "Service Account:  default\n"
        f"Node:             gke-a3-pool-n{r}/10.128.0.1{r}\n"
        "Start Time:       Thu, 13 Mar 2025 19:01:02 +0000\n"
        "Status:           Failed\n\n" for r in range(2)))
    incidents = replay_path(tmp_path, ruleset).incidents
    assert incidents and (incidents[0].initiator.rank, incidents[0].initiator.node) == (1, "gke-a3-pool-n1"), incidents
