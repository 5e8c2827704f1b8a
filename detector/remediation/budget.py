"""Drain budgets. Pure functions; the state store counts, this decides.

- At most ``max_drains_per_hour`` drains in any sliding hour (all jobs of this state dir).
- Never more than ``max_drain_fraction`` of the job's nodes drained for that job, with a floor
  of one node: ``max(1, floor(fraction * nodes))``. Without the floor a job on fewer than
  ``1 / fraction`` nodes (a single-node job at 25 %) could never be remediated; with it, a job
  whose second node "fails" needs a person — the failure probably follows the job, not the nodes.
  When the job's node count is unknown it is taken as 1 (one drain per job).

Past a budget the breaker opens (see :mod:`detector.remediation.state`).
"""

from __future__ import annotations

import math
from collections.abc import Collection

from detector.remediation.config import BudgetConfig

HOUR_S = 3600.0


def job_drain_allowance(budget: BudgetConfig, job_nodes: int | None) -> int:
    nodes = job_nodes if job_nodes is not None else 1
    return max(1, math.floor(budget.max_drain_fraction * nodes + 1e-9))


def over_budget(budget: BudgetConfig, *, drains_last_hour: int, job_drained: Collection[str],
                node: str, job_nodes: int | None) -> str | None:
    """Why draining ``node`` now would exceed a budget; None when it is within both."""
    if drains_last_hour + 1 > budget.max_drains_per_hour:
        return (f"drain budget: this would be drain {drains_last_hour + 1} in the last hour "
                f"(max_drains_per_hour {budget.max_drains_per_hour})")
    allowance = job_drain_allowance(budget, job_nodes)
    drained = set(job_drained) | {node}
    if len(drained) > allowance:
        known = f"{job_nodes}" if job_nodes is not None else "unknown (taken as 1)"
        return (f"drain budget: {len(drained)} of the job's nodes drained ({', '.join(sorted(drained))}) "
                f"would exceed max_drain_fraction {budget.max_drain_fraction:g} of {known} nodes "
                f"(at most {allowance})")
    return None
