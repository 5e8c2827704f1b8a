"""Step-line presets: which trainer printed a log, and its step lines as StepRecords.

``parse_step(message)`` functions are pure. A :class:`Preset` names one; :data:`PRESETS` is the
explicit table of the built-in ones, most specific first (the generic form last);
:func:`choose_preset` picks one per run from a sample of its lines; :func:`custom_preset` builds
one from a pattern in the config.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial

from detector.errors import ConfigError
from detector.support.text import CJK_TRAINING_DONE

from . import presets as p
from .model import LogNote, NoteKind, StepRecord, StepSample

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


@dataclass(frozen=True, slots=True)
class Preset:
    """A named step-line parser. ``pattern`` is the regex that finds its lines (documentation
    and a quick pre-filter); ``parse`` turns one progress update into a StepRecord."""

    name: str
    pattern: re.Pattern[str]
    parse_update: Callable[[str], StepRecord | None]

    def parse(self, message: str) -> StepRecord | None:
        """The last progress update in ``message`` (tqdm joins updates with carriage returns)."""
        for update in reversed(_updates(message)):
            if self.pattern.search(update):
                record = self.parse_update(update)
                if record is not None:
                    return record
        return None

    def parse_found(self, message: str) -> StepRecord | None:
        """:meth:`parse` of a line in which the caller already found :attr:`pattern` (each
        parser reads its own line and says None where it finds no step): the search is not
        made twice on a line of one update."""
        if "\r" in message or "\x1b" in message:
            return self.parse(message)
        return self.parse_update(message)

    def parse_all(self, message: str) -> list[StepRecord]:
        """Every progress update in ``message``, oldest first."""
        found: list[StepRecord] = []
        for update in _updates(message):
            if self.pattern.search(update):
                record = self.parse_update(update)
                if record is not None:
                    found.append(record)
        return found


def _updates(message: str) -> list[str]:
    text = _ANSI.sub("", message) if "\x1b" in message else message
    if "\r" not in text:
        return [text]
    return [part for part in text.split("\r") if part.strip()]


PRESETS: tuple[Preset, ...] = (
    Preset("megatron", re.compile(r"\biteration\s+\d+\s*/"), p.parse_megatron),
    Preset("lightning", re.compile(r"Epoch\s+\d+"), p.parse_lightning),
    Preset("huggingface", re.compile(r"%\||\{\s*['\"]loss['\"]"), p.parse_huggingface),
    Preset("torchtitan", re.compile(r"step:\s*\d+\s+loss:", re.IGNORECASE), p.parse_torchtitan),
    Preset(
        "deepspeed",
        re.compile(r"step=\d+,\s*skipped=|global_step=\d+,\s*RunningAvg|time \(ms\)\s*\|"),
        p.parse_deepspeed,
    ),
    Preset("composer", re.compile(r"\[batch=\d+/|batches_per_sec:"), p.parse_composer),
    Preset(
        "generic",
        # "step", "iter", "iteration" or "it=<digit>" in any case, spelled out letter by letter: the
        # same lines as with re.IGNORECASE, searched a third faster (the first letter's set lets
        # the search skip ahead), and it runs on every line of a tail looked at for steps
        re.compile(r"(?:[sS][tT][eE][pP]|[iI][tT][eE][rR](?:[aA][tT][iI][oO][nN])?)(?!\w)|(?<![\w/])[iI][tT]=\d"),
        p.parse_generic,
    ),
)


def preset_by_name(name: str, *, where: str = "config", line: int | None = None) -> Preset:
    """The built-in preset called ``name``; a ConfigError lists the known names."""
    for preset in PRESETS:
        if preset.name == name:
            return preset
    known = ", ".join(preset.name for preset in PRESETS)
    raise ConfigError(where, line, f"unknown step preset {name!r}; known presets: {known}")


def parse_step(message: str, presets: Sequence[Preset] = PRESETS) -> StepRecord | None:
    """The step record of ``message`` from the first preset that recognises it."""
    for preset in presets:
        record = preset.parse(message)
        if record is not None:
            return record
    return None


def parse_steps(message: str, preset: Preset) -> list[StepRecord]:
    """All progress updates of one (carriage-return joined) line."""
    return preset.parse_all(message)


def choose_preset(
    sample_messages: Iterable[str], presets: Sequence[Preset] = PRESETS
) -> Preset | None:
    """The preset that recognises most of the sample's step lines. Each line counts for the
    first (most specific) preset that reads it, double when it names a step; ties go to the
    earlier preset. None when no preset recognises any line."""
    scores = [0] * len(presets)
    for message in sample_messages:
        for index, preset in enumerate(presets):
            record = preset.parse(message)
            if record is not None:
                scores[index] += 2 if record.step is not None else 1
                break
    best = max(range(len(presets)), key=lambda i: (scores[i], -i), default=None)
    if best is None or scores[best] == 0:
        return None
    return presets[best]


# --- custom patterns from the config ------------------------------------------------------

_GROUP_UNITS = (("_ms", 1e-3), ("_us", 1e-6), ("_s", 1.0))
_CUSTOM_HELP = (
    "named groups: 'step' (required), 'total' (the step count), and times named "
    "<name>_ms, <name>_s or <name>_us; a time named step/iter/time/duration/total is the "
    "whole step, others are rank-local (fwd_ms, data_s, ...)"
)


def custom_preset(
    pattern: str, *, name: str = "custom", where: str = "config", line: int | None = None
) -> Preset:
    """A preset from a user's regular expression, checked now: it must compile and name its
    groups as described in the error message."""
    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        raise ConfigError(where, line, f"step pattern {pattern!r} does not compile: {exc}") from exc
    groups = set(compiled.groupindex)
    if "step" not in groups:
        raise ConfigError(
            where, line, f"step pattern {pattern!r} has no (?P<step>...) group; {_CUSTOM_HELP}"
        )
    times: list[tuple[str, str, float]] = []
    for group in sorted(groups - {"step", "total"}):
        for suffix, factor in _GROUP_UNITS:
            if group.endswith(suffix) and len(group) > len(suffix):
                times.append((group, group[: -len(suffix)], factor))
                break
        else:
            raise ConfigError(
                where,
                line,
                f"step pattern {pattern!r}: group {group!r} is not understood; {_CUSTOM_HELP}",
            )
    parser = partial(_parse_custom, compiled, tuple(times), name)
    return Preset(name, compiled, parser)


def _parse_custom(
    compiled: re.Pattern[str], times: tuple[tuple[str, str, float], ...], name: str, message: str
) -> StepRecord | None:
    match = compiled.search(message)
    if match is None or match["step"] is None:
        return None
    try:
        step = int(match["step"])
        total = int(match["total"]) if "total" in compiled.groupindex and match["total"] else None
    except ValueError:
        return None
    duration: float | None = None
    local: list[tuple[str, float]] = []
    for group, key, factor in times:
        text = match[group]
        if text is None:
            continue
        try:
            seconds = float(text) * factor
        except ValueError:
            continue
        if key in p.TOTAL_NAMES:
            duration = seconds if duration is None else duration
        else:
            local.append((key, seconds))
    return StepRecord(step, duration, tuple(local), total, name)


# --- pause and end markers ----------------------------------------------------------------

_END = re.compile(
    r"training (?:is )?(?:finished|completed?|done)|finished training|\btrain_runtime\b"
    r"|`Trainer\.fit` stopped|training ended"
    r"|" + CJK_TRAINING_DONE,
    re.IGNORECASE,
)
_PAUSE = re.compile(
    r"checkpoint|\bsav(?:e|ing)\b.{0,40}\b(?:model|state|weights)|\bevaluat(?:e|ing|ion)\b"
    r"|\bvalidat(?:e|ing|ion)\b|\beval\b|running eval|Sanity Checking",
    re.IGNORECASE,
)


def parse_note(message: str) -> NoteKind | None:
    """END for "training finished"-like lines, PAUSE for checkpoint/save/eval lines, else None.

    Call it on lines that are not step lines."""
    if _END.search(message):
        return NoteKind.END
    if _PAUSE.search(message):
        return NoteKind.PAUSE
    return None


def make_note(
    message: str, *, rank: int | None, time: float, file: str | None = None, line: int | None = None
) -> LogNote | None:
    kind = parse_note(message)
    if kind is None:
        return None
    return LogNote(rank, time, kind, message, file, line)


class StepResolver:
    """Numbers the records of one rank: records that name no step belong to the current one
    (DeepSpeed timers, Hugging Face dicts beside a progress bar) or, when the rank's lines
    never name a step, each such record is the next step. Keep one per rank."""

    __slots__ = ("_explicit", "_previous")

    def __init__(self) -> None:
        self._previous: int | None = None
        self._explicit = False

    def resolve(self, record: StepRecord) -> int:
        if record.step is not None:
            self._explicit = True
            self._previous = record.step
            return record.step
        if self._previous is None:
            step = 0
        elif self._explicit:
            step = self._previous
        else:
            step = self._previous + 1
        self._previous = step
        return step

    def sample(
        self,
        record: StepRecord,
        *,
        rank: int,
        node: str | None,
        time: float,
        file: str | None = None,
        line: int | None = None,
        text: str = "",
        local_rank: int | None = None,
    ) -> StepSample:
        return StepSample(
            rank=rank,
            node=node,
            time=time,
            step=self.resolve(record),
            duration_s=record.duration_s,
            local=record.local,
            file=file,
            line=line,
            text=text,
            local_rank=local_rank,
            total=record.total,
        )
