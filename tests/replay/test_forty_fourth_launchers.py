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
