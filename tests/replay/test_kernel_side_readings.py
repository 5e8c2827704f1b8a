"""What a node's kernel log adds to the ranks' own lines: kernel logs saved under their node's name
("kern.log.node89", "dmesg-node113.txt"), a hang whose rank's node lost its NFS server (a data
loader stall), the rank an OOM killer or a segfault took (srun's killed task, mpirun's PID, the
rank whose NCCL lines ran in that process). Found with an independent generator of failed runs
(bench/blind2)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.sources.runs import FileKind, _host_of_kernel_name, discover
from detector.types import Cause
from tests.support.replaying import write_run

XID79 = "Jul 19 06:01:36 node89 kernel: [1700070.322652] NVRM: Xid (PCI:0000:47:00): 79, GPU has fallen off the bus.\n"
T0 = dt.datetime(2024, 4, 10, 8, 40, 0)


def _steps(n: int) -> str:
    return "".join(f"{(T0 + dt.timedelta(seconds=i)).strftime('%Y-%m-%d %H:%M:%S')},000 INFO step {i} | loss 2.0 | "
                   "step_ms 1000.0\n" for i in range(1, n))


def _timeout(rank: int) -> str:
    return (f"[rank{rank}]:[E410 08:55:00.000000000 ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog caught collective "
            "operation timeout: WorkNCCL(SeqNum=300, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) "
            "ran for 600045 milliseconds before timing out.\n")


@pytest.mark.parametrize(("name", "host"), [
    ("dmesg-node113.txt", "node113"), ("dmesg-T-ip-10-2-79-229.txt", "ip-10-2-79-229"), ("kern.log.node89", "node89"),
    ("journal-c441-064.log", "c441-064"), ("journalctl-10.2.3.4.log", "10.2.3.4"), ("node3-dmesg.txt", "node3"),
    ("gpu-node-07_kern.log", "gpu-node-07"),
    ("dmesg.txt", None), ("kern.log.1", None), ("dmesg_2024-01-01.txt", None), ("dmesg-T.txt", None),
    ("dmesg_before.txt", None), ("dmesg-after-crash.txt", None), ("dmesg_v2.txt", None), ("dmesg-rank3.txt", None),
    ("dmesg-localhost.txt", None), ("messages-20240101", None),
])
def test_the_node_a_kernel_log_s_name_gives(name: str, host: str | None) -> None:
    assert _host_of_kernel_name(name) == host


def test_a_kernel_log_saved_under_its_node_s_name_is_read(tmp_path: Path, ruleset: RuleSet) -> None:
    """"kern.log.node89" was skipped (no log's suffix): the Xid 79 it holds went unseen and the
    rank's "unspecified launch failure" read as an application fault."""
    run = write_run(tmp_path, {
        "run.log": "[rank10]: RuntimeError: CUDA error: unspecified launch failure\n",
        "kernel/kern.log.node89": XID79,
        "kernel/dmesg-node90.txt": "[1700070.322652] NVRM: loading NVIDIA UNIX x86_64 Kernel Module\n",
    })
    files, _ = discover(run)
    kinds = {f.display: (f.kind, f.node) for f in files}
    assert kinds["kernel/kern.log.node89"] == (FileKind.KERNEL, "node89")
    assert kinds["kernel/dmesg-node90.txt"] == (FileKind.KERNEL, "node90")
    [incident] = replay_path(run, ruleset).incidents
    assert (incident.cause, incident.initiator.node, incident.remediation.drain_node) == (Cause.GPU_HARDWARE, "node89", True)


@pytest.mark.parametrize(("kernel_node", "cause"), [("node08", Cause.DATA_LOADER_STALL), ("node07", Cause.HANG)])
def test_a_hang_whose_rank_s_node_lost_its_nfs_server(tmp_path: Path, ruleset: RuleSet, kernel_node: str,
                                                      cause: Cause) -> None:
    """Rank 1 stopped and rank 0 timed out waiting: a hang, read as a data loader stall when rank
    1's node says its NFS server stopped answering (not when another node says so)."""
    run = write_run(tmp_path, {
        "node07/rank0.log": _steps(300) + _timeout(0),
        "node08/rank1.log": _steps(290),
        f"{kernel_node}/journal.log": f"2024-04-10T08:46:10+0000 {kernel_node} kernel: nfs: server nfs01 not responding, "
                                      "still trying\n",
    })
    [incident] = replay_path(run, ruleset).incidents
    assert (incident.cause, incident.initiator.rank, incident.initiator.node) == (cause, 1, "node08")
    if cause is Cause.DATA_LOADER_STALL:
        assert "NFS server nfs01 stopped answering" in incident.explanation
        assert incident.remediation.drain_node is False


OOM_KERNEL = ("[Wed May 28 03:58:13 2025] Out of memory: Killed process 23396 (python3) total-vm:323939505kB, "
              "anon-rss:152282091kB, file-rss:890696kB, shmem-rss:8314114kB, UID:1000 pgtables:477595kB oom_score_adj:0\n")


@pytest.mark.parametrize(("killed", "terminated", "rank"), [
    ("task 3", "tasks 0-2,4-7", 3),
    ("tasks 3,5", "tasks 0-2,4,6-7", None),  # two tasks killed: which one the OOM killer took, nothing says
])
def test_the_oom_killer_s_victim_is_the_task_srun_saw_killed(tmp_path: Path, ruleset: RuleSet, killed: str,
                                                             terminated: str, rank: int | None) -> None:
    srun = "".join(f"{r}: step 10 loss 1.0\n" for r in range(8)) + (
        f"srun: error: hgx-b-22: {killed}: Killed\n"
        f"srun: error: hgx-b-22: {terminated}: Terminated\n")
    [incident] = replay_path(write_run(tmp_path, {"slurm-5416511.out": srun, "dmesg-T-hgx-b-22.txt": OOM_KERNEL}),
                             ruleset).incidents
    assert (incident.cause, incident.initiator.rank, incident.initiator.node) == (Cause.HOST_OOM_KILL, rank, "hgx-b-22")
    assert rank is None or rank not in incident.collateral_ranks


def test_a_kernel_segfault_takes_the_rank_mpirun_names_for_its_pid(tmp_path: Path, ruleset: RuleSet) -> None:
    run = write_run(tmp_path, {
        "job.out": "mpirun noticed that process rank 2 with PID 191880 on node node72 exited on signal 11 "
                   "(Segmentation fault).\n",
        "kern.log.node72": "Mar 18 05:56:38 node72 kernel: [3900306.059938] main[191880]: segfault at 7f2a0c000000 ip "
                           "00007f34d6874cb5 sp 00007ffb9d2b3c40 error 4 in libfoo.so[7f3a2b400000+200000]\n",
    })
    [incident] = replay_path(run, ruleset).incidents
    assert (incident.cause, incident.initiator.rank, incident.initiator.node) == (Cause.CRASH_SIGNAL, 2, "node72")


def test_an_oom_kill_takes_the_rank_whose_nccl_lines_ran_in_that_process(tmp_path: Path, ruleset: RuleSet) -> None:
    """The kernel spells the host short (c580-041), NCCL in full (c580-041.hpc.example.edu)."""
    nccl = ("c580-041.hpc.example.edu:15580:15649 [0] NCCL INFO ncclCommInitRank comm 0x561806787568 rank 14 nranks 16 "
            "cudaDev 0 nvmlDev 0 busId 7000 commId 0x7b6f9b9420c2a673 - Init COMPLETE\n"
            "c580-041.hpc.example.edu:15582:15650 [1] NCCL INFO ncclCommInitRank comm 0x561806787569 rank 15 nranks 16 "
            "cudaDev 1 nvmlDev 1 busId 8000 commId 0x7b6f9b9420c2a673 - Init COMPLETE\n")
    kernel = ("Aug 28 11:50:05 c580-041 kernel: [1130601.038039] Out of memory: Killed process 15580 (pt_main_thread) "
              "total-vm:323939505kB, anon-rss:152282091kB, file-rss:890696kB, shmem-rss:0kB, UID:1000 pgtables:477595kB "
              "oom_score_adj:0\n")
    [incident] = replay_path(write_run(tmp_path, {"c580-041.log": nccl, "kern.log.c580-041": kernel}), ruleset).incidents
    assert (incident.cause, incident.initiator.rank) == (Cause.HOST_OOM_KILL, 14)


@pytest.mark.parametrize(("kernel", "cause"), [
    ("Nov 02 13:30:31 ip-10-2-7-91 kernel: NVRM: Xid (PCI:0000:07:00): 79, GPU has fallen off the bus.\n",
     Cause.GPU_HARDWARE),
    # the kernel's fault two hours later is another event: the launch failure stays the application's
    ("Nov 02 15:30:31 ip-10-2-7-91 kernel: NVRM: Xid (PCI:0000:07:00): 79, GPU has fallen off the bus.\n",
     Cause.ILLEGAL_MEMORY_ACCESS),
])
def test_a_launch_failure_before_its_gpu_fell_off_the_bus(tmp_path: Path, ruleset: RuleSet, kernel: str,
                                                          cause: Cause) -> None:
    """The rank's unstamped traceback takes the time of the job's start (the last stamped line
    before it), half an hour before the kernel's Xid 79 for that node: the Xid is the failure and
    the rank that saw it is the initiator (the launch failure read as an application fault)."""
    rank_log = ("[2025-11-02 12:56:59,238] torch.distributed.run: [WARNING] Setting OMP_NUM_THREADS\n"
                "[default0]:ip-10-2-7-91:1234:1234 [0] NCCL INFO Bootstrap : Using eth0:10.2.7.91<0>\n"
                "[default0]:Traceback (most recent call last):\n"
                "[default0]:  File \"train.py\", line 10, in <module>\n"
                "[default0]:RuntimeError: CUDA error: unspecified launch failure\n")
    run = write_run(tmp_path, {"train-3384704-ip-10-2-7-91.out": rank_log,
                               "kernel/journalctl-ip-10-2-7-91.log": kernel})
    [incident] = replay_path(run, ruleset).incidents
    assert (incident.cause, incident.initiator.rank, incident.initiator.node) == (cause, 0, "ip-10-2-7-91")
    assert incident.remediation.drain_node is (cause is Cause.GPU_HARDWARE)
