"""The forty-fourth session's Slurm sweep readings: submitit's task logs under .submitit, its
driver's own errors about a failed job, srun's report of the task it terminated after the
others aborted on their watchdogs, and one srun line reporting several ranks' aborts."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of

CANCEL = "slurmstepd: error: *** STEP 2720819.0 ON node0137 CANCELLED AT 2026-03-18T11:48:02 ***"


def _timed_out(rank: int) -> str:
    return "\n".join([
        f"Initializing distributed: GLOBAL_RANK: {rank}, MEMBER: {rank + 1}/8",
        f"[rank{rank}]:[E0318 11:43:32.089748652 ProcessGroupNCCL.cpp:655] [Rank {rank}] Watchdog caught collective "
        "operation timeout: WorkNCCL(SeqNum=11050, OpType=_REDUCE_SCATTER_BASE, NumelIn=16777216, "
        "NumelOut=16777216, Timeout(ms)=1800000) ran for 1800068 milliseconds before timing out.",
        f"[rank{rank}]:[E0318 11:43:32.089795981 ProcessGroupNCCL.cpp:721] [Rank {rank}] To avoid data inconsistency, "
        "we are taking the entire process down.",
        CANCEL,
    ]) + "\n"


def _sweep(terminal_tail: list[str]) -> dict[str, str]:
    files = {f"multirun/2026-03-18/08-27-27/.submitit/2720819_2/2720819_2_{r}_log.err": _timed_out(r)
             for r in range(8) if r != 4}
    files["multirun/2026-03-18/08-27-27/.submitit/2720819_2/2720819_2_4_log.err"] = (
        "Initializing distributed: GLOBAL_RANK: 4, MEMBER: 5/8\n" + CANCEL + "\n")
    files["sweep_terminal.txt"] = "\n".join([
        "$ python src/train.py -m hydra/launcher=submitit_slurm model.net.depth=12,16,24",
        "[2026-03-18 08:27:27,630][HYDRA] Submitit 'slurm' sweep output dir : multirun/2026-03-18/08-27-27",
        "Traceback (most recent call last):",
        '  File "/usr/local/lib/python3.12/dist-packages/submitit/core/core.py", line 384, in _get_outcome_and_result',
        '    raise utils.UncompletedJobError("\\n".join(message))',
        "submitit.core.utils.UncompletedJobError: Job 2720819_2 (task: 0) with path "
        "/home/bo/proj/multirun/2026-03-18/08-27-27/.submitit/2720819_2/2720819_2_0_result.pkl",
        "has not produced any output (state: FAILED)",
        *terminal_tail,
    ]) + "\n"
    return files


def test_the_task_srun_terminated_after_the_others_aborted_on_their_watchdogs_hung(tmp_path: Path, ruleset: RuleSet) -> None:
    # seven tasks' watchdogs gave up on a collective and aborted; the step was cancelled and srun
    # terminated the one left, whose log (under .submitit) shows no timeout: it never reached the
    # collective. The driver's UncompletedJobError only says the job failed
    seen = incidents_of(tmp_path, _sweep([
        "srun: error: node0137: tasks 0-3,5-7: Aborted (core dumped)",
        CANCEL,
        "srun: error: node0137: task 4: Terminated",
    ]), ruleset)
    assert seen and seen[0].cause is Cause.HANG and seen[0].rank == 4, seen


def test_a_task_terminated_by_a_cancel_before_any_failure_is_no_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    # the step was cancelled first (scancel) and its tasks terminated: nobody hung
    files = {"slurm-2720819.out": "\n".join([
        "[2026-03-18 08:27:27,630][train] step 100 loss 2.1",
        CANCEL,
        "srun: error: node0137: tasks 0-7: Terminated",
    ]) + "\n"}
    seen = incidents_of(tmp_path, files, ruleset)
    assert all(s.cause is not Cause.HANG for s in seen), seen


def test_ranks_on_one_srun_abort_line_abort_together(tmp_path: Path, ruleset: RuleSet) -> None:
    # ranks 0-3, 5 and 6 left their watchdog's lines; rank 7 left no log, but srun reports its
    # abort in the same line as theirs: the same watchdog teardown, not a crash of its own
    files = _sweep([
        "srun: error: node0137: tasks 0-3,5-7: Aborted (core dumped)",
        CANCEL,
        "srun: error: node0137: task 4: Terminated",
    ])
    del files["multirun/2026-03-18/08-27-27/.submitit/2720819_2/2720819_2_7_log.err"]
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen and seen[0].cause is Cause.HANG and seen[0].rank == 4, seen
    assert all(s.cause is not Cause.CRASH_SIGNAL for s in seen), seen


def test_several_tasks_terminated_after_the_cancel_name_no_one(tmp_path: Path, ruleset: RuleSet) -> None:
    # tasks 4 and 5 were terminated once the step was cancelled, neither with a timeout of its own
    # in its log: the ranks whose watchdogs had not fired yet, as well as a stuck one - which one,
    # the lines do not say
    files = _sweep([
        "srun: error: node0137: tasks 0-3,6-7: Aborted (core dumped)",
        CANCEL,
        "srun: error: node0137: tasks 4-5: Terminated",
    ])
    files["multirun/2026-03-18/08-27-27/.submitit/2720819_2/2720819_2_5_log.err"] = (
        "Initializing distributed: GLOBAL_RANK: 5, MEMBER: 6/8\n" + CANCEL + "\n")
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen and seen[0].cause is Cause.HANG and seen[0].rank is None, seen


def test_an_earlier_job_s_xid_does_not_hide_the_one_task_that_exited_with_an_error(tmp_path: Path, ruleset: RuleSet) -> None:
    # srun: task 502 exited with code 1 first, then the step was aborted and the others terminated;
    # the kernel log the operator attached holds an application Xid of three weeks before
    out = ["srun --kill-on-bad-exit=1 --ntasks-per-node=8 python pretrain_gpt.py",
           "srun: error: nid001209: task 502: Exited with exit code 1",
           "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
           "slurmstepd: error: *** STEP 9504145.0 ON nid001117 CANCELLED AT 2024-12-05T00:24:16 ***",
           "srun: error: nid001117: tasks 0-7: Terminated",
           "srun: error: nid001209: tasks 496-501,503: Terminated"]
    dmesg = ["[Fri Nov 15 06:17:19 2024] NVRM: Xid (PCI:0000:ab:00): 13, pid=88211, name=python, "
             "Graphics SM Warp Exception on (GPC 0, TPC 1, SM 0): Out Of Range Address"]
    seen = incidents_of(tmp_path, {"slurm-9504145.out": "\n".join(out) + "\n",
                                   "dmesg-nid001137.txt": "\n".join(dmesg) + "\n"}, ruleset)
    assert seen and seen[0].rank == 502 and seen[0].cause is Cause.PYTHON_EXCEPTION, seen


def test_ranks_aborting_on_one_srun_line_beside_an_error_stay_its_collateral(tmp_path: Path, ruleset: RuleSet) -> None:
    # the driver shows the job's CUDA out of memory (no rank); ranks 2 and 3 left their watchdog's
    # teardown; task 0's log (where srun writes) reports tasks 1-7 aborted on one line, below its
    # last stamped line: the others that left no log aborted on their watchdogs too, not first
    files = {f"logs/task_{r}.err": _timed_out(r).replace("E0318 11:43", "E0318 12:13") for r in (2, 3)}
    files["logs/task_0.err"] = "\n".join([
        "[rank0]:[W318 11:43:26.464000000 ProcessGroupNCCL.cpp:1234] Warning: a slow reduce",
        "srun: error: node0137: tasks 1-7: Aborted (core dumped)",
    ]) + "\n"
    files["console.log"] = "\n".join([
        "[2026-03-18 08:27:27,630][HYDRA] Submitit 'slurm' sweep output dir : multirun/2026-03-18/08-27-27",
        "Error executing job with overrides: ['seed=1']",
        "Traceback (most recent call last):",
        '  File "/home/nadia/proj/src/train.py", line 124, in <module>',
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 7.81 GiB. GPU 0 has a total capacity of "
        "39.39 GiB of which 1.11 GiB is free.",
    ]) + "\n"
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen and seen[0].cause is Cause.CUDA_OOM, seen
