"""What one file's scan holds (:class:`FileScan`: matched lines, torchelastic summaries, the
tail and what was worked out of it), and the line limits shared by the body scan
(:mod:`detector.pipeline.scan`) and the tail walk (:mod:`detector.pipeline.tail`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from detector.pipeline.evidence import Admission, Hit
from detector.sources.lines import LineParser
from detector.sources.runs import LogFile
from detector.sources.torchelastic import FailureRecord

MAX_LINE = 1 << 20  # longer lines are matched on their first MiB and reported
LOOKBACK_LINES = 64


@dataclass
class FileScan:
    file: LogFile
    lines: int = 0
    first_time: datetime | None = None
    last_time: datetime | None = None
    hits: list[Hit] = field(default_factory=list)
    failures: list[FailureRecord] = field(default_factory=list)
    tail_lines: list[str] = field(default_factory=list)  # the file's last lines, raw
    tail_first: int = 1  # line number of tail_lines[0]
    parser: LineParser | None = None
    prefix_ranks: set[int] = field(default_factory=set)
    # (local rank, global rank) of lines whose prefixes name both (torchrun's "[default3]:[rank11]:")
    prefix_pairs: set[tuple[int, int]] = field(default_factory=set)
    warnings: list[str] = field(default_factory=list)
    hosts: set[str] = field(default_factory=set)
    cap: Admission | None = None  # where set, the hits it turns down are counted, not kept
    # (rank, local rank) as the Event of every matched line would carry them, kept by the cap or
    # not: the ranks that produced evidence (the report's summary counts them all)
    evidence_ranks: set[tuple[int | None, int | None]] = field(default_factory=set)
    # last_activity() of a file read to its end, worked out once (None: not yet)
    activity: dict[int | None, datetime] | None = None
    # per tail line, (rank, hinted, message) where worked out (a bare rank where only that is
    # known); a cache for the tail's readers
    tail_keys: list[tuple[int | None, bool, str] | int | None] = field(default_factory=list, repr=False)
    # the tail's step lines as parsed where the file was read (a parallel replay's worker):
    # (name of the preset used, pipeline.steps.step_items' result)
    steps: tuple[str, list[Any]] | None = field(default=None, repr=False)
    # how the tail was read: (tail_bytes, the file's size then), and how many lines it has. A
    # file read in a worker process comes back without its tail lines (most are never looked
    # at again); tail_of() reads them again when they are
    tail_source: tuple[int, int] | None = field(default=None, repr=False)
    tail_count: int = 0
    # the line number of the file's last line of training progress (a step, a progress bar, the end
    # of training), from its tail; None: none in the tail
    last_progress: int | None = None
    # the line number where notes pasted after the log begin (a closing markdown fence, an issue
    # template's versions, collect_env's output), from the tail; None: the file ends in log
    notes_start: int | None = None
