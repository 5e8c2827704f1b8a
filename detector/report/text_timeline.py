"""The text report's compact timeline of an incident: one row per finding, or per rule and
role where many ranks said the same thing within seconds; and the helpers the rest of the text
report shares with it (role labels, shortened rank lists)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from rich.console import Console
from rich.table import Table
from rich.text import Text

from detector.report.safe_text import clean_line
from detector.report.wording import as_utc, clock, evidence_order, first_time, offset_seconds
from detector.support.numbers import rank_ranges
from detector.types import Finding, Incident, Role

TIMELINE_ROWS = 30

ROLE_STYLES: dict[Role, str] = {
    Role.INITIATOR: "bold red",
    Role.COLLATERAL: "yellow",
    Role.CONTEXT: "dim",
}


def _role_text(role: Role) -> Text:
    label = role.value.upper() if role is Role.INITIATOR else role.value
    return Text(label, style=ROLE_STYLES.get(role, ""))


@dataclass(frozen=True, slots=True)
class TimelineEntry:
    """One line of the compact timeline: a single finding, or several of one rule and role."""

    time: datetime | None
    last: datetime | None
    ranks: tuple[int, ...]
    nodes: tuple[str, ...]
    rule: str
    role: Role
    count: int


def timeline_entries(evidence: Sequence[Finding]) -> list[TimelineEntry]:
    """Initiator findings one by one; the others grouped by (rule, role) when there are
    more than two, so 127 watchdog timeouts become one line with a rank range."""
    groups: dict[tuple[str, Role, bool], list[Finding]] = defaultdict(list)
    entries: list[TimelineEntry] = []
    for f in evidence_order(evidence):
        if f.role is Role.INITIATOR:
            entries.append(_entry([f]))
        else:
            groups[(f.rule, f.role, f.time is None)].append(f)
    for members in groups.values():
        if len(members) <= 2:
            entries.extend(_entry([f]) for f in members)
        else:
            entries.append(_entry(members))
    role_order = {Role.INITIATOR: 0, Role.COLLATERAL: 1, Role.CONTEXT: 2}

    def key(e: TimelineEntry) -> tuple[int, datetime, int]:
        t = e.time if e.time is not None else datetime.min.replace(tzinfo=UTC)
        return (e.time is None, t, role_order.get(e.role, 3))

    return sorted(entries, key=key)


def _entry(members: Sequence[Finding]) -> TimelineEntry:
    times = [as_utc(f.time) for f in members if f.time is not None]
    return TimelineEntry(
        time=min(times) if times else None,
        last=max(times) if times else None,
        ranks=tuple(sorted({f.rank for f in members if f.rank is not None})),
        nodes=tuple(sorted({f.node for f in members if f.node})),
        rule=members[0].rule,
        role=members[0].role,
        count=len(members),
    )


def ranks_phrase(ranks: Iterable[int], limit: int = 60) -> str:
    """``rank 3`` or ``ranks 0-2,4-15``, the list cut at about ``limit`` characters."""
    unique = set(ranks)
    if len(unique) == 1:
        return f"rank {next(iter(unique))}"
    return f"ranks {_short(rank_ranges(unique), limit, False)}"


def _short(text: str, limit: int, verbose: bool) -> str:
    if verbose or len(text) <= limit:
        return text
    cut = text[:limit].rsplit(",", 1)[0]
    return f"{cut},..."


def _who(entry: TimelineEntry, verbose: bool) -> str:
    if not entry.ranks:
        nodes = clean_line(",".join(entry.nodes), 200)
        return f"{nodes} (no rank)" if nodes else "(no rank)"
    elif len(entry.ranks) == 1:
        who = f"rank {entry.ranks[0]}"
    else:
        who = f"ranks {_short(rank_ranges(entry.ranks), 40, verbose)} ({len(entry.ranks)})"
    if len(entry.nodes) > 3 and not verbose:
        return f"{who} on {len(entry.nodes)} nodes"
    if entry.nodes:
        return f"{who} {clean_line(','.join(entry.nodes), 200)}"
    return who


def _print_timeline(incident: Incident, console: Console, verbose: bool) -> None:
    entries = timeline_entries(incident.evidence)
    origin = first_time(incident.evidence)
    head = Text("Timeline", style="bold underline")
    if origin is not None:
        head.append(f" (from the first evidence, {clock(origin)} UTC)", style="dim")
    console.print(head)
    if not entries:
        console.print(Text("  (no evidence recorded)"))
        return
    shown = entries if verbose else entries[:TIMELINE_ROWS]
    grid = Table.grid(padding=(0, 2))
    grid.add_column(justify="right", no_wrap=True)
    grid.add_column(overflow="fold")
    grid.add_column(overflow="fold")
    for e in shown:
        when = "untimed" if e.time is None or origin is None else f"+{offset_seconds(e.time, origin):.3f}s"
        what = Text.assemble(clean_line(e.rule, 200) or "-", " ", _role_text(e.role))
        if e.count > 1:
            spread = ""
            if e.time is not None and e.last is not None and e.last != e.time:
                spread = f" within {offset_seconds(e.last, e.time):.3f}s"
            what.append(f"  x{e.count}{spread}", style="dim")
        style = "bold" if e.role is Role.INITIATOR else ""
        grid.add_row(Text("  " + when), Text(_who(e, verbose)), what, style=style)
    console.print(grid)
    if len(shown) < len(entries):
        more = len(entries) - len(shown)
        console.print(Text(f"  ... {more} more timeline lines; --verbose shows all", style="dim"))


# --- progress and warnings ----------------------------------------------------------------
