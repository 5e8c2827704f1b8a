"""The thirty-third session's readings: Ray Train's driver log (its workers on the driver's node
print no address: the file is no one node's; its table of workers and each worker's process-group
line tie a worker's pid to its global rank), a node's worth of consecutive ranks slower together
where no line places a rank on a node, lines of other stacks (NCCL's invalid device ordinal,
Triton's model table, HCCL's EI0005, Neuron's and RDMA engines' transport errors), and a kernel
log dated by its audit records, the year of yearless stamps taken from the ranks' logs."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of, write_run

_HEAD = "10.56.190.68"
_REMOTE = "10.80.73.243"


def _ray_pid(rank: int, same_pids: bool = False) -> int:
    """A worker's pid: each node's own range, or (``same_pids``: containers) the same on both."""
    return 30186 + rank % 4 if same_pids or rank < 4 else 140551 + rank


def _ray_prefix(rank: int, actor: str = "RayTrainWorker", *, head_first: bool = True, same_pids: bool = False) -> str:
    """Ranks 0-3 run on the driver's node (no address in their prefix), 4-7 on another node (or,
    not ``head_first``, the other way round)."""
    pid = _ray_pid(rank, same_pids)
    return f"({actor} pid={pid}) " if (rank < 4) == head_first else f"({actor} pid={pid}, ip={_REMOTE}) "


def _ray_driver(slow_remote: bool, failing: int | None = None, steps: int = 60, *, head_first: bool = True,
                same_pids: bool = False) -> str:
    lines = [
        f"2025-07-07 03:51:28,781\tINFO worker.py:1654 -- Connecting to existing Ray cluster at address: {_HEAD}:6379...",
        "(TorchTrainer pid=8661) Started distributed worker processes: ",
    ]
    for rank in range(8):
        ip = _HEAD if (rank < 4) == head_first else _REMOTE
        lines.append(f"(TorchTrainer pid=8661) - (node_id=9f2c34ea47fe405f3227e9168aa857f81655a83e95fd6be359fd76db, "
                     f"ip={ip}, pid={_ray_pid(rank, same_pids)}) world_rank={rank}, local_rank={rank % 4}, node_rank={rank // 4}")
    for rank in range(8):
        lines.append(_ray_prefix(rank, head_first=head_first, same_pids=same_pids)
                     + f"Setting up process group for: env:// [rank={rank}, world_size=8]")
    for i in range(steps):
        for rank in range(8):
            slow = slow_remote and rank >= 4
            jitter = ((i * 7 + rank * 13) % 10) / 100
            fwd = (8.9 if slow else 3.6) + jitter
            wait = (0.2 if slow else 5.5) + jitter if slow_remote else 0.3 + jitter
            minute, second = divmod(i * 9 + rank, 60)
            lines.append(_ray_prefix(rank, head_first=head_first, same_pids=same_pids) + f"2025-07-07 {4 + minute // 60:02d}:{minute % 60:02d}:{second:02d}.092 | INFO     | "
                         f"trainer:train_step:212 - [rank {rank}] step={10 * (i + 1)} loss=7.3023 "
                         f"fwd_bwd_ms={fwd * 1000:.1f} wait_ms={wait * 1000:.1f} data_s=0.002")
        if failing is not None and i == 30:
            p = _ray_prefix(failing, head_first=head_first, same_pids=same_pids)
            lines += [p + "Traceback (most recent call last):",
                      p + '  File "/workspace/train.py", line 88, in train_func',
                      p + "    batch = next(it)",
                      p + "KeyError: 'input_ids'"]
            break
    return "\n".join(lines) + "\n"


def test_a_ray_driver_log_is_no_node_s_when_its_driver_node_workers_print_no_address(tmp_path: Path, ruleset: RuleSet) -> None:
    run = write_run(tmp_path / "run", {"driver.log": _ray_driver(slow_remote=False)})
    report = replay_path(run, ruleset)
    assert report.incidents == ()
    sources = dict(report.summary.node_sources)
    assert sources.get(_REMOTE) != "file", sources  # (the file holds the driver's node's workers too)


def test_the_node_of_ray_workers_slower_together_is_the_straggler(tmp_path: Path, ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path / "slow", {"driver.log": _ray_driver(slow_remote=True)}, ruleset)
    assert [(i.cause, i.rank, i.node) for i in seen] == [(Cause.STRAGGLER, None, _REMOTE)], seen
    assert "all 4 ranks on 10.80.73.243 (ranks 4-7)" in " ".join(seen[0].evidence), seen[0].evidence


def test_a_ray_worker_on_the_driver_s_node_is_placed_by_the_table_of_workers(tmp_path: Path, ruleset: RuleSet) -> None:
    """The worker's traceback carries only its pid; the trainer's table says whose pid it is."""
    seen = incidents_of(tmp_path / "exc", {"driver.log": _ray_driver(slow_remote=False, failing=2)}, ruleset)
    assert seen and (seen[0].cause, seen[0].rank, seen[0].node) == (Cause.PYTHON_EXCEPTION, 2, _HEAD), seen
    assert "KeyError: 'input_ids'" in " ".join(seen[0].evidence)
    # the process-group lines alone (Ray's older trainers print no table) place the pid too
    text = "\n".join(line for line in _ray_driver(slow_remote=False, failing=6).splitlines() if "world_rank=" not in line)
    seen = incidents_of(tmp_path / "pg", {"driver.log": text + "\n"}, ruleset)
    assert seen and (seen[0].cause, seen[0].rank, seen[0].node) == (Cause.PYTHON_EXCEPTION, 6, _REMOTE), seen


def _mpirun_job(slow_block: range | None, ranks: int = 16, steps: int = 60) -> str:
    """One mpirun output file of ``ranks`` ranks tagged "[1,N]<stdout>:", no line naming a rank's
    node; the ranks of ``slow_block`` compute 2.2 times longer and the others wait in the
    all-reduce."""
    lines = ["SLURM_JOB_ID=9751178 SLURM_NNODES=2", f"MASTER_PORT=29500 WORLD_SIZE={ranks}"]
    for i in range(steps):
        for rank in range(ranks):
            slow = slow_block is not None and rank in slow_block
            jitter = ((i * 7 + rank * 13) % 10) / 100
            fwd = 3.7 * (2.2 if slow else 1.0) + jitter
            wait = 0.15 + jitter if slow or slow_block is None else 4.5 + jitter
            minute, second = divmod(i * 50 + rank, 60)
            lines.append(f"[1,{rank}]<stdout>:2024-06-30 {8 + minute // 60:02d}:{minute % 60:02d}:{second:02d},334 | INFO | "
                         f"rank {rank:2d} | step {8010 + 10 * i:7d} | loss 2.4752 | fwd_bwd {fwd * 1000:7.1f} ms | "
                         f"allreduce {wait * 1000:7.1f} ms | data 0.009 s")
    return "\n".join(lines) + "\n"


def test_a_node_s_worth_of_consecutive_ranks_slower_together_is_a_straggler(tmp_path: Path, ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path / "first", {"job-9751178.out": _mpirun_job(range(0, 8))}, ruleset)
    assert [(i.cause, i.rank, i.node, i.drain) for i in seen] == [(Cause.STRAGGLER, None, None, False)], seen
    text = " ".join(seen[0].evidence)
    assert "ranks 0-7 (a node's worth of consecutive ranks" in text, text
    assert "ranks 0-7" in seen[0].explanation, seen[0].explanation
    # a block of four (four GPUs a node) where blocks of eight do not fit: two nodes of eight ranks
    seen = incidents_of(tmp_path / "four", {"job.out": _mpirun_job(range(4, 8), ranks=8)}, ruleset)
    assert [(i.cause, i.node) for i in seen] == [(Cause.STRAGGLER, None)], seen
    assert "ranks 4-7 (a node's worth" in " ".join(seen[0].evidence), seen[0].evidence


def test_consecutive_ranks_at_one_pace_or_a_block_that_is_no_node_s_are_no_straggler(tmp_path: Path, ruleset: RuleSet) -> None:
    assert incidents_of(tmp_path / "even", {"job.out": _mpirun_job(None)}, ruleset) == []
    # ranks 2-9 straddle two blocks of eight and two of four: no node's worth is slower as a whole
    seen = incidents_of(tmp_path / "straddle", {"job.out": _mpirun_job(range(2, 10))}, ruleset)
    assert all("a node's worth" not in " ".join(i.evidence) for i in seen), seen


def test_nccl_s_invalid_device_ordinal_is_the_job_s_set_up(tmp_path: Path, ruleset: RuleSet) -> None:
    """More processes than the GPUs they can see: a set-up to fix, not a GPU's fault."""
    lines = [
        "[2026-04-18 12:45:41] gpu002:704798:704908 [0] transport/p2p.cc:275 NCCL WARN Cuda failure 101 'invalid device ordinal'",
        "[2026-04-18 12:45:41] gpu002:704800:704915 [1] misc/socket.cc:72 NCCL WARN socketProgress: Connection closed by remote peer gpu002.cm.cluster<44189>",
    ]
    seen = incidents_of(tmp_path / "ordinal", {"console.log": "\n".join(lines) + "\n"}, ruleset)
    assert seen and (seen[0].cause, seen[0].drain) == (Cause.PYTHON_EXCEPTION, False), seen
    # another CUDA failure of NCCL's set-up stays of unknown cause
    other = [lines[0].replace("101 'invalid device ordinal'", "'invalid argument'"), lines[1]]
    seen = incidents_of(tmp_path / "argument", {"console.log": "\n".join(other) + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.UNKNOWN, seen


def test_a_triton_model_that_did_not_load_is_the_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    table = [
        "I1114 09:30:02.005851 6946 server.cc:662]",
        "+----------------+---------+------------------------------------------------------------+",
        "| Model          | Version | Status                                                     |",
        "+----------------+---------+------------------------------------------------------------+",
        "| postprocessing | 1       | READY                                                      |",
        "| tensorrt_llm   | 1       | UNAVAILABLE: Internal: unexpected error when creating mode |",
        "|                |         | lInstanceState: [TensorRT-LLM][ERROR] Assertion failed: mp |",
        "+----------------+---------+------------------------------------------------------------+",
    ]
    seen = incidents_of(tmp_path / "bad", {"console.log": "\n".join(table) + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION, seen
    assert any("UNAVAILABLE: Internal" in e for e in seen[0].evidence), seen[0].evidence
    ready = [line.replace("UNAVAILABLE: Internal: unexpected error when creating mode", "READY" + " " * 53)
             for line in table if "lInstanceState" not in line]
    assert incidents_of(tmp_path / "ready", {"console.log": "\n".join(ready) + "\n"}, ruleset) == []


def test_a_caller_re_raising_a_ray_worker_s_nccl_error_is_not_its_cause(tmp_path: Path, ruleset: RuleSet) -> None:
    """vLLM's "Exception: Call to collective_rpc method failed: ray::..." repeats what a worker
    raised; the worker's NcclError (a peer gone or the network) is collateral, as outside Ray."""
    p = "(EngineCore_DP0 pid=1077) ERROR 11-26 14:19:09 [core.py:790] "
    lines = [
        p + "ray.exceptions.RayTaskError(NcclError): ray::RayWorkerWrapper.execute_method() (pid=1117, ip=10.0.29.169, actor_id=f076802821d0864ad46eab6101000000)",
        p + "cupy_backends.cuda.libs.nccl.NcclError: NCCL_ERROR_REMOTE_ERROR: remote process exited or there was a network error",
        "Traceback (most recent call last):",
        '  File "/usr/lib/python3.12/concurrent/futures/_base.py", line 401, in __get_result',
        "    raise self._exception",
        "Exception: Call to collective_rpc method failed: ray::RayWorkerWrapper.execute_method() (pid=1117, ip=10.0.29.169, actor_id=f076802821d0864ad46eab6101000000)",
    ]
    seen = incidents_of(tmp_path / "rpc", {"vllm.log": "\n".join(lines) + "\n"}, ruleset)
    assert seen and seen[0].cause is not Cause.PYTHON_EXCEPTION, seen
    # a worker's own Python error behind the same wrapper is still the worker's exception
    own = [lines[0].replace("RayTaskError(NcclError)", "RayTaskError(KeyError)"), *lines[2:]]
    seen = incidents_of(tmp_path / "own", {"vllm.log": "\n".join(own) + "\n"}, ruleset)
    assert seen and (seen[0].cause, seen[0].node) == (Cause.PYTHON_EXCEPTION, "10.0.29.169"), seen


@pytest.mark.parametrize(("lines", "cause"), [
    (["EI0005: 2024-04-24-06:32:27.781.599 The arguments for collective communication are inconsistent between ranks:"
      "tag[HcomAllReduce_6629421139219749105_0], parameter[count], local[16512], remote [8320]",
      "Solution: Check whether the training script and ranktable of each NPU are consistent."], Cause.COLLECTIVE_MISMATCH),
    (["2024-Jan-11 19:01:15.502423 18506:21252 ERROR   ENC:ncclNetRegMr                            failed neuronNetRegMr request to NCCL",
      "2024-Jan-11 19:01:15.502435 18506:21252 ERROR   ENC:configure_net_connector                 [rank 0, channel 0] failed to "
      "register channel buffer, addr: 0x0x7fd881000000, len: 50331648"], Cause.NETWORK),
    (["I0419 19:17:25.257993 98020 common.h:153] writeString: type 0, str(123): {\"local_nic_path\":\"localhost:12570@mlx5_0\"}",
      "W0419 19:17:25.260430 97620 worker_pool.cpp:368] Worker: Received context async event local access violation work "
      "queue error for context mlx5_0"], Cause.NETWORK),
    # (the fresh32 set-aside's misses, after its scoring)
    (["HCCL demo error: In function hcclAllReduceWrapper(): hcclAllReduce(sendbuff, recvbuff, recvcount, getDataType(envData), "
      "getReductionOp(envData), resources.comm, resources.collectiveStream) failed: A device is busy or an internal check failed",
      "terminate called without an active exception"], Cause.UNKNOWN),
    (['  File "/opt/dynamo/venv/lib/python3.12/site-packages/nixl/_api.py", line 341, in prep_xfer_dlist',
      "    handle = self.agent.prepXferDlist(agent_name, descs, handle_list)",
      "nixl._bindings.nixlNotFoundError: NIXL_ERR_NOT_FOUND"], Cause.PYTHON_EXCEPTION),
    (['I1022 13:13:52.359091 1 pb_stub.cc:366] "Failed to initialize Python stub: RuntimeError: CUDA error: invalid device '
      'ordinal\\nCUDA kernel errors might be asynchronously reported at some other API call"'], Cause.PYTHON_EXCEPTION),
    (["(SGLangHttpServer pid=250977) [torch_memory_saver.cpp] CUresult error: 2 (out of memory)  file=csrc/utils.h "
      "func=cu_mem_create line=194",
      "(WorkerDict pid=209740) WARNING:2025-11-28 16:00:45,396:Async request to resume_memory_occupation timed out (attempt 1)"],
     Cause.CUDA_OOM),
])
def test_other_stacks_collective_and_transport_errors(tmp_path: Path, ruleset: RuleSet, lines: list[str], cause: Cause) -> None:
    seen = incidents_of(tmp_path, {"console.log": "\n".join(lines) + "\n"}, ruleset)
    assert seen and seen[0].cause is cause, seen
    assert seen[0].rank is None, seen  # (the Neuron engine's "[rank 0" is its ring's, not the job's)


def _job_with_a_dmesg(xid_uptime: int, audit: bool) -> dict[str, str]:
    """Four ranks on node07 whose rank 3 raises at 05:09:30 UTC on 23 September 2026 (Unix time
    1790140170), the others then time out; node07's dmesg in seconds since boot, with an Xid 79
    at ``xid_uptime`` and (``audit``) AppArmor records that date the boot: booted at Unix time
    1790140170 - 400,000 (uptime 400,000 s at the failure)."""
    boot = 1790140170 - 400_000
    ranks = []
    for rank in range(4):
        lines = [f"[rank{rank}]:[W923 05:01:0{rank}.000000000 ProcessGroupNCCL.cpp:981] Warning: TORCH_NCCL_AVOID_RECORD_STREAMS is the default now"]
        lines += [f"2026-09-23 05:0{m}:00,000 - INFO - [rank {rank}] step {100 + m} loss 2.31" for m in range(1, 9)]
        if rank == 3:
            lines += ["[rank3]: Traceback (most recent call last):",
                      '[rank3]:   File "/workspace/train.py", line 88, in <module>',
                      "[rank3]: KeyError: 'input_ids'"]
        else:
            lines.append(f"[rank{rank}]:[E923 05:19:30.000000000 ProcessGroupNCCL.cpp:632] [Rank {rank}] Watchdog caught collective "
                         "operation timeout: WorkNCCL(SeqNum=812, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) "
                         "ran for 600000 milliseconds before timing out.")
        ranks.append("\n".join(lines) + "\n")
    dmesg = [(xid_uptime, f"[{xid_uptime:7d}.000000] NVRM: Xid (PCI:0000:5D:00): 79, pid='<unknown>', name=<unknown>, "
                          "GPU has fallen off the bus.")]
    if audit:
        for up, serial in ((50_000, 212), (399_000, 464), (399_100, 930)):
            dmesg.append((up, f"[{up:7d}.000000] audit: type=1400 audit({boot + up}.550:{serial}): apparmor=\"DENIED\" "
                              "operation=\"open\" class=\"file\" profile=\"enroot\" name=\"/proc/56863/mountinfo\""))
    lines = ["[    2.100000] Linux version 6.8.0-1015-nvidia (buildd@lcy02-amd64-017) #16-Ubuntu SMP PREEMPT_DYNAMIC"]
    lines += [text for _up, text in sorted(dmesg)]
    files = {f"node07/rank{r}.log": text for r, text in enumerate(ranks)}
    files["node07/dmesg.txt"] = "\n".join(lines) + "\n"
    return files


def test_audit_records_date_a_dmesg_and_an_xid_days_before_the_job_is_an_earlier_job_s(tmp_path: Path, ruleset: RuleSet) -> None:
    # four days before the failure (uptime 54,400 s of 400,000): an earlier job's
    seen = incidents_of(tmp_path / "old", _job_with_a_dmesg(54_400, audit=True), ruleset)
    assert seen and (seen[0].cause, seen[0].rank, seen[0].drain) == (Cause.PYTHON_EXCEPTION, 3, False), seen
    # during the job (05:06:50, before rank 3's last step line): the job's own GPU fault
    seen = incidents_of(tmp_path / "now", _job_with_a_dmesg(399_800, audit=True), ruleset)
    assert seen and (seen[0].cause, seen[0].drain) == (Cause.GPU_HARDWARE, True), seen


def test_glog_stamps_take_the_year_of_the_ranks_logs_not_of_the_node_s_boot(tmp_path: Path, ruleset: RuleSet) -> None:
    """A kernel log begins at its node's boot, here in the year before the job: the ranks' glog
    stamps (no year) are read in the ranks' year."""
    launcher = ("I0125 19:46:16.756822 3110 nvidia_resiliency_ext/fault_tolerance/launcher.py:1402] [default] starting workers\n"
                "[default7]: [2026-01-25 19:47:03.292031] iteration    21259/  100000 | elapsed time per iteration (ms): 6600.2\n")
    kern = ("2025-12-23T14:48:28.856822+09:00 dgx-h100-205 kernel: [    2.100000] Linux version 6.8.0-1015-nvidia #16-Ubuntu SMP\n"
            "2026-01-25T20:01:34.756822+09:00 dgx-h100-205 kernel: [2869988.000000] IPv6: ADDRCONF(NETDEV_CHANGE): veth1: link becomes ready\n")
    run = write_run(tmp_path / "run", {"logs/dgx-h100-205/kern.log": kern, "logs/dgx-h100-205/launcher.log": launcher})
    report = replay_path(run, ruleset)
    assert report.summary.end is not None and report.summary.end.year == 2026, report.summary
    assert report.summary.start is not None and report.summary.start.year >= 2025, report.summary
    # (the launcher's first line, read in 2025, would open the run eleven months before its end)
    assert (report.summary.end - report.summary.start).days < 40, report.summary


def test_an_audit_record_dates_only_its_own_boot(tmp_path: Path, ruleset: RuleSet) -> None:
    """A dmesg file of two boots: the second boot's audit records say nothing of the first's
    clock, so the first boot's Xid stays untimed; many records cost one pass, not a hit each."""
    files = _job_with_a_dmesg(54_400, audit=False)
    boot2 = 1790140170 - 3_000
    second = ["[    2.000000] Linux version 6.8.0-1015-nvidia (buildd@lcy02-amd64-017) #16-Ubuntu SMP PREEMPT_DYNAMIC"]
    second += [f"[{up:7d}.000000] audit: type=1400 audit({boot2 + up}.250:{up}): apparmor=\"DENIED\" operation=\"open\""
               for up in range(100, 2_100)]
    files["node07/dmesg.txt"] += "\n".join(second) + "\n"
    report = replay_path(write_run(tmp_path / "two-boots", files), ruleset)
    xids = [e for i in report.incidents for e in i.evidence if e.rule.startswith("xid.")]
    assert xids and all(e.time is None for e in xids), xids
    assert not any("audit" in w for w in report.warnings), report.warnings


def test_a_ray_driver_log_read_again_is_still_no_node_s() -> None:
    """The marker of an unnamed node does not depend on what the process read before (the
    line shapes' memo of hosts_named)."""
    from detector.sources.runs import UNNAMED_HOST, hosts_named

    # (the step lines alone: each driver-node worker's line is stamped and names no host)
    lines = [line for line in _ray_driver(slow_remote=False, steps=3).splitlines() if "step=" in line]
    assert UNNAMED_HOST in hosts_named(lines)[1]
    assert UNNAMED_HOST in hosts_named(lines)[1]


def test_a_pid_two_nodes_share_places_no_line_of_an_unnamed_node(tmp_path: Path, ruleset: RuleSet) -> None:
    """Containers number their processes alike: pid 30188 is rank 2's on the other node and
    rank 6's on the driver's; the driver-node worker's line (no address) is not rank 2's."""
    text = _ray_driver(slow_remote=False, failing=6, head_first=False, same_pids=True)
    seen = incidents_of(tmp_path / "shared", {"driver.log": text}, ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION, seen
    assert (seen[0].rank, seen[0].node) != (2, _REMOTE), seen
    assert seen[0].rank in (6, None), seen


def test_a_kernel_s_audit_records_give_the_year_when_no_log_line_has_one(tmp_path: Path, ruleset: RuleSet) -> None:
    """glog stamps with no year anywhere: the kernel's audit records say the year the node lived
    in (November 2025), not the files' copying (December 2026)."""
    import os

    run = write_run(tmp_path / "run", {
        "slurm-5199477.out": "I1126 15:30:22.937998 216037 distributed.py:119] Connecting to JAX distributed service\n"
                             "E1126 15:31:02.001000 216037 train.py:88] RuntimeError: CUDA error: out of memory\n",
        "nid001168-dmesg.txt": "[2436802.986488] audit: type=1400 audit(1764166017.990:27261): apparmor=\"DENIED\" operation=\"open\"\n",
    })
    copied = 1796428800  # 2026-12-04
    for name in ("slurm-5199477.out", "nid001168-dmesg.txt"):
        os.utime(run / name, (copied, copied))
    report = replay_path(run, ruleset)
    times = [e.time for i in report.incidents for e in i.evidence if e.time is not None]
    assert times and {t.year for t in times} == {2025}, report.incidents


def test_a_host_name_s_number_at_a_file_name_s_end_is_no_rank() -> None:
    from detector.sources.runs import _rank_from_name

    assert _rank_from_name("nvidia-smi-q-ecc-c404-066.txt") is None
    assert _rank_from_name("dmesg-r12-c07.log") is None
    assert _rank_from_name("node-007.log") is None  # (zero-padded: a host's or a job's number)
    assert _rank_from_name("train-3.log") == 3
    assert _rank_from_name("worker-12.out") == 12


def test_kubectl_describe_pod_s_oomkilled_is_the_pod_s_killed_rank_s_cause(tmp_path: Path, ruleset: RuleSet) -> None:
    """The pod's log: mpirun saw rank 11 killed by signal 9 on the pod; "kubectl describe pod"
    of that pod says its container was OOMKilled: the pod's memory limit killed the rank. The
    report names the Kubernetes node the description places the pod on (what a cordon names)."""
    describe = "\n".join([
        "Name:             llm-serve-0-1", "Namespace:        default", "Priority:         0",
        "Node:             ip-10-19-2-119/10.19.2.119", "Status:           Running", "Containers:", "  server:",
        "    State:          Running", "    Last State:     Terminated", "      Reason:       OOMKilled",
        "      Exit Code:    137", ""])
    pod_log = "\n".join([
        "[TensorRT-LLM][INFO] MPI size: 16, MPI local size: 8, rank: 11",
        "--------------------------------------------------------------------------",
        "mpirun noticed that process rank 11 with PID 79525 on node llm-serve-0-1 exited on signal 9 (Killed).",
        "--------------------------------------------------------------------------", ""])
    files = {"kubectl/describe-pod-llm-serve-0-1.txt": describe, "pod-logs/llm-serve-0-1.previous.log": pod_log}
    seen = incidents_of(tmp_path / "oom", files, ruleset)
    assert seen and (seen[0].cause, seen[0].rank, seen[0].node) == (Cause.HOST_OOM_KILL, 11, "ip-10-19-2-119"), seen


def test_vllm_s_wrappers_of_a_worker_s_failure_are_not_its_cause(tmp_path: Path, ruleset: RuleSet) -> None:
    """"WorkerProc initialization failed due to an exception in a background process" and
    "Engine core initialization failed. See root cause above" point at a worker's own error:
    with only a survivor's store errors beside them, the cause is not known, not an exception."""
    p = "(EngineCore_DP0 pid=379) ERROR 11-01 02:10:36 [core.py:708] "
    lines = [
        "[rank1]:[W1101 02:10:34.411642380 TCPStore.cpp:106] [c10d] sendBytes failed on SocketImpl(fd=79, addr=localhost:40912, "
        "remote=localhost:36055): Broken pipe",
        p + "Exception: WorkerProc initialization failed due to an exception in a background process. See stack trace for root cause.",
        "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}",
    ]
    seen = incidents_of(tmp_path / "wrap", {"console.log": "\n".join(lines) + "\n"}, ruleset)
    assert all(i.cause is not Cause.PYTHON_EXCEPTION for i in seen), seen
    # the worker's own exception, where the paste has it, is the cause
    own = ["(VllmWorker TP0 pid=412) ERROR 11-01 02:10:35 [multiproc_executor.py:585] ValueError: max_model_len 131072 is too large",
           *lines]
    seen = incidents_of(tmp_path / "own", {"console.log": "\n".join(own) + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION and any("max_model_len" in e for e in seen[0].evidence), seen


def test_a_kernel_line_about_rank_0_s_process_names_rank_0(tmp_path: Path, ruleset: RuleSet) -> None:
    """A segfault of rank 0's pid on its node is rank 0's (a lookup that read rank 0 as "none"
    dropped it)."""
    def rank_log(rank: int, pid: int) -> str:
        return (f"node07:{pid}:{pid + 100} [{rank}] NCCL INFO ncclCommInitRankConfig comm 0x55d0c8a{rank} rank {rank} nranks 2 "
                f"cudaDev {rank} nvmlDev {rank} busId {18 + rank}000 commId 0x4a3e2f - Init COMPLETE\n"
                f"[rank{rank}]:2026-11-29 08:00:0{rank},000 INFO step 1 loss 2.3\n")
    files = {
        "node07/rank0.log": rank_log(0, 4000),
        "node07/rank1.log": rank_log(1, 4001),
        "node07/dmesg.txt": "[ 5400.200000] pt_autograd_0[4000]: segfault at 0 ip 00007fd328537a78 sp 00007ffdf1f96746 error 4 "
                            "in libtorch_cpu.so[7fd3284ea000+1f11821] likely on CPU 11\n",
    }
    seen = incidents_of(tmp_path / "segv", files, ruleset)
    assert seen and (seen[0].cause, seen[0].rank, seen[0].node) == (Cause.CRASH_SIGNAL, 0, "node07"), seen
