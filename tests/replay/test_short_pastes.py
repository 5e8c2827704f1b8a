"""Readings of the eleventh session: short pastes (often one line) whose only line says what
failed, in the forms real threads had them: a node name a paste left out, NCCL 2.7's wordings,
Slurm cancelling a step, a port another process holds (as Python, Rust and NCCL say it), a
kernel's own assertion, TensorRT-LLM's allocation failure, a launcher passing SIGHUP on. Each log
is written here in the shape of the real one."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from detector.attribution.attribute import attribute
from detector.attribution.incident import first_block_node
from detector.rules.engine import RuleSet
from detector.types import Cause, Finding, RankInfo, Role, RunFacts, Severity
from tests.support.replaying import incidents_of

# name -> (log, cause, rank, node)
ONE_CAUSE: dict[str, tuple[str, Cause, int | None, str | None]] = {
    # mpirun's report with the node's name left out of the paste
    "mpirun-signal-no-node": (
        "mpirun noticed that process rank 0 with PID 0 on node exited on signal 4 (Illegal instruction).\n",
        Cause.CRASH_SIGNAL, 0, None),
    # a step Slurm cancelled, and nothing before it: scancel, a time limit or a preemption
    "slurm-step-cancelled": (
        "slurmstepd: error: *** STEP 4714782.0 ON ib12gpu-001 CANCELLED AT 2023-11-29T15:47:21 ***\n",
        Cause.PREEMPTION, None, None),
    # NCCL 2.7's wording of its collective check
    "nccl27-mismatch": (
        "[0] init.cc:1256 NCCL WARN Your program may be hanging, this may be caused by a collective mismatch "
        "around rank 1. Please check your collective calls at and around this rank. You can use NCCL_DEBUG=INFO "
        "and NCCL_DEBUG_SUBSYS=COLL to see the collective logs\n",
        Cause.COLLECTIVE_MISMATCH, 1, None),
    # TensorRT-LLM's check of a CUDA runtime call
    "trtllm-malloc-async-oom": (
        "[TensorRT-LLM][ERROR] [TensorRT-LLM][ERROR] CUDA runtime error in ::cudaMallocAsync(ptr, n, "
        "mCudaStream->get()): out of memory (/src/cpp/tensorrt_llm/runtime/tllmBuffers.h:125)\n"
        "1       0x5601283f70e5 void tensorrt_llm::common::check<cudaError>(cudaError, char const*, char const*, int) + 149\n",
        Cause.CUDA_OOM, None, None),
    # a Rust program (docker compose's "service  | " before it) whose port another process holds
    "rust-port-in-use": (
        "mistralrs-headnode  | Error: Address already in use (os error 98)\n"
        "mistralrs-headnode  |    0: anyhow::error::<impl anyhow::Error>::new\n",
        Cause.NETWORK, None, None),
    # torch 2.x's store error with its fields on lines of their own
    "torch2-eaddrinuse-fields": (
        "RuntimeError: The server socket has failed to listen on any local network address.\nport: 29500\n"
        "useIpv6: 0\ncode: -98\nname: EADDRINUSE\nmessage: address already in use\n",
        Cause.NETWORK, None, None),
    # NCCL < 2.12 binding a fixed port another process holds
    "nccl-bind-in-use": (
        "[2/20][4084/7614] Loss: 9.590029\n"
        "42692884fcba:140:140 [0] include/socket.h:333 NCCL WARN Call to bind failed : Address already in use\n"
        "42692884fcba:140:140 [0] NCCL INFO bootstrap.cc:91 -> 2\n",
        Cause.NETWORK, None, "42692884fcba"),
    # NCCL 2.7 names no function before "Connect to": this host could not reach the network
    "nccl27-connect-unreachable": (
        "voicec105:90736:91655 [0] include/socket.h:403 NCCL WARN Connect to fe80::c4eb:49ff:fe04:e32d%6<57335> "
        "failed : Network is unreachable\nvoicec105:90736:91655 [0] NCCL INFO bootstrap.cc:95 -> 2\n",
        Cause.NETWORK, None, "voicec105"),
    # the peer refused: the host that reports it is not the one at fault
    "nccl27-connect-refused": (
        "r11i6n2:486514:486651 [1] include/socket.h:403 NCCL WARN Connect to 10.148.3.247<56821> failed : "
        "Connection refused\nr11i6n2:486514:486651 [1] NCCL INFO bootstrap.cc:95 -> 2\n",
        Cause.NETWORK, None, None),
    # the same refusal in NCCL 2.12+'s words
    "nccl-poll-connect-refused": (
        "node1:1:2 [0] misc/socket.cc:533 NCCL WARN socketPollConnect: Connect to 10.0.0.1<40861> returned "
        "111(Connection refused) errno 111(Connection refused)\nnode1:1:2 [0] NCCL INFO bootstrap.cc:95 -> 2\n",
        Cause.NETWORK, None, None),
    # an assertion in a CUDA kernel's own source (DeepEP's kernels)
    "kernel-assert": (
        "Assertion failed: /mnt/fs/DeepEP/csrc/kernels/internode_ll.cu:259, condition: num_recv_tokens != 0\n" * 4,
        Cause.ILLEGAL_MEMORY_ACCESS, None, None),
    # NCCL's proxy failing its set-up on a CUDA allocation (retcode 1: a CUDA error, not the network)
    "nccl-proxy-cuda-oom": (
        "node2:24881:25568 [2] include/alloc.h:178 NCCL WARN Cuda failure 'out of memory'\n"
        "node2:24881:25568 [2] include/alloc.h:185 NCCL WARN Failed to CUDA calloc 10485760 bytes\n"
        "node2:24881:25568 [2] NCCL INFO transport/p2p.cc:204 -> 1\n"
        "node2:24881:25568 [2] proxy.cc:1519 NCCL WARN [Proxy Service 2] Failed to execute operation Setup from "
        "rank 2, retcode 1\n"
        "node2:24881:25566 [2] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer "
        "node2<47247>\n",
        Cause.CUDA_OOM, None, "node2"),
    # torchrun passes on the SIGHUP it got (its terminal closed); the paste ends in the agent's traceback
    "torchrun-sighup": (
        "".join(f"WARNING:torch.distributed.elastic.multiprocessing.api:Sending process {pid} closing signal SIGHUP\n"
                for pid in (53738, 53740, 53741))
        + "Traceback (most recent call last):\n  File \"/env/bin/torchrun\", line 8, in <module>\n    sys.exit(main())\n",
        Cause.PREEMPTION, None, None),
    # PaddlePaddle's launcher names several trainers that ended together: which one first, it does not say
    "paddle-several-trainers-aborted": (
        "W0516 22:13:52.367004 35724 nccl_context.cc:142] Socket connect worker 127.0.0.1:52199 failed, try again "
        "after 3 seconds.\nINFO 2021-05-16 22:14:00,648 launch_utils.py:307] terminate all the procs\n"
        "ERROR 2021-05-16 22:14:00,649 launch_utils.py:545] ABORT!!! Out of all 4 trainers, the trainer process with "
        "rank=[1, 2, 3] was aborted. Please check its log.\n",
        Cause.UNKNOWN, None, None),
    # torch.distributed.launch kills its workers and raises; the paste ends in the launcher's own frames
    "launcher-traceback-cut": (
        "Killing subprocess 6042\nKilling subprocess 6047\nTraceback (most recent call last):\n"
        '  File "/env/lib/python3.8/runpy.py", line 194, in _run_module_as_main\n    return _run_code(code, main_globals, None,\n'
        '  File "/env/lib/python3.8/site-packages/torch/distributed/launch.py", line 340, in <module>\n    main()\n',
        Cause.UNKNOWN, None, None),
    # SIGTERM from outside reaches the DataLoader's workers too: their deaths are its consequence,
    # and a SIGTERM alone does not say who sent it (the scheduler, a user, the launcher)
    "sigterm-then-loader-workers-terminated": (
        "Epoch 0:  31%|###       | 1225/3999 [1:07:35<2:33:02,  3.31s/it, v_num=29]\n[rank: 2] Received SIGTERM: 15\n"
        "Traceback (most recent call last):\n  File \"/env/torch/utils/data/_utils/signal_handling.py\", line 66, in handler\n"
        "    _error_if_any_worker_fails()\nRuntimeError: DataLoader worker (pid 4020138) is killed by signal: Terminated. \n",
        Cause.UNKNOWN, None, None),
    # gloo's check that a message fits the buffer the receiver posted: the ranks' sizes differ
    "gloo-preamble-longer": (
        "terminate called after throwing an instance of 'gloo::EnforceNotMet'\n"
        "  what():  [enforce fail at /opt/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:446] "
        "op.preamble.length <= op.nbytes. 256000 vs 128000\n",
        Cause.COLLECTIVE_MISMATCH, None, None),
    # gdb on a core file
    "gdb-core-sigsegv": (
        "Core was generated by `sglang::scheduler'.\nProgram terminated with signal SIGSEGV, Segmentation fault.\n"
        "#0  0x00007f673afbf86a in c10d::ProcessGroupNCCL::collective () from libtorch_cuda.so\n",
        Cause.CRASH_SIGNAL, None, None),
    # Megatron-core's rerun state machine logs the NaN it found, with the rank
    "megatron-rerun-nan": (
        "ERROR:megatron.core.rerun_state_machine:Unexpected result nan on rank 3 at iteration #3 invocation #2 "
        "(message='found NaN in local grad norm for bucket #0 in backward pass before data-parallel communication "
        "collective')\n",
        Cause.PYTHON_EXCEPTION, 3, None),
}


@pytest.mark.parametrize("name", sorted(ONE_CAUSE))
def test_one_paste_one_cause(name: str, tmp_path: Path, ruleset: RuleSet) -> None:
    log, cause, rank, node = ONE_CAUSE[name]
    [incident] = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert (incident.cause, incident.rank, incident.node) == (cause, rank, node)
    assert incident.evidence  # the line it was read from is shown


def test_a_step_slurm_cancelled_after_a_task_failed_is_no_preemption(tmp_path: Path, ruleset: RuleSet) -> None:
    log = "slurmstepd: error: *** STEP 4714782.0 ON ib12gpu-001 CANCELLED AT 2023-11-29T15:47:21 DUE TO TASK FAILURE ***\n"
    assert incidents_of(tmp_path, {"train.log": log}, ruleset) == []  # a task failed; the paste says not which


def test_a_cancelled_step_before_training_went_on_is_no_incident(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("slurmstepd: error: *** STEP 11.0 ON gpu3 CANCELLED AT 2023-11-29T15:47:21 ***\n"
           + "".join(f"2023-11-29 15:5{i}:00 INFO step {i} | loss 2.1\n" for i in range(8)))
    assert incidents_of(tmp_path, {"train.log": log}, ruleset) == []


def test_a_traceback_then_scancel_is_the_traceback_s(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ('Traceback (most recent call last):\n  File "train.py", line 9, in <module>\n    main()\n'
           "slurmstepd: error: *** JOB 1234 ON node07 CANCELLED AT 2026-11-30T01:02:03 ***\n")
    [incident] = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert incident.cause is Cause.PYTHON_EXCEPTION


_SENT = "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process {pid} closing signal {sig}\n"


@pytest.mark.parametrize("signals", [("SIGTERM",), ("SIGTERM", "SIGHUP")], ids=["sigterm", "sigterm-then-sighup"])
def test_torchrun_s_sigterm_teardown_is_no_preemption(signals: tuple[str, ...], tmp_path: Path, ruleset: RuleSet) -> None:
    """torchrun tears its workers down with SIGTERM after one of them failed: a failure, not the
    scheduler (a SIGHUP after it is the same teardown going on)."""
    log = "".join(_SENT.format(pid=pid, sig=sig) for sig in signals for pid in (53738, 53740, 53741))
    [incident] = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert incident.cause is Cause.UNKNOWN


_BARRIER = ("ERROR:torch.distributed.elastic.agent.server.api:Error waiting on exit barrier. Elapsed: 315.7792458534241 seconds\n"
            "Traceback (most recent call last):\n"
            '  File "/env/torch/distributed/elastic/agent/server/api.py", line 906, in _exit_barrier\n'
            "    store_util.barrier(\n"
            '  File "/env/torch/distributed/elastic/utils/store.py", line 64, in synchronize\n'
            "    agent_data = get_all(store, rank, key_prefix, world_size)\n")
_IGNORED = ("terminate called without an active exception\n"
            "Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7f71bd0233a0>\n"
            "Traceback (most recent call last):\n"
            '  File "/env/torch/utils/data/dataloader.py", line 1328, in __del__\n'
            "    self._shutdown_workers()\n"
            '  File "/env/multiprocessing/popen_fork.py", line 44, in wait\n'
            "    if not wait([self.sentinel], timeout):\n")


@pytest.mark.parametrize("log", [_BARRIER, _IGNORED], ids=["exit-barrier", "exception-ignored"])
def test_a_traceback_printed_and_dropped_is_no_incident(log: str, tmp_path: Path, ruleset: RuleSet) -> None:
    """torchelastic's agent logs an error at its exit barrier (its workers had finished); Python
    prints an exception a finaliser raised and ignores it: neither is the run failing."""
    assert incidents_of(tmp_path, {"train.log": log}, ruleset) == []


@pytest.mark.parametrize("ignored", [_IGNORED, _IGNORED.rsplit("  File", 1)[0]], ids=["whole", "cut"])
def test_an_exception_after_an_ignored_one_is_still_the_cause(ignored: str, tmp_path: Path, ruleset: RuleSet) -> None:
    """Also when the ignored exception's own traceback was cut before its last line: the next
    traceback's exception is another's."""
    log = ignored + ("".join(f"step {i} loss 2.0\n" for i in range(5))
                     + "Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n    main()\n"
                     "ValueError: bad batch shape (3, 224)\n")
    [incident] = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert incident.cause is Cause.PYTHON_EXCEPTION
    assert any("bad batch shape" in e for e in incident.evidence)


@pytest.mark.parametrize("log", [
    "OSError: [Errno 98] Address already in use\n",  # a side server (TensorBoard) that training went on without
    "ERROR:megatron.core.rerun_state_machine:Unexpected result nan on rank 3 at iteration #3 invocation #1 "
    "(message='found NaN in local grad norm')\n",  # the first sighting, which the machine re-runs
], ids=["side-port-in-use", "rerun-first-sighting"])
def test_an_error_training_went_on_after_is_no_incident(log: str, tmp_path: Path, ruleset: RuleSet) -> None:
    log += "".join(f" iteration {i}/ 1000 | loss 2.0 | elapsed time per iteration (ms): 800.1\n" for i in range(4, 54))
    assert incidents_of(tmp_path, {"train.log": log}, ruleset) == []


def test_a_failure_the_log_printed_before_the_time_limit_is_the_cause(tmp_path: Path, ruleset: RuleSet) -> None:
    """srun -l output: rank 10's InfiniBand completion error (untimed, as NCCL prints it), then the
    job sits until Slurm's time limit ends it: the time limit is the symptom."""
    log = ("".join(f"{r:2d}: cgpu0{8 + r // 8}:3164{r}:3164{r} [{r % 8}] NCCL INFO comm 0x2aab rank {r} nranks 16 - Init COMPLETE\n"
                   for r in range(16))
           + "10: cgpu09:31641:32201 [0] transport/net_ib.cc:789 NCCL WARN NET/IB : Got completion with error 12, "
             "opcode 1, len 0, vendor err 129\n"
           + "10: cgpu09:31641:32201 [0] NCCL INFO include/net.h:29 -> 2\n"
           + "slurmstepd: error: *** JOB 416593 ON cgpu08 CANCELLED AT 2020-01-27T14:51:17 DUE TO TIME LIMIT ***\n"
           + " 0: slurmstepd: error: *** STEP 416593.0 ON cgpu08 CANCELLED AT 2020-01-27T14:51:17 DUE TO TIME LIMIT ***\n")
    incidents = incidents_of(tmp_path, {"slurm-416593.out": log}, ruleset)
    assert (incidents[0].cause, incidents[0].rank, incidents[0].node) == (Cause.NETWORK, 10, "cgpu09")


def test_a_time_limit_after_a_failure_training_went_on_after_is_still_a_time_limit(tmp_path: Path,
                                                                                   ruleset: RuleSet) -> None:
    log = ("10: cgpu09:31641:32201 [0] transport/net_ib.cc:789 NCCL WARN NET/IB : Got completion with error 12, "
           "opcode 1, len 0, vendor err 129\n"
           + "".join(f" 0: 2020-01-27 14:{10 + i // 60:02d}:{i % 60:02d} step {i} loss 2.0\n" for i in range(200))
           + "slurmstepd: error: *** JOB 416593 ON cgpu08 CANCELLED AT 2020-01-27T14:51:17 DUE TO TIME LIMIT ***\n")
    incidents = incidents_of(tmp_path, {"slurm-416593.out": log}, ruleset)
    assert incidents[0].cause is Cause.PREEMPTION


def test_a_time_limit_after_training_alone_is_the_cause(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("".join(f"2020-01-27 14:4{i}:00 step {i} loss 2.0\n" for i in range(9))
           + "slurmstepd: error: *** JOB 416593 ON cgpu08 CANCELLED AT 2020-01-27T14:51:17 DUE TO TIME LIMIT ***\n")
    [incident] = incidents_of(tmp_path, {"slurm-416593.out": log}, ruleset)
    assert incident.cause is Cause.PREEMPTION


_TABLE = """torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
evaluate.py FAILED
------------------------------------------------------------
Failures:
[1]:
  time      : 2022-09-23_00:32:47
  host      : node15
  rank      : 7 (local_rank: 7)
  exitcode  : 1 (pid: 369183)
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2022-09-23_00:32:47
  host      : node15
  rank      : {rank} (local_rank: {local})
  exitcode  : 1 (pid: 369177)
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
============================================================
"""
_OOM3 = ("[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 12.63 GiB. GPU 3 has a total "
         "capacity of 79.17 GiB of which 1.05 GiB is free.\n")


def test_a_rank_no_line_places_is_on_the_node_that_holds_the_first_ranks(tmp_path: Path, ruleset: RuleSet) -> None:
    """The failure table puts ranks 4 and 7 (local ranks 4 and 7) on node15: node rank 0, which
    holds ranks 0-7, rank 3 among them."""
    [incident] = incidents_of(tmp_path, {"train.log": _OOM3 + _TABLE.format(rank=4, local=4)}, ruleset)
    assert (incident.cause, incident.rank, incident.node) == (Cause.CUDA_OOM, 3, "node15")


def test_only_the_node_of_the_first_ranks_takes_ranks_no_line_places() -> None:
    def facts(*infos: RankInfo) -> RunFacts:
        return RunFacts(findings=(), ranks={i.rank: i for i in infos})

    first = facts(RankInfo(4, 4, "node15"), RankInfo(7, 7, "node15"), RankInfo(12, 4, "node16"))
    assert first_block_node(3, first) == "node15"
    assert first_block_node(9, first) is None  # above the highest local rank seen there
    # a node whose ranks do not start at 0 (rank 12 is its local rank 4) is no first block
    assert first_block_node(3, facts(RankInfo(7, 7, "node15"), RankInfo(12, 4, "node15"))) is None
    # two nodes claim the first ranks: nothing says which
    assert first_block_node(3, facts(RankInfo(4, 4, "a"), RankInfo(5, 5, "b"))) is None


def test_a_rank_that_crashes_after_losing_its_peer_is_collateral(tmp_path: Path, ruleset: RuleSet) -> None:
    """Rank 3 raised; rank 1 on the other node saw gloo's connection close and then segfaulted as
    it tore down, within the same second (the real two-node job of the coordinator's test did
    this now and then): the crash is the consequence, rank 3's exception the cause."""
    rank3 = ('[rank3]: Traceback (most recent call last):\n[rank3]:   File "train_ddp.py", line 297, in main\n'
             '[rank3]:     raise RuntimeError(f"injected fault: bad batch at step {step}")\n'
             "[rank3]: RuntimeError: injected fault: bad batch at step 6\n")
    rank1 = ("[rank1]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed "
             "by peer [127.0.0.1]:59107. This is typically caused by a remote worker crashing.\n"
             "terminate called without an active exception\nFatal Python error: Aborted\n\n"
             "Thread 0xFatal Python error: Segmentation fault\n\n")
    files = {"nodeB/none_x/attempt_0/1/stderr.log": rank3, "nodeA/none_x/attempt_0/1/stderr.log": rank1}
    [incident] = incidents_of(tmp_path, files, ruleset)
    assert (incident.cause, incident.rank) == (Cause.PYTHON_EXCEPTION, 3)


def test_a_crash_after_a_lost_peer_with_no_other_failure_stays_the_cause(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("[rank1]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed "
           "by peer [127.0.0.1]:59107.\nFatal Python error: Segmentation fault\n")
    [incident] = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert incident.cause is Cause.CRASH_SIGNAL


def test_the_coordinator_s_first_errors_of_a_crash_after_a_lost_peer() -> None:
    """The coordinator's view of the same failure: each rank's first evidence, times to the
    second (Prometheus), rank 1's crash and its lost peer in the same second as rank 3's error."""
    t = datetime(2026, 12, 2, 9, 18, 37, tzinfo=UTC)

    def finding(rule: str, role: Role, cause: Cause | None, rank: int) -> Finding:
        return Finding(rule, role, cause, Severity.ERROR, rule, rank=rank, node="nodeA" if rank < 2 else "nodeB", time=t)

    findings = (finding("python.uncaught_exception", Role.INITIATOR, Cause.PYTHON_EXCEPTION, 3),
                finding("python.fatal_signal", Role.INITIATOR, Cause.CRASH_SIGNAL, 1),
                finding("torch.gloo_connection_closed", Role.COLLATERAL, None, 1),
                finding("torch.gloo_connection_closed", Role.COLLATERAL, None, 0))
    ranks = {r: RankInfo(r, r % 2, "nodeA" if r < 2 else "nodeB") for r in range(4)}
    [incident] = attribute(RunFacts(findings=findings, ranks=ranks, world_size=4))
    assert (incident.cause, incident.initiator.rank, incident.initiator.node) == (Cause.PYTHON_EXCEPTION, 3, "nodeB")
