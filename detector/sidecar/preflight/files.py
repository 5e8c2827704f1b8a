"""Probes of the files a sidecar reads (log paths, globs and folders) and writes (its state
folders and files)."""

from __future__ import annotations

import os
import resource
from collections.abc import Iterator, Sequence
from pathlib import Path

from detector.sidecar.preflight.probe import Level, Probe
from detector.support.walk import walk

WALK_LIMIT = 20_000  # files looked at under one --logs folder


def _denied_fix(path: str) -> str:
    return (f"give the sidecar's user read access ('setfacl -R -m u:USER:rX {path}', or run it as the "
            "trainers' user or group); in a pod mount the log volume into the sidecar")


def probe_logs(spec: str) -> Probe:
    what = f"logs {spec}"
    if any(c in spec for c in "*?["):
        from detector.sidecar.sources.logs import files_named  # (the sidecar's own reading: no link followed)

        matches = [str(p) for p in files_named(spec)]
        if not matches:
            return Probe(Level.WARN, what, "no file matches yet (files that appear later are followed)",
                         "check the pattern if the trainers already write logs")
        return _files(what, matches, spec)
    path = Path(spec)
    if path.is_dir():
        if not os.access(path, os.R_OK | os.X_OK):
            return Probe(Level.FAIL, what, "folder not readable (permission denied)", _denied_fix(spec))
        return _files(what, list(_walk(path)), spec, folder=True)
    if path.exists():
        return _files(what, [str(path)], spec)
    parent = path.parent
    if parent.is_dir():
        return Probe(Level.WARN, what, "does not exist yet (followed once it appears)",
                     "check the path if the trainers already write logs")
    return Probe(Level.FAIL, what, f"neither it nor its folder {parent} exists",
                 "fix the path, or mount the trainers' log volume into the sidecar")


def _walk(root: Path) -> Iterator[str]:
    count = 0
    for dirpath, dirnames, filenames in walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            count += 1
            if count > WALK_LIMIT:
                return
            yield os.path.join(dirpath, name)


def _files(what: str, files: Sequence[str], spec: str, *, folder: bool = False) -> Probe:
    unreadable = [f for f in files if not os.access(f, os.R_OK)]
    readable = len(files) - len(unreadable)
    if unreadable and not readable:
        return Probe(Level.FAIL, what, f"{len(unreadable)} file(s), none readable (first: {unreadable[0]})",
                     _denied_fix(spec))
    if unreadable:
        return Probe(Level.WARN, what, f"{readable} readable, {len(unreadable)} not (first: {unreadable[0]})",
                     _denied_fix(spec))
    if folder and not files:
        return Probe(Level.OK, what, "folder readable, no files yet (new files are followed)")
    return Probe(Level.OK, what, f"{len(files)} file(s) readable")


def probe_writable(what: str, path: Path, *, is_file: bool = False) -> Probe:
    """A folder (or a file's folder) the sidecar will write: it, or the nearest existing
    ancestor it would be created in, must be writable."""
    target = path.parent if is_file else path
    if is_file and path.exists() and not path.is_file():
        kind = "a folder" if path.is_dir() else "not a regular file"
        return Probe(Level.FAIL, what, f"{path} is {kind}: nothing can be appended to it",
                     f"name a file (in a folder: {path / 'incidents.jsonl'})" if path.is_dir() else "name a regular file")
    existing = target
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        return Probe(Level.FAIL, what, f"{existing} is not a folder", f"point it at a folder ({path})")
    if not os.access(existing, os.W_OK | os.X_OK):
        return Probe(Level.FAIL, what, f"{existing} is not writable",
                     f"make {target} writable for the sidecar's user (in a pod: a volume at {target})")
    note = "writable" if existing == target else f"will be created in {existing}"
    return Probe(Level.OK, what, f"{path}: {note}")


OPEN_FILES_SPARE = 64  # descriptors the sidecar needs besides its followed files (state, sockets, rules)


def open_files_limit() -> int:
    """The open-file limit ``rankdoctor watch`` runs with: it raises its soft limit to the hard one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return hard if hard != resource.RLIM_INFINITY and hard > soft else soft


def probe_open_files(specs: Sequence[str]) -> Probe | None:
    """The files under the --logs arguments against the open-file limit: the sidecar keeps each
    followed file open (a rotated file is read to its end through its descriptor)."""
    count = 0
    for spec in specs:
        path = Path(spec)
        if any(c in spec for c in "*?["):
            from detector.sidecar.sources.logs import files_named

            count += len(files_named(spec))
        elif path.is_dir():
            count += sum(1 for _ in _walk(path))
        elif path.exists():
            count += 1
    limit = open_files_limit()
    if count + OPEN_FILES_SPARE <= limit:
        return None
    return Probe(Level.WARN, "open files", f"{count} log files against an open-file limit of {limit}",
                 "raise the limit ('ulimit -n' / LimitNOFILE= in a unit, a pod's runtime default), or point --logs at "
                 "fewer files (a glob of the ranks' current logs)")
