"""NVML (``nvidia-ml-py``, imported as ``pynvml``): Xid events and a 1 Hz health poll per GPU.

- **Xid events**: a thread waits on an event set registered for ``nvmlEventTypeXidCriticalError``
  on every GPU that supports it. Each event becomes the kernel line the driver prints
  (``NVRM: Xid (PCI:dddd:bb:dd): N, ...``) and goes through the same rules as the kernel log,
  so an Xid means the same thing whichever way it arrives. NVML's event usually comes first.
- **Poll** (main loop, every ``poll_s``): volatile uncorrected ECC count, row-remap failure and
  pending flags, clock-event reasons (hardware slowdown, thermal, power brake), temperature and
  power (gauges), and which processes run on each GPU (to join GPUs to ranks by pid).
  ``NVMLError_NotSupported`` means "no data" for that query on that GPU, which is then no longer
  asked. PCI ids are normalised (``00000000:3B:00.0`` -> ``0000:3b:00``).
- No library, no driver or no GPU: one clear notice, and the source stays off.
- Health: the source reports itself down (a :class:`SourceStatus` in the inbox, hence
  ``rankdoctor_source_up{source="nvml"} 0`` and one warning) when every query of
  ``DOWN_AFTER_ROUNDS`` polls in a row failed (other than ``NotSupported``; it then polls with
  backoff), or when the event thread cannot create, register or wait on its event set (it
  retries with backoff); it reports up again as soon as a query or the event wait answers.
  A query that fails on one GPU while others answer is one notice per GPU and query, not down.

The ``nvml`` module is injected (tests pass a fake with the same functions).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from detector.sidecar.model import Chunk, GpuProcesses, Inbox, LiveFindings, SourceState, SourceStatus
from detector.sources.pci import normalize_pci
from detector.sources.runs import FileKind, LogFile
from detector.types import Cause, Finding, Role, Severity

XID_CRITICAL = 0x8  # nvmlEventTypeXidCriticalError
HW_REASONS = {0x8: "hw_slowdown", 0x40: "hw_thermal", 0x80: "hw_power_brake"}
WAIT_MS = 500
DOWN_AFTER_ROUNDS = 2  # polls in a row in which every query failed: the source is down
POLL_BACKOFF_MAX_S = 10.0  # how rarely a down source still polls (to see it answer again)
EVENT_RETRY_MIN_S = 1.0  # the event thread's first wait before setting up again (then doubling)
EVENT_RETRY_MAX_S = 30.0  # and its longest


class NvmlUnavailable(Exception):
    """NVML cannot be used here (no library, no driver, no GPU)."""


class _EventsDown(Exception):
    """The Xid event set cannot be created, registered or waited on."""


def _error(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _not_supported(nvml: Any, exc: BaseException) -> bool:
    cls = getattr(nvml, "NVMLError_NotSupported", None)
    return cls is not None and isinstance(exc, cls)


def xid_line(pci: str, xid: int, source: str = "NVML event") -> str:
    """The driver's kernel line for an Xid, as the kernel rules expect it."""
    return f"NVRM: Xid (PCI:{pci}): {xid}, pid='<unknown>', name=<unknown>, reported by {source}"


@dataclass
class GpuState:
    index: int
    handle: Any
    pci: str
    unsupported: set[str] = field(default_factory=set)
    dbe: int | None = None
    remap_failure: bool = False
    remap_pending: bool = False
    reasons: int = 0
    temperature: float | None = None
    power_w: float | None = None


def default_nvml() -> Any:
    try:
        import pynvml
    except ImportError as exc:
        raise NvmlUnavailable(f"nvidia-ml-py is not installed ({exc})") from None
    return pynvml


class NvmlSource:
    name = "nvml"

    def __init__(self, *, node: str | None, poll_s: float = 1.0,
                 loader: Callable[[], Any] = default_nvml, on_notice: Callable[[str], None] | None = None) -> None:
        self._node = node
        self._poll_s = poll_s
        self._loader = loader
        self._notice = on_notice or (lambda _msg: None)
        self.nvml: Any = None
        self.gpus: list[GpuState] = []
        self._inbox: Inbox | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._next_poll = 0.0
        self._line = 1
        self._lock = threading.Lock()
        self.file = LogFile(Path("nvml"), "nvml", FileKind.KERNEL, node=node)
        self.off_reason: str | None = None
        # health: why each part is down (None: working), and the state last reported
        self._down: dict[str, str | None] = {"poll": None, "events": None}
        self._reported = SourceState.UP
        self._failed_rounds = 0
        self._round_ok = 0
        self._round_errors: list[tuple[GpuState, str, BaseException]] = []
        self._noticed: set[tuple[str, str]] = set()
        self._event_delay = EVENT_RETRY_MIN_S

    def start(self, inbox: Inbox) -> None:
        self._inbox = inbox
        # a restart after close(): start afresh
        self._stop = threading.Event()
        self.gpus = []
        self.off_reason = None
        self._down = {"poll": None, "events": None}
        self._reported = SourceState.UP
        self._failed_rounds = 0
        self._next_poll = 0.0
        try:
            nvml = self._loader()
            nvml.nvmlInit()
            count = int(nvml.nvmlDeviceGetCount())
        except NvmlUnavailable as exc:
            self._off(str(exc))
            return
        except Exception as exc:  # NVMLError_LibraryNotFound, DriverNotLoaded, ...
            self._off(f"{type(exc).__name__}: {exc}")
            return
        if count == 0:
            self._off("no GPU")
            return
        self.nvml = nvml
        for i in range(count):
            handle = nvml.nvmlDeviceGetHandleByIndex(i)
            pci = normalize_pci(_text(nvml.nvmlDeviceGetPciInfo(handle).busId)) or f"index-{i}"
            self.gpus.append(GpuState(i, handle, pci))
        self._thread = threading.Thread(target=self._events, args=(self._stop,), name="rankdoctor-nvml-events",
                                        daemon=True)
        self._thread.start()

    def _off(self, reason: str) -> None:
        self.off_reason = reason
        self._notice(f"NVML is not available ({reason}); GPU events and polling are off")

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2 * WAIT_MS / 1000 + 1)
        if self.nvml is not None:
            with contextlib.suppress(Exception):
                self.nvml.nvmlShutdown()

    # --- Xid events (thread) ---

    def _events(self, stop: threading.Event) -> None:
        """Set up and wait on the event set; when NVML fails, report down and set up again
        with backoff (the kernel log still brings Xids meanwhile)."""
        self._event_delay = EVENT_RETRY_MIN_S
        while not stop.is_set():
            try:
                self._watch_events(stop)
                return  # stopped, or no GPU supports Xid events
            except Exception as exc:  # _EventsDown, or anything unexpected: never die silently
                detail = str(exc) if isinstance(exc, _EventsDown) else f"event thread: {_error(exc)}"
                self._health("events", f"Xid events: {detail}; retrying, Xids still come from the kernel log")
                stop.wait(self._event_delay)
                self._event_delay = min(EVENT_RETRY_MAX_S, self._event_delay * 2)

    def _watch_events(self, stop: threading.Event) -> None:
        nvml = self.nvml
        try:
            event_set = nvml.nvmlEventSetCreate()
        except Exception as exc:
            raise _EventsDown(f"nvmlEventSetCreate failed ({_error(exc)})") from None
        try:
            registered = 0
            errors: list[tuple[GpuState, BaseException]] = []
            for gpu in self.gpus:
                try:
                    supported = int(nvml.nvmlDeviceGetSupportedEventTypes(gpu.handle))
                    if supported & XID_CRITICAL:
                        nvml.nvmlDeviceRegisterEvents(gpu.handle, XID_CRITICAL, event_set)
                        registered += 1
                except Exception as exc:
                    if not _not_supported(nvml, exc):
                        errors.append((gpu, exc))
            if not registered and errors:
                first, error = errors[0]
                raise _EventsDown(f"cannot register Xid events on any GPU ({first.pci}: {_error(error)})")
            for failed, error in errors:  # the other GPUs' events work
                self._notice_once(failed, "events", f"NVML: cannot register Xid events on GPU {failed.pci}: {error}")
            if not registered:
                self._health("events", None)
                self._notice("NVML: no GPU supports Xid events; relying on the kernel log")
                return
            self._wait_events(event_set, stop)
        finally:
            with contextlib.suppress(Exception):
                nvml.nvmlEventSetFree(event_set)

    def _wait_events(self, event_set: Any, stop: threading.Event) -> None:
        nvml = self.nvml
        timeout_cls = getattr(nvml, "NVMLError_Timeout", None)
        while not stop.is_set():
            try:
                data = nvml.nvmlEventSetWait(event_set, WAIT_MS)
            except Exception as exc:
                if timeout_cls is None or not isinstance(exc, timeout_cls):
                    raise _EventsDown(f"nvmlEventSetWait failed ({_error(exc)})") from None
                data = None
            self._health("events", None)  # the wait answered
            self._event_delay = EVENT_RETRY_MIN_S
            if data is not None:
                self._on_event(data)

    def _on_event(self, data: Any) -> None:
        if int(getattr(data, "eventType", XID_CRITICAL)) != XID_CRITICAL or self._inbox is None:
            return
        try:
            pci = normalize_pci(_text(self.nvml.nvmlDeviceGetPciInfo(data.device).busId)) or "unknown"
        except Exception:
            pci = "unknown"
        line = xid_line(pci, int(data.eventData)).encode()
        with self._lock:
            base = self._line
            self._line += 1
        self._inbox.put(Chunk(self.file, line + b"\n", base, time.time()))

    # --- health ---

    def _health(self, part: str, down: str | None) -> None:
        """Record why ``part`` (poll, events) is down, or None; report the source's state when
        it changes (the runner warns once per change and sets ``rankdoctor_source_up``)."""
        with self._lock:
            self._down[part] = down
            reasons = [r for r in self._down.values() if r]
            state = SourceState.DOWN if reasons else SourceState.UP
            if state is self._reported:
                return
            self._reported = state
            if self._inbox is not None:
                self._inbox.put(SourceStatus(self.name, state, "; ".join(reasons)))

    def _notice_once(self, gpu: GpuState, what: str, message: str) -> None:
        key = (gpu.pci, what)
        with self._lock:
            if key in self._noticed:
                return
            self._noticed.add(key)
        self._notice(message)

    # --- poll (main loop) ---

    def poll(self, now: float) -> None:
        if self.nvml is None or now < self._next_poll or self._inbox is None:
            return
        self._next_poll = now + self._poll_s
        self._round_ok = 0
        self._round_errors = []
        findings: list[Finding] = []
        by_gpu: list[tuple[str, tuple[int, ...]]] = []
        for gpu in self.gpus:
            findings.extend(self._poll_gpu(gpu, now))
            pids = self._query(gpu, "processes", lambda h: tuple(
                int(p.pid) for p in self.nvml.nvmlDeviceGetComputeRunningProcesses(h)))
            if pids:
                by_gpu.append((gpu.pci, pids))
        if findings:
            self._inbox.put(LiveFindings(self.name, tuple(findings)))
        if by_gpu:
            self._inbox.put(GpuProcesses(tuple(by_gpu)))
        self._judge_round(now)

    def _judge_round(self, now: float) -> None:
        """Every query failed: down after DOWN_AFTER_ROUNDS polls (then poll with backoff);
        one answer: up. Some failed while others answered: one notice per GPU and query."""
        errors = self._round_errors
        if errors and not self._round_ok:
            self._failed_rounds += 1
            if self._failed_rounds >= DOWN_AFTER_ROUNDS:
                gpu, what, exc = errors[0]
                self._health("poll", f"every NVML query failed in {DOWN_AFTER_ROUNDS} polls in a row on "
                                     f"{len(self.gpus)} GPU(s) (e.g. {what} on GPU {gpu.pci}: {_error(exc)}); "
                                     "no GPU health data until NVML answers again")
                backoff = self._poll_s * 2 ** min(self._failed_rounds - DOWN_AFTER_ROUNDS + 1, 10)
                self._next_poll = now + max(self._poll_s, min(POLL_BACKOFF_MAX_S, backoff))
            return
        if self._round_ok:
            self._failed_rounds = 0
            self._health("poll", None)
        for gpu in self.gpus:  # partial failures: each GPU's and query's first one is a notice
            failing = [(what, exc) for g, what, exc in errors if g is gpu]
            with self._lock:
                new = [(what, exc) for what, exc in failing if (gpu.pci, what) not in self._noticed]
                self._noticed.update((gpu.pci, what) for what, _exc in new)
            if new:
                self._notice(f"NVML: on GPU {gpu.pci}, {', '.join(f'{w} ({_error(e)})' for w, e in new)} "
                             "failed while other queries answer")

    def _query(self, gpu: GpuState, what: str, call: Callable[[Any], Any]) -> Any:
        if what in gpu.unsupported:
            return None
        try:
            value = call(gpu.handle)
        except Exception as exc:
            if _not_supported(self.nvml, exc):
                gpu.unsupported.add(what)  # NotSupported: no data, do not ask again
                self._round_ok += 1  # NVML answered
            else:
                self._round_errors.append((gpu, what, exc))
            return None
        self._round_ok += 1
        return value

    def _poll_gpu(self, gpu: GpuState, now: float) -> list[Finding]:
        nvml = self.nvml
        out: list[Finding] = []
        dbe = self._query(gpu, "ecc", lambda h: int(nvml.nvmlDeviceGetTotalEccErrors(h, 1, 0)))
        if dbe is not None:
            if gpu.dbe is not None and dbe > gpu.dbe:
                out.append(self._finding(gpu, now, "nvml.ecc_uncorrected", Role.INITIATOR, Cause.ECC_MEMORY,
                                         f"GPU {gpu.pci}: volatile uncorrected ECC errors rose from {gpu.dbe} to {dbe}",
                                         (("dbe", str(dbe)),), 0.9))
            gpu.dbe = dbe
        remap = self._query(gpu, "remap", lambda h: tuple(nvml.nvmlDeviceGetRemappedRows(h)))
        if remap is not None and len(remap) >= 4:
            failure, pending = bool(remap[3]), bool(remap[2])
            if failure and not gpu.remap_failure:
                out.append(self._finding(gpu, now, "nvml.row_remap_failure", Role.INITIATOR, Cause.ECC_MEMORY,
                                         f"GPU {gpu.pci}: a row remapping failed (uncorrectable rows {remap[1]})",
                                         (("uncorrectable_rows", str(remap[1])),), 0.9))
            if pending and not gpu.remap_pending:
                out.append(self._finding(gpu, now, "nvml.row_remap_pending", Role.CONTEXT, Cause.ECC_MEMORY,
                                         f"GPU {gpu.pci}: a row remap is pending a GPU reset", (), 1.0))
            gpu.remap_failure, gpu.remap_pending = failure, pending
        reasons = self._query(gpu, "clocks", lambda h: int(nvml.nvmlDeviceGetCurrentClocksEventReasons(h)))
        if reasons is not None:
            new = [name for bit, name in HW_REASONS.items() if reasons & bit and not gpu.reasons & bit]
            if new:
                out.append(self._finding(gpu, now, "nvml.clock_event", Role.CONTEXT, None,
                                         f"GPU {gpu.pci}: clocks reduced ({', '.join(new)})",
                                         (("clock_event", ",".join(new)),), 1.0))
            gpu.reasons = reasons
        temp = self._query(gpu, "temperature", lambda h: float(nvml.nvmlDeviceGetTemperature(h, 0)))
        gpu.temperature = temp if temp is not None else gpu.temperature
        power = self._query(gpu, "power", lambda h: float(nvml.nvmlDeviceGetPowerUsage(h)) / 1000.0)
        gpu.power_w = power if power is not None else gpu.power_w
        return out

    def _finding(self, gpu: GpuState, now: float, rule: str, role: Role, cause: Cause | None, text: str,
                 fields: tuple[tuple[str, str], ...], confidence: float) -> Finding:
        return Finding(rule=rule, role=role, cause=cause, severity=Severity.ERROR if role is Role.INITIATOR else Severity.WARNING,
                       text=text, time=datetime.fromtimestamp(now, tz=UTC), node=self._node, gpu=gpu.pci,
                       fields=(("pci", gpu.pci), *fields), confidence=confidence)
