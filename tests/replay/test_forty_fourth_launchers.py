"""The forty-fourth session's launcher readings: DeepSpeed's launcher names the process id of each
worker it spawns, which the kernel's OOM killer names when it kills one."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of

_PY = "['/home/ml/envs/train/bin/python', '-u', 'pretrain_gpt.py', '--local_rank={}', '--deepspeed']"


def _ds_log(node_rank_line: bool) -> str:
    lines = []
    for n, host in enumerate(("hpc-h800-58", "hpc-h800-59")):
        if node_rank_line:
            lines.append(f"{host}: [2024-04-18 14:58:44,482] [INFO] [launch.py:152:main] nnodes=2, num_local_procs=4, "
                         f"node_rank={n}")
        for local in range(4):
            lines.append(f"{host}: [2024-04-18 14:58:47,071] [INFO] [launch.py:256:main] process {931900 + 100 * n + local} "
                         f"spawned with command: {_PY.format(local)}")
    lines += [f"hpc-h800-58: steps: {s} loss: 2.5662 iter time (s): 3.606 samples/sec: 70.986" for s in range(60, 70)]
    lines += [f"hpc-h800-58: [2024-04-18 15:03:56,928] [INFO] [launch.py:319:sigkill_handler] Killing subprocess {931900 + i}"
              for i in range(4)]
    lines.append(f"hpc-h800-58: [2024-04-18 15:03:57,128] [ERROR] [launch.py:325:sigkill_handler] {_PY.format(2)} "
                 "exits with return code = -9")
    return "\n".join(lines) + "\n"


def _dmesg(pid: int) -> str:
    # dmesg -T of the node, in its local time two hours ahead of the job's
    return "\n".join([
        "[Thu Apr 18 17:03:56 2024] python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0",
        f"[Thu Apr 18 17:03:56 2024] Out of memory: Killed process {pid} (python3) total-vm:325058560kB, "
        "anon-rss:230686720kB, file-rss:603743kB, shmem-rss:15181888kB, UID:1000 pgtables:256318kB oom_score_adj:0",
    ]) + "\n"


def test_the_oom_killer_s_pid_names_the_deepspeed_worker_it_killed(tmp_path: Path, ruleset: RuleSet) -> None:
    # local rank 2 of node_rank 0 exited on SIGKILL; the node's kernel killed pid 931902, the pid
    # DeepSpeed's launcher spawned for local rank 2 there
    seen = incidents_of(tmp_path, {"train.log": _ds_log(True), "dmesg_hpc-h800-58.txt": _dmesg(931902)}, ruleset)
    assert seen and seen[0].cause is Cause.HOST_OOM_KILL and seen[0].rank == 2 and seen[0].node == "hpc-h800-58", seen


def test_an_oom_kill_of_another_pid_is_not_the_worker_s(tmp_path: Path, ruleset: RuleSet) -> None:
    # the kernel killed a process the launcher never spawned, two hours (the zone) away: not named
    seen = incidents_of(tmp_path, {"train.log": _ds_log(True), "dmesg_hpc-h800-58.txt": _dmesg(55555)}, ruleset)
    assert seen and not (seen[0].cause is Cause.HOST_OOM_KILL and seen[0].rank == 2), seen


def _wd(host: str, group_rank: int, seq: int) -> str:
    return (f"{host}: [E ProcessGroupNCCL.cpp:523] [Rank {group_rank}] Watchdog caught collective operation timeout: "
            f"WorkNCCL(SeqNum={seq}, OpType=BROADCAST, NumelIn=67108864, NumelOut=67108864, Timeout(ms)=1800000) "
            "ran for 1800063 milliseconds before timing out.")


def _pipeline_log() -> str:
    # torch 2.2 under DeepSpeed's pdsh launcher: each pipeline stage's two-rank broadcast groups
    # time out, their watchdogs printing the rank in the group ([Rank 0], [Rank 1]) on both nodes
    lines = []
    for n, host in enumerate(("hpc-h800-19", "hpc-h800-20")):
        lines.append(f"{host}: [2024-02-23 19:57:10,100] [INFO] [launch.py:152:main] nnodes=2, num_local_procs=8, node_rank={n}")
        lines += [f"{host}: [2024-02-23 19:57:13,540] [INFO] [launch.py:256:main] process {3046918 + 100 * n + local} "
                  f"spawned with command: {_PY.format(local)}" for local in range(8)]
    lines += [_wd("hpc-h800-20", 1, 20102), _wd("hpc-h800-20", 1, 20098), _wd("hpc-h800-19", 0, 20096),
              _wd("hpc-h800-19", 1, 20099)]
    return "\n".join(lines) + "\n"


def test_the_same_group_rank_on_two_nodes_names_no_global_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path, {"train.log": _pipeline_log()}, ruleset)
    assert seen and seen[0].cause is Cause.HANG and seen[0].rank is None, seen


def test_the_one_process_dumped_outside_a_collective_is_the_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    # someone took py-spy of the process DeepSpeed spawned as local rank 5 of the second node
    # (global rank 13): its main thread waits on a queue of its own, in no collective
    dump = "\n".join([
        "Process 3047023: /usr/bin/python3 -u pretrain_gpt.py",
        "Python v3.12.12 (/usr/bin/python3.12)",
        "",
        'Thread 3047023 (idle): "MainThread"',
        "    wait (threading.py:320)",
        "    get (queue.py:171)",
        "    _wait_for_async_save (pretrain_gpt.py:243)",
        "    main (pretrain_gpt.py:382)",
    ]) + "\n"
    seen = incidents_of(tmp_path, {"train.log": _pipeline_log(), "py-spy-3047023.txt": dump}, ruleset)
    assert seen and seen[0].cause is Cause.HANG and seen[0].rank == 13, seen


_ADVICE = ["CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
           "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
           "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."]


def test_sub_communicators_do_not_number_the_global_ranks(tmp_path: Path, ruleset: RuleSet) -> None:
    # NCCL's debug file of the process on GPU ba:00: its world communicator (rank 22 of 64), then
    # a two-rank and a sixteen-rank group of its own (rank 0, rank 7); the kernel's Xid 31 names
    # that process: rank 22's. Its own log reports the illegal address twice (the watchdog's
    # report, then terminate's what()), each with CUDA's advice below it: one launch, not two
    nccl = [f"dgx-h29-397:866072:866164 [6] NCCL INFO comm 0x5{i}b4ec180040 rank {r} nranks {n} cudaDev 6 nvmlDev 6 "
            f"busId ba000 commId 0x5274818298{i}c4f64 - Init START" for i, (r, n) in enumerate(((22, 64), (0, 2), (7, 16)))]
    own = ["/usr/local/lib/python3.12/dist-packages/transformer_engine/pytorch/attention.py:126: UserWarning: "
           "To use flash-attn v3, please use the following commands to install",
           "  warnings.warn(",
           "[E1108 13:20:54.768156989 ProcessGroupNCCL.cpp:1640] [PG ID 1 PG GUID 1(DATA_PARALLEL_GROUP) Rank 22] "
           "Process group watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered",
           *_ADVICE, "",
           "terminate called after throwing an instance of 'c10::DistBackendError'",
           "  what():  [PG ID 1 PG GUID 1(DATA_PARALLEL_GROUP) Rank 22] Process group watchdog thread terminated with "
           "exception: CUDA error: an illegal memory access was encountered", *_ADVICE]
    files = {"nccl/nccl-dgx-h29-397-866072.log": "\n".join(nccl) + "\n",
             "logs/mcore-moe-7528686-22.out": "\n".join(own) + "\n",
             "dmesg-dgx-h29-397.txt": "2024-11-08T13:20:54.718156+00:00 dgx-h29-397 kernel: NVRM: Xid (PCI:0000:ba:00): "
                                      "31, pid=866072, name=python, Ch 00000008, intr 00000000. MMU Fault: ENGINE GRAPHICS\n",
             "slurm-7528686.out": "srun: error: dgx-h29-397: task 22: Aborted (core dumped)\n"
                                  "srun: error: dgx-h29-395: task 7: Aborted (core dumped)\n"}
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen and (seen[0].cause, seen[0].rank) == (Cause.ILLEGAL_MEMORY_ACCESS, 22), seen


def test_a_file_of_several_processes_dumps_names_no_one_of_them(tmp_path: Path, ruleset: RuleSet) -> None:
    # py-spy of every process of the first node, saved as one file named for the pod: the number
    # its name ends in is no rank of each dump, and no one dump stands apart
    dumps = []
    for pid in range(350498, 350502):
        dumps += [f"Process {pid}: /opt/conda/bin/python -u train.py", "Python v3.10.9 (/opt/conda/bin/python)", "",
                  f'Thread {pid} (idle): "MainThread"', "    synchronize (torch/cuda/__init__.py:954)",
                  "    train (train.py:217)", ""]
    seen = incidents_of(tmp_path, {"train.log": _pipeline_log(), "py-spy-dump-dpo-run-master-0.txt": "\n".join(dumps)},
                        ruleset)
    assert seen and seen[0].rank is None, seen


def test_a_node_daemon_killed_for_memory_while_the_job_ran_on_is_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    steps = [f"2024-08-02 13:{m:02d}:00,000 INFO step {100 * m} loss 2.1" for m in range(0, 50)]
    kern = ("Aug  2 13:04:42 a3-high-vm-022 kernel: Out of memory: Killed process 76483 (node_exporter) "
            "total-vm:812344kB, anon-rss:2212kB, file-rss:0kB, shmem-rss:0kB, UID:65534 pgtables:244kB oom_score_adj:0\n")
    seen = incidents_of(tmp_path, {"train.log": "\n".join(steps) + "\n", "kern-a3-high-vm-022.log": kern}, ruleset)
    assert not seen, seen
