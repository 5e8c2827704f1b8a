"""Rank-like numbers from log text (peer ranks, missing ranks, last completed collectives) never
crash attribution: 5,000 digits and Unicode digits that ``str.isdigit`` accepts and ``int`` does
not (found while fuzzing; ``int`` refuses more than 4,300 digits)."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.pipeline.findings import expand_ranks
from detector.replay import replay_path
from detector.rules.compile import load_ruleset
from detector.support.numbers import small_int


@pytest.mark.parametrize(("text", "kwargs", "want"), [
    ("12", {}, 12), (" 7 ", {}, 7), ("-1", {"signed": True}, -1), ("-1", {}, None), ("9" * 5000, {}, None),
    ("²", {}, None), ("٣", {}, None), ("", {}, None), (None, {}, None), ("1_000", {}, None), ("+3", {}, None),
    ("123456789", {}, 123456789), ("1234567890", {}, None), ("1234567890", {"digits": 10}, 1234567890),
])
def test_small_int(text: str | None, kwargs: dict[str, object], want: int | None) -> None:
    assert small_int(text, **kwargs) == want  # type: ignore[arg-type]


def test_rank_ranges_with_absurd_numbers_are_skipped() -> None:
    assert expand_ranks("1-3,²,4," + "9" * 5000 + ",5-" + "9" * 5000) == [1, 2, 3, 4]


RULE = """\
rules:
  - id: site.peer_named
    description: a site wrapper names the peer it lost (loose captures, as user rules have)
    source: rank_log
    role: collateral
    cause: null
    severity: error
    pattern: 'lost peer rank (?P<peer_rank>[^,]+), missing ranks (?P<missing_ranks>\\S+) last completed (?P<last_completed>\\S+)'
    examples:
      - line: 'lost peer rank 3, missing ranks 3,4, last completed 17'
        fields: {peer_rank: "3", missing_ranks: "3,4,", last_completed: "17"}
"""


def test_attribution_survives_huge_and_unicode_rank_fields(tmp_path: Path) -> None:
    rules = tmp_path / "site.yaml"
    rules.write_text(RULE)
    ruleset = load_ruleset([rules])
    run = tmp_path / "run"
    run.mkdir()
    huge = "9" * 5000
    (run / "rank_0.log").write_text(f"2026-11-29T12:00:05Z lost peer rank {huge}, missing ranks {huge},²,1, last completed -{huge}\n")
    (run / "rank_2.log").write_text("2026-11-29T12:00:05Z lost peer rank ², missing ranks ٣, last completed ²\n")
    (run / "rank_3.log").write_text("2026-11-29T12:00:05Z lost peer rank 1, missing ranks 1, last completed 3\n")
    (run / "rank_1.log").write_text("2026-11-29T12:00:01Z step 3 | loss 1.0\n")
    report = replay_path(run, ruleset)
    assert len(report.incidents) == 1
    assert report.incidents[0].initiator.rank == 1  # the only sane votes point at rank 1


def _absurd_run(tmp_path: Path, nranks: str, rank: str) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    lines = [
        f"[rank0]:node01:1234:1300 [0] NCCL INFO comm 0x55d0c8a0 rank 0 nranks {nranks} cudaDev 0 busId 3b000 - Init COMPLETE",
        f"[rank{rank}]:node01:1235:1301 [1] NCCL INFO comm 0x55d0c8a1 rank {rank} nranks {nranks} cudaDev 1 busId 5e000 - Init COMPLETE",
        "[rank1]:[E1130 17:40:34.227531 ProcessGroupNCCL.cpp:563] [Rank 1] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=15, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for "
        "600037 milliseconds before timing out.",
        "[rank0]:2026-11-30T17:30:00Z RuntimeError: CUDA error: an illegal memory access was encountered",
    ]
    (run / "train.log").write_text("\n".join(lines) + "\n")
    return run


@pytest.mark.parametrize(("nranks", "rank"), [("99999999999", "1"), ("4", "1000000000000"), ("99999999", "5")])
def test_claimed_world_sizes_and_rank_ids_size_nothing(tmp_path: Path, nranks: str, rank: str) -> None:
    """An init line claiming 10^11 ranks (or rank id 10^12, or 10^8 ranks) is not believed: the
    report is sound and attribution builds nothing of that size (it used to die in MemoryError
    building set(range(world_size)))."""
    import tracemalloc

    tracemalloc.start()
    report = replay_path(_absurd_run(tmp_path, nranks, rank), load_ruleset())
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 64 << 20
    assert report.incidents and report.incidents[0].cause.value == "illegal_memory_access"
    assert report.incidents[0].initiator.rank == 0
    assert all(r < 1 << 20 for r in report.incidents[0].collateral_ranks)
    assert len(report.incidents[0].collateral_ranks) <= 8


def test_two_hundred_thousand_distinct_ranks_stay_bounded(tmp_path: Path) -> None:
    """200,000 ranks each printing one watchdog timeout (a 200k-GPU cascade): a sound report,
    every rank counted and every other rank listed as collateral, memory bounded by the
    evidence cap."""
    import tracemalloc

    run = tmp_path / "big"
    run.mkdir()
    with (run / "train.log").open("w") as fh:
        fh.write("[rank7]:2026-11-30T17:30:00Z RuntimeError: CUDA error: an illegal memory access was encountered\n")
        for r in range(200_000):
            fh.write(f"[rank{r}]:[E1130 17:40:34.227531 ProcessGroupNCCL.cpp:563] [Rank {r}] Watchdog caught collective "
                     "operation timeout: WorkNCCL(SeqNum=15, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
                     "Timeout(ms)=600000) ran for 600037 milliseconds before timing out.\n")
    tracemalloc.start()
    report = replay_path(run, load_ruleset())
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert report.incidents[0].initiator.rank == 7
    assert report.incidents[0].cause.value == "illegal_memory_access"
    assert report.summary.ranks == 200_000
    assert report.incidents[0].collateral_ranks == tuple(r for r in range(200_000) if r != 7)
    assert peak < 512 << 20
