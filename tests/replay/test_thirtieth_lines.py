"""The thirtieth session's cases: glog's own report of a termination signal another process
sent, PyTorch/XLA's pod launcher prefix and its per-core exception line, a fatal "F" line with
no CHECK in it, and a line written right behind a console progress bar."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.authoring.explain import explain_line
from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.sources.prefixes import anchored_start, strip_prefix
from detector.types import Cause
from tests.support.replaying import causes_of, incidents_of, write_run

GLOG_SIGTERM = (
    "W0529 18:27:06.378338 40642 init.cc:217] *** Aborted at 1590748026 (unix time) try \"date -d @1590748026\" "
    "if you are using GNU date ***\n"
    "W0529 18:27:06.380812 40642 init.cc:217] PC: @                0x0 (unknown)\n"
    "W0529 18:27:06.381332 40642 init.cc:217] *** SIGTERM (@0x1f4000075c3) received by PID 40642 "
    "(TID 0x7f2cd11ed700) from PID 30147; stack trace: ***\n"
    "W0529 18:27:06.385305 40642 init.cc:217]     @     0x7f2d4665f580 sem_wait\n")


def test_a_trainer_terminated_by_another_process_is_a_failure_of_unknown_cause(tmp_path: Path, ruleset: RuleSet) -> None:
    """glog's handler saying the trainer was sent SIGTERM: the job was torn down, so it failed
    (before, nothing matched: "no incident"); with no rank known nothing says that every
    trainer got it, so it is not read as a stop from outside."""
    assert causes_of(tmp_path / "one", {"console.log": GLOG_SIGTERM}, ruleset) == [Cause.UNKNOWN]


def test_every_named_trainer_sent_sigterm_with_nothing_before_is_a_stop_from_outside(tmp_path: Path, ruleset: RuleSet) -> None:
    files = {}
    for rank in (0, 1):
        pid = 1136639 + rank
        files[f"workerlog.{rank}"] = (
            f"[2023-08-04 12:48:01] ppdet.engine INFO: Epoch: [0] [ 20/100] loss: 1.2{rank}\n"
            f"*** SIGTERM (@0x1157b0) received by PID {pid} (TID 0x7f90747ef700) from PID 1136560; stack trace: ***\n")
    assert causes_of(tmp_path / "both", files, ruleset) == [Cause.PREEMPTION]
    # one of them went first with an error of its own: that is the failure
    files["workerlog.1"] = "[2023-08-04 12:48:01] ppdet.engine INFO: Epoch: [0] [ 20/100]\nValueError: bad box\n"
    seen = incidents_of(tmp_path / "first", files, ruleset)
    assert seen and (seen[0].cause, seen[0].rank) == (Cause.PYTHON_EXCEPTION, 1), seen


def test_the_xla_pod_launcher_s_prefix_names_the_host_not_a_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    line = ("2021-04-23 18:14:43 10.164.0.29 [3] pytorch_lightning.utilities.exceptions.MisconfigurationException: "
            "No TPU devices were found.")
    pre = strip_prefix(line)
    assert (pre.rank, pre.local_rank, pre.host) == (None, None, "10.164.0.29"), pre
    assert pre.message.startswith("2021-04-23 18:14:43 pytorch_lightning"), pre.message
    text = line + "\n2021-04-23 18:14:46 10.164.0.27 [0] TPU available: True, using: 8 TPU cores\n"
    seen = incidents_of(tmp_path / "pod", {"console.log": text}, ruleset)
    assert seen and (seen[0].cause, seen[0].node) == (Cause.PYTHON_EXCEPTION, "10.164.0.29"), seen
    # its own lines (no address) keep their text
    own = '2020-07-12 03:12:40  [] Command to distribute: "python" "train.py"'
    assert strip_prefix(own).message == own


def test_the_exception_one_tpu_core_raised_is_the_failure_unless_it_says_more(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("Exception in device=TPU:0: tensorflow/compiler/xla/xla_client/xrt_computation_client.cc:1291 : Check "
            "failed: session.Run({tensorflow::Output(result, 0)}, &outputs) == ::tensorflow::Status::OK() (Internal: "
            "From /job:tpu_worker/replica:0/task:0:\n"
            "2 root error(s) found.\n"
            "  (0) Internal: Invalid system configuration: 2x4 host topology with 0 missing hosts, but 1 hosts in total.\n")
    assert causes_of(tmp_path / "cfg", {"console.log": text}, ruleset) == [Cause.PYTHON_EXCEPTION]
    oom = ("Exception in device=TPU:6: RESOURCE_EXHAUSTED: From /job:localservice/replica:0/task:0:\n"
           "  (0) RESOURCE_EXHAUSTED: Attempting to reserve 6.48G at the bottom of memory. That was not possible. "
           "There are 5.92G free, 0B reserved, and 5.92G reservable.\n")
    assert causes_of(tmp_path / "oom", {"console.log": oom}, ruleset)[:1] == [Cause.CUDA_OOM]


def test_a_fatal_line_behind_a_progress_bar_is_read(tmp_path: Path, ruleset: RuleSet) -> None:
    """tqdm ends its bar with no newline, so the fatal line the runtime wrote next joins it:
    rules anchored at a line's start read what follows the bar (before: "no incident")."""
    fatal = ("F0000 00:00:1717141650.890307    9276 pjrt_computation_client.cc:487] Non-OK-status: status status: "
             "INTERNAL: Core halted unexpectedly: INTERNAL: Accelerator device halted prematurely")
    bar = "  0%|          | 1/7800 [00:01<2:37:37,  1.21s/it]"
    assert anchored_start(bar + fatal) == len(bar)
    assert anchored_start(bar) == 0  # a bar alone: nothing behind it
    assert causes_of(tmp_path / "tpu", {"console.log": bar + fatal + "\n"}, ruleset) == [Cause.UNKNOWN]
    # a CHECK is the program's assertion, as before; an "F" line a more specific rule knows is that
    check = "F1122 13:50:47.079037 63929 user_op.cpp:299] Check failed: it != end() Cannot find input\n"
    assert causes_of(tmp_path / "check", {"console.log": check}, ruleset) == [Cause.PYTHON_EXCEPTION]


def test_an_exception_and_a_rank_prefix_behind_a_progress_bar_are_read(tmp_path: Path, ruleset: RuleSet) -> None:
    bar = "Epoch 3:  45%|████▌     | 450/1000 [00:30<00:36, 15.00it/s, v_num=0, loss=0.123]"
    pre = strip_prefix(bar + "[rank5]: RuntimeError: shape mismatch")
    assert (pre.rank, pre.message) == (5, "RuntimeError: shape mismatch"), pre
    seen = incidents_of(tmp_path / "bar", {"console.log": bar + "[rank5]: RuntimeError: shape mismatch\n"}, ruleset)
    assert seen and (seen[0].cause, seen[0].rank) == (Cause.PYTHON_EXCEPTION, 5), seen
    # and `rules test --explain` reads it as the engine does
    hits = explain_line(bar + "ValueError: bad batch", ruleset.rules).hits
    assert any(h.rule.id == "python.uncaught_exception" for h in hits), hits


def test_a_store_wait_that_ran_out_then_its_cut_traceback_is_a_hang_of_no_named_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    """A rank's store wait runs out, then its traceback (the paste cut before the exception's
    line): the wait is the failure's last word (before: an uncaught exception on the waiting rank,
    whose traceback only says where it waited)."""
    frames = "".join(f'[rank2]:   File "/src/train.py", line {n}, in step{n}\n[rank2]:     x = step{n + 1}()\n'
                     for n in range(6))
    text = ("[rank2]:[W303 08:23:41.024955281 socket.cpp:462] [c10d] waitForInput: poll for socket SocketImpl(fd=71, "
            "addr=[localhost]:43246, remote=[localhost]:29500) returned 0, likely a timeout\n"
            "[rank2]:[W303 08:23:41.025328690 socket.cpp:487] [c10d] waitForInput: socket SocketImpl(fd=71, "
            "addr=[localhost]:43246, remote=[localhost]:29500) timed out after 600000ms\n"
            "[rank2]: Traceback (most recent call last):\n" + frames)
    seen = incidents_of(tmp_path / "wait", {"console.log": text}, ruleset)
    assert seen and (seen[0].cause, seen[0].rank) == (Cause.HANG, None), seen
    assert "waited in the store" in seen[0].explanation, seen[0].explanation
    # the traceback says what it raised: that is the failure, as before
    said = text + "[rank2]: ValueError: bad shapes\n"
    seen = incidents_of(tmp_path / "said", {"console.log": said}, ruleset)
    assert seen and (seen[0].cause, seen[0].rank) == (Cause.PYTHON_EXCEPTION, 2), seen


def _dump(pid: int, frames: list[str]) -> str:
    return (f"Process {pid}: /usr/bin/python3 -u train.py\nPython v3.10.12 (/usr/bin/python3)\n\n"
            f'Thread {pid} (idle): "MainThread"\n' + "".join(f"    {fr}\n" for fr in frames)
            + 'Thread 999 (idle): "pt_autograd_0"\n')


WAITING = ["synchronize (torch/cuda/__init__.py:954)", "all_reduce (torch/distributed/distributed_c10d.py:2501)",
           "wrapper (torch/distributed/c10d_logger.py:83)", "train_step (train.py:309)"]


def test_the_one_stack_dump_not_waiting_in_a_collective_names_the_rank_that_stopped(tmp_path: Path, ruleset: RuleSet) -> None:
    """py-spy dumps named for the tool, the host and the pid (py-spy-node07-241990.txt): their
    number is a pid, not a rank (before, it was read as rank 241990); the one process whose main
    thread is elsewhere while the others wait in all_reduce is the one they wait for, its rank the
    one NCCL's lines give its pid."""
    pids = {0: 5100, 1: 5101, 2: 5102, 3: 5103}
    log = "".join(f"node07:{pid}:{pid + 7} [{rank}] NCCL INFO ncclCommInitRank comm 0x55d5c655409{rank} rank {rank} "
                  f"nranks 4 cudaDev {rank} nvmlDev {rank} busId {rank + 1}8000 commId 0x89dadf4a81bc3b16 - Init COMPLETE\n"
                  for rank, pid in pids.items())
    log += "".join(f"[rank{r}]:step 12 loss 2.31\n" for r in pids)
    files = {"train.log": log}
    for rank, pid in pids.items():
        frames = WAITING if rank != 2 else ["acquire (logging/__init__.py:917)", "handle (logging/__init__.py:1630)",
                                            "log_metrics (utils/metrics.py:61)", "train_step (train.py:331)"]
        files[f"debug/py-spy-node07-{pid}.txt"] = _dump(pid, frames)
    seen = incidents_of(tmp_path / "dumps", files, ruleset)
    assert seen and (seen[0].cause, seen[0].rank) == (Cause.HANG, 2), seen
    assert "only one not waiting in a collective (in acquire (logging" in seen[0].explanation, seen[0].explanation
    # every dump waits in the collective: none stands out, as before
    files["debug/py-spy-node07-5102.txt"] = _dump(5102, WAITING)
    seen = incidents_of(tmp_path / "all", files, ruleset)
    assert seen and (seen[0].cause, seen[0].rank) == (Cause.HANG, None), seen


def test_a_gpu_the_kernel_lost_is_the_rank_whose_own_cuda_call_failed_on_that_node(tmp_path: Path, ruleset: RuleSet) -> None:
    """The kernel names the node and the GPU's bus, no line maps the bus to a rank; srun says
    which node ran task 7, whose own log shows the launch failure a GPU falling off the bus
    gives its process: that rank is the initiator (before: the node only)."""
    out = "".join(f" {r}: node07:{2000 + r}:{2000 + r} [{r}] NCCL INFO Bootstrap : Using ib0:10.0.0.7<0>\n" for r in range(7))
    out += "".join(f"{r}: [rank{r}]: step 4760 loss 3.35\n" for r in range(16))
    out += (" 7: [rank7]: Traceback (most recent call last):\n"
            ' 7: [rank7]:   File "/src/train.py", line 217, in train\n'
            " 7: [rank7]:     metrics = reduce_metrics(loss, step)\n"
            " 7: [rank7]: RuntimeError: CUDA error: unspecified launch failure\n"
            "srun: error: node07: task 7: Exited with exit code 1\n"
            "srun: error: node07: tasks 0-6: Aborted (core dumped)\n")
    dmesg = ("[Tue Apr  1 07:12:29 2025] NVRM: Xid (PCI:0000:bd:00): 79, GPU has fallen off the bus.\n")
    seen = incidents_of(tmp_path / "lost", {"slurm-9311845.out": out, "kernel/dmesg-node07.txt": dmesg}, ruleset)
    assert seen and (seen[0].cause, seen[0].rank, seen[0].node) == (Cause.GPU_HARDWARE, 7, "node07"), seen
    # a run of one node's worth of ranks, no host named but the kernel log's: the rank whose own
    # CUDA call failed, as well
    alone = "".join(f"[rank{r}]: step 4760 loss 3.35\n" for r in range(8))
    alone += "[rank7]: RuntimeError: CUDA error: unspecified launch failure\n"
    seen = incidents_of(tmp_path / "alone", {"slurm-9311845.out": alone, "kernel/dmesg-node07.txt": dmesg}, ruleset)
    assert seen and (seen[0].cause, seen[0].rank, seen[0].node) == (Cause.GPU_HARDWARE, 7, "node07"), seen
    # two ranks of the node failed on their own: which GPU was theirs, nothing says
    two = alone + "[rank6]: RuntimeError: CUDA error: unspecified launch failure\n"
    seen = incidents_of(tmp_path / "two", {"slurm-9311845.out": two, "kernel/dmesg-node07.txt": dmesg}, ruleset)
    assert seen and (seen[0].cause, seen[0].rank, seen[0].node) == (Cause.GPU_HARDWARE, None, "node07"), seen


def _timed_steps(slow: int | None, steps: int, comm_apart: bool = True) -> str:
    lines = []
    for step in range(1, steps + 1):
        for rank in range(4):
            fwd = (8100.0 if rank == slow else 3700.0) + (step * 7 + rank * 13) % 50
            wait = (40.0 if rank == slow or slow is None else 4400.0) + (step * 3 + rank) % 20
            comm = f" | allreduce {wait:7.1f} ms" if comm_apart else ""
            lines.append(f"2024-06-30 08:{step // 60:02d}:{step % 60:02d},664 | INFO | rank {rank:2d} | step {step:6d} | "
                         f"loss 2.43 | fwd_bwd {fwd:7.1f} ms{comm} | data 0.005 s")
    return "\n".join(lines) + "\n"


def test_a_rank_computing_slower_in_a_short_log_is_a_straggler(tmp_path: Path, ruleset: RuleSet) -> None:
    """30 steps of 4 ranks, rank 2's forward-backward twice the others' while they wait in the
    all-reduce they time apart: a straggler (before: too few steps for three windows of 20, the
    backward's time never read as the rank's own, and the logger's "| rank 2 |" field no rank)."""
    seen = incidents_of(tmp_path / "slow", {"train.log": _timed_steps(2, 30)}, ruleset)
    assert seen and (seen[0].cause, seen[0].rank) == (Cause.STRAGGLER, 2), seen
    assert "windows of 10 steps" in " ".join(seen[0].evidence), seen[0].evidence
    # every rank alike: nothing
    assert incidents_of(tmp_path / "even", {"train.log": _timed_steps(None, 30)}, ruleset) == []
    # a backward time with no communication timed apart may hold the all-reduce: not read alone
    assert incidents_of(tmp_path / "folded", {"train.log": _timed_steps(2, 30, comm_apart=False)}, ruleset) == []
    # too few steps for three windows of five: single step lines, five in a row (thirty-first
    # session); four are too few
    short = incidents_of(tmp_path / "short", {"train.log": _timed_steps(2, 12)}, ruleset)
    assert short and (short[0].cause, short[0].rank) == (Cause.STRAGGLER, 2), short
    assert "step lines in a row" in " ".join(short[0].evidence), short[0].evidence
    assert incidents_of(tmp_path / "shorter", {"train.log": _timed_steps(2, 4)}, ruleset) == []


def test_a_hung_rank_whose_faulthandler_dump_waits_for_its_data_loader_is_starved(tmp_path: Path, ruleset: RuleSet) -> None:
    """faulthandler's dump (a watchdog's dump_traceback_later) of the rank the others waited for
    shows its main thread in the data loader: a data loader stall (before: only py-spy's form
    counted, so a hang)."""
    files = {}
    for rank in range(4):
        text = f"[rank{rank}]:step 2500 loss 5.93\n"
        if rank == 2:
            text += "".join(f"[rank2]:{line}\n" for line in (
                "Timeout (0:05:00)!", "Thread 0x00007f2e10886640 (most recent call first):",
                '  File "/usr/lib/python3.12/multiprocessing/queues.py", line 113 in get',
                '  File "/opt/conda/lib/python3.12/site-packages/torch/utils/data/dataloader.py", line 1243 in _try_get_data',
                '  File "/opt/conda/lib/python3.12/site-packages/torch/utils/data/dataloader.py", line 708 in __next__',
                '  File "/app/run_clm.py", line 601 in main'))
        else:
            text += (f"[rank{rank}]:[E0927 22:53:13.101993960 ProcessGroupNCCL.cpp:759] [Rank {rank}] Watchdog caught "
                     "collective operation timeout: WorkNCCL(SeqNum=2504, OpType=ALLREDUCE, NumelIn=1048576, "
                     "NumelOut=1048576, Timeout(ms)=600000) ran for 600084 milliseconds before timing out.\n")
        files[f"rank{rank}.log"] = text
    seen = incidents_of(tmp_path / "starved", files, ruleset)
    assert seen and (seen[0].cause, seen[0].rank) == (Cause.DATA_LOADER_STALL, 2), seen
    # a dump the watchdog took earlier, training going on after it: no sign of the stall
    dump = files["rank2.log"].split("\n", 1)[1]
    files["rank2.log"] = dump + "".join(f"[rank2]:step {s} loss 5.93\n" for s in range(2400, 2504))
    seen = incidents_of(tmp_path / "earlier", files, ruleset)
    assert seen and (seen[0].cause, seen[0].rank) == (Cause.HANG, 2), seen


def test_the_job_s_own_end_of_training_line_with_no_rank_ends_every_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    """Steps that name their ranks, then a minute later the job's "training finished" that no
    rank printed (its main process's logger): the ranks finished (before: that line was dropped,
    and the minute without steps read as a hang)."""
    lines = [f"2024-11-08 11:{36 + s // 60:02d}:{s % 60:02d}.419 | INFO | trainer:train_step:212 - [rank {r}] step={s} "
             f"loss=7.25 fwd_bwd_ms=2245.9 wait_ms=139.7" for s in range(1, 41) for r in range(4)]
    text = "\n".join(lines) + "\n2024-11-08 11:37:45,879 | INFO | training finished: 40 steps in 00:40, final loss 7.17\n"
    assert incidents_of(tmp_path / "done", {"train.log": text}, ruleset) == []


def test_the_review_s_cases_read_as_before(tmp_path: Path, ruleset: RuleSet) -> None:
    """What the session's review found: a "[rank 3]" inside a message names no rank; an Abseil
    CHECK with its epoch-second time is the program's assertion; dumps in different collectives
    are still a mismatch, whatever one other dump shows; the kernel log's own node does not place
    ranks no line places."""
    pre = strip_prefix("RuntimeError: timed out waiting for [rank 3] to send its shard")
    assert pre.rank is None, pre
    check = "F0000 00:00:1717141650.890307    9276 tpu_client.cc:120] Check failed: status.ok() INTERNAL: boom\n"
    assert causes_of(tmp_path / "absl", {"console.log": check}, ruleset) == [Cause.PYTHON_EXCEPTION]
    pids = {0: 5100, 1: 5101, 2: 5102, 3: 5103}
    log = "".join(f"node07:{pid}:{pid + 7} [{rank}] NCCL INFO ncclCommInitRank comm 0x55d5c655409{rank} rank {rank} "
                  f"nranks 4 cudaDev {rank} nvmlDev {rank} busId {rank + 1}8000 commId 0x89dadf4a81bc3b16 - Init COMPLETE\n"
                  for rank, pid in pids.items())
    files = {"train.log": log}
    for rank, pid in pids.items():
        frames = WAITING if rank != 3 else ["all_gather_into_tensor (torch/distributed/distributed_c10d.py:2709)",
                                            "train_step (train.py:309)"]
        files[f"debug/py-spy-node07-{pid}.txt"] = _dump(pid, frames)
    files["debug/py-spy-node07-5000.txt"] = _dump(5000, ["_invoke_run (torch/distributed/elastic/agent/server/api.py:835)",
                                                         "run (torch/distributed/elastic/agent/server/api.py:680)"])
    assert causes_of(tmp_path / "mismatch", files, ruleset)[:1] == [Cause.COLLECTIVE_MISMATCH]
    out = "".join(f"[rank{r}]: step 4760 loss 3.35\n" for r in range(16))
    out += "[rank12]: RuntimeError: CUDA error: unspecified launch failure\n"
    dmesg = "[Tue Apr  1 07:12:29 2025] NVRM: Xid (PCI:0000:bd:00): 79, GPU has fallen off the bus.\n"
    seen = incidents_of(tmp_path / "unplaced", {"train.log": out, "kernel/dmesg-node07.txt": dmesg}, ruleset)
    assert seen and seen[0].cause is Cause.GPU_HARDWARE and seen[0].rank is None, seen


def test_fresh29_s_lines_once_it_was_scored(tmp_path: Path, ruleset: RuleSet) -> None:
    """After fresh29's one scoring (the session's set-aside, then development): TensorFlow aborting
    a collective on an op's own error, TensorFlow with no kernel for an op on its device, the XLA
    client's CHECK, oneCCL with no network provider, and a store wait for a key that ran out."""
    tf = ("2020-08-05 20:21:04.420413: E tensorflow/core/common_runtime/ring_alg.cc:274] Aborting RingReduce with "
          "Invalid argument: [_Derived_]indices[4] = 14 is not in [0, 14)\n\t [[{{node GatherV2}}]]\n")
    assert causes_of(tmp_path / "tf", {"console.log": tf}, ruleset) == [Cause.PYTHON_EXCEPTION]
    kernel = ("while/NcclAllReduce_271: unsupported op: No registered 'NcclAllReduce' OpKernel for XLA_GPU_JIT devices "
              "compatible with node {{node while/NcclAllReduce_271}}\n")
    assert causes_of(tmp_path / "xla", {"console.log": kernel}, ruleset) == [Cause.PYTHON_EXCEPTION]
    check = (" 2020-05-04 19:20:43.062835: E    6735 tensorflow/compiler/xla/xla_client/tf_logging.cc:11] Check failed: "
             "session.Run({tensorflow::Output(result, 0)}, &outputs) == ::tensorflow::Status::OK() (Invalid argument: No "
             "matching devices found for '/job:c_tpu_worker/replica:0/task:0/device:TPU_SYSTEM:0'\n")
    assert causes_of(tmp_path / "xrt", {"console.log": check}, ruleset) == [Cause.PYTHON_EXCEPTION]
    ccl = ("2025:05:23-19:04:20:(168955) |CCL_ERROR| atl_ofi_helper.cpp:1635 atl_ofi_open_nw_provs: can not open network "
           "providers\n2025:05:23-19:04:20:(168955) |CCL_ERROR| atl_ofi.cpp:237 init: can't find suitable provider\n"
           "[hedp017:168955:0:168955] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x8)\n")
    assert causes_of(tmp_path / "ccl", {"console.log": ccl}, ruleset)[:1] == [Cause.NETWORK]
    wait = ('[rank0]:   File "/vllm/distributed/utils.py", line 197, in broadcast_obj\n'
            "[rank0]:     recv_obj = pickle.loads(self.store.get(key))\n"
            "[rank0]: torch.distributed.DistStoreError: wait timeout after 300000ms, keys: /broadcast_from/0/75465\n")
    seen = incidents_of(tmp_path / "wait", {"console.log": wait}, ruleset)
    assert seen and (seen[0].cause, seen[0].rank) == (Cause.HANG, None), seen


def test_the_job_s_end_before_some_ranks_last_steps_does_not_break_the_split(tmp_path: Path, ruleset: RuleSet) -> None:
    """The job's end line (no rank) after ranks 0 and 1 stopped but before ranks 2 and 3 did: those
    two count as finished with it, and the split between finished and unfinished ranks reads it as
    their end (before: a KeyError, the replay failed)."""
    lines = [f"2024-11-08 11:{36 + s // 60:02d}:{s % 60:02d}.419 | INFO | trainer:train_step:212 - [rank {r}] step={s} "
             f"loss=7.25 fwd_bwd_ms=2245.9 wait_ms=139.7" for s in range(1, 31) for r in range(4)]
    lines.append("2024-11-08 11:36:31,000 | INFO | training finished: 30 steps")
    lines += [f"2024-11-08 11:{36 + s // 60:02d}:{s % 60:02d}.419 | INFO | trainer:train_step:212 - [rank {r}] step={s} "
              f"loss=7.25 fwd_bwd_ms=2245.9 wait_ms=139.7" for s in range(31, 45) for r in (2, 3)]
    seen = incidents_of(tmp_path / "split", {"train.log": "\n".join(lines) + "\n"}, ruleset)
    assert all(i.cause in (Cause.HANG, Cause.STRAGGLER) for i in seen), seen


def test_a_fault_of_the_step_statistics_costs_their_findings_not_the_diagnosis(tmp_path: Path, ruleset: RuleSet,
                                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Should the statistics fail on a run (a bug of rankdoctor's), the replay still reports what the
    rules found, and says the statistics were skipped (before: a traceback and no report)."""
    import detector.stats as stats

    def broken(*args: object, **kwargs: object) -> list[object]:
        raise KeyError(0)

    monkeypatch.setattr(stats, "analyze", broken)
    text = _timed_steps(None, 30) + "[rank1]: RuntimeError: CUDA error: an illegal memory access was encountered\n"
    report = replay_path(write_run(tmp_path / "run", {"train.log": text}), ruleset)
    assert [i.cause for i in report.incidents][:1] == [Cause.ILLEGAL_MEMORY_ACCESS], report.incidents
    assert any("step statistics skipped" in w for w in report.warnings), report.warnings


def test_a_hung_rank_whose_node_lost_its_lustre_target_is_starved(tmp_path: Path, ruleset: RuleSet) -> None:
    """The kernel of the hung rank's node says its Lustre client lost a storage target, operations
    waiting: a data loader stall, as with NFS (before: a hang)."""
    files = {}
    for rank in range(4):
        text = f"[rank{rank}]:step 2500 loss 5.93\n"
        if rank != 1:
            text += (f"[rank{rank}]:[E0927 22:53:13.101993960 ProcessGroupNCCL.cpp:759] [Rank {rank}] Watchdog caught "
                     "collective operation timeout: WorkNCCL(SeqNum=2504, OpType=ALLREDUCE, NumelIn=1048576, "
                     "NumelOut=1048576, Timeout(ms)=600000) ran for 600084 milliseconds before timing out.\n")
        files[f"node0{rank // 2 + 1}/rank{rank}.log"] = text
    files["node01/dmesg.txt"] = ("[2961099.671345] Lustre: scratch-OST0004-osc-ffffc6b91281d5d9: Connection to "
                                 "scratch-OST0004 (at 10.159.140.211@o2ib) was lost; in progress operations using this "
                                 "service will wait for recovery to complete\n")
    seen = incidents_of(tmp_path / "lustre", files, ruleset)
    assert seen and (seen[0].cause, seen[0].rank) == (Cause.DATA_LOADER_STALL, 1), seen
