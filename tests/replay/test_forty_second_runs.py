"""The forty-second session's run layouts: Slurm's accounting table (sacct) and LSF's job report
beside the trainers' logs, a node's GPU report saved under the node's name, and an AMD GPU's link
fault named in the vendor's words in the report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from detector.cli.main import main
from detector.replay import replay_path
from detector.report.html import render_html
from detector.rules.engine import RuleSet
from detector.support.exports import export_records
from detector.types import Cause, StreamKind
from tests.support.replaying import incidents_of, write_run

_SACCT_HEAD = [
    "JobID           JobName      State ExitCode        NodeList    Elapsed",
    "------------ ---------- ---------- -------- --------------- ----------",
]


def _sacct(*rows: str) -> str:
    return "\n".join([*_SACCT_HEAD, *rows]) + "\n"


def _steps(count: int) -> str:
    return "".join(f"step {10 * s} | loss {2.9 - s / 100:.3f} | 1.21 s/it\n" for s in range(1, count + 1))


def test_sacct_out_of_memory_row_is_the_hosts_memory(tmp_path: Path, ruleset: RuleSet) -> None:
    # the step's row, cut to the column's width ("OUT_OF_ME+"), beside a console that just stops
    files = {
        "sacct.txt": _sacct("88123        train.sh     FAILED      1:0   gpu[101-102]   00:40:15",
                            "88123.batch     batch     FAILED      1:0          gpu101   00:40:17",
                            "88123.0        python  OUT_OF_ME+    0:125   gpu[101-102]   00:40:09"),
        "slurm-88123.out": _steps(12),
    }
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen and seen[0].cause is Cause.HOST_OOM_KILL and not seen[0].drain, seen


def test_sacct_timeout_row_is_the_time_limit(tmp_path: Path, ruleset: RuleSet) -> None:
    files = {
        "sacct.txt": _sacct("4521377        train.sh    TIMEOUT      0:0   gpu[101-102]   2-00:00:15",
                            "4521377.batch     batch  CANCELLED     0:15          gpu101   2-00:00:17"),
        "slurm-4521377.out": _steps(20),
    }
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen and seen[0].cause is Cause.PREEMPTION and not seen[0].drain, seen


def test_a_ranks_exception_outweighs_the_time_limit_the_job_then_sat_until(tmp_path: Path, ruleset: RuleSet) -> None:
    # rank 3 raised; the job hung on until its time limit, which the accounting records
    files = {
        "sacct.txt": _sacct("4521377        train.sh    TIMEOUT      0:0   gpu[101-102]   2-00:00:15"),
        "slurm-4521377.out": _steps(10) + "".join(f"[rank3]: {line}\n" for line in (
            "Traceback (most recent call last):", '  File "/home/u/train.py", line 88, in <module>',
            "    batch = next(it)", "KeyError: 'input_ids'")),
    }
    seen = incidents_of(tmp_path, files, ruleset)
    assert (seen[0].cause, seen[0].rank) == (Cause.PYTHON_EXCEPTION, 3), seen[0]


@pytest.mark.parametrize("row", [
    "4521377.0        python  CANCELLED     0:15   gpu[101-102]   2-00:00:09",  # a cancel is no time limit
    "4521377        train.sh  COMPLETED      0:0   gpu[101-102]   2-00:00:09",
    "2026-11-30 01:02:03 NCCL TIMEOUT 0:0",  # a log line with the word, not the table's row
])
def test_rows_that_say_nothing_of_the_cause(row: str, ruleset: RuleSet) -> None:
    assert not [m for m in ruleset.match(row, StreamKind.RANK_LOG) if m.rule.id.startswith("scheduler.sacct_")], row
    # and the same row in a time-limit's words does
    assert any(m.rule.id == "scheduler.sacct_time_limit" for m in
               ruleset.match("4521377        train.sh    TIMEOUT      0:0", StreamKind.RANK_LOG))


def test_lsf_memory_limit_in_the_jobs_report(tmp_path: Path, ruleset: RuleSet) -> None:
    report = [
        "Sender: LSF System <lsfadmin@gpu-b07>",
        "Subject: Job 553201: <train> in cluster <hpc> Exited",
        "Job <train> was submitted from host <login1> by user <u> in cluster <hpc>.",
        "------------------------------------------------------------",
        "TERM_MEMLIMIT: job killed after reaching LSF memory usage limit.",
        "Exited with exit code 137.",
    ]
    seen = incidents_of(tmp_path, {"train.553201.out": _steps(5) + "\n".join(report) + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.HOST_OOM_KILL, seen


def test_a_gpu_report_named_for_its_node_places_the_fault(tmp_path: Path, ruleset: RuleSet) -> None:
    # the console says a GPU failed but not on which node; the operator's nvidia-smi output, saved
    # as nvidia-smi_<node>.txt, carries the GPU's state and its node in the file's name only
    console = _steps(6) + "".join(f"{line}\n" for line in (
        "[rank5]: RuntimeError: CUDA error: unspecified launch failure",
        "[rank5]: CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace "
        "below might be incorrect.",
    ))
    smi = ("Unable to determine the device handle for GPU0000:9B:00.0: Unknown Error\n"
           "No devices were found\n")
    files = {"console.log": console, "nvidia-smi_gpu-node-07.txt": smi,
             "nvidia-smi_gpu-node-03.txt": "Sun Dec  6 03:00:00 2026\nNo running processes found\n"}
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen[0].node == "gpu-node-07", seen[0]


def test_an_amd_link_fault_is_labelled_xgmi_in_the_reports(tmp_path: Path, ruleset: RuleSet,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    out = [
        *(f"{r}: 2025-08-08 18:06:50 step 3300 | loss 2.1" for r in range(8)),
        "5: HW Exception by GPU node-5 (Agent handle: 0x5c490d4ba2d0) reason :GPU Hang",
        "srun: error: frontier04857: task 5: Aborted (core dumped)",
    ]
    dmesg = ["[Fri Aug  8 18:07:07 2025] amdgpu 0000:c6:00.0: amdgpu: 1 uncorrectable hardware errors detected in "
             "xgmi_wafl block"]
    run = write_run(tmp_path / "run", {"slurm-4998315.out": "\n".join(out) + "\n",
                                       "frontier04857_dmesg.txt": "\n".join(dmesg) + "\n"})
    report = replay_path(run, ruleset)
    assert report.incidents[0].cause is Cause.NVLINK, report.incidents[0]
    page = render_html(report)
    assert "xGMI (Infinity Fabric) link error" in page and "NVLink / NVSwitch error" not in page
    assert main(["replay", str(run), "--no-progress"]) != 2
    text = capsys.readouterr().out
    assert "xGMI (Infinity Fabric) link error" in text and "NVLink / NVSwitch" not in text, text


def _watchdog_takedown(rank: int, seq: int = 2803) -> list[str]:
    stamp = "E0320 16:51:23.479658905"
    return [
        f"[rank{rank}]:[{stamp} ProcessGroupNCCL.cpp:632] [Rank {rank}] Watchdog caught collective operation timeout: "
        f"WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=16777216, NumelOut=16777216, Timeout(ms)=600000) ran for "
        "600046 milliseconds before timing out.",
        f"[rank{rank}]:[{stamp} ProcessGroupNCCL.cpp:684] [Rank {rank}] Some NCCL operations have failed or timed out. "
        "Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete "
        "data.",
        f"[rank{rank}]:[{stamp} ProcessGroupNCCL.cpp:698] [Rank {rank}] To avoid data inconsistency, we are taking the "
        "entire process down.",
    ]


_SPAWN_EXIT = [
    "Traceback (most recent call last):",
    '  File "/home/u/detectron2/tools/train_net.py", line 215, in <module>',
    "    launch(main, args.num_gpus, num_machines=args.num_machines)",
    '  File "/usr/lib/python3/dist-packages/torch/multiprocessing/spawn.py", line 215, in join',
    "    raise ProcessExitedException(",
    "torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with signal SIGABRT",
]


def test_a_spawned_process_aborted_by_its_watchdog_is_no_crash(tmp_path: Path, ruleset: RuleSet) -> None:
    # two machines of two GPUs; rank 3 (machine 1's second process) stopped before collective 2803,
    # the others' watchdogs took them down and mp.spawn reports its first process's SIGABRT
    m0 = [*_watchdog_takedown(0), *_watchdog_takedown(1), *_SPAWN_EXIT]
    m1 = [*_watchdog_takedown(2), *_SPAWN_EXIT]
    seen = incidents_of(tmp_path, {"machine0_dgx114.log": "\n".join(m0) + "\n",
                                   "machine1_dgx115.log": "\n".join(m1) + "\n"}, ruleset)
    assert seen[0].cause is Cause.HANG, seen[0]


def test_a_spawned_processs_abort_reported_in_another_file_after_its_watchdog(tmp_path: Path,
                                                                               ruleset: RuleSet) -> None:
    # a notebook: the cell's output has mp.spawn's report, the server's terminal has the ranks' lines
    terminal = [
        "[rank0]:[E0307 03:23:31.884984592 ProcessGroupNCCL.cpp:1401] [PG ID 0 PG GUID 0(default_pg) Rank 0] Received "
        "a dump signal due to a collective timeout from rank 1 and we will try our best to dump the debug info. Last "
        "enqueued NCCL work: 29341, last completed NCCL work: 29341.",
        *_watchdog_takedown(1, 29342),
    ]
    cell = ["ProcessExitedException: process 1 terminated with signal SIGABRT"]
    seen = incidents_of(tmp_path, {"jupyter_server_terminal.log": "\n".join(terminal) + "\n",
                                   "cell_output.txt": "\n".join(cell) + "\n"}, ruleset)
    assert seen[0].cause is Cause.HANG, seen[0]


def test_a_real_abort_before_any_watchdog_stays_a_crash(tmp_path: Path, ruleset: RuleSet) -> None:
    # the same report with no watchdog before it: the process died of its own abort
    seen = incidents_of(tmp_path, {"machine0.log": _steps(4) + "\n".join(_SPAWN_EXIT) + "\n"}, ruleset)
    assert seen[0].cause is Cause.CRASH_SIGNAL, seen[0]


def _srun_combined(stalled_dump: list[str], teardown_lines: int) -> str:
    lines = [f"{r}: step {s} | loss 1.4{s} | time 3.67" for s in range(1, 6) for r in range(4)]
    lines += [f"2: {line}" for line in stalled_dump]
    for r in (0, 1, 3):
        lines += [f"{r}: {line}" for line in _watchdog_takedown(r, 137417)]
    # the other ranks' C++ stack traces and srun's teardown: hundreds of lines in a combined log
    lines += [f"{r}: frame #{i}: <unknown function> + 0x{i:x} (0x7f07f3f21bbf in /usr/lib/libtorch_cuda.so)"
              for r in (0, 1, 3) for i in range(teardown_lines // 3)]
    lines += ["srun: error: nid005060: tasks 0-1,3: Aborted (core dumped)",
              "srun: error: nid005060: task 2: Terminated"]
    return "\n".join(lines) + "\n"


_FAULTHANDLER_LOADER = [
    "Timeout (0:03:00)!",
    "Thread 0x00007f07f3f21bbf (most recent call first):",
    '  File "/usr/lib/python3.12/threading.py", line 324 in wait',
    '  File "/usr/lib/python3.12/multiprocessing/queues.py", line 113 in get',
    '  File "/venv/lib/python3.12/site-packages/torch/utils/data/dataloader.py", line 1133 in _try_get_data',
    '  File "/venv/lib/python3.12/site-packages/torch/utils/data/dataloader.py", line 1332 in _next_data',
    '  File "/work/train.py", line 284 in train_step',
]


def test_a_stalled_ranks_loader_dump_before_a_long_teardown_in_a_combined_log(tmp_path: Path,
                                                                             ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path, {"slurm-3210347.out": _srun_combined(_FAULTHANDLER_LOADER, 540)}, ruleset)
    assert (seen[0].cause, seen[0].rank) == (Cause.DATA_LOADER_STALL, 2), seen[0]


def test_a_loader_dump_that_training_went_on_after_is_no_stall(tmp_path: Path, ruleset: RuleSet) -> None:
    # the periodic dump of a rank that then got its batch and trained on, before it stopped elsewhere
    more = "\n".join(f"{r}: step {s} | loss 1.3{s % 10} | time 3.67" for s in range(6, 40) for r in range(4))
    text = _srun_combined([], 540).replace(
        "0: step 5 |", "\n".join(f"2: {line}" for line in _FAULTHANDLER_LOADER) + "\n" + more + "\n0: step 5 |", 1)
    seen = incidents_of(tmp_path, {"slurm-3210347.out": text}, ruleset)
    assert seen[0].cause is not Cause.DATA_LOADER_STALL, seen[0]


def test_the_one_rank_interrupted_while_waiting_for_its_data_loader(tmp_path: Path, ruleset: RuleSet) -> None:
    # a user's Ctrl-C after the job stopped: only rank 70 (in Python code) raised KeyboardInterrupt
    lines = [f"[rank70]: {line}" for line in (
        "Traceback (most recent call last):",
        '  File "/workspace/Megatron-LM/pretrain_gpt.py", line 241, in <module>',
        "    pretrain(train_valid_test_datasets_provider, model_provider)",
        '  File "/usr/lib/python3/dist-packages/torch/utils/data/dataloader.py", line 1328, in _next_data',
        "    idx, data = self._get_data()",
        '  File "/usr/lib/python3/dist-packages/torch/utils/data/dataloader.py", line 1133, in _try_get_data',
        "    data = self._data_queue.get(timeout=timeout)",
        '  File "/usr/lib/python3.10/multiprocessing/queues.py", line 113, in get',
        "    if not self._poll(timeout):",
        "KeyboardInterrupt",
    )]
    seen = incidents_of(tmp_path, {"rank70.log": _steps(8) + "\n".join(lines) + "\n",
                                   **{f"rank{r}.log": _steps(8) for r in (0, 1, 69, 71)}}, ruleset)
    assert (seen[0].cause, seen[0].rank) == (Cause.DATA_LOADER_STALL, 70), seen[0]


def test_a_newest_first_export_keeps_a_moments_lines_in_order() -> None:
    # Kibana lists the newest record first, and the records of one moment (a stack dump's lines,
    # all stamped alike) newest first too
    rows = ['"@timestamp","host.name","message"']
    rows += [f'"May 8, 2024 @ 09:21:12.010","pod-0","line {i} after"' for i in (2, 1)]
    rows += [f'"May 8, 2024 @ 09:06:00.862","pod-0","dump line {i}"' for i in (3, 2, 1)]
    out = export_records(("\n".join(rows) + "\n").encode(), "csv")
    assert out is not None
    logs = [json.loads(line)["log"] for line in out.decode().splitlines()]
    assert logs == ["dump line 1", "dump line 2", "dump line 3", "line 1 after", "line 2 after"], logs


def test_rules_that_want_quotes_or_the_lines_end_in_json_records(tmp_path: Path, ruleset: RuleSet) -> None:
    # Docker's json-file logs of four ranks' containers: the stalled rank's faulthandler dump is
    # 'File "...", line N in f' only once the record's escapes are undone, and its pattern ends at
    # the message's end, not the record's
    def record(rank: int, text: str) -> str:
        return json.dumps({"log": f"[rank{rank}]:{text}\n", "stream": "stderr", "time": "2024-05-08T09:06:00.862Z"})

    files = {}
    for r in range(4):
        lines = [record(r, f"step {s} loss 2.{s}") for s in range(6)]
        if r == 2:
            lines += [record(r, line) for line in _FAULTHANDLER_LOADER]
        else:
            lines += [record(r, line) for line in _watchdog_takedown(r, 8812)]
        files[f"containers/trainer-{r}-json.log"] = "\n".join(lines) + "\n"
    seen = incidents_of(tmp_path, files, ruleset)
    assert (seen[0].cause, seen[0].rank) == (Cause.DATA_LOADER_STALL, 2), seen[0]


def test_two_finalisers_exceptions_printed_interleaved_at_exit(tmp_path: Path, ruleset: RuleSet) -> None:
    # two data loaders' __del__ at interpreter exit: both headers, then both tracebacks line by line
    frames = [
        '  File "/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py", line 1479, in __del__',
        "    self._shutdown_workers()",
        '  File "/usr/lib/python3.10/multiprocessing/process.py", line 160, in is_alive',
        "    assert self._parent_pid == os.getpid(), 'can only test a child process'",
        "AssertionError: can only test a child process",
    ]
    lines = [
        "Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7fbebeb92dc8>",
        "Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7f6516c063a4>",
        "Traceback (most recent call last):",
        "Traceback (most recent call last):",
        *(line for frame in frames for line in (frame, frame)),
    ]
    seen = incidents_of(tmp_path, {"ppo-935938-node1.out": _steps(30) + "\n".join(lines) + "\n"}, ruleset)
    assert not seen, seen


def test_an_old_application_xid_beside_a_job_whose_logs_show_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    # the node's kernel log keeps another process's MMU fault; the job's output trains and ends
    kern = ("May  9 02:10:12 batch-block1-0127 kernel: [2952453.135240] NVRM: Xid (PCI:0000:ab:00): 31, pid=15992, "
            "name=pt_main_thread, Ch 0000000a, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ "
            "0x7f2e_4a000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ\n")
    driver = "\n".join(_barrier("DTensorPolicyWorker", 170270 + r, r) for r in range(4)) + "\n" + _steps(30)
    seen = incidents_of(tmp_path, {"kern-batch-block1-0127.log": kern, "ray-driver.log": driver}, ruleset)
    assert not seen, seen
    # the same fault where the job's processes are not known: nothing says it was another's
    unknown = incidents_of(tmp_path / "unknown", {"kern-batch-block1-0127.log": kern, "ray-driver.log": _steps(30)},
                           ruleset)
    assert unknown and unknown[0].cause is Cause.ILLEGAL_MEMORY_ACCESS, unknown
    # the kernel log alone (all a user pasted) still says what it says
    alone = incidents_of(tmp_path / "alone", {"dmesg.txt": kern}, ruleset)
    assert alone and alone[0].cause is Cause.ILLEGAL_MEMORY_ACCESS, alone


_PYSPY_LOADER = (
    "root@dgx017:/home/ubuntu/verl# py-spy dump --pid 56305\n"
    "Process 56305: ray::TaskRunner.run\n"
    "Python v3.12.8 (/usr/bin/python3.12)\n\n"
    'Thread 56305 (idle): "MainThread"\n'
    "    wait (threading.py:355)\n"
    "    get (queue.py:180)\n"
    "    _try_get_data (torch/utils/data/dataloader.py:1243)\n"
    "    _get_data (torch/utils/data/dataloader.py:1410)\n"
    "    __next__ (torch/utils/data/dataloader.py:733)\n"
    "    fit (verl/trainer/ppo/ray_trainer.py:1032)\n"
)
_DRIVER_INTERRUPTED = _steps(20) + "\n".join([
    "^C",
    "Traceback (most recent call last):",
    '  File "/home/ubuntu/verl/verl/trainer/main_ppo.py", line 96, in run_ppo',
    "    ray.get(runner.run.remote(config))",
    '  File "python/ray/includes/common.pxi", line 83, in ray._raylet.check_status',
    "KeyboardInterrupt",
]) + "\n"


def test_an_interrupted_job_whose_stack_dump_waits_for_its_data_loader(tmp_path: Path, ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path, {"verl_math.log": _DRIVER_INTERRUPTED, "pyspy_56305.txt": _PYSPY_LOADER}, ruleset)
    assert seen[0].cause is Cause.DATA_LOADER_STALL, seen[0]
    # without the dump, someone stopped the job and nothing says why
    plain = incidents_of(tmp_path / "plain", {"verl_math.log": _DRIVER_INTERRUPTED}, ruleset)
    assert plain[0].cause is Cause.PREEMPTION, plain[0]


def test_a_handled_error_that_training_went_on_from_before_another_ranks_failure(tmp_path: Path,
                                                                                  ruleset: RuleSet) -> None:
    # rank 0 logged an upload's error and trained on for hours (its steps stamped after it) in the
    # pod's combined log; rank 11 ran out of GPU memory in the other pod, and its peers' NCCL errors
    # and the launcher's teardown end rank 0's pod log
    def step(r: int, n: int, hh: int, mm: int) -> str:
        return f"[rank{r}]:2025-06-28 {hh:02d}:{mm:02d}:25,020 INFO [train.py:211] step={n} loss=3.6 step_time=1.4s"

    pod0 = [step(0, 100 * i, 12, 40 + i) for i in range(5)] + [
        "[rank0]:2025-06-28 13:05:41 | ERROR | async checkpoint upload failed, will retry",
        "[rank0]:Traceback (most recent call last):",
        '[rank0]:  File "/app/utils/ckpt_upload.py", line 79, in _upload',
        "[rank0]:    client.upload_file(str(path), bucket, key)",
        '[rank0]:botocore.exceptions.ReadTimeoutError: Read timeout on endpoint URL: "https://s3.example/step_1051"',
        "[rank0]:2025-06-28 13:06:41 | INFO | checkpoint upload succeeded on retry 1",
    ] + [step(0, 1100 + 100 * i, 13 + (7 + i) // 60, (7 + i) % 60) for i in range(40)] + [
        "[rank1]:[E628 16:27:10.726700209 ProcessGroupNCCL.cpp:1515] [PG 0 Rank 1] Process group watchdog thread "
        "terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version 2.20.5",
        "W0628 16:27:11.173000 27814 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 86 closing "
        "signal SIGTERM",
    ]
    pod1 = [step(11, 100 * i, 12, 40 + i) for i in range(5)] + [
        step(11, 1100 + 100 * i, 13 + (7 + i) // 60, (7 + i) % 60) for i in range(40)] + [
        "[rank11]:Traceback (most recent call last):",
        '[rank11]:  File "/app/train.py", line 166, in train',
        "[rank11]:    optimizer.step()",
        "[rank11]:torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.17 GiB. GPU 3 has a total "
        "capacity of 79.11 GiB of which 1.44 GiB is free.",
        "E0628 16:27:09.507000 27814 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
        "local_rank: 3 (pid: 123) of binary: /usr/bin/python3",
    ]
    seen = incidents_of(tmp_path, {"logs/trainer-0-0.log": "\n".join(pod0) + "\n",
                                   "logs/trainer-0-1.log": "\n".join(pod1) + "\n"}, ruleset)
    assert all(s.cause is not Cause.PYTHON_EXCEPTION for s in seen[:1]), seen[0]
    assert seen[0].cause is Cause.CUDA_OOM, seen[0]


def test_a_pytorchjob_worker_whose_own_lines_state_its_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    # Kubeflow's master-0 is rank 0 and worker N rank N + 1; only some workers' logs are attached
    # (no worker-0), and the culprit's own lines say its rank
    def pod(rank: int, tail: list[str]) -> str:
        return "\n".join([f"| distributed init (rank {rank}): env://, gpu 0", *(f"epoch 1 step {s} loss 2.{s}"
                                                                               for s in range(6)), *tail]) + "\n"

    killed = ["Traceback (most recent call last):", '  File "/workspace/train.py", line 91, in <module>',
              "RuntimeError: DataLoader worker (pid 3356) is killed by signal: Killed."]
    files = {"logs/sft-13b-master-0.log": pod(0, []), "logs/sft-13b-worker-4.log": pod(5, []),
             "logs/sft-13b-worker-25.log": pod(26, killed)}
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen[0].rank == 26, seen[0]


def test_pals_exit_lines_place_ranks_on_their_nodes(tmp_path: Path, ruleset: RuleSet) -> None:
    # HPE's mpiexec on 2 nodes of 4 GPUs: "GPU 1" in the out-of-memory message is a local device,
    # not rank 1; PALS says rank 5 exited first, on r6i1n5
    out = [
        *(f"{{'loss': 2.{s}, 'grad_norm': 0.5, 'epoch': 0.{s}}}" for s in range(8)),
        "Traceback (most recent call last):",
        '  File "/lus/eagle/projects/train.py", line 180, in train',
        "    loss.backward()",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 7.81 GiB. GPU 1 has a total capacity of "
        "39.39 GiB of which 0.70 GiB is free.",
        "r6i1n5: rank 5 exited with code 1",
        "r6i1n4: rank 0 died from signal 15",
        "r6i1n4: rank 2 died from signal 15",
        "r6i1n5: rank 6 died from signal 15",
    ]
    seen = incidents_of(tmp_path, {"mistral-ft.o1498943": "\n".join(out) + "\n"}, ruleset)
    assert (seen[0].cause, seen[0].rank, seen[0].node) == (Cause.CUDA_OOM, 5, "r6i1n5"), seen[0]



def _barrier(actor: str, pid: int, rank: int, ip: str | None = None) -> str:
    where = f"pid={pid}" + (f", ip={ip}" if ip else "")
    return (f"({actor} {where}) [rank{rank}]:[W511 19:44:50.222813317 ProcessGroupNCCL.cpp:4816] [PG ID 0 PG GUID 0 "
            f"Rank {rank}]  using GPU {rank % 8} to perform barrier as devices used by this process are currently "
            "unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect.")


def test_rays_memory_monitor_names_the_killed_workers_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    # the monitor names the worker's pid; the worker's own start-up line tied that pid to its rank
    lines = [_barrier("ActorModelRayActor", 50000 + r, r) for r in range(8)] + [
        "(raylet) [2026-05-11 20:13:39,136 E 7722 7722] (raylet) node_manager.cc:3069: 1 Workers (tasks / actors) "
        "killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: 6415f44cd682, IP: "
        "192.168.9.129) over the last time period.",
        "Memory on the node (IP: 192.168.9.129, ID: 6415f44cd68263af3b555e2b21e5169b5aa2b23dfb50bf9e0f65dfad) where "
        "the task (actor ID: 09b1a260ca51902af7cb0c4202000000, name=ActorModelRayActor.fit, pid=50007, memory "
        "used=154.51GB) was running was 983.40GB / 1007.50GB (0.976079), which exceeds the memory usage threshold of "
        "0.95. Ray killed this worker (ID: bd462a6b6708b5051f974539ad0574458226a95c1a8e9eff6d440003) because it was "
        "the most recently scheduled task.",
    ]
    seen = incidents_of(tmp_path, {"ray_job_submit.log": "\n".join(lines) + "\n"}, ruleset)
    assert (seen[0].cause, seen[0].rank) == (Cause.HOST_OOM_KILL, 7), seen[0]
    # the start-up lines say who is who; they are no evidence of the failure
    assert not any("perform barrier" in e for e in seen[0].evidence), seen[0].evidence


def test_rays_nested_task_errors_name_the_inner_worker(tmp_path: Path, ruleset: RuleSet) -> None:
    # the driver's TaskRunner passed on its worker's error: the worker's header (below it) is the failure
    lines = [_barrier("WorkerDict", 141100 + r, r, "10.177.105.102") for r in (16, 17, 18, 19)] + [
        "Traceback (most recent call last):",
        '  File "/mnt/code/verl/verl/trainer/main_ppo.py", line 64, in main',
        "    ray.get(runner.run.remote(config))",
        "ray.exceptions.RayTaskError(OutOfMemoryError): ray::TaskRunner.run() (pid=51306, ip=10.177.105.96, "
        "actor_id=beba1a34cccbd685712fef3301000000, repr=<main_ppo.TaskRunner object at 0x7f1badd16fae>)",
        '  File "/mnt/code/verl/verl/trainer/ppo/ray_trainer.py", line 1120, in fit',
        "    old_log_prob = self.actor_rollout_wg.compute_log_prob(batch)",
        "ray.exceptions.RayTaskError(OutOfMemoryError): ray::WorkerDict.actor_rollout_compute_log_prob() "
        "(pid=141118, ip=10.177.105.102, actor_id=952219ae59e674cb7a296d8b01000000, "
        "repr=<verl.single_controller.ray.base.WorkerDict object at 0x7f65e638d7e1>)",
        '  File "/mnt/code/verl/verl/workers/actor/dp_actor.py", line 171, in _forward_micro_batch',
        "    output = self.actor_module(",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.64 GiB. GPU 2 has a total capacity of "
        "79.11 GiB of which 1.02 GiB is free.",
    ]
    seen = incidents_of(tmp_path, {"verl_gsm8k_grpo.log": "\n".join(lines) + "\n"}, ruleset)
    assert (seen[0].cause, seen[0].rank, seen[0].node) == (Cause.CUDA_OOM, 18, "10.177.105.102"), seen[0]


def test_an_xid_names_the_pid_a_workers_prefix_gave_its_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    # NeMo-RL's actors print their repr in Ray's prefix; the node's kernel log names the host by
    # name where the prefix gave its address
    driver = [f"(MegatronPolicyWorker[rank={r}] pid={344010 + r}, ip=10.202.198.43) [rank{r}]:[W1123 00:50:47.490956324 "
              f"ProcessGroupNCCL.cpp:4816] [PG ID 0 PG GUID 0 Rank {r}]  using GPU {r - 8} to perform barrier as devices "
              "used by this process are currently unknown." for r in range(8, 16)]
    driver += [f"(MegatronPolicyWorker[rank={r}] pid={344010 + r}, ip=10.202.198.43) [rank{r}]:[E1123 03:12:08.404091414 "
               f"ProcessGroupNCCL.cpp:1895] [PG ID 0 PG GUID 0(default_pg) Rank {r}] Process group watchdog thread "
               "terminated with exception: NCCL error: unhandled system error" for r in (9, 12)]
    kern = ("Nov 23 03:12:07 eos0034 kernel: [5608619.909288] NVRM: Xid (PCI:0000:ab:00): 74, pid=344023, "
            "name=ray::MegatronP, NVLink: fatal error detected on link 12(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)\n")
    seen = incidents_of(tmp_path, {"ray-driver.log": "\n".join(driver) + "\n", "kern-eos0034.log": kern}, ruleset)
    assert (seen[0].cause, seen[0].rank, seen[0].node) == (Cause.NVLINK, 13, "eos0034"), seen[0]


def test_rays_folded_lines_leave_no_rank_silent(tmp_path: Path, ruleset: RuleSet) -> None:
    # Ray folded the other workers' identical timeouts into "[repeated 3x across cluster]": the rank
    # whose own line is not shown need not have stayed silent
    lines = [
        "(WorkerDict pid=3943529) [rank0]:[E816 01:09:38.266897325 ProcessGroupNCCL.cpp:621] [Rank 0] Some NCCL "
        "operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU "
        "operations might run on corrupted/incomplete data. [repeated 3x across cluster]",
        "(WorkerDict pid=3944197) [rank2]:[E816 01:09:38.174648046 ProcessGroupNCCL.cpp:1515] [PG 0 (default_pg) Rank "
        "2] Process group watchdog thread terminated with exception: [Rank 2] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600060 "
        "milliseconds before timing out. [repeated 2x across cluster]",
        "(WorkerDict pid=3943529) [rank0]:[E816 01:09:38.174648046 ProcessGroupNCCL.cpp:1515] [PG 0 (default_pg) Rank "
        "0] Process group watchdog thread terminated with exception: [Rank 0] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600060 "
        "milliseconds before timing out.",
    ]
    seen = incidents_of(tmp_path, {"train.log": "\n".join(lines) + "\n"}, ruleset)
    assert seen[0].cause is Cause.HANG and seen[0].rank is None, seen[0]


def test_steps_flushed_after_a_traceback_do_not_make_it_caught(tmp_path: Path, ruleset: RuleSet) -> None:
    # stdout's buffered steps land after stderr's traceback, then srun says the task failed
    lines = [f"2024-07-22 17:{m:02d}:00,000 INFO step={m} loss=2.31" for m in range(20)]
    lines += ["Traceback (most recent call last):", '  File "/home/u/train.py", line 88, in <module>',
              "    batch = next(it)", "KeyError: 'input_ids'"]
    lines += [f"2024-07-22 17:{m:02d}:00,000 INFO step={m} loss=2.31" for m in range(20, 32)]
    lines += ["srun: error: gpu101: task 0: Exited with exit code 1"]
    seen = incidents_of(tmp_path, {"slurm-1.out": "\n".join(lines) + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION, seen


def test_an_abort_after_its_own_exception_on_another_machine_stays_a_failure(tmp_path: Path,
                                                                            ruleset: RuleSet) -> None:
    m0 = [*_watchdog_takedown(0), *_watchdog_takedown(1), *_SPAWN_EXIT]
    m1 = ["terminate called after throwing an instance of 'std::runtime_error'",
          "  what():  unexpected state in the scheduler", *_SPAWN_EXIT]
    seen = incidents_of(tmp_path, {"machine0.log": "\n".join(m0) + "\n", "machine1.log": "\n".join(m1) + "\n"},
                        ruleset)
    assert seen[0].cause is not Cause.HANG, seen[0]


def test_two_ray_errors_of_different_classes_are_not_one_nested_error(tmp_path: Path, ruleset: RuleSet) -> None:
    lines = [
        "ray.exceptions.RayTaskError(ValueError): ray::Worker.init_model() (pid=100, ip=10.0.0.1, "
        "actor_id=aa, repr=<Worker>)",
        '  File "/app/worker.py", line 10, in init_model',
        "ray.exceptions.RayTaskError(KeyError): ray::Worker.step() (pid=200, ip=10.0.0.2, actor_id=bb, repr=<Worker>)",
        '  File "/app/worker.py", line 20, in step',
    ]
    seen = incidents_of(tmp_path, {"driver.log": "\n".join(lines) + "\n"}, ruleset)
    assert seen[0].node == "10.0.0.1", seen[0]


def test_a_real_traceback_after_two_finalisers_headers_keeps_its_exception(tmp_path: Path, ruleset: RuleSet) -> None:
    lines = [
        "Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7fbebeb92dc8>",
        "Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7f6516c063a4>",
        "Traceback (most recent call last):",
        '  File "/usr/lib/python3.10/multiprocessing/process.py", line 160, in is_alive',
        "AssertionError: can only test a child process",
        "Traceback (most recent call last):",
        '  File "/home/u/train.py", line 88, in <module>',
        "    batch = next(it)",
        "KeyError: 'input_ids'",
    ]
    seen = incidents_of(tmp_path, {"train.out": _steps(10) + "\n".join(lines) + "\n"}, ruleset)
    assert seen and any("KeyError" in e for e in seen[0].evidence), seen


def test_a_tool_report_named_for_a_job_names_no_node(tmp_path: Path, ruleset: RuleSet) -> None:
    smi = "Unable to determine the device handle for GPU0000:9B:00.0: Unknown Error\n"
    seen = incidents_of(tmp_path, {"slurm-4521377_nvidia-smi.txt": smi, "console.log": _steps(6)}, ruleset)
    assert seen and seen[0].node != "slurm-4521377", seen[0]


def test_sacct_parsable_rows(ruleset: RuleSet) -> None:
    ids = {m.rule.id for m in ruleset.match("4521377|train.sh|gpu|TIMEOUT|0:0|gpu[101-108]|2-00:00:15|",
                                            StreamKind.RANK_LOG)}
    assert "scheduler.sacct_time_limit" in ids, ids


def test_a_tool_reports_options_are_no_node_and_a_pods_report_is_its_ranks() -> None:
    from detector.sources.runs import _TOOL_NAME_HOST, _host_of_kernel_name
    assert _host_of_kernel_name("nvidia-smi-q-d-ECC-node5.txt", _TOOL_NAME_HOST) == "node5"
    assert _host_of_kernel_name("nvidia-smi-q-d-PERFORMANCE_gpu-a17.txt", _TOOL_NAME_HOST) == "gpu-a17"


def test_a_kubeflow_pods_gpu_report_keeps_the_pods_rank(tmp_path: Path) -> None:
    from detector.sources.runs import discover
    smi = "    Clocks Event Reasons\n        HW Slowdown                       : Active\n"
    write_run(tmp_path, {"nvidia-smi-q-d-PERFORMANCE_job-master-0.txt": smi, "job-master-0.log": _steps(5),
                         "job-worker-0.log": _steps(5)})
    ranks = {f.display: f.rank for f in discover(tmp_path)[0]}
    assert ranks["nvidia-smi-q-d-PERFORMANCE_job-master-0.txt"] == 0, ranks
