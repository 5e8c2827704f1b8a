"""The fifty-third session's runs from real jobs and operators' tests: ranks started one by one
(no launcher to say which process died), a peer at a loopback address, and nccl-tests' sweep
that stopped until the scheduler's time limit ended it."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of

_GLOO_LOST = ("[rank{r}]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] "
              "Connection closed by peer [127.0.0.1]:31658. This is typically caused by a remote worker crashing. "
              "Check the logs of the remote worker before reporting an error.\n")


def _steps(rank: int, upto: int, second: int = 0) -> str:
    return "".join(f"2026-12-07 07:51:{second + k // 5:02d},{100 + k:03d} INFO [rank{rank}] step {k}/300 loss 1.{k} "
                   f"step_time 190.0ms\n" for k in range(1, upto + 1))


def test_the_one_rank_the_others_lost_is_named(tmp_path: Path, ruleset: RuleSet) -> None:
    """Three ranks started one by one, each with its own log (a sidecar tester's real job, rank
    1 killed by SIGKILL): ranks 0 and 2 lose their connection to a peer at 127.0.0.1, rank 1's
    log simply stops. Before, the loopback address was named as the failed node and rank 1 was
    listed among the collateral; now rank 1 is the initiator (cause unknown: nothing says why)."""
    files = {f"rank{r}.log": _steps(r, 21) + ("" if r == 1 else f"[rank{r}]: Traceback (most recent call last):\n"
                                                + _GLOO_LOST.format(r=r))
             for r in range(3)}
    got = incidents_of(tmp_path / "a", files, ruleset)
    assert [(g.cause, g.rank, g.node) for g in got] == [(Cause.UNKNOWN, 1, None)]
    assert "127.0.0.1" not in got[0].explanation
    # a rank that left a line of its own is no silent one: none is named, and the loopback peer
    # is no node either
    files["rank1.log"] += "2026-12-07 07:51:09,000 WARNING [rank1] slow step\n[rank1]: Traceback (most recent call last):\n"
    files["rank1.log"] += _GLOO_LOST.format(r=1)
    got = incidents_of(tmp_path / "b", files, ruleset)
    assert got and got[0].rank is None and got[0].node is None


_HEADER = ("# nThread 1 nGpus 1 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
           "validation: 1 graph: 0\n#\n# Using devices\n"
           "#  Rank  0 Group  0 Pid  41213 on  hpc-a031 device  0 [0000:19:00] NVIDIA H100 80GB HBM3\n"
           "#  Rank  1 Group  0 Pid  41214 on  hpc-a031 device  1 [0000:3b:00] NVIDIA H100 80GB HBM3\n#\n"
           "#                                                              out-of-place                       in-place\n"
           "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
           "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n")


def _rows(upto: int) -> str:
    return "".join(f"{1 << k:>12}  {(1 << k) // 4:>12}     float     sum      -1    20.{k:02d}    0.{k:02d}    0.{k:02d}      0"
                   f"    19.{k:02d}    0.{k:02d}    0.{k:02d}      0\n" for k in range(3, upto))


_LIMIT = ("slurmstepd: error: *** STEP 7384825.0 ON hpc-a031 CANCELLED AT 2024-09-03T19:24:01 DUE TO TIME LIMIT ***\n"
          "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n")


def test_nccl_tests_that_stopped_in_its_sweep_until_the_time_limit_is_a_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    """nccl-tests' table stops after a size with no summary, then Slurm's time limit: the next
    collective never returned and the job sat until the limit (read as a preemption before). A
    sweep that finished (its average bus bandwidth printed) before the limit stays the limit's."""
    stopped = _HEADER + _rows(25) + _LIMIT
    got = incidents_of(tmp_path / "a", {"slurm-7384825.out": stopped}, ruleset)
    assert [g.cause for g in got][:1] == [Cause.HANG]
    assert "sweep stopped after its 16777216-byte row" in got[0].explanation
    finished = _HEADER + _rows(31) + "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 126.42 \n#\n" + _LIMIT
    got = incidents_of(tmp_path / "b", {"slurm-7384825.out": finished}, ruleset)
    assert [g.cause for g in got][:1] == [Cause.PREEMPTION]
    # a table cut by its user (no scheduler's word after it) says nothing
    assert incidents_of(tmp_path / "c", {"nccl_test.out": _HEADER + _rows(25)}, ruleset) == []


def test_an_asciinema_recording_is_read_as_what_the_terminal_showed(tmp_path: Path, ruleset: RuleSet) -> None:
    """A terminal session shared as an asciinema recording (session.cast: a JSON header line, then
    one JSON event a line, its text with colour codes and CRLFs) was not read at all."""
    import json

    events = [(0.1, "\u001b[01;32muser@node07\u001b[00m$ torchrun --nproc_per_node=4 train.py\r\n")]
    events += [(0.5 + k, f"[rank3]: step {k} loss 1.{k}\r\n") for k in range(5)]
    events += [(9.0, "\u001b[31m[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\u001b[0m\r\n")]
    cast = json.dumps({"version": 2, "width": 200, "height": 50, "timestamp": 1719827438}) + "\n"
    cast += "".join(json.dumps([t, "o", text]) + "\n" for t, text in events)
    got = incidents_of(tmp_path, {"session.cast": cast}, ruleset)
    assert [(g.cause, g.rank) for g in got][:1] == [(Cause.CUDA_OOM, 3)]

