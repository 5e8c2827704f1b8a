"""Files a user names whole (rule files, configurations, incident files), read with a bound.

A size check on ``st_size`` bounds a regular file only: a device says 0 and never ends
(``--rules /dev/zero``), and opening a FIFO waits for a writer that may never come. So a named
file must be a regular file, and at most ``limit + 1`` bytes of it are read whatever its size
said. The one exception is a pipe the shell hands over as a path (``--rules <(cat rules.yaml)``,
``/dev/fd/63``, or ``/dev/stdin``): it is read once, and its bytes are kept for the next reader
in this process (a pipe gives them only once; the rule cache's key and the loader both read a
rule file)."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from detector.errors import InputError

# a descriptor this process already holds, named as a path: process substitution, /dev/stdin
_INHERITED = re.compile(r"^/(?:dev/fd/\d{1,9}|proc/self/fd/\d{1,9}|dev/stdin)$")
# a handed-over pipe's bytes, by its path and identity (a later pipe on the same descriptor number
# is another): read once (see above)
_PIPES: dict[tuple[str, int, int], bytes] = {}


def kind_of(mode: int) -> str:
    """What a file that is not a regular file is, for a message."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def refused(path: Path) -> str | None:
    """Why the file ``path`` names is not read (``is a character device, not a regular file``),
    or None: a regular file, a folder, a pipe handed over as a path, or nothing (whoever reads it
    says that it does not exist)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode) or (stat.S_ISFIFO(mode) and _INHERITED.match(str(path))):
        return None
    return f"is {kind_of(mode)}, not a regular file"


def _size_text(limit: int) -> str:
    return f"{limit >> 20} MiB" if limit >= 1 << 20 and not limit % (1 << 20) else f"{limit} bytes"


def read_user_file(path: Path, limit: int) -> bytes:
    """The bytes of the file ``path``, at most ``limit`` of them. Raises :class:`InputError` (its
    ``detail`` says why) when it is not a regular file (nor a pipe handed over as a path), is
    larger than ``limit`` or cannot be read."""
    name = str(path)
    try:
        st = os.stat(path)
    except OSError as exc:
        raise InputError(name, f"cannot read: {exc.strerror or exc}") from None
    handed_over = stat.S_ISFIFO(st.st_mode) and _INHERITED.match(name) is not None
    key = (name, st.st_dev, st.st_ino)
    if handed_over and key in _PIPES:
        return _PIPES[key]
    if not stat.S_ISREG(st.st_mode) and not handed_over:
        raise InputError(name, f"is {kind_of(st.st_mode)}, not a regular file")
    if not handed_over and st.st_size > limit:
        raise InputError(name, f"larger than {_size_text(limit)}")
    try:
        # O_NONBLOCK: a file swapped for a FIFO since the check opens at once (and is refused
        # below) instead of waiting for a writer; it changes nothing for a regular file
        fd = os.open(path, os.O_RDONLY | (0 if handed_over else getattr(os, "O_NONBLOCK", 0)))
        with os.fdopen(fd, "rb") as fh:
            mode = os.fstat(fh.fileno()).st_mode
            if not stat.S_ISREG(mode) and not handed_over:
                raise InputError(name, f"is {kind_of(mode)}, not a regular file")
            data = fh.read(limit + 1)
    except OSError as exc:
        raise InputError(name, f"cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise InputError(name, f"larger than {_size_text(limit)}")
    if handed_over:
        _PIPES[key] = data
    return data
