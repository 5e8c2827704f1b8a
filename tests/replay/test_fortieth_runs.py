"""The fortieth session's run layouts: torch.multiprocessing.spawn's header naming the process
whose traceback the paste cut before its exception line, beside the other processes' store
errors; and cuda-gdb's view of a stopped job's kernel inside NCCL's device code."""

from __future__ import annotations

from pathlib import Path

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
