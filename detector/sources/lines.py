"""Raw lines of one file -> :class:`~detector.types.Event` (prefix stripped, timestamp read, rank
and local rank from the prefix or the file)."""

from __future__ import annotations

from datetime import datetime

from detector.sources.prefixes import Prefixed, PrefixStyle, logger_rank, strip_prefix, vllm_header_at
from detector.sources.runs import FileKind, LogFile
from detector.sources.timestamps import Stamp, parse_timestamp, slashed_at
from detector.types import Event, StreamKind


def _kind(f: LogFile) -> StreamKind:
    return StreamKind.KERNEL if f.kind is FileKind.KERNEL else StreamKind.RANK_LOG


class LineParser:
    """Turns raw lines of one file into Events (prefix, timestamp, rank)."""

    def __init__(self, f: LogFile, style: PrefixStyle, year: int | None) -> None:
        self.f = f
        self.style = style
        self.year = year
        self.kind = _kind(f)
        # how the file writes dates with slashes where both numbers could be the month (its first
        # lines say: timestamps.slashed_order; None: not known, those dates give no time)
        self.day_first: bool | None = None

    def stamp(self, message: str) -> Stamp | None:
        return parse_timestamp(message, year=self.year, day_first=self.day_first)

    def lent_stamp(self, message: str) -> Stamp | None:
        """:meth:`stamp`, for the untimed lines after it to inherit: a date with slashes is its own
        line's only (Hugging Face's and MMEngine's loggers stamp a run's setup and a few notes; the
        progress bars and tracebacks after them come minutes or hours later), and so is a date
        written the Chinese or Japanese way (a logger of one's own, like those)."""
        stamp = self.stamp(message)
        if stamp is not None and stamp.time is not None and (slashed_at(message) or "年" in message[:16]):
            return None
        return stamp

    def header_stamp(self, raw: str) -> Stamp | None:
        """The time in vLLM's logger header, which the prefixes' reading took off the message
        (its month, day and time; the year the run's)."""
        if self.year is None:
            return None
        header = vllm_header_at(raw)
        return parse_timestamp(raw, year=self.year, pos=header) if header is not None else None

    def event(self, raw: str, line: int, inherited: datetime | None) -> tuple[Event, Stamp | None]:
        return self.event_of(strip_prefix(raw, self.style), raw, line, inherited)

    def event_of(self, pre: Prefixed, raw: str, line: int, inherited: datetime | None) -> tuple[Event, Stamp | None]:
        """:meth:`event` of a line whose prefix is already stripped (``pre``)."""
        stamp = self.stamp(pre.message) or self.header_stamp(raw)
        time = stamp.time if stamp else None
        rank = pre.rank  # the file's own rank is resolved later (a combined log has none)
        if pre.hinted and self.f.rank is not None and (pre.rank is None or logger_rank(pre.message) != pre.rank):
            # a file of one rank: "[Rank 5]" inside a message is about a subgroup's rank (a logger's
            # own rank field at the line's start is the line's: a pod's log named like one rank's)
            rank = None
        local = pre.local_rank if pre.local_rank is not None else self.f.local_rank
        node = self.f.node or pre.host or (stamp.host if stamp is not None else None)
        ev = Event(
            file=self.f.display,
            line=line,
            kind=self.kind,
            text=raw,
            message=pre.message,
            time=time if time is not None else inherited,
            time_inferred=time is None and inherited is not None,
            rank=rank,
            local_rank=local,
            node=node,
        )
        return ev, stamp
