"""From the ninth session's development cases (BK-BR): a rank waiting in a main-process-first
barrier, or a data-preparation bar cut by another rank's watchdog, makes the main process a
straggler; torch 1.x's "Caught collective operation timeout", a watchdog line wrapped inside
its phrase and DeepEP's timeouts are waits, not exceptions; a contained CUDA error over NVLink,
NVSHMEM's, UCX's and DeepEP's transport failures, NVSHMEM's heap exhaustion and torch 1.x's store
bind failure get their causes; the abort after an uncaught C++ exception gives way to what the
exception says; a logger's "Uncaught XError" line and its "rank=N" header name the rank."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import causes_of, incidents_of, write_run

_OLD_TIMEOUT = ("RuntimeError: [Rank {r}] Caught collective operation timeout: WorkNCCL(SeqNum=6, OpType=ALLREDUCE, "
                "TensorShape=[1], Timeout(ms)=1800000) ran for 1800863 milliseconds before timing out.\n")


def test_torch1_caught_collective_timeout_is_a_timeout_not_an_exception(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": _OLD_TIMEOUT.format(r=1) + _OLD_TIMEOUT.format(r=2)}, ruleset)
    assert [g.cause for g in got] == [Cause.HANG]


def _traceback(rank: int, frames: str, last: str) -> str:
    lines = ["Traceback (most recent call last):", '  File "/work/train.py", line 40, in <module>', *frames.splitlines(),
             last]
    return "".join(f"[rank{rank}]:{line}\n" for line in lines)


_MAIN_FIRST = ('    with training_args.main_process_first(desc="Dataset tokenization"):\n'
               '  File "/usr/lib/python3.11/site-packages/transformers/training_args.py", line 2410, in main_process_first\n'
               "    dist.barrier()")


def test_a_wait_in_a_main_process_first_barrier_that_ran_out_makes_rank_0_a_straggler(tmp_path: Path,
                                                                                        ruleset: RuleSet) -> None:
    log = "".join(_traceback(r, _MAIN_FIRST, f"torch.distributed.DistBackendError: [{r}] wait timed out after 1800000ms")
                  for r in (1, 2, 3))
    got = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.STRAGGLER, 0)]
    assert "main_process_first" in got[0].explanation
    assert not got[0].drain


def test_a_failure_of_its_own_inside_the_barrier_is_not_read_as_waiting(tmp_path: Path, ruleset: RuleSet) -> None:
    own = _traceback(1, _MAIN_FIRST, "ValueError: tokenizer has no pad token")
    assert causes_of(tmp_path, {"train.log": own}, ruleset) == [Cause.PYTHON_EXCEPTION]
    rank0 = _traceback(0, '    tokenized = raw.map(tokenize, num_proc=8)', "OSError: [Errno 28] No space left on device")
    waited = _traceback(1, _MAIN_FIRST, "torch.distributed.DistBackendError: [1] wait timed out after 1800000ms")
    got = incidents_of(tmp_path / "rank0", {"train.log": rank0 + waited}, ruleset)
    assert (got[0].cause, got[0].rank) == (Cause.PYTHON_EXCEPTION, 0)


def test_a_preparation_bar_cut_by_another_ranks_watchdog_is_the_straggler(tmp_path: Path, ruleset: RuleSet) -> None:
    """nanotron's ``[defaultN]:`` prefixes: local rank 0 draws its bar, rank 2's watchdog line is
    glued onto it (and wrapped inside its phrase by the terminal), rank 3 times out as well."""
    log = ("[default0]:Grouping texts in chunks of 2049:   8%|▊         | 726000/9672101 [02:32<30:38, 4866.01 examples/s]"
           "[default2]:[E ProcessGroupNCCL.cpp:475] [Rank 2] Watchdog caught \n"
           "collective operation timeout: WorkNCCL(SeqNum=3, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) "
           "ran for 600888 milliseconds before timing out.\n"
           "[default3]:[E ProcessGroupNCCL.cpp:475] [Rank 3] Watchdog caught collective operation timeout: "
           "WorkNCCL(SeqNum=3, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600892 milliseconds "
           "before timing out.\n")
    got = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.STRAGGLER, 0)]
    # without the bar the same timeouts are a hang
    rest = log.split("examples/s]", 1)[1]
    assert causes_of(tmp_path / "nobar", {"train.log": rest}, ruleset) == [Cause.HANG]


def test_a_bar_that_tqdm_rounds_to_100_percent_is_still_unfinished(tmp_path: Path, ruleset: RuleSet) -> None:
    bar = "Running tokenizer on dataset (num_proc=10): 100%|█████████▉| 1368806/1370895 [29:46<01:07, 30.89 examples/s]"
    timeout = ("[rank{r}]:[E1001 13:40:02.000000 1 ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught collective "
               "operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) "
               "ran for 1800005 milliseconds before timing out.\n")
    log = bar + timeout.format(r=3) + timeout.format(r=1)
    got = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.STRAGGLER, 0)]
    done = log.replace("1368806/1370895", "1370895/1370895")
    assert causes_of(tmp_path / "done", {"train.log": done}, ruleset) == [Cause.HANG]


def test_a_contained_cuda_error_over_nvlink_is_nvlink(tmp_path: Path, ruleset: RuleSet) -> None:
    log = "[rank5]: RuntimeError: CUDA error: Invalid access of peer GPU memory over nvlink or a hardware error\n"
    got = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.NVLINK, 5)]


# one log, the cause it is read as (its first incident's)
ONE_CAUSE = {
    # torch 1.x raises the bind failures after "failed to listen", wrapped by the terminal here
    "torch1-store-port-in-use": ("RuntimeError: The server socket has failed to listen on any local network\n"
                                 "address. The server socket has failed to bind to [::]:29600 (errno: 98 - Address\n"
                                 "already in use).\n", Cause.NETWORK),
    "nvshmem-ibgda-setup": ("/opt/nvshmem/src/modules/transport/ibgda/ibgda.cpp:1345: non-zero status: 121 Error in "
                            "mlx5dv_devx_obj_modify for INIT2RTR_QP with syndrome 29e0df\n"
                            "/opt/nvshmem/src/modules/transport/ibgda/ibgda.cpp:3005: non-zero status: 7 "
                            "ibgda_rc_init2rtr failed on RC #0.\n"
                            "/opt/nvshmem/src/host/init/init.cu:1001: non-zero status: 7\n\nnvshmem setup connections failed\n",
                            Cause.NETWORK),
    "nvshmem-ibrc-setup": ("/opt/nvshmem/src/modules/transport/ibrc/ibrc.cpp:418: non-zero status: 110 ibv_modify_qp failed\n\n"
                           "/opt/nvshmem/src/modules/transport/ibrc/ibrc.cpp:1433: non-zero status: 7 ep_connect failed\n",
                           Cause.NETWORK),
    # the heap could not grow (CUDA_ERROR_OUT_OF_MEMORY); the illegal access in a barrier after it follows from that
    "nvshmem-heap-exhausted": ("/nvshmem/src/host/mem/mem_heap.cpp:1509: non-zero status: 2 cuMemCreate failed \n\n"
                               "/nvshmem/src/host/mem/mem_heap.cpp:1590: non-zero status: 7 allocate_physical_memory_to_heap "
                               "failed\n\n[/nvshmem/src/host/coll/barrier/barrier.cpp:21] cuda failed with an illegal memory "
                               "access was encountered \n", Cause.CUDA_OOM),
    "deepep-rdma-forwarder-timeout": (
        "DeepEP dispatch NVL receiver timeout, channel: 4, RDMA: 1, nvl: 3, src RDMA: 0, src nvl: 5, start: 0, end: 0\n"
        "DeepEP dispatch forwarder timeout (RDMA meta), channel: 4, RDMA: 1, nvl: 6, src RDMA lane: 0, dst NVL: 3, "
        "meta: 0, 0, 0, 0\n", Cause.NETWORK),
    "deepep-cpu-timeout-is-a-wait": (
        '[rank428]:   File "/opt/venv/lib/python3.12/site-packages/deep_ep/buffer.py", line 581, in internode_dispatch\n'
        "[rank428]: RuntimeError: DeepEP error: timeout (dispatch CPU)\n", Cause.HANG),
}


@pytest.mark.parametrize("name", sorted(ONE_CAUSE))
def test_one_log_one_cause(name: str, tmp_path: Path, ruleset: RuleSet) -> None:
    log, cause = ONE_CAUSE[name]
    assert causes_of(tmp_path, {"train.log": log}, ruleset)[:1] == [cause]


def test_a_deepep_receiver_timeout_alone_is_no_network_fault(tmp_path: Path, ruleset: RuleSet) -> None:
    receiver = ONE_CAUSE["deepep-rdma-forwarder-timeout"][0].splitlines(keepends=True)[0]
    assert causes_of(tmp_path, {"train.log": receiver}, ruleset) != [Cause.NETWORK]


_MPI_ABORT = ("[jetson-3:29969] *** Process received signal ***\n[jetson-3:29969] Signal: Aborted (6)\n"
              "[jetson-3:29969] Signal code:  (-6)\n[jetson-3:29969] *** End of error message ***\n")


def test_the_abort_after_an_uncaught_cpp_exception_gives_way_to_its_message(tmp_path: Path, ruleset: RuleSet) -> None:
    nccl = ("terminate called after throwing an instance of 'std::runtime_error'\n"
            "  what():  NCCL failure: unhandled cuda error in nccl_mpi_all_reduce.cu at line: 86 rank: 1\n\n")
    assert causes_of(tmp_path / "a", {"output.log": nccl + _MPI_ABORT}, ruleset) == [Cause.UNKNOWN]
    # a message that names nothing leaves the abort as the evidence
    plain = ("terminate called after throwing an instance of 'std::runtime_error'\n"
             "  what():  vector::_M_range_check\n\n")
    assert causes_of(tmp_path / "b", {"output.log": plain + _MPI_ABORT}, ruleset) == [Cause.CRASH_SIGNAL]


def test_ucx_transport_errors_with_unix_time_stamps_are_network_in_a_rank_log(tmp_path: Path,
                                                                               ruleset: RuleSet) -> None:
    """UCX stamps its lines with Unix time in brackets, "[1749803291.555759]": that is no kernel
    log's seconds since boot, so the file stays a rank log (its lines left untimed: a true UTC time
    among a run's zone-less local stamps would be ordered hours away from them). A reset by the
    peer is UCX's ordinary close, and a send that failed after another rank's own failure is that
    failure's consequence."""
    log = "".join(f"[17846210{n}1.896649] [prefill-pod:53{n}  :1]       srd_iface.c:221  UCX  ERROR send completion[0] "
                  f"with error on rdmap13{n}s0/0x55cf4425cfb0: Work Request Flushed Error, vendor_err 0x1 wr_id 0x7f8b2\n"
                  for n in range(4))
    report = replay_path(write_run(tmp_path, {"prefill.log": log}), ruleset)
    assert [i.cause for i in report.incidents] == [Cause.NETWORK]
    reset = ("[1749803291.555759] [node1:7053 :0]   ucp_worker.c:1720 UCX  ERROR ucp_worker_iface_error_handler: "
             "error 'Connection reset by remote peer' will not be handled\n")
    steps = "".join(f"2025-06-13 16:27:{n:02d} step {n} | loss 1.0 | step_ms 800\n" for n in range(20))
    assert causes_of(tmp_path / "reset", {"rank0.log": steps + "Training completed\n" + reset}, ruleset) == []
    oom = ("2025-06-13 16:28:00 [rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n")
    send = log.splitlines(keepends=True)[0].replace("Work Request Flushed Error", "send(110) failed: Input/output error")
    assert causes_of(tmp_path / "oom", {"rank0.log": oom, "rank1.log": send}, ruleset) == [Cause.CUDA_OOM]


def test_a_logged_uncaught_exception_names_its_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    olmo = ("[2024-04-18 19:06:17] INFO     [olmo.train:816, rank=0] [step=75/739328]\n"
            "[2024-04-18 19:10:41] CRITICAL [olmo.util:158, rank=0] Uncaught OLMoThreadError: generator thread data "
            "thread 3 failed\n")
    got = incidents_of(tmp_path, {"train.log": olmo}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.PYTHON_EXCEPTION, 0)]


def test_a_store_that_could_not_listen_for_another_reason_is_not_a_port_in_use(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("[rank1]: RuntimeError: The server socket has failed to listen on any local network address. The server "
           "socket has failed to bind to [::]:29500 (errno: 99 - Cannot assign requested address).\n")
    got = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert got and got[0].cause is not Cause.NETWORK
    assert not any("holds the store's port" in g.explanation for g in got)


def test_rank_0_waiting_in_the_barrier_too_is_not_the_straggler(tmp_path: Path, ruleset: RuleSet) -> None:
    timeout = ("[rank{r}]:[E1001 13:40:02.000000 1 ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught collective "
               "operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) "
               "ran for 1800005 milliseconds before timing out.\n")
    log = "".join(_traceback(r, _MAIN_FIRST, f"torch.distributed.DistBackendError: [{r}] wait timed out")
                  + timeout.format(r=r) for r in (0, 1, 2))
    got = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert got and got[0].cause is not Cause.STRAGGLER


def test_a_spawned_processs_cut_traceback_is_put_on_the_process_spawn_names(tmp_path: Path, ruleset: RuleSet) -> None:
    """torch.multiprocessing.spawn re-raises a child's failure under "-- Process N terminated
    with the following error:"; with the paste cut before the exception's line, the traceback
    under that header is process N's."""
    log = ("Traceback (most recent call last):\n"
           '  File "tools/train_net.py", line 162, in <module>\n    args=(args,),\n'
           '  File "/usr/lib/python3.7/site-packages/torch/multiprocessing/spawn.py", line 118, in join\n'
           "    raise Exception(msg)\nException: \n\n"
           "-- Process 3 terminated with the following error:\n"
           "Traceback (most recent call last):\n"
           '  File "/usr/lib/python3.7/site-packages/torch/multiprocessing/spawn.py", line 19, in _wrap\n'
           "    fn(i, *args)\n")
    got = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.PYTHON_EXCEPTION, 3)]
    assert any("Traceback" in text for text in got[0].evidence)
    # a child's traceback that names no rank of its own, under a header that names one
    bare = log.replace("-- Process 3", "-- Process 5")
    got = incidents_of(tmp_path / "five", {"train.log": bare}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.PYTHON_EXCEPTION, 5)] and got[0].evidence
