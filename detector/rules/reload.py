"""Hot reload of rule files for the sidecar.

The sidecar polls :meth:`RuleReloader.changed` (file names, sizes and modification times of
every rule file and directory) and calls :meth:`RuleReloader.reload` when something changed.
A reload runs the same checks as ``rankdoctor rules validate`` (without the slow per-pattern
hyperscan compile) and builds a new :class:`RuleSet`. Only then is the new set swapped in, by
one attribute assignment, so readers of :attr:`RuleReloader.current` see the old set or the new
one, never a mix. An invalid change is refused: the old rules stay active, the problems come
back as ``file:line:column: rule-id: detail`` errors, and :attr:`RuleReloader.refusals` (the
sidecar exports it as a counter) goes up.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

from detector.authoring.validate import validate_rules
from detector.errors import ConfigError, RuleLoadError
from detector.rules.engine import RuleSet
from detector.rules.loader import rule_files, shipped_rules_dir

Fingerprint = tuple[tuple[str, int, int], ...]


def fingerprint(paths: Sequence[Path]) -> Fingerprint:
    """(path, size, mtime in ns) of each rule file under ``paths`` and of each file in
    ``paths``, so that an added, removed, renamed or rewritten rule file changes it; a directory
    counts by its existence only (other files in it come and go)."""
    out: list[tuple[str, int, int]] = []
    for path in [*paths, *rule_files([p for p in paths if p.is_dir()])]:
        try:
            st = path.stat()
        except OSError:
            out.append((str(path), -1, -1))
            continue
        out.append((str(path), 0, 0) if path.is_dir() else (str(path), st.st_size, st.st_mtime_ns))
    return tuple(sorted(out))


class RuleReloader:
    """The active rule set of a long-running process, reloaded from its files on request.

    ``user`` are the user rule directories or files layered over ``shipped`` (default: the
    packs shipped with rankdoctor). The constructor loads them once and raises
    :class:`detector.errors.RuleLoadError` when they are invalid: a sidecar must not start
    without rules.
    """

    def __init__(self, user: Sequence[Path] = (), *, shipped: Sequence[Path] | None = None, engine: str = "auto") -> None:
        self._user = tuple(user)
        self._shipped = tuple(shipped) if shipped is not None else None
        self._engine = engine
        self._lock = threading.Lock()
        self._watched = [*(self._shipped if self._shipped is not None else (shipped_rules_dir(),)), *self._user]
        self.refusals = 0  # invalid changes refused since start
        self.reloads = 0  # changes accepted since start
        self.last_problems: tuple[ConfigError, ...] = ()
        self._stamp: Fingerprint = ()
        first = self._build()
        if not isinstance(first, RuleSet):

            raise RuleLoadError(first)
        self._current = first

    @property
    def current(self) -> RuleSet:
        """The rule set in force. Read it once per batch of lines."""
        return self._current

    def changed(self) -> bool:
        """True when a rule file was added, removed or modified since the last (accepted or
        refused) load: a refused change is not retried until the files change again."""
        try:
            return fingerprint(self._watched) != self._stamp
        except OSError:  # (the folder cannot be listed now, out of descriptors: looked at again later)
            return False

    def _build(self) -> RuleSet | list[ConfigError]:
        self._stamp = fingerprint(self._watched)  # before reading: a later write shows as a change
        checked = validate_rules(self._shipped, self._user, hyperscan=False)
        if not checked.ok:
            return list(checked.errors)
        try:
            return RuleSet(checked.result.rules, engine=self._engine)
        except Exception as exc:  # re.error, or hyperscan's own error with engine="hyperscan"
            return [ConfigError(str(self._watched[0]), None, f"the rule set does not compile: {exc}")]

    def reload(self) -> RuleSet | list[ConfigError]:
        """Load and check the files; swap the new set in, or refuse the change and keep the
        old one. Returns the new set, or the problems."""
        with self._lock:
            built = self._build()
            if isinstance(built, RuleSet):
                self._current = built
                self.reloads += 1
                self.last_problems = ()
            else:
                self.refusals += 1
                self.last_problems = tuple(built)
            return built

    def poll(self) -> RuleSet | list[ConfigError] | None:
        """:meth:`reload` if :meth:`changed`, else None."""
        return self.reload() if self.changed() else None
