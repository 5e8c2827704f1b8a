"""Prometheus, queried through ``prometheus-api-client``: the DCGM exporter's series for this job's
nodes (:class:`DcgmSource`), and the shared machinery of a polling thread that backs off when
the server is unreachable (a down status and a warning, never a stop).

DCGM series used (legacy and DCGM 4.6 names, ``Hostname`` and ``hostname`` labels):

- ``DCGM_FI_DEV_XID_ERRORS`` / ``DCGM_FI_DEV_XID_ERROR``: the last Xid per GPU. A new non-zero
  value becomes the driver's kernel line and goes through the kernel rules (node from the host
  label, GPU from ``pci_bus_id``).
- ``DCGM_FI_DEV_ECC_DBE_VOL_TOTAL`` rising, ``DCGM_FI_DEV_ROW_REMAP_FAILURE`` (``_FAILED``) set:
  initiator-grade ``ecc_memory`` evidence on that GPU.

The first answer is the baseline: values already there when the sidecar starts are not news;
a series that appears later with an Xid is.
DCGM's blank sentinels (>= 0x7ffffffffffffff0) are dropped.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from detector.sidecar.model import Chunk, Inbox, LiveFindings, SourceState, SourceStatus
from detector.sidecar.sources.nvml import xid_line
from detector.sources.pci import normalize_pci
from detector.sources.runs import FileKind, LogFile
from detector.types import Cause, Finding, Role, Severity

BLANK = 9223372036854775792.0
MAX_BACKOFF_S = 60.0


class PromClient(Protocol):
    def custom_query(self, query: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]: ...


def default_client(url: str, timeout_s: float) -> PromClient:
    """prometheus-api-client without its retries (the poller backs off itself)."""
    from prometheus_api_client import PrometheusConnect
    from urllib3.util.retry import Retry

    client: PromClient = PrometheusConnect(url=url, retry=Retry(total=0), timeout=timeout_s)
    return client


def value_of(sample: dict[str, Any]) -> float | None:
    """``{'metric': {...}, 'value': [ts, '79']}`` -> 79.0; None for blanks and garbage."""
    try:
        value = float(sample["value"][1])
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    if value != value or value >= BLANK:
        return None
    return value


def host_of(labels: dict[str, str]) -> str | None:
    return labels.get("Hostname") or labels.get("hostname") or None


def selector(names: Sequence[str], extra: str = "") -> list[str]:
    """Label selectors for these hosts, one per spelling of the host label."""
    if not names:
        return [f"{{{extra}}}" if extra else ""]
    alt = "|".join(n.replace(".", "\\\\.") for n in names)
    return [f'{{{label}=~"{alt}"{"," + extra if extra else ""}}}' for label in ("Hostname", "hostname")]


class Poller:
    """Runs ``work()`` every ``interval_s`` on a thread; on failure backs off (doubling, up to
    a minute), reports the source down with the reason, and keeps trying."""

    def __init__(self, name: str, work: Callable[[], None], interval_s: float, inbox: Inbox) -> None:
        self.name = name
        self._work = work
        self._interval = interval_s
        self._inbox = inbox
        self._stop = threading.Event()
        self._state: SourceState | None = None
        self.failures = 0
        self._thread = threading.Thread(target=self._loop, name=f"rankdoctor-{name}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _set(self, state: SourceState, detail: str) -> None:
        if state is not self._state:
            self._state = state
            self._inbox.put(SourceStatus(self.name, state, detail))

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self._work()
            except Exception as exc:
                self.failures += 1
                delay = min(MAX_BACKOFF_S, self._interval * (2 ** min(self.failures, 10)))
                self._set(SourceState.DOWN, f"{_describe(exc)} (retrying in {delay:.0f} s)")
                self._stop.wait(delay)
                continue
            self.failures = 0
            self._set(SourceState.UP, "")
            self._stop.wait(self._interval)


class MalformedAnswer(ValueError):
    """Prometheus (or what answered in its place) gave a result of another shape than its API's."""


def _describe(exc: Exception) -> str:
    """A failed query in words: not JSON (a login page, a proxy's error page, a wrong URL), a
    malformed answer, or the error itself, cut short (a URL-encoded query can be kilobytes)."""
    if isinstance(exc, MalformedAnswer):
        return f"a malformed answer: {exc}"
    if type(exc).__name__ == "JSONDecodeError":
        return "the answer is not the Prometheus API's JSON (a login page, a proxy's error page, a wrong URL?)"
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= 240 else text[:240] + " ..."


_XID = ("DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DEV_XID_ERROR")
_DBE = ("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL",)
_REMAP_FAILED = ("DCGM_FI_DEV_ROW_REMAP_FAILURE", "DCGM_FI_DEV_ROW_REMAP_FAILED")


class PolledSource:
    """Shared by the sources that query Prometheus on a Poller thread: the client (made on
    first use), the interval, the clock, and the start/poll/close of the Source protocol.
    Subclasses set ``name`` and implement ``query_once``."""

    name = "polled"

    def __init__(self, client_factory: Callable[[], PromClient], *, interval_s: float,
                 clock: Callable[[], float]) -> None:
        self._factory = client_factory
        self._client: PromClient | None = None
        self._interval = interval_s
        self._clock = clock
        self._inbox: Inbox | None = None
        self._poller: Poller | None = None

    def start(self, inbox: Inbox) -> None:
        self._inbox = inbox
        self._poller = Poller(self.name, self.query_once, self._interval, inbox)
        self._poller.start()

    def poll(self, now: float) -> None:
        return None

    def close(self) -> None:
        if self._poller is not None:
            self._poller.stop()

    def query_once(self) -> None:
        raise NotImplementedError


class DcgmSource(PolledSource):
    name = "prometheus"

    def __init__(self, client_factory: Callable[[], PromClient], *, nodes: Sequence[str], interval_s: float,
                 clock: Callable[[], float]) -> None:
        super().__init__(client_factory, interval_s=interval_s, clock=clock)
        self._nodes = list(nodes)
        self._last: dict[tuple[str, str | None, str], float] = {}
        self._baseline = True
        self._line = 1

    def query(self) -> str:
        """One PromQL query for every DCGM series used, on this job's hosts (either label spelling)."""
        names = "|".join((*_XID, *_DBE, *_REMAP_FAILED))
        parts = [f'{{__name__=~"{names}"{"," + sel[1:-1] if sel else ""}}}' for sel in selector(self._nodes)]
        return " or ".join(parts)

    def query_once(self) -> None:
        """One round (the poller's work; tests call it directly): one query, however many hosts."""
        if self._client is None:
            self._client = self._factory()
        now = self._clock()
        lines: dict[str | None, list[bytes]] = {}
        findings: list[Finding] = []
        answer = self._client.custom_query(self.query())
        if not isinstance(answer, list):
            raise MalformedAnswer(f"the query's result is {type(answer).__name__}, not a list of series")
        for sample in answer:
            if not isinstance(sample, dict):
                continue  # (a malformed series: not one the exporter writes)
            labels = sample.get("metric", {})
            value = value_of(sample)
            if value is None or not isinstance(labels, dict):
                continue
            name = str(labels.get("__name__", ""))
            family = "xid" if name in _XID else "dbe" if name in _DBE else "remap" if name in _REMAP_FAILED else None
            if family is None:
                continue
            host = host_of(labels)
            pci = normalize_pci(str(labels.get("pci_bus_id", ""))) or f"gpu{labels.get('gpu', '?')}"
            key = (family, host, pci)
            before = self._last.get(key)
            self._last[key] = value
            if self._baseline:
                continue
            if family == "xid" and value > 0 and value != (before or 0.0):
                lines.setdefault(host, []).append(xid_line(pci, int(value), "DCGM exporter").encode())
            elif family == "dbe" and before is not None and value > before:
                findings.append(self._finding(now, host, pci, f"GPU {pci} on {host}: uncorrected ECC errors rose "
                                                              f"from {before:.0f} to {value:.0f} (DCGM)"))
            elif family == "remap" and value > 0 and not before:
                findings.append(self._finding(now, host, pci, f"GPU {pci} on {host}: a row remapping failed (DCGM)"))
        self._baseline = False
        if self._inbox is None:
            return
        for host, items in lines.items():
            f = LogFile(Path(f"dcgm-{host}"), f"prometheus:DCGM {host}", FileKind.KERNEL, node=host)
            self._inbox.put(Chunk(f, b"\n".join(items) + b"\n", self._line, now))
            self._line += len(items)
        if findings:
            self._inbox.put(LiveFindings(self.name, tuple(findings)))

    def _finding(self, now: float, host: str | None, pci: str, text: str) -> Finding:
        return Finding(rule="dcgm.ecc_uncorrectable", role=Role.INITIATOR, cause=Cause.ECC_MEMORY,
                       severity=Severity.ERROR, text=text, time=datetime.fromtimestamp(now, tz=UTC),
                       node=host, gpu=pci, fields=(("pci", pci),), confidence=0.9)
