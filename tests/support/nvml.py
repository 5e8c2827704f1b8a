"""Fake ``pynvml`` modules for the sidecar's NVML source (no tests here): ``FakeNvml`` answers
for two GPUs and delivers queued Xid events; ``RaisingNvml`` raises on every query and event
call, like a driver wedged by a failing GPU."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class NVMLError(Exception):
    pass


class NVMLError_NotSupported(NVMLError):
    pass


class NVMLError_Timeout(NVMLError):
    pass


@dataclass
class PciInfo:
    busId: bytes


@dataclass
class EventData:
    device: int
    eventType: int
    eventData: int


class FakeNvml:
    """The pynvml functions the sidecar calls, for two GPUs."""

    NVMLError_NotSupported = NVMLError_NotSupported
    NVMLError_Timeout = NVMLError_Timeout

    def __init__(self) -> None:
        import queue

        self.events: queue.Queue[EventData] = queue.Queue()
        self.dbe = [0, 0]

    def nvmlInit(self) -> None: ...
    def nvmlShutdown(self) -> None: ...
    def nvmlDeviceGetCount(self) -> int:
        return 2

    def nvmlDeviceGetHandleByIndex(self, i: int) -> int:
        return i

    def nvmlDeviceGetPciInfo(self, h: int) -> PciInfo:
        return PciInfo([b"00000000:3B:00.0", b"00000000:5E:00.0"][h])

    def nvmlEventSetCreate(self) -> str:
        return "set"

    def nvmlDeviceGetSupportedEventTypes(self, h: int) -> int:
        return 0x8

    def nvmlDeviceRegisterEvents(self, h: int, mask: int, s: str) -> None: ...
    def nvmlEventSetFree(self, s: str) -> None: ...
    def nvmlEventSetWait(self, s: str, ms: int) -> EventData:
        import queue

        try:
            return self.events.get(timeout=ms / 1000)
        except queue.Empty:
            raise NVMLError_Timeout() from None

    def nvmlDeviceGetTotalEccErrors(self, h: int, kind: int, counter: int) -> int:
        return self.dbe[h]

    def nvmlDeviceGetRemappedRows(self, h: int) -> tuple[int, int, int, int]:
        raise NVMLError_NotSupported()

    def nvmlDeviceGetCurrentClocksEventReasons(self, h: int) -> int:
        return 0

    def nvmlDeviceGetTemperature(self, h: int, sensor: int) -> int:
        return 41

    def nvmlDeviceGetPowerUsage(self, h: int) -> int:
        return 250_000

    def nvmlDeviceGetComputeRunningProcesses(self, h: int) -> list[Any]:
        raise NVMLError_NotSupported()


class _NvmlError(Exception):
    pass


class RaisingNvml:
    """Init and the device list work; every query and event call raises (a driver wedged by
    a failing GPU behaves like this)."""

    NVMLError_NotSupported = type("NVMLError_NotSupported", (_NvmlError,), {})
    NVMLError_Timeout = type("NVMLError_Timeout", (_NvmlError,), {})
    calls = 0

    def nvmlInit(self) -> None: ...
    def nvmlShutdown(self) -> None: ...
    def nvmlDeviceGetCount(self) -> int:
        return 2

    def nvmlDeviceGetHandleByIndex(self, i: int) -> int:
        return i

    def nvmlDeviceGetPciInfo(self, h: int) -> Any:
        return type("Pci", (), {"busId": [b"00000000:3B:00.0", b"00000000:5E:00.0"][h]})()

    def __getattr__(self, name: str) -> Any:
        def fail(*_args: object) -> None:
            RaisingNvml.calls += 1
            raise _NvmlError(f"{name}: Unknown Error")
        return fail
