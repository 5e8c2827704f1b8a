"""Archives of logs a run's folder may hold (a node's logs collected as ``node07.tar.gz``, an
issue's ``logs.zip``): their files unpacked into a folder of this process's own, read as the
run's files under the archive's name (``node07.tar.gz/rank3/stdout.log``).

An archive is a file from outside: its members are written only below that folder (a name that
climbs out of it, ``../../etc/x``, or is absolute is read as a plain name inside it), only
regular files (no links, devices or FIFOs), at most :data:`MAX_MEMBERS` of them and
:data:`MAX_UNPACKED` bytes in all per replay (an archive bomb costs that much and no more); an
archive cut short (a copy interrupted, a disk that filled) gives the members it holds up to the
cut, with a note. Archives inside archives are not opened. The folder is removed when the
process exits."""

from __future__ import annotations

import atexit
import re
import shutil
import signal
import stat
import tarfile
import tempfile
import threading
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import IO

MAX_MEMBERS = 5_000  # files unpacked from the archives of one replay, at most
MAX_UNPACKED = 1 << 30  # bytes unpacked from them, at most
# bytes unpacked of any one member, at most: a 1 GB rank0.log of step lines does not use up the
# allowance before the rank3.log after it, which holds the failure
MAX_MEMBER = MAX_UNPACKED // 4
_CHUNK = 1 << 20
# members that are no log, not unpacked (a model's weights, images, data, code): they would only
# use up the allowance
_NOT_LOGS = re.compile(r"\.(?:pt|pth|bin|safetensors|ckpt|npy|npz|h5|hdf5|onnx|pkl|pickle|tfrecord|arrow|parquet"
                       r"|png|jpe?g|gif|svg|webp|pdf|mp4|wav|so|o|a|whl|egg|py|ipynb|md|rst|ya?ml|toml|cfg|ini|"
                       r"tar|tgz|zip|7z|zst|lz4|DS_Store)$", re.IGNORECASE)
ARCHIVE_NAME = re.compile(r"\.(?:tar(?:\.(?:gz|bz2|xz))?|tgz|tbz2?|txz|zip)$", re.IGNORECASE)


def is_archive_name(name: str) -> bool:
    """A tar archive (plain, gzip-, bzip2- or xz-compressed) or a zip archive, by its name."""
    return ARCHIVE_NAME.search(name) is not None


def stem(name: str) -> str:
    """The archive's name without its suffixes (``node07`` for ``node07.tar.gz``)."""
    return ARCHIVE_NAME.sub("", name) or name


class Budget:
    """What is left of one replay's allowance of unpacked files and bytes."""

    def __init__(self) -> None:
        self.members, self.size = MAX_MEMBERS, MAX_UNPACKED


_ROOTS: list[str] = []


def _cleanup() -> None:
    for root in _ROOTS:
        shutil.rmtree(root, ignore_errors=True)


def _on_sigterm(signum: int, _frame: object) -> None:
    _cleanup()
    raise SystemExit(128 + signum)


def scratch_folder() -> Path:
    """A new folder of this process's own for unpacked archives, removed when it exits (also on
    SIGTERM, where nothing else handles it: a timeout's or a scheduler's end)."""
    if not _ROOTS:
        atexit.register(_cleanup)
        if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
            signal.signal(signal.SIGTERM, _on_sigterm)
    root = tempfile.mkdtemp(prefix="rankdoctor-archive-")
    _ROOTS.append(root)
    return Path(root)


def _safe_parts(name: str) -> tuple[str, ...]:
    """A member's name as parts of a path below the folder: no root, no "..", no ".", Windows'
    separators read as separators; none for a member that is no log (:data:`_NOT_LOGS`) or a
    macOS archiver's metadata."""
    parts = PurePosixPath(name.replace("\\", "/")).parts
    parts = tuple(p for p in parts if p not in ("/", "", ".", "..") and not p.endswith(":"))
    if not parts or _NOT_LOGS.search(parts[-1]) or parts[0] == "__MACOSX" or parts[-1].startswith("._"):
        return ()
    return tuple(p[:200] for p in parts)


class _WriteError(Exception):
    """A member that could not be written below the folder (its cause: the OSError)."""


def _copy(src: IO[bytes], dest: Path, budget: Budget) -> bool:
    """``src`` written to ``dest`` up to what the budget allows; False when it was cut there.
    Raises _WriteError where the file cannot be made, OSError where ``src`` cannot be read."""
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        out = dest.open("wb")
    except OSError as exc:
        raise _WriteError(str(exc.strerror or exc)) from exc
    left = min(budget.size, MAX_MEMBER)  # (this member's share)
    with out:
        while True:
            chunk = src.read(min(_CHUNK, left + 1))
            if not chunk:
                return True
            if len(chunk) > left:
                out.write(chunk[:left])
                budget.size -= left
                return False
            out.write(chunk)
            budget.size -= len(chunk)
            left -= len(chunk)


def unpack(path: Path, dest: Path, budget: Budget) -> list[str]:
    """The regular files of the archive at ``path`` written below ``dest``; what went wrong or
    was left out, as notes (never raises for the archive's content)."""
    try:
        if path.name.lower().endswith(".zip"):
            return _unpack_zip(path, dest, budget)
        return _unpack_tar(path, dest, budget)
    except OSError as exc:
        return [f"cannot read it ({exc.strerror or exc})"]


def _members(tf: tarfile.TarFile, notes: list[str]) -> Iterator[tarfile.TarInfo]:
    try:
        yield from tf
    except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
        notes.append(f"the archive ends early or is damaged ({exc}): read up to there")


def _unpack_tar(path: Path, dest: Path, budget: Budget) -> list[str]:
    notes: list[str] = []
    try:
        tf = tarfile.open(path, mode="r:*")  # noqa: SIM115 (closed by the with below; opening may fail on its own)
    except (tarfile.TarError, EOFError, zlib.error) as exc:
        return [f"not a readable tar archive ({exc})"]
    with tf:
        for member in _members(tf, notes):
            if not member.isfile():
                continue  # (folders, links, devices: nothing to read)
            parts = _safe_parts(member.name)
            if not parts:
                continue
            if not _take_member(budget, notes):
                break
            try:
                src = tf.extractfile(member)
                if src is None:
                    continue
                with src:
                    whole = _copy(src, dest.joinpath(*parts), budget)
            except _WriteError as exc:  # (this member only: a name the folder cannot hold)
                notes.append(f"{member.name}: not unpacked ({exc})")
                continue
            except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
                notes.append(f"{member.name}: cut short ({type(exc).__name__}): read up to there")
                break
            if not whole:
                notes.append(_cut_note(member.name, budget))
                if budget.size <= 0:
                    break
    return notes


def _take_member(budget: Budget, notes: list[str]) -> bool:
    """Count one more member against ``budget``; False (and a note) when no more may be unpacked."""
    if budget.members <= 0 or budget.size <= 0:
        notes.append(f"more files than are unpacked in one replay ({MAX_MEMBERS:,} files, "
                     f"{MAX_UNPACKED >> 20} MiB): the rest left out")
        return False
    budget.members -= 1
    return True


def _cut_note(name: str, budget: Budget) -> str:
    if budget.size <= 0:
        return (f"{name}: cut at the {MAX_UNPACKED >> 20} MiB unpacked in one replay; the files after it "
                "are left out")
    return f"{name}: only its first {MAX_MEMBER >> 20} MiB read (the most of one file unpacked from an archive)"


def _unpack_zip(path: Path, dest: Path, budget: Budget) -> list[str]:
    notes: list[str] = []
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, zlib.error, ValueError, EOFError) as exc:
        return [f"not a readable zip archive ({exc}; a copy cut short loses its table of contents)"]
    with zf:
        for info in zf.infolist():
            if info.is_dir() or stat.S_ISLNK(info.external_attr >> 16):
                continue
            parts = _safe_parts(info.filename)
            if not parts:
                continue
            if not _take_member(budget, notes):
                break
            try:
                with zf.open(info) as src:
                    whole = _copy(src, dest.joinpath(*parts), budget)
            except RuntimeError as exc:  # (encrypted)
                notes.append(f"{info.filename}: not read ({exc})")
                continue
            except _WriteError as exc:
                notes.append(f"{info.filename}: not unpacked ({exc})")
                continue
            except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError) as exc:
                notes.append(f"{info.filename}: damaged ({exc}): read up to the damage")
                continue
            if not whole:
                notes.append(_cut_note(info.filename, budget))
                if budget.size <= 0:
                    break
    return notes
