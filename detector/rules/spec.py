"""The rule-file model. The JSON Schema in ``rules/schema.json`` is generated from these classes
(``rankdoctor rules schema``); a test fails when the file is stale.

pydantic is used here because it gives strict validation (unknown keys rejected, enums checked)
and the JSON Schema for editors from one definition.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from detector.types import Cause, Role, Severity

RULE_ID = r"^[a-z0-9_]+(\.[a-z0-9_]+)+$"


class Example(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    line: str = Field(description="A log line the rule must match.")
    fields: dict[str, str] = Field(default_factory=dict, description="Expected named-group values.")


class Window(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    next: str = Field(description="Regex that must match one of the following lines of the same file.")
    within: int = Field(ge=1, le=200, description="How many following lines to look at.")


class RuleSpec(BaseModel):
    """One rule. A rule with only ``id`` and ``disabled: true`` disables a shipped rule."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(pattern=RULE_ID, description="Unique id, family.name")
    description: str | None = Field(default=None, min_length=1)
    source: Literal["rank_log", "kernel", "any"] = Field(
        default="any",
        description="rank_log: rank logs only; kernel: kernel logs and kernel lines pasted into a rank log; any: both")
    role: Role | None = None
    cause: Cause | None = None
    severity: Severity = Severity.ERROR
    pattern: str | None = Field(default=None, min_length=1, max_length=4096)
    examples: list[Example] = Field(default_factory=list)
    counterexamples: list[str] = Field(default_factory=list)
    fallback: bool = Field(default=False, description="Counts only when no other rule matched the line.")
    unless: str | None = Field(
        default=None, min_length=1, max_length=1024,
        description="Regex: a line it matches does not count for this rule, although the pattern matches "
                    "(a program's message that it caught the error and goes on).",
    )
    window: Window | None = None
    context_lines: int = Field(default=0, ge=0, le=200)
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    disabled: bool = False


class RuleFile(BaseModel):
    """A rule pack: a YAML file with a ``rules`` list."""

    model_config = ConfigDict(extra="forbid", frozen=True, title="rankdoctor rule file")
    rules: list[RuleSpec] = Field(default_factory=list)
