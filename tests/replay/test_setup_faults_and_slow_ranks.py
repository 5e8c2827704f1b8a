"""From the eighth session's development cases (AN-AZ): a rank late to its first collective or
slow writing a checkpoint is a straggler, not a hang; a monitored barrier whose wait cannot have
run out names a rank that failed; set-up faults (a port another process holds, a store that
cannot be reached, a socket NCCL cannot create, a CUDA call refused during a transport's set-up
or a graph capture) get their own causes; NCCL's RAS report and vLLM's executor speak for a
stuck or dead worker."""

from __future__ import annotations

from pathlib import Path

from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import causes_of, incidents_of, write_run

_UNIQUE_ID_TIMEOUT = ("[rank{r}]: torch.distributed.DistBackendError: [{r}] is setting up NCCL communicator and retrieving "
                      "ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: "
                      "Socket Timeout\n")
_WATCHDOG = ("[rank{r}]:[E430 05:09:48.828088908 ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught collective "
             "operation timeout: WorkNCCL(SeqNum=9387, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) "
             "ran for 600005 milliseconds before timing out.\n")


def test_ranks_that_waited_out_the_store_for_the_roots_nccl_id_name_a_late_root(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": "".join(_UNIQUE_ID_TIMEOUT.format(r=r) for r in (1, 2, 3))}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.STRAGGLER, 0)]
    assert "late to that collective" in got[0].explanation


def test_a_root_whose_store_connection_broke_is_not_called_late(tmp_path: Path, ruleset: RuleSet) -> None:
    reset = _UNIQUE_ID_TIMEOUT.replace("Socket Timeout", "Connection reset by peer")
    got = incidents_of(tmp_path, {"train.log": "".join(reset.format(r=r) for r in (1, 2, 3))}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.UNKNOWN, 0)]


def test_a_timeout_right_after_a_checkpoint_save_began_is_the_saving_rank_straggling(tmp_path: Path,
                                                                                       ruleset: RuleSet) -> None:
    log = ("INFO:torchtune.utils._logging:Saving checkpoint. This may take some time. Retrieving full model state dict...\n"
           "INFO:torchtune.utils._logging:Getting full model state dict took 109.51 secs\n"
           + _WATCHDOG.format(r=4) + _WATCHDOG.format(r=5))
    got = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.STRAGGLER, 0)]
    assert "checkpoint" in got[0].explanation
    assert not got[0].drain


def test_the_same_timeout_long_after_a_save_stays_a_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    steps = "".join(f"step {n} | loss 1.0\n" for n in range(20))
    log = "INFO: Saving checkpoint to /out/step_100\n" + steps + _WATCHDOG.format(r=4) + _WATCHDOG.format(r=5)
    assert causes_of(tmp_path, {"train.log": log}, ruleset) == [Cause.HANG]


def test_a_monitored_barrier_that_cannot_have_timed_out_names_a_failed_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    endless = "[rank0]: RuntimeError: [Rank 0]: Ranks 6 failed to pass monitoredBarrier in 180000000000 ms\n"
    got = incidents_of(tmp_path, {"train.log": endless}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.UNKNOWN, 6)]
    short = endless.replace("180000000000", "30000")
    got = incidents_of(tmp_path / "short", {"train.log": short}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.HANG, 6)]


def test_a_port_another_process_holds_is_a_network_fault_with_its_own_fix_and_no_drain(tmp_path: Path,
                                                                                        ruleset: RuleSet) -> None:
    log = ("[W socket.cpp:401] [c10d] The server socket has failed to bind to [::]:29400 (errno: 98 - Address already in use).\n"
           "[W socket.cpp:401] [c10d] The server socket has failed to bind to 0.0.0.0:29400 (errno: 98 - Address already in use).\n"
           "[E socket.cpp:435] [c10d] The server socket has failed to listen on any local network address.\n")
    report = replay_path(write_run(tmp_path, {"node1.log": log}), ruleset)
    [incident] = report.incidents
    assert incident.cause is Cause.NETWORK
    assert not incident.remediation.drain_node
    assert "29400" in incident.remediation.fix and "MASTER_PORT" in incident.remediation.fix


def test_a_store_that_cannot_be_reached_at_all_is_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("[W socket.cpp:601] [c10d] The IPv6 network addresses of (cernet2.net, 52533) cannot be retrieved (gai error: -5 - No address associated with hostname).\n"
           "[E socket.cpp:860] [c10d] The client socket has timed out after 1800s while trying to connect to (cernet2.net, 52533).\n")
    assert causes_of(tmp_path, {"train.log": log}, ruleset) == [Cause.NETWORK]


def test_cuda_failures_inside_nccl_are_read_by_what_failed(tmp_path: Path, ruleset: RuleSet) -> None:
    def cause_of(what: str, sub: str) -> Cause | None:
        line = f"heinzel135:151780:151928 [2] include/shm.h:42 NCCL WARN Cuda failure '{what}'\n"
        got = incidents_of(tmp_path / sub, {"train.log": line}, ruleset)
        return got[0].cause if got else None

    assert cause_of("invalid argument", "a") is Cause.UNKNOWN  # a transport's set-up refused: not a memory fault
    assert cause_of("dependency created on uncaptured work in another stream", "b") is Cause.PYTHON_EXCEPTION
    assert cause_of("device-side assert triggered", "c") is Cause.ILLEGAL_MEMORY_ACCESS
    assert cause_of("an illegal memory access was encountered", "d") is Cause.ILLEGAL_MEMORY_ACCESS


def test_setup_faults_of_sockets_and_topology_are_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    lines = {
        "a": "e66aa18dc444:3171:3171 [0] include/socket.h:311 WARN Socket creation failed : Address family not supported by protocol\n",
        "b": "[trainer0|0]:ncclSocketInit: connecting to address  with family 59936 is neither AF_INET(2) nor AF_INET6(10)\n",
        "c": "(RayWorkerVllm pid=7602) ERROR 04-07 00:57:46 ray_utils.py:45] Attribute busid of node nic not found\n",
        "d": "(RayWorkerWrapper pid=1890, ip=10.41.0.8) [rank8]:[E ProcessGroupGloo.cpp:144] Gloo connectFullMesh failed with [../third_party/gloo/gloo/transport/tcp/pair.cc:144] no error\n",
    }
    for sub, line in lines.items():
        assert causes_of(tmp_path / sub, {"train.log": line}, ruleset) == [Cause.NETWORK], sub


def test_a_vllm_worker_that_died_and_an_ncclras_mismatch(tmp_path: Path, ruleset: RuleSet) -> None:
    died = ("DEBUG 07-04 17:35:10 [shm_broadcast.py:456] No available shared memory broadcast block found in 60 second.\n"
            "ERROR 07-04 17:35:16 [multiproc_executor.py:140] Worker proc VllmWorker-1 died unexpectedly, shutting down executor.\n")
    got = incidents_of(tmp_path / "a", {"train.log": died}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.UNKNOWN, 1)]
    ras = ("#0-0 (fa93daea854b060b) MISMATCH\n"
           "  Communicator ranks have different AllGather operation counts\n"
           "  30 ranks have launched up to operation 640\n"
           "  2 ranks have launched up to operation 641\n")
    assert causes_of(tmp_path / "b", {"ncclras.txt": ras}, ruleset) == [Cause.HANG]


def test_a_log_that_ends_where_the_first_collective_begins_is_a_hang_at_start(tmp_path: Path, ruleset: RuleSet) -> None:
    start = ("initializing ddp: GLOBAL_RANK: 1, MEMBER: 2/2\n"
             "----------------------------------------------------------------------------------------------------\n"
             "distributed_backend=nccl\n"
             "All DDP processes registered. Starting ddp with 2 processes\n")
    assert causes_of(tmp_path / "a", {"train.log": start}, ruleset) == [Cause.HANG]
    trained = start + "".join(f"Epoch 0: {n}/100 loss=1.0\n" for n in range(1, 6))
    assert incidents_of(tmp_path / "b", {"train.log": trained}, ruleset) == []


def test_a_host_memory_report_at_the_very_end_is_a_host_oom(tmp_path: Path, ruleset: RuleSet) -> None:
    full = ("[2023-03-01 05:13:31,393] [INFO] [utils.py:834:see_memory_usage] CPU Virtual Memory:  used = 502.63 GB, "
            "percent = 99.8%\n*** Running generate\n")
    got = incidents_of(tmp_path / "a", {"train.log": full}, ruleset)
    assert [g.cause for g in got] == [Cause.HOST_OOM_KILL]
    assert not got[0].drain
    half = full.replace("99.8%", "45.1%")
    assert incidents_of(tmp_path / "b", {"train.log": half}, ruleset) == []


def test_a_job_cancelled_with_nothing_failing_before_is_stopped_from_outside(tmp_path: Path, ruleset: RuleSet) -> None:
    steps = "".join(f" iteration {n}/ 1000 | elapsed time per iteration (ms): 1200.0 | lm loss: 7.1\n" for n in range(80, 91))
    cancel = ("srun: Job step aborted: Waiting up to 62 seconds for job step to finish.\n"
              "slurmstepd: error: *** STEP 1809577.0 ON r6i5n1 CANCELLED AT 2021-05-23T08:46:02 ***\n"
              "slurmstepd: error: *** JOB 1809577 ON r6i5n1 CANCELLED AT 2021-05-23T08:46:02 ***\n")
    got = incidents_of(tmp_path / "a", {"job.out": steps + cancel}, ruleset)
    assert [g.cause for g in got] == [Cause.PREEMPTION]
    # a failure before the cancel is the incident's cause, not the cancel
    closed = "torch.distributed.elastic.rendezvous.api.RendezvousClosedError\n"
    got = incidents_of(tmp_path / "b", {"job.out": steps + closed + cancel}, ruleset)
    assert Cause.PREEMPTION not in [g.cause for g in got]


def test_sruns_task_line_names_the_oom_killed_task_over_the_steps_event(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("0: slurmstepd: error: Detected 1 oom_kill event in StepId=17109804.0. Some of the step tasks have been OOM Killed.\n"
           "srun: error: nid008576: task 2: Out Of Memory\n"
           "srun: Terminating StepId=17109804.0\n")
    got = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert [(g.cause, g.rank, g.node) for g in got] == [(Cause.HOST_OOM_KILL, 2, "nid008576")]


def test_ncclss_shared_memory_failures_say_so_and_advise_on_dev_shm(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("runner:202016:202235 [0] misc/shmutils.cc:88 NCCL WARN Error: failed to extend /dev/shm/nccl-WU88OE to "
           "9637892 bytes, error: No space left on device\n"
           "runner:202016:202235 [0] NCCL INFO transport/shm.cc:551 -> 2\n")
    report = replay_path(write_run(tmp_path, {"ci.log": log}), ruleset)
    [incident] = report.incidents
    assert incident.cause is Cause.UNKNOWN
    assert "/dev/shm" in incident.remediation.fix and not incident.remediation.drain_node


def test_an_exception_an_exit_handler_raised_is_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    tail = ("Traceback (most recent call last):\n"
            '  File "jax/_src/distributed.py", line 168, in shutdown\n'
            "    global_state.shutdown()\n"
            "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Deadline Exceeded\n")
    assert incidents_of(tmp_path / "a", {"train.log": "Error in atexit._run_exitfuncs:\n" + tail}, ruleset) == []
    got = incidents_of(tmp_path / "b", {"train.log": tail}, ruleset)  # the same traceback from the program: a failure
    assert [g.cause for g in got] == [Cause.PYTHON_EXCEPTION]


def test_xla_and_ray_say_a_replica_or_a_node_failed(tmp_path: Path, ruleset: RuleSet) -> None:
    xla = ("E0000 00:00:1743713172.513857  698835 pjrt_stream_executor_client.cc:3072] Execution of replica 0 failed: "
           "DEADLINE_EXCEEDED: GetKeyValue() timed out with key: devices\n")
    assert causes_of(tmp_path / "a", {"train.log": xla}, ruleset) == [Cause.UNKNOWN]
    ray = ("2022-02-15 16:53:52,096\tWARNING worker.py:1462 -- The node with node id: 8f205b and ip: 10.128.0.103 has "
           "been marked dead because the detector has missed too many heartbeats from it.\n")
    got = incidents_of(tmp_path / "b", {"output.log": ray}, ruleset)
    assert [(g.cause, g.node) for g in got] == [(Cause.UNKNOWN, "10.128.0.103")]


def test_pals_reports_a_crashed_rank_and_leaves_an_abort_to_the_rest(tmp_path: Path, ruleset: RuleSet) -> None:
    bus = "x3109c0s13b0n0.hsn.cm.polaris.alcf.anl.gov: rank 0 died from signal 7 and dumped core\n"
    got = incidents_of(tmp_path / "a", {"job.log": bus + bus.replace("rank 0 died from signal 7 and dumped core",
                                                                      "rank 3 died from signal 15")}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.CRASH_SIGNAL, 0)]
    watchdog = ("[rank25]:[E1130 10:30:00.000000 1 ProcessGroupNCCL.cpp:616] [Rank 25] Watchdog caught collective "
                "operation timeout: WorkNCCL(SeqNum=3, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran "
                "for 600100 milliseconds before timing out.\n"
                "x3203c0s25b1n0.hsn.cm.polaris.alcf.anl.gov: rank 25 died from signal 6 and dumped core\n")
    assert causes_of(tmp_path / "b", {"job.log": watchdog}, ruleset) == [Cause.HANG]  # the abort is the watchdog's teardown


def test_horovods_mismatched_collective_is_a_mismatch(tmp_path: Path, ruleset: RuleSet) -> None:
    line = ("[1,2]<stderr>:tensorflow.python.framework.errors_impl.FailedPreconditionError: Mismatched ALLREDUCE "
            "CPU/GPU device selection: One rank specified device GPU, but another rank specified device CPU.\n")
    assert causes_of(tmp_path, {"train.log": line}, ruleset) == [Cause.COLLECTIVE_MISMATCH]


def test_the_ipv6_binds_own_address_in_use_warning_is_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    # torch tries [::] first and goes on to IPv4; on a dual-stack host the IPv6 attempt reports the
    # port in use while the store listens fine (seen in healthy runs; bench/blind's generator has it)
    warn = "[W socket.cpp:464] [c10d] The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use).\n"
    steps = "".join(f"[rank0]: step {n} | loss 1.0\n" for n in range(5))
    assert incidents_of(tmp_path, {"train.log": warn + steps}, ruleset) == []


def test_a_held_ipv4_port_then_training_is_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    # c10d's rendezvous joins the existing store as a client when it cannot host it
    warn = "[W socket.cpp:401] [c10d] The server socket has failed to bind to 0.0.0.0:29400 (errno: 98 - Address already in use).\n"
    steps = "".join(f"[rank0]: step {n} | loss 1.0\n" for n in range(50))
    assert incidents_of(tmp_path, {"train.log": warn + steps}, ruleset) == []


def test_an_exit_handlers_exception_hides_no_other_ranks_exception(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("[rank0]:Error in atexit._run_exitfuncs:\n"
           "[rank0]:Traceback (most recent call last):\n"
           '[rank0]:  File "jax/_src/distributed.py", line 168, in shutdown\n'
           "[rank0]:RuntimeError: shutdown timed out\n"
           "[rank3]:Traceback (most recent call last):\n"
           '[rank3]:  File "train.py", line 10, in <module>\n'
           "[rank3]:ValueError: bad batch at step 6\n")
    got = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.PYTHON_EXCEPTION, 3)]


def test_a_save_reads_as_no_straggler_when_a_rank_failed_or_the_saver_waited_too(tmp_path: Path,
                                                                                 ruleset: RuleSet) -> None:
    save = "INFO: Saving checkpoint to /out/step_100\n"
    killed = ("E1130 01:48:05.770000 139 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) "
              "local_rank: 3 (pid: 1234) of binary: /usr/bin/python3\n")
    got = incidents_of(tmp_path / "a", {"train.log": save + _WATCHDOG.format(r=1) + _WATCHDOG.format(r=2) + killed},
                       ruleset)
    assert got and got[0].cause is not Cause.STRAGGLER
    everyone = "".join(_WATCHDOG.format(r=r) for r in range(4))  # rank 0, the saver, timed out as well
    assert causes_of(tmp_path / "b", {"train.log": save + everyone}, ruleset) == [Cause.HANG]


def test_a_full_host_memory_report_long_before_the_end_is_no_oom(tmp_path: Path, ruleset: RuleSet) -> None:
    full = ("[2023-03-01 05:13:31,393] [INFO] [utils.py:834:see_memory_usage] CPU Virtual Memory:  used = 502.63 GB, "
            "percent = 96.1%\n" + "".join(f"output {n}: generated 50 tokens\n" for n in range(30)))
    assert incidents_of(tmp_path, {"train.log": full}, ruleset) == []


def test_horovods_other_mismatch_messages(tmp_path: Path, ruleset: RuleSet) -> None:
    line = ("tensorflow.python.framework.errors_impl.FailedPreconditionError: Mismatched data types: One rank had "
            "type float32, but another rank had type float16.\n")
    assert causes_of(tmp_path, {"train.log": line}, ruleset) == [Cause.COLLECTIVE_MISMATCH]


def test_an_nccl_cuda_failure_no_rule_reads_is_still_an_incident(tmp_path: Path, ruleset: RuleSet) -> None:
    line = "node07:2231:2301 [3] init.cc:1614 NCCL WARN Cuda failure 'CUDA-capable device(s) is/are busy or unavailable'\n"
    assert causes_of(tmp_path, {"train.log": line}, ruleset) == [Cause.UNKNOWN]


def test_a_monitored_barrier_with_a_wait_of_more_digits_than_any_int_is_endless(tmp_path: Path,
                                                                                 ruleset: RuleSet) -> None:
    line = "[rank0]: RuntimeError: [Rank 0]: Ranks 6 failed to pass monitoredBarrier in 86399999999999999 ms\n"
    assert [(g.cause, g.rank) for g in incidents_of(tmp_path, {"train.log": line}, ruleset)] == [(Cause.UNKNOWN, 6)]


def test_a_cancelled_job_whose_tasks_srun_reports_terminated_is_still_stopped_from_outside(tmp_path: Path,
                                                                                             ruleset: RuleSet) -> None:
    log = ("".join(f" iteration {n}/ 1000 | lm loss: 7.1\n" for n in range(80, 91))
           + "slurmstepd: error: *** STEP 1809577.0 ON r6i5n1 CANCELLED AT 2021-05-23T08:46:02 ***\n"
           + "srun: error: r6i5n1: tasks 0-3: Terminated\n")
    assert causes_of(tmp_path, {"job.out": log}, ruleset) == [Cause.PREEMPTION]


def test_nccl_tests_header_is_a_hang_only_as_the_last_line(tmp_path: Path, ruleset: RuleSet) -> None:
    header = ("#       size         count    type    root     time   algbw   busbw  error     time   algbw   busbw  error\n"
              "#        (B)    (elements)                     (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n")
    assert causes_of(tmp_path / "a", {"nccl-tests.log": header}, ruleset) == [Cause.HANG]
    row = "           8             2   float       0    45.82    0.00    0.00    N/A    38.17    0.00    0.00    N/A\n"
    assert incidents_of(tmp_path / "b", {"nccl-tests.log": header + row}, ruleset) == []
