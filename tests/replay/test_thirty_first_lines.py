"""The thirty-first session's reading: a log platform's records one per line (Cloud Logging's
sinks write JSON lines whose text is ``textPayload`` or ``jsonPayload.message``), a logger's own
rank field ("stamp - LEVEL - logger - [rank N]", "[stamp][rankN]", "stamp rank=N"), a straggler in
a log that prints its timings too rarely for windows of steps, a node's torchrun log whose
"[defaultN]:" lines are global ranks past the node's first, and the lines of a process's exit
that are no failure."""

from __future__ import annotations

import json
from pathlib import Path

from detector.rules.engine import RuleSet
from detector.sources.prefixes import strip_prefix
from detector.types import Cause
from tests.support.replaying import incidents_of


def _record(text: str, *, pod: str, node: str, when: str, structured: bool = False) -> str:
    record: dict[str, object] = {
        "insertId": "22fa5924691d5109",
        "labels": {"compute.googleapis.com/resource_name": node},
        "logName": "projects/acme/logs/stderr",
        "resource": {"labels": {"cluster_name": "gpu-cluster-1", "container_name": "trainer",
                                "pod_name": pod}, "type": "k8s_container"},
        "severity": "ERROR",
        "timestamp": when,
    }
    if structured:
        record["jsonPayload"] = {"message": text, "python_logger": "train"}
    else:
        record["textPayload"] = text
    return json.dumps(record)


def test_a_cloud_logging_record_per_line_is_read_as_its_text(tmp_path: Path, ruleset: RuleSet) -> None:
    """Before, a JSON line with neither "log" nor "message" at its top was no record: the rank
    prefix inside textPayload was never read, nor the record's time (the run had 0 ranks)."""
    line = _record("[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
                   "GPU 3 has a total capacity of 79.10 GiB of which 1.06 GiB is free.",
                   pod="job-workers-0-1-abcde", node="gke-pool-7e9ef7f1-gf8m", when="2025-04-21T09:04:53.571581840Z")
    pre = strip_prefix(line)
    assert pre.rank == 3, pre
    assert pre.message.startswith("2025-04-21T09:04:53.571581Z torch.OutOfMemoryError"), pre.message
    assert pre.host == "gke-pool-7e9ef7f1-gf8m", pre
    rows = [_record(f"[rank{r}]:[W421 09:00:0{r}.1 ProcessGroupNCCL.cpp:4115] [PG 0 Rank {r}] using GPU {r} to perform "
                    "barrier as devices used by this process are currently unknown.",
                    pod="job-workers-0-0-xyz", node="gke-pool-2057be12-jltc", when=f"2025-04-21T09:00:0{r}.1Z")
            for r in range(3)]
    seen = incidents_of(tmp_path / "oom", {"export/logs.jsonl": "\n".join([*rows, line]) + "\n"}, ruleset)
    assert seen and (seen[0].cause, seen[0].rank) == (Cause.CUDA_OOM, 3), seen
    # a structured logger's record: the text is jsonPayload's message
    structured = _record("ValueError: labels must be a list", pod="p-0", node="n-1", when="2025-04-21T09:04:53Z",
                         structured=True)
    assert strip_prefix(structured).message == "2025-04-21T09:04:53.000000Z ValueError: labels must be a list"
    # a JSON line that is no log record stays as it is
    plain = '{"epoch": 3, "loss": 0.25}'
    assert strip_prefix(plain).message == plain


def _logging_steps(slow: int | None, steps: int, ranks: int = 8, every: int = 50, onset: int = 0,
                   factor: float = 1.78) -> str:
    """Python logging's "%(asctime)s - %(levelname)s - %(name)s - %(message)s" lines, one per
    rank every ``every`` steps; the slow rank computes ``factor`` times longer from line
    ``onset`` on and the others wait for it in the all-reduce."""
    lines = []
    for i in range(steps):
        step = (i + 1) * every
        for rank in range(ranks):
            late = rank == slow and i >= onset
            fwd = 1.90 * (factor if late else 1.0) + ((i * 7 + rank * 13) % 10) / 200
            wait = (3.33 - fwd if late else 2.38) + ((i * 3 + rank) % 10) / 400
            minute, second = divmod(i * 215 + rank, 60)
            lines.append(f"2025-04-21 09:{minute % 60:02d}:{second:02d},571 - INFO - __main__ - [rank {rank}] step {step} | "
                         f"loss 2.7671 | step_time 4.277s | fwd_bwd {fwd:.3f}s | allreduce_wait {wait:.3f}s")
    return "\n".join(lines) + "\n"


def test_python_logging_s_rank_field_names_the_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    line = "2025-04-21 09:04:53,571 - INFO - __main__ - [rank 28] step 50 | loss 2.7671 | fwd_bwd 1.902s"
    pre = strip_prefix(line)
    assert (pre.rank, pre.hinted) == (28, True), pre
    # behind a collector's stamp too
    assert strip_prefix("2025-04-21T09:04:53.571581Z " + line).rank == 28
    # a rank named further into the message is no field of the line's
    assert strip_prefix("2025-04-21 09:04:53,571 - INFO - __main__ - waiting for [rank 28] to join").rank is None
    # a bracketed stamp and rank, and a key=value logger's first field
    assert strip_prefix("[2024-12-21 23:46:57][rank5] it=96 loss=7.1178 data_time=0.015s").rank == 5
    assert strip_prefix("[2024-10-25 02:19:15,085][INFO][rank 6] rank 6/12 local_rank 0 on d31n10").rank == 6
    assert strip_prefix("2025-07-23 11:40:14,954 rank=4 step=8600 fwd_bwd=10.586s comm_wait=9.220s").rank == 4
    assert strip_prefix("2025-07-23 11:40:14,954 training done, rank=4 exits").rank is None
    # behind torchrun's local-rank prefix, the logger's field is the global rank
    pre = strip_prefix("[default1]:[2024-12-21 23:46:57][rank5] it=96 loss=7.1178")
    assert (pre.rank, pre.local_rank) == (5, 1), pre
    pre = strip_prefix("[default2]:2024-06-30 08:17:52,334 | INFO | rank  10 | step 8010 | loss 2.4")
    assert (pre.rank, pre.local_rank) == (10, 2), pre
    assert strip_prefix("[default2]: waiting for rank 3").rank is None


def test_a_straggler_in_a_log_printing_its_timings_every_fifty_steps(tmp_path: Path, ruleset: RuleSet) -> None:
    """Seven timing lines per rank (every 50 steps): too few for three windows of five, so before
    nothing was judged; single lines are judged now, five in a row beyond the thresholds."""
    seen = incidents_of(tmp_path / "slow", {"train.log": _logging_steps(5, 7)}, ruleset)
    assert seen and (seen[0].cause, seen[0].rank) == (Cause.STRAGGLER, 5), seen
    assert "7 step lines in a row" in " ".join(seen[0].evidence), seen[0].evidence
    # slower from the fourth line on: four lines in a row are too few
    assert incidents_of(tmp_path / "late", {"train.log": _logging_steps(5, 7, onset=3)}, ruleset) == []
    # and no rank slower: nothing
    assert incidents_of(tmp_path / "even", {"train.log": _logging_steps(None, 7)}, ruleset) == []


def test_a_short_log_s_single_lines_need_a_quarter_more_than_the_peers(tmp_path: Path, ruleset: RuleSet) -> None:
    """A rank 15 % slower line after line is past the windows' 10 % but within a single line's
    jitter allowance: in a log too short for windows it is not flagged."""
    mild = _logging_steps(5, 7, factor=1.15)
    assert incidents_of(tmp_path / "mild", {"train.log": mild}, ruleset) == []
    # the same rank in a log long enough for windows of steps (three of five lines): flagged
    assert [i.rank for i in incidents_of(tmp_path / "long", {"train.log": _logging_steps(5, 15, factor=1.15)},
                                         ruleset)] == [5]


def _node_log(base: int, failing_local: int | None) -> str:
    lines = []
    for local in range(4):
        if local == failing_local:
            lines += [f"[default{local}]:Traceback (most recent call last):",
                      f'[default{local}]:  File "train.py", line 10, in <module>',
                      f"[default{local}]:ValueError: bad shard index 17"]
        else:
            lines.append(f"[default{local}]:[rank{base + local}]:[E1205 10:30:0{local}.123 ProcessGroupNCCL.cpp:616] "
                         f"[Rank {base + local}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, "
                         "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800085 milliseconds "
                         "before timing out.")
    return "\n".join(lines) + "\n"


def test_a_node_log_s_local_rank_is_its_global_rank_past_the_node_s_first(tmp_path: Path, ruleset: RuleSet) -> None:
    """Each node's torchrun --tee log: its ranks print "[default3]:[rank7]:", the one that failed
    before its process group printed only "[default2]:". Before, that was read as global rank 2
    (local = global, as in a one-node run) - another node's rank; now as 4 + 2."""
    seen = incidents_of(tmp_path / "two", {"node-a.log": _node_log(0, None), "node-b.log": _node_log(4, 2)}, ruleset)
    assert seen and (seen[0].cause, seen[0].rank) == (Cause.PYTHON_EXCEPTION, 6), seen
    # a file whose prefixes disagree on the offset (two nodes' lines pasted together) tells none
    mixed = _node_log(0, None).replace("[default3]:[rank3]", "[default3]:[rank11]")
    seen = incidents_of(tmp_path / "mixed", {"node-a.log": mixed, "node-b.log": _node_log(4, 2)}, ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION and seen[0].rank == 6, seen
    pasted = _node_log(0, None).replace("[default3]:[rank3]", "[default3]:[rank11]") + _node_log(4, 2).replace(
        "[default0]:[rank4]", "[default0]:[rank0]")
    seen = incidents_of(tmp_path / "pasted", {"console.log": pasted}, ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION and seen[0].rank != 6, seen


def test_an_exception_at_exit_with_the_cuda_runtime_unloading_is_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    """gloo's or c10's destructor calling into CUDA after the interpreter finished: "driver
    shutting down" (cudaErrorCudartUnloading) and the runtime's abort. Before, a crash_signal."""
    gloo = ("terminate called after throwing an instance of 'gloo::EnforceNotMet'\n"
            "  what():  [enforce fail at /tmp/pip-fj8uIV-build/torch/lib/gloo/gloo/cuda.cu:249] error == cudaSuccess. "
            "29 vs 0. Error at: /tmp/pip-fj8uIV-build/torch/lib/gloo/gloo/cuda.cu:249: driver shutting down\n")
    assert incidents_of(tmp_path / "gloo", {"console.log": gloo}, ruleset) == []
    c10 = ("[exiting program at iteration 6] datetime: 2022-03-11 15:20:26\n"
           "terminate called after throwing an instance of 'c10::CUDAError'\n"
           "  what():  CUDA error: driver shutting down\n"
           "Exception raised from query at ../aten/src/ATen/cuda/CUDAEvent.h:95 (most recent call first):\n"
           "Fatal Python error: Aborted\n")
    assert incidents_of(tmp_path / "c10", {"console.log": c10}, ruleset) == []
    # the same abort on another failure is still that failure
    other = c10.replace("CUDA error: driver shutting down", "CUDA error: an illegal memory access was encountered")
    assert [i.cause for i in incidents_of(tmp_path / "ima", {"console.log": other}, ruleset)] == [
        Cause.ILLEGAL_MEMORY_ACCESS]
    # and an abort with no what() line at all is still a crash
    bare = "terminate called after throwing an instance of 'c10::Error'\nAborted (core dumped)\n"
    assert [i.cause for i in incidents_of(tmp_path / "bare", {"console.log": bare}, ruleset)] == [Cause.CRASH_SIGNAL]


def test_hccl_s_socket_manager_failing_to_establish_links_is_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    plog = ("[ERROR] HCCL(55694,):2026-06-03-06:04:59.040.451 [hccl_socket_manager.cc:860] [60446][Wait]"
            "[LinksEstablishCompleted] is failed. ret[9].\n"
            "[ERROR] HCCL(55694,):2026-06-03-06:04:59.040.458 [hccl_socket_manager.cc:399] [60446][Create][Sockets]"
            "Wait links establish completed failed, local role is client. ret[9]\n")
    assert [i.cause for i in incidents_of(tmp_path / "hccl", {"plog-55694.log": plog}, ruleset)] == [Cause.NETWORK]


def test_nccl_s_warnings_while_communicators_are_destroyed_are_the_teardown_s(tmp_path: Path, ruleset: RuleSet) -> None:
    """Freeing registered buffers at destroy_process_group: NCCL warns of a CUDA failure and a
    comm it could not reclaim, then ProcessGroupNCCL says the destroy completed. Before: unknown."""
    lines = []
    for r in range(2):
        lines.append(f"[rank{r}]:[I617 21:49:04.24095985{r} ProcessGroupNCCL.cpp:1479] [PG ID 0 PG GUID 0(default_pg) "
                     f"Rank {r}] Watchdog joined, destroying NCCL communicators.")
    for r in range(2):
        pid = 3355146 + r
        lines += [f"[2025-06-17 21:49:04] devvm5552:{pid}:{pid} [{r}] transport/p2p.cc:1128 NCCL WARN Cuda failure 1 "
                  "'invalid argument'",
                  f"[2025-06-17 21:49:04] devvm5552:{pid}:{pid} [{r}] init.cc:2143 NCCL WARN commReclaim: cleanup comm "
                  f"0x9801e1{r} rank {r} failed in destroy/abort, error 1",
                  f"[rank{r}]:[I617 21:49:04.73574042{r} ProcessGroupNCCL.cpp:1487] [PG ID 0 PG GUID 0(default_pg) "
                  f"Rank {r}] Destroy complete."]
    text = "\n".join(lines) + "\n"
    assert incidents_of(tmp_path / "done", {"console.log": text}, ruleset) == []
    # without a destroy that completed (nor NCCL's word that it was cleaning up), the same CUDA
    # failures are what the run shows of its failure
    unfinished = "\n".join(line for line in lines if "Destroy complete" not in line and "commReclaim" not in line) + "\n"
    assert incidents_of(tmp_path / "cut", {"console.log": unfinished}, ruleset) != []
    # and a failure before the teardown is still the failure
    failed = "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n" + text
    assert [i.cause for i in incidents_of(tmp_path / "oom", {"console.log": failed}, ruleset)] == [Cause.CUDA_OOM]


def _elastic_failure(*entries: tuple[int, str, str, str, str]) -> list[str]:
    """torchelastic's ChildFailedError table: one entry per (rank, time, host, exit code, traceback),
    the first the root cause."""
    def entry(i: int, rank: int, when: str, host: str, code: str, trace: str) -> list[str]:
        return [f"[{i}]:", f"  time      : {when}", f"  host      : {host}", f"  rank      : {rank} (local_rank: {rank % 8})",
                f"  exitcode  : {code} (pid: {793062 + rank})", "  error_file: <N/A>", f"  traceback : {trace}"]
    rest = [line for i, e in enumerate(entries[1:], 1) for line in entry(i, *e)] or ["  <NO_OTHER_FAILURES>"]
    return ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
            "============================================================", "train.py FAILED",
            "------------------------------------------------------------", "Failures:", *rest,
            "------------------------------------------------------------", "Root Cause (first observed failure):",
            *entry(0, *entries[0]), "============================================================"]


def _node_run_with_a_late_xid(minutes_after: int) -> dict[str, str]:
    aborted = [(rank, f"2024-05-04_04:34:0{5 + rank}", "gpu-a", "-6", f"Signal 6 (SIGABRT) received by PID {793062 + rank}")
               for rank in range(2)]
    log = "\n".join([
        "[rank0]:[E504 04:33:00.000000000 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=4563, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for "
        "1800339 milliseconds before timing out.",
        *_elastic_failure(*aborted),
    ]) + "\n"
    minute = 34 + minutes_after
    kern = (f"2024-05-04T04:{minute:02d}:39.988626+00:00 gpu-a kernel: NVRM: Xid (PCI:0000:4e:00): 79, pid='<unknown>', "
            "name=<unknown>, GPU has fallen off the bus.\n")
    return {"train.log": log, "kern.log.gpu-a": kern}


def test_a_gpu_fault_after_every_worker_exited_did_not_end_the_run(tmp_path: Path, ruleset: RuleSet) -> None:
    """The launcher saw both workers exit at 04:34; the GPU fell off the bus sixteen minutes later:
    its own incident (the node is still bad), after the run's (before, the run's cause)."""
    seen = incidents_of(tmp_path / "late", _node_run_with_a_late_xid(16), ruleset)
    assert [i.cause for i in seen] == [Cause.HANG, Cause.GPU_HARDWARE], seen
    # at the time the workers died, it is what killed them
    seen = incidents_of(tmp_path / "same", _node_run_with_a_late_xid(0), ruleset)
    assert seen and seen[0].cause is Cause.GPU_HARDWARE, seen


def test_a_kernel_line_stamped_with_another_locale_s_month_is_timed(tmp_path: Path, ruleset: RuleSet) -> None:
    from detector.sources.timestamps import parse_timestamp

    stamp = parse_timestamp("abr 27 22:39:53 dgx-a100-37 kernel: NVRM: Xid (PCI:0000:3a:00): 79, pid=", year=2024)
    assert stamp is not None and stamp.time is not None and (stamp.time.month, stamp.host) == (4, "dgx-a100-37")
    german = parse_timestamp("Dez  5 10:00:01 node1 kernel: mlx5_core 0000:4c:00.0: Link down", year=2024)
    assert german is not None and german.time is not None and german.time.month == 12
    # a month-like word and a time in a sentence, no host and program: no stamp
    assert parse_timestamp("may 27 22:39:53 was when it stopped", year=2024) is None


def test_nccl_s_warning_just_before_its_failed_comm_cleanup_is_that_cleanup_s(tmp_path: Path, ruleset: RuleSet) -> None:
    """nccl-tests finishing: an NVLS buffer's "Cuda failure 'invalid argument'" as the communicator
    is freed, then "commReclaim ... failed in destroy/abort". Before: an NVLink fault, drained."""
    log = ("AMEM pid:438423 pause-resume loop:2\n"
           "[2025-12-22 00:24:08] pool0-01824:438416:438416 [0] transport/nvls.cc:130 NCCL WARN Cuda failure 1 "
           "'invalid argument'\n"
           "[2025-12-22 00:24:08] pool0-01824:438416:438416 [0] init.cc:2149 NCCL WARN commReclaim: cleanup comm "
           "0x555556fd69f0 rank 0 failed in destroy/abort, error 1\n"
           "===========================>>>>>>> testing done: broadcast_perf\n")
    assert incidents_of(tmp_path / "done", {"console.log": log}, ruleset) == []
    # the same warning in another process is not that cleanup's
    other = log.replace("438416:438416 [0] transport", "438417:438417 [1] transport")
    assert incidents_of(tmp_path / "other", {"console.log": other}, ruleset) != []


def _exit_then_timeouts(exit_time: str, code: int = 1) -> str:
    return "\n".join([
        *_elastic_failure((4, f"2024-08-20_{exit_time}", "workergpu008", str(code),
                           "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")),
        *(f"[rank{r}]:[E820 11:47:24.06986576{r} ProcessGroupNCCL.cpp:607] [Rank {r}] Watchdog caught collective "
          "operation timeout: WorkNCCL(SeqNum=2, OpType=_ALLGATHER_BASE, NumelIn=1, NumelOut=2, Timeout(ms)=600000) "
          "ran for 600001 milliseconds before timing out." for r in range(4)),
    ]) + "\n"


def test_the_worker_that_exited_with_code_1_before_the_others_timed_out_started_it(tmp_path: Path, ruleset: RuleSet) -> None:
    """torchelastic saw rank 4 exit with code 1 (its traceback not recorded) ten minutes before
    ranks 0-3 timed out in the collective it never joined. Before: a hang of no rank."""
    seen = incidents_of(tmp_path / "early", {"console.log": _exit_then_timeouts("11:37:36")}, ruleset)
    assert seen and (seen[0].cause, seen[0].rank) == (Cause.PYTHON_EXCEPTION, 4), seen
    # an exit after the timeouts is their consequence; a signal's exit says nothing of an exception
    assert incidents_of(tmp_path / "late", {"console.log": _exit_then_timeouts("11:47:30")}, ruleset)[0].cause is Cause.HANG
    sig = incidents_of(tmp_path / "sig", {"console.log": _exit_then_timeouts("11:37:36", code=-6)}, ruleset)
    assert sig and sig[0].cause is not Cause.PYTHON_EXCEPTION, sig


def test_a_scheduler_s_exit_equals_field_is_an_exit_code(tmp_path: Path, ruleset: RuleSet) -> None:
    """A gang scheduler's status block: task 0 failed with exit=139 (128 + SIGSEGV), its siblings
    were stopped for it. Before: no rule read "exit=", no incident."""
    status = ("State: worker_failed  exit=0  failures=1  preemptions=707\n"
              "Tasks: 0/8 completed  failed=1  worker_failed=7\n"
              "TASK 0: failed       exit=139  duration=59.39s\n"
              "TASK 1-7: worker_failed exit=0  duration=~1d1h  (Coscheduled sibling /job/train_lm/0 failed)\n")
    assert [i.cause for i in incidents_of(tmp_path / "gang", {"status.log": status}, ruleset)] == [Cause.CRASH_SIGNAL]
    assert incidents_of(tmp_path / "ok", {"status.log": "TASK 0: succeeded exit=0 duration=1d\n"}, ruleset) == []


def test_the_review_s_cases_read_as_they_should(tmp_path: Path, ruleset: RuleSet) -> None:
    """A review of this session's change found these; each failed before its fix."""
    # a network failure after an earlier step's clean teardown in the same file is still the failure
    destroy = ("[rank0]:[I617 21:49:04.240959850 ProcessGroupNCCL.cpp:1479] [PG ID 0 PG GUID 0(default_pg) Rank 0] "
               "Watchdog joined, destroying NCCL communicators.\n"
               "[rank0]:[I617 21:49:04.735740420 ProcessGroupNCCL.cpp:1487] [PG ID 0 PG GUID 0(default_pg) Rank 0] "
               "Destroy complete.\n")
    ib = ("[2025-06-17 23:10:00] node-07:4242:4300 [0] transport/net_ib.cc:1700 NCCL WARN NET/IB : Got completion from "
          "peer 10.0.0.8<47590> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:10.0.0.7\n")
    later = destroy + "".join(f"step {i} done\n" for i in range(20)) + ib
    assert [i.cause for i in incidents_of(tmp_path / "two", {"slurm-1.out": later}, ruleset)] == [Cause.NETWORK]
    # NCCL's commReclaim after a network error (an abort) leaves the network error the failure
    reclaim = ib + ("[2025-06-17 23:10:01] node-07:4242:4242 [0] init.cc:2149 NCCL WARN commReclaim: cleanup comm "
                    "0x5555 rank 0 failed in destroy/abort, error 6\n")
    assert [i.cause for i in incidents_of(tmp_path / "abort", {"console.log": reclaim}, ruleset)] == [Cause.NETWORK]
    # a JSON record whose time no calendar holds is read without its time, not a crash
    bad = json.dumps({"textPayload": "[rank1]: RuntimeError: CUDA error: an illegal memory access was encountered",
                      "timestamp": "9999-12-31T23:59:59-01:00"})
    huge = json.dumps({"textPayload": "[rank2]: RuntimeError: boom", "timestamp": int("1" * 400)})
    odd = json.dumps({"textPayload": "[rank3]: RuntimeError: boom", "timestamp": "\u00b2"})
    seen = incidents_of(tmp_path / "times", {"logs.jsonl": "\n".join([bad, huge, odd]) + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.ILLEGAL_MEMORY_ACCESS, seen
    # a kernel stamp with its zone 7 hours from the launcher's zoneless times: the fault may have
    # come first, so it is not set apart as later than the job
    pacific = _node_run_with_a_late_xid(0)
    pacific["kern.log.gpu-a"] = pacific["kern.log.gpu-a"].replace("2024-05-04T04:34:39.988626+00:00",
                                                                  "2024-05-03T21:34:39.988626-07:00")
    seen = incidents_of(tmp_path / "zone", pacific, ruleset)
    assert seen and seen[0].cause is Cause.GPU_HARDWARE, seen
    # a rank slower only in a short log's first lines warmed up: no straggler
    warm = _logging_steps(5, 7).splitlines()
    warm = [line.replace("fwd_bwd 3.", "fwd_bwd 1.") if i >= 5 * 8 else line for i, line in enumerate(warm)]
    assert incidents_of(tmp_path / "warm", {"train.log": "\n".join(warm) + "\n"}, ruleset) == []
    # a code-1 exit hours before the timeouts (another launch's) is not their start
    seen = incidents_of(tmp_path / "old", {"console.log": _exit_then_timeouts("06:02:36")}, ruleset)
    assert seen and seen[0].cause is not Cause.PYTHON_EXCEPTION, seen
