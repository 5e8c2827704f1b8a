"""The fifty-third session's runs: launchers and frameworks other than torchrun (OneFlow's launcher
and allocator, MindSpore's msrun and memory pool, horovodrun's Gloo launcher, torchx's labelled
log, Megatron's HybridEP kernels) whose own words for a failure read as a Python exception, as
nothing, or not at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import causes_of, incidents_of

_STEPS = "".join(f"[rank:0] iter {k}00, loss: 3.{k}, lr: 1.00e-04\n" for k in range(1, 6))

_ONEFLOW_LAUNCHER = (
    "Killing subprocess 6939\n"
    "Killing subprocess 6976\n"
    "Traceback (most recent call last):\n"
    '  File "/usr/lib/python3.8/runpy.py", line 194, in _run_module_as_main\n'
    "    return _run_code(code, main_globals, None,\n"
    '  File "/usr/local/lib/python3.8/dist-packages/oneflow/distributed/launch.py", line 225, in main\n'
    "    raise subprocess.CalledProcessError(\n"
    "subprocess.CalledProcessError: Command '['/usr/bin/python3', '-u', 'train.py', '--config', 'bert.py']' {how}\n")


@pytest.mark.parametrize("line", [
    "oneflow._oneflow_internal.exception.RuntimeError: Error: out of memory",
    "Error Type: oneflow.ErrorProto.out_of_memory_error",
    "  what():  Error: CUDA out of memory. Tried to allocate 114.0 MB",
    "F20230121 23:05:30.138254 13499 op_call_instruction_policy.cpp:209] out of memory"])
def test_oneflows_out_of_memory_is_a_cuda_oom(tmp_path: Path, ruleset: RuleSet, line: str) -> None:
    """OneFlow's allocator says 'out of memory' in its own words (the exception it raises, the
    error type under its C++ frames, its abort's what(), an older build's FATAL line): read as
    an uncaught exception or as nothing before, though the launcher's log says which node."""
    run = _STEPS + "Traceback (most recent call last):\n  File \"train.py\", line 83, in main\n" + line + "\n"
    run += _ONEFLOW_LAUNCHER.format(how="returned non-zero exit status 1.")
    assert causes_of(tmp_path, {"oneflow_launch.log": run}, ruleset)[:1] == [Cause.CUDA_OOM]


def test_oneflows_launcher_raising_for_a_stopped_worker_is_no_python_exception(tmp_path: Path, ruleset: RuleSet) -> None:
    """OneFlow's launcher raises CalledProcessError when a worker stops (here one killed by SIGTERM):
    its traceback is the launcher's, not the program's; with nothing else the cause is unknown. A
    worker that died of SIGSEGV is a crash."""
    killed = _STEPS + _ONEFLOW_LAUNCHER.format(how="died with <Signals.SIGTERM: 15>.")
    assert causes_of(tmp_path / "term", {"oneflow_launch.log": killed}, ruleset)[:1] == [Cause.UNKNOWN]
    crashed = _STEPS + _ONEFLOW_LAUNCHER.format(how="died with <Signals.SIGSEGV: 11>.")
    assert causes_of(tmp_path / "segv", {"oneflow_launch.log": crashed}, ruleset)[:1] == [Cause.CRASH_SIGNAL]


def test_horovodrun_naming_the_first_failed_process_defers_to_the_stall_report(tmp_path: Path, ruleset: RuleSet) -> None:
    """horovodrun's Gloo launcher raises RuntimeError after a worker exits non-zero (143: the
    SIGTERM of the job's end): that is the launcher's summary, and the stall inspector's report
    that rank 11 never submitted its tensors is what the run says."""
    stall = ("[0]<stderr>:[2024-09-13 00:19:37.705277: W horovod/common/stall_inspector.cc:107] One or more tensors "
             "were submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting for remainder "
             "of ranks for more than 60 seconds. This may indicate that different ranks are trying to submit "
             "different tensors or that only subset of ranks is submitting tensors, which will cause deadlock.\n"
             "[0]<stderr>:Missing ranks:\n"
             "[0]<stderr>:11: [DistributedAdam_Allreduce/cond_89/HorovodAllreduce_grads_84_0, "
             "DistributedAdam_Allreduce/cond_9/HorovodAllreduce_grads_35_0 ...]\n")
    tail = ("Process 8 exit with status code 143.\n"
            "Terminating remaining workers after failure of Process 8.\n"
            "Traceback (most recent call last):\n"
            '  File "/usr/local/bin/horovodrun", line 8, in <module>\n'
            "    sys.exit(run_commandline())\n"
            '  File "/usr/local/lib/python3.8/dist-packages/horovod/runner/gloo_run.py", line 285, in launch_gloo\n'
            "    raise RuntimeError('Horovod detected that one or more processes exited with non-zero '\n"
            "RuntimeError: Horovod detected that one or more processes exited with non-zero status, thus causing the "
            "job to be terminated. The first process to do so was:\n"
            "Process name: 8\n"
            "Exit code: 143\n")
    steps = "".join(f"[{r}]<stdout>:Epoch 1 step {k} loss 0.{k}\n" for r in range(12) for k in range(1, 4))
    got = incidents_of(tmp_path, {"horovod_tf.log": steps + stall * 3 + tail}, ruleset)
    assert [(g.cause, g.rank) for g in got][:1] == [(Cause.HANG, 11)]


def test_msrun_naming_a_worker_that_exited_is_a_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    """MindSpore's msrun says a worker exited with an error code and kills the rest: the run failed
    (it read healthy), though nothing says why; a worker's own memory pool error says why."""
    console = ("[INFO] ME(29660,7f00073f1b94,MainProcess):2023-08-09-03:53:10.742.637 [mindspore/parallel/cluster/"
               "process_entity/_api.py:240] Start worker process with rank id:0, log file:./msrun_log/worker_0.log.\n"
               "[ERROR] ME(29660,7f00073f1b94,MainProcess):2023-08-09-06:42:10.218.974 [mindspore/parallel/cluster/"
               "process_entity/_api.py:312] Worker process 42634 exit with exception. Error code: -15.\n"
               "[WARNING] ME(29660,7f00073f1b94,MainProcess):2023-08-09-06:42:10.418.974 [mindspore/parallel/cluster/"
               "process_entity/_api.py:320] There's worker exits with exception, kill all other workers.\n")
    steps = "".join(f"epoch: 1 step: {k}, loss is 3.{k}\n" for k in range(1, 6))
    assert causes_of(tmp_path / "a", {"msrun_console.log": console, "msrun_log/worker_0.log": steps}, ruleset)[:1] \
        == [Cause.UNKNOWN]
    oom = ("[ERROR] DEVICE(49767,7f000c28b735,python):2024-12-08-01:00:05.712.268 [mindspore/ccsrc/runtime/device/"
           "memory_manager.cc:193] Device(id:7) memory isn't enough and alloc failed, kernel name: Default/network/"
           "MatMul-op6854, alloc size: 2147483648B.\nRuntimeError: Allocate memory failed\n")
    assert causes_of(tmp_path / "b", {"msrun_console.log": console, "msrun_log/worker_7.log": steps + oom}, ruleset)[:1] \
        == [Cause.CUDA_OOM]


@pytest.mark.parametrize("line", [
    "HYBRID-EP ALLGATHER TIMEOUT:SM 13 [0]:expecting 5792 got 5791",
    "DeepEP timeout for dispatch receivers, rank 2, responsible_channel = 10, tokens remained: 34"])
def test_expert_parallel_kernels_that_gave_up_waiting_are_a_hang(tmp_path: Path, ruleset: RuleSet, line: str) -> None:
    """Megatron's HybridEP all-gather kernel and DeepEP's intranode kernels time out waiting for the
    other ranks' tokens: like a collective's timeout (SV-megatron-bridge-2012 read healthy)."""
    assert causes_of(tmp_path, {"console.log": (line + "\n") * 4}, ruleset)[:1] == [Cause.HANG]
