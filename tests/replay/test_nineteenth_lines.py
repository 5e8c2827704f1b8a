"""Lines from the nineteenth session's development cases: a process aborted on a socket that lost
its connection ("Transport endpoint is not connected"), the spawned children that then could not
read their start-up data from the dead parent, and stack dumps of a stopped job whose ranks wait
in different collectives."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import causes_of, incidents_of

_ORPHAN = (
    "Traceback (most recent call last):\n"
    '  File "<string>", line 1, in <module>\n'
    '  File "/usr/lib/python3.8/multiprocessing/spawn.py", line 116, in spawn_main\n'
    "    exitcode = _main(fd, parent_sentinel)\n"
    '  File "/usr/lib/python3.8/multiprocessing/spawn.py", line 126, in _main\n'
    "    self = reduction.pickle.load(from_parent)\n"
    "{error}\n")


def test_a_lost_socket_abort_is_the_network_and_the_orphaned_children_are_its_consequence(
        tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("Epoch: [57][ 400/1251]  Time  0.412  Data  0.002  Loss 6.91\n"
           "terminate called after throwing an instance of 'std::system_error'\n"
           "  what():  Transport endpoint is not connected\n"
           + _ORPHAN.format(error="_pickle.UnpicklingError: pickle data was truncated")
           + _ORPHAN.format(error="EOFError: Ran out of input"))
    assert causes_of(tmp_path, {"train.log": log}, ruleset)[:1] == [Cause.NETWORK]


def test_orphaned_spawn_children_alone_are_not_read_as_the_exception(tmp_path: Path, ruleset: RuleSet) -> None:
    log = _ORPHAN.format(error="EOFError: Ran out of input") * 2
    assert Cause.PYTHON_EXCEPTION not in causes_of(tmp_path, {"train.log": log}, ruleset)


def test_a_spawned_child_that_cannot_unpickle_its_function_keeps_the_user_s_error(tmp_path: Path,
                                                                                   ruleset: RuleSet) -> None:
    log = _ORPHAN.format(error="AttributeError: Can't get attribute 'train_worker' on <module '__main__' (built-in)>")
    assert causes_of(tmp_path, {"train.log": log}, ruleset)[:1] == [Cause.PYTHON_EXCEPTION]


def _dump(pid: int, frames: list[str]) -> str:
    return f'Thread {pid} (active): "MainThread"\n' + "".join(f"    {f}\n" for f in frames) + "\n"


_ALL_REDUCE = ["all_reduce (torch/distributed/distributed_c10d.py:2924)", "wrapper (torch/distributed/c10d_logger.py:81)",
               "clip_grad_norm (engine/optim.py:88)", "step (engine/optim.py:120)"]
_REDUCE_SCATTER = ["reduce_scatter_tensor (torch/distributed/distributed_c10d.py:4450)",
                   "wrapper (torch/distributed/c10d_logger.py:81)", "reduce_grads (engine/zero.py:301)"]


def test_dumps_waiting_in_different_collectives_are_a_mismatch(tmp_path: Path, ruleset: RuleSet) -> None:
    log = "py-spy dump of the stuck ranks:\n" + _dump(101, _ALL_REDUCE) + _dump(102, _REDUCE_SCATTER)
    got = incidents_of(tmp_path, {"py-spy.txt": log}, ruleset)
    assert [g.cause for g in got] == [Cause.COLLECTIVE_MISMATCH]


def test_dumps_waiting_in_the_same_collective_stay_a_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    log = "py-spy dump of the stuck ranks:\n" + _dump(101, _ALL_REDUCE) + _dump(102, _ALL_REDUCE)
    assert [g.cause for g in incidents_of(tmp_path, {"py-spy.txt": log}, ruleset)] == [Cause.HANG]


_START = ("/opt/conda/lib/python3.9/site-packages/pkg_resources/__init__.py:121: DeprecationWarning: pkg_resources is deprecated as an API\n"
          "WARNING: OMP_NUM_THREADS set to 32, not 1. The computation speed will not be optimized.\n"
          "------------Environment Information-------------\n"
          "platform: Linux-5.4.0-x86_64-with-glibc2.31\n"
          "Python: 3.9.16 (main, Jan 11 2023, 16:05:54) [GCC 11.2.0]\n"
          "Paddle compiled with cuda: True\n")
_TRAIN = "".join(f"[TRAIN] epoch: 1, iter: {i}0/2000, loss: 0.{70 - i}, batch_cost: 0.41\n" for i in range(1, 9))


def test_an_earlier_launch_s_failure_appended_to_the_same_log_is_not_the_last_launch_s(tmp_path: Path,
                                                                                   ruleset: RuleSet) -> None:
    """Two launches appended to one worker log: the first died of a KeyError; the second, the one
    the user asks about, ran out of GPU memory. The last launch's failure is reported."""
    first = _START + _TRAIN[:120] + ("Traceback (most recent call last):\n  File \"tools/train.py\", line 40, in <module>\n"
                                     "KeyError: 'LOCAL_RANK'\n")
    second = _START + _TRAIN + ("Traceback (most recent call last):\n  File \"tools/train.py\", line 88, in <module>\n"
                                "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n")
    assert causes_of(tmp_path, {"workerlog.0": first + second}, ruleset)[:1] == [Cause.CUDA_OOM]


def test_a_last_launch_that_trained_to_its_end_leaves_nothing_to_report(tmp_path: Path, ruleset: RuleSet) -> None:
    first = _START + ("Traceback (most recent call last):\n  File \"tools/train.py\", line 40, in <module>\n"
                      "FileNotFoundError: [Errno 2] No such file or directory: 'configs/ocrnet.yml'\n")
    second = _START + _TRAIN + "[EVAL] #Images: 500 mIoU: 0.7934 Acc: 0.9587\n[TRAIN] Training done.\n"
    assert causes_of(tmp_path, {"workerlog.0": first + second}, ruleset) == []
    # the same failure with no launch after it stays the failure
    assert causes_of(tmp_path / "alone", {"workerlog.0": first + _TRAIN}, ruleset)[:1] == [Cause.PYTHON_EXCEPTION]


def test_paddle_trainers_sigterm_with_nothing_failed_before_is_a_stop_from_outside(tmp_path: Path,
                                                                                  ruleset: RuleSet) -> None:
    block = ("\n\n--------------------------------------\nC++ Traceback (most recent call last):\n"
             "--------------------------------------\n0   paddle::imperative::Tracer::TraceOp(std::string const&)\n\n"
             "----------------------\nError Message Summary:\n----------------------\n"
             "FatalError: `Termination signal` is detected by the operating system.\n"
             "  [SignalInfo: *** SIGTERM (@0x1157b0) received by PID {pid} (TID 0x7f84541b85c0) from PID 1136560 ***]\n\n")
    files = {"workerlog.0": _TRAIN + block.format(pid=1136643)
             + "SystemError: (Fatal) DataLoader process (pid 1244489) exited is killed by signal: Terminated. "
               "(at /paddle/paddle/fluid/imperative/data_loader.cc:161)\n",
             "workerlog.1": _TRAIN + block.format(pid=1136644)}
    assert causes_of(tmp_path, files, ruleset)[:1] == [Cause.PREEMPTION]


def _progress(slow_from: int | None) -> str:
    lines = []
    t = 0.0
    for i in range(1, 41):
        step_time = 7.0 if slow_from is not None and i >= slow_from else 3.0
        t += step_time * 100
        h, rem = divmod(int(t), 3600)
        m, sec = divmod(rem, 60)
        lines.append(f"2024-07-19 {10 + h:02d}:{m:02d}:{sec:02d},000 | INFO | train | step {i * 100:6d} | loss 3.{90 - i} "
                     f"| step_time {step_time:.3f}s\n")
    return "".join(lines)


_STOPPED = ("W0720 {stamp} 175867 torch/distributed/elastic/agent/server/api.py:741] Received Signals.SIGTERM "
            "death signal, shutting down workers\n")


def test_a_job_s_unranked_progress_that_slowed_before_a_bare_stop_is_a_straggler(tmp_path: Path,
                                                                                 ruleset: RuleSet) -> None:
    """Only one rank logs progress, without a rank: its step time doubled and stayed there, then
    the job was stopped from outside with no reason given (the user cancelled it)."""
    log = _progress(slow_from=21) + _STOPPED.format(stamp="20:20:00.000000")
    assert causes_of(tmp_path, {"train.log": log}, ruleset)[:1] == [Cause.STRAGGLER]


def test_the_same_stop_after_steady_progress_stays_a_stop_from_outside(tmp_path: Path, ruleset: RuleSet) -> None:
    log = _progress(slow_from=None) + _STOPPED.format(stamp="13:30:00.000000")
    assert causes_of(tmp_path, {"train.log": log}, ruleset)[:1] == [Cause.PREEMPTION]


_SMI = ("==============NVSMI LOG==============\n\nGPU 00000000:B7:00.0\n    Performance State                     : P0\n"
        "    Clocks Event Reasons\n        Idle                              : Not Active\n"
        "        SW Power Cap                      : Not Active\n        HW Slowdown                       : {hw}\n"
        "            HW Thermal Slowdown           : {hw}\n            HW Power Brake Slowdown       : Not Active\n"
        "    Temperature\n        GPU Current Temp                  : 91 C\n")


def test_a_gpu_nvidia_smi_shows_throttled_is_a_straggler_not_a_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": _TRAIN, "nvidia-smi.txt": _SMI.format(hw="Active")}, ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.STRAGGLER, False)]
    assert causes_of(tmp_path / "cool", {"train.log": _TRAIN, "nvidia-smi.txt": _SMI.format(hw="Not Active")},
                     ruleset) == []


def test_a_throttled_gpu_beside_a_crash_leaves_the_crash_first(tmp_path: Path, ruleset: RuleSet) -> None:
    crash = _TRAIN + ("Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n"
                      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n")
    got = causes_of(tmp_path, {"train.log": crash, "nvidia-smi.txt": _SMI.format(hw="Active")}, ruleset)
    assert got[0] is Cause.CUDA_OOM and Cause.STRAGGLER in got


def test_a_bare_broken_pipe_is_what_a_rank_saw_of_a_closed_peer_not_its_own_exception(tmp_path: Path,
                                                                                       ruleset: RuleSet) -> None:
    log = ("Traceback (most recent call last):\n  File \"train.py\", line 40, in <module>\n"
           "    model = DistributedDataParallel(model, device_ids=[rank])\nRuntimeError: Broken pipe\n") * 2
    got = causes_of(tmp_path, {"train.log": log}, ruleset)
    assert got and Cause.PYTHON_EXCEPTION not in got


def test_vllm_sleep_mode_allocator_out_of_memory_is_cuda_oom(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("(LLMRayActor pid=226426) ERROR 06-10 10:55:03 [core.py:459]     allocator.wake_up(tags)\n"
           "(LLMRayActor pid=226426) ERROR 06-10 10:55:03 [core.py:459] RuntimeError: CUDA Error: out of memory at "
           "/workspace/csrc/cumem_allocator.cpp:62\n")
    assert causes_of(tmp_path, {"train.log": log}, ruleset)[:1] == [Cause.CUDA_OOM]


def test_mooncake_rdma_transfer_failures_are_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("E0917 16:23:13.419399 4058290 worker_pool.cpp:294] Worker: Process failed for slice (opcode: 1, "
           "source_addr: 0x7fd2f6000800, length: 3584, dest_addr: 0x7fb9d6001000, local_nic: mlx5_7, "
           "peer_nic: 10.0.2.13:15004@mlx5_7, dest_rkey: 2137688, retry_cnt: 0): transport retry counter exceeded\n"
           "W0917 16:23:14.702893 4058290 worker_pool.cpp:303] Too many errors found in local RNIC "
           "10.0.2.12:15858@mlx5_7, mark it inactive\n")
    assert causes_of(tmp_path, {"decode.log": log}, ruleset)[:1] == [Cause.NETWORK]


# --- from the session's review -------------------------------------------------------------


def _epoch(e: int, extra: str = "") -> str:
    body = "".join(f"Epoch {e} iter {i * 10}/80 loss 0.{90 - i - e} lr 0.001\n" for i in range(1, 9))
    return (f"Epoch {e}/10 started\n" + body[:len(body) // 2] + extra + body[len(body) // 2:]
            + f"Validation: loss 0.{50 - e} acc 0.{70 + e}\nSaving checkpoint to ckpt/epoch_{e}.pt\n"
            f"Epoch {e} finished in {120 + e}.3 s\n")


def test_lines_printed_at_every_epoch_do_not_make_a_new_launch(tmp_path: Path, ruleset: RuleSet) -> None:
    """One launch: a NIC error in epoch 2, then a watchdog timeout in epoch 3. Epoch 1's
    summary lines were printed once before the error and come again after it; they are no
    start-up lines (a launch starts again from its first lines), and the NIC error stays."""
    start = ("/opt/conda/lib/python3.10/site-packages/torch/utils/data/dataloader.py:558: UserWarning: "
             "This DataLoader will create 16 worker processes\nLoaded config configs/resnet50.yaml with 42 keys\n"
             "Building model resnet50 with 25.6M parameters\n")
    nic = "node07:2231:2290 [3] transport/net_ib.cc:102 NCCL WARN NET/IB : mlx5_2:1 Got async event : port error\n"
    timeout = ("[rank0]:[E1130 17:40:35.000001 1290 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective "
               "operation timeout: WorkNCCL(SeqNum=4242, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
               "Timeout(ms)=600000) ran for 600044 milliseconds before timing out.\n")
    log = start + _epoch(1) + _epoch(2, nic) + "Epoch 3/10 started\n" + timeout
    assert causes_of(tmp_path, {"rank0.log": log}, ruleset)[:1] == [Cause.NETWORK]


def test_dumps_of_one_collective_split_by_locals_or_inside_an_object_call_stay_a_hang(tmp_path: Path,
                                                                                       ruleset: RuleSet) -> None:
    locals_ = ["broadcast (torch/distributed/distributed_c10d.py:2420)", "    Arguments:", "        tensor: <Tensor>",
               "        src: 0", "        group: None", "wrapper (torch/distributed/c10d_logger.py:81)",
               "    Arguments:", "        args: (<Tensor>,)", "broadcast_object_list (torch/distributed/distributed_c10d.py:3480)",
               "main (train.py:40)"]
    pickling = ["_object_to_tensor (torch/distributed/distributed_c10d.py:2790)",
                "broadcast_object_list (torch/distributed/distributed_c10d.py:3470)", "main (train.py:40)"]
    log = _dump(101, locals_) + _dump(102, locals_) + _dump(103, pickling)
    assert [g.cause for g in incidents_of(tmp_path, {"py-spy.txt": log}, ruleset)] == [Cause.HANG]


def test_paddle_sigterm_on_every_rank_but_one_is_the_launcher_s_teardown_not_a_stop(tmp_path: Path,
                                                                                   ruleset: RuleSet) -> None:
    block = ("----------------------\nError Message Summary:\n----------------------\n"
             "FatalError: `Termination signal` is detected by the operating system.\n"
             "  [SignalInfo: *** SIGTERM (@0x1157b0) received by PID 11 (TID 0x7f84541b85c0) from PID 10 ***]\n")
    files = {f"workerlog.{r}": _TRAIN + (block if r != 2 else "") for r in range(4)}
    assert Cause.PREEMPTION not in causes_of(tmp_path, files, ruleset)


def test_orphaned_children_behind_torchrun_s_prefix_are_still_the_parent_s_consequence(tmp_path: Path,
                                                                                        ruleset: RuleSet) -> None:
    orphan = "".join(f"[default0]:{line}\n" for line in
                     _ORPHAN.format(error="EOFError: Ran out of input").splitlines())
    assert Cause.PYTHON_EXCEPTION not in causes_of(tmp_path, {"train.log": orphan * 2}, ruleset)
