"""The forty-sixth session's runs: long job histories (a wrapper's retry loop in one output, its
word on how an attempt ended, counts of ten or more; Slurm's requeued outputs on a wrapper's local
clock beside a program's UTC; a pod's log from before its restart beside its current one), a rank
srun moved to another node after an attempt, an exception the program said it caught and trained
on before it failed otherwise, a rank that waited long for its next batch, and the fatal lines of
TensorFlow's and Neuron's runtimes."""

from __future__ import annotations

import datetime

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of

# --- a wrapper's retry loop in one output ----------------------------------------------------------


def _steps(rank: int, first: int, count: int, hour: int, day: int = 22) -> list[str]:
    return [f"{rank:3d}: 2024-01-{day} {hour:02d}:{n:02d}:10,000 | INFO | trainer | step {first + 10 * n} | loss 3.2 | 9.0 s/step"
            for n in range(count)]


def _first_attempt(hosts: tuple[str, str]) -> list[str]:
    # rank 3 on the first host loses its InfiniBand port; the others see their peers go
    return [
        "+ srun -l -N 2 --ntasks-per-node=4 python -u train.py --resume",
        *_steps(0, 2000, 25, 8),
        f"  3: {hosts[0]}:1318623:1318640 [3] transport/net_ib.cc:101 NCCL WARN NET/IB : mlx5_3:1 Got async event : port error",
        f"  5: {hosts[1]}:2127729:2127738 [1] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer 10.75.21.60<58046> with status=12 opcode=128 len=0 vendor err 129 (Send)",
        f"srun: error: {hosts[0]}: tasks 0-3: Aborted (core dumped)",
        f"srun: error: {hosts[1]}: tasks 4-7: Aborted (core dumped)",
        "srun exit code 134",
    ]


def _last_attempt(host: str, rank: int) -> list[str]:
    # after the first host was excluded, rank 4 (now on the replacement host) hits an ECC error
    return [
        "+ srun -l -N 2 --ntasks-per-node=4 --exclude=gpu-a01 python -u train.py --resume",
        *_steps(0, 2000, 30, 10),
        f"{rank:3d}: Traceback (most recent call last):",
        f'{rank:3d}:   File "/workspace/train.py", line 412, in train_step',
        f"{rank:3d}:     loss = model(batch)",
        f"{rank:3d}: RuntimeError: CUDA error: uncorrectable ECC error encountered",
        f"srun: error: {host}: task {rank}: Exited with exit code 1",
        "srun: Terminating StepId=4337896.1",
        "srun: error: gpu-a02: tasks 0-3: Aborted (core dumped)",
        *[f"{host}: FAIL GPU 0000:07:00.0: Volatile DBE 1" if n == 0 else f"gpu-a0{n + 2}: OK (8 GPUs, ib up)" for n in range(22)],
    ]


def test_a_wrappers_word_on_how_an_attempt_ended_starts_no_attempt(tmp_path, ruleset: RuleSet) -> None:
    # "attempt 2/3 failed; giving up" repeats the last attempt's number: it is the wrapper's word
    # on how that attempt ended, so the attempts are still told apart and the last one's ECC error
    # leads, on the host srun ran its rank on in that attempt (the first attempt ran rank 4 on
    # another host, since excluded)
    lines = ["==== attempt 1/3  Mon Jan 22 08:50:08 CST 2024 ====", *_first_attempt(("gpu-a01", "gpu-a02")),
             "==== attempt 2/3  Mon Jan 22 09:58:23 CST 2024 ====", *_last_attempt("gpu-a09", 4),
             "attempt 2/3 failed; giving up: same failure signature twice"]
    seen = incidents_of(tmp_path, {"slurm-4337896.out": "\n".join(lines) + "\n"}, ruleset)
    assert seen[0].cause is Cause.ECC_MEMORY, seen
    assert (seen[0].rank, seen[0].node) == (4, "gpu-a09"), seen


def test_attempts_counted_out_of_ten_or_more_are_attempts(tmp_path, ruleset: RuleSet) -> None:
    # "attempt 1/10:" is attempt 1 of 10 (the count's second digit is no word after it)
    lines = ["[run.sh 2023-11-22T23:57:09-08:00] attempt 1/10: 2 hosts (gpu-a01 gpu-a02)",
             *_first_attempt(("gpu-a01", "gpu-a02")),
             "[run.sh 2023-11-23T03:30:02-08:00] sleeping 60s before retry",
             "[run.sh 2023-11-23T03:31:03-08:00] attempt 2/10: 2 hosts (gpu-a09 gpu-a02)",
             *_last_attempt("gpu-a09", 4),
             "[run.sh 2023-11-23T10:54:27-08:00] sleeping 300s before attempt 3/10"]
    seen = incidents_of(tmp_path, {"run.log": "\n".join(lines) + "\n"}, ruleset)
    assert seen[0].cause is Cause.ECC_MEMORY, seen


# --- Slurm's requeued outputs, a wrapper's local time beside the program's UTC --------------------


def _requeued(n: int, day: int, ending: list[str]) -> str:
    weekday = datetime.date(2024, 10, day).strftime("%a")
    head = ["+ date", f"{weekday} Oct {day} 03:46:57 PST 2024",
            f"SLURM_JOB_ID=9113338 SLURM_RESTART_COUNT={n} SLURM_NNODES=2 SLURM_JOB_NODELIST=gpu-a[166-167]",
            f"found checkpoint: gs://ckpt/llama-13b/latest -> step {41000 + 7000 * n}",
            "+ srun -l --kill-on-bad-exit=1 --ntasks-per-node=8 python -u pretrain_gpt.py --resume",
            # (the ranks' start-up, unstamped: the file's first time is the wrapper's date)
            *[f"{r:2d}: | distributed init (rank {r}): env://, host gpu-a16{6 + r // 8}, local_rank {r % 8}" for r in range(16)] * 8]
    # (the program stamps its lines in UTC, and ran into the next day: its last line, in UTC, is
    # later than the next attempt's first, the wrapper's date in its local time)
    steps = [f" 0: [2024-10-{day + 1} {11 + k // 60:02d}:{k % 60:02d}:27] iteration {41000 + 7000 * n + k}/100000 | loss 2.1"
             for k in range(40)]
    return "\n".join(head + steps + ending) + "\n"


def test_requeued_outputs_on_two_clocks_are_the_jobs_attempts(tmp_path, ruleset: RuleSet) -> None:
    # the first output ends in the program's UTC hours after the next one's first line in the
    # wrapper's local time; but the next began a day later and says it resumes: the job's next
    # attempt, whose failure (an exception on rank 0) is the job's, not the first's preemption
    files = {
        "slurm-9113338_0.out": _requeued(0, 13, [
            "slurmstepd: error: *** JOB 9113338 ON gpu-a166 CANCELLED AT 2024-10-14T11:40:34 DUE TO PREEMPTION ***"]),
        "slurm-9113338_1.out": _requeued(1, 14, [
            " 0: Traceback (most recent call last):",
            ' 0:   File "pretrain_gpt.py", line 466, in save',
            " 0:     torch.save(state, path)",
            " 0: OSError: [Errno 28] No space left on device",
            "srun: error: gpu-a166: task 0: Exited with exit code 1"]),
    }
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen[0].cause is Cause.PYTHON_EXCEPTION and seen[0].rank == 0, seen


# --- a pod's log from before its restart ----------------------------------------------------------


# the first container's end (rank 1 out of GPU memory), and a trainer's metric lines
_PREVIOUS_OOM = "\n".join([
    "[rank1]: Traceback (most recent call last):",
    '[rank1]:   File "/opt/train.py", line 88, in step',
    "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of "
    "79.11 GiB of which 1.2 GiB is free.",
]) + "\n"
_TRAINER_STEPS = [f"{{'loss': 2.03, 'grad_norm': 0.28, 'learning_rate': 2.8e-04, 'epoch': 0.{k:02d}}}" for k in range(30)]


def test_a_pods_previous_log_is_the_earlier_attempt(tmp_path, ruleset: RuleSet) -> None:
    # "kubectl logs --previous" saved beside the current log: the previous one's CUDA OOM was the
    # first attempt's; the current one's exception ended the job
    files = {
        "pods/train-worker-0.previous.log": _PREVIOUS_OOM,
        "pods/train-worker-0.log": "\n".join([
            *_TRAINER_STEPS,
            "[rank3]: Traceback (most recent call last):",
            '[rank3]:   File "/opt/train.py", line 120, in load_batch',
            "[rank3]: KeyError: 'input_ids'",
        ]) + "\n",
    }
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen[0].cause is Cause.PYTHON_EXCEPTION and seen[0].rank == 3, seen


def test_a_pod_description_without_times_goes_with_the_last_attempt(tmp_path, ruleset: RuleSet) -> None:
    # the description (collected after the job, no times in its lines) says the pod's container
    # was killed for memory: the last attempt's end, not the first's, whose rank ran out of GPU memory
    files = {
        "pods/train-worker-0.previous.log": _PREVIOUS_OOM,
        "pods/train-worker-0.log": "\n".join([
            *_TRAINER_STEPS,
            # (the peers of the process the kernel killed lose it)
            "[rank2]:[E ProcessGroupNCCL.cpp:916] [Rank 2] NCCL watchdog thread terminated with exception: NCCL error: remote "
            "process exited or there was a network error, NCCL version 2.18.1",
            "[rank3]:[E ProcessGroupNCCL.cpp:916] [Rank 3] NCCL watchdog thread terminated with exception: NCCL error: remote "
            "process exited or there was a network error, NCCL version 2.18.1",
        ]) + "\n",
        "describe-train-worker-0.txt": "\n".join([
            "Name:             train-worker-0",
            "    State:          Terminated",
            "      Reason:       OOMKilled",
            "      Exit Code:    137",
            "    Last State:     Terminated",
            "      Reason:       Error",
            "      Exit Code:    1",
        ]) + "\n",
    }
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen[0].cause is Cause.HOST_OOM_KILL, seen


# --- an exception the program said it caught ------------------------------------------------------


def test_an_exception_the_program_said_it_caught_is_not_its_failure(tmp_path, ruleset: RuleSet) -> None:
    # "continuing training:" before the traceback, and the rank's steps stamped after it: caught,
    # although the same rank failed hours later (a peer's loss): that failure is the run's
    steps = [f"[default0]:2023-12-28 {17 + k // 60:02d}:{k % 60:02d}:23,326 | INFO | trainer | step {4560 + 10 * k} | loss 3.85"
             for k in range(120)]
    lines = [
        "[default0]:2023-12-28 17:19:53,507 | INFO | trainer | step 4550 | loss 3.86",
        "[default0]:WARNING: eval/upload hook failed at step 4540, continuing training:",
        "[default0]:Traceback (most recent call last):",
        '[default0]:  File "/opt/llm/hooks/upload.py", line 41, in __call__',
        "[default0]:    self.client.upload_file(path, self.bucket, key)",
        '[default0]:botocore.exceptions.EndpointConnectionError: Could not connect to the endpoint URL: "https://s3.us-west-2.amazonaws.com/ml/eval.json"',
        *steps,
        "[default0]:node-1:50209:50212 [0] misc/socket.cc:538 NCCL WARN Net : Connection closed by remote peer node-7<54287>",
        "[default0]:[E ProcessGroupNCCL.cpp:916] [Rank 0] NCCL watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version 2.18.1",
        "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -6) local_rank: 0 (pid: 50209) of binary: /usr/bin/python",
    ]
    files = {
        "logs/node-1.log": "\n".join(lines) + "\n",
        "dmesg-node-7.txt": "[Thu Dec 28 21:56:08 2023] python[986653]: segfault at 0 ip 00007f3b2c1d4e5a sp 00007ffd3a2b1c40 error 4 in libc.so.6[7f3b2c000000+195000]\n",
    }
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen[0].cause is not Cause.PYTHON_EXCEPTION, seen


# --- a rank that waited long for its next batch ---------------------------------------------------


def test_a_rank_that_waited_for_its_batch_is_a_data_loading_stall(tmp_path, ruleset: RuleSet) -> None:
    # the trainer's own word, right before the others' collective timeouts, that rank 20 has
    # waited minutes for its next batch: the rank the others waited for was starved of its input
    timeouts = []
    for rank in (16, 17, 18):
        timeouts += [
            f"[rank{rank}]:[E1108 04:18:27.887105079 ProcessGroupNCCL.cpp:607] [Rank {rank}] Watchdog caught collective operation "
            "timeout: WorkNCCL(SeqNum=302495, OpType=_ALLGATHER_BASE, NumelIn=1048576, NumelOut=1048576, Timeout(ms)=3600000) ran for 3600023 milliseconds before timing out.",
            f"[rank{rank}]:[E1108 04:18:27.887105079 ProcessGroupNCCL.cpp:1709] [PG 0 (default_pg) Rank {rank}] Timeout at NCCL work: 302495, "
            "last enqueued NCCL work: 302496, last completed NCCL work: 302494."]
    lines = [f"2024-11-08 03:{20 + k * 2}:54,808 | WARNING | data | rank 20 waited {150 * (k + 1)}s for next batch (prefetch queue empty, 8 workers)"
             for k in range(3)] + timeouts
    seen = incidents_of(tmp_path, {"worker-1.log": "\n".join(lines) + "\n"}, ruleset)
    assert seen[0].cause is Cause.DATA_LOADER_STALL and seen[0].rank == 20, seen


# --- the fatal lines of TensorFlow's and Neuron's runtimes ----------------------------------------


def test_a_fatal_line_of_xla_then_its_abort_is_a_crash(tmp_path, ruleset: RuleSet) -> None:
    lines = [
        "(MeshHostWorker pid=929, ip=10.32.13.122) 2022-12-02 00:55:01.023445: F external/org_tensorflow/tensorflow/compiler/xla/service/gpu/nvptx_compiler.cc:454] ptxas returned an error during compilation of ptx to sass: 'INTERNAL: ptxas exited with non-zero error code 32512'",
        "(MeshHostWorker pid=929, ip=10.32.13.122) *** SIGABRT received at time=1669913701 on cpu 17 ***",
        "(MeshHostWorker pid=929, ip=10.32.13.122) PC: @     0x7f0a5461e387  (unknown)  raise",
    ]
    seen = incidents_of(tmp_path, {"console.log": "\n".join(lines) + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.CRASH_SIGNAL, seen


def test_neurons_collectives_without_efa_are_a_network_failure(tmp_path, ruleset: RuleSet) -> None:
    lines = [
        "2023-May-21 14:27:33.0030 102203:102204 [0] nccl_net_ofi_init:1415 CCOM WARN NET/OFI aws-ofi-nccl initialization failed",
        "2023-May-21 14:27:33.0045 102203:102204 [0] init.cc:655 CCOM WARN Unable to run multi-instance workload.  Ofi plugin is not installed or EFA is not enabled",
        "2023-May-21 14:27:33.0045 102203:102204 ERROR   NRT:nrt_load_collectives                    failed to create global communicator, global_device_id=1, global_device_count=2, ROOT_COMM_ID=172.31.63.174:62128)",
    ]
    seen = incidents_of(tmp_path, {"instance1.log": "\n".join(lines) + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.NETWORK, seen


# --- a host's log of torchrun launches appended one after another ---------------------------------


def _launch(host: str, started: str, ended: str, rank: int, failure: list[str], exitcode: int, steps: int = 30) -> list[str]:
    day, clock = started.split(" ")
    lines = ["+ torchrun --nnodes=2 --nproc-per-node=8 --max-restarts=0 --rdzv-endpoint=trn-01:29400 --tee 3 finetune.py --resume",
             f"[{started},509] torch.distributed.run: [WARNING] ",
             f"[{started},509] torch.distributed.run: [WARNING] *****************************************",
             f"[{started},509] torch.distributed.run: [WARNING] Setting OMP_NUM_THREADS environment variable for each process "
             "to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal "
             "performance in your application as needed. ",
             f"[{started},509] torch.distributed.run: [WARNING] *****************************************"]
    hour = int(clock[:2])
    lines += [f"[default0]:{day} {hour + 1 + k // 60:02d}:{k % 60:02d}:10,000 | INFO | trainer | step {100 * k} | loss 2.5"
              for k in range(steps)]
    lines += failure
    lines += [f"[{ended},718] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: {exitcode}) "
              f"local_rank: {rank % 8} (pid: 2664651) of binary: /opt/conda/bin/python",
              "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
              "============================================================",
              "finetune.py FAILED",
              "------------------------------------------------------------",
              "Root Cause (first observed failure):",
              "[0]:",
              f"  time      : {ended.replace(' ', '_')}",
              f"  host      : {host}",
              f"  rank      : {rank} (local_rank: {rank % 8})",
              f"  exitcode  : {exitcode} (pid: 2664651)",
              "  error_file: <N/A>",
              "============================================================"]
    return lines


_SHAPE_ERROR = ["[default6]:[rank14]: Traceback (most recent call last):",
                '[default6]:[rank14]:   File "/workspace/model/loss.py", line 57, in forward',
                "[default6]:[rank14]:     return F.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1))",
                "[default6]:[rank14]: ValueError: Expected input batch_size (65536) to match target batch_size (65535)."]


def test_a_kernels_kill_of_an_earlier_launch_is_not_the_last_launchs_failure(tmp_path, ruleset: RuleSet) -> None:
    # the host's log holds two launches; the kernel's OOM kill a day before the second began
    # ended the first: the second's exception is the job's failure
    log = (_launch("trn-15", "2024-05-27 02:01:09", "2024-05-28 00:48:41", 14, [], -9)
           + _launch("trn-15", "2024-05-29 02:28:02", "2024-05-29 08:29:42", 14, _SHAPE_ERROR, 1))
    files = {"logs/trn-15.log": "\n".join(log) + "\n",
             "dmesg-trn-15.txt": "[Tue May 28 00:48:40 2024] Out of memory: Killed process 2365297 (python) "
                                 "total-vm:346444283kB, anon-rss:317718528kB, file-rss:637929kB, shmem-rss:0kB, UID:0 "
                                 "pgtables:622412kB oom_score_adj:0\n"}
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen[0].cause is Cause.PYTHON_EXCEPTION and seen[0].rank == 14, seen


def test_a_gpu_fault_of_a_host_the_last_launch_used_still_counts(tmp_path, ruleset: RuleSet) -> None:
    # the host's GPU had an uncorrectable ECC error in an earlier launch of its log, and it ran the
    # last launch too: its GPU is still suspect
    ecc = ["[default1]:[rank1]: RuntimeError: CUDA error: uncorrectable ECC error encountered"]
    log = (_launch("gpu-7", "2024-07-25 03:48:25", "2024-07-25 12:14:00", 1, ecc, 1)
           + _launch("gpu-7", "2024-07-25 20:11:10", "2024-07-26 01:00:00", 14, _SHAPE_ERROR, 1))
    files = {"logs/gpu-7.log": "\n".join(log) + "\n",
             "dmesg-gpu-7.txt": "[Thu Jul 25 12:13:57 2024] NVRM: Xid (PCI:0000:2a:00): 48, pid=502232, name=python3, "
                                "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at "
                                "partition 5, subpartition 0.\n"}
    seen = incidents_of(tmp_path, files, ruleset)
    assert any(i.cause is Cause.ECC_MEMORY for i in seen), seen


# --- a GPU's NVLink fault in the node's kernel log, on the node's local clock ---------------------


def test_a_launch_failure_with_the_nodes_nvlink_fault_a_zone_away_is_nvlink(tmp_path, ruleset: RuleSet) -> None:
    # rank 1's "unspecified launch failure", stamped by the program in UTC; the node's kernel log,
    # in its local time nine hours ahead, has the GPU's NVLink fault at that moment
    steps = [f"  0: 2024-05-20 08:{k:02d}:40,990 | INFO | trainer | step {100 * k} | loss 3.1" for k in range(26, 56)]
    out = [*steps,
           "  1: Traceback (most recent call last):",
           '  1:   File "/mnt/code/gpt/train.py", line 584, in train',
           "  1:     loss.backward()",
           "  1: RuntimeError: CUDA error: unspecified launch failure",
           "srun: error: gn0075: task 1: Exited with exit code 1",
           "srun: error: gn0075: task 0: Aborted (core dumped)"]
    files = {"slurm-1584921.out": "\n".join(out) + "\n",
             "dmesg-gn0075.txt": "[Mon May 20 17:55:45 2024] NVRM: Xid (PCI:0000:0f:00): 74, pid=1582747, name=python, "
                                 "NVLink: fatal error detected on link 0(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)\n"}
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen[0].cause is Cause.NVLINK and seen[0].rank == 1, seen


# --- an InfiniBand port that flapped and came back ------------------------------------------------


def _flap(rank: int, host: str) -> list[str]:
    return [f"{rank:3d}: {host}:1237036:1237047 [1] transport/net_ib.cc:101 NCCL WARN NET/IB : mlx5_1:1 Got async event : port error",
            f"{rank:3d}: {host}:1237036:1237047 [1] transport/net_ib.cc:101 NCCL WARN NET/IB : mlx5_1:1 Got async event : port active"]


def test_a_port_that_flapped_in_a_last_attempt_that_ended_well_is_no_failure(tmp_path, ruleset: RuleSet) -> None:
    # the first attempt ran out of GPU memory; the second flapped a port, trained on and finished
    first = [*_steps(0, 0, 25, 8),
             "  5: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 5 has a total capacity of 79.11 GiB of which 1.2 GiB is free.",
             "srun: error: hgx-b099: task 5: Exited with exit code 1",
             "srun exit code 1"]
    last = [*_steps(0, 5000, 12, 10), *_flap(9, "hgx-b101"), *_steps(0, 6300, 30, 12),
            "  0: 2025-03-18 12:23:12,735 | INFO | trainer | training finished: 8000 steps, final loss 3.5930",
            "srun exit code 0 after 7h37m (Tue Mar 18 12:24:05 CET 2025)",
            "training finished, exiting loop"]
    lines = ["==== attempt 1/3  Mon Mar 17 10:35:51 CET 2025 ====", *first, "sleeping 120s before next attempt",
             "==== attempt 2/3  Tue Mar 18 04:46:36 CET 2025 ====", *last]
    seen = incidents_of(tmp_path, {"slurm-2385424.out": "\n".join(lines) + "\n"}, ruleset)
    assert not seen, seen


def test_a_port_that_flapped_hours_before_the_failure_is_not_its_cause(tmp_path, ruleset: RuleSet) -> None:
    # the port came back at once and training went on for hours before the ranks timed out
    lines = [*_steps(0, 0, 10, 8), *_flap(9, "hgx-b101"), *_steps(0, 1000, 50, 10),
             *[f"{r:3d}: [rank{r}]:[E ProcessGroupNCCL.cpp:607] [Rank {r}] Watchdog caught collective operation timeout: "
               "WorkNCCL(SeqNum=302495, OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, Timeout(ms)=600000) ran for "
               "600023 milliseconds before timing out." for r in (0, 1, 2, 3)]]
    seen = incidents_of(tmp_path, {"slurm-2385424.out": "\n".join(lines) + "\n"}, ruleset)
    assert seen and seen[0].cause is not Cause.NETWORK, seen


# --- the job's end printed by a rank that prints no steps -----------------------------------------


def test_rank_zeros_word_that_training_finished_ends_the_last_ranks_steps(tmp_path, ruleset: RuleSet) -> None:
    # the last rank prints the iterations (Megatron's way), rank 0 that training finished; an
    # nvidia-smi taken an hour after: no stall
    steps = [f"15: [default7]: [2025-07-10 {4 + k // 60:02d}:{k % 60:02d}:26] iteration {6000 + 20 * k:8d}/  253800 | "
             f"consumed samples: {3000000 + 10240 * k:12d} | elapsed time per iteration (ms): 2408.8 | lm loss: 1.1E+00 |"
             for k in range(60)]
    out = [*steps, "0: [default0]:2025-07-10 05:00:38,348 - INFO - train.py:640 - training finished: 7180 steps, final loss 1.1164"]
    smi = ("$ nvidia-smi\nThu Jul 10 06:02:06 2025\n"
           "+-----------------------------------------------------------------------------------------+\n"
           "| NVIDIA-SMI 550.127.05         Driver Version: 550.127.05      CUDA Version: 12.4        |\n")
    seen = incidents_of(tmp_path, {"slurm-8376438.out": "\n".join(out) + "\n", "nvidia-smi_node165.txt": smi}, ruleset)
    assert not seen, seen


def test_a_kernel_fault_naming_the_ranks_own_process_is_its_launch_failures_cause(tmp_path, ruleset: RuleSet) -> None:
    # the traceback takes its time from a line hours before it; the node's kernel log, on its own
    # clock, names the rank's process (pid 347401, the pid of its NCCL lines) in an NVLink fault
    err = "\n".join([
        "x3060c0s1b0n0:347401:347401 [3] NCCL INFO ncclCommInitRank comm 0x5566 rank 3 nranks 8 cudaDev 3 busId c7000 - Init COMPLETE",
        "2023-03-26 06:16:54,296 | WARNING | logger | tensorboard write failed (ignored): disk quota exceeded",
        "x3060c0s1b0n0:347401:347478 [3] transport/p2p.cc:301 NCCL WARN Cuda failure 'unspecified launch failure'",
        "Traceback (most recent call last):",
        '  File "train.py", line 753, in <module>',
        "RuntimeError: CUDA error: unspecified launch failure",
    ]) + "\n"
    console = ("2023-03-26T14:37:55.733966+00:00 x3060c0s1b0n0 kernel: [931539.434863] NVRM: Xid (PCI:0000:c7:00): 74, "
               "pid=347401, name=python, NVLink: fatal error detected on link 6(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)\n")
    seen = incidents_of(tmp_path, {"train.e2328285": err, "console-x3060c0s1b0n0.log": console}, ruleset)
    assert seen[0].cause is Cause.NVLINK, seen


def test_no_batch_from_the_data_loader_for_minutes_makes_a_hang_a_data_loading_stall(tmp_path, ruleset: RuleSet) -> None:
    timeouts = [f"[rank{r}]:[E0419 13:40:34.911460153 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught collective "
                "operation timeout: WorkNCCL(SeqNum=118004, OpType=ALLREDUCE, NumelIn=4194304, NumelOut=4194304, "
                "Timeout(ms)=1800000) ran for 1800019 milliseconds before timing out." for r in (4, 5, 6)]
    lines = ["2023-04-19 13:15:35,798 | WARNING | data | [rank 27] no batch from DataLoader for 300 s (step 59001); workers alive: 0/8",
             "2023-04-19 13:20:35,798 | WARNING | data | [rank 27] no batch from DataLoader for 600 s (step 59001); workers alive: 0/4",
             *timeouts]
    seen = incidents_of(tmp_path, {"llama_run1.e2132051": "\n".join(lines) + "\n"}, ruleset)
    assert seen[0].cause is Cause.DATA_LOADER_STALL and seen[0].rank == 27, seen
