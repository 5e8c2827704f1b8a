"""The sidecar is the replay pipeline with live sources: fed each scenario of replay_logs/ as
files it follows (read from their start), it must report the incidents the scenario expects,
through its settle windows and its one-incident-per-failure gate."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.rules.reload import RuleReloader
from detector.sidecar.config import DetectionConfig, ProcessConfig, SidecarConfig
from detector.sidecar.service import Outside, Sidecar

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted(p for p in (ROOT / "replay_logs").iterdir() if (p / "expected.json").is_file())
LIVE_ONLY_SKIP = {"straggler"}  # stragglers need the whole step history: replay's job, not the sidecar's
# Fed here as one whole-file chunk, the live stall tracker sees only the newest step line, so the
# silence after the others finished has no median to measure; followed line by line, as a running
# job is, the sidecar names the rank (tests/replay/test_teardown_hang.py).
WHOLE_FILE_SKIP = {"teardown_hang_4r"}
# The sidecar reads no Flight Recorder dump (torch writes it as the job dies): where only the dump
# names the rank (a job of one rank whose own stream held it), the live incident names none.
DUMP_ONLY = {"h200_gpu_stuck_fr_timeout_1r"}


class FakeClock:
    def __init__(self, now: float) -> None:
        self.now = now

    def time(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def reloader() -> RuleReloader:
    return RuleReloader()


def live_incidents(scenario: Path, end: float, rules: RuleReloader) -> list[dict[str, object]]:
    clock = FakeClock(end + 2.0)
    config = SidecarConfig(logs=(str(scenario),), nvml=False, metrics_addr=None, remediate=False,
                           processes=ProcessConfig(enabled=False), detection=DetectionConfig(poll_s=0.01, history_s=0))
    out = io.StringIO()
    sidecar = Sidecar(config, Outside(clock=clock, observer_factory=None, out=out, err=out),  # type: ignore[arg-type]
                      rules=rules)
    sidecar.start()
    try:
        for _ in range(3):
            sidecar.step()
        for _ in range(8):  # let every settle window pass
            clock.now += 1.0
            sidecar.step()
    finally:
        sidecar.shutdown()
    return sidecar.incidents


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[p.name for p in SCENARIOS])
def test_live_engine_matches_the_scenario(scenario: Path, reloader: RuleReloader, ruleset: RuleSet) -> None:
    expected = json.loads((scenario / "expected.json").read_text())["incidents"]
    if any(i["cause"] in LIVE_ONLY_SKIP for i in expected):
        pytest.skip("straggler detection is replay's (whole-history statistics)")
    if scenario.name in WHOLE_FILE_SKIP:
        pytest.skip("a teardown hang needs the step history a whole-file chunk does not give")
    if scenario.name in DUMP_ONLY:
        pytest.skip("the rank is named by the Flight Recorder dump, which replay reads and the sidecar does not")
    report = replay_path(scenario, ruleset)
    end = report.summary.end.timestamp() if report.summary.end else 0.0
    got = live_incidents(scenario, end, reloader)
    want = [(i["cause"], i["initiator"].get("rank")) for i in expected]
    have = [(i["cause"], i["initiator"]["rank"]) for i in got]  # type: ignore[index]
    assert have[: len(want)] == want
    for incident, exp in zip(got, expected, strict=False):
        if "collateral_ranks" in exp:
            assert set(incident["collateral_ranks"]) == set(exp["collateral_ranks"])  # type: ignore[arg-type]
        assert "detected_at" in incident


_AGENT_STOPPED = """W1205 19:28:31.782000 27003 torch/distributed/run.py:874] *****************************************
[rank0]:step 1 loss 2.31
[rank1]:step 1 loss 2.30
W1205 19:28:35.613000 27003 torch/distributed/elastic/agent/server/api.py:753] Received 15 death signal, shutting down workers
W1205 19:28:35.614000 27003 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 27027 closing signal SIGTERM
W1205 19:28:35.614000 27003 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 27028 closing signal SIGTERM
"""


def test_torchrun_stopped_from_outside_is_a_preemption_live_as_in_replay(tmp_path: Path, reloader: RuleReloader,
                                                                          ruleset: RuleSet) -> None:
    """torchrun's agent sent SIGTERM (a scheduler's preemption, a user's scancel) while its workers
    trained, before its own traceback was written: replay and the sidecar both say preemption (the
    sidecar said unknown: it knows no file's end, and the stop was read only as a log's last word;
    found by running real torchrun jobs under the sidecar)."""
    (tmp_path / "console.log").write_text(_AGENT_STOPPED)
    report = replay_path(tmp_path, ruleset)
    assert report.incidents[0].cause.value == "preemption"
    end = report.summary.end.timestamp() if report.summary.end else 0.0
    got = live_incidents(tmp_path, end, reloader)
    assert [i["cause"] for i in got] == ["preemption"], got
