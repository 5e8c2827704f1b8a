"""The fiftieth session's runs: a job its orchestrator says ended well (a Kubernetes training
operator's word that it completed successfully, Slurm's accounting of every step COMPLETED 0:0)
whose pods or ranks printed alarming lines on the way; and an out-of-memory error a program caught
and retried with a smaller batch, read on the exception's own line as much as the allocator's."""

from __future__ import annotations

import pytest

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of

_CAUGHT_OOM = (
    "{p}[2024-05-03 22:05:14] eval: CUDA OOM at eval batch size 128; emptying cache and retrying with 64\n"
    "{p}Traceback (most recent call last):\n"
    '{p}  File "/workspace/eval_utils.py", line 108, in run_eval\n'
    "{p}    logits = model(batch)\n"
    "{p}torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 6; 79.15 GiB total"
    " capacity; 74.37 GiB already allocated; 1.06 GiB free; 78.26 GiB reserved in total by PyTorch)\n")


def _steps(prefix: str, first: int, last: int, minute: int) -> str:
    return "".join(f"{prefix} [2024-05-03 22:{minute + k:02d}:16] iteration {it:8d}/   16600 | elapsed time per iteration"
                   f" (ms): 578.1 | lm loss: 2.{k}\n" for k, it in enumerate(range(first, last + 1, 200)))


def test_an_oom_caught_and_retried_with_a_smaller_batch_is_no_failure(tmp_path, ruleset: RuleSet) -> None:
    # the exception's own line (torch.cuda.OutOfMemoryError: ...) is read as well as the
    # allocator's; training went on for steps after it and completed
    out = (_steps("0:", 15400, 15800, 0) + _CAUGHT_OOM.format(p="0: ") + _steps("0:", 16000, 16600, 6)
           + "0: [after training is done] datetime: 2024-05-03 22:11:04\n"
           + "0:   successfully saved checkpoint from iteration    16600 to /checkpoints/gpt\n")
    assert incidents_of(tmp_path, {"slurm-2209017.out": out}, ruleset) == []


def test_an_oom_caught_then_the_run_stopping_is_still_the_failure(tmp_path, ruleset: RuleSet) -> None:
    # the same words, but nothing ran after it: the retry did not save the run
    out = _steps("0:", 15400, 15800, 0) + _CAUGHT_OOM.format(p="0: ")
    seen = incidents_of(tmp_path, {"slurm-2209017.out": out}, ruleset)
    assert seen and seen[0].cause is Cause.CUDA_OOM


_POD_TRACEBACK = (
    "2024-08-26T04:08:14.345669732Z Traceback (most recent call last):\n"
    '2024-08-26T04:08:14.345669800Z   File "/app/monitor.py", line 41, in poll\n'
    "2024-08-26T04:08:14.345669900Z pynvml.NVMLError_NotSupported: Not Supported\n")


def _pod(name: str, rank: int, tail: str) -> str:
    steps = "".join(f"2024-08-26T0{k}:00:00.000000000Z 2024-08-26 0{k}:00:00,000 INFO [train.py:396] step={k * 400}"
                    f" loss=0.6{k} step_time=1.4{k}s\n" for k in range(1, 6))
    return (f"2024-08-25T23:53:34.250968785Z [2024-08-25 23:53:34,250] torch.distributed.run: [WARNING] Setting"
            f" OMP_NUM_THREADS environment variable for each process to be 1 in default\n"
            f"2024-08-26T00:30:00.000000000Z [rank{rank}]:[W socket.cpp:436] [c10d] recvVector failed on"
            f" SocketImpl(fd=85, addr=[{name}]:54531, remote=[mt5-train-master-0]:12355): Connection reset by peer\n"
            + _POD_TRACEBACK + steps + tail)


_EVENTS = ("LAST SEEN   TYPE      REASON                 OBJECT                  MESSAGE\n"
           "12m         Normal    PyTorchJobSucceeded    pytorchjob/{job}        PyTorchJob {job} is successfully completed.\n")


def test_a_pytorchjob_that_its_operator_says_completed_is_healthy(tmp_path, ruleset: RuleSet) -> None:
    # the pods' logs hold a store's reset and a monitor thread's traceback; the training operator
    # says the job completed successfully: no incident
    files = {"pods/mt5-train-master-0.log": _pod("mt5-train-master-0", 0, ""),
             "pods/mt5-train-worker-0.log": _pod("mt5-train-worker-0", 8, ""),
             "events.txt": _EVENTS.format(job="mt5-train")}
    assert incidents_of(tmp_path, files, ruleset) == []
    # another job's success in the namespace's events says nothing of this one
    files["events.txt"] = _EVENTS.format(job="bert-eval")
    assert incidents_of(tmp_path, files, ruleset) != []


def test_a_gpu_fault_is_kept_after_the_operator_says_the_job_completed(tmp_path, ruleset: RuleSet) -> None:
    # the node's GPU still failed during the job: the node is bad for the next one
    files = {"pods/mt5-train-master-0.log": _pod("mt5-train-master-0", 0, ""),
             "events.txt": _EVENTS.format(job="mt5-train"),
             "dmesg.txt": "[Mon Aug 26 02:00:00 2024] NVRM: Xid (PCI:0000:3b:00): 79, pid=2211, name=python,"
                          " GPU has fallen off the bus.\n"}
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen and seen[0].cause is Cause.GPU_HARDWARE


_SACCT = ("JobID           JobName  Partition    Account  AllocCPUS      State ExitCode \n"
          "------------ ---------- ---------- ---------- ---------- ---------- -------- \n"
          "2209017           train        gpu ml-research        384  {s0}      {e0} \n"
          "2209017.batch      batch            ml-research         96  COMPLETED      0:0 \n"
          "2209017.0      torchrun            ml-research        384  {s1}      {e1} \n")


def test_a_slurm_job_whose_every_step_completed_is_healthy(tmp_path, ruleset: RuleSet) -> None:
    out = (_steps("0:", 15400, 16600, 0) + "0: Traceback (most recent call last):\n"
           '0:   File "/workspace/upload.py", line 12, in push\n'
           "0: ConnectionError: HTTPSConnectionPool(host='hub', port=443): Read timed out.\n"
           + _steps("0:", 16800, 17400, 8))
    files = {"slurm-2209017.out": out,
             "sacct.txt": _SACCT.format(s0="COMPLETED", e0="0:0", s1="COMPLETED", e1="0:0")}
    assert incidents_of(tmp_path, files, ruleset) == []
    # a step that failed: the job's own row alone (the batch script's last command) says nothing
    files["sacct.txt"] = _SACCT.format(s0="COMPLETED", e0="0:0", s1="FAILED   ", e1="1:0")
    assert incidents_of(tmp_path, files, ruleset) != []
    # another job's accounting beside this job's output says nothing of it either
    files["sacct.txt"] = _SACCT.format(s0="COMPLETED", e0="0:0", s1="COMPLETED", e1="0:0").replace("2209017", "2209100")
    assert incidents_of(tmp_path, files, ruleset) != []


def _ds_node(host: str, pids: range, exits: str) -> str:
    return "".join(f"{host}: [2024-02-28 01:19:05,176] [INFO] [launch.py:351:main] Process {pid} {exits}\n" for pid in pids)


def test_a_deepspeed_job_whose_every_process_exited_well_is_healthy(tmp_path, ruleset: RuleSet) -> None:
    # a time budget's planned stop: ranks lose the store as rank 0's process leaves first, then
    # the launcher says each process exited well
    steps = "".join(f"worker-0: steps: {k * 50} loss: 1.2{k} iter time (s): 4.3 samples/sec: 22.1\n" for k in range(1, 8))
    lost = "".join(f"worker-1: [rank{r}]:[W0228 01:18:0{r % 10}.377638337 ProcessGroupNCCL.cpp:1319] [PG 0 Rank {r}] Failed"
                   " to check the \"should dump\" flag on TCPStore, (maybe TCPStore server has shut down too early), with"
                   " error: Broken pipe\n" for r in (8, 9, 10))
    out = (steps + "worker-0: WARNING - __main__ - Reached time budget at step 350: saving checkpoint and exiting\n" + lost
           + _ds_node("worker-0", range(4100, 4108), "exits successfully.") + _ds_node("worker-1", range(5100, 5108), "exits successfully."))
    assert incidents_of(tmp_path, {"train.log": out}, ruleset) == []
    # one process that the launcher saw fail: the job did not end well
    failed = ("worker-1: [2024-02-28 01:19:05,176] [ERROR] [launch.py:324:sigkill_handler] ['/usr/bin/python', '-u',"
              " 'train.py', '--local_rank=3'] exits with return code = 1\n")
    assert incidents_of(tmp_path, {"train.log": out + failed}, ruleset) != []


_SMI = ("$ nvidia-smi\n"
        "Wed Oct 23 14:40:10 2024       \n"
        "|   1  NVIDIA A100-SXM4-80GB       On  | 00000000:0F:00.0 Off |                    0 |\n"
        "| N/A   40C    P0             65W /  400W |       4MiB / 81920MiB |      0%      Default |\n"
        "|   2  NVIDIA A100-SXM4-80GB       On  | 00000000:47:00.0 Off |                 ERR! |\n"
        "| N/A   ERR!  P0            ERR! /  400W |       0MiB / 81920MiB |    ERR!      Default |\n")


def test_a_gpu_that_nvidia_smi_cannot_query_after_the_job_explains_a_ranks_cuda_error(tmp_path, ruleset: RuleSet) -> None:
    # rank 10 could not take its GPU at start-up; nvidia-smi, an hour after the job, reads "ERR!"
    # for GPU 2's ECC counters: the state of the GPU since before, not a fault at the table's time
    out = ("SLURM_JOB_ID=5050085 SLURM_JOB_NODELIST=cn[059-060]\n"
           "1: [rank10]: Traceback (most recent call last):\n"
           '1: [rank10]:   File "/app/train.py", line 276, in _initialize_distributed\n'
           "1: [rank10]:     torch.cuda.set_device(device)\n"
           "1: [rank10]: RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable\n"
           "1: E1023 13:28:22.785535 79026 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1)"
           " local_rank: 2 (pid: 79042) of binary: /usr/bin/python\n")
    seen = incidents_of(tmp_path, {"slurm-5050085.out": out, "nvidia-smi_cn060.txt": _SMI}, ruleset)
    assert seen and seen[0].cause is Cause.GPU_HARDWARE
    assert (seen[0].node, seen[0].drain) == ("cn060", True)
    assert any("00000000:47:00.0 Off |                 ERR!" in line for line in seen[0].evidence)


def test_a_wsl_geforces_err_under_gpu_util_is_no_fault(tmp_path, ruleset: RuleSet) -> None:
    smi = ("|   0  NVIDIA GeForce ...  Off  | 00000000:01:00.0  On |                  N/A |\n"
           "| N/A   43C    P8    11W /  N/A |    466MiB /  6144MiB |    ERR!      Default |\n")
    assert incidents_of(tmp_path, {"nvidia-smi.txt": smi}, ruleset) == []


def test_a_slowest_rank_report_with_its_times_as_fields_names_the_straggler_the_cancel_ended(tmp_path, ruleset: RuleSet) -> None:
    # "slowest rank 9 (gpu-node-196) fwd_bwd=5.54s median=3.40s": the report's times as key=value
    # fields; the user cancelled the slow job
    lines = []
    for k in range(1, 13):
        lines.append(f" 0: [2024-10-15 10:{k * 2:02d}:09,167][trainer][INFO] - step {k * 20} | loss 7.8 | step_time 5.81s\n")
        if k % 3 == 0:
            lines.append(f" 0: [2024-10-15 10:{k * 2:02d}:09,177][perf][WARNING] - step {k * 20} timing: slowest rank 9"
                         " (gpu-node-196) fwd_bwd=5.54s median=3.40s max/median=1.63\n")
    out = ("".join(lines) + "slurmstepd: error: *** JOB 8959616 ON gpu-node-195 CANCELLED AT 2024-10-15T11:42:18 ***\n"
           "srun: error: gpu-node-196: tasks 8-15: Terminated\nsrun: error: gpu-node-195: tasks 0-7: Terminated\n")
    seen = incidents_of(tmp_path, {"slurm-8959616.out": out}, ruleset)
    assert seen and (seen[0].cause, seen[0].rank, seen[0].node) == (Cause.STRAGGLER, 9, "gpu-node-196")


@pytest.mark.parametrize("frames", [3, 600])
def test_an_upload_retried_before_another_ranks_crash_is_no_failure(tmp_path, ruleset: RuleSet, frames: int) -> None:
    # rank 0's checkpoint upload timed out once and was retried (a chained traceback: the word
    # that it retries is before the first one), training went on; rank 5 crashed later and srun
    # ended rank 0's task with the others; with 600 frames a rank, the teardown's stack dumps
    # push all of it out of the file's tail: the crash is the failure, not the upload
    steps = "".join(f"  0: [2024-09-21 10:{m:02d}:02,960] [rank 0] INFO step {m * 10} | loss 7.45 | step_time 5.46s\n"
                    for m in range(10, 16))
    upload = ("  0: [2024-09-21 10:16:49,012] [rank 0] ERROR upload of s3://ckpt/step_287/model_01.safetensors failed"
              " (attempt 1/5), retrying in 30s\n"
              "  0: Traceback (most recent call last):\n"
              '  0:   File "/opt/conda/lib/python3.10/site-packages/urllib3/connection.py", line 466, in getresponse\n'
              "  0:     httplib_response = super().getresponse()\n"
              "  0: TimeoutError: The read operation timed out\n"
              "  0: \n"
              "  0: During handling of the above exception, another exception occurred:\n"
              "  0: \n"
              "  0: Traceback (most recent call last):\n"
              '  0:   File "/workspace/ckpt_upload.py", line 57, in _upload\n'
              "  0:     self.s3.upload_file(local, bucket, key)\n"
              '  0: botocore.exceptions.ReadTimeoutError: Read timeout on endpoint URL: "https://ckpt.s3.amazonaws.com/x"\n')
    more = "".join(f"  0: [2024-09-21 10:{m:02d}:59,142] [rank 0] INFO step {m * 10} | loss 7.49 | step_time 5.46s\n"
                   for m in range(17, 25))
    crash = (" 5: Fatal Python error: Segmentation fault\n"
             " 5: \n"
             ' 5:   File "/workspace/model/fused_ops.py", line 125 in forward\n'
             "srun: error: gpu-node-056: task 5: Segmentation fault (core dumped)\n")
    teardown = "".join(f"{r:2d}: frame #{k}: <unknown function> + 0x126850 (0x7ff666576a1d in /lib/x86_64-linux-gnu/libc.so.6)\n"
                       for r in (1, 2, 3, 4, 6, 7) for k in range(frames))
    ends = ("srun: error: gpu-node-055: tasks 0-3: Aborted (core dumped)\n"
            "srun: error: gpu-node-056: tasks 4,6-7: Aborted (core dumped)\n")
    out = steps + upload + more + crash + teardown + ends
    assert frames < 600 or len(out) > 300_000  # (the upload's lines are before the file's tail)
    seen = incidents_of(tmp_path, {"slurm-980360.out": out}, ruleset)
    assert seen and (seen[0].cause, seen[0].rank) == (Cause.CRASH_SIGNAL, 5), seen[0]


def _dp_timeout(rank: int, group_rank: int, guid: int, numel: int) -> str:
    return (f"[rank{rank}]:[E0820 07:25:30.912544966 ProcessGroupNCCL.cpp:1595] [PG ID 1 PG GUID {guid} Rank {group_rank}]"
            f" Process group watchdog thread terminated with exception: [Rank {group_rank}] Watchdog caught collective"
            f" operation timeout: WorkNCCL(SeqNum=10642, OpType=ALLREDUCE, NumelIn={numel}, NumelOut={numel},"
            " Timeout(ms)=1800000) ran for 1800093 milliseconds before timing out.\n")


def test_two_data_parallel_groups_numbering_their_own_allreduces_are_no_size_mismatch(tmp_path, ruleset: RuleSet) -> None:
    # ranks 0 and 2 are one data-parallel group (GUID 1), ranks 1 and 3 another (GUID 2): each
    # process calls both its "PG ID 1"; their buckets differ between the groups, not within one
    lines = (_dp_timeout(0, 0, 1, 55551383) + _dp_timeout(2, 1, 1, 55551383)
             + _dp_timeout(1, 0, 2, 490527864) + _dp_timeout(3, 1, 2, 490527864))
    seen = incidents_of(tmp_path, {"train.log": lines}, ruleset)
    assert seen and seen[0].cause is not Cause.COLLECTIVE_MISMATCH
    # within one group, two sizes are two collectives
    lines = _dp_timeout(0, 0, 1, 55551383) + _dp_timeout(2, 1, 1, 490527864)
    seen = incidents_of(tmp_path / "one", {"train.log": lines}, ruleset)
    assert seen and seen[0].cause is Cause.COLLECTIVE_MISMATCH


def _exit_warning(rank: int) -> str:
    return (f"[rank{rank}]:[W510 13:52:57.009112658 ProcessGroupNCCL.cpp:1524] Warning: WARNING: destroy_process_group()"
            " was not called before program exit, which can leak resources. For more info, please see"
            " https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())\n")


_STORE_LOST = ("[rank3]:[W510 13:52:58.205932053 TCPStore.cpp:125] [c10d] recvValue failed on SocketImpl(fd=105,"
               " addr=[host]:35952, remote=[host]:37127): Failed to recv, got 0 bytes. Connection was likely closed. Did"
               " the remote server shutdown or crash?\n"
               "[rank3]:[W510 13:52:58.208518267 ProcessGroupNCCL.cpp:1771] [PG ID 0 PG GUID 0(default_pg) Rank 3] Failed"
               " to check the \"should dump\" flag on TCPStore, (maybe TCPStore server has shut down too early), with"
               " error: Failed to recv, got 0 bytes.\n")


def test_a_ranks_store_lost_after_it_said_its_process_is_exiting_is_its_teardown(tmp_path, ruleset: RuleSet) -> None:
    steps = "".join(f"[actor=<root>] step {k}  loss=-634.5520  reward_mean=-0.140  dt=18.1s\n" for k in range(1190, 1200))
    out = steps + "".join(_exit_warning(r) for r in range(4)) + _STORE_LOST
    assert incidents_of(tmp_path, {"run.log": out}, ruleset) == []
    # before its own word that it exits, the same loss is not its teardown
    out = steps + _STORE_LOST + "".join(_exit_warning(r) for r in range(4))
    assert incidents_of(tmp_path / "before", {"run.log": out}, ruleset) != []


def test_an_all_to_alls_splits_of_different_sizes_are_no_mismatch(tmp_path, ruleset: RuleSet) -> None:
    # an expert-parallel group's token dispatch: each rank sends what its router chose
    lines = "".join(_dp_timeout(r, r, 40, numel).replace("OpType=ALLREDUCE", "OpType=ALLTOALL_BASE")
                    for r, numel in ((0, 16777216), (1, 8388608), (2, 8388608), (3, 12582912)))
    seen = incidents_of(tmp_path, {"train.log": lines}, ruleset)
    assert seen and seen[0].cause is not Cause.COLLECTIVE_MISMATCH
    # every rank's split the same but one rank's: that rank called another all-to-all
    lines = "".join(_dp_timeout(r, r, 40, 8388608 if r != 2 else 4194304).replace("OpType=ALLREDUCE", "OpType=ALLTOALL_BASE")
                    for r in range(5))
    seen = incidents_of(tmp_path / "odd", {"train.log": lines}, ruleset)
    assert seen and seen[0].cause is Cause.COLLECTIVE_MISMATCH and seen[0].rank == 2
