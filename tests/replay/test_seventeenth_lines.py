"""Lines from the seventeenth session's development cases: a c10d store client's bare "Socket
Timeout" as a launch's only failure (the store never answered: the network, not a hang), and
Open MPI's report of the process that called MPI_Abort placing an error line that names no rank."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of

_TORCHRUN_BANNER = (
    "W0930 13:46:40.693000 140480229872320 torch/distributed/run.py:779]\n"
    "W0930 13:46:40.693000 140480229872320 torch/distributed/run.py:779] *****************************************\n"
    "W0930 13:46:40.693000 140480229872320 torch/distributed/run.py:779] Setting OMP_NUM_THREADS environment "
    "variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the "
    "variable for optimal performance in your application as needed.\n"
    "W0930 13:46:40.693000 140480229872320 torch/distributed/run.py:779] *****************************************\n")


def test_a_store_socket_timeout_as_the_launch_s_only_failure_is_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": _TORCHRUN_BANNER + "torch.distributed.DistStoreError: Socket Timeout\n"},
                       ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.NETWORK, False)]
    assert any("Socket Timeout" in t for t in got[0].evidence)


def test_an_older_runtime_error_socket_timeout_on_every_rank_is_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {
        "rank0.log": "[rank0]: RuntimeError: Socket Timeout\n",
        "rank1.log": "[rank1]: RuntimeError: Socket Timeout\n"}, ruleset)
    assert [g.cause for g in got] == [Cause.NETWORK]


def test_a_store_socket_timeout_after_a_rank_s_own_exception_is_collateral(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "train.py", line 12, in <module>\n'
        "[rank0]: KeyError: 'input_ids'\n"
        "[rank1]: torch.distributed.DistStoreError: Socket Timeout\n")}, ruleset)
    assert [(g.cause, g.rank) for g in got][:1] == [(Cause.PYTHON_EXCEPTION, 0)]


def test_a_socket_timeout_in_a_main_process_first_barrier_is_rank_0_straggling(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 40, in build_loader\n'
        "    with torch_distributed_zero_first(rank):\n"
        '  File "/usr/lib/python3.10/contextlib.py", line 135, in __enter__\n'
        "    return next(self.gen)\n"
        '  File "utils/torch_utils.py", line 25, in torch_distributed_zero_first\n'
        "    dist.barrier(device_ids=[local_rank])\n"
        '  File "torch/distributed/distributed_c10d.py", line 2420, in barrier\n'
        "    work = default_pg.barrier(opts=opts)\n"
        "RuntimeError: Socket Timeout\n")}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.STRAGGLER, 0)]


_MPI_ABORT = (
    "--------------------------------------------------------------------------\n"
    "MPI_ABORT was invoked on rank {rank} in communicator MPI_COMM_WORLD\n"
    "with errorcode 0.\n"
    "\n"
    "NOTE: invoking MPI_ABORT causes Open MPI to kill all MPI processes.\n"
    "You may or may not see output from other processes, depending on\n"
    "exactly when Open MPI kills them.\n"
    "--------------------------------------------------------------------------\n")


def test_open_mpi_s_abort_report_names_the_rank_of_an_unplaced_error(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"job.out": (
        "cudaStreamSynchronize failed with the following error:\n"
        "\tError 2 cudaErrorMemoryAllocation: out of memory\n" + _MPI_ABORT.format(rank=3))}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.CUDA_OOM, 3)]


def test_two_ranks_calling_mpi_abort_name_neither(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"job.out": (
        "cudaStreamSynchronize failed with the following error:\n"
        "\tError 2 cudaErrorMemoryAllocation: out of memory\n"
        + _MPI_ABORT.format(rank=3) + _MPI_ABORT.format(rank=5))}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.CUDA_OOM, None)]


def test_nccl_finding_no_network_device_with_the_id_it_expected_is_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "All distributed processes registered. Starting with 32 processes\n"
        "graph/topo.h:230 NCCL WARN Could not find NET with id 0\n")}, ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.NETWORK, False)]


def test_deepspeed_s_launcher_failing_in_its_signal_handler_after_ctrl_c_is_a_stop_from_outside(
        tmp_path: Path, ruleset: RuleSet) -> None:
    ranks = "".join(
        f"[2022-10-31 11:03:45,0{r}0] [INFO] [logging.py:68:log_dist] [Rank {r}] step=470, skipped=0, lr=[0.0003]\n"
        for r in range(2))
    got = incidents_of(tmp_path, {"train.log": (
        ranks
        + "Traceback (most recent call last):\n"
        '  File "pretrain_gpt.py", line 300, in <module>\n'
        "    pretrain(train_valid_test_datasets_provider, model_provider, forward_step)\n"
        "KeyboardInterrupt\n"
        "[2022-10-31 11:03:50,563] [INFO] [launch.py:286:sigkill_handler] Killing subprocess 22474\n"
        "Traceback (most recent call last):\n"
        '  File "/opt/conda/lib/python3.8/site-packages/deepspeed/launcher/launch.py", line 300, in sigkill_handler\n'
        "    result_kill = subprocess.Popen(kill_cmd, env=env)\n"
        "NameError: free variable 'kill_cmd' referenced before assignment in enclosing scope\n"
        "[2022-10-31 11:03:54,132] [INFO] [launch.py:295:sigkill_handler] Main process received SIGTERM, exiting\n")},
        ruleset)
    assert [g.cause for g in got] == [Cause.PREEMPTION]


def test_a_logged_storage_error_as_the_last_words_is_the_application_s_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "[2025-03-01 10:00:00] iteration 200/1000 | loss 2.31\n"
        "ERROR: megatron.core.dist_checkpointing.strategies.filesystem_async: Local process 0 encountered an error: "
        "[Errno 5] Input/output error\n")}, ruleset)
    assert [g.cause for g in got] == [Cause.PYTHON_EXCEPTION]
    assert any("Input/output error" in t for t in got[0].evidence)


def test_a_logged_storage_error_that_training_went_on_after_is_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    steps = "".join(f"[2025-03-01 10:{m:02d}:00] iteration {200 + m}/1000 | loss 2.31\n" for m in range(1, 40))
    got = incidents_of(tmp_path, {"train.log": (
        "ERROR: cache writer: could not persist shard: [Errno 28] No space left on device\n" + steps)}, ruleset)
    assert got == []
