"""Python + native stacks of the local rank processes (py-spy), and where each main thread waits.

Taken only when the stall rule fires (:meth:`ProcessWatcher.suspects` asks
:meth:`StackSampler.suspects`) or on demand (``rankdoctor snapshot``): nothing runs while the job
progresses. Each rank is dumped once with ``py-spy dump --pid PID --native --json`` (without
``--native`` where that is not supported or timed out), all ranks in parallel, each within
``stacks.timeout_s``. Ranks stopped in the data loader are dumped again with ``--subprocesses``
(Python frames only, a few ms) to say where its worker processes are.

The stacks are taken by :mod:`detector.sidecar.sources.pyspy`; where each main thread is, and
which ranks stand out, is read by :mod:`detector.sidecar.sources.stack_places`.

When py-spy is missing or ptrace is refused, :meth:`StackSampler.suspects` returns None (after
one warning) and the caller falls back to the ``/proc`` wait states.
"""

from __future__ import annotations

import contextlib
import os
import stat
import time as _time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from detector.sidecar.config import StacksConfig
from detector.sidecar.model import Suspect
from detector.sidecar.sources.pyspy import TOOL, Frame, StackError, ThreadStack, dump, find_tool, main_thread
from detector.sidecar.sources.stack_places import Place, Verdict, Where, classify, compare, ranks_text, user_frame

MAX_SOURCE_BYTES = 4 << 20  # a source file larger than this is not read for its line
MAX_WORKERS = 8  # data-loader workers dumped per rank


@dataclass(frozen=True, slots=True)
class RankStack:
    rank: int
    pid: int
    where: Where
    seconds: float  # how long the dump took
    native: bool
    workers: tuple[tuple[int, Where], ...] = ()  # data-loader worker processes: (pid, where)


@dataclass(frozen=True, slots=True)
class Snapshot:
    stacks: dict[int, RankStack] = field(default_factory=dict)
    errors: dict[int, StackError] = field(default_factory=dict)
    seconds: float = 0.0  # the whole snapshot, wall clock
    taken_at: float = 0.0

    def signatures(self) -> dict[int, str]:
        return {r: s.where.signature() for r, s in self.stacks.items()}

    def verdicts(self) -> list[Verdict]:
        return compare({r: s.where for r, s in self.stacks.items()})


def _proc_uid(proc_root: Path, pid: int) -> int | None:
    try:
        for line in (proc_root / str(pid) / "status").read_text().splitlines():
            if line.startswith("Uid:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def source_line(proc_root: Path, pid: int, frame: Frame | None) -> str | None:
    """The source line of ``frame`` as the process sees its files (``/proc/PID/root``): only a
    ``.py`` regular file that the process's user may read, at most 4 MiB; stripped, ≤ 120 chars."""
    if frame is None or frame.native or frame.line <= 0 or not frame.path.endswith(".py") \
            or not frame.path.startswith("/"):
        return None
    uid = _proc_uid(proc_root, pid)
    for candidate in (proc_root / str(pid) / "root" / frame.path.lstrip("/"), Path(frame.path)):
        try:
            with open(candidate, "rb") as fh:
                st = os.fstat(fh.fileno())
                if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_SOURCE_BYTES:
                    return None
                if not (st.st_mode & stat.S_IROTH or (uid is not None and st.st_uid == uid)):
                    return None
                for n, raw in enumerate(fh, 1):
                    if n == frame.line:
                        text = raw.decode("utf-8", "replace").strip()
                        return text[:117] + "..." if len(text) > 120 else text or None
                return None
        except OSError:
            continue
    return None


def child_pids(proc_root: Path, pid: int) -> list[int]:
    """The children of ``pid`` (``/proc/PID/task/*/children``, else a scan of ``/proc/*/stat``)."""
    found: set[int] = set()
    try:
        tasks = list((proc_root / str(pid) / "task").iterdir())
        for task in tasks:
            found.update(int(x) for x in (task / "children").read_text().split() if x.isdigit())
        return sorted(found)
    except OSError:
        pass
    with contextlib.suppress(OSError):
        for name in os.listdir(proc_root):
            if not name.isdigit():
                continue
            with contextlib.suppress(OSError, ValueError, IndexError):
                text = (proc_root / name / "stat").read_text()
                if int(text[text.rfind(")") + 2:].split()[1]) == pid:
                    found.add(int(name))
    return sorted(found)


def read_wchan(proc_root: Path, pid: int) -> str | None:
    with contextlib.suppress(OSError):
        text = (proc_root / str(pid) / "wchan").read_text().strip()
        return text if text and text != "0" else None
    return None


WARNINGS = {
    "missing": "stack snapshots are off: {detail}; install py-spy (pip install py-spy) or set stacks.tool; "
               "hang suspects come from /proc wait states only",
    "denied": "stack snapshots are off: ptrace was refused ({detail}); give the sidecar the SYS_PTRACE "
              "capability and the ranks' process namespace (see deploy/), or, for a sidecar running as the "
              "ranks' user, set kernel.yama.ptrace_scope to 0; hang suspects come from /proc wait states only",
}


class StackSampler:
    """Dumps rank processes with py-spy on demand; never in the background."""

    def __init__(self, config: StacksConfig, *, proc_root: Path = Path("/proc"),
                 warn: Callable[[str], None] | None = None, notice: Callable[[str], None] | None = None,
                 clock: Callable[[], float] = _time.monotonic) -> None:
        self.config = config
        self.proc_root = proc_root
        self._warn = warn or (lambda _m: None)
        self._notice = notice or (lambda _m: None)
        self._clock = clock
        self._native_ok = config.native
        self._warned: set[str] = set()
        self.last: Snapshot | None = None

    def tool(self) -> str | None:
        return find_tool(self.config.tool)

    def _warn_once(self, kind: str, detail: str) -> None:
        if kind in self._warned:
            return
        self._warned.add(kind)
        self._warn(WARNINGS.get(kind, "stack snapshot failed: {detail}").format(detail=detail))

    def _classify(self, threads: Sequence[ThreadStack], pid: int, native: bool,
                  loader_worker: bool = False) -> tuple[ThreadStack, Where]:
        main = main_thread(threads, pid)
        if main is None:
            raise StackError("failed", f"no main thread in the dump of pid {pid}")
        frame = user_frame(main.frames)
        where = classify(main.frames, native=native, active=main.active, loader_worker=loader_worker,
                         source=source_line(self.proc_root, pid, frame), wchan=read_wchan(self.proc_root, pid))
        return main, where

    def _python(self, tool: str, rank: int, pid: int) -> tuple[RankStack, tuple[str, ...]]:
        """Phase 1: Python frames only (a few ms); returns the stack and its Python-frame key."""
        start = self._clock()
        main, where = self._classify(dump(tool, pid, native=False, timeout_s=self.config.timeout_s), pid, False)
        key = tuple(f"{f.name}@{f.where}" for f in main.frames if not f.native)
        return RankStack(rank, pid, where, self._clock() - start, False), key

    def _native(self, tool: str, rank: int, pid: int) -> RankStack | None:
        """Phase 2: with native frames (c10d, NCCL, CUDA, libc); None when they cannot be had."""
        start = self._clock()
        try:
            threads = dump(tool, pid, native=True, timeout_s=self.config.timeout_s)
        except StackError as exc:
            if exc.kind == "native":
                self._native_ok = False
            return None
        _main, where = self._classify(threads, pid, True)
        return RankStack(rank, pid, where, self._clock() - start, True)

    def _workers(self, tool: str, pid: int) -> tuple[tuple[int, Where], ...]:
        """Where the data-loader worker processes (children) of ``pid`` are, Python frames only."""
        out = []
        for wpid in child_pids(self.proc_root, pid)[:MAX_WORKERS]:
            try:
                threads = dump(tool, wpid, native=False, timeout_s=self.config.timeout_s)
                out.append((wpid, self._classify(threads, wpid, False, loader_worker=True)[1]))
            except StackError:
                continue
        return tuple(out)

    def snapshot(self, pids: Mapping[int, int]) -> Snapshot:
        """Where every rank (``rank -> pid``) is. Phase 1 dumps every rank's Python frames (in
        parallel, a few ms each); phase 2 dumps one rank of each group of ranks with the same
        Python stack with native frames too (in parallel), and its place holds for its group;
        a rank in a multi-process data loader has its workers dumped as well. Errors are per rank."""
        start = self._clock()
        tool = self.tool()
        if tool is None:
            missing = StackError("missing", f"{self.config.tool or TOOL} was not found"
                                 + ("" if self.config.tool else " on PATH nor beside this Python"))
            snap = Snapshot({}, {r: missing for r in pids}, 0.0, start)
            self.last = snap
            return snap
        stacks: dict[int, RankStack] = {}
        errors: dict[int, StackError] = {}
        keys: dict[int, tuple[str, ...]] = {}
        workers = max(1, min(len(pids), self.config.parallel))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="stacks") as pool:
            phase1 = {r: pool.submit(self._python, tool, r, pid) for r, pid in pids.items()}
            for r, fut in phase1.items():
                try:
                    stacks[r], keys[r] = fut.result()
                except StackError as exc:
                    errors[r] = exc
            groups: dict[tuple[str, ...], list[int]] = {}
            for r in sorted(keys):
                groups.setdefault(keys[r], []).append(r)
            if self._native_ok and stacks:
                phase2 = {members[0]: pool.submit(self._native, tool, members[0], pids[members[0]])
                          for members in groups.values()}
                for lead, nfut in phase2.items():
                    got = nfut.result()
                    if got is None:
                        continue
                    for r in groups[keys[lead]]:
                        own = stacks[r]
                        stacks[r] = RankStack(r, own.pid, got.where, own.seconds + got.seconds if r == lead
                                              else own.seconds, True)
            loaders = {r: pool.submit(self._workers, tool, st.pid) for r, st in stacks.items()
                       if st.where.place is Place.DATA_LOADER and st.where.note and "worker" in st.where.note}
            for r, wfut in loaders.items():
                found = wfut.result()
                if found:
                    rs = stacks[r]
                    said = "; ".join(f"worker pid {wpid} is in {ww.describe()}" for wpid, ww in found[:2])
                    wh = rs.where
                    stacks[r] = RankStack(r, rs.pid, Where(wh.place, wh.label, wh.frame, wh.source,
                                                           f"{wh.note}; {said}", wh.excerpt, wh.native),
                                          rs.seconds, rs.native, found)
        snap = Snapshot(stacks, errors, self._clock() - start, start)
        self.last = snap
        return snap

    def suspects(self, pids: Mapping[int, int]) -> list[Suspect] | None:
        """Suspects from a fresh snapshot, or None when stacks are unavailable (py-spy missing,
        ptrace refused, fewer than two ranks dumped): the caller uses /proc instead."""
        if len(pids) < 2:
            return None
        snap = self.snapshot(pids)
        for kind in ("missing", "denied"):
            failed = [e for e in snap.errors.values() if e.kind == kind]
            if failed:
                self._warn_once(kind, str(failed[0]))
        other = [f"rank {r}: {e}" for r, e in sorted(snap.errors.items()) if e.kind not in ("missing", "denied")]
        if other:
            self._warn(f"stack snapshot incomplete: {'; '.join(other[:4])}")
        if len(snap.stacks) < 2:
            return None
        slowest = max(s.seconds for s in snap.stacks.values())
        verdicts = snap.verdicts()
        frames = "native" if all(s.native for s in snap.stacks.values()) else "Python"
        self._notice(f"stack snapshot of {len(snap.stacks)} ranks in {snap.seconds:.2f} s (slowest rank "
                     f"{slowest:.2f} s, {frames} frames): "
                     + ", ".join(f"rank {r} in {s.where.place}" for r, s in sorted(snap.stacks.items()))
                     + "; " + (f"not where its peers are: rank {ranks_text(v.rank for v in verdicts)}" if verdicts
                               else "no rank stands out"))
        return [Suspect(v.rank, v.reason, cause=v.cause, place=str(v.where.place), excerpt=v.where.excerpt)
                for v in verdicts]
