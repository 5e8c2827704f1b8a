"""A Slurm batch job's own output file (``job-<name>-<jobid>.out``): the batch script's ``set -x``
trace first, then every task's lines behind srun's ``--label``; srun reporting the one task that
exited with an error code, then terminating the others."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.sources.prefixes import PrefixStyle, detect_style
from detector.types import Cause
from tests.support.replaying import incidents_of

PREAMBLE = "".join(f"+ export NCCL_SETTING_{i}={i}\n" for i in range(30)) + "+ srun -l ./all_reduce_perf -b 8 -e 1G\n"
BANNER = "".join(f"{t:3d}: cpu-bind=MASK - nid0051{t // 4:02d}, task {t:3d} [1684{t:02d}]: mask 0xff set\n"
                 for t in range(16))


def job_output(failing: str, exits: str) -> str:
    return PREAMBLE + BANNER + "  0: # nccl-tests version 2.13.11\n" + failing + exits


def test_the_labels_after_a_script_s_preamble_are_srun_s() -> None:
    lines = job_output("", "").splitlines()[:50]
    assert detect_style(lines) is PrefixStyle.SRUN_LABEL


def test_a_preamble_then_a_few_numbered_lines_is_no_srun_output() -> None:
    lines = [*PREAMBLE.splitlines(), "1: first item", "2: second item"]
    assert detect_style(lines) is not PrefixStyle.SRUN_LABEL


def test_a_job_id_in_the_file_name_is_no_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    log = job_output(" 13: nid005103: Test CUDA failure common.cu:297 'uncorrectable ECC error encountered'\n",
                     "srun: error: nid005103: task 13: Exited with exit code 2\n"
                     "srun: error: nid005100: tasks 0-3: Terminated\n")
    [incident] = incidents_of(tmp_path, {"job-n-00016-N-0004-153528.out": log}, ruleset)
    assert (incident.cause, incident.rank, incident.node) == (Cause.ECC_MEMORY, 13, "nid005103")


def test_the_one_task_srun_saw_exit_with_an_error_code_started_it(tmp_path: Path, ruleset: RuleSet) -> None:
    log = job_output(" 13: nid005103: Test CUDA failure common.cu:986 'some error no rule knows'\n",
                     "srun: error: nid005103: task 13: Exited with exit code 2\n"
                     "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n"
                     "  0: slurmstepd: error: *** STEP 152395.0 ON nid005100 CANCELLED AT 2025-02-11T13:15:55 ***\n"
                     "srun: error: nid005100: tasks 0-3: Terminated\n"
                     "srun: error: nid005101: tasks 4-7: Terminated\n")
    [incident] = incidents_of(tmp_path, {"job-153528.out": log}, ruleset)
    assert (incident.rank, incident.node) == (13, "nid005103")
    assert incident.cause is not Cause.PREEMPTION  # srun cancelled the step after the task failed


def test_two_tasks_with_error_codes_name_no_first(tmp_path: Path, ruleset: RuleSet) -> None:
    log = job_output("", "srun: error: nid005103: task 13: Exited with exit code 3\n"
                         "srun: error: nid005100: task 2: Exited with exit code 3\n"
                         "srun: error: nid005100: tasks 0-1,3: Terminated\n")
    incidents = incidents_of(tmp_path, {"job-153528.out": log}, ruleset)
    assert incidents  # two tasks failed: the job failed, with neither named the first
    assert all(i.rank not in (2, 13) for i in incidents)


def test_after_a_collective_timeout_the_first_task_to_exit_is_no_first_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    """Every task but 2 reports the watchdog timeout; srun names task 5 (its watchdog fired first)
    as the one that exited with an error code: the silent task 2 is the one the others waited for."""
    timeout = ("{t:3d}: [rank{t}]:[E1202 10:10:0{s}.000000 111 ProcessGroupNCCL.cpp:616] [Rank {t}] Watchdog caught "
               "collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=8, NumelOut=8, "
               "Timeout(ms)=600000) ran for 600002 milliseconds before timing out.\n")
    lines = "".join(timeout.format(t=t, s=1 if t == 5 else 3) for t in range(8) if t != 2)
    log = job_output(lines, "srun: error: nid005101: task 5: Exited with exit code 1\n"
                            "srun: error: nid005100: tasks 0-4,6-7: Terminated\n")
    [incident] = incidents_of(tmp_path, {"job-153528.out": log}, ruleset)
    assert (incident.cause, incident.rank) == (Cause.HANG, 2)


def test_a_rank_log_holding_a_rust_backtrace_keeps_its_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    """A backtrace's numbered frames ("   0: rust_begin_unwind") are no srun labels: rank_3.log
    stays rank 3's log."""
    log = ("thread '<unnamed>' panicked at tokenizers/src/models/bpe/model.rs:212:9:\n"
           "   0: rust_begin_unwind\n   1: core::panicking::panic_fmt\n   2: core::panicking::panic\n"
           "   3: tokenizers::models::bpe::model::BPE::word_to_tokens\n   4: <unknown>\n"
           "pyo3_runtime.PanicException: called `Option::unwrap()` on a `None` value\n")
    [incident] = incidents_of(tmp_path, {"rank_3.log": log}, ruleset)
    assert incident.rank == 3


def test_a_cancelled_job_whose_data_preparation_had_finished_is_a_cancel(tmp_path: Path, ruleset: RuleSet) -> None:
    """Slurm cancelled the job while it trained; the dataset's 'Map' bars earlier in the log are
    no straggler's wait."""
    prep = "".join(f"Map: {p}%|██        | {p * 10}/1000 [00:0{p // 50}<00:01, 900.00 examples/s]\n" for p in (20, 60, 100))
    train = "".join(f" {p}%|██        | {p * 10}/1000 [01:{p:02d}<04:39,  2.22it/s]\n" for p in (10, 20, 38))
    tail = ("W0128 15:04:48.217000 121673 site-packages/torch/distributed/elastic/agent/server/api.py:704] Received 15 "
            "death signal, shutting down workers\n"
            "slurmstepd: error: *** JOB 9304949 ON nid005528 CANCELLED AT 2025-01-28T15:04:48 ***\n"
            "W0128 15:04:48.218000 121673 site-packages/torch/distributed/elastic/multiprocessing/api.py:897] Sending "
            "process 121764 closing signal SIGTERM\n")
    got = incidents_of(tmp_path, {"slurm-9304949.out": prep + train + tail}, ruleset)
    assert [g.cause for g in got] == [Cause.PREEMPTION]


def test_srun_refusing_its_container_options_is_the_launch(tmp_path: Path, ruleset: RuleSet) -> None:
    log = ('srun: error: pyxis: mount source must be a relative path, an absolute path, "tmpfs" or "umount"\n'
           "srun: error: pyxis: could not add mount entry: tank/bert/packed_data:/workspace/data_phase2\n"
           "srun: error: Invalid --container-mounts argument: tank/bert/packed_data:/workspace/data_phase2\n")
    got = incidents_of(tmp_path, {"slurm-2545.out": log}, ruleset)
    assert [(g.cause, g.drain) for g in got] == [(Cause.PYTHON_EXCEPTION, False)]


def test_a_rank_that_never_started_before_the_time_limit_is_the_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    """numactl refused rank 0's CPU list; the other ranks waited for it until Slurm's time limit
    ended the step: the cause is the launch's, not the time limit (ED-mlperf40-smc ... numactl)."""
    log = ("0: usage: numactl [--all | -a] [--interleave= | -i <nodes>] [--preferred= | -p <node>]\n"
           "0: <0-7,64-71> is invalid\n"
           "srun: error: 292KF14: task 0: Exited with exit code 1\n"
           + "".join(f"{r}: num_gpus=8 num_sockets = 2 num_nodes=2 cores_per_socket=32\n" for r in range(1, 8))
           + "0: slurmstepd: error: *** STEP 2545.7 ON 292KF14 CANCELLED AT 2024-04-19T14:08:52 DUE TO TIME LIMIT ***\n"
           "srun: error: 292KF14: tasks 1-7: Terminated\n")
    got = incidents_of(tmp_path, {"run.log": log}, ruleset)
    assert [(g.cause, g.rank) for g in got][:1] == [(Cause.PYTHON_EXCEPTION, 0)]
