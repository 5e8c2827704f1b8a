"""The thirty-sixth session's readings: NCCL's "invalid usage" read as the program's misuse of the
library (not a mismatch of collectives), a gloo pair closed on its timeout, a Kubernetes report's
"Restart Reason: OOMKill", UCX refused a queue on an mlx5 NIC, an exception line quoted with a
two-space indent, and a dataset-packing progress bar drawn past the others' wait."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of


@pytest.mark.parametrize("line", [
    "[rank0]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, "
    "invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.20.5",
    "  what():  NCCL Error 5: invalid usage (run with NCCL_DEBUG=WARN for details)",
])
def test_nccl_invalid_usage_is_the_programs_error_not_a_mismatch(tmp_path: Path, ruleset: RuleSet, line: str) -> None:
    seen = incidents_of(tmp_path / "usage", {"console.log": line + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION, seen


def test_a_gloo_pair_closed_on_its_timeout_is_a_wait_not_the_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("RuntimeError: Application timeout caused pair closure\n"
            "[.../gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 1800000ms for recv operation to complete\n")
    seen = incidents_of(tmp_path / "gloo", {"console.log": text}, ruleset)
    assert seen and seen[0].cause is Cause.HANG, seen
    # the same exception with another message is still the failure
    other = incidents_of(tmp_path / "other", {"console.log": "RuntimeError: checkpoint shard 3 is corrupt\n"}, ruleset)
    assert other and other[0].cause is Cause.PYTHON_EXCEPTION, other


@pytest.mark.parametrize("text, cause", [
    ("> **Restart Reason**: OOMKill (memory exceeded limit, SIGKILL)  \n> **Exit Code**: 137 (= 128 + 9, i.e., SIGKILL)  \n",
     Cause.HOST_OOM_KILL),
    ("> **Restart Reason**: Error (exit code 1)  \n", None),
])
def test_a_kubernetes_reports_oomkill_reason(tmp_path: Path, ruleset: RuleSet, text: str, cause: Cause | None) -> None:
    seen = incidents_of(tmp_path / "k8s", {"report.log": text}, ruleset)
    if cause is None:
        assert not seen or seen[0].cause is not Cause.HOST_OOM_KILL, seen
    else:
        assert seen and seen[0].cause is cause, seen


def test_ucx_refused_a_queue_on_an_mlx5_nic_is_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("[1784273406.684686] [gpu-host-3:994396:0]      ib_mlx5_dv.c:452  UCX  ERROR   mlx5dv_devx_obj_create(CQ) failed on "
            "mlx5_1, syndrome 0x2aac7c: Remote I/O error\n"
            "[1784273406.719079] [gpu-host-3:994396:0]           gdaki.c:397  UCX  ERROR   gdaki channel chunk init: "
            "create_cq/qp failed (ch=2 ep=4)\n"
            "E0717 07:30:06.719655  994396 nixl_agent.cpp:359] createBackend: backend 'UCX' encountered error during "
            "intra-agent transfer setup with status NIXL_ERR_BACKEND\n")
    seen = incidents_of(tmp_path / "ucx", {"console.log": text}, ruleset)
    assert seen and seen[0].cause is Cause.NETWORK, seen


@pytest.mark.parametrize("line, found", [
    ("  torch._dynamo.exc.TorchRuntimeError: Dynamo failed to run FX node with fake tensors: call_method copy_(): "
     "got RuntimeError('expand: attempting to expand a dimension of length 16192!')", True),
    # a traceback's code line (four spaces) and a bare class name indented are not the failure
    ("    torch._dynamo.exc.TorchRuntimeError: Dynamo failed to run FX node", False),
    ("  RuntimeError: a bare class name indented inside a chained traceback", False),
])
def test_a_module_qualified_exception_quoted_with_two_spaces(tmp_path: Path, ruleset: RuleSet, line: str,
                                                             found: bool) -> None:
    seen = incidents_of(tmp_path / "indented", {"console.log": line + "\n  from user code:\n"}, ruleset)
    if found:
        assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION, seen
    else:
        assert not seen, seen


def test_a_packing_bar_drawn_as_long_as_the_others_waited_is_the_data_preparation(tmp_path: Path, ruleset: RuleSet) -> None:
    watchdog = ("[rank1]:[E524 03:42:41.043895549 ProcessGroupNCCL.cpp:1895] [PG ID 0 PG GUID 0(default_pg) Rank 1] "
                "Process group watchdog thread terminated with exception: [Rank 1] Watchdog caught collective operation "
                "timeout: WorkNCCL(SeqNum=57, OpType=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for "
                "1800002 milliseconds before timing out.\n")
    bar = "Packing (num_proc=1):   1%|          | 856984/108919656 [30:00<64:44:29, 463.65it/s]"
    seen = incidents_of(tmp_path / "packing", {"console.log": bar + "\n" + watchdog}, ruleset)
    assert seen and seen[0].cause is Cause.STRAGGLER, seen
    assert any("Packing" in e for e in seen[0].evidence), seen
    # without the bar, the same timeout is a hang
    alone = incidents_of(tmp_path / "alone", {"console.log": watchdog}, ruleset)
    assert alone and alone[0].cause is Cause.HANG, alone


def test_a_ucx_line_stamped_with_unix_time_still_names_its_host(tmp_path: Path, ruleset: RuleSet) -> None:
    from detector.sources.timestamps import parse_timestamp

    line = ("[1754890927.298391] [decode-pod-0:270  :0]    ib_mlx5dv_md.c:1100 UCX  ERROR mlx5_7: ibv_modify_qp(UMR QP "
            "0x9b5e) failed to modify to RTR: No such device")
    stamp = parse_timestamp(line)
    assert stamp is not None and (stamp.time, stamp.since_boot, stamp.host) == (None, None, "decode-pod-0"), stamp
    assert line[stamp.end:].lstrip().startswith("ib_mlx5dv_md.c:1100"), stamp
    # (a Unix-time stamp with no header after it stays untimed and names nothing)
    assert parse_timestamp("[1754890927.298391] plain words") is None
    seen = incidents_of(tmp_path / "umr", {"console.log": line + "\n"}, ruleset)
    assert seen and (seen[0].cause, seen[0].node) == (Cause.NETWORK, "decode-pod-0"), seen


def _node_behind_run(srun_tail: str) -> str:
    """Ranks 4-7 (node-b) time out in collective #12 they enqueued; ranks 0-3 (node-a) are told of
    it by Flight Recorder's dump signal with only 11 enqueued: node-a never issued #12."""
    lines = []
    for r in range(4, 8):
        lines.append(f"[rank{r}]:[E623 11:25:20.43167053{r} ProcessGroupNCCL.cpp:704] [Rank {r}] Watchdog caught collective "
                     f"operation timeout: WorkNCCL(SeqNum=12, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) "
                     f"ran for 600003 milliseconds before timing out.")
        lines.append(f"[rank{r}]:[E623 11:25:20.53238545{r} ProcessGroupNCCL.cpp:2357] [PG ID 0 PG GUID 0(default_pg) Rank "
                     f"{r}]  failure detected by watchdog at work sequence id: 12 PG status: last enqueued work: 12, last "
                     f"completed work: 11")
    for r in range(4):
        lines.append(f"[rank{r}]:[E623 11:25:20.47632672{r} ProcessGroupNCCL.cpp:1827] [PG ID 0 PG GUID 0(default_pg) Rank "
                     f"{r}] Received a dump signal due to a collective timeout from  rank 5 and we will try our best to dump "
                     f"the debug info. Last enqueued NCCL work: 11, last completed NCCL work: 11.This is most likely caused "
                     f"by incorrect usages of collectives.")
    return "\n".join(lines) + "\n" + srun_tail


def test_srun_killing_ranks_the_watchdogs_left_is_their_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    # ranks 4-7 aborted on their watchdog timeouts; srun then ends the step and kills ranks 0-3,
    # which never reached the collective: they were stuck outside it (the hang's ranks)
    teardown = ("srun: error: node-b: task 5: Aborted (core dumped)\n"
                "srun: Terminating StepId=77.0\n"
                "srun: error: node-b: tasks 4,6-7: Aborted (core dumped)\n"
                "srun: error: node-a: tasks 0-3: Killed\n"
                "srun: Force Terminated StepId=77.0\n")
    seen = incidents_of(tmp_path / "teardown", {"slurm-77.out": _node_behind_run(teardown)}, ruleset)
    assert seen and seen[0].cause is Cause.HANG and seen[0].rank in (0, 1, 2, 3) and seen[0].node == "node-a", seen
    assert not seen[0].drain, seen
    # no collective timed out: the tasks srun killed after another exited on its error were only
    # torn down with the step; the error's rank is the failure
    exited = ("5: Traceback (most recent call last):\n"
              "5:   File \"/srv/train.py\", line 9, in <module>\n"
              "5: RuntimeError: checkpoint shard 3 is corrupt\n"
              "srun: error: node-b: task 5: Exited with exit code 1\n"
              "srun: Terminating StepId=79.0\n"
              "srun: error: node-a: tasks 0-3: Killed\n"
              "srun: error: node-b: tasks 4,6-7: Killed\n")
    after = incidents_of(tmp_path / "exited", {"slurm-79.out": exited}, ruleset)
    assert after and (after[0].cause, after[0].rank) == (Cause.PYTHON_EXCEPTION, 5), after
    # a task killed first, before srun ended the step: a kill nothing explains, still the failure's start
    killed_first = ("srun: error: node-a: tasks 0-3: Killed\n"
                    "srun: Terminating StepId=77.0\n"
                    "srun: error: node-b: tasks 4-7: Aborted (core dumped)\n")
    first = incidents_of(tmp_path / "first", {"slurm-77.out": _node_behind_run(killed_first)}, ruleset)
    assert first and first[0].rank in (0, 1, 2, 3) and first[0].cause is not Cause.HANG, first


@pytest.mark.parametrize("placed, node", [
    # srun's lines place ranks 0-3 on node-a, 4-7 on node-b: node-a's ranks are the ones behind
    ("srun: error: node-b: tasks 4-7: Aborted (core dumped)\nsrun: Terminating StepId=78.0\n"
     "srun: error: node-a: tasks 0-3: Aborted (core dumped)\n", "node-a"),
    # node-a holds ranks 0-1 and 4-5 here: ranks 0-3 behind are not one node's
    ("srun: error: node-b: tasks 2-3,6-7: Aborted (core dumped)\nsrun: Terminating StepId=78.0\n"
     "srun: error: node-a: tasks 0-1,4-5: Aborted (core dumped)\n", None),
])
def test_a_whole_node_behind_the_others_is_named(tmp_path: Path, ruleset: RuleSet, placed: str, node: str | None) -> None:
    seen = incidents_of(tmp_path / "behind", {"slurm-78.out": _node_behind_run(placed)}, ruleset)
    assert seen and (seen[0].cause, seen[0].rank, seen[0].node) == (Cause.HANG, None, node), seen


_RAS = """Communicators... (0.001s)
=============

Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors
    #  in group  per comm  per node  per comm  in group
    0         1         4         1         4         4   RUNNING  MISMATCH

Warnings
========

#0-0 (f31e5874c3f25459) MISMATCH
  Communicator ranks have different AllReduce operation counts
{counts}
"""


@pytest.mark.parametrize("counts, rank, node", [
    ("  3 ranks have launched up to operation 101\n"
     "  Rank 1 has launched up to operation 100 -- GPU 0 managed by process 6247 on node 10.0.109.86", 1, "10.0.109.86"),
    # ranks listed ahead of the others name nobody: the ones behind are not listed one by one
    ("  30 ranks have launched up to operation 640\n  2 ranks have launched up to operation 641", None, None),
    ("  3 ranks have launched up to operation 100\n"
     "  Rank 1 has launched up to operation 101 -- GPU 0 managed by process 6247 on node 10.0.109.86", None, None),
])
def test_nccl_ras_names_the_one_rank_behind(tmp_path: Path, ruleset: RuleSet, counts: str, rank: int | None,
                                            node: str | None) -> None:
    seen = incidents_of(tmp_path / "ras", {"ncclras.txt": _RAS.format(counts=counts)}, ruleset)
    assert seen and (seen[0].cause, seen[0].rank, seen[0].node) == (Cause.HANG, rank, node), seen
