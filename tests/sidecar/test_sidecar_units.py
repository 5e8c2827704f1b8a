"""The sidecar's parts with fakes: config, the incident gate, rank processes on a fake /proc,
pieces of lines, NVML (a fake module), DCGM through a fake Prometheus client, the metrics
endpoint, the coordinator's conversion, and the incident line."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import re
import signal
import urllib.request
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from detector.errors import ConfigError
from detector.rules.engine import RuleSet
from detector.sidecar.config import (
    DetectionConfig,
    HangConfig,
    ProcessConfig,
    SidecarConfig,
    load_config,
    parse_rank_gpu,
)
from detector.sidecar.coordinator import CoordinatorSource
from detector.sidecar.engine import LiveEngine
from detector.sidecar.gate import IncidentGate
from detector.sidecar.lines import LineProcessor
from detector.sidecar.metrics import SidecarMetrics
from detector.sidecar.model import (
    Chunk,
    GpuProcesses,
    Inbox,
    LiveFindings,
    Processes,
    SourceState,
    SourceStatus,
    Suspect,
)
from detector.sidecar.sink import IncidentSink
from detector.sidecar.sources.nvml import NvmlSource, NvmlUnavailable
from detector.sidecar.sources.procs import ProcessWatcher, odd_ones
from detector.sidecar.sources.prom import DcgmSource, Poller
from detector.sidecar.state import SidecarStore
from detector.sources.runs import FileKind, LogFile
from detector.types import RULE_PROCESS_EXITED, Cause, Finding, Role, Severity
from tests.support.nvml import EventData, FakeNvml
from tests.support.sidecar import NOW

# --- config -----------------------------------------------------------------------------


def test_config_file_is_validated_with_file_and_line(tmp_path: Path) -> None:
    good = tmp_path / "watch.yaml"
    good.write_text(
        "logs: [logs]\nkmsg: kern.log\nnode: node01\njob: train-1\nrank_gpus: ['2=0000:3B:00.0']\n"
        "hang: {k: 4, floor_s: 20}\ndetection: {settle_s: 0.3}\n"
        "remediation: {min_confidence: 0.7, hooks: []}\n")
    cfg = load_config(good, environ={})
    assert cfg.logs == (str(tmp_path / "logs"),) and cfg.kmsg == str(tmp_path / "kern.log")
    assert cfg.rank_gpus == ((2, "0000:3b:00"),)
    assert cfg.hang.k == 4 and cfg.hang.floor_s == 20 and cfg.detection.settle_s == 0.3
    assert dict(cfg.remediation or {}) == {"min_confidence": 0.7, "hooks": []}  # passed through as is
    bad = tmp_path / "bad.yaml"
    bad.write_text("logs: [a]\nhang:\n  k: 5\n  flor_s: 3\n")
    with pytest.raises(ConfigError) as err:
        load_config(bad, environ={})
    assert err.value.line == 4 and "flor_s" in str(err.value) and str(bad) in str(err.value)
    with pytest.raises(ConfigError):
        parse_rank_gpu("two=0000:3b:00")
    top = tmp_path / "top.yaml"
    top.write_text("logz: [a]\n")
    with pytest.raises(ConfigError, match="logz"):
        load_config(top, environ={})


# --- gate -------------------------------------------------------------------------------


def finding(rule: str, role: Role, cause: Cause | None, rank: int | None, t: float, *, line: int | None = None,
            attempt: int | None = None, node: str | None = "n1") -> Finding:
    return Finding(rule=rule, role=role, cause=cause, severity=Severity.ERROR, text=f"{rule} on rank {rank}",
                   file="log" if line is not None else None, line=line, time=datetime.fromtimestamp(t, tz=UTC),
                   rank=rank, node=node, attempt=attempt)


def test_gate_settles_then_reports_once() -> None:
    gate = IncidentGate(DetectionConfig(settle_s=0.5, collateral_wait_s=3.0), SidecarStore(None))
    collateral = finding("torch.connection_reset", Role.COLLATERAL, None, 0, NOW, line=1)
    gate.observe([collateral], NOW)
    assert gate.deadline() == NOW + 3.0  # only collateral: wait for the initiator's own evidence
    initiator = finding("python.uncaught_exception", Role.INITIATOR, Cause.PYTHON_EXCEPTION, 2, NOW, line=2)
    gate.observe([collateral, initiator], NOW + 0.1)
    assert gate.deadline() == pytest.approx(NOW + 0.6)
    assert gate.due(NOW + 0.5) is None
    due = gate.due(NOW + 0.6)
    assert due is not None
    from detector.attribution.attribute import RunFacts, attribute

    incidents = attribute(RunFacts((collateral, initiator)))
    assert [i.initiator.rank for i in gate.select(incidents, due, NOW + 0.6)] == [2]
    # later evidence of the same failure: attributed again, not reported again
    late = finding("torchelastic.exitcode", Role.INITIATOR, Cause.CRASH_SIGNAL, 2, NOW + 1, line=3)
    gate.observe([collateral, initiator, late], NOW + 1)
    due = gate.due(NOW + 2)
    assert due is not None
    assert gate.select(attribute(RunFacts((collateral, initiator, late))), due, NOW + 2) == []


def test_the_exits_after_a_stop_from_outside_are_not_a_second_incident() -> None:
    """torchrun's agent got SIGTERM (a preemption, reported without a rank); the ranks' process
    exits that follow, seconds later (workers that checkpoint first), are its teardown: an
    unknown cause on the first rank to exit is not reported after it (a real job under the
    sidecar did, on a slow machine)."""
    from detector.attribution.attribute import RunFacts, attribute

    gate = IncidentGate(DetectionConfig(settle_s=0.0, collateral_wait_s=0.0, exit_wait_s=0.0), SidecarStore(None))
    stop = finding("torch.elastic_received_signal", Role.COLLATERAL, None, None, NOW, line=4)
    stop = dataclasses.replace(stop, text="W1205 19:28:35.613000 27003 torch/distributed/elastic/agent/server/api.py:753] "
                               "Received 15 death signal, shutting down workers", fields=(("signum", "15"),))
    gate.observe([stop], NOW)
    due = gate.due(NOW)
    assert due is not None
    first = gate.select(attribute(RunFacts((stop,))), due, NOW)
    assert [i.cause for i in first] == [Cause.PREEMPTION]
    exited = finding(RULE_PROCESS_EXITED, Role.INITIATOR, Cause.UNKNOWN, 1, NOW + 9, line=None)
    gate.observe([stop, exited], NOW + 9)
    due = gate.due(NOW + 9)
    assert due is not None
    later = attribute(RunFacts((stop, exited)))
    assert later and later[0].cause is Cause.UNKNOWN and later[0].initiator.rank == 1  # (what it would say)
    assert gate.select(later, due, NOW + 9) == []


def test_gate_new_attempt_and_supersede() -> None:
    from detector.attribution.attribute import RunFacts, attribute

    store = SidecarStore(None)
    gate = IncidentGate(DetectionConfig(settle_s=0.0, collateral_wait_s=0.0), store)
    unknown = finding("torch.gloo_timeout", Role.COLLATERAL, None, 0, NOW, line=1, attempt=0)
    gate.observe([unknown], NOW)
    due = gate.due(NOW)
    assert due is not None
    first = gate.select(attribute(RunFacts((unknown,))), due, NOW)
    assert [i.initiator.rank for i in first] == [None]
    named = finding("python.uncaught_exception", Role.INITIATOR, Cause.PYTHON_EXCEPTION, 1, NOW + 1, line=2, attempt=0)
    gate.observe([unknown, named], NOW + 1)
    due = gate.due(NOW + 1)
    assert due is not None
    second = gate.select(attribute(RunFacts((unknown, named))), due, NOW + 1)
    assert [i.initiator.rank for i in second] == [1]
    # the second says which one it replaces (the sidecar tester read the pair as a duplicate),
    # in the incidents file and on the terminal; the first replaces none
    assert gate.replaced_by(second[0].id) == first[0].id and gate.replaced_by(first[0].id) is None
    out = io.StringIO()
    line = IncidentSink(None, out=out, count=lambda _c: None).emit(second[0], NOW + 1, gate.replaced_by(second[0].id))
    assert line["replaces"] == first[0].id and f"(replaces {first[0].id}, which named no rank)" in out.getvalue()
    assert "replaces" not in IncidentSink(None, out=None, count=lambda _c: None).emit(first[0], NOW)
    # a new attempt's step closes the episode; its failure is new
    gate.progress(0, 1, NOW + 20, 4)
    again = finding("python.uncaught_exception", Role.INITIATOR, Cause.PYTHON_EXCEPTION, 3, NOW + 30, line=9, attempt=1)
    gate.observe([again], NOW + 30)
    due = gate.due(NOW + 30)
    assert due is not None
    assert [i.initiator.rank for i in gate.select(attribute(RunFacts((again,))), due, NOW + 30)] == [3]
    # a restarted sidecar remembers what it reported
    assert len(IncidentGate(DetectionConfig(), store).open_incidents.__class__.__mro__) >= 1
    assert {r.rank for r in store.reported_since(0)} == {None, 1, 3}


def test_a_new_launch_after_an_incident_opens_a_new_episode_at_once() -> None:
    """A job relaunched into the same watched folder (a Slurm requeue, a user's rerun) starts its
    attempts from 0 again, in a new run folder, seconds after the first launch's incident: its
    training closes the episode at once, and its own failure is reported (before, the second
    launch's failure went unreported: the same attempt, progress within recovery_s). A launch
    begun before the incident (another node's of the same job, whose files a shared file system
    shows late; the failed one, after the sidecar restarts) closes nothing."""
    from detector.attribution.attribute import RunFacts, attribute

    gate = IncidentGate(DetectionConfig(settle_s=0.0, collateral_wait_s=0.0), SidecarStore(None))
    failed = finding("python.uncaught_exception", Role.INITIATOR, Cause.PYTHON_EXCEPTION, 1, NOW, line=1, attempt=0)
    gate.observe([failed], NOW)
    due = gate.due(NOW)
    assert due is not None
    assert [i.initiator.rank for i in gate.select(attribute(RunFacts((failed,))), due, NOW)] == [1]
    # the first launch's lines after its incident, and another node's launch begun with it
    gate.progress(0, 0, NOW + 2, 2, launch_started=NOW - 600)
    gate.progress(2, 0, NOW + 3, 4, launch_started=NOW - 590)
    assert gate.open_incidents == 1
    gate.progress(0, 0, NOW + 45, 2, launch_started=NOW + 40)  # (the requeued launch, begun after it)
    assert gate.open_incidents == 0
    again = dataclasses.replace(failed, rank=0, line=7, file="log2", time=datetime.fromtimestamp(NOW + 60, tz=UTC))
    gate.observe([again], NOW + 60)
    due = gate.due(NOW + 60)
    assert due is not None
    assert [i.initiator.rank for i in gate.select(attribute(RunFacts((again,))), due, NOW + 60)] == [0]


# --- processes --------------------------------------------------------------------------


def fake_proc(root: Path, pid: int, state: str, env: dict[str, str], *, start: int = 100, exit_code: int = 0,
              wchan: str = "futex_do_wait") -> None:
    d = root / str(pid)
    d.mkdir(parents=True, exist_ok=True)
    rest = [state, "1"] + ["0"] * 17 + [str(start)] + ["0"] * 29 + [str(exit_code)]
    (d / "stat").write_text(f"{pid} (python3) {' '.join(rest)}\n")
    (d / "environ").write_bytes(b"\0".join(f"{k}={v}".encode() for k, v in env.items()) + b"\0")
    (d / "wchan").write_text(wchan)


def rank_env(rank: int, logs: Path) -> dict[str, str]:
    return {"RANK": str(rank), "LOCAL_RANK": str(rank), "TORCHELASTIC_RESTART_COUNT": "0",
            "TORCHELASTIC_ERROR_FILE": str(logs / "run" / "attempt_0" / str(rank) / "error.json")}


def test_process_watcher_exit_roles_and_odd_one_out(tmp_path: Path) -> None:
    proc, logs = tmp_path / "proc", tmp_path / "logs"
    for r in range(4):
        fake_proc(proc, 100 + r, "S", rank_env(r, logs), wchan="hrtimer_nanosleep" if r == 3 else "futex_do_wait")
    fake_proc(proc, 200, "S", {"RANK": "0", "LOCAL_RANK": "0", "TORCHELASTIC_ERROR_FILE": "/elsewhere/x/error.json"})
    fake_proc(proc, 300, "S", {"PATH": "/bin"})
    watcher = ProcessWatcher(ProcessConfig(proc_root=proc, poll_s=0.0, discover_s=0.0), node="n1",
                             log_roots=[logs], sleep=lambda _s: None)
    inbox = Inbox()
    watcher.start(inbox)
    watcher.poll(NOW)
    assert sorted(p.rank for p in watcher.alive) == [0, 1, 2, 3]  # not the other job's, not a non-rank
    assert watcher.suspects([0, 1, 2, 3])[0].rank == 3
    # a waiting rank caught awake in one sample (a timer's wake-up, a busy machine) and another in
    # a second: each rank's wait state is the one most of its samples show (it was dropped before)
    flips = {"n": 0}

    def wake_some(_s: float) -> None:
        flips["n"] += 1
        for r in (1, 2):
            (proc / str(100 + r) / "wchan").write_text("0" if flips["n"] == r else "futex_do_wait")
            (proc / str(100 + r) / "syscall").write_text("running")

    flippy = ProcessWatcher(ProcessConfig(proc_root=proc, poll_s=0.0, discover_s=0.0), node="n1",
                            log_roots=[logs], sleep=wake_some)
    flippy.start(Inbox())
    flippy.poll(NOW)
    assert [s.rank for s in flippy.suspects([0, 1, 2, 3])] == [3]
    for r in (1, 2):
        (proc / str(100 + r) / "wchan").write_text("futex_do_wait")
    assert odd_ones({0: "a", 1: "a", 2: "b"}) == [2] and odd_ones({0: "a", 1: "b"}) == []
    assert odd_ones({0: "a", 1: "a", 2: "b", 3: "b"}) == []
    list(inbox.drain(0.0))
    fake_proc(proc, 101, "Z", rank_env(1, logs), exit_code=signal.SIGKILL)  # a zombie killed by SIGKILL
    watcher.poll(NOW + 1)
    items = [i for i in inbox.drain(0.0) if isinstance(i, LiveFindings)]
    (exit1,) = items[0].findings
    assert exit1.rank == 1 and exit1.role is Role.INITIATOR and exit1.cause is Cause.CRASH_SIGNAL
    assert exit1.field("signal") == "SIGKILL"
    for r in (0, 2, 3):
        (proc / str(100 + r) / "stat").unlink()
    watcher.poll(NOW + 1.2)
    later = [f for i in inbox.drain(0.0) if isinstance(i, LiveFindings) for f in i.findings]
    assert {f.rank for f in later} == {0, 2, 3} and all(f.role is Role.COLLATERAL for f in later)


def test_process_watcher_takes_the_ranks_whose_output_goes_to_a_followed_file(tmp_path: Path) -> None:
    """Ranks started one by one (``python train.py > rank0.log``) and the ranks of a plain
    ``torchrun train.py > console.log`` (its default log folder a temporary one, their output
    copied by the agent) are this job's when their output, or their launcher's, is a followed
    file: a sidecar tester's jobs got no process evidence (no stack of a stalled rank, no pid to
    tie a segfault's kernel line to). A rank writing elsewhere, or with a --log-dir of its own
    that is not followed, is another job's."""
    proc, logs, other = tmp_path / "proc", tmp_path / "logs", tmp_path / "other"
    logs.mkdir()
    other.mkdir()

    def with_output(pid: int, env: dict[str, str], out: Path, ppid: int = 1) -> None:
        fake_proc(proc, pid, "S", env)
        stat = proc / str(pid) / "stat"
        stat.write_text(stat.read_text().replace(" (python3) S 1 ", f" (python3) S {ppid} ", 1))
        (proc / str(pid) / "fd").mkdir()
        (proc / str(pid) / "fd" / "1").symlink_to(out)
        (proc / str(pid) / "fd" / "2").symlink_to(out)

    with_output(400, {"RANK": "0", "LOCAL_RANK": "0"}, logs / "rank0.log")
    with_output(401, {"RANK": "1", "LOCAL_RANK": "1"}, other / "rank1.log")
    with_output(410, {"PATH": "/bin"}, logs / "console.log")  # the torchrun agent
    tmp_dir = tmp_path / "tmp" / "torchelastic_ab12cd" / "none_x" / "attempt_0" / "2"
    with_output(411, {"RANK": "2", "LOCAL_RANK": "2", "TORCHELASTIC_ERROR_FILE": str(tmp_dir / "error.json")},
                tmp_dir / "stdout.log", ppid=410)
    with_output(420, {"RANK": "3", "LOCAL_RANK": "3", "TORCHELASTIC_ERROR_FILE": str(other / "run" / "3" / "error.json")},
                logs / "console.log")
    watcher = ProcessWatcher(ProcessConfig(proc_root=proc, poll_s=0.0, discover_s=0.0), node="n1",
                             log_roots=[logs], sleep=lambda _s: None)
    watcher.start(Inbox())
    watcher.poll(NOW)
    assert sorted(p.rank for p in watcher.alive) == [0, 2]
    # followed as one file rather than a folder: the same
    single = ProcessWatcher(ProcessConfig(proc_root=proc, poll_s=0.0, discover_s=0.0), node="n1",
                            log_roots=[logs / "console.log"], sleep=lambda _s: None)
    single.start(Inbox())
    single.poll(NOW)
    assert sorted(p.rank for p in single.alive) == [2]
    # a glob takes the files it matches, not every file of its folder (a reviewer's two jobs on one
    # host, "--logs 'logs/expA*.log'", claimed the ranks of the job writing logs/expB.log)
    with_output(430, {"RANK": "5", "LOCAL_RANK": "1"}, logs / "expA.log")
    with_output(431, {"RANK": "5", "LOCAL_RANK": "1"}, logs / "expB.log")
    globbed = ProcessWatcher(ProcessConfig(proc_root=proc, poll_s=0.0, discover_s=0.0), node="n1",
                             log_roots=[str(logs / "expA*.log")], sleep=lambda _s: None)
    globbed.start(Inbox())
    globbed.poll(NOW)
    assert sorted(p.pid for p in globbed.alive) == [430]


# --- engine pieces ----------------------------------------------------------------------


def engine(ruleset: RuleSet, **kw: Any) -> LiveEngine:
    processor = LineProcessor(ruleset, year=2026, tolerance_s=120.0)
    gate = IncidentGate(DetectionConfig(settle_s=0.5), SidecarStore(None))
    return LiveEngine(ruleset, processor, gate, node="n1", hang=kw.pop("hang", HangConfig()), **kw)


def test_a_traceback_split_across_pieces_is_still_one_exception(ruleset: RuleSet) -> None:
    eng = engine(ruleset)
    f = LogFile(Path("/l/rank2.log"), "/l/rank2.log", FileKind.RANK_LOG, rank=2, node="n1")
    first = b"step 5 | loss 1.0\nTraceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n"
    eng.dispatch(Chunk(f, first, 1, NOW))
    eng.dispatch(Chunk(f, b"    main()\nRuntimeError: injected fault: bad batch at step 6\n", 4, NOW + 0.05))
    assert eng.tick(NOW + 0.1) == []  # settling
    assert eng.tick(NOW + 0.7) == []  # held: nothing says the exception ended the rank (it may go on)
    (incident,) = eng.tick(NOW + 5.2)
    assert incident.cause is Cause.PYTHON_EXCEPTION and incident.initiator.rank == 2
    assert eng.tick(NOW + 9) == []


def test_an_exception_a_peer_confirms_is_reported_when_the_peer_fails(ruleset: RuleSet) -> None:
    eng = engine(ruleset)
    f = LogFile(Path("/l/rank2.log"), "/l/rank2.log", FileKind.RANK_LOG, rank=2, node="n1")
    eng.dispatch(Chunk(f, b"step 5 | loss 1.0 | step_ms 5\nTraceback (most recent call last):\n    main()\n"
                          b"RuntimeError: injected fault: bad batch at step 6\n", 1, NOW))
    assert eng.tick(NOW + 0.1) == [] and eng.tick(NOW + 0.7) == []
    peer = LogFile(Path("/l/rank1.log"), "/l/rank1.log", FileKind.RANK_LOG, rank=1, node="n1")
    eng.dispatch(Chunk(peer, b"RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] "
                             b"Connection closed by peer [127.0.0.1]:5002\n", 1, NOW + 1))
    (incident,) = eng.tick(NOW + 1.1)  # (the exception has settled: reported at once)
    assert incident.cause is Cause.PYTHON_EXCEPTION and incident.initiator.rank == 2


def test_an_exception_its_rank_trains_on_after_is_not_reported(ruleset: RuleSet) -> None:
    eng = engine(ruleset)
    f = LogFile(Path("/l/rank2.log"), "/l/rank2.log", FileKind.RANK_LOG, rank=2, node="n1")
    eng.dispatch(Chunk(f, b"step 5 | loss 1.0 | step_ms 5\nTraceback (most recent call last):\n    main()\n"
                          b"FileNotFoundError: [Errno 2] No such file or directory: 'ckpt/latest.pt'\n", 1, NOW))
    assert eng.tick(NOW + 0.1) == [] and eng.tick(NOW + 0.7) == []
    eng.dispatch(Chunk(f, b"step 6 | loss 1.0 | step_ms 5\n", 5, NOW + 1.5))
    assert eng.tick(NOW + 1.6) == []
    eng.dispatch(Chunk(f, b"step 7 | loss 1.0 | step_ms 5\n", 6, NOW + 2.5))
    assert eng.tick(NOW + 2.6) == []
    assert eng.tick(NOW + 6) == [] and eng.tick(NOW + 30) == []


def test_an_xid_reaches_the_rank_through_its_gpu(ruleset: RuleSet) -> None:
    eng = engine(ruleset, rank_gpus={1: "0000:3b:00"})
    rank = LogFile(Path("/l/rank1.log"), "/l/rank1.log", FileKind.RANK_LOG, rank=1, node="n1")
    eng.dispatch(Chunk(rank, b"step 1 | loss 1.0 | step_ms 5\n", 1, NOW))
    kern = LogFile(Path("/var/log/kern.log"), "/var/log/kern.log", FileKind.KERNEL, node="n1")
    eng.dispatch(Chunk(kern, b"[ 5.1] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, "
                             b"GPU has fallen off the bus.\n", 1, NOW + 1))
    assert eng.tick(NOW + 1) == []  # seen now; settles for 0.5 s
    (incident,) = eng.tick(NOW + 2)
    assert incident.cause is Cause.GPU_HARDWARE and incident.initiator.rank == 1
    assert incident.initiator.gpu == "0000:3b:00" and incident.remediation.drain_node


def test_gpus_joined_by_pid_through_nvml_processes(ruleset: RuleSet) -> None:
    from detector.sidecar.model import RankProcess

    eng = engine(ruleset)
    eng.dispatch(Processes((RankProcess(3, 3, 4242, 0, "n1", None, 1),)))
    eng.dispatch(GpuProcesses((("0000:5e:00", (4242,)),)))
    assert eng.index().gpu_rank[("n1", "0000:5e:00")] == 3


def test_hang_named_by_the_odd_one_out(ruleset: RuleSet) -> None:
    class Discriminator:
        def suspects(self, ranks: list[int]) -> list[Suspect]:
            return [Suspect(2, "its main thread waits in hrtimer_nanosleep", basis="process_state")] if 2 in ranks else []

        def signatures(self) -> dict[int, str]:
            return {0: "futex", 1: "futex", 2: "hrtimer_nanosleep", 3: "futex"}

    eng = engine(ruleset, hang=HangConfig(floor_s=3.0), discriminator=Discriminator())
    files = [LogFile(Path(f"/l/rank{r}.log"), f"/l/rank{r}.log", FileKind.RANK_LOG, rank=r, node="n1") for r in range(4)]
    t = NOW
    for step in range(1, 11):
        t += 0.2
        for f in files:
            eng.dispatch(Chunk(f, f"step {step} | loss 0.5 | step_ms 200\n".encode(), step, t))
        assert eng.tick(t) == []
    assert eng.tick(t + 2.0) == []  # not yet: floor 3 s
    eng.tick(t + 3.5)
    (incident,) = eng.tick(t + 4.1)
    assert incident.cause is Cause.HANG and incident.initiator.rank == 2
    waits = {e.rank: e.wait_state for e in eng.evidence}
    assert waits[2] == "hrtimer_nanosleep"


# --- NVML -------------------------------------------------------------------------------


def test_nvml_xid_event_and_ecc_poll(ruleset: RuleSet) -> None:
    fake = FakeNvml()
    source = NvmlSource(node="n1", poll_s=0.0, loader=lambda: fake)
    inbox = Inbox()
    source.start(inbox)
    try:
        fake.events.put(EventData(1, 0x8, 79))
        items = list(inbox.drain(3.0))
        chunk = next(i for i in items if isinstance(i, Chunk))
        assert b"NVRM: Xid (PCI:0000:5e:00): 79" in chunk.data
        eng = engine(ruleset, rank_gpus={5: "0000:5e:00"})
        eng.dispatch(chunk)
        eng.tick(chunk.received)
        (incident,) = eng.tick(chunk.received + 1)
        assert incident.cause is Cause.GPU_HARDWARE and incident.initiator.rank == 5
        source.poll(NOW)
        fake.dbe[0] = 2
        source.poll(NOW + 1)
        found = [f for i in inbox.drain(0.0) if isinstance(i, LiveFindings) for f in i.findings]
        assert [(f.rule, f.gpu, f.cause) for f in found] == [("nvml.ecc_uncorrected", "0000:3b:00", Cause.ECC_MEMORY)]
        assert source.gpus[0].temperature == 41 and source.gpus[0].power_w == 250
        assert "remap" in source.gpus[0].unsupported  # NotSupported: asked once
    finally:
        source.close()


def test_nvml_absent_is_one_notice_and_off() -> None:
    notices: list[str] = []

    def missing() -> Any:
        raise NvmlUnavailable("nvidia-ml-py is not installed")

    source = NvmlSource(node="n1", loader=missing, on_notice=notices.append)
    source.start(Inbox())
    source.poll(NOW)
    assert source.off_reason and len(notices) == 1 and "NVML is not available" in notices[0]


# --- Prometheus -------------------------------------------------------------------------


class FakeProm:
    def __init__(self) -> None:
        self.xid = 0.0
        self.fail = False
        self.queries: list[str] = []

    def custom_query(self, query: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        self.queries.append(query)
        if self.fail:
            raise ConnectionError("connection refused")
        return [{"metric": {"__name__": "DCGM_FI_DEV_XID_ERRORS", "Hostname": "n1",
                            "pci_bus_id": "00000000:3B:00.0", "gpu": "0"}, "value": [NOW, str(self.xid)]}]


def test_dcgm_xid_through_prometheus_becomes_a_kernel_line() -> None:
    prom = FakeProm()
    source = DcgmSource(lambda: prom, nodes=["n1"], interval_s=1.0, clock=lambda: NOW)
    inbox = Inbox()
    source._inbox = inbox  # drive it without its thread
    source.query_once()  # baseline
    prom.xid = 79.0
    source.query_once()
    (chunk,) = [i for i in inbox.drain(0.0) if isinstance(i, Chunk)]
    assert chunk.file.node == "n1" and b"Xid (PCI:0000:3b:00): 79" in chunk.data
    (query,) = set(prom.queries)
    assert 'Hostname=~"n1"' in query and 'hostname=~"n1"' in query and "DCGM_FI_DEV_ROW_REMAP_FAILURE" in query


def test_a_malformed_prometheus_answer_is_said_in_words() -> None:
    """What answered in Prometheus's place (a login page, a malformed result) was said as a raw
    exception ("AttributeError: 'int' object has no attribute 'get'", "JSONDecodeError: ...")."""
    import json

    from detector.sidecar.sources.prom import MalformedAnswer, _describe

    class Odd:
        def __init__(self, answer: Any) -> None:
            self.answer = answer

        def custom_query(self, query: str, params: dict[str, Any] | None = None) -> Any:
            return self.answer

    source = DcgmSource(lambda: Odd([1, "x", None]), nodes=["n1"], interval_s=1.0, clock=lambda: NOW)
    source.query_once()  # (series of another shape are passed over)
    source = DcgmSource(lambda: Odd({"status": "ok"}), nodes=["n1"], interval_s=1.0, clock=lambda: NOW)
    with pytest.raises(MalformedAnswer):
        source.query_once()
    try:
        json.loads("<html>login</html>")
    except ValueError as exc:
        assert "not the Prometheus API's JSON" in _describe(exc)
    assert len(_describe(ConnectionError("x" * 5000))) < 300


def test_unreachable_prometheus_backs_off_and_reports_down() -> None:
    inbox = Inbox()
    calls: list[float] = []

    def work() -> None:
        calls.append(0.0)
        raise ConnectionError("connection refused")

    poller = Poller("prometheus", work, 0.05, inbox)
    poller.start()
    try:
        statuses = [i for i in inbox.drain(2.0) if isinstance(i, SourceStatus)]
        assert statuses and statuses[0].state is SourceState.DOWN and "connection refused" in statuses[0].detail
        import time

        time.sleep(0.5)
        assert 1 <= len(calls) <= 4  # backing off: 0.1, 0.2, 0.4 s ...
    finally:
        poller.stop()


def test_coordinator_turns_exported_evidence_into_findings() -> None:
    """A fake Prometheus that answers the coordinator's two kinds of query (who is who; the
    round's evidence, aggregated in PromQL) with what the sidecars would have exported."""
    lab = {"training_job": "j"}

    class Prom:
        def custom_query(self, query: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
            if query.startswith("label_replace(count(rankdoctor_rank_info"):  # who is who
                return [
                    {"metric": {"rankdoctor_q": "ranks"}, "value": [NOW, "2"]},
                    {"metric": {"node": "a", "rank": "0", "local_rank": "0", "gpu": "", "pid": "1"}, "value": [NOW, "1"]},
                    {"metric": {"node": "b", "rank": "3", "local_rank": "1", "gpu": "0000:3b:00", "pid": "9"},
                     "value": [NOW, "1"]}]
            if query.startswith("bottomk("):  # the round's evidence
                return [
                    {"metric": {**lab, "__name__": "rankdoctor_rank_first_error_timestamp_seconds", "node": "b",
                                "rank": "3", "cause": "crash_signal", "rule": "torchelastic.exitcode",
                                "confidence": "0.70", "text": "rank 3 exited with code -9"}, "value": [NOW, str(NOW)]},
                    {"metric": {**lab, "__name__": "rankdoctor_rank_collateral_timestamp_seconds", "node": "a",
                                "rank": "0", "rule": "torch.connection_reset", "text": "reset"},
                     "value": [NOW, str(NOW + 0.1)]}]
            return []

    source = CoordinatorSource(lambda: Prom(), job="j", interval_s=1.0, clock=lambda: NOW)
    source.query_once()
    assert source.last is not None
    from detector.attribution.attribute import RunFacts, attribute

    ranks = {r.rank: r for r in source.last.ranks}
    (incident,) = attribute(RunFacts(source.last.findings, ranks))
    assert (incident.cause, incident.initiator.rank, incident.initiator.node) == (Cause.CRASH_SIGNAL, 3, "b")
    assert incident.initiator.gpu == "0000:3b:00"


# --- outputs ----------------------------------------------------------------------------


def test_metrics_endpoint_exports_rank_evidence(ruleset: RuleSet) -> None:
    eng = engine(ruleset)
    f = LogFile(Path("/l/rank2.log"), "/l/rank2.log", FileKind.RANK_LOG, rank=2, node="n1")
    eng.dispatch(Chunk(f, b"step 4 | loss 1.0 | step_ms 5\nRuntimeError: boom\n", 1, NOW))
    eng.tick(NOW)
    metrics = SidecarMetrics("train-1", "n1")
    metrics.add_evidence(lambda: eng.evidence, lambda: eng.lines_read, lambda: [])
    metrics.set_source("logs", True)
    host, port = metrics.serve("127.0.0.1", 0)
    try:
        with urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=5) as resp:
            text = resp.read().decode()
    finally:
        metrics.close()
    assert 'rankdoctor_source_up{node="n1",source="logs",training_job="train-1"} 1.0' in text
    assert 'rankdoctor_rank_last_step{node="n1",rank="2",training_job="train-1"} 4.0' in text
    assert 'rankdoctor_rank_first_error_timestamp_seconds{cause="python_exception"' in text
    assert "python_gc" not in text  # an explicit registry, not the global one


def test_incident_line_is_the_report_object_plus_detected_at(tmp_path: Path, ruleset: RuleSet) -> None:
    eng = engine(ruleset)
    f = LogFile(Path("/l/rank2.log"), "/l/rank2.log", FileKind.RANK_LOG, rank=2, node="n1")
    eng.dispatch(Chunk(f, b"RuntimeError: boom\n", 1, NOW))
    eng.tick(NOW)
    (incident,) = eng.tick(NOW + 6)  # (an exception alone: held for confirm_wait_s first)
    submitted: list[object] = []

    class Handler:
        def submit(self, inc: object, replaces: str | None = None) -> bool:
            submitted.append(inc)
            return True

    counted: list[str] = []
    out = io.StringIO()
    sink = IncidentSink(tmp_path / "out" / "incidents.jsonl", out=out, count=counted.append, handler=Handler())
    sink.emit(incident, NOW + 6)
    (line,) = (tmp_path / "out" / "incidents.jsonl").read_text().splitlines()
    data = json.loads(line)
    assert data["cause"] == "python_exception" and data["initiator"]["rank"] == 2
    assert data["detected_at"].startswith(datetime.fromtimestamp(NOW + 6, tz=UTC).isoformat()[:19])
    assert set(data) >= {"id", "cause", "initiator", "collateral_ranks", "confidence", "first_evidence_time",
                         "explanation", "evidence", "remediation", "detected_at"}
    assert counted == ["python_exception"] and submitted == [incident]
    assert "INCIDENT python_exception: rank 2" in out.getvalue()


def test_a_live_straggler_is_said_not_handed_to_remediation(tmp_path: Path) -> None:
    """A slow rank of a job that goes on is written and counted, never acted on (no drain, no
    resubmission of a running job); a failure is handed over as before."""
    from tests.support.remediation import make_incident

    submitted: list[object] = []

    class Handler:
        def submit(self, inc: object, replaces: str | None = None) -> bool:
            submitted.append(inc)
            return True

    counted: list[str] = []
    sink = IncidentSink(tmp_path / "incidents.jsonl", out=io.StringIO(), count=counted.append, handler=Handler())
    slow = make_incident("inc-slow", cause=Cause.STRAGGLER, rank=2)
    failed = make_incident("inc-xid", cause=Cause.GPU_HARDWARE, rank=3)
    sink.emit(slow, NOW)
    sink.emit(failed, NOW + 1)
    assert counted == ["straggler", "gpu_hardware"] and submitted == [failed]
    assert len((tmp_path / "incidents.jsonl").read_text().splitlines()) == 2


def test_sidecar_config_defaults_are_safe() -> None:
    cfg = SidecarConfig()
    assert cfg.metrics_addr == "127.0.0.1:9108" and cfg.act is False
    assert cfg.hang.k == 5 and cfg.hang.floor_s == 30
    assert os.path.basename(str(ProcessConfig().proc_root)) == "proc"


# --- shipped deployment configs and the kernel log --------------------------------------


def test_shipped_deployment_configs_validate(tmp_path: Path) -> None:
    import yaml

    from detector.remediation.config import parse_remediation

    root = Path(__file__).resolve().parents[2] / "deploy"
    example = load_config(root / "watch.example.yaml", environ={})
    parse_remediation(example.remediation, str(root / "watch.example.yaml"), base_dir=root, environ={})
    pod_config = next(d for d in yaml.safe_load_all((root / "k8s-pod.yaml").read_text()) if d["kind"] == "ConfigMap")
    copy = tmp_path / "watch.yaml"
    copy.write_text(pod_config["data"]["watch.yaml"])
    cfg = load_config(copy, environ={})
    assert cfg.kmsg == "/dev/kmsg" and cfg.remediate is False and cfg.metrics_addr == "0.0.0.0:9108"


def test_kmsg_records_from_the_real_device() -> None:
    from detector.sidecar.sources.kernel import KmsgSource, parse_record

    assert parse_record(b"4,1234,5678,-;NVRM: Xid (PCI:0000:3b:00): 79\n SUBSYSTEM=pci\n") == (
        1234, b"4,1234,5678,-;NVRM: Xid (PCI:0000:3b:00): 79")
    if not os.access("/dev/kmsg", os.R_OK):
        pytest.skip("/dev/kmsg is not readable here (needs root or CAP_SYSLOG)")
    store = SidecarStore(None)
    source = KmsgSource(Path("/dev/kmsg"), node="n1", store=store, from_start=True)
    inbox = Inbox()
    try:
        source.start(inbox)
    except PermissionError:
        pytest.skip("/dev/kmsg cannot be opened here")
    try:
        source.poll(NOW)
        (chunk,) = [i for i in inbox.drain(0.0) if isinstance(i, Chunk)]
        first = chunk.data.split(b"\n")[0]
        assert re.match(rb"^\d+,\d+,\d+,[^;]*;", first), first
        assert store.get_meta("kmsg_seq") is not None
        source.poll(NOW + 1)  # nothing new is not an error
    finally:
        source.close()



def test_journalctl_output_is_read_and_its_exit_is_a_failure() -> None:
    from detector.sidecar.sources.kernel import JournalSource

    line = "2026-11-30T12:00:01+0000 node01 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=x, GPU has fallen off the bus."
    source = JournalSource(node="node01", argv=["bash", "-c", f"echo '{line}'; sleep 0.3"])
    inbox = Inbox()
    source.start(inbox)
    try:
        deadline = NOW
        import time

        end = time.monotonic() + 5
        chunks: list[Chunk] = []
        failed = False
        while time.monotonic() < end and not failed:
            try:
                source.poll(deadline)
            except OSError:
                failed = True
            chunks.extend(i for i in inbox.drain(0.05) if isinstance(i, Chunk))
        assert chunks and chunks[0].data.decode().strip() == line and chunks[0].file.node == "node01"
        assert failed  # journalctl ended: the runner restarts the source with backoff
    finally:
        source.close()


def test_a_log_written_faster_than_it_is_read_is_said_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A log appended at 50 MB/s left the watch 51 s behind with no word (a hostile tester): a
    followed file this far behind its end is said, once."""
    import time as _time

    from detector.sidecar.model import Inbox
    from detector.sidecar.sources import logs as logs_mod
    from detector.sidecar.sources.logs import LogFollower

    monkeypatch.setattr(logs_mod, "BEHIND_WARN", 1 << 20)
    run = tmp_path / "logs"
    run.mkdir()
    log = run / "rank0.log"
    log.write_text("[rank0]: step 1 loss 2.0\n")
    said: list[str] = []
    follower = LogFollower([str(run)], node=None, store=SidecarStore(None), poll_s=0.0, check_s=0.0,
                           observer_factory=None, warn=said.append)
    inbox = Inbox()
    try:
        follower.start(inbox)
        follower.poll(_time.time())
        with log.open("a") as fh:
            fh.write("[rank0]: step 2 loss 1.9 " + "x" * 100 + "\n" * 1 + ("[rank0]: step 3 loss 1.8\n" * 400_000))
        for k in range(3):
            follower.poll(_time.time() + k + 1)
    finally:
        follower.close()
    behind = [s for s in said if "MiB behind the end of the file" in s]
    assert len(behind) == 1 and "rank0.log" in behind[0]


def test_a_caught_exception_does_not_take_another_ranks_failure_with_it(ruleset: RuleSet) -> None:
    """(a reviewer: rank 1's OOM its batch-size probe caught, with steps after it, and rank 5's fatal
    exception on another node told at the same time - the drop of the first consumed both)"""
    eng = engine(ruleset)
    f1 = LogFile(Path("/l/rank1.log"), "/l/rank1.log", FileKind.RANK_LOG, rank=1, node="n1")
    f5 = LogFile(Path("/l/rank5.log"), "/l/rank5.log", FileKind.RANK_LOG, rank=5, node="n2")
    eng.dispatch(Chunk(f1, b"step 5 | loss 1.0 | step_ms 5\ntorch.OutOfMemoryError: CUDA out of memory. Tried to "
                           b"allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB of which 1.2 GiB is free.\n",
                       1, NOW))
    eng.dispatch(Chunk(f5, b"step 5 | loss 1.0 | step_ms 5\nTraceback (most recent call last):\n    main()\n"
                           b"RuntimeError: injected fault: bad batch at step 6\n", 1, NOW + 0.2))
    seen = eng.tick(NOW + 0.1) + eng.tick(NOW + 0.3) + eng.tick(NOW + 0.8)
    eng.dispatch(Chunk(f1, b"step 6 | loss 1.0 | step_ms 5\n", 3, NOW + 1.5))
    eng.dispatch(Chunk(f1, b"step 7 | loss 1.0 | step_ms 5\n", 4, NOW + 2.5))
    for t in (1.6, 2.6, 6.0, 10.0, 60.0):
        seen += eng.tick(NOW + t)
    assert [(i.cause, i.initiator.rank) for i in seen] == [(Cause.PYTHON_EXCEPTION, 5)]
