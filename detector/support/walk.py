"""A folder tree walked without recursion, to a bounded depth.

``os.walk`` recurses once per level (Python 3.11): a tree 1,000 folders deep, which anyone who
can write to a log folder can make, raises ``RecursionError`` and loses every file of the walk.
:func:`walk` yields what ``os.walk(top, topdown=True)`` yields, in the same order (pruning
through ``dirnames`` works the same), from a stack of its own, and does not go below
``max_depth`` levels under ``top``: ``too_deep`` is told the folder whose subfolders were left
out."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

MAX_DEPTH = 256  # levels of folders under the top walked; no layout of logs comes near it


def walk(
    top: str | os.PathLike[str],
    *,
    onerror: Callable[[OSError], None] | None = None,
    followlinks: bool = False,
    max_depth: int = MAX_DEPTH,
    too_deep: Callable[[str], None] | None = None,
) -> Iterator[tuple[str, list[str], list[str]]]:
    """(folder, its subfolders, its other entries) for ``top`` and each folder below it, top
    down; a folder that cannot be listed goes to ``onerror`` and is skipped."""
    stack: list[tuple[str, int]] = [(os.fspath(top), 0)]
    while stack:
        path, depth = stack.pop()
        try:
            with os.scandir(path) as it:
                entries = list(it)
        except OSError as exc:
            if onerror is not None:
                onerror(exc)
            continue
        dirs: list[str] = []
        others: list[str] = []
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            (dirs if is_dir else others).append(entry.name)
        yield path, dirs, others
        below = [os.path.join(path, d) for d in dirs]
        if not followlinks:
            below = [p for p in below if not os.path.islink(p)]
        if below and depth >= max_depth:
            if too_deep is not None:
                too_deep(path)
            continue
        stack.extend((p, depth + 1) for p in reversed(below))


def shortened(path: str, keep: int = 50) -> str:
    """A long path for a message: its first and last ``keep`` characters around an ellipsis."""
    return path if len(path) <= 2 * keep + 3 else f"{path[:keep]}...{path[-keep:]}"
