"""The forty-fifth session's runs: step lines followed by a long teardown, timings that account
for less than the wall time between their lines, other wordings of a trainer's slowest-rank
report, an Ascend kernel exception, an application's GPU fault of another process, a journal's
JSON export that holds the job's output, a pause that training resumed after, and a node's storage
stall stamped on another zone's clock."""

from __future__ import annotations

import json
from pathlib import Path

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of

# --- step lines, then a long teardown ------------------------------------------------------------


def _timings(slow: int, ranks: range, steps: range, minutes_per_line: int = 10) -> list[str]:
    out = []
    for n, step in enumerate(steps):
        minute = n * minutes_per_line
        stamp = f"2025-05-30 {7 + minute // 60:02d}:{minute % 60:02d}:36,020"
        for rank in ranks:
            fwd, bwd, wait = (0.856, 1.658, 0.010) if rank == slow else (0.47 + 0.001 * (rank % 7), 0.91, 1.19)
            out.append(f"{stamp} - INFO - timing.py:52 - [rank{rank}] step {step} timings: data 0.012s "
                       f"fwd {fwd:.3f}s bwd {bwd:.3f}s opt 0.041s wait_allreduce {wait:.3f}s")
    return out


def _teardown(lines: int) -> list[str]:
    out = []
    for i in range(lines // 4):
        out += [f"[rank{i % 64}]: Traceback (most recent call last):",
                f'[rank{i % 64}]:   File "/opt/venv/lib/python3.11/site-packages/torch/distributed/run.py", line 9, in main',
                f"[rank{i % 64}]:     raise SignalException(f\"Process {{os.getpid()}} got signal: {{sigval}}\", sigval=sigval)",
                f"[rank{i % 64}]: torch.distributed.elastic.multiprocessing.api.SignalException: Process {4000 + i} got signal: 15"]
    return out


def test_a_straggler_before_a_long_teardown_is_found(tmp_path: Path, ruleset: RuleSet) -> None:
    # the ranks' timing lines (one in fifty steps, ten minutes apart: the lines' stamps hold more
    # than the step their timings account for) end 600 lines before the file does: every rank's
    # traceback as the job was stopped. Rank 13's forward and backward take 1.8 times its peers'
    lines = _timings(13, range(16), range(2020, 2620, 50)) + _teardown(600)
    seen = incidents_of(tmp_path, {"slurm-9496505.out": "\n".join(lines) + "\n"}, ruleset)
    stragglers = [i for i in seen if i.cause is Cause.STRAGGLER]
    assert stragglers and stragglers[0].rank == 13, seen


def test_even_ranks_before_a_long_teardown_are_no_straggler(tmp_path: Path, ruleset: RuleSet) -> None:
    lines = _timings(-1, range(16), range(2020, 2620, 50)) + _teardown(600)
    seen = incidents_of(tmp_path, {"slurm-9496505.out": "\n".join(lines) + "\n"}, ruleset)
    assert not any(i.cause is Cause.STRAGGLER for i in seen), seen


# --- a trainer's slowest-rank report in other words ----------------------------------------------


def test_max_min_step_time_reports_name_the_straggler(tmp_path: Path, ruleset: RuleSet) -> None:
    # "step time max 8.48s (rank 23) min 3.01s (rank 30) mean 8.23s": the mean follows the slowest
    # rank (every rank waits for it), the shortest time is the typical one
    lines = [f"it {it}: step time max {8.4 + 0.01 * (it % 9):.2f}s (rank 23) min {3.0 + 0.01 * (it % 7):.2f}s "
             f"(rank {(it * 7) % 31}) mean 8.2{it % 10}s" for it in range(100, 2100, 100)]
    seen = incidents_of(tmp_path, {"pod_logs.txt": "\n".join(lines) + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.STRAGGLER and seen[0].rank == 23, seen


def test_max_min_reports_of_changing_ranks_are_no_straggler(tmp_path: Path, ruleset: RuleSet) -> None:
    lines = [f"it {it}: step time max {3.4 + 0.01 * (it % 9):.2f}s (rank {(it * 11) % 31}) min "
             f"{3.0 + 0.01 * (it % 7):.2f}s (rank {(it * 7) % 31}) mean 3.2{it % 10}s" for it in range(100, 2100, 100)]
    seen = incidents_of(tmp_path, {"pod_logs.txt": "\n".join(lines) + "\n"}, ruleset)
    assert not any(i.cause is Cause.STRAGGLER for i in seen), seen


def test_a_straggler_that_began_in_the_last_reports_is_named(tmp_path: Path, ruleset: RuleSet) -> None:
    # min/med/max in one triple, the slowest rank after it: rank 71 is the slowest in the last
    # three of six reports only (it began to straggle), well over the median
    lines = []
    for n, slow in enumerate((4, 9, 13, 71, 71, 71)):
        top = 5.1 if slow == 71 else 3.3
        lines.append(f"[rank0]:2024-05-24 1{4 + n}:06:27,125 INFO [perf] step {68000 + 500 * n} | fwd+bwd time "
                     f"min/med/max 3.1{n}/3.22/{top:.3f}s | slowest rank {slow} (moe-8x1b-trainer-0-{slow // 8}) "
                     f"| fastest rank {n + 30}")
    seen = incidents_of(tmp_path, {"trainer-0-0.log": "\n".join(lines) + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.STRAGGLER and seen[0].rank == 71, seen


# --- an Ascend NPU's kernel exception -----------------------------------------------------------


def test_an_ascend_aivec_error_exception_is_a_kernel_fault(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("[rank7]:[W723 10:35:57.462407611 compiler_depend.ts:57] Warning: EZ9999: Inner Error!\n"
           "EZ9999: [PID: 14897] 2025-07-23-10:35:42.381.401 The error from device(chipId:7, dieId:0), serial number "
           "is 2, there is an aivec error exception, core id is 5, error code = 0, dump info: pc start: 0x1240441f2000\n")
    seen = incidents_of(tmp_path, {"console.log": log}, ruleset)
    assert seen and seen[0].cause is Cause.ILLEGAL_MEMORY_ACCESS, seen


# --- an application's GPU fault of another process, in a run that finished ----------------------


def _journal(records: list[tuple[str, str, str]]) -> str:
    out = []
    for n, (transport, ident, message) in enumerate(records):
        out.append(json.dumps({"__REALTIME_TIMESTAMP": str(1768818700000000 + n * 60_000_000), "_TRANSPORT": transport,
                               "SYSLOG_IDENTIFIER": ident, "_HOSTNAME": "dgx060", "MESSAGE": message}))
    return "\n".join(out) + "\n"


def test_a_journal_export_of_a_finished_run_with_another_process_gpu_fault_is_healthy(
        tmp_path: Path, ruleset: RuleSet) -> None:
    # journalctl -o json of the node: the trainer's unit's output and one kernel line, an Xid 43 of
    # a pid that is no rank's; the run trains to its end and torchrun's group succeeds
    records = [("stdout", "torchrun", "WARNING:torch.distributed.run:"),
               ("stdout", "torchrun", "[default1]:  return fn(*args, **kwargs)"),
               ("stdout", "torchrun", "[default0]:2026-01-19 10:20:59,794 INFO [train.py:214] [rank0] step 770/780 loss=4.04"),
               ("kernel", "kernel", "NVRM: Xid (PCI:0000:90:00): 43, pid=296183, name=python, Ch 00000003"),
               ("stdout", "torchrun", "[default0]:2026-01-19 11:14:59,794 INFO [train.py:214] [rank0] step 780/780 loss=4.03"),
               ("stdout", "torchrun", "[default0]:Training completed. Saving final checkpoint to /checkpoints/final"),
               ("stdout", "torchrun", "INFO:torch.distributed.elastic.agent.server.api:[default] worker group "
                                      "successfully finished. Waiting 300 seconds for other agents to finish.")]
    seen = incidents_of(tmp_path, {"journal-dgx060.json": _journal(records)}, ruleset)
    assert not seen, seen


def test_a_journal_export_of_the_kernel_alone_keeps_its_gpu_fault(tmp_path: Path, ruleset: RuleSet) -> None:
    records = [("kernel", "kernel", "NVRM: GPU at PCI:0000:90:00: GPU-3b1f"),
               ("kernel", "kernel", "NVRM: Xid (PCI:0000:90:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."),
               ("kernel", "kernel", "NVRM: GPU 0000:90:00.0: GPU has fallen off the bus.")]
    seen = incidents_of(tmp_path, {"journal-dgx060.json": _journal(records)}, ruleset)
    assert seen and seen[0].cause is Cause.GPU_HARDWARE, seen


# --- a pause that training resumed after --------------------------------------------------------


DATA = Path(__file__).parent / "data" / "runs45"


def _folder(name: str) -> dict[str, str]:
    return {str(p.relative_to(DATA / name)): p.read_text() for p in sorted((DATA / name).rglob("*")) if p.is_file()}


def test_a_run_that_completed_after_a_pause_and_a_caught_upload_error_is_healthy(
        tmp_path: Path, ruleset: RuleSet) -> None:
    # (a generator's run, blind21 seed 3: Lightning's progress bars, a caught checkpoint-upload
    # traceback, a long pause the steps resumed after, sacct's COMPLETED, and an old Xid 13 and 43
    # of another process in the node's kernel log days before the job)
    seen = incidents_of(tmp_path, _folder("completed_after_a_pause"), ruleset)
    assert not seen, seen


# --- a storage stall on another zone's clock ----------------------------------------------------


def _hung_job(node: str) -> dict[str, str]:
    ranks = []
    for rank in range(8):
        ranks.append(f"[2024-06-19 12:00:0{rank}] [rank{rank}] step 900 loss 2.31")
    for rank in range(7):
        ranks.append(f"[rank{rank}]:[E619 12:09:24.762228 ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog caught "
                     "collective operation timeout: WorkNCCL(SeqNum=9001, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
                     "Timeout(ms)=600000) ran for 600032 milliseconds before timing out.")
    kernel = ["[Wed Jun 19 07:58:36 2024] nfs: server nas01 not responding, still trying",
              "[Wed Jun 19 08:01:54 2024] INFO: task pt_data_worker:224566 blocked for more than 245 seconds.",
              "[Wed Jun 19 08:01:54 2024]  nfs_read_folio+0x1a5/0x200 [nfs]"]
    return {f"logs/{node}.log": "\n".join(ranks) + "\n", f"kmsg/{node}-dmesg-T.txt": "\n".join(kernel) + "\n"}


def test_a_storage_stall_hours_off_on_the_hung_ranks_node_is_a_data_loading_stall(
        tmp_path: Path, ruleset: RuleSet) -> None:
    # rank 7 alone never reports the timeout; its node's kernel log ("dmesg -T": the node's local
    # time, no zone) says its NFS server stopped answering and a data-loader worker was blocked,
    # stamped four hours before the ranks' UTC lines
    seen = incidents_of(tmp_path, _hung_job("dgx-a100-031"), ruleset)
    assert seen and seen[0].cause is Cause.DATA_LOADER_STALL, seen


def test_an_nfs_hiccup_hours_off_with_no_process_blocked_leaves_the_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    # the same kernel log without the blocked task: the server stopped answering for a moment,
    # hours from the hang on its clock, and nothing says a process of the job waited on it
    files = _hung_job("dgx-a100-031")
    files["kmsg/dgx-a100-031-dmesg-T.txt"] = ("[Wed Jun 19 07:58:36 2024] nfs: server nas01 not responding, still trying\n"
                                             "[Wed Jun 19 07:58:41 2024] nfs: server nas01 OK\n")
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen and seen[0].cause is Cause.HANG and seen[0].rank == 7, seen


# --- more wordings: pytest's report of a rank's exception, UCX's failed registration, NCCL's bootstrap


def test_a_pytest_report_under_horovodrun_names_the_rank_that_raised(tmp_path: Path, ruleset: RuleSet) -> None:
    log = "\n".join([
        "[1]<stdout>:mi100-03:3241229:3244291 [1] NCCL INFO Channel 00 : 1[c3000] -> 0[3000] via direct shared memory",
        "[0]<stdout>:>           raise HorovodInternalError(e)",
        "[0]<stdout>:E           horovod.common.exceptions.HorovodInternalError: ScaleBuffer not implemented for AMD GPUs.",
        "[1]<stdout>:mi100-03:3241229:3244291 [1] NCCL INFO Channel 01 : 1[c3000] -> 0[3000] via direct shared memory",
        "[0]<stdout>:",
        "[0]<stdout>:horovod/torch/mpi_ops.py:1290: HorovodInternalError",
    ]) + "\n"
    seen = incidents_of(tmp_path, {"horovodrun.log": log}, ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION and seen[0].rank == 0, seen


def test_ucx_refusing_to_register_a_gpu_buffer_is_the_nodes_rdma_path(tmp_path: Path, ruleset: RuleSet) -> None:
    log = "\n".join([
        "[1647516906.396315] [node-rtx3080:82049:0]           ib_md.c:349  UCX  ERROR ibv_reg_mr(address=0x7f724fa00000, "
        "length=4096, access=0xf) failed: Bad address",
        "[1647516906.396356] [node-rtx3080:82049:0]          ucp_mm.c:164  UCX  ERROR failed to register address "
        "0x7f724fa00000 mem_type bit 0x2 length 4096 on md[5]=mlx5_0: Input/output error (md reg_mem_types 0x3)",
        "[node-rtx3080.local:82049] pml_ucx.c:860  Error: ucx send failed: Input/output error",
        "[node-rtx3080:82049] *** An error occurred in MPI_Isend",
        "[node-rtx3080:82049] *** MPI_ERRORS_ARE_FATAL (processes in this communicator will now abort,",
    ]) + "\n"
    seen = incidents_of(tmp_path, {"console.log": log}, ruleset)
    assert seen and seen[0].cause is Cause.NETWORK and seen[0].node == "node-rtx3080", seen


def test_nccls_newer_word_for_a_garbage_bootstrap_address_is_a_network_fault(tmp_path: Path, ruleset: RuleSet) -> None:
    log = "\n".join([
        "h100-4:739790:739878 [4] NCCL INFO Bootstrap : Using ens7:10.0.0.4<0>",
        "h100-4:739790:739878 [4] misc/socket.cc:397 NCCL WARN Net : connecting to address  with family 33621 is "
        "neither AF_INET(2) nor AF_INET6(10)",
        "h100-4:739790:739878 [4] NCCL INFO bootstrap.cc:256 -> 3",
        "h100-4:739790:739878 [4] NCCL INFO init.cc:1089 -> 3",
    ]) + "\n"
    seen = incidents_of(tmp_path, {"console.log": log}, ruleset)
    assert seen and seen[0].cause is Cause.NETWORK, seen



# --- a requeued job's attempts, a file each ---------------------------------------------------


def _attempt(day: int, node: str, steps: range, tail: list[str]) -> str:
    lines = [f"0: [2025-05-{day:02d} {8 + i // 60:02d}:{i % 60:02d}:00] iteration {step:8d}/   54000 | "
             f"elapsed time per iteration (ms): 9100.5 | lm loss: 2.31E+00" for i, step in enumerate(steps)]
    return "\n".join([f"0: + srun on {node}", *lines, *tail]) + "\n"


_XID_DEATH = ["0: {node}:2206504:2206504 [0] enqueue.cc:1556 NCCL WARN Cuda failure 'unknown error'",
              "0: [rank0]: RuntimeError: CUDA error: unknown error",
              "srun: error: {node}: task 0: Exited with exit code 1"]


def test_a_requeued_job_whose_last_attempt_completed_is_healthy(tmp_path: Path, ruleset: RuleSet) -> None:
    # the first attempt died on a GPU error on hgx-b189 (the node was replaced); the second, on
    # hgx-b198, trained to its end and saved its checkpoint
    files = {"slurm-5746418_0.out": _attempt(28, "hgx-b189", range(30000, 30600, 10),
                                             [x.format(node="hgx-b189") for x in _XID_DEATH]),
             "slurm-5746418_1.out": _attempt(29, "hgx-b198", range(30500, 31100, 10),
                                             ["0:   successfully saved checkpoint from iteration    31090",
                                              "srun finished with exit code 0"])}
    seen = incidents_of(tmp_path, files, ruleset)
    assert not seen, seen


def test_a_requeued_jobs_verdict_is_its_last_attempts_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    files = {"slurm-5746418_0.out": _attempt(28, "hgx-b189", range(30000, 30600, 10),
                                             [x.format(node="hgx-b189") for x in _XID_DEATH]),
             "slurm-5746418_1.out": _attempt(29, "hgx-b198", range(30500, 31100, 10),
                                             ["0: [rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
                                              "2.00 GiB. GPU 0 has a total capacity of 79.11 GiB of which 1.06 GiB is free.",
                                              "srun: error: hgx-b198: task 0: Exited with exit code 1"])}
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen and seen[0].cause is Cause.CUDA_OOM, seen


def test_job_array_tasks_side_by_side_are_no_attempts(tmp_path: Path, ruleset: RuleSet) -> None:
    # two tasks of an array ran at the same time: the one that failed is the verdict
    files = {"slurm-5746418_0.out": _attempt(28, "hgx-b189", range(30000, 30600, 10),
                                             [x.format(node="hgx-b189") for x in _XID_DEATH]),
             "slurm-5746418_1.out": _attempt(28, "hgx-b198", range(30500, 31100, 10),
                                             ["srun finished with exit code 0"])}
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen and seen[0].rank == 0 and seen[0].cause is not None, seen


# --- a program's word that it goes on after an exception; a port that flapped ---------------


def test_an_exception_logged_after_the_programs_word_that_it_continues_is_caught(tmp_path: Path, ruleset: RuleSet) -> None:
    lines = [f" 1:  [2025-05-30 {10 + i // 4:02d}:{(i % 4) * 15:02d}:18] iteration {48000 + 100 * i:8d}/   54000 | "
             "elapsed time per iteration (ms): 9195.4" for i in range(8)]
    lines += [" 0: WARNING: eval/upload hook failed at step 48540, continuing training:",
              " 0: Traceback (most recent call last):",
              ' 0:   File "/opt/megatron/pretrain_gpt.py", line 466, in run_hooks',
              " 0:     hook(step, metrics)",
              ' 0: botocore.exceptions.EndpointConnectionError: Could not connect to the endpoint URL: "https://s3/x.json"']
    lines += [f" 1:  [2025-05-30 {12 + i // 4:02d}:{(i % 4) * 15:02d}:18] iteration {48800 + 100 * i:8d}/   54000 | "
              "elapsed time per iteration (ms): 9195.4" for i in range(3)]
    seen = incidents_of(tmp_path, {"slurm-1.out": "\n".join(lines) + "\n"}, ruleset)
    assert not seen, seen


def test_an_adapter_port_event_training_ran_on_after_to_its_end_is_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    lines = [f"[rank3]:2024-10-22 21:{i:02d}:11,356 INFO step {100 * i}/5000 loss 2.1 step_time 0.9s" for i in range(20)]
    lines.append("cn113:2170629:2170643 [3] transport/net_ib.cc:101 NCCL WARN NET/IB : mlx5_6:1 Got async event : port error")
    lines += [f"[rank3]:2024-10-22 22:{i:02d}:11,356 INFO step {2000 + 100 * i}/5000 loss 2.0 step_time 0.9s"
              for i in range(31)]
    lines.append("[rank3]:2024-10-22 22:31:20,000 INFO Training completed. Saving final checkpoint.")
    seen = incidents_of(tmp_path, {"rank3.log": "\n".join(lines) + "\n"}, ruleset)
    assert not seen, seen


def test_a_trainers_steps_in_chinese_after_a_caught_exception_show_it_went_on(tmp_path: Path, ruleset: RuleSet) -> None:
    # "第 N 步" (step N): rank 1's own stamped step lines go on for long after the metrics
    # uploader's timeout it caught; the run ends well
    lines = [f"[2025-01-14 08:{i:02d}:42,216] [rank 1] 第 {10 * i} 步, loss: 3.7, 耗时: 6.240s" for i in range(1, 10)]
    lines += ["Traceback (most recent call last):",
              '  File "/usr/local/lib/python3.10/dist-packages/swanlab/data/sdk.py", line 212, in _upload',
              "    resp = self._session.post(url, json=payload, timeout=10)",
              "requests.exceptions.ReadTimeout: HTTPSConnectionPool(host='api.swanlab.cn', port=443): Read timed out."]
    lines += [f"[2025-01-14 09:{i:02d}:42,216] [rank 1] 第 {100 + 10 * i} 步, loss: 3.6, 耗时: 6.240s" for i in range(40)]
    seen = incidents_of(tmp_path, {"workerlog.1": "\n".join(lines) + "\n"}, ruleset)
    assert not seen, seen


# --- a wrapper's retry loop: attempts marked in one file ---------------------------------------


def _looped(last_tail: list[str], *, announce_next: bool = False) -> str:
    lines = ["[run.sh 2025-02-19T21:30:28+09:00] attempt 1/8: 2 hosts (node04 node05)"]
    lines += [f"node04: [2025-02-19 21:{31 + i // 10:02d}:{(i % 10) * 6:02d},000] [INFO] [logging.py:96:log_dist] "
              f"[Rank 0] step={100 * i}, skipped=0, lr=[0.0001]" for i in range(40)]
    lines += ["node05: [rank12]: RuntimeError: CUDA error: uncorrectable ECC error encountered",
              "node05: [2025-02-19 21:40:02,000] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python3', '-u', "
              "'train.py', '--local_rank=4'] exits with return code = 1",
              "[run.sh 2025-02-20T13:22:33+09:00] sleeping 60s before retry",
              "[run.sh 2025-02-20T13:40:37+09:00] attempt 2/8: 2 hosts (node04 node06)"]
    lines += [f"node04: [2025-02-20 13:{41 + i // 10:02d}:{(i % 10) * 6:02d},000] [INFO] [logging.py:96:log_dist] "
              f"[Rank 0] step={4000 + 100 * i}, skipped=0, lr=[0.0001]" for i in range(40)]
    lines += last_tail
    if announce_next:
        lines.append("[run.sh 2025-02-20T14:02:06+09:00] sleeping 300s before attempt 3/8")
    return "\n".join(lines) + "\n"


_INIT_ON = ("{node}: {node}:2206:2206 [0] NCCL INFO comm 0x55d2c8a0 rank {rank} nranks 16 cudaDev 0 nvmlDev 0 "
            "busId 1b000 commId 0x5a1f3b2e - Init COMPLETE")


def test_a_retry_loop_whose_last_attempt_ran_well_on_other_nodes_is_healthy(tmp_path: Path, ruleset: RuleSet) -> None:
    # attempt 1 lost a GPU to an ECC error on node05; attempt 2 runs on node04 and node06 (its
    # NCCL lines name them) and trains on to its end
    tail = [_INIT_ON.format(node="node04", rank=0), _INIT_ON.format(node="node06", rank=8),
            "node04: training finished: 8000 steps"]
    seen = incidents_of(tmp_path, {"run.log": _looped(tail)}, ruleset)
    assert not seen, seen


def test_a_retry_loop_that_ran_again_on_the_faulty_node_keeps_its_gpu_fault(tmp_path: Path, ruleset: RuleSet) -> None:
    tail = [_INIT_ON.format(node="node04", rank=0), _INIT_ON.format(node="node05", rank=8),
            "node04: training finished: 8000 steps"]
    seen = incidents_of(tmp_path, {"run.log": _looped(tail)}, ruleset)
    assert seen and seen[0].cause is Cause.ECC_MEMORY, seen


def test_a_retry_loops_verdict_is_its_last_attempts_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    tail = ["node06: [rank9]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 8.00 GiB. GPU 1 has a "
            "total capacity of 79.11 GiB of which 2.06 GiB is free.",
            "node06: [2025-02-20 14:01:02,000] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python3', '-u', "
            "'train.py', '--local_rank=1'] exits with return code = 1"]
    seen = incidents_of(tmp_path, {"run.log": _looped(tail, announce_next=True)}, ruleset)
    assert seen and seen[0].cause is Cause.CUDA_OOM, seen


def test_a_job_resubmitted_under_a_new_id_is_its_last_attempt(tmp_path: Path, ruleset: RuleSet) -> None:
    # the requeued job's outputs, then the resubmission's own (a new job id): it trained well
    files = {"slurm-4863886_0.out": _attempt(28, "hgx-b189", range(30000, 30600, 10),
                                             [x.format(node="hgx-b189") for x in _XID_DEATH]),
             "slurm-4865737.out": "0: Resuming from checkpoint at iteration 30500\n" + _attempt(
                 29, "hgx-b198", range(30500, 31100, 10),
                 ["0:   successfully saved checkpoint from iteration    31090", "srun finished with exit code 0"])}
    seen = incidents_of(tmp_path, files, ruleset)
    assert not seen, seen
