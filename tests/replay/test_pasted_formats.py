"""What pasting does to logs and what a paste mixes: kernel lines inside a training log, quote
markers and indentation before prefixed lines, and the inferences a few lines allow (which rank
fell behind, a network-only failure, a secondary Xid). Lines come from development cases of
replay_logs/real or are the programs' documented formats."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.sources.prefixes import quick_prefix, strip_prefix
from detector.sources.timestamps import parse_timestamp
from detector.types import Cause
from tests.support.replaying import incidents_of


def _verdicts(tmp_path: Path, text: str, ruleset: RuleSet) -> list[tuple[Cause, int | None, bool]]:
    return [(i.cause, i.rank, i.drain) for i in incidents_of(tmp_path, {"train.log": text}, ruleset)]


def test_dmesg_lines_pasted_into_a_training_log_count(tmp_path: Path, ruleset: RuleSet) -> None:
    got = _verdicts(tmp_path, (
        "[rank0]:2024-01-08 10:00:00,000 INFO step 100 loss 2.1\n"
        "[rank1]:2024-01-08 10:00:01,000 INFO step 101 loss 2.1\n"
        "$ dmesg -T | grep -i xid\n"
        "[Mon Jan  8 10:00:05 2024] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
    ), ruleset)
    assert got and got[0][0] is Cause.GPU_HARDWARE and got[0][2]


def test_a_context_switch_timeout_after_an_application_fault_is_not_hardware(tmp_path: Path, ruleset: RuleSet) -> None:
    # the Xid catalog: 13 is the application's; 109 that follows it on the same GPU is its consequence
    got = _verdicts(tmp_path, (
        "[Mon Jan  8 10:00:00 2024] NVRM: Xid (PCI:0000:3b:00): 13, pid=1234, name=python, Graphics SM Warp Exception "
        "on (GPC 1, TPC 0, SM 0): Out Of Range Address\n"
        "[Mon Jan  8 10:00:00 2024] NVRM: Xid (PCI:0000:3b:00): 109, pid=1234, name=python, Ch 00000010, errorString "
        "CTX SWITCH TIMEOUT, Info 0x3c046\n"
    ), ruleset)
    assert got == [(Cause.ILLEGAL_MEMORY_ACCESS, None, False)]


def test_a_context_switch_timeout_alone_is_still_hardware(tmp_path: Path, ruleset: RuleSet) -> None:
    got = _verdicts(tmp_path, (
        "[Mon Jan  8 10:00:00 2024] NVRM: Xid (PCI:0000:3b:00): 109, pid=1234, name=python, Ch 00000010, errorString "
        "CTX SWITCH TIMEOUT, Info 0x3c046\n"
        "[Mon Jan  8 10:00:01 2024] NVRM: Xid (PCI:0000:3b:00): 109, pid=1234, name=python, Ch 00000010, errorString "
        "CTX SWITCH TIMEOUT, Info 0x3c046\n"
    ), ruleset)
    assert got and got[0][0] is Cause.GPU_HARDWARE


@pytest.mark.parametrize("lead", ["    ", "> ", "[1831] ", ">   "])
def test_prefixes_behind_a_paste_quote_indent_or_line_number(lead: str) -> None:
    got = strip_prefix(lead + "[rank4]:[E602 11:18:52.531176265 ProcessGroupNCCL.cpp:684] [Rank 4] Some NCCL operations")
    assert got.rank == 4 and got.message.startswith("[E602 11:18:52")


@pytest.mark.parametrize("line", ["    raise RuntimeError(x)", "[1] foo", "    File \"train.py\", line 3, in <module>"])
def test_a_lead_alone_is_left_alone(line: str) -> None:
    got = strip_prefix(line)
    assert got.rank is None and got.message == line


def test_an_indented_paste_keeps_its_rank_over_the_device_number(tmp_path: Path, ruleset: RuleSet) -> None:
    got = _verdicts(tmp_path, (
        "    [rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 2 has a total "
        "capacity of 79.11 GiB\n"), ruleset)
    assert got == [(Cause.CUDA_OOM, 1, False)]


def test_the_rank_that_timed_out_at_an_earlier_collective_fell_behind(tmp_path: Path, ruleset: RuleSet) -> None:
    # G-llamafactory-2902: rank 0 still in #1516 while rank 1 waits in #1517
    got = _verdicts(tmp_path, (
        "[rank0]:[E1123 00:52:57.664949121 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=1516, OpType=ALLREDUCE, NumelIn=25427968, NumelOut=25427968, Timeout(ms)=600000) ran "
        "for 600004 milliseconds before timing out.\n"
        "[rank1]:[E1123 00:52:57.704703955 ProcessGroupNCCL.cpp:607] [Rank 1] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=1517, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600026 "
        "milliseconds before timing out.\n"), ruleset)
    assert got == [(Cause.HANG, 0, False)]


def test_only_network_errors_read_as_network_without_a_drain(tmp_path: Path, ruleset: RuleSet) -> None:
    # G-deepspeed-6875: flushed work requests and the remote error, no rank seen dying
    got = _verdicts(tmp_path, (
        "50428e4af543:34610:36821 [4] ib_plugin.c:1673 NCCL WARN NET/IB: Got completion from peer 10.0.1.23<34696> with "
        "status=5 opcode=0 len=0 vendor err 249 (Recv) hca ibp152s0\n"
        "[rank4]:[E1229 16:47:25.333820755 ProcessGroupNCCL.cpp:541] [Rank 4] found async exception when checking for "
        "NCCL errors: NCCL error: remote process exited or there was a network error, NCCL version 2.22.3\n"), ruleset)
    assert got == [(Cause.NETWORK, None, False)]


def test_ucx_retry_exceeded_is_network(tmp_path: Path, ruleset: RuleSet) -> None:
    got = _verdicts(tmp_path, (
        "[g07r1n14:27251:0:27251] ib_mlx5_log.c:143  Transport retry count exceeded on mlx5_0:1/IB (synd 0x15 vend 0x81 "
        "hw_synd 0/0)\n"), ruleset)
    assert got and got[0][0] is Cause.NETWORK


def test_lspci_rev_ff_is_a_lost_gpu(tmp_path: Path, ruleset: RuleSet) -> None:
    got = _verdicts(tmp_path, (
        "1a:00.0 VGA compatible controller: NVIDIA Corporation TU102GL [Quadro RTX 6000/8000] (rev a1)\n"
        "1c:00.0 VGA compatible controller: NVIDIA Corporation TU102GL [Quadro RTX 6000/8000] (rev ff)\n"), ruleset)
    assert got and got[0][0] is Cause.GPU_HARDWARE


def test_old_mp_spawn_exception_names_the_process(tmp_path: Path, ruleset: RuleSet) -> None:
    # G-hybrik-198: torch < 1.6 raised a plain Exception; one node, so process 3 is rank 3
    got = _verdicts(tmp_path, (
        "  File \"/usr/lib/python3.6/site-packages/torch/multiprocessing/spawn.py\", line 107, in join\n"
        "    (error_index, name)\n"
        "Exception: process 3 terminated with signal SIGKILL\n"), ruleset)
    assert got and got[0][1] == 3


@pytest.mark.parametrize(("text", "cause", "rank"), [
    ("ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).\n",
     Cause.DATA_LOADER_STALL, None),
    ("Loss is nan, stopping training\n", Cause.PYTHON_EXCEPTION, None),
    ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, "
     "invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.19.3 ncclInvalidUsage: This usually reflects "
     "invalid usage of NCCL library. Last error: Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000\n",
     Cause.PYTHON_EXCEPTION, 1),
    ("[rank3]: torch.distributed.DistBackendError: [3] is setting up NCCL communicator and retrieving ncclUniqueId from "
     "[0] via c10d key-value store by key '0', but store->get('0') got error: Connection reset by peer\n", Cause.UNKNOWN, 0),
    ("[E ProcessGroupGloo.cpp:138] Rank 1 successfully reached monitoredBarrier, but received errors while waiting for "
     "send/recv from rank 0. Please check rank 0 logs for faulty rank.\n", Cause.UNKNOWN, 0),
])
def test_documented_messages(tmp_path: Path, ruleset: RuleSet, text: str, cause: Cause, rank: int | None) -> None:
    got = _verdicts(tmp_path, text, ruleset)
    assert got and got[0][:2] == (cause, rank)


def test_an_untimed_lost_gpu_outranks_an_untimed_rank_error(tmp_path: Path, ruleset: RuleSet) -> None:
    # no stamps anywhere: the Xid names only its GPU, the CUDA error its rank; the GPU fault is the cause
    (tmp_path / "a.log").write_text("[rank1]:RuntimeError: CUDA error: an illegal memory access was encountered\n")
    (tmp_path / "b.log").write_text("NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.\n")
    report = replay_path(tmp_path, ruleset)
    assert report.incidents and report.incidents[0].cause is Cause.GPU_HARDWARE


def test_pdsh_labels_before_indented_traceback_lines(tmp_path: Path, ruleset: RuleSet) -> None:
    # I-deepspeed-2899: the DeepSpeed launcher's pdsh keeps each line's own indentation; the
    # CUDA OOM's "GPU 2" is that node's device, not global rank 2
    (tmp_path / "train.log").write_text(
        "gpu-q-13: ret = input.softmax(dim, dtype=dtype)\n"
        "gpu-q-13:     ret = input.softmax(dim, dtype=dtype)\n"
        "gpu-q-13: torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 896.00 MiB (GPU 2; 79.17 GiB "
        "total capacity; 76.68 GiB already allocated; 381.31 MiB free; 77.24 GiB reserved in total by PyTorch)\n")
    inc = replay_path(tmp_path, ruleset).incidents[0]
    assert (inc.cause, inc.initiator.rank, inc.initiator.node) == (Cause.CUDA_OOM, None, "gpu-q-13")


def test_torchx_role_and_replica_labels_are_removed_where_the_file_uses_them(tmp_path: Path, ruleset: RuleSet) -> None:
    """``torchx log`` puts the role and replica ("main/0 ") before each line of a replica: torchrun's
    own argparse error behind it read healthy (AAU-torchx-759-awsbatch). Only a file that uses the
    label throughout loses it: one line that begins "data/0 " by chance keeps it."""
    from detector.sources.prefixes import PrefixStyle, detect_style

    usage = ["main/0 usage: torchrun [-h] [--nnodes NNODES] [--nproc-per-node NPROC_PER_NODE]"]
    usage += [f"main/0                 [--opt{i} OPT{i}]" for i in range(6)]
    error = "main/0 torchrun: error: argument --node-rank/--node_rank: invalid int value: '$AWS_BATCH_JOB_NODE_INDEX'"
    lines = ["=== BEGIN LOG aws_batch://q/torchx:ddp-1 (FAILED)===", *usage, error,
             "=== END LOG aws_batch://q/torchx:ddp-1 (FAILED) ==="]
    assert detect_style(lines) is PrefixStyle.TASK_LABEL
    assert strip_prefix(error, PrefixStyle.TASK_LABEL).message.startswith("torchrun: error: argument --node-rank")
    assert detect_style(["data/0 items loaded", "epoch 1", "epoch 2", "epoch 3"]) is not PrefixStyle.TASK_LABEL
    (tmp_path / "console.log").write_text("\n".join(lines) + "\n")
    report = replay_path(tmp_path, ruleset)
    assert [i.cause for i in report.incidents] == [Cause.PYTHON_EXCEPTION]


def test_mpirun_timestamp_output_stamps_each_line_before_its_tag(tmp_path: Path, ruleset: RuleSet) -> None:
    """``mpirun --timestamp-output --tag-output`` puts a ctime right before the rank's tag, with no
    space: the tag gives the rank, the ctime the time, and the message is read after both."""
    line = "Fri Oct 23 17:16:00 2020[1,3]<stderr>:RuntimeError: CUDA error: an illegal memory access was encountered"
    assert quick_prefix(line) is None
    pre = strip_prefix(line)
    assert pre.rank == 3 and pre.message.endswith("2020 RuntimeError: CUDA error: an illegal memory access was encountered")
    stamp = parse_timestamp(pre.message)
    assert stamp is not None and stamp.time is not None and stamp.time.isoformat() == "2020-10-23T17:16:00+00:00"
    assert strip_prefix("Fri: payday").rank is None
    got = incidents_of(tmp_path, {"train.log": "Fri Oct 23 17:15:00 2020[1,0]<stdout>:epoch 1\n" + line + "\n"}, ruleset)
    assert [(g.cause, g.rank) for g in got][:1] == [(Cause.ILLEGAL_MEMORY_ACCESS, 3)]


def test_icefall_logger_rank_of_world_is_a_rank_hint() -> None:
    pre = strip_prefix("2022-04-14 10:59:43,162 INFO [train.py:1069] (5/8) Sanity check -- see if any batch would OOM.")
    assert (pre.rank, pre.hinted) == (5, True)
    assert strip_prefix("2022-04-14 10:59:43,162 INFO [train.py:1069] (9/8) progress").rank is None  # not a rank
    assert strip_prefix("2022-04-14 10:59:43,162 INFO [train.py:1069] (epoch 5/8) progress").rank is None


def test_skypilot_node_prefix_names_the_node_not_a_rank() -> None:
    """SkyPilot puts "(head, rank=0, pid=…)" / "(worker1, rank=1, pid=…, ip=…)" before each node's
    lines: its rank is the node's; the ip (or the cluster's node name) is the host, a host name
    after it is better, and a rank prefix after it is the process's."""
    pre = strip_prefix("(worker1, rank=1, pid=2435, ip=10.0.0.2) [rank9]:RuntimeError: CUDA error: an illegal memory access")
    assert (pre.rank, pre.host, pre.message) == (9, "10.0.0.2", "RuntimeError: CUDA error: an illegal memory access")
    pre = strip_prefix("(head, rank=0, pid=5634) Traceback (most recent call last):")
    assert (pre.rank, pre.host, pre.message) == (None, "head", "Traceback (most recent call last):")
    pre = strip_prefix("(head, rank=0, pid=5634) [nccl-e9ef-7d4f-0:3]:NCCL WARN x")
    assert (pre.local_rank, pre.host) == (3, "nccl-e9ef-7d4f-0")


def test_mpirun_timestamps_do_not_run_into_a_host_name(tmp_path: Path, ruleset: RuleSet) -> None:
    """The ctime and the line after the tag keep a space between them: NCCL's header after the tag
    names gpu-node-b, not '2020gpu-node-b' (the review of this session's changes)."""
    lines = ("Fri Oct 23 17:15:02 2020[1,3]<stdout>:gpu-node-b:2234:2234 [3] NCCL INFO comm 0x5555 rank 3 nranks 4 "
             "cudaDev 3 busId 1b000 - Init COMPLETE\n"
             "Fri Oct 23 17:16:00 2020[1,3]<stderr>:RuntimeError: CUDA error: an illegal memory access was encountered\n")
    got = incidents_of(tmp_path, {"train.log": lines}, ruleset)
    assert [(g.cause, g.rank, g.node) for g in got][:1] == [(Cause.ILLEGAL_MEMORY_ACCESS, 3, "gpu-node-b")]
