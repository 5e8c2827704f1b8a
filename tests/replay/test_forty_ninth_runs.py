"""The forty-ninth session's runs: an incident note's list of Xid 79 lines, quoted without the
kernel's "NVRM: Xid (" form."""

from __future__ import annotations

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of


def test_an_incident_notes_quoted_xid_79_list_is_a_gpu_fallen_off_the_bus(tmp_path, ruleset: RuleSet) -> None:
    # the note's condensed history of one GPU's faults and its DCGM diagnostic's summary; no
    # kernel log, no trainer's log
    seen = incidents_of(tmp_path, {
        "xid_history.txt": ("Mar 10 21:38:13  Xid 79 (PCI:0000:46:00): GPU has fallen off the bus\n"
                            "Mar 10 23:25:13  Xid 79 (PCI:0000:46:00): pid=14944, name=VLLM::Worker, GPU has"
                            " fallen off the bus\n"),
        "dcgm_diag_r3.txt": "diagnostic          Fail    Xid 79 detected (GPU fallen off bus)\n",
        "lspci_link.txt": "LnkSta: Speed 16GT/s (ok), Width x16 (ok)\n"}, ruleset)
    assert seen and seen[0].cause is Cause.GPU_HARDWARE
    assert any("Xid 79 (PCI:0000:46:00)" in line for line in seen[0].evidence)


def test_a_runbook_naming_xid_79_is_no_fault(tmp_path, ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path, {"notes.txt": "Xid 79 (PCI:0000:46:00): see the runbook before draining\n"}, ruleset)
    assert seen == []
