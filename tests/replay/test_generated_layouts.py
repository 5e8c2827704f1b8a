"""Layouts of the third independent generator (bench/blind3) that the replay misread: a
Kubernetes pod's log, named after the pod ("...-worker-4.log"), holds every rank of that node."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of

_POD = "bert-pretrain-rbcv-worker-4"


def _pod_log() -> str:
    init = "".join(
        f"{_POD}:84368{r}:84449{r} [{r - 40}] NCCL INFO comm 0x5868ed2f2eb{r - 40} rank {r} nranks 64 cudaDev {r - 40} "
        f"nvmlDev {r - 40} busId {(r - 40) * 16 + 0x1a:x}000 commId 0xf7995f3cee3d8118 - Init COMPLETE\n" for r in range(40, 44))
    return (init
            + "Traceback (most recent call last):\n"
            + '  File "/workspace/pretrain_gpt.py", line 318, in train_step\n'
            + "    scaler.scale(loss).backward()\n"
            + "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 15.62 GiB. GPU 1 has a total capacity of "
              "79.11 GiB of which 1597.36 MiB is free. Including non-PyTorch memory, this process has 77.55 GiB memory in use.\n"
            + "E0928 04:42:58.374000 140000050281937 torch/distributed/elastic/multiprocessing/api.py:826] failed "
              "(exitcode: 1) local_rank: 1 (pid: 843682) of binary: /usr/bin/python\n"
            + "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
            + "============================================================\n"
            + "pretrain_gpt.py FAILED\n"
            + "------------------------------------------------------------\n"
            + "Root Cause (first observed failure):\n"
            + "[0]:\n"
            + "  time      : 2024-09-28_04:42:54\n"
            + f"  host      : {_POD}.bert-pretrain-rbcv.default.svc.cluster.local\n"
            + "  rank      : 41 (local_rank: 1)\n"
            + "  exitcode  : 1 (pid: 843682)\n"
            + "  error_file: <N/A>\n"
            + "============================================================\n")


def test_a_pods_log_named_after_its_pod_is_the_nodes_and_its_oom_is_the_global_rank_torchrun_names(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {f"pods/{_POD}.log": _pod_log(),
                                  "pods/bert-pretrain-rbcv-master-0.log": "I0928 04:38:43 starting\n"}, ruleset)
    assert [(g.cause, g.rank) for g in got][:1] == [(Cause.CUDA_OOM, 41)]
    assert got[0].node is not None and got[0].node.startswith(_POD)


_STEPS = "".join(f"[2024-08-18 06:{30 + i // 6:02d}:{(i % 6) * 10:02d},000] INFO step {1200 + i} loss 1.93 step_time 9.8s\n"
                 for i in range(30))
_AGENT_SIGTERM = (
    "[2024-08-18 06:40:47,713] torch.distributed.elastic.agent.server.api: [WARNING] Received Signals.SIGTERM death "
    "signal, shutting down workers\n"
    + "".join(f"[2024-08-18 06:40:47,714] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process "
              f"15195{p} closing signal SIGTERM\n" for p in range(38, 46))
    + "torch.distributed.elastic.multiprocessing.api.SignalException: Process 3096337 got signal: 15\n")


def test_torchruns_agent_told_to_stop_while_training_went_on_is_a_preemption(tmp_path: Path, ruleset: RuleSet) -> None:
    # blind3 seed 1 run 18: the cluster evicted the job; nothing failed before the SIGTERM
    got = incidents_of(tmp_path, {"train.log": _STEPS + _AGENT_SIGTERM}, ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.PREEMPTION, False)]


def test_a_sigterm_after_a_collective_timed_out_is_no_preemption(tmp_path: Path, ruleset: RuleSet) -> None:
    timeout = ("[rank3]:[E818 06:40:00.000000 1220 ProcessGroupNCCL.cpp:607] [Rank 3] Watchdog caught collective "
               "operation timeout: WorkNCCL(SeqNum=41, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran "
               "for 600046 milliseconds before timing out.\n")
    got = incidents_of(tmp_path, {"train.log": _STEPS + timeout + _AGENT_SIGTERM}, ruleset)
    assert got and got[0].cause is not Cause.PREEMPTION


def test_the_workers_own_sigterm_handlers_and_mpirun_reporting_signal_15_are_a_preemption(tmp_path: Path, ruleset: RuleSet) -> None:
    # blind3 seed 1 run 27: Open MPI --tag-output; every rank's handler says it got SIGTERM
    lines = "".join(f"[1,{r}]<stderr>:2024-03-14 04:32:54.228 | WARNING  | __main__:train_step:214 - received SIGTERM (15), "
                    "exiting\n" for r in range(4))
    got = incidents_of(tmp_path, {"mpirun.log": _STEPS + lines + (
        "mpirun noticed that process rank 2 with PID 1925797 on node dgx-h100-c44 exited on signal 15 (Terminated).\n")},
        ruleset)
    assert [g.cause for g in got] == [Cause.PREEMPTION]


def test_lsfs_run_limit_is_a_preemption(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"lsf.out": (
        "Sender: LSF System <lsfadmin@batch3>\n"
        "Subject: Job 4471223: <train> in cluster <summit> Exited\n"
        "TERM_RUNLIMIT: job killed after reaching LSF run time limit.\n"
        "Exited with exit code 140.\n")}, ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.PREEMPTION, False)]


def test_an_unplaced_exception_is_the_rank_cray_pals_says_exited_with_an_error(tmp_path: Path, ruleset: RuleSet) -> None:
    # blind3 seed 3 run 20: PBS with Cray PALS mpiexec; the traceback has no prefix, PALS names the rank
    got = incidents_of(tmp_path, {"llama3-8b-sft.o3472656": (
        "Traceback (most recent call last):\n"
        '  File "/workspace/train.py", line 388, in <module>\n'
        "    lr = base_lr / warmup\n"
        "ZeroDivisionError: float division by zero\n"
        "x3141c0s13b1n0.hsn.cm.polaris.alcf.anl.gov: rank 110 exited with code 1\n"
        "x3141c0s9b1n0.hsn.cm.polaris.alcf.anl.gov: rank 78 died from signal 15\n"
        "x3141c0s14b0n0.hsn.cm.polaris.alcf.anl.gov: rank 112 died from signal 15\n")}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.PYTHON_EXCEPTION, 110)]
    assert (got[0].node or "").startswith("x3141c0s13b1n0")


def test_ray_trains_wrapper_and_the_actor_deaths_after_the_watchdog_leave_the_hang_to_the_timeouts(tmp_path: Path, ruleset: RuleSet) -> None:
    # blind3 seed 2 run 49, blind2 seed 1 run 9: rank 9 stopped; the others' watchdogs fired, Ray
    # then reported the actors dead and raised TrainingFailedError
    w = "(RayTrainWorker pid=26412{r:02d}, ip=10.0.0.{ip}) "
    timeouts = "".join(
        w.format(r=r, ip=99 if r >= 8 else 12)
        + f"[rank{r}]:[E720 14:25:10.2407{r:02d}803 ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught collective "
          "operation timeout: WorkNCCL(SeqNum=4411, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for "
          "600046 milliseconds before timing out.\n" for r in range(12) if r != 9)
    steps = "".join(w.format(r=r, ip=99 if r >= 8 else 12) + f"[rank{r}]: 2024-07-20 14:14:10,000 step 4410 loss 1.2\n"
                    for r in range(12))
    tail = ("2024-07-20 14:25:12,100\tERROR tune_controller.py:1331 -- Trial task failed\n"
            "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.\n"
            "ray.train.base_trainer.TrainingFailedError: The Ray Train run failed. Please inspect the previous error "
            "messages for a cause. After fixing the issue, you can restart the run from scratch.\n")
    got = incidents_of(tmp_path, {"job-driver.log": steps + timeouts + tail}, ruleset)
    assert [(g.cause, g.rank) for g in got][:1] == [(Cause.HANG, 9)]


def test_sagemakers_mpi_tags_name_each_lines_rank_and_host(tmp_path: Path, ruleset: RuleSet) -> None:
    # blind3 seed 2 run 43: CloudWatch streams under the job's name; the tags say rank and host
    lines = "".join(f"[1,mpirank:{r},algo-{r // 8 + 1}]<stdout>:step 4410 loss 1.2\n" for r in range(16))
    fault = ("[1,mpirank:6,algo-1]<stderr>:RuntimeError: CUDA error: an illegal memory access was encountered\n"
             "[1,mpirank:6,algo-1]<stderr>:CUDA kernel errors might be asynchronously reported at some other API call\n")
    got = incidents_of(tmp_path, {"cloudwatch/mixtral-ft-2025-02-02-00-51-09-755/algo-1-1738457469.log": lines + fault},
                       ruleset)
    assert [(g.cause, g.rank, g.node) for g in got] == [(Cause.ILLEGAL_MEMORY_ACCESS, 6, "algo-1")]


def test_azure_mls_per_process_logs_are_the_ranks_they_are_named_after(tmp_path: Path, ruleset: RuleSet) -> None:
    # blind3 seed 3 run 22: user_logs/std_log_process_N.txt
    files = {f"user_logs/std_log_process_{r}.txt": "2024-08-19 08:30:35,000 INFO step 100 loss 1.9\n" for r in range(8)}
    files["user_logs/std_log_process_5.txt"] += "Fatal Python error: Segmentation fault\n\nCurrent thread 0x00007f3b9c5f0740 (most recent call first):\n"
    got = incidents_of(tmp_path, files, ruleset)
    assert [(g.cause, g.rank) for g in got][:1] == [(Cause.CRASH_SIGNAL, 5)]
