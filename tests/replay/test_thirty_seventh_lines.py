"""The thirty-seventh session's readings: NCCL 2.7's "invalid usage" without its hint, CUDA
failures inside NCCL that are the installation's (a stub driver, kernels built for other GPUs),
"no kernel image is available", Open MPI rejecting an invalid call, TensorFlow's gRPC peers
unavailable, ranks of one process group timing out far apart in different operations (and
Ray's untimed "actor died" after those timeouts), and the stacks of the failed collectives
launched from different places of the program."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of


def test_nccl_27_invalid_usage_without_its_hint_is_the_programs_error(tmp_path: Path, ruleset: RuleSet) -> None:
    line = ("RuntimeError: NCCL error in: /opt/conda/conda-bld/pytorch_1603729047590/work/torch/lib/c10d/"
            "ProcessGroupNCCL.cpp:784, invalid usage, NCCL version 2.7.8\n")
    seen = incidents_of(tmp_path / "usage", {"console.log": line * 3}, ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION, seen
    other = incidents_of(tmp_path / "system", {"console.log": line.replace("invalid usage", "unhandled system error")},
                         ruleset)
    assert not other or other[0].cause is not Cause.PYTHON_EXCEPTION, other


@pytest.mark.parametrize("error, cause", [
    ("CUDA driver is a stub library", Cause.PYTHON_EXCEPTION),
    ("invalid device function", Cause.PYTHON_EXCEPTION),
    ("no kernel image is available for execution on the device", Cause.PYTHON_EXCEPTION),
    ("invalid argument", Cause.UNKNOWN),  # (the transport's set-up: which side is at fault the line does not say)
])
def test_cuda_failures_inside_nccl_that_are_the_installations(tmp_path: Path, ruleset: RuleSet, error: str,
                                                              cause: Cause) -> None:
    text = (f"(ParaWorker pid=1272483) Node03:1272483:1272483 [0] misc/strongstream.cc:60 NCCL WARN Cuda failure '{error}'\n"
            "(ParaWorker pid=1272483) [ERROR] NCCL error nccl_utils.cc:59 'unhandled cuda error (run with NCCL_DEBUG=INFO "
            "for details)'\n")
    seen = incidents_of(tmp_path / "nccl", {"console.log": text}, ruleset)
    assert seen and seen[0].cause is cause, seen


def test_no_kernel_image_for_the_gpu_is_the_builds_error(tmp_path: Path, ruleset: RuleSet) -> None:
    text = "".join(f"[TM][FATAL][0914.14:00:37.80718{i}][cast.cu:264] CUDA error: no kernel image is available for "
                   "execution on the device\n" for i in range(4))
    text += "/root/start.sh: line 11:     7 Aborted                 (core dumped) lmdeploy serve api_server /models/x\n"
    seen = incidents_of(tmp_path / "tm", {"console.log": text}, ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION, seen


@pytest.mark.parametrize("error, cause", [
    ("MPI_ERR_ROOT: invalid root", Cause.PYTHON_EXCEPTION),
    ("MPI_ERR_TRUNCATE: message truncated", Cause.COLLECTIVE_MISMATCH),
])
def test_open_mpi_rejecting_a_call(tmp_path: Path, ruleset: RuleSet, error: str, cause: Cause) -> None:
    text = ("[g2-nasp:24252] *** An error occurred in MPI_Reduce\n"
            "[g2-nasp:24252] *** reported by process [1911816193,0]\n"
            "[g2-nasp:24252] *** on communicator MPI_COMM_WORLD\n"
            f"[g2-nasp:24252] *** {error}\n"
            "[g2-nasp:24252] *** MPI_ERRORS_ARE_FATAL (processes in this communicator will now abort,\n"
            "[g2-nasp:24252] ***    and potentially your MPI job)\n")
    seen = incidents_of(tmp_path / "mpi", {"console.log": text}, ruleset)
    assert seen and seen[0].cause is cause, seen


@pytest.mark.parametrize("last, cause", [
    ("tensorflow.python.framework.errors_impl.UnavailableError: OS Error", Cause.NETWORK),
    ("tensorflow.python.framework.errors_impl.UnavailableError: Socket closed", Cause.NETWORK),
    ("tensorflow.python.framework.errors_impl.InvalidArgumentError: Incompatible shapes: [8] vs. [4]", Cause.PYTHON_EXCEPTION),
])
def test_tensorflow_grpc_peer_unavailable_is_the_network(tmp_path: Path, ruleset: RuleSet, last: str,
                                                         cause: Cause) -> None:
    text = ("2018-05-15 18:32:49.137081: I tensorflow/core/distributed_runtime/master.cc:221] CreateSession still "
            "waiting for response from worker: /job:ps/replica:0/task:1\n"
            "Traceback (most recent call last):\n"
            '  File "tf_cnn_benchmarks.py", line 56, in main\n'
            "    bench.run()\n"
            f"{last}\n")
    seen = incidents_of(tmp_path / "tf", {"console.log": text}, ruleset)
    assert seen and seen[0].cause is cause, seen


def _timeout(rank: int, seq: int, op: str, numel: int, pg: str) -> str:
    return (f"(WorkerDict pid={3490000 + rank}) [rank{rank}]:[E1118 20:32:23.95502874{rank} ProcessGroupNCCL.cpp:1895] "
            f"[PG ID {pg} PG GUID {pg}(default_pg) Rank {rank}] Process group watchdog thread terminated with exception: "
            f"[Rank {rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType={op}, "
            f"NumelIn={numel}, NumelOut={numel}, Timeout(ms)=1800000) ran for 1800024 milliseconds before timing out.\n")


@pytest.mark.parametrize("pg1, cause", [("0", Cause.COLLECTIVE_MISMATCH), ("3", None)])
def test_ranks_of_one_group_timing_out_far_apart_in_different_operations(tmp_path: Path, ruleset: RuleSet,
                                                                        pg1: str, cause: Cause | None) -> None:
    text = (_timeout(1, 2635, "ALLREDUCE", 1, pg1) + _timeout(0, 2667, "_REDUCE_SCATTER_BASE", 46797824, "0")
            # Ray's report of the workers the watchdog took down: no time of its own, below the timeouts
            + "(raylet) A worker died or was killed while executing a task by an unexpected system error. To "
              "troubleshoot the problem, check the logs for the dead worker.\n"
            + "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.\n")
    seen = incidents_of(tmp_path / "fsdp", {"console.log": text}, ruleset)
    assert seen, seen
    if cause is None:  # (two groups number their collectives apart: no comparison)
        assert seen[0].cause is not Cause.COLLECTIVE_MISMATCH, seen
    else:
        assert seen[0].cause is cause, seen


def _stack(rank: int, frames: list[str]) -> str:
    head = f"[rank{rank}]:[E725 02:39:41.24412884{rank} ProcessGroupNCCL.cpp:733] Stack trace of the failed collective: \n"
    torch = "/venv/lib/python3.13/site-packages/torch/distributed"
    body = f"#0 all_reduce from {torch}/distributed_c10d.py:3068\n#1 wrapper from {torch}/c10d_logger.py:83\n"
    body += "".join(f"#{i + 2} {fn} from /src/engine/tensor_parallel.py:{100 + i}\n" for i, fn in enumerate(frames))
    return head + body + "\n"


def _dump(rank: int) -> str:
    return (f"[rank{rank}]:[E725 02:39:40.65286270{rank} ProcessGroupNCCL.cpp:1628] [PG ID 0 PG GUID 0(default_pg) "
            f"Rank {rank}] ProcessGroupNCCL preparing to dump debug info. Include stack trace: 1, only active collectives: 0\n"
            f"[rank{rank}]:[F725 02:47:41.26839489{rank} ProcessGroupNCCL.cpp:1653] [PG ID 0 PG GUID 0(default_pg) Rank "
            f"{rank}] [PG ID 0 PG GUID 0(default_pg) Rank {rank}] Terminating the process after attempting to dump debug "
            "info, due to collective timeout or exception.\n")


@pytest.mark.parametrize("odd, cause, rank", [
    (["_decode_linear_all_reduce", "forward_prefill"], Cause.COLLECTIVE_MISMATCH, 3),
    (["_capture_succeeded_on_all_ranks", "try_prefill_graph"], Cause.HANG, None),
])
def test_failed_collectives_launched_from_different_places(tmp_path: Path, ruleset: RuleSet, odd: list[str],
                                                          cause: Cause, rank: int | None) -> None:
    same = ["_capture_succeeded_on_all_ranks", "try_prefill_graph"]
    text = "".join(_dump(r) for r in range(4))
    text += _stack(1, same) + _stack(2, same) + _stack(3, odd)
    seen = incidents_of(tmp_path / "tp", {"console.log": text}, ruleset)
    assert seen and seen[0].cause is cause, seen
    if rank is not None:
        assert seen[0].rank == rank, seen


@pytest.mark.parametrize("line", [
    # (XLA's NCCL call, after the set-aside's scoring)
    "  (0) INTERNAL:  Failed to execute XLA Runtime executable: run time error: custom call 'xla.gpu.all_reduce' failed: "
    "external/local_xla/xla/service/gpu/nccl_utils.cc:297: NCCL operation ncclCommInitRank(&comm, nranks, id, rank) "
    "failed: invalid usage; ",
    # (TurboMind with no GEMM built for the GPU)
    "[TM][FATAL][0814.22:31:20.267204][gemm.cu:327] No feasible kernel found for the problem: "
    "sm75_f16_e4m3b128_f16_ttt_fff_8x2048x1024_1",
])
def test_more_of_the_programs_and_the_builds_errors(tmp_path: Path, ruleset: RuleSet, line: str) -> None:
    seen = incidents_of(tmp_path / "run", {"console.log": line + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION, seen
