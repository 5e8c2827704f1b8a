"""When to run attribution on live evidence, and which of its incidents are new.

- **Settle windows.** New initiator-grade evidence (an exception, a CUDA error, an Xid, a stall)
  is attributed ``settle_s`` after it was first seen, so that corroborating lines (the exit
  code, the other ranks' errors) join the same incident. Evidence that only says a rank
  process exited waits up to ``exit_wait_s`` for its reason; collateral evidence alone (peers'
  connection errors) waits ``collateral_wait_s`` for the initiator's own evidence.
- **One incident per failure.** After an incident is reported, the evidence seen so far is
  consumed and later incidents of the same *episode* (same torchrun attempt, or no attempt
  known) are suppressed; an independent hardware fault on another node is still reported, and
  an incident that names a rank replaces (once) one that could not (a stall seen at the hang
  floor, then the ranks' timeouts that name the rank), and a GPU's fault told after the failure
  replaces (once) the reading without it (a hang, then the Xid of the hung rank's GPU): the second
  says which one it replaces (:meth:`IncidentGate.replaced_by`). The episode closes when
  training progresses again (a new attempt, or steady progress ``recovery_s`` after the
  incident); evidence older than its start is no longer attributed.
- Reported incidents and the episode are kept in the state store, so a restarted sidecar does
  not report the same failure again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from detector.attribution.incident import HARDWARE
from detector.pipeline.relaunch import LAUNCH_ENDED
from detector.sidecar.config import DetectionConfig
from detector.sidecar.state import ReportedRecord, SidecarStore
from detector.types import GPU_FAULTS, RAISED, RULE_PROCESS_EXITED, RULE_STALL, Cause, Finding, Incident, Role

EXIT_RULE = RULE_PROCESS_EXITED
STALL_RULE = RULE_STALL
_EPISODE_KEY = "episode_start"


class Kind(StrEnum):
    INITIATOR = "initiator"
    EXIT = "exit"
    COLLATERAL = "collateral"


def evidence_key(f: Finding) -> str:
    """Identity of a piece of evidence across re-computations."""
    if f.file is not None and f.line is not None:
        return f"{f.rule}|{f.file}|{f.line}|{f.rank}"
    return f"{f.rule}|{f.node}|{f.rank}|{f.pid}|{f.gpu}|{f.text[:80]}"


def kind_of(f: Finding) -> Kind | None:
    if f.role is Role.INITIATOR and f.cause is not None:
        if f.rule == EXIT_RULE and f.cause is Cause.UNKNOWN:
            return Kind.EXIT
        return Kind.INITIATOR
    if f.role is Role.COLLATERAL:
        return Kind.COLLATERAL
    return None


def incident_attempt(incident: Incident) -> int | None:
    attempts = [f.attempt for f in incident.evidence if f.attempt is not None]
    return max(attempts) if attempts else None


@dataclass(frozen=True, slots=True)
class Due:
    """Attribution is due: the active evidence, and whether only process exits are in it."""

    keys: frozenset[str]
    exits_only: bool


_HARDWARE_VALUES = frozenset(c.value for c in HARDWARE)
# steps an exception's rank logs after it, while it is held, that say the job went on
WENT_ON_STEPS = 2
SLOW_STEPS_WAIT_S = 60.0  # the longest an unconfirmed exception waits for slow steps to show the job went on
# what a job can live through: an exception caught and logged, an OOM its batch-size probe caught
_SURVIVABLE = frozenset({Cause.PYTHON_EXCEPTION, Cause.CUDA_OOM})


def _survivable(incidents: Sequence[Incident]) -> list[Finding]:
    """The incidents' initiator-grade evidence of a cause a job can live through, and the
    exception lines of their tracebacks that collateral rules read (a connection reset caught and
    logged: pipeline.findings marks them)."""
    return [f for i in incidents for f in i.evidence
            if (f.role is Role.INITIATOR and f.cause in _SURVIVABLE) or (f.role is Role.COLLATERAL and f.field(RAISED))]


def _only_raised(incident: Incident) -> bool:
    """``incident`` names no cause and rests on nothing but exception lines of tracebacks that
    collateral rules read (a connection reset, a peer or a store lost): the job may have caught
    and logged them and gone on, as an exception of its own."""
    said = [f for f in incident.evidence if f.role is not Role.CONTEXT]
    return (incident.cause is Cause.UNKNOWN and bool(said)
            and all(f.role is Role.COLLATERAL and f.field(RAISED) for f in said))


def _raised(incidents: Sequence[Incident]) -> set[int | None]:
    """The ranks that raised (or ran out of memory) in ``incidents`` (None: a rank unknown)."""
    return {i.initiator.rank for i in incidents} | {f.rank for f in _survivable(incidents)}


def _confirmed(incident: Incident) -> bool:
    """Whether something besides the exception itself says the failure ended anything: a peer's
    error, a process's exit, the launcher's failure, or a cause no process lives through."""
    for f in incident.evidence:
        # (a traceback's exception line that a collateral rule reads is the exception's own, no peer's)
        if (f.role is Role.COLLATERAL and not f.field(RAISED)) or f.rule == EXIT_RULE or f.rule in LAUNCH_ENDED \
                or f.rule.startswith("torch.elastic_"):
            return True
        if f.role is Role.INITIATOR and f.cause is not None and f.cause not in _SURVIVABLE:
            return True
    return False


# a GPU's fault explains an open incident of its rank told this long after it was reported (the
# driver's Xid after a hang's timeout, DCGM a scrape or two later), or before it (a stamped line)
EXPLAINS_WITHIN_S = 300.0
EXPLAINS_BEFORE_S = 600.0


class IncidentGate:
    def __init__(self, config: DetectionConfig, store: SidecarStore) -> None:
        self._cfg = config
        self._store = store
        self._first_seen: dict[str, tuple[float, Kind]] = {}
        self._consumed: set[str] = set()
        episode = store.get_meta(_EPISODE_KEY)
        self.episode_start = float(episode) if episode else 0.0
        self._open: list[ReportedRecord] = store.reported_since(self.episode_start)
        for record in self._open:
            self._consumed.update(record.keys)
        self._superseded: set[str] = set()
        self._replaces: dict[str, str] = {}  # a reported incident's id -> the id of the one it replaced
        self._progress: dict[int, float] = {}
        self._done_attempts: set[int] = set()
        self._stragglers_said: set[tuple[int | None, str | None]] = set()
        self._hold_until: float | None = None
        self._held_steps: dict[int, int] | None = None  # step lines per rank since the hold began
        self._held_in: set[tuple[str | None, int | None]] = set()  # in these files (and attempts)
        self.caught: set[str] = set()  # exceptions the job went on after: context from now on
        self._restarted_at: float | None = None  # a new attempt's processes, seen before the failure was reported
        # the steps logged (per rank) in the files (and attempts) of traceback lines that collateral
        # rules read, since they were seen: they wait collateral_wait_s before a hold, and the
        # steps of that wait say whether the job went on too
        self._raised_steps: dict[tuple[str | None, int | None], dict[int, int]] = {}

    def history_from(self, start: float) -> None:
        """A watch begun with no episode of its own: evidence whose own time is before ``start``
        (a finished run's lines, in a folder of many runs, read as backlog) is no longer
        attributed - the files are still read, for who is who. Not kept in the store: an episode
        the watch opens later is."""
        if self.episode_start == 0.0 and not self._open:
            self.episode_start = start

    def configure(self, config: DetectionConfig) -> None:
        """New windows (a reloaded config); what is already settling keeps its first-seen time."""
        self._cfg = config

    # --- evidence ---

    def observe(self, findings: Sequence[Finding], now: float) -> None:
        """Note when each active piece of evidence was first seen."""
        for f in findings:
            kind = kind_of(f)
            if kind is None:
                continue
            key = evidence_key(f)
            if key in self._consumed or key in self._first_seen:
                continue
            self._first_seen[key] = (now, kind)
            self._hold_until = None  # new evidence: look again (it may confirm what is held)
            if kind is Kind.COLLATERAL and f.field(RAISED) and f.file is not None:
                self._raised_steps.setdefault((f.file, f.attempt), {})

    def pending(self) -> bool:
        """Whether evidence was seen that is not attributed yet (settling, waiting or held)."""
        return bool(self._first_seen)

    def hold(self, until: float, incidents: Sequence[Incident] = ()) -> None:
        """Attribute the active evidence again no sooner than ``until`` (or when new evidence
        comes): what it said now is not yet to be reported. From now on the steps logged in the
        files of ``incidents``' exceptions (and their attempts) are counted (:meth:`went_on`)."""
        self._hold_until = until
        if self._held_steps is None:
            self._held_steps = {}
            self._held_in = {(f.file, f.attempt) for f in _survivable(incidents) if f.file is not None}
            for where in self._held_in:  # (the steps since a traceback's collateral lines were seen)
                for rank, count in self._raised_steps.get(where, {}).items():
                    self._held_steps[rank] = self._held_steps.get(rank, 0) + count

    def went_on(self, incidents: Sequence[Incident]) -> bool:
        """Whether the job trained on while ``incidents`` were held: each rank that raised logged
        :data:`WENT_ON_STEPS` steps since, in the file (and attempt) of its exception, or (a rank
        unknown) some rank one more there - a rank whose peer raised gets a step or so out before
        it blocks in the next collective. Steps elsewhere (another file read late, the next
        attempt's) say nothing of it."""
        if not self._held_steps:
            return False
        ranks = _raised(incidents)
        if None in ranks and max(self._held_steps.values()) <= WENT_ON_STEPS:
            return False
        return all(self._held_steps.get(r, 0) >= WENT_ON_STEPS for r in ranks if r is not None)

    def drop_caught(self, incidents: Sequence[Incident], due: Due) -> None:
        """``incidents`` were caught (:meth:`went_on`): their exceptions are context from now on
        and consumed; the rest of the active evidence (another rank's failure, told at the same
        time) is attributed again."""
        ranks = _raised(incidents)
        mine = {evidence_key(f) for i in incidents for f in i.evidence
                if f.rank in ranks and (f.role is not Role.INITIATOR or f.cause in _SURVIVABLE)}
        self.caught |= {evidence_key(f) for f in _survivable(incidents)}
        self.consume(Due(frozenset(k for k in due.keys if k in mine or k in self.caught), due.exits_only))

    def deadline(self) -> float | None:
        by_kind: dict[Kind, float] = {}
        for seen, kind in self._first_seen.values():
            by_kind[kind] = min(seen, by_kind.get(kind, seen))
        if Kind.INITIATOR in by_kind:
            due = by_kind[Kind.INITIATOR] + self._cfg.settle_s
            return due if self._hold_until is None else max(due, self._hold_until)
        waits = []
        if Kind.EXIT in by_kind:
            waits.append(by_kind[Kind.EXIT] + self._cfg.exit_wait_s)
        if Kind.COLLATERAL in by_kind:
            waits.append(by_kind[Kind.COLLATERAL] + self._cfg.collateral_wait_s)
        if not waits:
            return None
        return min(waits) if self._hold_until is None else max(min(waits), self._hold_until)

    def due(self, now: float) -> Due | None:
        deadline = self.deadline()
        if deadline is None or now < deadline:
            return None
        kinds = {kind for _, kind in self._first_seen.values()}
        return Due(frozenset(self._first_seen), kinds == {Kind.EXIT})

    def held_until(self, incidents: Sequence[Incident], step_s: float | None = None) -> float | None:
        """Until when the incidents are to be held: each is told by an exception or a CUDA OOM
        alone, with nothing confirming that it ended anything, or (no cause named) by nothing but
        exception lines that collateral rules read; None: report now. Where the job's steps are
        slow (``step_s``, their median interval), long enough for :data:`WENT_ON_STEPS` of them and
        one more, up to :data:`SLOW_STEPS_WAIT_S`: a job of 3 s steps shows in 5 s only that it did not
        stop at once."""
        by_kind = ([seen for seen, kind in self._first_seen.values() if kind is Kind.INITIATOR]
                   or [seen for seen, kind in self._first_seen.values() if kind is Kind.COLLATERAL])
        if not incidents or not by_kind or self._cfg.confirm_wait_s <= 0:
            return None
        if any(not _only_raised(i) and (i.cause not in _SURVIVABLE or _confirmed(i)) for i in incidents):
            return None
        wait = self._cfg.confirm_wait_s
        if step_s is not None and step_s > 0:
            wait = max(wait, min(SLOW_STEPS_WAIT_S, (WENT_ON_STEPS + 1) * step_s))
        return min(by_kind) + wait

    def consume(self, due: Due) -> None:
        """The active evidence was looked at (whether or not it made an incident)."""
        self._consumed.update(due.keys)
        for key in due.keys:
            self._first_seen.pop(key, None)
        self._hold_until = None
        self._held_steps = None
        if not self._first_seen:
            self._raised_steps.clear()
            if self._restarted_at is not None:
                # (what was seen before the workers started again is told or dropped: what fails
                # after that is a new episode)
                restarted, self._restarted_at = self._restarted_at, None
                if self._open:
                    self._close(restarted)

    # --- incidents ---

    def select(self, incidents: Sequence[Incident], due: Due, now: float) -> list[Incident]:
        """The incidents to report now; records them and consumes the active evidence."""
        fresh: list[Incident] = []
        for incident in incidents:
            if incident.cause is Cause.STRAGGLER:
                # a slow rank of a job that goes on: said once, and no episode opens for it (the
                # failure it may end in is reported as its own)
                key = (incident.initiator.rank, incident.initiator.node)
                if key not in self._stragglers_said:
                    self._stragglers_said.add(key)
                    fresh.append(incident)
                continue
            new, replaced = self._is_new(incident)
            if not new:
                continue
            if replaced is not None:
                self._replaces[incident.id] = replaced
            fresh.append(incident)
            record = ReportedRecord(
                incident.id, incident_attempt(incident), incident.initiator.rank, incident.initiator.node,
                incident.cause.value, now, tuple(sorted(due.keys)),
            )
            self._open.append(record)
            self._store.add_reported(record)
        self.consume(due)
        return fresh

    def replaced_by(self, incident_id: str) -> str | None:
        """The id of the incident (one that named no rank) that the reported incident
        ``incident_id`` replaces, or None."""
        return self._replaces.get(incident_id)

    def _is_new(self, incident: Incident) -> tuple[bool, str | None]:
        """Whether ``incident`` is to be reported, and the id of the open incident it replaces."""
        attempt = incident_attempt(incident)
        if attempt is not None and attempt in self._done_attempts:
            return False, None
        replaced: str | None = None
        for record in self._open:
            if record.incident_id == incident.id:
                return False, None
            if attempt is not None and record.attempt is not None and attempt != record.attempt:
                continue
            node = incident.initiator.node
            if incident.cause in HARDWARE and node and record.node and node != record.node:
                continue
            if self._explains(incident, record):
                # (a GPU's fault that the kernel, NVML or DCGM told after the failure it explains:
                # a hang, a bare SIGKILL first read without it)
                self._superseded.add(record.incident_id)
                replaced = record.incident_id
                continue
            if (record.rank is None and incident.initiator.rank is not None
                    and record.incident_id not in self._superseded
                    # (the ranks' exits after a stop from outside are its teardown, not a cause)
                    and not (record.cause == Cause.PREEMPTION.value and incident.cause is Cause.UNKNOWN)):
                self._superseded.add(record.incident_id)
                replaced = record.incident_id
                continue
            return False, None
        return True, replaced

    def _explains(self, incident: Incident, record: ReportedRecord) -> bool:
        """``incident`` is a fault of the GPU (its memory, its links) of a rank of the job - the
        rank the open incident ``record``, of no machine fault, named, where it named one - told
        within :data:`EXPLAINS_WITHIN_S` of that incident: it replaces that one, once - the fault
        came to light after the failure (an Xid written when the driver gave up on the GPU, a DCGM
        counter a scrape later). A GPU no rank of the job uses is another job's."""
        if incident.cause not in GPU_FAULTS or record.incident_id in self._superseded:
            return False
        if record.cause in _HARDWARE_VALUES:
            return False
        # (a GPU of a rank of the job - a fault of a GPU no rank uses is another job's on the node -
        # and that incident's rank where it named one, told within minutes of it)
        rank, node = incident.initiator.rank, incident.initiator.node
        if rank is None or (record.rank is not None and rank != record.rank):
            return False
        # (when the GPU's own fault was told: the incident's first evidence may be the failure's)
        told = [f.time.timestamp() for f in incident.evidence
                if f.role is Role.INITIATOR and f.cause in GPU_FAULTS and f.time is not None]
        if not told or not record.at - EXPLAINS_BEFORE_S <= min(told) <= record.at + EXPLAINS_WITHIN_S:
            return False
        return not (node and record.node and node.split(".")[0].lower() != record.node.split(".")[0].lower())

    def suppressed_attempts(self) -> set[int | None]:
        return {r.attempt for r in self._open}

    # --- episodes ---

    def progress(self, rank: int, attempt: int | None, time: float, n_ranks: int, *,
                 launch_started: float | None = None, file: str | None = None) -> None:
        """A step line: closes the open episode when training clearly goes on. ``launch_started``:
        when the torchrun launch the line is from began (its run folder's time when the sidecar
        first saw it); a launch begun after the last open incident was reported is a new launch of
        the job (a requeue, a rerun into the same folder: its attempts count from 0 again), and its
        training is a new episode at once (not another node's launch of the same job, begun with
        it, whose files a shared file system shows late; nor, after the sidecar restarts, the
        launch that failed)."""
        if self._held_steps is not None and any(file == f and (a is None or attempt is None or a == attempt)
                                                for f, a in self._held_in):
            self._held_steps[rank] = self._held_steps.get(rank, 0) + 1
        for (where, a), counts in self._raised_steps.items():
            if file == where and (a is None or attempt is None or a == attempt):
                counts[rank] = counts.get(rank, 0) + 1
        if not self._open:
            return
        attempts = [r.attempt for r in self._open if r.attempt is not None]
        last = max(r.at for r in self._open)
        if launch_started is not None and launch_started > last:
            self._done_attempts.clear()  # (the new launch's attempts are numbered afresh)
            self._close(last)
            return
        if attempt is not None and attempts and attempt > max(attempts):
            self._done_attempts.update(attempts)
            self._close(last)  # the old attempt's teardown, after the report, is still its own
            return
        if time < last + self._cfg.recovery_s:
            return
        self._progress[rank] = time
        if len(self._progress) >= max(1, (n_ranks + 1) // 2):
            self._close(min(self._progress.values()))

    def new_attempt(self, now: float) -> None:
        """The launcher started its workers again (processes of a later attempt, seen on this
        host): a failure reported before is that attempt's, and what fails after ``now`` is a new
        episode - a console's lines name no attempt, so the restarted job's next failure (at its
        first step, before any progress closes the episode) was taken for the old one's and never
        reported. Where the old failure is still settling or held, the episode closes once it is
        reported."""
        if self._open:
            self._close(now)
        elif self._first_seen:
            self._restarted_at = now

    def _close(self, start: float) -> None:
        self._open.clear()
        self._progress.clear()
        self._superseded.clear()
        self.episode_start = start
        self._store.set_meta(_EPISODE_KEY, repr(start))
        if len(self._consumed) > 100_000:
            self._consumed.clear()

    @property
    def open_incidents(self) -> int:
        return len(self._open)
