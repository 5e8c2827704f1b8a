"""The text report: verdict first, readable at 80 columns without colour, log text inert."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from rich.console import Console

from detector.replay import replay_path
from detector.report.safe_text import clean_line
from detector.report.text import render_text
from detector.report.text_timeline import timeline_entries
from detector.rules.engine import RuleSet
from detector.support.numbers import rank_ranges
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


def finding(
    rule: str,
    role: Role,
    text: str,
    *,
    rank: int | None,
    node: str | None = "node01",
    time: datetime | None = T0,
    file: str | None = "run/attempt_0/0/stderr.log",
    line: int | None = 1,
) -> Finding:
    return Finding(
        rule=rule,
        role=role,
        cause=None,
        severity=Severity.ERROR,
        text=text,
        file=file,
        line=line,
        time=time,
        rank=rank,
        node=node,
    )


def incident(
    evidence: tuple[Finding, ...],
    *,
    initiator: Initiator,
    collateral: tuple[int, ...] = (),
    cause: Cause = Cause.GPU_HARDWARE,
    first: datetime | None = T0,
    verify: str = VERIFY,
    explanation: str = "GPU 0000:2b:00 on node02 fell off the bus; the others timed out.",
) -> Incident:
    return Incident(
        id=f"{cause.value}-1",
        cause=cause,
        initiator=initiator,
        collateral_ranks=collateral,
        confidence=0.95,
        first_evidence_time=first,
        explanation=explanation,
        evidence=evidence,
        remediation=Remediation(
            drain_node=True, resubmit=True, fix="Reboot node02 and run diagnostics.", verify=verify
        ),
    )


def hardware_report(ranks: int = 16, initiator: int = 3) -> Report:
    """Xid 79 on rank `initiator` (node02), the other ranks time out 600 s later."""
    evidence = [
        finding(
            "xid.fallen_off_bus",
            Role.INITIATOR,
            "[ 2893.123456] NVRM: Xid (PCI:0000:2b:00): 79, GPU has fallen off the bus.",
            rank=initiator,
            node="node02",
            file="run/node02/dmesg.log",
            line=1207,
        )
    ]
    for r in range(ranks):
        if r != initiator:
            evidence.append(
                finding(
                    "nccl.watchdog_timeout",
                    Role.COLLATERAL,
                    f"[rank{r}]:[E1129 12:10:01.000000 ProcessGroupNCCL.cpp:632] [Rank {r}] "
                    "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=15734, "
                    "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for "
                    "600037 milliseconds before timing out.",
                    rank=r,
                    node="node01" if r < ranks // 2 else "node02",
                    time=T0 + timedelta(seconds=600, milliseconds=r),
                    file=f"run/attempt_0/{r}/stderr.log",
                    line=412,
                )
            )
    inc = incident(
        tuple(evidence),
        initiator=Initiator(rank=initiator, local_rank=3, node="node02", gpu="0000:2b:00", pid=4821),
        collateral=tuple(r for r in range(ranks) if r != initiator),
    )
    progress = tuple((r, T0 - timedelta(seconds=2), 15733 if r == initiator else 15734) for r in range(ranks))
    return Report(
        source="replay_logs/xid79",
        summary=Summary(files=ranks + 1, lines=48211, ranks=ranks, nodes=2, start=T0, end=T0),
        incidents=(inc,),
        warnings=("run/attempt_0/7/stdout.log: empty file, skipped",),
        progress=progress,
    )


def healthy_report() -> Report:
    return Report(
        source="replay_logs/healthy",
        summary=Summary(files=4, lines=1200, ranks=4, nodes=1),
        warnings=("notes.txt: not a log, skipped",),
    )


def render(report: Report, *, width: int = 80, verbose: bool = False) -> str:
    buf = io.StringIO()
    console = Console(file=buf, width=width, no_color=True, color_system=None, force_terminal=False)
    render_text(report, console, verbose=verbose)
    return buf.getvalue()


def nonblank(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


# --- rank_ranges -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ranks", "expected"),
    [
        ([], ""),
        ([3], "3"),
        ([0, 1, 2, 4, 5, 6, 7], "0-2,4-7"),
        ([5, 1, 3, 2, 5, 1], "1-3,5"),
        ([0, 2, 4], "0,2,4"),
        (range(128), "0-127"),
        ([*range(3), *range(4, 16)], "0-2,4-15"),
    ],
)
def test_rank_ranges(ranks: list[int], expected: str) -> None:
    assert rank_ranges(ranks) == expected


# --- content -------------------------------------------------------------------------------


def test_verdict_line_comes_first() -> None:
    first = nonblank(render(hardware_report()))[0]
    assert first.startswith("VERDICT:")
    for part in ("gpu_hardware", "rank 3", "node02", "GPU 0000:2b:00", "0.95"):
        assert part in first


def test_one_verdict_line_per_incident_before_anything_else() -> None:
    report = hardware_report()
    second = incident(
        (finding("oom.cuda", Role.INITIATOR, "CUDA out of memory", rank=9),),
        initiator=Initiator(rank=9, node="node01"),
        cause=Cause.CUDA_OOM,
    )
    both = Report(source=report.source, summary=report.summary, incidents=(*report.incidents, second))
    lines = nonblank(render(both))
    assert lines[0].startswith("VERDICT #1:") and "gpu_hardware" in lines[0]
    assert lines[1].startswith("VERDICT #2:") and "cuda_oom" in lines[1] and "rank 9" in lines[1]


def test_healthy_report_says_no_incident() -> None:
    out = render(healthy_report())
    first = nonblank(out)[0]
    assert first.startswith("VERDICT: no incident")
    assert "Incident 1" not in out
    assert "notes.txt: not a log, skipped" in out


def test_remediation_and_verify_command_on_its_own_line() -> None:
    lines = render(hardware_report()).splitlines()
    assert any(line.strip() == VERIFY for line in lines)
    out = "\n".join(lines)
    assert "drain node02" in out
    assert "resume from the last checkpoint" in out


def test_long_verify_command_is_never_broken() -> None:
    long_cmd = "ssh node02 'nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER && dcgmi diag -r 3 -j'"
    report = hardware_report()
    inc = incident(report.incidents[0].evidence, initiator=Initiator(rank=3), verify=long_cmd)
    out = render(Report(source="x", summary=Summary(), incidents=(inc,)))
    assert any(line.strip() == long_cmd for line in out.splitlines())


def test_collateral_ranks_are_ranges_and_timeline_is_compact() -> None:
    out = render(hardware_report(ranks=128, initiator=3))
    assert "0-2,4-127" in out
    timeline = out[out.index("Timeline") : out.index("Progress")]
    assert "+0.000s" in timeline
    assert "+600.000s" in timeline
    # 127 collateral timeouts collapse into one timeline line, not 127
    assert timeline.count("nccl.watchdog_timeout") == 1
    assert "x127" in timeline
    # the evidence table lists a few rows and summarises the rest
    assert out.count("Watchdog caught") <= 10
    assert "+125 more nccl.watchdog_timeout" in out


def test_timeline_entries_order_and_grouping() -> None:
    entries = timeline_entries(hardware_report().incidents[0].evidence)
    assert entries[0].role is Role.INITIATOR and entries[0].ranks == (3,)
    assert entries[1].count == 15
    assert entries[1].ranks == (0, 1, 2, *range(4, 16))


def test_initiator_rows_are_emphasised_without_colour() -> None:
    out = render(hardware_report())
    assert "INITIATOR" in out
    assert "collateral" in out


def test_fits_80_columns() -> None:
    for report in (hardware_report(), healthy_report(), hardware_report(128)):
        for line in render(report).splitlines():
            assert len(line) <= 80 or line.strip() == VERIFY, line


def test_wide_console_gets_a_column_per_field() -> None:
    out = render(hardware_report(), width=160)
    header = next(line for line in out.splitlines() if "file:line" in line)
    for column in ("time", "rank", "node", "rule", "role", "text"):
        assert column in header
    assert "run/node02/dmesg.log:1207" in out


# --- hostile and odd input ---------------------------------------------------------------


def hostile_report(text: str, *, node: str = "node[01]", verify: str = VERIFY) -> Report:
    inc = incident(
        (finding("python.exception", Role.INITIATOR, text, rank=3, node=node, file="[red]x.log"),),
        initiator=Initiator(rank=3, node=node),
        cause=Cause.PYTHON_EXCEPTION,
        verify=verify,
        explanation=f"rank 3 raised: {text[:100]}",
    )
    warnings = (text[:60], "skipped [bold]w.log[/bold]: [/] odd")
    return Report(source="[bold]src", summary=Summary(), incidents=(inc,), warnings=warnings)


@pytest.mark.parametrize("verbose", [False, True])
def test_rich_markup_in_log_text_is_printed_literally(verbose: bool) -> None:
    text = "[rank3]:[bold]boom[/bold] [link=http://x]y[/link] [/] :smile: <script>alert(1)</script>"
    out = render(hostile_report(text, verify="echo [bold]ok[/]"), width=200, verbose=verbose)
    assert "[rank3]:[bold]boom[/bold]" in out
    assert "[link=http://x]y[/link]" in out
    assert "[/]" in out
    assert ":smile:" in out
    assert "<script>alert(1)</script>" in out
    assert "node[01]" in out
    assert "[red]x.log" in out
    assert "[bold]src" in out
    assert "echo [bold]ok[/]" in out
    assert "skipped [bold]w.log[/bold]: [/] odd" in out


def test_control_characters_are_made_visible() -> None:
    text = "bad\x1b[31mred\x1b[0m\x00nul\rcr\x07bell\u202eevil\udcff tab\there"
    out = render(hostile_report(text), width=200, verbose=True)
    assert "\x1b" not in out and "\x00" not in out and "\r" not in out and "\x07" not in out
    assert "\u202e" not in out and "\udcff" not in out
    assert "\\x1b[31mred" in out
    assert "\\u202e" in out
    out.encode("utf-8")  # no lone surrogates left


def test_clean_line_truncates_and_escapes() -> None:
    assert clean_line("a\tb\nc") == "a b\\x0ac"
    assert clean_line("a\nb", newlines=True) == "a\nb"
    cut = clean_line("x" * 1000, 10)
    assert cut.startswith("x" * 10) and "(+990 chars)" in cut


def test_non_ascii_survives() -> None:
    text = "RuntimeError: Größe passt nicht – 日本語 ✓ ﬁ"
    out = render(hostile_report(text), width=120)
    assert "Größe passt nicht – 日本語 ✓" in out


def test_ten_kilobyte_line_is_cut() -> None:
    text = "E" * 10_240
    out = render(hostile_report(text, node="node02"))
    assert len(out) < 6_000
    assert "(+10040 chars)" in out
    verbose = render(hostile_report(text, node="node02"), verbose=True)
    assert "(+6240 chars)" in verbose


def test_missing_times_and_fields_do_not_crash() -> None:
    evidence = (
        finding("xid.fallen_off_bus", Role.INITIATOR, "", rank=None, node=None, time=None, file=None, line=None),
        finding("nccl.watchdog_timeout", Role.COLLATERAL, "timeout", rank=1, time=None),
        finding("nccl.watchdog_timeout", Role.COLLATERAL, "timeout", rank=2, time=None),
        finding("nccl.watchdog_timeout", Role.COLLATERAL, "timeout", rank=5, time=None),
    )
    inc = Incident(
        id="",
        cause=Cause.UNKNOWN,
        initiator=Initiator(),
        collateral_ranks=(),
        confidence=0.0,
        first_evidence_time=None,
        explanation="",
        evidence=evidence,
        remediation=Remediation(drain_node=True, resubmit=False, fix="", verify=""),
    )
    report = Report(
        source="",
        summary=Summary(),
        incidents=(inc,),
        progress=((0, None, None), (1, None, 7)),
    )
    for verbose in (False, True):
        out = render(report, verbose=verbose)
        assert nonblank(out)[0].startswith("VERDICT: unknown on an unknown rank")
        assert "untimed" in out
        assert "ranks 1-2,5 (3)" in out
        assert "no command given" in out


def test_naive_and_aware_times_mix() -> None:
    naive = T0.replace(tzinfo=None) + timedelta(seconds=1)
    evidence = (
        finding("a.b", Role.INITIATOR, "first", rank=0),
        finding("c.d", Role.COLLATERAL, "second", rank=1, time=naive),
    )
    inc = incident(evidence, initiator=Initiator(rank=0), first=naive)
    out = render(Report(source="s", summary=Summary(start=naive, end=T0), incidents=(inc,)))
    assert "+1.000s" in out


def test_empty_report_renders() -> None:
    out = render(Report(source="", summary=Summary()))
    assert nonblank(out)[0].startswith("VERDICT: no incident")


def test_thousands_of_initiator_rows_are_counted_not_listed(tmp_path: Path, ruleset: RuleSet) -> None:
    # one rank's NET/IB completion error repeated 500 times: a dozen rows, the rest counted
    line = ("node07:2231:2301 [3] NCCL WARN NET/IB : Got completion from peer 10.0.0.9<4000> with error 12, "
            "opcode 0, len 0, vendor err 129 ({})\n")
    (tmp_path / "rank0.log").write_text("".join(line.format(i) for i in range(500)))
    report = replay_path(tmp_path, ruleset)
    text = render(report, width=120)
    assert "Evidence (12 of 500)" in text
    assert "+488 more nccl.ib_completion_error (initiator)" in text
    assert len(text.splitlines()) < 150
    assert "Evidence (500 of 500)" in render(report, width=120, verbose=True)
