"""The forty-third session's stragglers: per-rank timing lines that name their rank only in their
own words, step lines without a time, a GPU report whose file name holds nvidia-smi's options
before the node's, and a job stopped from outside after one GPU slowed its clocks."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.sources.prefixes import timing_rank
from detector.types import Cause
from tests.support.replaying import incidents_of


def _timing(rank: int, step: int, slow: int) -> str:
    fwd = 4.02 if rank == slow else 1.19 + 0.01 * ((rank + step) % 3)
    wait = 0.75 if rank == slow else 3.59 - 0.01 * ((rank + step) % 3)
    return f"[timing] rank={rank} step={step} fwd_bwd={fwd:.3f}s allreduce_wait={wait:.3f}s dataloader=0.008s"


def test_one_task_printing_every_ranks_timings_names_the_slow_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    # srun's task 0 gathers and prints every rank's timing line; the launcher's local-rank label
    # on a task no log places on a node names no rank: the line's own "rank=N" does
    lines = []
    for step in range(1000, 1040):
        second = step - 1000
        lines.append(f"2026-07-09 09:{36 + second // 12:02d}:{(second * 5) % 60:02d},259 INFO 0: [default0]:"
                     f"step {step} | loss 8.2 | step_time 4.81s")
        for rank in range(4):
            lines.append(f"2026-07-09 09:{36 + second // 12:02d}:{(second * 5) % 60:02d},260 INFO 0: "
                         f"[default{rank % 2}]:{_timing(rank, step, slow=1)}")
    seen = incidents_of(tmp_path, {"task.log": "\n".join(lines) + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.STRAGGLER and seen[0].rank == 1, seen


def test_timing_rank_reads_one_rank_and_refuses_two() -> None:
    assert timing_rank("[2024-12-05 23:58:39,176][rank   8] step 72 compute 4.873s comm_wait 3.540s") == 8
    assert timing_rank("[timing] rank 3 fwd_bwd=167.6ms allreduce_wait=33.5ms") == 3
    assert timing_rank("2025-02-02 16:00:47,712 [rank0] step 333 | data 0.005s | fwd+bwd 2.198s") == 0
    assert timing_rank("it 100: step time max 2.52s (rank 11) min 1.45s (rank 23) mean 2.44s") is None
    assert timing_rank("[timing] ranks 0-7 fwd_bwd=1.2s") is None


def test_step_lines_without_a_time_still_show_the_slow_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    # a console paste: every rank's step lines, no time stamp on any; rank 5's forward pass
    # takes twice its peers' while they wait for it in the all-reduce
    lines = []
    for step in range(50, 2050, 50):
        for rank in range(8):
            fwd = 0.62 if rank == 5 else 0.30 + 0.004 * ((rank * 7 + step) % 5)
            comm = 0.04 if rank == 5 else 0.36 - 0.004 * ((rank * 7 + step) % 5)
            lines.append(f"[rank {rank}] epoch 0 step {step}/5004 loss 6.8 | step 0.70s fwd {fwd:.3f}s "
                         f"allreduce_wait {comm:.3f}s data 0.010s")
    seen = incidents_of(tmp_path, {"console.log": "\n".join(lines) + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.STRAGGLER and seen[0].rank == 5, seen


def test_untimed_step_lines_of_even_ranks_are_healthy(tmp_path: Path, ruleset: RuleSet) -> None:
    lines = [f"[rank {rank}] epoch 0 step {step}/5004 loss 6.8 | step 0.70s fwd {0.30 + 0.004 * ((rank + step) % 5):.3f}s "
             f"allreduce_wait 0.36s data 0.010s" for step in range(50, 2050, 50) for rank in range(8)]
    seen = incidents_of(tmp_path, {"console.log": "\n".join(lines) + "\n"}, ruleset)
    assert not seen, seen


def _throttled(host_gpu: str) -> str:
    return "\n".join([
        "$ nvidia-smi -q -d PERFORMANCE,CLOCK",
        "",
        "==============NVSMI LOG==============",
        "",
        f"GPU {host_gpu}",
        "    Performance State                     : P0",
        "    Clocks Event Reasons",
        "        Idle                              : Not Active",
        "        SW Power Cap                      : Not Active",
        "        HW Slowdown                       : Active",
        "            HW Thermal Slowdown           : Active",
        "            HW Power Brake Slowdown       : Not Active",
        "        SW Thermal Slowdown               : Active",
        "    Clocks",
        "        SM                                : 705 MHz",
    ]) + "\n"


def test_a_time_limit_after_a_gpu_slowed_its_clocks_is_told_as_the_slow_gpu(tmp_path: Path, ruleset: RuleSet) -> None:
    # the job crawled for hours and ran into its time limit; the operator's nvidia-smi report of
    # the slow node, saved as nvidia-smi-q-perf_<node>.txt, says its GPU slowed its clocks
    out = [f"2024-12-12 0{1 + s // 6}:{(s * 9) % 60:02d}:00,000 INFO step {1000 * (s + 1)} | loss 2.1" for s in range(12)]
    out += [
        "slurmstepd: error: *** JOB 3538148 ON dgx-h100-075 CANCELLED AT 2024-12-12T05:43:49 DUE TO TIME LIMIT ***",
        "slurmstepd: error: *** STEP 3538148.0 ON dgx-h100-075 CANCELLED AT 2024-12-12T05:43:49 DUE TO TIME LIMIT ***",
        "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
    ]
    files = {"slurm-3538148.out": "\n".join(out) + "\n",
             "nvidia-smi-q-perf_dgx-h100-093.txt": _throttled("00000000:43:00.0")}
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen[0].cause is Cause.STRAGGLER and seen[0].node == "dgx-h100-093", seen
    assert [s.cause for s in seen[1:]] == [Cause.PREEMPTION], seen


def test_a_time_limit_with_no_slow_gpu_stays_the_time_limit(tmp_path: Path, ruleset: RuleSet) -> None:
    out = [f"2024-12-12 0{1 + s // 6}:{(s * 9) % 60:02d}:00,000 INFO step {1000 * (s + 1)} | loss 2.1" for s in range(12)]
    out += ["slurmstepd: error: *** JOB 3538148 ON dgx-h100-075 CANCELLED AT 2024-12-12T05:43:49 DUE TO TIME LIMIT ***"]
    seen = incidents_of(tmp_path, {"slurm-3538148.out": "\n".join(out) + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.PREEMPTION, seen

