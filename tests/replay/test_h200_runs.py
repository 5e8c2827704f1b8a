"""Runs recorded on a real NVIDIA H200 (replay_logs/h200_*, made by bench/gpu/h200_check.sh): what
the real driver, torch 2.11 and NCCL 2.28 wrote, read back here without a GPU.

The scenarios' expected.json files are checked by tests/replay/test_scenarios.py; this file pins
what those runs taught: the Flight Recorder dump NCCL's watchdog wrote on its own timeout, the
kernel's Xid line tied to the rank by its pid, and the GPU named by its PCI address.
"""

from __future__ import annotations

from dataclasses import replace

from detector.replay import replay_path
from detector.report.jsonfmt import report_to_dict
from detector.rules.engine import RuleSet
from detector.sources.flight_recorder import analyse, findings, read_dump
from detector.sources.flight_recorder.dump import FrGroupConfig, FrGroupStatus
from detector.sources.flight_recorder.evidence import RULE_WAITING
from detector.types import Role
from tests.support.paths import REPLAY_LOGS

STUCK = REPLAY_LOGS / "h200_gpu_stuck_fr_timeout_1r"


def test_nccl_watchdog_dump_reads_as_torch_wrote_it() -> None:
    dump = read_dump(STUCK / "fr" / "nccl_trace_rank_0")
    assert (dump.rank, dump.version, dump.comm_lib_version) == (0, "2.10", "2.28.9")
    # without TORCH_NCCL_ENABLE_TIMING nothing is ever 'started': the stuck all-reduces stay 'scheduled'
    assert dump.status == (FrGroupStatus(pg_id="0", last_enqueued=40, last_started=-1, last_completed=37),)
    tail = {e.collective_seq_id: e.state for e in dump.entries if e.collective_seq_id >= 36}
    assert tail == {36: "completed", 37: "completed", 38: "scheduled", 39: "scheduled", 40: "scheduled"}
    assert dump.entries[-1].profiling_name == "nccl:all_reduce"


def test_a_job_of_one_rank_waiting_is_its_own_hang() -> None:
    dump = read_dump(STUCK / "fr" / "nccl_trace_rank_0")
    analysis = analyse([dump])
    hang = analysis.groups[0].hang
    assert hang is not None and hang.alone and hang.waiting == (0,)
    [waiting] = [f for f in findings(analysis, [dump]) if f.rule == RULE_WAITING]
    assert waiting.role is Role.INITIATOR and waiting.rank == 0
    # it waits in the first collective it did not complete, not the last one it enqueued
    assert "ALLREDUCE #38 " in waiting.text and "entered up to #40" in waiting.text


def test_the_same_wait_in_a_job_of_two_ranks_is_collateral() -> None:
    """One more rank in the job (its dump complete up to #40): rank 0 alone waiting is no longer
    proof that its own work held it."""
    dump = read_dump(STUCK / "fr" / "nccl_trace_rank_0")
    two = (FrGroupConfig(name="0", desc="default_pg", ranks=(0, 1)),)
    rank0 = replace(dump, configs=two)
    rank1 = replace(dump, rank=1, path="nccl_trace_rank_1", configs=two,
                    status=(FrGroupStatus(pg_id="0", last_enqueued=40, last_started=-1, last_completed=40),),
                    entries=tuple(replace(e, state="completed", retired=True) for e in dump.entries))
    analysis = analyse([rank0, rank1])
    hang = analysis.groups[0].hang
    assert hang is not None and not hang.alone
    roles = {f.rank: f.role for f in findings(analysis, [rank0, rank1]) if f.rule == RULE_WAITING}
    assert roles == {0: Role.COLLATERAL}


def test_xid31_from_the_kernel_names_the_rank_by_pid_and_never_drains(ruleset: RuleSet) -> None:
    report = report_to_dict(replay_path(REPLAY_LOGS / "h200_xid31_illegal_address_1r", ruleset))
    [incident] = report["incidents"]
    assert incident["cause"] == "illegal_memory_access"
    assert (incident["initiator"]["rank"], incident["initiator"]["pid"]) == (0, 606)
    assert incident["initiator"]["gpu"] == "0000:00:06"  # dmesg's PCI:0000:00:06, normalised
    assert incident["remediation"]["drain_node"] is False
    rules = {e["rule"] for e in incident["evidence"]}
    assert "xid.app_fault" in rules, rules


def test_a_lone_dump_is_a_job_of_one_rank_only_where_something_says_so() -> None:
    """Without its default group's config, or from a rank other than 0, one dump says nothing of
    the ranks that left none: rank 0 waiting is not proof that the job had no other rank."""
    dump = read_dump(STUCK / "fr" / "nccl_trace_rank_0")
    bare = replace(dump, configs=())
    assert not analyse([bare]).groups[0].hang.alone  # type: ignore[union-attr]
    assert analyse([bare], world_size=1).groups[0].hang.alone  # type: ignore[union-attr]
    assert not analyse([dump], world_size=2).groups[0].hang.alone  # type: ignore[union-attr]
    third = replace(dump, rank=3, path="nccl_trace_rank_3")
    hang = analyse([third]).groups[0].hang
    assert hang is not None and not hang.alone
    roles = {f.role for f in findings(analyse([third]), [third]) if f.rule == RULE_WAITING}
    assert Role.INITIATOR not in roles


def test_the_wait_names_the_first_pending_collective_the_buffer_holds() -> None:
    dump = read_dump(STUCK / "fr" / "nccl_trace_rank_0")
    # #38 rotated out of the ring: the first pending one it still holds is #39
    rotated = replace(dump, entries=tuple(e for e in dump.entries if e.collective_seq_id != 38))
    [w] = [f for f in findings(analyse([rotated]), [rotated]) if f.rule == RULE_WAITING]
    assert "ALLREDUCE #39 " in w.text and "entered up to #40" in w.text
    # the status lags the entries: #38 already completed, so the rank waits in #39
    lagging = replace(dump, entries=tuple(replace(e, state="completed") if e.collective_seq_id == 38 else e
                                          for e in dump.entries))
    [w] = [f for f in findings(analyse([lagging]), [lagging]) if f.rule == RULE_WAITING]
    assert "ALLREDUCE #39 " in w.text


def test_a_rank_behind_is_said_to_miss_the_last_collective_not_the_one_waited_in() -> None:
    dump = read_dump(STUCK / "fr" / "nccl_trace_rank_0")
    two = (FrGroupConfig(name="0", desc="default_pg", ranks=(0, 1)),)
    rank0 = replace(dump, configs=two)
    rank1 = replace(dump, rank=1, path="nccl_trace_rank_1", configs=two,
                    status=(FrGroupStatus(pg_id="0", last_enqueued=38, last_started=-1, last_completed=37),),
                    entries=tuple(e for e in dump.entries if e.collective_seq_id <= 38))
    out = findings(analyse([rank0, rank1]), [rank0, rank1])
    [w] = [f for f in out if f.rule == RULE_WAITING]
    assert w.rank == 0 and "ALLREDUCE #38 " in w.text and "rank 1 never entered #40" in w.text, w.text
