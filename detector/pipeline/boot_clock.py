"""Dating a kernel log's seconds since boot: dmesg's ``[4346320.000000]`` says nothing of the
day, but an audit record on such a line carries its own Unix time (``audit(1790155524.550:464)``:
AppArmor's and SELinux's denials, syscall audits), and with it the boot's. The kernel lines of
that boot get wall-clock times, so a GPU fault days before the job reads as an earlier job's."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime

from detector.pipeline.filescan import FileScan
from detector.sources.runs import FileKind
from detector.sources.timestamps import parse_timestamp

RULE_AUDIT_CLOCK = "system.audit_clock"  # rules/system.yaml
# the audit records of one boot agree on its time to within this, or within this share of the
# seconds since boot (the record's stamp and the line's are taken microseconds apart, but the
# kernel's clock since boot drifts from the wall clock, and a suspended or migrated VM's more);
# records that disagree more date no boot. The median dates it: a fault days before the job stays
# days before it.
AGREE_S = 5.0
AGREE_DRIFT = 1e-3
# a line's seconds since boot lower than the line before it by more than this: a new boot (dmesg
# files of several boots one after another)
REBOOT_DROP_S = 1.0


def date_kernel_boots(scans: Sequence[FileScan]) -> None:
    """Give the untimed kernel hits of each boot an audit record dates their wall-clock time (in
    place: ``time_inferred`` stays False, the time is the line's own, read on the boot's clock)."""
    for scan in scans:
        if scan.file.kind is not FileKind.KERNEL or not any(
                m.rule.id == RULE_AUDIT_CLOCK for h in scan.hits for m in h.matches):
            continue
        _date_one(scan)


def _since_boot(message: str) -> float | None:
    stamp = parse_timestamp(message)
    return stamp.since_boot if stamp is not None and stamp.time is None else None


def _date_one(scan: FileScan) -> None:
    hits = sorted(scan.hits, key=lambda h: h.event.line)
    boots: list[int] = []  # each hit's boot (a count of the drops in seconds since boot before it)
    boot, last = 0, None
    uptimes: list[float | None] = []
    for hit in hits:
        up = _since_boot(hit.event.message) if hit.event.time is None else None
        if up is not None and last is not None and up < last - REBOOT_DROP_S:
            boot += 1
        if up is not None:
            last = up
        boots.append(boot)
        uptimes.append(up)
    offsets: dict[int, list[float]] = {}
    longest: dict[int, float] = {}
    for hit, b, up in zip(hits, boots, uptimes, strict=True):
        if up is None:
            continue
        for m in hit.matches:
            if m.rule.id == RULE_AUDIT_CLOCK:
                epoch = next((v for k, v in m.fields if k == "epoch"), None)
                if epoch is not None and epoch.isdigit():
                    offsets.setdefault(b, []).append(int(epoch) - up)
                    longest[b] = max(longest.get(b, 0.0), up)
    starts: dict[int, float] = {}
    for b, values in offsets.items():
        if max(values) - min(values) <= max(AGREE_S, AGREE_DRIFT * longest[b]):
            starts[b] = statistics.median(values)
    if not starts:
        return
    dated = {}
    for hit, b, up in zip(hits, boots, uptimes, strict=True):
        if up is None or b not in starts:
            continue
        try:
            when = datetime.fromtimestamp(starts[b] + up, UTC)
        except (OverflowError, OSError, ValueError):
            continue
        dated[id(hit)] = replace(hit, event=replace(hit.event, time=when, time_inferred=False))
    if dated:
        scan.hits = [dated.get(id(h), h) for h in scan.hits]
