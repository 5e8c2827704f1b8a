"""The ``checkpoint`` hook: find the newest complete checkpoint to resume from.

Entries of ``dir`` whose names match ``pattern`` (a glob) are candidates, newest first by the
step number in the name (``step_regex``; its first group, else the whole match; the last match
in the name), then by modification time. An entry is complete when

- it is a directory holding the completion ``marker`` file (default ``COMPLETE``), or
- (``completion: size``, or a plain file) its size has stopped changing: unchanged for
  ``settle_s`` seconds (an old modification time shows that without waiting);

and readable (every file in it can be opened). Partial and unreadable entries newer than the one
chosen are skipped and reported. The checkpoint is handed to the resubmission
(``RANKDOCTOR_RESUME_FROM`` / ``RANKDOCTOR_RESUME_STEP``, or ``{checkpoint}`` in a template) and
its step is the baseline for verifying that the job resumed.
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass
from pathlib import Path

from detector.remediation.hooks.base import HookEnv
from detector.remediation.model import Action, Checkpoint, HookCall, HookResult, Status
from detector.support.clock import Clock
from detector.support.settings import Settings
from detector.support.walk import walk

MAX_FILES = 10_000


@dataclass(frozen=True, slots=True)
class CheckpointSearch:
    found: Checkpoint | None
    skipped: tuple[str, ...]


def step_of(name: str, step_re: re.Pattern[str]) -> int | None:
    matches = list(step_re.finditer(name))
    if not matches:
        return None
    last = matches[-1]
    text = last.group(1) if step_re.groups else last.group(0)
    return int(text) if text and text.isdigit() else None


class CheckpointFinder:
    def __init__(self, directory: Path, clock: Clock, *, pattern: str = "*",
                 step_regex: str = r"(\d+)", marker: str | None = "COMPLETE",
                 settle_s: float = 5.0) -> None:
        self.directory = directory
        self._clock = clock
        self._pattern = pattern
        self._step_re = re.compile(step_regex)
        self._marker = marker
        self._settle_s = settle_s

    def candidates(self) -> list[tuple[int | None, float, Path]]:
        out = []
        with os.scandir(self.directory) as entries:
            for entry in entries:
                if entry.name == self._marker or not fnmatch.fnmatchcase(entry.name,
                                                                          self._pattern):
                    continue
                try:
                    mtime = entry.stat().st_mtime
                except OSError:
                    mtime = 0.0
                out.append((step_of(entry.name, self._step_re), mtime, Path(entry.path)))
        out.sort(key=lambda c: (c[0] if c[0] is not None else -1, c[1]), reverse=True)
        return out

    def find(self) -> CheckpointSearch:
        try:
            candidates = self.candidates()
        except OSError as exc:
            return CheckpointSearch(None, (f"{self.directory}: cannot list: "
                                           f"{exc.strerror or exc}",))
        skipped: list[str] = []
        for step, _, path in candidates:
            problem = self.problem(path)
            if problem is None:
                return CheckpointSearch(Checkpoint(argv_path(path), step), tuple(skipped))
            skipped.append(f"{path}: {problem}")
        return CheckpointSearch(None, tuple(skipped))

    def problem(self, path: Path) -> str | None:
        """Why ``path`` is not a complete, readable checkpoint; None when it is."""
        try:
            files = _files(path)
        except OSError as exc:
            return f"unreadable ({exc.strerror or exc})"
        if path.is_dir() and self._marker is not None:
            if not (path / self._marker).is_file():
                return f"partial (no {self._marker} marker)"
        else:
            unsettled = self._unsettled(files)
            if unsettled is not None:
                return unsettled
        data = [f for f in files if f.name != self._marker]
        if not data:
            return "empty"
        for f in data:
            try:
                with f.open("rb") as handle:
                    handle.read(1)
            except OSError as exc:
                return f"unreadable: {f.name} ({exc.strerror or exc})"
        return None

    def _unsettled(self, files: list[Path]) -> str | None:
        try:
            before = _sizes(files)
            if not before or sum(size for size, _ in before) == 0:
                return "empty"
            newest = max(mtime for _, mtime in before)
            if self._clock.time() - newest >= self._settle_s:
                return None
            self._clock.sleep(self._settle_s)
            after = _sizes(files)
        except OSError as exc:
            return f"unreadable ({exc.strerror or exc})"
        if after != before:
            return f"partial (still changing over {self._settle_s:g} s)"
        return None


def argv_path(path: Path) -> str:
    """``path`` as an argument that cannot pass for an option: ``Path(".") / "--x"`` prints as
    ``--x``; this gives ``./--x``."""
    text = str(path)
    return f"./{text}" if text.startswith("-") else text


def _sizes(files: list[Path]) -> tuple[tuple[int, float], ...]:
    return tuple((s.st_size, s.st_mtime) for s in (f.stat() for f in files))


def _files(path: Path) -> list[Path]:
    if not path.is_dir():
        path.stat()
        return [path]
    out: list[Path] = []
    for root, _, names in walk(path, onerror=_raise):
        out.extend(Path(root, n) for n in sorted(names))
        if len(out) > MAX_FILES:
            break
    return out


def _raise(exc: OSError) -> None:
    raise exc


class CheckpointHook:
    def __init__(self, finder: CheckpointFinder) -> None:
        self._finder = finder

    @property
    def name(self) -> str:
        return "checkpoint"

    @property
    def actions(self) -> frozenset[Action]:
        return frozenset({Action.CHECKPOINT})

    def _result(self, status: Status) -> HookResult:
        search = self._finder.find()
        if search.found is None:
            return HookResult(status, f"no complete checkpoint in {self._finder.directory}",
                              skipped=search.skipped)
        step = f" (step {search.found.step})" if search.found.step is not None else ""
        return HookResult(status, f"resume from {search.found.path}{step}",
                          checkpoint=search.found, skipped=search.skipped)

    def plan(self, call: HookCall) -> HookResult:
        return self._result(Status.DRY_RUN)

    def run(self, call: HookCall) -> HookResult:
        return self._result(Status.OK)


def make_checkpoint_hook(settings: Settings, env: HookEnv) -> CheckpointHook:
    directory = settings.get_str("dir")
    step_regex = settings.get_str("step_regex", r"(\d+)")
    try:
        compiled = re.compile(step_regex)
    except re.error as exc:
        raise settings.error("step_regex", f"invalid regular expression: {exc}") from None
    if compiled.groups > 1:
        raise settings.error("step_regex", "may have at most one group (the step number)")
    completion = settings.get_str("completion", "marker", choices=("marker", "size"))
    marker = settings.get_str("marker", "COMPLETE") if completion == "marker" else None
    finder = CheckpointFinder(
        Path(directory),
        env.clock,
        pattern=settings.get_str("pattern", "*"),
        step_regex=step_regex,
        marker=marker,
        settle_s=settings.get_float("settle_s", 5.0, minimum=0.0, maximum=3600.0),
    )
    settings.done()
    return CheckpointHook(finder)
