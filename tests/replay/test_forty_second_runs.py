"""The forty-second session's run layouts: Slurm's accounting table (sacct) and LSF's job report
beside the trainers' logs, a node's GPU report saved under the node's name, and an AMD GPU's link
fault named in the vendor's words in the report."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.cli.main import main
from detector.replay import replay_path
from detector.report.html import render_html
from detector.rules.engine import RuleSet
from detector.types import Cause, StreamKind
from tests.support.replaying import incidents_of, write_run

_SACCT_HEAD = [
    "JobID           JobName      State ExitCode        NodeList    Elapsed",
    "------------ ---------- ---------- -------- --------------- ----------",
]


def _sacct(*rows: str) -> str:
    return "\n".join([*_SACCT_HEAD, *rows]) + "\n"


def _steps(count: int) -> str:
    return "".join(f"step {10 * s} | loss {2.9 - s / 100:.3f} | 1.21 s/it\n" for s in range(1, count + 1))


def test_sacct_out_of_memory_row_is_the_hosts_memory(tmp_path: Path, ruleset: RuleSet) -> None:
    # the step's row, cut to the column's width ("OUT_OF_ME+"), beside a console that just stops
    files = {
        "sacct.txt": _sacct("88123        train.sh     FAILED      1:0   gpu[101-102]   00:40:15",
                            "88123.batch     batch     FAILED      1:0          gpu101   00:40:17",
                            "88123.0        python  OUT_OF_ME+    0:125   gpu[101-102]   00:40:09"),
        "slurm-88123.out": _steps(12),
    }
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen and seen[0].cause is Cause.HOST_OOM_KILL and not seen[0].drain, seen


def test_sacct_timeout_row_is_the_time_limit(tmp_path: Path, ruleset: RuleSet) -> None:
    files = {
        "sacct.txt": _sacct("4521377        train.sh    TIMEOUT      0:0   gpu[101-102]   2-00:00:15",
                            "4521377.batch     batch  CANCELLED     0:15          gpu101   2-00:00:17"),
        "slurm-4521377.out": _steps(20),
    }
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen and seen[0].cause is Cause.PREEMPTION and not seen[0].drain, seen


def test_a_ranks_exception_outweighs_the_time_limit_the_job_then_sat_until(tmp_path: Path, ruleset: RuleSet) -> None:
    # rank 3 raised; the job hung on until its time limit, which the accounting records
    files = {
        "sacct.txt": _sacct("4521377        train.sh    TIMEOUT      0:0   gpu[101-102]   2-00:00:15"),
        "slurm-4521377.out": _steps(10) + "".join(f"[rank3]: {line}\n" for line in (
            "Traceback (most recent call last):", '  File "/home/u/train.py", line 88, in <module>',
            "    batch = next(it)", "KeyError: 'input_ids'")),
    }
    seen = incidents_of(tmp_path, files, ruleset)
    assert (seen[0].cause, seen[0].rank) == (Cause.PYTHON_EXCEPTION, 3), seen[0]


@pytest.mark.parametrize("row", [
    "4521377.0        python  CANCELLED     0:15   gpu[101-102]   2-00:00:09",  # a cancel is no time limit
    "4521377        train.sh  COMPLETED      0:0   gpu[101-102]   2-00:00:09",
    "2026-11-30 01:02:03 NCCL TIMEOUT 0:0",  # a log line with the word, not the table's row
])
def test_rows_that_say_nothing_of_the_cause(row: str, ruleset: RuleSet) -> None:
    assert not [m for m in ruleset.match(row, StreamKind.RANK_LOG) if m.rule.id.startswith("scheduler.sacct_")], row
    # and the same row in a time-limit's words does
    assert any(m.rule.id == "scheduler.sacct_time_limit" for m in
               ruleset.match("4521377        train.sh    TIMEOUT      0:0", StreamKind.RANK_LOG))


def test_lsf_memory_limit_in_the_jobs_report(tmp_path: Path, ruleset: RuleSet) -> None:
    report = [
        "Sender: LSF System <lsfadmin@gpu-b07>",
        "Subject: Job 553201: <train> in cluster <hpc> Exited",
        "Job <train> was submitted from host <login1> by user <u> in cluster <hpc>.",
        "------------------------------------------------------------",
        "TERM_MEMLIMIT: job killed after reaching LSF memory usage limit.",
        "Exited with exit code 137.",
    ]
    seen = incidents_of(tmp_path, {"train.553201.out": _steps(5) + "\n".join(report) + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.HOST_OOM_KILL, seen


def test_a_gpu_report_named_for_its_node_places_the_fault(tmp_path: Path, ruleset: RuleSet) -> None:
    # the console says a GPU failed but not on which node; the operator's nvidia-smi output, saved
    # as nvidia-smi_<node>.txt, carries the GPU's state and its node in the file's name only
    console = _steps(6) + "".join(f"{line}\n" for line in (
        "[rank5]: RuntimeError: CUDA error: unspecified launch failure",
        "[rank5]: CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace "
        "below might be incorrect.",
    ))
    smi = ("Unable to determine the device handle for GPU0000:9B:00.0: Unknown Error\n"
           "No devices were found\n")
    files = {"console.log": console, "nvidia-smi_gpu-node-07.txt": smi,
             "nvidia-smi_gpu-node-03.txt": "Sun Dec  6 03:00:00 2026\nNo running processes found\n"}
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen[0].node == "gpu-node-07", seen[0]


def test_an_amd_link_fault_is_labelled_xgmi_in_the_reports(tmp_path: Path, ruleset: RuleSet,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    out = [
        *(f"{r}: 2025-08-08 18:06:50 step 3300 | loss 2.1" for r in range(8)),
        "5: HW Exception by GPU node-5 (Agent handle: 0x5c490d4ba2d0) reason :GPU Hang",
        "srun: error: frontier04857: task 5: Aborted (core dumped)",
    ]
    dmesg = ["[Fri Aug  8 18:07:07 2025] amdgpu 0000:c6:00.0: amdgpu: 1 uncorrectable hardware errors detected in "
             "xgmi_wafl block"]
    run = write_run(tmp_path / "run", {"slurm-4998315.out": "\n".join(out) + "\n",
                                       "frontier04857_dmesg.txt": "\n".join(dmesg) + "\n"})
    report = replay_path(run, ruleset)
    assert report.incidents[0].cause is Cause.NVLINK, report.incidents[0]
    page = render_html(report)
    assert "xGMI (Infinity Fabric) link error" in page and "NVLink / NVSwitch error" not in page
    assert main(["replay", str(run), "--no-progress"]) != 2
    text = capsys.readouterr().out
    assert "xGMI (Infinity Fabric) link error" in text and "NVLink / NVSwitch" not in text, text

