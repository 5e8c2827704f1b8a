"""The thirty-eighth session's run layouts: a training unit's journal (journalctl -u trainer, then
-k, in one file named for its node), syslog lines of a rank's own output, a stack dump of the one
rank a rankless hang waited for, undated GPU faults beside an application's own failure, a short
log's straggler, and a file name's number that is no rank."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.rules.engine import RuleSet
from detector.sources.prefixes import strip_prefix
from detector.types import Cause
from tests.support.replaying import incidents_of


def _journal(host: str, ranks: range, *, lost: int | None, healthy: bool = False, flap: bool = False) -> str:
    """One node's ``journalctl -u trainer -o short-iso`` and ``journalctl -k`` in one file."""
    stamp = "2026-10-05T{}+05:30 " + host
    lines = ['$ journalctl -u trainer -o short-iso --since "2026-10-05 11:26"',
             stamp.format("11:25:59") + " systemd[1]: Started trainer.service - pretraining."]
    for local, rank in enumerate(ranks):
        lines.append(stamp.format(f"11:26:1{local}") + f" torchrun[101651]: [default{local}]:{host}:29950{local}:29980{local} "
                     f"[{local}] NCCL INFO ncclCommInitRank comm 0x294db8b{local} rank {rank} nranks 16 cudaDev {local} "
                     f"nvmlDev {local} busId {local + 1}a000 commId 0xed19423331b40 - Init COMPLETE")
    for minute in range(30, 50):
        for local in range(len(ranks)):
            lines.append(stamp.format(f"11:{minute}:00") + f" torchrun[101651]: [default{local}]:step {minute * 10} "
                         f"loss 2.{minute} step_time 1.0{local}s")
    if healthy:
        lines += [stamp.format("12:17:15") + " torchrun[101651]: [2026-10-05 12:17:15,216] torch.distributed.elastic."
                  "agent.server.api: [INFO] [default] worker group successfully finished. Waiting 300 seconds for "
                  "other agents to finish.",
                  stamp.format("12:17:20") + " systemd[1]: trainer.service: Deactivated successfully."]
    else:
        for local, rank in enumerate(ranks):
            if rank == lost:
                continue
            lines.append(stamp.format("12:02:10") + f" torchrun[101651]: [default{local}]:[rank{rank}]:[E1005 "
                         f"12:02:10.39013897{local} ProcessGroupNCCL.cpp:632] [PG ID 0 PG GUID 0(default_pg) Rank {rank}] "
                         "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=4941, OpType=ALLREDUCE, "
                         "NumelIn=52428800, NumelOut=52428800, Timeout(ms)=600000) ran for 600230 milliseconds before "
                         "timing out.")
        lines.append(stamp.format("12:02:46") + " systemd[1]: trainer.service: Main process exited, code=exited, "
                     "status=1/FAILURE")
    lines += ["", '$ journalctl -k -o short-iso --since "-10d"']
    if lost is not None:
        local = list(ranks).index(lost)
        lines += [stamp.format("11:52:28") + f" kernel: NVRM: GPU at PCI:0000:{local + 1}a:00: GPU-461fea6d-d1c1",
                  stamp.format("11:52:29") + f" kernel: NVRM: Xid (PCI:0000:{local + 1}a:00): 79, GPU has fallen off "
                  "the bus."]
    if flap:
        lines += [stamp.format("11:41:24") + " kernel: mlx5_core 0000:3b:00.0 ibp59s0: Link down",
                  stamp.format("11:41:33") + " kernel: mlx5_core 0000:3b:00.0 ibp59s0: Link up"]
    lines.append(stamp.format("04:06:33").replace("2026-10-05", "2026-10-04") + " kernel: mlx5_core 0000:0c:00.0: "
                 "mlx5_fw_tracer_handle_traces:740:(pid 478): FWTracer: Events were lost")
    return "\n".join(lines) + "\n"


def test_a_training_units_journal_is_its_ranks_log(tmp_path: Path, ruleset: RuleSet) -> None:
    """A file named as a kernel log that opens with the training unit's journal: its ranks' lines
    are read (their NCCL set-up names the lost GPU's rank), its kernel part too."""
    files = {"gpu-a01.journal.txt": _journal("gpu-a01", range(0, 8), lost=None),
             "gpu-a02.journal.txt": _journal("gpu-a02", range(8, 16), lost=12)}
    seen = incidents_of(tmp_path / "run", files, ruleset)
    assert seen and seen[0].cause is Cause.GPU_HARDWARE and seen[0].rank == 12 and seen[0].node == "gpu-a02", seen


def test_a_flap_in_a_journal_of_a_run_that_finished_is_no_incident(tmp_path: Path, ruleset: RuleSet) -> None:
    """The journal's kernel part comes after the unit's lines and keeps older days: the ranks' last
    line is the unit's, an hour after the link came back, and the run finished."""
    files = {f"gpu-a0{n}.journal.txt": _journal(f"gpu-a0{n}", range(8 * (n - 1), 8 * n), lost=None, healthy=True,
                                                flap=n == 2) for n in (1, 2)}
    assert incidents_of(tmp_path / "run", files, ruleset) == []


@pytest.mark.parametrize("line, rank, local, host", [
    ("Oct  5 11:26:17 gpu-a02 python[101651]: [rank3]: RuntimeError: CUDA error: out of memory", 3, None, "gpu-a02"),
    ("2026-10-05T11:26:17.123456+05:30 gpu-a02 torchrun[4242]: [default4]:gpu-a02:299505:299806 [4] NCCL INFO "
     "ncclCommInitRank comm 0x294db8bf rank 28 nranks 64", None, 4, "gpu-a02"),
    # (the kernel's own lines keep their header: its rules read it)
    ("2026-10-05T11:26:17+05:30 gpu-a02 kernel: NVRM: Xid (PCI:0000:9a:00): 79, GPU has fallen off the bus.", None,
     None, None),
])
def test_a_syslog_header_before_a_ranks_prefix_is_taken_off(line: str, rank: int | None, local: int | None,
                                                            host: str | None) -> None:
    pre = strip_prefix(line)
    assert (pre.rank, pre.local_rank, pre.host) == (rank, local, host), pre
    if host is not None:  # (the stamp stays, the program's header goes)
        assert "python[" not in pre.message and "torchrun[" not in pre.message and pre.message[:3] in ("Oct", "202"), pre


_TIMEOUT = ("[rank{r}]:[E0421 21:04:09.39013897{r} ProcessGroupNCCL.cpp:632] [PG ID 0 PG GUID 0(default_pg) Rank {r}] "
            "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=4941, OpType=ALLGATHER, NumelIn=52428800, "
            "NumelOut=52428800, Timeout(ms)=600000) ran for 600230 milliseconds before timing out.\n")

_LOADER_DUMP = """Process 291: /opt/conda/bin/python -u /workspace/pretrain_gpt.py
Python v3.12.9 (/opt/conda/bin/python)

Thread 291 (idle): "MainThread"
    wait (threading.py:324)
    get (queue.py:180)
    _try_get_data (/home/svc/.venv/lib/python3.12/site-packages/torch/utils/data/dataloader.py:1133)
    _get_data (/home/svc/.venv/lib/python3.12/site-packages/torch/utils/data/dataloader.py:1294)
    _next_data (/home/svc/.venv/lib/python3.12/site-packages/torch/utils/data/dataloader.py:1448)
    __next__ (/home/svc/.venv/lib/python3.12/site-packages/torch/utils/data/dataloader.py:701)
    train_epoch (/workspace/pretrain_gpt.py:301)

Thread 332 (idle): "Thread-2 (_pin_memory_loop)"
    select (selectors.py:415)
"""


@pytest.mark.parametrize("dumped, cause, rank", [
    (21, Cause.DATA_LOADER_STALL, 21),
    # (a rank that timed out in a collective itself waited for another: still a hang)
    (1, Cause.HANG, None),
])
def test_a_loader_dump_of_the_one_rank_a_hang_waited_for(tmp_path: Path, ruleset: RuleSet, dumped: int, cause: Cause,
                                                          rank: int | None) -> None:
    consoles = {"master-0.log" if r < 2 else "worker-24.log": "" for r in (0, 1, 50, 51)}
    for r in (0, 1, 50, 51):
        consoles["master-0.log" if r < 2 else "worker-24.log"] += _TIMEOUT.format(r=r)
    consoles[f"py-spy-dump-rank{dumped}.txt"] = _LOADER_DUMP
    seen = incidents_of(tmp_path / "run", consoles, ruleset)
    assert seen and seen[0].cause is cause and seen[0].rank == rank, seen


_SKYPILOT = """(head, rank=0, pid=9675) ip-10-128-37-65:2373795:2373886 [3] NCCL INFO ncclCommInitRank comm 0xfa521456 rank 3 nranks 4 cudaDev 3 nvmlDev 3 busId 4e000 commId 0x1 - Init COMPLETE
(head, rank=0, pid=9675) [rank3]: Traceback (most recent call last):
(head, rank=0, pid=9675) [rank3]:   File "/workspace/utils/metrics.py", line 44, in update
(head, rank=0, pid=9675) [rank3]: ZeroDivisionError: float division by zero
"""


@pytest.mark.parametrize("failed, cause", [(True, Cause.PYTHON_EXCEPTION), (False, Cause.ECC_MEMORY)])
def test_an_undated_gpu_fault_a_diagnostic_met(tmp_path: Path, ruleset: RuleSet, failed: bool, cause: Cause) -> None:
    """A DCGM diagnostic runs on an idle GPU: an undated fault it met is not the job's, where a rank's
    own log shows the application failing by itself; with nothing else failing, it is what shows."""
    kernel = ("[90584.358522] NVRM: Xid (PCI:0000:4e:00): 48, pid=351016, name=dcgmi, An uncorrectable double "
              "bit error (DBE) has been detected on GPU in the framebuffer at physAddr 0x2c41f7e0.\n")
    log = _SKYPILOT if failed else _SKYPILOT.split("\n")[0] + "\n"
    seen = incidents_of(tmp_path / "run", {"run.log": log, "dmesg-head.txt": kernel}, ruleset)
    assert seen and seen[0].cause is cause, seen


def test_an_undated_gpu_fault_on_a_node_whose_ranks_did_not_fail(tmp_path: Path, ruleset: RuleSet) -> None:
    """An undated GPU loss on one node, a rank's out-of-memory traceback on another and nothing
    failing on the first: the kernel's log keeps an older day's fault (a GPU lost under a rank
    fails that rank)."""
    oom = ("[rank9]: Traceback (most recent call last):\n"
           '[rank9]:   File "/workspace/train.py", line 88, in <module>\n'
           "[rank9]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.91 GiB. GPU 1 has a total "
           "capacity of 79.15 GiB of which 1.2 GiB is free.\n")
    kernel = ("3,54295,2397993400775,-;NVRM: Xid (PCI:0000:52:00): 79, pid='<unknown>', name=<unknown>, GPU has "
              "fallen off the bus.\n")
    files = {"node03/train.log": oom, "kern-node07.log": kernel}
    seen = incidents_of(tmp_path / "run", files, ruleset)
    assert seen and seen[0].cause is Cause.CUDA_OOM and seen[0].rank == 9, seen
    # (with the OOM gone, the fault is what the run shows)
    seen = incidents_of(tmp_path / "run2", {"node03/train.log": "step 1 loss 2.0\n", "kern-node07.log": kernel}, ruleset)
    assert seen and seen[0].cause is Cause.GPU_HARDWARE, seen


def test_a_short_logs_straggler_slow_from_its_middle(tmp_path: Path, ruleset: RuleSet) -> None:
    """Eighteen timing lines per rank, rank 3 slower from the tenth to the end: too few lines for
    three windows of the change, judged line by line as a shorter log's are."""
    lines = []
    for i in range(18):
        for r in range(4):
            fwd = 3.2 if r == 3 and i >= 10 else 1.3 + 0.01 * r
            lines.append(f"[2025-06-09 {7 + i // 2:02d}:{(i % 2) * 30:02d}:43,840][rank {r}] step {15656 + 829 * i} "
                         f"timing: data 0.01{r}s fwd_bwd {fwd:.3f}s optim 0.093s allreduce_wait 0.010s")
    seen = incidents_of(tmp_path / "run", {"cell_output.txt": "\n".join(lines) + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.STRAGGLER and seen[0].rank == 3, seen


@pytest.mark.parametrize("name, nranks", [("metaflow-99855-train-12.log", 64), ("metaflow-99855-train-115.log", 64)])
def test_a_file_names_number_is_no_rank_where_nccl_names_another(tmp_path: Path, ruleset: RuleSet, name: str,
                                                                 nranks: int) -> None:
    """A workflow's task log named for the task's id: NCCL's set-up line in it names another rank
    (12), or the job has fewer ranks than the number (115 of 64): the name gives no rank."""
    log = (f"ip-10-0-0-55:2544541:2544842 [0] NCCL INFO ncclCommInitRank comm 0x01a7d400 rank 30 nranks {nranks} "
           "cudaDev 0 nvmlDev 0 busId f000 commId 0x294f4bac680d7489 - Init COMPLETE\n"
           "double free or corruption (!prev)\n")
    seen = incidents_of(tmp_path / "run", {name: log}, ruleset)
    assert seen and seen[0].cause is Cause.CRASH_SIGNAL and seen[0].rank in (None, 30), seen


def test_autograd_anomaly_mode_names_the_backward_that_raised(tmp_path: Path, ruleset: RuleSet) -> None:
    """Anomaly mode's report of the backward function that raised, the exception itself cut from
    the paste, a peer's monitored barrier pointing at the rank: an exception, not an unknown, and
    the rank the barrier names."""
    log = ("[E ProcessGroupGloo.cpp:137] Rank 1 successfully reached monitoredBarrier, but received errors while "
           "waiting for send/recv from rank 0. Please check rank 0 logs for faulty rank.\n"
           "/torch/autograd/__init__.py:197: UserWarning: Error detected in torch::autograd::AccumulateGrad. "
           "Traceback of forward call that caused the error:\n"
           '  File "/vosk-tts/training/train_finetune.py", line 228, in run\n'
           "    net_dur_disc = DDP(net_dur_disc, device_ids=[rank], find_unused_parameters=True)\n")
    seen = incidents_of(tmp_path / "run", {"console.log": log}, ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION and seen[0].rank == 0, seen


@pytest.mark.parametrize("xid_day, cause", [("Sep 27 13:31:53", Cause.HOST_OOM_KILL), ("Oct  1 15:21:10", Cause.GPU_HARDWARE)])
def test_a_gpu_fault_days_before_the_jobs_first_timed_failure(tmp_path: Path, ruleset: RuleSet, xid_day: str,
                                                              cause: Cause) -> None:
    """No rank's line has a time; the kernel logs an OOM kill of a rank's process and, on another
    node, a GPU lost four days before it (an older job's, the node reset since) or minutes before."""
    task = ("srun: error: gpu141: task 498: Out Of Memory\n"
            "slurmstepd: error: Detected 1 oom_kill event in StepId=9751454.0. Some of the step tasks have been "
            "OOM Killed.\n")
    files = {"llm-pretrain-9751454-498.out": task,
             "kern-gpu141.log": "Oct  1 15:33:48 gpu141 kernel: Out of memory: Killed process 3778011 (python3) "
                                "total-vm:376260230kB, anon-rss:322961408kB, file-rss:642534kB, shmem-rss:278812kB\n",
             "kern-gpu133.log": f"{xid_day} gpu133 kernel: NVRM: Xid (PCI:0000:ab:00): 79, pid='<unknown>', "
                                "name=<unknown>, GPU has fallen off the bus.\n"}
    seen = incidents_of(tmp_path / "run", files, ruleset)
    assert seen and seen[0].cause is cause, seen
