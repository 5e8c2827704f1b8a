"""Values the statistical detectors take in: step samples and marker lines."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


@dataclass(frozen=True, slots=True)
class StepRecord:
    """What one step line says, before it is tied to a rank and a time (parse_step's result).

    ``step`` is None for lines that belong to the current step without naming it (DeepSpeed's
    timer line, a Hugging Face ``{'loss': ...}`` dict, Composer's metric lines): see
    :class:`~detector.stats.steps.StepResolver`.
    """

    step: int | None
    duration_s: float | None = None  # the whole step, seconds
    local: tuple[tuple[str, float], ...] = ()  # rank-local timings, seconds: ("fwd", 0.2)
    total: int | None = None  # the progress bar's total, where the line shows one
    preset: str = ""


@dataclass(frozen=True, slots=True)
class StepSample:
    """One step line of one rank, as the replay pipeline and the live sidecar feed it."""

    rank: int
    node: str | None
    time: float  # epoch seconds
    step: int
    duration_s: float | None = None
    local: tuple[tuple[str, float], ...] = ()
    file: str | None = None
    line: int | None = None
    text: str = ""
    local_rank: int | None = None
    total: int | None = None  # progress-bar total (tqdm): a different one is an eval bar


class NoteKind(StrEnum):
    PAUSE = "pause"  # a checkpoint save or an evaluation starts: step lines may pause
    END = "end"  # training finished on this rank: no more step lines are expected


@dataclass(frozen=True, slots=True)
class LogNote:
    """A non-step line that matters to the stall detector (see steps.parse_note)."""

    rank: int | None  # None: the whole job (a coordinator's line)
    time: float
    kind: NoteKind
    text: str = ""
    file: str | None = None
    line: int | None = None
