"""Dating a kernel log's seconds since boot: dmesg's ``[4346320.000000]`` says nothing of the
day, but an audit record on such a line carries its own Unix time (``audit(1790155524.550:464)``:
AppArmor's and SELinux's denials, syscall audits), and with it the boot's. The kernel lines of
boot is dated, and a kernel line of that boot dated more than :data:`BEFORE_BY` before the ranks'
first line gets that time, so a GPU fault days before the job reads as an earlier job's. Lines
nearer the job stay untimed: the audit records' time is UTC, the ranks' stamps are most often the
node's local time without a zone, hours apart, so only a gap larger than any zone's is read.

Only a kernel log with an untimed hit is read for its audit records (one regex pass over its
bytes, not a rule: nodes log such denials by the hundred thousand, and each rule hit costs a
line's work and a place among the evidence)."""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from detector.pipeline.filescan import FileScan
from detector.sources.runs import FileKind, LogFile
from detector.sources.timestamps import parse_timestamp
from detector.support.compressed import open_log

# an audit record: its Unix time, its milliseconds, its serial number
_RECORD = rb"\baudit\((?P<epoch>[0-9]{9,11})\.[0-9]{1,6}:[0-9]{1,12}\)"
_RECORD_RE = re.compile(_RECORD)
# an audit record on a line stamped in seconds since boot (dmesg's own stamp, or after a syslog
# header: "kernel: [2869988.000000] audit: type=1400 audit(1769337629.819:164): ...")
_AUDIT = re.compile(rb"\[ {0,12}(?P<up>[0-9]{1,10})\.[0-9]{1,9}\] [^\n]{0,200}?" + _RECORD)
# a boot's first lines (a dmesg file may hold several boots, one after another)
_BOOT = re.compile(rb"\] Linux version [0-9]")
# the audit records of one boot agree on its time to within this, or within this share of the
# seconds since boot (the record's stamp and the line's are taken microseconds apart, but the
# kernel's clock since boot drifts from the wall clock, and a suspended or migrated VM's more);
# records that disagree more date no boot. The median dates it: a fault days before the job stays
# days before it.
AGREE_S = 5.0
AGREE_DRIFT = 1e-3
READ_AT_MOST = 256 << 20  # bytes of a kernel log read for its audit records
# a dated kernel line this long before the ranks' first line is read as before the job, whatever
# zone the ranks' stamps are in (a zone is at most 14 hours from UTC)
BEFORE_BY = timedelta(hours=24)
RECORDS_PER_BOOT = 64  # audit records kept per boot (the first of them)


def date_kernel_boots(scans: Sequence[FileScan]) -> None:
    """Give the untimed kernel hits of each boot an audit record dates, where that date is more
    than :data:`BEFORE_BY` before the ranks' first line, their wall-clock time (in place;
    ``time_inferred`` stays False: the time is the line's own, read on the boot's clock)."""
    starts = [s.first_time for s in scans if s.file.kind is FileKind.RANK_LOG and s.first_time is not None]
    if not starts:
        return
    before = min(starts) - BEFORE_BY
    for scan in scans:
        if scan.file.kind is not FileKind.KERNEL:
            continue
        untimed = [h for h in scan.hits if h.event.time is None and _since_boot(h.event.message) is not None]
        if untimed:
            _date_one(scan, before)


def _since_boot(message: str) -> float | None:
    stamp = parse_timestamp(message)
    return stamp.since_boot if stamp is not None and stamp.time is None else None


def _boot_starts(scan: FileScan) -> tuple[list[int], dict[int, float]] | None:
    """The first line of each boot after the first, and each boot's start in Unix time where its
    audit records agree on it (boots numbered from 0); None when the file cannot be read."""
    try:
        fh, _st, _note = open_log(scan.file.path, scan.file.compressed)
        with fh:
            data = fh.read(READ_AT_MOST)
    except OSError:
        return None
    boots: list[int] = []  # line numbers (1-based) of each boot banner
    for m in _BOOT.finditer(data):
        boots.append(data.count(b"\n", 0, m.start()) + 1)
    records: dict[int, list[tuple[float, int]]] = {}
    line, pos = 1, 0
    for m in _AUDIT.finditer(data):
        line += data.count(b"\n", pos, m.start())
        pos = m.start()
        boot = sum(1 for b in boots if b <= line and b > 1) if boots else 0
        kept = records.setdefault(boot, [])
        if len(kept) < RECORDS_PER_BOOT:
            kept.append((float(int(m["epoch"]) - int(m["up"])), int(m["up"])))
    starts: dict[int, float] = {}
    for boot, values in records.items():
        offsets = [o for o, _up in values]
        longest = max(up for _o, up in values)
        if max(offsets) - min(offsets) <= max(AGREE_S, AGREE_DRIFT * longest):
            starts[boot] = statistics.median(offsets)
    return [b for b in boots if b > 1], starts


def _date_one(scan: FileScan, before: datetime) -> None:
    found = _boot_starts(scan)
    if found is None:
        return
    boots, starts = found
    if not starts:
        return
    dated = {}
    for hit in scan.hits:
        if hit.event.time is not None:
            continue
        up = _since_boot(hit.event.message)
        boot = sum(1 for b in boots if b <= hit.event.line)
        if up is None or boot not in starts:
            continue
        try:
            when = datetime.fromtimestamp(starts[boot] + up, UTC)
        except (OverflowError, OSError, ValueError):
            continue
        if when >= before:
            continue  # (near the job: its place in the job's own time is not known)
        dated[id(hit)] = replace(hit, event=replace(hit.event, time=when, time_inferred=False))
    if dated:
        scan.hits = [dated.get(id(h), h) for h in scan.hits]


def audit_year(f: LogFile, at_most: int) -> int | None:
    """The year of the last audit record in a kernel log's first ``at_most`` bytes (the year its
    node lived in, for stamps that lack one); None where it has none or cannot be read."""
    try:
        fh, _st, _note = open_log(f.path, f.compressed)
        with fh:
            data = fh.read(at_most)
    except OSError:
        return None
    found = _RECORD_RE.findall(data)
    if not found:
        return None
    try:
        return datetime.fromtimestamp(int(found[-1]), tz=UTC).year
    except (OverflowError, OSError, ValueError):
        return None
