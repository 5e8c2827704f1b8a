"""The sidecar's ``/metrics`` endpoint (prometheus_client, an explicit CollectorRegistry — no
global registry): its health, and each rank's evidence for the coordinator.

Per-rank evidence series (labels ``training_job`` — not ``job``, which Prometheus sets to the scrape job —, ``node``, ``rank``; the coordinator reads them back
through Prometheus, see :mod:`detector.sidecar.coordinator`):

| series | value | extra labels |
|---|---|---|
| ``rankdoctor_rank_info`` | 1 | ``local_rank``, ``gpu``, ``pid`` |
| ``rankdoctor_rank_last_progress_timestamp_seconds`` | time of the last step line | |
| ``rankdoctor_rank_last_step`` | that step | |
| ``rankdoctor_rank_first_error_timestamp_seconds`` | time of the first initiator-grade evidence | ``cause``, ``rule``, ``confidence``, ``text`` |
| ``rankdoctor_rank_collateral_timestamp_seconds`` | time of the first collateral evidence | ``rule``, ``text`` |
| ``rankdoctor_rank_wait_state`` | 1, while the job is stalled | ``state`` (where its main thread waits) |

Health: ``rankdoctor_source_up{source}`` (1 up, 0 down or off), ``rankdoctor_incidents_total{cause}``,
``rankdoctor_lines_read``, ``rankdoctor_evidence_dropped_total`` (matched lines past the evidence cap),
``rankdoctor_gpu_temperature_celsius`` / ``rankdoctor_gpu_power_watts``.

Remediation (labels ``training_job``, ``node``: this sidecar's; the audit log has each record):

| series | value | extra labels |
|---|---|---|
| ``rankdoctor_remediation_actions_total`` | hook calls (decisions and pages) | ``hook``, ``action`` (checkpoint, drain, resubmit, notify), ``outcome`` (the audit log's status: ok, failed, timeout, dry_run, skipped) |
| ``rankdoctor_remediation_decisions_total`` | incidents handled | ``outcome`` (acted, notified, failed, duplicate, dry_run) |
| ``rankdoctor_remediation_verifications_total`` | resumption checks | ``outcome`` (verified, failed, skipped) |
| ``rankdoctor_remediation_errors_total`` | handling that raised (an ``error`` record) | ``stage`` (decision, verification) |
| ``rankdoctor_remediation_last_failure_timestamp_seconds`` | time of the last failed or timed-out hook call, failed verification or error | |
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from prometheus_client import CollectorRegistry, Counter, Gauge
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from detector.sidecar.engine import RankEvidence
from detector.sidecar.sources.nvml import GpuState

if TYPE_CHECKING:
    from detector.remediation.model import Decision, HookOutcome, Verification

TEXT_LIMIT = 200
FAILED_HOOK = ("failed", "timeout")  # the audit log's statuses of a hook call that did not work


def _ts(value: float | None) -> float:
    return float(value) if value is not None else 0.0


class EvidenceCollector(Collector):
    def __init__(self, job: str, evidence: Callable[[], Sequence[RankEvidence]],
                 lines: Callable[[], int], gpus: Callable[[], Sequence[GpuState]],
                 dropped: Callable[[], int] = lambda: 0) -> None:
        self._job = job
        self._evidence = evidence
        self._lines = lines
        self._gpus = gpus
        self._dropped = dropped

    def collect(self) -> Iterator[Any]:
        base = ["training_job", "node", "rank"]
        info = GaugeMetricFamily("rankdoctor_rank_info", "A rank this sidecar follows", labels=[*base, "local_rank", "gpu", "pid"])
        progress = GaugeMetricFamily("rankdoctor_rank_last_progress_timestamp_seconds",
                                     "Time of the rank's last step line", labels=base)
        step = GaugeMetricFamily("rankdoctor_rank_last_step", "The rank's last step", labels=base)
        error = GaugeMetricFamily("rankdoctor_rank_first_error_timestamp_seconds",
                                  "Time of the rank's first initiator-grade evidence",
                                  labels=[*base, "cause", "rule", "confidence", "text"])
        collateral = GaugeMetricFamily("rankdoctor_rank_collateral_timestamp_seconds",
                                       "Time of the rank's first collateral evidence", labels=[*base, "rule", "text"])
        wait = GaugeMetricFamily("rankdoctor_rank_wait_state", "Where a stalled rank's main thread waits",
                                 labels=[*base, "state"])
        for ev in self._evidence():
            labels = [self._job, ev.node or "", str(ev.rank)]
            info.add_metric([*labels, "" if ev.local_rank is None else str(ev.local_rank), ev.gpu or "",
                             "" if ev.pid is None else str(ev.pid)], 1.0)
            if ev.last_progress is not None:
                progress.add_metric(labels, ev.last_progress)
            if ev.last_step is not None:
                step.add_metric(labels, float(ev.last_step))
            f = ev.first_error
            if f is not None and f.time is not None and f.cause is not None:
                error.add_metric([*labels, f.cause.value, f.rule, f"{f.confidence:.2f}", f.text[:TEXT_LIMIT]],
                                 f.time.timestamp())
            c = ev.first_collateral
            if c is not None and c.time is not None:
                collateral.add_metric([*labels, c.rule, c.text[:TEXT_LIMIT]], c.time.timestamp())
            if ev.wait_state:
                wait.add_metric([*labels, ev.wait_state], 1.0)
        yield from (info, progress, step, error, collateral, wait)
        lines = GaugeMetricFamily("rankdoctor_lines_read", "Lines read from followed files", labels=["training_job"])
        lines.add_metric([self._job], float(self._lines()))
        yield lines
        dropped = CounterMetricFamily("rankdoctor_evidence_dropped", "Matched lines not kept as evidence "
                                      "(repeats past the cap in a burst; each rank's first hits are kept)",
                                      labels=["training_job"])
        dropped.add_metric([self._job], float(self._dropped()))
        yield dropped
        temp = GaugeMetricFamily("rankdoctor_gpu_temperature_celsius", "GPU temperature (NVML)", labels=["training_job", "gpu"])
        power = GaugeMetricFamily("rankdoctor_gpu_power_watts", "GPU board power (NVML)", labels=["training_job", "gpu"])
        for gpu in self._gpus():
            if gpu.temperature is not None:
                temp.add_metric([self._job, gpu.pci], gpu.temperature)
            if gpu.power_w is not None:
                power.add_metric([self._job, gpu.pci], gpu.power_w)
        yield temp
        yield power


class BreakerCollector(Collector):
    def __init__(self, job: str, node: str, is_open: Callable[[], bool | None]) -> None:
        self._labels = [job, node]
        self.is_open = is_open

    def collect(self) -> Iterator[GaugeMetricFamily]:
        try:
            state = self.is_open()
        except Exception:  # a locked or corrupt state database: no sample, never a failed scrape
            state = None
        gauge = GaugeMetricFamily("rankdoctor_remediation_breaker_open",
                                  "1 while the remediation breaker is open (drains stop until a person resets it)",
                                  labels=["training_job", "node"])
        if state is not None:
            gauge.add_metric(self._labels, 1.0 if state else 0.0)
        yield gauge


class SidecarMetrics:
    def __init__(self, job: str, node: str, *, clock: Callable[[], float] = time.time) -> None:
        self.registry = CollectorRegistry(auto_describe=False)
        self.job = job
        self.node = node
        self._clock = clock
        self.source_up = Gauge("rankdoctor_source_up", "1 when a source works, 0 when down or off",
                               ["training_job", "node", "source"], registry=self.registry)
        self.incidents = Counter("rankdoctor_incidents", "Incidents reported", ["training_job", "node", "cause"],
                                 registry=self.registry)
        base = ["training_job", "node"]
        self.remediation_actions = Counter(
            "rankdoctor_remediation_actions", "Remediation hook calls, by how each ended (the audit log's status)",
            [*base, "hook", "action", "outcome"], registry=self.registry)
        self.remediation_decisions = Counter(
            "rankdoctor_remediation_decisions", "Incidents handled by remediation, by outcome",
            [*base, "outcome"], registry=self.registry)
        self.remediation_verifications = Counter(
            "rankdoctor_remediation_verifications", "Checks that a resubmitted job resumed, by outcome",
            [*base, "outcome"], registry=self.registry)
        self.remediation_errors = Counter(
            "rankdoctor_remediation_errors", "Remediation steps that raised (an 'error' record in the audit log)",
            [*base, "stage"], registry=self.registry)
        self.remediation_last_failure = Gauge(
            "rankdoctor_remediation_last_failure_timestamp_seconds",
            "Time of the last failed or timed-out hook call, failed verification or remediation error",
            base, registry=self.registry)
        self._breaker = BreakerCollector(job, node, lambda: None)  # no sample until remediation is on
        self.registry.register(self._breaker)
        self._server: Any = None
        self._thread: Any = None

    def add_evidence(self, evidence: Callable[[], Sequence[RankEvidence]], lines: Callable[[], int],
                     gpus: Callable[[], Sequence[GpuState]], dropped: Callable[[], int] = lambda: 0) -> None:
        self.registry.register(EvidenceCollector(self.job, evidence, lines, gpus, dropped))

    def add_breaker(self, is_open: Callable[[], bool | None]) -> None:
        """Export ``rankdoctor_remediation_breaker_open`` (1 open, 0 closed), read from the
        remediation state on each scrape, so that a reset by ``rankdoctor remediate
        --reset-breaker`` in another process shows at once; absent when it cannot be read."""
        self._breaker.is_open = is_open

    def set_source(self, source: str, up: bool) -> None:
        self.source_up.labels(self.job, self.node, source).set(1.0 if up else 0.0)

    def count_incident(self, cause: str) -> None:
        self.incidents.labels(self.job, self.node, cause).inc()

    # --- remediation (called from its worker's threads; prometheus_client is thread-safe) ---

    def remediation_hook(self, outcome: HookOutcome) -> None:
        """One hook call ended (as it ends: a hung hook's timeout shows before the decision)."""
        status = str(outcome.result.status)
        self.remediation_actions.labels(self.job, self.node, outcome.hook, str(outcome.action), status).inc()
        if status in FAILED_HOOK:
            self._remediation_failed()

    def remediation_result(self, decision: Decision, verification: Verification | None) -> None:
        """The worker's result callback: a decision (``verification`` None), or its verification."""
        if verification is None:
            self.remediation_decisions.labels(self.job, self.node, str(decision.outcome)).inc()
            return
        self.remediation_verifications.labels(self.job, self.node, str(verification.status)).inc()
        if str(verification.status) == "failed":
            self._remediation_failed()

    def remediation_error(self, stage: str) -> None:
        self.remediation_errors.labels(self.job, self.node, stage).inc()
        self._remediation_failed()

    def _remediation_failed(self) -> None:
        self.remediation_last_failure.labels(self.job, self.node).set(self._clock())

    def serve(self, host: str, port: int) -> tuple[str, int]:
        """Start the HTTP endpoint; returns the bound address (port 0 picks a free one)."""
        from prometheus_client import start_http_server

        self._server, self._thread = start_http_server(port, addr=host, registry=self.registry)
        bound = self._server.server_address
        return str(bound[0]), int(bound[1])

    def close(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
