"""Errors a user can cause. The CLI prints them as one clear message and exits non-zero."""

from __future__ import annotations

from collections.abc import Sequence


class RankdoctorError(Exception):
    """Base class: a problem with the user's input or environment, printed without a traceback."""


class InputError(RankdoctorError):
    """An input (a path, a JSON document) is unusable."""

    def __init__(self, where: str, detail: str) -> None:
        super().__init__(f"{where}: {detail}")
        self.where = where
        self.detail = detail


class ConfigError(RankdoctorError):
    """A configuration or rule file is invalid. Names the file, line and column where known."""

    def __init__(
        self,
        path: str,
        line: int | None,
        detail: str,
        *,
        column: int | None = None,
        rule_id: str | None = None,
    ) -> None:
        self.path = path
        self.line = line
        self.column = column
        self.rule_id = rule_id
        self.detail = detail
        super().__init__(self.format())

    def format(self) -> str:
        where = self.path
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        rid = f" {self.rule_id}:" if self.rule_id else ""
        return f"{where}:{rid} {self.detail}"


class RuleLoadError(ConfigError):
    """Several rule problems at once; ``problems`` lists each."""

    def __init__(self, problems: Sequence[ConfigError]) -> None:
        self.problems = list(problems)
        first = self.problems[0]
        super().__init__(first.path, first.line, first.detail, column=first.column, rule_id=first.rule_id)

    def format(self) -> str:
        problems = getattr(self, "problems", None)
        if not problems:
            return super().format()
        return "\n".join(p.format() for p in problems)


class SourceError(RankdoctorError):
    """A source (a file, a server, NVML) failed; others keep working."""
