"""What the forty-third session's readings must not do (found by its review): tell an OOM kill of
another process, or of the same pid days earlier, for a rank's SIGKILL; take a rotated kernel log's
name for a node; see a straggler in a timing difference too small to matter; lead a scheduler's
preemption with a slow GPU of another node; fail a run that finished over what its teardown
printed; fail a job whose training ran over a preamble step that could not start. And the serving
runs: an inference server's handled request errors and an application Xid beside a server that
served to its orderly shutdown are not failures."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of


def _killed_rank_one(when: str = "07:11:55") -> str:
    steps = [f"[2026-11-14 07:1{s // 6}:{(s * 10) % 60:02d},000] [rank1]: step {s} loss 2.1" for s in range(12)]
    summary = [
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
        "============================================================",
        "train.py FAILED",
        "------------------------------------------------------------",
        "Failures:",
        "  <NO_OTHER_FAILURES>",
        "------------------------------------------------------------",
        "Root Cause (first observed failure):",
        "[0]:",
        f"  time      : 2026-11-14_{when}",
        "  host      : node07",
        "  rank      : 1 (local_rank: 1)",
        "  exitcode  : -9 (pid: 3412355)",
        "  error_file: <N/A>",
        "  traceback : Signal 9 (SIGKILL) received by PID 3412355",
        "============================================================",
    ]
    return "\n".join(steps + summary) + "\n"


def _oom(stamp: str, pid: int, comm: str) -> str:
    return "\n".join([
        f"{stamp} node07 kernel: {comm} invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, "
        "oom_score_adj=0",
        f"{stamp} node07 kernel: oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,"
        f"global_oom,task_memcg=/,task={comm},pid={pid},uid=2001",
        f"{stamp} node07 kernel: Out of memory: Killed process {pid} ({comm}) total-vm:18776470kB, anon-rss:12517647kB, "
        "file-rss:71786kB, shmem-rss:0kB, UID:2001 pgtables:104313kB oom_score_adj:0",
    ]) + "\n"


def test_an_oom_kill_of_another_pid_on_the_node_is_not_the_ranks(tmp_path: Path, ruleset: RuleSet) -> None:
    files = {"torchrun.log": _killed_rank_one(), "dmesg_node07.txt": _oom("Nov 14 07:13:30", 5550001, "java")}
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen[0].cause is Cause.UNKNOWN and seen[0].rank == 1, seen


def test_an_oom_kill_of_the_same_pid_days_before_is_not_the_ranks(tmp_path: Path, ruleset: RuleSet) -> None:
    files = {"torchrun.log": _killed_rank_one(), "dmesg_node07.txt": _oom("Nov 11 02:40:07", 3412355, "python")}
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen[0].cause is Cause.UNKNOWN and seen[0].rank == 1, seen


def test_the_same_pid_killed_by_the_oom_killer_at_the_time_is_the_ranks(tmp_path: Path, ruleset: RuleSet) -> None:
    files = {"torchrun.log": _killed_rank_one(), "dmesg_node07.txt": _oom("Nov 14 07:11:54", 3412355, "python")}
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen[0].cause is Cause.HOST_OOM_KILL and seen[0].rank == 1, seen


def test_a_rotated_kernel_log_in_a_kernel_folder_is_no_node(tmp_path: Path, ruleset: RuleSet) -> None:
    xid = ["[Thu Nov 14 07:11:50 2026] NVRM: Xid (PCI:0000:3b:00): 79, pid=3412355, name=python, GPU has fallen off the bus.",
           "[Thu Nov 14 07:11:50 2026] NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus."]
    log = _killed_rank_one().replace("-9 (pid", "1 (pid").replace("  traceback : Signal 9 (SIGKILL) received by PID 3412355\n", "")
    seen = incidents_of(tmp_path, {"torchrun.log": log, "kernel/kern.log.1": "\n".join(xid) + "\n"}, ruleset)
    assert seen[0].cause is Cause.GPU_HARDWARE and seen[0].node == "node07", seen


def test_ray_datas_nested_actor_prefix_is_read(tmp_path: Path, ruleset: RuleSet) -> None:
    # Ray Data's actor names nest ("MapWorker(MapBatches(vLLMEngineStageUDF))"); behind them vLLM's
    # worker says what failed, in the CUDA runtime's words
    line = ("(MapWorker(MapBatches(vLLMEngineStageUDF)) pid=32897, ip=10.0.19.13) (Worker_TP1 pid=32899) ERROR 01-11 "
            "15:20:25 [multiproc_executor.py:671] RuntimeError: CUDA error: uncorrectable NVLink error was detected "
            "during the execution")
    seen = incidents_of(tmp_path, {"job-driver.log": line + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.NVLINK and seen[0].node == "10.0.19.13", seen


def test_untimed_step_lines_far_apart_with_a_small_difference_are_healthy(tmp_path: Path, ruleset: RuleSet) -> None:
    # every 50 steps; rank 3's data wait 14 ms longer than its peers', 2% of a step: no straggler
    lines = [f"[rank {r}] epoch 0 step {s}/5004 loss 6.8 | step 0.70s fwd {0.300 + 0.008 * (r % 3):.3f}s "
             f"allreduce_wait {0.360 - 0.008 * (r % 3):.3f}s data {0.024 if r == 3 else 0.010 + 0.001 * (r % 2):.3f}s"
             for s in range(50, 2050, 50) for r in range(8)]
    assert not incidents_of(tmp_path, {"console.log": "\n".join(lines) + "\n"}, ruleset)


def test_a_preemption_stays_first_beside_a_slow_gpu_of_another_node(tmp_path: Path, ruleset: RuleSet) -> None:
    out = [f"{r}: 2026-11-20 02:40:02,0{r:02d} - INFO - train - Starting pretrain (srun, 1 task per GPU) on "
           f"{'node02' if r < 8 else 'node05'}: world_size=16 rank={r} local_rank={r % 8}" for r in range(16)]
    out += [f"{r}: 2026-11-20 0{2 + s // 60}:{s % 60:02d}:10,000 - INFO - train - step {s} | loss 2.1 | step_time 1.00s"
            for s in range(40, 72) for r in range(16)]
    out += ["slurmstepd: error: *** JOB 81234 ON node02 CANCELLED AT 2026-11-20T03:12:41 DUE TO PREEMPTION ***"]
    smi = "\n".join(["GPU 00000000:43:00.0", "    Clocks Event Reasons", "        HW Slowdown                       : Active",
                     "            HW Thermal Slowdown           : Active"]) + "\n"
    seen = incidents_of(tmp_path, {"slurm-81234.out": "\n".join(out) + "\n", "nvidia-smi-q-perf_node99.txt": smi}, ruleset)
    assert seen[0].cause is Cause.PREEMPTION, seen


def test_a_ray_error_nobody_collected_after_training_finished_is_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    out = [f"(TaskRunner pid=28043) 2025-03-01 10:{s:02d}:00,000 INFO step:{s} - actor/loss:0.31 - timing/step:60.1"
           for s in range(1, 31)]
    out += [
        "(TaskRunner pid=28043) 2025-03-01 10:31:00,000 INFO Training finished, saving final checkpoint",
        "(TaskRunner pid=28043) 2025-03-01 10:31:30,000 INFO Final checkpoint saved to /ckpt/global_step_30",
        "2025-03-01 10:31:41,120\tERROR worker.py:409 -- Unhandled error (suppress with 'RAY_IGNORE_UNHANDLED_ERRORS=1'): "
        "ray::WorkerDict.actor_rollout_generate_sequences() (pid=29553, ip=33.138.51.184, actor_id=0c3a3649)",
        "2025-03-01 10:31:41,200\tINFO worker.py:1000 -- Shutting down Ray.",
    ]
    assert not incidents_of(tmp_path, {"ray_driver.log": "\n".join(out) + "\n"}, ruleset)


def test_a_preamble_step_that_could_not_start_fails_no_job_that_trained(tmp_path: Path, ruleset: RuleSet) -> None:
    out = ["+ srun --ntasks-per-node=1 nvidia-smi-topo-dump",
           "slurmstepd: error: execve(): nvidia-smi-topo-dump: No such file or directory",
           "srun: error: g1301: task 0: Exited with exit code 2",
           "+ srun --ntasks-per-node=4 python train.py"]
    out += [f"{r}: [2026-07-09 09:0{s // 60}:{s % 60:02d},000] INFO step {s} | loss 2.1" for s in range(0, 400, 10)
            for r in range(4)]
    out += [f"{r}: [2026-07-09 09:07:00,000] INFO Training finished: 400 steps" for r in range(4)]
    seen = incidents_of(tmp_path, {"slurm-501.out": "\n".join(out) + "\n"}, ruleset)
    assert all(s.cause is not Cause.PYTHON_EXCEPTION for s in seen), seen


def test_backtrace_frames_after_the_launchers_success_are_no_crash(tmp_path: Path, ruleset: RuleSet) -> None:
    out = [f"[rank{r}]: step {s} loss 2.1" for s in range(20) for r in range(4)]
    out += ["[rank2]: destroy_process_group(); exiting",
            "[ml-box-3:967430] [ 0] /lib/x86_64-linux-gnu/libc.so.6(+0x42520)[0x7f1c2a642520]",
            "[ml-box-3:967430] [ 1] /usr/lib/libnccl.so.2(+0x5a1b2)[0x7f1c1a05a1b2]",
            "[ml-box-3:967430] [ 2] /usr/lib/libnccl.so.2(+0x61c04)[0x7f1c1a061c04]",
            "I1204 11:20:30.587909 967422 torch/distributed/elastic/agent/server/api.py:879] [default] worker group "
            "successfully finished. Waiting 300 seconds for other agents to finish.",
            "I1204 11:20:30.597909 967422 torch/distributed/elastic/agent/server/api.py:932] Local worker group finished "
            "(WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish"]
    assert not incidents_of(tmp_path, {"launcher.log": "\n".join(out) + "\n"}, ruleset)


def _vllm_server(extra: list[str]) -> str:
    out = ["INFO 03-24 03:36:13 api_server.py:712] vLLM API server version 0.7.3",
           *(f"(VllmWorkerProcess pid={21781 + r}) INFO 03-24 03:36:27 pynccl.py:70] vLLM is using nccl==2.21.5" for r in range(3))]
    for m in range(40):
        out.append(f"INFO 03-24 03:{37 + m // 6:02d}:{(m * 10) % 60:02d} metrics.py:467] Avg prompt throughput: 1125.8 "
                   "tokens/s, Avg generation throughput: 526.4 tokens/s, Running: 52 reqs, Swapped: 0 reqs, Pending: 0 reqs")
        out.append(f'INFO:     10.227.203.166:{39000 + m} - "POST /v1/chat/completions HTTP/1.1" 200 OK')
        if m == 20:
            out += extra
    out += ["INFO:     Shutting down", "INFO:     Waiting for application shutdown.", "INFO:     Application shutdown complete.",
            "INFO:     Finished server process [1]"]
    return "\n".join(out) + "\n"


def test_a_servers_answered_request_error_is_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    error = ["ERROR 03-24 03:58:04 serving_chat.py:170] Error in preprocessing prompt inputs",
             "ERROR 03-24 03:58:04 serving_chat.py:222] ValueError: This model's maximum context length is 32768 tokens. "
             "However, you requested 46263 tokens (45751 in the messages, 512 in the completion).",
             'INFO:     10.14.45.187:42384 - "POST /v1/chat/completions HTTP/1.1" 400 Bad Request']
    assert not incidents_of(tmp_path, {"docker-logs-vllm.txt": _vllm_server(error)}, ruleset)


def test_an_application_xid_beside_a_server_that_served_to_its_shutdown_is_anothers(tmp_path: Path,
                                                                                   ruleset: RuleSet) -> None:
    kernel = "Mar 24 03:40:57 dgx-a100-80 kernel: NVRM: Xid (PCI:0000:87:00): 43, pid=64676, name=python3, Ch 00000010\n"
    files = {"docker-logs-vllm.txt": _vllm_server([]), "journalctl-k-dgx-a100-80.txt": kernel}
    assert not incidents_of(tmp_path, files, ruleset)


def test_a_cancelled_request_in_a_server_is_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    error = ["ERROR 03-24 03:58:04 [serving_chat.py:1107] Traceback (most recent call last):",
             'ERROR 03-24 03:58:04 [serving_chat.py:1107]   File "/usr/lib/python3.12/asyncio/locks.py", line 212, in wait',
             "ERROR 03-24 03:58:04 [serving_chat.py:1107]     await fut",
             "ERROR 03-24 03:58:04 [serving_chat.py:1107] asyncio.exceptions.CancelledError",
             "INFO 03-24 03:58:04 [async_llm.py:388] Request chatcmpl-0357fa02 aborted."]
    assert not incidents_of(tmp_path, {"docker-logs-vllm.txt": _vllm_server(error)}, ruleset)


def test_links_of_many_nodes_lost_at_once_drain_none_of_them(tmp_path: Path, ruleset: RuleSet) -> None:
    out = [f"{r}: [2024-05-19 11:4{s // 6}:{(s * 10) % 60:02d},000] step {s} loss 2.1" for s in range(30) for r in range(0, 16, 4)]
    out += [f"{r}: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:219, "
            "remote process exited or there was a network error, NCCL version 2.14.3" for r in range(0, 16, 4)]
    files = {"slurm-44318647.out": "\n".join(out) + "\n"}
    for i, node in enumerate(("nid001604", "nid001605", "nid001606", "nid001607")):
        files[f"dmesg/{node}.txt"] = "".join([
            "kern  :info  : [Sun May 19 08:00:01 2024] ice 0000:41:00.0: The DDP package was successfully loaded\n",
            "kern  :info  : [Sun May 19 08:00:02 2024] ice 0000:41:00.0 ens1f0: NIC Link is up 100 Gbps Full Duplex\n",
            f"kern  :info  : [Sun May 19 11:47:2{i} 2024] ice 0000:41:00.0 ens1f0: NIC Link is Down\n"])
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen and seen[0].cause is Cause.NETWORK and not seen[0].drain and seen[0].node is None, seen


def test_a_handled_traceback_then_a_progress_bar_on_few_lines_is_caught(tmp_path: Path, ruleset: RuleSet) -> None:
    # tqdm's updates joined by carriage returns: 150 steps on 30 lines after a skipped sample's
    # traceback (the paste ends while it still trains)
    bar = "".join(f" {s // 3}%|##   | {s}/450 [{s // 60:02d}:{s % 60:02d}<10:00, 1.00s/it]\r" for s in range(1, 6))
    head = [bar.replace("/450", "/450") for _ in range(3)]
    error = ["WARNING: skipping sample 132452 from /data/sft/part-00000.jsonl after error:",
             "Traceback (most recent call last):",
             '  File "/env/lib/python3.11/json/__init__.py", line 346, in loads',
             "    return _default_decoder.decode(s)",
             "json.decoder.JSONDecodeError: Expecting ',' delimiter: line 1 column 454 (char 453)"]
    after = ["".join(f" {s // 5}%|###  | {s}/450 [{s // 60:02d}:{s % 60:02d}<05:00, 1.00s/it]\r"
                     for s in range(20 + 5 * k, 25 + 5 * k)) for k in range(30)]
    text = "\n".join(head + error + after)
    assert not incidents_of(tmp_path, {"slurm-3855891.out": text + "\n"}, ruleset)


def _ray_data_job(failure: list[str], *, kill_at: str = "19:10:44", stamps: tuple[str, ...] = ()) -> str:
    worker = "(MapWorker(MapBatches(vLLMEngineStageUDF)) pid=34088, ip=10.10.28.21)"
    out = ["2025-04-19 18:34:29,000\tINFO worker.py:1000 -- Connecting to existing Ray cluster at address: 10.10.0.2:6379",
           f"(raylet, ip=10.10.28.21) [2025-04-19 {kill_at}.740 E 673 413] (raylet) node_manager.cc:3069: 1 Workers "
           "(tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node "
           "(ID: 7bb5d6c6836a) which has IP 10.10.28.21."]
    other = "(MapWorker(MapBatches(vLLMEngineStageUDF)) pid=31499, ip=10.10.27.131)"
    for stamp in stamps:
        for who in (worker, other):
            out.append(f"{who} INFO 04-19 {stamp} [loggers.py:123] Engine 000: Avg prompt throughput: 3673.7 tokens/s, "
                       "Avg generation throughput: 1920.2 tokens/s, Running: 96 reqs, Waiting: 0 reqs")
    return "\n".join(out + failure) + "\n"


_RAY_JOB_FAILED = [
    "Traceback (most recent call last):",
    '  File "/home/ray/batch_infer.py", line 148, in <module>',
    "    ds.write_parquet(args.output_path)",
    "RuntimeError: CUDA error: an illegal memory access was encountered",
]


def test_a_worker_ray_killed_for_memory_that_the_job_outlived_is_not_its_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    # Ray's memory monitor killed a worker; the engines reported progress for 45 minutes (their
    # vLLM headers carry the time); then the job failed for another reason
    stamps = tuple(f"{19 + m // 60}:{m % 60:02d}:13" for m in range(12, 58, 5))
    seen = incidents_of(tmp_path, {"job-driver.log": _ray_data_job(_RAY_JOB_FAILED, stamps=stamps)}, ruleset)
    assert seen and seen[0].cause is Cause.ILLEGAL_MEMORY_ACCESS, seen


def test_a_worker_ray_killed_for_memory_just_before_the_failure_is_the_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    stamps = ("19:10:50", "19:11:02")
    seen = incidents_of(tmp_path, {"job-driver.log": _ray_data_job(_RAY_JOB_FAILED, stamps=stamps)}, ruleset)
    assert seen and seen[0].cause is Cause.HOST_OOM_KILL, seen


def test_a_ray_job_that_says_it_succeeded_is_healthy(tmp_path: Path, ruleset: RuleSet) -> None:
    done = ["2025-04-19 20:17:26,414\tINFO streaming_executor.py:300 -- Dataset dataset_27_0 execution finished in 3397.40 "
            "seconds", "------------------------------------------", "Job 'raysubmit_qdE6NZPMicJECoew' succeeded",
            "------------------------------------------"]
    assert not incidents_of(tmp_path, {"job-driver.log": _ray_data_job(done, stamps=("19:12:13", "19:22:13"))}, ruleset)
