"""Follow rank logs, the launcher's console and plain kernel-log files: directories (recursively)
and globs, through ``watchdog`` for files that appear, move or vanish, and a cheap poll of each
open file for new data.

watchdog is asked only for creation, move and deletion events (not modifications: a rank
printing 1,000 lines a second would wake the sidecar 1,000 times a second); new data is found
by checking each open file's size every ``poll_s``. A full rescan every ``rescan_s`` catches
anything the events missed. Files are classified as the replay engine classifies them
(:func:`detector.sources.runs.classify`: rank, local rank, node and attempt from the path).
"""

from __future__ import annotations

import contextlib
import dataclasses
import fnmatch
import os
import sqlite3
import stat
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from detector.sidecar.model import Chunk, ElasticErrorFile, Inbox, SourceState, SourceStatus
from detector.sidecar.sources.rotation import is_rotated_name
from detector.sidecar.sources.tailer import FileTailer
from detector.sidecar.state import SidecarStore
from detector.sources.runs import FileKind, LogFile, classify
from detector.support.walk import MAX_DEPTH, shortened, walk

GLOB_CHARS = frozenset("*?[")
SAVE_S = 1.0
# the longest the offsets wait while evidence read is not yet attributed (see LogFollower.poll)
HELD_SAVE_S = 120.0
STATE_READ_TRIES = 3  # rescans that try to read a file's saved offset before following it without


class _Spec:
    """One --logs argument: a directory, a file or a glob, and the folder to watch for it."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.is_glob = any(c in GLOB_CHARS for c in text)
        path = Path(text)
        self.recursive = True
        if self.is_glob:
            parts = path.parts
            fixed = [p for p in parts[: next(i for i, p in enumerate(parts) if any(c in GLOB_CHARS for c in p))]]
            self.base = Path(*fixed) if fixed else Path(".")
        elif path.is_file() or (not path.exists() and path.suffix):
            self.base = path.parent  # one file: its folder, not what lies below it
            self.recursive = False
        else:
            self.base = path

    def names(self, path: Path) -> bool:
        """Whether ``path`` is this argument itself (one file named by the operator), not a file
        found in a folder or by a glob."""
        return not self.is_glob and Path(self.text) == path

    def files(self, too_deep: Callable[[str], None] | None = None) -> list[Path]:
        """The files this argument names now; ``too_deep``: told of a folder whose subfolders
        lie deeper than :data:`~detector.support.walk.MAX_DEPTH` levels (not looked into)."""
        if self.is_glob:
            return self._glob(too_deep)
        path = Path(self.text)
        if path.is_file():
            return [path]
        out: list[Path] = []
        if path.is_dir():
            for dirpath, dirnames, filenames in walk(path, too_deep=too_deep):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
                out.extend(Path(dirpath) / f for f in sorted(filenames) if not f.startswith("."))
        return out

    def _glob(self, too_deep: Callable[[str], None] | None) -> list[Path]:
        """The regular files the glob names, found by the same walk as a folder's: links to
        folders are not followed (a ``latest -> .`` link would have a ``**`` pattern read each
        file again at every level, and a loop of links never end); ``*`` and ``?`` match within
        one name, ``**`` any number of folders, names starting with a dot only where the pattern's
        part does."""
        pattern = Path(self.text).parts[len(self.base.parts):]
        out: list[Path] = []
        if not self.base.is_dir():
            return out
        for dirpath, dirnames, filenames in walk(self.base, too_deep=too_deep):
            dirnames.sort()
            rel = Path(dirpath).relative_to(self.base).parts
            for name in sorted(filenames):
                path = Path(dirpath) / name
                if _glob_match(pattern, (*rel, name)) and path.is_file():
                    out.append(path)
        return out

    def watch_dir(self) -> tuple[Path, bool] | None:
        """The folder to watch and whether recursively (the nearest existing ancestor, flat)."""
        if self.base.is_dir():
            return self.base, self.recursive
        for parent in self.base.parents:
            if parent.is_dir():
                return parent, False
        return None


def files_named(spec: str) -> list[Path]:
    """The files one --logs argument (a folder, a file or a glob) names now, as the sidecar reads
    it: no link to a folder followed."""
    return _Spec(spec).files()


def _glob_match(pattern: tuple[str, ...], parts: tuple[str, ...]) -> bool:
    """Whether a path's parts (below the glob's fixed folder) match the glob's parts, as
    ``glob.glob(recursive=True)`` reads them ("**" alone: any number of folders)."""
    if not pattern:
        return not parts
    head = pattern[0]
    if head == "**":
        return any(_glob_match(pattern[1:], parts[i:]) for i in range(len(parts) + 1)
                   if all(not p.startswith(".") for p in parts[:i]))
    if not parts or (parts[0].startswith(".") and not head.startswith(".")):
        return False
    return fnmatch.fnmatchcase(parts[0], head) and _glob_match(pattern[1:], parts[1:])


DESCRIPTOR_RESERVE = 48  # descriptors the watch keeps for all but its followed files (state, output, sockets)


def _open_files_limit() -> int:
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (ImportError, OSError, ValueError):
        return 1 << 20
    return soft if soft != resource.RLIM_INFINITY and soft > 0 else 1 << 20


def _descriptor_budget() -> int:
    """How many followed files may hold a descriptor: the open-file limit less a reserve (a tenth
    of it, :data:`DESCRIPTOR_RESERVE` at least) for the rest of the watch."""
    limit = _open_files_limit()
    return max(1, limit - max(DESCRIPTOR_RESERVE, limit // 10))


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _observer_handler(changed: threading.Event, inbox_ref: list[Inbox]) -> Any:
    from watchdog.events import FileSystemEventHandler

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event: Any) -> None:
            changed.set()
            for inbox in inbox_ref:
                inbox.wake()

    return Handler()


def default_observer() -> Any:
    from watchdog.observers import Observer

    return Observer()


BEHIND_WARN = 64 << 20  # unread bytes of a followed file past which the sidecar says it is behind

class LogFollower:
    name = "logs"

    def __init__(
        self,
        specs: Sequence[str],
        *,
        node: str | None,
        store: SidecarStore,
        kernel_files: Sequence[Path] = (),
        kernel_from_start: bool = False,
        poll_s: float = 0.1,
        check_s: float = 1.0,
        rescan_s: float = 2.0,
        observer_factory: Callable[[], Any] | None = default_observer,
        name: str = "logs",
        warn: Callable[[str], None] = lambda _m: None,
    ) -> None:
        self.name = name
        self._specs = [_Spec(s) for s in specs]
        self._node = node
        self._store = store
        self._kernel = {str(p): p for p in kernel_files}
        self._kernel_from_start = kernel_from_start
        self._poll_s = poll_s
        self._check_s = check_s
        self._rescan_s = rescan_s
        self._observer_factory = observer_factory
        self._observer: Any = None
        self._watched: dict[str, bool] = {}
        self._watches: dict[str, Any] = {}
        self._changed = threading.Event()
        self._inbox: Inbox | None = None
        self._inbox_ref: list[Inbox] = []
        self._tailers: dict[str, tuple[FileTailer, LogFile]] = {}
        self._elastic: set[str] = set()
        self._started_with: set[str] = set()
        self._next_poll = 0.0
        self._next_check = 0.0
        self._next_rescan = 0.0
        self._links_refused: set[str] = set()  # links found in followed folders, warned about once
        self._refused: set[str] = set()  # not regular files, and folders too deep: warned about once
        self._next_save = 0.0
        # evidence was read from what the offsets would cover and is not attributed yet (settling,
        # held): a sidecar killed now would resume after it and lose it - saves wait (the caller
        # sets this after each attribution), up to HELD_SAVE_S
        self.evidence_pending = False
        # a followed file was left with bytes unread at the last poll (read at most MAX_READ a
        # look): the main loop then does not wait before the next one, which reads straight on
        self.more = False
        self._pending_since: float | None = None
        self._failing: set[str] = set()
        self._behind_said: set[str] = set()  # (files said to be far behind, once each)
        self._unread_state: dict[str, tuple[bool, int]] = {}  # offset unreadable: found at start-up, tries
        self._said_waiting = False  # (files left unopened for want of descriptors: said once)
        self._budget = _descriptor_budget()  # (followed files that may hold a descriptor at once)
        self._warn = warn

    # --- Source ---

    def start(self, inbox: Inbox) -> None:
        self._inbox = inbox
        self._inbox_ref.append(inbox)
        if self._observer_factory is not None:
            self._observer = self._observer_factory()
            try:
                self._ensure_watches()
                self._observer.start()
            except RecursionError:  # watchdog's inotify walks a watched tree with os.walk (recursive)
                self._without_observer()
        self._rescan(initial=True)

    def _without_observer(self) -> None:
        """Follow without file-system events: a followed folder is too deep for watchdog to watch
        (its inotify emitter walks the tree recursively); new files are found by the rescans."""
        self._warn(f"a followed folder is nested too deeply to watch for new files: they are found by the "
                   f"rescan every {self._rescan_s:g} s instead")
        observer, self._observer = self._observer, None
        self._watched.clear()
        self._watches.clear()
        with contextlib.suppress(Exception):  # (not started, or half started)
            observer.stop()
            observer.join(timeout=2.0)

    def poll(self, now: float) -> None:
        if not self.evidence_pending:
            self._pending_since = None
        elif self._pending_since is None:
            self._pending_since = now
        held = self._pending_since is not None and now - self._pending_since < HELD_SAVE_S
        if now >= self._next_save and not held:  # before reading: what was handed out before is processed
            self._next_save = now + SAVE_S
            self.save(now)
        changed = self._changed.is_set()
        if changed or now >= self._next_rescan:
            self._changed.clear()
            self._next_rescan = now + self._rescan_s
            try:
                self._ensure_watches()
            except RecursionError:  # a folder made too deep since the start (see start)
                self._without_observer()
            self._rescan()
        check = changed or now >= self._next_check
        if check:
            self._next_check = now + self._check_s
        if check or changed or now >= self._next_poll:
            self._next_poll = now + self._poll_s
            room = self._budget - sum(1 for tailer, _f in self._tailers.values() if tailer.is_open)
            waiting = 0
            more = False
            for tailer, f in list(self._tailers.values()):
                was_open = tailer.is_open
                if not was_open and room <= 0:
                    waiting += 1  # (the descriptors the rest of the watch needs: its state, its output)
                    continue
                read = self._read_one(tailer, f, now, check)
                more = more or (read and tailer.more)
                room -= tailer.is_open and not was_open
            self.more = more
            if more:
                self._next_poll = now  # (a file behind: read on at the next turn, not a poll later)
            if waiting and not self._said_waiting:
                self._said_waiting = True
                self._warn(f"{waiting} log files not followed: the open-file limit (ulimit -n "
                           f"{_open_files_limit()}) leaves no descriptor for them; raise it and restart the watch")

    def _read_one(self, tailer: FileTailer, f: LogFile, now: float, check: bool) -> bool:
        """One file; its I/O errors are reported and retried, the other files go on. Whether it
        was read (False: an I/O error)."""
        key = str(f.path)
        try:
            if check:
                self._hand_out(f, tailer.check_path(), now, tailer.line)
            self._hand_out(f, tailer.read(), now, tailer.line)
        except OSError as exc:  # keep the file open and its position: the next poll retries
            if key not in self._failing:
                self._failing.add(key)
                self._report(f, SourceState.DOWN, f"{f.display}: {exc.strerror or exc} (retrying)")
            return False
        if key in self._failing:
            self._failing.discard(key)
            self._report(f, SourceState.UP, "")
        if check and key not in self._behind_said and (lag := tailer.behind()) > BEHIND_WARN:
            # (a log written faster than the sidecar reads it: its incidents come late; said once)
            self._behind_said.add(key)
            self._warn(f"{f.display}: {lag >> 20} MiB behind the end of the file (written faster than it is read): "
                       "incidents from it come late")
        return True

    def _report(self, f: LogFile, state: SourceState, detail: str) -> None:
        """The kernel log is a source of its own; a rank log's trouble is a warning."""
        if self._inbox is None:
            return
        if f.kind is FileKind.KERNEL:
            self._inbox.put(SourceStatus("kernel", state, detail))
        elif state is SourceState.DOWN:
            self._warn(detail)

    def close(self) -> None:
        if self._observer is not None:
            with contextlib.suppress(Exception):  # a failing observer must not stop the shutdown
                self._observer.stop()
                self._observer.join(timeout=2.0)
            self._observer = None
        for tailer, _f in self._tailers.values():
            tailer.close()

    def save(self, now: float) -> None:
        """Hand the offsets to the store, which never raises for the database: what it cannot
        write now it keeps and writes later (the ``state`` source says so)."""
        offsets = [o for o in (t.offset() for t, _ in self._tailers.values()) if o is not None]
        self._store.save_offsets(offsets, now)

    @property
    def files(self) -> list[LogFile]:
        return [f for _, f in self._tailers.values()]

    # --- internals ---

    def _hand_out(self, f: LogFile, pieces: list[tuple[bytes, int]], now: float, next_line: int) -> None:
        key = str(f.path)
        backlog = key in self._started_with  # only what was there at start-up is backlog
        self._started_with.discard(key)
        if not pieces or self._inbox is None:
            return
        ends = [base for _, base in pieces[1:]] + [next_line]
        for (data, base_line), end in zip(pieces, ends, strict=True):
            self._inbox.put(Chunk(f, data, base_line, now, backlog=backlog, lines=end - base_line))

    def _ensure_watches(self) -> None:
        if self._observer is None:
            return
        from watchdog.events import (
            DirCreatedEvent,
            DirDeletedEvent,
            DirMovedEvent,
            FileCreatedEvent,
            FileDeletedEvent,
            FileMovedEvent,
        )

        wanted: dict[str, bool] = {}
        for spec in self._specs:
            target = spec.watch_dir()
            if target is not None:
                wanted[str(target[0])] = wanted.get(str(target[0]), False) or target[1]
        for path in self._kernel.values():
            wanted.setdefault(str(path.parent), False)
        recursive_roots = [f for f, r in wanted.items() if r]
        for folder, recursive in sorted(wanted.items()):
            if any(folder != root and folder.startswith(root.rstrip("/") + "/") for root in recursive_roots):
                continue  # already inside a recursive watch
            if folder in self._watched and (self._watched[folder] or not recursive):
                continue
            if folder in self._watches:
                self._observer.unschedule(self._watches.pop(folder))
            handler = _observer_handler(self._changed, self._inbox_ref)
            self._watches[folder] = self._observer.schedule(handler, folder, recursive=recursive, event_filter=[
                FileCreatedEvent, FileMovedEvent, FileDeletedEvent, DirCreatedEvent, DirMovedEvent, DirDeletedEvent])
            self._watched[folder] = recursive

    def _rescan(self, *, initial: bool = False) -> None:
        for key, path in self._kernel.items():
            if key not in self._tailers:
                f = LogFile(path, str(path), FileKind.KERNEL, node=self._node)
                self._follow(f, from_end=not self._kernel_from_start, initial=initial)
        for spec in self._specs:
            root = spec.base
            for path in spec.files(self._too_deep):
                key = str(path)
                if key in self._tailers or key in self._elastic or key in self._kernel:
                    continue
                if is_rotated_name(path.name):
                    continue
                if os.path.islink(path) and not spec.names(path):
                    # whoever writes the log folder could point a link anywhere: follow files
                    # found there, and links only when named on the command line
                    if key not in self._links_refused:
                        self._links_refused.add(key)
                        self._warn(f"{path}: a symbolic link found in a followed folder; not followed "
                                   "(name it with --logs to follow it)")
                    continue
                if not self._regular(path):
                    continue
                try:
                    found = classify(path, root) if path != root else classify(path, path.parent)
                except (OSError, ValueError):
                    continue
                if found is None:
                    continue
                f = dataclasses.replace(found, display=str(path), node=found.node or self._node)
                if f.kind is FileKind.ELASTIC_ERROR:
                    self._elastic.add(key)
                    if self._inbox is not None:
                        self._inbox.put(ElasticErrorFile(f))
                elif f.kind in (FileKind.RANK_LOG, FileKind.KERNEL):
                    # decided here, once: a file swapped for a link after the check above is refused
                    self._follow(f, from_end=False, initial=initial,
                                 allow_link=spec.names(path) and os.path.islink(path))

    def _too_deep(self, folder: str) -> None:
        if folder not in self._refused:
            self._refused.add(folder)
            self._warn(f"{shortened(folder)}: folders nested deeper than {MAX_DEPTH} levels, those below not followed")

    def _regular(self, path: Path) -> bool:
        """Whether ``path`` is a regular file (a link named with --logs: what it points to). A
        FIFO would stop the sidecar in its open() (and the signal that should stop it with it), a
        device never ends: refused with a warning, once, until a regular file takes the name."""
        key = str(path)
        try:
            regular = stat.S_ISREG(os.stat(path).st_mode)
        except OSError:
            return False  # gone since the listing, or a broken link: the next rescan sees
        if regular:
            self._refused.discard(key)
        elif key not in self._refused:
            self._refused.add(key)
            self._warn(f"{path}: not a regular file, skipped")
        return regular

    def _follow(self, f: LogFile, *, from_end: bool, initial: bool, allow_link: bool | None = None) -> None:
        key = str(f.path)
        was_initial, tries = self._unread_state.pop(key, (False, 0))
        initial = initial or was_initial
        try:
            saved = self._store.offset(key)
        except sqlite3.Error as exc:
            if tries + 1 < STATE_READ_TRIES:  # not followed yet: the next rescan tries again
                if not tries:
                    self._warn(f"{f.display}: cannot read its saved offset from the state database ({exc}); "
                               "retrying before following it")
                self._unread_state[key] = (initial, tries + 1)
                return
            self._warn(f"{f.display}: still cannot read its saved offset ({exc}); following it from its "
                       "start (what is there now as backlog): lines may be counted twice")
            saved, initial = None, True
        tailer = FileTailer(f.path, saved=saved, from_end=from_end, allow_link=allow_link)
        self._tailers[key] = (tailer, f)
        if initial and saved is None and not from_end and _size(f.path) > 0:
            self._started_with.add(key)  # its first read is what was there before us
