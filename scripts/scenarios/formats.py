"""How the logs spell times and device ids: timestamp forms, NCCL bus ids, PCI addresses."""

from __future__ import annotations

from datetime import datetime


def ts_pylog(dt: datetime) -> str:
    """Python logging asctime: ``2026-11-29 12:00:01,123``."""
    return dt.strftime("%Y-%m-%d %H:%M:%S") + f",{dt.microsecond // 1000:03d}"


def ts_glog(level: str, dt: datetime, *, nanos: bool = False) -> str:
    """glog / c10 prefix: ``E1129 12:00:01.123456`` (nine fraction digits with ``nanos``)."""
    frac = f"{dt.microsecond:06d}"
    if nanos:
        frac += f"{(dt.microsecond * 7919 + dt.second * 31) % 1000:03d}"
    return f"{level}{dt:%m%d %H:%M:%S}.{frac}"


def ts_iso_z(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%dT%H:%M:%S") + f".{dt.microsecond // 1000:03d}Z"


def ts_syslog(dt: datetime) -> str:
    return f"{dt:%b} {dt.day:2d} {dt:%H:%M:%S}"


def ts_ctime(dt: datetime) -> str:
    return f"{dt:%a %b} {dt.day:2d} {dt:%H:%M:%S %Y}"


def ts_journal(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%dT%H:%M:%S") + "+0000"


def ts_seconds(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%d %H:%M:%S")


def ts_summary(dt: datetime) -> str:
    """torchelastic's failure-summary time: ``2026-11-29_12:00:01``."""
    return dt.strftime("%Y-%m-%d_%H:%M:%S")


def nccl_busid(pci: str) -> str:
    """NCCL prints a bus id as the hex digits of ``dddd:bb:dd.f`` with leading zeros dropped."""
    return f"{int(pci.replace(':', '').replace('.', ''), 16):x}"


def pci_short(pci: str) -> str:
    """``0000:3b:00.0`` -> ``0000:3b:00`` (the kernel's and expected.json's form)."""
    return pci.rsplit(".", 1)[0]


def dcgm_pci(pci: str) -> str:
    """``0000:3b:00.0`` -> ``00000000:3B:00.0`` (DCGM / NVML form)."""
    return "0000" + pci.upper()
