"""The compiled rule set, cached between runs: compiling ~180 rules (YAML, schema, pattern
checks, examples, hyperscan's database) takes about a second; loading them back, milliseconds.

The cache is rankdoctor's own file, ``rules-<key>.pickle`` in ``$RANKDOCTOR_CACHE_DIR``, else
``$XDG_CACHE_HOME/rankdoctor``, else ``~/.cache/rankdoctor``. The key is a hash of everything
the compiled set depends on: the bytes of every rule file read (shipped and the user's, in
order), the engine asked for, the source of the rule compiler itself (``detector/rules/*.py``
and ``detector/types.py``: another version of rankdoctor that changes them has another key),
Python's version and which versions of hyperscan and google-re2 are installed. An entry is
written only after the files were loaded and checked in full (schema, patterns, examples and
counterexamples), so a start from the cache checks nothing again; a rule file that changes
changes the key and is checked then.

The file is written atomically (a temporary file renamed into place), readable by its owner
only; it is not used when the directory or the file is writable by others or owned by another
user, and it is ignored (and written again) when it cannot be read or unpickled or does not
hold the rule set of its key. ``RANKDOCTOR_NO_CACHE=1`` turns it off. At most
:data:`KEEP_ENTRIES` entries are kept (the most recently used).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import stat
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from detector.errors import InputError
from detector.rules.engine import RuleSet
from detector.support.userfile import read_user_file

FORMAT = 1
KEEP_ENTRIES = 16
RULE_FILE_BYTES = 4 << 20  # support.yamlfile.MAX_BYTES (not imported: a start from the cache loads no YAML reader)
CACHE_DIR_ENV = "RANKDOCTOR_CACHE_DIR"
NO_CACHE_ENV = "RANKDOCTOR_NO_CACHE"
_CODE = (*sorted(Path(__file__).resolve().parent.glob("*.py")), Path(__file__).resolve().parents[1] / "types.py")


def cache_dir() -> Path | None:
    """Where the cache lives; None when it is turned off."""
    if os.environ.get(NO_CACHE_ENV, "").strip() not in ("", "0"):
        return None
    chosen = os.environ.get(CACHE_DIR_ENV, "").strip()
    if chosen:
        return Path(chosen)
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "rankdoctor"
    try:
        home = Path.home()
    except (RuntimeError, KeyError, OSError):  # no HOME and a user id with no password entry (a container's --user)
        return None
    return home / ".cache" / "rankdoctor"


def _versions() -> str:
    """The engines this process would build with (as the RuleSet would find them) and their
    versions."""
    from detector.rules import scanners

    found = [f"hyperscan={scanners._hyperscan_available()}", f"re2={scanners._re2() is not None}"]
    for name in ("hyperscan", "re2"):
        module = sys.modules.get(name)
        found.append(f"{name}:{getattr(module, '__version__', '?') if module is not None else '-'}")
    return ",".join(found)


def cache_key(layers: Sequence[Sequence[Path]], engine: str) -> str | None:
    """The key of the rule set compiled from these files (each layer: the shipped files, then each
    user path's); None when a file cannot be read (loading will say why)."""
    h = hashlib.sha256()
    h.update(f"rankdoctor-rules/{FORMAT}\0{engine}\0{sys.version}\0{_versions()}\0".encode())
    try:
        for path in _CODE:
            h.update(path.read_bytes())
            h.update(b"\0code\0")
        for layer in layers:
            h.update(b"\0layer\0")
            for path in layer:
                # bounded, regular files only (a device never ends), a pipe read once: as the loader reads them
                data = read_user_file(path, RULE_FILE_BYTES)
                h.update(f"{path}\0{len(data)}\0".encode())
                h.update(data)
    except (OSError, InputError):
        return None
    return h.hexdigest()[:40]


def _private(st: os.stat_result) -> bool:
    """Owned by this user and writable by no one else."""
    getuid = getattr(os, "getuid", None)
    return (getuid is None or st.st_uid == getuid()) and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def load(key: str, where: Path | None = None) -> RuleSet | None:
    """The cached rule set of ``key``, or None (absent, unsafe or unreadable)."""
    where = where if where is not None else cache_dir()
    if where is None:
        return None
    path = where / f"rules-{key}.pickle"
    try:
        if not _private(os.stat(where)):
            return None
        with open(path, "rb") as fh:
            st = os.fstat(fh.fileno())
            if not stat.S_ISREG(st.st_mode) or not _private(st):
                return None
            data = fh.read()
        stored: Any = pickle.loads(data)
    except FileNotFoundError:
        return None
    except Exception:  # unreadable, truncated, from code that no longer unpickles: rebuilt
        return None
    if not (isinstance(stored, tuple) and len(stored) == 3 and stored[0] == FORMAT and stored[1] == key
            and isinstance(stored[2], RuleSet)):
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # most recently used: kept when the cache is pruned
    return stored[2]


def store(key: str, ruleset: RuleSet, where: Path | None = None) -> bool:
    """Write the entry of ``key`` (atomically); False when the cache cannot be written."""
    where = where if where is not None else cache_dir()
    if where is None:
        return False
    try:
        data = pickle.dumps((FORMAT, key, ruleset), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # something in the set does not pickle: no cache for it
        return False
    try:
        where.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not _private(os.stat(where)):
            return False
        fd, tmp = tempfile.mkstemp(prefix=".rules-", suffix=".tmp", dir=where)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, where / f"rules-{key}.pickle")
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        _prune(where)
    except OSError:
        return False
    return True


def _prune(where: Path) -> None:
    entries = []
    for path in where.glob("rules-*.pickle"):
        try:
            entries.append((path.stat().st_mtime, path))
        except OSError:
            continue
    entries.sort(reverse=True)
    for _, path in entries[KEEP_ENTRIES:]:
        with contextlib.suppress(OSError):
            path.unlink()
