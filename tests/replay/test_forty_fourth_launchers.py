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
