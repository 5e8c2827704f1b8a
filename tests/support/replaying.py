"""Write a small run (file name -> text) and replay it: the helper the replay tests share."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.types import Cause


@dataclass(frozen=True, slots=True)
class Seen:
    """What one incident said, in the terms the tests check."""

    cause: Cause
    rank: int | None
    node: str | None
    drain: bool
    confidence: float
    explanation: str
    evidence: tuple[str, ...]


def write_run(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def incidents_of(root: Path, files: dict[str, str], rules: RuleSet) -> list[Seen]:
    """The incidents of the run made of ``files`` under ``root``, most important first."""
    report = replay_path(write_run(root, files), rules)
    return [Seen(i.cause, i.initiator.rank, i.initiator.node, i.remediation.drain_node, i.confidence,
                 i.explanation, tuple(e.text for e in i.evidence)) for i in report.incidents]


def causes_of(root: Path, files: dict[str, str], rules: RuleSet) -> list[Cause]:
    """The causes of the incidents of the run made of ``files``, most important first."""
    return [i.cause for i in replay_path(write_run(root, files), rules).incidents]
