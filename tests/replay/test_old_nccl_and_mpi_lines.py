"""Lines from the sixth session's development cases (replay_logs/real/Q-*, R-*): NCCL before 2.4
names a process's rank only in "rank 1 nranks 2" (its header's pid places its other lines), NCCL
2.2's WARN without the word NCCL, NCCL's error class taking the cause its detail line gives,
MPICH's exit string, mpirun's first non-zero exit, Horovod's shut-down and Ray's memory monitor."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of


def test_an_old_nccl_comm_line_ties_a_warn_lines_pid_to_its_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    # R-horovod-1651: both hosts' lines in one paste, the failing verbs call on ta1-1 first
    got = incidents_of(tmp_path, {"train.log": (
        "ta1-1:2712:2824 [0] misc/ibvwrap.cu:280 NCCL WARN Call to ibv_create_qp failed\n"
        "ta1-1:2712:2824 [0] NCCL INFO transport/net_ib.cu:371 -> 2\n"
        "ta1-0:2668:2780 [0] NCCL INFO rank 0 nranks 2\n"
        "ta1-1:2712:2824 [0] NCCL INFO rank 1 nranks 2\n"
        "ta1-0:2668:2780 [0] NCCL INFO comm 0x7f0a8834b870 rank 0 nranks 2\n")}, ruleset)
    assert [(g.cause, g.rank, g.node) for g in got] == [(Cause.NETWORK, 1, "ta1-1")]


def test_the_pid_of_another_host_does_not_place_a_line(tmp_path: Path, ruleset: RuleSet) -> None:
    # the same pid on two hosts: only the host's own communicator line counts
    got = incidents_of(tmp_path, {"train.log": (
        "hostb:2712:2824 [0] misc/ibvwrap.cu:280 NCCL WARN Call to ibv_create_qp failed\n"
        "hosta:2712:2780 [0] NCCL INFO rank 0 nranks 2\n"
        "hostc:4000:4001 [0] NCCL INFO rank 1 nranks 2\n")}, ruleset)
    assert [(g.cause, g.rank, g.node) for g in got] == [(Cause.NETWORK, None, "hostb")]


def test_nccl_2_2_socket_warn_without_the_word_nccl_is_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    # R-nccltests-15: bootstrap could not reach the other host
    got = incidents_of(tmp_path, {"output.log": (
        "NCCL version 2.2.13+cuda9.0\n"
        "gpu-07:18553:18612 [0] INFO comm 0x7fa42c00a3b0 rank 0 nranks 2\n"
        "gpu-07:18553:18611 [0] include/socket.h:360 WARN Call to connect failed : Connection timed out\n"
        "gpu-07:18553:18611 [0] INFO bootstrap.cu:28 -> 2 [Net]\n")}, ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.NETWORK, False)]


def test_the_error_class_takes_the_cause_of_its_detail_line(tmp_path: Path, ruleset: RuleSet) -> None:
    # Q-torchtitan-1224: "invalid usage" is the class; the duplicate GPU is what NCCL saw
    got = incidents_of(tmp_path, {"train.log": (
        "[rank2]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
        "NCCLUtils.cpp:77, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.26.5\n"
        "[rank2]: ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\n"
        "[rank2]: Last error:\n"
        "[rank2]: Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 6000\n")}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.PYTHON_EXCEPTION, 2)]
    # R-pytorch-177472: "unhandled cuda error" whose detail blames the NVSwitch fabric
    got = incidents_of(tmp_path / "nvls", {"test.log": (
        "torch.distributed.DistBackendError: NCCL error in: NCCLUtils.cpp:93, unhandled cuda error (run with "
        "NCCL_DEBUG=INFO for details), NCCL version 2.29.3\n"
        "ncclUnhandledCudaError: Call to CUDA function failed.\n"
        "Last error:\n"
        "Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 'the operation "
        "cannot be performed in the present state'.\n")}, ruleset)
    assert [g.cause for g in got] == [Cause.NVLINK]


def test_an_error_class_far_from_any_detail_keeps_its_own_cause(tmp_path: Path, ruleset: RuleSet) -> None:
    filler = "".join(f"[rank0]: step {i} loss 0.5\n" for i in range(60))
    got = incidents_of(tmp_path, {"train.log": (
        "[rank1]: Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 6000\n" + filler +
        "[rank0]: torch.distributed.DistBackendError: NCCL error in: NCCLUtils.cpp:77, unhandled cuda error, "
        "NCCL version 2.26.5\n")}, ruleset)
    # (the duplicate GPU is another rank's, 60 lines before: not this error's detail; rank 0's
    # class alone names no cause, and the duplicate GPU is the run's reading)
    seen = [(g.cause, g.rank) for g in got]
    assert seen[:1] == [(Cause.PYTHON_EXCEPTION, 1)]
    assert (Cause.PYTHON_EXCEPTION, 0) not in seen


def test_mpich_exit_string_is_a_crash_signal(tmp_path: Path, ruleset: RuleSet) -> None:
    # R-mlsh-17: Hydra's banner, the signal in its last line
    got = incidents_of(tmp_path, {"mpirun.log": (
        "=====================================================================================\n"
        "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n"
        "=   EXIT CODE: 135\n"
        "=   CLEANING UP REMAINING PROCESSES\n"
        "=====================================================================================\n"
        "APPLICATION TERMINATED WITH THE EXIT STRING: Bus error (signal 7)\n")}, ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.CRASH_SIGNAL, False)]
    assert any("Bus error (signal 7)" in e for e in got[0].evidence)


def test_mpiruns_first_non_zero_exit_names_the_rank_the_others_followed(tmp_path: Path, ruleset: RuleSet) -> None:
    # Q-uniter-31: rank 1 only says Horovod shut down; mpirun names rank 0 as the first to exit
    got = incidents_of(tmp_path, {"train.log": (
        "[1,1]<stderr>:RuntimeError: Horovod has been shut down. This was caused by an exception on one of the "
        "ranks or an attempt to allreduce, allgather or broadcast a tensor after one of the ranks finished execution.\n"
        "mpirun detected that one or more processes exited with non-zero status, thus causing\n"
        "the job to be terminated. The first process to do so was:\n"
        "\n"
        "  Process name: [[50371,1],0]\n"
        "  Exit code:    1\n")}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.PYTHON_EXCEPTION, 0)]


def test_the_first_exit_does_not_outrank_a_line_that_says_what_failed(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "[1,1]<stderr>:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total "
        "capacity of 79.10 GiB of which 1.00 GiB is free.\n"
        "  Process name: [[50371,1],0]\n"
        "  Exit code:    1\n")}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.CUDA_OOM, 1)]


def test_rays_memory_monitor_is_a_host_oom_kill_on_its_node(tmp_path: Path, ruleset: RuleSet) -> None:
    # Q-vllm-2669
    got = incidents_of(tmp_path, {"output.log": (
        "Memory on the node (IP: 169.254.181.2, ID: 708c7baf966d59aa3f08299830c349ca055293ebb1c33d8e72cd3336) where "
        "the task (actor ID: 0dab4ab45f6c947201afac6d01000000, name=RayWorkerVllm.__init__, pid=308, memory "
        "used=11.15GB) was running was 12.49GB / 13.15GB (0.950003), which exceeds the memory usage threshold of "
        "0.95. Ray killed this worker (ID: 79a553ea91fe46f95e8384ddf8a8f0a01e3418a975ecd0af983c7bb2) because it was "
        "the most recently scheduled task.\n")}, ruleset)
    assert [(g.cause, g.node, g.drain) for g in got] == [(Cause.HOST_OOM_KILL, "169.254.181.2", False)]


def test_a_grep_file_prefix_does_not_hide_the_nccl_hosts_name(tmp_path: Path, ruleset: RuleSet) -> None:
    # R-llmd-191: a maintainer's `grep net_ib *.log` before the NCCL header
    got = incidents_of(tmp_path, {"net_ib.log": (
        "prefill-2.log:[2025-09-17 15:16:23] prefill-2:311:405 [0] transport/net_ib.cc:199 NCCL WARN NET/IB : "
        "mlx5_32:1 Got async error event: port error\n")}, ruleset)
    assert [(g.cause, g.node) for g in got] == [(Cause.NETWORK, "prefill-2")]


def test_system_not_yet_initialized_is_the_fabric_on_the_host_nccl_tests_names(tmp_path: Path, ruleset: RuleSet) -> None:
    # T-nccltests-264: an NVSwitch machine whose Fabric Manager was not running
    got = incidents_of(tmp_path, {"all_reduce_perf.log": (
        "# nThread 1 nGpus 8 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20\n"
        "# Using devices\n"
        "gpu-h100-3: Test CUDA failure common.cu:941 'system not yet initialized'\n"
        " .. gpu-h100-3 pid 54340: Test failure common.cu:891\n")}, ruleset)
    assert [(g.cause, g.node) for g in got] == [(Cause.NVLINK, "gpu-h100-3")]


def test_an_nvls_cuda_failure_cut_before_its_closing_quote(tmp_path: Path, ruleset: RuleSet) -> None:
    # T-nccltests-276: the only line pasted, its quote cut
    got = incidents_of(tmp_path, {"nccl.log": (
        "gpu47:4962:5097 [1] transport/nvls.cc:223 NCCL WARN Cuda failure 999 'unknown error\n")}, ruleset)
    assert [(g.cause, g.node) for g in got] == [(Cause.NVLINK, "gpu47")]


def test_rank_0s_pid_is_found_and_another_nodes_same_pid_does_not_stand_in(tmp_path: Path, ruleset: RuleSet) -> None:
    # containers give ranks on two nodes the same pid; rank 0 is a rank like any other
    got = incidents_of(tmp_path, {"job.log": (
        "2026-11-29 12:00:00,000 starting job\n"
        "[stderr] nodeb:15:91 [0] NCCL INFO comm 0x650f74e56d60 rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId 1c000 "
        "commId 0x5e3f7a1c22b04d19 - Init COMPLETE\n"
        "[stderr] nodea:15:91 [0] NCCL INFO comm 0x650f74e56d61 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1c000 "
        "commId 0x5e3f7a1c22b04d19 - Init COMPLETE\n"
        "[stderr] nodea:15:95 [0] transport/nvls.cc:244 NCCL WARN Cuda failure 1 'invalid argument'\n")}, ruleset)
    assert [(g.cause, g.rank, g.node) for g in got] == [(Cause.NVLINK, 0, "nodea")]


def test_a_store_hosts_name_in_one_rule_is_not_the_lines_node(tmp_path: Path, ruleset: RuleSet) -> None:
    from detector.replay import replay_path
    from tests.support.replaying import write_run

    root = write_run(tmp_path, {"worker3.log": (
        "2026-01-01 10:30:00,000 ERROR torch.distributed.DistNetworkError: The client socket has timed out after "
        "1800s while trying to connect to (node01, 29500).\n")})
    report = replay_path(root, ruleset)
    nodes = {f.rule: f.node for i in report.incidents for f in i.evidence}
    assert nodes.get("torch.dist_error", "absent") in (None, "absent")


def test_nccl_invalid_argument_is_the_launch_or_the_code_not_a_node(tmp_path: Path, ruleset: RuleSet) -> None:
    # DS-insightface-1302: four processes launched into a process group of world size 1
    got = incidents_of(tmp_path, {"console.log": (
        'File "/anaconda3/lib/python3.8/site-packages/torch/distributed/distributed_c10d.py", line 842, in broadcast\n'
        "    work = _default_pg.broadcast([tensor], opts)\n"
        "RuntimeError: NCCL error in: /opt/conda/conda-bld/pytorch_1595629395347/work/torch/lib/c10d/../c10d/"
        "NCCLUtils.hpp:82, invalid argument, NCCL version 2.4.8\n")}, ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.PYTHON_EXCEPTION, False)]
