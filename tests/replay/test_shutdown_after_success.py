"""What a run that ended well prints on its way out (the development batch EA: logs of MLPerf
results, most of them healthy): errors after the harness said the run succeeded, the torchrun
agents' rendezvous warnings as the first node's store goes away, and a second program of the same
job joining the process group again are no failure."""

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
