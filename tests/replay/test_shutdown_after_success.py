"""What a run that ended well prints on its way out (the development batch EA: logs of MLPerf
results, most of them healthy): errors in a file whose harness said the run succeeded, the
torchrun agents' rendezvous warnings as the first node's store goes away, an error the program
says it got over or that training went on long after, and a second program of the same job joining
the process group again are no failure."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of

SUCCESS = (' 0: :::MLLOG {"namespace": "", "time_ms": 1746944086909, "event_type": "INTERVAL_END", "key": "run_stop", '
           '"value": null, "metadata": {"file": "train.py", "lineno": 186, "status": "success"}}\n')
NCCL_CLOSE = ("30: [E511 01:46:13.812290483 ProcessGroupNCCL.cpp:541] [Rank 30] found async exception when checking "
              "for NCCL errors: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version "
              "2.22.3\n30: ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device "
              "error.\n30: [Proxy Service 30] Failed to execute operation Close from rank 30, retcode 3\n")
FINALIZER = ("Traceback (most recent call last):\n"
             '  File "/usr/lib/python3.10/multiprocessing/util.py", line 300, in _run_finalizers\n'
             "    finalizer()\n"
             '  File "/usr/lib/python3.10/multiprocessing/synchronize.py", line 87, in _cleanup\n'
             "    sem_unlink(name)\n"
             "FileNotFoundError: [Errno 2] No such file or directory\n")
STEPS = "".join(f" 0: step {s} loss 2.1\n" for s in range(1, 4))


def test_errors_after_the_harness_said_success_are_the_shutdown(tmp_path: Path, ruleset: RuleSet) -> None:
    assert incidents_of(tmp_path, {"result_1.txt": STEPS + SUCCESS + NCCL_CLOSE + FINALIZER}, ruleset) == []
    # the same lines before the verdict are the run failing
    got = incidents_of(tmp_path / "before", {"result_1.txt": STEPS + FINALIZER}, ruleset)
    assert [g.cause for g in got] == [Cause.PYTHON_EXCEPTION]


def test_a_gpu_falling_off_the_bus_after_success_is_still_reported(tmp_path: Path, ruleset: RuleSet) -> None:
    xid = ("[Mon May 11 01:47:00 2025] NVRM: Xid (PCI:0000:1b:00): 79, pid=1234, name=python, "
           "GPU has fallen off the bus.\n")
    got = incidents_of(tmp_path, {"result_1.txt": STEPS + SUCCESS + xid}, ruleset)
    assert [g.cause for g in got][:1] == [Cause.GPU_HARDWARE]


def test_the_agents_rendezvous_warnings_at_exit_are_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    warn = ("WARNING:torch.distributed.elastic.rendezvous.dynamic_rendezvous:The node 'node0406_169243_0' has failed to "
            "{what} the rendezvous '2094' due to an error of type RendezvousConnectionError.\n")
    text = ("[rank8]:step 100 loss 1.2\n" + warn.format(what="send a keep-alive heartbeat to")
            + warn.format(what="shutdown"))
    assert incidents_of(tmp_path, {"node1.log": text}, ruleset) == []
    # the store's connection failing in the workers is still the run failing
    failed = text + ("[rank8]: torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to "
                     "the C10d store has failed. See inner exception for details.\n")
    assert incidents_of(tmp_path / "b", {"node1.log": failed}, ruleset) != []


def test_one_task_joining_the_group_again_is_not_two_processes_claiming_a_rank(tmp_path: Path,
                                                                               ruleset: RuleSet) -> None:
    init = " 0: Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/32\n"
    evaluation = " 0: Running the evaluation program\n"
    assert incidents_of(tmp_path, {"result_1.txt": init + evaluation + init}, ruleset) == []
    # two processes (no label tells them apart) claiming rank 0 at the start is the group not forming
    got = incidents_of(tmp_path / "b", {"train.log": ("Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2\n"
                                                      "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2\n")}, ruleset)
    assert [g.cause for g in got] == [Cause.HANG]


def test_errors_before_the_harness_said_success_did_not_stop_the_run(tmp_path: Path, ruleset: RuleSet) -> None:
    ucx = "".join(f"[1594400000.{i:06d}] [node1:{1000 + i}:0]        ib_md.c:1234 UCX  ERROR ibv_open_device(mlx5_{i}) "
                  "failed: Input/output error\n" for i in range(4))
    warn = "node1:1000:1100 [0] NCCL WARN NET/IB : Call to ibv_open_device failed\n"
    helper = "srun: error: node1: task 0: Exited with exit code 1\n"
    assert incidents_of(tmp_path, {"result_1.txt": ucx + warn + helper + STEPS + SUCCESS}, ruleset) == []


def test_an_error_the_program_says_it_got_over_is_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    caught = ("/app/trainer.py:160: RuntimeWarning: DataParallel/NCCL probe failed; continuing on the primary GPU. "
              "(NCCL Error 2: unhandled system error)\n")
    assert incidents_of(tmp_path, {"train.log": STEPS + caught + STEPS}, ruleset) == []


def test_an_untimed_error_long_before_the_last_training_progress_is_no_failure(tmp_path: Path,
                                                                               ruleset: RuleSet) -> None:
    """A reused output file that begins with the lines of an earlier job the user cancelled, then
    this job's whole training."""
    stale = "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n"
    training = "".join(f"iter: {i}  total_loss: 1.{i % 10}  time: 0.51\n" for i in range(300))
    assert incidents_of(tmp_path, {"slurm-train.out": stale + training}, ruleset) == []
    # the same line at the end is the job ending
    assert incidents_of(tmp_path / "b", {"slurm-train.out": training + stale}, ruleset) != []


def _mllog(key: str, extra: str = "") -> str:
    return f':::MLLOG {{"namespace": "", "time_ms": 1697218000000, "event_type": "INTERVAL_START", "key": "{key}", "value": null{extra}}}\n'


def test_one_trials_success_says_nothing_of_the_next_trial(tmp_path: Path, ruleset: RuleSet) -> None:
    """MLPerf's run.sub runs several trials into one output file: the second trial's failure after
    the first trial's success is a failure (the review of this session's changes)."""
    first = _mllog("run_start") + STEPS + _mllog("run_stop", ', "metadata": {"status": "success"}')
    second = (_mllog("run_start") + "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n")
    got = incidents_of(tmp_path, {"slurm-1234.out": first + second}, ruleset)
    assert [(g.cause, g.rank) for g in got][:1] == [(Cause.CUDA_OOM, 3)]


def test_the_older_mlperf_log_format_says_success_too(tmp_path: Path, ruleset: RuleSet) -> None:
    success = ':::MLL 1558640478.720 run_stop: {"value": null, "metadata": {"lineno": 498, "file": "train.py", "status": "success"}}\n'
    assert incidents_of(tmp_path, {"result_0.txt": STEPS + success + NCCL_CLOSE}, ruleset) == []


def test_a_timeout_before_buffered_step_lines_is_still_a_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    """A block-buffered stdout flushes its step lines at exit, after the stderr's timeouts: step
    lines after a watchdog timeout do not make it one the run got over."""
    timeout = ("[E ProcessGroupNCCL.cpp:828] [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, "
               "OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800453 milliseconds before timing out.\n")
    steps = "".join(f"step {s} loss 2.1\n" for s in range(160))
    got = incidents_of(tmp_path, {"train.log": timeout.format(r=0) + timeout.format(r=1) + steps}, ruleset)
    assert [g.cause for g in got][:1] == [Cause.HANG]
