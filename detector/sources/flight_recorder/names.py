"""Recognising Flight Recorder dump files by name and by their first bytes, and the size and
rank limits that recognition needs: kept apart from reading them (:mod:`.read`) so that run
discovery costs no import of the decoder and the analysis."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Literal

MAX_DUMP_BYTES = 32 * 1024 * 1024
"""Largest dump read. NCCL's default ring of 2,000 entries with stack frames is 1-5 MB."""
MAX_RANK = 1 << 20

DumpFormat = Literal["pickle", "json"]

FR_DUMP_NAME = re.compile(
    r"^(?:.*?[_.-])?(?:nccl|comm_lib|fr|flight_recorder|gloo|xccl|hccl|rccl)?[_-]?trace[_-]?(?:rank[_-]?)?"
    r"(\d{1,7})(?:\.(?:pkl|pickle|json|bin))?$",
    re.I,
)
"""File names torch (and people) give dumps: ``nccl_trace_rank_3``, ``comm_lib_trace_rank_3``,
``fr_trace_3.json``... (the default base names plus the rank; TORCH_FR_DUMP_TEMP_FILE may set
any other prefix, which :func:`looks_like_fr_dump` recognises by content)."""
_RANK_SUFFIX = re.compile(r"(\d{1,7})(?:\.(?:pkl|pickle|json|bin))?$", re.I)


def is_fr_dump_name(name: str) -> bool:
    """A file name torch gives Flight Recorder dumps (``comm_lib_trace_rank_3``, ...)."""
    return bool(FR_DUMP_NAME.match(name))


def rank_from_dump_name(name: str) -> int | None:
    """The rank a dump's file name ends with (torch writes ``<prefix><rank>``)."""
    m = _RANK_SUFFIX.search(name)
    if m is None:
        return None
    rank = int(m.group(1))
    return rank if rank < MAX_RANK else None


def _sniff(head: bytes) -> DumpFormat | None:
    if len(head) >= 2 and head[0] == 0x80 and 2 <= head[1] <= 5:
        window = head[:4096]
        if b"version" in window[:256] and (b"pg_config" in window or b"entries" in window or b"pg_status" in window):
            return "pickle"
        return None
    text = head.lstrip()
    if text[:1] == b"{" and b'"entries"' in text and any(
        k in text for k in (b'"pg_config"', b'"pg_status"', b'"comm_lib_version"', b'"collective_seq_id"')
    ):
        return "json"
    return None


def looks_like_fr_dump(path: Path) -> bool:
    """Whether ``path`` is a Flight Recorder dump: a regular file no larger than
    :data:`MAX_DUMP_BYTES` that starts like torch's dump (a protocol 2-5 pickle of a dict whose
    first key is ``version``, or a JSON object with ``entries`` and the dump's other keys).
    Reads at most 4 KiB; never raises. A name like ``comm_lib_trace_rank_3`` alone is not enough
    (see :func:`is_fr_dump_name` for that cheaper test)."""
    try:
        st = os.stat(path, follow_symlinks=False)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_DUMP_BYTES or st.st_size < 16:
            return False
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return _sniff(head) is not None
