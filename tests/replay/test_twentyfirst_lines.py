"""The twenty-first session's cases: a process's death on one node and its peers' "got completion from
peer with error" on others a moment later (the death is the failure, whatever node printed first);
ROCm's allocator and runtime errors, PyTorch's own fatal-signal handler and a Ray task that raised
a torch.distributed communication error; a job's start read where its first lines hold no stamp
(date(1)'s output, thousands of NCCL lines before the first stamp) and srun's labels past a batch
script's preamble; a host NIC's or a bond's link going down, and a link flap in a run that trained
on after it; a node whose clock is off, read from the step lines."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import causes_of, incidents_of

_IB = ("{host}:{pid}:{tid} [{dev}] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer "
       "10.71.24.129<35133> with status=12 opcode=1 len=0 vendor err 129 localGid ::ffff:10.71.{d}.1 remoteGids "
       "::ffff:10.71.24.129 hca mlx5_0\n")


def _step(host: str, rank: int, stamp: str) -> str:
    return f"{stamp}Z [rank{rank}]: step 5120 | loss 2.31 | step_ms 812.4\n"


def test_a_peer_s_ib_error_seconds_after_an_exception_is_collateral(tmp_path: Path, ruleset: RuleSet) -> None:
    # rank 25 raises at :46; ranks on two other nodes report the peer gone at :48 (their own stamps)
    dead = (_step("w2", 25, "2025-02-21T23:26:45.100")
            + "2025-02-21T23:26:46.130Z [rank25]: Traceback (most recent call last):\n"
            + '2025-02-21T23:26:46.130Z [rank25]:   File "/work/train.py", line 48, in __call__\n'
            + "2025-02-21T23:26:46.130Z [rank25]: KeyError: 'attention_mask'\n")
    peers = {
        f"worker-{n}.log": _step(f"w{n}", rank, "2025-02-21T23:26:45.300")
        + f"2025-02-21T23:26:{48 + n % 2}.271Z " + _IB.format(host=f"pt-train-worker-{n}", pid=4497 + n, tid=4520 + n,
                                                                dev=rank % 8, d=n)
        for n, rank in ((0, 6), (1, 14))}
    got = incidents_of(tmp_path, {"worker-2.log": dead, **peers}, ruleset)
    assert [(i.cause, i.rank) for i in got][:1] == [(Cause.PYTHON_EXCEPTION, 25)]


def test_an_ib_error_before_any_death_is_still_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    # the link fails first; a rank's exception comes a minute later (outside the clock-skew window)
    peers = {
        "worker-0.log": _step("w0", 6, "2025-02-21T23:26:45.300")
        + "2025-02-21T23:26:48.271Z " + _IB.format(host="pt-train-worker-0", pid=4497, tid=4520, dev=6, d=0),
        "worker-2.log": _step("w2", 25, "2025-02-21T23:26:45.100")
        + "2025-02-21T23:27:50.130Z [rank25]: Traceback (most recent call last):\n"
        + "2025-02-21T23:27:50.130Z [rank25]: KeyError: 'attention_mask'\n",
    }
    assert causes_of(tmp_path, peers, ruleset)[:1] == [Cause.NETWORK]


def test_unstamped_peer_errors_after_a_borrowed_stamp_do_not_outrun_a_death(tmp_path: Path, ruleset: RuleSet) -> None:
    # NCCL's lines carry no stamp: they borrow their file's last (a step line a second before the
    # other node's segfault), though they were printed after it
    dead = ("2025-04-11 09:13:26,039 INFO [rank 182] wrote shard step_0050500/__182_0.distcp (0.06 GB)\n"
            "Fatal Python error: Segmentation fault\n\n"
            "Current thread 0x00007f071d00c501 (most recent call first):\n"
            '  File "/work/llm-train/data/tokenizer_ext.py", line 88 in encode_batch\n')
    peer = ("2025-04-11 09:13:25,721 INFO [rank 26] step 50500 | loss 1.92 | step_ms 790.1\n"
            + _IB.format(host="pt-train-worker-2", pid=337133, tid=338876, dev=2, d=2))
    got = incidents_of(tmp_path, {"worker-21.log": dead, "worker-2.log": peer}, ruleset)
    assert [i.cause for i in got][:1] == [Cause.CRASH_SIGNAL]

def test_an_unstamped_peer_error_is_placed_by_the_next_line_its_file_stamped(tmp_path: Path, ruleset: RuleSet) -> None:
    # rank 12's NCCL line borrows a stamp from 11:33:19 but its file stamps nothing else until
    # 11:34:41: rank 6's illegal access at 11:34:35 on another node may have come first, and did
    peer = ("2024-03-23 11:33:19,510 INFO [rank 12] data: opened shard 00651-of-04096\n"
            + _IB.format(host="vm000001", pid=71444, tid=73187, dev=4, d=5)
            + "[rank12]:[E323 11:34:41.540296 ProcessGroupNCCL.cpp:1595] [PG ID 0 PG GUID 0(default_pg) Rank 12] "
              "Process group watchdog thread terminated with exception: NCCL error: remote process exited or there "
              "was a network error, NCCL version 2.21.5\n")
    dead = ("2024-03-23 11:34:30,000 INFO [rank 6] data: opened shard 00652-of-04096\n"
            "[rank6]:2024-03-23 11:34:35,721 RuntimeError: CUDA error: an illegal memory access was encountered\n")
    got = incidents_of(tmp_path, {"user_logs/std_log_process_12.txt": peer, "user_logs/std_log_process_6.txt": dead},
                       ruleset)
    assert [(i.cause, i.rank) for i in got][:1] == [(Cause.ILLEGAL_MEMORY_ACCESS, 6)]


def test_a_crash_printed_before_its_peers_errors_in_one_file_is_the_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    # a combined log: glibc aborts a process (no rank, no stamp), then every node's NCCL reports
    # the peer gone, with the stamps those lines borrow from the step lines before them
    # (the crash's lines come after 70 unstamped ones: no stamp to borrow; the peers' errors
    # come after stamped lines of other ranks, whose stamps they borrow)
    steps = "".join(f"2024-09-10 06:14:{30 + r % 3:02d},004 INFO [rank {r}] step 1630 | loss 2.0 | step_ms 900.0\n"
                    for r in range(16))
    memory = "".join(f"[rank {r % 16}] step 1630: cuda max_allocated=67.89GiB reserved=72.26GiB\n" for r in range(70))
    later = "".join(f"2024-09-10 06:14:40,004 INFO [rank {r}] saving metrics\n" for r in (3, 7, 11))
    out = (steps + memory + "corrupted size vs. prev_size\nFatal Python error: Aborted\n\n"
           "srun: error: nid002371: task 14: Aborted (core dumped)\n" + later
           + "".join(_IB.format(host=f"nid00237{n}", pid=65402 + n, tid=65673 + n, dev=n, d=n) for n in range(4)))
    assert causes_of(tmp_path, {"slurm-2774065.out": out}, ruleset)[:1] == [Cause.CRASH_SIGNAL]


def test_rocm_s_allocator_running_out_is_the_device_s_memory(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("c05r2n11: [2023-05-04 16:21:36,538] [INFO] [launch.py:123:main] dist_world_size=32\n"
           "c05r2n11: RuntimeError: HIP out of memory. Tried to allocate 576.00 MiB (GPU 3; 15.98 GiB total capacity; "
           "15.83 GiB already allocated; 0 bytes free; 15.84 GiB reserved in total by PyTorch)\n")
    assert causes_of(tmp_path, {"train.log": log}, ruleset)[:1] == [Cause.CUDA_OOM]


def test_hip_s_error_names_read_as_cuda_s(tmp_path: Path, ruleset: RuleSet) -> None:
    log = "[rank1]: RuntimeError: HIP error: hipErrorIllegalAddress\n"
    assert causes_of(tmp_path, {"train.log": log}, ruleset)[:1] == [Cause.ILLEGAL_MEMORY_ACCESS]


def test_c10_s_fatal_signal_handler_reports_a_crash(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("SIGSEGV(11), PID: 2151, Thread 2151:\n"
           " frame #0: c10::FatalSignalHandler::stacktraceSignalHandler(bool) + 0x8a (0x7f02 in libc10.so)\n"
           "frame #1: <unknown function> + 0x42520 (0x7f02 in /lib/x86_64-linux-gnu/libc.so.6)\n")
    assert causes_of(tmp_path, {"train.log": log}, ruleset)[:1] == [Cause.CRASH_SIGNAL]


def test_c10_s_abort_report_alone_is_a_crash_at_low_confidence(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("SIGABRT(6), PID: 4119976, Thread 4119976:\n"
           " frame #0: c10::FatalSignalHandler::stacktraceSignalHandler(bool) + 0x8a (0x7f02 in libc10.so)\n"
           "frame #2: ccl_request::is_completed() const + 0xb (0x7f01 in libccl.so.1)\n")
    got = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert [i.cause for i in got] == [Cause.CRASH_SIGNAL]
    assert got[0].confidence < 0.5


def test_a_ray_task_s_distributed_error_is_no_exception_of_its_own(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ("ray.exceptions.RayTaskError(DistBackendError): ray::_RayTrainWorker__execute.get_next() (pid=192, "
           "ip=10.0.0.19, actor_id=a3e4eb7bfa5c10d44e303ba301000000, repr=<RayTrainWorker object at 0x7fbf>)\n"
           '  File "/home/ray/anaconda3/lib/python3.9/site-packages/ray/train/_internal/worker_group.py", line 33\n')
    assert Cause.PYTHON_EXCEPTION not in causes_of(tmp_path, {"driver.log": log}, ruleset)
    other = ("ray.exceptions.RayTaskError(ValueError): ray::TrainTrainable.train() (pid=1042, ip=10.0.0.7, "
             "actor_id=37d8, repr=TorchTrainer)\n")
    assert causes_of(tmp_path / "b", {"driver.log": other}, ruleset)[:1] == [Cause.PYTHON_EXCEPTION]


def test_date_s_output_is_a_start_not_a_stamp() -> None:
    from detector.sources.timestamps import date_output, parse_timestamp

    start = date_output("Tue Jul  8 05:17:21 UTC 2025")
    assert start is not None and (start.day, start.hour) == (8, 5)
    assert date_output("Tue Jul  8 05:17:21 UTC") is None
    assert date_output("Tue Jul  8 05:17:21 UTC 2025 and then some") is None
    # (its zone's name is not trusted: the lines after it do not take its time)
    assert parse_timestamp("Tue Jul  8 05:17:21 UTC 2025") is None


def test_a_batch_script_s_date_is_the_job_s_start(tmp_path: Path, ruleset: RuleSet) -> None:
    # a GPU that fell off the bus 13 hours before the script printed its start: an earlier job's
    out = ("+ date\nTue Jul  8 05:17:21 UTC 2025\nSLURM_JOB_ID=3210347\n"
           + "".join(f" {r}: nid005048:8979{r}:8979{r} [{r}] NCCL INFO Bootstrap : Using eth0:10.145.20.49<0>\n"
                     for r in range(8))
           + " 3: [rank3]: RuntimeError: DataLoader worker (pid(s) 40112) exited unexpectedly\n")
    kern = "[Mon Jul  7 16:03:01 2025] NVRM: Xid (PCI:0000:18:00): 79, pid=29829, name=python, GPU has fallen off the bus.\n"
    got = causes_of(tmp_path, {"slurm-3210347.out": out, "node-logs/nid005048/dmesg-T.txt": kern}, ruleset)
    assert Cause.GPU_HARDWARE not in got


def test_a_job_s_start_is_read_past_thousands_of_unstamped_lines(tmp_path: Path, ruleset: RuleSet) -> None:
    # an NVLink fault a day before the job's first stamped line, which comes after 9,000 lines of
    # NCCL's untimed start-up output: an earlier job's, not this one's failure
    init = "".join(f"[1,{r % 64}]<stdout>:gpu-h100-045:4215{r % 64:02d}:4239{r % 64:02d} [{r % 8}] NCCL INFO Channel "
                   f"{r % 32:02d}/0 : {r % 64}[{r % 8}] -> {(r + 1) % 64}[{(r + 1) % 8}] via P2P/IPC/read\n"
                   for r in range(9000))
    log = (init + "[1,61]<stderr>:2025-09-06 08:32:23,796 INFO [rank 61] data: opened shard 00198-of-04096\n"
           + "".join(f"[1,{r}]<stderr>:2025-09-06 09:{10 + r % 40}:00,000 INFO [rank {r}] step {r} loss 2.1\n"
                     for r in range(8)))
    kern = ("2025-09-05T04:18:44,347714+00:00 NVRM: Xid (PCI:0000:5d:00): 74, pid=56189, name=pt_main_thread, "
            "NVLink: fatal error detected on link 7(0x0, 0x0, 0x0, 0x0, 0x10000, 0x0, 0x0)\n")
    got = causes_of(tmp_path, {"upernet.o3570512": log, "dmesg/gpu-h100-058/dmesg-iso.txt": kern}, ruleset)
    assert Cause.NVLINK not in got


def test_srun_labels_are_read_past_a_batch_script_s_preamble(tmp_path: Path, ruleset: RuleSet) -> None:
    # 60 lines of the script's environment, then the labelled output of 256 tasks (each label
    # seen once before any comes back), then rank 97's exception and its peers' IB errors
    preamble = "".join(f"export VAR_{i}=value_{i}\n" for i in range(60))
    start = "".join(f"{t:3d}: [2024-04-06 08:52:14,911] [INFO] [real_accelerator.py:203:get_accelerator] cuda\n"
                    for t in range(256))
    tail = (" 97: Traceback (most recent call last):\n"
            ' 97:   File "/work/train.py", line 402, in train_step\n'
            " 97: FloatingPointError: Loss is nan at step 37146, stopping\n"
            "srun: error: hgx285: task 97: Exited with exit code 1\n"
            "100: hgx285:407360:408148 [4] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer "
            "172.19.1.49<38816> with error 12, opcode 0, len 0, vendor err 129 (Recv)\n")
    got = incidents_of(tmp_path, {"slurm-2342973.out": preamble + start + tail}, ruleset)
    assert [(i.cause, i.rank) for i in got][:1] == [(Cause.PYTHON_EXCEPTION, 97)]


def test_an_onboard_nic_s_link_down_is_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    kern = ("Mar 30 10:20:01 cn-g062 kernel: [4443352.100000] perf: interrupt took too long (2504 > 2500)\n"
            "Mar 30 10:35:46 cn-g062 kernel: [4444237.111599] eno1: Link is Down\n")
    log = ("[1,12]<stderr>:[rank12]:[E330 10:45:47.227531 1220 ProcessGroupNCCL.cpp:632] [Rank 12] Watchdog caught "
           "collective operation timeout: WorkNCCL(SeqNum=88121, OpType=ALLREDUCE, NumelIn=262144, NumelOut=262144, "
           "Timeout(ms)=600000) ran for 600031 milliseconds before timing out.\n")
    got = incidents_of(tmp_path, {"dmesg/cn-g062/kern.log": kern, "job.o5331475": log}, ruleset)
    assert [(i.cause, i.node) for i in got][:1] == [(Cause.NETWORK, "cn-g062")]


def test_a_bond_without_any_active_interface_is_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    kern = ("[Tue Jun 18 01:05:58 2024] bond0: (slave enp1s0f0): link status definitely down, disabling slave\n"
            "[Tue Jun 18 01:05:58 2024] bond0: now running without any active interface!\n")
    assert causes_of(tmp_path, {"node-logs/node7/dmesg-T.txt": kern}, ruleset)[:1] == [Cause.NETWORK]


def test_a_link_flap_in_a_run_that_trained_on_for_hours_is_no_incident(tmp_path: Path, ruleset: RuleSet) -> None:
    kern = ("[Mon Jul  7 16:27:20 2025] mlx5_core 0000:ca:00.0 ibp75s0: Link down\n"
            "[Mon Jul  7 16:27:21 2025] mlx5_core 0000:ca:00.0 ibp75s0: Link up\n")
    steps = "".join(f"2025-07-07 {16 + m // 60}:{m % 60:02d}:00,000 INFO [rank 0] step {m} | loss 2.0 | step_ms 900.0\n"
                    for m in range(0, 120, 2))
    files = {"node-logs/ip-10-201-30-114/dmesg-T.txt": kern, "logs/train-0.out": steps}
    assert causes_of(tmp_path, files, ruleset) == []
    # the same flap with the ranks' last lines a minute after it: the job may have hung on it
    short = "".join(f"2025-07-07 16:{m:02d}:00,000 INFO [rank 0] step {m} | loss 2.0 | step_ms 900.0\n" for m in range(28))
    assert causes_of(tmp_path / "b", {**files, "logs/train-0.out": short}, ruleset)[:1] == [Cause.NETWORK]


def _node_steps(ranks: range, ahead_s: int, last: int) -> str:
    out = []
    for step in range(100, last + 1):
        t = 1000 + step * 2 + ahead_s  # every rank finishes a step at the same moment, on the true clock
        out.extend(f"[rank{r}]:2026-03-01 10:{t // 60 % 60:02d}:{t % 60:02d},000 INFO step {step} | loss 2.0 | "
                   f"step_ms 2000.0\n" for r in ranks)
    return "".join(out)


def test_a_node_s_clock_ahead_is_read_from_the_step_lines(tmp_path: Path, ruleset: RuleSet) -> None:
    # node c's clock is 200 s ahead: its rank's exception (true 10:20:53) reads 10:24:13, after
    # node b's IB error (10:21:00); on one clock the exception came first
    files = {
        "node01/train.log": _node_steps(range(0, 2), 0, 120),
        "node02/train.log": _node_steps(range(2, 4), 0, 120)
        + "node02:4497:4520 [2] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer 10.0.0.3<35133> "
          "with status=12 opcode=1 len=0 vendor err 129\n".replace("node02:", "[rank2]:2026-03-01 10:21:00,000 node02:"),
        "node03/train.log": _node_steps(range(4, 6), 200, 120)
        + "[rank4]:2026-03-01 10:24:13,000 Traceback (most recent call last):\n"
        + "[rank4]:2026-03-01 10:24:13,000 KeyError: 'attention_mask'\n",
    }
    got = incidents_of(tmp_path, files, ruleset)
    assert [(i.cause, i.rank) for i in got][:1] == [(Cause.PYTHON_EXCEPTION, 4)]


def test_clock_offsets_need_agreeing_steps() -> None:
    from detector.pipeline.clocks import node_clock_offsets
    from detector.stats.model import StepSample

    def samples(node: str, offset: float, drift: float = 0.0) -> list[StepSample]:
        return [StepSample(rank="abcd".index(node) * 8, node=node, time=1000.0 + 2 * s + offset + drift * s, step=s)
                for s in range(20)]

    ahead = node_clock_offsets(samples("a", 0) + samples("b", 0) + samples("c", 0) + samples("d", 120.0))
    assert set(ahead) == {"d"} and abs(ahead["d"] - 120.0) < 1e-6
    # a node that slows step by step drifts away: no one offset fits it
    assert node_clock_offsets(samples("a", 0) + samples("b", 0) + samples("c", 0) + samples("d", 0, drift=3.0)) == {}
    # two nodes: which one is off cannot be told; the one of the lower ranks is read as right
    assert node_clock_offsets(samples("a", 0) + samples("d", 120.0)) == {"d": 120.0}
    assert node_clock_offsets(samples("a", 120.0) + samples("d", 0)) == {"d": -120.0}
    assert node_clock_offsets(samples("a", 0) + samples("d", 0, drift=3.0)) == {}


def test_slurm_s_cancelled_at_places_an_unstamped_failure_before_later_stamped_ones(tmp_path: Path, ruleset: RuleSet) -> None:
    # rank 10's OOM has no stamp; Slurm's line after it says when the step was cancelled, before
    # rank 19's stamped watchdog error (its peer gone) and its abort
    out = ("".join(f"{t:3d}: 04/28 14:{40 + t % 10}:00 - mmengine - INFO - Iter(train) [12250/16000]  lr: 2.2e-05\n"
                   for t in range(24))
           + " 10: [rank10]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 12.00 GiB. GPU 2 has a total "
             "capacity of 39.39 GiB of which 8.51 GiB is free.\n"
           + "srun: error: gpu-a100-175: task 10: Exited with exit code 1\n"
           + "slurmstepd: error: *** STEP 7268286.0 ON gpu-a100-174 CANCELLED AT 2024-04-28T14:52:23 ***\n"
           + " 19: [rank19]:[E0428 14:52:26.681873798 ProcessGroupNCCL.cpp:1595] [PG ID 0 PG GUID 0(default_pg) Rank 19] "
             "Process group watchdog thread terminated with exception: NCCL error: unhandled system error, NCCL version "
             "2.21.5\n"
           + " 19: socketProgress: Connection closed by remote peer gpu-a100-175<41036>\n"
           + " 19: terminate called after throwing an instance of 'c10::DistBackendError'\n"
           + "srun: error: gpu-a100-178: tasks 16-23: Aborted (core dumped)\n")
    got = incidents_of(tmp_path, {"slurm-7268286.out": out}, ruleset)
    assert [(i.cause, i.rank) for i in got][:1] == [(Cause.CUDA_OOM, 10)]


def test_a_slurm_line_s_own_time_is_its_time(tmp_path: Path, ruleset: RuleSet) -> None:
    from datetime import UTC, datetime

    from detector.replay import replay_path

    out = ("+ srun --ntasks-per-node=8 python -u train.py\n"
           "slurmstepd: error: *** STEP 7268286.0 ON gpu-a100-174 CANCELLED AT 2024-04-28T14:52:23 ***\n")
    (tmp_path / "slurm-7268286.out").write_text(out)
    report = replay_path(tmp_path, ruleset)
    assert report.incidents and report.incidents[0].first_evidence_time == datetime(2024, 4, 28, 14, 52, 23, tzinfo=UTC)


def test_a_log_that_ends_inside_a_traceback_is_an_exception_at_low_confidence(tmp_path: Path, ruleset: RuleSet) -> None:
    # a paste that starts and stops mid-traceback: no header, no exception line
    log = ("[rank14]:   File \"/opt/axolotl/accelerate/accelerator.py\", line 1598, in _prepare_deepspeed\n"
           "[rank14]:     optimizer = DeepSpeedCPUAdam(optimizer.param_groups, **defaults)\n"
           "[rank14]:   File \"/opt/deepspeed/ops/op_builder/builder.py\", line 511, in jit_load\n"
           "[rank14]:     cxx_args = self.strip_empty\n")
    got = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert [(i.cause, i.rank) for i in got] == [(Cause.PYTHON_EXCEPTION, 14)] and got[0].confidence < 0.5
    # a data loader's worker being joined at exit (the machinery that waits) is no failure
    teardown = ("  File \"/usr/lib/python3.8/multiprocessing/process.py\", line 149, in join\n"
                "    res = self._popen.wait(timeout)\n"
                "  File \"/usr/lib/python3.8/multiprocessing/popen_fork.py\", line 44, in wait\n"
                "    if not wait([self.sentinel], timeout):\n")
    assert causes_of(tmp_path / "b", {"train.log": teardown}, ruleset) == []
    # a traceback training went on after is no failure either
    went_on = log + "".join(f"[rank14]: step {s} | loss 2.0 | step_ms 900.0\n" for s in range(5))
    assert causes_of(tmp_path / "c", {"train.log": went_on}, ruleset) == []
