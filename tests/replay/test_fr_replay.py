"""Replay reads the Flight Recorder dumps of a run (written by a real 4-rank gloo torchrun job,
scripts/gen_fr_dumps.py) as dumps, not as text logs, and their evidence names the rank that never
entered the collective the others wait in."""

from __future__ import annotations

from pathlib import Path

from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.sources.runs import FileKind, discover
from tests.support.paths import REPLAY_LOGS

RUN = REPLAY_LOGS / "torchrun_fr_hang_4r"


def test_dumps_are_classified_as_dumps() -> None:
    files, _warnings = discover(RUN)
    dumps = [f for f in files if f.kind is FileKind.FR_DUMP]
    assert sorted(f.rank for f in dumps) == [0, 1, 2, 3]
    assert not any("comm_lib_trace" in f.display for f in files if f.kind is FileKind.RANK_LOG)


def test_the_dumps_name_the_rank_that_never_entered(ruleset: RuleSet) -> None:
    report = replay_path(RUN, ruleset)
    assert not [w for w in report.warnings if "UTF-8" in w]
    inc = report.incidents[0]
    assert inc.cause.value == "hang" and inc.initiator.rank == 3
    fr = [f for f in inc.evidence if f.rule == "flight_recorder.missing_rank"]
    assert fr and fr[0].rank == 3 and "never entered" in fr[0].text


def test_the_dumps_alone_are_enough(tmp_path: Path, ruleset: RuleSet) -> None:
    """Without the logs, the dumps still name rank 3."""
    (tmp_path / "fr").mkdir()
    for p in (RUN / "fr_dumps").iterdir():
        (tmp_path / "fr" / p.name).write_bytes(p.read_bytes())
    report = replay_path(tmp_path, ruleset)
    assert report.incidents and report.incidents[0].initiator.rank == 3


def test_a_hostile_dump_is_a_warning_not_a_crash(tmp_path: Path, ruleset: RuleSet) -> None:
    import pickle

    class Evil:
        def __reduce__(self) -> tuple[object, tuple[str]]:
            import os
            return (os.system, ("touch " + str(tmp_path / "pwned"),))

    data = pickle.dumps({"version": "2.10", "entries": [Evil()]}, protocol=2)
    (tmp_path / "comm_lib_trace_rank_0").write_bytes(data)
    report = replay_path(tmp_path, ruleset)
    assert not (tmp_path / "pwned").exists()
    assert any("refused" in w or "comm_lib_trace_rank_0" in w for w in report.warnings)
