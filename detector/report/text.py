"""The human text report of ``rankdoctor replay``: verdict first, then details per incident.

Everything a log produced (log lines, file names, node names, rule ids from user packs) is
untrusted: it goes to rich as ``Text`` objects, never as markup, after ``clean_line``
(:mod:`detector.report.safe_text`) has made control characters visible. The output is readable
without colour at 80 columns: emphasis is also spelled out (``INITIATOR``), and only the verify
command is printed without wrapping so it can be copied.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from detector.report.safe_text import clean_line
from detector.report.text_timeline import _print_timeline, _role_text, _short, ranks_phrase
from detector.report.wording import (
    as_utc,
    clock,
    evidence_order,
    incident_cause_label,
    initiator_phrase,
    node_origin,
    node_sources_line,
    plural,
    verdict_line,
)
from detector.support.numbers import rank_ranges
from detector.types import Finding, Incident, Report, Role

# How much of a log line the default view shows; verbose shows more, never unbounded.
TEXT_LIMIT = 200
VERBOSE_TEXT_LIMIT = 4000
# Rows beyond the initiator ones that the default view lists in tables and timelines.
OTHER_ROWS = 10
PER_RULE_ROWS = 2  # and at most this many of each (rule, role)
INITIATOR_ROWS = 12  # the initiator rows shown at most (the rest counted per rule, like the others)
WARNINGS_SHOWN = 20
CONTEXT_LINES = 20
WIDE = 120  # consoles at least this wide get the one-column-per-field evidence table


# --- the report -------------------------------------------------------------------------


def render_text(report: Report, console: Console, *, verbose: bool = False) -> None:
    """Print ``report`` for a person: verdict lines, then each incident, then warnings."""
    _print_verdict(report, console)
    _print_summary(report, console)
    for index, incident in enumerate(report.incidents, start=1):
        console.print()
        _print_incident(incident, index, len(report.incidents), console, verbose, report.summary.node_sources)
    if report.progress:
        console.print()
        _print_progress(report, console)
    if report.warnings:
        console.print()
        _print_warnings(report.warnings, console, verbose)


def _print_verdict(report: Report, console: Console) -> None:
    if not report.incidents:
        s = report.summary
        said = ("the job recovered (its workers were restarted after a failure and trained on); "
                "no failure after that in " if report.recovered else "no failure evidence in ")
        line = Text.assemble(
            ("VERDICT: no incident", "bold green"),
            f" - {said}{plural(s.files, 'file')}, {plural(s.lines, 'line')}, "
            f"{plural(s.ranks, 'rank')}.",
        )
        console.print(line)
    else:
        many = len(report.incidents) > 1
        for index, incident in enumerate(report.incidents, start=1):
            head = f"VERDICT #{index}: " if many else "VERDICT: "
            console.print(Text.assemble((head, "bold red"), (verdict_line(incident), "bold")))
    if report.recovered:
        console.print(Text("Recovered from (the workers restarted after it and trained on):", style="bold"))
        for said in report.recovered:
            console.print(Text(f"  {clean_line(said, 300)}"))


def _print_summary(report: Report, console: Console) -> None:
    s = report.summary
    console.print(Text(f"Source: {clean_line(report.source, 300)}", style="dim"))
    line = (
        f"Input: {plural(s.files, 'file')}, {plural(s.lines, 'line')}, "
        f"{plural(s.ranks, 'rank')}, {plural(s.nodes, 'node')}"
    )
    names = node_sources_line(s.node_sources)
    if names is not None:
        line += f" ({clean_line(names, 200)})"
    console.print(Text(line, style="dim"))
    if s.start is not None and s.end is not None:
        same_day = as_utc(s.start).date() == as_utc(s.end).date()
        end = clock(s.end, date=not same_day).rsplit(".", 1)[0]
        span = f"Span: {clock(s.start).rsplit('.', 1)[0]} -> {end} UTC"
        console.print(Text(span, style="dim"))


def _print_incident(incident: Incident, index: int, total: int, console: Console, verbose: bool,
                    sources: Sequence[tuple[str, str]] = ()) -> None:
    title = Text(f"Incident {index}/{total}: {incident.cause.value} ", style="bold")
    title.append(f"[{clean_line(incident.id, 80)}]", style="dim")
    console.rule(title, align="left", style="dim")
    ini = incident.initiator
    facts: list[tuple[str, str]] = [
        ("Cause", f"{incident.cause.value} - {incident_cause_label(incident)}"),
        ("Initiator", clean_line(initiator_phrase(incident), 300) + _initiator_extra(incident, sources)),
    ]
    if incident.collateral_ranks:
        n = len(set(incident.collateral_ranks))
        ranges = _short(rank_ranges(incident.collateral_ranks), 60, verbose)
        facts.append(("Collateral", f"{n} rank{'s' if n != 1 else ''}: {ranges}"))
    else:
        facts.append(("Collateral", "none"))
    if incident.first_evidence_time is not None:
        facts.append(("First evidence", f"{clock(incident.first_evidence_time)} UTC"))
    facts.append(("Confidence", f"{incident.confidence:.2f}"))
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(overflow="fold")
    for name, value in facts:
        grid.add_row(Text(name), Text(value))
    console.print(grid)
    if ini.rank is None and ini.node is None and initiator_phrase(incident) == "an unknown rank":
        console.print(Text("The initiating rank could not be determined.", style="yellow"))
    console.print()
    explanation = clean_line(incident.explanation, None if verbose else 2000, newlines=True)
    console.print(Text(explanation or "(no explanation given)"))
    console.print()
    _print_remediation(incident, console)
    console.print()
    _print_evidence(incident, console, verbose)
    console.print()
    _print_timeline(incident, console, verbose)


def _initiator_extra(incident: Incident, sources: Sequence[tuple[str, str]] = ()) -> str:
    ini = incident.initiator
    extra: list[str] = []
    if ini.local_rank is not None:
        extra.append(f"local rank {ini.local_rank}")
    if ini.pid is not None:
        extra.append(f"pid {ini.pid}")
    origin = node_origin(sources, ini.node)
    if origin is not None:
        extra.append(f"node {origin}")
    return f" ({', '.join(extra)})" if extra else ""


def _print_remediation(incident: Incident, console: Console) -> None:
    rem = incident.remediation
    node = clean_line(incident.initiator.node or "", 100)
    console.print(Text("Remediation", style="bold underline"))
    drain = (f"yes - drain {node}" if node else "yes (node not known: find it first)") if rem.drain_node else "no"
    grid = Table.grid(padding=(0, 2))
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")
    grid.add_row(Text("  Drain node"), Text(drain, style="bold red" if rem.drain_node else ""))
    grid.add_row(
        Text("  Resubmit"),
        Text("yes - resume from the last checkpoint" if rem.resubmit else "no"),
    )
    grid.add_row(Text("  Fix"), Text(clean_line(rem.fix, 2000, newlines=True) or "(none given)"))
    console.print(grid)
    verify = clean_line(rem.verify, 2000)
    if verify:
        console.print(Text("  Verify (run this):"))
        # Own line, no wrapping and no decoration, so a terminal copy gives the exact command.
        console.print(Text(f"    {verify}", style="bold reverse"), soft_wrap=True)
    else:
        console.print(Text("  Verify: (no command given)"))


def _file_line(f: Finding, verbose: bool) -> str:
    if not f.file:
        return "" if f.line is None else f"?:{f.line}"
    name = clean_line(f.file, 500)
    if not verbose and len(name) > 28:
        tail = name.replace("\\", "/").rsplit("/", 2)
        name = ".../" + "/".join(tail[-2:]) if len(tail) > 1 else "..." + name[-25:]
    return name if f.line is None else f"{name}:{f.line}"


def _select_rows(incident: Incident, verbose: bool) -> tuple[list[Finding], dict[tuple[str, Role], list[Finding]]]:
    """All rows when verbose; else the initiator rows (up to :data:`INITIATOR_ROWS`: a line
    repeated thousands of times is not a report a person reads) and a few of each other (rule,
    role), returning what was left out per (rule, role)."""
    ordered = evidence_order(incident.evidence)
    hidden: dict[tuple[str, Role], list[Finding]] = defaultdict(list)
    if verbose:
        return ordered, hidden
    shown: list[Finding] = []
    per_group: dict[tuple[str, Role], int] = defaultdict(int)
    others = initiators = 0
    for f in ordered:
        group = (f.rule, f.role)
        if f.role is Role.INITIATOR and initiators < INITIATOR_ROWS:
            shown.append(f)
            initiators += 1
        elif f.role is not Role.INITIATOR and others < OTHER_ROWS and per_group[group] < PER_RULE_ROWS:
            shown.append(f)
            per_group[group] += 1
            others += 1
        else:
            hidden[group].append(f)
    return shown, hidden


def _print_evidence(incident: Incident, console: Console, verbose: bool) -> None:
    shown, hidden = _select_rows(incident, verbose)
    total = len(incident.evidence)
    console.print(Text(f"Evidence ({len(shown)} of {total})", style="bold underline"))
    if not shown:
        console.print(Text("  (no evidence recorded)"))
        return
    times = [as_utc(f.time) for f in shown if f.time is not None]
    with_date = len({t.date() for t in times}) > 1
    wide = console.width >= WIDE
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, expand=False)
    table.add_column("time (UTC)", no_wrap=True)
    if wide:
        table.add_column("rank", justify="right", no_wrap=True)
        table.add_column("node", overflow="fold", max_width=20)
        table.add_column("rule", overflow="fold", max_width=32)
        table.add_column("role", no_wrap=True)
        table.add_column("file:line", overflow="fold", max_width=40)
        table.add_column("text", overflow="fold", ratio=1)
    else:
        table.add_column("rank / node", overflow="fold", max_width=16)
        table.add_column("rule, role, file:line / text", overflow="fold", ratio=1)
    limit = VERBOSE_TEXT_LIMIT if verbose else TEXT_LIMIT
    for f in shown:
        when = Text(clock(f.time, date=with_date) if f.time is not None else "untimed")
        rank = Text("-" if f.rank is None else str(f.rank))
        node = Text(clean_line(f.node or "-", 100))
        body = Text(clean_line(f.text, limit) or "(empty line)", overflow="fold")
        if verbose and f.context:
            for extra in f.context[:CONTEXT_LINES]:
                body.append("\n  " + clean_line(extra, limit), style="dim")
            if len(f.context) > CONTEXT_LINES:
                body.append(f"\n  ... (+{len(f.context) - CONTEXT_LINES} lines)", style="dim")
        rule = Text(clean_line(f.rule, 200) or "-")
        where = Text(_file_line(f, verbose), style="dim")
        row_style = "bold" if f.role is Role.INITIATOR else ""
        if wide:
            table.add_row(when, rank, node, rule, _role_text(f.role), where, body, style=row_style)
        else:
            who = Text(f"{'(no rank)' if f.rank is None else f'rank {f.rank}'}\n{node.plain}")
            what = Text.assemble(rule, " ", _role_text(f.role), "  ", where, "\n", body)
            table.add_row(when, who, what, style=row_style)
    console.print(table)
    for (rule_id, role), rows in hidden.items():
        note = f"  ... +{len(rows)} more {clean_line(rule_id, 100) or '-'} ({role.value})"
        ranks = [f.rank for f in rows if f.rank is not None]
        if ranks:
            note += f" {ranks_phrase(ranks)}"
        console.print(Text(note, style="dim"))
    if hidden:
        console.print(Text("  (--verbose lists every row)", style="dim"))


# --- timeline ----------------------------------------------------------------------------


def _print_progress(report: Report, console: Console) -> None:
    by_step: dict[int | None, list[int]] = defaultdict(list)
    for rank, _time, step in report.progress:
        by_step[step].append(rank)
    if set(by_step) == {None}:
        return
    console.print(Text("Progress (last step reached per rank)", style="bold underline"))
    known = sorted((s for s in by_step if s is not None), reverse=True)
    for step in known[:6]:
        console.print(Text(f"  step {step}: {ranks_phrase(by_step[step])}"))
    if len(known) > 6:
        rest = [r for s in known[6:] for r in by_step[s]]
        console.print(Text(f"  lower steps: {ranks_phrase(rest)}"))
    if None in by_step:
        console.print(Text(f"  no step seen: {ranks_phrase(by_step[None])}"))


def _print_warnings(warnings: Sequence[str], console: Console, verbose: bool) -> None:
    console.print(Text(f"Warnings ({len(warnings)})", style="bold yellow"))
    shown = warnings if verbose else warnings[:WARNINGS_SHOWN]
    for w in shown:
        console.print(Text(f"  - {clean_line(w, 1000, newlines=False)}"))
    if len(shown) < len(warnings):
        console.print(Text(f"  ... {len(warnings) - len(shown)} more; --verbose shows all"))
