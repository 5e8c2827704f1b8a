"""What to do for an incident, by its cause (the table in docs/architecture.md). Pure functions.

| cause                                         | action                                        |
|-----------------------------------------------|-----------------------------------------------|
| gpu_hardware, ecc_memory, nvlink              | drain the node, resubmit, notify              |
| network, straggler                            | the same, only when the engine asked to drain |
|                                               | (one node to blame / hardware evidence)       |
| preemption, hang                              | resubmit without draining, notify             |
| everything else (application faults, unknown) | notify only: never drain, whatever the        |
|                                               | incident's remediation says                   |

For the machine causes the engine's verdict (``remediation.drain_node``) must agree, the node
must be known and pass the node-name check; otherwise a person decides (notify only). Below
``min_confidence`` every incident only notifies.
"""

from __future__ import annotations

from detector.remediation.exec.argv import valid_node
from detector.remediation.model import Plan
from detector.types import Cause, Incident

MACHINE_CAUSES = frozenset({Cause.GPU_HARDWARE, Cause.ECC_MEMORY, Cause.NVLINK, Cause.NETWORK,
                            Cause.STRAGGLER})
RESUBMIT_ONLY_CAUSES = frozenset({Cause.PREEMPTION, Cause.HANG})


def incident_node(incident: Incident) -> tuple[str | None, str | None]:
    """(the initiating node if it passes the check, a note when it was refused)."""
    node = incident.initiator.node
    if node is None:
        return None, None
    if valid_node(node):
        return node, None
    return None, f"node name {node[:80]!r} fails the node-name check; not used in any command"


def decide(incident: Incident, *, min_confidence: float) -> Plan:
    node, note = incident_node(incident)
    notes = (note,) if note else ()
    cause = incident.cause
    if not incident.confidence >= min_confidence:  # also NaN
        return Plan(False, False, node, (*notes, f"confidence {incident.confidence:.2f} is "
                                                 f"below {min_confidence:.2f}: notify only"))
    if cause in RESUBMIT_ONLY_CAUSES:
        return Plan(False, True, node, (*notes, f"{cause.value}: resubmit without draining"))
    if cause not in MACHINE_CAUSES:
        return Plan(False, False, node, (*notes, f"{cause.value} is not a machine fault: never "
                                                 "drains; notify only"))
    if not incident.remediation.drain_node:
        return Plan(False, False, node, (*notes, f"{cause.value}, but the engine did not ask "
                                                 "to drain: notify only"))
    if node is None:
        return Plan(False, False, None, (*notes, f"{cause.value}, but the initiating node is "
                                                 "unknown: notify only"))
    return Plan(True, True, node, (*notes, f"{cause.value} on {node}: drain, resubmit"))
