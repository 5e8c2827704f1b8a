"""Find the files of a run and say what each one is (rank log, kernel log, torchelastic error
file, metrics) and which rank, node and attempt it belongs to, from its path."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path

from detector.errors import InputError


class FileKind(StrEnum):
    RANK_LOG = "rank_log"
    KERNEL = "kernel"
    ELASTIC_ERROR = "elastic_error"
    METRICS = "metrics"


@dataclass(frozen=True, slots=True)
class LogFile:
    path: Path
    display: str  # the path as shown in reports (relative to the run)
    kind: FileKind
    rank: int | None = None
    local_rank: int | None = None
    node: str | None = None
    attempt: int | None = None
    size: int = 0
    # (device, inode) of the file discovery vetted: a replay reads that file or nothing, so a
    # file swapped for a link (or anything else) between discovery and reading is skipped
    ident: tuple[int, int] | None = None


_ATTEMPT = re.compile(r"^attempt_(\d+)$")
_RANK_NAME = (
    re.compile(r"(?:^|[^a-z])rank[_-]?(\d{1,6})(?![\d])", re.I),
    re.compile(r"(?:^|[^a-z])(?:worker|proc|task)[_-]?(\d{1,6})(?![\d])", re.I),
    re.compile(r"-(\d{1,6})\.(?:out|err|log|txt)$", re.I),
    re.compile(r"^(\d{1,6})\.(?:out|err|log|txt)$", re.I),
)
_KERNEL_NAME = re.compile(r"(?:^|[._-])(?:dmesg|kmsg|kern|kernel|journal|journalctl|syslog|messages)(?:[._-]|$)", re.I)
_GENERIC_DIRS = {
    "logs", "log", "ranks", "output", "outputs", "out", "stdout", "stderr", "metrics", "kernel",
    "run", "runs", "dmesg", "data", "tmp", "console", "slurm", "job", "jobs", "torchrun", "attempts",
}
_SKIP_NAMES = {"expected.json"}  # scenario ground truth, not input
_TEXT_SUFFIXES = {".log", ".out", ".err", ".txt", ".stderr", ".stdout", ""}
_HOST = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")


def _rank_from_name(name: str) -> int | None:
    if name.startswith("slurm-"):  # slurm-<jobid>.out: the batch script's output, not a rank
        return None
    for pattern in _RANK_NAME:
        m = pattern.search(name)
        if m:
            return int(m.group(1))
    return None


def _node_from_dirs(parts: tuple[str, ...]) -> str | None:
    for part in reversed(parts):
        if part in _GENERIC_DIRS or part.isdigit() or _ATTEMPT.match(part) or not _HOST.match(part):
            continue
        return part
    return None


def _json_kind(path: Path) -> FileKind | None:
    try:
        with path.open("rb") as fh:
            head = fh.read(4096)
    except OSError:
        return None
    text = head.decode("utf-8", "replace")
    if '"resultType"' in text or ('"metric"' in text and '"value' in text):
        return FileKind.METRICS
    if path.name == "error.json" or '"extraInfo"' in text or '"py_callstack"' in text:
        return FileKind.ELASTIC_ERROR
    try:
        if path.stat().st_size < 4096:
            json.loads(text)
    except ValueError:
        return None
    return None


def _looks_like_kernel(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            head = fh.read(8192).decode("utf-8", "replace").splitlines()[:40]
    except OSError:
        return False
    if not head:
        return False
    hits = sum(
        1
        for line in head
        if re.match(r"\s*(?:\[\s*\d+\.\d+\]|\d+,\d+,\d+,[^;]*;|\w{3}\s+\d+ \d\d:\d\d:\d\d \S+ kernel:|\S+T\S+ \S+ kernel:)", line)
    )
    return hits >= max(2, len(head) // 2)


def classify(path: Path, root: Path) -> LogFile | None:
    """What ``path`` (inside ``root``) is, or None when it is not an input."""
    rel = path.relative_to(root) if path != root else Path(path.name)
    parts = rel.parts[:-1]
    name = path.name
    try:
        size = path.stat().st_size
    except OSError:
        size = 0
    display = str(rel)
    if name in _SKIP_NAMES or name.startswith("."):
        return None
    suffix = path.suffix.lower()
    attempt = None
    local = None
    node = None
    # torchrun --log-dir: <run_id>/attempt_N/<local_rank>/{stdout,stderr}.log|error.json
    if len(parts) >= 2 and _ATTEMPT.match(parts[-2]) and parts[-1].isdigit():
        attempt = int(_ATTEMPT.match(parts[-2]).group(1))  # type: ignore[union-attr]
        local = int(parts[-1])
        node = _node_from_dirs(parts[:-3])
        if name == "error.json":
            return LogFile(path, display, FileKind.ELASTIC_ERROR, None, local, node, attempt, size)
        if suffix in (".log", ".txt", ""):
            return LogFile(path, display, FileKind.RANK_LOG, None, local, node, attempt, size)
    if suffix in (".json",):
        kind = _json_kind(path)
        if kind is None:
            return None
        return LogFile(path, display, kind, None, None, _node_from_dirs(parts), None, size)
    if suffix == ".csv":
        return LogFile(path, display, FileKind.METRICS, None, None, _node_from_dirs(parts), None, size)
    if suffix not in _TEXT_SUFFIXES and not re.match(r"\.\d+$", suffix):
        return None
    node = _node_from_dirs(parts)
    if _KERNEL_NAME.search(name) or _looks_like_kernel(path):
        return LogFile(path, display, FileKind.KERNEL, None, None, node, None, size)
    return LogFile(path, display, FileKind.RANK_LOG, _rank_from_name(name), None, node, None, size)


def _vetted(item: LogFile) -> LogFile:
    try:
        st = item.path.stat()
    except OSError:
        return item  # gone already: reading it will say so
    return replace(item, ident=(st.st_dev, st.st_ino))


def discover(target: Path, *, follow_symlinks: bool = False) -> tuple[list[LogFile], list[str]]:
    """All input files of a run (a directory, or one file), and warnings for what was skipped.

    Symbolic links are not followed out of the run directory unless ``follow_symlinks``.
    Raises InputError when the path is missing or holds nothing to read.
    """
    if not os.path.lexists(target):
        raise InputError(str(target), "no such file or directory")
    warnings: list[str] = []
    if target.is_file():
        item = classify(target, target.parent)
        if item is None:
            item = LogFile(target, target.name, FileKind.RANK_LOG, _rank_from_name(target.name), size=target.stat().st_size)
        return [_vetted(item)], warnings
    if not target.is_dir():
        raise InputError(str(target), "not a regular file or directory")
    root = target.resolve()
    found: list[LogFile] = []
    for dirpath, dirnames, filenames in os.walk(target, followlinks=follow_symlinks, onerror=None):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for fname in sorted(filenames):
            path = Path(dirpath) / fname
            rel = path.relative_to(target)
            if path.is_symlink() and not follow_symlinks:
                try:
                    real = path.resolve(strict=True)
                except OSError:
                    warnings.append(f"{rel}: broken symbolic link, skipped")
                    continue
                if root not in real.parents:
                    warnings.append(f"{rel}: symbolic link out of the run directory, not followed (use --follow-symlinks)")
                    continue
            if not path.is_file():
                if not fname.startswith("."):
                    warnings.append(f"{rel}: not a regular file, skipped")
                continue
            if not os.access(path, os.R_OK):
                warnings.append(f"{rel}: not readable (permission denied), skipped")
                continue
            item = classify(path, target)
            if item is not None:
                found.append(_vetted(item))
    if not found:
        raise InputError(str(target), "no log files found (looked for *.log, *.out, *.err, *.txt, kernel logs, torchrun log dirs)")
    return found, warnings
