"""Megatron's result validation (its rerun state machine) says whether an unexpected result - a
NaN loss, a spiky one - came from the GPU (a rerun did not reproduce it: "Possible transient
error!", "Possible persistent error!") or from the program (another GPU reproduced a NaN: "Correct
result (but possible Application error)"); no rule knew its words, and the run was unknown or
healthy."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.replay import replay_path
from detector.rules.engine import RuleSet

LOG = "ERROR:megatron.core.rerun_state_machine:"


def _run(tmp_path: Path, lines: list[str]) -> Path:
    (tmp_path / "slurm-4411.out").write_text("\n".join(lines) + "\n")
    return tmp_path


@pytest.mark.parametrize("kind", ["transient", "persistent"])
def test_a_result_the_rerun_did_not_reproduce_is_the_gpu_s_fault(tmp_path: Path, ruleset: RuleSet, kind: str) -> None:
    lines = [
        " 2: [2025-03-02 11:04:01] iteration    46602/  80310 | lm loss: 2.314E+00 |",
        f" 2: {LOG}Unexpected result nan at /app/megatron/training.py line 412, invokation #1 at iteration #46603 "
        "(message='found NaN in local forward loss calculation')",
        f" 2: {LOG}Rank 2, node ip-10-1-196-222, device 2: Possible {kind} error!!",
        "srun: error: ip-10-1-196-222: task 2: Exited with exit code 17",
    ]
    report = replay_path(_run(tmp_path, lines), ruleset)
    incident = report.incidents[0]
    assert (incident.cause.value, incident.initiator.rank, incident.initiator.node) == ("gpu_hardware", 2, "ip-10-1-196-222")
    assert incident.remediation.drain_node


def test_a_nan_another_gpu_reproduced_is_the_application_s(tmp_path: Path, ruleset: RuleSet) -> None:
    lines = [
        f"51: {LOG}Rank 51, node aks-ndv5-83677007-vmss0009f8, device 3, iteration #10501: Correct result (but possible "
        "Application error) (found NaN in local forward loss calculation)!",
        "srun: error: aks-ndv5-83677007-vmss0009f8: task 51: Exited with exit code 17",
    ]
    incident = replay_path(_run(tmp_path, lines), ruleset).incidents[0]
    assert (incident.cause.value, incident.initiator.rank) == ("python_exception", 51)
    assert not incident.remediation.drain_node


def test_a_spiky_loss_the_validation_let_the_job_go_on_after_is_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    lines = [f" 0: {LOG}Rank 0, node gpu-3, device 0: Correct result (but possible Application error) (Spiky loss)!",
             *(f" 0: [2025-03-02 11:{i // 60:02d}:{i % 60:02d}] iteration {i:8d}/  80310 | lm loss: 2.3E+00 |"
               for i in range(1, 30))]
    assert replay_path(_run(tmp_path, lines), ruleset).incidents == ()


def test_a_transient_error_the_job_trained_on_after_is_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    """(a reviewer: a spiky loss's validation is not fatal - the job went on for 170 iterations)"""
    steps = [f" 2: [2025-03-02 11:{i // 60:02d}:{i % 60:02d}] iteration {i:8d}/  80310 | lm loss: 2.3E+00 |" for i in range(1, 200)]
    lines = [*steps[:30], f" 2: {LOG}Rank 2, node gpu-7, device 2, iteration #30: Possible transient error!", *steps[30:]]
    assert replay_path(_run(tmp_path, lines), ruleset).incidents == ()


def test_a_persistent_error_names_the_rerun_s_gpu_which_is_not_drained(tmp_path: Path, ruleset: RuleSet) -> None:
    """(a reviewer: "Possible persistent error!" is logged on the second rerun, on another GPU - the
    healthy one; the faulty GPU is the one the rank ran on before)"""
    lines = [
        " 2: [2025-03-02 11:00:01] iteration        1/  80310 | lm loss: 2.3E+00 |",
        f" 2: {LOG}Rank 2, node gpu-9, device 1: Possible persistent error!!",
        "srun: error: gpu-9: task 2: Exited with exit code 17",
    ]
    incident = replay_path(_run(tmp_path, lines), ruleset).incidents[0]
    assert (incident.cause.value, incident.initiator.rank) == ("gpu_hardware", 2)
    assert incident.confidence < 0.6  # (below remediation's min_confidence: said, not acted on)
    assert incident.initiator.gpu is None and not any(
        f.field("host") == "gpu-9" for f in incident.evidence if f.rule == "launcher.megatron_rerun_persistent")
