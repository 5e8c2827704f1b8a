"""The fifty-fourth session's node readings: a run that names one host and only that one names it
for a failure no rank can be given, and Ray's report of a dead worker names the worker's node by
the address it gives (on the line, or in the actor's description after it)."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of

_WATCHDOG = ("[rank{r}]:[E1207 09:10:{s:02d}.000000000 ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught "
             "collective operation timeout: WorkNCCL(SeqNum=88, OpType=ALLREDUCE, NumelIn=1024, NumelOut=1024, "
             "Timeout(ms)=600000) ran for 600042 milliseconds before timing out.\n")


def _init(host: str, ranks: range) -> str:
    return "".join(f"{host}:{4100 + r}:{4200 + r} [{r % 8}] NCCL INFO Channel 00/0 : {r} -> {(r + 1) % 4} via P2P/IPC\n"
                   for r in ranks)


def test_a_hang_on_the_one_host_the_run_names_names_that_host(tmp_path: Path, ruleset: RuleSet) -> None:
    """Four ranks on one container host time out in the same all-reduce and no rank says why: the
    hang names no rank, but the run names one host only (its NCCL lines'), so that is where it
    happened. Before, the node was left out too."""
    text = _init("9aee1c01f3e7", range(4)) + "".join(_WATCHDOG.format(r=r, s=r) for r in range(4))
    got = incidents_of(tmp_path / "one", {"train.log": text}, ruleset)
    assert [(g.cause, g.rank, g.node) for g in got] == [(Cause.HANG, None, "9aee1c01f3e7")]


def test_a_run_that_names_two_hosts_names_no_node_for_an_unplaced_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    text = (_init("gpu-a07", range(2)) + _init("gpu-a08", range(2, 4))
            + "".join(_WATCHDOG.format(r=r, s=r) for r in range(4)))
    got = incidents_of(tmp_path / "two", {"train.log": text}, ruleset)
    assert [(g.cause, g.rank, g.node) for g in got] == [(Cause.HANG, None, None)]


def test_a_lost_peer_on_another_host_keeps_the_node_unnamed(tmp_path: Path, ruleset: RuleSet) -> None:
    """The one host named lost its connection to a peer at another address, whose logs are not
    here: the failure may be that peer's, so the named host is not blamed for it."""
    text = (_init("node1", range(2))
            + "node1:4100:4300 [0] include/socket.h:409 NCCL WARN Net : Connection closed by remote peer "
              "10.0.0.12<41632>\n"
            + "node1:4100:4300 [0] NCCL INFO transport/net_socket.cc:493 -> 6\n")
    got = incidents_of(tmp_path / "peer", {"train.log": text}, ruleset)
    assert got and got[0].rank is None and got[0].node is None


_RAYLET = ("(raylet) A worker died or was killed while executing a task by an unexpected system error. To troubleshoot "
           "the problem, check the logs for the dead worker. RayTask ID: ffffffffffffffff3c2a Worker ID: 6f1e2 "
           "Node ID: 4b955aeb106f Worker IP address: {ip} Worker port: 10015 Worker PID: 2436 Worker exit type: "
           "SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file.\n")


def test_the_raylet_names_the_dead_workers_node(tmp_path: Path, ruleset: RuleSet) -> None:
    """The raylet's "A worker died ..." names the worker's address: the node of the death (before:
    no node). A loopback address names no node."""
    got = incidents_of(tmp_path / "a", {"driver.log": _RAYLET.format(ip="10.109.18.239")}, ruleset)
    assert [(g.cause, g.node) for g in got] == [(Cause.UNKNOWN, "10.109.18.239")]
    got = incidents_of(tmp_path / "b", {"driver.log": _RAYLET.format(ip="127.0.0.1")}, ruleset)
    assert [(g.cause, g.node) for g in got] == [(Cause.UNKNOWN, None)]


def test_an_actor_died_error_names_the_node_in_the_actors_description(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("Traceback (most recent call last):\n"
            '  File "/opt/verl/main_ppo.py", line 64, in main\n'
            "    ray.get(runner.run.remote(config))\n"
            "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.\n"
            "        class_name: TaskRunner\n"
            "        actor_id: 8d1498767d305748d59d87da01000000\n"
            "        pid: 319017\n"
            "        namespace: 1109301e-e25e-4e12-9ae4-1dd5fc7468e4\n"
            "        ip: 10.44.139.116\n"
            "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit "
            "detail: Worker exits unexpectedly. Worker exits with an exit code None.\n")
    got = incidents_of(tmp_path / "actor", {"driver.log": text}, ruleset)
    assert [(g.cause, g.node) for g in got] == [(Cause.UNKNOWN, "10.44.139.116")]


def test_the_raylets_memory_report_broken_over_two_lines_names_the_node(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("(raylet) [2025-12-07 09:57:19,206 E 393463 393463] (raylet) node_manager.cc:3277: 2 Workers (tasks / "
            "actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at \n"
            "node (ID: 8289f87b78d161ae21bf723c7c57838345a56248dd48a2c3f0d5ac73, IP: 172.24.0.226) over the last time "
            "period. To see more information about the Workers killed on this node, use `ray logs raylet.out -ip "
            "172.24.0.226`\n")
    got = incidents_of(tmp_path / "oom", {"driver.log": text}, ruleset)
    assert [(g.cause, g.node) for g in got] == [(Cause.HOST_OOM_KILL, "172.24.0.226")]


def test_a_record_whose_line_is_its_data_field_reads_the_ranks_prefix(tmp_path: Path, ruleset: RuleSet) -> None:
    """milabench writes each line of a run's output as a JSON record, the line in "data": the
    rank's prefix inside it names the rank (before: the record was read as it is, no rank)."""
    lines = ('  File "/opt/venv/lib/python3.12/site-packages/transformers/generation/utils.py", line 2760, in _sample\n',
             "torch.AcceleratorError: HIP error: unspecified launch failure\n")
    text = "".join('{"event": "line", "data": "[rank1]: ' + line.replace('"', '\\"').replace("\n", "\\n")
                   + '", "pipe": "stderr"}\n' for line in lines)
    got = incidents_of(tmp_path / "mila", {"llama.data": text}, ruleset)
    assert got and got[0].rank == 1


def test_a_launcher_run_as_a_subprocess_is_no_python_exception(ruleset: RuleSet) -> None:
    """A Modal function ran torchrun with subprocess.run(check=True) on a 4-node job (a blind55
    run of a development seed): its CalledProcessError after torchrun's failure table is the
    wrapper's word, not a failure of its own; the out-of-memory error before it, which no prefix
    places, is the run's (before: python_exception, the wrapper's)."""
    from detector.replay import replay_path

    report = replay_path(Path(__file__).parent / "data" / "review54" / "modal_wrapped_oom", ruleset)
    assert (report.incidents[0].cause, report.incidents[0].initiator.rank) == (Cause.CUDA_OOM, 0)


def test_a_wrappers_word_alone_says_the_job_failed_its_cause_unknown(tmp_path: Path, ruleset: RuleSet) -> None:
    """Only the wrapper's CalledProcessError of torchrun in the paste: the job failed, but nothing
    says why (before: an uncaught Python exception, the wrapper's own)."""
    text = ("subprocess.CalledProcessError: Command '['torchrun', '--nnodes=4', '--nproc-per-node=8', '--node-rank=0', "
            "'/root/train.py']' returned non-zero exit status 1.\n")
    got = incidents_of(tmp_path / "alone", {"modal_run_output.txt": text}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.UNKNOWN, None)]
    assert "read the launcher's own output" in got[0].explanation


def test_a_restart_that_fails_the_same_way_is_read_in_each_attempt(tmp_path: Path, ruleset: RuleSet) -> None:
    """torchrun restarted a worker that failed the same way again: its attempt_1 stderr holds the
    same bytes as attempt_0's (no stamps in a traceback). Both are read: each attempt names rank
    1 (before, the second was dropped as a copy and its attempt read "unknown, no rank")."""
    trace = ("Traceback (most recent call last):\n"
             '  File "/work/train.py", line 88, in <module>\n'
             "    main()\n"
             '  File "/work/train.py", line 61, in main\n'
             "    loss = step(model, batch)\n"
             '  File "/work/train.py", line 40, in step\n'
             '    raise ValueError("bad batch shape (7, 3) at step 10; expected (8, 3)")\n'
             "ValueError: bad batch shape (7, 3) at step 10; expected (8, 3)\n")
    lost = ("[rank0]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer "
            "[127.0.0.1]:29012\n")
    files = {}
    for attempt in (0, 1):
        base = f"tr/5f16aa1f_dkuj8mvq/attempt_{attempt}"
        files[f"{base}/1/stderr.log"] = trace
        files[f"{base}/0/stderr.log"] = lost + f"attempt {attempt}\n"
    got = incidents_of(tmp_path / "restarts", files, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.PYTHON_EXCEPTION, 1), (Cause.PYTHON_EXCEPTION, 1)]


def test_a_launchs_numbered_console_is_no_ranks_log(tmp_path: Path, ruleset: RuleSet) -> None:
    """A second launch's console, console-2.log, holds the job's output with no rank prefixes: its
    number is the launch's, not a rank's (before, the error was placed on rank 2; so were the
    sidecar's collateral ranks of a 2-rank job)."""
    text = ("Traceback (most recent call last):\n"
            '  File "/work/train.py", line 40, in step\n'
            "ValueError: bad batch shape (7, 3) at step 10\n")
    got = incidents_of(tmp_path / "console", {"console-2.log": text}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.PYTHON_EXCEPTION, None)]
    got = incidents_of(tmp_path / "train", {"train-2.log": text}, ruleset)  # (a rank's own log, named for it)
    assert [(g.cause, g.rank) for g in got] == [(Cause.PYTHON_EXCEPTION, 2)]


def _spawn_killed(rank: int) -> str:
    return ("W0727 10:25:42.835433 277818 torch/multiprocessing/spawn.py:146] Terminating process 277992 via signal "
            "SIGTERM\n"
            "Traceback (most recent call last):\n"
            '  File "/work/train.py", line 210, in <module>\n'
            "    mp.spawn(main, nprocs=8, args=(cfg,))\n"
            f"torch.multiprocessing.spawn.ProcessExitedException: process {rank} terminated with signal SIGKILL\n")


def _oom_dmesg(stamp: str) -> str:
    return (f"[{stamp}] python invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, "
            "oom_score_adj=0\n"
            f"[{stamp}] Out of memory: Killed process 277997 (python) total-vm:622854144kB, anon-rss:207618048kB, "
            "file-rss:434821kB, shmem-rss:726048kB, UID:1000 pgtables:415236kB oom_score_adj:0\n")


def test_a_spawned_ranks_sigkill_and_the_kernels_oom_kill_of_that_moment_in_a_run_that_names_no_host(
        tmp_path: Path, ruleset: RuleSet) -> None:
    """mp.spawn says process 6 died of SIGKILL; the kernel's log (dmesg -T, no host name; no pid
    in spawn's words) killed a python process for memory that second: the OOM killer's (before:
    unknown). An OOM kill an hour away says nothing of it."""
    got = incidents_of(tmp_path / "now", {"run.log": _spawn_killed(6), "dmesg.txt": _oom_dmesg("Sat Jul 27 10:25:42 2024")},
                       ruleset)
    assert [(g.cause, g.rank) for g in got][:1] == [(Cause.HOST_OOM_KILL, 6)]
    got = incidents_of(tmp_path / "apart", {"run.log": _spawn_killed(6),
                                            "dmesg.txt": _oom_dmesg("Sat Jul 27 09:20:02 2024")}, ruleset)
    assert got and (Cause.HOST_OOM_KILL, 6) not in [(g.cause, g.rank) for g in got]
