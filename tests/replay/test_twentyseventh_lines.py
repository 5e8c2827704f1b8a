"""The twenty-seventh session's cases: NVIDIA's Kubernetes device plugin reporting an Xid, a GPU
that nvidia-smi can no longer query, a Lightning child aborted by its own NCCL watchdog, a kernel
log exported with the job's lines, a PSM3 assertion, spawn's re-raised traceback, NCCL's abort
line naming a process's rank, gdb's backtrace of a stopped job, and a node's log named like a
rank's."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.sources.timestamps import find_year
from detector.types import Cause
from tests.support.replaying import causes_of, incidents_of

UUID = "GPU-7540a9b3-eeb9-1214-1526-f93c9ea826a8"


def _plugin(xid: int, tail: str = "; marking device as unhealthy.") -> str:
    return (f"I0810 19:09:41.000000       1 health.go:120] Starting health checks\n"
            f"I0810 19:09:42.123456       1 health.go:159] XidCriticalError: Xid={xid} on Device={UUID}{tail}\n")


def test_device_plugins_hardware_xid_is_a_gpu_fault(tmp_path: Path, ruleset: RuleSet) -> None:
    assert causes_of(tmp_path / "79", {"device-plugin.log": _plugin(79)}, ruleset)[:1] == [Cause.GPU_HARDWARE]


def test_device_plugins_memory_xid_is_an_ecc_error(tmp_path: Path, ruleset: RuleSet) -> None:
    older = _plugin(94, ", the device will go unhealthy.")
    assert causes_of(tmp_path / "94", {"device-plugin.log": older}, ruleset)[:1] == [Cause.ECC_MEMORY]


def test_device_plugins_nvlink_xid_is_an_nvlink_error(tmp_path: Path, ruleset: RuleSet) -> None:
    assert causes_of(tmp_path / "74", {"device-plugin.log": _plugin(74)}, ruleset)[:1] == [Cause.NVLINK]


def test_device_plugins_application_xid_drains_nothing(tmp_path: Path, ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path / "13", {"device-plugin.log": _plugin(13)}, ruleset)
    assert seen and seen[0].cause is Cause.ILLEGAL_MEMORY_ACCESS and not seen[0].drain, seen


def test_the_plugins_skip_of_an_application_xid_is_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    text = "2020/08/10 19:09:42 Skipping event {Etype:8 Edata:31 UUID:0xc000}\n"
    assert causes_of(tmp_path / "skip", {"device-plugin.log": text}, ruleset) == []


SMI_HEAD = ("Fri Jul 28 08:01:28 2023\n"
            "+-----------------------------------------------------------------------------+\n"
            "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
            "|===============================+======================+======================|\n")
SMI_GOOD = ("|   1  NVIDIA A40          On   | 00000000:1A:00.0 Off |                    0 |\n"
            "|  0%   26C    P8    12W / 300W |      0MiB / 46068MiB |      0%      Default |\n")


def test_a_gpu_nvidia_smi_shows_as_err_is_a_gpu_fault_on_that_gpu(tmp_path: Path, ruleset: RuleSet) -> None:
    text = (SMI_HEAD + "|   0  ERR!                On   | 00000000:19:00.0 Off |                 ERR! |\n"
            "|ERR!  ERR! ERR!    ERR! / ERR! |      0MiB / 46068MiB |    ERR!      Default |\n" + SMI_GOOD)
    seen = incidents_of(tmp_path / "err", {"nvidia-smi.txt": text}, ruleset)
    assert seen and seen[0].cause is Cause.GPU_HARDWARE and seen[0].drain, seen
    assert any("ERR!" in e for e in seen[0].evidence)


def test_a_healthy_nvidia_smi_table_is_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    assert causes_of(tmp_path / "ok", {"nvidia-smi.txt": SMI_HEAD + SMI_GOOD}, ruleset) == []


def test_ctime_dates_give_the_year_of_glog_stamps() -> None:
    assert find_year("Sun Dec 29 17:58:42 2024\n[E1229 20:29:13.1 x.cpp:1] y") == 2024
    assert find_year("Thu Aug  3 10:11:12 UTC 2023") == 2023
    assert find_year("Sun Dec 29 17:58:42") is None


def _lightning(rank_line: str) -> str:
    return ("Sun Dec 29 17:58:42 2024\n"
            "LOCAL_RANK: 2 - CUDA_VISIBLE_DEVICES: [0,1,2,3]\n"
            "Epoch 9:   0%|          | 1/1252 [00:02<58:30,  0.36it/s]\n"
            + rank_line
            + "[rank: 2] Child process with PID 13117 terminated with code -6. Forcefully terminating all other "
              "processes to avoid zombies\n")


def test_lightnings_sigabrt_after_the_ranks_own_watchdog_abort_is_the_watchdogs(tmp_path: Path, ruleset: RuleSet) -> None:
    abort = ("[rank2]:[F1229 20:37:13.091528310 ProcessGroupNCCL.cpp:1306] [PG ID 0 PG GUID 0(default_pg) Rank 2] "
             "Terminating the process after attempting to dump debug info, due to ProcessGroupNCCL watchdog hang.\n")
    seen = incidents_of(tmp_path / "wd", {"train.log": _lightning(abort)}, ruleset)
    assert [s.cause for s in seen] == [Cause.HANG], seen
    # without the watchdog's own abort before it, the child's SIGABRT is its crash
    assert causes_of(tmp_path / "plain", {"train.log": _lightning("")}, ruleset)[:1] == [Cause.CRASH_SIGNAL]


def test_a_kernels_build_date_is_not_the_logs_year() -> None:
    uname = "Linux node07 5.15.0-91-generic #101-Ubuntu SMP Tue Nov 14 13:30:08 UTC 2023 x86_64 GNU/Linux\n"
    assert find_year(uname + "2025-03-01 10:00:00 step 1\n") == 2025
    assert find_year(uname + "[E301 10:30:05.1 x.cpp:1] y\n") is None
    assert find_year(uname + "Sat Mar  1 10:00:00 UTC 2025\n") == 2025


def test_a_kernel_export_of_earlier_days_does_not_move_the_jobs_start(tmp_path: Path, ruleset: RuleSet) -> None:
    # a logging service's export: the node's kernel lines of two days before, then the job's;
    # the application Xid of an earlier job on another GPU is not this job's failure
    lines = [
        '{"time": "2024-07-08T07:32:20.292217Z", "log": "Jul  8 07:32:20 gpu-node-174 kernel: [4533537.115501] NVRM: '
        'Xid (PCI:0000:0f:00): 13, pid=57789, name=python3, Graphics SM Warp Exception on (GPC 3, TPC 1, SM 0): '
        'Out Of Range Address"}',
        *(f'{{"time": "2024-07-10T01:{m:02d}:00.000000Z", "log": "[rank{r}]: step {m} loss 1.2"}}'
          for m in range(10, 20) for r in range(2)),
        '{"time": "2024-07-10T15:05:54.656760Z", "log": "[rank1]:[E710 15:05:54.656759739 ProcessGroupNCCL.cpp:632] '
        '[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=72649, OpType=ALLREDUCE, '
        'NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600083 milliseconds before timing out."}',
    ]
    seen = incidents_of(tmp_path / "export", {"logging-read.json": "\n".join(lines) + "\n"}, ruleset)
    assert [s.cause for s in seen] == [Cause.HANG], seen


def test_a_psm3_assertion_is_a_crash_of_that_rank_on_that_host(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("$ mpirun -np 2 examples/cpu/cpu_allreduce_test\n"
            "[1705415958.879795729] machine:rank1.cpu_allreduce_test: Reading from remote process' memory failed. "
            "Disabling CMA support\n"
            "machine:rank1: Assertion failure at psm3/ptl_am/ptl.c:196: nbytes == req->req_data.recv_msglen\n")
    seen = incidents_of(tmp_path / "psm", {"console.log": text}, ruleset)
    assert seen and (seen[0].cause, seen[0].rank, seen[0].node) == (Cause.CRASH_SIGNAL, 1, "machine"), seen


def test_spawns_reraised_traceback_is_the_spawned_processs(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("Traceback (most recent call last):\n"
            '  File "main.py", line 165, in <module>\n'
            "    mp.spawn(main, nprocs=2, args=(config,))\n"
            "torch.multiprocessing.spawn.ProcessRaisedException: \n"
            "\n"
            "-- Process 1 terminated with the following error:\n"
            "Traceback (most recent call last):\n"
            '  File "/opt/conda/lib/python3.10/site-packages/torch/multiprocessing/spawn.py", line 69, in _wrap\n'
            "    fn(i, *args)\n"
            '  File "/home/user/main.py", line 29, in main\n'
            "    module=model,\n"
            "UnboundLocalError: local variable 'model' referenced before assignment\n")
    seen = incidents_of(tmp_path / "spawn", {"console.log": text}, ruleset)
    assert seen and (seen[0].cause, seen[0].rank) == (Cause.PYTHON_EXCEPTION, 1), seen
    # a later, separate error of the same file is not the spawned process's
    later = (text + "/usr/lib/python3.10/multiprocessing/resource_tracker.py:224: UserWarning: leaked semaphore\n"
             "Traceback (most recent call last):\n"
             '  File "/home/user/eval.py", line 12, in <module>\n'
             "RuntimeError: CUDA error: an illegal memory access was encountered\n")
    seen = incidents_of(tmp_path / "later", {"console.log": later}, ruleset)
    assert all(s.rank != 1 for s in seen if s.cause is Cause.ILLEGAL_MEMORY_ACCESS), seen


def test_ncclss_abort_line_names_the_rank_of_the_failing_process(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("g1064:11143:11194 [0] NCCL INFO Channel 00/0 : 0[c1000] -> 2[c9000] via P2P/IPC comm 0xf37f2e0 nRanks 08\n"
            "g1064:11146:11197 [3] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 10.1.1.72<45123> "
            "failed : Software caused connection abort\n"
            "g1064:11146:11197 [3] proxy.cc:912 NCCL WARN Proxy Call to rank 3 failed (Connect)\n"
            "g1064:11146:11146 [3] NCCL INFO comm 0xaa09f20 rank 3 nranks 8 cudaDev 3 busId ce000 - Abort COMPLETE\n")
    seen = incidents_of(tmp_path / "abort", {"console.log": text}, ruleset)
    assert seen and (seen[0].cause, seen[0].rank, seen[0].node) == (Cause.NETWORK, 3, "g1064"), seen


def test_gdbs_backtrace_of_a_stopped_job_is_a_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ('Thread 16 (Thread 0x7f083d7fe000 (LWP 1705707) "executionLoop"):\n'
            "#0  0x00007f13b2a0541d in syscall () from /lib64/libc.so.6\n"
            "#1  0x00007f1431c6674d in cudaStreamQuery () from /opt/lib/libplugin.so\n"
            "#2  0x00007f1431bdb43b in AllgatherPlugin::enqueue() () from /opt/lib/libplugin.so\n"
            'Thread 1 (Thread 0x7f13b5d84740 (LWP 1705600) "python3"):\n'
            "#0  0x00007f13b2a0541d in pthread_cond_wait () from /lib64/libc.so.6\n")
    assert causes_of(tmp_path / "gdb", {"rank3.log": text}, ruleset)[:1] == [Cause.HANG]


def test_gdbs_report_of_a_crash_stays_a_crash(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ('Thread 1 "python" received signal SIGSEGV, Segmentation fault.\n'
            "[Switching to Thread 0x7fffe4dff640 (LWP 3342)]\n"
            'Thread 1 (Thread 0x7ffff7d8a740 (LWP 3342) "python"):\n'
            "#0  0x00007fffe5a1b2c3 in ncclProxyConnect () from /usr/lib/libnccl.so.2\n")
    assert causes_of(tmp_path / "segv", {"gdb.txt": text}, ruleset)[:1] == [Cause.CRASH_SIGNAL]


def test_a_nodes_log_named_like_a_rank_holds_several_ranks(tmp_path: Path, ruleset: RuleSet) -> None:
    # a Kubernetes pod's log "worker-1.log": NCCL lines of several processes, so not rank 1's;
    # the rank whose own watchdog timed out closed its connections in its teardown: no culprit
    host = "t-20240517230118-grg2t-worker-1"
    text = ("[E ProcessGroupNCCL.cpp:475] [Rank 15] Watchdog caught collective operation timeout: WorkNCCL(SeqNum="
            "96383, OpType=_ALLGATHER_BASE, NumelIn=88200, NumelOut=5644800, Timeout(ms)=7200000) ran for 7200371 "
            "milliseconds before timing out.\n"
            + "".join(f"{host}:{5123 + 2 * i}:{5271 - i} [{2 * i}] NCCL INFO [Service thread] Connection closed by "
                      "localRank 7\n" for i in range(3))
            + f"{host}:5130:5275 [7] NCCL INFO [Service thread] Connection closed by localRank 7\n"
            + f"{host}:5130:5206 [0] NCCL INFO comm 0x738ea950 rank 15 nranks 64 cudaDev 7 busId e4000 - Abort COMPLETE\n"
            + "[E ProcessGroupNCCL.cpp:489] Some NCCL operations have failed or timed out. Due to the asynchronous "
              "nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.\n")
    seen = incidents_of(tmp_path / "pod", {"worker-1.log": text}, ruleset)
    assert seen and seen[0].cause is Cause.HANG and seen[0].rank is None, seen


def test_a_kernel_segfault_of_a_vllm_workers_pid_is_that_workers_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    pod = ("(VllmWorker rank=6 pid=9490) INFO 05-17 10:05:49 [parallel_state.py:1076] rank 6 in world size 8 is "
           "assigned as DP rank 0, PP rank 0, TP rank 6, EP rank 6\n"
           "(VllmWorker rank=7 pid=9493) INFO 05-17 10:05:49 [parallel_state.py:1076] rank 7 in world size 8 is "
           "assigned as DP rank 0, PP rank 0, TP rank 7, EP rank 7\n"
           "(VllmWorker rank=7 pid=9493) *** SIGSEGV received at time=1747482632 on cpu 87 ***\n"
           "(VllmWorker rank=7 pid=9493) PC: @     0x7ffc921e34c2  (unknown)  vllm::cross_device_reduce_1stage<>()\n"
           "(EngineCore_0 pid=9425) ERROR 05-17 11:50:32 [multiproc_executor.py:140] Worker proc VllmWorker-7 died "
           "unexpectedly, shutting down executor.\n")
    kernel = ("May 17 11:50:32 gpu-168 kernel: VLLM::Worker[9493]: segfault at 4608b6 ip 00007ff6ec7365aa sp "
              "00007ff24081d443 error 4 in libcuda.so.570.124.06[7ff6ec200000+5e2000]\n")
    seen = incidents_of(tmp_path / "vllm", {"pod-logs/inference.log": pod, "node/gpu-168/journalctl-k.txt": kernel},
                        ruleset)
    assert seen and (seen[0].cause, seen[0].rank) == (Cause.CRASH_SIGNAL, 7), seen


def test_vllms_rank_assignment_places_a_ray_workers_error_on_its_global_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    lines = [f"(RayWorkerWrapper pid={66400 + r}, ip=10.34.211.{124 + r // 8}) INFO 09-02 10:05:26 "
             f"[parallel_state.py:1076] rank {r} in world size 16 is assigned as DP rank 0, PP rank {r // 8}, "
             f"TP rank {r % 8}, EP rank {r % 8}" for r in range(16)]
    lines += ["ray.exceptions.RayTaskError(OutOfMemoryError): ray::RayWorkerWrapper.execute_model_spmd() "
              "(pid=66410, ip=10.34.211.125, actor_id=4fa3d3ce330fd4563035007c228d6546, repr=<vllm.executor.ray_utils."
              "RayWorkerWrapper object at 0x7fee5c106d30>)",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/worker/model_runner.py", line 1420, in execute_model',
              "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.50 GiB. GPU 2 has a total capacity of "
              "79.11 GiB of which 1007.48 MiB is free."]
    seen = incidents_of(tmp_path / "ray", {"serve_driver.log": "\n".join(lines) + "\n"}, ruleset)
    assert seen and (seen[0].cause, seen[0].rank) == (Cause.CUDA_OOM, 10), seen


def test_kueues_eviction_of_the_workload_is_a_preemption(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("Status:\n  Conditions:\n"
            "    Last Transition Time:  2025-02-04T19:06:25Z\n"
            "    Message:               Preempted to accommodate a workload (UID: d34468c2-1ce5-47cd-a61d-689be78b6121) "
            "due to prioritization in the ClusterQueue\n"
            "    Reason:                Preempted\n    Status:                True\n    Type:                  Evicted\n")
    assert causes_of(tmp_path / "kueue", {"describe-workload.txt": text}, ruleset)[:1] == [Cause.PREEMPTION]


def _tf_worker(index: int, tail: str) -> str:
    return (f"===== trainer-worker-{index} =====\n"
            f"2025-01-26 07:56:2{index}.000844: I tensorflow/core/distributed_runtime/rpc/grpc_server_lib.cc:457] "
            f"Started server with target: grpc://trainer-worker-{index}:2222\n" + tail)


TF_LOST = ("Traceback (most recent call last):\n"
           '  File "/app/train_mwms.py", line 118, in <module>\n'
           "    model.fit(dist_ds, epochs=args.epochs, steps_per_epoch=steps, callbacks=callbacks)\n"
           "tensorflow.python.framework.errors_impl.UnavailableError: Collective ops is aborted by: Task "
           "/job:worker/replica:0/task:2 heartbeat timeout. This indicates that the remote task has failed, got "
           "preempted, or crashed unexpectedly.\n")


def test_tensorflows_termination_notice_is_the_preemption_its_peers_lost(tmp_path: Path, ruleset: RuleSet) -> None:
    text = (_tf_worker(0, TF_LOST) + _tf_worker(1, TF_LOST)
            + _tf_worker(2, "INFO:tensorflow:Received termination notice. Checkpointing and exiting... "
                            "(PreemptionCheckpointHandler)\n"))
    assert causes_of(tmp_path / "tf", {"job.log": text}, ruleset)[:1] == [Cause.PREEMPTION]


def test_a_tensorflow_worker_that_lost_its_peer_did_not_fail_first(tmp_path: Path, ruleset: RuleSet) -> None:
    # only the peers' reports: no exception of their own is the cause
    text = _tf_worker(0, TF_LOST) + _tf_worker(1, TF_LOST)
    seen = causes_of(tmp_path / "tf", {"job.log": text}, ruleset)
    assert seen and Cause.PYTHON_EXCEPTION not in seen, seen


def test_gaudis_lost_accelerator_is_a_hardware_fault_on_its_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    files = {
        "logs/job-0.out": ("[2024-10-24 04:10:50,779] [INFO] [logging.py:128:log_dist] [Rank 0] step=3856, skipped=0\n"
                           "RuntimeError: [Rank:0] FATAL ERROR :: MODULE:PT_HCCL Collective call failed: hcclAllReduce "
                           "returned hcclInternalError (status 5)\n"
                           "[Rank:0] Habana exception raised from wait at process_group_hccl_base.cpp:522\n"),
        "logs/job-39.out": ("RuntimeError: [Rank:39] FATAL ERROR :: MODULE:PT_DEVICE Device acquire failed. "
                            "synStatus=synStatus 8 [Device reset].\n"
                            "[Rank:39] Habana exception raised from wait at hpu_stream.cpp:105\n"),
        "nodes/compute128/dmesg-T.txt": ("[Thu Oct 24 04:12:56 2024] habanalabs hl3: Device heartbeat failed! PCI link is "
                                         "broken\n[Thu Oct 24 04:12:56 2024] habanalabs hl3: Going to reset device\n"
                                         "[Thu Oct 24 04:13:02 2024] habanalabs hl3: Failed to reset device, error -110\n"),
    }
    seen = incidents_of(tmp_path / "gaudi", files, ruleset)
    assert seen and seen[0].cause is Cause.GPU_HARDWARE and seen[0].node == "compute128", seen
    assert all(s.node != "Rank" for s in seen), seen  # (Gaudi's "[Rank:0]" is no host)


def test_cray_mpichs_failed_ofi_init_is_a_network_failure_of_that_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("MPICH ERROR [Rank 4] [job id 2853270.0] [Fri Dec 13 13:41:36 2024] [frontier05084] - Abort(2665871) "
            "(rank 4 in comm 0): Fatal error in PMPI_Init_thread: Other MPI error, error stack:\n"
            "MPIR_Init_thread(170).................:\n"
            "MPID_Init(501)........................:\n"
            "MPIDI_OFI_mpi_init_hook(580)..........:\n"
            "open_fabric(1519).....................:\n"
            "MPIDI_CRAY_ofi_get_nic_index(1801)....: OFI invalid value for environment variable\n")
    seen = incidents_of(tmp_path / "mpich", {"console.log": text}, ruleset)
    assert seen and (seen[0].cause, seen[0].rank, seen[0].node) == (Cause.NETWORK, 4, "frontier05084"), seen
    # an abort the program asked for is no network failure
    asked = ("MPICH ERROR [Rank 4] [job id 2853270.0] [Fri Dec 13 13:41:36 2024] [frontier05084] - Abort(1) "
             "(rank 4 in comm 0): application called MPI_Abort(MPI_COMM_WORLD, 1) - process 4\n")
    assert Cause.NETWORK not in causes_of(tmp_path / "abort", {"console.log": asked}, ruleset)


def test_an_ibstat_port_down_and_polling_is_a_network_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    def ibstat(state: str, physical: str) -> str:
        return ("$ ibstat mlx5_7\nCA 'mlx5_7'\n\tCA type: MT4129\n\tNumber of ports: 1\n\tPort 1:\n"
                f"\t\tState: {state}\n\t\tPhysical state: {physical}\n\t\tRate: 10\n\t\tLink layer: InfiniBand\n")
    assert causes_of(tmp_path / "down", {"ibstat.txt": ibstat("Down", "Polling")}, ruleset)[:1] == [Cause.NETWORK]
    assert causes_of(tmp_path / "up", {"ibstat.txt": ibstat("Active", "LinkUp")}, ruleset) == []


def test_one_rank_restarted_in_its_own_log_keeps_its_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    # a per-rank file a requeued job appended to: one device under two pids is still one rank
    def init(pid: int) -> str:
        return (f"node07:{pid}:{pid} [3] NCCL INFO comm 0x55d0c8a0 rank 3 nranks 4 cudaDev 3 busId 86000 commId "
                "0x1f5e3c2a9b7d4e01 - Init COMPLETE\n")
    text = (init(1000) + "step 10 loss 1.2\n" + init(2000) + "step 11 loss 1.1\n"
            "RuntimeError: CUDA error: an illegal memory access was encountered\n")
    seen = incidents_of(tmp_path / "restart", {"rank3.log": text}, ruleset)
    assert seen and (seen[0].cause, seen[0].rank) == (Cause.ILLEGAL_MEMORY_ACCESS, 3), seen
