"""The thirty-seventh session's run layouts: an Xid 154 recovery action after the fault it follows,
an application Xid of a tool's process (a DCGM diagnostic), the pods of a job one after another in
one "kubectl logs --prefix" file, a bug report whose dmesg paste keeps an older boot's Xid, and a
kernel log named for its node with a word before the node's name."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from detector.pipeline.scan import scan_file
from detector.rules.engine import RuleSet
from detector.sources.runs import FileKind, LogFile
from detector.types import Cause
from tests.support.replaying import incidents_of


def _watchdog_cuda_error(rank: int, error: str) -> str:
    return (f"[rank{rank}]:[E0624 11:18:50.35822965{rank} ProcessGroupNCCL.cpp:684] [PG ID 0 PG GUID 0(default_pg) "
            f"Rank {rank}] Process group watchdog thread terminated with exception: CUDA error: {error}\n")


@pytest.mark.parametrize("first, cause", [
    ("74, pid=1358192, name=python3, NVLink: fatal error detected on link 4(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)",
     Cause.NVLINK),
    # (the recovery action alone still says the GPU needs a reset)
    (None, Cause.GPU_HARDWARE),
])
def test_a_recovery_action_after_a_fault_is_that_faults(tmp_path: Path, ruleset: RuleSet, first: str | None,
                                                         cause: Cause) -> None:
    kernel = f"[332892.366741] NVRM: Xid (PCI:0000:18:00): {first}\n" if first else ""
    kernel += "[332892.866741] NVRM: Xid (PCI:0000:18:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)\n"
    seen = incidents_of(tmp_path / "run", {"node07/dmesg.log": kernel}, ruleset)
    assert seen and seen[0].cause is cause and seen[0].drain, seen


@pytest.mark.parametrize("name, cause", [("dcgmi", Cause.HANG), ("python3", Cause.ILLEGAL_MEMORY_ACCESS)])
def test_an_application_xid_of_a_tools_process_is_not_the_jobs(tmp_path: Path, ruleset: RuleSet, name: str,
                                                               cause: Cause) -> None:
    ranks = "".join(
        f"[rank{r}]:[E0702 17:29:46.64977144{r} ProcessGroupNCCL.cpp:632] [PG ID 0 PG GUID 0(default_pg) Rank {r}] "
        f"Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7041, OpType=ALLREDUCE, NumelIn=8, NumelOut=8, "
        "Timeout(ms)=600000) ran for 600028 milliseconds before timing out.\n" for r in range(3))
    kernel = f"[499861.353398] NVRM: Xid (PCI:0000:0f:00): 43, pid=1338108, name={name}, Ch 00000020, engmask 00000101\n"
    seen = incidents_of(tmp_path / "run", {"node07/train.log": ranks, "node07/dmesg.log": kernel}, ruleset)
    assert seen and seen[0].cause is cause, seen


def _pod(name: str, ranks: tuple[int, int], odd: int | None) -> str:
    lines = [
        "*****************************************",
        "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being "
        "overloaded, please further tune the variable for optimal performance in your application as needed.",
        "*****************************************",
    ]
    lines += [f"[rank{r}]:[I0702 16:50:0{r}.000000000 ProcessGroupNCCL.cpp:952] step {s} loss 2.1" for s in range(30)
              for r in ranks]
    for r in ranks:
        op, numel = ("ALLREDUCE", 16) if r == odd else ("_REDUCE_SCATTER_BASE", 8)
        lines.append(f"[rank{r}]:[E0702 17:29:46.64977144{r} ProcessGroupNCCL.cpp:632] [PG ID 0 PG GUID 0(default_pg) "
                     f"Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7041, OpType={op}, "
                     f"NumelIn={numel}, NumelOut={numel}, Timeout(ms)=600000) ran for 600028 milliseconds before timing out.")
    lines += [
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "============================================================",
        "run_clm.py FAILED",
        "------------------------------------------------------------",
        "Root Cause (first observed failure):",
        f"[0]:\n  time      : 2026-07-02_17:29:46\n  host      : {name}\n  rank      : {ranks[0]} (local_rank: 0)",
        "  exitcode  : -6 (pid: 179)\n  error_file: <N/A>\n  traceback : Signal 6 (SIGABRT) received by PID 179",
        "============================================================",
    ]
    return "".join(f"[pod/{name}/pytorch] {line}\n" for text in lines for line in text.split("\n"))


def test_pods_one_after_another_in_one_kubectl_prefix_file(tmp_path: Path, ruleset: RuleSet) -> None:
    """The second pod's start-up banner after the first pod's exit summary is that pod's start, not
    a relaunch of the first: the first pod's ranks' timeouts still count, and each line's pod is
    its node."""
    text = _pod("bert-mlm-worker-0", (0, 1), None) + _pod("bert-mlm-worker-1", (2, 3), 3)
    seen = incidents_of(tmp_path / "run", {"kubectl-logs-prefix.txt": text}, ruleset)
    assert seen and seen[0].cause is Cause.COLLECTIVE_MISMATCH, seen
    assert seen[0].rank == 3 and seen[0].node == "bert-mlm-worker-1", seen


def test_a_kernel_line_pasted_among_the_jobs_is_not_when_the_job_began(tmp_path: Path, ruleset: RuleSet) -> None:
    """A bug report with no stamp in its first lines: the first stamped line of its tail is a dmesg
    line of days before (an older boot's Xid, pasted below the ranks' output); when the job began is
    its own first stamped line, and that older Xid is no fault of this job."""
    # (more lines than the head's first look reads)
    head = "# Training dies after a few hours\n\n" + "".join(f"[rank{r % 8}]: loading shard {r}\n" for r in range(80))
    text = (head + "[Fri Aug 16 06:47:26 2024] NVRM: Xid (PCI:0000:bb:00): 31, pid=66254, name=python3, channel "
            "0x00000008, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC3 GPCCLIENT_T1_4 faulted @ 0x7f2a_81e00000.\n"
            "2024-08-20 18:01:02,123 INFO [rank0] step 10 loss 2.31\n"
            "[rank0]: RuntimeError: DataLoader timed out after 1800 seconds\n")
    path = tmp_path / "ISSUE.md"
    path.write_text(text)
    scan = scan_file(LogFile(path, "ISSUE.md", FileKind.RANK_LOG), ruleset, year=2024)
    assert scan.first_time == datetime(2024, 8, 20, 18, 1, 2, 123000, tzinfo=UTC), scan.first_time
    seen = incidents_of(tmp_path / "run", {"ISSUE.md": text}, ruleset)
    assert seen and seen[0].cause is Cause.DATA_LOADER_STALL, seen


def test_a_kernel_log_named_for_its_node_with_a_word_before_the_name(tmp_path: Path, ruleset: RuleSet) -> None:
    pods = ("NAME               READY   STATUS   RESTARTS   AGE   IP           NODE                  NOMINATED NODE   READINESS GATES\n"
            "train-worker-0     0/1     Error    0          81m   10.20.7.87   gke-a3-pool-2e5a-9911   <none>           <none>\n"
            "train-worker-1     0/1     Error    0          81m   10.20.7.88   gke-a3-pool-2e5a-8758   <none>           <none>\n")
    logs = "".join(f"[pod/train-worker-{r // 2}/trainer] " + _watchdog_cuda_error(r, "uncorrectable ECC error encountered")
                   for r in (3,))
    kernel = ("[Tue Dec  3 08:58:11 2024] NVRM: Xid (PCI:0000:0f:00): 94, pid=1463483, name=python3, Contained: SM (0x1). "
              "RST: No, D-RST: No\n")
    seen = incidents_of(tmp_path / "run", {"kubectl-get-pods-o-wide.txt": pods, "kubectl-logs-prefix.txt": logs,
                                           "node-gke-a3-pool-2e5a-8758-dmesg.txt": kernel}, ruleset)
    assert len(seen) == 1 and seen[0].cause is Cause.ECC_MEMORY, seen
    assert seen[0].rank == 3 and seen[0].node == "gke-a3-pool-2e5a-8758", seen


@pytest.mark.parametrize("kernel_time, cause", [
    ("06:06:42", Cause.GPU_HARDWARE),  # two hours ahead: the node's local time beside the ranks' UTC
    ("06:23:42", Cause.UNKNOWN),  # (no zone makes that gap: a fault long after, not this error's)
])
def test_a_gpu_fault_behind_a_ranks_unknown_cuda_error(tmp_path: Path, ruleset: RuleSet, kernel_time: str,
                                                        cause: Cause) -> None:
    rank = ("2026-11-26T04:06:48.861419981Z [rank5]:[E1126 04:06:48.858764396 ProcessGroupNCCL.cpp:684] [PG ID 0 PG "
            "GUID 0(default_pg) Rank 5] Process group watchdog thread terminated with exception: CUDA error: unknown error\n")
    kernel = f"[Thu Nov 26 {kernel_time} 2026] NVRM: Xid (PCI:0000:90:00): 79, GPU has fallen off the bus.\n"
    seen = incidents_of(tmp_path / "run", {"node07/train.log": rank, "node07/dmesg.log": kernel}, ruleset)
    assert seen and seen[0].cause is cause, seen


@pytest.mark.parametrize("up, failed", [(True, False), (False, True)])
def test_a_link_that_came_back_with_nothing_failed_is_no_incident(tmp_path: Path, ruleset: RuleSet, up: bool,
                                                                   failed: bool) -> None:
    """clush's dmesg of the job's nodes (seconds since boot, no wall clock) with a link that went
    down and came up four seconds later, and a job that trained to its end: no incident. A link
    that stayed down is still reported."""
    diag = "node047: [7847287.816952] mlx5_core 0000:8c:00.0 ens10f0np0: Link down\n"
    if up:
        diag += "node047: [7847291.741018] mlx5_core 0000:8c:00.0 ens10f0np0: Link up\n"
    job = "".join(f"step {s} | loss 4.58 | lr 2.9e-04 | 2.64 s/it\n" for s in range(10500, 10601, 20))
    job += "Training complete: 10600 steps, final checkpoint /checkpoints/llama3-8b/step_0010600\n"
    seen = incidents_of(tmp_path / "run", {"node_diag_20240428.txt": diag, "slurm-2844488.out": job}, ruleset)
    assert bool(seen) is failed, seen


def test_a_timed_flap_beside_ranks_that_print_no_times_and_trained_to_the_end(tmp_path: Path, ruleset: RuleSet) -> None:
    kernel = ("[Mon Jul  7 16:27:20 2025] mlx5_core 0000:ca:00.0 ibp75s0: Link down\n"
              "[Mon Jul  7 16:27:21 2025] mlx5_core 0000:ca:00.0 ibp75s0: Link up\n")
    job = "".join(f"step {s} | loss 4.58 | lr 2.9e-04 | 2.64 s/it\n" for s in range(10500, 10601, 20))
    job += "Training complete: 10600 steps, final checkpoint /checkpoints/llama3-8b/step_0010600\n"
    assert incidents_of(tmp_path / "run", {"node07/dmesg-T.txt": kernel, "train.out": job}, ruleset) == []
