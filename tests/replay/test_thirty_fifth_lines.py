"""The thirty-fifth session's readings: torchelastic's SIGKILL of a worker still alive when its
grace period ended (a teardown, not the failure), a failure table cut inside its last exit code,
a watchdog line with another process's output written into its middle and the waiting call's own
"timed out in blocking wait", Horovod's stall report listing many ranks missing one collective,
and RDMA set-up errors (a queue pair the NIC cannot create, UCX's address handle on a device the
container lacks)."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of


def _entry(n: int, when: str, rank: int, code: int, pid: int, trace: str) -> list[str]:
    return [f"[{n}]:", f"  time      : {when}", "  host      : worker-7",
            f"  rank      : {rank} (local_rank: {rank})", f"  exitcode  : {code} (pid: {pid})",
            "  error_file: <N/A>", f"  traceback : {trace}"]


def _table(kill_after: str, kill_code: int) -> str:
    """A 4-rank torchrun failure table: rank 3 exits with code 1 at 10:00:00, rank 2 ends on
    SIGTERM and rank 0 with ``kill_code`` at ``kill_after``; rank 1 is the root cause line."""
    hint = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
    lines = [
        "[rank3]: Traceback (most recent call last):",
        '[rank3]:   File "/srv/train.py", line 22, in <module>',
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "============================================================",
        "/srv/train.py FAILED",
        "------------------------------------------------------------",
        "Failures:",
        *_entry(1, "2026-03-01_10:00:00", 3, 1, 4403, hint),
        *_entry(2, f"2026-03-01_{kill_after}", 0, kill_code, 4400,
                f"Signal {-kill_code} ({'SIGKILL' if kill_code == -9 else 'SIGSEGV'}) received by PID 4400"),
        *_entry(3, f"2026-03-01_{kill_after}", 2, -15, 4402, "Signal 15 (SIGTERM) received by PID 4402"),
        "------------------------------------------------------------",
        "Root Cause (first observed failure):",
        *_entry(0, "2026-03-01_10:00:00", 1, 1, 4401, hint),
        "============================================================",
    ]
    return "\n".join(lines) + "\n"


def test_a_sigkill_at_the_teardown_half_a_minute_after_a_rank_failed_is_the_launchers_not_the_failure(
        tmp_path: Path, ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path / "grace", {"console.log": _table("10:00:31", -9)}, ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION, seen
    assert seen[0].rank in (1, 3), seen


def test_the_grace_kill_needs_the_teardowns_second_and_time(tmp_path: Path, ruleset: RuleSet) -> None:
    # every survivor killed at once (none ended on SIGTERM): still the teardown
    killed = _table("10:00:31", -9).replace("  exitcode  : -15 (pid: 4402)", "  exitcode  : -9 (pid: 4402)")
    seen = incidents_of(tmp_path / "all-killed", {"console.log": killed}, ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION, seen
    # the SIGTERM an hour later than the kill: no teardown beside it, the kill stands
    apart = _table("10:00:31", -9).replace("2026-03-01_10:00:31\n  host      : worker-7\n  rank      : 2",
                                          "2026-03-01_11:00:31\n  host      : worker-7\n  rank      : 2")
    assert apart != _table("10:00:31", -9)
    seen = incidents_of(tmp_path / "apart", {"console.log": apart}, ruleset)
    assert seen and seen[0].rank == 0 and seen[0].cause is Cause.UNKNOWN, seen
    # hours after the failure: no grace period lasts that long
    seen = incidents_of(tmp_path / "late", {"console.log": _table("13:00:31", -9)}, ruleset)
    assert seen and seen[0].rank == 0 and seen[0].cause is Cause.UNKNOWN, seen


def test_a_crash_at_the_teardown_or_a_sigkill_before_the_failure_still_counts(tmp_path: Path, ruleset: RuleSet) -> None:
    # a SIGSEGV at the teardown's second is a crash of its own; a SIGKILL before the others' exits is no teardown
    for name, text in (("segv", _table("10:00:31", -11)), ("early", _table("09:59:00", -9))):
        seen = incidents_of(tmp_path / name, {"console.log": text}, ruleset)
        assert seen and seen[0].rank == 0, (name, seen)
        # (a SIGKILL that no line explains reads unknown: the OOM killer, a person, the scheduler)
        assert seen[0].cause is (Cause.CRASH_SIGNAL if name == "segv" else Cause.UNKNOWN), (name, seen)


def test_a_failure_table_cut_inside_its_exit_code_still_names_the_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    text = "\n".join([
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "============================================================",
        "train.py FAILED",
        "------------------------------------------------------------",
        "Failures:",
        "  <NO_OTHER_FAILURES>",
        "------------------------------------------------------------",
        "Root Cause (first observed failure):",
        "[0]:",
        "  time      : 2023-03-15_06:27:18",
        "  host      : dl-box",
        "  rank      : 0 (local_rank: 0)",
        "  exitcode  : 1 (pid: 6",
    ])
    seen = incidents_of(tmp_path / "cut", {"console.log": text}, ruleset)
    assert [(i.cause, i.rank) for i in seen] == [(Cause.PYTHON_EXCEPTION, 0)], seen


def test_a_watchdog_line_split_by_another_process_and_a_blocking_wait_show_different_sizes(
        tmp_path: Path, ruleset: RuleSet) -> None:
    noise = "`TRANSFORMERS_CACHE` is deprecated and will be removed in v5 of Transformers"
    text = "\n".join([
        "[rank1]:[E616 13:41:10.909476913 ProcessGroupNCCL.cpp:565] [Rank 1] Watchdog caught collective operat"
        + noise + "ion timeout: WorkNCCL(SeqNum=2109, OpType=_ALLGATHER_BASE, NumelIn=262711296, NumelOut=525422592, "
        "Timeout(ms)=1800000) ran for 1800007 milliseconds before timing out.",
        "[rank0]:[E616 13:41:10.043090898 ProcessGroupNCCL.cpp:628] [Rank 0] Work WorkNCCL(SeqNum=2109, "
        "OpType=_ALLGATHER_BASE, NumelIn=40960, NumelOut=81920, Timeout(ms)=1800000) timed out in blocking wait "
        "(TORCH_NCCL_BLOCKING_WAIT=1).",
    ]) + "\n"
    seen = incidents_of(tmp_path / "split", {"console.log": text}, ruleset)
    assert seen and seen[0].cause is Cause.COLLECTIVE_MISMATCH, seen
    same = text.replace("NumelIn=40960, NumelOut=81920", "NumelIn=262711296, NumelOut=525422592")
    seen = incidents_of(tmp_path / "same", {"console.log": same}, ruleset)
    assert seen and seen[0].cause is Cause.HANG, seen  # the same all-gather on both: a hang


def _stall_report(missing: list[int], tensor: str) -> str:
    head = ("[0]<stderr>:[2021-02-02 03:23:51.070957: W horovod/common/stall_inspector.cc:105] One or more tensors "
            "were submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting for remainder "
            "of ranks for more than 60 seconds. This may indicate that different ranks are trying to submit "
            "different tensors or that only subset of ranks is submitting tensors, which will cause deadlock. ")
    lines = ["[0]<stderr>:[2021-02-02 03:22:16,448 (trainer:514) INFO: 3epoch:train:99-112batch: loss=84.699",
             head, "[0]<stderr>:Missing ranks:"]
    lines += [f"[0]<stderr>:{r}: [{tensor}]" for r in missing]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("missing", [[0, 1, 2, 3, 4, 5], [2, 3, 7]])
def test_many_ranks_missing_one_collective_is_a_mismatch(tmp_path: Path, ruleset: RuleSet, missing: list[int]) -> None:
    seen = incidents_of(tmp_path / "many", {"train.log": _stall_report(missing, "allreduce.noname.222700")}, ruleset)
    assert seen and seen[0].cause is Cause.COLLECTIVE_MISMATCH and seen[0].rank is None, seen


def test_one_rank_missing_a_whole_node_missing_or_the_first_broadcast_is_no_mismatch(
        tmp_path: Path, ruleset: RuleSet) -> None:
    for name, missing, tensor in (("one", [5], "allreduce.noname.222700"),
                                  ("node", list(range(8, 16)), "allreduce.noname.222700"),  # ranks 8-15: a node stopped
                                  ("bcast", [4, 5, 6], "broadcast.noname.3")):
        seen = incidents_of(tmp_path / name, {"train.log": _stall_report(missing, tensor)}, ruleset)
        assert not seen or seen[0].cause is not Cause.COLLECTIVE_MISMATCH, (name, seen)


@pytest.mark.parametrize("line", [
    "failed to create extended queue pair (QP): Operation not supported",
    "could not create loopback QP for device rdmap16s27:",
    # UCX's line wrapped by the terminal before "for RC DEVX QP connect", an errno not listed before
    "flow_label=0xffffffff sgid_index=0 traffic_class=0) for RC DEVX QP connect on mlx5_15 failed: No such device",
    "ib_device.c:1380 UCX  ERROR   ibv_create_ah(dlid=49152 sl=0 port=1 src_path_bits=0 dgid=fe80::1 "
    "flow_label=0xffffffff sgid_index=0 traffic_class=0) for RC DEVX QP connect on mlx5_15 failed: No such device",
])
def test_rdma_set_up_errors_are_the_network(tmp_path: Path, ruleset: RuleSet, line: str) -> None:
    text = "mpirun -np 2 -host localhost,10.0.0.14 ./all_reduce_perf -b 8 -e 2G -f 2 -g 1\n" + line + "\n"
    seen = incidents_of(tmp_path / "rdma", {"console.log": text}, ruleset)
    assert seen and seen[0].cause is Cause.NETWORK, seen


_SHM_WAIT = ("(EngineCore_DP0 pid=30630) INFO 01-20 03:0{m}:37 [shm_broadcast.py:501] No available shared memory "
             "broadcast block found in 60 seconds. This typically happens when some processes are hanging or doing "
             "some time-consuming work (e.g. compilation).")
_SERVING = "(APIServer pid=605) INFO 01-20 03:0{m}:47 [loggers.py:273] Engine 000: Avg prompt throughput: 532.2 tokens/s"


@pytest.mark.parametrize(("minutes", "after", "hang"), [
    ((2, 3), False, True),   # the engine waits on its workers minute after minute, and the log ends there
    ((3,), False, False),    # once: a slow step, as likely as not
    ((2, 3), True, False),   # a slow start-up (loading, compiling), serving after it
])
def test_vllm_waiting_on_its_workers_to_the_end_is_a_hang(tmp_path: Path, ruleset: RuleSet, minutes: tuple[int, ...],
                                                          after: bool, hang: bool) -> None:
    lines = [_SERVING.format(m=1)] + [_SHM_WAIT.format(m=m) for m in minutes]
    if after:
        lines += [_SERVING.format(m=m) for m in (4, 5, 6, 7)]
    seen = incidents_of(tmp_path / "vllm", {"server.log": "\n".join(lines) + "\n"}, ruleset)
    assert ([i.cause for i in seen][:1] == [Cause.HANG]) is hang, seen
    if hang:
        assert "waited minute after minute for its workers" in seen[0].explanation, seen[0].explanation
    else:
        assert not seen, seen


def test_vllm_giving_up_on_its_workers_is_a_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    text = "\n".join([
        "09:14:37 ERROR dump_input: Dumping scheduler stats: SchedulerStats(num_running_reqs=1, num_waiting_reqs=0,",
        "09:14:37 TimeoutError: RPC call to sample_tokens timed out.",
        "09:14:37 EngineCore encountered a fatal error.",
    ]) + "\n"
    seen = incidents_of(tmp_path / "rpc", {"console.log": text}, ruleset)
    assert seen and seen[0].cause is Cause.HANG, seen


def test_vllm_s_chained_timeout_traceback_is_a_hang_not_an_exception(tmp_path: Path, ruleset: RuleSet) -> None:
    p = "(EngineCore_0 pid=1422484) ERROR 08-07 19:11:43 [core.py:684] "
    body = [
        "EngineCore encountered a fatal error.",
        "Traceback (most recent call last):",
        '  File "/opt/vllm/vllm/distributed/device_communicators/shm_broadcast.py", line 507, in dequeue',
        "    with self.acquire_read(timeout, cancel) as buf:",
        '  File "/opt/vllm/vllm/distributed/device_communicators/shm_broadcast.py", line 469, in acquire_read',
        "    raise TimeoutError",
        "TimeoutError",
        "",
        "The above exception was the direct cause of the following exception:",
        "",
        "Traceback (most recent call last):",
        '  File "/opt/vllm/vllm/v1/executor/multiproc_executor.py", line 250, in get_response',
        '    raise TimeoutError(f"RPC call to {method} timed out.") from e',
        "TimeoutError: RPC call to execute_model timed out.",
    ]
    seen = incidents_of(tmp_path / "chained", {"server.log": "\n".join(p + b for b in body) + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.HANG, seen
    # the bare TimeoutError alone, not after the queue's read: an exception as any other
    other = [p + "Traceback (most recent call last):", p + '  File "/srv/app.py", line 9, in main', p + "TimeoutError"]
    seen = incidents_of(tmp_path / "bare", {"server.log": "\n".join(other) + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION, seen


def test_a_verbs_device_without_its_driver_before_nccl_tests_fail_is_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    head = ["# nThread 1 nGpus 4 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 validation: 1",
            "#   Rank  0 Pid 108039 on gpu-host-3 device  0 [0x00] Tesla V100-PCIE-16GB"]
    warn = "libibverbs: Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbs0"
    failed = "gpu-host-3: Test NCCL failure common.cu:775 'internal error'"
    seen = incidents_of(tmp_path / "verbs", {"console.log": "\n".join([*head, warn, failed]) + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.NETWORK, seen
    assert "without its user-space driver" in seen[0].explanation, seen[0].explanation
    usage = failed.replace("'internal error'", "'invalid usage'")  # a set-up error of another kind
    seen = incidents_of(tmp_path / "usage", {"console.log": "\n".join([*head, warn, usage]) + "\n"}, ruleset)
    assert not seen or seen[0].cause is not Cause.NETWORK, seen
    rows = ["           8             2     float     sum      -1    20.11    0.00    0.00      0    19.87    0.00    0.00      0",
            "# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 0.00012"]
    healthy = incidents_of(tmp_path / "ran", {"console.log": "\n".join([*head, warn, *rows]) + "\n"}, ruleset)
    assert not healthy, healthy  # the same warning in a run that went on over sockets


def test_nccl_tests_asking_for_more_gpus_than_it_sees_is_the_set_up(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("# nThread 1 nGpus 2 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
            "node1: Test CUDA failure common.cu:963 'invalid device ordinal'\n"
            " .. node1 pid 198671: Test failure common.cu:925\n")
    seen = incidents_of(tmp_path / "ordinal", {"console.log": text}, ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION and seen[0].node == "node1", seen


@pytest.mark.parametrize(("text", "cause"), [
    # (after fresh34's scoring) gdb opening a core names the signal by its number in older versions
    ("Core was generated by `python test_nccl.py'.\nProgram terminated with signal 11, Segmentation fault.\n"
     "#0  0x00007f504ef23a6e in commFree (comm=0xece8380) at init.cu:100\n", Cause.CRASH_SIGNAL),
    # a paste cut inside CUDA's words, at its very end
    ("(Worker_TP0 pid=126) ERROR 04-17 06:12:14 [multiproc_executor.py:949] WorkerProc hit an exception. "
     "(Worker_TP0 pid=126) ERROR [multiproc_executor.py:949] torch.AcceleratorError: CUDA error: an illegal memory "
     "access was encount", Cause.ILLEGAL_MEMORY_ACCESS),
])
def test_lines_read_after_the_set_aside_was_scored(tmp_path: Path, ruleset: RuleSet, text: str, cause: Cause) -> None:
    seen = incidents_of(tmp_path / "late", {"console.log": text}, ruleset)
    assert seen and seen[0].cause is cause, seen
