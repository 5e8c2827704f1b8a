"""What the torchrun agent's teardown says about who failed first.

- The agent sends its closing signal to the workers still running: on a node whose workers the
  logs or the live processes place by pid, the one worker it spared had already ended.
- torchelastic's race: the agent reads a failing worker's error file while the worker still
  writes it, logs "Failed to parse reply file" and dies on its own ``JSONDecodeError``. That
  traceback is the agent's, not the job's failure (seen under load in the sidecar's SIGKILL test:
  the SIGKILL's collateral ranks were torn down while writing their error files).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from detector.attribution.attribute import attribute
from detector.rules.engine import RuleSet
from detector.types import Cause, Finding, RankInfo, Role, RunFacts, Severity
from tests.support.replaying import incidents_of

T = datetime(2026, 12, 2, 0, 53, 12, tzinfo=UTC)
PIDS = {0: 8107, 1: 8108, 2: 8109, 3: 8110}


def _sigterm(pid: int, node: str | None = "node01", line: int = 26) -> Finding:
    return Finding("torch.elastic_sending_signal", Role.COLLATERAL, None, Severity.WARNING,
                   f"Sending process {pid} closing signal SIGTERM", file="console.log", line=line,
                   time=T + timedelta(milliseconds=line), node=node, fields=(("pid", str(pid)), ("signal", "SIGTERM")))


def _ranks(node: str | None = "node01", pids: dict[int, int] = PIDS) -> dict[int, RankInfo]:
    return {r: RankInfo(r, local_rank=r, node=node, pid=pid) for r, pid in pids.items()}


def test_the_worker_the_launcher_did_not_signal_ended_first() -> None:
    signals = [_sigterm(PIDS[r], line=26 + i) for i, r in enumerate((0, 2, 3))]
    [incident] = attribute(RunFacts(tuple(signals), _ranks(), 4))
    assert incident.initiator.rank == 1
    assert incident.cause is Cause.UNKNOWN  # nothing says why it ended
    assert set(incident.collateral_ranks) == {0, 2, 3}
    assert "teardown signal" in incident.explanation


def test_signals_to_pids_no_rank_has_say_nothing() -> None:
    # three of the ranks' pids and one no rank has (an earlier attempt's): no rank is named,
    # though rank 1 was not signalled
    signals = [_sigterm(pid, line=26 + i) for i, pid in enumerate((8107, 8109, 8110, 5004))]
    [incident] = attribute(RunFacts(tuple(signals), _ranks(), 4))
    assert incident.initiator.rank is None


def test_a_rank_without_a_known_pid_may_be_the_spared_one() -> None:
    # ranks 1 and 3 were both left alone; rank 3's pid is unknown, so rank 1 is not named
    ranks = _ranks()
    ranks[3] = RankInfo(3, local_rank=3, node="node01", pid=None)
    signals = [_sigterm(PIDS[0], line=26), _sigterm(PIDS[2], line=27)]
    [incident] = attribute(RunFacts(tuple(signals), ranks, 4))
    assert incident.initiator.rank is None


def test_a_node_whose_workers_were_all_signalled_spares_none() -> None:
    # two nodes: node02's launcher tore down all of its workers (the failure was elsewhere) and
    # node01's spared rank 1
    pids = {0: 100, 1: 101, 2: 200, 3: 201}
    ranks = {r: RankInfo(r, local_rank=r % 2, node="node01" if r < 2 else "node02", pid=pid) for r, pid in pids.items()}
    signals = [_sigterm(100, "node01", 10), _sigterm(200, "node02", 11), _sigterm(201, "node02", 12)]
    [incident] = attribute(RunFacts(tuple(signals), ranks, 4))
    assert (incident.initiator.rank, incident.initiator.node) == (1, "node01")


_STEPS = "".join(f"2026-12-02 00:53:1{s},000 INFO [rank{{r}}] step {s} | loss 0.5 | step_ms 20.0\n" for s in range(6))
_RACE = (
    "W1202 00:53:12.949000 8104 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 8107 closing signal SIGTERM\n"
    "W1202 00:53:12.950000 8104 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 8109 closing signal SIGTERM\n"
    "W1202 00:53:12.950000 8104 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 8110 closing signal SIGTERM\n"
    "E1202 00:53:13.148000 8104 torch/distributed/elastic/multiprocessing/errors/__init__.py:132] Failed to parse reply file: "
    "/logs/run_x/attempt_0/0/error.json\n"
    "E1202 00:53:13.148000 8104 torch/distributed/elastic/multiprocessing/errors/__init__.py:132] Traceback (most recent call last):\n"
    'E1202 00:53:13.148000 8104 torch/distributed/elastic/multiprocessing/errors/__init__.py:132]   File "json/decoder.py", line 355, in raw_decode\n'
    "E1202 00:53:13.148000 8104 torch/distributed/elastic/multiprocessing/errors/__init__.py:132] "
    "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)\n"
    "Traceback (most recent call last):\n"
    '  File "/venv/bin/torchrun", line 8, in <module>\n'
    "    sys.exit(main())\n"
    '  File "torch/distributed/elastic/multiprocessing/errors/__init__.py", line 123, in __post_init__\n'
    "    self.error_file_data = json.load(fp)\n"
    '  File "json/decoder.py", line 355, in raw_decode\n'
    '    raise JSONDecodeError("Expecting value", s, err.value) from None\n'
    "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)\n"
)


def _run(race: str) -> dict[str, str]:
    files = {f"logs/run_x/attempt_0/{r}/stderr.log": _STEPS.replace("{r}", str(r)) for r in range(4)}
    files["console.log"] = race
    return files


def test_the_launchers_crash_on_a_half_written_error_file_is_not_the_jobs_exception(tmp_path: Path,
                                                                                      ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, _run(_RACE), ruleset)
    assert got, "the torn-down job is still an incident"
    assert all(g.cause is not Cause.PYTHON_EXCEPTION for g in got), got


def test_the_same_exception_without_the_race_stays_an_exception(tmp_path: Path, ruleset: RuleSet) -> None:
    # (the check can fail: without the agent's report, the JSONDecodeError is the job's own)
    race = "".join(line + "\n" for line in _RACE.splitlines() if "Failed to parse reply file" not in line)
    got = incidents_of(tmp_path, _run(race), ruleset)
    assert [g.cause for g in got] == [Cause.PYTHON_EXCEPTION]
