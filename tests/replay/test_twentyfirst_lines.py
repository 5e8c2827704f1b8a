"""The twenty-first session's cases: a process's death on one node and its peers' "got completion from
peer with error" on others a moment later (the death is the failure, whatever node printed first);
ROCm's allocator and runtime errors, PyTorch's own fatal-signal handler and a Ray task that raised
a torch.distributed communication error."""

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
