"""Built-in hooks: the exact argument lists, the stdin/env hand-over, HTTP, checkpoints."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from detector.remediation.exec.argv import drain_reason
from detector.remediation.exec.process import CommandResult, SubprocessRunner
from detector.remediation.hooks.base import HookEnv
from detector.remediation.hooks.checkpoint import CheckpointFinder
from detector.remediation.hooks.command import make_command_hook
from detector.remediation.hooks.kubernetes import make_kubernetes_hook
from detector.remediation.hooks.slurm import make_slurm_hook
from detector.remediation.hooks.webhook import UrllibPoster, make_webhook_hook
from detector.remediation.model import Action, Checkpoint, Event, HookCall, Status
from detector.report.jsonfmt import incident_to_dict
from detector.support.clock import SystemClock
from detector.support.settings import Settings
from detector.types import Incident
from tests.support.remediation import (
    FakeClock,
    FakePoster,
    FakeRunner,
    make_incident,
    slurm_responder,
)


def env(runner: Any = None, poster: Any = None) -> HookEnv:
    return HookEnv(runner=runner or FakeRunner(), clock=SystemClock(),
                   poster=poster or FakePoster(), environ={})


def settings(**data: Any) -> Settings:
    return Settings(data, "test.yaml", what="hook", line=1)


def call(action: Action, *, node: str | None = "n1", checkpoint: Checkpoint | None = None,
         event: Event = Event.DECISION, incident: Incident | None = None,
         timeout: float = 30.0) -> HookCall:
    """A call whose deadline is ``timeout`` s from now on the real monotonic clock (hooks given
    a SystemClock) — with a FakeClock the runner just gets the 0.5 s floor or more."""
    inc = incident or make_incident()
    return HookCall(action=action, event=event, incident=inc,
                    incident_json=json.dumps(incident_to_dict(inc)), incident_token=inc.id,
                    node=node, reason=drain_reason(inc.cause.value, inc.id),
                    summary="slurm drain: n1 is IDLE+DRAIN", checkpoint=checkpoint,
                    deadline=time.monotonic() + timeout)


# --- slurm ---


def test_slurm_drain_then_checks_the_node_state() -> None:
    runner = FakeRunner([slurm_responder("IDLE+DRAIN")])
    hook = make_slurm_hook(settings(job_id="1234"), env(runner))
    assert hook.actions == {Action.DRAIN, Action.RESUBMIT}
    res = hook.run(call(Action.DRAIN))
    assert res.status is Status.OK, res
    assert runner.argvs == [
        ("scontrol", "show", "job", "-o", "1234"),  # (the job's nodes: a node of another job is not drained)
        ("scontrol", "update", "NodeName=n1", "State=DRAIN",
         "Reason=rankdoctor: gpu_hardware inc-1"),
        ("scontrol", "show", "node", "-o", "n1"),
    ]


def test_slurm_drain_fails_when_the_node_is_not_draining() -> None:
    runner = FakeRunner([slurm_responder("IDLE")])
    res = make_slurm_hook(settings(job_id="1"), env(runner)).run(call(Action.DRAIN))
    assert res.status is Status.FAILED and "IDLE after the drain" in res.detail


def test_slurm_drain_reports_scontrols_error() -> None:
    def deny(argv: tuple[str, ...]) -> CommandResult | None:
        return CommandResult(argv, 1, "", "slurm_update error: Invalid node name specified")

    res = make_slurm_hook(settings(job_id="1"), env(FakeRunner([deny]))).run(call(Action.DRAIN))
    assert res.status is Status.FAILED and "Invalid node name specified" in res.detail


def test_slurm_requeue() -> None:
    runner = FakeRunner([slurm_responder()])
    hook = make_slurm_hook(settings(job_id="1234", resubmit="requeue"), env(runner))
    res = hook.run(call(Action.RESUBMIT))
    assert (res.status, res.job_id) == (Status.OK, "1234")
    assert runner.argvs == [("scontrol", "requeue", "1234")]


def test_slurm_sbatch_excludes_the_node_and_hands_over_the_checkpoint() -> None:
    runner = FakeRunner([slurm_responder(command="/jobs/train.sh")])
    hook = make_slurm_hook(settings(job_id="1234", resubmit="sbatch",
                                    sbatch_args=["--requeue"], script_args=["--steps", "100"],
                                    resume_args=["--resume-from", "{checkpoint}"]), env(runner))
    ckpt = Checkpoint("/ckpt/step_00000010", 10)
    res = hook.run(call(Action.RESUBMIT, checkpoint=ckpt))
    assert (res.status, res.job_id) == (Status.OK, "777"), res
    assert runner.argvs[-2:] == [
        ("scancel", "1234"),
        ("sbatch", "--parsable", "--exclude=n1", "--requeue", "/jobs/train.sh", "--steps", "100",
         "--resume-from", "/ckpt/step_00000010"),
    ]
    assert runner.calls[-1][1] == {"RANKDOCTOR_RESUME_FROM": "/ckpt/step_00000010",
                                   "RANKDOCTOR_RESUME_STEP": "10"}


def test_slurm_plan_runs_nothing_that_changes_state() -> None:
    runner = FakeRunner([slurm_responder()])
    hook = make_slurm_hook(settings(job_id="1234", resubmit="sbatch"), env(runner))
    drain = hook.plan(call(Action.DRAIN))
    resubmit = hook.plan(call(Action.RESUBMIT))
    assert drain.status is Status.DRY_RUN and resubmit.status is Status.DRY_RUN
    assert drain.commands[0][:3] == ("scontrol", "update", "NodeName=n1")
    assert resubmit.commands[-1][:3] == ("sbatch", "--parsable", "--exclude=n1")
    assert all(argv[1:3] == ("show", "job") for argv in runner.argvs)  # read-only lookups


def test_slurm_job_facts() -> None:
    hook = make_slurm_hook(settings(job_id="1234"), env(FakeRunner([slurm_responder()])))
    facts = hook.inspect_job(FakeClock().monotonic() + 5)
    assert (facts.key, facts.job_id, facts.nodes, facts.logs) == (
        "slurm:1234", "1234", 4, ("/jobs/out.log",))


# --- kubernetes ---


def test_kubernetes_cordon_taint_and_delete_the_failed_pod() -> None:
    runner = FakeRunner()
    hook = make_kubernetes_hook(settings(namespace="train", selector="job-name=llm",
                                         context="prod-1"), env(runner))
    assert hook.run(call(Action.DRAIN)).status is Status.OK
    assert hook.run(call(Action.RESUBMIT)).status is Status.OK
    k = ("kubectl", "--context", "prod-1")
    assert runner.argvs == [
        (*k, "cordon", "n1"),
        (*k, "taint", "nodes", "n1", "rankdoctor.io/unhealthy=gpu_hardware:NoSchedule",
         "--overwrite"),
        (*k, "delete", "pods", "-n", "train", "-l", "job-name=llm", "--field-selector",
         "spec.nodeName=n1", "--wait=false"),
    ]


def test_kubernetes_restart_all_pods_and_stop_at_the_first_failure() -> None:
    def fail_cordon(argv: tuple[str, ...]) -> CommandResult | None:
        return CommandResult(argv, 1, "", "forbidden") if "cordon" in argv else None

    runner = FakeRunner([fail_cordon])
    hook = make_kubernetes_hook(settings(namespace="train", selector="app=x,team=ml",
                                         restart="all_pods"), env(runner))
    res = hook.run(call(Action.DRAIN))
    assert res.status is Status.FAILED and "forbidden" in res.detail
    assert len(runner.argvs) == 1
    assert hook.plan(call(Action.RESUBMIT)).commands == (
        ("kubectl", "delete", "pods", "-n", "train", "-l", "app=x,team=ml", "--wait=false"),)


# --- command (a real program) ---


def test_command_gets_the_incident_on_stdin_and_rankdoctor_variables(tmp_path: Path) -> None:
    out = tmp_path / "got.json"
    script = tmp_path / "hook.py"
    script.write_text(
        "import json, os, sys\n"
        "data = {'argv': sys.argv[1:], 'stdin': json.load(sys.stdin),\n"
        "        'env': {k: v for k, v in os.environ.items() if k.startswith(('RANKDOCTOR_', 'SITE'))}}\n"
        f"open({str(out)!r}, 'w').write(json.dumps(data))\n")
    hook = make_command_hook(settings(argv=[sys.executable, str(script), "--node", "{node}",
                                            "{cause}", "at{checkpoint_step}"],
                                      actions=["drain", "notify"], env={"SITE": "x"}),
                             env(SubprocessRunner()))
    assert hook.actions == {Action.DRAIN, Action.NOTIFY}
    # log text with shell syntax stays data
    inc = make_incident(text="$(touch /tmp/pwned) `id`; rm -rf /")
    res = hook.run(call(Action.DRAIN, checkpoint=Checkpoint("/c/step_7", 7), incident=inc))
    assert res.status is Status.OK, res
    got = json.loads(out.read_text())
    assert got["argv"] == ["--node", "n1", "gpu_hardware", "at7"]
    assert got["stdin"]["evidence"][0]["text"] == "$(touch /tmp/pwned) `id`; rm -rf /"
    assert got["env"] == {
        "SITE": "x", "RANKDOCTOR_ACTION": "drain", "RANKDOCTOR_EVENT": "decision",
        "RANKDOCTOR_INCIDENT_ID": "inc-1", "RANKDOCTOR_CAUSE": "gpu_hardware",
        "RANKDOCTOR_NODE": "n1", "RANKDOCTOR_RANK": "1", "RANKDOCTOR_CONFIDENCE": "0.95",
        "RANKDOCTOR_REASON": "rankdoctor: gpu_hardware inc-1", "RANKDOCTOR_JOB_ID": "",
        "RANKDOCTOR_SUMMARY": "slurm drain: n1 is IDLE+DRAIN",
        "RANKDOCTOR_RESUME_FROM": "/c/step_7", "RANKDOCTOR_RESUME_STEP": "7",
    }
    assert not Path("/tmp/pwned").exists()


def test_command_timeout_kills_the_program() -> None:
    hook = make_command_hook(settings(argv=["sh", "-c", "sleep 30 & sleep 30"]),
                             env(SubprocessRunner()))
    start = time.monotonic()
    res = hook.run(call(Action.NOTIFY, timeout=0.5))
    assert res.status is Status.TIMEOUT
    assert time.monotonic() - start < 5  # the grandchild holding the pipe was killed too


def test_command_failure_and_missing_program() -> None:
    hook = make_command_hook(settings(argv=["/nonexistent/drain"]), env(SubprocessRunner()))
    res = hook.run(call(Action.NOTIFY))
    assert res.status is Status.FAILED and "exit 127" in res.detail


# --- webhook (a real HTTP server on loopback) ---


class _Sink(BaseHTTPRequestHandler):
    received: ClassVar[list[tuple[str, dict[str, str], bytes]]] = []
    status = 200

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        _Sink.received.append((self.path, dict(self.headers.items()), body))
        self.send_response(_Sink.status)
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def http_sink() -> Iterator[str]:
    _Sink.received = []
    _Sink.status = 200
    server = HTTPServer(("127.0.0.1", 0), _Sink)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_webhook_posts_slack_compatible_json(http_sink: str) -> None:
    url = f"{http_sink}/services/T000/B000/SECRETPATH"
    s = settings(url_env="HOOK_URL", token="tok-very-secret")
    s.environ = {"HOOK_URL": url}
    hook = make_webhook_hook(s, env(poster=UrllibPoster()))
    assert s.secrets == [url, "tok-very-secret"]
    res = hook.run(call(Action.NOTIFY))
    assert res.status is Status.OK, res
    path, headers, body = _Sink.received[0]
    assert path == "/services/T000/B000/SECRETPATH"
    assert headers["Authorization"] == "Bearer tok-very-secret"
    doc = json.loads(body)
    assert doc["text"].startswith("rankdoctor: gpu_hardware on n1 (rank 1), incident inc-1")
    assert doc["incident"]["id"] == "inc-1" and doc["event"] == "decision"
    shown = json.dumps([res.detail, res.commands])
    assert "SECRETPATH" not in shown and "tok-very-secret" not in shown


def test_webhook_http_error_and_unreachable(http_sink: str) -> None:
    _Sink.status = 500
    hook = make_webhook_hook(settings(url=f"{http_sink}/x/KEY123"), env(poster=UrllibPoster()))
    live = call(Action.NOTIFY, timeout=5)
    res = hook.run(live)
    assert res.status is Status.FAILED and "HTTP 500" in res.detail and "KEY123" not in res.detail
    down = make_webhook_hook(settings(url="http://127.0.0.1:9/KEY123"), env(poster=UrllibPoster()))
    res = down.run(live)
    assert res.status is Status.FAILED and "KEY123" not in res.detail


def test_webhook_events_filter() -> None:
    poster = FakePoster()
    hook = make_webhook_hook(settings(url="https://h.example/x", events=["verification_failed"]),
                             env(poster=poster))
    assert hook.run(call(Action.NOTIFY)).status is Status.SKIPPED
    assert hook.run(call(Action.NOTIFY, event=Event.VERIFICATION_FAILED)).status is Status.OK
    assert json.loads(poster.posts[0][1])["text"].startswith(
        "rankdoctor: resumption NOT verified")


# --- checkpoints ---


def save(root: Path, step: int, *, complete: bool = True, size: int = 100) -> Path:
    d = root / f"step_{step:08d}"
    d.mkdir(parents=True)
    (d / "model.pt").write_bytes(b"x" * size)
    if complete:
        (d / "COMPLETE").touch()
    return d


def test_newest_complete_checkpoint_skipping_partial_and_unreadable(tmp_path: Path) -> None:
    save(tmp_path, 10)
    save(tmp_path, 20)
    save(tmp_path, 30, complete=False)  # interrupted save
    (tmp_path / "step_00000040").symlink_to(tmp_path / "gone")  # unreadable
    clock = FakeClock()
    found = CheckpointFinder(tmp_path, clock, pattern="step_*").find()
    assert found.found == Checkpoint(str(tmp_path / "step_00000020"), 20)
    assert [s.split(": ", 1)[1] for s in found.skipped] == [
        "unreadable (No such file or directory)", "partial (no COMPLETE marker)"]


class GrowingClock(FakeClock):
    growing: Path | None = None

    def sleep(self, seconds: float) -> None:
        if self.growing is not None:
            with self.growing.open("ab") as f:
                f.write(b"more")
        super().sleep(seconds)


def test_size_stable_files_without_a_marker(tmp_path: Path) -> None:
    clock = GrowingClock(start=os.stat(tmp_path).st_mtime + 3600)
    old = tmp_path / "ckpt-100.pt"
    old.write_bytes(b"x" * 10)
    os.utime(old, (clock.time() - 600, clock.time() - 600))
    new = tmp_path / "ckpt-200.pt"
    new.write_bytes(b"x" * 10)
    os.utime(new, (clock.time() - 1, clock.time() - 1))
    finder = CheckpointFinder(tmp_path, clock, pattern="ckpt-*.pt", settle_s=5)

    clock.growing = new  # the writer is still appending while we wait
    result = finder.find()
    assert result.found == Checkpoint(str(old), 100)
    assert "still changing" in result.skipped[0]
    clock.growing = None
    assert finder.find().found == Checkpoint(str(new), 200)  # stopped growing


def test_no_checkpoint_and_missing_dir(tmp_path: Path) -> None:
    assert CheckpointFinder(tmp_path, FakeClock()).find().found is None
    missing = CheckpointFinder(tmp_path / "nope", FakeClock()).find()
    assert missing.found is None and "cannot list" in missing.skipped[0]
