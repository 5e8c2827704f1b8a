"""Lines from the twentieth session's development cases: Intel's GPU runtime losing its device, a
CUDA GPU core dump starting, the watchdog's timeout seen only as a backtrace frame, and a c10d
store socket that keeps timing out to the end of the log."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import causes_of, incidents_of


def test_an_xpu_device_lost_is_the_gpu(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("(Worker_TP0 pid=291274) INFO 01-12 02:58:30 [gpu_model_runner.py:2101] decoding\n"
           "(Worker_TP2 pid=291276) ERROR 01-12 02:58:31 [multiproc_executor.py:654] RuntimeError: Native API failed. "
           "Native API returns: 20 (UR_RESULT_ERROR_DEVICE_LOST)\n")
    got = incidents_of(tmp_path, {"serve.log": log}, ruleset)
    assert [g.cause for g in got][:1] == [Cause.GPU_HARDWARE]


def test_a_gpu_core_dump_starting_is_a_device_exception(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("Starting GPU coredump generation, set the CUDA_COREDUMP_SHOW_PROGRESS environment variable to 1 to "
           "enable more detailed output\n"
           "[2025-05-27 04:36:06 DP1 TP4] Scheduler hit an exception: Traceback (most recent call last):\n"
           '  File "/sgl/python/sglang/srt/managers/scheduler.py", line 2301, in run_scheduler_process\n'
           "    scheduler.event_loop_overlap()\n")
    assert causes_of(tmp_path, {"decode.log": log}, ruleset)[:1] == [Cause.ILLEGAL_MEMORY_ACCESS]


def test_the_watchdog_s_checktimeout_frame_alone_is_a_collective_timeout(tmp_path: Path, ruleset: RuleSet) -> None:
    frames = "".join(
        f"(FSDPPolicyWorkerBase pid=959049) frame #{i}: {name} + 0x{100 + i:x} (0x7ce2e46401{i:02x} in "
        "/usr/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so)\n"
        for i, name in enumerate(["c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration"
                                  "<long, std::ratio<1l, 1000l> > >)", "c10d::ProcessGroupNCCL::Watchdog::runLoop()",
                                  "c10d::ProcessGroupNCCL::Watchdog::run()"], start=1))
    log = frames + "Error executing job with overrides: ['trainer.epochs=20']\n"
    assert causes_of(tmp_path, {"train.log": log}, ruleset)[:1] == [Cause.HANG]


_RETRY = ("(RayWorkerWrapper pid={pid}, ip=10.17.44.60) [W116 05:{m}:45.632092587 socket.cpp:929] [c10d] The server "
          "socket on [::ffff:198.18.0.1]:43195 has timed out, will retry.\n")


def test_store_socket_timeouts_to_the_end_of_the_log_are_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    log = "".join(_RETRY.format(pid=545 + i % 2, m=41 + 2 * i) for i in range(4))
    assert causes_of(tmp_path, {"engine.log": log}, ruleset) == [Cause.NETWORK]


def test_one_store_socket_timeout_that_training_went_on_after_is_no_incident(tmp_path: Path, ruleset: RuleSet) -> None:
    log = _RETRY.format(pid=545, m=41) + "".join(
        f"[2026-01-16 05:{42 + i}:00] step {i} loss 2.{i}\n" for i in range(8))
    assert causes_of(tmp_path, {"engine.log": log}, ruleset) == []


def test_a_communicator_aborted_on_a_watchdog_timeout_is_a_collective_timeout(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("eval step 20510\n"
           "Traceback (most recent call last):\n"
           '  File "submission_runner.py", line 412, in train_once\n'
           "    latest_eval_result = workload.eval_model(global_step)\n"
           "RuntimeError: NCCL communicator was aborted on rank 0.  Original reason for failure was: [Rank 0] "
           "Watchdog caught collective operation tim\n")
    assert causes_of(tmp_path, {"train.log": log}, ruleset)[:1] == [Cause.HANG]


def test_a_communicator_aborted_for_another_reason_is_not_read_as_a_timeout(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("RuntimeError: NCCL communicator was aborted on rank 2.  Original reason for failure was: NCCL error: "
           "unhandled system error, NCCL version 2.18.1\n")
    assert Cause.HANG not in causes_of(tmp_path, {"train.log": log}, ruleset)


def test_an_npu_out_of_memory_is_the_device_s_memory(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("Loading checkpoint shards:  42%|████▏     | 16/38 [01:12<01:39,  4.52s/it]\n"
           "RuntimeError: NPU out of memory. Tried to allocate 386.00 MiB (NPU 2; 60.97 GiB total capacity; 59.57 GiB "
           "already allocated; 59.57 GiB current active; 16.54 MiB free; 60.06 GiB reserved in total by PyTorch)\n")
    assert causes_of(tmp_path, {"train.log": log}, ruleset)[:1] == [Cause.CUDA_OOM]


def test_a_paddle_process_given_a_gpu_the_node_lacks_is_the_launch_s_error(tmp_path: Path, ruleset: RuleSet) -> None:
    line = ("E0808 11:06:01.541851 1538946 pybind.cc:1584] Invalid CUDAPlace({n}), must inside [0, 2), because GPU "
            "number on your machine is 2\n")
    got = incidents_of(tmp_path, {"workerlog.2": line.format(n=2), "workerlog.3": line.format(n=3)}, ruleset)
    assert [g.cause for g in got][:1] == [Cause.PYTHON_EXCEPTION]
    assert not got[0].drain


def _megatron_reports(slow: int | None, n: int = 12) -> str:
    out = []
    for i in range(n):
        fast, slowest = (i * 5) % 16, (slow if slow is not None else (i * 7 + 3) % 16)
        high = 3518.37 if slow is not None else 2790.0 + i
        out.append(f"INFO:megatron.core.utils:[2025-11-09 06:{21 + i}:54] | MnRtt/Rnk: {2699.49 + i:.2f}ms/{fast} | "
                   f"MxRtt/Rnk: {high:.2f}ms/{slowest} | MnPwr/Rnk: 484.00W/2 | MxPwr/Rnk: 654.30W/9 | "
                   f"MnTmp/Rnk: 42.00C/7 | MxTmp/Rnk: 88.00C/{slowest}\n")
    return "".join(out)


_STOPPED = ("W1109 07:22:05.843000 93765 torch/distributed/elastic/agent/server/api.py:704] Received Signals.SIGTERM "
            "death signal, shutting down workers\n")


def test_megatron_s_straggler_reports_naming_one_rank_are_a_straggler_told_before_the_stop(
        tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"trainer.log": _megatron_reports(15) + _STOPPED}, ruleset)
    assert [(g.cause, g.rank) for g in got][:1] == [(Cause.STRAGGLER, 15)]
    assert Cause.PREEMPTION in [g.cause for g in got]
    assert "slowest in 12 of its last 12 reports" in got[0].explanation


def test_megatron_s_reports_of_ordinary_jitter_name_no_straggler(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"trainer.log": _megatron_reports(None) + _STOPPED}, ruleset)
    assert Cause.STRAGGLER not in [g.cause for g in got]


def test_an_unstamped_oom_printed_before_the_stamped_network_errors_of_its_peers_is_the_cause(
        tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("[default0]:Traceback (most recent call last):\n"
           '[default0]:  File "/workspace/train.py", line 185, in train\n'
           "[default0]:    logits = model(x)\n"
           "[default0]:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 768.00 MiB. GPU 0 has a total "
           "capacity of 31.74 GiB of which 522.21 MiB is free.\n"
           "W0708 01:41:40.282232 139800016753678 torch/distributed/elastic/multiprocessing/api.py:897] Sending "
           "process 3422070 closing signal SIGTERM\n"
           "[default2]:[rank14]:[E708 01:41:40.782232 ProcessGroupNCCL.cpp:1616] [PG 0 Rank 14] Process group "
           "watchdog thread terminated with exception: NCCL error: remote process exited or there was a network "
           "error, NCCL version 2.20.5\n"
           "[default2]:[E708 01:41:40.782232 ProcessGroupNCCL.cpp:1616] NET/IB : Got completion from peer "
           "10.42.30.6<33086> with status=12 opcode=129 len=65536 vendor err 249 (Recv) localGid ::ffff:10.42.12.125\n")
    assert causes_of(tmp_path, {"job.out": log}, ruleset)[:1] == [Cause.CUDA_OOM]


_LINK = ("$ nvidia-smi -q -i 6 | grep -A12 'GPU Link Info'\n"
         "GPU 00000000:BA:00.0\n"
         "    GPU Link Info\n"
         "        PCIe Generation\n"
         "            Max                       : 5\n"
         "            Current                   : 1\n"
         "        Link Width\n"
         "            Max                       : 16x\n"
         "            Current                   : {width}x\n")


def test_a_gpu_whose_pcie_link_trained_narrow_is_a_straggler(tmp_path: Path, ruleset: RuleSet) -> None:
    assert causes_of(tmp_path, {"nvidia-smi.txt": _LINK.format(width=4)}, ruleset) == [Cause.STRAGGLER]


def test_a_full_width_link_at_an_idle_generation_is_no_incident(tmp_path: Path, ruleset: RuleSet) -> None:
    assert causes_of(tmp_path, {"nvidia-smi.txt": _LINK.format(width=16)}, ruleset) == []


def test_pbs_walltime_is_the_scheduler_s_stop(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("2025-01-05 10:00:00 | step 9000 | loss 2.1\n"
           "=>> PBS: job killed: walltime 36340 exceeded limit 36000\n")
    assert causes_of(tmp_path, {"vit.o7566461": log}, ruleset) == [Cause.PREEMPTION]


def test_an_nvlink_xid_a_day_before_the_job_started_is_an_earlier_job_s(tmp_path: Path, ruleset: RuleSet) -> None:
    steps = "".join(f"2024-05-06 {10 + i // 60:02d}:{i % 60:02d}:00 | step {i} | loss 2.{i % 10}\n" for i in range(0, 600, 5))
    kern = ("2024-05-05T16:38:31,192330+00:00 NVRM: Xid (PCI:0000:bb:00): 74, pid=11905, name=python, NVLink: fatal "
            "error detected on link 7(0x0, 0x0, 0x0, 0x0, 0x10000, 0x0, 0x0)\n")
    got = causes_of(tmp_path, {"train.log": steps + "=>> PBS: job killed: walltime 36340 exceeded limit 36000\n",
                               "dmesg/node-g163/dmesg.txt": kern}, ruleset)
    assert got[:1] == [Cause.PREEMPTION]
    assert Cause.NVLINK not in got


def _rank_log(rank: int, error: str) -> str:
    return (f"2025-07-20 03:26:38 | INFO | fairseq.distributed.utils | distributed init (rank {rank}): tcp://n0:23456\n"
            f"2025-07-20 03:26:41 | INFO | fairseq.distributed.utils | initialized host n{rank // 8} as rank {rank}\n"
            + "".join(f"n{rank // 8}:2871{rank:02d}:2884{i} [{rank % 8}] NCCL INFO Channel {i:02d}/08 : 0[0] -> 1[1]\n"
                      for i in range(8))
            + error)


def test_a_quiet_rank_s_unstamped_error_does_not_take_its_start_up_time(tmp_path: Path, ruleset: RuleSet) -> None:
    rank0 = ("".join(f"2025-07-20 {4 + i // 2:02d}:{(i % 2) * 30:02d}:00 | INFO | train_inner | num_updates={i * 100}\n"
                     for i in range(36))
             + "[rank0]: Traceback (most recent call last):\n"
               '[rank0]:   File "/usr/lib/python3.10/site-packages/torch/serialization.py", line 850, in save\n'
               "[rank0]: RuntimeError: [enforce fail at inline_container.cc:778] . PytorchStreamWriter failed writing "
               "file data/889: file write failed\n")
    lost = ("n0:287194:288525 [5] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer 10.0.0.9<43053> "
            "with error 12, opcode 0, len 0, vendor err 129 (Recv)\n")
    got = incidents_of(tmp_path, {"logs/job-0.out": rank0, "logs/job-13.out": _rank_log(13, lost)}, ruleset)
    assert [(g.cause, g.rank) for g in got][:1] == [(Cause.PYTHON_EXCEPTION, 0)]


def test_the_last_of_several_attempt_folders_is_told_first(tmp_path: Path, ruleset: RuleSet) -> None:
    first = ("2024-12-07 22:20:00 | step 10 | loss 2.0\n"
             "[rank4]: RuntimeError: CUDA error: uncorrectable ECC error encountered\n")
    last = ("2024-12-08 10:00:00 | step 900 | loss 1.8\n"
            "slurmstepd: error: *** JOB 9388694 ON gpu-2 CANCELLED AT 2024-12-08T10:00:05 DUE TO TIME LIMIT ***\n")
    got = causes_of(tmp_path, {"attempts/9384212/logs/train-gpu-2.out": first,
                               "attempts/9388694/logs/train-gpu-2.out": last}, ruleset)
    assert got[:1] == [Cause.PREEMPTION]
    assert Cause.ECC_MEMORY in got


def test_nemo_s_logger_stamps_date_its_lines() -> None:
    from detector.sources.timestamps import parse_timestamp

    got = parse_timestamp("[NeMo W 2024-04-11 16:13:04 nemo_logging:349] /usr/lib/python3.10/site-packages/x.py: warn")
    assert got is not None and got.time is not None and (got.time.hour, got.time.minute) == (16, 13)
    assert parse_timestamp("[NeMo X 2024-04-11 16:13:04 a:1] not a level") is None


def test_an_xid_from_before_a_nemo_job_s_first_stamped_line_is_an_earlier_job_s(tmp_path: Path, ruleset: RuleSet) -> None:
    log = "".join(f"[NeMo I 2024-04-11 16:{13 + i:02d}:04 nemo_logging:381] Epoch 0: step {i * 50} reduced_train_loss=2.{i}\n"
                  for i in range(40))
    kern = ("Apr 11 03:07:56 hgx-0120 kernel: NVRM: Xid (PCI:0000:2a:00): 48, pid=29287, name=pt_main_thread, An "
            "uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 6, subpartition 0.\n")
    got = causes_of(tmp_path, {"nemo_log_globalrank-0_localrank-0.txt": log, "node-logs/hgx-0120/kern.log": kern}, ruleset)
    assert Cause.ECC_MEMORY not in got
