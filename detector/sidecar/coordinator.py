"""The coordinator (``rankdoctor watch --coordinator --prometheus URL``): every node's sidecar
exports its ranks' evidence on /metrics (see :mod:`detector.sidecar.metrics`); the Prometheus
that scrapes them answers PromQL for the whole job; this source turns the answers back into
findings and rank facts for the same engine, which attributes across nodes. Only the
coordinator hands incidents to remediation.

Across nodes it also compares where stalled ranks wait (``rankdoctor_rank_wait_state``): with
two ranks per node no node can tell which of its ranks is the odd one, the job can.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from detector.sidecar.model import External
from detector.sidecar.sources.procs import odd_ones
from detector.sidecar.sources.prom import PolledSource, PromClient, value_of
from detector.stats.stall import RULE as STALL_RULE
from detector.support.numbers import small_int
from detector.types import Cause, Finding, RankInfo, Role, Severity


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


class CoordinatorSource(PolledSource):
    name = "coordinator"

    def __init__(self, client_factory: Callable[[], PromClient], *, job: str, interval_s: float,
                 clock: Callable[[], float], query_time: Callable[[], float | None] | None = None) -> None:
        super().__init__(client_factory, interval_s=interval_s, clock=clock)
        self._job = job
        self._query_time = query_time
        self.last: External | None = None

    def _query(self, name: str) -> list[dict[str, Any]]:
        if self._client is None:
            self._client = self._factory()
        job = self._job.replace("\\", "\\\\").replace('"', '\\"')
        t = self._query_time() if self._query_time else None
        return self._client.custom_query(f'{name}{{training_job="{job}"}}', params={"time": t} if t else None)

    def query_once(self) -> None:
        ranks: dict[tuple[str | None, int], dict[str, Any]] = {}

        def row(labels: dict[str, Any]) -> dict[str, Any] | None:
            rank = _label_int(labels.get("rank"))
            if rank is None:
                return None
            return ranks.setdefault((labels.get("node") or None, rank), {})

        for sample in self._query("rankdoctor_rank_info"):
            labels = sample.get("metric", {})
            r = row(labels)
            if r is not None:
                r["info"] = labels
        for key, name in (("progress", "rankdoctor_rank_last_progress_timestamp_seconds"),
                          ("step", "rankdoctor_rank_last_step")):
            for sample in self._query(name):
                r = row(sample.get("metric", {}))
                if r is not None:
                    r[key] = value_of(sample)
        findings: list[Finding] = []
        for sample in self._query("rankdoctor_rank_first_error_timestamp_seconds"):
            labels = sample.get("metric", {})
            rank, cause = _label_int(labels.get("rank")), _cause(str(labels.get("cause", "")))
            if rank is None or cause is None:
                continue
            findings.append(Finding(
                rule=str(labels.get("rule", "sidecar.error")), role=Role.INITIATOR, cause=cause,
                severity=Severity.ERROR, text=str(labels.get("text", "")), time=_time(value_of(sample)),
                rank=rank, node=labels.get("node") or None, confidence=_float(labels.get("confidence"), 0.8),
            ))
        for sample in self._query("rankdoctor_rank_collateral_timestamp_seconds"):
            labels = sample.get("metric", {})
            rank = _label_int(labels.get("rank"))
            if rank is None:
                continue
            findings.append(Finding(
                rule=str(labels.get("rule", "sidecar.collateral")), role=Role.COLLATERAL, cause=None,
                severity=Severity.ERROR, text=str(labels.get("text", "")), time=_time(value_of(sample)),
                rank=rank, node=labels.get("node") or None,
            ))
        findings.extend(self._odd_waits())
        infos = []
        for (node, rank), r in sorted(ranks.items(), key=lambda kv: kv[0][1]):
            labels = r.get("info", {})
            infos.append(RankInfo(rank=rank, local_rank=_label_int(labels.get("local_rank", "")), node=node,
                                  pid=_label_int(labels.get("pid", "")), gpu=labels.get("gpu") or None,
                                  last_time=_time(r.get("progress")),
                                  last_step=int(r["step"]) if r.get("step") is not None else None))
        self.last = External(tuple(findings), tuple(infos))
        if self._inbox is not None:
            self._inbox.put(self.last)

    def _odd_waits(self) -> list[Finding]:
        waits: dict[int, str] = {}
        nodes: dict[int, str | None] = {}
        for sample in self._query("rankdoctor_rank_wait_state"):
            labels = sample.get("metric", {})
            rank = _label_int(labels.get("rank"))
            if rank is not None and labels.get("state"):
                waits[rank] = str(labels["state"])
                nodes[rank] = labels.get("node") or None
        odd = odd_ones(waits)
        if not odd:
            return []
        common = Counter(waits.values()).most_common(1)[0][0]
        now = _time(self._clock())
        return [Finding(
            rule=STALL_RULE, role=Role.INITIATOR, cause=Cause.HANG, severity=Severity.ERROR,
            text=f"the job stopped making progress; rank {r} on {nodes[r]} waits in {waits[r]} while the other "
                 f"ranks wait in {common}", time=now, rank=r, node=nodes[r],
            fields=(("first_ranks", str(r)), ("basis", "process_state")),
        ) for r in odd]
