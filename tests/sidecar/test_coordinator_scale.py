"""The coordinator at 1,024 nodes x 8 ranks, against a real Prometheus on a backfilled TSDB
(bench/bench_coordinator.py builds it: the series every sidecar exports, as Prometheus stores
them): it names the right rank, node, GPU and cause, attributes exactly as reading every series
did, and its answers stay small; and its table of who is who follows a restarted rank.

Needs ``promtool`` and ``prometheus`` (Debian package ``prometheus``; CI installs it with
scripts/setup-system.sh)."""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.bench_coordinator import (
    Coordinator,
    Evaluation,
    MeasuredClient,
    Scenario,
    attribute_external,
    backfill,
    default_end,
    full_read,
    prometheus_on_backfill,
    verdict,
)
from detector.sidecar.coordinator import K_COLLATERAL, K_ERRORS, CoordinatorSource
from detector.types import Incident
from tests.support.prometheus import start_prometheus, stop_prometheus

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("promtool") is None or shutil.which("prometheus") is None,
                       reason="promtool/prometheus missing (Debian package prometheus; CI installs it with "
                              "scripts/setup-system.sh)"),
]

NODES = 1024
ROUNDS = 8  # 2 s apart: includes a members check (every 10 s)
# what one round may return, whatever the number of ranks: the evidence digest (K per cause and
# per rule, each with a text label of at most 200 characters), the wait-state counts, the
# members check; ~7 KB measured
ROUND_BYTES = 32 * 1024
ROUND_SERIES = K_ERRORS * 2 + K_COLLATERAL * 2 + 70
TABLE_BYTES_PER_RANK = 160  # who is who, read once: ~125 B a rank measured
THIN_BYTES_PER_RANK = 80  # the timed-out ranks of a hang, one by one: ~65 B a rank measured
TARGET_S = 2.0


def _same(a: Incident, b: Incident) -> None:
    """The digest's incident is the one reading every series gave: cause, initiator, collateral
    ranks, confidence, advice, explanation. (Not always its id and first evidence time: the
    coordinator's findings have no file and line, so attribution keeps one piece of evidence per
    rule, the first it meets: reading everything, whichever rank Prometheus listed first; the
    digest, the earliest. Where that is not the initiator's own, the digest's is the true first.)"""
    assert (a.cause, a.initiator, a.collateral_ranks, a.remediation, a.explanation) == \
        (b.cause, b.initiator, b.collateral_ranks, b.remediation, b.explanation)
    assert a.confidence == pytest.approx(b.confidence)
    assert a.first_evidence_time is not None and b.first_evidence_time is not None
    assert a.first_evidence_time <= b.first_evidence_time


def _run(fault: str) -> tuple[Scenario, Evaluation, list[Evaluation], list[Incident], CoordinatorSource]:
    sc = Scenario(nodes=NODES, end=default_end(), fault=fault)
    with prometheus_on_backfill(sc) as (server, _stages):
        coordinator = Coordinator(server.url, sc)
        times = sc.round_times(ROUNDS + 1)
        first = coordinator.evaluate(times[0])
        rounds = [coordinator.evaluate(t) for t in times[1:]]
        reference = attribute_external(full_read(MeasuredClient(server.url), sc.job, sc.end))
    return sc, first, rounds, reference, coordinator.source


@pytest.fixture(scope="module")
def xid() -> tuple[Scenario, Evaluation, list[Evaluation], list[Incident], CoordinatorSource]:
    return _run("xid")


@pytest.fixture(scope="module")
def hang() -> tuple[Scenario, Evaluation, list[Evaluation], list[Incident], CoordinatorSource]:
    return _run("hang")


def test_xid_at_1024_nodes_names_the_rank_and_stays_small(xid: Any) -> None:
    sc, first, rounds, reference, source = xid
    for ev in (first, *rounds):
        ok, said = verdict(ev, sc)
        assert ok, f"{said}; truth: gpu_hardware, rank {sc.failing_rank}, {sc.failing_node}, GPU {sc.failing_gpu}"
        _same(ev.incidents[0], reference[0])
        assert ev.incidents[0].id == reference[0].id  # the Xid is the first evidence either way
        assert ev.incidents[0].remediation.drain_node
    assert [i.cause for i in rounds[-1].incidents] == [i.cause for i in reference]
    # who is who, once: bounded per rank; then every round the same few KB, at 8,192 ranks
    assert first.bytes <= sc.world * TABLE_BYTES_PER_RANK, first.queries
    for ev in rounds:
        assert ev.bytes <= ROUND_BYTES and ev.series <= ROUND_SERIES, [(q[:60], b, n) for q, b, n in ev.queries]
    assert any("unless" in q for ev in rounds for q, _, _ in ev.queries), "no members check in 16 s of rounds"
    assert source.last_round is not None and not source.last_round.table_read
    assert statistics.median(ev.seconds for ev in rounds) <= TARGET_S


def test_hang_at_1024_nodes_is_attributed_as_reading_everything_did(hang: Any) -> None:
    """No initiator-grade evidence: attribution infers the rank from who went silent first,
    who did not time out and who waits elsewhere; the one case that lists a rank per row
    (thin rows: the vote for the ranks missing from the timeout needs the whole set)."""
    sc, first, rounds, reference, _source = hang
    for ev in (first, *rounds):
        ok, said = verdict(ev, sc)
        assert ok, f"{said}; truth: hang, rank {sc.failing_rank}, {sc.failing_node}, GPU {sc.failing_gpu}"
        _same(ev.incidents[0], reference[0])
    explanation = rounds[-1].incidents[0].explanation
    for reason in ("went silent first", "did not report the collective timeout", "stopped making progress first"):
        assert reason in explanation, explanation
    for ev in rounds:
        assert ev.bytes <= ROUND_BYTES + sc.world * THIN_BYTES_PER_RANK, [(q[:60], b, n) for q, b, n in ev.queries]
    assert statistics.median(ev.seconds for ev in rounds) <= TARGET_S


@pytest.mark.parametrize("fault", ["xid", "hang", "hang-all"])
@pytest.mark.parametrize("nodes", [1, 2, 3])
def test_small_jobs_attribute_as_reading_everything_did(fault: str, nodes: int) -> None:
    """Where the digest holds most ranks but not all (5-15 ranks, 8 per rule), attribution's
    vote for the ranks missing from a collective timeout must not come out otherwise."""
    sc = Scenario(nodes=nodes, end=default_end(), fault=fault, ranks_per_node=5, failing_local_rank=3)
    with prometheus_on_backfill(sc) as (server, _stages):
        ev = Coordinator(server.url, sc).evaluate(sc.end)
        reference = attribute_external(full_read(MeasuredClient(server.url), sc.job, sc.end))
    assert [(i.cause, i.initiator.rank) for i in ev.incidents] == [(i.cause, i.initiator.rank) for i in reference]
    _same(ev.incidents[0], reference[0])
    ok, said = verdict(ev, sc)
    assert ok, said


# --- who is who follows the job ------------------------------------------------------------

JOB = "restarts"


def _series(end: float) -> str:
    """Two nodes x 4 ranks for ten minutes; rank 5 restarts (new pid) at end-420; node c joins
    (ranks 8, 9) at end-60 and node d (rank 10) at end-30, when rank 5 reports an Xid; the data
    ends at end."""
    start, restart, join = end - 600, end - 420, end - 60
    lines: dict[str, list[str]] = {"rankdoctor_rank_info": [], "rankdoctor_rank_first_error_timestamp_seconds": []}
    grid = [start + 15 * i for i in range(41)]

    def info(node: str, rank: int, pid: int, since: float, until: float) -> None:
        labels = (f'job="sidecars",instance="{node}:9400",training_job="{JOB}",node="{node}",rank="{rank}",'
                  f'local_rank="{rank % 4}",gpu="0000:{rank % 4 + 1:02d}:00",pid="{pid}"')
        lines["rankdoctor_rank_info"].extend(f"rankdoctor_rank_info{{{labels}}} 1 {t:.3f}" for t in grid
                                             if since <= t < until)

    for rank in range(8):
        node = "a" if rank < 4 else "b"
        if rank == 5:
            info(node, rank, 500, start, restart)
            info(node, rank, 555, restart, end + 1)
        else:
            info(node, rank, 100 + rank, start, end + 1)
    for rank in (8, 9):
        info("c", rank, 100 + rank, join, end + 1)
    info("d", 10, 110, end - 33, end + 1)  # (its first sample: end-30)
    err = (f'rankdoctor_rank_first_error_timestamp_seconds{{job="sidecars",instance="b:9400",training_job="{JOB}",'
           f'node="b",rank="5",cause="gpu_hardware",rule="xid.fallen_off_bus",confidence="1.00",'
           f'text="NVRM: Xid (PCI:0000:02:00): 79, GPU has fallen off the bus."}}')
    lines["rankdoctor_rank_first_error_timestamp_seconds"] = [f"{err} {end - 30:.3f} {t:.3f}" for t in grid
                                                               if t >= end - 30]
    out = []
    for name, rows in lines.items():
        out += [f"# TYPE {name} gauge", *rows]
    return "\n".join([*out, "# EOF", ""])


@pytest.fixture(scope="module")
def restarts() -> Iterator[tuple[Any, float]]:
    end = default_end()
    base = Path(tempfile.mkdtemp(prefix="rankdoctor-coord-"))
    try:
        (base / "series.om").write_text(_series(end))
        backfill(base / "series.om", base / "data")
        server = start_prometheus(base)
        try:
            yield server, end
        finally:
            stop_prometheus(server)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_who_is_who_follows_a_restart_and_a_new_node(restarts: Any) -> None:
    server, end = restarts
    at = [end - 500]
    client = MeasuredClient(server.url)
    source = CoordinatorSource(lambda: client, job=JOB, interval_s=2.0, clock=time.time, query_time=lambda: at[0])

    def round_at(t: float) -> dict[int, Any]:
        at[0] = t
        source.query_once()
        assert source.last is not None
        return {r.rank: r for r in source.last.ranks}

    ranks = round_at(end - 500)  # before the restart: the first round reads the table
    assert source.last_round is not None and source.last_round.table_read
    assert sorted(ranks) == list(range(8)) and ranks[5].pid == 500
    ranks = round_at(end - 498)  # nothing changed, nothing re-read, no members check yet
    assert source.last_round is not None and not source.last_round.table_read
    assert len(source.last_round.queries) == 1
    # rank 5 restarted at end-420 (its old series is out of Prometheus's 5-minute lookback
    # by end-120): the same number of series, a new row; the members check sees it
    ranks = round_at(end - 100)
    assert source.last_round is not None and source.last_round.table_read
    assert ranks[5].pid == 555 and sorted(ranks) == list(range(8))
    ranks = round_at(end - 98)  # and does not re-read again for it
    assert source.last_round is not None and not source.last_round.table_read
    # nodes c and d joined at end-60 and end-30: the members check (10 s later) counts more series
    ranks = round_at(end - 20)
    assert source.last_round is not None and source.last_round.table_read
    assert sorted(ranks) == list(range(11)) and ranks[8].node == "c" and ranks[10].node == "d"
    # the Xid (at end-30) names rank 5 on b with its GPU and its current pid, ten collateral ranks
    (incident,) = attribute_external(source.last)
    assert (incident.cause.value, incident.initiator.rank, incident.initiator.node) == ("gpu_hardware", 5, "b")
    assert (incident.initiator.pid, incident.initiator.gpu) == (555, "0000:02:00")
    assert incident.collateral_ranks == (0, 1, 2, 3, 4, 6, 7, 8, 9, 10)
    # the job ended (nothing left within Prometheus's 5-minute lookback): no ranks any more
    ranks = round_at(end + 400)
    assert source.last_round is not None and source.last_round.table_read and ranks == {}


def test_a_new_initiator_report_brings_the_members_check_forward(restarts: Any) -> None:
    """An incident names every other rank from who is who: the round in which a new
    initiator-grade report arrives checks the members then, not at the check's next turn (10 s
    later), so that a rank that joined since the last check is among the collateral."""
    server, end = restarts
    at = [end - 36]
    client = MeasuredClient(server.url)
    source = CoordinatorSource(lambda: client, job=JOB, interval_s=2.0, clock=time.time, query_time=lambda: at[0])
    source.query_once()  # reads who is who: ranks 0-9 (d not yet there), no error yet
    assert source.last is not None and sorted(r.rank for r in source.last.ranks) == list(range(10))
    at[0] = end - 29  # 7 s later: the Xid arrives, and rank 10 with it
    source.query_once()
    assert source.last_round is not None and source.last_round.table_read
    (incident,) = attribute_external(source.last)
    assert incident.initiator.rank == 5 and 10 in incident.collateral_ranks
