"""The HTML report: one self-contained page (inline CSS and SVG, no script, no fetches).

Every string that came from a log or a file name is untrusted and passes through ``_e``
(control characters made visible, then ``html.escape`` with quotes). The page also carries a
Content-Security-Policy that forbids scripts and external loads, as a second line of defence.
"""

from __future__ import annotations

import html
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from detector.report.text import (
    as_utc,
    cause_label,
    clean_line,
    clock,
    evidence_order,
    first_time,
    initiator_phrase,
    plural,
    rank_ranges,
    verdict_line,
)
from detector.types import Finding, Incident, Report, Role

ROLE_COLORS: dict[Role, str] = {
    Role.INITIATOR: "#d62728",
    Role.COLLATERAL: "#f0a202",
    Role.CONTEXT: "#9e9e9e",
}
PROGRESS_COLOR = "#1f5fbf"
MAX_RANK_ROWS = 32  # above this many ranks, quiet ranks are collapsed into range rows
TEXT_SHOWN = 400  # characters of a log line shown before a <details> with the rest
TEXT_KEPT = 16_000  # characters of a log line kept in the page at all
GROUPS_OPEN = 3  # evidence groups (rank x role) shown open; initiator groups are always open
GROUPS_LISTED = 40  # groups listed one by one; the rest go into one more <details>
TITLE_CHARS = 300  # characters of a log line in an SVG tooltip

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5em auto;
max-width:1200px;padding:0 1em;color:#1d1d1d;background:#fff;overflow-wrap:anywhere}
h1{font-size:1.4em;margin:.2em 0}h2{font-size:1.15em;margin-top:1.6em;
border-bottom:1px solid #ddd;padding-bottom:.2em}h3{font-size:1em;margin:1em 0 .3em}
.verdict{padding:.6em 1em;border-radius:6px;margin:.3em 0;font-weight:600}
.verdict.bad{background:#fdecea;border-left:6px solid #d62728}
.verdict.ok{background:#e8f5e9;border-left:6px solid #2e7d32}
.meta{color:#555}dl.facts{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.15em 1em}
dl.facts dt{font-weight:600}dl.facts dd{margin:0;min-width:0}
pre.cmd{background:#1d1d1d;color:#f5f5f5;padding:.6em .8em;border-radius:4px;
white-space:pre-wrap;overflow-wrap:anywhere;word-break:break-all;user-select:all}
svg.timeline{display:block;height:auto}
details.ev-group{border:1px solid #e4e4e4;border-radius:4px;margin:.3em 0}
details.ev-group>summary{padding:.3em .5em;cursor:pointer;background:#f7f7f7}
details.ev-group[open]>summary{border-bottom:1px solid #e4e4e4}
details.ev-more>summary{padding:.3em 0;cursor:pointer}
summary .role{font-weight:600;text-transform:uppercase;font-size:11px;letter-spacing:.03em;
padding:.05em .4em;border-radius:3px;color:#fff}
summary .role.initiator{background:#d62728}summary .role.collateral{background:#a66d00}
summary .role.context{background:#757575}
table.ev{border-collapse:collapse;width:100%;font-size:12.5px;table-layout:fixed}
table.ev th.time{width:8em}table.ev th.rule{width:22%}table.ev th.where{width:18%}
table.ev th,table.ev td{border-bottom:1px solid #e4e4e4;padding:.25em .4em;text-align:left;
vertical-align:top;overflow-wrap:anywhere}table.ev th{background:#f4f4f4}
table.ev td.text{font-family:ui-monospace,Menlo,Consolas,monospace;white-space:pre-wrap;
word-break:break-all}
table.ev td.time{overflow-wrap:normal}
tr.initiator td{background:#fdecea;font-weight:600}tr.context td{color:#666}
@media (max-width:600px){body{padding:0 .5em}table.ev thead{display:none}
table.ev,table.ev tbody,table.ev tr,table.ev td{display:block;width:auto}
table.ev tr{border-bottom:1px solid #e4e4e4;padding:.2em 0}table.ev td{border:0;padding:.05em .4em}}
.warn{background:#fff8e1;border-left:4px solid #f0a202;padding:.4em .8em}
svg text{font:11px ui-monospace,Menlo,Consolas,monospace;fill:#333}
.note{color:#666;font-style:italic}
"""
_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def _e(value: object, limit: int | None = None) -> str:
    """Untrusted text -> HTML/SVG text or attribute content."""
    return html.escape(clean_line(str(value), limit, newlines=True), quote=True)


def render_html(report: Report) -> str:
    """The whole report as one HTML document."""
    title = f"rankdoctor: {clean_line(report.source, 200)}"
    parts = [
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n',
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">\n',
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
        f"<title>{html.escape(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n",
        f"<h1>{html.escape(title)}</h1>\n",
        _verdict(report),
        _summary(report),
        "<h2>Timeline</h2>\n",
        timeline_svg(report),
    ]
    for index, incident in enumerate(report.incidents, start=1):
        parts.append(_incident(incident, index, len(report.incidents)))
    parts.append(_warnings(report.warnings))
    parts.append("</body>\n</html>\n")
    return "".join(parts)


def _verdict(report: Report) -> str:
    if not report.incidents:
        return '<p class="verdict ok">No incident: no failure evidence was found.</p>\n'
    lines = []
    many = len(report.incidents) > 1
    for index, incident in enumerate(report.incidents, start=1):
        head = f"#{index}: " if many else ""
        lines.append(f'<p class="verdict bad">{head}{_e(verdict_line(incident))}</p>\n')
    return "".join(lines)


def _summary(report: Report) -> str:
    s = report.summary
    text = f"{plural(s.files, 'file')}, {plural(s.lines, 'line')}, {plural(s.ranks, 'rank')}, {plural(s.nodes, 'node')}"
    if s.start is not None and s.end is not None:
        text += f"; {clock(s.start)} to {clock(s.end)} UTC"
    return f'<p class="meta">Source <code>{_e(report.source, 1000)}</code>: {_e(text)}</p>\n'


def _incident(incident: Incident, index: int, total: int) -> str:
    ini = incident.initiator
    rem = incident.remediation
    facts: list[tuple[str, str]] = [
        ("Cause", f"{incident.cause.value} ({cause_label(incident.cause)})"),
        ("Initiator", initiator_phrase(incident)),
    ]
    if ini.local_rank is not None:
        facts.append(("Local rank", str(ini.local_rank)))
    if ini.pid is not None:
        facts.append(("PID", str(ini.pid)))
    collateral = sorted(set(incident.collateral_ranks))
    if collateral:
        facts.append(("Collateral", f"{plural(len(collateral), 'rank')}: {rank_ranges(collateral)}"))
    else:
        facts.append(("Collateral", "none"))
    if incident.first_evidence_time is not None:
        facts.append(("First evidence", f"{clock(incident.first_evidence_time)} UTC"))
    facts.append(("Confidence", f"{incident.confidence:.2f}"))
    node = ini.node or "the initiator's node (unknown)"
    facts.append(("Drain node", f"yes: {node}" if rem.drain_node else "no"))
    facts.append(("Resubmit", "yes (resumes from the last checkpoint)" if rem.resubmit else "no"))
    facts.append(("Fix", rem.fix or "(none given)"))
    dl = "".join(f"<dt>{_e(k)}</dt><dd>{_e(v, 4000)}</dd>" for k, v in facts)
    verify = (
        f'<h3>Verify</h3>\n<pre class="cmd"><code>{_e(rem.verify, 4000)}</code></pre>\n'
        if rem.verify
        else '<p class="note">No verify command given.</p>\n'
    )
    return (
        f'<section class="incident" id="incident-{index}">\n'
        f"<h2>Incident {index}/{total}: {_e(incident.cause.value)} "
        f'<span class="meta">[{_e(incident.id, 200)}]</span></h2>\n'
        f"<p>{_e(incident.explanation or '(no explanation given)', 8000)}</p>\n"
        f'<dl class="facts">{dl}</dl>\n{verify}'
        f"<h3>Evidence ({_evidence_count(incident)})</h3>\n{_evidence(incident)}"
        "</section>\n"
    )


_EV_HEAD = (
    '<table class="ev"><thead><tr><th class="time">time (UTC)</th><th class="rule">rule</th>'
    '<th class="where">file:line</th><th>text</th></tr></thead><tbody>\n'
)


def _evidence_count(incident: Incident) -> str:
    ranks = {f.rank for f in incident.evidence if f.rank is not None}
    text = plural(len(incident.evidence), "line")
    return f"{text} from {plural(len(ranks), 'rank')}" if ranks else text


@dataclass(frozen=True, slots=True)
class EvidenceGroup:
    """The evidence of one rank (or of one node's rankless lines) in one role."""

    rank: int | None
    node: str | None
    role: Role
    findings: tuple[Finding, ...]

    @property
    def label(self) -> str:
        if self.rank is not None:
            return f"rank {self.rank}" + (f" on {self.node}" if self.node else "")
        return f"{self.node} (no rank)" if self.node else "no rank, no node"


def evidence_groups(incident: Incident) -> list[EvidenceGroup]:
    """The incident's evidence grouped by rank and role, in reading order: the initiator-grade
    groups, the initiator's other groups, then the rest by the time of their first line."""
    found: dict[tuple[int | None, str | None, Role], list[Finding]] = {}
    for f in evidence_order(incident.evidence):
        found.setdefault((f.rank, f.node if f.rank is None else None, f.role), []).append(f)
    groups = [
        EvidenceGroup(rank, node if rank is None else next((f.node for f in lines if f.node), None), role, tuple(lines))
        for (rank, node, role), lines in found.items()
    ]
    initiator = incident.initiator.rank
    return sorted(groups, key=lambda g: _reading_order(g, initiator))  # stable: ties keep the time order


_ROLE_ORDER = {Role.INITIATOR: 0, Role.COLLATERAL: 1, Role.CONTEXT: 2}


def _reading_order(group: EvidenceGroup, initiator: int | None) -> tuple[int, int]:
    if group.role is Role.INITIATOR:
        return (0, 0)
    if initiator is not None and group.rank == initiator:
        return (1, _ROLE_ORDER[group.role])
    return (2, 0)


def _evidence(incident: Incident) -> str:
    if not incident.evidence:
        return '<p class="note">No evidence recorded.</p>\n'
    groups = evidence_groups(incident)
    out = [_group(g, g.role is Role.INITIATOR or n < GROUPS_OPEN) for n, g in enumerate(groups[:GROUPS_LISTED])]
    rest = groups[GROUPS_LISTED:]
    if rest:
        lines = sum(len(g.findings) for g in rest)
        ranks = rank_ranges(g.rank for g in rest if g.rank is not None)
        label = f"{plural(len(rest), 'more group')}, {plural(lines, 'line')}" + (f" (ranks {ranks})" if ranks else "")
        out.append(f'<details class="ev-more"><summary>{_e(label)}</summary>\n')
        out.extend(_group(g, False) for g in rest)
        out.append("</details>\n")
    return "".join(out)


def _group(group: EvidenceGroup, is_open: bool) -> str:
    rules = list(dict.fromkeys(f.rule for f in group.findings))
    shown = ", ".join(rules[:4]) + (f" +{len(rules) - 4}" if len(rules) > 4 else "")
    when = first_time(group.findings)
    summary = f"{group.label}: {plural(len(group.findings), 'line')}" + (f" from {clock(when)}" if when else "")
    rank = "" if group.rank is None else str(group.rank)
    return (
        f'<details class="ev-group" data-rank="{_e(rank)}" data-node="{_e(group.node or "", 200)}" '
        f'data-role="{group.role.value}"{" open" if is_open else ""}><summary>'
        f'<span class="role {group.role.value}">{group.role.value}</span> {_e(summary)} '
        f'<span class="meta">{_e(shown, 300)}</span></summary>\n'
        f'{_EV_HEAD}{"".join(_evidence_row(f) for f in group.findings)}</tbody></table></details>\n'
    )


def _evidence_row(f: Finding) -> str:
    where = f.file or ""
    if f.line is not None:
        where = f"{where}:{f.line}"
    context = "\n".join(f.context[:20])
    text = f.text + ("\n" + context if context else "")
    if len(text) > TEXT_SHOWN:
        cell = (
            f"{_e(text[:TEXT_SHOWN])}<details><summary>+{len(text) - TEXT_SHOWN} chars</summary>"
            f"{_e(text[TEXT_SHOWN:], TEXT_KEPT)}</details>"
        )
    else:
        cell = _e(text)
    when = clock(f.time) if f.time is not None else "untimed"
    return (
        f'<tr class="{f.role.value}"><td class="time">{_e(when, 500)}</td><td>{_e(f.rule, 500)}</td>'
        f'<td class="where">{_e(where, 1000)}</td><td class="text">{cell}</td></tr>\n'
    )


def _warnings(warnings: Sequence[str]) -> str:
    if not warnings:
        return ""
    items = "".join(f"<li>{_e(w, 2000)}</li>" for w in warnings)
    return f'<h2>Warnings ({len(warnings)})</h2>\n<div class="warn"><ul>{items}</ul></div>\n'


# --- the timeline plot --------------------------------------------------------------------


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
