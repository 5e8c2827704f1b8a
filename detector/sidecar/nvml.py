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

from detector.sidecar.model import Chunk, GpuProcesses, Inbox, LiveFindings
from detector.sources.pci import normalize_pci
from detector.sources.runs import FileKind, LogFile
from detector.types import Cause, Finding, Role, Severity

XID_CRITICAL = 0x8  # nvmlEventTypeXidCriticalError
HW_REASONS = {0x8: "hw_slowdown", 0x40: "hw_thermal", 0x80: "hw_power_brake"}
WAIT_MS = 500


class NvmlUnavailable(Exception):
    """NVML cannot be used here (no library, no driver, no GPU)."""


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

    def start(self, inbox: Inbox) -> None:
        self._inbox = inbox
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
        self._thread = threading.Thread(target=self._events, name="rankdoctor-nvml-events", daemon=True)
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

    def _events(self) -> None:
        nvml = self.nvml
        event_set = nvml.nvmlEventSetCreate()
        registered = 0
        for gpu in self.gpus:
            try:
                supported = int(nvml.nvmlDeviceGetSupportedEventTypes(gpu.handle))
                if supported & XID_CRITICAL:
                    nvml.nvmlDeviceRegisterEvents(gpu.handle, XID_CRITICAL, event_set)
                    registered += 1
            except Exception as exc:
                if not _not_supported(nvml, exc):
                    self._notice(f"NVML: cannot register Xid events on GPU {gpu.pci}: {exc}")
        if not registered:
            self._notice("NVML: no GPU supports Xid events; relying on the kernel log")
            return
        timeout_cls = getattr(nvml, "NVMLError_Timeout", None)
        try:
            while not self._stop.is_set():
                try:
                    data = nvml.nvmlEventSetWait(event_set, WAIT_MS)
                except Exception as exc:
                    if timeout_cls is not None and isinstance(exc, timeout_cls):
                        continue
                    self._notice(f"NVML event wait failed: {exc}")
                    self._stop.wait(1.0)
                    continue
                self._on_event(data)
        finally:
            with contextlib.suppress(Exception):
                nvml.nvmlEventSetFree(event_set)

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

    # --- poll (main loop) ---

    def poll(self, now: float) -> None:
        if self.nvml is None or now < self._next_poll or self._inbox is None:
            return
        self._next_poll = now + self._poll_s
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

    def _query(self, gpu: GpuState, what: str, call: Callable[[Any], Any]) -> Any:
        if what in gpu.unsupported:
            return None
        try:
            return call(gpu.handle)
        except Exception as exc:
            if _not_supported(self.nvml, exc):
                gpu.unsupported.add(what)  # NotSupported: no data, do not ask again
            return None

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
