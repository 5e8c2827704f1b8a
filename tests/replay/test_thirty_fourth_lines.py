"""The thirty-fourth session's readings: a rank whose heartbeat monitor fired with no collective in
flight (the one the others wait for), the rank behind by its step lines over a combined log's
last stamps, DeepSpeed's per-node "node_rank" placing the local ranks its exit lines name, and
lines of other stacks and launchers (a script the interpreter cannot open, HCCL's RoCE, topology
and retry-service errors, MindSpore's device ordinal, PMIx's start-up, UCX's backtrace)."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of

_A, _B = "gpu-a17", "gpu-b42"


def _two_rank_heartbeat(work_items: int) -> str:
    """Two ranks on two nodes (pdsh's "host: " prefixes): rank 0's watchdog times out in an
    all-reduce; rank 1's heartbeat monitor fires later, with ``work_items`` collectives in flight."""
    a, b = f"{_A}: ", f"{_B}: "
    return "\n".join([
        a + f"{_A}:5501:5560 [0] NCCL INFO comm 0x11 rank 0 nranks 2 cudaDev 0 busId 1b000 - Init COMPLETE",
        b + f"{_B}:7702:7790 [0] NCCL INFO comm 0x22 rank 1 nranks 2 cudaDev 0 busId 1b000 - Init COMPLETE",
        a + "[2025-03-02 10:00:00,100] [INFO] [logging.py:128:log_dist] [Rank 0] step=100, skipped=0, lr=[1e-05]",
        a + "[rank0]:[E302 10:40:00.100000000 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation "
            "timeout: WorkNCCL(SeqNum=4411, OpType=ALLREDUCE, NumelIn=1024, NumelOut=1024, Timeout(ms)=600000) ran for "
            "600100 milliseconds before timing out.",
        a + "[rank0]:[E302 10:40:00.100000000 ProcessGroupNCCL.cpp:630] [Rank 0] Some NCCL operations have failed or "
            "timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on "
            "corrupted/incomplete data.",
        a + "[2025-03-02 10:40:02,500] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python', '-u', 'train.py', "
            "'--local_rank=0'] exits with return code = -6",
        b + f"[rank1]:[E302 10:48:00.200000000 ProcessGroupNCCL.cpp:1415] [PG ID 0 PG GUID 0(default_pg) Rank 1] Heartbeat "
            f"monitor timed out! Process will be terminated after dumping debug info. workMetaList_.size()={work_items}",
        b + "[rank1]:[E302 10:48:00.200000000 ProcessGroupNCCL.cpp:1464] [Rank 1] ProcessGroupNCCL's watchdog got stuck "
            "for 480 seconds without making progress in monitoring enqueued collectives.",
    ]) + "\n"


def test_a_rank_whose_heartbeat_fired_with_no_collective_in_flight_is_the_one_the_others_wait_for(
        tmp_path: Path, ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path / "idle", {"launcher.log": _two_rank_heartbeat(0)}, ruleset)
    assert [(i.cause, i.rank, i.node) for i in seen] == [(Cause.HANG, 1, _B)], seen
    assert "no collective in flight" in seen[0].explanation, seen[0].explanation


def test_a_rank_whose_heartbeat_fired_with_a_collective_in_flight_waited_like_the_others(
        tmp_path: Path, ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path / "busy", {"launcher.log": _two_rank_heartbeat(1)}, ruleset)
    assert seen and seen[0].cause is Cause.HANG, seen
    assert seen[0].rank is None, seen  # both waited in a collective: nothing sets one apart


def _mpirun_steps(n_ranks: int, behind: int, quiet: int) -> str:
    """Open MPI's --timestamp-output log of ``n_ranks`` ranks logging every 5 steps; ``behind``
    stops at step 80, the others reach step 85; ten minutes later a third of the ranks report the
    watchdog's timeout. ``quiet`` logs its own (inner) stamps half a minute behind the launcher's,
    and is the only rank without a timeout whose last step line is near the file's end."""
    lines = []
    for step in range(5, 90, 5):
        for rank in range(n_ranks):
            if rank == behind and step > 80:
                continue
            t = 1757240000 + step * 4 + (1 if rank == quiet else 0)
            outer = f"Sun Sep  7 10:{(t // 60) % 60:02d}:{t % 60:02d} 2025[1,{rank}]<stdout>:"
            skew = 31 if rank == quiet else 0
            inner_t = t - skew
            lines.append(outer + f"2025-09-07 10:{(inner_t // 60) % 60:02d}:{inner_t % 60:02d}.500 | INFO     | "
                                 f"trainer:step:212 - [rank {rank}] step={step} loss=7.1 fwd_bwd_ms=3100.0 "
                                 f"wait_ms=150.0 data_s=0.01" + " " * 120)
    for rank in range(0, n_ranks, 3):
        if rank in (behind, quiet):
            continue
        lines.append(f"Sun Sep  7 10:34:04 2025[1,{rank}]<stderr>:[rank{rank}]:[E ProcessGroupNCCL.cpp:563] [Rank {rank}] "
                     "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=126, OpType=ALLGATHER, "
                     "NumelIn=1953125, NumelOut=125000000, Timeout(ms)=600000) ran for 600243 milliseconds before timing out.")
    return "\n".join(lines) + "\n"


def test_the_rank_behind_by_its_step_lines_outweighs_a_combined_log_s_last_stamp(tmp_path: Path, ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path / "steps", {"job-5501.out": _mpirun_steps(64, behind=5, quiet=53)}, ruleset)
    assert [(i.cause, i.rank) for i in seen] == [(Cause.HANG, 5)], seen


def _pdsh_deepspeed(failing_node: str, failing_local: int) -> str:
    """DeepSpeed's launcher on two nodes of four workers (pdsh's "host: " prefixes); one worker
    raises (its traceback has no rank prefix), the launcher of its node reports its exit by
    --local_rank, the other node's launcher kills its workers."""
    lines = []
    for node_rank, host in enumerate((_A, _B)):
        lines.append(f"{host}: [2025-04-01 08:00:01,000] [INFO] [launch.py:152:main] nnodes=2, num_local_procs=4, "
                     f"node_rank={node_rank}")
    for host in (_A, _B):
        for local in range(4):
            lines.append(f"{host}: [2025-04-01 08:00:02,000] [INFO] [launch.py:256:main] process {4000 + local} spawned "
                         f"with command: ['/usr/bin/python', '-u', 'train.py', '--local_rank={local}']")
    p = f"{failing_node}: "
    lines += [p + "Traceback (most recent call last):",
              p + '  File "/work/train.py", line 212, in <module>',
              p + "    loss = model(batch)",
              p + "ValueError: Expected input batch_size (16) to match target batch_size (12).",
              p + f"[2025-04-01 08:31:00,400] [INFO] [launch.py:319:sigkill_handler] Killing subprocess {4000 + failing_local}",
              p + "[2025-04-01 08:31:00,600] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python', '-u', 'train.py', "
                  f"'--local_rank={failing_local}'] exits with return code = 1"]
    return "\n".join(lines) + "\n"


def test_deepspeed_s_node_rank_places_the_local_rank_its_exit_line_names(tmp_path: Path, ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path / "ds", {"launcher.log": _pdsh_deepspeed(_B, 1)}, ruleset)
    assert [(i.cause, i.rank, i.node) for i in seen] == [(Cause.PYTHON_EXCEPTION, 5, _B)], seen


def test_without_node_rank_lines_a_local_rank_on_a_second_node_names_no_global_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    text = "\n".join(line for line in _pdsh_deepspeed(_B, 1).splitlines() if "node_rank=" not in line) + "\n"
    seen = incidents_of(tmp_path / "ds2", {"launcher.log": text}, ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION and seen[0].node == _B, seen
    assert seen[0].rank is None, seen  # (never local rank 1 read as global rank 1, node A's)


def test_deepspeed_s_rank_mapping_outweighs_the_node_rank_estimate_when_nodes_run_unequal_numbers(
        tmp_path: Path, ruleset: RuleSet) -> None:
    # node A runs 4 workers, node B 2: node B's local rank 1 is global rank 5 (the launcher's map),
    # not 1 * 2 + 1 = 3 (node_rank times its own number of workers), one of node A's ranks
    head = []
    for host, node_rank, procs in ((_B, 1, 2), (_A, 0, 4)):
        head += [f"{host}: [2025-04-01 08:00:01,000] [INFO] [launch.py:152:main] nnodes=2, num_local_procs={procs}, "
                 f"node_rank={node_rank}",
                 f"{host}: [2025-04-01 08:00:01,001] [INFO] [launch.py:162:main] global_rank_mapping=defaultdict("
                 f"<class 'list'>, {{'{_A}': [0, 1, 2, 3], '{_B}': [4, 5]}})"]
    body = [line for line in _pdsh_deepspeed(_B, 1).splitlines() if "node_rank=" not in line]
    seen = incidents_of(tmp_path / "het", {"launcher.log": "\n".join(head + body) + "\n"}, ruleset)
    assert [(i.cause, i.rank, i.node) for i in seen] == [(Cause.PYTHON_EXCEPTION, 5, _B)], seen


@pytest.mark.parametrize(("lines", "cause", "rank", "node"), [
    # the interpreter cannot open the script torchrun was given: every worker exits with code 2
    (["W1220 12:53:28.841000 140313275897664 torch/distributed/run.py:779] *****************************************"]
     + ["/opt/conda/bin/python: can't open file '/data/project/sample_parallel.py': [Errno 2] No such file or directory"] * 4,
     Cause.PYTHON_EXCEPTION, None, None),
    # Ascend: a RoCE link's error completion (EI0013) between two devices of a collective
    (["[PID: 3448331] 2025-12-04-21:59:08.232.310 Execution Error ROCE CQE(EI0013): An error CQE occurred during operator "
      "execution. Local information: server 10.2.0.1, device ID 0, device IP 10.20.0.1. Peer information: server 10.2.0.2, "
      "device ID 1, device IP 10.20.0.2."], Cause.NETWORK, None, None),
    # Ascend: the root's topology exchange timed out, some ranks never connected (EI0015)
    (["[ERROR] HCCL(104108,allreduce):2024-03-15-01:20:01.624.966 [topoinfo_exchange_server.cc:314] [104136][InitGroupStage]"
      "[RanktableDetect]topo exchange server get socket timeout! timeout[120 s]"], Cause.UNKNOWN, None, None),
    # Ascend: the operation-retry service of world rank 9 could not reach its server
    (["[OpRetryConnection][Init] group[hccl_world_group] rankId [9] rankSize [64] serverIp [10.9.7.29] localIp [10.9.7.31] "
      "rootRank [0] failed"], Cause.NETWORK, 9, "10.9.7.31"),
    # MindSpore's GPU runtime: a device id beyond CUDA_VISIBLE_DEVICES
    (["[ERROR] DEVICE [mindspore/ccsrc/runtime/device/gpu/cuda_driver.cc:245] SetDevice] SetDevice for id:7 failed, ret[101], "
      "invalid device ordinal. Please make sure that the 'device_id' set in context is in the range:[0, total number of GPU)."],
     Cause.PYTHON_EXCEPTION, None, None),
    # PMIx could not start under srun: the job's set-up, before any GPU work
    (["It looks like pmix_init failed for some reason; your parallel process is",
      "likely to abort.  There are many reasons that a parallel process can"], Cause.PYTHON_EXCEPTION, None, None),
    # ggml's CUDA backend (llama.cpp's RPC server) stops on a CUDA error its name does not explain
    (["Accepted client connection, free_mem=8059486208, total_mem=8222670848",
      "CUDA error: CUBLAS_STATUS_NOT_INITIALIZED",
      "  current device: 0, in function cublas_handle at /src/ggml/ggml-cuda/common.cuh:644"], Cause.UNKNOWN, None, None),
    # (after fresh33's scoring) ROCm aborting a queue on a kernel's fault, cuBLAS's failed kernel,
    # HCCL's missing socket interface (EI0001) and its SDMA copy error (EI0012)
    ([":0:rocdevice.cpp            :3675: 2139490044663 us:  Callback: Queue 0x7ee7b4200000 aborting with error : "
      "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to access memory beyond the largest legal address."],
     Cause.ILLEGAL_MEMORY_ACCESS, None, None),
    (["RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, opa, opb, m, n, k)`"],
     Cause.ILLEGAL_MEMORY_ACCESS, None, None),
    (["[ERROR] HCCL(925892,alltoall_test):2025-10-28-16:34:59.634.432 [sal.cc:501] [925892][InitGroupStage][EnvConfig]set "
      "ifname to [abc] by HCCL_SOCKET_IFNAME, but not found in the environment, ifnames in the environment is as follows"],
     Cause.NETWORK, None, None),
    (["[ERROR] RUNTIME(57096,python3.10):2025-05-12-20:55:44.705.025 [task_info.cc:1170]57288 PrintSdmaErrorInfoForFftsPlusTask:"
      "fftsplus task execute failed, dev_id=0, stream_id=50, task_id=21, context_id=18, thread_id=0, err_type=4[fftsplus sdma error]"],
     Cause.ILLEGAL_MEMORY_ACCESS, None, None),
    # UCX's backtrace of a crashed thread, the "Caught signal" line above it cut from the paste
    (["==== backtrace (tid:  92543) ====",
      " 0 0x0000000000014420 __funlockfile()  ???:0",
      " 1 0x000000000000bac5 ncclGetSocketState()  ???:0"], Cause.CRASH_SIGNAL, None, None),
])
def test_lines_of_other_stacks_and_launchers(tmp_path: Path, ruleset: RuleSet, lines: list[str], cause: Cause,
                                            rank: int | None, node: str | None) -> None:
    seen = incidents_of(tmp_path / "run", {"console.log": "\n".join(lines) + "\n"}, ruleset)
    assert [(i.cause, i.rank, i.node) for i in seen[:1]] == [(cause, rank, node)], seen


def test_loguru_s_source_location_of_a_function_named_step_is_no_step() -> None:
    from detector.stats.presets import parse_generic
    rec = parse_generic("2025-09-07 10:14:20.500 | INFO     | trainer:step:212 - [rank 63] step=15 loss=7.1 "
                        "fwd_bwd_ms=3100.0 wait_ms=150.0")
    assert rec is not None and rec.step == 15, rec
    rec = parse_generic("INFO:root:step 100 loss 1.2 step_time=0.45s")
    assert rec is not None and rec.step == 100, rec


def test_a_ray_error_naming_its_actor_s_rank_places_the_exception_on_that_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    # (the rule that reads the rank explains nothing of the line: the uncaught exception still counts)
    line = ("ray.exceptions.ActorDiedError: The actor died because of an error raised in its creation task, "
            "ray::lm_policy-1-3:MegatronPolicyWorker.__init__() (pid=219146, ip=100.64.240.80, "
            "actor_id=8562bae60896d129459db77a09000000, repr=MegatronPolicyWorker[rank=11])")
    seen = incidents_of(tmp_path / "ray", {"console.log": line + "\n"}, ruleset)
    assert [(i.cause, i.rank, i.node) for i in seen] == [(Cause.PYTHON_EXCEPTION, 11, "100.64.240.80")], seen


def _npu_notify_timeouts(waited_for: str) -> str:
    """Ascend ranks 0-3 time out in an all-reduce waiting for ``waited_for``'s notify record, then
    torch_npu's device synchronisation times out (error 507048) and is raised."""
    lines = []
    for rank in range(4):
        p = f"[rank{rank}]: "
        lines += [p + f"EI0002: [PID: 2785{rank}] 2025-04-16-04:02:38.285.369 The wait execution of the Notify register "
                      "times out. Reason: The Notify register has not received the Notify record from remote rank: "
                      f"[{waited_for}]. base information: [streamID:[9], taskID[8099155], taskType[Notify Wait]",
                  p + "RuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:467 NPU "
                      "function error: AclrtSynchronizeDeviceWithTimeout, error code is 507048"]
    return "\n".join(lines) + "\n"


def test_npu_ranks_that_timed_out_waiting_for_one_rank_point_at_it_and_raise_no_exception_of_their_own(
        tmp_path: Path, ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path / "npu", {"train.log": _npu_notify_timeouts("5")}, ruleset)
    assert [(i.cause, i.rank) for i in seen] == [(Cause.HANG, 5)], seen
    seen = incidents_of(tmp_path / "npu2", {"train.log": _npu_notify_timeouts("unknown")}, ruleset)
    assert [(i.cause, i.rank) for i in seen] == [(Cause.HANG, None)], seen
    # a sub-communicator's remote rank (torch_npu's "group_name_N") is that group's, no job rank
    sub = _npu_notify_timeouts("5").replace("taskType[Notify Wait]", "taskType[Notify Wait], tag[AllReduce_group_name_1654]")
    seen = incidents_of(tmp_path / "npu3", {"train.log": sub}, ruleset)
    assert [(i.cause, i.rank) for i in seen] == [(Cause.HANG, None)], seen


def test_a_nic_module_unplugged_without_the_driver_s_function_name_drains_its_node(tmp_path: Path, ruleset: RuleSet) -> None:
    kern = ("Oct 01 12:10:02 worker-1 kernel: mlx5_core 0000:cc:00.0: firmware version: 28.39.1002\n"
            "Oct 01 12:15:36 worker-1 kernel: mlx5_core 0000:cc:00.0: Port module event: module 7, Cable unplugged\n")
    seen = incidents_of(tmp_path / "nic", {"kern.log": kern}, ruleset)
    assert [(i.cause, i.node, i.drain) for i in seen] == [(Cause.NETWORK, "worker-1", True)], seen


def _per_task_run(kernel: str) -> dict[str, str]:
    """srun with one output file per task (``--output=logs/%x-%j-%3t.out``): task 4 raises, srun
    ends the step (Slurm's cancellation is the only time the launcher's lines give), and a node's
    kernel log."""
    files = {"slurm-35744577.out": (
        "+ srun --output=logs/%x-%j-%3t.out --kill-on-bad-exit=1 python -u train.py\n"
        "srun: error: gpu-n1: task 4: Exited with exit code 1\n"
        "srun: launch/slurm: _step_signal: Terminating StepId=35744577.0\n"
        "slurmstepd: error: *** STEP 35744577.0 ON gpu-n1 CANCELLED AT 2025-03-19T06:04:00 ***\n"
        "srun: error: gpu-n1: tasks 0-3,5-7: Terminated\n"),
        "dmesg/gpu-n2.txt": "[Wed Mar 19 05:10:00 2025] mlx5_core 0000:3c:00.0: firmware version: 28.39.1002\n" + kernel}
    for task in range(8):
        text = f"loading data shard {task}\nstep 10 loss 2.1\n"
        if task == 4:
            text += ('Traceback (most recent call last):\n  File "/work/train.py", line 90, in <module>\n'
                     "    assert batch.shape[0] == 16\nAssertionError\n")
        files[f"logs/train-35744577-{task:03d}.out"] = text
    return files


def test_a_gpu_fault_after_slurm_ended_the_step_is_not_what_ended_it(tmp_path: Path, ruleset: RuleSet) -> None:
    xid = "[Wed Mar 19 06:15:14 2025] NVRM: Xid (PCI:0000:1b:00): 79, pid=1234, GPU has fallen off the bus.\n"
    seen = incidents_of(tmp_path / "late", _per_task_run(xid), ruleset)
    assert [(i.cause, i.rank) for i in seen] == [(Cause.PYTHON_EXCEPTION, 4), (Cause.GPU_HARDWARE, None)], seen


def _loader_timeout_then(kernel: str) -> dict[str, str]:
    """Two nodes' torchrun logs: rank 3's data loader times out at 10:00:00, the others' watchdogs
    fire half an hour later; node B's kernel log holds ``kernel``."""
    a = "\n".join(f"[default{r}]:[rank{r}]:[E319 10:30:0{r}.000000000 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught "
                  "collective operation timeout: WorkNCCL(SeqNum=88, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
                  "Timeout(ms)=1800000) ran for 1800100 milliseconds before timing out." for r in range(3))
    b = ("[default3]:[rank3]:2025-03-19 10:00:00,000 ERROR Traceback (most recent call last):\n"
         "[default3]:[rank3]: RuntimeError: DataLoader timed out after 120 seconds\n")
    return {"node-a/torchrun.log": a + "\n", "node-b/torchrun.log": b, "node-b/kern.log": kernel}


def test_a_nic_fault_minutes_after_another_failure_began_comes_second(tmp_path: Path, ruleset: RuleSet) -> None:
    unplugged = "Mar 19 10:04:00 node-b kernel: mlx5_core 0000:3c:00.0: Port module event: module 4, Cable unplugged\n"
    seen = incidents_of(tmp_path / "late-nic", _loader_timeout_then(unplugged), ruleset)
    assert [i.cause for i in seen][:2] == [Cause.DATA_LOADER_STALL, Cause.NETWORK], seen
    assert seen[1].drain, seen  # (its cable still came out: its node is still drained)


def test_a_nic_cable_plugged_back_within_a_minute_after_the_failure_is_no_incident(tmp_path: Path, ruleset: RuleSet) -> None:
    flap = ("Mar 19 10:04:00 node-b kernel: mlx5_core 0000:3c:00.0: Port module event: module 4, Cable unplugged\n"
            "Mar 19 10:04:40 node-b kernel: mlx5_core 0000:3c:00.0: Port module event: module 4, Cable plugged\n")
    seen = incidents_of(tmp_path / "flap", _loader_timeout_then(flap), ruleset)
    assert [i.cause for i in seen] == [Cause.DATA_LOADER_STALL], seen
    assert not any(i.drain for i in seen), seen
