"""The HTML report in a real headless browser (Debian's Chromium driven by Playwright): at
widths 1280, 1024, 768 and 390 the page throws nothing, logs no console error, loads nothing
from outside, does not scroll sideways, shows the timeline and every verify command whole
(wrapped, not cut off), and groups the evidence by rank and role with the groups beyond the
first few collapsed. The checker is shown to catch each of these when the page is broken on
purpose. Skips, saying why, where Playwright or Chromium is missing.

``python -m tests.report.test_html_browser docs/img/report.png`` re-takes the README's screenshot.
"""

from __future__ import annotations

import re
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from detector.replay import replay_path
from detector.report.html import GROUPS_OPEN, render_html
from detector.report.jsonfmt import report_to_dict
from detector.rules.engine import RuleSet
from tests.support.paths import REPLAY_LOGS

WIDTHS = (1280, 1024, 768, 390)
RUNS = ("xid79_fallen_off_bus_16r", "network_nic_down_16r", "two_failures_xid119_and_oom_16r",
        "hang_lowest_seq_128r")
CHROMIUM = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
# no sandbox: tests run as root in a container; nothing but the local file is loaded
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]

# Runs in the page; returns what a reader would see wrong. Slack of 1 px for sub-pixel layout.
CHECK_JS = r"""
(groupsOpen) => {
  const problems = [];
  const vw = document.documentElement.clientWidth;
  const page = document.scrollingElement;
  if (page.scrollWidth > vw + 1)
    problems.push(`the page scrolls sideways: ${page.scrollWidth}px of content in a ${vw}px window`);
  const inWindow = (el, what) => {
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) problems.push(`${what} is not shown`);
    else if (r.left < -1 || r.right > vw + 1)
      problems.push(`${what} sticks out of the window: ${Math.round(r.left)}..${Math.round(r.right)}px of ${vw}px`);
  };
  const whole = (el, what) => {
    if (el.scrollWidth > el.clientWidth + 1)
      problems.push(`${what} is cut off: ${el.scrollWidth}px of content in a ${el.clientWidth}px box`);
    if (el.scrollHeight > el.clientHeight + 1)
      problems.push(`${what} is cut off: ${el.scrollHeight}px high in a ${el.clientHeight}px box`);
  };
  const svgs = document.querySelectorAll("svg.timeline");
  const facts = {timelines: svgs.length, incidents: []};
  svgs.forEach((svg) => {
    inWindow(svg, "the timeline");
    whole(svg.parentElement, "the timeline's box");
    const r = svg.getBoundingClientRect(), p = svg.parentElement.getBoundingClientRect();
    if (r.right > p.right + 1) problems.push("the timeline is wider than its box");
  });
  document.querySelectorAll("section.incident").forEach((sec, n) => {
    const cmd = sec.querySelector("pre.cmd");
    const info = {verify: cmd ? cmd.innerText : null, groups: [], rows: 0};
    if (cmd) {
      inWindow(cmd, `incident ${n + 1}'s verify command`);
      whole(cmd, `incident ${n + 1}'s verify command`);
      const style = getComputedStyle(cmd);
      if (style.visibility !== "visible" || style.display === "none")
        problems.push(`incident ${n + 1}'s verify command is hidden`);
    }
    const groups = [...sec.querySelectorAll("details.ev-group")];
    const seen = new Set();
    groups.forEach((g, i) => {
      const key = `${g.dataset.rank}|${g.dataset.node}|${g.dataset.role}`;
      if (seen.has(key)) problems.push(`incident ${n + 1}: two evidence groups for ${key}`);
      seen.add(key);
      const rows = [...g.querySelectorAll("tbody > tr")];
      info.rows += rows.length;
      rows.forEach((tr) => {
        if (tr.className !== g.dataset.role)
          problems.push(`incident ${n + 1}: a ${tr.className} row in the ${g.dataset.role} group of ${key}`);
      });
      if (i >= groupsOpen && g.dataset.role !== "initiator" && g.open)
        problems.push(`incident ${n + 1}: evidence group ${i + 1} (${key}) is not collapsed`);
      info.groups.push({rank: g.dataset.rank, role: g.dataset.role, open: g.open, rows: rows.length});
    });
    facts.incidents.push(info);
  });
  return {problems, facts};
}
"""


@dataclass
class PageCheck:
    problems: list[str] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)


def chromium_path() -> str | None:
    for path in CHROMIUM:
        if Path(path).exists():
            return path
    return shutil.which("chromium")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError:
        pytest.skip("Playwright is not installed (pip install playwright: the dev extra)")
    path = chromium_path()
    if path is None:
        pytest.skip("no Chromium (Debian package chromium; scripts/setup-system.sh installs it as root)")
    with sync_playwright() as pw:
        try:
            chromium = pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        except Error as exc:
            pytest.skip(f"Chromium at {path} does not start here: {str(exc).splitlines()[0]}")
        try:
            yield chromium
        finally:
            chromium.close()


def check_page(browser: Any, html: str, width: int, tmp: Path, report: dict[str, Any] | None = None) -> PageCheck:
    """Open ``html`` as a file at ``width`` x 900 and report what is wrong with it. With the
    report's JSON, also that every verify command and every evidence line is on the page."""
    path = tmp / f"report-{width}.html"
    path.write_text(html, encoding="utf-8")
    url = path.as_uri()
    out = PageCheck()
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.on("pageerror", lambda exc: out.problems.append(f"the page threw: {exc}"))
    page.on("console", lambda msg: out.problems.append(f"console {msg.type}: {msg.text}")
            if msg.type in ("error", "warning") else None)
    page.on("request", lambda req: out.problems.append(f"the page loads {req.url}") if req.url != url else None)
    try:
        page.goto(url, wait_until="load")
        result = page.evaluate(CHECK_JS, GROUPS_OPEN)
    finally:
        page.close()
    out.problems.extend(result["problems"])
    out.facts = result["facts"]
    if report is not None:
        out.problems.extend(_against_report(out.facts, report))
    return out


def _against_report(facts: dict[str, Any], report: dict[str, Any]) -> list[str]:
    problems = []
    if report["incidents"] and facts["timelines"] != 1:
        problems.append(f"{facts['timelines']} timelines on the page, not one")
    shown = facts["incidents"]
    if len(shown) != len(report["incidents"]):
        return [*problems, f"{len(shown)} incidents on the page, {len(report['incidents'])} in the report"]
    for n, (page_inc, inc) in enumerate(zip(shown, report["incidents"], strict=True), start=1):
        verify = inc["remediation"]["verify"]
        if verify and (page_inc["verify"] or "").strip() != verify.strip():
            problems.append(f"incident {n}: the verify command on the page is {page_inc['verify']!r}, not {verify!r}")
        if page_inc["rows"] != len(inc["evidence"]):
            problems.append(f"incident {n}: {page_inc['rows']} evidence rows on the page, {len(inc['evidence'])} in the report")
        groups = page_inc["groups"]
        if inc["evidence"] and not groups:
            problems.append(f"incident {n}: the evidence is not grouped")
        if any(e["role"] == "initiator" for e in inc["evidence"]) and groups and groups[0]["role"] != "initiator":
            problems.append(f"incident {n}: the first evidence group is {groups[0]['role']}, not the initiator's")
        if len(groups) > GROUPS_OPEN + 1 and all(g["open"] for g in groups):
            problems.append(f"incident {n}: none of {len(groups)} evidence groups is collapsed")
    return problems


@pytest.fixture(scope="module")
def reports(ruleset: RuleSet) -> dict[str, tuple[str, dict[str, Any]]]:
    out = {}
    for name in RUNS:
        report = replay_path(REPLAY_LOGS / name, ruleset)
        out[name] = (render_html(report), report_to_dict(report))
    return out


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("run", RUNS)
def test_report_reads_whole_at_each_width(browser: Any, reports: dict[str, tuple[str, dict[str, Any]]],
                                          run: str, width: int, tmp_path: Path) -> None:
    html, data = reports[run]
    check = check_page(browser, html, width, tmp_path, data)
    assert check.problems == [], f"{run} at {width}px:\n" + "\n".join(check.problems)
    assert data["incidents"], f"{run} has no incident to show"
    first = check.facts["incidents"][0]["groups"]
    assert first[0]["open"]
    if run == "xid79_fallen_off_bus_16r":  # the worked example: rank 9 started it, 15 ranks timed out
        assert (first[0]["rank"], first[0]["role"]) == ("9", "initiator")
        collateral = {g["rank"] for g in first if g["role"] == "collateral"} - {""}
        assert collateral == {str(r) for r in range(16) if r != 9}
        assert sum(not g["open"] for g in first) >= 10


# --- the checker catches what it is for ---------------------------------------------------

THROW = '<script>throw new Error("boom from an injected script")</script>'
CSP = re.compile(r'<meta http-equiv="Content-Security-Policy"[^>]*>\n?')


@pytest.fixture(scope="module")
def worked(reports: dict[str, tuple[str, dict[str, Any]]]) -> tuple[str, dict[str, Any]]:
    return reports["xid79_fallen_off_bus_16r"]


def test_checker_reports_a_script_that_throws(browser: Any, worked: tuple[str, dict[str, Any]], tmp_path: Path) -> None:
    html, data = worked
    broken = CSP.sub("", html).replace("</body>", THROW + "</body>")  # without the CSP the script runs
    problems = check_page(browser, broken, 1280, tmp_path, data).problems
    assert any("the page threw" in p and "boom" in p for p in problems), problems


def test_checker_reports_a_script_the_csp_refuses(browser: Any, worked: tuple[str, dict[str, Any]], tmp_path: Path) -> None:
    html, data = worked
    problems = check_page(browser, html.replace("</body>", THROW + "</body>"), 1280, tmp_path, data).problems
    assert any(p.startswith("console error") and "Content Security Policy" in p for p in problems), problems


@pytest.mark.parametrize("width", [1280, 390])
def test_checker_reports_a_cut_off_verify_command(browser: Any, worked: tuple[str, dict[str, Any]],
                                                  width: int, tmp_path: Path) -> None:
    html, data = worked
    style = "<style>pre.cmd{white-space:pre!important;overflow:hidden!important}</style></head>"
    problems = check_page(browser, html.replace("</head>", style), width, tmp_path, data).problems
    assert any("verify command is cut off" in p for p in problems), problems


def test_checker_reports_a_verify_command_that_scrolls_the_page(browser: Any, worked: tuple[str, dict[str, Any]],
                                                               tmp_path: Path) -> None:
    html, data = worked
    style = "<style>pre.cmd{white-space:pre!important;overflow:visible!important}</style></head>"
    problems = check_page(browser, html.replace("</head>", style), 390, tmp_path, data).problems
    assert any("scrolls sideways" in p for p in problems), problems


def test_checker_reports_a_timeline_wider_than_the_window(browser: Any, worked: tuple[str, dict[str, Any]],
                                                        tmp_path: Path) -> None:
    html, data = worked
    style = "<style>svg.timeline{width:1400px!important;max-width:none!important}</style></head>"
    problems = check_page(browser, html.replace("</head>", style), 768, tmp_path, data).problems
    assert any("the timeline" in p for p in problems), problems


def test_checker_reports_evidence_not_collapsed(browser: Any, worked: tuple[str, dict[str, Any]], tmp_path: Path) -> None:
    html, data = worked
    all_open = re.sub(r'(<details class="ev-group"[^>]*?)( open)?>', r"\1 open>", html)
    problems = check_page(browser, all_open, 1024, tmp_path, data).problems
    assert any("is not collapsed" in p for p in problems), problems


def test_checker_reports_a_missing_verify_command(browser: Any, worked: tuple[str, dict[str, Any]], tmp_path: Path) -> None:
    html, data = worked
    cut = re.sub(r'(<pre class="cmd"><code>)(.*?)(</code>)', lambda m: m[1] + m[2][:20] + m[3], html, flags=re.S)
    problems = check_page(browser, cut, 1024, tmp_path, data).problems
    assert any("verify command on the page" in p for p in problems), problems


def screenshot(target: Path, width: int = 1280) -> None:
    """The worked example's report as the README shows it (the verdict down to the evidence)."""
    from playwright.sync_api import sync_playwright

    from detector.rules.compile import load_ruleset

    report = replay_path(REPLAY_LOGS / "xid79_fallen_off_bus_16r", load_ruleset())
    html = render_html(report).replace(str(REPLAY_LOGS.parent) + "/", "")
    path = chromium_path()
    assert path is not None, "no Chromium"
    target.parent.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        page = chromium.new_page(viewport={"width": width, "height": 1600})
        page.set_content(html, wait_until="load")
        page.screenshot(path=str(target), full_page=False)
        chromium.close()


if __name__ == "__main__":  # pragma: no cover - a maintenance command, not a test
    screenshot(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/img/report.png"))
