"""Python + native stacks of the local rank processes (py-spy), and where each main thread waits.

Taken only when the stall rule fires (:meth:`ProcessWatcher.suspects` asks
:meth:`StackSampler.suspects`) or on demand (``rankdoctor snapshot``): nothing runs while the job
progresses. Each rank is dumped once with ``py-spy dump --pid PID --native --json`` (without
``--native`` where that is not supported or timed out), all ranks in parallel, each within
``stacks.timeout_s``. Ranks stopped in the data loader are dumped again with ``--subprocesses``
(Python frames only, a few ms) to say where its worker processes are.

:func:`classify` puts each main thread in one :class:`Place`, looking at the whole stack in this
order: a data-loader frame anywhere (``torch.utils.data``, ``_MultiProcessingDataLoaderIter``,
torchdata, webdataset, DALI...) makes it :attr:`Place.DATA_LOADER` whatever it waits on below;
then a collective (``torch.distributed.distributed_c10d`` functions, native ``c10d::`` /
``gloo::`` / ``nccl*`` frames, DDP's ``c10d::Reducer``); then checkpoint or file I/O
(``torch.serialization``, ``torch.distributed.checkpoint``, safetensors, CPython's ``_io``
writes, ``fsync``, ``PyTorchStreamWriter``); then CUDA synchronisation
(``cudaStreamSynchronize``, ``torch.cuda.synchronize``...). Otherwise the innermost frames say
it: ``time.sleep`` (native ``time_sleep`` / ``clock_nanosleep``) is :attr:`Place.SLEEP`; a lock
acquire, a ``threading`` wait or a queue get is :attr:`Place.LOCK`; anything else is
:attr:`Place.USER_CODE`. Without native frames, the innermost user frame's source line
(``time.sleep(...)``, ``lock.acquire()``, ``with lock:``) and the kernel's wait channel
(``/proc/PID/wchan``) stand in for them. Every place names the innermost *user* frame (a Python
frame outside the standard library and site-packages) as ``file:line``.

:func:`compare` names the ranks that are not where their peers are: with some ranks in a
collective, those elsewhere (at most half of them); with every rank in a collective, the odd
one out of a clear majority (a different collective or call site: ``collective_mismatch``);
with none in a collective (NCCL ranks wait in CUDA synchronisation, not in the call), the odd
one out of a clear majority. A rank in the data loader or in checkpoint I/O is a
``data_loader_stall``; any other, a ``hang``.

When py-spy is missing or ptrace is refused, :meth:`StackSampler.suspects` returns None (after
one warning) and the caller falls back to the ``/proc`` wait states.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import time as _time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from detector.sidecar.config import StacksConfig
from detector.sidecar.model import Suspect
from detector.types import Cause

TOOL = "py-spy"
MAX_SOURCE_BYTES = 4 << 20  # a source file larger than this is not read for its line
MAX_OUTPUT_BYTES = 8 << 20  # a dump larger than this is refused
EXCERPT_FRAMES = 12
EVIDENCE_FRAMES = 8
SIGNATURE_CHARS = 160
MAX_WORKERS = 8  # data-loader workers dumped per rank


class Place(StrEnum):
    COLLECTIVE = "collective"
    DATA_LOADER = "data_loader"
    CHECKPOINT_IO = "checkpoint_io"
    CUDA_SYNC = "cuda_sync"
    LOCK = "lock"
    SLEEP = "sleep"
    USER_CODE = "user_code"
    UNKNOWN = "unknown"


PLACE_WORDS = {
    Place.COLLECTIVE: "a collective",
    Place.DATA_LOADER: "the data loader",
    Place.CHECKPOINT_IO: "checkpoint / file I/O",
    Place.CUDA_SYNC: "CUDA synchronisation",
    Place.LOCK: "a lock wait",
    Place.SLEEP: "a sleep",
    Place.USER_CODE: "user code",
    Place.UNKNOWN: "an unknown place",
}


def cause_of(place: Place) -> Cause:
    """The taxonomy cause of a rank stopped at ``place`` while its peers wait elsewhere."""
    if place in (Place.DATA_LOADER, Place.CHECKPOINT_IO):
        return Cause.DATA_LOADER_STALL  # "stuck in data loading / I/O" (DESIGN.md)
    return Cause.HANG


# --- stacks -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Frame:
    name: str
    path: str  # the full file name (a shared object for a native frame)
    short: str  # py-spy's short name: "train.py", "torch/autograd/graph.py", "libc.so.6"
    line: int
    native: bool

    @property
    def where(self) -> str:
        return f"{self.short}:{self.line}" if not self.native and self.line else self.short

    def text(self) -> str:
        return f"{self.name} ({self.where})"


@dataclass(frozen=True, slots=True)
class ThreadStack:
    pid: int
    tid: int | None
    name: str
    active: bool
    frames: tuple[Frame, ...]  # innermost first


def parse_dump(data: Any) -> list[ThreadStack]:
    """py-spy's ``dump --json`` output -> threads. Raises ValueError on another shape."""
    if not isinstance(data, list):
        raise ValueError("py-spy output is not a list of threads")
    out = []
    for item in data:
        if not isinstance(item, dict) or not isinstance(item.get("frames"), list):
            raise ValueError("py-spy output has a thread without frames")
        frames = []
        for fr in item["frames"]:
            if not isinstance(fr, dict):
                continue
            path = str(fr.get("filename") or "")
            line = fr.get("line")
            frames.append(Frame(
                name=str(fr.get("name") or "?"), path=path, short=str(fr.get("short_filename") or path),
                line=line if isinstance(line, int) else 0, native=fr.get("module") is not None,
            ))
        tid = item.get("os_thread_id")
        pid = item.get("pid")
        out.append(ThreadStack(pid=pid if isinstance(pid, int) else 0, tid=tid if isinstance(tid, int) else None,
                               name=str(item.get("thread_name") or ""), active=bool(item.get("active")),
                               frames=tuple(frames)))
    return out


def main_thread(threads: Sequence[ThreadStack], pid: int) -> ThreadStack | None:
    for t in threads:
        if t.pid == pid and t.tid == pid:
            return t
    return next((t for t in threads if t.pid == pid and t.name == "MainThread"), None)


class StackError(Exception):
    """A dump that could not be taken; ``kind`` is missing, denied, gone, timeout, native or failed."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def find_tool(configured: str | None) -> str | None:
    """The py-spy executable: the configured path (or name on PATH), else ``py-spy`` on PATH,
    else beside this Python (a virtual environment's ``bin``)."""
    if configured:
        if os.sep in configured:
            return configured if os.access(configured, os.X_OK) and Path(configured).is_file() else None
        return shutil.which(configured)
    found = shutil.which(TOOL)
    if found:
        return found
    beside = Path(sys.executable).parent / TOOL
    return str(beside) if os.access(beside, os.X_OK) else None


def _error_kind(text: str) -> str:
    low = text.lower()
    if "permission denied" in low or "operation not permitted" in low or "os error 1)" in low \
            or "elevated permissions" in low:
        return "denied"
    if "native" in low and ("not supported" in low or "unsupported" in low):
        return "native"
    if "no such process" in low or "no such file" in low or "check that the process is running" in low:
        return "gone"
    return "failed"


def dump(tool: str, pid: int, *, native: bool, timeout_s: float, subprocesses: bool = False) -> list[ThreadStack]:
    """``py-spy dump --pid PID --json [--native] [--subprocesses]``. Raises StackError."""
    argv = [tool, "dump", "--pid", str(pid), "--json"]
    if native:
        argv.append("--native")
    if subprocesses:
        argv.append("--subprocesses")
    try:
        proc = subprocess.run(argv, capture_output=True, timeout=timeout_s, stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired:
        raise StackError("timeout", f"py-spy took longer than {timeout_s:g} s on pid {pid}") from None
    except FileNotFoundError:
        raise StackError("missing", f"{tool} not found") from None
    except OSError as exc:
        raise StackError("failed", f"cannot run {tool}: {exc}") from None
    err = proc.stderr.decode("utf-8", "replace").strip()
    if proc.returncode != 0:
        first = next((ln for ln in err.splitlines() if ln.strip() and not ln.startswith(" ")), err[:200])
        detail = " / ".join(ln.strip() for ln in err.splitlines()[:6] if ln.strip() and "backtrace" not in ln.lower())
        raise StackError(_error_kind(err), f"py-spy exited with {proc.returncode} on pid {pid}: {detail or first}")
    if len(proc.stdout) > MAX_OUTPUT_BYTES:
        raise StackError("failed", f"py-spy output for pid {pid} is larger than {MAX_OUTPUT_BYTES} bytes")
    try:
        return parse_dump(json.loads(proc.stdout))
    except ValueError as exc:
        raise StackError("failed", f"unreadable py-spy output for pid {pid}: {exc}") from None


# --- where a thread is ------------------------------------------------------------------

_DL_PY = ("torch/utils/data/", "/torchdata/", "/webdataset/", "-packages/datasets/", "/nvidia/dali/",
          "-packages/streaming/")
_COLL_PY = ("torch/distributed/distributed_c10d.py", "torch/distributed/_functional_collectives.py")
_COLL_NATIVE = re.compile(r"^(c10d::|gloo::|nccl[A-Z]|ncclKernel)|::nccl|ProcessGroup(Gloo|NCCL|MPI|UCC)")
_REDUCER = re.compile(r"c10d::Reducer::(\w+)")
_CKPT_PY = ("torch/serialization.py", "torch/distributed/checkpoint/", "/safetensors/")
_IO_NATIVE = re.compile(r"^(_io_FileIO_|_io__Buffered|_io_TextIOWrapper_write|os_fsync|os_fdatasync|os_write|"
                        r"os_pwrite|fsync$|fdatasync$|__libc_fsync)|PyTorchStream(Writer|Reader)")
_CUDA_NATIVE = re.compile(r"^(cuda(Stream|Device|Event)Synchronize|cu(Stream|Ctx|Event)Synchronize|cudaMemcpy$|"
                          r"cuMemcpyDtoH(_v2)?$)")
_CUDA_PY = (("torch/cuda/__init__.py", "synchronize"), ("torch/cuda/streams.py", "synchronize"))
_SLEEP_NATIVE = re.compile(r"^(time_sleep|pysleep|clock_nanosleep|__clock_nanosleep\w*|nanosleep|__nanosleep|usleep)$")
_LOCK_NATIVE = re.compile(r"acquire_lock|PyThread_acquire_lock|acquire_timed|rlock_acquire|^sem_(clock|timed)?wait|"
                          r"pthread_mutex_lock|pthread_cond_(timed|clock)?wait|do_futex_wait|futex_wait|"
                          r"__lll_lock_wait|^take_gil$")
_LOCK_PY = {"threading.py": ("wait", "acquire", "join", "_wait_for_tstate_lock"),
            "queue.py": ("get", "put", "join"), "multiprocessing/queues.py": ("get", "put", "join"),
            "multiprocessing/synchronize.py": ("acquire", "wait"), "concurrent/futures/_base.py": ("result", "wait")}
_STDLIB = re.compile(r"/lib/python3\.\d+/(?!site-packages/|dist-packages/)|^<frozen |^<string>")
_SITE = ("/site-packages/", "/dist-packages/")
_HEX = re.compile(r"^0x[0-9a-f]+$")
_SOURCE_SLEEP = re.compile(r"\bsleep\s*\(")
_SOURCE_LOCK = re.compile(r"\.acquire\s*\(|\.wait\s*\(|\.join\s*\(|\bwith\b[^:#]*(lock|mutex|cond|sem)", re.I)


def _is_user(f: Frame) -> bool:
    return not f.native and not _STDLIB.search(f.path) and not any(s in f.path for s in _SITE)


def user_frame(frames: Sequence[Frame]) -> Frame | None:
    """The innermost frame of the program itself (not the standard library nor site-packages),
    else the innermost Python frame outside the standard library, else the innermost Python frame."""
    py = [f for f in frames if not f.native]
    return (next((f for f in py if _is_user(f)), None) or next((f for f in py if not _STDLIB.search(f.path)), None)
            or (py[0] if py else None))


def _method(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def _stdlib_tail(f: Frame) -> str | None:
    """``threading.py`` or ``multiprocessing/queues.py`` for a standard-library frame."""
    m = _STDLIB.search(f.path)
    if m is None or not m.group(0).startswith("/lib/"):
        return None
    return f.path[m.end():]


def _native_name(name: str) -> str:
    """``c10d::ProcessGroupGloo::AsyncWork::wait(...)`` -> without the argument list."""
    depth, out = 0, []
    for ch in name:
        if ch in "(<":
            depth += 1
        elif ch in ")>" and depth:
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out).strip() or name


@dataclass(frozen=True, slots=True)
class Where:
    """Where one main thread is."""

    place: Place
    label: str  # the call it is in: "all_reduce", "time.sleep", "the DataLoader", "torch.save"
    frame: Frame | None = None  # the innermost user frame
    source: str | None = None  # that frame's source line, when readable
    note: str | None = None  # more detail: the native frame, the data loader's workers
    excerpt: tuple[str, ...] = ()  # the stack, innermost first, as "name (file:line)"
    native: bool = False  # native frames were collected

    def describe(self) -> str:
        text = self.label
        if self.frame is not None:
            text += f" at {self.frame.where}"
            if self.source:
                text += f" (`{self.source}`)"
        if self.note:
            text += f" [{self.note}]"
        return text

    def signature(self) -> str:
        """What peers at the same place share (also exported as the rank's wait state)."""
        text = f"{self.place}: {self.label}" + (f" at {self.frame.where}" if self.frame is not None else "")
        return text[:SIGNATURE_CHARS]


def _excerpt(frames: Iterable[Frame], limit: int = EXCERPT_FRAMES) -> tuple[str, ...]:
    """The stack as ``name (file:line)``, innermost first: the three innermost frames, then the
    frames that say more than plumbing (not the standard library, libc or libpython)."""
    out: list[str] = []
    for f in frames:
        if _HEX.match(f.name):
            continue
        plumbing = (not f.native and _STDLIB.search(f.path) is not None) or \
            (f.native and (f.short.startswith(("libc.", "libpython", "libstdc++")) or f.short.endswith(".c")
                           or f.short.endswith(".h")))
        if len(out) >= 3 and plumbing:
            continue
        out.append(f"{_native_name(f.name) if f.native else f.name} ({f.where})")
        if len(out) >= limit:
            break
    return tuple(out)


def _specific(frames: Sequence[Frame], loader_worker: bool = False) -> tuple[Place, str, str | None] | None:
    """A data loader, collective, checkpoint I/O or CUDA synchronisation anywhere on the stack
    (a data loader's worker process is in the data loader by definition: what matters is below)."""
    for f in frames:
        if not loader_worker and not f.native and any(p in f.path for p in _DL_PY):
            if any("_MultiProcessingDataLoaderIter" in g.name for g in frames):
                return Place.DATA_LOADER, "the DataLoader", "waiting for a batch from its worker processes"
            fetch = next((g for g in frames if not g.native and "__getitem__" in g.name), None)
            note = f"fetching a batch in the main process: {fetch.text()}" if fetch else "fetching a batch"
            return Place.DATA_LOADER, "the DataLoader", note
    py_coll = next((f for f in frames if not f.native and f.path.endswith(_COLL_PY)), None)
    native_coll = next((f for f in frames if f.native and _COLL_NATIVE.search(f.name)), None)
    if py_coll is not None or native_coll is not None:
        reducer = next((m for f in frames if f.native and (m := _REDUCER.search(f.name))), None)
        coll_note = _native_name(native_coll.name) if native_coll is not None else None
        if py_coll is not None:
            return Place.COLLECTIVE, _method(py_coll.name), coll_note
        if reducer is not None:
            return Place.COLLECTIVE, "all_reduce", f"DDP gradient sync: c10d::Reducer::{reducer.group(1)}"
        return Place.COLLECTIVE, coll_note or "a collective", None
    for f in frames:
        if not f.native and any(p in f.path for p in _CKPT_PY):
            what = _method(f.name).lstrip("_")
            if "torch/serialization.py" in f.path and what in ("save", "load"):
                return Place.CHECKPOINT_IO, f"torch.{what}", None
            if "torch/distributed/checkpoint/" in f.path:
                return Place.CHECKPOINT_IO, "torch.distributed.checkpoint", f.text()
            return Place.CHECKPOINT_IO, "checkpoint I/O", f.text()
    io = next((f for f in frames if f.native and _IO_NATIVE.search(f.name)), None)
    if io is not None:
        return Place.CHECKPOINT_IO, "file I/O", _native_name(io.name)
    for f in frames:
        if f.native and _CUDA_NATIVE.search(f.name):
            return Place.CUDA_SYNC, _native_name(f.name), None
        if not f.native and any(f.path.endswith(p) and _method(f.name) == m for p, m in _CUDA_PY):
            return Place.CUDA_SYNC, "torch.cuda.synchronize", None
    inner = next((f for f in frames if not f.native), None)
    if inner is not None and "torch/autograd/" in inner.path and "backward" in inner.name \
            and not any(f.native for f in frames):
        # Python frames only: in the autograd engine, where DDP all-reduces the gradients
        return Place.COLLECTIVE, "backward", "autograd engine: DDP's gradient all_reduce runs here"
    return None


def classify(frames: Sequence[Frame], *, native: bool, active: bool = False, source: str | None = None,
             wchan: str | None = None, loader_worker: bool = False) -> Where:
    """Where a main thread (``frames`` innermost first) is. ``source`` is the innermost user
    frame's source line and ``wchan`` the kernel wait channel, used when native frames are missing."""
    excerpt = _excerpt(frames)
    frame = user_frame(frames)
    if not frames:
        return Where(Place.UNKNOWN, "no Python frames", None, None, wchan, excerpt, native)
    found = _specific(frames, loader_worker)
    if found is not None:
        place, label, note = found
        return Where(place, label, frame, source, note, excerpt, native)
    first_py = next((i for i, f in enumerate(frames) if not f.native), len(frames))
    above = frames[:first_py]  # native frames called by the innermost Python frame
    if any(_SLEEP_NATIVE.match(f.name) for f in above):
        return Where(Place.SLEEP, "time.sleep", frame, source, None, excerpt, native)
    lock = next((f for f in above if _LOCK_NATIVE.search(f.name)), None)
    if lock is not None:
        label = "the GIL" if lock.name == "take_gil" else "a lock"
        py = frames[first_py] if first_py < len(frames) else None
        tail = _stdlib_tail(py) if py is not None else None
        if py is not None and tail in _LOCK_PY and _method(py.name) in _LOCK_PY[tail]:
            label = f"{tail.removesuffix('.py').replace('/', '.')}.{py.name}"
        elif label == "a lock":
            label = "Lock.acquire"
        return Where(Place.LOCK, label, frame, source, _native_name(lock.name), excerpt, native)
    for f in frames:  # Python-level waits in the standard library
        if f.native:
            continue
        tail = _stdlib_tail(f)
        if tail in _LOCK_PY and _method(f.name) in _LOCK_PY[tail]:
            return Where(Place.LOCK, f"{tail.removesuffix('.py').replace('/', '.')}.{f.name}", frame, source,
                         None, excerpt, native)
        if tail is None:
            break  # only the standard-library frames innermost count
    if not native:
        if (source and _SOURCE_SLEEP.search(source)) or (wchan and "nanosleep" in wchan):
            return Where(Place.SLEEP, "time.sleep" if source and "sleep" in source else "a sleep", frame, source,
                         wchan, excerpt, native)
        if source and _SOURCE_LOCK.search(source):
            return Where(Place.LOCK, "Lock.acquire", frame, source, wchan, excerpt, native)
        if wchan and "futex" in wchan and not active:
            return Where(Place.LOCK, "a lock or condition (futex wait)", frame, source, wchan, excerpt, native)
    label = "running" if active else "waiting"
    if frame is not None:
        label += f" in {frame.name}"
    return Where(Place.USER_CODE, label, frame, source, None if active else wchan, excerpt, native)


# --- who is not where the others are ----------------------------------------------------


def ranks_text(ranks: Iterable[int]) -> str:
    """0, 1, 2, 5 -> "0-2, 5"."""
    items = sorted(set(ranks))
    parts: list[str] = []
    i = 0
    while i < len(items):
        j = i
        while j + 1 < len(items) and items[j + 1] == items[j] + 1:
            j += 1
        parts.append(str(items[i]) if i == j else f"{items[i]}-{items[j]}" if j > i + 1 else f"{items[i]}, {items[j]}")
        i = j + 1
    return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class Verdict:
    rank: int
    where: Where
    cause: Cause
    reason: str


def _majority_odd(signatures: Mapping[int, str]) -> list[int]:
    n = len(signatures)
    if n < 3:
        return []
    common, count = Counter(signatures.values()).most_common(1)[0]
    if count < 2 or count * 2 <= n:
        return []
    odd = sorted(r for r, s in signatures.items() if s != common)
    return odd if odd and len(odd) <= max(1, n // 4) else []


def compare(wheres: Mapping[int, Where]) -> list[Verdict]:
    """The ranks that are not where their peers are, each with the reason (quoting frames)."""
    n = len(wheres)
    if n < 2:
        return []
    in_coll = {r for r, w in wheres.items() if w.place is Place.COLLECTIVE}
    sigs = {r: w.signature() for r, w in wheres.items()}
    if in_coll and len(in_coll) < n:
        odd = sorted(set(wheres) - in_coll)
        if len(odd) * 2 > n:
            return []  # most ranks are elsewhere: not one rank's doing
        peers = sorted(in_coll)
        mismatch = False
    else:
        odd = _majority_odd(sigs)
        if not odd:
            return []
        peers = sorted(set(wheres) - set(odd))
        mismatch = bool(in_coll)
    common_sig = Counter(sigs[r] for r in peers).most_common(1)[0][0]
    common = next(wheres[r] for r in peers if sigs[r] == common_sig)
    others = ranks_text(peers)
    verb = "waits" if len(peers) == 1 else "wait"
    out = []
    for r in odd:
        w = wheres[r]
        cause = Cause.COLLECTIVE_MISMATCH if mismatch else cause_of(w.place)
        what = PLACE_WORDS[w.place]
        reason = (f"its main thread is in {w.describe()} ({what}) while rank{'s' if len(peers) > 1 else ''} "
                  f"{others} {verb} in {common.describe()}")
        if w.excerpt:
            reason += "; stack, innermost first: " + " < ".join(w.excerpt[:EVIDENCE_FRAMES])
        out.append(Verdict(r, w, cause, reason))
    return out


# --- the sampler ------------------------------------------------------------------------


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
