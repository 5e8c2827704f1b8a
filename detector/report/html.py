"""The HTML report: one self-contained page (inline CSS and SVG, no script, no fetches).

Every string that came from a log or a file name is untrusted and passes through ``_e``
(:func:`~detector.report.safe_text.html_text`: control characters made visible, then
``html.escape`` with quotes). The page also carries a Content-Security-Policy that forbids
scripts and external loads, as a second line of defence. The timeline plot is drawn by
:mod:`detector.report.html_timeline`.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

from detector.report.html_timeline import timeline_svg
from detector.report.safe_text import clean_line
from detector.report.safe_text import html_text as _e
from detector.report.wording import (
    clock,
    evidence_order,
    first_time,
    incident_cause_label,
    initiator_phrase,
    node_origin,
    node_sources_line,
    plural,
    verdict_line,
)
from detector.support.numbers import rank_ranges
from detector.types import Finding, Incident, Report, Role

TEXT_SHOWN = 400  # characters of a log line shown before a <details> with the rest
TEXT_KEPT = 16_000  # characters of a log line kept in the page at all
GROUPS_OPEN = 3  # evidence groups (rank x role) shown open; initiator groups are always open
GROUPS_LISTED = 40  # groups listed one by one; the rest go into one more <details>

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
        parts.append(_incident(incident, index, len(report.incidents), report.summary.node_sources))
    parts.append(_warnings(report.warnings))
    parts.append("</body>\n</html>\n")
    return "".join(parts)


def _verdict(report: Report) -> str:
    recovered = "".join(f"<li>{_e(said, 400)}</li>" for said in report.recovered)
    if recovered:
        recovered = f"<p>Recovered from (the workers restarted after it and trained on):</p>\n<ul>{recovered}</ul>\n"
    if not report.incidents:
        if report.recovered:
            return '<p class="verdict ok">No incident: the job recovered; no failure follows the restart.</p>\n' + recovered
        return '<p class="verdict ok">No incident: no failure evidence was found.</p>\n'
    lines = []
    many = len(report.incidents) > 1
    for index, incident in enumerate(report.incidents, start=1):
        head = f"#{index}: " if many else ""
        lines.append(f'<p class="verdict bad">{head}{_e(verdict_line(incident))}</p>\n')
    return "".join(lines) + recovered


def _summary(report: Report) -> str:
    s = report.summary
    text = f"{plural(s.files, 'file')}, {plural(s.lines, 'line')}, {plural(s.ranks, 'rank')}, {plural(s.nodes, 'node')}"
    names = node_sources_line(s.node_sources)
    if names is not None:
        text += f" ({names})"
    if s.start is not None and s.end is not None:
        text += f"; {clock(s.start)} to {clock(s.end)} UTC"
    return f'<p class="meta">Source <code>{_e(report.source, 1000)}</code>: {_e(text)}</p>\n'


def _incident(incident: Incident, index: int, total: int, sources: Sequence[tuple[str, str]] = ()) -> str:
    ini = incident.initiator
    rem = incident.remediation
    facts: list[tuple[str, str]] = [
        ("Cause", f"{incident.cause.value} ({incident_cause_label(incident)})"),
        ("Initiator", initiator_phrase(incident)),
    ]
    origin = node_origin(sources, ini.node)
    if origin is not None:
        facts.append(("Node name", origin))
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
