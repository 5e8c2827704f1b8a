"""Remediation on a real Slurm (munged + slurmctld + slurmd n1, n2 on this host).

1. The whole loop: a requeueable job runs a real torchrun DDP job on n1 and checkpoints; one rank
   is killed and a Xid line for its pid is written to n1's kernel log; detection names rank 1 and
   n1; rankdoctor drains n1 with a reason, requeues the job, which starts on n2 from the newest
   checkpoint, and verification sees it progress past that step. Then the same incident again:
   no second action.
2. An application fault: no drain. A third drain in the hour: the breaker opens (and a person's
   reset re-arms it). A hook that hangs: timed out, recorded, detection goes on.

All real-Slurm tests live in this module so that the session-scoped cluster starts once.
"""

from __future__ import annotations

import io
import json
import os
import threading
import time
from collections.abc import Iterator, Mapping
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from detector.cli import remediate as command
from detector.remediation.model import (
    Decision,
    Outcome,
    Status,
    Verification,
    VerifyStatus,
)
from detector.remediation.worker import RemediationWorker
from detector.replay import replay_path
from detector.rules.compile import load_ruleset
from detector.types import Cause
from tests.support.remediation import make_incident
from tests.support.slurm import SlurmCluster, slurm_cluster  # noqa: F401 - the fixture
from tests.support.slurm_loop import rank_log, remediator, run_whole_loop, submit, write_config


class _Pager(BaseHTTPRequestHandler):
    posts: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        _Pager.posts.append(json.loads(body))
        self.send_response(200)
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def pager() -> Iterator[str]:
    _Pager.posts = []
    server = HTTPServer(("127.0.0.1", 0), _Pager)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/hooks/SECRET-TOKEN-PATH"
    server.shutdown()
    server.server_close()


@pytest.fixture
def cluster(slurm_cluster: SlurmCluster) -> Iterator[SlurmCluster]:  # noqa: F811 - the fixture
    """The shared cluster, with every node back in service and no job left after each test."""
    slurm_cluster.resume_all()
    yield slurm_cluster
    slurm_cluster.cancel_all()
    slurm_cluster.resume_all()


def sleep_job(cluster: SlurmCluster, tmp: Path) -> str:
    script = tmp / "sleep.sh"
    script.write_text("#!/bin/bash\nsleep 300\n")
    job = submit(cluster, script, tmp / "sleep-%j.out")
    cluster.wait_for("sleep job running", lambda: cluster.job_field(job, "JobState") == "RUNNING")
    return job


# --- 1. the whole loop ---


@pytest.mark.slow
def test_whole_loop_then_the_same_incident_again(cluster: SlurmCluster, tmp_path: Path,
                                                 pager: str) -> None:
    loop = run_whole_loop(cluster, tmp_path, pager)
    inc, d, v, t = loop.incident, loop.decision, loop.verification, loop.times
    # detection named the rank and the node
    assert (inc.cause, inc.initiator.node, inc.initiator.rank) == (Cause.GPU_HARDWARE, "n1", 1)
    assert d.outcome is Outcome.ACTED, d
    # n1 drained with the reason
    state, reason = cluster.node_state("n1")
    assert state in ("drained", "draining"), state
    assert reason == f"rankdoctor: gpu_hardware {inc.id}"
    # the job was requeued and runs on n2, from the newest complete checkpoint
    assert cluster.job_field(loop.job, "NodeList") == "n2"
    assert cluster.job_field(loop.job, "Restarts") == "1"
    assert d.checkpoint is not None and d.checkpoint.step is not None
    assert loop.newest_checkpoint is not None and loop.newest_checkpoint >= 10
    assert d.checkpoint.step == loop.newest_checkpoint
    assert loop.run_dir is not None
    resumed = rank_log(loop.run_dir, "n2", 0)
    assert resumed is not None
    assert f"resumed from checkpoint step {d.checkpoint.step}" in resumed.read_text()
    # verification saw progress past it in the new attempt's log
    assert v.status is VerifyStatus.VERIFIED, v
    assert v.step is not None and v.step > d.checkpoint.step
    assert v.file is not None and "/n2/" in v.file
    # order of events
    assert t["fault"] < t["incident"] < t["drained"] < t["requeued"] < t["running"]
    assert t["running"] < t["verified"]
    # records
    audit = [json.loads(x) for x in (tmp_path / "state" / "audit.jsonl").read_text().splitlines()]
    assert [r["kind"] for r in audit] == ["decision", "verification"]
    assert audit[0]["incident"]["evidence"] and audit[1]["status"] == "verified"
    assert "SECRET-TOKEN-PATH" not in json.dumps(audit)
    assert _Pager.posts and _Pager.posts[0]["incident"]["id"] == inc.id
    report_timings(t)

    # 2. the same incident again, from a restarted process: no second action
    assert loop.config is not None
    again, runner = remediator(loop.config, cluster)
    d2 = again.handle(inc)
    assert d2.outcome is Outcome.DUPLICATE
    assert runner.changing() == []
    assert cluster.job_field(loop.job, "Restarts") == "1"


def report_timings(t: Mapping[str, float]) -> None:
    rows = [("fault → incident", t["incident"] - t["fault"]),
            ("fault → node drained", t["drained"] - t["fault"]),
            ("fault → job running again", t["running"] - t["fault"]),
            ("fault → resumption verified", t["verified"] - t["fault"])]
    print("\nwhole-loop timings: " + "; ".join(f"{k} {v:.1f} s" for k, v in rows))
    out = os.environ.get("RANKDOCTOR_BENCH_OUT")
    if out:
        Path(out).write_text(json.dumps(dict(rows), indent=2) + "\n")


# --- 2. safety on the real scheduler ---


def test_application_fault_does_not_drain(cluster: SlurmCluster, tmp_path: Path) -> None:
    job = sleep_job(cluster, tmp_path)
    cfg = write_config(tmp_path / "rd.yaml", f"""\
remediation:
  act: true
  state_dir: {tmp_path / 'state'}
  hooks:
    - {{type: slurm, job_id: "{job}", resubmit: requeue}}
""")
    rem, runner = remediator(cfg, cluster)
    # the engine (wrongly) asked to drain: the cause still decides
    d = rem.handle(make_incident("app-1", cause=Cause.PYTHON_EXCEPTION, node="n1", drain=True))
    assert d.outcome is Outcome.NOTIFIED and not d.plan.drain
    assert runner.changing() == []
    assert cluster.node_state("n1")[0] in ("allocated", "mixed", "idle")
    assert cluster.job_field(job, "Restarts") == "0"


def test_third_drain_in_the_hour_opens_the_breaker(cluster: SlurmCluster, tmp_path: Path) -> None:
    cfg = write_config(tmp_path / "rd.yaml", f"""\
remediation:
  act: true
  state_dir: {tmp_path / 'state'}
  budget: {{max_drains_per_hour: 2, max_drain_fraction: 1.0, job_nodes: 8}}
  hooks:
    - {{type: slurm, resubmit: none}}
""")
    rem, runner = remediator(cfg, cluster)
    for i, node in enumerate(["n1", "n2"]):
        d = rem.handle(make_incident(f"hw-{i}", node=node))
        assert d.outcome is Outcome.ACTED, d
        assert cluster.node_state(node)[0] in ("drained", "draining")
        cluster.resume_all()
    third = rem.handle(make_incident("hw-3", node="n1"))
    assert third.outcome is Outcome.NOTIFIED
    assert "drain 3 in the last hour (max_drains_per_hour 2)" in " ".join(third.reasons)
    assert cluster.node_state("n1")[0] == "idle"  # not drained
    assert len([a for a in runner.changing() if "State=DRAIN" in a]) == 2
    # stays open: the next one only notifies as well
    assert "breaker is open" in " ".join(rem.handle(make_incident("hw-4", node="n2")).reasons)
    # a person resets it (the CLI), and remediation acts again
    out = io.StringIO()
    assert command.main(["--reset-breaker", "--config", str(cfg), "--by", "oncall"],
                        stdout=out) == 0
    assert "breaker closed (was open: drain budget" in out.getvalue()
    assert rem.handle(make_incident("hw-5", node="n1")).outcome is Outcome.ACTED
    assert cluster.node_state("n1")[0] in ("drained", "draining")


def test_a_hook_that_hangs_is_timed_out_and_detection_goes_on(cluster: SlurmCluster,
                                                              tmp_path: Path) -> None:
    cfg = write_config(tmp_path / "rd.yaml", f"""\
remediation:
  act: true
  state_dir: {tmp_path / 'state'}
  hooks:
    - {{type: slurm, resubmit: none}}
    - {{type: command, argv: [sleep, "60"], actions: [drain], timeout_s: 1, retries: 1}}
""")
    rem, runner = remediator(cfg, cluster)
    results: list[Decision] = []
    done = threading.Event()

    def on_result(d: Decision, v: Verification | None) -> None:
        results.append(d)
        if len(results) == 2:
            done.set()

    worker = RemediationWorker(rem, on_result=on_result)
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "rank_0.log").write_text("[rank0]: RuntimeError: CUDA error: an illegal memory "
                                     "access was encountered\n")
    rules = load_ruleset()
    try:
        t0 = time.monotonic()
        assert worker.submit(make_incident("hang-1", node="n1"))
        # detection goes on while the hook hangs
        report = replay_path(logs, rules)
        assert time.monotonic() - t0 < 1.0
        assert report.incidents and report.incidents[0].cause is Cause.ILLEGAL_MEMORY_ACCESS
        assert worker.submit(report.incidents[0])
        assert done.wait(30)
    finally:
        worker.close(timeout=5)
    first = results[0]
    by_hook = {o.hook: o for o in first.outcomes}
    assert by_hook["command"].result.status is Status.TIMEOUT
    assert by_hook["command"].attempts == 2
    assert by_hook["slurm"].result.status is Status.OK
    scontrol = [a[1:3] for a in runner.changing() if a[0] == "scontrol"]
    assert scontrol == [("update", "NodeName=n1")]  # drained, and nothing after the failure
    assert [a for a in runner.changing() if a[0] == "sleep"] == [("sleep", "60")] * 2
    assert first.outcome is Outcome.FAILED
    assert results[1].outcome is Outcome.NOTIFIED  # the next incident was handled
    audit = [json.loads(x) for x in (tmp_path / "state" / "audit.jsonl").read_text().splitlines()]
    assert [a["status"] for a in audit[0]["actions"]] == ["ok", "timeout"]
