"""The coordinator (``rankdoctor watch --coordinator --prometheus URL``): every node's sidecar
exports its ranks' evidence on /metrics (see :mod:`detector.sidecar.metrics`); the Prometheus
that scrapes them answers PromQL for the whole job; this source turns the answers back into
findings and rank facts for the same engine, which attributes across nodes. Only the
coordinator hands incidents to remediation.

Across nodes it also compares where stalled ranks wait (``rankdoctor_rank_wait_state``): with
two ranks per node no node can tell which of its ranks is the odd one, the job can.

**At scale** (1,024 nodes x 8 ranks: 8,192 series per metric) a round does not read every
series of every metric: PromQL selects what attribution can use, so a round's answers stay the
same few kilobytes however many ranks there are (bench/bench_coordinator.py, BENCHMARKS.md).
One query a round, more only when something calls for them:

- *initiator-grade evidence*: the ``K_ERRORS`` earliest per cause (``bottomk ... by (cause)``).
  Attribution takes the earliest, lets stronger causes win within the skew window and makes an
  independent hardware fault on another node its own incident; reports of a cause later than
  its first ``K_ERRORS`` change none of that.
- *collateral evidence*: the ``K_COLLATERAL`` earliest per rule (the incident's first evidence,
  each kind of collateral line: the rule names tell a hang from a lost peer). Every rank is
  collateral anyway, from who is who.
- *wait states*: the ranks per state (at most ``WAIT_STATES`` states); the ranks elsewhere than
  the common state only when they are few enough to be the odd ones.
- *who is who* (``rankdoctor_rank_info``: node, local rank, GPU and pid of every rank; an
  incident names every other rank as collateral, and a GPU-only finding from DCGM is placed on
  a rank by node and GPU) is read in full, with only those labels (``group by``), at the start;
  again when evidence comes from a rank it does not list; when, every ``MEMBERS_CHECK_S`` (and
  in the round a new initiator-grade report arrives in, so that its incident lists them all), the
  number of rank_info series changed or a row appeared since the previous check (``unless ...
  offset``: a restarted rank's new pid); and at least every ``TABLE_MAX_AGE_S``.
- only when no rank left initiator-grade evidence (attribution then infers the initiator from
  the collateral evidence and from who stopped): the two ranks whose progress is oldest
  (``bottomk(2, ...)``, with their last step and their collateral evidence: attribution compares
  the first with the second) and the number of ranks that timed out in a collective; and when
  that number says attribution's vote for the ranks missing from the timeout applies (most
  timed out, at most a quarter did not), the timed-out ranks one by one (rank and time only),
  since the vote needs the whole set.

What is read is what attribution would have concluded from every series (the tests compare
the two, tests/sidecar/test_coordinator_scale.py); the evidence it lists is the earliest.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from detector.attribution.incident import TIMEOUT_HINTS
from detector.sidecar.model import External
from detector.sidecar.sources.prom import PolledSource, PromClient, value_of
from detector.stats.stall import RULE as STALL_RULE
from detector.support.numbers import small_int
from detector.types import Cause, Finding, RankInfo, Role, Severity

INFO = "rankdoctor_rank_info"
PROGRESS = "rankdoctor_rank_last_progress_timestamp_seconds"
STEP = "rankdoctor_rank_last_step"
ERROR = "rankdoctor_rank_first_error_timestamp_seconds"
COLLATERAL = "rankdoctor_rank_collateral_timestamp_seconds"
WAIT = "rankdoctor_rank_wait_state"

K_ERRORS = 16  # earliest initiator-grade reports kept per cause
K_COLLATERAL = 8  # earliest collateral reports kept per rule
SILENT_FIRST = 2  # ranks that went silent first (attribution compares the first two)
WAIT_STATES = 64  # wait states counted in the round's query (more: one more query for the total)
MAX_REPORTS_KEPT = 10_000  # initiator-grade reports remembered as seen
MEMBERS_CHECK_S = 10.0  # ask for rank_info rows new since the previous check this often
TABLE_MAX_AGE_S = 600.0  # re-read who is who at least this often
NEW_MARGIN_S = 60.0  # rows that appeared up to this long before the previous check count as new
WHO = ("node", "rank", "local_rank", "gpu", "pid")  # the labels of the rank table
TIMEOUT_RE = ".*(" + "|".join(TIMEOUT_HINTS) + ").*"  # attribution's collective-timeout rules


def _label_int(value: Any) -> int | None:
    """A rank, local rank or pid from a Prometheus label (log-derived, so bounded)."""
    return small_int(str(value)) if value is not None else None


def _time(value: float | None) -> datetime | None:
    return datetime.fromtimestamp(value, tz=UTC) if value else None


def _cause(text: str) -> Cause | None:
    try:
        return Cause(text)
    except ValueError:
        return None


def _float(text: Any, default: float) -> float:
    try:
        return float(str(text))
    except ValueError:
        return default


def _string(text: str) -> str:
    """A PromQL string literal (JSON's escapes are PromQL's; other characters as they are:
    a \\u escape of half a surrogate pair is not valid PromQL)."""
    return json.dumps(text, ensure_ascii=False)


def _labels(sample: dict[str, Any]) -> dict[str, Any]:
    labels = sample.get("metric", {})
    return labels if isinstance(labels, dict) else {}


@dataclass(frozen=True, slots=True)
class Round:
    """What one round asked (for the benchmark and tests): each query and the series it returned."""

    queries: tuple[tuple[str, int], ...]
    table_read: bool  # who-is-who was (re)read in full


class CoordinatorSource(PolledSource):
    name = "coordinator"

    def __init__(self, client_factory: Callable[[], PromClient], *, job: str, interval_s: float,
                 clock: Callable[[], float], query_time: Callable[[], float | None] | None = None) -> None:
        """``query_time``: evaluate every query of a round at this time (seconds) instead of
        at Prometheus's now (replayed or backfilled data, the benchmark); None: now."""
        super().__init__(client_factory, interval_s=interval_s, clock=clock)
        self._job = job
        self._query_time = query_time
        self.last: External | None = None
        self.last_round: Round | None = None
        self._table: dict[tuple[str | None, int], RankInfo] = {}  # (node, rank) -> who it is
        self._rows: set[tuple[str, ...]] = set()  # the table's rows (WHO label values)
        self._series = 0  # rankdoctor_rank_info series when the table was read
        self._table_at: float | None = None
        self._members_at: float | None = None
        self._unknown: frozenset[tuple[str | None, int]] = frozenset()  # ranks with evidence, not in the table
        self._initiators: set[tuple[str | None, int | None, str]] = set()  # initiator-grade reports seen
        self._infos: tuple[RankInfo, ...] = ()  # the table, by rank
        self._log: list[tuple[str, int]] = []
        self._params: dict[str, Any] | None = None

    # --- PromQL ---

    def _sel(self, extra: str = "") -> str:
        job = self._job.replace("\\", "\\\\").replace('"', '\\"')
        return f'{{training_job="{job}"{"," + extra if extra else ""}}}'

    def round_query(self) -> str:
        """Every round: the earliest initiator-grade evidence per cause, the earliest collateral
        evidence per rule, the ranks per wait state."""
        return (f"bottomk({K_ERRORS}, {ERROR}{self._sel()}) by (cause) "
                f"or bottomk({K_COLLATERAL}, {COLLATERAL}{self._sel()}) by (rule) "
                f'or label_replace(topk({WAIT_STATES}, count by (state) ({WAIT}{self._sel()})), '
                f'"rankdoctor_q", "wait", "", "")')

    def table_query(self) -> str:
        """Who is who, one row per distinct (node, rank, local_rank, gpu, pid), and the number
        of series they come from."""
        info = f"{INFO}{self._sel()}"
        return f'label_replace(count({info}), "rankdoctor_q", "ranks", "", "") or group by ({", ".join(WHO)}) ({info})'

    def members_query(self, since_s: float) -> str:
        """The number of rank_info series, and the who-is-who rows that appeared in the last
        ``since_s`` seconds (none in a steady job)."""
        info = f"{INFO}{self._sel()}"
        return (f'label_replace(count({info}), "rankdoctor_q", "ranks", "", "") '
                f"or group by ({', '.join(WHO)}) ({info} unless {info} offset {max(1, math.ceil(since_s))}s)")

    def inference_query(self, timed_out: bool) -> str:
        """The ranks whose last progress is the oldest; with ``timed_out``, the number of ranks
        that timed out in a collective."""
        query = f"bottomk({SILENT_FIRST}, {PROGRESS}{self._sel()})"
        if timed_out:
            query += (f" or label_replace(count(group by (rank) ({COLLATERAL}{self._sel(f'rule=~{_string(TIMEOUT_RE)}')})), "
                      f'"rankdoctor_q", "timed_out", "", "")')
        return query

    def ranks_query(self, ranks: Iterable[tuple[str | None, int]], names: Iterable[str]) -> str:
        """These metrics of these ranks only (label matchers: an index lookup, not a scan)."""
        ranks = list(ranks)
        nodes = "|".join(sorted({re.escape(n or "") for n, _ in ranks}))
        numbers = "|".join(sorted({str(r) for _, r in ranks}))
        return self._sel(f'__name__=~{_string("|".join(names))},node=~{_string(nodes)},rank=~{_string(numbers)}')

    def _ask(self, promql: str) -> list[dict[str, Any]]:
        if self._client is None:
            self._client = self._factory()
        result = (self._client.custom_query(promql, params=self._params) if self._params is not None
                  else self._client.custom_query(promql))
        self._log.append((promql, len(result)))
        return result

    # --- a round ---

    def query_once(self) -> None:
        at = self._query_time() if self._query_time is not None else None
        now = at if at is not None else self._clock()
        self._params = {"time": repr(float(at))} if at is not None else None
        self._log = []
        table_read = False
        if self._table_at is None or now - self._table_at > TABLE_MAX_AGE_S:
            table_read = self._read_table(now)
        findings: list[Finding] = []
        seen: set[tuple[str | None, int, str]] = set()  # (node, rank, rule) of collateral evidence
        waits: dict[str, int] = {}
        for sample in self._ask(self.round_query()):
            if _labels(sample).get("rankdoctor_q") == "wait":
                state = _labels(sample).get("state")
                if state:
                    waits[str(state)] = int(value_of(sample) or 0)
            else:
                found = self._finding(sample, seen)
                if found is not None:
                    findings.append(found)
        # a new initiator-grade report may make an incident, which names every other rank from who
        # is who: the members check is then made now, not at its next turn
        reports = {(f.node, f.rank, f.rule) for f in findings if f.role is Role.INITIATOR}
        new_report = bool(reports - self._initiators)
        self._initiators |= reports
        if len(self._initiators) > MAX_REPORTS_KEPT:  # (a long-lived coordinator: forget the oldest rounds')
            self._initiators = set(reports)
        if not table_read and self._table_changed(now, findings, now_due=new_report):
            table_read = self._read_table(now)
        self._unknown |= {(f.node, f.rank) for f in findings if f.rank is not None and (f.node, f.rank) not in self._table}
        ranks = self._table
        stalls = self._odd_waits(now, waits)
        if not any(f.role is Role.INITIATOR for f in findings) and (seen or stalls):
            # only then does attribution look at who went silent first and who timed out
            ranks = dict(self._table)
            first: dict[tuple[str | None, int], float | None] = {}
            timed_out = 0
            for sample in self._ask(self.inference_query(bool(seen))):
                labels = _labels(sample)
                rank = _label_int(labels.get("rank"))
                if labels.get("rankdoctor_q") == "timed_out":
                    timed_out = int(value_of(sample) or 0)
                elif rank is not None:
                    first[(labels.get("node") or None, rank)] = value_of(sample)
            findings.extend(self._silent_first(ranks, first, seen))
            if seen:
                findings.extend(self._timed_out(seen, timed_out))
        findings.extend(stalls)
        # earliest first (attribution keeps the first of equal evidence: the earliest, not
        # whichever Prometheus listed first), a rank's own text before a thin row
        findings.sort(key=lambda f: (f.time.timestamp() if f.time else math.inf, not f.text, f.rank or 0))
        infos = self._infos if ranks is self._table else tuple(sorted(ranks.values(), key=lambda r: r.rank))
        self.last = External(tuple(findings), infos)
        self.last_round = Round(tuple(self._log), table_read)
        if self._inbox is not None:
            self._inbox.put(self.last)

    def _finding(self, sample: dict[str, Any], seen: set[tuple[str | None, int, str]]) -> Finding | None:
        labels = _labels(sample)
        rank = _label_int(labels.get("rank"))
        if rank is None:
            return None
        node = labels.get("node") or None
        name = labels.get("__name__")
        if name == ERROR:
            cause = _cause(str(labels.get("cause", "")))
            if cause is None:
                return None
            return Finding(rule=str(labels.get("rule", "sidecar.error")), role=Role.INITIATOR, cause=cause,
                           severity=Severity.ERROR, text=str(labels.get("text", "")), time=_time(value_of(sample)),
                           rank=rank, node=node, confidence=_float(labels.get("confidence"), 0.8))
        if name == COLLATERAL:
            rule = str(labels.get("rule", "sidecar.collateral"))
            if (node, rank, rule) in seen:
                return None
            seen.add((node, rank, rule))
            return Finding(rule=rule, role=Role.COLLATERAL, cause=None, severity=Severity.ERROR,
                           text=str(labels.get("text", "")), time=_time(value_of(sample)), rank=rank, node=node)
        return None

    # --- who is who ---

    def _table_changed(self, now: float, findings: list[Finding], *, now_due: bool = False) -> bool:
        unknown = {(f.node, f.rank) for f in findings if f.rank is not None and (f.node, f.rank) not in self._table}
        if unknown - self._unknown:
            return True  # evidence from a rank it does not list (once: a rank may have no rank_info)
        if not now_due and self._members_at is not None and now - self._members_at < MEMBERS_CHECK_S:
            return False
        since = now - (self._members_at if self._members_at is not None else now) + NEW_MARGIN_S
        answer = self._ask(self.members_query(since))
        self._members_at = now
        series = 0  # no count at all: no rank_info series (the job ended)
        for sample in answer:
            labels = _labels(sample)
            if labels.get("rankdoctor_q") == "ranks":
                series = int(value_of(sample) or 0)
            elif tuple(str(labels.get(k, "")) for k in WHO) not in self._rows:
                return True
        return series != self._series

    def _read_table(self, now: float) -> bool:
        table: dict[tuple[str | None, int], RankInfo] = {}
        rows: set[tuple[str, ...]] = set()
        series = 0
        for sample in self._ask(self.table_query()):
            labels = _labels(sample)
            if labels.get("rankdoctor_q") == "ranks":
                series = int(value_of(sample) or 0)
                continue
            rows.add(tuple(str(labels.get(k, "")) for k in WHO))
            rank = _label_int(labels.get("rank"))
            if rank is None:
                continue
            node = labels.get("node") or None
            table[(node, rank)] = RankInfo(rank=rank, local_rank=_label_int(labels.get("local_rank") or None),
                                           node=node, pid=_label_int(labels.get("pid") or None),
                                           gpu=labels.get("gpu") or None)
        self._table, self._rows, self._series = table, rows, series
        self._table_at = self._members_at = now
        self._unknown = frozenset()
        self._infos = tuple(sorted(table.values(), key=lambda r: r.rank))
        return True

    # --- when no rank left initiator-grade evidence ---

    def _silent_first(self, ranks: dict[tuple[str | None, int], RankInfo],
                      first: dict[tuple[str | None, int], float | None],
                      seen: set[tuple[str | None, int, str]]) -> list[Finding]:
        """The last progress of the ranks that went silent first (into ``ranks``), their last
        step and their collateral evidence (attribution does not count a rank that timed out
        as silent)."""
        if not first:
            return []
        for key, value in first.items():
            info = ranks.get(key) or RankInfo(rank=key[1], node=key[0])
            ranks[key] = replace(info, last_time=_time(value))
        out = []
        for sample in self._ask(self.ranks_query(first, (COLLATERAL, STEP))):
            labels = _labels(sample)
            rank = _label_int(labels.get("rank"))
            key = (labels.get("node") or None, rank if rank is not None else -1)
            if key not in first:
                continue
            if labels.get("__name__") == STEP:
                value = value_of(sample)
                if value is not None:
                    ranks[key] = replace(ranks[key], last_step=int(value))
                continue
            found = self._finding(sample, seen)
            if found is not None:
                out.append(found)
        return out

    def _timed_out(self, seen: set[tuple[str | None, int, str]], timed_out: int) -> list[Finding]:
        """Every rank's collective timeout (``timed_out`` ranks have one) when attribution's vote
        for the ranks missing from it (most timed out, at most a quarter did not) would come
        out otherwise on the digest than on every rank: when it holds for the job, or when it
        would hold on the digest alone (a small job whose digest has most ranks but not all).
        Otherwise nothing. (Every rank a sidecar exports evidence for has a rank_info series,
        so the ranks that did not time out are the table's others.)"""
        known = {r.rank for r in self._table.values()}

        def votes(timed: int, silent: int) -> bool:  # attribution's condition (attribution/infer.py)
            return bool(timed) and 0 < silent <= max(1, len(known) // 4) and timed >= len(known) // 2

        digest = {rank for _, rank, rule in seen if any(h in rule for h in TIMEOUT_HINTS)}
        if len(digest) >= timed_out or not (votes(timed_out, len(known) - timed_out)
                                             or votes(len(digest), len(known - digest))):
            return []
        # their rank and time only (the rule: the digest's; attribution asks only whether it
        # is a timeout), the node from who is who
        timeouts = sorted({rule for _, _, rule in seen if any(h in rule for h in TIMEOUT_HINTS)})
        if not timeouts:
            return []
        have = {rank for _, rank, rule in seen if rule in timeouts}
        node_of = {rank: node for node, rank in self._table}
        out = []
        for sample in self._ask(f"min by (rank) ({COLLATERAL}{self._sel(f'rule=~{_string(TIMEOUT_RE)}')})"):
            rank = _label_int(_labels(sample).get("rank"))
            if rank is not None and rank not in have:
                have.add(rank)
                out.append(Finding(rule=timeouts[0], role=Role.COLLATERAL, cause=None, severity=Severity.ERROR,
                                   text="", time=_time(value_of(sample)), rank=rank, node=node_of.get(rank)))
        return out

    # --- where stalled ranks wait ---

    def _odd_waits(self, now: float, waits: dict[str, int]) -> list[Finding]:
        """Ranks that wait somewhere else than a clear majority (as ``procs.odd_ones``: at least
        three, the common state held by more than half, the others at most a quarter)."""
        if not waits:
            return []
        common, count = max(waits.items(), key=lambda kv: kv[1])
        total = sum(waits.values())
        if len(waits) >= WAIT_STATES:  # more states than counted: ask for the total
            total = int(next((value_of(s) or 0 for s in self._ask(f"count({WAIT}{self._sel()})")), 0))
        if total < 3 or count < 2 or count * 2 <= total or not 0 < total - count <= max(1, total // 4):
            return []
        odd: dict[int, tuple[str | None, str]] = {}
        for sample in self._ask(f"group by (node, rank, state) ({WAIT}{self._sel(f'state!={_string(common)}')})"):
            labels = _labels(sample)
            rank = _label_int(labels.get("rank"))
            if rank is not None and labels.get("state"):
                odd[rank] = (labels.get("node") or None, str(labels["state"]))
        when = _time(now)
        return [Finding(
            rule=STALL_RULE, role=Role.INITIATOR, cause=Cause.HANG, severity=Severity.ERROR,
            text=f"the job stopped making progress; rank {r} on {node} waits in {state} while the other "
                 f"ranks wait in {common}", time=when, rank=r, node=node,
            fields=(("first_ranks", str(r)), ("basis", "process_state")),
        ) for r, (node, state) in sorted(odd.items())]
