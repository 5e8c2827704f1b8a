"""Recognising Flight Recorder dump files (by name, and by their first bytes) and reading them:
size-capped, never through a link, decoded safely (:mod:`.decode`) and checked field by field
(:mod:`.schema`)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from detector.sources.flight_recorder.decode import load_json, safe_unpickle
from detector.sources.flight_recorder.dump import (
    MAX_DUMP_BYTES,
    MAX_ENTRIES,
    MAX_RANK,
    DumpFormat,
    FrDump,
    FrDumpError,
)
from detector.sources.flight_recorder.names import rank_from_dump_name
from detector.sources.flight_recorder.schema import build_dump


def read_dump(
    path: Path | str,
    *,
    rank: int | None = None,
    display: str | None = None,
    max_bytes: int = MAX_DUMP_BYTES,
    max_entries: int = MAX_ENTRIES,
) -> FrDump:
    """Read one dump safely. ``rank`` defaults to the number the file name ends with;
    ``display`` (default: the path) is how errors, :attr:`FrDump.path` and the findings' ``file``
    name it (run discovery passes the run-relative name).

    Raises :class:`FrDumpError` (an :class:`~detector.errors.InputError`) for anything that is
    not a readable dump: too big, truncated, not a dump, a pickle that would import or call
    anything, fields of the wrong type, more than ``max_entries`` entries."""
    path = Path(path)
    where = display if display is not None else str(path)
    if rank is None:
        rank = rank_from_dump_name(path.name)
        if rank is None:
            raise FrDumpError(where, "the file name does not end with a rank number (torch writes <prefix><rank>)")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise FrDumpError(where, f"cannot open: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise FrDumpError(where, "not a regular file")
        if st.st_size > max_bytes:
            raise FrDumpError(where, f"{st.st_size} bytes is over the {max_bytes}-byte limit for a Flight Recorder dump")
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(max_bytes + 1)
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise FrDumpError(where, f"over the {max_bytes}-byte limit for a Flight Recorder dump (the file grew)")
    return parse_dump(data, where=where, rank=rank, max_entries=max_entries)


def read_dumps(paths: Iterable[Path | str], **kwargs: Any) -> tuple[list[FrDump], list[str]]:
    """Every readable dump of ``paths``, and one warning per file that is not (never raises
    :class:`FrDumpError`)."""
    dumps: list[FrDump] = []
    warnings: list[str] = []
    for p in paths:
        try:
            dumps.append(read_dump(p, **kwargs))
        except FrDumpError as exc:
            warnings.append(f"Flight Recorder dump skipped: {exc}")
    return dumps, warnings


def parse_dump(data: bytes, *, where: str, rank: int, max_entries: int = MAX_ENTRIES) -> FrDump:
    """A dump from its bytes (pickle or JSON, told apart by the first bytes)."""
    if not 0 <= rank < MAX_RANK:
        raise FrDumpError(where, f"rank {rank} is out of range")
    if len(data) < 2:
        raise FrDumpError(where, "empty or truncated file")
    fmt: DumpFormat
    if data[0] == 0x80:
        fmt = "pickle"
        raw = safe_unpickle(data, where)
    elif data.lstrip()[:1] == b"{":
        fmt = "json"
        raw = load_json(data, where)
    else:
        raise FrDumpError(where, "not a Flight Recorder dump (neither a pickle nor a JSON object)")
    return build_dump(raw, where=where, rank=rank, fmt=fmt, max_entries=max_entries)
