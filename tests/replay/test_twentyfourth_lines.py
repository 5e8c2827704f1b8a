"""The twenty-fourth session's cases: a log pasted into an issue's template, the notes after it
(the fence that closes the log's block, the template's "Versions" heading, PyTorch's collect_env
output) read as no part of the log, so that what the log's last lines say stays its last words."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import causes_of, incidents_of

ENV = """### Versions

Collecting environment information...
PyTorch version: 2.1.0+cu121
Is debug build: False
CUDA used to build PyTorch: 12.1
OS: Ubuntu 22.04.3 LTS (x86_64)
Python version: 3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0] (64-bit runtime)
Is CUDA available: True
GPU models and configuration:
GPU 0: NVIDIA A100-SXM4-80GB
GPU 1: NVIDIA A100-SXM4-80GB
GPU 2: NVIDIA A100-SXM4-80GB
GPU 3: NVIDIA A100-SXM4-80GB
Nvidia driver version: 535.104.05
cuDNN version: Could not collect
HIP runtime version: N/A
MIOpen runtime version: N/A
Is XNNPACK available: True

CPU:
Architecture:                       x86_64
CPU op-mode(s):                     32-bit, 64-bit
Byte Order:                         Little Endian
CPU(s):                             256
On-line CPU(s) list:                0-255
Vendor ID:                          AuthenticAMD
Model name:                         AMD EPYC 7742 64-Core Processor
NUMA node(s):                       8
L3 cache:                           512 MiB (32 instances)
Vulnerability Itlb multihit:        Not affected
Vulnerability L1tf:                 Not affected
Vulnerability Mds:                  Not affected
Vulnerability Meltdown:             Not affected
Vulnerability Retbleed:             Mitigation; untrained return thunk; SMT enabled with STIBP protection
Vulnerability Spec store bypass:    Mitigation; Speculative Store Bypass disabled via prctl and seccomp
Vulnerability Spectre v1:           Mitigation; usercopy/swapgs barriers and __user pointer sanitization
Vulnerability Srbds:                Not affected

Versions of relevant libraries:
[pip3] nvidia-nccl-cu12==2.18.1
[pip3] torch==2.1.0
"""

STALL = ("WARNING: One or more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks "
         "and are waiting for remainder of ranks for more than 60 seconds. This may indicate that different ranks "
         "are trying to submit different tensors or that only subset of ranks is submitting tensors, which will "
         "cause deadlock. Stalled ops: allreduce.model.fc1.weight [ready ranks: 2, 0, 1], "
         "allreduce.model.fc1.bias [ready ranks: 0, 2, 1]\n")


def _issue(log: str, tail: str = ENV) -> str:
    return ("### Describe the bug\n\nTraining with Horovod on 4 GPUs stops after the first batch; no error, it just "
            "sits there. Any idea what's going on?\n\n```\n" + log + "```\n\n" + tail)


def test_a_stall_report_that_ends_the_log_stays_a_hang_with_the_issue_notes_after_it(tmp_path: Path, ruleset: RuleSet) -> None:
    assert causes_of(tmp_path / "bare", {"train.log": STALL}, ruleset)[:1] == [Cause.HANG]
    assert causes_of(tmp_path / "issue", {"log.txt": _issue(STALL)}, ruleset)[:1] == [Cause.HANG]
    assert causes_of(tmp_path / "md", {"issue.md": _issue(STALL)}, ruleset)[:1] == [Cause.HANG]


def test_log_after_the_notes_keeps_the_file_going(tmp_path: Path, ruleset: RuleSet) -> None:
    # the stall report, then a second block of the same log in which training went on: the
    # report was one in the middle of training (nothing failed), whatever sits between the blocks
    steps = "".join(f"[2021-06-01 10:{14 + i // 60:02d}:{i % 60:02d}.000000: I train.py:88] step {100 + i} loss 2.31\n"
                    for i in range(40))
    text = _issue(STALL, "and a few minutes later it continued:\n\n```\n" + steps + "```\n")
    assert causes_of(tmp_path / "went-on", {"log.txt": text}, ruleset) == []


TRACEBACK = """Traceback (most recent call last):
  File "/workspace/train.py", line 212, in <module>
    main(args)
  File "/workspace/train.py", line 174, in main
    batch = next(loader)
  File "/workspace/data.py", line 61, in __next__
    raise ValueError(f"sample {idx} has no labels")
ValueError: sample 88213 has no labels
[2024-03-05 11:02:14,120] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1) local_rank: 0 (pid: 4112) of binary: /usr/bin/python
"""


def test_a_paste_quoted_in_a_reply_or_indented_as_a_code_block_reads_as_the_log(tmp_path: Path, ruleset: RuleSet) -> None:
    # the traceback's last frames and its exception, as a reply quotes them or a post indents them
    cut = TRACEBACK.splitlines()[3:8]
    assert causes_of(tmp_path / "bare", {"train.log": "\n".join(cut) + "\n"}, ruleset)[:1] == [Cause.PYTHON_EXCEPTION]
    quoted = "".join("> " + line + "\n" for line in cut)
    indented = "".join("    " + line + "\n" for line in cut)
    tabbed = "".join("\t" + line + "\n" for line in cut)
    for name, text in (("quoted", quoted), ("indented", indented), ("tabbed", tabbed)):
        assert causes_of(tmp_path / name, {"train.log": text}, ruleset)[:1] == [Cause.PYTHON_EXCEPTION], name


def test_a_paste_cut_inside_a_traceback_keeps_its_frames_indent(tmp_path: Path, ruleset: RuleSet) -> None:
    # frames only, no header and no exception line: two spaces before each "File" are the
    # traceback's own, not a margin; the paste still reads as a cut traceback
    frames = "".join(line + "\n" for line in TRACEBACK.splitlines()[1:7])
    assert causes_of(tmp_path / "frames", {"train.log": frames}, ruleset)[:1] == [Cause.PYTHON_EXCEPTION]


def test_a_paste_saved_with_windows_line_ends_reads_as_the_same_log(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("terminate called after throwing an instance of 'std::system_error'\n"
           "  what():  Transport endpoint is not connected\n"
           "Traceback (most recent call last):\n"
           '  File "main_moco.py", line 403, in <module>\n'
           "    main()\n"
           "torch.multiprocessing.spawn.ProcessExitedException: process 3 terminated with signal SIGABRT\n")
    bare = causes_of(tmp_path / "lf", {"train.log": log}, ruleset)[:1]
    assert bare == [Cause.NETWORK]
    assert causes_of(tmp_path / "crlf", {"train.log": log.replace("\n", "\r\n")}, ruleset)[:1] == bare


def test_a_console_captured_with_colours_reads_as_the_same_log(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("terminate called after throwing an instance of 'std::system_error'\n"
           "  what():  Transport endpoint is not connected\n")
    coloured = "".join("\x1b[31m" + line + "\x1b[0m\n" for line in log.splitlines())
    assert causes_of(tmp_path / "plain", {"train.log": log}, ruleset)[:1] == [Cause.NETWORK]
    assert causes_of(tmp_path / "coloured", {"train.log": coloured}, ruleset)[:1] == [Cause.NETWORK]


def test_a_ray_task_that_failed_because_an_actor_died_is_no_exception_of_its_own(tmp_path: Path, ruleset: RuleSet) -> None:
    died = ("ray.exceptions.RayTaskError(ActorDiedError): \x1b[36mray::TaskRunner.run()\x1b[39m (pid=15334, "
            "ip=10.80.8.181, actor_id=fd3e78044484d6f1fdf0392301000000, repr=<main_ppo.TaskRunner object at 0x7f6f9cff1a10>)\n"
            "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.\n")
    assert Cause.PYTHON_EXCEPTION not in causes_of(tmp_path / "died", {"train.log": died}, ruleset)
    plain = died.replace("\x1b[36m", "").replace("\x1b[39m", "")
    assert Cause.PYTHON_EXCEPTION not in causes_of(tmp_path / "plain", {"train.log": plain}, ruleset)
    raised = died.replace("RayTaskError(ActorDiedError)", "RayTaskError(ValueError)").replace(
        "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.", "ValueError: bad reward")
    assert causes_of(tmp_path / "raised", {"train.log": raised}, ruleset)[:1] == [Cause.PYTHON_EXCEPTION]


def _banner(pid: int, t: str) -> str:
    head = f"W0422 19:{t}.364000 {pid} torch/distributed/run.py:803] "
    return (head + "\n" + head + "*****************************************\n" + head
            + "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system "
            "being overloaded, please further tune the variable for optimal performance in your application as needed.\n"
            + head + "*****************************************\n")


FAILED_LAUNCH = ("".join("/usr/local/bin/python: can't open file '/root/train_gpt.py': [Errno 2] No such file or directory\n"
                         for _ in range(4))
                 + "E0422 19:41:11.722000 128722 torch/distributed/elastic/multiprocessing/api.py:882] failed (exitcode: 2) "
                 "local_rank: 0 (pid: 128804) of binary: /usr/local/bin/python\n"
                 "Traceback (most recent call last):\n"
                 '  File "/usr/local/bin/torchrun", line 8, in <module>\n'
                 "    sys.exit(main())\n"
                 "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
                 "============================================================\n"
                 "train_gpt.py FAILED\n"
                 "------------------------------------------------------------\n"
                 "Failures:\n"
                 "  <NO_OTHER_FAILURES>\n"
                 "------------------------------------------------------------\n"
                 "Root Cause (first observed failure):\n"
                 "[0]:\n"
                 "  time      : 2026-04-22_19:41:11\n"
                 "  host      : 2cb1b82dcb5e\n"
                 "  rank      : 0 (local_rank: 0)\n"
                 "  exitcode  : 2 (pid: 128804)\n"
                 "  error_file: <N/A>\n"
                 "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n"
                 "============================================================\n")


def test_a_torchrun_launch_that_failed_then_a_new_launch_that_trained_to_its_end_is_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    steps = "".join(f"step:{i}/2000 train_loss:{3.0 - i / 1000:.4f} train_time:{i * 120}ms\n" for i in range(0, 2001, 100))
    console = _banner(128722, "41:08") + FAILED_LAUNCH + _banner(128851, "41:35") + steps + "final val_loss:2.3290 val_bpb:1.0642\n"
    assert causes_of(tmp_path / "relaunched", {"train.log": console}, ruleset) == []
    # the failed launch alone, and an old launcher's banner that its buffered stdout printed last
    assert causes_of(tmp_path / "failed", {"train.log": _banner(128722, "41:08") + FAILED_LAUNCH}, ruleset)[:1] == [Cause.PYTHON_EXCEPTION]
    assert causes_of(tmp_path / "late-banner", {"train.log": FAILED_LAUNCH + _banner(128722, "41:08")}, ruleset)[:1] == [Cause.PYTHON_EXCEPTION]


def test_a_traceback_a_logger_wrote_as_a_warning_is_no_last_word_of_a_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    head = "[rank4]:W0412 22:19:10.969000 91330 torch/_inductor/codecache.py:1021] [0/4] "
    warned = (head + "fx graph cache unable to load compiled graph\n"
              + head + "Traceback (most recent call last):\n"
              + head + '  File "/usr/local/lib/python3.12/dist-packages/torch/_inductor/codecache.py", line 1019, in iterate_over_candidates\n'
              + head + "    yield pickle.loads(content), content\n"
              + head + "EOFError: Ran out of input\n"
              + "Serialized model quantized+brotli: 15973873 bytes\n"
              + "final_int6_roundtrip val_loss:2.3290 val_bpb:1.0642 eval_time:6349ms\n")
    assert causes_of(tmp_path / "warned", {"train.log": warned}, ruleset) == []
    # the same traceback printed as the process died is its last word
    died = warned.replace(head, "[rank4]: ").replace("fx graph cache unable to load compiled graph\n", "")
    died = died.split("Serialized")[0]
    assert causes_of(tmp_path / "died", {"train.log": died}, ruleset)[:1] == [Cause.PYTHON_EXCEPTION]


def test_the_shells_killed_after_sglang_heard_a_child_fail_is_no_oom_kill(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("[2026-02-27 11:31:26 TP9] Scheduler hit an exception: Traceback (most recent call last):\n"
           '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2412, in run_scheduler_process\n'
           "    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, moe_ep_rank, pp_rank, dp_rank)\n"
           '  File "/sgl-workspace/sglang/python/sglang/srt/disaggregation/mooncake/conn.py", line 140, in __init__\n'
           "    self.engine.initialize(hostname, 'P2PHANDSHAKE', 'tcp', device_name)\n"
           "RuntimeError: open: Address family not supported by protocol\n"
           "\n"
           "[2026-02-27 11:31:26] Received sigquit from a child process. It usually means the child failed.\n"
           "tpgds-aihub0006:2617:3311 [1] NCCL INFO [Service thread] Connection closed by localRank 1\n"
           "Killed\n")
    got = causes_of(tmp_path / "sglang", {"log.txt": log}, ruleset)
    assert got[:1] == [Cause.PYTHON_EXCEPTION] and Cause.HOST_OOM_KILL not in got
    # "Killed" alone after the same error, no launcher tearing down: still read as the OOM killer's
    alone = log.replace("[2026-02-27 11:31:26] Received sigquit from a child process. It usually means the child failed.\n", "")
    assert Cause.HOST_OOM_KILL in causes_of(tmp_path / "alone", {"log.txt": alone}, ruleset)


def test_an_ascend_vector_core_exception_and_a_tpu_device_buffer_exhausted(tmp_path: Path, ruleset: RuleSet) -> None:
    npu = ("[2026-01-15 13:43:21 DP2 TP10 EP10] Scheduler hit an exception: Traceback (most recent call last):\n"
           '  File "/sglang/python/sglang/srt/layers/moe/token_dispatcher/deepep.py", line 612, in combine\n'
           "    combined_hidden_states, event, hook = buffer.low_latency_combine(\n"
           "RuntimeError: Sync:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:325 NPU function error: "
           "c10_npu::acl::AclrtSynchronizeStreamWithTimeout(stream), error code is 507035\n"
           "[ERROR] 2026-01-15-13:43:21 (PID:337412, Device:10, RankID:-1) ERR00100 PTA call acl api failed\n"
           "[Error]: The vector core execution is abnormal. \n")
    assert causes_of(tmp_path / "npu", {"server.log": npu}, ruleset)[:1] == [Cause.ILLEGAL_MEMORY_ACCESS]
    tpu = ("RuntimeError: Bad StatusOr access: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to "
           "allocate 196.00M. That was not possible. There are 134.44M free.; (1x0x0_HBM0): while running replica 0 "
           "and partition 0 of a replicated computation (other replicas may have failed as well).\n")
    assert causes_of(tmp_path / "tpu", {"worker-3.log": tpu}, ruleset)[:1] == [Cause.CUDA_OOM]


def test_a_bare_eoferror_from_a_closed_pipe_is_collateral_of_the_timeouts(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("[rank1]:[E324 13:00:25.428029 ProcessGroupHCCL.cpp:600] [Rank 1] Watchdog caught collective operation timeout: "
           "WorkHCCL(SeqNum=196, OpType=ALLREDUCE, Timeout(ms)=3600000) ran for 3600185 milliseconds before timing out.\n"
           "[rank0]:[E324 13:00:25.236600 ProcessGroupHCCL.cpp:600] [Rank 0] Watchdog caught collective operation timeout: "
           "WorkHCCL(SeqNum=196, OpType=ALLREDUCE, Timeout(ms)=3600000) ran for 3600993 milliseconds before timing out.\n"
           "Process ForkServerProcess-2:\n"
           "Traceback (most recent call last):\n"
           '  File "/usr/local/Ascend/ascend-toolkit/latest/python/site-packages/tbe/common/repository_manager/route.py", line 262, in task_distribute\n'
           "    key, func_name, detail = resource_proxy[TASK_QUEUE].get()\n"
           '  File "/home/ma-user/python3.10/lib/python3.10/multiprocessing/connection.py", line 388, in _recv\n'
           "    raise EOFError\n"
           "EOFError\n")
    assert Cause.PYTHON_EXCEPTION not in causes_of(tmp_path / "hang", {"log.txt": log}, ruleset)
    # an EOFError with a message (a truncated file read) is the program's own failure
    read = log.split("Process ForkServerProcess-2:\n")[1].replace("EOFError\n", "EOFError: Ran out of input\n")
    assert causes_of(tmp_path / "read", {"log.txt": read}, ruleset)[:1] == [Cause.PYTHON_EXCEPTION]


def test_nccl_tests_whose_every_process_reports_a_remote_error_read_as_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    ranks = "".join(f"#  Rank {r:2d} Group  0 Pid {297570 + r} on {'cnode2-005' if r < 8 else 'cnode2-016'} device  {r % 8} "
                    f"[0x{0x18 + r:02x}] NVIDIA A100-SXM4-80GB\n" for r in range(16))
    fails = "".join(f"{host}: Test NCCL failure common.cu:1279 'remote process exited or there was a network error / '\n"
                    f" .. {host} pid {pid}: Test failure common.cu:1100\n"
                    for host, pid in (("cnode2-016", 297579), ("cnode2-016", 297578), ("cnode2-005", 297571)))
    log = ("# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
           "validation: 1 graph: 0\n#\n# Using devices\n" + ranks + "#\n#       size         count      type   redop    root     "
           "time   algbw   busbw #wrong     time   algbw   busbw #wrong\n" + fails)
    assert causes_of(tmp_path / "tests", {"nccl_N2_G8.log": log}, ruleset)[:1] == [Cause.NETWORK]


def test_modal_stopping_a_function_at_its_timeout_or_on_preemption_is_a_preemption(tmp_path: Path, ruleset: RuleSet) -> None:
    timeout = ("step:10400/20000 train_loss:2.0412 train_time:594871ms step_avg:57.20ms\n"
               "Task's current input(s) [\"in-01KM8ZC4QTPN9XQP9KHETJXTFZ:1774122832637-0\"] cancelled because: Task's current "
               "input in-01KM8ZC4QTPN9XQP9KHETJXTFZ:1774122832637-0 hit its timeout of 1500s\n"
               "[modal-client] 2026-03-21T20:18:59+0000 Received a cancellation signal while processing input "
               "('in-01KM8ZC4QTPN9XQP9KHETJXTFZ:1774122832637-0',)\n"
               "Runner terminated.\n"
               "FunctionTimeoutError: Task's current input \n"
               "in-01KM8ZC4QTPN9XQP9KHETJXTFZ:1774122832637-0 hit its timeout of 1500s\n")
    assert causes_of(tmp_path / "timeout", {"train.log": timeout}, ruleset)[:1] == [Cause.PREEMPTION]
    preempted = ("step:1000/20000 train_loss:3.1 train_time:60000ms\n"
                 "Runner interrupted due to worker preemption. Your Function will be restarted with the same input. "
                 "For more details, see https://modal.com/docs/guide/preemption\n")
    assert causes_of(tmp_path / "preempted", {"train.log": preempted}, ruleset)[:1] == [Cause.PREEMPTION]


def test_the_one_srun_task_that_exited_with_code_1_before_a_peers_abort_is_the_initiator(tmp_path: Path, ruleset: RuleSet) -> None:
    err = ("srun: error: gpu-node1: task 0: Exited with exit code 1\n"
           '/app/slurm/run.sh: line 197: 2985003 Aborted                 (core dumped) "${BASE_CMD[@]}" 2>&1\n'
           "srun: error: gpu-node2: task 1: Exited with exit code 134\n")
    out = ("gpu-node2:2985003:2985024 [0] misc/socket.cc:50 NCCL WARN socketProgress: Connection closed by remote peer "
           "gpu-node1.cluster<45074>\n"
           "gpu-node2:2985003:2985024 [0] NCCL INFO misc/socket.cc:752 -> 6\n"
           "gpu-node2:2985003:2985016 [0] NCCL INFO comm 0x8e01d00 rank 1 nranks 2 cudaDev 0 busId 100000 - Abort COMPLETE\n"
           "[rank1]:[E ProcessGroupNCCL.cpp:577] [Rank 1] Some NCCL operations have failed or timed out. Due to the "
           "asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.\n"
           "[rank1]:[E ProcessGroupNCCL.cpp:1414] [PG 0 Rank 1] Process group watchdog thread terminated with exception: "
           "NCCL error: remote process exited or there was a network error, NCCL version 2.20.5\n")
    got = incidents_of(tmp_path / "srun", {"job.err": err, "job.out": out}, ruleset)
    assert got and got[0].cause is Cause.PYTHON_EXCEPTION and got[0].rank == 0


def test_a_log_that_ends_on_a_store_wait_timing_out_is_a_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    wait = ("[rank4]:[W731 01:01:29.544034999 socket.cpp:460] [c10d] waitForInput: poll for socket SocketImpl(fd=49, "
            "addr=jrc0913.jureca:46374, remote=jrc0912.jureca:38293) returned 0, likely a timeout\n")
    head = ("[rank4]:V0731 00:56:28.929000 3080918 */torch/distributed/pipelining/stage.py:1354] Shape inference: stage 2 "
            "receiving from stage 1\n")
    assert causes_of(tmp_path / "ends", {"log.txt": head + wait}, ruleset)[:1] == [Cause.HANG]
    steps = "".join(f"[rank4]:[titan] 2025-07-31 01:0{2 + i // 60}:{i % 60:02d},000 - root - INFO - step: {i + 1}  loss: 9.1  "
                    "memory: 30.1GiB  tps: 1,234\n" for i in range(30))
    assert causes_of(tmp_path / "went-on", {"log.txt": head + wait + steps}, ruleset) == []


def test_ranks_timing_out_in_the_same_allreduce_with_different_sizes_issued_mismatched_collectives(tmp_path: Path, ruleset: RuleSet) -> None:
    def wd(rank: int, seq: int, op: str, numel: int, timeout: int) -> str:
        return (f"[rank{rank}]:[E ProcessGroupNCCL.cpp:523] [Rank {rank}] Watchdog caught collective operation timeout: "
                f"WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={numel}, NumelOut={numel * 4}, Timeout(ms)={timeout}) "
                f"ran for {timeout + 644} milliseconds before timing out.\n")
    uneven = (wd(2, 6207, "ALLREDUCE", 48128, 1800000) + wd(0, 6207, "ALLREDUCE", 49152, 1800000)
              + wd(0, 6029, "BROADCAST", 65084417, 600000) + wd(1, 6206, "ALLREDUCE", 8192, 1800000))
    assert causes_of(tmp_path / "uneven", {"train.log": uneven}, ruleset)[:1] == [Cause.COLLECTIVE_MISMATCH]
    # the same sizes: the usual hang (one rank behind)
    even = uneven.replace("NumelIn=48128", "NumelIn=49152")
    assert causes_of(tmp_path / "even", {"train.log": even}, ruleset)[:1] == [Cause.HANG]
    # all_gather into tensors of different sizes is legal (it runs as broadcasts): no mismatch by sizes
    gather = uneven.replace("ALLREDUCE", "ALLGATHER")
    assert causes_of(tmp_path / "gather", {"train.log": gather}, ruleset)[:1] == [Cause.HANG]


# --- found in review: the notes, the banner, the exit codes and the paste forms' edges ---

def test_a_fenced_sample_in_the_middle_of_training_is_no_note(tmp_path: Path, ruleset: RuleSet) -> None:
    steps = lambda a, b: "".join(f"epoch 0 step {i} loss {3 - i / 100:.3f}\n" for i in range(a, b, 10))  # noqa: E731
    log = ("Horovod size 4, starting training\n" + steps(0, 50) + "eval sample 0:\n```python\ndef add(a, b):\n"
           "    return a + b\n```\n" + steps(50, 100) + STALL + steps(100, 400) + "Training finished.\n")
    assert causes_of(tmp_path / "sample", {"train.log": log}, ruleset) == []


def test_a_banner_followed_only_by_the_schedulers_teardown_is_no_new_launch(tmp_path: Path, ruleset: RuleSet) -> None:
    teardown = ("srun: error: node07: task 0: Exited with exit code 1\n"
                "slurmstepd: error: *** STEP 12.0 ON node07 CANCELLED AT 2026-04-22T19:42:00 ***\n"
                "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n"
                "srun: error: node07: task 1: Terminated\n"
                "srun: Force Terminated StepId=12.0\n")
    got = causes_of(tmp_path / "late", {"train.log": FAILED_LAUNCH + _banner(128722, "41:08") + teardown}, ruleset)
    assert got[:1] == causes_of(tmp_path / "none", {"train.log": FAILED_LAUNCH + teardown}, ruleset)[:1]


def test_a_task_that_segfaulted_under_a_wrapper_shell_keeps_the_exit_1_task_from_being_named(tmp_path: Path, ruleset: RuleSet) -> None:
    err = ("srun: error: gpu-node2: task 1: Exited with exit code 139\n"
           "srun: error: gpu-node1: task 0: Exited with exit code 1\n")
    out = ("[rank0]:[E ProcessGroupNCCL.cpp:1414] [PG 0 Rank 0] Process group watchdog thread terminated with exception: "
           "NCCL error: remote process exited or there was a network error, NCCL version 2.20.5\n")
    got = incidents_of(tmp_path / "segv", {"job.err": err, "job.out": out}, ruleset)
    assert not (got and got[0].cause is Cause.PYTHON_EXCEPTION and got[0].rank == 0)


def test_a_nested_quote_and_a_compressed_windows_paste_read_as_their_log(tmp_path: Path, ruleset: RuleSet) -> None:
    import gzip
    log = "F1008 17:00:17.361272  7286 LightNetwork.cpp:395] connection refused by pserver, maybe pserver failed!\n"
    filler = "".join(f"I1008 17:00:{i:02d}.000000  7286 Trainer.cpp:120] pass {i}\n" for i in range(8))
    nested = ">> On Tue, someone wrote:\n" + "".join("> " + line + "\n" for line in (filler + log).splitlines())
    assert causes_of(tmp_path / "nested", {"train.log": nested}, ruleset)[:1] == [Cause.NETWORK]
    run = tmp_path / "gz"
    run.mkdir()
    (run / "train.log.gz").write_bytes(gzip.compress((filler + log).replace("\n", "\r\n").encode()))
    from detector.replay import replay_path
    assert [i.cause for i in replay_path(run, ruleset).incidents][:1] == [Cause.NETWORK]


def test_the_versions_in_a_block_of_their_own_are_notes_and_a_second_block_of_log_is_log(tmp_path: Path, ruleset: RuleSet) -> None:
    fenced_env = "### Versions\n\n```\n" + ENV.split("\n\n", 1)[1] + "```\n"
    assert causes_of(tmp_path / "env", {"log.txt": _issue(STALL, fenced_env)}, ruleset)[:1] == [Cause.HANG]
    # two blocks of log (two ranks' stacks pasted one after the other): the second is no note
    two = "rank 0:\n```\n" + STALL + "```\nrank 1:\n```\n" + STALL + "```\n"
    assert causes_of(tmp_path / "two", {"log.txt": two}, ruleset)[:1] == [Cause.HANG]
