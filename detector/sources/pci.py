"""PCI bus ids: every form the logs and tools use, normalised to ``dddd:bb:dd``."""

from __future__ import annotations

import re

_FULL = re.compile(
    r"^(?:PCI:)?(?:(?P<dom>[0-9a-fA-F]{1,8}):)?(?P<bus>[0-9a-fA-F]{1,2}):(?P<dev>[0-9a-fA-F]{1,2})(?:\.(?P<fn>[0-7]))?$"
)


def normalize_pci(value: str) -> str | None:
    """Normalise a PCI id to ``dddd:bb:dd`` (lower case, 4-digit domain, no function).

    Accepts the kernel's ``PCI:0000:3b:00``, NVML/DCGM's ``00000000:3B:00.0``, ``3b:00.0`` and
    NCCL's integer bus id printed in hex (``3b000``, ``1003b000`` with a domain). Returns None for
    anything else.
    """
    text = value.strip()
    if not text:
        return None
    match = _FULL.match(text)
    if match:
        dom = int(match.group("dom") or "0", 16)
        bus = int(match.group("bus"), 16)
        dev = int(match.group("dev"), 16)
        if dom > 0xFFFF:
            return None
        return f"{dom:04x}:{bus:02x}:{dev:02x}"
    return nccl_busid_to_pci(text)


def nccl_busid_to_pci(busid: str) -> str | None:
    """NCCL prints a bus id as the hex of ``domain<<20 | bus<<12 | device<<4 | function``... but
    without separators: ``0000:3b:00.0`` -> ``3b000``. Decode that."""
    text = busid.strip().lower()
    if text.startswith("0x"):
        text = text[2:]
    if not text or len(text) > 12 or any(c not in "0123456789abcdef" for c in text):
        return None
    number = int(text, 16)
    function = number & 0xF
    device = (number >> 4) & 0xFF
    bus = (number >> 12) & 0xFF
    domain = number >> 20
    if function > 7 or device > 0x1F or domain > 0xFFFF:
        return None
    return f"{domain:04x}:{bus:02x}:{device:02x}"
