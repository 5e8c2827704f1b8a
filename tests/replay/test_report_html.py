"""The HTML report: one self-contained page, log text escaped, a timeline row per rank."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser

import pytest

from detector.report.html import render_html
from detector.report.html_timeline import MAX_RANK_ROWS, plot_lanes, timeline_svg
from detector.types import (
    Cause,
    Finding,
    Incident,
    Initiator,
    Remediation,
    Report,
    Role,
    Severity,
    Summary,
)

T0 = datetime(2026, 11, 29, 12, 0, 1, 123000, tzinfo=UTC)
VERIFY = "ssh node02 nvidia-smi --query-gpu=pci.bus_id,xid --format=csv"
SVG_NS = "{http://www.w3.org/2000/svg}"


def finding(
    rule: str,
    role: Role,
    text: str,
    *,
    rank: int | None,
    node: str | None = "node01",
    time: datetime | None = T0,
    file: str | None = "run/attempt_0/0/stderr.log",
) -> Finding:
    return Finding(
        rule=rule,
        role=role,
        cause=None,
        severity=Severity.ERROR,
        text=text,
        file=file,
        line=7,
        time=time,
        rank=rank,
        node=node,
    )


def make_incident(
    evidence: tuple[Finding, ...],
    initiator: Initiator,
    collateral: tuple[int, ...] = (),
    *,
    cause: Cause = Cause.GPU_HARDWARE,
    verify: str = VERIFY,
    explanation: str = "GPU 0000:2b:00 on node02 fell off the bus; the others timed out.",
) -> Incident:
    return Incident(
        id="inc-1",
        cause=cause,
        initiator=initiator,
        collateral_ranks=collateral,
        confidence=0.95,
        first_evidence_time=T0,
        explanation=explanation,
        evidence=evidence,
        remediation=Remediation(drain_node=True, resubmit=True, fix="Reboot node02.", verify=verify),
    )


def hardware_report(ranks: int = 16, initiator: int = 3) -> Report:
    evidence = [
        finding(
            "xid.fallen_off_bus",
            Role.INITIATOR,
            "NVRM: Xid (PCI:0000:2b:00): 79, GPU has fallen off the bus.",
            rank=initiator,
            node="node02",
            file="run/node02/dmesg.log",
        ),
        finding("launcher.child_failed", Role.CONTEXT, "ChildFailedError", rank=None, time=T0 + timedelta(seconds=605)),
    ]
    evidence += [
        finding(
            "nccl.watchdog_timeout",
            Role.COLLATERAL,
            f"[rank{r}]:[E1129 12:10:01 ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught "
            "collective operation timeout: WorkNCCL(SeqNum=15734, OpType=ALLREDUCE)",
            rank=r,
            time=T0 + timedelta(seconds=600, milliseconds=r),
        )
        for r in range(ranks)
        if r != initiator
    ]
    inc = make_incident(
        tuple(evidence),
        Initiator(rank=initiator, local_rank=3, node="node02", gpu="0000:2b:00", pid=4821),
        tuple(r for r in range(ranks) if r != initiator),
    )
    progress = tuple((r, T0 - timedelta(seconds=2), 15733 if r == initiator else 15734) for r in range(ranks))
    return Report(
        source="replay_logs/xid79",
        summary=Summary(files=ranks, lines=4000, ranks=ranks, nodes=2, start=T0, end=T0),
        incidents=(inc,),
        warnings=("run/attempt_0/7/stdout.log: empty file, skipped",),
        progress=progress,
    )


HOSTILE = (
    '<script>alert(1)</script> "><img src=x onerror=alert(2)> [bold]x[/bold] '
    "</svg><svg onload=alert(3)> &amp; \x1b[31m \x00 \u202e"
)


def hostile_report() -> Report:
    inc = make_incident(
        (
            finding("py.exc<b>", Role.INITIATOR, HOSTILE, rank=3, node="<i>node</i>", file="a\"'<x>.log"),
            finding("py.ctx", Role.CONTEXT, HOSTILE, rank=None, node="<u>n2</u>", time=None),
        ),
        Initiator(rank=3, node="<i>node</i>", gpu="<gpu>"),
        verify="echo '<script>alert(4)</script>' && rm -rf \"$X\"",
        explanation=HOSTILE,
    )
    return Report(
        source="<script>alert(5)</script>",
        summary=Summary(),
        incidents=(inc,),
        warnings=(HOSTILE,),
        progress=((3, T0, 1),),
    )


class TagCollector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []
        self.data: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs.extend(attrs)

    def handle_data(self, data: str) -> None:
        self.data.append(data)


ALLOWED_TAGS = {
    "html",
    "head",
    "meta",
    "title",
    "style",
    "body",
    "h1",
    "h2",
    "h3",
    "p",
    "span",
    "code",
    "pre",
    "section",
    "dl",
    "dt",
    "dd",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "details",
    "summary",
    "div",
    "ul",
    "li",
    "svg",
    "g",
    "rect",
    "text",
    "line",
    "circle",
    "path",
}


def parse(page: str) -> TagCollector:
    collector = TagCollector()
    collector.feed(page)
    collector.close()
    return collector


def svg_root(page: str) -> ET.Element:
    match = re.search(r"<svg\b.*?</svg>", page, re.S)
    assert match, "no inline SVG"
    return ET.fromstring(match.group(0))  # well-formed XML: nothing unescaped inside


def rows(page: str) -> list[str]:
    root = svg_root(page)
    return [g.attrib["data-ranks"] for g in root.iter(f"{SVG_NS}g") if g.get("class") == "row"]


# --- structure ---------------------------------------------------------------------------


def test_page_is_self_contained() -> None:
    page = render_html(hardware_report())
    assert page.startswith("<!DOCTYPE html>")
    tags = parse(page)
    assert set(tags.tags) <= ALLOWED_TAGS
    assert "script" not in tags.tags and "link" not in tags.tags and "img" not in tags.tags
    for name, value in tags.attrs:
        assert name not in ("src", "href") and not name.startswith("on"), (name, value)
    assert "url(" not in page and "@import" not in page
    urls = set(re.findall(r"https?://[^\s\"'<>]+", page))
    assert urls <= {"http://www.w3.org/2000/svg"}
    assert "Content-Security-Policy" in page


def test_verdict_and_details() -> None:
    page = render_html(hardware_report())
    text = " ".join(parse(page).data)
    first_verdict = re.search(r'<p class="verdict bad">(.*?)</p>', page)
    assert first_verdict
    assert "gpu_hardware on rank 3, node02, GPU 0000:2b:00 (confidence 0.95)" in first_verdict[1]
    assert page.index('class="verdict') < page.index("<svg")  # the verdict comes first
    assert VERIFY in text
    assert "15 ranks: 0-2,4-15" in text
    assert '<tr class="initiator">' in page
    assert page.count('<tr class="collateral">') == 15


def test_one_timeline_row_per_rank_for_16_ranks() -> None:
    page = render_html(hardware_report())
    lanes = rows(page)
    assert lanes[:16] == [str(r) for r in range(16)]
    assert lanes[16:] == ["node:node01"]  # the rankless launcher line gets its own lane
    root = svg_root(page)
    circles = [c for c in root.iter(f"{SVG_NS}circle") if "ev" in c.get("class", "").split()]
    roles = [c.get("class", "").split()[1] for c in circles]
    assert roles.count("initiator") == 1 and roles.count("collateral") == 15
    assert roles.count("context") == 1
    assert {c.get("fill") for c in circles if "initiator" in c.get("class", "")} == {"#d62728"}
    progress = [p for p in root.iter(f"{SVG_NS}path") if p.get("class") == "progress"]
    assert len(progress) == 16
    axis_labels = [t.text for g in root.iter(f"{SVG_NS}g") if g.get("class") == "axis" for t in g.iter(f"{SVG_NS}text")]
    assert "0" in axis_labels and "+10min" in axis_labels


@pytest.mark.parametrize("ranks", [128, 1024])
def test_big_runs_collapse_quiet_ranks(ranks: int) -> None:
    page = render_html(hardware_report(ranks=ranks, initiator=77))
    lanes = rows(page)
    assert lanes == ["0-76", "77", f"78-{ranks - 1}", "node:node01"]
    assert len(plot_lanes(hardware_report(ranks=ranks, initiator=77))) <= 2 * MAX_RANK_ROWS + 2
    assert len(page) < 150_000 + ranks * 700  # evidence rows grow, the plot does not


def test_big_run_with_few_evidence_ranks_shows_them_individually() -> None:
    report = hardware_report(ranks=128, initiator=5)
    inc = report.incidents[0]
    few = tuple(f for f in inc.evidence if f.rank in (None, 5, 40, 41, 100))
    small = Report(
        source=report.source,
        summary=report.summary,
        incidents=(make_incident(few, inc.initiator, inc.collateral_ranks),),
        progress=report.progress,
    )
    assert rows(render_html(small)) == [
        "0-4",
        "5",
        "6-39",
        "40",
        "41",
        "42-99",
        "100",
        "101-127",
        "node:node01",
    ]


# --- untrusted text ----------------------------------------------------------------------


def test_log_text_cannot_inject_markup_or_script() -> None:
    page = render_html(hostile_report())
    lowered = page.lower()
    assert "<script" not in lowered
    assert "<img" not in lowered
    assert "<svg onload" not in lowered
    assert "<i>node</i>" not in page and "<b>" not in page and "<u>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;script&gt;alert(5)&lt;/script&gt;" in page  # the source, in <title> and <h1>
    assert "\x1b" not in page and "\x00" not in page and "\u202e" not in page
    tags = parse(page)
    assert set(tags.tags) <= ALLOWED_TAGS
    assert not [name for name, _ in tags.attrs if name.startswith("on")]
    text = "".join(tags.data)
    assert "<script>alert(1)</script>" in text  # shown to the reader, as text
    assert "[bold]x[/bold]" in text
    assert "echo '<script>alert(4)</script>'" in text
    assert len(svg_root(page)) > 0
    assert page.count("<svg") == 1 and page.count("</svg>") == 1


def test_ten_kilobyte_line() -> None:
    long_text = "0123456789" * 1024
    report = hardware_report()
    inc = report.incidents[0]
    big = finding("py.exc", Role.INITIATOR, long_text, rank=3, node="node02")
    one = Report(
        source="s",
        summary=Summary(),
        incidents=(make_incident((big, *inc.evidence), inc.initiator, inc.collateral_ranks),),
    )
    page = render_html(one)
    assert "+9840 chars" in page  # the first 400 are shown, the rest folded in <details>
    assert page.count("0123456789") >= 1000  # all of a 10 KB line is kept
    assert len(page) < 60_000
    svg = re.search(r"<svg\b.*?</svg>", page, re.S)
    assert svg and len(svg.group(0)) < 20_000  # tooltips are cut


# --- degenerate reports ------------------------------------------------------------------


def test_healthy_report() -> None:
    report = Report(
        source="replay_logs/healthy",
        summary=Summary(files=4, lines=1200, ranks=4, nodes=1),
        warnings=("notes.txt: skipped",),
        progress=tuple((r, T0 + timedelta(seconds=r), 500) for r in range(4)),
    )
    page = render_html(report)
    assert '<p class="verdict ok">No incident' in page
    assert rows(page) == ["0", "1", "2", "3"]
    assert "notes.txt: skipped" in page
    assert set(parse(page).tags) <= ALLOWED_TAGS


def test_empty_report() -> None:
    page = render_html(Report(source="", summary=Summary()))
    assert "No incident" in page
    assert "<svg" not in page
    assert "No ranks and no evidence to plot" in page


def test_events_without_time_go_to_the_untimed_lane() -> None:
    evidence = (
        finding("a.init", Role.INITIATOR, "boom", rank=0, time=None),
        finding("b.coll", Role.COLLATERAL, "timeout", rank=1, time=None),
        finding("k.ctx", Role.CONTEXT, "kernel", rank=None, node=None, time=None),
    )
    inc = Incident(
        id="x",
        cause=Cause.UNKNOWN,
        initiator=Initiator(),
        collateral_ranks=(1,),
        confidence=0.0,
        first_evidence_time=None,
        explanation="",
        evidence=evidence,
        remediation=Remediation(drain_node=False, resubmit=False, fix="", verify=""),
    )
    report = Report(source="s", summary=Summary(), incidents=(inc,), progress=((0, None, 12),))
    svg = timeline_svg(report)
    root = ET.fromstring(svg)
    assert [g.get("class") for g in root.iter(f"{SVG_NS}g") if g.get("class") == "untimed"]
    assert not [g for g in root.iter(f"{SVG_NS}g") if g.get("class") == "axis"]
    circles = [c for c in root.iter(f"{SVG_NS}circle") if "ev" in c.get("class", "").split()]
    assert len(circles) == 3
    assert len({c.get("cx") for c in circles}) == 1  # all in the untimed column
    assert rows(render_html(report)) == ["0", "1", "node:"]


def test_mixed_timed_and_untimed() -> None:
    report = hardware_report()
    inc = report.incidents[0]
    extra = finding("k.ctx", Role.CONTEXT, "no time", rank=4, time=None)
    mixed = Report(
        source="s",
        summary=Summary(),
        incidents=(make_incident((*inc.evidence, extra), inc.initiator, inc.collateral_ranks),),
        progress=report.progress,
    )
    root = svg_root(render_html(mixed))
    classes = [g.get("class") for g in root.iter(f"{SVG_NS}g")]
    assert "axis" in classes and "untimed" in classes
