"""Where a rank's main thread is, from its stack, and which ranks are not where their peers are.

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
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from detector.sidecar.sources.pyspy import Frame
from detector.support.numbers import consecutive_runs
from detector.types import Cause

EXCERPT_FRAMES = 12
EVIDENCE_FRAMES = 8
SIGNATURE_CHARS = 160


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
    return ", ".join(str(a) if a == b else f"{a}-{b}" if b > a + 1 else f"{a}, {b}" for a, b in consecutive_runs(ranks))


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
