"""Values passed between the remediation parts: frozen, slotted dataclasses and enums."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from detector.types import Incident


class Action(StrEnum):
    """The steps of a remediation, in the order they run."""

    CHECKPOINT = "checkpoint"  # find the resume point (read-only)
    DRAIN = "drain"  # take the bad node out of scheduling
    RESUBMIT = "resubmit"  # restart the job elsewhere
    NOTIFY = "notify"  # tell a person


class Status(StrEnum):
    """How one hook call ended."""

    OK = "ok"
    FAILED = "failed"
    TIMEOUT = "timeout"
    DRY_RUN = "dry_run"  # planned only
    SKIPPED = "skipped"


class Event(StrEnum):
    """Why a hook is called: a decision on an incident, or a failed verification (a page)."""

    DECISION = "decision"
    VERIFICATION_FAILED = "verification_failed"


class Outcome(StrEnum):
    """How the handling of one incident ended."""

    ACTED = "acted"  # every planned action succeeded
    NOTIFIED = "notified"  # only a notification was due (policy, confidence, budget, breaker)
    FAILED = "failed"  # an action failed or timed out
    DUPLICATE = "duplicate"  # the incident was handled before: nothing done
    DRY_RUN = "dry_run"  # nothing done; the decision shows what would be


Command = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Checkpoint:
    path: str
    step: int | None


@dataclass(frozen=True, slots=True)
class HookCall:
    """What a hook is asked to do. Every string here is safe to put in an argument list:
    ``node`` matched the node-name pattern, ``reason`` and ``incident_token`` hold only
    ``[A-Za-z0-9 ._:/=+-]``. ``incident`` and ``incident_json`` carry log text: hand them over
    only as data (stdin, a JSON body), never in argv or a shell."""

    action: Action
    event: Event
    incident: Incident
    incident_json: str
    incident_token: str
    node: str | None
    reason: str
    summary: str
    checkpoint: Checkpoint | None
    deadline: float  # clock.monotonic() value by which the hook must return


@dataclass(frozen=True, slots=True)
class HookResult:
    """What a hook reports back. ``commands`` are the argument lists it ran (or would run)."""

    status: Status
    detail: str = ""
    commands: tuple[Command, ...] = ()
    checkpoint: Checkpoint | None = None
    job_id: str | None = None  # the job that now runs (a new id after an sbatch)
    skipped: tuple[str, ...] = ()  # things passed over and why (partial checkpoints…)


@dataclass(frozen=True, slots=True)
class HookOutcome:
    """A HookResult with the hook's name and the action, as recorded."""

    hook: str
    action: Action
    result: HookResult
    attempts: int = 1


@dataclass(frozen=True, slots=True)
class JobFacts:
    """What a scheduler hook knows about the job: a key for budgets, its node count, its logs."""

    key: str | None = None  # "slurm:1234": drains are counted per key
    job_id: str | None = None  # fills {job_id} in verify.logs
    nodes: int | None = None
    logs: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Plan:
    """What the policy decided for an incident (before hooks ran)."""

    drain: bool
    resubmit: bool
    node: str | None
    reasons: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class FileMark:
    """Where a log file ended before the resubmission, and its last bytes there."""

    path: str
    inode: int
    size: int
    signature: bytes


@dataclass(frozen=True, slots=True)
class VerifyPlan:
    """How to confirm that a resubmitted job resumed: progress past ``baseline_step`` in the
    new lines of ``logs`` (file globs) before ``deadline_s`` from ``started``."""

    incident_id: str
    baseline_step: int
    logs: tuple[str, ...]
    snapshot: tuple[FileMark, ...]  # the log files before the resubmission
    started: float  # clock.time() of the resubmission
    deadline_s: float


@dataclass(frozen=True, slots=True)
class Decision:
    incident: Incident
    node: str | None  # the initiating node, when it passed the node-name check
    job: str | None
    outcome: Outcome
    plan: Plan
    reasons: tuple[str, ...]
    outcomes: tuple[HookOutcome, ...]
    checkpoint: Checkpoint | None
    verify: VerifyPlan | None
    time: float


class VerifyStatus(StrEnum):
    VERIFIED = "verified"
    FAILED = "failed"
    SKIPPED = "skipped"


@dataclass(frozen=True, slots=True)
class Verification:
    incident_id: str
    status: VerifyStatus
    detail: str
    step: int | None = None
    file: str | None = None
    elapsed_s: float = 0.0
