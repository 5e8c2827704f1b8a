"""A large run is read by several processes (detector.replay.scan_files): each reads whole files
with a cap of its own, the files come back in their order and their hits are settled against
the run's cap. The result must be the one a single process gives: the same hits, the same
counts of what was not kept, the same report."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from detector.pipeline.evidence import EvidenceCap
from detector.pipeline.filescan import FileScan
from detector.pipeline.tail import last_activity, tail_of
from detector.replay import JOBS_ENV, replay_path, scan_files
from detector.report.jsonfmt import dumps_report
from detector.rules.engine import RuleSet
from detector.sources.runs import FileKind, discover
from tests.support.paths import REPLAY_LOGS

TIMEOUT = ("[rank{r}]:[E1129 12:59:{s:02d}.000000 ProcessGroupNCCL.cpp:563] [Rank {r}] Watchdog caught collective "
           "operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) "
           "ran for 600037 milliseconds before timing out.\n")
CUDA = "[rank{r}]:2026-11-29T12:59:00Z RuntimeError: CUDA error: an illegal memory access was encountered\n"
STEP = "[rank{r}]:2026-11-29T12:{m:02d}:{s:02d}Z step {n} | loss 1.5 | step_ms 812.0\n"


def _run(tmp_path: Path) -> Path:
    """Seven rank logs (two of them combined logs of several ranks) and a kernel log, with more
    timeouts than a small cap keeps, initiator-grade lines among them, step lines at the end."""
    run = tmp_path / "run"
    for n in range(7):
        d = run / f"node{n // 4 + 1:02d}"
        d.mkdir(parents=True, exist_ok=True)
        ranks = [n] if n < 5 else [n, n + 10, n + 20]
        lines = [STEP.format(r=r, m=50, s=k % 60, n=k) for k in range(40) for r in ranks]
        lines += [TIMEOUT.format(r=r, s=k % 60, seq=100 + k) for k in range(30 + 7 * n) for r in ranks]
        if n == 3:
            lines.insert(50, CUDA.format(r=n))
        lines += [STEP.format(r=r, m=58, s=k, n=100 + k) for k in range(5) for r in ranks]
        (d / f"rank_{n}.log").write_text("".join(lines))
    (run / "node01" / "dmesg.log").write_text(
        "[Sun Nov 29 12:58:59 2026] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n")
    return run


def _view(scan: FileScan) -> dict[str, object]:
    return {
        "file": scan.file.display, "lines": scan.lines, "first": scan.first_time, "last": scan.last_time,
        "hits": [(h.event, [(m.rule.id, m.fields) for m in h.matches], h.context) for h in scan.hits],
        "failures": scan.failures, "prefix_ranks": scan.prefix_ranks, "hosts": scan.hosts,
        "evidence_ranks": scan.evidence_ranks, "activity": last_activity(scan), "tail": tail_of(scan),
        "tail_first": scan.tail_first, "warnings": scan.warnings,
    }


@pytest.mark.parametrize(("limit", "first"), [(5, 2), (0, 0), (10**6, 8)])
def test_workers_give_what_one_process_gives(tmp_path: Path, ruleset: RuleSet, monkeypatch: pytest.MonkeyPatch,
                                             limit: int, first: int) -> None:
    files = [f for f in discover(_run(tmp_path))[0] if f.kind in (FileKind.RANK_LOG, FileKind.KERNEL)]
    results = {}
    for jobs in ("1", "3"):
        monkeypatch.setenv(JOBS_ENV, jobs)
        cap = EvidenceCap(limit=limit, first=first, first_initiator=max(1, first))
        scans = scan_files(files, ruleset, year=2026, cap=cap)
        results[jobs] = ([_view(s) for s in scans],
                         (cap.dropped, dict(cap.dropped_by_rule), cap.surplus, cap.protected))
    assert results["1"][1] == results["3"][1]
    assert results["1"][0] == results["3"][0]
    assert limit == 10**6 or results["1"][1][0] > 0  # the small caps did drop lines


SCENARIOS = sorted(p for p in REPLAY_LOGS.iterdir() if (p / "expected.json").is_file())


def test_the_scenarios_read_in_parallel_report_the_same(ruleset: RuleSet, monkeypatch: pytest.MonkeyPatch) -> None:
    for scenario in SCENARIOS:
        reports = []
        for jobs in ("1", "2"):
            monkeypatch.setenv(JOBS_ENV, jobs)
            reports.append(dumps_report(replay_path(scenario, ruleset)))
        assert reports[0] == reports[1], scenario.name


def test_summary_counts_every_rank_the_cap_did_not_keep(tmp_path: Path, ruleset: RuleSet) -> None:
    """6,000 ranks x 4 timeouts: more than the run-wide cap keeps (16,384 first hits and 4,096
    repeats), yet every rank is counted, and the report says how many lines were not kept."""
    log = tmp_path / "train.log"
    with log.open("w") as fh:
        fh.write(CUDA.format(r=7))
        for k in range(4):
            fh.writelines(TIMEOUT.format(r=r, s=k, seq=15 + k) for r in range(6000))
    report = replay_path(log, ruleset)
    assert report.summary.ranks == 6000
    assert report.incidents[0].initiator.rank == 7
    assert any("matched lines not kept" in w for w in report.warnings)


def test_a_failing_worker_is_an_error_not_a_hang(tmp_path: Path, ruleset: RuleSet, monkeypatch: pytest.MonkeyPatch) -> None:
    import detector.replay as replay

    files = [f for f in discover(_run(tmp_path))[0] if f.kind is FileKind.RANK_LOG]
    monkeypatch.setenv(JOBS_ENV, "2")

    def boom(f, *args, **kwargs):  # type: ignore[no-untyped-def]
        if f.display.endswith("rank_5.log"):
            raise ValueError("broken reader")
        return real(f, *args, **kwargs)

    real = replay.scan_file
    monkeypatch.setattr(replay, "scan_file", boom)
    with pytest.raises((RuntimeError, ValueError), match="broken reader"):
        scan_files(files, ruleset, year=2026, cap=EvidenceCap())


def test_packed_scans_keep_every_field(tmp_path: Path, ruleset: RuleSet) -> None:
    """A FileScan field added later must travel from the workers too (or be left out on purpose)."""
    from detector.pipeline.scan import scan_file
    from detector.pipeline.transport import pack_scan, unpack_scan

    files = [f for f in discover(_run(tmp_path))[0] if f.kind is FileKind.RANK_LOG]
    cap = EvidenceCap()
    scan = scan_file(files[3], ruleset, year=2026, cap=cap.file_cap())
    from detector.pipeline.steps import step_items
    from detector.stats import PRESETS

    scan.steps = ("generic", step_items(scan, PRESETS[-1]))
    assert any(record is not None for _ev, record in scan.steps[1])
    back = unpack_scan(pack_scan(scan, ruleset), ruleset, EvidenceCap())
    for f in dataclasses.fields(FileScan):
        if f.name in ("cap", "tail_keys", "tail_lines", "hits", "steps"):
            continue
        assert getattr(back, f.name) == getattr(scan, f.name), f.name
    assert tail_of(back) == scan.tail_lines
    assert back.steps == scan.steps
    assert [(h.event, h.matches) for h in back.hits] == [(h.event, h.matches) for h in scan.hits]


def test_a_worker_killed_midway_is_an_error_that_says_what_to_do(tmp_path: Path, ruleset: RuleSet,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker the OOM killer (or anyone) kills: the replay stops with a RankdoctorError naming
    the file and RANKDOCTOR_JOBS=1 (it was a RuntimeError, printed as a traceback)."""
    import os

    from detector import replay as replay_mod
    from detector.errors import RankdoctorError

    def killed(index: int) -> tuple[int, object]:
        os._exit(137)

    files = [f for f in discover(_run(tmp_path))[0] if f.kind in (FileKind.RANK_LOG, FileKind.KERNEL)]
    monkeypatch.setenv(JOBS_ENV, "2")
    monkeypatch.setattr(replay_mod, "_scan_in_worker", killed)  # (the workers are forked: they inherit it)
    with pytest.raises(RankdoctorError, match=r"a replay worker process died reading .*RANKDOCTOR_JOBS=1"):
        scan_files(files, ruleset, year=2026, cap=EvidenceCap())
