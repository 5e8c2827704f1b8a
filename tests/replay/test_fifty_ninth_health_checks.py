"""Node Health Check (LBNL NHC) takes a node offline for a fault: its own log ("ERROR:  nhc:  Health
check failed:  check_hw_ib: ..."), its offline mark, and the reason Slurm keeps for the node
(slurmctld's "reason set to: NHC: ...", sinfo -R's rows) name the node and the fault. Read as the
run's failure only where the node is one of the run's, the mark came no earlier than the run, and
the run did not complete: a cluster's listing of drained nodes holds other nodes' reasons."""

from __future__ import annotations

from pathlib import Path

from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.sources.runs import _rank_from_name

JOB = "8412712"
NODES = ("gpu-a01", "gpu-a02")


def _ranks(root: Path, *, completed: bool = False) -> None:
    for r in range(16):
        node, local = NODES[r // 8], r % 8
        lines = [f"{node}:22{r:02d}:23{r:02d} [{local}] NCCL INFO comm 0x55d0c8a2fa2b rank {r} nranks 16 cudaDev {local} "
                 f"nvmlDev {local} busId {local + 1}b000 commId 0x3fa1b2c3d4e5f600 - Init COMPLETE"]
        lines += [f"2025-03-13 19:3{i}:00,000 INFO [train] step {800 + i} | loss 2.61 | 1.95 s/it" for i in range(5)]
        if completed:
            lines.append("2025-03-13 19:36:00,000 INFO [train] Training completed. Saving final checkpoint.")
        else:
            lines.append(f"[rank{r}]:[E313 19:41:19.088702262 ProcessGroupNCCL.cpp:607] [Rank {r}] Watchdog caught "
                         "collective operation timeout: WorkNCCL(SeqNum=802633, OpType=ALLREDUCE, NumelIn=2, NumelOut=2, "
                         "Timeout(ms)=600000) ran for 600011 milliseconds before timing out.")
        (root / f"{JOB}-{r}.out").write_text("\n".join(lines) + "\n")


def _verdict(root: Path, ruleset: RuleSet) -> list[tuple[str, str | None]]:
    return [(i.cause.value, i.initiator.node) for i in replay_path(root, ruleset).incidents]


def _nhc_log(root: Path, node: str, check: str, stamp: str) -> None:
    (root / f"nhc-{node}.log").write_text("\n".join([
        "Node Health Check starting.",
        'Running check:  "check_hw_ib 200"',
        'Running check:  "check_gpu_xid"',
        f"ERROR:  nhc:  Health check failed:  {check}",
        f"{stamp} /usr/libexec/nhc/node-mark-offline {node} {check}",
        f"/usr/libexec/nhc/node-mark-offline:  Marking mix {node} offline:  NHC: {check}",
    ]) + "\n")


def test_a_node_nhc_took_offline_for_its_ib_port_is_the_network_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    _ranks(tmp_path)
    _nhc_log(tmp_path, "gpu-a02", "check_hw_ib:  No IB port mlx5_1:1 is ACTIVE (LinkUp 200 Gb/sec).", "20250313 19:45:02")
    assert _verdict(tmp_path, ruleset)[:1] == [("network", "gpu-a02")]


def test_a_gpu_xid_in_slurms_reason_for_a_node_of_the_job(tmp_path: Path, ruleset: RuleSet) -> None:
    _ranks(tmp_path)
    (tmp_path / "slurmctld.log").write_text(
        "[2025-03-13T19:44:51.201] update_node: node gpu-a01 reason set to: NHC: check_gpu_xid:  Xid 95 on GPU 0000:3b:00.0\n")
    assert _verdict(tmp_path, ruleset)[:1] == [("ecc_memory", "gpu-a01")]


def test_a_drained_node_of_another_job_in_sinfo_is_not_the_runs(tmp_path: Path, ruleset: RuleSet) -> None:
    _ranks(tmp_path)
    (tmp_path / "sinfo-R.txt").write_text(
        '$ sinfo -R -o "%60E %9u %19H %N"\n'
        "REASON                                                       USER      TIMESTAMP           NODELIST\n"
        "NHC: check_gpu_xid:  Xid 79 on GPU 0000:ab:00.0              root      2025-03-13T19:43:02 gpu-b17\n"
        "NHC: check_fs_mount:  /scratch not mounted                   root      2025-03-13T19:44:04 gpu-a02\n")
    verdict = _verdict(tmp_path, ruleset)
    assert verdict and all(cause != "gpu_hardware" and node != "gpu-b17" for cause, node in verdict), verdict


def test_a_node_taken_offline_before_the_run_started_is_not_its_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    _ranks(tmp_path)
    _nhc_log(tmp_path, "gpu-a02", "check_hw_ib:  No IB port mlx5_1:1 is ACTIVE (LinkUp 200 Gb/sec).", "20250311 08:02:40")
    verdict = _verdict(tmp_path, ruleset)
    assert verdict and verdict[0][0] != "network", verdict


def test_a_node_drained_after_the_run_completed_leaves_it_healthy(tmp_path: Path, ruleset: RuleSet) -> None:
    _ranks(tmp_path, completed=True)
    (tmp_path / "slurmctld.log").write_text(
        "[2025-03-13T19:52:12.940] update_node: node gpu-a02 reason set to: NHC: GPU row remap pending\n")
    assert _verdict(tmp_path, ruleset) == []


def test_a_reason_that_names_no_node_is_not_read_as_the_runs(tmp_path: Path, ruleset: RuleSet) -> None:
    """scontrol show node's Reason= lines: the node is on another line of a listing of many."""
    _ranks(tmp_path)
    (tmp_path / "scontrol-show-node.txt").write_text(
        "NodeName=gpu-b17 Arch=x86_64 CoresPerSocket=32\n"
        "   State=DRAIN ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A\n"
        "   Reason=NHC: check_gpu_xid:  Xid 79 on GPU 0000:87:00.0 [root@2025-03-13T19:43:07]\n")
    verdict = _verdict(tmp_path, ruleset)
    assert verdict and all(cause != "gpu_hardware" for cause, _node in verdict), verdict


def test_an_ec2_host_name_in_a_file_name_is_no_job_and_task() -> None:
    assert _rank_from_name("nhc-ip-10-2-196-249.log") is None
    assert _rank_from_name("ip-10-2-196-249.ec2.internal.log") is None
    assert _rank_from_name("8412712-14.out") == 14


def test_an_xid_79_in_slurmctlds_reason_reads_as_the_gpu(tmp_path: Path, ruleset: RuleSet) -> None:
    """(slurmctld's update_node line is matched by a context rule too: the generic Xid reading
    must not give way to it)"""
    _ranks(tmp_path)
    (tmp_path / "slurmctld.log").write_text(
        "[2025-03-13T19:44:51.201] update_node: node gpu-a02 reason set to: NHC: check_gpu_xid:  Xid 79 on GPU 0000:3b:00.0\n")
    assert _verdict(tmp_path, ruleset)[:1] == [("gpu_hardware", "gpu-a02")]


def test_a_drain_days_after_the_run_is_not_its_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    _ranks(tmp_path)
    (tmp_path / "slurmctld.log").write_text(
        "[2025-03-16T02:10:00.000] update_node: node gpu-a02 reason set to: NHC: check_hw_ib:  No IB port mlx5_1:1 is "
        "ACTIVE (LinkUp 200 Gb/sec).\n")
    verdict = _verdict(tmp_path, ruleset)
    assert verdict and all(cause != "network" for cause, _node in verdict), verdict


def test_nhc_putting_a_node_back_online_is_no_fault(tmp_path: Path, ruleset: RuleSet) -> None:
    _ranks(tmp_path)
    (tmp_path / "gpu-a02").mkdir()
    (tmp_path / "gpu-a02" / "nhc.log").write_text(
        "20250313 19:45:02 [slurm] /usr/libexec/nhc/node-mark-online gpu-a02\n"
        "/usr/libexec/nhc/node-mark-online:  Marking gpu-a02 online and clearing note (NHC: check_hw_ib:  No IB port "
        "mlx5_1:1 is ACTIVE (LinkUp 200 Gb/sec).)\n")
    verdict = _verdict(tmp_path, ruleset)
    assert verdict and all(cause != "network" for cause, _node in verdict), verdict


def test_a_drained_nodes_listing_does_not_name_a_run_whose_nodes_are_unknown(tmp_path: Path, ruleset: RuleSet) -> None:
    for r in range(4):
        (tmp_path / f"rank{r}.log").write_text(
            f"[rank{r}]:[E313 19:41:19.088702262 ProcessGroupNCCL.cpp:607] [Rank {r}] Watchdog caught collective "
            "operation timeout: WorkNCCL(SeqNum=802633, OpType=ALLREDUCE, NumelIn=2, NumelOut=2, Timeout(ms)=600000) "
            "ran for 600011 milliseconds before timing out.\n")
    (tmp_path / "sinfo-R.txt").write_text(
        "REASON                                                       USER      TIMESTAMP           NODELIST\n"
        "NHC: check_gpu_xid:  Xid 79 on GPU 0000:ab:00.0              root      2025-03-13T19:43:02 gpu-b17\n")
    verdict = _verdict(tmp_path, ruleset)
    assert verdict and all(node != "gpu-b17" for _cause, node in verdict), verdict


def test_an_nhc_log_named_for_its_node_names_it(tmp_path: Path, ruleset: RuleSet) -> None:
    """Its error line alone (no offline mark, which names the node in its text): the file's name does."""
    _ranks(tmp_path)
    (tmp_path / "nhc-gpu-a02.log").write_text(
        "ERROR:  nhc:  Health check failed:  check_hw_ib:  No IB port mlx5_1:1 is ACTIVE (LinkUp 200 Gb/sec).\n")
    assert _verdict(tmp_path, ruleset)[:1] == [("network", "gpu-a02")]
    assert _rank_from_name("nhc-node-3.log") is None


def test_slurmctlds_drain_of_some_node_does_not_name_a_run_whose_nodes_are_unknown(tmp_path: Path,
                                                                                  ruleset: RuleSet) -> None:
    """(the controller's line names its node, which is no file's own node)"""
    for r in range(4):
        (tmp_path / f"rank{r}.log").write_text(f"2025-10-14 19:00:0{r},000 INFO step 100 | loss 2.1\n")
    (tmp_path / "slurmctld.log.excerpt").write_text(
        "[2025-10-14T19:07:07.738] update_node: node c4-gpu10 reason set to: NHC: check_nv_xid: Xid 79 on GPU 7\n")
    assert _verdict(tmp_path, ruleset) == []


def test_nhc_in_a_clusters_aggregated_syslog_names_its_lines_host(tmp_path: Path, ruleset: RuleSet) -> None:
    _ranks(tmp_path)
    (tmp_path / "messages-cluster.log").write_text(
        "Mar 13 19:44:58 gpu-a01 systemd[1]: Started Session 4411 of user slurm.\n"
        "Mar 13 19:45:02 gpu-a02 nhc[88122]: ERROR:  nhc:  Health check failed:  check_hw_ib:  No IB port mlx5_1:1 "
        "is ACTIVE (LinkUp 200 Gb/sec).\n")
    assert _verdict(tmp_path, ruleset)[:1] == [("network", "gpu-a02")]
