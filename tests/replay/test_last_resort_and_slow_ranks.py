"""From the seventh session's development cases (AB-AE): an abort or a cut traceback as the
incident's cause when nothing else says what failed; a watchdog abort (-6) after untimed
timeouts; timeouts set far below the defaults read as a straggler; a data-preparation bar that ran
as long as the others' wait; NCCL's older socket lines; a library that could not be loaded; a
cloud VM's power-key shutdown."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of

_BANNER = ("WARNING:torch.distributed.run:\n"
           "*****************************************\n"
           "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default\n"
           "*****************************************\n")


def test_an_uncaught_cpp_exception_alone_is_a_crash(tmp_path: Path, ruleset: RuleSet) -> None:
    # AC-dsvt-14: two workers die on std::bad_alloc right after start-up, nothing else
    got = incidents_of(tmp_path, {"train.log": _BANNER + (
        "terminate called after throwing an instance of 'std::bad_alloc'\n"
        "terminate called after throwing an instance of 'std::bad_alloc'\n"
        "  what():  std::bad_alloc\n")}, ruleset)
    assert [g.cause for g in got] == [Cause.CRASH_SIGNAL]
    assert any("std::bad_alloc" in e for e in got[0].evidence)
    assert "std::bad_alloc" in got[0].explanation
    assert not got[0].drain


def test_a_fault_handlers_abort_alone_names_its_node(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "(WorkerDict pid=3175143, ip=10.49.193.113) Fatal Python error: Aborted\n"
        "(WorkerDict pid=3175143, ip=10.49.193.113)\n")}, ruleset)
    assert [(g.cause, g.node) for g in got] == [(Cause.CRASH_SIGNAL, "10.49.193.113")]


def test_an_abort_after_a_watchdog_timeout_stays_the_timeouts(tmp_path: Path, ruleset: RuleSet) -> None:
    # the C++ abort is the watchdog's teardown: the incident is the hang, not a crash
    got = incidents_of(tmp_path, {"train.log": (
        "[rank1]:[E1130 10:30:00.000000 1 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=3, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600100 "
        "milliseconds before timing out.\n"
        "[rank1]: terminate called after throwing an instance of 'c10::DistBackendError'\n"
        "[rank1]: Fatal Python error: Aborted\n")}, ruleset)
    assert [g.cause for g in got] == [Cause.HANG]


def test_a_traceback_the_paste_cut_is_a_python_exception(tmp_path: Path, ruleset: RuleSet) -> None:
    # AE-mmdet-2195: the exception line itself is missing
    got = incidents_of(tmp_path, {"train.log": (
        "Traceback (most recent call last):\n"
        '  File "tools/train.py", line 127, in <module>\n'
        "    main()\n"
        '  File "mmcv/fileio/io.py", line 40, in load\n'
        "    obj = handler.load_from_path(file, **kwargs)\n")}, ruleset)
    assert [g.cause for g in got] == [Cause.PYTHON_EXCEPTION]
    assert got[0].confidence <= 0.35
    assert any("Traceback" in e for e in got[0].evidence)


def test_healthy_chatter_with_no_failure_line_stays_clean(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": _BANNER + "step 10 loss 1.2\nstep 20 loss 1.1\n"}, ruleset)
    assert got == []


def test_an_abort_after_untimed_watchdog_timeouts_is_the_watchdogs(tmp_path: Path, ruleset: RuleSet) -> None:
    # AB-transformers-28119: torch 2.1's unstamped watchdog lines, then the agent reports local
    # rank 4's -6; the abort is the watchdog taking the process down, not a crash of its own
    got = incidents_of(tmp_path, {"train.log": (
        "[E ProcessGroupNCCL.cpp:475] [Rank 13] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=21668, "
        "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800522 milliseconds before timing out.\n"
        "[E ProcessGroupNCCL.cpp:489] Some NCCL operations have failed or timed out. Due to the asynchronous nature of "
        "CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.\n"
        "[2023-12-22 06:45:43,273] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 65503 "
        "closing signal SIGTERM\n"
        "[2023-12-22 06:45:48,361] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -6) "
        "local_rank: 4 (pid: 65506) of binary: /usr/bin/python\n")}, ruleset)
    assert [g.cause for g in got] == [Cause.HANG]


def _timeout(rank: int, ms: int) -> str:
    return (f"[rank{rank}]:[E1130 10:30:00.000000 1 ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog caught collective "
            f"operation timeout: WorkNCCL(SeqNum=493, OpType=ALLGATHER, NumelIn=1, NumelOut=4, Timeout(ms)={ms}) "
            f"ran for {ms + 40} milliseconds before timing out.\n")


def test_a_short_timeout_is_still_a_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    # (U-automodel-1038's 60 s consolidation barrier was a straggler, but a test job's hang under a
    # 60 s timeout reads the same: the timeout's length decides nothing)
    got = incidents_of(tmp_path, {"train.log": _timeout(2, 60000) + _timeout(3, 60000)}, ruleset)
    assert [g.cause for g in got] == [Cause.HANG]


def test_the_default_timeouts_read_as_a_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": _timeout(2, 600000) + _timeout(3, 600000)}, ruleset)
    assert [g.cause for g in got] == [Cause.HANG]


def test_a_tokenizer_bar_as_old_as_the_wait_makes_rank_zero_the_straggler(tmp_path: Path, ruleset: RuleSet) -> None:
    # AB-axolotl-2684: rank 0 tokenizes for 30 minutes, rank 1's store wait of 1800 s runs out
    got = incidents_of(tmp_path, {"train.log": (
        "Tokenizing Prompts (num_proc=64):  92%|█████████▏| 328986/359152 [29:58<12:05, 41.59 examples/s]"
        "[rank1]:[W516 14:34:56.853490829 socket.cpp:489] [c10d] waitForInput: socket SocketImpl(fd=79, "
        "addr=[localhost]:41170, remote=[localhost]:29500) timed out after 1800000ms\n"
        "[rank1]: Traceback (most recent call last):\n"
        '[rank1]:   File "axolotl/cli/train.py", line 124, in <module>\n'
        "[rank1]: torch.distributed.DistStoreError: wait timeout after 1800000ms, keys: /default_pg//0\n")},
        ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.STRAGGLER, 0)]
    assert "Tokenizing Prompts" in got[0].explanation


def test_a_tokenizer_bar_far_from_the_wait_changes_nothing(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "Running tokenizer on dataset:  47%|████▊     | 1695000/3634744 [03:09<33:25, 967.30 examples/s]\n"
        "[rank1]: Traceback (most recent call last):\n"
        '[rank1]:   File "train.py", line 124, in <module>\n'
        "[rank1]: ValueError: bad config\n")}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.PYTHON_EXCEPTION, 1)]


def test_old_nccls_refused_connect_and_a_bare_last_error_are_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"a.log": (
        "gpu-1012:4153:4209 [1] include/socket.h:361 NCCL WARN Call to connect timeout : Connection refused\n")},
        ruleset)
    assert [g.cause for g in got] == [Cause.NETWORK]
    got = incidents_of(tmp_path / "b", {"b.log": (
        "node2: Last error:\n"
        "node2: Net : Call to recv from 10.1.2.3<56843> failed : Connection refused\n")}, ruleset)
    assert [g.cause for g in got] == [Cause.NETWORK]


def test_ncclss_retry_notes_alone_are_no_incident(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"a.log": "node07:2231:2301 [3] NCCL INFO Call to connect returned Connection "
                                           "refused, retrying\n"}, ruleset)
    assert got == []


def test_a_library_that_cannot_be_loaded_is_the_environment(tmp_path: Path, ruleset: RuleSet) -> None:
    # AE-lwm-44: XLA cannot load NCCL
    got = incidents_of(tmp_path, {"console.log": (
        "2024-02-23 23:00:08.992159: W external/xla/xla/service/gpu/runtime/support.cc:58] Intercepted XLA runtime "
        "error:\n"
        "INTERNAL: external/xla/xla/service/gpu/nccl_utils.cc:134: NCCL operation ncclGetUniqueId(&id) failed: "
        "Unable to load NCCL library. Multi-GPU collectives will not work.\n")}, ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.PYTHON_EXCEPTION, False)]


def test_a_vms_power_key_is_its_provider_taking_it_back(tmp_path: Path, ruleset: RuleSet) -> None:
    # AD-mozillatranslations-400: a GCP spot VM's journal, then ACPI's power button
    got = incidents_of(tmp_path, {"journal.log": (
        "Jan 30 10:33:00 gpu-4-1 start-worker[901]: polling for termination-time\n"
        "Jan 30 10:33:08 gpu-4-1 systemd-logind[812]: Power key pressed.\n")}, ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.PREEMPTION, False)]


def test_a_remap_pending_for_a_correctable_error_is_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    # AD-mlengineering-healthy-xid63: the hardware repairs itself; a reset at a convenient time
    smi = ("    Remapped Rows\n"
           "        Correctable Error                 : 1\n"
           "        Uncorrectable Error               : 0\n"
           "        Pending                           : Yes\n"
           "        Remapping Failure Occurred        : No\n")
    xid = "NVRM: Xid (PCI:0000:10:1c): 63, pid=1896, Row Remapper: New row marked for remapping, reset gpu to activate.\n"
    assert incidents_of(tmp_path, {"dmesg.txt": xid, "nvidia-smi-q.txt": smi}, ruleset) == []
    failed = smi.replace("Remapping Failure Occurred        : No", "Remapping Failure Occurred        : Yes")
    got = incidents_of(tmp_path / "failed", {"nvidia-smi-q.txt": failed}, ruleset)
    assert [g.cause for g in got] == [Cause.ECC_MEMORY]


def _pyspy(main_frames: str, worker: str = "") -> str:
    return ('Thread 42 (idle): "MainThread"\n' + main_frames
            + '    main (train.py:583)\n    <module> (train.py:587)\n' + worker)


def test_py_spy_dumps_waiting_in_a_collective_are_a_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    # AB-accelerate-3104: every dumped process waits in ZeRO-3's parameter all-gather
    dump = _pyspy("    backward (deepspeed/runtime/zero/stage3.py:2213)\n",
                  "Thread 4079 (active)\n"
                  "    all_gather_into_tensor (torch/distributed/distributed_c10d.py:2709)\n"
                  "    wrapper (torch/distributed/c10d_logger.py:72)\n")
    got = incidents_of(tmp_path, {"pyspy_dump_1.txt": dump, "pyspy_dump_2.txt": dump}, ruleset)
    assert [(g.cause, g.rank, g.drain) for g in got] == [(Cause.HANG, None, False)]
    assert "all_gather_into_tensor" in got[0].explanation


def test_a_dump_waiting_for_its_data_loader_names_that_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    # AC-pytorch-87995: rank 0's main thread waits for a batch; the other ranks wait for rank 0
    starving = _pyspy("    wait (threading.py:302)\n    get (queue.py:170)\n"
                      "    _get_data (torch/utils/data/dataloader.py:1120)\n"
                      "    _next_data (torch/utils/data/dataloader.py:1276)\n")
    waiting = _pyspy("    all_reduce (torch/distributed/distributed_c10d.py:2050)\n")
    got = incidents_of(tmp_path, {"rank0.pyspy.txt": starving, "rank1.pyspy.txt": waiting}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.DATA_LOADER_STALL, 0)]


def test_a_python_traceback_through_a_collective_is_no_stack_dump(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "[rank1]: Traceback (most recent call last):\n"
        '[rank1]:   File "/opt/torch/distributed/distributed_c10d.py", line 2050, in all_reduce\n'
        "[rank1]:     work = group.allreduce([tensor], opts)\n"
        "[rank1]: RuntimeError: expected a CUDA tensor\n")}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.PYTHON_EXCEPTION, 1)]


def test_horovodruns_exit_status_names_the_killed_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    # AC-horovod-3472: gloo controller; 137 is SIGKILL, which says nothing of who sent it
    got = incidents_of(tmp_path, {"train.log": (
        "Process 0 exit with status code 137.\n"
        "Traceback (most recent call last):\n"
        '  File "/venv/bin/horovodrun", line 8, in <module>\n'
        "    sys.exit(run_commandline())\n")}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.UNKNOWN, 0)]


def test_connection_retries_that_never_succeed_are_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    # X-llamafactory-8045: NCCL keeps retrying a peer it has no route to, nothing else is logged
    retries = "".join(f"zgiot:1183664:1184669 [0] NCCL INFO socketPollConnect: connect returned No route to host, "
                      f"retrying ({n}/34) after sleep for {n}00 msec\n" for n in range(26, 32))
    got = incidents_of(tmp_path, {"train.log": retries}, ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.NETWORK, False)]
    assert got[0].confidence <= 0.35


def test_a_retry_before_a_real_failure_leaves_it_the_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "[W socket.cpp:601] [c10d] The client socket has failed to connect to [master-0]:29500 (errno: 113 - No "
        "route to host).\n"
        "[rank1]: Traceback (most recent call last):\n"
        "[rank1]: ValueError: bad config\n")}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.PYTHON_EXCEPTION, 1)]


def test_the_one_node_whose_launcher_tore_its_workers_down_is_named(tmp_path: Path, ruleset: RuleSet) -> None:
    # AC-deepspeed-4510: pdsh-prefixed lines of one node's launcher killing its subprocesses
    got = incidents_of(tmp_path, {"train.log": "".join(
        f"192.169.83.120: [2023-10-13 11:3{i}:28,593] [INFO] [launch.py:315:sigkill_handler] Killing subprocess "
        f"{249 + i}\n" for i in range(4))}, ruleset)
    assert [(g.cause, g.node, g.drain) for g in got] == [(Cause.UNKNOWN, "192.169.83.120", False)]


def test_teardown_on_two_nodes_names_neither(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": "".join(
        f"10.0.0.{n}: [2023-10-13 11:3{n}:28,593] [INFO] [launch.py:315:sigkill_handler] Killing subprocess {n}\n"
        for n in (1, 2))}, ruleset)
    assert [(g.cause, g.node) for g in got] == [(Cause.UNKNOWN, None)]


def test_a_kernel_line_quoted_in_an_alert_is_placed_on_its_host(tmp_path: Path, ruleset: RuleSet) -> None:
    # AD-m4logs-tr190: a monitoring alert quoting the syslog line of an Xid 64
    got = incidents_of(tmp_path, {"xid_alert.txt": (
        "Xid errors on instance: ip-26-0-147-135, Error: May 29 01:37:38 ip-26-0-147-135 kernel: [257087.812628] "
        "NVRM: Xid (PCI:0000:90:1c): 64, ...\n")}, ruleset)
    assert [(g.cause, g.node) for g in got] == [(Cause.ECC_MEMORY, "ip-26-0-147-135")]


def test_a_flight_recorder_dump_signal_alone_is_a_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    # AK-primerl-3186: rank 0 only hears of rank 13's collective timeout (a paste cut mid-line)
    got = incidents_of(tmp_path, {"rank0-stderr.log": (
        "[rank0]:[E804 23:05:54.816499929 ProcessGroupNCCL.cpp:1849] [PG ID 0 PG GUID 0(default_pg) Rank 0] Observed "
        "flight recorder dump signal from another rank via TCPStore.\n"
        "[rank0]:[E804 23:05:54.817424543 ProcessGroupNCCL.cpp:1914] [PG ID 0 PG GUID 0(default_pg) Rank 0] Received "
        "a dump signal due to a collective timeout from  rank 13 and we will try our best to dump the debug info. "
        "Last enqueued NCC\n")}, ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.HANG, False)]


def test_a_py_spy_dump_of_a_stopped_job_alone_is_a_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    # AK-megatron-2422: the main thread waits in an async checkpoint's join, nothing else logged
    got = incidents_of(tmp_path, {"py-spy.txt": (
        'Thread 36380 (idle): "MainThread"\n'
        "    poll (multiprocessing/popen_fork.py:27)\n"
        "    join (multiprocessing/process.py:149)\n"
        "    save (core/dist_checkpointing/serialization.py:396)\n"
        'Thread 38606 (idle): "Thread-2 (_pin_memory_loop)"\n'
        "    select (selectors.py:415)\n")}, ruleset)
    assert [g.cause for g in got] == [Cause.HANG]
    assert got[0].confidence <= 0.35


def test_glibcs_heap_corruption_abort_is_a_crash(tmp_path: Path, ruleset: RuleSet) -> None:
    # AJ-horovod-591
    got = incidents_of(tmp_path, {"mpirun.log": (
        "*** Error in `python': munmap_chunk(): invalid pointer: 0x0000558401442530 ***\n"
        "======= Backtrace: =========\n"
        "/lib64/libc.so.6(+0x7f5e4)[0x7ffb1559e5e4]\n")}, ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.CRASH_SIGNAL, False)]


def test_an_amd_gpu_that_cannot_be_reset_is_the_hardware(tmp_path: Path, ruleset: RuleSet) -> None:
    # AJ-rocm-2494
    got = incidents_of(tmp_path, {"dmesg.txt": (
        "[22344.295194] amdgpu 0000:03:00.0: amdgpu: GPU mode1 reset failed\n"
        "[22344.498996] amdgpu 0000:03:00.0: amdgpu: ASIC reset failed with error, -121 for drm dev, 0000:03:00.0\n"
        "[22348.790706] amdgpu 0000:03:00.0: amdgpu: GPU reset succeeded, trying to resume\n")}, ruleset)
    assert [g.cause for g in got] == [Cause.GPU_HARDWARE]


def test_ucx_refusing_its_peer_is_the_network_not_the_traceback(tmp_path: Path, ruleset: RuleSet) -> None:
    # AL-deepops-1199: UCX connects to a container bridge address; MPI then raises in Python
    got = incidents_of(tmp_path, {"train.log": (
        "[1657786922.147458] [mlperf1:1207478:0]            sock.c:260  UCX  ERROR   connect(fd=41, "
        "dest_addr=172.17.0.1:45031) failed: Connection refused\n"
        "[mlperf1:1207478] pml_ucx.c:419  Error: ucp_ep_create(proc=0) failed: Destination is unreachable\n"
        "Traceback (most recent call last):\n"
        '  File "/mnt/tools/convert.py", line 81, in <module>\n'
        "mpi4py.MPI.Exception: MPI_ERR_OTHER: known error not in list\n")}, ruleset)
    assert got and (got[0].cause, got[0].node) == (Cause.NETWORK, "mlperf1")


def _table(codes: dict[int, int]) -> str:
    rows = "".join(f"[{r}]: time : 2024-08-23_22:22:58 host : algo-2 rank : {r} (local_rank: {r}) exitcode : {c} "
                   f"(pid: {180 + r}) error_file: <N/A> traceback : Signal {-c} received by PID {180 + r}\n"
                   for r, c in codes.items())
    return ("torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
            "============================================================\n"
            "train.py FAILED\n"
            "------------------------------------------------------------\n"
            "Failures:\n" + rows)


def test_a_wave_of_sigabrt_exits_alone_is_the_watchdogs_teardown(tmp_path: Path, ruleset: RuleSet) -> None:
    # AL-litdata-340: only the failure table survived; every local rank aborted at once
    got = incidents_of(tmp_path, {"train.log": _table({r: -6 for r in range(2, 8)})}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.HANG, None)]
    assert "aborted at once" in got[0].explanation


def test_one_rank_aborting_is_still_a_crash(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": _table({2: -6, 3: -15, 4: -15})}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.CRASH_SIGNAL, 2)]


# --- the review's cases: what training went on after is no failure; a real failure stays one ---

_STEPS = "".join(f"[2024-05-01 10:00:0{i},000] INFO step {i} loss 2.{i}\n" for i in range(1, 4))


def test_a_retry_that_training_went_on_after_is_no_incident(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"rank0.log": (
        "node01:1183664:1184669 [0] NCCL INFO socketPollConnect: connect returned No route to host, retrying (1/34) "
        "after sleep for 100 msec\n"
        "node01:1183664:1184669 [0] NCCL INFO Connected all rings\n" + _STEPS
        + "[2024-05-01 10:00:04,000] INFO Training completed.\n")}, ruleset)
    assert got == []


def test_a_py_spy_dump_of_a_running_job_is_no_incident(tmp_path: Path, ruleset: RuleSet) -> None:
    dump = ('Thread 4242 (active): "MainThread"\n'
            "    all_reduce (torch/distributed/distributed_c10d.py:2050)\n"
            "    _next_data (torch/utils/data/dataloader.py:1276)\n"
            "    main (train.py:200)\n")
    assert incidents_of(tmp_path, {"rank0.log": dump + _STEPS}, ruleset) == []


def test_a_handled_traceback_before_more_steps_is_no_incident(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"rank0.log": (
        "Exception ignored in: <generator object tqdm.__iter__ at 0x7f>\n"
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3/site-packages/tqdm/std.py", line 1193, in __iter__\n'
        "    self.close()\n"
        "GeneratorExit\n" + _STEPS)}, ruleset)
    assert got == []


def test_an_old_retry_does_not_outrank_a_later_traceback(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {
        "rank0.log": ("[W501 10:00:01.000000 socket.cpp:601] [c10d] The client socket has failed to connect to "
                      "[job-worker-0]:29500 (errno: 113 - No route to host).\n" + _STEPS),
        "rank2.log": (_STEPS + "Traceback (most recent call last):\n"
                      '  File "/workspace/model.py", line 88, in forward\n'
                      '    raise MyCustomProblem("shape mismatch in head")\n'
                      "mymodule.MyCustomProblem: shape mismatch in head\n")}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.PYTHON_EXCEPTION, 2)]


def test_a_faulthandler_dump_of_a_segfault_stays_a_crash(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"rank0.log": (
        "Fatal Python error: Segmentation fault\n"
        "Current thread 0x00007f3b9c5f0740 (most recent call first):\n"
        '  File "/usr/lib/python3/site-packages/torch/utils/data/dataloader.py", line 1133 in _try_get_data\n'
        '  File "/workspace/train.py", line 120 in main\n'
        "Segmentation fault (core dumped)\n")}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.CRASH_SIGNAL, 0)]


def test_aborts_with_their_own_words_are_no_watchdog_wave(tmp_path: Path, ruleset: RuleSet) -> None:
    # every rank hits the same bug in a custom op: the abort's what() says so
    lines = "".join(f"[rank{r}]: terminate called after throwing an instance of 'std::runtime_error'\n"
                    f"[rank{r}]:   what():  myext::gather_kernel: index out of range in custom op\n"
                    for r in range(2, 8))
    got = incidents_of(tmp_path, {"train.log": lines + _table({r: -6 for r in range(2, 8)})}, ruleset)
    assert got and got[0].cause is Cause.CRASH_SIGNAL


def test_the_abort_that_came_well_before_the_others_is_the_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    # untimed watchdog lines (torch < 2.2); rank 2's abort half an hour before the others' in the table
    timeouts = "".join(f"[E ProcessGroupNCCL.cpp:828] [Rank {r}] Watchdog caught collective operation timeout: "
                       f"WorkNCCL(SeqNum=9, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800100 milliseconds "
                       "before timing out.\n" for r in (0, 1, 3))
    table = "".join(f"[{r}]:\n  time      : 2024-08-23_{t}\n  host      : algo-2\n  rank      : {r} (local_rank: {r})\n"
                    f"  exitcode  : -6 (pid: {180 + r})\n  error_file: <N/A>\n  traceback : Signal 6 (SIGABRT) received "
                    f"by PID {180 + r}\n" for r, t in ((2, "22:30:00"), (0, "23:00:02"), (1, "23:00:02"), (3, "23:00:03")))
    got = incidents_of(tmp_path, {"train.log": timeouts + "torch.distributed.elastic.multiprocessing.errors."
                                  "ChildFailedError:\n====\ntrain.py FAILED\n----\nFailures:\n" + table}, ruleset)
    assert got and (got[0].cause, got[0].rank) == (Cause.CRASH_SIGNAL, 2)


def test_a_bar_long_finished_does_not_make_a_later_failure_a_straggler(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"rank0.log": (
        "Running tokenizer on dataset:  99%|█████████▉| 65000/65536 [29:50<00:05, 100.0 examples/s]\n"
        "Running tokenizer on dataset: 100%|██████████| 65536/65536 [29:55<00:00, 100.0 examples/s]\n"
        + _STEPS + "Traceback (most recent call last):\n"
        '  File "/workspace/train.py", line 120, in main\n'
        "KeyError: 'labels'\n")}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.PYTHON_EXCEPTION, 0)]


def test_a_teardown_beside_a_peer_named_lost_names_no_node(tmp_path: Path, ruleset: RuleSet) -> None:
    # nodeA saw nodeB close its connection, then tore its own workers down: not nodeA's failure
    got = incidents_of(tmp_path, {"nodeA/rank0.log": (
        "[rank0]:nodeA:2231:2301 [0] misc/socket.cc:50 NCCL WARN socketProgress: Connection closed by remote peer "
        "nodeB<46762>\n"
        "[2024-05-01 10:00:09,000] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 2232 "
        "closing signal SIGTERM\n")}, ruleset)
    assert got and got[0].node != "nodeA"


def test_a_remap_no_longer_pending_is_a_past_repair(tmp_path: Path, ruleset: RuleSet) -> None:
    smi = ("    Remapped Rows\n"
           "        Correctable Error                 : 0\n"
           "        Uncorrectable Error               : 1\n"
           "        Pending                           : No\n"
           "        Remapping Failure Occurred        : No\n")
    assert incidents_of(tmp_path, {"nvidia-smi-q.txt": smi}, ruleset) == []


def test_two_processes_claiming_one_global_rank_is_a_hang_at_start(tmp_path: Path, ruleset: RuleSet) -> None:
    # AM-lightning-4389: both nodes computed the same ranks
    joins = "".join(f"initializing ddp: GLOBAL_RANK: {r}, MEMBER: {r + 1}/8\n" for r in range(4))
    got = incidents_of(tmp_path, {"train.log": joins + joins}, ruleset)
    assert [g.cause for g in got] == [Cause.HANG]
    assert "global rank" in got[0].explanation
    # each rank once, then training: nothing
    assert incidents_of(tmp_path / "ok", {"train.log": joins + _STEPS}, ruleset) == []


def test_ssh_refusing_the_launcher_is_the_network_on_that_node(tmp_path: Path, ruleset: RuleSet) -> None:
    # AM-horovod-504: mpirun's daemons cannot start on the other node
    got = incidents_of(tmp_path, {"console.log": (
        "ssh: connect to host 192.168.11.1 port 50000: Connection refused\n"
        "ORTE was unable to reliably start one or more daemons.\n")}, ruleset)
    assert [(g.cause, g.node) for g in got] == [(Cause.NETWORK, "192.168.11.1")]


def test_mpichs_banner_names_the_node_of_the_killed_process(tmp_path: Path, ruleset: RuleSet) -> None:
    # AM-jukebox-155
    got = incidents_of(tmp_path, {"console.log": (
        "===================================================================================\n"
        "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n"
        "=   PID 9665 RUNNING AT NeuroRTX6000\n"
        "=   EXIT CODE: 9\n"
        "=   CLEANING UP REMAINING PROCESSES\n"
        "===================================================================================\n"
        "YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Killed (signal 9)\n")}, ruleset)
    assert [(g.cause, g.node) for g in got] == [(Cause.UNKNOWN, "NeuroRTX6000")]


def test_tensorflow_running_out_of_input_in_a_collective_is_a_mismatch(tmp_path: Path, ruleset: RuleSet) -> None:
    # AM-tensorflow-33531: one worker's iterator ends while the others enter the collective, whose
    # collectives are cancelled (the warning alone is an epoch's end: test_other_stacks_lines)
    got = incidents_of(tmp_path, {"worker.log": (
        "2019-10-19 12:14:21.635680: W tensorflow/core/common_runtime/base_collective_executor.cc:216] "
        "BaseCollectiveExecutor::StartAbort Out of range: End of sequence\n"
        "2019-10-19 12:14:21.635764: W tensorflow/core/common_runtime/base_collective_executor.cc:216] "
        "BaseCollectiveExecutor::StartAbort Cancelled: [_Derived_]Cancelled\n")}, ruleset)
    assert [g.cause for g in got] == [Cause.COLLECTIVE_MISMATCH]


def test_an_ib_transport_size_mismatch_is_a_failure_of_unknown_cause(tmp_path: Path, ruleset: RuleSet) -> None:
    # AM-tensorflow-34375, AB-nccl-615: an application mismatch or a GPUDirect fault, the line cannot tell
    got = incidents_of(tmp_path, {"train.log": (
        "host2:14508:15205 [0] transport/net_ib.cc:651 NCCL WARN NET/IB : collective mismatch error local size "
        "348160 remote 32768 addr 7fb47b011000 rkey baa8 seq 5a/5a\n")}, ruleset)
    assert [(g.cause, g.node, g.drain) for g in got] == [(Cause.UNKNOWN, "host2", False)]


def test_a_signal_handlers_first_line_as_last_words_is_a_crash_on_its_host(tmp_path: Path, ruleset: RuleSet) -> None:
    # I-nccl-1669: the paste ends on Open MPI's "*** Process received signal ***" (the signal's own
    # line cut); while anything else says what failed it is context
    init = "rtptest1621:405884:407462 [0] NCCL INFO RAS client listening socket at ::1<28028>\n"
    got = incidents_of(tmp_path, {"train.log": init + "[rtptest1621:405884] *** Process received signal ***\n"}, ruleset)
    assert [(g.cause, g.node) for g in got] == [(Cause.CRASH_SIGNAL, "rtptest1621")]
    got = incidents_of(tmp_path / "b", {"train.log": init + "[rtptest1621:405884] *** Process received signal ***\n"
                                        "[rtptest1621:405884] Signal: Bus error (7)\n"}, ruleset)
    assert [(g.cause, g.node) for g in got] == [(Cause.CRASH_SIGNAL, "rtptest1621")]
    got = incidents_of(tmp_path / "c", {"train.log": init + "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
                                        "[rtptest1621:405884] *** Process received signal ***\n"}, ruleset)
    assert [g.cause for g in got][:1] == [Cause.CUDA_OOM]


def test_hydras_error_with_an_empty_exception_is_the_programs_exception(tmp_path: Path, ruleset: RuleSet) -> None:
    # EC-mlperf50-hpe-...-hydra-error: every rank's evaluation raised an exception with no message
    hydra = "".join(f"{r}: Error executing job with overrides: ['trainer.num_nodes=1', 'trainer.devices=8']\n{r}: \n"
                    f"{r}: Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace.\n" for r in range(4))
    got = incidents_of(tmp_path, {"console.log": "0: eval_start\n" + hydra}, ruleset)
    assert [g.cause for g in got] == [Cause.PYTHON_EXCEPTION]
    # with the exception's own line, that line decides
    got = incidents_of(tmp_path / "b", {"console.log": "Error executing job with overrides: ['x=1']\n"
                                        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"}, ruleset)
    assert [g.cause for g in got][:1] == [Cause.CUDA_OOM]
