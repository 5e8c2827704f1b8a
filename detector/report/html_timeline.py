"""The HTML report's timeline plot: inline SVG, a row (lane) per rank or collapsed range of
ranks, evidence coloured by role, each rank's last progress, a time axis and an "untimed" column.
Untrusted text passes through :func:`~detector.report.safe_text.html_text` (``_e``).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from detector.report.safe_text import clean_line
from detector.report.safe_text import html_text as _e
from detector.report.wording import as_utc, clock, first_time
from detector.support.numbers import rank_ranges
from detector.types import Finding, Report, Role

ROLE_COLORS: dict[Role, str] = {
    Role.INITIATOR: "#d62728",
    Role.COLLATERAL: "#f0a202",
    Role.CONTEXT: "#9e9e9e",
}
PROGRESS_COLOR = "#1f5fbf"
MAX_RANK_ROWS = 32  # above this many ranks, quiet ranks are collapsed into range rows
TITLE_CHARS = 300  # characters of a log line in an SVG tooltip


@dataclass(frozen=True, slots=True)
class Lane:
    """One row of the plot: one rank, a collapsed range of ranks, or rankless lines of a node."""

    label: str
    key: str  # rank range ("3", "4-127") or "node:<name>"
    ranks: frozenset[int]
    node: str | None = None

    @property
    def collapsed(self) -> bool:
        return len(self.ranks) > 1


def plot_lanes(report: Report) -> list[Lane]:
    """A lane per rank for small runs; for big ones, lanes for the ranks that matter (initiators,
    then all ranks with evidence if they fit) and collapsed lanes for the runs of ranks between."""
    findings = [f for i in report.incidents for f in i.evidence]
    all_ranks: set[int] = {r for r, _t, _s in report.progress}
    for incident in report.incidents:
        all_ranks.update(incident.collateral_ranks)
        if incident.initiator.rank is not None:
            all_ranks.add(incident.initiator.rank)
    all_ranks.update(f.rank for f in findings if f.rank is not None)
    ordered = sorted(all_ranks)
    single = set(ordered) if len(ordered) <= MAX_RANK_ROWS else _ranks_that_matter(report, findings)
    lanes: list[Lane] = []
    run: list[int] = []
    for rank in ordered:
        if rank in single:
            lanes.extend(_run_lane(run))
            run = []
            lanes.append(Lane(label=f"rank {rank}", key=str(rank), ranks=frozenset([rank])))
        else:
            run.append(rank)
    lanes.extend(_run_lane(run))
    nodes = sorted({f.node or "" for f in findings if f.rank is None})
    for node in nodes:
        label = f"{node} (no rank)" if node else "(no rank, no node)"
        lanes.append(Lane(label=label, key=f"node:{node}", ranks=frozenset(), node=node))
    return lanes


def _ranks_that_matter(report: Report, findings: Sequence[Finding]) -> set[int]:
    first = [i.initiator.rank for i in report.incidents if i.initiator.rank is not None]
    first += sorted({f.rank for f in findings if f.rank is not None and f.role is Role.INITIATOR})
    chosen: set[int] = set()
    for rank in first:
        if len(chosen) < MAX_RANK_ROWS:
            chosen.add(rank)
    with_evidence = {f.rank for f in findings if f.rank is not None}
    if len(chosen | with_evidence) <= MAX_RANK_ROWS:
        chosen |= with_evidence
    steps = [s for _r, _t, s in report.progress if s is not None]
    if steps:
        laggards = {r for r, _t, s in report.progress if s is not None and s < max(steps)}
        if len(chosen | laggards) <= MAX_RANK_ROWS:
            chosen |= laggards
    return chosen


def _run_lane(run: Sequence[int]) -> list[Lane]:
    if not run:
        return []
    if len(run) == 1:
        return [Lane(label=f"rank {run[0]}", key=str(run[0]), ranks=frozenset(run))]
    key = rank_ranges(run)
    return [Lane(label=f"ranks {key} ({len(run)})", key=key, ranks=frozenset(run))]


@dataclass(frozen=True, slots=True)
class _Axis:
    lo: float  # seconds from the origin
    hi: float
    x0: float
    width: float

    def x(self, seconds: float) -> float:
        return self.x0 + (seconds - self.lo) / (self.hi - self.lo) * self.width


_LABEL_W = 190
_PLOT_W = 640
_UNTIMED_W = 70
_ROW_H = 16
_TOP = 34


def timeline_svg(report: Report) -> str:
    """Inline SVG: a row per lane, progress markers, evidence coloured by role, a time axis,
    and an "untimed" column for evidence and progress without a time."""
    lanes = plot_lanes(report)
    if not lanes:
        return '<p class="note">No ranks and no evidence to plot.</p>\n'
    findings = [f for i in report.incidents for f in i.evidence]
    origin = first_time(findings)
    times = [as_utc(f.time) for f in findings if f.time is not None]
    times += [as_utc(t) for _r, t, _s in report.progress if t is not None]
    if origin is None and times:
        origin = min(times)
    untimed = any(f.time is None for f in findings) or any(t is None and s is not None for _r, t, s in report.progress)
    axis: _Axis | None = None
    if origin is not None:
        offsets = [(t - origin).total_seconds() for t in times]
        lo, hi = min(offsets), max(offsets)
        pad = max((hi - lo) * 0.03, 0.5)
        axis = _Axis(lo=lo - pad, hi=hi + pad, x0=_LABEL_W + 10, width=_PLOT_W)
    untimed_x = _LABEL_W + 10 + _PLOT_W + 20
    width = untimed_x + (_UNTIMED_W if untimed else 0) + 10
    height = _TOP + len(lanes) * _ROW_H + 40
    out = [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" class="timeline" role="img" '
            f'viewBox="0 0 {width} {height}" width="100%" style="max-width:{width}px">\n'
        ),
        "<title>Evidence per rank over time</title>\n",
        _legend(),
    ]
    index = {lane.key: n for n, lane in enumerate(lanes)}
    rank_lane = {r: n for n, lane in enumerate(lanes) for r in lane.ranks}
    for n, lane in enumerate(lanes):
        y = _TOP + n * _ROW_H
        shade = "#f5f5f5" if n % 2 else "#ffffff"
        out.append(
            f'<g class="row" data-ranks="{_e(lane.key)}"><rect x="0" y="{y}" width="{width}" '
            f'height="{_ROW_H}" fill="{shade}"/><text x="6" y="{y + 12}">'
            f"{_e(_cut(lane.label, 28))}<title>{_e(lane.label, 2000)}</title></text></g>\n"
        )
    if axis is not None and origin is not None:
        out.append(_axis_marks(axis, len(lanes), origin))
    if untimed:
        bottom = _TOP + len(lanes) * _ROW_H
        out.append(
            f'<g class="untimed"><line x1="{untimed_x - 10}" y1="{_TOP - 4}" x2="{untimed_x - 10}"'
            f' y2="{bottom}" stroke="#999" stroke-dasharray="3,3"/>'
            f'<text x="{untimed_x}" y="{bottom + 14}">untimed</text></g>\n'
        )
    out.extend(_progress_marks(report, lanes, rank_lane, axis, origin, untimed_x))
    out.extend(_event_marks(findings, rank_lane, index, axis, origin, untimed_x))
    out.append("</svg>\n")
    return "".join(out)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _legend() -> str:
    items = [
        ("initiator", ROLE_COLORS[Role.INITIATOR]),
        ("collateral", ROLE_COLORS[Role.COLLATERAL]),
        ("context", ROLE_COLORS[Role.CONTEXT]),
    ]
    out = ['<g class="legend">']
    x = _LABEL_W + 10
    for name, color in items:
        out.append(f'<circle cx="{x}" cy="12" r="5" fill="{color}"/>')
        out.append(f'<text x="{x + 9}" y="16">{name}</text>')
        x += 95
    out.append(f'<path d="M{x} 7 l5 5 l-5 5 l-5 -5 z" fill="{PROGRESS_COLOR}"/>')
    out.append(f'<text x="{x + 9}" y="16">last progress</text></g>\n')
    return "".join(out)


def _axis_marks(axis: _Axis, rows: int, origin: datetime) -> str:
    bottom = _TOP + rows * _ROW_H
    unit, scale = _unit(axis.hi - axis.lo)
    step = _nice_step((axis.hi - axis.lo) / scale) * scale
    decimals = max(0, -math.floor(math.log10(step / scale)))
    out = [
        (
            f'<g class="axis"><line x1="{axis.x0}" y1="{bottom}" x2="{axis.x0 + axis.width}" '
            f'y2="{bottom}" stroke="#666"/>'
        )
    ]
    first = math.ceil(axis.lo / step)
    for n in range(first, first + 50):
        tick = n * step
        if tick > axis.hi:
            break
        x = axis.x(tick)
        label = "0" if n == 0 else f"{tick / scale:+.{decimals}f}{unit}"
        out.append(
            f'<line x1="{x:.1f}" y1="{_TOP - 4}" x2="{x:.1f}" y2="{bottom + 4}" '
            f'stroke="#ddd"/><text x="{x:.1f}" y="{bottom + 16}" text-anchor="middle">'
            f"{label}</text>"
        )
    if axis.lo <= 0 <= axis.hi:
        x = axis.x(0)
        out.append(
            f'<line x1="{x:.1f}" y1="{_TOP - 4}" x2="{x:.1f}" y2="{bottom}" stroke="#d62728" stroke-dasharray="2,3"/>'
        )
    out.append(
        f'<text x="{axis.x0}" y="{bottom + 32}">time from the first evidence ({_e(clock(origin))} UTC)</text></g>\n'
    )
    return "".join(out)


def _unit(span: float) -> tuple[str, float]:
    if span >= 3 * 3600:
        return "h", 3600.0
    if span >= 300:
        return "min", 60.0
    return "s", 1.0


def _nice_step(span: float, target: int = 6) -> float:
    if not math.isfinite(span) or span <= 0:
        return 1.0
    raw = span / target
    magnitude = 10.0 ** math.floor(math.log10(raw))
    for m in (1, 2, 5):
        if raw <= m * magnitude:
            return m * magnitude
    return 10 * magnitude


def _progress_marks(
    report: Report,
    lanes: Sequence[Lane],
    rank_lane: dict[int, int],
    axis: _Axis | None,
    origin: datetime | None,
    untimed_x: float,
) -> Iterable[str]:
    per_lane: dict[int, list[tuple[int, datetime | None, int | None]]] = defaultdict(list)
    for rank, t, step in report.progress:
        if rank in rank_lane:
            per_lane[rank_lane[rank]].append((rank, t, step))
    for n, entries in sorted(per_lane.items()):
        y = _TOP + n * _ROW_H + _ROW_H / 2
        timed = [(r, as_utc(t), s) for r, t, s in entries if t is not None]
        steps = [s for _r, _t, s in entries if s is not None]
        step_text = (
            ""
            if not steps
            else (f"step {min(steps)}" if min(steps) == max(steps) else f"steps {min(steps)}-{max(steps)}")
        )
        title = f"{lanes[n].label}: last progress {step_text}".rstrip()
        if timed and axis is not None and origin is not None:
            first = min(t for _r, t, _s in timed)
            last = max(t for _r, t, _s in timed)
            x1 = axis.x((first - origin).total_seconds())
            x2 = axis.x((last - origin).total_seconds())
            title += f" at {clock(first)}" + (f" to {clock(last)}" if last != first else "")
            if x2 - x1 >= 1:
                yield (
                    f'<rect class="progress" x="{x1:.1f}" y="{y - 2}" width="{x2 - x1:.1f}" '
                    f'height="4" fill="{PROGRESS_COLOR}" opacity="0.5"/>'
                )
            yield _diamond(x2, y, title)
        elif steps:
            yield _diamond(untimed_x + 20, y, title + " (untimed)")


def _diamond(x: float, y: float, title: str) -> str:
    return (
        f'<path class="progress" d="M{x:.1f} {y - 5:.1f} l4 5 l-4 5 l-4 -5 z" '
        f'fill="{PROGRESS_COLOR}"><title>{_e(title, 500)}</title></path>\n'
    )


def _event_marks(
    findings: Sequence[Finding],
    rank_lane: dict[int, int],
    index: dict[str, int],
    axis: _Axis | None,
    origin: datetime | None,
    untimed_x: float,
) -> Iterable[str]:
    """Markers deduplicated per (lane, pixel, role) so 128 ranks x 50 lines stays small;
    initiators are drawn last, on top."""
    marks: dict[tuple[int, int, Role], list[Finding]] = defaultdict(list)
    for f in findings:
        lane = rank_lane.get(f.rank) if f.rank is not None else index.get(f"node:{f.node or ''}")
        if lane is None:
            continue
        if f.time is not None and axis is not None and origin is not None:
            x = axis.x((as_utc(f.time) - origin).total_seconds())
        else:
            x = untimed_x + 40
        marks[(lane, round(x), f.role)].append(f)
    order = {Role.CONTEXT: 0, Role.COLLATERAL: 1, Role.INITIATOR: 2}
    for (lane, x, role), group in sorted(marks.items(), key=lambda kv: order[kv[0][2]]):
        y = _TOP + lane * _ROW_H + _ROW_H / 2
        f = group[0]
        when = clock(f.time) if f.time is not None else "untimed"
        who = f"rank {f.rank}" if f.rank is not None else (f.node or "no rank")
        title = f"{who} {f.rule} ({role.value}) {when}: {clean_line(f.text, TITLE_CHARS)}"
        if len(group) > 1:
            title += f" [+{len(group) - 1} more here]"
        radius = 5.5 if role is Role.INITIATOR else 4
        stroke = ' stroke="#000" stroke-width="1"' if role is Role.INITIATOR else ""
        yield (
            f'<circle class="ev {role.value}" cx="{x}" cy="{y}" r="{radius}" '
            f'fill="{ROLE_COLORS[role]}" fill-opacity="0.9"{stroke}><title>{_e(title)}</title>'
            "</circle>\n"
        )
