"""NVML health with a fake module: every call failing reports the source down once and up again
when NVML answers; a query failing on one GPU, or NotSupported everywhere, does not."""

from __future__ import annotations

import io
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from detector.sidecar.model import Inbox, Item, SourceState, SourceStatus
from detector.sidecar.sources import nvml as nvml_module
from detector.sidecar.sources.nvml import DOWN_AFTER_ROUNDS, NvmlSource
from tests.support.nvml import FakeNvml, NVMLError, NVMLError_NotSupported, RaisingNvml
from tests.support.sidecar import NOW, inprocess, make_logs, metric, scrape

QUERIES = ("nvmlDeviceGetTotalEccErrors", "nvmlDeviceGetRemappedRows", "nvmlDeviceGetCurrentClocksEventReasons",
           "nvmlDeviceGetTemperature", "nvmlDeviceGetPowerUsage", "nvmlDeviceGetComputeRunningProcesses")
EVENTS = ("nvmlEventSetCreate", "nvmlDeviceGetSupportedEventTypes", "nvmlDeviceRegisterEvents", "nvmlEventSetWait")


class SwitchableNvml(FakeNvml):
    """FakeNvml whose named functions raise ``error`` (all GPUs, or one) while listed in ``failing``."""

    def __init__(self) -> None:
        super().__init__()
        self.failing: set[str] = set()
        self.on_gpu: int | None = None  # None: every GPU
        self.error: type[Exception] = NVMLError
        self.calls: dict[str, int] = {}

    def __getattribute__(self, name: str) -> Any:
        attr = super().__getattribute__(name)
        if not name.startswith("nvml") or name not in super().__getattribute__("failing"):
            return attr
        calls = super().__getattribute__("calls")

        def fail(*args: Any) -> Any:
            calls[name] = calls.get(name, 0) + 1
            gpu = super(SwitchableNvml, self).__getattribute__("on_gpu")
            if gpu is not None and args and args[0] != gpu:
                return attr(*args)
            raise super(SwitchableNvml, self).__getattribute__("error")("Unknown Error")
        return fail


def statuses(items: list[Item]) -> list[SourceState]:
    return [i.state for i in items if isinstance(i, SourceStatus) and i.source == "nvml"]


def drain(inbox: Inbox) -> list[Item]:
    return list(inbox.drain(0.0))


@pytest.fixture()
def fast_retry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nvml_module, "EVENT_RETRY_MIN_S", 0.05)


def started(fake: SwitchableNvml, notices: list[str] | None = None) -> tuple[NvmlSource, Inbox]:
    source = NvmlSource(node="n1", poll_s=1.0, loader=lambda: fake,
                        on_notice=notices.append if notices is not None else None)
    inbox = Inbox()
    source.start(inbox)
    return source, inbox


def wait_for(inbox: Inbox, state: SourceState, timeout: float = 5.0) -> list[Item]:
    seen: list[Item] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        seen.extend(inbox.drain(0.1))
        if state in statuses(seen):
            return seen
    raise AssertionError(f"no nvml {state} status; saw {statuses(seen)}")


def test_every_query_failing_is_down_once_then_up_again() -> None:
    fake = SwitchableNvml()
    notices: list[str] = []
    source, inbox = started(fake, notices)
    try:
        fake.failing = set(QUERIES)
        t = NOW
        for _ in range(DOWN_AFTER_ROUNDS - 1):
            source.poll(t)
            t += 1
        assert statuses(drain(inbox)) == []  # one bad round is not enough
        for _ in range(20):  # many more polls: still one status, and no notice per poll
            source.poll(t)
            t += 1
        items = drain(inbox)
        assert statuses(items) == [SourceState.DOWN]
        (down,) = [i for i in items if isinstance(i, SourceStatus)]
        assert "every NVML query failed" in down.detail and "Unknown Error" in down.detail
        assert notices == []
        asked = fake.calls["nvmlDeviceGetTemperature"]
        assert asked < 2 * (DOWN_AFTER_ROUNDS + 20)  # down: polled with backoff
        fake.failing = set()
        t += nvml_module.POLL_BACKOFF_MAX_S
        source.poll(t)
        assert statuses(drain(inbox)) == [SourceState.UP]
        assert source.gpus[0].temperature == 41
        source.poll(t + 1)
        assert statuses(drain(inbox)) == []
    finally:
        source.close()


def test_one_query_failing_on_one_gpu_is_a_notice_not_down() -> None:
    fake = SwitchableNvml()
    notices: list[str] = []
    source, inbox = started(fake, notices)
    try:
        fake.failing, fake.on_gpu = {"nvmlDeviceGetTemperature"}, 1
        for i in range(10):
            source.poll(NOW + i)
        assert statuses(drain(inbox)) == []
        assert len(notices) == 1 and "0000:5e:00" in notices[0] and "temperature" in notices[0]
        assert source.gpus[0].temperature == 41 and source.gpus[1].temperature is None
    finally:
        source.close()


def test_every_gpu_failing_on_every_query_but_one_is_not_down() -> None:
    fake = SwitchableNvml()
    source, inbox = started(fake)
    try:
        fake.failing = set(QUERIES) - {"nvmlDeviceGetPowerUsage"}
        for i in range(10):
            source.poll(NOW + i)
        assert statuses(drain(inbox)) == []
    finally:
        source.close()


def test_not_supported_everywhere_is_not_down() -> None:
    """A GPU (or VM) that supports none of the queries: no data, not a failure."""
    fake = SwitchableNvml()
    notices: list[str] = []
    source, inbox = started(fake, notices)
    try:
        fake.failing, fake.error = set(QUERIES), NVMLError_NotSupported
        for i in range(10):
            source.poll(NOW + i)
        assert statuses(drain(inbox)) == [] and notices == []
        assert source.gpus[0].unsupported == {"ecc", "remap", "clocks", "temperature", "power", "processes"}
    finally:
        source.close()


@pytest.mark.usefixtures("fast_retry")
@pytest.mark.parametrize("broken", ["nvmlEventSetCreate", "nvmlDeviceRegisterEvents", "nvmlEventSetWait"])
def test_event_thread_failing_is_down_and_recovers(broken: str) -> None:
    fake = SwitchableNvml()
    fake.failing = {broken}
    source, inbox = started(fake)
    try:
        seen = wait_for(inbox, SourceState.DOWN)
        (down,) = [i for i in seen if isinstance(i, SourceStatus)]
        assert broken in down.detail or "register" in down.detail
        time.sleep(0.3)  # it keeps retrying, without a status per try
        assert statuses(drain(inbox)) == []
        assert fake.calls[broken] > 1
        assert source._thread is not None and source._thread.is_alive()
        fake.failing = set()
        wait_for(inbox, SourceState.UP)
    finally:
        source.close()
    assert source._thread is not None and not source._thread.is_alive()


def test_no_gpu_supporting_events_is_not_down() -> None:
    fake = SwitchableNvml()
    fake.failing, fake.error = {"nvmlDeviceGetSupportedEventTypes"}, NVMLError_NotSupported
    notices: list[str] = []
    source, inbox = started(fake, notices)
    try:
        assert source._thread is not None
        source._thread.join(2.0)
        assert not source._thread.is_alive()
        assert statuses(drain(inbox)) == []
        assert any("no GPU supports Xid events" in n for n in notices)
    finally:
        source.close()


@pytest.mark.usefixtures("fast_retry")
def test_down_while_either_part_is_down() -> None:
    """Poll and event thread both failing, then the poll answering: still down until the
    event thread works too."""
    fake = SwitchableNvml()
    fake.failing = set(QUERIES) | {"nvmlEventSetWait"}
    source, inbox = started(fake)
    try:
        wait_for(inbox, SourceState.DOWN)
        for i in range(DOWN_AFTER_ROUNDS + 1):
            source.poll(NOW + 100 * i)
        fake.failing = {"nvmlEventSetWait"}
        source.poll(NOW + 1000)
        time.sleep(0.2)
        assert statuses(drain(inbox)) == []
        fake.failing = set()
        wait_for(inbox, SourceState.UP)
    finally:
        source.close()


def test_restart_after_close_does_not_duplicate_gpus() -> None:
    fake = SwitchableNvml()
    source, _inbox = started(fake)
    source.close()
    source.start(Inbox())
    try:
        assert [g.pci for g in source.gpus] == ["0000:3b:00", "0000:5e:00"]
        assert source._thread is not None and source._thread.is_alive()
    finally:
        source.close()


def test_sidecar_warns_once_and_exports_down(tmp_path: Path) -> None:
    """End to end (in-process): NVML raising on every call is one warning on stderr and
    ``rankdoctor_source_up{source="nvml"} 0``; nothing else about NVML per poll."""
    sidecar, thread, err = inprocess(tmp_path, make_logs(tmp_path), nvml=True, nvml_poll_s=0.05)
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and metric(scrape(sidecar), "rankdoctor_source_up", source="nvml") != 0:
            time.sleep(0.1)
        assert metric(scrape(sidecar), "rankdoctor_source_up", source="nvml") == 0
        calls = RaisingNvml.calls
        time.sleep(1.0)
        assert RaisingNvml.calls > calls  # still trying
    finally:
        sidecar.request_stop()
        thread.join(20)
    assert not thread.is_alive()
    text = err.getvalue() if isinstance(err, io.StringIO) else ""
    nvml_lines = [line for line in text.splitlines() if "nvml" in line.lower() and "watching as" not in line]
    assert len([line for line in nvml_lines if "source nvml is down" in line]) == 1, nvml_lines
    assert len(nvml_lines) == 1, nvml_lines
    assert not any(t.name == "rankdoctor-nvml-events" and t.is_alive() for t in threading.enumerate())
