"""The fortieth session's run layouts: torch.multiprocessing.spawn's header naming the process
whose traceback the paste cut before its exception line, beside the other processes' store
errors; and cuda-gdb's view of a stopped job's kernel inside NCCL's device code."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of

_SITE = "/opt/conda/lib/python3.10/site-packages/torch"


def _spawned(*, cut: bool, header: bool = True) -> dict[str, str]:
    """One host's four spawned processes: process 0's traceback under the parent's header (cut
    before its exception line when ``cut``), and the three others' store warnings after it."""
    tb = [
        *(["-- Process 0 terminated with the following error:"] if header else []),
        "Traceback (most recent call last):",
        f'  File "{_SITE}/multiprocessing/spawn.py", line 90, in _wrap',
        "    fn(i, *args)",
        '  File "/code/world/src/trainer.py", line 395, in train_component',
        "    loss, metrics = model(batch)",
        f'  File "{_SITE}/nn/parallel/distributed.py", line 1637, in forward',
        "    else self._run_ddp_forward(*inputs, **kwargs)",
    ]
    if not cut:
        tb.append("AssertionError: batch of the wrong length")
    store = [
        f"[rank{r}]:[W625 23:35:35.31112758{r} ProcessGroupNCCL.cpp:1662] [PG ID 0 PG GUID 0(default_pg) Rank {r}] "
        'Failed to check the "should dump" flag on TCPStore, (maybe TCPStore server has shut down too early), with '
        "error: failed to recv, got 0 bytes"
        for r in (1, 2, 3)
    ]
    return {"spawn_traceback.txt": "\n".join(tb) + "\n", "tcpstore_warnings.log": "\n".join(store) + "\n"}


def test_a_spawned_process_whose_traceback_was_cut_raised(tmp_path: Path, ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path, _spawned(cut=True), ruleset)
    assert (seen[0].cause, seen[0].rank) == (Cause.PYTHON_EXCEPTION, 0), seen[0]


def test_the_spawned_process_with_its_exception_line_as_before(tmp_path: Path, ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path, _spawned(cut=False), ruleset)
    assert (seen[0].cause, seen[0].rank) == (Cause.PYTHON_EXCEPTION, 0), seen[0]


def test_a_cut_traceback_without_the_spawn_header_stays_unknown(tmp_path: Path, ruleset: RuleSet) -> None:
    # (a traceback cut before its exception, beside collateral errors, may be a collateral error's own)
    seen = incidents_of(tmp_path, _spawned(cut=True, header=False), ruleset)
    assert seen[0].cause is Cause.UNKNOWN, seen[0]


_CUDA_GDB = """(cuda-gdb) info cuda threads
  BlockIdx ThreadIdx To BlockIdx ThreadIdx Count         Virtual PC                                        Filename  Line
Kernel 0
   (0,0,0)   (0,0,0)     (0,0,0)  (31,0,0)    32 0x00007f735e581630 /build/nccl/src/collectives/device/prims_ll.h    48
   (0,0,0)  (32,0,0)     (0,0,0)  (63,0,0)    32 0x00007f735e581640 /build/nccl/src/collectives/device/prims_ll.h    48
   (0,0,0)  (64,0,0)     (0,0,0) (127,0,0)    64 0x00007f7be559f980 /build/nccl/src/collectives/device/prims_ll.h    94
"""


def test_cuda_gdb_showing_a_kernel_inside_nccl_is_a_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path, {"cuda-gdb.txt": _CUDA_GDB}, ruleset)
    assert seen and seen[0].cause is Cause.HANG, seen
    assert "NCCL collective" in seen[0].explanation


def test_a_kernel_inside_nccl_before_a_real_failure_is_not_the_cause(tmp_path: Path, ruleset: RuleSet) -> None:
    files = {"cuda-gdb.txt": _CUDA_GDB,
             "rank1.log": "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total "
                          "capacity of 79.10 GiB of which 1.06 GiB is free.\n"}
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen[0].cause is Cause.CUDA_OOM, seen


def _bars(rank: int, start: int, stop: int) -> list[str]:
    return [f"[rank{rank}] Epoch 0:  {n * 100 // 400}%| | {n}/400 [00:{n % 60:02d}<01:00, 3.76s/it, train_loss=9.1]"
            for n in range(start, stop, 20)]


@pytest.mark.parametrize("said", [
    "WARNING:__main__:caught torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB. GPU 6 has a "
    "total capacity of 79.15 GiB of which 691.94 MiB is free. -- retrying step 60 with micro_batch_size=2",
    "2026-03-02 10:11:12 | WARNING | trainer | CUDA out of memory. Tried to allocate 2.00 GiB (GPU 1; 23.65 GiB total "
    "capacity); skipping batch 1184",
])
def test_an_oom_the_program_says_it_caught_and_retried_is_no_failure(tmp_path: Path, ruleset: RuleSet, said: str) -> None:
    log = [*_bars(6, 20, 80), said, *_bars(6, 80, 400), "`Trainer.fit` stopped: `max_steps=400` reached."]
    seen = incidents_of(tmp_path, {"console.log": "\n".join(log) + "\n"}, ruleset)
    assert seen == [], seen


def test_an_oom_that_ended_the_run_is_still_one(tmp_path: Path, ruleset: RuleSet) -> None:
    log = [*_bars(6, 20, 80), "[rank6]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB. GPU 6 "
           "has a total capacity of 79.15 GiB of which 691.94 MiB is free."]
    seen = incidents_of(tmp_path, {"console.log": "\n".join(log) + "\n"}, ruleset)
    assert (seen[0].cause, seen[0].rank) == (Cause.CUDA_OOM, 6), seen


def _interrupted(ranks: list[int], *, nccl_world: bool = True) -> str:
    """Four ranks on one node, training, then Ctrl-C: the interrupted ranks' tracebacks (in an HTTP
    call of a metrics client, not a collective)."""
    out = [f"gpu-a:{100 + r}:{100 + r} [{r}] NCCL INFO comm 0x55d0{r} rank {r} nranks 4 cudaDev {r} busId {r + 1}8000 "
           "commId 0x0a53 - Init COMPLETE" for r in range(4)] if nccl_world else []
    out += [f"[rank{r}]: step {s} loss 9.{s}" for s in (10, 20, 30) for r in range(4)]
    for r in ranks:
        out += [f"[rank{r}]: Traceback (most recent call last):",
                f'[rank{r}]:   File "/home/u/ft/finetune.py", line 326, in train',
                f"[rank{r}]:     metrics_client.push(step=step, **stats)",
                f'[rank{r}]:   File "/usr/lib/python3.11/ssl.py", line 1134, in read',
                f"[rank{r}]:     return self._sslobj.read(len, buffer)",
                f"[rank{r}]: KeyboardInterrupt"]
    return "\n".join(out) + "\n"


def test_one_rank_of_many_interrupted_outside_a_collective_is_the_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path, {"deepspeed_launch.log": _interrupted([2])}, ruleset)
    assert (seen[0].cause, seen[0].rank) == (Cause.HANG, 2), seen[0]
    assert "only rank 2 was interrupted" in seen[0].explanation


def test_every_rank_interrupted_is_still_a_stop_from_outside(tmp_path: Path, ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path, {"deepspeed_launch.log": _interrupted([0, 1, 2, 3])}, ruleset)
    assert seen[0].cause is Cause.PREEMPTION, seen[0]
