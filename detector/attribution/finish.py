"""The end of training: ranks that finished and a rank that did not.

The step statistics mark a rank *finished* when it printed an end-of-training line after its
last step, and report a split between finished and unfinished ranks (see
``detector.stats.stall``): as a stall when the unfinished ranks stayed silent beyond their
allowance, else as context (``stats.finish``). The odd side is the culprit:

- most ranks finished and exited while a few did not: those few hung on the way out (a
  *teardown hang*: a helper thread, a final barrier, a checkpoint writer); the ranks that
  finished are not collateral, they did their work;
- a few ranks finished while the others had not (an uneven IterableDataset: their data ran out
  first) and the others then stopped, waiting for them in a collective (a stall, a collective
  timeout or a lost peer): the few that finished are named, the others are collateral.

A split seen only as context names a culprit when the unfinished ranks failed in a collective
right after the others finished (gloo notices the lost peer at once; NCCL waits for its
watchdog). Attribution reads the findings only; it imports nothing from the statistics.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from detector.attribution.incident import PEER_LOST_HINTS, SKEW, TIMEOUT_HINTS, _build, _initiator_for
from detector.attribution.infer import _as_ranks
from detector.support.numbers import consecutive_runs
from detector.types import RULE_FINISH, RULE_STALL, Cause, Finding, Incident, Role, RunFacts


def ranks_span(ranks: Sequence[int]) -> str:
    """``rank 3``, ``ranks 0-2``, ``ranks 0, 1, 3``."""
    items = sorted(set(ranks))
    parts = [f"{a}-{b}" if b - a >= 2 else ", ".join(str(r) for r in range(a, b + 1)) for a, b in consecutive_runs(items)]
    if len(parts) > 12:
        parts = [*parts[:12], f"and {len(parts) - 12} more"]
    return f"{'rank' if len(items) == 1 else 'ranks'} {', '.join(parts)}"


def _comm_failure(f: Finding) -> bool:
    return f.role is Role.COLLATERAL and any(h in f.rule for h in (*TIMEOUT_HINTS, *PEER_LOST_HINTS))


def finish_incident(group: Sequence[Finding], facts: RunFacts, *,
                    stopped_by: Sequence[Finding] = ()) -> Incident | None:
    """A hang on the rank(s) on the odd side of a finished/unfinished split, or None.

    ``stopped_by``: the group's initiator-grade evidence, when it has some. The split still
    decides when all of it is the scheduler ending the job (a time limit, a preemption) after
    the unfinished ranks had already been silent beyond their allowance: the job hung first."""
    stalls = [f for f in group if f.rule == RULE_STALL and f.role is Role.INITIATOR and f.field("finish")]
    if stopped_by:
        first_stall = min((f.time for f in stalls if f.time is not None), default=None)
        if (first_stall is None or not all(f.cause is Cause.PREEMPTION for f in stopped_by)
                or any(f.time is not None and f.time < first_stall for f in stopped_by)):
            return None
    lead = stalls[0] if stalls else next((f for f in group if f.rule == RULE_FINISH), None)
    if lead is None:
        return None
    finished = _as_ranks(lead.field("finished_ranks"))
    unfinished = _as_ranks(lead.field("unfinished_ranks"))
    if not finished or not unfinished:
        return None
    failures: list[Finding] = []
    if stalls:
        left_early = lead.field("finish") == "left_early"
    else:
        # nobody silent long enough: the split names a culprit only when the unfinished ranks
        # failed in a collective once the others had finished
        t = lead.time
        failures = [f for f in group if _comm_failure(f) and f.rank in unfinished
                    and (t is None or f.time is None or f.time >= t - SKEW)]
        if not failures:
            return None
        left_early = len(finished) <= len(unfinished)  # they left while the others still needed them
    named = sorted(finished if left_early else unfinished)
    rank = named[0]
    step = lead.field("finished_step") if left_early else lead.field("step")
    if left_early:
        them = "it" if len(named) == 1 else "them"
        how = (f"no step progress for {lead.field('value')} s" if stalls
               else "their collective failed when the peer was gone" if any("closed" in f.rule or "reset" in f.rule
                                                                          or "remote" in f.rule for f in failures)
               else "their collective timed out")
        why = (f"{ranks_span(named)} finished training after step {step} and left while "
               f"{ranks_span(unfinished)} had not finished and waited for {them} in a collective ({how}): "
               f"{ranks_span(named)} ran out of data first (an uneven dataset)")
        collateral = tuple(sorted(unfinished))
    else:
        its = "its" if len(named) == 1 else "their"
        how = (f"no end-of-training line {lead.field('value')} s after {its} last step, {step}" if stalls
               else f"{its} collective failed after the others had left")
        why = f"{ranks_span(finished)} finished training and exited; {ranks_span(named)} did not finish: a teardown hang ({how})"
        collateral = tuple(r for r in named if r != rank)
    if stopped_by:
        why += "; the scheduler ended the job later"
    scheduler = {id(f) for f in stopped_by}
    evidence = [f for f in group if f.rank in named or f.rule in (RULE_STALL, RULE_FINISH) or id(f) in scheduler
                or (f.role is Role.COLLATERAL and (f.rank is None or f.rank in unfinished))]
    initiator = _initiator_for(rank, None, facts, evidence)
    incident = _build(Cause.HANG, initiator, evidence, collateral, 0.8 if stalls else 0.65, facts, inferred_by=why)
    pid = f" --pid {initiator.pid}" if initiator.pid is not None else ""
    its = "its" if len(named) == 1 else "their"
    if left_early:
        fix = (f"{ranks_span(named).capitalize()} ran out of data before the others: give every rank the same "
               "number of batches (equal shards, drop the remainder, or wrap the loop in "
               "torch.distributed.algorithms.Join) and resubmit from the last checkpoint. No node is at fault.")
    else:
        fix = (f"{ranks_span(named).capitalize()} never left {its} teardown: capture {its} stacks (py-spy dump"
               f"{pid}) to see what it waits for (a helper thread, a final barrier, a checkpoint writer); the "
               "training itself completed. No node is at fault.")
    return replace(incident, remediation=replace(incident.remediation, fix=fix, resubmit=left_early))
