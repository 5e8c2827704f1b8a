"""Launches appended to one log: a failure followed by the program starting again.

Launchers and users often append a new launch to the same file (Paddle's ``workerlog.N``, a
``>> train.log`` redirection, a console kept across retries). A failure followed, within a few
lines, by the program's start-up lines again (the same lines, in the same order, that it printed
before that failure and after the one before: import warnings, banners, the configuration it
prints) ended an earlier launch; the launch the user asks about is the last one. Its findings stay; an earlier launch's become
context (a GPU, memory or link fault stays: the node is still suspect). A last launch that
trained to its end leaves nothing to report.

Only one rank's files (a per-rank log: a file of several ranks or hosts prints the same
start-up lines several times in one launch), not torchrun's (each launch has its own folder),
that go on after a failure are read again, each up to ``MAX_BYTES`` and all up to
``MAX_TOTAL_BYTES``.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from detector.pipeline.filescan import FileScan
from detector.support.compressed import open_log
from detector.types import Cause, Finding, Role

MAX_BYTES = 32 << 20  # files larger than this are not read again in whole
MAX_TOTAL_BYTES = 128 << 20  # and all the files read again in one replay at most this much
HEAD = 200  # a program's start-up lines are among the first lines after the previous failure
AFTER = 80  # lines after a failure looked at for the start-up lines again
MATCH = 3  # distinct start-up lines seen again, in their order, make a new launch
GOES_ON = MATCH + 2  # a file must go on this many lines after a failure to be looked at
MAX_FILES = 200  # files read again at most (the first ones with a failure that lines follow)
MAX_REPEATS = 50  # a start-up line is printed once per launch, not at every step
_HARDWARE = frozenset({Cause.GPU_HARDWARE, Cause.ECC_MEMORY, Cause.NVLINK})
# context that attribution's last resort reads as a failure when nothing else is: an earlier
# launch's are dropped (as after a run that said it succeeded: pipeline.findings)
_LAST_WORDS = frozenset({"python.traceback", "python.stack_dump_main_thread", "scheduler.slurm_step_ended"})
_DIGITS = re.compile(r"[0-9]+")
_LETTERS = re.compile(r"[A-Za-z]")
_PREFIX = re.compile(r"^(?:\[(?:rank|default)[0-9]{1,6}\]: ?)+")  # torchrun's per-rank prefixes
# lines that are no start-up line: a traceback's, an exception's, a table's or a report's (they
# repeat when several ranks print the same failure), and indented ones (a block's body)
_NOT_STARTUP = re.compile(r"^(?:\s|Traceback \(most recent|During handling|The above exception|[=*#~+-]{4}"
                          r"|\[[0-9]{1,6}\]:|frame #[0-9]|Exception raised from|terminate called"
                          r"|[A-Za-z_][\w.]{0,80}(?:Error|Exception|Interrupt|Exit)\b)")


def _key(raw: str) -> str | None:
    """A line as compared across launches (numbers, times and pids differ); None when too
    short, without words to tell anything apart, or not a line a program prints as it starts."""
    raw = _PREFIX.sub("", raw, count=1)
    if _NOT_STARTUP.match(raw):
        return None
    text = _DIGITS.sub("0", raw.strip())
    if len(text) < 16 or len(_LETTERS.findall(text[:200])) < 6:
        return None
    return text[:300]


def _read(scan: FileScan, limit: int) -> list[str] | None:
    """The file's first ``limit`` bytes as lines (the last one left out when cut), or None."""
    try:
        fh, _st, _note = open_log(scan.file.path, scan.file.compressed)
        with fh:
            data = fh.read(limit + 1)
    except OSError:
        return None
    cut = len(data) > limit
    lines = data[:limit].decode("utf-8", "replace").split("\n")
    return lines[:-1] if cut else lines


def _line_keys(scan: FileScan) -> dict[int, str | None] | None:
    """Line number -> start-up key for the whole file, or None when it cannot be read."""
    if scan.file.size > MAX_BYTES:
        return None
    whole = _read(scan, MAX_BYTES)
    if whole is None:
        return None
    return {i + 1: _key(raw) for i, raw in enumerate(whole)}


def _relaunch_after(keys: Mapping[int, str | None], head: dict[str, int], counts: Counter[str], line: int) -> int | None:
    """The line where a new launch starts within ``AFTER`` lines after ``line``: the first of
    ``MATCH`` distinct start-up lines (``head``: where each was first printed) seen again in
    their order, or None."""
    found: list[tuple[int, int]] = []  # (line number, index of its first print)
    seen: set[str] = set()
    for n in range(line + 1, line + 1 + AFTER):
        k = keys.get(n)
        if k is None or k in seen or k not in head or counts[k] > MAX_REPEATS:
            continue
        if found and head[k] <= found[-1][1]:
            continue  # out of the start-up order
        seen.add(k)
        found.append((n, head[k]))
        if len(found) >= MATCH:
            return found[0][0]
    return None


def last_launch_starts(scans: Iterable[FileScan], findings: Sequence[Finding],
                       file_rank: Mapping[str, int]) -> dict[str, int]:
    """Per file (its display name), the line where its last launch starts, for the files in
    which a failure is followed by the program starting again (``file_rank``: the files known
    to hold one rank's output, by display name)."""
    failing: dict[str, set[int]] = {}
    for f in findings:
        if f.file is not None and f.line is not None and f.role is not Role.CONTEXT:
            failing.setdefault(f.file, set()).add(f.line)
    out: dict[str, int] = {}
    read = 0
    budget = MAX_TOTAL_BYTES
    for scan in scans:
        lines = failing.get(scan.file.display)
        if not lines or scan.lines - min(lines) < GOES_ON or read >= MAX_FILES:
            continue
        if scan.file.rank is None and scan.file.display not in file_rank:
            continue  # (a file of several ranks or hosts repeats its start-up lines in one launch)
        if scan.file.attempt is not None:
            continue  # torchrun's log folders: each launch writes its own files
        if budget - scan.file.size < 0:
            break
        budget -= scan.file.size
        read += 1
        failures = sorted(lines)
        keys = _line_keys(scan)
        if keys is None:
            continue
        for n in lines:
            keys[n] = None  # a failure's own line is no start-up line
        counts = Counter(k for k in keys.values() if k is not None)
        start = None
        previous = 0  # the line of the failure before this one (0: the file's start)
        for line in failures:
            if start is None or line >= start:
                head: dict[str, int] = {}
                for i, n in enumerate(range(previous + 1, min(line, previous + 1 + HEAD))):
                    k = keys.get(n)  # what was printed since the previous failure
                    if k is not None and k not in head:
                        head[k] = i
                if len(head) >= MATCH:
                    found = _relaunch_after(keys, head, counts, line)
                    if found is not None:
                        start = found
            previous = line
        if start is not None:
            out[scan.file.display] = start
    return out


def demote_earlier_launches(scans: Sequence[FileScan], findings: Sequence[Finding],
                            file_rank: Mapping[str, int]) -> list[Finding]:
    """``findings`` with those of a file's earlier launches (before its last launch's start)
    made context, a hardware fault excepted."""
    starts = last_launch_starts(scans, findings, file_rank)
    if not starts:
        return list(findings)

    def before(f: Finding) -> bool:
        start = starts.get(f.file or "")
        return start is not None and f.line is not None and f.line < start and f.cause not in _HARDWARE

    return [dataclasses.replace(f, role=Role.CONTEXT, cause=None) if before(f) and f.role is not Role.CONTEXT else f
            for f in findings if not (before(f) and f.role is Role.CONTEXT and f.rule in _LAST_WORDS)]
