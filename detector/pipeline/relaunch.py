"""Launches appended to one log: a failure followed by the program starting again.

Launchers and users often append a new launch to the same file (Paddle's ``workerlog.N``, a
``>> train.log`` redirection, a console kept across retries). A failure followed, within a few
lines, by the program's start-up lines again ended an earlier launch; the launch the user asks
about is the last one. Its findings stay; an earlier launch's become context (a GPU, memory or
link fault stays: the node is still suspect). A last launch that trained to its end leaves
nothing to report.

A launch's start-up lines are the lines among its first ``HEAD`` (import warnings, banners, the
configuration it prints) that it printed once only up to the failure: a line printed at every
epoch (a validation summary, a checkpoint note) is none. A new launch starts again from its top
(one of the first ``TOP`` start-up lines) and prints ``MATCH`` of them in their order.

Only one rank's files (a per-rank log: a file of several ranks or hosts prints the same
start-up lines several times in one launch), not torchrun's (each launch has its own folder) nor
compressed ones, that go on after a failure are read again, each up to ``MAX_BYTES`` and all up to
``MAX_TOTAL_BYTES``; only the launches' first lines and the windows after the failures are
compared.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import timedelta

from detector.pipeline.filescan import FileScan
from detector.support.compressed import open_log
from detector.support.hosts import same_host
from detector.types import GPU_FAULTS, Finding, Role

MAX_BYTES = 32 << 20  # files larger than this are not read again
MAX_TOTAL_BYTES = 128 << 20  # and all the files read again in one replay at most this much
HEAD = 200  # a program's start-up lines are among its launch's first lines
AFTER = 80  # lines after a failure looked at for the start-up lines again
MATCH = 3  # distinct start-up lines seen again, in their order, make a new launch
TOP = 3  # a new launch starts again with one of its first start-up lines
GOES_ON = MATCH + 2  # a file must go on this many lines after a failure to be looked at
RECHECK = 20_000  # lines after a launch's head in which a start-up line must not come again
# context that attribution's last resort reads as a failure when nothing else is: an earlier
# launch's are dropped (as after a run that said it succeeded: pipeline.findings)
_LAST_WORDS = frozenset({"python.traceback", "python.stack_dump_main_thread", "generic.gdb_thread_stack",
                         "scheduler.slurm_step_ended"})
_DIGITS = re.compile(r"[0-9]+")
_LETTERS = re.compile(r"[A-Za-z]")
_PREFIX = re.compile(r"^(?:\[(?:rank|default)[0-9]{1,6}\]: ?)+")  # torchrun's per-rank prefixes
# lines that are no start-up line: a traceback's, an exception's, a table's or a report's (they
# repeat when several ranks print the same failure), and indented ones (a block's body)
_NOT_STARTUP = re.compile(r"^(?:\s|Traceback \(most recent|During handling|The above exception|[=*#~+-]{4}"
                          r"|\[[0-9]{1,6}\]:|frame #[0-9]|Exception raised from|terminate called"
                          r"|[A-Za-z_][\w.]{0,80}(?:Error|Exception|Interrupt|Exit)\b"
                          # (a CUDA error's own advice, printed below each report of it)
                          r"|CUDA kernel errors might be|For debugging consider passing|Compile with `TORCH_USE_CUDA_DSA`)")


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


def _relaunch_after(raw: Sequence[str], order: Mapping[str, int], line: int, skip: set[int]) -> int | None:
    """The line where a new launch starts within ``AFTER`` lines after ``line`` (1-based; raw[i]
    is line i + 1): the first of ``MATCH`` distinct start-up lines (``order``: their place among
    the launch's start-up lines) seen again in their order, the first of them among the first
    ``TOP``; or None."""
    found: list[tuple[int, int]] = []  # (line number, place among the start-up lines)
    for i in range(line, min(len(raw), line + AFTER)):
        if i + 1 in skip:
            continue
        k = _key(raw[i])
        place = order.get(k) if k is not None else None
        if place is None:
            continue
        if found and place <= found[-1][1]:
            continue  # out of the start-up order
        if not found and place >= TOP:
            continue  # a launch starts again from its top
        found.append((i + 1, place))
        if len(found) >= MATCH:
            return found[0][0]
    return None


class _Heads:
    """A file's launches' start-up lines, each launch's read once (a file of thousands of
    failures asks the same launch again and again): per launch start and head end, the head's
    keys, how often each is in it, and where each printed once there is printed again after it
    (within ``RECHECK`` lines)."""

    def __init__(self, raw: Sequence[str], skip: set[int]) -> None:
        self.raw, self.skip = raw, skip
        self._heads: dict[tuple[int, int], tuple[list[str], dict[str, int], dict[str, int]]] = {}
        self._agains: dict[int, dict[str, int]] = {}
        self.scan_begin, self.scanned = -1, 0  # the launch searched for a relaunch, and how far

    def head(self, begin: int, end: int) -> tuple[list[str], dict[str, int], dict[str, int]]:
        key = (begin, min(end, begin + HEAD))
        found = self._heads.get(key)
        if found is None:
            raw, skip = self.raw, self.skip
            head = [k for i in range(begin, key[1]) if i + 1 not in skip and (k := _key(raw[i]))]
            counts: dict[str, int] = {}
            for k in head:
                counts[k] = counts.get(k, 0) + 1
            once = sum(1 for n in counts.values() if n == 1)
            found = self._heads[key] = (head, counts, self._again(begin) if once >= MATCH else {})
        return found

    def _again(self, begin: int) -> dict[str, int]:
        """Where each line of the launch's whole head is printed again after the head (within
        ``RECHECK`` lines), worked out once per launch (a failure inside the head reads a shorter
        head, whose lines are among these)."""
        found = self._agains.get(begin)
        if found is None:
            raw, skip = self.raw, self.skip
            keys = {k for i in range(begin, min(len(raw), begin + HEAD)) if i + 1 not in skip and (k := _key(raw[i]))}
            found = {}
            for i in range(begin + HEAD, min(len(raw), begin + HEAD + RECHECK)):
                if raw[i] and (k := _key(raw[i])) in keys and k not in found:
                    found[k] = i
            self._agains[begin] = found
        return found

    def order(self, begin: int, end: int, until: int | None = None) -> dict[str, int]:
        """The head's start-up lines printed once in it (and, with ``until``, not again before
        that line, within ``RECHECK`` lines of the head), each with its place among them."""
        head, counts, again = self.head(begin, end)
        limit = min(until, begin + HEAD + RECHECK) if until is not None else None
        order: dict[str, int] = {}
        for k in head:
            if counts[k] == 1 and (limit is None or again.get(k, limit) >= limit):
                order[k] = len(order)
        return order

    def latest_launch(self, begin: int, end: int) -> int:
        """The first line (0-based) of the last launch that starts between ``begin`` and
        ``end``: launches appended one after another without a failure the rules read between
        them (one stopped by hand, one killed without a word) start again with the same start-up
        lines. Each line is searched once over the file's failures (they come in order)."""
        raw = self.raw
        while True:
            order = self.order(begin, end)
            if len(order) < MATCH:
                return begin
            if self.scan_begin != begin:
                self.scan_begin, self.scanned = begin, begin + HEAD
            tops = {k for k, place in order.items() if place < TOP}
            for i in range(self.scanned, end):
                if raw[i] and _key(raw[i]) in tops and (again := _relaunch_after(raw, order, i, self.skip)) is not None:
                    begin = again - 1
                    break
            else:
                self.scanned = max(self.scanned, end)
                return begin


def _last_start(raw: Sequence[str], failures: Sequence[int]) -> int | None:
    """The line where the last launch of a file (its lines ``raw``) starts, given its failures'
    lines (sorted), or None when no failure is followed by a new launch."""
    skip = set(failures)
    heads = _Heads(raw, skip)
    start: int | None = None
    for line in failures:
        if start is not None and line < start:
            continue  # this launch is already known to have ended
        begin = heads.latest_launch((start or 1) - 1, line - 1)  # the launch's first line, 0-based
        # (its start-up lines: printed once in its head, and not again before the failure)
        order = heads.order(begin, line - 1, until=line - 1)
        if len(order) < MATCH:
            continue
        found = _relaunch_after(raw, order, line, skip)
        if found is not None and not _another_program(raw, begin, line, found):
            start = found
    return start


# the line that names what a launch runs where one script runs several programs one after another
# into one file, with the same start-up lines (an nccl-tests sweep: alltoall_perf, then sendrecv_perf)
_PROGRAM = re.compile(r"^# Collective test starting: (?P<program>\S{1,80})")


def _another_program(raw: Sequence[str], begin: int, line: int, found: int) -> bool:
    """Whether the launch found after the failure at ``line`` names another program than the
    launch that failed (from ``begin``, 0-based): a sweep's next test, not a relaunch."""
    def program(lo: int, hi: int) -> str | None:
        for i in range(max(lo, 0), min(hi, len(raw))):
            m = _PROGRAM.match(raw[i])
            if m is not None:
                return m["program"]
        return None

    before = program(begin, line)
    after = program(found - 1 - MATCH, found - 1 + AFTER)
    return before is not None and after is not None and before != after


EARLIER_LAUNCH = timedelta(hours=15)  # before the last launch began, past any two zones' offset
LAUNCHER_BANNER = "torch.launcher_start_banner"  # rules/torch.yaml: torchrun's banner as it starts
BANNER_LINES = 2  # the banner's blank and starred lines before it
# torchelastic's exit summary of a launch (pipeline.findings reads its entries as exit codes)
LAUNCH_ENDED = frozenset({"torchelastic.exitcode", "torch.elastic_child_failed", "torch.elastic_child_failed_bare"})


def _banner_starts(findings: Sequence[Finding], failing: Mapping[str, set[int]], lines_of: Mapping[str, int]) -> dict[str, int]:
    """Per file, where the last torchrun launch that began after a failure in the file starts:
    the launcher prints its banner once as it starts, so a banner after a failure, with the
    launch's lines after it, is a new launch, in a file of any number of ranks (a console kept
    across retries). (A banner the file ends on is the launcher's own, printed out of order: an
    old launcher's buffered stdout.)"""
    banners: dict[str, list[int]] = {}
    ended: dict[str, list[int]] = {}  # the launcher's own word that a launch ended (its exit summary)
    found: dict[str, set[int]] = {}  # every line a rule read, any role
    node_at: dict[tuple[str, int], str | None] = {}  # the node a banner's or a summary's prefix names
    for f in findings:
        if f.file is None or f.line is None or f.file not in failing:
            continue
        found.setdefault(f.file, set()).add(f.line)
        if f.rule == LAUNCHER_BANNER:
            banners.setdefault(f.file, []).append(f.line)
            node_at[(f.file, f.line)] = f.node
        elif f.rule in LAUNCH_ENDED:
            ended.setdefault(f.file, []).append(f.line)
            node_at.setdefault((f.file, f.line), f.node)

    def same_launcher(file: str, end: int, banner: int) -> bool:
        # (one file of several pods' or hosts' output, each line labelled with its source -
        # "kubectl logs --prefix" of a job's pods, one after another: another pod's banner
        # after one pod's summary is that pod's start, not a relaunch)
        a, b = node_at.get((file, end)), node_at.get((file, banner))
        return a is None or b is None or same_host(a, b)

    out: dict[str, int] = {}
    for file, lines in banners.items():
        total = lines_of.get(file, 0)
        # a banner after the launcher said its launch ended, followed by lines of the new launch
        # that no rule reads (not only a scheduler's or launcher's teardown report)
        after = [b for b in sorted(lines) if any(e < b and same_launcher(file, e, b) for e in ended.get(file, ()))
                 and (total - b) - sum(1 for x in found[file] if x > b) >= GOES_ON]
        if after:
            last = after[-1]
            before = max((x for x in failing[file] if x < last), default=0)
            first = min(b for b in lines if before < b <= last)  # the new launch's first banner
            out[file] = max(before + 1, first - BANNER_LINES)
    return out


def last_launch_starts(scans: Iterable[FileScan], findings: Sequence[Finding],
                       file_rank: Mapping[str, int]) -> dict[str, int]:
    """Per file (its display name), the line where its last launch starts, for the files in
    which a failure is followed by the program starting again (``file_rank``: the files known
    to hold one rank's output, by display name)."""
    failing: dict[str, set[int]] = {}
    for f in findings:
        if f.file is not None and f.line is not None and f.role is not Role.CONTEXT:
            failing.setdefault(f.file, set()).add(f.line)
    scans = list(scans)
    out: dict[str, int] = _banner_starts(findings, failing, {s.file.display: s.lines for s in scans})
    budget = MAX_TOTAL_BYTES
    for scan in scans:
        lines = failing.get(scan.file.display)
        if not lines or scan.lines - min(lines) < GOES_ON:
            continue
        if scan.file.rank is None and scan.file.display not in file_rank:
            continue  # (a file of several ranks or hosts repeats its start-up lines in one launch)
        if scan.file.attempt is not None or scan.file.compressed:
            continue  # torchrun's folders: a launch writes its own files; a rotated .gz is not inflated again
        if scan.file.size > min(MAX_BYTES, budget):
            continue
        raw = _read(scan, MAX_BYTES)
        if raw is None:
            continue
        budget -= scan.file.size
        start = _last_start(raw, sorted(lines))
        if start is not None:
            out[scan.file.display] = max(start, out.get(scan.file.display, 0))
    return out


def demote_earlier_launches(scans: Sequence[FileScan], findings: Sequence[Finding],
                            file_rank: Mapping[str, int]) -> list[Finding]:
    """``findings`` with those of a file's earlier launches (before its last launch's start),
    and another file's stamped long before the last launch began, made context; a fault of a GPU
    excepted (its node is still suspect)."""
    starts = last_launch_starts(scans, findings, file_rank)
    if not starts:
        return list(findings)
    # when the job's last launch began: the first stamped line of a relaunched file's last launch
    # (the earliest of them); another file's failure (a kernel's OOM kill of an earlier launch)
    # stamped long before it, farther than any two clocks' zones apart, was an earlier launch's
    began = min((f.time for f in findings if f.file in starts and f.line is not None and f.time is not None
                 and f.line >= starts[f.file]), default=None)

    def before(f: Finding) -> bool:
        if f.cause in GPU_FAULTS:
            return False
        start = starts.get(f.file or "")
        if start is None:
            return began is not None and f.time is not None and f.time < began - EARLIER_LAUNCH
        return f.line is not None and f.line < start

    return [dataclasses.replace(f, role=Role.CONTEXT, cause=None) if before(f) and f.role is not Role.CONTEXT else f
            for f in findings if not (before(f) and f.role is Role.CONTEXT and f.rule in _LAST_WORDS)]
