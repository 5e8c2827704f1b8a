"""The forty-ninth session's runs: an incident note's list of Xid 79 lines; a job's attempts
(launches by hand in hosts' console logs, Slurm's requeues in files of their own or appended to one,
a JobSet's earlier pods kept in a folder of their own) and which of them ended the job; a kernel
log in local time beside the ranks' UTC; exceptions a program said it caught or retries; and two
report formats (the slowest rank before the median, a vendor's IB transport)."""

from __future__ import annotations

from detector.rules.engine import RuleSet
from detector.support.hosts import expand_hostlist
from detector.types import Cause
from tests.support.replaying import incidents_of


def test_an_incident_notes_quoted_xid_79_list_is_a_gpu_fallen_off_the_bus(tmp_path, ruleset: RuleSet) -> None:
    # the note's condensed history of one GPU's faults and its DCGM diagnostic's summary; no
    # kernel log, no trainer's log
    seen = incidents_of(tmp_path, {
        "xid_history.txt": ("Mar 10 21:38:13  Xid 79 (PCI:0000:46:00): GPU has fallen off the bus\n"
                            "Mar 10 23:25:13  Xid 79 (PCI:0000:46:00): pid=14944, name=VLLM::Worker, GPU has"
                            " fallen off the bus\n"),
        "dcgm_diag_r3.txt": "diagnostic          Fail    Xid 79 detected (GPU fallen off bus)\n",
        "lspci_link.txt": "LnkSta: Speed 16GT/s (ok), Width x16 (ok)\n"}, ruleset)
    assert seen and seen[0].cause is Cause.GPU_HARDWARE
    assert any("Xid 79 (PCI:0000:46:00)" in line for line in seen[0].evidence)


def test_a_runbook_naming_xid_79_is_no_fault(tmp_path, ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path, {"notes.txt": "Xid 79 (PCI:0000:46:00): see the runbook before draining\n"}, ruleset)
    assert seen == []


def _launch(master: str, day: int, hour: int, ranks: tuple[int, int], body: str, host: str) -> str:
    """One launch by hand of a two-node torchrun job, as ``tee -a`` keeps it in ``host``'s console log."""
    steps = "".join(f"[rank{ranks[0]}]:2025-03-{day:02d} {hour + k // 6:02d}:{(k % 6) * 10:02d}:00,000 INFO step"
                    f" {k * 100} | loss 2.{k} | step_ms 812.0\n" for k in range(1, 12))
    return (f"+ torchrun --nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint={master}:29400 train.py --resume\n"
            f"[2025-03-{day:02d} {hour:02d}:00:00,000] torch.distributed.run: [WARNING] Setting OMP_NUM_THREADS environment"
            " variable for each process to be 1 in default\n"
            f"[rank{ranks[0]}]:{host}:4242:4300 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.7<0>\n" + steps + body)


_ECC = ("[rank3]:2025-03-01 12:30:00,000 ERROR RuntimeError: CUDA error: uncorrectable ECC error encountered\n"
        "[2025-03-01 12:30:05,000] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1)"
        " local_rank: 1 (pid: 4242) of binary: /usr/bin/python\n")


_DONE = "[rank0]:2025-03-02 16:00:00,000 INFO Training completed: 4000 steps\n"


def test_an_earlier_launchs_gpu_fault_on_a_node_replaced_since_is_not_the_job_that_finished(tmp_path, ruleset: RuleSet) -> None:
    # gpu-a07's GPU lost its memory in the first launch; the job was launched again by hand on
    # gpu-a08 and gpu-a09 (gpu-a07 replaced) and finished: nothing to drain now
    seen = incidents_of(tmp_path, {
        "logs/gpu-a07.log": _launch("gpu-a07", 1, 10, (2, 3), _ECC, "gpu-a07"),
        "logs/gpu-a08.log": (_launch("gpu-a07", 1, 10, (0, 1), "", "gpu-a08")
                             + _launch("gpu-a08", 2, 9, (0, 1), _DONE, "gpu-a08")),
        "logs/gpu-a09.log": _launch("gpu-a08", 2, 9, (2, 3), "", "gpu-a09")}, ruleset)
    assert seen == []


def test_the_last_launchs_own_gpu_fault_is_the_verdict(tmp_path, ruleset: RuleSet) -> None:
    # the same job whose second launch is the one that fails, on gpu-a09
    ecc = _ECC.replace("2025-03-01 12:30", "2025-03-02 11:30")
    seen = incidents_of(tmp_path, {
        "logs/gpu-a07.log": _launch("gpu-a07", 1, 10, (2, 3), "[rank3]:2025-03-01 12:30:00,000 ERROR KeyError: 'labels'\n",
                                    "gpu-a07"),
        "logs/gpu-a08.log": _launch("gpu-a07", 1, 10, (0, 1), "", "gpu-a08") + _launch("gpu-a08", 2, 9, (0, 1), "", "gpu-a08"),
        "logs/gpu-a09.log": _launch("gpu-a08", 2, 9, (2, 3), ecc, "gpu-a09")}, ruleset)
    assert seen and seen[0].cause is Cause.ECC_MEMORY and seen[0].rank == 3


def _requeued(restart: int, node: str, day: int, body: str, rc: int) -> str:
    """One attempt of a requeued Slurm job, its batch script's echo of the nodes it was given."""
    its = "".join(f"0:  [2025-05-{day:02d} {10 + k:02d}:00:00] iteration {restart * 1000 + k * 100:8d}/   54000 |"
                  " elapsed time per iteration (ms): 9138.5 |\n" for k in range(6))
    return (f"+ date\nThu May {day} 09:55:01 UTC 2025\n"
            f"SLURM_JOB_ID=5746418 SLURM_RESTART_COUNT={restart} SLURM_NNODES=1 SLURM_JOB_NODELIST={node}\n"
            "found checkpoint: /lustre/ckpt/latest -> step 41000\n"
            "+ srun -l --kill-on-bad-exit=1 python -u pretrain_gpt.py --resume\n" + its + body
            + f"+ rc={rc}\nsrun finished with exit code {rc}\n")


def test_a_requeued_jobs_earlier_ecc_fault_is_not_drained_once_its_last_attempt_ran_elsewhere(
        tmp_path, ruleset: RuleSet) -> None:
    # attempt 0 on hgx-b193 lost a GPU's memory; Slurm requeued the job on hgx-b198, where it
    # finished: the echoed node list says where the last attempt ran
    ecc = ("1: [rank1]:[E0528 16:58:51.521569600 ProcessGroupNCCL.cpp:1601] [PG ID 0 PG GUID 0(default_pg) Rank 1]"
           " Process group watchdog thread terminated with exception: CUDA error: uncorrectable ECC error encountered\n"
           "srun: error: hgx-b193: task 1: Aborted (core dumped)\n")
    done = "1: [after training is done] datetime: 2025-05-30 16:09:36 \n"
    seen = incidents_of(tmp_path, {"slurm-5746418_0.out": _requeued(0, "hgx-b193", 28, ecc, 1),
                                   "slurm-5746418_1.out": _requeued(1, "hgx-b198", 30, done, 0)}, ruleset)
    assert seen == []


def test_slurm_node_lists_expand() -> None:
    assert expand_hostlist("gpu[001-003,017],login-2") == ["gpu001", "gpu002", "gpu003", "gpu017", "login-2"]
    assert expand_hostlist("a[1-3]-ib") == ["a1-ib", "a2-ib", "a3-ib"]
    assert expand_hostlist("n[1-100000]")[-1] == "n4096"  # (at most MAX_HOSTLIST)
    assert expand_hostlist("gpu[1-") == []  # (a list cut inside its bracket)


def test_a_kernel_log_in_local_time_puts_its_fault_in_the_launch_it_happened_in(tmp_path, ruleset: RuleSet) -> None:
    # the first launch lost gpu-a07's GPU memory at 12:30 UTC; the node's dmesg -T says 20:30, its
    # clock eight hours ahead, inside the second launch's hours; the second launch, on gpu-a08 and
    # gpu-a09, failed on its own (a KeyError on rank 2): the kernel's fault is the first launch's
    key_error = ("[rank2]:2025-03-01 22:10:00,000 ERROR training failed\n[rank2]: Traceback (most recent call last):\n"
                 '[rank2]:   File "/workspace/train.py", line 88, in <module>\n'
                 "[rank2]:     batch = collate(samples)\n[rank2]: KeyError: 'labels'\n")
    dmesg = ("[Sat Mar  1 20:30:02 2025] NVRM: Xid (PCI:0000:19:00): 48, pid='<unknown>', name=<unknown>, An uncorrectable"
             " double bit error (DBE) has been detected on GPU in the framebuffer at partition 3, subpartition 0.\n")
    seen = incidents_of(tmp_path, {
        "logs/gpu-a07.log": _launch("gpu-a07", 1, 10, (2, 3), _ECC, "gpu-a07"),
        "logs/gpu-a08.log": (_launch("gpu-a07", 1, 10, (0, 1), "", "gpu-a08")
                             + _launch("gpu-a08", 1, 18, (0, 1), "", "gpu-a08")),
        "logs/gpu-a09.log": _launch("gpu-a08", 1, 18, (2, 3), key_error, "gpu-a09"),
        "dmesg-gpu-a07.txt": dmesg}, ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION and seen[0].rank == 2


def _slurm_attempt(restart: int, start: str, body: str) -> str:
    return (f"{start} | SLURM_JOB_ID=1411942 SLURM_RESTART_COUNT={restart} SLURM_JOB_NODELIST=node-[004,006]\n"
            "MASTER_ADDR=node-004 MASTER_PORT=29400 NNODES=2\n" + body)


def _steps(day_time: str, first: int, n: int = 12) -> str:
    return "".join(f"0: [2024-09-08 {day_time}:{k:02d},000][train][INFO] step {first + k * 10}/2000 | loss 4.86 |"
                   " 1170.9 ms/step\n" for k in range(n))


def test_a_requeued_jobs_attempts_appended_to_one_file_end_with_its_last(tmp_path, ruleset: RuleSet) -> None:
    # Slurm preempted the job twice and requeued it, its output appended to one file; the third
    # attempt finished: the preemptions were routine
    preempted = ("slurmstepd: error: *** JOB 1411942 ON node-004 CANCELLED AT {t} DUE TO PREEMPTION ***\n"
                 "1: WARNING:torch.distributed.elastic.agent.server.api:Received Signals.SIGTERM death signal,"
                 " shutting down workers\n")
    out = (_slurm_attempt(0, "Sun Sep  8 15:26:37 2024", _steps("15:30", 0)
                          + preempted.format(t="2024-09-08T15:36:45"))
           + _slurm_attempt(1, "Sun Sep  8 15:42:19 2024", _steps("15:45", 100)
                            + preempted.format(t="2024-09-08T15:50:54"))
           + _slurm_attempt(2, "Sun Sep  8 16:04:35 2024", _steps("16:10", 200, 30)
                            + "0: [2024-09-08 16:30:54,287][train][INFO] reached max_steps=2000, saving final checkpoint\n"
                            "[requeue-wrapper] srun finished rc=0; training complete\n"))
    seen = incidents_of(tmp_path, {"slurm-1411942.out": out}, ruleset)
    assert seen == []


def test_the_current_pods_that_finished_after_their_earlier_attempts_folders_end_the_job(tmp_path, ruleset: RuleSet) -> None:
    # a JobSet restarted twice after planned preemptions; the operator kept the earlier attempts'
    # pod logs under previous-attempts/, and the current pods finished
    def pod(t0: str, end: str) -> str:
        return ("".join(f"2025-04-17T{t0}:{k:02d}.000Z [titan] 2025-04-17 {t0}:{k:02d},503 - root - INFO - step: {k * 10}"
                        "  loss:  2.13  memory: 67.51GiB(85.33%)  tps: 5,428\n" for k in range(10)) + end)
    sigterm = ("2025-04-17T{t}.620Z [2025-04-17 {t},620] torch.distributed.elastic.agent.server.api: [WARNING] Received"
               " Signals.SIGTERM death signal, shutting down workers\n")
    done = ("2025-04-17T10:36:46.615Z [2025-04-17 10:36:46,615] torch.distributed.elastic.agent.server.api: [INFO]"
            " [default] worker group successfully finished. Waiting 300 seconds for other agents to finish\n")
    seen = incidents_of(tmp_path, {
        "logs/previous-attempts/restart-0/trainer-0-0-qzstz.log": pod("09:50", sigterm.format(t="09:51:31")),
        "logs/previous-attempts/restart-1/trainer-0-0-bczx8.log": pod("10:10", sigterm.format(t="10:17:31")),
        "logs/trainer-0-0-7pg8b.log": pod("10:30", done)}, ruleset)
    assert seen == []


def test_an_exception_a_local_rank_said_it_caught_and_trained_on_is_not_the_failure(tmp_path, ruleset: RuleSet) -> None:
    # a one-node torchrun console (--tee 3: "[defaultN]:" prefixes, local ranks only): rank 0's
    # upload hook failed and it said it goes on, then trained for hours; later ranks 0, 1 and 3
    # timed out in an all-reduce that rank 2 never joined
    caught = ("[default0]:WARNING: eval/upload hook failed at step 9830, continuing training:\n"
              "[default0]:Traceback (most recent call last):\n"
              '[default0]:  File "/workspace/hooks/upload.py", line 41, in __call__\n'
              "[default0]:    self.client.upload_file(path, self.bucket, key)\n"
              "[default0]:botocore.exceptions.EndpointConnectionError: Could not connect to the endpoint URL:"
              ' "https://s3.us-west-2.amazonaws.com/ml-artifacts/eval_9830.json"\n')
    steps = "".join(f"[default0]:{{'loss': 3.{k:03d}, 'grad_norm': 0.32, 'learning_rate': 2.997e-04, 'epoch': 0.06}}\n"
                    f"[default0]:  1%|▏         | {9830 + k * 10}/500000 [15:28:08<1258:20:38,  9.24s/it]\n"
                    for k in range(120))
    timeouts = "".join(f"[default{r}]:[rank{r}]:[E726 10:41:02.123456 ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught"
                       " collective operation timeout: WorkNCCL(SeqNum=98123, OpType=ALLREDUCE, NumelIn=1, NumelOut=1,"
                       " Timeout(ms)=600000) ran for 600071 milliseconds before timing out.\n" for r in (0, 1, 3))
    seen = incidents_of(tmp_path, {"logs/train.log": caught + steps + timeouts}, ruleset)
    assert seen and seen[0].cause is not Cause.PYTHON_EXCEPTION


def test_an_upload_error_its_program_said_it_retries_after_the_traceback_is_no_failure(tmp_path, ruleset: RuleSet) -> None:
    # a metrics client's chained exception, then its word in Chinese ("upload failed, will retry
    # later automatically (training is not affected)"), steps going on; minutes later rank 2's
    # InfiniBand port fails, and the launcher's SIGTERM ends rank 1 with the others
    steps = "".join(f"[2025-01-14 08:{56 + k // 2:02d}:{(k % 2) * 30:02d},000] [rank 1] 第 {50 + k * 10} 步, loss: 3.7,"
                    " 耗时: 5.8s\n" for k in range(6))
    rank1 = ("[2025-01-14 08:55:43,309] [rank 1] 第 40 步, loss: 3.71852, 耗时: 5.850s\n"
             "Traceback (most recent call last):\n"
             '  File "/usr/local/lib/python3.10/dist-packages/urllib3/connection.py", line 507, in getresponse\n'
             "    httplib_response = super().getresponse()\n"
             "TimeoutError: The read operation timed out\n\n"
             "During handling of the above exception, another exception occurred:\n\n"
             "Traceback (most recent call last):\n"
             '  File "/usr/local/lib/python3.10/dist-packages/swanlab/data/sdk.py", line 212, in _upload\n'
             "    resp = self._session.post(url, json=payload, timeout=10)\n"
             "requests.exceptions.ReadTimeout: HTTPSConnectionPool(host='api.swanlab.cn', port=443): Read timed out.\n"
             "[2025-01-14 08:55:44,550] [rank 1] swanlab: 指标上传失败，稍后自动重试（不影响训练）\n" + steps
             + "[SignalInfo: *** SIGTERM (@0x89423) received by PID 237 (TID 0x7fc14eb0a3a3) from PID 215 ***]\n")
    rank2 = ("[2025-01-14 08:59:43,700] [rank 2] 第 80 步, loss: 3.5, 耗时: 5.8s\n"
             "paddle-sft-worker-0:240:440 [2] transport/net_ib.cc:140 NCCL WARN NET/IB : mlx5_2:1 Got async event : port error\n")
    seen = incidents_of(tmp_path, {"log/workerlog.1": rank1, "log/workerlog.2": rank2}, ruleset)
    assert seen and seen[0].cause is Cause.NETWORK
    assert all(s.cause is not Cause.PYTHON_EXCEPTION for s in seen)


def test_an_evaluations_cuda_oom_caught_and_retried_with_a_smaller_batch_is_no_failure(tmp_path, ruleset: RuleSet) -> None:
    steps = "".join(f"2025-12-28 {16 + k // 6:02d}:{(k % 6) * 10:02d}:00,000 INFO [train_ddp.py:195] step={2450 + k * 50}"
                    " loss=1.14 step_time=3.49s\n" for k in range(12))
    log = ("2025-12-28 15:33:41,345 INFO [train_ddp.py:195] step=2400 loss=1.2141 step_time=3.44s\n"
           "2025-12-28 15:36:17,475 WARNING [eval.py:162] eval: CUDA OOM at eval batch size 64; emptying cache and"
           " retrying with 32\n"
           "Traceback (most recent call last):\n"
           '  File "/workspace/eval_utils.py", line 82, in run_eval\n'
           "    logits = model(batch)\n"
           "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 79.15 GiB total"
           " capacity; 73.44 GiB already allocated; 1.06 GiB free)\n"
           "2025-12-28 15:36:57,475 INFO [eval.py:279] eval done with batch size 32: val_loss=1.6948\n" + steps
           + "2025-12-28 18:14:10,545 INFO [train_ddp.py:251] reached max_steps=5200; saving final checkpoint\n"
           "2025-12-28 18:14:18,545 INFO [train_ddp.py:326] saved checkpoint to /ckpt/run-9709/step_5200.pt\n"
           "2025-12-28 18:14:19,545 INFO [train_ddp.py:238] done.\n")
    seen = incidents_of(tmp_path, {"slurm-3089709.out": log}, ruleset)
    assert seen == []


def test_an_optional_import_that_failed_and_fell_back_is_no_failure(tmp_path, ruleset: RuleSet) -> None:
    steps = "".join(f"[default0]: [2024-03-16 {5 + k:02d}:06:02] iteration {k * 1000 + 1000:8d}/   18900 | elapsed time per"
                    " iteration (ms): 1965.1 |\n" for k in range(12))
    log = ("[default1]:WARNING: flash_attn import failed, falling back to torch SDPA attention\n"
           "[default1]:Traceback (most recent call last):\n"
           '[default1]:  File "/workspace/model.py", line 11, in <module>\n'
           "[default1]:    from flash_attn import flash_attn_func\n"
           "[default1]:ImportError: /usr/local/lib/python3.11/dist-packages/flash_attn_2_cuda.so: undefined symbol:"
           " _ZN3c104cuda9SetDeviceEi\n"
           "[default0]: [2024-03-16 04:50:02] iteration      100/   18900 | elapsed time per iteration (ms): 1965.1 |\n"
           + steps + "[default0]:[after training is done] datetime: 2024-03-16 17:47:25 \n"
           "[default0]:saving checkpoint at iteration    18900 to /checkpoints/gpt in torch_dist format\n"
           "[default0]:  successfully saved checkpoint from iteration    18900 to /checkpoints/gpt\n")
    seen = incidents_of(tmp_path, {"torchrun.log": log}, ruleset)
    assert seen == []


def test_step_time_reports_that_name_the_slowest_rank_before_the_median_find_the_straggler(tmp_path, ruleset: RuleSet) -> None:
    reports = "".join(f"[2024-07-15 {19 + k // 6:02d}:{(k % 6) * 10:02d}:25,144][perf][WARNING] step-time skew: slowest rank 2"
                      f" (node-106) fwd+bwd {5700 + k * 90:.1f} ms vs median 3417.5 ms (x1.9)\n" for k in range(10))
    log = reports + "[titan] 2024-07-15 22:31:48,511 - root - ERROR - Detected stragglers. Terminating training...\n"
    seen = incidents_of(tmp_path, {"node-106.log": log}, ruleset)
    assert seen and seen[0].cause is Cause.STRAGGLER and seen[0].rank == 2


def test_a_vendor_forks_ib_completion_error_is_a_network_fault(tmp_path, ruleset: RuleSet) -> None:
    # a fork of NCCL's IB transport prints its own tag and no space before the message
    seen = incidents_of(tmp_path, {"nccl.log": "NET/IBP:Got completion from peer 7.6.13.83<36315> with status=12"
                                               " opcode=32698 len=32696 vendor err 129 (Send)\n"}, ruleset)
    assert seen and seen[0].cause is Cause.NETWORK
