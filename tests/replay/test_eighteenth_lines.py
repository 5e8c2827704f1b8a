"""Lines from the eighteenth session's development cases and blind runs: a failure table whose
only worker exited with code 2, a log that ends while ranks wait in the store-based barrier,
size mismatches reported by NCCL's socket transport and by MPI, a Windows access violation under
MS-MPI, the old TCPStore's bare "Connection timed out", nvJPEG's allocator failure, an AMD GPU's
uncorrectable HBM errors, DeepEP's kernel barrier timeout, IMEX's failed memory export, a
logger's tag before its time stamp, and a job stopped from outside after it had slowed down."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.sources.timestamps import parse_timestamp
from detector.types import Cause
from tests.support.replaying import causes_of, incidents_of

_FAILURE_TABLE = (
    "Traceback (most recent call last):\n"
    '  File "/opt/conda/lib/python3.8/site-packages/torch/distributed/launch.py", line 193, in <module>\n'
    "    main()\n"
    '  File "/opt/conda/lib/python3.8/site-packages/torch/distributed/launcher/api.py", line 245, in launch_agent\n'
    "    raise ChildFailedError(\n"
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
    "============================================================\n"
    "tools/train.py FAILED\n"
    "------------------------------------------------------------\n"
    "Failures:\n"
    "[1]:\n"
    "  time      : 2022-04-07_18:08:41\n"
    "  host      : node001.cm.cluster\n"
    "  rank      : 1 (local_rank: 1)\n"
    "  exitcode  : {code} (pid: 56773)\n"
    "  error_file: <N/A>\n")


def test_a_failure_table_s_exit_code_2_alone_is_a_usage_error_of_that_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": _FAILURE_TABLE.format(code=2)}, ruleset)
    assert [(g.cause, g.rank, g.node) for g in got] == [(Cause.PYTHON_EXCEPTION, 1, "node001.cm.cluster")]
    assert any("exitcode  : 2" in t or "code 2" in t for t in got[0].evidence)


def test_exit_code_2_beside_a_rank_s_own_exception_leaves_that_exception_the_cause(tmp_path: Path,
                                                                                  ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "train.py", line 12, in <module>\n'
        "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
        + _FAILURE_TABLE.format(code=2))}, ruleset)
    assert got[0].cause is Cause.CUDA_OOM


_BARRIER = ("INFO:torch.distributed.distributed_c10d:Waiting in store based barrier to initialize process group for "
            "rank: {rank}, key: store_based_barrier_key:1 (world_size=4, worker_count=2, timeout=0:30:00)\n")


def test_a_log_that_ends_waiting_in_the_store_barrier_is_a_hang_at_start(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/4\n"
        "Initializing distributed: GLOBAL_RANK: 1, MEMBER: 2/4\n"
        + _BARRIER.format(rank=0) + _BARRIER.format(rank=1))}, ruleset)
    assert [(g.cause, g.rank, g.drain) for g in got] == [(Cause.HANG, None, False)]
    assert "2 of 4 had joined" in got[0].explanation


def test_waiting_in_the_store_barrier_before_training_went_on_is_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    steps = "".join(f"Epoch 0: step {i} loss 2.{i:02d}\n" for i in range(40))
    assert causes_of(tmp_path, {"train.log": (
        _BARRIER.format(rank=0) + _BARRIER.format(rank=1)
        + "INFO:torch.distributed.distributed_c10d:Rank 0: Completed store-based barrier for key:store_based_barrier_key:1"
          " with 4 nodes.\n" + steps)}, ruleset) == []


def test_a_store_barrier_timeout_cut_after_its_rank_is_still_read(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "RuntimeError: Timed out initializing process group in store based barrier on rank 2\n")}, ruleset)
    assert [g.cause for g in got] == [Cause.HANG]


def test_nccl_s_socket_message_truncated_is_a_collective_mismatch(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "transport/net_socket.cc:424 NCCL WARN NET/Socket : peer 192.168.161.30<59210> message truncated :\n"
        "receiving 1048576 bytes instead of 65536\n")}, ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.COLLECTIVE_MISMATCH, False)]


def test_an_mpi_message_truncated_is_a_collective_mismatch(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "LMSequenceReader: Reading epoch data... 3370 sequences read.\n"
        "MPI_Waitany, MPI error 782\n"
        "MPI_Waitany, MPI error 782: Message truncated, error stack:\n"
        "Message from rank 3 and tag 1 truncated; 1020000 bytes received but buffer size is 48\n")}, ruleset)
    assert [g.cause for g in got] == [Cause.COLLECTIVE_MISMATCH]


def test_a_windows_access_violation_is_a_crash_of_the_rank_ms_mpi_names(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "Finished Epoch[ 1 of 20]: [Training] cr = 0.40189179 * 36006; errs = 8.254% * 36006\n"
        "CNTK: Caught Win32 exception 0xc0000005: Access violation.\n"
        "job aborted:\n"
        "[ranks] message\n"
        "[0] terminated\n"
        "[1] process exited without calling finalize\n"
        "---- error analysis -----\n"
        "[1] on DESKTOP-NPQAHQ4\n")}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.CRASH_SIGNAL, 1)]


def test_the_old_tcpstore_s_bare_connection_timed_out_is_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "Traceback (most recent call last):\n"
        'File "/opt/conda/lib/python3.6/site-packages/torch/distributed/rendezvous.py", line 143, in '
        "_env_rendezvous_handler\n"
        "store = TCPStore(master_addr, master_port, world_size, start_daemon)\n"
        "RuntimeError: Connection timed out\n")}, ruleset)
    assert [g.cause for g in got] == [Cause.NETWORK]


def test_nvjpeg_s_allocator_failure_is_the_gpu_out_of_memory(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "RuntimeError: Critical error in pipeline:\n"
        "Error when executing Mixed operator ImageDecoder encountered:\n"
        'Error in thread 1: [/opt/dali/dali/operators/decoder/nvjpeg/nvjpeg_decoder_decoupled_api.h:824] NVJPEG error "5"'
        " : NVJPEG_STATUS_ALLOCATOR_FAILURE\n")}, ruleset)
    assert [g.cause for g in got] == [Cause.CUDA_OOM]


def test_an_amd_gpu_s_uncorrectable_hbm_errors_are_ecc_memory(tmp_path: Path, ruleset: RuleSet) -> None:
    kernel = (
        "2025-05-06T01:43:55+0000 gn277 kernel: amdgpu 0000:07:00.0: amdgpu: socket: 0, die: 0, 3 new uncorrectable "
        "hardware errors detected in umc block\n"
        "2025-05-06T01:43:56+0000 gn277 kernel: amdgpu 0000:07:00.0: amdgpu: poison is consumed by client 12, kick off "
        "gpu reset flow\n")
    got = incidents_of(tmp_path, {"dmesg-gn277.txt": kernel}, ruleset)
    assert [(g.cause, g.drain) for g in got][:1] == [(Cause.ECC_MEMORY, True)]
    other = incidents_of(tmp_path / "gfx", {"dmesg-gn277.txt": kernel.replace("umc block", "gfx block").split("\n")[0]
                                            + "\n"}, ruleset)
    assert [g.cause for g in other] == [Cause.GPU_HARDWARE]


def test_deepep_s_kernel_barrier_timeout_on_ranks_is_a_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": "".join(
        f"DeepEP timeout check failed: rank = {r}, thread = {t}, value = {1024 if t == 5 else 0})\n"
        for r in (6, 2) for t in range(8))}, ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.HANG, False)]


def test_imex_failing_to_export_memory_is_the_nvlink_domain(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"imex.log": (
        "[ERROR] Failed to get new memory reference with rc: 87\n"
        "[ERROR] Failed to allocate memory reference.\n"
        "[ERROR] Received import response from node id 0 with failure status 3\n")}, ruleset)
    assert [g.cause for g in got] == [Cause.NVLINK]


def test_a_logger_s_tag_before_its_stamp_is_read() -> None:
    stamp = parse_timestamp("[titan] 2025-02-08 10:20:57,792 - root - INFO - step:  1702  loss:  6.3568")
    assert stamp is not None and stamp.time is not None and stamp.time.minute == 20
    stamp = parse_timestamp("[ERROR] 2022-08-21 20:11:07,312 api: failed (exitcode: -9)")
    assert stamp is not None and stamp.time is not None and stamp.time.hour == 20
    assert parse_timestamp("[rank0]: 2025-02-08 10:20:57,792 x") is None  # (a rank's prefix is not a tag)


def _titan(step: int, seconds: float, start: float = 0.0) -> str:
    minute, sec = divmod(int(start), 60)
    hour, minute = divmod(minute, 60)
    return (f" 0: [titan] 2025-02-08 {10 + hour:02d}:{minute:02d}:{sec:02d},000 - root - INFO - step: {step:5d}  "
            f"loss:  6.3568  memory: 62.28GiB(77.85%)  tps: 8,619  mfu: 33.49%\n")


def _slowed_then_cancelled(slow: float) -> str:
    lines, t = [], 0.0
    for i in range(60):  # a step line every 50 steps: 4 s a step, then ``slow`` times that from the 25th line
        t += 50 * 4.0 * (slow if i >= 25 else 1.0)
        lines.append(_titan(1000 + 50 * i, 4.0, t))
    return ("+ srun --ntasks-per-node=2 python -u train.py\n" + "".join(lines)
            + "slurmstepd: error: *** JOB 8212084 ON hgx-a100-006 CANCELLED AT 2025-02-08T17:01:33 ***\n"
            + "slurmstepd: error: *** STEP 8212084.0 ON hgx-a100-006 CANCELLED AT 2025-02-08T17:01:33 ***\n")


def test_a_job_cancelled_after_it_slowed_down_reads_as_the_slowdown(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"slurm-8212084.out": _slowed_then_cancelled(2.5)}, ruleset)
    assert [(g.cause, g.rank, g.drain) for g in got][:1] == [(Cause.STRAGGLER, None, False)]
    assert "stopped from outside" in got[0].explanation


def test_a_job_cancelled_at_its_usual_speed_stays_a_cancellation(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"slurm-8212084.out": _slowed_then_cancelled(1.0)}, ruleset)
    assert [g.cause for g in got][:1] == [Cause.PREEMPTION]


def _timeouts_and_a_dump(dump: str) -> dict[str, str]:
    files = {}
    for r in range(4):
        steps = "".join(f"[rank{r}]:2024-07-22 17:{m:02d}:00,000 INFO step {100 + m} loss 2.31\n" for m in range(10))
        timeout = (f"[rank{r}]:[E722 18:04:20.111269236 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught collective "
                   "operation timeout: WorkNCCL(SeqNum=86170, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
                   "Timeout(ms)=1800000) ran for 1800083 milliseconds before timing out.\n")
        files[f"rank{r}.log"] = steps + (timeout if r != 3 else "")
    files["py-spy-dump-rank3.txt"] = dump
    return files


_LOADER_DUMP = (
    "Process 262396: /usr/bin/python -u pretrain_gpt.py\n"
    "Python v3.10.12 (/usr/bin/python3.10)\n\n"
    'Thread 262396 (idle): "MainThread"\n'
    "    wait (threading.py:324)\n"
    "    get (multiprocessing/queues.py:113)\n"
    "    _try_get_data (/usr/lib/python3.10/site-packages/torch/utils/data/dataloader.py:1133)\n"
    "    _next_data (/usr/lib/python3.10/site-packages/torch/utils/data/dataloader.py:1332)\n"
    "    train (pretrain_gpt.py:204)\n")


def test_the_rank_the_others_waited_for_with_a_dump_in_its_data_loader_is_starved(tmp_path: Path,
                                                                                   ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, _timeouts_and_a_dump(_LOADER_DUMP), ruleset)
    assert [(g.cause, g.rank) for g in got][:1] == [(Cause.DATA_LOADER_STALL, 3)]


def test_the_rank_the_others_waited_for_with_a_dump_in_its_own_code_stays_a_hang(tmp_path: Path,
                                                                                 ruleset: RuleSet) -> None:
    dump = _LOADER_DUMP.replace("_try_get_data (", "compute_loss (").replace("_next_data (", "forward (")
    got = incidents_of(tmp_path, _timeouts_and_a_dump(dump), ruleset)
    assert [(g.cause, g.rank) for g in got][:1] == [(Cause.HANG, 3)]


def _horovod(report_then: str) -> str:
    epochs = "".join(f"[1,0]<stdout>:Train Epoch: 2 [{i * 5120}/102400 ({i * 5}%)]\tLoss: 1.{i:02d}\n" for i in range(5))
    return (epochs
            + "[1,0]<stderr>:[2024-08-12 13:31:23,705: W /tmp/pip-install/horovod/common/stall_inspector.cc:107] One or "
              "more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting for "
              "remainder of ranks for more than 60 seconds. This may indicate that different ranks are trying to submit "
              "different tensors or that only subset of ranks is submitting tensors, which will cause deadlock.\n"
            + "[1,0]<stderr>:Missing ranks:\n"
            + "[1,0]<stderr>:12: [DistributedAdam_Allreduce/cond_9/HorovodAllreduce_grads_33_0]\n" + report_then)


def test_one_horovod_stall_report_that_training_went_on_after_is_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    later = "".join(f"[1,0]<stdout>:Train Epoch: 2 [{i * 5120}/102400 ({i * 5}%)]\tLoss: 0.{i:02d}\n" for i in range(5, 20))
    assert causes_of(tmp_path, {"launcher.log": _horovod(later + "[1,0]<stdout>:Test set: Average loss: 0.3023\n")},
                     ruleset) == []


def test_one_horovod_stall_report_that_ends_the_log_is_a_hang_of_the_missing_rank(tmp_path: Path,
                                                                                  ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"launcher.log": _horovod("")}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.HANG, 12)]


def test_an_oom_kill_from_before_the_job_started_is_no_failure_of_it(tmp_path: Path, ruleset: RuleSet) -> None:
    steps = "".join(f"2025-06-17 05:{m:02d}:00,000 | INFO | train | step {100 * m} | loss 4.7 | step_time 2.4s\n"
                    for m in range(30, 40))
    kill = ("[Mon Jun 16 21:16:20 2025] Out of memory: Killed process 62378 (python) total-vm:812344kB, "
            "anon-rss:2212kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:244kB oom_score_adj:0\n")
    files = {"worker1.log": steps + "Training completed.\n", "nodes/worker1/dmesg-T.txt": kill}
    assert causes_of(tmp_path, files, ruleset) == []
    files["nodes/worker1/dmesg-T.txt"] = kill.replace("Mon Jun 16 21:16:20", "Tue Jun 17 05:35:20")
    files["worker1.log"] = steps[: steps.index("2025-06-17 05:36")]
    assert causes_of(tmp_path / "during", files, ruleset)[:1] == [Cause.HOST_OOM_KILL]


_FEEDER = (
    "Traceback (most recent call last):\n"
    '  File "/usr/lib/python3.8/multiprocessing/queues.py", line 245, in _feed\n'
    "    send_bytes(obj)\n"
    '  File "/usr/lib/python3.8/multiprocessing/connection.py", line 200, in send_bytes\n'
    "    self._send_bytes(m[offset:offset + size])\n"
    '  File "/usr/lib/python3.8/multiprocessing/connection.py", line 368, in _send\n'
    "    n = write(self._handle, buf)\n"
    "BrokenPipeError: [Errno 32] Broken pipe\n")


def test_a_queue_feeder_thread_s_broken_pipe_is_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    assert causes_of(tmp_path, {"train.log": "round 12 done, accuracy 0.81\n" + _FEEDER}, ruleset) == []


def test_a_broken_pipe_from_the_program_s_own_code_is_still_reported(tmp_path: Path, ruleset: RuleSet) -> None:
    own = _FEEDER.replace('multiprocessing/queues.py", line 245, in _feed', 'train.py", line 88, in send_batch')
    assert causes_of(tmp_path, {"train.log": "round 12 done, accuracy 0.81\n" + own}, ruleset) != []


def test_a_forwarded_e_mail_alone_in_a_folder_is_read_as_the_log(tmp_path: Path, ruleset: RuleSet) -> None:
    mail = ("From: user@lab.example.org\nSubject: Re: job 3290580 failed\n\nsee below:\n\n"
            "> [rank3]: Traceback (most recent call last):\n"
            '> [rank3]:   File "train.py", line 12, in <module>\n'
            "> [rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n")
    got = incidents_of(tmp_path, {"message.eml": mail}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.CUDA_OOM, 3)]


def test_a_folder_of_only_binary_files_still_says_no_log_was_found(tmp_path: Path, ruleset: RuleSet) -> None:
    import pytest

    from detector.errors import RankdoctorError
    from detector.replay import replay_path

    (tmp_path / "weights.bin").write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 8)
    with pytest.raises(RankdoctorError, match="no log files found"):
        replay_path(tmp_path, ruleset)


_WORKER_KILLED = ("[rank6]: Traceback (most recent call last):\n"
                  '[rank6]:   File "train.py", line 88, in <module>\n'
                  "[rank6]: RuntimeError: DataLoader worker (pid 3814522) is killed by signal: Killed. \n")


def test_a_loader_worker_the_oom_killer_took_is_a_host_oom_kill_of_its_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    kernel = ("[Fri Jan  6 14:34:07 2023] Out of memory: Killed process 3814522 (pt_data_worker) total-vm:26616020kB, "
              "anon-rss:8847360kB, file-rss:586958kB, shmem-rss:86336kB, UID:52011 pgtables:17694kB oom_score_adj:0\n")
    got = incidents_of(tmp_path, {"ticket.txt": _WORKER_KILLED + "\ndmesg shows:\n" + kernel}, ruleset)
    assert [(g.cause, g.rank) for g in got][:1] == [(Cause.HOST_OOM_KILL, 6)]
    alone = incidents_of(tmp_path / "alone", {"ticket.txt": _WORKER_KILLED}, ruleset)
    assert [(g.cause, g.rank) for g in alone][:1] == [(Cause.DATA_LOADER_STALL, 6)]


def test_a_wave_of_aborts_beside_one_task_s_plain_exit_names_that_task(tmp_path: Path, ruleset: RuleSet) -> None:
    aborts = "".join(f"srun: error: srv{19 + i}: tasks {2 * i}-{2 * i + 1}: Aborted (core dumped)\n" for i in range(12))
    got = incidents_of(tmp_path, {"thread.txt": (
        "Traceback (most recent call last):\n"
        '  File "/opt/ml/code/fsdp_train.py", line 290, in train\n'
        "    outputs = model(**batch)\n"
        "RuntimeError: The size of tensor a (8192) must match the size of tensor b (2049) at non-singleton dimension 1\n"
        "\nthe last lines:\n\n"
        "srun: error: srv73: task 109: Exited with exit code 1\n"
        "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n" + aborts)}, ruleset)
    assert [(g.cause, g.rank) for g in got][:1] == [(Cause.PYTHON_EXCEPTION, 109)]


def test_a_log_copied_from_a_rendered_page_has_its_html_entities_decoded(tmp_path: Path, ruleset: RuleSet) -> None:
    from detector.replay import replay_path

    page = ("[rank3]: Traceback (most recent call last):\n"
            "[rank3]:   File &quot;train.py&quot;, line 5, in &lt;module&gt;\n"
            "[rank3]: subprocess.CalledProcessError: Command &#39;[&#39;nvcc&#39;, &#39;-V&#39;]&#39; returned "
            "non-zero exit status 1.\n"
            "[rank3]: KeyError: &#39;input_ids&#39;\n")
    got = incidents_of(tmp_path, {"page.txt": page}, ruleset)
    assert [(g.cause, g.rank) for g in got][:1] == [(Cause.PYTHON_EXCEPTION, 3)]
    assert any("KeyError: 'input_ids'" in t for t in got[0].evidence)
    warned = replay_path(tmp_path / "page.txt", ruleset).warnings
    assert any("HTML entities" in w for w in warned)
    plain = tmp_path / "plain.log"
    plain.write_text("[rank0]: fetched https://example.org/a?x=1&amp;y=2\n[rank0]: KeyError: 'input_ids'\n")
    assert not any("HTML entities" in w for w in replay_path(plain, ruleset).warnings)


def test_mpirun_s_first_process_to_end_terminated_with_nothing_failing_is_a_preemption(tmp_path: Path,
                                                                                      ruleset: RuleSet) -> None:
    steps = "".join(f"[1,0]<stdout>:{{'loss': 1.{i:02d}, 'grad_norm': 0.9, 'epoch': 0.7}}\n" for i in range(10))
    tail = ("--------------------------------------------------------------------------\n"
            "Primary job  terminated normally, but 1 process returned\n"
            "a non-zero exit code. Per user-direction, the job has been aborted.\n"
            "--------------------------------------------------------------------------\n"
            "mpirun noticed that process rank 14 with PID 1325003 on node compute-permanent-node-850 exited on signal "
            "{sig}.\n")
    got = incidents_of(tmp_path, {"job.log": steps + tail.format(sig="15 (Terminated)")}, ruleset)
    assert [(g.cause, g.rank, g.node, g.drain) for g in got] == [
        (Cause.PREEMPTION, 14, "compute-permanent-node-850", False)]
    segv = incidents_of(tmp_path / "segv", {"job.log": steps + tail.format(sig="11 (Segmentation fault)")}, ruleset)
    assert [(g.cause, g.rank) for g in segv] == [(Cause.CRASH_SIGNAL, 14)]


def test_a_rendezvous_that_timed_out_with_nothing_else_failing_is_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        '  File "/usr/lib/python3.8/site-packages/torch/distributed/elastic/rendezvous/dynamic_rendezvous.py", line 1031,'
        " in next_rendezvous\n"
        "    raise RendezvousTimeoutError()\n"
        "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError\n")}, ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.NETWORK, False)]


def test_an_issue_s_text_with_a_quoted_log_is_read_beside_the_attached_logs(tmp_path: Path, ruleset: RuleSet) -> None:
    from detector.replay import replay_path

    attached = "".join(f"gn0343:1095134:1095284 [0] NCCL INFO Channel {c:02d}/16 :    0   1\n" for c in range(8))
    issue = ("# Help: distributed training failure\n\nand rank 478:\n\n```console\n"
             "gn0402:2645700:2645850 [6] NCCL INFO comm 0x55d00d75af24 rank 478 nranks 512 cudaDev 6 busId b7000 - Init "
             "COMPLETE\n"
             "gn0402:2645700:2645850 [6] include/alloc.h:185 NCCL WARN Cuda failure 'out of memory'\n"
             "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, unhandled cuda error"
             " (run with NCCL_DEBUG=INFO for details), NCCL version 2.14.3\n```\n")
    got = incidents_of(tmp_path, {"log_rank_0.txt": attached, "issue.md": issue}, ruleset)
    assert [(g.cause, g.rank) for g in got][:1] == [(Cause.CUDA_OOM, 478)]
    assert any("issue.md" in w for w in replay_path(tmp_path, ruleset).warnings)
    prose = tmp_path / "prose"
    prose.mkdir()
    (prose / "log_rank_0.txt").write_text(attached)
    (prose / "README.md").write_text("We think a Segmentation fault or CUDA out of memory happened, see the log.\n")
    assert replay_path(prose, ruleset).incidents == ()
