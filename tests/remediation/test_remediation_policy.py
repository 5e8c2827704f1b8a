"""Policy by cause, budgets, and the checks on values that reach argv."""

from __future__ import annotations

import pytest

from detector.remediation.budget import job_drain_allowance, over_budget
from detector.remediation.config import BudgetConfig
from detector.remediation.exec.argv import (
    drain_reason,
    safe_text,
    safe_token,
    valid_job_id,
    valid_node,
)
from detector.remediation.exec.templates import render
from detector.remediation.policy import decide
from detector.types import Cause
from tests.support.remediation import make_incident

APPLICATION = [Cause.CUDA_OOM, Cause.ILLEGAL_MEMORY_ACCESS, Cause.PYTHON_EXCEPTION,
               Cause.HOST_OOM_KILL, Cause.CRASH_SIGNAL, Cause.DATA_LOADER_STALL,
               Cause.COLLECTIVE_MISMATCH, Cause.UNKNOWN]


@pytest.mark.parametrize("cause", [Cause.GPU_HARDWARE, Cause.ECC_MEMORY, Cause.NVLINK,
                                   Cause.NETWORK, Cause.STRAGGLER])
def test_machine_causes_drain_and_resubmit(cause: Cause) -> None:
    plan = decide(make_incident(cause=cause), min_confidence=0.6)
    assert (plan.drain, plan.resubmit, plan.node) == (True, True, "n1")


@pytest.mark.parametrize("cause", APPLICATION)
def test_application_faults_never_drain_whatever_the_incident_says(cause: Cause) -> None:
    plan = decide(make_incident(cause=cause, drain=True, resubmit=True), min_confidence=0.6)
    assert not plan.drain and not plan.resubmit
    assert "never drains" in plan.reasons[-1]


@pytest.mark.parametrize("cause", [Cause.PREEMPTION, Cause.HANG])
def test_preemption_and_hang_resubmit_without_draining(cause: Cause) -> None:
    plan = decide(make_incident(cause=cause, drain=True), min_confidence=0.6)
    assert (plan.drain, plan.resubmit) == (False, True)


@pytest.mark.parametrize("cause", [Cause.NETWORK, Cause.STRAGGLER, Cause.GPU_HARDWARE])
def test_machine_cause_without_the_engines_drain_verdict_only_notifies(cause: Cause) -> None:
    plan = decide(make_incident(cause=cause, drain=False), min_confidence=0.6)
    assert not plan.drain and not plan.resubmit
    assert "did not ask to drain" in plan.reasons[-1]


def test_low_confidence_only_notifies() -> None:
    plan = decide(make_incident(confidence=0.59), min_confidence=0.6)
    assert not plan.drain and not plan.resubmit
    assert "below 0.60" in plan.reasons[-1]
    assert decide(make_incident(confidence=0.6), min_confidence=0.6).drain


@pytest.mark.parametrize("node", ["-n1", "n1;reboot", "n1 n2", "$(id)", "a" * 64, "n1\n", ""])
def test_a_node_name_failing_the_pattern_is_never_used(node: str) -> None:
    plan = decide(make_incident(node=node), min_confidence=0.6)
    assert plan.node is None and not plan.drain


def test_unknown_node_only_notifies() -> None:
    plan = decide(make_incident(node=None), min_confidence=0.6)
    assert not plan.drain and "unknown" in plan.reasons[-1]


def test_patterns() -> None:
    assert valid_node("n1") and valid_node("gpu-node-07.cluster") and valid_node("A" * 63)
    assert not valid_node("-rf") and not valid_node("n1,n2") and not valid_node("n[1-2]")
    assert valid_job_id("1234") and valid_job_id("1234_7")
    assert not valid_job_id("1234;x") and not valid_job_id("-1") and not valid_job_id("")


def test_reason_and_tokens_are_reduced_to_a_safe_set() -> None:
    reason = drain_reason("gpu_hardware", 'inc"; rm -rf / `x` $(y)\nz')
    assert reason.startswith("rankdoctor: gpu_hardware inc_")
    assert all(c.isalnum() or c in " ._:/=+-" for c in reason)
    assert safe_text("a" * 500).__len__() == 120
    assert safe_token("../../etc") == ".._.._etc"
    assert safe_token("") == "unnamed"


def test_template_keeps_each_element_one_argument() -> None:
    assert render(["--resume", "{checkpoint}", "x{missing}y"],
                  {"checkpoint": "/c/step 1; rm"}) == ("--resume", "/c/step 1; rm", "xy")


def test_budget_per_hour() -> None:
    b = BudgetConfig(max_drains_per_hour=2, max_drain_fraction=0.25)
    assert over_budget(b, drains_last_hour=1, job_drained=[], node="n1", job_nodes=8) is None
    why = over_budget(b, drains_last_hour=2, job_drained=[], node="n1", job_nodes=8)
    assert why is not None and "drain 3 in the last hour" in why


def test_budget_fraction_of_the_jobs_nodes() -> None:
    b = BudgetConfig(max_drains_per_hour=100, max_drain_fraction=0.25)
    assert job_drain_allowance(b, 8) == 2
    assert job_drain_allowance(b, 2) == 1  # at least one node
    assert job_drain_allowance(b, None) == 1
    assert over_budget(b, drains_last_hour=0, job_drained=["n1"], node="n2", job_nodes=8) is None
    why = over_budget(b, drains_last_hour=0, job_drained=["n1", "n2"], node="n3", job_nodes=8)
    assert why is not None and "max_drain_fraction 0.25" in why
    # draining the same node again does not count as another node of the job
    assert over_budget(b, drains_last_hour=0, job_drained=["n1"], node="n1", job_nodes=1) is None
