"""The global cap on kept evidence: a burst of collateral lines costs bounded memory, the first
hits of each rule on each rank are kept (the initiator's always), the rest are counted, and the
incident is the one the whole evidence gives."""

from __future__ import annotations

from pathlib import Path

from detector.pipeline.evidence import EvidenceCap
from detector.pipeline.scan import scan_file
from detector.rules.engine import RuleSet
from detector.sidecar.config import DetectionConfig, HangConfig
from detector.sidecar.engine import LiveEngine
from detector.sidecar.gate import IncidentGate
from detector.sidecar.lines import LineProcessor
from detector.sidecar.model import Chunk
from detector.sidecar.state import SidecarStore
from detector.sources.runs import FileKind, LogFile
from detector.types import Cause, Incident

NOW = 1_796_000_000.0
RANKS = 24
CULPRIT = 5
CUDA = "2026-11-29T12:59:00Z [rank{r}]: RuntimeError: CUDA error: an illegal memory access was encountered\n"
TIMEOUT = ("[rank{r}]:[E1129 12:59:{s:02d}.000000 ProcessGroupNCCL.cpp:563] [Rank {r}] Watchdog caught collective "
           "operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) "
           "ran for 600037 milliseconds before timing out.\n")


def _file(r: int) -> LogFile:
    return LogFile(Path(f"/l/rank_{r}.log"), f"/l/rank_{r}.log", FileKind.RANK_LOG, rank=r, node="n1")


def _burst(ruleset: RuleSet, cap: EvidenceCap, per_rank: int, pieces: int = 3) -> tuple[LiveEngine, list[Incident]]:
    processor = LineProcessor(ruleset, year=2026, tolerance_s=120.0, cap=cap)
    gate = IncidentGate(DetectionConfig(settle_s=0.5), SidecarStore(None))
    eng = LiveEngine(ruleset, processor, gate, node="n1", hang=HangConfig())
    for r in range(RANKS):
        eng.dispatch(Chunk(_file(r), f"step 1 | loss 1.0 | step_ms 5 [rank{r}]\n".encode(), 1, NOW - 1))
    eng.dispatch(Chunk(_file(CULPRIT), CUDA.format(r=CULPRIT).encode(), 2, NOW))
    eng.tick(NOW)
    step = per_rank // pieces
    for p in range(pieces):  # each file in pieces: the end of a piece is looked at again with the next
        for r in range(RANKS):
            if r == CULPRIT:
                continue
            lines = "".join(TIMEOUT.format(r=r, s=k % 60, seq=15734 + k) for k in range(p * step, (p + 1) * step))
            eng.dispatch(Chunk(_file(r), lines.encode(), 2 + p * step, NOW + 0.1 + 0.01 * p))
        eng.tick(NOW + 0.2)
    return eng, eng.tick(NOW + 1.0)


def _kept(eng: LiveEngine) -> int:
    return sum(len(lf.scan.hits) for lf in eng._files.values())


def test_a_burst_keeps_the_first_hits_counts_the_rest_and_gives_the_same_incident(ruleset: RuleSet) -> None:
    per_rank = 300
    free, free_incidents = _burst(ruleset, EvidenceCap(limit=10**9), per_rank)
    capped, capped_incidents = _burst(ruleset, EvidenceCap(limit=100, first=4), per_rank)
    offered = (RANKS - 1) * per_rank + 1
    assert _kept(free) == offered and free.evidence_dropped == 0
    # bounded: the first 4 timeouts of each rank, the CUDA error, 100 repeats; the rest counted once each
    assert _kept(capped) == (RANKS - 1) * 4 + 1 + 100
    assert capped.evidence_dropped == offered - _kept(capped)
    assert capped.evidence_dropped_by_rule == {"nccl.watchdog_timeout": capped.evidence_dropped}
    for r in range(RANKS):
        hits = capped._files[f"/l/rank_{r}.log"].scan.hits
        assert hits, r
        if r != CULPRIT:  # each rank's first timeouts are there
            assert [h.event.line for h in hits[:4]] == [2, 3, 4, 5]
    (a,) = free_incidents
    (b,) = capped_incidents
    for inc in (a, b):
        assert inc.cause is Cause.ILLEGAL_MEMORY_ACCESS and inc.initiator.rank == CULPRIT
        assert len(inc.collateral_ranks) == RANKS - 1
    assert (a.id, a.first_evidence_time, a.confidence) == (b.id, b.first_evidence_time, b.confidence)
    # per-rank evidence for the coordinator: every rank's first collateral is kept
    first = {e.rank: e.first_collateral for e in capped.evidence}
    assert all(first[r] is not None and first[r].line == 2 for r in range(RANKS) if r != CULPRIT)


def test_initiator_grade_first_hits_are_never_dropped() -> None:
    from detector.rules.compile import load_ruleset

    rs = load_ruleset()
    cap = EvidenceCap(limit=0, first=0, first_initiator=1)
    processor = LineProcessor(rs, year=2026, tolerance_s=120.0, cap=cap)
    gate = IncidentGate(DetectionConfig(settle_s=0.5), SidecarStore(None))
    eng = LiveEngine(rs, processor, gate, node="n1", hang=HangConfig())
    eng.dispatch(Chunk(_file(1), (TIMEOUT.format(r=1, s=0, seq=1) * 3).encode(), 1, NOW))
    eng.dispatch(Chunk(_file(1), (CUDA.format(r=1) * 3).encode(), 4, NOW))
    kept = eng._files["/l/rank_1.log"].scan.hits
    assert [h.matches[0].rule.id for h in kept] == ["cuda.illegal_address"]
    assert eng.evidence_dropped == 5


def test_a_new_episode_lets_old_hits_go_and_keeps_the_first_again(ruleset: RuleSet) -> None:
    cap = EvidenceCap(limit=10, first=2)
    processor = LineProcessor(ruleset, year=2026, tolerance_s=120.0, cap=cap)
    f = _file(3)
    lf = processor.open(f)
    lines = "".join(TIMEOUT.format(r=3, s=k, seq=k) for k in range(20)).encode()
    processor.process(lf, Chunk(f, lines, 1, NOW))
    assert len(lf.scan.hits) == 12 and cap.dropped == 8
    # the episode closed at NOW + 10: those hits are no longer attributed; the cap is half used
    assert processor.new_episode([lf], NOW + 10)
    assert lf.scan.hits == [] and cap.surplus == 0
    processor.process(lf, Chunk(f, lines, 21, NOW + 20))
    assert [h.event.line for h in lf.scan.hits][:2] == [21, 22] and len(lf.scan.hits) == 12


def test_replay_scan_with_a_shared_cap(tmp_path: Path, ruleset: RuleSet) -> None:
    cap = EvidenceCap(limit=5, first=3)
    scans = []
    for r in range(3):
        log = tmp_path / f"rank_{r}.log"
        log.write_text("".join(TIMEOUT.format(r=r, s=k, seq=k) for k in range(10)))
        scans.append(scan_file(LogFile(log, log.name, FileKind.RANK_LOG, rank=r), ruleset, year=2026, cap=cap))
    assert [len(s.hits) for s in scans] == [3 + 5, 3, 3]  # the repeats kept are the first ones read
    assert [h.event.line for h in scans[1].hits] == [1, 2, 3]
    assert cap.dropped == 30 - 14
    summary = cap.summary()
    assert summary is not None and summary.startswith("16 matched lines not kept") and "nccl.watchdog_timeout 16" in summary
    # without a cap (rule coverage, explain) every hit is kept
    assert len(scan_file(LogFile(tmp_path / "rank_0.log", "rank_0.log", FileKind.RANK_LOG, rank=0), ruleset,
                         year=2026).hits) == 10


CONTEXT_RULE = """\
rules:
  - id: t.timeout
    description: a collateral rule that shows the 3 following lines
    role: collateral
    pattern: 'Watchdog caught collective operation timeout: WorkNCCL\\(SeqNum=(?P<seq>[0-9]+)'
    context_lines: 3
    examples: [{line: "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=3, OpType=X"}]
"""


def test_lines_looked_at_again_are_dropped_or_kept_once(tmp_path: Path) -> None:
    from detector.rules.loader import load_rules

    (tmp_path / "p.yaml").write_text(CONTEXT_RULE)
    rs = RuleSet(load_rules([tmp_path]).rules)
    cap = EvidenceCap(limit=7, first=2)
    processor = LineProcessor(rs, year=2026, tolerance_s=120.0, cap=cap)
    f = _file(2)
    lf = processor.open(f)
    line = 1
    for piece in range(10):  # the last 3 lines of each piece are carried and looked at again
        text = "".join(TIMEOUT.format(r=2, s=k, seq=k) for k in range(line, line + 10))
        processor.process(lf, Chunk(f, text.encode(), line, NOW + piece))
        assert lf.carry  # (what this test is about)
        line += 10
    kept = [h.event.line for h in lf.scan.hits]
    assert kept == list(range(1, 10)) and len(set(kept)) == len(kept)  # 2 first + 7 repeats
    assert cap.dropped == 100 - 9  # each counted once, though the carried ones were looked at twice
    assert all(len(h.context) == 3 for h in lf.scan.hits)  # the second look gave the context


def test_a_kernel_paragraph_rule_in_pieces(ruleset: RuleSet) -> None:
    """The live matcher follows a multi-line (window) rule, also when its lines come apart."""
    processor = LineProcessor(ruleset, year=2026, tolerance_s=120.0)
    f = LogFile(Path("/k/kern.log"), "kern.log", FileKind.KERNEL, node="n1")
    lf = processor.open(f)
    processor.process(lf, Chunk(f, b"[  100.123456] NVRM: The NVIDIA GPU 0000:18:00.0\n", 1, NOW))
    assert lf.scan.hits == [] and lf.carry
    processor.process(lf, Chunk(f, b"[  100.123457] NVRM: installed in this system has fallen off the bus\n", 2, NOW))
    assert [[m.rule.id for m in h.matches] for h in lf.scan.hits] == [["xid.gpu_lost_paragraph"]]
    assert lf.scan.hits[0].matches[0].fields == (("pci", "0000:18:00"),)


def test_replay_of_a_timeout_cascade_keeps_bounded_evidence_and_the_verdict(tmp_path: Path) -> None:
    """rankdoctor replay on a run where 3 ranks print 3,000 watchdog timeouts each after rank 1's
    CUDA error: the verdict is rank 1, the report says how many lines were not kept."""
    import json
    import subprocess
    import sys

    from detector.pipeline import evidence as reader

    run = tmp_path / "run"
    run.mkdir()
    (run / "rank_1.log").write_text("2026-11-29T12:00:01Z step 9 | loss 1.0\n"
                                    "2026-11-29T12:00:05Z RuntimeError: CUDA error: an illegal memory access was encountered\n")
    for r in (0, 2, 3):
        with open(run / f"rank_{r}.log", "w") as fh:
            fh.write("2026-11-29T12:00:01Z step 9 | loss 1.0\n")
            for i in range(3000):
                fh.write(f"2026-11-29T12:10:{i % 60:02d}Z [Rank {r}] Watchdog caught collective operation timeout: "
                         f"WorkNCCL(SeqNum={15735 + i}, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) "
                         "ran for 600037 milliseconds before timing out.\n")
    out = subprocess.run([sys.executable, "-m", "detector.cli", "replay", str(run), "--format", "json"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode in (0, 1), out.stderr
    report = json.loads(out.stdout)
    incident = report["incidents"][0]
    assert incident["initiator"]["rank"] == 1 and incident["cause"] == "illegal_memory_access"
    assert sorted(incident["collateral_ranks"]) == [0, 2, 3]
    dropped = [w for w in report["warnings"] if "not kept as evidence" in w]
    kept = 3 * reader.KEEP_FIRST + reader.MAX_SURPLUS_HITS  # each rank's first hits, then the repeats allowed
    assert len(dropped) == 1 and dropped[0].startswith(f"{9000 - kept} matched lines"), dropped
