"""The forty-first session's run layouts: TensorFlow's out-of-memory and collective timeout lines,
Ray Tune's wrapper and Ray's report of the worker that raised, AMD GPUs' memory and xGMI faults,
a failure the run got over before it said it completed, a 64-rank job's "GPU 2" that is no rank,
a log store's "stamp host [rankN]:" lines, and another node's fault in a fleet's kernel log."""

from __future__ import annotations

from pathlib import Path

from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of


def _tf_worker(task: int, tail: list[str]) -> str:
    head = [
        'TF_CONFIG={"cluster": {"worker": ["w-0.svc:2222", "w-1.svc:2222"]}, "task": {"type": "worker", '
        f'"index": {task}}}}}',
        "2025-01-31 21:13:43.320250: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1886] Created device "
        f"/job:worker/replica:0/task:{task}/device:GPU:0 with 39444 MB memory:  -> device: 0, name: NVIDIA A100",
        *(f"Epoch 1/3 - step {s}/500 - loss: 2.{s}" for s in range(1, 6)),
    ]
    return "\n".join(head + tail) + "\n"


def test_tensorflow_out_of_memory_under_graph_execution_error(tmp_path: Path, ruleset: RuleSet) -> None:
    # Keras raises "Graph execution error:"; the allocation that failed is a line of its own
    oom = [
        "Traceback (most recent call last):",
        '  File "/opt/ml/code/main.py", line 307, in <module>',
        "    model.fit(train_ds, epochs=3)",
        "tensorflow.python.framework.errors_impl.ResourceExhaustedError: Graph execution error:",
        "",
        "Detected at node 'model/encoder/layer_11/attention/MatMul' defined at (most recent call last):",
        "OOM when allocating tensor with shape[32,2048,4096] and type half on "
        "/job:worker/replica:0/task:1/device:GPU:0 by allocator GPU_0_bfc",
        "\t [[{{node model/encoder/layer_11/attention/MatMul}}]]",
    ]
    lost = ["tensorflow.python.framework.errors_impl.UnavailableError: Collective ops is aborted by: "
            "Task /job:worker/replica:0/task:1 heartbeat timeout."]
    seen = incidents_of(tmp_path, {"worker-0.log": _tf_worker(0, lost), "worker-1.log": _tf_worker(1, oom)}, ruleset)
    assert (seen[0].cause, seen[0].rank) == (Cause.CUDA_OOM, 1), seen[0]


def test_tensorflow_collective_timeouts_on_every_worker_are_no_exception(tmp_path: Path, ruleset: RuleSet) -> None:
    timeout = ["Traceback (most recent call last):", '  File "/opt/ml/code/main.py", line 312, in <module>',
               "tensorflow.python.framework.errors_impl.DeadlineExceededError: Collective ops is aborted by: "
               "Collective has timed out during execution."]
    files = {f"worker-{t}.log": _tf_worker(t, timeout) for t in range(4)}
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen[0].cause is Cause.HANG and seen[0].rank is None, seen[0]


_RAY_TABLE = [
    f"(TorchTrainer pid=5853) - (node_id=98c681076ee4, ip=10.19.1.62, pid={pid}) world_rank={r}, local_rank={r}, "
    "node_rank=0"
    for r, pid in enumerate((1925, 5427, 83397, 15206))
]


def test_ray_names_the_worker_that_raised_by_its_process(tmp_path: Path, ruleset: RuleSet) -> None:
    driver = [  # (the head node named by its host name; Ray's lines name it by its address)
        "Nodes: a100-052",
        "Head node: a100-052  IP: 10.19.1.62",
        "Starting HEAD at a100-052",
        "2025-03-21 07:25:12,000\tINFO scripts.py:744 -- Local node IP: 10.19.1.62",
        "(TorchTrainer pid=5853) Started distributed worker processes: ",
        *_RAY_TABLE,
        *(f"(RayTrainWorker pid=1925) Epoch {e}: 100%|##########| 1250/1250 [14:13<00:00, 1.47it/s, v_num=0, "
          f"train_loss=1.3{e}]" for e in range(30, 35)),
        "",
        "Training finished iteration 35 at 2024-11-21 03:32:14. Total running time: 8hr 20min 18s",
        "╭─────────────────────────────────────────╮",
        "│ training_iteration                   35 │",
        "│ train_loss                      1.32806 │",
        "╰─────────────────────────────────────────╯",
        "2024-11-21 03:32:17,046\tERROR tune_controller.py:1331 -- Trial task failed for trial TorchTrainer_56658_00000",
        "Traceback (most recent call last):",
        '  File "/envs/ray/lib/python3.11/site-packages/ray/_private/worker.py", line 863, in get_objects',
        "    raise value.as_instanceof_cause()",
        "ray.exceptions.RayTaskError(JSONDecodeError): ray::_Inner.train() (pid=5853, ip=10.19.1.62, "
        "actor_id=d0c4fb621f33894461b63a63ddf633bb, repr=TorchTrainer)",
        "ray.exceptions.RayTaskError(JSONDecodeError): ray::_RayTrainWorker__execute.get_next() (pid=15206, "
        "ip=10.19.1.62, actor_id=f618e4d6f10f93122620e173de8e0664, repr=<ray.train._internal.worker_group."
        "RayTrainWorker object at 0x7f1>)",
        '  File "/home/k/tune_lightning.py", line 122, in <module>',
        "    trainer.fit(model, datamodule=dm)",
        '  File "/envs/ray/lib/python3.11/site-packages/torch/_utils.py", line 733, in reraise',
        "    raise exception",
        "json.decoder.JSONDecodeError: Caught JSONDecodeError in DataLoader worker process 1.",
        "Original Traceback (most recent call last):",
        '  File "/workspace/data/jsonl_dataset.py", line 56, in __getitem__',
        "    rec = json.loads(line)",
        "json.decoder.JSONDecodeError: Unterminated string starting at: line 1 column 1260 (char 6538)",
        "",
        "Training errored after 35 iterations at 2024-11-21 03:32:20. Total running time: 8hr 20min 24s",
        "ray.tune.error.TuneError: The Ray Tune run failed. Please inspect the previous error messages for a "
        "cause. After fixing the issue, you can restart the run from scratch or continue this run.",
    ]
    # (the driver's log in its host's folder: the line's node is that name, the table's the address)
    seen = incidents_of(tmp_path, {"a100-052/slurm-5220437.out": "\n".join(driver) + "\n"}, ruleset)
    assert (seen[0].cause, seen[0].rank) == (Cause.PYTHON_EXCEPTION, 3), seen[0]


def test_ray_tunes_wrapper_is_not_the_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    # every rank but 3 timed out in the collective; Ray Tune's last word only wraps the trial's failure
    lines = ["(TorchTrainer pid=8564) Started distributed worker processes: ", *_RAY_TABLE]
    pids = (1925, 5427, 83397, 15206)
    for r in (0, 1, 2):
        lines.append(f"(RayTrainWorker pid={pids[r]}) [rank{r}]:[E321 12:26:27.654361903 ProcessGroupNCCL.cpp:607] "
                     f"[Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=37421, "
                     "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800093 milliseconds "
                     "before timing out.")
    lines.append("ray.tune.error.TuneError: The Ray Tune run failed. Please inspect the previous error messages for "
                 "a cause. After fixing the issue, you can restart the run from scratch or continue this run.")
    seen = incidents_of(tmp_path, {"slurm-7787024.out": "\n".join(lines) + "\n"}, ruleset)
    assert seen[0].cause is Cause.HANG, seen[0]


def test_a_rocm_memory_fault_of_dram_ecc_is_the_gpus_memory(tmp_path: Path, ruleset: RuleSet) -> None:
    out = [
        *(f"{r}: step 1200 | loss 2.31 | 1.97 s/it" for r in range(8)),
        "5: Memory access fault by GPU node-9 (Agent handle: 0x56f6926cbff0) on address 0x7f4d2481f000. "
        "Reason: DRAM ECC failure.",
        "srun: error: frontier08355: task 5: Aborted (core dumped)",
        "srun: Terminating StepId=4770463.0",
        "srun: error: frontier08355: tasks 0-4,6-7: Terminated",
    ]
    seen = incidents_of(tmp_path, {"slurm-4770463.out": "\n".join(out) + "\n"}, ruleset)
    assert (seen[0].cause, seen[0].rank, seen[0].drain) == (Cause.ECC_MEMORY, 5, True), seen[0]


def test_an_amd_xgmi_link_failure_behind_the_runtimes_gpu_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    out = [
        *(f"{r}: 2025-08-08 18:06:50 step 3300 | loss 2.1" for r in range(8)),
        "5: HW Exception by GPU node-5 (Agent handle: 0x5c490d4ba2d0) reason :GPU Hang",
        "srun: error: frontier04857: task 5: Aborted (core dumped)",
        "srun: error: frontier04857: tasks 0-4,6-7: Terminated",
    ]
    dmesg = [
        "[Fri Aug  8 17:52:11 2025] nvme nvme0: I/O 284 QID 50 timeout, completion polled",
        "[Fri Aug  8 18:07:07 2025] amdgpu 0000:c6:00.0: amdgpu: 1 uncorrectable hardware errors detected in "
        "xgmi_wafl block",
        "[Fri Aug  8 18:07:07 2025] amdgpu 0000:c6:00.0: amdgpu: GPU reset begin!",
    ]
    files = {"slurm-4998315.out": "\n".join(out) + "\n", "frontier04857_dmesg.txt": "\n".join(dmesg) + "\n"}
    seen = incidents_of(tmp_path, files, ruleset)
    assert (seen[0].cause, seen[0].rank, seen[0].node) == (Cause.NVLINK, 5, "frontier04857"), seen[0]
    assert "xGMI" in seen[0].explanation, seen[0].explanation
    # AMD's tools in the fix and the check, not nvidia-smi
    remedy = replay_path(tmp_path, ruleset).incidents[0].remediation
    assert "rocm-smi --showxgmierr" in remedy.verify and "nvidia-smi" not in remedy.verify, remedy


def test_a_task_killed_for_memory_before_the_training_completed(tmp_path: Path, ruleset: RuleSet) -> None:
    lines = [
        "(RayTrainWorker pid=35620, ip=10.1.50.184) epoch 4 step 2500 loss 2.4137",
        "(raylet, ip=10.1.196.244) [2025-08-19 14:17:28,437 E 574 673] (raylet) node_manager.cc:3084: 1 Workers "
        "(tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node "
        "(ID: 77300e47, IP: 10.1.196.244) over the last time period.",
        *(f"(RayTrainWorker pid=35620, ip=10.1.50.184) epoch {e} step {e * 500} loss 2.{9 - e}" for e in range(5, 9)),
        "",
        "Training completed after 15 iterations at 2025-08-19 18:25:44. Total running time: 5hr 36min 48s",
    ]
    assert incidents_of(tmp_path / "done", {"driver.log": "\n".join(lines) + "\n"}, ruleset) == []
    # a script's echo that names both ends is no verdict: the kill stays the failure
    unsure = [*lines[:-1], ">>> Job finished (or failed). Signaling clients to terminate..."]
    seen = incidents_of(tmp_path / "unsure", {"driver.log": "\n".join(unsure) + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.HOST_OOM_KILL, seen
    # a failure the word follows at once, with no training after it: a script's "finished" line
    # after its program died
    at_once = [lines[0], *lines[2:6], "Traceback (most recent call last):", '  File "train.py", line 9, in <module>',
               "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity "
               "of 79.11 GiB of which 1.05 GiB is free.", "Training finished at Tue Aug 19 18:25:44 UTC 2025"]
    seen = incidents_of(tmp_path / "at_once", {"driver.log": "\n".join(at_once) + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.CUDA_OOM, seen
    # a fault of the node's network is kept however the run ended (the node is drained for the next job)
    nic = [lines[0], "NCCL WARN NET/IB : Got completion from peer 10.1.196.244<46562> with status=IBV_WC_RETRY_EXC_ERR(12) "
           "opcode=0 len=0 vendor err 129 (Send) localGid ::ffff:10.1.50.184 remoteGidsfe80::", *lines[2:]]
    seen = incidents_of(tmp_path / "nic", {"driver.log": "\n".join(nic) + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.NETWORK, seen
    # nor where a process of the file exited with an error (srun's report), whatever the last word
    srun = [*lines[:-1], "srun: error: node07: task 3: Exited with exit code 1", lines[-1]]
    seen = incidents_of(tmp_path / "srun", {"driver.log": "\n".join(srun) + "\n"}, ruleset)
    assert seen, seen


def test_a_gpu_index_is_no_rank_in_a_job_of_many_nodes(tmp_path: Path, ruleset: RuleSet) -> None:
    out = [
        *(f"Initializing distributed: GLOBAL_RANK: {r}, MEMBER: {r + 1}/64" for r in range(64)),
        "Traceback (most recent call last):",
        '  File "/home/k/train.py", line 90, in <module>',
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 7.81 GiB. GPU 2 has a total capacity of "
        "139.00 GiB of which 5.42 GiB is free.",
        "srun: error: cn-g191: task 18: Exited with exit code 1",
        "srun: Terminating StepId=33502242.0",
        "srun: error: cn-g189: tasks 0-7: Terminated",
        "srun: error: cn-g191: tasks 16-17,19-23: Terminated",
    ]
    seen = incidents_of(tmp_path, {"slurm-33502242.out": "\n".join(out) + "\n"}, ruleset)
    assert (seen[0].cause, seen[0].rank) == (Cause.CUDA_OOM, 18), seen[0]


def test_a_log_stores_stamp_and_host_before_the_rank_prefix(tmp_path: Path, ruleset: RuleSet) -> None:
    console = [
        *(f"2025-10-06T22:1{s}:00.000Z atl1-mi325x-103 [rank{r}]: step {s} loss 2.0" for s in range(5) for r in (3, 11)),
        "2025-10-06T22:31:22.082Z atl1-mi325x-170 [rank11]: torch.AcceleratorError: HIP error: an illegal memory "
        "access was encountered",
    ]
    fleet = ["2025-10-06T20:35:39.706407+00:00 atl1-h200-077 kernel: NVRM: Xid (PCI:0000:9b:00): 13, "
             "pid='<unknown>', name=<unknown>, Graphics SM Warp Exception on (GPC 4, TPC 1, SM 0)"]
    files = {"job/console.log": "\n".join(console) + "\n", "fleet/kernel.log": "\n".join(fleet) + "\n"}
    seen = incidents_of(tmp_path, files, ruleset)
    assert (seen[0].cause, seen[0].rank, seen[0].node) == (
        Cause.ILLEGAL_MEMORY_ACCESS, 11, "atl1-mi325x-170"), seen[0]


def test_another_nodes_application_xid_in_a_fleets_kernel_log(tmp_path: Path, ruleset: RuleSet) -> None:
    # the job ran on atl1-mi325x-*; the fleet's kernel log also holds an earlier Xid 13 of an H200 node
    h = "2025-01-24T15:04:19.658Z atl1-mi325x-158 "
    console = [
        # (the job ran since before the Xid: it is no earlier job's)
        *(f"2025-01-24T1{3 + s // 6}:{s % 6}5:00.000Z atl1-mi325x-179 [rank0]: step: {800 + 20 * s}  loss:  2.8"
          for s in range(12)),
        h + "E0124 08:04:18.777106 3211553 torch/distributed/elastic/multiprocessing/api.py:869] failed "
            "(exitcode: -9) local_rank: 6 (pid: 3211592) of binary: /opt/conda/envs/py_3.12/bin/python",
        h + "=" * 60,
        h + "torchtitan/train.py FAILED",
        h + "-" * 60,
        h + "Failures:",
        h + "  <NO_OTHER_FAILURES>",
        h + "-" * 60,
        h + "Root Cause (first observed failure):",
        h + "[0]:",
        h + "  time      : 2025-01-24_08:04:17",
        h + "  host      : atl1-mi325x-158",
        h + "  rank      : 30 (local_rank: 6)",
        h + "  exitcode  : -9 (pid: 3211592)",
        h + "  error_file: <N/A>",
        h + "  traceback : Signal 9 (SIGKILL) received by PID 3211592",
    ]
    fleet = [
        "2025-01-24T13:46:45.835570+00:00 atl1-h200-031 kernel: NVRM: Xid (PCI:0000:9b:00): 13, pid='<unknown>', "
        "name=<unknown>, Graphics SM Warp Exception on (GPC 4, TPC 1, SM 0): Out Of Range Address",
        "2025-01-24T15:04:17.201180+00:00 atl1-mi325x-158 kernel: Out of memory: Killed process 3211592 "
        "(pt_main_thread) total-vm:187908781kB, anon-rss:185597952kB, file-rss:419500kB, shmem-rss:2318503kB, UID:0",
    ]
    files = {"job/console.log": "\n".join(console) + "\n", "fleet/kernel.log": "\n".join(fleet) + "\n"}
    seen = incidents_of(tmp_path, files, ruleset)
    assert (seen[0].cause, seen[0].node) == (Cause.HOST_OOM_KILL, "atl1-mi325x-158"), seen[0]


def test_tensorflows_check_of_its_peers_names_the_worker_that_went_down(tmp_path: Path, ruleset: RuleSet) -> None:
    down = ["Traceback (most recent call last):", '  File "/workspace/train_mwms.py", line 148, in <module>',
            "tensorflow.python.framework.errors_impl.UnavailableError: Collective ops is aborted by: cluster check "
            "alive failed, /job:worker/replica:0/task:2 is down"]
    files = {f"worker-{t}.log": _tf_worker(t, down) for t in (0, 1, 3)}
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen[0].rank == 2 and seen[0].cause is not Cause.PYTHON_EXCEPTION, seen[0]


def test_horovods_mismatch_in_lower_case(tmp_path: Path, ruleset: RuleSet) -> None:
    line = ("[1,{r}]<stderr>:tensorflow.python.framework.errors_impl.FailedPreconditionError: Mismatched allreduce "
            "tensor shapes: One rank sent a tensor of shape [2048, 200], but another rank sent a tensor of shape "
            "[2048, 201].")
    out = [f"[1,{r}]<stdout>:Epoch 1/10 step 100 loss 2.1" for r in range(4)] + [line.format(r=r) for r in range(4)]
    seen = incidents_of(tmp_path, {"mpirun.out": "\n".join(out) + "\n"}, ruleset)
    assert seen[0].cause is Cause.COLLECTIVE_MISMATCH, seen[0]
